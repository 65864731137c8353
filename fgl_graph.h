/* fgl_graph.h - graphs, datasets, loaders, generators, properties,
 *               partitions and federated splits.
 *
 * Part of fgl (see README.md). Builds on fgl.h (its fgl_csr, fgl_rng and
 * fgl_error); no other dependency.
 *
 * USAGE
 *   #define FGL_IMPLEMENTATION in exactly one file before including.
 *
 * EXAMPLE: a TU dataset, one-hot node labels, a stratified split, a batch.
 *       fgl_error e;
 *       fgl_graph_set s;
 *       if (fgl_load_tu("data/tu/MUTAG", "MUTAG", &s, &e)) { puts(e.msg); return 1; }
 *       fgl_graph_set_features(&s, FGL_FEAT_NODE_LABELS, 0, &e);  // s.x: n_nodes x 7
 *       fgl_split_graphs_stratified(&s, 0.8, 0.1, 123);           // s.split
 *       int ids[3] = {0, 1, 2};
 *       fgl_batch b;
 *       fgl_batch_make(&s, ids, 3, &b, &e);   // b.adj_gcn, b.x, b.offsets, b.y
 *       ... fgl_batch_free(&b); fgl_graph_set_free(&s);
 *   Node classification, split over 10 clients by a node -> part array:
 *       fgl_node_data d, cl[10];
 *       fgl_load_node("data/node/Cora", "Cora", &d, &e);
 *       fgl_node_data_normalize_features(&d);
 *       fgl_split_subgraphs(&d, part, 10, cl, &e);
 *       for (k = 0; k < 10; k++) fgl_split_nodes_random(&cl[k], 0.2, 0.4, 1000 + k);
 *       const fgl_csr *A = fgl_node_data_gcn(&cl[0], &e);   // cached
 *
 * DATA TYPES
 *   An undirected graph is a symmetric fgl_csr (n x n, sorted columns, no
 *   duplicate entries, values NULL).
 *   fgl_node_data   one graph with node features, labels and a node split
 *                   (node classification: Cora, Computers, CS, subgraphs).
 *   fgl_graph_set   many small graphs stored contiguously with graph labels
 *                   (graph classification: the TU datasets).
 *   fgl_batch       a block-diagonal batch of graphs from a set, with the
 *                   node -> graph offsets used by readouts.
 *   Every struct may be zeroed (or _init) before use and _free'd any number
 *   of times. Functions that fill an `out` struct overwrite it without
 *   freeing (free it first if it holds data); on error they leave it zeroed.
 *
 * WHAT IS HERE
 *   - graphs: fgl_graph_from_edges (symmetrise, self loops, always dedup),
 *     degrees, induced subgraphs with id maps, connected components, the
 *     largest component, GCN normalisation D^-1/2 (A+I) D^-1/2, row
 *     normalisation D^-1 A and the random-walk matrix A D^-1.
 *   - datasets: init/free/validate, batches, feature builders (one-hot node
 *     labels, one-hot capped degree, node attributes, a constant, any
 *     concatenation), feature row normalisation, label remapping, induced
 *     node-data subgraphs, graph-set subsets (deep copies), seeded splits
 *     (random node split, stratified graph split), node->part arrays or node
 *     lists -> K client datasets.
 *   - loaders: TU (fgl_load_tu), the node layout (fgl_load_node), LINQS
 *     .content/.cites (fgl_load_linqs), OGB-like CSV (fgl_load_csv); writers
 *     for the TU and node layouts.
 *   - generators, graph properties, partitioners (METIS-like, Louvain) and
 *     split algorithms: dev/graph_algos.h, included at the end of this file.
 *
 * LOADERS
 *   Files are read whole (fgl_file_read) and parsed from memory. Numbers may
 *   be separated by blanks, tabs or one comma; CRLF line ends, trailing
 *   blanks and blank lines at the end of a file are accepted; a blank line
 *   in the middle is an error. Errors say "path:line: problem" and use:
 *     FGL_ERR_IO      a required file is missing or unreadable (no line);
 *     FGL_ERR_PARSE   a token that is not the number expected;
 *     FGL_ERR_RANGE   an id, label or code outside its range;
 *     FGL_ERR_NONFINITE  a value that is NaN or does not fit a float;
 *     FGL_ERR_FORMAT  a file shorter than its own header/structure says
 *                     (truncated), a missing value, an empty middle line,
 *                     graph ids out of order, an edge joining two TU
 *                     graphs, a repeated LINQS id;
 *     FGL_ERR_SHAPE   counts that disagree between files or between rows;
 *     FGL_ERR_EMPTY   no nodes / no graphs / no features.
 *   Choices: self loops in edge files are dropped, duplicate edges merged and
 *   every edge list symmetrised (graphs satisfy the contract above). TU
 *   edge and graph attribute/label files are ignored. TU graph labels and
 *   node labels are remapped to 0..C-1 in sorted order of the raw values;
 *   node-layout labels are 0-based already (-1 = unknown), n_classes =
 *   max + 1. LINQS cites naming an id absent from .content are dropped and
 *   counted.
 *
 * COMPILE-TIME OPTIONS: those of fgl.h (FGL_STATIC, FGL_MALLOC/REALLOC/FREE,
 *   FGL_ASSERT).
 */
#ifndef FGL_GRAPH_H
#define FGL_GRAPH_H

#include "fgl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-node or per-graph split codes. */
enum { FGL_SPLIT_NONE = 0, FGL_SPLIT_TRAIN = 1, FGL_SPLIT_VAL = 2, FGL_SPLIT_TEST = 3 };

#define FGL_NAME_LEN 64

/* One graph for node classification. Features are dense (x) or sparse
 * (x_sparse, rows = nodes); exactly one of them is non-empty. */
typedef struct fgl_node_data {
    char name[FGL_NAME_LEN];
    int n_nodes, n_feat, n_classes;
    fgl_csr adj;            /* symmetric, no self loops, values NULL */
    fgl_tensor x;           /* n_nodes x n_feat dense features, or empty */
    fgl_csr x_sparse;       /* n_nodes x n_feat sparse features, or rows == 0 */
    int *y;                 /* n_nodes labels in 0..n_classes-1 (-1: unknown) */
    unsigned char *split;   /* n_nodes FGL_SPLIT_* codes, or NULL */
    fgl_csr adj_gcn;        /* cache: D^-1/2 (A + I) D^-1/2, rows == 0 until built */
} fgl_node_data;

/* Many small graphs for graph classification. Graph g owns the nodes
 * node_ptr[g] .. node_ptr[g+1]-1; adj is block-diagonal over all nodes. */
typedef struct fgl_graph_set {
    char name[FGL_NAME_LEN];
    int n_graphs, n_nodes, n_classes;
    int *node_ptr;          /* n_graphs + 1 */
    fgl_csr adj;            /* n_nodes x n_nodes, symmetric, no self loops */
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
    fgl_csr adj;            /* batch adjacency (symmetric, no self loops) */
    fgl_csr adj_gcn;        /* D^-1/2 (A + I) D^-1/2 of the batch */
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

/* ------------------------------------------------------------------------ */
/* Datasets                                                                 */
/* ------------------------------------------------------------------------ */

FGLDEF void fgl_node_data_init(fgl_node_data *d);   /* zero it */
FGLDEF void fgl_graph_set_init(fgl_graph_set *s);   /* zero it */
FGLDEF void fgl_batch_init(fgl_batch *b);           /* zero it */
/* Release everything and zero the struct (safe on zeroed structs, idempotent). */
FGLDEF void fgl_node_data_free(fgl_node_data *d);
/* Release everything and zero the struct (safe on zeroed structs, idempotent). */
FGLDEF void fgl_graph_set_free(fgl_graph_set *s);
/* Release everything and zero the struct (safe on zeroed structs, idempotent). */
FGLDEF void fgl_batch_free(fgl_batch *b);
/* Check sizes, CSR structure, symmetry, no self loops, label/split ranges. */
FGLDEF int fgl_node_data_validate(const fgl_node_data *d, fgl_error *err);
/* Same for a set, plus: node_ptr monotone, no edge between two graphs. */
FGLDEF int fgl_graph_set_validate(const fgl_graph_set *s, fgl_error *err);
/* d->adj_gcn, built on first use (d->adj must not change afterwards);
 * NULL on error. */
FGLDEF const fgl_csr *fgl_node_data_gcn(fgl_node_data *d, fgl_error *err);

/* Block-diagonal batch of graphs ids[0..n-1] of s (repeats allowed): adj,
 * adj_gcn, x (NULL if s->x is), pe (NULL if s->pe is), offsets,
 * graph_of_node, y, ids. b is overwritten (free it before reuse). */
FGLDEF int fgl_batch_make(const fgl_graph_set *s, const int *ids, int n, fgl_batch *b,
                          fgl_error *err);

/* Parts of the node features built by fgl_graph_set_features, concatenated
 * in this order. */
enum {
    FGL_FEAT_NODE_LABELS = 1u << 0,  /* one-hot node label (n_node_label_values columns) */
    FGL_FEAT_DEGREE = 1u << 1,       /* one-hot min(degree, max_degree) (max_degree + 1 columns) */
    FGL_FEAT_NODE_ATTR = 1u << 2,    /* the raw node attributes (n_node_attr columns) */
    FGL_FEAT_CONSTANT = 1u << 3      /* one column of ones */
};
/* Replace s->x / s->n_feat by the parts chosen in flags. Asking for node
 * labels or attributes that the set does not have is FGL_ERR_ARG. */
FGLDEF int fgl_graph_set_features(fgl_graph_set *s, unsigned flags, int max_degree,
                                  fgl_error *err);
/* Largest node degree in the set (to choose max_degree). */
FGLDEF int fgl_graph_set_max_degree(const fgl_graph_set *s);
/* Divide each feature row by its sum (rows summing to 0 unchanged); dense or
 * sparse. Drops the sparse "all ones" shortcut (values NULL) if present. */
FGLDEF int fgl_node_data_normalize_features(fgl_node_data *d);
/* Set every non-zero feature to 1 (CS counts -> binary); dense or sparse. */
FGLDEF int fgl_node_data_binarize_features(fgl_node_data *d);
/* Sparse features -> dense x (no-op when already dense). */
FGLDEF int fgl_node_data_densify(fgl_node_data *d);
/* Replace y[i] by the rank of its value among the distinct sorted values;
 * *n_values = their number; raw_values (n ints, may be NULL) gets them. */
FGLDEF int fgl_labels_remap(int *y, int n, int *raw_values, int *n_values);

/* Induced subgraph of d on nodes[0..n-1] (distinct) with features (dense or
 * sparse kept), labels, split and n_classes copied; cache not copied. */
FGLDEF int fgl_node_data_subgraph(const fgl_node_data *d, const int *nodes, int n,
                                  fgl_node_data *out, fgl_error *err);
/* d restricted to its largest connected component (nodes keep their order). */
FGLDEF int fgl_node_data_largest_component(const fgl_node_data *d, fgl_node_data *out,
                                           fgl_error *err);
/* Deep copy of graphs ids[0..n-1] of s (in that order) with every per-graph
 * and per-node array (y, split, node labels, attributes, x, pe). */
FGLDEF int fgl_graph_set_subset(const fgl_graph_set *s, const int *ids, int n, fgl_graph_set *out,
                                fgl_error *err);

/* Random node split of d (allocated if NULL): round(train n) train,
 * round(val n) validation, the rest test, over the labelled nodes (y >= 0;
 * the others get FGL_SPLIT_NONE). Same seed, same split. */
FGLDEF int fgl_split_nodes_random(fgl_node_data *d, double train, double val, uint64_t seed);
/* Stratified graph split of s: inside each class, round(train n_c) train,
 * round(val n_c) validation, the rest test; a class with >= 3 graphs gets at
 * least one graph in each part whose fraction is > 0. */
FGLDEF int fgl_split_graphs_stratified(fgl_graph_set *s, double train, double val, uint64_t seed);
/* Indices i < n with split[i] == code into out (may be NULL); returns their
 * number (0 if split is NULL). */
FGLDEF int fgl_split_indices(const unsigned char *split, int n, int code, int *out);
/* K client datasets from a node -> part array (part[i] in 0..k-1, or -1 for
 * a node in no client): client c is the induced subgraph of part c's nodes
 * in increasing id order (edges between clients are dropped; a part without
 * nodes gives a client with n_nodes == 0). clients[0..k-1] are overwritten;
 * on error none holds memory. */
FGLDEF int fgl_split_subgraphs(const fgl_node_data *d, const int *part, int k,
                               fgl_node_data *clients, fgl_error *err);
/* K client datasets from K node lists, which may overlap: client c is the
 * induced subgraph of nodes[ptr[c] .. ptr[c+1]-1] (distinct within a list). */
FGLDEF int fgl_split_node_lists(const fgl_node_data *d, const int *ptr, const int *nodes, int k,
                                fgl_node_data *clients, fgl_error *err);

/* ------------------------------------------------------------------------ */
/* Loaders and writers                                                      */
/* ------------------------------------------------------------------------ */

/* TU Dortmund layout: dir/NAME_A.txt, NAME_graph_indicator.txt,
 * NAME_graph_labels.txt (required), NAME_node_labels.txt,
 * NAME_node_attributes.txt (optional); 1-based ids. */
FGLDEF int fgl_load_tu(const char *dir, const char *name, fgl_graph_set *out, fgl_error *err);
/* Write s in the TU layout (graph labels written as 0..C-1). */
FGLDEF int fgl_save_tu(const fgl_graph_set *s, const char *dir, const char *name, fgl_error *err);
/* Node layout: dir/NAME.edges ("u v", 0-based), NAME.labels (one per line),
 * NAME.features (header "n f": dense rows -> x; header "n f nnz": sparse
 * "node feature value" triplets -> x_sparse, duplicates summed), optional
 * NAME.split (codes 0..3 = FGL_SPLIT_*). */
FGLDEF int fgl_load_node(const char *dir, const char *name, fgl_node_data *out, fgl_error *err);
/* Write d in the node layout (dense or sparse as held; NAME.split if any). */
FGLDEF int fgl_save_node(const fgl_node_data *d, const char *dir, const char *name,
                         fgl_error *err);
/* LINQS layout: dir/NAME.content ("id f_1 .. f_F class", string ids and
 * classes) and dir/NAME.cites ("a b"). Features go to x_sparse (non-zeros),
 * classes to 0..C-1 in sorted (strcmp) order, nodes keep file order. Cites
 * naming an unknown id are dropped and counted in *n_dropped (may be NULL). */
FGLDEF int fgl_load_linqs(const char *dir, const char *name, fgl_node_data *out, int *n_dropped,
                          fgl_error *err);
/* OGB-like raw CSV: edge_path "u,v" per line (0-based), feat_path one row
 * of comma-separated floats per node (dense x), label_path one integer per
 * node (-1 = unknown). out->name is left empty (set it yourself). */
FGLDEF int fgl_load_csv(const char *edge_path, const char *feat_path, const char *label_path,
                        fgl_node_data *out, fgl_error *err);

#ifdef __cplusplus
}
#endif
#endif /* FGL_GRAPH_H */

