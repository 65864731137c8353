/* Tests of fgl_graph.h's core (no data files needed): building graphs,
 * subgraphs, components, normalisations, batches, feature builders, splits
 * and deep copies. */
#include "../fgl_graph.h"
#include "ft.h"

/* Entry (i, j) of a CSR, or -1 if absent (values NULL: 1). */
static double csr_get(const fgl_csr *a, int i, int j) {
    int k;
    for (k = a->indptr[i]; k < a->indptr[i + 1]; k++)
        if (a->indices[k] == j) return a->values ? a->values[k] : 1.0;
    return -1.0;
}

static int csr_row_len(const fgl_csr *a, int i) { return a->indptr[i + 1] - a->indptr[i]; }

static void test_from_edges_flags(void) {
    /* 0->1 twice, 1->2, 2->2 (self loop), 2->1 (reverse of 1->2) */
    int src[] = {0, 0, 1, 2, 2}, dst[] = {1, 1, 2, 2, 1};
    fgl_csr a;
    fgl_error e;
    int rc = fgl_graph_from_edges(4, src, dst, 5, 0, &a, &e);
    FT_CHECK(rc == FGL_OK, "plain: %s", e.msg);
    FT_CHECK(a.rows == 4 && a.cols == 4 && a.values == NULL, "shape %d x %d", a.rows, a.cols);
    FT_CHECK(a.nnz == 4, "dedup keeps 0-1, 1-2, 2-1, 2-2: nnz %d", a.nnz);
    FT_CHECK(csr_get(&a, 0, 1) == 1 && csr_get(&a, 1, 0) < 0, "no symmetrisation without the flag");
    FT_CHECK(csr_get(&a, 2, 2) == 1, "self loop kept without a flag");
    FT_CHECK(fgl_csr_validate(&a, &e) == FGL_OK, "%s", e.msg);
    fgl_csr_free(&a);

    rc = fgl_graph_from_edges(4, src, dst, 5, FGL_EDGES_SYMMETRIZE | FGL_EDGES_DROP_SELF_LOOPS, &a, &e);
    FT_CHECK(rc == FGL_OK && a.nnz == 4, "sym + drop: nnz %d (0-1, 1-0, 1-2, 2-1)", a.nnz);
    FT_CHECK(fgl_graph_is_symmetric(&a), "symmetric");
    FT_CHECK(csr_get(&a, 2, 2) < 0, "self loop dropped");
    FT_CHECK(fgl_graph_num_edges(&a) == 2, "two undirected edges, got %d", fgl_graph_num_edges(&a));
    {
        int deg[4];
        fgl_graph_degrees(&a, deg);
        FT_CHECK(deg[0] == 1 && deg[1] == 2 && deg[2] == 1 && deg[3] == 0, "degrees %d %d %d %d", deg[0],
                 deg[1], deg[2], deg[3]);
    }
    fgl_csr_free(&a);

    rc = fgl_graph_from_edges(4, src, dst, 5, FGL_EDGES_SYMMETRIZE | FGL_EDGES_ADD_SELF_LOOPS, &a, &e);
    FT_CHECK(rc == FGL_OK && a.nnz == 8, "sym + add: nnz %d (4 + one loop per node)", a.nnz);
    FT_CHECK(csr_get(&a, 3, 3) == 1 && csr_get(&a, 2, 2) == 1, "loops on every node, once");
    fgl_csr_free(&a);

    {
        int bad_src[] = {0, 4}, bad_dst[] = {1, 0};
        rc = fgl_graph_from_edges(4, bad_src, bad_dst, 2, 0, &a, &e);
        FT_CHECK(rc == FGL_ERR_RANGE, "out-of-range id: %s", fgl_result_name(rc));
        FT_CHECK(a.indptr == NULL, "output left empty on error");
        bad_src[1] = -1;
        rc = fgl_graph_from_edges(4, bad_src, bad_dst, 2, 0, &a, &e);
        FT_CHECK(rc == FGL_ERR_RANGE, "negative id: %s", fgl_result_name(rc));
    }
    rc = fgl_graph_from_edges(0, NULL, NULL, 0, FGL_EDGES_SYMMETRIZE, &a, &e);
    FT_CHECK(rc == FGL_OK && a.rows == 0 && a.nnz == 0, "empty graph");
    fgl_csr_free(&a);
}

/* Random symmetric graph for property checks. */
static void random_graph(int n, int m, uint64_t seed, fgl_csr *a) {
    int *s = (int *)malloc(sizeof(int) * m), *d = (int *)malloc(sizeof(int) * m), k;
    fgl_rng r;
    fgl_rng_init(&r, seed, 0);
    for (k = 0; k < m; k++) {
        s[k] = (int)fgl_rng_below(&r, (uint64_t)n);
        d[k] = (int)fgl_rng_below(&r, (uint64_t)n);
    }
    fgl_graph_from_edges(n, s, d, m, FGL_EDGES_SYMMETRIZE | FGL_EDGES_DROP_SELF_LOOPS, a, NULL);
    free(s);
    free(d);
}

static void test_from_edges_random_dedup(void) {
    /* Every (u, v) of the input appears exactly once; nothing else does. */
    int n = 50, m = 2000, k, i, bad = 0;
    int *s = (int *)malloc(sizeof(int) * m), *d = (int *)malloc(sizeof(int) * m);
    char *want = (char *)calloc((size_t)n * n, 1);
    fgl_csr a;
    fgl_rng r;
    fgl_rng_init(&r, 3, 0);
    for (k = 0; k < m; k++) {
        s[k] = (int)fgl_rng_below(&r, (uint64_t)n);
        d[k] = (int)fgl_rng_below(&r, (uint64_t)n);
        want[s[k] * n + d[k]] = 1;
    }
    FT_CHECK(fgl_graph_from_edges(n, s, d, m, 0, &a, NULL) == FGL_OK, "build");
    FT_CHECK(fgl_csr_validate(&a, NULL) == FGL_OK, "sorted, no duplicates");
    for (i = 0; i < n; i++)
        for (k = 0; k < n; k++) bad += (csr_get(&a, i, k) > 0) != want[i * n + k];
    FT_CHECK(bad == 0, "%d entries differ from the input set", bad);
    fgl_csr_free(&a);
    free(s);
    free(d);
    free(want);
}

