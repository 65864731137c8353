#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Autodiff ops: elementwise (arithmetic, activations, dropout)             */
/* ------------------------------------------------------------------------ */
/* The ops on the tape of src/core/tape.h: each op's declaration and
 * documentation here, its forward and backward below. */

/* Elementwise with broadcasting of b: same shape, 1 x cols (each row),
 * rows x 1 (each column) or 1 x 1. */
FGLDEF fgl_node *fgl_op_add(fgl_tape *t, fgl_node *a, fgl_node *b);
FGLDEF fgl_node *fgl_op_sub(fgl_tape *t, fgl_node *a, fgl_node *b);
FGLDEF fgl_node *fgl_op_mul(fgl_tape *t, fgl_node *a, fgl_node *b);
FGLDEF fgl_node *fgl_op_bias(fgl_tape *t, fgl_node *a, fgl_node *bias);   /* bias 1 x cols */
FGLDEF fgl_node *fgl_op_scale(fgl_tape *t, fgl_node *a, float s);
FGLDEF fgl_node *fgl_op_affine(fgl_tape *t, fgl_node *a, float s, float c);  /* s a + c */
/* Activations and other elementwise functions. */
FGLDEF fgl_node *fgl_op_relu(fgl_tape *t, fgl_node *a);
FGLDEF fgl_node *fgl_op_leaky_relu(fgl_tape *t, fgl_node *a, float slope);
FGLDEF fgl_node *fgl_op_elu(fgl_tape *t, fgl_node *a, float alpha);
FGLDEF fgl_node *fgl_op_sigmoid(fgl_tape *t, fgl_node *a);
FGLDEF fgl_node *fgl_op_tanh(fgl_tape *t, fgl_node *a);
FGLDEF fgl_node *fgl_op_exp(fgl_tape *t, fgl_node *a);
FGLDEF fgl_node *fgl_op_log(fgl_tape *t, fgl_node *a);     /* log(max(a, 1e-30)) */
FGLDEF fgl_node *fgl_op_abs(fgl_tape *t, fgl_node *a);
FGLDEF fgl_node *fgl_op_square(fgl_tape *t, fgl_node *a);
/* Inverted dropout: keeps with probability 1-p and scales by 1/(1-p).
 * p <= 0 or rng == NULL (evaluation) returns a unchanged. The mask is
 * reproducible: elements 2m and 2m+1 are kept when the low and the high 32
 * bits of the m-th fgl_rng_u64 draw are >= p 2^32. */
FGLDEF fgl_node *fgl_op_dropout(fgl_tape *t, fgl_node *a, float p, fgl_rng *rng);
/* dropout(relu(a), p, rng) as one node, one pass forward and backward: the
 * same values and the same draws from rng. */
FGLDEF fgl_node *fgl_op_relu_dropout(fgl_tape *t, fgl_node *a, float p, fgl_rng *rng);

/* fgl:private */
#include "../alone.h"
/* The state FGL__DRAW_BLOCK = 2^14 draws of fgl_rng_u64 ahead, in 256
 * steps: xoshiro256's state update is linear over GF(2), so T^Q is the sum
 * of T^i over the bits i of x^Q mod P(x), P the update's characteristic
 * polynomial (degree 256). P came from Berlekamp-Massey on the update's
 * bit sequence and the four words below from x^Q mod P; both were checked
 * against 2^14 plain steps from random states (and test_fgl_core checks
 * this function against fgl_rng_u64). */
#define FGL__DRAW_BLOCK 16384
FGL__PRIVATE void fgl__rng_skip_block(fgl_rng *r);
/* fgl:implementation */
#include "../alone.h"
/* --- broadcasting binary ops ------------------------------------------------- */

enum { FGL__ADD, FGL__SUB, FGL__MUL };
enum { FGL__BC_SAME, FGL__BC_ROW, FGL__BC_COL, FGL__BC_SCALAR };

/* Row i of b as the operand pairs with row i of a: a pointer that advances
 * with j (same shape, row broadcast) or a single value (column, scalar). */
#define FGL__BROW(mode, b, i, C)                                                                                       \
    ((mode) == FGL__BC_SAME  ? (b) + (size_t)(i) * (C)                                                                 \
     : (mode) == FGL__BC_ROW ? (b)                                                                                     \
     : (mode) == FGL__BC_COL ? (b) + (i)                                                                               \
                             : (b))

