#include "../alone.h" /* (this file alone: src/alone.h) */
/* The (epsilon, delta) privacy spent by the rounds done, by the Renyi DP
 * accountant of the sampled Gaussian mechanism (Mironov, Talwar and Zhang
 * 2019) that DP-FedAvg is (Poisson sampling at rate cfg.frac, noise
 * multiplier cfg.dp.noise; orders 1.25 to 10.75 in steps of 0.25, and the
 * integers 11 to 1024); NaN without DP, +Inf without noise. Reported only
 * when every round done released every model and delta value with noise
 * (fgl_round_stats.dp_draws counts them): else NaN (a round resumed from a
 * checkpoint of a build that did not count them). */
FGLDEF double fgl_run_dp_epsilon(const fgl_run *run, double delta);
/* Renyi DP of one round of the sampled Gaussian mechanism at order
 * alpha > 1 (integer: the binomial expansion; fractional: the series of
 * Mironov, Talwar and Zhang 2019): for q = 1, alpha / (2 sigma^2). */
FGLDEF double fgl_rdp_sampled_gaussian(double q, double sigma, double alpha);

/* fgl:private */
#include "../alone.h"
FGL__PRIVATE double fgl__dp_epsilon(double q, double sigma, int rounds, double delta);
FGL__PRIVATE double fgl__normal_quantile(double p);
FGL__PRIVATE int fgl__defended_mean(fgl_server *s, int p, float *out, size_t n);
/* fgl:implementation */
#include "../alone.h"
/* (secagg.h) */
static int fgl__secagg_mask(fgl_run *run, fgl_client *c);
static void fgl__secret_normals(const unsigned char key[32], uint32_t label, uint32_t a, uint32_t b, double *out,
                                size_t n);

/* --- the Renyi DP accountant ---------------------------------------------------------- */

static double fgl__logaddexp(double a, double b) {
    double m = a > b ? a : b;
    if (m == -HUGE_VAL) return m;
    return m + log(exp(a - m) + exp(b - m));
}

/* log(exp(a) - exp(b)), a >= b. */
static double fgl__logsubexp(double a, double b) {
    if (b == -HUGE_VAL) return a;
    return a + log1p(-exp(b - a));
}

/* log(erfc(x)), also where erfc underflows (its asymptotic series). */
static double fgl__log_erfc(double x) {
    if (x < 25) return log(erfc(x));
    return -x * x - log(x) - 0.5 * log(3.14159265358979323846) + log1p(-1 / (2 * x * x) + 3 / (4 * x * x * x * x));
}

FGLDEF double fgl_rdp_sampled_gaussian(double q, double sigma, double alpha) {
    double log_a = -HUGE_VAL, s2 = sigma * sigma;
    int k, a = (int)alpha;
    if (!(sigma > 0) || !(alpha > 1) || !(q >= 0 && q <= 1)) return HUGE_VAL;
    if (q == 0) return 0;
    if (q == 1) return alpha / (2 * s2);
    if (alpha == a) { /* integer order: A = sum_k C(alpha, k) (1-q)^(alpha-k) q^k exp((k^2 - k) / (2 sigma^2)) */
        for (k = 0; k <= a; k++) {
            double t = lgamma(a + 1.0) - lgamma(k + 1.0) - lgamma(a - k + 1.0) + (a - k) * log1p(-q) + k * log(q) +
                       ((double)k * k - k) / (2 * s2);
            log_a = fgl__logaddexp(log_a, t);
        }
        return log_a / (alpha - 1);
    }
    { /* fractional order (Mironov, Talwar and Zhang 2019, section 3.3): the two halves of the integral split at
       * z0 = sigma^2 log(1/q - 1) + 1/2, each a series over k of C(alpha, k) with the binomial's sign, summed
       * until its terms fall below e^-30 of nothing */
        double log_a0 = -HUGE_VAL, log_a1 = -HUGE_VAL, z0 = s2 * log(1 / q - 1) + 0.5, log_c = 0;
        int sign = 1;
        for (k = 0; k < 100000; k++) {
            double j = alpha - k, t0, t1, s0, s1;
            if (k > 0) { /* C(alpha, k) = C(alpha, k - 1) (alpha - k + 1) / k */
                double f = alpha - k + 1;
                if (f < 0) sign = -sign;
                log_c += log(fabs(f)) - log((double)k);
            }
            t0 = log_c + k * log(q) + j * log1p(-q);
            t1 = log_c + j * log(q) + k * log1p(-q);
            s0 = t0 + ((double)k * k - k) / (2 * s2) + log(0.5) + fgl__log_erfc((k - z0) / (sqrt(2.0) * sigma));
            s1 = t1 + (j * j - j) / (2 * s2) + log(0.5) + fgl__log_erfc((z0 - j) / (sqrt(2.0) * sigma));
            if (sign > 0) {
                log_a0 = fgl__logaddexp(log_a0, s0);
                log_a1 = fgl__logaddexp(log_a1, s1);
            } else {
                log_a0 = fgl__logsubexp(log_a0, s0);
                log_a1 = fgl__logsubexp(log_a1, s1);
            }
            if ((s0 > s1 ? s0 : s1) < -30) break;
        }
        return fgl__logaddexp(log_a0, log_a1) / (alpha - 1);
    }
}

/* epsilon at delta after `rounds` compositions: min over orders of
 * rounds eps_alpha + log(1/delta) / (alpha - 1). */
