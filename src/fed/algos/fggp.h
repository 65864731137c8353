#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:private */
#include "../../alone.h"
/* Tests: FINCH's final partition, the kNN-union graph, the two contrastive
 * losses and the prototype prediction, on plain arrays
 * (src/fed/algos/fggp.h). */
FGL__PRIVATE int fgl__finch(const float *X, int n, int d, int *label, int *n_clusters);
FGL__PRIVATE int fgl__fggp_knn_union(const fgl_csr *adj, const float *Z, int n, int d, int k, fgl_csr *out,
                                     fgl_error *err);
FGL__PRIVATE fgl_node *fgl__fggp_align_loss(fgl_tape *t, fgl_node *view2, fgl_node *view1, float tau);
FGL__PRIVATE fgl_node *fgl__fggp_cluster_loss(fgl_tape *t, fgl_node *Z, const int *y, const float *G,
                                              const int *glabel, int m, float tau);
FGL__PRIVATE void fgl__fggp_knn_scores(const float *Z, int n, int d, const float *G, const int *glabel, int m, int C,
                                       int k, float temp, float *scores);
/* fgl:implementation */
#include "../../alone.h"
/* --- FGGP (Wan, Huang and Ye, AAAI 2024) ---------------------------------------------- */
/* "Federated Graph Learning under Domain Shift with Generalizable
 * Prototypes". FedAvg of the weights, plus class prototypes clustered on
 * the server and contrastive terms on the clients. docs/algorithms.md,
 * "FGGP", says where the paper, the authors' code (GuanchengWan/FGGP) and
 * OpenFGL (openfgl/flcore/fggp) differ and which is followed here.
 *
 * Prototypes (up, C x d, the same "protos" / "counts" parts as FedProto):
 * after local training, in evaluation mode over the client's whole graph,
 * Z = the representation the classifier reads (fgl_forward.rep), p_v = the
 * softmax of the logits; pseudo-label yhat_v = y_v with confidence w_v = 1
 * on the training nodes, argmax p_v with w_v = max p_v elsewhere;
 *     proto_c = sum_{yhat_v = c} w_v Z_v / (sum_{yhat_v = c} w_v + 1e-6),
 *     counts_c = sum_{yhat_v = c} w_v (> 0: the class is present).
 * (proto_nodes=train: FedProto's mean over training nodes instead.)
 *
 * Server: theta = FedAvg's mean (fgl_server_mean, weighted by training
 * samples). For each class c, the present prototypes of this round's
 * accepted uploads (client order) are clustered by FINCH (Sarfraz et al.
 * 2019) with cosine distance, without its early exit, and the last
 * partition it returns is kept: first neighbours kappa(i) = argmin_{j != i}
 * (1 - cos(x_i, x_j)) (ties: the lowest j); the clusters are the connected
 * components of the graph i -- kappa(i); the same again on the clusters'
 * means (of the original rows) until one cluster would remain, whose step
 * is undone. One prototype: itself. Each cluster's prototype is the plain
 * mean of its members. Down: the clusters of every class, `slots` rows of
 * d ("protos") and `slots` class labels ("labels", -1 for an empty row;
 * all -1 before the first aggregation); more clusters than slots is an error.
 *
 * Client, each round, before training, from the received global model
 * (evaluation mode): a second view of its graph, the edges of its own
 * graph united with each node's `knn` nearest other nodes by cosine of
 * their representations (symmetrised: the graph contract; the authors'
 * "global knowledge injection"). Each step adds to the task's CE(view 1):
 *   ce2 * CE(logits of view 2 on the step's training rows)
 * + pa * L_pa:  confidence-weighted prototypes of the present classes from
 *     each view (pseudo-labels and confidences from the step's view-1
 *     logits, held constant), P1 and P2; rows l2-normalised; for class i
 *     L_i = -log e^{<P2_i,P1_i>/tau_pa} / (sum_j e^{<P2_i,P1_j>/tau_pa}
 *            + sum_{j != i} e^{<P2_i,P2_j>/tau_pa}), the mean over classes;
 * + cl * L_cl:  for each training row v of the step whose class has global
 *     prototypes, with s_p = cos(Z_v, G_p) / tau_cl over all global
 *     prototypes p,  L_v = -log sum_{label(p) = y_v} e^{s_p} / sum_p e^{s_p},
 *     the mean over those rows (computed as CE(s, j) - CE(s + mask, j) for
 *     one positive j, with -1e9 on the negatives in mask: exact, stable).
 * Prediction (predict=proto, the paper and the authors' code): cosine
 * similarities of a node's rep to the received prototypes, the top `k_eval`
 * weighted by softmax(sim / 0.1), summed per class; before any prototype
 * arrives, the classifier head. predict=head: the head throughout.
 * Defaults: knn 3, tau_pa 0.5, tau_cl 0.02 (the authors' neibor, the
 * temperature they pass, infoNCET), weights ce2 = pa = cl = 1, k_eval 40
 * and the vote's 0.1 (their knn and MomentumQueue temperature), slots 64.
 * Not sent: no graph, no node. Sent: up 4 (n + 1 + C (d + 1)), down
 * 4 (n + slots (d + 1)) bytes. Node classification only. The prototypes
 * are clustered as sent into what the clients train and predict with, so
 * they are marked raw (FGL_PART_RAW): robust rules, DP and secure
 * aggregation, which cover a mean of the weights, do not cover them, and a
 * run asking for one is refused at its start. */

