/* bench_kernels.c - throughput of fgl.h's dense and sparse kernels.
 *
 *   make bench && ./build/bench/bench_kernels [--quick]
 *
 * GEMM in GFLOP/s (2 M K N flops) for the shapes of a GCN layer on Cora
 * (2708 nodes, 1433 features, 64 hidden) and a square 512^3: the forward
 * product C = A B (NN) and the two products of its backward pass,
 * dA = dC B^T (NT) and dB = A^T dC (TN). Sparse x dense (fgl_csr_spmm) on a
 * random 100k x 100k matrix with 1M nonzeros times a 100k x 64 matrix, in
 * GFLOP/s (2 nnz N) and GB/s (the bytes the kernel must move at least: values,
 * indices, row pointers, one read of a row of X per nonzero and one write of
 * Y). Each figure is the median of several timed runs after a warm-up, at 1
 * and 2 OpenMP threads, followed by the best run in parentheses: on a
 * machine shared with other jobs the median shows what one gets, the best
 * what the code does when it has the cores. A plain i-k-j loop is timed for
 * reference.
 */
#define FGL_IMPLEMENTATION
#include "fgl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static void set_threads(int n) {
#ifdef _OPENMP
    omp_set_num_threads(n);
#else
    (void)n;
#endif
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median and best seconds of `runs` timed calls of fn, after warming up for
 * at least 50 ms (caches, and an OpenMP team that may have slept through a
 * long serial stretch). */
typedef struct timing {
    double median, best;
} timing;

static timing time_runs(void (*fn)(void *), void *arg, int runs) {
    double t[64];
    timing r;
    int i;
    double w0 = fgl_now();
    do fn(arg);
    while (fgl_now() - w0 < 0.05);
    for (i = 0; i < runs; i++) {
        double t0 = fgl_now();
        fn(arg);
        t[i] = fgl_now() - t0;
    }
    qsort(t, (size_t)runs, sizeof(double), cmp_double);
    r.median = t[runs / 2];
    r.best = t[0];
    return r;
}

/* "median (best)" of a rate of `work` units per second into buf. */
static const char *rate(char *buf, size_t cap, double work, timing t) {
    snprintf(buf, cap, "%.1f (%.1f)", work / t.median, work / t.best);
    return buf;
}

typedef struct gemm_case {
    int ta, tb, m, n, k;
    const float *A, *B;
    float *C;
} gemm_case;

static void run_gemm(void *p) {
    gemm_case *g = (gemm_case *)p;
    fgl_gemm(g->ta, g->tb, g->m, g->n, g->k, 1.0f, g->A, g->ta ? g->m : g->k, g->B, g->tb ? g->k : g->n, 0.0f, g->C,
             g->n);
}

static void run_naive(void *p) { /* C = A B, row-major, i-k-j order */
    gemm_case *g = (gemm_case *)p;
    int i, j, q;
    memset(g->C, 0, sizeof(float) * (size_t)g->m * g->n);
    for (i = 0; i < g->m; i++)
        for (q = 0; q < g->k; q++) {
            float a = g->A[(size_t)i * g->k + q];
            const float *b = g->B + (size_t)q * g->n;
            float *c = g->C + (size_t)i * g->n;
            for (j = 0; j < g->n; j++) c[j] += a * b[j];
        }
}

typedef struct spmm_case {
    const fgl_csr *a;
    const float *X;
    float *Y;
    int n;
} spmm_case;

static void run_spmm(void *p) {
    spmm_case *s = (spmm_case *)p;
    fgl_csr_spmm(s->a, s->X, s->n, 0.0f, s->Y);
}

static float *random_floats(fgl_rng *r, size_t n) {
    float *x = (float *)malloc(sizeof(float) * n);
    size_t i;
    for (i = 0; i < n; i++) x[i] = fgl_rng_uniformf(r, -1, 1);
    return x;
}

/* Runs of each timing: enough that the median is stable, with the whole
 * bench in about a minute. */
static int runs_for(double flops, int quick) {
    int r = (int)(2e10 / flops);
    r = r < 5 ? 5 : r > 41 ? 41 : r;
    return quick ? 3 : r | 1;
}