static void test_subgraph_maps(void) {
    /* 0-1, 1-2, 2-3, 3-4, 4-0, 1-4 ; weighted copy to check values */
    int s[] = {0, 1, 2, 3, 4, 1}, d[] = {1, 2, 3, 4, 0, 4};
    int nodes[] = {4, 1, 3}, map[5], k;
    fgl_csr a, sub;
    fgl_error e;
    fgl_graph_from_edges(5, s, d, 6, FGL_EDGES_SYMMETRIZE, &a, NULL);
    a.values = (float *)malloc(sizeof(float) * a.nnz);
    for (k = 0; k < a.nnz; k++) a.values[k] = (float)(k + 1);
    FT_CHECK(fgl_graph_subgraph(&a, nodes, 3, &sub, map, &e) == FGL_OK, "%s", e.msg);
    FT_CHECK(map[4] == 0 && map[1] == 1 && map[3] == 2 && map[0] == -1 && map[2] == -1, "old_to_new map");
    FT_CHECK(sub.rows == 3 && sub.nnz == 4, "edges 4-1 and 4-3 survive: nnz %d", sub.nnz);
    FT_CHECK(fgl_csr_validate(&sub, &e) == FGL_OK, "sorted columns after relabelling: %s", e.msg);
    FT_CHECK(csr_get(&sub, 0, 1) == csr_get(&a, 4, 1), "value of 4-1 kept");
    FT_CHECK(csr_get(&sub, 2, 0) == csr_get(&a, 3, 4), "value of 3-4 kept");
    FT_CHECK(csr_get(&sub, 1, 2) < 0, "1-3 is no edge");
    fgl_csr_free(&sub);
    {
        int dup[] = {1, 1};
        FT_CHECK(fgl_graph_subgraph(&a, dup, 2, &sub, NULL, &e) == FGL_ERR_ARG, "duplicate node");
        dup[1] = 7;
        FT_CHECK(fgl_graph_subgraph(&a, dup, 2, &sub, NULL, &e) == FGL_ERR_RANGE, "node out of range");
        FT_CHECK(sub.indptr == NULL, "nothing allocated on error");
    }
    fgl_csr_free(&a);
}

static void test_components(void) {
    /* {0, 3, 5}, {1, 2}, {4}, {6, 7, 8} */
    int s[] = {0, 3, 2, 6, 7}, d[] = {3, 5, 1, 7, 8};
    int comp[9], nodes[9], nc, cnt;
    fgl_csr a;
    fgl_graph_from_edges(9, s, d, 5, FGL_EDGES_SYMMETRIZE, &a, NULL);
    nc = fgl_graph_components(&a, comp);
    FT_CHECK(nc == 4, "4 components, got %d", nc);
    FT_CHECK(comp[0] == 0 && comp[3] == 0 && comp[5] == 0, "component of node 0 is 0");
    FT_CHECK(comp[1] == 1 && comp[2] == 1 && comp[4] == 2 && comp[6] == 3 && comp[8] == 3,
             "numbered by smallest node");
    cnt = fgl_graph_largest_component(&a, nodes);
    FT_CHECK(cnt == 3 && nodes[0] == 0 && nodes[1] == 3 && nodes[2] == 5, "tie goes to the component of node 0");
    fgl_csr_free(&a);
    /* directed entries: weak components */
    {
        int s2[] = {2}, d2[] = {0};
        fgl_graph_from_edges(3, s2, d2, 1, 0, &a, NULL);
        nc = fgl_graph_components(&a, comp);
        FT_CHECK(nc == 2 && comp[0] == comp[2] && comp[1] == 1, "weak components: %d", nc);
        fgl_csr_free(&a);
    }
}

