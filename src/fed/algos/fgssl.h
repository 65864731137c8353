#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:private */
#include "../../alone.h"
/* Tests: FGSSL's two calibration terms on hand-sized inputs, and its graph
 * augmentation (src/fed/algos/fgssl.h). */
FGL__PRIVATE fgl_node *fgl__fgssl_fnsc(fgl_tape *t, fgl_node *z, const float *zg, const int *y,
                                       const unsigned char *mask, int C, float tau);
FGL__PRIVATE fgl_node *fgl__fgssl_fgsd(fgl_tape *t, fgl_node *z, const float *zg, const fgl_csr *adj, float omega);
FGL__PRIVATE fgl_node *fgl__fgssl_edge(fgl_tape *t, fgl_node *o, const float *og, const fgl_csr *adj, float tau);
FGL__PRIVATE int fgl__fgssl_drop(const fgl_csr *adj, const float *x, const fgl_csr *xs, int n_feat, double pe,
                                 double pf, fgl_rng *r, fgl_csr *adj_out, float **x_out, fgl_csr *xs_out);
/* fgl:implementation */
#include "../../alone.h"
/* --- FGSSL (Huang, Wan, Ye and Du, IJCAI 2023) ------------------------------------- */
/* "Federated Graph Semantic and Structural Learning". FedAvg's messages and
 * server (up 4 (n + 1) bytes: the weights and the sample count, down 4 n),
 * with two terms added to the local cross-entropy that calibrate the local
 * model against the global model received this round (kept frozen, in
 * evaluation mode, on a scratch tape; its outputs enter as constants):
 *
 * Federated Node Semantic Contrast (FNSC), over the step's training nodes
 * i (those with a label), h the embeddings the classifier reads (fwd.rep),
 * m the local model, g the global one, s the cosine:
 *     L_FNSC = mean_i -log( sum_{p: y_p = y_i} e^{s(h_i^m, h_p^g)/tau}
 *                          / sum_k e^{s(h_i^m, h_k^g)/tau} ),
 * local nodes pulled to the global embeddings of their class (the node's
 * own among them), pushed from the other classes'.
 *
 * Federated Graph Structure Distillation (FGSD), over every node i with a
 * neighbour (the step's adjacency, before augmentation):
 *     D_i^x(j) = softmax_{j in N(i)} s(h_i^x, h_j^x) / omega,  x = m, g,
 *     L_FGSD = mean_i KL(D_i^g || D_i^m),
 * the global model's similarity distribution over each node's neighbours
 * distilled into the local model (not every neighbour pulled alike).
 *
 *     loss = CE + fnsc L_FNSC + fgsd L_FGSD.
 *
 * Asymmetric augmentation (paper and the authors' code): the global model
 * reads a weakly augmented graph (edges dropped with probability 0.3,
 * feature columns masked with 0.3), the local model's terms a strongly
 * augmented one (0.8, 0.5): one more training-mode forward of the local
 * model a step; the cross-entropy stays on the graph as given. An
 * undirected edge is dropped or kept as a whole (the adjacency stays
 * symmetric, as fgl's graphs are; the code drops directed entries), the
 * draws from the client's generator, so a run is as deterministic and
 * resumable as its dropout. augment = 0 runs both models on the graph as
 * given (the local terms then read the cross-entropy's forward).
 *
 * form = code replaces L_FGSD by the structural term the authors' node
 * trainer (and OpenFGL's port) adds: for every adjacency entry (u, v),
 *     KL( softmax(|o_u^g - o_v^g| / omega) || softmax(|o_u^m - o_v^m| / omega) )
 * over the classes, o the logits, averaged over the entries; the code adds
 * it at weight 0.1 and no contrast (--set form=code --set fnsc=0 --set
 * fgsd=0.1 is its loss).
 *
 * Defaults: tau = 0.1 (the code's InfoNCE), omega = 0.1 (the code's
 * structural temperature), weights 1 and 1 (the paper sums the terms; the
 * code's node trainer ends up adding only a differently built structural
 * term at weight 0.1, docs/algorithms.md "FGSSL" says where they differ).
 * Only FedAvg's weighted mean of the weights leaves a client: DP and secure
 * aggregation are covered as for FedAvg. Node classification only. */

/* L_FNSC. z: N x d (the local model's embeddings, differentiable), zg: N x d
 * (the global model's, constant), y and mask (NULL: every row) per row; rows
 * with a label in 0..C-1 count. NULL (no term) when none does. */
