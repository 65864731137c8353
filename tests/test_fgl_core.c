/* Core tests of fgl.h: errors, RNG, tensors and GEMM, CSR, serialisation,
 * parameter sets and optimizers. */
#include "../fgl.h"
#include "ft.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* Statistical checks use 5 standard errors (two-sided p ~ 6e-7 for a normal
 * mean; chi-square thresholds are the 1 - 2.9e-7 quantiles, the one-sided
 * 5-sigma tail), so a correct generator fails about once in a million runs
 * per check, and every seed is fixed: the outcome is deterministic. */
#define CHI2_5SIGMA_DF2 30.13
#define CHI2_5SIGMA_DF3 33.24
#define CHI2_5SIGMA_DF6 41.02
#define CHI2_5SIGMA_DF9 47.73
#define CHI2_5SIGMA_DF23 74.02

static void test_rng_streams_reproducible(void) {
    fgl_rng a, b, c;
    int i, same = 1, differ = 0;
    fgl_rng_init(&a, 42, 3);
    fgl_rng_init(&b, 42, 3);
    fgl_rng_init(&c, 42, 4);
    for (i = 0; i < 100; i++) {
        uint64_t x = fgl_rng_u64(&a), y = fgl_rng_u64(&b), z = fgl_rng_u64(&c);
        same &= x == y;
        differ += x != z;
    }
    FT_CHECK(same, "same seed and stream must repeat");
    FT_CHECK(differ == 100, "streams 3 and 4 collide %d times", 100 - differ);
}

static void test_gemm_matches_naive(void) {
    fgl_rng r;
    int ta, tb, s;
    /* M, K, N: edges of the 6 x 32 micro-tile and 96-row blocks, k over the
     * 256-step blocks, small M (columns split among tiles), N over 256 */
    int dims[][3] = {{1, 1, 1},     {7, 5, 3},      {37, 19, 53},  {100, 300, 70},
                     {6, 32, 256},  {97, 1025, 33}, {10, 600, 300}, {200, 50, 1100}};
    fgl_rng_init(&r, 7, 0);
    for (s = 0; s < 8; s++)
        for (ta = 0; ta < 2; ta++)
            for (tb = 0; tb < 2; tb++) {
                int M = dims[s][0], K = dims[s][1], N = dims[s][2], i, j, p;
                float *A = (float *)malloc(sizeof(float) * M * K), *B = (float *)malloc(sizeof(float) * K * N);
                float *C = (float *)malloc(sizeof(float) * M * N);
                double worst = 0;
                for (i = 0; i < M * K; i++) A[i] = fgl_rng_uniformf(&r, -1, 1);
                for (i = 0; i < K * N; i++) B[i] = fgl_rng_uniformf(&r, -1, 1);
                for (i = 0; i < M * N; i++) C[i] = 1.0f;
                fgl_gemm(ta, tb, M, N, K, 0.5f, A, ta ? M : K, B, tb ? K : N, 2.0f, C, N);
                for (i = 0; i < M; i++)
                    for (j = 0; j < N; j++) {
                        double sum = 0, mag = 0, bound;
                        for (p = 0; p < K; p++) {
                            double x = (double)(ta ? A[p * M + i] : A[i * K + p]) * (tb ? B[j * K + p] : B[p * N + j]);
                            sum += x;
                            mag += fabs(x);
                        }
                        /* float's worst case for a K-term dot product, the
                         * alpha/beta update and the final rounding:
                         * (K + 2) u (|alpha| sum |a b| + |beta c|), u = 2^-24 */
                        bound = (K + 2) * (1.0 / 16777216) * (0.5 * mag + 2.0);
                        worst = fmax(worst, fabs(0.5 * sum + 2.0 - C[i * N + j]) / bound);
                    }
                FT_CHECK(worst <= 1, "%dx%dx%d ta=%d tb=%d: error %.3g of the float bound", M, K, N, ta, tb, worst);
                free(A);
                free(B);
                free(C);
            }
}

static void test_params_roundtrip_and_corruption(void) {
    fgl_params ps, back;
    fgl_bytes b;
    fgl_error err;
    fgl_rng r;
    size_t i;
    int w;
    fgl_params_init(&ps);
    fgl_params_init(&back);
    fgl_rng_init(&r, 1, 0);
    w = fgl_params_add(&ps, "w", 3, 4, FGL_G_CONV, 1);
    fgl_params_add(&ps, "b", 1, 4, FGL_G_HEAD, 1);
    fgl_params_glorot(&ps, w, &r);
    fgl_bytes_init(&b);
    FT_CHECK(fgl_params_save_mem(&ps, &b) == FGL_OK, "save");
    FT_CHECK(fgl_params_load_mem(&back, b.data, b.len, &err) == FGL_OK, "load: %s", err.msg);
    FT_CHECK(fgl_params_same_layout(&ps, &back), "layout");
    FT_CHECK(memcmp(ps.data, back.data, sizeof(float) * ps.size) == 0, "values");
    for (i = 0; i < b.len; i++) { /* every truncation is an error */
        int rc = fgl_params_load_mem(&back, b.data, i, &err);
        if (rc == FGL_OK) {
            FT_CHECK(0, "truncation to %zu bytes accepted", i);
            break;
        }
    }
    for (i = 0; i < b.len; i++) { /* every single-byte corruption is an error */
        int rc;
        b.data[i] ^= 0x5a;
        rc = fgl_params_load_mem(&back, b.data, b.len, &err);
        b.data[i] ^= 0x5a;
        if (rc == FGL_OK) {
            FT_CHECK(0, "corruption of byte %zu accepted", i);
            break;
        }
    }
    fgl_bytes_free(&b);
    fgl_params_free(&ps);
    fgl_params_free(&back);
}

/* ---- errors ---------------------------------------------------------------- */

static void test_error_helpers(void) {
    fgl_error e;
    FT_CHECK(fgl_error_set(&e, FGL_ERR_PARSE, "line %d: %s", 7, "junk") == FGL_ERR_PARSE, "returns the code");
    FT_CHECK(e.code == FGL_ERR_PARSE && strcmp(e.msg, "line 7: junk") == 0, "message '%s'", e.msg);
    FT_CHECK(fgl_error_set(NULL, FGL_ERR_IO, "x") == FGL_ERR_IO, "NULL error allowed");
    fgl_error_clear(&e);
    FT_CHECK(e.code == FGL_OK && e.msg[0] == 0, "clear");
    FT_CHECK(strcmp(fgl_result_name(FGL_ERR_SHAPE), "FGL_ERR_SHAPE") == 0, "names");
    FT_CHECK(strcmp(fgl_result_name(12345), "FGL_ERR_UNKNOWN") == 0, "unknown code");
}

/* ---- RNG -------------------------------------------------------------------- */

/* Sample mean and variance of n draws of f. */
static void moments(double (*f)(fgl_rng *, double), fgl_rng *r, double arg, int n, double *mean, double *var) {
    double s = 0, s2 = 0;
    int i;
    for (i = 0; i < n; i++) {
        double x = f(r, arg);
        s += x;
        s2 += x * x;
    }
    *mean = s / n;
    *var = (s2 - n * *mean * *mean) / (n - 1);
}

static double draw_uniform(fgl_rng *r, double a) { (void)a; return fgl_rng_uniform(r); }
static double draw_normal(fgl_rng *r, double a) { (void)a; return fgl_rng_normal(r); }
static double draw_gamma(fgl_rng *r, double a) { return fgl_rng_gamma(r, a); }

static void test_rng_uniform_normal(void) {
    fgl_rng r;
    double m, v;
    const int n = 200000;
    int i, in_range = 1;
    fgl_rng_init(&r, 11, 0);
    moments(draw_uniform, &r, 0, n, &m, &v);
    /* U(0,1): mean 1/2, var 1/12; Var(s^2) ~ (mu4 - sigma^4) / n, mu4 = 1/80 */
    FT_NEAR(m, 0.5, 5 * sqrt(1.0 / 12 / n), "uniform mean");
    FT_NEAR(v, 1.0 / 12, 5 * sqrt((1.0 / 80 - 1.0 / 144) / n), "uniform variance");
    moments(draw_normal, &r, 0, n, &m, &v);
    /* N(0,1): Var(s^2) ~ 2 / n */
    FT_NEAR(m, 0.0, 5 * sqrt(1.0 / n), "normal mean");
    FT_NEAR(v, 1.0, 5 * sqrt(2.0 / n), "normal variance");
    for (i = 0; i < 100000; i++) {
        double u = fgl_rng_uniform(&r);
        float f = fgl_rng_uniformf(&r, -2.0f, 3.0f);
        in_range &= u >= 0 && u < 1 && f >= -2.0f && f < 3.0f;
    }
    FT_CHECK(in_range, "uniform draws stay in [lo, hi)");
    { /* the largest u: lo + (hi - lo) u rounds up to hi for these bounds */
        fgl_rng top;
        float x;
        /* xoshiro256** outputs rotl(5 s[1], 7) * 9: this s[1] gives all ones */
        top.s[0] = top.s[2] = top.s[3] = 1;
        top.s[1] = 0x4FC71C71C71C71C7ull;
        x = fgl_rng_uniformf(&top, 0.5f, 1.5f);
        FT_CHECK(x < 1.5f && x > 1.49999f, "uniformf(0.5, 1.5) at the top returned %.9g", x);
    }
}

static void test_rng_gamma(void) {
    static const double shapes[3] = {0.3, 1.0, 5.0};
    fgl_rng r;
    const int n = 100000;
    int k;
    fgl_rng_init(&r, 12, 0);
    for (k = 0; k < 3; k++) {
        double a = shapes[k], m, v;
        char what[64];
        moments(draw_gamma, &r, a, n, &m, &v);
        /* Gamma(a, 1): mean a, variance a, central 4th moment 3a(a + 2) */
        snprintf(what, sizeof what, "gamma(%.1f) mean", a);
        FT_NEAR(m, a, 5 * sqrt(a / n), what);
        snprintf(what, sizeof what, "gamma(%.1f) variance", a);
        FT_NEAR(v, a, 5 * sqrt((3 * a * (a + 2) - a * a) / n), what);
    }
    FT_CHECK(fgl_rng_gamma(&r, 0.0) == 0.0 && fgl_rng_gamma(&r, -1.0) == 0.0, "shape <= 0 gives 0");
}

static void test_rng_dirichlet(void) {
    static const double alpha[4] = {0.5, 1.0, 2.0, 4.0};
    double sum[4] = {0, 0, 0, 0}, out[4], a0 = 7.5, tiny[3] = {1e-300, 1e-300, 1e-300};
    fgl_rng r;
    const int n = 50000;
    int i, k, sums_to_one = 1, nonneg = 1;
    fgl_rng_init(&r, 13, 0);
    for (i = 0; i < n; i++) {
        double s = 0;
        fgl_rng_dirichlet(&r, alpha, 4, out);
        for (k = 0; k < 4; k++) {
            s += out[k];
            sum[k] += out[k];
            nonneg &= out[k] >= 0;
        }
        sums_to_one &= fabs(s - 1) < 1e-12;
    }
    FT_CHECK(sums_to_one && nonneg, "every sample is on the simplex");
    for (k = 0; k < 4; k++) { /* Var(x_k) = a_k (a0 - a_k) / (a0^2 (a0 + 1)) */
        double var = alpha[k] * (a0 - alpha[k]) / (a0 * a0 * (a0 + 1));
        FT_NEAR(sum[k] / n, alpha[k] / a0, 5 * sqrt(var / n), "dirichlet mean");
    }
    fgl_rng_dirichlet(&r, tiny, 3, out); /* every gamma underflows: one-hot */
    FT_CHECK(fabs(out[0] + out[1] + out[2] - 1) < 1e-12, "tiny alphas still sum to 1");
}