static void test_gcn_norm_by_hand(void) {
    fgl_csr a, g;
    int k;
    /* path 0-1-2: deg+1 = 2, 3, 2 */
    {
        int s[] = {0, 1}, d[] = {1, 2};
        fgl_graph_from_edges(3, s, d, 2, FGL_EDGES_SYMMETRIZE, &a, NULL);
        FT_CHECK(fgl_gcn_norm(&a, &g) == FGL_OK, "gcn norm");
        FT_CHECK(g.nnz == 7 && fgl_csr_validate(&g, NULL) == FGL_OK, "nnz %d", g.nnz);
        FT_NEAR(csr_get(&g, 0, 0), 0.5, 1e-6, "(0,0)");
        FT_NEAR(csr_get(&g, 0, 1), 1 / sqrt(6.0), 1e-6, "(0,1)");
        FT_NEAR(csr_get(&g, 1, 0), 1 / sqrt(6.0), 1e-6, "(1,0)");
        FT_NEAR(csr_get(&g, 1, 1), 1 / 3.0, 1e-6, "(1,1)");
        FT_NEAR(csr_get(&g, 1, 2), 1 / sqrt(6.0), 1e-6, "(1,2)");
        FT_NEAR(csr_get(&g, 2, 2), 0.5, 1e-6, "(2,2)");
        FT_CHECK(csr_get(&g, 0, 2) < 0, "(0,2) absent");
        fgl_csr_free(&g);
        fgl_csr_free(&a);
    }
    /* star: centre 0 with leaves 1..3, plus isolated node 4 */
    {
        int s[] = {0, 0, 0}, d[] = {1, 2, 3};
        fgl_graph_from_edges(5, s, d, 3, FGL_EDGES_SYMMETRIZE, &a, NULL);
        FT_CHECK(fgl_gcn_norm(&a, &g) == FGL_OK, "gcn norm");
        FT_NEAR(csr_get(&g, 0, 0), 0.25, 1e-6, "centre");
        for (k = 1; k <= 3; k++) {
            FT_NEAR(csr_get(&g, 0, k), 1 / sqrt(8.0), 1e-6, "centre-leaf");
            FT_NEAR(csr_get(&g, k, 0), 1 / sqrt(8.0), 1e-6, "leaf-centre");
            FT_NEAR(csr_get(&g, k, k), 0.5, 1e-6, "leaf");
        }
        FT_CHECK(csr_row_len(&g, 4) == 1 && csr_get(&g, 4, 4) == 1.0, "isolated node: self loop of weight 1");
        FT_CHECK(fgl_all_finite((size_t)g.nnz, g.values), "no NaN");
        fgl_csr_free(&g);

        /* row normalisation and random walk */
        FT_CHECK(fgl_graph_row_norm(&a, &g) == FGL_OK, "row norm");
        FT_NEAR(csr_get(&g, 0, 1), 1 / 3.0, 1e-6, "D^-1 A centre row");
        FT_NEAR(csr_get(&g, 1, 0), 1.0, 1e-6, "D^-1 A leaf row");
        FT_CHECK(csr_row_len(&g, 4) == 0, "isolated row stays empty");
        fgl_csr_free(&g);
        FT_CHECK(fgl_graph_rw_norm(&a, &g) == FGL_OK, "rw norm");
        FT_NEAR(csr_get(&g, 1, 0), 1 / 3.0, 1e-6, "A D^-1: column 0 sums to 1");
        FT_NEAR(csr_get(&g, 0, 1), 1.0, 1e-6, "A D^-1: column 1");
        fgl_csr_free(&g);
        fgl_csr_free(&a);
    }
    /* an existing self loop of weight 2 becomes 3; all-isolated graph */
    {
        int s[] = {0, 0}, d[] = {0, 1};
        float v[] = {2.0f, 1.0f};
        fgl_csr_from_coo(2, 2, 2, s, d, v, 0, &a, NULL);
        fgl_gcn_norm(&a, &g);
        /* row 0: A+I = [3, 1] -> d0 = 4; row 1: [0, 1] -> d1 = 1 */
        FT_NEAR(csr_get(&g, 0, 0), 3.0 / 4.0, 1e-6, "weighted self loop");
        FT_NEAR(csr_get(&g, 0, 1), 1.0 / 2.0, 1e-6, "weighted (0,1)");
        FT_NEAR(csr_get(&g, 1, 1), 1.0, 1e-6, "row 1");
        fgl_csr_free(&g);
        fgl_csr_free(&a);
        fgl_graph_from_edges(3, NULL, NULL, 0, 0, &a, NULL);
        fgl_gcn_norm(&a, &g);
        FT_CHECK(g.nnz == 3 && g.values[0] == 1 && g.values[1] == 1 && g.values[2] == 1, "identity");
        fgl_csr_free(&g);
        fgl_csr_free(&a);
    }
}

/* Three graphs: a triangle (label 1), an edge (label 0), a single node
 * (label 1); node labels 0..2, 2-d attributes, 1-d pe. */
static void small_set(fgl_graph_set *s) {
    int src[] = {0, 1, 2, 3}, dst[] = {1, 2, 0, 4}, i;
    memset(s, 0, sizeof *s);
    strcpy(s->name, "small");
    s->n_graphs = 3;
    s->n_nodes = 6;
    s->n_classes = 2;
    s->node_ptr = (int *)malloc(sizeof(int) * 4);
    s->node_ptr[0] = 0;
    s->node_ptr[1] = 3;
    s->node_ptr[2] = 5;
    s->node_ptr[3] = 6;
    fgl_graph_from_edges(6, src, dst, 4, FGL_EDGES_SYMMETRIZE, &s->adj, NULL);
    s->y = (int *)malloc(sizeof(int) * 3);
    s->y[0] = 1;
    s->y[1] = 0;
    s->y[2] = 1;
    s->node_labels = (int *)malloc(sizeof(int) * 6);
    s->n_node_label_values = 3;
    s->node_attr = (float *)malloc(sizeof(float) * 12);
    s->n_node_attr = 2;
    s->pe = (float *)malloc(sizeof(float) * 6);
    s->n_pe = 1;
    for (i = 0; i < 6; i++) {
        s->node_labels[i] = i % 3;
        s->node_attr[2 * i] = (float)i;
        s->node_attr[2 * i + 1] = (float)(10 * i);
        s->pe[i] = 0.5f * (float)i;
    }
}

