/* Tests of fgl.h's autodiff ops: every op's forward against a naive
 * computation in double, and its backward against finite differences
 * (fgl_gradcheck_ex, whose tolerance is estimated per value from the
 * truncation and round-off of the differences themselves); then error
 * behaviour (shapes, ranges, NULL propagation) and the tape's memory reuse.
 *
 * Every op input is a trainable slice of a parameter set, so the check covers
 * the gradient of every input. Inputs of ops with kinks (relu, abs, ...) are
 * kept at least 0.2 away from the kink: the check's widest step is 2/64. */
#include "../fgl.h"
#include "ft.h"
#ifdef _OPENMP
#include <omp.h>
#endif

static fgl_rng R;

/* ---- helpers -------------------------------------------------------------- */

/* A slice of U(lo, hi) values. */
static int rnd(fgl_params *ps, const char *name, int rows, int cols, float lo, float hi) {
    int s = fgl_params_add(ps, name, rows, cols, FGL_G_OTHER, 1);
    if (s >= 0) fgl_params_uniform(ps, s, lo, hi, &R);
    return s;
}

/* A slice of values with |x| in [0.2, 1.2) and random sign: away from 0. */
static int away(fgl_params *ps, const char *name, int rows, int cols) {
    int s = rnd(ps, name, rows, cols, 0.2f, 1.2f);
    float *p = fgl_params_data(ps, s);
    int i;
    for (i = 0; i < rows * cols; i++)
        if (fgl_rng_bernoulli(&R, 0.5)) p[i] = -p[i];
    return s;
}

/* Everything a build callback needs: slice ids of its inputs and the op's
 * arguments. */
typedef struct ctx {
    int s[4];
    int op, i0, i1;
    float f0, f1;
    const int *idx, *off;
    int n;
    const int *labels;
    const unsigned char *mask;
    const fgl_csr *a, *at;
    float *rm, *rv;
    const float *rm0, *rv0;
    fgl_rng rng;
} ctx;

#define P(k) fgl_op_param(t, ps, c->s[k])
#define CTX ctx *c = (ctx *)ud

/* The gradients of L = sum(y * w) (w fixed, varied) into ps->grad, after
 * zeroing them (defer 0) or after poisoning them with NaN and deferring their
 * zeroing (defer 1). */
static int weighted_backward(fgl_params *ps, fgl_node *(*build)(fgl_tape *, fgl_params *, void *), void *ud, int defer) {
    fgl_tape t;
    fgl_node *y;
    float *w;
    size_t k;
    int rc = FGL_ERR_ARG;
    fgl_tape_init(&t);
    if (defer) {
        for (k = 0; k < ps->size; k++) ps->grad[k] = NAN;
        fgl_params_defer_zero_grad(ps);
    } else
        fgl_params_zero_grad(ps);
    if ((y = build(&t, ps, ud)) && (w = (float *)fgl_tape_alloc(&t, sizeof(float) * ((size_t)y->rows * y->cols + 1)))) {
        for (k = 0; k < (size_t)y->rows * y->cols; k++) w[k] = 0.25f * (float)((int)(k % 7) - 3) + 0.1f;
        rc = fgl_tape_backward(&t, fgl_op_sum(&t, fgl_op_mul(&t, y, fgl_op_const(&t, w, y->rows, y->cols))));
    }
    fgl_tape_free(&t);
    return rc;
}

/* Gradient check of build with respect to every trainable value of ps; then
 * the same gradients when their zeroing was deferred (the op's backward
 * stores a parameter's first contribution instead of adding it). */
static void gc(const char *what, fgl_params *ps, fgl_node *(*build)(fgl_tape *, fgl_params *, void *), void *ud) {
    fgl_gradcheck_report rep;
    float *g0 = (float *)malloc(sizeof(float) * (ps->size + 1));
    size_t k, bad = ps->size;
    int rc = fgl_gradcheck_ex(ps, build, ud, 0, 0, &rep);
    FT_CHECK(g0 && weighted_backward(ps, build, ud, 0) == FGL_OK, "%s: backward", what);
    if (g0) memcpy(g0, ps->grad, sizeof(float) * ps->size);
    FT_CHECK(g0 && weighted_backward(ps, build, ud, 1) == FGL_OK, "%s: backward, zeroing deferred", what);
    for (k = 0; g0 && k < ps->size && bad == ps->size; k++)
        if (!(ps->grad[k] == g0[k])) bad = k; /* +0 and -0 alike: a stored -0 is an added 0 + -0 */
    FT_CHECK(bad == ps->size, "%s: zeroing deferred: gradient %zu is %g, not %g", what, bad, ps->grad[bad < ps->size ? bad : 0],
             g0 && bad < ps->size ? g0[bad] : 0.0f);
    free(g0);
    FT_CHECK(rc == FGL_OK, "%s: gradcheck could not run: %s", what, rep.msg);
    FT_CHECK(rep.checked == fgl_params_count(ps, FGL_G_ALL), "%s: %zu values checked", what, rep.checked);
    FT_CHECK(rep.worst <= 1.0, "%s: value %zu: analytic %.8g, numeric %.8g, |diff| %.3g > tol %.3g", what, rep.index,
             rep.analytic, rep.numeric, fabs(rep.analytic - rep.numeric), rep.tol);
    if (getenv("FGL_GC_VERBOSE"))
        printf("#   %-28s worst %.3f of tol, max |diff| %.2g over %zu values\n", what, rep.worst, rep.max_abs_err,
               rep.checked);
}

/* Builds once and returns the output node; the caller frees the tape. */
static fgl_node *forward(fgl_tape *t, fgl_params *ps, fgl_node *(*build)(fgl_tape *, fgl_params *, void *), void *ud) {
    fgl_tape_init(t);
    return build(t, ps, ud);
}

/* |got - want| <= atol + rtol |want| elementwise. */
static void close_to(const char *what, const fgl_node *y, const double *want, int rows, int cols, double rtol) {
    int k, bad = -1;
    if (!y) {
        FT_CHECK(0, "%s: forward returned NULL", what);
        return;
    }
    FT_CHECK(y->rows == rows && y->cols == cols, "%s: shape %dx%d, expected %dx%d", what, y->rows, y->cols, rows, cols);
    if (y->rows != rows || y->cols != cols) return;
    for (k = 0; k < rows * cols && bad < 0; k++)
        if (!(fabs(y->val[k] - want[k]) <= 1e-6 + rtol * fabs(want[k]))) bad = k;
    FT_CHECK(bad < 0, "%s: element %d is %.9g, naive %.9g", what, bad, bad < 0 ? 0 : y->val[bad], bad < 0 ? 0 : want[bad]);
}

static const float *D(const fgl_params *ps, int s) { return fgl_params_data(ps, s); }

/* ---- linear algebra ------------------------------------------------------- */

static fgl_node *b_matmul(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    return fgl_op_matmul_ex(t, P(0), c->i0, P(1), c->i1);
}

static void test_matmul(void) {
    int ta, tb, M = 4, K = 3, N = 5;
    for (ta = 0; ta < 2; ta++)
        for (tb = 0; tb < 2; tb++) {
            fgl_params ps;
            ctx c;
            fgl_tape t;
            double want[4 * 5];
            char what[64];
            int i, j, p;
            memset(&c, 0, sizeof c);
            fgl_params_init(&ps);
            c.s[0] = rnd(&ps, "A", ta ? K : M, ta ? M : K, -1, 1);
            c.s[1] = rnd(&ps, "B", tb ? N : K, tb ? K : N, -1, 1);
            c.i0 = ta;
            c.i1 = tb;
            for (i = 0; i < M; i++)
                for (j = 0; j < N; j++) {
                    double s = 0;
                    for (p = 0; p < K; p++)
                        s += (double)(ta ? D(&ps, c.s[0])[p * M + i] : D(&ps, c.s[0])[i * K + p]) *
                             (tb ? D(&ps, c.s[1])[j * K + p] : D(&ps, c.s[1])[p * N + j]);
                    want[i * N + j] = s;
                }
            snprintf(what, sizeof what, "matmul ta=%d tb=%d", ta, tb);
            close_to(what, forward(&t, &ps, b_matmul, &c), want, M, N, 1e-5);
            fgl_tape_free(&t);
            gc(what, &ps, b_matmul, &c);
            fgl_params_free(&ps);
        }
}

/* x W + b as one node, with and without the bias. */
static fgl_node *b_linear(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    return fgl_op_linear(t, P(0), P(1), c->i0 ? P(2) : NULL);
}

static void test_linear(void) {
    int with_bias, M = 5, K = 4, N = 3;
    for (with_bias = 0; with_bias < 2; with_bias++) {
        fgl_params ps;
        ctx c;
        fgl_tape t;
        double want[5 * 3];
        int i, j, q;
        memset(&c, 0, sizeof c);
        fgl_params_init(&ps);
        c.s[0] = rnd(&ps, "x", M, K, -1, 1);
        c.s[1] = rnd(&ps, "W", K, N, -1, 1);
        c.s[2] = rnd(&ps, "b", 1, N, -1, 1);
        c.i0 = with_bias;
        for (i = 0; i < M; i++)
            for (j = 0; j < N; j++) {
                double sum = with_bias ? D(&ps, c.s[2])[j] : 0;
                for (q = 0; q < K; q++) sum += (double)D(&ps, c.s[0])[i * K + q] * D(&ps, c.s[1])[q * N + j];
                want[i * N + j] = sum;
            }
        close_to(with_bias ? "linear with bias" : "linear", forward(&t, &ps, b_linear, &c), want, M, N, 1e-5);
        fgl_tape_free(&t);
        gc(with_bias ? "linear with bias" : "linear", &ps, b_linear, &c);
        fgl_params_free(&ps);
    }
    { /* shape errors */
        fgl_tape tp;
        float x[6] = {0}, w[6] = {0}, b[3] = {0};
        fgl_tape_init(&tp);
        FT_CHECK(!fgl_op_linear(&tp, fgl_op_const(&tp, x, 2, 3), fgl_op_const(&tp, w, 2, 3), NULL) &&
                     tp.err.code == FGL_ERR_SHAPE && strstr(tp.err.msg, "linear"), "inner dimensions: %s", tp.err.msg);
        fgl_tape_reset(&tp);
        FT_CHECK(!fgl_op_linear(&tp, fgl_op_const(&tp, x, 2, 3), fgl_op_const(&tp, w, 3, 2), fgl_op_const(&tp, b, 1, 3)) &&
                     tp.err.code == FGL_ERR_SHAPE, "bias width: %s", tp.err.msg);
        fgl_tape_free(&tp);
    }
}

/* ReLU(x W + b) as one node. */
static fgl_node *b_linear_relu(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    return fgl_op_linear_relu(t, P(0), P(1), c->i0 ? P(2) : NULL);
}

/* sum(y * w), w fixed and nonzero everywhere: a loss whose gradient does not
 * vanish where y is 0 (as y^2's would, hiding a missing ReLU mask). */
static fgl_node *weighted_sum(fgl_tape *t, fgl_node *y) {
    float *w = (float *)fgl_tape_alloc(t, sizeof(float) * ((size_t)y->rows * y->cols + 1));
    size_t k;
    if (!w) return NULL;
    for (k = 0; k < (size_t)y->rows * y->cols; k++) w[k] = 0.25f * (float)((int)(k % 7) - 3) + 0.1f;
    return fgl_op_sum(t, fgl_op_mul(t, y, fgl_op_const(t, w, y->rows, y->cols)));
}

/* The fused op against relu(linear(...)) on one shape: the same output and
 * gradient bits (x, W, b), with some outputs exactly 0 (row 0 of x is
 * zeros: the bias alone, whose first value is 0) or NaN (nan_row >= 0: a
 * NaN in row nan_row of x; forward only). */
static void check_linear_relu_bits(int M, int K, int N, int nan_row) {
    fgl_params ps;
    fgl_tape t1, t2;
    fgl_node *y1, *y2;
    int sx, sw, sb, i, same_val = 0, same_grad = 1;
    float *g1;
    fgl_rng r;
    fgl_rng_init(&r, (uint64_t)(M * 7919 + K * 131 + N), 0);
    fgl_params_init(&ps);
    sx = fgl_params_add(&ps, "x", M, K, FGL_G_OTHER, 1);
    sw = fgl_params_add(&ps, "W", K, N, FGL_G_OTHER, 1);
    sb = fgl_params_add(&ps, "b", 1, N, FGL_G_OTHER, 1);
    for (i = 0; i < (int)ps.size; i++) ps.data[i] = fgl_rng_uniformf(&r, -1, 1);
    for (i = 0; i < K; i++) fgl_params_data(&ps, sx)[i] = 0.0f; /* row 0: the bias alone */
    fgl_params_data(&ps, sb)[0] = 0.0f;
    if (nan_row >= 0) fgl_params_data(&ps, sx)[(size_t)nan_row * K] = NAN;
    g1 = (float *)calloc(ps.size, sizeof(float));
    fgl_tape_init(&t1);
    fgl_tape_init(&t2);
    fgl_params_zero_grad(&ps);
    y1 = fgl_op_relu(&t1, fgl_op_linear(&t1, fgl_op_param(&t1, &ps, sx), fgl_op_param(&t1, &ps, sw), fgl_op_param(&t1, &ps, sb)));
    if (nan_row < 0 && y1) fgl_tape_backward(&t1, weighted_sum(&t1, y1));
    if (g1) memcpy(g1, ps.grad, sizeof(float) * ps.size);
    fgl_params_zero_grad(&ps);
    y2 = fgl_op_linear_relu(&t2, fgl_op_param(&t2, &ps, sx), fgl_op_param(&t2, &ps, sw), fgl_op_param(&t2, &ps, sb));
    if (nan_row < 0 && y2) fgl_tape_backward(&t2, weighted_sum(&t2, y2));
    FT_CHECK(y1 && y2 && !t1.err.code && !t2.err.code && g1, "linear_relu %dx%dx%d: tapes healthy", M, K, N);
    if (y1 && y2 && g1) {
        same_val = memcmp(y1->val, y2->val, sizeof(float) * (size_t)M * N) == 0;
        for (i = 0; i < (int)ps.size; i++) same_grad &= memcmp(&g1[i], &ps.grad[i], sizeof(float)) == 0;
        FT_CHECK(y2->val[0] == 0.0f && !signbit(y2->val[0]), "linear_relu %dx%dx%d: relu(0) is +0", M, K, N);
        if (nan_row >= 0)
            FT_CHECK(y2->val[(size_t)nan_row * N] == 0.0f, "linear_relu %dx%dx%d: relu(NaN) is 0, as fgl_op_relu", M, K, N);
    }
    FT_CHECK(same_val, "linear_relu %dx%dx%d%s: the output bits of relu(linear)", M, K, N, nan_row >= 0 ? " (a NaN row)" : "");
    FT_CHECK(same_grad, "linear_relu %dx%dx%d: the gradient bits of relu(linear)", M, K, N);
    free(g1);
    fgl_tape_free(&t1);
    fgl_tape_free(&t2);
    fgl_params_free(&ps);
}

