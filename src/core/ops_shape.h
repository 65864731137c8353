#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Autodiff ops: shape, gathers and reductions                              */
/* ------------------------------------------------------------------------ */
/* The ops on the tape of src/core/tape.h: each op's declaration and
 * documentation here, its forward and backward below. */

/* Shape. */
FGLDEF fgl_node *fgl_op_concat_cols(fgl_tape *t, fgl_node *const *xs, int n);
FGLDEF fgl_node *fgl_op_concat2(fgl_tape *t, fgl_node *a, fgl_node *b);
FGLDEF fgl_node *fgl_op_slice_cols(fgl_tape *t, fgl_node *a, int col0, int ncols);
/* out row i = a row idx[i] (idx copied onto the tape). */
FGLDEF fgl_node *fgl_op_gather_rows(fgl_tape *t, fgl_node *a, const int *idx, int n);
/* out (out_rows x cols) row idx[i] += a row i. */
FGLDEF fgl_node *fgl_op_scatter_add_rows(fgl_tape *t, fgl_node *a, const int *idx, int out_rows);
/* Edge scores of a dot-product decoder: out (n x 1) row i = a row src[i] .
 * a row dst[i] (indices copied onto the tape; a pair may repeat, and src[i]
 * may equal dst[i]). */
FGLDEF fgl_node *fgl_op_edge_dot(fgl_tape *t, fgl_node *a, const int *src, const int *dst, int n);
/* Reductions over row groups: segment s is rows offsets[s] .. offsets[s+1]-1
 * (offsets copied onto the tape). Empty segments give 0. */
FGLDEF fgl_node *fgl_op_segment_sum(fgl_tape *t, fgl_node *a, const int *offsets, int nseg);
FGLDEF fgl_node *fgl_op_segment_mean(fgl_tape *t, fgl_node *a, const int *offsets, int nseg);
FGLDEF fgl_node *fgl_op_segment_max(fgl_tape *t, fgl_node *a, const int *offsets, int nseg);
/* Softmax down each column inside each segment (edge softmax of GAT when the
 * segments are CSR rows and a holds one score per edge and head). */
FGLDEF fgl_node *fgl_op_segment_softmax(fgl_tape *t, fgl_node *a, const int *offsets, int nseg);
FGLDEF fgl_node *fgl_op_sum_rows(fgl_tape *t, fgl_node *a);    /* 1 x cols */
FGLDEF fgl_node *fgl_op_mean_rows(fgl_tape *t, fgl_node *a);   /* 1 x cols */
FGLDEF fgl_node *fgl_op_sum(fgl_tape *t, fgl_node *a);         /* 1 x 1 */
FGLDEF fgl_node *fgl_op_mean(fgl_tape *t, fgl_node *a);        /* 1 x 1 */

/* fgl:implementation */
#include "../alone.h"
/* --- shape ops ---------------------------------------------------------------- */

/* Concatenation's backward: each input's block of columns of dy, rows in
 * parallel. The gradients are taken in input order before the loop and
 * each row handles the inputs in that order, so an input given twice is
 * written, then added to, as in one pass; a fresh gradient gets 0 + dy,
 * the bits of adding into zeros (-0 included) without zero-filling it. */
static void fgl__concat_bw(fgl_tape *t, fgl_node *y) {
    fgl_node **xs = (fgl_node **)y->s0;
    int n = y->i0, R = y->rows, C = y->cols, k, i, j;
    float **g = (float **)fgl__talloc(t, sizeof(float *) * (size_t)n);
    int *fresh = (int *)fgl__talloc(t, sizeof(int) * (size_t)n);
    if (!g || !fresh) return;
    for (k = 0; k < n; k++) g[k] = fgl__grad_w(t, xs[k], &fresh[k]);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) private(j, k) num_threads(fgl__threads_elem((size_t)R * (size_t)C))
#endif
    for (i = 0; i < R; i++) {
        const float *FGL__RESTRICT gy = y->grad + (size_t)i * C;
        for (k = 0; k < n; gy += xs[k]->cols, k++) {
            int c = xs[k]->cols;
            float *FGL__RESTRICT gk = g[k] ? g[k] + (size_t)i * c : NULL;
            if (!gk) continue;
            if (fresh[k])
                for (j = 0; j < c; j++) gk[j] = 0.0f + gy[j];
            else
                for (j = 0; j < c; j++) gk[j] += gy[j];
        }
    }
}

