/* Tests of fgl_graph.h's homophily measures (src/graph/homophily.h): edge,
 * node, adjusted (Platonov et al. 2023), class-insensitive (Lim et al. 2021)
 * homophily and label informativeness, against counts done by hand on small
 * graphs; the undefined cases (no edges, one class, no labels); unlabelled
 * nodes; every part of a partition against its induced subgraph; and a
 * random labelling, where the adjusted measures must be near 0. */
#include "../fgl_graph.h"
#include "ft.h"

/* m undirected edges e[2k] - e[2k+1] on n nodes, symmetric. */
static int build(int n, int m, const int *e, fgl_csr *out) {
    int *u = (int *)malloc(sizeof(int) * (size_t)(m + 1)), *v = (int *)malloc(sizeof(int) * (size_t)(m + 1)), i, rc;
    for (i = 0; i < m; i++) {
        u[i] = e[2 * i];
        v[i] = e[2 * i + 1];
    }
    rc = fgl_graph_from_edges(n, u, v, m, FGL_EDGES_SYMMETRIZE, out, NULL);
    free(u);
    free(v);
    return rc;
}

/* The label informativeness of a symmetric table of directed-edge counts
 * cnt[a * C + b], computed the other way round from the library (mutual
 * information sum p ln(p / (p_a p_b)) over the entropy of the marginal),
 * so that a slip in either form shows. */
static double li_from_counts(const double *cnt, int C) {
    double T = 0, mi = 0, h = 0, marg[8] = {0};
    int a, b;
    for (a = 0; a < C; a++)
        for (b = 0; b < C; b++) {
            T += cnt[a * C + b];
            marg[a] += cnt[a * C + b];
        }
    for (a = 0; a < C; a++) {
        marg[a] /= T;
        if (marg[a] > 0) h -= marg[a] * log(marg[a]);
    }
    for (a = 0; a < C; a++)
        for (b = 0; b < C; b++) {
            double p = cnt[a * C + b] / T;
            if (p > 0) mi += p * log(p / (marg[a] * marg[b]));
        }
    return mi / h;
}

static fgl_homophily measure(const fgl_csr *a, const int *y) {
    fgl_homophily h;
    int rc = fgl_graph_homophily(a, y, &h, NULL);
    FT_CHECK(rc == FGL_OK, "fgl_graph_homophily: %d", rc);
    return h;
}

/* Path 0-1-2-3, labels 0 0 1 1. Same-label edges 0-1 and 2-3 of 3: h_edge
 * 2/3; per node 1, 1/2, 1/2, 1: h_node 3/4. D_0 = 1 + 2 = D_1: p = (1/2,
 * 1/2), h_adj = (2/3 - 1/2) / (1/2) = 1/3. Lim: class 0's endpoints (node 0:
 * 1 same of 1, node 1: 1 of 2) give h_0 = 2/3, minus its node share 1/2;
 * class 1 alike: (1/6 + 1/6) / (2 - 1) = 1/3. Directed counts (0,0) 2,
 * (1,1) 2, (0,1) 1, (1,0) 1. */
static void test_path(void) {
    int e[6] = {0, 1, 1, 2, 2, 3}, y[4] = {0, 0, 1, 1};
    double cnt[4] = {2, 1, 1, 2};
    fgl_csr a;
    fgl_homophily h;
    build(4, 3, e, &a);
    h = measure(&a, y);
    FT_NEAR(h.edge, 2.0 / 3, 1e-12, "edge homophily");
    FT_NEAR(h.node, 0.75, 1e-12, "node homophily");
    FT_NEAR(h.adjusted, 1.0 / 3, 1e-12, "adjusted homophily");
    FT_NEAR(h.class_insensitive, 1.0 / 3, 1e-12, "class-insensitive homophily");
    FT_NEAR(h.label_informativeness, li_from_counts(cnt, 2), 1e-12, "label informativeness");
    /* by hand: MI = 2/3 ln(4/3) + 1/3 ln(2/3), H = ln 2 */
    FT_NEAR(h.label_informativeness, (2.0 / 3 * log(4.0 / 3) + 1.0 / 3 * log(2.0 / 3)) / log(2.0), 1e-12,
            "label informativeness by hand");
    FT_CHECK(h.edges == 3 && h.nodes == 4 && h.classes == 2, "counts %ld %d %d", h.edges, h.nodes, h.classes);
    /* the single-measure functions give the same numbers */
    FT_NEAR(fgl_edge_homophily(&a, y), h.edge, 0, "fgl_edge_homophily");
    FT_NEAR(fgl_node_homophily(&a, y), h.node, 0, "fgl_node_homophily");
    FT_NEAR(fgl_adjusted_homophily(&a, y), h.adjusted, 0, "fgl_adjusted_homophily");
    FT_NEAR(fgl_class_insensitive_homophily(&a, y), h.class_insensitive, 0, "fgl_class_insensitive_homophily");
    FT_NEAR(fgl_label_informativeness(&a, y), h.label_informativeness, 0, "fgl_label_informativeness");
    fgl_csr_free(&a);
}