static void test_rng_bernoulli_shuffle_sample(void) {
    fgl_rng r;
    const int n = 100000;
    int i, k, hits = 0, a[1000], ok = 1, counts[4][4], cnt10[10], out[100];
    double chi;
    fgl_rng_init(&r, 14, 0);
    for (i = 0; i < n; i++) hits += fgl_rng_bernoulli(&r, 0.3);
    FT_NEAR((double)hits / n, 0.3, 5 * sqrt(0.3 * 0.7 / n), "bernoulli rate");
    FT_CHECK(!fgl_rng_bernoulli(&r, 0.0) && fgl_rng_bernoulli(&r, 1.0), "p = 0 and 1");
    /* shuffle is a permutation ... */
    for (i = 0; i < 1000; i++) a[i] = i;
    fgl_rng_shuffle(&r, a, 1000);
    {
        int seen[1000] = {0}, moved = 0;
        for (i = 0; i < 1000; i++) {
            ok &= a[i] >= 0 && a[i] < 1000 && !seen[a[i]];
            if (a[i] >= 0 && a[i] < 1000) seen[a[i]] = 1;
            moved += a[i] != i;
        }
        FT_CHECK(ok && moved > 900, "permutation (moved %d)", moved);
    }
    /* ... with every element equally likely in every position (4 x 4 table:
     * 9 degrees of freedom for a doubly-stochastic table) */
    memset(counts, 0, sizeof counts);
    for (i = 0; i < 40000; i++) {
        int b[4] = {0, 1, 2, 3};
        fgl_rng_shuffle(&r, b, 4);
        for (k = 0; k < 4; k++) counts[k][b[k]]++;
    }
    for (chi = 0, i = 0; i < 4; i++)
        for (k = 0; k < 4; k++) chi += (counts[i][k] - 10000.0) * (counts[i][k] - 10000.0) / 10000.0;
    FT_CHECK(chi < CHI2_5SIGMA_DF9, "shuffle positions chi-square %.1f", chi);
    /* sample: distinct, in range; inclusion probability k / n for each value */
    FT_CHECK(fgl_rng_sample(&r, 100, 50, out) == FGL_OK, "sample");
    {
        int seen[100] = {0};
        for (ok = 1, i = 0; i < 50; i++) {
            ok &= out[i] >= 0 && out[i] < 100 && !seen[out[i]];
            if (out[i] >= 0 && out[i] < 100) seen[out[i]] = 1;
        }
        FT_CHECK(ok, "50 distinct values of 0..99");
    }
    memset(cnt10, 0, sizeof cnt10);
    for (i = 0; i < 20000; i++) {
        fgl_rng_sample(&r, 10, 3, out);
        for (k = 0; k < 3; k++) cnt10[out[k]]++;
    }
    /* each count is Binomial(20000, 0.3); the 10 counts sum to 60000, so the
     * statistic sum (c - 6000)^2 / (6000 * 0.7) is chi-square with 9 dof */
    for (chi = 0, i = 0; i < 10; i++) chi += (cnt10[i] - 6000.0) * (cnt10[i] - 6000.0) / (6000.0 * 0.7);
    FT_CHECK(chi < CHI2_5SIGMA_DF9, "sample inclusion chi-square %.1f", chi);
    FT_CHECK(fgl_rng_sample(&r, 5, 6, out) == FGL_ERR_ARG, "k > n");
    FT_CHECK(fgl_rng_sample(&r, 0, 0, out) == FGL_OK, "empty sample");
}

static void test_rng_below_unbiased(void) {
    fgl_rng r;
    int counts[7] = {0}, i, low = 0, ok = 1;
    const int n = 70000;
    const uint64_t big = (uint64_t)3 << 62; /* 2^64 mod big = 2^62: plain x % big would favour [0, 2^62) 2:1 */
    double chi = 0;
    fgl_rng_init(&r, 15, 0);
    for (i = 0; i < n; i++) {
        uint64_t x = fgl_rng_below(&r, 7);
        if (x < 7) counts[x]++;
        else ok = 0;
    }
    for (i = 0; i < 7; i++) chi += (counts[i] - n / 7.0) * (counts[i] - n / 7.0) / (n / 7.0);
    FT_CHECK(ok, "below(7) in range");
    FT_CHECK(chi < CHI2_5SIGMA_DF6, "below(7) chi-square %.1f", chi);
    for (i = 0; i < 30000; i++) low += fgl_rng_below(&r, big) < ((uint64_t)1 << 62);
    FT_NEAR(low / 30000.0, 1.0 / 3, 5 * sqrt(2.0 / 9 / 30000), "below(3 * 2^62) is not biased to the low third");
    FT_CHECK(fgl_rng_below(&r, 1) == 0, "below(1)");
}

/* ---- tensors and vector kernels ------------------------------------------------ */

static void test_tensors(void) {
    fgl_tensor a, b, v, rows;
    float buf[6] = {1, 2, 3, 4, 5, 6};
    int i, zero = 1;
    FT_CHECK(fgl_tensor_init(&a, 3, 4) == FGL_OK && a.owns && fgl_tensor_size(&a) == 12, "init");
    for (i = 0; i < 12; i++) zero &= a.data[i] == 0.0f;
    FT_CHECK(zero, "zero-filled");
    FGL_AT(&a, 2, 1) = 7;
    FT_CHECK(a.data[9] == 7, "FGL_AT is row-major");
    FT_CHECK(fgl_tensor_clone(&b, &a) == FGL_OK && b.data != a.data && memcmp(a.data, b.data, 48) == 0, "clone");
    rows = fgl_tensor_rows(&a, 1, 2);
    FT_CHECK(rows.rows == 2 && rows.cols == 4 && rows.data == a.data + 4 && !rows.owns, "row view");
    v = fgl_tensor_view(buf, 2, 3);
    FT_CHECK(!v.owns && FGL_AT(&v, 1, 2) == 6, "view");
    fgl_tensor_free(&v); /* a view's free does not release */
    FT_CHECK(buf[5] == 6, "view untouched");
    fgl_tensor_free(&a);
    fgl_tensor_free(&b);
    FT_CHECK(a.data == NULL && a.rows == 0, "free resets");
    FT_CHECK(fgl_tensor_init(&a, -1, 2) == FGL_ERR_ARG && a.data == NULL, "negative shape");
    FT_CHECK(fgl_tensor_init(&a, 0, 5) == FGL_OK && fgl_tensor_size(&a) == 0, "empty tensor");
    fgl_tensor_free(&a);
}

static void test_matmul_tensor_form(void) {
    float A[6] = {1, 2, 3, 4, 5, 6}, B[6] = {1, 0, -1, 2, 0.5f, 1}, C[4] = {10, 10, 10, 10};
    fgl_tensor a = fgl_tensor_view(A, 2, 3), b = fgl_tensor_view(B, 3, 2), c = fgl_tensor_view(C, 2, 2);
    fgl_tensor c3 = fgl_tensor_view(C, 2, 2);
    /* A B = [1-2+1.5, 0+4+3; 4-5+3, 0+10+6] = [0.5, 7; 2, 16] */
    FT_CHECK(fgl_matmul(&a, 0, &b, 0, &c, 0) == FGL_OK, "matmul");
    FT_CHECK(C[0] == 0.5f && C[1] == 7 && C[2] == 2 && C[3] == 16, "values %g %g %g %g", C[0], C[1], C[2], C[3]);
    FT_CHECK(fgl_matmul(&a, 0, &b, 0, &c, 1) == FGL_OK && C[0] == 1.0f && C[3] == 32, "accumulate");
    FT_CHECK(fgl_matmul(&a, 0, &a, 0, &c, 0) == FGL_ERR_SHAPE, "inner mismatch");
    c3.cols = 3;
    FT_CHECK(fgl_matmul(&a, 0, &b, 0, &c3, 0) == FGL_ERR_SHAPE, "output mismatch");
    FT_CHECK(fgl_matmul(&a, 1, &b, 1, &c3, 0) == FGL_ERR_SHAPE, "A^T B^T is 3 x 3");
}

static void test_gemm_edge_cases(void) {
    float A[4 * 5], B[5 * 3], C[4 * 8], want;
    int i, j, p, ok = 1;
    for (i = 0; i < 20; i++) A[i] = (float)(i % 7) - 3;
    for (i = 0; i < 15; i++) B[i] = (float)(i % 5) * 0.5f;
    /* beta = 0 overwrites, even NaN; C is a 4 x 3 block of a 4 x 8 buffer */
    for (i = 0; i < 32; i++) C[i] = NAN;
    fgl_gemm(0, 0, 4, 3, 5, 1.0f, A, 5, B, 3, 0.0f, C, 8);
    for (i = 0; i < 4; i++)
        for (j = 0; j < 8; j++) {
            if (j >= 3) {
                ok &= isnan(C[i * 8 + j]); /* outside the block: untouched */
                continue;
            }
            for (want = 0, p = 0; p < 5; p++) want += A[i * 5 + p] * B[p * 3 + j];
            ok &= C[i * 8 + j] == want; /* small integers and halves: exact */
        }
    FT_CHECK(ok, "beta 0 with NaN in C, row stride 8");
    fgl_gemm(0, 0, 4, 3, 0, 1.0f, A, 5, B, 3, 0.5f, C, 8); /* k = 0: C = beta C */
    FT_CHECK(C[0] == 0.5f * (A[0] * B[0] + A[1] * B[3] + A[2] * B[6] + A[3] * B[9] + A[4] * B[12]), "k = 0 scales C");
    fgl_gemm(0, 0, 4, 3, 5, 0.0f, A, 5, B, 3, 0.0f, C, 8);
    FT_CHECK(C[0] == 0 && C[3 * 8 + 2] == 0, "alpha 0, beta 0: zeros");
}

