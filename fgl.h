/* fgl.h is generated from src/core by tools/amalgamate: edit src/, then run make. */
/* fgl.h - tensors, sparse matrices, reverse-mode autodiff, parameter sets,
 *         optimizers and random numbers for federated graph learning.
 *
 * Part of fgl, a header-only C99 library (see README.md). This is the bottom
 * floor: it depends on libc and libm only. fgl_graph.h, fgl_gnn.h and
 * fgl_fed.h build on it.
 *
 * USAGE
 *   In exactly one C or C++ file of your project:
 *       #define FGL_IMPLEMENTATION
 *       #include "fgl.h"
 *   Everywhere else just #include "fgl.h".
 *
 * EXAMPLE: fit y = 2x - 1 with one linear unit and Adam (the body of a
 * main(); make test compiles and runs every header's example).
 *       fgl_params ps; fgl_params_init(&ps);
 *       int w = fgl_params_add(&ps, "w", 1, 1, FGL_G_HEAD, 1);
 *       int b = fgl_params_add(&ps, "b", 1, 1, FGL_G_HEAD, 1);
 *       fgl_optim opt; fgl_optim_init(&opt, fgl_optim_default(FGL_ADAM), &ps);
 *       opt.cfg.lr = 0.05f;
 *       float x[4] = {0, 1, 2, 3}, y[4] = {-1, 1, 3, 5};
 *       fgl_tape t; fgl_tape_init(&t);
 *       for (int step = 0; step < 500; step++) {
 *           fgl_tape_reset(&t); fgl_params_zero_grad(&ps);
 *           fgl_node *X = fgl_op_const(&t, x, 4, 1), *Y = fgl_op_const(&t, y, 4, 1);
 *           fgl_node *P = fgl_op_add(&t, fgl_op_matmul(&t, X, fgl_op_param(&t, &ps, w)),
 *                                    fgl_op_param(&t, &ps, b));
 *           fgl_node *loss = fgl_op_mse(&t, P, Y);
 *           if (fgl_tape_backward(&t, loss) != FGL_OK) break;   // t.err.msg says why
 *           fgl_optim_step(&opt, &ps);
 *       }
 *       printf("w = %.3f, b = %.3f\n", fgl_params_data(&ps, w)[0], fgl_params_data(&ps, b)[0]);
 *       fgl_tape_free(&t); fgl_optim_free(&opt); fgl_params_free(&ps);
 *
 * WHAT IS HERE
 *   - result codes and fgl_error (code + message naming file/line/problem);
 *     nothing here calls exit() or abort() for you.
 *   - fgl_rng: xoshiro256** with independent streams from (seed, stream id);
 *     uniform, normal, gamma, Dirichlet, Bernoulli, shuffle, sampling.
 *   - fgl_tensor: 2-D row-major float matrices (owned or views) and kernels:
 *     GEMM with either operand transposed, axpy, scale, dot, norms, cosine.
 *   - fgl_csr: compressed sparse rows, sparse x dense products.
 *   - fgl_tape / fgl_node / fgl_op_*: reverse-mode autodiff. Forward ops append
 *     nodes to a tape whose memory is an arena reset each step; backward walks
 *     it in reverse, handing each intermediate node's gradient on to the
 *     nodes still to come once it is done with it (as in PyTorch, only
 *     leaves keep theirs; t->retain_grads = 1 keeps them all). Errors
 *     (shape mismatch, out of memory) are sticky: an op
 *     that fails returns NULL, later ops given NULL return NULL, and
 *     fgl_tape_backward() returns the first error with t->err.msg explaining it.
 *     fgl_gradcheck_ex checks any graph's gradients by finite differences
 *     with an error estimate of its own (tests/test_fgl_ops.c uses it).
 *   - fgl_params: one flat float buffer per model with a table of named slices
 *     carrying group tags; gradients mirror it; whole-set or per-group vector
 *     arithmetic; a versioned, checksummed save/load format.
 *   - fgl_optim: SGD (momentum, Nesterov, weight decay), Adam, AdamW, gradient
 *     clipping; state mirrors the parameter set and can be reset or copied.
 *   - fgl_bytes / fgl_reader: little-endian serialisation with bounds checks,
 *     shared by every file format in fgl.
 *   - fgl_wait_choose: OpenMP's wait policy for the program (spinning threads
 *     slow a busy machine several times over; the runtime reads the policy
 *     only at start-up, so this re-executes the program once when it must
 *     change). Call it first in main: fgl_wait_choose(argv, "auto", 0).
 *
 * COMPILE-TIME OPTIONS (define before including)
 *   FGL_STATIC            make every function static (private to one file).
 *   FGL_MALLOC(sz), FGL_REALLOC(p, sz), FGL_FREE(p)
 *                         your allocator: define all three or none.
 *   FGL_ASSERT(x)         programmer-error check (default: assert()).
 *   FGL_NO_IMPLEMENTATION ignore FGL_IMPLEMENTATION (declarations only), for
 *                         every fgl header: link a program written to stand
 *                         alone against an implementation compiled elsewhere.
 *   FGL_NO_SIMD           the portable GEMM loop even where the compiler
 *                         targets AVX-512 or AVX2 + FMA (whose intrinsics
 *                         kernel is the default there; the two differ in
 *                         the last bits, fused multiply-adds being rounded
 *                         once).
 *   FGL_PAR_MIN           floats from which a memory-bound kernel runs in
 *                         parallel (default 65536; at least 2).
 *   FGL_PER_THREAD_ELEM, FGL_PER_THREAD_SPMM, FGL_PER_THREAD_GEMM
 *                         the work a kernel gives each thread at least (the
 *                         table in src/core/tensor.h): a region runs on as
 *                         many threads as its work pays for, never more.
 *   Compile with -fopenmp to parallelise large kernels; without it the code is
 *   the same, serial, and gives bit-identical results. Kernels split their
 *   work only outside another parallel region (or on the threads fgl_fed.h
 *   grants a large client's thread), each value computed in a fixed order
 *   (by one thread; a column sum by the threads in turn, each adding its own
 *   rows).
 *
 * CONVENTIONS
 *   Public names start with fgl_, private ones with fgl__. Functions that can
 *   fail return int (FGL_OK == 0, or a negative FGL_ERR_*) and, where they take
 *   an fgl_error *, fill it with a message; passing NULL for it is allowed.
 *   No global mutable state: independent objects may be used from different
 *   threads at once.
 *
 * LICENSE: MIT (see LICENSE).
 */
#ifndef FGL_H
#define FGL_H

/* The library's version (one for all four headers), recorded with every
 * fglrun result. The numbers are for #if; the string for records. */
#define FGL_VERSION_MAJOR 0
#define FGL_VERSION_MINOR 1
#define FGL_VERSION_PATCH 0
#define FGL_VERSION "0.1.0"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef FGLDEF
#ifdef FGL_STATIC
#define FGLDEF static
#else
#define FGLDEF extern
#endif
#endif

#if defined(__GNUC__) || defined(__clang__)
#define FGL__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define FGL__PRINTF(f, a)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* --- src/core/error.h --- */
/* ------------------------------------------------------------------------ */
/* Result codes and errors                                                  */
/* ------------------------------------------------------------------------ */

enum {
    FGL_OK = 0,
    FGL_ERR_NOMEM = -1,       /* allocation failed */
    FGL_ERR_IO = -2,          /* file cannot be opened, read or written */
    FGL_ERR_PARSE = -3,       /* text that is not the number / token expected */
    FGL_ERR_RANGE = -4,       /* an id or value outside its allowed range */
    FGL_ERR_SHAPE = -5,       /* dimensions that do not agree */
    FGL_ERR_FORMAT = -6,      /* bad magic, version, checksum or truncation */
    FGL_ERR_ARG = -7,         /* invalid argument */
    FGL_ERR_NONFINITE = -8,   /* NaN or Inf where finite numbers are required */
    FGL_ERR_EMPTY = -9,       /* nothing to work on (empty file, no samples) */
    FGL_ERR_UNSUPPORTED = -10 /* a valid request this build cannot serve */
};

#define FGL_ERROR_MSG_LEN 512

typedef struct fgl_error {
    int code;                      /* FGL_OK or an FGL_ERR_* value */
    char msg[FGL_ERROR_MSG_LEN];   /* "file:line: what is wrong" where known */
} fgl_error;

/* Short name of a result code ("FGL_ERR_PARSE"). */
FGLDEF const char *fgl_result_name(int code);
/* Record an error in err (which may be NULL) and return code. */
FGLDEF int fgl_error_set(fgl_error *err, int code, const char *fmt, ...) FGL__PRINTF(3, 4);
/* Reset err to FGL_OK with an empty message. */
FGLDEF void fgl_error_clear(fgl_error *err);

/* --- src/core/rng.h --- */
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

/* --- src/core/tensor.h --- */
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

/* --- src/core/csr.h --- */
/* ------------------------------------------------------------------------ */
/* Sparse matrices (CSR)                                                    */
/* ------------------------------------------------------------------------ */

/* Compressed sparse rows: row i holds entries indptr[i] .. indptr[i+1]-1 with
 * column indices[k] and value values[k] (values == NULL means all ones).
 * Column indices are sorted within each row in every CSR fgl builds. */
typedef struct fgl_csr {
    int rows, cols, nnz;
    int *indptr;    /* rows + 1 */
    int *indices;   /* nnz */
    float *values;  /* nnz or NULL */
} fgl_csr;

FGLDEF int fgl_csr_init(fgl_csr *a, int rows, int cols, int nnz, int with_values);
FGLDEF void fgl_csr_free(fgl_csr *a);
FGLDEF int fgl_csr_clone(fgl_csr *dst, const fgl_csr *src);
/* Build from coordinate triplets (values may be NULL: all ones). Entries are
 * sorted by (row, col); duplicates are summed (sum_dup != 0) or collapsed to
 * one keeping the first value. Out-of-range coordinates are an error. */
FGLDEF int fgl_csr_from_coo(int rows, int cols, int nnz, const int *r, const int *c,
                            const float *v, int sum_dup, fgl_csr *out, fgl_error *err);
FGLDEF int fgl_csr_transpose(const fgl_csr *a, fgl_csr *out);
/* Check structural validity (monotone indptr, in-range sorted indices). */
FGLDEF int fgl_csr_validate(const fgl_csr *a, fgl_error *err);
/* Y (a->rows x n) = A X + beta Y, X is a->cols x n. Parallel over rows. */
FGLDEF void fgl_csr_spmm(const fgl_csr *a, const float *X, int n, float beta, float *Y);
/* Y (a->cols x n) += A^T X, X is a->rows x n (serial scatter). */
FGLDEF void fgl_csr_spmm_t(const fgl_csr *a, const float *X, int n, float *Y);

/* --- src/core/bytes.h --- */
/* ------------------------------------------------------------------------ */
/* Serialisation helpers                                                    */
/* ------------------------------------------------------------------------ */

/* A growable byte buffer; a failed allocation sets err and later puts are
 * ignored, so callers check once at the end. */
typedef struct fgl_bytes {
    unsigned char *data;
    size_t len, cap;
    int err;
} fgl_bytes;

FGLDEF void fgl_bytes_init(fgl_bytes *b);
FGLDEF void fgl_bytes_free(fgl_bytes *b);
FGLDEF void fgl_bytes_put(fgl_bytes *b, const void *p, size_t n);
FGLDEF void fgl_bytes_put_u32(fgl_bytes *b, uint32_t v);
FGLDEF void fgl_bytes_put_u64(fgl_bytes *b, uint64_t v);
FGLDEF void fgl_bytes_put_f32s(fgl_bytes *b, const float *x, size_t n);
FGLDEF void fgl_bytes_put_str(fgl_bytes *b, const char *s);   /* u32 length + bytes */

/* A bounds-checked cursor over bytes. Reading past the end sets err (and
 * returns zeros); callers check err once. */
typedef struct fgl_reader {
    const unsigned char *data;
    size_t len, pos;
    int err;
} fgl_reader;

FGLDEF fgl_reader fgl_reader_make(const void *data, size_t len);
FGLDEF int fgl_reader_get(fgl_reader *r, void *p, size_t n);
FGLDEF uint32_t fgl_reader_u32(fgl_reader *r);
FGLDEF uint64_t fgl_reader_u64(fgl_reader *r);
FGLDEF int fgl_reader_f32s(fgl_reader *r, float *x, size_t n);
/* Reads a string written by fgl_bytes_put_str into buf (NUL-terminated);
 * a string longer than cap-1 bytes is an error. */
FGLDEF int fgl_reader_str(fgl_reader *r, char *buf, size_t cap);

/* 64-bit FNV-1a checksum. */
FGLDEF uint64_t fgl_checksum64(const void *p, size_t n);
/* Whole-file helpers; the read buffer is released with FGL_FREE. Only
 * regular files are read: a directory, device or pipe is FGL_ERR_IO (told
 * before the file is opened, so a FIFO without a writer does not block).
 * Every file fgl reads whole (these, every dataset loader, checkpoints,
 * parameter files) is bounded: a file longer than fgl_file_max() bytes is
 * FGL_ERR_RANGE, told from its length before anything is read or
 * allocated. */
FGLDEF int fgl_file_read(const char *path, unsigned char **data, size_t *len, fgl_error *err);
/* The bound: the environment variable FGL_MAX_FILE_BYTES when it is set
 * (a positive integer, optionally followed by k, M or G for 2^10, 2^20,
 * 2^30: FGL_MAX_FILE_BYTES=4G), else FGL_MAX_FILE_BYTES as compiled
 * (default 1 GiB; the largest file of the bundled datasets is 21 MB).
 * 0 when the variable is set to something else: the readers then refuse to
 * read and say why. */
#ifndef FGL_MAX_FILE_BYTES
#define FGL_MAX_FILE_BYTES ((size_t)1 << 30)
#endif
FGLDEF size_t fgl_file_max(void);
/* fgl_file_read with the bound max (0: fgl_file_max()). text != 0: the file
 * must be text: a NUL byte is FGL_ERR_FORMAT "PATH:LINE: a NUL byte ...",
 * found as the file is read, a block of 1 MiB at a time (a file of zeros,
 * e.g. a sparse file, fails at its first block, whatever its length). */
FGLDEF int fgl_file_read_bounded(const char *path, size_t max, int text, unsigned char **data, size_t *len,
                                 fgl_error *err);
FGLDEF int fgl_file_write(const char *path, const void *data, size_t len, fgl_error *err);

/* Frame a payload as  magic(4) version(u32) length(u64) payload checksum(u64).
 * fgl_frame_open checks all four and returns a reader over the payload. */
FGLDEF void fgl_frame_begin(fgl_bytes *b, const char magic[4], uint32_t version, size_t *mark);
FGLDEF void fgl_frame_end(fgl_bytes *b, size_t mark);
FGLDEF int fgl_frame_open(const void *data, size_t len, const char magic[4], uint32_t version,
                          fgl_reader *payload, const char *what, fgl_error *err);

/* --- src/core/params.h --- */
/* ------------------------------------------------------------------------ */
/* Parameter sets                                                           */
/* ------------------------------------------------------------------------ */

/* Group tags: each slice carries one or more bits; algorithms select what to
 * share, keep local or regularise by these bits, never by names. */
enum {
    FGL_G_FEATURE = 1u << 0,  /* feature encoder / input projection */
    FGL_G_CONV = 1u << 1,     /* message-passing (GNN) layers */
    FGL_G_STRUCT = 1u << 2,   /* structure encoder (FedStar) */
    FGL_G_HEAD = 1u << 3,     /* classifier head, readout MLP */
    FGL_G_MASK = 1u << 4,     /* personal weight masks (FED-PUB) */
    FGL_G_NORM = 1u << 5,     /* normalisation affine parameters */
    FGL_G_BNSTAT = 1u << 6,   /* batch-norm running statistics (not trained) */
    FGL_G_OTHER = 1u << 7,    /* anything untagged */
    FGL_G_USER = 1u << 16     /* first bit free for applications */
};
#define FGL_G_ALL 0xFFFFFFFFu

#define FGL_SLICE_NAME_LEN 48

typedef struct fgl_slice {
    char name[FGL_SLICE_NAME_LEN];
    size_t offset;       /* into data / grad */
    int rows, cols;
    unsigned groups;     /* FGL_G_* bits */
    int trainable;       /* 0: the optimizer and gradients skip it */
    int grad_unset;      /* fgl_params_defer_zero_grad: the gradient counts as zero, its memory not yet written */
} fgl_slice;

/* Slices keep the order they were added in (their index); in memory they
 * are grouped by tag: by the lowest group bit first (FEATURE, CONV, STRUCT,
 * HEAD, MASK, ...), then by the whole tag set, then in the order they were
 * added. So a primary group (all CONV slices, all STRUCT slices) is one
 * contiguous range, and any selection of groups is a few ranges
 * (fgl_params_ranges): packing the shared part of a model is a few memcpys. */
typedef struct fgl_params {
    int n, cap;          /* slices */
    fgl_slice *slices;
    int *order;          /* slice indices in memory order */
    size_t size;         /* floats in data (and grad) */
    float *data, *grad;
} fgl_params;

/* A run of contiguous floats in a parameter set's data / grad. */
typedef struct fgl_range {
    size_t offset, len;
} fgl_range;

FGLDEF void fgl_params_init(fgl_params *ps);
FGLDEF void fgl_params_free(fgl_params *ps);
/* Add a zero-initialised slice; returns its index (>= 0) or an error. Its
 * memory goes after the slices of the same tags (see fgl_params), so data,
 * grad and the offsets of other slices may move: take pointers after the set
 * is built. */
FGLDEF int fgl_params_add(fgl_params *ps, const char *name, int rows, int cols,
                          unsigned groups, int trainable);
FGLDEF int fgl_params_find(const fgl_params *ps, const char *name);   /* -1 if absent */
FGLDEF float *fgl_params_data(const fgl_params *ps, int slice);
FGLDEF float *fgl_params_gradp(const fgl_params *ps, int slice);
FGLDEF size_t fgl_slice_size(const fgl_slice *s);
/* Deep copy of layout and values; gradients start at zero. dst must be an
 * initialised set (fgl_params_init, or one in use: it is freed first); it may
 * be src itself. */
FGLDEF int fgl_params_clone(fgl_params *dst, const fgl_params *src);
/* 1 if both sets have the same slices (names, shapes, tags) in the same order. */
FGLDEF int fgl_params_same_layout(const fgl_params *a, const fgl_params *b);
/* Number of floats in the slices whose groups intersect `groups`. */
FGLDEF size_t fgl_params_count(const fgl_params *ps, unsigned groups);
/* A selection with exceptions: the slices whose groups intersect `groups`
 * and miss `except` (a slice carries several bits: a batch-norm weight of a
 * GIN layer is CONV|NORM, so groups = CONV, except = NORM|BNSTAT selects the
 * layer's linear maps without its batch norm). except = 0 is the plain
 * selection. A federated run's shared part is this selection with the
 * algorithm's share and keep masks (FedBN). */
FGLDEF int fgl_slice_selected(const fgl_slice *s, unsigned groups, unsigned except);
FGLDEF size_t fgl_params_count_except(const fgl_params *ps, unsigned groups, unsigned except);
/* Vector arithmetic over the selected slices; sets must share a layout
 * (FGL_ERR_SHAPE otherwise). */
FGLDEF int fgl_params_copy(fgl_params *dst, const fgl_params *src, unsigned groups);
FGLDEF void fgl_params_zero(fgl_params *ps, unsigned groups);
FGLDEF void fgl_params_zero_grad(fgl_params *ps);
/* fgl_params_zero_grad without writing memory: every trainable slice's
 * gradient counts as zero until the backward pass reaches its leaf
 * (fgl_op_param), which then stores its first contribution instead of adding
 * it to zeros (one pass over the gradients saved per step). fgl_tape_backward
 * zeroes, when it ends, the slices it did not reach of every set it saw, and
 * fgl_params_settle_grad those of one set (fgl_optim_step calls it): call it
 * before reading ps->grad yourself if a set may not be on the tape. */
FGLDEF void fgl_params_defer_zero_grad(fgl_params *ps);
FGLDEF void fgl_params_settle_grad(fgl_params *ps);
FGLDEF int fgl_params_axpy(fgl_params *y, float a, const fgl_params *x, unsigned groups);
FGLDEF void fgl_params_scale(fgl_params *ps, float a, unsigned groups);
FGLDEF double fgl_params_dot(const fgl_params *a, const fgl_params *b, unsigned groups);
FGLDEF double fgl_params_norm(const fgl_params *ps, unsigned groups);
/* The selected slices (trainable ones only if trainable_only) as maximal
 * runs of contiguous memory, in memory order. Writes at most max runs to out
 * (out may be NULL) and returns how many there are. Packing the selection
 * concatenates these runs. */
FGLDEF int fgl_params_ranges(const fgl_params *ps, unsigned groups, int trainable_only, fgl_range *out, int max);
/* Pack the selected slices into a contiguous vector in memory order (the
 * concatenation of fgl_params_ranges; returns floats written)
 * and back. A message between client and server is such a vector. */
FGLDEF size_t fgl_params_pack(const fgl_params *ps, unsigned groups, float *out);
FGLDEF size_t fgl_params_unpack(fgl_params *ps, unsigned groups, const float *in);
FGLDEF size_t fgl_params_pack_grad(const fgl_params *ps, unsigned groups, float *out);
/* The same over a selection with exceptions (fgl_slice_selected). */
FGLDEF size_t fgl_params_pack_except(const fgl_params *ps, unsigned groups, unsigned except, float *out);
FGLDEF size_t fgl_params_unpack_except(fgl_params *ps, unsigned groups, unsigned except, const float *in);
/* Initialisers for one slice. */
FGLDEF void fgl_params_fill(fgl_params *ps, int slice, float v);
FGLDEF void fgl_params_uniform(fgl_params *ps, int slice, float lo, float hi, fgl_rng *r);
/* Glorot/Xavier uniform: U(+-sqrt(6 / (rows + cols))). */
FGLDEF void fgl_params_glorot(fgl_params *ps, int slice, fgl_rng *r);
/* PyTorch's default for Linear: U(+-1/sqrt(fan_in)). */
FGLDEF void fgl_params_fan_in_uniform(fgl_params *ps, int slice, int fan_in, fgl_rng *r);
/* Serialise (layout + values) into b / from r. Reading into an empty set
 * creates the layout; reading into a built set requires the same layout. */
FGLDEF void fgl_params_write(const fgl_params *ps, fgl_bytes *b);
FGLDEF int fgl_params_read(fgl_params *ps, fgl_reader *r, fgl_error *err);
/* Framed, checksummed, versioned: save to / load from memory or a file. */
FGLDEF int fgl_params_save_mem(const fgl_params *ps, fgl_bytes *out);
FGLDEF int fgl_params_load_mem(fgl_params *ps, const void *data, size_t len, fgl_error *err);
FGLDEF int fgl_params_save(const fgl_params *ps, const char *path, fgl_error *err);
FGLDEF int fgl_params_load(fgl_params *ps, const char *path, fgl_error *err);

/* --- src/core/optim.h --- */
/* ------------------------------------------------------------------------ */
/* Optimizers                                                               */
/* ------------------------------------------------------------------------ */

enum { FGL_SGD = 0, FGL_ADAM = 1, FGL_ADAMW = 2 };

typedef struct fgl_optim_config {
    int kind;            /* FGL_SGD, FGL_ADAM, FGL_ADAMW */
    float lr;
    float weight_decay;  /* SGD/Adam: L2 added to the gradient; AdamW: decoupled */
    float momentum;      /* SGD */
    int nesterov;        /* SGD */
    float beta1, beta2, eps;   /* Adam/AdamW */
    float clip_norm;     /* > 0: clip the gradient's global norm first */
} fgl_optim_config;

/* State beside a parameter set: moments mirror its flat buffer. */
typedef struct fgl_optim {
    fgl_optim_config cfg;
    size_t size;
    float *m, *v;        /* SGD uses m as the momentum buffer */
    int64_t t;           /* steps taken */
} fgl_optim;

/* Defaults as in PyTorch: SGD lr 0.01; Adam/AdamW lr 1e-3, betas 0.9/0.999,
 * eps 1e-8 (AdamW weight decay 0.01). */
FGLDEF fgl_optim_config fgl_optim_default(int kind);
FGLDEF int fgl_optim_init(fgl_optim *o, fgl_optim_config cfg, const fgl_params *ps);
FGLDEF void fgl_optim_free(fgl_optim *o);
FGLDEF void fgl_optim_reset(fgl_optim *o);                /* zero moments, t = 0 */
FGLDEF int fgl_optim_copy(fgl_optim *dst, const fgl_optim *src);
/* One update of the trainable slices (of the selected groups). A clip_norm
 * in the config first clips the gradient of all trainable slices, selected
 * or not, by their joint norm. */
FGLDEF int fgl_optim_step(fgl_optim *o, fgl_params *ps);
FGLDEF int fgl_optim_step_groups(fgl_optim *o, fgl_params *ps, unsigned groups);
/* Scale the gradient of trainable slices so its norm is at most max_norm;
 * returns the norm before clipping. */
FGLDEF double fgl_params_clip_grad(fgl_params *ps, double max_norm);
FGLDEF void fgl_optim_write(const fgl_optim *o, fgl_bytes *b);
FGLDEF int fgl_optim_read(fgl_optim *o, fgl_reader *r, fgl_error *err);

/* --- src/core/tape.h --- */
/* ------------------------------------------------------------------------ */
/* Autodiff tape                                                            */
/* ------------------------------------------------------------------------ */

typedef struct fgl_node fgl_node;
typedef struct fgl_tape fgl_tape;
typedef void (*fgl_backward_fn)(fgl_tape *t, fgl_node *n);

/* A value on the tape: a rows x cols matrix, its gradient (allocated on
 * demand during backward; for parameters it points into fgl_params.grad),
 * and what the op that made it saved for its backward pass. */
struct fgl_node {
    int rows, cols;
    float *val;
    float *grad;
    int needs_grad;
    const char *op;            /* name, for messages and debugging */
    fgl_backward_fn backward;  /* NULL for leaves */
    fgl_node *in[3];
    int i0, i1;
    float f0, f1;
    const void *p0, *p1;
    void *s0, *s1;             /* saved buffers in the tape's arena */
    fgl_params *param;         /* a parameter leaf: its set and slice (for a gradient whose zeroing is deferred) */
    int slice;
};

