#include "../alone.h" /* (this file alone: src/alone.h) */
/* Per-node or per-graph split codes. */
enum { FGL_SPLIT_NONE = 0, FGL_SPLIT_TRAIN = 1, FGL_SPLIT_VAL = 2, FGL_SPLIT_TEST = 3 };

#define FGL_NAME_LEN 64

/* Caps of what a file may declare (see LOADERS): class labels lie in
 * 0..FGL_MAX_CLASSES-1; a declared feature count is at most
 * FGL_MAX_FEATURES. */
#define FGL_MAX_CLASSES (1 << 20)
#define FGL_MAX_FEATURES (1 << 24)

/* One graph for node classification. Features are dense (x) or sparse
 * (x_sparse, rows = nodes); exactly one of them is non-empty. */
typedef struct fgl_node_data {
    char name[FGL_NAME_LEN];
    int n_nodes, n_feat, n_classes;
    fgl_csr adj;            /* a graph (the contract above), values NULL */
    fgl_tensor x;           /* n_nodes x n_feat dense features, or empty */
    fgl_csr x_sparse;       /* n_nodes x n_feat sparse features, or rows == 0 */
    int *y;                 /* n_nodes labels in 0..n_classes-1 (-1: unknown) */
    unsigned char *split;   /* n_nodes FGL_SPLIT_* codes, or NULL */
    fgl_csr adj_gcn;        /* cache: D^-1/2 (A + I) D^-1/2, rows == 0 until built */
    /* A client's data with its halo (fgl_split_halo; NULL / 0 otherwise, as every other split leaves it):
     * rows 0..n_own-1 are the client's own nodes, rows n_own.. its halo, the nodes of other clients within
     * halo_hops hops of them, known by structure only (features zero, label -1, split NONE) until FedGCN's
     * exchange fills their features in. gid[r] is row r's node id in the whole graph; the edges between own
     * rows and halo rows are the cut edges, and adj_gcn is built with the whole graph's degrees. */
    int *gid;
    int n_own, halo_hops;
} fgl_node_data;

/* Many small graphs for graph classification. Graph g owns the nodes
 * node_ptr[g] .. node_ptr[g+1]-1; adj is block-diagonal over all nodes. */
typedef struct fgl_graph_set {
    char name[FGL_NAME_LEN];
    int n_graphs, n_nodes, n_classes;
    int *node_ptr;          /* n_graphs + 1 */
    fgl_csr adj;            /* n_nodes x n_nodes graph, block-diagonal */
    int *y;                 /* n_graphs labels in 0..n_classes-1 */
    unsigned char *split;   /* n_graphs FGL_SPLIT_* codes, or NULL */
    /* raw node information from the files (NULL / 0 when absent) */
    int *node_labels;       /* n_nodes, remapped to 0..n_node_label_values-1 */
    int n_node_label_values;
    float *node_attr;       /* n_nodes x n_node_attr */
    int n_node_attr;
    /* model inputs built from the above (see the feature builders) */
    float *x;               /* n_nodes x n_feat node features */
    int n_feat;
    float *pe;              /* n_nodes x n_pe structure/positional encodings */
    int n_pe;
} fgl_graph_set;

/* A block-diagonal batch of graphs: graph b of the batch owns batch nodes
 * offsets[b] .. offsets[b+1]-1. */
typedef struct fgl_batch {
    int n_graphs, n_nodes, n_feat, n_pe;
    fgl_csr adj;            /* batch adjacency (a graph, block-diagonal) */
    fgl_csr adj_gcn;        /* cache: D^-1/2 (A + I) D^-1/2, rows == 0 until built (fgl_batch_gcn) */
    float *x;               /* n_nodes x n_feat */
    float *pe;              /* n_nodes x n_pe, or NULL */
    int *offsets;           /* n_graphs + 1 */
    int *graph_of_node;     /* n_nodes: index of the node's graph in the batch */
    int *y;                 /* n_graphs labels */
    int *ids;               /* n_graphs: ids of the graphs in the set */
} fgl_batch;