enum { FGL__FGGP_HEAD, FGL__FGGP_PROTO };

/* --- FINCH ------------------------------------------------------------------------- */

static int fgl__uf_find(int *p, int i) {
    while (p[i] != i) i = p[i] = p[p[i]];
    return i;
}

/* First neighbours of the m rows of X (cosine distance, ties to the lowest
 * index), their components as labels 0..k-1 in order of first appearance. */
static int fgl__finch_level(const double *X, int m, int d, int *lab, int *parent) {
    int i, j, k = 0;
    double *nrm = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(m, 1));
    if (!nrm) return -1;
    for (i = 0; i < m; i++) {
        double s = 0;
        for (j = 0; j < d; j++) s += X[(size_t)i * d + j] * X[(size_t)i * d + j];
        nrm[i] = sqrt(s);
        parent[i] = i;
    }
    for (i = 0; i < m; i++) {
        int best = -1;
        double bd = 0;
        for (j = 0; j < m; j++) {
            double dot = 0, dist;
            int q;
            if (j == i) continue;
            for (q = 0; q < d; q++) dot += X[(size_t)i * d + q] * X[(size_t)j * d + q];
            dist = nrm[i] > 0 && nrm[j] > 0 ? 1 - dot / (nrm[i] * nrm[j]) : 1; /* a zero row: similarity 0 */
            if (best < 0 || dist < bd) best = j, bd = dist;
        }
        if (best >= 0) {
            int a = fgl__uf_find(parent, i), b = fgl__uf_find(parent, best);
            if (a != b) parent[a > b ? a : b] = a < b ? a : b;
        }
    }
    for (i = 0; i < m; i++) lab[i] = -1;
    for (i = 0; i < m; i++) { /* component labels in order of first appearance */
        int r = fgl__uf_find(parent, i);
        if (lab[r] < 0) lab[r] = k++;
        lab[i] = lab[r];
    }
    FGL_FREE(nrm);
    return k;
}

FGL__PRIVATE int fgl__finch(const float *X, int n, int d, int *label, int *n_clusters) {
    double *M = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(n, 1) * (size_t)FGL__MAX(d, 1));
    int *lab = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(n, 1) * 3), *par = lab + FGL__MAX(n, 1),
        *cnt = par + FGL__MAX(n, 1);
    int i, j, k, rc = FGL_OK;
    if (!M || !lab) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    if (n < 1 || d < 1) {
        rc = FGL_ERR_ARG;
        goto done;
    }
    for (i = 0; i < n * d; i++) M[i] = X[i];
    if (n == 1) {
        label[0] = 0;
        k = 1;
    } else if ((k = fgl__finch_level(M, n, d, label, par)) < 0) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    while (k > 1) { /* the next level, on the clusters' means of the original rows */
        int k2;
        memset(M, 0, sizeof(double) * (size_t)k * (size_t)d);
        memset(cnt, 0, sizeof(int) * (size_t)k);
        for (i = 0; i < n; i++) {
            for (j = 0; j < d; j++) M[(size_t)label[i] * d + j] += X[(size_t)i * d + j];
            cnt[label[i]]++;
        }
        for (i = 0; i < k; i++)
            for (j = 0; j < d; j++) M[(size_t)i * d + j] /= cnt[i];
        if ((k2 = fgl__finch_level(M, k, d, lab, par)) < 0) {
            rc = FGL_ERR_NOMEM;
            goto done;
        }
        if (k2 == 1 || k2 >= k) break; /* FINCH undoes the step that leaves one cluster */
        for (i = 0; i < n; i++) label[i] = lab[label[i]];
        k = k2;
    }
    *n_clusters = k;
done:
    FGL_FREE(M);
    FGL_FREE(lab);
    return rc;
}

/* --- the second view: the graph united with a kNN graph of representations --------- */