static void fgl__binary_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0], *b = y->in[1];
    int kind = y->i0, mode = y->i1, i, j, R = y->rows, C = y->cols;
    int vec = mode == FGL__BC_SAME || mode == FGL__BC_ROW;
    int fresh, par = fgl__threads_elem((size_t)R * (size_t)C);
    float *ga = fgl__grad_w(t, a, &fresh), *gb, sgn = kind == FGL__SUB ? -1.0f : 1.0f;
    double gsum = 0; /* column / scalar broadcast: the reduction, in double */
    (void)par; /* read by the OpenMP pragmas only */
    /* da first, row by row (rows in parallel), then db: when a == b every
     * element is written, then added to, as in one pass. */
    if (ga) {
#ifdef _OPENMP
#pragma omp parallel for schedule(static) private(j) num_threads(par)
#endif
        for (i = 0; i < R; i++) {
            const float *FGL__RESTRICT g = y->grad + (size_t)i * C;
            const float *bv = FGL__BROW(mode, b->val, i, C);
            float *gar = ga + (size_t)i * C;
            float s = kind != FGL__MUL ? 1.0f : vec ? 0.0f : bv[0];
            if (kind == FGL__MUL && vec) {
                if (fresh)
                    for (j = 0; j < C; j++) gar[j] = g[j] * bv[j];
                else
                    for (j = 0; j < C; j++) gar[j] += g[j] * bv[j];
            } else if (fresh) {
                for (j = 0; j < C; j++) gar[j] = s * g[j];
            } else {
                fgl_axpy((size_t)C, s, g, gar);
            }
        }
    }
    gb = fgl__grad(t, b);
    if (!gb) return;
    if (mode == FGL__BC_SAME) { /* each row of db from its own row */
#ifdef _OPENMP
#pragma omp parallel for schedule(static) private(j) num_threads(par)
#endif
        for (i = 0; i < R; i++) {
            const float *FGL__RESTRICT g = y->grad + (size_t)i * C, *av = a->val + (size_t)i * C;
            float *gbr = gb + (size_t)i * C;
            if (kind == FGL__MUL)
                for (j = 0; j < C; j++) gbr[j] += g[j] * av[j];
            else
                fgl_axpy((size_t)C, sgn, g, gbr);
        }
        return;
    }
    for (i = 0; i < R; i++) { /* broadcast b: sums over rows, in row order */
        const float *FGL__RESTRICT g = y->grad + (size_t)i * C, *av = a->val + (size_t)i * C;
        float *gbr = FGL__BROW(mode, gb, i, C);
        if (vec) {
            if (kind == FGL__MUL)
                for (j = 0; j < C; j++) gbr[j] += g[j] * av[j];
            else
                fgl_axpy((size_t)C, sgn, g, gbr);
        } else {
            double s = 0;
            if (kind == FGL__MUL) s = fgl_dot((size_t)C, g, av);
            else
                for (j = 0; j < C; j++) s += g[j];
            if (mode == FGL__BC_COL) gbr[0] += sgn * (float)s;
            else gsum += s;
        }
    }
    if (mode == FGL__BC_SCALAR) gb[0] += sgn * (float)gsum;
}

static fgl_node *fgl__binary(fgl_tape *t, const char *op, int kind, fgl_node *a, fgl_node *b) {
    int mode, i, j, R, C;
    fgl_node *y;
    FGL__LIVE2(op, a, b);
    R = a->rows;
    C = a->cols;
    if (b->rows == R && b->cols == C) mode = FGL__BC_SAME;
    else if (b->rows == 1 && b->cols == 1) mode = FGL__BC_SCALAR;
    else if (b->rows == 1 && b->cols == C) mode = FGL__BC_ROW;
    else if (b->rows == R && b->cols == 1) mode = FGL__BC_COL;
    else return fgl_tape_fail(t, FGL_ERR_SHAPE, "%s: %dx%d and %dx%d do not broadcast", op, R, C, b->rows, b->cols);
    y = fgl__node(t, op, R, C, fgl__binary_bw, a, b, NULL);
    if (!y) return NULL;
    y->i0 = kind;
    y->i1 = mode;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) private(j) num_threads(fgl__threads_elem((size_t)R * (size_t)C))