/* ------------------------------------------------------------------------ */
/* Graphs                                                                   */
/* ------------------------------------------------------------------------ */

/* Flags of fgl_graph_from_edges. */
enum {
    FGL_EDGES_SYMMETRIZE = 1u << 0,      /* add (v, u) for every (u, v) */
    FGL_EDGES_ADD_SELF_LOOPS = 1u << 1,  /* every node gets exactly one (i, i) */
    FGL_EDGES_DROP_SELF_LOOPS = 1u << 2  /* remove (i, i) entries of the input */
};

/* n x n pattern CSR (values NULL, sorted, duplicates merged) from m edges
 * src[k] -> dst[k]; ids outside 0..n-1 are FGL_ERR_RANGE. ADD_SELF_LOOPS
 * wins over DROP_SELF_LOOPS. */
FGLDEF int fgl_graph_from_edges(int n, const int *src, const int *dst, int m, unsigned flags,
                                fgl_csr *out, fgl_error *err);
/* deg[i] = number of entries of row i (the degree of a graph without self loops). */
FGLDEF void fgl_graph_degrees(const fgl_csr *adj, int *deg);
/* Undirected edges of a symmetric graph: entries above the diagonal plus self loops. */
FGLDEF int fgl_graph_num_edges(const fgl_csr *adj);
/* 1 if the pattern is symmetric (values are not compared). */
FGLDEF int fgl_graph_is_symmetric(const fgl_csr *adj);
/* FGL_OK if adj satisfies the graph contract (top of this file): square
 * (else FGL_ERR_SHAPE), a valid CSR with strictly increasing columns (the
 * codes of fgl_csr_validate), no self loop and a symmetric pattern (else
 * FGL_ERR_FORMAT); err says which rule fails where. */
FGLDEF int fgl_graph_validate(const fgl_csr *adj, fgl_error *err);
/* Induced subgraph on nodes[0..n-1] (distinct; new id i = old id nodes[i]):
 * out is n x n, values kept. old_to_new (adj->rows ints, may be NULL) gets
 * the new id of every old node, -1 if not chosen. */
FGLDEF int fgl_graph_subgraph(const fgl_csr *adj, const int *nodes, int n, fgl_csr *out,
                              int *old_to_new, fgl_error *err);
/* Weakly connected components: comp[i] in 0..c-1, numbered in order of their
 * smallest node. Returns c (>= 0) or an error code. */
FGLDEF int fgl_graph_components(const fgl_csr *adj, int *comp);
/* The largest component's nodes in increasing order into nodes (adj->rows
 * ints); ties go to the component with the smallest node. Returns its size
 * or an error code. */
FGLDEF int fgl_graph_largest_component(const fgl_csr *adj, int *nodes);
/* out = D^-1/2 (A + I) D^-1/2 with D the row sums of A + I (A's values are
 * weights, NULL = 1; an existing diagonal entry gets +1). Every node,
 * isolated ones too, has a diagonal entry; degrees are >= 1 for
 * non-negative weights, so no NaN. A must be square. */
FGLDEF int fgl_gcn_norm(const fgl_csr *adj, fgl_csr *out);
/* out = D^-1 A (each non-empty row sums to 1). */
FGLDEF int fgl_graph_row_norm(const fgl_csr *adj, fgl_csr *out);
/* Random-walk matrix out = A D^-1 (each non-empty column sums to 1; entry
 * (i, j) is the probability of stepping j -> i). A must be square. */
FGLDEF int fgl_graph_rw_norm(const fgl_csr *adj, fgl_csr *out);

/* fgl:implementation */
#include "../alone.h"
/* --- small private helpers ------------------------------------------------ */

/* Every allocation of this file goes through fgl__g_alloc: room for n * m
 * elements of `size` bytes (at least one element), or NULL when the byte
 * count overflows or exceeds SIZE_MAX / 2, or memory runs out. With p
 * non-NULL the block p is resized (and left as it was on failure). A count
 * computed from a file or an argument (a negative int cast to size_t, a
 * product of two ints) can therefore never wrap around to a small block. */
