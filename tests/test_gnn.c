/* Tests of fgl_gnn.h: every architecture gradient-checked end to end by
 * finite differences (node and graph tasks, dense and sparse inputs, masks,
 * batch norm, learned eps), dense/sparse agreement, save/load, the GAE, and
 * short training runs that must reach a meaningful accuracy (on synthetic
 * data always, on the real datasets when present). */
/* ft_alloc_largest bounds what a forged model file may allocate (ft.h) */
#include "ft.h"
#include "../fgl_gnn.h"
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* A small random graph: n nodes in g graphs (contiguous), ~2.5 edges/node,
 * dense features (some exact zeros, so the sparse copy is really sparse). */
typedef struct toy {
    int n, f, c, g;
    fgl_csr adj, xs;
    float *x, *pe;
    int *y, *offsets, *gy;
} toy;

static void toy_make(toy *t, int n, int f, int c, int g, uint64_t seed) {
    fgl_rng r;
    int src[200], dst[200], m = 0, i, k, nnz = 0;
    int *rows, *cols;
    float *vals;
    fgl_error err;
    fgl_rng_init(&r, seed, 0);
    memset(t, 0, sizeof *t);
    t->n = n;
    t->f = f;
    t->c = c;
    t->g = g;
    t->offsets = (int *)malloc(sizeof(int) * (size_t)(g + 1));
    for (k = 0; k <= g; k++) t->offsets[k] = k * n / g;
    for (k = 0; k < g; k++) { /* a path inside each graph plus random chords */
        int a = t->offsets[k], b = t->offsets[k + 1];
        for (i = a; i + 1 < b; i++) { src[m] = i; dst[m++] = i + 1; }
        for (i = 0; i < (b - a); i++) {
            int u = a + (int)fgl_rng_below(&r, (uint64_t)(b - a)), v = a + (int)fgl_rng_below(&r, (uint64_t)(b - a));
            if (u != v && m < 200) { src[m] = u; dst[m++] = v; }
        }
    }
    fgl_graph_from_edges(n, src, dst, m, FGL_EDGES_SYMMETRIZE | FGL_EDGES_DROP_SELF_LOOPS, &t->adj, &err);
    t->x = (float *)calloc((size_t)n * f, sizeof(float));
    t->pe = (float *)malloc(sizeof(float) * (size_t)n * 4);
    rows = (int *)malloc(sizeof(int) * (size_t)n * f);
    cols = (int *)malloc(sizeof(int) * (size_t)n * f);
    vals = (float *)malloc(sizeof(float) * (size_t)n * f);
    for (i = 0; i < n * f; i++)
        if (fgl_rng_uniform(&r) < 0.6) {
            t->x[i] = fgl_rng_uniformf(&r, -1, 1);
            rows[nnz] = i / f;
            cols[nnz] = i % f;
            vals[nnz++] = t->x[i];
        }
    fgl_csr_from_coo(n, f, nnz, rows, cols, vals, 0, &t->xs, &err);
    for (i = 0; i < n * 4; i++) t->pe[i] = fgl_rng_uniformf(&r, 0, 1);
    t->y = (int *)malloc(sizeof(int) * (size_t)n);
    for (i = 0; i < n; i++) t->y[i] = (int)fgl_rng_below(&r, (uint64_t)c);
    t->gy = (int *)malloc(sizeof(int) * (size_t)g);
    for (i = 0; i < g; i++) t->gy[i] = i % c;
    free(rows);
    free(cols);
    free(vals);
}

static void toy_free(toy *t) {
    fgl_csr_free(&t->adj);
    fgl_csr_free(&t->xs);
    free(t->x);
    free(t->pe);
    free(t->y);
    free(t->offsets);
    free(t->gy);
}

typedef struct gc_ctx {
    fgl_model *m;
    fgl_gnn_graph *g;
    const int *labels;
    int train;
} gc_ctx;

/* Loss of a forward pass; train mode with a fixed dropout stream, reseeded
 * each call so every evaluation sees the same masks. */
static fgl_node *gc_build(fgl_tape *t, fgl_params *ps, void *ud) {
    gc_ctx *c = (gc_ctx *)ud;
    fgl_forward out;
    fgl_rng r;
    (void)ps;
    fgl_rng_init(&r, 99, 1);
    if (fgl_model_forward(c->m, t, c->g, c->train, &r, &out)) return NULL;
    return fgl_op_cross_entropy(t, out.logits, c->labels, NULL);
}

/* One tape for every evaluation of a check (reset, not re-created: a fresh
 * tape maps a new arena chunk each time, which is slow under ASan). */
static fgl_tape gc_tape;

static double gc_loss(gc_ctx *c, fgl_params *ps) {
    fgl_node *l;
    fgl_tape_reset(&gc_tape);
    l = gc_build(&gc_tape, ps, c);
    return l ? l->val[0] : NAN;
}

/* Worst disagreement between the backward pass and finite differences of the
 * float loss. A ReLU, max or LeakyReLU kink close to the point spoils a
 * central difference, so each value gets four estimates and the closest one
 * counts: central differences with h = 2.5e-4 and 1e-3, and second-order
 * one-sided differences (-3 f(x) + 4 f(x +- h) - f(x +- 2h)) / (+-2h). A
 * single kink lies on one side only, so one estimate stays clean, while a
 * wrong backward term disagrees with all four. Returns the largest
 * |analytic - numeric| / (1e-3 + 1e-2 |analytic|): <= 1 passes. The 1e-3
 * covers float round-off (a few 2^-24 ulps of a loss near 1, over 2h), the
 * 1e-2 the backward pass's own float error; the gradients tested are mostly
 * 1e-2 .. 0.5, so a missing or mis-scaled term fails. */
static double gc_check(gc_ctx *c, fgl_params *ps) {
    fgl_tape t;
    fgl_node *l;
    float *an = (float *)malloc(sizeof(float) * ps->size);
    double worst = 0, h = 2.5e-4;
    size_t i;
    int k;
    fgl_tape_init(&t);
    fgl_params_zero_grad(ps);
    l = gc_build(&t, ps, c);
    if (!l || fgl_tape_backward(&t, l)) {
        fgl_tape_free(&t);
        free(an);
        return -1;
    }
    memcpy(an, ps->grad, sizeof(float) * ps->size);
    fgl_tape_free(&t);
    for (k = 0; k < ps->n; k++) {
        const fgl_slice *sl = &ps->slices[k];
        size_t n = fgl_slice_size(sl), q8;
        if (!sl->trainable) continue;
        /* every slice, at up to 8 values spread over it (first and last included) */
        for (q8 = 0; q8 < (n < 8 ? n : 8); q8++) {
            float keep;
            i = sl->offset + (n <= 8 ? q8 : q8 * (n - 1) / 7);
            keep = ps->data[i];
            double f[5], est[4], best = 1e300, tol;
            int q;
            for (q = -2; q <= 2; q++) {
                ps->data[i] = (float)(keep + q * h);
                f[q + 2] = gc_loss(c, ps);
            }
            ps->data[i] = (float)(keep + 4 * h);
            est[0] = gc_loss(c, ps);
            ps->data[i] = (float)(keep - 4 * h);
            est[0] = (est[0] - gc_loss(c, ps)) / (8 * h);
            ps->data[i] = keep;
            est[1] = (f[3] - f[1]) / (2 * h);
            est[2] = (-3 * f[2] + 4 * f[3] - f[4]) / (2 * h);
            est[3] = (3 * f[2] - 4 * f[1] + f[0]) / (2 * h);
            for (q = 0; q < 4; q++) best = fmin(best, fabs(est[q] - an[i]));
            tol = 1e-3 + 1e-2 * fabs(an[i]);
            if (getenv("GC_DEBUG") && best > tol)
                printf("#   value %zu (%s): analytic %.6g, estimates %.6g %.6g %.6g %.6g\n", i, sl->name, an[i], est[0],
                       est[1], est[2], est[3]);
            worst = fmax(worst, best / tol);
        }
    }
    free(an);
    return worst;
}

/* Gradient-check a model of this spec on the toy graph; sparse: use the
 * sparse feature matrix. */
static void check_arch(const char *what, fgl_model_spec spec, toy *ty, int sparse) {
    fgl_model m;
    fgl_gnn_graph g;
    fgl_error err;
    gc_ctx ctx;
    int task = spec.task, rc;
    float keep_bn_momentum = spec.bn_momentum;
    spec.bn_momentum = 0.0f; /* running statistics must not move between evaluations */
    rc = fgl_model_init(&m, &spec, 3, &err);
    FT_CHECK(rc == FGL_OK, "%s: init: %s", what, err.msg);
    if (rc) return;
    rc = fgl_gnn_graph_make(&g, &ty->adj, NULL, sparse ? NULL : ty->x, sparse ? &ty->xs : NULL, ty->f,
                            spec.arch == FGL_ARCH_FEDSTAR ? ty->pe : NULL, 4, task == FGL_TASK_GRAPH ? ty->offsets : NULL,
                            task == FGL_TASK_GRAPH ? ty->g : 0, &spec, &err);
    FT_CHECK(rc == FGL_OK, "%s: graph: %s", what, err.msg);
    if (!rc) {
        double worst;
        ctx.m = &m;
        ctx.g = &g;
        ctx.labels = task == FGL_TASK_GRAPH ? ty->gy : ty->y;
        ctx.train = 1;
        worst = gc_check(&ctx, &m.params);
        FT_CHECK(worst >= 0 && worst <= 1.0, "%s (train): worst gradient error %.3g of tolerance", what, worst);
        ctx.train = 0; /* evaluation mode too: running statistics, pruned masks, no dropout */
        worst = gc_check(&ctx, &m.params);
        FT_CHECK(worst >= 0 && worst <= 1.0, "%s (eval): worst gradient error %.3g of tolerance", what, worst);
        fgl_gnn_graph_free(&g);
    }
    (void)keep_bn_momentum;
    fgl_model_free(&m);
}

