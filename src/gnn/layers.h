#include "../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../alone.h"
/* --- derived graph matrices -------------------------------------------------- */

/* D^-1 A (rows sum to 1; isolated nodes keep an empty row). */
static int fgl__mean_adj(const fgl_csr *a, fgl_csr *out) {
    int i, k, rc = fgl_csr_clone(out, a);
    if (rc) return rc;
    if (!out->values) {
        out->values = (float *)FGL_MALLOC(sizeof(float) * (size_t)FGL__MAX(a->nnz, 1));
        if (!out->values) {
            fgl_csr_free(out);
            return FGL_ERR_NOMEM;
        }
        for (k = 0; k < a->nnz; k++) out->values[k] = 1.0f;
    }
    for (i = 0; i < a->rows; i++) {
        double s = 0;
        for (k = a->indptr[i]; k < a->indptr[i + 1]; k++) s += out->values[k];
        if (s > 0)
            for (k = a->indptr[i]; k < a->indptr[i + 1]; k++) out->values[k] = (float)(out->values[k] / s);
    }
    return FGL_OK;
}

/* A + I with sorted columns, and the row index of every entry: each row's
 * length first, then (their prefix sums known) the rows themselves, in
 * parallel for a large matrix outside another parallel region (a batch of
 * PROTEINS graphs is built on one thread once per step otherwise). */
static int fgl__loop_adj(const fgl_csr *a, fgl_csr *out, int **rows_out) {
    int i, rc = fgl_csr_init(out, a->rows, a->cols, a->nnz + a->rows, 0), par;
    int *rows;
    if (rc) return rc;
    rows = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(out->nnz, 1));
    if (!rows) {
        fgl_csr_free(out);
        return FGL_ERR_NOMEM;
    }
    par = fgl__threads_entries((size_t)a->nnz + (size_t)a->rows); /* fgl_graph.h's threads for a batch */
    (void)par; /* read by the OpenMP pragmas only */
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(par)
#endif
    for (i = 0; i < a->rows; i++) { /* row i's length: its entries but an existing self loop, and the one we add */
        int k, len = 1;
        for (k = a->indptr[i]; k < a->indptr[i + 1]; k++) len += a->indices[k] != i;
        out->indptr[i + 1] = len;
    }
    out->indptr[0] = 0;
    for (i = 0; i < a->rows; i++) out->indptr[i + 1] += out->indptr[i];
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(par)
#endif
    for (i = 0; i < a->rows; i++) {
        int k, w = out->indptr[i], placed = 0;
        for (k = a->indptr[i]; k < a->indptr[i + 1]; k++) {
            int c = a->indices[k];
            if (c == i) continue; /* an existing self loop is replaced by the one we add */
            if (!placed && c > i) {
                rows[w] = i;
                out->indices[w++] = i;
                placed = 1;
            }
            rows[w] = i;
            out->indices[w++] = c;
        }
        if (!placed) {
            rows[w] = i;
            out->indices[w++] = i;
        }
    }
    out->nnz = out->indptr[a->rows];
    *rows_out = rows;
    return FGL_OK;
}

FGLDEF void fgl_gnn_graph_free(fgl_gnn_graph *g) {
    fgl_csr_free(&g->x_sparse_t);
    fgl_csr_free(&g->own_gcn);
    fgl_csr_free(&g->adj_mean);
    fgl_csr_free(&g->adj_mean_t);
    fgl_csr_free(&g->adj_loop);
    FGL_FREE(g->loop_rows);
    FGL_FREE(g->x_prop);
    FGL_FREE(g->x_hops);
    memset(g, 0, sizeof *g);
}

/* Whether the architecture aggregates with D^-1/2 (A + I) D^-1/2. */
static int fgl__arch_reads_gcn(int arch) {
    return arch == FGL_ARCH_GCN || arch == FGL_ARCH_SGC || arch == FGL_ARCH_GCNII || arch == FGL_ARCH_FEDSTAR ||
           arch == FGL_ARCH_GAMLP;
}

