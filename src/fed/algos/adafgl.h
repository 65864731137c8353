#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:private */
#include "../../alone.h"
/* Tests: AdaFGL's optimised propagation matrix (n x n, dense, row-major) from
 * the local graph adj and the global model's soft labels P (n x C):
 * D^-1/2 (alpha A + (1 - alpha) S + I) D^-1/2, S_ij = 1 when i != j and
 * the cosine of softmax(P_i) and softmax(P_j) exceeds sim; and the
 * homophily estimate of non-parametric label propagation (the accuracy on
 * the held-out half `eval` of the labelled nodes `lab` propagated from the
 * other half over adj_gcn). */
FGL__PRIVATE void fgl__adafgl_propagation(const fgl_csr *adj, const float *P, int n, int C, float alpha, float sim,
                                          float *out);
FGL__PRIVATE double fgl__adafgl_lp(const fgl_csr *adj_gcn, const int *y, int C, const int *lab, int n_lab,
                                   const int *eval, int n_eval, float a, int steps, float *work);
/* fgl:implementation */
#include "../../alone.h"
/* --- AdaFGL (Li et al., ICDE 2024) --------------------------------------------------- */
/* Two steps over one run (docs/algorithms.md, AdaFGL).
 * Step 1, federated knowledge extraction: every round is FedAvg (the
 * messages and server of fgl__avg_base: up 4 (n + 1), down 4 n bytes), plus
 * a 1-float download "done" (the aggregations done), so that a client
 * knows which download is the last.
 * Step 2, adaptive personalised propagation, local, nothing sent: when a
 * client receives the download made after the run's last aggregation (the
 * federated knowledge extractor), its receive hook
 *   - takes the soft labels P = softmax(f_global(X, A)) of its nodes;
 *   - estimates its homophily delta: label propagation (lp_steps steps,
 *     F <- lp_alpha A_gcn F + (1 - lp_alpha) F0, the seeds re-added) from a
 *     random half of its training nodes, delta = accuracy on the other half;
 *   - builds the optimised propagation matrix
 *     A* = D^-1/2 (alpha A + (1 - alpha) S + I) D^-1/2 (S: fgl__adafgl_propagation)
 *     and the smoothed features Xs = [X, A* X, ..., A*^K X] (K = prop_steps);
 *   - trains, for `epochs` full-batch Adam steps, the homophilous module
 *     (a 2-layer MLP on Xs: CE on the training nodes + MSE to P) and the
 *     heterophilous one (3-layer MLPs on X and on Xs, each with CE, and the
 *     learnable propagation: E = MLP(Xs); R = beta S + (1 - beta) cos(softmax E)
 *     without its diagonal, rescaled around its mean to [-1, 1], plus I;
 *     out = (softmax(prelu(R) E) - softmax(prelu(-R) E) + E) / 2, with CE);
 *   - keeps the prediction of the epoch with the best validation accuracy,
 *       delta (softmax(z_homo) + P) / 2 + (1 - delta) (softmax(z_x) + softmax(z_s) + softmax(out)) / 3,
 *     in its store ("pred", checkpointed), which eval_scores returns.
 * Before that download a client evaluates the global model (FedAvg's). The
 * step-2 models live only inside the hook; what lasts is the prediction. */

/* Softmax of a row into out. */
static void fgl__ada_softmax_row(const float *z, int C, float *out) {
    int k;
    double m = z[0], s = 0;
    for (k = 1; k < C; k++) m = z[k] > m ? z[k] : m;
    for (k = 0; k < C; k++) s += exp((double)z[k] - m);
    for (k = 0; k < C; k++) out[k] = (float)(exp((double)z[k] - m) / s);
}