typedef struct fgl__chunk fgl__chunk;

/* Optional time per op, for benchmarks (bench/bench_gin): point a tape's
 * prof at a zeroed fgl_tape_prof and every op's forward time (from the
 * creation of its node, which ops do before computing, to the creation of
 * the next node or the start of backward) and backward step are added under
 * its name. Costs two clock reads per node; NULL (the default) costs nothing. */
#define FGL_PROF_OPS 64
typedef struct fgl_tape_prof {
    int n;                          /* distinct op names seen */
    const char *op[FGL_PROF_OPS];
    double fwd[FGL_PROF_OPS], bwd[FGL_PROF_OPS];
    long calls[FGL_PROF_OPS];
    int open;                       /* 1 + slot of the op whose forward is running, 0 none */
    double since;                   /* when it started */
} fgl_tape_prof;

struct fgl_tape {
    fgl__chunk *chunk;         /* arena: current chunk, linked to older ones */
    size_t arena_total;        /* bytes handed out since the last reset */
    fgl_node **nodes;
    int n_nodes, cap_nodes;
    fgl_error err;             /* the first error (its code and message), sticky until reset */
    fgl_tape_prof *prof;       /* optional op timing (NULL: off); kept by reset */
    /* Gradients of the nodes the backward pass has left (none will read
     * them again), whose buffers take the next gradients: a GIN batch's
     * backward then writes into memory still in cache instead of 18 MB of
     * fresh arena (a tape larger than the cache makes every fresh write a
     * trip to memory, and two cores share that bandwidth). */
    float **spare;             /* up to FGL__SPARES (allocated at the first release), oldest first */
    size_t *spare_bytes;       /* each one's size */
    int n_spare;
    int retain_grads;          /* 1: keep every node's gradient after backward (as PyTorch's retain_grad) */
};

FGLDEF void fgl_tape_init(fgl_tape *t);
FGLDEF void fgl_tape_free(fgl_tape *t);
/* Forget every node; keeps the arena's memory for the next step. */
FGLDEF void fgl_tape_reset(fgl_tape *t);
/* Forget every node and return the arena's memory to the allocator; the
 * tape stays usable (the next op allocates again) and keeps its error
 * state and its prof pointer. For a tape that will sit idle (a client out of
 * the round). */
FGLDEF void fgl_tape_trim(fgl_tape *t);
/* Backpropagate from a 1 x 1 node; gradients accumulate (+=) into parameter
 * gradients (or are stored into those fgl_params_defer_zero_grad left
 * unset). On return, every set of parameters on the tape has its gradients
 * written, even after an error. Returns the tape's error state. As in
 * PyTorch, the gradients of intermediate nodes (ops' outputs) are not kept:
 * each is released once the pass has gone through its node (grad NULL
 * again) and its memory serves the gradients still to come. Leaves keep
 * theirs. Set t->retain_grads = 1 before backward to keep them all. */
FGLDEF int fgl_tape_backward(fgl_tape *t, fgl_node *loss);
/* Bytes the arena holds (reserved, used or not), and in how many chunks
 * (chunks may be NULL). Steady-state training steps keep both constant. */
FGLDEF size_t fgl_tape_reserved(const fgl_tape *t, int *chunks);
/* Scratch memory valid until the next reset (zeroed). NULL + error on OOM. */
FGLDEF void *fgl_tape_alloc(fgl_tape *t, size_t bytes);
/* Record an error on the tape (first one wins); returns NULL for chaining. */
FGLDEF fgl_node *fgl_tape_fail(fgl_tape *t, int code, const char *fmt, ...) FGL__PRINTF(3, 4);

/* Leaves. fgl_op_const does not copy: data must live until backward is done. */
FGLDEF fgl_node *fgl_op_const(fgl_tape *t, const float *data, int rows, int cols);
FGLDEF fgl_node *fgl_op_tensor(fgl_tape *t, const fgl_tensor *x);
FGLDEF fgl_node *fgl_op_zeros(fgl_tape *t, int rows, int cols);
/* A leaf whose gradient is accumulated into grad (may be NULL: no gradient). */
FGLDEF fgl_node *fgl_op_leaf(fgl_tape *t, float *val, float *grad, int rows, int cols);
/* A parameter slice as a leaf (gradient into ps->grad if trainable). */
FGLDEF fgl_node *fgl_op_param(fgl_tape *t, fgl_params *ps, int slice);
/* The ops: declared, documented and defined in src/core/ops_*.h (linear
 * algebra, elementwise, shape, softmax and losses, normalisation, sparse). */

/* --- src/core/ops_matmul.h --- */
/* ------------------------------------------------------------------------ */
/* Autodiff ops: linear algebra                                             */
/* ------------------------------------------------------------------------ */
/* The ops on the tape of src/core/tape.h: each op's declaration and
 * documentation here, its forward and backward below. */

/* Linear algebra. */
FGLDEF fgl_node *fgl_op_matmul(fgl_tape *t, fgl_node *a, fgl_node *b);
FGLDEF fgl_node *fgl_op_matmul_ex(fgl_tape *t, fgl_node *a, int trans_a, fgl_node *b, int trans_b);
FGLDEF fgl_node *fgl_op_transpose(fgl_tape *t, fgl_node *a);
/* x W + b in one node (b: 1 x cols or NULL): the dense layer of every model,
 * without the intermediate x W that matmul + bias would keep. */
FGLDEF fgl_node *fgl_op_linear(fgl_tape *t, fgl_node *x, fgl_node *w, fgl_node *b);
/* ReLU(x W + b) as one node: the ReLU applied as each tile of the product
 * is stored, so neither a pass over the output nor the pre-activation
 * buffer (GIN's MLPs, an MLP head). The values and gradients of
 * fgl_op_relu(t, fgl_op_linear(t, x, w, b)), bit for bit. Its backward
 * masks the node's own gradient in place, as fgl_op_batch_norm_relu's. */
FGLDEF fgl_node *fgl_op_linear_relu(fgl_tape *t, fgl_node *x, fgl_node *w, fgl_node *b);

/* --- src/core/ops_elementwise.h --- */
/* ------------------------------------------------------------------------ */
/* Autodiff ops: elementwise (arithmetic, activations, dropout)             */
/* ------------------------------------------------------------------------ */
/* The ops on the tape of src/core/tape.h: each op's declaration and
 * documentation here, its forward and backward below. */

/* Elementwise with broadcasting of b: same shape, 1 x cols (each row),
 * rows x 1 (each column) or 1 x 1. */
FGLDEF fgl_node *fgl_op_add(fgl_tape *t, fgl_node *a, fgl_node *b);
FGLDEF fgl_node *fgl_op_sub(fgl_tape *t, fgl_node *a, fgl_node *b);
FGLDEF fgl_node *fgl_op_mul(fgl_tape *t, fgl_node *a, fgl_node *b);
FGLDEF fgl_node *fgl_op_bias(fgl_tape *t, fgl_node *a, fgl_node *bias);   /* bias 1 x cols */
FGLDEF fgl_node *fgl_op_scale(fgl_tape *t, fgl_node *a, float s);
FGLDEF fgl_node *fgl_op_affine(fgl_tape *t, fgl_node *a, float s, float c);  /* s a + c */
/* Activations and other elementwise functions. */
FGLDEF fgl_node *fgl_op_relu(fgl_tape *t, fgl_node *a);
FGLDEF fgl_node *fgl_op_leaky_relu(fgl_tape *t, fgl_node *a, float slope);
FGLDEF fgl_node *fgl_op_elu(fgl_tape *t, fgl_node *a, float alpha);
FGLDEF fgl_node *fgl_op_sigmoid(fgl_tape *t, fgl_node *a);
FGLDEF fgl_node *fgl_op_tanh(fgl_tape *t, fgl_node *a);
FGLDEF fgl_node *fgl_op_exp(fgl_tape *t, fgl_node *a);
FGLDEF fgl_node *fgl_op_log(fgl_tape *t, fgl_node *a);     /* log(max(a, 1e-30)) */
FGLDEF fgl_node *fgl_op_abs(fgl_tape *t, fgl_node *a);
FGLDEF fgl_node *fgl_op_square(fgl_tape *t, fgl_node *a);
/* Inverted dropout: keeps with probability 1-p and scales by 1/(1-p).
 * p <= 0 or rng == NULL (evaluation) returns a unchanged. The mask is
 * reproducible: elements 2m and 2m+1 are kept when the low and the high 32
 * bits of the m-th fgl_rng_u64 draw are >= p 2^32. */
FGLDEF fgl_node *fgl_op_dropout(fgl_tape *t, fgl_node *a, float p, fgl_rng *rng);
/* dropout(relu(a), p, rng) as one node, one pass forward and backward: the
 * same values and the same draws from rng. */
FGLDEF fgl_node *fgl_op_relu_dropout(fgl_tape *t, fgl_node *a, float p, fgl_rng *rng);

/* --- src/core/ops_shape.h --- */
/* ------------------------------------------------------------------------ */
/* Autodiff ops: shape, gathers and reductions                              */
/* ------------------------------------------------------------------------ */
/* The ops on the tape of src/core/tape.h: each op's declaration and
 * documentation here, its forward and backward below. */

/* Shape. */
FGLDEF fgl_node *fgl_op_concat_cols(fgl_tape *t, fgl_node *const *xs, int n);
FGLDEF fgl_node *fgl_op_concat2(fgl_tape *t, fgl_node *a, fgl_node *b);
FGLDEF fgl_node *fgl_op_slice_cols(fgl_tape *t, fgl_node *a, int col0, int ncols);
/* out row i = a row idx[i] (idx copied onto the tape). */
FGLDEF fgl_node *fgl_op_gather_rows(fgl_tape *t, fgl_node *a, const int *idx, int n);
/* out (out_rows x cols) row idx[i] += a row i. */
FGLDEF fgl_node *fgl_op_scatter_add_rows(fgl_tape *t, fgl_node *a, const int *idx, int out_rows);
/* Edge scores of a dot-product decoder: out (n x 1) row i = a row src[i] .
 * a row dst[i] (indices copied onto the tape; a pair may repeat, and src[i]
 * may equal dst[i]). */
FGLDEF fgl_node *fgl_op_edge_dot(fgl_tape *t, fgl_node *a, const int *src, const int *dst, int n);
/* Reductions over row groups: segment s is rows offsets[s] .. offsets[s+1]-1
 * (offsets copied onto the tape). Empty segments give 0. */
FGLDEF fgl_node *fgl_op_segment_sum(fgl_tape *t, fgl_node *a, const int *offsets, int nseg);
FGLDEF fgl_node *fgl_op_segment_mean(fgl_tape *t, fgl_node *a, const int *offsets, int nseg);
FGLDEF fgl_node *fgl_op_segment_max(fgl_tape *t, fgl_node *a, const int *offsets, int nseg);
/* Softmax down each column inside each segment (edge softmax of GAT when the
 * segments are CSR rows and a holds one score per edge and head). */
FGLDEF fgl_node *fgl_op_segment_softmax(fgl_tape *t, fgl_node *a, const int *offsets, int nseg);
FGLDEF fgl_node *fgl_op_sum_rows(fgl_tape *t, fgl_node *a);    /* 1 x cols */
FGLDEF fgl_node *fgl_op_mean_rows(fgl_tape *t, fgl_node *a);   /* 1 x cols */
FGLDEF fgl_node *fgl_op_sum(fgl_tape *t, fgl_node *a);         /* 1 x 1 */
FGLDEF fgl_node *fgl_op_mean(fgl_tape *t, fgl_node *a);        /* 1 x 1 */

/* --- src/core/ops_loss.h --- */
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

/* --- src/core/ops_norm.h --- */
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

/* --- src/core/ops_sparse.h --- */
/* ------------------------------------------------------------------------ */
/* Autodiff ops: sparse x dense                                             */
/* ------------------------------------------------------------------------ */
/* The ops on the tape of src/core/tape.h: each op's declaration and
 * documentation here, its forward and backward below. */

/* Sparse x dense: A (fixed values, or all ones) times x. at, if given, must be
 * A's transpose and makes the backward pass row-parallel. */
FGLDEF fgl_node *fgl_op_spmm(fgl_tape *t, const fgl_csr *a, const fgl_csr *at, fgl_node *x);
/* A x + b, b a 1 x cols bias added to every row (NULL: fgl_op_spmm): the
 * bits of fgl_op_bias(t, fgl_op_spmm(t, a, at, x), b) in one node, without
 * the pass over the product each way (a GCN layer's aggregation). */
FGLDEF fgl_node *fgl_op_spmm_bias(fgl_tape *t, const fgl_csr *a, const fgl_csr *at, fgl_node *x, fgl_node *b);
/* Sparse x dense with values from a node v (nnz x H, trainable): head h uses
 * v[:, h] on columns h*F .. h*F+F-1 of x (x has H*F columns). */
FGLDEF fgl_node *fgl_op_spmm_values(fgl_tape *t, const fgl_csr *a, fgl_node *v, fgl_node *x);

/* --- src/core/gradcheck.h --- */
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

/* --- src/core/wait.h --- */
/* --- OpenMP's wait policy, chosen for the program ---------------------------- */
/* Between parallel regions an OpenMP thread either spins (busy-waits) for a
 * while or sleeps at once. Spinning saves a wake-up on a quiet machine with a
 * core per thread; on a machine whose cores are all busy (other processes,
 * or as many threads as cores) a spinning thread takes the time slice that
 * another thread needs: on a loaded 2-core machine a 5-client FedAvg
 * program took 20.0 s with the runtime's default and 3.4 s with passive
 * waiting. The runtime (libgomp) reads OMP_WAIT_POLICY once, when the
 * program is loaded, before main, so no call can change it afterwards:
 * fgl_wait_choose decides and, when the policy must change, re-executes the
 * program once with the same arguments and OMP_WAIT_POLICY set. Call it
 * first thing in main, before anything with side effects:
 *
 *     int main(int argc, char **argv) {
 *         fgl_wait_choose(argv, "auto", 0);   // may restart the program, once
 *         ...
 *
 * how: "auto" (NULL too), "spin" or "passive". auto keeps the user's
 * OMP_WAIT_POLICY or GOMP_SPINCOUNT when either is set; otherwise it asks
 * for passive waiting when the program's threads (threads, or <= 0: the
 * runtime's maximum) plus the machine's 1-minute load (/proc/loadavg) would
 * not leave a core free (more than the processors less one half), and keeps
 * the runtime's default when there is room. spin and passive set the policy
 * (active, passive) whatever the environment says. The choice is left in
 * FGL_WAIT_CHOSEN, which also keeps auto from choosing twice. Returns 0 when
 * nothing needed to change, -1 when the re-execution failed (the program
 * goes on with the runtime's policy); on success it does not return. It does
 * nothing (returns 0) in a build without OpenMP (nothing waits) and where
 * the program cannot re-execute itself (not Linux: no /proc/self/exe). */
FGLDEF int fgl_wait_choose(char **argv, const char *how, int threads);

#ifdef __cplusplus
}
#endif
#endif /* FGL_H */

/* ======================================================================== */
/*                          PRIVATE DECLARATIONS                            */
/* ======================================================================== */
#ifdef FGL_NO_IMPLEMENTATION
#undef FGL_IMPLEMENTATION /* the headers built on fgl.h include it first: they see it undefined too */
#endif
#if (defined(FGL_IMPLEMENTATION) || defined(FGL_TEST_PRIVATE)) && !defined(FGL_H_PRIVATE)
#define FGL_H_PRIVATE
/* The private (fgl__) functions and types that tests reach. FGL__PRIVATE is
 * static in the library as shipped; FGL_TEST_PRIVATE (the Makefile's test
 * builds define it for the library object and every test) makes these
 * functions external and their declarations visible, so that a test calls
 * them without compiling the library itself. */
#ifdef FGL_TEST_PRIVATE
#define FGL__PRIVATE
#else
#define FGL__PRIVATE static
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* --- src/core/tensor.h --- */
typedef void (*fgl__chain_add_fn)(void *ctx, int r0, int r1);
FGL__PRIVATE void fgl__col_chain(int R, int C, fgl__chain_add_fn add, void *ctx, const float *warm);
FGL__PRIVATE int fgl__budget(void);
FGL__PRIVATE int fgl__threads(double w, double per_thread);
/* --- src/core/ops_elementwise.h --- */
/* The state FGL__DRAW_BLOCK = 2^14 draws of fgl_rng_u64 ahead, in 256
 * steps: xoshiro256's state update is linear over GF(2), so T^Q is the sum
 * of T^i over the bits i of x^Q mod P(x), P the update's characteristic
 * polynomial (degree 256). P came from Berlekamp-Massey on the update's
 * bit sequence and the four words below from x^Q mod P; both were checked
 * against 2^14 plain steps from random states (and test_fgl_core checks
 * this function against fgl_rng_u64). */
#define FGL__DRAW_BLOCK 16384
FGL__PRIVATE void fgl__rng_skip_block(fgl_rng *r);

#ifdef __cplusplus
}
#endif
#endif /* FGL_H_PRIVATE */

/* ======================================================================== */
/*                              IMPLEMENTATION                              */
/* ======================================================================== */
#if defined(FGL_IMPLEMENTATION) && !defined(FGL_H_IMPLEMENTED)
#define FGL_H_IMPLEMENTED

#include <math.h>
#include <stdarg.h>
#include <stdlib.h> /* getenv (fgl_file_max), whatever the allocator */
#include <string.h>
#include <time.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/stat.h>
#include <sys/time.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(_OPENMP) && defined(__linux__)
#include <unistd.h> /* execve: fgl_wait_choose */
#endif

#if defined(FGL_MALLOC) && defined(FGL_REALLOC) && defined(FGL_FREE)
/* user allocator */
#elif !defined(FGL_MALLOC) && !defined(FGL_REALLOC) && !defined(FGL_FREE)
#include <stdlib.h>
#define FGL_MALLOC(sz) malloc(sz)
#define FGL_REALLOC(p, sz) realloc(p, sz)
#define FGL_FREE(p) free(p)
#else
#error "fgl: define all of FGL_MALLOC, FGL_REALLOC and FGL_FREE, or none"
#endif

#ifndef FGL_ASSERT
#include <assert.h>
#define FGL_ASSERT(x) assert(x)
#endif

#ifdef __cplusplus
#define FGL__RESTRICT
#else
#define FGL__RESTRICT restrict
#endif

#define FGL__MIN(a, b) ((a) < (b) ? (a) : (b))
#define FGL__MAX(a, b) ((a) > (b) ? (a) : (b))

#ifdef __cplusplus
extern "C" {
#endif

/* --- src/core/error.h --- */
/* --- errors ------------------------------------------------------------- */

FGLDEF const char *fgl_result_name(int code) {
    switch (code) {
    case FGL_OK: return "FGL_OK";
    case FGL_ERR_NOMEM: return "FGL_ERR_NOMEM";
    case FGL_ERR_IO: return "FGL_ERR_IO";
    case FGL_ERR_PARSE: return "FGL_ERR_PARSE";
    case FGL_ERR_RANGE: return "FGL_ERR_RANGE";
    case FGL_ERR_SHAPE: return "FGL_ERR_SHAPE";
    case FGL_ERR_FORMAT: return "FGL_ERR_FORMAT";
    case FGL_ERR_ARG: return "FGL_ERR_ARG";
    case FGL_ERR_NONFINITE: return "FGL_ERR_NONFINITE";
    case FGL_ERR_EMPTY: return "FGL_ERR_EMPTY";
    case FGL_ERR_UNSUPPORTED: return "FGL_ERR_UNSUPPORTED";
    default: return "FGL_ERR_UNKNOWN";
    }
}

FGLDEF int fgl_error_set(fgl_error *err, int code, const char *fmt, ...) {
    if (err) {
        va_list ap;
        err->code = code;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

FGLDEF void fgl_error_clear(fgl_error *err) {
    if (err) {
        err->code = FGL_OK;
        err->msg[0] = 0;
    }
}

/* --- src/core/rng.h --- */
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

/* --- src/core/tensor.h --- */
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

/* --- src/core/gemm.h --- */
/* --- GEMM ----------------------------------------------------------------- */

/* Blocked GEMM. op(B) is cut into column panels of FGL__NR columns for
 * blocks of FGL__KC steps of k (packed, or read where it lies when B is not
 * transposed and the panel is full); a register-blocked micro-kernel computes
 * FGL__MR x FGL__NR tiles of C reading op(A) where it lies (six row
 * pointers stepping along k: A's rows when it is not transposed, six
 * neighbouring values of a row when it is), so A, usually the large
 * operand of a GNN's products (nodes x features), is read once and never
 * copied. When the packed op(B) is small (a layer's weights) it is packed
 * once for the whole product and shared by every thread. Every element of
 * C is summed over k in increasing order, block after block of FGL__KC
 * steps, so the result does not depend on the number of threads or on the
 * tiling. */
#define FGL__MR 6
#define FGL__NR 32
#define FGL__KC 256
#define FGL__MC 96
#define FGL__BPACK_ALL (1 << 17) /* most floats of op(B) packed once up front */

/* Rows p0 .. p0+kc-1, columns j0 .. j0+nr-1 of op(B) into one panel:
 * element (p, j) at dst[p*NR + j]; columns beyond nr are zero. */
static void fgl__pack_b(int trans, const float *B, int ldb, int p0, int kc, int j0, int nr,
                        float *FGL__RESTRICT dst) {
    int p, j;
    if (!trans) {
        for (p = 0; p < kc; p++) {
            float *d = dst + (size_t)p * FGL__NR;
            const float *src = B + (size_t)(p0 + p) * (size_t)ldb + (size_t)j0;
            for (j = 0; j < nr; j++) d[j] = src[j];
            for (j = nr; j < FGL__NR; j++) d[j] = 0.0f;
        }
        return;
    }
    /* op(B)[p][j] = B[j][p]: row j0+j of B holds the kc values contiguously;
     * 16 steps of k at a time, one cache line of each row. */
    {
        int pb;
        for (pb = 0; pb < kc; pb += 16) {
            int pe = FGL__MIN(pb + 16, kc);
            for (j = 0; j < nr; j++) {
                const float *src = B + (size_t)(j0 + j) * (size_t)ldb + (size_t)p0;
                for (p = pb; p < pe; p++) dst[(size_t)p * FGL__NR + j] = src[p];
            }
            for (p = pb; p < pe; p++)
                for (j = nr; j < FGL__NR; j++) dst[(size_t)p * FGL__NR + j] = 0.0f;
        }
    }
}

/* ReLU in place on rows x cols of c (row stride ldc): v > 0 ? v : 0, the
 * bits of fgl_op_relu (a NaN or -0 becomes +0). */
static void fgl__relu_rows(float *c, int ldc, int rows, int cols) {
    int i, j;
    for (i = 0; i < rows; i++) {
        float *ci = c + (size_t)i * (size_t)ldc;
        for (j = 0; j < cols; j++) ci[j] = ci[j] > 0 ? ci[j] : 0.0f;
    }
}

/* C tile (mr x nr at c) = alpha acc + (first ? beta C, or bias (a row) : C);
 * acc is MR x NR. A compiler that contracts a * b + c (clang's default,
 * GCC's gnu modes) may fuse these scalar epilogues where the vector path
 * multiplies, then adds: for alpha = 1 and beta 0 or 1 (every call fgl
 * makes) the two round alike; other alpha or beta may differ in the last
 * bit between edge and full tiles of one product (still the same at any
 * thread count). */
static void fgl__store_tile(const float *acc, float *c, int ldc, int mr, int nr, float alpha, int first,
                            float beta, const float *bias) {
    int i, j;
    for (i = 0; i < mr; i++) {
        float *ci = c + (size_t)i * (size_t)ldc;
        const float *ai = acc + (size_t)i * FGL__NR;
        if (first && bias) { /* beta is 0 with a bias */
            for (j = 0; j < nr; j++) ci[j] = alpha * ai[j] + bias[j];
        } else if (first && beta == 0.0f) {
            for (j = 0; j < nr; j++) ci[j] = alpha * ai[j];
        } else if (first && beta != 1.0f) {
            for (j = 0; j < nr; j++) ci[j] = beta * ci[j] + alpha * ai[j];
        } else {
            for (j = 0; j < nr; j++) ci[j] += alpha * ai[j];
        }
    }
}

/* The micro-kernel: C tile (mr x nr) from sum over p < kc of a(i, p) b[p][j],
 * with a(i, p) = a[i rs + p ps] for i < mr (rows beyond mr read row 0 and
 * are not stored) and b[p][j] = b[p bs + j] (NR values of each step p are
 * read: a packed panel, bs = NR, or a full panel of B in place). On x86 cores with AVX-512, or AVX2 and FMA, it is
 * written with intrinsics: accumulators in vector registers at the core's
 * full width (GCC's -march=native otherwise prefers 256-bit loops even on
 * 512-bit units) and one fused multiply-add per step, the operation the
 * hardware's peak counts (C99 compilers do not fuse a * b + c on their own).
 * Elsewhere a portable loop multiplies and adds. Either way every element
 * is summed over p in the same order, so the result does not depend on the
 * tiling or the thread count; builds with and without FMA differ in the
 * last bits. relu: the stored values clamped at 0 (the last block of k). */
#if (defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))) && !defined(FGL_NO_SIMD)
#include <immintrin.h>
#define FGL__SIMD 1
#endif

#if defined(FGL__SIMD)
/* One step p of the kernel, either width: each of the six rows' a(i, p)
 * broadcast, times the two vectors b0, b1 of op(B)'s row p, added into that
 * row's two accumulators. */
#define FGL__SIX_ROWS(set1, fmadd)                                                         \
    do {                                                                                   \
        x = set1(a0[o]); c00 = fmadd(x, b0, c00); c01 = fmadd(x, b1, c01);                 \
        x = set1(a1[o]); c10 = fmadd(x, b0, c10); c11 = fmadd(x, b1, c11);                 \
        x = set1(a2[o]); c20 = fmadd(x, b0, c20); c21 = fmadd(x, b1, c21);                 \
        x = set1(a3[o]); c30 = fmadd(x, b0, c30); c31 = fmadd(x, b1, c31);                 \
        x = set1(a4[o]); c40 = fmadd(x, b0, c40); c41 = fmadd(x, b1, c41);                 \
        x = set1(a5[o]); c50 = fmadd(x, b0, c50); c51 = fmadd(x, b1, c51);                 \
    } while (0)
static void fgl__micro(int kc, const float *a, ptrdiff_t rs, ptrdiff_t ps, int mr, const float *FGL__RESTRICT b,
                       ptrdiff_t bs, float *FGL__RESTRICT c, int ldc, int nr, float alpha, int first, float beta,
                       const float *bias, int relu) {
    float flat[FGL__MR * FGL__NR];
    const float *a0 = a, *a1 = a + (mr > 1 ? rs : 0), *a2 = a + (mr > 2 ? 2 * rs : 0);
    const float *a3 = a + (mr > 3 ? 3 * rs : 0), *a4 = a + (mr > 4 ? 4 * rs : 0), *a5 = a + (mr > 5 ? 5 * rs : 0);
    int p, full = mr == FGL__MR && nr == FGL__NR && (!first || beta == 0.0f || bias);
#if defined(__AVX512F__)
    /* 6 x 32: twelve 16-wide accumulators */
    __m512 c00 = _mm512_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m512 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    for (p = 0; p < kc; p++) {
        ptrdiff_t o = p * ps;
        __m512 b0 = _mm512_loadu_ps(b + p * bs), b1 = _mm512_loadu_ps(b + p * bs + 16), x;
        FGL__SIX_ROWS(_mm512_set1_ps, _mm512_fmadd_ps);
    }
    {
        __m512 acc[12], al = _mm512_set1_ps(alpha);
        int q;
        acc[0] = c00; acc[1] = c01; acc[2] = c10; acc[3] = c11; acc[4] = c20; acc[5] = c21;
        acc[6] = c30; acc[7] = c31; acc[8] = c40; acc[9] = c41; acc[10] = c50; acc[11] = c51;
        if (full) {
            for (q = 0; q < 12; q++) {
                float *cq = c + (size_t)(q / 2) * ldc + (q % 2) * 16;
                __m512 v = _mm512_mul_ps(al, acc[q]);
                if (first && bias) v = _mm512_add_ps(v, _mm512_loadu_ps(bias + (q % 2) * 16));
                if (!first) v = _mm512_add_ps(_mm512_loadu_ps(cq), v);
                if (relu) /* v > 0 ? v : +0 (NaN: +0), as fgl__relu_rows */
                    v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_GT_OQ), v);
                _mm512_storeu_ps(cq, v);
            }
            return;
        }
        for (q = 0; q < 12; q++) _mm512_storeu_ps(flat + (q / 2) * FGL__NR + (q % 2) * 16, acc[q]);
    }
#else
    /* AVX2 has 16 vector registers: the 32 columns in two halves of 16 */
    int h;
    for (h = 0; h < 2; h++) {
        const float *bh = b + h * 16;
        __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
        __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
        __m256 acc[12];
        int q;
        for (p = 0; p < kc; p++) {
            ptrdiff_t o = p * ps;
            __m256 b0 = _mm256_loadu_ps(bh + p * bs), b1 = _mm256_loadu_ps(bh + p * bs + 8), x;
            FGL__SIX_ROWS(_mm256_set1_ps, _mm256_fmadd_ps);
        }
        acc[0] = c00; acc[1] = c01; acc[2] = c10; acc[3] = c11; acc[4] = c20; acc[5] = c21;
        acc[6] = c30; acc[7] = c31; acc[8] = c40; acc[9] = c41; acc[10] = c50; acc[11] = c51;
        for (q = 0; q < 12; q++) _mm256_storeu_ps(flat + (q / 2) * FGL__NR + h * 16 + (q % 2) * 8, acc[q]);
    }
    (void)full;
#endif
    fgl__store_tile(flat, c, ldc, mr, nr, alpha, first, beta, bias);
    if (relu) fgl__relu_rows(c, ldc, mr, nr);
}
#else
static void fgl__micro(int kc, const float *a, ptrdiff_t rs, ptrdiff_t ps, int mr, const float *FGL__RESTRICT b,
                       ptrdiff_t bs, float *FGL__RESTRICT c, int ldc, int nr, float alpha, int first, float beta,
                       const float *bias, int relu) {
    float acc[FGL__MR][FGL__NR];
    const float *ar[FGL__MR];
    int p, i, j;
    memset(acc, 0, sizeof acc);
    for (i = 0; i < FGL__MR; i++) ar[i] = a + (i < mr ? i * rs : 0);
    for (p = 0; p < kc; p++) {
        const float *bp = b + p * bs;
        for (i = 0; i < FGL__MR; i++) {
            float av = ar[i][p * ps];
            for (j = 0; j < FGL__NR; j++) acc[i][j] += av * bp[j];
        }
    }
    fgl__store_tile(&acc[0][0], c, ldc, mr, nr, alpha, first, beta, bias);
    if (relu) fgl__relu_rows(c, ldc, mr, nr);
}
#endif

/* The plain triple loop, for when the packing buffers cannot be allocated. */
static void fgl__gemm_plain(int trans_a, int trans_b, int m, int n, int k, float alpha, const float *A, int lda,
                            const float *B, int ldb, float beta, float *C, int ldc) {
    int i, j, p;
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++) {
            float s = 0.0f, *cij = C + (size_t)i * (size_t)ldc + j;
            for (p = 0; p < k; p++) {
                float av = trans_a ? A[(size_t)p * lda + i] : A[(size_t)i * lda + p];
                float bv = trans_b ? B[(size_t)j * ldb + p] : B[(size_t)p * ldb + j];
                s += av * bv;
            }
            *cij = (beta == 0.0f ? 0.0f : beta * *cij) + alpha * s;
        }
}

