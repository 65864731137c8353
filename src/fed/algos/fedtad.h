#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:private */
#include "../../alone.h"
/* Tests: a client's class-wise knowledge reliability, its normalisation
 * over clients, and the server's pseudo graph, on plain arrays
 * (src/fed/algos/fedtad.h). */
FGL__PRIVATE int fgl__tad_ckr(const fgl_csr *adj, int n_rows, const float *x, const fgl_csr *xs, int F, const int *y,
                              const unsigned char *train, int C, int walk, double *ckr);
FGL__PRIVATE void fgl__tad_weights(int K, int C, const float *ckr, const unsigned char *present, int per_client,
                                   double *w);
FGL__PRIVATE int fgl__tad_knn(int n, int D, const float *x, int k, fgl_csr *adj);
/* fgl:implementation */
#include "../../alone.h"
/* --- FedTAD (Zhu et al., IJCAI 2024) ----------------------------------------------- */
/* "FedTAD: Topology-aware Data-free Knowledge Distillation for Subgraph
 * Federated Learning". FedAvg, then the server distils the clients' models,
 * each trusted per class by its class-wise knowledge reliability (CKR), into
 * the average, on pseudo graphs a generator makes (no data reach the server).
 *
 * Client (once, from its subgraph): topology-aware node embeddings
 *     h_v = [x_v || r_v],  r_v = [T_vv, (T^2)_vv, ..., (T^L)_vv],  T = A D^-1
 * (the random-walk return probabilities, fgl_rwse; L = walk_length), the
 * node's reliability, its neighbourhood's agreement with it,
 *     nkr_v = (1 + sum_{u in N(v)} cos(h_v, h_u)) / (deg_v + 1),
 * and per class c the sum over its training nodes of class c:
 *     ckr_c = sum_{v in train, y_v = c} nkr_v.
 * Uploaded each round with the weights and the training-sample count.
 *
 * Server, each round: theta = FedAvg of the uploads (fgl_server_mean); the
 * teachers are the K accepted uploads, weighted per class by
 *     w_kc = ckr_kc / sum_j ckr_jc       (ckr_norm = clients: the authors' code),
 *     w_kc = ckr_kc / sum_c' ckr_kc'     (ckr_norm = classes: OpenFGL's);
 * then glb_epochs times: noise z (n x noise_dim, N(0,1)) and labels y (n/C
 * nodes per class in order, the remainder to the last) make pseudo nodes
 *     X = G(z, y) = W4 tanh(W3 tanh(W2 tanh(W1 [E onehot(y) || z])))
 * (with biases; widths 64, 128, 256, then the features), joined into a
 * graph by each node's topk most cosine-similar nodes (itself among them,
 * then dropped; symmetrised; the models add their self loops). With f_k the
 * teachers, f the student (theta), m_c the pseudo nodes of class c,
 * D(a, b) = (1/|m_c|) sum_{i in m_c} mean_j |a_ij - b_ij|:
 *   the generator takes it_g Adam steps (lr_g) on
 *     L_G = lam1 sum_k sum_c w_kc CE_{m_c}(f_k(X), y)
 *           - sum_k sum_c w_kc D(f(X), f_k(X))
 *           + lam2 K exp(-mean_ij ||z_i - z_j||^2/dz * mean_l |X_il - X_jl|)
 *     (semantics, adversarial divergence, diversity: the authors sum the
 *     last over the K clients, hence K), gradients through the frozen
 *     models into X (fgl_model_forward_x, fgl_op_pairwise_l1);
 *   then the student takes it_d Adam steps (lr_d, dropout on) on
 *     L_D = sum_k sum_c w_kc D(f(X), f_k(X))   (X, graph, f_k(X) fixed).
 * The generator, the student's and the generator's optimizer states persist
 * across rounds (checkpointed); teachers run in evaluation mode.
 * What is sent: up 4 (n + 1 + C) bytes (weights, count, CKR), down 4 n.
 * The server reads every client's model (reads_each = 1): DP, secure
 * aggregation and robust rules are refused at the start. Node
 * classification with a node model that reads its features in the forward
 * pass (not SGC, GAMLP); the whole model shared (share = all).
 * Defaults: the authors' code (train_fedtad.py), which OpenFGL's config
 * repeats: glb_epochs 5, it_g 1, it_d 5, lr_g = lr_d = 1e-3, num_gen 100,
 * noise_dim 32, topk 5, lam1 = lam2 = 1, walk_length 5, weight decay 5e-4
 * on both server optimizers. docs/algorithms.md, "FedTAD", says where the
 * paper, the authors' code and OpenFGL differ, and what this follows. */

enum { FGL__TAD_CLIENTS, FGL__TAD_CLASSES };

