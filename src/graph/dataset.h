#include "../alone.h" /* (this file alone: src/alone.h) */
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

/* fgl:private */
#include "../alone.h"
/* A batch, or its A + I (fgl_gnn.h), is built on a thread per
 * FGL_PER_THREAD_ENTRIES entries (nodes + edges): fgl.h's table. */
#define fgl__threads_entries(n) fgl__threads((double)(n), (double)FGL_PER_THREAD_ENTRIES)
/* fgl:implementation */
#include "../alone.h"
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
#include "../alone.h"