static void test_batch(void) {
    fgl_graph_set s;
    fgl_batch b;
    fgl_error e;
    int ids[] = {2, 0, 2};
    small_set(&s);
    FT_CHECK(fgl_graph_set_validate(&s, &e) == FGL_OK, "hand-made set: %s", e.msg);
    FT_CHECK(fgl_graph_set_features(&s, FGL_FEAT_NODE_LABELS, 0, &e) == FGL_OK, "%s", e.msg);
    FT_CHECK(fgl_batch_make(&s, ids, 3, &b, &e) == FGL_OK, "%s", e.msg);
    FT_CHECK(b.n_graphs == 3 && b.n_nodes == 5 && b.n_feat == 3 && b.n_pe == 1, "sizes %d %d", b.n_graphs, b.n_nodes);
    FT_CHECK(b.offsets[0] == 0 && b.offsets[1] == 1 && b.offsets[2] == 4 && b.offsets[3] == 5, "offsets");
    FT_CHECK(b.graph_of_node[0] == 0 && b.graph_of_node[1] == 1 && b.graph_of_node[3] == 1 && b.graph_of_node[4] == 2,
             "graph_of_node");
    FT_CHECK(b.y[0] == 1 && b.y[1] == 1 && b.y[2] == 1 && b.ids[1] == 0 && b.ids[2] == 2, "y and ids");
    FT_CHECK(b.adj.nnz == 6 && fgl_graph_is_symmetric(&b.adj) && fgl_csr_validate(&b.adj, NULL) == 0, "adj nnz %d",
             b.adj.nnz);
    FT_CHECK(csr_get(&b.adj, 1, 2) == 1 && csr_get(&b.adj, 3, 1) == 1 && csr_row_len(&b.adj, 0) == 0,
             "triangle shifted to nodes 1..3");
    FT_CHECK(b.adj_gcn.rows == 0, "the GCN matrix waits for its first use");
    FT_CHECK(fgl_batch_gcn(&b, &e) == &b.adj_gcn && fgl_batch_gcn(&b, &e) == &b.adj_gcn, "built once, then cached");
    FT_NEAR(csr_get(&b.adj_gcn, 1, 2), 1.0 / 3.0, 1e-6, "gcn of triangle");
    FT_NEAR(csr_get(&b.adj_gcn, 0, 0), 1.0, 1e-6, "gcn of lone node");
    FT_CHECK(b.x[0 * 3 + 2] == 1 && b.x[1 * 3 + 0] == 1 && b.x[4 * 3 + 2] == 1, "x rows copied (node 5 has label 2)");
    FT_CHECK(b.pe[0] == 2.5f && b.pe[1] == 0.0f && b.pe[3] == 1.0f, "pe rows copied");
    fgl_batch_free(&b);
    fgl_batch_free(&b);
    ids[0] = 3;
    FT_CHECK(fgl_batch_make(&s, ids, 3, &b, &e) == FGL_ERR_RANGE, "bad id");
    FT_CHECK(b.x == NULL && b.offsets == NULL, "cleared on error");
    FT_CHECK(fgl_batch_make(&s, ids, 0, &b, &e) == FGL_ERR_EMPTY, "empty batch");
    fgl_graph_set_free(&s);
}

static void test_feature_builders(void) {
    fgl_graph_set s;
    fgl_error e;
    int i;
    small_set(&s);
    FT_CHECK(fgl_graph_set_max_degree(&s) == 2, "max degree");
    FT_CHECK(fgl_graph_set_features(&s, FGL_FEAT_NODE_LABELS | FGL_FEAT_DEGREE | FGL_FEAT_NODE_ATTR | FGL_FEAT_CONSTANT,
                                    1, &e) == FGL_OK, "%s", e.msg);
    FT_CHECK(s.n_feat == 3 + 2 + 2 + 1, "width %d", s.n_feat);
    for (i = 0; i < 6; i++) {
        const float *r = s.x + i * 8;
        int deg = csr_row_len(&s.adj, i), capped = deg < 1 ? deg : 1;
        FT_CHECK(r[i % 3] == 1 && r[0] + r[1] + r[2] == 1, "one-hot label of node %d", i);
        FT_CHECK(r[3 + capped] == 1 && r[3] + r[4] == 1, "one-hot capped degree of node %d", i);
        FT_CHECK(r[5] == (float)i && r[6] == (float)(10 * i), "attributes of node %d", i);
        FT_CHECK(r[7] == 1, "constant");
    }
    FT_CHECK(fgl_graph_set_features(&s, FGL_FEAT_DEGREE, 5, &e) == FGL_OK && s.n_feat == 6, "degree only");
    FT_CHECK(s.x[2 * 6 + 2] == 1 && s.x[5 * 6 + 0] == 1, "degree 2 and 0");
    free(s.node_labels); /* the default FGL_FREE */
    s.node_labels = NULL;
    FT_CHECK(fgl_graph_set_features(&s, FGL_FEAT_NODE_LABELS, 0, &e) == FGL_ERR_ARG, "no node labels");
    FT_CHECK(s.n_feat == 6 && s.x != NULL, "x unchanged on error");
    FT_CHECK(fgl_graph_set_features(&s, 0, 0, &e) == FGL_ERR_ARG, "no flags");
    fgl_graph_set_free(&s);
}

/* Node data: 6 nodes on a ring, 3 dense features, labels 0..2, one unknown. */
static void small_node_data(fgl_node_data *d, int sparse) {
    int s[] = {0, 1, 2, 3, 4, 5}, t[] = {1, 2, 3, 4, 5, 0}, i, j;
    memset(d, 0, sizeof *d);
    strcpy(d->name, "ring");
    d->n_nodes = 6;
    d->n_feat = 3;
    d->n_classes = 3;
    fgl_graph_from_edges(6, s, t, 6, FGL_EDGES_SYMMETRIZE, &d->adj, NULL);
    fgl_tensor_init(&d->x, 6, 3);
    for (i = 0; i < 6; i++)
        for (j = 0; j < 3; j++) FGL_AT(&d->x, i, j) = (float)((i + j) % 3);
    d->y = (int *)malloc(sizeof(int) * 6);
    for (i = 0; i < 6; i++) d->y[i] = i % 3;
    d->y[5] = -1;
    if (sparse) {
        int r[18], c[18], k = 0;
        float v[18];
        for (i = 0; i < 6; i++)
            for (j = 0; j < 3; j++)
                if (FGL_AT(&d->x, i, j) != 0) {
                    r[k] = i;
                    c[k] = j;
                    v[k++] = FGL_AT(&d->x, i, j);
                }
        fgl_csr_from_coo(6, 3, k, r, c, v, 0, &d->x_sparse, NULL);
        fgl_tensor_free(&d->x);
    }
}