static void test_gemm_thread_independent(void) {
    /* The same product with 1 and 2 threads is bit-identical (each element of
     * C is summed in a fixed order), on shapes large enough to run parallel.
     * {64, 2000, 64} and {8, 17000, 16} (small C, long k) are shared among 2
     * threads by blocks of k, the last in more than one group of blocks:
     * against the tiled product of 1 thread. {128, 3900, 64} (a weight
     * gradient over 128 features) and {3901, 64, 128} are cut into row
     * blocks of equal height, a number of them the threads divide: not the
     * one thread's blocks. */
#ifdef _OPENMP
    static const int dims[7][3] = {{300, 700, 64}, {64, 2000, 64}, {257, 129, 300}, {20, 3000, 300}, {8, 17000, 16},
                                   {128, 3900, 64}, {3901, 64, 128}};
    fgl_rng r;
    int s, ta;
    fgl_rng_init(&r, 21, 0);
    for (s = 0; s < 7; s++)
        for (ta = 0; ta < 4; ta++) { /* ta 2, 3: the same with B transposed (B^T stored N x K) */
            int M = dims[s][0], K = dims[s][1], N = dims[s][2], i, saved = omp_get_max_threads(), tb = ta / 2;
            float *A = (float *)malloc(sizeof(float) * M * K), *B = (float *)malloc(sizeof(float) * K * N);
            float *C1 = (float *)malloc(sizeof(float) * M * N), *C2 = (float *)malloc(sizeof(float) * M * N);
            for (i = 0; i < M * K; i++) A[i] = fgl_rng_uniformf(&r, -1, 1);
            for (i = 0; i < K * N; i++) B[i] = fgl_rng_uniformf(&r, -1, 1);
            omp_set_num_threads(1);
            fgl_gemm(ta % 2, tb, M, N, K, 1.0f, A, ta % 2 ? M : K, B, tb ? K : N, 0.0f, C1, N);
            omp_set_num_threads(2);
            fgl_gemm(ta % 2, tb, M, N, K, 1.0f, A, ta % 2 ? M : K, B, tb ? K : N, 0.0f, C2, N);
            omp_set_num_threads(saved);
            FT_CHECK(memcmp(C1, C2, sizeof(float) * M * N) == 0, "%dx%dx%d ta=%d tb=%d differs between 1 and 2 threads", M,
                     K, N, ta % 2, tb);
            free(A);
            free(B);
            free(C1);
            free(C2);
        }
    { /* a small C over a long k (shared among threads by blocks of k), not at
       * a cache line's start, added to (beta 1): the same bits as one thread,
       * nothing written outside its rows */
        int M = 64, K = 3000, N = 64, ldc = N + 3, i, saved = omp_get_max_threads(), t;
        float *A = (float *)malloc(sizeof(float) * M * K), *B = (float *)malloc(sizeof(float) * K * N);
        float *C[2];
        for (i = 0; i < M * K; i++) A[i] = fgl_rng_uniformf(&r, -1, 1);
        for (i = 0; i < K * N; i++) B[i] = fgl_rng_uniformf(&r, -1, 1);
        for (t = 0; t < 2; t++) {
            C[t] = (float *)malloc(sizeof(float) * (M * ldc + 1));
            for (i = 0; i < M * ldc + 1; i++) C[t][i] = (float)(i % 7) - 3.0f;
            omp_set_num_threads(t + 1);
            fgl_gemm(1, 0, M, N, K, 1.0f, A, M, B, N, 1.0f, C[t] + 1, ldc);
        }
        omp_set_num_threads(saved);
        FT_CHECK(memcmp(C[0], C[1], sizeof(float) * (M * ldc + 1)) == 0,
                 "small C, long k, beta 1: differs between 1 and 2 threads (or was written outside its rows)");
        FT_CHECK(C[1][0] == -3.0f && C[1][1 + N] == (float)((1 + N) % 7) - 3.0f, "values outside C's columns changed");
        free(A);
        free(B);
        free(C[0]);
        free(C[1]);
    }
    { /* a dense layer's forward with few rows and many inputs (x W + b: the
       * bias stored with the first block of k): the same bits at 1 and 2 threads */
        int M = 40, K = 900, N = 70, t, i, saved = omp_get_max_threads();
        float *x = (float *)malloc(sizeof(float) * M * K), *w = (float *)malloc(sizeof(float) * K * N), b[70];
        float *y[2];
        for (i = 0; i < M * K; i++) x[i] = fgl_rng_uniformf(&r, -1, 1);
        for (i = 0; i < K * N; i++) w[i] = fgl_rng_uniformf(&r, -1, 1);
        for (i = 0; i < N; i++) b[i] = fgl_rng_uniformf(&r, -1, 1);
        for (t = 0; t < 2; t++) {
            fgl_tape tp;
            fgl_node *out;
            fgl_tape_init(&tp);
            omp_set_num_threads(t + 1);
            out = fgl_op_linear(&tp, fgl_op_const(&tp, x, M, K), fgl_op_const(&tp, w, K, N), fgl_op_const(&tp, b, 1, N));
            y[t] = (float *)malloc(sizeof(float) * M * N);
            if (out) memcpy(y[t], out->val, sizeof(float) * M * N);
            FT_CHECK(out != NULL, "linear failed");
            fgl_tape_free(&tp);
        }
        omp_set_num_threads(saved);
        FT_CHECK(memcmp(y[0], y[1], sizeof(float) * M * N) == 0, "linear 40 x 900 -> 70 with bias differs between 1 and 2 threads");
        free(x);
        free(w);
        free(y[0]);
        free(y[1]);
    }
#else
    FT_SKIP("built without OpenMP");
#endif
}

/* Column sums on several threads keep one order whatever the threads (a
 * linear layer's bias gradient the rows' serial order, fgl.h's
 * fgl__col_chain; batch norm's statistics fixed pieces of rows merged in
 * order), and a sparse product's rows are cut by work: batch norm ->
 * ReLU -> linear (C -> C, bias) -> linear with ReLU fused (the same
 * weights) -> loss, backward, at 1 to 4 threads gives
 * the same bits everywhere, on shapes that run in parallel (R x C at least
 * FGL_PAR_MIN) with C a multiple of 64 or not, and R a multiple of the
 * pieces' 256 rows or not; the running mean and variance (momentum 1) are
 * the columns' mean and unbiased variance, and the bias gradient the sum
 * of the output gradient's rows in order, bit for bit. */
static void test_column_sums_thread_independent(void) {
#ifdef _OPENMP
    static const int shapes[6][2] = {{5000, 64}, {3001, 37}, {700, 100}, {257, 300}, {1100, 80}, {1024, 72}};
    fgl_rng r;
    int s, saved = omp_get_max_threads();
    fgl_rng_init(&r, 33, 0);
    for (s = 0; s < 6; s++) {
        int R = shapes[s][0], C = shapes[s][1], nt, i, j, same = 1, exact = 1, stats = 1;
        size_t nx = (size_t)R * C;
        float *ref_out = (float *)malloc(sizeof(float) * nx), *ref_grad = NULL, ref_rm[300], ref_rv[300];
        fgl_params ps;
        int sx, sg, sb, sw, sbias;
        fgl_params_init(&ps);
        sx = fgl_params_add(&ps, "x", R, C, FGL_G_OTHER, 1);
        sg = fgl_params_add(&ps, "gamma", 1, C, FGL_G_OTHER, 1);
        sb = fgl_params_add(&ps, "beta", 1, C, FGL_G_OTHER, 1);
        sw = fgl_params_add(&ps, "w", C, C, FGL_G_OTHER, 1);
        sbias = fgl_params_add(&ps, "bias", 1, C, FGL_G_OTHER, 1);
        FT_CHECK(sx >= 0 && sbias >= 0, "params");
        if (sbias < 0) {
            free(ref_out);
            fgl_params_free(&ps);
            continue;
        }
        for (i = 0; i < (int)ps.size; i++) ps.data[i] = fgl_rng_uniformf(&r, -1, 1);
        for (i = 0; i < (int)nx; i++) fgl_params_data(&ps, sx)[i] += 0.01f * (float)(i % C); /* columns of different means */
        for (nt = 1; nt <= 4; nt++) {
            fgl_tape t;
            fgl_node *y, *z, *z2;
            float rm[300], rv[300];
            for (j = 0; j < C; j++) rm[j] = 0.5f, rv[j] = 2.0f;
            omp_set_num_threads(nt);
            fgl_tape_init(&t);
            t.retain_grads = 1; /* the bias gradient is checked against z's */
            fgl_params_zero_grad(&ps);
            y = fgl_op_batch_norm_relu(&t, fgl_op_param(&t, &ps, sx), fgl_op_param(&t, &ps, sg), fgl_op_param(&t, &ps, sb), rm,
                                       rv, 1.0f, 1e-5f, 1);
            z = fgl_op_linear(&t, y, fgl_op_param(&t, &ps, sw), fgl_op_param(&t, &ps, sbias));
            z2 = fgl_op_linear_relu(&t, z, fgl_op_param(&t, &ps, sw), NULL);
            fgl_tape_backward(&t, fgl_op_sum(&t, fgl_op_square(&t, z2)));
            FT_CHECK(z2 && !t.err.code, "%d x %d at %d threads: tape healthy", R, C, nt);
            if (!z2 || t.err.code) {
                fgl_tape_free(&t);
                break;
            }
            if (nt == 1) {
                double m;
                float gb;
                memcpy(ref_out, z2->val, sizeof(float) * nx);
                ref_grad = (float *)malloc(sizeof(float) * ps.size);
                memcpy(ref_grad, ps.grad, sizeof(float) * ps.size);
                memcpy(ref_rm, rm, sizeof(float) * C);
                memcpy(ref_rv, rv, sizeof(float) * C);
                for (j = 0; j < C; j++) {
                    double v, mean;
                    const float *xc = fgl_params_data(&ps, sx) + j;
                    for (m = 0, i = 0; i < R; i++) m += xc[(size_t)i * C];
                    mean = m / R;
                    for (v = 0, i = 0; i < R; i++) v += (xc[(size_t)i * C] - mean) * (xc[(size_t)i * C] - mean);
                    v /= R - 1;
                    /* the statistics come from pieces of rows merged: the same values to
                     * double rounding, so the floats agree to their last bit or so */
                    stats &= fabs(rm[j] - mean) <= 2e-7 * fabs(mean) + 1e-12 && fabs(rv[j] - v) <= 2e-7 * v + 1e-12;
                    for (gb = 0.0f, i = 0; i < R; i++) gb += z->grad[(size_t)i * C + j];
                    exact &= memcmp(&gb, &fgl_params_gradp(&ps, sbias)[j], sizeof gb) == 0;
                }
            } else {
                same &= memcmp(ref_out, z2->val, sizeof(float) * nx) == 0;
                same &= memcmp(ref_grad, ps.grad, sizeof(float) * ps.size) == 0;
                same &= memcmp(ref_rm, rm, sizeof(float) * C) == 0 && memcmp(ref_rv, rv, sizeof(float) * C) == 0;
            }
            fgl_tape_free(&t);
        }
        omp_set_num_threads(saved);
        FT_CHECK(exact, "%d x %d: the bias gradient is the serial sum of the rows, bit for bit", R, C);
        FT_CHECK(stats, "%d x %d: running mean and variance (momentum 1) are the columns' mean and unbiased variance", R, C);
        FT_CHECK(same, "%d x %d: batch norm and linear (output, gradients, running statistics) differ between thread counts",
                 R, C);
        free(ref_out);
        free(ref_grad);
        fgl_params_free(&ps);
    }
#else
    FT_SKIP("built without OpenMP");
#endif
}

/* A sparse product's rows are shared among the threads in runs of about
 * equal work (nonzeros and rows): over a graph with a hub row holding most
 * of the nonzeros, every thread count gives the same bits (no row computed
 * twice or skipped). */
static void test_spmm_thread_independent(void) {
#ifdef _OPENMP
    fgl_rng r;
    int saved = omp_get_max_threads();
    fgl_rng_init(&r, 34, 0);
    { /* 3000 rows, row 7 holds 6000 of the nonzeros */
        fgl_csr a;
        int R = 3000, n = 64, nnz = 6000 + 3 * (R - 1), i, k, w = 0, nt, same = 1;
        float *X = (float *)malloc(sizeof(float) * R * n), *Y[4];
        FT_CHECK(fgl_csr_init(&a, R, R, nnz, 1) == FGL_OK, "csr");
        for (i = 0; i < R * n; i++) X[i] = fgl_rng_uniformf(&r, -1, 1);
        for (i = 0; i < R; i++) {
            int deg = i == 7 ? 6000 : 3;
            a.indptr[i] = w;
            for (k = 0; k < deg; k++) {
                a.indices[w] = i == 7 ? k % R : (i * 31 + k * 977) % R;
                a.values[w++] = fgl_rng_uniformf(&r, -1, 1);
            }
        }
        a.indptr[R] = w;
        for (nt = 0; nt < 4; nt++) {
            Y[nt] = (float *)malloc(sizeof(float) * R * n);
            omp_set_num_threads(nt + 1);
            fgl_csr_spmm(&a, X, n, 0.0f, Y[nt]);
            if (nt) same &= memcmp(Y[0], Y[nt], sizeof(float) * R * n) == 0;
        }
        omp_set_num_threads(saved);
        FT_CHECK(same, "sparse product with a hub row differs between thread counts");
        for (nt = 0; nt < 4; nt++) free(Y[nt]);
        free(X);
        fgl_csr_free(&a);
    }
#else
    FT_SKIP("built without OpenMP");
#endif
}

