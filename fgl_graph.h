/* fgl_graph.h is generated from src/graph by tools/amalgamate: edit src/, then run make. */
/* fgl_graph.h - graphs, datasets, loaders, generators, properties,
 *               partitions and federated splits.
 *
 * Part of fgl (see README.md). Builds on fgl.h (its fgl_csr, fgl_rng and
 * fgl_error); no other dependency.
 *
 * USAGE
 *   #define FGL_IMPLEMENTATION in exactly one file before including.
 *
 * EXAMPLE: a TU dataset, one-hot node labels, a stratified split, a batch
 * (the body of a main(), compiled by make test).
 *       fgl_error e;
 *       fgl_graph_set s;
 *       char dir[1024], path[1100];   // the data directory: $FGL_DATA, else ./data, else ~/.local/share/fgl
 *       if (fgl_data_dir(dir, sizeof dir, &e)) { puts(e.msg); return 1; }
 *       snprintf(path, sizeof path, "%s/tu/MUTAG", dir);
 *       if (fgl_load_tu(path, "MUTAG", &s, &e)) { puts(e.msg); return 1; }
 *       fgl_graph_set_features(&s, FGL_FEAT_NODE_LABELS, 0, &e);  // s.x: n_nodes x 7
 *       fgl_split_graphs_stratified(&s, 0.8, 0.1, 123, &e);       // s.split
 *       int ids[3] = {0, 1, 2};
 *       fgl_batch b;
 *       fgl_batch_make(&s, ids, 3, &b, &e);   // b.adj, b.x, b.offsets, b.y
 *       fgl_batch_free(&b); fgl_graph_set_free(&s);
 *   Node classification, split over 10 clients by a node -> part array:
 *       fgl_node_data d, cl[10];
 *       snprintf(path, sizeof path, "%s/node/Cora", dir);
 *       fgl_load_node(path, "Cora", &d, &e);
 *       fgl_node_data_normalize_features(&d);
 *       fgl_split_subgraphs(&d, part, 10, cl, &e);
 *       for (k = 0; k < 10; k++) fgl_split_nodes_random(&cl[k], 0.2, 0.4, 1000 + k, &e);
 *       const fgl_csr *A = fgl_node_data_gcn(&cl[0], &e);   // cached
 *
 * GRAPHS: THE CONTRACT
 *   An undirected graph on n nodes is an fgl_csr adjacency A such that
 *     1. A is n x n and a valid CSR: indptr[0] = 0, non-decreasing,
 *        indptr[n] = nnz, every column in 0..n-1;
 *     2. the columns of each row strictly increase (sorted, no duplicate
 *        entries);
 *     3. there are no self loops (no entry (i, i));
 *     4. the pattern is symmetric: (i, j) is an entry exactly when (j, i) is.
 *   Every graph fgl builds satisfies it, with values NULL: the adj of every
 *   dataset, loader, generator, subgraph, client split and batch, and
 *   fgl_graph_from_edges with SYMMETRIZE | DROP_SELF_LOOPS. "Degree" is the
 *   number of entries of a row, E = nnz / 2 the number of undirected edges.
 *   Values, when present, are edge weights for fgl_gcn_norm, the row and
 *   random-walk normalisations, fgl_louvain and fgl_modularity (and kept by
 *   fgl_graph_subgraph); every other function reads only indptr / indices.
 *   fgl_graph_validate checks the contract, and is the one place that does:
 *   fgl_node_data_validate and fgl_graph_set_validate call it, and so do
 *   fgl_partition_metis(_ex), fgl_louvain and (through METIS)
 *   fgl_split_overlapping on entry, where a matrix that breaks it is
 *   FGL_ERR_ARG (these three accept self loops: METIS ignores them, Louvain
 *   counts them as a node's self weight). The other functions assume the
 *   contract, since checking it (O(nnz log degree)) would cost more than
 *   most of them do; on a matrix that breaks it their results mean nothing.
 *
 * DATA TYPES
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
 * ERRORS
 *   Functions that can fail return FGL_OK (0) or a negative FGL_ERR_* code.
 *   The loaders, writers, dataset builders, generators, partitions and
 *   every split take an fgl_error *err (may be NULL) and fill it with what
 *   went wrong and where. The numeric kernels on one matrix (components,
 *   the normalisations, DSE / RWSE, closeness, clustering, feature
 *   normalisation, label remapping) return a bare code: they fail only on
 *   a non-square matrix, a bad argument or memory.
 *
 * WHAT IS HERE
 *   - graphs: fgl_graph_from_edges (symmetrise, self loops, always dedup),
 *     fgl_graph_validate (the contract), degrees, induced subgraphs with id maps, connected components, the
 *     largest component, GCN normalisation D^-1/2 (A+I) D^-1/2, row
 *     normalisation D^-1 A and the random-walk matrix A D^-1.
 *   - datasets: init/free/validate, batches, feature builders (one-hot node
 *     labels, one-hot capped degree, node attributes, a constant, any
 *     concatenation), feature row normalisation, label remapping, induced
 *     node-data subgraphs, graph-set subsets (deep copies), seeded splits
 *     (random node split, stratified graph split), node->part arrays or node
 *     lists -> K client datasets; a benchmark dataset found by name and
 *     prepared as the protocols use it (fgl_dataset_load).
 *   - loaders: TU (fgl_load_tu), the node layout (fgl_load_node), LINQS
 *     .content/.cites (fgl_load_linqs), OGB-like CSV (fgl_load_csv); writers
 *     for the TU and node layouts.
 *   - generators (G(n,p), G(n,m), SBM, Barabasi-Albert, Watts-Strogatz,
 *     configuration model) and two synthetic federated benchmarks (planted
 *     communities with community-specific label mixes for node
 *     classification; graph classes that differ in structure);
 *   - graph properties (density, degree statistics, entropy, scale-free
 *     exponent, closeness, clustering) and FedStar's DSE / RWSE structure
 *     encodings; homophily (edge, node, adjusted, class-insensitive, label
 *     informativeness) of a graph and of each part of a partition;
 *   - partitions: a multilevel k-way min-edge-cut partitioner in the METIS
 *     style, Louvain communities, random balanced; federated splits:
 *     FED-PUB's overlapping split, Dirichlet label skew, IID; a graph written
 *     in METIS's input format (fgl_write_metis_graph) and a partition read
 *     back as gpmetis writes it (fgl_read_partition), to bring real METIS.
 *   - pFedGNN's numerics: distances to anchors completed into a point set
 *     (landmark MDS, anchored SMACOF: fgl_anchor_*), and the client-level
 *     coarsening of an affinity graph over points (fgl_coarsen_clients,
 *     fgl_collab_weights).
 *
 * LOADERS
 *   Files are read whole and parsed from memory, by fgl_file_read_bounded:
 *   regular files only (a directory, device or FIFO is refused before it is
 *   opened), of at most fgl_file_max() bytes each (1 GiB, FGL_MAX_FILE_BYTES:
 *   the environment variable of that name changes it, e.g.
 *   FGL_MAX_FILE_BYTES=4G), refused from their length before anything is
 *   read, and text: a NUL byte is an error found as the file is read, 1 MiB
 *   at a time (a 2 GB file of zeros fails in its first block). Numbers may
 *   be separated by blanks, tabs or one comma; CRLF line ends, trailing
 *   blanks and blank lines at the end of a file are accepted; a blank line
 *   in the middle is an error. Errors say "path:line: problem" and use:
 *     FGL_ERR_IO      a required file is missing or unreadable, or a file
 *                     (optional ones too) is not a regular file (no line);
 *     FGL_ERR_PARSE   a token that is not the number expected;
 *     FGL_ERR_RANGE   an id, label or code outside its range, a label or a
 *                     declared feature count over its cap (below), labels
 *                     that leave most classes empty (below), a file over
 *                     the bound (no line);
 *     FGL_ERR_NONFINITE  a value that is NaN or does not fit a float, or
 *                     summed duplicate triplets that do not;
 *     FGL_ERR_FORMAT  a file shorter than its own header/structure says
 *                     (truncated), a missing value, an empty middle line,
 *                     graph ids out of order, an edge joining two TU
 *                     graphs, a repeated LINQS id, a NUL byte (binary
 *                     data);
 *     FGL_ERR_SHAPE   counts that disagree between files or between rows;
 *     FGL_ERR_EMPTY   no nodes / no graphs / no features; features (or TU
 *                     node attributes) that are all 0; node-layout or CSV
 *                     labels that are all -1 (no node labelled; no line).
 *     FGL_ERR_ARG     FGL_MAX_FILE_BYTES set to something not a byte count.
 *   Choices: self loops in edge files are dropped, duplicate edges merged and
 *   every edge list symmetrised (graphs satisfy the contract). TU
 *   edge and graph attribute/label files are ignored. TU graph labels and
 *   node labels are remapped to 0..C-1 in sorted order of the raw values;
 *   node-layout and CSV labels are 0-based already (-1 = unknown; any other
 *   negative label is an error), n_classes = max + 1: labels that leave
 *   more of the classes 0..max without a node than with one (a stray 99
 *   among 0..6 would make 100 classes) are refused, naming the line of the
 *   label above the widest run of empty classes; a few empty classes load
 *   (a client's nodes saved alone may miss some; these files do not declare
 *   their class count). LINQS cites naming an id absent from .content are
 *   dropped and counted.
 *   Hostile files: no size a file announces is trusted for allocation until
 *   something else confirms it. Counts come from lines actually read (so
 *   from the file's length); the node layout's header is checked against
 *   its own file's length (n x f dense values of >= 2 bytes, nnz triplets
 *   of >= 6) and its node count against NAME.labels before anything of
 *   that size is allocated; TU attribute and CSV feature rows of w values
 *   must fit their file likewise. A declared feature count (only the node
 *   layout declares one; sparse columns need not appear, so the length
 *   cannot bound it) is at most FGL_MAX_FEATURES (2^24). Labels taken as
 *   they are (node layout, CSV) lie in -1..FGL_MAX_CLASSES-1 (2^20
 *   classes; not "at most the number of nodes": a client saved with
 *   fgl_save_node may have fewer nodes than the dataset's classes); TU and
 *   LINQS labels are remapped, so C <= graphs / nodes. Summed duplicate
 *   triplets must stay finite. On any error nothing stays allocated and
 *   `out` is zeroed (as for every out struct of this file).
 *
 * GENERATORS, PROPERTIES, PARTITIONS
 *   Graphs in and out follow the contract above. Every random function
 *   takes a uint64_t seed and draws from its own fgl_rng stream(s): the same
 *   seed gives the same output (the generators also use libm's log, so
 *   another libm could in rare cases round differently).
 *
 * EXAMPLE: FED-PUB's disjoint and overlapping splits of d (an fgl_node_data)
 * and a Dirichlet label-skew split of a graph set s.
 *       int *part = (int *)malloc(sizeof(int) * d.n_nodes);
 *       fgl_partition_metis(&d.adj, 10, seed, part, &err);     // 10 disjoint clients
 *       fgl_split_subgraphs(&d, part, 10, clients, &err);
 *       fgl_index_lists l;
 *       fgl_split_overlapping(&d.adj, 30, seed, &l, &err);     // 6 parts x 5 samples
 *       fgl_split_node_lists(&d, l.ptr, l.idx, l.n_lists, clients30, &err);
 *       fgl_index_lists_free(&l);
 *       fgl_split_dirichlet(s.y, s.n_graphs, s.n_classes, 20, 0.5, 10, seed, client_of, &err);
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

/* --- src/graph/graph.h --- */
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

/* --- src/graph/io.h --- */
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

/* The data directory (the real datasets, as node/NAME and tu/NAME), by one
 * rule for fgl's loaders (fgl_dataset_load with dir NULL), fglrun, the
 * examples and the tests:
 *   1. $FGL_DATA, when it is set and not empty (used as given);
 *   2. else data/ in the current directory, if it exists (where `make data`
 *      writes: the repository's root, when a program runs from there);
 *   3. else the per-user directory $XDG_DATA_HOME/fgl (unset:
 *      $HOME/.local/share/fgl), if it exists.
 * Writes the directory into buf (cap bytes) and returns FGL_OK. When
 * FGL_DATA is unset and neither of the others exists: FGL_ERR_IO, buf
 * holds "data", and err names every directory tried. */
FGLDEF int fgl_data_dir(char *buf, size_t cap, fgl_error *err);

/* --- src/graph/npz.h --- */
/* ------------------------------------------------------------------------ */
/* numpy files: .npy arrays, .npz archives (zip + DEFLATE), and the         */
/* heterophilous-graph datasets of Platonov et al. stored as .npz           */
/* ------------------------------------------------------------------------ */

/* A numpy array (.npy, format versions 1.0 to 3.0) viewing bytes owned
 * elsewhere: bool, signed or unsigned integers of 1, 2, 4 or 8 bytes,
 * float32 or float64, of 0, 1 or 2 dimensions (shape[d] = 1 for d >= ndim),
 * C order, or Fortran order (column-major) when fortran is 1. */
typedef struct fgl_npy {
    char kind;      /* 'b' bool, 'i' signed, 'u' unsigned, 'f' float */
    int size;       /* bytes per element: 1, 2, 4 or 8 */
    int big;        /* big-endian elements */
    int fortran;    /* column-major */
    int ndim;       /* 0, 1 or 2 */
    long long shape[2];
    long long count;
    const unsigned char *data;
} fgl_npy;

/* The array that buf[0..len-1] (a whole .npy file) holds into out (viewing
 * buf). what names the file in messages ("dir/x.npy", "x.npz: edges.npy").
 * A header without descr/fortran_order/shape, an object or string dtype,
 * more than 2 dimensions, or a data length other than shape x itemsize is
 * refused. */
FGLDEF int fgl_npy_parse(const unsigned char *buf, size_t len, const char *what, fgl_npy *out, fgl_error *err);
/* a's kind, size and byte order from a numpy dtype string ('<f4', '|b1',
 * '>i8', ...; len bytes, not NUL-terminated). */
FGLDEF int fgl_npy_dtype(fgl_npy *a, const char *descr, size_t len, const char *what, fgl_error *err);
/* Element k (in storage order) as a double. */
FGLDEF double fgl_npy_f64(const fgl_npy *a, long long k);
/* Element k as an integer; 0 and *bad = 1 for a float that is not an
 * integer, or an unsigned value over LLONG_MAX. */
FGLDEF long long fgl_npy_i64(const fgl_npy *a, long long k, int *bad);
/* The storage index of element (i, j) of a 2-D array. */
FGLDEF long long fgl_npy_at(const fgl_npy *a, long long i, long long j);

/* Raw DEFLATE (RFC 1951: stored, fixed and dynamic Huffman blocks) of
 * src[0..n-1] into dst, which must receive exactly cap bytes: a stream that
 * is truncated, malformed (a bad block type, an over-subscribed or
 * incomplete code, a distance before the start) or that would write more or
 * fewer than cap bytes is FGL_ERR_FORMAT, "what: ..." saying which. */
FGLDEF int fgl_inflate(const unsigned char *src, size_t n, unsigned char *dst, size_t cap, const char *what,
                       fgl_error *err);
/* CRC-32 (ISO-HDLC, as zip and gzip use) of p[0..n-1], continuing from crc
 * (0 to start). */
FGLDEF uint32_t fgl_crc32(uint32_t crc, const void *p, size_t n);

/* A zip archive read whole (fgl_file_read's bound: regular files only, at
 * most fgl_file_max() bytes), its members from the central directory. */
typedef struct fgl_zip_member {
    const char *name;    /* into the archive's bytes, not NUL-terminated */
    int name_len;
    int method;          /* 0 stored, 8 deflated (the only ones accepted) */
    uint32_t crc;
    size_t csize, usize; /* compressed and uncompressed sizes */
    size_t offset;       /* of the member's data in the archive */
} fgl_zip_member;
typedef struct fgl_zip {
    char path[1024];
    unsigned char *file;
    size_t len;
    int n;
    fgl_zip_member *m;
} fgl_zip;

/* Open path: the end of central directory record, then every member's
 * entry and local header, checked against the file's length. Refused
 * (FGL_ERR_UNSUPPORTED, naming the file and the member): zip64, archives
 * split over disks, encrypted members, methods other than stored and
 * deflated; malformed records are FGL_ERR_FORMAT. */
FGLDEF int fgl_zip_open(const char *path, fgl_zip *z, fgl_error *err);
/* The index of member `name`, or -1. */
FGLDEF int fgl_zip_find(const fgl_zip *z, const char *name);
/* Member i uncompressed into a new buffer (*data, *len; FGL_FREE it),
 * its CRC-32 checked. Its size is checked before anything is allocated:
 * at most fgl_file_max(), and no more than DEFLATE can expand its
 * compressed bytes to (1032 to 1). */
FGLDEF int fgl_zip_read(const fgl_zip *z, int i, unsigned char **data, size_t *len, fgl_error *err);
FGLDEF void fgl_zip_close(fgl_zip *z);

/* A node-classification dataset in the .npz layout of Platonov et al.
 * (ICLR 2023, github.com/yandex-research/heterophilous-graphs:
 * chameleon_filtered, squirrel_filtered, actor, tolokers, roman_empire,
 * amazon_ratings, minesweeper, questions, cornell, texas, wisconsin):
 *   node_features  N x F numbers (float32 there): dense features, finite;
 *   node_labels    N integers: 0-based classes (-1: unknown);
 *   edges          E x 2 integers in 0..N-1, each undirected edge once
 *                  (both directions are added; self loops dropped and
 *                  duplicates merged, as every fgl loader does);
 *   train_masks, val_masks, test_masks  S x N (or N) booleans: S fixed
 *                  splits (10 there), a node in at most one of the three
 *                  of a split (none: FGL_SPLIT_NONE), each split with a
 *                  training and a test node; optional, all three or none.
 * out gets the graph, features, labels and the name (the file's name
 * without .npz); out->split stays NULL. splits (may be NULL): a new array
 * of *n_splits x N FGL_SPLIT_* codes, split s at splits + s N (NULL and 0
 * for a file without masks; FGL_FREE it). Every problem is named with the
 * file and the member ("x.npz: edges.npy: edge 17 joins node 890, outside
 * 0..889"); on error nothing is held. */
FGLDEF int fgl_load_npz(const char *path, fgl_node_data *out, unsigned char **splits, int *n_splits,
                        fgl_error *err);

/* --- src/graph/generators.h --- */
/* ------------------------------------------------------------------------ */
/* Random graph generators                                                  */
/* ------------------------------------------------------------------------ */
/* All return a symmetric fgl_csr (values NULL, no self loops, no duplicate
 * edges) that the caller frees with fgl_csr_free; bad arguments give
 * FGL_ERR_ARG (and more than INT_MAX/2 edges FGL_ERR_RANGE). */

/* Erdos-Renyi G(n, p): every pair independently with probability p. Runs in
 * O(n + E) by geometric skipping over the pairs (Batagelj & Brandes 2005). */
FGLDEF int fgl_gen_gnp(int n, double p, uint64_t seed, fgl_csr *out, fgl_error *err);
/* Erdos-Renyi G(n, m): exactly m distinct edges, uniformly over all sets of
 * m pairs (Floyd's sampling of pair indices). 0 <= m <= n(n-1)/2. */
FGLDEF int fgl_gen_gnm(int n, int m, uint64_t seed, fgl_csr *out, fgl_error *err);
/* Stochastic block model: block b holds sizes[b] consecutive nodes (block 0
 * first); a pair in blocks a, b is an edge with probability
 * probs[a * n_blocks + b] (a symmetric matrix of values in [0, 1]).
 * Geometric skipping per block pair: O(n + n_blocks^2 + E). block_of, if not
 * NULL, receives each node's block (n entries). */
FGLDEF int fgl_gen_sbm(int n_blocks, const int *sizes, const double *probs, uint64_t seed,
                       fgl_csr *out, int *block_of, fgl_error *err);
/* Barabasi-Albert preferential attachment: nodes 0..m-1 start unconnected,
 * node m links to all of them, and every later node links to m distinct
 * earlier nodes chosen with probability proportional to their degree.
 * Exactly m (n - m) edges; 1 <= m < n. */
FGLDEF int fgl_gen_ba(int n, int m, uint64_t seed, fgl_csr *out, fgl_error *err);
/* Watts-Strogatz: a ring where each node links to its k/2 nearest neighbours
 * on each side (k even, 0 <= k < n), then each lattice edge (u, u + j) is
 * rewired with probability beta to (u, w), w uniform among the nodes not
 * already linked to u (kept when u is linked to all). Exactly n k / 2 edges. */
FGLDEF int fgl_gen_ws(int n, int k, double beta, uint64_t seed, fgl_csr *out, fgl_error *err);
/* Configuration model: degree[i] stubs per node (even sum), paired uniformly
 * at random. Self loops and multi-edges are then removed (each multi-edge
 * kept once), so a node's degree can end below degree[i]; on sparse
 * sequences the loss is a handful of edges. */
FGLDEF int fgl_gen_config(int n, const int *degree, uint64_t seed, fgl_csr *out, fgl_error *err);

/* --- src/graph/synthetic.h --- */
/* ------------------------------------------------------------------------ */
/* Synthetic federated benchmarks                                           */
/* ------------------------------------------------------------------------ */

/* One graph for node classification with planted communities: each node
 * belongs to one of n_communities (near-equal sizes, node ids shuffled) and
 * has a class drawn from its community's class distribution pi_c ~
 * Dirichlet(label_alpha), so per-community clients are non-IID. Edges: E =
 * round(n avg_degree / 2) draws; one end u uniform, the other inside u's
 * community with probability 1 - mixing (else in another community), and of
 * u's class with probability homophily (else uniform in that pool); repeats
 * and self loops dropped, so the mean degree ends slightly below avg_degree.
 * Features (dense): x = mu_y + nu_c + feat_noise * N(0, I) with class means
 * mu_y ~ N(0, feat_signal^2 / (2 n_feat) I) (two class means are about
 * feat_signal apart) and community offsets nu_c ~ N(0, feat_shift^2 / n_feat
 * I) (a covariate shift between communities). Features alone classify
 * moderately; averaging over neighbours (homophily) does much better. */
typedef struct fgl_synth_node_config {
    int n_nodes;          /* 3000 */
    int n_communities;    /* 10 */
    int n_classes;        /* 7 */
    int n_feat;           /* 32 */
    double avg_degree;    /* 8 */
    double mixing;        /* 0.1: share of edge draws leaving the community */
    double homophily;     /* 0.7: share of edge draws forced to the same class */
    double label_alpha;   /* 0.5: Dirichlet concentration of community class mixes */
    double feat_signal;   /* 2.0: typical distance between two class means */
    double feat_shift;    /* 0.5: typical norm of a community's feature offset */
    double feat_noise;    /* 1.0: standard deviation of the per-feature noise */
} fgl_synth_node_config;

FGLDEF fgl_synth_node_config fgl_synth_node_default(void);
/* Fills out (name "synth-node", adj, dense x, y, n_classes, n_feat; split
 * NULL, x_sparse and adj_gcn empty); cfg NULL means the defaults.
 * community, if not NULL, receives each node's community (n_nodes ints).
 * out is released with fgl_node_data_free. */
FGLDEF int fgl_synth_node(const fgl_synth_node_config *cfg, uint64_t seed, fgl_node_data *out,
                          int *community, fgl_error *err);

/* Many small graphs for graph classification whose classes differ in
 * structure at the same size distribution (nodes uniform in min..max) and
 * the same number of edges (round(nodes * avg_degree / 2)):
 *   class 0  random: G(n, m);
 *   class 1  hubs: preferential attachment (BA-like growth, spread so the
 *            edge count matches);
 *   class 2  triangles: the union of random triangles (high clustering);
 *   class 3  ring: a Hamiltonian cycle plus chords that pair up the nodes
 *            of random permutations (long cycles, near-regular degrees).
 * Node labels (n_node_labels values) are min(max(degree, 1), L) - 1 for a
 * node, replaced by a uniform value with probability node_label_noise, so
 * one-hot node labels are informative, like atom types in molecules. Graph
 * labels are balanced, then a label_noise share is redrawn uniformly. */
typedef struct fgl_synth_graphs_config {
    int n_graphs;            /* 600 */
    int n_classes;           /* 3 (1..4) */
    int min_nodes, max_nodes;/* 12, 36 (3 <= min <= max <= 10000) */
    double avg_degree;       /* 3.0 */
    int n_node_labels;       /* 4 */
    double node_label_noise; /* 0.2 */
    double label_noise;      /* 0.05 */
} fgl_synth_graphs_config;

FGLDEF fgl_synth_graphs_config fgl_synth_graphs_default(void);
/* Fills out (name "synth-graphs", n_graphs, n_nodes, n_classes, node_ptr,
 * block-diagonal adj, y, node_labels, n_node_label_values; split, node_attr,
 * x and pe NULL/0); cfg NULL means the defaults. Released with
 * fgl_graph_set_free. */
FGLDEF int fgl_synth_graphs(const fgl_synth_graphs_config *cfg, uint64_t seed, fgl_graph_set *out,
                            fgl_error *err);

/* --- src/graph/properties.h --- */
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

/* --- src/graph/homophily.h --- */
/* ------------------------------------------------------------------------ */
/* Homophily: how a graph's edges relate to its node labels                 */
/* ------------------------------------------------------------------------ */
/* The measures a researcher reports beside a node-classification result, for
 * a whole graph and for each client's subgraph (the edges inside a client).
 *
 * What is counted. adj is a graph as fgl_csr holds one: each undirected
 * edge {u, v} stored twice, as u -> v and v -> u. A node whose label is
 * negative (-1: unknown) is left out, and so is every edge touching it, as if
 * it were not in the graph; self loops are left out too. E below is the
 * number of undirected edges left, 2E the directed entries (the "edge
 * endpoints"), d_v the degree of v among them, n the labelled nodes, n_k
 * those of class k, D_k = sum of d_v over class k (so sum_k D_k = 2E), and
 * C the number of classes that label at least one of the n nodes.
 *
 *   edge homophily (Zhu et al., "Beyond homophily in graph neural networks",
 *     NeurIPS 2020): the share of the E edges whose two ends share a label,
 *       h_edge = #{edges {u,v}: y_u = y_v} / E.
 *   node homophily (Pei et al., "Geom-GCN", ICLR 2020): for each labelled
 *     node with d_v >= 1, the share of its neighbours with its label; their
 *     mean over those nodes (nodes without a labelled neighbour are left out).
 *   adjusted homophily (Platonov et al., "Characterizing graph datasets for
 *     node classification: homophily-heterophily dichotomy and beyond",
 *     NeurIPS 2023, eq. for h_adj): edge homophily corrected for the share of
 *     same-label edges expected when edges ignore labels but keep the
 *     degrees, with p_k = D_k / 2E the class of a random edge endpoint:
 *       h_adj = (h_edge - sum_k p_k^2) / (1 - sum_k p_k^2).
 *     0 when edges are independent of labels, 1 when every edge joins one
 *     class, negative below chance (Cohen's kappa of the two ends' labels).
 *   class-insensitive homophily (Lim et al., "Large scale learning on
 *     non-homophilous graphs", NeurIPS 2021, their \hat h): per class, the
 *     share h_k of the edge endpoints at class-k nodes whose other end is of
 *     class k, minus the class's share of the nodes, clipped at 0, summed and
 *     scaled by C - 1:
 *       h_ci = 1/(C - 1) * sum_k max(0, h_k - n_k / n),
 *     h_k = (same-label endpoints at class k) / D_k, a class with D_k = 0
 *     adding nothing. C counts the classes present in the (sub)graph, not the
 *     dataset's: a client missing a class is scaled by its own C - 1.
 *   label informativeness (Platonov et al. 2023, the edge version LI_edge):
 *     pick one of the 2E directed edges (xi, eta) uniformly; LI is the share
 *     of the uncertainty of y_xi that knowing y_eta removes,
 *       LI = I(y_xi, y_eta) / H(y_xi),
 *     with p(a, b) = #{directed edges u -> v: y_u = a, y_v = b} / 2E and the
 *     marginal p_k above. As both ends have the marginal p_k,
 *       LI = 2 - H(y_xi, y_eta) / H(y_xi)
 *          = 2 - [sum_{a,b} p(a,b) ln p(a,b)] / [sum_k p_k ln p_k].
 *     1 when a neighbour's label fixes the node's (homophilous or not: a
 *     bipartite two-class graph also gives 1), 0 when it tells nothing.
 *
 * Undefined values are NaN (never a number that looks measured):
 *   no edge left (E = 0): every measure; node homophily too (no node has a
 *   labelled neighbour); one class among the edge endpoints: h_adj and LI
 *   (0/0: one class carries no information; h_edge = h_node = 1 there);
 *   C < 2: h_ci. The counts (edges, nodes, classes) say why.
 *
 * Cost: O(N + 2E + C) time and O(N + C) memory, C the largest label + 1;
 * fgl_partition_homophily does every part in one pass.
 *
 * Example (a triangle of class 0 with a pendant node of class 1):
 *     int src[] = {0, 1, 0, 2}, dst[] = {1, 2, 2, 3}, y[] = {0, 0, 0, 1};
 *     fgl_csr a;
 *     fgl_homophily h;
 *     fgl_graph_from_edges(4, src, dst, 4, FGL_EDGES_SYMMETRIZE, &a, NULL);
 *     fgl_graph_homophily(&a, y, &h, NULL);
 *     // h.edge = 3/4, h.node = (1 + 1 + 2/3 + 0) / 4 = 2/3,
 *     // p = (7/8, 1/8): h.adjusted = (3/4 - 50/64) / (14/64) = -1/7;
 *     // h_0 = 6/7, h_1 = 0: h.class_insensitive = (6/7 - 3/4) / 1 = 3/28
 *     fgl_csr_free(&a);
 */
typedef struct fgl_homophily {
    double edge;                  /* h_edge (Zhu et al. 2020) */
    double node;                  /* h_node (Pei et al. 2020) */
    double adjusted;              /* h_adj (Platonov et al. 2023) */
    double class_insensitive;     /* \hat h (Lim et al. 2021) */
    double label_informativeness; /* LI_edge (Platonov et al. 2023) */
    long edges;                   /* E: undirected edges counted (2E / 2 if adj is not symmetric) */
    int nodes;                    /* n: labelled nodes */
    int classes;                  /* C: distinct labels among them */
} fgl_homophily;

/* Every measure of the graph adj (square) with labels y (adj->rows ints,
 * negative: unknown) into *out. FGL_ERR_ARG without a graph, labels or out;
 * FGL_ERR_NOMEM. */
FGLDEF int fgl_graph_homophily(const fgl_csr *adj, const int *labels, fgl_homophily *out, fgl_error *err);
/* The measures of each part of a partition, out[p] for p in 0..n_parts-1:
 * part p's nodes are those with part[v] == p, its edges those with both ends
 * in it (the edges inside a client; cut edges are left out). A node whose
 * part lies outside 0..n_parts-1 belongs to no part. The same numbers as
 * fgl_graph_homophily on each part's induced subgraph. */
FGLDEF int fgl_partition_homophily(const fgl_csr *adj, const int *labels, const int *part, int n_parts,
                                   fgl_homophily *out, fgl_error *err);
/* The measures one at a time (NaN where undefined, as above). The first two
 * allocate nothing; the others return NaN when memory runs out too. */
FGLDEF double fgl_edge_homophily(const fgl_csr *adj, const int *labels);
FGLDEF double fgl_node_homophily(const fgl_csr *adj, const int *labels);
FGLDEF double fgl_adjusted_homophily(const fgl_csr *adj, const int *labels);
FGLDEF double fgl_class_insensitive_homophily(const fgl_csr *adj, const int *labels);
FGLDEF double fgl_label_informativeness(const fgl_csr *adj, const int *labels);

/* --- src/graph/encodings.h --- */
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

/* --- src/graph/dataset.h --- */
/* ------------------------------------------------------------------------ */
/* Datasets                                                                 */
/* ------------------------------------------------------------------------ */
/* The data structs' lifetime, checks, batches, features, subgraphs and
 * splits, and, last, a named dataset read from disk and prepared
 * (fgl_dataset_load; the loaders it calls: io.h, npz.h). */

FGLDEF void fgl_node_data_init(fgl_node_data *d);   /* zero it */
FGLDEF void fgl_graph_set_init(fgl_graph_set *s);   /* zero it */
FGLDEF void fgl_batch_init(fgl_batch *b);           /* zero it */
/* Release everything and zero the struct (safe on zeroed structs, idempotent). */
FGLDEF void fgl_node_data_free(fgl_node_data *d);
/* Release everything and zero the struct (safe on zeroed structs, idempotent). */
FGLDEF void fgl_graph_set_free(fgl_graph_set *s);
/* Release everything and zero the struct (safe on zeroed structs, idempotent). */
FGLDEF void fgl_batch_free(fgl_batch *b);
/* Check sizes, the graph contract (fgl_graph_validate), label/split ranges. */
FGLDEF int fgl_node_data_validate(const fgl_node_data *d, fgl_error *err);
/* Same for a set, plus: node_ptr monotone, no edge between two graphs. */
FGLDEF int fgl_graph_set_validate(const fgl_graph_set *s, fgl_error *err);
/* d->adj_gcn, built on first use (d->adj must not change afterwards);
 * NULL on error. */
FGLDEF const fgl_csr *fgl_node_data_gcn(fgl_node_data *d, fgl_error *err);

/* Block-diagonal batch of graphs ids[0..n-1] of s (repeats allowed): adj,
 * x (NULL if s->x is), pe (NULL if s->pe is), offsets, graph_of_node, y,
 * ids. b is overwritten (free it before reuse). The GCN matrix is not
 * built here (most graph models never read it): fgl_batch_gcn. A large
 * batch is copied in parallel when called outside a parallel region (the
 * same result on any number of threads). */
FGLDEF int fgl_batch_make(const fgl_graph_set *s, const int *ids, int n, fgl_batch *b,
                          fgl_error *err);
/* b->adj_gcn, built on first use as fgl_node_data_gcn; NULL on error. */
FGLDEF const fgl_csr *fgl_batch_gcn(fgl_batch *b, fgl_error *err);

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
 * the others get FGL_SPLIT_NONE). Same seed, same split. Fractions outside
 * [0, 1] or summing over 1 are FGL_ERR_ARG; on error d is unchanged. */
FGLDEF int fgl_split_nodes_random(fgl_node_data *d, double train, double val, uint64_t seed,
                                  fgl_error *err);
/* Stratified graph split of s: inside each class, round(train n_c) train,
 * round(val n_c) validation, the rest test; a class with >= 3 graphs gets at
 * least one graph in each part whose fraction is > 0. Bad fractions or a
 * set without labels are FGL_ERR_ARG; on error s is unchanged. */
FGLDEF int fgl_split_graphs_stratified(fgl_graph_set *s, double train, double val, uint64_t seed,
                                       fgl_error *err);
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
/* The split representation that keeps the cross-client edges (FedGCN's): clients[0..k-1], as
 * fgl_split_subgraphs(d, part, k) made them (their own train/val/test splits drawn or not), each get
 * their halo: the nodes of other clients within `hops` (1..8) hops of their own, appended after their
 * own rows in increasing id order with the edges of d among all of them, features zero, label -1 and
 * split NONE; gid (every row's id in d), n_own and halo_hops are set, features become dense, and adj_gcn
 * is D^-1/2 (A + I) D^-1/2 with d's degrees, so that a GCN layer at an own row sums its whole
 * neighbourhood as on d. The own rows keep their order, features, labels and split. hops 0 changes
 * nothing. On error a client may hold its halo or not; fgl_node_data_free frees either. */
FGLDEF int fgl_split_halo(const fgl_node_data *d, const int *part, int k, int hops, fgl_node_data *clients,
                          fgl_error *err);

/* Named datasets read from disk (fgl_dataset_load: a benchmark's files,
 * found by name and prepared as the protocols use them).
 *
 * Tasks: node classification, graph classification, link prediction (a
 * node model, the encoder, scored on node pairs: src/gnn/link.h); what
 * fgl_dataset_load asks for and fgl_gnn.h's fgl_model_spec.task names. */
enum { FGL_TASK_NODE, FGL_TASK_GRAPH, FGL_TASK_LINK };

/* How the data that a dataset file holds becomes model input. */
typedef struct fgl_dataset_config {
    int lcc;             /* node data: keep the largest connected component (FED-PUB's code); default 0 */
    int raw_features;    /* node data: 1 keeps 0/1 features as stored; 0 (default) row-normalises them
                            (count features, as CS's, are binarised first either way) */
    int k_dse, k_rwse;   /* graph data: FedStar's structure-encoding widths (16 + 16) */
} fgl_dataset_config;
/* The name before the naming rule (README, "Names"), kept so that existing programs compile: */
#define fgl_dataset_options fgl_dataset_config

FGLDEF fgl_dataset_config fgl_dataset_default(void);

#define FGL_DATASET_MAX_SETS 32

/* A loaded, prepared dataset: one graph (node task) or graph sets (graph
 * task; several sets give one client each). */
typedef struct fgl_dataset {
    int task;
    fgl_node_data node;
    fgl_graph_set sets[FGL_DATASET_MAX_SETS];
    int n_sets;
    char label[256];     /* "Cora", "MUTAG,BZR,...", "synthetic" */
    char features[64];   /* how the node features were prepared */
    /* node task: the fixed splits the data carries (the heterophilous .npz files: 10), split s's FGL_SPLIT_* code of
     * node i at fixed_splits[s * node.n_nodes + i] (after --lcc, of the component's nodes); NULL and 0 for none.
     * fgl_split_config.use_fixed_split picks one. */
    unsigned char *fixed_splits;
    int n_fixed_splits;
} fgl_dataset;

/* names: a dataset ("Cora", "PROTEINS"), a comma list of graph datasets (one
 * per client), or "synthetic" (fgl_synth_node for node tasks, fgl_synth_graphs
 * for graph tasks, drawn from seed; "synthetic:N": a node graph of N nodes,
 * 10 to 10^7, with one community per 300 nodes, for runs at scale). A name is looked up as dir/node/NAME
 * (the node layout), dir/tu/NAME (TU format) and dir/heterophilous/NAME.npz
 * (fgl_load_npz: Platonov et al.'s chameleon_filtered, actor, tolokers, ...,
 * with their ten fixed splits in ds->fixed_splits; a name ending in .npz is
 * that file); dir NULL or "": the data
 * directory (fgl_data_dir: $FGL_DATA, else ./data, else the per-user
 * directory), and a name not found says every directory tried; a name with a '/' is the
 * dataset's own directory, whatever dir (".../Cora" holding Cora.edges,
 * Cora.features, ... or ".../MUTAG" holding MUTAG_A.txt, ...; dir ignored).
 * A name not found whose case differs from a dataset that is there (cora
 * for Cora) gets the right name suggested in the error. task: FGL_TASK_NODE,
 * FGL_TASK_GRAPH, or -1 (whatever the data is). opt NULL: the defaults.
 * Node features: binarised if they are counts (non-negative integers, some
 * over 1), then row-normalised (unless raw_features; features with negative
 * values, as the heterophilous sets' embeddings, are kept as stored); graph sets: one-hot node labels (one-hot degree when the
 * set has none, as IMDB) and FedStar's structure encodings. */
FGLDEF int fgl_dataset_load(fgl_dataset *ds, const char *dir, const char *names, int task,
                            const fgl_dataset_config *opt, uint64_t seed, fgl_error *err);
FGLDEF void fgl_dataset_free(fgl_dataset *ds);

/* --- src/graph/partition.h --- */
/* ------------------------------------------------------------------------ */
/* Partitions                                                               */
/* ------------------------------------------------------------------------ */

/* Options of the multilevel k-way partitioner. */
typedef struct fgl_partition_config {
    double imbalance;   /* 0.05: every part holds at most ceil((1 + imbalance) n / k) nodes */
    int coarsen_to;     /* 0: coarsen until max(30 k, n / (20 log2 k)) vertices remain */
    int n_init;         /* 8: grown bisections tried at the bottom of each initial bisection */
    int refine_passes;  /* 10: greedy k-way refinement passes per level (at most) */
    int n_cuts;         /* 1: independent multilevel runs, best cut kept */
} fgl_partition_config;
/* The name before the naming rule (README, "Names"), kept so that existing programs compile: */
#define fgl_partition_options fgl_partition_config

FGLDEF fgl_partition_config fgl_partition_default(void);
/* Min-edge-cut k-way partition in the METIS style of a graph (the contract
 * is checked; self loops are allowed and ignored).
 *   1. Coarsening by heavy-edge matching (seeded random visit order, ties
 *      to a random neighbour; when matching stalls, leftover vertices that
 *      share their heaviest neighbour, and isolated vertices, are paired),
 *      summing vertex and edge weights, down to coarsen_to vertices.
 *   2. Initial partition of the coarsest graph by recursive bisection; each
 *      bisection is itself multilevel (coarsened to ~40 vertices, best of
 *      n_init greedy-graph-growing + Fiduccia-Mattheyses tries, FM at every
 *      level back up). The best of up to 4 such partitions (1-2 when the
 *      coarsest graph has more than 0.5M / 2M adjacency entries) is kept.
 *   3. Uncoarsening: at every level, forced balancing moves (cheapest first)
 *      and greedy k-way boundary refinement (random order; moves that lower
 *      the cut, or keep it and improve balance, into parts with room).
 * Disconnected graphs and isolated vertices are fine. part (n ints)
 * receives parts 0..k-1, each of at most ceil(1.05 n / k) nodes (with the
 * default imbalance), none empty; 1 <= k <= n. Edge weights (values) are
 * ignored: the cut counts edges. Same seed, same partition. Costs
 * O(E) per level in time and memory (E = adjacency entries of the level). */
FGLDEF int fgl_partition_metis(const fgl_csr *adj, int k, uint64_t seed, int *part, fgl_error *err);
FGLDEF int fgl_partition_metis_ex(const fgl_csr *adj, int k, uint64_t seed,
                                  const fgl_partition_config *opt, int *part, fgl_error *err);
/* Number of undirected edges whose ends lie in different parts. */
FGLDEF long fgl_edge_cut(const fgl_csr *adj, const int *part);
/* Uniformly random balanced partition: part sizes differ by at most one. */
FGLDEF int fgl_partition_random(int n, int k, uint64_t seed, int *part, fgl_error *err);
/* Louvain community detection (Blondel et al. 2008): local moving of nodes
 * in a seeded random order to the neighbouring community of largest
 * modularity gain until a pass gains less than 1e-7, then aggregation of
 * communities into nodes, repeated until nothing merges. comm (n ints)
 * receives communities numbered 0..n_comm-1; n_comm may be NULL. Uses the
 * values as weights when present (they must be >= 0). The graph contract is
 * checked, self loops allowed (a node's self weight). */
FGLDEF int fgl_louvain(const fgl_csr *adj, uint64_t seed, int *comm, int *n_comm, fgl_error *err);
/* Louvain at resolution gamma > 0: the modularity whose null-model term is
 * scaled by gamma, sum_c [ in_c / 2m - gamma (tot_c / 2m)^2 ] (gamma 1:
 * fgl_louvain, bit for bit; larger gamma, more and smaller communities). */
FGLDEF int fgl_louvain_ex(const fgl_csr *adj, uint64_t seed, double gamma, int *comm, int *n_comm, fgl_error *err);
/* Newman modularity Q = sum_c [ in_c / 2m - (tot_c / 2m)^2 ] of the
 * assignment comm (ids >= 0), with weights if values is present. 0 for a
 * graph without edges; NaN if an id is negative or memory runs out. */
FGLDEF double fgl_modularity(const fgl_csr *adj, const int *comm);

/* --- src/graph/partfile.h --- */
/* ------------------------------------------------------------------------ */
/* Partition files: METIS's graph input and its part-id output              */
/* ------------------------------------------------------------------------ */

/* Write the graph adj in the METIS graph format (what gpmetis reads): a
 * header line "n m" (m the undirected edges), then line i (1-based) lists
 * the neighbours of node i - 1 as 1-based ids. Self loops are left out (METIS
 * refuses them); adj must be symmetric (the graph contract of node data).
 * Node i of the file is row i of adj: write the graph that will be
 * partitioned (after taking the largest component, if the protocol does),
 * so that the part file gpmetis makes lines up with it. */
FGLDEF int fgl_write_metis_graph(const fgl_csr *adj, const char *path, fgl_error *err);
/* Read a partition as gpmetis writes it (GRAPH.part.K): one integer part
 * id per line, line i the part of node i (0-based node order of the graph
 * written). n: the graph's nodes; the file must have exactly n lines. k > 0:
 * the ids must lie in 0..k-1 and every part must hold a node; k == 0: the
 * parts are 0..max id, each holding a node. *k_out (may be NULL) gets the
 * number of parts. Blank lines, signs other than a leading '-', text after
 * the number and ids outside the range are errors naming the line. All or
 * nothing: part (n ints) is written only when the whole file is valid.
 * Only a regular file is read (a directory, device or FIFO is FGL_ERR_IO,
 * told before it is opened), of at most 64 bytes a line: a file longer than
 * 64 n bytes (or fgl_file_max()) is FGL_ERR_RANGE before a byte is read,
 * and a line is refused at its 64th character, so what is read is bounded
 * by n even where the length is not known. */
FGLDEF int fgl_read_partition(const char *path, int n, int k, int *part, int *k_out, fgl_error *err);

/* --- src/graph/splits.h --- */
/* ------------------------------------------------------------------------ */
/* Federated splits                                                         */
/* ------------------------------------------------------------------------ */

/* n_lists lists of indices, list i = idx[ptr[i] .. ptr[i+1]-1] (ascending). */
typedef struct fgl_index_lists {
    int n_lists;
    int *ptr;    /* n_lists + 1 */
    int *idx;    /* ptr[n_lists] */
} fgl_index_lists;

FGLDEF void fgl_index_lists_free(fgl_index_lists *l);
/* Lists of the items of each value of assign[0..n-1] (values in 0..k-1). */
FGLDEF int fgl_index_lists_from_assign(const int *assign, int n, int k, fgl_index_lists *out,
                                       fgl_error *err);
/* FED-PUB's overlapping split: fgl_partition_metis into n_clients / 5 parts,
 * then from each part five independent uniform samples of floor(|part| / 2)
 * of its nodes. List 5 p + s is sample s of part p. n_clients must be a
 * positive multiple of 5 with n_clients / 5 <= n. */
FGLDEF int fgl_split_overlapping(const fgl_csr *adj, int n_clients, uint64_t seed,
                                 fgl_index_lists *out, fgl_error *err);
/* Dirichlet(alpha) label skew of n items over n_clients: for every class, a
 * proportion vector p ~ Dir(alpha, ..., alpha) cuts the shuffled items of the
 * class into consecutive runs, one per client. The whole draw is repeated
 * (up to 100 times) until every client holds at least min_per_client items;
 * if no draw does, the last one is rebalanced by moving random items from
 * the currently largest client to each client short of the minimum (so the
 * skew is kept as far as the minimum allows). client_of (n ints) receives
 * each item's client. Labels must lie in 0..n_classes-1;
 * n >= n_clients * min_per_client. */
FGLDEF int fgl_split_dirichlet(const int *labels, int n, int n_classes, int n_clients, double alpha,
                               int min_per_client, uint64_t seed, int *client_of, fgl_error *err);
/* Uniform (IID) split: a random permutation dealt round-robin, so client
 * sizes differ by at most one. */
FGLDEF int fgl_split_iid(int n, int n_clients, uint64_t seed, int *client_of, fgl_error *err);

/* ------------------------------------------------------------------------ */
/* GPFL's protocol: soft Dirichlet split, k-fold CV, client graph properties */
/* ------------------------------------------------------------------------ */
/* (docs/algorithms.md, GPFL protocol.) */

/* GPFL's soft Dirichlet label skew with equal client sizes: client j draws a
 * class prior p_j ~ Dir(alpha, ..., alpha); entries above cap are set to cap
 * and the excess is spread equally over the entries that were not above it;
 * client j gets floor(n / K) items, one more for the first n mod K clients.
 * Items are dealt one at a time: a client chosen uniformly among those
 * still short draws a class from its prior (renormalised over the classes
 * that still have items) and receives a random remaining item of that
 * class. client_of (n ints) receives each item's client. Labels in
 * 0..n_classes-1; 1 <= n_clients <= n; alpha > 0; 1/n_classes <= cap <= 1
 * (the authors use 0.95). */
FGLDEF int fgl_split_dirichlet_equal(const int *labels, int n, int n_classes, int n_clients, double alpha, double cap,
                                     uint64_t seed, int *client_of, fgl_error *err);
/* Stratified k-fold cross-validation of a graph set: the graphs of each
 * class (in a random order drawn from seed) are dealt round-robin over the
 * folds, the dealing continuing from class to class so that fold sizes
 * differ by at most one; fold `fold` becomes FGL_SPLIT_TEST and the others
 * FGL_SPLIT_TRAIN (no validation set). The folds depend on seed only, so
 * calls with fold = 0 .. folds-1 give the folds of one partition.
 * FGL_ERR_ARG unless 2 <= folds and 0 <= fold < folds. */
FGLDEF int fgl_split_graphs_kfold(fgl_graph_set *s, int folds, int fold, uint64_t seed, fgl_error *err);

/* GPFL's six properties of one graph (N nodes, 2|E| adjacency entries,
 * degrees d_i), as the authors' code computes them:
 *   [0] average degree <d> = 2|E| / N
 *   [1] density 2|E| / (N (N - 1))               (0 if N < 2)
 *   [2] degree variance (1/N) sum (d_i - <d>)^2
 *   [3] entropy mean_i(d_i ln d_i) / (2|E|)       (0 if |E| = 0)
 *   [4] "scale-free exponent" -(2 + 1/<d>): a function of <d>, not a fit;
 *       NaN for a graph without edges (fgl_graph_set_gpfl_properties leaves
 *       such graphs out of this property's mean)
 *   [5] mean closeness centrality (fgl_graph_closeness: Wasserman-Faust,
 *       as networkx)
 * These differ from fgl_graph_properties (entropy not divided by N there,
 * scale-free exponent a power-law fit). All 0 for an empty graph. */
#define FGL_GPFL_PROPS 6
FGLDEF int fgl_graph_gpfl_properties(const fgl_csr *adj, double *out, fgl_error *err);
/* Their mean over the graphs of s whose split code is `code` (code < 0:
 * every graph) into out (FGL_GPFL_PROPS doubles). FGL_ERR_EMPTY if there is
 * no such graph. */
FGLDEF int fgl_graph_set_gpfl_properties(const fgl_graph_set *s, int code, double *out, fgl_error *err);

/* ------------------------------------------------------------------------ */
/* Stratified node splits and split statistics (FedPG's protocol; the       */
/* partition statistics of FED-PUB's Table 4)                               */
/* ------------------------------------------------------------------------ */

/* Per-class stratified node split: inside each class (labelled nodes only;
 * y < 0 stays FGL_SPLIT_NONE) a random floor(train n_c) nodes train,
 * floor(val n_c) validate and the rest test (rounded down, as FedPG's code
 * does), so every split keeps the class proportions (FedPG's 20/40/40).
 * FGL_ERR_ARG for bad fractions. */
FGLDEF int fgl_split_nodes_stratified(fgl_node_data *d, double train, double val, uint64_t seed, fgl_error *err);
/* Mean over nodes of the local clustering coefficient (Watts and Strogatz:
 * the fraction of a node's neighbour pairs that are adjacent; nodes of
 * degree < 2 count 0, as networkx's average_clustering) of a symmetric
 * graph without self loops. 0 for an empty graph. */
FGLDEF double fgl_graph_mean_clustering(const fgl_csr *adj);
/* Jensen-Shannon divergence (natural log, in [0, ln 2]) of two
 * distributions given as non-negative weights over n outcomes (normalised
 * here; an all-zero vector gives 0). */
FGLDEF double fgl_js_divergence(const double *p, const double *q, int n);

/* --- src/graph/simulate.h --- */
/* ------------------------------------------------------------------------ */
/* OpenFGL's data simulations                                               */
/* ------------------------------------------------------------------------ */
/* The federated data simulations of OpenFGL (Li et al., "OpenFGL: A
 * Comprehensive Benchmark for Federated Graph Learning", 2024; its
 * openfgl/data/simulation.py), written afresh from their definitions
 * (docs/algorithms.md, "OpenFGL's data simulations"): Louvain+ and Metis+
 * (communities grouped by their label distributions), label skew with
 * client capacities, and the graph-level topology and feature skews (graphs
 * sorted by a statistic and dealt out in contiguous runs). fgl_scenario_make
 * uses them for --split louvain-plus, metis-plus, label-skew, topology-skew
 * and feature-skew. */

/* OpenFGL's Louvain+ / Metis+ grouping: the communities comm[0..n-1] (ids
 * 0..n_comm-1) become k clients by their label distributions. Each
 * community's histogram of labels (labels outside 0..n_classes-1 are not
 * counted; a community with none is the zero vector), divided by its sum, is
 * a point of R^n_classes, one point per community whatever its size; k-means
 * clusters the points into k groups (k-means++ seeding from seed, Lloyd's
 * iterations until no point changes group or 300 iterations, an emptied
 * group refilled by the point farthest from its centre; the best of 10
 * seedings by the sum of squared distances); client j receives every node of
 * every community of group j. FGL_ERR_ARG when fewer than k communities, or
 * fewer than k distinct distributions, exist (some client would be empty).
 * client_of (n ints) receives each node's client. */
FGLDEF int fgl_split_group_communities(const int *comm, int n, int n_comm, const int *labels, int n_classes, int k,
                                       uint64_t seed, int *client_of, fgl_error *err);
/* OpenFGL's label skew (subgraph_fl_label_skew, graph_fl_label_skew): for
 * every class in turn, a proportion vector p ~ Dir(alpha, ..., alpha) over
 * the k clients, with p_j set to 0 for every client already holding at
 * least n / k items (a capacity), renormalised, cuts the class's shuffled
 * items into consecutive runs, client j's run ending at floor(n_c x (p_1 +
 * ... + p_j)) and the last client with a positive share taking the rest. The
 * whole draw is repeated until every client holds at least min_per_client
 * items, at most `tries` times; if no draw does, FGL_ERR_ARG says so (no
 * rebalancing: OpenFGL stops there too). Labels in 0..n_classes-1; 1 <= k;
 * k x min_per_client <= n; alpha > 0; tries >= 1. */
FGLDEF int fgl_split_label_skew(const int *labels, int n, int n_classes, int k, double alpha, int min_per_client,
                                int tries, uint64_t seed, int *client_of, fgl_error *err);
/* OpenFGL's sorted split (graph_fl_topology_skew, graph_fl_feature_skew):
 * the n items in increasing order of stat (ties in increasing index: a
 * stable sort) are cut into k consecutive runs of floor(n / k), the last run
 * taking the rest; run j is client j's, so client j's statistics all lie at
 * or below client j+1's. 1 <= k <= n; a NaN statistic is FGL_ERR_ARG. */
FGLDEF int fgl_split_sorted(const double *stat, int n, int k, int *client_of, fgl_error *err);
/* Per graph of s: its mean degree, the adjacency entries of its nodes over
 * its nodes (2 E / N for E undirected edges without self loops; 0 for a
 * graph without nodes): OpenFGL's topology statistic. */
FGLDEF void fgl_graph_set_mean_degrees(const fgl_graph_set *s, double *out);
/* Per graph of s: the mean of all entries of its node feature matrix, the
 * node attributes (node_attr, when the set has them) beside the features x
 * (one-hot node labels or degrees): OpenFGL's feature statistic (its TU
 * graphs carry the attributes and the one-hot labels). FGL_ERR_ARG when s
 * has no features x yet. With one-hot features alone every graph's mean is
 * 1 / n_feat, so the statistic ties everywhere and the split is the stored
 * order (as OpenFGL's stable sort). */
FGLDEF int fgl_graph_set_mean_features(const fgl_graph_set *s, double *out, fgl_error *err);

/* --- src/graph/anchors.h --- */
/* ------------------------------------------------------------------------ */
/* Anchored distance completion (pFedGNN)                                   */
/* ------------------------------------------------------------------------ */
/* Clients hold disjoint sets of points (node features) and may not share
 * them. Each computes the squared distances from its points to K public
 * anchors; from those alone a server completes the unobserved distances
 * between points of different clients, builds an affinity graph over all
 * points and coarsens its Laplacian by the client membership P into a
 * K_clients x K_clients matrix L_C = P L_G P^T (pFedGNN, Kataria et al.).
 *
 * Completion. fgl_anchor_frame_init places the anchors by classical MDS of
 * their squared distances (rank r <= K - 1); fgl_anchor_embed places a point
 * by landmark MDS (de Silva & Tenenbaum 2004): z = -1/2 Lambda^-1/2 V^T
 * (delta - mu), the orthogonal projection of the point onto the anchors'
 * affine span, i.e. the Nystrom completion G ~ G_pa G_aa^+ G_ap of the
 * points' Gram matrix relative to the anchors. The completed squared
 * distance of two points is ||z_i - z_j||^2: exact when the anchors span the
 * points' space (K >= d + 1 in general position), a lower bound otherwise.
 * fgl_anchor_smacof refines the points by anchored weighted SMACOF (weight 1
 * on observed distances, 0 on the others, anchors fixed): Guttman
 * transforms that never increase the stress sum (d_ij(Z) - delta_ij)^2 over
 * the observed pairs; with a client's own point-point block observed too,
 * the client's points move jointly (V = (K + n) I - 1 1^T, inverted in
 * closed form). No N x N matrix is ever formed: points of different clients
 * never interact in the completion. The server then coarsens the completed
 * points by client: src/graph/coarsen.h. */

/* out[i K + k] = ||x_i - a_k||^2 for the n_nodes rows of d (dense or sparse
 * features) and K anchors (K x n_feat, row-major); sums in double. */
FGLDEF int fgl_anchor_sqdist(const fgl_node_data *d, const float *anchors, int K, float *out, fgl_error *err);
/* out[i n + j] = ||x_i - x_j||^2 among the n rows of d (n x n). */
FGLDEF int fgl_node_sqdist_block(const fgl_node_data *d, float *out, fgl_error *err);

/* The anchors' frame: coordinates and the landmark projection. */
typedef struct fgl_anchor_frame {
    int K;          /* anchors */
    int r;          /* dimension kept (eigenvalues > 1e-9 of the largest, at most max_dim) */
    double *coord;  /* K x r anchor coordinates (centred) */
    double *proj;   /* r x K: z = proj (delta - mu) */
    double *mu;     /* K: mean squared distance of each anchor to the anchors */
    double *eig;    /* r: eigenvalues kept, descending */
} fgl_anchor_frame;

/* From the anchors' K x K squared distances (symmetric, zero diagonal);
 * max_dim <= 0: K - 1. FGL_ERR_ARG if the anchors coincide. */
FGLDEF int fgl_anchor_frame_init(fgl_anchor_frame *f, const double *d2, int K, int max_dim, fgl_error *err);
FGLDEF void fgl_anchor_frame_free(fgl_anchor_frame *f);
/* Landmark completion: z (n x f->r) of n points from their squared
 * distances to the anchors (n x K). */
FGLDEF void fgl_anchor_embed(const fgl_anchor_frame *f, const float *dist2, int n, float *z);
/* Anchored weighted SMACOF from z (n x r, refined in place): observed are
 * the n x K squared distances to the anchors and, if block is not NULL, the
 * n x n squared distances among the n points. Stops when the stress falls by
 * less than tol (relative) in an iteration, or after max_iter. Returns the
 * iterations done (< 0: an error); *stress (may be NULL): the final raw
 * stress, *stress0 that of the start. */
FGLDEF int fgl_anchor_smacof(const fgl_anchor_frame *f, const float *dist2, const float *block, int n, int max_iter,
                             double tol, float *z, double *stress0, double *stress, fgl_error *err);

/* --- src/graph/coarsen.h --- */
/* ------------------------------------------------------------------------ */
/* Client coarsening of an affinity graph over points (pFedGNN)             */
/* ------------------------------------------------------------------------ */
/* N points z (N x r; pFedGNN: the clients' node features completed from
 * their distances to public anchors, src/graph/anchors.h) are owned by K
 * clients through the membership P; the server builds an affinity graph
 * over all points and coarsens its Laplacian by P into a K x K matrix
 * L_C = P L_G P^T (pFedGNN, Kataria et al.).
 *
 * Coarsening. L_C needs only, for every pair of clients (a, b), the sum of
 * the affinities between a's and b's points, so fgl_coarsen_clients streams
 * over tiles of point pairs and keeps O(N + K^2) numbers: exact in
 * O(N^2 r) time, or, with cfg.sample = s > 0, over s points drawn from each
 * client (each standing for n_b / s of its client's points): O(N K s r)
 * time, unbiased for the pair sums (the maxdiff kernel's row maxima become
 * maxima over the sample). Per-client-pair sums rather than k-nearest-
 * neighbour sparsification: L_C needs nothing else, the sums are exact or
 * unbiased, and no neighbour search is needed. Kernels on the completed
 * distances D (Euclidean):
 *   FGL_KERNEL_MAXDIFF  the pFedGNN authors' code: A_ij = (m_i - D_ij) / sum_k
 *                       (m_i - D_ik), m_i = max_k D_ik (rows sum to 1),
 *                       symmetrised (A + A^T) / 2, rows normalised again,
 *                       L_G = I - D^-1 A (the random-walk Laplacian);
 *   FGL_KERNEL_GAUSS    W_ij = exp(-D_ij^2 / sigma^2), i != j, L_G = Diag(W 1) - W;
 *                       sigma^2 = cfg.sigma times the mean squared distance
 *                       over all pairs (computed exactly from sums).
 * fgl_collab_weights turns L_C into row-normalised inter-client weights
 * w_ij = max(-(L_C)_ij, 0) / sum_{k != i} max(-(L_C)_ik, 0), w_ii = 0 (the
 * paper's literal "L_C row-normalised" is ill-defined: rows of a Laplacian
 * sum to 0). */

enum { FGL_KERNEL_MAXDIFF, FGL_KERNEL_GAUSS };

typedef struct fgl_coarsen_config {
    int kernel;          /* FGL_KERNEL_* (MAXDIFF) */
    double sigma;        /* GAUSS: sigma^2 = sigma x mean squared distance (1) */
    int sample;          /* 0: every pair; s > 0: s points per client stand for the client (0) */
    uint64_t seed;       /* the sample's draw (1) */
} fgl_coarsen_config;

FGLDEF fgl_coarsen_config fgl_coarsen_default(void);
/* lc (K x K, row-major) = P L_G P^T for the N points z (N x r); client c owns
 * rows ptr[c] .. ptr[c + 1] - 1 (ptr[0] = 0, ptr[K] = N). */
FGLDEF int fgl_coarsen_clients(const float *z, int r, const int *ptr, int K, const fgl_coarsen_config *cfg, double *lc,
                               fgl_error *err);
/* w (K x K): the inter-client weights of lc (see above); a client without
 * positive mass towards the others gets a row of zeros. */
FGLDEF void fgl_collab_weights(const double *lc, int K, double *w);

#ifdef __cplusplus
}
#endif
#endif /* FGL_GRAPH_H */

#if (defined(FGL_IMPLEMENTATION) || defined(FGL_TEST_PRIVATE)) && !defined(FGL_GRAPH_H_PRIVATE)
#define FGL_GRAPH_H_PRIVATE /* private declarations: see fgl.h's */
#ifdef __cplusplus
extern "C" {
#endif

/* --- src/graph/dataset.h --- */
/* A batch, or its A + I (fgl_gnn.h), is built on a thread per
 * FGL_PER_THREAD_ENTRIES entries (nodes + edges): fgl.h's table. */
#define fgl__threads_entries(n) fgl__threads((double)(n), (double)FGL_PER_THREAD_ENTRIES)

#ifdef __cplusplus
}
#endif
#endif /* FGL_GRAPH_H_PRIVATE */

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
#if defined(__unix__) || defined(__APPLE__)
#include <sys/stat.h> /* regular files only: the loaders, fgl_read_partition */
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* --- src/graph/graph.h --- */
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

/* --- src/graph/io.h --- */
/* --- text parsing --------------------------------------------------------- */

/* A whole text file in memory (NUL-terminated) with a cursor and the line
 * number for messages. Read by fgl_file_read_bounded: a regular file of at
 * most fgl_file_max() bytes, without a NUL byte (a file of zeros fails at
 * its first block instead of being read whole). */
typedef struct fgl__g_txt {
    const char *path;
    char *own;          /* path, when the cursor owns it (fgl__g_txt_open_in) */
    char *buf;
    const char *p, *end;
    int line;
    fgl_error *err;
} fgl__g_txt;

static int fgl__g_txt_fail(fgl__g_txt *t, int code, const char *fmt, ...) FGL__PRINTF(3, 4);

static int fgl__g_txt_fail(fgl__g_txt *t, int code, const char *fmt, ...) {
    char msg[FGL_ERROR_MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fgl_error_set(t->err, code, "%s:%d: %s", t->path, t->line, msg);
}

static int fgl__g_txt_open(fgl__g_txt *t, const char *path, fgl_error *err) {
    unsigned char *data, *nb;
    size_t len;
    int rc;
    memset(t, 0, sizeof *t);
    t->path = path;
    t->err = err;
    t->line = 1;
    rc = fgl_file_read_bounded(path, 0, 1, &data, &len, err); /* regular, bounded, text */
    if (rc) return rc;
    nb = FGL__G_RESIZE(unsigned char, data, len + 1);
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

static void fgl__g_txt_close(fgl__g_txt *t) {
    FGL_FREE(t->buf);
    FGL_FREE(t->own);
    t->buf = t->own = NULL;
    t->path = NULL;
    t->p = t->end = NULL;
}

/* Upper bound on the number of lines (records). */
static size_t fgl__g_txt_lines(const fgl__g_txt *t) {
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

static int fgl__g_is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
static int fgl__g_is_delim(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ','; }

static void fgl__g_txt_blanks(fgl__g_txt *t) {
    while (t->p < t->end && fgl__g_is_blank(*t->p)) t->p++;
}

/* 1 at the end of the line or file (after blanks). */
static int fgl__g_txt_at_eol(fgl__g_txt *t) {
    fgl__g_txt_blanks(t);
    return t->p >= t->end || *t->p == '\n';
}

/* 1 if a non-blank line follows, 0 at the end of the data (only blank
 * lines left), or an error for a blank line in the middle. */
static int fgl__g_txt_more(fgl__g_txt *t) {
    const char *q;
    fgl__g_txt_blanks(t);
    if (t->p >= t->end) return 0;
    if (*t->p != '\n') return 1;
    for (q = t->p; q < t->end; q++)
        if (!fgl__g_is_blank(*q) && *q != '\n') break;
    if (q >= t->end) {
        t->p = t->end;
        return 0;
    }
    return fgl__g_txt_fail(t, FGL_ERR_FORMAT, "empty line");
}

/* The token at p (up to a delimiter) quoted safely for a message. */
static void fgl__g_tok(const char *p, const char *end, char *out, size_t cap) {
    size_t n = 0;
    while (p < end && !fgl__g_is_delim(*p) && n + 4 < cap) {
        unsigned char ch = (unsigned char)*p++;
        out[n++] = (ch >= 32 && ch < 127) ? (char)ch : '?';
    }
    if (p < end && !fgl__g_is_delim(*p)) {
        out[n++] = '.';
        out[n++] = '.';
        out[n++] = '.';
    }
    out[n] = 0;
}

/* Consume the end of the line; anything else left on it is an error. */
static int fgl__g_txt_eol(fgl__g_txt *t) {
    fgl__g_txt_blanks(t);
    if (t->p < t->end && *t->p != '\n') {
        char tok[40];
        fgl__g_tok(t->p, t->end, tok, sizeof tok);
        if (!tok[0]) tok[0] = *t->p == ',' ? ',' : '?', tok[1] = 0;
        return fgl__g_txt_fail(t, FGL_ERR_PARSE, "unexpected '%s' at the end of the line", tok);
    }
    if (t->p < t->end) {
        t->p++;
        t->line++;
    }
    return FGL_OK;
}

/* Skip blanks and at most one comma. */
static void fgl__g_txt_sep(fgl__g_txt *t) {
    fgl__g_txt_blanks(t);
    if (t->p < t->end && *t->p == ',') {
        t->p++;
        fgl__g_txt_blanks(t);
    }
}

static int fgl__g_txt_missing(fgl__g_txt *t, const char *what) {
    return fgl__g_txt_fail(t, FGL_ERR_FORMAT, "missing %s (the line or file ends early)", what);
}

static int fgl__g_txt_bad(fgl__g_txt *t, const char *p, const char *what) {
    char tok[40];
    fgl__g_tok(p, t->end, tok, sizeof tok);
    if (!tok[0]) tok[0] = *p == ',' ? ',' : '?', tok[1] = 0;
    return fgl__g_txt_fail(t, FGL_ERR_PARSE, "'%s' is not a valid %s", tok, what);
}

static int fgl__g_txt_int(fgl__g_txt *t, int *out, const char *what) {
    const char *p;
    long long v = 0;
    int neg = 0, nd = 0;
    fgl__g_txt_blanks(t);
    p = t->p;
    if (p >= t->end || *p == '\n') return fgl__g_txt_missing(t, what);
    if (*p == '-' || *p == '+') neg = *p++ == '-';
    while (p < t->end && *p >= '0' && *p <= '9') {
        if (nd < 18) v = v * 10 + (*p - '0');
        nd++;
        p++;
    }
    if (nd == 0 || (p < t->end && !fgl__g_is_delim(*p))) return fgl__g_txt_bad(t, t->p, what);
    if (neg) v = -v;
    if (nd > 10 || v > INT_MAX || v < INT_MIN) {
        char tok[40];
        fgl__g_tok(t->p, t->end, tok, sizeof tok);
        return fgl__g_txt_fail(t, FGL_ERR_RANGE, "%s %s is out of range", what, tok);
    }
    t->p = p;
    *out = (int)v;
    return FGL_OK;
}

static const double fgl__g_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A float: plain decimals with at most 15 digits are converted exactly
 * (one correctly rounded multiply or divide); anything else goes to strtod. */
static int fgl__g_txt_float(fgl__g_txt *t, float *out, const char *what) {
    const char *p, *s;
    double d;
    int neg = 0, nd = 0, frac = 0, ex = 0, fast = 1;
    uint64_t m = 0;
    fgl__g_txt_blanks(t);
    s = p = t->p;
    if (p >= t->end || *p == '\n') return fgl__g_txt_missing(t, what);
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
    if (fast && nd <= 15 && ex >= -22 && ex <= 22 && (p >= t->end || fgl__g_is_delim(*p))) {
        d = (double)m;
        d = ex >= 0 ? d * fgl__g_pow10[ex] : d / fgl__g_pow10[-ex];
        if (neg) d = -d;
    } else {
        char *e;
        char c0 = (neg || *s == '+') ? s[1] : s[0];
        if (!((c0 >= '0' && c0 <= '9') || c0 == '.' || c0 == 'i' || c0 == 'I' || c0 == 'n' ||
              c0 == 'N'))
            return fgl__g_txt_bad(t, s, what);  /* strtod would skip white space */
        d = strtod(s, &e);
        if (e == s || (e < t->end && !fgl__g_is_delim(*e))) return fgl__g_txt_bad(t, s, what);
        p = e;
    }
    /* at or beyond FLT_MAX + half an ulp a float conversion gives Inf */
    if (d != d || d >= 3.4028235677973366e38 || d <= -3.4028235677973366e38) {
        char tok[40];
        fgl__g_tok(s, t->end, tok, sizeof tok);
        return fgl__g_txt_fail(t, FGL_ERR_NONFINITE, "%s %s is not a finite float", what, tok);
    }
    t->p = p;
    *out = (float)d;
    return FGL_OK;
}

/* A word: the characters up to a blank or the end of the line. */
static int fgl__g_txt_word(fgl__g_txt *t, const char **w, int *len, const char *what) {
    const char *p;
    fgl__g_txt_blanks(t);
    p = t->p;
    if (p >= t->end || *p == '\n') return fgl__g_txt_missing(t, what);
    while (p < t->end && !fgl__g_is_blank(*p) && *p != '\n') p++;
    *w = t->p;
    *len = (int)(p - t->p);
    t->p = p;
    return FGL_OK;
}

/* dir + "/" + name + suffix (dir may be NULL or empty). */
static char *fgl__g_path(const char *dir, const char *name, const char *suffix) {
    size_t a = dir ? strlen(dir) : 0, b = name ? strlen(name) : 0, c = strlen(suffix);
    char *p = FGL__G_NEW(char, a + b + c + 2), *q;
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

/* Open dir/name+suffix; the cursor owns the path (freed by txt_close). */
static int fgl__g_txt_open_in(fgl__g_txt *t, const char *dir, const char *name, const char *suffix,
                              fgl_error *err) {
    char *path = fgl__g_path(dir, name, suffix);
    int rc;
    memset(t, 0, sizeof *t);
    if (!path) return fgl_error_set(err, FGL_ERR_NOMEM, "%s%s: out of memory", name ? name : "", suffix);
    rc = fgl__g_txt_open(t, path, err);
    if (rc) {
        FGL_FREE(path);
        memset(t, 0, sizeof *t);
        return rc;
    }
    t->own = path;
    return FGL_OK;
}

/* An optional file: 1 if it is open in t, 0 if it does not exist, or the
 * error reading it (a file that exists but is not readable as text, a
 * directory for one, is an error, not an absent file). */
static int fgl__g_txt_open_optional(fgl__g_txt *t, const char *dir, const char *name, const char *suffix,
                                    fgl_error *err) {
    int rc = fgl__g_txt_open_in(t, dir, name, suffix, err);
    if (rc == FGL_ERR_IO) {
        char *path = fgl__g_path(dir, name, suffix);
        int there;
#if defined(__unix__) || defined(__APPLE__)
        struct stat st; /* not fopen: it blocks on a FIFO without a writer */
        there = path && stat(path, &st) == 0;
#else
        FILE *f = path ? fopen(path, "rb") : NULL;
        there = f != NULL;
        if (f) fclose(f);
#endif
        FGL_FREE(path);
        if (!there) {
            fgl_error_clear(err);
            return 0;
        }
    }
    return rc ? rc : 1;
}

/* A growable int array. */
typedef struct fgl__g_ivec {
    int *a;
    size_t n, cap;
} fgl__g_ivec;

static int fgl__g_ivec_push(fgl__g_ivec *v, int x) {
    if (v->n == v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 1024;
        int *na = FGL__G_RESIZE(int, v->a, nc);
        if (!na) return FGL_ERR_NOMEM;
        v->a = na;
        v->cap = nc;
    }
    v->a[v->n++] = x;
    return FGL_OK;
}

/* A growable float array. */
typedef struct fgl__g_fvec {
    float *a;
    size_t n, cap;
} fgl__g_fvec;

static int fgl__g_fvec_push(fgl__g_fvec *v, float x) {
    if (v->n == v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 1024;
        float *na = FGL__G_RESIZE(float, v->a, nc);
        if (!na) return FGL_ERR_NOMEM;
        v->a = na;
        v->cap = nc;
    }
    v->a[v->n++] = x;
    return FGL_OK;
}

/* Rows of floats, one per line, as many on every line as on the first: the
 * TU node attributes and the CSV features. The messages use each file's own
 * words, e.g. "attribute" / "attributes" / "line" / "attribute lines" /
 * "nodes". */
typedef struct fgl__g_rows_words {
    const char *value;   /* one value (parse errors) */
    const char *values;  /* the values of a row */
    const char *row;     /* one row */
    const char *rows;    /* the rows */
    const char *owners;  /* what the expected number of rows counts */
} fgl__g_rows_words;

/* *w = the number of values on the first non-blank line, 0 for a file without
 * one. They are parsed (a bad token is reported here) but not consumed: the
 * cursor stays at the start of that line for fgl__g_read_rows. */
static int fgl__g_row_width(fgl__g_txt *t, const fgl__g_rows_words *words, int *w) {
    int rc;
    *w = 0;
    if ((rc = fgl__g_txt_more(t)) > 0) {
        const char *save = t->p;
        while (!fgl__g_txt_at_eol(t)) {
            float v;
            if ((rc = fgl__g_txt_float(t, &v, words->value)) != 0) return rc;
            fgl__g_txt_sep(t);
            (*w)++;
        }
        t->p = save;
    }
    return rc < 0 ? rc : FGL_OK;
}

/* The rest of the file into x: exactly n rows of exactly w values
 * (FGL_ERR_SHAPE otherwise, at the offending line). */
static int fgl__g_read_rows(fgl__g_txt *t, float *x, int n, int w, const fgl__g_rows_words *words) {
    int rc, row = 0, j;
    while ((rc = fgl__g_txt_more(t)) > 0) {
        float *r;
        if (row >= n)
            return fgl__g_txt_fail(t, FGL_ERR_SHAPE, "more %s than the %d %s", words->rows, n, words->owners);
        r = x + (size_t)row * (size_t)w;
        for (j = 0; j < w; j++) {
            if (fgl__g_txt_at_eol(t))
                return fgl__g_txt_fail(t, FGL_ERR_SHAPE, "%d %s, the first %s has %d", j, words->values, words->row, w);
            if ((rc = fgl__g_txt_float(t, &r[j], words->value)) != 0) return rc;
            fgl__g_txt_sep(t);
        }
        if (!fgl__g_txt_at_eol(t))
            return fgl__g_txt_fail(t, FGL_ERR_SHAPE, "more %s than the %d of the first %s", words->values, w,
                                   words->row);
        if ((rc = fgl__g_txt_eol(t)) != 0) return rc;
        row++;
    }
    if (rc < 0) return rc;
    if (row != n) return fgl__g_txt_fail(t, FGL_ERR_SHAPE, "%d %s for %d %s", row, words->rows, n, words->owners);
    return FGL_OK;
}

/* FGL_ERR_EMPTY when none of the k values x holds is non-zero: n rows of w
 * features (or attributes) that are all 0 carry nothing to learn from, a
 * failed conversion more likely than data. */
static int fgl__g_nonzero(const char *path, const float *x, size_t k, int n, int w, const char *what,
                          fgl_error *err) {
    size_t i;
    for (i = 0; i < k; i++)
        if (x[i] != 0.0f) return FGL_OK;
    return fgl_error_set(err, FGL_ERR_EMPTY, "%s: every %s value of the %d nodes x %d %ss is 0: nothing to learn "
                         "from (a failed conversion?)", path, what, n, w, what);
}

/* --- TU loader ------------------------------------------------------------ */

/* Read one integer per line into a new array; *n = lines read. */
static int fgl__g_read_int_lines(fgl__g_txt *t, int **out, int *n, const char *what) {
    size_t cap = fgl__g_txt_lines(t);
    int rc, cnt = 0, *a = FGL__G_NEW(int, cap);
    *out = NULL;
    *n = 0;
    if (!a) return fgl_error_set(t->err, FGL_ERR_NOMEM, "%s: out of memory", t->path);
    while ((rc = fgl__g_txt_more(t)) > 0) {
        if ((rc = fgl__g_txt_int(t, &a[cnt], what)) != 0 || (rc = fgl__g_txt_eol(t)) != 0) break;
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
    /* Every count comes from a file's lines (so from its length): N nodes
     * from the graph indicator, G <= N graphs (no gaps), then the other
     * files are checked against N and G before anything of their size is
     * allocated. */
    fgl__g_txt t;
    int *gi = NULL, *lab = NULL, *src = NULL, *dst = NULL, *nl = NULL;
    float *attr = NULL;
    int rc, N = 0, G, nlab, m = 0, i;
    memset(out, 0, sizeof *out);
    memset(&t, 0, sizeof t);
    /* graph indicator: node -> graph, 1-based, non-decreasing, no gaps */
    rc = fgl__g_txt_open_in(&t, dir, name, "_graph_indicator.txt", err);
    if (rc) goto fail;
    rc = fgl__g_read_int_lines(&t, &gi, &N, "graph id");
    if (rc) goto fail;
    t.line = 1;
    for (i = 0; i < N; i++) {
        int prev = i ? gi[i - 1] : 0;
        t.line = i + 1;
        if (gi[i] < 1) {
            rc = fgl__g_txt_fail(&t, FGL_ERR_RANGE, "graph id %d (ids start at 1)", gi[i]);
            goto fail;
        }
        if (gi[i] < prev) {
            rc = fgl__g_txt_fail(&t, FGL_ERR_FORMAT, "graph id %d after %d: ids must not decrease", gi[i], prev);
            goto fail;
        }
        if (gi[i] > prev + 1) {
            rc = fgl__g_txt_fail(&t, FGL_ERR_FORMAT, "graph id %d after %d: graph %d has no nodes", gi[i],
                               prev, prev + 1);
            goto fail;
        }
    }
    if (N == 0) {
        rc = fgl__g_txt_fail(&t, FGL_ERR_EMPTY, "no nodes: the dataset is empty");
        goto fail;
    }
    G = gi[N - 1];
    out->node_ptr = FGL__G_NEW(int, G + 1);
    if (!out->node_ptr) goto nomem;
    out->node_ptr[0] = 0;
    for (i = 0; i < N; i++) out->node_ptr[gi[i]] = i + 1;

    /* graph labels: one per graph, any integers, remapped to 0..C-1 */
    fgl__g_txt_close(&t);
    rc = fgl__g_txt_open_in(&t, dir, name, "_graph_labels.txt", err);
    if (rc) goto fail;
    rc = fgl__g_read_int_lines(&t, &lab, &nlab, "graph label");
    if (rc) goto fail;
    if (nlab != G) {
        t.line = (nlab < G ? nlab : G) + 1;
        rc = fgl__g_txt_fail(&t, FGL_ERR_SHAPE, "%d graph labels, but the graph indicator names %d graphs",
                           nlab, G);
        goto fail;
    }
    rc = fgl_labels_remap(lab, G, NULL, &out->n_classes);
    if (rc) goto nomem;
    out->y = lab;
    lab = NULL;

    /* adjacency: "row, col" per directed entry, 1-based */
    fgl__g_txt_close(&t);
    rc = fgl__g_txt_open_in(&t, dir, name, "_A.txt", err);
    if (rc) goto fail;
    {
        size_t cap = fgl__g_txt_lines(&t);
        src = FGL__G_NEW(int, cap);
        dst = FGL__G_NEW(int, cap);
        if (!src || !dst) goto nomem;
        while ((rc = fgl__g_txt_more(&t)) > 0) {
            int u, v;
            if ((rc = fgl__g_txt_int(&t, &u, "node id")) != 0) goto fail;
            fgl__g_txt_sep(&t);
            if ((rc = fgl__g_txt_int(&t, &v, "node id")) != 0) goto fail;
            if (u < 1 || u > N || v < 1 || v > N) {
                rc = fgl__g_txt_fail(&t, FGL_ERR_RANGE, "node id %d outside 1..%d", (u < 1 || u > N) ? u : v, N);
                goto fail;
            }
            if (gi[u - 1] != gi[v - 1]) {
                rc = fgl__g_txt_fail(&t, FGL_ERR_FORMAT, "edge (%d, %d) joins graph %d and graph %d", u, v,
                                   gi[u - 1], gi[v - 1]);
                goto fail;
            }
            if ((rc = fgl__g_txt_eol(&t)) != 0) goto fail;
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
    fgl__g_txt_close(&t);
    rc = fgl__g_txt_open_optional(&t, dir, name, "_node_labels.txt", err);
    if (rc < 0) goto fail;
    if (rc == 1) {
        int cnt;
        rc = fgl__g_read_int_lines(&t, &nl, &cnt, "node label");
        if (rc) goto fail;
        if (cnt != N) {
            t.line = (cnt < N ? cnt : N) + 1;
            rc = fgl__g_txt_fail(&t, FGL_ERR_SHAPE, "%d node labels for %d nodes", cnt, N);
            goto fail;
        }
        rc = fgl_labels_remap(nl, N, NULL, &out->n_node_label_values);
        if (rc) goto nomem;
        out->node_labels = nl;
        nl = NULL;
    }

    /* optional node attributes: the same number of floats on every line */
    fgl__g_txt_close(&t);
    rc = fgl__g_txt_open_optional(&t, dir, name, "_node_attributes.txt", err);
    if (rc < 0) goto fail;
    if (rc == 1) {
        static const fgl__g_rows_words words = {"attribute", "attributes", "line", "attribute lines", "nodes"};
        int w;
        if ((rc = fgl__g_row_width(&t, &words, &w)) != 0) goto fail;
        if (w == 0) {
            rc = fgl__g_txt_fail(&t, FGL_ERR_SHAPE, "no attributes for %d nodes", N);
            goto fail;
        }
        /* a row of w values takes at least 2 w bytes (value, separator) */
        if ((double)N * w * 2.0 > (double)(t.end - t.buf) + 1.0) {
            rc = fgl__g_txt_fail(&t, FGL_ERR_SHAPE, "%d nodes, but the file cannot hold %d rows of %d attributes", N,
                                 N, w);
            goto fail;
        }
        attr = FGL__G_NEW2(float, N, w);
        if (!attr) goto nomem;
        if ((rc = fgl__g_read_rows(&t, attr, N, w, &words)) != 0) goto fail;
        if ((rc = fgl__g_nonzero(t.path, attr, (size_t)N * (size_t)w, N, w, "attribute", err)) != 0) goto fail;
        out->node_attr = attr;
        out->n_node_attr = w;
        attr = NULL;
    }

    fgl__g_txt_close(&t);
    FGL_FREE(gi);
    fgl__g_name_copy(out->name, name);
    out->n_graphs = G;
    out->n_nodes = N;
    fgl_error_clear(err);
    return FGL_OK;
nomem:
    rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", t.path ? t.path : "load_tu");
fail:
    fgl__g_txt_close(&t);
    FGL_FREE(gi);
    FGL_FREE(lab);
    FGL_FREE(src);
    FGL_FREE(dst);
    FGL_FREE(nl);
    FGL_FREE(attr);
    fgl_graph_set_free(out);
    return rc;
}

/* --- node layout loader --------------------------------------------------- */

/* A class label as files give it: -1 (unknown) or 0..FGL_MAX_CLASSES-1. */
static int fgl__g_check_label(fgl__g_txt *t, int v) {
    if (v < -1) return fgl__g_txt_fail(t, FGL_ERR_RANGE, "label %d (labels are 0-based, -1 = unknown)", v);
    if (v >= FGL_MAX_CLASSES)
        return fgl__g_txt_fail(t, FGL_ERR_RANGE, "label %d: at most %d classes (FGL_MAX_CLASSES)", v,
                               FGL_MAX_CLASSES);
    return FGL_OK;
}

/* The classes of labels y (n nodes, line i + 1 of t's file is node i):
 * n_classes = max + 1, so a stray label (99 among 0..6) would make classes
 * no node has. Refused: no node labelled (all -1); more classes 0..max
 * without a node than with one, naming the first line of the label above
 * the widest run of empty classes. A few empty classes are accepted (a
 * client's nodes saved alone may miss some classes; 1-based ids leave
 * class 0 empty): the node layout does not declare its class count, so they
 * cannot be told from data. The cursor's line is left as found. */
static int fgl__g_check_classes(fgl__g_txt *t, const int *y, int n, int *n_classes) {
    int *v, m = 0, i, used = 0, lo = -1, hi = -1, prev = -1, rc = FGL_OK;
    if (!(v = FGL__G_NEW(int, n > 0 ? n : 1))) return fgl_error_set(t->err, FGL_ERR_NOMEM, "%s: out of memory", t->path);
    for (i = 0; i < n; i++)
        if (y[i] >= 0) v[m++] = y[i];
    if (m == 0) {
        FGL_FREE(v);
        return fgl_error_set(t->err, FGL_ERR_EMPTY, "%s: no node is labelled: all %d labels are -1 (unknown)", t->path,
                             n);
    }
    fgl__g_sort_ints(v, (size_t)m);
    for (i = 0; i < m; i++) {
        if (i > 0 && v[i] == v[i - 1]) continue;
        used++;
        if (v[i] - prev - 1 > hi - lo - 1) lo = prev, hi = v[i]; /* the widest run of empty classes so far */
        prev = v[i];
    }
    *n_classes = v[m - 1] + 1;
    FGL_FREE(v);
    if (*n_classes - used > used) {
        int line = t->line;
        char range[64];
        if (lo + 1 == hi - 1) snprintf(range, sizeof range, "class %d", lo + 1);
        else snprintf(range, sizeof range, "classes %d..%d", lo + 1, hi - 1);
        for (i = 0; i < n && y[i] != hi; i++) {}
        t->line = i + 1;
        rc = fgl__g_txt_fail(t, FGL_ERR_RANGE, "label %d: the labels make %d classes but only %d hold a node (none "
                             "has %s): a stray label? (class ids are 0-based; at least half of the classes 0..C-1 "
                             "must hold a node)", hi, *n_classes, used, range);
        t->line = line;
    }
    return rc;
}

/* Labels: one integer per line (fgl__g_check_label), exactly n lines, into
 * y (room for min(n, lines of the file)); fgl__g_check_classes, n_classes =
 * max + 1. */
static int fgl__g_read_labels(fgl__g_txt *t, int n, int *y, int *n_classes) {
    int rc, cnt = 0;
    while ((rc = fgl__g_txt_more(t)) > 0) {
        int v;
        if (cnt >= n) return fgl__g_txt_fail(t, FGL_ERR_SHAPE, "more labels than the %d nodes", n);
        if ((rc = fgl__g_txt_int(t, &v, "label")) != 0) return rc;
        if ((rc = fgl__g_check_label(t, v)) != 0) return rc;
        if ((rc = fgl__g_txt_eol(t)) != 0) return rc;
        y[cnt++] = v;
    }
    if (rc < 0) return rc;
    if (cnt != n) return fgl__g_txt_fail(t, FGL_ERR_SHAPE, "%d labels for %d nodes", cnt, n);
    return fgl__g_check_classes(t, y, n, n_classes);
}

/* Edges "u v" (0-based, < n) -> a symmetric graph without self loops. */
static int fgl__g_read_edges(fgl__g_txt *t, int n, fgl_csr *adj) {
    size_t cap = fgl__g_txt_lines(t);
    int *src = FGL__G_NEW(int, cap), *dst = FGL__G_NEW(int, cap), m = 0, rc;
    if (!src || !dst) {
        rc = fgl_error_set(t->err, FGL_ERR_NOMEM, "%s: out of memory", t->path);
        goto done;
    }
    while ((rc = fgl__g_txt_more(t)) > 0) {
        int u, v;
        if ((rc = fgl__g_txt_int(t, &u, "node id")) != 0) goto done;
        fgl__g_txt_sep(t);
        if ((rc = fgl__g_txt_int(t, &v, "node id")) != 0) goto done;
        if (u < 0 || u >= n || v < 0 || v >= n) {
            rc = fgl__g_txt_fail(t, FGL_ERR_RANGE, "node id %d outside 0..%d", (u < 0 || u >= n) ? u : v, n - 1);
            goto done;
        }
        if ((rc = fgl__g_txt_eol(t)) != 0) goto done;
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

/* The header of NAME.features: "n f" (dense rows) or "n f nnz" (sparse
 * triplets; *nnz = -1 for dense). Checked against the caps and the file's
 * own length (n x f values of at least 2 bytes, or nnz triplets of at least
 * 6); nothing is allocated. n is checked against NAME.labels next. */
static int fgl__g_read_features_header(fgl__g_txt *t, int *n_out, int *f_out, int *nnz_out) {
    int n, f, nnz = -1, rc;
    size_t avail = (size_t)(t->end - t->p) + 1;
    if ((rc = fgl__g_txt_more(t)) <= 0)
        return rc < 0 ? rc : fgl__g_txt_fail(t, FGL_ERR_EMPTY, "empty file: no header \"nodes features [nnz]\"");
    if ((rc = fgl__g_txt_int(t, &n, "node count")) != 0) return rc;
    if ((rc = fgl__g_txt_int(t, &f, "feature count")) != 0) return rc;
    if (!fgl__g_txt_at_eol(t) && (rc = fgl__g_txt_int(t, &nnz, "non-zero count")) != 0) return rc;
    if ((rc = fgl__g_txt_eol(t)) != 0) return rc;
    if (n < 0 || f < 0 || nnz < -1)
        return fgl__g_txt_fail(t, FGL_ERR_RANGE, "negative count in the header (%d %d %d)", n, f, nnz);
    if (n == 0 || f == 0)
        return fgl__g_txt_fail(t, FGL_ERR_EMPTY, "empty dataset: %d nodes, %d features", n, f);
    if (f > FGL_MAX_FEATURES)
        return fgl__g_txt_fail(t, FGL_ERR_RANGE, "feature count %d: at most %d (FGL_MAX_FEATURES)", f,
                               FGL_MAX_FEATURES);
    if (nnz < 0 && (double)n * f * 2.0 > (double)avail)
        return fgl__g_txt_fail(t, FGL_ERR_FORMAT, "truncated: the header announces %d x %d values", n, f);
    if (nnz >= 0 && (double)nnz * 6.0 > (double)avail + 1.0)
        return fgl__g_txt_fail(t, FGL_ERR_FORMAT, "truncated: the header announces %d triplets", nnz);
    *n_out = n;
    *f_out = f;
    *nnz_out = nnz;
    return FGL_OK;
}

/* The rows or triplets after the header into d->x or d->x_sparse. */
static int fgl__g_read_features_body(fgl__g_txt *t, int n, int f, int nnz, fgl_node_data *d) {
    int rc, i, j;
    if (nnz < 0) { /* dense: every value is written below, so no zero fill */
        d->x.data = FGL__G_NEW2(float, n, f);
        if (!d->x.data) return fgl_error_set(t->err, FGL_ERR_NOMEM, "%s: out of memory", t->path);
        d->x.rows = n;
        d->x.cols = f;
        d->x.owns = 1;
        for (i = 0; i < n; i++) {
            float *row = d->x.data + (size_t)i * (size_t)f;
            if ((rc = fgl__g_txt_more(t)) <= 0)
                return rc < 0 ? rc : fgl__g_txt_fail(t, FGL_ERR_FORMAT, "truncated: %d of %d rows", i, n);
            for (j = 0; j < f; j++) {
                const char *p = t->p, *q = p;
                int v = 0;
                /* fast path: a small non-negative integer (binary features) */
                while (q < t->end && *q >= '0' && *q <= '9' && q - p < 7) v = v * 10 + (*q++ - '0');
                if (q > p && (q >= t->end || fgl__g_is_delim(*q))) {
                    row[j] = (float)v;
                    while (q < t->end && (*q == ' ' || *q == '\t')) q++;
                    t->p = q;
                    if (q < t->end && (*q == ',' || *q == '\r')) fgl__g_txt_sep(t);
                    continue;
                }
                if (fgl__g_txt_at_eol(t)) {
                    if (t->p >= t->end)
                        return fgl__g_txt_fail(t, FGL_ERR_FORMAT,
                                               "truncated: the file ends after %d of %d values of row %d", j, f, i + 1);
                    return fgl__g_txt_fail(t, FGL_ERR_SHAPE, "row %d has %d values, expected %d", i + 1, j, f);
                }
                if ((rc = fgl__g_txt_float(t, &row[j], "feature value")) != 0) return rc;
                fgl__g_txt_sep(t);
            }
            if (!fgl__g_txt_at_eol(t))
                return fgl__g_txt_fail(t, FGL_ERR_SHAPE, "row %d has more than %d values", i + 1, f);
            if ((rc = fgl__g_txt_eol(t)) != 0) return rc;
        }
        if ((rc = fgl__g_txt_more(t)) != 0)
            return rc < 0 ? rc : fgl__g_txt_fail(t, FGL_ERR_SHAPE, "more rows than the %d of the header", n);
    } else { /* sparse */
        int *r, *c, k = 0;
        float *v;
        r = FGL__G_NEW(int, nnz);
        c = FGL__G_NEW(int, nnz);
        v = FGL__G_NEW(float, nnz);
        if (!r || !c || !v) {
            rc = fgl_error_set(t->err, FGL_ERR_NOMEM, "%s: out of memory", t->path);
            goto sparse_done;
        }
        while ((rc = fgl__g_txt_more(t)) > 0) {
            if (k >= nnz) {
                rc = fgl__g_txt_fail(t, FGL_ERR_SHAPE, "more triplets than the %d of the header", nnz);
                goto sparse_done;
            }
            if ((rc = fgl__g_txt_int(t, &r[k], "node id")) != 0) goto sparse_done;
            fgl__g_txt_sep(t);
            if ((rc = fgl__g_txt_int(t, &c[k], "feature id")) != 0) goto sparse_done;
            fgl__g_txt_sep(t);
            if ((rc = fgl__g_txt_float(t, &v[k], "feature value")) != 0) goto sparse_done;
            if (r[k] < 0 || r[k] >= n) {
                rc = fgl__g_txt_fail(t, FGL_ERR_RANGE, "node id %d outside 0..%d", r[k], n - 1);
                goto sparse_done;
            }
            if (c[k] < 0 || c[k] >= f) {
                rc = fgl__g_txt_fail(t, FGL_ERR_RANGE, "feature id %d outside 0..%d", c[k], f - 1);
                goto sparse_done;
            }
            if ((rc = fgl__g_txt_eol(t)) != 0) goto sparse_done;
            k++;
        }
        if (rc < 0) goto sparse_done;
        if (k != nnz) {
            rc = fgl__g_txt_fail(t, FGL_ERR_FORMAT, "truncated: %d of the %d triplets of the header", k, nnz);
            goto sparse_done;
        }
        rc = fgl_csr_from_coo(n, f, nnz, r, c, v, 1, &d->x_sparse, t->err);
        if (rc) {
            rc = fgl_error_set(t->err, rc, "%s: out of memory", t->path);
            goto sparse_done;
        }
        /* every value was finite, but duplicates are summed: 2 x 3e38 is Inf */
        for (i = 0; i < n && !rc; i++)
            for (k = d->x_sparse.indptr[i]; k < d->x_sparse.indptr[i + 1]; k++)
                if (!fgl_all_finite(1, &d->x_sparse.values[k])) {
                    rc = fgl_error_set(t->err, FGL_ERR_NONFINITE,
                                       "%s: node %d, feature %d: its triplets sum to %g, not a finite float", t->path,
                                       i, d->x_sparse.indices[k], (double)d->x_sparse.values[k]);
                    break;
                }
    sparse_done:
        FGL_FREE(r);
        FGL_FREE(c);
        FGL_FREE(v);
        return rc;
    }
    return FGL_OK;
}

FGLDEF int fgl_load_node(const char *dir, const char *name, fgl_node_data *out, fgl_error *err) {
    /* The features header first (checked against its own file's length),
     * then the labels, whose number must equal the header's node count and
     * whose array is sized by the labels file's lines: the header's counts
     * are trusted for allocation only once two files agree on them. */
    fgl__g_txt tf, t;
    int rc, n = 0, f = 0, nnz = -1;
    memset(out, 0, sizeof *out);
    memset(&t, 0, sizeof t);
    if ((rc = fgl__g_txt_open_in(&tf, dir, name, ".features", err)) != 0 ||
        (rc = fgl__g_read_features_header(&tf, &n, &f, &nnz)) != 0)
        goto fail;
    if ((rc = fgl__g_txt_open_in(&t, dir, name, ".labels", err)) != 0) goto fail;
    {
        size_t lines = fgl__g_txt_lines(&t);
        out->y = FGL__G_NEW(int, lines < (size_t)n ? lines : (size_t)n);
    }
    if (!out->y) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", t.path);
        goto fail;
    }
    if ((rc = fgl__g_read_labels(&t, n, out->y, &out->n_classes)) != 0) goto fail;
    out->n_nodes = n;
    out->n_feat = f;
    if ((rc = fgl__g_read_features_body(&tf, n, f, nnz, out)) != 0) goto fail;
    rc = nnz < 0 ? fgl__g_nonzero(tf.path, out->x.data, (size_t)n * (size_t)f, n, f, "feature", err)
                 : fgl__g_nonzero(tf.path, out->x_sparse.values, (size_t)out->x_sparse.nnz, n, f, "feature", err);
    if (rc) goto fail;
    fgl__g_txt_close(&tf);
    fgl__g_txt_close(&t);
    if ((rc = fgl__g_txt_open_in(&t, dir, name, ".edges", err)) != 0 ||
        (rc = fgl__g_read_edges(&t, n, &out->adj)) != 0)
        goto fail;
    fgl__g_txt_close(&t);
    rc = fgl__g_txt_open_optional(&t, dir, name, ".split", err);
    if (rc < 0) goto fail;
    if (rc == 1) {
        int cnt = 0;
        out->split = FGL__G_NEW(unsigned char, n);
        if (!out->split) {
            rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", t.path);
            goto fail;
        }
        while ((rc = fgl__g_txt_more(&t)) > 0) {
            int v;
            if (cnt >= n) {
                rc = fgl__g_txt_fail(&t, FGL_ERR_SHAPE, "more split codes than the %d nodes", n);
                goto fail;
            }
            if ((rc = fgl__g_txt_int(&t, &v, "split code")) != 0) goto fail;
            if (v < 0 || v > 3) {
                rc = fgl__g_txt_fail(&t, FGL_ERR_RANGE, "split code %d outside 0..3", v);
                goto fail;
            }
            if ((rc = fgl__g_txt_eol(&t)) != 0) goto fail;
            out->split[cnt++] = (unsigned char)(v == 1 ? FGL_SPLIT_TRAIN : v == 2 ? FGL_SPLIT_VAL
                                                : v == 3 ? FGL_SPLIT_TEST : FGL_SPLIT_NONE);
        }
        if (rc < 0) goto fail;
        if (cnt != n) {
            rc = fgl__g_txt_fail(&t, FGL_ERR_SHAPE, "%d split codes for %d nodes", cnt, n);
            goto fail;
        }
    }
    fgl__g_txt_close(&t);
    fgl__g_name_copy(out->name, name);
    fgl_error_clear(err);
    return FGL_OK;
fail:
    fgl__g_txt_close(&tf);
    fgl__g_txt_close(&t);
    fgl_node_data_free(out);
    return rc;
}

/* --- writers -------------------------------------------------------------- */

static void fgl__g_put_int(fgl_bytes *b, long long v) {
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
static void fgl__g_put_float(fgl_bytes *b, float v) {
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    if (v > -16777216.0f && v < 16777216.0f && v == (float)(int)v && !(bits >> 31 && v == 0)) {
        fgl__g_put_int(b, (long long)v);
    } else {
        char tmp[32];
        int n = snprintf(tmp, sizeof tmp, "%.9g", (double)v);
        if (n > 0) fgl_bytes_put(b, tmp, (size_t)n);
    }
}

static void fgl__g_put_str(fgl_bytes *b, const char *s) { fgl_bytes_put(b, s, strlen(s)); }

/* Write b to dir/name+suffix and reset it. */
static int fgl__g_flush_file(fgl_bytes *b, const char *dir, const char *name, const char *suffix,
                           fgl_error *err) {
    char *path = fgl__g_path(dir, name, suffix);
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
                fgl__g_put_int(&b, i);
                fgl__g_put_str(&b, " ");
                fgl__g_put_int(&b, d->adj.indices[k]);
                fgl__g_put_str(&b, "\n");
            }
    if ((rc = fgl__g_flush_file(&b, dir, name, ".edges", err)) != 0) goto done;
    for (i = 0; i < n; i++) {
        fgl__g_put_int(&b, d->y ? d->y[i] : -1);
        fgl__g_put_str(&b, "\n");
    }
    if ((rc = fgl__g_flush_file(&b, dir, name, ".labels", err)) != 0) goto done;
    fgl__g_put_int(&b, n);
    fgl__g_put_str(&b, " ");
    fgl__g_put_int(&b, d->n_feat);
    if (d->x_sparse.indptr) {
        fgl__g_put_str(&b, " ");
        fgl__g_put_int(&b, d->x_sparse.nnz);
        fgl__g_put_str(&b, "\n");
        for (i = 0; i < d->x_sparse.rows; i++)
            for (k = d->x_sparse.indptr[i]; k < d->x_sparse.indptr[i + 1]; k++) {
                fgl__g_put_int(&b, i);
                fgl__g_put_str(&b, " ");
                fgl__g_put_int(&b, d->x_sparse.indices[k]);
                fgl__g_put_str(&b, " ");
                fgl__g_put_float(&b, d->x_sparse.values ? d->x_sparse.values[k] : 1.0f);
                fgl__g_put_str(&b, "\n");
            }
    } else {
        fgl__g_put_str(&b, "\n");
        for (i = 0; i < d->x.rows; i++) {
            for (j = 0; j < d->x.cols; j++) {
                if (j) fgl__g_put_str(&b, " ");
                fgl__g_put_float(&b, FGL_AT(&d->x, i, j));
            }
            fgl__g_put_str(&b, "\n");
        }
    }
    if ((rc = fgl__g_flush_file(&b, dir, name, ".features", err)) != 0) goto done;
    if (d->split) {
        for (i = 0; i < n; i++) {
            fgl__g_put_int(&b, d->split[i]);
            fgl__g_put_str(&b, "\n");
        }
        if ((rc = fgl__g_flush_file(&b, dir, name, ".split", err)) != 0) goto done;
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
            fgl__g_put_int(&b, i + 1);
            fgl__g_put_str(&b, ", ");
            fgl__g_put_int(&b, s->adj.indices[k] + 1);
            fgl__g_put_str(&b, "\n");
        }
    if ((rc = fgl__g_flush_file(&b, dir, name, "_A.txt", err)) != 0) goto done;
    for (g = 0; g < s->n_graphs; g++)
        for (i = s->node_ptr[g]; i < s->node_ptr[g + 1]; i++) {
            fgl__g_put_int(&b, g + 1);
            fgl__g_put_str(&b, "\n");
        }
    if ((rc = fgl__g_flush_file(&b, dir, name, "_graph_indicator.txt", err)) != 0) goto done;
    for (g = 0; g < s->n_graphs; g++) {
        fgl__g_put_int(&b, s->y ? s->y[g] : 0);
        fgl__g_put_str(&b, "\n");
    }
    if ((rc = fgl__g_flush_file(&b, dir, name, "_graph_labels.txt", err)) != 0) goto done;
    if (s->node_labels) {
        for (i = 0; i < s->n_nodes; i++) {
            fgl__g_put_int(&b, s->node_labels[i]);
            fgl__g_put_str(&b, "\n");
        }
        if ((rc = fgl__g_flush_file(&b, dir, name, "_node_labels.txt", err)) != 0) goto done;
    }
    if (s->node_attr && s->n_node_attr > 0) {
        for (i = 0; i < s->n_nodes; i++) {
            for (k = 0; k < s->n_node_attr; k++) {
                if (k) fgl__g_put_str(&b, ", ");
                fgl__g_put_float(&b, s->node_attr[(size_t)i * (size_t)s->n_node_attr + (size_t)k]);
            }
            fgl__g_put_str(&b, "\n");
        }
        if ((rc = fgl__g_flush_file(&b, dir, name, "_node_attributes.txt", err)) != 0) goto done;
    }
done:
    fgl_bytes_free(&b);
    return rc;
}

/* --- LINQS loader --------------------------------------------------------- */

typedef struct fgl__g_strref {
    const char *p;
    int len, idx;
} fgl__g_strref;

static int fgl__g_cmp_strref(const void *a, const void *b) {
    const fgl__g_strref *x = (const fgl__g_strref *)a, *y = (const fgl__g_strref *)b;
    int n = x->len < y->len ? x->len : y->len, c = n ? memcmp(x->p, y->p, (size_t)n) : 0;
    if (c) return c;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static uint32_t fgl__g_hash_bytes(const char *p, int len) {
    uint32_t h = 2166136261u;
    int i;
    for (i = 0; i < len; i++) {
        h ^= (unsigned char)p[i];
        h *= 16777619u;
    }
    return h;
}

/* Open-addressing table from string ids to node indices. */
typedef struct fgl__g_idmap {
    int *slot;             /* node index or -1 */
    uint32_t mask;
    const fgl__g_strref *ids;
} fgl__g_idmap;

static int fgl__g_idmap_find(const fgl__g_idmap *m, const char *p, int len, uint32_t *where) {
    uint32_t h = fgl__g_hash_bytes(p, len) & m->mask;
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
static int fgl__g_count_words(const fgl__g_txt *t) {
    const char *p = t->p;
    int n = 0;
    for (;;) {
        while (p < t->end && fgl__g_is_blank(*p)) p++;
        if (p >= t->end || *p == '\n') return n;
        n++;
        while (p < t->end && !fgl__g_is_blank(*p) && *p != '\n') p++;
    }
}

FGLDEF int fgl_load_linqs(const char *dir, const char *name, fgl_node_data *out, int *n_dropped,
                          fgl_error *err) {
    fgl__g_txt t, tc;
    fgl__g_strref *ids = NULL, *cls = NULL;
    fgl__g_idmap map;
    fgl__g_ivec col = {NULL, 0, 0};
    fgl__g_fvec val = {NULL, 0, 0};
    int *ptr = NULL, *src = NULL, *dst = NULL, *lines = NULL;
    int rc, n = 0, F = -1, ntok = 0, i, m = 0, dropped = 0;
    size_t cap;
    memset(out, 0, sizeof *out);
    memset(&t, 0, sizeof t);
    memset(&tc, 0, sizeof tc);
    memset(&map, 0, sizeof map);
    if (n_dropped) *n_dropped = 0;
    if ((rc = fgl__g_txt_open_in(&tc, dir, name, ".content", err)) != 0) goto fail;
    cap = fgl__g_txt_lines(&tc);
    ids = FGL__G_NEW(fgl__g_strref, cap);
    cls = FGL__G_NEW(fgl__g_strref, cap);
    ptr = FGL__G_NEW(int, cap + 1);
    lines = FGL__G_NEW(int, cap);
    if (!ids || !cls || !ptr || !lines) goto nomem;
    ptr[0] = 0;
    while ((rc = fgl__g_txt_more(&tc)) > 0) {
        int words = fgl__g_count_words(&tc), j;
        if (F < 0) {
            if (words < 3) {
                rc = fgl__g_txt_fail(&tc, FGL_ERR_SHAPE, "%d fields: expected an id, features and a class", words);
                goto fail;
            }
            ntok = words;
            F = words - 2;
        } else if (words != ntok) {
            rc = fgl__g_txt_fail(&tc, FGL_ERR_SHAPE, "%d fields, the first line has %d", words, ntok);
            goto fail;
        }
        if ((rc = fgl__g_txt_word(&tc, &ids[n].p, &ids[n].len, "paper id")) != 0) goto fail;
        ids[n].idx = n;
        lines[n] = tc.line;
        for (j = 0; j < F; j++) {
            float v;
            if ((rc = fgl__g_txt_float(&tc, &v, "feature value")) != 0) goto fail;
            if (v != 0.0f && (fgl__g_ivec_push(&col, j) || fgl__g_fvec_push(&val, v))) goto nomem;
        }
        if ((rc = fgl__g_txt_word(&tc, &cls[n].p, &cls[n].len, "class")) != 0) goto fail;
        cls[n].idx = n;
        if ((rc = fgl__g_txt_eol(&tc)) != 0) goto fail;
        if (col.n > (size_t)INT_MAX) goto nomem;
        ptr[++n] = (int)col.n;
    }
    if (rc < 0) goto fail;
    if (n == 0) {
        rc = fgl__g_txt_fail(&tc, FGL_ERR_EMPTY, "no nodes: the dataset is empty");
        goto fail;
    }
    if (col.n == 0) { /* only non-zero values were kept */
        rc = fgl__g_nonzero(tc.path, NULL, 0, n, F, "feature", err);
        goto fail;
    }
    /* id table; duplicates are an error */
    {
        uint32_t size = 16;
        while (size < (uint32_t)n * 2u) size *= 2;
        map.slot = FGL__G_NEW(int, size);
        if (!map.slot) goto nomem;
        for (i = 0; i < (int)size; i++) map.slot[i] = -1;
        map.mask = size - 1;
        map.ids = ids;
        for (i = 0; i < n; i++) {
            uint32_t where = 0;
            int k = fgl__g_idmap_find(&map, ids[i].p, ids[i].len, &where);
            if (k >= 0) {
                char tok[40];
                fgl__g_tok(ids[i].p, tc.end, tok, sizeof tok);
                tc.line = lines[i];
                rc = fgl__g_txt_fail(&tc, FGL_ERR_FORMAT, "id '%s' already used on line %d", tok, lines[k]);
                goto fail;
            }
            map.slot[where] = i;
        }
    }
    /* classes: ranks of the distinct strings in sorted order */
    out->y = FGL__G_NEW(int, n);
    if (!out->y) goto nomem;
    qsort(cls, (size_t)n, sizeof *cls, fgl__g_cmp_strref);
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
    if ((rc = fgl__g_txt_open_in(&t, dir, name, ".cites", err)) != 0) goto fail;
    cap = fgl__g_txt_lines(&t);
    src = FGL__G_NEW(int, cap);
    dst = FGL__G_NEW(int, cap);
    if (!src || !dst) goto nomem;
    while ((rc = fgl__g_txt_more(&t)) > 0) {
        const char *a, *b;
        int la, lb, ia, ib;
        if ((rc = fgl__g_txt_word(&t, &a, &la, "cited id")) != 0 ||
            (rc = fgl__g_txt_word(&t, &b, &lb, "citing id")) != 0 || (rc = fgl__g_txt_eol(&t)) != 0)
            goto fail;
        ia = fgl__g_idmap_find(&map, a, la, NULL);
        ib = fgl__g_idmap_find(&map, b, lb, NULL);
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
    fgl__g_name_copy(out->name, name);
    if (n_dropped) *n_dropped = dropped;
    fgl_error_clear(err);
    goto done;
nomem:
    rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory",
                       t.path ? t.path : tc.path ? tc.path : "load_linqs");
fail:
    fgl_node_data_free(out);
done:
    fgl__g_txt_close(&t);
    fgl__g_txt_close(&tc);
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

/* --- CSV loader ----------------------------------------------------------- */

FGLDEF int fgl_load_csv(const char *edge_path, const char *feat_path, const char *label_path,
                        fgl_node_data *out, fgl_error *err) {
    static const fgl__g_rows_words words = {"feature value", "values", "row", "feature rows", "labels"};
    fgl__g_txt t;
    int rc, n = 0, i, w = 0;
    memset(out, 0, sizeof *out);
    memset(&t, 0, sizeof t);
    if (!edge_path || !feat_path || !label_path)
        return fgl_error_set(err, FGL_ERR_ARG, "load_csv: a path is NULL");
    /* labels: one integer per node */
    if ((rc = fgl__g_txt_open(&t, label_path, err)) != 0) goto fail;
    if ((rc = fgl__g_read_int_lines(&t, &out->y, &n, "label")) != 0) goto fail;
    for (i = 0; i < n; i++) {
        t.line = i + 1;
        if ((rc = fgl__g_check_label(&t, out->y[i])) != 0) goto fail;
    }
    if (n == 0) {
        rc = fgl__g_txt_fail(&t, FGL_ERR_EMPTY, "no labels: the dataset is empty");
        goto fail;
    }
    if ((rc = fgl__g_check_classes(&t, out->y, n, &out->n_classes)) != 0) goto fail;
    out->n_nodes = n;
    fgl__g_txt_close(&t);
    /* features: the first row sets the width */
    if ((rc = fgl__g_txt_open(&t, feat_path, err)) != 0) goto fail;
    if ((rc = fgl__g_row_width(&t, &words, &w)) != 0) goto fail;
    if (w == 0) {
        rc = fgl__g_txt_fail(&t, FGL_ERR_EMPTY, "no features");
        goto fail;
    }
    if ((double)n * w * 2.0 > (double)(t.end - t.buf) + 1.0) {
        rc = fgl__g_txt_fail(&t, FGL_ERR_SHAPE, "%d labels, but the file cannot hold %d rows of %d values", n, n, w);
        goto fail;
    }
    if (fgl_tensor_init(&out->x, n, w)) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", feat_path);
        goto fail;
    }
    if ((rc = fgl__g_read_rows(&t, out->x.data, n, w, &words)) != 0) goto fail;
    if ((rc = fgl__g_nonzero(t.path, out->x.data, (size_t)n * (size_t)w, n, w, "feature", err)) != 0) goto fail;
    out->n_feat = w;
    fgl__g_txt_close(&t);
    /* edges */
    if ((rc = fgl__g_txt_open(&t, edge_path, err)) != 0) goto fail;
    if ((rc = fgl__g_read_edges(&t, n, &out->adj)) != 0) goto fail;
    fgl__g_txt_close(&t);
    fgl_error_clear(err);
    return FGL_OK;
fail:
    fgl__g_txt_close(&t);
    fgl_node_data_free(out);
    return rc;
}

/* --- the data directory -------------------------------------------------------------- */

static int fgl__is_dir(const char *path) {
#if defined(__unix__) || defined(__APPLE__)
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
#else
    char p[1100];
    FILE *f;
    snprintf(p, sizeof p, "%s/.", path); /* a directory opens for reading on POSIX systems */
    if (!(f = fopen(p, "rb"))) return 0;
    fclose(f);
    return 1;
#endif
}

/* The per-user directory ($XDG_DATA_HOME/fgl or $HOME/.local/share/fgl);
 * 0 when neither variable is set. */
static int fgl__user_data_dir(char *buf, size_t cap) {
    const char *x = getenv("XDG_DATA_HOME"), *h = getenv("HOME");
    if (x && *x) snprintf(buf, cap, "%s/fgl", x);
    else if (h && *h) snprintf(buf, cap, "%s/.local/share/fgl", h);
    else return 0;
    return 1;
}

/* Where the rule looks, for messages: "$FGL_DATA is not set; ./data does
 * not exist; /home/me/.local/share/fgl does not exist". */
static void fgl__data_dir_tried(char *buf, size_t cap) {
    const char *e = getenv("FGL_DATA");
    char user[1024];
    user[0] = 0;
    if (e && *e) {
        snprintf(buf, cap, "$FGL_DATA=%s%s", e, fgl__is_dir(e) ? "" : " (does not exist)");
        return;
    }
    if (!fgl__user_data_dir(user, sizeof user)) snprintf(user, sizeof user, "$XDG_DATA_HOME and $HOME are not set");
    else
        snprintf(user + strlen(user), sizeof user - strlen(user), "%s",
                 fgl__is_dir(user) ? " exists" : " does not exist");
    snprintf(buf, cap, "$FGL_DATA is not set; ./data %s; %s", fgl__is_dir("data") ? "exists" : "does not exist", user);
}

FGLDEF int fgl_data_dir(char *buf, size_t cap, fgl_error *err) {
    const char *e = getenv("FGL_DATA");
    char user[1024], tried[2400];
    user[0] = 0;
    if (!buf || cap == 0) return fgl_error_set(err, FGL_ERR_ARG, "data directory: no buffer");
    if (e && *e) snprintf(buf, cap, "%s", e);
    else if (fgl__is_dir("data")) snprintf(buf, cap, "data");
    else if (fgl__user_data_dir(user, sizeof user) && fgl__is_dir(user)) snprintf(buf, cap, "%s", user);
    else {
        snprintf(buf, cap, "data");
        fgl__data_dir_tried(tried, sizeof tried);
        return fgl_error_set(err, FGL_ERR_IO, "no data directory (%s): set FGL_DATA=DIR, or fetch the datasets into "
                             "./data with `make data`", tried);
    }
    return FGL_OK;
}
/* --- src/graph/npz.h --- */
/* --- .npy -------------------------------------------------------------------- */

FGLDEF int fgl_npy_dtype(fgl_npy *a, const char *descr, size_t len, const char *what, fgl_error *err) {
    char buf[16];
    size_t i = 0;
    if (len == 0 || len >= sizeof buf)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: dtype '%.*s'", what, (int)(len < 40 ? len : 40), descr);
    memcpy(buf, descr, len);
    buf[len] = 0;
    a->big = 0;
    if (buf[0] == '<' || buf[0] == '|' || buf[0] == '=') i = 1;
    else if (buf[0] == '>') {
        a->big = 1;
        i = 1;
    }
    a->kind = buf[i];
    a->size = atoi(buf + i + 1);
    if (!strchr("biuf", a->kind) || buf[i] == 0 || !(a->size == 1 || a->size == 2 || a->size == 4 || a->size == 8) ||
        (a->kind == 'f' && a->size < 4) || (a->kind == 'b' && a->size != 1))
        return fgl_error_set(err, FGL_ERR_UNSUPPORTED,
                             "%s: dtype '%s' (fgl reads bool, integer and float32/64 arrays, not objects or strings)",
                             what, buf);
    return FGL_OK;
}

/* Element k's bytes in a 64-bit container, least significant first. */
static uint64_t fgl__npy_bits(const fgl_npy *a, long long k) {
    const unsigned char *b = a->data + (size_t)k * (size_t)a->size;
    uint64_t v = 0;
    int j;
    for (j = 0; j < a->size; j++) v |= (uint64_t)b[a->big ? a->size - 1 - j : j] << (8 * j);
    return v;
}

FGLDEF double fgl_npy_f64(const fgl_npy *a, long long k) {
    uint64_t v = fgl__npy_bits(a, k);
    if (a->kind == 'f') {
        if (a->size == 4) {
            uint32_t u = (uint32_t)v;
            float f;
            memcpy(&f, &u, 4);
            return f;
        } else {
            double d;
            memcpy(&d, &v, 8);
            return d;
        }
    }
    if (a->kind == 'i' && a->size < 8 && (v >> (8 * a->size - 1)) & 1) v |= ~(uint64_t)0 << (8 * a->size);
    if (a->kind == 'i') return (double)(int64_t)v;
    return (double)v;
}

FGLDEF long long fgl_npy_i64(const fgl_npy *a, long long k, int *bad) {
    double d;
    uint64_t v;
    if (a->kind != 'f') {
        v = fgl__npy_bits(a, k);
        if (a->kind == 'i' && a->size < 8 && (v >> (8 * a->size - 1)) & 1) v |= ~(uint64_t)0 << (8 * a->size);
        if (a->kind != 'i' && a->size == 8 && v > (uint64_t)LLONG_MAX) {
            *bad = 1;
            return 0;
        }
        return (long long)(int64_t)v;
    }
    d = fgl_npy_f64(a, k);
    if (!(d >= -9e15 && d <= 9e15) || d != (double)(long long)d) {
        *bad = 1;
        return 0;
    }
    return (long long)d;
}

FGLDEF long long fgl_npy_at(const fgl_npy *a, long long i, long long j) {
    return a->fortran ? j * a->shape[0] + i : i * a->shape[1] + j;
}

/* The value after 'key': in a header dict h[0..n-1], or NULL. */
static const char *fgl__npy_key(const char *h, size_t n, const char *key) {
    size_t k = strlen(key), i;
    for (i = 0; i + k + 2 <= n; i++)
        if ((h[i] == '\'' || h[i] == '"') && !memcmp(h + i + 1, key, k) && h[i + 1 + k] == h[i]) {
            const char *p = h + i + k + 2;
            while (p < h + n && (*p == ' ' || *p == ':')) p++;
            return p;
        }
    return NULL;
}

FGLDEF int fgl_npy_parse(const unsigned char *d, size_t len, const char *what, fgl_npy *out, fgl_error *err) {
    size_t hl, off, need;
    const char *h, *p, *end;
    int rc, i;
    memset(out, 0, sizeof *out);
    if (len < 10 || memcmp(d, "\x93NUMPY", 6) != 0)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: not a .npy file (no \\x93NUMPY magic)", what);
    if (d[6] == 1) {
        hl = (size_t)d[8] | (size_t)d[9] << 8;
        off = 10;
    } else if ((d[6] == 2 || d[6] == 3) && len >= 12) {
        hl = (size_t)d[8] | (size_t)d[9] << 8 | (size_t)d[10] << 16 | (size_t)d[11] << 24;
        off = 12;
    } else {
        return fgl_error_set(err, FGL_ERR_UNSUPPORTED, "%s: .npy format version %d.%d", what, d[6], d[7]);
    }
    if (hl > len - off) return fgl_error_set(err, FGL_ERR_FORMAT, "%s: truncated header", what);
    h = (const char *)d + off;
    end = h + hl;
    if (!(p = fgl__npy_key(h, hl, "descr")) || p >= end || (*p != '\'' && *p != '"'))
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: header without 'descr' (or a structured dtype)", what);
    else {
        const char *q = p + 1 < end ? (const char *)memchr(p + 1, *p, (size_t)(end - p - 1)) : NULL;
        if (!q) return fgl_error_set(err, FGL_ERR_FORMAT, "%s: unterminated 'descr'", what);
        if ((rc = fgl_npy_dtype(out, p + 1, (size_t)(q - p - 1), what, err)) != FGL_OK) return rc;
    }
    if (!(p = fgl__npy_key(h, hl, "fortran_order")))
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: header without 'fortran_order'", what);
    out->fortran = end - p >= 4 && !memcmp(p, "True", 4);
    if (!(p = fgl__npy_key(h, hl, "shape")) || p >= end || *p != '(')
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: header without 'shape'", what);
    out->ndim = 0;
    out->count = 1;
    for (p++; p < end && *p != ')';) {
        long long v = 0;
        const char *e = p;
        while (p < end && (*p == ' ' || *p == ',')) p++;
        if (p >= end || *p == ')') break;
        for (e = p; e < end && *e >= '0' && *e <= '9' && v < (1ll << 50); e++) v = v * 10 + (*e - '0');
        if (e == p || (e < end && *e >= '0' && *e <= '9'))
            return fgl_error_set(err, FGL_ERR_FORMAT, "%s: a bad dimension in 'shape'", what);
        if (out->ndim == 2)
            return fgl_error_set(err, FGL_ERR_UNSUPPORTED, "%s: shape is not 0-, 1- or 2-dimensional", what);
        out->shape[out->ndim++] = v;
        if (v > 0 && out->count > (long long)(len / (size_t)v))
            return fgl_error_set(err, FGL_ERR_FORMAT, "%s: shape larger than the file", what);
        out->count *= v;
        p = e;
    }
    if (p >= end) return fgl_error_set(err, FGL_ERR_FORMAT, "%s: unterminated 'shape'", what);
    for (i = out->ndim; i < 2; i++) out->shape[i] = 1;
    off += hl;
    need = (size_t)out->count * (size_t)out->size;
    if (len - off != need)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: %zu data bytes for %lld elements of %d bytes", what, len - off,
                             out->count, out->size);
    out->data = d + off;
    return FGL_OK;
}

/* --- DEFLATE (RFC 1951) ----------------------------------------------------------- */

typedef struct fgl__infl {
    const unsigned char *src;
    size_t n, pos;
    uint32_t bits;
    int nbits;
    unsigned char *dst;
    size_t cap, out;
    const char *what;
    fgl_error *err;
} fgl__infl;

/* A canonical Huffman code: count[l] codes of length l, symbols sorted by
 * (length, value). fast[] decodes the codes of up to FGL__INFL_FAST bits at
 * once: entry = symbol << 4 | length, 0 for a longer (or unused) code. */
#define FGL__INFL_FAST 9
typedef struct fgl__huff {
    unsigned short count[16];
    unsigned short sym[288];
    unsigned short fast[1 << FGL__INFL_FAST];
} fgl__huff;

static int fgl__infl_fail(fgl__infl *s, const char *why) {
    return fgl_error_set(s->err, FGL_ERR_FORMAT, "%s: corrupt DEFLATE data: %s (at compressed byte %zu)", s->what, why,
                         s->pos);
}

/* Up to 24 bits, least significant first; -1 past the end of the input. */
static int fgl__infl_need(fgl__infl *s, int k) {
    while (s->nbits < k) {
        if (s->pos >= s->n) return -1;
        s->bits |= (uint32_t)s->src[s->pos++] << s->nbits;
        s->nbits += 8;
    }
    return 0;
}

static int fgl__infl_bits(fgl__infl *s, int k, int *v) {
    *v = 0;
    if (fgl__infl_need(s, k)) return fgl__infl_fail(s, "the stream ends early (truncated?)");
    *v = (int)(s->bits & ((1u << k) - 1u));
    s->bits >>= k;
    s->nbits -= k;
    return FGL_OK;
}

/* Builds h from len[0..n-1]; an over-subscribed set of lengths is refused,
 * an incomplete one accepted (its unused codes are refused when met). */
static int fgl__huff_build(fgl__infl *s, fgl__huff *h, const unsigned char *len, int n, const char *which) {
    unsigned short offs[16];
    int l, i, left = 1;
    char why[96];
    memset(h->count, 0, sizeof h->count);
    memset(h->fast, 0, sizeof h->fast);
    for (i = 0; i < n; i++) h->count[len[i]]++;
    for (l = 1; l < 16; l++) {
        left = left * 2 - h->count[l];
        if (left < 0) {
            snprintf(why, sizeof why, "the %s code lengths are over-subscribed", which);
            return fgl__infl_fail(s, why);
        }
    }
    offs[1] = 0;
    for (l = 1; l < 15; l++) offs[l + 1] = (unsigned short)(offs[l] + h->count[l]);
    for (i = 0; i < n; i++)
        if (len[i]) h->sym[offs[len[i]]++] = (unsigned short)i;
    { /* the short codes into the table: code c of length l fills every entry whose low l bits are c reversed */
        int code = 0, k = 0;
        for (l = 1; l <= FGL__INFL_FAST; l++) {
            for (i = 0; i < h->count[l]; i++, code++, k++) {
                int rev = 0, b, e;
                for (b = 0; b < l; b++) rev |= ((code >> b) & 1) << (l - 1 - b);
                for (e = rev; e < (1 << FGL__INFL_FAST); e += 1 << l) h->fast[e] = (unsigned short)(h->sym[k] << 4 | l);
            }
            code <<= 1;
        }
    }
    return FGL_OK;
}

/* The next symbol of code h into *sym. */
static int fgl__huff_decode(fgl__infl *s, const fgl__huff *h, int *sym) {
    int code = 0, first = 0, index = 0, l;
    unsigned e;
    if (fgl__infl_need(s, FGL__INFL_FAST) == 0 || s->nbits > 0) {
        e = h->fast[s->bits & ((1u << FGL__INFL_FAST) - 1u)];
        if (e && (int)(e & 15) <= s->nbits) {
            s->bits >>= e & 15;
            s->nbits -= (int)(e & 15);
            *sym = (int)(e >> 4);
            return FGL_OK;
        }
    }
    for (l = 1; l < 16; l++) { /* bit by bit: codes are stored most significant bit first */
        int b, count = h->count[l];
        if (fgl__infl_bits(s, 1, &b)) return FGL_ERR_FORMAT;
        code |= b;
        if (code - first < count) {
            *sym = h->sym[index + code - first];
            return FGL_OK;
        }
        index += count;
        first = (first + count) << 1;
        code <<= 1;
    }
    return fgl__infl_fail(s, "a Huffman code that the block's table does not define");
}

static const unsigned short fgl__len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                                 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const unsigned char fgl__len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const unsigned short fgl__dist_base[30] = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                                  33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                                  1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const unsigned char fgl__dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                                  6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

static int fgl__infl_codes(fgl__infl *s, const fgl__huff *lit, const fgl__huff *dist) {
    for (;;) {
        int sym = 0, rc, extra = 0, d, len;
        size_t dd;
        if ((rc = fgl__huff_decode(s, lit, &sym))) return rc;
        if (sym < 256) {
            if (s->out >= s->cap) return fgl__infl_fail(s, "more data than the member's declared size");
            s->dst[s->out++] = (unsigned char)sym;
            continue;
        }
        if (sym == 256) return FGL_OK;
        if ((sym -= 257) >= 29) return fgl__infl_fail(s, "a length code over 285");
        if ((rc = fgl__infl_bits(s, fgl__len_extra[sym], &extra))) return rc;
        len = fgl__len_base[sym] + extra;
        if ((rc = fgl__huff_decode(s, dist, &sym))) return rc;
        if (sym >= 30) return fgl__infl_fail(s, "a distance code over 29");
        if ((rc = fgl__infl_bits(s, fgl__dist_extra[sym], &extra))) return rc;
        d = fgl__dist_base[sym] + extra;
        if ((size_t)d > s->out) return fgl__infl_fail(s, "a distance back before the start of the data");
        if ((size_t)len > s->cap - s->out) return fgl__infl_fail(s, "more data than the member's declared size");
        dd = (size_t)d;
        if (dd == 1) { /* a run of one byte */
            memset(s->dst + s->out, s->dst[s->out - 1], (size_t)len);
            s->out += (size_t)len;
        } else if (dd >= (size_t)len) { /* no overlap */
            memcpy(s->dst + s->out, s->dst + s->out - dd, (size_t)len);
            s->out += (size_t)len;
        } else {
            for (; len > 0; len--, s->out++) s->dst[s->out] = s->dst[s->out - dd];
        }
    }
}

static int fgl__infl_dynamic(fgl__infl *s, fgl__huff *lit, fgl__huff *dist) {
    static const unsigned char order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    unsigned char len[286 + 30];
    int nlen = 0, ndist = 0, ncode = 0, i, rc, v = 0;
    fgl__huff cl;
    if ((rc = fgl__infl_bits(s, 5, &nlen)) || (rc = fgl__infl_bits(s, 5, &ndist)) ||
        (rc = fgl__infl_bits(s, 4, &ncode)))
        return rc;
    nlen += 257;
    ndist += 1;
    ncode += 4;
    if (nlen > 286 || ndist > 30) return fgl__infl_fail(s, "a dynamic block with more than 286/30 codes");
    memset(len, 0, sizeof len);
    for (i = 0; i < ncode; i++) {
        if ((rc = fgl__infl_bits(s, 3, &v))) return rc;
        len[order[i]] = (unsigned char)v;
    }
    if ((rc = fgl__huff_build(s, &cl, len, 19, "code-length"))) return rc;
    for (i = 0; i < nlen + ndist;) {
        int sym, rep, val = 0;
        if ((rc = fgl__huff_decode(s, &cl, &sym))) return rc;
        if (sym < 16) {
            len[i++] = (unsigned char)sym;
            continue;
        }
        if (sym == 16) {
            if (i == 0) return fgl__infl_fail(s, "a repeat of the previous length with none before it");
            val = len[i - 1];
            if ((rc = fgl__infl_bits(s, 2, &rep))) return rc;
            rep += 3;
        } else if (sym == 17) {
            if ((rc = fgl__infl_bits(s, 3, &rep))) return rc;
            rep += 3;
        } else {
            if ((rc = fgl__infl_bits(s, 7, &rep))) return rc;
            rep += 11;
        }
        if (i + rep > nlen + ndist) return fgl__infl_fail(s, "code lengths repeated past the end of the table");
        while (rep-- > 0) len[i++] = (unsigned char)val;
    }
    if (len[256] == 0) return fgl__infl_fail(s, "a dynamic block without an end-of-block code");
    if ((rc = fgl__huff_build(s, lit, len, nlen, "literal/length"))) return rc;
    return fgl__huff_build(s, dist, len + nlen, ndist, "distance");
}

FGLDEF int fgl_inflate(const unsigned char *src, size_t n, unsigned char *dst, size_t cap, const char *what,
                       fgl_error *err) {
    fgl__infl s;
    fgl__huff *lit = (fgl__huff *)FGL_MALLOC(2 * sizeof(fgl__huff)), *dist;
    int last = 0, type = 0, rc = FGL_OK;
    if (!lit) return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", what);
    dist = lit + 1;
    memset(&s, 0, sizeof s);
    s.src = src;
    s.n = n;
    s.dst = dst;
    s.cap = cap;
    s.what = what;
    s.err = err;
    while (!last && !rc) {
        if ((rc = fgl__infl_bits(&s, 1, &last)) || (rc = fgl__infl_bits(&s, 2, &type))) break;
        if (type == 0) { /* stored: LEN, NLEN from the next byte boundary */
            size_t k;
            /* to the byte boundary; whole bytes that the bit buffer read ahead go back to the input */
            s.pos -= (size_t)(s.nbits / 8);
            s.bits = 0;
            s.nbits = 0;
            if (s.n - s.pos < 4) {
                rc = fgl__infl_fail(&s, "the stream ends early (truncated?)");
                break;
            }
            k = (size_t)s.src[s.pos] | (size_t)s.src[s.pos + 1] << 8;
            if ((k ^ 0xffffu) != ((size_t)s.src[s.pos + 2] | (size_t)s.src[s.pos + 3] << 8)) {
                rc = fgl__infl_fail(&s, "a stored block whose length and its complement disagree");
                break;
            }
            s.pos += 4;
            if (k > s.n - s.pos) {
                rc = fgl__infl_fail(&s, "the stream ends early (truncated?)");
                break;
            }
            if (k > s.cap - s.out) {
                rc = fgl__infl_fail(&s, "more data than the member's declared size");
                break;
            }
            memcpy(s.dst + s.out, s.src + s.pos, k);
            s.out += k;
            s.pos += k;
        } else if (type == 1) { /* fixed codes (RFC 1951, 3.2.6) */
            unsigned char len[288 + 30];
            int i;
            for (i = 0; i < 288; i++) len[i] = (unsigned char)(i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8);
            for (i = 0; i < 30; i++) len[288 + i] = 5;
            if (!(rc = fgl__huff_build(&s, lit, len, 288, "fixed")) && !(rc = fgl__huff_build(&s, dist, len + 288, 30, "fixed")))
                rc = fgl__infl_codes(&s, lit, dist);
        } else if (type == 2) {
            if (!(rc = fgl__infl_dynamic(&s, lit, dist))) rc = fgl__infl_codes(&s, lit, dist);
        } else {
            rc = fgl__infl_fail(&s, "block type 3 (reserved)");
        }
    }
    FGL_FREE(lit);
    if (!rc && s.out != cap)
        rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: corrupt DEFLATE data: %zu bytes where the member declares %zu",
                           what, s.out, cap);
    return rc;
}

FGLDEF uint32_t fgl_crc32(uint32_t crc, const void *p, size_t n) {
    static uint32_t table[256];
    static int ready = 0;
    const unsigned char *b = (const unsigned char *)p;
    size_t i;
    if (!ready) { /* (racing threads write the same values) */
        uint32_t k, c;
        int j;
        for (k = 0; k < 256; k++) {
            for (c = k, j = 0; j < 8; j++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
            table[k] = c;
        }
        ready = 1;
    }
    crc = ~crc;
    for (i = 0; i < n; i++) crc = table[(crc ^ b[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

/* --- zip ------------------------------------------------------------------------ */

static uint32_t fgl__zip_u16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t fgl__zip_u32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

FGLDEF void fgl_zip_close(fgl_zip *z) {
    FGL_FREE(z->file);
    FGL_FREE(z->m);
    memset(z, 0, sizeof *z);
}

FGLDEF int fgl_zip_open(const char *path, fgl_zip *z, fgl_error *err) {
    const unsigned char *d, *e = NULL, *p;
    size_t len, i, cd_off, cd_size, lo;
    int n, k, rc;
    memset(z, 0, sizeof *z);
    snprintf(z->path, sizeof z->path, "%s", path);
    if ((rc = fgl_file_read_bounded(path, 0, 0, &z->file, &z->len, err))) return rc;
    d = z->file;
    len = z->len;
    if (len < 22 || memcmp(d, "PK", 2) != 0) {
        fgl_zip_close(z);
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: not a zip archive (an .npz is one)%s", path,
                             len < 22 ? ": shorter than its end record" : ": no PK signature");
    }
    lo = len > 22 + 65535 ? len - 22 - 65535 : 0;
    for (i = len - 22 + 1; i-- > lo;) /* the end of central directory record, with its comment reaching the end */
        if (!memcmp(d + i, "PK\5\6", 4) && i + 22 + fgl__zip_u16(d + i + 20) == len) {
            e = d + i;
            break;
        }
    if (!e) {
        fgl_zip_close(z);
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: no end of central directory record (truncated?)", path);
    }
    if ((size_t)(e - d) >= 20 && !memcmp(e - 20, "PK\6\7", 4)) {
        fgl_zip_close(z);
        return fgl_error_set(err, FGL_ERR_UNSUPPORTED, "%s: a zip64 archive (fgl reads archives under 4 GiB without "
                             "zip64 records)", path);
    }
    if (fgl__zip_u16(e + 4) || fgl__zip_u16(e + 6) || fgl__zip_u16(e + 8) != fgl__zip_u16(e + 10)) {
        fgl_zip_close(z);
        return fgl_error_set(err, FGL_ERR_UNSUPPORTED, "%s: an archive split over several disks", path);
    }
    n = (int)fgl__zip_u16(e + 10);
    cd_size = fgl__zip_u32(e + 12);
    cd_off = fgl__zip_u32(e + 16);
    if (cd_off > (size_t)(e - d) || cd_size > (size_t)(e - d) - cd_off || (size_t)n * 46 > cd_size) {
        fgl_zip_close(z);
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: the central directory (%d entries, %zu bytes at %zu) does not "
                             "fit before its end record (truncated or corrupt)", path, n, cd_size, cd_off);
    }
    if (!(z->m = (fgl_zip_member *)FGL_MALLOC(sizeof(fgl_zip_member) * (size_t)(n > 0 ? n : 1)))) {
        fgl_zip_close(z);
        return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", path);
    }
    for (p = d + cd_off, k = 0; k < n; k++) {
        fgl_zip_member *m = &z->m[k];
        size_t nl, xl, cl, rest = (size_t)(d + cd_off + cd_size - p), loc, lnl, lxl;
        uint32_t flags;
        if (rest < 46 || memcmp(p, "PK\1\2", 4) != 0) {
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: central directory entry %d is malformed", path, k + 1);
            goto fail;
        }
        nl = fgl__zip_u16(p + 28);
        xl = fgl__zip_u16(p + 30);
        cl = fgl__zip_u16(p + 32);
        if (46 + nl + xl + cl > rest) {
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: central directory entry %d runs past the directory", path,
                               k + 1);
            goto fail;
        }
        m->name = (const char *)p + 46;
        m->name_len = (int)nl;
        flags = fgl__zip_u16(p + 8);
        m->method = (int)fgl__zip_u16(p + 10);
        m->crc = fgl__zip_u32(p + 16);
        m->csize = fgl__zip_u32(p + 20);
        m->usize = fgl__zip_u32(p + 24);
        loc = fgl__zip_u32(p + 42);
        if (flags & 0x41u) {
            rc = fgl_error_set(err, FGL_ERR_UNSUPPORTED, "%s: member %.*s is encrypted", path, (int)nl, m->name);
            goto fail;
        }
        if (m->csize == 0xffffffffu || m->usize == 0xffffffffu || loc == 0xffffffffu) {
            rc = fgl_error_set(err, FGL_ERR_UNSUPPORTED, "%s: member %.*s needs zip64 (4 GiB or more): not read by fgl",
                               path, (int)nl, m->name);
            goto fail;
        }
        if (m->method != 0 && m->method != 8) {
            rc = fgl_error_set(err, FGL_ERR_UNSUPPORTED, "%s: member %.*s is compressed with method %d (fgl reads "
                               "stored (0) and deflated (8) members)", path, (int)nl, m->name, m->method);
            goto fail;
        }
        if (loc > cd_off || cd_off - loc < 30 || memcmp(d + loc, "PK\3\4", 4) != 0) {
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: member %.*s: no local header at offset %zu", path, (int)nl,
                               m->name, loc);
            goto fail;
        }
        lnl = fgl__zip_u16(d + loc + 26);
        lxl = fgl__zip_u16(d + loc + 28);
        if (lnl != nl || memcmp(d + loc + 30, m->name, nl < cd_off - loc - 30 ? nl : cd_off - loc - 30) != 0 ||
            30 + lnl + lxl > cd_off - loc) {
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: member %.*s: its local header disagrees with the central "
                               "directory", path, (int)nl, m->name);
            goto fail;
        }
        m->offset = loc + 30 + lnl + lxl;
        if (m->csize > cd_off - m->offset) {
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: member %.*s: %zu compressed bytes run past the members "
                               "(truncated?)", path, (int)nl, m->name, m->csize);
            goto fail;
        }
        p += 46 + nl + xl + cl;
    }
    z->n = n;
    return FGL_OK;
fail:
    fgl_zip_close(z);
    return rc;
}

FGLDEF int fgl_zip_find(const fgl_zip *z, const char *name) {
    size_t l = strlen(name);
    int i;
    for (i = 0; i < z->n; i++)
        if ((size_t)z->m[i].name_len == l && !memcmp(z->m[i].name, name, l)) return i;
    return -1;
}

FGLDEF int fgl_zip_read(const fgl_zip *z, int i, unsigned char **data, size_t *len, fgl_error *err) {
    const fgl_zip_member *m = &z->m[i];
    char what[1400];
    unsigned char *buf;
    size_t max = fgl_file_max();
    int rc = FGL_OK;
    *data = NULL;
    *len = 0;
    snprintf(what, sizeof what, "%s: member %.*s", z->path, m->name_len, m->name);
    if (m->method == 0 && m->csize != m->usize)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: stored with %zu bytes but declares %zu", what, m->csize,
                             m->usize);
    if (m->usize > max)
        return fgl_error_set(err, FGL_ERR_RANGE, "%s: %zu bytes uncompressed, over the bound of %zu bytes on one file "
                             "(FGL_MAX_FILE_BYTES)", what, m->usize, max);
    if (m->method == 8 && m->usize / 1032 > m->csize)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: declares %zu bytes from %zu compressed ones, more than DEFLATE "
                             "can expand to (corrupt)", what, m->usize, m->csize);
    if (!(buf = (unsigned char *)FGL_MALLOC(m->usize ? m->usize : 1)))
        return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory (%zu bytes)", what, m->usize);
    if (m->method == 0) memcpy(buf, z->file + m->offset, m->usize);
    else rc = fgl_inflate(z->file + m->offset, m->csize, buf, m->usize, what, err);
    if (!rc && fgl_crc32(0, buf, m->usize) != m->crc)
        rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: CRC-32 %08lx, the archive records %08lx (corrupt)", what,
                           (unsigned long)fgl_crc32(0, buf, m->usize), (unsigned long)m->crc);
    if (rc) {
        FGL_FREE(buf);
        return rc;
    }
    *data = buf;
    *len = m->usize;
    return FGL_OK;
}

/* --- the heterophilous-graph .npz datasets ----------------------------------------- */

/* Member name+".npy" of z, read and parsed into *a (the bytes in *buf);
 * 0 if absent and !required. */
static int fgl__npz_member(const fgl_zip *z, const char *name, int required, unsigned char **buf, fgl_npy *a,
                           char *what, size_t what_cap, fgl_error *err) {
    char member[64];
    size_t len;
    int i, rc;
    snprintf(member, sizeof member, "%s.npy", name);
    snprintf(what, what_cap, "%s: %s", z->path, member);
    *buf = NULL;
    if ((i = fgl_zip_find(z, member)) < 0) {
        if (!required) return 0;
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: no member %s (the heterophilous-graph layout has node_features, "
                             "node_labels, edges and train/val/test_masks)", z->path, member);
    }
    if ((rc = fgl_zip_read(z, i, buf, &len, err))) return rc;
    if ((rc = fgl_npy_parse(*buf, len, what, a, err))) {
        FGL_FREE(*buf);
        *buf = NULL;
        return rc;
    }
    return 1;
}

/* The masks into splits (s x n codes); codes already written stay. */
static int fgl__npz_masks(const fgl_zip *z, int n, unsigned char **splits, int *n_splits, fgl_error *err) {
    static const char *names[3] = {"train_masks", "val_masks", "test_masks"};
    static const unsigned char codes[3] = {FGL_SPLIT_TRAIN, FGL_SPLIT_VAL, FGL_SPLIT_TEST};
    unsigned char *buf[3] = {NULL, NULL, NULL}, *out = NULL;
    fgl_npy a[3];
    char what[3][1200];
    int have[3], k, rc = FGL_OK, S = 0;
    long long s, i;
    for (k = 0; k < 3; k++)
        if ((have[k] = fgl__npz_member(z, names[k], 0, &buf[k], &a[k], what[k], sizeof what[k], err)) < 0) {
            rc = have[k];
            goto done;
        }
    if (have[0] + have[1] + have[2] == 1 || have[0] + have[1] + have[2] == 2) {
        for (k = 0; have[k]; k++) {
        }
        rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: has %d of the three masks but not %s.npy: the fixed splits need "
                           "train_masks, val_masks and test_masks, or none", z->path, have[0] + have[1] + have[2],
                           names[k]);
        goto done;
    }
    if (!have[0]) goto done; /* no fixed splits */
    for (k = 0; k < 3; k++) {
        long long rows = a[k].ndim == 2 ? a[k].shape[0] : 1, cols = a[k].ndim == 2 ? a[k].shape[1] : a[k].shape[0];
        if (a[k].ndim == 0 || cols != n || rows < 1 || rows > 1000) {
            rc = fgl_error_set(err, FGL_ERR_SHAPE, "%s: shape (%lld, %lld) of %d dimensions: expected (splits, %d), 1 "
                               "to 1000 splits, or (%d,) for the %d nodes", what[k], a[k].shape[0], a[k].shape[1],
                               a[k].ndim, n, n, n);
            goto done;
        }
        if (a[k].ndim == 1) a[k].shape[1] = a[k].shape[0], a[k].shape[0] = 1, a[k].ndim = 2;
        if (k > 0 && rows != S) {
            rc = fgl_error_set(err, FGL_ERR_SHAPE, "%s: %lld splits, %s.npy has %d", what[k], rows, names[0], S);
            goto done;
        }
        S = (int)rows;
        if (a[k].kind == 'f') {
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: float masks (expected booleans)", what[k]);
            goto done;
        }
    }
    if (!(out = FGL__G_NEW2(unsigned char, S, n))) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", z->path);
        goto done;
    }
    memset(out, FGL_SPLIT_NONE, (size_t)S * (size_t)n);
    for (s = 0; s < S && !rc; s++) {
        int count[3] = {0, 0, 0};
        for (k = 0; k < 3 && !rc; k++)
            for (i = 0; i < n; i++) {
                int bad = 0;
                long long v = fgl_npy_i64(&a[k], fgl_npy_at(&a[k], s, i), &bad);
                if (v == 0) continue;
                if (v != 1) {
                    rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: split %lld, node %lld: %lld, not a boolean", what[k], s,
                                       i, v);
                    break;
                }
                if (out[s * n + i] != FGL_SPLIT_NONE) {
                    rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: split %lld, node %lld is in %s.npy too: the masks of "
                                       "a split must not overlap", what[k], s, i,
                                       names[out[s * n + i] == FGL_SPLIT_TRAIN ? 0 : 1]);
                    break;
                }
                out[s * n + i] = codes[k];
                count[k]++;
            }
        if (!rc && (count[0] == 0 || count[2] == 0))
            rc = fgl_error_set(err, FGL_ERR_EMPTY, "%s: split %lld has %d training and %d test nodes (a split needs "
                               "both)", z->path, s, count[0], count[2]);
    }
done:
    for (k = 0; k < 3; k++) FGL_FREE(buf[k]);
    if (rc) {
        FGL_FREE(out);
        return rc;
    }
    *splits = out;
    *n_splits = out ? S : 0;
    return FGL_OK;
}

FGLDEF int fgl_load_npz(const char *path, fgl_node_data *out, unsigned char **splits, int *n_splits,
                        fgl_error *err) {
    fgl_zip z;
    fgl_npy a;
    unsigned char *buf = NULL, *sp = NULL;
    char what[1200];
    int rc, n = 0, f, m = 0, *src = NULL, *dst = NULL, used = 0, i, ns = 0;
    long long k;
    memset(out, 0, sizeof *out);
    if (splits) *splits = NULL;
    if (n_splits) *n_splits = 0;
    if ((rc = fgl_zip_open(path, &z, err))) return rc;
    /* labels: N, the classes */
    if ((rc = fgl__npz_member(&z, "node_labels", 1, &buf, &a, what, sizeof what, err)) < 0) goto fail;
    if (a.ndim != 1 || a.shape[0] < 1 || a.shape[0] > INT_MAX / 2) {
        rc = fgl_error_set(err, FGL_ERR_SHAPE, "%s: shape (%lld, %lld) of %d dimensions: expected (nodes,)", what,
                           a.shape[0], a.shape[1], a.ndim);
        goto fail;
    }
    n = (int)a.shape[0];
    if (!(out->y = FGL__G_NEW(int, n))) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", what);
        goto fail;
    }
    {
        int maxy = -1, *hit;
        for (k = 0; k < n; k++) {
            int bad = 0;
            long long v = fgl_npy_i64(&a, k, &bad);
            if (bad || v < -1 || v >= FGL_MAX_CLASSES) {
                rc = fgl_error_set(err, FGL_ERR_RANGE, "%s: node %lld: label %.17g (labels are 0-based classes under %d, "
                                   "-1 = unknown)", what, k, fgl_npy_f64(&a, k), FGL_MAX_CLASSES);
                goto fail;
            }
            out->y[k] = (int)v;
            if (v > maxy) maxy = (int)v;
        }
        if (maxy < 0) {
            rc = fgl_error_set(err, FGL_ERR_EMPTY, "%s: no node is labelled: all %d labels are -1", what, n);
            goto fail;
        }
        if (!(hit = FGL__G_NEW(int, maxy + 1))) {
            rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", what);
            goto fail;
        }
        memset(hit, 0, sizeof(int) * (size_t)(maxy + 1));
        for (i = 0; i < n; i++)
            if (out->y[i] >= 0) used += !hit[out->y[i]]++;
        FGL_FREE(hit);
        out->n_classes = maxy + 1;
        if (out->n_classes - used > used) {
            for (i = 0; i < n && out->y[i] != maxy; i++) {
            }
            rc = fgl_error_set(err, FGL_ERR_RANGE, "%s: node %d: label %d: the labels make %d classes but only %d hold "
                               "a node: a stray label?", what, i, maxy, out->n_classes, used);
            goto fail;
        }
    }
    FGL_FREE(buf);
    buf = NULL;
    /* features: N x F, finite, not all 0 */
    if ((rc = fgl__npz_member(&z, "node_features", 1, &buf, &a, what, sizeof what, err)) < 0) goto fail;
    if (a.ndim != 2 || a.shape[0] != n || a.shape[1] < 1 || a.shape[1] > FGL_MAX_FEATURES) {
        rc = fgl_error_set(err, FGL_ERR_SHAPE, "%s: shape (%lld, %lld) of %d dimensions: expected (%d, features) for "
                           "the %d labels, 1 to %d features", what, a.shape[0], a.shape[1], a.ndim, n, n,
                           FGL_MAX_FEATURES);
        goto fail;
    }
    f = (int)a.shape[1];
    if (!(out->x.data = FGL__G_NEW2(float, n, f))) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory (%d x %d floats)", what, n, f);
        goto fail;
    }
    out->x.rows = n;
    out->x.cols = f;
    out->x.owns = 1;
    out->n_nodes = n;
    out->n_feat = f;
    for (i = 0; i < n; i++) {
        int j;
        float *row = out->x.data + (size_t)i * (size_t)f;
        if (a.kind == 'f' && a.size == 4 && !a.big && !a.fortran) { /* float32 as stored: copy the row */
            memcpy(row, a.data + (size_t)i * (size_t)f * 4, (size_t)f * 4);
        } else {
            for (j = 0; j < f; j++) row[j] = (float)fgl_npy_f64(&a, fgl_npy_at(&a, i, j));
        }
        if (!fgl_all_finite((size_t)f, row))
            for (j = 0; j < f; j++)
                if (!fgl_all_finite(1, &row[j])) {
                    rc = fgl_error_set(err, FGL_ERR_NONFINITE, "%s: node %d, feature %d: %g, not a finite float32",
                                       what, i, j, fgl_npy_f64(&a, fgl_npy_at(&a, i, j)));
                    goto fail;
                }
    }
    if ((rc = fgl__g_nonzero(what, out->x.data, (size_t)n * (size_t)f, n, f, "feature", err))) goto fail;
    FGL_FREE(buf);
    buf = NULL;
    /* edges: E x 2 in 0..N-1, both directions */
    if ((rc = fgl__npz_member(&z, "edges", 1, &buf, &a, what, sizeof what, err)) < 0) goto fail;
    if (a.ndim != 2 || a.shape[1] != 2 || a.shape[0] > INT_MAX / 2) {
        rc = fgl_error_set(err, FGL_ERR_SHAPE, "%s: shape (%lld, %lld) of %d dimensions: expected (edges, 2)%s", what,
                           a.shape[0], a.shape[1], a.ndim, a.ndim == 2 && a.shape[0] == 2 ? " (this one is transposed)"
                                                                                      : "");
        goto fail;
    }
    m = (int)a.shape[0];
    src = FGL__G_NEW(int, m > 0 ? m : 1);
    dst = FGL__G_NEW(int, m > 0 ? m : 1);
    if (!src || !dst) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", what);
        goto fail;
    }
    for (k = 0; k < m; k++) {
        int bad = 0, c;
        for (c = 0; c < 2; c++) {
            long long v = fgl_npy_i64(&a, fgl_npy_at(&a, k, c), &bad);
            if (bad || v < 0 || v >= n) {
                rc = fgl_error_set(err, FGL_ERR_RANGE, "%s: edge %lld joins node %.17g, outside 0..%d", what, k,
                                   fgl_npy_f64(&a, fgl_npy_at(&a, k, c)), n - 1);
                goto fail;
            }
            (c ? dst : src)[k] = (int)v;
        }
    }
    FGL_FREE(buf);
    buf = NULL;
    if ((rc = fgl_graph_from_edges(n, src, dst, m, FGL_EDGES_SYMMETRIZE | FGL_EDGES_DROP_SELF_LOOPS, &out->adj, err)))
        goto fail;
    FGL_FREE(src);
    FGL_FREE(dst);
    src = dst = NULL;
    /* the fixed splits */
    if ((rc = fgl__npz_masks(&z, n, &sp, &ns, err))) goto fail;
    {
        const char *base = strrchr(path, '/');
        size_t l;
        base = base ? base + 1 : path;
        l = strlen(base);
        if (l > 4 && !strcmp(base + l - 4, ".npz")) l -= 4;
        if (l >= FGL_NAME_LEN) l = FGL_NAME_LEN - 1;
        memcpy(out->name, base, l);
        out->name[l] = 0;
    }
    fgl_zip_close(&z);
    if (splits) *splits = sp;
    else FGL_FREE(sp);
    if (n_splits) *n_splits = ns;
    fgl_error_clear(err);
    return FGL_OK;
fail:
    FGL_FREE(buf);
    FGL_FREE(src);
    FGL_FREE(dst);
    fgl_zip_close(&z);
    fgl_node_data_free(out);
    return rc;
}
/* --- src/graph/generators.h --- */
/* --- edge lists and hash sets of the generators --------------------------- */

/* A growable list of undirected edges. */
typedef struct fgl__g_edges {
    int *u, *v;
    size_t n, cap;
    int err;
} fgl__g_edges;

static void fgl__g_edges_init(fgl__g_edges *e) { memset(e, 0, sizeof *e); }

static void fgl__g_edges_free(fgl__g_edges *e) {
    FGL_FREE(e->u);
    FGL_FREE(e->v);
    memset(e, 0, sizeof *e);
}

static int fgl__g_edges_reserve(fgl__g_edges *e, size_t cap) {
    int *nu, *nv;
    if (cap <= e->cap) return FGL_OK;
    nu = FGL__G_RESIZE(int, e->u, cap);
    if (!nu) return e->err = FGL_ERR_NOMEM;
    e->u = nu;
    nv = FGL__G_RESIZE(int, e->v, cap);
    if (!nv) return e->err = FGL_ERR_NOMEM;
    e->v = nv;
    e->cap = cap;
    return FGL_OK;
}

static void fgl__g_edges_push(fgl__g_edges *e, int a, int b) {
    if (e->err) return;
    if (e->n == e->cap && fgl__g_edges_reserve(e, e->cap ? 2 * e->cap : 1024)) return;
    e->u[e->n] = a;
    e->v[e->n] = b;
    e->n++;
}

/* The graph of a generated edge list (self loops and repeats dropped, every
 * edge both ways); frees the list. */
static int fgl__g_finish_edges(int n, fgl__g_edges *e, fgl_csr *out, fgl_error *err, const char *who) {
    int rc;
    if (e->err) {
        fgl__g_edges_free(e);
        return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", who);
    }
    if (e->n > (size_t)INT_MAX / 2) {
        fgl__g_edges_free(e);
        return fgl_error_set(err, FGL_ERR_RANGE, "%s: %zu edges do not fit an int CSR", who, e->n);
    }
    rc = fgl_graph_from_edges(n, e->u, e->v, (int)e->n, FGL_EDGES_SYMMETRIZE | FGL_EDGES_DROP_SELF_LOOPS, out,
                              err);
    fgl__g_edges_free(e);
    return rc;
}

/* Open-addressing set of 64-bit keys (keys < 2^64 - 2). */
typedef struct fgl__g_hset {
    uint64_t *keys;
    size_t cap, n, used; /* used counts live keys and tombstones */
} fgl__g_hset;

#define FGL__G_HS_EMPTY (~(uint64_t)0)
#define FGL__G_HS_DEAD (~(uint64_t)0 - 1)

static uint64_t fgl__g_mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int fgl__g_hset_init(fgl__g_hset *h, size_t expect) {
    size_t cap = 16, i;
    while (cap < 2 * expect + 16) cap *= 2;
    h->keys = FGL__G_NEW(uint64_t, cap);
    h->cap = cap;
    h->n = h->used = 0;
    if (!h->keys) return FGL_ERR_NOMEM;
    for (i = 0; i < cap; i++) h->keys[i] = FGL__G_HS_EMPTY;
    return FGL_OK;
}

static void fgl__g_hset_free(fgl__g_hset *h) {
    FGL_FREE(h->keys);
    memset(h, 0, sizeof *h);
}

static int fgl__g_hset_has(const fgl__g_hset *h, uint64_t key) {
    size_t i = (size_t)fgl__g_mix64(key) & (h->cap - 1);
    for (;;) {
        if (h->keys[i] == key) return 1;
        if (h->keys[i] == FGL__G_HS_EMPTY) return 0;
        i = (i + 1) & (h->cap - 1);
    }
}

static int fgl__g_hset_add(fgl__g_hset *h, uint64_t key); /* below */

static int fgl__g_hset_grow(fgl__g_hset *h) {
    fgl__g_hset g;
    size_t i;
    if (fgl__g_hset_init(&g, h->n * 2 + 16)) return FGL_ERR_NOMEM;
    for (i = 0; i < h->cap; i++)
        if (h->keys[i] != FGL__G_HS_EMPTY && h->keys[i] != FGL__G_HS_DEAD) fgl__g_hset_add(&g, h->keys[i]);
    fgl__g_hset_free(h);
    *h = g;
    return FGL_OK;
}

/* 1 if added, 0 if present, negative on out of memory. */
static int fgl__g_hset_add(fgl__g_hset *h, uint64_t key) {
    size_t i, dead = (size_t)-1;
    if ((h->used + 1) * 2 > h->cap && fgl__g_hset_grow(h)) return FGL_ERR_NOMEM;
    i = (size_t)fgl__g_mix64(key) & (h->cap - 1);
    for (;;) {
        if (h->keys[i] == key) return 0;
        if (h->keys[i] == FGL__G_HS_DEAD && dead == (size_t)-1) dead = i;
        if (h->keys[i] == FGL__G_HS_EMPTY) break;
        i = (i + 1) & (h->cap - 1);
    }
    if (dead != (size_t)-1) i = dead;
    else h->used++;
    h->keys[i] = key;
    h->n++;
    return 1;
}

static void fgl__g_hset_del(fgl__g_hset *h, uint64_t key) {
    size_t i = (size_t)fgl__g_mix64(key) & (h->cap - 1);
    for (;;) {
        if (h->keys[i] == key) {
            h->keys[i] = FGL__G_HS_DEAD;
            h->n--;
            return;
        }
        if (h->keys[i] == FGL__G_HS_EMPTY) return;
        i = (i + 1) & (h->cap - 1);
    }
}

static uint64_t fgl__g_pair_key(int a, int b) {
    return a < b ? ((uint64_t)(uint32_t)a << 32) | (uint32_t)b : ((uint64_t)(uint32_t)b << 32) | (uint32_t)a;
}

/* --- generators ----------------------------------------------------------- */

/* Number of failures before the next success of Bernoulli(p) trials, given
 * lq = ln(1 - p) (p in (0, 1)); as a double, since it can be huge. */
static double fgl__g_geom_skip(fgl_rng *r, double lq) {
    double u = 1.0 - fgl_rng_uniform(r); /* (0, 1] */
    return floor(log(u) / lq);
}

/* Edges among the pairs (a, b), 0 <= b < a < n, of a block starting at off,
 * each with probability p. */
static void fgl__g_gnp_block(fgl_rng *r, int off, int n, double p, fgl__g_edges *e) {
    long long v = 1, w = -1;
    double lq;
    if (n < 2 || p <= 0) return;
    if (p >= 1) {
        int a, b;
        for (a = 1; a < n; a++)
            for (b = 0; b < a; b++) fgl__g_edges_push(e, off + a, off + b);
        return;
    }
    lq = log(1.0 - p);
    while (v < n && !e->err) {
        double s = fgl__g_geom_skip(r, lq);
        if (s > 4e18) break;
        w += 1 + (long long)s;
        while (w >= v && v < n) {
            w -= v;
            v++;
        }
        if (v < n) fgl__g_edges_push(e, off + (int)v, off + (int)w);
    }
}

/* Edges between block A (na nodes from offa) and block B (nb from offb),
 * each of the na * nb pairs with probability p. */
static void fgl__g_gnp_bipartite(fgl_rng *r, int offa, int na, int offb, int nb, double p, fgl__g_edges *e) {
    long long total = (long long)na * nb, t = -1;
    double lq;
    if (total == 0 || p <= 0) return;
    if (p >= 1) {
        int a, b;
        for (a = 0; a < na; a++)
            for (b = 0; b < nb; b++) fgl__g_edges_push(e, offa + a, offb + b);
        return;
    }
    lq = log(1.0 - p);
    for (;;) {
        double s = fgl__g_geom_skip(r, lq);
        if (e->err || s >= (double)(total - t)) break;
        t += 1 + (long long)s;
        if (t >= total) break;
        fgl__g_edges_push(e, offa + (int)(t / nb), offb + (int)(t % nb));
    }
}

FGLDEF int fgl_gen_gnp(int n, double p, uint64_t seed, fgl_csr *out, fgl_error *err) {
    fgl__g_edges e;
    fgl_rng r;
    double expect;
    memset(out, 0, sizeof *out);
    if (n < 0 || !(p >= 0 && p <= 1))
        return fgl_error_set(err, FGL_ERR_ARG, "gen_gnp: need n >= 0 and 0 <= p <= 1 (n = %d, p = %g)", n, p);
    expect = p * (double)n * (n - 1) / 2;
    if (expect > (double)INT_MAX / 2)
        return fgl_error_set(err, FGL_ERR_RANGE, "gen_gnp: about %.0f edges do not fit an int CSR", expect);
    fgl__g_edges_init(&e);
    fgl__g_edges_reserve(&e, (size_t)(expect + 6 * sqrt(expect + 1) + 16));
    fgl_rng_init(&r, seed, FGL__G_ST_GEN);
    fgl__g_gnp_block(&r, 0, n, p, &e);
    return fgl__g_finish_edges(n, &e, out, err, "gen_gnp");
}

/* Pair index t in [0, n(n-1)/2) -> (a, b) with b < a: t = a(a-1)/2 + b. */
static void fgl__g_pair_of_index(long long t, int *a, int *b) {
    long long x = (long long)((1.0 + sqrt(1.0 + 8.0 * (double)t)) / 2.0);
    while (x * (x - 1) / 2 > t) x--;
    while ((x + 1) * x / 2 <= t) x++;
    *a = (int)x;
    *b = (int)(t - x * (x - 1) / 2);
}

FGLDEF int fgl_gen_gnm(int n, int m, uint64_t seed, fgl_csr *out, fgl_error *err) {
    long long total = (long long)n * (n - 1) / 2, j;
    fgl__g_hset hs;
    fgl__g_edges e;
    fgl_rng r;
    memset(out, 0, sizeof *out);
    if (n < 0 || m < 0 || (long long)m > total)
        return fgl_error_set(err, FGL_ERR_ARG, "gen_gnm: need 0 <= m <= n(n-1)/2 (n = %d, m = %d)", n, m);
    if (m > INT_MAX / 2) return fgl_error_set(err, FGL_ERR_RANGE, "gen_gnm: m = %d does not fit an int CSR", m);
    fgl__g_edges_init(&e);
    if (fgl__g_hset_init(&hs, (size_t)m) || fgl__g_edges_reserve(&e, (size_t)m + 1)) {
        fgl__g_hset_free(&hs);
        fgl__g_edges_free(&e);
        return fgl_error_set(err, FGL_ERR_NOMEM, "gen_gnm: out of memory");
    }
    fgl_rng_init(&r, seed, FGL__G_ST_GEN);
    /* Floyd: for j = total-m .. total-1 take t uniform in [0, j]; if t is
     * taken already take j. Every m-subset is equally likely. */
    for (j = total - m; j < total; j++) {
        long long t = (long long)fgl_rng_below(&r, (uint64_t)j + 1);
        int a, b, added = fgl__g_hset_add(&hs, (uint64_t)t);
        if (added < 0) break;
        if (added == 0) {
            t = j;
            if (fgl__g_hset_add(&hs, (uint64_t)t) < 0) break;
        }
        fgl__g_pair_of_index(t, &a, &b);
        fgl__g_edges_push(&e, a, b);
    }
    if (e.n != (size_t)m) e.err = FGL_ERR_NOMEM;
    fgl__g_hset_free(&hs);
    return fgl__g_finish_edges(n, &e, out, err, "gen_gnm");
}

FGLDEF int fgl_gen_sbm(int n_blocks, const int *sizes, const double *probs, uint64_t seed,
                       fgl_csr *out, int *block_of, fgl_error *err) {
    fgl__g_edges e;
    fgl_rng r;
    long long n = 0;
    double expect = 0;
    int a, b, off_a, off_b;
    memset(out, 0, sizeof *out);
    if (n_blocks < 0 || (n_blocks > 0 && (!sizes || !probs)))
        return fgl_error_set(err, FGL_ERR_ARG, "gen_sbm: %d blocks or NULL sizes / probabilities", n_blocks);
    for (a = 0; a < n_blocks; a++) {
        if (sizes[a] < 0) return fgl_error_set(err, FGL_ERR_ARG, "gen_sbm: block %d has size %d", a, sizes[a]);
        n += sizes[a];
        for (b = 0; b < n_blocks; b++) {
            double p = probs[(size_t)a * n_blocks + b];
            if (!(p >= 0 && p <= 1))
                return fgl_error_set(err, FGL_ERR_ARG, "gen_sbm: probability [%d][%d] = %g outside [0, 1]", a, b, p);
            if (fabs(p - probs[(size_t)b * n_blocks + a]) > 1e-12)
                return fgl_error_set(err, FGL_ERR_ARG, "gen_sbm: probabilities not symmetric at [%d][%d]", a, b);
        }
    }
    if (n > INT_MAX) return fgl_error_set(err, FGL_ERR_RANGE, "gen_sbm: %lld nodes do not fit an int", n);
    for (a = 0; a < n_blocks; a++)
        for (b = a; b < n_blocks; b++)
            expect += probs[(size_t)a * n_blocks + b] *
                      (a == b ? (double)sizes[a] * (sizes[a] - 1) / 2 : (double)sizes[a] * sizes[b]);
    if (expect > (double)INT_MAX / 2)
        return fgl_error_set(err, FGL_ERR_RANGE, "gen_sbm: about %.0f edges do not fit an int CSR", expect);
    fgl__g_edges_init(&e);
    fgl__g_edges_reserve(&e, (size_t)(expect + 6 * sqrt(expect + 1) + 16));
    fgl_rng_init(&r, seed, FGL__G_ST_GEN);
    off_a = 0;
    for (a = 0; a < n_blocks; a++) {
        off_b = off_a;
        for (b = a; b < n_blocks; b++) {
            double p = probs[(size_t)a * n_blocks + b];
            if (a == b) fgl__g_gnp_block(&r, off_a, sizes[a], p, &e);
            else fgl__g_gnp_bipartite(&r, off_a, sizes[a], off_b, sizes[b], p, &e);
            off_b += sizes[b];
        }
        off_a += sizes[a];
    }
    if (block_of) {
        int i = 0, j;
        for (a = 0; a < n_blocks; a++)
            for (j = 0; j < sizes[a]; j++) block_of[i++] = a;
    }
    return fgl__g_finish_edges((int)n, &e, out, err, "gen_sbm");
}

FGLDEF int fgl_gen_ba(int n, int m, uint64_t seed, fgl_csr *out, fgl_error *err) {
    /* rep holds every node once per edge end, so a uniform draw from it is a
     * draw proportional to degree; mark[] stamps the targets of the current
     * node to keep them distinct. */
    fgl__g_edges e;
    fgl_rng r;
    int *rep = NULL, *mark = NULL, *targ = NULL, t, i;
    size_t nrep = 0;
    long long total;
    memset(out, 0, sizeof *out);
    if (m < 1 || m >= n)
        return fgl_error_set(err, FGL_ERR_ARG, "gen_ba: need 1 <= m < n (n = %d, m = %d)", n, m);
    total = (long long)m * (n - m);
    if (total > INT_MAX / 2)
        return fgl_error_set(err, FGL_ERR_RANGE, "gen_ba: %lld edges do not fit an int CSR", total);
    fgl__g_edges_init(&e);
    rep = FGL__G_NEW2(int, total, 2);
    mark = FGL__G_NEW(int, n);
    targ = FGL__G_NEW(int, m);
    if (!rep || !mark || !targ || fgl__g_edges_reserve(&e, (size_t)total + 1)) {
        FGL_FREE(rep);
        FGL_FREE(mark);
        FGL_FREE(targ);
        fgl__g_edges_free(&e);
        return fgl_error_set(err, FGL_ERR_NOMEM, "gen_ba: out of memory");
    }
    for (i = 0; i < n; i++) mark[i] = -1;
    fgl_rng_init(&r, seed, FGL__G_ST_GEN);
    for (i = 0; i < m; i++) targ[i] = i;
    for (t = m; t < n; t++) {
        if (t > m) {
            int got = 0;
            while (got < m) {
                int c = rep[fgl_rng_below(&r, (uint64_t)nrep)];
                if (mark[c] == t) continue;
                mark[c] = t;
                targ[got++] = c;
            }
        }
        for (i = 0; i < m; i++) {
            fgl__g_edges_push(&e, t, targ[i]);
            rep[nrep++] = t;
            rep[nrep++] = targ[i];
        }
    }
    FGL_FREE(rep);
    FGL_FREE(mark);
    FGL_FREE(targ);
    return fgl__g_finish_edges(n, &e, out, err, "gen_ba");
}

FGLDEF int fgl_gen_ws(int n, int k, double beta, uint64_t seed, fgl_csr *out, fgl_error *err) {
    fgl__g_edges e;
    fgl__g_hset hs;
    fgl_rng r;
    int *deg = NULL, j, u;
    size_t idx;
    memset(out, 0, sizeof *out);
    if (n < 0 || k < 0 || k % 2 || (k >= n && k > 0) || !(beta >= 0 && beta <= 1))
        return fgl_error_set(err, FGL_ERR_ARG,
                             "gen_ws: need even 0 <= k < n and 0 <= beta <= 1 (n = %d, k = %d, beta = %g)", n, k, beta);
    if ((long long)n * k / 2 > INT_MAX / 2)
        return fgl_error_set(err, FGL_ERR_RANGE, "gen_ws: too many edges for an int CSR");
    fgl__g_edges_init(&e);
    deg = FGL__G_NEW(int, n);
    if (!deg || fgl__g_hset_init(&hs, (size_t)n * (size_t)k / 2) ||
        fgl__g_edges_reserve(&e, (size_t)n * (size_t)k / 2 + 1)) {
        FGL_FREE(deg);
        fgl__g_edges_free(&e);
        return fgl_error_set(err, FGL_ERR_NOMEM, "gen_ws: out of memory");
    }
    for (u = 0; u < n; u++) deg[u] = k;
    /* Lattice edges in the order (j = 1: all u), (j = 2: all u), ... */
    for (j = 1; j <= k / 2; j++)
        for (u = 0; u < n; u++) {
            int v = (u + j) % n;
            fgl__g_edges_push(&e, u, v);
            if (fgl__g_hset_add(&hs, fgl__g_pair_key(u, v)) < 0) e.err = FGL_ERR_NOMEM;
        }
    fgl_rng_init(&r, seed, FGL__G_ST_GEN);
    for (idx = 0; idx < e.n && !e.err && beta > 0; idx++) {
        int a = e.u[idx], b = e.v[idx], w;
        if (!(fgl_rng_uniform(&r) < beta)) continue;
        if (deg[a] >= n - 1) continue; /* a is linked to everyone */
        do {
            w = (int)fgl_rng_below(&r, (uint64_t)n);
        } while (w == a || fgl__g_hset_has(&hs, fgl__g_pair_key(a, w)));
        fgl__g_hset_del(&hs, fgl__g_pair_key(a, b));
        if (fgl__g_hset_add(&hs, fgl__g_pair_key(a, w)) < 0) e.err = FGL_ERR_NOMEM;
        deg[b]--;
        deg[w]++;
        e.v[idx] = w;
    }
    FGL_FREE(deg);
    fgl__g_hset_free(&hs);
    return fgl__g_finish_edges(n, &e, out, err, "gen_ws");
}

FGLDEF int fgl_gen_config(int n, const int *degree, uint64_t seed, fgl_csr *out, fgl_error *err) {
    fgl__g_edges e;
    fgl_rng r;
    int *stubs, i, j;
    long long total = 0;
    size_t s;
    memset(out, 0, sizeof *out);
    if (n < 0 || (n > 0 && !degree)) return fgl_error_set(err, FGL_ERR_ARG, "gen_config: n = %d or NULL degrees", n);
    for (i = 0; i < n; i++) {
        if (degree[i] < 0) return fgl_error_set(err, FGL_ERR_ARG, "gen_config: degree[%d] = %d", i, degree[i]);
        total += degree[i];
    }
    if (total % 2) return fgl_error_set(err, FGL_ERR_ARG, "gen_config: the degrees sum to %lld, an odd number", total);
    if (total > INT_MAX) return fgl_error_set(err, FGL_ERR_RANGE, "gen_config: %lld stubs do not fit an int", total);
    stubs = FGL__G_NEW(int, total);
    fgl__g_edges_init(&e);
    if (!stubs || fgl__g_edges_reserve(&e, (size_t)total / 2 + 1)) {
        FGL_FREE(stubs);
        fgl__g_edges_free(&e);
        return fgl_error_set(err, FGL_ERR_NOMEM, "gen_config: out of memory");
    }
    s = 0;
    for (i = 0; i < n; i++)
        for (j = 0; j < degree[i]; j++) stubs[s++] = i;
    fgl_rng_init(&r, seed, FGL__G_ST_GEN);
    fgl_rng_shuffle(&r, stubs, (int)total);
    for (s = 0; s + 1 < (size_t)total; s += 2) fgl__g_edges_push(&e, stubs[s], stubs[s + 1]);
    FGL_FREE(stubs);
    return fgl__g_finish_edges(n, &e, out, err, "gen_config"); /* drops loops and repeats */
}

/* --- src/graph/synthetic.h --- */
/* --- synthetic federated benchmarks --------------------------------------- */

FGLDEF fgl_synth_node_config fgl_synth_node_default(void) {
    fgl_synth_node_config c;
    memset(&c, 0, sizeof c);
    c.n_nodes = 3000;
    c.n_communities = 10;
    c.n_classes = 7;
    c.n_feat = 32;
    c.avg_degree = 8.0;
    c.mixing = 0.1;
    c.homophily = 0.7;
    c.label_alpha = 0.5;
    c.feat_signal = 2.0;
    c.feat_shift = 0.5;
    c.feat_noise = 1.0;
    return c;
}

/* Counting sort of the ids 0..n-1 by key (0..nk-1) into ptr (nk + 1) and
 * ids (n); ids of one key stay in increasing order. */
static void fgl__g_bucket(const int *key, int n, int nk, int *ptr, int *ids) {
    int i;
    memset(ptr, 0, sizeof(int) * ((size_t)nk + 1));
    for (i = 0; i < n; i++) ptr[key[i] + 1]++;
    for (i = 0; i < nk; i++) ptr[i + 1] += ptr[i];
    for (i = 0; i < n; i++) ids[ptr[key[i]]++] = i;
    for (i = nk; i > 0; i--) ptr[i] = ptr[i - 1];
    ptr[0] = 0;
}

FGLDEF int fgl_synth_node(const fgl_synth_node_config *cfg_in, uint64_t seed, fgl_node_data *out,
                          int *community, fgl_error *err) {
    fgl_synth_node_config cfg = cfg_in ? *cfg_in : fgl_synth_node_default();
    int n = cfg.n_nodes, B = cfg.n_communities, C = cfg.n_classes, F = cfg.n_feat;
    int *comm = NULL, *perm = NULL, *cptr = NULL, *cids = NULL, *ccptr = NULL, *ccids = NULL, *cckey = NULL;
    double *pi = NULL, *alpha = NULL, *mu = NULL, *nu = NULL;
    fgl__g_edges e;
    fgl_rng r;
    long long E, t;
    int i, c, f, rc;
    memset(out, 0, sizeof *out);
    if (n < 1 || B < 1 || B > n || C < 1 || F < 1 || !(cfg.avg_degree >= 0) || cfg.avg_degree > n ||
        !(cfg.mixing >= 0 && cfg.mixing <= 1) || !(cfg.homophily >= 0 && cfg.homophily <= 1) ||
        !(cfg.label_alpha > 0) || !(cfg.feat_noise >= 0) || !(cfg.feat_signal >= 0) || !(cfg.feat_shift >= 0))
        return fgl_error_set(err, FGL_ERR_ARG,
                             "synth_node: bad configuration (n_nodes %d, n_communities %d, n_classes %d, n_feat %d, "
                             "avg_degree %g, mixing %g, homophily %g, label_alpha %g)",
                             n, B, C, F, cfg.avg_degree, cfg.mixing, cfg.homophily, cfg.label_alpha);
    E = (long long)floor((double)n * cfg.avg_degree / 2 + 0.5);
    fgl__g_edges_init(&e);
    comm = FGL__G_NEW(int, n);
    perm = FGL__G_NEW(int, n);
    cptr = FGL__G_NEW(int, (size_t)B + 1);
    cids = FGL__G_NEW(int, n);
    ccptr = FGL__G_NEW(int, (size_t)B * C + 1);
    ccids = FGL__G_NEW(int, n);
    cckey = FGL__G_NEW(int, n);
    pi = FGL__G_NEW2(double, B, C);
    alpha = FGL__G_NEW(double, C);
    mu = FGL__G_NEW2(double, C, F);
    nu = FGL__G_NEW2(double, B, F);
    out->y = FGL__G_NEW(int, n);
    rc = fgl_tensor_init(&out->x, n, F);
    if (!comm || !perm || !cptr || !cids || !ccptr || !ccids || !cckey || !pi || !alpha || !mu || !nu || !out->y ||
        rc || fgl__g_edges_reserve(&e, (size_t)E + 1)) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "synth_node: out of memory");
        goto fail;
    }
    fgl_rng_init(&r, seed, FGL__G_ST_SYNTH);
    /* communities: a random permutation dealt round-robin */
    for (i = 0; i < n; i++) perm[i] = i;
    fgl_rng_shuffle(&r, perm, n);
    for (i = 0; i < n; i++) comm[perm[i]] = i % B;
    /* class mix of each community, then labels */
    for (c = 0; c < C; c++) alpha[c] = cfg.label_alpha;
    for (i = 0; i < B; i++) fgl_rng_dirichlet(&r, alpha, C, pi + (size_t)i * C);
    for (i = 0; i < n; i++) {
        const double *p = pi + (size_t)comm[i] * C;
        double u = fgl_rng_uniform(&r), acc = 0;
        int y = C - 1;
        for (c = 0; c < C; c++) {
            acc += p[c];
            if (u < acc) {
                y = c;
                break;
            }
        }
        out->y[i] = y;
        cckey[i] = comm[i] * C + y;
    }
    fgl__g_bucket(comm, n, B, cptr, cids);
    fgl__g_bucket(cckey, n, B * C, ccptr, ccids);
    /* edges */
    for (t = 0; t < E; t++) {
        int u = (int)fgl_rng_below(&r, (uint64_t)n), cu = comm[u], yu = out->y[u], d = cu, v;
        int outside = B > 1 && fgl_rng_uniform(&r) < cfg.mixing;
        int same = fgl_rng_uniform(&r) < cfg.homophily;
        int k0, k1;
        if (outside) {
            d = (int)fgl_rng_below(&r, (uint64_t)(B - 1));
            if (d >= cu) d++;
        }
        k0 = ccptr[d * C + yu];
        k1 = ccptr[d * C + yu + 1];
        if (same && k1 - k0 > (d == cu ? 1 : 0)) v = ccids[k0 + (int)fgl_rng_below(&r, (uint64_t)(k1 - k0))];
        else v = cids[cptr[d] + (int)fgl_rng_below(&r, (uint64_t)(cptr[d + 1] - cptr[d]))];
        fgl__g_edges_push(&e, u, v);
    }
    /* features */
    for (i = 0; i < C * F; i++) mu[i] = fgl_rng_normal(&r) * cfg.feat_signal / sqrt(2.0 * F);
    for (i = 0; i < B * F; i++) nu[i] = fgl_rng_normal(&r) * cfg.feat_shift / sqrt((double)F);
    for (i = 0; i < n; i++) {
        float *xi = out->x.data + (size_t)i * F;
        const double *m = mu + (size_t)out->y[i] * F, *s = nu + (size_t)comm[i] * F;
        for (f = 0; f < F; f++) xi[f] = (float)(m[f] + s[f] + cfg.feat_noise * fgl_rng_normal(&r));
    }
    rc = fgl__g_finish_edges(n, &e, &out->adj, err, "synth_node");
    if (rc) goto fail;
    if (community) memcpy(community, comm, sizeof(int) * (size_t)n);
    snprintf(out->name, sizeof out->name, "%s", "synth-node");
    out->n_nodes = n;
    out->n_feat = F;
    out->n_classes = C;
    goto done;
fail:
    fgl__g_edges_free(&e);
    fgl_tensor_free(&out->x);
    fgl_csr_free(&out->adj);
    FGL_FREE(out->y);
    memset(out, 0, sizeof *out);
done:
    FGL_FREE(comm);
    FGL_FREE(perm);
    FGL_FREE(cptr);
    FGL_FREE(cids);
    FGL_FREE(ccptr);
    FGL_FREE(ccids);
    FGL_FREE(cckey);
    FGL_FREE(pi);
    FGL_FREE(alpha);
    FGL_FREE(mu);
    FGL_FREE(nu);
    return rc;
}

FGLDEF fgl_synth_graphs_config fgl_synth_graphs_default(void) {
    fgl_synth_graphs_config c;
    memset(&c, 0, sizeof c);
    c.n_graphs = 600;
    c.n_classes = 3;
    c.min_nodes = 12;
    c.max_nodes = 36;
    c.avg_degree = 3.0;
    c.n_node_labels = 4;
    c.node_label_noise = 0.2;
    c.label_noise = 0.05;
    return c;
}

/* Edges of one small graph under construction (local ids), kept distinct. */
typedef struct fgl__g_small {
    int n, m;          /* nodes, edges so far */
    int *a, *b;        /* edges (capacity cap) */
    int cap;
    fgl__g_hset hs;
    int err;
} fgl__g_small;

static int fgl__g_small_add(fgl__g_small *s, int a, int b) {
    int added;
    if (a == b || s->err || s->m >= s->cap) return 0;
    added = fgl__g_hset_add(&s->hs, fgl__g_pair_key(a, b));
    if (added < 0) s->err = FGL_ERR_NOMEM;
    if (added <= 0) return 0;
    s->a[s->m] = a;
    s->b[s->m] = b;
    s->m++;
    return 1;
}

/* Fill up to `target` edges with uniformly random new pairs. */
static void fgl__g_small_fill_random(fgl__g_small *s, int target, fgl_rng *r) {
    while (s->m < target && !s->err) {
        int a = (int)fgl_rng_below(r, (uint64_t)s->n), b = (int)fgl_rng_below(r, (uint64_t)s->n);
        fgl__g_small_add(s, a, b);
    }
}

static void fgl__g_small_hubs(fgl__g_small *s, int target, fgl_rng *r, int *rep, int *mark) {
    /* Growth with attachment probability proportional to degree + 1: rep holds
     * each node once plus once per edge end. Node t adds ceil(R / (n - t))
     * edges (R edges still to place), at most t. */
    int n = s->n, nrep = 0, t, i;
    if (n < 2 || target < 1) return;
    for (i = 0; i < n; i++) mark[i] = -1;
    rep[nrep++] = 0;
    rep[nrep++] = 1;
    fgl__g_small_add(s, 1, 0);
    rep[nrep++] = 0;
    rep[nrep++] = 1;
    for (t = 2; t < n && s->m < target; t++) {
        int R = target - s->m, a = (R + (n - t) - 1) / (n - t), got = 0;
        if (a > t) a = t;
        while (got < a) {
            int c = rep[fgl_rng_below(r, (uint64_t)nrep)];
            if (mark[c] == t) continue;
            mark[c] = t;
            if (fgl__g_small_add(s, t, c)) {
                rep[nrep++] = c;
                rep[nrep++] = t;
            }
            got++;
        }
        rep[nrep++] = t;
    }
    /* early nodes could not take their share: add preferential pairs */
    for (i = 0; s->m < target && i < 50 * target && !s->err; i++)
        fgl__g_small_add(s, rep[fgl_rng_below(r, (uint64_t)nrep)], rep[fgl_rng_below(r, (uint64_t)nrep)]);
    fgl__g_small_fill_random(s, target, r);
}

static void fgl__g_small_triangles(fgl__g_small *s, int target, fgl_rng *r) {
    int tries = 0;
    while (s->m < target && !s->err && tries++ < 100 * target + 100) {
        int a = (int)fgl_rng_below(r, (uint64_t)s->n), b = (int)fgl_rng_below(r, (uint64_t)s->n);
        int c = (int)fgl_rng_below(r, (uint64_t)s->n);
        if (a == b || b == c || a == c) continue;
        fgl__g_small_add(s, a, b);
        if (s->m < target) fgl__g_small_add(s, b, c);
        if (s->m < target) fgl__g_small_add(s, c, a);
    }
    fgl__g_small_fill_random(s, target, r);
}

static void fgl__g_small_ring(fgl__g_small *s, int target, fgl_rng *r, int *perm) {
    /* A Hamiltonian cycle, then rounds of chords pairing the nodes of a
     * random permutation two by two (each round adds at most one edge per
     * node), so every degree is within one or two of the mean. */
    int n = s->n, u, round, i;
    for (u = 0; u < n && s->m < target; u++) fgl__g_small_add(s, u, (u + 1) % n);
    for (round = 0; s->m < target && round < 4 * n && !s->err; round++) {
        for (i = 0; i < n; i++) perm[i] = i;
        fgl_rng_shuffle(r, perm, n);
        for (i = 0; i + 1 < n && s->m < target; i += 2) fgl__g_small_add(s, perm[i], perm[i + 1]);
    }
    fgl__g_small_fill_random(s, target, r);
}

FGLDEF int fgl_synth_graphs(const fgl_synth_graphs_config *cfg_in, uint64_t seed, fgl_graph_set *out,
                            fgl_error *err) {
    fgl_synth_graphs_config cfg = cfg_in ? *cfg_in : fgl_synth_graphs_default();
    int G = cfg.n_graphs, C = cfg.n_classes, L = cfg.n_node_labels, maxn = cfg.max_nodes;
    int *truth = NULL, *deg = NULL, *rep = NULL, *mark = NULL, g, i, rc;
    long long total_nodes = 0;
    fgl__g_small s;
    fgl__g_edges e;
    fgl_rng r;
    memset(out, 0, sizeof *out);
    memset(&s, 0, sizeof s);
    fgl__g_edges_init(&e);
    if (G < 1 || C < 1 || C > 4 || cfg.min_nodes < 3 || maxn < cfg.min_nodes || maxn > 10000 || L < 1 ||
        !(cfg.avg_degree >= 0) || cfg.avg_degree > maxn || !(cfg.node_label_noise >= 0 && cfg.node_label_noise <= 1) ||
        !(cfg.label_noise >= 0 && cfg.label_noise <= 1))
        return fgl_error_set(
            err, FGL_ERR_ARG,
            "synth_graphs: bad configuration (n_graphs %d, n_classes %d (1..4), nodes %d..%d (3..10000), "
            "n_node_labels %d, avg_degree %g)",
            G, C, cfg.min_nodes, maxn, L, cfg.avg_degree);
    if ((long long)G * maxn > INT_MAX / 4)
        return fgl_error_set(err, FGL_ERR_RANGE, "synth_graphs: too many nodes for an int");
    s.cap = (int)((double)maxn * cfg.avg_degree / 2 + 1) + 1;
    if (s.cap > maxn * (maxn - 1) / 2) s.cap = maxn * (maxn - 1) / 2;
    truth = FGL__G_NEW(int, G);
    deg = FGL__G_NEW(int, maxn);
    mark = FGL__G_NEW(int, maxn);
    rep = FGL__G_NEW(int, (size_t)maxn + 4 * (size_t)s.cap + 4);
    s.a = FGL__G_NEW(int, (size_t)s.cap);
    s.b = FGL__G_NEW(int, (size_t)s.cap);
    out->node_ptr = FGL__G_NEW(int, (size_t)G + 1);
    out->y = FGL__G_NEW(int, G);
    if (!truth || !deg || !mark || !rep || !s.a || !s.b || !out->node_ptr || !out->y ||
        fgl__g_hset_init(&s.hs, (size_t)s.cap)) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "synth_graphs: out of memory");
        goto fail;
    }
    fgl_rng_init(&r, seed, FGL__G_ST_SYNTH);
    for (g = 0; g < G; g++) truth[g] = g % C;
    fgl_rng_shuffle(&r, truth, G);
    /* sizes first, so node_labels can be allocated once */
    out->node_ptr[0] = 0;
    for (g = 0; g < G; g++) {
        int ng = cfg.min_nodes + (int)fgl_rng_below(&r, (uint64_t)(maxn - cfg.min_nodes + 1));
        out->node_ptr[g + 1] = out->node_ptr[g] + ng;
    }
    total_nodes = out->node_ptr[G];
    out->node_labels = FGL__G_NEW(int, total_nodes);
    if (!out->node_labels || fgl__g_edges_reserve(&e, (size_t)((double)total_nodes * cfg.avg_degree / 2 + G + 16))) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "synth_graphs: out of memory");
        goto fail;
    }
    for (g = 0; g < G; g++) {
        int off = out->node_ptr[g], ng = out->node_ptr[g + 1] - off, target;
        size_t k;
        double mt = floor((double)ng * cfg.avg_degree / 2 + 0.5);
        target = mt > (double)ng * (ng - 1) / 2 ? ng * (ng - 1) / 2 : (int)mt;
        if (target > s.cap) target = s.cap;
        s.n = ng;
        s.m = 0;
        for (k = 0; k < s.hs.cap; k++) s.hs.keys[k] = FGL__G_HS_EMPTY;
        s.hs.n = s.hs.used = 0;
        switch (truth[g]) {
        case 0: fgl__g_small_fill_random(&s, target, &r); break;
        case 1: fgl__g_small_hubs(&s, target, &r, rep, mark); break;
        case 2: fgl__g_small_triangles(&s, target, &r); break;
        default: fgl__g_small_ring(&s, target, &r, mark); break;
        }
        if (s.err) {
            rc = fgl_error_set(err, FGL_ERR_NOMEM, "synth_graphs: out of memory");
            goto fail;
        }
        memset(deg, 0, sizeof(int) * (size_t)ng);
        for (i = 0; i < s.m; i++) {
            deg[s.a[i]]++;
            deg[s.b[i]]++;
            fgl__g_edges_push(&e, off + s.a[i], off + s.b[i]);
        }
        for (i = 0; i < ng; i++) {
            int d = deg[i] < 1 ? 1 : deg[i] > L ? L : deg[i];
            out->node_labels[off + i] =
                fgl_rng_uniform(&r) < cfg.node_label_noise ? (int)fgl_rng_below(&r, (uint64_t)L) : d - 1;
        }
        out->y[g] = fgl_rng_uniform(&r) < cfg.label_noise ? (int)fgl_rng_below(&r, (uint64_t)C) : truth[g];
    }
    rc = fgl__g_finish_edges((int)total_nodes, &e, &out->adj, err, "synth_graphs");
    if (rc) goto fail;
    snprintf(out->name, sizeof out->name, "%s", "synth-graphs");
    out->n_graphs = G;
    out->n_nodes = (int)total_nodes;
    out->n_classes = C;
    out->n_node_label_values = L;
    goto done;
fail:
    fgl__g_edges_free(&e);
    FGL_FREE(out->node_ptr);
    FGL_FREE(out->y);
    FGL_FREE(out->node_labels);
    fgl_csr_free(&out->adj);
    memset(out, 0, sizeof *out);
done:
    fgl__g_hset_free(&s.hs);
    FGL_FREE(s.a);
    FGL_FREE(s.b);
    FGL_FREE(truth);
    FGL_FREE(deg);
    FGL_FREE(mark);
    FGL_FREE(rep);
    return rc;
}

/* --- src/graph/properties.h --- */
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

/* --- src/graph/homophily.h --- */
/* --- homophily ------------------------------------------------------------ */

FGLDEF double fgl_edge_homophily(const fgl_csr *adj, const int *labels) {
    long long same = 0, all = 0;
    int i, k;
    for (i = 0; i < adj->rows; i++) {
        if (labels[i] < 0) continue;
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) {
            int j = adj->indices[k];
            if (j == i || labels[j] < 0) continue;
            all++;
            same += labels[j] == labels[i];
        }
    }
    return all ? (double)same / (double)all : NAN;
}

FGLDEF double fgl_node_homophily(const fgl_csr *adj, const int *labels) {
    double sum = 0;
    int i, k, counted = 0;
    for (i = 0; i < adj->rows; i++) {
        int all = 0, same = 0;
        if (labels[i] < 0) continue;
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) {
            int j = adj->indices[k];
            if (j == i || labels[j] < 0) continue;
            all++;
            same += labels[j] == labels[i];
        }
        if (all) {
            sum += (double)same / all;
            counted++;
        }
    }
    return counted ? sum / counted : NAN;
}

static double fgl__h_xlnx(double x) { return x > 0 ? x * log(x) : 0.0; }

/* The measures of one group: the labelled nodes order[0..m), sorted by
 * label, and the edges between them (to nodes j with part[j] == p, every
 * labelled j when part is NULL). row and touched: C-long work arrays, row
 * zero on entry and left zero. */
static void fgl__h_group(const fgl_csr *adj, const int *labels, const int *part, int p, const int *order, int m,
                         long long *row, int *touched, fgl_homophily *out) {
    long long T = 0, same_all = 0;
    double node_sum = 0, lim_sum = 0, sum_dlnd = 0, sum_p2 = 0, sum_nlnn = 0;
    int a = 0, node_cnt = 0, classes = 0, edge_classes = 0;
    while (a < m) { /* one class: order[a..b) */
        int c = labels[order[a]], b = a, nt = 0, t;
        long long Dk = 0, Sk = 0;
        for (; b < m && labels[order[b]] == c; b++) {
            int v = order[b], k, d = 0, s = 0;
            for (k = adj->indptr[v]; k < adj->indptr[v + 1]; k++) {
                int j = adj->indices[k], yj = labels[j];
                if (j == v || yj < 0 || (part && part[j] != p)) continue;
                d++;
                s += yj == c;
                if (row[yj]++ == 0) touched[nt++] = yj;
            }
            if (d) {
                node_sum += (double)s / d;
                node_cnt++;
            }
            Dk += d;
            Sk += s;
        }
        for (t = 0; t < nt; t++) { /* the joint counts of (c, .) */
            sum_nlnn += fgl__h_xlnx((double)row[touched[t]]);
            row[touched[t]] = 0;
        }
        classes++;
        if (Dk) {
            double hk = (double)Sk / (double)Dk - (double)(b - a) / m;
            edge_classes++;
            if (hk > 0) lim_sum += hk;
            sum_dlnd += fgl__h_xlnx((double)Dk);
        }
        T += Dk;
        same_all += Sk;
        sum_p2 += (double)Dk * (double)Dk; /* D_k^2 until T is known */
        a = b;
    }
    memset(out, 0, sizeof *out);
    out->edges = (long)(T / 2);
    out->nodes = m;
    out->classes = classes;
    out->edge = out->node = out->adjusted = out->class_insensitive = out->label_informativeness = NAN;
    if (T == 0) return;
    out->edge = (double)same_all / (double)T;
    if (node_cnt) out->node = node_sum / node_cnt;
    if (edge_classes >= 2) {
        double Td = (double)T, h_marg, h_joint;
        sum_p2 /= Td * Td;
        out->adjusted = (out->edge - sum_p2) / (1 - sum_p2);
        /* H = ln T - (1/T) sum D_k ln D_k, H_joint likewise over the counts */
        h_marg = log(Td) - sum_dlnd / Td;
        h_joint = log(Td) - sum_nlnn / Td;
        out->label_informativeness = h_marg > 0 ? 2.0 - h_joint / h_marg : NAN;
    }
    if (classes >= 2) out->class_insensitive = lim_sum / (classes - 1);
}

/* The labelled nodes (with part in 0..n_parts-1 when part is given) sorted
 * by (part, label) into order, starts[p] .. starts[p+1]-1 those of part p
 * (n_parts 1 without part); *C_out the largest label + 1. */
static int fgl__h_order(const fgl_csr *adj, const int *labels, const int *part, int n_parts, int **order_out,
                        int **starts_out, int *C_out) {
    int n = adj->rows, C = 0, i, m = 0, *cnt = NULL, *tmp = NULL, *order = NULL, *starts = NULL;
    for (i = 0; i < n; i++)
        if (labels[i] >= 0 && labels[i] + 1 > C) C = labels[i] + 1;
    *C_out = C;
    cnt = FGL__G_NEW(int, (C > n_parts ? C : n_parts) + 1);
    tmp = FGL__G_NEW(int, n);
    order = FGL__G_NEW(int, n);
    starts = FGL__G_NEW(int, n_parts + 1);
    if (!cnt || !tmp || !order || !starts) {
        FGL_FREE(cnt);
        FGL_FREE(tmp);
        FGL_FREE(order);
        FGL_FREE(starts);
        return FGL_ERR_NOMEM;
    }
#define FGL__H_IN(v) (labels[v] >= 0 && (!part || (part[v] >= 0 && part[v] < n_parts)))
    /* counting sort by label into tmp, then a stable one by part into order */
    memset(cnt, 0, sizeof(int) * (size_t)(C + 1));
    for (i = 0; i < n; i++)
        if (FGL__H_IN(i)) cnt[labels[i] + 1]++;
    for (i = 0; i < C; i++) cnt[i + 1] += cnt[i];
    for (i = 0; i < n; i++)
        if (FGL__H_IN(i)) tmp[cnt[labels[i]]++] = i;
    m = C ? cnt[C - 1] : 0;
    memset(starts, 0, sizeof(int) * (size_t)(n_parts + 1));
    for (i = 0; i < m; i++) starts[(part ? part[tmp[i]] : 0) + 1]++;
    for (i = 0; i < n_parts; i++) starts[i + 1] += starts[i];
    memcpy(cnt, starts, sizeof(int) * (size_t)n_parts);
    for (i = 0; i < m; i++) order[cnt[part ? part[tmp[i]] : 0]++] = tmp[i];
#undef FGL__H_IN
    FGL_FREE(cnt);
    FGL_FREE(tmp);
    *order_out = order;
    *starts_out = starts;
    return FGL_OK;
}

static int fgl__h_run(const fgl_csr *adj, const int *labels, const int *part, int n_parts, fgl_homophily *out,
                      fgl_error *err) {
    int *order = NULL, *starts = NULL, *touched = NULL, C = 0, p, rc;
    long long *row = NULL;
    if (!adj || !labels || !out || adj->rows != adj->cols || adj->rows < 0)
        return fgl_error_set(err, FGL_ERR_ARG, "homophily: need a square graph, its labels and room for the result");
    if (n_parts < 1) return fgl_error_set(err, FGL_ERR_ARG, "partition_homophily: %d parts", n_parts);
    rc = fgl__h_order(adj, labels, part, n_parts, &order, &starts, &C);
    if (rc == FGL_OK) {
        row = (long long *)fgl__g_alloc(NULL, (size_t)C, 1, sizeof(long long));
        touched = FGL__G_NEW(int, C);
        if (!row || !touched) rc = FGL_ERR_NOMEM;
        else memset(row, 0, sizeof(long long) * (size_t)(C ? C : 1));
    }
    if (rc == FGL_OK)
        for (p = 0; p < n_parts; p++)
            fgl__h_group(adj, labels, part, p, order + starts[p], starts[p + 1] - starts[p], row, touched, out + p);
    FGL_FREE(order);
    FGL_FREE(starts);
    FGL_FREE(row);
    FGL_FREE(touched);
    return rc == FGL_OK ? FGL_OK : fgl_error_set(err, rc, "homophily: out of memory (%d nodes, %d classes)", adj->rows, C);
}

FGLDEF int fgl_graph_homophily(const fgl_csr *adj, const int *labels, fgl_homophily *out, fgl_error *err) {
    return fgl__h_run(adj, labels, NULL, 1, out, err);
}

FGLDEF int fgl_partition_homophily(const fgl_csr *adj, const int *labels, const int *part, int n_parts,
                                   fgl_homophily *out, fgl_error *err) {
    if (!part) return fgl_error_set(err, FGL_ERR_ARG, "partition_homophily: no partition");
    return fgl__h_run(adj, labels, part, n_parts, out, err);
}

FGLDEF double fgl_adjusted_homophily(const fgl_csr *adj, const int *labels) {
    fgl_homophily h;
    return fgl_graph_homophily(adj, labels, &h, NULL) == FGL_OK ? h.adjusted : NAN;
}

FGLDEF double fgl_class_insensitive_homophily(const fgl_csr *adj, const int *labels) {
    fgl_homophily h;
    return fgl_graph_homophily(adj, labels, &h, NULL) == FGL_OK ? h.class_insensitive : NAN;
}

FGLDEF double fgl_label_informativeness(const fgl_csr *adj, const int *labels) {
    fgl_homophily h;
    return fgl_graph_homophily(adj, labels, &h, NULL) == FGL_OK ? h.label_informativeness : NAN;
}
/* --- src/graph/encodings.h --- */
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

/* --- src/graph/dataset.h --- */
/* --- datasets: lifetime, validation, cache -------------------------------- */

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
    FGL_FREE(d->gid);
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

/* The graph contract (top of the file): the one place that checks it.
 * loops_ok lets self loops through (METIS ignores them, Louvain weighs them). */
static int fgl__g_check_graph(const fgl_csr *a, int loops_ok, const char *what, fgl_error *err) {
    int rc, i, k;
    if (a->rows != a->cols)
        return fgl_error_set(err, FGL_ERR_SHAPE, "%s: the adjacency is %d x %d, not square", what, a->rows,
                             a->cols);
    rc = fgl_csr_validate(a, err); /* also: columns strictly increase */
    if (rc) return rc;
    for (i = 0; i < a->rows && !loops_ok; i++)
        for (k = a->indptr[i]; k < a->indptr[i + 1]; k++)
            if (a->indices[k] == i)
                return fgl_error_set(err, FGL_ERR_FORMAT, "%s: self loop at node %d", what, i);
    if (!fgl_graph_is_symmetric(a))
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: adjacency is not symmetric", what);
    return FGL_OK;
}

/* The check for a function given a graph argument: any failure is
 * FGL_ERR_ARG, with the reason after the function's name. */
static int fgl__g_check_graph_arg(const fgl_csr *a, int loops_ok, const char *who, fgl_error *err) {
    fgl_error why;
    if (fgl__g_check_graph(a, loops_ok, "adjacency", &why) == FGL_OK) return FGL_OK;
    return fgl_error_set(err, FGL_ERR_ARG, "%s: %s", who, why.msg);
}

FGLDEF int fgl_graph_validate(const fgl_csr *adj, fgl_error *err) {
    return fgl__g_check_graph(adj, 0, "graph", err);
}

FGLDEF int fgl_node_data_validate(const fgl_node_data *d, fgl_error *err) {
    int n = d->n_nodes, i, rc;
    if (n < 0 || d->n_feat < 0 || d->n_classes < 0)
        return fgl_error_set(err, FGL_ERR_ARG, "node data: negative size");
    if (d->adj.rows != n)
        return fgl_error_set(err, FGL_ERR_SHAPE, "node data: adjacency is %d x %d, expected %d x %d", d->adj.rows,
                             d->adj.cols, n, n);
    rc = fgl__g_check_graph(&d->adj, 0, "node data", err);
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
    if (s->adj.rows != n)
        return fgl_error_set(err, FGL_ERR_SHAPE, "graph set: adjacency is %d x %d, expected %d x %d", s->adj.rows,
                             s->adj.cols, n, n);
    rc = fgl__g_check_graph(&s->adj, 0, "graph set", err);
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

/* The GCN matrix of adj in *cache, built on the first call (cache->indptr
 * NULL until then); what names the data in the error. */
static const fgl_csr *fgl__gcn_cached(const fgl_csr *adj, fgl_csr *cache, const char *what, fgl_error *err) {
    int rc;
    if (cache->indptr) return cache;
    rc = fgl_gcn_norm(adj, cache);
    if (rc) {
        fgl_error_set(err, rc, "%s: cannot build the GCN matrix", what);
        return NULL;
    }
    return cache;
}

FGLDEF const fgl_csr *fgl_node_data_gcn(fgl_node_data *d, fgl_error *err) {
    char what[FGL_NAME_LEN + 16];
    snprintf(what, sizeof what, "node data %s", d->name);
    return fgl__gcn_cached(&d->adj, &d->adj_gcn, what, err);
}

FGLDEF const fgl_csr *fgl_batch_gcn(fgl_batch *b, fgl_error *err) {
    char what[48];
    snprintf(what, sizeof what, "batch of %d graphs", b->n_graphs);
    return fgl__gcn_cached(&b->adj, &b->adj_gcn, what, err);
}

/* --- batches and subsets -------------------------------------------------- */

/* Copy graphs ids[0..n-1] of s into a block-diagonal adjacency with node
 * offsets (n + 1). Columns are shifted per block, so rows stay sorted. The
 * blocks' places are known from their sizes, so a large batch copies them
 * in parallel (outside another parallel region: a client's thread copies
 * on its own); an edge that leaves its graph is reported as a serial copy
 * would find it first. */

static int fgl__g_gather_blocks(const fgl_graph_set *s, const int *ids, int n, fgl_csr *adj,
                              int *offsets, fgl_error *err) {
    int b, nn = 0, nnz = 0, rc, par;
    int *at; /* at[b]: where block b's entries start; at[n + 1 + b]: block b has an edge leaving it */
    memset(adj, 0, sizeof *adj);
    offsets[0] = 0;
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
        offsets[b + 1] = nn;
    }
    at = (int *)FGL_MALLOC(sizeof(int) * (2 * (size_t)n + 1));
    rc = at ? fgl_csr_init(adj, nn, nn, nnz, 0) : FGL_ERR_NOMEM;
    if (rc) {
        FGL_FREE(at);
        return fgl_error_set(err, rc, "%s: out of memory for a batch", s->name);
    }
    at[0] = 0;
    for (b = 0; b < n; b++) {
        int g = ids[b];
        at[b + 1] = at[b] + (s->adj.indptr[s->node_ptr[g + 1]] - s->adj.indptr[s->node_ptr[g]]);
    }
    par = fgl__threads_entries((size_t)nnz + (size_t)nn);
    (void)par; /* read by the OpenMP pragma only */
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(par)
#endif
    for (b = 0; b < n; b++) {
        int g = ids[b], lo = s->node_ptr[g], hi = s->node_ptr[g + 1], shift = offsets[b] - lo, w = at[b], i, k;
        at[n + 1 + b] = 0;
        for (i = lo; i < hi && !at[n + 1 + b]; i++) {
            for (k = s->adj.indptr[i]; k < s->adj.indptr[i + 1]; k++) {
                int j = s->adj.indices[k];
                if (j < lo || j >= hi) {
                    at[n + 1 + b] = 1;
                    break;
                }
                adj->indices[w++] = j + shift;
            }
            adj->indptr[i + shift + 1] = w;
        }
    }
    for (b = 0; b < n; b++) {
        int g = ids[b], lo = s->node_ptr[g], hi = s->node_ptr[g + 1], i, k;
        if (!at[n + 1 + b]) continue;
        for (i = lo; i < hi; i++) /* the first edge out of the first such graph */
            for (k = s->adj.indptr[i]; k < s->adj.indptr[i + 1]; k++) {
                int j = s->adj.indices[k];
                if (j < lo || j >= hi) {
                    FGL_FREE(at);
                    fgl_csr_free(adj);
                    return fgl_error_set(err, FGL_ERR_FORMAT, "%s: edge (%d, %d) leaves graph %d", s->name, i, j, g);
                }
            }
    }
    FGL_FREE(at);
    return FGL_OK;
}

/* Copy rows [lo, hi) of a width-w float matrix to dst (advancing it). */
static float *fgl__g_copy_rows(float *dst, const float *src, int w, int lo, int hi) {
    size_t cnt = (size_t)(hi - lo) * (size_t)w;
    if (cnt) memcpy(dst, src + (size_t)lo * (size_t)w, sizeof(float) * cnt);
    return dst + cnt;
}

FGLDEF int fgl_batch_make(const fgl_graph_set *s, const int *ids, int n, fgl_batch *b,
                          fgl_error *err) {
    int rc, bi;
    memset(b, 0, sizeof *b);
    if (n <= 0 || !ids) return fgl_error_set(err, FGL_ERR_EMPTY, "%s: empty batch", s->name);
    b->offsets = FGL__G_NEW(int, n + 1);
    b->y = FGL__G_NEW(int, n);
    b->ids = FGL__G_NEW(int, n);
    if (!b->offsets || !b->y || !b->ids) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory for a batch", s->name);
        goto fail;
    }
    rc = fgl__g_gather_blocks(s, ids, n, &b->adj, b->offsets, err);
    if (rc) goto fail;
    b->n_graphs = n;
    b->n_nodes = b->adj.rows;
    b->graph_of_node = FGL__G_NEW(int, b->n_nodes);
    if (s->x) b->x = FGL__G_NEW2(float, b->n_nodes, s->n_feat);
    if (s->pe) b->pe = FGL__G_NEW2(float, b->n_nodes, s->n_pe);
    if (!b->graph_of_node || (s->x && !b->x) || (s->pe && !b->pe)) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory for a batch", s->name);
        goto fail;
    }
    b->n_feat = s->x ? s->n_feat : 0;
    b->n_pe = s->pe ? s->n_pe : 0;
    { /* each graph's rows in its block, in parallel as the adjacency was */
        int par = fgl__threads_entries((size_t)b->adj.nnz + (size_t)b->n_nodes);
        (void)par;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(par)
#endif
        for (bi = 0; bi < n; bi++) {
            int g = ids[bi], lo = s->node_ptr[g], hi = s->node_ptr[g + 1], at = b->offsets[bi], v;
            for (v = at; v < b->offsets[bi + 1]; v++) b->graph_of_node[v] = bi;
            if (b->x) fgl__g_copy_rows(b->x + (size_t)at * (size_t)s->n_feat, s->x, s->n_feat, lo, hi);
            if (b->pe) fgl__g_copy_rows(b->pe + (size_t)at * (size_t)s->n_pe, s->pe, s->n_pe, lo, hi);
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
    out->node_ptr = FGL__G_NEW(int, n + 1);
    out->y = FGL__G_NEW(int, n);
    if (!out->node_ptr || !out->y) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory for a subset", s->name);
        goto fail;
    }
    rc = fgl__g_gather_blocks(s, ids, n, &out->adj, out->node_ptr, err);
    if (rc) goto fail;
    fgl__g_name_copy(out->name, s->name);
    out->n_graphs = n;
    out->n_nodes = out->adj.rows;
    out->n_classes = s->n_classes;
    out->n_node_label_values = s->n_node_label_values;
    nn = (size_t)out->n_nodes;
    if (s->split) out->split = FGL__G_NEW(unsigned char, n);
    if (s->node_labels) out->node_labels = FGL__G_NEW(int, nn);
    if (s->node_attr) out->node_attr = FGL__G_NEW2(float, nn, s->n_node_attr);
    if (s->x) out->x = FGL__G_NEW2(float, nn, s->n_feat);
    if (s->pe) out->pe = FGL__G_NEW2(float, nn, s->n_pe);
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
            if (pa) pa = fgl__g_copy_rows(pa, s->node_attr, s->n_node_attr, lo, hi);
            if (px) px = fgl__g_copy_rows(px, s->x, s->n_feat, lo, hi);
            if (pp) pp = fgl__g_copy_rows(pp, s->pe, s->n_pe, lo, hi);
        }
    }
    return FGL_OK;
fail:
    fgl_graph_set_free(out);
    return rc;
}

/* --- features and labels -------------------------------------------------- */

FGLDEF int fgl_graph_set_max_degree(const fgl_graph_set *s) {
    int i, m = 0;
    for (i = 0; i < s->adj.rows; i++)
        if (fgl__g_deg(&s->adj, i) > m) m = fgl__g_deg(&s->adj, i);
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
    x = FGL__G_NEW2(float, s->n_nodes, w);
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
            int d = fgl__g_deg(&s->adj, i);
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
static int fgl__g_csr_own_values(fgl_csr *a) {
    int k;
    if (a->values || !a->indptr) return FGL_OK;
    a->values = FGL__G_NEW(float, a->nnz);
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
        if (fgl__g_csr_own_values(a)) return FGL_ERR_NOMEM;
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
        int range = hi - lo + 1, *rank = FGL__G_NEW(int, range);
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
    v = FGL__G_NEW(int, n);
    if (!v) return FGL_ERR_NOMEM;
    if (n) memcpy(v, y, sizeof(int) * (size_t)n);
    fgl__g_sort_ints(v, (size_t)n);
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

/* --- node-data subgraphs and client datasets ------------------------------ */

FGLDEF int fgl_node_data_subgraph(const fgl_node_data *d, const int *nodes, int n,
                                  fgl_node_data *out, fgl_error *err) {
    int rc, i, k;
    memset(out, 0, sizeof *out);
    rc = fgl_graph_subgraph(&d->adj, nodes, n, &out->adj, NULL, err);
    if (rc) return rc;
    fgl__g_name_copy(out->name, d->name);
    out->n_nodes = n;
    out->n_feat = d->n_feat;
    out->n_classes = d->n_classes;
    out->y = FGL__G_NEW(int, n);
    if (d->split) out->split = FGL__G_NEW(unsigned char, n);
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
    int *nodes = FGL__G_NEW(int, d->n_nodes), cnt, rc;
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
        fgl__g_name_indexed(clients[c].name, d->name, c);
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
    ptr = FGL__G_NEW(int, k + 1);
    pos = FGL__G_NEW(int, k);
    nodes = FGL__G_NEW(int, d->n_nodes);
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

/* --- the halo: cross-client edges kept (fgl_split_halo) ----------------------- */

/* Client c of clients (own nodes: part c's, in increasing id) with its halo
 * of `hops` hops: a new node data in out. mark: d->n_nodes ints, all -1 on
 * entry and on return; list: room for d->n_nodes ints. */
static int fgl__halo_one(const fgl_node_data *d, const int *part, int c, int hops, const fgl_node_data *own,
                         const double *dinv, int *mark, int *list, fgl_node_data *out, fgl_error *err) {
    const fgl_csr *a = &d->adj;
    int n = 0, n_own, h, i, k, r, w, rc, lo;
    for (i = 0; i < d->n_nodes; i++)
        if (part[i] == c) {
            mark[i] = n;
            list[n++] = i;
        }
    n_own = n;
    if (n_own != own->n_nodes) {
        for (i = 0; i < n; i++) mark[list[i]] = -1;
        return fgl_error_set(err, FGL_ERR_ARG, "%s: client %d holds %d nodes, its part %d", d->name, c,
                             own->n_nodes, n_own);
    }
    for (h = 0, lo = 0; h < hops; h++) { /* breadth first: the nodes first reached at hop h + 1 */
        int hi = n;
        for (r = lo; r < hi; r++)
            for (k = a->indptr[list[r]]; k < a->indptr[list[r] + 1]; k++)
                if (mark[a->indices[k]] < 0 && part[a->indices[k]] >= 0) { /* a node of no client: none to ask */
                    mark[a->indices[k]] = 0; /* placed below, in increasing id */
                    list[n++] = a->indices[k];
                }
        lo = hi;
    }
    /* the halo in increasing id order */
    for (i = n_own + 1; i < n; i++) {
        int v = list[i], j = i;
        while (j > n_own && list[j - 1] > v) {
            list[j] = list[j - 1];
            j--;
        }
        list[j] = v;
    }
    rc = fgl_node_data_subgraph(d, list, n, out, err);
    if (!rc && (rc = fgl_node_data_densify(out)) != FGL_OK) rc = fgl_error_set(err, rc, "%s: out of memory", d->name);
    if (!rc && !(out->gid = FGL__G_NEW(int, FGL__MAX(n, 1))))
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", d->name);
    if (!rc && (!out->split || !out->y)) { /* d without a split: the own rows' split comes from `own` */
        FGL_FREE(out->split);
        if (!(out->split = FGL__G_NEW(unsigned char, FGL__MAX(n, 1))))
            rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", d->name);
    }
    if (!rc) rc = fgl_csr_init(&out->adj_gcn, n, n, out->adj.nnz + n, 1);
    if (rc == FGL_ERR_NOMEM) rc = fgl_error_set(err, rc, "%s: out of memory", d->name);
    for (i = 0; i < n; i++) mark[list[i]] = -1;
    if (rc) {
        fgl_node_data_free(out);
        return rc;
    }
    memcpy(out->gid, list, sizeof(int) * (size_t)n);
    out->n_own = n_own;
    out->halo_hops = hops;
    fgl__g_name_copy(out->name, own->name);
    for (r = 0; r < n; r++) {
        if (r < n_own) { /* as the client had them */
            out->y[r] = own->y ? own->y[r] : -1;
            out->split[r] = own->split ? own->split[r] : (unsigned char)FGL_SPLIT_NONE;
            if (own->x.data)
                memcpy(out->x.data + (size_t)r * (size_t)out->n_feat, own->x.data + (size_t)r * (size_t)out->n_feat,
                       sizeof(float) * (size_t)out->n_feat);
        } else { /* known by structure only */
            out->y[r] = -1;
            out->split[r] = FGL_SPLIT_NONE;
            memset(out->x.data + (size_t)r * (size_t)out->n_feat, 0, sizeof(float) * (size_t)out->n_feat);
        }
    }
    if (!own->split) { /* as `own` was: no split */
        FGL_FREE(out->split);
        out->split = NULL;
    }
    /* D^-1/2 (A + I) D^-1/2 with the whole graph's degrees (fgl_gcn_norm's arithmetic, its diagonal in order) */
    w = 0;
    for (r = 0; r < n; r++) {
        int diag = 0;
        double di = dinv[list[r]];
        for (k = out->adj.indptr[r]; k < out->adj.indptr[r + 1]; k++) {
            int j = out->adj.indices[k];
            if (!diag && j > r) {
                out->adj_gcn.indices[w] = r;
                out->adj_gcn.values[w++] = (float)(di * di);
                diag = 1;
            }
            out->adj_gcn.indices[w] = j;
            out->adj_gcn.values[w++] = (float)(di * 1.0 * dinv[list[j]]);
        }
        if (!diag) {
            out->adj_gcn.indices[w] = r;
            out->adj_gcn.values[w++] = (float)(di * di);
        }
        out->adj_gcn.indptr[r + 1] = w;
    }
    return FGL_OK;
}

FGLDEF int fgl_split_halo(const fgl_node_data *d, const int *part, int k, int hops, fgl_node_data *clients,
                          fgl_error *err) {
    int *mark, *list, c, i, rc = FGL_OK;
    double *dinv;
    if (hops == 0) return FGL_OK;
    if (hops < 0 || hops > 8) return fgl_error_set(err, FGL_ERR_RANGE, "%s: halo of %d hops (0..8)", d->name, hops);
    if (k <= 0 || !clients || (d->n_nodes > 0 && !part))
        return fgl_error_set(err, FGL_ERR_ARG, "%s: %d clients", d->name, k);
    if (d->adj.values) return fgl_error_set(err, FGL_ERR_ARG, "%s: a halo needs an unweighted graph", d->name);
    for (i = 0; i < d->n_nodes; i++)
        if (part[i] < -1 || part[i] >= k)
            return fgl_error_set(err, FGL_ERR_RANGE, "%s: node %d is in part %d, expected -1..%d", d->name, i, part[i],
                                 k - 1);
    for (c = 0; c < k; c++)
        if (clients[c].gid) return fgl_error_set(err, FGL_ERR_ARG, "%s: client %d has a halo already", d->name, c);
    mark = FGL__G_NEW(int, FGL__MAX(d->n_nodes, 1));
    list = FGL__G_NEW(int, FGL__MAX(d->n_nodes, 1));
    dinv = FGL__G_NEW(double, FGL__MAX(d->n_nodes, 1));
    if (!mark || !list || !dinv) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", d->name);
        goto done;
    }
    for (i = 0; i < d->n_nodes; i++) {
        mark[i] = -1;
        dinv[i] = 1.0 / sqrt(1.0 + fgl__g_deg(&d->adj, i)); /* the I of A + I */
    }
    for (c = 0; c < k && !rc; c++) {
        fgl_node_data ext;
        if ((rc = fgl__halo_one(d, part, c, hops, &clients[c], dinv, mark, list, &ext, err))) break;
        fgl_node_data_free(&clients[c]);
        clients[c] = ext;
    }
done:
    FGL_FREE(mark);
    FGL_FREE(list);
    FGL_FREE(dinv);
    return rc;
}

/* --- splits --------------------------------------------------------------- */

static int fgl__g_check_fractions(double train, double val) {
    return train >= 0 && val >= 0 && train <= 1 && val <= 1 && train + val <= 1.0 + 1e-9;
}

static int fgl__g_round_frac(double f, int n) {
    int r = (int)floor(f * n + 0.5);
    return r < 0 ? 0 : (r > n ? n : r);
}

FGLDEF int fgl_split_nodes_random(fgl_node_data *d, double train, double val, uint64_t seed, fgl_error *err) {
    int *idx, n = 0, i, ntr, nva;
    unsigned char *split = d->split;
    fgl_rng r;
    if (!fgl__g_check_fractions(train, val) || d->n_nodes < 0)
        return fgl_error_set(err, FGL_ERR_ARG,
                             "split_nodes_random: %s: fractions train %g, val %g (need >= 0, sum <= 1), %d nodes",
                             d->name, train, val, d->n_nodes);
    idx = FGL__G_NEW(int, d->n_nodes);
    if (!split) split = FGL__G_NEW(unsigned char, d->n_nodes);
    if (!idx || !split) {
        FGL_FREE(idx);
        if (split != d->split) FGL_FREE(split);
        return fgl_error_set(err, FGL_ERR_NOMEM, "split_nodes_random: %s: out of memory", d->name);
    }
    d->split = split;
    for (i = 0; i < d->n_nodes; i++) {
        d->split[i] = FGL_SPLIT_NONE;
        if (!d->y || d->y[i] >= 0) idx[n++] = i;
    }
    fgl_rng_init(&r, seed, FGL__G_ST_NODE_SPLIT);
    fgl_rng_shuffle(&r, idx, n);
    ntr = fgl__g_round_frac(train, n);
    nva = fgl__g_round_frac(val, n);
    if (nva > n - ntr) nva = n - ntr;
    for (i = 0; i < n; i++)
        d->split[idx[i]] = (unsigned char)(i < ntr ? FGL_SPLIT_TRAIN : i < ntr + nva ? FGL_SPLIT_VAL : FGL_SPLIT_TEST);
    FGL_FREE(idx);
    return FGL_OK;
}

FGLDEF int fgl_split_graphs_stratified(fgl_graph_set *s, double train, double val, uint64_t seed, fgl_error *err) {
    int *idx, c, g, G = s->n_graphs;
    unsigned char *split = s->split;
    double test = 1.0 - train - val;
    fgl_rng r;
    if (!fgl__g_check_fractions(train, val) || G < 0)
        return fgl_error_set(err, FGL_ERR_ARG,
                             "split_graphs_stratified: %s: fractions train %g, val %g (need >= 0, sum <= 1), %d graphs",
                             s->name, train, val, G);
    if (G > 0 && !s->y) return fgl_error_set(err, FGL_ERR_ARG, "split_graphs_stratified: %s has no labels", s->name);
    idx = FGL__G_NEW(int, G);
    if (!split) split = FGL__G_NEW(unsigned char, G);
    if (!idx || !split) {
        FGL_FREE(idx);
        if (split != s->split) FGL_FREE(split);
        return fgl_error_set(err, FGL_ERR_NOMEM, "split_graphs_stratified: %s: out of memory", s->name);
    }
    s->split = split;
    for (g = 0; g < G; g++) s->split[g] = FGL_SPLIT_NONE;
    fgl_rng_init(&r, seed, FGL__G_ST_GRAPH_SPLIT);
    for (c = 0; c < s->n_classes; c++) {
        int n = 0, ntr, nva, nte, i;
        for (g = 0; g < G; g++)
            if (s->y[g] == c) idx[n++] = g;
        fgl_rng_shuffle(&r, idx, n);
        ntr = fgl__g_round_frac(train, n);
        nva = fgl__g_round_frac(val, n);
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
            s->split[idx[i]] = (unsigned char)(i < ntr         ? FGL_SPLIT_TRAIN
                                               : i < ntr + nva ? FGL_SPLIT_VAL
                                                               : FGL_SPLIT_TEST);
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

/* --- named datasets read from disk (fgl_dataset_load) --------------------------- */

FGLDEF fgl_dataset_config fgl_dataset_default(void) {
    fgl_dataset_config o;
    memset(&o, 0, sizeof o);
    o.k_dse = 16;
    o.k_rwse = 16;
    return o;
}

FGLDEF void fgl_dataset_free(fgl_dataset *ds) {
    int i;
    fgl_node_data_free(&ds->node);
    FGL_FREE(ds->fixed_splits);
    for (i = 0; i < ds->n_sets; i++) fgl_graph_set_free(&ds->sets[i]);
    memset(ds, 0, sizeof *ds);
}

/* 1 if path names something: stat where there is one (fopen would block on
 * a FIFO without a writer; the loader then refuses what is not a regular
 * file), else a file that opens. */
static int fgl__readable(const char *path) {
#if defined(__unix__) || defined(__APPLE__)
    struct stat st;
    return stat(path, &st) == 0;
#else
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    fclose(f);
    return 1;
#endif
}

/* Node features as the protocols use them: counts binarised (CS, the usual
 * practice), then row-normalised unless raw. */
static int fgl__prepare_node(fgl_dataset *ds, const fgl_dataset_config *o, fgl_error *err) {
    fgl_node_data *d = &ds->node;
    int counts = 0, rc;
    size_t k;
    int negative = 0, fractional = 0;
    if (o->lcc) { /* FED-PUB's code keeps the largest connected component */
        fgl_node_data lcc;
        int n_old = d->n_nodes;
        fgl_node_data_init(&lcc);
        if ((rc = fgl_node_data_largest_component(d, &lcc, err))) return rc;
        if (ds->fixed_splits) { /* the fixed splits of the component's nodes (kept in increasing id order) */
            int *nodes = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(n_old, 1)), cnt, s, i;
            unsigned char *fs = (unsigned char *)FGL_MALLOC((size_t)ds->n_fixed_splits * (size_t)FGL__MAX(lcc.n_nodes, 1));
            cnt = nodes && fs ? fgl_graph_largest_component(&d->adj, nodes) : -1;
            if (cnt != lcc.n_nodes) {
                FGL_FREE(nodes);
                FGL_FREE(fs);
                fgl_node_data_free(&lcc);
                return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", d->name);
            }
            for (s = 0; s < ds->n_fixed_splits; s++)
                for (i = 0; i < cnt; i++)
                    fs[(size_t)s * (size_t)cnt + (size_t)i] = ds->fixed_splits[(size_t)s * (size_t)n_old + (size_t)nodes[i]];
            FGL_FREE(nodes);
            FGL_FREE(ds->fixed_splits);
            ds->fixed_splits = fs;
        }
        fgl_node_data_free(d);
        *d = lcc;
    }
    /* counts (non-negative integers, some over 1: CS) are binarised; signed values (embeddings) are kept */
    if (d->x_sparse.rows && d->x_sparse.values)
        for (k = 0; k < (size_t)d->x_sparse.nnz; k++) {
            float v = d->x_sparse.values[k];
            counts |= v > 1;
            negative |= v < 0;
            fractional |= v != (float)floor(v);
        }
    if (d->x.data)
        for (k = 0; k < fgl_tensor_size(&d->x); k++) {
            float v = d->x.data[k];
            counts |= v > 1;
            negative |= v < 0;
            fractional |= v != (float)floor(v);
        }
    counts = counts && !negative && !fractional;
    if (counts && (rc = fgl_node_data_binarize_features(d)))
        return fgl_error_set(err, rc, "%s: cannot binarise features", d->name);
    if (negative) { /* row sums of signed values may be 0 or tiny: no row normalisation */
        snprintf(ds->features, sizeof ds->features, "as stored (signed values)");
        return FGL_OK;
    }
    if (!o->raw_features && (rc = fgl_node_data_normalize_features(d)))
        return fgl_error_set(err, rc, "%s: cannot normalise features", d->name);
    snprintf(ds->features, sizeof ds->features, "%s", o->raw_features ? (counts ? "binarised" : "as stored")
                                                      : counts ? "binarised, row-normalised" : "row-normalised");
    return FGL_OK;
}

/* Graph features: one-hot node labels (one-hot degree for a set without
 * them, as IMDB), then FedStar's structure encodings. */
static int fgl__prepare_graphs(fgl_graph_set *s, const fgl_dataset_config *o, fgl_error *err) {
    int rc = s->node_labels ? fgl_graph_set_features(s, FGL_FEAT_NODE_LABELS, 0, err)
                            : fgl_graph_set_features(s, FGL_FEAT_DEGREE, fgl_graph_set_max_degree(s), err);
    if (rc) return rc;
    if (o->k_dse + o->k_rwse > 0) return fgl_structure_encodings(s, o->k_dse, o->k_rwse, err);
    return FGL_OK;
}

/* Where dataset `name` lives: a name with a '/' is its own directory (its
 * last component the dataset's name), else dir/node/NAME or dir/tu/NAME;
 * a name ending in .npz is that file, else dir/heterophilous/NAME.npz.
 * Writes the directory (the file for .npz) and the bare name; returns
 * FGL_TASK_NODE or FGL_TASK_GRAPH for the layout found, FGL__WHERE_NPZ for
 * an .npz, -1 for none. */
#define FGL__WHERE_NPZ 100
static int fgl__dataset_where(const char *dir, const char *name, char *where, size_t cap, char *base, size_t base_cap) {
    char path[1400];
    const char *slash = strrchr(name, '/');
    size_t nl = strlen(name);
    if (nl > 4 && !strcmp(name + nl - 4, ".npz")) {
        snprintf(where, cap, "%s", name);
        snprintf(base, base_cap, "%.*s", (int)(nl - 4 - (size_t)(slash ? slash + 1 - name : 0)), slash ? slash + 1 : name);
        return fgl__readable(where) ? FGL__WHERE_NPZ : -1;
    }
    if (slash) {
        size_t len = strlen(name);
        while (len > 1 && name[len - 1] == '/') len--; /* "data/node/Cora/" */
        snprintf(where, cap, "%.*s", (int)len, name);
        slash = strrchr(where, '/');
        snprintf(base, base_cap, "%s", slash ? slash + 1 : where);
        snprintf(path, sizeof path, "%s/%s.edges", where, base);
        if (fgl__readable(path)) return FGL_TASK_NODE;
        snprintf(path, sizeof path, "%s/%s_A.txt", where, base);
        return fgl__readable(path) ? FGL_TASK_GRAPH : -1;
    }
    snprintf(base, base_cap, "%s", name);
    snprintf(where, cap, "%s/node/%s", dir, name);
    snprintf(path, sizeof path, "%s/%s.edges", where, name);
    if (fgl__readable(path)) return FGL_TASK_NODE;
    snprintf(where, cap, "%s/tu/%s", dir, name);
    snprintf(path, sizeof path, "%s/%s_A.txt", where, name);
    if (fgl__readable(path)) return FGL_TASK_GRAPH;
    snprintf(where, cap, "%s/heterophilous/%s.npz", dir, name);
    return fgl__readable(where) ? FGL__WHERE_NPZ : -1;
}

static char fgl__ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* A dataset under dir whose name differs from `name` only in case, among
 * the usual benchmark names (C99 cannot list a directory): "" if none. */
static const char *fgl__dataset_case_hint(const char *dir, const char *name) {
    static const char *known[] = {"Cora", "CiteSeer", "PubMed", "CS", "Physics", "Computers", "Photo", "ogbn-arxiv",
                                  "MUTAG", "PTC_MR", "BZR", "COX2", "DHFR", "AIDS", "NCI1", "PROTEINS", "ENZYMES",
                                  "DD", "COLLAB", "IMDB-BINARY", "IMDB-MULTI", "REDDIT-BINARY", "Yeast",
                                  "chameleon_filtered", "squirrel_filtered", "actor", "tolokers", "roman_empire",
                                  "amazon_ratings", "minesweeper", "questions", "cornell", "texas", "wisconsin"};
    char where[1100], base[256];
    size_t i, k;
    for (i = 0; i < sizeof known / sizeof known[0]; i++) {
        const char *a = known[i];
        for (k = 0; a[k] && name[k] && fgl__ascii_lower(a[k]) == fgl__ascii_lower(name[k]); k++) {
        }
        if (a[k] || name[k] || strcmp(a, name) == 0) continue;
        if (fgl__dataset_where(dir, a, where, sizeof where, base, sizeof base) >= 0) return a;
    }
    return "";
}

FGLDEF int fgl_dataset_load(fgl_dataset *ds, const char *dir, const char *names, int task,
                            const fgl_dataset_config *opt, uint64_t seed, fgl_error *err) {
    fgl_dataset_config o = opt ? *opt : fgl_dataset_default();
    char path[1100], name[1024], base[FGL_NAME_LEN], dirbuf[1024];
    const char *p = names;
    int rc = FGL_OK, found, ruled = 0;
    memset(ds, 0, sizeof *ds);
    fgl_node_data_init(&ds->node);
    ds->task = -1;
    if (!names || !*names) return fgl_error_set(err, FGL_ERR_ARG, "dataset: no name");
    if (!dir || !*dir) { /* the data directory rule; a name not found says where it looked */
        ruled = 1;
        fgl_data_dir(dirbuf, sizeof dirbuf, NULL);
        dir = dirbuf;
    }
    if (strcmp(names, "synthetic") == 0 || strncmp(names, "synthetic:", 10) == 0) {
        long n_nodes = 0;
        if (names[9] == ':') {
            char *end = NULL;
            n_nodes = strtol(names + 10, &end, 10);
            if (!end || *end || n_nodes < 10 || n_nodes > 10000000)
                return fgl_error_set(err, FGL_ERR_ARG, "dataset: '%s': synthetic:N takes 10 <= N <= 10^7 nodes", names);
            if (task == FGL_TASK_GRAPH)
                return fgl_error_set(err, FGL_ERR_ARG, "dataset: synthetic:N is a node-classification graph");
        }
        snprintf(ds->label, sizeof ds->label, "%s", names);
        if (task == FGL_TASK_GRAPH) {
            fgl_synth_graphs_config cfg = fgl_synth_graphs_default();
            ds->task = FGL_TASK_GRAPH;
            fgl_graph_set_init(&ds->sets[0]);
            rc = fgl_synth_graphs(&cfg, seed, &ds->sets[0], err);
            ds->n_sets = 1;
            if (!rc) rc = fgl__prepare_graphs(&ds->sets[0], &o, err);
        } else {
            fgl_synth_node_config cfg = fgl_synth_node_default();
            ds->task = FGL_TASK_NODE;
            if (n_nodes) {
                cfg.n_nodes = (int)n_nodes;
                cfg.n_communities = (int)FGL__MAX(1, n_nodes / 300);
            }
            rc = fgl_synth_node(&cfg, seed, &ds->node, NULL, err);
            snprintf(ds->features, sizeof ds->features, "as generated");
        }
        if (rc) fgl_dataset_free(ds);
        return rc;
    }
    while (*p && !rc) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof name) {
            rc = fgl_error_set(err, FGL_ERR_ARG, "dataset: bad name in '%s'", names);
            break;
        }
        memcpy(name, p, len);
        name[len] = 0;
        p += len + (p[len] == ',');
        found = fgl__dataset_where(dir, name, path, sizeof path, base, sizeof base);
        if (found == FGL_TASK_NODE || found == FGL__WHERE_NPZ) { /* a node dataset: its layout, or a .npz */
            if (strchr(names, ','))
                rc = fgl_error_set(err, FGL_ERR_ARG, "%s is a node dataset: one at a time, without graph datasets",
                                   base);
            else if (task == FGL_TASK_GRAPH)
                rc = fgl_error_set(err, FGL_ERR_ARG, "%s is a node-classification dataset", base);
            else {
                ds->task = FGL_TASK_NODE;
                rc = found == FGL__WHERE_NPZ
                         ? fgl_load_npz(path, &ds->node, &ds->fixed_splits, &ds->n_fixed_splits, err)
                         : fgl_load_node(path, base, &ds->node, err);
                if (!rc) rc = fgl__prepare_node(ds, &o, err);
                snprintf(ds->label, sizeof ds->label, "%s", base);
            }
            continue;
        }
        if (found < 0) {
            const char *hint = strchr(name, '/') ? "" : fgl__dataset_case_hint(dir, name);
            if (*hint)
                rc = fgl_error_set(err, FGL_ERR_IO, "dataset '%s' not found under %s; did you mean '%s'?", name, dir,
                                   hint);
            else if (strlen(name) > 4 && !strcmp(name + strlen(name) - 4, ".npz"))
                rc = fgl_error_set(err, FGL_ERR_IO, "dataset file '%s' not found", name);
            else if (strchr(name, '/'))
                rc = fgl_error_set(err, FGL_ERR_IO, "dataset directory '%s' holds neither %s.edges (node layout) nor "
                                   "%s_A.txt (TU format)", path, base, base);
            else {
                char tried[1200];
                if (ruled) fgl__data_dir_tried(tried, sizeof tried);
                else
                    snprintf(tried, sizeof tried, "the directory given%s",
                             fgl__is_dir(dir) ? "" : ", which does not exist");
                rc = fgl_error_set(err, FGL_ERR_IO,
                                   "dataset '%s' not found as %s/node/%s, %s/tu/%s or %s/heterophilous/%s.npz (%s): set "
                                   "FGL_DATA=DIR, or fetch it into ./data with `make data DATASETS=%s` in fgl's "
                                   "repository", name, dir, name, dir, name, dir, name, tried, name);
            }
            break;
        }
        if (task == FGL_TASK_NODE || ds->task == FGL_TASK_NODE) {
            rc = fgl_error_set(err, FGL_ERR_ARG, "%s is a graph-classification dataset", base);
            break;
        }
        if (ds->n_sets == FGL_DATASET_MAX_SETS) {
            rc = fgl_error_set(err, FGL_ERR_ARG, "dataset: at most %d graph datasets", FGL_DATASET_MAX_SETS);
            break;
        }
        ds->task = FGL_TASK_GRAPH;
        fgl_graph_set_init(&ds->sets[ds->n_sets]);
        rc = fgl_load_tu(path, base, &ds->sets[ds->n_sets], err);
        ds->n_sets++;
        if (!rc) rc = fgl__prepare_graphs(&ds->sets[ds->n_sets - 1], &o, err);
        snprintf(ds->label + strlen(ds->label), sizeof ds->label - strlen(ds->label), "%s%s", ds->n_sets > 1 ? "," : "",
                 base);
    }
    if (rc) fgl_dataset_free(ds);
    return rc;
}
/* --- src/graph/partition.h --- */
/* --- multilevel k-way partitioning ---------------------------------------- */

#define FGL__G_MAX_LEVELS 64

/* A graph with integer vertex and edge weights (adjacency lists unsorted). */
typedef struct fgl__g_wg {
    int n, tvw;       /* vertices, total vertex weight */
    int *xadj;        /* n + 1 */
    int *adj, *ew;    /* xadj[n] neighbours and edge weights */
    int *vw;          /* n vertex weights */
} fgl__g_wg;

static void fgl__g_wg_free(fgl__g_wg *g) {
    FGL_FREE(g->xadj);
    FGL_FREE(g->adj);
    FGL_FREE(g->ew);
    FGL_FREE(g->vw);
    memset(g, 0, sizeof *g);
}

static int fgl__g_wg_alloc(fgl__g_wg *g, int n, int nnz) {
    memset(g, 0, sizeof *g);
    g->xadj = FGL__G_NEW(int, (size_t)n + 1);
    g->adj = FGL__G_NEW(int, nnz);
    g->ew = FGL__G_NEW(int, nnz);
    g->vw = FGL__G_NEW(int, n);
    if (!g->xadj || !g->adj || !g->ew || !g->vw) {
        fgl__g_wg_free(g);
        return FGL_ERR_NOMEM;
    }
    g->n = n;
    g->xadj[0] = 0;
    return FGL_OK;
}

/* Indexed binary max-heap of vertices keyed by key[v] (shared array). */
typedef struct fgl__g_pq {
    int n;
    int *heap, *pos;  /* pos[v] = slot of v, or -1 */
    const int *key;
} fgl__g_pq;

static void fgl__g_pq_up(fgl__g_pq *q, int i) {
    int v = q->heap[i];
    while (i > 0) {
        int p = (i - 1) / 2;
        if (q->key[q->heap[p]] >= q->key[v]) break;
        q->heap[i] = q->heap[p];
        q->pos[q->heap[i]] = i;
        i = p;
    }
    q->heap[i] = v;
    q->pos[v] = i;
}

static void fgl__g_pq_down(fgl__g_pq *q, int i) {
    int v = q->heap[i];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= q->n) break;
        if (c + 1 < q->n && q->key[q->heap[c + 1]] > q->key[q->heap[c]]) c++;
        if (q->key[q->heap[c]] <= q->key[v]) break;
        q->heap[i] = q->heap[c];
        q->pos[q->heap[i]] = i;
        i = c;
    }
    q->heap[i] = v;
    q->pos[v] = i;
}

static void fgl__g_pq_insert(fgl__g_pq *q, int v) {
    q->heap[q->n] = v;
    q->pos[v] = q->n;
    q->n++;
    fgl__g_pq_up(q, q->n - 1);
}

/* key[v] changed: restore the heap order. */
static void fgl__g_pq_fix(fgl__g_pq *q, int v) {
    int i = q->pos[v];
    fgl__g_pq_up(q, i);
    fgl__g_pq_down(q, q->pos[v]);
}

static void fgl__g_pq_remove(fgl__g_pq *q, int v) {
    int i = q->pos[v], last;
    q->pos[v] = -1;
    q->n--;
    if (i == q->n) return;
    last = q->heap[q->n];
    q->heap[i] = last;
    q->pos[last] = i;
    fgl__g_pq_up(q, i);
    fgl__g_pq_down(q, q->pos[last]);
}

static int fgl__g_pq_pop(fgl__g_pq *q) {
    int v = q->heap[0];
    fgl__g_pq_remove(q, v);
    return v;
}

/* Scratch for bisections of graphs of up to cap vertices. */
typedef struct fgl__g_bis {
    int cap;
    int *gain, *locked, *moves, *perm, *where, *best;
    int *heap0, *pos0, *heap1, *pos1;
} fgl__g_bis;

static void fgl__g_bis_free(fgl__g_bis *b) {
    FGL_FREE(b->gain);
    FGL_FREE(b->locked);
    FGL_FREE(b->moves);
    FGL_FREE(b->perm);
    FGL_FREE(b->where);
    FGL_FREE(b->best);
    FGL_FREE(b->heap0);
    FGL_FREE(b->pos0);
    FGL_FREE(b->heap1);
    FGL_FREE(b->pos1);
    memset(b, 0, sizeof *b);
}

static int fgl__g_bis_init(fgl__g_bis *b, int cap) {
    size_t c = (size_t)cap;
    memset(b, 0, sizeof *b);
    b->gain = FGL__G_NEW(int, c);
    b->locked = FGL__G_NEW(int, c);
    b->moves = FGL__G_NEW(int, c);
    b->perm = FGL__G_NEW(int, c);
    b->where = FGL__G_NEW(int, c);
    b->best = FGL__G_NEW(int, c);
    b->heap0 = FGL__G_NEW(int, c);
    b->pos0 = FGL__G_NEW(int, c);
    b->heap1 = FGL__G_NEW(int, c);
    b->pos1 = FGL__G_NEW(int, c);
    if (!b->gain || !b->locked || !b->moves || !b->perm || !b->where || !b->best || !b->heap0 || !b->pos0 ||
        !b->heap1 || !b->pos1) {
        fgl__g_bis_free(b);
        return FGL_ERR_NOMEM;
    }
    b->cap = cap;
    return FGL_OK;
}

static int fgl__g_bad2(const int *pw, const int *maxw) {
    return (pw[0] > maxw[0] ? pw[0] - maxw[0] : 0) + (pw[1] > maxw[1] ? pw[1] - maxw[1] : 0);
}

static int fgl__g_cut2(const fgl__g_wg *g, const int *where) {
    int v, k, cut = 0;
    for (v = 0; v < g->n; v++)
        for (k = g->xadj[v]; k < g->xadj[v + 1]; k++)
            if (where[g->adj[k]] != where[v]) cut += g->ew[k];
    return cut / 2;
}

/* Fiduccia-Mattheyses refinement of the bisection where[] (weights pw[2],
 * limits maxw[2]); returns the new cut. Each pass moves vertices one at a
 * time, best gain first from the side that may give, each at most once, and
 * keeps the best prefix: least balance violation, then least cut. */
static int fgl__g_fm2(const fgl__g_wg *g, int *where, int *pw, const int *maxw, int cut, int npass, fgl__g_bis *b,
                    fgl_rng *r) {
    int n = g->n, pass, v, k;
    int limit = 50 + n / 50;
    fgl__g_pq q[2];
    q[0].heap = b->heap0;
    q[0].pos = b->pos0;
    q[1].heap = b->heap1;
    q[1].pos = b->pos1;
    q[0].key = q[1].key = b->gain;
    for (pass = 0; pass < npass; pass++) {
        int nm = 0, best_nm = 0, best_cut = cut, best_bad = fgl__g_bad2(pw, maxw);
        for (v = 0; v < n; v++) {
            int g_ = 0;
            for (k = g->xadj[v]; k < g->xadj[v + 1]; k++)
                g_ += where[g->adj[k]] != where[v] ? g->ew[k] : -g->ew[k];
            b->gain[v] = g_;
            b->locked[v] = 0;
            b->pos0[v] = b->pos1[v] = -1;
            b->perm[v] = v;
        }
        fgl_rng_shuffle(r, b->perm, n);
        q[0].n = q[1].n = 0;
        for (k = 0; k < n; k++) fgl__g_pq_insert(&q[where[b->perm[k]]], b->perm[k]);
        for (;;) {
            int from, to, bad_before = fgl__g_bad2(pw, maxw), bad, npw[2];
            if (pw[0] > maxw[0] && q[0].n) from = 0;
            else if (pw[1] > maxw[1] && q[1].n) from = 1;
            else if (!q[0].n && !q[1].n) break;
            else if (!q[0].n) from = 1;
            else if (!q[1].n) from = 0;
            else {
                int g0 = b->gain[q[0].heap[0]], g1 = b->gain[q[1].heap[0]];
                from = g0 > g1 ? 0 : g1 > g0 ? 1 : (pw[0] >= pw[1] ? 0 : 1);
            }
            to = 1 - from;
            v = fgl__g_pq_pop(&q[from]);
            b->locked[v] = 1;
            npw[from] = pw[from] - g->vw[v];
            npw[to] = pw[to] + g->vw[v];
            if (fgl__g_bad2(npw, maxw) > bad_before) continue; /* would unbalance: skip it this pass */
            where[v] = to;
            pw[0] = npw[0];
            pw[1] = npw[1];
            cut -= b->gain[v];
            b->moves[nm++] = v;
            for (k = g->xadj[v]; k < g->xadj[v + 1]; k++) {
                int u = g->adj[k];
                if (b->locked[u]) continue;
                b->gain[u] += where[u] == to ? -2 * g->ew[k] : 2 * g->ew[k];
                fgl__g_pq_fix(&q[where[u]], u);
            }
            bad = fgl__g_bad2(pw, maxw);
            if (bad < best_bad || (bad == best_bad && cut < best_cut)) {
                best_bad = bad;
                best_cut = cut;
                best_nm = nm;
            } else if (nm - best_nm > limit) {
                break;
            }
        }
        while (nm > best_nm) { /* undo the moves after the best prefix */
            v = b->moves[--nm];
            pw[where[v]] -= g->vw[v];
            where[v] = 1 - where[v];
            pw[where[v]] += g->vw[v];
        }
        cut = best_cut;
        if (best_nm == 0) break;
    }
    return cut;
}

/* Greedy graph growing: side 0 grows from a random vertex, always taking the
 * outside vertex whose move lowers the cut most, until it weighs tw0 (a new
 * random seed is taken when a component is used up). */
static void fgl__g_grow(const fgl__g_wg *g, int tw0, int *where, fgl__g_bis *b, fgl_rng *r) {
    int n = g->n, v, k, w0 = 0;
    fgl__g_pq q;
    q.heap = b->heap0;
    q.pos = b->pos0;
    q.key = b->gain;
    q.n = 0;
    for (v = 0; v < n; v++) {
        int d = 0;
        for (k = g->xadj[v]; k < g->xadj[v + 1]; k++) d += g->ew[k];
        b->gain[v] = -d;
        where[v] = 1;
        b->pos0[v] = -1;
    }
    while (w0 < tw0) {
        if (q.n == 0) { /* a random vertex still outside */
            int start = (int)fgl_rng_below(r, (uint64_t)n), i, found = -1;
            for (i = 0; i < n; i++) {
                int c = (start + i) % n;
                if (where[c] == 1) {
                    found = c;
                    break;
                }
            }
            if (found < 0) break;
            fgl__g_pq_insert(&q, found);
        }
        v = fgl__g_pq_pop(&q);
        where[v] = 0;
        w0 += g->vw[v];
        for (k = g->xadj[v]; k < g->xadj[v + 1]; k++) {
            int u = g->adj[k];
            if (where[u] != 1) continue;
            b->gain[u] += 2 * g->ew[k];
            if (b->pos0[u] >= 0) fgl__g_pq_fix(&q, u);
            else fgl__g_pq_insert(&q, u);
        }
    }
}

/* Best of ntries grown + FM-refined bisections with side 0 of weight about
 * tw0, into where (b->where is scratch). */
static void fgl__g_bisect(const fgl__g_wg *g, int tw0, double ub, int ntries, fgl__g_bis *b, int *where, fgl_rng *r) {
    int maxw[2], t, best_cut = INT_MAX, best_bad = INT_MAX, tw1 = g->tvw - tw0;
    maxw[0] = (int)ceil(tw0 * (1.0 + ub));
    maxw[1] = (int)ceil(tw1 * (1.0 + ub));
    for (t = 0; t < ntries; t++) {
        int pw[2], v, cut, bad;
        fgl__g_grow(g, tw0, b->where, b, r);
        pw[0] = pw[1] = 0;
        for (v = 0; v < g->n; v++) pw[b->where[v]] += g->vw[v];
        cut = fgl__g_fm2(g, b->where, pw, maxw, fgl__g_cut2(g, b->where), 10, b, r);
        bad = fgl__g_bad2(pw, maxw);
        if (bad < best_bad || (bad == best_bad && cut < best_cut)) {
            best_bad = bad;
            best_cut = cut;
            memcpy(where, b->where, sizeof(int) * (size_t)g->n);
        }
    }
}

/* Induced subgraph on the vertices with where[v] == side; back[i] = the
 * vertex of g that is vertex i of s; map is scratch of g->n. */
static int fgl__g_wg_sub(const fgl__g_wg *g, const int *where, int side, fgl__g_wg *s, int *map, int *back) {
    int v, k, ns = 0, nnz = 0, rc;
    for (v = 0; v < g->n; v++) {
        if (where[v] == side) {
            map[v] = ns;
            back[ns++] = v;
            for (k = g->xadj[v]; k < g->xadj[v + 1]; k++) nnz += where[g->adj[k]] == side;
        } else {
            map[v] = -1;
        }
    }
    rc = fgl__g_wg_alloc(s, ns, nnz);
    if (rc) return rc;
    nnz = 0;
    s->tvw = 0;
    for (v = 0; v < ns; v++) {
        int x = back[v];
        for (k = g->xadj[x]; k < g->xadj[x + 1]; k++)
            if (where[g->adj[k]] == side) {
                s->adj[nnz] = map[g->adj[k]];
                s->ew[nnz++] = g->ew[k];
            }
        s->xadj[v + 1] = nnz;
        s->vw[v] = g->vw[x];
        s->tvw += g->vw[x];
    }
    return FGL_OK;
}

static int fgl__g_coarsen(const fgl__g_wg *g, int maxvw, fgl_rng *r, int *cmap, fgl__g_wg *cg);

/* Multilevel bisection: coarsen g further (to about 40 vertices), take the
 * best of ntries grown + FM-refined bisections there, then project it back
 * level by level with an FM refinement at each. */
static int fgl__g_mlbisect(const fgl__g_wg *g, int tw0, double ub, int ntries, fgl__g_bis *b, int *where,
                           fgl_rng *r) {
    fgl__g_wg lv[FGL__G_MAX_LEVELS];
    int *cm[FGL__G_MAX_LEVELS], *w = NULL, L = 0, l, v, rc = FGL_OK, maxw[2];
    maxw[0] = (int)ceil(tw0 * (1.0 + ub));
    maxw[1] = (int)ceil((g->tvw - tw0) * (1.0 + ub));
    lv[0] = *g; /* borrowed, never freed here */
    while (L + 1 < FGL__G_MAX_LEVELS && lv[L].n > 40) {
        int maxvw = (int)(1.5 * g->tvw / 40);
        if (maxvw < 2) maxvw = 2;
        cm[L] = FGL__G_NEW(int, (size_t)lv[L].n);
        rc = cm[L] ? fgl__g_coarsen(&lv[L], maxvw, r, cm[L], &lv[L + 1]) : FGL_ERR_NOMEM;
        if (rc) {
            FGL_FREE(cm[L]);
            goto done;
        }
        L++;
        if (lv[L].n > 0.9 * lv[L - 1].n) break;
    }
    w = FGL__G_NEW(int, (size_t)lv[L].n);
    if (!w) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    fgl__g_bisect(&lv[L], tw0, ub, ntries, b, w, r);
    for (l = L - 1; l >= 0; l--) {
        int *wl = l == 0 ? where : FGL__G_NEW(int, (size_t)lv[l].n), pw[2];
        if (!wl) {
            rc = FGL_ERR_NOMEM;
            goto done;
        }
        pw[0] = pw[1] = 0;
        for (v = 0; v < lv[l].n; v++) {
            wl[v] = w[cm[l][v]];
            pw[wl[v]] += lv[l].vw[v];
        }
        FGL_FREE(w);
        w = wl;
        fgl__g_fm2(&lv[l], w, pw, maxw, fgl__g_cut2(&lv[l], w), 10, b, r);
    }
    if (L == 0) memcpy(where, w, sizeof(int) * (size_t)g->n);
    if (w == where) w = NULL;
done:
    FGL_FREE(w);
    for (l = 1; l <= L; l++) fgl__g_wg_free(&lv[l]);
    for (l = 0; l < L; l++) FGL_FREE(cm[l]);
    return rc;
}

/* Recursive bisection of g into k parts numbered first.. into part. */
static int fgl__g_rb(const fgl__g_wg *g, int k, int first, int *part, int ntries, fgl__g_bis *b, fgl_rng *r) {
    int k1 = k / 2, *where = NULL, *map = NULL, *back0 = NULL, *back1 = NULL, *p0 = NULL, *p1 = NULL;
    int v, rc = FGL_OK, tw0;
    fgl__g_wg s0, s1;
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    if (k <= 1 || g->n == 0) {
        for (v = 0; v < g->n; v++) part[v] = first;
        return FGL_OK;
    }
    tw0 = (int)((long long)g->tvw * k1 / k);
    where = FGL__G_NEW(int, (size_t)g->n);
    map = FGL__G_NEW(int, (size_t)g->n);
    back0 = FGL__G_NEW(int, (size_t)g->n);
    back1 = FGL__G_NEW(int, (size_t)g->n);
    p0 = FGL__G_NEW(int, (size_t)g->n);
    p1 = FGL__G_NEW(int, (size_t)g->n);
    if (!where || !map || !back0 || !back1 || !p0 || !p1) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    rc = fgl__g_mlbisect(g, tw0, 0.02, ntries, b, where, r);
    if (!rc) rc = fgl__g_wg_sub(g, where, 0, &s0, map, back0);
    if (!rc) rc = fgl__g_wg_sub(g, where, 1, &s1, map, back1);
    if (!rc) rc = fgl__g_rb(&s0, k1, first, p0, ntries, b, r);
    if (!rc) rc = fgl__g_rb(&s1, k - k1, first + k1, p1, ntries, b, r);
    if (!rc) {
        for (v = 0; v < s0.n; v++) part[back0[v]] = p0[v];
        for (v = 0; v < s1.n; v++) part[back1[v]] = p1[v];
    }
done:
    fgl__g_wg_free(&s0);
    fgl__g_wg_free(&s1);
    FGL_FREE(where);
    FGL_FREE(map);
    FGL_FREE(back0);
    FGL_FREE(back1);
    FGL_FREE(p0);
    FGL_FREE(p1);
    return rc;
}

/* One coarsening step: heavy-edge matching in random order (ties broken at
 * random, coarse vertices capped at maxvw), then, if that leaves the graph
 * large, pairing of leftover vertices that share a neighbour and of isolated
 * ones; contraction sums vertex weights and parallel edge weights. */
static int fgl__g_coarsen(const fgl__g_wg *g, int maxvw, fgl_rng *r, int *cmap, fgl__g_wg *cg) {
    int n = g->n, *match = NULL, *perm = NULL, *pend = NULL, *mark = NULL, *members = NULL;
    int i, k, cn = 0, unmatched = 0, nnz, rc = FGL_OK, iso = -1;
    match = FGL__G_NEW(int, n);
    perm = FGL__G_NEW(int, n);
    pend = FGL__G_NEW(int, n);
    mark = FGL__G_NEW(int, n);
    members = FGL__G_NEW2(int, n, 2);
    if (!match || !perm || !pend || !mark || !members) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    for (i = 0; i < n; i++) {
        match[i] = -1;
        perm[i] = i;
        pend[i] = -1;
    }
    fgl_rng_shuffle(r, perm, n);
    for (i = 0; i < n; i++) {
        int v = perm[i], best = -1, bw = -1, bvw = INT_MAX, d = g->xadj[v + 1] - g->xadj[v], start, j;
        if (match[v] >= 0 || d == 0) {
            unmatched += match[v] < 0;
            continue;
        }
        /* scan from a random offset: ties go to a random neighbour */
        start = d > 1 ? (int)fgl_rng_below(r, (uint64_t)d) : 0;
        for (j = 0; j < d; j++) {
            int kk = g->xadj[v] + (start + j < d ? start + j : start + j - d);
            int u = g->adj[kk], w = g->ew[kk];
            if (match[u] >= 0 || u == v || g->vw[u] + g->vw[v] > maxvw) continue;
            if (w > bw || (w == bw && g->vw[u] < bvw)) {
                best = u;
                bw = w;
                bvw = g->vw[u];
            }
        }
        if (best >= 0) {
            match[v] = best;
            match[best] = v;
        } else {
            unmatched++;
        }
    }
    if (unmatched > n / 10) { /* two-hop pairing of the leftovers */
        for (i = 0; i < n; i++) {
            int v = perm[i], hub = -1, hw = -1;
            if (match[v] >= 0) continue;
            if (g->xadj[v] == g->xadj[v + 1]) {
                if (iso >= 0 && g->vw[iso] + g->vw[v] <= maxvw) {
                    match[v] = iso;
                    match[iso] = v;
                    iso = -1;
                } else {
                    iso = v;
                }
                continue;
            }
            for (k = g->xadj[v]; k < g->xadj[v + 1]; k++)
                if (g->ew[k] > hw) {
                    hw = g->ew[k];
                    hub = g->adj[k];
                }
            if (pend[hub] >= 0 && match[pend[hub]] < 0 && g->vw[pend[hub]] + g->vw[v] <= maxvw) {
                match[v] = pend[hub];
                match[pend[hub]] = v;
                pend[hub] = -1;
            } else {
                pend[hub] = v;
            }
        }
    }
    for (i = 0; i < n; i++) cmap[i] = -1;
    for (i = 0; i < n; i++) {
        if (cmap[i] >= 0) continue;
        members[2 * cn] = i;
        members[2 * cn + 1] = match[i] >= 0 && match[i] != i ? match[i] : -1;
        cmap[i] = cn;
        if (match[i] >= 0) cmap[match[i]] = cn;
        cn++;
    }
    rc = fgl__g_wg_alloc(cg, cn, g->xadj[n]);
    if (rc) goto done;
    for (i = 0; i < cn; i++) mark[i] = -1;
    nnz = 0;
    cg->tvw = g->tvw;
    for (i = 0; i < cn; i++) {
        int start = nnz, s;
        cg->vw[i] = 0;
        for (s = 0; s < 2; s++) {
            int v = members[2 * i + s];
            if (v < 0) continue;
            cg->vw[i] += g->vw[v];
            for (k = g->xadj[v]; k < g->xadj[v + 1]; k++) {
                int cu = cmap[g->adj[k]];
                if (cu == i) continue;
                if (mark[cu] < 0) {
                    mark[cu] = nnz;
                    cg->adj[nnz] = cu;
                    cg->ew[nnz++] = g->ew[k];
                } else {
                    cg->ew[mark[cu]] += g->ew[k];
                }
            }
        }
        for (k = start; k < nnz; k++) mark[cg->adj[k]] = -1;
        cg->xadj[i + 1] = nnz;
    }
    if (nnz > 0) { /* give back the unused tail of the edge arrays */
        int *a2 = FGL__G_RESIZE(int, cg->adj, nnz);
        int *w2;
        if (a2) cg->adj = a2;
        w2 = FGL__G_RESIZE(int, cg->ew, nnz);
        if (w2) cg->ew = w2;
    }
done:
    FGL_FREE(match);
    FGL_FREE(perm);
    FGL_FREE(pend);
    FGL_FREE(mark);
    FGL_FREE(members);
    return rc;
}

/* Scratch of the k-way stages. */
typedef struct fgl__g_kw {
    int *conn, *tl;      /* k: connectivity to each part (zero between uses), touched parts */
    int *perm, *next;    /* n: vertex lists of the refinement passes */
    int *flag;           /* n: pass stamps */
} fgl__g_kw;

/* Connectivity of v to the parts around it into kw->conn (touched list tl);
 * returns the number of touched parts. */
static int fgl__g_conn(const fgl__g_wg *g, const int *part, int v, fgl__g_kw *kw) {
    int k, nt = 0;
    for (k = g->xadj[v]; k < g->xadj[v + 1]; k++) {
        int p = part[g->adj[k]];
        if (kw->conn[p] == 0) kw->tl[nt++] = p;
        kw->conn[p] += g->ew[k];
    }
    return nt;
}

static void fgl__g_conn_clear(fgl__g_kw *kw, int nt) {
    int i;
    for (i = 0; i < nt; i++) kw->conn[kw->tl[i]] = 0;
}

/* Greedy k-way refinement: boundary vertices in random order move to the
 * adjacent part that lowers the cut most (or keeps it and improves the
 * balance) if that part has room. The first pass visits every vertex, later
 * passes only the vertices next to one that moved in the pass before. */
static void fgl__g_kway_refine(const fgl__g_wg *g, int *part, int *pw, int maxpw, int npass, fgl__g_kw *kw,
                               fgl_rng *r) {
    int n = g->n, pass, i, nlist = n, *list = kw->perm, *next = kw->next;
    for (i = 0; i < n; i++) {
        list[i] = i;
        kw->flag[i] = 0;
    }
    for (pass = 0; pass < npass && nlist > 0; pass++) {
        int nnext = 0, *tmp;
        fgl_rng_shuffle(r, list, nlist);
        for (i = 0; i < nlist; i++) {
            int v = list[i], a = part[v], k, nt, j, best = -1, bg = INT_MIN, id, vw = g->vw[v], bnd = 0;
            for (k = g->xadj[v]; k < g->xadj[v + 1]; k++)
                if (part[g->adj[k]] != a) {
                    bnd = 1;
                    break;
                }
            if (!bnd) continue;
            nt = fgl__g_conn(g, part, v, kw);
            id = kw->conn[a];
            for (j = 0; j < nt; j++) {
                int q = kw->tl[j], gn;
                if (q == a || pw[q] + vw > maxpw) continue;
                gn = kw->conn[q] - id;
                if (gn > bg || (gn == bg && best >= 0 && pw[q] < pw[best])) {
                    bg = gn;
                    best = q;
                }
            }
            fgl__g_conn_clear(kw, nt);
            if (best >= 0 && (bg > 0 || (bg == 0 && pw[best] + vw < pw[a]) || pw[a] > maxpw)) {
                part[v] = best;
                pw[a] -= vw;
                pw[best] += vw;
                if (kw->flag[v] != pass + 1) {
                    kw->flag[v] = pass + 1;
                    next[nnext++] = v;
                }
                for (k = g->xadj[v]; k < g->xadj[v + 1]; k++) {
                    int u = g->adj[k];
                    if (kw->flag[u] != pass + 1) {
                        kw->flag[u] = pass + 1;
                        next[nnext++] = u;
                    }
                }
            }
        }
        tmp = list;
        list = next;
        next = tmp;
        nlist = nnext;
    }
}

static int fgl__g_lightest(const int *pw, int k) {
    int p, best = 0;
    for (p = 1; p < k; p++)
        if (pw[p] < pw[best]) best = p;
    return best;
}

/* Best destination for v out of an overweight part: the adjacent part with
 * room and the largest gain, else the lightest part if it has room. */
static int fgl__g_dest(const fgl__g_wg *g, const int *part, const int *pw, int k, int maxpw, int v, fgl__g_kw *kw,
                     int *gain) {
    int a = part[v], nt = fgl__g_conn(g, part, v, kw), id = kw->conn[a], j, best = -1, bg = INT_MIN;
    for (j = 0; j < nt; j++) {
        int q = kw->tl[j];
        if (q == a || pw[q] + g->vw[v] > maxpw) continue;
        if (kw->conn[q] - id > bg) {
            bg = kw->conn[q] - id;
            best = q;
        }
    }
    fgl__g_conn_clear(kw, nt);
    if (best < 0) {
        int l = fgl__g_lightest(pw, k);
        if (l != a && pw[l] + g->vw[v] <= maxpw) {
            best = l;
            bg = -id;
        }
    }
    *gain = bg;
    return best;
}

static int fgl__g_cand_cmp(const void *x, const void *y) {
    const int *a = (const int *)x, *b = (const int *)y;
    if (a[0] != b[0]) return a[0] > b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* Forced balancing: from every overweight part move the vertices that cost
 * least to parts with room, until no part exceeds maxpw or nothing can move. */
static void fgl__g_kway_balance(const fgl__g_wg *g, int k, int *part, int *pw, int maxpw, fgl__g_kw *kw, int *cand) {
    int round, v, p;
    for (round = 0; round < 64; round++) {
        int over = 0, nc = 0, i, moved = 0;
        for (p = 0; p < k; p++) over |= pw[p] > maxpw;
        if (!over) return;
        for (v = 0; v < g->n; v++) {
            int gain;
            if (pw[part[v]] <= maxpw) continue;
            if (fgl__g_dest(g, part, pw, k, maxpw, v, kw, &gain) < 0) continue;
            cand[2 * nc] = gain;
            cand[2 * nc + 1] = v;
            nc++;
        }
        qsort(cand, (size_t)nc, 2 * sizeof(int), fgl__g_cand_cmp);
        for (i = 0; i < nc; i++) {
            int gain, q, a;
            v = cand[2 * i + 1];
            a = part[v];
            if (pw[a] <= maxpw) continue;
            q = fgl__g_dest(g, part, pw, k, maxpw, v, kw, &gain);
            if (q < 0) continue;
            part[v] = q;
            pw[a] -= g->vw[v];
            pw[q] += g->vw[v];
            moved++;
        }
        if (!moved) return;
    }
}

/* Give every empty part one vertex: the vertex of the largest part with the
 * fewest edges to its own part (first such id). Only on the input graph,
 * where vertex weights are 1, so balance can only improve. */
static void fgl__g_fill_empty(const fgl__g_wg *g, int k, int *part, int *pw) {
    int p, v, e;
    for (p = 0; p < k; p++) {
        int big, best = -1, bid = INT_MAX;
        if (pw[p] > 0) continue;
        big = 0;
        for (v = 1; v < k; v++)
            if (pw[v] > pw[big]) big = v;
        if (pw[big] < 2) return;
        for (v = 0; v < g->n; v++) {
            int id = 0;
            if (part[v] != big) continue;
            for (e = g->xadj[v]; e < g->xadj[v + 1]; e++) id += part[g->adj[e]] == big ? g->ew[e] : 0;
            if (id < bid) {
                bid = id;
                best = v;
            }
        }
        part[best] = p;
        pw[big] -= g->vw[best];
        pw[p] += g->vw[best];
    }
}

FGLDEF fgl_partition_config fgl_partition_default(void) {
    fgl_partition_config o;
    memset(&o, 0, sizeof o);
    o.imbalance = 0.05;
    o.coarsen_to = 0;
    o.n_init = 8;
    o.refine_passes = 10;
    o.n_cuts = 1;
    return o;
}

FGLDEF long fgl_edge_cut(const fgl_csr *adj, const int *part) {
    long cut = 0;
    int i, k;
    for (i = 0; i < adj->rows; i++)
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++)
            if (adj->indices[k] > i && part[adj->indices[k]] != part[i]) cut++;
    return cut;
}

static long long fgl__g_wg_cut(const fgl__g_wg *g, const int *part) {
    long long cut = 0;
    int v, k;
    for (v = 0; v < g->n; v++)
        for (k = g->xadj[v]; k < g->xadj[v + 1]; k++)
            if (part[g->adj[k]] != part[v]) cut += g->ew[k];
    return cut / 2;
}

/* One multilevel run on lv[0]; the partition of lv[0] goes to part. */
static int fgl__g_multilevel(fgl__g_wg *lv, int **cmaps, int k, int maxpw, int coarsen_to,
                             const fgl_partition_config *o, fgl_rng *r, int *part, int *pw, fgl__g_kw *kw, int *cand) {
    int L = 0, l, rc = FGL_OK, v, t, n_ip, *cpart = NULL, *tpart = NULL, best_over = 0;
    long long best_cut = 0;
    fgl__g_bis b;
    memset(&b, 0, sizeof b);
    /* coarsen */
    while (L + 1 < FGL__G_MAX_LEVELS && lv[L].n > coarsen_to) {
        int maxvw = (int)(1.5 * lv[0].tvw / coarsen_to);
        if (maxvw < 2) maxvw = 2;
        cmaps[L] = FGL__G_NEW(int, (size_t)lv[L].n);
        rc = cmaps[L] ? fgl__g_coarsen(&lv[L], maxvw, r, cmaps[L], &lv[L + 1]) : FGL_ERR_NOMEM;
        if (rc) {
            FGL_FREE(cmaps[L]);
            cmaps[L] = NULL;
            goto done;
        }
        L++;
        if (lv[L].n > 0.95 * lv[L - 1].n) break; /* no longer shrinking */
    }
    /* initial partition of the coarsest graph: the best of a few recursive
     * bisections, each balanced and refined there */
    cpart = FGL__G_NEW(int, (size_t)lv[L].n);
    tpart = FGL__G_NEW(int, (size_t)lv[L].n);
    rc = cpart && tpart ? fgl__g_bis_init(&b, lv[L].n) : FGL_ERR_NOMEM;
    n_ip = lv[L].xadj[lv[L].n] > 2000000 ? 1 : lv[L].xadj[lv[L].n] > 500000 ? 2 : 4;
    for (t = 0; t < n_ip && !rc; t++) {
        long long cut;
        int over = 0, p;
        rc = fgl__g_rb(&lv[L], k, 0, tpart, o->n_init, &b, r);
        if (rc) break;
        memset(pw, 0, sizeof(int) * (size_t)k);
        for (v = 0; v < lv[L].n; v++) pw[tpart[v]] += lv[L].vw[v];
        fgl__g_kway_balance(&lv[L], k, tpart, pw, maxpw, kw, cand);
        fgl__g_kway_refine(&lv[L], tpart, pw, maxpw, o->refine_passes, kw, r);
        for (p = 0; p < k; p++) over += pw[p] > maxpw ? pw[p] - maxpw : 0;
        cut = fgl__g_wg_cut(&lv[L], tpart);
        if (t == 0 || over < best_over || (over == best_over && cut < best_cut)) {
            best_over = over;
            best_cut = cut;
            memcpy(cpart, tpart, sizeof(int) * (size_t)lv[L].n);
        }
    }
    fgl__g_bis_free(&b);
    FGL_FREE(tpart);
    tpart = NULL;
    if (rc) goto done;
    /* uncoarsen: project, balance, refine */
    for (l = L; l >= 0; l--) {
        int *pl = l == 0 ? part : FGL__G_NEW(int, (size_t)lv[l].n);
        if (!pl) {
            rc = FGL_ERR_NOMEM;
            goto done;
        }
        if (l == L) memcpy(pl, cpart, sizeof(int) * (size_t)lv[l].n);
        else
            for (v = 0; v < lv[l].n; v++) pl[v] = cpart[cmaps[l][v]];
        FGL_FREE(cpart);
        cpart = pl;
        memset(pw, 0, sizeof(int) * (size_t)k);
        for (v = 0; v < lv[l].n; v++) pw[cpart[v]] += lv[l].vw[v];
        fgl__g_kway_balance(&lv[l], k, cpart, pw, maxpw, kw, cand);
        fgl__g_kway_refine(&lv[l], cpart, pw, maxpw, o->refine_passes, kw, r);
        fgl__g_kway_balance(&lv[l], k, cpart, pw, maxpw, kw, cand);
    }
    fgl__g_fill_empty(&lv[0], k, part, pw);
    cpart = NULL; /* it is part now */
done:
    if (cpart != part) FGL_FREE(cpart);
    FGL_FREE(tpart);
    for (l = 1; l <= L; l++) fgl__g_wg_free(&lv[l]);
    for (l = 0; l < L; l++) {
        FGL_FREE(cmaps[l]);
        cmaps[l] = NULL;
    }
    return rc;
}

FGLDEF int fgl_partition_metis(const fgl_csr *adj, int k, uint64_t seed, int *part, fgl_error *err) {
    return fgl_partition_metis_ex(adj, k, seed, NULL, part, err);
}

FGLDEF int fgl_partition_metis_ex(const fgl_csr *adj, int k, uint64_t seed, const fgl_partition_config *opt,
                                  int *part, fgl_error *err) {
    fgl_partition_config o = opt ? *opt : fgl_partition_default();
    fgl__g_wg lv[FGL__G_MAX_LEVELS];
    int *cmaps[FGL__G_MAX_LEVELS];
    fgl__g_kw kw;
    int n, i, q, run, rc = FGL_OK, maxpw, coarsen_to, *trial = NULL, *pw = NULL, *cand = NULL;
    long long best_cut = -1;
    int best_over = INT_MAX;
    double lg;
    memset(lv, 0, sizeof lv);
    memset(cmaps, 0, sizeof cmaps);
    memset(&kw, 0, sizeof kw);
    if (!adj || adj->rows != adj->cols || !part)
        return fgl_error_set(err, FGL_ERR_ARG, "partition_metis: need a square adjacency and an output array");
    n = adj->rows;
    if (k < 1 || (k > n && n > 0))
        return fgl_error_set(err, FGL_ERR_ARG, "partition_metis: k = %d parts for %d nodes (need 1 <= k <= n)", k, n);
    if (!(o.imbalance >= 0) || o.n_init < 1 || o.refine_passes < 0 || o.n_cuts < 1 || o.coarsen_to < 0)
        return fgl_error_set(err, FGL_ERR_ARG, "partition_metis: bad options");
    if ((rc = fgl__g_check_graph_arg(adj, 1, "partition_metis", err)) != FGL_OK) return rc;
    if (k == 1 || n == 0) {
        for (i = 0; i < n; i++) part[i] = 0;
        return FGL_OK;
    }
    maxpw = (int)ceil((1.0 + o.imbalance) * n / k - 1e-9);
    if ((long long)maxpw * k < n) maxpw = (n + k - 1) / k;
    lg = log((double)k) / log(2.0);
    coarsen_to = o.coarsen_to > 0 ? o.coarsen_to : (int)fmax(30.0 * k, n / (20.0 * lg));
    if (coarsen_to < k) coarsen_to = k;
    /* the input graph as level 0 (unit weights, self loops dropped) */
    rc = fgl__g_wg_alloc(&lv[0], n, adj->nnz);
    trial = FGL__G_NEW(int, n);
    pw = FGL__G_NEW(int, k);
    cand = FGL__G_NEW2(int, n, 2);
    kw.conn = FGL__G_NEW(int, k);
    kw.tl = FGL__G_NEW(int, k);
    kw.perm = FGL__G_NEW(int, n);
    kw.next = FGL__G_NEW(int, n);
    kw.flag = FGL__G_NEW(int, n);
    if (rc || !trial || !pw || !cand || !kw.conn || !kw.tl || !kw.perm || !kw.next || !kw.flag) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "partition_metis: out of memory (%d nodes)", n);
        goto done;
    }
    memset(kw.conn, 0, sizeof(int) * (size_t)k);
    q = 0;
    for (i = 0; i < n; i++) {
        int e;
        for (e = adj->indptr[i]; e < adj->indptr[i + 1]; e++) {
            int j = adj->indices[e];
            if (j == i) continue;
            lv[0].adj[q] = j;
            lv[0].ew[q++] = 1;
        }
        lv[0].xadj[i + 1] = q;
        lv[0].vw[i] = 1;
    }
    lv[0].tvw = n;
    for (run = 0; run < o.n_cuts; run++) {
        fgl_rng r;
        long long cut;
        int over = 0, p;
        fgl_rng_init(&r, seed, FGL__G_ST_PART + 16u * (uint64_t)run);
        rc = fgl__g_multilevel(lv, cmaps, k, maxpw, coarsen_to, &o, &r, trial, pw, &kw, cand);
        if (rc) {
            rc = fgl_error_set(err, rc, "partition_metis: out of memory (%d nodes)", n);
            goto done;
        }
        for (p = 0; p < k; p++) over += pw[p] > maxpw ? pw[p] - maxpw : 0;
        cut = fgl__g_wg_cut(&lv[0], trial);
        if (best_cut < 0 || over < best_over || (over == best_over && cut < best_cut)) {
            best_cut = cut;
            best_over = over;
            memcpy(part, trial, sizeof(int) * (size_t)n);
        }
    }
done:
    fgl__g_wg_free(&lv[0]);
    FGL_FREE(trial);
    FGL_FREE(pw);
    FGL_FREE(cand);
    FGL_FREE(kw.conn);
    FGL_FREE(kw.tl);
    FGL_FREE(kw.perm);
    FGL_FREE(kw.next);
    FGL_FREE(kw.flag);
    return rc;
}

FGLDEF int fgl_partition_random(int n, int k, uint64_t seed, int *part, fgl_error *err) {
    int *perm, i;
    fgl_rng r;
    if (n < 0 || k < 1 || (n > 0 && !part))
        return fgl_error_set(err, FGL_ERR_ARG, "partition_random: n = %d, k = %d", n, k);
    perm = FGL__G_NEW(int, n);
    if (!perm) return fgl_error_set(err, FGL_ERR_NOMEM, "partition_random: out of memory");
    for (i = 0; i < n; i++) perm[i] = i;
    fgl_rng_init(&r, seed, FGL__G_ST_PART);
    fgl_rng_shuffle(&r, perm, n);
    for (i = 0; i < n; i++) part[perm[i]] = i % k;
    FGL_FREE(perm);
    return FGL_OK;
}

/* --- Louvain and modularity ----------------------------------------------- */

/* A weighted graph of the Louvain levels: adjacency without self loops plus
 * each node's self weight (A_ii) and strength k_i = A_ii + sum_j A_ij. */
typedef struct fgl__g_lg {
    int n;
    int *xadj, *adj;
    double *w, *self, *k;
} fgl__g_lg;

static void fgl__g_lg_free(fgl__g_lg *g) {
    FGL_FREE(g->xadj);
    FGL_FREE(g->adj);
    FGL_FREE(g->w);
    FGL_FREE(g->self);
    FGL_FREE(g->k);
    memset(g, 0, sizeof *g);
}

static int fgl__g_lg_alloc(fgl__g_lg *g, int n, int nnz) {
    memset(g, 0, sizeof *g);
    g->xadj = FGL__G_NEW(int, (size_t)n + 1);
    g->adj = FGL__G_NEW(int, nnz);
    g->w = FGL__G_NEW(double, nnz);
    g->self = FGL__G_NEW(double, n);
    g->k = FGL__G_NEW(double, n);
    if (!g->xadj || !g->adj || !g->w || !g->self || !g->k) {
        fgl__g_lg_free(g);
        return FGL_ERR_NOMEM;
    }
    g->n = n;
    g->xadj[0] = 0;
    return FGL_OK;
}

/* Local moving on one level. comm receives the communities (node ids of
 * this level); returns the number of nodes that changed community. */
static int fgl__g_louvain_move(const fgl__g_lg *g, double m2, double gamma, fgl_rng *r, int *comm, double *tot,
                               double *nw, int *mark, int *list, int *perm) {
    int n = g->n, v, i, e, pass, changed = 0;
    for (v = 0; v < n; v++) {
        comm[v] = v;
        tot[v] = g->k[v];
        mark[v] = 0;
        nw[v] = 0;
        perm[v] = v;
    }
    fgl_rng_shuffle(r, perm, n);
    for (pass = 0; pass < 1000; pass++) {
        int moves = 0;
        double improve = 0;
        for (i = 0; i < n; i++) {
            int a, best, nt = 0, j;
            double kv, stay, bg;
            v = perm[i];
            a = comm[v];
            kv = g->k[v];
            for (e = g->xadj[v]; e < g->xadj[v + 1]; e++) {
                int c = comm[g->adj[e]];
                if (!mark[c]) {
                    mark[c] = 1;
                    list[nt++] = c;
                }
                nw[c] += g->w[e];
            }
            tot[a] -= kv;
            stay = nw[a] - gamma * tot[a] * kv / m2;
            best = a;
            bg = stay;
            for (j = 0; j < nt; j++) {
                int c = list[j];
                double gn = nw[c] - gamma * tot[c] * kv / m2;
                if (gn > bg + 1e-12 * m2) {
                    bg = gn;
                    best = c;
                }
            }
            tot[best] += kv;
            comm[v] = best;
            if (best != a) {
                moves++;
                improve += bg - stay;
            }
            for (j = 0; j < nt; j++) {
                mark[list[j]] = 0;
                nw[list[j]] = 0;
            }
        }
        changed += moves;
        if (moves == 0 || 2.0 * improve / m2 < 1e-7) break;
    }
    return changed;
}

/* Contract the communities comm of g into h; map receives node -> new
 * community id (0..nc-1, numbered by first appearance). */
static int fgl__g_louvain_aggregate(const fgl__g_lg *g, const int *comm, int *map, int *nc_out, fgl__g_lg *h, int *pos,
                                  int *bptr, int *bids) {
    int n = g->n, v, c, nc = 0, e, rc, nnz = 0;
    for (v = 0; v < n; v++) pos[v] = -1;
    for (v = 0; v < n; v++) {
        if (pos[comm[v]] < 0) pos[comm[v]] = nc++;
    }
    for (v = 0; v < n; v++) map[v] = pos[comm[v]];
    fgl__g_bucket(map, n, nc, bptr, bids);
    rc = fgl__g_lg_alloc(h, nc, g->xadj[n]);
    if (rc) return rc;
    for (v = 0; v < n; v++) pos[v] = -1; /* now: slot of a neighbour community in h */
    for (c = 0; c < nc; c++) {
        int start = nnz, q;
        h->self[c] = 0;
        h->k[c] = 0;
        for (q = bptr[c]; q < bptr[c + 1]; q++) {
            v = bids[q];
            h->self[c] += g->self[v];
            h->k[c] += g->k[v];
            for (e = g->xadj[v]; e < g->xadj[v + 1]; e++) {
                int d = map[g->adj[e]];
                if (d == c) {
                    h->self[c] += g->w[e];
                    continue;
                }
                if (pos[d] < 0) {
                    pos[d] = nnz;
                    h->adj[nnz] = d;
                    h->w[nnz++] = 0;
                }
                h->w[pos[d]] += g->w[e];
            }
        }
        for (q = start; q < nnz; q++) pos[h->adj[q]] = -1;
        h->xadj[c + 1] = nnz;
    }
    *nc_out = nc;
    return FGL_OK;
}

FGLDEF int fgl_louvain(const fgl_csr *adj, uint64_t seed, int *comm, int *n_comm, fgl_error *err) {
    return fgl_louvain_ex(adj, seed, 1.0, comm, n_comm, err);
}

FGLDEF int fgl_louvain_ex(const fgl_csr *adj, uint64_t seed, double gamma, int *comm, int *n_comm, fgl_error *err) {
    fgl__g_lg g, h;
    fgl_rng r;
    int n, i, e, rc = FGL_OK, nc = 0;
    int *lcomm = NULL, *newc = NULL, *mark = NULL, *list = NULL, *perm = NULL, *bptr = NULL, *bids = NULL;
    double *tot = NULL, *nw = NULL, m2 = 0;
    memset(&g, 0, sizeof g);
    memset(&h, 0, sizeof h);
    if (!adj || adj->rows != adj->cols || (adj->rows > 0 && !comm))
        return fgl_error_set(err, FGL_ERR_ARG, "louvain: need a square adjacency and an output array");
    if (!(gamma > 0 && gamma < 1e9))
        return fgl_error_set(err, FGL_ERR_ARG, "louvain: resolution %g (must be > 0)", gamma);
    if ((rc = fgl__g_check_graph_arg(adj, 1, "louvain", err)) != FGL_OK) return rc;
    n = adj->rows;
    if (n_comm) *n_comm = 0;
    if (n == 0) return FGL_OK;
    lcomm = FGL__G_NEW(int, n);
    newc = FGL__G_NEW(int, n);
    mark = FGL__G_NEW(int, n);
    list = FGL__G_NEW(int, n);
    perm = FGL__G_NEW(int, n);
    bptr = FGL__G_NEW(int, (size_t)n + 1);
    bids = FGL__G_NEW(int, n);
    tot = FGL__G_NEW(double, n);
    nw = FGL__G_NEW(double, n);
    if (!lcomm || !newc || !mark || !list || !perm || !bptr || !bids || !tot || !nw ||
        fgl__g_lg_alloc(&g, n, adj->nnz)) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "louvain: out of memory (%d nodes)", n);
        goto done;
    }
    {
        int q = 0;
        for (i = 0; i < n; i++) {
            g.self[i] = 0;
            g.k[i] = 0;
            for (e = adj->indptr[i]; e < adj->indptr[i + 1]; e++) {
                int j = adj->indices[e];
                double w = adj->values ? (double)adj->values[e] : 1.0;
                if (!(w >= 0)) {
                    rc = fgl_error_set(err, FGL_ERR_ARG, "louvain: row %d: column %d has weight %g", i, j, w);
                    goto done;
                }
                g.k[i] += w;
                if (j == i) {
                    g.self[i] += w;
                    continue;
                }
                g.adj[q] = j;
                g.w[q++] = w;
            }
            g.xadj[i + 1] = q;
            m2 += g.k[i];
            comm[i] = i;
        }
    }
    nc = n;
    if (m2 > 0) {
        fgl_rng_init(&r, seed, FGL__G_ST_LOUVAIN);
        for (;;) {
            int changed = fgl__g_louvain_move(&g, m2, gamma, &r, lcomm, tot, nw, mark, list, perm), prev = g.n;
            if (changed == 0) break;
            rc = fgl__g_louvain_aggregate(&g, lcomm, mark, &nc, &h, newc, bptr, bids);
            if (rc) {
                rc = fgl_error_set(err, rc, "louvain: out of memory");
                goto done;
            }
            for (i = 0; i < n; i++) comm[i] = mark[comm[i]];
            fgl__g_lg_free(&g);
            g = h;
            memset(&h, 0, sizeof h);
            if (nc == prev) break;
        }
    }
    if (n_comm) *n_comm = nc;
done:
    fgl__g_lg_free(&g);
    fgl__g_lg_free(&h);
    FGL_FREE(lcomm);
    FGL_FREE(newc);
    FGL_FREE(mark);
    FGL_FREE(list);
    FGL_FREE(perm);
    FGL_FREE(bptr);
    FGL_FREE(bids);
    FGL_FREE(tot);
    FGL_FREE(nw);
    return rc;
}

FGLDEF double fgl_modularity(const fgl_csr *adj, const int *comm) {
    int n = adj->rows, i, e, maxc = -1;
    double *tot, *in, m2 = 0, q = 0;
    for (i = 0; i < n; i++) {
        if (comm[i] < 0) return NAN;
        if (comm[i] > maxc) maxc = comm[i];
    }
    tot = FGL__G_NEW(double, (size_t)maxc + 1);
    in = FGL__G_NEW(double, (size_t)maxc + 1);
    if (!tot || !in) {
        FGL_FREE(tot);
        FGL_FREE(in);
        return NAN;
    }
    for (i = 0; i <= maxc; i++) tot[i] = in[i] = 0;
    for (i = 0; i < n; i++)
        for (e = adj->indptr[i]; e < adj->indptr[i + 1]; e++) {
            double w = adj->values ? (double)adj->values[e] : 1.0;
            m2 += w;
            tot[comm[i]] += w;
            if (comm[adj->indices[e]] == comm[i]) in[comm[i]] += w;
        }
    if (m2 > 0)
        for (i = 0; i <= maxc; i++) q += in[i] / m2 - (tot[i] / m2) * (tot[i] / m2);
    FGL_FREE(tot);
    FGL_FREE(in);
    return q;
}

/* --- src/graph/partfile.h --- */
/* --- partition files ------------------------------------------------------------ */

FGLDEF int fgl_write_metis_graph(const fgl_csr *adj, const char *path, fgl_error *err) {
    FILE *f;
    long entries = 0;
    int i, k, bad = 0;
    if (!adj || !path) return fgl_error_set(err, FGL_ERR_ARG, "write_metis_graph: no graph or path");
    for (i = 0; i < adj->rows; i++)
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) entries += adj->indices[k] != i;
    if (entries % 2) return fgl_error_set(err, FGL_ERR_ARG, "write_metis_graph: the graph is not symmetric");
    if (!(f = fopen(path, "w"))) return fgl_error_set(err, FGL_ERR_IO, "cannot write '%s'", path);
    bad |= fprintf(f, "%d %ld\n", adj->rows, entries / 2) < 0;
    for (i = 0; i < adj->rows && !bad; i++) {
        int first = 1;
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) {
            if (adj->indices[k] == i) continue;
            bad |= fprintf(f, first ? "%d" : " %d", adj->indices[k] + 1) < 0;
            first = 0;
        }
        bad |= fputc('\n', f) == EOF;
    }
    bad |= fclose(f) != 0;
    return bad ? fgl_error_set(err, FGL_ERR_IO, "cannot write '%s' (disk full?)", path) : FGL_OK;
}

FGLDEF int fgl_read_partition(const char *path, int n, int k, int *part, int *k_out, fgl_error *err) {
    FILE *f;
    int *tmp, *count = NULL, line = 0, c = 0, maxid = -1, rc = FGL_OK, i;
    char buf[64];
    if (!path || n < 1 || k < 0 || !part)
        return fgl_error_set(err, FGL_ERR_ARG, "read_partition: no file, %d nodes, %d parts", n, k);
#if defined(__unix__) || defined(__APPLE__)
    { /* a FIFO would block fopen, a device never end: regular files only, bounded by n lines of 64 bytes */
        struct stat st;
        double most = 64.0 * (double)n, cap = (double)fgl_file_max();
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
            return fgl_error_set(err, FGL_ERR_IO, "partition file '%s' is not a regular file (%s)", path,
                                 S_ISDIR(st.st_mode) ? "a directory" : "a device, pipe or socket");
        if (stat(path, &st) == 0 && ((double)st.st_size > most || (cap > 0 && (double)st.st_size > cap)))
            return fgl_error_set(err, FGL_ERR_RANGE, "partition file '%s' has %.0f bytes, more than %d lines (the "
                                 "graph's nodes) of at most 64 bytes%s", path, (double)st.st_size, n,
                                 (double)st.st_size > most ? "" : " or the FGL_MAX_FILE_BYTES bound");
    }
#endif
    if (!(f = fopen(path, "r"))) return fgl_error_set(err, FGL_ERR_IO, "partition file '%s' cannot be opened", path);
    tmp = (int *)FGL_MALLOC(sizeof(int) * (size_t)n);
    if (!tmp) {
        fclose(f);
        return fgl_error_set(err, FGL_ERR_NOMEM, "read_partition: out of memory");
    }
    while (c != EOF) { /* one line at a time, at most sizeof buf - 1 characters of it */
        size_t len = 0;
        long v;
        char *end;
        while ((c = fgetc(f)) != EOF && c != '\n')
            if (len + 1 < sizeof buf) buf[len++] = (char)c;
            else {
                len = sizeof buf; /* too long: the mark of a bad line, told now (the line may never end) */
                break;
            }
        if (c == EOF && len == 0) break; /* the end, after the last newline */
        line++;
        if (len > 0 && len < sizeof buf && buf[len - 1] == '\r') len--; /* a file written on Windows */
        if (len >= sizeof buf) {
            rc = fgl_error_set(err, FGL_ERR_PARSE, "partition file '%s', line %d: too long for one part id", path,
                               line);
            break;
        }
        buf[len] = 0;
        if (line > n) {
            rc = fgl_error_set(err, FGL_ERR_SHAPE, "partition file '%s' has more lines than the graph's %d nodes "
                               "(one part id per node, as gpmetis writes)", path, n);
            break;
        }
        v = strtol(buf, &end, 10);
        while (*end == ' ' || *end == '\t') end++;
        if (len == 0 || end == buf || *end || !((buf[0] >= '0' && buf[0] <= '9') || buf[0] == '-' || buf[0] == ' ')) {
            rc = fgl_error_set(err, FGL_ERR_PARSE, "partition file '%s', line %d: '%s' is not a part id (an integer)",
                               path, line, buf);
            break;
        }
        if (v < 0 || (k > 0 && v >= k) || v > 100000000L) {
            if (k > 0)
                rc = fgl_error_set(err, FGL_ERR_RANGE, "partition file '%s', line %d: part %ld is outside 0..%d "
                                   "(%d clients)", path, line, v, k - 1, k);
            else
                rc = fgl_error_set(err, FGL_ERR_RANGE, "partition file '%s', line %d: part %ld is not a part id "
                                   "(0 or more)", path, line, v);
            break;
        }
        tmp[line - 1] = (int)v;
        if ((int)v > maxid) maxid = (int)v;
    }
    if (!rc && ferror(f)) rc = fgl_error_set(err, FGL_ERR_IO, "partition file '%s' cannot be read", path);
    fclose(f);
    if (!rc && line != n)
        rc = fgl_error_set(err, line ? FGL_ERR_SHAPE : FGL_ERR_EMPTY, "partition file '%s' has %d lines, the graph %d "
                           "nodes (one part id per node, line i the part of node i)", path, line, n);
    if (!rc) {
        int parts = k > 0 ? k : maxid + 1;
        if (!(count = (int *)FGL_MALLOC(sizeof(int) * (size_t)parts))) {
            rc = fgl_error_set(err, FGL_ERR_NOMEM, "read_partition: out of memory");
        } else {
            memset(count, 0, sizeof(int) * (size_t)parts);
            for (i = 0; i < n; i++) count[tmp[i]]++;
            for (i = 0; i < parts && !rc; i++)
                if (count[i] == 0)
                    rc = fgl_error_set(err, FGL_ERR_EMPTY, "partition file '%s': part %d of 0..%d holds no node "
                                       "(every client needs one)", path, i, parts - 1);
            if (!rc) {
                memcpy(part, tmp, sizeof(int) * (size_t)n);
                if (k_out) *k_out = parts;
            }
        }
    }
    FGL_FREE(count);
    FGL_FREE(tmp);
    return rc;
}
/* --- src/graph/splits.h --- */
/* --- federated splits ----------------------------------------------------- */

FGLDEF void fgl_index_lists_free(fgl_index_lists *l) {
    FGL_FREE(l->ptr);
    FGL_FREE(l->idx);
    memset(l, 0, sizeof *l);
}

FGLDEF int fgl_index_lists_from_assign(const int *assign, int n, int k, fgl_index_lists *out, fgl_error *err) {
    int i;
    memset(out, 0, sizeof *out);
    if (n < 0 || k < 1 || (n > 0 && !assign))
        return fgl_error_set(err, FGL_ERR_ARG, "index_lists_from_assign: n = %d, k = %d", n, k);
    for (i = 0; i < n; i++)
        if (assign[i] < 0 || assign[i] >= k)
            return fgl_error_set(err, FGL_ERR_RANGE, "index_lists_from_assign: item %d has list %d of %d", i,
                                 assign[i], k);
    out->ptr = FGL__G_NEW(int, (size_t)k + 1);
    out->idx = FGL__G_NEW(int, n);
    if (!out->ptr || !out->idx) {
        fgl_index_lists_free(out);
        return fgl_error_set(err, FGL_ERR_NOMEM, "index_lists_from_assign: out of memory");
    }
    fgl__g_bucket(assign, n, k, out->ptr, out->idx);
    out->n_lists = k;
    return FGL_OK;
}

FGLDEF int fgl_split_overlapping(const fgl_csr *adj, int n_clients, uint64_t seed, fgl_index_lists *out,
                                 fgl_error *err) {
    int P, n, *part = NULL, *pptr = NULL, *pids = NULL, *pick = NULL, p, s, i, rc, w = 0;
    long long total = 0;
    fgl_rng r;
    memset(out, 0, sizeof *out);
    if (!adj || adj->rows != adj->cols || n_clients < 5 || n_clients % 5)
        return fgl_error_set(err, FGL_ERR_ARG, "split_overlapping: %d clients (need a positive multiple of 5)",
                             n_clients);
    n = adj->rows;
    P = n_clients / 5;
    if (P > n) return fgl_error_set(err, FGL_ERR_ARG, "split_overlapping: %d parts for %d nodes", P, n);
    part = FGL__G_NEW(int, n);
    pptr = FGL__G_NEW(int, (size_t)P + 1);
    pids = FGL__G_NEW(int, n);
    pick = FGL__G_NEW(int, n);
    if (!part || !pptr || !pids || !pick) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "split_overlapping: out of memory");
        goto done;
    }
    rc = fgl_partition_metis(adj, P, seed, part, err);
    if (rc) goto done;
    fgl__g_bucket(part, n, P, pptr, pids);
    for (p = 0; p < P; p++) total += 5 * ((pptr[p + 1] - pptr[p]) / 2);
    out->ptr = FGL__G_NEW(int, (size_t)n_clients + 1);
    out->idx = FGL__G_NEW(int, total);
    if (!out->ptr || !out->idx) {
        fgl_index_lists_free(out);
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "split_overlapping: out of memory");
        goto done;
    }
    fgl_rng_init(&r, seed, FGL__G_ST_SPLIT);
    out->ptr[0] = 0;
    for (p = 0; p < P; p++) {
        int size = pptr[p + 1] - pptr[p], half = size / 2;
        for (s = 0; s < 5; s++) {
            rc = fgl_rng_sample(&r, size, half, pick);
            if (rc) {
                fgl_index_lists_free(out);
                rc = fgl_error_set(err, rc, "split_overlapping: out of memory");
                goto done;
            }
            for (i = 0; i < half; i++) out->idx[w + i] = pids[pptr[p] + pick[i]];
            fgl__g_sort_ints(out->idx + w, (size_t)half);
            w += half;
            out->ptr[5 * p + s + 1] = w;
        }
    }
    out->n_lists = n_clients;
    rc = FGL_OK;
done:
    FGL_FREE(part);
    FGL_FREE(pptr);
    FGL_FREE(pids);
    FGL_FREE(pick);
    return rc;
}

FGLDEF int fgl_split_dirichlet(const int *labels, int n, int n_classes, int n_clients, double alpha,
                               int min_per_client, uint64_t seed, int *client_of, fgl_error *err) {
    int K = n_clients, C = n_classes, *cptr = NULL, *cids = NULL, *count = NULL, i, c, j, t, rc = FGL_OK;
    double *a = NULL, *p = NULL;
    fgl_rng r;
    if (n < 0 || C < 1 || K < 1 || !(alpha > 0) || min_per_client < 0 || (n > 0 && (!labels || !client_of)))
        return fgl_error_set(err, FGL_ERR_ARG,
                             "split_dirichlet: n = %d, %d classes, %d clients, alpha = %g, minimum %d", n, C, K, alpha,
                             min_per_client);
    if ((long long)K * min_per_client > n)
        return fgl_error_set(err, FGL_ERR_ARG, "split_dirichlet: %d clients x %d items exceed the %d items", K,
                             min_per_client, n);
    for (i = 0; i < n; i++)
        if (labels[i] < 0 || labels[i] >= C)
            return fgl_error_set(err, FGL_ERR_RANGE, "split_dirichlet: item %d has label %d of %d classes", i,
                                 labels[i], C);
    cptr = FGL__G_NEW(int, (size_t)C + 1);
    cids = FGL__G_NEW(int, n);
    count = FGL__G_NEW(int, K);
    a = FGL__G_NEW(double, K);
    p = FGL__G_NEW(double, K);
    if (!cptr || !cids || !count || !a || !p) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "split_dirichlet: out of memory");
        goto done;
    }
    fgl__g_bucket(labels, n, C, cptr, cids);
    for (j = 0; j < K; j++) a[j] = alpha;
    fgl_rng_init(&r, seed, FGL__G_ST_SPLIT);
    for (t = 0; t < 100; t++) {
        int low = INT_MAX;
        memset(count, 0, sizeof(int) * (size_t)K);
        for (c = 0; c < C; c++) {
            int nc = cptr[c + 1] - cptr[c], start = 0;
            double cum = 0;
            fgl_rng_shuffle(&r, cids + cptr[c], nc);
            fgl_rng_dirichlet(&r, a, K, p);
            for (j = 0; j < K; j++) {
                int end;
                cum += p[j];
                end = j == K - 1 ? nc : (int)floor(cum * nc + 0.5);
                if (end > nc) end = nc;
                if (end < start) end = start;
                for (i = start; i < end; i++) client_of[cids[cptr[c] + i]] = j;
                count[j] += end - start;
                start = end;
            }
        }
        for (j = 0; j < K; j++)
            if (count[j] < low) low = count[j];
        if (low >= min_per_client) goto done;
    }
    /* no draw met the minimum: move random items of the largest client */
    for (j = 0; j < K; j++)
        while (count[j] < min_per_client) {
            int donor = 0, pickn, q;
            for (i = 1; i < K; i++)
                if (count[i] > count[donor]) donor = i;
            pickn = (int)fgl_rng_below(&r, (uint64_t)count[donor]);
            for (q = 0; q < n; q++)
                if (client_of[q] == donor && pickn-- == 0) break;
            client_of[q] = j;
            count[donor]--;
            count[j]++;
        }
done:
    FGL_FREE(cptr);
    FGL_FREE(cids);
    FGL_FREE(count);
    FGL_FREE(a);
    FGL_FREE(p);
    return rc;
}

FGLDEF int fgl_split_iid(int n, int n_clients, uint64_t seed, int *client_of, fgl_error *err) {
    int *perm, i;
    fgl_rng r;
    if (n < 0 || n_clients < 1 || (n > 0 && !client_of))
        return fgl_error_set(err, FGL_ERR_ARG, "split_iid: n = %d, %d clients", n, n_clients);
    perm = FGL__G_NEW(int, n);
    if (!perm) return fgl_error_set(err, FGL_ERR_NOMEM, "split_iid: out of memory");
    for (i = 0; i < n; i++) perm[i] = i;
    fgl_rng_init(&r, seed, FGL__G_ST_SPLIT);
    fgl_rng_shuffle(&r, perm, n);
    for (i = 0; i < n; i++) client_of[perm[i]] = i % n_clients;
    FGL_FREE(perm);
    return FGL_OK;
}

/* --- GPFL's protocol: soft Dirichlet split, k-fold CV, graph properties ----------- */
/* Public fgl_ functions and FGL_MALLOC / FGL_FREE only. */

FGLDEF int fgl_split_dirichlet_equal(const int *labels, int n, int n_classes, int n_clients, double alpha, double cap,
                                     uint64_t seed, int *client_of, fgl_error *err) {
    int K = n_clients, C = n_classes, i, j, c, rc = FGL_OK, left = n, n_open = K;
    int *pool = NULL, *start = NULL, *avail = NULL, *slots = NULL, *open = NULL;
    double *a = NULL, *prior = NULL, *w = NULL;
    fgl_rng r;
    if (n < 1 || C < 1 || K < 1 || K > n || !(alpha > 0) || !(cap * C >= 1.0 - 1e-12 && cap <= 1.0) || !labels ||
        !client_of)
        return fgl_error_set(err, FGL_ERR_ARG,
                             "split_dirichlet_equal: n = %d, %d classes, %d clients, alpha = %g, "
                             "cap = %g (need 1 <= clients <= n, alpha > 0, 1/classes <= cap <= 1)",
                             n, C, K, alpha, cap);
    for (i = 0; i < n; i++)
        if (labels[i] < 0 || labels[i] >= C)
            return fgl_error_set(err, FGL_ERR_RANGE, "split_dirichlet_equal: item %d has label %d of %d classes", i,
                                 labels[i], C);
    pool = (int *)FGL_MALLOC(sizeof(int) * (size_t)n);
    start = (int *)FGL_MALLOC(sizeof(int) * ((size_t)C + 1));
    avail = (int *)FGL_MALLOC(sizeof(int) * (size_t)C);
    slots = (int *)FGL_MALLOC(sizeof(int) * (size_t)K);
    open = (int *)FGL_MALLOC(sizeof(int) * (size_t)K);
    a = (double *)FGL_MALLOC(sizeof(double) * (size_t)C);
    prior = (double *)FGL_MALLOC(sizeof(double) * (size_t)K * (size_t)C);
    w = (double *)FGL_MALLOC(sizeof(double) * (size_t)C);
    if (!pool || !start || !avail || !slots || !open || !a || !prior || !w) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "split_dirichlet_equal: out of memory");
        goto done;
    }
    fgl_rng_init(&r, seed, 0x47504c4653ull); /* "GPLFS" */
    /* the class priors, capped */
    for (c = 0; c < C; c++) a[c] = alpha;
    for (j = 0; j < K; j++) {
        double *p = prior + (size_t)j * C, excess = 0;
        int below = 0;
        fgl_rng_dirichlet(&r, a, C, p);
        for (c = 0; c < C; c++) {
            if (p[c] > cap) excess += p[c] - cap;
            else below++;
        }
        for (c = 0; c < C && excess > 0; c++) p[c] = p[c] > cap ? cap : p[c] + excess / below;
    }
    /* every class's items in a random order */
    memset(avail, 0, sizeof(int) * (size_t)C);
    for (i = 0; i < n; i++) avail[labels[i]]++;
    start[0] = 0;
    for (c = 0; c < C; c++) start[c + 1] = start[c] + avail[c];
    for (c = 0; c < C; c++) avail[c] = 0;
    for (i = 0; i < n; i++) pool[start[labels[i]] + avail[labels[i]]++] = i;
    for (c = 0; c < C; c++) fgl_rng_shuffle(&r, pool + start[c], avail[c]);
    /* equal sizes, then one item at a time */
    for (j = 0; j < K; j++) {
        slots[j] = n / K + (j < n % K);
        open[j] = j;
    }
    while (left > 0) {
        int q = (int)fgl_rng_below(&r, (uint64_t)n_open), cl = -1;
        double tot = 0, u, cum = 0;
        const double *p;
        j = open[q];
        p = prior + (size_t)j * C;
        for (c = 0; c < C; c++) tot += w[c] = avail[c] > 0 ? p[c] : 0.0;
        if (!(tot > 0)) /* no prior mass on the classes left: uniform over them */
            for (c = 0, tot = 0; c < C; c++) tot += w[c] = avail[c] > 0 ? 1.0 : 0.0;
        u = fgl_rng_uniform(&r) * tot;
        for (c = 0; c < C; c++) {
            if (w[c] <= 0) continue;
            cl = c;
            cum += w[c];
            if (u < cum) break;
        }
        client_of[pool[start[cl] + --avail[cl]]] = j;
        left--;
        if (--slots[j] == 0) open[q] = open[--n_open];
    }
done:
    FGL_FREE(pool);
    FGL_FREE(start);
    FGL_FREE(avail);
    FGL_FREE(slots);
    FGL_FREE(open);
    FGL_FREE(a);
    FGL_FREE(prior);
    FGL_FREE(w);
    return rc;
}

FGLDEF int fgl_split_graphs_kfold(fgl_graph_set *s, int folds, int fold, uint64_t seed, fgl_error *err) {
    int G = s->n_graphs, c, g, pos = 0, *idx;
    fgl_rng r;
    if (folds < 2 || fold < 0 || fold >= folds)
        return fgl_error_set(err, FGL_ERR_ARG, "kfold: need 2 <= folds and 0 <= fold < folds (got %d, %d)", folds,
                             fold);
    if (G > 0 && !s->y) return fgl_error_set(err, FGL_ERR_ARG, "kfold: the graph set has no labels");
    if (!s->split) {
        s->split = (unsigned char *)FGL_MALLOC((size_t)(G > 0 ? G : 1));
        if (!s->split) return fgl_error_set(err, FGL_ERR_NOMEM, "kfold: out of memory (%d graphs)", G);
    }
    idx = (int *)FGL_MALLOC(sizeof(int) * (size_t)(G > 0 ? G : 1));
    if (!idx) return fgl_error_set(err, FGL_ERR_NOMEM, "kfold: out of memory (%d graphs)", G);
    fgl_rng_init(&r, seed, 0x4b464f4c44ull); /* "KFOLD" */
    for (g = 0; g < G; g++) s->split[g] = FGL_SPLIT_NONE;
    for (c = 0; c < s->n_classes; c++) {
        int m = 0, i;
        for (g = 0; g < G; g++)
            if (s->y[g] == c) idx[m++] = g;
        fgl_rng_shuffle(&r, idx, m);
        for (i = 0; i < m; i++, pos++)
            s->split[idx[i]] = (unsigned char)(pos % folds == fold ? FGL_SPLIT_TEST : FGL_SPLIT_TRAIN);
    }
    FGL_FREE(idx);
    return FGL_OK;
}

FGLDEF int fgl_graph_gpfl_properties(const fgl_csr *adj, double *out, fgl_error *err) {
    int N, i, rc;
    double twoE, mean, var = 0, dlnd = 0;
    if (!adj || adj->rows != adj->cols || !out)
        return fgl_error_set(err, FGL_ERR_ARG, "gpfl_properties: need a square adjacency and an output");
    for (i = 0; i < FGL_GPFL_PROPS; i++) out[i] = 0;
    N = adj->rows;
    if (N == 0) return FGL_OK;
    twoE = (double)adj->nnz;
    mean = twoE / N;
    for (i = 0; i < N; i++) {
        double d = (double)(adj->indptr[i + 1] - adj->indptr[i]);
        var += (d - mean) * (d - mean);
        if (d > 0) dlnd += d * log(d);
    }
    out[0] = mean;
    out[1] = N > 1 ? twoE / ((double)N * (N - 1)) : 0.0;
    out[2] = var / N;
    out[3] = twoE > 0 ? dlnd / N / twoE : 0.0;
    out[4] = mean > 0 ? -(2.0 + 1.0 / mean) : NAN;
    if ((rc = fgl_graph_closeness(adj, NULL, &out[5])))
        return fgl_error_set(err, rc, "gpfl_properties: out of memory (%d nodes)", N);
    return FGL_OK;
}

FGLDEF int fgl_graph_set_gpfl_properties(const fgl_graph_set *s, int code, double *out, fgl_error *err) {
    double sum[FGL_GPFL_PROPS], p[FGL_GPFL_PROPS];
    int cnt[FGL_GPFL_PROPS], g, k, *nodes = NULL, cap = 0, rc = FGL_OK, used = 0;
    fgl_csr sub;
    memset(&sub, 0, sizeof sub);
    for (k = 0; k < FGL_GPFL_PROPS; k++) {
        sum[k] = 0;
        cnt[k] = 0;
        out[k] = 0;
    }
    if (code >= 0 && !s->split) return fgl_error_set(err, FGL_ERR_ARG, "%s: no split to choose graphs from", s->name);
    for (g = 0; g < s->n_graphs && !rc; g++) {
        int n = s->node_ptr[g + 1] - s->node_ptr[g], i;
        if (code >= 0 && s->split[g] != code) continue;
        if (n > cap || !nodes) {
            FGL_FREE(nodes);
            cap = n > 1 ? n : 1;
            if (!(nodes = (int *)FGL_MALLOC(sizeof(int) * (size_t)cap))) {
                rc = fgl_error_set(err, FGL_ERR_NOMEM, "gpfl_properties: out of memory");
                break;
            }
        }
        for (i = 0; i < n; i++) nodes[i] = s->node_ptr[g] + i;
        if ((rc = fgl_graph_subgraph(&s->adj, nodes, n, &sub, NULL, err))) break;
        rc = fgl_graph_gpfl_properties(&sub, p, err);
        fgl_csr_free(&sub);
        for (k = 0; k < FGL_GPFL_PROPS && !rc; k++)
            if (p[k] == p[k]) { /* the exponent of a graph without edges (NaN) is left out */
                sum[k] += p[k];
                cnt[k]++;
            }
        used++;
    }
    FGL_FREE(nodes);
    if (rc) return rc;
    if (!used) return fgl_error_set(err, FGL_ERR_EMPTY, "%s: no graph with split code %d", s->name, code);
    for (k = 0; k < FGL_GPFL_PROPS; k++) out[k] = cnt[k] ? sum[k] / cnt[k] : 0.0;
    return FGL_OK;
}

/* --- stratified node splits and split statistics ------------------------------ */

FGLDEF int fgl_split_nodes_stratified(fgl_node_data *d, double train, double val, uint64_t seed, fgl_error *err) {
    int *idx, i, c, C = 0, n = d->n_nodes;
    fgl_rng r;
    if (!(train >= 0 && val >= 0 && train + val <= 1.0 + 1e-9))
        return fgl_error_set(err, FGL_ERR_ARG, "stratified split: fractions train %g, val %g (need >= 0, sum <= 1)",
                             train, val);
    if (n > 0 && !d->y) return fgl_error_set(err, FGL_ERR_ARG, "stratified split: the nodes have no labels");
    if (!d->split) {
        d->split = (unsigned char *)FGL_MALLOC((size_t)(n > 0 ? n : 1));
        if (!d->split) return fgl_error_set(err, FGL_ERR_NOMEM, "stratified split: out of memory (%d nodes)", n);
    }
    idx = (int *)FGL_MALLOC(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!idx) return fgl_error_set(err, FGL_ERR_NOMEM, "stratified split: out of memory (%d nodes)", n);
    for (i = 0; i < n; i++) {
        d->split[i] = FGL_SPLIT_NONE;
        if (d->y && d->y[i] + 1 > C) C = d->y[i] + 1;
    }
    fgl_rng_init(&r, seed, 0x5374726174ull); /* "Strat" */
    for (c = 0; c < C; c++) {
        int m = 0, ntr, nva;
        for (i = 0; i < n; i++)
            if (d->y[i] == c) idx[m++] = i;
        fgl_rng_shuffle(&r, idx, m);
        ntr = (int)floor(train * m + 1e-9);
        nva = (int)floor(val * m + 1e-9);
        if (ntr > m) ntr = m;
        if (nva > m - ntr) nva = m - ntr;
        for (i = 0; i < m; i++)
            d->split[idx[i]] = (unsigned char)(i < ntr         ? FGL_SPLIT_TRAIN
                                               : i < ntr + nva ? FGL_SPLIT_VAL
                                                               : FGL_SPLIT_TEST);
    }
    FGL_FREE(idx);
    return FGL_OK;
}

FGLDEF double fgl_graph_mean_clustering(const fgl_csr *adj) {
    int n = adj->rows, v, k, q;
    double total = 0;
    unsigned char *mark;
    if (n <= 0) return 0.0;
    mark = (unsigned char *)FGL_MALLOC((size_t)n);
    if (!mark) return NAN;
    memset(mark, 0, (size_t)n);
    for (v = 0; v < n; v++) {
        long deg = adj->indptr[v + 1] - adj->indptr[v], links = 0;
        if (deg < 2) continue;
        for (k = adj->indptr[v]; k < adj->indptr[v + 1]; k++) mark[adj->indices[k]] = 1;
        for (k = adj->indptr[v]; k < adj->indptr[v + 1]; k++) {
            int u = adj->indices[k];
            for (q = adj->indptr[u]; q < adj->indptr[u + 1]; q++) links += mark[adj->indices[q]];
        }
        for (k = adj->indptr[v]; k < adj->indptr[v + 1]; k++) mark[adj->indices[k]] = 0;
        total += (double)links / ((double)deg * (double)(deg - 1)); /* each link seen from both ends */
    }
    FGL_FREE(mark);
    return total / n;
}

FGLDEF double fgl_js_divergence(const double *p, const double *q, int n) {
    double sp = 0, sq = 0, js = 0;
    int i;
    for (i = 0; i < n; i++) {
        sp += p[i];
        sq += q[i];
    }
    if (!(sp > 0) || !(sq > 0)) return 0.0;
    for (i = 0; i < n; i++) {
        double a = p[i] / sp, b = q[i] / sq, m = 0.5 * (a + b);
        if (a > 0) js += 0.5 * a * log(a / m);
        if (b > 0) js += 0.5 * b * log(b / m);
    }
    return js;
}

/* --- src/graph/simulate.h --- */
/* --- OpenFGL's data simulations ----------------------------------------------------- */

#define FGL__SIM_ST_KMEANS 0x4b4d45414e53ull /* "KMEANS" */
#define FGL__SIM_ST_SKEW 0x534b4557ull       /* "SKEW" */

static double fgl__sim_d2(const double *a, const double *b, int d) {
    double s = 0;
    int i;
    for (i = 0; i < d; i++) s += (a[i] - b[i]) * (a[i] - b[i]);
    return s;
}

/* One k-means run over the m points pts (m x d) from a k-means++ seeding:
 * assign (m ints) receives the groups, the return value the sum of squared
 * distances. cen (k x d), dist (m) and cnt (k) are scratch. The caller has
 * checked that at least k points differ. */
static double fgl__sim_kmeans_run(const double *pts, int m, int d, int k, fgl_rng *r, int *assign, double *cen,
                                  double *dist, int *cnt) {
    int i, j, c, it, first = (int)fgl_rng_below(r, (uint64_t)m);
    double inertia = 0;
    memcpy(cen, pts + (size_t)first * d, sizeof(double) * (size_t)d);
    for (i = 0; i < m; i++) dist[i] = fgl__sim_d2(pts + (size_t)i * d, cen, d);
    for (c = 1; c < k; c++) { /* the next centre with probability proportional to the squared distance */
        double tot = 0, u;
        int pick = -1;
        for (i = 0; i < m; i++) tot += dist[i];
        u = fgl_rng_uniform(r) * tot;
        for (i = 0; i < m; i++) {
            if (dist[i] <= 0) continue;
            pick = i;
            if (u < dist[i]) break;
            u -= dist[i];
        }
        memcpy(cen + (size_t)c * d, pts + (size_t)pick * d, sizeof(double) * (size_t)d);
        for (i = 0; i < m; i++) {
            double e = fgl__sim_d2(pts + (size_t)i * d, cen + (size_t)c * d, d);
            if (e < dist[i]) dist[i] = e;
        }
    }
    for (i = 0; i < m; i++) assign[i] = -1;
    for (it = 0; it < 300; it++) {
        int moved = 0;
        for (i = 0; i < m; i++) { /* the nearest centre (ties: the lower group) */
            int best = 0;
            double bd = fgl__sim_d2(pts + (size_t)i * d, cen, d);
            for (c = 1; c < k; c++) {
                double e = fgl__sim_d2(pts + (size_t)i * d, cen + (size_t)c * d, d);
                if (e < bd) {
                    bd = e;
                    best = c;
                }
            }
            dist[i] = bd;
            moved += assign[i] != best;
            assign[i] = best;
        }
        memset(cnt, 0, sizeof(int) * (size_t)k);
        for (i = 0; i < m; i++) cnt[assign[i]]++;
        for (c = 0; c < k; c++) { /* an empty group takes the point farthest from its centre (of a group of 2+) */
            int far = -1;
            if (cnt[c]) continue;
            for (i = 0; i < m; i++)
                if (cnt[assign[i]] > 1 && (far < 0 || dist[i] > dist[far])) far = i;
            cnt[assign[far]]--;
            assign[far] = c;
            dist[far] = 0;
            cnt[c] = 1;
            moved++;
        }
        if (!moved) break;
        memset(cen, 0, sizeof(double) * (size_t)k * (size_t)d);
        for (i = 0; i < m; i++)
            for (j = 0; j < d; j++) cen[(size_t)assign[i] * d + j] += pts[(size_t)i * d + j];
        for (c = 0; c < k; c++)
            for (j = 0; j < d; j++) cen[(size_t)c * d + j] /= cnt[c];
    }
    for (i = 0; i < m; i++) inertia += fgl__sim_d2(pts + (size_t)i * d, cen + (size_t)assign[i] * d, d);
    return inertia;
}

FGLDEF int fgl_split_group_communities(const int *comm, int n, int n_comm, const int *labels, int n_classes, int k,
                                       uint64_t seed, int *client_of, fgl_error *err) {
    int m = n_comm, d = n_classes > 0 ? n_classes : 1, i, j, t, distinct = 0, rc = FGL_OK;
    double *pts = NULL, *cen = NULL, *dist = NULL, best = 0;
    int *assign = NULL, *keep = NULL, *cnt = NULL;
    fgl_rng r;
    if (n < 1 || m < 1 || k < 1 || n_classes < 1 || !comm || !labels || !client_of)
        return fgl_error_set(err, FGL_ERR_ARG, "group communities: %d nodes, %d communities, %d classes, %d clients",
                             n, m, n_classes, k);
    if (k > m)
        return fgl_error_set(err, FGL_ERR_ARG, "group communities: %d communities cannot fill %d clients (each client "
                             "gets whole communities)", m, k);
    pts = FGL__G_NEW2(double, m, d);
    cen = FGL__G_NEW2(double, k, d);
    dist = FGL__G_NEW(double, m);
    assign = FGL__G_NEW(int, m);
    keep = FGL__G_NEW(int, m);
    cnt = FGL__G_NEW(int, k);
    if (!pts || !cen || !dist || !assign || !keep || !cnt) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "group communities: out of memory");
        goto done;
    }
    memset(pts, 0, sizeof(double) * (size_t)m * (size_t)d);
    for (i = 0; i < n; i++) {
        if (comm[i] < 0 || comm[i] >= m) {
            rc = fgl_error_set(err, FGL_ERR_RANGE, "group communities: node %d is in community %d of %d", i, comm[i], m);
            goto done;
        }
        if (labels[i] >= 0 && labels[i] < n_classes) pts[(size_t)comm[i] * d + labels[i]] += 1;
    }
    for (i = 0; i < m; i++) { /* each community's label distribution */
        double s = 0;
        for (j = 0; j < d; j++) s += pts[(size_t)i * d + j];
        for (j = 0; s > 0 && j < d; j++) pts[(size_t)i * d + j] /= s;
    }
    for (i = 0; i < m && distinct < k; i++) { /* are there k different points? */
        for (j = 0; j < i; j++)
            if (!memcmp(pts + (size_t)i * d, pts + (size_t)j * d, sizeof(double) * (size_t)d)) break;
        distinct += j == i;
    }
    if (distinct < k) {
        rc = fgl_error_set(err, FGL_ERR_ARG, "group communities: the %d communities have %d distinct label "
                           "distributions, fewer than the %d clients (some client would be empty): fewer clients, or "
                           "more communities", m, distinct, k);
        goto done;
    }
    fgl_rng_init(&r, seed, FGL__SIM_ST_KMEANS);
    for (t = 0; t < 10; t++) {
        double in = fgl__sim_kmeans_run(pts, m, d, k, &r, assign, cen, dist, cnt);
        if (t == 0 || in < best) {
            best = in;
            memcpy(keep, assign, sizeof(int) * (size_t)m);
        }
    }
    for (i = 0; i < n; i++) client_of[i] = keep[comm[i]];
done:
    FGL_FREE(pts);
    FGL_FREE(cen);
    FGL_FREE(dist);
    FGL_FREE(assign);
    FGL_FREE(keep);
    FGL_FREE(cnt);
    return rc;
}

FGLDEF int fgl_split_label_skew(const int *labels, int n, int n_classes, int k, double alpha, int min_per_client,
                                int tries, uint64_t seed, int *client_of, fgl_error *err) {
    int C = n_classes, *cptr = NULL, *cids = NULL, *count = NULL, i, c, j, t, low = 0, rc = FGL_OK;
    double *a = NULL, *p = NULL, cap = (double)n / (k > 0 ? k : 1);
    fgl_rng r;
    if (n < 1 || C < 1 || k < 1 || !(alpha > 0) || min_per_client < 0 || tries < 1 || !labels || !client_of)
        return fgl_error_set(err, FGL_ERR_ARG, "label skew: %d items, %d classes, %d clients, alpha %g, minimum %d, "
                             "%d tries (need alpha > 0)", n, C, k, alpha, min_per_client, tries);
    if ((long long)k * min_per_client > n)
        return fgl_error_set(err, FGL_ERR_ARG, "label skew: %d clients x %d items at least exceed the %d items", k,
                             min_per_client, n);
    for (i = 0; i < n; i++)
        if (labels[i] < 0 || labels[i] >= C)
            return fgl_error_set(err, FGL_ERR_RANGE, "label skew: item %d has label %d of %d classes", i, labels[i], C);
    cptr = FGL__G_NEW(int, (size_t)C + 1);
    cids = FGL__G_NEW(int, n);
    count = FGL__G_NEW(int, k);
    a = FGL__G_NEW(double, k);
    p = FGL__G_NEW(double, k);
    if (!cptr || !cids || !count || !a || !p) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "label skew: out of memory");
        goto done;
    }
    for (j = 0; j < k; j++) a[j] = alpha;
    fgl_rng_init(&r, seed, FGL__SIM_ST_SKEW);
    for (t = 0; t < tries; t++) {
        fgl__g_bucket(labels, n, C, cptr, cids); /* every class's items in increasing order, then shuffled */
        memset(count, 0, sizeof(int) * (size_t)k);
        for (c = 0; c < C; c++) {
            int nc = cptr[c + 1] - cptr[c], start = 0, last = -1;
            double tot = 0, cum = 0;
            fgl_rng_shuffle(&r, cids + cptr[c], nc);
            fgl_rng_dirichlet(&r, a, k, p);
            for (j = 0; j < k; j++) { /* clients at capacity take no more */
                if (!(count[j] < cap)) p[j] = 0;
                tot += p[j];
                if (p[j] > 0) last = j;
            }
            if (!(tot > 0)) { /* every open client drew an underflowing share: the first open one takes the class */
                for (j = 0; j < k; j++) p[j] = 0;
                for (j = 0; j < k && !(count[j] < cap); j++) {
                }
                p[j] = tot = 1;
                last = j;
            }
            for (j = 0; j < k; j++) {
                int end;
                cum += p[j];
                end = j >= last ? nc : (int)floor((double)nc * (cum / tot));
                if (end > nc) end = nc;
                if (end < start) end = start;
                for (i = start; i < end; i++) client_of[cids[cptr[c] + i]] = j;
                count[j] += end - start;
                start = end;
            }
        }
        for (low = count[0], j = 1; j < k; j++)
            if (count[j] < low) low = count[j];
        if (low >= min_per_client) goto done;
    }
    rc = fgl_error_set(err, FGL_ERR_ARG, "label skew: none of %d draws gave every client %d items or more (the last: "
                       "a client with %d): raise --alpha (%g), lower --min-per-client or use fewer clients (%d)", tries,
                       min_per_client, low, alpha, k);
done:
    FGL_FREE(cptr);
    FGL_FREE(cids);
    FGL_FREE(count);
    FGL_FREE(a);
    FGL_FREE(p);
    return rc;
}

FGLDEF int fgl_split_sorted(const double *stat, int n, int k, int *client_of, fgl_error *err) {
    int *ord, *tmp, i, w, len;
    if (n < 1 || k < 1 || k > n || !stat || !client_of)
        return fgl_error_set(err, FGL_ERR_ARG, "sorted split: %d clients for %d items (need 1 <= clients <= items)", k,
                             n);
    for (i = 0; i < n; i++)
        if (stat[i] != stat[i]) return fgl_error_set(err, FGL_ERR_ARG, "sorted split: item %d's statistic is NaN", i);
    ord = FGL__G_NEW(int, n);
    tmp = FGL__G_NEW(int, n);
    if (!ord || !tmp) {
        FGL_FREE(ord);
        FGL_FREE(tmp);
        return fgl_error_set(err, FGL_ERR_NOMEM, "sorted split: out of memory");
    }
    for (i = 0; i < n; i++) ord[i] = i;
    for (w = 1; w < n; w *= 2) { /* bottom-up merge sort: stable */
        int lo;
        for (lo = 0; lo < n; lo += 2 * w) {
            int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, a = lo, b = mid, q = lo;
            while (a < mid && b < hi) tmp[q++] = stat[ord[b]] < stat[ord[a]] ? ord[b++] : ord[a++];
            while (a < mid) tmp[q++] = ord[a++];
            while (b < hi) tmp[q++] = ord[b++];
        }
        memcpy(ord, tmp, sizeof(int) * (size_t)n);
    }
    len = n / k;
    for (i = 0; i < n; i++) client_of[ord[i]] = i / len < k ? i / len : k - 1;
    FGL_FREE(ord);
    FGL_FREE(tmp);
    return FGL_OK;
}

FGLDEF void fgl_graph_set_mean_degrees(const fgl_graph_set *s, double *out) {
    int g;
    for (g = 0; g < s->n_graphs; g++) {
        int a = s->node_ptr[g], b = s->node_ptr[g + 1];
        out[g] = b > a ? (double)(s->adj.indptr[b] - s->adj.indptr[a]) / (double)(b - a) : 0;
    }
}

FGLDEF int fgl_graph_set_mean_features(const fgl_graph_set *s, double *out, fgl_error *err) {
    int g, i, j, na = s->node_attr ? s->n_node_attr : 0;
    if (!s->x || s->n_feat < 1) return fgl_error_set(err, FGL_ERR_ARG, "%s: no node features to average", s->name);
    for (g = 0; g < s->n_graphs; g++) {
        int a = s->node_ptr[g], b = s->node_ptr[g + 1];
        double sum = 0;
        for (i = a; i < b; i++) {
            for (j = 0; j < na; j++) sum += s->node_attr[(size_t)i * na + j];
            for (j = 0; j < s->n_feat; j++) sum += s->x[(size_t)i * s->n_feat + j];
        }
        out[g] = b > a ? sum / ((double)(b - a) * (double)(na + s->n_feat)) : 0;
    }
    return FGL_OK;
}
/* --- src/graph/anchors.h --- */
/* --- anchored distance completion (pFedGNN) ------------------------------- */
/* Helpers of this section are fgl__anc_*. */

static int fgl__anc_has_features(const fgl_node_data *d) {
    return (d->x.data && d->x.cols == d->n_feat && d->x.rows == d->n_nodes) ||
           (d->x_sparse.indptr && d->x_sparse.rows == d->n_nodes);
}

FGLDEF int fgl_anchor_sqdist(const fgl_node_data *d, const float *anchors, int K, float *out, fgl_error *err) {
    int n, F, i, k;
    double *asq;
    if (!d || !anchors || !out || K <= 0) return fgl_error_set(err, FGL_ERR_ARG, "anchor distances: %d anchors", K);
    if (!fgl__anc_has_features(d)) return fgl_error_set(err, FGL_ERR_ARG, "%s: no node features", d->name);
    n = d->n_nodes;
    F = d->n_feat;
    if (d->x.data) { /* dense: sums of squared differences */
        for (i = 0; i < n; i++) {
            const float *x = d->x.data + (size_t)i * (size_t)F;
            for (k = 0; k < K; k++) {
                const float *a = anchors + (size_t)k * (size_t)F;
                double acc = 0;
                int f;
                for (f = 0; f < F; f++) {
                    double t = (double)x[f] - a[f];
                    acc += t * t;
                }
                out[(size_t)i * K + k] = (float)acc;
            }
        }
        return FGL_OK;
    }
    asq = (double *)FGL_MALLOC(sizeof(double) * (size_t)K);
    if (!asq) return fgl_error_set(err, FGL_ERR_NOMEM, "anchor distances: out of memory");
    for (k = 0; k < K; k++) {
        const float *a = anchors + (size_t)k * (size_t)F;
        double acc = 0;
        int f;
        for (f = 0; f < F; f++) acc += (double)a[f] * a[f];
        asq[k] = acc;
    }
    for (i = 0; i < n; i++) { /* sparse: ||x||^2 + ||a||^2 - 2 x.a over the row's non-zeros */
        const fgl_csr *xs = &d->x_sparse;
        double xsq = 0;
        int p;
        for (p = xs->indptr[i]; p < xs->indptr[i + 1]; p++) {
            double v = xs->values ? xs->values[p] : 1.0;
            xsq += v * v;
        }
        for (k = 0; k < K; k++) {
            const float *a = anchors + (size_t)k * (size_t)F;
            double dot = 0, v;
            for (p = xs->indptr[i]; p < xs->indptr[i + 1]; p++)
                dot += (xs->values ? xs->values[p] : 1.0) * a[xs->indices[p]];
            v = xsq + asq[k] - 2 * dot;
            out[(size_t)i * K + k] = (float)(v > 0 ? v : 0);
        }
    }
    FGL_FREE(asq);
    return FGL_OK;
}

FGLDEF int fgl_node_sqdist_block(const fgl_node_data *d, float *out, fgl_error *err) {
    int n, F, i, j;
    if (!d || !out) return fgl_error_set(err, FGL_ERR_ARG, "distance block: no data");
    if (!fgl__anc_has_features(d)) return fgl_error_set(err, FGL_ERR_ARG, "%s: no node features", d->name);
    n = d->n_nodes;
    F = d->n_feat;
    for (i = 0; i < n; i++) out[(size_t)i * n + i] = 0;
    if (d->x.data) {
        for (i = 0; i < n; i++)
            for (j = i + 1; j < n; j++) {
                const float *x = d->x.data + (size_t)i * F, *y = d->x.data + (size_t)j * F;
                double acc = 0;
                int f;
                for (f = 0; f < F; f++) {
                    double t = (double)x[f] - y[f];
                    acc += t * t;
                }
                out[(size_t)i * n + j] = out[(size_t)j * n + i] = (float)acc;
            }
    } else {
        const fgl_csr *xs = &d->x_sparse;
        double *row = (double *)FGL_MALLOC(sizeof(double) * (size_t)(F > 0 ? F : 1));
        double *sq = (double *)FGL_MALLOC(sizeof(double) * (size_t)(n > 0 ? n : 1));
        int p;
        if (!row || !sq) {
            FGL_FREE(row);
            FGL_FREE(sq);
            return fgl_error_set(err, FGL_ERR_NOMEM, "distance block: out of memory");
        }
        for (i = 0; i < F; i++) row[i] = 0;
        for (i = 0; i < n; i++) {
            sq[i] = 0;
            for (p = xs->indptr[i]; p < xs->indptr[i + 1]; p++) {
                double v = xs->values ? xs->values[p] : 1.0;
                sq[i] += v * v;
            }
        }
        for (i = 0; i < n; i++) {
            for (p = xs->indptr[i]; p < xs->indptr[i + 1]; p++) row[xs->indices[p]] = xs->values ? xs->values[p] : 1.0;
            for (j = i + 1; j < n; j++) {
                double dot = 0, v;
                for (p = xs->indptr[j]; p < xs->indptr[j + 1]; p++)
                    dot += (xs->values ? xs->values[p] : 1.0) * row[xs->indices[p]];
                v = sq[i] + sq[j] - 2 * dot;
                out[(size_t)i * n + j] = out[(size_t)j * n + i] = (float)(v > 0 ? v : 0);
            }
            for (p = xs->indptr[i]; p < xs->indptr[i + 1]; p++) row[xs->indices[p]] = 0;
        }
        FGL_FREE(row);
        FGL_FREE(sq);
    }
    return FGL_OK;
}

/* Eigen-decomposition of the symmetric n x n matrix a (destroyed) by cyclic
 * Jacobi rotations: w the eigenvalues, v (n x n) the eigenvectors as columns. */
static void fgl__anc_jacobi(double *a, int n, double *v, double *w) {
    int sweep, p, q, k;
    for (p = 0; p < n; p++)
        for (q = 0; q < n; q++) v[(size_t)p * n + q] = p == q;
    for (sweep = 0; sweep < 100; sweep++) {
        double off = 0, tot = 0;
        for (p = 0; p < n; p++)
            for (q = 0; q < n; q++) {
                double x = a[(size_t)p * n + q] * a[(size_t)p * n + q];
                tot += x;
                if (p != q) off += x;
            }
        if (off <= 1e-30 * tot || off == 0) break;
        for (p = 0; p < n - 1; p++)
            for (q = p + 1; q < n; q++) {
                double apq = a[(size_t)p * n + q], theta, t, c, s;
                if (apq == 0) continue;
                theta = (a[(size_t)q * n + q] - a[(size_t)p * n + p]) / (2 * apq);
                t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
                c = 1 / sqrt(t * t + 1);
                s = t * c;
                for (k = 0; k < n; k++) { /* columns p, q */
                    double x = a[(size_t)k * n + p], y = a[(size_t)k * n + q];
                    a[(size_t)k * n + p] = c * x - s * y;
                    a[(size_t)k * n + q] = s * x + c * y;
                }
                for (k = 0; k < n; k++) { /* rows p, q */
                    double x = a[(size_t)p * n + k], y = a[(size_t)q * n + k];
                    a[(size_t)p * n + k] = c * x - s * y;
                    a[(size_t)q * n + k] = s * x + c * y;
                }
                for (k = 0; k < n; k++) {
                    double x = v[(size_t)k * n + p], y = v[(size_t)k * n + q];
                    v[(size_t)k * n + p] = c * x - s * y;
                    v[(size_t)k * n + q] = s * x + c * y;
                }
            }
    }
    for (p = 0; p < n; p++) w[p] = a[(size_t)p * n + p];
}

FGLDEF void fgl_anchor_frame_free(fgl_anchor_frame *f) {
    if (!f) return;
    FGL_FREE(f->coord);
    FGL_FREE(f->proj);
    FGL_FREE(f->mu);
    FGL_FREE(f->eig);
    memset(f, 0, sizeof *f);
}

FGLDEF int fgl_anchor_frame_init(fgl_anchor_frame *f, const double *d2, int K, int max_dim, fgl_error *err) {
    double *b, *v, *w, grand = 0, top;
    int *order, i, j, r;
    memset(f, 0, sizeof *f);
    if (K < 2 || !d2) return fgl_error_set(err, FGL_ERR_ARG, "anchor frame: %d anchors (at least 2)", K);
    for (i = 0; i < K * K; i++)
        if (!(d2[i] >= 0 && d2[i] < 1e300))
            return fgl_error_set(err, FGL_ERR_NONFINITE, "anchor frame: distance %d is %g", i, d2[i]);
    b = (double *)FGL_MALLOC(sizeof(double) * (size_t)K * K);
    v = (double *)FGL_MALLOC(sizeof(double) * (size_t)K * K);
    w = (double *)FGL_MALLOC(sizeof(double) * (size_t)K);
    order = (int *)FGL_MALLOC(sizeof(int) * (size_t)K);
    f->mu = (double *)FGL_MALLOC(sizeof(double) * (size_t)K);
    if (!b || !v || !w || !order || !f->mu) {
        FGL_FREE(b);
        FGL_FREE(v);
        FGL_FREE(w);
        FGL_FREE(order);
        fgl_anchor_frame_free(f);
        return fgl_error_set(err, FGL_ERR_NOMEM, "anchor frame: out of memory");
    }
    for (i = 0; i < K; i++) {
        double s = 0;
        for (j = 0; j < K; j++) s += 0.5 * (d2[(size_t)i * K + j] + d2[(size_t)j * K + i]);
        f->mu[i] = s / K;
        grand += f->mu[i] / K;
    }
    for (i = 0; i < K; i++) /* B = -1/2 H D2 H */
        for (j = 0; j < K; j++)
            b[(size_t)i * K + j] =
                -0.5 * (0.5 * (d2[(size_t)i * K + j] + d2[(size_t)j * K + i]) - f->mu[i] - f->mu[j] + grand);
    fgl__anc_jacobi(b, K, v, w);
    for (i = 0; i < K; i++) order[i] = i;
    for (i = 1; i < K; i++) { /* descending eigenvalues (ties: lower index first) */
        int x = order[i];
        j = i;
        while (j > 0 && w[order[j - 1]] < w[x]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = x;
    }
    top = w[order[0]];
    for (r = 0; r < K - 1 && w[order[r]] > 1e-9 * top && top > 0; r++) {}
    if (max_dim > 0 && r > max_dim) r = max_dim;
    if (r == 0) {
        FGL_FREE(b);
        FGL_FREE(v);
        FGL_FREE(w);
        FGL_FREE(order);
        fgl_anchor_frame_free(f);
        return fgl_error_set(err, FGL_ERR_ARG, "anchor frame: the %d anchors coincide", K);
    }
    f->K = K;
    f->r = r;
    f->coord = (double *)FGL_MALLOC(sizeof(double) * (size_t)K * r);
    f->proj = (double *)FGL_MALLOC(sizeof(double) * (size_t)K * r);
    f->eig = (double *)FGL_MALLOC(sizeof(double) * (size_t)r);
    if (f->coord && f->proj && f->eig)
        for (j = 0; j < r; j++) {
            double lam = w[order[j]], sl = sqrt(lam);
            f->eig[j] = lam;
            for (i = 0; i < K; i++) {
                double vij = v[(size_t)i * K + order[j]];
                f->coord[(size_t)i * r + j] = vij * sl;
                f->proj[(size_t)j * K + i] = -0.5 * vij / sl;
            }
        }
    FGL_FREE(b);
    FGL_FREE(v);
    FGL_FREE(w);
    FGL_FREE(order);
    if (!f->coord || !f->proj || !f->eig) {
        fgl_anchor_frame_free(f);
        return fgl_error_set(err, FGL_ERR_NOMEM, "anchor frame: out of memory");
    }
    return FGL_OK;
}

FGLDEF void fgl_anchor_embed(const fgl_anchor_frame *f, const float *dist2, int n, float *z) {
    int i, k, t, K = f->K, r = f->r;
    for (i = 0; i < n; i++) {
        const float *dl = dist2 + (size_t)i * K;
        for (t = 0; t < r; t++) {
            const double *p = f->proj + (size_t)t * K;
            double acc = 0;
            for (k = 0; k < K; k++) acc += p[k] * ((double)dl[k] - f->mu[k]);
            z[(size_t)i * r + t] = (float)acc;
        }
    }
}

/* One point's part of a Guttman transform with the anchors: its stress
 * against the anchors and acc = sum_k a_k + delta_k (x - a_k) / d_k, from
 * the dot products x.a_k (d_k^2 = x.x + a_k.a_k - 2 x.a_k). */
static double fgl__anc_point(const fgl_anchor_frame *f, const double *coord_t, const double *asq, const float *dist2,
                             const double *x, double *acc, double *dots) {
    int K = f->K, r = f->r, k, t;
    double xx = 0, st = 0, gsum = 0;
    for (t = 0; t < r; t++) {
        xx += x[t] * x[t];
        acc[t] = 0;
    }
    for (k = 0; k < K; k++) dots[k] = 0;
    for (t = 0; t < r; t++) { /* dots = A x, by columns of A (coord_t is r x K): no reduction in the inner loop */
        const double *at = coord_t + (size_t)t * K, xt = x[t];
        for (k = 0; k < K; k++) dots[k] += xt * at[k];
    }
    for (k = 0; k < K; k++) {
        const double *a = f->coord + (size_t)k * r;
        double dd = xx + asq[k] - 2 * dots[k], delta = dist2[k] > 0 ? sqrt((double)dist2[k]) : 0, g, c;
        dd = dd > 0 ? sqrt(dd) : 0;
        st += (dd - delta) * (dd - delta);
        g = dd > 0 ? delta / dd : 0;
        gsum += g;
        c = 1 - g; /* a_k + g (x - a_k) = (1 - g) a_k + g x */
        for (t = 0; t < r; t++) acc[t] += c * a[t];
    }
    for (t = 0; t < r; t++) acc[t] += gsum * x[t];
    return st;
}

FGLDEF int fgl_anchor_smacof(const fgl_anchor_frame *f, const float *dist2, const float *block, int n, int max_iter,
                             double tol, float *z, double *stress0, double *stress, fgl_error *err) {
    int K = f->K, r = f->r, i, j, k, t, it;
    double *x, *acc, *diff, *sum, *asq, *dots, *pst, *coord_t, prev = 0, cur = 0;
    size_t nn = (size_t)(n > 0 ? n : 1);
    if (n < 0 || max_iter < 0 || !(tol >= 0))
        return fgl_error_set(err, FGL_ERR_ARG, "smacof: n %d, %d iterations, tol %g", n, max_iter, tol);
    x = (double *)FGL_MALLOC(sizeof(double) * nn * r);
    acc = (double *)FGL_MALLOC(sizeof(double) * nn * r);
    dots = (double *)FGL_MALLOC(sizeof(double) * nn * K);
    pst = (double *)FGL_MALLOC(sizeof(double) * nn);
    diff = (double *)FGL_MALLOC(sizeof(double) * (size_t)r);
    sum = (double *)FGL_MALLOC(sizeof(double) * (size_t)r);
    asq = (double *)FGL_MALLOC(sizeof(double) * (size_t)K);
    coord_t = (double *)FGL_MALLOC(sizeof(double) * (size_t)K * r);
    if (!x || !acc || !dots || !pst || !diff || !sum || !asq || !coord_t) {
        FGL_FREE(coord_t);
        FGL_FREE(x);
        FGL_FREE(acc);
        FGL_FREE(dots);
        FGL_FREE(pst);
        FGL_FREE(diff);
        FGL_FREE(sum);
        FGL_FREE(asq);
        return fgl_error_set(err, FGL_ERR_NOMEM, "smacof: out of memory for %d points", n);
    }
    for (k = 0; k < K; k++) {
        double a2 = 0;
        for (t = 0; t < r; t++) {
            a2 += f->coord[(size_t)k * r + t] * f->coord[(size_t)k * r + t];
            coord_t[(size_t)t * K + k] = f->coord[(size_t)k * r + t];
        }
        asq[k] = a2;
    }
    for (i = 0; i < n * r; i++) x[i] = z[i];
    for (it = 0;; it++) {
        /* the stress at x and the Guttman right-hand side B(x) x (with the fixed anchors); points are
         * independent here, their stresses summed in order afterwards */
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(fgl__threads((double)n, FGL_PER_THREAD_POINT))
#endif
        for (i = 0; i < n; i++)
            pst[i] = fgl__anc_point(f, coord_t, asq, dist2 + (size_t)i * K, x + (size_t)i * r, acc + (size_t)i * r,
                                    dots + (size_t)i * K);
        cur = 0;
        for (i = 0; i < n; i++) cur += pst[i];
        if (block)
            for (i = 0; i < n; i++)
                for (j = i + 1; j < n; j++) {
                    double *xi = x + (size_t)i * r, *xj = x + (size_t)j * r, dd = 0, g, b = block[(size_t)i * n + j];
                    double delta = b > 0 ? sqrt(b) : 0;
                    for (t = 0; t < r; t++) {
                        diff[t] = xi[t] - xj[t];
                        dd += diff[t] * diff[t];
                    }
                    dd = sqrt(dd);
                    cur += (dd - delta) * (dd - delta);
                    g = dd > 0 ? delta / dd : 0;
                    for (t = 0; t < r; t++) {
                        acc[(size_t)i * r + t] += g * diff[t];
                        acc[(size_t)j * r + t] -= g * diff[t];
                    }
                }
        if (it == 0 && stress0) *stress0 = cur;
        if (it == max_iter || cur <= 0 || (it > 0 && prev - cur <= tol * prev)) break;
        prev = cur;
        if (!block) {
            for (i = 0; i < n * r; i++) x[i] = acc[i] / K;
        } else { /* V = (K + n) I - 1 1^T on the client's points: x = (acc + 1 (1^T acc) / K) / (K + n) */
            for (t = 0; t < r; t++) sum[t] = 0;
            for (i = 0; i < n; i++)
                for (t = 0; t < r; t++) sum[t] += acc[(size_t)i * r + t];
            for (i = 0; i < n; i++)
                for (t = 0; t < r; t++) x[(size_t)i * r + t] = (acc[(size_t)i * r + t] + sum[t] / K) / (K + n);
        }
    }
    for (i = 0; i < n * r; i++) z[i] = (float)x[i];
    if (stress) *stress = cur;
    FGL_FREE(x);
    FGL_FREE(acc);
    FGL_FREE(dots);
    FGL_FREE(pst);
    FGL_FREE(diff);
    FGL_FREE(sum);
    FGL_FREE(asq);
    FGL_FREE(coord_t);
    return it;
}
/* --- src/graph/coarsen.h --- */
/* --- client coarsening (pFedGNN) ------------------------------------------ */
/* Helpers of this section are fgl__anc_* (as in src/graph/anchors.h). */

FGLDEF fgl_coarsen_config fgl_coarsen_default(void) {
    fgl_coarsen_config c;
    memset(&c, 0, sizeof c);
    c.kernel = FGL_KERNEL_MAXDIFF;
    c.sigma = 1.0;
    c.sample = 0;
    c.seed = 1;
    return c;
}

/* The columns the pair sums run over: every point, or s per client. */
typedef struct fgl__anc_cols {
    int n;
    int *row;        /* the point each column is */
    int *owner;      /* its client */
    double *weight;  /* how many points it stands for */
    float *z;        /* n x r copy of the points */
    double *q;       /* squared norms */
} fgl__anc_cols;

static void fgl__anc_cols_free(fgl__anc_cols *c) {
    FGL_FREE(c->row);
    FGL_FREE(c->owner);
    FGL_FREE(c->weight);
    FGL_FREE(c->z);
    FGL_FREE(c->q);
    memset(c, 0, sizeof *c);
}

static int fgl__anc_cols_make(fgl__anc_cols *c, const float *z, int r, const int *ptr, int K, int sample,
                              uint64_t seed) {
    int b, i, n = 0;
    fgl_rng rng;
    memset(c, 0, sizeof *c);
    for (b = 0; b < K; b++) {
        int nb = ptr[b + 1] - ptr[b];
        n += sample > 0 && nb > sample ? sample : nb;
    }
    c->row = (int *)FGL_MALLOC(sizeof(int) * (size_t)(n > 0 ? n : 1));
    c->owner = (int *)FGL_MALLOC(sizeof(int) * (size_t)(n > 0 ? n : 1));
    c->weight = (double *)FGL_MALLOC(sizeof(double) * (size_t)(n > 0 ? n : 1));
    c->z = (float *)FGL_MALLOC(sizeof(float) * (size_t)(n > 0 ? n : 1) * (size_t)r);
    c->q = (double *)FGL_MALLOC(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!c->row || !c->owner || !c->weight || !c->z || !c->q) {
        fgl__anc_cols_free(c);
        return FGL_ERR_NOMEM;
    }
    fgl_rng_init(&rng, seed, 0x434f4c53ull); /* "COLS" */
    for (b = 0; b < K; b++) {
        int nb = ptr[b + 1] - ptr[b], sb = sample > 0 && nb > sample ? sample : nb, k0 = c->n;
        if (sb < nb) {
            if (fgl_rng_sample(&rng, nb, sb, c->row + k0)) {
                fgl__anc_cols_free(c);
                return FGL_ERR_NOMEM;
            }
            for (i = 1; i < sb; i++) { /* ascending */
                int x = c->row[k0 + i], j = i;
                while (j > 0 && c->row[k0 + j - 1] > x) {
                    c->row[k0 + j] = c->row[k0 + j - 1];
                    j--;
                }
                c->row[k0 + j] = x;
            }
            for (i = 0; i < sb; i++) c->row[k0 + i] += ptr[b];
        } else {
            for (i = 0; i < sb; i++) c->row[k0 + i] = ptr[b] + i;
        }
        for (i = 0; i < sb; i++) {
            int t, row = c->row[k0 + i];
            double s = 0;
            c->owner[k0 + i] = b;
            c->weight[k0 + i] = (double)nb / sb;
            for (t = 0; t < r; t++) {
                float v = z[(size_t)row * r + t];
                c->z[(size_t)(k0 + i) * r + t] = v;
                s += (double)v * v;
            }
            c->q[k0 + i] = s;
        }
        c->n += sb;
    }
    return FGL_OK;
}

/* Squared distances of rows i0 .. i0 + m - 1 to every column into e (m x cols). */
static void fgl__anc_tile(const float *z, int r, int i0, int m, const fgl__anc_cols *c, const double *q, float *e) {
    int i, j;
    fgl_gemm(0, 1, m, c->n, r, 1.0f, z + (size_t)i0 * r, r, c->z, r, 0.0f, e, c->n);
    for (i = 0; i < m; i++) {
        float *row = e + (size_t)i * c->n;
        for (j = 0; j < c->n; j++) {
            double v = q[i0 + i] + c->q[j] - 2.0 * row[j];
            row[j] = c->row[j] == i0 + i ? 0.0f : (float)(v > 0 ? v : 0);
        }
    }
}

FGLDEF int fgl_coarsen_clients(const float *z, int r, const int *ptr, int K, const fgl_coarsen_config *cfg_in,
                               double *lc, fgl_error *err) {
    fgl_coarsen_config cfg = cfg_in ? *cfg_in : fgl_coarsen_default();
    fgl__anc_cols cols;
    double *q = NULL, *m = NULL, *den = NULL, *acc = NULL, *cu = NULL, *cv = NULL, total = 0;
    float *e = NULL;
    int N, a, b, i, j, tile, rc = FGL_OK, *owner = NULL;
    if (K < 1 || !ptr || !lc || r < 1 || ptr[0] != 0)
        return fgl_error_set(err, FGL_ERR_ARG, "coarsen: %d clients, dimension %d", K, r);
    for (a = 0; a < K; a++)
        if (ptr[a + 1] < ptr[a]) return fgl_error_set(err, FGL_ERR_ARG, "coarsen: client %d has a negative size", a);
    if (cfg.kernel != FGL_KERNEL_MAXDIFF && cfg.kernel != FGL_KERNEL_GAUSS)
        return fgl_error_set(err, FGL_ERR_ARG, "coarsen: unknown kernel %d", cfg.kernel);
    if (cfg.kernel == FGL_KERNEL_GAUSS && !(cfg.sigma > 0))
        return fgl_error_set(err, FGL_ERR_ARG, "coarsen: sigma %g must be > 0", cfg.sigma);
    N = ptr[K];
    memset(lc, 0, sizeof(double) * (size_t)K * K);
    if (N == 0) return FGL_OK;
    if (!z) return fgl_error_set(err, FGL_ERR_ARG, "coarsen: no points");
    if (fgl__anc_cols_make(&cols, z, r, ptr, K, cfg.sample, cfg.seed))
        return fgl_error_set(err, FGL_ERR_NOMEM, "coarsen: out of memory");
    tile = (int)(4000000 / (cols.n > 0 ? cols.n : 1)); /* about 16 MB of distances at a time */
    tile = tile < 1 ? 1 : tile > 256 ? 256 : tile;
    q = (double *)FGL_MALLOC(sizeof(double) * (size_t)N);
    m = (double *)FGL_MALLOC(sizeof(double) * (size_t)N);
    den = (double *)FGL_MALLOC(sizeof(double) * (size_t)N);
    owner = (int *)FGL_MALLOC(sizeof(int) * (size_t)N);
    acc = (double *)FGL_MALLOC(sizeof(double) * (size_t)K);
    e = (float *)FGL_MALLOC(sizeof(float) * (size_t)tile * (size_t)(cols.n > 0 ? cols.n : 1));
    if (!q || !m || !den || !owner || !acc || !e) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "coarsen: out of memory for %d points", N);
        goto done;
    }
    for (a = 0; a < K; a++)
        for (i = ptr[a]; i < ptr[a + 1]; i++) owner[i] = a;
    for (i = 0; i < N; i++) {
        double s = 0;
        int t;
        for (t = 0; t < r; t++) s += (double)z[(size_t)i * r + t] * z[(size_t)i * r + t];
        q[i] = s;
    }
    for (j = 0; j < cols.n; j++) total += cols.weight[j];
    if (cfg.kernel == FGL_KERNEL_GAUSS) {
        double sq = 0, s2, *zs = (double *)FGL_MALLOC(sizeof(double) * (size_t)r);
        int t;
        if (!zs) {
            rc = fgl_error_set(err, FGL_ERR_NOMEM, "coarsen: out of memory");
            goto done;
        }
        for (t = 0; t < r; t++) zs[t] = 0;
        for (i = 0; i < N; i++) {
            sq += q[i];
            for (t = 0; t < r; t++) zs[t] += z[(size_t)i * r + t];
        }
        s2 = 0;
        for (t = 0; t < r; t++) s2 += zs[t] * zs[t];
        FGL_FREE(zs);
        /* mean over pairs i != j of ||z_i - z_j||^2 = (2 N sum q - 2 ||sum z||^2) / (N (N - 1)) */
        s2 = N > 1 ? (2.0 * N * sq - 2.0 * s2) / ((double)N * (N - 1)) : 1.0;
        s2 = cfg.sigma * (s2 > 0 ? s2 : 1.0);
        for (i = 0; i < N; i += tile) {
            int mrows = N - i < tile ? N - i : tile, ii;
            fgl__anc_tile(z, r, i, mrows, &cols, q, e);
            for (ii = 0; ii < mrows; ii++) {
                const float *row = e + (size_t)ii * cols.n;
                for (b = 0; b < K; b++) acc[b] = 0;
                for (j = 0; j < cols.n; j++)
                    if (cols.row[j] != i + ii) acc[cols.owner[j]] += cols.weight[j] * exp(-row[j] / s2);
                for (b = 0; b < K; b++) lc[(size_t)owner[i + ii] * K + b] += acc[b];
            }
        }
        for (a = 0; a < K; a++) { /* L_C = P (Diag(W 1) - W) P^T from the pair sums T = P W P^T */
            double deg = 0;
            for (b = 0; b < K; b++)
                if (b != a) deg += lc[(size_t)a * K + b];
            for (b = 0; b < K; b++) lc[(size_t)a * K + b] = b == a ? deg : -lc[(size_t)a * K + b];
        }
        goto done;
    }
    /* MAXDIFF, pass 1: each point's largest distance and its kernel row's normaliser */
    for (i = 0; i < N; i += tile) {
        int mrows = N - i < tile ? N - i : tile, ii;
        fgl__anc_tile(z, r, i, mrows, &cols, q, e);
        for (ii = 0; ii < mrows; ii++) {
            const float *row = e + (size_t)ii * cols.n;
            double mx = 0, s = 0;
            for (j = 0; j < cols.n; j++) {
                double dj = sqrt((double)row[j]);
                mx = dj > mx ? dj : mx;
                s += cols.weight[j] * dj;
            }
            m[i + ii] = mx;
            den[i + ii] = total * mx - s; /* 0: every distance equal, a uniform row */
        }
    }
    /* pass 2: A_ij = (m_i - D_ij) / den_i = u_i - D_ij v_i (v_i = 0, u_i = 1/N for a uniform row),
     * symmetrised, rows normalised, summed per client pair; the columns' u, v gathered once */
    for (i = 0; i < N; i++) {
        double v = den[i] > 0 ? 1.0 / den[i] : 0.0;
        m[i] = den[i] > 0 ? m[i] * v : 1.0 / total;
        den[i] = v;
    }
    cu = (double *)FGL_MALLOC(sizeof(double) * (size_t)(cols.n > 0 ? cols.n : 1));
    cv = (double *)FGL_MALLOC(sizeof(double) * (size_t)(cols.n > 0 ? cols.n : 1));
    if (!cu || !cv) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "coarsen: out of memory");
        goto done;
    }
    for (j = 0; j < cols.n; j++) {
        cu[j] = m[cols.row[j]];
        cv[j] = den[cols.row[j]];
    }
    for (i = 0; i < N; i += tile) {
        int mrows = N - i < tile ? N - i : tile, ii;
        fgl__anc_tile(z, r, i, mrows, &cols, q, e);
        for (ii = 0; ii < mrows; ii++) {
            const float *row = e + (size_t)ii * cols.n;
            int p = i + ii;
            double rowsum = 0, colsum = 0, rs, up = m[p], vp = den[p];
            for (b = 0; b < K; b++) acc[b] = 0;
            for (j = 0; j < cols.n; j++) {
                double dj = sqrt((double)row[j]), wj = cols.weight[j];
                double aij = up - dj * vp, aji = cu[j] - dj * cv[j];
                rowsum += wj * aij;
                colsum += wj * aji;
                acc[cols.owner[j]] += wj * 0.5 * (aij + aji);
            }
            rs = 0.5 * (rowsum + colsum);
            if (rs > 0)
                for (b = 0; b < K; b++) lc[(size_t)owner[p] * K + b] += acc[b] / rs;
        }
    }
    for (a = 0; a < K; a++) /* L_C = P (I - D^-1 A) P^T */
        for (b = 0; b < K; b++)
            lc[(size_t)a * K + b] = (a == b ? (double)(ptr[a + 1] - ptr[a]) : 0.0) - lc[(size_t)a * K + b];
done:
    fgl__anc_cols_free(&cols);
    FGL_FREE(cu);
    FGL_FREE(cv);
    FGL_FREE(q);
    FGL_FREE(m);
    FGL_FREE(den);
    FGL_FREE(owner);
    FGL_FREE(acc);
    FGL_FREE(e);
    return rc;
}

FGLDEF void fgl_collab_weights(const double *lc, int K, double *w) {
    int i, j;
    for (i = 0; i < K; i++) {
        double s = 0;
        for (j = 0; j < K; j++)
            if (j != i && -lc[(size_t)i * K + j] > 0) s += -lc[(size_t)i * K + j];
        for (j = 0; j < K; j++) {
            double v = j != i && -lc[(size_t)i * K + j] > 0 ? -lc[(size_t)i * K + j] : 0.0;
            w[(size_t)i * K + j] = s > 0 ? v / s : 0.0;
        }
    }
}
#ifdef __cplusplus
}
#endif
#endif /* FGL_IMPLEMENTATION */