static void test_node_features(void) {
    fgl_node_data d, s;
    int i, j;
    small_node_data(&d, 0);
    small_node_data(&s, 1);
    FT_CHECK(fgl_node_data_validate(&d, NULL) == FGL_OK && fgl_node_data_validate(&s, NULL) == FGL_OK, "valid");
    fgl_node_data_normalize_features(&d);
    fgl_node_data_normalize_features(&s);
    fgl_node_data_densify(&s);
    FT_CHECK(s.x.rows == 6 && s.x.cols == 3 && s.x_sparse.indptr == NULL && s.n_feat == 3, "densified");
    for (i = 0; i < 6; i++) {
        double sum = 0;
        for (j = 0; j < 3; j++) {
            sum += FGL_AT(&d.x, i, j);
            FT_NEAR(FGL_AT(&d.x, i, j), FGL_AT(&s.x, i, j), 1e-7, "dense and sparse agree");
        }
        FT_NEAR(sum, 1.0, 1e-6, "row sums to 1");
    }
    fgl_node_data_binarize_features(&d);
    FT_CHECK(FGL_AT(&d.x, 0, 0) == 0 && FGL_AT(&d.x, 0, 1) == 1 && FGL_AT(&d.x, 0, 2) == 1, "binarized");
    fgl_node_data_free(&d);
    fgl_node_data_free(&s);
    {
        int y[] = {5, -1, 5, 3, 100}, raw[5], nv = 0;
        FT_CHECK(fgl_labels_remap(y, 5, raw, &nv) == FGL_OK && nv == 4, "4 values");
        FT_CHECK(y[0] == 2 && y[1] == 0 && y[2] == 2 && y[3] == 1 && y[4] == 3, "ranks");
        FT_CHECK(raw[0] == -1 && raw[1] == 3 && raw[2] == 5 && raw[3] == 100, "raw values sorted");
    }
}

static void test_gcn_cache(void) {
    fgl_node_data d;
    const fgl_csr *g1, *g2;
    small_node_data(&d, 0);
    g1 = fgl_node_data_gcn(&d, NULL);
    g2 = fgl_node_data_gcn(&d, NULL);
    FT_CHECK(g1 && g1 == g2 && g1 == &d.adj_gcn, "cached");
    FT_CHECK(g1 && g1->nnz == 18, "ring + loops: nnz %d", g1 ? g1->nnz : -1);
    fgl_node_data_free(&d);
    fgl_node_data_free(&d);
    {
        fgl_node_data z;
        fgl_graph_set gs;
        fgl_batch b;
        memset(&z, 0, sizeof z);
        memset(&gs, 0, sizeof gs);
        memset(&b, 0, sizeof b);
        fgl_node_data_free(&z);
        fgl_graph_set_free(&gs);
        fgl_batch_free(&b);
        fgl_graph_set_free(&gs);
        FT_CHECK(1, "freeing zeroed structs twice is fine");
    }
}

static void test_node_split(void) {
    fgl_node_data d;
    int n = 1000, i, c[4] = {0, 0, 0, 0}, same = 1, diff = 0;
    unsigned char *first;
    memset(&d, 0, sizeof d);
    d.n_nodes = n;
    d.y = (int *)malloc(sizeof(int) * n);
    for (i = 0; i < n; i++) d.y[i] = i < 900 ? i % 5 : -1;
    FT_CHECK(fgl_split_nodes_random(&d, 0.2, 0.4, 7, NULL) == FGL_OK, "split");
    for (i = 0; i < n; i++) c[d.split[i]]++;
    FT_CHECK(c[FGL_SPLIT_TRAIN] == 180 && c[FGL_SPLIT_VAL] == 360 && c[FGL_SPLIT_TEST] == 360 && c[0] == 100,
             "20/40/40 of the 900 labelled: %d %d %d none %d", c[1], c[2], c[3], c[0]);
    for (i = 900; i < n; i++) same &= d.split[i] == FGL_SPLIT_NONE;
    FT_CHECK(same, "unlabelled nodes are in no part");
    first = (unsigned char *)malloc((size_t)n);
    memcpy(first, d.split, (size_t)n);
    fgl_split_nodes_random(&d, 0.2, 0.4, 7, NULL);
    FT_CHECK(memcmp(first, d.split, (size_t)n) == 0, "same seed, same split");
    fgl_split_nodes_random(&d, 0.2, 0.4, 8, NULL);
    for (i = 0; i < n; i++) diff += first[i] != d.split[i];
    FT_CHECK(diff > 100, "another seed changes the split (%d differ)", diff);
    FT_CHECK(fgl_split_indices(d.split, n, FGL_SPLIT_TRAIN, NULL) == 180, "split_indices count");
    FT_CHECK(fgl_split_nodes_random(&d, 0.7, 0.4, 1, NULL) == FGL_ERR_ARG, "fractions over 1");
    free(first);
    fgl_node_data_free(&d);
    { /* errors are explained in err and leave d as it was */
        fgl_error e;
        memset(&d, 0, sizeof d);
        d.n_nodes = 3;
        FT_CHECK(fgl_split_nodes_random(&d, 0.7, 0.4, 1, &e) == FGL_ERR_ARG && e.code == FGL_ERR_ARG &&
                     strstr(e.msg, "split_nodes_random") && strstr(e.msg, "train 0.7"),
                 "message: %s", e.msg);
        FT_CHECK(d.split == NULL, "a failed split allocated d.split");
        FT_CHECK(fgl_split_nodes_random(&d, -0.1, 0.4, 1, &e) == FGL_ERR_ARG, "negative fraction");
    }
}