/* The row-parallel shape ops and the elementwise loops on several threads:
 * concat (an input given twice: written, then added to) -> tanh ->
 * relu_dropout -> spmm_bias -> loss against a fixed weighting, backward,
 * at 1 to 4 threads, on shapes that run in parallel and cut into a number
 * of elementwise pieces that does not divide evenly among the threads.
 * Every value and gradient has the same bits at every thread count; the
 * concatenation's forward is its inputs' copy, its backward the two column
 * blocks added as one pass adds them (0 + first + second), and the sparse
 * product's bias gradient the output gradient's rows summed in order;
 * dropout's mask (drawn in parallel from skipped-ahead generator states)
 * is the one a single pass of draws makes, and the generator ends where
 * that pass leaves it. */
static void test_row_ops_thread_independent(void) {
#ifdef _OPENMP
    static const int shapes[2][2] = {{2000, 24}, {15 * 16384 / 40 + 7, 20}}; /* rows, columns of x */
    fgl_rng r;
    int saved = omp_get_max_threads(), s;
    fgl_rng_init(&r, 35, 0);
    for (s = 0; s < 2; s++) {
        int R = shapes[s][0], C = shapes[s][1], C2 = 2 * C + 3, nt, i, j, k, w = 0, ok_fwd = 1, ok_bw = 1, ok_bias = 1;
        int ok_mask = 1;
        fgl_rng rs[4];
        float *x = (float *)malloc(sizeof(float) * R * C), *z = (float *)malloc(sizeof(float) * R * 3);
        float *wt = (float *)malloc(sizeof(float) * R * C2), *bias = (float *)malloc(sizeof(float) * C2);
        float *out[4], *gx[4], *gz[4], *gb[4];
        fgl_csr a;
        FT_CHECK(fgl_csr_init(&a, R, R, 3 * R, 1) == FGL_OK, "csr");
        for (i = 0; i < R; i++) {
            a.indptr[i] = w;
            for (k = 0; k < 3; k++) {
                a.indices[w] = (i * 7 + k * 131) % R;
                a.values[w++] = fgl_rng_uniformf(&r, -1, 1);
            }
        }
        a.indptr[R] = w;
        for (i = 0; i < R * C; i++) x[i] = fgl_rng_uniformf(&r, -2, 2);
        for (i = 0; i < R * 3; i++) z[i] = fgl_rng_uniformf(&r, -2, 2);
        for (i = 0; i < R * C2; i++) wt[i] = fgl_rng_uniformf(&r, -1, 1);
        for (i = 0; i < C2; i++) bias[i] = fgl_rng_uniformf(&r, -1, 1);
        for (nt = 0; nt < 4; nt++) {
            fgl_params ps;
            fgl_tape t;
            fgl_rng dr;
            int sx, sz, sb;
            fgl_node *xs[3], *cat, *h, *y, *loss;
            fgl_params_init(&ps);
            sx = fgl_params_add(&ps, "x", R, C, FGL_G_HEAD, 1);
            sz = fgl_params_add(&ps, "z", R, 3, FGL_G_HEAD, 1);
            sb = fgl_params_add(&ps, "b", 1, C2, FGL_G_HEAD, 1);
            FT_CHECK(sx >= 0 && sz >= 0 && sb >= 0, "params");
            memcpy(fgl_params_data(&ps, sx), x, sizeof(float) * R * C);
            memcpy(fgl_params_data(&ps, sz), z, sizeof(float) * R * 3);
            memcpy(fgl_params_data(&ps, sb), bias, sizeof(float) * C2);
            fgl_params_zero_grad(&ps);
            fgl_rng_init(&dr, 36, 0);
            omp_set_num_threads(nt + 1);
            fgl_tape_init(&t);
            t.retain_grads = 1; /* cat's and y's gradients are read below */
            xs[0] = fgl_op_param(&t, &ps, sx);
            xs[1] = fgl_op_param(&t, &ps, sz);
            xs[2] = xs[0];
            cat = fgl_op_concat_cols(&t, xs, 3);
            h = fgl_op_relu_dropout(&t, fgl_op_tanh(&t, cat), 0.3f, &dr);
            y = fgl_op_spmm_bias(&t, &a, NULL, h, fgl_op_param(&t, &ps, sb));
            loss = fgl_op_sum(&t, fgl_op_mul(&t, y, fgl_op_const(&t, wt, R, C2)));
            FT_CHECK(loss && fgl_tape_backward(&t, loss) == FGL_OK, "forward and backward at %d threads", nt + 1);
            out[nt] = (float *)malloc(sizeof(float) * R * C2);
            gx[nt] = (float *)malloc(sizeof(float) * R * C);
            gz[nt] = (float *)malloc(sizeof(float) * R * 3);
            gb[nt] = (float *)malloc(sizeof(float) * C2);
            if (y) memcpy(out[nt], y->val, sizeof(float) * R * C2);
            memcpy(gx[nt], fgl_params_gradp(&ps, sx), sizeof(float) * R * C);
            memcpy(gz[nt], fgl_params_gradp(&ps, sz), sizeof(float) * R * 3);
            memcpy(gb[nt], fgl_params_gradp(&ps, sb), sizeof(float) * C2);
            rs[nt] = dr;
            if (nt == 0 && h && h->s0) { /* the mask a single pass of draws makes, in order */
                fgl_rng ref;
                const unsigned char *mask = (const unsigned char *)h->s0;
                uint32_t thr = (uint32_t)((double)0.3f * 4294967296.0);
                size_t e, ne = (size_t)R * C2;
                fgl_rng_init(&ref, 36, 0);
                for (e = 0; e < ne; e += 2) {
                    uint64_t u = fgl_rng_u64(&ref);
                    ok_mask &= mask[e] == ((uint32_t)u >= thr);
                    if (e + 1 < ne) ok_mask &= mask[e + 1] == ((uint32_t)(u >> 32) >= thr);
                }
                ok_mask &= memcmp(ref.s, dr.s, sizeof ref.s) == 0;
            }
            if (nt == 0 && cat && y) {
                for (i = 0; i < R; i++) /* the concatenation copies its inputs */
                    for (j = 0; j < C2; j++)
                        ok_fwd &= cat->val[(size_t)i * C2 + j] ==
                                  (j < C ? x[i * C + j] : j < C + 3 ? z[i * 3 + j - C] : x[i * C + j - C - 3]);
                for (i = 0; i < R; i++) /* x's gradient: its two blocks, as one pass adds them */
                    for (j = 0; j < C; j++)
                        ok_bw &= gx[0][i * C + j] == (0.0f + cat->grad[(size_t)i * C2 + j]) + cat->grad[(size_t)i * C2 + C + 3 + j];
                for (j = 0; j < C2; j++) { /* the bias gradient: the rows of dy in order */
                    float sum = 0.0f;
                    for (i = 0; i < R; i++) sum += y->grad[(size_t)i * C2 + j];
                    ok_bias &= gb[0][j] == sum;
                }
            }
            fgl_tape_free(&t);
            fgl_params_free(&ps);
        }
        omp_set_num_threads(saved);
        FT_CHECK(ok_fwd, "%d x %d: concat is not its inputs' copy", R, C2);
        FT_CHECK(ok_bw, "%d x %d: concat's backward is not the blocks' sum", R, C2);
        FT_CHECK(ok_bias, "%d x %d: spmm_bias's bias gradient is not the rows' sum in order", R, C2);
        FT_CHECK(ok_mask, "%d x %d: dropout's mask or final state is not a single pass of draws", R, C2);
        for (nt = 1; nt < 4; nt++)
            FT_CHECK(memcmp(rs[0].s, rs[nt].s, sizeof rs[0].s) == 0, "%d x %d: dropout's generator ends elsewhere at %d threads", R, C2, nt + 1);
        for (nt = 1; nt < 4; nt++) {
            FT_CHECK(memcmp(out[0], out[nt], sizeof(float) * R * C2) == 0, "%d x %d: output differs at %d threads", R, C2, nt + 1);
            FT_CHECK(memcmp(gx[0], gx[nt], sizeof(float) * R * C) == 0 && memcmp(gz[0], gz[nt], sizeof(float) * R * 3) == 0 &&
                         memcmp(gb[0], gb[nt], sizeof(float) * C2) == 0,
                     "%d x %d: gradients differ at %d threads", R, C2, nt + 1);
        }
        for (nt = 0; nt < 4; nt++) {
            free(out[nt]);
            free(gx[nt]);
            free(gz[nt]);
            free(gb[nt]);
        }
        free(x);
        free(z);
        free(wt);
        free(bias);
        fgl_csr_free(&a);
    }
#else
    FT_SKIP("built without OpenMP");
#endif
}

/* fgl__rng_skip_block: the state 2^14 draws ahead, as drawing them does. */
static void test_rng_skip_block(void) {
    int seed, d;
    for (seed = 0; seed < 3; seed++) {
        fgl_rng a, b;
        fgl_rng_init(&a, 40 + seed, seed);
        for (d = 0; d < 17 * seed; d++) (void)fgl_rng_u64(&a); /* from a state not just after seeding */
        b = a;
        for (d = 0; d < FGL__DRAW_BLOCK; d++) (void)fgl_rng_u64(&a);
        fgl__rng_skip_block(&b);
        FT_CHECK(memcmp(a.s, b.s, sizeof a.s) == 0, "seed %d: the skipped state is not 2^14 draws on", seed);
        fgl__rng_skip_block(&b);
        for (d = 0; d < FGL__DRAW_BLOCK; d++) (void)fgl_rng_u64(&a);
        FT_CHECK(memcmp(a.s, b.s, sizeof a.s) == 0, "seed %d: two skips are not 2^15 draws on", seed);
    }
}

static void test_vector_kernels(void) {
    float x[7] = {1, -2, 3, -4, 5, -6, 7}, y[7] = {0.5f, 0.5f, 1, 1, -1, 2, 0}, z[7], zero[7] = {0};
    double d = 0, n1 = 0, n2 = 0, ny = 0;
    int i, ok = 1;
    for (i = 0; i < 7; i++) {
        d += (double)x[i] * y[i];
        n1 += fabs(x[i]);
        n2 += (double)x[i] * x[i];
        ny += (double)y[i] * y[i];
    }
    FT_NEAR(fgl_dot(7, x, y), d, 1e-12, "dot");
    FT_NEAR(fgl_norm1(7, x), n1, 1e-12, "norm1");
    FT_NEAR(fgl_norm2(7, x), sqrt(n2), 1e-12, "norm2");
    FT_NEAR(fgl_cosine(7, x, y), d / sqrt(n2 * ny), 1e-12, "cosine");
    FT_CHECK(fgl_cosine(7, x, zero) == 0.0, "cosine with a zero vector is 0");
    FT_NEAR(fgl_cosine(7, x, x), 1.0, 1e-12, "cosine with itself");
    memcpy(z, y, sizeof z);
    fgl_axpy(7, 2.0f, x, z);
    for (i = 0; i < 7; i++) ok &= z[i] == y[i] + 2 * x[i];
    FT_CHECK(ok, "axpy");
    fgl_scale(7, -0.5f, z);
    for (ok = 1, i = 0; i < 7; i++) ok &= z[i] == -0.5f * (y[i] + 2 * x[i]);
    FT_CHECK(ok, "scale");
    FT_CHECK(fgl_dot(0, x, y) == 0 && fgl_norm2(0, x) == 0, "empty vectors");
    {
        fgl_tensor A = fgl_tensor_view(x, 1, 7), B = fgl_tensor_view(y, 1, 7), C = fgl_tensor_view(y, 7, 1);
        float out[1];
        FT_CHECK(fgl_cosine_rows(&A, &B, out) == FGL_OK && fabs(out[0] - d / sqrt(n2 * ny)) < 1e-6, "cosine_rows");
        FT_CHECK(fgl_cosine_rows(&A, &C, out) == FGL_ERR_SHAPE, "cosine_rows shapes");
    }
    z[3] = NAN;
    FT_CHECK(fgl_all_finite(7, x) && !fgl_all_finite(7, z), "NaN found");
    z[3] = INFINITY;
    FT_CHECK(!fgl_all_finite(7, z), "Inf found");
    FT_CHECK(fgl_now() > 0, "clock");
}