static fgl_model_spec small_spec(int arch, int task, const toy *t) {
    fgl_model_spec s = fgl_model_spec_default(arch, task, t->f, t->c);
    s.hidden = arch == FGL_ARCH_GAT ? 6 : 5;
    s.heads = 2;
    s.layers = arch == FGL_ARCH_GCNII ? 3 : 2;
    s.dropout = 0.3f;
    s.pe_dim = 4;
    return s;
}

static void test_gradients_node_models(void) {
    toy t;
    int arch;
    toy_make(&t, 9, 4, 3, 1, 5);
    for (arch = 0; arch < FGL_ARCH_COUNT; arch++) {
        char what[64];
        fgl_model_spec s;
        if (arch == FGL_ARCH_FEDSTAR) continue;
        s = small_spec(arch, FGL_TASK_NODE, &t);
        snprintf(what, sizeof what, "%s node dense", fgl_arch_name(arch));
        check_arch(what, s, &t, 0);
        snprintf(what, sizeof what, "%s node sparse", fgl_arch_name(arch));
        s.input_dropout = 0.2f;
        check_arch(what, s, &t, 1);
        if (arch == FGL_ARCH_GCN || arch == FGL_ARCH_GAT || arch == FGL_ARCH_SAGE) {
            s.head = FGL_HEAD_NONE; /* the last layer emits the classes */
            snprintf(what, sizeof what, "%s node no-head", fgl_arch_name(arch));
            check_arch(what, s, &t, 0);
        }
        /* FedPG's embedding: the classifier reads L2-normalised rows (single-head GAT) */
        s = small_spec(arch, FGL_TASK_NODE, &t);
        s.norm_rep = 1;
        s.heads = 1;
        snprintf(what, sizeof what, "%s node norm_rep", fgl_arch_name(arch));
        check_arch(what, s, &t, 0);
        if (arch != FGL_ARCH_GCNII) {
            s.head = FGL_HEAD_NONE;
            snprintf(what, sizeof what, "%s node norm_rep no-head", fgl_arch_name(arch));
            check_arch(what, s, &t, 1);
        }
    }
    toy_free(&t);
}

/* The backbone options (spec.residual, spec.norm: model.h) on every node
 * architecture that takes them, dense and sparse input, with and without a
 * head; each gradient-checked in training and evaluation mode (batch norm's
 * running statistics held still by check_arch). */
static void test_gradients_backbones(void) {
    static const int archs[] = {FGL_ARCH_GCN, FGL_ARCH_GIN, FGL_ARCH_SAGE, FGL_ARCH_GAT, FGL_ARCH_MLP};
    static const char *norm_names[] = {"none", "layer", "batch"};
    static const struct {
        int residual, norm, sparse, head;
    } cases[] = {
        {1, FGL_NORM_NONE, 0, FGL_HEAD_LINEAR},
        {1, FGL_NORM_LAYER, 1, FGL_HEAD_LINEAR},
        {1, FGL_NORM_BATCH, 0, FGL_HEAD_MLP},
        {0, FGL_NORM_LAYER, 0, FGL_HEAD_LINEAR},
        {0, FGL_NORM_BATCH, 1, FGL_HEAD_NONE},
    };
    toy t;
    int a, k;
    toy_make(&t, 9, 4, 3, 1, 8); /* seed 5 (the other checks') puts ReLU kinks within the differences' reach
                                      of in_proj.b in one case (the four estimates straddle the analytic value) */
    for (a = 0; a < (int)(sizeof archs / sizeof archs[0]); a++)
        for (k = 0; k < (int)(sizeof cases / sizeof cases[0]); k++) {
            char what[96];
            fgl_model_spec s = small_spec(archs[a], FGL_TASK_NODE, &t);
            s.residual = cases[k].residual;
            s.norm = cases[k].norm;
            s.head = cases[k].head;
            s.layers = 3;
            s.hidden = 8; /* layer norm over 5 ReLU outputs, few of them non-zero, is too sharp for the differences */
            s.input_dropout = cases[k].sparse ? 0.2f : 0.0f;
            snprintf(what, sizeof what, "%s node%s norm %s%s%s", fgl_arch_name(archs[a]),
                     s.residual ? " residual" : "", norm_names[s.norm], cases[k].sparse ? " sparse" : "",
                     s.head == FGL_HEAD_NONE ? " no-head" : s.head == FGL_HEAD_MLP ? " mlp-head" : "");
            check_arch(what, s, &t, cases[k].sparse);
        }
    toy_free(&t);
}

/* What the options build: SAGE is the separate ego/neighbour layer (root
 * and neighbour maps); the norm's parameters carry the groups model.h says
 * (FedBN's keep = norm|bnstat addresses them); a residual block whose
 * layer outputs 0 passes h through (node_emb = ReLU(x W_in + b_in), and
 * rep = layer norm of it); options off leave the layout as it was; and the
 * spec check refuses the combinations the options do not take. */
static void test_backbone_layout(void) {
    toy t;
    fgl_model m, plain;
    fgl_model_spec s;
    fgl_error err;
    fgl_gnn_graph g;
    fgl_tape tp;
    fgl_forward out;
    int i, l, rc, n_norm = 0, n_stat = 0;
    toy_make(&t, 9, 4, 3, 1, 5);
    s = small_spec(FGL_ARCH_SAGE, FGL_TASK_NODE, &t);
    FT_CHECK(fgl_model_init(&plain, &s, 3, &err) == FGL_OK, "plain: %s", err.msg);
    s.residual = 1;
    s.norm = FGL_NORM_BATCH;
    FT_CHECK(fgl_model_init(&m, &s, 3, &err) == FGL_OK, "residual batch: %s", err.msg);
    for (i = 0; i < m.params.n; i++) {
        const fgl_slice *sl = &m.params.slices[i];
        if (strstr(sl->name, "norm.g") || strstr(sl->name, "norm.b")) {
            n_norm++;
            FT_CHECK(sl->groups == (FGL_G_CONV | FGL_G_NORM) && sl->trainable, "%s: groups %#x", sl->name, sl->groups);
        }
        if (strstr(sl->name, "norm.mean") || strstr(sl->name, "norm.var")) {
            n_stat++;
            FT_CHECK(sl->groups == (FGL_G_CONV | FGL_G_BNSTAT) && !sl->trainable, "%s: groups %#x", sl->name, sl->groups);
        }
    }
    /* 2 layers and the output: gain and bias each, and batch norm's two statistics */
    FT_CHECK(n_norm == 6 && n_stat == 6, "norm slices %d, statistics %d", n_norm, n_stat);
    FT_CHECK(m.in_proj.w >= 0 && m.params.slices[m.in_proj.w].groups == FGL_G_FEATURE, "residual: input projection");
    for (l = 0; l < s.layers; l++)
        FT_CHECK(m.conv[l].w >= 0 && m.conv[l].w2 >= 0 && m.params.slices[m.conv[l].w].rows == s.hidden &&
                     !strcmp(m.params.slices[m.conv[l].w2].name, l ? "conv1.root.w" : "conv0.root.w"),
                 "sage layer %d: neighbour and root maps, hidden -> hidden", l);
    fgl_model_free(&m);
    { /* options off: the layout of before (no slice added); defaults off */
        fgl_model_spec d = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 4, 3);
        FT_CHECK(d.residual == 0 && d.norm == FGL_NORM_NONE, "defaults on");
        FT_CHECK(plain.params.n == 8 && plain.in_proj.w < 0 && plain.out_norm.nrm_g < 0, "plain SAGE: %d slices",
                 plain.params.n);
    }
    fgl_model_free(&plain);
    /* a residual block whose layer outputs 0 passes h through */
    s = small_spec(FGL_ARCH_GCN, FGL_TASK_NODE, &t);
    s.residual = 1;
    s.norm = FGL_NORM_LAYER;
    rc = fgl_model_init(&m, &s, 3, &err);
    FT_CHECK(rc == FGL_OK, "residual gcn: %s", err.msg);
    if (!rc) {
        fgl_tape_init(&tp);
        for (l = 0; l < s.layers; l++) {
            fgl_params_fill(&m.params, m.conv[l].w, 0.0f);
            fgl_params_fill(&m.params, m.conv[l].b, 0.0f);
        }
        rc = fgl_gnn_graph_make(&g, &t.adj, NULL, t.x, NULL, t.f, NULL, 0, NULL, 0, &s, &err);
        FT_CHECK(rc == FGL_OK && fgl_model_forward(&m, &tp, &g, 0, NULL, &out) == FGL_OK, "forward");
        if (!rc && out.node_emb) {
            const float *W = fgl_params_data(&m.params, m.in_proj.w), *b = fgl_params_data(&m.params, m.in_proj.b);
            double worst = 0, worst_ln = 0;
            int v, j, q;
            for (v = 0; v < t.n; v++) {
                double e[64], mean = 0, var = 0;
                for (j = 0; j < s.hidden; j++) {
                    double z = b[j];
                    for (q = 0; q < t.f; q++) z += (double)t.x[v * t.f + q] * W[q * s.hidden + j];
                    e[j] = z > 0 ? z : 0;
                    mean += e[j] / s.hidden;
                    worst = fmax(worst, fabs(e[j] - out.node_emb->val[v * s.hidden + j]));
                }
                for (j = 0; j < s.hidden; j++) var += (e[j] - mean) * (e[j] - mean) / s.hidden;
                for (j = 0; j < s.hidden; j++)
                    worst_ln = fmax(worst_ln, fabs((e[j] - mean) / sqrt(var + s.bn_eps) - out.rep->val[v * s.hidden + j]));
            }
            FT_CHECK(worst < 1e-5 && worst_ln < 1e-3, "zero blocks: node_emb off by %g, rep by %g", worst, worst_ln);
        }
        fgl_gnn_graph_free(&g);
        fgl_tape_free(&tp);
        fgl_model_free(&m);
    }
    /* refused: an architecture or a task without the options, residual without a head */
    s = small_spec(FGL_ARCH_GCNII, FGL_TASK_NODE, &t);
    s.residual = 1;
    FT_CHECK(fgl_model_init(&m, &s, 1, &err) == FGL_ERR_ARG && strstr(err.msg, "gcnii"), "gcnii residual: %s", err.msg);
    s = small_spec(FGL_ARCH_GIN, FGL_TASK_GRAPH, &t);
    s.norm = FGL_NORM_LAYER;
    FT_CHECK(fgl_model_init(&m, &s, 1, &err) == FGL_ERR_ARG && strstr(err.msg, "graph"), "graph task norm: %s", err.msg);
    s = small_spec(FGL_ARCH_GCN, FGL_TASK_NODE, &t);
    s.residual = 1;
    s.head = FGL_HEAD_NONE;
    FT_CHECK(fgl_model_init(&m, &s, 1, &err) == FGL_ERR_ARG && strstr(err.msg, "head"), "residual no head: %s", err.msg);
    s.head = FGL_HEAD_LINEAR;
    s.norm = 3;
    FT_CHECK(fgl_model_init(&m, &s, 1, &err) == FGL_ERR_ARG && strstr(err.msg, "norm"), "norm 3: %s", err.msg);
    toy_free(&t);
}