FGL__PRIVATE void fgl__adafgl_propagation(const fgl_csr *adj, const float *P, int n, int C, float alpha, float sim,
                                          float *out) {
    size_t N = (size_t)n;
    int i, j, e, k;
    float *q = (float *)FGL_MALLOC(sizeof(float) * (size_t)FGL__MAX(n * C, 1));
    double *deg = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(n, 1));
    memset(out, 0, sizeof(float) * N * N);
    if (!q || !deg) {
        FGL_FREE(q);
        FGL_FREE(deg);
        return;
    }
    for (i = 0; i < n; i++) { /* softmax(P_i), unit length */
        double s = 0;
        fgl__ada_softmax_row(P + (size_t)i * C, C, q + (size_t)i * C);
        for (k = 0; k < C; k++) s += (double)q[(size_t)i * C + k] * q[(size_t)i * C + k];
        s = s > 0 ? 1 / sqrt(s) : 0;
        for (k = 0; k < C; k++) q[(size_t)i * C + k] = (float)(q[(size_t)i * C + k] * s);
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            double d = 0;
            if (i == j) continue;
            for (k = 0; k < C; k++) d += (double)q[(size_t)i * C + k] * q[(size_t)j * C + k];
            if (d > sim) out[(size_t)i * N + j] = 1 - alpha;
        }
    for (i = 0; i < n; i++)
        for (e = adj->indptr[i]; e < adj->indptr[i + 1]; e++)
            if (adj->indices[e] != i) out[(size_t)i * N + adj->indices[e]] += alpha;
    for (i = 0; i < n; i++) {
        double s = 1; /* the self loop */
        out[(size_t)i * N + i] += 1;
        for (j = 0; j < n; j++) s += j == i ? 0 : out[(size_t)i * N + j];
        deg[i] = 1 / sqrt(s);
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) out[(size_t)i * N + j] = (float)(out[(size_t)i * N + j] * deg[i] * deg[j]);
    FGL_FREE(q);
    FGL_FREE(deg);
}

FGL__PRIVATE double fgl__adafgl_lp(const fgl_csr *adj_gcn, const int *y, int C, const int *lab, int n_lab,
                                   const int *eval, int n_eval, float a, int steps, float *work) {
    int n = adj_gcn->rows, i, k, s, e, hit = 0;
    float *f0 = work, *f = work + (size_t)n * C, *g = work + (size_t)2 * n * C;
    if (n_eval <= 0) return 0.5; /* nothing to judge by: no preference */
    for (i = 0; i < n * C; i++) f0[i] = 1.0f / (float)C;
    for (i = 0; i < n_lab; i++) {
        for (k = 0; k < C; k++) f0[(size_t)lab[i] * C + k] = 0;
        f0[(size_t)lab[i] * C + y[lab[i]]] = 1;
    }
    memcpy(f, f0, sizeof(float) * (size_t)n * C);
    for (s = 0; s < steps; s++) {
        for (i = 0; i < n; i++) {
            float *gi = g + (size_t)i * C;
            for (k = 0; k < C; k++) gi[k] = 0;
            for (e = adj_gcn->indptr[i]; e < adj_gcn->indptr[i + 1]; e++) {
                const float *fj = f + (size_t)adj_gcn->indices[e] * C;
                float w = adj_gcn->values[e];
                for (k = 0; k < C; k++) gi[k] += w * fj[k];
            }
            for (k = 0; k < C; k++) gi[k] = a * gi[k] + (1 - a) * f0[(size_t)i * C + k];
        }
        for (i = 0; i < n_lab; i++) /* the seeds are added again */
            for (k = 0; k < C; k++) g[(size_t)lab[i] * C + k] += f0[(size_t)lab[i] * C + k];
        memcpy(f, g, sizeof(float) * (size_t)n * C);
    }
    for (i = 0; i < n_eval; i++) {
        const float *r = f + (size_t)eval[i] * C;
        int best = 0;
        for (k = 1; k < C; k++)
            if (r[k] > r[best]) best = k;
        hit += best == y[eval[i]];
    }
    return (double)hit / n_eval;
}

/* The parameters: the weight-averaging base's (step 1 is FedAvg), then step 2's. */
typedef struct fgl__adafgl_params {
    fgl__avg_params avg;
    double alpha;        /* the local graph's weight in alpha A + (1 - alpha) S */
    double beta;         /* S's weight in the learnable heterophilous propagation */
    int prop_steps;      /* propagation steps K of the smoothed features */
    double sim;          /* cosine threshold of the soft-label similarity graph S */
    double lp_alpha;     /* label propagation's weight of the neighbours */
    int lp_steps;        /* label propagation steps (homophily estimate) */
    int hidden;          /* hidden width of the step-2 modules */
    int epochs;          /* step-2 training steps */
    double lr;           /* step-2 Adam learning rate */
    double weight_decay; /* step-2 Adam weight decay */
    int max_nodes;       /* the largest client for step 2 */
} fgl__adafgl_params;

/* The server's state: FedAvg's global vector, and the aggregations done
 * (sent down as "done"). */
