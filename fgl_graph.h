/* fgl_graph.h - graphs, datasets, loaders, generators, properties,
 *               partitions and federated splits.
 *
 * Part of fgl (see README.md). Builds on fgl.h (its fgl_csr, fgl_rng and
 * fgl_error); no other dependency.
 *
 * USAGE
 *   #define FGL_IMPLEMENTATION in exactly one file before including.
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

#ifdef __cplusplus
}
#endif
#endif /* FGL_GRAPH_H */

#if defined(FGL_IMPLEMENTATION) && !defined(FGL_GRAPH_H_IMPLEMENTED)
#define FGL_GRAPH_H_IMPLEMENTED

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif /* FGL_IMPLEMENTATION */