FGL__PRIVATE double fgl__dp_epsilon(double q, double sigma, int rounds, double delta) {
    double best = HUGE_VAL, alpha;
    if (!(sigma > 0)) return HUGE_VAL;
    if (rounds <= 0) return 0;
    for (alpha = 1.25; alpha <= 1024; alpha += alpha < 11 ? 0.25 : 1) {
        double e = fgl_rdp_sampled_gaussian(q, sigma, alpha);
        if (e == HUGE_VAL) continue;
        e = rounds * e + log(1 / delta) / (alpha - 1);
        if (e < best) best = e;
    }
    return best;
}

static long long fgl__dp_round_draws(const fgl_run *run);

FGLDEF double fgl_run_dp_epsilon(const fgl_run *run, double delta) {
    int r;
    if (!(run->cfg.dp.clip > 0)) return NAN;
    if (run->cfg.dp.noise > 0) /* the accountant counts rounds that released the sampled Gaussian: all, or no epsilon */
        for (r = 0; r < run->round; r++)
            if (run->stats[r].dp_draws != fgl__dp_round_draws(run)) return NAN;
    return fgl__dp_epsilon((double)run->cfg.frac, run->cfg.dp.noise, run->round, delta > 0 ? delta : run->cfg.dp.delta);
}

/* --- defences, attacks, privacy: the runtime's part ------------------------------ */

/* An RNG stream kept in a store (checkpointed). */
static fgl_rng *fgl__new_rng(fgl_store *st, const char *name, uint64_t seed, uint64_t stream) {
    fgl_rng *r = (fgl_rng *)fgl__zalloc(sizeof(fgl_rng));
    if (r) fgl_rng_init(r, seed, stream);
    return (fgl_rng *)fgl__store_add(st, name, FGL__E_RNG, r, 0, 1);
}

static int fgl__weights_part(const fgl_part *d) { return d->kind == FGL_SEND_MODEL || d->kind == FGL_SEND_DELTA; }

/* The reference an upload part's update is measured from: the model part of
 * the download (for a model part), nothing (zero) for a delta. */
static const float *fgl__ref_of(const fgl_msg *down, const fgl_part *d) {
    int p;
    if (d->kind != FGL_SEND_MODEL) return NULL;
    for (p = 0; p < down->n_parts; p++)
        if (down->decl[p].kind == FGL_SEND_MODEL) return down->part[p];
    return NULL;
}

/* Adds the squares of x - ref (ref NULL: zero) into FGL__NORM_LANES running
 * sums, value k to sum k mod FGL__NORM_LANES: that many independent chains
 * (four vectors of eight doubles) run at the core's throughput where one
 * waits on each add's latency. A caller going through a vector in pieces
 * whose starts are multiples of FGL__NORM_LANES gets the sums of one call
 * over the whole. */
#define FGL__NORM_LANES 32
static void fgl__norm_sums(const float *x, const float *ref, size_t n, double s[FGL__NORM_LANES]) {
    size_t k = 0, q, n32 = n - n % FGL__NORM_LANES;
#if defined(FGL__SIMD) && defined(__AVX512F__)
    { /* The same sums at the core's full width (GCC's -march=native prefers
       * 256-bit loops, which here spend a shuffle on every conversion): lanes
       * 8h..8h+7 in vector h, a multiply then an add as below: the same bits. */
        __m512d acc[4];
        int h;
        for (h = 0; h < 4; h++) acc[h] = _mm512_loadu_pd(s + 8 * h);
        /* (the zero-masked conversion with every lane kept: g++ 12 warns that
         * the plain one's undefined pass-through may be uninitialised) */
        for (; k < n32; k += FGL__NORM_LANES)
            for (h = 0; h < 4; h++) {
                __m512d u = _mm512_maskz_cvtps_pd(0xFF, _mm256_loadu_ps(x + k + 8 * h));
                if (ref) u = _mm512_sub_pd(u, _mm512_maskz_cvtps_pd(0xFF, _mm256_loadu_ps(ref + k + 8 * h)));
                acc[h] = _mm512_add_pd(acc[h], _mm512_mul_pd(u, u));
            }
        for (h = 0; h < 4; h++) _mm512_storeu_pd(s + 8 * h, acc[h]);
    }
#endif
    /* The square and the sum in separate statements: a compiler that fuses
     * a * b + c within one expression (clang does by default) would round
     * them once, the vectors above twice. */
    for (; k < n32; k += FGL__NORM_LANES)
        for (q = 0; q < FGL__NORM_LANES; q++) {
            double u = (double)x[k + q] - (ref ? (double)ref[k + q] : 0.0), sq = u * u;
            s[q] += sq;
        }
    for (k = n32; k < n; k++) {
        double u = (double)x[k] - (ref ? (double)ref[k] : 0.0), sq = u * u;
        s[k % FGL__NORM_LANES] += sq;
    }
}

/* The sums added pairwise in a fixed order: the same norm on every run. */
static double fgl__norm_of_sums(const double s[FGL__NORM_LANES]) {
    double t[FGL__NORM_LANES];
    int w, q;
    memcpy(t, s, sizeof t);
    for (w = FGL__NORM_LANES / 2; w >= 1; w /= 2)
        for (q = 0; q < w; q++) t[q] = t[q] + t[q + w];
    return sqrt(t[0]);
}