/* Whether panel jr of op(B) is read in place rather than packed: B not
 * transposed (a row of the panel is NR neighbouring values) and the panel
 * full (a packed edge panel is padded with zeros). Packing would only copy
 * what the kernel can stream as it is. */
static int fgl__b_in_place(int trans_b, int n, int jr) { return !trans_b && n - jr * FGL__NR >= FGL__NR; }

/* One tile of C: rows i0 .. i0+mc-1, column panels jr_lo .. jr_hi-1, over all
 * of k in blocks of KC (so each element is summed in increasing k order).
 * bfull: all of op(B) packed, block after block of k, each block n_jr
 * panels of kc x NR (NULL: this tile packs its panels into bpack). relu:
 * each element clamped at 0 once its last block of k is in. */
static void fgl__gemm_tile(int trans_a, int trans_b, int n, int k, float alpha, const float *A, int lda,
                           const float *B, int ldb, float beta, float *C, int ldc, int i0, int mc, int jr_lo,
                           int jr_hi, const float *bfull, float *bpack, const float *bias, int relu) {
    int pc, jr, ir, n_jr = (n + FGL__NR - 1) / FGL__NR;
    ptrdiff_t rs = trans_a ? 1 : lda, ps = trans_a ? lda : 1;
    for (pc = 0; pc < k; pc += FGL__KC) {
        int kc = FGL__MIN(FGL__KC, k - pc);
        const float *bblk = bpack;
        if (bfull) {
            bblk = bfull + (size_t)pc * FGL__NR * (size_t)n_jr + (size_t)jr_lo * FGL__NR * (size_t)kc;
        } else {
            for (jr = jr_lo; jr < jr_hi; jr++)
                if (!fgl__b_in_place(trans_b, n, jr))
                    fgl__pack_b(trans_b, B, ldb, pc, kc, jr * FGL__NR, FGL__MIN(FGL__NR, n - jr * FGL__NR),
                                bpack + (size_t)(jr - jr_lo) * FGL__NR * kc);
        }
        for (jr = jr_lo; jr < jr_hi; jr++) {
            /* op(B)'s panel: packed, or (B not transposed, all NR columns there) read where it lies */
            int in_place = !bfull && fgl__b_in_place(trans_b, n, jr);
            const float *bp =
                in_place ? B + (size_t)pc * ldb + (size_t)jr * FGL__NR : bblk + (size_t)(jr - jr_lo) * FGL__NR * kc;
            ptrdiff_t bs = in_place ? ldb : FGL__NR;
            for (ir = 0; ir < mc; ir += FGL__MR) {
                const float *a =
                    A + (trans_a ? (size_t)pc * lda + (size_t)(i0 + ir) : (size_t)(i0 + ir) * lda + (size_t)pc);
                float *c = C + (size_t)(i0 + ir) * ldc + (size_t)jr * FGL__NR;
                int mr = FGL__MIN(FGL__MR, mc - ir), nr = FGL__MIN(FGL__NR, n - jr * FGL__NR);
                fgl__micro(kc, a, rs, ps, mr, bp, bs, c, ldc, nr, alpha, pc == 0, beta,
                           bias ? bias + (size_t)jr * FGL__NR : NULL, relu && pc + kc == k);
            }
        }
    }
}

/* A product with a small C (at most FGL__MC rows, FGL__KSPLIT_N columns)
 * over a long k, on several threads: a layer's weight gradient x^T dy over
 * a batch's rows. Tiled, C has too few tiles to share and every tile reads
 * every row of A and B, rows the op before (split by rows) left half in the
 * other core's cache. Here each block of FGL__KC steps of k gets its own
 * partial product (blocks shared among the threads in contiguous runs: a
 * thread reads the rows it likely wrote), then the partials are added into
 * C block after block, in the tiled product's order. With alpha 1 and beta
 * 0 or 1 (the only calls it takes: every call fgl makes) each partial is
 * the tile's sum exactly and each addition the tile's, so the bits are the
 * tiled product's, whatever the threads. Blocks go FGL__KSPLIT_G at a time
 * (a bounded buffer). Returns 0, nothing done, when the buffer cannot be
 * had. */
#define FGL__KSPLIT_N 128
#define FGL__KSPLIT_G 64

/* p moved up to the start of a cache line (at most 15 floats on): the
 * packing buffers' floats are read 16 at a time, and a 64-byte load that
 * straddles two lines costs two. Buffers are allocated 16 floats longer. */
static float *fgl__line(float *p) { return (float *)(((uintptr_t)p + 63) & ~(uintptr_t)63); }

/* The partial product of the block of FGL__KC steps of k from pc, an m x n
 * matrix stored as is in part (row stride ldp). bpack: KC x NR floats per
 * column panel of op(B), for the panels that are packed. */
static void fgl__ksplit_part(int trans_a, int trans_b, int m, int n, int k, const float *A, int lda, const float *B,
                             int ldb, int pc, float *part, int ldp, float *bpack) {
    int kc = FGL__MIN(FGL__KC, k - pc);
    fgl__gemm_tile(trans_a, trans_b, n, kc, 1.0f, trans_a ? A + (size_t)pc * lda : A + pc, lda,
                   trans_b ? B + pc : B + (size_t)pc * ldb, ldb, 0.0f, part, ldp, 0, m, 0, (n + FGL__NR - 1) / FGL__NR,
                   NULL, bpack, NULL, 0);
}

/* A row ci of C and its row of nb partials (the first at p, the others
 * every blk floats), blocks b0 .. b0+nb-1 of the product: the partials
 * added in order, as the tiled product adds a block; block 0 stored as the
 * tile stores it (beta 0 or 1; with a bias, 0). */
static void fgl__ksplit_row(float *FGL__RESTRICT ci, int n, const float *p, size_t blk, int b0, int nb, float beta,
                            const float *bias) {
    int b, j;
    for (b = 0; b < nb; b++) {
        const float *FGL__RESTRICT ai = p + blk * (size_t)b;
        if (b0 + b > 0 || (beta == 1.0f && !bias)) {
            for (j = 0; j < n; j++) ci[j] += ai[j];
        } else if (bias) {
            for (j = 0; j < n; j++) ci[j] = ai[j] + bias[j];
        } else {
            for (j = 0; j < n; j++) ci[j] = ai[j];
        }
    }
}

static int fgl__gemm_ksplit(int trans_a, int trans_b, int m, int n, int k, const float *A, int lda, const float *B,
                            int ldb, float beta, float *C, int ldc, const float *bias, int relu, int nthreads) {
    int n_pc = (k + FGL__KC - 1) / FGL__KC, n_jr = (n + FGL__NR - 1) / FGL__NR, ldp = (n + 15) / 16 * 16, b0;
    size_t blk = (size_t)m * (size_t)ldp, bpack = (size_t)FGL__KC * FGL__NR * (size_t)n_jr;
    float *raw, *buf, *part;
    raw = (float *)FGL_MALLOC(sizeof(float) * (blk * FGL__MIN(n_pc, FGL__KSPLIT_G) + bpack * (size_t)nthreads + 16));
    if (!raw) return 0;
    buf = fgl__line(raw);
    part = buf + bpack * (size_t)nthreads; /* bpack: a multiple of 16 floats */
    for (b0 = 0; b0 < n_pc; b0 += FGL__KSPLIT_G) {
        int nb = FGL__MIN(FGL__KSPLIT_G, n_pc - b0);
#ifdef _OPENMP
#pragma omp parallel num_threads(nthreads) if (nthreads > 1)
#endif
        {
            int b, i, t = 0;
#ifdef _OPENMP
            t = omp_get_thread_num();
#pragma omp for schedule(static)
#endif
            for (b = 0; b < nb; b++)
                fgl__ksplit_part(trans_a, trans_b, m, n, k, A, lda, B, ldb, (b0 + b) * FGL__KC, part + blk * (size_t)b,
                                 ldp, buf + bpack * (size_t)t);
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
            for (i = 0; i < m; i++) {
                float *ci = C + (size_t)i * (size_t)ldc;
                fgl__ksplit_row(ci, n, part + (size_t)i * ldp, blk, b0, nb, beta, bias);
                if (relu && b0 + nb == n_pc) fgl__relu_rows(ci, ldc, 1, n); /* the row is finished */
            }
        }
    }
    FGL_FREE(raw);
    return 1;
}

/* Where row block ic of n_ic over m rows starts: ic m / n_ic rounded down
 * to a multiple of FGL__MR (the last block ends at m). */
#define FGL__ROW_CUT(ic, m, n_ic) \
    ((ic) >= (n_ic) ? (m) : (int)((long long)(ic) * (m) / (n_ic) / FGL__MR * FGL__MR))

/* fgl_gemm, and with bias (a row of n floats, or NULL; beta must then be 0)
 * C = alpha op(A) op(B) + bias on every row, the bias added as each tile is
 * stored (the dense layer's x W + b without a pass to fill C first); with
 * relu, each element of C then clamped at 0 as its tile is finished (a
 * dense layer and its ReLU in one pass: fgl_op_linear_relu). */
static void fgl__gemm(int trans_a, int trans_b, int m, int n, int k, float alpha, const float *A, int lda,
                      const float *B, int ldb, float beta, float *C, int ldc, const float *bias, int relu) {
    /* C is cut into tiles of FGL__MC rows by a group of at most FGL__NG
     * column panels; a tile runs over all of k, so the threads need no
     * barrier inside the product (each one costs a scheduler time slice on
     * a busy machine). Small m gets narrower column groups so there are
     * enough tiles to share. Tiles are shared out in contiguous runs
     * (schedule(static)), so a thread gets about the rows the row loops give
     * it and reads A, and writes C, where the ops before and after it have
     * them: in its own core's cache (handing tiles out dynamically scattered
     * the rows over both cores and cost a GIN epoch 1 ms in 48 on two).
     * A small C over a long k is shared by blocks of k instead
     * (fgl__gemm_ksplit). A product is shared when it has the FLOPs or,
     * outside another parallel region (a client's thread), the memory for
     * it: a GIN's first layer (k = 3 features) moves a whole batch's
     * activations with few FLOPs. */
    enum { FGL__NG = 8 };
    int n_ic, n_jr, n_jg, tile, nthreads = 1, all_b, ksplit = 0;
    size_t bbuf, bfull_n;
    float *raw, *buf, *bfull = NULL;
    if (m <= 0 || n <= 0) return;
    if (k <= 0 || alpha == 0.0f) {
        int i, j;
        for (i = 0; i < m; i++)
            for (j = 0; j < n; j++) {
                float *cij = C + (size_t)i * (size_t)ldc + j;
                *cij = bias ? bias[j] : beta == 0.0f ? 0.0f : beta * *cij;
            }
        if (relu) fgl__relu_rows(C, ldc, m, n);
        return;
    }
#ifdef _OPENMP
    nthreads = fgl__threads((double)m * n * k, FGL_PER_THREAD_GEMM); /* the table in tensor.h */
    if (nthreads < fgl__budget())
        nthreads = FGL__MAX(nthreads, fgl__threads((double)m * n + (double)m * k + (double)k * n,
                                                   2.0 * FGL_PER_THREAD_ELEM));
    ksplit = nthreads > 1;
#endif
    if (ksplit && m <= FGL__MC && n <= FGL__KSPLIT_N && k >= 2 * FGL__KC && alpha == 1.0f &&
        (beta == 0.0f || beta == 1.0f) &&
        fgl__gemm_ksplit(trans_a, trans_b, m, n, k, A, lda, B, ldb, beta, C, ldc, bias, relu, nthreads))
        return;
    /* Row blocks of about equal height, at most FGL__MC rows on average,
     * block ic starting at row FGL__ROW_CUT(ic) (a multiple of FGL__MR),
     * and when parallel as many blocks as threads or a multiple: blocks of
     * FGL__MC and a remainder gave a weight gradient over 128 features
     * blocks of 96 and 32 rows, one thread three times the other's work. */
    n_ic = (m + FGL__MC - 1) / FGL__MC;
    if (nthreads > 1 && n_ic % nthreads && m >= 4 * FGL__MR * nthreads)
        n_ic += nthreads - n_ic % nthreads;
    n_jr = (n + FGL__NR - 1) / FGL__NR;
    n_jg = FGL__MAX((n_jr + FGL__NG - 1) / FGL__NG, FGL__MIN(n_jr, (8 + n_ic - 1) / n_ic));
    /* op(B) is packed once when it is small (a layer's weights) and several
     * row blocks would otherwise pack it again; else each tile packs its
     * own panels, block by block of k. */
    bfull_n = (size_t)k * FGL__NR * (size_t)n_jr;
    all_b = bfull_n <= FGL__BPACK_ALL && n_ic > 1;
    bbuf = all_b ? 0 : (size_t)FGL__MIN(FGL__KC, k) * FGL__NR * (size_t)((n_jr + n_jg - 1) / n_jg);
    raw = (float *)FGL_MALLOC(sizeof(float) * (bbuf * (size_t)nthreads + (all_b ? bfull_n : 0) + 16));
    buf = raw ? fgl__line(raw) : NULL; /* bbuf, bfull_n: multiples of 32 floats */
    if (!buf) {
        int i;
        if (bias) /* C starts as the bias, and the product is added */
            for (i = 0; i < m; i++) memcpy(C + (size_t)i * (size_t)ldc, bias, sizeof(float) * (size_t)n);
        fgl__gemm_plain(trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, bias ? 1.0f : beta, C, ldc);
        if (relu) fgl__relu_rows(C, ldc, m, n);
        return;
    }
    if (all_b) {
        int pc, jr;
        bfull = buf;
        for (pc = 0; pc < k; pc += FGL__KC) {
            int kc = FGL__MIN(FGL__KC, k - pc);
            for (jr = 0; jr < n_jr; jr++)
                fgl__pack_b(trans_b, B, ldb, pc, kc, jr * FGL__NR, FGL__MIN(FGL__NR, n - jr * FGL__NR),
                            bfull + (size_t)pc * FGL__NR * (size_t)n_jr + (size_t)jr * FGL__NR * (size_t)kc);
        }
    }
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(nthreads) if (nthreads > 1)
#endif
    for (tile = 0; tile < n_ic * n_jg; tile++) {
        int ic = tile / n_jg, jg = tile % n_jg, t = 0;
        int r0 = FGL__ROW_CUT(ic, m, n_ic), r1 = FGL__ROW_CUT(ic + 1, m, n_ic);
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        fgl__gemm_tile(trans_a, trans_b, n, k, alpha, A, lda, B, ldb, beta, C, ldc, r0, r1 - r0,
                       n_jr * jg / n_jg, n_jr * (jg + 1) / n_jg, bfull,
                       buf + bbuf * (size_t)t, bias, relu);
    }
    FGL_FREE(raw);
}

FGLDEF void fgl_gemm(int trans_a, int trans_b, int m, int n, int k, float alpha, const float *A, int lda,
                     const float *B, int ldb, float beta, float *C, int ldc) {
    fgl__gemm(trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, NULL, 0);
}

FGLDEF int fgl_matmul(const fgl_tensor *A, int trans_a, const fgl_tensor *B, int trans_b,
                      fgl_tensor *C, int accumulate) {
    int m = trans_a ? A->cols : A->rows, k = trans_a ? A->rows : A->cols;
    int kb = trans_b ? B->cols : B->rows, n = trans_b ? B->rows : B->cols;
    if (k != kb || C->rows != m || C->cols != n) return FGL_ERR_SHAPE;
    fgl_gemm(trans_a, trans_b, m, n, k, 1.0f, A->data, A->cols, B->data, B->cols,
             accumulate ? 1.0f : 0.0f, C->data, C->cols);
    return FGL_OK;
}

/* --- vector kernels --------------------------------------------------------- */

FGLDEF void fgl_axpy(size_t n, float a, const float *FGL__RESTRICT x, float *FGL__RESTRICT y) {
    size_t i;
    for (i = 0; i < n; i++) y[i] += a * x[i];
}

FGLDEF void fgl_scale(size_t n, float a, float *x) {
    size_t i;
    for (i = 0; i < n; i++) x[i] *= a;
}

/* Sums use 4 double accumulators over fixed strides: fast, and the order (so
 * the result) is the same on every run and thread count. */
FGLDEF double fgl_dot(size_t n, const float *x, const float *y) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += (double)x[i] * y[i];
        s1 += (double)x[i + 1] * y[i + 1];
        s2 += (double)x[i + 2] * y[i + 2];
        s3 += (double)x[i + 3] * y[i + 3];
    }
    for (; i < n; i++) s0 += (double)x[i] * y[i];
    return (s0 + s1) + (s2 + s3);
}

FGLDEF double fgl_norm2(size_t n, const float *x) { return sqrt(fgl_dot(n, x, x)); }

FGLDEF double fgl_norm1(size_t n, const float *x) {
    double s = 0;
    size_t i;
    for (i = 0; i < n; i++) s += fabs((double)x[i]);
    return s;
}

FGLDEF double fgl_cosine(size_t n, const float *x, const float *y) {
    double nx = fgl_norm2(n, x), ny = fgl_norm2(n, y);
    if (nx == 0 || ny == 0) return 0.0;
    return fgl_dot(n, x, y) / (nx * ny);
}

FGLDEF int fgl_cosine_rows(const fgl_tensor *A, const fgl_tensor *B, float *out) {
    int i;
    if (A->rows != B->rows || A->cols != B->cols) return FGL_ERR_SHAPE;
    for (i = 0; i < A->rows; i++)
        out[i] = (float)fgl_cosine((size_t)A->cols, A->data + (size_t)i * A->cols,
                                   B->data + (size_t)i * B->cols);
    return FGL_OK;
}

FGLDEF double fgl_now(void) {
#if defined(__unix__) || defined(__APPLE__)
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
#else
    return (double)clock() / CLOCKS_PER_SEC; /* processor time: the portable fallback */
#endif
}

FGLDEF int fgl_all_finite(size_t n, const float *x) {
    /* A float is infinite or NaN when its exponent bits are all ones; the
     * bits are tested a block at a time without a branch per value, so the
     * check of a whole upload vectorises. */
    size_t i, b;
    for (b = 0; b < n; b += 1024) {
        size_t e = FGL__MIN(n, b + 1024);
        uint32_t bad = 0;
        for (i = b; i < e; i++) {
            uint32_t u;
            memcpy(&u, x + i, sizeof u);
            bad |= (uint32_t)((u & 0x7f800000u) == 0x7f800000u);
        }
        if (bad) return 0;
    }
    return 1;
}

/* --- src/core/csr.h --- */
/* --- CSR -------------------------------------------------------------------- */

FGLDEF int fgl_csr_init(fgl_csr *a, int rows, int cols, int nnz, int with_values) {
    memset(a, 0, sizeof *a);
    if (rows < 0 || cols < 0 || nnz < 0) return FGL_ERR_ARG;
    a->indptr = (int *)FGL_MALLOC(sizeof(int) * ((size_t)rows + 1));
    a->indices = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(nnz, 1));
    a->values = with_values ? (float *)FGL_MALLOC(sizeof(float) * (size_t)FGL__MAX(nnz, 1)) : NULL;
    if (!a->indptr || !a->indices || (with_values && !a->values)) {
        fgl_csr_free(a);
        return FGL_ERR_NOMEM;
    }
    memset(a->indptr, 0, sizeof(int) * ((size_t)rows + 1));
    a->rows = rows;
    a->cols = cols;
    a->nnz = nnz;
    return FGL_OK;
}

FGLDEF void fgl_csr_free(fgl_csr *a) {
    FGL_FREE(a->indptr);
    FGL_FREE(a->indices);
    FGL_FREE(a->values);
    memset(a, 0, sizeof *a);
}

FGLDEF int fgl_csr_clone(fgl_csr *dst, const fgl_csr *src) {
    int rc = fgl_csr_init(dst, src->rows, src->cols, src->nnz, src->values != NULL);
    if (rc) return rc;
    memcpy(dst->indptr, src->indptr, sizeof(int) * ((size_t)src->rows + 1));
    if (src->nnz) memcpy(dst->indices, src->indices, sizeof(int) * (size_t)src->nnz);
    if (src->values && src->nnz) memcpy(dst->values, src->values, sizeof(float) * (size_t)src->nnz);
    return FGL_OK;
}

