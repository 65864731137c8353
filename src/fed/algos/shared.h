#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:private */
#include "../../alone.h"
FGL__PRIVATE void fgl__simplex_project(const double *v, int k, double *x, double *work);
FGL__PRIVATE double fgl__stoer_wagner(const double *w, int n, unsigned char *side);
FGL__PRIVATE double fgl__dtw(const double *x, int n, const double *y, int m);
/* fgl:implementation */
#include "../../alone.h"
/* --- small algorithms the methods share -------------------------------------- */
/* Simplex projection (pFedGraph's collaboration weights), a global minimum
 * cut (GCFL's cluster split), dynamic time warping (GCFL+'s comparison of
 * update-norm sequences) and probe graphs (FED-PUB's proxy graph, GPFL's
 * random graphs): each written once, here. */

/* Euclidean projection of v (k entries) onto the probability simplex into x
 * (Held, Wolfe and Crowder 1974; Duchi et al. 2008): sort descending, find
 * the largest r with s_r > (sum_{t<=r} s_t - 1)/r, shift by that threshold
 * and clip at 0. work: k doubles. */
FGL__PRIVATE void fgl__simplex_project(const double *v, int k, double *x, double *work) {
    double cum = 0, tau = 0;
    int i, j;
    for (i = 0; i < k; i++) { /* insertion sort, descending: k is the number of clients */
        double y = v[i];
        for (j = i; j > 0 && work[j - 1] < y; j--) work[j] = work[j - 1];
        work[j] = y;
    }
    for (i = 0; i < k; i++) {
        double t;
        cum += work[i];
        t = (cum - 1.0) / (i + 1);
        if (work[i] > t) tau = t; /* the condition holds for a prefix of the sorted entries */
    }
    for (i = 0; i < k; i++) x[i] = v[i] > tau ? v[i] - tau : 0.0;
}

/* Global minimum cut of the complete graph on n >= 2 vertices with symmetric
 * non-negative edge weights w (n x n, row-major, diagonal ignored), by Stoer &
 * Wagner (1997): n - 1 phases; each orders the current (merged) vertices by
 * maximum adjacency to the growing set A, the last one t is cut off with
 * weight w(A - t, t) ("cut of the phase"), then t is merged into the vertex
 * added before it. The lightest cut of the phase is a global minimum cut.
 * Ties go to the lowest index, so the result is deterministic.
 * side[i] = 1 for the vertices of the cut's side that does not hold vertex 0.
 * Returns the cut weight, or -1 if n < 2 or out of memory. O(n^3). */
FGL__PRIVATE double fgl__stoer_wagner(const double *w, int n, unsigned char *side) {
    double *a, *key, best = -1;
    int *owner, i, u, phase;
    unsigned char *alive, *in_a;
    if (n < 2) return -1;
    a = (double *)FGL_MALLOC(sizeof(double) * (size_t)n * (size_t)n);
    key = (double *)FGL_MALLOC(sizeof(double) * (size_t)n);
    owner = (int *)FGL_MALLOC(sizeof(int) * (size_t)n);
    alive = (unsigned char *)FGL_MALLOC((size_t)n);
    in_a = (unsigned char *)FGL_MALLOC((size_t)n);
    if (!a || !key || !owner || !alive || !in_a) goto done;
    for (i = 0; i < n; i++)
        for (u = 0; u < n; u++) a[(size_t)i * n + u] = i == u ? 0.0 : w[(size_t)i * n + u];
    for (i = 0; i < n; i++) {
        owner[i] = i; /* the merged vertex original vertex i belongs to */
        alive[i] = 1;
        side[i] = 0;
    }
    for (phase = 0; phase < n - 1; phase++) {
        int left = n - phase, k, prev = -1, last = -1;
        double cut = 0;
        for (i = 0; i < n; i++) {
            in_a[i] = 0;
            key[i] = 0;
        }
        for (k = 0; k < left; k++) { /* add the most tightly connected vertex */
            int v = -1;
            for (u = 0; u < n; u++)
                if (alive[u] && !in_a[u] && (v < 0 || key[u] > key[v])) v = u;
            in_a[v] = 1;
            prev = last;
            last = v;
            cut = key[v];
            for (u = 0; u < n; u++)
                if (alive[u] && !in_a[u]) key[u] += a[(size_t)v * n + u];
        }
        if (best < 0 || cut < best) {
            best = cut;
            for (i = 0; i < n; i++) side[i] = (unsigned char)(owner[i] == last);
        }
        for (u = 0; u < n; u++) { /* merge last into prev */
            a[(size_t)prev * n + u] += a[(size_t)last * n + u];
            a[(size_t)u * n + prev] = a[(size_t)prev * n + u];
        }
        a[(size_t)prev * n + prev] = 0;
        alive[last] = 0;
        for (i = 0; i < n; i++)
            if (owner[i] == last) owner[i] = prev;
    }
    if (side[0])
        for (i = 0; i < n; i++) side[i] = (unsigned char)!side[i];
done:
    FGL_FREE(a);
    FGL_FREE(key);
    FGL_FREE(owner);
    FGL_FREE(alive);
    FGL_FREE(in_a);
    return best;
}