/* Every backbone FedPG mixes (node: GCN, single-head GAT, GraphSAGE, SGC,
 * GCNII, GAMLP; graph: GIN and the others) exposes, with norm_rep, a
 * representation of the same width d = hidden whose rows have unit length,
 * in training and evaluation mode; and norm_rep changes the logits (the
 * classifier really reads the normalised rows). */
static void test_normalized_embeddings(void) {
    static const int archs[] = {FGL_ARCH_GCN, FGL_ARCH_GAT, FGL_ARCH_SAGE, FGL_ARCH_SGC, FGL_ARCH_GCNII,
                                FGL_ARCH_GAMLP, FGL_ARCH_GIN, FGL_ARCH_MLP};
    toy t;
    int a, task, train;
    toy_make(&t, 12, 4, 3, 3, 21);
    for (task = FGL_TASK_NODE; task <= FGL_TASK_GRAPH; task++)
        for (a = 0; a < (int)(sizeof archs / sizeof archs[0]); a++) {
            fgl_model_spec s = fgl_model_spec_default(archs[a], task, t.f, t.c);
            fgl_model m, plain;
            fgl_gnn_graph g;
            fgl_tape tp;
            fgl_error err;
            fgl_rng r;
            s.hidden = 8;
            s.layers = 2;
            s.heads = 1;
            s.norm_rep = 1;
            if (task == FGL_TASK_NODE && archs[a] != FGL_ARCH_GCNII) s.head = FGL_HEAD_NONE;
            if (fgl_model_init(&m, &s, 4, &err)) {
                FT_CHECK(0, "%s: %s", fgl_arch_name(archs[a]), err.msg);
                continue;
            }
            s.norm_rep = 0;
            fgl_model_init(&plain, &s, 4, &err);
            FT_CHECK(fgl_model_rep_dim(&m) == 8, "%s task %d: rep width %d", fgl_arch_name(archs[a]), task, fgl_model_rep_dim(&m));
            FT_CHECK(fgl_gnn_graph_make(&g, &t.adj, NULL, t.x, NULL, t.f, NULL, 0, task ? t.offsets : NULL, task ? t.g : 0,
                                        &s, &err) == FGL_OK, "graph: %s", err.msg);
            fgl_tape_init(&tp);
            for (train = 0; train <= 1; train++) {
                fgl_forward fw, fp;
                int i, k, bad = 0, differ = 0;
                fgl_rng_init(&r, 5, 0);
                fgl_tape_reset(&tp);
                if (fgl_model_forward(&m, &tp, &g, train, &r, &fw) || !fw.rep) {
                    FT_CHECK(0, "%s: forward: %s", fgl_arch_name(archs[a]), tp.err.msg);
                    break;
                }
                FT_CHECK(fw.rep->cols == 8 && fw.rep->rows == (task ? t.g : t.n), "%s task %d: rep %dx%d",
                         fgl_arch_name(archs[a]), task, fw.rep->rows, fw.rep->cols);
                for (i = 0; i < fw.rep->rows; i++) {
                    double n2 = 0;
                    for (k = 0; k < fw.rep->cols; k++) n2 += (double)fw.rep->val[i * fw.rep->cols + k] * fw.rep->val[i * fw.rep->cols + k];
                    bad += n2 > 0 && fabs(n2 - 1) > 1e-5; /* a row dropped to zero stays zero */
                }
                FT_CHECK(bad == 0, "%s task %d train %d: %d rows not of unit length", fgl_arch_name(archs[a]), task, train, bad);
                if (!train) {
                    fgl_tape t2;
                    fgl_tape_init(&t2);
                    fgl_model_forward(&plain, &t2, &g, 0, NULL, &fp);
                    for (i = 0; i < fp.logits->rows * fp.logits->cols; i++) differ |= fp.logits->val[i] != fw.logits->val[i];
                    FT_CHECK(differ, "%s task %d: norm_rep does not change the logits", fgl_arch_name(archs[a]), task);
                    fgl_tape_free(&t2);
                }
            }
            fgl_tape_free(&tp);
            fgl_gnn_graph_free(&g);
            fgl_model_free(&m);
            fgl_model_free(&plain);
        }
    toy_free(&t);
}

/* GAMLP: the propagated blocks are X, A_hat X, ..., A_hat^K X; with the
 * scoring vector at 0 the hop weights are uniform, so the first layer reads
 * the plain mean of the hops (checked against a naive computation). */
static void test_gamlp_hops(void) {
    toy t;
    fgl_model_spec s;
    fgl_model m;
    fgl_gnn_graph g;
    fgl_tape tp;
    fgl_error err;
    fgl_forward fw;
    fgl_csr ahat;
    double *cur, *nxt, *mean;
    int i, j, k, q, K = 3, bad = 0;
    toy_make(&t, 9, 4, 3, 1, 7);
    s = fgl_model_spec_default(FGL_ARCH_GAMLP, FGL_TASK_NODE, t.f, t.c);
    s.sgc_hops = K;
    s.hidden = 5;
    s.layers = 1;
    s.head = FGL_HEAD_NONE;
    FT_CHECK(fgl_model_init(&m, &s, 1, &err) == FGL_OK, "init: %s", err.msg);
    FT_CHECK(m.hop_att >= 0 && m.params.slices[m.hop_att].rows == t.f, "a scoring vector of the feature width");
    FT_CHECK(fgl_gnn_graph_make(&g, &t.adj, NULL, NULL, &t.xs, t.f, NULL, 0, NULL, 0, &s, &err) == FGL_OK, "graph: %s", err.msg);
    FT_CHECK(g.n_hops == K + 1, "%d blocks", g.n_hops);
    fgl_gcn_norm(&t.adj, &ahat);
    cur = (double *)calloc((size_t)t.n * t.f, sizeof(double));
    nxt = (double *)calloc((size_t)t.n * t.f, sizeof(double));
    mean = (double *)calloc((size_t)t.n * t.f, sizeof(double));
    for (i = 0; i < t.n * t.f; i++) cur[i] = t.x[i];
    for (k = 0; k <= K; k++) {
        for (i = 0; i < t.n * t.f; i++) {
            bad += fabs(g.x_hops[(size_t)k * t.n * t.f + i] - cur[i]) > 1e-5;
            mean[i] += cur[i] / (K + 1);
        }
        memset(nxt, 0, sizeof(double) * (size_t)t.n * t.f);
        for (i = 0; i < t.n; i++)
            for (q = ahat.indptr[i]; q < ahat.indptr[i + 1]; q++)
                for (j = 0; j < t.f; j++) nxt[i * t.f + j] += ahat.values[q] * cur[ahat.indices[q] * t.f + j];
        memcpy(cur, nxt, sizeof(double) * (size_t)t.n * t.f);
    }
    FT_CHECK(bad == 0, "%d propagated values differ from A_hat^k X", bad);
    /* scores 0: uniform weights; the layer is then Linear(mean of hops) */
    fgl_params_fill(&m.params, m.hop_att, 0.0f);
    fgl_tape_init(&tp);
    FT_CHECK(fgl_model_forward(&m, &tp, &g, 0, NULL, &fw) == FGL_OK, "forward: %s", tp.err.msg);
    bad = 0;
    for (i = 0; i < t.n; i++)
        for (j = 0; j < t.c; j++) {
            double want = fgl_params_data(&m.params, m.conv[0].b)[j];
            for (k = 0; k < t.f; k++) want += mean[i * t.f + k] * fgl_params_data(&m.params, m.conv[0].w)[k * t.c + j];
            bad += fabs(fw.logits->val[i * t.c + j] - want) > 1e-5;
        }
    FT_CHECK(bad == 0, "%d logits differ from Linear(mean of the hops)", bad);
    { /* the strict finite-difference check: a smooth model (no ReLU) with sharp hop weights */
        gc_ctx c;
        fgl_gradcheck_report rep;
        fgl_rng rr;
        fgl_rng_init(&rr, 3, 0);
        fgl_params_uniform(&m.params, m.hop_att, -2.0f, 2.0f, &rr);
        c.m = &m;
        c.g = &g;
        c.labels = t.y;
        c.train = 0;
        FT_CHECK(fgl_gradcheck_ex(&m.params, gc_build, &c, 0, 0, &rep) == FGL_OK, "gradcheck: %s", rep.msg);
        FT_CHECK(rep.worst <= 1.0, "GAMLP: value %zu: analytic %.8g, numeric %.8g (tol %.3g)", rep.index, rep.analytic,
                 rep.numeric, rep.tol);
    }
    fgl_tape_free(&tp);
    free(cur);
    free(nxt);
    free(mean);
    fgl_csr_free(&ahat);
    fgl_gnn_graph_free(&g);
    fgl_model_free(&m);
    toy_free(&t);
}