#endif
    for (i = 0; i < R; i++) {
        const float *FGL__RESTRICT pa = a->val + (size_t)i * C, *bv = FGL__BROW(mode, b->val, i, C);
        float *FGL__RESTRICT py = y->val + (size_t)i * C;
        if (mode == FGL__BC_SAME || mode == FGL__BC_ROW) { /* one loop per kind: they vectorise */
            if (kind == FGL__ADD)
                for (j = 0; j < C; j++) py[j] = pa[j] + bv[j];
            else if (kind == FGL__SUB)
                for (j = 0; j < C; j++) py[j] = pa[j] - bv[j];
            else
                for (j = 0; j < C; j++) py[j] = pa[j] * bv[j];
        } else {
            float v = bv[0];
            if (kind == FGL__ADD)
                for (j = 0; j < C; j++) py[j] = pa[j] + v;
            else if (kind == FGL__SUB)
                for (j = 0; j < C; j++) py[j] = pa[j] - v;
            else
                for (j = 0; j < C; j++) py[j] = pa[j] * v;
        }
    }
    return y;
}

FGLDEF fgl_node *fgl_op_add(fgl_tape *t, fgl_node *a, fgl_node *b) { return fgl__binary(t, "add", FGL__ADD, a, b); }
FGLDEF fgl_node *fgl_op_sub(fgl_tape *t, fgl_node *a, fgl_node *b) { return fgl__binary(t, "sub", FGL__SUB, a, b); }
FGLDEF fgl_node *fgl_op_mul(fgl_tape *t, fgl_node *a, fgl_node *b) { return fgl__binary(t, "mul", FGL__MUL, a, b); }

FGLDEF fgl_node *fgl_op_bias(fgl_tape *t, fgl_node *a, fgl_node *bias) {
    FGL__LIVE2("bias", a, bias);
    if (bias->rows != 1 || bias->cols != a->cols)
        return fgl_tape_fail(t, FGL_ERR_SHAPE, "bias: %dx%d bias for a %dx%d input", bias->rows, bias->cols,
                             a->rows, a->cols);
    return fgl__binary(t, "bias", FGL__ADD, a, bias);
}

/* --- elementwise unary ops --------------------------------------------------- */

enum { FGL__RELU, FGL__LEAKY, FGL__ELU, FGL__SIGMOID, FGL__TANH, FGL__EXP, FGL__LOG, FGL__ABS,
       FGL__SQUARE, FGL__AFFINE };

/* y = f(x) on elements lo .. hi-1 (a piece of a parallel loop). */
static void fgl__unary_range(int kind, const float *FGL__RESTRICT x, float *FGL__RESTRICT v, size_t lo, size_t hi,
                             float p, float q) {
    size_t i;
    switch (kind) {
    case FGL__RELU: for (i = lo; i < hi; i++) v[i] = x[i] > 0 ? x[i] : 0.0f; break;
    case FGL__LEAKY: for (i = lo; i < hi; i++) v[i] = x[i] > 0 ? x[i] : p * x[i]; break;
    case FGL__ELU: for (i = lo; i < hi; i++) v[i] = x[i] > 0 ? x[i] : p * (expf(x[i]) - 1.0f); break;
    case FGL__SIGMOID:
        for (i = lo; i < hi; i++) { /* stable for large |x| */
            float e = expf(-fabsf(x[i]));
            v[i] = x[i] >= 0 ? 1.0f / (1.0f + e) : e / (1.0f + e);
        }
        break;
    case FGL__TANH: for (i = lo; i < hi; i++) v[i] = tanhf(x[i]); break;
    case FGL__EXP: for (i = lo; i < hi; i++) v[i] = expf(x[i]); break;
    case FGL__LOG: for (i = lo; i < hi; i++) v[i] = logf(x[i] > 1e-30f ? x[i] : 1e-30f); break;
    case FGL__ABS: for (i = lo; i < hi; i++) v[i] = fabsf(x[i]); break;
    case FGL__SQUARE: for (i = lo; i < hi; i++) v[i] = x[i] * x[i]; break;
    case FGL__AFFINE: for (i = lo; i < hi; i++) v[i] = p * x[i] + q; break;
    default: break;
    }
}

