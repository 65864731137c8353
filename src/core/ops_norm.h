#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Autodiff ops: normalisation                                              */
/* ------------------------------------------------------------------------ */
/* The ops on the tape of src/core/tape.h: each op's declaration and
 * documentation here, its forward and backward below. */

/* Normalisation. gamma/beta are 1 x cols nodes or NULL. */
FGLDEF fgl_node *fgl_op_layer_norm(fgl_tape *t, fgl_node *a, fgl_node *gamma, fgl_node *beta,
                                   float eps);
/* Batch norm over rows. train: batch statistics, and running_mean/var (1 x
 * cols floats, may be NULL) move by momentum (PyTorch convention, unbiased
 * running variance). Evaluation: uses the running statistics. */
FGLDEF fgl_node *fgl_op_batch_norm(fgl_tape *t, fgl_node *a, fgl_node *gamma, fgl_node *beta,
                                   float *running_mean, float *running_var, float momentum,
                                   float eps, int train);
/* ReLU(batch_norm(...)) as one node: one pass over the data instead of two,
 * forward and backward, and one buffer fewer (GIN's MLP). Same values.
 * Its backward masks the node's own gradient in place (grad reads 0 where
 * the output is 0 once backward has passed it). */
FGLDEF fgl_node *fgl_op_batch_norm_relu(fgl_tape *t, fgl_node *a, fgl_node *gamma, fgl_node *beta,
                                        float *running_mean, float *running_var, float momentum,
                                        float eps, int train);

/* fgl:implementation */
#include "../alone.h"
/* --- normalisation ------------------------------------------------------------ */

/* Layer norm normalises each row; batch norm each column. Both save 1/std
 * per row or column (s1), and share the backward formula dx = rstd (dxhat -
 * mean(dxhat) - xhat mean(dxhat xhat)) over the normalised axis (i0 = 1 for
 * columns), with dxhat = dy gamma. Layer norm saves the normalised values
 * xhat (s0); batch norm saves its columns' means in double (s0) and computes
 * xhat again from its input where the backward needs it, with the
 * forward's expression (fgl__bn_xhat): the same bits, and no R x C buffer
 * per layer on the tape (storing it cost the forward one more R x C write,
 * to memory when the tape is larger than the cache). In batch-norm
 * evaluation (i1 = 1) the statistics are constants: dx = dxhat rstd. */
static float fgl__bn_xhat(float x, double mean, float rstd) { return (float)((x - mean) * rstd); }

/* Batch norm's column sums over rows r0 .. r1-1, row by row in order (one
 * thread: the sums' order is the result's): gg += g xhat, gbeta += g,
 * m1 += g gamma, m2 += g gamma xhat (gg, gbeta may be NULL); relu_out: the
 * fused ReLU's output, whose zeros stop the gradient g first. */
static void fgl__bn_bw_sums(float *FGL__RESTRICT grad, const float *FGL__RESTRICT x, const double *FGL__RESTRICT mean,
                            const float *FGL__RESTRICT rstd, const float *FGL__RESTRICT gam, int r0, int r1, int C,
                            float *FGL__RESTRICT gg, float *FGL__RESTRICT gbeta, double *FGL__RESTRICT m1,
                            double *FGL__RESTRICT m2, const float *FGL__RESTRICT relu_out) {
    int k, c;
    for (k = r0; k < r1; k++) {
        float *g = grad + (size_t)k * C;
        const float *xr = x + (size_t)k * C;
        if (relu_out) { /* fused ReLU: the gradient stops where the output is 0 (masked in place) */
            const float *v = relu_out + (size_t)k * C;
            for (c = 0; c < C; c++) g[c] = v[c] > 0.0f ? g[c] : 0.0f;
        }
        if (gg)
            for (c = 0; c < C; c++) gg[c] += g[c] * fgl__bn_xhat(xr[c], mean[c], rstd[c]);
        if (gbeta)
            for (c = 0; c < C; c++) gbeta[c] += g[c];
        for (c = 0; c < C; c++) {
            float dxh = g[c] * gam[c];
            m1[c] += dxh;
            m2[c] += (double)dxh * fgl__bn_xhat(xr[c], mean[c], rstd[c]);
        }
    }
}