FGL__PRIVATE int fgl__fggp_knn_union(const fgl_csr *adj, const float *Z, int n, int d, int k, fgl_csr *out,
                                     fgl_error *err) {
    enum { BLOCK = 256 }; /* rows of similarities at a time: BLOCK x n floats */
    float *zn = (float *)FGL_MALLOC(sizeof(float) * (size_t)FGL__MAX(n, 1) * (size_t)FGL__MAX(d, 1));
    float *sim = (float *)FGL_MALLOC(sizeof(float) * (size_t)FGL__MIN(FGL__MAX(n, 1), BLOCK) * (size_t)FGL__MAX(n, 1));
    int *nb = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(k, 1));
    size_t cap = (size_t)adj->nnz + 2 * (size_t)n * (size_t)FGL__MAX(k, 0), e = 0;
    int *r = (int *)FGL_MALLOC(sizeof(int) * FGL__MAX(cap, 1)), *cc = (int *)FGL_MALLOC(sizeof(int) * FGL__MAX(cap, 1));
    int i, j, q, i0, rc = FGL_OK;
    if (!zn || !sim || !nb || !r || !cc) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "fggp: out of memory for the kNN graph of %d nodes", n);
        goto done;
    }
    k = FGL__MIN(k, n - 1);
    for (i = 0; i < n; i++) { /* unit rows (a zero row stays zero: similarity 0 to every node) */
        double s = 0;
        for (q = 0; q < d; q++) s += (double)Z[(size_t)i * d + q] * Z[(size_t)i * d + q];
        s = s > 0 ? 1 / sqrt(s) : 0;
        for (q = 0; q < d; q++) zn[(size_t)i * d + q] = (float)(Z[(size_t)i * d + q] * s);
    }
    for (i = 0; i < n; i++)
        for (q = adj->indptr[i]; q < adj->indptr[i + 1]; q++) r[e] = i, cc[e++] = adj->indices[q];
    for (i0 = 0; i0 < n && k > 0; i0 += BLOCK) {
        int m = FGL__MIN(BLOCK, n - i0);
        fgl_gemm(0, 1, m, n, d, 1.0f, zn + (size_t)i0 * d, d, zn, d, 0.0f, sim, n); /* cosines of rows i0.. */
        for (i = i0; i < i0 + m; i++) {
            const float *si = sim + (size_t)(i - i0) * n;
            int got = 0;
            for (j = 0; j < n; j++) { /* the k most similar other nodes, ties to the lowest index */
                int at;
                if (j == i || (got == k && !(si[j] > si[nb[got - 1]]))) continue;
                at = got < k ? got++ : k - 1;
                while (at > 0 && si[j] > si[nb[at - 1]]) nb[at] = nb[at - 1], at--;
                nb[at] = j;
            }
            for (j = 0; j < got; j++) { /* both directions: the graph contract is symmetric */
                r[e] = i, cc[e++] = nb[j];
                r[e] = nb[j], cc[e++] = i;
            }
        }
    }
    rc = fgl_csr_from_coo(n, n, (int)e, r, cc, NULL, 0, out, err);
done:
    FGL_FREE(zn);
    FGL_FREE(sim);
    FGL_FREE(nb);
    FGL_FREE(r);
    FGL_FREE(cc);
    return rc;
}

/* --- the losses ------------------------------------------------------------------- */

FGL__PRIVATE fgl_node *fgl__fggp_align_loss(fgl_tape *t, fgl_node *view2, fgl_node *view1, float tau) {
    int U = view2->rows, i;
    fgl_node *F = fgl_op_l2_normalize_rows(t, view2, 1e-12f), *A = fgl_op_l2_normalize_rows(t, view1, 1e-12f), *xs[2];
    float *mask = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)U * (size_t)U);
    int *target = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)U);
    if (!mask || !target || t->err.code) return NULL;
    memset(mask, 0, sizeof(float) * (size_t)U * (size_t)U);
    for (i = 0; i < U; i++) {
        mask[(size_t)i * U + i] = -1e9f; /* no pair of a prototype with itself */
        target[i] = i;
    }
    xs[0] = fgl_op_scale(t, fgl_op_matmul_ex(t, F, 0, A, 1), 1.0f / tau); /* the other view: positive on the diagonal */
    xs[1] = fgl_op_add(t, fgl_op_scale(t, fgl_op_matmul_ex(t, F, 0, F, 1), 1.0f / tau), fgl_op_const(t, mask, U, U));
    return fgl_op_cross_entropy(t, fgl_op_concat_cols(t, xs, 2), target, NULL);
}

FGL__PRIVATE fgl_node *fgl__fggp_cluster_loss(fgl_tape *t, fgl_node *Z, const int *y, const float *G,
                                              const int *glabel, int m, float tau) {
    int n = Z->rows, d = Z->cols, i, p, any = 0;
    float *Gn = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)m * (size_t)d);
    float *neg = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n * (size_t)m);
    int *pos = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)FGL__MAX(n, 1));
    fgl_node *s;
    if (!Gn || !neg || !pos || t->err.code) return NULL;
    for (p = 0; p < m; p++) { /* constant prototypes, unit length (a zero row stays zero) */
        double sq = 0;
        for (i = 0; i < d; i++) sq += (double)G[(size_t)p * d + i] * G[(size_t)p * d + i];
        sq = sq > 0 ? 1 / sqrt(sq) : 0;
        for (i = 0; i < d; i++) Gn[(size_t)p * d + i] = (float)(G[(size_t)p * d + i] * sq);
    }
    for (i = 0; i < n; i++) {
        pos[i] = -1;
        for (p = 0; p < m; p++) {
            int hit = y[i] >= 0 && glabel[p] == y[i];
            neg[(size_t)i * m + p] = hit ? 0.0f : -1e9f;
            if (hit && pos[i] < 0) pos[i] = p;
        }
        any |= pos[i] >= 0;
    }
    if (!any) return NULL;
    s = fgl_op_scale(t, fgl_op_matmul_ex(t, fgl_op_l2_normalize_rows(t, Z, 1e-12f), 0, fgl_op_const(t, Gn, m, d), 1),
                     1.0f / tau);
    /* -log sum_pos softmax(s) = (lse(s) - s_j) - (lse_pos(s) - s_j) */
    return fgl_op_sub(t, fgl_op_cross_entropy(t, s, pos, NULL),
                      fgl_op_cross_entropy(t, fgl_op_add(t, s, fgl_op_const(t, neg, n, m)), pos, NULL));
}