FGLDEF int fgl_gnn_graph_make(fgl_gnn_graph *g, const fgl_csr *adj, const fgl_csr *adj_gcn, const float *x,
                              const fgl_csr *x_sparse, int n_feat, const float *pe, int n_pe, const int *offsets,
                              int n_graphs, const fgl_model_spec *spec, fgl_error *err) {
    int arch = spec->arch, rc = FGL_OK, n;
    memset(g, 0, sizeof *g);
    if (!adj || adj->rows != adj->cols)
        return fgl_error_set(err, FGL_ERR_ARG, "gnn graph: adjacency missing or not square");
    n = adj->rows;
    if ((x == NULL) == (x_sparse == NULL))
        return fgl_error_set(err, FGL_ERR_ARG, "gnn graph: give exactly one of dense or sparse features");
    if (adj_gcn && (adj_gcn->rows != n || adj_gcn->cols != n))
        return fgl_error_set(err, FGL_ERR_SHAPE, "gnn graph: %dx%d GCN matrix for %d nodes (fgl_batch_gcn and "
                             "fgl_node_data_gcn build it)", adj_gcn->rows, adj_gcn->cols, n);
    if (x_sparse && (x_sparse->rows != n || x_sparse->cols != n_feat))
        return fgl_error_set(err, FGL_ERR_SHAPE, "gnn graph: sparse features %dx%d for %d nodes, %d features",
                             x_sparse->rows, x_sparse->cols, n, n_feat);
    if (n_feat != spec->in_dim)
        return fgl_error_set(err, FGL_ERR_SHAPE, "gnn graph: %d features but the model expects %d", n_feat,
                             spec->in_dim);
    if (arch == FGL_ARCH_FEDSTAR && (!pe || n_pe != spec->pe_dim))
        return fgl_error_set(err, FGL_ERR_SHAPE, "gnn graph: FedStar needs %d-wide structure embeddings, got %d",
                             spec->pe_dim, pe ? n_pe : 0);
    if (spec->task == FGL_TASK_GRAPH && (!offsets || n_graphs <= 0))
        return fgl_error_set(err, FGL_ERR_ARG, "gnn graph: a graph task needs graph offsets");
    g->n_nodes = n;
    g->n_feat = n_feat;
    g->x = x;
    g->x_sparse = x_sparse;
    g->adj = adj;
    g->adj_gcn = adj_gcn;
    g->pe = pe;
    g->n_pe = n_pe;
    g->offsets = offsets;
    g->n_graphs = n_graphs;
    if (x_sparse && (rc = fgl_csr_transpose(x_sparse, &g->x_sparse_t))) goto fail;
    if (!adj_gcn && fgl__arch_reads_gcn(arch)) {
        if ((rc = fgl_gcn_norm(adj, &g->own_gcn))) goto fail;
        g->adj_gcn = &g->own_gcn;
    }
    if (arch == FGL_ARCH_SAGE) {
        if ((rc = fgl__mean_adj(adj, &g->adj_mean))) goto fail;
        if ((rc = fgl_csr_transpose(&g->adj_mean, &g->adj_mean_t))) goto fail;
    }
    /* A + I: GAT's attention support; GIN's and FedStar's aggregation with eps = 0 */
    if ((arch == FGL_ARCH_GAT || arch == FGL_ARCH_GIN || arch == FGL_ARCH_FEDSTAR) &&
        (rc = fgl__loop_adj(adj, &g->adj_loop, &g->loop_rows)))
        goto fail;
    if (arch == FGL_ARCH_SGC) { /* A_hat^K X, once */
        size_t sz = (size_t)n * (size_t)n_feat;
        float *a = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(sz, 1));
        float *b = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(sz, 1));
        int k, i;
        if (!a || !b) {
            FGL_FREE(a);
            FGL_FREE(b);
            rc = FGL_ERR_NOMEM;
            goto fail;
        }
        if (x) memcpy(a, x, sizeof(float) * sz);
        else {
            memset(a, 0, sizeof(float) * sz);
            for (i = 0; i < n; i++)
                for (k = x_sparse->indptr[i]; k < x_sparse->indptr[i + 1]; k++)
                    a[(size_t)i * n_feat + x_sparse->indices[k]] = x_sparse->values ? x_sparse->values[k] : 1.0f;
        }
        for (k = 0; k < spec->sgc_hops; k++) {
            float *tmp;
            fgl_csr_spmm(g->adj_gcn, a, n_feat, 0.0f, b);
            tmp = a;
            a = b;
            b = tmp;
        }
        FGL_FREE(b);
        g->x_prop = a;
    }
    if (arch == FGL_ARCH_GAMLP) { /* X, A_hat X, ..., A_hat^K X, block after block */
        size_t sz = (size_t)n * (size_t)n_feat;
        int k, i, K = spec->sgc_hops;
        float *h = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(sz * (size_t)(K + 1), 1));
        if (!h) {
            rc = FGL_ERR_NOMEM;
            goto fail;
        }
        if (x) memcpy(h, x, sizeof(float) * sz);
        else {
            memset(h, 0, sizeof(float) * sz);
            for (i = 0; i < n; i++)
                for (k = x_sparse->indptr[i]; k < x_sparse->indptr[i + 1]; k++)
                    h[(size_t)i * n_feat + x_sparse->indices[k]] = x_sparse->values ? x_sparse->values[k] : 1.0f;
        }
        for (k = 1; k <= K; k++) fgl_csr_spmm(g->adj_gcn, h + (size_t)(k - 1) * sz, n_feat, 0.0f, h + (size_t)k * sz);
        g->x_hops = h;
        g->n_hops = K + 1;
    }
    return FGL_OK;
fail:
    fgl_gnn_graph_free(g);
    return fgl_error_set(err, rc, "gnn graph: cannot derive the matrices the %s model needs (%s)", fgl_arch_name(arch),
                         fgl_result_name(rc));
}

