#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Autodiff ops: softmax, losses and geometry                               */
/* ------------------------------------------------------------------------ */
/* The ops on the tape of src/core/tape.h: each op's declaration and
 * documentation here, its forward and backward below. */

/* Row-wise softmax and log-softmax. */
FGLDEF fgl_node *fgl_op_softmax(fgl_tape *t, fgl_node *a);
FGLDEF fgl_node *fgl_op_log_softmax(fgl_tape *t, fgl_node *a);
/* Losses (1 x 1). Mean over rows with mask[i] != 0 (mask NULL: all rows) and
 * labels[i] >= 0 (a negative label means "ignore"); labels must be < cols.
 * No selected row gives 0. labels and mask are copied onto the tape. */
FGLDEF fgl_node *fgl_op_cross_entropy(fgl_tape *t, fgl_node *logits, const int *labels,
                                      const unsigned char *mask);
FGLDEF fgl_node *fgl_op_nll(fgl_tape *t, fgl_node *logp, const int *labels,
                            const unsigned char *mask);
/* Mean binary cross-entropy of sigmoid(logits) against targets in [0, 1]. */
FGLDEF fgl_node *fgl_op_bce_logits(fgl_tape *t, fgl_node *logits, fgl_node *targets);
FGLDEF fgl_node *fgl_op_mse(fgl_tape *t, fgl_node *a, fgl_node *b);    /* mean (a-b)^2 */
FGLDEF fgl_node *fgl_op_l1(fgl_tape *t, fgl_node *a);                  /* sum |a| */
FGLDEF fgl_node *fgl_op_sqnorm(fgl_tape *t, fgl_node *a);              /* sum a^2 */
/* Geometry. */
FGLDEF fgl_node *fgl_op_cosine_rows(fgl_tape *t, fgl_node *a, fgl_node *b);  /* rows x 1 */
FGLDEF fgl_node *fgl_op_pairwise_dist(fgl_tape *t, fgl_node *a, fgl_node *b);  /* n x m */
/* Pairwise mean absolute difference, n x m: out[i, j] = mean_k |a_ik - b_jk|
 * (FedTAD's diversity loss: the L1 distance between generated nodes). */
FGLDEF fgl_node *fgl_op_pairwise_l1(fgl_tape *t, fgl_node *a, fgl_node *b);
/* Each row divided by its Euclidean norm, max(||a_i||, eps) (as PyTorch's
 * F.normalize; eps <= 0: 1e-12): the unit-length embeddings of prototype
 * methods. */
FGLDEF fgl_node *fgl_op_l2_normalize_rows(fgl_tape *t, fgl_node *a, float eps);
/* Per-row mixture of constant blocks: xs holds m blocks of rows x cols
 * floats, one after the other, and w is rows x m; out row i = sum_k
 * w[i, k] xs_k row i (GAMLP's attention over propagated features). The
 * gradient flows to w only; xs must live until backward is done. */
FGLDEF fgl_node *fgl_op_mix_blocks(fgl_tape *t, fgl_node *w, const float *xs, int cols);

/* fgl:implementation */
#include "../alone.h"
/* --- softmax family and losses ---------------------------------------------- */

/* Row-wise log-softmax of x into out (may be called with out == x). */
static void fgl__log_softmax_rows(const float *x, int R, int C, float *out) {
    int i, j;
    for (i = 0; i < R; i++) {
        const float *xi = x + (size_t)i * C;
        float *oi = out + (size_t)i * C, mx = -INFINITY;
        double sum = 0;
        float lse;
        for (j = 0; j < C; j++) mx = FGL__MAX(mx, xi[j]);
        for (j = 0; j < C; j++) sum += exp((double)(xi[j] - mx));
        lse = mx + (float)log(sum);
        for (j = 0; j < C; j++) oi[j] = xi[j] - lse;
    }
}