FGL__PRIVATE void fgl__fggp_knn_scores(const float *Z, int n, int d, const float *G, const int *glabel, int m, int C,
                                       int k, float temp, float *scores) {
    int i, p, q;
    double *sim = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(m, 1)), *gn;
    int *top = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(m, 1));
    gn = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(m, 1));
    memset(scores, 0, sizeof(float) * (size_t)n * (size_t)C);
    if (!sim || !top || !gn) goto done;
    k = FGL__MAX(1, FGL__MIN(k, m));
    for (p = 0; p < m; p++) {
        double s = 0;
        for (q = 0; q < d; q++) s += (double)G[(size_t)p * d + q] * G[(size_t)p * d + q];
        gn[p] = sqrt(s);
    }
    for (i = 0; i < n && m > 0; i++) {
        const float *z = Z + (size_t)i * d;
        double zn = 0, mx, sum = 0;
        int got = 0;
        for (q = 0; q < d; q++) zn += (double)z[q] * z[q];
        zn = sqrt(zn);
        for (p = 0; p < m; p++) {
            double dot = 0;
            int at;
            for (q = 0; q < d; q++) dot += (double)z[q] * G[(size_t)p * d + q];
            sim[p] = zn > 0 && gn[p] > 0 ? dot / (zn * gn[p]) : 0;
            if (got == k && !(sim[p] > sim[top[got - 1]])) continue;
            at = got < k ? got++ : k - 1;
            while (at > 0 && sim[p] > sim[top[at - 1]]) top[at] = top[at - 1], at--;
            top[at] = p;
        }
        mx = sim[top[0]];
        for (q = 0; q < got; q++) sum += exp((sim[top[q]] - mx) / temp);
        for (q = 0; q < got; q++) {
            int c = glabel[top[q]];
            if (c >= 0 && c < C) scores[(size_t)i * C + c] += (float)(exp((sim[top[q]] - mx) / temp) / sum);
        }
    }
done:
    FGL_FREE(sim);
    FGL_FREE(top);
    FGL_FREE(gn);
}

/* --- the client ------------------------------------------------------------------- */

typedef struct fgl__fggp_data {
    fgl_csr adj2;
    fgl_gnn_graph g2;
    int built;
} fgl__fggp_data;

static void fgl__fggp_destroy(void *p) {
    fgl__fggp_data *d = (fgl__fggp_data *)p;
    if (d->built) fgl_gnn_graph_free(&d->g2);
    fgl_csr_free(&d->adj2);
    d->built = 0;
}

/* The parameters. */
typedef struct fgl__fggp_params {
    unsigned share;  /* the groups averaged */
    int knn;         /* neighbours per node in the second view's kNN graph */
    double ce2;      /* weight of the cross-entropy on the second view */
    double pa;       /* weight of the two views' prototype alignment L_pa */
    double tau_pa;   /* temperature of L_pa */
    double cl;       /* weight of the clustered-prototype contrastive term L_cl */
    double tau_cl;   /* temperature of L_cl */
    int predict;     /* FGL__FGGP_HEAD or FGL__FGGP_PROTO */
    int k_eval;      /* prototypes voting in predict=proto */
    int proto_nodes; /* 0: confidence-weighted over every node; 1: FedProto's training nodes' means */
    int slots;       /* rows of the download's prototype table */
} fgl__fggp_params;

/* A client's state: the second view ("fggp"), the scores eval_scores
 * returns (n x C), and the prototype table of its last download with its
 * labels ("kept_protos": slots x d, "kept_labels": slots, -1 for an empty
 * row), which it predicts with in every evaluation until the next one: a
 * client that sits rounds out evaluates with what it received, not with
 * the server's newer table (in one process its download would view the
 * server's buffer, over MPI it is a copy). */
typedef struct fgl__fggp_client {
    fgl__fggp_data *fggp;
    float *scores;
    float *kept_protos, *kept_labels;
} fgl__fggp_client;

/* The server's state: the global vector, the clustered prototypes ("cp":
 * slots x d) and their labels ("cl": slots, -1 for an empty row), the
 * clusters and classes of the last aggregation. */
typedef struct fgl__fggp_server {
    float *global, *cp, *cl;
    int *last;
} fgl__fggp_server;

static int fgl__fggp_spec(const fgl_settings *set, fgl_model_spec *sp, fgl_error *err) {
    const fgl__fggp_params *p = FGL_PARAMS(fgl__fggp_params, set);
    if (sp->task != FGL_TASK_NODE)
        return fgl_error_set(err, FGL_ERR_ARG, "fggp: node classification only (its second view is a graph of the "
                             "client's nodes)");
    if (p->knn < 0 || p->k_eval < 1 || !(p->tau_pa > 0) || !(p->tau_cl > 0) || !(p->ce2 >= 0) || !(p->pa >= 0) ||
        !(p->cl >= 0))
        return fgl_error_set(err, FGL_ERR_RANGE, "fggp: knn >= 0, k_eval >= 1, tau_pa and tau_cl > 0, and the weights "
                             "ce2, pa and cl >= 0");
    return fgl__proto_spec(set, sp, err);
}