static void test_linear_relu(void) {
    /* edge tiles (M not a multiple of 6, N of 32), k over several blocks of
     * 256, a few rows over a long k (split by k on several threads), and a
     * product large enough to run in parallel */
    static const int shapes[6][3] = {{5, 4, 3}, {13, 7, 45}, {40, 300, 33}, {64, 1100, 64}, {3000, 64, 64}, {2000, 3, 70}};
    int s, with_bias, tries;
    for (s = 0; s < 6; s++) {
        check_linear_relu_bits(shapes[s][0], shapes[s][1], shapes[s][2], -1);
        check_linear_relu_bits(shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][0] - 1);
    }
    for (with_bias = 0; with_bias < 2; with_bias++) { /* finite differences, every output away from the kink */
        fgl_params ps;
        ctx c;
        fgl_tape t;
        fgl_node *y;
        int i;
        memset(&c, 0, sizeof c);
        fgl_params_init(&ps);
        c.s[0] = rnd(&ps, "x", 5, 4, -1, 1);
        c.s[1] = rnd(&ps, "W", 4, 3, -1, 1);
        c.s[2] = rnd(&ps, "b", 1, 3, -1, 1);
        c.i0 = with_bias;
        for (tries = 0; tries < 40; tries++) { /* move x until no pre-activation is within 0.05 of 0 */
            double closest = 1e9;
            fgl_tape_init(&t);
            y = fgl_op_linear(&t, fgl_op_param(&t, &ps, c.s[0]), fgl_op_param(&t, &ps, c.s[1]),
                              with_bias ? fgl_op_param(&t, &ps, c.s[2]) : NULL);
            for (i = 0; y && i < 15; i++) closest = fabs(y->val[i]) < closest ? fabs(y->val[i]) : closest;
            fgl_tape_free(&t);
            if (closest > 0.05) break;
            for (i = 0; i < 20; i++) fgl_params_data(&ps, c.s[0])[i] += 0.031f * (float)((i % 3) - 1);
        }
        FT_CHECK(tries < 40, "linear_relu: inputs away from the kink");
        gc(with_bias ? "linear_relu with bias" : "linear_relu", &ps, b_linear_relu, &c);
        fgl_params_free(&ps);
    }
    { /* k = 0: the output is the bias, whose -0 comes out +0, as from relu(linear(...)) */
        fgl_tape tp;
        float none[1] = {0}, b[3] = {-0.0f, 0.5f, -0.25f};
        fgl_node *y1, *y2;
        fgl_tape_init(&tp);
        y1 = fgl_op_relu(&tp, fgl_op_linear(&tp, fgl_op_const(&tp, none, 4, 0), fgl_op_const(&tp, none, 0, 3),
                                            fgl_op_const(&tp, b, 1, 3)));
        y2 = fgl_op_linear_relu(&tp, fgl_op_const(&tp, none, 4, 0), fgl_op_const(&tp, none, 0, 3), fgl_op_const(&tp, b, 1, 3));
        FT_CHECK(y1 && y2 && memcmp(y1->val, y2->val, sizeof(float) * 12) == 0 && !signbit(y2->val[0]) &&
                     y2->val[1] == 0.5f && y2->val[2] == 0.0f,
                 "k = 0: relu(bias), -0 to +0, the bits of relu(linear)");
        fgl_tape_free(&tp);
    }
    { /* shape errors name the op */
        fgl_tape tp;
        float x[6] = {0}, w[6] = {0};
        fgl_tape_init(&tp);
        FT_CHECK(!fgl_op_linear_relu(&tp, fgl_op_const(&tp, x, 2, 3), fgl_op_const(&tp, w, 2, 3), NULL) &&
                     tp.err.code == FGL_ERR_SHAPE && strstr(tp.err.msg, "linear_relu"), "inner dimensions: %s", tp.err.msg);
        fgl_tape_free(&tp);
    }
}

/* The dense layer's backward in one pass over blocks of 256 rows (taken
 * when x has at most 96 columns, y at most 128, and there are 256 rows or
 * more) against the unfused formulas through the public fgl_gemm, bit for
 * bit: dx = dy W^T, dW = x^T dy, db the column sums of dy in row order, dy
 * masked where the output is 0 (relu). Two layers share x, W and b, so the
 * second backward adds to what the first wrote; the gradients are zeroed
 * first (added to 0) or their zeroing deferred (stored, then added). At 1,
 * 2 and 3 threads. Shapes: one block exactly; edges (n not a multiple of
 * 16, a last block short); the largest k and n taken; more blocks than one
 * buffer holds (two groups); and two beyond the limits (the unfused pass,
 * against the same formulas). */
static void check_linear_rows(int M, int K, int N, int relu, int with_bias, int defer, int threads) {
    fgl_params ps;
    fgl_tape t;
    fgl_node *x, *w, *b, *y1, *y2, *loss;
    float *c1, *c2, *dy1, *dy2, *gx, *gw, *gb;
    int sx, sw, sb, i, j, ok;
    size_t k;
    fgl_rng r;
#ifdef _OPENMP
    int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
#endif
    fgl_rng_init(&r, (uint64_t)(M * 31 + K * 7 + N), 3);
    fgl_params_init(&ps);
    sx = fgl_params_add(&ps, "x", M, K, FGL_G_OTHER, 1);
    sw = fgl_params_add(&ps, "W", K, N, FGL_G_OTHER, 1);
    sb = fgl_params_add(&ps, "b", 1, N, FGL_G_OTHER, 1);
    for (k = 0; k < ps.size; k++) ps.data[k] = fgl_rng_uniformf(&r, -1, 1);
    c1 = (float *)malloc(sizeof(float) * (size_t)M * N * 4);
    c2 = c1 + (size_t)M * N;
    dy1 = c2 + (size_t)M * N;
    dy2 = dy1 + (size_t)M * N;
    gx = (float *)calloc((size_t)M * K + (size_t)K * N + N, sizeof(float));
    gw = gx + (size_t)M * K;
    gb = gw + (size_t)K * N;
    FT_CHECK(c1 && gx, "linear rows: buffers");
    if (!c1 || !gx) {
        free(c1);
        free(gx);
        fgl_params_free(&ps);
        return;
    }
    for (k = 0; k < (size_t)M * N; k++) {
        c1[k] = fgl_rng_uniformf(&r, -2, 2);
        c2[k] = fgl_rng_uniformf(&r, -2, 2);
    }
    if (defer) {
        for (k = 0; k < ps.size; k++) ps.grad[k] = NAN;
        fgl_params_defer_zero_grad(&ps);
    } else
        fgl_params_zero_grad(&ps);
    fgl_tape_init(&t);
    x = fgl_op_param(&t, &ps, sx);
    w = fgl_op_param(&t, &ps, sw);
    b = with_bias ? fgl_op_param(&t, &ps, sb) : NULL;
    y1 = relu ? fgl_op_linear_relu(&t, x, w, b) : fgl_op_linear(&t, x, w, b);
    y2 = relu ? fgl_op_linear_relu(&t, x, w, b) : fgl_op_linear(&t, x, w, b);
    loss = fgl_op_add(&t, fgl_op_sum(&t, fgl_op_mul(&t, y1, fgl_op_const(&t, c1, M, N))),
                      fgl_op_sum(&t, fgl_op_mul(&t, y2, fgl_op_const(&t, c2, M, N))));
    ok = loss && fgl_tape_backward(&t, loss) == FGL_OK;
    FT_CHECK(ok, "linear rows %dx%dx%d: backward: %s", M, K, N, t.err.msg);
    if (ok) {
        /* y2's backward runs first (the later node), then y1's adds */
        for (k = 0; k < (size_t)M * N; k++) {
            dy1[k] = relu && !(y1->val[k] > 0) ? 0.0f : c1[k];
            dy2[k] = relu && !(y2->val[k] > 0) ? 0.0f : c2[k];
        }
        fgl_gemm(0, 1, M, K, N, 1.0f, dy2, N, w->val, N, defer ? 0.0f : 1.0f, gx, K);
        fgl_gemm(0, 1, M, K, N, 1.0f, dy1, N, w->val, N, 1.0f, gx, K);
        fgl_gemm(1, 0, K, N, M, 1.0f, x->val, K, dy2, N, defer ? 0.0f : 1.0f, gw, N);
        fgl_gemm(1, 0, K, N, M, 1.0f, x->val, K, dy1, N, 1.0f, gw, N);
        for (j = 0; j < N && with_bias; j++) {
            float acc = 0.0f;
            for (i = 0; i < M; i++) acc += dy2[(size_t)i * N + j];
            for (i = 0; i < M; i++) acc += dy1[(size_t)i * N + j];
            gb[j] = acc;
        }
        FT_CHECK(memcmp(fgl_params_gradp(&ps, sx), gx, sizeof(float) * (size_t)M * K) == 0,
                 "linear%s rows %dx%dx%d%s%s, %d threads: dx has the bits of dy W^T", relu ? "_relu" : "", M, K, N,
                 with_bias ? ", bias" : "", defer ? ", zeroing deferred" : "", threads);
        FT_CHECK(memcmp(fgl_params_gradp(&ps, sw), gw, sizeof(float) * (size_t)K * N) == 0,
                 "linear%s rows %dx%dx%d%s%s, %d threads: dW has the bits of x^T dy", relu ? "_relu" : "", M, K, N,
                 with_bias ? ", bias" : "", defer ? ", zeroing deferred" : "", threads);
        if (with_bias)
            FT_CHECK(memcmp(fgl_params_gradp(&ps, sb), gb, sizeof(float) * (size_t)N) == 0,
                     "linear%s rows %dx%dx%d%s, %d threads: db has the bits of dy's column sums in row order",
                     relu ? "_relu" : "", M, K, N, defer ? ", zeroing deferred" : "", threads);
    }
    fgl_tape_free(&t);
    free(c1);
    free(gx);
    fgl_params_free(&ps);
#ifdef _OPENMP
    omp_set_num_threads(saved);
#endif
    (void)threads;
}

static void test_linear_rows(void) {
    static const int shapes[7][3] = {{256, 64, 64}, {700, 3, 70}, {300, 96, 128}, {1000, 5, 33},
                                     {16684, 5, 16}, {300, 97, 20}, {300, 8, 129}};
    int s, v, threads;
    for (s = 0; s < 7; s++)
        for (v = 0; v < 8; v++)
            for (threads = 1; threads <= 3; threads++)
                check_linear_rows(shapes[s][0], shapes[s][1], shapes[s][2], v & 1, (v >> 1) & 1, v >> 2, threads);
    { /* y with no columns: dx is 0 (a sum over nothing), written into a fresh
       * gradient buffer whose memory the same tape used before (a first pass
       * with one column leaves its values there) */
        fgl_params ps;
        fgl_tape t;
        float w[4] = {0.5f, -1.0f, 2.0f, 0.25f}, wg[4] = {0};
        int sx, pass, zero = 1;
        size_t k;
        fgl_params_init(&ps);
        sx = rnd(&ps, "x", 300, 4, -1, 1);
        fgl_tape_init(&t);
        for (pass = 0; pass < 2; pass++) {
            fgl_node *x2, *y;
            fgl_tape_reset(&t);
            fgl_params_zero_grad(&ps);
            x2 = fgl_op_scale(&t, fgl_op_param(&t, &ps, sx), 2.0f); /* an intermediate: its gradient buffer is fresh */
            y = fgl_op_linear(&t, x2, fgl_op_leaf(&t, w, wg, 4, 1 - pass), NULL); /* W 4x1, then 4x0 */
            FT_CHECK(y && fgl_tape_backward(&t, fgl_op_sum(&t, y)) == FGL_OK, "linear, 0 columns: pass %d: %s", pass, t.err.msg);
        }
        for (k = 0; k < (size_t)300 * 4; k++) zero &= fgl_params_gradp(&ps, sx)[k] == 0.0f;
        FT_CHECK(zero, "linear 300x4x0: dx is 0 (first value %g)", (double)fgl_params_gradp(&ps, sx)[0]);
        fgl_tape_free(&t);
        fgl_params_free(&ps);
    }
    { /* finite differences through the one-pass backward (no ReLU: 900 inputs cannot all be kept off its kink) */
        ctx c;
        fgl_params ps;
        memset(&c, 0, sizeof c);
        fgl_params_init(&ps);
        c.s[0] = rnd(&ps, "x", 300, 3, -1, 1);
        c.s[1] = rnd(&ps, "W", 3, 5, -1, 1);
        c.s[2] = rnd(&ps, "b", 1, 5, -1, 1);
        c.i0 = 1;
        gc("linear, 300 rows (one pass)", &ps, b_linear, &c);
        fgl_params_free(&ps);
    }
}

/* x^T x: the same node is both operands, so both gradients land in one buffer. */
static fgl_node *b_gram(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    fgl_node *x = P(0);
    return fgl_op_matmul_ex(t, x, 1, x, 0);
}