static void test_stratified_split(void) {
    /* classes of 50, 30, 3, 2 and 1 graphs */
    int sizes[5] = {50, 30, 3, 2, 1}, G = 86, g = 0, c, k, cnt[5][4];
    fgl_graph_set s;
    unsigned char *first;
    memset(&s, 0, sizeof s);
    s.n_graphs = G;
    s.n_classes = 5;
    s.y = (int *)malloc(sizeof(int) * G);
    for (c = 0; c < 5; c++)
        for (k = 0; k < sizes[c]; k++) s.y[g++] = c;
    FT_CHECK(fgl_split_graphs_stratified(&s, 0.8, 0.1, 123, NULL) == FGL_OK, "split");
    memset(cnt, 0, sizeof cnt);
    for (g = 0; g < G; g++) cnt[s.y[g]][s.split[g]]++;
    FT_CHECK(cnt[0][1] == 40 && cnt[0][2] == 5 && cnt[0][3] == 5, "class 0: %d %d %d", cnt[0][1], cnt[0][2], cnt[0][3]);
    FT_CHECK(cnt[1][1] == 24 && cnt[1][2] == 3 && cnt[1][3] == 3, "class 1: %d %d %d", cnt[1][1], cnt[1][2], cnt[1][3]);
    FT_CHECK(cnt[2][1] == 1 && cnt[2][2] == 1 && cnt[2][3] == 1, "class of 3 in every part: %d %d %d", cnt[2][1],
             cnt[2][2], cnt[2][3]);
    FT_CHECK(cnt[3][0] == 0 && cnt[4][0] == 0, "small classes still assigned");
    first = (unsigned char *)malloc((size_t)G);
    memcpy(first, s.split, (size_t)G);
    fgl_split_graphs_stratified(&s, 0.8, 0.1, 123, NULL);
    FT_CHECK(memcmp(first, s.split, (size_t)G) == 0, "same seed, same split");
    fgl_split_graphs_stratified(&s, 0.8, 0.1, 124, NULL);
    FT_CHECK(memcmp(first, s.split, (size_t)G) != 0, "other seed, other split");
    free(first);
    fgl_graph_set_free(&s);
    { /* errors are explained in err and leave s as it was */
        fgl_error e;
        memset(&s, 0, sizeof s);
        s.n_graphs = 4;
        s.n_classes = 2;
        FT_CHECK(fgl_split_graphs_stratified(&s, 0.8, 0.1, 1, &e) == FGL_ERR_ARG &&
                     strstr(e.msg, "split_graphs_stratified") && strstr(e.msg, "no labels"),
                 "unlabelled set: %s", e.msg);
        FT_CHECK(fgl_split_graphs_stratified(&s, 0.8, 0.3, 1, &e) == FGL_ERR_ARG && strstr(e.msg, "val 0.3"),
                 "fractions over 1: %s", e.msg);
        FT_CHECK(s.split == NULL, "a failed split allocated s.split");
    }
}

static void test_node_subgraph_copies(void) {
    int sp;
    for (sp = 0; sp < 2; sp++) {
        fgl_node_data d, sub;
        fgl_error e;
        int nodes[] = {3, 0, 1}, i, j;
        small_node_data(&d, sp);
        fgl_split_nodes_random(&d, 0.5, 0.25, 1, NULL);
        FT_CHECK(fgl_node_data_subgraph(&d, nodes, 3, &sub, &e) == FGL_OK, "%s", e.msg);
        FT_CHECK(fgl_node_data_validate(&sub, &e) == FGL_OK, "valid: %s", e.msg);
        FT_CHECK(sub.n_nodes == 3 && sub.n_classes == 3 && sub.n_feat == 3, "sizes");
        FT_CHECK(fgl_graph_num_edges(&sub.adj) == 1 && csr_get(&sub.adj, 1, 2) == 1, "only edge 0-1 survives");
        FT_CHECK((sub.x_sparse.indptr != NULL) == sp && (sub.x.data != NULL) == !sp, "representation kept");
        for (i = 0; i < 3; i++) FT_CHECK(sub.y[i] == d.y[nodes[i]] && sub.split[i] == d.split[nodes[i]], "y/split");
        fgl_node_data_densify(&sub);
        if (!sp)
            for (i = 0; i < 3; i++)
                for (j = 0; j < 3; j++) FT_CHECK(FGL_AT(&sub.x, i, j) == FGL_AT(&d.x, nodes[i], j), "features");
        FT_CHECK(sub.y != d.y && sub.adj.indptr != d.adj.indptr, "deep copy");
        fgl_node_data_free(&sub);
        fgl_node_data_free(&d);
    }
}