static int fgl__fggp_client_init(fgl_client *c) {
    const fgl_node_data *nd = c->data.node;
    int slots = FGL_PARAMS(fgl__fggp_params, c->set)->slots, i;
    size_t scores = sizeof(float) * (size_t)(nd ? nd->n_nodes : 1) * (size_t)FGL__MAX(c->model.spec.out_dim, 1);
    fgl__fggp_client *st = FGL_NEW_STATE(fgl__fggp_client, &c->store);
    if (!st) return FGL_ERR_NOMEM;
    st->fggp = (fgl__fggp_data *)fgl_new_scratch(&c->store, "fggp", sizeof(fgl__fggp_data), fgl__fggp_destroy);
    st->scores = (float *)fgl_new_scratch(&c->store, "scores", scores, NULL);
    st->kept_protos = fgl_new_floats(&c->store, "kept_protos", (size_t)slots * fgl_client_dim(c, FGL_DIM_REP));
    if ((st->kept_labels = fgl_new_floats(&c->store, "kept_labels", (size_t)slots)))
        for (i = 0; i < slots; i++) st->kept_labels[i] = -1; /* nothing received yet */
    return c->store.err.code;
}

/* A download's prototype table, kept (the model part is the runtime's). */
static int fgl__fggp_receive(fgl_client *c) {
    const fgl__fggp_client *st = FGL_STATE(fgl__fggp_client, &c->store);
    const float *P = fgl_down(c, "protos"), *L = fgl_down(c, "labels");
    size_t slots = (size_t)FGL_PARAMS(fgl__fggp_params, c->set)->slots;
    if (!P || !L) return FGL_OK; /* (both are always sent: a row labelled -1 is empty) */
    memcpy(st->kept_protos, P, sizeof(float) * slots * fgl_client_dim(c, FGL_DIM_REP));
    memcpy(st->kept_labels, L, sizeof(float) * slots);
    return FGL_OK;
}

/* The representation (evaluation mode) of every node of the client's graph,
 * on c->tape (valid until it is reset); NULL after recording the failure. */
static fgl_node *fgl__fggp_rep(fgl_client *c, fgl_model *m, fgl_forward *fw) {
    fgl_tape_reset(&c->tape);
    if (fgl_model_forward(m, &c->tape, &c->data.full, 0, NULL, fw) || !fw->rep || !fw->logits) {
        fgl_client_fail(c, c->tape.err.code ? c->tape.err.code : FGL_ERR_ARG, "fggp: representations: %s", c->tape.err.msg);
        return NULL;
    }
    return fw->rep;
}

/* Local training: the second view from the received model, then the steps. */
static int fgl__fggp_train(fgl_client *c) {
    fgl__fggp_data *d = FGL_STATE(fgl__fggp_client, &c->store)->fggp;
    const fgl_gnn_graph *g = &c->data.full;
    fgl_forward fw;
    fgl_node *Z;
    fgl_error err;
    int rc;
    if (!c->data.node) return fgl_client_fail(c, FGL_ERR_ARG, "fggp: node classification only");
    fgl__fggp_destroy(d);
    if (!(Z = fgl__fggp_rep(c, &c->model, &fw))) return c->err.code;
    rc = fgl__fggp_knn_union(&c->data.node->adj, Z->val, Z->rows, Z->cols, FGL_PARAMS(fgl__fggp_params, c->set)->knn,
                             &d->adj2, &err);
    fgl_tape_reset(&c->tape);
    if (rc || (rc = fgl_gnn_graph_make(&d->g2, &d->adj2, NULL, g->x, g->x_sparse, g->n_feat, NULL, 0, NULL, 0,
                                       &c->model.spec, &err)))
        return fgl_client_fail(c, rc, "fggp: second view: %s", err.msg);
    d->built = 1;
    return fgl_client_train(c, &c->model, &c->optim, &c->algo->train);
}

/* The received prototypes (the last download's, as kept): their count m (0: none), rows G and labels. */
static int fgl__fggp_received(fgl_client *c, const float **G, int **glabel) {
    const fgl__fggp_client *st = FGL_STATE(fgl__fggp_client, &c->store);
    const float *P = st->kept_protos, *L = st->kept_labels;
    int slots = FGL_PARAMS(fgl__fggp_params, c->set)->slots, i, m = 0, d = (int)fgl_client_dim(c, FGL_DIM_REP);
    int *lab;
    float *rows;
    if (!P || !L) return 0;
    for (i = 0; i < slots; i++) m += L[i] >= 0;
    if (!m) return 0;
    lab = (int *)fgl_scratch(&c->store, sizeof(int) * (size_t)m);
    rows = (float *)fgl_scratch(&c->store, sizeof(float) * (size_t)m * (size_t)d);
    if (!lab || !rows) return 0;
    m = 0;
    for (i = 0; i < slots; i++)
        if (L[i] >= 0) {
            memcpy(rows + (size_t)m * d, P + (size_t)i * d, sizeof(float) * (size_t)d);
            lab[m++] = (int)L[i];
        }
    *G = rows;
    *glabel = lab;
    return m;
}