static void test_matmul_aliased(void) {
    fgl_params ps;
    ctx c;
    memset(&c, 0, sizeof c);
    fgl_params_init(&ps);
    c.s[0] = rnd(&ps, "x", 4, 3, -1, 1);
    gc("matmul x^T x", &ps, b_gram, &c);
    fgl_params_free(&ps);
}

static fgl_node *b_transpose(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    return fgl_op_transpose(t, P(0));
}

static void test_transpose(void) {
    fgl_params ps;
    ctx c;
    fgl_tape t;
    double want[12];
    int i, j;
    memset(&c, 0, sizeof c);
    fgl_params_init(&ps);
    c.s[0] = rnd(&ps, "a", 3, 4, -1, 1);
    for (i = 0; i < 3; i++)
        for (j = 0; j < 4; j++) want[j * 3 + i] = D(&ps, c.s[0])[i * 4 + j];
    close_to("transpose", forward(&t, &ps, b_transpose, &c), want, 4, 3, 0);
    fgl_tape_free(&t);
    gc("transpose", &ps, b_transpose, &c);
    fgl_params_free(&ps);
}

/* ---- broadcasting binary ops ---------------------------------------------- */

static fgl_node *b_binary(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    switch (c->op) {
    case 0: return fgl_op_add(t, P(0), P(1));
    case 1: return fgl_op_sub(t, P(0), P(1));
    case 2: return fgl_op_mul(t, P(0), P(1));
    default: return fgl_op_bias(t, P(0), P(1));
    }
}

static void test_binary_broadcast(void) {
    static const char *names[] = {"add", "sub", "mul", "bias"};
    static const char *modes[] = {"same", "row 1xC", "col Rx1", "scalar 1x1"};
    int R0 = 3, C0 = 4, op, mode;
    for (op = 0; op < 4; op++)
        for (mode = 0; mode < 4; mode++) {
            fgl_params ps;
            ctx c;
            fgl_tape t;
            double want[12];
            char what[64];
            int br = mode == 0 || mode == 2 ? R0 : 1, bc = mode == 0 || mode == 1 ? C0 : 1, i, j;
            if (op == 3 && mode != 1) continue; /* bias is the row mode only */
            memset(&c, 0, sizeof c);
            fgl_params_init(&ps);
            c.s[0] = rnd(&ps, "a", R0, C0, -1, 1);
            c.s[1] = rnd(&ps, "b", br, bc, -1, 1);
            c.op = op;
            for (i = 0; i < R0; i++)
                for (j = 0; j < C0; j++) {
                    double a = D(&ps, c.s[0])[i * C0 + j];
                    double b = D(&ps, c.s[1])[(br > 1 ? i : 0) * bc + (bc > 1 ? j : 0)];
                    want[i * C0 + j] = op == 1 ? a - b : op == 2 ? a * b : a + b;
                }
            snprintf(what, sizeof what, "%s %s", names[op], modes[mode]);
            close_to(what, forward(&t, &ps, b_binary, &c), want, R0, C0, 1e-6);
            fgl_tape_free(&t);
            gc(what, &ps, b_binary, &c);
            fgl_params_free(&ps);
        }
}

static fgl_node *b_square_by_mul(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    fgl_node *x = P(0);
    return fgl_op_mul(t, x, x);
}

static void test_binary_aliased(void) {
    fgl_params ps;
    ctx c;
    memset(&c, 0, sizeof c);
    fgl_params_init(&ps);
    c.s[0] = rnd(&ps, "x", 3, 3, -1, 1);
    gc("mul x * x", &ps, b_square_by_mul, &c);
    fgl_params_free(&ps);
}

/* ---- elementwise unary ops ------------------------------------------------ */

enum { U_RELU, U_LEAKY, U_ELU, U_SIGMOID, U_TANH, U_EXP, U_LOG, U_ABS, U_SQUARE, U_SCALE, U_AFFINE, U_N };

static fgl_node *b_unary(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    fgl_node *x = P(0);
    switch (c->op) {
    case U_RELU: return fgl_op_relu(t, x);
    case U_LEAKY: return fgl_op_leaky_relu(t, x, 0.1f);
    case U_ELU: return fgl_op_elu(t, x, 1.3f);
    case U_SIGMOID: return fgl_op_sigmoid(t, x);
    case U_TANH: return fgl_op_tanh(t, x);
    case U_EXP: return fgl_op_exp(t, x);
    case U_LOG: return fgl_op_log(t, x);
    case U_ABS: return fgl_op_abs(t, x);
    case U_SQUARE: return fgl_op_square(t, x);
    case U_SCALE: return fgl_op_scale(t, x, -1.7f);
    default: return fgl_op_affine(t, x, 0.6f, -0.3f);
    }
}

static double naive_unary(int op, double x) {
    switch (op) {
    case U_RELU: return x > 0 ? x : 0;
    case U_LEAKY: return x > 0 ? x : 0.1 * x;
    case U_ELU: return x > 0 ? x : 1.3 * (exp(x) - 1);
    case U_SIGMOID: return 1 / (1 + exp(-x));
    case U_TANH: return tanh(x);
    case U_EXP: return exp(x);
    case U_LOG: return log(x);
    case U_ABS: return fabs(x);
    case U_SQUARE: return x * x;
    case U_SCALE: return -1.7f * x;
    default: return 0.6f * x - 0.3f;
    }
}

static void test_unary(void) {
    static const char *names[] = {"relu", "leaky_relu", "elu", "sigmoid", "tanh", "exp",
                                  "log", "abs", "square", "scale", "affine"};
    int op;
    for (op = 0; op < U_N; op++) {
        fgl_params ps;
        ctx c;
        fgl_tape t;
        double want[20];
        int k;
        memset(&c, 0, sizeof c);
        fgl_params_init(&ps);
        if (op == U_RELU || op == U_LEAKY || op == U_ELU || op == U_ABS) c.s[0] = away(&ps, "x", 4, 5);
        else if (op == U_LOG) c.s[0] = rnd(&ps, "x", 4, 5, 0.3f, 3.0f);
        else if (op == U_SIGMOID) c.s[0] = rnd(&ps, "x", 4, 5, -4, 4);
        else c.s[0] = rnd(&ps, "x", 4, 5, -1.5f, 1.5f);
        c.op = op;
        for (k = 0; k < 20; k++) want[k] = naive_unary(op, D(&ps, c.s[0])[k]);
        close_to(names[op], forward(&t, &ps, b_unary, &c), want, 4, 5, 2e-6);
        fgl_tape_free(&t);
        gc(names[op], &ps, b_unary, &c);
        fgl_params_free(&ps);
    }
}

static void test_sigmoid_log_extremes(void) {
    /* sigmoid must not overflow for large |x|; log clamps at 1e-30. */
    float x[4] = {-100, 100, 0, -30}, z[2] = {0, -1};
    fgl_tape t;
    fgl_node *s, *l;
    fgl_tape_init(&t);
    s = fgl_op_sigmoid(&t, fgl_op_const(&t, x, 1, 4));
    l = fgl_op_log(&t, fgl_op_const(&t, z, 1, 2));
    FT_CHECK(s && fgl_all_finite(4, s->val), "sigmoid finite");
    FT_CHECK(s && s->val[0] >= 0 && s->val[0] < 1e-40 && s->val[1] == 1.0f && s->val[2] == 0.5f, "sigmoid values");
    FT_CHECK(l && fabs(l->val[0] - log(1e-30)) < 1e-4 && fabs(l->val[1] - log(1e-30)) < 1e-4, "log clamps");
    fgl_tape_free(&t);
}

/* ---- dropout ---------------------------------------------------------------- */

static fgl_node *b_dropout(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    fgl_rng_init(&c->rng, 99, 0); /* same mask in every rebuild */
    return fgl_op_dropout(t, P(0), c->f0, &c->rng);
}

static void test_dropout(void) {
    fgl_params ps;
    ctx c;
    fgl_tape t;
    fgl_node *y, *x;
    int k, kept = 0, n = 100 * 50, ok = 1;
    double rate;
    memset(&c, 0, sizeof c);
    fgl_params_init(&ps);
    c.s[0] = away(&ps, "x", 100, 50);
    c.f0 = 0.4f;
    y = forward(&t, &ps, b_dropout, &c);
    FT_CHECK(y != NULL, "dropout");
    for (k = 0; y && k < n; k++) {
        float xv = D(&ps, c.s[0])[k];
        if (y->val[k] == 0.0f) continue;
        kept++;
        if (fabs(y->val[k] - xv / 0.6) > 1e-6 * fabs(xv / 0.6)) ok = 0;
    }
    rate = (double)kept / n;
    /* keep rate 0.6; 5 standard errors of a binomial proportion */
    FT_NEAR(rate, 0.6, 5 * sqrt(0.6 * 0.4 / n), "keep rate");
    FT_CHECK(ok, "kept values are x / (1 - p)");
    fgl_tape_free(&t);
    fgl_params_free(&ps);

    fgl_params_init(&ps);
    c.s[0] = away(&ps, "x", 4, 6);
    gc("dropout p=0.4", &ps, b_dropout, &c);
    /* evaluation (no rng) and p = 0 are the identity; p = 1 drops all */
    fgl_tape_init(&t);
    x = fgl_op_param(&t, &ps, c.s[0]);
    FT_CHECK(fgl_op_dropout(&t, x, 0.5f, NULL) == x, "no rng: identity");
    FT_CHECK(fgl_op_dropout(&t, x, 0.0f, &c.rng) == x, "p = 0: identity");
    y = fgl_op_dropout(&t, x, 1.0f, &c.rng);
    for (k = 0, ok = 1; y && k < 24; k++) ok &= y->val[k] == 0.0f;
    FT_CHECK(y && ok, "p = 1 drops everything");
    fgl_tape_free(&t);
    fgl_params_free(&ps);
}

static fgl_node *b_relu_dropout(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    fgl_rng_init(&c->rng, 99, 0);
    return fgl_op_relu_dropout(t, P(0), c->f0, &c->rng);
}

/* The fused op against relu then dropout: same values, gradient and draws,
 * on a matrix large enough for the parallel path; and its own gradient. */
static void test_relu_dropout(void) {
    fgl_params ps;
    ctx c;
    fgl_tape t1, t2;
    fgl_node *y1, *y2;
    fgl_rng r1, r2;
    float *g1;
    int same;
    memset(&c, 0, sizeof c);
    fgl_params_init(&ps);
    c.s[0] = rnd(&ps, "x", 120, 600, -1, 1);
    g1 = (float *)malloc(sizeof(float) * ps.size);
    fgl_rng_init(&r1, 7, 0);
    r2 = r1;
    fgl_tape_init(&t1);
    fgl_tape_init(&t2);
    fgl_params_zero_grad(&ps);
    y1 = fgl_op_dropout(&t1, fgl_op_relu(&t1, fgl_op_param(&t1, &ps, c.s[0])), 0.3f, &r1);
    fgl_tape_backward(&t1, fgl_op_sum(&t1, fgl_op_square(&t1, y1)));
    memcpy(g1, ps.grad, sizeof(float) * ps.size);
    fgl_params_zero_grad(&ps);
    y2 = fgl_op_relu_dropout(&t2, fgl_op_param(&t2, &ps, c.s[0]), 0.3f, &r2);
    fgl_tape_backward(&t2, fgl_op_sum(&t2, fgl_op_square(&t2, y2)));
    same = y1 && y2 && !t1.err.code && !t2.err.code && memcmp(y1->val, y2->val, sizeof(float) * 120 * 600) == 0 &&
           memcmp(g1, ps.grad, sizeof(float) * ps.size) == 0 && memcmp(&r1, &r2, sizeof r1) == 0;
    FT_CHECK(same, "relu_dropout: the bits of relu then dropout (values, gradient, rng state)");
    free(g1);
    fgl_tape_free(&t1);
    fgl_tape_free(&t2);
    fgl_params_free(&ps);

    fgl_params_init(&ps);
    c.s[0] = away(&ps, "x", 4, 6);
    c.f0 = 0.4f;
    gc("relu_dropout p=0.4", &ps, b_relu_dropout, &c);
    fgl_params_free(&ps);
}

/* ---- shape ops ---------------------------------------------------------------- */

static const float k_const[3 * 2] = {0.5f, -1, 2, 0.25f, -0.75f, 1.5f};

static fgl_node *b_concat(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    fgl_node *xs[4];
    xs[0] = P(0);
    xs[1] = P(1);
    xs[2] = fgl_op_const(t, k_const, 3, 2); /* an input with no gradient in the middle */
    xs[3] = P(2);
    return fgl_op_concat_cols(t, xs, 4);
}

static fgl_node *b_concat2(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    return fgl_op_concat2(t, P(1), P(0));
}

static void test_concat(void) {
    fgl_params ps;
    ctx c;
    fgl_tape t;
    double want[3 * 9], want2[3 * 3];
    int i, j;
    memset(&c, 0, sizeof c);
    fgl_params_init(&ps);
    c.s[0] = rnd(&ps, "a", 3, 2, -1, 1);
    c.s[1] = rnd(&ps, "b", 3, 1, -1, 1);
    c.s[2] = rnd(&ps, "c", 3, 4, -1, 1);
    for (i = 0; i < 3; i++) {
        double *w = want + i * 9;
        for (j = 0; j < 2; j++) w[j] = D(&ps, c.s[0])[i * 2 + j];
        w[2] = D(&ps, c.s[1])[i];
        for (j = 0; j < 2; j++) w[3 + j] = k_const[i * 2 + j];
        for (j = 0; j < 4; j++) w[5 + j] = D(&ps, c.s[2])[i * 4 + j];
        want2[i * 3] = D(&ps, c.s[1])[i];
        for (j = 0; j < 2; j++) want2[i * 3 + 1 + j] = D(&ps, c.s[0])[i * 2 + j];
    }
    close_to("concat", forward(&t, &ps, b_concat, &c), want, 3, 9, 0);
    fgl_tape_free(&t);
    close_to("concat2", forward(&t, &ps, b_concat2, &c), want2, 3, 3, 0);
    fgl_tape_free(&t);
    gc("concat of 4", &ps, b_concat, &c);
    gc("concat2", &ps, b_concat2, &c);
    fgl_params_free(&ps);
}