typedef struct fgl__adafgl_server {
    fgl__avg_server avg;
    float *done;
} fgl__adafgl_server;

/* A client's state: whether step 2 is done ("state", 1 int), its
 * prediction ("pred", nodes x classes) and its homophily estimate. */
typedef struct fgl__adafgl_client {
    int *state;
    float *pred, *delta;
} fgl__adafgl_client;

static int fgl__ada_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    if (spec->task != FGL_TASK_NODE) return fgl_error_set(err, FGL_ERR_ARG, "adafgl: node classification only");
    const fgl__adafgl_params *p = FGL_PARAMS(fgl__adafgl_params, set);
    if (p->prop_steps < 0 || p->prop_steps > 16 || p->hidden < 1 || p->epochs < 0 || p->lp_steps < 0 ||
        p->alpha < 0 || p->alpha > 1 || p->beta < 0 || p->beta > 1 || p->max_nodes < 1)
        return fgl_error_set(err, FGL_ERR_RANGE, "adafgl: prop_steps in 0..16, hidden >= 1, epochs >= 0, lp_steps >= "
                             "0, alpha and beta in [0, 1], max_nodes >= 1");
    return FGL_OK;
}

static int fgl__ada_server_init(fgl_server *s) {
    fgl__adafgl_server *st = FGL_NEW_STATE(fgl__adafgl_server, &s->store);
    if (!st || !(st->done = fgl_new_floats(&s->store, "done", 1))) return FGL_ERR_NOMEM;
    return fgl__avg_server_init(s); /* fills st->avg */
}

static int fgl__ada_aggregate(fgl_server *s) {
    int rc = fgl__avg_aggregate(s);
    FGL_STATE(fgl__adafgl_server, &s->store)->done[0] += 1;
    return rc;
}

static int fgl__ada_client_init(fgl_client *c) {
    size_t n = c->data.node ? (size_t)c->data.node->n_nodes : 0;
    fgl__adafgl_client *st = FGL_NEW_STATE(fgl__adafgl_client, &c->store);
    if (!st) return FGL_ERR_NOMEM;
    st->state = fgl_new_ints(&c->store, "state", 1); /* 1: step 2 done, "pred" holds the prediction */
    st->pred = fgl_new_floats(&c->store, "pred", FGL__MAX(n, 1) * (size_t)c->model.spec.out_dim);
    st->delta = fgl_new_floats(&c->store, "delta", 1);
    return c->store.err.code;
}

static const float *fgl__ada_scores(fgl_client *c) {
    const fgl__adafgl_client *st = FGL_STATE(fgl__adafgl_client, &c->store);
    return st->state[0] ? st->pred : NULL;
}

/* The accuracy of scores (n x C) on the nodes of mask with a label. */
static double fgl__ada_acc(const float *sc, int n, int C, const int *y, const unsigned char *mask) {
    int i, k, hit = 0, count = 0;
    for (i = 0; i < n; i++) {
        const float *r = sc + (size_t)i * C;
        int best = 0;
        if (!mask[i] || y[i] < 0) continue;
        for (k = 1; k < C; k++)
            if (r[k] > r[best]) best = k;
        hit += best == y[i];
        count++;
    }
    return count ? (double)hit / count : 0;
}

/* The learnable heterophilous propagation on the tape: E (n x C) and the
 * fixed S (n x n, 0/1). */