/* Batch norm's statistics over fixed pieces of FGL__ROWS rows, the pieces
 * the row loops share out, so that they run in parallel and their bits do
 * not depend on the thread count: each piece's mean and sum of squared
 * deviations from that mean, in double, rows in increasing order (the
 * piece is read from memory once; the second pass over it finds it in
 * cache), then the pieces merged in order by the pairwise update of Chan,
 * Golub and LeVeque: joining n_a rows and n_b rows whose means differ by
 * delta, the mean moves by delta n_b / n and the sum of squares gains
 * delta^2 n_a n_b / n. W running sums at a time (W a constant) stay in
 * registers across a piece's rows. (The statistics were a chain over all
 * rows in order before, handed from thread to thread: the one part of a
 * GIN epoch that a second thread could not speed up.) */
#define FGL__BN_PIECE_REG(W)                                                                   \
    for (; j0 + (W) <= C; j0 += (W)) {                                                         \
        double s[W], q[W];                                                                     \
        for (o = 0; o < (W); o++) s[o] = q[o] = 0.0;                                           \
        for (k = r0; k < r1; k++) {                                                            \
            const float *FGL__RESTRICT xr = x + (size_t)k * (size_t)C + j0;                    \
            for (o = 0; o < (W); o++) s[o] += xr[o];                                           \
        }                                                                                      \
        for (o = 0; o < (W); o++) s[o] /= n;                                                   \
        for (k = r0; k < r1; k++) {                                                            \
            const float *FGL__RESTRICT xr = x + (size_t)k * (size_t)C + j0;                    \
            for (o = 0; o < (W); o++) q[o] += (xr[o] - s[o]) * (xr[o] - s[o]);                 \
        }                                                                                      \
        for (o = 0; o < (W); o++) {                                                            \
            mean[j0 + o] = s[o];                                                               \
            m2[j0 + o] = q[o];                                                                 \
        }                                                                                      \
    }
static void fgl__bn_piece_stats(const float *x, int C, int r0, int r1, double *FGL__RESTRICT mean,
                                double *FGL__RESTRICT m2) {
    int k, o, j0 = 0;
    double n = r1 - r0;
    FGL__BN_PIECE_REG(64)
    FGL__BN_PIECE_REG(32)
    FGL__BN_PIECE_REG(16)
    if (j0 == C) return;
    for (o = j0; o < C; o++) mean[o] = m2[o] = 0.0; /* the last columns */
    for (k = r0; k < r1; k++)
        for (o = j0; o < C; o++) mean[o] += x[(size_t)k * (size_t)C + o];
    for (o = j0; o < C; o++) mean[o] /= n;
    for (k = r0; k < r1; k++)
        for (o = j0; o < C; o++) {
            double d = x[(size_t)k * (size_t)C + o] - mean[o];
            m2[o] += d * d;
        }
}
#undef FGL__BN_PIECE_REG

/* The pieces' statistics (piece p's means at ps[2 C p], its sums of squares
 * right after) merged in piece order into the mean and the biased variance. */
static void fgl__bn_merge(const double *ps, int R, int C, double *FGL__RESTRICT mean, double *FGL__RESTRICT var) {
    int p, o, n_pc = (R + FGL__ROWS - 1) / FGL__ROWS;
    double na = FGL__MIN(R, FGL__ROWS);
    for (o = 0; o < C; o++) {
        mean[o] = ps[o];
        var[o] = ps[C + o];
    }
    for (p = 1; p < n_pc; p++) {
        const double *pm = ps + 2 * (size_t)C * (size_t)p, *pq = pm + C;
        double nb = FGL__MIN(R, (p + 1) * FGL__ROWS) - p * FGL__ROWS, n = na + nb;
        for (o = 0; o < C; o++) {
            double delta = pm[o] - mean[o];
            mean[o] += delta * (nb / n);
            var[o] += pq[o] + delta * delta * (na * nb / n);
        }
        na = n;
    }
    for (o = 0; o < C; o++) var[o] /= R;
}

/* Batch norm's input gradient on rows r0 .. r1-1 (a piece of a parallel
 * loop), added into ga, or written (fresh: ga not yet initialised). */