typedef struct fgl__fedtad_params {
    unsigned share;      /* the groups averaged (all) */
    int walk_length;     /* random-walk steps of the topology embedding */
    int ckr_norm;        /* FGL__TAD_CLIENTS or FGL__TAD_CLASSES */
    int glb_epochs;      /* distillation epochs a round */
    int it_g;            /* generator steps an epoch */
    int it_d;            /* student steps an epoch */
    double lr_g;         /* the generator's Adam learning rate */
    double lr_d;         /* the student's Adam learning rate */
    double weight_decay; /* both server optimizers' weight decay */
    int num_gen;         /* pseudo nodes a graph */
    int noise_dim;       /* generator noise width */
    int topk;            /* pseudo graph: each node's most similar nodes */
    double lam1;         /* the generator's semantic loss weight */
    double lam2;         /* the generator's diversity loss weight */
} fgl__fedtad_params;

/* A client's state: its CKR, C values, computed once. */
typedef struct fgl__fedtad_client {
    float *ckr;
} fgl__fedtad_client;

/* A client's CKR. adj: its graph (no self loop, symmetric); x (n x F dense)
 * or xs (sparse, values NULL: ones) its features; y, train per node; the
 * first n_rows rows are the client's (a halo's are not read). ckr: C
 * values written (classes y >= C are skipped). */
FGL__PRIVATE int fgl__tad_ckr(const fgl_csr *adj, int n_rows, const float *x, const fgl_csr *xs, int F, const int *y,
                              const unsigned char *train, int C, int walk, double *ckr) {
    int N = adj->rows, v, k, c, j, rc = FGL_OK;
    float *rw = (float *)FGL_MALLOC(sizeof(float) * (size_t)FGL__MAX(N, 1) * (size_t)FGL__MAX(walk, 1));
    double *norm = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(N, 1));
    double *row = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(F, 1));
    for (c = 0; c < C; c++) ckr[c] = 0;
    if (!rw || !norm || !row) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    if (walk < 1 || F < 0 || n_rows < 0 || n_rows > N || (!x && !xs)) {
        rc = FGL_ERR_ARG;
        goto done;
    }
    if ((rc = fgl_rwse(adj, walk, rw))) goto done;
#define FGL__TAD_XV(u, k) (xs->values ? (double)xs->values[k] : 1.0)
    for (v = 0; v < n_rows; v++) { /* |h_v| */
        double s = 0;
        if (x)
            for (j = 0; j < F; j++) s += (double)x[(size_t)v * F + j] * x[(size_t)v * F + j];
        else
            for (k = xs->indptr[v]; k < xs->indptr[v + 1]; k++) s += FGL__TAD_XV(v, k) * FGL__TAD_XV(v, k);
        for (j = 0; j < walk; j++) s += (double)rw[(size_t)v * walk + j] * rw[(size_t)v * walk + j];
        norm[v] = sqrt(s);
    }
    for (j = 0; j < F; j++) row[j] = 0;
    for (v = 0; v < n_rows; v++) {
        double sum = 1; /* the node itself: cosine 1 */
        int deg = 0;
        if (!train || !train[v] || !y || y[v] < 0 || y[v] >= C) continue;
        if (!x) /* v's sparse row, spread out */
            for (k = xs->indptr[v]; k < xs->indptr[v + 1]; k++) row[xs->indices[k]] += FGL__TAD_XV(v, k);
        for (k = adj->indptr[v]; k < adj->indptr[v + 1]; k++) {
            int u = adj->indices[k], kk;
            double dot = 0;
            if (u >= n_rows || u == v) continue; /* a halo node: not the client's */
            deg++;
            if (x)
                for (j = 0; j < F; j++) dot += (double)x[(size_t)v * F + j] * x[(size_t)u * F + j];
            else
                for (kk = xs->indptr[u]; kk < xs->indptr[u + 1]; kk++) dot += row[xs->indices[kk]] * FGL__TAD_XV(u, kk);
            for (j = 0; j < walk; j++) dot += (double)rw[(size_t)v * walk + j] * rw[(size_t)u * walk + j];
            if (norm[v] > 0 && norm[u] > 0) sum += dot / (norm[v] * norm[u]);
        }
        if (!x)
            for (k = xs->indptr[v]; k < xs->indptr[v + 1]; k++) row[xs->indices[k]] = 0;
        ckr[y[v]] += sum / (deg + 1);
    }
#undef FGL__TAD_XV
done:
    FGL_FREE(rw);
    FGL_FREE(norm);
    FGL_FREE(row);
    return rc;
}

/* The teachers' weights w (K x C) from their CKRs (K x C floats, the rows
 * with present[k]): per class over the clients (per_client 0: each column
 * sums to 1 over the present clients) or per client over the classes
 * (per_client 1: each row sums to 1). A sum of 0 gives weights 0 (the
 * authors' code would divide by it). Absent rows are 0. */