FGLDEF int fgl_gnn_graph_from_node_data(fgl_gnn_graph *g, fgl_node_data *d, const fgl_model_spec *spec,
                                        fgl_error *err) {
    fgl_error local;
    const fgl_csr *gcn = NULL;
    memset(g, 0, sizeof *g);
    if (!err) err = &local; /* for the code of a failure */
    if (fgl__arch_reads_gcn(spec->arch) && !(gcn = fgl_node_data_gcn(d, err))) return err->code;
    return fgl_gnn_graph_make(g, &d->adj, gcn, d->x_sparse.rows ? NULL : d->x.data,
                              d->x_sparse.rows ? &d->x_sparse : NULL, d->n_feat, NULL, 0, NULL, 0, spec, err);
}

FGLDEF int fgl_gnn_graph_from_batch(fgl_gnn_graph *g, fgl_batch *b, const fgl_model_spec *spec, fgl_error *err) {
    fgl_error local;
    const fgl_csr *gcn = NULL;
    memset(g, 0, sizeof *g);
    if (!err) err = &local; /* for the code of a failure */
    if (fgl__arch_reads_gcn(spec->arch) && !(gcn = fgl_batch_gcn(b, err))) return err->code;
    return fgl_gnn_graph_make(g, &b->adj, gcn, b->x, NULL, b->n_feat, b->pe, b->n_pe, b->offsets, b->n_graphs, spec,
                              err);
}

/* --- forward pieces ------------------------------------------------------------- */

typedef struct fgl__fwd {
    fgl_model *m;
    fgl_tape *t;
    const fgl_gnn_graph *g;
    int train;
    fgl_rng *rng;
    fgl_node *x_in;        /* the input features as a tape node (fgl_model_forward_x), or NULL */
} fgl__fwd;

static fgl_node *fgl__p(fgl__fwd *f, int slot) { return slot >= 0 ? fgl_op_param(f->t, &f->m->params, slot) : NULL; }

/* The weight a layer uses: W, or W * M; in evaluation W * M * keep, where
 * keep is 0 for |M| < mask_prune (so gradients still reach kept entries). */
static fgl_node *fgl__weight(fgl__fwd *f, int w, int mask) {
    fgl_node *W = fgl__p(f, w), *M;
    if (mask < 0) return W;
    M = fgl__p(f, mask);
    if (!f->train && M && f->m->spec.mask_prune > 0) {
        size_t i, n = (size_t)M->rows * (size_t)M->cols;
        float *keep = (float *)fgl_tape_alloc(f->t, sizeof(float) * n);
        if (!keep) return NULL;
        for (i = 0; i < n; i++) keep[i] = fabsf(M->val[i]) < f->m->spec.mask_prune ? 0.0f : 1.0f;
        M = fgl_op_mul(f->t, M, fgl_op_const(f->t, keep, M->rows, M->cols));
    }
    return fgl_op_mul(f->t, W, M);
}

static fgl_node *fgl__maybe_bias(fgl__fwd *f, fgl_node *y, int b) {
    return b >= 0 ? fgl_op_bias(f->t, y, fgl__p(f, b)) : y;
}

/* A x (+ b) in one node (a GCN layer's aggregation and bias). */
static fgl_node *fgl__spmm_bias(fgl__fwd *f, const fgl_csr *a, const fgl_csr *at, fgl_node *x, int b) {
    return fgl_op_spmm_bias(f->t, a, at, x, b >= 0 ? fgl__p(f, b) : NULL);
}

/* x W (+ b) for a dense node x, as one tape node. */
static fgl_node *fgl__linear(fgl__fwd *f, fgl_node *x, int w, int b, int mask) {
    return fgl_op_linear(f->t, x, fgl__weight(f, w, mask), fgl__p(f, b));
}

/* ReLU(x W (+ b)) as one tape node (the ReLU applied as the product is
 * stored: no pass over the output, no pre-activation buffer). */
static fgl_node *fgl__linear_relu(fgl__fwd *f, fgl_node *x, int w, int b, int mask) {
    return fgl_op_linear_relu(f->t, x, fgl__weight(f, w, mask), fgl__p(f, b));
}

static fgl_node *fgl__dropout(fgl__fwd *f, fgl_node *x, float p) {
    return f->train ? fgl_op_dropout(f->t, x, p, f->rng) : x;
}

/* GAMLP: per node, softmax over hops k of X_k[v] . a, then sum_k w_k X_k[v]. */
static fgl_node *fgl__hop_attention(fgl__fwd *f) {
    const fgl_gnn_graph *g = f->g;
    fgl_node *cols[65], *a = fgl__p(f, f->m->hop_att);
    size_t block = (size_t)g->n_nodes * (size_t)g->n_feat;
    int k;
    if (!g->x_hops || g->n_hops < 1 || g->n_hops > 65)
        return fgl_tape_fail(f->t, FGL_ERR_ARG, "GAMLP: the graph was not prepared for it (no propagated features)");
    for (k = 0; k < g->n_hops; k++)
        cols[k] = fgl_op_matmul(f->t, fgl_op_const(f->t, g->x_hops + (size_t)k * block, g->n_nodes, g->n_feat), a);
    return fgl_op_mix_blocks(f->t, fgl_op_softmax(f->t, fgl_op_concat_cols(f->t, cols, g->n_hops)), g->x_hops,
                             g->n_feat);
}