static double fgl__update_norm(const float *x, const float *ref, size_t n) {
    double s[FGL__NORM_LANES] = {0};
    fgl__norm_sums(x, ref, n, s);
    return fgl__norm_of_sums(s);
}

/* fgl_all_finite(n, x) and, when it is, fgl__update_norm(x, ref, n) in
 * *norm, in one pass over x: summed in doubles, the squares of finite
 * values stay below 1e78, so with a finite ref (a download) the norm is
 * finite exactly when every value is; only a norm that is not sends x to
 * fgl_all_finite (a non-finite ref: then the answer is x's own). */
static int fgl__finite_update_norm(const float *x, const float *ref, size_t n, double *norm) {
    double s[FGL__NORM_LANES] = {0};
    fgl__norm_sums(x, ref, n, s);
    *norm = fgl__norm_of_sums(s);
    return isfinite(*norm) || fgl_all_finite(n, x);
}

/* x <- ref + a (x - ref) + b, per value (ref NULL: zero). */
static void fgl__affine_update(float *x, const float *ref, size_t n, double a) {
    size_t k;
    for (k = 0; k < n; k++) {
        double r = ref ? ref[k] : 0.0;
        x[k] = (float)(r + a * ((double)x[k] - r));
    }
}

/* The L2 norm of a client's update over all its weights parts together
 * (DP-FedAvg clips that: every part that reaches the models). */
static double fgl__joint_update_norm(const fgl_algo *a, const fgl_msg *up, const fgl_msg *down) {
    double sq = 0;
    int p;
    for (p = 0; p < a->n_up; p++)
        if (fgl__weights_part(&a->up[p]) && up->part[p]) {
            double nrm = fgl__update_norm(up->part[p], fgl__ref_of(down, &a->up[p]), up->len[p]);
            sq += nrm * nrm;
        }
    return sqrt(sq);
}

