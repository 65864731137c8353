#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Graph properties                                                         */
/* ------------------------------------------------------------------------ */
/* Formulas (N nodes, E undirected edges, d_i degrees, ln natural log):
 *   density           2E / (N (N - 1))               (0 if N < 2)
 *   avg degree        2E / N                         (0 if N = 0)
 *   degree variance   (1/N) sum_i (d_i - 2E/N)^2     (population variance)
 *   network entropy   sum_i d_i ln d_i / (2E)        (0 if E = 0; 0 ln 0 = 0)
 *                     the entropy rate of the random walk on a connected
 *                     graph, GPFL's "sum d log d / E" with E counting both
 *                     directions; GPFL z-scores it, so the scale is moot.
 *   scale-free exp.   1 + n1 / sum_{d_i >= 1} ln(d_i / (1 - 1/2)), n1 the
 *                     number of nodes with degree >= d_min = 1: the discrete
 *                     maximum-likelihood power-law estimate (Clauset et al.
 *                     2009, eq. 3.7) with d_min = 1 (0 if n1 = 0).
 *   closeness         per node u with r_u nodes reachable (u included) and
 *                     S_u the sum of their distances: (r_u - 1)/S_u scaled by
 *                     (r_u - 1)/(N - 1) (Wasserman-Faust, per component, as
 *                     networkx's default); 0 for isolated nodes; averaged
 *                     over nodes. BFS from every node: O(N E).
 *   clustering        c_i = 2 T_i / (d_i (d_i - 1)), T_i the triangles
 *                     through i, 0 if d_i < 2; the average is over all N
 *                     nodes (zeros included).
 * Edge and node homophily, and the measures beside them: homophily.h. */
FGLDEF double fgl_graph_density(const fgl_csr *adj);
FGLDEF double fgl_graph_avg_degree(const fgl_csr *adj);
FGLDEF double fgl_graph_degree_variance(const fgl_csr *adj);
FGLDEF double fgl_graph_entropy(const fgl_csr *adj);
FGLDEF double fgl_graph_scale_free_exponent(const fgl_csr *adj);
/* Closeness of every node into out (n doubles, may be NULL) and their mean
 * into avg (may be NULL). */
FGLDEF int fgl_graph_closeness(const fgl_csr *adj, double *out, double *avg);
/* Local clustering of every node into local (may be NULL), mean into avg. */
FGLDEF int fgl_graph_clustering(const fgl_csr *adj, double *local, double *avg);

/* GPFL's six properties of one graph (plus clustering), in one call. */
typedef struct fgl_graph_props {
    double avg_degree, density, degree_variance, entropy, scale_free, closeness;
    double clustering;
} fgl_graph_props;
FGLDEF int fgl_graph_properties(const fgl_csr *adj, fgl_graph_props *out, fgl_error *err);

/* fgl:implementation */
#include "../alone.h"
/* --- graph properties ----------------------------------------------------- */

FGLDEF double fgl_graph_density(const fgl_csr *adj) {
    double n = adj->rows;
    return adj->rows < 2 ? 0.0 : (double)adj->nnz / (n * (n - 1));
}

FGLDEF double fgl_graph_avg_degree(const fgl_csr *adj) {
    return adj->rows < 1 ? 0.0 : (double)adj->nnz / adj->rows;
}

FGLDEF double fgl_graph_degree_variance(const fgl_csr *adj) {
    double mean = fgl_graph_avg_degree(adj), s = 0;
    int i;
    if (adj->rows < 1) return 0.0;
    for (i = 0; i < adj->rows; i++) {
        double d = fgl__g_deg(adj, i) - mean;
        s += d * d;
    }
    return s / adj->rows;
}

FGLDEF double fgl_graph_entropy(const fgl_csr *adj) {
    double s = 0;
    int i;
    if (adj->nnz == 0) return 0.0;
    for (i = 0; i < adj->rows; i++) {
        int d = fgl__g_deg(adj, i);
        if (d > 0) s += d * log((double)d);
    }
    return s / adj->nnz;
}