/* ======================================================================== */
/*                              IMPLEMENTATION                              */
/* ======================================================================== */
#if defined(FGL_IMPLEMENTATION) && !defined(FGL_GRAPH_H_IMPLEMENTED)
#define FGL_GRAPH_H_IMPLEMENTED

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- small private helpers ------------------------------------------------ */

/* malloc of n elements of size sz (room for one at least), NULL on overflow. */
static void *fgl__gr_alloc(size_t n, size_t sz) {
    if (sz && n > ((size_t)-1) / 4 / sz) return NULL;
    return FGL_MALLOC(n ? n * sz : (sz ? sz : 1));
}
#define FGL__GR_NEW(type, n) ((type *)fgl__gr_alloc((size_t)(n), sizeof(type)))

static void fgl__gr_name_copy(char *dst, const char *src) {
    size_t n = src ? strlen(src) : 0;
    if (n > FGL_NAME_LEN - 1) n = FGL_NAME_LEN - 1;
    if (n) memcpy(dst, src, n);
    dst[n] = 0;
}

/* dst = src + "/" + number (truncating src so that the number fits). */
static void fgl__gr_name_indexed(char *dst, const char *src, int k) {
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

static int fgl__gr_cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Triplets -> CSR with sorted columns by two stable counting sorts (by
 * column, then by row), so equal (row, col) entries keep their input order.
 * dup: 0 keep all, 1 keep the first, 2 sum the values. v may be NULL
 * (out->values NULL). Coordinates must be in range. */
static int fgl__gr_coo_build(int rows, int cols, int m, const int *r, const int *c, const float *v,
                          int dup, fgl_csr *out) {
    int *cnt = FGL__GR_NEW(int, (rows > cols ? rows : cols) + 1);
    int *ptr = FGL__GR_NEW(int, rows + 1);
    int *tr = FGL__GR_NEW(int, m), *tc = FGL__GR_NEW(int, m), *oc = FGL__GR_NEW(int, m);
    float *tv = v ? FGL__GR_NEW(float, m) : NULL, *ov = v ? FGL__GR_NEW(float, m) : NULL;
    int k, i, w;
    memset(out, 0, sizeof *out);
    if (!cnt || !ptr || !tr || !tc || !oc || (v && (!tv || !ov))) {
        FGL_FREE(ptr);
        FGL_FREE(oc);
        FGL_FREE(ov);
        FGL_FREE(cnt);
        FGL_FREE(tr);
        FGL_FREE(tc);
        FGL_FREE(tv);
        return FGL_ERR_NOMEM;
    }
    memset(cnt, 0, sizeof(int) * ((size_t)cols + 1));
    for (k = 0; k < m; k++) cnt[c[k] + 1]++;
    for (i = 0; i < cols; i++) cnt[i + 1] += cnt[i];
    for (k = 0; k < m; k++) {
        int p = cnt[c[k]]++;
        tr[p] = r[k];
        tc[p] = c[k];
        if (v) tv[p] = v[k];
    }
    memset(ptr, 0, sizeof(int) * ((size_t)rows + 1));
    for (k = 0; k < m; k++) ptr[tr[k] + 1]++;
    for (i = 0; i < rows; i++) ptr[i + 1] += ptr[i];
    memcpy(cnt, ptr, sizeof(int) * (size_t)rows);
    for (k = 0; k < m; k++) {
        int p = cnt[tr[k]]++;
        oc[p] = tc[k];
        if (v) ov[p] = tv[k];
    }
    FGL_FREE(cnt);
    FGL_FREE(tr);
    FGL_FREE(tc);
    FGL_FREE(tv);
    w = m;
    if (dup) {
        int start = 0;
        w = 0;
        for (i = 0; i < rows; i++) {
            int a = start, b = ptr[i + 1], row0 = w;
            start = b;
            ptr[i] = row0;
            for (k = a; k < b; k++) {
                if (w > row0 && oc[w - 1] == oc[k]) {
                    if (dup == 2 && v) ov[w - 1] += ov[k];
                    continue;
                }
                oc[w] = oc[k];
                if (v) ov[w] = ov[k];
                w++;
            }
        }
        ptr[rows] = w;
    }
    out->rows = rows;
    out->cols = cols;
    out->nnz = w;
    out->indptr = ptr;
    out->indices = oc;
    out->values = ov;
    return FGL_OK;
}

/* --- graphs ----------------------------------------------------------------- */

/* Sort a[0..n-1] ascending (insertion sort for short rows). */
static void fgl__gr_sort_ints(int *a, int n) {
    int i, j;
    if (n > 24) {
        qsort(a, (size_t)n, sizeof(int), fgl__gr_cmp_int);
        return;
    }
    for (i = 1; i < n; i++) {
        int v = a[i];
        for (j = i - 1; j >= 0 && a[j] > v; j--) a[j + 1] = a[j];
        a[j + 1] = v;
    }
}

FGLDEF int fgl_graph_from_edges(int n, const int *src, const int *dst, int m, unsigned flags,
                                fgl_csr *out, fgl_error *err) {
    /* Count the entries of each row, scatter them, then sort and deduplicate
     * each row in place: O(n + m) memory beyond the output. */
    int sym = (flags & FGL_EDGES_SYMMETRIZE) != 0, add = (flags & FGL_EDGES_ADD_SELF_LOOPS) != 0;
    int drop = (flags & FGL_EDGES_DROP_SELF_LOOPS) != 0 || add;
    int k, i, w, *ptr, *pos, *ind;
    memset(out, 0, sizeof *out);
    if (n < 0 || m < 0 || (m > 0 && (!src || !dst)))
        return fgl_error_set(err, FGL_ERR_ARG, "graph_from_edges: n = %d, m = %d", n, m);
    if ((double)m * (sym ? 2 : 1) + (add ? n : 0) > (double)(INT_MAX - 1))
        return fgl_error_set(err, FGL_ERR_ARG, "graph_from_edges: %d edges are too many", m);
    for (k = 0; k < m; k++)
        if (src[k] < 0 || src[k] >= n || dst[k] < 0 || dst[k] >= n)
            return fgl_error_set(err, FGL_ERR_RANGE,
                                 "graph_from_edges: edge %d (%d, %d) has a node outside 0..%d", k,
                                 src[k], dst[k], n - 1);
    ind = NULL;
    ptr = FGL__GR_NEW(int, n + 1);
    pos = FGL__GR_NEW(int, n + 1);
    if (!ptr || !pos) goto nomem;
    memset(ptr, 0, sizeof(int) * ((size_t)n + 1));
    for (k = 0; k < m; k++) {
        if (src[k] == dst[k]) {
            if (!drop) ptr[src[k] + 1]++;
            continue;
        }
        ptr[src[k] + 1]++;
        if (sym) ptr[dst[k] + 1]++;
    }
    if (add)
        for (i = 0; i < n; i++) ptr[i + 1]++;
    for (i = 0; i < n; i++) ptr[i + 1] += ptr[i];
    ind = FGL__GR_NEW(int, ptr[n]);
    if (!ind) goto nomem;
    memcpy(pos, ptr, sizeof(int) * ((size_t)n + 1));
    for (k = 0; k < m; k++) {
        if (src[k] == dst[k]) {
            if (!drop) ind[pos[src[k]]++] = src[k];
            continue;
        }
        ind[pos[src[k]]++] = dst[k];
        if (sym) ind[pos[dst[k]]++] = src[k];
    }
    if (add)
        for (i = 0; i < n; i++) ind[pos[i]++] = i;
    w = 0;
    for (i = 0; i < n; i++) { /* sort, dedup and compact row i */
        int a = ptr[i], b = ptr[i + 1], row0 = w;
        fgl__gr_sort_ints(ind + a, b - a);
        ptr[i] = row0;
        for (k = a; k < b; k++)
            if (w == row0 || ind[w - 1] != ind[k]) ind[w++] = ind[k];
    }
    ptr[n] = w;
    FGL_FREE(pos);
    out->rows = out->cols = n;
    out->nnz = w;
    out->indptr = ptr;
    out->indices = ind;
    return FGL_OK;
nomem:
    FGL_FREE(ptr);
    FGL_FREE(pos);
    FGL_FREE(ind);
    return fgl_error_set(err, FGL_ERR_NOMEM, "graph_from_edges: out of memory (%d edges)", m);
}

FGLDEF void fgl_graph_degrees(const fgl_csr *adj, int *deg) {
    int i;
    for (i = 0; i < adj->rows; i++) deg[i] = adj->indptr[i + 1] - adj->indptr[i];
}

FGLDEF int fgl_graph_num_edges(const fgl_csr *adj) {
    int i, k, e = 0;
    for (i = 0; i < adj->rows; i++)
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) e += adj->indices[k] >= i;
    return e;
}

/* 1 if row i (sorted) contains column j. */
static int fgl__gr_csr_has(const fgl_csr *a, int i, int j) {
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
            if (j != i && !fgl__gr_csr_has(adj, j, i)) return 0;
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
    if (!map) map = FGL__GR_NEW(int, adj->rows);
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
    r = FGL__GR_NEW(int, m);
    c = FGL__GR_NEW(int, m);
    if (adj->values) v = FGL__GR_NEW(float, m);
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
    rc = fgl__gr_coo_build(n, n, m, r, c, v, 0, out);
    if (rc) fgl_error_set(err, rc, "subgraph: out of memory");
done:
    if (map != old_to_new) FGL_FREE(map);
    FGL_FREE(r);
    FGL_FREE(c);
    FGL_FREE(v);
    return rc;
}

static int fgl__gr_uf_find(int *par, int i) {
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
    par = FGL__GR_NEW(int, n);
    if (!par) return FGL_ERR_NOMEM;
    for (i = 0; i < n; i++) par[i] = i;
    for (i = 0; i < n; i++)
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) {
            int a = fgl__gr_uf_find(par, i), b = fgl__gr_uf_find(par, adj->indices[k]);
            if (a != b) par[a > b ? a : b] = a < b ? a : b;   /* root = smallest node */
        }
    /* Roots are the smallest node of their component, so scanning in order
     * meets each root before the rest of its component. */
    for (i = 0; i < n; i++) {
        int root = fgl__gr_uf_find(par, i);
        if (root == i) comp[i] = nc++;
        else comp[i] = comp[root];
    }
    FGL_FREE(par);
    return nc;
}