static fgl_node *b_slice(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    return fgl_op_slice_cols(t, P(0), 2, 3);
}

static void test_slice_cols(void) {
    fgl_params ps;
    ctx c;
    fgl_tape t;
    double want[9];
    int i, j;
    memset(&c, 0, sizeof c);
    fgl_params_init(&ps);
    c.s[0] = rnd(&ps, "a", 3, 6, -1, 1);
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) want[i * 3 + j] = D(&ps, c.s[0])[i * 6 + 2 + j];
    close_to("slice_cols", forward(&t, &ps, b_slice, &c), want, 3, 3, 0);
    fgl_tape_free(&t);
    gc("slice_cols", &ps, b_slice, &c);
    fgl_params_free(&ps);
}

static fgl_node *b_gather(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    return fgl_op_gather_rows(t, P(0), c->idx, c->n);
}

static fgl_node *b_edge_dot(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    return fgl_op_edge_dot(t, P(0), c->idx, c->off, c->n);
}

/* The dot-product decoder's edge scores: a repeated pair, a self pair (both
 * gradient terms land on one row), a row never used. */
static void test_edge_dot(void) {
    static const int src[5] = {0, 2, 0, 3, 1}, dst[5] = {2, 0, 2, 3, 3};
    fgl_params ps;
    ctx c;
    fgl_tape t;
    double want[5];
    int i, k;
    memset(&c, 0, sizeof c);
    fgl_params_init(&ps);
    c.s[0] = rnd(&ps, "z", 5, 4, -1, 1);
    c.idx = src;
    c.off = dst;
    c.n = 5;
    for (i = 0; i < 5; i++) {
        want[i] = 0;
        for (k = 0; k < 4; k++) want[i] += (double)D(&ps, c.s[0])[src[i] * 4 + k] * D(&ps, c.s[0])[dst[i] * 4 + k];
    }
    close_to("edge_dot", forward(&t, &ps, b_edge_dot, &c), want, 5, 1, 1e-6);
    fgl_tape_free(&t);
    gc("edge_dot", &ps, b_edge_dot, &c);
    {
        static const int bad[1] = {5};
        fgl_tape_init(&t);
        FT_CHECK(fgl_op_edge_dot(&t, fgl_op_param(&t, &ps, c.s[0]), bad, src, 1) == NULL && t.err.code == FGL_ERR_RANGE,
                 "edge_dot: a row past the end is refused");
        fgl_tape_free(&t);
    }
    fgl_params_free(&ps);
}

static fgl_node *b_scatter(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    return fgl_op_scatter_add_rows(t, P(0), c->idx, c->n);
}

static void test_gather_scatter(void) {
    static const int gidx[5] = {2, 0, 2, 3, 2}; /* row 2 three times, row 1 never */
    static const int sidx[5] = {1, 3, 1, 0, 1}; /* collisions on row 1; row 2 gets nothing */
    fgl_params ps;
    ctx c;
    fgl_tape t;
    double want[5 * 3];
    int i, j;
    memset(&c, 0, sizeof c);
    fgl_params_init(&ps);
    c.s[0] = rnd(&ps, "a", 4, 3, -1, 1);
    c.idx = gidx;
    c.n = 5;
    for (i = 0; i < 5; i++)
        for (j = 0; j < 3; j++) want[i * 3 + j] = D(&ps, c.s[0])[gidx[i] * 3 + j];
    close_to("gather_rows", forward(&t, &ps, b_gather, &c), want, 5, 3, 0);
    fgl_tape_free(&t);
    gc("gather_rows repeated", &ps, b_gather, &c);
    fgl_params_free(&ps);

    fgl_params_init(&ps);
    c.s[0] = rnd(&ps, "a", 5, 3, -1, 1);
    c.idx = sidx;
    c.n = 4;
    memset(want, 0, sizeof want);
    for (i = 0; i < 5; i++)
        for (j = 0; j < 3; j++) want[sidx[i] * 3 + j] += D(&ps, c.s[0])[i * 3 + j];
    close_to("scatter_add_rows", forward(&t, &ps, b_scatter, &c), want, 4, 3, 1e-6);
    fgl_tape_free(&t);
    gc("scatter_add_rows collisions", &ps, b_scatter, &c);
    fgl_params_free(&ps);
}

/* ---- segment reductions ------------------------------------------------------- */

static fgl_node *b_segment(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    switch (c->op) {
    case 0: return fgl_op_segment_sum(t, P(0), c->off, c->n);
    case 1: return fgl_op_segment_mean(t, P(0), c->off, c->n);
    case 2: return fgl_op_segment_max(t, P(0), c->off, c->n);
    case 3: return fgl_op_segment_softmax(t, P(0), c->off, c->n);
    case 4: return fgl_op_sum_rows(t, P(0));
    case 5: return fgl_op_mean_rows(t, P(0));
    case 6: return fgl_op_sum(t, P(0));
    default: return fgl_op_mean(t, P(0));
    }
}

static void test_segments(void) {
    /* 4 segments over 8 rows: rows 0-1, none, 2-4, 5-6; row 7 is in no segment. */
    static const int off[5] = {0, 2, 2, 5, 7};
    static const char *names[] = {"segment_sum", "segment_mean", "segment_max", "segment_softmax"};
    int op, R0 = 8, C0 = 3;
    for (op = 0; op < 4; op++) {
        fgl_params ps;
        ctx c;
        fgl_tape t;
        double want[8 * 3];
        int s, r, j;
        memset(&c, 0, sizeof c);
        fgl_params_init(&ps);
        c.s[0] = rnd(&ps, "a", R0, C0, -1, 1);
        if (op == 2) { /* distinct values 0.15 apart in each column: the argmax never flips */
            float *a = fgl_params_data(&ps, c.s[0]);
            for (j = 0; j < C0; j++) {
                int perm[8];
                for (r = 0; r < R0; r++) perm[r] = r;
                fgl_rng_shuffle(&R, perm, R0);
                for (r = 0; r < R0; r++) a[r * C0 + j] = -0.6f + 0.15f * (float)perm[r];
            }
        }
        c.op = op;
        c.off = off;
        c.n = 4;
        memset(want, 0, sizeof want);
        for (s = 0; s < 4; s++)
            for (j = 0; j < C0; j++) {
                double sum = 0, mx = -1e300, z = 0;
                int cnt = off[s + 1] - off[s];
                for (r = off[s]; r < off[s + 1]; r++) {
                    double v = D(&ps, c.s[0])[r * C0 + j];
                    sum += v;
                    mx = v > mx ? v : mx;
                }
                if (op == 0) want[s * C0 + j] = sum;
                if (op == 1) want[s * C0 + j] = cnt ? sum / cnt : 0;
                if (op == 2) want[s * C0 + j] = cnt ? mx : 0;
                if (op == 3) {
                    for (r = off[s]; r < off[s + 1]; r++) z += exp(D(&ps, c.s[0])[r * C0 + j] - mx);
                    for (r = off[s]; r < off[s + 1]; r++) want[r * C0 + j] = exp(D(&ps, c.s[0])[r * C0 + j] - mx) / z;
                }
            }
        close_to(names[op], forward(&t, &ps, b_segment, &c), want, op == 3 ? R0 : 4, C0, 1e-5);
        fgl_tape_free(&t);
        gc(names[op], &ps, b_segment, &c);
        fgl_params_free(&ps);
    }
}

static void test_reductions(void) {
    static const char *names[] = {"sum_rows", "mean_rows", "sum", "mean"};
    int op;
    for (op = 4; op < 8; op++) {
        fgl_params ps;
        ctx c;
        fgl_tape t;
        double want[3] = {0, 0, 0}, total = 0;
        int i, j;
        memset(&c, 0, sizeof c);
        fgl_params_init(&ps);
        c.s[0] = rnd(&ps, "a", 4, 3, -1, 1);
        c.op = op;
        for (i = 0; i < 4; i++)
            for (j = 0; j < 3; j++) {
                want[j] += D(&ps, c.s[0])[i * 3 + j];
                total += D(&ps, c.s[0])[i * 3 + j];
            }
        if (op == 5)
            for (j = 0; j < 3; j++) want[j] /= 4;
        if (op >= 6) want[0] = op == 6 ? total : total / 12;
        close_to(names[op - 4], forward(&t, &ps, b_segment, &c), want, 1, op >= 6 ? 1 : 3, 1e-6);
        fgl_tape_free(&t);
        gc(names[op - 4], &ps, b_segment, &c);
        fgl_params_free(&ps);
    }
}

/* ---- softmax and losses ------------------------------------------------------- */

static fgl_node *b_softmax(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    return c->op ? fgl_op_log_softmax(t, P(0)) : fgl_op_softmax(t, P(0));
}

static void test_softmax(void) {
    int op;
    for (op = 0; op < 2; op++) {
        fgl_params ps;
        ctx c;
        fgl_tape t;
        double want[15];
        int i, j;
        memset(&c, 0, sizeof c);
        fgl_params_init(&ps);
        c.s[0] = rnd(&ps, "a", 3, 5, -2, 2);
        c.op = op;
        for (i = 0; i < 3; i++) {
            double z = 0;
            for (j = 0; j < 5; j++) z += exp(D(&ps, c.s[0])[i * 5 + j]);
            for (j = 0; j < 5; j++)
                want[i * 5 + j] = op ? D(&ps, c.s[0])[i * 5 + j] - log(z) : exp(D(&ps, c.s[0])[i * 5 + j]) / z;
        }
        close_to(op ? "log_softmax" : "softmax", forward(&t, &ps, b_softmax, &c), want, 3, 5, 1e-5);
        fgl_tape_free(&t);
        gc(op ? "log_softmax" : "softmax", &ps, b_softmax, &c);
        fgl_params_free(&ps);
    }
}

static fgl_node *b_nll(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    return c->op ? fgl_op_nll(t, P(0), c->labels, c->mask) : fgl_op_cross_entropy(t, P(0), c->labels, c->mask);
}

static void test_cross_entropy_nll(void) {
    /* row 2 has label -1 (ignored), row 3 is masked out */
    static const int labels[6] = {0, 3, -1, 2, 1, 3};
    static const unsigned char mask[6] = {1, 1, 1, 0, 1, 1};
    int op, masked;
    for (op = 0; op < 2; op++)
        for (masked = 0; masked < 2; masked++) {
            fgl_params ps;
            ctx c;
            fgl_tape t;
            double want = 0;
            int i, j, cnt = 0;
            char what[64];
            memset(&c, 0, sizeof c);
            fgl_params_init(&ps);
            c.s[0] = rnd(&ps, "x", 6, 4, -2, 2);
            c.op = op;
            c.labels = labels;
            c.mask = masked ? mask : NULL;
            for (i = 0; i < 6; i++) {
                const float *x = D(&ps, c.s[0]) + i * 4;
                double z = 0;
                if ((masked && !mask[i]) || labels[i] < 0) continue;
                for (j = 0; j < 4; j++) z += exp(x[j]);
                want -= op ? x[labels[i]] : x[labels[i]] - log(z);
                cnt++;
            }
            want /= cnt;
            snprintf(what, sizeof what, "%s%s", op ? "nll" : "cross_entropy", masked ? " masked" : "");
            close_to(what, forward(&t, &ps, b_nll, &c), &want, 1, 1, 1e-5);
            fgl_tape_free(&t);
            gc(what, &ps, b_nll, &c);
            fgl_params_free(&ps);
        }
}

static void test_loss_no_rows(void) {
    /* nothing selected: loss 0, and backward leaves the gradient at zero */
    static const int labels[2] = {-1, 1};
    static const unsigned char mask[2] = {1, 0};
    fgl_params ps;
    fgl_tape t;
    fgl_node *y;
    int s;
    fgl_params_init(&ps);
    s = rnd(&ps, "x", 2, 3, -1, 1);
    fgl_tape_init(&t);
    y = fgl_op_cross_entropy(&t, fgl_op_param(&t, &ps, s), labels, mask);
    FT_CHECK(y && y->val[0] == 0.0f, "loss over no rows is 0");
    FT_CHECK(fgl_tape_backward(&t, y) == FGL_OK, "backward: %s", t.err.msg);
    FT_CHECK(fgl_params_norm(&ps, FGL_G_ALL) > 0 && fgl_dot(ps.size, ps.grad, ps.grad) == 0, "zero gradient");
    fgl_tape_free(&t);
    fgl_params_free(&ps);
}

static void test_loss_copies_labels(void) {
    /* backward uses the labels and mask given to the forward call, even if
     * the caller's buffers changed in between */
    int labels[3] = {0, 2, 1};
    unsigned char mask[3] = {1, 1, 0};
    float x[9] = {0.1f, 0.2f, 0.3f, -1, 0, 1, 2, 2, 2}, g1[9] = {0}, g2[9] = {0};
    fgl_tape t;
    fgl_node *y;
    fgl_tape_init(&t);
    y = fgl_op_cross_entropy(&t, fgl_op_leaf(&t, x, g1, 3, 3), labels, mask);
    FT_CHECK(fgl_tape_backward(&t, y) == FGL_OK, "backward");
    fgl_tape_reset(&t);
    y = fgl_op_cross_entropy(&t, fgl_op_leaf(&t, x, g2, 3, 3), labels, mask);
    labels[0] = 1;
    labels[1] = -1;
    mask[2] = 1;
    FT_CHECK(fgl_tape_backward(&t, y) == FGL_OK, "backward");
    FT_CHECK(memcmp(g1, g2, sizeof g1) == 0, "gradient follows the labels at forward time");
    fgl_tape_free(&t);
}

static fgl_node *b_bce(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    return fgl_op_bce_logits(t, P(0), P(1));
}