static void test_gradients_graph_models(void) {
    toy t;
    int arch;
    toy_make(&t, 12, 3, 2, 3, 8);
    for (arch = 0; arch < FGL_ARCH_COUNT; arch++) {
        char what[64];
        fgl_model_spec s = small_spec(arch, FGL_TASK_GRAPH, &t);
        int r;
        for (r = FGL_READOUT_SUM; r <= FGL_READOUT_MAX; r++) {
            s.readout = r;
            snprintf(what, sizeof what, "%s graph readout %d", fgl_arch_name(arch), r);
            check_arch(what, s, &t, 0);
        }
    }
    for (arch = 0; arch < FGL_ARCH_COUNT; arch++) { /* FedPG's graph-level embedding: a normalised readout */
        char what[64];
        fgl_model_spec s = small_spec(arch, FGL_TASK_GRAPH, &t);
        s.norm_rep = 1;
        snprintf(what, sizeof what, "%s graph norm_rep", fgl_arch_name(arch));
        check_arch(what, s, &t, 0);
    }
    { /* GIN with batch norm, learned eps and masks; and a masked GCN */
        fgl_model_spec s = small_spec(FGL_ARCH_GIN, FGL_TASK_GRAPH, &t);
        s.batch_norm = 1;
        s.learn_eps = 1;
        s.masked = 1;
        check_arch("gin bn+eps+masks", s, &t, 0);
        check_arch("gin bn+eps+masks sparse", s, &t, 1);
    }
    toy_free(&t);
}

static void test_masked_gcn_and_pruning(void) {
    toy t;
    fgl_model_spec s;
    fgl_model m;
    fgl_gnn_graph g;
    fgl_tape tp;
    fgl_forward a, b;
    fgl_error err;
    int i, masks = 0, k;
    float *keep;
    toy_make(&t, 9, 4, 3, 1, 6);
    s = small_spec(FGL_ARCH_GCN, FGL_TASK_NODE, &t);
    s.masked = 1;
    check_arch("gcn masked", s, &t, 0);
    fgl_model_init(&m, &s, 1, &err);
    for (i = 0; i < m.params.n; i++) {
        const fgl_slice *sl = &m.params.slices[i];
        if (sl->groups & FGL_G_MASK) {
            const float *v = fgl_params_data(&m.params, i);
            masks++;
            FT_CHECK(sl->trainable && v[0] == 1.0f, "mask '%s' must be trainable and start at 1", sl->name);
        }
    }
    FT_CHECK(masks == 3, "two GCN layers and the classifier carry masks, got %d", masks);
    fgl_gnn_graph_make(&g, &t.adj, NULL, t.x, NULL, t.f, NULL, 0, NULL, 0, &s, &err);
    fgl_tape_init(&tp);
    /* masks of 5e-4 (below the 1e-3 pruning threshold) act as 0 in evaluation */
    k = fgl_params_find(&m.params, "conv0.mask");
    keep = fgl_params_data(&m.params, k);
    for (i = 0; i < 4 * 5; i++) keep[i] = 5e-4f;
    fgl_model_forward(&m, &tp, &g, 0, NULL, &a);
    {
        float *w = fgl_params_data(&m.params, fgl_params_find(&m.params, "conv0.w"));
        float *copy = (float *)malloc(sizeof(float) * 20);
        float *la = (float *)malloc(sizeof(float) * (size_t)a.logits->rows * a.logits->cols);
        memcpy(la, a.logits->val, sizeof(float) * (size_t)a.logits->rows * a.logits->cols);
        memcpy(copy, w, sizeof(float) * 20);
        for (i = 0; i < 20; i++) {
            w[i] = 0.0f;
            keep[i] = 1.0f;
        }
        fgl_tape_reset(&tp);
        fgl_model_forward(&m, &tp, &g, 0, NULL, &b);
        FT_CHECK(memcmp(la, b.logits->val, sizeof(float) * (size_t)b.logits->rows * b.logits->cols) == 0,
                 "pruned masks must equal zero weights in evaluation");
        free(copy);
        free(la);
    }
    fgl_tape_free(&tp);
    fgl_gnn_graph_free(&g);
    fgl_model_free(&m);
    toy_free(&t);
}

/* The same model on dense and sparse copies of the same features gives the
 * same logits (up to float summation order). */
static void test_dense_sparse_agree(void) {
    toy t;
    int arch;
    toy_make(&t, 10, 6, 3, 1, 11);
    for (arch = 0; arch < FGL_ARCH_COUNT; arch++) {
        fgl_model_spec s;
        fgl_model m;
        fgl_gnn_graph gd, gs;
        fgl_tape t1, t2;
        fgl_forward a, b;
        fgl_error err;
        double worst = 0;
        int i;
        if (arch == FGL_ARCH_FEDSTAR) continue;
        s = small_spec(arch, FGL_TASK_NODE, &t);
        fgl_model_init(&m, &s, 2, &err);
        fgl_gnn_graph_make(&gd, &t.adj, NULL, t.x, NULL, t.f, NULL, 0, NULL, 0, &s, &err);
        fgl_gnn_graph_make(&gs, &t.adj, NULL, NULL, &t.xs, t.f, NULL, 0, NULL, 0, &s, &err);
        fgl_tape_init(&t1);
        fgl_tape_init(&t2);
        fgl_model_forward(&m, &t1, &gd, 0, NULL, &a);
        fgl_model_forward(&m, &t2, &gs, 0, NULL, &b);
        FT_CHECK(a.logits && b.logits, "%s: forward failed: %s %s", fgl_arch_name(arch), t1.err.msg, t2.err.msg);
        if (a.logits && b.logits)
            for (i = 0; i < a.logits->rows * a.logits->cols; i++)
                worst = fmax(worst, fabs(a.logits->val[i] - b.logits->val[i]));
        FT_CHECK(worst < 1e-5, "%s: dense and sparse inputs differ by %g", fgl_arch_name(arch), worst);
        fgl_tape_free(&t1);
        fgl_tape_free(&t2);
        fgl_gnn_graph_free(&gd);
        fgl_gnn_graph_free(&gs);
        fgl_model_free(&m);
    }
    toy_free(&t);
}

static void test_spec_errors(void) {
    fgl_model_spec s = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 10, 3);
    fgl_model m;
    fgl_error err;
    s.layers = 0;
    FT_CHECK(fgl_model_init(&m, &s, 1, &err) == FGL_ERR_ARG && strstr(err.msg, "layers"), "0 layers: %s", err.msg);
    s = fgl_model_spec_default(FGL_ARCH_GIN, FGL_TASK_GRAPH, 10, 3);
    s.head = FGL_HEAD_NONE;
    FT_CHECK(fgl_model_init(&m, &s, 1, &err) == FGL_ERR_ARG && strstr(err.msg, "head"), "graph without head: %s", err.msg);
    s = fgl_model_spec_default(FGL_ARCH_GAT, FGL_TASK_NODE, 10, 3);
    s.hidden = 10;
    s.heads = 3;
    FT_CHECK(fgl_model_init(&m, &s, 1, &err) == FGL_ERR_ARG, "hidden not a multiple of heads");
    s = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 10, 3);
    s.dropout = 1.0f;
    FT_CHECK(fgl_model_init(&m, &s, 1, &err) == FGL_ERR_ARG, "dropout 1");
    { /* a graph with the wrong feature width is a clear error */
        toy t;
        fgl_gnn_graph g;
        toy_make(&t, 6, 3, 2, 1, 1);
        s = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 5, 2);
        FT_CHECK(fgl_gnn_graph_make(&g, &t.adj, NULL, t.x, NULL, t.f, NULL, 0, NULL, 0, &s, &err) == FGL_ERR_SHAPE &&
                     strstr(err.msg, "features"), "feature width mismatch: %s", err.msg);
        toy_free(&t);
    }
    { /* a GCN matrix of another size (an unbuilt cache: 0 x 0) is an error, not a product out of bounds */
        toy t;
        fgl_gnn_graph g;
        fgl_csr none;
        memset(&none, 0, sizeof none);
        toy_make(&t, 6, 3, 2, 1, 1);
        s = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, t.f, 2);
        FT_CHECK(fgl_gnn_graph_make(&g, &t.adj, &none, t.x, NULL, t.f, NULL, 0, NULL, 0, &s, &err) == FGL_ERR_SHAPE &&
                     strstr(err.msg, "GCN matrix"), "empty GCN matrix: %s", err.msg);
        fgl_gnn_graph_free(&g);
        toy_free(&t);
    }
}