static void test_client_splits(void) {
    fgl_node_data d, cl[3];
    fgl_error e;
    int part[6] = {0, 0, 1, 1, -1, 2}, k, total = 0;
    int ptr[3] = {0, 4, 8}, lists[8] = {0, 1, 2, 3, 2, 3, 4, 5};
    small_node_data(&d, 0);
    FT_CHECK(fgl_split_subgraphs(&d, part, 3, cl, &e) == FGL_OK, "%s", e.msg);
    for (k = 0; k < 3; k++) {
        total += cl[k].n_nodes;
        FT_CHECK(fgl_node_data_validate(&cl[k], &e) == FGL_OK, "client %d: %s", k, e.msg);
    }
    FT_CHECK(total == 5 && cl[0].n_nodes == 2 && cl[2].n_nodes == 1, "node counts");
    FT_CHECK(fgl_graph_num_edges(&cl[0].adj) == 1 && fgl_graph_num_edges(&cl[2].adj) == 0, "cross edges dropped");
    FT_CHECK(strcmp(cl[1].name, "ring/1") == 0, "name %s", cl[1].name);
    FT_CHECK(FGL_AT(&cl[1].x, 0, 0) == FGL_AT(&d.x, 2, 0), "client 1 node 0 is node 2");
    for (k = 0; k < 3; k++) fgl_node_data_free(&cl[k]);
    part[4] = 3;
    FT_CHECK(fgl_split_subgraphs(&d, part, 3, cl, &e) == FGL_ERR_RANGE, "part out of range");
    FT_CHECK(fgl_split_node_lists(&d, ptr, lists, 2, cl, &e) == FGL_OK, "%s", e.msg);
    FT_CHECK(cl[0].n_nodes == 4 && cl[1].n_nodes == 4, "overlapping lists");
    FT_CHECK(fgl_graph_num_edges(&cl[0].adj) == 3 && fgl_graph_num_edges(&cl[1].adj) == 3, "paths of 4");
    fgl_node_data_free(&cl[0]);
    fgl_node_data_free(&cl[1]);
    lists[1] = 0;
    FT_CHECK(fgl_split_node_lists(&d, ptr, lists, 2, cl, &e) == FGL_ERR_ARG, "repeated node in a list");
    FT_CHECK(cl[0].y == NULL && cl[1].y == NULL, "nothing left allocated");
    fgl_node_data_free(&d);
}

static void test_graph_set_subset(void) {
    fgl_graph_set s, t;
    fgl_error e;
    int ids[] = {2, 0}, i;
    small_set(&s);
    fgl_graph_set_features(&s, FGL_FEAT_NODE_LABELS | FGL_FEAT_CONSTANT, 0, &e);
    fgl_split_graphs_stratified(&s, 0.8, 0.1, 1, NULL);
    FT_CHECK(fgl_graph_set_subset(&s, ids, 2, &t, &e) == FGL_OK, "%s", e.msg);
    FT_CHECK(fgl_graph_set_validate(&t, &e) == FGL_OK, "valid: %s", e.msg);
    FT_CHECK(t.n_graphs == 2 && t.n_nodes == 4 && t.node_ptr[1] == 1 && t.node_ptr[2] == 4, "node_ptr");
    FT_CHECK(t.y[0] == 1 && t.y[1] == 1 && t.split[0] == s.split[2] && t.split[1] == s.split[0], "y, split");
    FT_CHECK(t.n_node_label_values == 3 && t.node_labels[0] == 2 && t.node_labels[1] == 0, "node labels");
    FT_CHECK(t.n_node_attr == 2 && t.node_attr[0] == 5 && t.node_attr[1] == 50 && t.node_attr[2] == 0, "attributes");
    FT_CHECK(t.n_feat == 4 && t.x[3] == 1 && t.x[2] == 1 && t.n_pe == 1 && t.pe[0] == 2.5f, "x and pe");
    FT_CHECK(fgl_graph_num_edges(&t.adj) == 3, "triangle only");
    FT_CHECK(t.x != s.x && t.pe != s.pe && t.node_attr != s.node_attr, "deep copy");
    for (i = 0; i < 4 * 4; i++) t.x[i] = -1;
    FT_CHECK(s.x[0] != -1, "original untouched");
    fgl_graph_set_free(&t);
    ids[1] = 9;
    FT_CHECK(fgl_graph_set_subset(&s, ids, 2, &t, &e) == FGL_ERR_RANGE && t.x == NULL, "bad id");
    fgl_graph_set_free(&s);
}

static void test_large_random_graph(void) {
    /* Structural invariants on a bigger random graph. */
    fgl_csr a, g, sub;
    int n = 3000, i, k, *comp = (int *)malloc(sizeof(int) * n), *nodes = (int *)malloc(sizeof(int) * n);
    int nc, cnt, bad = 0;
    random_graph(n, 2500, 11, &a);
    FT_CHECK(fgl_graph_is_symmetric(&a) && fgl_csr_validate(&a, NULL) == FGL_OK, "valid symmetric");
    nc = fgl_graph_components(&a, comp);
    for (i = 0; i < n; i++)
        for (k = a.indptr[i]; k < a.indptr[i + 1]; k++) bad += comp[i] != comp[a.indices[k]];
    FT_CHECK(nc > 1 && bad == 0, "edges stay inside components (%d components)", nc);
    cnt = fgl_graph_largest_component(&a, nodes);
    FT_CHECK(fgl_graph_subgraph(&a, nodes, cnt, &sub, NULL, NULL) == FGL_OK, "lcc subgraph");
    FT_CHECK(fgl_graph_components(&sub, comp) == 1, "the largest component is connected");
    fgl_gcn_norm(&a, &g);
    FT_CHECK(fgl_all_finite((size_t)g.nnz, g.values) && g.nnz == a.nnz + n, "gcn finite, one loop per node");
    {
        /* D^-1/2 (A+I) D^-1/2 applied to sqrt(d) gives sqrt(d) */
        float *x = (float *)malloc(sizeof(float) * n), *y = (float *)malloc(sizeof(float) * n);
        double worst = 0;
        for (i = 0; i < n; i++) x[i] = (float)sqrt((double)csr_row_len(&a, i) + 1);
        fgl_csr_spmm(&g, x, 1, 0.0f, y);
        for (i = 0; i < n; i++) worst = fmax(worst, fabs(y[i] - x[i]));
        FT_CHECK(worst < 1e-4, "eigenvector sqrt(d+1): error %g", worst);
        free(x);
        free(y);
    }
    fgl_csr_free(&g);
    fgl_csr_free(&sub);
    fgl_csr_free(&a);
    free(comp);
    free(nodes);
}