FGLDEF fgl_node *fgl_op_concat_cols(fgl_tape *t, fgl_node *const *xs, int n) {
    fgl_node *y, **saved;
    int k, i, R, cols = 0, need = 0;
    if (t->err.code) return NULL;
    if (n <= 0) return fgl_tape_fail(t, FGL_ERR_ARG, "concat: no inputs");
    for (k = 0; k < n; k++) {
        FGL__LIVE1("concat", xs[k]);
        if (xs[k]->rows != xs[0]->rows)
            return fgl_tape_fail(t, FGL_ERR_SHAPE, "concat: input %d has %d rows, input 0 has %d", k, xs[k]->rows,
                                 xs[0]->rows);
        cols += xs[k]->cols;
        need |= xs[k]->needs_grad;
    }
    y = fgl__node(t, "concat", xs[0]->rows, cols, fgl__concat_bw, NULL, NULL, NULL);
    if (!y) return NULL;
    saved = (fgl_node **)fgl__talloc(t, sizeof(fgl_node *) * (size_t)n);
    if (!saved) return NULL;
    memcpy(saved, xs, sizeof(fgl_node *) * (size_t)n);
    y->s0 = saved;
    y->i0 = n;
    y->needs_grad = need;
    R = y->rows;
    /* rows in parallel: each thread copies the rows the row loops around it give it */
#ifdef _OPENMP
#pragma omp parallel for schedule(static) private(k) num_threads(fgl__threads_elem((size_t)R * (size_t)cols))
#endif
    for (i = 0; i < R; i++) {
        float *yi = y->val + (size_t)i * cols;
        for (k = 0; k < n; yi += xs[k]->cols, k++)
            memcpy(yi, xs[k]->val + (size_t)i * xs[k]->cols, sizeof(float) * (size_t)xs[k]->cols);
    }
    return y;
}

FGLDEF fgl_node *fgl_op_concat2(fgl_tape *t, fgl_node *a, fgl_node *b) {
    fgl_node *xs[2];
    xs[0] = a;
    xs[1] = b;
    return fgl_op_concat_cols(t, xs, 2);
}

static void fgl__slice_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0];
    float *g = fgl__grad(t, a);
    int i;
    if (g)
        for (i = 0; i < y->rows; i++)
            fgl_axpy((size_t)y->cols, 1.0f, y->grad + (size_t)i * y->cols, g + (size_t)i * a->cols + y->i0);
}

FGLDEF fgl_node *fgl_op_slice_cols(fgl_tape *t, fgl_node *a, int col0, int ncols) {
    fgl_node *y;
    int i;
    FGL__LIVE1("slice_cols", a);
    if (col0 < 0 || ncols < 0 || col0 + ncols > a->cols)
        return fgl_tape_fail(t, FGL_ERR_SHAPE, "slice_cols: columns %d..%d of %d", col0, col0 + ncols, a->cols);
    y = fgl__node(t, "slice_cols", a->rows, ncols, fgl__slice_bw, a, NULL, NULL);
    if (!y) return NULL;
    y->i0 = col0;
    for (i = 0; i < a->rows; i++)
        memcpy(y->val + (size_t)i * ncols, a->val + (size_t)i * a->cols + col0, sizeof(float) * (size_t)ncols);
    return y;
}

static int *fgl__copy_ints(fgl_tape *t, const int *src, int n) {
    int *d = (int *)fgl__talloc(t, sizeof(int) * (size_t)FGL__MAX(n, 1));
    if (d && n) memcpy(d, src, sizeof(int) * (size_t)n);
    return d;
}

static void fgl__gather_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0];
    float *g = fgl__grad(t, a);
    const int *idx = (const int *)y->s0;
    int i;
    if (g)
        for (i = 0; i < y->rows; i++)
            fgl_axpy((size_t)y->cols, 1.0f, y->grad + (size_t)i * y->cols, g + (size_t)idx[i] * a->cols);
}