static void test_save_load(void) {
    fgl_model_spec s = fgl_model_spec_default(FGL_ARCH_GIN, FGL_TASK_GRAPH, 7, 2);
    fgl_model a, b;
    fgl_error err;
    char path[64];
    FILE *f;
    s.batch_norm = 1;
    s.masked = 1;
    s.norm_rep = 1;
    fgl_model_init(&a, &s, 4, &err);
    memset(&b, 0, sizeof b);
    snprintf(path, sizeof path, "/tmp/fgl_test_model_%lx.bin", (unsigned long)time(NULL) ^ (unsigned long)(uintptr_t)&a);
    FT_CHECK(fgl_model_save(&a, path, &err) == FGL_OK, "save: %s", err.msg);
    FT_CHECK(fgl_model_load(&b, path, &err) == FGL_OK, "load: %s", err.msg);
    FT_CHECK(fgl_params_same_layout(&a.params, &b.params) &&
                 memcmp(a.params.data, b.params.data, sizeof(float) * a.params.size) == 0 &&
                 memcmp(&a.spec, &b.spec, sizeof a.spec) == 0, "loaded model differs");
    f = fopen(path, "r+b"); /* truncate the file: loading must fail cleanly and keep b */
    if (f) {
        fclose(f);
        f = fopen(path, "wb");
        fputs("FGLM", f);
        fclose(f);
    }
    FT_CHECK(fgl_model_load(&b, path, &err) == FGL_ERR_FORMAT && strstr(err.msg, path), "truncated: %s", err.msg);
    FT_CHECK(b.params.size == a.params.size, "a failed load must leave the model as it was");
    { /* a version-2 file (before norm_rep) still loads, with norm_rep 0 */
        fgl_bytes by;
        size_t mark;
        int ints[15] = {FGL_ARCH_GIN, FGL_TASK_GRAPH, 7, 64, 2, 3, 0, FGL_HEAD_MLP, 1, 1, 0, 8, 2, 0, 1}, i;
        float fl[7] = {0.5f, 0.0f, 0.1f, 0.5f, 1e-3f, 0.1f, 1e-5f};
        fgl_bytes_init(&by);
        fgl_frame_begin(&by, "FGLM", 2u, &mark);
        for (i = 0; i < 15; i++) fgl_bytes_put_u32(&by, (uint32_t)ints[i]);
        fgl_bytes_put_f32s(&by, fl, 7);
        fgl_params_write(&a.params, &by);
        fgl_frame_end(&by, mark);
        FT_CHECK(fgl_file_write(path, by.data, by.len, &err) == FGL_OK, "write: %s", err.msg);
        fgl_bytes_free(&by);
        FT_CHECK(fgl_model_load(&b, path, &err) == FGL_OK, "version 2: %s", err.msg);
        FT_CHECK(b.spec.norm_rep == 0 && b.spec.masked == 1 && memcmp(a.params.data, b.params.data, sizeof(float) * a.params.size) == 0,
                 "version 2 file read wrongly");
    }
    { /* version 4: residual and norm saved and read back; a version-3 file (before them) reads them as 0 */
        fgl_model_spec r = fgl_model_spec_default(FGL_ARCH_SAGE, FGL_TASK_NODE, 7, 2);
        fgl_model c;
        fgl_bytes by;
        size_t mark;
        int ints[16] = {FGL_ARCH_GCN, FGL_TASK_NODE, 7, 16, 2, 2, 0, FGL_HEAD_LINEAR, 0, 0, 0, 8, 2, 0, 0, 0}, i;
        float fl[7] = {0.5f, 0.0f, 0.1f, 0.5f, 1e-3f, 0.1f, 1e-5f};
        r.hidden = 16;
        r.residual = 1;
        r.norm = FGL_NORM_BATCH;
        FT_CHECK(fgl_model_init(&c, &r, 5, &err) == FGL_OK, "init: %s", err.msg);
        fgl_params_fill(&c.params, c.conv[1].nrm_var, 2.5f); /* statistics travel too */
        FT_CHECK(fgl_model_save(&c, path, &err) == FGL_OK, "save: %s", err.msg);
        FT_CHECK(fgl_model_load(&b, path, &err) == FGL_OK, "load version 4: %s", err.msg);
        FT_CHECK(fgl_params_same_layout(&c.params, &b.params) &&
                     memcmp(c.params.data, b.params.data, sizeof(float) * c.params.size) == 0 &&
                     memcmp(&c.spec, &b.spec, sizeof c.spec) == 0 && b.spec.residual == 1 && b.spec.norm == FGL_NORM_BATCH,
                 "version 4: loaded model differs");
        fgl_model_free(&c);
        r = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 7, 2);
        r.hidden = 16;
        fgl_model_init(&c, &r, 6, &err);
        fgl_bytes_init(&by);
        fgl_frame_begin(&by, "FGLM", 3u, &mark);
        for (i = 0; i < 16; i++) fgl_bytes_put_u32(&by, (uint32_t)ints[i]);
        fgl_bytes_put_f32s(&by, fl, 7);
        fgl_params_write(&c.params, &by);
        fgl_frame_end(&by, mark);
        FT_CHECK(fgl_file_write(path, by.data, by.len, &err) == FGL_OK, "write: %s", err.msg);
        fgl_bytes_free(&by);
        FT_CHECK(fgl_model_load(&b, path, &err) == FGL_OK, "version 3: %s", err.msg);
        FT_CHECK(b.spec.residual == 0 && b.spec.norm == FGL_NORM_NONE && b.spec.hidden == 16 &&
                     memcmp(c.params.data, b.params.data, sizeof(float) * c.params.size) == 0,
                 "version 3 file read wrongly");
        fgl_model_free(&c);
    }
    remove(path);
    fgl_model_free(&a);
    fgl_model_free(&b);
}

/* The bytes of a saved model with spec field `field` (0..14: the ints of
 * fgl_model_write, 15..21: its floats) replaced by `bits`, and the frame's
 * checksum recomputed: FNV-1a guards against accidents, not forgers. */
static void forge_model(const fgl_bytes *good, int field, uint32_t bits, const char *path) {
    unsigned char *b = (unsigned char *)malloc(good->len);
    size_t at = 16 + 4 * (size_t)field, n = good->len - 8, k;
    uint64_t sum;
    FILE *f;
    memcpy(b, good->data, good->len);
    for (k = 0; k < 4; k++) b[at + k] = (unsigned char)(bits >> (8 * k));
    sum = fgl_checksum64(b + 8, n - 8);
    for (k = 0; k < 8; k++) b[n + k] = (unsigned char)(sum >> (8 * k));
    f = fopen(path, "wb");
    if (f) {
        fwrite(b, 1, good->len, f);
        fclose(f);
    }
    free(b);
}

/* Issue 16: a 203-byte model file with a valid checksum and forged sizes
 * made fgl_model_read build (allocate and initialise) the model the spec
 * announced, 11.5 GB and 36 s, before comparing it with the payload. The
 * spec must be checked, and its parameter count compared with the bytes
 * left, before anything is built: each forged file fails fast, allocates
 * nothing large, and leaves the model it was loaded into as it was. */
static void test_forged_model_file(void) {
    fgl_model_spec s = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 3, 2);
    fgl_model a, b;
    fgl_error err;
    fgl_bytes good;
    size_t mark;
    char path[64];
    float nan_f = NAN;
    uint32_t nan_bits;
    int i, rc;
    static const struct {
        int field;
        uint32_t bits;
        const char *needle;
    } forged[] = {
        {2, 1u << 20, "implies"},           /* in_dim 2^20: 4M floats of a 46-float file */
        {3, 1u << 24, "implies"},           /* hidden 2^24: 2^48 floats */
        {2, 1u << 30, "in_dim"},            /* beyond the dimension cap */
        {3, 0x80000000u, "hidden"},         /* negative */
        {5, 1000u, "layers"},               /* 1000 layers */
        {14, 7u, "masked = 7"},             /* a flag that is not 0 or 1 */
        {15, 2u, "norm_rep = 2"},           /* the flag of version 3 */
        {23, 2u, "residual = 2"},           /* version 4's two ints, after the 7 floats */
        {24, 9u, "norm = 9"},
    };
    memcpy(&nan_bits, &nan_f, 4);
    s.hidden = 4;
    fgl_model_init(&a, &s, 4, &err);
    fgl_bytes_init(&good);
    fgl_frame_begin(&good, "FGLM", FGL__MODEL_VERSION, &mark);
    fgl_model_write(&a, &good);
    fgl_frame_end(&good, mark);
    snprintf(path, sizeof path, "/tmp/fgl_test_forged_%lx.bin", (unsigned long)time(NULL) ^ (unsigned long)(uintptr_t)&a);
    forge_model(&good, 0, 0, path); /* field 0 = arch GCN = 0: the file unchanged */
    memset(&b, 0, sizeof b);
    FT_CHECK(fgl_model_load(&b, path, &err) == FGL_OK, "the unforged file: %s", err.msg);
    for (i = 0; i < (int)(sizeof forged / sizeof forged[0]); i++) {
        double t0;
        forge_model(&good, forged[i].field, forged[i].bits, path);
        ft_alloc_reset();
        t0 = fgl_now();
        rc = fgl_model_load(&b, path, &err);
        FT_CHECK(rc == FGL_ERR_FORMAT && strstr(err.msg, forged[i].needle) && strstr(err.msg, path),
                 "field %d = %u: %s (%s)", forged[i].field, (unsigned)forged[i].bits, fgl_result_name(rc), err.msg);
        FT_CHECK(ft_alloc_largest <= ((size_t)64 << 10) && fgl_now() - t0 < 1.0,
                 "field %d: allocated %zu bytes at once in %.2f s", forged[i].field, ft_alloc_largest, fgl_now() - t0);
        FT_CHECK(fgl_params_same_layout(&a.params, &b.params) &&
                     memcmp(a.params.data, b.params.data, sizeof(float) * a.params.size) == 0 &&
                     memcmp(&a.spec, &b.spec, sizeof a.spec) == 0,
                 "field %d: a failed load changed the model", forged[i].field);
    }
    /* a spec float that is not finite */
    forge_model(&good, 16 + 6, nan_bits, path); /* bn_eps: after the 16 ints of version 3 */
    rc = fgl_model_load(&b, path, &err);
    FT_CHECK(rc == FGL_ERR_FORMAT && strstr(err.msg, "bn_eps"), "NaN bn_eps: %s (%s)", fgl_result_name(rc), err.msg);
    remove(path);
    fgl_bytes_free(&good);
    fgl_model_free(&a);
    fgl_model_free(&b);
}