/* Dynamic time warping distance of sequences x (n) and y (m): the cheapest
 * monotone alignment path from (0, 0) to (n-1, m-1) with steps (1,0), (0,1),
 * (1,1) and point cost (x_i - y_j)^2; returned as the square root of that
 * cost (the convention of dtaidistance's dtw.distance, which GCFL+'s code
 * uses). -1 if a sequence is empty or out of memory. */
FGL__PRIVATE double fgl__dtw(const double *x, int n, const double *y, int m) {
    double *prev, *cur, r;
    int i, j;
    if (n < 1 || m < 1) return -1;
    prev = (double *)FGL_MALLOC(sizeof(double) * (size_t)m);
    cur = (double *)FGL_MALLOC(sizeof(double) * (size_t)m);
    if (!prev || !cur) {
        FGL_FREE(prev);
        FGL_FREE(cur);
        return -1;
    }
    for (i = 0; i < n; i++) {
        for (j = 0; j < m; j++) {
            double d = (x[i] - y[j]) * (x[i] - y[j]), b;
            if (i == 0 && j == 0) b = 0;
            else if (i == 0) b = cur[j - 1];
            else if (j == 0) b = prev[j];
            else {
                b = prev[j - 1];
                if (prev[j] < b) b = prev[j];
                if (cur[j - 1] < b) b = cur[j - 1];
            }
            cur[j] = d + b;
        }
        for (j = 0; j < m; j++) prev[j] = cur[j];
    }
    r = sqrt(prev[m - 1]);
    FGL_FREE(prev);
    FGL_FREE(cur);
    return r;
}

/* A probe: graphs every client builds alike from the run seed, to report
 * what its model makes of them (FED-PUB's proxy graph, GPFL's random
 * graphs): n nodes in n_graphs graphs side by side (graph g holds nodes
 * offsets[g] .. offsets[g + 1] - 1), their features (n x in_dim, zeroed
 * until the algorithm writes them) and the model's view. Client scratch:
 * rebuilt from the seed, never checkpointed. */
typedef struct fgl__probe {
    int n, n_graphs, in_dim;
    fgl_csr adj;
    float *x;
    int *offsets;
    fgl_gnn_graph g;
    int *src, *dst, m, cap; /* the edges while they are drawn */
} fgl__probe;

static void fgl__probe_free(void *p) {
    fgl__probe *pb = (fgl__probe *)p;
    fgl_gnn_graph_free(&pb->g);
    fgl_csr_free(&pb->adj);
    FGL_FREE(pb->x);
    FGL_FREE(pb->offsets);
    FGL_FREE(pb->src);
    FGL_FREE(pb->dst);
}

/* A new probe of n nodes and n_graphs graphs in c's scratch, or NULL (out
 * of memory). */
static fgl__probe *fgl__probe_new(fgl_client *c, const char *name, int n, int n_graphs) {
    int F = c->model.spec.in_dim;
    fgl__probe *pb = (fgl__probe *)fgl_new_scratch(&c->store, name, sizeof(fgl__probe), fgl__probe_free);
    if (!pb) return NULL;
    pb->n = n;
    pb->n_graphs = n_graphs;
    pb->in_dim = F;
    pb->x = (float *)FGL_MALLOC(sizeof(float) * (size_t)n * (size_t)F);
    pb->offsets = (int *)FGL_MALLOC(sizeof(int) * (size_t)(n_graphs + 1));
    if (!pb->x || !pb->offsets) return NULL;
    memset(pb->x, 0, sizeof(float) * (size_t)n * (size_t)F);
    pb->offsets[0] = 0;
    pb->offsets[n_graphs] = n;
    return pb;
}

/* Add the edge (i, j) (either direction; the adjacency is symmetrised). */
static int fgl__probe_edge(fgl__probe *pb, int i, int j) {
    if (pb->m == pb->cap) {
        int cap = pb->cap ? 2 * pb->cap : 1024, *ns, *nd;
        ns = (int *)FGL_REALLOC(pb->src, sizeof(int) * (size_t)cap);
        if (ns) pb->src = ns;
        nd = (int *)FGL_REALLOC(pb->dst, sizeof(int) * (size_t)cap);
        if (nd) pb->dst = nd;
        if (!ns || !nd) return FGL_ERR_NOMEM;
        pb->cap = cap;
    }
    pb->src[pb->m] = i;
    pb->dst[pb->m++] = j;
    return FGL_OK;
}

/* The adjacency from the edges added (then dropped). */
static int fgl__probe_adjacency(fgl__probe *pb, fgl_error *err) {
    int rc = fgl_graph_from_edges(pb->n, pb->src, pb->dst, pb->m, FGL_EDGES_SYMMETRIZE, &pb->adj, err);
    FGL_FREE(pb->src);
    FGL_FREE(pb->dst);
    pb->src = pb->dst = NULL;
    pb->m = pb->cap = 0;
    return rc;
}

/* The model's view, once the features are written: graph tasks see the
 * n_graphs graphs, node tasks one graph of n nodes. */
static int fgl__probe_view(fgl__probe *pb, const fgl_client *c, fgl_error *err) {
    int graphs = c->task == FGL_TASK_GRAPH;
    return fgl_gnn_graph_make(&pb->g, &pb->adj, NULL, pb->x, NULL, pb->in_dim, NULL, 0, graphs ? pb->offsets : NULL,
                              graphs ? pb->n_graphs : 0, &c->model.spec, err);
}
#include "../../alone.h"
