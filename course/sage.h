/* sage.h - the GraphSAGE layer of assignment 3 (read it; do not change it:
 * the grader checks your backward pass against its own copy of the forward).
 *
 * One GraphSAGE layer with the mean aggregator, on a graph of n nodes:
 *
 *     Z = X Ws + (M X) Wn + 1 b^T          H = relu(Z)
 *
 * X is n x f (one row per node), Ws and Wn are f x h, b has h entries, Z
 * and H are n x h; every matrix is row-major. M averages over neighbours:
 * row i of M X is the mean of the rows X_j of i's neighbours j, and zero
 * for a node without neighbours. The neighbours of i are
 * col[rowptr[i]] .. col[rowptr[i+1] - 1].
 */
#ifndef COURSE_SAGE_H
#define COURSE_SAGE_H

typedef struct sage_graph {
    int n;              /* nodes */
    const int *rowptr;  /* n + 1 */
    const int *col;     /* rowptr[n] neighbour ids */
} sage_graph;

static inline void sage_forward(const sage_graph *g, const float *X, int f, const float *Ws, const float *Wn,
                                const float *b, int h, float *Z, float *H) {
    int i, j, k, e;
    for (i = 0; i < g->n; i++) {
        int deg = g->rowptr[i + 1] - g->rowptr[i];
        for (k = 0; k < h; k++) Z[i * h + k] = b[k];
        for (j = 0; j < f; j++) {
            float self = X[i * f + j], mean = 0;
            for (e = g->rowptr[i]; e < g->rowptr[i + 1]; e++) mean += X[g->col[e] * f + j];
            if (deg > 0) mean /= (float)deg;
            for (k = 0; k < h; k++) Z[i * h + k] += self * Ws[j * h + k] + mean * Wn[j * h + k];
        }
        for (k = 0; k < h; k++) H[i * h + k] = Z[i * h + k] > 0 ? Z[i * h + k] : 0;
    }
}

#endif