FGLDEF int fgl_csr_from_coo(int rows, int cols, int nnz, const int *r, const int *c,
                            const float *v, int sum_dup, fgl_csr *out, fgl_error *err) {
    /* Two stable counting sorts, by column and then by row, order the entries
     * by (row, col) in O(nnz + rows + cols) whatever the degree distribution
     * (an insertion sort per row is quadratic in a hub's degree); stability
     * keeps duplicates in input order, so "the first value" is the first
     * given. The second sort scatters straight into the result, duplicates
     * are merged in place and the arrays trimmed: besides the result the
     * scratch is one int per entry plus the counts. (Every edge list of
     * fgl_graph.h becomes a CSR here, generated graphs of 10^8 entries too.) */
    int *cnt = NULL, *ccnt = NULL, *bycol = NULL, i, rc, w;
    fgl_csr m;
    memset(out, 0, sizeof *out);
    memset(&m, 0, sizeof m);
    if (rows < 0 || cols < 0 || nnz < 0)
        return fgl_error_set(err, FGL_ERR_ARG, "csr_from_coo: negative size");
    if (nnz > 0 && (!r || !c)) return fgl_error_set(err, FGL_ERR_ARG, "csr_from_coo: coordinates are NULL");
    for (i = 0; i < nnz; i++)
        if (r[i] < 0 || r[i] >= rows || c[i] < 0 || c[i] >= cols)
            return fgl_error_set(err, FGL_ERR_RANGE,
                                 "csr_from_coo: entry %d (%d, %d) outside a %d x %d matrix", i,
                                 r[i], c[i], rows, cols);
    cnt = (int *)FGL_MALLOC(sizeof(int) * ((size_t)rows + 2));
    ccnt = (int *)FGL_MALLOC(sizeof(int) * ((size_t)cols + 1));
    bycol = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(nnz, 1));
    rc = cnt && ccnt && bycol ? fgl_csr_init(&m, rows, cols, nnz, v != NULL || sum_dup) : FGL_ERR_NOMEM;
    if (rc) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "csr_from_coo: out of memory (%d entries)", nnz);
        goto done;
    }
    /* pass 1: entry ids ordered by column */
    memset(ccnt, 0, sizeof(int) * ((size_t)cols + 1));
    for (i = 0; i < nnz; i++) ccnt[c[i] + 1]++;
    for (i = 0; i < cols; i++) ccnt[i + 1] += ccnt[i];
    for (i = 0; i < nnz; i++) bycol[ccnt[c[i]]++] = i;
    /* pass 2: stably by row. Counting at r + 2 makes cnt[r + 1] row r's
     * start; the scatter advances it to row r's end, which is row r + 1's
     * start, so cnt[0..rows] ends as the row pointer. */
    memset(cnt, 0, sizeof(int) * ((size_t)rows + 2));
    for (i = 0; i < nnz; i++) cnt[r[i] + 2]++;
    for (i = 0; i < rows; i++) cnt[i + 2] += cnt[i + 1];
    for (i = 0; i < nnz; i++) {
        int e = bycol[i], p = cnt[r[e] + 1]++;
        m.indices[p] = c[e];
        if (m.values) m.values[p] = v ? v[e] : 1.0f;
    }
    w = 0;
    for (i = 0; i < rows; i++) {
        int a = cnt[i], b = cnt[i + 1], x;
        cnt[i] = w;
        for (x = a; x < b; x++) {
            if (w > cnt[i] && m.indices[w - 1] == m.indices[x]) {
                if (sum_dup) m.values[w - 1] += m.values[x];
                continue;
            }
            m.indices[w] = m.indices[x];
            if (m.values) m.values[w] = m.values[x];
            w++;
        }
    }
    cnt[rows] = w;
    memcpy(m.indptr, cnt, sizeof(int) * ((size_t)rows + 1));
    m.nnz = w;
    if (w > 0 && w < nnz) { /* give the merged duplicates' room back (kept if that fails) */
        int *ni = (int *)FGL_REALLOC(m.indices, sizeof(int) * (size_t)w);
        if (ni) m.indices = ni;
        if (m.values) {
            float *nv = (float *)FGL_REALLOC(m.values, sizeof(float) * (size_t)w);
            if (nv) m.values = nv;
        }
    }
    *out = m;
    rc = FGL_OK;
done:
    if (rc) fgl_csr_free(&m);
    FGL_FREE(cnt);
    FGL_FREE(ccnt);
    FGL_FREE(bycol);
    return rc;
}

FGLDEF int fgl_csr_transpose(const fgl_csr *a, fgl_csr *out) {
    int i, k, rc = fgl_csr_init(out, a->cols, a->rows, a->nnz, a->values != NULL);
    int *pos;
    if (rc) return rc;
    for (k = 0; k < a->nnz; k++) out->indptr[a->indices[k] + 1]++;
    for (i = 0; i < a->cols; i++) out->indptr[i + 1] += out->indptr[i];
    pos = (int *)FGL_MALLOC(sizeof(int) * ((size_t)a->cols + 1));
    if (!pos) {
        fgl_csr_free(out);
        return FGL_ERR_NOMEM;
    }
    memcpy(pos, out->indptr, sizeof(int) * ((size_t)a->cols + 1));
    for (i = 0; i < a->rows; i++) /* rows visited in order: output rows come out sorted */
        for (k = a->indptr[i]; k < a->indptr[i + 1]; k++) {
            int p = pos[a->indices[k]]++;
            out->indices[p] = i;
            if (a->values) out->values[p] = a->values[k];
        }
    FGL_FREE(pos);
    return FGL_OK;
}

FGLDEF int fgl_csr_validate(const fgl_csr *a, fgl_error *err) {
    int i, k;
    if (a->rows < 0 || a->cols < 0 || a->nnz < 0 || !a->indptr || (a->nnz && !a->indices))
        return fgl_error_set(err, FGL_ERR_ARG, "csr: missing arrays or negative size");
    if (a->indptr[0] != 0 || a->indptr[a->rows] != a->nnz)
        return fgl_error_set(err, FGL_ERR_FORMAT, "csr: indptr[0] = %d, indptr[rows] = %d, nnz = %d",
                             a->indptr[0], a->indptr[a->rows], a->nnz);
    for (i = 0; i < a->rows; i++) {
        if (a->indptr[i + 1] < a->indptr[i])
            return fgl_error_set(err, FGL_ERR_FORMAT, "csr: indptr decreases at row %d", i);
        for (k = a->indptr[i]; k < a->indptr[i + 1]; k++) {
            if (a->indices[k] < 0 || a->indices[k] >= a->cols)
                return fgl_error_set(err, FGL_ERR_RANGE, "csr: row %d has column %d of %d", i,
                                     a->indices[k], a->cols);
            if (k > a->indptr[i] && a->indices[k] <= a->indices[k - 1])
                return fgl_error_set(err, FGL_ERR_FORMAT, "csr: row %d columns not strictly increasing", i);
        }
    }
    return FGL_OK;
}

/* Sparse products gather (or scatter) one row of a dense matrix per nonzero,
 * at random: latency, not bandwidth, limits them. Asking for the row of the
 * nonzero FGL__PF_DIST ahead keeps several misses in flight (about 4x faster
 * on a 100k x 100k matrix with 1M nonzeros). A hint only: no effect on
 * results, and nothing on compilers without the builtin. */
#define FGL__PF_DIST 16
#if defined(__GNUC__) || defined(__clang__)
static void fgl__prefetch_row(const float *row, int n, int for_write) {
    const char *p = (const char *)row;
    size_t b, bytes = sizeof(float) * (size_t)n;
    for (b = 0; b < bytes; b += 64) {
        if (for_write) __builtin_prefetch(p + b, 1);
        else __builtin_prefetch(p + b, 0);
    }
}
#else
static void fgl__prefetch_row(const float *row, int n, int for_write) {
    (void)row;
    (void)n;
    (void)for_write;
}
#endif

/* Row i of Y over FGL__SPMM_W columns from j0, the partial sums in a local
 * block the compiler keeps in registers across the nonzeros (the row of Y
 * loaded and stored once, not once per nonzero); each element still starts
 * from beta y and adds v x in the nonzeros' order: the plain loop's bits. */
#define FGL__SPMM_W 64
static void fgl__spmm_row_block(const fgl_csr *a, int i, const float *X, int n, int j0, float beta,
                                const float *bias, float *FGL__RESTRICT y) {
    float acc[FGL__SPMM_W];
    int k, j, end = a->indptr[i + 1];
    if (beta == 0.0f)
        for (j = 0; j < FGL__SPMM_W; j++) acc[j] = 0.0f;
    else if (beta == 1.0f)
        for (j = 0; j < FGL__SPMM_W; j++) acc[j] = y[j];
    else
        for (j = 0; j < FGL__SPMM_W; j++) acc[j] = y[j] * beta;
    for (k = a->indptr[i]; k < end; k++) {
        const float *FGL__RESTRICT x = X + (size_t)a->indices[k] * n + j0;
        float v = a->values ? a->values[k] : 1.0f;
        if (j0 == 0 && k + FGL__PF_DIST < a->nnz) fgl__prefetch_row(X + (size_t)a->indices[k + FGL__PF_DIST] * n, n, 0);
        for (j = 0; j < FGL__SPMM_W; j++) acc[j] += v * x[j];
    }
    if (bias)
        for (j = 0; j < FGL__SPMM_W; j++) y[j] = acc[j] + bias[j];
    else
        for (j = 0; j < FGL__SPMM_W; j++) y[j] = acc[j];
}

#ifdef _OPENMP
/* The first row of part t of T when a's rows are cut into T contiguous runs
 * of about equal work (a row costs its nonzeros and one). */
static int fgl__csr_part(const fgl_csr *a, int t, int T) {
    double goal = ((double)a->nnz + a->rows) * t / T;
    int lo = 0, hi = a->rows;
    if (t >= T) return a->rows;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if ((double)a->indptr[mid] + mid < goal) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
#endif

/* Rows r0 .. r1-1 of fgl_csr_spmm, then bias (NULL: none; n values) added
 * to every row as the row is stored: the bits of adding it afterwards,
 * without the pass. */
static void fgl__csr_spmm_rows(const fgl_csr *a, const float *X, int n, float beta, const float *bias, float *Y, int r0,
                               int r1) {
    int i;
    for (i = r0; i < r1; i++) {
        float *FGL__RESTRICT y = Y + (size_t)i * n;
        int k, j, j0, nb = n - n % FGL__SPMM_W, end = a->indptr[i + 1];
        for (j0 = 0; j0 < nb; j0 += FGL__SPMM_W)
            fgl__spmm_row_block(a, i, X, n, j0, beta, bias ? bias + j0 : NULL, y + j0);
        if (nb == n) continue;
        if (beta == 0.0f) memset(y + nb, 0, sizeof(float) * (size_t)(n - nb));
        else if (beta != 1.0f)
            for (j = nb; j < n; j++) y[j] *= beta;
        for (k = a->indptr[i]; k < end; k++) {
            const float *FGL__RESTRICT x = X + (size_t)a->indices[k] * n;
            float v = a->values ? a->values[k] : 1.0f;
            if (nb == 0 && k + FGL__PF_DIST < a->nnz)
                fgl__prefetch_row(X + (size_t)a->indices[k + FGL__PF_DIST] * n, n, 0);
            for (j = nb; j < n; j++) y[j] += v * x[j];
        }
        if (bias)
            for (j = nb; j < n; j++) y[j] += bias[j];
    }
}

/* In parallel, each thread one contiguous run of rows of about equal work:
 * about the rows the row loops give it, so it reads and writes them in its
 * own core's cache (rows handed out dynamically, 64 at a time, cost a GIN
 * epoch 2 ms in 50 on two threads). */
static void fgl__csr_spmm(const fgl_csr *a, const float *X, int n, float beta, const float *bias, float *Y) {
#ifdef _OPENMP
    int nt = fgl__threads((double)a->nnz * n + (double)a->rows * n, (double)FGL_PER_THREAD_SPMM);
    if (nt > 1) {
#pragma omp parallel num_threads(nt)
        {
            int T = omp_get_num_threads(), t = omp_get_thread_num();
            fgl__csr_spmm_rows(a, X, n, beta, bias, Y, fgl__csr_part(a, t, T), fgl__csr_part(a, t + 1, T));
        }
        return;
    }
#endif
    fgl__csr_spmm_rows(a, X, n, beta, bias, Y, 0, a->rows);
}

FGLDEF void fgl_csr_spmm(const fgl_csr *a, const float *X, int n, float beta, float *Y) {
    fgl__csr_spmm(a, X, n, beta, NULL, Y);
}

FGLDEF void fgl_csr_spmm_t(const fgl_csr *a, const float *X, int n, float *Y) {
    int i, k, j;
    for (i = 0; i < a->rows; i++) {
        const float *FGL__RESTRICT x = X + (size_t)i * n;
        for (k = a->indptr[i]; k < a->indptr[i + 1]; k++) {
            float *FGL__RESTRICT y = Y + (size_t)a->indices[k] * n;
            float v = a->values ? a->values[k] : 1.0f;
            if (k + FGL__PF_DIST < a->nnz) fgl__prefetch_row(Y + (size_t)a->indices[k + FGL__PF_DIST] * n, n, 1);
            for (j = 0; j < n; j++) y[j] += v * x[j];
        }
    }
}

/* --- src/core/bytes.h --- */
/* --- bytes, readers, frames, files ------------------------------------------ */

FGLDEF void fgl_bytes_init(fgl_bytes *b) { memset(b, 0, sizeof *b); }

FGLDEF void fgl_bytes_free(fgl_bytes *b) {
    FGL_FREE(b->data);
    memset(b, 0, sizeof *b);
}

FGLDEF void fgl_bytes_put(fgl_bytes *b, const void *p, size_t n) {
    if (b->err || n == 0) return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        unsigned char *d;
        while (cap < b->len + n) cap *= 2;
        d = (unsigned char *)FGL_REALLOC(b->data, cap);
        if (!d) {
            b->err = FGL_ERR_NOMEM;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

/* Every fgl format is little-endian on every host: the low n bytes of v at
 * dst, and back. */
static void fgl__le_store(unsigned char *dst, uint64_t v, int n) {
    int i;
    for (i = 0; i < n; i++) dst[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t fgl__le_load(const unsigned char *src, int n) {
    uint64_t v = 0;
    int i;
    for (i = 0; i < n; i++) v |= (uint64_t)src[i] << (8 * i);
    return v;
}

FGLDEF void fgl_bytes_put_u32(fgl_bytes *b, uint32_t v) {
    unsigned char x[4];
    fgl__le_store(x, v, 4);
    fgl_bytes_put(b, x, 4);
}

FGLDEF void fgl_bytes_put_u64(fgl_bytes *b, uint64_t v) {
    unsigned char x[8];
    fgl__le_store(x, v, 8);
    fgl_bytes_put(b, x, 8);
}

FGLDEF void fgl_bytes_put_f32s(fgl_bytes *b, const float *x, size_t n) {
    /* Convert in blocks through a small buffer. */
    unsigned char tmp[1024];
    size_t i = 0;
    while (i < n) {
        size_t m = FGL__MIN(n - i, sizeof tmp / 4), j;
        for (j = 0; j < m; j++) {
            uint32_t u;
            memcpy(&u, x + i + j, 4);
            fgl__le_store(tmp + 4 * j, u, 4);
        }
        fgl_bytes_put(b, tmp, 4 * m);
        i += m;
    }
}

FGLDEF void fgl_bytes_put_str(fgl_bytes *b, const char *s) {
    size_t n = strlen(s);
    fgl_bytes_put_u32(b, (uint32_t)n);
    fgl_bytes_put(b, s, n);
}

FGLDEF fgl_reader fgl_reader_make(const void *data, size_t len) {
    fgl_reader r;
    r.data = (const unsigned char *)data;
    r.len = data ? len : 0;
    r.pos = 0;
    r.err = 0;
    return r;
}

FGLDEF int fgl_reader_get(fgl_reader *r, void *p, size_t n) {
    if (r->err || n > r->len - r->pos) {
        r->err = FGL_ERR_FORMAT;
        if (n) memset(p, 0, n);
        return r->err;
    }
    if (n) memcpy(p, r->data + r->pos, n);
    r->pos += n;
    return FGL_OK;
}

FGLDEF uint32_t fgl_reader_u32(fgl_reader *r) {
    unsigned char x[4];
    fgl_reader_get(r, x, 4);
    return (uint32_t)fgl__le_load(x, 4);
}

FGLDEF uint64_t fgl_reader_u64(fgl_reader *r) {
    unsigned char x[8];
    fgl_reader_get(r, x, 8);
    return fgl__le_load(x, 8);
}

FGLDEF int fgl_reader_f32s(fgl_reader *r, float *x, size_t n) {
    size_t i;
    if (r->err || n > (r->len - r->pos) / 4) {
        r->err = FGL_ERR_FORMAT;
        if (n) memset(x, 0, sizeof(float) * n); /* "returns zeros", like every reader call */
        return r->err;
    }
    for (i = 0; i < n; i++) {
        uint32_t u = (uint32_t)fgl__le_load(r->data + r->pos + 4 * i, 4);
        memcpy(x + i, &u, 4);
    }
    r->pos += 4 * n;
    return FGL_OK;
}

FGLDEF int fgl_reader_str(fgl_reader *r, char *buf, size_t cap) {
    uint32_t n = fgl_reader_u32(r);
    if (r->err || (size_t)n >= cap) {
        r->err = FGL_ERR_FORMAT;
        if (cap) buf[0] = 0;
        return r->err;
    }
    fgl_reader_get(r, buf, n);
    buf[r->err ? 0 : n] = 0;
    return r->err;
}

FGLDEF uint64_t fgl_checksum64(const void *p, size_t n) {
    const unsigned char *s = (const unsigned char *)p;
    uint64_t h = 0xCBF29CE484222325ull;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= s[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

FGLDEF size_t fgl_file_max(void) {
    const char *e = getenv("FGL_MAX_FILE_BYTES"), *p;
    unsigned long long v = 0, unit = 1;
    if (!e) return FGL_MAX_FILE_BYTES;
    for (p = e; *p >= '0' && *p <= '9'; p++)
        if ((v = v * 10 + (unsigned long long)(*p - '0')) >= (1ull << 50)) return 0;
    if (p == e) return 0;
    if (*p == 'k' || *p == 'K') unit = 1ull << 10;
    else if (*p == 'm' || *p == 'M') unit = 1ull << 20;
    else if (*p == 'g' || *p == 'G') unit = 1ull << 30;
    if (unit > 1) p++;
    if (*p || v == 0) return 0;
    if (v >= (unsigned long long)((size_t)-1 / 2) / unit) return (size_t)-1 / 2; /* no bound, in effect */
    return (size_t)(v * unit);
}

/* The line (1-based) of byte at in buf. */
static long fgl__line_of(const unsigned char *buf, size_t at) {
    long line = 1;
    size_t i;
    for (i = 0; i < at; i++) line += buf[i] == '\n';
    return line;
}

FGLDEF int fgl_file_read_bounded(const char *path, size_t max, int text, unsigned char **data, size_t *len,
                                 fgl_error *err) {
    FILE *f;
    unsigned char *buf = NULL;
    size_t n = 0, cap = 0, whole = 0, block = (size_t)1 << 20;
    long size;
    *data = NULL;
    *len = 0;
    if (max > (size_t)-1 / 2) max = (size_t)-1 / 2; /* max + 1 below must not wrap */
    if (max == 0 && (max = fgl_file_max()) == 0)
        return fgl_error_set(err, FGL_ERR_ARG, "%s: FGL_MAX_FILE_BYTES='%s' is not a byte count (a positive integer, "
                             "optionally with k, M or G)", path, getenv("FGL_MAX_FILE_BYTES"));
#if defined(__unix__) || defined(__APPLE__)
    { /* A directory opens and "seeks" to LLONG_MAX on Linux; a device or a
       * pipe may never end, and opening a FIFO blocks until a writer comes.
       * Only regular files are read, and only up to the bound. */
        struct stat st;
        int known = stat(path, &st) == 0;
        if (known && !S_ISREG(st.st_mode))
            return fgl_error_set(err, FGL_ERR_IO, "%s: not a regular file (%s)", path,
                                 S_ISDIR(st.st_mode) ? "a directory" : "a device, pipe or socket");
        if (known && st.st_size > 0 && (unsigned long long)st.st_size > (unsigned long long)max)
            return fgl_error_set(err, FGL_ERR_RANGE, "%s: %llu bytes, over the bound of %llu bytes on one file "
                                 "(FGL_MAX_FILE_BYTES; set it higher to read this file)", path,
                                 (unsigned long long)st.st_size, (unsigned long long)max);
    }
#endif
    f = fopen(path, "rb");
    if (!f) return fgl_error_set(err, FGL_ERR_IO, "%s: cannot open for reading", path);
    /* The buffer is sized from the file's length (no copies at every
     * doubling), +1 so reaching the end needs no growth, once its first
     * block has been read and checked: a text file of zeros fails holding
     * 1 MiB, not its length. A length beyond the bound is refused (a
     * directory on a system without stat above reports a huge one). A file
     * that grows while it is read still works, up to the bound: the buffer
     * then doubles. */
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        if ((unsigned long)size > max) {
            fclose(f);
            return fgl_error_set(err, FGL_ERR_RANGE, "%s: %ld bytes, over the bound of %llu bytes on one file "
                                 "(FGL_MAX_FILE_BYTES; set it higher to read this file)", path, size,
                                 (unsigned long long)max);
        }
        whole = (size_t)size + 1;
    } else {
        clearerr(f);
        rewind(f);
    }
    for (;;) { /* blocks of at most 1 MiB, each checked as it comes */
        size_t got, want;
        if (n == cap) {
            size_t nc = whole > cap ? (cap == 0 && whole > block ? block : whole) : cap ? cap * 2 : 65536;
            unsigned char *nb;
            if (n > max) {
                FGL_FREE(buf);
                fclose(f);
                return fgl_error_set(err, FGL_ERR_RANGE, "%s: more than the bound of %llu bytes on one file "
                                     "(FGL_MAX_FILE_BYTES; set it higher to read this file)", path,
                                     (unsigned long long)max);
            }
            if (nc > max + 1) nc = max + 1; /* > n: n <= max here */
            nb = (unsigned char *)FGL_REALLOC(buf, nc);
            if (!nb) {
                FGL_FREE(buf);
                fclose(f);
                return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory reading %llu bytes", path,
                                     (unsigned long long)nc);
            }
            buf = nb;
            cap = nc;
        }
        want = cap - n < block ? cap - n : block;
        got = fread(buf + n, 1, want, f);
        if (text && got) {
            const unsigned char *z = (const unsigned char *)memchr(buf + n, 0, got);
            if (z) {
                size_t at = (size_t)(z - buf);
                long line = fgl__line_of(buf, at);
                FGL_FREE(buf);
                fclose(f);
                return fgl_error_set(err, FGL_ERR_FORMAT, "%s:%ld: a NUL byte (at byte %llu): binary data, "
                                     "not a text file", path, line, (unsigned long long)at);
            }
        }
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        FGL_FREE(buf);
        fclose(f);
        return fgl_error_set(err, FGL_ERR_IO, "%s: read error", path);
    }
    fclose(f);
    if (n > max) {
        FGL_FREE(buf);
        return fgl_error_set(err, FGL_ERR_RANGE, "%s: more than the bound of %llu bytes on one file "
                             "(FGL_MAX_FILE_BYTES; set it higher to read this file)", path, (unsigned long long)max);
    }
    *data = buf;
    *len = n;
    return FGL_OK;
}

FGLDEF int fgl_file_read(const char *path, unsigned char **data, size_t *len, fgl_error *err) {
    return fgl_file_read_bounded(path, 0, 0, data, len, err);
}

FGLDEF int fgl_file_write(const char *path, const void *data, size_t len, fgl_error *err) {
    FILE *f = fopen(path, "wb");
    int ok;
    if (!f) return fgl_error_set(err, FGL_ERR_IO, "%s: cannot open for writing", path);
    ok = len == 0 || fwrite(data, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    return ok ? FGL_OK : fgl_error_set(err, FGL_ERR_IO, "%s: write failed", path);
}

FGLDEF void fgl_frame_begin(fgl_bytes *b, const char magic[4], uint32_t version, size_t *mark) {
    fgl_bytes_put(b, magic, 4);
    fgl_bytes_put_u32(b, version);
    *mark = b->len;
    fgl_bytes_put_u64(b, 0); /* payload length, patched by fgl_frame_end */
}

FGLDEF void fgl_frame_end(fgl_bytes *b, size_t mark) {
    uint64_t n, sum;
    if (b->err) return;
    n = (uint64_t)(b->len - mark - 8);
    fgl__le_store(b->data + mark, n, 8);
    sum = fgl_checksum64(b->data + mark, b->len - mark); /* length field + payload */
    fgl_bytes_put_u64(b, sum);
}

FGLDEF int fgl_frame_open(const void *data, size_t len, const char magic[4], uint32_t version,
                          fgl_reader *payload, const char *what, fgl_error *err) {
    fgl_reader r = fgl_reader_make(data, len);
    char m[4];
    uint32_t ver;
    uint64_t n, sum;
    if (!what) what = "buffer";
    fgl_reader_get(&r, m, 4);
    if (r.err || memcmp(m, magic, 4) != 0)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: not an fgl '%.4s' file (bad magic)", what, magic);
    ver = fgl_reader_u32(&r);
    n = fgl_reader_u64(&r);
    if (r.err) return fgl_error_set(err, FGL_ERR_FORMAT, "%s: truncated header", what);
    if (ver != version)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: format version %u, this build reads %u", what,
                             (unsigned)ver, (unsigned)version);
    if (n > len - r.pos || len - r.pos - (size_t)n < 8)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: truncated (%zu bytes, header says %llu + 8 more)",
                             what, len, (unsigned long long)n);
    if (len - r.pos - (size_t)n != 8)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: %zu trailing bytes after the payload", what,
                             len - r.pos - (size_t)n - 8);
    {
        fgl_reader tail = fgl_reader_make((const unsigned char *)data + r.pos + n, 8);
        sum = fgl_reader_u64(&tail);
    }
    if (sum != fgl_checksum64((const unsigned char *)data + 8, (size_t)n + 8))
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: checksum mismatch (corrupted)", what);
    *payload = fgl_reader_make((const unsigned char *)data + r.pos, (size_t)n);
    return FGL_OK;
}

/* --- src/core/params.h --- */
/* --- parameter sets --------------------------------------------------------- */

FGLDEF void fgl_params_init(fgl_params *ps) { memset(ps, 0, sizeof *ps); }

FGLDEF void fgl_params_free(fgl_params *ps) {
    FGL_FREE(ps->slices);
    FGL_FREE(ps->order);
    FGL_FREE(ps->data);
    FGL_FREE(ps->grad);
    memset(ps, 0, sizeof *ps);
}

FGLDEF size_t fgl_slice_size(const fgl_slice *s) { return (size_t)s->rows * (size_t)s->cols; }

/* Memory placement key of a tag set: the lowest bit first, then the set. */
static uint64_t fgl__slice_key(unsigned groups) {
    unsigned low = 0;
    while (low < 31 && !(groups & (1u << low))) low++;
    return ((uint64_t)low << 32) | groups;
}

FGLDEF int fgl_params_add(fgl_params *ps, const char *name, int rows, int cols,
                          unsigned groups, int trainable) {
    fgl_slice *s;
    size_t n = (size_t)(rows > 0 ? rows : 0) * (size_t)(cols > 0 ? cols : 0), total, at = 0, tail;
    uint64_t key;
    float *d, *g;
    int i, pos = 0;
    if (rows <= 0 || cols <= 0 || !name || strlen(name) >= FGL_SLICE_NAME_LEN) return FGL_ERR_ARG;
    if (fgl_params_find(ps, name) >= 0) return FGL_ERR_ARG;
    groups = groups ? groups : (unsigned)FGL_G_OTHER;
    if (ps->n == ps->cap) {
        int cap = ps->cap ? 2 * ps->cap : 8;
        fgl_slice *ns = (fgl_slice *)FGL_REALLOC(ps->slices, sizeof(fgl_slice) * (size_t)cap);
        int *no;
        if (!ns) return FGL_ERR_NOMEM;
        ps->slices = ns;
        no = (int *)FGL_REALLOC(ps->order, sizeof(int) * (size_t)cap);
        if (!no) return FGL_ERR_NOMEM; /* slices grew; cap and n unchanged: still consistent */
        ps->order = no;
        ps->cap = cap;
    }
    total = ps->size + n;
    d = (float *)FGL_REALLOC(ps->data, sizeof(float) * total);
    if (!d) return FGL_ERR_NOMEM;
    ps->data = d;
    g = (float *)FGL_REALLOC(ps->grad, sizeof(float) * total);
    if (!g) return FGL_ERR_NOMEM; /* data grew; size unchanged, so the set is consistent */
    ps->grad = g;
    /* the new slice goes after every slice whose key is not larger */
    key = fgl__slice_key(groups);
    while (pos < ps->n && fgl__slice_key(ps->slices[ps->order[pos]].groups) <= key) {
        const fgl_slice *o = &ps->slices[ps->order[pos]];
        at = o->offset + fgl_slice_size(o);
        pos++;
    }
    tail = ps->size - at;
    if (tail) {
        memmove(ps->data + at + n, ps->data + at, sizeof(float) * tail);
        memmove(ps->grad + at + n, ps->grad + at, sizeof(float) * tail);
    }
    for (i = pos; i < ps->n; i++) ps->slices[ps->order[i]].offset += n;
    memmove(ps->order + pos + 1, ps->order + pos, sizeof(int) * (size_t)(ps->n - pos));
    ps->order[pos] = ps->n;
    memset(ps->data + at, 0, sizeof(float) * n);
    memset(ps->grad + at, 0, sizeof(float) * n);
    s = &ps->slices[ps->n];
    memset(s, 0, sizeof *s);
    strcpy(s->name, name);
    s->offset = at;
    s->rows = rows;
    s->cols = cols;
    s->groups = groups;
    s->trainable = trainable != 0;
    ps->size = total;
    return ps->n++;
}

FGLDEF int fgl_params_find(const fgl_params *ps, const char *name) {
    int i;
    for (i = 0; i < ps->n; i++)
        if (strcmp(ps->slices[i].name, name) == 0) return i;
    return -1;
}

FGLDEF float *fgl_params_data(const fgl_params *ps, int slice) {
    FGL_ASSERT(slice >= 0 && slice < ps->n);
    return ps->data + ps->slices[slice].offset;
}

FGLDEF float *fgl_params_gradp(const fgl_params *ps, int slice) {
    FGL_ASSERT(slice >= 0 && slice < ps->n);
    return ps->grad + ps->slices[slice].offset;
}

FGLDEF int fgl_params_clone(fgl_params *dst, const fgl_params *src) {
    fgl_params tmp;
    fgl_params_init(&tmp);
    if (src->n) {
        tmp.slices = (fgl_slice *)FGL_MALLOC(sizeof(fgl_slice) * (size_t)src->n);
        tmp.order = (int *)FGL_MALLOC(sizeof(int) * (size_t)src->n);
        tmp.data = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(src->size, 1));
        tmp.grad = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(src->size, 1));
        if (!tmp.slices || !tmp.order || !tmp.data || !tmp.grad) {
            fgl_params_free(&tmp);
            return FGL_ERR_NOMEM;
        }
        memcpy(tmp.slices, src->slices, sizeof(fgl_slice) * (size_t)src->n);
        memcpy(tmp.order, src->order, sizeof(int) * (size_t)src->n);
        memcpy(tmp.data, src->data, sizeof(float) * src->size);
        tmp.n = tmp.cap = src->n;
        tmp.size = src->size;
        fgl_params_zero_grad(&tmp); /* written zeros: none left unset */
    }
    { /* free dst's old buffers after copying: dst may be src itself */
        fgl_params old = *dst;
        *dst = tmp;
        fgl_params_free(&old);
    }
    return FGL_OK;
}

FGLDEF int fgl_params_same_layout(const fgl_params *a, const fgl_params *b) {
    int i;
    if (a->n != b->n || a->size != b->size) return 0;
    for (i = 0; i < a->n; i++) {
        const fgl_slice *x = &a->slices[i], *y = &b->slices[i];
        if (x->rows != y->rows || x->cols != y->cols || x->groups != y->groups ||
            x->offset != y->offset || strcmp(x->name, y->name) != 0)
            return 0;
    }
    return 1;
}

#define FGL__SELECTED(s, g) (((s)->groups & (g)) != 0)

FGLDEF int fgl_slice_selected(const fgl_slice *s, unsigned groups, unsigned except) {
    return (s->groups & groups) != 0 && (s->groups & except) == 0;
}

FGLDEF size_t fgl_params_count(const fgl_params *ps, unsigned groups) {
    return fgl_params_count_except(ps, groups, 0u);
}

FGLDEF size_t fgl_params_count_except(const fgl_params *ps, unsigned groups, unsigned except) {
    size_t n = 0;
    int i;
    for (i = 0; i < ps->n; i++)
        if (fgl_slice_selected(&ps->slices[i], groups, except)) n += fgl_slice_size(&ps->slices[i]);
    return n;
}

FGLDEF int fgl_params_copy(fgl_params *dst, const fgl_params *src, unsigned groups) {
    int i;
    if (!fgl_params_same_layout(dst, src)) return FGL_ERR_SHAPE;
    for (i = 0; i < dst->n; i++) {
        const fgl_slice *s = &dst->slices[i];
        if (FGL__SELECTED(s, groups))
            memcpy(dst->data + s->offset, src->data + s->offset, sizeof(float) * fgl_slice_size(s));
    }
    return FGL_OK;
}

FGLDEF void fgl_params_zero(fgl_params *ps, unsigned groups) {
    int i;
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *s = &ps->slices[i];
        if (FGL__SELECTED(s, groups)) memset(ps->data + s->offset, 0, sizeof(float) * fgl_slice_size(s));
    }
}