/* Pseudo-labels and confidences of every node from logits (N x C): the
 * training nodes' own labels with 1, elsewhere the argmax of the softmax
 * with its probability. */
static void fgl__fggp_pseudo(const float *logits, int N, int C, const int *y, const unsigned char *train, int *pl,
                             float *conf) {
    int v, k;
    for (v = 0; v < N; v++) {
        const float *l = logits + (size_t)v * C;
        double mx = l[0], s = 0;
        int best = 0;
        if (train && train[v] && y[v] >= 0 && y[v] < C) {
            pl[v] = y[v];
            conf[v] = 1;
            continue;
        }
        for (k = 1; k < C; k++)
            if (l[k] > l[best]) best = k;
        mx = l[best];
        for (k = 0; k < C; k++) s += exp((double)l[k] - mx);
        pl[v] = best;
        conf[v] = (float)(1 / s);
    }
}

static fgl_node *fgl__fggp_loss(fgl_client *c, const fgl_step *st) {
    const fgl__fggp_params *p = FGL_PARAMS(fgl__fggp_params, c->set);
    fgl__fggp_data *d = FGL_STATE(fgl__fggp_client, &c->store)->fggp;
    fgl_tape *t = st->t;
    fgl_node *loss = NULL, *Z1 = st->fwd->rep, *L1 = st->fwd->logits;
    float w_ce2 = (float)p->ce2, w_pa = (float)p->pa, w_cl = (float)p->cl;
    int N = Z1 ? Z1->rows : 0, C = L1 ? L1->cols : 0, i;
    if (!Z1 || !L1 || st->g != &c->data.full || !d->built) {
        fgl_client_fail(c, FGL_ERR_ARG, "fggp: a step outside the client's whole graph (node tasks train on it)");
        return NULL;
    }
    if (w_ce2 > 0 || w_pa > 0) {
        fgl_forward f2;
        if (fgl_model_forward(st->model, t, &d->g2, 1, &c->rng, &f2) || !f2.rep || !f2.logits) {
            fgl_client_fail(c, t->err.code ? t->err.code : FGL_ERR_ARG, "fggp: second view: %s", t->err.msg);
            return NULL;
        }
        if (w_ce2 > 0) loss = fgl_op_scale(t, fgl_op_cross_entropy(t, f2.logits, st->labels, st->mask), w_ce2);
        if (w_pa > 0) {
            int *pl = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)FGL__MAX(N, 1)), *row = NULL, U = 0, v;
            float *conf = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)FGL__MAX(N, 1)), *M;
            double *wsum = (double *)fgl_tape_alloc(t, sizeof(double) * (size_t)FGL__MAX(C, 1));
            if (pl && conf && wsum) row = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)FGL__MAX(C, 1));
            if (!row) return NULL;
            fgl__fggp_pseudo(L1->val, N, C, c->data.node->y, c->data.mask[FGL_SPLIT_TRAIN], pl, conf);
            for (i = 0; i < C; i++) wsum[i] = 0, row[i] = -1;
            for (v = 0; v < N; v++) wsum[pl[v]] += conf[v];
            for (i = 0; i < C; i++)
                if (wsum[i] > 0) row[i] = U++; /* the present classes, in class order */
            if (!(M = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)U * (size_t)N))) return NULL;
            memset(M, 0, sizeof(float) * (size_t)U * (size_t)N);
            for (v = 0; v < N; v++) M[(size_t)row[pl[v]] * N + v] = (float)(conf[v] / (wsum[pl[v]] + 1e-6));
            {
                fgl_node *W = fgl_op_const(t, M, U, N);
                fgl_node *pa = fgl__fggp_align_loss(t, fgl_op_matmul(t, W, f2.rep), fgl_op_matmul(t, W, Z1),
                                                    (float)p->tau_pa);
                if (pa) pa = fgl_op_scale(t, pa, w_pa);
                loss = loss && pa ? fgl_op_add(t, loss, pa) : pa ? pa : loss;
            }
        }
    }
    if (w_cl > 0) {
        const float *G;
        int *glabel, m = fgl__fggp_received(c, &G, &glabel), n = 0, *idx, *y;
        fgl_node *cl;
        if (m > 0) {
            idx = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)FGL__MAX(N, 1));
            y = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)FGL__MAX(N, 1));
            if (!idx || !y) return NULL;
            for (i = 0; i < N; i++)
                if ((!st->mask || st->mask[i]) && st->labels[i] >= 0) idx[n] = i, y[n++] = st->labels[i];
            if (n > 0 && (cl = fgl__fggp_cluster_loss(t, fgl_op_gather_rows(t, Z1, idx, n), y, G, glabel, m,
                                                      (float)p->tau_cl))) {
                cl = fgl_op_scale(t, cl, w_cl);
                loss = loss ? fgl_op_add(t, loss, cl) : cl;
            }
        }
    }
    return t->err.code ? NULL : loss;
}