FGL__PRIVATE void fgl__tad_weights(int K, int C, const float *ckr, const unsigned char *present, int per_client,
                                   double *w) {
    int k, c;
    for (k = 0; k < K; k++)
        for (c = 0; c < C; c++) w[(size_t)k * C + c] = present[k] && ckr[(size_t)k * C + c] > 0 ? ckr[(size_t)k * C + c] : 0;
    if (per_client) {
        for (k = 0; k < K; k++) {
            double s = 0;
            for (c = 0; c < C; c++) s += w[(size_t)k * C + c];
            for (c = 0; c < C; c++) w[(size_t)k * C + c] = s > 0 ? w[(size_t)k * C + c] / s : 0;
        }
    } else {
        for (c = 0; c < C; c++) {
            double s = 0;
            for (k = 0; k < K; k++) s += w[(size_t)k * C + c];
            for (k = 0; k < K; k++) w[(size_t)k * C + c] = s > 0 ? w[(size_t)k * C + c] / s : 0;
        }
    }
}

/* The pseudo graph: row i's k largest cosines (x: n x D) in descending
 * order, ties to the lower index, i itself among the candidates; the edges
 * i - j for j chosen by i or i by j, j != i; adj built (sorted rows). */
FGL__PRIVATE int fgl__tad_knn(int n, int D, const float *x, int k, fgl_csr *adj) {
    unsigned char *e = (unsigned char *)FGL_MALLOC((size_t)FGL__MAX(n, 1) * (size_t)FGL__MAX(n, 1));
    double *nr = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(n, 1));
    double *sim = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(n, 1));
    int i, j, l, nnz = 0, rc = FGL_OK;
    memset(adj, 0, sizeof *adj);
    if (!e || !nr || !sim) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    memset(e, 0, (size_t)n * (size_t)n);
    for (i = 0; i < n; i++) {
        double s = 0;
        for (l = 0; l < D; l++) s += (double)x[(size_t)i * D + l] * x[(size_t)i * D + l];
        nr[i] = sqrt(s) > 1e-12 ? sqrt(s) : 1e-12; /* F.normalize's eps */
    }
    for (i = 0; i < n; i++) {
        int m;
        for (j = 0; j < n; j++) {
            double s = 0;
            for (l = 0; l < D; l++) s += (double)x[(size_t)i * D + l] * x[(size_t)j * D + l];
            sim[j] = s / (nr[i] * nr[j]);
        }
        for (m = 0; m < k && m < n; m++) { /* the m-th largest not yet chosen */
            int best = -1;
            for (j = 0; j < n; j++)
                if (!(e[(size_t)i * n + j] & 2) && (best < 0 || sim[j] > sim[best])) best = j;
            e[(size_t)i * n + best] |= 2; /* chosen by i */
        }
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            if (i != j && ((e[(size_t)i * n + j] & 2) || (e[(size_t)j * n + i] & 2))) {
                e[(size_t)i * n + j] |= 1;
                nnz++;
            }
    if ((rc = fgl_csr_init(adj, n, n, nnz, 0))) goto done;
    for (i = 0, l = 0; i < n; i++) {
        adj->indptr[i] = l;
        for (j = 0; j < n; j++)
            if (e[(size_t)i * n + j] & 1) adj->indices[l++] = j;
    }
    adj->indptr[n] = l;
done:
    FGL_FREE(e);
    FGL_FREE(nr);
    FGL_FREE(sim);
    return rc;
}

static int fgl__tad_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    const fgl__fedtad_params *p = FGL_PARAMS(fgl__fedtad_params, set);
    const char *ints[] = {"walk_length", "num_gen", "noise_dim", "topk"};
    const int vals[] = {p->walk_length, p->num_gen, p->noise_dim, p->topk};
    int i;
    if (spec->task != FGL_TASK_NODE)
        return fgl_error_set(err, FGL_ERR_ARG, "fedtad: node classification only (class-wise reliability of node "
                             "labels, pseudo nodes)");
    if (spec->arch == FGL_ARCH_SGC || spec->arch == FGL_ARCH_GAMLP)
        return fgl_error_set(err, FGL_ERR_ARG, "fedtad: %s propagates the features before the model, so the "
                             "generator's pseudo nodes cannot be fed through it", fgl_arch_name(spec->arch));
    if (p->share != FGL_G_ALL)
        return fgl_error_set(err, FGL_ERR_ARG, "fedtad: the server distils whole client models: share=all");
    for (i = 0; i < 4; i++)
        if (vals[i] < 1 || vals[i] > 100000)
            return fgl_error_set(err, FGL_ERR_RANGE, "fedtad: %s %d not in 1..100000", ints[i], vals[i]);
    if (p->glb_epochs < 0 || p->it_g < 0 || p->it_d < 0)
        return fgl_error_set(err, FGL_ERR_RANGE, "fedtad: glb_epochs, it_g and it_d must be >= 0");
    if (!(p->lr_g >= 0) || !(p->lr_d >= 0) || !(p->weight_decay >= 0))
        return fgl_error_set(err, FGL_ERR_RANGE, "fedtad: lr_g, lr_d and weight_decay must be >= 0");
    return FGL_OK;
}