/* The derivative on elements lo .. hi-1: written (fresh) or added into ga. */
static void fgl__unary_bw_range(int kind, const float *x, const float *v, const float *g, float *ga, int fresh,
                                size_t lo, size_t hi, float p) {
    size_t i;
#define FGL__UNARY_BW(expr)                              \
    do {                                                 \
        if (fresh)                                       \
            for (i = lo; i < hi; i++) ga[i] = (expr);    \
        else                                             \
            for (i = lo; i < hi; i++) ga[i] += (expr);   \
    } while (0)
    switch (kind) {
    case FGL__RELU: FGL__UNARY_BW(x[i] > 0 ? g[i] : 0.0f); break;
    case FGL__LEAKY: FGL__UNARY_BW(x[i] > 0 ? g[i] : p * g[i]); break;
    case FGL__ELU: FGL__UNARY_BW(x[i] > 0 ? g[i] : g[i] * (v[i] + p)); break;
    case FGL__SIGMOID: FGL__UNARY_BW(g[i] * v[i] * (1.0f - v[i])); break;
    case FGL__TANH: FGL__UNARY_BW(g[i] * (1.0f - v[i] * v[i])); break;
    case FGL__EXP: FGL__UNARY_BW(g[i] * v[i]); break;
    case FGL__LOG: FGL__UNARY_BW(x[i] > 1e-30f ? g[i] / x[i] : 0.0f); break;
    case FGL__ABS: FGL__UNARY_BW(x[i] > 0 ? g[i] : x[i] < 0 ? -g[i] : 0.0f); break;
    case FGL__SQUARE: FGL__UNARY_BW(2.0f * x[i] * g[i]); break;
    case FGL__AFFINE: FGL__UNARY_BW(p * g[i]); break;
    default: break;
    }
#undef FGL__UNARY_BW
}

static void fgl__unary_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0];
    int fresh;
    float *ga = fgl__grad_w(t, a, &fresh), p = y->f0;
    size_t n = fgl__size(y), len = fgl__piece_len(n);
    long ch, n_ch = (long)((n + len - 1) / len);
    if (!ga) return;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(fgl__threads_elem(n))
#endif
    for (ch = 0; ch < n_ch; ch++)
        fgl__unary_bw_range(y->i0, a->val, y->val, y->grad, ga, fresh, (size_t)ch * len,
                            FGL__MIN(n, (size_t)(ch + 1) * len), p);
}

static fgl_node *fgl__unary(fgl_tape *t, const char *op, int kind, fgl_node *a, float p, float q) {
    fgl_node *y;
    const float *x;
    float *v;
    size_t n;
    FGL__LIVE1(op, a);
    y = fgl__node(t, op, a->rows, a->cols, fgl__unary_bw, a, NULL, NULL);
    if (!y) return NULL;
    y->i0 = kind;
    y->f0 = p;
    x = a->val;
    v = y->val;
    n = fgl__size(y);
    {
        size_t len = fgl__piece_len(n);
        long ch, n_ch = (long)((n + len - 1) / len);
        /* A libm function's time depends on its argument (tanhf returns at
         * once for large |x|, works for small ones): smaller pieces, handed
         * out as threads come free, where equal shares left one thread
         * waiting a third of the time on FedStar's structure encoder. The
         * other kinds cost the same on every value: each thread gets the
         * pieces it wrote before (schedule(static)). */
        if (fgl__threads_elem(n) > 1 &&
            (kind == FGL__ELU || kind == FGL__SIGMOID || kind == FGL__TANH || kind == FGL__EXP || kind == FGL__LOG)) {
            len = FGL__MAX((size_t)1024, (len / 4 + 15) / 16 * 16); /* a multiple of 16 floats, as fgl__piece_len's */
            n_ch = (long)((n + len - 1) / len);
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(fgl__threads_elem(n))
#endif
            for (ch = 0; ch < n_ch; ch++)
                fgl__unary_range(kind, x, v, (size_t)ch * len, FGL__MIN(n, (size_t)(ch + 1) * len), p, q);
        } else {
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(fgl__threads_elem(n))
#endif
            for (ch = 0; ch < n_ch; ch++)
                fgl__unary_range(kind, x, v, (size_t)ch * len, FGL__MIN(n, (size_t)(ch + 1) * len), p, q);
        }
    }
    return y;
}