/* Upload: confidence-weighted prototypes of every node's pseudo-label. */
static int fgl__fggp_upload(fgl_client *c) {
    int C = fgl__proto_C(c), N, d, v, k, *pl;
    float *p = fgl_up(c, "protos"), *cnt = fgl_up(c, "counts"), *conf;
    double *sum;
    fgl_forward fw;
    fgl_node *Z;
    if (FGL_PARAMS(fgl__fggp_params, c->set)->proto_nodes != 0)
        return fgl__proto_upload(c); /* FedProto's: training nodes' means */
    if (!p || !cnt) return FGL_ERR_NOMEM;
    if (!(Z = fgl__fggp_rep(c, &c->model, &fw))) return c->err.code;
    N = Z->rows;
    d = Z->cols;
    if (fw.logits->cols > C) return fgl_client_fail(c, FGL_ERR_SHAPE, "fggp: %d classes, at most %d", fw.logits->cols, C);
    pl = (int *)fgl_scratch(&c->store, sizeof(int) * (size_t)FGL__MAX(N, 1));
    conf = (float *)fgl_scratch(&c->store, sizeof(float) * (size_t)FGL__MAX(N, 1));
    sum = (double *)fgl_scratch(&c->store, sizeof(double) * (size_t)C * (size_t)(d + 1));
    if (!pl || !conf || !sum) return FGL_ERR_NOMEM;
    fgl__fggp_pseudo(fw.logits->val, N, fw.logits->cols, c->data.node->y, c->data.mask[FGL_SPLIT_TRAIN], pl, conf);
    for (v = 0; v < N; v++) {
        double *s = sum + (size_t)pl[v] * (d + 1);
        for (k = 0; k < d; k++) s[k] += (double)conf[v] * Z->val[(size_t)v * d + k];
        s[d] += conf[v];
    }
    for (v = 0; v < C; v++) {
        const double *s = sum + (size_t)v * (d + 1);
        for (k = 0; k < d; k++) p[(size_t)v * d + k] = (float)(s[k] / (s[d] + 1e-6));
        cnt[v] = (float)s[d];
    }
    fgl_tape_reset(&c->tape);
    return FGL_OK;
}

static const float *fgl__fggp_scores(fgl_client *c) {
    const float *G;
    const fgl__fggp_params *p = FGL_PARAMS(fgl__fggp_params, c->set);
    int *glabel, m, C = c->model.spec.out_dim;
    float *sc = FGL_STATE(fgl__fggp_client, &c->store)->scores;
    fgl_forward fw;
    fgl_node *Z;
    if (p->predict != FGL__FGGP_PROTO || !(m = fgl__fggp_received(c, &G, &glabel))) return NULL;
    if (!(Z = fgl__fggp_rep(c, &c->model, &fw))) return NULL;
    fgl__fggp_knn_scores(Z->val, Z->rows, Z->cols, G, glabel, m, C, p->k_eval, 0.1f, sc);
    fgl_tape_reset(&c->tape);
    return sc;
}

/* --- the server ------------------------------------------------------------------- */

static int fgl__fggp_server_init(fgl_server *s) {
    int slots = FGL_PARAMS(fgl__fggp_params, s->set)->slots, i;
    size_t C = fgl_server_up_size(s, "counts"), d = fgl_server_up_size(s, "protos") / FGL__MAX(C, 1);
    fgl__fggp_server *st = FGL_NEW_STATE(fgl__fggp_server, &s->store);
    if (!st || !(st->global = fgl_server_global(s, "global"))) return FGL_ERR_NOMEM;
    st->cp = fgl_new_floats(&s->store, "cp", (size_t)slots * d);
    st->cl = fgl_new_floats(&s->store, "cl", (size_t)slots);
    st->last = fgl_new_ints(&s->store, "last", 2); /* clusters and classes of the last aggregation */
    if (s->store.err.code) return s->store.err.code;
    for (i = 0; i < slots; i++) st->cl[i] = -1;
    return FGL_OK;
}

static int fgl__fggp_aggregate(fgl_server *s) {
    const fgl__fggp_server *st = FGL_STATE(fgl__fggp_server, &s->store);
    int slots = FGL_PARAMS(fgl__fggp_params, s->set)->slots, K = s->n_clients, i, cl, q, rc, m = 0, classes = 0;
    size_t C = fgl_server_up_size(s, "counts"), d = fgl_server_up_size(s, "protos") / FGL__MAX(C, 1), k;
    float *cp = st->cp, *lab = st->cl;
    float *X = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * d);
    int *part = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K * 2), *cnt = part + K;
    rc = fgl_server_mean(s, "theta", st->global);
    if (rc && rc != FGL_ERR_EMPTY) return rc;
    if (!X || !part) return FGL_ERR_NOMEM;
    if (s->n_accepted == 0) return FGL_OK; /* nothing accepted: keep the prototypes */
    for (i = 0; i < slots; i++) lab[i] = -1;
    memset(cp, 0, sizeof(float) * (size_t)slots * d);
    for (cl = 0; cl < (int)C; cl++) {
        int n = 0, nc = 0;
        for (i = 0; i < K; i++) { /* the class's prototypes, client order */
            const float *p = fgl_upload(s, i, "protos"), *c = fgl_upload(s, i, "counts");
            if (p && c && c[cl] > 0) memcpy(X + (size_t)n++ * d, p + (size_t)cl * d, sizeof(float) * d);
        }
        if (!n) continue;
        if ((rc = fgl__finch(X, n, (int)d, part, &nc)))
            return fgl_server_fail(s, rc, "fggp: clustering the prototypes of class %d: %s", cl, fgl_result_name(rc));
        if (m + nc > slots)
            return fgl_server_fail(s, FGL_ERR_RANGE,
                                   "fggp: %d clusters of prototypes or more do not fit in slots = %d (raise it)",
                                   m + nc, slots);
        memset(cnt, 0, sizeof(int) * (size_t)nc);
        for (i = 0; i < n; i++) { /* each cluster's plain mean */
            for (k = 0; k < d; k++) cp[(size_t)(m + part[i]) * d + k] += X[(size_t)i * d + k];
            cnt[part[i]]++;
        }
        for (q = 0; q < nc; q++) {
            for (k = 0; k < d; k++) cp[(size_t)(m + q) * d + k] /= (float)cnt[q];
            lab[m + q] = (float)cl;
        }
        m += nc;
        classes++;
    }
    st->last[0] = m;
    st->last[1] = classes;
    return FGL_OK;
}