/* Short training runs that must reach a meaningful accuracy: on fgl's
 * synthetic benchmarks (always) and on the real datasets (when present;
 * examples/gcn_cora.c and examples/gin_tu.c measure the published figures). */

/* A 2-layer model of architecture arch (hidden 16, input dropout 0.5; Adam,
 * lr 0.01, weight decay 5e-4) trained full-batch on d's training nodes for
 * `epochs` epochs; returns the accuracy on d's test nodes, or -1 after a
 * failed check. */
static double node_train_test(fgl_node_data *d, int arch, int epochs) {
    fgl_error err;
    fgl_model_spec s;
    fgl_model m;
    fgl_gnn_graph g;
    fgl_optim o;
    fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
    fgl_tape t;
    fgl_rng r;
    unsigned char *tr, *te;
    int i, e, ok = 1;
    double acc = -1;
    tr = (unsigned char *)malloc((size_t)d->n_nodes);
    te = (unsigned char *)malloc((size_t)d->n_nodes);
    for (i = 0; i < d->n_nodes; i++) {
        tr[i] = d->split[i] == FGL_SPLIT_TRAIN;
        te[i] = d->split[i] == FGL_SPLIT_TEST;
    }
    s = fgl_model_spec_default(arch, FGL_TASK_NODE, d->n_feat, d->n_classes);
    s.hidden = 16;
    s.head = FGL_HEAD_NONE;
    s.input_dropout = 0.5f;
    if (fgl_model_init(&m, &s, 1, &err) != FGL_OK) {
        FT_CHECK(0, "model: %s", err.msg);
        free(tr);
        free(te);
        return -1;
    }
    if (fgl_gnn_graph_from_node_data(&g, d, &s, &err) != FGL_OK) {
        FT_CHECK(0, "graph: %s", err.msg);
        fgl_model_free(&m);
        free(tr);
        free(te);
        return -1;
    }
    oc.lr = 0.01f;
    oc.weight_decay = 5e-4f;
    fgl_optim_init(&o, oc, &m.params);
    fgl_tape_init(&t);
    fgl_rng_init(&r, 1, 1);
    for (e = 0; e < epochs && ok; e++) {
        fgl_forward out;
        fgl_tape_reset(&t);
        fgl_params_zero_grad(&m.params);
        fgl_model_forward(&m, &t, &g, 1, &r, &out);
        ok = fgl_tape_backward(&t, fgl_op_cross_entropy(&t, out.logits, d->y, tr)) == FGL_OK;
        FT_CHECK(ok, "epoch %d: %s", e, t.err.msg);
        fgl_optim_step(&o, &m.params);
    }
    if (ok) acc = fgl_model_accuracy(&m, &t, &g, d->y, te, NULL);
    free(tr);
    free(te);
    fgl_tape_free(&t);
    fgl_optim_free(&o);
    fgl_gnn_graph_free(&g);
    fgl_model_free(&m);
    return acc;
}

static void test_gcn_synth_short(void) {
    /* fgl_synth_node's defaults: 3000 nodes, 7 classes, features that alone
     * classify moderately, homophilous edges. A GCN must beat the MLP on the
     * same features by a wide margin: the graph has to be used. */
    fgl_node_data d;
    fgl_error err;
    fgl_synth_node_config cfg = fgl_synth_node_default();
    double gcn, mlp;
    if (ft_quick()) cfg.n_nodes = 1000; /* memory checks need no more */
    if (fgl_synth_node(&cfg, 7, &d, NULL, &err) != FGL_OK) {
        FT_CHECK(0, "synth_node: %s", err.msg);
        return;
    }
    fgl_split_nodes_random(&d, 0.2, 0.2, 7, NULL);
    gcn = node_train_test(&d, FGL_ARCH_GCN, ft_quick() ? 10 : 100);
    mlp = node_train_test(&d, FGL_ARCH_MLP, ft_quick() ? 10 : 100);
    printf("#   synth-node, %d epochs: GCN %.4f, MLP %.4f test accuracy\n", ft_quick() ? 10 : 100, gcn, mlp);
    FT_CHECK(gcn >= 0 && mlp >= 0, "training failed");
    if (!ft_quick()) { /* quick runs (ASan, valgrind) check memory safety only */
        FT_CHECK(gcn >= 0.75, "GCN test accuracy %.4f", gcn);
        FT_CHECK(gcn >= mlp + 0.1, "GCN %.4f does not beat the MLP %.4f by 0.1", gcn, mlp);
    }
    fgl_node_data_free(&d);
}

static void test_gcn_cora_short(void) {
    fgl_node_data d;
    fgl_error err;
    double acc;
    FT_NEED_DATA("node/Cora/Cora.edges");
    if (fgl_load_node(ft_data_path("node/Cora"), "Cora", &d, &err) != FGL_OK) {
        FT_CHECK(0, "load Cora: %s", err.msg);
        return;
    }
    fgl_node_data_normalize_features(&d);
    acc = node_train_test(&d, FGL_ARCH_GCN, 100);
    /* 7 classes, the largest holds 30% of the nodes: 0.75 is far above chance */
    FT_CHECK(acc >= 0.75, "GCN on Cora after 100 epochs: test accuracy %.4f", acc);
    fgl_node_data_free(&d);
}

/* GIN (batch norm; Adam, lr 0.01) on s with one-hot node labels as
 * features, one stratified 80/20 split (seed 3), batches of 64; returns the
 * test accuracy after `epochs` epochs, or -1 after a failed check. */
static double gin_train_test(fgl_graph_set *s, int epochs) {
    fgl_error err;
    fgl_model_spec spec;
    fgl_model m;
    fgl_optim o;
    fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
    fgl_tape t;
    fgl_rng r;
    int *train, *test, n_tr, n_te, e, i0, ok = 1;
    double correct = 0;
    if (fgl_graph_set_features(s, FGL_FEAT_NODE_LABELS, 0, &err) != FGL_OK) {
        FT_CHECK(0, "features: %s", err.msg);
        return -1;
    }
    fgl_split_graphs_stratified(s, 0.8, 0.0, 3, NULL);
    train = (int *)malloc(sizeof(int) * (size_t)s->n_graphs);
    test = (int *)malloc(sizeof(int) * (size_t)s->n_graphs);
    n_tr = fgl_split_indices(s->split, s->n_graphs, FGL_SPLIT_TRAIN, train);
    n_te = fgl_split_indices(s->split, s->n_graphs, FGL_SPLIT_TEST, test);
    spec = fgl_model_spec_default(FGL_ARCH_GIN, FGL_TASK_GRAPH, s->n_feat, s->n_classes);
    spec.batch_norm = 1;
    if (fgl_model_init(&m, &spec, 1, &err) != FGL_OK) {
        FT_CHECK(0, "model: %s", err.msg);
        free(train);
        free(test);
        return -1;
    }
    oc.lr = 0.01f;
    fgl_optim_init(&o, oc, &m.params);
    fgl_tape_init(&t);
    fgl_rng_init(&r, 1, 2);
    for (e = 0; e < epochs && ok; e++) {
        fgl_rng_shuffle(&r, train, n_tr);
        for (i0 = 0; i0 < n_tr && ok; i0 += 64) {
            fgl_batch b;
            fgl_gnn_graph g;
            fgl_forward out;
            int nb = n_tr - i0 < 64 ? n_tr - i0 : 64;
            fgl_batch_init(&b);
            ok = fgl_batch_make(s, train + i0, nb, &b, &err) == FGL_OK &&
                 fgl_gnn_graph_from_batch(&g, &b, &spec, &err) == FGL_OK;
            FT_CHECK(ok, "batch: %s", err.msg);
            if (!ok) {
                fgl_batch_free(&b);
                break;
            }
            fgl_tape_reset(&t);
            fgl_params_zero_grad(&m.params);
            fgl_model_forward(&m, &t, &g, 1, &r, &out);
            ok = fgl_tape_backward(&t, fgl_op_cross_entropy(&t, out.logits, b.y, NULL)) == FGL_OK;
            FT_CHECK(ok, "%s", t.err.msg);
            fgl_optim_step(&o, &m.params);
            fgl_gnn_graph_free(&g);
            fgl_batch_free(&b);
        }
    }
    for (i0 = 0; i0 < n_te && ok; i0 += 256) {
        fgl_batch b;
        fgl_gnn_graph g;
        int nb = n_te - i0 < 256 ? n_te - i0 : 256;
        fgl_batch_init(&b);
        ok = fgl_batch_make(s, test + i0, nb, &b, &err) == FGL_OK && fgl_gnn_graph_from_batch(&g, &b, &spec, &err) == FGL_OK;
        FT_CHECK(ok, "batch: %s", err.msg);
        if (ok) {
            correct += fgl_model_accuracy(&m, &t, &g, b.y, NULL, NULL) * nb;
            fgl_gnn_graph_free(&g);
        }
        fgl_batch_free(&b);
    }
    free(train);
    free(test);
    fgl_tape_free(&t);
    fgl_optim_free(&o);
    fgl_model_free(&m);
    return ok ? correct / n_te : -1;
}

/* GIN on fgl_synth_graphs' defaults: 600 graphs in 3 balanced classes that
 * differ in structure only (random, hubs, triangles), node labels derived
 * from degrees, 5% of the graph labels noise. */
