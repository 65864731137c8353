/* Assignment 3 - the backward pass of a GNN layer, checked by finite
 * differences.
 *
 * course/sage.h defines one GraphSAGE layer with the mean aggregator and its
 * forward pass:  Z = X Ws + (M X) Wn + 1 b^T,  H = relu(Z).  Write its
 * backward pass: given dH = dL/dH for some loss L, compute dL/dX, dL/dWs,
 * dL/dWn and dL/db. Work it out on paper first:
 *   - relu passes the gradient where Z > 0 and stops it elsewhere;
 *   - a product A B has dL/dA = dL/d(AB) B^T and dL/dB = A^T dL/d(AB);
 *   - M is not symmetric: node j's row of X reaches every node i that has j
 *     as a neighbour, each with the weight 1 / deg(i). The gradient has to
 *     flow back along those edges (M^T), not along M.
 * The grader perturbs every input by a small step, measures how L changes
 * (finite differences) and compares with what you return; then it trains
 * the layer with your gradients on a synthetic graph.
 *
 * Plain C: the file may use nothing of fgl (no autodiff tape).
 *
 * Grade it: make -C course grade
 */
#include "course.h"

int sage_backward(const sage_graph *g, const float *X, int f, const float *Ws, const float *Wn, int h,
                  const float *Z, const float *dH, float *dX, float *dWs, float *dWn, float *db) {
    /* TODO: your code here (and delete the next lines) */
    (void)g, (void)X, (void)f, (void)Ws, (void)Wn, (void)h, (void)Z, (void)dH, (void)dX, (void)dWs, (void)dWn, (void)db;
    return FGL_ERR_UNSUPPORTED;
}
