#include "../alone.h" /* (this file alone: src/alone.h) */
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

/* fgl:implementation */
#include "../alone.h"
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

#include "../alone.h"