/* The input features as a dense node, or NULL when they are sparse (the
 * first layer then multiplies the sparse matrix directly, see fgl__first). */
static fgl_node *fgl__dense_input(fgl__fwd *f) {
    const fgl_gnn_graph *g = f->g;
    fgl_node *x;
    if (f->x_in) return fgl__dropout(f, f->x_in, f->m->spec.input_dropout);
    if (f->m->hop_att >= 0) return fgl__dropout(f, fgl__hop_attention(f), f->m->spec.input_dropout);
    if (g->x_prop) x = fgl_op_const(f->t, g->x_prop, g->n_nodes, g->n_feat);
    else if (g->x) x = fgl_op_const(f->t, g->x, g->n_nodes, g->n_feat);
    else return NULL;
    return fgl__dropout(f, x, f->m->spec.input_dropout);
}

/* x_sparse W, with input dropout applied to the non-zeros (fresh values on
 * the tape, structure shared with the data). */
static fgl_node *fgl__sparse_times(fgl__fwd *f, fgl_node *W) {
    const fgl_gnn_graph *g = f->g;
    const fgl_csr *xs = g->x_sparse;
    float p = f->m->spec.input_dropout;
    if (!W) return NULL;
    if (f->train && p > 0 && f->rng) {
        fgl_csr *d = (fgl_csr *)fgl_tape_alloc(f->t, sizeof(fgl_csr));
        float *v = (float *)fgl_tape_alloc(f->t, sizeof(float) * (size_t)FGL__MAX(xs->nnz, 1));
        float keep = 1.0f / (1.0f - p);
        int k;
        if (!d || !v) return NULL;
        *d = *xs;
        for (k = 0; k < xs->nnz; k++)
            v[k] = fgl_rng_uniform(f->rng) >= p ? (xs->values ? xs->values[k] : 1.0f) * keep : 0.0f;
        d->values = v;
        return fgl_op_spmm(f->t, d, NULL, W); /* backward by serial scatter */
    }
    return fgl_op_spmm(f->t, xs, &g->x_sparse_t, W);
}

/* The first linear map of a model on its raw input (dense or sparse). */
static fgl_node *fgl__first(fgl__fwd *f, fgl_node *dense_in, int w, int b, int mask) {
    if (dense_in) return fgl__linear(f, dense_in, w, b, mask);
    return fgl__maybe_bias(f, fgl__sparse_times(f, fgl__weight(f, w, mask)), b);
}

static fgl_node *fgl__readout(fgl__fwd *f, fgl_node *h) {
    const int *off = f->g->offsets;
    int n = f->g->n_graphs;
    switch (f->m->spec.readout) {
    case FGL_READOUT_MEAN: return fgl_op_segment_mean(f->t, h, off, n);
    case FGL_READOUT_MAX: return fgl_op_segment_max(f->t, h, off, n);
    default: return fgl_op_segment_sum(f->t, h, off, n);
    }
}

static fgl_node *fgl__head(fgl__fwd *f, fgl_node *rep) {
    const fgl_model_spec *s = &f->m->spec;
    const fgl_layer_slots *h = &f->m->head;
    if (s->head == FGL_HEAD_LINEAR) return fgl__linear(f, fgl__dropout(f, rep, s->dropout), h->w, h->b, h->mask);
    if (s->head == FGL_HEAD_MLP) {
        fgl_node *z = fgl__linear_relu(f, rep, h->w, h->b, h->mask);
        return fgl__linear(f, fgl__dropout(f, z, s->dropout), h->w2, h->b2, h->mask2);
    }
    return rep;
}

/* One message-passing layer l on input h (NULL: the raw, possibly sparse,
 * features). Returns the pre-activation output; with relu_out (GIN only)
 * the output after the ReLU, fused into the layer's last product. */