FGLDEF int fgl_graph_largest_component(const fgl_csr *adj, int *nodes) {
    int n = adj->rows, nc, i, best = 0, cnt = 0;
    int *comp = FGL__GR_NEW(int, n), *size;
    if (!comp) return FGL_ERR_NOMEM;
    nc = fgl_graph_components(adj, comp);
    if (nc < 0) {
        FGL_FREE(comp);
        return nc;
    }
    size = FGL__GR_NEW(int, nc);
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
    int n = adj->rows, i, k, nnz = 0, rc, w;
    double *dinv;
    memset(out, 0, sizeof *out);
    if (adj->rows != adj->cols) return FGL_ERR_SHAPE;
    for (i = 0; i < n; i++) nnz += adj->indptr[i + 1] - adj->indptr[i] + !fgl__gr_csr_has(adj, i, i);
    dinv = FGL__GR_NEW(double, n);
    if (!dinv) return FGL_ERR_NOMEM;
    rc = fgl_csr_init(out, n, n, nnz, 1);
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
    cs = FGL__GR_NEW(double, adj->cols);
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

/* --- datasets: lifetime, validation, cache ------------------------------------ */

FGLDEF void fgl_node_data_init(fgl_node_data *d) { memset(d, 0, sizeof *d); }
FGLDEF void fgl_graph_set_init(fgl_graph_set *s) { memset(s, 0, sizeof *s); }
FGLDEF void fgl_batch_init(fgl_batch *b) { memset(b, 0, sizeof *b); }

FGLDEF void fgl_node_data_free(fgl_node_data *d) {
    fgl_csr_free(&d->adj);
    fgl_tensor_free(&d->x);
    fgl_csr_free(&d->x_sparse);
    FGL_FREE(d->y);
    FGL_FREE(d->split);
    fgl_csr_free(&d->adj_gcn);
    memset(d, 0, sizeof *d);
}

FGLDEF void fgl_graph_set_free(fgl_graph_set *s) {
    FGL_FREE(s->node_ptr);
    fgl_csr_free(&s->adj);
    FGL_FREE(s->y);
    FGL_FREE(s->split);
    FGL_FREE(s->node_labels);
    FGL_FREE(s->node_attr);
    FGL_FREE(s->x);
    FGL_FREE(s->pe);
    memset(s, 0, sizeof *s);
}

FGLDEF void fgl_batch_free(fgl_batch *b) {
    fgl_csr_free(&b->adj);
    fgl_csr_free(&b->adj_gcn);
    FGL_FREE(b->x);
    FGL_FREE(b->pe);
    FGL_FREE(b->offsets);
    FGL_FREE(b->graph_of_node);
    FGL_FREE(b->y);
    FGL_FREE(b->ids);
    memset(b, 0, sizeof *b);
}

/* Structure of an undirected graph: valid n x n CSR, symmetric, no self loops. */
static int fgl__gr_check_graph(const fgl_csr *a, int n, const char *what, fgl_error *err) {
    int rc, i, k;
    if (a->rows != n || a->cols != n)
        return fgl_error_set(err, FGL_ERR_SHAPE, "%s: adjacency is %d x %d, expected %d x %d", what,
                             a->rows, a->cols, n, n);
    rc = fgl_csr_validate(a, err);
    if (rc) return rc;
    for (i = 0; i < n; i++)
        for (k = a->indptr[i]; k < a->indptr[i + 1]; k++)
            if (a->indices[k] == i)
                return fgl_error_set(err, FGL_ERR_FORMAT, "%s: self loop at node %d", what, i);
    if (!fgl_graph_is_symmetric(a))
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: adjacency is not symmetric", what);
    return FGL_OK;
}

FGLDEF int fgl_node_data_validate(const fgl_node_data *d, fgl_error *err) {
    int n = d->n_nodes, i, rc;
    if (n < 0 || d->n_feat < 0 || d->n_classes < 0)
        return fgl_error_set(err, FGL_ERR_ARG, "node data: negative size");
    rc = fgl__gr_check_graph(&d->adj, n, "node data", err);
    if (rc) return rc;
    if (d->x.data && d->x_sparse.indptr)
        return fgl_error_set(err, FGL_ERR_FORMAT, "node data: both dense and sparse features");
    if (d->x.data && (d->x.rows != n || d->x.cols != d->n_feat))
        return fgl_error_set(err, FGL_ERR_SHAPE, "node data: x is %d x %d, expected %d x %d",
                             d->x.rows, d->x.cols, n, d->n_feat);
    if (d->x_sparse.indptr) {
        if (d->x_sparse.rows != n || d->x_sparse.cols != d->n_feat)
            return fgl_error_set(err, FGL_ERR_SHAPE, "node data: x_sparse is %d x %d, expected %d x %d",
                                 d->x_sparse.rows, d->x_sparse.cols, n, d->n_feat);
        rc = fgl_csr_validate(&d->x_sparse, err);
        if (rc) return rc;
    }
    if (n > 0 && !d->y) return fgl_error_set(err, FGL_ERR_FORMAT, "node data: no labels");
    for (i = 0; i < n; i++)
        if (d->y[i] < -1 || d->y[i] >= d->n_classes)
            return fgl_error_set(err, FGL_ERR_RANGE, "node data: label %d of node %d outside -1..%d",
                                 d->y[i], i, d->n_classes - 1);
    if (d->split)
        for (i = 0; i < n; i++)
            if (d->split[i] > FGL_SPLIT_TEST)
                return fgl_error_set(err, FGL_ERR_RANGE, "node data: split code %d of node %d",
                                     d->split[i], i);
    return FGL_OK;
}

FGLDEF int fgl_graph_set_validate(const fgl_graph_set *s, fgl_error *err) {
    int G = s->n_graphs, n = s->n_nodes, g, i, k, rc;
    if (G < 0 || n < 0 || !s->node_ptr)
        return fgl_error_set(err, FGL_ERR_ARG, "graph set: negative size or no node_ptr");
    if (s->node_ptr[0] != 0 || s->node_ptr[G] != n)
        return fgl_error_set(err, FGL_ERR_FORMAT, "graph set: node_ptr runs %d..%d for %d nodes",
                             s->node_ptr[0], s->node_ptr[G], n);
    for (g = 0; g < G; g++)
        if (s->node_ptr[g + 1] < s->node_ptr[g])
            return fgl_error_set(err, FGL_ERR_FORMAT, "graph set: node_ptr decreases at graph %d", g);
    rc = fgl__gr_check_graph(&s->adj, n, "graph set", err);
    if (rc) return rc;
    for (g = 0; g < G; g++)
        for (i = s->node_ptr[g]; i < s->node_ptr[g + 1]; i++)
            for (k = s->adj.indptr[i]; k < s->adj.indptr[i + 1]; k++)
                if (s->adj.indices[k] < s->node_ptr[g] || s->adj.indices[k] >= s->node_ptr[g + 1])
                    return fgl_error_set(err, FGL_ERR_FORMAT, "graph set: edge (%d, %d) leaves graph %d",
                                         i, s->adj.indices[k], g);
    if (G > 0 && !s->y) return fgl_error_set(err, FGL_ERR_FORMAT, "graph set: no labels");
    for (g = 0; g < G; g++)
        if (s->y[g] < 0 || s->y[g] >= s->n_classes)
            return fgl_error_set(err, FGL_ERR_RANGE, "graph set: label %d of graph %d outside 0..%d",
                                 s->y[g], g, s->n_classes - 1);
    if (s->split)
        for (g = 0; g < G; g++)
            if (s->split[g] > FGL_SPLIT_TEST)
                return fgl_error_set(err, FGL_ERR_RANGE, "graph set: split code %d of graph %d",
                                     s->split[g], g);
    if (s->node_labels)
        for (i = 0; i < n; i++)
            if (s->node_labels[i] < 0 || s->node_labels[i] >= s->n_node_label_values)
                return fgl_error_set(err, FGL_ERR_RANGE, "graph set: node label %d of node %d",
                                     s->node_labels[i], i);
    if ((s->node_attr != NULL) != (s->n_node_attr > 0) || (s->x != NULL) != (s->n_feat > 0) ||
        (s->pe != NULL) != (s->n_pe > 0))
        return fgl_error_set(err, FGL_ERR_FORMAT, "graph set: an array and its width disagree");
    return FGL_OK;
}

FGLDEF const fgl_csr *fgl_node_data_gcn(fgl_node_data *d, fgl_error *err) {
    int rc;
    if (d->adj_gcn.indptr) return &d->adj_gcn;
    rc = fgl_gcn_norm(&d->adj, &d->adj_gcn);
    if (rc) {
        fgl_error_set(err, rc, "node data %s: cannot build the GCN matrix", d->name);
        return NULL;
    }
    return &d->adj_gcn;
}

/* --- batches and subsets --------------------------------------------------- */

/* Copy graphs ids[0..n-1] of s into a block-diagonal adjacency with node
 * offsets (n + 1). Columns are shifted per block, so rows stay sorted. */
static int fgl__gr_gather_blocks(const fgl_graph_set *s, const int *ids, int n, fgl_csr *adj,
                              int *offsets, fgl_error *err) {
    int b, i, k, nn = 0, nnz = 0, rc, w = 0;
    memset(adj, 0, sizeof *adj);
    for (b = 0; b < n; b++) {
        int g = ids[b];
        if (g < 0 || g >= s->n_graphs)
            return fgl_error_set(err, FGL_ERR_RANGE, "%s: graph id %d (entry %d) outside 0..%d",
                                 s->name, g, b, s->n_graphs - 1);
        if ((double)nn + (s->node_ptr[g + 1] - s->node_ptr[g]) > INT_MAX ||
            (double)nnz + (s->adj.indptr[s->node_ptr[g + 1]] - s->adj.indptr[s->node_ptr[g]]) > INT_MAX)
            return fgl_error_set(err, FGL_ERR_ARG, "%s: batch too large", s->name);
        nn += s->node_ptr[g + 1] - s->node_ptr[g];
        nnz += s->adj.indptr[s->node_ptr[g + 1]] - s->adj.indptr[s->node_ptr[g]];
    }
    rc = fgl_csr_init(adj, nn, nn, nnz, 0);
    if (rc) return fgl_error_set(err, rc, "%s: out of memory for a batch", s->name);
    offsets[0] = 0;
    nn = 0;
    for (b = 0; b < n; b++) {
        int g = ids[b], lo = s->node_ptr[g], hi = s->node_ptr[g + 1], shift = nn - lo;
        for (i = lo; i < hi; i++) {
            for (k = s->adj.indptr[i]; k < s->adj.indptr[i + 1]; k++) {
                int j = s->adj.indices[k];
                if (j < lo || j >= hi) {
                    fgl_csr_free(adj);
                    return fgl_error_set(err, FGL_ERR_FORMAT, "%s: edge (%d, %d) leaves graph %d",
                                         s->name, i, j, g);
                }
                adj->indices[w++] = j + shift;
            }
            adj->indptr[i + shift + 1] = w;
        }
        nn += hi - lo;
        offsets[b + 1] = nn;
    }
    return FGL_OK;
}

/* Copy rows [lo, hi) of a width-w float matrix to dst (advancing it). */
static float *fgl__gr_copy_rows(float *dst, const float *src, int w, int lo, int hi) {
    size_t cnt = (size_t)(hi - lo) * (size_t)w;
    if (cnt) memcpy(dst, src + (size_t)lo * (size_t)w, sizeof(float) * cnt);
    return dst + cnt;
}

FGLDEF int fgl_batch_make(const fgl_graph_set *s, const int *ids, int n, fgl_batch *b,
                          fgl_error *err) {
    int rc, i, bi;
    memset(b, 0, sizeof *b);
    if (n <= 0 || !ids) return fgl_error_set(err, FGL_ERR_EMPTY, "%s: empty batch", s->name);
    b->offsets = FGL__GR_NEW(int, n + 1);
    b->y = FGL__GR_NEW(int, n);
    b->ids = FGL__GR_NEW(int, n);
    if (!b->offsets || !b->y || !b->ids) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory for a batch", s->name);
        goto fail;
    }
    rc = fgl__gr_gather_blocks(s, ids, n, &b->adj, b->offsets, err);
    if (rc) goto fail;
    b->n_graphs = n;
    b->n_nodes = b->adj.rows;
    rc = fgl_gcn_norm(&b->adj, &b->adj_gcn);
    if (rc) {
        fgl_error_set(err, rc, "%s: out of memory for a batch", s->name);
        goto fail;
    }
    b->graph_of_node = FGL__GR_NEW(int, b->n_nodes);
    if (s->x) b->x = FGL__GR_NEW(float, (size_t)b->n_nodes * (size_t)s->n_feat);
    if (s->pe) b->pe = FGL__GR_NEW(float, (size_t)b->n_nodes * (size_t)s->n_pe);
    if (!b->graph_of_node || (s->x && !b->x) || (s->pe && !b->pe)) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory for a batch", s->name);
        goto fail;
    }
    b->n_feat = s->x ? s->n_feat : 0;
    b->n_pe = s->pe ? s->n_pe : 0;
    {
        float *px = b->x, *pp = b->pe;
        for (bi = 0; bi < n; bi++) {
            int g = ids[bi], lo = s->node_ptr[g], hi = s->node_ptr[g + 1];
            for (i = b->offsets[bi]; i < b->offsets[bi + 1]; i++) b->graph_of_node[i] = bi;
            if (px) px = fgl__gr_copy_rows(px, s->x, s->n_feat, lo, hi);
            if (pp) pp = fgl__gr_copy_rows(pp, s->pe, s->n_pe, lo, hi);
            b->y[bi] = s->y ? s->y[g] : -1;
            b->ids[bi] = g;
        }
    }
    return FGL_OK;
fail:
    fgl_batch_free(b);
    return rc;
}

FGLDEF int fgl_graph_set_subset(const fgl_graph_set *s, const int *ids, int n, fgl_graph_set *out,
                                fgl_error *err) {
    int rc, bi;
    size_t nn;
    memset(out, 0, sizeof *out);
    if (n < 0 || (n > 0 && !ids)) return fgl_error_set(err, FGL_ERR_ARG, "%s: subset of %d graphs", s->name, n);
    out->node_ptr = FGL__GR_NEW(int, n + 1);
    out->y = FGL__GR_NEW(int, n);
    if (!out->node_ptr || !out->y) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory for a subset", s->name);
        goto fail;
    }
    rc = fgl__gr_gather_blocks(s, ids, n, &out->adj, out->node_ptr, err);
    if (rc) goto fail;
    fgl__gr_name_copy(out->name, s->name);
    out->n_graphs = n;
    out->n_nodes = out->adj.rows;
    out->n_classes = s->n_classes;
    out->n_node_label_values = s->n_node_label_values;
    nn = (size_t)out->n_nodes;
    if (s->split) out->split = FGL__GR_NEW(unsigned char, n);
    if (s->node_labels) out->node_labels = FGL__GR_NEW(int, nn);
    if (s->node_attr) out->node_attr = FGL__GR_NEW(float, nn * (size_t)s->n_node_attr);
    if (s->x) out->x = FGL__GR_NEW(float, nn * (size_t)s->n_feat);
    if (s->pe) out->pe = FGL__GR_NEW(float, nn * (size_t)s->n_pe);
    if ((s->split && !out->split) || (s->node_labels && !out->node_labels) ||
        (s->node_attr && !out->node_attr) || (s->x && !out->x) || (s->pe && !out->pe)) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory for a subset", s->name);
        goto fail;
    }
    out->n_node_attr = s->node_attr ? s->n_node_attr : 0;
    out->n_feat = s->x ? s->n_feat : 0;
    out->n_pe = s->pe ? s->n_pe : 0;
    {
        float *pa = out->node_attr, *px = out->x, *pp = out->pe;
        for (bi = 0; bi < n; bi++) {
            int g = ids[bi], lo = s->node_ptr[g], hi = s->node_ptr[g + 1];
            out->y[bi] = s->y ? s->y[g] : 0;
            if (out->split) out->split[bi] = s->split[g];
            if (out->node_labels && hi > lo)
                memcpy(out->node_labels + out->node_ptr[bi], s->node_labels + lo,
                       sizeof(int) * (size_t)(hi - lo));
            if (pa) pa = fgl__gr_copy_rows(pa, s->node_attr, s->n_node_attr, lo, hi);
            if (px) px = fgl__gr_copy_rows(px, s->x, s->n_feat, lo, hi);
            if (pp) pp = fgl__gr_copy_rows(pp, s->pe, s->n_pe, lo, hi);
        }
    }
    return FGL_OK;
fail:
    fgl_graph_set_free(out);
    return rc;
}

/* --- features and labels ------------------------------------------------------ */

FGLDEF int fgl_graph_set_max_degree(const fgl_graph_set *s) {
    int i, m = 0;
    for (i = 0; i < s->adj.rows; i++)
        if (s->adj.indptr[i + 1] - s->adj.indptr[i] > m) m = s->adj.indptr[i + 1] - s->adj.indptr[i];
    return m;
}