static void test_bce_logits(void) {
    fgl_params ps;
    ctx c;
    fgl_tape t;
    double want = 0;
    int k;
    memset(&c, 0, sizeof c);
    fgl_params_init(&ps);
    c.s[0] = rnd(&ps, "logits", 3, 4, -3, 3);
    c.s[1] = rnd(&ps, "targets", 3, 4, 0, 1);
    for (k = 0; k < 12; k++) {
        double x = D(&ps, c.s[0])[k], y = D(&ps, c.s[1])[k], p = 1 / (1 + exp(-x));
        want -= y * log(p) + (1 - y) * log(1 - p);
    }
    want /= 12;
    close_to("bce_logits", forward(&t, &ps, b_bce, &c), &want, 1, 1, 1e-5);
    fgl_tape_free(&t);
    gc("bce_logits (logits and targets)", &ps, b_bce, &c);
    fgl_params_free(&ps);
}

static fgl_node *b_regress(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    switch (c->op) {
    case 0: return fgl_op_mse(t, P(0), P(1));
    case 1: return fgl_op_l1(t, P(0));
    default: return fgl_op_sqnorm(t, P(0));
    }
}

static void test_mse_l1_sqnorm(void) {
    static const char *names[] = {"mse", "l1", "sqnorm"};
    int op;
    for (op = 0; op < 3; op++) {
        fgl_params ps;
        ctx c;
        fgl_tape t;
        double want = 0;
        int k;
        memset(&c, 0, sizeof c);
        fgl_params_init(&ps);
        c.s[0] = away(&ps, "a", 3, 4);
        c.s[1] = op == 0 ? rnd(&ps, "b", 3, 4, -1, 1) : -1;
        c.op = op;
        for (k = 0; k < 12; k++) {
            double a = D(&ps, c.s[0])[k];
            if (op == 0) want += (a - D(&ps, c.s[1])[k]) * (a - D(&ps, c.s[1])[k]) / 12;
            else want += op == 1 ? fabs(a) : a * a;
        }
        close_to(names[op], forward(&t, &ps, b_regress, &c), &want, 1, 1, 1e-6);
        fgl_tape_free(&t);
        gc(names[op], &ps, b_regress, &c);
        fgl_params_free(&ps);
    }
}

/* ---- geometry ------------------------------------------------------------------ */

static fgl_node *b_geometry(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    return c->op ? fgl_op_pairwise_dist(t, P(0), P(1)) : fgl_op_cosine_rows(t, P(0), P(1));
}

static void test_cosine_pairwise(void) {
    fgl_params ps;
    ctx c;
    fgl_tape t;
    double want[15];
    int i, j, k;
    memset(&c, 0, sizeof c);
    fgl_params_init(&ps);
    c.s[0] = rnd(&ps, "a", 4, 5, -1, 1);
    c.s[1] = rnd(&ps, "b", 4, 5, -1, 1);
    for (i = 0; i < 4; i++) {
        double d = 0, na = 0, nb = 0;
        for (k = 0; k < 5; k++) {
            double a = D(&ps, c.s[0])[i * 5 + k], b = D(&ps, c.s[1])[i * 5 + k];
            d += a * b;
            na += a * a;
            nb += b * b;
        }
        want[i] = d / sqrt(na * nb);
    }
    close_to("cosine_rows", forward(&t, &ps, b_geometry, &c), want, 4, 1, 1e-5);
    fgl_tape_free(&t);
    gc("cosine_rows", &ps, b_geometry, &c);
    fgl_params_free(&ps);

    fgl_params_init(&ps);
    c.s[0] = rnd(&ps, "a", 3, 4, -1, 1);
    c.s[1] = rnd(&ps, "b", 5, 4, -1, 1);
    c.op = 1;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 5; j++) {
            double s = 0;
            for (k = 0; k < 4; k++) {
                double d = D(&ps, c.s[0])[i * 4 + k] - D(&ps, c.s[1])[j * 4 + k];
                s += d * d;
            }
            want[i * 5 + j] = sqrt(s);
        }
    close_to("pairwise_dist", forward(&t, &ps, b_geometry, &c), want, 3, 5, 1e-6);
    fgl_tape_free(&t);
    gc("pairwise_dist", &ps, b_geometry, &c);
    fgl_params_free(&ps);
}

static fgl_node *b_l2norm(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    return fgl_op_l2_normalize_rows(t, P(0), c->f0);
}

/* Rows of unit length, the gradient checked, and a row below eps divided by
 * eps (as PyTorch's F.normalize): no NaN from a zero row, and its gradient is
 * the constant 1/eps scaling. */
static void test_l2_normalize_rows(void) {
    fgl_params ps;
    ctx c;
    fgl_tape t;
    fgl_node *y;
    double want[20];
    int i, k;
    float *z;
    memset(&c, 0, sizeof c);
    fgl_params_init(&ps);
    c.s[0] = rnd(&ps, "a", 4, 5, -1, 1);
    for (i = 0; i < 4; i++) {
        double n = 0;
        for (k = 0; k < 5; k++) n += (double)D(&ps, c.s[0])[i * 5 + k] * D(&ps, c.s[0])[i * 5 + k];
        for (k = 0; k < 5; k++) want[i * 5 + k] = D(&ps, c.s[0])[i * 5 + k] / sqrt(n);
    }
    close_to("l2_normalize_rows", forward(&t, &ps, b_l2norm, &c), want, 4, 5, 1e-6);
    fgl_tape_free(&t);
    gc("l2_normalize_rows", &ps, b_l2norm, &c);
    /* one row tiny: with eps 0.5 it is divided by 0.5, the others by their norm */
    z = fgl_params_data(&ps, c.s[0]);
    for (k = 0; k < 5; k++) z[5 + k] = 0.01f * (float)(k + 1);
    c.f0 = 0.5f;
    y = forward(&t, &ps, b_l2norm, &c);
    FT_CHECK(y && fabsf(y->val[5 + 2] - 0.03f / 0.5f) < 1e-7f, "a row below eps is divided by eps: %g",
             y ? (double)y->val[7] : -1.0);
    fgl_tape_free(&t);
    gc("l2_normalize_rows (a row clamped)", &ps, b_l2norm, &c);
    /* a zero row stays zero (finite), with eps 0 meaning 1e-12 */
    for (k = 0; k < 5; k++) z[5 + k] = 0.0f;
    c.f0 = 0.0f;
    y = forward(&t, &ps, b_l2norm, &c);
    FT_CHECK(y && y->val[5] == 0.0f && fgl_all_finite(20, y->val), "a zero row normalises to zero");
    fgl_tape_free(&t);
    fgl_params_free(&ps);
}

static float mix_xs[3 * 4 * 5];

static fgl_node *b_mix(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    /* softmax in front, as GAMLP uses it: the check covers a non-trivial chain */
    return fgl_op_mix_blocks(t, c->op ? fgl_op_softmax(t, P(0)) : P(0), mix_xs, 5);
}

/* out row i = sum_k w[i, k] X_k row i against a naive sum; gradient to w. */
static void test_mix_blocks(void) {
    fgl_params ps;
    ctx c;
    fgl_tape t;
    double want[20];
    int i, j, k;
    memset(&c, 0, sizeof c);
    for (k = 0; k < 60; k++) mix_xs[k] = (float)fgl_rng_uniform(&R) * 2 - 1;
    fgl_params_init(&ps);
    c.s[0] = rnd(&ps, "w", 4, 3, -1, 1);
    for (i = 0; i < 4; i++)
        for (j = 0; j < 5; j++) {
            double acc = 0;
            for (k = 0; k < 3; k++) acc += (double)D(&ps, c.s[0])[i * 3 + k] * mix_xs[(k * 4 + i) * 5 + j];
            want[i * 5 + j] = acc;
        }
    close_to("mix_blocks", forward(&t, &ps, b_mix, &c), want, 4, 5, 1e-6);
    fgl_tape_free(&t);
    gc("mix_blocks", &ps, b_mix, &c);
    c.op = 1;
    gc("mix_blocks after softmax", &ps, b_mix, &c);
    fgl_params_free(&ps);
}

/* ---- normalisation ------------------------------------------------------------- */

static fgl_node *b_layer_norm(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    return fgl_op_layer_norm(t, P(0), c->i0 ? P(1) : NULL, c->i0 ? P(2) : NULL, 1e-5f);
}

static void test_layer_norm(void) {
    int affine;
    for (affine = 0; affine < 2; affine++) {
        fgl_params ps;
        ctx c;
        fgl_tape t;
        double want[20];
        int i, j;
        memset(&c, 0, sizeof c);
        fgl_params_init(&ps);
        c.s[0] = rnd(&ps, "a", 4, 5, -2, 2);
        if (affine) {
            c.s[1] = rnd(&ps, "gamma", 1, 5, 0.5f, 1.5f);
            c.s[2] = rnd(&ps, "beta", 1, 5, -0.5f, 0.5f);
        }
        c.i0 = affine;
        for (i = 0; i < 4; i++) {
            double m = 0, v = 0;
            for (j = 0; j < 5; j++) m += D(&ps, c.s[0])[i * 5 + j] / 5;
            for (j = 0; j < 5; j++) v += (D(&ps, c.s[0])[i * 5 + j] - m) * (D(&ps, c.s[0])[i * 5 + j] - m) / 5;
            for (j = 0; j < 5; j++) {
                double xh = (D(&ps, c.s[0])[i * 5 + j] - m) / sqrt(v + 1e-5);
                want[i * 5 + j] = affine ? xh * D(&ps, c.s[1])[j] + D(&ps, c.s[2])[j] : xh;
            }
        }
        close_to(affine ? "layer_norm affine" : "layer_norm", forward(&t, &ps, b_layer_norm, &c), want, 4, 5, 1e-5);
        fgl_tape_free(&t);
        gc(affine ? "layer_norm affine" : "layer_norm", &ps, b_layer_norm, &c);
        fgl_params_free(&ps);
    }
}

static fgl_node *b_batch_norm(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    /* every rebuild starts from the same running statistics */
    memcpy(c->rm, c->rm0, sizeof(float) * 3);
    memcpy(c->rv, c->rv0, sizeof(float) * 3);
    return fgl_op_batch_norm(t, P(0), c->i1 ? P(1) : NULL, c->i1 ? P(2) : NULL, c->rm, c->rv, 0.1f, 1e-5f, c->i0);
}

static fgl_node *b_batch_norm_relu(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    memcpy(c->rm, c->rm0, sizeof(float) * 3);
    memcpy(c->rv, c->rv0, sizeof(float) * 3);
    return fgl_op_batch_norm_relu(t, P(0), c->i1 ? P(1) : NULL, c->i1 ? P(2) : NULL, c->rm, c->rv, 0.1f, 1e-5f, c->i0);
}

/* The fused op gives the bits of batch_norm then relu, forward and backward. */
static void check_bn_relu_fused(fgl_params *ps, ctx *c, const char *what) {
    fgl_tape t1, t2;
    fgl_node *y1, *y2;
    float *g1 = (float *)calloc(ps->size, sizeof(float));
    size_t i;
    int same = 1;
    fgl_tape_init(&t1);
    fgl_tape_init(&t2);
    fgl_params_zero_grad(ps);
    y1 = fgl_op_relu(&t1, b_batch_norm(&t1, ps, c));
    fgl_tape_backward(&t1, fgl_op_sum(&t1, fgl_op_square(&t1, y1)));
    memcpy(g1, ps->grad, sizeof(float) * ps->size);
    fgl_params_zero_grad(ps);
    y2 = b_batch_norm_relu(&t2, ps, c);
    fgl_tape_backward(&t2, fgl_op_sum(&t2, fgl_op_square(&t2, y2)));
    FT_CHECK(y1 && y2 && !t1.err.code && !t2.err.code, "%s fused: tapes healthy", what);
    if (y1 && y2) {
        same = memcmp(y1->val, y2->val, sizeof(float) * (size_t)y1->rows * (size_t)y1->cols) == 0;
        for (i = 0; i < ps->size; i++) same &= memcmp(&g1[i], &ps->grad[i], sizeof(float)) == 0;
    }
    FT_CHECK(same, "%s fused with relu: same output and gradient bits as batch_norm then relu", what);
    free(g1);
    fgl_tape_free(&t1);
    fgl_tape_free(&t2);
}

/* Batch norm's backward computes x-hat again from its input (it is not
 * stored): it must be the forward's x-hat to the bit. With gamma 1 and beta
 * 0 the output is x-hat itself, and gamma's gradient, for the loss
 * sum(y * w), is the sum over the rows in order of w * y (200 rows: one
 * piece of rows, one thread), so it must equal that sum computed from the
 * forward's output, bit for bit; in training and in evaluation. */
static void test_batch_norm_xhat_bits(void) {
    enum { R = 200, C = 24 };
    static float w[R * C], rm[C], rv[C];
    int train, i, j;
    fgl_rng r;
    fgl_rng_init(&r, 91, 0);
    for (i = 0; i < R * C; i++) w[i] = fgl_rng_uniformf(&r, -1, 1);
    for (train = 0; train < 2; train++) {
        fgl_params ps;
        fgl_tape t;
        fgl_node *y;
        int sx, sg, sb, same = 1;
        fgl_params_init(&ps);
        sx = fgl_params_add(&ps, "x", R, C, FGL_G_OTHER, 1);
        sg = fgl_params_add(&ps, "gamma", 1, C, FGL_G_OTHER, 1);
        sb = fgl_params_add(&ps, "beta", 1, C, FGL_G_OTHER, 1);
        for (i = 0; i < R * C; i++) fgl_params_data(&ps, sx)[i] = fgl_rng_uniformf(&r, -3, 3) + 0.37f * (float)(i % C);
        for (j = 0; j < C; j++) {
            fgl_params_data(&ps, sg)[j] = 1.0f;
            fgl_params_data(&ps, sb)[j] = 0.0f;
            rm[j] = fgl_rng_uniformf(&r, -1, 1);
            rv[j] = fgl_rng_uniformf(&r, 0.5f, 2);
        }
        fgl_params_zero_grad(&ps);
        fgl_tape_init(&t);
        t.retain_grads = 1; /* y's gradient must be w, checked below */
        y = fgl_op_batch_norm(&t, fgl_op_param(&t, &ps, sx), fgl_op_param(&t, &ps, sg), fgl_op_param(&t, &ps, sb), rm, rv,
                              0.1f, 1e-5f, train);
        FT_CHECK(y && fgl_tape_backward(&t, fgl_op_sum(&t, fgl_op_mul(&t, y, fgl_op_const(&t, w, R, C)))) == FGL_OK,
                 "batch norm (%s) and its backward ran", train ? "training" : "evaluation");
        if (y && !t.err.code)
            for (j = 0; j < C; j++) {
                float sum = 0.0f;
                for (i = 0; i < R; i++) {
                    float p = y->grad[i * C + j] * y->val[i * C + j];
                    sum += p;
                }
                same &= memcmp(&sum, &fgl_params_gradp(&ps, sg)[j], sizeof sum) == 0;
            }
        FT_CHECK(same, "batch norm (%s): gamma's gradient is the sum of dy times the forward's x-hat, bit for bit",
                 train ? "training" : "evaluation");
        fgl_tape_free(&t);
        fgl_params_free(&ps);
    }
}