FGLDEF void fgl_params_zero_grad(fgl_params *ps) {
    int i;
    if (ps->size) memset(ps->grad, 0, sizeof(float) * ps->size);
    for (i = 0; i < ps->n; i++) ps->slices[i].grad_unset = 0;
}

FGLDEF void fgl_params_defer_zero_grad(fgl_params *ps) {
    int i;
    for (i = 0; i < ps->n; i++) ps->slices[i].grad_unset = ps->slices[i].trainable;
}

FGLDEF void fgl_params_settle_grad(fgl_params *ps) {
    int i;
    for (i = 0; i < ps->n; i++) {
        fgl_slice *s = &ps->slices[i];
        if (s->grad_unset) memset(ps->grad + s->offset, 0, sizeof(float) * fgl_slice_size(s));
        s->grad_unset = 0;
    }
}

FGLDEF int fgl_params_axpy(fgl_params *y, float a, const fgl_params *x, unsigned groups) {
    int i;
    if (!fgl_params_same_layout(y, x)) return FGL_ERR_SHAPE;
    for (i = 0; i < y->n; i++) {
        const fgl_slice *s = &y->slices[i];
        if (FGL__SELECTED(s, groups)) fgl_axpy(fgl_slice_size(s), a, x->data + s->offset, y->data + s->offset);
    }
    return FGL_OK;
}

FGLDEF void fgl_params_scale(fgl_params *ps, float a, unsigned groups) {
    int i;
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *s = &ps->slices[i];
        if (FGL__SELECTED(s, groups)) fgl_scale(fgl_slice_size(s), a, ps->data + s->offset);
    }
}

FGLDEF double fgl_params_dot(const fgl_params *a, const fgl_params *b, unsigned groups) {
    double sum = 0;
    int i;
    FGL_ASSERT(fgl_params_same_layout(a, b));
    for (i = 0; i < a->n; i++) {
        const fgl_slice *s = &a->slices[i];
        if (FGL__SELECTED(s, groups)) sum += fgl_dot(fgl_slice_size(s), a->data + s->offset, b->data + s->offset);
    }
    return sum;
}

FGLDEF double fgl_params_norm(const fgl_params *ps, unsigned groups) {
    return sqrt(fgl_params_dot(ps, ps, groups));
}

FGLDEF int fgl_params_ranges(const fgl_params *ps, unsigned groups, int trainable_only, fgl_range *out, int max) {
    int i, k = 0;
    size_t end = 0;
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *s = &ps->slices[ps->order[i]];
        if (!FGL__SELECTED(s, groups) || (trainable_only && !s->trainable)) continue;
        if (k > 0 && s->offset == end) { /* continues the previous run */
            if (out && k <= max) out[k - 1].len += fgl_slice_size(s);
        } else {
            if (out && k < max) {
                out[k].offset = s->offset;
                out[k].len = fgl_slice_size(s);
            }
            k++;
        }
        end = s->offset + fgl_slice_size(s);
    }
    return k;
}

/* Copy the selected slices between a set's buffer and a packed vector, one
 * memcpy per run of contiguous slices. */
static size_t fgl__pack(const fgl_params *ps, unsigned groups, unsigned except, float *buf, float *vec, int to_vec) {
    size_t n = 0, start = 0, len = 0;
    int i;
    for (i = 0; i <= ps->n; i++) {
        const fgl_slice *s = i < ps->n ? &ps->slices[ps->order[i]] : NULL;
        int sel = s && fgl_slice_selected(s, groups, except);
        if (sel && len && s->offset == start + len) {
            len += fgl_slice_size(s);
            continue;
        }
        if (len) {
            if (to_vec) memcpy(vec + n, buf + start, sizeof(float) * len);
            else memcpy(buf + start, vec + n, sizeof(float) * len);
            n += len;
        }
        len = 0;
        if (sel) {
            start = s->offset;
            len = fgl_slice_size(s);
        }
    }
    return n;
}

FGLDEF size_t fgl_params_pack(const fgl_params *ps, unsigned groups, float *out) {
    return fgl__pack(ps, groups, 0u, ps->data, out, 1);
}

FGLDEF size_t fgl_params_pack_grad(const fgl_params *ps, unsigned groups, float *out) {
    return fgl__pack(ps, groups, 0u, ps->grad, out, 1);
}

FGLDEF size_t fgl_params_unpack(fgl_params *ps, unsigned groups, const float *in) {
    return fgl__pack(ps, groups, 0u, ps->data, (float *)in, 0);
}

FGLDEF size_t fgl_params_pack_except(const fgl_params *ps, unsigned groups, unsigned except, float *out) {
    return fgl__pack(ps, groups, except, ps->data, out, 1);
}

FGLDEF size_t fgl_params_unpack_except(fgl_params *ps, unsigned groups, unsigned except, const float *in) {
    return fgl__pack(ps, groups, except, ps->data, (float *)in, 0);
}

FGLDEF void fgl_params_fill(fgl_params *ps, int slice, float v) {
    float *p = fgl_params_data(ps, slice);
    size_t i, n = fgl_slice_size(&ps->slices[slice]);
    for (i = 0; i < n; i++) p[i] = v;
}

FGLDEF void fgl_params_uniform(fgl_params *ps, int slice, float lo, float hi, fgl_rng *r) {
    float *p = fgl_params_data(ps, slice);
    size_t i, n = fgl_slice_size(&ps->slices[slice]);
    for (i = 0; i < n; i++) p[i] = fgl_rng_uniformf(r, lo, hi);
}

FGLDEF void fgl_params_glorot(fgl_params *ps, int slice, fgl_rng *r) {
    const fgl_slice *s = &ps->slices[slice];
    float a = (float)sqrt(6.0 / (double)(s->rows + s->cols));
    fgl_params_uniform(ps, slice, -a, a, r);
}

FGLDEF void fgl_params_fan_in_uniform(fgl_params *ps, int slice, int fan_in, fgl_rng *r) {
    float a = (float)(1.0 / sqrt((double)FGL__MAX(fan_in, 1)));
    fgl_params_uniform(ps, slice, -a, a, r);
}

FGLDEF void fgl_params_write(const fgl_params *ps, fgl_bytes *b) {
    int i;
    fgl_bytes_put_u32(b, (uint32_t)ps->n);
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *s = &ps->slices[i];
        fgl_bytes_put_str(b, s->name);
        fgl_bytes_put_u32(b, (uint32_t)s->rows);
        fgl_bytes_put_u32(b, (uint32_t)s->cols);
        fgl_bytes_put_u32(b, s->groups);
        fgl_bytes_put_u32(b, (uint32_t)s->trainable);
    }
    fgl_bytes_put_f32s(b, ps->data, ps->size);
}

/* Read the layout into a fresh set first; only on success compare it with, or
 * install it into, ps, so a bad buffer never leaves ps half-written. With
 * whole != 0 the values must also end the reader's bytes. */
static int fgl__params_read(fgl_params *ps, fgl_reader *r, int whole, fgl_error *err) {
    fgl_params tmp;
    uint32_t n = fgl_reader_u32(r), i;
    int rc = FGL_OK;
    fgl_params_init(&tmp);
    if (r->err) return fgl_error_set(err, FGL_ERR_FORMAT, "parameters: truncated before the slice count");
    if (n > 1000000u) return fgl_error_set(err, FGL_ERR_FORMAT, "parameters: implausible slice count %u", (unsigned)n);
    for (i = 0; i < n; i++) {
        char name[FGL_SLICE_NAME_LEN];
        uint32_t rows, cols, groups, trainable;
        fgl_reader_str(r, name, sizeof name);
        rows = fgl_reader_u32(r);
        cols = fgl_reader_u32(r);
        groups = fgl_reader_u32(r);
        trainable = fgl_reader_u32(r);
        if (r->err) {
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "parameters: slice %u header truncated or malformed", (unsigned)i);
            goto fail;
        }
        if (rows == 0 || cols == 0 || rows > (1u << 30) || cols > (1u << 30) ||
            (uint64_t)rows * cols > (uint64_t)(r->len - r->pos) / 4) {
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "parameters: slice '%s' has impossible shape %u x %u", name,
                               (unsigned)rows, (unsigned)cols);
            goto fail;
        }
        if (fgl_params_add(&tmp, name, (int)rows, (int)cols, groups, (int)trainable) < 0) {
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "parameters: cannot add slice '%s' (duplicate or no memory)", name);
            goto fail;
        }
    }
    if (fgl_reader_f32s(r, tmp.data, tmp.size)) {
        rc = fgl_error_set(err, FGL_ERR_FORMAT, "parameters: values truncated (%zu floats expected)", tmp.size);
        goto fail;
    }
    if (whole && r->pos != r->len) {
        rc = fgl_error_set(err, FGL_ERR_FORMAT, "parameters: %zu unread bytes in payload", r->len - r->pos);
        goto fail;
    }
    if (ps->n == 0) {
        fgl_params_free(ps);
        *ps = tmp;
        return FGL_OK;
    }
    if (!fgl_params_same_layout(ps, &tmp)) {
        rc = fgl_error_set(err, FGL_ERR_SHAPE, "parameters: stored layout (%d slices, %zu floats) differs from "
                           "the model's (%d slices, %zu floats)", tmp.n, tmp.size, ps->n, ps->size);
        goto fail;
    }
    memcpy(ps->data, tmp.data, sizeof(float) * ps->size);
fail:
    fgl_params_free(&tmp);
    return rc;
}

FGLDEF int fgl_params_read(fgl_params *ps, fgl_reader *r, fgl_error *err) { return fgl__params_read(ps, r, 0, err); }

#define FGL__PARAMS_MAGIC "FGLP"
#define FGL__PARAMS_VERSION 2u /* 2: values in grouped memory order */

FGLDEF int fgl_params_save_mem(const fgl_params *ps, fgl_bytes *out) {
    size_t mark;
    fgl_frame_begin(out, FGL__PARAMS_MAGIC, FGL__PARAMS_VERSION, &mark);
    fgl_params_write(ps, out);
    fgl_frame_end(out, mark);
    return out->err;
}

FGLDEF int fgl_params_load_mem(fgl_params *ps, const void *data, size_t len, fgl_error *err) {
    fgl_reader r;
    int rc = fgl_frame_open(data, len, FGL__PARAMS_MAGIC, FGL__PARAMS_VERSION, &r, "parameters", err);
    if (rc) return rc;
    return fgl__params_read(ps, &r, 1, err);
}

FGLDEF int fgl_params_save(const fgl_params *ps, const char *path, fgl_error *err) {
    fgl_bytes b;
    int rc;
    fgl_bytes_init(&b);
    rc = fgl_params_save_mem(ps, &b);
    if (rc) rc = fgl_error_set(err, rc, "%s: out of memory serialising parameters", path);
    else rc = fgl_file_write(path, b.data, b.len, err);
    fgl_bytes_free(&b);
    return rc;
}

FGLDEF int fgl_params_load(fgl_params *ps, const char *path, fgl_error *err) {
    unsigned char *data;
    size_t len;
    int rc = fgl_file_read(path, &data, &len, err);
    if (rc) return rc;
    rc = fgl_params_load_mem(ps, data, len, err);
    if (rc && err) { /* prefix the file name */
        char tmp[FGL_ERROR_MSG_LEN];
        snprintf(tmp, sizeof tmp, "%s", err->msg);
        fgl_error_set(err, rc, "%s: %s", path, tmp);
    }
    FGL_FREE(data);
    return rc;
}

/* --- src/core/optim.h --- */
/* --- optimizers ------------------------------------------------------------- */

FGLDEF fgl_optim_config fgl_optim_default(int kind) {
    fgl_optim_config c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.lr = kind == FGL_SGD ? 0.01f : 1e-3f;
    c.weight_decay = kind == FGL_ADAMW ? 0.01f : 0.0f;
    c.beta1 = 0.9f;
    c.beta2 = 0.999f;
    c.eps = 1e-8f;
    return c;
}

FGLDEF int fgl_optim_init(fgl_optim *o, fgl_optim_config cfg, const fgl_params *ps) {
    size_t n = ps->size ? ps->size : 1;
    memset(o, 0, sizeof *o);
    if (cfg.kind != FGL_SGD && cfg.kind != FGL_ADAM && cfg.kind != FGL_ADAMW) return FGL_ERR_ARG;
    o->cfg = cfg;
    o->size = ps->size;
    o->m = (float *)FGL_MALLOC(sizeof(float) * n);
    o->v = (float *)FGL_MALLOC(sizeof(float) * n);
    if (!o->m || !o->v) {
        fgl_optim_free(o);
        return FGL_ERR_NOMEM;
    }
    fgl_optim_reset(o);
    return FGL_OK;
}

FGLDEF void fgl_optim_free(fgl_optim *o) {
    FGL_FREE(o->m);
    FGL_FREE(o->v);
    memset(o, 0, sizeof *o);
}

FGLDEF void fgl_optim_reset(fgl_optim *o) {
    if (o->size) {
        memset(o->m, 0, sizeof(float) * o->size);
        memset(o->v, 0, sizeof(float) * o->size);
    }
    o->t = 0;
}

FGLDEF int fgl_optim_copy(fgl_optim *dst, const fgl_optim *src) {
    if (dst->size != src->size) return FGL_ERR_SHAPE;
    dst->cfg = src->cfg;
    dst->t = src->t;
    if (src->size) {
        memcpy(dst->m, src->m, sizeof(float) * src->size);
        memcpy(dst->v, src->v, sizeof(float) * src->size);
    }
    return FGL_OK;
}

FGLDEF double fgl_params_clip_grad(fgl_params *ps, double max_norm) {
    double sq = 0, norm;
    int i;
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *s = &ps->slices[i];
        if (s->trainable) sq += fgl_dot(fgl_slice_size(s), ps->grad + s->offset, ps->grad + s->offset);
    }
    norm = sqrt(sq);
    if (max_norm > 0 && norm > max_norm) {
        float f = (float)(max_norm / (norm + 1e-6));
        for (i = 0; i < ps->n; i++) {
            const fgl_slice *s = &ps->slices[i];
            if (s->trainable) fgl_scale(fgl_slice_size(s), f, ps->grad + s->offset);
        }
    }
    return norm;
}

FGLDEF int fgl_optim_step_groups(fgl_optim *o, fgl_params *ps, unsigned groups) {
    const fgl_optim_config *c = &o->cfg;
    double bc1, bc2;
    int si;
    if (o->size != ps->size) return FGL_ERR_SHAPE;
    fgl_params_settle_grad(ps);
    if (c->clip_norm > 0) fgl_params_clip_grad(ps, c->clip_norm);
    o->t++;
    bc1 = 1.0 - pow((double)c->beta1, (double)o->t);
    bc2 = 1.0 - pow((double)c->beta2, (double)o->t);
    for (si = 0; si < ps->n; si++) {
        const fgl_slice *s = &ps->slices[si];
        float *FGL__RESTRICT w = ps->data + s->offset;
        const float *FGL__RESTRICT g = ps->grad + s->offset;
        float *FGL__RESTRICT m = o->m + s->offset;
        float *FGL__RESTRICT v = o->v + s->offset;
        size_t i, n = fgl_slice_size(s);
        if (!s->trainable || !FGL__SELECTED(s, groups)) continue;
        if (c->kind == FGL_SGD) {
            for (i = 0; i < n; i++) {
                float gi = g[i] + c->weight_decay * w[i];
                if (c->momentum != 0.0f) {
                    /* The buffer starts at zero, so its first value is the
                     * first gradient, as in PyTorch. */
                    m[i] = c->momentum * m[i] + gi;
                    gi = c->nesterov ? gi + c->momentum * m[i] : m[i];
                }
                w[i] -= c->lr * gi;
            }
        } else {
            float lr = c->lr, b1 = c->beta1, b2 = c->beta2, eps = c->eps;
            float step = (float)(lr / bc1), sb2 = (float)sqrt(bc2);
            float wd = c->kind == FGL_ADAM ? c->weight_decay : 0.0f;
            float decay = c->kind == FGL_ADAMW ? 1.0f - lr * c->weight_decay : 1.0f;
            for (i = 0; i < n; i++) {
                float gi = g[i] + wd * w[i];
                m[i] = b1 * m[i] + (1.0f - b1) * gi;
                v[i] = b2 * v[i] + (1.0f - b2) * gi * gi;
                w[i] = w[i] * decay - step * m[i] / (sqrtf(v[i]) / sb2 + eps);
            }
        }
    }
    return FGL_OK;
}

FGLDEF int fgl_optim_step(fgl_optim *o, fgl_params *ps) { return fgl_optim_step_groups(o, ps, FGL_G_ALL); }

FGLDEF void fgl_optim_write(const fgl_optim *o, fgl_bytes *b) {
    fgl_bytes_put_u32(b, (uint32_t)o->cfg.kind);
    fgl_bytes_put_u64(b, (uint64_t)o->t);
    fgl_bytes_put_u64(b, (uint64_t)o->size);
    fgl_bytes_put_f32s(b, o->m, o->size);
    fgl_bytes_put_f32s(b, o->v, o->size);
}

FGLDEF int fgl_optim_read(fgl_optim *o, fgl_reader *r, fgl_error *err) {
    uint32_t kind = fgl_reader_u32(r);
    uint64_t t = fgl_reader_u64(r), size = fgl_reader_u64(r);
    if (r->err) return fgl_error_set(err, FGL_ERR_FORMAT, "optimizer state: truncated header");
    if (size != (uint64_t)o->size || (int)kind != o->cfg.kind)
        return fgl_error_set(err, FGL_ERR_SHAPE, "optimizer state: stored kind %u size %llu, expected kind %d size %zu",
                             (unsigned)kind, (unsigned long long)size, o->cfg.kind, o->size);
    /* Check the length first so a short buffer leaves o untouched. */
    if ((r->len - r->pos) / 8 < o->size) {
        r->err = FGL_ERR_FORMAT;
        return fgl_error_set(err, FGL_ERR_FORMAT, "optimizer state: moments truncated (%zu bytes for %zu values)",
                             r->len - r->pos, o->size);
    }
    fgl_reader_f32s(r, o->m, o->size);
    fgl_reader_f32s(r, o->v, o->size);
    o->t = (int64_t)t;
    return FGL_OK;
}

/* --- src/core/tape.h --- */
/* --- autodiff: arena and tape ---------------------------------------------- */

#define FGL__ALIGN 64
#define FGL__CHUNK_MIN ((size_t)1 << 20)

struct fgl__chunk {
    fgl__chunk *prev;
    unsigned char *base;   /* FGL__ALIGN-aligned start of the usable bytes */
    size_t size, used;
};

static fgl__chunk *fgl__chunk_new(size_t size, fgl__chunk *prev) {
    fgl__chunk *c = (fgl__chunk *)FGL_MALLOC(sizeof(fgl__chunk) + size + FGL__ALIGN);
    uintptr_t p;
    if (!c) return NULL;
    p = (uintptr_t)(c + 1);
    p = (p + FGL__ALIGN - 1) & ~(uintptr_t)(FGL__ALIGN - 1);
    c->base = (unsigned char *)p;
    c->prev = prev;
    c->size = size;
    c->used = 0;
    return c;
}

FGLDEF void fgl_tape_init(fgl_tape *t) { memset(t, 0, sizeof *t); }

static void fgl__chunks_free(fgl__chunk *c) {
    while (c) {
        fgl__chunk *p = c->prev;
        FGL_FREE(c);
        c = p;
    }
}