static fgl_node *fgl__conv(fgl__fwd *f, int l, fgl_node *h, fgl_node *h0, int relu_out) {
    const fgl_model_spec *s = &f->m->spec;
    const fgl_layer_slots *c = &f->m->conv[l];
    const fgl_gnn_graph *g = f->g;
    fgl_tape *t = f->t;
    FGL_ASSERT(!relu_out || s->arch == FGL_ARCH_GIN); /* the only architecture that fuses it */
    switch (s->arch) {
    case FGL_ARCH_GCN: {
        fgl_node *xw = h ? fgl_op_matmul(t, h, fgl__weight(f, c->w, c->mask))
                         : fgl__sparse_times(f, fgl__weight(f, c->w, c->mask));
        return fgl__spmm_bias(f, g->adj_gcn, g->adj_gcn, xw, c->b);
    }
    case FGL_ARCH_SGC:
    case FGL_ARCH_MLP:
    case FGL_ARCH_GAMLP:
        return fgl__first(f, h, c->w, c->b, c->mask);
    case FGL_ARCH_GIN: {
        /* ((A + (1 + eps) I) h) W; with sparse input h = X the equal
         * (A + (1 + eps) I)(X W) keeps the sparse product first. */
        /* the MLP's inner ReLU: after batch norm in one pass, or with the product (dense input) */
        fgl_node *one_eps = fgl_op_affine(t, fgl__p(f, c->eps), 1.0f, 1.0f), *z, *agg = NULL;
        int bn = c->bn_g >= 0;
        if (h && g->adj_loop.rows && !s->learn_eps && one_eps && one_eps->val[0] == 1.0f)
            agg = fgl_op_spmm(t, &g->adj_loop, &g->adj_loop,
                              h); /* eps fixed at 0 (the usual GIN): one product with A + I */
        else if (h)
            agg = fgl_op_add(t, fgl_op_spmm(t, g->adj, g->adj, h), fgl_op_mul(t, h, one_eps));
        if (agg) {
            z = bn ? fgl__linear(f, agg, c->w, c->b, c->mask) : fgl__linear_relu(f, agg, c->w, c->b, c->mask);
        } else {
            fgl_node *xw = fgl__sparse_times(f, fgl__weight(f, c->w, c->mask));
            z = fgl__maybe_bias(f, fgl_op_add(t, fgl_op_spmm(t, g->adj, g->adj, xw), fgl_op_mul(t, xw, one_eps)), c->b);
            if (!bn) z = fgl_op_relu(t, z);
        }
        if (bn)
            z = fgl_op_batch_norm_relu(t, z, fgl__p(f, c->bn_g), fgl__p(f, c->bn_b),
                                       fgl_params_data(&f->m->params, c->bn_mean),
                                       fgl_params_data(&f->m->params, c->bn_var), s->bn_momentum, s->bn_eps, f->train);
        return relu_out ? fgl__linear_relu(f, z, c->w2, c->b2, c->mask2) : fgl__linear(f, z, c->w2, c->b2, c->mask2);
    }
    case FGL_ARCH_SAGE: {
        fgl_node *neigh, *root;
        if (h) {
            neigh = fgl_op_matmul(t, fgl_op_spmm(t, &g->adj_mean, &g->adj_mean_t, h), fgl__weight(f, c->w, c->mask));
            root = fgl_op_matmul(t, h, fgl__weight(f, c->w2, c->mask2));
        } else { /* sparse input: (mean A X) W = mean A (X W) */
            neigh = fgl_op_spmm(t, &g->adj_mean, &g->adj_mean_t, fgl__sparse_times(f, fgl__weight(f, c->w, c->mask)));
            root = fgl__sparse_times(f, fgl__weight(f, c->w2, c->mask2));
        }
        return fgl__maybe_bias(f, fgl_op_add(t, neigh, root), c->b);
    }
    case FGL_ARCH_GCNII: {
        float a = s->gcnii_alpha, beta = (float)log(s->gcnii_lambda / (double)(l + 1) + 1.0);
        fgl_node *sup = fgl_op_add(t, fgl_op_scale(t, fgl_op_spmm(t, g->adj_gcn, g->adj_gcn, h), 1.0f - a),
                                   fgl_op_scale(t, h0, a));
        return fgl_op_add(t, fgl_op_scale(t, sup, 1.0f - beta),
                          fgl_op_scale(t, fgl_op_matmul(t, sup, fgl__weight(f, c->w, c->mask)), beta));
    }
    case FGL_ARCH_GAT: {
        int last = l == s->layers - 1 && s->head == FGL_HEAD_NONE && s->task != FGL_TASK_GRAPH;
        int H = last ? 1 : s->heads, width = f->m->params.slices[c->w].cols, F = width / H, hh, j;
        fgl_node *z = h ? fgl_op_matmul(t, h, fgl__weight(f, c->w, c->mask))
                        : fgl__sparse_times(f, fgl__weight(f, c->w, c->mask));
        fgl_node *att_t = fgl_op_transpose(t, fgl__p(f, c->att)); /* width x 2: source, destination */
        fgl_node *cols[2 * FGL_MAX_HEADS], *sc, *e, *alpha;
        float *bm = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)width * 2 * (size_t)H);
        if (!z || !att_t || !bm) return NULL;
        /* Scores of every head at once: sc = z B (n x 2H), where column h of
         * B is the source vector restricted to head h's block of z and column
         * H + h the destination vector, built as [src..src dst..dst] * mask. */
        for (hh = 0; hh < H; hh++) {
            cols[hh] = fgl_op_slice_cols(t, att_t, 0, 1);
            cols[H + hh] = fgl_op_slice_cols(t, att_t, 1, 1);
            for (j = hh * F; j < (hh + 1) * F; j++) {
                bm[(size_t)j * 2 * H + hh] = 1.0f;
                bm[(size_t)j * 2 * H + H + hh] = 1.0f;
            }
        }
        sc = fgl_op_matmul(t, z, fgl_op_mul(t, fgl_op_concat_cols(t, cols, 2 * H), fgl_op_const(t, bm, width, 2 * H)));
        /* e_ij = LeakyReLU(dst_i + src_j) over the entries (i, j) of A + I. */
        e = fgl_op_add(t, fgl_op_gather_rows(t, fgl_op_slice_cols(t, sc, H, H), g->loop_rows, g->adj_loop.nnz),
                       fgl_op_gather_rows(t, fgl_op_slice_cols(t, sc, 0, H), g->adj_loop.indices, g->adj_loop.nnz));
        alpha = fgl_op_segment_softmax(t, fgl_op_leaky_relu(t, e, 0.2f), g->adj_loop.indptr, g->n_nodes);
        alpha = fgl__dropout(f, alpha, s->dropout);
        return fgl__maybe_bias(f, fgl_op_spmm_values(t, &g->adj_loop, alpha, z), c->b);
    }
    default:
        return fgl_tape_fail(t, FGL_ERR_UNSUPPORTED, "conv: architecture %d", s->arch);
    }
}