static void fgl__bn_bw_dx(const float *FGL__RESTRICT grad, const float *FGL__RESTRICT x, const double *mean,
                          const float *FGL__RESTRICT gam, const float *FGL__RESTRICT rstd, const double *m1,
                          const double *m2, int eval, int fresh, int r0, int r1, int C, float *FGL__RESTRICT ga) {
    int k, c;
    for (k = r0; k < r1; k++) {
        const float *g = grad + (size_t)k * C, *xr = x + (size_t)k * C;
        float *d = ga + (size_t)k * C;
        if (eval && fresh)
            for (c = 0; c < C; c++) d[c] = g[c] * gam[c] * rstd[c];
        else if (eval)
            for (c = 0; c < C; c++) d[c] += g[c] * gam[c] * rstd[c];
        else if (fresh)
            for (c = 0; c < C; c++)
                d[c] = rstd[c] * (g[c] * gam[c] - (float)m1[c] - fgl__bn_xhat(xr[c], mean[c], rstd[c]) * (float)m2[c]);
        else
            for (c = 0; c < C; c++)
                d[c] += rstd[c] * (g[c] * gam[c] - (float)m1[c] - fgl__bn_xhat(xr[c], mean[c], rstd[c]) * (float)m2[c]);
    }
}

/* Batch norm's output on rows r0 .. r1-1: gamma x-hat + beta (relu:
 * clamped at 0). */
static void fgl__bn_rows(const float *FGL__RESTRICT x, const double *mean, const float *FGL__RESTRICT rstd,
                         const float *FGL__RESTRICT gam, const float *FGL__RESTRICT bet, int relu, int r0, int r1,
                         int C, float *FGL__RESTRICT out) {
    int k, o;
    for (k = r0; k < r1; k++) {
        const float *xr = x + (size_t)k * C;
        float *yv = out + (size_t)k * C;
        for (o = 0; o < C; o++) {
            float xh = fgl__bn_xhat(xr[o], mean[o], rstd[o]), v = xh * gam[o] + bet[o];
            yv[o] = relu && !(v > 0.0f) ? 0.0f : v;
        }
    }
}

/* Batch norm's backward over row-major data: per-column sums kept in
 * arrays while the rows stream past (a column-by-column walk would touch a
 * cache line per element). Each column still sums its rows in increasing
 * order, as the row-axis code below does for its rows. */
static void fgl__batch_norm_bw(fgl_tape *t, fgl_node *y, float *gg, float *gbeta) {
    fgl_node *a = y->in[0], *gamma = y->in[1];
    float *ga;
    int fresh;
    const double *mean = (const double *)y->s0;
    const float *rstd = (const float *)y->s1;
    int R = y->rows, C = y->cols, eval = y->i1, c, par = fgl__threads_elem((size_t)R * (size_t)C);
    double *m = (double *)fgl_tape_alloc(t, sizeof(double) * 2 * (size_t)C), *m1 = m, *m2 = m + C;
    (void)par; /* read by the OpenMP pragmas only */
    float *gam = fgl__fbuf(t, (size_t)C);
    if (!m || !gam) return;
    for (c = 0; c < C; c++) gam[c] = gamma ? gamma->val[c] : 1.0f;
    {   /* the column sums over fixed pieces of rows (in parallel), then the
         * pieces' sums added in order: the same bits at any thread count */
        int ch, n_ch = (R + FGL__ROWS - 1) / FGL__ROWS;
        size_t cz = (size_t)C;
        double *pm = (double *)fgl_tape_alloc(t, sizeof(double) * 2 * cz * (size_t)n_ch);
        float *pg = fgl__fbuf(t, 2 * cz * (size_t)n_ch);
        if (!pm || !pg) return;
        memset(pg, 0, sizeof(float) * 2 * cz * (size_t)n_ch);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(par)
#endif
        for (ch = 0; ch < n_ch; ch++) {
            int r0 = ch * FGL__ROWS, r1 = FGL__MIN(R, r0 + FGL__ROWS);
            fgl__bn_bw_sums(y->grad, a->val, mean, rstd, gam, r0, r1, C, gg ? pg + 2 * cz * ch : NULL,
                            gbeta ? pg + 2 * cz * ch + cz : NULL, pm + 2 * cz * ch, pm + 2 * cz * ch + cz,
                            y->f0 != 0.0f ? y->val : NULL);
        }
        for (ch = 0; ch < n_ch; ch++)
            for (c = 0; c < C; c++) {
                if (gg) gg[c] += pg[2 * cz * ch + c];
                if (gbeta) gbeta[c] += pg[2 * cz * ch + cz + c];
                m1[c] += pm[2 * cz * ch + c];
                m2[c] += pm[2 * cz * ch + cz + c];
            }
    }
    if (!(ga = fgl__grad_w(t, a, &fresh))) return;
    for (c = 0; c < C; c++) {
        m1[c] /= R;
        m2[c] /= R;
    }
    {
        int ch, n_ch = (R + FGL__ROWS - 1) / FGL__ROWS;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(par)
#endif
        for (ch = 0; ch < n_ch; ch++)
            fgl__bn_bw_dx(y->grad, a->val, mean, gam, rstd, m1, m2, eval, fresh, ch * FGL__ROWS,
                          FGL__MIN(R, (ch + 1) * FGL__ROWS), C, ga);
    }
}