/* A 3 x 3 CSR with the given rows (lists end at -1), values NULL. */
static void csr_rows(fgl_csr *a, const int rows[3][4]) {
    int i, k, nnz = 0;
    for (i = 0; i < 3; i++)
        for (k = 0; rows[i][k] >= 0; k++) nnz++;
    fgl_csr_init(a, 3, 3, nnz, 0);
    nnz = 0;
    for (i = 0; i < 3; i++) {
        for (k = 0; rows[i][k] >= 0; k++) a->indices[nnz++] = rows[i][k];
        a->indptr[i + 1] = nnz;
    }
}

/* The graph contract is checked by fgl_graph_validate, and the functions
 * that check it on entry (METIS, Louvain, the dataset validators) reject
 * each broken rule. */
static void test_graph_contract(void) {
    static const int ok[3][4] = {{1, -1}, {0, 2, -1}, {1, -1}};
    static const int unsorted[3][4] = {{1, -1}, {2, 0, -1}, {1, -1}};
    static const int dup[3][4] = {{1, 1, -1}, {0, 2, -1}, {1, -1}};
    static const int loop[3][4] = {{1, -1}, {0, 1, 2, -1}, {1, -1}};
    static const int asym[3][4] = {{1, -1}, {0, 2, -1}, {-1}};
    const int (*bad[4])[4] = {unsorted, dup, loop, asym};
    static const char *what[4] = {"not strictly increasing", "not strictly increasing", "self loop at node 1",
                                  "not symmetric"};
    fgl_csr a;
    fgl_error e;
    int part[3], comm[3], b, rc;
    csr_rows(&a, ok);
    FT_CHECK(fgl_graph_validate(&a, &e) == FGL_OK, "path graph: %s", e.msg);
    fgl_csr_free(&a);
    fgl_csr_init(&a, 2, 3, 0, 0);
    FT_CHECK(fgl_graph_validate(&a, &e) == FGL_ERR_SHAPE, "2 x 3 accepted");
    FT_CHECK(fgl_partition_metis(&a, 1, 1, part, &e) == FGL_ERR_ARG, "metis took a 2 x 3 matrix");
    fgl_csr_free(&a);
    for (b = 0; b < 4; b++) {
        fgl_node_data d;
        int y[3] = {0, 0, 0};
        csr_rows(&a, bad[b]);
        rc = fgl_graph_validate(&a, &e);
        FT_CHECK(rc == FGL_ERR_FORMAT && strstr(e.msg, what[b]), "case %d: %s: %s", b, fgl_result_name(rc), e.msg);
        memset(&d, 0, sizeof d);
        d.n_nodes = 3;
        d.n_classes = 1;
        d.adj = a;
        d.y = y;
        FT_CHECK(fgl_node_data_validate(&d, &e) == FGL_ERR_FORMAT && strstr(e.msg, what[b]),
                 "case %d: node data: %s", b, e.msg);
        if (b == 2) { /* self loops are fine for METIS and Louvain */
            FT_CHECK(fgl_partition_metis(&a, 2, 1, part, &e) == FGL_OK, "metis, self loop: %s", e.msg);
            FT_CHECK(fgl_louvain(&a, 1, comm, NULL, &e) == FGL_OK, "louvain, self loop: %s", e.msg);
        } else {
            rc = fgl_partition_metis(&a, 2, 1, part, &e);
            FT_CHECK(rc == FGL_ERR_ARG && strstr(e.msg, what[b]), "case %d: metis: %s: %s", b, fgl_result_name(rc),
                     e.msg);
            rc = fgl_louvain(&a, 1, comm, NULL, &e);
            FT_CHECK(rc == FGL_ERR_ARG && strstr(e.msg, what[b]), "case %d: louvain: %s: %s", b,
                     fgl_result_name(rc), e.msg);
        }
        fgl_csr_free(&a);
    }
}

/* fgl_gcn_norm assumes the contract, but a matrix that breaks it (here
 * unsorted columns with a diagonal entry) must not make it write past what
 * it allocated: it used to count one diagonal too few for row 0. */
static void test_gcn_norm_unsorted_in_bounds(void) {
    static const int rows[3][4] = {{1, 0, 2, -1}, {0, -1}, {0, -1}};
    fgl_csr a, g;
    csr_rows(&a, rows);
    FT_CHECK(fgl_gcn_norm(&a, &g) == FGL_OK, "gcn_norm");
    FT_CHECK(g.indptr[3] == g.nnz && g.nnz == 8, "indptr[3] %d, nnz %d (row 0 writes 4 entries, rows 1-2 two each)",
             g.indptr[3], g.nnz);
    fgl_csr_free(&g);
    fgl_csr_free(&a);
}

int main(void) {
    FT_RUN(test_from_edges_flags);
    FT_RUN(test_from_edges_random_dedup);
    FT_RUN(test_subgraph_maps);
    FT_RUN(test_components);
    FT_RUN(test_gcn_norm_by_hand);
    FT_RUN(test_batch);
    FT_RUN(test_feature_builders);
    FT_RUN(test_node_features);
    FT_RUN(test_gcn_cache);
    FT_RUN(test_node_split);
    FT_RUN(test_stratified_split);
    FT_RUN(test_node_subgraph_copies);
    FT_RUN(test_client_splits);
    FT_RUN(test_graph_set_subset);
    FT_RUN(test_large_random_graph);
    FT_RUN(test_graph_contract);
    FT_RUN(test_gcn_norm_unsorted_in_bounds);
    return ft_finish();
}
