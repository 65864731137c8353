#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Structure encodings (FedStar)                                            */
/* ------------------------------------------------------------------------ */

/* Degree structure encoding: row i of out (n x K floats, row-major) is the
 * one-hot of clip(d_i, 1, K) - 1. An isolated node (d = 0) is encoded like a
 * degree-1 node (column 0), as clip() implies. */
FGLDEF int fgl_dse(const fgl_csr *adj, int K, float *out);
/* Random-walk structure encoding: row i of out (n x K) is [T_ii, (T^2)_ii,
 * ..., (T^K)_ii] with T = A D^-1, i.e. the probabilities that a random walk
 * from i is back at i after 1..K steps. D^-1 of an isolated node is taken as
 * 0, so its row is all zeros (never NaN). Computed per node with sparse
 * vectors over the ball of radius ceil(K/2) (using S = D^-1/2 A D^-1/2, whose
 * powers have the same diagonal: (S^2t)_ii = |S^t e_i|^2, (S^2t+1)_ii =
 * <S^t e_i, S^t+1 e_i>): exact, fast on small graphs and graph sets (the
 * block-diagonal adjacency of a whole set is fine); on one large graph the
 * cost is N times the edges of such a ball, so keep K small there. */
FGLDEF int fgl_rwse(const fgl_csr *adj, int K, float *out);
/* FedStar's structure embedding of every node of a graph set: s->pe =
 * [DSE | RWSE] (k_dse + k_rwse columns; docs/algorithms.md: 16+16), computed
 * once on the set's block-diagonal adjacency. */
FGLDEF int fgl_structure_encodings(fgl_graph_set *s, int k_dse, int k_rwse, fgl_error *err);

/* fgl:implementation */
#include "../alone.h"
/* --- structure encodings -------------------------------------------------- */

FGLDEF int fgl_dse(const fgl_csr *adj, int K, float *out) {
    int i;
    if (!adj || !out || K < 1) return FGL_ERR_ARG;
    memset(out, 0, sizeof(float) * (size_t)adj->rows * (size_t)K);
    for (i = 0; i < adj->rows; i++) {
        int d = fgl__g_deg(adj, i);
        d = d < 1 ? 1 : d > K ? K : d;
        out[(size_t)i * K + (size_t)(d - 1)] = 1.0f;
    }
    return FGL_OK;
}

FGLDEF int fgl_rwse(const fgl_csr *adj, int K, float *out) {
    /* x_t = S^t e_i kept as values over a list of touched nodes ordered by
     * first touch; cnt[t] = how many nodes x_t may be non-zero on. */
    int n, H, i, t;
    int *list = NULL, *seen = NULL, *cnt = NULL;
    double *isq = NULL, *x = NULL;
    if (!adj || !out || K < 1) return FGL_ERR_ARG;
    n = adj->rows;
    H = (K + 1) / 2;
    list = FGL__G_NEW(int, n);
    seen = FGL__G_NEW(int, n);
    cnt = FGL__G_NEW(int, (size_t)H + 1);
    isq = FGL__G_NEW(double, n);
    x = FGL__G_NEW2(double, n, H + 1);
    if (!list || !seen || !cnt || !isq || !x) {
        FGL_FREE(list);
        FGL_FREE(seen);
        FGL_FREE(cnt);
        FGL_FREE(isq);
        FGL_FREE(x);
        return FGL_ERR_NOMEM;
    }
    for (i = 0; i < n; i++) {
        int d = fgl__g_deg(adj, i);
        isq[i] = d > 0 ? 1.0 / sqrt((double)d) : 0.0;
        seen[i] = 0;
    }
    memset(x, 0, sizeof(double) * (size_t)n * (size_t)(H + 1));
    for (i = 0; i < n; i++) {
        float *o = out + (size_t)i * K;
        int len = 1, q, k;
        list[0] = i;
        seen[i] = 1;
        x[(size_t)i * (H + 1)] = 1.0;
        cnt[0] = 1;
        for (t = 0; t < H; t++) {
            int upto = len;
            for (q = 0; q < upto; q++) {
                int v = list[q];
                double xv = x[(size_t)v * (H + 1) + t];
                if (xv == 0.0) continue;
                xv *= isq[v];
                for (k = adj->indptr[v]; k < adj->indptr[v + 1]; k++) {
                    int u = adj->indices[k];
                    if (!seen[u]) {
                        seen[u] = 1;
                        list[len++] = u;
                    }
                    x[(size_t)u * (H + 1) + t + 1] += xv * isq[u];
                }
            }
            cnt[t + 1] = len;
        }
        for (k = 1; k <= K; k++) {
            int a = k / 2, b = k - a; /* (S^k)_ii = <x_a, x_b> */
            double s = 0;
            for (q = 0; q < cnt[b]; q++) {
                const double *xv = x + (size_t)list[q] * (H + 1);
                s += xv[a] * xv[b];
            }
            o[k - 1] = (float)s;
        }
        for (q = 0; q < len; q++) {
            seen[list[q]] = 0;
            memset(x + (size_t)list[q] * (H + 1), 0, sizeof(double) * (size_t)(H + 1));
        }
    }
    FGL_FREE(list);
    FGL_FREE(seen);
    FGL_FREE(cnt);
    FGL_FREE(isq);
    FGL_FREE(x);
    return FGL_OK;
}

/* --- a graph set's structure encodings ---------------------------------- */

FGLDEF int fgl_structure_encodings(fgl_graph_set *s, int k_dse, int k_rwse, fgl_error *err) {
    size_t n = (size_t)s->n_nodes, i;
    int w = k_dse + k_rwse, rc = FGL_OK, j;
    float *dse, *rwse, *pe;
    if (k_dse < 0 || k_rwse < 0 || w <= 0)
        return fgl_error_set(err, FGL_ERR_ARG, "structure encodings: widths %d + %d", k_dse, k_rwse);
    dse = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(n * (size_t)k_dse, 1));
    rwse = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(n * (size_t)k_rwse, 1));
    pe = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(n * (size_t)w, 1));
    if (!dse || !rwse || !pe) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory for structure encodings", s->name);
        goto done;
    }
    if ((k_dse && (rc = fgl_dse(&s->adj, k_dse, dse))) || (k_rwse && (rc = fgl_rwse(&s->adj, k_rwse, rwse)))) {
        fgl_error_set(err, rc, "%s: structure encodings failed (%s)", s->name, fgl_result_name(rc));
        goto done;
    }
    for (i = 0; i < n; i++) {
        for (j = 0; j < k_dse; j++) pe[i * w + j] = dse[i * k_dse + j];
        for (j = 0; j < k_rwse; j++) pe[i * w + k_dse + j] = rwse[i * k_rwse + j];
    }
    FGL_FREE(s->pe);
    s->pe = pe;
    s->n_pe = w;
    pe = NULL;
done:
    FGL_FREE(dse);
    FGL_FREE(rwse);
    FGL_FREE(pe);
    return rc;
}

#include "../alone.h"