/* The inverse of the standard normal CDF, by bisection on erf. */
FGL__PRIVATE double fgl__normal_quantile(double p) {
    double lo = -10, hi = 10;
    int i;
    for (i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (0.5 * (1 + erf(mid / sqrt(2.0))) < p) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* "A little is enough" (Baruch et al. 2019): the colluding attackers send
 * mean - z std of the round's updates, per value, z such that a majority
 * of n clients still sees it inside its range: s = floor(n/2 + 1) - f,
 * z = Phi^-1((n - s) / n). */
static int fgl__alie(fgl_run *run) {
    const fgl_algo *a = &run->algo;
    int p, q, n = run->n_part, f = 0, s;
    double z;
    for (q = 0; q < n; q++) f += run->attacker[run->part[q]];
    if (!f) return FGL_OK;
    s = n / 2 + 1 - f;
    z = n > s ? fgl__normal_quantile((double)(n - s) / n) : 0;
    for (p = 0; p < a->n_up; p++) {
        const fgl_part *d = &a->up[p];
        size_t len = 0, k;
        double *mean, *sq;
        if (!fgl__weights_part(d)) continue;
        for (q = 0; q < n; q++)
            if (run->clients[run->part[q]].up.part[p]) len = run->clients[run->part[q]].up.len[p];
        mean = (double *)fgl__zalloc(sizeof(double) * FGL__MAX(len, 1));
        sq = (double *)fgl__zalloc(sizeof(double) * FGL__MAX(len, 1));
        if (!mean || !sq) {
            FGL_FREE(mean);
            FGL_FREE(sq);
            return fgl_error_set(&run->err, FGL_ERR_NOMEM, "alie: out of memory");
        }
        for (q = 0; q < n; q++) { /* the updates the clients trained (the attackers' own are benign estimates) */
            const fgl_client *c = &run->clients[run->part[q]];
            const float *x = c->up.part[p], *ref = fgl__ref_of(&run->down[c->id], d);
            for (k = 0; x && k < len; k++) {
                double u = (double)x[k] - (ref ? ref[k] : 0.0f);
                mean[k] += u / n;
                sq[k] += u * u / n;
            }
        }
        for (q = 0; q < n; q++) {
            fgl_client *c = &run->clients[run->part[q]];
            const float *ref = fgl__ref_of(&run->down[c->id], d);
            float *x;
            if (!c->attacker || !c->up.part[p]) continue;
            if (!(x = fgl__msg_write(&c->up, p))) {
                FGL_FREE(mean);
                FGL_FREE(sq);
                return fgl_error_set(&run->err, FGL_ERR_NOMEM, "alie: out of memory");
            }
            for (k = 0; k < len; k++) {
                double sd = sqrt(sq[k] - mean[k] * mean[k] > 0 ? sq[k] - mean[k] * mean[k] : 0.0);
                x[k] = (float)((ref ? ref[k] : 0.0f) + mean[k] - z * sd);
            }
        }
        FGL_FREE(mean);
        FGL_FREE(sq);
    }
    return FGL_OK;
}

/* Norm screening: an accepted upload whose update norm exceeds screen x
 * the median of the round's accepted updates is rejected (3 or more). The
 * norms are those fgl__check_upload measured. */
static int fgl__screen(fgl_run *run, fgl_round_stats *st) {
    const double *norms = run->up_norm;
    const fgl_algo *a = &run->algo;
    int p, q, m, n_screened = 0;
    double *sorted = (double *)fgl__zalloc(sizeof(double) * (size_t)FGL__MAX(run->n_part, 1));
    if (!sorted) return fgl_error_set(&run->err, FGL_ERR_NOMEM, "screening: out of memory");
    for (p = 0; p < a->n_up; p++) {
        double med;
        if (!fgl__weights_part(&a->up[p])) continue;
        for (q = m = 0; q < run->n_part; q++) {
            const fgl_client *c = &run->clients[run->part[q]];
            if (!run->accepted[c->id] || !c->up.part[p]) continue;
            sorted[m++] = norms[(size_t)c->id * FGL_MSG_MAX_PARTS + p];
        }
        if (m < 3) continue;
        for (q = 1; q < m; q++) { /* insertion sort: m is the round's participants */
            double x = sorted[q];
            int j = q;
            while (j > 0 && sorted[j - 1] > x) {
                sorted[j] = sorted[j - 1];
                j--;
            }
            sorted[j] = x;
        }
        med = m % 2 ? sorted[m / 2] : 0.5 * (sorted[m / 2 - 1] + sorted[m / 2]);
        for (q = 0; q < run->n_part; q++) {
            int i = run->part[q];
            if (run->accepted[i] && run->clients[i].up.part[p] &&
                norms[(size_t)i * FGL_MSG_MAX_PARTS + p] > run->cfg.robust.screen * med) {
                run->accepted[i] = 0;
                n_screened++;
            }
        }
    }
    st->n_screened += n_screened;
    FGL_FREE(sorted);
    return n_screened;
}

static double fgl__upload_weight(const fgl_msg *m, int equal);

/* A source of a robust mixture: its value at one coordinate and its client
 * (ties in value go to the lower client: deterministic orders). */
typedef struct fgl__wval {
    double v;
    int j;
} fgl__wval;

static int fgl__cmp_wval(const void *a, const void *b) {
    const fgl__wval *x = (const fgl__wval *)a, *y = (const fgl__wval *)b;
    if (x->v != y->v) return (x->v > y->v) - (x->v < y->v);
    return (x->j > y->j) - (x->j < y->j);
}

/* The weighted median (t < 0) or trimmed mean (t >= 0) of the sorted values
 * col[0..c-1] under the weights w[col[q].j] (zero weights skipped): of the
 * n sources of positive weight, the min(t, (n - 1) / 2) smallest and as
 * many largest dropped (the most that leaves one), the weighted mean of the
 * rest (t = 0, or n <= 2: of them all). Equal positive weights, whatever
 * their value, count as 1 each: the plain median (the two middle values
 * averaged) and the plain trimmed mean, bit for bit (running sums of 0.1
 * would miss the exact half, and a v / (4 a) is not the mean of v); so
 * with equal weights a trim cut to (n - 1) / 2 is their median. */
static double fgl__weighted_order_stat(const fgl__wval *col, int c, const double *w, int t) {
    int q, npos = 0, seen = 0, equal = 1;
    double total = 0, cum = 0, sum = 0, wsum = 0, first = 0;
    for (q = 0; q < c; q++)
        if (w[col[q].j] > 0) {
            if (!npos) first = w[col[q].j];
            equal &= w[col[q].j] == first;
            total += w[col[q].j];
            npos++;
        }
    if (equal) total = npos;
    if (t >= 0 && npos > 0) { /* trimmed: the middle npos - 2 t, weighted (t cut to leave one) */
        if (2 * t >= npos) t = (npos - 1) / 2;
        for (q = 0; q < c; q++) {
            double a = w[col[q].j];
            if (!(a > 0)) continue;
            seen++;
            if (seen <= t || seen > npos - t) continue;
            if (equal) a = 1.0;
            sum += a * col[q].v;
            wsum += a;
        }
        return sum / wsum;
    }
    for (q = 0; q < c; q++) { /* the first value where the cumulative weight reaches half the total */
        double a = w[col[q].j];
        if (!(a > 0)) continue;
        cum += equal ? 1.0 : a;
        if (2 * cum < total) continue;
        if (2 * cum == total) { /* exactly half: the midpoint with the next value of positive weight */
            int r;
            for (r = q + 1; r < c; r++)
                if (w[col[r].j] > 0) return 0.5 * (col[q].v + col[r].v);
        }
        return col[q].v;
    }
    return 0; /* no positive weight (the caller refuses such rows) */
}

/* The robust rules over mixtures, shared by fgl_server_mean (one row of
 * weights over the accepted uploads) and fgl_server_mix (a row per client):
 * out row r (n_out rows of n floats; those with rows[r] != 0, rows NULL:
 * all) from the sources of part p, row r weighting client j by
 * w[r K + j]. Source j is client j's accepted upload, else row j of held
 * (NULL: none). div (K, NULL: none) divides source j by div[j] (0: source
 * left out): pFedGraph's mixture of normalised models. count: charge the
 * clips to s->n_clipped and a fallback (too few uploads for the rule's
 * parameter) to s->n_fallback. See fgl_server_mix for the rules. */
static int fgl__rule_mix(fgl_server *s, int p, size_t n, const float *held, const double *w, const double *div,
                         int n_out, float *out, const unsigned char *rows, int count) {
    const fgl_robust_config *rc = &s->fed->robust;
    const fgl_part *d = &s->algo->up[p];
    int K = s->n_clients, rule = fgl__weights_part(d) ? rc->rule : FGL_ROBUST_MEAN, j, r, q, mf = 0, n_sel = 0;
    const float **x = (const float **)fgl_scratch(&s->store, sizeof(float *) * (size_t)K);
    const float **ref = (const float **)fgl_scratch(&s->store, sizeof(float *) * (size_t)K);
    unsigned char *fresh = (unsigned char *)fgl_scratch(&s->store, (size_t)K);
    double *acc = (double *)fgl_scratch(&s->store, sizeof(double) * FGL__MAX(n, 1));
    double *clip = NULL, *wr = NULL;
    int *sel = NULL;
    float *dst = out;
    size_t k;
    if (!x || !ref || !fresh || !acc) return FGL_ERR_NOMEM;
    for (j = 0; j < K; j++) {
        if (s->up[j] && s->up[j]->part[p]) {
            x[j] = s->up[j]->part[p];
            ref[j] = s->down ? fgl__ref_of(&s->down[j], d) : NULL;
            fresh[j] = 1;
            mf++;
        } else if (held) {
            x[j] = held + (size_t)j * n;
        }
    }
    for (r = 0; r < n_out; r++) { /* every weighted source exists; robust rules: weights >= 0 and some positive */
        int any = 0;
        if (rows && !rows[r]) continue;
        for (j = 0; j < K; j++) {
            double a = w[(size_t)r * K + j];
            if (a != 0 && !x[j])
                return fgl_server_fail(s, FGL_ERR_ARG,
                                       "mixing '%s': row %d weighs client %d (%g), which has neither an "
                                       "accepted upload nor a held row",
                                       d->name, r, j, a);
            if (rule != FGL_ROBUST_MEAN && !(a >= 0 && a < HUGE_VAL))
                return fgl_server_fail(s, FGL_ERR_ARG, "%s: row %d has weight %g for client %d (weights must be >= 0)",
                                       fgl_robust_name(rule), r, a, j);
            any |= a > 0;
        }
        if (rule != FGL_ROBUST_MEAN && !any)
            return fgl_server_fail(s, FGL_ERR_ARG, "%s: row %d of the mixing weights is zero", fgl_robust_name(rule),
                                   r);
    }
    if (rule == FGL_ROBUST_MEAN) { /* fgl_mix_rows of the sources, bit for bit */
        for (r = 0; r < n_out; r++) {
            if (rows && !rows[r]) continue;
            memset(acc, 0, sizeof(double) * n);
            for (j = 0; j < K; j++) {
                double a = w[(size_t)r * K + j];
                if (div) a = div[j] > 0 ? a / div[j] : 0.0;
                if (a == 0) continue;
                for (k = 0; k < n; k++) acc[k] += a * x[j][k];
            }
            for (k = 0; k < n; k++) out[(size_t)r * n + k] = (float)acc[k];
        }
        return FGL_OK;
    }
    if (mf == 0) return FGL_ERR_EMPTY;
    wr = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K);
    if (!wr) return FGL_ERR_NOMEM;
    switch (rule) {
    case FGL_ROBUST_MEDIAN:
    case FGL_ROBUST_TRIMMED: {
        int t = rule == FGL_ROBUST_TRIMMED ? rc->trim : -1, c;
        fgl__wval *col = (fgl__wval *)fgl_scratch(&s->store, sizeof(fgl__wval) * (size_t)K);
        if (!col) return FGL_ERR_NOMEM;
        /* too few accepted uploads for trim (2 trim >= m): each row trims as many as leave one (with equal
         * weights, the median of the uploads; with 2 or fewer, their mean); counted */
        if (count && rule == FGL_ROBUST_TRIMMED && 2 * t >= mf) s->n_fallback++;
        for (k = 0; k < n; k++) { /* sorted once per coordinate, then each row walks it with its weights */
            for (j = c = 0; j < K; j++)
                if (x[j] && (!div || div[j] > 0)) {
                    col[c].v = div ? (double)x[j][k] / div[j] : (double)x[j][k];
                    col[c++].j = j;
                }
            qsort(col, (size_t)c, sizeof(fgl__wval), fgl__cmp_wval);
            for (r = 0; r < n_out; r++) {
                if (rows && !rows[r]) continue;
                out[(size_t)r * n + k] = (float)fgl__weighted_order_stat(col, c, w + (size_t)r * K, t);
            }
        }
        return FGL_OK;
    }
    case FGL_ROBUST_KRUM:
    case FGL_ROBUST_MULTIKRUM: { /* scores over the accepted uploads' updates; row r mixes the selected */
        int f = rc->f, keep = rule == FGL_ROBUST_KRUM ? 1 : rc->m, near, a, b, fallback = 0;
        int *idx = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K);
        double *dist = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)mf * (size_t)mf);
        double *score = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)mf);
        double *row = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)mf);
        unsigned char *chosen = (unsigned char *)fgl_scratch(&s->store, (size_t)mf);
        if (keep < 1) return fgl_server_fail(s, FGL_ERR_ARG, "multikrum: keeps %d uploads (1 or more)", keep);
        /* too few accepted uploads for f (Krum's guarantee needs m > 2 f + 2): the largest f the round supports,
         * and at most m - f kept; fewer than 3 uploads cannot be scored: all of them kept (their mean); counted */
        if (mf < 3) {
            f = 0;
            keep = mf;
            fallback = 1;
        } else {
            if (mf <= 2 * f + 2) f = (mf - 3) / 2;
            if (keep > mf - f) keep = mf - f;
            fallback = f != rc->f || keep != (rule == FGL_ROBUST_KRUM ? 1 : rc->m);
        }
        if (count && fallback) s->n_fallback++;
        near = mf - f - 2;
        sel = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)FGL__MAX(keep, 1));
        if (!idx || !dist || !score || !row || !chosen || !sel) return FGL_ERR_NOMEM;
        for (j = a = 0; j < K; j++)
            if (fresh[j]) idx[a++] = j;
        if (mf < 3) { /* no scores: every upload, in client order */
            for (a = 0; a < mf; a++) sel[n_sel++] = idx[a];
            break;
        }
        for (a = 0; a < mf; a++)
            for (b = a + 1; b < mf;
                 b++) { /* squared distance of the updates (of the uploads, if they share their reference) */
                const float *u = x[idx[a]], *v = x[idx[b]], *ru = ref[idx[a]], *rv = ref[idx[b]];
                double sum = 0;
                if (ru == rv)
                    for (k = 0; k < n; k++) sum += ((double)u[k] - v[k]) * ((double)u[k] - v[k]);
                else
                    for (k = 0; k < n; k++) {
                        double e = ((double)u[k] - (ru ? ru[k] : 0.0f)) - ((double)v[k] - (rv ? rv[k] : 0.0f));
                        sum += e * e;
                    }
                dist[(size_t)a * mf + b] = dist[(size_t)b * mf + a] = sum;
            }
        for (a = 0; a < mf; a++) { /* the sum of the `near` smallest distances to the others */
            int c = 0;
            for (b = 0; b < mf; b++)
                if (b != a) row[c++] = dist[(size_t)a * mf + b];
            for (b = 1; b < c; b++) { /* insertion sort */
                double y = row[b];
                int t = b;
                while (t > 0 && row[t - 1] > y) {
                    row[t] = row[t - 1];
                    t--;
                }
                row[t] = y;
            }
            score[a] = 0;
            for (b = 0; b < near; b++) score[a] += row[b];
        }
        for (q = 0; q < keep; q++) { /* the `keep` lowest scores (ties: the lower client id), in that order */
            int best = -1;
            for (a = 0; a < mf; a++)
                if (!chosen[a] && (best < 0 || score[a] < score[best])) best = a;
            chosen[best] = 1;
            sel[n_sel++] = idx[best];
        }
        break;
    }
    case FGL_ROBUST_NORMCLIP: { /* each update's factor min(1, M / ||u_j||), once */
        clip = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K);
        sel = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K);
        if (!clip || !sel) return FGL_ERR_NOMEM;
        for (j = 0; j < K; j++) {
            double norm;
            if (!fresh[j]) continue;
            norm = fgl__update_norm(x[j], ref[j], n);
            clip[j] = norm > rc->clip ? rc->clip / norm : 1.0;
            if (count) s->n_clipped += clip[j] < 1;
            sel[n_sel++] = j;
        }
        if (n_out > 1 && !(dst = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)n_out * FGL__MAX(n, 1))))
            return FGL_ERR_NOMEM; /* the references may be rows of out (a personalised download): written at the end */
        break;
    }
    default: return fgl_server_fail(s, FGL_ERR_ARG, "unknown robust rule %d", rule);
    }
    for (r = 0; r < n_out; r++) { /* KRUM, MULTIKRUM, NORMCLIP: row r's weighted mean of the kept sources sel[] */
        double wsum = 0;
        if (rows && !rows[r]) continue;
        for (q = 0; q < n_sel; q++) {
            j = sel[q];
            wr[j] = div && !(div[j] > 0) ? 0.0 : w[(size_t)r * K + j];
            wsum += wr[j];
        }
        if (!(wsum > 0) && held) { /* the row weighs only held rows (kept models, no update to judge): their mean */
            double hsum = 0;
            for (j = 0; j < K; j++)
                if (fresh[j] && w[(size_t)r * K + j] > 0) break;
            memset(acc, 0, sizeof(double) * n);
            for (j = j < K ? K : 0; j < K; j++) { /* (none if the row weighs a fresh upload the rule left out) */
                double a = fresh[j] ? 0.0 : w[(size_t)r * K + j];
                if (!(a > 0) || (div && !(div[j] > 0))) continue;
                hsum += a;
                if (div) a /= div[j];
                for (k = 0; k < n; k++) acc[k] += a * x[j][k];
            }
            if (hsum > 0) {
                for (k = 0; k < n; k++) dst[(size_t)r * n + k] = (float)(acc[k] / hsum);
                continue;
            }
        }
        if (!(wsum > 0)) /* the row weighs none of them: equal weights (what fgl_server_mean's rule gives) */
            for (q = 0, wsum = 0; q < n_sel; q++) {
                j = sel[q];
                wr[j] = div && !(div[j] > 0) ? 0.0 : 1.0;
                wsum += wr[j];
            }
        if (!(wsum > 0)) return fgl_server_fail(s, FGL_ERR_ARG, "%s: row %d keeps no source", fgl_robust_name(rule), r);
        memset(acc, 0, sizeof(double) * n);
        for (q = 0; q < n_sel; q++) {
            const float *y, *rf;
            double a, e;
            j = sel[q];
            if (!(wr[j] > 0)) continue;
            a = wr[j];
            y = x[j];
            if (rule != FGL_ROBUST_NORMCLIP) {
                if (div) a /= div[j];
                for (k = 0; k < n; k++) acc[k] += a * y[k];
                continue;
            }
            rf = ref[j];
            e = clip[j];
            for (k = 0; k < n; k++) {
                double b = rf ? rf[k] : 0.0, v = b + e * ((double)y[k] - b);
                acc[k] += a * (div ? v / div[j] : v);
            }
        }
        for (k = 0; k < n; k++) dst[(size_t)r * n + k] = (float)(acc[k] / wsum);
    }
    if (dst != out)
        for (r = 0; r < n_out; r++)
            if (!rows || rows[r]) memcpy(out + (size_t)r * n, dst + (size_t)r * n, sizeof(float) * n);
    return FGL_OK;
}

