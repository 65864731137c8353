#include "../alone.h" /* (this file alone: src/alone.h) */
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

/* fgl:implementation */
#include "../alone.h"
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

#include "../alone.h"