FGLDEF void fgl_tape_free(fgl_tape *t) {
    fgl__chunks_free(t->chunk);
    FGL_FREE(t->nodes);
    FGL_FREE(t->spare);
    FGL_FREE(t->spare_bytes);
    memset(t, 0, sizeof *t);
}

FGLDEF void fgl_tape_trim(fgl_tape *t) {
    fgl_error err = t->err;
    fgl_tape_prof *prof = t->prof;
    int retain = t->retain_grads;
    fgl_tape_free(t);
    t->err = err;
    t->prof = prof;
    t->retain_grads = retain;
}

/* Profiling: the slot of op in p (a new one if unseen; the last slot
 * collects the overflow), and closing the running forward op. */
static int fgl__prof_slot(fgl_tape_prof *p, const char *op) {
    int i;
    for (i = 0; i < p->n; i++)
        if (p->op[i] == op || strcmp(p->op[i], op) == 0) return i;
    if (p->n == FGL_PROF_OPS) return FGL_PROF_OPS - 1;
    p->op[p->n] = op;
    return p->n++;
}

static void fgl__prof_close(fgl_tape *t, double now) {
    fgl_tape_prof *p = t->prof;
    if (p && p->open) {
        p->fwd[p->open - 1] += now - p->since;
        p->open = 0;
    }
}

FGLDEF void fgl_tape_reset(fgl_tape *t) {
    if (t->prof) fgl__prof_close(t, fgl_now());
    /* Several chunks mean the last step outgrew the arena: replace them by one
     * chunk big enough for everything, so steady-state steps never allocate. */
    if (t->chunk && t->chunk->prev) {
        size_t need = t->arena_total + t->arena_total / 4;
        fgl__chunks_free(t->chunk);
        t->chunk = fgl__chunk_new(FGL__MAX(need, FGL__CHUNK_MIN), NULL);
    }
    if (t->chunk) t->chunk->used = 0;
    t->arena_total = 0;
    t->n_nodes = 0;
    t->n_spare = 0;
    fgl_error_clear(&t->err);
}

FGLDEF size_t fgl_tape_reserved(const fgl_tape *t, int *chunks) {
    const fgl__chunk *c;
    size_t bytes = 0;
    int n = 0;
    for (c = t->chunk; c; c = c->prev) {
        bytes += c->size;
        n++;
    }
    if (chunks) *chunks = n;
    return bytes;
}

FGLDEF fgl_node *fgl_tape_fail(fgl_tape *t, int code, const char *fmt, ...) {
    if (t->err.code == FGL_OK) {
        va_list ap;
        t->err.code = code;
        va_start(ap, fmt);
        vsnprintf(t->err.msg, sizeof t->err.msg, fmt, ap);
        va_end(ap);
    }
    return NULL;
}

/* Uninitialised arena memory. */
static void *fgl__talloc(fgl_tape *t, size_t bytes) {
    fgl__chunk *c = t->chunk;
    void *p;
    bytes = (bytes + FGL__ALIGN - 1) & ~(size_t)(FGL__ALIGN - 1);
    if (bytes == 0) bytes = FGL__ALIGN;
    if (!c || c->size - c->used < bytes) {
        size_t sz = FGL__MAX(bytes, FGL__CHUNK_MIN);
        if (c) sz = FGL__MAX(sz, 2 * c->size);
        c = fgl__chunk_new(sz, t->chunk);
        if (!c) {
            fgl_tape_fail(t, FGL_ERR_NOMEM, "tape: out of memory allocating %zu bytes", bytes);
            return NULL;
        }
        t->chunk = c;
    }
    p = c->base + c->used;
    c->used += bytes;
    t->arena_total += bytes;
    return p;
}

FGLDEF void *fgl_tape_alloc(fgl_tape *t, size_t bytes) {
    void *p = fgl__talloc(t, bytes);
    if (p) memset(p, 0, bytes);
    return p;
}

static float *fgl__fbuf(fgl_tape *t, size_t n) { return (float *)fgl__talloc(t, sizeof(float) * n); }

/* A new node with an uninitialised value buffer, registered on the tape. It
 * needs a gradient if its op has a backward and any input needs one. */
static fgl_node *fgl__node(fgl_tape *t, const char *op, int rows, int cols, fgl_backward_fn bw,
                           fgl_node *a, fgl_node *b, fgl_node *c) {
    fgl_node *n;
    if (t->err.code) return NULL;
    if (rows < 0 || cols < 0) return fgl_tape_fail(t, FGL_ERR_SHAPE, "%s: negative shape %d x %d", op, rows, cols);
    if (t->n_nodes == t->cap_nodes) {
        int cap = t->cap_nodes ? 2 * t->cap_nodes : 256;
        fgl_node **nn = (fgl_node **)FGL_REALLOC(t->nodes, sizeof(fgl_node *) * (size_t)cap);
        if (!nn) return fgl_tape_fail(t, FGL_ERR_NOMEM, "tape: out of memory for nodes");
        t->nodes = nn;
        t->cap_nodes = cap;
    }
    n = (fgl_node *)fgl_tape_alloc(t, sizeof(fgl_node));
    if (!n) return NULL;
    n->val = fgl__fbuf(t, (size_t)rows * (size_t)cols);
    if (!n->val) return NULL;
    n->rows = rows;
    n->cols = cols;
    n->op = op;
    n->backward = bw;
    n->in[0] = a;
    n->in[1] = b;
    n->in[2] = c;
    n->needs_grad = bw && ((a && a->needs_grad) || (b && b->needs_grad) || (c && c->needs_grad));
    t->nodes[t->n_nodes++] = n;
    if (t->prof) {
        double now = fgl_now();
        int k = fgl__prof_slot(t->prof, op);
        fgl__prof_close(t, now);
        t->prof->calls[k]++;
        t->prof->open = k + 1;
        t->prof->since = now;
    }
    return n;
}

static size_t fgl__size(const fgl_node *n) { return (size_t)n->rows * (size_t)n->cols; }

/* 1 once if n is a parameter leaf whose gradient counts as zero but was not
 * written (fgl_params_defer_zero_grad); it is then the caller's to fill. */
static int fgl__claim_unset(fgl_node *n) {
    fgl_slice *s = n->param ? &n->param->slices[n->slice] : NULL;
    if (!s || !s->grad_unset) return 0;
    s->grad_unset = 0;
    return 1;
}

/* A gradient's buffer of len floats, uninitialised: the smallest spare
 * that holds it, the most recently released of those (the likeliest still
 * in cache; a layer's gradients all have the same size), its remainder
 * kept as a spare; else new arena memory. The list is short
 * (FGL__SPARES): once full, the oldest spare is dropped (left unused in
 * the arena), so a search costs little whatever the tape. */
#define FGL__SPARES 64
static float *fgl__grad_buf(fgl_tape *t, size_t len) {
    size_t bytes = (sizeof(float) * len + FGL__ALIGN - 1) & ~(size_t)(FGL__ALIGN - 1);
    int i, best = -1;
    float *p;
    for (i = t->n_spare - 1; i >= 0 && len > 0; i--)
        if (t->spare_bytes[i] >= bytes && (best < 0 || t->spare_bytes[i] < t->spare_bytes[best])) best = i;
    if (best < 0) return fgl__fbuf(t, len);
    p = t->spare[best];
    if (t->spare_bytes[best] - bytes >= FGL__ALIGN) { /* the rest stays a spare, in its place */
        t->spare[best] = (float *)((char *)p + bytes);
        t->spare_bytes[best] -= bytes;
    } else {
        for (i = best; i + 1 < t->n_spare; i++) {
            t->spare[i] = t->spare[i + 1];
            t->spare_bytes[i] = t->spare_bytes[i + 1];
        }
        t->n_spare--;
    }
    return p;
}

/* n's gradient, released once the backward pass has gone through n: its
 * buffer (arena memory, FGL__ALIGN-aligned, at least its size rounded up
 * to that) becomes a spare, unless it is empty or there is no memory for
 * the list (it then stays unused in the arena). */
static void fgl__grad_release(fgl_tape *t, fgl_node *n) {
    size_t bytes = (sizeof(float) * fgl__size(n) + FGL__ALIGN - 1) & ~(size_t)(FGL__ALIGN - 1);
    float *g = n->grad;
    int i;
    n->grad = NULL;
    if (!g || bytes == 0) return;
    if (!t->spare) {
        t->spare = (float **)FGL_MALLOC(sizeof(float *) * FGL__SPARES);
        t->spare_bytes = (size_t *)FGL_MALLOC(sizeof(size_t) * FGL__SPARES);
        if (!t->spare || !t->spare_bytes) { /* no list: the buffer simply stays where it is */
            FGL_FREE(t->spare);
            FGL_FREE(t->spare_bytes);
            t->spare = NULL;
            t->spare_bytes = NULL;
            return;
        }
    }
    if (t->n_spare == FGL__SPARES) {
        for (i = 0; i + 1 < t->n_spare; i++) {
            t->spare[i] = t->spare[i + 1];
            t->spare_bytes[i] = t->spare_bytes[i + 1];
        }
        t->n_spare--;
    }
    t->spare[t->n_spare] = g;
    t->spare_bytes[t->n_spare++] = bytes;
}

/* The gradient buffer of n, allocated (zeroed) on first use; NULL if n needs
 * no gradient. */
static float *fgl__grad(fgl_tape *t, fgl_node *n) {
    if (!n || !n->needs_grad) return NULL;
    if (!n->grad) {
        n->grad = fgl__grad_buf(t, fgl__size(n));
        if (n->grad) memset(n->grad, 0, sizeof(float) * fgl__size(n));
    } else if (fgl__claim_unset(n))
        memset(n->grad, 0, sizeof(float) * fgl__size(n));
    return n->grad;
}

/* For a backward step that will write every element of n's gradient: when n
 * has no gradient yet, uninitialised memory and *fresh = 1 (write, do not
 * add: zero-filling it first would double the memory traffic), as for a
 * parameter whose gradient is still unset; else the existing buffer and
 * *fresh = 0 (accumulate). Take it right before writing: an op whose two
 * inputs are the same node then writes, then accumulates. */
static float *fgl__grad_w(fgl_tape *t, fgl_node *n, int *fresh) {
    *fresh = 0;
    if (!n || !n->needs_grad) return NULL;
    if (!n->grad) {
        n->grad = fgl__grad_buf(t, fgl__size(n));
        *fresh = n->grad != NULL;
    } else
        *fresh = fgl__claim_unset(n);
    return n->grad;
}

/* 1 if the tape is healthy and the input exists. A NULL input without an
 * error on the tape is the caller's bug; it becomes the tape's error. */
static int fgl__live(fgl_tape *t, const char *op, const fgl_node *a) {
    if (t->err.code) return 0;
    if (!a) {
        fgl_tape_fail(t, FGL_ERR_ARG, "%s: input is NULL", op);
        return 0;
    }
    return 1;
}

#define FGL__LIVE1(op, a) \
    if (!fgl__live(t, op, a)) return NULL
#define FGL__LIVE2(op, a, b) \
    if (!fgl__live(t, op, a) || !fgl__live(t, op, b)) return NULL

static int fgl__backward(fgl_tape *t, fgl_node *loss) {
    int i;
    if (t->err.code) return t->err.code;
    if (!loss) {
        fgl_tape_fail(t, FGL_ERR_ARG, "backward: loss is NULL");
        return t->err.code;
    }
    if (loss->rows != 1 || loss->cols != 1) {
        fgl_tape_fail(t, FGL_ERR_SHAPE, "backward: loss must be 1 x 1, got %d x %d", loss->rows, loss->cols);
        return t->err.code;
    }
    if (!loss->needs_grad) return FGL_OK; /* nothing trainable reaches the loss */
    if (!fgl__grad(t, loss)) return t->err.code;
    loss->grad[0] += 1.0f;
    if (t->prof) fgl__prof_close(t, fgl_now());
    for (i = t->n_nodes - 1; i >= 0 && !t->err.code; i--) {
        fgl_node *n = t->nodes[i];
        if (n->backward && n->grad && n->needs_grad) {
            double t0 = t->prof ? fgl_now() : 0.0;
            n->backward(t, n);
            if (t->prof) t->prof->bwd[fgl__prof_slot(t->prof, n->op)] += fgl_now() - t0;
            if (!t->retain_grads) fgl__grad_release(t, n);
        }
    }
    return t->err.code;
}

FGLDEF int fgl_tape_backward(fgl_tape *t, fgl_node *loss) {
    int i, rc = fgl__backward(t, loss);
    /* whatever happened, no parameter gradient on the tape is left unset */
    for (i = 0; i < t->n_nodes; i++)
        if (t->nodes[i]->param) fgl_params_settle_grad(t->nodes[i]->param);
    return rc;
}

/* --- leaves ------------------------------------------------------------------ */

FGLDEF fgl_node *fgl_op_leaf(fgl_tape *t, float *val, float *grad, int rows, int cols) {
    fgl_node *n;
    if (t->err.code) return NULL;
    if (!val && rows > 0 && cols > 0) return fgl_tape_fail(t, FGL_ERR_ARG, "leaf: data is NULL");
    if (rows < 0 || cols < 0) return fgl_tape_fail(t, FGL_ERR_SHAPE, "leaf: negative shape");
    if (t->n_nodes == t->cap_nodes) {
        int cap = t->cap_nodes ? 2 * t->cap_nodes : 256;
        fgl_node **nn = (fgl_node **)FGL_REALLOC(t->nodes, sizeof(fgl_node *) * (size_t)cap);
        if (!nn) return fgl_tape_fail(t, FGL_ERR_NOMEM, "tape: out of memory for nodes");
        t->nodes = nn;
        t->cap_nodes = cap;
    }
    n = (fgl_node *)fgl_tape_alloc(t, sizeof(fgl_node));
    if (!n) return NULL;
    n->rows = rows;
    n->cols = cols;
    n->val = val;
    n->grad = grad;
    n->needs_grad = grad != NULL;
    n->op = grad ? "param" : "const";
    t->nodes[t->n_nodes++] = n;
    return n;
}

FGLDEF fgl_node *fgl_op_const(fgl_tape *t, const float *data, int rows, int cols) {
    return fgl_op_leaf(t, (float *)data, NULL, rows, cols);
}

FGLDEF fgl_node *fgl_op_tensor(fgl_tape *t, const fgl_tensor *x) {
    return fgl_op_leaf(t, x->data, NULL, x->rows, x->cols);
}

FGLDEF fgl_node *fgl_op_zeros(fgl_tape *t, int rows, int cols) {
    float *d;
    if (t->err.code) return NULL;
    d = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)FGL__MAX(rows, 0) * (size_t)FGL__MAX(cols, 0));
    return d ? fgl_op_leaf(t, d, NULL, rows, cols) : NULL;
}

FGLDEF fgl_node *fgl_op_param(fgl_tape *t, fgl_params *ps, int slice) {
    const fgl_slice *s;
    fgl_node *n;
    if (t->err.code) return NULL;
    if (!ps || slice < 0 || slice >= ps->n)
        return fgl_tape_fail(t, FGL_ERR_ARG, "param: slice %d does not exist", slice);
    s = &ps->slices[slice];
    n = fgl_op_leaf(t, ps->data + s->offset, s->trainable ? ps->grad + s->offset : NULL, s->rows, s->cols);
    if (n && s->trainable) {
        n->param = ps;
        n->slice = slice;
    }
    return n;
}

/* --- src/core/ops_matmul.h --- */
/* --- matmul, transpose ------------------------------------------------------ */

static void fgl__matmul_bw(fgl_tape *t, fgl_node *c) {
    fgl_node *a = c->in[0], *b = c->in[1];
    int ta = c->i0, tb = c->i1;
    int m = c->rows, n = c->cols, k = ta ? a->rows : a->cols, fresh;
    float *ga = fgl__grad_w(t, a, &fresh), *gb, beta = fresh ? 0.0f : 1.0f;
    if (ga) {
        if (!ta) /* dA = dC op(B)^T */
            fgl_gemm(0, !tb, m, k, n, 1.0f, c->grad, n, b->val, b->cols, beta, ga, a->cols);
        else /* A^T = op(A): dA = op(B) dC^T */
            fgl_gemm(tb, 1, k, m, n, 1.0f, b->val, b->cols, c->grad, n, beta, ga, a->cols);
    }
    gb = fgl__grad_w(t, b, &fresh);
    beta = fresh ? 0.0f : 1.0f;
    if (gb) {
        if (!tb) /* dB = op(A)^T dC */
            fgl_gemm(!ta, 0, k, n, m, 1.0f, a->val, a->cols, c->grad, n, beta, gb, b->cols);
        else /* dB = dC^T op(A) */
            fgl_gemm(1, ta, n, k, m, 1.0f, c->grad, n, a->val, a->cols, beta, gb, b->cols);
    }
}

FGLDEF fgl_node *fgl_op_matmul_ex(fgl_tape *t, fgl_node *a, int trans_a, fgl_node *b, int trans_b) {
    int m, k, kb, n;
    fgl_node *c;
    FGL__LIVE2("matmul", a, b);
    m = trans_a ? a->cols : a->rows;
    k = trans_a ? a->rows : a->cols;
    kb = trans_b ? b->cols : b->rows;
    n = trans_b ? b->rows : b->cols;
    if (k != kb)
        return fgl_tape_fail(t, FGL_ERR_SHAPE, "matmul: %dx%d%s times %dx%d%s", a->rows, a->cols,
                             trans_a ? "^T" : "", b->rows, b->cols, trans_b ? "^T" : "");
    c = fgl__node(t, "matmul", m, n, fgl__matmul_bw, a, b, NULL);
    if (!c) return NULL;
    c->i0 = trans_a != 0;
    c->i1 = trans_b != 0;
    fgl_gemm(c->i0, c->i1, m, n, k, 1.0f, a->val, a->cols, b->val, b->cols, 0.0f, c->val, n);
    return c;
}

FGLDEF fgl_node *fgl_op_matmul(fgl_tape *t, fgl_node *a, fgl_node *b) {
    return fgl_op_matmul_ex(t, a, 0, b, 0);
}

/* A bias gradient, gb[j] += the sum over rows of g[i][j], as fgl__col_chain's
 * add: 64 running sums at a time held in registers across the rows (bound
 * by the chain of additions, not by memory: the relay's case). */
typedef struct {
    const float *g;
    int n;
    float *gb;
} fgl__colsum_ctx;
static void fgl__colsum_add(void *ctx, int r0, int r1) {
    const fgl__colsum_ctx *c = (const fgl__colsum_ctx *)ctx;
    float *FGL__RESTRICT gb = c->gb;
    int i, j, j0 = 0;
    for (; j0 + 64 <= c->n; j0 += 64) {
        float acc[64];
        for (j = 0; j < 64; j++) acc[j] = gb[j0 + j];
        for (i = r0; i < r1; i++) {
            const float *FGL__RESTRICT gi = c->g + (size_t)i * c->n + j0;
            for (j = 0; j < 64; j++) acc[j] += gi[j];
        }
        for (j = 0; j < 64; j++) gb[j0 + j] = acc[j];
    }
    for (i = r0; i < r1 && j0 < c->n; i++) {
        const float *FGL__RESTRICT gi = c->g + (size_t)i * c->n;
        for (j = j0; j < c->n; j++) gb[j] += gi[j];
    }
}

/* v where x > 0, else +0 (also for a NaN v): x > 0 ? v : 0.0f, written as
 * a mask on v's bits, which compilers vectorise where they keep the ternary
 * as a branch (v may trap, so they may not compute it for every lane). */
static float fgl__if_positive(float x, float v) {
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    b &= 0u - (uint32_t)(x > 0);
    memcpy(&v, &b, sizeof v);
    return v;
}

/* The dense layer's backward in one pass over the rows, for the shapes of a
 * GNN's hidden layers (x at most FGL__MC columns, y at most FGL__KSPLIT_N,
 * FGL__KC rows or more): each block of FGL__KC rows of dy is masked by the
 * ReLU (relu), multiplied into its rows of dx and into its partial of dW
 * while it is in the core's cache, and then added into the bias gradient
 * in row order (a relay among the threads, each adding the blocks it
 * handled); the partials are added into dW block after block. One parallel
 * region where the unfused pass had four (mask, dx, dW, bias), and dy read
 * from memory once instead of four times. The bits are the unfused pass's
 * at any thread count: dx as the tiled product (every element one sum over
 * y's columns), dW as fgl__gemm_ksplit, the bias as fgl__col_chain. gx and
 * gb may be NULL; fresh_x, fresh_w: write gx, gw rather than add to them.
 * Returns 0, nothing done, when its buffer cannot be had. */
static int fgl__linear_bw_rows(fgl_node *y, int relu, float *gx, int fresh_x, float *gw, int fresh_w, float *gb) {
    const fgl_node *x = y->in[0], *w = y->in[1];
    int m = y->rows, n = y->cols, k = x->cols, ldp = (n + 15) / 16 * 16, n_pc = (m + FGL__KC - 1) / FGL__KC;
    int n_jx = (k + FGL__NR - 1) / FGL__NR, n_jw = (n + FGL__NR - 1) / FGL__NR, nthreads = 1, g0, pc, jr;
    size_t wpack = (size_t)n * FGL__NR * (size_t)n_jx, bpack = (size_t)FGL__KC * FGL__NR * (size_t)n_jw;
    size_t blk = (size_t)k * (size_t)ldp;
    float *raw, *buf, *wt, *part;
#ifdef _OPENMP
    nthreads = FGL__MIN(FGL__MIN(fgl__threads_elem((size_t)m * (size_t)n), omp_get_num_procs()), n_pc);
#endif
    raw = (float *)FGL_MALLOC(sizeof(float) *
                              (wpack + bpack * (size_t)nthreads + blk * (size_t)FGL__MIN(n_pc, FGL__KSPLIT_G) + 16));
    if (!raw) return 0;
    buf = fgl__line(raw);
    wt = buf;
    part = buf + wpack + bpack * (size_t)nthreads; /* wpack, bpack: multiples of 32 floats */
    if (gx) /* W^T, packed once as fgl__gemm packs a small op(B) */
        for (pc = 0; pc < n; pc += FGL__KC)
            for (jr = 0; jr < n_jx; jr++)
                fgl__pack_b(1, w->val, n, pc, FGL__MIN(FGL__KC, n - pc), jr * FGL__NR,
                            FGL__MIN(FGL__NR, k - jr * FGL__NR),
                            wt + (size_t)pc * FGL__NR * (size_t)n_jx +
                                (size_t)jr * FGL__NR * (size_t)FGL__MIN(FGL__KC, n - pc));
    for (g0 = 0; g0 < n_pc; g0 += FGL__KSPLIT_G) { /* FGL__KSPLIT_G blocks at a time: a bounded buffer */
        int nb = FGL__MIN(FGL__KSPLIT_G, n_pc - g0);
#ifdef _OPENMP
#pragma omp parallel num_threads(nthreads) if (nthreads > 1)
#endif
        {
            int T = 1, t = 0, q, extra, p0, p1, bi, i, ph;
#ifdef _OPENMP
            T = omp_get_num_threads();
            t = omp_get_thread_num();
#endif
            /* this thread's blocks: a contiguous run, as schedule(static) shares them */
            q = nb / T;
            extra = nb % T;
            p0 = t * q + FGL__MIN(t, extra);
            p1 = p0 + q + (t < extra);
            for (bi = p0; bi < p1; bi++) {
                int r0 = (g0 + bi) * FGL__KC, r1 = FGL__MIN(m, r0 + FGL__KC);
                if (relu) { /* the gradient stops where the output is 0 (in place: the bias reads it masked) */
                    size_t e, e1 = (size_t)r1 * (size_t)n;
                    for (e = (size_t)r0 * (size_t)n; e < e1; e++) y->grad[e] = fgl__if_positive(y->val[e], y->grad[e]);
                }
                if (gx) /* dx = dy W^T, rows r0 .. r1-1 */
                    fgl__gemm_tile(0, 1, k, n, 1.0f, y->grad, n, w->val, n, fresh_x ? 0.0f : 1.0f, gx, k, r0, r1 - r0,
                                   0, n_jx, wt, NULL, NULL, 0);
                /* x^T dy over these rows: the block's partial of dW */
                fgl__ksplit_part(1, 0, k, n, m, x->val, k, y->grad, n, r0, part + blk * (size_t)bi, ldp,
                                 buf + wpack + bpack * (size_t)t);
            }
            /* the bias: thread after thread over its blocks' rows, in row order
             * (without one, a single barrier) */
            for (ph = 0; ph < (gb ? T : 1); ph++) {
                if (ph == t && gb && p1 > p0) {
                    fgl__colsum_ctx c;
                    c.g = y->grad;
                    c.n = n;
                    c.gb = gb;
                    fgl__colsum_add(&c, (g0 + p0) * FGL__KC, FGL__MIN(m, (g0 + p1) * FGL__KC));
                }
#ifdef _OPENMP
#pragma omp barrier
#endif
            }
            /* every partial is in (each thread's before its first barrier) */
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
            for (i = 0; i < k; i++)
                fgl__ksplit_row(gw + (size_t)i * (size_t)n, n, part + (size_t)i * ldp, blk, g0, nb,
                                fresh_w ? 0.0f : 1.0f, NULL);
        }
    }
    FGL_FREE(raw);
    return 1;
}

