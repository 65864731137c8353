#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Random numbers                                                           */
/* ------------------------------------------------------------------------ */

/* xoshiro256** state. Streams made from the same seed and different stream
 * ids are independent, so each client of a run gets its own reproducible
 * sequence: fgl_rng_init(&r, seed, client_id). Copying the struct copies the
 * stream. */
typedef struct fgl_rng {
    uint64_t s[4];
} fgl_rng;

FGLDEF void fgl_rng_init(fgl_rng *r, uint64_t seed, uint64_t stream);
FGLDEF uint64_t fgl_rng_u64(fgl_rng *r);
FGLDEF double fgl_rng_uniform(fgl_rng *r);              /* [0, 1) */
FGLDEF float fgl_rng_uniformf(fgl_rng *r, float lo, float hi); /* [lo, hi) */
FGLDEF uint64_t fgl_rng_below(fgl_rng *r, uint64_t n);  /* unbiased, [0, n); n > 0 */
FGLDEF double fgl_rng_normal(fgl_rng *r);               /* N(0, 1) */
FGLDEF double fgl_rng_gamma(fgl_rng *r, double shape);  /* Gamma(shape, 1), shape > 0 */
FGLDEF int fgl_rng_bernoulli(fgl_rng *r, double p);
/* Dirichlet(alpha[0..k-1]) sample into out (sums to 1). */
FGLDEF void fgl_rng_dirichlet(fgl_rng *r, const double *alpha, int k, double *out);
FGLDEF void fgl_rng_shuffle(fgl_rng *r, int *a, int n);
/* k distinct values of 0..n-1 in random order into out. Needs O(n) scratch. */
FGLDEF int fgl_rng_sample(fgl_rng *r, int n, int k, int *out);

/* fgl:implementation */
#include "../alone.h"
/* --- random numbers ------------------------------------------------------- */

static uint64_t fgl__splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

FGLDEF void fgl_rng_init(fgl_rng *r, uint64_t seed, uint64_t stream) {
    /* Hash the seed, then the stream id, so nearby (seed, stream) pairs give
     * unrelated states; splitmix64 then fills the four words. */
    uint64_t x = seed, y;
    int i;
    y = fgl__splitmix(&x);
    x = y ^ (stream * 0xD1B54A32D192ED03ull + 0x8CB92BA72F3D8DD7ull);
    y = fgl__splitmix(&x);
    x = y;
    for (i = 0; i < 4; i++) r->s[i] = fgl__splitmix(&x);
    if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0) r->s[0] = 1;
}

static uint64_t fgl__rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

FGLDEF uint64_t fgl_rng_u64(fgl_rng *r) {
    uint64_t *s = r->s;
    uint64_t result = fgl__rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = fgl__rotl(s[3], 45);
    return result;
}

FGLDEF double fgl_rng_uniform(fgl_rng *r) {
    return (double)(fgl_rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
}

FGLDEF float fgl_rng_uniformf(fgl_rng *r, float lo, float hi) {
    float u = (float)(fgl_rng_u64(r) >> 40) * (1.0f / 16777216.0f);
    float x = lo + (hi - lo) * u;
    /* Rounding can land on hi (lo 0.5, hi 1.5, u = 1 - 2^-24 gives 1.5):
     * step back to the largest float below it to keep [lo, hi). */
    return x >= hi && hi > lo ? nextafterf(hi, lo) : x;
}

FGLDEF uint64_t fgl_rng_below(fgl_rng *r, uint64_t n) {
    /* Rejection of the top partial block keeps every value equally likely. */
    uint64_t limit, x;
    FGL_ASSERT(n > 0);
    limit = (uint64_t)0 - ((uint64_t)0 - n) % n; /* largest multiple of n, mod 2^64 */
    do {
        x = fgl_rng_u64(r);
    } while (limit != 0 && x >= limit);
    return x % n;
}

FGLDEF double fgl_rng_normal(fgl_rng *r) {
    /* Box-Muller; u1 in (0, 1] keeps the log finite. */
    double u1 = 1.0 - fgl_rng_uniform(r);
    double u2 = fgl_rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

FGLDEF double fgl_rng_gamma(fgl_rng *r, double shape) {
    /* Marsaglia & Tsang (2000); shape < 1 via Gamma(shape+1) * U^(1/shape). */
    double d, c, x, v, u;
    if (!(shape > 0)) return 0.0;
    if (shape < 1.0) {
        double g = fgl_rng_gamma(r, shape + 1.0);
        double w = 1.0 - fgl_rng_uniform(r);
        return g * pow(w, 1.0 / shape);
    }
    d = shape - 1.0 / 3.0;
    c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        do {
            x = fgl_rng_normal(r);
            v = 1.0 + c * x;
        } while (v <= 0);
        v = v * v * v;
        u = fgl_rng_uniform(r);
        if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
        if (log(u) < 0.5 * x * x + d * (1.0 - v + log(v))) return d * v;
    }
}

FGLDEF int fgl_rng_bernoulli(fgl_rng *r, double p) { return fgl_rng_uniform(r) < p; }

FGLDEF void fgl_rng_dirichlet(fgl_rng *r, const double *alpha, int k, double *out) {
    double sum = 0;
    int i;
    for (i = 0; i < k; i++) sum += (out[i] = fgl_rng_gamma(r, alpha[i]));
    if (sum > 0) {
        for (i = 0; i < k; i++) out[i] /= sum;
    } else if (k > 0) {
        /* Every gamma underflowed (tiny alphas): the limit puts all mass on
         * one component, chosen uniformly. */
        int j = (int)fgl_rng_below(r, (uint64_t)k);
        for (i = 0; i < k; i++) out[i] = (i == j);
    }
}

FGLDEF void fgl_rng_shuffle(fgl_rng *r, int *a, int n) {
    int i;
    for (i = n - 1; i > 0; i--) {
        int j = (int)fgl_rng_below(r, (uint64_t)i + 1);
        int tmp = a[i];
        a[i] = a[j];
        a[j] = tmp;
    }
}

FGLDEF int fgl_rng_sample(fgl_rng *r, int n, int k, int *out) {
    int *pool, i;
    if (n < 0 || k < 0 || k > n) return FGL_ERR_ARG;
    pool = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(n, 1));
    if (!pool) return FGL_ERR_NOMEM;
    for (i = 0; i < n; i++) pool[i] = i;
    for (i = 0; i < k; i++) { /* partial Fisher-Yates */
        int j = i + (int)fgl_rng_below(r, (uint64_t)(n - i));
        int tmp = pool[i];
        pool[i] = pool[j];
        pool[j] = tmp;
        out[i] = pool[i];
    }
    FGL_FREE(pool);
    return FGL_OK;
}

#include "../alone.h"
