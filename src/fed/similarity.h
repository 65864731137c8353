#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* How a client-to-client matrix relates to the clients' labels             */
/* ------------------------------------------------------------------------ */

/* Spearman's rank correlation of x and y (n values; ties get their mean
 * rank); 0 if either is constant or n < 2. */
FGLDEF double fgl_spearman(const double *x, const double *y, int n);
/* sim (K x K) = cosine similarity of the clients' label histograms (all
 * their labelled nodes, or all their graphs). */
FGLDEF int fgl_label_similarity(const fgl_client_data *cd, int K, double *sim);
/* The mean over clients i of the Spearman correlation, across j != i,
 * between m[i][j] (e.g. an algorithm's client_matrix) and ref[i][j] (e.g.
 * fgl_label_similarity): 1 when every client ranks the others in the order
 * of ref. perm (may be NULL) compares with ref[perm[i]][perm[j]] instead: a
 * random permutation gives a null value. */
FGLDEF double fgl_rowwise_spearman(const float *m, const double *ref, int K, const int *perm);

/* fgl:implementation */
#include "../alone.h"
/* --- client matrices against the clients' labels --------------------------------- */

/* ranks 1..n of x, ties averaged (O(n^2): n is a number of clients) */
static void fgl__ranks(const double *x, int n, double *r) {
    int i, j;
    for (i = 0; i < n; i++) {
        double less = 0, equal = 0;
        for (j = 0; j < n; j++) {
            less += x[j] < x[i];
            equal += x[j] == x[i];
        }
        r[i] = less + (equal + 1) / 2.0;
    }
}

FGLDEF double fgl_spearman(const double *x, const double *y, int n) {
    double *rx, *ry, mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0, rho;
    int i;
    if (n < 2) return 0;
    rx = (double *)FGL_MALLOC(sizeof(double) * 2 * (size_t)n);
    if (!rx) return 0;
    ry = rx + n;
    fgl__ranks(x, n, rx);
    fgl__ranks(y, n, ry);
    for (i = 0; i < n; i++) {
        mx += rx[i] / n;
        my += ry[i] / n;
    }
    for (i = 0; i < n; i++) {
        sxy += (rx[i] - mx) * (ry[i] - my);
        sxx += (rx[i] - mx) * (rx[i] - mx);
        syy += (ry[i] - my) * (ry[i] - my);
    }
    rho = sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
    FGL_FREE(rx);
    return rho;
}

FGLDEF int fgl_label_similarity(const fgl_client_data *cd, int K, double *sim) {
    int i, j, c, C = 0;
    double *h;
    for (i = 0; i < K; i++) {
        int ci = cd[i].node ? cd[i].node->n_classes : cd[i].graphs ? cd[i].graphs->n_classes : 0;
        C = ci > C ? ci : C;
    }
    h = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(K * C, 1));
    if (!h) return FGL_ERR_NOMEM;
    memset(h, 0, sizeof(double) * (size_t)FGL__MAX(K * C, 1));
    for (i = 0; i < K; i++) {
        int n = cd[i].node ? cd[i].node->n_nodes : cd[i].graphs ? cd[i].graphs->n_graphs : 0;
        const int *y = cd[i].node ? cd[i].node->y : cd[i].graphs ? cd[i].graphs->y : NULL;
        for (j = 0; y && j < n; j++)
            if (y[j] >= 0 && y[j] < C) h[(size_t)i * C + y[j]] += 1;
    }
    for (i = 0; i < K; i++)
        for (j = 0; j < K; j++) {
            double dot = 0, ni = 0, nj = 0;
            for (c = 0; c < C; c++) {
                dot += h[(size_t)i * C + c] * h[(size_t)j * C + c];
                ni += h[(size_t)i * C + c] * h[(size_t)i * C + c];
                nj += h[(size_t)j * C + c] * h[(size_t)j * C + c];
            }
            sim[(size_t)i * K + j] = ni > 0 && nj > 0 ? dot / sqrt(ni * nj) : 0;
        }
    FGL_FREE(h);
    return FGL_OK;
}

FGLDEF double fgl_rowwise_spearman(const float *m, const double *ref, int K, const int *perm) {
    double *a, *b, sum = 0;
    int i, j, n;
    if (K < 3) return 0; /* fewer than two others to rank */
    a = (double *)FGL_MALLOC(sizeof(double) * 2 * (size_t)K);
    if (!a) return 0;
    b = a + K;
    for (i = 0; i < K; i++) {
        n = 0;
        for (j = 0; j < K; j++) {
            if (j == i) continue;
            a[n] = m[(size_t)i * K + j];
            b[n] = perm ? ref[(size_t)perm[i] * K + perm[j]] : ref[(size_t)i * K + j];
            n++;
        }
        sum += fgl_spearman(a, b, n);
    }
    FGL_FREE(a);
    return sum / K;
}

#include "../alone.h"