static void fgl__softmax_bw(fgl_tape *t, fgl_node *y) {
    float *g = fgl__grad(t, y->in[0]);
    int i, j, C = y->cols;
    if (!g) return;
    for (i = 0; i < y->rows; i++) {
        const float *gy = y->grad + (size_t)i * C, *v = y->val + (size_t)i * C;
        float *gi = g + (size_t)i * C;
        double s = 0;
        if (y->i0) { /* log-softmax: dx = g - softmax * sum(g) */
            for (j = 0; j < C; j++) s += gy[j];
            for (j = 0; j < C; j++) gi[j] += gy[j] - expf(v[j]) * (float)s;
        } else { /* softmax: dx = y * (g - sum(g * y)) */
            for (j = 0; j < C; j++) s += (double)gy[j] * v[j];
            for (j = 0; j < C; j++) gi[j] += v[j] * (gy[j] - (float)s);
        }
    }
}

static fgl_node *fgl__softmax(fgl_tape *t, fgl_node *a, int log_space) {
    const char *op = log_space ? "log_softmax" : "softmax";
    fgl_node *y;
    size_t i, n;
    FGL__LIVE1(op, a);
    y = fgl__node(t, op, a->rows, a->cols, fgl__softmax_bw, a, NULL, NULL);
    if (!y) return NULL;
    y->i0 = log_space;
    fgl__log_softmax_rows(a->val, a->rows, a->cols, y->val);
    n = fgl__size(y);
    if (!log_space)
        for (i = 0; i < n; i++) y->val[i] = expf(y->val[i]);
    return y;
}

FGLDEF fgl_node *fgl_op_softmax(fgl_tape *t, fgl_node *a) { return fgl__softmax(t, a, 0); }
FGLDEF fgl_node *fgl_op_log_softmax(fgl_tape *t, fgl_node *a) { return fgl__softmax(t, a, 1); }

/* Cross-entropy (i0 = 1: s0 holds softmax probabilities) and NLL (i0 = 0)
 * share a backward: the gradient is spread over the selected rows. */
static void fgl__nll_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0];
    float *g = fgl__grad(t, a), scale;
    const int *labels = (const int *)y->p0;
    const unsigned char *mask = (const unsigned char *)y->p1;
    int i, j, C = a->cols;
    if (!g || y->i1 == 0) return;
    scale = y->grad[0] / (float)y->i1;
    for (i = 0; i < a->rows; i++) {
        if ((mask && !mask[i]) || labels[i] < 0) continue;
        if (y->i0) {
            const float *p = (const float *)y->s0 + (size_t)i * C;
            for (j = 0; j < C; j++) g[(size_t)i * C + j] += scale * p[j];
        }
        g[(size_t)i * C + labels[i]] -= scale;
    }
}

static fgl_node *fgl__nll(fgl_tape *t, const char *op, fgl_node *a, const int *labels, const unsigned char *mask,
                          int from_logits) {
    fgl_node *y;
    int i, count = 0, C;
    double loss = 0;
    float *lp;
    FGL__LIVE1(op, a);
    if (!labels) return fgl_tape_fail(t, FGL_ERR_ARG, "%s: labels are NULL", op);
    C = a->cols;
    for (i = 0; i < a->rows; i++)
        if (!(mask && !mask[i]) && labels[i] >= C)
            return fgl_tape_fail(t, FGL_ERR_RANGE, "%s: row %d has label %d, only %d classes", op, i, labels[i], C);
    y = fgl__node(t, op, 1, 1, fgl__nll_bw, a, NULL, NULL);
    if (!y) return NULL;
    lp = a->val;
    if (from_logits) {
        lp = fgl__fbuf(t, fgl__size(a));
        if (!lp) return NULL;
        fgl__log_softmax_rows(a->val, a->rows, C, lp);
    }
    for (i = 0; i < a->rows; i++) {
        if ((mask && !mask[i]) || labels[i] < 0) continue;
        loss -= lp[(size_t)i * C + labels[i]];
        count++;
    }
    if (from_logits) { /* keep probabilities for backward */
        size_t k, n = fgl__size(a);
        for (k = 0; k < n; k++) lp[k] = expf(lp[k]);
        y->s0 = lp;
    }
    /* Labels and mask are copied: backward may run after the caller's
     * buffers are gone or reused (as with gather's indices). */
    if (!(y->p0 = fgl__copy_ints(t, labels, a->rows))) return NULL;
    if (mask) {
        unsigned char *m = (unsigned char *)fgl__talloc(t, (size_t)FGL__MAX(a->rows, 1));
        if (!m) return NULL;
        if (a->rows) memcpy(m, mask, (size_t)a->rows);
        y->p1 = m;
    }
    y->i0 = from_logits;
    y->i1 = count;
    y->val[0] = count ? (float)(loss / count) : 0.0f;
    return y;
}

