/* Core tests of fgl.h: errors, RNG, tensors and GEMM, CSR, serialisation,
 * parameter sets and optimizers. */
#define FGL_IMPLEMENTATION
#include "../fgl.h"
#include "ft.h"

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
    int dims[][3] = {{1, 1, 1}, {7, 5, 3}, {37, 19, 53}, {100, 300, 70}, {6, 32, 256}, {97, 1025, 33}};
    fgl_rng_init(&r, 7, 0);
    for (s = 0; s < 6; s++)
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
                        double sum = 0;
                        for (p = 0; p < K; p++)
                            sum += (double)(ta ? A[p * M + i] : A[i * K + p]) * (tb ? B[j * K + p] : B[p * N + j]);
                        worst = fmax(worst, fabs(0.5 * sum + 2.0 - C[i * N + j]));
                    }
                FT_CHECK(worst < 1e-3, "%dx%dx%d ta=%d tb=%d: max error %g", M, K, N, ta, tb, worst);
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

int main(void) {
    FT_RUN(test_rng_streams_reproducible);
    FT_RUN(test_gemm_matches_naive);
    FT_RUN(test_params_roundtrip_and_corruption);
    return ft_finish();
}