/* ---- CSR ------------------------------------------------------------------- */

static void csr_dense(const fgl_csr *a, double *d) {
    int i, k;
    memset(d, 0, sizeof(double) * (size_t)a->rows * a->cols);
    for (i = 0; i < a->rows; i++)
        for (k = a->indptr[i]; k < a->indptr[i + 1]; k++)
            d[(size_t)i * a->cols + a->indices[k]] += a->values ? a->values[k] : 1.0;
}

static void test_csr_from_coo(void) {
    /* unsorted input with duplicates: (1,2) twice, (0,3) three times */
    static const int r[8] = {1, 0, 2, 1, 0, 1, 0, 2}, c[8] = {2, 3, 0, 0, 3, 2, 3, 4};
    static const float v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    static const int bad_r[2] = {0, 3}, bad_c[2] = {0, 1};
    fgl_csr a;
    fgl_error err;
    FT_CHECK(fgl_csr_from_coo(3, 5, 8, r, c, v, 1, &a, &err) == FGL_OK, "summed: %s", err.msg);
    FT_CHECK(fgl_csr_validate(&a, &err) == FGL_OK, "valid: %s", err.msg);
    FT_CHECK(a.nnz == 5, "5 distinct entries, got %d", a.nnz);
    if (a.nnz == 5) {
        /* row 0: (3: 2+5+7); row 1: (0: 4), (2: 1+6); row 2: (0: 3), (4: 8) */
        static const int ip[4] = {0, 1, 3, 5}, ix[5] = {3, 0, 2, 0, 4};
        static const float vx[5] = {14, 4, 7, 3, 8};
        FT_CHECK(memcmp(a.indptr, ip, sizeof ip) == 0 && memcmp(a.indices, ix, sizeof ix) == 0, "structure");
        FT_CHECK(a.values && memcmp(a.values, vx, sizeof vx) == 0, "summed values");
    }
    fgl_csr_free(&a);
    FT_CHECK(fgl_csr_from_coo(3, 5, 8, r, c, v, 0, &a, &err) == FGL_OK, "collapsed");
    if (a.nnz == 5) { /* the first value given is kept */
        static const float vx[5] = {2, 4, 1, 3, 8};
        FT_CHECK(a.values && memcmp(a.values, vx, sizeof vx) == 0, "first duplicate kept");
    }
    fgl_csr_free(&a);
    FT_CHECK(fgl_csr_from_coo(3, 5, 8, r, c, NULL, 0, &a, &err) == FGL_OK && a.values == NULL && a.nnz == 5,
             "pattern only: values NULL");
    fgl_csr_free(&a);
    FT_CHECK(fgl_csr_from_coo(3, 5, 8, r, c, NULL, 1, &a, &err) == FGL_OK && a.values && a.values[0] == 3 &&
                 a.values[1] == 1 && a.values[2] == 2,
             "pattern with duplicates summed: counts");
    fgl_csr_free(&a);
    FT_CHECK(fgl_csr_from_coo(3, 5, 2, bad_r, bad_c, NULL, 0, &a, &err) == FGL_ERR_RANGE, "row out of range");
    FT_CHECK(strstr(err.msg, "entry 1") != NULL, "message names the entry: '%s'", err.msg);
    FT_CHECK(fgl_csr_from_coo(4, 1, 2, bad_r, bad_c, NULL, 0, &a, &err) == FGL_ERR_RANGE, "column out of range");
    FT_CHECK(fgl_csr_from_coo(-1, 1, 0, NULL, NULL, NULL, 0, &a, &err) == FGL_ERR_ARG, "negative size");
    FT_CHECK(fgl_csr_from_coo(3, 3, 0, NULL, NULL, NULL, 0, &a, &err) == FGL_OK && a.nnz == 0 &&
                 fgl_csr_validate(&a, NULL) == FGL_OK,
             "empty matrix");
    fgl_csr_free(&a);
}

static void test_csr_hub_row_is_fast(void) {
    /* one row with 200k entries in reverse order: linear time, sorted */
    const int n = 200000;
    int *r = (int *)malloc(sizeof(int) * n), *c = (int *)malloc(sizeof(int) * n), i;
    fgl_csr a;
    double t0 = fgl_now();
    for (i = 0; i < n; i++) {
        r[i] = 1;
        c[i] = n - 1 - i;
    }
    FT_CHECK(fgl_csr_from_coo(3, n, n, r, c, NULL, 0, &a, NULL) == FGL_OK, "build");
    FT_CHECK(fgl_csr_validate(&a, NULL) == FGL_OK && a.indptr[1] == 0 && a.indptr[2] == n, "sorted hub row");
    FT_CHECK(fgl_now() - t0 < 2.0, "took %.2f s", fgl_now() - t0);
    fgl_csr_free(&a);
    free(r);
    free(c);
}

static void test_csr_validate(void) {
    static const int r[4] = {0, 0, 1, 2}, c[4] = {0, 2, 1, 2};
    fgl_csr a;
    fgl_error err;
    fgl_csr_from_coo(3, 3, 4, r, c, NULL, 0, &a, NULL);
    FT_CHECK(fgl_csr_validate(&a, &err) == FGL_OK, "valid");
    a.indices[1] = 0; /* row 0: 0, 0 */
    FT_CHECK(fgl_csr_validate(&a, &err) == FGL_ERR_FORMAT && strstr(err.msg, "row 0"), "repeated column: %s", err.msg);
    a.indices[1] = 3;
    FT_CHECK(fgl_csr_validate(&a, &err) == FGL_ERR_RANGE, "column out of range");
    a.indices[1] = 2;
    a.indptr[2] = 1; /* {0, 2, 1, 4} */
    FT_CHECK(fgl_csr_validate(&a, &err) == FGL_ERR_FORMAT && strstr(err.msg, "decreases at row 1"),
             "indptr decreases: %s", err.msg);
    a.indptr[2] = 3;
    a.indptr[3] = 5;
    FT_CHECK(fgl_csr_validate(&a, &err) == FGL_ERR_FORMAT, "indptr[rows] != nnz");
    a.indptr[3] = 4;
    FT_CHECK(fgl_csr_validate(&a, &err) == FGL_OK, "repaired");
    fgl_csr_free(&a);
}

/* A random rows x cols CSR with about nnz entries and values in [-1, 1). */
static void random_csr(fgl_rng *g, int rows, int cols, int nnz, int with_values, fgl_csr *a) {
    int *r = (int *)malloc(sizeof(int) * nnz), *c = (int *)malloc(sizeof(int) * nnz), i;
    float *v = (float *)malloc(sizeof(float) * nnz);
    for (i = 0; i < nnz; i++) {
        r[i] = (int)fgl_rng_below(g, (uint64_t)rows);
        c[i] = (int)fgl_rng_below(g, (uint64_t)cols);
        v[i] = fgl_rng_uniformf(g, -1, 1);
    }
    fgl_csr_from_coo(rows, cols, nnz, r, c, with_values ? v : NULL, 1, a, NULL);
    free(r);
    free(c);
    free(v);
}

static void test_csr_transpose_and_products(void) {
    fgl_rng g;
    int vals;
    fgl_rng_init(&g, 31, 0);
    for (vals = 0; vals < 2; vals++) {
        fgl_csr a, at, att;
        double *d = (double *)malloc(sizeof(double) * 9 * 13), *dt = (double *)malloc(sizeof(double) * 13 * 9);
        float X[13 * 4], Xr[9 * 4], Y[9 * 4], Yt[13 * 4];
        double worst = 0, worst_t = 0;
        int i, j, k, same = 1;
        random_csr(&g, 9, 13, 30, vals, &a);
        FT_CHECK(fgl_csr_transpose(&a, &at) == FGL_OK && fgl_csr_validate(&at, NULL) == FGL_OK, "transpose valid");
        csr_dense(&a, d);
        csr_dense(&at, dt);
        for (i = 0; i < 9; i++)
            for (j = 0; j < 13; j++) same &= d[i * 13 + j] == dt[j * 9 + i];
        FT_CHECK(same && at.rows == 13 && at.cols == 9 && at.nnz == a.nnz, "transpose matches dense");
        fgl_csr_transpose(&at, &att);
        FT_CHECK(att.nnz == a.nnz && memcmp(att.indptr, a.indptr, sizeof(int) * 10) == 0 &&
                     memcmp(att.indices, a.indices, sizeof(int) * (size_t)a.nnz) == 0,
                 "transpose twice is the identity");
        for (i = 0; i < 13 * 4; i++) X[i] = fgl_rng_uniformf(&g, -1, 1);
        for (i = 0; i < 9 * 4; i++) Xr[i] = fgl_rng_uniformf(&g, -1, 1);
        for (i = 0; i < 9 * 4; i++) Y[i] = 1.0f;
        fgl_csr_spmm(&a, X, 4, 0.5f, Y); /* Y = A X + 0.5 Y */
        for (i = 0; i < 9; i++)
            for (j = 0; j < 4; j++) {
                double s = 0.5;
                for (k = 0; k < 13; k++) s += d[i * 13 + k] * X[k * 4 + j];
                worst = fmax(worst, fabs(s - Y[i * 4 + j]));
            }
        FT_CHECK(worst < 1e-5, "spmm vs dense: %g", worst);
        for (i = 0; i < 13 * 4; i++) Yt[i] = 2.0f;
        fgl_csr_spmm_t(&a, Xr, 4, Yt); /* Yt += A^T Xr */
        for (i = 0; i < 13; i++)
            for (j = 0; j < 4; j++) {
                double s = 2;
                for (k = 0; k < 9; k++) s += d[k * 13 + i] * Xr[k * 4 + j];
                worst_t = fmax(worst_t, fabs(s - Yt[i * 4 + j]));
            }
        FT_CHECK(worst_t < 1e-5, "spmm_t vs dense: %g", worst_t);
        for (i = 0; i < 9 * 4; i++) Y[i] = NAN;
        fgl_csr_spmm(&a, X, 4, 0.0f, Y);
        FT_CHECK(fgl_all_finite(9 * 4, Y), "beta 0 overwrites NaN");
        fgl_csr_free(&a);
        fgl_csr_free(&at);
        fgl_csr_free(&att);
        free(d);
        free(dt);
    }
}

static void test_csr_spmm_parallel_matches_serial(void) {
    /* large enough for the parallel path: same bits as a serial loop in the
     * same order */
    fgl_rng g;
    fgl_csr a;
    const int n = 4000, f = 32;
    float *X = (float *)malloc(sizeof(float) * n * f), *Y = (float *)malloc(sizeof(float) * n * f);
    float *Z = (float *)calloc((size_t)n * f, sizeof(float));
    int i, k, j;
    fgl_rng_init(&g, 32, 0);
    random_csr(&g, n, n, 80000, 1, &a);
    for (i = 0; i < n * f; i++) X[i] = fgl_rng_uniformf(&g, -1, 1);
    fgl_csr_spmm(&a, X, f, 0.0f, Y);
    for (i = 0; i < n; i++)
        for (k = a.indptr[i]; k < a.indptr[i + 1]; k++)
            for (j = 0; j < f; j++) Z[i * f + j] += a.values[k] * X[a.indices[k] * f + j];
    FT_CHECK(memcmp(Y, Z, sizeof(float) * n * f) == 0, "parallel spmm differs from the serial order");
    fgl_csr_free(&a);
    free(X);
    free(Y);
    free(Z);
}

/* ---- bytes, readers, frames, files ----------------------------------------------- */