FGLDEF fgl_node *fgl_op_cross_entropy(fgl_tape *t, fgl_node *logits, const int *labels, const unsigned char *mask) {
    return fgl__nll(t, "cross_entropy", logits, labels, mask, 1);
}

FGLDEF fgl_node *fgl_op_nll(fgl_tape *t, fgl_node *logp, const int *labels, const unsigned char *mask) {
    return fgl__nll(t, "nll", logp, labels, mask, 0);
}

static void fgl__bce_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *x = y->in[0], *tg = y->in[1];
    float *gx = fgl__grad(t, x), *gt = fgl__grad(t, tg), s;
    size_t i, n = fgl__size(x);
    if (!n) return;
    s = y->grad[0] / (float)n;
    for (i = 0; i < n; i++) {
        float xv = x->val[i], e = expf(-fabsf(xv));
        float sig = xv >= 0 ? 1.0f / (1.0f + e) : e / (1.0f + e);
        if (gx) gx[i] += s * (sig - tg->val[i]);
        if (gt) gt[i] -= s * xv;
    }
}

FGLDEF fgl_node *fgl_op_bce_logits(fgl_tape *t, fgl_node *logits, fgl_node *targets) {
    fgl_node *y;
    size_t i, n;
    double sum = 0;
    FGL__LIVE2("bce_logits", logits, targets);
    if (logits->rows != targets->rows || logits->cols != targets->cols)
        return fgl_tape_fail(t, FGL_ERR_SHAPE, "bce_logits: logits %dx%d, targets %dx%d", logits->rows, logits->cols,
                             targets->rows, targets->cols);
    y = fgl__node(t, "bce_logits", 1, 1, fgl__bce_bw, logits, targets, NULL);
    if (!y) return NULL;
    n = fgl__size(logits);
    for (i = 0; i < n; i++) { /* max(x, 0) - x t + log(1 + exp(-|x|)) */
        double x = logits->val[i];
        sum += (x > 0 ? x : 0) - x * targets->val[i] + log1p(exp(-fabs(x)));
    }
    y->val[0] = n ? (float)(sum / (double)n) : 0.0f;
    return y;
}

static void fgl__mse_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0], *b = y->in[1];
    float *ga = fgl__grad(t, a), *gb = fgl__grad(t, b), s;
    size_t i, n = fgl__size(a);
    if (!n) return;
    s = 2.0f * y->grad[0] / (float)n;
    for (i = 0; i < n; i++) {
        float d = s * (a->val[i] - b->val[i]);
        if (ga) ga[i] += d;
        if (gb) gb[i] -= d;
    }
}

