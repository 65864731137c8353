#include "../alone.h" /* (this file alone: src/alone.h) */
/* --- gradient checks ------------------------------------------------------------- */

/* Finite-difference check of the gradient of build()'s scalar output with
 * respect to every trainable value of ps (central differences with steps eps
 * and 2 eps, Richardson-combined). Returns the largest
 * |analytic - numeric| / max(1, |numeric|), or a negative value if build
 * fails. fgl_gradcheck_ex is the stricter check that tests should use. */
FGLDEF double fgl_gradcheck(fgl_params *ps, fgl_node *(*build)(fgl_tape *, fgl_params *, void *),
                            void *ud, double eps);

/* What fgl_gradcheck_ex found. A value passes when |analytic - numeric| <= tol
 * with tol = est + rtol * max(|analytic|, |numeric|) + 1e-6 (see below). */
typedef struct fgl_gradcheck_report {
    double worst;            /* largest |analytic - numeric| / tol: the check passes if <= 1 */
    double max_abs_err;      /* largest |analytic - numeric| */
    size_t index;            /* flat index into ps->data of the worst value */
    double analytic, numeric, tol;   /* at index */
    size_t checked;          /* values perturbed */
    char msg[FGL_ERROR_MSG_LEN]; /* why the check could not run, if it returned an error */
} fgl_gradcheck_report;

/* Stricter finite-difference check. build() may return a node of any shape;
 * the function checked is L = sum_k w_k y_k with fixed pseudo-random weights
 * w_k of both signs (a plain sum would hide errors that cancel, e.g. the
 * gradient of sum(softmax) is zero whatever backward computes). L is summed in
 * double from the float outputs. For each trainable value x the numeric
 * derivative is the Richardson combination (4 D(h) - D(2h)) / 3 of central
 * differences with h = step * max(1, |x|) (step <= 0: 1/128), and its error
 * is estimated, not guessed: est = |D(h) - D(2h)| (a bound on the truncation
 * error left) + the float round-off of the outputs that x changed, taken as
 * 32 units of float round-off (2^-24) on each, amplified by 1/h. rtol (<= 0:
 * 1e-4) covers round-off in the float backward pass. Returns FGL_OK with rep
 * filled (rep->worst <= 1 means every value passed), or the tape's error if
 * build fails (rep->msg says why). */
FGLDEF int fgl_gradcheck_ex(fgl_params *ps, fgl_node *(*build)(fgl_tape *, fgl_params *, void *), void *ud,
                            double step, double rtol, fgl_gradcheck_report *rep);

/* fgl:implementation */
#include "../alone.h"
/* --- gradient check ----------------------------------------------------------- */

/* Rebuilds the graph on a reset tape and returns L = sum_k w_k y_k, summed in
 * double, and a copy of the outputs y. */
static int fgl__gc_eval(fgl_tape *t, fgl_params *ps, fgl_node *(*build)(fgl_tape *, fgl_params *, void *),
                        void *ud, const float *w, size_t n, double *L, float *out) {
    fgl_node *y;
    double s = 0;
    size_t k;
    fgl_tape_reset(t);
    y = build(t, ps, ud);
    if (t->err.code) return t->err.code;
    if (!y) fgl_tape_fail(t, FGL_ERR_ARG, "gradcheck: build returned NULL");
    else if (fgl__size(y) != n) fgl_tape_fail(t, FGL_ERR_SHAPE, "gradcheck: build's output changed size");
    if (t->err.code) return t->err.code;
    for (k = 0; k < n; k++) s += (double)w[k] * y->val[k];
    memcpy(out, y->val, sizeof(float) * n);
    *L = s;
    return FGL_OK;
}

/* Root-sum-square of w_k max(|p_k|, |m_k|) over the outputs that differ
 * between two evaluations: the outputs that depend on the perturbed value,
 * whose float round-off does not cancel in the difference. */
static double fgl__gc_changed(const float *w, const float *p, const float *m, size_t n) {
    double s = 0;
    size_t k;
    for (k = 0; k < n; k++)
        if (p[k] != m[k]) {
            double v = (double)w[k] * FGL__MAX(fabs((double)p[k]), fabs((double)m[k]));
            s += v * v;
        }
    return sqrt(s);
}

/* Numeric derivative of L at one value from evaluations at x +- h, +- 2h and
 * +- 4h (L[0..5], outputs out[0..5], actual float steps d[0..2]): central
 * differences D1, D2, D4 have truncation errors c2 h^2 + c4 h^4 + ...;
 * Richardson's R1 = (4 D1 - D2) / 3 and R2 = (4 D2 - D4) / 3 remove the h^2
 * term, and D = (16 R1 - R2) / 15 the h^4 term. R1 - R2 = -15 c4 h^4 + ...,
 * so |R1 - R2| / 15 estimates R1's error: a safe bound on D's, which is
 * O(h^6). It also grows when a kink lies within 4h, so a value too close to
 * one is not wrongly failed. The round-off bound assumes each changed output
 * carries up to 4 units of float round-off (2^-24) independently, and takes 5
 * standard deviations of the resulting error in D. */