static void test_bytes_reader(void) {
    fgl_bytes b;
    fgl_reader r;
    float f[3] = {1.5f, -0.0f, 3e-38f}, g[3];
    char s[8];
    fgl_bytes_init(&b);
    fgl_bytes_put_u32(&b, 0x01020304u);
    fgl_bytes_put_u64(&b, 0x1122334455667788ull);
    fgl_bytes_put_f32s(&b, f, 3);
    fgl_bytes_put_str(&b, "abc");
    FT_CHECK(b.err == 0 && b.len == 4 + 8 + 12 + 4 + 3, "length %zu", b.len);
    FT_CHECK(b.data[0] == 4 && b.data[3] == 1 && b.data[4] == 0x88, "little-endian");
    r = fgl_reader_make(b.data, b.len);
    FT_CHECK(fgl_reader_u32(&r) == 0x01020304u, "u32");
    FT_CHECK(fgl_reader_u64(&r) == 0x1122334455667788ull, "u64");
    FT_CHECK(fgl_reader_f32s(&r, g, 3) == FGL_OK && memcmp(f, g, sizeof f) == 0, "f32s bit-exact");
    FT_CHECK(fgl_reader_str(&r, s, sizeof s) == FGL_OK && strcmp(s, "abc") == 0, "str");
    FT_CHECK(r.pos == r.len && r.err == 0, "consumed");
    FT_CHECK(fgl_reader_u32(&r) == 0 && r.err == FGL_ERR_FORMAT, "reading past the end: zeros and an error");
    FT_CHECK(fgl_reader_u64(&r) == 0 && r.err, "error is sticky");
    /* a short string buffer is an error, not an overflow */
    r = fgl_reader_make(b.data + 24, b.len - 24);
    FT_CHECK(fgl_reader_str(&r, s, 3) == FGL_ERR_FORMAT && s[0] == 0, "string longer than the buffer");
    /* truncated float array */
    r = fgl_reader_make(b.data + 12, 8);
    g[0] = g[1] = g[2] = 9;
    FT_CHECK(fgl_reader_f32s(&r, g, 3) == FGL_ERR_FORMAT && g[0] == 0 && g[2] == 0, "truncated floats read as zeros");
    r = fgl_reader_make(NULL, 10);
    FT_CHECK(r.len == 0 && fgl_reader_u32(&r) == 0 && r.err, "NULL data is empty");
    fgl_bytes_free(&b);
    FT_CHECK(b.data == NULL && b.len == 0, "free");
}

static void test_frames_and_files(void) {
    fgl_bytes b;
    fgl_reader p;
    fgl_error err;
    size_t mark;
    unsigned char *data;
    size_t len;
    const char *path = "build/test_fgl_core_frame.bin";
    fgl_bytes_init(&b);
    fgl_frame_begin(&b, "TEST", 3, &mark);
    fgl_bytes_put_u32(&b, 42);
    fgl_frame_end(&b, mark);
    FT_CHECK(b.len == 4 + 4 + 8 + 4 + 8, "frame size");
    FT_CHECK(fgl_frame_open(b.data, b.len, "TEST", 3, &p, "t", &err) == FGL_OK && fgl_reader_u32(&p) == 42, "open");
    FT_CHECK(fgl_frame_open(b.data, b.len, "TEXT", 3, &p, "t", &err) == FGL_ERR_FORMAT && strstr(err.msg, "magic"),
             "magic: %s", err.msg);
    FT_CHECK(fgl_frame_open(b.data, b.len, "TEST", 4, &p, "t", &err) == FGL_ERR_FORMAT && strstr(err.msg, "version"),
             "version: %s", err.msg);
    FT_CHECK(fgl_frame_open(b.data, b.len - 1, "TEST", 3, &p, "t", &err) == FGL_ERR_FORMAT &&
                 strstr(err.msg, "truncated"),
             "truncated: %s", err.msg);
    FT_CHECK(fgl_frame_open(b.data, 10, "TEST", 3, &p, "t", &err) == FGL_ERR_FORMAT, "truncated header");
    b.data[17] ^= 1;
    FT_CHECK(fgl_frame_open(b.data, b.len, "TEST", 3, &p, "t", &err) == FGL_ERR_FORMAT && strstr(err.msg, "checksum"),
             "corrupted: %s", err.msg);
    b.data[17] ^= 1;
    fgl_bytes_put_u32(&b, 0);
    FT_CHECK(fgl_frame_open(b.data, b.len, "TEST", 3, &p, "t", &err) == FGL_ERR_FORMAT && strstr(err.msg, "trailing"),
             "trailing bytes: %s", err.msg);
    b.len -= 4;
    FT_CHECK(fgl_file_write(path, b.data, b.len, &err) == FGL_OK, "write: %s", err.msg);
    FT_CHECK(fgl_file_read(path, &data, &len, &err) == FGL_OK && len == b.len && memcmp(data, b.data, len) == 0,
             "read back");
    free(data); /* FGL_FREE is malloc's free here, and defined only where the implementation is */
    data = NULL;
    FT_CHECK(fgl_file_write(path, NULL, 0, &err) == FGL_OK && fgl_file_read(path, &data, &len, &err) == FGL_OK &&
                 len == 0 && data != NULL,
             "empty file");
    free(data); /* FGL_FREE is malloc's free here, and defined only where the implementation is */
    data = NULL;
    {
        size_t big = 300000, i, same = 1;
        unsigned char *src = (unsigned char *)malloc(big);
        for (i = 0; i < big; i++) src[i] = (unsigned char)(i * 7 + (i >> 9));
        FT_CHECK(fgl_file_write(path, src, big, &err) == FGL_OK, "write 300 KB");
        FT_CHECK(fgl_file_read(path, &data, &len, &err) == FGL_OK && len == big, "read 300 KB: %zu", len);
        for (i = 0; data && i < big && i < len; i++) same &= data[i] == src[i];
        FT_CHECK(same, "300 KB round trip");
        free(data); /* FGL_FREE is malloc's free here, and defined only where the implementation is */
        free(src);
    }
    remove(path);
    FT_CHECK(fgl_file_read("build/no/such/file", &data, &len, &err) == FGL_ERR_IO && strstr(err.msg, "no/such/file") &&
                 data == NULL,
             "missing file: %s", err.msg);
    FT_CHECK(fgl_file_write("build/no/such/dir/f", b.data, b.len, &err) == FGL_ERR_IO, "unwritable path");
    FT_CHECK(fgl_checksum64("", 0) == 0xCBF29CE484222325ull && fgl_checksum64("a", 1) == 0xAF63DC4C8601EC8Cull,
             "FNV-1a reference values");
    fgl_bytes_free(&b);
}

/* ---- parameter sets -------------------------------------------------------------- */

/* conv 2x3 (CONV), head 1x4 (HEAD), mask 2x2 (MASK|CONV), stat 1x3 (BNSTAT, frozen);
 * in memory (grouped by lowest tag bit): conv 0..5, mask 6..9, head 10..13, stat 14..16 */
static void make_set(fgl_params *ps, float base) {
    size_t i;
    fgl_params_init(ps);
    fgl_params_add(ps, "conv", 2, 3, FGL_G_CONV, 1);
    fgl_params_add(ps, "head", 1, 4, FGL_G_HEAD, 1);
    fgl_params_add(ps, "mask", 2, 2, FGL_G_MASK | FGL_G_CONV, 1);
    fgl_params_add(ps, "stat", 1, 3, FGL_G_BNSTAT, 0);
    for (i = 0; i < ps->size; i++) ps->data[i] = base + (float)i;
}

static void test_params_basics(void) {
    fgl_params ps, q;
    char longname[FGL_SLICE_NAME_LEN + 1];
    make_set(&ps, 0);
    FT_CHECK(ps.n == 4 && ps.size == 6 + 4 + 4 + 3, "size");
    FT_CHECK(fgl_params_find(&ps, "head") == 1 && fgl_params_find(&ps, "nope") == -1, "find");
    FT_CHECK(fgl_params_data(&ps, 1) == ps.data + 10 && fgl_params_gradp(&ps, 2) == ps.grad + 6, "slice pointers");
    FT_CHECK(fgl_params_add(&ps, "head", 1, 1, 0, 1) == FGL_ERR_ARG, "duplicate name");
    FT_CHECK(fgl_params_add(&ps, "z", 0, 1, 0, 1) == FGL_ERR_ARG, "empty shape");
    memset(longname, 'x', sizeof longname - 1);
    longname[FGL_SLICE_NAME_LEN] = 0;
    FT_CHECK(fgl_params_add(&ps, longname, 1, 1, 0, 1) == FGL_ERR_ARG, "name too long");
    FT_CHECK(fgl_params_add(&ps, "untagged", 1, 1, 0, 1) == 4 && ps.slices[4].groups == FGL_G_OTHER, "untagged");
    FT_CHECK(fgl_params_count(&ps, FGL_G_CONV) == 10 && fgl_params_count(&ps, FGL_G_MASK) == 4 &&
                 fgl_params_count(&ps, FGL_G_HEAD | FGL_G_BNSTAT) == 7 && fgl_params_count(&ps, FGL_G_ALL) == 18 &&
                 fgl_params_count(&ps, FGL_G_USER) == 0,
             "count by group");
    /* clone: deep, gradients zero; self-clone is harmless */
    ps.grad[0] = 5;
    fgl_params_init(&q);
    FT_CHECK(fgl_params_clone(&q, &ps) == FGL_OK && fgl_params_same_layout(&q, &ps) && q.data != ps.data &&
                 memcmp(q.data, ps.data, sizeof(float) * ps.size) == 0 && q.grad[0] == 0,
             "clone");
    FT_CHECK(fgl_params_clone(&q, &q) == FGL_OK && q.size == ps.size && q.data[16] == 16, "self-clone");
    q.slices[1].groups = FGL_G_CONV;
    FT_CHECK(!fgl_params_same_layout(&q, &ps), "tags differ");
    q.slices[1].groups = FGL_G_HEAD;
    strcpy(q.slices[1].name, "hea");
    FT_CHECK(!fgl_params_same_layout(&q, &ps), "names differ");
    fgl_params_free(&q);
    make_set(&q, 0);
    FT_CHECK(!fgl_params_same_layout(&q, &ps), "slice counts differ");
    fgl_params_free(&q);
    fgl_params_free(&ps);
    FT_CHECK(ps.data == NULL && ps.n == 0, "free");
}

/* Memory is grouped by tag whatever the order slices were added in: each
 * primary group is one range, selections are few ranges, and packing follows
 * memory order. Indices (and so initialisation order) stay the order of
 * addition. */
