#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Autodiff ops: linear algebra                                             */
/* ------------------------------------------------------------------------ */
/* The ops on the tape of src/core/tape.h: each op's declaration and
 * documentation here, its forward and backward below. */

/* Linear algebra. */
FGLDEF fgl_node *fgl_op_matmul(fgl_tape *t, fgl_node *a, fgl_node *b);
FGLDEF fgl_node *fgl_op_matmul_ex(fgl_tape *t, fgl_node *a, int trans_a, fgl_node *b, int trans_b);
FGLDEF fgl_node *fgl_op_transpose(fgl_tape *t, fgl_node *a);
/* x W + b in one node (b: 1 x cols or NULL): the dense layer of every model,
 * without the intermediate x W that matmul + bias would keep. */
FGLDEF fgl_node *fgl_op_linear(fgl_tape *t, fgl_node *x, fgl_node *w, fgl_node *b);
/* ReLU(x W + b) as one node: the ReLU applied as each tile of the product
 * is stored, so neither a pass over the output nor the pre-activation
 * buffer (GIN's MLPs, an MLP head). The values and gradients of
 * fgl_op_relu(t, fgl_op_linear(t, x, w, b)), bit for bit. Its backward
 * masks the node's own gradient in place, as fgl_op_batch_norm_relu's. */
FGLDEF fgl_node *fgl_op_linear_relu(fgl_tape *t, fgl_node *x, fgl_node *w, fgl_node *b);

/* fgl:implementation */
#include "../alone.h"
/* --- matmul, transpose ------------------------------------------------------ */

static void fgl__matmul_bw(fgl_tape *t, fgl_node *c) {
    fgl_node *a = c->in[0], *b = c->in[1];
    int ta = c->i0, tb = c->i1;
    int m = c->rows, n = c->cols, k = ta ? a->rows : a->cols, fresh;
    float *ga = fgl__grad_w(t, a, &fresh), *gb, beta = fresh ? 0.0f : 1.0f;
    if (ga) {
        if (!ta) /* dA = dC op(B)^T */
            fgl_gemm(0, !tb, m, k, n, 1.0f, c->grad, n, b->val, b->cols, beta, ga, a->cols);
        else /* A^T = op(A): dA = op(B) dC^T */
            fgl_gemm(tb, 1, k, m, n, 1.0f, b->val, b->cols, c->grad, n, beta, ga, a->cols);
    }
    gb = fgl__grad_w(t, b, &fresh);
    beta = fresh ? 0.0f : 1.0f;
    if (gb) {
        if (!tb) /* dB = op(A)^T dC */
            fgl_gemm(!ta, 0, k, n, m, 1.0f, a->val, a->cols, c->grad, n, beta, gb, b->cols);
        else /* dB = dC^T op(A) */
            fgl_gemm(1, ta, n, k, m, 1.0f, c->grad, n, a->val, a->cols, beta, gb, b->cols);
    }
}

FGLDEF fgl_node *fgl_op_matmul_ex(fgl_tape *t, fgl_node *a, int trans_a, fgl_node *b, int trans_b) {
    int m, k, kb, n;
    fgl_node *c;
    FGL__LIVE2("matmul", a, b);
    m = trans_a ? a->cols : a->rows;
    k = trans_a ? a->rows : a->cols;
    kb = trans_b ? b->cols : b->rows;
    n = trans_b ? b->rows : b->cols;
    if (k != kb)
        return fgl_tape_fail(t, FGL_ERR_SHAPE, "matmul: %dx%d%s times %dx%d%s", a->rows, a->cols,
                             trans_a ? "^T" : "", b->rows, b->cols, trans_b ? "^T" : "");
    c = fgl__node(t, "matmul", m, n, fgl__matmul_bw, a, b, NULL);
    if (!c) return NULL;
    c->i0 = trans_a != 0;
    c->i1 = trans_b != 0;
    fgl_gemm(c->i0, c->i1, m, n, k, 1.0f, a->val, a->cols, b->val, b->cols, 0.0f, c->val, n);
    return c;
}

FGLDEF fgl_node *fgl_op_matmul(fgl_tape *t, fgl_node *a, fgl_node *b) {
    return fgl_op_matmul_ex(t, a, 0, b, 0);
}