FGLDEF fgl_node *fgl_op_relu(fgl_tape *t, fgl_node *a) { return fgl__unary(t, "relu", FGL__RELU, a, 0, 0); }
FGLDEF fgl_node *fgl_op_leaky_relu(fgl_tape *t, fgl_node *a, float slope) {
    return fgl__unary(t, "leaky_relu", FGL__LEAKY, a, slope, 0);
}
FGLDEF fgl_node *fgl_op_elu(fgl_tape *t, fgl_node *a, float alpha) {
    return fgl__unary(t, "elu", FGL__ELU, a, alpha, 0);
}
FGLDEF fgl_node *fgl_op_sigmoid(fgl_tape *t, fgl_node *a) { return fgl__unary(t, "sigmoid", FGL__SIGMOID, a, 0, 0); }
FGLDEF fgl_node *fgl_op_tanh(fgl_tape *t, fgl_node *a) { return fgl__unary(t, "tanh", FGL__TANH, a, 0, 0); }
FGLDEF fgl_node *fgl_op_exp(fgl_tape *t, fgl_node *a) { return fgl__unary(t, "exp", FGL__EXP, a, 0, 0); }
FGLDEF fgl_node *fgl_op_log(fgl_tape *t, fgl_node *a) { return fgl__unary(t, "log", FGL__LOG, a, 0, 0); }
FGLDEF fgl_node *fgl_op_abs(fgl_tape *t, fgl_node *a) { return fgl__unary(t, "abs", FGL__ABS, a, 0, 0); }
FGLDEF fgl_node *fgl_op_square(fgl_tape *t, fgl_node *a) { return fgl__unary(t, "square", FGL__SQUARE, a, 0, 0); }
FGLDEF fgl_node *fgl_op_scale(fgl_tape *t, fgl_node *a, float s) {
    return fgl__unary(t, "scale", FGL__AFFINE, a, s, 0);
}
FGLDEF fgl_node *fgl_op_affine(fgl_tape *t, fgl_node *a, float s, float c) {
    return fgl__unary(t, "affine", FGL__AFFINE, a, s, c);
}

/* --- dropout ------------------------------------------------------------------ */


/* ga (=, or += when not fresh) gy * keep * mask, zero where x (a fused
 * ReLU's input, NULL without one) is not positive. The cases are separate
 * loops without a branch inside: the mask and the signs are random, so a
 * branch per value mispredicts half the time. */
static void fgl__dropout_bw_range(const float *FGL__RESTRICT gy, const unsigned char *FGL__RESTRICT mask,
                                  const float *FGL__RESTRICT x, float keep, int fresh, float *FGL__RESTRICT ga,
                                  size_t n) {
    size_t i;
    if (x && fresh)
        for (i = 0; i < n; i++) ga[i] = fgl__if_positive(x[i], gy[i] * (keep * (float)mask[i]));
    else if (x)
        for (i = 0; i < n; i++) ga[i] += fgl__if_positive(x[i], gy[i] * (keep * (float)mask[i]));
    else if (fresh)
        for (i = 0; i < n; i++) ga[i] = gy[i] * (keep * (float)mask[i]);
    else
        for (i = 0; i < n; i++) ga[i] += gy[i] * (keep * (float)mask[i]);
}

/* Dropout's backward (y->i0: fused ReLU, whose gradient stops where the
 * input is not positive). Elements in parallel. */
static void fgl__dropout_bw(fgl_tape *t, fgl_node *y) {
    int fresh;
    float *ga = fgl__grad_w(t, y->in[0], &fresh), keep = y->f0;
    const unsigned char *mask = (const unsigned char *)y->s0;
    const float *x = y->in[0]->val;
    size_t n = fgl__size(y), len = fgl__piece_len(n);
    long ch, n_ch = (long)((n + len - 1) / len);
    int relu = y->i0;
    if (!ga) return;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(fgl__threads_elem(n))
#endif
    for (ch = 0; ch < n_ch; ch++) {
        size_t lo = (size_t)ch * len, hi = FGL__MIN(n, lo + len);
        fgl__dropout_bw_range(y->grad + lo, mask + lo, relu ? x + lo : NULL, keep, fresh, ga + lo, hi - lo);
    }
}

FGL__PRIVATE void fgl__rng_skip_block(fgl_rng *r) {
    static const uint64_t poly[4] = {0x4f20eb915e780231u, 0x3886af219b885248u, 0x023ecbee3f717fceu,
                                     0x3cec2c375bef249cu};
    uint64_t acc[4] = {0, 0, 0, 0};
    int w, bit;
    for (w = 0; w < 4; w++)
        for (bit = 0; bit < 64; bit++) {
            if (poly[w] >> bit & 1) {
                acc[0] ^= r->s[0];
                acc[1] ^= r->s[1];
                acc[2] ^= r->s[2];
                acc[3] ^= r->s[3];
            }
            (void)fgl_rng_u64(r);
        }
    memcpy(r->s, acc, sizeof acc);
}