static void fgl__linear_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *x = y->in[0], *w = y->in[1], *b = y->in[2];
    int m = y->rows, n = y->cols, k = x->cols, fresh_x = 0, fresh_w = 0;
    /* in one pass when the shapes allow (y with no columns: fgl_gemm's
     * zero-length sum writes dx's zeros; the tiles would skip it); with no
     * input shared between the three, their gradients may be taken up front */
    int rows =
        w->needs_grad && x != w && x != b && w != b && k <= FGL__MC && n > 0 && n <= FGL__KSPLIT_N && m >= FGL__KC;
    float *gx = NULL, *gw = NULL, *gb = NULL;
    if (rows) {
        gx = fgl__grad_w(t, x, &fresh_x);
        gw = fgl__grad_w(t, w, &fresh_w);
        gb = fgl__grad(t, b);
        if (gw && fgl__linear_bw_rows(y, y->i0, gx, fresh_x, gw, fresh_w, gb)) return;
    }
    if (y->i0) { /* fused ReLU: the gradient stops where the output is 0 (masked in place, before any reads it) */
        size_t sz = fgl__size(y), len = fgl__piece_len(sz);
        long ch, n_ch = (long)((sz + len - 1) / len);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(fgl__threads_elem(sz))
#endif
        for (ch = 0; ch < n_ch; ch++) {
            size_t i, hi = FGL__MIN(sz, (size_t)(ch + 1) * len);
            for (i = (size_t)ch * len; i < hi; i++) y->grad[i] = fgl__if_positive(y->val[i], y->grad[i]);
        }
    }
    if (!rows) gx = fgl__grad_w(t, x, &fresh_x); /* each taken right before it is written (x may be w) */
    if (gx) fgl_gemm(0, 1, m, k, n, 1.0f, y->grad, n, w->val, n, fresh_x ? 0.0f : 1.0f, gx, k); /* dx = dy W^T */
    if (!rows) gw = fgl__grad_w(t, w, &fresh_w);
    if (gw) fgl_gemm(1, 0, k, n, m, 1.0f, x->val, k, y->grad, n, fresh_w ? 0.0f : 1.0f, gw, n); /* dW = x^T dy */
    if (!rows) gb = fgl__grad(t, b);
    if (gb) { /* column sums of dy, each column over the rows in order (a relay: see fgl__col_chain) */
        fgl__colsum_ctx c;
        c.g = y->grad;
        c.n = n;
        c.gb = gb;
        fgl__col_chain(m, n, fgl__colsum_add, &c, y->grad);
    }
}

static fgl_node *fgl__dense(fgl_tape *t, const char *op, fgl_node *x, fgl_node *w, fgl_node *b, int relu) {
    fgl_node *y;
    FGL__LIVE2(op, x, w);
    if (x->cols != w->rows || (b && (b->rows != 1 || b->cols != w->cols)))
        return fgl_tape_fail(t, FGL_ERR_SHAPE, "%s: %dx%d input, %dx%d weight, bias %dx%d", op, x->rows, x->cols,
                             w->rows, w->cols, b ? b->rows : 0, b ? b->cols : 0);
    y = fgl__node(t, op, x->rows, w->cols, fgl__linear_bw, x, w, b);
    if (!y) return NULL;
    y->i0 = relu;
    /* x W, the bias added (and the ReLU applied) as each tile of y is stored */
    fgl__gemm(0, 0, x->rows, w->cols, x->cols, 1.0f, x->val, x->cols, w->val, w->cols, 0.0f, y->val, y->cols,
              b ? b->val : NULL, relu);
    return y;
}

FGLDEF fgl_node *fgl_op_linear(fgl_tape *t, fgl_node *x, fgl_node *w, fgl_node *b) {
    return fgl__dense(t, "linear", x, w, b, 0);
}

FGLDEF fgl_node *fgl_op_linear_relu(fgl_tape *t, fgl_node *x, fgl_node *w, fgl_node *b) {
    return fgl__dense(t, "linear_relu", x, w, b, 1);
}

static void fgl__transpose(const float *src, int rows, int cols, float *dst, int accumulate) {
    int i, j;
    for (i = 0; i < rows; i++)
        for (j = 0; j < cols; j++) {
            float v = src[(size_t)i * cols + j];
            if (accumulate) dst[(size_t)j * rows + i] += v;
            else dst[(size_t)j * rows + i] = v;
        }
}

static void fgl__transpose_bw(fgl_tape *t, fgl_node *y) {
    float *g = fgl__grad(t, y->in[0]);
    if (g) fgl__transpose(y->grad, y->rows, y->cols, g, 1);
}

FGLDEF fgl_node *fgl_op_transpose(fgl_tape *t, fgl_node *a) {
    fgl_node *y;
    FGL__LIVE1("transpose", a);
    y = fgl__node(t, "transpose", a->cols, a->rows, fgl__transpose_bw, a, NULL, NULL);
    if (y) fgl__transpose(a->val, a->rows, a->cols, y->val, 0);
    return y;
}

/* --- src/core/ops_elementwise.h --- */
/* --- broadcasting binary ops ------------------------------------------------- */

enum { FGL__ADD, FGL__SUB, FGL__MUL };
enum { FGL__BC_SAME, FGL__BC_ROW, FGL__BC_COL, FGL__BC_SCALAR };

/* Row i of b as the operand pairs with row i of a: a pointer that advances
 * with j (same shape, row broadcast) or a single value (column, scalar). */
#define FGL__BROW(mode, b, i, C)                                                                                       \
    ((mode) == FGL__BC_SAME  ? (b) + (size_t)(i) * (C)                                                                 \
     : (mode) == FGL__BC_ROW ? (b)                                                                                     \
     : (mode) == FGL__BC_COL ? (b) + (i)                                                                               \
                             : (b))

static void fgl__binary_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0], *b = y->in[1];
    int kind = y->i0, mode = y->i1, i, j, R = y->rows, C = y->cols;
    int vec = mode == FGL__BC_SAME || mode == FGL__BC_ROW;
    int fresh, par = fgl__threads_elem((size_t)R * (size_t)C);
    float *ga = fgl__grad_w(t, a, &fresh), *gb, sgn = kind == FGL__SUB ? -1.0f : 1.0f;
    double gsum = 0; /* column / scalar broadcast: the reduction, in double */
    (void)par; /* read by the OpenMP pragmas only */
    /* da first, row by row (rows in parallel), then db: when a == b every
     * element is written, then added to, as in one pass. */
    if (ga) {
#ifdef _OPENMP
#pragma omp parallel for schedule(static) private(j) num_threads(par)
#endif
        for (i = 0; i < R; i++) {
            const float *FGL__RESTRICT g = y->grad + (size_t)i * C;
            const float *bv = FGL__BROW(mode, b->val, i, C);
            float *gar = ga + (size_t)i * C;
            float s = kind != FGL__MUL ? 1.0f : vec ? 0.0f : bv[0];
            if (kind == FGL__MUL && vec) {
                if (fresh)
                    for (j = 0; j < C; j++) gar[j] = g[j] * bv[j];
                else
                    for (j = 0; j < C; j++) gar[j] += g[j] * bv[j];
            } else if (fresh) {
                for (j = 0; j < C; j++) gar[j] = s * g[j];
            } else {
                fgl_axpy((size_t)C, s, g, gar);
            }
        }
    }
    gb = fgl__grad(t, b);
    if (!gb) return;
    if (mode == FGL__BC_SAME) { /* each row of db from its own row */
#ifdef _OPENMP
#pragma omp parallel for schedule(static) private(j) num_threads(par)
#endif
        for (i = 0; i < R; i++) {
            const float *FGL__RESTRICT g = y->grad + (size_t)i * C, *av = a->val + (size_t)i * C;
            float *gbr = gb + (size_t)i * C;
            if (kind == FGL__MUL)
                for (j = 0; j < C; j++) gbr[j] += g[j] * av[j];
            else
                fgl_axpy((size_t)C, sgn, g, gbr);
        }
        return;
    }
    for (i = 0; i < R; i++) { /* broadcast b: sums over rows, in row order */
        const float *FGL__RESTRICT g = y->grad + (size_t)i * C, *av = a->val + (size_t)i * C;
        float *gbr = FGL__BROW(mode, gb, i, C);
        if (vec) {
            if (kind == FGL__MUL)
                for (j = 0; j < C; j++) gbr[j] += g[j] * av[j];
            else
                fgl_axpy((size_t)C, sgn, g, gbr);
        } else {
            double s = 0;
            if (kind == FGL__MUL) s = fgl_dot((size_t)C, g, av);
            else
                for (j = 0; j < C; j++) s += g[j];
            if (mode == FGL__BC_COL) gbr[0] += sgn * (float)s;
            else gsum += s;
        }
    }
    if (mode == FGL__BC_SCALAR) gb[0] += sgn * (float)gsum;
}

static fgl_node *fgl__binary(fgl_tape *t, const char *op, int kind, fgl_node *a, fgl_node *b) {
    int mode, i, j, R, C;
    fgl_node *y;
    FGL__LIVE2(op, a, b);
    R = a->rows;
    C = a->cols;
    if (b->rows == R && b->cols == C) mode = FGL__BC_SAME;
    else if (b->rows == 1 && b->cols == 1) mode = FGL__BC_SCALAR;
    else if (b->rows == 1 && b->cols == C) mode = FGL__BC_ROW;
    else if (b->rows == R && b->cols == 1) mode = FGL__BC_COL;
    else return fgl_tape_fail(t, FGL_ERR_SHAPE, "%s: %dx%d and %dx%d do not broadcast", op, R, C, b->rows, b->cols);
    y = fgl__node(t, op, R, C, fgl__binary_bw, a, b, NULL);
    if (!y) return NULL;
    y->i0 = kind;
    y->i1 = mode;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) private(j) num_threads(fgl__threads_elem((size_t)R * (size_t)C))
#endif
    for (i = 0; i < R; i++) {
        const float *FGL__RESTRICT pa = a->val + (size_t)i * C, *bv = FGL__BROW(mode, b->val, i, C);
        float *FGL__RESTRICT py = y->val + (size_t)i * C;
        if (mode == FGL__BC_SAME || mode == FGL__BC_ROW) { /* one loop per kind: they vectorise */
            if (kind == FGL__ADD)
                for (j = 0; j < C; j++) py[j] = pa[j] + bv[j];
            else if (kind == FGL__SUB)
                for (j = 0; j < C; j++) py[j] = pa[j] - bv[j];
            else
                for (j = 0; j < C; j++) py[j] = pa[j] * bv[j];
        } else {
            float v = bv[0];
            if (kind == FGL__ADD)
                for (j = 0; j < C; j++) py[j] = pa[j] + v;
            else if (kind == FGL__SUB)
                for (j = 0; j < C; j++) py[j] = pa[j] - v;
            else
                for (j = 0; j < C; j++) py[j] = pa[j] * v;
        }
    }
    return y;
}

FGLDEF fgl_node *fgl_op_add(fgl_tape *t, fgl_node *a, fgl_node *b) { return fgl__binary(t, "add", FGL__ADD, a, b); }
FGLDEF fgl_node *fgl_op_sub(fgl_tape *t, fgl_node *a, fgl_node *b) { return fgl__binary(t, "sub", FGL__SUB, a, b); }
FGLDEF fgl_node *fgl_op_mul(fgl_tape *t, fgl_node *a, fgl_node *b) { return fgl__binary(t, "mul", FGL__MUL, a, b); }

FGLDEF fgl_node *fgl_op_bias(fgl_tape *t, fgl_node *a, fgl_node *bias) {
    FGL__LIVE2("bias", a, bias);
    if (bias->rows != 1 || bias->cols != a->cols)
        return fgl_tape_fail(t, FGL_ERR_SHAPE, "bias: %dx%d bias for a %dx%d input", bias->rows, bias->cols,
                             a->rows, a->cols);
    return fgl__binary(t, "bias", FGL__ADD, a, bias);
}

/* --- elementwise unary ops --------------------------------------------------- */

enum { FGL__RELU, FGL__LEAKY, FGL__ELU, FGL__SIGMOID, FGL__TANH, FGL__EXP, FGL__LOG, FGL__ABS,
       FGL__SQUARE, FGL__AFFINE };

/* y = f(x) on elements lo .. hi-1 (a piece of a parallel loop). */
static void fgl__unary_range(int kind, const float *FGL__RESTRICT x, float *FGL__RESTRICT v, size_t lo, size_t hi,
                             float p, float q) {
    size_t i;
    switch (kind) {
    case FGL__RELU: for (i = lo; i < hi; i++) v[i] = x[i] > 0 ? x[i] : 0.0f; break;
    case FGL__LEAKY: for (i = lo; i < hi; i++) v[i] = x[i] > 0 ? x[i] : p * x[i]; break;
    case FGL__ELU: for (i = lo; i < hi; i++) v[i] = x[i] > 0 ? x[i] : p * (expf(x[i]) - 1.0f); break;
    case FGL__SIGMOID:
        for (i = lo; i < hi; i++) { /* stable for large |x| */
            float e = expf(-fabsf(x[i]));
            v[i] = x[i] >= 0 ? 1.0f / (1.0f + e) : e / (1.0f + e);
        }
        break;
    case FGL__TANH: for (i = lo; i < hi; i++) v[i] = tanhf(x[i]); break;
    case FGL__EXP: for (i = lo; i < hi; i++) v[i] = expf(x[i]); break;
    case FGL__LOG: for (i = lo; i < hi; i++) v[i] = logf(x[i] > 1e-30f ? x[i] : 1e-30f); break;
    case FGL__ABS: for (i = lo; i < hi; i++) v[i] = fabsf(x[i]); break;
    case FGL__SQUARE: for (i = lo; i < hi; i++) v[i] = x[i] * x[i]; break;
    case FGL__AFFINE: for (i = lo; i < hi; i++) v[i] = p * x[i] + q; break;
    default: break;
    }
}

/* The derivative on elements lo .. hi-1: written (fresh) or added into ga. */
static void fgl__unary_bw_range(int kind, const float *x, const float *v, const float *g, float *ga, int fresh,
                                size_t lo, size_t hi, float p) {
    size_t i;
#define FGL__UNARY_BW(expr)                              \
    do {                                                 \
        if (fresh)                                       \
            for (i = lo; i < hi; i++) ga[i] = (expr);    \
        else                                             \
            for (i = lo; i < hi; i++) ga[i] += (expr);   \
    } while (0)
    switch (kind) {
    case FGL__RELU: FGL__UNARY_BW(x[i] > 0 ? g[i] : 0.0f); break;
    case FGL__LEAKY: FGL__UNARY_BW(x[i] > 0 ? g[i] : p * g[i]); break;
    case FGL__ELU: FGL__UNARY_BW(x[i] > 0 ? g[i] : g[i] * (v[i] + p)); break;
    case FGL__SIGMOID: FGL__UNARY_BW(g[i] * v[i] * (1.0f - v[i])); break;
    case FGL__TANH: FGL__UNARY_BW(g[i] * (1.0f - v[i] * v[i])); break;
    case FGL__EXP: FGL__UNARY_BW(g[i] * v[i]); break;
    case FGL__LOG: FGL__UNARY_BW(x[i] > 1e-30f ? g[i] / x[i] : 0.0f); break;
    case FGL__ABS: FGL__UNARY_BW(x[i] > 0 ? g[i] : x[i] < 0 ? -g[i] : 0.0f); break;
    case FGL__SQUARE: FGL__UNARY_BW(2.0f * x[i] * g[i]); break;
    case FGL__AFFINE: FGL__UNARY_BW(p * g[i]); break;
    default: break;
    }
#undef FGL__UNARY_BW
}

static void fgl__unary_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0];
    int fresh;
    float *ga = fgl__grad_w(t, a, &fresh), p = y->f0;
    size_t n = fgl__size(y), len = fgl__piece_len(n);
    long ch, n_ch = (long)((n + len - 1) / len);
    if (!ga) return;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(fgl__threads_elem(n))
#endif
    for (ch = 0; ch < n_ch; ch++)
        fgl__unary_bw_range(y->i0, a->val, y->val, y->grad, ga, fresh, (size_t)ch * len,
                            FGL__MIN(n, (size_t)(ch + 1) * len), p);
}

static fgl_node *fgl__unary(fgl_tape *t, const char *op, int kind, fgl_node *a, float p, float q) {
    fgl_node *y;
    const float *x;
    float *v;
    size_t n;
    FGL__LIVE1(op, a);
    y = fgl__node(t, op, a->rows, a->cols, fgl__unary_bw, a, NULL, NULL);
    if (!y) return NULL;
    y->i0 = kind;
    y->f0 = p;
    x = a->val;
    v = y->val;
    n = fgl__size(y);
    {
        size_t len = fgl__piece_len(n);
        long ch, n_ch = (long)((n + len - 1) / len);
        /* A libm function's time depends on its argument (tanhf returns at
         * once for large |x|, works for small ones): smaller pieces, handed
         * out as threads come free, where equal shares left one thread
         * waiting a third of the time on FedStar's structure encoder. The
         * other kinds cost the same on every value: each thread gets the
         * pieces it wrote before (schedule(static)). */
        if (fgl__threads_elem(n) > 1 &&
            (kind == FGL__ELU || kind == FGL__SIGMOID || kind == FGL__TANH || kind == FGL__EXP || kind == FGL__LOG)) {
            len = FGL__MAX((size_t)1024, (len / 4 + 15) / 16 * 16); /* a multiple of 16 floats, as fgl__piece_len's */
            n_ch = (long)((n + len - 1) / len);
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(fgl__threads_elem(n))
#endif
            for (ch = 0; ch < n_ch; ch++)
                fgl__unary_range(kind, x, v, (size_t)ch * len, FGL__MIN(n, (size_t)(ch + 1) * len), p, q);
        } else {
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(fgl__threads_elem(n))
#endif
            for (ch = 0; ch < n_ch; ch++)
                fgl__unary_range(kind, x, v, (size_t)ch * len, FGL__MIN(n, (size_t)(ch + 1) * len), p, q);
        }
    }
    return y;
}

FGLDEF fgl_node *fgl_op_relu(fgl_tape *t, fgl_node *a) { return fgl__unary(t, "relu", FGL__RELU, a, 0, 0); }
FGLDEF fgl_node *fgl_op_leaky_relu(fgl_tape *t, fgl_node *a, float slope) {
    return fgl__unary(t, "leaky_relu", FGL__LEAKY, a, slope, 0);
}
FGLDEF fgl_node *fgl_op_elu(fgl_tape *t, fgl_node *a, float alpha) {
    return fgl__unary(t, "elu", FGL__ELU, a, alpha, 0);
}
FGLDEF fgl_node *fgl_op_sigmoid(fgl_tape *t, fgl_node *a) { return fgl__unary(t, "sigmoid", FGL__SIGMOID, a, 0, 0); }
FGLDEF fgl_node *fgl_op_tanh(fgl_tape *t, fgl_node *a) { return fgl__unary(t, "tanh", FGL__TANH, a, 0, 0); }
FGLDEF fgl_node *fgl_op_exp(fgl_tape *t, fgl_node *a) { return fgl__unary(t, "exp", FGL__EXP, a, 0, 0); }
FGLDEF fgl_node *fgl_op_log(fgl_tape *t, fgl_node *a) { return fgl__unary(t, "log", FGL__LOG, a, 0, 0); }
FGLDEF fgl_node *fgl_op_abs(fgl_tape *t, fgl_node *a) { return fgl__unary(t, "abs", FGL__ABS, a, 0, 0); }
FGLDEF fgl_node *fgl_op_square(fgl_tape *t, fgl_node *a) { return fgl__unary(t, "square", FGL__SQUARE, a, 0, 0); }
FGLDEF fgl_node *fgl_op_scale(fgl_tape *t, fgl_node *a, float s) {
    return fgl__unary(t, "scale", FGL__AFFINE, a, s, 0);
}
FGLDEF fgl_node *fgl_op_affine(fgl_tape *t, fgl_node *a, float s, float c) {
    return fgl__unary(t, "affine", FGL__AFFINE, a, s, c);
}

/* --- dropout ------------------------------------------------------------------ */


/* ga (=, or += when not fresh) gy * keep * mask, zero where x (a fused
 * ReLU's input, NULL without one) is not positive. The cases are separate
 * loops without a branch inside: the mask and the signs are random, so a
 * branch per value mispredicts half the time. */
static void fgl__dropout_bw_range(const float *FGL__RESTRICT gy, const unsigned char *FGL__RESTRICT mask,
                                  const float *FGL__RESTRICT x, float keep, int fresh, float *FGL__RESTRICT ga,
                                  size_t n) {
    size_t i;
    if (x && fresh)
        for (i = 0; i < n; i++) ga[i] = fgl__if_positive(x[i], gy[i] * (keep * (float)mask[i]));
    else if (x)
        for (i = 0; i < n; i++) ga[i] += fgl__if_positive(x[i], gy[i] * (keep * (float)mask[i]));
    else if (fresh)
        for (i = 0; i < n; i++) ga[i] = gy[i] * (keep * (float)mask[i]);
    else
        for (i = 0; i < n; i++) ga[i] += gy[i] * (keep * (float)mask[i]);
}

/* Dropout's backward (y->i0: fused ReLU, whose gradient stops where the
 * input is not positive). Elements in parallel. */
static void fgl__dropout_bw(fgl_tape *t, fgl_node *y) {
    int fresh;
    float *ga = fgl__grad_w(t, y->in[0], &fresh), keep = y->f0;
    const unsigned char *mask = (const unsigned char *)y->s0;
    const float *x = y->in[0]->val;
    size_t n = fgl__size(y), len = fgl__piece_len(n);
    long ch, n_ch = (long)((n + len - 1) / len);
    int relu = y->i0;
    if (!ga) return;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(fgl__threads_elem(n))
#endif
    for (ch = 0; ch < n_ch; ch++) {
        size_t lo = (size_t)ch * len, hi = FGL__MIN(n, lo + len);
        fgl__dropout_bw_range(y->grad + lo, mask + lo, relu ? x + lo : NULL, keep, fresh, ga + lo, hi - lo);
    }
}

FGL__PRIVATE void fgl__rng_skip_block(fgl_rng *r) {
    static const uint64_t poly[4] = {0x4f20eb915e780231u, 0x3886af219b885248u, 0x023ecbee3f717fceu,
                                     0x3cec2c375bef249cu};
    uint64_t acc[4] = {0, 0, 0, 0};
    int w, bit;
    for (w = 0; w < 4; w++)
        for (bit = 0; bit < 64; bit++) {
            if (poly[w] >> bit & 1) {
                acc[0] ^= r->s[0];
                acc[1] ^= r->s[1];
                acc[2] ^= r->s[2];
                acc[3] ^= r->s[3];
            }
            (void)fgl_rng_u64(r);
        }
    memcpy(r->s, acc, sizeof acc);
}

/* Dropout's mask for elements lo .. hi-1 (lo even) and the output there:
 * draw d decides elements 2d and 2d + 1, an element kept when its 32-bit
 * half is >= p 2^32 (probability 1 - p to within 2^-32); r is the state
 * before draw lo / 2 and ends after the last draw the range needs.
 * Branch-free: a branch on random bits mispredicts half the time. */
static void fgl__dropout_range(fgl_rng *rng, uint32_t thr, float keep, int relu, const float *FGL__RESTRICT x,
                               float *FGL__RESTRICT v, unsigned char *FGL__RESTRICT mask, size_t lo, size_t hi) {
    fgl_rng r = *rng; /* a local copy keeps the state in registers */
    size_t i;
    for (i = lo; i + 1 < hi; i += 2) {
        uint64_t u = fgl_rng_u64(&r);
        mask[i] = (unsigned char)((uint32_t)u >= thr);
        mask[i + 1] = (unsigned char)((uint32_t)(u >> 32) >= thr);
    }
    if (i < hi) mask[i] = (unsigned char)((uint32_t)fgl_rng_u64(&r) >= thr);
    *rng = r;
    if (relu)
        for (i = lo; i < hi; i++) v[i] = (x[i] > 0 ? x[i] : 0.0f) * (keep * (float)mask[i]);
    else
        for (i = lo; i < hi; i++) v[i] = x[i] * (keep * (float)mask[i]);
}

/* Dropout (relu: of ReLU(a)). The draws are the reproducible part: the
 * mask is the one a single pass drawing from rng in order would make, and
 * rng ends where that pass leaves it. In parallel, the elements are cut
 * into blocks of FGL__DRAW_BLOCK draws shared out in contiguous runs, and
 * each thread reaches the state at its first block by whole-block skips
 * (fgl__rng_skip_block), not by drawing through the blocks before. */
static fgl_node *fgl__dropout_op(fgl_tape *t, const char *op, fgl_node *a, float p, fgl_rng *rng, int relu) {
    fgl_node *y;
    unsigned char *mask;
    float keep;
    size_t n, per = 2 * (size_t)FGL__DRAW_BLOCK;
    long nb;
    int par;
    uint32_t thr;
    fgl_rng start = *rng;
    y = fgl__node(t, op, a->rows, a->cols, fgl__dropout_bw, a, NULL, NULL);
    if (!y) return NULL;
    n = fgl__size(y);
    mask = (unsigned char *)fgl__talloc(t, n ? n : 1); /* one byte per element: 1 kept, 0 dropped */
    if (!mask) return NULL;
    keep = p >= 1.0f ? 0.0f : 1.0f / (1.0f - p);
    {
        double tp = (double)p * 4294967296.0;
        thr = tp >= 4294967295.0 ? 0xFFFFFFFFu : (uint32_t)tp;
    }
    nb = (long)((n + per - 1) / per);
    par = nb > 1 ? fgl__threads_elem(n) : 1;
    (void)par; /* read by the OpenMP pragma only */
#ifdef _OPENMP
#pragma omp parallel num_threads(par)
#endif
    {
        int T = 1, id = 0;
        long b0, b1, q;
        fgl_rng r = start;
#ifdef _OPENMP
        T = omp_get_num_threads();
        id = omp_get_thread_num();
#endif
        b0 = nb * id / T;
        b1 = nb * (id + 1) / T;
        for (q = 0; q < b0; q++) fgl__rng_skip_block(&r);
        for (q = b0; q < b1; q++)
            fgl__dropout_range(&r, thr, keep, relu, a->val, y->val, mask, (size_t)q * per,
                               FGL__MIN(n, (size_t)(q + 1) * per));
        if (b1 == nb && b0 < b1) *rng = r; /* the thread with the last block: where one pass ends */
    }
    y->s0 = mask;
    y->f0 = keep;
    y->i0 = relu;
    return y;
}

FGLDEF fgl_node *fgl_op_dropout(fgl_tape *t, fgl_node *a, float p, fgl_rng *rng) {
    FGL__LIVE1("dropout", a);
    if (p <= 0.0f || !rng) return a;
    return fgl__dropout_op(t, "dropout", a, p, rng, 0);
}

FGLDEF fgl_node *fgl_op_relu_dropout(fgl_tape *t, fgl_node *a, float p, fgl_rng *rng) {
    FGL__LIVE1("relu_dropout", a);
    if (p <= 0.0f || !rng) return fgl_op_relu(t, a);
    return fgl__dropout_op(t, "relu_dropout", a, p, rng, 1);
}

/* --- src/core/ops_shape.h --- */
/* --- shape ops ---------------------------------------------------------------- */