FGL__PRIVATE fgl_node *fgl__fgssl_fnsc(fgl_tape *t, fgl_node *z, const float *zg, const int *y,
                                       const unsigned char *mask, int C, float tau) {
    int N = z->rows, d = z->cols, n = 0, i, j, k;
    int *idx = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)FGL__MAX(N, 1));
    float *gn, *pos, *ones;
    fgl_node *a, *s, *r;
    if (!idx || !y) return NULL;
    for (i = 0; i < N; i++)
        if ((!mask || mask[i]) && y[i] >= 0 && y[i] < C) idx[n++] = i;
    if (n == 0) return NULL;
    gn = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n * (size_t)d);
    pos = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n * (size_t)n);
    ones = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n);
    if (!gn || !pos || !ones) return NULL;
    for (i = 0; i < n; i++) { /* the global rows at unit length, as fgl_op_l2_normalize_rows */
        const float *g = zg + (size_t)idx[i] * d;
        double q = 0;
        for (k = 0; k < d; k++) q += (double)g[k] * g[k];
        q = sqrt(q);
        if (q < 1e-12) q = 1e-12;
        for (k = 0; k < d; k++) gn[(size_t)i * d + k] = (float)(g[k] / q);
        for (j = 0; j < n; j++) pos[(size_t)i * n + j] = y[idx[i]] == y[idx[j]] ? 1.0f : 0.0f;
        ones[i] = 1.0f;
    }
    a = fgl_op_l2_normalize_rows(t, fgl_op_gather_rows(t, z, idx, n), 0);
    s = fgl_op_log_softmax(t, fgl_op_scale(t, fgl_op_matmul_ex(t, a, 0, fgl_op_const(t, gn, n, d), 1), 1.0f / tau));
    /* the probability mass on the positives, row by row: (e^{log p} * P) 1 */
    r = fgl_op_matmul(t, fgl_op_mul(t, fgl_op_exp(t, s), fgl_op_const(t, pos, n, n)), fgl_op_const(t, ones, n, 1));
    return fgl_op_scale(t, fgl_op_mean(t, fgl_op_log(t, r)), -1.0f);
}

/* L_FGSD. z, zg: N x d as above; adj: N x N, symmetric (its rows are the
 * neighbourhoods). NULL (no term) when no node has a neighbour. */
FGL__PRIVATE fgl_node *fgl__fgssl_fgsd(fgl_tape *t, fgl_node *z, const float *zg, const fgl_csr *adj, float omega) {
    int N = z->rows, d = z->cols, E, i, k, c, rows = 0;
    int *src, *dst;
    float *p, *gn;
    double plogp = 0;
    fgl_node *q;
    if (!adj || adj->rows != N || adj->nnz == 0) return NULL;
    E = adj->nnz;
    src = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)E);
    dst = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)E);
    p = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)E);
    gn = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)N * (size_t)d);
    if (!src || !dst || !p || !gn) return NULL;
    for (i = 0; i < N; i++) {
        const float *g = zg + (size_t)i * d;
        double qn = 0;
        for (c = 0; c < d; c++) qn += (double)g[c] * g[c];
        qn = sqrt(qn);
        if (qn < 1e-12) qn = 1e-12;
        for (c = 0; c < d; c++) gn[(size_t)i * d + c] = (float)(g[c] / qn);
    }
    for (i = 0; i < N; i++) { /* the teacher's distribution, in double */
        int b = adj->indptr[i], e = adj->indptr[i + 1];
        double mx = -HUGE_VAL, sum = 0;
        if (e == b) continue;
        rows++;
        for (k = b; k < e; k++) {
            double sc = 0;
            src[k] = i;
            dst[k] = adj->indices[k];
            for (c = 0; c < d; c++) sc += (double)gn[(size_t)i * d + c] * gn[(size_t)dst[k] * d + c];
            p[k] = (float)(sc / omega);
            mx = p[k] > mx ? p[k] : mx;
        }
        for (k = b; k < e; k++) sum += exp(p[k] - mx);
        for (k = b; k < e; k++) {
            double pk = exp(p[k] - mx) / sum;
            p[k] = (float)pk;
            if (pk > 0) plogp += pk * log(pk);
        }
    }
    if (rows == 0) return NULL;
    q = fgl_op_segment_softmax(
        t, fgl_op_scale(t, fgl_op_edge_dot(t, fgl_op_l2_normalize_rows(t, z, 0), src, dst, E), 1.0f / omega),
        adj->indptr, N);
    /* KL = sum p log p - sum p log q, averaged over the nodes with neighbours */
    return fgl_op_affine(t, fgl_op_matmul(t, fgl_op_const(t, p, 1, E), fgl_op_log(t, q)), -1.0f / (float)rows,
                         (float)(plogp / rows));
}