static int fgl__tad_client_init(fgl_client *c) {
    const fgl_node_data *d = c->data.node;
    int C = c->model.spec.out_dim, rc, n_rows;
    fgl__fedtad_client *st = FGL_NEW_STATE(fgl__fedtad_client, &c->store);
    float *ckr = st ? (st->ckr = fgl_new_floats(&c->store, "ckr", (size_t)FGL__MAX(C, 1))) : NULL;
    double *tmp;
    if (!ckr) return FGL_ERR_NOMEM;
    if (!d) return fgl_client_fail(c, FGL_ERR_ARG, "fedtad: node classification only");
    if (!(tmp = (double *)fgl_scratch(&c->store, sizeof(double) * (size_t)FGL__MAX(C, 1)))) return FGL_ERR_NOMEM;
    n_rows = d->gid && d->n_own > 0 ? d->n_own : d->adj.rows;
    rc = fgl__tad_ckr(&d->adj, n_rows, d->x_sparse.rows ? NULL : d->x.data, d->x_sparse.rows ? &d->x_sparse : NULL,
                      d->n_feat, d->y, c->data.mask[FGL_SPLIT_TRAIN], C,
                      FGL_PARAMS(fgl__fedtad_params, c->set)->walk_length, tmp);
    if (rc) return fgl_client_fail(c, rc, "fedtad: knowledge reliability: %s", fgl_result_name(rc));
    for (n_rows = 0; n_rows < C; n_rows++) ckr[n_rows] = (float)tmp[n_rows];
    return FGL_OK;
}

static int fgl__tad_upload(fgl_client *c) {
    float *up = fgl_up(c, "ckr");
    size_t width = fgl_up_size(c, "ckr"), C = (size_t)c->model.spec.out_dim, j;
    const float *ckr = FGL_STATE(fgl__fedtad_client, &c->store)->ckr;
    if (!up) return FGL_ERR_NOMEM;
    for (j = 0; j < width; j++) up[j] = j < C ? ckr[j] : 0.0f;
    return FGL_OK;
}

/* The server's teachers: one model per client, loaded each round (scratch). */
typedef struct fgl__tad_teachers {
    int k;
    fgl_model *m;
} fgl__tad_teachers;

static void fgl__tad_teachers_free(void *p) {
    fgl__tad_teachers *t = (fgl__tad_teachers *)p;
    int i;
    for (i = 0; t->m && i < t->k; i++) fgl_model_free(&t->m[i]);
    FGL_FREE(t->m);
}

/* The server's state: FedAvg's global vector (the student's, sent down), the
 * generator and the student with their optimizers, a tape, the last
 * round's losses (5, for the report) and the teachers. */
typedef struct fgl__fedtad_server {
    fgl__avg_server avg;
    fgl_params *generator;
    fgl_model *student;
    fgl_optim *opt_g, *opt_d;
    fgl_tape *tape;
    float *losses;
    fgl__tad_teachers *teachers;
} fgl__fedtad_server;

enum { FGL__TAD_E, FGL__TAD_W1, FGL__TAD_B1, FGL__TAD_W2, FGL__TAD_B2, FGL__TAD_W3, FGL__TAD_B3, FGL__TAD_W4,
       FGL__TAD_B4 };