/* FedStar (docs/algorithms.md): x0 = Linear(X), s0 = Linear(SE); per layer
 * x <- dropout(ReLU(GIN([x || s]))) with GIN MLP 2H -> H -> ReLU -> H and
 * eps = 0, then s <- tanh(GCN(s)) (the GIN sees s before that layer's GCN);
 * readout: Linear(2H -> H) on [x || s], sum pooling, then the MLP head. */
static int fgl__fedstar_forward(fgl__fwd *f, fgl_forward *out) {
    fgl_model *m = f->m;
    const fgl_model_spec *s = &m->spec;
    const fgl_gnn_graph *g = f->g;
    fgl_tape *t = f->t;
    fgl_node *x, *st, *node;
    int l;
    x = fgl__first(f, fgl__dense_input(f), m->in_proj.w, m->in_proj.b, m->in_proj.mask);
    st = fgl__linear(f, fgl_op_const(t, g->pe, g->n_nodes, g->n_pe), m->pe_proj.w, m->pe_proj.b, m->pe_proj.mask);
    for (l = 0; l < s->layers; l++) {
        const fgl_layer_slots *c = &m->conv[l], *sc = &m->sconv[l];
        fgl_node *xs = fgl_op_concat2(t, x, st);
        fgl_node *agg = fgl_op_spmm(t, &g->adj_loop, &g->adj_loop, xs); /* (A + I) [x || s]: GIN with eps = 0 */
        fgl_node *z = fgl__linear(f, fgl__linear_relu(f, agg, c->w, c->b, c->mask), c->w2, c->b2, c->mask2);
        x = f->train ? fgl_op_relu_dropout(t, z, s->dropout, f->rng) : fgl_op_relu(t, z);
        st = fgl_op_tanh(
            t, fgl__spmm_bias(f, g->adj_gcn, g->adj_gcn, fgl_op_matmul(t, st, fgl__weight(f, sc->w, sc->mask)), sc->b));
    }
    node = fgl__linear(f, fgl_op_concat2(t, x, st), m->node_out.w, m->node_out.b, m->node_out.mask);
    out->node_emb = node;
    out->graph_emb = fgl__readout(f, node);
    out->rep = s->norm_rep ? fgl_op_l2_normalize_rows(t, out->graph_emb, 0) : out->graph_emb;
    out->logits = fgl__head(f, out->rep);
    return t->err.code;
}

/* spec.norm on h with the slots' parameters (layer or batch norm; eps
 * bn_eps); h itself where the slots have none. */
static fgl_node *fgl__norm_slots(fgl__fwd *f, const fgl_layer_slots *c, fgl_node *h) {
    const fgl_model_spec *s = &f->m->spec;
    if (!h || c->nrm_g < 0) return h;
    if (s->norm == FGL_NORM_BATCH)
        return fgl_op_batch_norm(f->t, h, fgl__p(f, c->nrm_g), fgl__p(f, c->nrm_b),
                                 fgl_params_data(&f->m->params, c->nrm_mean), fgl_params_data(&f->m->params, c->nrm_var),
                                 s->bn_momentum, s->bn_eps, f->train);
    return fgl_op_layer_norm(f->t, h, fgl__p(f, c->nrm_g), fgl__p(f, c->nrm_b), s->bn_eps);
}

/* The node models with spec.residual or spec.norm (the block form is in
 * model.h, at the spec's fields); a path of its own, so that a model
 * without them runs the code (and gets the bits) it ran before. */