/* The authors' code's structural term (form = code): for every adjacency
 * entry (u, v), the distribution over the columns of |o_u - o_v| / tau
 * (o the logits), KL from the global model's to the local model's,
 * averaged over the entries ("batchmean"). o: N x C, differentiable; og:
 * N x C, constant. NULL when there is no edge. */
FGL__PRIVATE fgl_node *fgl__fgssl_edge(fgl_tape *t, fgl_node *o, const float *og, const fgl_csr *adj, float tau) {
    int N = o->rows, C = o->cols, E, i, k, c;
    int *src, *dst;
    float *p;
    double plogp = 0;
    fgl_node *d;
    if (!adj || adj->rows != N || adj->nnz == 0) return NULL;
    E = adj->nnz;
    src = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)E);
    dst = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)E);
    p = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)E * (size_t)C);
    if (!src || !dst || !p) return NULL;
    for (i = 0; i < N; i++)
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) {
            const float *a = og + (size_t)i * C, *b = og + (size_t)adj->indices[k] * C;
            float *pk = p + (size_t)k * C;
            double mx = -HUGE_VAL, sum = 0, lse;
            src[k] = i;
            dst[k] = adj->indices[k];
            for (c = 0; c < C; c++) {
                double v = fabs((double)a[c] - (double)b[c]) / tau;
                mx = v > mx ? v : mx;
            }
            for (c = 0; c < C; c++) sum += exp(fabs((double)a[c] - (double)b[c]) / tau - mx);
            lse = mx + log(sum);
            for (c = 0; c < C; c++) {
                double lp = fabs((double)a[c] - (double)b[c]) / tau - lse;
                pk[c] = (float)exp(lp);
                plogp += exp(lp) * lp;
            }
        }
    d = fgl_op_abs(t, fgl_op_sub(t, fgl_op_gather_rows(t, o, src, E), fgl_op_gather_rows(t, o, dst, E)));
    d = fgl_op_log_softmax(t, fgl_op_scale(t, d, 1.0f / tau));
    return fgl_op_affine(t, fgl_op_sum(t, fgl_op_mul(t, fgl_op_const(t, p, E, C), d)), -1.0f / (float)E,
                         (float)(plogp / E));
}

/* An augmented copy of a graph: each undirected edge of adj dropped with
 * probability pe (both directions together), each feature column masked
 * (zeroed) with probability pf; x (N x n_feat, dense) or xs (sparse) as the
 * graph has. *x_out (malloc'd) or xs_out is filled, the other left empty. */
FGL__PRIVATE int fgl__fgssl_drop(const fgl_csr *adj, const float *x, const fgl_csr *xs, int n_feat, double pe,
                                 double pf, fgl_rng *r, fgl_csr *adj_out, float **x_out, fgl_csr *xs_out) {
    int N = adj->rows, i, k, m = 0, rc = FGL_OK;
    int *rr = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(adj->nnz, 1));
    int *cc = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(adj->nnz, 1));
    unsigned char *drop = (unsigned char *)FGL_MALLOC((size_t)FGL__MAX(n_feat, 1));
    fgl_error err;
    memset(adj_out, 0, sizeof *adj_out);
    memset(xs_out, 0, sizeof *xs_out);
    *x_out = NULL;
    if (!rr || !cc || !drop) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    for (i = 0; i < N; i++) /* the upper triangle decides, in row order */
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) {
            int j = adj->indices[k];
            if (j <= i || fgl_rng_uniform(r) < pe) continue;
            rr[m] = i, cc[m++] = j;
            rr[m] = j, cc[m++] = i;
        }
    if ((rc = fgl_csr_from_coo(N, N, m, rr, cc, NULL, 0, adj_out, &err))) goto done;
    for (k = 0; k < n_feat; k++) drop[k] = fgl_rng_uniform(r) < pf;
    if (x) {
        size_t sz = (size_t)N * (size_t)n_feat;
        float *o = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(sz, 1));
        if (!o) {
            rc = FGL_ERR_NOMEM;
            goto done;
        }
        for (i = 0; i < N; i++)
            for (k = 0; k < n_feat; k++) o[(size_t)i * n_feat + k] = drop[k] ? 0.0f : x[(size_t)i * n_feat + k];
        *x_out = o;
    } else if (xs) {
        int w = 0;
        if ((rc = fgl_csr_init(xs_out, xs->rows, xs->cols, xs->nnz, xs->values != NULL))) goto done;
        for (i = 0; i < xs->rows; i++) {
            xs_out->indptr[i] = w;
            for (k = xs->indptr[i]; k < xs->indptr[i + 1]; k++) {
                if (drop[xs->indices[k]]) continue;
                xs_out->indices[w] = xs->indices[k];
                if (xs->values) xs_out->values[w] = xs->values[k];
                w++;
            }
        }
        xs_out->indptr[xs->rows] = w;
        xs_out->nnz = w;
    }
