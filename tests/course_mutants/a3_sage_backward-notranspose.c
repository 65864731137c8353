/* A mutant of course/teacher/solutions/a3_sage_backward.c for tests/test_course.sh:
 * dX goes back along M instead of M's transpose (equal only where degrees
 * are equal). The other gradients are right.
 * expect: a3.4 a3.5 */
#include "course.h"

int sage_backward(const sage_graph *g, const float *X, int f, const float *Ws, const float *Wn, int h,
                  const float *Z, const float *dH, float *dX, float *dWs, float *dWn, float *db) {
    int n = g->n, i, j, k, e;
    float *dZ = (float *)malloc(sizeof(float) * (size_t)n * (size_t)h);
    float *MX = (float *)malloc(sizeof(float) * (size_t)n * (size_t)f);
    float *dMX = (float *)malloc(sizeof(float) * (size_t)n * (size_t)f);
    if (!dZ || !MX || !dMX) {
        free(dZ);
        free(MX);
        free(dMX);
        return FGL_ERR_NOMEM;
    }
    /* relu */
    for (i = 0; i < n * h; i++) dZ[i] = Z[i] > 0 ? dH[i] : 0;
    /* M X, as the forward computes it */
    for (i = 0; i < n; i++) {
        int deg = g->rowptr[i + 1] - g->rowptr[i];
        for (j = 0; j < f; j++) {
            float m = 0;
            for (e = g->rowptr[i]; e < g->rowptr[i + 1]; e++) m += X[g->col[e] * f + j];
            MX[i * f + j] = deg > 0 ? m / (float)deg : 0;
        }
    }
    /* db = column sums of dZ; dWs = X^T dZ; dWn = (M X)^T dZ */
    for (k = 0; k < h; k++) db[k] = 0;
    for (j = 0; j < f * h; j++) dWs[j] = dWn[j] = 0;
    for (i = 0; i < n; i++)
        for (k = 0; k < h; k++) {
            float d = dZ[i * h + k];
            db[k] += d;
            for (j = 0; j < f; j++) {
                dWs[j * h + k] += X[i * f + j] * d;
                dWn[j * h + k] += MX[i * f + j] * d;
            }
        }
    /* dX = dZ Ws^T + M^T (dZ Wn^T) */
    for (i = 0; i < n; i++)
        for (j = 0; j < f; j++) {
            float a = 0, b = 0;
            for (k = 0; k < h; k++) {
                a += dZ[i * h + k] * Ws[j * h + k];
                b += dZ[i * h + k] * Wn[j * h + k];
            }
            dX[i * f + j] = a;
            dMX[i * f + j] = b;
        }
    for (i = 0; i < n; i++) { /* WRONG: M dMX (each node averages its neighbours' dMX) instead of M^T dMX */
        int deg = g->rowptr[i + 1] - g->rowptr[i];
        if (deg == 0) continue;
        for (e = g->rowptr[i]; e < g->rowptr[i + 1]; e++)
            for (j = 0; j < f; j++) dX[i * f + j] += dMX[g->col[e] * f + j] / (float)deg;
    }
    free(dZ);
    free(MX);
    free(dMX);
    return FGL_OK;
}