static void test_params_grouped_layout(void) {
    fgl_params ps;
    fgl_range r[8];
    float packed[64];
    size_t i;
    int k;
    fgl_params_init(&ps);
    FT_CHECK(fgl_params_add(&ps, "in", 2, 2, FGL_G_FEATURE, 1) == 0, "add in");
    FT_CHECK(fgl_params_add(&ps, "c0", 2, 3, FGL_G_CONV, 1) == 1, "add c0");
    FT_CHECK(fgl_params_add(&ps, "c0.mask", 2, 3, FGL_G_MASK, 1) == 2, "add mask");
    FT_CHECK(fgl_params_add(&ps, "c0.bn", 1, 3, FGL_G_CONV | FGL_G_BNSTAT, 0) == 3, "add bn");
    FT_CHECK(fgl_params_add(&ps, "c1", 3, 1, FGL_G_CONV, 1) == 4, "add c1");
    FT_CHECK(fgl_params_add(&ps, "head", 1, 2, FGL_G_HEAD, 1) == 5, "add head");
    FT_CHECK(fgl_params_add(&ps, "s0", 1, 1, FGL_G_STRUCT, 1) == 6, "add s0");
    /* expected memory: in(4) c0(6) c1(3) c0.bn(3) s0(1) head(2) c0.mask(6) */
    FT_CHECK(ps.slices[0].offset == 0 && ps.slices[1].offset == 4 && ps.slices[4].offset == 10 &&
                 ps.slices[3].offset == 13 && ps.slices[6].offset == 16 && ps.slices[5].offset == 17 &&
                 ps.slices[2].offset == 19 && ps.size == 25,
             "grouped offsets: %zu %zu %zu %zu %zu %zu %zu", ps.slices[0].offset, ps.slices[1].offset,
             ps.slices[2].offset, ps.slices[3].offset, ps.slices[4].offset, ps.slices[5].offset, ps.slices[6].offset);
    k = fgl_params_ranges(&ps, FGL_G_CONV, 0, r, 8);
    FT_CHECK(k == 1 && r[0].offset == 4 && r[0].len == 12, "CONV is one range (%d)", k);
    k = fgl_params_ranges(&ps, FGL_G_CONV, 1, r, 8);
    FT_CHECK(k == 1 && r[0].offset == 4 && r[0].len == 9, "trainable CONV: one range of 9 (%d)", k);
    k = fgl_params_ranges(&ps, FGL_G_ALL & ~(unsigned)FGL_G_MASK, 0, r, 8);
    FT_CHECK(k == 1 && r[0].offset == 0 && r[0].len == 19, "all but masks: one range (%d)", k);
    k = fgl_params_ranges(&ps, FGL_G_ALL & ~(unsigned)FGL_G_HEAD, 0, r, 8);
    FT_CHECK(k == 2 && r[0].len == 17 && r[1].offset == 19 && r[1].len == 6, "all but head: two ranges (%d)", k);
    FT_CHECK(fgl_params_ranges(&ps, FGL_G_ALL & ~(unsigned)FGL_G_HEAD, 0, r, 1) == 2 && r[0].len == 17,
             "max bounds what is written, not the count");
    for (i = 0; i < ps.size; i++) ps.data[i] = (float)i;
    FT_CHECK(fgl_params_pack(&ps, FGL_G_ALL & ~(unsigned)FGL_G_HEAD, packed) == 23 && packed[16] == 16 &&
                 packed[17] == 19 && packed[22] == 24,
             "pack follows memory order, skipping the head");
    fgl_params_free(&ps);
}

static void test_params_group_arithmetic(void) {
    fgl_params a, b, c;
    float packed[32], back[32];
    size_t n, i;
    double dot = 0;
    int ok = 1;
    make_set(&a, 1);    /* values 1..17 */
    make_set(&b, 100);  /* values 100..116 */
    /* copy only CONV (conv and mask: offsets 0..9) */
    FT_CHECK(fgl_params_copy(&a, &b, FGL_G_CONV) == FGL_OK, "copy");
    for (i = 0; i < a.size; i++) {
        int conv = i < 10;
        ok &= a.data[i] == (conv ? 100.0f : 1.0f) + (float)i;
    }
    FT_CHECK(ok, "copy touches CONV slices only");
    /* axpy on HEAD: a.head += 0.5 b.head */
    FT_CHECK(fgl_params_axpy(&a, 0.5f, &b, FGL_G_HEAD) == FGL_OK, "axpy");
    for (ok = 1, i = 10; i < 14; i++) ok &= a.data[i] == 1.0f + (float)i + 0.5f * (100.0f + (float)i);
    FT_CHECK(ok && a.data[14] == 15.0f, "axpy on HEAD only");
    fgl_params_scale(&a, 2.0f, FGL_G_BNSTAT);
    FT_CHECK(a.data[14] == 30.0f && a.data[9] == 109.0f, "scale on BNSTAT only");
    for (i = 0; i < 10; i++) dot += (double)a.data[i] * b.data[i];
    FT_NEAR(fgl_params_dot(&a, &b, FGL_G_CONV), dot, 1e-6 * dot, "dot over CONV");
    FT_NEAR(fgl_params_norm(&b, FGL_G_HEAD),
            sqrt(110.0 * 110 + 111.0 * 111 + 112.0 * 112 + 113.0 * 113), 1e-9, "norm over HEAD");
    /* pack HEAD|BNSTAT: head then stat, in memory order (one run) */
    n = fgl_params_pack(&b, FGL_G_HEAD | FGL_G_BNSTAT, packed);
    FT_CHECK(n == 7 && packed[0] == 110 && packed[3] == 113 && packed[4] == 114 && packed[6] == 116, "pack");
    for (i = 0; i < n; i++) back[i] = -(float)i;
    FT_CHECK(fgl_params_unpack(&a, FGL_G_HEAD | FGL_G_BNSTAT, back) == 7 && a.data[10] == 0 && a.data[13] == -3 &&
                 a.data[14] == -4 && a.data[16] == -6 && a.data[9] == 109,
             "unpack");
    for (i = 0; i < b.size; i++) b.grad[i] = (float)i * 10;
    FT_CHECK(fgl_params_pack_grad(&b, FGL_G_MASK, packed) == 4 && packed[0] == 60 && packed[3] == 90, "pack_grad");
    fgl_params_zero(&a, FGL_G_MASK);
    FT_CHECK(a.data[6] == 0 && a.data[9] == 0 && a.data[0] == 100, "zero MASK");
    fgl_params_zero_grad(&b);
    FT_CHECK(fgl_dot(b.size, b.grad, b.grad) == 0, "zero_grad");
    /* a different layout is refused */
    fgl_params_init(&c);
    fgl_params_add(&c, "conv", 2, 3, FGL_G_CONV, 1);
    FT_CHECK(fgl_params_copy(&c, &a, FGL_G_ALL) == FGL_ERR_SHAPE, "copy across layouts");
    FT_CHECK(fgl_params_axpy(&c, 1.0f, &a, FGL_G_ALL) == FGL_ERR_SHAPE, "axpy across layouts");
    fgl_params_free(&a);
    fgl_params_free(&b);
    fgl_params_free(&c);
}

static void test_params_initialisers(void) {
    fgl_params ps;
    fgl_rng r;
    int w, s, i, ok = 1;
    float a = (float)sqrt(6.0 / (20 + 30)), f = (float)(1 / sqrt(16.0));
    double sum = 0;
    fgl_params_init(&ps);
    fgl_rng_init(&r, 41, 0);
    w = fgl_params_add(&ps, "w", 20, 30, FGL_G_CONV, 1);
    s = fgl_params_add(&ps, "s", 1, 600, FGL_G_HEAD, 1);
    fgl_params_glorot(&ps, w, &r);
    for (i = 0; i < 600; i++) {
        ok &= fabsf(ps.data[i]) <= a;
        sum += ps.data[i];
    }
    FT_CHECK(ok, "glorot range");
    /* mean of 600 U(-a, a): sd a / sqrt(3 * 600) */
    FT_NEAR(sum / 600, 0.0, 5 * a / sqrt(1800.0), "glorot centred");
    fgl_params_fan_in_uniform(&ps, s, 16, &r);
    for (ok = 1, i = 0; i < 600; i++) ok &= fabsf(fgl_params_data(&ps, s)[i]) <= f;
    FT_CHECK(ok, "fan-in range");
    fgl_params_fill(&ps, s, 0.25f);
    FT_CHECK(fgl_params_data(&ps, s)[599] == 0.25f && ps.data[599] != 0.25f, "fill one slice");
    fgl_params_free(&ps);
}

/* Layout and values of ps equal those of ref. */
static int same_set(const fgl_params *ps, const fgl_params *ref) {
    return fgl_params_same_layout(ps, ref) && memcmp(ps->data, ref->data, sizeof(float) * ref->size) == 0;
}

static void test_params_save_load(void) {
    fgl_params ps, back, other, snap;
    fgl_bytes b, extra;
    fgl_error err;
    size_t mark;
    const char *path = "build/test_fgl_core_params.bin";
    make_set(&ps, 0.5f);
    fgl_bytes_init(&b);
    FT_CHECK(fgl_params_save_mem(&ps, &b) == FGL_OK, "save_mem");
    /* into an empty set: creates the layout, including the frozen flag */
    fgl_params_init(&back);
    FT_CHECK(fgl_params_load_mem(&back, b.data, b.len, &err) == FGL_OK && same_set(&back, &ps), "load_mem");
    FT_CHECK(back.slices[3].trainable == 0 && back.slices[0].trainable == 1, "trainable flags");
    /* into a built set: values only */
    fgl_params_scale(&back, 0.0f, FGL_G_ALL);
    FT_CHECK(fgl_params_load_mem(&back, b.data, b.len, &err) == FGL_OK && same_set(&back, &ps), "reload");
    /* file round trip */
    FT_CHECK(fgl_params_save(&ps, path, &err) == FGL_OK, "save: %s", err.msg);
    fgl_params_free(&back);
    fgl_params_init(&back);
    FT_CHECK(fgl_params_load(&back, path, &err) == FGL_OK && same_set(&back, &ps), "load: %s", err.msg);
    remove(path);
    FT_CHECK(fgl_params_load(&back, path, &err) == FGL_ERR_IO && same_set(&back, &ps), "missing file");
    /* a different layout is refused with a clear message, target untouched */
    fgl_params_init(&other);
    fgl_params_add(&other, "conv", 3, 2, FGL_G_CONV, 1);
    fgl_params_fill(&other, 0, 7);
    fgl_params_init(&snap);
    fgl_params_clone(&snap, &other);
    FT_CHECK(fgl_params_load_mem(&other, b.data, b.len, &err) == FGL_ERR_SHAPE && strstr(err.msg, "layout") &&
                 same_set(&other, &snap),
             "mismatched layout: %s", err.msg);
    /* a valid frame whose payload has bytes after the values: refused, and
     * an empty target stays empty */
    fgl_bytes_init(&extra);
    fgl_frame_begin(&extra, "FGLP", 2, &mark);
    fgl_params_write(&ps, &extra);
    fgl_bytes_put_u32(&extra, 0xdeadbeef);
    fgl_frame_end(&extra, mark);
    fgl_params_free(&back);
    fgl_params_init(&back);
    FT_CHECK(fgl_params_load_mem(&back, extra.data, extra.len, &err) == FGL_ERR_FORMAT && strstr(err.msg, "unread"),
             "trailing payload: %s", err.msg);
    FT_CHECK(back.n == 0 && back.size == 0, "empty target left empty");
    FT_CHECK(fgl_params_load_mem(&other, extra.data, extra.len, &err) != FGL_OK && same_set(&other, &snap),
             "built target untouched");
    fgl_bytes_free(&extra);
    /* truncations and corruptions of a built target leave it untouched */
    {
        size_t i;
        int all_rejected = 1, untouched = 1;
        fgl_params_free(&back);
        make_set(&back, -3);
        fgl_params_free(&snap);
        fgl_params_clone(&snap, &back);
        for (i = 0; i < b.len; i++) {
            all_rejected &= fgl_params_load_mem(&back, b.data, i, &err) != FGL_OK;
            untouched &= same_set(&back, &snap);
        }
        for (i = 0; i < b.len; i += 3) {
            b.data[i] ^= 0x20;
            all_rejected &= fgl_params_load_mem(&back, b.data, b.len, &err) != FGL_OK;
            untouched &= same_set(&back, &snap);
            b.data[i] ^= 0x20;
        }
        FT_CHECK(all_rejected && untouched, "bad buffers rejected (%d), target untouched (%d)", all_rejected, untouched);
    }
    fgl_bytes_free(&b);
    fgl_params_free(&ps);
    fgl_params_free(&back);
    fgl_params_free(&other);
    fgl_params_free(&snap);
}

/* ---- optimizers ---------------------------------------------------------------- */

/* The gradient used at step s for element i (any fixed numbers will do). */
static float grad_at(int s, size_t i) { return (float)(0.3 * sin(1.0 + 0.7 * (double)i + 1.3 * s)) + (i == 2 ? 2.0f : 0.0f); }

/* Runs 4 steps of cfg on a 2-slice set (second slice frozen) and compares
 * with reference updates in double computed from PyTorch's formulas. */