done:
    if (rc) {
        fgl_csr_free(adj_out);
        fgl_csr_free(xs_out);
    }
    FGL_FREE(rr);
    FGL_FREE(cc);
    FGL_FREE(drop);
    return rc;
}

/* The two augmented graphs of a step (0 weak: the global model's; 1 strong:
 * the local model's); they live until the next step builds new ones, as the
 * training tape's backward pass reads the strong one. */
typedef struct fgl__fgssl_aug {
    fgl_gnn_graph g[2];
    fgl_csr adj[2], xs[2];
    float *x[2];
    int built[2];
} fgl__fgssl_aug;

static void fgl__fgssl_aug_clear(void *p) {
    fgl__fgssl_aug *a = (fgl__fgssl_aug *)p;
    int v;
    for (v = 0; v < 2; v++) {
        if (a->built[v]) fgl_gnn_graph_free(&a->g[v]);
        fgl_csr_free(&a->adj[v]);
        fgl_csr_free(&a->xs[v]);
        FGL_FREE(a->x[v]);
        a->x[v] = NULL;
        a->built[v] = 0;
    }
}

/* The parameters: the weight-averaging base's, then FGSSL's. */
typedef struct fgl__fgssl_params {
    fgl__avg_params avg;
    double fnsc;        /* the node semantic contrast's weight */
    double fgsd;        /* the structural term's weight */
    double tau;         /* FNSC's cosine temperature */
    double omega;       /* FGSD's temperature of the neighbour similarities */
    int form;           /* the structural term: 0 paper, 1 the authors' code */
    int augment;        /* 1: global model on a weak, local on a strong augmentation */
    double weak_edge;   /* weak augmentation: edge drop probability */
    double weak_feat;   /* weak augmentation: feature column mask probability */
    double strong_edge; /* strong augmentation: edge drop probability */
    double strong_feat; /* strong augmentation: feature column mask probability */
} fgl__fgssl_params;

/* A client's state: the global model as received this round, a tape for its
 * forward passes and the step's augmented graphs. */
typedef struct fgl__fgssl_client {
    fgl_model *glob;
    fgl_tape *ref;
    fgl__fgssl_aug *aug;
} fgl__fgssl_client;

static int fgl__fgssl_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    const fgl__fgssl_params *p = FGL_PARAMS(fgl__fgssl_params, set);
    const char *pr[4] = {"weak_edge", "weak_feat", "strong_edge", "strong_feat"};
    const double pv[4] = {p->weak_edge, p->weak_feat, p->strong_edge, p->strong_feat};
    int i;
    if (spec->task != FGL_TASK_NODE)
        return fgl_error_set(err, FGL_ERR_ARG, "fgssl: node classification only (its terms contrast labelled "
                             "nodes and distil over each node's neighbours)");
    if (!(p->tau > 0) || !(p->omega > 0))
        return fgl_error_set(err, FGL_ERR_RANGE, "fgssl: tau %g and omega %g must be > 0", p->tau, p->omega);
    if (!(p->fnsc >= 0) || !(p->fgsd >= 0))
        return fgl_error_set(err, FGL_ERR_RANGE, "fgssl: the weights fnsc %g and fgsd %g must be >= 0", p->fnsc,
                             p->fgsd);
    for (i = 0; i < 4; i++)
        if (!(pv[i] >= 0 && pv[i] <= 1))
            return fgl_error_set(err, FGL_ERR_RANGE, "fgssl: %s %g not in [0, 1]", pr[i], pv[i]);
    return FGL_OK;
}