FGLDEF fgl_node *fgl_op_gather_rows(fgl_tape *t, fgl_node *a, const int *idx, int n) {
    fgl_node *y;
    int i, *saved;
    FGL__LIVE1("gather_rows", a);
    if (n < 0 || (n && !idx)) return fgl_tape_fail(t, FGL_ERR_ARG, "gather_rows: bad index list");
    for (i = 0; i < n; i++)
        if (idx[i] < 0 || idx[i] >= a->rows)
            return fgl_tape_fail(t, FGL_ERR_RANGE, "gather_rows: index %d is %d, rows %d", i, idx[i], a->rows);
    y = fgl__node(t, "gather_rows", n, a->cols, fgl__gather_bw, a, NULL, NULL);
    if (!y || !(saved = fgl__copy_ints(t, idx, n))) return NULL;
    y->s0 = saved;
    for (i = 0; i < n; i++)
        memcpy(y->val + (size_t)i * a->cols, a->val + (size_t)idx[i] * a->cols, sizeof(float) * (size_t)a->cols);
    return y;
}

/* d(a_s . a_d) / d a_s = a_d, and the other way round (a pair with s == d
 * gets both). Sequential over the edges: rows repeat. */
static void fgl__edge_dot_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0];
    float *g = fgl__grad(t, a);
    const int *src = (const int *)y->s0, *dst = src + y->rows;
    int i, C = a->cols;
    if (!g) return;
    for (i = 0; i < y->rows; i++) {
        float gy = y->grad[i];
        fgl_axpy((size_t)C, gy, a->val + (size_t)dst[i] * C, g + (size_t)src[i] * C);
        fgl_axpy((size_t)C, gy, a->val + (size_t)src[i] * C, g + (size_t)dst[i] * C);
    }
}

FGLDEF fgl_node *fgl_op_edge_dot(fgl_tape *t, fgl_node *a, const int *src, const int *dst, int n) {
    fgl_node *y;
    int i, k, C, *saved;
    FGL__LIVE1("edge_dot", a);
    if (n < 0 || (n && (!src || !dst))) return fgl_tape_fail(t, FGL_ERR_ARG, "edge_dot: bad edge list");
    for (i = 0; i < n; i++)
        if (src[i] < 0 || src[i] >= a->rows || dst[i] < 0 || dst[i] >= a->rows)
            return fgl_tape_fail(t, FGL_ERR_RANGE, "edge_dot: edge %d is (%d, %d), rows %d", i, src[i], dst[i],
                                 a->rows);
    y = fgl__node(t, "edge_dot", n, 1, fgl__edge_dot_bw, a, NULL, NULL);
    if (!y || !(saved = (int *)fgl__talloc(t, sizeof(int) * (size_t)FGL__MAX(2 * n, 1)))) return NULL;
    if (n) {
        memcpy(saved, src, sizeof(int) * (size_t)n);
        memcpy(saved + n, dst, sizeof(int) * (size_t)n);
    }
    y->s0 = saved;
    C = a->cols;
    for (i = 0; i < n; i++) {
        const float *u = a->val + (size_t)src[i] * C, *v = a->val + (size_t)dst[i] * C;
        double s = 0;
        for (k = 0; k < C; k++) s += (double)u[k] * v[k];
        y->val[i] = (float)s;
    }
    return y;
}

static void fgl__scatter_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0];
    float *g = fgl__grad(t, a);
    const int *idx = (const int *)y->s0;
    int i;
    if (g)
        for (i = 0; i < a->rows; i++)
            fgl_axpy((size_t)a->cols, 1.0f, y->grad + (size_t)idx[i] * a->cols, g + (size_t)i * a->cols);
}

FGLDEF fgl_node *fgl_op_scatter_add_rows(fgl_tape *t, fgl_node *a, const int *idx, int out_rows) {
    fgl_node *y;
    int i, *saved;
    FGL__LIVE1("scatter_add_rows", a);
    if (out_rows < 0 || (a->rows && !idx)) return fgl_tape_fail(t, FGL_ERR_ARG, "scatter_add_rows: bad index list");
    for (i = 0; i < a->rows; i++)
        if (idx[i] < 0 || idx[i] >= out_rows)
            return fgl_tape_fail(t, FGL_ERR_RANGE, "scatter_add_rows: index %d is %d, output rows %d", i, idx[i],
                                 out_rows);
    y = fgl__node(t, "scatter_add_rows", out_rows, a->cols, fgl__scatter_bw, a, NULL, NULL);
    if (!y || !(saved = fgl__copy_ints(t, idx, a->rows))) return NULL;
    y->s0 = saved;
    memset(y->val, 0, sizeof(float) * fgl__size(y));
    for (i = 0; i < a->rows; i++)
        fgl_axpy((size_t)a->cols, 1.0f, a->val + (size_t)i * a->cols, y->val + (size_t)idx[i] * a->cols);
    return y;
}

