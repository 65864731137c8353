#include "../alone.h" /* (this file alone: src/alone.h) */
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

/* fgl:implementation */
#include "../alone.h"
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
#include "../alone.h"