static int fgl__fgssl_client_init(fgl_client *c) {
    fgl__fgssl_client *st = FGL_NEW_STATE(fgl__fgssl_client, &c->store);
    if (!st) return FGL_ERR_NOMEM;
    st->glob = fgl_new_model(&c->store, "glob", &c->model.spec, c->fed->seed); /* refilled before every training */
    st->ref = fgl_new_tape(&c->store, "ref");
    st->aug = (fgl__fgssl_aug *)fgl_new_scratch(&c->store, "aug", sizeof(fgl__fgssl_aug), fgl__fgssl_aug_clear);
    return c->store.err.code;
}

/* The graph of view v (0 weak, 1 strong) of this step, built on aug. */
static const fgl_gnn_graph *fgl__fgssl_view(fgl_client *c, fgl__fgssl_aug *a, const fgl_gnn_graph *g, int v) {
    const fgl__fgssl_params *p = FGL_PARAMS(fgl__fgssl_params, c->set);
    fgl_error err;
    double pe = v ? p->strong_edge : p->weak_edge, pf = v ? p->strong_feat : p->weak_feat;
    int rc = fgl__fgssl_drop(g->adj, g->x, g->x_sparse, g->n_feat, pe, pf, &c->rng, &a->adj[v], &a->x[v], &a->xs[v]);
    if (rc) {
        fgl_client_fail(c, rc, "fgssl: augmentation: %s", fgl_result_name(rc));
        return NULL;
    }
    if (fgl_gnn_graph_make(&a->g[v], &a->adj[v], NULL, a->x[v], g->x ? NULL : &a->xs[v], g->n_feat, NULL, 0, NULL, 0,
                           &c->model.spec, &err)) {
        fgl_client_fail(c, err.code, "fgssl: augmented graph: %s", err.msg);
        return NULL;
    }
    a->built[v] = 1;
    return &a->g[v];
}

static fgl_node *fgl__fgssl_loss(fgl_client *c, const fgl_step *st) {
    const fgl__fgssl_params *p = FGL_PARAMS(fgl__fgssl_params, c->set);
    const fgl__fgssl_client *cs = FGL_STATE(fgl__fgssl_client, &c->store);
    float ws = (float)p->fnsc, wd = (float)p->fgsd;
    fgl__fgssl_aug *a = cs->aug;
    fgl_tape *ref = cs->ref;
    const fgl_gnn_graph *gw = st->g, *gs = st->g;
    fgl_forward gf, lf;
    fgl_node *z, *loss = NULL, *term;
    float *zg;
    if (ws == 0 && wd == 0) return NULL;
    if (!a || !ref) {
        fgl_client_fail(c, FGL_ERR_NOMEM, "fgssl: no state");
        return NULL;
    }
    fgl__fgssl_aug_clear(a); /* the last step's graphs: its backward pass is done */
    if (p->augment != 0) {
        if (!(gw = fgl__fgssl_view(c, a, st->g, 0)) || !(gs = fgl__fgssl_view(c, a, st->g, 1))) return NULL;
    }
    fgl_tape_reset(ref);
    if (fgl_model_forward(cs->glob, ref, gw, 0, NULL, &gf) || !(gf.rep || gf.node_emb)) {
        fgl_client_fail(c, ref->err.code ? ref->err.code : FGL_ERR_ARG, "fgssl: global model: %s", ref->err.msg);
        return NULL;
    }
    if (!gf.rep) gf.rep = gf.node_emb;
    if (gs == st->g) {
        lf = *st->fwd;
    } else if (fgl_model_forward(st->model, st->t, gs, 1, &c->rng, &lf)) {
        fgl_client_fail(c, st->t->err.code, "fgssl: local model on the augmented graph: %s", st->t->err.msg);
        return NULL;
    }
    z = lf.rep ? lf.rep : lf.node_emb;
    if (!z || z->rows != gf.rep->rows || z->cols != gf.rep->cols) {
        fgl_client_fail(c, FGL_ERR_SHAPE, "fgssl: embeddings of the two models differ in shape");
        return NULL;
    }
    zg = (float *)fgl_tape_alloc(st->t, sizeof(float) * (size_t)z->rows * (size_t)z->cols);
    if (!zg) return NULL;
    memcpy(zg, gf.rep->val, sizeof(float) * (size_t)z->rows * (size_t)z->cols);
    if (ws > 0 && (term = fgl__fgssl_fnsc(st->t, z, zg, st->labels, st->mask, (int)fgl_client_dim(c, FGL_DIM_CLASSES),
                                          (float)p->tau)))
        loss = fgl_op_scale(st->t, term, ws);
    if (wd > 0 && p->form == 1) { /* the authors' code: on the logits */
        float *og;
        if (!lf.logits || !gf.logits || lf.logits->rows != gf.logits->rows || lf.logits->cols != gf.logits->cols) {
            fgl_client_fail(c, FGL_ERR_SHAPE, "fgssl: logits of the two models differ in shape");
            return NULL;
        }
        og = (float *)fgl_tape_alloc(st->t, sizeof(float) * (size_t)gf.logits->rows * (size_t)gf.logits->cols);
        if (!og) return NULL;
        memcpy(og, gf.logits->val, sizeof(float) * (size_t)gf.logits->rows * (size_t)gf.logits->cols);
        if ((term = fgl__fgssl_edge(st->t, lf.logits, og, st->g->adj, (float)p->omega))) {
            term = fgl_op_scale(st->t, term, wd);
            loss = loss ? fgl_op_add(st->t, loss, term) : term;
        }
    } else if (wd > 0 && (term = fgl__fgssl_fgsd(st->t, z, zg, st->g->adj, (float)p->omega))) {
        term = fgl_op_scale(st->t, term, wd);
        loss = loss ? fgl_op_add(st->t, loss, term) : term;
    }
    if (st->t->err.code) fgl_client_fail(c, st->t->err.code, "fgssl: %s", st->t->err.msg);
    return loss;
}