static void check_optimizer(const char *what, fgl_optim_config cfg) {
    fgl_params ps;
    fgl_optim o;
    double w[6], m[6], v[6], worst = 0;
    size_t i;
    int s, frozen_ok = 1;
    fgl_params_init(&ps);
    fgl_params_add(&ps, "w", 2, 2, FGL_G_CONV, 1);
    fgl_params_add(&ps, "frozen", 1, 2, FGL_G_BNSTAT, 0);
    for (i = 0; i < 6; i++) w[i] = ps.data[i] = 0.5f - 0.25f * (float)i, m[i] = v[i] = 0;
    FT_CHECK(fgl_optim_init(&o, cfg, &ps) == FGL_OK, "init");
    for (s = 1; s <= 4; s++) {
        for (i = 0; i < 6; i++) ps.grad[i] = grad_at(s, i);
        fgl_optim_step(&o, &ps);
        for (i = 0; i < 4; i++) {
            double g = grad_at(s, i), lr = cfg.lr, wd = cfg.weight_decay;
            if (cfg.kind == FGL_SGD) {
                /* torch.optim.SGD, dampening 0:
                 *   g += wd w; b = g (first step) or mu b + g;
                 *   g = nesterov ? g + mu b : b;  w -= lr g */
                g += wd * w[i];
                if (cfg.momentum != 0) {
                    m[i] = s == 1 ? g : cfg.momentum * m[i] + g;
                    g = cfg.nesterov ? g + cfg.momentum * m[i] : m[i];
                }
                w[i] -= lr * g;
            } else {
                /* torch.optim.Adam (wd added to g) / AdamW (w *= 1 - lr wd):
                 *   m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
                 *   w -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps) */
                double b1 = cfg.beta1, b2 = cfg.beta2;
                if (cfg.kind == FGL_ADAM) g += wd * w[i];
                else w[i] *= 1 - lr * wd;
                m[i] = b1 * m[i] + (1 - b1) * g;
                v[i] = b2 * v[i] + (1 - b2) * g * g;
                w[i] -= lr / (1 - pow(b1, s)) * m[i] / (sqrt(v[i]) / sqrt(1 - pow(b2, s)) + cfg.eps);
            }
            worst = fmax(worst, fabs(w[i] - ps.data[i]));
        }
        for (i = 4; i < 6; i++) frozen_ok &= ps.data[i] == (float)w[i];
    }
    /* float state vs double reference: a few float round-offs of O(1) values */
    FT_CHECK(worst < 2e-6, "%s: max |w - reference| %.3g", what, worst);
    FT_CHECK(frozen_ok, "%s: frozen slice moved", what);
    FT_CHECK(o.t == 4, "%s: t = %lld", what, (long long)o.t);
    fgl_optim_free(&o);
    fgl_params_free(&ps);
}

static void test_optimizers_match_reference(void) {
    fgl_optim_config c;
    c = fgl_optim_default(FGL_SGD);
    c.lr = 0.1f;
    check_optimizer("sgd", c);
    c.momentum = 0.9f;
    check_optimizer("sgd momentum", c);
    c.nesterov = 1;
    check_optimizer("sgd nesterov", c);
    c.weight_decay = 0.05f;
    check_optimizer("sgd nesterov + weight decay", c);
    c.nesterov = 0;
    c.momentum = 0;
    check_optimizer("sgd weight decay", c);
    c = fgl_optim_default(FGL_ADAM);
    c.lr = 0.05f;
    check_optimizer("adam", c);
    c.weight_decay = 0.1f;
    check_optimizer("adam + L2", c);
    c = fgl_optim_default(FGL_ADAMW);
    c.lr = 0.05f;
    c.weight_decay = 0.1f;
    check_optimizer("adamw", c);
    c.beta1 = 0.5f;
    c.beta2 = 0.9f;
    c.eps = 1e-3f;
    check_optimizer("adamw other betas", c);
    c = fgl_optim_default(FGL_ADAMW);
    FT_CHECK(c.lr == 1e-3f && c.beta1 == 0.9f && c.beta2 == 0.999f && c.eps == 1e-8f && c.weight_decay == 0.01f,
             "AdamW defaults");
    c = fgl_optim_default(FGL_SGD);
    FT_CHECK(c.lr == 0.01f && c.momentum == 0 && c.weight_decay == 0, "SGD defaults");
}

static void test_optimizer_groups_and_clipping(void) {
    fgl_params ps;
    fgl_optim o;
    fgl_optim_config c = fgl_optim_default(FGL_SGD);
    double n;
    size_t i;
    make_set(&ps, 1); /* conv, head, mask (CONV|MASK), stat (frozen) */
    c.lr = 1.0f;
    fgl_optim_init(&o, c, &ps);
    for (i = 0; i < ps.size; i++) ps.grad[i] = 1.0f;
    fgl_optim_step_groups(&o, &ps, FGL_G_HEAD);
    FT_CHECK(ps.data[10] == 10.0f && ps.data[0] == 1.0f && ps.data[6] == 7.0f && ps.data[14] == 15.0f,
             "only HEAD stepped");
    fgl_optim_free(&o);
    /* clipping: norm of trainable gradients only (14 ones, plus a frozen 100) */
    for (i = 0; i < ps.size; i++) ps.grad[i] = i >= 14 ? 100.0f : 1.0f;
    n = fgl_params_clip_grad(&ps, 1.0);
    FT_NEAR(n, sqrt(14.0), 1e-9, "norm before clipping");
    FT_NEAR(sqrt(fgl_dot(14, ps.grad, ps.grad)), 1.0, 1e-5, "clipped to max_norm");
    FT_CHECK(ps.grad[15] == 100.0f, "frozen gradient left alone");
    n = fgl_params_clip_grad(&ps, 10.0);
    FT_NEAR(sqrt(fgl_dot(14, ps.grad, ps.grad)), 1.0, 1e-5, "below max_norm: unchanged");
    /* clip_norm in the config is applied before the step */
    c.clip_norm = 0.5f;
    c.lr = 1.0f;
    fgl_optim_init(&o, c, &ps);
    for (i = 0; i < ps.size; i++) ps.grad[i] = 3.0f, ps.data[i] = 0;
    fgl_optim_step(&o, &ps);
    FT_NEAR(fgl_params_norm(&ps, FGL_G_CONV | FGL_G_HEAD), 0.5, 1e-5, "step moved by the clipped gradient");
    fgl_optim_free(&o);
    fgl_params_free(&ps);
}

static void test_optimizer_state(void) {
    fgl_params ps, ps2;
    fgl_optim a, b, c;
    fgl_optim_config cfg = fgl_optim_default(FGL_ADAM);
    fgl_bytes bytes;
    fgl_reader r;
    fgl_error err;
    size_t i;
    int s;
    make_set(&ps, 0);
    fgl_optim_init(&a, cfg, &ps);
    for (s = 0; s < 3; s++) {
        for (i = 0; i < ps.size; i++) ps.grad[i] = grad_at(s, i);
        fgl_optim_step(&a, &ps);
    }
    /* write / read round trip */
    fgl_bytes_init(&bytes);
    fgl_optim_write(&a, &bytes);
    fgl_optim_init(&b, cfg, &ps);
    r = fgl_reader_make(bytes.data, bytes.len);
    FT_CHECK(fgl_optim_read(&b, &r, &err) == FGL_OK && r.pos == r.len, "read: %s", err.msg);
    FT_CHECK(b.t == 3 && memcmp(a.m, b.m, sizeof(float) * ps.size) == 0 && memcmp(a.v, b.v, sizeof(float) * ps.size) == 0,
             "state restored");
    /* both continue identically */
    fgl_params_init(&ps2);
    fgl_params_clone(&ps2, &ps);
    for (i = 0; i < ps.size; i++) ps.grad[i] = ps2.grad[i] = grad_at(7, i);
    fgl_optim_step(&a, &ps);
    fgl_optim_step(&b, &ps2);
    FT_CHECK(memcmp(ps.data, ps2.data, sizeof(float) * ps.size) == 0, "same next step");
    /* truncated state: error, b untouched */
    fgl_optim_reset(&b);
    r = fgl_reader_make(bytes.data, bytes.len - 4);
    FT_CHECK(fgl_optim_read(&b, &r, &err) == FGL_ERR_FORMAT && b.t == 0 && b.m[0] == 0 && b.v[0] == 0,
             "truncated: %s", err.msg);
    /* another kind: refused */
    fgl_optim_init(&c, fgl_optim_default(FGL_SGD), &ps);
    r = fgl_reader_make(bytes.data, bytes.len);
    FT_CHECK(fgl_optim_read(&c, &r, &err) == FGL_ERR_SHAPE, "kind mismatch");
    /* copy and reset */
    FT_CHECK(fgl_optim_copy(&c, &a) == FGL_OK && c.cfg.kind == FGL_ADAM && c.t == a.t &&
                 memcmp(c.m, a.m, sizeof(float) * ps.size) == 0 && memcmp(c.v, a.v, sizeof(float) * ps.size) == 0,
             "copy");
    fgl_optim_reset(&c);
    FT_CHECK(c.t == 0 && fgl_dot(ps.size, c.m, c.m) == 0 && fgl_dot(ps.size, c.v, c.v) == 0, "reset");
    fgl_optim_free(&c);
    fgl_params_add(&ps2, "extra", 1, 1, 0, 1);
    fgl_optim_init(&c, cfg, &ps2);
    FT_CHECK(fgl_optim_copy(&c, &a) == FGL_ERR_SHAPE, "copy across sizes");
    FT_CHECK(fgl_optim_step(&a, &ps2) == FGL_ERR_SHAPE, "step with another set");
    fgl_optim_free(&c);
    cfg.kind = 7;
    FT_CHECK(fgl_optim_init(&c, cfg, &ps) == FGL_ERR_ARG, "unknown kind");
    fgl_optim_free(&a);
    fgl_optim_free(&b);
    fgl_optim_free(&c);
    fgl_bytes_free(&bytes);
    fgl_params_free(&ps);
    fgl_params_free(&ps2);
}

int main(void) {
    FT_RUN(test_error_helpers);
    FT_RUN(test_rng_streams_reproducible);
    FT_RUN(test_rng_uniform_normal);
    FT_RUN(test_rng_gamma);
    FT_RUN(test_rng_dirichlet);
    FT_RUN(test_rng_bernoulli_shuffle_sample);
    FT_RUN(test_rng_below_unbiased);
    FT_RUN(test_tensors);
    FT_RUN(test_matmul_tensor_form);
    FT_RUN(test_gemm_matches_naive);
    FT_RUN(test_gemm_edge_cases);
    FT_RUN(test_gemm_thread_independent);
    FT_RUN(test_column_sums_thread_independent);
    FT_RUN(test_spmm_thread_independent);
    FT_RUN(test_row_ops_thread_independent);
    FT_RUN(test_rng_skip_block);
    FT_RUN(test_vector_kernels);
    FT_RUN(test_csr_from_coo);
    FT_RUN(test_csr_hub_row_is_fast);
    FT_RUN(test_csr_validate);
    FT_RUN(test_csr_transpose_and_products);
    FT_RUN(test_csr_spmm_parallel_matches_serial);
    FT_RUN(test_bytes_reader);
    FT_RUN(test_frames_and_files);
    FT_RUN(test_params_basics);
    FT_RUN(test_params_grouped_layout);
    FT_RUN(test_params_group_arithmetic);
    FT_RUN(test_params_initialisers);
    FT_RUN(test_params_save_load);
    FT_RUN(test_params_roundtrip_and_corruption);
    FT_RUN(test_optimizers_match_reference);
    FT_RUN(test_optimizer_groups_and_clipping);
    FT_RUN(test_optimizer_state);
    return ft_finish();
}