/* Star: centre 0 (class 0), leaves 1..4 of classes 0 1 1 1. One same-label
 * edge of 4: h_edge 1/4; per node 1/4 (centre), 1, 0, 0, 0: h_node 1/4.
 * D_0 = 4 + 1 = 5, D_1 = 3 (2E = 8): h_adj = (1/4 - 34/64) / (30/64) =
 * -3/5. Lim: h_0 = 2/5 (the centre's 1 same of 4, the leaf's 1 of 1) minus
 * the share 2/5 of class 0 nodes = 0; h_1 = 0 - 3/5 < 0: h_ci = 0.
 * Directed counts (0,0) 2, (0,1) 3, (1,0) 3. */
static void test_star(void) {
    int e[8] = {0, 1, 0, 2, 0, 3, 0, 4}, y[5] = {0, 0, 1, 1, 1};
    double cnt[4] = {2, 3, 3, 0};
    fgl_csr a;
    fgl_homophily h;
    build(5, 4, e, &a);
    h = measure(&a, y);
    FT_NEAR(h.edge, 0.25, 1e-12, "edge homophily");
    FT_NEAR(h.node, 0.25, 1e-12, "node homophily");
    FT_NEAR(h.adjusted, -0.6, 1e-12, "adjusted homophily");
    FT_NEAR(h.class_insensitive, 0.0, 1e-12, "class-insensitive homophily");
    FT_NEAR(h.label_informativeness, li_from_counts(cnt, 2), 1e-12, "label informativeness");
    FT_CHECK(h.label_informativeness > 0.36 && h.label_informativeness < 0.37, "LI %.6f (0.3642 by hand)",
             h.label_informativeness);
    fgl_csr_free(&a);
}

/* The complete bipartite K_{2,3}, one class a side: no edge joins a class,
 * h_edge = h_node = 0; D_0 = D_1 = 6: h_adj = (0 - 1/2) / (1/2) = -1; h_ci 0;
 * a neighbour's label gives the node's exactly: LI = 1 (heterophilous and
 * fully informative, the case LI is for). */
static void test_bipartite(void) {
    int e[12] = {0, 2, 0, 3, 0, 4, 1, 2, 1, 3, 1, 4}, y[5] = {0, 0, 1, 1, 1};
    fgl_csr a;
    fgl_homophily h;
    build(5, 6, e, &a);
    h = measure(&a, y);
    FT_NEAR(h.edge, 0.0, 0, "edge homophily");
    FT_NEAR(h.node, 0.0, 0, "node homophily");
    FT_NEAR(h.adjusted, -1.0, 1e-12, "adjusted homophily");
    FT_NEAR(h.class_insensitive, 0.0, 0, "class-insensitive homophily");
    FT_NEAR(h.label_informativeness, 1.0, 1e-12, "label informativeness");
    fgl_csr_free(&a);
}

/* K_5, every node of class 2: h_edge = h_node = 1; one class, so h_adj and
 * LI are 0/0 and h_ci has C - 1 = 0: NaN, with classes == 1 saying why.
 * Two disjoint triangles of classes 0 and 1: everything is 1 (h_ci: each
 * class 1 - 1/2, summed, over C - 1 = 1). */