static int fgl__fgssl_train(fgl_client *c) {
    const fgl__fgssl_client *cs = FGL_STATE(fgl__fgssl_client, &c->store);
    fgl_model *glob = cs->glob;
    int rc;
    if ((rc = fgl_params_copy(&glob->params, &c->model.params, FGL_G_ALL))) /* the global model, as received */
        return fgl_client_fail(c, rc, "fgssl: model layout changed");
    rc = fgl_client_train(c, &c->model, &c->optim, &c->algo->train);
    fgl__fgssl_aug_clear(cs->aug); /* nothing held between rounds */
    return rc;
}

static fgl_algo fgl__fgssl(void) {
    fgl_algo a = fgl__avg_base("fgssl",
                               "Huang et al. 2023: FedAvg plus a class-wise contrast of local against global node "
                               "embeddings and a distillation of the global model's neighbour similarities",
                               FGL_G_ALL, "parameter groups averaged");
    FGL_ALGO_PARAM(&a, fgl__fgssl_params, fnsc, FGL_PARAM_FLOAT, 1.0, "weight of the node semantic contrast (FNSC)");
    FGL_ALGO_PARAM(&a, fgl__fgssl_params, fgsd, FGL_PARAM_FLOAT, 1.0,
                   "weight of the structural term (FGSD; form=code: the code's)");
    FGL_ALGO_PARAM(&a, fgl__fgssl_params, tau, FGL_PARAM_FLOAT, 0.1, "FNSC's cosine temperature");
    FGL_ALGO_PARAM(&a, fgl__fgssl_params, omega, FGL_PARAM_FLOAT, 0.1,
                   "FGSD's temperature of the neighbour similarities");
    FGL_ALGO_PARAM(&a, fgl__fgssl_params, form, FGL_PARAM_INT, 0,
                   "the structural term: paper (neighbour similarity distributions of the embeddings) or code "
                   "(the authors' per-edge distribution of |logit differences|)");
    fgl_algo_param_choices(&a, "form", "paper|code");
    FGL_ALGO_PARAM(&a, fgl__fgssl_params, augment, FGL_PARAM_INT, 1,
                   "1: global model on a weak, local on a strong augmentation");
    FGL_ALGO_PARAM(&a, fgl__fgssl_params, weak_edge, FGL_PARAM_FLOAT, 0.3, "weak augmentation: edge drop probability");
    FGL_ALGO_PARAM(&a, fgl__fgssl_params, weak_feat, FGL_PARAM_FLOAT, 0.3,
                   "weak augmentation: feature column mask probability");
    FGL_ALGO_PARAM(&a, fgl__fgssl_params, strong_edge, FGL_PARAM_FLOAT, 0.8,
                   "strong augmentation: edge drop probability");
    FGL_ALGO_PARAM(&a, fgl__fgssl_params, strong_feat, FGL_PARAM_FLOAT, 0.5,
                   "strong augmentation: feature column mask probability");
    a.prepare_spec = fgl__fgssl_spec;
    a.client_init = fgl__fgssl_client_init;
    a.local_train = fgl__fgssl_train;
    a.train.loss = fgl__fgssl_loss;
    return a;
}
#include "../../alone.h"