/* Dropout's mask for elements lo .. hi-1 (lo even) and the output there:
 * draw d decides elements 2d and 2d + 1, an element kept when its 32-bit
 * half is >= p 2^32 (probability 1 - p to within 2^-32); r is the state
 * before draw lo / 2 and ends after the last draw the range needs.
 * Branch-free: a branch on random bits mispredicts half the time. */
static void fgl__dropout_range(fgl_rng *rng, uint32_t thr, float keep, int relu, const float *FGL__RESTRICT x,
                               float *FGL__RESTRICT v, unsigned char *FGL__RESTRICT mask, size_t lo, size_t hi) {
    fgl_rng r = *rng; /* a local copy keeps the state in registers */
    size_t i;
    for (i = lo; i + 1 < hi; i += 2) {
        uint64_t u = fgl_rng_u64(&r);
        mask[i] = (unsigned char)((uint32_t)u >= thr);
        mask[i + 1] = (unsigned char)((uint32_t)(u >> 32) >= thr);
    }
    if (i < hi) mask[i] = (unsigned char)((uint32_t)fgl_rng_u64(&r) >= thr);
    *rng = r;
    if (relu)
        for (i = lo; i < hi; i++) v[i] = (x[i] > 0 ? x[i] : 0.0f) * (keep * (float)mask[i]);
    else
        for (i = lo; i < hi; i++) v[i] = x[i] * (keep * (float)mask[i]);
}

/* Dropout (relu: of ReLU(a)). The draws are the reproducible part: the
 * mask is the one a single pass drawing from rng in order would make, and
 * rng ends where that pass leaves it. In parallel, the elements are cut
 * into blocks of FGL__DRAW_BLOCK draws shared out in contiguous runs, and
 * each thread reaches the state at its first block by whole-block skips
 * (fgl__rng_skip_block), not by drawing through the blocks before. */
static fgl_node *fgl__dropout_op(fgl_tape *t, const char *op, fgl_node *a, float p, fgl_rng *rng, int relu) {
    fgl_node *y;
    unsigned char *mask;
    float keep;
    size_t n, per = 2 * (size_t)FGL__DRAW_BLOCK;
    long nb;
    int par;
    uint32_t thr;
    fgl_rng start = *rng;
    y = fgl__node(t, op, a->rows, a->cols, fgl__dropout_bw, a, NULL, NULL);
    if (!y) return NULL;
    n = fgl__size(y);
    mask = (unsigned char *)fgl__talloc(t, n ? n : 1); /* one byte per element: 1 kept, 0 dropped */
    if (!mask) return NULL;
    keep = p >= 1.0f ? 0.0f : 1.0f / (1.0f - p);
    {
        double tp = (double)p * 4294967296.0;
        thr = tp >= 4294967295.0 ? 0xFFFFFFFFu : (uint32_t)tp;
    }
    nb = (long)((n + per - 1) / per);
    par = nb > 1 ? fgl__threads_elem(n) : 1;
    (void)par; /* read by the OpenMP pragma only */
#ifdef _OPENMP
#pragma omp parallel num_threads(par)
#endif
    {
        int T = 1, id = 0;
        long b0, b1, q;
        fgl_rng r = start;
#ifdef _OPENMP
        T = omp_get_num_threads();
        id = omp_get_thread_num();
#endif
        b0 = nb * id / T;
        b1 = nb * (id + 1) / T;
        for (q = 0; q < b0; q++) fgl__rng_skip_block(&r);
        for (q = b0; q < b1; q++)
            fgl__dropout_range(&r, thr, keep, relu, a->val, y->val, mask, (size_t)q * per,
                               FGL__MIN(n, (size_t)(q + 1) * per));
        if (b1 == nb && b0 < b1) *rng = r; /* the thread with the last block: where one pass ends */
    }
    y->s0 = mask;
    y->f0 = keep;
    y->i0 = relu;
    return y;
}

FGLDEF fgl_node *fgl_op_dropout(fgl_tape *t, fgl_node *a, float p, fgl_rng *rng) {
    FGL__LIVE1("dropout", a);
    if (p <= 0.0f || !rng) return a;
    return fgl__dropout_op(t, "dropout", a, p, rng, 0);
}

FGLDEF fgl_node *fgl_op_relu_dropout(fgl_tape *t, fgl_node *a, float p, fgl_rng *rng) {
    FGL__LIVE1("relu_dropout", a);
    if (p <= 0.0f || !rng) return fgl_op_relu(t, a);
    return fgl__dropout_op(t, "relu_dropout", a, p, rng, 1);
}

#include "../alone.h"