int main(int argc, char **argv) {
    static const int shapes[3][3] = {{2708, 1433, 64}, {2708, 64, 64}, {512, 512, 512}}; /* M, K, N */
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0, s, th, v;
    fgl_rng r;
    fgl_rng_init(&r, 1, 0);
    printf("GEMM, GFLOP/s: median (best) of timed runs; M x K x N of the forward product\n");
    printf("%-14s %-20s %15s %15s\n", "shape", "variant", "1 thread", "2 threads");
    for (s = 0; s < 3; s++) {
        int M = shapes[s][0], K = shapes[s][1], N = shapes[s][2];
        float *A = random_floats(&r, (size_t)M * K), *B = random_floats(&r, (size_t)K * N);
        float *dC = random_floats(&r, (size_t)M * N), *C = (float *)malloc(sizeof(float) * (size_t)M * N);
        float *dA = (float *)malloc(sizeof(float) * (size_t)M * K), *dB = (float *)malloc(sizeof(float) * (size_t)K * N);
        double flops = 2.0 * M * K * N;
        char shape[32];
        snprintf(shape, sizeof shape, "%dx%dx%d", M, K, N);
        for (v = 0; v < 4; v++) {
            static const char *names[4] = {"C = A B        (NN)", "dA = dC B^T    (NT)", "dB = A^T dC    (TN)",
                                           "naive i-k-j    (NN)"};
            gemm_case g;
            char b1[32], b2[32];
            /* m, n, k of each product */
            if (v == 0 || v == 3) g.ta = 0, g.tb = 0, g.m = M, g.n = N, g.k = K, g.A = A, g.B = B, g.C = C;
            else if (v == 1) g.ta = 0, g.tb = 1, g.m = M, g.n = K, g.k = N, g.A = dC, g.B = B, g.C = dA;
            else g.ta = 1, g.tb = 0, g.m = K, g.n = N, g.k = M, g.A = A, g.B = dC, g.C = dB;
            set_threads(1);
            rate(b1, sizeof b1, flops / 1e9, time_runs(v == 3 ? run_naive : run_gemm, &g, v == 3 ? 3 : runs_for(flops, quick)));
            if (v == 3) { /* the naive loop is serial */
                snprintf(b2, sizeof b2, "-");
            } else {
                set_threads(2);
                rate(b2, sizeof b2, flops / 1e9, time_runs(run_gemm, &g, runs_for(flops, quick)));
            }
            printf("%-14s %-20s %15s %15s\n", shape, names[v], b1, b2);
        }
        free(A);
        free(B);
        free(dC);
        free(C);
        free(dA);
        free(dB);
    }
    {
        const int n = 100000, nnz = 1000000, f = 64;
        int *ri = (int *)malloc(sizeof(int) * nnz), *ci = (int *)malloc(sizeof(int) * nnz), i;
        float *vals = random_floats(&r, (size_t)nnz), *X = random_floats(&r, (size_t)n * f);
        float *Y = (float *)malloc(sizeof(float) * (size_t)n * f);
        fgl_csr a;
        spmm_case sc;
        double bytes, flops;
        timing t[2];
        char b1[32], b2[32];
        for (i = 0; i < nnz; i++) {
            ri[i] = (int)fgl_rng_below(&r, (uint64_t)n);
            ci[i] = (int)fgl_rng_below(&r, (uint64_t)n);
        }
        if (fgl_csr_from_coo(n, n, nnz, ri, ci, vals, 1, &a, NULL) != FGL_OK) return 1;
        sc.a = &a;
        sc.X = X;
        sc.Y = Y;
        sc.n = f;
        flops = 2.0 * a.nnz * f;
        bytes = (double)a.nnz * (4 + 4 + 4.0 * f) + 4.0 * (n + 1) + 4.0 * n * f;
        for (th = 1; th <= 2; th++) {
            set_threads(th);
            t[th - 1] = time_runs(run_spmm, &sc, quick ? 3 : 11);
        }
        printf("\nSparse x dense (fgl_csr_spmm): %d x %d, %d nonzeros, times %d x %d: median (best)\n", n, n, a.nnz,
               n, f);
        printf("%-14s %15s %15s\n", "", "1 thread", "2 threads");
        printf("%-14s %15s %15s\n", "GFLOP/s", rate(b1, sizeof b1, flops / 1e9, t[0]), rate(b2, sizeof b2, flops / 1e9, t[1]));
        printf("%-14s %15s %15s\n", "GB/s", rate(b1, sizeof b1, bytes / 1e9, t[0]), rate(b2, sizeof b2, bytes / 1e9, t[1]));
        printf("%-14s %15s %15s\n", "products/s", rate(b1, sizeof b1, 1, t[0]), rate(b2, sizeof b2, 1, t[1]));
        fgl_csr_free(&a);
        free(ri);
        free(ci);
        free(vals);
        free(X);
        free(Y);
    }
    return 0;
}