static fgl_node *fgl__ada_hete_prop(fgl_tape *t, fgl_node *E, const float *S, float beta) {
    int n = E->rows;
    size_t N = (size_t)n * (size_t)n, i;
    fgl_node *u = fgl_op_l2_normalize_rows(t, fgl_op_softmax(t, E), 1e-9f), *R, *pos, *neg, *pp, *pn;
    float *w = (float *)fgl_tape_alloc(t, sizeof(float) * FGL__MAX(N, 1)),
          *b = (float *)fgl_tape_alloc(t, sizeof(float) * FGL__MAX(N, 1));
    double mean = 0, mx = -1e30;
    if (!u || !w || !b) return NULL;
    for (i = 0; i < N; i++) { /* no diagonal: cos(softmax E) off it, beta S */
        int diag = (int)(i / (size_t)n) == (int)(i % (size_t)n);
        w[i] = diag ? 0 : 1 - beta;
        b[i] = diag ? 0 : beta * S[i];
    }
    R = fgl_op_add(t, fgl_op_mul(t, fgl_op_matmul_ex(t, u, 0, u, 1), fgl_op_const(t, w, n, n)), fgl_op_const(t, b, n, n));
    if (!R) return NULL;
    for (i = 0; i < N; i++) {
        mean += R->val[i];
        mx = R->val[i] > mx ? R->val[i] : mx;
    }
    mean /= (double)N;
    /* rescaled around the mean m (the scale held fixed): above it
     * (r - m) / (max - m) in (0, 1], below it -r / m in [-1, 0]; then + I */
    for (i = 0; i < N; i++) {
        int diag = (int)(i / (size_t)n) == (int)(i % (size_t)n);
        if (R->val[i] > mean) {
            w[i] = mx > mean ? (float)(1 / (mx - mean)) : 0;
            b[i] = -(float)mean * w[i];
        } else {
            w[i] = mean > 0 ? -(float)(1 / mean) : 0;
            b[i] = 0;
        }
        b[i] += diag ? 1.0f : 0.0f;
    }
    R = fgl_op_add(t, fgl_op_mul(t, R, fgl_op_const(t, w, n, n)), fgl_op_const(t, b, n, n));
    pos = fgl_op_leaky_relu(t, R, 0.25f);
    neg = fgl_op_leaky_relu(t, fgl_op_scale(t, R, -1), 0.25f);
    pp = fgl_op_softmax(t, fgl_op_matmul(t, pos, E));
    pn = fgl_op_softmax(t, fgl_op_matmul(t, neg, E));
    return fgl_op_scale(t, fgl_op_add(t, fgl_op_sub(t, pp, pn), E), 0.5f);
}

enum { FGL__ADA_HOMO, FGL__ADA_X, FGL__ADA_S, FGL__ADA_P, FGL__ADA_N };