FGLDEF fgl_node *fgl_op_mse(fgl_tape *t, fgl_node *a, fgl_node *b) {
    fgl_node *y;
    size_t i, n;
    double sum = 0;
    FGL__LIVE2("mse", a, b);
    if (a->rows != b->rows || a->cols != b->cols)
        return fgl_tape_fail(t, FGL_ERR_SHAPE, "mse: %dx%d vs %dx%d", a->rows, a->cols, b->rows, b->cols);
    y = fgl__node(t, "mse", 1, 1, fgl__mse_bw, a, b, NULL);
    if (!y) return NULL;
    n = fgl__size(a);
    for (i = 0; i < n; i++) {
        double d = (double)a->val[i] - b->val[i];
        sum += d * d;
    }
    y->val[0] = n ? (float)(sum / (double)n) : 0.0f;
    return y;
}

static void fgl__norm_loss_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0];
    float *g = fgl__grad(t, a), s = y->grad[0];
    size_t i, n = fgl__size(a);
    if (!g) return;
    if (y->i0) /* sqnorm */
        for (i = 0; i < n; i++) g[i] += 2.0f * s * a->val[i];
    else
        for (i = 0; i < n; i++) g[i] += a->val[i] > 0 ? s : a->val[i] < 0 ? -s : 0.0f;
}

static fgl_node *fgl__norm_loss(fgl_tape *t, const char *op, fgl_node *a, int squared) {
    fgl_node *y;
    FGL__LIVE1(op, a);
    y = fgl__node(t, op, 1, 1, fgl__norm_loss_bw, a, NULL, NULL);
    if (!y) return NULL;
    y->i0 = squared;
    y->val[0] = (float)(squared ? fgl_dot(fgl__size(a), a->val, a->val) : fgl_norm1(fgl__size(a), a->val));
    return y;
}

FGLDEF fgl_node *fgl_op_l1(fgl_tape *t, fgl_node *a) { return fgl__norm_loss(t, "l1", a, 0); }
FGLDEF fgl_node *fgl_op_sqnorm(fgl_tape *t, fgl_node *a) { return fgl__norm_loss(t, "sqnorm", a, 1); }

/* --- geometry --------------------------------------------------------------- */

#define FGL__COS_EPS 1e-8

static void fgl__cosine_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0], *b = y->in[1];
    float *ga = fgl__grad(t, a), *gb = fgl__grad(t, b);
    const float *norms = (const float *)y->s0; /* |a_i|, |b_i| (clamped) */
    int i, j, C = a->cols;
    for (i = 0; i < y->rows; i++) {
        const float *ai = a->val + (size_t)i * C, *bi = b->val + (size_t)i * C;
        float na = norms[2 * i], nb = norms[2 * i + 1], c = y->val[i], g = y->grad[i];
        for (j = 0; j < C; j++) {
            if (ga) ga[(size_t)i * C + j] += g * (bi[j] / (na * nb) - c * ai[j] / (na * na));
            if (gb) gb[(size_t)i * C + j] += g * (ai[j] / (na * nb) - c * bi[j] / (nb * nb));
        }
    }
}

FGLDEF fgl_node *fgl_op_cosine_rows(fgl_tape *t, fgl_node *a, fgl_node *b) {
    fgl_node *y;
    float *norms;
    int i, C;
    FGL__LIVE2("cosine_rows", a, b);
    if (a->rows != b->rows || a->cols != b->cols)
        return fgl_tape_fail(t, FGL_ERR_SHAPE, "cosine_rows: %dx%d vs %dx%d", a->rows, a->cols, b->rows, b->cols);
    y = fgl__node(t, "cosine_rows", a->rows, 1, fgl__cosine_bw, a, b, NULL);
    if (!y || !(norms = fgl__fbuf(t, 2 * (size_t)FGL__MAX(a->rows, 1)))) return NULL;
    C = a->cols;
    for (i = 0; i < a->rows; i++) {
        const float *ai = a->val + (size_t)i * C, *bi = b->val + (size_t)i * C;
        double na = FGL__MAX(fgl_norm2((size_t)C, ai), FGL__COS_EPS);
        double nb = FGL__MAX(fgl_norm2((size_t)C, bi), FGL__COS_EPS);
        norms[2 * i] = (float)na;
        norms[2 * i + 1] = (float)nb;
        y->val[i] = (float)(fgl_dot((size_t)C, ai, bi) / (na * nb));
    }
    y->s0 = norms;
    return y;
}