static void *fgl__g_alloc(void *p, size_t n, size_t m, size_t size) {
    size_t cap = (size_t)-1 / 2;
    if (n == 0 || m == 0) n = m = 1;
    if (size == 0) size = 1;
    if (m > cap / size || n > cap / size / m) return NULL;
    return p ? FGL_REALLOC(p, n * m * size) : FGL_MALLOC(n * m * size);
}
#define FGL__G_NEW(type, n) ((type *)fgl__g_alloc(NULL, (size_t)(n), 1, sizeof(type)))
#define FGL__G_NEW2(type, n, m) ((type *)fgl__g_alloc(NULL, (size_t)(n), (size_t)(m), sizeof(type)))
#define FGL__G_RESIZE(type, p, n) ((type *)fgl__g_alloc((p), (size_t)(n), 1, sizeof(type)))

/* The fgl_rng stream of each random function family (fixed, distinct values:
 * changing one changes every result drawn from it). */
#define FGL__G_ST_NODE_SPLIT 0x5317u   /* fgl_split_nodes_random */
#define FGL__G_ST_GRAPH_SPLIT 0x57a7u  /* fgl_split_graphs_stratified */
#define FGL__G_ST_GEN 0x6E6E01u        /* the generators */
#define FGL__G_ST_SYNTH 0x6E6E02u      /* the synthetic benchmarks */
#define FGL__G_ST_PART 0x6E6E03u       /* METIS (+ 16 per run), random partition */
#define FGL__G_ST_LOUVAIN 0x6E6E04u    /* Louvain */
#define FGL__G_ST_SPLIT 0x6E6E05u      /* overlapping, Dirichlet, IID splits */

/* Degree of node i (entries of row i). */
static int fgl__g_deg(const fgl_csr *a, int i) { return a->indptr[i + 1] - a->indptr[i]; }

static void fgl__g_name_copy(char *dst, const char *src) {
    size_t n = src ? strlen(src) : 0;
    if (n > FGL_NAME_LEN - 1) n = FGL_NAME_LEN - 1;
    if (n) memcpy(dst, src, n);
    dst[n] = 0;
}

/* dst = src + "/" + number (truncating src so that the number fits). */
static void fgl__g_name_indexed(char *dst, const char *src, int k) {
    char num[16];
    int len = 0, i;
    size_t n;
    unsigned v = (unsigned)(k < 0 ? 0 : k);
    do {
        num[len++] = (char)('0' + v % 10);
        v /= 10;
    } while (v && len < 15);
    n = src ? strlen(src) : 0;
    if (n > (size_t)(FGL_NAME_LEN - 2 - len)) n = (size_t)(FGL_NAME_LEN - 2 - len);
    if (n) memcpy(dst, src, n);
    dst[n++] = '/';
    for (i = len - 1; i >= 0; i--) dst[n++] = num[i];
    dst[n] = 0;
}

static int fgl__g_cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Sort a[0..n-1] ascending: insertion sort for short arrays (rows of a
 * graph, mostly), qsort beyond. The one int sort of this file. */
static void fgl__g_sort_ints(int *a, size_t n) {
    size_t i, j;
    if (n > 24) {
        qsort(a, n, sizeof(int), fgl__g_cmp_int);
        return;
    }
    for (i = 1; i < n; i++) {
        int v = a[i];
        for (j = i; j > 0 && a[j - 1] > v; j--) a[j] = a[j - 1];
        a[j] = v;
    }
}

/* --- graphs --------------------------------------------------------------- */