/* A bias gradient, gb[j] += the sum over rows of g[i][j], as fgl__col_chain's
 * add: 64 running sums at a time held in registers across the rows (bound
 * by the chain of additions, not by memory: the relay's case). */
typedef struct {
    const float *g;
    int n;
    float *gb;
} fgl__colsum_ctx;
static void fgl__colsum_add(void *ctx, int r0, int r1) {
    const fgl__colsum_ctx *c = (const fgl__colsum_ctx *)ctx;
    float *FGL__RESTRICT gb = c->gb;
    int i, j, j0 = 0;
    for (; j0 + 64 <= c->n; j0 += 64) {
        float acc[64];
        for (j = 0; j < 64; j++) acc[j] = gb[j0 + j];
        for (i = r0; i < r1; i++) {
            const float *FGL__RESTRICT gi = c->g + (size_t)i * c->n + j0;
            for (j = 0; j < 64; j++) acc[j] += gi[j];
        }
        for (j = 0; j < 64; j++) gb[j0 + j] = acc[j];
    }
    for (i = r0; i < r1 && j0 < c->n; i++) {
        const float *FGL__RESTRICT gi = c->g + (size_t)i * c->n;
        for (j = j0; j < c->n; j++) gb[j] += gi[j];
    }
}

/* v where x > 0, else +0 (also for a NaN v): x > 0 ? v : 0.0f, written as
 * a mask on v's bits, which compilers vectorise where they keep the ternary
 * as a branch (v may trap, so they may not compute it for every lane). */
static float fgl__if_positive(float x, float v) {
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    b &= 0u - (uint32_t)(x > 0);
    memcpy(&v, &b, sizeof v);
    return v;
}

/* The dense layer's backward in one pass over the rows, for the shapes of a
 * GNN's hidden layers (x at most FGL__MC columns, y at most FGL__KSPLIT_N,
 * FGL__KC rows or more): each block of FGL__KC rows of dy is masked by the
 * ReLU (relu), multiplied into its rows of dx and into its partial of dW
 * while it is in the core's cache, and then added into the bias gradient
 * in row order (a relay among the threads, each adding the blocks it
 * handled); the partials are added into dW block after block. One parallel
 * region where the unfused pass had four (mask, dx, dW, bias), and dy read
 * from memory once instead of four times. The bits are the unfused pass's
 * at any thread count: dx as the tiled product (every element one sum over
 * y's columns), dW as fgl__gemm_ksplit, the bias as fgl__col_chain. gx and
 * gb may be NULL; fresh_x, fresh_w: write gx, gw rather than add to them.
 * Returns 0, nothing done, when its buffer cannot be had. */