/* DP-FedAvg's release of weights part p (n floats) in this round:
 *   base + (sum_i clip_C(u_i) + N(0, (sigma C)^2 I)) / (q K)
 * over the accepted uploads u_i (each update clipped again here, so the
 * bound holds whatever a client sent), q = cfg.frac, K the clients. base is
 * the model the participants' updates start from (a model part), or zero (a
 * delta part); in a round without participants the update is the noise
 * alone, added to empty_base (a model part: the model the server holds).
 * The noise comes from the server's secret DP key, one stream per (round,
 * part). */
static int fgl__dp_mean(fgl_server *s, int p, float *out, size_t n, const float *empty_base) {
    const fgl_fed_config *cfg = s->fed;
    const fgl_part *d = &s->algo->up[p];
    const float *base = NULL;
    int K = s->n_clients, i;
    double qK = (double)cfg->frac * K, sd = (double)cfg->dp.noise * cfg->dp.clip / qK;
    double *acc = (double *)fgl_scratch(&s->store, sizeof(double) * FGL__MAX(n, 1));
    size_t k;
    if (!acc) return FGL_ERR_NOMEM;
    for (i = 0; i < K; i++) {
        const fgl_msg *u = s->up[i];
        const float *x, *ref;
        double norm, f = 1;
        if (!u || !u->part[p]) continue;
        x = u->part[p];
        ref = fgl__ref_of(&s->down[i], d);
        norm = fgl__joint_update_norm(s->algo, u, &s->down[i]);
        if (!base) base = ref;
        else if (ref != base && (!ref || memcmp(ref, base, sizeof(float) * n) != 0))
            return fgl_server_fail(s, FGL_ERR_ARG, "differential privacy: the participants' updates start "
                                   "from different models (one mean of them is defined)");
        if (norm > cfg->dp.clip) f = cfg->dp.clip / norm;
        for (k = 0; k < n; k++) acc[k] += f * ((double)x[k] - (ref ? (double)ref[k] : 0.0));
    }
    if (!base && d->kind == FGL_SEND_MODEL) base = empty_base; /* no participant: the noise alone */
    if (sd > 0) {
        double *z = (double *)fgl_scratch(&s->store, sizeof(double) * FGL__MAX(n, 1));
        if (!z) return FGL_ERR_NOMEM;
        fgl__secret_normals(s->dp_key, FGL__SECRET_DP_NOISE, (uint32_t)s->round, (uint32_t)p, z, n);
        for (k = 0; k < n; k++) acc[k] += sd * qK * z[k];
        fgl__crypto_wipe(z, sizeof(double) * n); /* the noise drawn: whoever had it could remove it */
    }
    for (k = 0; k < n; k++) out[k] = (float)((base ? (double)base[k] : 0.0) + acc[k] / qK);
    return FGL_OK;
}