static int fgl__tad_server_init(fgl_server *s) {
    const fgl__fedtad_params *p = FGL_PARAMS(fgl__fedtad_params, s->set);
    const fgl_model_spec *sp = s->spec;
    int C = sp->out_dim, F = sp->in_dim, dz = p->noise_dim, i, rc = FGL_OK;
    int dims[5] = {0, 64, 128, 256, 0};
    fgl__fedtad_server *tad = FGL_NEW_STATE(fgl__fedtad_server, &s->store);
    fgl_params *gen = tad ? (tad->generator = fgl_new_params(&s->store, "generator")) : NULL;
    fgl_model *student;
    fgl__tad_teachers *tt;
    fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
    fgl_rng r;
    if ((rc = fgl__avg_server_init(s))) return rc; /* fills tad->avg */
    if (!gen) return FGL_ERR_NOMEM;
    dims[0] = C + dz;
    dims[4] = F;
    fgl_rng_init(&r, s->fed->seed, 0x7ad0u);
    if (fgl_params_add(gen, "emb", C, C, FGL_G_CONV, 1) < 0) return FGL_ERR_NOMEM;
    for (i = 0; i < 4; i++) {
        char wn[8], bn[8];
        snprintf(wn, sizeof wn, "w%d", i + 1);
        snprintf(bn, sizeof bn, "b%d", i + 1);
        if (fgl_params_add(gen, wn, dims[i], dims[i + 1], FGL_G_CONV, 1) < 0 ||
            fgl_params_add(gen, bn, 1, dims[i + 1], FGL_G_CONV, 1) < 0)
            return FGL_ERR_NOMEM;
    }
    { /* nn.Embedding: N(0, 1); nn.Linear: U(+-1/sqrt(fan_in)) for weights and biases */
        float *e = fgl_params_data(gen, FGL__TAD_E);
        int k;
        for (k = 0; k < C * C; k++) e[k] = (float)fgl_rng_normal(&r);
        for (i = 0; i < 4; i++) {
            fgl_params_fan_in_uniform(gen, FGL__TAD_W1 + 2 * i, dims[i], &r);
            fgl_params_fan_in_uniform(gen, FGL__TAD_B1 + 2 * i, dims[i], &r);
        }
    }
    student = tad->student = fgl_new_model(&s->store, "student", sp, s->fed->seed);
    oc.weight_decay = (float)p->weight_decay;
    oc.lr = (float)p->lr_g;
    tad->opt_g = fgl_new_optim(&s->store, "opt_g", oc, gen);
    oc.lr = (float)p->lr_d;
    if (student) tad->opt_d = fgl_new_optim(&s->store, "opt_d", oc, &student->params);
    tad->tape = fgl_new_tape(&s->store, "tape");
    tad->losses = fgl_new_floats(&s->store, "losses", 5); /* the last round's last epoch: see fgl__tad_report */
    tt = tad->teachers = (fgl__tad_teachers *)fgl_new_scratch(&s->store, "teachers", sizeof(fgl__tad_teachers),
                                                              fgl__tad_teachers_free);
    if (s->store.err.code || !tt) return s->store.err.code ? s->store.err.code : FGL_ERR_NOMEM;
    if (!(tt->m = (fgl_model *)FGL_MALLOC(sizeof(fgl_model) * (size_t)s->n_clients))) return FGL_ERR_NOMEM;
    for (i = 0; i < s->n_clients; i++) {
        if ((rc = fgl_model_init(&tt->m[i], sp, s->fed->seed, NULL))) return rc;
        tt->k = i + 1;
    }
    return FGL_OK;
}

/* The generator's pseudo nodes on tape t: X = G(z, y), n x F. */
static fgl_node *fgl__tad_generate(fgl_tape *t, fgl_params *gen, const float *onehot, const float *z, int n, int C,
                                   int dz) {
    fgl_node *h = fgl_op_concat2(t, fgl_op_matmul(t, fgl_op_const(t, onehot, n, C), fgl_op_param(t, gen, FGL__TAD_E)),
                                 fgl_op_const(t, z, n, dz));
    int i;
    for (i = 0; i < 3; i++)
        h = fgl_op_tanh(t, fgl_op_linear(t, h, fgl_op_param(t, gen, FGL__TAD_W1 + 2 * i),
                                         fgl_op_param(t, gen, FGL__TAD_B1 + 2 * i)));
    return fgl_op_linear(t, h, fgl_op_param(t, gen, FGL__TAD_W4), fgl_op_param(t, gen, FGL__TAD_B4));
}

/* sum_i sum_j wd[i] |a_ij - b_ij| (b constant): wd[i] = w_{k, y_i} / (|m_{y_i}| cols). */
static fgl_node *fgl__tad_div(fgl_tape *t, fgl_node *a, const float *b, const float *wd) {
    fgl_node *d = fgl_op_abs(t, fgl_op_sub(t, a, fgl_op_const(t, b, a->rows, a->cols)));
    float *wm;
    int i, j;
    if (!d || !(wm = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)a->rows * (size_t)a->cols))) return NULL;
    for (i = 0; i < a->rows; i++)
        for (j = 0; j < a->cols; j++) wm[(size_t)i * a->cols + j] = wd[i];
    return fgl_op_sum(t, fgl_op_mul(t, d, fgl_op_const(t, wm, a->rows, a->cols)));
}

