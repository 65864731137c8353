#include "../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../alone.h"
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

#include "../alone.h"