FGLDEF int fgl_graph_from_edges(int n, const int *src, const int *dst, int m, unsigned flags,
                                fgl_csr *out, fgl_error *err) {
    /* The entry list the flags ask for (each edge, its reverse, the
     * diagonal), then fgl_csr_from_coo sorts it and merges duplicates: the
     * one place where an edge list becomes a CSR. */
    int sym = (flags & FGL_EDGES_SYMMETRIZE) != 0, add = (flags & FGL_EDGES_ADD_SELF_LOOPS) != 0;
    int drop = (flags & FGL_EDGES_DROP_SELF_LOOPS) != 0 || add;
    int k, i, cnt = 0, *r, *c, rc;
    memset(out, 0, sizeof *out);
    if (n < 0 || m < 0 || (m > 0 && (!src || !dst)))
        return fgl_error_set(err, FGL_ERR_ARG, "graph_from_edges: n = %d, m = %d", n, m);
    if ((double)m * (sym ? 2 : 1) + (add ? n : 0) > (double)(INT_MAX - 1))
        return fgl_error_set(err, FGL_ERR_ARG, "graph_from_edges: %d edges are too many", m);
    for (k = 0; k < m; k++) {
        if (src[k] < 0 || src[k] >= n || dst[k] < 0 || dst[k] >= n)
            return fgl_error_set(err, FGL_ERR_RANGE,
                                 "graph_from_edges: edge %d (%d, %d) has a node outside 0..%d", k,
                                 src[k], dst[k], n - 1);
        cnt += src[k] == dst[k] ? !drop : 1 + sym;
    }
    cnt += add ? n : 0;
    r = cnt ? FGL__G_NEW(int, cnt) : NULL;
    c = cnt ? FGL__G_NEW(int, cnt) : NULL;
    if (cnt && (!r || !c)) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "graph_from_edges: out of memory (%d edges)", m);
        goto done;
    }
    cnt = 0;
    for (k = 0; k < m; k++) {
        if (src[k] == dst[k] && drop) continue;
        r[cnt] = src[k];
        c[cnt++] = dst[k];
        if (sym && src[k] != dst[k]) {
            r[cnt] = dst[k];
            c[cnt++] = src[k];
        }
    }
    for (i = 0; add && i < n; i++) {
        r[cnt] = i;
        c[cnt++] = i;
    }
    rc = fgl_csr_from_coo(n, n, cnt, r, c, NULL, 0, out, err);
    if (rc == FGL_ERR_NOMEM) fgl_error_set(err, rc, "graph_from_edges: out of memory (%d edges)", m);
done:
    FGL_FREE(r);
    FGL_FREE(c);
    return rc;
}

FGLDEF void fgl_graph_degrees(const fgl_csr *adj, int *deg) {
    int i;
    for (i = 0; i < adj->rows; i++) deg[i] = fgl__g_deg(adj, i);
}

FGLDEF int fgl_graph_num_edges(const fgl_csr *adj) {
    int i, k, e = 0;
    for (i = 0; i < adj->rows; i++)
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) e += adj->indices[k] >= i;
    return e;
}

/* 1 if row i (sorted) contains column j. */
static int fgl__g_csr_has(const fgl_csr *a, int i, int j) {
    int lo = a->indptr[i], hi = a->indptr[i + 1] - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (a->indices[mid] == j) return 1;
        if (a->indices[mid] < j) lo = mid + 1;
        else hi = mid - 1;
    }
    return 0;
}

FGLDEF int fgl_graph_is_symmetric(const fgl_csr *adj) {
    int i, k;
    if (adj->rows != adj->cols) return 0;
    for (i = 0; i < adj->rows; i++)
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) {
            int j = adj->indices[k];
            if (j != i && !fgl__g_csr_has(adj, j, i)) return 0;
        }
    return 1;
}