static int fgl__tad_aggregate(fgl_server *s) {
    const fgl__fedtad_params *p = FGL_PARAMS(fgl__fedtad_params, s->set);
    const fgl__fedtad_server *tad = FGL_STATE(fgl__fedtad_server, &s->store);
    const fgl_model_spec *sp = s->spec;
    int K = s->n_clients, C = sp->out_dim, F = sp->in_dim, width = (int)fgl_server_up_size(s, "ckr");
    int n = p->num_gen, dz = p->noise_dim, topk = p->topk, E = p->glb_epochs, it_g = p->it_g, it_d = p->it_d;
    double lam1 = p->lam1, lam2 = p->lam2;
    float *global = tad->avg.global, *losses = tad->losses;
    fgl_params *gen = tad->generator;
    fgl_model *st = tad->student;
    fgl_optim *og = tad->opt_g, *od = tad->opt_d;
    fgl_tape *t = tad->tape;
    fgl__tad_teachers *tt = tad->teachers;
    float *ckr = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * (size_t)C);
    double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * (size_t)C);
    unsigned char *present = (unsigned char *)fgl_scratch(&s->store, (size_t)K);
    int *lab = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)FGL__MAX(n, 1));
    int *cnt = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)FGL__MAX(C, 1));
    int *who = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K);
    float *onehot = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)n * (size_t)C);
    float *z = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)n * (size_t)dz);
    float *zd = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)n * (size_t)n);
    float *xg = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)n * (size_t)F);
    float *tl = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * (size_t)n * (size_t)C);
    float *wd = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * (size_t)n);
    float *ws = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * (size_t)n * (size_t)C);
    int rc = fgl_server_mean(s, "theta", global), k, nk = 0, i, j, e, it;
    if (rc) return rc; /* (FGL_ERR_EMPTY: nothing accepted, the model stays) */
    if (!ckr || !w || !present || !lab || !cnt || !who || !onehot || !z || !zd || !xg || !tl || !wd || !ws)
        return FGL_ERR_NOMEM;
    if (width < C) return fgl_server_fail(s, FGL_ERR_SHAPE, "fedtad: %d-wide CKR for %d classes", width, C);
    for (k = 0; k < K; k++) {
        const float *th = fgl_upload(s, k, "theta"), *ck = fgl_upload(s, k, "ckr");
        present[k] = th && ck;
        if (!present[k]) continue;
        for (j = 0; j < C; j++) ckr[(size_t)k * C + j] = isfinite(ck[j]) ? ck[j] : 0.0f;
        fgl_params_unpack_except(&tt->m[k].params, s->share, s->keep, th);
        who[nk++] = k;
    }
    fgl__tad_weights(K, C, ckr, present, p->ckr_norm == FGL__TAD_CLASSES, w);
    if (nk == 0 || E == 0) return FGL_OK;
    /* the pseudo labels: n / C per class in order, the rest to the last */
    for (j = 0; j < C; j++) cnt[j] = n / C;
    cnt[C - 1] += n - (n / C) * C;
    for (j = 0, i = 0; j < C; j++)
        for (k = 0; k < cnt[j]; k++) lab[i++] = j;
    memset(onehot, 0, sizeof(float) * (size_t)n * (size_t)C);
    for (i = 0; i < n; i++) onehot[(size_t)i * C + lab[i]] = 1;
    /* per teacher: the divergence's row weights and the semantic loss's -w/|m_c| on the label */
    memset(ws, 0, sizeof(float) * (size_t)K * (size_t)n * (size_t)C);
    for (k = 0; k < K; k++)
        for (i = 0; i < n; i++) {
            double wk = w[(size_t)k * C + lab[i]] / cnt[lab[i]];
            wd[(size_t)k * n + i] = (float)(wk / C);
            ws[((size_t)k * n + i) * C + lab[i]] = (float)-wk;
        }
    fgl_params_unpack_except(&st->params, s->share, s->keep, global);
    for (e = 0; e < E; e++) {
        fgl_rng r;
        fgl_csr adj;
        fgl_gnn_graph g;
        fgl_error err;
        fgl_forward fw;
        fgl_node *X, *loss;
        fgl_rng_init(&r, s->fed->seed ^ 0x7ad7ad7adULL, (uint64_t)s->round * 1000u + (uint64_t)e);
        for (i = 0; i < n * dz; i++) z[i] = (float)fgl_rng_normal(&r);
        for (i = 0; i < n; i++) /* the noise distances: mean_l (z_il - z_jl)^2 */
            for (j = 0; j < n; j++) {
                double d2 = 0;
                int l;
                for (l = 0; l < dz; l++) d2 += ((double)z[(size_t)i * dz + l] - z[(size_t)j * dz + l]) *
                                                ((double)z[(size_t)i * dz + l] - z[(size_t)j * dz + l]);
                zd[(size_t)i * n + j] = (float)(d2 / dz);
            }
        for (it = 0; it < it_g; it++) { /* the generator, against the student */
            fgl_node *sem = NULL, *dv = NULL, *G;
            fgl_tape_reset(t);
            X = fgl__tad_generate(t, gen, onehot, z, n, C, dz);
            if (t->err.code || !X) break;
            if ((rc = fgl__tad_knn(n, F, X->val, topk, &adj))) return fgl_server_fail(s, rc, "fedtad: pseudo graph");
            rc = fgl_gnn_graph_make(&g, &adj, NULL, X->val, NULL, F, NULL, 0, NULL, 0, sp, &err);
            if (rc) {
                fgl_csr_free(&adj);
                return fgl_server_fail(s, rc, "fedtad: pseudo graph: %s", err.msg);
            }
            fgl_model_forward_x(st, t, &g, X, 0, NULL, &fw);
            G = fw.logits;
            for (i = 0; i < nk && !t->err.code; i++) {
                fgl_node *L, *a, *b;
                k = who[i];
                fgl_model_forward_x(&tt->m[k], t, &g, X, 0, NULL, &fw);
                if (t->err.code) break;
                L = fw.logits;
                a = fgl_op_sum(t, fgl_op_mul(t, fgl_op_log_softmax(t, L), fgl_op_const(t, ws + (size_t)k * n * C, n, C)));
                b = fgl__tad_div(t, G, L->val, wd + (size_t)k * n);
                sem = sem ? fgl_op_add(t, sem, a) : a;
                dv = dv ? fgl_op_add(t, dv, b) : b;
            }
            if (!t->err.code) {
                fgl_node *div = fgl_op_exp(t, fgl_op_scale(t, fgl_op_mean(t, fgl_op_mul(t, fgl_op_pairwise_l1(t, X, X),
                                                                              fgl_op_const(t, zd, n, n))), -1.0f));
                loss = fgl_op_add(t, fgl_op_add(t, fgl_op_scale(t, sem, (float)lam1), fgl_op_scale(t, dv, -1.0f)),
                                  fgl_op_scale(t, div, (float)(lam2 * nk)));
                fgl_params_zero_grad(gen);
                if (loss && !fgl_tape_backward(t, loss)) {
                    losses[0] = sem->val[0];
                    losses[1] = dv->val[0];
                    losses[2] = div->val[0];
                    fgl_optim_step(og, gen);
                }
            }
            fgl_gnn_graph_free(&g);
            fgl_csr_free(&adj);
            if (t->err.code) break;
        }
        if (t->err.code) return fgl_server_fail(s, t->err.code, "fedtad: generator: %s", t->err.msg);
        /* the pseudo graph of the trained generator, and the teachers' logits on it */
        fgl_tape_reset(t);
        X = fgl__tad_generate(t, gen, onehot, z, n, C, dz);
        if (t->err.code || !X) return fgl_server_fail(s, t->err.code ? t->err.code : FGL_ERR_ARG, "fedtad: generator: %s", t->err.msg);
        memcpy(xg, X->val, sizeof(float) * (size_t)n * (size_t)F);
        if ((rc = fgl__tad_knn(n, F, xg, topk, &adj))) return fgl_server_fail(s, rc, "fedtad: pseudo graph");
        if ((rc = fgl_gnn_graph_make(&g, &adj, NULL, xg, NULL, F, NULL, 0, NULL, 0, sp, &err))) {
            fgl_csr_free(&adj);
            return fgl_server_fail(s, rc, "fedtad: pseudo graph: %s", err.msg);
        }
        for (i = 0; i < nk && !t->err.code; i++) {
            k = who[i];
            fgl_tape_reset(t);
            if (!fgl_model_forward(&tt->m[k], t, &g, 0, NULL, &fw) && fw.logits)
                memcpy(tl + (size_t)k * n * C, fw.logits->val, sizeof(float) * (size_t)n * (size_t)C);
        }
        for (it = 0; it < it_d && !t->err.code; it++) { /* the student, towards the teachers */
            fgl_rng dr;
            fgl_rng_init(&dr, s->fed->seed ^ 0xd157111ULL, ((uint64_t)s->round * 1000u + (uint64_t)e) * 1000u + (uint64_t)it);
            fgl_tape_reset(t);
            fgl_model_forward(st, t, &g, 1, &dr, &fw);
            for (i = 0, loss = NULL; i < nk && !t->err.code; i++) {
                fgl_node *b;
                k = who[i];
                b = fgl__tad_div(t, fw.logits, tl + (size_t)k * n * C, wd + (size_t)k * n);
                loss = loss ? fgl_op_add(t, loss, b) : b;
            }
            fgl_params_zero_grad(&st->params);
            if (!t->err.code && loss && !fgl_tape_backward(t, loss)) {
                losses[it == 0 ? 3 : 4] = loss->val[0];
                if (it == 0) losses[4] = loss->val[0];
                fgl_optim_step(od, &st->params);
            }
        }
        fgl_gnn_graph_free(&g);
        fgl_csr_free(&adj);
        if (t->err.code) return fgl_server_fail(s, t->err.code, "fedtad: distillation: %s", t->err.msg);
    }
    fgl_tape_reset(t);
    fgl_server_pack(s, &st->params, global);
    return FGL_OK;
}