static void test_batch_norm(void) {
    static const float rm0[3] = {0.2f, -0.1f, 0.5f}, rv0[3] = {1.5f, 0.7f, 2.0f};
    int train, affine;
    for (train = 0; train < 2; train++)
        for (affine = 0; affine < 2; affine++) {
            fgl_params ps;
            ctx c;
            fgl_tape t;
            float rm[3], rv[3];
            double want[18], m[3], v[3];
            char what[64];
            int i, j;
            memset(&c, 0, sizeof c);
            fgl_params_init(&ps);
            c.s[0] = rnd(&ps, "a", 6, 3, -2, 2);
            if (affine) {
                c.s[1] = rnd(&ps, "gamma", 1, 3, 0.5f, 1.5f);
                c.s[2] = rnd(&ps, "beta", 1, 3, -0.5f, 0.5f);
            }
            c.i0 = train;
            c.i1 = affine;
            c.rm = rm;
            c.rv = rv;
            c.rm0 = rm0;
            c.rv0 = rv0;
            for (j = 0; j < 3; j++) {
                m[j] = v[j] = 0;
                for (i = 0; i < 6; i++) m[j] += D(&ps, c.s[0])[i * 3 + j] / 6;
                for (i = 0; i < 6; i++) v[j] += (D(&ps, c.s[0])[i * 3 + j] - m[j]) * (D(&ps, c.s[0])[i * 3 + j] - m[j]) / 6;
                for (i = 0; i < 6; i++) {
                    double mean = train ? m[j] : rm0[j], var = train ? v[j] : rv0[j];
                    double xh = (D(&ps, c.s[0])[i * 3 + j] - mean) / sqrt(var + 1e-5);
                    want[i * 3 + j] = affine ? xh * D(&ps, c.s[1])[j] + D(&ps, c.s[2])[j] : xh;
                }
            }
            snprintf(what, sizeof what, "batch_norm %s%s", train ? "train" : "eval", affine ? " affine" : "");
            close_to(what, forward(&t, &ps, b_batch_norm, &c), want, 6, 3, 1e-5);
            fgl_tape_free(&t);
            for (j = 0; j < 3; j++) { /* PyTorch: unbiased variance in the running estimate */
                double em = train ? 0.9 * rm0[j] + 0.1 * m[j] : rm0[j];
                double ev = train ? 0.9 * rv0[j] + 0.1 * v[j] * 6 / 5 : rv0[j];
                FT_NEAR(rm[j], em, 1e-6, "running mean");
                FT_NEAR(rv[j], ev, 1e-6, "running var");
            }
            gc(what, &ps, b_batch_norm, &c);
            check_bn_relu_fused(&ps, &c, what);
            snprintf(what, sizeof what, "batch_norm_relu %s%s", train ? "train" : "eval", affine ? " affine" : "");
            if (affine) { /* finite differences need every output away from ReLU's kink: shift beta until so */
                int tries;
                for (tries = 0; tries < 40; tries++) {
                    double closest = 1e9;
                    fgl_node *y;
                    fgl_tape_init(&t);
                    memcpy(rm, rm0, sizeof rm);
                    memcpy(rv, rv0, sizeof rv);
                    y = fgl_op_batch_norm(&t, fgl_op_param(&t, &ps, c.s[0]), fgl_op_param(&t, &ps, c.s[1]),
                                          fgl_op_param(&t, &ps, c.s[2]), rm, rv, 0.1f, 1e-5f, train);
                    for (i = 0; y && i < 18; i++) closest = fabs(y->val[i]) < closest ? fabs(y->val[i]) : closest;
                    fgl_tape_free(&t);
                    if (closest > 0.05) break;
                    for (j = 0; j < 3; j++) fgl_params_data(&ps, c.s[2])[j] += 0.037f;
                }
            }
            gc(what, &ps, b_batch_norm_relu, &c);
            fgl_params_free(&ps);
        }
}

/* ---- sparse x dense ------------------------------------------------------------ */

static fgl_node *b_spmm(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    return fgl_op_spmm(t, c->a, c->at, P(0));
}

static fgl_node *b_spmm_bias(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    return fgl_op_spmm_bias(t, c->a, c->at, P(0), P(1));
}

static fgl_node *b_spmm_then_bias(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    return fgl_op_bias(t, fgl_op_spmm(t, c->a, c->at, P(0)), P(1));
}

static fgl_node *b_spmm_values(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    return fgl_op_spmm_values(t, c->a, P(0), P(1));
}

/* A 4 x 5 sparse matrix with an empty row (2) and an empty column (3). */
static void small_sparse(fgl_csr *a, int with_values) {
    static const int r[7] = {0, 0, 1, 3, 3, 3, 1}, cc[7] = {1, 4, 0, 0, 2, 4, 2};
    static const float v[7] = {0.5f, -1.5f, 2, 0.75f, -0.25f, 1.25f, 1};
    fgl_csr_from_coo(4, 5, 7, r, cc, with_values ? v : NULL, 0, a, NULL);
}

static void dense_of(const fgl_csr *a, double *d) {
    int i, k;
    memset(d, 0, sizeof(double) * (size_t)a->rows * a->cols);
    for (i = 0; i < a->rows; i++)
        for (k = a->indptr[i]; k < a->indptr[i + 1]; k++)
            d[i * a->cols + a->indices[k]] += a->values ? a->values[k] : 1.0;
}

static void test_spmm(void) {
    int vals, trans;
    for (vals = 0; vals < 2; vals++)
        for (trans = 0; trans < 2; trans++) {
            fgl_csr a, at;
            fgl_params ps;
            ctx c;
            fgl_tape t;
            double dense[20], want[12];
            char what[64];
            int i, j, k;
            small_sparse(&a, vals);
            fgl_csr_transpose(&a, &at);
            dense_of(&a, dense);
            memset(&c, 0, sizeof c);
            fgl_params_init(&ps);
            c.s[0] = rnd(&ps, "x", 5, 3, -1, 1);
            c.a = &a;
            c.at = trans ? &at : NULL;
            for (i = 0; i < 4; i++)
                for (j = 0; j < 3; j++) {
                    double s = 0;
                    for (k = 0; k < 5; k++) s += dense[i * 5 + k] * D(&ps, c.s[0])[k * 3 + j];
                    want[i * 3 + j] = s;
                }
            snprintf(what, sizeof what, "spmm values=%s transpose=%s", vals ? "yes" : "NULL", trans ? "given" : "NULL");
            close_to(what, forward(&t, &ps, b_spmm, &c), want, 4, 3, 1e-6);
            fgl_tape_free(&t);
            gc(what, &ps, b_spmm, &c);
            fgl_params_free(&ps);
            fgl_csr_free(&a);
            fgl_csr_free(&at);
        }
}

/* spmm_bias: the bits of spmm then bias, forward and backward, over widths
 * that take the 64-column register blocks, the tail loop and both; its
 * gradient check; a bias of the wrong shape is an error. */
static void test_spmm_bias(void) {
    static const int widths[3] = {3, 64, 130};
    int w, trans;
    for (w = 0; w < 3; w++)
        for (trans = 0; trans < 2; trans++) {
            fgl_csr a, at;
            fgl_params ps;
            ctx c;
            fgl_tape t1, t2;
            fgl_node *y1, *y2;
            float *g1;
            char what[64];
            int C = widths[w], same;
            small_sparse(&a, 1);
            fgl_csr_transpose(&a, &at);
            memset(&c, 0, sizeof c);
            fgl_params_init(&ps);
            c.s[0] = rnd(&ps, "x", 5, C, -1, 1);
            c.s[1] = rnd(&ps, "b", 1, C, -1, 1);
            c.a = &a;
            c.at = trans ? &at : NULL;
            snprintf(what, sizeof what, "spmm_bias %d columns, transpose %s", C, trans ? "given" : "NULL");
            y1 = forward(&t1, &ps, b_spmm_bias, &c);
            y2 = forward(&t2, &ps, b_spmm_then_bias, &c);
            FT_CHECK(y1 && y2 && memcmp(y1->val, y2->val, sizeof(float) * 4 * (size_t)C) == 0, "%s: the bits of spmm then bias",
                     what);
            fgl_tape_free(&t1);
            fgl_tape_free(&t2);
            g1 = (float *)malloc(sizeof(float) * ps.size);
            FT_CHECK(g1 && weighted_backward(&ps, b_spmm_then_bias, &c, 0) == FGL_OK, "%s: backward", what);
            if (g1) memcpy(g1, ps.grad, sizeof(float) * ps.size);
            FT_CHECK(weighted_backward(&ps, b_spmm_bias, &c, 0) == FGL_OK, "%s: backward", what);
            same = g1 && memcmp(g1, ps.grad, sizeof(float) * ps.size) == 0;
            FT_CHECK(same, "%s: the gradient bits of spmm then bias", what);
            free(g1);
            if (C == 3) gc(what, &ps, b_spmm_bias, &c);
            fgl_tape_init(&t1);
            FT_CHECK(fgl_op_spmm_bias(&t1, &a, NULL, fgl_op_param(&t1, &ps, c.s[0]), fgl_op_param(&t1, &ps, c.s[0])) == NULL &&
                         t1.err.code == FGL_ERR_SHAPE,
                     "%s: a 5 x %d bias is refused", what, C);
            fgl_tape_free(&t1);
            fgl_params_free(&ps);
            fgl_csr_free(&a);
            fgl_csr_free(&at);
        }
}

static void test_spmm_values(void) {
    int H;
    for (H = 1; H <= 2; H++) {
        fgl_csr a;
        fgl_params ps;
        ctx c;
        fgl_tape t;
        double want[4 * 6];
        char what[64];
        int F = H == 1 ? 3 : 2, C0 = H * F, i, k, f, h;
        small_sparse(&a, 0);
        memset(&c, 0, sizeof c);
        fgl_params_init(&ps);
        c.s[0] = rnd(&ps, "v", a.nnz, H, -1, 1);
        c.s[1] = rnd(&ps, "x", 5, C0, -1, 1);
        c.a = &a;
        memset(want, 0, sizeof want);
        for (i = 0; i < 4; i++)
            for (k = a.indptr[i]; k < a.indptr[i + 1]; k++)
                for (h = 0; h < H; h++)
                    for (f = h * F; f < (h + 1) * F; f++)
                        want[i * C0 + f] += (double)D(&ps, c.s[0])[k * H + h] * D(&ps, c.s[1])[a.indices[k] * C0 + f];
        snprintf(what, sizeof what, "spmm_values H=%d", H);
        close_to(what, forward(&t, &ps, b_spmm_values, &c), want, 4, C0, 1e-6);
        fgl_tape_free(&t);
        gc(what, &ps, b_spmm_values, &c);
        fgl_params_free(&ps);
        fgl_csr_free(&a);
    }
}

/* ---- a composed network ---------------------------------------------------------- */

typedef struct net {
    fgl_csr a, at;
    float x[5 * 4];
    int labels[5];
    unsigned char mask[5];
    int w1, b1, w2;
    fgl_rng rng;
    fgl_node *pre; /* the relu's input, to keep it away from the kink */
} net;

static fgl_node *b_net(fgl_tape *t, fgl_params *ps, void *ud) {
    net *n = (net *)ud;
    fgl_node *h = fgl_op_spmm(t, &n->a, &n->at, fgl_op_const(t, n->x, 5, 4));
    h = fgl_op_bias(t, fgl_op_matmul(t, h, fgl_op_param(t, ps, n->w1)), fgl_op_param(t, ps, n->b1));
    n->pre = h;
    fgl_rng_init(&n->rng, 5, 0);
    h = fgl_op_dropout(t, fgl_op_relu(t, h), 0.3f, &n->rng);
    h = fgl_op_matmul(t, h, fgl_op_param(t, ps, n->w2));
    return fgl_op_cross_entropy(t, h, n->labels, n->mask);
}