static void test_complete_and_one_class(void) {
    int e[20], y[5] = {2, 2, 2, 2, 2}, i, j, m = 0;
    int t[12] = {0, 1, 1, 2, 0, 2, 3, 4, 4, 5, 3, 5}, y2[6] = {0, 0, 0, 1, 1, 1};
    fgl_csr a;
    fgl_homophily h;
    for (i = 0; i < 5; i++)
        for (j = i + 1; j < 5; j++) {
            e[2 * m] = i;
            e[2 * m + 1] = j;
            m++;
        }
    build(5, m, e, &a);
    h = measure(&a, y);
    FT_NEAR(h.edge, 1.0, 0, "edge homophily");
    FT_NEAR(h.node, 1.0, 0, "node homophily");
    FT_CHECK(isnan(h.adjusted) && isnan(h.class_insensitive) && isnan(h.label_informativeness),
             "one class: %g %g %g", h.adjusted, h.class_insensitive, h.label_informativeness);
    FT_CHECK(h.edges == 10 && h.nodes == 5 && h.classes == 1, "counts %ld %d %d", h.edges, h.nodes, h.classes);
    fgl_csr_free(&a);
    build(6, 6, t, &a);
    h = measure(&a, y2);
    FT_NEAR(h.edge, 1.0, 0, "edge homophily");
    FT_NEAR(h.node, 1.0, 0, "node homophily");
    FT_NEAR(h.adjusted, 1.0, 1e-12, "adjusted homophily");
    FT_NEAR(h.class_insensitive, 1.0, 1e-12, "class-insensitive homophily");
    FT_NEAR(h.label_informativeness, 1.0, 1e-12, "label informativeness");
    fgl_csr_free(&a);
}

/* The header's example, a triangle 0-1-2 of class 0 and node 3 (class 1) on
 * node 2, then the same with node 4 unlabelled (-1) joined to 0, 3 and
 * itself (a self loop): node 4 and its edges are left out, so every measure
 * is unchanged. h_edge 3/4; h_node (1 + 1 + 2/3 + 0) / 4 = 2/3; D = (7, 1)
 * of 2E = 8: h_adj = (48/64 - 50/64) / (14/64) = -1/7; h_0 = 6/7 - 3/4 =
 * 3/28, h_1 = 0 - 1/4 < 0: h_ci = 3/28. */
static void test_unlabelled(void) {
    int e[8] = {0, 1, 1, 2, 0, 2, 2, 3}, e5[14] = {0, 1, 1, 2, 0, 2, 2, 3, 4, 0, 4, 3, 4, 4};
    int y[4] = {0, 0, 0, 1}, y5[5] = {0, 0, 0, 1, -1};
    double cnt[4] = {6, 1, 1, 0};
    fgl_csr a, a5;
    fgl_homophily h, h5;
    build(4, 4, e, &a);
    build(5, 7, e5, &a5);
    h = measure(&a, y);
    h5 = measure(&a5, y5);
    FT_NEAR(h.edge, 0.75, 1e-12, "edge homophily");
    FT_NEAR(h.node, 2.0 / 3, 1e-12, "node homophily");
    FT_NEAR(h.adjusted, -1.0 / 7, 1e-12, "adjusted homophily");
    FT_NEAR(h.class_insensitive, 3.0 / 28, 1e-12, "class-insensitive homophily");
    FT_NEAR(h.label_informativeness, li_from_counts(cnt, 2), 1e-12, "label informativeness");
    FT_CHECK(h5.edge == h.edge && h5.node == h.node && h5.adjusted == h.adjusted &&
                 h5.class_insensitive == h.class_insensitive && h5.label_informativeness == h.label_informativeness,
             "the unlabelled node changed a measure");
    FT_CHECK(h5.edges == 4 && h5.nodes == 4 && h5.classes == 2, "counts %ld %d %d", h5.edges, h5.nodes,
             h5.classes);
    FT_NEAR(fgl_edge_homophily(&a5, y5), 0.75, 1e-12, "fgl_edge_homophily with an unlabelled node");
    FT_NEAR(fgl_node_homophily(&a5, y5), 2.0 / 3, 1e-12, "fgl_node_homophily with an unlabelled node");
    fgl_csr_free(&a);
    fgl_csr_free(&a5);
}