static double fgl__gc_numeric(const double *L, const float *out, size_t n, const float *w, const double *d,
                              double *est) {
    const double u = 1.0 / 16777216.0, c[3] = {64.0 / 45.0, 20.0 / 45.0, 1.0 / 45.0};
    double Dq[3], R1, R2, noise = 0;
    int q;
    for (q = 0; q < 3; q++) {
        Dq[q] = (L[2 * q] - L[2 * q + 1]) / d[q];
        /* sqrt(2): two independent evaluations per difference */
        noise += c[q] * 1.4142135623730951 * 4 * u *
                 fgl__gc_changed(w, out + (size_t)(2 * q) * n, out + (size_t)(2 * q + 1) * n, n) / d[q];
    }
    R1 = (4 * Dq[0] - Dq[1]) / 3;
    R2 = (4 * Dq[1] - Dq[2]) / 3;
    *est = fabs(R1 - R2) / 15 + 5 * noise;
    return (16 * R1 - R2) / 15;
}

static int fgl__gradcheck(fgl_params *ps, fgl_node *(*build)(fgl_tape *, fgl_params *, void *), void *ud,
                          double step, int relative_step, double rtol, int weighted, fgl_gradcheck_report *rep,
                          double *worst_rel) {
    fgl_tape t;
    fgl_node *y, *loss;
    float *analytic = NULL, *w = NULL, *out = NULL;
    size_t n = 0, i, k;
    int si, rc = FGL_OK;
    memset(rep, 0, sizeof *rep);
    *worst_rel = 0;
    fgl_tape_init(&t);
    fgl_params_zero_grad(ps);
    y = build(&t, ps, ud);
    if (!y && !t.err.code) fgl_tape_fail(&t, FGL_ERR_ARG, "gradcheck: build returned NULL");
    if (t.err.code) goto done;
    n = fgl__size(y);
    analytic = (float *)FGL_MALLOC(sizeof(float) * (ps->size ? ps->size : 1));
    w = (float *)FGL_MALLOC(sizeof(float) * (n ? n : 1));
    out = (float *)FGL_MALLOC(sizeof(float) * 6 * (n ? n : 1));
    if (!analytic || !w || !out) {
        fgl_tape_fail(&t, FGL_ERR_NOMEM, "gradcheck: out of memory");
        goto done;
    }
    if (weighted) {
        fgl_rng r;
        fgl_rng_init(&r, 0x6772616463686B75ull, 0); /* fixed: the check is reproducible */
        for (k = 0; k < n; k++) {
            float u = fgl_rng_uniformf(&r, 0.5f, 1.5f);
            w[k] = fgl_rng_uniform(&r) < 0.5 ? -u : u;
        }
    } else {
        for (k = 0; k < n; k++) w[k] = 1.0f;
    }
    /* Backward seeds y's gradient with w through L = sum(y * w). */
    loss = fgl_op_sum(&t, fgl_op_mul(&t, y, fgl_op_const(&t, w, y->rows, y->cols)));
    if (fgl_tape_backward(&t, loss) != FGL_OK) goto done;
    memcpy(analytic, ps->grad, sizeof(float) * ps->size);
    for (si = 0; si < ps->n; si++) {
        const fgl_slice *s = &ps->slices[si];
        if (!s->trainable) continue;
        for (i = s->offset; i < s->offset + fgl_slice_size(s); i++) {
            float x = ps->data[i], xs[6];
            double h = relative_step ? step * FGL__MAX(1.0, fabs((double)x)) : step;
            double L[6], d[3], D, est, a, err, tol;
            int q;
            for (q = 0; q < 3; q++) {
                xs[2 * q] = (float)(x + (double)(1 << q) * h);
                xs[2 * q + 1] = (float)(x - (double)(1 << q) * h);
                d[q] = (double)xs[2 * q] - (double)xs[2 * q + 1]; /* the step actually taken */
            }
            for (q = 0; q < 6 && rc == FGL_OK; q++) {
                ps->data[i] = xs[q];
                rc = fgl__gc_eval(&t, ps, build, ud, w, n, &L[q], out + (size_t)q * n);
            }
            ps->data[i] = x;
            if (rc) goto done;
            D = fgl__gc_numeric(L, out, n, w, d, &est);
            a = analytic[i];
            err = fabs(a - D);
            tol = est + rtol * FGL__MAX(fabs(a), fabs(D)) + 1e-6;
            rep->checked++;
            if (err > rep->max_abs_err) rep->max_abs_err = err;
            if (err / FGL__MAX(1.0, fabs(D)) > *worst_rel) *worst_rel = err / FGL__MAX(1.0, fabs(D));
            if (err / tol > rep->worst || rep->checked == 1) {
                rep->worst = err / tol;
                rep->index = i;
                rep->analytic = a;
                rep->numeric = D;
                rep->tol = tol;
            }
        }
    }
done:
    rc = t.err.code;
    if (rc) snprintf(rep->msg, sizeof rep->msg, "%s", t.err.msg);
    fgl_tape_free(&t);
    FGL_FREE(analytic);
    FGL_FREE(w);
    FGL_FREE(out);
    return rc;
}

FGLDEF double fgl_gradcheck(fgl_params *ps, fgl_node *(*build)(fgl_tape *, fgl_params *, void *), void *ud,
                            double eps) {
    fgl_gradcheck_report rep;
    double worst_rel;
    if (fgl__gradcheck(ps, build, ud, eps, 0, 1e-4, 0, &rep, &worst_rel) != FGL_OK) return -1;
    return worst_rel;
}

FGLDEF int fgl_gradcheck_ex(fgl_params *ps, fgl_node *(*build)(fgl_tape *, fgl_params *, void *), void *ud,
                            double step, double rtol, fgl_gradcheck_report *rep) {
    double worst_rel;
    return fgl__gradcheck(ps, build, ud, step > 0 ? step : 1.0 / 128, 1, rtol > 0 ? rtol : 1e-4, 1, rep,
                          &worst_rel);
}

#include "../alone.h"
