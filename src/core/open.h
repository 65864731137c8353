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

/* fgl:private */
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

/* fgl:implementation */
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