/* The robust, DP or secure mean of a weights part p over the accepted
 * uploads (a robust rule: fgl__rule_mix with one row). */
FGL__PRIVATE int fgl__defended_mean(fgl_server *s, int p, float *out, size_t n) {
    const fgl_fed_config *cfg = s->fed;
    int K = s->n_clients, i, j, m = 0, *idx = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K);
    double *acc = (double *)fgl_scratch(&s->store, sizeof(double) * FGL__MAX(n, 1));
    size_t k;
    if (!idx || !acc) return FGL_ERR_NOMEM;
    for (i = 0; i < K; i++)
        if (s->up[i] && s->up[i]->part[p]) idx[m++] = i;
    if (cfg->secagg.on) { /* the sum the protocol unmasked, decoded: sum (n_i/N) theta_i / sum n_i/N */
        const uint32_t *sum = s->secagg_sum;
        double scale = ldexp(1.0, cfg->secagg.frac_bits), tw;
        if (!sum || s->algo->up[p].kind != FGL_SEND_MODEL) return FGL_ERR_EMPTY; /* the round was not unmasked */
        if (s->secagg_len != n) return fgl_server_fail(s, FGL_ERR_SHAPE, "secure aggregation: the sum has %lu values, "
                                                       "the part %lu", (unsigned long)s->secagg_len, (unsigned long)n);
        /* each of the m <= K survivors encoded |x| <= floor((2^31 - 1) / K) (secagg.h): the sum is a signed word */
        tw = (double)(int32_t)sum[n] / scale;
        if (!(tw > 0))
            return fgl_server_fail(s, FGL_ERR_RANGE, "secure aggregation: the decoded weight total is %g", tw);
        for (k = 0; k < n; k++) out[k] = (float)((double)(int32_t)sum[k] / scale / tw);
        return FGL_OK;
    }
    if (cfg->dp.clip > 0) return fgl__dp_mean(s, p, out, n, out);
    if (m == 0) return FGL_ERR_EMPTY;
    { /* a robust rule: one row over the accepted uploads, equal weights as published (the sample counts for NORMCLIP)
       */
        double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K);
        if (!w) return FGL_ERR_NOMEM;
        for (j = 0; j < m; j++)
            w[idx[j]] = cfg->robust.rule == FGL_ROBUST_NORMCLIP ? fgl__upload_weight(s->up[idx[j]], 0) : 1.0;
        return fgl__rule_mix(s, p, n, NULL, w, NULL, 1, out, NULL, 1);
    }
}