static void test_gin_synth_short(void) {
    fgl_graph_set s;
    fgl_error err;
    fgl_synth_graphs_config cfg = fgl_synth_graphs_default();
    double acc;
    if (ft_quick()) cfg.n_graphs = 150; /* memory checks need no more */
    if (fgl_synth_graphs(&cfg, 11, &s, &err) != FGL_OK) {
        FT_CHECK(0, "synth_graphs: %s", err.msg);
        return;
    }
    acc = gin_train_test(&s, ft_quick() ? 2 : 15);
    printf("#   synth-graphs, %d epochs: GIN %.4f test accuracy (3 classes)\n", ft_quick() ? 2 : 15, acc);
    FT_CHECK(acc >= 0 && (ft_quick() || acc >= 0.8), "GIN on synth-graphs after 15 epochs: test accuracy %.4f (chance 0.33)", acc);
    fgl_graph_set_free(&s);
}

/* GIN on PROTEINS, 15 epochs: the majority class is 59.6% of the graphs; a
 * working GIN is well above it (the full 10-fold protocol is
 * examples/gin_tu.c). */
static void test_gin_proteins_short(void) {
    fgl_graph_set s;
    fgl_error err;
    double acc;
    FT_NEED_DATA("tu/PROTEINS/PROTEINS_A.txt");
    if (fgl_load_tu(ft_data_path("tu/PROTEINS"), "PROTEINS", &s, &err) != FGL_OK) {
        FT_CHECK(0, "load PROTEINS: %s", err.msg);
        return;
    }
    acc = gin_train_test(&s, ft_quick() ? 2 : 15);
    FT_CHECK(acc >= 0 && (ft_quick() || acc >= 0.68), "GIN on PROTEINS after 15 epochs: test accuracy %.4f (majority 0.596)", acc);
    fgl_graph_set_free(&s);
}

/* A large batch (past FGL__G_PAR_ENTRIES) and its A + I are built in
 * parallel when threads are free: the same batch, the same A + I (rows
 * sorted, one self loop each, an existing one replaced) and the same first
 * error at 1 and 2 threads. */
static int same_ints(const int *a, const int *b, size_t n) { return n == 0 || !memcmp(a, b, sizeof(int) * n); }

/* GIN's ReLUs fused into its products (fgl_op_linear_relu: after every
 * layer but the last when no dropout follows, inside the MLP without batch
 * norm, in the MLP head) give the bits of the separate nodes: a dropout
 * of 1e-30 keeps every value and scales by exactly 1 but takes the unfused
 * path (fgl_op_relu_dropout), so a training step with it and with dropout
 * 0 must agree bit for bit, logits and every parameter's gradient, with
 * and without batch norm, on a batch large enough for parallel kernels. */
/* Synthetic graphs (seed) with one-hot node labels as features, the first
 * 300 of them in one batch b; 0 (and a failed check) when any step fails. */
static int synth_batch(uint64_t seed, fgl_graph_set *s, fgl_batch *b) {
    fgl_error err;
    int ids[300], i, n_ids;
    fgl_batch_init(b);
    if (fgl_synth_graphs(NULL, seed, s, &err) != FGL_OK) {
        FT_CHECK(0, "synthetic graphs: %s", err.msg);
        return 0;
    }
    n_ids = s->n_graphs < 300 ? s->n_graphs : 300;
    for (i = 0; i < n_ids; i++) ids[i] = i;
    if (fgl_graph_set_features(s, FGL_FEAT_NODE_LABELS, 0, &err) != FGL_OK || fgl_batch_make(s, ids, n_ids, b, &err) != FGL_OK) {
        FT_CHECK(0, "synthetic batch: %s", err.msg);
        fgl_graph_set_free(s);
        return 0;
    }
    return 1;
}

static void test_gin_fused_relu_bits(void) {
    fgl_graph_set s;
    fgl_error err;
    fgl_batch b;
    fgl_gnn_graph g;
    int bn;
    if (!synth_batch(11, &s, &b)) return;
    memset(&g, 0, sizeof g);
    for (bn = 0; bn < 2; bn++) {
        fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GIN, FGL_TASK_GRAPH, s.n_feat, s.n_classes);
        fgl_model m;
        float *logits[2] = {NULL, NULL}, *grads[2] = {NULL, NULL};
        size_t n_logits = 0;
        int v, ok = 1;
        spec.batch_norm = bn;
        spec.head = FGL_HEAD_MLP;
        if (fgl_gnn_graph_from_batch(&g, &b, &spec, &err) != FGL_OK || fgl_model_init(&m, &spec, 3, &err) != FGL_OK) {
            FT_CHECK(0, "%s", err.msg);
            break;
        }
        for (v = 0; v < 2; v++) { /* v 0: dropout 0 (fused), 1: dropout 1e-30 (separate ReLU nodes) */
            fgl_tape t;
            fgl_rng r;
            fgl_forward out;
            fgl_tape_init(&t);
            fgl_rng_init(&r, 5, 0);
            m.spec.dropout = v ? 1e-30f : 0.0f;
            fgl_params_zero_grad(&m.params);
            ok &= fgl_model_forward(&m, &t, &g, 1, &r, &out) == FGL_OK && out.logits &&
                  fgl_tape_backward(&t, fgl_op_cross_entropy(&t, out.logits, b.y, NULL)) == FGL_OK;
            if (ok) {
                n_logits = (size_t)out.logits->rows * out.logits->cols;
                logits[v] = (float *)malloc(sizeof(float) * n_logits);
                grads[v] = (float *)malloc(sizeof(float) * m.params.size);
                if (logits[v]) memcpy(logits[v], out.logits->val, sizeof(float) * n_logits);
                if (grads[v]) memcpy(grads[v], m.params.grad, sizeof(float) * m.params.size);
            }
            fgl_tape_free(&t);
        }
        FT_CHECK(ok && logits[0] && logits[1] && grads[0] && grads[1], "batch norm %d: both training steps ran", bn);
        if (ok && logits[0] && logits[1] && grads[0] && grads[1]) {
            FT_CHECK(memcmp(logits[0], logits[1], sizeof(float) * n_logits) == 0, "batch norm %d: the same logits, bit for bit", bn);
            FT_CHECK(memcmp(grads[0], grads[1], sizeof(float) * m.params.size) == 0,
                     "batch norm %d: the same gradients, bit for bit", bn);
        }
        for (v = 0; v < 2; v++) {
            free(logits[v]);
            free(grads[v]);
        }
        fgl_model_free(&m);
        fgl_gnn_graph_free(&g);
        memset(&g, 0, sizeof g);
    }
    fgl_batch_free(&b);
    fgl_graph_set_free(&s);
}

/* The backward pass releases each intermediate node's gradient once it has
 * gone through the node, and later gradients take those buffers: a GIN
 * training step (batch norm, MLP head) gives the same parameter gradients,
 * bit for bit, as with every gradient kept (t.retain_grads), also on a
 * second step on the reset tape (where every buffer it takes holds the
 * last step's values); afterwards only leaves hold gradients, and the
 * backward pass grows the arena by at most half of what keeping them all
 * takes. */
static void test_grad_release(void) {
    fgl_graph_set s;
    fgl_error err;
    fgl_batch b;
    fgl_gnn_graph g;
    fgl_model_spec spec;
    fgl_model m;
    float *grads[3] = {NULL, NULL, NULL};
    size_t grown[3] = {0, 0, 0};
    int i, v, ok = 1, leaves_only = 1;
    fgl_tape t;
    if (!synth_batch(12, &s, &b)) return;
    memset(&g, 0, sizeof g);
    spec = fgl_model_spec_default(FGL_ARCH_GIN, FGL_TASK_GRAPH, s.n_feat, s.n_classes);
    spec.batch_norm = 1;
    spec.head = FGL_HEAD_MLP;
    if (fgl_gnn_graph_from_batch(&g, &b, &spec, &err) != FGL_OK || fgl_model_init(&m, &spec, 3, &err) != FGL_OK) {
        FT_CHECK(0, "%s", err.msg);
        fgl_batch_free(&b);
        fgl_graph_set_free(&s);
        return;
    }
    fgl_tape_init(&t);
    for (v = 0; v < 3; v++) { /* v 0: gradients kept; 1: released; 2: released, a second step on the reset tape */
        fgl_rng r;
        fgl_forward out;
        fgl_node *loss;
        size_t fwd;
        if (v < 2) {
            fgl_tape_free(&t);
            fgl_tape_init(&t);
        } else
            fgl_tape_reset(&t);
        t.retain_grads = v == 0;
        fgl_rng_init(&r, 5, 0);
        fgl_params_zero_grad(&m.params);
        ok &= fgl_model_forward(&m, &t, &g, 1, &r, &out) == FGL_OK && out.logits;
        loss = ok ? fgl_op_cross_entropy(&t, out.logits, b.y, NULL) : NULL;
        fwd = t.arena_total;
        ok &= loss && fgl_tape_backward(&t, loss) == FGL_OK;
        if (!ok) break;
        grown[v] = t.arena_total - fwd;
        grads[v] = (float *)malloc(sizeof(float) * m.params.size);
        if (grads[v]) memcpy(grads[v], m.params.grad, sizeof(float) * m.params.size);
        if (v > 0)
            for (i = 0; i < t.n_nodes; i++) leaves_only &= (t.nodes[i]->backward == NULL) || t.nodes[i]->grad == NULL;
    }
    FT_CHECK(ok && grads[0] && grads[1] && grads[2], "three training steps ran");
    if (ok && grads[0] && grads[1] && grads[2]) {
        FT_CHECK(memcmp(grads[0], grads[1], sizeof(float) * m.params.size) == 0,
                 "released gradients: the same parameter gradients, bit for bit");
        FT_CHECK(memcmp(grads[0], grads[2], sizeof(float) * m.params.size) == 0,
                 "a second step on the reset tape: the same parameter gradients, bit for bit");
        FT_CHECK(leaves_only, "after backward only leaves hold gradients");
        FT_CHECK(grown[1] * 2 <= grown[0] && grown[2] * 2 <= grown[0],
                 "backward grows the arena by %zu and %zu bytes, keeping every gradient by %zu", grown[1], grown[2],
                 grown[0]);
    }
    for (v = 0; v < 3; v++) free(grads[v]);
    fgl_tape_free(&t);
    fgl_model_free(&m);
    fgl_gnn_graph_free(&g);
    fgl_batch_free(&b);
    fgl_graph_set_free(&s);
}