FGLDEF int fgl_graph_subgraph(const fgl_csr *adj, const int *nodes, int n, fgl_csr *out,
                              int *old_to_new, fgl_error *err) {
    int *map = old_to_new, *r = NULL, *c = NULL, i, k, m = 0, rc;
    float *v = NULL;
    memset(out, 0, sizeof *out);
    if (adj->rows != adj->cols)
        return fgl_error_set(err, FGL_ERR_SHAPE, "subgraph: %d x %d matrix is not square", adj->rows,
                             adj->cols);
    if (n < 0 || (n > 0 && !nodes)) return fgl_error_set(err, FGL_ERR_ARG, "subgraph: n = %d", n);
    if (!map) map = FGL__G_NEW(int, adj->rows);
    if (!map) return fgl_error_set(err, FGL_ERR_NOMEM, "subgraph: out of memory");
    for (i = 0; i < adj->rows; i++) map[i] = -1;
    for (i = 0; i < n; i++) {
        if (nodes[i] < 0 || nodes[i] >= adj->rows) {
            rc = fgl_error_set(err, FGL_ERR_RANGE, "subgraph: node %d (entry %d) outside 0..%d",
                               nodes[i], i, adj->rows - 1);
            goto done;
        }
        if (map[nodes[i]] >= 0) {
            rc = fgl_error_set(err, FGL_ERR_ARG, "subgraph: node %d listed twice", nodes[i]);
            goto done;
        }
        map[nodes[i]] = i;
        m += adj->indptr[nodes[i] + 1] - adj->indptr[nodes[i]];
    }
    r = FGL__G_NEW(int, m);
    c = FGL__G_NEW(int, m);
    if (adj->values) v = FGL__G_NEW(float, m);
    if (!r || !c || (adj->values && !v)) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "subgraph: out of memory");
        goto done;
    }
    m = 0;
    for (i = 0; i < n; i++)
        for (k = adj->indptr[nodes[i]]; k < adj->indptr[nodes[i] + 1]; k++) {
            int j = map[adj->indices[k]];
            if (j < 0) continue;
            r[m] = i;
            c[m] = j;
            if (v) v[m] = adj->values[k];
            m++;
        }
    rc = fgl_csr_from_coo(n, n, m, r, c, v, 0, out, err);
    if (rc == FGL_ERR_NOMEM) fgl_error_set(err, rc, "subgraph: out of memory");
done:
    if (map != old_to_new) FGL_FREE(map);
    FGL_FREE(r);
    FGL_FREE(c);
    FGL_FREE(v);
    return rc;
}

static int fgl__g_uf_find(int *par, int i) {
    while (par[i] != i) {
        par[i] = par[par[i]];
        i = par[i];
    }
    return i;
}

FGLDEF int fgl_graph_components(const fgl_csr *adj, int *comp) {
    int n = adj->rows, i, k, nc = 0;
    int *par;
    if (adj->rows != adj->cols) return FGL_ERR_SHAPE;
    par = FGL__G_NEW(int, n);
    if (!par) return FGL_ERR_NOMEM;
    for (i = 0; i < n; i++) par[i] = i;
    for (i = 0; i < n; i++)
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) {
            int a = fgl__g_uf_find(par, i), b = fgl__g_uf_find(par, adj->indices[k]);
            if (a != b) par[a > b ? a : b] = a < b ? a : b;   /* root = smallest node */
        }
    /* Roots are the smallest node of their component, so scanning in order
     * meets each root before the rest of its component. */
    for (i = 0; i < n; i++) {
        int root = fgl__g_uf_find(par, i);
        if (root == i) comp[i] = nc++;
        else comp[i] = comp[root];
    }
    FGL_FREE(par);
    return nc;
}

FGLDEF int fgl_graph_largest_component(const fgl_csr *adj, int *nodes) {
    int n = adj->rows, nc, i, best = 0, cnt = 0;
    int *comp = FGL__G_NEW(int, n), *size;
    if (!comp) return FGL_ERR_NOMEM;
    nc = fgl_graph_components(adj, comp);
    if (nc < 0) {
        FGL_FREE(comp);
        return nc;
    }
    size = FGL__G_NEW(int, nc);
    if (!size) {
        FGL_FREE(comp);
        return FGL_ERR_NOMEM;
    }
    memset(size, 0, sizeof(int) * (size_t)nc);
    for (i = 0; i < n; i++) size[comp[i]]++;
    for (i = 1; i < nc; i++)
        if (size[i] > size[best]) best = i;
    for (i = 0; i < n; i++)
        if (comp[i] == best) nodes[cnt++] = i;
    FGL_FREE(comp);
    FGL_FREE(size);
    return cnt;
}