/* y_i = a_i / n_i, n_i = max(|a_i|, eps) (saved in s0). Where |a_i| > eps,
 * da_i = (dy_i - y_i (y_i . dy_i)) / n_i; below eps the divisor is the
 * constant eps and da_i = dy_i / eps. */
static void fgl__l2norm_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0];
    float *ga = fgl__grad(t, a);
    const float *norms = (const float *)y->s0;
    int i, j, C = a->cols;
    if (!ga) return;
    for (i = 0; i < y->rows; i++) {
        const float *yi = y->val + (size_t)i * C, *gi = y->grad + (size_t)i * C;
        float *gai = ga + (size_t)i * C, n = norms[i];
        double dot = y->i1 && norms[y->rows + i] != 0.0f ? 0.0 : fgl_dot((size_t)C, yi, gi);
        for (j = 0; j < C; j++) gai[j] += (float)((gi[j] - yi[j] * dot) / n);
    }
}

FGLDEF fgl_node *fgl_op_l2_normalize_rows(fgl_tape *t, fgl_node *a, float eps) {
    fgl_node *y;
    float *norms;
    int i, j, C, any_clamped = 0;
    FGL__LIVE1("l2_normalize_rows", a);
    if (!(eps > 0)) eps = 1e-12f;
    y = fgl__node(t, "l2_normalize_rows", a->rows, a->cols, fgl__l2norm_bw, a, NULL, NULL);
    /* norms[i]: the divisor of row i; norms[rows + i]: 1 if it was clamped to eps */
    if (!y || !(norms = fgl__fbuf(t, 2 * (size_t)FGL__MAX(a->rows, 1)))) return NULL;
    C = a->cols;
    for (i = 0; i < a->rows; i++) {
        const float *ai = a->val + (size_t)i * C;
        double n = fgl_norm2((size_t)C, ai);
        float *yi = y->val + (size_t)i * C;
        norms[a->rows + i] = 0.0f;
        if (!(n > eps)) {
            n = eps;
            norms[a->rows + i] = 1.0f;
            any_clamped = 1;
        }
        norms[i] = (float)n;
        for (j = 0; j < C; j++) yi[j] = (float)(ai[j] / n);
    }
    y->s0 = norms;
    y->i1 = any_clamped;
    return y;
}

static void fgl__mix_blocks_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *w = y->in[0];
    float *gw = fgl__grad(t, w);
    const float *xs = (const float *)y->p0;
    int i, k, R = y->rows, C = y->cols, m = w->cols;
    if (!gw) return;
    for (i = 0; i < R; i++)
        for (k = 0; k < m; k++)
            gw[(size_t)i * m + k] += (float)fgl_dot((size_t)C, y->grad + (size_t)i * C, xs + ((size_t)k * R + i) * C);
}

FGLDEF fgl_node *fgl_op_mix_blocks(fgl_tape *t, fgl_node *w, const float *xs, int cols) {
    fgl_node *y;
    int i, k, j, R, m;
    FGL__LIVE1("mix_blocks", w);
    if (!xs || cols < 0) return fgl_tape_fail(t, FGL_ERR_ARG, "mix_blocks: no blocks, or %d columns", cols);
    R = w->rows;
    m = w->cols;
    y = fgl__node(t, "mix_blocks", R, cols, fgl__mix_blocks_bw, w, NULL, NULL);
    if (!y) return NULL;
    y->p0 = xs;
    for (i = 0; i < R; i++) {
        float *FGL__RESTRICT yi = y->val + (size_t)i * cols;
        for (j = 0; j < cols; j++) yi[j] = 0.0f;
        for (k = 0; k < m; k++) {
            const float *FGL__RESTRICT xk = xs + ((size_t)k * R + i) * cols;
            float a = w->val[(size_t)i * m + k];
            for (j = 0; j < cols; j++) yi[j] += a * xk[j];
        }
    }
    return y;
}