static void fgl__norm_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0], *gamma = y->in[1], *beta = y->in[2];
    float *ga, *gg = fgl__grad(t, gamma), *gbeta = fgl__grad(t, beta);
    const float *xhat = (const float *)y->s0, *rstd = (const float *)y->s1;
    int R = y->rows, C = y->cols, o, k;
    if (y->i0) {
        fgl__batch_norm_bw(t, y, gg, gbeta);
        return;
    }
    ga = fgl__grad(t, a);
    for (o = 0; o < R; o++) { /* layer norm: each row on its own */
        double m1 = 0, m2 = 0;
        for (k = 0; k < C; k++) {
            size_t idx = (size_t)o * C + k;
            float g = y->grad[idx], dxh = g * (gamma ? gamma->val[k] : 1.0f);
            if (gg) gg[k] += g * xhat[idx];
            if (gbeta) gbeta[k] += g;
            m1 += dxh;
            m2 += (double)dxh * xhat[idx];
        }
        if (!ga) continue;
        m1 /= C;
        m2 /= C;
        for (k = 0; k < C; k++) {
            size_t idx = (size_t)o * C + k;
            float dxh = y->grad[idx] * (gamma ? gamma->val[k] : 1.0f);
            ga[idx] += rstd[o] * (dxh - (float)m1 - xhat[idx] * (float)m2);
        }
    }
}

