#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Dense tensors and kernels                                                */
/* ------------------------------------------------------------------------ */

/* A rows x cols row-major float matrix. A vector is 1 x n. owns says whether
 * fgl_tensor_free releases data (views point into someone else's memory). */
typedef struct fgl_tensor {
    int rows, cols;
    float *data;
    int owns;
} fgl_tensor;

#define FGL_AT(t, i, j) ((t)->data[(size_t)(i) * (size_t)(t)->cols + (size_t)(j)])

FGLDEF int fgl_tensor_init(fgl_tensor *t, int rows, int cols);   /* zero-filled */
FGLDEF void fgl_tensor_free(fgl_tensor *t);
FGLDEF fgl_tensor fgl_tensor_view(float *data, int rows, int cols);
FGLDEF fgl_tensor fgl_tensor_rows(const fgl_tensor *t, int row0, int nrows);
FGLDEF int fgl_tensor_clone(fgl_tensor *dst, const fgl_tensor *src);
FGLDEF size_t fgl_tensor_size(const fgl_tensor *t);

/* C = alpha * op(A) * op(B) + beta * C, op(X) = X or X^T (trans_x != 0).
 * op(A) is m x k, op(B) is k x n, C is m x n; lda/ldb/ldc are row strides.
 * beta == 0 overwrites C (NaNs in C are not propagated). Parallel over blocks
 * of C when large; each element is always summed in the same order, so the
 * result does not depend on the number of threads. */
FGLDEF void fgl_gemm(int trans_a, int trans_b, int m, int n, int k, float alpha,
                     const float *A, int lda, const float *B, int ldb, float beta,
                     float *C, int ldc);
/* Tensor form: C = op(A) op(B) (+ C if accumulate). Checks shapes. */
FGLDEF int fgl_matmul(const fgl_tensor *A, int trans_a, const fgl_tensor *B, int trans_b,
                      fgl_tensor *C, int accumulate);

FGLDEF void fgl_axpy(size_t n, float a, const float *x, float *y);   /* y += a x */
FGLDEF void fgl_scale(size_t n, float a, float *x);                  /* x *= a */
FGLDEF double fgl_dot(size_t n, const float *x, const float *y);     /* double sum */
FGLDEF double fgl_norm2(size_t n, const float *x);                   /* Euclidean */
FGLDEF double fgl_norm1(size_t n, const float *x);
FGLDEF double fgl_cosine(size_t n, const float *x, const float *y);  /* 0 if a norm is 0 */
/* out[i] = cos(A row i, B row i); A and B have the same shape. */
FGLDEF int fgl_cosine_rows(const fgl_tensor *A, const fgl_tensor *B, float *out);
/* 1 if every value is finite (no NaN, no Inf). */
FGLDEF int fgl_all_finite(size_t n, const float *x);
/* Wall-clock seconds from an arbitrary origin (for timing phases). */
FGLDEF double fgl_now(void);

/* fgl:private */
#include "../alone.h"
typedef void (*fgl__chain_add_fn)(void *ctx, int r0, int r1);
FGL__PRIVATE void fgl__col_chain(int R, int C, fgl__chain_add_fn add, void *ctx, const float *warm);
FGL__PRIVATE int fgl__budget(void);
FGL__PRIVATE int fgl__threads(double w, double per_thread);
/* fgl:implementation */
#include "../alone.h"
/* --- tensors -------------------------------------------------------------- */

FGLDEF int fgl_tensor_init(fgl_tensor *t, int rows, int cols) {
    size_t n;
    t->rows = t->cols = 0;
    t->data = NULL;
    t->owns = 0;
    if (rows < 0 || cols < 0) return FGL_ERR_ARG;
    n = (size_t)rows * (size_t)cols;
    t->data = (float *)FGL_MALLOC(sizeof(float) * (n ? n : 1));
    if (!t->data) return FGL_ERR_NOMEM;
    memset(t->data, 0, sizeof(float) * n);
    t->rows = rows;
    t->cols = cols;
    t->owns = 1;
    return FGL_OK;
}

FGLDEF void fgl_tensor_free(fgl_tensor *t) {
    if (t->owns) FGL_FREE(t->data);
    t->data = NULL;
    t->rows = t->cols = 0;
    t->owns = 0;
}

FGLDEF fgl_tensor fgl_tensor_view(float *data, int rows, int cols) {
    fgl_tensor t;
    t.rows = rows;
    t.cols = cols;
    t.data = data;
    t.owns = 0;
    return t;
}

FGLDEF fgl_tensor fgl_tensor_rows(const fgl_tensor *t, int row0, int nrows) {
    FGL_ASSERT(row0 >= 0 && nrows >= 0 && row0 + nrows <= t->rows);
    return fgl_tensor_view(t->data + (size_t)row0 * (size_t)t->cols, nrows, t->cols);
}