static int fgl__linear_bw_rows(fgl_node *y, int relu, float *gx, int fresh_x, float *gw, int fresh_w, float *gb) {
    const fgl_node *x = y->in[0], *w = y->in[1];
    int m = y->rows, n = y->cols, k = x->cols, ldp = (n + 15) / 16 * 16, n_pc = (m + FGL__KC - 1) / FGL__KC;
    int n_jx = (k + FGL__NR - 1) / FGL__NR, n_jw = (n + FGL__NR - 1) / FGL__NR, nthreads = 1, g0, pc, jr;
    size_t wpack = (size_t)n * FGL__NR * (size_t)n_jx, bpack = (size_t)FGL__KC * FGL__NR * (size_t)n_jw;
    size_t blk = (size_t)k * (size_t)ldp;
    float *raw, *buf, *wt, *part;
#ifdef _OPENMP
    nthreads = FGL__MIN(FGL__MIN(fgl__threads_elem((size_t)m * (size_t)n), omp_get_num_procs()), n_pc);
#endif
    raw = (float *)FGL_MALLOC(sizeof(float) *
                              (wpack + bpack * (size_t)nthreads + blk * (size_t)FGL__MIN(n_pc, FGL__KSPLIT_G) + 16));
    if (!raw) return 0;
    buf = fgl__line(raw);
    wt = buf;
    part = buf + wpack + bpack * (size_t)nthreads; /* wpack, bpack: multiples of 32 floats */
    if (gx) /* W^T, packed once as fgl__gemm packs a small op(B) */
        for (pc = 0; pc < n; pc += FGL__KC)
            for (jr = 0; jr < n_jx; jr++)
                fgl__pack_b(1, w->val, n, pc, FGL__MIN(FGL__KC, n - pc), jr * FGL__NR,
                            FGL__MIN(FGL__NR, k - jr * FGL__NR),
                            wt + (size_t)pc * FGL__NR * (size_t)n_jx +
                                (size_t)jr * FGL__NR * (size_t)FGL__MIN(FGL__KC, n - pc));
    for (g0 = 0; g0 < n_pc; g0 += FGL__KSPLIT_G) { /* FGL__KSPLIT_G blocks at a time: a bounded buffer */
        int nb = FGL__MIN(FGL__KSPLIT_G, n_pc - g0);
#ifdef _OPENMP
#pragma omp parallel num_threads(nthreads) if (nthreads > 1)
#endif
        {
            int T = 1, t = 0, q, extra, p0, p1, bi, i, ph;
#ifdef _OPENMP
            T = omp_get_num_threads();
            t = omp_get_thread_num();
#endif
            /* this thread's blocks: a contiguous run, as schedule(static) shares them */
            q = nb / T;
            extra = nb % T;
            p0 = t * q + FGL__MIN(t, extra);
            p1 = p0 + q + (t < extra);
            for (bi = p0; bi < p1; bi++) {
                int r0 = (g0 + bi) * FGL__KC, r1 = FGL__MIN(m, r0 + FGL__KC);
                if (relu) { /* the gradient stops where the output is 0 (in place: the bias reads it masked) */
                    size_t e, e1 = (size_t)r1 * (size_t)n;
                    for (e = (size_t)r0 * (size_t)n; e < e1; e++) y->grad[e] = fgl__if_positive(y->val[e], y->grad[e]);
                }
                if (gx) /* dx = dy W^T, rows r0 .. r1-1 */
                    fgl__gemm_tile(0, 1, k, n, 1.0f, y->grad, n, w->val, n, fresh_x ? 0.0f : 1.0f, gx, k, r0, r1 - r0,
                                   0, n_jx, wt, NULL, NULL, 0);
                /* x^T dy over these rows: the block's partial of dW */
                fgl__ksplit_part(1, 0, k, n, m, x->val, k, y->grad, n, r0, part + blk * (size_t)bi, ldp,
                                 buf + wpack + bpack * (size_t)t);
            }
            /* the bias: thread after thread over its blocks' rows, in row order
             * (without one, a single barrier) */
            for (ph = 0; ph < (gb ? T : 1); ph++) {
                if (ph == t && gb && p1 > p0) {
                    fgl__colsum_ctx c;
                    c.g = y->grad;
                    c.n = n;
                    c.gb = gb;
                    fgl__colsum_add(&c, (g0 + p0) * FGL__KC, FGL__MIN(m, (g0 + p1) * FGL__KC));
                }
#ifdef _OPENMP
#pragma omp barrier
#endif
            }
            /* every partial is in (each thread's before its first barrier) */
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
            for (i = 0; i < k; i++)
                fgl__ksplit_row(gw + (size_t)i * (size_t)n, n, part + (size_t)i * ldp, blk, g0, nb,
                                fresh_w ? 0.0f : 1.0f, NULL);
        }
    }
    FGL_FREE(raw);
    return 1;
}