static int fgl__backbone_forward(fgl__fwd *f, fgl_forward *out) {
    fgl_model *m = f->m;
    const fgl_model_spec *s = &m->spec;
    fgl_tape *t = f->t;
    fgl_node *h, *z = NULL, *pre = NULL;
    int l, gat = s->arch == FGL_ARCH_GAT, last_emits_classes = s->head == FGL_HEAD_NONE;
    h = fgl__dense_input(f); /* NULL for sparse input */
    if (m->in_proj.w >= 0) {
        h = fgl__first(f, h, m->in_proj.w, m->in_proj.b, m->in_proj.mask);
        if (s->residual) h = f->train ? fgl_op_relu_dropout(t, h, s->dropout, f->rng) : fgl_op_relu(t, h);
    }
    for (l = 0; l < s->layers; l++) {
        int last = l == s->layers - 1;
        z = fgl__norm_slots(f, &m->conv[l], h);
        /* the last layer is the classifier: its (normalised) input is the representation */
        if (last && last_emits_classes && s->norm_rep && z) z = fgl_op_l2_normalize_rows(t, z, 0);
        pre = fgl__conv(f, l, z, NULL, 0);
        if (last && last_emits_classes) break;
        if (s->residual || !last) { /* Dropout(Act(.)): ReLU and dropout in one pass */
            fgl_node *d = gat ? fgl__dropout(f, fgl_op_elu(t, pre, 1.0f), s->dropout)
                        : f->train ? fgl_op_relu_dropout(t, pre, s->dropout, f->rng)
                                   : fgl_op_relu(t, pre);
            h = s->residual ? fgl_op_add(t, h, d) : d; /* h <- h + Dropout(Act(Conv(Norm(h)))) */
        } else { /* the last layer of a plain model: the head brings its own dropout */
            h = gat ? fgl_op_elu(t, pre, 1.0f) : fgl_op_relu(t, pre);
        }
    }
    if (last_emits_classes) {
        out->node_emb = pre;
        out->rep = z;
        out->logits = pre;
        return t->err.code;
    }
    out->node_emb = s->residual ? h : pre;
    out->rep = fgl__norm_slots(f, &m->out_norm, h);
    if (s->norm_rep) out->rep = fgl_op_l2_normalize_rows(t, out->rep, 0);
    out->logits = fgl__head(f, out->rep);
    return t->err.code;
}

static int fgl__model_forward(fgl_model *m, fgl_tape *t, const fgl_gnn_graph *g, fgl_node *x_in, int train,
                              fgl_rng *rng, fgl_forward *out);

FGLDEF int fgl_model_forward(fgl_model *m, fgl_tape *t, const fgl_gnn_graph *g, int train, fgl_rng *rng,
                             fgl_forward *out) {
    return fgl__model_forward(m, t, g, NULL, train, rng, out);
}

FGLDEF int fgl_model_forward_x(fgl_model *m, fgl_tape *t, const fgl_gnn_graph *g, fgl_node *x, int train,
                               fgl_rng *rng, fgl_forward *out) {
    const fgl_model_spec *s = &m->spec;
    memset(out, 0, sizeof *out);
    if (t->err.code) return t->err.code;
    if (!x) {
        fgl_tape_fail(t, FGL_ERR_ARG, "forward_x: no input node");
        return t->err.code;
    }
    if (s->task == FGL_TASK_GRAPH || s->arch == FGL_ARCH_FEDSTAR || s->arch == FGL_ARCH_SGC ||
        s->arch == FGL_ARCH_GAMLP) {
        fgl_tape_fail(t, FGL_ERR_ARG, "forward_x: a node model that reads its features in the forward pass (not %s%s)",
                      fgl_arch_name(s->arch), s->task == FGL_TASK_GRAPH ? ", a graph task" : "");
        return t->err.code;
    }
    if (x->rows != g->n_nodes || x->cols != s->in_dim) {
        fgl_tape_fail(t, FGL_ERR_SHAPE, "forward_x: %d x %d input for %d nodes and %d features", x->rows, x->cols,
                      g->n_nodes, s->in_dim);
        return t->err.code;
    }
    return fgl__model_forward(m, t, g, x, train, rng, out);
}

static int fgl__model_forward(fgl_model *m, fgl_tape *t, const fgl_gnn_graph *g, fgl_node *x_in, int train,
                              fgl_rng *rng, fgl_forward *out) {
    fgl__fwd f;
    const fgl_model_spec *s = &m->spec;
    fgl_node *h, *h0 = NULL, *pre = NULL, *act = NULL;
    int l, fuse, last_emits_classes = s->head == FGL_HEAD_NONE && s->task != FGL_TASK_GRAPH;
    memset(out, 0, sizeof *out);
    if (t->err.code) return t->err.code;
    if (g->n_feat != s->in_dim) {
        fgl_tape_fail(t, FGL_ERR_SHAPE, "forward: graph has %d features, model expects %d", g->n_feat, s->in_dim);
        return t->err.code;
    }
    if (s->task == FGL_TASK_GRAPH && !g->offsets) {
        fgl_tape_fail(t, FGL_ERR_ARG, "forward: graph task without graph offsets");
        return t->err.code;
    }
    f.m = m;
    f.t = t;
    f.g = g;
    f.train = train;
    f.rng = rng;
    f.x_in = x_in;
    if (s->arch == FGL_ARCH_FEDSTAR) return fgl__fedstar_forward(&f, out);
    if (s->residual || s->norm) return fgl__backbone_forward(&f, out);

    h = fgl__dense_input(&f); /* NULL for sparse input */
    if (m->in_proj.w >= 0) {
        h = fgl__first(&f, h, m->in_proj.w, m->in_proj.b, m->in_proj.mask);
        if (s->arch == FGL_ARCH_GCNII) {
            h = fgl_op_relu(t, h);
            h0 = h;
        }
    }
    for (l = 0; l < s->layers; l++) {
        int last = l == s->layers - 1;
        if (s->arch == FGL_ARCH_GCNII) h = fgl__dropout(&f, h, s->dropout);
        /* the last layer is the classifier: its (dense) input is the representation */
        if (last && last_emits_classes && s->norm_rep && h) h = fgl_op_l2_normalize_rows(t, h, 0);
        /* GIN's ReLU after a layer other than the last (whose output is
         * node_emb, before activation) goes into the layer's last product,
         * unless dropout follows it in training (fgl_op_relu_dropout's one
         * pass then) */
        fuse = s->arch == FGL_ARCH_GIN && !last && !(train && s->dropout > 0 && rng);
        pre = fgl__conv(&f, l, h, h0, fuse);
        if (last && last_emits_classes) break;
        if (fuse) {
            h = act = pre;
            continue;
        }
        /* Dropout after every activation, except where the next step brings
         * its own: GCNII before each layer, a node head before its map. */
        if (s->arch == FGL_ARCH_GCNII || (last && s->task != FGL_TASK_GRAPH)) {
            act = s->arch == FGL_ARCH_GAT ? fgl_op_elu(t, pre, 1.0f) : fgl_op_relu(t, pre);
            h = act;
        } else if (s->arch != FGL_ARCH_GAT && train) {
            h = act = fgl_op_relu_dropout(t, pre, s->dropout, rng); /* one pass; act is not read past here */
        } else {
            act = s->arch == FGL_ARCH_GAT ? fgl_op_elu(t, pre, 1.0f) : fgl_op_relu(t, pre);
            h = fgl__dropout(&f, act, s->dropout);
        }
    }
    out->node_emb = pre;
    if (last_emits_classes) {
        out->rep = h;
        out->logits = pre;
    } else if (s->task == FGL_TASK_GRAPH) {
        out->graph_emb = fgl__readout(&f, h);
        out->rep = s->norm_rep ? fgl_op_l2_normalize_rows(t, out->graph_emb, 0) : out->graph_emb;
        out->logits = fgl__head(&f, out->rep);
    } else {
        out->rep = s->norm_rep ? fgl_op_l2_normalize_rows(t, act, 0) : act;
        out->logits = fgl__head(&f, out->rep);
    }
    return t->err.code;
}