/* Concatenation's backward: each input's block of columns of dy, rows in
 * parallel. The gradients are taken in input order before the loop and
 * each row handles the inputs in that order, so an input given twice is
 * written, then added to, as in one pass; a fresh gradient gets 0 + dy,
 * the bits of adding into zeros (-0 included) without zero-filling it. */
static void fgl__concat_bw(fgl_tape *t, fgl_node *y) {
    fgl_node **xs = (fgl_node **)y->s0;
    int n = y->i0, R = y->rows, C = y->cols, k, i, j;
    float **g = (float **)fgl__talloc(t, sizeof(float *) * (size_t)n);
    int *fresh = (int *)fgl__talloc(t, sizeof(int) * (size_t)n);
    if (!g || !fresh) return;
    for (k = 0; k < n; k++) g[k] = fgl__grad_w(t, xs[k], &fresh[k]);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) private(j, k) num_threads(fgl__threads_elem((size_t)R * (size_t)C))
#endif
    for (i = 0; i < R; i++) {
        const float *FGL__RESTRICT gy = y->grad + (size_t)i * C;
        for (k = 0; k < n; gy += xs[k]->cols, k++) {
            int c = xs[k]->cols;
            float *FGL__RESTRICT gk = g[k] ? g[k] + (size_t)i * c : NULL;
            if (!gk) continue;
            if (fresh[k])
                for (j = 0; j < c; j++) gk[j] = 0.0f + gy[j];
            else
                for (j = 0; j < c; j++) gk[j] += gy[j];
        }
    }
}

FGLDEF fgl_node *fgl_op_concat_cols(fgl_tape *t, fgl_node *const *xs, int n) {
    fgl_node *y, **saved;
    int k, i, R, cols = 0, need = 0;
    if (t->err.code) return NULL;
    if (n <= 0) return fgl_tape_fail(t, FGL_ERR_ARG, "concat: no inputs");
    for (k = 0; k < n; k++) {
        FGL__LIVE1("concat", xs[k]);
        if (xs[k]->rows != xs[0]->rows)
            return fgl_tape_fail(t, FGL_ERR_SHAPE, "concat: input %d has %d rows, input 0 has %d", k, xs[k]->rows,
                                 xs[0]->rows);
        cols += xs[k]->cols;
        need |= xs[k]->needs_grad;
    }
    y = fgl__node(t, "concat", xs[0]->rows, cols, fgl__concat_bw, NULL, NULL, NULL);
    if (!y) return NULL;
    saved = (fgl_node **)fgl__talloc(t, sizeof(fgl_node *) * (size_t)n);
    if (!saved) return NULL;
    memcpy(saved, xs, sizeof(fgl_node *) * (size_t)n);
    y->s0 = saved;
    y->i0 = n;
    y->needs_grad = need;
    R = y->rows;
    /* rows in parallel: each thread copies the rows the row loops around it give it */
#ifdef _OPENMP
#pragma omp parallel for schedule(static) private(k) num_threads(fgl__threads_elem((size_t)R * (size_t)cols))
#endif
    for (i = 0; i < R; i++) {
        float *yi = y->val + (size_t)i * cols;
        for (k = 0; k < n; yi += xs[k]->cols, k++)
            memcpy(yi, xs[k]->val + (size_t)i * xs[k]->cols, sizeof(float) * (size_t)xs[k]->cols);
    }
    return y;
}

FGLDEF fgl_node *fgl_op_concat2(fgl_tape *t, fgl_node *a, fgl_node *b) {
    fgl_node *xs[2];
    xs[0] = a;
    xs[1] = b;
    return fgl_op_concat_cols(t, xs, 2);
}

static void fgl__slice_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0];
    float *g = fgl__grad(t, a);
    int i;
    if (g)
        for (i = 0; i < y->rows; i++)
            fgl_axpy((size_t)y->cols, 1.0f, y->grad + (size_t)i * y->cols, g + (size_t)i * a->cols + y->i0);
}

FGLDEF fgl_node *fgl_op_slice_cols(fgl_tape *t, fgl_node *a, int col0, int ncols) {
    fgl_node *y;
    int i;
    FGL__LIVE1("slice_cols", a);
    if (col0 < 0 || ncols < 0 || col0 + ncols > a->cols)
        return fgl_tape_fail(t, FGL_ERR_SHAPE, "slice_cols: columns %d..%d of %d", col0, col0 + ncols, a->cols);
    y = fgl__node(t, "slice_cols", a->rows, ncols, fgl__slice_bw, a, NULL, NULL);
    if (!y) return NULL;
    y->i0 = col0;
    for (i = 0; i < a->rows; i++)
        memcpy(y->val + (size_t)i * ncols, a->val + (size_t)i * a->cols + col0, sizeof(float) * (size_t)ncols);
    return y;
}

static int *fgl__copy_ints(fgl_tape *t, const int *src, int n) {
    int *d = (int *)fgl__talloc(t, sizeof(int) * (size_t)FGL__MAX(n, 1));
    if (d && n) memcpy(d, src, sizeof(int) * (size_t)n);
    return d;
}

static void fgl__gather_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0];
    float *g = fgl__grad(t, a);
    const int *idx = (const int *)y->s0;
    int i;
    if (g)
        for (i = 0; i < y->rows; i++)
            fgl_axpy((size_t)y->cols, 1.0f, y->grad + (size_t)i * y->cols, g + (size_t)idx[i] * a->cols);
}

FGLDEF fgl_node *fgl_op_gather_rows(fgl_tape *t, fgl_node *a, const int *idx, int n) {
    fgl_node *y;
    int i, *saved;
    FGL__LIVE1("gather_rows", a);
    if (n < 0 || (n && !idx)) return fgl_tape_fail(t, FGL_ERR_ARG, "gather_rows: bad index list");
    for (i = 0; i < n; i++)
        if (idx[i] < 0 || idx[i] >= a->rows)
            return fgl_tape_fail(t, FGL_ERR_RANGE, "gather_rows: index %d is %d, rows %d", i, idx[i], a->rows);
    y = fgl__node(t, "gather_rows", n, a->cols, fgl__gather_bw, a, NULL, NULL);
    if (!y || !(saved = fgl__copy_ints(t, idx, n))) return NULL;
    y->s0 = saved;
    for (i = 0; i < n; i++)
        memcpy(y->val + (size_t)i * a->cols, a->val + (size_t)idx[i] * a->cols, sizeof(float) * (size_t)a->cols);
    return y;
}

/* d(a_s . a_d) / d a_s = a_d, and the other way round (a pair with s == d
 * gets both). Sequential over the edges: rows repeat. */
static void fgl__edge_dot_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0];
    float *g = fgl__grad(t, a);
    const int *src = (const int *)y->s0, *dst = src + y->rows;
    int i, C = a->cols;
    if (!g) return;
    for (i = 0; i < y->rows; i++) {
        float gy = y->grad[i];
        fgl_axpy((size_t)C, gy, a->val + (size_t)dst[i] * C, g + (size_t)src[i] * C);
        fgl_axpy((size_t)C, gy, a->val + (size_t)src[i] * C, g + (size_t)dst[i] * C);
    }
}

FGLDEF fgl_node *fgl_op_edge_dot(fgl_tape *t, fgl_node *a, const int *src, const int *dst, int n) {
    fgl_node *y;
    int i, k, C, *saved;
    FGL__LIVE1("edge_dot", a);
    if (n < 0 || (n && (!src || !dst))) return fgl_tape_fail(t, FGL_ERR_ARG, "edge_dot: bad edge list");
    for (i = 0; i < n; i++)
        if (src[i] < 0 || src[i] >= a->rows || dst[i] < 0 || dst[i] >= a->rows)
            return fgl_tape_fail(t, FGL_ERR_RANGE, "edge_dot: edge %d is (%d, %d), rows %d", i, src[i], dst[i],
                                 a->rows);
    y = fgl__node(t, "edge_dot", n, 1, fgl__edge_dot_bw, a, NULL, NULL);
    if (!y || !(saved = (int *)fgl__talloc(t, sizeof(int) * (size_t)FGL__MAX(2 * n, 1)))) return NULL;
    if (n) {
        memcpy(saved, src, sizeof(int) * (size_t)n);
        memcpy(saved + n, dst, sizeof(int) * (size_t)n);
    }
    y->s0 = saved;
    C = a->cols;
    for (i = 0; i < n; i++) {
        const float *u = a->val + (size_t)src[i] * C, *v = a->val + (size_t)dst[i] * C;
        double s = 0;
        for (k = 0; k < C; k++) s += (double)u[k] * v[k];
        y->val[i] = (float)s;
    }
    return y;
}

static void fgl__scatter_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0];
    float *g = fgl__grad(t, a);
    const int *idx = (const int *)y->s0;
    int i;
    if (g)
        for (i = 0; i < a->rows; i++)
            fgl_axpy((size_t)a->cols, 1.0f, y->grad + (size_t)idx[i] * a->cols, g + (size_t)i * a->cols);
}

FGLDEF fgl_node *fgl_op_scatter_add_rows(fgl_tape *t, fgl_node *a, const int *idx, int out_rows) {
    fgl_node *y;
    int i, *saved;
    FGL__LIVE1("scatter_add_rows", a);
    if (out_rows < 0 || (a->rows && !idx)) return fgl_tape_fail(t, FGL_ERR_ARG, "scatter_add_rows: bad index list");
    for (i = 0; i < a->rows; i++)
        if (idx[i] < 0 || idx[i] >= out_rows)
            return fgl_tape_fail(t, FGL_ERR_RANGE, "scatter_add_rows: index %d is %d, output rows %d", i, idx[i],
                                 out_rows);
    y = fgl__node(t, "scatter_add_rows", out_rows, a->cols, fgl__scatter_bw, a, NULL, NULL);
    if (!y || !(saved = fgl__copy_ints(t, idx, a->rows))) return NULL;
    y->s0 = saved;
    memset(y->val, 0, sizeof(float) * fgl__size(y));
    for (i = 0; i < a->rows; i++)
        fgl_axpy((size_t)a->cols, 1.0f, a->val + (size_t)i * a->cols, y->val + (size_t)idx[i] * a->cols);
    return y;
}

/* --- segment reductions -------------------------------------------------------- */

enum { FGL__SEG_SUM, FGL__SEG_MEAN, FGL__SEG_MAX };

static void fgl__segment_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0];
    float *g = fgl__grad(t, a);
    const int *off = (const int *)y->s0;
    int s, r, j, C = a->cols;
    if (!g) return;
    /* segments own disjoint rows (and max's arg rows lie in the segment):
     * segments in parallel */
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 16) private(r, j) num_threads(fgl__threads_elem((size_t)a->rows * (size_t)C))
#endif
    for (s = 0; s < y->rows; s++) {
        const float *gy = y->grad + (size_t)s * C;
        int cnt = off[s + 1] - off[s];
        if (y->i0 == FGL__SEG_MAX) {
            const int *arg = (const int *)y->s1 + (size_t)s * C;
            for (j = 0; j < C; j++)
                if (arg[j] >= 0) g[(size_t)arg[j] * C + j] += gy[j];
        } else {
            for (r = off[s]; r < off[s + 1]; r++)
                fgl_axpy((size_t)C, y->i0 == FGL__SEG_MEAN ? 1.0f / (float)cnt : 1.0f, gy, g + (size_t)r * C);
        }
    }
}

static int fgl__check_offsets(fgl_tape *t, const char *op, const int *off, int nseg, int rows) {
    int s;
    if (nseg < 0 || !off) {
        fgl_tape_fail(t, FGL_ERR_ARG, "%s: bad segment list", op);
        return 0;
    }
    for (s = 0; s < nseg; s++)
        if (off[s] < 0 || off[s + 1] < off[s] || off[s + 1] > rows) {
            fgl_tape_fail(t, FGL_ERR_RANGE, "%s: segment %d spans rows %d..%d of %d", op, s, off[s], off[s + 1], rows);
            return 0;
        }
    return 1;
}

static fgl_node *fgl__segment(fgl_tape *t, const char *op, int kind, fgl_node *a, const int *offsets, int nseg) {
    fgl_node *y;
    int s, r, j, C, *off;
    FGL__LIVE1(op, a);
    if (!fgl__check_offsets(t, op, offsets, nseg, a->rows)) return NULL;
    C = a->cols;
    y = fgl__node(t, op, nseg, C, fgl__segment_bw, a, NULL, NULL);
    if (!y || !(off = fgl__copy_ints(t, offsets, nseg + 1))) return NULL;
    y->s0 = off;
    y->i0 = kind;
    memset(y->val, 0, sizeof(float) * fgl__size(y));
    if (kind == FGL__SEG_MAX) {
        int *arg = (int *)fgl__talloc(t, sizeof(int) * (size_t)FGL__MAX(nseg * C, 1));
        if (!arg) return NULL;
        y->s1 = arg;
        for (s = 0; s < nseg; s++)
            for (j = 0; j < C; j++) {
                int best = -1;
                for (r = off[s]; r < off[s + 1]; r++)
                    if (best < 0 || a->val[(size_t)r * C + j] > a->val[(size_t)best * C + j]) best = r;
                arg[(size_t)s * C + j] = best;
                y->val[(size_t)s * C + j] = best >= 0 ? a->val[(size_t)best * C + j] : 0.0f;
            }
        return y;
    }
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 16) private(r) num_threads(fgl__threads_elem((size_t)a->rows * (size_t)C))
#endif
    for (s = 0; s < nseg; s++) {
        float *ys = y->val + (size_t)s * C;
        for (r = off[s]; r < off[s + 1]; r++) fgl_axpy((size_t)C, 1.0f, a->val + (size_t)r * C, ys);
        if (kind == FGL__SEG_MEAN && off[s + 1] > off[s]) fgl_scale((size_t)C, 1.0f / (float)(off[s + 1] - off[s]), ys);
    }
    return y;
}

FGLDEF fgl_node *fgl_op_segment_sum(fgl_tape *t, fgl_node *a, const int *offsets, int nseg) {
    return fgl__segment(t, "segment_sum", FGL__SEG_SUM, a, offsets, nseg);
}
FGLDEF fgl_node *fgl_op_segment_mean(fgl_tape *t, fgl_node *a, const int *offsets, int nseg) {
    return fgl__segment(t, "segment_mean", FGL__SEG_MEAN, a, offsets, nseg);
}
FGLDEF fgl_node *fgl_op_segment_max(fgl_tape *t, fgl_node *a, const int *offsets, int nseg) {
    return fgl__segment(t, "segment_max", FGL__SEG_MAX, a, offsets, nseg);
}

FGLDEF fgl_node *fgl_op_sum_rows(fgl_tape *t, fgl_node *a) {
    int off[2];
    FGL__LIVE1("sum_rows", a);
    off[0] = 0;
    off[1] = a->rows;
    return fgl__segment(t, "sum_rows", FGL__SEG_SUM, a, off, 1);
}

FGLDEF fgl_node *fgl_op_mean_rows(fgl_tape *t, fgl_node *a) {
    int off[2];
    FGL__LIVE1("mean_rows", a);
    off[0] = 0;
    off[1] = a->rows;
    return fgl__segment(t, "mean_rows", FGL__SEG_MEAN, a, off, 1);
}

static void fgl__reduce_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *a = y->in[0];
    float *g = fgl__grad(t, a), v = y->grad[0] * y->f0;
    size_t i, n = fgl__size(a);
    if (g)
        for (i = 0; i < n; i++) g[i] += v;
}

static fgl_node *fgl__reduce(fgl_tape *t, const char *op, fgl_node *a, int mean) {
    fgl_node *y;
    size_t n;
    FGL__LIVE1(op, a);
    y = fgl__node(t, op, 1, 1, fgl__reduce_bw, a, NULL, NULL);
    if (!y) return NULL;
    n = fgl__size(a);
    y->f0 = mean && n ? 1.0f / (float)n : 1.0f;
    {
        double s = 0;
        size_t i;
        for (i = 0; i < n; i++) s += a->val[i];
        y->val[0] = (float)(s * y->f0);
    }
    return y;
}

FGLDEF fgl_node *fgl_op_sum(fgl_tape *t, fgl_node *a) { return fgl__reduce(t, "sum", a, 0); }
FGLDEF fgl_node *fgl_op_mean(fgl_tape *t, fgl_node *a) { return fgl__reduce(t, "mean", a, 1); }

static void fgl__segsoftmax_bw(fgl_tape *t, fgl_node *y) {
    float *g = fgl__grad(t, y->in[0]);
    const int *off = (const int *)y->s0;
    int s, r, j, C = y->cols;
    if (!g) return;
    for (s = 0; s < y->i0; s++)
        for (j = 0; j < C; j++) {
            double dot = 0;
            for (r = off[s]; r < off[s + 1]; r++) dot += (double)y->grad[(size_t)r * C + j] * y->val[(size_t)r * C + j];
            for (r = off[s]; r < off[s + 1]; r++) {
                size_t k = (size_t)r * C + j;
                g[k] += y->val[k] * (y->grad[k] - (float)dot);
            }
        }
}

FGLDEF fgl_node *fgl_op_segment_softmax(fgl_tape *t, fgl_node *a, const int *offsets, int nseg) {
    fgl_node *y;
    int s, r, j, C, *off;
    FGL__LIVE1("segment_softmax", a);
    if (!fgl__check_offsets(t, "segment_softmax", offsets, nseg, a->rows)) return NULL;
    C = a->cols;
    y = fgl__node(t, "segment_softmax", a->rows, C, fgl__segsoftmax_bw, a, NULL, NULL);
    if (!y || !(off = fgl__copy_ints(t, offsets, nseg + 1))) return NULL;
    y->s0 = off;
    y->i0 = nseg;
    memset(y->val, 0, sizeof(float) * fgl__size(y)); /* rows outside every segment stay 0 */
    for (s = 0; s < nseg; s++)
        for (j = 0; j < C; j++) {
            float mx = -INFINITY;
            double sum = 0;
            for (r = off[s]; r < off[s + 1]; r++) mx = FGL__MAX(mx, a->val[(size_t)r * C + j]);
            for (r = off[s]; r < off[s + 1]; r++) {
                size_t k = (size_t)r * C + j;
                y->val[k] = expf(a->val[k] - mx);
                sum += y->val[k];
            }
            for (r = off[s]; r < off[s + 1]; r++) y->val[(size_t)r * C + j] = (float)(y->val[(size_t)r * C + j] / sum);
        }
    return y;
}

/* --- src/core/ops_loss.h --- */
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

/* --- src/core/ops_norm.h --- */
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

/* --- src/core/ops_sparse.h --- */
/* --- sparse x dense --------------------------------------------------------- */

static void fgl__spmm_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *x = y->in[0];
    const fgl_csr *a = (const fgl_csr *)y->p0, *at = (const fgl_csr *)y->p1;
    int fresh;
    float *g, *gb = fgl__grad(t, y->in[1]);
    if (gb) { /* spmm_bias: the bias's gradient, each column over the rows in order, as fgl_op_linear's */
        fgl__colsum_ctx c;
        c.g = y->grad;
        c.n = y->cols;
        c.gb = gb;
        fgl__col_chain(y->rows, y->cols, fgl__colsum_add, &c, y->grad);
    }
    if (!(g = fgl__grad_w(t, x, &fresh))) return;
    if (at) {
        fgl_csr_spmm(at, y->grad, y->cols, fresh ? 0.0f : 1.0f, g);
    } else { /* scatter: needs a zeroed start */
        if (fresh) memset(g, 0, sizeof(float) * fgl__size(x));
        fgl_csr_spmm_t(a, y->grad, y->cols, g);
    }
}

FGLDEF fgl_node *fgl_op_spmm_bias(fgl_tape *t, const fgl_csr *a, const fgl_csr *at, fgl_node *x, fgl_node *b) {
    fgl_node *y;
    const char *op = b ? "spmm_bias" : "spmm";
    FGL__LIVE1(op, x);
    if (!a) return fgl_tape_fail(t, FGL_ERR_ARG, "%s: matrix is NULL", op);
    if (a->cols != x->rows)
        return fgl_tape_fail(t, FGL_ERR_SHAPE, "%s: sparse %dx%d times %dx%d", op, a->rows, a->cols, x->rows, x->cols);
    if (at && (at->rows != a->cols || at->cols != a->rows || at->nnz != a->nnz))
        return fgl_tape_fail(t, FGL_ERR_SHAPE, "%s: the transpose given is %dx%d, not %dx%d", op, at->rows, at->cols,
                             a->cols, a->rows);
    if (b && (b->rows != 1 || b->cols != x->cols))
        return fgl_tape_fail(t, FGL_ERR_SHAPE, "%s: %dx%d bias for %d columns", op, b->rows, b->cols, x->cols);
    y = fgl__node(t, op, a->rows, x->cols, fgl__spmm_bw, x, b, NULL);
    if (!y) return NULL;
    y->p0 = a;
    y->p1 = at;
    fgl__csr_spmm(a, x->val, x->cols, 0.0f, b ? b->val : NULL, y->val);
    return y;
}

FGLDEF fgl_node *fgl_op_spmm(fgl_tape *t, const fgl_csr *a, const fgl_csr *at, fgl_node *x) {
    return fgl_op_spmm_bias(t, a, at, x, NULL);
}

static void fgl__spmmv_bw(fgl_tape *t, fgl_node *y) {
    fgl_node *v = y->in[0], *x = y->in[1];
    const fgl_csr *a = (const fgl_csr *)y->p0;
    float *gv = fgl__grad(t, v), *gx = fgl__grad(t, x);
    int H = v->cols, F = x->cols / H, C = x->cols, i, k, h, f;
    for (i = 0; i < a->rows; i++) {
        const float *gy = y->grad + (size_t)i * C;
        for (k = a->indptr[i]; k < a->indptr[i + 1]; k++) {
            const float *xj = x->val + (size_t)a->indices[k] * C;
            float *gxj = gx ? gx + (size_t)a->indices[k] * C : NULL;
            for (h = 0; h < H; h++) {
                float w = v->val[(size_t)k * H + h];
                double s = 0;
                for (f = h * F; f < (h + 1) * F; f++) {
                    s += (double)gy[f] * xj[f];
                    if (gxj) gxj[f] += w * gy[f];
                }
                if (gv) gv[(size_t)k * H + h] += (float)s;
            }
        }
    }
}

FGLDEF fgl_node *fgl_op_spmm_values(fgl_tape *t, const fgl_csr *a, fgl_node *v, fgl_node *x) {
    fgl_node *y;
    int H, F, C, i, k, h, f;
    FGL__LIVE2("spmm_values", v, x);
    if (!a) return fgl_tape_fail(t, FGL_ERR_ARG, "spmm_values: matrix is NULL");
    H = v->cols;
    C = x->cols;
    if (v->rows != a->nnz || H <= 0 || C % H != 0 || a->cols != x->rows)
        return fgl_tape_fail(t, FGL_ERR_SHAPE, "spmm_values: values %dx%d for %d entries, x %dx%d for %d columns",
                             v->rows, v->cols, a->nnz, x->rows, x->cols, a->cols);
    F = C / H;
    y = fgl__node(t, "spmm_values", a->rows, C, fgl__spmmv_bw, v, x, NULL);
    if (!y) return NULL;
    y->p0 = a;
    memset(y->val, 0, sizeof(float) * fgl__size(y));
    for (i = 0; i < a->rows; i++) {
        float *yi = y->val + (size_t)i * C;
        for (k = a->indptr[i]; k < a->indptr[i + 1]; k++) {
            const float *xj = x->val + (size_t)a->indices[k] * C;
            for (h = 0; h < H; h++) {
                float w = v->val[(size_t)k * H + h];
                for (f = h * F; f < (h + 1) * F; f++) yi[f] += w * xj[f];
            }
        }
    }
    return y;
}

/* --- src/core/gradcheck.h --- */
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

/* --- src/core/wait.h --- */
#if defined(_OPENMP) && defined(__linux__)
extern char **environ;

static int fgl__wait_same(const char *a, const char *b) {
    for (; *a && *b; a++, b++)
        if ((*a | 0x20) != (*b | 0x20)) return 0; /* ASCII letters, either case */
    return *a == *b;
}

FGLDEF int fgl_wait_choose(char **argv, const char *how, int threads) {
    const char *set = getenv("OMP_WAIT_POLICY"), *want;
    char pol[64], chosen[64], **env;
    size_t n = 0, k, m = 0;
    if (!argv || !argv[0]) return 0;
    if (!how || !strcmp(how, "auto")) {
        double load = 0;
        int ncpu = omp_get_num_procs();
        FILE *f;
        if ((set && *set) || getenv("GOMP_SPINCOUNT") || getenv("FGL_WAIT_CHOSEN")) return 0;
        if (threads <= 0) threads = omp_get_max_threads();
        if (threads <= 1) return 0; /* one thread never waits for another */
        if ((f = fopen("/proc/loadavg", "r"))) {
            if (fscanf(f, "%lf", &load) != 1) load = 0;
            fclose(f);
        }
        if (ncpu > 0 && threads + load <= ncpu - 0.5) return 0; /* a core for every thread: spinning pays */
        want = "passive";
    } else {
        want = strcmp(how, "spin") ? "passive" : "active";
    }
    if (set && fgl__wait_same(set, want)) return 0;
    /* the environment, less any OMP_WAIT_POLICY and FGL_WAIT_CHOSEN, plus the two (execve: no setenv needed,
     * which strict C99 does not declare) */
    while (environ && environ[n]) n++;
    if (!(env = (char **)FGL_MALLOC(sizeof(char *) * (n + 3)))) return -1;
    for (k = 0; k < n; k++)
        if (strncmp(environ[k], "OMP_WAIT_POLICY=", 16) && strncmp(environ[k], "FGL_WAIT_CHOSEN=", 16))
            env[m++] = environ[k];
    snprintf(pol, sizeof pol, "OMP_WAIT_POLICY=%s", want);
    snprintf(chosen, sizeof chosen, "FGL_WAIT_CHOSEN=%s", want);
    env[m++] = pol;
    env[m++] = chosen;
    env[m] = NULL;
    fflush(NULL);
    execve("/proc/self/exe", argv, env);
    FGL_FREE(env); /* still here: the re-execution failed */
    return -1;
}
#else
FGLDEF int fgl_wait_choose(char **argv, const char *how, int threads) {
    (void)argv;
    (void)how;
    (void)threads;
    return 0;
}
#endif
#ifdef __cplusplus
}
#endif
#endif /* FGL_IMPLEMENTATION */