static void fgl__fggp_report(const fgl_observed *o, char *buf, size_t cap) {
    const int *last;
    if (!o->started || !cap) return;
    last = fgl_observed_ints(o, "last");
    snprintf(buf, cap, "\"prototypes\": %d, \"classes_with_prototypes\": %d", last[0], last[1]);
}

static fgl_algo fgl__fggp(void) {
    fgl_algo a = fgl_algo_new("fggp", "Wan et al. 2024: FedAvg with FINCH-clustered class prototypes, prototype "
                                      "contrastive losses and a kNN-augmented second view");
    int slots;
    FGL_ALGO_PARAM(&a, fgl__fggp_params, share, FGL_PARAM_GROUPS, (double)FGL_G_ALL, "parameter groups averaged");
    FGL_ALGO_PARAM(&a, fgl__fggp_params, knn, FGL_PARAM_INT, 3,
                   "neighbours per node in the second view's kNN graph (authors 3)");
    FGL_ALGO_PARAM(&a, fgl__fggp_params, ce2, FGL_PARAM_FLOAT, 1, "weight of the cross-entropy on the second view");
    FGL_ALGO_PARAM(&a, fgl__fggp_params, pa, FGL_PARAM_FLOAT, 1, "weight of the two views' prototype alignment L_pa");
    FGL_ALGO_PARAM(&a, fgl__fggp_params, tau_pa, FGL_PARAM_FLOAT, 0.5, "temperature of L_pa (authors 0.5)");
    FGL_ALGO_PARAM(&a, fgl__fggp_params, cl, FGL_PARAM_FLOAT, 1,
                   "weight of the clustered-prototype contrastive term L_cl (paper; 0: the authors' code)");
    FGL_ALGO_PARAM(&a, fgl__fggp_params, tau_cl, FGL_PARAM_FLOAT, 0.02, "temperature of L_cl (authors' infoNCET 0.02)");
    FGL_ALGO_PARAM(&a, fgl__fggp_params, predict, FGL_PARAM_INT, FGL__FGGP_PROTO,
                   "proto: kNN over the clustered prototypes (paper, authors); head: the classifier");
    fgl_algo_param_choices(&a, "predict", "head|proto");
    FGL_ALGO_PARAM(&a, fgl__fggp_params, k_eval, FGL_PARAM_INT, 40,
                   "prototypes voting in predict=proto (authors' knn 40)");
    FGL_ALGO_PARAM(&a, fgl__fggp_params, proto_nodes, FGL_PARAM_INT, 0,
                   "all: confidence-weighted over every node (authors, OpenFGL); train: FedProto's means");
    fgl_algo_param_choices(&a, "proto_nodes", "all|train");
    FGL_ALGO_PARAM(&a, fgl__fggp_params, slots, FGL_PARAM_INT, 64,
                   "rows of the download's prototype table (at least C floor(K / 2) for K >= 2 clients)");
    slots = fgl_algo_param_dim(&a, "slots");
    fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, 0, 0, 0);
    fgl_algo_upload(&a, "n", FGL_SEND_WEIGHT, 0, 0, 0);
    /* raw: the server clusters them as sent into what the clients predict with; no rule covers that */
    fgl_algo_upload(&a, "protos", FGL_SEND_DATA, FGL_DIM_CLASSES, FGL_DIM_REP, FGL_PART_RAW);
    fgl_algo_upload(&a, "counts", FGL_SEND_DATA, FGL_DIM_CLASSES, 1, FGL_PART_RAW);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, 0, "global");
    fgl_algo_download(&a, "protos", FGL_SEND_DATA, slots, FGL_DIM_REP, 0, "cp");
    fgl_algo_download(&a, "labels", FGL_SEND_DATA, slots, 1, 0, "cl");
    a.prepare_spec = fgl__fggp_spec;
    a.client_init = fgl__fggp_client_init;
    a.local_train = fgl__fggp_train;
    a.train.loss = fgl__fggp_loss;
    a.upload = fgl__fggp_upload;
    a.receive = fgl__fggp_receive;
    a.eval_scores = fgl__fggp_scores;
    a.server_init = fgl__fggp_server_init;
    a.aggregate = fgl__fggp_aggregate;
    a.report = fgl__fggp_report;
    return a;
}
#include "../../alone.h"