FGLDEF double fgl_graph_scale_free_exponent(const fgl_csr *adj) {
    double s = 0;
    int i, n1 = 0;
    for (i = 0; i < adj->rows; i++) {
        int d = fgl__g_deg(adj, i);
        if (d >= 1) {
            s += log(d / 0.5);
            n1++;
        }
    }
    return n1 ? 1.0 + n1 / s : 0.0;
}

FGLDEF int fgl_graph_closeness(const fgl_csr *adj, double *out, double *avg) {
    int n = adj->rows, *dist, *queue, s;
    double sum = 0;
    if (avg) *avg = 0;
    if (n == 0) return FGL_OK;
    dist = FGL__G_NEW(int, n);
    queue = FGL__G_NEW(int, n);
    if (!dist || !queue) {
        FGL_FREE(dist);
        FGL_FREE(queue);
        return FGL_ERR_NOMEM;
    }
    for (s = 0; s < n; s++) dist[s] = -1;
    for (s = 0; s < n; s++) {
        int head = 0, tail = 0, q;
        long long tot = 0;
        double c = 0;
        dist[s] = 0;
        queue[tail++] = s;
        while (head < tail) {
            int v = queue[head++], k;
            tot += dist[v];
            for (k = adj->indptr[v]; k < adj->indptr[v + 1]; k++) {
                int u = adj->indices[k];
                if (dist[u] < 0) {
                    dist[u] = dist[v] + 1;
                    queue[tail++] = u;
                }
            }
        }
        if (tot > 0 && n > 1) c = ((double)(tail - 1) / (double)tot) * ((double)(tail - 1) / (n - 1));
        if (out) out[s] = c;
        sum += c;
        for (q = 0; q < tail; q++) dist[queue[q]] = -1;
    }
    if (avg) *avg = sum / n;
    FGL_FREE(dist);
    FGL_FREE(queue);
    return FGL_OK;
}

FGLDEF int fgl_graph_clustering(const fgl_csr *adj, double *local, double *avg) {
    /* Mark the neighbours of i, then count marked neighbours of each
     * neighbour: every triangle through i is seen twice. */
    int n = adj->rows, *mark, i;
    double sum = 0;
    if (avg) *avg = 0;
    if (n == 0) return FGL_OK;
    mark = FGL__G_NEW(int, n);
    if (!mark) return FGL_ERR_NOMEM;
    for (i = 0; i < n; i++) mark[i] = -1;
    for (i = 0; i < n; i++) {
        int d = fgl__g_deg(adj, i), k, q;
        long long links = 0;
        double c = 0;
        if (d >= 2) {
            for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) mark[adj->indices[k]] = i;
            for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) {
                int j = adj->indices[k];
                if (j == i) continue;
                for (q = adj->indptr[j]; q < adj->indptr[j + 1]; q++)
                    if (adj->indices[q] != i && adj->indices[q] != j && mark[adj->indices[q]] == i) links++;
            }
            c = (double)links / ((double)d * (d - 1));
        }
        if (local) local[i] = c;
        sum += c;
    }
    if (avg) *avg = sum / n;
    FGL_FREE(mark);
    return FGL_OK;
}

FGLDEF int fgl_graph_properties(const fgl_csr *adj, fgl_graph_props *out, fgl_error *err) {
    int rc;
    memset(out, 0, sizeof *out);
    if (!adj || adj->rows != adj->cols)
        return fgl_error_set(err, FGL_ERR_ARG, "graph_properties: need a square adjacency");
    out->avg_degree = fgl_graph_avg_degree(adj);
    out->density = fgl_graph_density(adj);
    out->degree_variance = fgl_graph_degree_variance(adj);
    out->entropy = fgl_graph_entropy(adj);
    out->scale_free = fgl_graph_scale_free_exponent(adj);
    rc = fgl_graph_closeness(adj, NULL, &out->closeness);
    if (rc == FGL_OK) rc = fgl_graph_clustering(adj, NULL, &out->clustering);
    if (rc) return fgl_error_set(err, rc, "graph_properties: out of memory (%d nodes)", adj->rows);
    return FGL_OK;
}

#include "../alone.h"