FGLDEF size_t fgl_tensor_size(const fgl_tensor *t) { return (size_t)t->rows * (size_t)t->cols; }

FGLDEF int fgl_tensor_clone(fgl_tensor *dst, const fgl_tensor *src) {
    int rc = fgl_tensor_init(dst, src->rows, src->cols);
    if (rc == FGL_OK && fgl_tensor_size(src)) memcpy(dst->data, src->data, sizeof(float) * fgl_tensor_size(src));
    return rc;
}

/* Memory-bound loops (elementwise ops, batch norm, sparse products) run in
 * parallel from this many floats on: below it a parallel region's start
 * costs more than it saves. Each output element is still computed in one
 * fixed order (by one thread; for a bias gradient by the threads in turn,
 * fgl__col_chain; for batch norm's statistics over fixed pieces of rows
 * merged in order), so results do not depend on the thread count. */
#ifndef FGL_PAR_MIN
#define FGL_PAR_MIN 65536
#endif

/* Threads per parallel region: as many as its work pays for. This is the
 * one table of how much work a thread must get before another thread is
 * worth its start and its share of the join (a parallel region's fork and
 * join cost several microseconds per thread, more with passive waiting and
 * on a loaded machine; a 16-core run of FedAvg Cora with every region on
 * 16 threads was 5.8x slower than on 8: issue 38). A region of work w of
 * some kind runs on min(budget, floor(w / per thread)) threads, at least 1,
 * where the budget is omp_get_max_threads() outside a parallel region and
 * what fgl__run_clients grants a client's thread inside one (1 unless it
 * was granted more: fgl__grant). Every kernel gives the same bits at any
 * thread count, so these thresholds move only time. They are the 2-core
 * thresholds fgl had (measured in earlier sessions on a 2-core AMD EPYC VM:
 * BENCHMARKS.md "Kernels"), each the work at which two threads first beat
 * one, halved into the work one thread must have, so that a 2-core run
 * splits every region as before. How they scale to 16 cores is a first
 * guess, to be checked with bench/cores.sh (issue 38):
 *   ELEM  floats an elementwise or row-copy loop reads or writes: 2 threads
 *         from FGL_PAR_MIN = 65536 floats;
 *   SPMM  nnz x columns + rows x columns of a sparse product: as ELEM (a
 *         sparse row's sum is memory-bound like an elementwise loop);
 *   GEMM  multiply-adds m x n x k of a dense product: 2 threads from 2e6
 *         (fgl__gemm's threshold before); a product with few FLOPs but much
 *         memory (a GIN's first layer, k = 3) counts its m x n + m x k +
 *         k x n floats at 2 x ELEM per thread (2 threads from 131072, as
 *         before);
 *   ENTRIES nodes + edges of a graph batch (or its A + I) that fgl_graph.h
 *         builds: 2 threads from 16384 (its threshold before);
 *   POINT  pFedGNN's anchor points in one stress step: 2 threads from 256
 *         (its threshold before);
 *   CLIENT clients per thread of the clients' loop: 1 (a client's round is
 *         milliseconds, far above a region's cost). */
#ifndef FGL_PER_THREAD_ELEM
#define FGL_PER_THREAD_ELEM (FGL_PAR_MIN / 2)
#endif
#ifndef FGL_PER_THREAD_SPMM
#define FGL_PER_THREAD_SPMM (FGL_PAR_MIN / 2)
#endif
#ifndef FGL_PER_THREAD_GEMM
#define FGL_PER_THREAD_GEMM 1e6
#endif
#ifndef FGL_PER_THREAD_ENTRIES
#define FGL_PER_THREAD_ENTRIES 8192
#endif
#ifndef FGL_PER_THREAD_POINT
#define FGL_PER_THREAD_POINT 128
#endif
#ifndef FGL_PER_THREAD_CLIENT
#define FGL_PER_THREAD_CLIENT 1
#endif
#define FGL__CHUNK 16384 /* floats per piece of a parallel elementwise loop, at most */
#define FGL__ROWS 256    /* rows per piece of a parallel row loop */

/* The threads a region in this thread may use: omp_get_max_threads()
 * outside a parallel region; inside one (a client's thread), 1, or what
 * fgl__run_clients granted it (fgl__grant) where nesting is allowed. */
#ifdef _OPENMP
static int fgl__granted = 0;
#pragma omp threadprivate(fgl__granted)
#define fgl__grant(n) (fgl__granted = (n))
#else
#define fgl__grant(n) ((void)(n))
#endif