/* No edges: nothing to measure, every value NaN (not 0, which would read as
 * perfectly heterophilous), the counts still given. Also a graph of no
 * nodes, one whose labels are all unknown, and one with only a self loop. */
static void test_no_edges(void) {
    int y[5] = {0, 1, 1, -1, 0}, u[5] = {-1, -1, -1, -1, -1}, loop[2] = {2, 2};
    fgl_csr a;
    fgl_homophily h;
    fgl_error err;
    build(5, 0, NULL, &a);
    h = measure(&a, y);
    FT_CHECK(isnan(h.edge) && isnan(h.node) && isnan(h.adjusted) && isnan(h.class_insensitive) &&
                 isnan(h.label_informativeness),
             "no edges: %g %g %g %g %g", h.edge, h.node, h.adjusted, h.class_insensitive, h.label_informativeness);
    FT_CHECK(h.edges == 0 && h.nodes == 4 && h.classes == 2, "counts %ld %d %d", h.edges, h.nodes, h.classes);
    FT_CHECK(isnan(fgl_edge_homophily(&a, y)) && isnan(fgl_node_homophily(&a, y)), "single measures");
    fgl_csr_free(&a);
    build(5, 1, loop, &a);
    h = measure(&a, y);
    FT_CHECK(isnan(h.edge) && h.edges == 0, "a self loop is no edge");
    h = measure(&a, u);
    FT_CHECK(isnan(h.edge) && h.nodes == 0 && h.classes == 0, "no labels");
    fgl_csr_free(&a);
    build(0, 0, NULL, &a);
    h = measure(&a, y);
    FT_CHECK(isnan(h.edge) && h.nodes == 0 && h.edges == 0, "no nodes");
    FT_CHECK(fgl_graph_homophily(&a, NULL, &h, &err) == FGL_ERR_ARG, "no labels accepted");
    FT_CHECK(fgl_partition_homophily(&a, y, y, 0, &h, &err) == FGL_ERR_ARG, "0 parts accepted");
    fgl_csr_free(&a);
}

/* Random graph (G(n, m)) with random labels and a random partition. */
static void random_instance(int n, int m, int C, uint64_t seed, fgl_csr *a, int *y) {
    fgl_rng r;
    int i;
    FT_CHECK(fgl_gen_gnm(n, m, seed, a, NULL) == FGL_OK, "gnm");
    fgl_rng_init(&r, seed, 7);
    for (i = 0; i < n; i++) y[i] = (int)fgl_rng_below(&r, (uint64_t)C);
}

/* Every part of a partition measures as its induced subgraph does; a node
 * with a part outside 0..K-1 is in none; an empty part is all NaN. Labels
 * are skewed by part so that the parts differ. */