/* Step 2 on client c, whose model is the federated knowledge extractor. */
static int fgl__ada_personalise(fgl_client *c) {
    const fgl__adafgl_params *p = FGL_PARAMS(fgl__adafgl_params, c->set);
    const fgl__adafgl_client *st = FGL_STATE(fgl__adafgl_client, &c->store);
    fgl_node_data *nd = c->data.node;
    int n = nd->n_nodes, F = nd->n_feat, C = c->model.spec.out_dim, K = p->prop_steps;
    int H = p->hidden, epochs = p->epochs, i, k, m, e, rc = FGL_OK;
    float alpha = (float)p->alpha, beta = (float)p->beta;
    const unsigned char *train = c->data.mask[FGL_SPLIT_TRAIN], *val = c->data.mask[FGL_SPLIT_VAL];
    size_t N = (size_t)n * (size_t)n, nF = (size_t)n * (size_t)F;
    float *P = NULL, *S = NULL, *A = NULL, *xs = NULL, *work = NULL, *pred = st->pred, *tmp;
    int *lab = NULL, n_lab = 0, built = 0;
    double delta, best = -1;
    fgl_model mod[FGL__ADA_N];
    fgl_optim opt[FGL__ADA_N];
    fgl_gnn_graph gs;
    fgl_csr own_gcn; /* D^-1/2 (A+I) D^-1/2 when the backbone does not read it (SAGE, GIN, GAT, MLP) */
    const fgl_csr *gcn = c->data.full.adj_gcn;
    fgl_tape t;
    fgl_rng r;
    fgl_error err;
    fgl_forward fw;
    memset(&own_gcn, 0, sizeof own_gcn);
    memset(mod, 0, sizeof mod);
    memset(opt, 0, sizeof opt);
    memset(&gs, 0, sizeof gs);
    memset(&err, 0, sizeof err);
    fgl_tape_init(&t);
    if (n > p->max_nodes)
        return fgl_client_fail(c, FGL_ERR_RANGE, "adafgl: %d nodes, above max_nodes = %d (step 2 holds n x n matrices)",
                               n, p->max_nodes);
    P = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX((size_t)n * C, 1));
    S = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(N, 1));
    A = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(N, 1));
    xs = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(nF * (size_t)(K + 1), 1));
    work = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX((size_t)3 * n * C, 1));
    lab = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(n, 1));
    /* the homophily estimate propagates labels over the GCN-normalised graph, whatever the backbone */
    if (!gcn && fgl_gcn_norm(c->data.full.adj, &own_gcn) == FGL_OK) gcn = &own_gcn;
    if (!P || !S || !A || !xs || !work || !lab || !gcn) {
        rc = fgl_client_fail(c, FGL_ERR_NOMEM, "adafgl: out of memory for step 2 (%d nodes)", n);
        goto done;
    }
    /* the soft labels of the federated knowledge extractor */
    if (fgl_model_forward(&c->model, &t, &c->data.full, 0, NULL, &fw) || !fw.logits) {
        rc = fgl_client_fail(c, t.err.code ? t.err.code : FGL_ERR_ARG, "adafgl: soft labels: %s", t.err.msg);
        goto done;
    }
    for (i = 0; i < n; i++) fgl__ada_softmax_row(fw.logits->val + (size_t)i * C, C, P + (size_t)i * C);
    /* the homophily estimate: half of the labelled training nodes propagate, the other half judges */
    for (i = 0; i < n; i++)
        if (train[i] && nd->y[i] >= 0 && nd->y[i] < C) lab[n_lab++] = i;
    fgl_rng_init(&r, c->fed->seed * 1000003u + 0xada5eedu, (uint64_t)c->id);
    fgl_rng_shuffle(&r, lab, n_lab);
    delta = fgl__adafgl_lp(gcn, nd->y, C, lab, n_lab / 2, lab + n_lab / 2, n_lab - n_lab / 2,
                           (float)p->lp_alpha, p->lp_steps, work);
    st->delta[0] = (float)delta;
    /* the optimised propagation matrix and the smoothed features [X, A* X, ..., A*^K X] */
    fgl__adafgl_propagation(c->data.full.adj, P, n, C, alpha, (float)p->sim, A);
    for (i = 0; i < n; i++) /* S alone: the off-diagonal entries above the threshold */
        for (m = 0; m < n; m++) S[(size_t)i * n + m] = 0;
    {
        float *q = work; /* softmax(P), unit rows: S as fgl__adafgl_propagation draws it */
        for (i = 0; i < n; i++) {
            double s = 0;
            fgl__ada_softmax_row(P + (size_t)i * C, C, q + (size_t)i * C);
            for (k = 0; k < C; k++) s += (double)q[(size_t)i * C + k] * q[(size_t)i * C + k];
            for (k = 0; k < C; k++) q[(size_t)i * C + k] = (float)(q[(size_t)i * C + k] / sqrt(s));
        }
        for (i = 0; i < n; i++)
            for (m = 0; m < n; m++) {
                double d = 0;
                if (i == m) continue;
                for (k = 0; k < C; k++) d += (double)q[(size_t)i * C + k] * q[(size_t)m * C + k];
                S[(size_t)i * n + m] = d > p->sim ? 1.0f : 0.0f;
            }
    }
    tmp = xs; /* block 0: X, dense, row-major n x F; then hop k at block k (rows of (K+1) F) */
    for (i = 0; i < n; i++) {
        float *row = tmp + (size_t)i * (size_t)(K + 1) * F;
        memset(row, 0, sizeof(float) * (size_t)F);
        if (nd->x.data) memcpy(row, nd->x.data + (size_t)i * F, sizeof(float) * (size_t)F);
        else
            for (e = nd->x_sparse.indptr[i]; e < nd->x_sparse.indptr[i + 1]; e++)
                row[nd->x_sparse.indices[e]] = nd->x_sparse.values ? nd->x_sparse.values[e] : 1.0f;
    }
    for (k = 1; k <= K; k++)
        for (i = 0; i < n; i++) {
            float *out = xs + (size_t)i * (size_t)(K + 1) * F + (size_t)k * F;
            int f;
            memset(out, 0, sizeof(float) * (size_t)F);
            for (m = 0; m < n; m++) {
                const float *in = xs + (size_t)m * (size_t)(K + 1) * F + (size_t)(k - 1) * F;
                float w = A[(size_t)i * n + m];
                if (w == 0) continue;
                for (f = 0; f < F; f++) out[f] += w * in[f];
            }
        }
    /* the modules: MLPs (ReLU, dropout 0.5, no head), one Adam each */
    for (m = 0; m < FGL__ADA_N; m++) {
        fgl_model_spec sp = fgl_model_spec_default(FGL_ARCH_MLP, FGL_TASK_NODE, m == FGL__ADA_X ? F : (K + 1) * F, C);
        fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
        sp.hidden = H;
        sp.layers = m == FGL__ADA_HOMO ? 2 : 3;
        sp.head = FGL_HEAD_NONE;
        sp.dropout = 0.5f;
        sp.input_dropout = 0;
        oc.lr = (float)p->lr;
        oc.weight_decay = (float)p->weight_decay;
        if ((rc = fgl_model_init(&mod[m], &sp, c->fed->seed * 1000003u + 0xada0u + (uint64_t)(c->id * 8 + m), &err)) ||
            (rc = fgl_optim_init(&opt[m], oc, &mod[m].params))) {
            rc = fgl_client_fail(c, rc, "adafgl: step-2 module: %s", err.msg);
            goto done;
        }
    }
    if ((rc = fgl_gnn_graph_make(&gs, c->data.full.adj, c->data.full.adj_gcn, xs, NULL, (K + 1) * F, NULL, 0, NULL, 0,
                                 &mod[FGL__ADA_S].spec, &err))) {
        rc = fgl_client_fail(c, rc, "adafgl: smoothed features: %s", err.msg);
        goto done;
    }
    built = 1;
    fgl_rng_init(&r, c->fed->seed * 1000003u + 0xada7a1u, (uint64_t)c->id);
    for (e = 0; e <= epochs; e++) {
        int tr = e < epochs; /* the last pass only evaluates the last step */
        fgl_node *z[FGL__ADA_N], *out, *loss;
        fgl_forward f;
        double acc;
        fgl_tape_reset(&t);
        for (m = 0; m < FGL__ADA_N; m++) {
            if (fgl_model_forward(&mod[m], &t, m == FGL__ADA_X ? &c->data.full : &gs, 0, NULL, &f)) break;
            z[m] = f.logits;
        }
        out = m == FGL__ADA_N ? fgl__ada_hete_prop(&t, z[FGL__ADA_P], S, beta) : NULL;
        if (!out || t.err.code) {
            rc = fgl_client_fail(c, t.err.code ? t.err.code : FGL_ERR_ARG, "adafgl: step 2: %s", t.err.msg);
            goto done;
        }
        { /* the evaluation-mode prediction of the parameters as they are */
            float *p1 = work, *p2 = work + C;
            float *cand = work + (size_t)2 * C; /* n x C fits in work's 3 n C */
            double d = delta;
            for (i = 0; i < n; i++) {
                float *ci = cand + (size_t)i * C;
                fgl__ada_softmax_row(z[FGL__ADA_HOMO]->val + (size_t)i * C, C, p1);
                for (k = 0; k < C; k++) ci[k] = (float)(d * (p1[k] + P[(size_t)i * C + k]) / 2);
                fgl__ada_softmax_row(z[FGL__ADA_X]->val + (size_t)i * C, C, p1);
                fgl__ada_softmax_row(z[FGL__ADA_S]->val + (size_t)i * C, C, p2);
                for (k = 0; k < C; k++) ci[k] += (float)((1 - d) * (p1[k] + p2[k]) / 3);
                fgl__ada_softmax_row(out->val + (size_t)i * C, C, p1);
                for (k = 0; k < C; k++) ci[k] += (float)((1 - d) * p1[k] / 3);
            }
            acc = fgl__ada_acc(cand, n, C, nd->y, val);
            if (acc > best) {
                best = acc;
                memmove(pred, cand, sizeof(float) * (size_t)n * C);
            }
        }
        if (!tr) break;
        /* one training step: the forward pass again with dropout */
        fgl_tape_reset(&t);
        for (m = 0; m < FGL__ADA_N; m++) {
            fgl_params_defer_zero_grad(&mod[m].params);
            if (fgl_model_forward(&mod[m], &t, m == FGL__ADA_X ? &c->data.full : &gs, 1, &r, &f)) break;
            z[m] = f.logits;
        }
        out = m == FGL__ADA_N ? fgl__ada_hete_prop(&t, z[FGL__ADA_P], S, beta) : NULL;
        loss = out ? fgl_op_add(&t, fgl_op_cross_entropy(&t, z[FGL__ADA_HOMO], nd->y, train),
                                fgl_op_mse(&t, z[FGL__ADA_HOMO], fgl_op_const(&t, P, n, C)))
                   : NULL;
        if (loss) loss = fgl_op_add(&t, loss, fgl_op_cross_entropy(&t, z[FGL__ADA_X], nd->y, train));
        if (loss) loss = fgl_op_add(&t, loss, fgl_op_cross_entropy(&t, z[FGL__ADA_S], nd->y, train));
        if (loss) loss = fgl_op_add(&t, loss, fgl_op_cross_entropy(&t, out, nd->y, train));
        if (!loss || fgl_tape_backward(&t, loss)) {
            rc = fgl_client_fail(c, t.err.code ? t.err.code : FGL_ERR_ARG, "adafgl: step 2: %s", t.err.msg);
            goto done;
        }
        for (m = 0; m < FGL__ADA_N; m++) fgl_optim_step(&opt[m], &mod[m].params);
    }
    st->state[0] = 1;