/* The download part that sends the model the server holds, whole (a part
 * `from` a server buffer, not a row per client), or -1: DP needs it to
 * release a round without participants. */
static int fgl__model_source(const fgl_algo *a) {
    int q;
    for (q = 0; q < a->n_down; q++)
        if (a->down[q].kind == FGL_SEND_MODEL && a->down[q].from && !(a->down[q].flags & FGL_PART_ROW)) return q;
    return -1;
}

/* The noise values a DP round draws when every model and delta part is
 * noised: the parts' sizes. */
static long long fgl__dp_round_draws(const fgl_run *run) {
    long long n = 0;
    int p;
    for (p = 0; p < run->algo.n_up; p++)
        if (fgl__weights_part(&run->algo.up[p])) n += (long long)run->server.up_len[p];
    return n;
}

/* DP by mechanism, before the aggregate hook: the runtime releases the
 * noised mean (fgl__dp_mean) of every model and delta part, in every round,
 * participants or not, and counts the noise values drawn (st->dp_draws);
 * the hook is then handed no upload, only these releases (fgl_server_mean),
 * so whatever it publishes is a function of them. A round without
 * participants adds the noise to the model the server holds (the buffer the
 * model download is sent from). */
static int fgl__dp_release(fgl_run *run, fgl_round_stats *st) {
    fgl_server *s = &run->server;
    const fgl_algo *a = &run->algo;
    const float *model = NULL;
    int p, q = fgl__model_source(a), rc;
    st->dp_draws = 0;
    if (q >= 0) {
        fgl__entry *e = fgl__store_find(&s->store, a->down[q].from, FGL__E_FLOATS);
        if (e && e->n == s->down_len[q]) model = (const float *)e->p;
    }
    for (p = 0; p < a->n_up; p++) {
        size_t n = s->up_len[p];
        s->dp_release[p] = NULL;
        s->dp_taken[p] = 0;
        if (!fgl__weights_part(&a->up[p])) continue;
        if (a->up[p].kind == FGL_SEND_MODEL && (!model || s->down_len[q] != n))
            return fgl_server_fail(s, FGL_ERR_ARG, "differential privacy: %s holds no model of %lu floats to "
                                   "release '%s' from", a->name, (unsigned long)n, a->up[p].name);
        if (!run->dp_out[p] && !(run->dp_out[p] = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(n, 1))))
            return fgl_server_fail(s, FGL_ERR_NOMEM, "differential privacy: out of memory");
        rc = fgl__dp_mean(s, p, run->dp_out[p], n, model);
        fgl_tape_reset(&s->store.scratch);
        if (rc) return s->err.code ? s->err.code : fgl_server_fail(s, rc, "differential privacy: %s", fgl_result_name(rc));
        s->dp_release[p] = run->dp_out[p];
        if (run->cfg.dp.noise > 0) st->dp_draws += (long long)n;
    }
    return FGL_OK;
}