FGLDEF int fgl_gcn_norm(const fgl_csr *adj, fgl_csr *out) {
    int n = adj->rows, i, k, rc, w;
    double *dinv;
    memset(out, 0, sizeof *out);
    if (adj->rows != adj->cols) return FGL_ERR_SHAPE;
    if ((long long)adj->nnz + n > INT_MAX) return FGL_ERR_RANGE;
    dinv = FGL__G_NEW(double, n);
    if (!dinv) return FGL_ERR_NOMEM;
    /* Room for every entry plus one diagonal per row: exact for a graph
     * (no self loops), and an upper bound on what the loop below writes
     * even for a matrix whose columns are not sorted. */
    rc = fgl_csr_init(out, n, n, adj->nnz + n, 1);
    if (rc) {
        FGL_FREE(dinv);
        return rc;
    }
    for (i = 0; i < n; i++) {
        double d = 1.0;   /* the I of A + I */
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) d += adj->values ? adj->values[k] : 1.0;
        dinv[i] = d > 0 ? 1.0 / sqrt(d) : 0.0;
    }
    w = 0;
    for (i = 0; i < n; i++) {
        int diag_done = 0;
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) {
            int j = adj->indices[k];
            double a = adj->values ? adj->values[k] : 1.0;
            if (!diag_done && j >= i) {
                if (j > i) {
                    out->indices[w] = i;
                    out->values[w++] = (float)(dinv[i] * dinv[i]);
                } else
                    a += 1.0;
                diag_done = 1;
            }
            out->indices[w] = j;
            out->values[w++] = (float)(dinv[i] * a * dinv[j]);
        }
        if (!diag_done) {
            out->indices[w] = i;
            out->values[w++] = (float)(dinv[i] * dinv[i]);
        }
        out->indptr[i + 1] = w;
    }
    out->nnz = w;
    FGL_FREE(dinv);
    return FGL_OK;
}

FGLDEF int fgl_graph_row_norm(const fgl_csr *adj, fgl_csr *out) {
    int i, k, rc = fgl_csr_init(out, adj->rows, adj->cols, adj->nnz, 1);
    if (rc) return rc;
    memcpy(out->indptr, adj->indptr, sizeof(int) * ((size_t)adj->rows + 1));
    if (adj->nnz) memcpy(out->indices, adj->indices, sizeof(int) * (size_t)adj->nnz);
    for (i = 0; i < adj->rows; i++) {
        double s = 0;
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) s += adj->values ? adj->values[k] : 1.0;
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) {
            double a = adj->values ? adj->values[k] : 1.0;
            out->values[k] = (float)(s != 0 ? a / s : 0.0);
        }
    }
    return FGL_OK;
}

FGLDEF int fgl_graph_rw_norm(const fgl_csr *adj, fgl_csr *out) {
    int i, k, rc;
    double *cs;
    memset(out, 0, sizeof *out);
    if (adj->rows != adj->cols) return FGL_ERR_SHAPE;
    cs = FGL__G_NEW(double, adj->cols);
    if (!cs) return FGL_ERR_NOMEM;
    rc = fgl_csr_init(out, adj->rows, adj->cols, adj->nnz, 1);
    if (rc) {
        FGL_FREE(cs);
        return rc;
    }
    memset(cs, 0, sizeof(double) * (size_t)adj->cols);
    for (k = 0; k < adj->nnz; k++) cs[adj->indices[k]] += adj->values ? adj->values[k] : 1.0;
    memcpy(out->indptr, adj->indptr, sizeof(int) * ((size_t)adj->rows + 1));
    if (adj->nnz) memcpy(out->indices, adj->indices, sizeof(int) * (size_t)adj->nnz);
    for (i = 0; i < adj->rows; i++)
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) {
            double a = adj->values ? adj->values[k] : 1.0, s = cs[adj->indices[k]];
            out->values[k] = (float)(s != 0 ? a / s : 0.0);
        }
    FGL_FREE(cs);
    return FGL_OK;
}

#include "../alone.h"