static void test_two_layer_network(void) {
    static const int r[9] = {0, 1, 1, 2, 2, 3, 3, 4, 4}, cc[9] = {0, 0, 2, 1, 3, 2, 4, 3, 0};
    net n;
    fgl_params ps;
    fgl_tape t;
    fgl_node *loss;
    double margin = 0, want = 0;
    int seed, i, j, k;
    memset(&n, 0, sizeof n);
    fgl_csr_from_coo(5, 5, 9, r, cc, NULL, 0, &n.a, NULL);
    fgl_csr_transpose(&n.a, &n.at);
    for (i = 0; i < 5; i++) {
        n.labels[i] = i % 3;
        n.mask[i] = i != 2;
    }
    /* Draw parameters until every pre-activation is at least 0.1 from relu's
     * kink (deterministic: the first seed that works). */
    for (seed = 1; seed < 100 && margin < 0.1; seed++) {
        fgl_rng_init(&R, 1000 + (uint64_t)seed, 0);
        fgl_params_init(&ps);
        for (i = 0; i < 20; i++) n.x[i] = fgl_rng_uniformf(&R, -1, 1);
        n.w1 = rnd(&ps, "w1", 4, 6, -1, 1);
        n.b1 = rnd(&ps, "b1", 1, 6, -0.5f, 0.5f);
        n.w2 = rnd(&ps, "w2", 6, 3, -1, 1);
        fgl_tape_init(&t);
        loss = b_net(&t, &ps, &n);
        margin = 1e9;
        for (k = 0; loss && k < 30; k++) margin = fmin(margin, fabs(n.pre->val[k]));
        fgl_tape_free(&t);
        if (margin < 0.1) fgl_params_free(&ps);
    }
    FT_CHECK(margin >= 0.1, "no seed keeps the relu inputs away from 0");
    if (margin < 0.1) return;
    { /* forward in double: the same mask as the op's (same rng stream) */
        double h[5 * 6], o[5 * 3];
        fgl_rng m;
        const float *w1 = D(&ps, n.w1), *b1 = D(&ps, n.b1), *w2 = D(&ps, n.w2);
        int cnt = 0;
        fgl_rng_init(&m, 5, 0);
        for (i = 0; i < 5; i++)
            for (j = 0; j < 6; j++) {
                double s = b1[j];
                for (k = n.a.indptr[i]; k < n.a.indptr[i + 1]; k++) {
                    int q;
                    for (q = 0; q < 4; q++) s += n.x[n.a.indices[k] * 4 + q] * (double)w1[q * 6 + j];
                }
                h[i * 6 + j] = s > 0 ? s : 0;
            }
        for (k = 0; k < 30; k += 2) { /* fgl_op_dropout's rule: two elements per 64-bit draw */
            uint64_t u = fgl_rng_u64(&m);
            uint32_t thr = (uint32_t)(0.3f * 4294967296.0);
            h[k] *= (uint32_t)u >= thr ? 1 / 0.7 : 0;
            h[k + 1] *= (uint32_t)(u >> 32) >= thr ? 1 / 0.7 : 0;
        }
        for (i = 0; i < 5; i++) {
            double z = 0;
            for (j = 0; j < 3; j++) {
                o[i * 3 + j] = 0;
                for (k = 0; k < 6; k++) o[i * 3 + j] += h[i * 6 + k] * w2[k * 3 + j];
                z += exp(o[i * 3 + j]);
            }
            if (!n.mask[i]) continue;
            want -= o[i * 3 + n.labels[i]] - log(z);
            cnt++;
        }
        want /= cnt;
        fgl_tape_init(&t);
        loss = b_net(&t, &ps, &n);
        FT_CHECK(loss && fabs(loss->val[0] - want) < 1e-5 * fabs(want) + 1e-6, "network loss %.9g, naive %.9g",
                 loss ? loss->val[0] : 0, want);
        fgl_tape_free(&t);
    }
    gc("spmm-matmul-bias-relu-dropout-matmul-xent", &ps, b_net, &n);
    fgl_params_free(&ps);
    fgl_csr_free(&n.a);
    fgl_csr_free(&n.at);
}

/* ---- the checker itself ---------------------------------------------------------- */

/* build that is wrong on its first call only (the call whose backward gives
 * the analytic gradient): its gradient is off by a relative 'f0'. */
static fgl_node *b_skewed(fgl_tape *t, fgl_params *ps, void *ud) {
    CTX;
    float s = c->i1++ == 0 ? 1.0f + c->f0 : 1.0f;
    fgl_node *y = fgl_op_matmul(t, P(0), P(1));
    switch (c->op) {
    case 0: y = fgl_op_tanh(t, y); break;
    case 1: y = fgl_op_softmax(t, y); break;
    default: y = fgl_op_layer_norm(t, y, NULL, NULL, 1e-5f); break;
    }
    return fgl_op_scale(t, y, s);
}

static void test_gradcheck_detects_errors(void) {
    /* A relative gradient error of 0.1% must fail the check; 0 must pass. The
     * tolerance is what makes both true, so it is tested here. */
    static const float errs[2] = {0.0f, 0.001f};
    int op, e;
    for (op = 0; op < 3; op++)
        for (e = 0; e < 2; e++) {
            fgl_params ps;
            fgl_gradcheck_report rep;
            ctx c;
            memset(&c, 0, sizeof c);
            fgl_params_init(&ps);
            c.s[0] = rnd(&ps, "a", 4, 3, -1, 1);
            c.s[1] = rnd(&ps, "b", 3, 5, -1, 1);
            c.op = op;
            c.f0 = errs[e];
            FT_CHECK(fgl_gradcheck_ex(&ps, b_skewed, &c, 0, 0, &rep) == FGL_OK, "gradcheck: %s", rep.msg);
            if (e == 0) FT_CHECK(rep.worst <= 1, "op %d: exact gradient rejected (%.3g of tol)", op, rep.worst);
            else FT_CHECK(rep.worst > 1, "op %d: 0.1%% gradient error accepted (%.3g of tol)", op, rep.worst);
            fgl_params_free(&ps);
        }
}

static fgl_node *b_fail(fgl_tape *t, fgl_params *ps, void *ud) {
    (void)ud;
    return fgl_op_matmul(t, fgl_op_param(t, ps, 0), fgl_op_param(t, ps, 0)); /* 2x3 times 2x3 */
}

static fgl_node *b_scalar(fgl_tape *t, fgl_params *ps, void *ud) {
    (void)ud;
    return fgl_op_sqnorm(t, fgl_op_tanh(t, fgl_op_param(t, ps, 0)));
}

static void test_gradcheck_api(void) {
    fgl_params ps;
    fgl_gradcheck_report rep;
    double rel;
    fgl_params_init(&ps);
    rnd(&ps, "x", 2, 3, -1, 1);
    FT_CHECK(fgl_gradcheck_ex(&ps, b_fail, NULL, 0, 0, &rep) == FGL_ERR_SHAPE, "failing build is an error");
    FT_CHECK(strstr(rep.msg, "matmul") != NULL, "message names the op: '%s'", rep.msg);
    FT_CHECK(fgl_gradcheck(&ps, b_fail, NULL, 1e-3) < 0, "old interface: negative on failure");
    rel = fgl_gradcheck(&ps, b_scalar, NULL, 1e-2);
    FT_CHECK(rel >= 0 && rel < 1e-3, "old interface on a smooth scalar: %g", rel);
    fgl_params_free(&ps);
}

/* ---- error behaviour ----------------------------------------------------------- */

/* The op returned NULL, the tape holds code, and the message names the op. */
static void expect_fail(const char *what, fgl_tape *t, const fgl_node *y, int code, const char *name) {
    FT_CHECK(y == NULL, "%s: returned a node", what);
    FT_CHECK(t->err.code == code, "%s: error %s, expected %s", what, fgl_result_name(t->err.code), fgl_result_name(code));
    FT_CHECK(strstr(t->err.msg, name) != NULL, "%s: message '%s' does not name '%s'", what, t->err.msg, name);
    fgl_tape_reset(t);
}

static void test_shape_errors(void) {
    float buf[64];
    fgl_tape t;
    fgl_node *a, *b, *xs[2];
    fgl_csr sp;
    int k;
    for (k = 0; k < 64; k++) buf[k] = (float)k / 64;
    small_sparse(&sp, 1);
    fgl_tape_init(&t);
#define A23 fgl_op_const(&t, buf, 2, 3)
#define B(r, c) fgl_op_const(&t, buf, r, c)
    expect_fail("matmul", &t, fgl_op_matmul(&t, A23, A23), FGL_ERR_SHAPE, "matmul");
    expect_fail("matmul_ex", &t, fgl_op_matmul_ex(&t, A23, 1, B(3, 3), 1), FGL_ERR_SHAPE, "matmul");
    expect_fail("add", &t, fgl_op_add(&t, A23, B(3, 2)), FGL_ERR_SHAPE, "add");
    expect_fail("sub", &t, fgl_op_sub(&t, A23, B(1, 2)), FGL_ERR_SHAPE, "sub");
    expect_fail("mul", &t, fgl_op_mul(&t, A23, B(3, 1)), FGL_ERR_SHAPE, "mul");
    expect_fail("bias", &t, fgl_op_bias(&t, A23, B(2, 3)), FGL_ERR_SHAPE, "bias");
    a = A23;
    b = B(3, 3);
    xs[0] = a;
    xs[1] = b;
    expect_fail("concat", &t, fgl_op_concat_cols(&t, xs, 2), FGL_ERR_SHAPE, "concat");
    expect_fail("concat none", &t, fgl_op_concat_cols(&t, xs, 0), FGL_ERR_ARG, "concat");
    expect_fail("slice_cols", &t, fgl_op_slice_cols(&t, A23, 2, 2), FGL_ERR_SHAPE, "slice_cols");
    expect_fail("slice_cols neg", &t, fgl_op_slice_cols(&t, A23, -1, 1), FGL_ERR_SHAPE, "slice_cols");
    expect_fail("mse", &t, fgl_op_mse(&t, A23, B(3, 2)), FGL_ERR_SHAPE, "mse");
    expect_fail("bce_logits", &t, fgl_op_bce_logits(&t, A23, B(2, 2)), FGL_ERR_SHAPE, "bce_logits");
    expect_fail("cosine_rows", &t, fgl_op_cosine_rows(&t, A23, B(2, 4)), FGL_ERR_SHAPE, "cosine_rows");
    expect_fail("pairwise_dist", &t, fgl_op_pairwise_dist(&t, A23, B(2, 2)), FGL_ERR_SHAPE, "pairwise_dist");
    expect_fail("mix_blocks", &t, fgl_op_mix_blocks(&t, A23, NULL, 4), FGL_ERR_ARG, "mix_blocks");
    expect_fail("layer_norm", &t, fgl_op_layer_norm(&t, A23, B(1, 2), NULL, 1e-5f), FGL_ERR_SHAPE, "layer_norm");
    expect_fail("batch_norm gamma", &t, fgl_op_batch_norm(&t, A23, NULL, B(1, 4), NULL, NULL, 0.1f, 1e-5f, 1),
                FGL_ERR_SHAPE, "batch_norm");
    expect_fail("batch_norm eval without stats", &t, fgl_op_batch_norm(&t, A23, NULL, NULL, NULL, NULL, 0.1f, 1e-5f, 0),
                FGL_ERR_ARG, "batch_norm");
    expect_fail("spmm", &t, fgl_op_spmm(&t, &sp, NULL, B(4, 2)), FGL_ERR_SHAPE, "spmm");
    expect_fail("spmm transpose", &t, fgl_op_spmm(&t, &sp, &sp, B(5, 2)), FGL_ERR_SHAPE, "spmm");
    expect_fail("spmm NULL", &t, fgl_op_spmm(&t, NULL, NULL, B(5, 2)), FGL_ERR_ARG, "spmm");
    expect_fail("spmm_values nnz", &t, fgl_op_spmm_values(&t, &sp, B(6, 1), B(5, 2)), FGL_ERR_SHAPE, "spmm_values");
    expect_fail("spmm_values heads", &t, fgl_op_spmm_values(&t, &sp, B(7, 2), B(5, 3)), FGL_ERR_SHAPE, "spmm_values");
    expect_fail("leaf", &t, fgl_op_const(&t, NULL, 2, 2), FGL_ERR_ARG, "leaf");
#undef A23
#undef B
    fgl_tape_free(&t);
    fgl_csr_free(&sp);
}

static void test_range_errors(void) {
    static const int bad_idx[3] = {0, 3, 1}, neg_idx[2] = {-1, 0};
    static const int bad_labels[3] = {0, 4, 1}, ok_labels[3] = {0, 3, 1};
    static const unsigned char mask[3] = {1, 0, 1};
    static const int off_dec[3] = {0, 2, 1}, off_far[3] = {0, 2, 4}, off_neg[2] = {-1, 1};
    float buf[12] = {0};
    fgl_tape t;
    fgl_node *y;
    fgl_tape_init(&t);
#define X fgl_op_const(&t, buf, 3, 4)
    expect_fail("gather past end", &t, fgl_op_gather_rows(&t, X, bad_idx, 3), FGL_ERR_RANGE, "gather_rows");
    expect_fail("gather negative", &t, fgl_op_gather_rows(&t, X, neg_idx, 2), FGL_ERR_RANGE, "gather_rows");
    expect_fail("gather NULL", &t, fgl_op_gather_rows(&t, X, NULL, 2), FGL_ERR_ARG, "gather_rows");
    expect_fail("scatter past end", &t, fgl_op_scatter_add_rows(&t, X, bad_idx, 3), FGL_ERR_RANGE, "scatter_add_rows");
    expect_fail("scatter negative", &t, fgl_op_scatter_add_rows(&t, fgl_op_const(&t, buf, 2, 4), neg_idx, 3),
                FGL_ERR_RANGE, "scatter_add_rows");
    expect_fail("cross_entropy label", &t, fgl_op_cross_entropy(&t, X, bad_labels, NULL), FGL_ERR_RANGE,
                "cross_entropy");
    expect_fail("nll label", &t, fgl_op_nll(&t, X, bad_labels, NULL), FGL_ERR_RANGE, "nll");
    expect_fail("nll no labels", &t, fgl_op_nll(&t, X, NULL, NULL), FGL_ERR_ARG, "nll");
    y = fgl_op_cross_entropy(&t, X, bad_labels, mask); /* the bad label is masked out: fine */
    FT_CHECK(y != NULL && t.err.code == FGL_OK, "masked-out bad label accepted: %s", t.err.msg);
    y = fgl_op_cross_entropy(&t, X, ok_labels, NULL);
    FT_CHECK(y != NULL && fabs(y->val[0] - log(4.0)) < 1e-6, "uniform logits: log 4");
    fgl_tape_reset(&t);
    expect_fail("offsets decrease", &t, fgl_op_segment_sum(&t, X, off_dec, 2), FGL_ERR_RANGE, "segment_sum");
    expect_fail("offsets past end", &t, fgl_op_segment_mean(&t, X, off_far, 2), FGL_ERR_RANGE, "segment_mean");
    expect_fail("offsets negative", &t, fgl_op_segment_max(&t, X, off_neg, 1), FGL_ERR_RANGE, "segment_max");
    expect_fail("offsets softmax", &t, fgl_op_segment_softmax(&t, X, off_far, 2), FGL_ERR_RANGE, "segment_softmax");
    expect_fail("offsets NULL", &t, fgl_op_segment_sum(&t, X, NULL, 2), FGL_ERR_ARG, "segment_sum");
#undef X
    fgl_tape_free(&t);
}