static fgl_node *fgl__norm(fgl_tape *t, const char *op, fgl_node *a, fgl_node *gamma, fgl_node *beta, float eps,
                           int cols_axis, float *rmean, float *rvar, float momentum, int train, int relu) {
    fgl_node *y;
    float *xhat, *rstd;
    int R, C, outer, inner, o, k, eval;
    FGL__LIVE1(op, a);
    R = a->rows;
    C = a->cols;
    if ((gamma && (gamma->rows * gamma->cols != C)) || (beta && (beta->rows * beta->cols != C)))
        return fgl_tape_fail(t, FGL_ERR_SHAPE, "%s: gamma/beta must have %d values", op, C);
    eval = cols_axis && !train;
    if (eval && (!rmean || !rvar)) return fgl_tape_fail(t, FGL_ERR_ARG, "%s: evaluation needs running statistics", op);
    if (!eval && (cols_axis ? R : C) == 0) return fgl_tape_fail(t, FGL_ERR_SHAPE, "%s: empty input", op);
    y = fgl__node(t, op, R, C, fgl__norm_bw, a, gamma, beta);
    if (!y) return NULL;
    outer = cols_axis ? C : R;
    inner = cols_axis ? R : C;
    xhat = cols_axis ? NULL : fgl__fbuf(t, fgl__size(y)); /* batch norm computes it again in backward */
    rstd = fgl__fbuf(t, (size_t)FGL__MAX(outer, 1));
    if ((!cols_axis && !xhat) || !rstd) return NULL;
    y->s0 = xhat;
    y->s1 = rstd;
    y->i0 = cols_axis;
    y->i1 = eval;
    y->f0 = relu ? 1.0f : 0.0f;
    if (cols_axis) {
        /* Batch norm: statistics per column over fixed pieces of rows
         * merged in order (fgl__bn_piece_stats: the same bits on any number
         * of threads), then the output, in one parallel region. */
        int par = fgl__threads_elem((size_t)R * (size_t)C), n_ch = (R + FGL__ROWS - 1) / FGL__ROWS;
        double *mean = (double *)fgl_tape_alloc(t, sizeof(double) * 2 * (size_t)C), *var = mean + C;
        double *ps = eval ? NULL : (double *)fgl__talloc(t, sizeof(double) * 2 * (size_t)C * (size_t)n_ch);
        float *gam = fgl__fbuf(t, (size_t)C), *bet = fgl__fbuf(t, (size_t)C);
        (void)par; /* read by the OpenMP pragmas only */
        if (!mean || !gam || !bet || (!eval && !ps)) return NULL;
        y->s0 = mean;
        for (o = 0; o < C; o++) {
            gam[o] = gamma ? gamma->val[o] : 1.0f;
            bet[o] = beta ? beta->val[o] : 0.0f;
        }
        if (eval)
            for (o = 0; o < C; o++) {
                mean[o] = rmean[o];
                var[o] = rvar[o];
                rstd[o] = (float)(1.0 / sqrt(var[o] + eps));
            }
#ifdef _OPENMP
#pragma omp parallel num_threads(par)
#endif
        {
            int ch;
            if (!eval) {
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
                for (ch = 0; ch < n_ch; ch++)
                    fgl__bn_piece_stats(a->val, C, ch * FGL__ROWS, FGL__MIN(R, (ch + 1) * FGL__ROWS),
                                        ps + 2 * (size_t)C * (size_t)ch, ps + 2 * (size_t)C * (size_t)ch + C);
#ifdef _OPENMP
#pragma omp single
#endif
                {
                    int j;
                    fgl__bn_merge(ps, R, C, mean, var);
                    for (j = 0; j < C; j++) {
                        if (rmean && rvar) {
                            rmean[j] = (1.0f - momentum) * rmean[j] + momentum * (float)mean[j];
                            rvar[j] = (1.0f - momentum) * rvar[j] +
                                      momentum * (float)(R > 1 ? var[j] * R / (R - 1) : var[j]);
                        }
                        rstd[j] = (float)(1.0 / sqrt(var[j] + eps));
                    }
                }
            }
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
            for (ch = 0; ch < n_ch; ch++)
                fgl__bn_rows(a->val, mean, rstd, gam, bet, relu, ch * FGL__ROWS, FGL__MIN(R, (ch + 1) * FGL__ROWS), C,
                             y->val);
        }
        return y;
    }
    for (o = 0; o < outer; o++) { /* layer norm: each row on its own */
        double mean = 0, var = 0;
        for (k = 0; k < inner; k++) mean += a->val[(size_t)o * C + k];
        mean /= inner;
        for (k = 0; k < inner; k++) {
            double d = a->val[(size_t)o * C + k] - mean;
            var += d * d;
        }
        var /= inner;
        rstd[o] = (float)(1.0 / sqrt(var + eps));
        for (k = 0; k < inner; k++) {
            size_t idx = (size_t)o * C + k;
            xhat[idx] = (float)((a->val[idx] - mean) * rstd[o]);
            y->val[idx] = xhat[idx] * (gamma ? gamma->val[k] : 1.0f) + (beta ? beta->val[k] : 0.0f);
        }
    }
    return y;
}

FGLDEF fgl_node *fgl_op_layer_norm(fgl_tape *t, fgl_node *a, fgl_node *gamma, fgl_node *beta, float eps) {
    return fgl__norm(t, "layer_norm", a, gamma, beta, eps, 0, NULL, NULL, 0.0f, 1, 0);
}

FGLDEF fgl_node *fgl_op_batch_norm(fgl_tape *t, fgl_node *a, fgl_node *gamma, fgl_node *beta, float *running_mean,
                                   float *running_var, float momentum, float eps, int train) {
    return fgl__norm(t, "batch_norm", a, gamma, beta, eps, 1, running_mean, running_var, momentum, train, 0);
}

FGLDEF fgl_node *fgl_op_batch_norm_relu(fgl_tape *t, fgl_node *a, fgl_node *gamma, fgl_node *beta,
                                        float *running_mean, float *running_var, float momentum, float eps,
                                        int train) {
    return fgl__norm(t, "batch_norm_relu", a, gamma, beta, eps, 1, running_mean, running_var, momentum, train, 1);
}

#include "../alone.h"