static void fgl__linear_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *x = y->in[0], *w = y->in[1], *b = y->in[2];
    int m = y->rows, n = y->cols, k = x->cols, fresh_x = 0, fresh_w = 0;
    /* in one pass when the shapes allow (y with no columns: fgl_gemm's
     * zero-length sum writes dx's zeros; the tiles would skip it); with no
     * input shared between the three, their gradients may be taken up front */
    int rows =
        w->needs_grad && x != w && x != b && w != b && k <= FGL__MC && n > 0 && n <= FGL__KSPLIT_N && m >= FGL__KC;
    float *gx = NULL, *gw = NULL, *gb = NULL;
    if (rows) {
        gx = fgl__grad_w(t, x, &fresh_x);
        gw = fgl__grad_w(t, w, &fresh_w);
        gb = fgl__grad(t, b);
        if (gw && fgl__linear_bw_rows(y, y->i0, gx, fresh_x, gw, fresh_w, gb)) return;
    }
    if (y->i0) { /* fused ReLU: the gradient stops where the output is 0 (masked in place, before any reads it) */
        size_t sz = fgl__size(y), len = fgl__piece_len(sz);
        long ch, n_ch = (long)((sz + len - 1) / len);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(fgl__threads_elem(sz))
#endif
        for (ch = 0; ch < n_ch; ch++) {
            size_t i, hi = FGL__MIN(sz, (size_t)(ch + 1) * len);
            for (i = (size_t)ch * len; i < hi; i++) y->grad[i] = fgl__if_positive(y->val[i], y->grad[i]);
        }
    }
    if (!rows) gx = fgl__grad_w(t, x, &fresh_x); /* each taken right before it is written (x may be w) */
    if (gx) fgl_gemm(0, 1, m, k, n, 1.0f, y->grad, n, w->val, n, fresh_x ? 0.0f : 1.0f, gx, k); /* dx = dy W^T */
    if (!rows) gw = fgl__grad_w(t, w, &fresh_w);
    if (gw) fgl_gemm(1, 0, k, n, m, 1.0f, x->val, k, y->grad, n, fresh_w ? 0.0f : 1.0f, gw, n); /* dW = x^T dy */
    if (!rows) gb = fgl__grad(t, b);
    if (gb) { /* column sums of dy, each column over the rows in order (a relay: see fgl__col_chain) */
        fgl__colsum_ctx c;
        c.g = y->grad;
        c.n = n;
        c.gb = gb;
        fgl__col_chain(m, n, fgl__colsum_add, &c, y->grad);
    }
}

static fgl_node *fgl__dense(fgl_tape *t, const char *op, fgl_node *x, fgl_node *w, fgl_node *b, int relu) {
    fgl_node *y;
    FGL__LIVE2(op, x, w);
    if (x->cols != w->rows || (b && (b->rows != 1 || b->cols != w->cols)))
        return fgl_tape_fail(t, FGL_ERR_SHAPE, "%s: %dx%d input, %dx%d weight, bias %dx%d", op, x->rows, x->cols,
                             w->rows, w->cols, b ? b->rows : 0, b ? b->cols : 0);
    y = fgl__node(t, op, x->rows, w->cols, fgl__linear_bw, x, w, b);
    if (!y) return NULL;
    y->i0 = relu;
    /* x W, the bias added (and the ReLU applied) as each tile of y is stored */
    fgl__gemm(0, 0, x->rows, w->cols, x->cols, 1.0f, x->val, x->cols, w->val, w->cols, 0.0f, y->val, y->cols,
              b ? b->val : NULL, relu);
    return y;
}

FGLDEF fgl_node *fgl_op_linear(fgl_tape *t, fgl_node *x, fgl_node *w, fgl_node *b) {
    return fgl__dense(t, "linear", x, w, b, 0);
}

FGLDEF fgl_node *fgl_op_linear_relu(fgl_tape *t, fgl_node *x, fgl_node *w, fgl_node *b) {
    return fgl__dense(t, "linear_relu", x, w, b, 1);
}

static void fgl__transpose(const float *src, int rows, int cols, float *dst, int accumulate) {
    int i, j;
    for (i = 0; i < rows; i++)
        for (j = 0; j < cols; j++) {
            float v = src[(size_t)i * cols + j];
            if (accumulate) dst[(size_t)j * rows + i] += v;
            else dst[(size_t)j * rows + i] = v;
        }
}

static void fgl__transpose_bw(fgl_tape *t, fgl_node *y) {
    float *g = fgl__grad(t, y->in[0]);
    if (g) fgl__transpose(y->grad, y->rows, y->cols, g, 1);
}

FGLDEF fgl_node *fgl_op_transpose(fgl_tape *t, fgl_node *a) {
    fgl_node *y;
    FGL__LIVE1("transpose", a);
    y = fgl__node(t, "transpose", a->cols, a->rows, fgl__transpose_bw, a, NULL, NULL);
    if (y) fgl__transpose(a->val, a->rows, a->cols, y->val, 0);
    return y;
}

#include "../alone.h"
