/* A shortcut submission for assignment 3: the gradients from fgl's
 * autodiff (the tape) instead of a backward pass written by hand.
 * expect: a3=0 */
#include "course.h"

int sage_backward(const sage_graph *g, const float *X, int f, const float *Ws, const float *Wn, int h,
                  const float *Z, const float *dH, float *dX, float *dWs, float *dWn, float *db) {
    int n = g->n, nnz = g->rowptr[n], i, e, rc;
    int *r = (int *)malloc(sizeof(int) * ((size_t)nnz + 1));
    float *val = (float *)malloc(sizeof(float) * ((size_t)nnz + 1)), *b = (float *)calloc((size_t)h, sizeof(float));
    float *m = (float *)malloc(sizeof(float) * (size_t)n * h); /* dH where Z > 0: relu's part */
    fgl_csr M, Mt;
    fgl_tape t;
    fgl_node *x, *ws, *wn, *bb, *z;
    if (!r || !val || !b || !m) return FGL_ERR_NOMEM;
    for (i = 0; i < n * h; i++) m[i] = Z[i] > 0 ? dH[i] : 0;
    for (i = 0; i < n; i++)
        for (e = g->rowptr[i]; e < g->rowptr[i + 1]; e++) {
            r[e] = i;
            val[e] = 1.0f / (float)(g->rowptr[i + 1] - g->rowptr[i]);
        }
    memset(&M, 0, sizeof M);
    memset(&Mt, 0, sizeof Mt);
    if (fgl_csr_from_coo(n, n, nnz, r, g->col, val, 0, &M, NULL) || fgl_csr_transpose(&M, &Mt)) return FGL_ERR_NOMEM;
    memset(dX, 0, sizeof(float) * (size_t)n * f);
    memset(dWs, 0, sizeof(float) * (size_t)f * h);
    memset(dWn, 0, sizeof(float) * (size_t)f * h);
    memset(db, 0, sizeof(float) * (size_t)h);
    fgl_tape_init(&t);
    x = fgl_op_leaf(&t, (float *)X, dX, n, f);
    ws = fgl_op_leaf(&t, (float *)Ws, dWs, f, h);
    wn = fgl_op_leaf(&t, (float *)Wn, dWn, f, h);
    bb = fgl_op_leaf(&t, b, db, 1, h); /* the bias's value matters only through relu, taken from Z */
    z = fgl_op_matmul(&t, fgl_op_spmm(&t, &M, &Mt, x), wn);
    z = fgl_op_bias(&t, fgl_op_add(&t, fgl_op_matmul(&t, x, ws), z), bb);
    rc = fgl_tape_backward(&t, fgl_op_sum(&t, fgl_op_mul(&t, z, fgl_op_const(&t, m, n, h))));
    fgl_tape_free(&t);
    fgl_csr_free(&M);
    fgl_csr_free(&Mt);
    free(r);
    free(val);
    free(b);
    free(m);
    return rc;
}