FGL__PRIVATE int fgl__budget(void) {
#ifdef _OPENMP
    if (!omp_in_parallel()) return omp_get_max_threads();
    if (fgl__granted > 1 && omp_get_active_level() < omp_get_max_active_levels()) return fgl__granted;
#endif
    return 1;
}

/* The threads for a region of work w, per_thread (an FGL_PER_THREAD_*
 * above) the least work a thread must get: 1 .. fgl__budget(). */
FGL__PRIVATE int fgl__threads(double w, double per_thread) {
    int b = fgl__budget();
    double t = w / per_thread;
    if (b <= 1 || !(t >= 2)) return 1;
    return t >= b ? b : (int)t;
}
#define fgl__threads_elem(n) fgl__threads((double)(n), (double)FGL_PER_THREAD_ELEM)

/* The length of the pieces an elementwise loop over n floats is cut into:
 * at most FGL__CHUNK, a multiple of 16 (a cache line), and when the loop
 * runs in parallel as many pieces as threads or a multiple, so that
 * schedule(static) gives every thread the same share (fifteen pieces of
 * FGL__CHUNK gave one thread of two 8/7 of the other's work). */
static size_t fgl__piece_len(size_t n) {
    size_t n_pc = (n + FGL__CHUNK - 1) / FGL__CHUNK, len;
#ifdef _OPENMP
    size_t T = (size_t)fgl__threads_elem(n); /* the threads of the loop over the pieces */
    if (T > 1 && n_pc % T) n_pc += T - n_pc % T;
#endif
    if (n_pc == 0) return FGL__CHUNK;
    len = (n + n_pc - 1) / n_pc;
    return (len + 15) / 16 * 16;
}

/* Column sums (a bias gradient) with each column's rows added in
 * increasing order, the bits of a one-thread loop, on every thread. Giving
 * each thread a block of columns would make it read every row, half of
 * them from the other core's cache (the row-parallel op before left them
 * there): on two cores that ran slower than one thread. Here each thread
 * reads only its own range of rows, the range the row loops give it
 * (pieces of FGL__ROWS, shared out as schedule(static) does), and the
 * running sums travel from thread to thread instead, a relay: thread t
 * adds its rows once thread t-1 has added its own. The sums are bound by
 * the chain of additions, each thread's on data in its own cache; and a
 * thread waiting for its turn reads its rows of warm (the R x C row-major
 * matrix the adds read, or NULL) meanwhile, so that its turn finds them in
 * its cache, not in memory (the op before may have left them there, or
 * not: a batch's tape is larger than the cache). add(ctx, r0, r1) adds
 * rows r0 .. r1-1 to the sums, rows in increasing order; on one thread,
 * add(ctx, 0, R). */
FGL__PRIVATE void fgl__col_chain(int R, int C, fgl__chain_add_fn add, void *ctx, const float *warm) {
#ifdef _OPENMP
    int nthreads = 1, n_pc = (R + FGL__ROWS - 1) / FGL__ROWS;
    nthreads = FGL__MIN(fgl__threads_elem((size_t)R * (size_t)C), n_pc);
    if (nthreads > omp_get_num_procs()) nthreads = 1; /* a barrier per turn: with more threads than processors each
                                                        * may wait for a time slice */
    if (nthreads > 1) {
        /* Thread t takes its turn in phase t, a barrier between phases: the
         * runtime's barrier, not a spin of our own, so a machine with fewer
         * cores than threads still moves on. */
#pragma omp parallel num_threads(nthreads)
        {
            int T = omp_get_num_threads(), t = omp_get_thread_num(), ph;
            /* pieces as schedule(static) shares them: the first n_pc % T threads one more */
            int q = n_pc / T, extra = n_pc % T, p0 = t * q + FGL__MIN(t, extra), p1 = p0 + q + (t < extra);
            int r0 = FGL__MIN(R, p0 * FGL__ROWS), r1 = FGL__MIN(R, p1 * FGL__ROWS);
            if (warm && t > 0) {
                /* during phase 0, while thread 0 adds, a byte loaded per cache
                 * line (integer sums: no floating-point exception on whatever
                 * values lie there) */
                const unsigned char *w = (const unsigned char *)(warm + (size_t)r0 * (size_t)C);
                size_t i, n = sizeof(float) * (size_t)(r1 - r0) * (size_t)C;
                unsigned s = 0;
                volatile unsigned sink;
                for (i = 0; i < n; i += 64) s += w[i];
                sink = s;
                (void)sink;
            }
            for (ph = 0; ph < T; ph++) {
                if (ph == t) add(ctx, r0, r1);
#pragma omp barrier
            }
        }
        return;
    }
#endif
    (void)C;
    (void)warm;
    add(ctx, 0, R);
}

#include "../alone.h"