static void test_large_batch_parallel(void) {
    fgl_graph_set s;
    fgl_error err;
    fgl_batch b[2];
    fgl_csr loops[2];
    fgl_gnn_graph g[2];
    int ids[600], n_ids, t, i, k, n_loops = 0, bad_at = -1;
    fgl_model_spec spec;
#ifdef _OPENMP
    int saved = omp_get_max_threads();
#endif
    if (fgl_synth_graphs(NULL, 11, &s, &err) != FGL_OK) {
        FT_CHECK(0, "synthetic graphs: %s", err.msg);
        return;
    }
    FT_CHECK(fgl_graph_set_features(&s, FGL_FEAT_NODE_LABELS, 0, &err) == FGL_OK, "%s", err.msg);
    spec = fgl_model_spec_default(FGL_ARCH_GIN, FGL_TASK_GRAPH, s.n_feat, s.n_classes);
    n_ids = s.n_graphs < 600 ? s.n_graphs : 600; /* the default set has 600 graphs */
    for (i = 0; i < n_ids; i++) ids[i] = (int)((7L * i) % s.n_graphs);
    memset(g, 0, sizeof g);
    memset(loops, 0, sizeof loops);
    for (t = 0; t < 2; t++) {
        fgl_csr *a = &loops[t];
#ifdef _OPENMP
        omp_set_num_threads(t + 1);
#endif
        fgl_batch_init(&b[t]);
        FT_CHECK(fgl_batch_make(&s, ids, n_ids, &b[t], &err) == FGL_OK, "%s", err.msg);
        /* the batch's adjacency with a self loop added on every fifth node */
        if (fgl_csr_init(a, b[t].adj.rows, b[t].adj.cols, b[t].adj.nnz + b[t].adj.rows / 5 + 1, 0) == FGL_OK) {
            int w = 0;
            for (i = 0; i < a->rows; i++) {
                int want = i % 5 == 0;
                for (k = b[t].adj.indptr[i]; k < b[t].adj.indptr[i + 1]; k++) {
                    if (want && b[t].adj.indices[k] > i) {
                        a->indices[w++] = i;
                        want = 0;
                    }
                    a->indices[w++] = b[t].adj.indices[k];
                }
                if (want) a->indices[w++] = i;
                a->indptr[i + 1] = w;
            }
            a->nnz = w;
            n_loops = w - b[t].adj.nnz;
        }
        FT_CHECK(fgl_gnn_graph_make(&g[t], a, NULL, b[t].x, NULL, b[t].n_feat, NULL, 0, b[t].offsets, b[t].n_graphs,
                                    &spec, &err) == FGL_OK, "%s", err.msg);
    }
#ifdef _OPENMP
    omp_set_num_threads(saved);
#endif
    FT_CHECK(b[0].adj.nnz + b[0].n_nodes >= 16384, "the batch is built on 2 threads (%d entries; 2 x the thread table's 8192 per thread)",
             b[0].adj.nnz + b[0].n_nodes);
    FT_CHECK(b[0].n_nodes == b[1].n_nodes && b[0].adj.nnz == b[1].adj.nnz &&
                 same_ints(b[0].adj.indptr, b[1].adj.indptr, (size_t)b[0].n_nodes + 1) &&
                 same_ints(b[0].adj.indices, b[1].adj.indices, (size_t)b[0].adj.nnz) &&
                 same_ints(b[0].offsets, b[1].offsets, (size_t)b[0].n_graphs + 1) &&
                 same_ints(b[0].graph_of_node, b[1].graph_of_node, (size_t)b[0].n_nodes) &&
                 same_ints(b[0].y, b[1].y, (size_t)b[0].n_graphs) && same_ints(b[0].ids, b[1].ids, (size_t)b[0].n_graphs) &&
                 !memcmp(b[0].x, b[1].x, sizeof(float) * (size_t)b[0].n_nodes * (size_t)b[0].n_feat),
             "the batch differs between 1 and 2 threads");
    FT_CHECK(fgl_csr_validate(&b[1].adj, NULL) == FGL_OK && b[1].offsets[b[1].n_graphs] == b[1].n_nodes,
             "a valid block-diagonal batch");
    for (i = 0; i < n_ids; i++) { /* each block is its graph, shifted */
        int gi = ids[i], lo = s.node_ptr[gi], at = b[1].offsets[i], v, ok = 1;
        for (v = lo; v < s.node_ptr[gi + 1] && ok; v++)
            for (k = 0; k < s.adj.indptr[v + 1] - s.adj.indptr[v]; k++)
                ok &= b[1].adj.indices[b[1].adj.indptr[v - lo + at] + k] == s.adj.indices[s.adj.indptr[v] + k] - lo + at;
        ok &= b[1].y[i] == s.y[gi];
        FT_CHECK(ok, "block %d is not graph %d shifted to node %d", i, gi, at);
        if (!ok) break;
    }
    FT_CHECK(n_loops > 0 && g[0].adj_loop.nnz == g[1].adj_loop.nnz &&
                 same_ints(g[0].adj_loop.indptr, g[1].adj_loop.indptr, (size_t)g[0].adj_loop.rows + 1) &&
                 same_ints(g[0].adj_loop.indices, g[1].adj_loop.indices, (size_t)g[0].adj_loop.nnz) &&
                 same_ints(g[0].loop_rows, g[1].loop_rows, (size_t)g[0].adj_loop.nnz),
             "A + I differs between 1 and 2 threads");
    FT_CHECK(g[1].adj_loop.nnz == loops[1].nnz - n_loops + loops[1].rows, "A + I: %d entries for %d edges, %d loops, %d nodes",
             g[1].adj_loop.nnz, loops[1].nnz, n_loops, loops[1].rows);
    for (i = 0; i < g[1].adj_loop.rows; i++) {
        int self = 0, sorted = 1;
        int w = loops[1].indptr[i];
        for (k = g[1].adj_loop.indptr[i]; k < g[1].adj_loop.indptr[i + 1]; k++) { /* the row's edges, i in its place */
            if (g[1].adj_loop.indices[k] != i) {
                while (w < loops[1].indptr[i + 1] && loops[1].indices[w] == i) w++;
                sorted &= w < loops[1].indptr[i + 1] && loops[1].indices[w++] == g[1].adj_loop.indices[k];
            }
            self += g[1].adj_loop.indices[k] == i;
            sorted &= k == g[1].adj_loop.indptr[i] || g[1].adj_loop.indices[k - 1] < g[1].adj_loop.indices[k];
            sorted &= g[1].loop_rows[k] == i;
        }
        FT_CHECK(self == 1 && sorted, "A + I row %d: %d self loops, sorted %d", i, self, sorted);
        if (self != 1 || !sorted) break;
    }
    for (t = 0; t < 2; t++) {
        fgl_gnn_graph_free(&g[t]);
        fgl_csr_free(&loops[t]);
        fgl_batch_free(&b[t]);
    }
    /* two edges that leave their graphs, in the batch's 101st and 401st graphs:
     * the 101st is reported, at either thread count */
    for (i = 0; i < 2; i++) {
        int gi = ids[i == 0 ? 400 : 100], e = s.adj.indptr[s.node_ptr[gi]];
        if (s.adj.indptr[s.node_ptr[gi] + 1] > e) {
            s.adj.indices[e] = s.node_ptr[gi + 1] % s.n_nodes;
            bad_at = gi;
        }
    }
    FT_CHECK(bad_at == ids[100], "graph %d has an edge to spoil", ids[100]);
    if (bad_at == ids[100]) {
        char msg[2][sizeof err.msg], want[64];
        snprintf(want, sizeof want, "leaves graph %d", ids[100]);
        for (t = 0; t < 2; t++) {
#ifdef _OPENMP
            omp_set_num_threads(t + 1);
#endif
            FT_CHECK(fgl_batch_make(&s, ids, n_ids, &b[t], &err) == FGL_ERR_FORMAT && b[t].offsets == NULL,
                     "an edge out of its graph: %s", err.msg);
            snprintf(msg[t], sizeof msg[t], "%s", err.msg);
        }
#ifdef _OPENMP
        omp_set_num_threads(saved);
#endif
        FT_CHECK(!strcmp(msg[0], msg[1]) && strstr(msg[1], want), "errors at 1 and 2 threads: '%s' and '%s'", msg[0], msg[1]);
    }
    fgl_graph_set_free(&s);
}

int main(void) {
    int rc;
    fgl_tape_init(&gc_tape);
    FT_RUN(test_gradients_node_models);
    FT_RUN(test_gradients_graph_models);
    FT_RUN(test_gradients_backbones);
    FT_RUN(test_backbone_layout);
    FT_RUN(test_normalized_embeddings);
    FT_RUN(test_gamlp_hops);
    FT_RUN(test_masked_gcn_and_pruning);
    FT_RUN(test_dense_sparse_agree);
    FT_RUN(test_spec_errors);
    FT_RUN(test_save_load);
    FT_RUN(test_forged_model_file);
    FT_RUN(test_gcn_synth_short);
    FT_RUN(test_gcn_cora_short);
    FT_RUN(test_large_batch_parallel);
    FT_RUN(test_gin_fused_relu_bits);
    FT_RUN(test_grad_release);
    FT_RUN(test_gin_synth_short);
    FT_RUN(test_gin_proteins_short);
    rc = ft_finish();
    fgl_tape_free(&gc_tape);
    return rc;
}