FGLDEF int fgl_graph_set_features(fgl_graph_set *s, unsigned flags, int max_degree,
                                  fgl_error *err) {
    int w = 0, i, col;
    float *x;
    if (!(flags & (FGL_FEAT_NODE_LABELS | FGL_FEAT_DEGREE | FGL_FEAT_NODE_ATTR | FGL_FEAT_CONSTANT)))
        return fgl_error_set(err, FGL_ERR_ARG, "%s: no feature part chosen (flags %u)", s->name, flags);
    if ((flags & FGL_FEAT_NODE_LABELS) && (!s->node_labels || s->n_node_label_values <= 0))
        return fgl_error_set(err, FGL_ERR_ARG, "%s: the set has no node labels", s->name);
    if ((flags & FGL_FEAT_NODE_ATTR) && (!s->node_attr || s->n_node_attr <= 0))
        return fgl_error_set(err, FGL_ERR_ARG, "%s: the set has no node attributes", s->name);
    if ((flags & FGL_FEAT_DEGREE) && (max_degree < 0 || max_degree > 1000000))
        return fgl_error_set(err, FGL_ERR_ARG, "%s: max_degree %d", s->name, max_degree);
    if (flags & FGL_FEAT_NODE_LABELS) w += s->n_node_label_values;
    if (flags & FGL_FEAT_DEGREE) w += max_degree + 1;
    if (flags & FGL_FEAT_NODE_ATTR) w += s->n_node_attr;
    if (flags & FGL_FEAT_CONSTANT) w += 1;
    x = FGL__GR_NEW(float, (size_t)s->n_nodes * (size_t)w);
    if (!x) return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory for features", s->name);
    memset(x, 0, sizeof(float) * (size_t)s->n_nodes * (size_t)w);
    for (i = 0; i < s->n_nodes; i++) {
        float *row = x + (size_t)i * (size_t)w;
        col = 0;
        if (flags & FGL_FEAT_NODE_LABELS) {
            row[s->node_labels[i]] = 1.0f;
            col += s->n_node_label_values;
        }
        if (flags & FGL_FEAT_DEGREE) {
            int d = s->adj.indptr[i + 1] - s->adj.indptr[i];
            row[col + (d < max_degree ? d : max_degree)] = 1.0f;
            col += max_degree + 1;
        }
        if (flags & FGL_FEAT_NODE_ATTR) {
            memcpy(row + col, s->node_attr + (size_t)i * (size_t)s->n_node_attr,
                   sizeof(float) * (size_t)s->n_node_attr);
            col += s->n_node_attr;
        }
        if (flags & FGL_FEAT_CONSTANT) row[col] = 1.0f;
    }
    FGL_FREE(s->x);
    s->x = x;
    s->n_feat = w;
    return FGL_OK;
}

/* Give a sparse matrix explicit values (ones) if it has none. */
static int fgl__gr_csr_own_values(fgl_csr *a) {
    int k;
    if (a->values || !a->indptr) return FGL_OK;
    a->values = FGL__GR_NEW(float, a->nnz);
    if (!a->values) return FGL_ERR_NOMEM;
    for (k = 0; k < a->nnz; k++) a->values[k] = 1.0f;
    return FGL_OK;
}

FGLDEF int fgl_node_data_normalize_features(fgl_node_data *d) {
    int i, j, k;
    if (d->x.data) {
        for (i = 0; i < d->x.rows; i++) {
            float *row = d->x.data + (size_t)i * (size_t)d->x.cols;
            double s = 0;
            for (j = 0; j < d->x.cols; j++) s += row[j];
            if (s != 0)
                for (j = 0; j < d->x.cols; j++) row[j] = (float)(row[j] / s);
        }
    }
    if (d->x_sparse.indptr) {
        fgl_csr *a = &d->x_sparse;
        if (fgl__gr_csr_own_values(a)) return FGL_ERR_NOMEM;
        for (i = 0; i < a->rows; i++) {
            double s = 0;
            for (k = a->indptr[i]; k < a->indptr[i + 1]; k++) s += a->values[k];
            if (s != 0)
                for (k = a->indptr[i]; k < a->indptr[i + 1]; k++) a->values[k] = (float)(a->values[k] / s);
        }
    }
    return FGL_OK;
}

FGLDEF int fgl_node_data_binarize_features(fgl_node_data *d) {
    size_t i, n = fgl_tensor_size(&d->x);
    int k;
    if (d->x.data)
        for (i = 0; i < n; i++) d->x.data[i] = d->x.data[i] != 0.0f ? 1.0f : 0.0f;
    if (d->x_sparse.values)
        for (k = 0; k < d->x_sparse.nnz; k++) d->x_sparse.values[k] = d->x_sparse.values[k] != 0.0f ? 1.0f : 0.0f;
    return FGL_OK;
}

FGLDEF int fgl_node_data_densify(fgl_node_data *d) {
    fgl_tensor x;
    int i, k, rc;
    if (!d->x_sparse.indptr) return FGL_OK;
    rc = fgl_tensor_init(&x, d->x_sparse.rows, d->x_sparse.cols);
    if (rc) return rc;
    for (i = 0; i < d->x_sparse.rows; i++)
        for (k = d->x_sparse.indptr[i]; k < d->x_sparse.indptr[i + 1]; k++)
            FGL_AT(&x, i, d->x_sparse.indices[k]) += d->x_sparse.values ? d->x_sparse.values[k] : 1.0f;
    fgl_tensor_free(&d->x);
    fgl_csr_free(&d->x_sparse);
    d->x = x;
    d->n_feat = x.cols;
    return FGL_OK;
}

FGLDEF int fgl_labels_remap(int *y, int n, int *raw_values, int *n_values) {
    int *v, i, u = 0, lo, hi;
    if (n_values) *n_values = 0;
    if (n < 0) return FGL_ERR_ARG;
    if (n == 0) return FGL_OK;
    lo = hi = y[0];
    for (i = 1; i < n; i++) {
        lo = y[i] < lo ? y[i] : lo;
        hi = y[i] > hi ? y[i] : hi;
    }
    if ((double)hi - lo < 4.0 * n + 1024) { /* small range: a rank table */
        int range = hi - lo + 1, *rank = FGL__GR_NEW(int, range);
        if (!rank) return FGL_ERR_NOMEM;
        memset(rank, 0, sizeof(int) * (size_t)range);
        for (i = 0; i < n; i++) rank[y[i] - lo] = 1;
        for (i = 0; i < range; i++)
            if (rank[i]) {
                if (raw_values) raw_values[u] = lo + i;
                rank[i] = u++;
            }
        for (i = 0; i < n; i++) y[i] = rank[y[i] - lo];
        if (n_values) *n_values = u;
        FGL_FREE(rank);
        return FGL_OK;
    }
    v = FGL__GR_NEW(int, n);
    if (!v) return FGL_ERR_NOMEM;
    if (n) memcpy(v, y, sizeof(int) * (size_t)n);
    qsort(v, (size_t)n, sizeof(int), fgl__gr_cmp_int);
    for (i = 0; i < n; i++)
        if (u == 0 || v[u - 1] != v[i]) v[u++] = v[i];
    for (i = 0; i < n; i++) {
        int lo = 0, hi = u - 1;
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (v[mid] < y[i]) lo = mid + 1;
            else hi = mid;
        }
        y[i] = lo;
    }
    if (raw_values && u) memcpy(raw_values, v, sizeof(int) * (size_t)u);
    if (n_values) *n_values = u;
    FGL_FREE(v);
    return FGL_OK;
}

/* --- node-data subgraphs and client datasets ----------------------------------- */

FGLDEF int fgl_node_data_subgraph(const fgl_node_data *d, const int *nodes, int n,
                                  fgl_node_data *out, fgl_error *err) {
    int rc, i, k;
    memset(out, 0, sizeof *out);
    rc = fgl_graph_subgraph(&d->adj, nodes, n, &out->adj, NULL, err);
    if (rc) return rc;
    fgl__gr_name_copy(out->name, d->name);
    out->n_nodes = n;
    out->n_feat = d->n_feat;
    out->n_classes = d->n_classes;
    out->y = FGL__GR_NEW(int, n);
    if (d->split) out->split = FGL__GR_NEW(unsigned char, n);
    if (!out->y || (d->split && !out->split)) goto nomem;
    for (i = 0; i < n; i++) {
        out->y[i] = d->y ? d->y[nodes[i]] : -1;
        if (out->split) out->split[i] = d->split[nodes[i]];
    }
    if (d->x.data) {
        if (fgl_tensor_init(&out->x, n, d->x.cols)) goto nomem;
        for (i = 0; i < n; i++)
            memcpy(out->x.data + (size_t)i * (size_t)d->x.cols, d->x.data + (size_t)nodes[i] * (size_t)d->x.cols,
                   sizeof(float) * (size_t)d->x.cols);
    }
    if (d->x_sparse.indptr) {
        const fgl_csr *a = &d->x_sparse;
        int nnz = 0, w = 0;
        for (i = 0; i < n; i++) nnz += a->indptr[nodes[i] + 1] - a->indptr[nodes[i]];
        if (fgl_csr_init(&out->x_sparse, n, a->cols, nnz, a->values != NULL)) goto nomem;
        for (i = 0; i < n; i++) {
            for (k = a->indptr[nodes[i]]; k < a->indptr[nodes[i] + 1]; k++) {
                out->x_sparse.indices[w] = a->indices[k];
                if (a->values) out->x_sparse.values[w] = a->values[k];
                w++;
            }
            out->x_sparse.indptr[i + 1] = w;
        }
    }
    return FGL_OK;
nomem:
    fgl_node_data_free(out);
    return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory for a subgraph of %d nodes", d->name, n);
}

FGLDEF int fgl_node_data_largest_component(const fgl_node_data *d, fgl_node_data *out,
                                           fgl_error *err) {
    int *nodes = FGL__GR_NEW(int, d->n_nodes), cnt, rc;
    memset(out, 0, sizeof *out);
    if (!nodes) return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", d->name);
    cnt = fgl_graph_largest_component(&d->adj, nodes);
    if (cnt < 0) {
        FGL_FREE(nodes);
        return fgl_error_set(err, cnt, "%s: cannot compute components", d->name);
    }
    rc = fgl_node_data_subgraph(d, nodes, cnt, out, err);
    FGL_FREE(nodes);
    return rc;
}

FGLDEF int fgl_split_node_lists(const fgl_node_data *d, const int *ptr, const int *nodes, int k,
                                fgl_node_data *clients, fgl_error *err) {
    int c, rc;
    if (k < 0 || (k > 0 && (!ptr || !clients)))
        return fgl_error_set(err, FGL_ERR_ARG, "%s: %d clients", d->name, k);
    for (c = 0; c < k; c++) memset(&clients[c], 0, sizeof clients[c]);
    if (ptr && ptr[0] != 0) return fgl_error_set(err, FGL_ERR_ARG, "%s: ptr[0] = %d", d->name, ptr[0]);
    for (c = 0; c < k; c++)
        if (ptr[c + 1] < ptr[c])
            return fgl_error_set(err, FGL_ERR_ARG, "%s: list %d has negative length", d->name, c);
    for (c = 0; c < k; c++) {
        rc = fgl_node_data_subgraph(d, nodes + ptr[c], ptr[c + 1] - ptr[c], &clients[c], err);
        if (rc) {
            while (c-- > 0) fgl_node_data_free(&clients[c]);
            return rc;
        }
        fgl__gr_name_indexed(clients[c].name, d->name, c);
    }
    return FGL_OK;
}

FGLDEF int fgl_split_subgraphs(const fgl_node_data *d, const int *part, int k,
                               fgl_node_data *clients, fgl_error *err) {
    int *ptr, *nodes, *pos, i, rc;
    if (k <= 0 || !clients || (d->n_nodes > 0 && !part))
        return fgl_error_set(err, FGL_ERR_ARG, "%s: %d clients", d->name, k);
    for (i = 0; i < k; i++) memset(&clients[i], 0, sizeof clients[i]);
    for (i = 0; i < d->n_nodes; i++)
        if (part[i] < -1 || part[i] >= k)
            return fgl_error_set(err, FGL_ERR_RANGE, "%s: node %d is in part %d, expected -1..%d",
                                 d->name, i, part[i], k - 1);
    ptr = FGL__GR_NEW(int, k + 1);
    pos = FGL__GR_NEW(int, k);
    nodes = FGL__GR_NEW(int, d->n_nodes);
    if (!ptr || !pos || !nodes) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", d->name);
        goto done;
    }
    memset(ptr, 0, sizeof(int) * ((size_t)k + 1));
    for (i = 0; i < d->n_nodes; i++)
        if (part[i] >= 0) ptr[part[i] + 1]++;
    for (i = 0; i < k; i++) ptr[i + 1] += ptr[i];
    memcpy(pos, ptr, sizeof(int) * (size_t)k);
    for (i = 0; i < d->n_nodes; i++)
        if (part[i] >= 0) nodes[pos[part[i]]++] = i;
    rc = fgl_split_node_lists(d, ptr, nodes, k, clients, err);
done:
    FGL_FREE(ptr);
    FGL_FREE(pos);
    FGL_FREE(nodes);
    return rc;
}

/* --- splits ------------------------------------------------------------------- */

static int fgl__gr_check_fractions(double train, double val) {
    return train >= 0 && val >= 0 && train <= 1 && val <= 1 && train + val <= 1.0 + 1e-9;
}

static int fgl__gr_round_frac(double f, int n) {
    int r = (int)floor(f * n + 0.5);
    return r < 0 ? 0 : (r > n ? n : r);
}

FGLDEF int fgl_split_nodes_random(fgl_node_data *d, double train, double val, uint64_t seed) {
    int *idx, n = 0, i, ntr, nva;
    fgl_rng r;
    if (!fgl__gr_check_fractions(train, val)) return FGL_ERR_ARG;
    if (!d->split) {
        d->split = FGL__GR_NEW(unsigned char, d->n_nodes);
        if (!d->split) return FGL_ERR_NOMEM;
    }
    idx = FGL__GR_NEW(int, d->n_nodes);
    if (!idx) return FGL_ERR_NOMEM;
    for (i = 0; i < d->n_nodes; i++) {
        d->split[i] = FGL_SPLIT_NONE;
        if (!d->y || d->y[i] >= 0) idx[n++] = i;
    }
    fgl_rng_init(&r, seed, 0x5317);
    fgl_rng_shuffle(&r, idx, n);
    ntr = fgl__gr_round_frac(train, n);
    nva = fgl__gr_round_frac(val, n);
    if (nva > n - ntr) nva = n - ntr;
    for (i = 0; i < n; i++)
        d->split[idx[i]] = (unsigned char)(i < ntr ? FGL_SPLIT_TRAIN : i < ntr + nva ? FGL_SPLIT_VAL : FGL_SPLIT_TEST);
    FGL_FREE(idx);
    return FGL_OK;
}