static void test_partition(void) {
    enum { N = 400, M = 1600, K = 5 };
    int y[N], part[N], sub_nodes[N], i, p, same = 1;
    fgl_csr a;
    fgl_homophily hp[K + 1], hs;
    fgl_rng r;
    random_instance(N, M, 4, 11, &a, y);
    fgl_rng_init(&r, 12, 0);
    for (i = 0; i < N; i++) {
        part[i] = (int)fgl_rng_below(&r, K); /* part K - 1 stays empty, 7 is in no part */
        if (part[i] == K - 1) part[i] = i % 9 ? 0 : 7;
        if (part[i] == 1 && i % 3) y[i] = 1; /* part 1 homophilous-ish */
        if (i % 17 == 0) y[i] = -1;
    }
    FT_CHECK(fgl_partition_homophily(&a, y, part, K, hp, NULL) == FGL_OK, "partition_homophily");
    for (p = 0; p < K; p++) {
        int n = 0, *ys;
        fgl_csr s;
        for (i = 0; i < N; i++)
            if (part[i] == p) sub_nodes[n++] = i;
        FT_CHECK(fgl_graph_subgraph(&a, sub_nodes, n, &s, NULL, NULL) == FGL_OK, "subgraph");
        ys = (int *)malloc(sizeof(int) * (size_t)(n + 1));
        for (i = 0; i < n; i++) ys[i] = y[sub_nodes[i]];
        hs = measure(&s, ys);
#define SAME(x) ((isnan(hs.x) && isnan(hp[p].x)) || fabs(hs.x - hp[p].x) < 1e-12)
        if (!(SAME(edge) && SAME(node) && SAME(adjusted) && SAME(class_insensitive) && SAME(label_informativeness) &&
              hs.edges == hp[p].edges && hs.nodes == hp[p].nodes && hs.classes == hp[p].classes)) {
            same = 0;
            printf("#   part %d: edge %g/%g node %g/%g adj %g/%g ci %g/%g LI %g/%g\n", p, hs.edge, hp[p].edge,
                   hs.node, hp[p].node, hs.adjusted, hp[p].adjusted, hs.class_insensitive,
                   hp[p].class_insensitive, hs.label_informativeness, hp[p].label_informativeness);
        }
#undef SAME
        free(ys);
        fgl_csr_free(&s);
    }
    FT_CHECK(same, "a part measures unlike its induced subgraph");
    FT_CHECK(hp[K - 1].nodes == 0 && isnan(hp[K - 1].edge), "empty part");
    FT_CHECK(hp[1].edge > hp[2].edge, "part 1's labels are skewed: %g vs %g", hp[1].edge, hp[2].edge);
    fgl_csr_free(&a);
}

/* Labels drawn independently of a G(n, m) graph: h_adj, h_ci and LI have
 * expectation about 0 (h_edge about sum_k p_k^2 = 1/5, chance agreement).
 * With 2E = 2e5 endpoints and 5 near-uniform classes, h_edge is a mean of
 * E = 1e5 nearly independent agreements of probability q = 0.2: its standard
 * deviation sqrt(q (1 - q) / E) = 0.0013, and h_adj = (h_edge - q)/(1 - q)
 * has sd 0.0016: tolerance 0.01 is over 6 sd (the seed is fixed, so the
 * test is deterministic and fails only for a bias). h_ci adds clipped
 * class terms of sd ~ sqrt(q(1-q)/D_k) = 0.002 each (5 of them, over
 * C - 1 = 4): at most ~0.003 in expectation, tolerance 0.01. LI's plug-in
 * mutual information has a bias ~ (C-1)^2 / (2 * 2E) = 8e-5 nats over
 * H = ln 5: tolerance 0.002. */
static void test_random_labels(void) {
    enum { N = 20000, M = 100000, C = 5 };
    int *y = (int *)malloc(sizeof(int) * N);
    fgl_csr a;
    fgl_homophily h;
    random_instance(N, M, C, 2024, &a, y);
    h = measure(&a, y);
    FT_NEAR(h.adjusted, 0.0, 0.01, "adjusted homophily of random labels");
    FT_NEAR(h.edge, 0.2, 0.01, "edge homophily of random labels (chance 1/5)");
    FT_NEAR(h.class_insensitive, 0.0, 0.01, "class-insensitive homophily of random labels");
    FT_NEAR(h.label_informativeness, 0.0, 0.002, "label informativeness of random labels");
    printf("#   random labels: h_edge %.5f, h_adj %.5f, h_ci %.5f, LI %.6f\n", h.edge, h.adjusted,
           h.class_insensitive, h.label_informativeness);
    FT_CHECK(h.edges == M && h.classes == C, "counts %ld %d", h.edges, h.classes);
    free(y);
    fgl_csr_free(&a);
}

int main(void) {
    FT_RUN(test_path);
    FT_RUN(test_star);
    FT_RUN(test_bipartite);
    FT_RUN(test_complete_and_one_class);
    FT_RUN(test_unlabelled);
    FT_RUN(test_no_edges);
    FT_RUN(test_partition);
    FT_RUN(test_random_labels);
    return ft_finish();
}