/* The last round's last distillation epoch: the generator's semantic,
 * divergence and diversity terms (before their weights), the student's loss
 * at its first and last step. */
static void fgl__tad_report(const fgl_observed *o, char *buf, size_t cap) {
    const float *l = fgl_observed_floats(o, "losses");
    if (l)
        snprintf(buf, cap,
                 "\"generator_semantic\": %.6g, \"generator_divergence\": %.6g, \"generator_diversity\": %.6g, "
                 "\"student_loss_first\": %.6g, \"student_loss_last\": %.6g",
                 (double)l[0], (double)l[1], (double)l[2], (double)l[3], (double)l[4]);
}

static fgl_algo fgl__fedtad(void) {
    fgl_algo a = fgl_algo_new("fedtad", "Zhu et al. 2024: FedAvg, then data-free distillation of the clients' models, "
                                        "trusted per class by topology-aware reliability, into the average");
    FGL_ALGO_PARAM(&a, fgl__fedtad_params, share, FGL_PARAM_GROUPS, (double)FGL_G_ALL,
                   "parameter groups averaged (all: the server runs whole client models)");
    FGL_ALGO_PARAM(&a, fgl__fedtad_params, walk_length, FGL_PARAM_INT, 5,
                   "random-walk steps of the topology embedding (max_walk_length)");
    FGL_ALGO_PARAM(&a, fgl__fedtad_params, ckr_norm, FGL_PARAM_INT, FGL__TAD_CLIENTS,
                   "reliability normalised per class over the clients (clients: the authors' code) or per "
                   "client over the classes (classes: OpenFGL's)");
    fgl_algo_param_choices(&a, "ckr_norm", "clients|classes");
    FGL_ALGO_PARAM(&a, fgl__fedtad_params, glb_epochs, FGL_PARAM_INT, 5,
                   "distillation epochs a round (each: fresh noise)");
    FGL_ALGO_PARAM(&a, fgl__fedtad_params, it_g, FGL_PARAM_INT, 1, "generator steps an epoch");
    FGL_ALGO_PARAM(&a, fgl__fedtad_params, it_d, FGL_PARAM_INT, 5, "student (global model) steps an epoch");
    FGL_ALGO_PARAM(&a, fgl__fedtad_params, lr_g, FGL_PARAM_FLOAT, 1e-3, "generator's Adam learning rate");
    FGL_ALGO_PARAM(&a, fgl__fedtad_params, lr_d, FGL_PARAM_FLOAT, 1e-3,
                   "global model's Adam learning rate in distillation");
    FGL_ALGO_PARAM(&a, fgl__fedtad_params, weight_decay, FGL_PARAM_FLOAT, 5e-4,
                   "L2 weight decay of both server optimizers");
    FGL_ALGO_PARAM(&a, fgl__fedtad_params, num_gen, FGL_PARAM_INT, 100, "pseudo nodes a graph");
    FGL_ALGO_PARAM(&a, fgl__fedtad_params, noise_dim, FGL_PARAM_INT, 32, "generator noise width");
    FGL_ALGO_PARAM(&a, fgl__fedtad_params, topk, FGL_PARAM_INT, 5,
                   "pseudo graph: each node's most similar nodes (itself among them)");
    FGL_ALGO_PARAM(&a, fgl__fedtad_params, lam1, FGL_PARAM_FLOAT, 1, "weight of the generator's semantic loss");
    FGL_ALGO_PARAM(&a, fgl__fedtad_params, lam2, FGL_PARAM_FLOAT, 1, "weight of the generator's diversity loss");
    fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, 0, 0, 0);
    fgl_algo_upload(&a, "n", FGL_SEND_WEIGHT, 0, 0, 0);
    fgl_algo_upload(&a, "ckr", FGL_SEND_DATA, 1, FGL_DIM_CLASSES, 0);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, 0, "global");
    a.prepare_spec = fgl__tad_spec;
    a.client_init = fgl__tad_client_init;
    a.upload = fgl__tad_upload;
    a.server_init = fgl__tad_server_init;
    a.aggregate = fgl__tad_aggregate;
    a.report = fgl__tad_report;
    a.reads_each = 1;
    return a;
}
#include "../../alone.h"