FGLDEF int fgl_split_graphs_stratified(fgl_graph_set *s, double train, double val, uint64_t seed) {
    int *idx, c, g, G = s->n_graphs;
    double test = 1.0 - train - val;
    fgl_rng r;
    if (!fgl__gr_check_fractions(train, val) || (G > 0 && !s->y)) return FGL_ERR_ARG;
    if (!s->split) {
        s->split = FGL__GR_NEW(unsigned char, G);
        if (!s->split) return FGL_ERR_NOMEM;
    }
    idx = FGL__GR_NEW(int, G);
    if (!idx) return FGL_ERR_NOMEM;
    for (g = 0; g < G; g++) s->split[g] = FGL_SPLIT_NONE;
    fgl_rng_init(&r, seed, 0x57a7);
    for (c = 0; c < s->n_classes; c++) {
        int n = 0, ntr, nva, nte, i;
        for (g = 0; g < G; g++)
            if (s->y[g] == c) idx[n++] = g;
        fgl_rng_shuffle(&r, idx, n);
        ntr = fgl__gr_round_frac(train, n);
        nva = fgl__gr_round_frac(val, n);
        if (nva > n - ntr) nva = n - ntr;
        nte = n - ntr - nva;
        if (n >= 3) { /* each part with a positive fraction gets a graph */
            if (val > 0 && nva == 0) nva = 1;
            if (test > 1e-9 && nte == 0) nte = 1;
            if (train > 0 && ntr == 0) ntr = 1;
            while (ntr + nva + nte > n) { /* take back from the largest part */
                if (ntr >= nva && ntr >= nte) ntr--;
                else if (nva >= nte) nva--;
                else nte--;
            }
        }
        for (i = 0; i < n; i++)
            s->split[idx[i]] = (unsigned char)(i < ntr ? FGL_SPLIT_TRAIN : i < ntr + nva ? FGL_SPLIT_VAL : FGL_SPLIT_TEST);
    }
    FGL_FREE(idx);
    return FGL_OK;
}

FGLDEF int fgl_split_indices(const unsigned char *split, int n, int code, int *out) {
    int i, cnt = 0;
    if (!split) return 0;
    for (i = 0; i < n; i++)
        if (split[i] == code) {
            if (out) out[cnt] = i;
            cnt++;
        }
    return cnt;
}

/* --- text parsing ------------------------------------------------------------------ */

/* A whole text file in memory (NUL-terminated) with a cursor and the line
 * number for messages. */
typedef struct fgl__gr_txt {
    const char *path;
    char *buf;
    const char *p, *end;
    int line;
    fgl_error *err;
} fgl__gr_txt;

static int fgl__gr_txt_fail(fgl__gr_txt *t, int code, const char *fmt, ...) FGL__PRINTF(3, 4);