FGLDEF fgl_node *fgl_model_head(fgl_model *m, fgl_tape *t, fgl_node *x, int train, fgl_rng *rng) {
    fgl__fwd f;
    memset(&f, 0, sizeof f);
    f.m = m;
    f.t = t;
    f.train = train;
    f.rng = rng;
    return x ? fgl__head(&f, x) : NULL;
}

FGLDEF int fgl_model_evaluate(fgl_model *m, fgl_tape *t, const fgl_gnn_graph *g, const int *labels,
                              const unsigned char *const *masks, int n_masks, double *acc, int *correct, int *count) {
    fgl_forward out;
    int i, j, q;
    fgl_tape_reset(t);
    if (fgl_model_forward(m, t, g, 0, NULL, &out) || !out.logits) return t->err.code ? t->err.code : FGL_ERR_ARG;
    for (q = 0; q < n_masks; q++) {
        int ok = 0, total = 0;
        for (i = 0; i < out.logits->rows; i++) {
            const float *row = out.logits->val + (size_t)i * out.logits->cols;
            int best = 0;
            if ((masks && masks[q] && !masks[q][i]) || labels[i] < 0) continue;
            for (j = 1; j < out.logits->cols; j++)
                if (row[j] > row[best]) best = j;
            ok += best == labels[i];
            total++;
        }
        acc[q] = total ? (double)ok / total : 0.0;
        if (correct) correct[q] = ok;
        if (count) count[q] = total;
    }
    return FGL_OK;
}

FGLDEF double fgl_model_accuracy(fgl_model *m, fgl_tape *t, const fgl_gnn_graph *g, const int *labels,
                                 const unsigned char *mask, double *loss_out) {
    fgl_forward out;
    double acc;
    const unsigned char *masks[1];
    masks[0] = mask;
    if (!loss_out) return fgl_model_evaluate(m, t, g, labels, masks, 1, &acc, NULL, NULL) ? -1 : acc;
    fgl_tape_reset(t);
    if (fgl_model_forward(m, t, g, 0, NULL, &out) || !out.logits) return -1;
    {
        fgl_node *loss = fgl_op_cross_entropy(t, out.logits, labels, mask);
        *loss_out = loss ? loss->val[0] : NAN;
    }
    return fgl_model_evaluate(m, t, g, labels, masks, 1, &acc, NULL, NULL) ? -1 : acc;
}

FGLDEF int fgl_model_mean_embedding(fgl_model *m, fgl_tape *t, const fgl_gnn_graph *g, float *out) {
    fgl_forward fw;
    int i, j, w;
    fgl_tape_reset(t);
    if (fgl_model_forward(m, t, g, 0, NULL, &fw) || !fw.node_emb) return t->err.code ? t->err.code : FGL_ERR_ARG;
    w = fw.node_emb->cols;
    for (j = 0; j < w; j++) {
        double s = 0;
        for (i = 0; i < fw.node_emb->rows; i++) s += fw.node_emb->val[(size_t)i * w + j];
        out[j] = fw.node_emb->rows ? (float)(s / fw.node_emb->rows) : 0.0f;
    }
    return FGL_OK;
}

#include "../alone.h"