static void test_null_propagation_and_backward_errors(void) {
    float buf[6] = {1, 2, 3, 4, 5, 6}, g[6];
    fgl_tape t;
    fgl_node *x, *bad, *y;
    char first[FGL_ERROR_MSG_LEN];
    fgl_tape_init(&t);
    x = fgl_op_leaf(&t, buf, g, 2, 3);
    bad = fgl_op_matmul(&t, x, x);
    FT_CHECK(bad == NULL && t.err.code == FGL_ERR_SHAPE, "first error");
    snprintf(first, sizeof first, "%s", t.err.msg);
    /* every later op returns NULL, even on valid inputs, and the first error stays */
    y = fgl_op_relu(&t, bad);
    FT_CHECK(y == NULL, "relu(NULL)");
    y = fgl_op_add(&t, x, x);
    FT_CHECK(y == NULL, "ops after an error return NULL");
    y = fgl_op_sum(&t, fgl_op_tanh(&t, y));
    FT_CHECK(y == NULL && t.err.code == FGL_ERR_SHAPE && strcmp(t.err.msg, first) == 0, "error is sticky: '%s'", t.err.msg);
    FT_CHECK(fgl_tape_backward(&t, y) == FGL_ERR_SHAPE, "backward reports the first error");
    fgl_tape_reset(&t);
    FT_CHECK(t.err.code == FGL_OK && t.err.msg[0] == 0, "reset clears the error");
    /* a NULL input without an earlier error is itself an error */
    y = fgl_op_exp(&t, NULL);
    FT_CHECK(y == NULL && t.err.code == FGL_ERR_ARG && strstr(t.err.msg, "exp"), "NULL input: '%s'", t.err.msg);
    fgl_tape_reset(&t);
    /* backward needs a 1 x 1 loss */
    x = fgl_op_leaf(&t, buf, g, 2, 3);
    FT_CHECK(fgl_tape_backward(&t, fgl_op_tanh(&t, x)) == FGL_ERR_SHAPE && strstr(t.err.msg, "backward"),
             "non-scalar loss: '%s'", t.err.msg);
    fgl_tape_reset(&t);
    FT_CHECK(fgl_tape_backward(&t, NULL) == FGL_ERR_ARG, "NULL loss");
    fgl_tape_reset(&t);
    /* a loss nothing trainable reaches: OK, no work */
    y = fgl_op_sum(&t, fgl_op_const(&t, buf, 2, 3));
    FT_CHECK(y && fgl_tape_backward(&t, y) == FGL_OK, "constant loss");
    fgl_tape_free(&t);
}

static void test_leaves(void) {
    float buf[6] = {1, 2, 3, 4, 5, 6};
    fgl_tensor x = fgl_tensor_view(buf, 3, 2);
    fgl_params ps;
    fgl_tape t;
    fgl_node *z, *c, *p;
    int s;
    fgl_params_init(&ps);
    s = rnd(&ps, "w", 2, 2, -1, 1);
    fgl_tape_init(&t);
    z = fgl_op_zeros(&t, 4, 5);
    FT_CHECK(z && z->rows == 4 && z->cols == 5 && !z->needs_grad && fgl_norm1(20, z->val) == 0, "zeros");
    c = fgl_op_tensor(&t, &x);
    FT_CHECK(c && c->val == buf && c->rows == 3 && c->cols == 2 && !c->needs_grad && c->grad == NULL,
             "tensor: a view, no gradient");
    p = fgl_op_param(&t, &ps, s);
    FT_CHECK(p && p->val == ps.data && p->grad == ps.grad && p->needs_grad, "param: views into the set");
    ps.slices[s].trainable = 0;
    p = fgl_op_param(&t, &ps, s);
    FT_CHECK(p && p->grad == NULL && !p->needs_grad, "frozen param: no gradient");
    FT_CHECK(fgl_op_param(&t, &ps, 1) == NULL && t.err.code == FGL_ERR_ARG && strstr(t.err.msg, "param"), "missing slice: %s",
             t.err.msg);
    fgl_tape_reset(&t);
    FT_CHECK(fgl_op_param(&t, &ps, -1) == NULL && t.err.code == FGL_ERR_ARG, "negative slice");
    fgl_tape_reset(&t);
    FT_CHECK(fgl_op_leaf(&t, buf, NULL, -1, 2) == NULL && t.err.code == FGL_ERR_SHAPE, "negative shape");
    fgl_tape_free(&t);
    fgl_params_free(&ps);
}

static void test_backward_accumulates(void) {
    /* gradients add up over backward passes until zeroed; a parameter used
     * twice gets both contributions */
    fgl_params ps;
    fgl_tape t;
    fgl_node *x, *y;
    float *g;
    int s, k, ok = 1;
    fgl_params_init(&ps);
    s = rnd(&ps, "x", 2, 2, -1, 1);
    g = fgl_params_gradp(&ps, s);
    fgl_tape_init(&t);
    for (k = 0; k < 2; k++) {
        fgl_tape_reset(&t);
        x = fgl_op_param(&t, &ps, s);
        y = fgl_op_add(&t, fgl_op_sum(&t, x), fgl_op_sum(&t, fgl_op_param(&t, &ps, s)));
        FT_CHECK(fgl_tape_backward(&t, y) == FGL_OK, "backward");
    }
    for (k = 0; k < 4; k++) ok &= g[k] == 4.0f;
    FT_CHECK(ok, "gradient 2 per pass, 2 passes: %g %g %g %g", g[0], g[1], g[2], g[3]);
    /* a frozen slice gets no gradient */
    ps.slices[s].trainable = 0;
    fgl_params_zero_grad(&ps);
    fgl_tape_reset(&t);
    y = fgl_op_sum(&t, fgl_op_param(&t, &ps, s));
    FT_CHECK(y && !y->needs_grad && fgl_tape_backward(&t, y) == FGL_OK && g[0] == 0.0f, "frozen slice");
    fgl_tape_free(&t);
    fgl_params_free(&ps);
}

static void test_deferred_zero_grad(void) {
    /* with zeroing deferred, a slice used twice gets both contributions (the
     * first stored, the second added), a slice the loss does not reach and
     * one not on the tape end at zero, and a second pass adds */
    fgl_params ps, other;
    fgl_tape t;
    fgl_optim o;
    fgl_node *y;
    int a, b, c, k, ok = 1;
    fgl_params_init(&ps);
    fgl_params_init(&other);
    a = rnd(&ps, "a", 3, 4, -1, 1);
    b = rnd(&ps, "b", 2, 5, -1, 1);
    c = rnd(&ps, "c", 1, 3, -1, 1);
    rnd(&other, "o", 2, 2, -1, 1);
    for (k = 0; k < (int)ps.size; k++) ps.grad[k] = NAN;
    for (k = 0; k < (int)other.size; k++) other.grad[k] = NAN;
    fgl_params_defer_zero_grad(&ps);
    fgl_params_defer_zero_grad(&other);
    fgl_tape_init(&t);
    for (k = 0; k < 2; k++) {
        fgl_tape_reset(&t);
        y = fgl_op_add(&t, fgl_op_sum(&t, fgl_op_scale(&t, fgl_op_param(&t, &ps, a), 3.0f)),
                       fgl_op_sum(&t, fgl_op_matmul(&t, fgl_op_param(&t, &ps, a), fgl_op_const(&t, ps.data, 4, 1))));
        fgl_op_sum(&t, fgl_op_param(&t, &ps, b)); /* on the tape, not in the loss */
        FT_CHECK(fgl_tape_backward(&t, y) == FGL_OK, "backward %d", k);
    }
    for (k = 0; k < 12; k++) ok &= fabsf(fgl_params_gradp(&ps, a)[k] - 2.0f * (3.0f + ps.data[k % 4])) < 1e-5f;
    FT_CHECK(ok, "slice used twice, two passes: first stored, the rest added");
    for (k = 0, ok = 1; k < 10; k++) ok &= fgl_params_gradp(&ps, b)[k] == 0.0f;
    FT_CHECK(ok, "slice on the tape but not in the loss: zero");
    for (k = 0, ok = 1; k < 3; k++) ok &= fgl_params_gradp(&ps, c)[k] == 0.0f;
    FT_CHECK(ok, "slice of a set on the tape, not itself on it: zero");
    FT_CHECK(other.slices[0].grad_unset == 1, "a set not on the tape stays deferred");
    FT_CHECK(fgl_optim_init(&o, fgl_optim_default(FGL_SGD), &other) == FGL_OK && fgl_optim_step(&o, &other) == FGL_OK,
             "optimizer step");
    for (k = 0, ok = 1; k < 4; k++) ok &= other.grad[k] == 0.0f;
    FT_CHECK(ok && other.slices[0].grad_unset == 0, "the optimizer settles a deferred set: zero gradient");
    fgl_optim_free(&o);
    fgl_tape_free(&t);
    fgl_params_free(&ps);
    fgl_params_free(&other);
}

static void test_tape_memory_reuse(void) {
    /* 100 identical steps: after the first, the arena neither grows nor
     * splits, and the node table stays put. A step that outgrows the arena
     * is followed by one consolidated chunk. */
    fgl_params ps;
    fgl_tape t;
    fgl_rng r;
    float x[64 * 32];
    size_t bytes1 = 0, bytes;
    int s, step, chunks, chunks1 = 0, cap1 = 0, steady = 1, k;
    fgl_params_init(&ps);
    s = rnd(&ps, "w", 32, 600, -0.1f, 0.1f); /* 64 x 600 floats per activation: several MB per step */
    for (k = 0; k < 64 * 32; k++) x[k] = (float)(k % 7) / 7;
    fgl_tape_init(&t);
    for (step = 0; step < 100; step++) {
        fgl_node *h, *loss;
        fgl_tape_reset(&t);
        fgl_rng_init(&r, (uint64_t)step, 0);
        h = fgl_op_matmul(&t, fgl_op_const(&t, x, 64, 32), fgl_op_param(&t, &ps, s));
        h = fgl_op_dropout(&t, fgl_op_tanh(&t, h), 0.5f, &r);
        loss = fgl_op_mean(&t, fgl_op_square(&t, h));
        if (fgl_tape_backward(&t, loss) != FGL_OK) {
            FT_CHECK(0, "backward: %s", t.err.msg);
            break;
        }
        bytes = fgl_tape_reserved(&t, &chunks);
        if (step == 1) {
            bytes1 = bytes;
            chunks1 = chunks;
            cap1 = t.cap_nodes;
        } else if (step > 1 && (bytes != bytes1 || chunks != chunks1 || t.cap_nodes != cap1)) {
            steady = 0;
        }
    }
    FT_CHECK(steady, "arena changed after step 1: %zu bytes in %d chunks, then %zu in %d", bytes1, chunks1,
             fgl_tape_reserved(&t, &chunks), chunks);
    FT_CHECK(chunks1 == 1, "steady state uses one chunk, not %d", chunks1);
    FT_CHECK(bytes1 > 64 * 600 * 4 * 4, "the arena holds the step (%zu bytes)", bytes1);
    fgl_tape_free(&t);
    FT_CHECK(fgl_tape_reserved(&t, &chunks) == 0 && chunks == 0, "free releases the arena");
    fgl_params_free(&ps);
}

int main(void) {
    fgl_rng_init(&R, 2024, 0);
    FT_RUN(test_matmul);
    FT_RUN(test_matmul_aliased);
    FT_RUN(test_linear);
    FT_RUN(test_linear_relu);
    FT_RUN(test_linear_rows);
    FT_RUN(test_transpose);
    FT_RUN(test_binary_broadcast);
    FT_RUN(test_binary_aliased);
    FT_RUN(test_unary);
    FT_RUN(test_sigmoid_log_extremes);
    FT_RUN(test_dropout);
    FT_RUN(test_relu_dropout);
    FT_RUN(test_concat);
    FT_RUN(test_slice_cols);
    FT_RUN(test_gather_scatter);
    FT_RUN(test_segments);
    FT_RUN(test_reductions);
    FT_RUN(test_softmax);
    FT_RUN(test_cross_entropy_nll);
    FT_RUN(test_loss_no_rows);
    FT_RUN(test_loss_copies_labels);
    FT_RUN(test_bce_logits);
    FT_RUN(test_mse_l1_sqnorm);
    FT_RUN(test_cosine_pairwise);
    FT_RUN(test_l2_normalize_rows);
    FT_RUN(test_mix_blocks);
    FT_RUN(test_layer_norm);
    FT_RUN(test_batch_norm);
    FT_RUN(test_batch_norm_xhat_bits);
    FT_RUN(test_spmm);
    FT_RUN(test_spmm_bias);
    FT_RUN(test_spmm_values);
    FT_RUN(test_two_layer_network);
    FT_RUN(test_gradcheck_detects_errors);
    FT_RUN(test_gradcheck_api);
    FT_RUN(test_shape_errors);
    FT_RUN(test_range_errors);
    FT_RUN(test_null_propagation_and_backward_errors);
    FT_RUN(test_leaves);
    FT_RUN(test_backward_accumulates);
    FT_RUN(test_deferred_zero_grad);
    FT_RUN(test_tape_memory_reuse);
    FT_RUN(test_edge_dot); /* last: it draws from R, which the tests above depend on */
    return ft_finish();
}