done:
    if (built) fgl_gnn_graph_free(&gs);
    for (m = 0; m < FGL__ADA_N; m++) {
        fgl_optim_free(&opt[m]);
        if (mod[m].params.n) fgl_model_free(&mod[m]);
    }
    fgl_tape_free(&t);
    fgl_csr_free(&own_gcn);
    FGL_FREE(P);
    FGL_FREE(S);
    FGL_FREE(A);
    FGL_FREE(xs);
    FGL_FREE(work);
    FGL_FREE(lab);
    return rc;
}

/* The last round is step 2: the download before it carries rounds - 1
 * aggregations (the extractor); the model stays as received. */
static int fgl__ada_train(fgl_client *c) {
    const float *done = fgl_down(c, "done");
    if (done && (int)done[0] >= c->fed->rounds - 1) {
        c->train_loss = 0; /* the global model does not train (the loss a resumed client would not have) */
        return FGL_STATE(fgl__adafgl_client, &c->store)->state[0] ? FGL_OK : fgl__ada_personalise(c);
    }
    return fgl_client_train(c, &c->model, &c->optim, NULL);
}

static fgl_algo fgl__adafgl(void) {
    fgl_algo a = fgl__avg_base("adafgl",
                               "Li et al. 2024: FedAvg knowledge extractor, then local adaptive personalised "
                               "propagation (homophilous and heterophilous modules mixed by a homophily estimate)",
                               FGL_G_ALL, "parameter groups of the global model (step 1: averaged)");
    FGL_ALGO_PARAM(&a, fgl__adafgl_params, alpha, FGL_PARAM_FLOAT, 0.05,
                   "weight of the local graph in alpha A + (1 - alpha) S");
    FGL_ALGO_PARAM(&a, fgl__adafgl_params, beta, FGL_PARAM_FLOAT, 0.2,
                   "weight of S in the learnable heterophilous propagation");
    FGL_ALGO_PARAM(&a, fgl__adafgl_params, prop_steps, FGL_PARAM_INT, 3,
                   "propagation steps K of the smoothed features");
    FGL_ALGO_PARAM(&a, fgl__adafgl_params, sim, FGL_PARAM_FLOAT, 0.999,
                   "cosine threshold of the soft-label similarity graph S");
    FGL_ALGO_PARAM(&a, fgl__adafgl_params, lp_alpha, FGL_PARAM_FLOAT, 0.5,
                   "label propagation's weight of the neighbours");
    FGL_ALGO_PARAM(&a, fgl__adafgl_params, lp_steps, FGL_PARAM_INT, 10, "label propagation steps (homophily estimate)");
    FGL_ALGO_PARAM(&a, fgl__adafgl_params, hidden, FGL_PARAM_INT, 64, "hidden width of the step-2 modules");
    FGL_ALGO_PARAM(&a, fgl__adafgl_params, epochs, FGL_PARAM_INT, 200, "step-2 training steps (full batch)");
    FGL_ALGO_PARAM(&a, fgl__adafgl_params, lr, FGL_PARAM_FLOAT, 0.01, "step-2 Adam learning rate");
    FGL_ALGO_PARAM(&a, fgl__adafgl_params, weight_decay, FGL_PARAM_FLOAT, 5e-4, "step-2 Adam weight decay");
    FGL_ALGO_PARAM(&a, fgl__adafgl_params, max_nodes, FGL_PARAM_INT, 4096,
                   "largest client for step 2 (it holds n x n matrices)");
    fgl_algo_download(&a, "done", FGL_SEND_DATA, 1, 1, 0, "done");
    a.prepare_spec = fgl__ada_spec;
    a.server_init = fgl__ada_server_init;
    a.aggregate = fgl__ada_aggregate;
    a.client_init = fgl__ada_client_init;
    a.local_train = fgl__ada_train;
    a.eval_scores = fgl__ada_scores;
    return a;
}
#include "../../alone.h"