static void fgl__pdist_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0], *b = y->in[1];
    float *ga = fgl__grad(t, a), *gb = fgl__grad(t, b);
    int i, j, k, D = a->cols;
    for (i = 0; i < y->rows; i++)
        for (j = 0; j < y->cols; j++) {
            float d = y->val[(size_t)i * y->cols + j], g;
            if (d < 1e-12f) continue; /* subgradient 0 where the points coincide */
            g = y->grad[(size_t)i * y->cols + j] / d;
            for (k = 0; k < D; k++) {
                float diff = g * (a->val[(size_t)i * D + k] - b->val[(size_t)j * D + k]);
                if (ga) ga[(size_t)i * D + k] += diff;
                if (gb) gb[(size_t)j * D + k] -= diff;
            }
        }
}

FGLDEF fgl_node *fgl_op_pairwise_dist(fgl_tape *t, fgl_node *a, fgl_node *b) {
    fgl_node *y;
    int i, j, k, D;
    FGL__LIVE2("pairwise_dist", a, b);
    if (a->cols != b->cols)
        return fgl_tape_fail(t, FGL_ERR_SHAPE, "pairwise_dist: %d vs %d columns", a->cols, b->cols);
    y = fgl__node(t, "pairwise_dist", a->rows, b->rows, fgl__pdist_bw, a, b, NULL);
    if (!y) return NULL;
    D = a->cols;
    for (i = 0; i < a->rows; i++)
        for (j = 0; j < b->rows; j++) {
            double s = 0;
            for (k = 0; k < D; k++) {
                double d = (double)a->val[(size_t)i * D + k] - b->val[(size_t)j * D + k];
                s += d * d;
            }
            y->val[(size_t)i * b->rows + j] = (float)sqrt(s);
        }
    return y;
}

/* Pairwise mean absolute difference: out[i, j] = (1/D) sum_k |a_ik - b_jk|.
 * The subgradient of |0| is 0. Sums in double, rows in order (one thread). */
static void fgl__pl1_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0], *b = y->in[1];
    float *ga = fgl__grad(t, a), *gb = fgl__grad(t, b);
    int i, j, k, D = a->cols;
    for (i = 0; i < y->rows; i++)
        for (j = 0; j < y->cols; j++) {
            float g = y->grad[(size_t)i * y->cols + j] / (float)D;
            if (g == 0.0f) continue;
            for (k = 0; k < D; k++) {
                float d = a->val[(size_t)i * D + k] - b->val[(size_t)j * D + k];
                float s = d > 0 ? g : d < 0 ? -g : 0.0f;
                if (ga) ga[(size_t)i * D + k] += s;
                if (gb) gb[(size_t)j * D + k] -= s;
            }
        }
}

FGLDEF fgl_node *fgl_op_pairwise_l1(fgl_tape *t, fgl_node *a, fgl_node *b) {
    fgl_node *y;
    int i, j, k, D;
    FGL__LIVE2("pairwise_l1", a, b);
    if (a->cols != b->cols || a->cols < 1)
        return fgl_tape_fail(t, FGL_ERR_SHAPE, "pairwise_l1: %d vs %d columns", a->cols, b->cols);
    y = fgl__node(t, "pairwise_l1", a->rows, b->rows, fgl__pl1_bw, a, b, NULL);
    if (!y) return NULL;
    D = a->cols;
    for (i = 0; i < a->rows; i++)
        for (j = 0; j < b->rows; j++) {
            double s = 0;
            for (k = 0; k < D; k++) s += fabs((double)a->val[(size_t)i * D + k] - b->val[(size_t)j * D + k]);
            y->val[(size_t)i * b->rows + j] = (float)(s / D);
        }
    return y;
}

#include "../alone.h"
