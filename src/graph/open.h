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

/* fgl:private */
#if (defined(FGL_IMPLEMENTATION) || defined(FGL_TEST_PRIVATE)) && !defined(FGL_GRAPH_H_PRIVATE)
#define FGL_GRAPH_H_PRIVATE /* private declarations: see fgl.h's */
#ifdef __cplusplus
extern "C" {
#endif

/* fgl:implementation */
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