static int fgl__gr_txt_fail(fgl__gr_txt *t, int code, const char *fmt, ...) {
    char msg[FGL_ERROR_MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fgl_error_set(t->err, code, "%s:%d: %s", t->path, t->line, msg);
}

static int fgl__gr_txt_open(fgl__gr_txt *t, const char *path, fgl_error *err) {
    unsigned char *data, *nb;
    size_t len;
    int rc;
    memset(t, 0, sizeof *t);
    t->path = path;
    t->err = err;
    t->line = 1;
    rc = fgl_file_read(path, &data, &len, err);
    if (rc) return rc;
    nb = (unsigned char *)FGL_REALLOC(data, len + 1);
    if (!nb) {
        FGL_FREE(data);
        return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", path);
    }
    nb[len] = 0;
    t->buf = (char *)nb;
    t->p = t->buf;
    t->end = t->buf + len;
    if (len >= 3 && nb[0] == 0xEF && nb[1] == 0xBB && nb[2] == 0xBF) t->p += 3; /* UTF-8 BOM */
    return FGL_OK;
}

static void fgl__gr_txt_close(fgl__gr_txt *t) {
    FGL_FREE(t->buf);
    t->buf = NULL;
    t->p = t->end = NULL;
}

/* Upper bound on the number of lines (records). */
static size_t fgl__gr_txt_lines(const fgl__gr_txt *t) {
    size_t n = 0;
    const char *q = t->p;
    while (q < t->end) {
        const char *nl = (const char *)memchr(q, '\n', (size_t)(t->end - q));
        n++;
        if (!nl) break;
        q = nl + 1;
    }
    return n;
}

static int fgl__gr_is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
static int fgl__gr_is_delim(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ','; }

static void fgl__gr_txt_blanks(fgl__gr_txt *t) {
    while (t->p < t->end && fgl__gr_is_blank(*t->p)) t->p++;
}

/* 1 at the end of the line or file (after blanks). */
static int fgl__gr_txt_at_eol(fgl__gr_txt *t) {
    fgl__gr_txt_blanks(t);
    return t->p >= t->end || *t->p == '\n';
}

/* 1 if a non-blank line follows, 0 at the end of the data (only blank
 * lines left), or an error for a blank line in the middle. */
static int fgl__gr_txt_more(fgl__gr_txt *t) {
    const char *q;
    fgl__gr_txt_blanks(t);
    if (t->p >= t->end) return 0;
    if (*t->p != '\n') return 1;
    for (q = t->p; q < t->end; q++)
        if (!fgl__gr_is_blank(*q) && *q != '\n') break;
    if (q >= t->end) {
        t->p = t->end;
        return 0;
    }
    return fgl__gr_txt_fail(t, FGL_ERR_FORMAT, "empty line");
}

/* The token at p (up to a delimiter) quoted safely for a message. */
static void fgl__gr_tok(const char *p, const char *end, char *out, size_t cap) {
    size_t n = 0;
    while (p < end && !fgl__gr_is_delim(*p) && n + 4 < cap) {
        unsigned char ch = (unsigned char)*p++;
        out[n++] = (ch >= 32 && ch < 127) ? (char)ch : '?';
    }
    if (p < end && !fgl__gr_is_delim(*p)) {
        out[n++] = '.';
        out[n++] = '.';
        out[n++] = '.';
    }
    out[n] = 0;
}

/* Consume the end of the line; anything else left on it is an error. */
static int fgl__gr_txt_eol(fgl__gr_txt *t) {
    fgl__gr_txt_blanks(t);
    if (t->p < t->end && *t->p != '\n') {
        char tok[40];
        fgl__gr_tok(t->p, t->end, tok, sizeof tok);
        if (!tok[0]) tok[0] = *t->p == ',' ? ',' : '?', tok[1] = 0;
        return fgl__gr_txt_fail(t, FGL_ERR_PARSE, "unexpected '%s' at the end of the line", tok);
    }
    if (t->p < t->end) {
        t->p++;
        t->line++;
    }
    return FGL_OK;
}

/* Skip blanks and at most one comma. */
static void fgl__gr_txt_sep(fgl__gr_txt *t) {
    fgl__gr_txt_blanks(t);
    if (t->p < t->end && *t->p == ',') {
        t->p++;
        fgl__gr_txt_blanks(t);
    }
}

static int fgl__gr_txt_missing(fgl__gr_txt *t, const char *what) {
    return fgl__gr_txt_fail(t, FGL_ERR_FORMAT, "missing %s (the line or file ends early)", what);
}

static int fgl__gr_txt_bad(fgl__gr_txt *t, const char *p, const char *what) {
    char tok[40];
    fgl__gr_tok(p, t->end, tok, sizeof tok);
    if (!tok[0]) tok[0] = *p == ',' ? ',' : '?', tok[1] = 0;
    return fgl__gr_txt_fail(t, FGL_ERR_PARSE, "'%s' is not a valid %s", tok, what);
}

static int fgl__gr_txt_int(fgl__gr_txt *t, int *out, const char *what) {
    const char *p;
    long long v = 0;
    int neg = 0, nd = 0;
    fgl__gr_txt_blanks(t);
    p = t->p;
    if (p >= t->end || *p == '\n') return fgl__gr_txt_missing(t, what);
    if (*p == '-' || *p == '+') neg = *p++ == '-';
    while (p < t->end && *p >= '0' && *p <= '9') {
        if (nd < 18) v = v * 10 + (*p - '0');
        nd++;
        p++;
    }
    if (nd == 0 || (p < t->end && !fgl__gr_is_delim(*p))) return fgl__gr_txt_bad(t, t->p, what);
    if (neg) v = -v;
    if (nd > 10 || v > INT_MAX || v < INT_MIN) {
        char tok[40];
        fgl__gr_tok(t->p, t->end, tok, sizeof tok);
        return fgl__gr_txt_fail(t, FGL_ERR_RANGE, "%s %s is out of range", what, tok);
    }
    t->p = p;
    *out = (int)v;
    return FGL_OK;
}

static const double fgl__gr_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A float: plain decimals with at most 15 digits are converted exactly
 * (one correctly rounded multiply or divide); anything else goes to strtod. */
static int fgl__gr_txt_float(fgl__gr_txt *t, float *out, const char *what) {
    const char *p, *s;
    double d;
    int neg = 0, nd = 0, frac = 0, ex = 0, fast = 1;
    uint64_t m = 0;
    fgl__gr_txt_blanks(t);
    s = p = t->p;
    if (p >= t->end || *p == '\n') return fgl__gr_txt_missing(t, what);
    if (*p == '-' || *p == '+') neg = *p++ == '-';
    while (p < t->end && *p >= '0' && *p <= '9') {
        m = m * 10 + (uint64_t)(*p++ - '0');
        nd++;
    }
    if (p < t->end && *p == '.') {
        p++;
        while (p < t->end && *p >= '0' && *p <= '9') {
            m = m * 10 + (uint64_t)(*p++ - '0');
            nd++;
            frac++;
        }
    }
    if (nd == 0) fast = 0;
    if (fast && p < t->end && (*p == 'e' || *p == 'E')) {
        int eneg = 0, en = 0, e = 0;
        p++;
        if (p < t->end && (*p == '-' || *p == '+')) eneg = *p++ == '-';
        while (p < t->end && *p >= '0' && *p <= '9') {
            if (e < 10000) e = e * 10 + (*p - '0');
            p++;
            en++;
        }
        if (en == 0) fast = 0;
        ex = eneg ? -e : e;
    }
    ex -= frac;
    if (fast && nd <= 15 && ex >= -22 && ex <= 22 && (p >= t->end || fgl__gr_is_delim(*p))) {
        d = (double)m;
        d = ex >= 0 ? d * fgl__gr_pow10[ex] : d / fgl__gr_pow10[-ex];
        if (neg) d = -d;
    } else {
        char *e;
        char c0 = (neg || *s == '+') ? s[1] : s[0];
        if (!((c0 >= '0' && c0 <= '9') || c0 == '.' || c0 == 'i' || c0 == 'I' || c0 == 'n' ||
              c0 == 'N'))
            return fgl__gr_txt_bad(t, s, what);  /* strtod would skip white space */
        d = strtod(s, &e);
        if (e == s || (e < t->end && !fgl__gr_is_delim(*e))) return fgl__gr_txt_bad(t, s, what);
        p = e;
    }
    /* at or beyond FLT_MAX + half an ulp a float conversion gives Inf */
    if (d != d || d >= 3.4028235677973366e38 || d <= -3.4028235677973366e38) {
        char tok[40];
        fgl__gr_tok(s, t->end, tok, sizeof tok);
        return fgl__gr_txt_fail(t, FGL_ERR_NONFINITE, "%s %s is not a finite float", what, tok);
    }
    t->p = p;
    *out = (float)d;
    return FGL_OK;
}

/* A word: the characters up to a blank or the end of the line. */
static int fgl__gr_txt_word(fgl__gr_txt *t, const char **w, int *len, const char *what) {
    const char *p;
    fgl__gr_txt_blanks(t);
    p = t->p;
    if (p >= t->end || *p == '\n') return fgl__gr_txt_missing(t, what);
    while (p < t->end && !fgl__gr_is_blank(*p) && *p != '\n') p++;
    *w = t->p;
    *len = (int)(p - t->p);
    t->p = p;
    return FGL_OK;
}

/* dir + "/" + name + suffix (dir may be NULL or empty). */
static char *fgl__gr_path(const char *dir, const char *name, const char *suffix) {
    size_t a = dir ? strlen(dir) : 0, b = name ? strlen(name) : 0, c = strlen(suffix);
    char *p = FGL__GR_NEW(char, a + b + c + 2), *q;
    if (!p) return NULL;
    q = p;
    if (a) {
        memcpy(q, dir, a);
        q += a;
        if (dir[a - 1] != '/') *q++ = '/';
    }
    if (b) memcpy(q, name, b);
    q += b;
    memcpy(q, suffix, c + 1);
    return p;
}

/* A growable int array. */
typedef struct fgl__gr_ivec {
    int *a;
    size_t n, cap;
} fgl__gr_ivec;

static int fgl__gr_ivec_push(fgl__gr_ivec *v, int x) {
    if (v->n == v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 1024;
        int *na = (int *)FGL_REALLOC(v->a, sizeof(int) * nc);
        if (!na) return FGL_ERR_NOMEM;
        v->a = na;
        v->cap = nc;
    }
    v->a[v->n++] = x;
    return FGL_OK;
}

/* A growable float array. */
typedef struct fgl__gr_fvec {
    float *a;
    size_t n, cap;
} fgl__gr_fvec;

static int fgl__gr_fvec_push(fgl__gr_fvec *v, float x) {
    if (v->n == v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 1024;
        float *na = (float *)FGL_REALLOC(v->a, sizeof(float) * nc);
        if (!na) return FGL_ERR_NOMEM;
        v->a = na;
        v->cap = nc;
    }
    v->a[v->n++] = x;
    return FGL_OK;
}

/* --- TU loader ------------------------------------------------------------------- */

/* Read one integer per line into a new array; *n = lines read. */
static int fgl__gr_read_int_lines(fgl__gr_txt *t, int **out, int *n, const char *what) {
    size_t cap = fgl__gr_txt_lines(t);
    int rc, cnt = 0, *a = FGL__GR_NEW(int, cap);
    *out = NULL;
    *n = 0;
    if (!a) return fgl_error_set(t->err, FGL_ERR_NOMEM, "%s: out of memory", t->path);
    while ((rc = fgl__gr_txt_more(t)) > 0) {
        if ((rc = fgl__gr_txt_int(t, &a[cnt], what)) != 0 || (rc = fgl__gr_txt_eol(t)) != 0) break;
        cnt++;
    }
    if (rc < 0) {
        FGL_FREE(a);
        return rc;
    }
    *out = a;
    *n = cnt;
    return FGL_OK;
}

FGLDEF int fgl_load_tu(const char *dir, const char *name, fgl_graph_set *out, fgl_error *err) {
    fgl__gr_txt t;
    char *path = NULL;
    int *gi = NULL, *lab = NULL, *src = NULL, *dst = NULL, *nl = NULL;
    float *attr = NULL;
    int rc, N = 0, G, nlab, m = 0, i;
    memset(out, 0, sizeof *out);
    memset(&t, 0, sizeof t);
#define FGL__GR_TU_OPEN(suffix)                                                         \
    do {                                                                            \
        fgl__gr_txt_close(&t);                                                         \
        FGL_FREE(path);                                                             \
        path = fgl__gr_path(dir, name, suffix);                                        \
        if (!path) {                                                                \
            rc = fgl_error_set(err, FGL_ERR_NOMEM, "load_tu: out of memory");       \
            goto fail;                                                              \
        }                                                                           \
        rc = fgl__gr_txt_open(&t, path, err);                                          \
    } while (0)

    /* graph indicator: node -> graph, 1-based, non-decreasing, no gaps */
    FGL__GR_TU_OPEN("_graph_indicator.txt");
    if (rc) goto fail;
    rc = fgl__gr_read_int_lines(&t, &gi, &N, "graph id");
    if (rc) goto fail;
    t.line = 1;
    for (i = 0; i < N; i++) {
        int prev = i ? gi[i - 1] : 0;
        t.line = i + 1;
        if (gi[i] < 1) {
            rc = fgl__gr_txt_fail(&t, FGL_ERR_RANGE, "graph id %d (ids start at 1)", gi[i]);
            goto fail;
        }
        if (gi[i] < prev) {
            rc = fgl__gr_txt_fail(&t, FGL_ERR_FORMAT, "graph id %d after %d: ids must not decrease", gi[i], prev);
            goto fail;
        }
        if (gi[i] > prev + 1) {
            rc = fgl__gr_txt_fail(&t, FGL_ERR_FORMAT, "graph id %d after %d: graph %d has no nodes", gi[i],
                               prev, prev + 1);
            goto fail;
        }
    }
    if (N == 0) {
        rc = fgl__gr_txt_fail(&t, FGL_ERR_EMPTY, "no nodes: the dataset is empty");
        goto fail;
    }
    G = gi[N - 1];
    out->node_ptr = FGL__GR_NEW(int, G + 1);
    if (!out->node_ptr) goto nomem;
    out->node_ptr[0] = 0;
    for (i = 0; i < N; i++) out->node_ptr[gi[i]] = i + 1;

    /* graph labels: one per graph, any integers, remapped to 0..C-1 */
    FGL__GR_TU_OPEN("_graph_labels.txt");
    if (rc) goto fail;
    rc = fgl__gr_read_int_lines(&t, &lab, &nlab, "graph label");
    if (rc) goto fail;
    if (nlab != G) {
        t.line = (nlab < G ? nlab : G) + 1;
        rc = fgl__gr_txt_fail(&t, FGL_ERR_SHAPE, "%d graph labels, but the graph indicator names %d graphs",
                           nlab, G);
        goto fail;
    }
    rc = fgl_labels_remap(lab, G, NULL, &out->n_classes);
    if (rc) goto nomem;
    out->y = lab;
    lab = NULL;

    /* adjacency: "row, col" per directed entry, 1-based */
    FGL__GR_TU_OPEN("_A.txt");
    if (rc) goto fail;
    {
        size_t cap = fgl__gr_txt_lines(&t);
        src = FGL__GR_NEW(int, cap);
        dst = FGL__GR_NEW(int, cap);
        if (!src || !dst) goto nomem;
        while ((rc = fgl__gr_txt_more(&t)) > 0) {
            int u, v;
            if ((rc = fgl__gr_txt_int(&t, &u, "node id")) != 0) goto fail;
            fgl__gr_txt_sep(&t);
            if ((rc = fgl__gr_txt_int(&t, &v, "node id")) != 0) goto fail;
            if (u < 1 || u > N || v < 1 || v > N) {
                rc = fgl__gr_txt_fail(&t, FGL_ERR_RANGE, "node id %d outside 1..%d", (u < 1 || u > N) ? u : v, N);
                goto fail;
            }
            if (gi[u - 1] != gi[v - 1]) {
                rc = fgl__gr_txt_fail(&t, FGL_ERR_FORMAT, "edge (%d, %d) joins graph %d and graph %d", u, v,
                                   gi[u - 1], gi[v - 1]);
                goto fail;
            }
            if ((rc = fgl__gr_txt_eol(&t)) != 0) goto fail;
            src[m] = u - 1;
            dst[m++] = v - 1;
        }
        if (rc < 0) goto fail;
    }
    rc = fgl_graph_from_edges(N, src, dst, m, FGL_EDGES_SYMMETRIZE | FGL_EDGES_DROP_SELF_LOOPS,
                              &out->adj, err);
    if (rc) goto fail;
    FGL_FREE(src);
    FGL_FREE(dst);
    src = dst = NULL;

    /* optional node labels */
    FGL__GR_TU_OPEN("_node_labels.txt");
    if (rc == FGL_OK) {
        int cnt;
        rc = fgl__gr_read_int_lines(&t, &nl, &cnt, "node label");
        if (rc) goto fail;
        if (cnt != N) {
            t.line = (cnt < N ? cnt : N) + 1;
            rc = fgl__gr_txt_fail(&t, FGL_ERR_SHAPE, "%d node labels for %d nodes", cnt, N);
            goto fail;
        }
        rc = fgl_labels_remap(nl, N, NULL, &out->n_node_label_values);
        if (rc) goto nomem;
        out->node_labels = nl;
        nl = NULL;
    } else if (rc != FGL_ERR_IO)
        goto fail;

    /* optional node attributes: the same number of floats on every line */
    FGL__GR_TU_OPEN("_node_attributes.txt");
    if (rc == FGL_OK) {
        int w = 0, row = 0, j;
        fgl__gr_fvec first = {NULL, 0, 0};
        if ((rc = fgl__gr_txt_more(&t)) > 0) {
            while (!fgl__gr_txt_at_eol(&t)) {
                float v;
                if ((rc = fgl__gr_txt_float(&t, &v, "attribute")) != 0 || (rc = fgl__gr_fvec_push(&first, v)) != 0) {
                    FGL_FREE(first.a);
                    if (rc == FGL_ERR_NOMEM) goto nomem;
                    goto fail;
                }
                fgl__gr_txt_sep(&t);
            }
            w = (int)first.n;
        }
        if (rc < 0) {
            FGL_FREE(first.a);
            goto fail;
        }
        if (w == 0) {
            FGL_FREE(first.a);
            rc = fgl__gr_txt_fail(&t, FGL_ERR_SHAPE, "no attributes for %d nodes", N);
            goto fail;
        }
        attr = FGL__GR_NEW(float, (size_t)N * (size_t)w);
        if (!attr) {
            FGL_FREE(first.a);
            goto nomem;
        }
        memcpy(attr, first.a, sizeof(float) * (size_t)w);
        FGL_FREE(first.a);
        if ((rc = fgl__gr_txt_eol(&t)) != 0) goto fail;
        row = 1;
        while ((rc = fgl__gr_txt_more(&t)) > 0) {
            float *r = attr + (size_t)row * (size_t)w;
            if (row >= N) {
                rc = fgl__gr_txt_fail(&t, FGL_ERR_SHAPE, "more attribute lines than the %d nodes", N);
                goto fail;
            }
            for (j = 0; j < w; j++) {
                if (fgl__gr_txt_at_eol(&t)) {
                    rc = fgl__gr_txt_fail(&t, FGL_ERR_SHAPE, "%d attributes, the first line has %d", j, w);
                    goto fail;
                }
                if ((rc = fgl__gr_txt_float(&t, &r[j], "attribute")) != 0) goto fail;
                fgl__gr_txt_sep(&t);
            }
            if (!fgl__gr_txt_at_eol(&t)) {
                rc = fgl__gr_txt_fail(&t, FGL_ERR_SHAPE, "more attributes than the %d of the first line", w);
                goto fail;
            }
            if ((rc = fgl__gr_txt_eol(&t)) != 0) goto fail;
            row++;
        }
        if (rc < 0) goto fail;
        if (row != N) {
            rc = fgl__gr_txt_fail(&t, FGL_ERR_SHAPE, "%d attribute lines for %d nodes", row, N);
            goto fail;
        }
        out->node_attr = attr;
        out->n_node_attr = w;
        attr = NULL;
    } else if (rc != FGL_ERR_IO)
        goto fail;
#undef FGL__GR_TU_OPEN

    fgl__gr_txt_close(&t);
    FGL_FREE(path);
    FGL_FREE(gi);
    fgl__gr_name_copy(out->name, name);
    out->n_graphs = G;
    out->n_nodes = N;
    fgl_error_clear(err);
    return FGL_OK;
nomem:
    rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", path ? path : "load_tu");
fail:
    fgl__gr_txt_close(&t);
    FGL_FREE(path);
    FGL_FREE(gi);
    FGL_FREE(lab);
    FGL_FREE(src);
    FGL_FREE(dst);
    FGL_FREE(nl);
    FGL_FREE(attr);
    fgl_graph_set_free(out);
    return rc;
}

/* --- node layout loader --------------------------------------------------------- */

/* Labels: one integer >= -1 per line, exactly n lines; n_classes = max + 1. */
static int fgl__gr_read_labels(fgl__gr_txt *t, int n, int *y, int *n_classes) {
    int rc, cnt = 0, mx = -1;
    while ((rc = fgl__gr_txt_more(t)) > 0) {
        int v;
        if (cnt >= n) return fgl__gr_txt_fail(t, FGL_ERR_SHAPE, "more labels than the %d nodes", n);
        if ((rc = fgl__gr_txt_int(t, &v, "label")) != 0) return rc;
        if (v < -1) return fgl__gr_txt_fail(t, FGL_ERR_RANGE, "label %d (labels are 0-based, -1 = unknown)", v);
        if ((rc = fgl__gr_txt_eol(t)) != 0) return rc;
        y[cnt++] = v;
        if (v > mx) mx = v;
    }
    if (rc < 0) return rc;
    if (cnt != n) return fgl__gr_txt_fail(t, FGL_ERR_SHAPE, "%d labels for %d nodes", cnt, n);
    *n_classes = mx + 1;
    return FGL_OK;
}

/* Edges "u v" (0-based, < n) -> a symmetric graph without self loops. */
static int fgl__gr_read_edges(fgl__gr_txt *t, int n, fgl_csr *adj) {
    size_t cap = fgl__gr_txt_lines(t);
    int *src = FGL__GR_NEW(int, cap), *dst = FGL__GR_NEW(int, cap), m = 0, rc;
    if (!src || !dst) {
        rc = fgl_error_set(t->err, FGL_ERR_NOMEM, "%s: out of memory", t->path);
        goto done;
    }
    while ((rc = fgl__gr_txt_more(t)) > 0) {
        int u, v;
        if ((rc = fgl__gr_txt_int(t, &u, "node id")) != 0) goto done;
        fgl__gr_txt_sep(t);
        if ((rc = fgl__gr_txt_int(t, &v, "node id")) != 0) goto done;
        if (u < 0 || u >= n || v < 0 || v >= n) {
            rc = fgl__gr_txt_fail(t, FGL_ERR_RANGE, "node id %d outside 0..%d", (u < 0 || u >= n) ? u : v, n - 1);
            goto done;
        }
        if ((rc = fgl__gr_txt_eol(t)) != 0) goto done;
        src[m] = u;
        dst[m++] = v;
    }
    if (rc < 0) goto done;
    rc = fgl_graph_from_edges(n, src, dst, m, FGL_EDGES_SYMMETRIZE | FGL_EDGES_DROP_SELF_LOOPS, adj,
                              t->err);
done:
    FGL_FREE(src);
    FGL_FREE(dst);
    return rc;
}

/* NAME.features: dense or sparse by the header. */
static int fgl__gr_read_features(fgl__gr_txt *t, fgl_node_data *d) {
    int n, f, nnz = -1, rc, i, j;
    size_t avail = (size_t)(t->end - t->p) + 1;
    if ((rc = fgl__gr_txt_more(t)) <= 0)
        return rc < 0 ? rc : fgl__gr_txt_fail(t, FGL_ERR_EMPTY, "empty file: no header \"nodes features [nnz]\"");
    if ((rc = fgl__gr_txt_int(t, &n, "node count")) != 0) return rc;
    if ((rc = fgl__gr_txt_int(t, &f, "feature count")) != 0) return rc;
    if (!fgl__gr_txt_at_eol(t) && (rc = fgl__gr_txt_int(t, &nnz, "non-zero count")) != 0) return rc;
    if ((rc = fgl__gr_txt_eol(t)) != 0) return rc;
    if (n < 0 || f < 0 || nnz < -1)
        return fgl__gr_txt_fail(t, FGL_ERR_RANGE, "negative count in the header (%d %d %d)", n, f, nnz);
    if (n == 0 || f == 0)
        return fgl__gr_txt_fail(t, FGL_ERR_EMPTY, "empty dataset: %d nodes, %d features", n, f);
    d->n_nodes = n;
    d->n_feat = f;
    if (nnz < 0) { /* dense: n rows of f values, each at least 2 bytes */
        if ((double)n * f * 2.0 > (double)avail)
            return fgl__gr_txt_fail(t, FGL_ERR_FORMAT, "truncated: the header announces %d x %d values", n, f);
        /* every value is written below, so no zero fill */
        d->x.data = FGL__GR_NEW(float, (size_t)n * (size_t)f);
        if (!d->x.data) return fgl_error_set(t->err, FGL_ERR_NOMEM, "%s: out of memory", t->path);
        d->x.rows = n;
        d->x.cols = f;
        d->x.owns = 1;
        for (i = 0; i < n; i++) {
            float *row = d->x.data + (size_t)i * (size_t)f;
            if ((rc = fgl__gr_txt_more(t)) <= 0)
                return rc < 0 ? rc : fgl__gr_txt_fail(t, FGL_ERR_FORMAT, "truncated: %d of %d rows", i, n);
            for (j = 0; j < f; j++) {
                const char *p = t->p, *q = p;
                int v = 0;
                /* fast path: a small non-negative integer (binary features) */
                while (q < t->end && *q >= '0' && *q <= '9' && q - p < 7) v = v * 10 + (*q++ - '0');
                if (q > p && (q >= t->end || fgl__gr_is_delim(*q))) {
                    row[j] = (float)v;
                    while (q < t->end && (*q == ' ' || *q == '\t')) q++;
                    t->p = q;
                    if (q < t->end && (*q == ',' || *q == '\r')) fgl__gr_txt_sep(t);
                    continue;
                }
                if (fgl__gr_txt_at_eol(t)) {
                    if (t->p >= t->end)
                        return fgl__gr_txt_fail(t, FGL_ERR_FORMAT, "truncated: the file ends after %d of %d values of row %d",
                                             j, f, i + 1);
                    return fgl__gr_txt_fail(t, FGL_ERR_SHAPE, "row %d has %d values, expected %d", i + 1, j, f);
                }
                if ((rc = fgl__gr_txt_float(t, &row[j], "feature value")) != 0) return rc;
                fgl__gr_txt_sep(t);
            }
            if (!fgl__gr_txt_at_eol(t))
                return fgl__gr_txt_fail(t, FGL_ERR_SHAPE, "row %d has more than %d values", i + 1, f);
            if ((rc = fgl__gr_txt_eol(t)) != 0) return rc;
        }
        if ((rc = fgl__gr_txt_more(t)) != 0)
            return rc < 0 ? rc : fgl__gr_txt_fail(t, FGL_ERR_SHAPE, "more rows than the %d of the header", n);
    } else { /* sparse: nnz triplets, each at least 6 bytes */
        int *r, *c, k = 0;
        float *v;
        if ((double)nnz * 6.0 > (double)avail + 1.0)
            return fgl__gr_txt_fail(t, FGL_ERR_FORMAT, "truncated: the header announces %d triplets", nnz);
        r = FGL__GR_NEW(int, nnz);
        c = FGL__GR_NEW(int, nnz);
        v = FGL__GR_NEW(float, nnz);
        if (!r || !c || !v) {
            rc = fgl_error_set(t->err, FGL_ERR_NOMEM, "%s: out of memory", t->path);
            goto sparse_done;
        }
        while ((rc = fgl__gr_txt_more(t)) > 0) {
            if (k >= nnz) {
                rc = fgl__gr_txt_fail(t, FGL_ERR_SHAPE, "more triplets than the %d of the header", nnz);
                goto sparse_done;
            }
            if ((rc = fgl__gr_txt_int(t, &r[k], "node id")) != 0) goto sparse_done;
            fgl__gr_txt_sep(t);
            if ((rc = fgl__gr_txt_int(t, &c[k], "feature id")) != 0) goto sparse_done;
            fgl__gr_txt_sep(t);
            if ((rc = fgl__gr_txt_float(t, &v[k], "feature value")) != 0) goto sparse_done;
            if (r[k] < 0 || r[k] >= n) {
                rc = fgl__gr_txt_fail(t, FGL_ERR_RANGE, "node id %d outside 0..%d", r[k], n - 1);
                goto sparse_done;
            }
            if (c[k] < 0 || c[k] >= f) {
                rc = fgl__gr_txt_fail(t, FGL_ERR_RANGE, "feature id %d outside 0..%d", c[k], f - 1);
                goto sparse_done;
            }
            if ((rc = fgl__gr_txt_eol(t)) != 0) goto sparse_done;
            k++;
        }
        if (rc < 0) goto sparse_done;
        if (k != nnz) {
            rc = fgl__gr_txt_fail(t, FGL_ERR_FORMAT, "truncated: %d of the %d triplets of the header", k, nnz);
            goto sparse_done;
        }
        rc = fgl__gr_coo_build(n, f, nnz, r, c, v, 2, &d->x_sparse);
        if (rc) rc = fgl_error_set(t->err, rc, "%s: out of memory", t->path);
    sparse_done:
        FGL_FREE(r);
        FGL_FREE(c);
        FGL_FREE(v);
        return rc;
    }
    return FGL_OK;
}

FGLDEF int fgl_load_node(const char *dir, const char *name, fgl_node_data *out, fgl_error *err) {
    fgl__gr_txt t;
    char *path = NULL;
    int rc;
    memset(out, 0, sizeof *out);
    memset(&t, 0, sizeof t);
#define FGL__GR_NODE_OPEN(suffix)                                                   \
    do {                                                                        \
        fgl__gr_txt_close(&t);                                                     \
        FGL_FREE(path);                                                         \
        path = fgl__gr_path(dir, name, suffix);                                    \
        if (!path) {                                                            \
            rc = fgl_error_set(err, FGL_ERR_NOMEM, "load_node: out of memory"); \
            goto fail;                                                          \
        }                                                                       \
        rc = fgl__gr_txt_open(&t, path, err);                                      \
    } while (0)
    FGL__GR_NODE_OPEN(".features");
    if (rc || (rc = fgl__gr_read_features(&t, out)) != 0) goto fail;
    out->y = FGL__GR_NEW(int, out->n_nodes);
    if (!out->y) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "load_node: out of memory");
        goto fail;
    }
    FGL__GR_NODE_OPEN(".labels");
    if (rc || (rc = fgl__gr_read_labels(&t, out->n_nodes, out->y, &out->n_classes)) != 0) goto fail;
    FGL__GR_NODE_OPEN(".edges");
    if (rc || (rc = fgl__gr_read_edges(&t, out->n_nodes, &out->adj)) != 0) goto fail;
    FGL__GR_NODE_OPEN(".split");
    if (rc == FGL_OK) {
        int cnt = 0, n = out->n_nodes;
        out->split = FGL__GR_NEW(unsigned char, n);
        if (!out->split) {
            rc = fgl_error_set(err, FGL_ERR_NOMEM, "load_node: out of memory");
            goto fail;
        }
        while ((rc = fgl__gr_txt_more(&t)) > 0) {
            int v;
            if (cnt >= n) {
                rc = fgl__gr_txt_fail(&t, FGL_ERR_SHAPE, "more split codes than the %d nodes", n);
                goto fail;
            }
            if ((rc = fgl__gr_txt_int(&t, &v, "split code")) != 0) goto fail;
            if (v < 0 || v > 3) {
                rc = fgl__gr_txt_fail(&t, FGL_ERR_RANGE, "split code %d outside 0..3", v);
                goto fail;
            }
            if ((rc = fgl__gr_txt_eol(&t)) != 0) goto fail;
            out->split[cnt++] = (unsigned char)(v == 1 ? FGL_SPLIT_TRAIN : v == 2 ? FGL_SPLIT_VAL
                                                : v == 3 ? FGL_SPLIT_TEST : FGL_SPLIT_NONE);
        }
        if (rc < 0) goto fail;
        if (cnt != n) {
            rc = fgl__gr_txt_fail(&t, FGL_ERR_SHAPE, "%d split codes for %d nodes", cnt, n);
            goto fail;
        }
    } else if (rc != FGL_ERR_IO)
        goto fail;