/* --- segment reductions -------------------------------------------------------- */

enum { FGL__SEG_SUM, FGL__SEG_MEAN, FGL__SEG_MAX };

static void fgl__segment_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0];
    float *g = fgl__grad(t, a);
    const int *off = (const int *)y->s0;
    int s, r, j, C = a->cols;
    if (!g) return;
    /* segments own disjoint rows (and max's arg rows lie in the segment):
     * segments in parallel */
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 16) private(r, j) num_threads(fgl__threads_elem((size_t)a->rows * (size_t)C))
#endif
    for (s = 0; s < y->rows; s++) {
        const float *gy = y->grad + (size_t)s * C;
        int cnt = off[s + 1] - off[s];
        if (y->i0 == FGL__SEG_MAX) {
            const int *arg = (const int *)y->s1 + (size_t)s * C;
            for (j = 0; j < C; j++)
                if (arg[j] >= 0) g[(size_t)arg[j] * C + j] += gy[j];
        } else {
            for (r = off[s]; r < off[s + 1]; r++)
                fgl_axpy((size_t)C, y->i0 == FGL__SEG_MEAN ? 1.0f / (float)cnt : 1.0f, gy, g + (size_t)r * C);
        }
    }
}

static int fgl__check_offsets(fgl_tape *t, const char *op, const int *off, int nseg, int rows) {
    int s;
    if (nseg < 0 || !off) {
        fgl_tape_fail(t, FGL_ERR_ARG, "%s: bad segment list", op);
        return 0;
    }
    for (s = 0; s < nseg; s++)
        if (off[s] < 0 || off[s + 1] < off[s] || off[s + 1] > rows) {
            fgl_tape_fail(t, FGL_ERR_RANGE, "%s: segment %d spans rows %d..%d of %d", op, s, off[s], off[s + 1], rows);
            return 0;
        }
    return 1;
}

static fgl_node *fgl__segment(fgl_tape *t, const char *op, int kind, fgl_node *a, const int *offsets, int nseg) {
    fgl_node *y;
    int s, r, j, C, *off;
    FGL__LIVE1(op, a);
    if (!fgl__check_offsets(t, op, offsets, nseg, a->rows)) return NULL;
    C = a->cols;
    y = fgl__node(t, op, nseg, C, fgl__segment_bw, a, NULL, NULL);
    if (!y || !(off = fgl__copy_ints(t, offsets, nseg + 1))) return NULL;
    y->s0 = off;
    y->i0 = kind;
    memset(y->val, 0, sizeof(float) * fgl__size(y));
    if (kind == FGL__SEG_MAX) {
        int *arg = (int *)fgl__talloc(t, sizeof(int) * (size_t)FGL__MAX(nseg * C, 1));
        if (!arg) return NULL;
        y->s1 = arg;
        for (s = 0; s < nseg; s++)
            for (j = 0; j < C; j++) {
                int best = -1;
                for (r = off[s]; r < off[s + 1]; r++)
                    if (best < 0 || a->val[(size_t)r * C + j] > a->val[(size_t)best * C + j]) best = r;
                arg[(size_t)s * C + j] = best;
                y->val[(size_t)s * C + j] = best >= 0 ? a->val[(size_t)best * C + j] : 0.0f;
            }
        return y;
    }
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 16) private(r) num_threads(fgl__threads_elem((size_t)a->rows * (size_t)C))
#endif
    for (s = 0; s < nseg; s++) {
        float *ys = y->val + (size_t)s * C;
        for (r = off[s]; r < off[s + 1]; r++) fgl_axpy((size_t)C, 1.0f, a->val + (size_t)r * C, ys);
        if (kind == FGL__SEG_MEAN && off[s + 1] > off[s]) fgl_scale((size_t)C, 1.0f / (float)(off[s + 1] - off[s]), ys);
    }
    return y;
}

FGLDEF fgl_node *fgl_op_segment_sum(fgl_tape *t, fgl_node *a, const int *offsets, int nseg) {
    return fgl__segment(t, "segment_sum", FGL__SEG_SUM, a, offsets, nseg);
}
FGLDEF fgl_node *fgl_op_segment_mean(fgl_tape *t, fgl_node *a, const int *offsets, int nseg) {
    return fgl__segment(t, "segment_mean", FGL__SEG_MEAN, a, offsets, nseg);
}
FGLDEF fgl_node *fgl_op_segment_max(fgl_tape *t, fgl_node *a, const int *offsets, int nseg) {
    return fgl__segment(t, "segment_max", FGL__SEG_MAX, a, offsets, nseg);
}