/* After the hook: every release was taken (fgl_server_mean), else the
 * round's models do not come from the noised means and the run stops,
 * naming the part. The releases end with the round. */
static int fgl__dp_released(fgl_run *run) {
    fgl_server *s = &run->server;
    int p, missed = -1;
    for (p = 0; p < run->algo.n_up; p++) {
        if (s->dp_release[p] && !s->dp_taken[p] && missed < 0) missed = p;
        s->dp_release[p] = NULL;
    }
    if (missed >= 0)
        return fgl_server_fail(s, FGL_ERR_ARG, "differential privacy: the aggregate hook did not take the noised mean "
                               "of '%s' (fgl_server_mean); under DP the released models must come from it, so "
                               "the run stops", run->algo.up[missed].name);
    return FGL_OK;
}

static void fgl__dims_fill(const fgl__dims *d, size_t *out) {
    int r;
    out[0] = 0;
    for (r = 1; r < FGL_DIM_RULES; r++) out[r] = fgl__dim(d, -r);
}

/* A size given by an integer parameter (fgl_algo_param_dim): its value. */
static size_t fgl__param_rule(const fgl_settings *set, int rule) {
    int i = FGL__DIM_PARAM0 - rule;
    return set && set->algo && i < set->algo->n_params && set->value[i] >= 1 ? (size_t)set->value[i] : 0;
}

FGLDEF size_t fgl_client_dim(const fgl_client *c, int rule) {
    if (rule <= FGL__DIM_PARAM0) return fgl__param_rule(c->set, rule);
    return rule > 0 ? (size_t)rule : rule > -FGL_DIM_RULES ? c->dim[-rule] : 0;
}

FGLDEF size_t fgl_server_dim(const fgl_server *s, int rule) {
    if (rule <= FGL__DIM_PARAM0) return fgl__param_rule(s->set, rule);
    return rule > 0 ? (size_t)rule : rule > -FGL_DIM_RULES ? s->dim[-rule] : 0;
}

#include "../alone.h"