#undef FGL__GR_NODE_OPEN
    fgl__gr_txt_close(&t);
    FGL_FREE(path);
    fgl__gr_name_copy(out->name, name);
    fgl_error_clear(err);
    return FGL_OK;
fail:
    fgl__gr_txt_close(&t);
    FGL_FREE(path);
    fgl_node_data_free(out);
    return rc;
}

/* --- writers ---------------------------------------------------------------------- */

static void fgl__gr_put_int(fgl_bytes *b, long long v) {
    char tmp[24];
    int n = 0, neg = v < 0;
    unsigned long long u = neg ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        tmp[23 - n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (neg) tmp[23 - n++] = '-';
    fgl_bytes_put(b, tmp + 24 - n, (size_t)n);
}

/* Shortest exact text of a float: an integer when it is one, else %.9g. */
static void fgl__gr_put_float(fgl_bytes *b, float v) {
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    if (v > -16777216.0f && v < 16777216.0f && v == (float)(int)v && !(bits >> 31 && v == 0)) {
        fgl__gr_put_int(b, (long long)v);
    } else {
        char tmp[32];
        int n = snprintf(tmp, sizeof tmp, "%.9g", (double)v);
        if (n > 0) fgl_bytes_put(b, tmp, (size_t)n);
    }
}

static void fgl__gr_put_str(fgl_bytes *b, const char *s) { fgl_bytes_put(b, s, strlen(s)); }

/* Write b to dir/name+suffix and reset it. */
static int fgl__gr_flush_file(fgl_bytes *b, const char *dir, const char *name, const char *suffix,
                           fgl_error *err) {
    char *path = fgl__gr_path(dir, name, suffix);
    int rc;
    if (!path || b->err) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s%s: out of memory", name ? name : "", suffix);
    } else
        rc = fgl_file_write(path, b->data, b->len, err);
    FGL_FREE(path);
    b->len = 0;
    return rc;
}

FGLDEF int fgl_save_node(const fgl_node_data *d, const char *dir, const char *name,
                         fgl_error *err) {
    fgl_bytes b;
    int i, k, j, rc, n = d->n_nodes;
    fgl_bytes_init(&b);
    for (i = 0; i < n; i++)
        for (k = d->adj.indptr[i]; k < d->adj.indptr[i + 1]; k++)
            if (d->adj.indices[k] > i) {
                fgl__gr_put_int(&b, i);
                fgl__gr_put_str(&b, " ");
                fgl__gr_put_int(&b, d->adj.indices[k]);
                fgl__gr_put_str(&b, "\n");
            }
    if ((rc = fgl__gr_flush_file(&b, dir, name, ".edges", err)) != 0) goto done;
    for (i = 0; i < n; i++) {
        fgl__gr_put_int(&b, d->y ? d->y[i] : -1);
        fgl__gr_put_str(&b, "\n");
    }
    if ((rc = fgl__gr_flush_file(&b, dir, name, ".labels", err)) != 0) goto done;
    fgl__gr_put_int(&b, n);
    fgl__gr_put_str(&b, " ");
    fgl__gr_put_int(&b, d->n_feat);
    if (d->x_sparse.indptr) {
        fgl__gr_put_str(&b, " ");
        fgl__gr_put_int(&b, d->x_sparse.nnz);
        fgl__gr_put_str(&b, "\n");
        for (i = 0; i < d->x_sparse.rows; i++)
            for (k = d->x_sparse.indptr[i]; k < d->x_sparse.indptr[i + 1]; k++) {
                fgl__gr_put_int(&b, i);
                fgl__gr_put_str(&b, " ");
                fgl__gr_put_int(&b, d->x_sparse.indices[k]);
                fgl__gr_put_str(&b, " ");
                fgl__gr_put_float(&b, d->x_sparse.values ? d->x_sparse.values[k] : 1.0f);
                fgl__gr_put_str(&b, "\n");
            }
    } else {
        fgl__gr_put_str(&b, "\n");
        for (i = 0; i < d->x.rows; i++) {
            for (j = 0; j < d->x.cols; j++) {
                if (j) fgl__gr_put_str(&b, " ");
                fgl__gr_put_float(&b, FGL_AT(&d->x, i, j));
            }
            fgl__gr_put_str(&b, "\n");
        }
    }
    if ((rc = fgl__gr_flush_file(&b, dir, name, ".features", err)) != 0) goto done;
    if (d->split) {
        for (i = 0; i < n; i++) {
            fgl__gr_put_int(&b, d->split[i]);
            fgl__gr_put_str(&b, "\n");
        }
        if ((rc = fgl__gr_flush_file(&b, dir, name, ".split", err)) != 0) goto done;
    }
done:
    fgl_bytes_free(&b);
    return rc;
}

FGLDEF int fgl_save_tu(const fgl_graph_set *s, const char *dir, const char *name, fgl_error *err) {
    fgl_bytes b;
    int i, k, g, rc;
    fgl_bytes_init(&b);
    for (i = 0; i < s->n_nodes; i++)
        for (k = s->adj.indptr[i]; k < s->adj.indptr[i + 1]; k++) {
            fgl__gr_put_int(&b, i + 1);
            fgl__gr_put_str(&b, ", ");
            fgl__gr_put_int(&b, s->adj.indices[k] + 1);
            fgl__gr_put_str(&b, "\n");
        }
    if ((rc = fgl__gr_flush_file(&b, dir, name, "_A.txt", err)) != 0) goto done;
    for (g = 0; g < s->n_graphs; g++)
        for (i = s->node_ptr[g]; i < s->node_ptr[g + 1]; i++) {
            fgl__gr_put_int(&b, g + 1);
            fgl__gr_put_str(&b, "\n");
        }
    if ((rc = fgl__gr_flush_file(&b, dir, name, "_graph_indicator.txt", err)) != 0) goto done;
    for (g = 0; g < s->n_graphs; g++) {
        fgl__gr_put_int(&b, s->y ? s->y[g] : 0);
        fgl__gr_put_str(&b, "\n");
    }
    if ((rc = fgl__gr_flush_file(&b, dir, name, "_graph_labels.txt", err)) != 0) goto done;
    if (s->node_labels) {
        for (i = 0; i < s->n_nodes; i++) {
            fgl__gr_put_int(&b, s->node_labels[i]);
            fgl__gr_put_str(&b, "\n");
        }
        if ((rc = fgl__gr_flush_file(&b, dir, name, "_node_labels.txt", err)) != 0) goto done;
    }
    if (s->node_attr && s->n_node_attr > 0) {
        for (i = 0; i < s->n_nodes; i++) {
            for (k = 0; k < s->n_node_attr; k++) {
                if (k) fgl__gr_put_str(&b, ", ");
                fgl__gr_put_float(&b, s->node_attr[(size_t)i * (size_t)s->n_node_attr + (size_t)k]);
            }
            fgl__gr_put_str(&b, "\n");
        }
        if ((rc = fgl__gr_flush_file(&b, dir, name, "_node_attributes.txt", err)) != 0) goto done;
    }
done:
    fgl_bytes_free(&b);
    return rc;
}