FGLDEF fgl_node *fgl_op_sum_rows(fgl_tape *t, fgl_node *a) {
    int off[2];
    FGL__LIVE1("sum_rows", a);
    off[0] = 0;
    off[1] = a->rows;
    return fgl__segment(t, "sum_rows", FGL__SEG_SUM, a, off, 1);
}

FGLDEF fgl_node *fgl_op_mean_rows(fgl_tape *t, fgl_node *a) {
    int off[2];
    FGL__LIVE1("mean_rows", a);
    off[0] = 0;
    off[1] = a->rows;
    return fgl__segment(t, "mean_rows", FGL__SEG_MEAN, a, off, 1);
}

static void fgl__reduce_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0];
    float *g = fgl__grad(t, a), v = y->grad[0] * y->f0;
    size_t i, n = fgl__size(a);
    if (g)
        for (i = 0; i < n; i++) g[i] += v;
}

static fgl_node *fgl__reduce(fgl_tape *t, const char *op, fgl_node *a, int mean) {
    fgl_node *y;
    size_t n;
    FGL__LIVE1(op, a);
    y = fgl__node(t, op, 1, 1, fgl__reduce_bw, a, NULL, NULL);
    if (!y) return NULL;
    n = fgl__size(a);
    y->f0 = mean && n ? 1.0f / (float)n : 1.0f;
    {
        double s = 0;
        size_t i;
        for (i = 0; i < n; i++) s += a->val[i];
        y->val[0] = (float)(s * y->f0);
    }
    return y;
}

FGLDEF fgl_node *fgl_op_sum(fgl_tape *t, fgl_node *a) { return fgl__reduce(t, "sum", a, 0); }
FGLDEF fgl_node *fgl_op_mean(fgl_tape *t, fgl_node *a) { return fgl__reduce(t, "mean", a, 1); }

static void fgl__segsoftmax_bw(fgl_tape *t, fgl_node *y) {
    float *g = fgl__grad(t, y->in[0]);
    const int *off = (const int *)y->s0;
    int s, r, j, C = y->cols;
    if (!g) return;
    for (s = 0; s < y->i0; s++)
        for (j = 0; j < C; j++) {
            double dot = 0;
            for (r = off[s]; r < off[s + 1]; r++) dot += (double)y->grad[(size_t)r * C + j] * y->val[(size_t)r * C + j];
            for (r = off[s]; r < off[s + 1]; r++) {
                size_t k = (size_t)r * C + j;
                g[k] += y->val[k] * (y->grad[k] - (float)dot);
            }
        }
}

FGLDEF fgl_node *fgl_op_segment_softmax(fgl_tape *t, fgl_node *a, const int *offsets, int nseg) {
    fgl_node *y;
    int s, r, j, C, *off;
    FGL__LIVE1("segment_softmax", a);
    if (!fgl__check_offsets(t, "segment_softmax", offsets, nseg, a->rows)) return NULL;
    C = a->cols;
    y = fgl__node(t, "segment_softmax", a->rows, C, fgl__segsoftmax_bw, a, NULL, NULL);
    if (!y || !(off = fgl__copy_ints(t, offsets, nseg + 1))) return NULL;
    y->s0 = off;
    y->i0 = nseg;
    memset(y->val, 0, sizeof(float) * fgl__size(y)); /* rows outside every segment stay 0 */
    for (s = 0; s < nseg; s++)
        for (j = 0; j < C; j++) {
            float mx = -INFINITY;
            double sum = 0;
            for (r = off[s]; r < off[s + 1]; r++) mx = FGL__MAX(mx, a->val[(size_t)r * C + j]);
            for (r = off[s]; r < off[s + 1]; r++) {
                size_t k = (size_t)r * C + j;
                y->val[k] = expf(a->val[k] - mx);
                sum += y->val[k];
            }
            for (r = off[s]; r < off[s + 1]; r++) y->val[(size_t)r * C + j] = (float)(y->val[(size_t)r * C + j] / sum);
        }
    return y;
}

#include "../alone.h"