/* --- LINQS loader ------------------------------------------------------------------ */

typedef struct fgl__gr_strref {
    const char *p;
    int len, idx;
} fgl__gr_strref;

static int fgl__gr_cmp_strref(const void *a, const void *b) {
    const fgl__gr_strref *x = (const fgl__gr_strref *)a, *y = (const fgl__gr_strref *)b;
    int n = x->len < y->len ? x->len : y->len, c = n ? memcmp(x->p, y->p, (size_t)n) : 0;
    if (c) return c;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static uint32_t fgl__gr_hash_bytes(const char *p, int len) {
    uint32_t h = 2166136261u;
    int i;
    for (i = 0; i < len; i++) {
        h ^= (unsigned char)p[i];
        h *= 16777619u;
    }
    return h;
}

/* Open-addressing table from string ids to node indices. */
typedef struct fgl__gr_idmap {
    int *slot;             /* node index or -1 */
    uint32_t mask;
    const fgl__gr_strref *ids;
} fgl__gr_idmap;

static int fgl__gr_idmap_find(const fgl__gr_idmap *m, const char *p, int len, uint32_t *where) {
    uint32_t h = fgl__gr_hash_bytes(p, len) & m->mask;
    for (;;) {
        int k = m->slot[h];
        if (k < 0) {
            if (where) *where = h;
            return -1;
        }
        if (m->ids[k].len == len && memcmp(m->ids[k].p, p, (size_t)len) == 0) return k;
        h = (h + 1) & m->mask;
    }
}

/* Tokens left on the current line (does not move the cursor). */
static int fgl__gr_count_words(const fgl__gr_txt *t) {
    const char *p = t->p;
    int n = 0;
    for (;;) {
        while (p < t->end && fgl__gr_is_blank(*p)) p++;
        if (p >= t->end || *p == '\n') return n;
        n++;
        while (p < t->end && !fgl__gr_is_blank(*p) && *p != '\n') p++;
    }
}

FGLDEF int fgl_load_linqs(const char *dir, const char *name, fgl_node_data *out, int *n_dropped,
                          fgl_error *err) {
    fgl__gr_txt t, tc;
    char *path = NULL;
    fgl__gr_strref *ids = NULL, *cls = NULL;
    fgl__gr_idmap map;
    fgl__gr_ivec col = {NULL, 0, 0};
    fgl__gr_fvec val = {NULL, 0, 0};
    int *ptr = NULL, *src = NULL, *dst = NULL, *lines = NULL;
    int rc, n = 0, F = -1, ntok = 0, i, m = 0, dropped = 0;
    size_t cap;
    memset(out, 0, sizeof *out);
    memset(&t, 0, sizeof t);
    memset(&tc, 0, sizeof tc);
    memset(&map, 0, sizeof map);
    if (n_dropped) *n_dropped = 0;
    path = fgl__gr_path(dir, name, ".content");
    if (!path) goto nomem;
    if ((rc = fgl__gr_txt_open(&tc, path, err)) != 0) goto fail;
    cap = fgl__gr_txt_lines(&tc);
    ids = FGL__GR_NEW(fgl__gr_strref, cap);
    cls = FGL__GR_NEW(fgl__gr_strref, cap);
    ptr = FGL__GR_NEW(int, cap + 1);
    lines = FGL__GR_NEW(int, cap);
    if (!ids || !cls || !ptr || !lines) goto nomem;
    ptr[0] = 0;
    while ((rc = fgl__gr_txt_more(&tc)) > 0) {
        int words = fgl__gr_count_words(&tc), j;
        if (F < 0) {
            if (words < 3) {
                rc = fgl__gr_txt_fail(&tc, FGL_ERR_SHAPE, "%d fields: expected an id, features and a class", words);
                goto fail;
            }
            ntok = words;
            F = words - 2;
        } else if (words != ntok) {
            rc = fgl__gr_txt_fail(&tc, FGL_ERR_SHAPE, "%d fields, the first line has %d", words, ntok);
            goto fail;
        }
        if ((rc = fgl__gr_txt_word(&tc, &ids[n].p, &ids[n].len, "paper id")) != 0) goto fail;
        ids[n].idx = n;
        lines[n] = tc.line;
        for (j = 0; j < F; j++) {
            float v;
            if ((rc = fgl__gr_txt_float(&tc, &v, "feature value")) != 0) goto fail;
            if (v != 0.0f && (fgl__gr_ivec_push(&col, j) || fgl__gr_fvec_push(&val, v))) goto nomem;
        }
        if ((rc = fgl__gr_txt_word(&tc, &cls[n].p, &cls[n].len, "class")) != 0) goto fail;
        cls[n].idx = n;
        if ((rc = fgl__gr_txt_eol(&tc)) != 0) goto fail;
        if (col.n > (size_t)INT_MAX) goto nomem;
        ptr[++n] = (int)col.n;
    }
    if (rc < 0) goto fail;
    if (n == 0) {
        rc = fgl__gr_txt_fail(&tc, FGL_ERR_EMPTY, "no nodes: the dataset is empty");
        goto fail;
    }
    /* id table; duplicates are an error */
    {
        uint32_t size = 16;
        while (size < (uint32_t)n * 2u) size *= 2;
        map.slot = FGL__GR_NEW(int, size);
        if (!map.slot) goto nomem;
        for (i = 0; i < (int)size; i++) map.slot[i] = -1;
        map.mask = size - 1;
        map.ids = ids;
        for (i = 0; i < n; i++) {
            uint32_t where = 0;
            int k = fgl__gr_idmap_find(&map, ids[i].p, ids[i].len, &where);
            if (k >= 0) {
                char tok[40];
                fgl__gr_tok(ids[i].p, tc.end, tok, sizeof tok);
                tc.line = lines[i];
                rc = fgl__gr_txt_fail(&tc, FGL_ERR_FORMAT, "id '%s' already used on line %d", tok, lines[k]);
                goto fail;
            }
            map.slot[where] = i;
        }
    }
    /* classes: ranks of the distinct strings in sorted order */
    out->y = FGL__GR_NEW(int, n);
    if (!out->y) goto nomem;
    qsort(cls, (size_t)n, sizeof *cls, fgl__gr_cmp_strref);
    for (i = 0; i < n; i++) {
        if (i > 0 && (cls[i].len != cls[i - 1].len || memcmp(cls[i].p, cls[i - 1].p, (size_t)cls[i].len)))
            out->n_classes++;
        out->y[cls[i].idx] = out->n_classes;
    }
    out->n_classes++;
    /* features: rows were read in order, so the CSR is built directly */
    if (fgl_csr_init(&out->x_sparse, n, F, (int)col.n, 1)) goto nomem;
    memcpy(out->x_sparse.indptr, ptr, sizeof(int) * ((size_t)n + 1));
    if (col.n) {
        memcpy(out->x_sparse.indices, col.a, sizeof(int) * col.n);
        memcpy(out->x_sparse.values, val.a, sizeof(float) * val.n);
    }
    out->n_nodes = n;
    out->n_feat = F;
    /* cites */
    FGL_FREE(path);
    path = fgl__gr_path(dir, name, ".cites");
    if (!path) goto nomem;
    if ((rc = fgl__gr_txt_open(&t, path, err)) != 0) goto fail;
    cap = fgl__gr_txt_lines(&t);
    src = FGL__GR_NEW(int, cap);
    dst = FGL__GR_NEW(int, cap);
    if (!src || !dst) goto nomem;
    while ((rc = fgl__gr_txt_more(&t)) > 0) {
        const char *a, *b;
        int la, lb, ia, ib;
        if ((rc = fgl__gr_txt_word(&t, &a, &la, "cited id")) != 0 ||
            (rc = fgl__gr_txt_word(&t, &b, &lb, "citing id")) != 0 || (rc = fgl__gr_txt_eol(&t)) != 0)
            goto fail;
        ia = fgl__gr_idmap_find(&map, a, la, NULL);
        ib = fgl__gr_idmap_find(&map, b, lb, NULL);
        if (ia < 0 || ib < 0) {
            dropped++;
            continue;
        }
        src[m] = ia;
        dst[m++] = ib;
    }
    if (rc < 0) goto fail;
    rc = fgl_graph_from_edges(n, src, dst, m, FGL_EDGES_SYMMETRIZE | FGL_EDGES_DROP_SELF_LOOPS, &out->adj, err);
    if (rc) goto fail;
    fgl__gr_name_copy(out->name, name);
    if (n_dropped) *n_dropped = dropped;
    fgl_error_clear(err);
    goto done;
nomem:
    rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", path ? path : "load_linqs");
fail:
    fgl_node_data_free(out);
done:
    fgl__gr_txt_close(&t);
    fgl__gr_txt_close(&tc);
    FGL_FREE(path);
    FGL_FREE(ids);
    FGL_FREE(cls);
    FGL_FREE(ptr);
    FGL_FREE(lines);
    FGL_FREE(src);
    FGL_FREE(dst);
    FGL_FREE(col.a);
    FGL_FREE(val.a);
    FGL_FREE(map.slot);
    return rc;
}

/* --- CSV loader ------------------------------------------------------------------- */

FGLDEF int fgl_load_csv(const char *edge_path, const char *feat_path, const char *label_path,
                        fgl_node_data *out, fgl_error *err) {
    fgl__gr_txt t;
    int rc, n = 0, i, w = 0, row = 0, mx = -1;
    memset(out, 0, sizeof *out);
    memset(&t, 0, sizeof t);
    if (!edge_path || !feat_path || !label_path)
        return fgl_error_set(err, FGL_ERR_ARG, "load_csv: a path is NULL");
    /* labels: one integer per node */
    if ((rc = fgl__gr_txt_open(&t, label_path, err)) != 0) goto fail;
    if ((rc = fgl__gr_read_int_lines(&t, &out->y, &n, "label")) != 0) goto fail;
    for (i = 0; i < n; i++) {
        if (out->y[i] < -1) {
            t.line = i + 1;
            rc = fgl__gr_txt_fail(&t, FGL_ERR_RANGE, "label %d (labels are 0-based, -1 = unknown)", out->y[i]);
            goto fail;
        }
        if (out->y[i] > mx) mx = out->y[i];
    }
    if (n == 0) {
        rc = fgl__gr_txt_fail(&t, FGL_ERR_EMPTY, "no labels: the dataset is empty");
        goto fail;
    }
    out->n_nodes = n;
    out->n_classes = mx + 1;
    fgl__gr_txt_close(&t);
    /* features: the first row sets the width */
    if ((rc = fgl__gr_txt_open(&t, feat_path, err)) != 0) goto fail;
    w = 0;
    if ((rc = fgl__gr_txt_more(&t)) > 0) {
        const char *save = t.p;
        while (!fgl__gr_txt_at_eol(&t)) {
            float v;
            if ((rc = fgl__gr_txt_float(&t, &v, "feature value")) != 0) goto fail;
            fgl__gr_txt_sep(&t);
            w++;
        }
        t.p = save;
    }
    if (rc < 0) goto fail;
    if (w == 0) {
        rc = fgl__gr_txt_fail(&t, FGL_ERR_EMPTY, "no features");
        goto fail;
    }
    if ((double)n * w * 2.0 > (double)(t.end - t.buf) + 1.0) {
        rc = fgl__gr_txt_fail(&t, FGL_ERR_SHAPE, "%d labels, but the file cannot hold %d rows of %d values", n, n, w);
        goto fail;
    }
    if (fgl_tensor_init(&out->x, n, w)) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", feat_path);
        goto fail;
    }
    while ((rc = fgl__gr_txt_more(&t)) > 0) {
        float *r = out->x.data + (size_t)row * (size_t)w;
        int j;
        if (row >= n) {
            rc = fgl__gr_txt_fail(&t, FGL_ERR_SHAPE, "more feature rows than the %d labels", n);
            goto fail;
        }
        for (j = 0; j < w; j++) {
            if (fgl__gr_txt_at_eol(&t)) {
                rc = fgl__gr_txt_fail(&t, FGL_ERR_SHAPE, "%d values, the first row has %d", j, w);
                goto fail;
            }
            if ((rc = fgl__gr_txt_float(&t, &r[j], "feature value")) != 0) goto fail;
            fgl__gr_txt_sep(&t);
        }
        if (!fgl__gr_txt_at_eol(&t)) {
            rc = fgl__gr_txt_fail(&t, FGL_ERR_SHAPE, "more values than the %d of the first row", w);
            goto fail;
        }
        if ((rc = fgl__gr_txt_eol(&t)) != 0) goto fail;
        row++;
    }
    if (rc < 0) goto fail;
    if (row != n) {
        rc = fgl__gr_txt_fail(&t, FGL_ERR_SHAPE, "%d feature rows for %d labels", row, n);
        goto fail;
    }
    out->n_feat = w;
    fgl__gr_txt_close(&t);
    /* edges */
    if ((rc = fgl__gr_txt_open(&t, edge_path, err)) != 0) goto fail;
    if ((rc = fgl__gr_read_edges(&t, n, &out->adj)) != 0) goto fail;
    fgl__gr_txt_close(&t);
    fgl_error_clear(err);
    return FGL_OK;
fail:
    fgl__gr_txt_close(&t);
    fgl_node_data_free(out);
    return rc;
}

#ifdef __cplusplus
}
#endif
#endif /* FGL_IMPLEMENTATION */

#include "dev/graph_algos.h"
