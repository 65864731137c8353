/* Tests of OpenFGL's data simulations (src/graph/simulate.h and the
 * fgl_scenario_make splits louvain-plus, metis-plus, label-skew,
 * topology-skew, feature-skew), each against its defining property:
 * - grouping communities: whole communities go to one client, every node
 *   once, hand-made label distributions fall into their obvious groups, and
 *   the groups are a k-means fixed point (each community nearest its own
 *   group's mean); fewer communities or distinct distributions than clients
 *   refused;
 * - Louvain at resolution 1 is fgl_louvain bit for bit, a larger one finds
 *   more communities;
 * - label skew: the first class's shares follow Dirichlet(alpha)'s mean and
 *   variance over many seeds, a client at capacity (n / k) gets nothing of
 *   later classes, the minimum is met or refused (no rebalancing);
 * - the sorted split on hand values (stable ties, the last run taking the
 *   rest) and the clients' statistic ranges ordered on synthetic graphs;
 *   the mean degree against 2E/N of each graph taken alone;
 * - the scenario: every node in one client, the edges across clients
 *   dropped (client edges + edge cut = edges), sizes equal to the grouping's,
 *   same seed same split, and refusals (a graph split for nodes and back,
 *   too many clients, too few METIS parts, a bad resolution).
 * Small synthetic data only; a second or so. */
#include "../fgl_fed.h"
#include "ft.h"
#include <math.h>

static fgl_dataset nodes, graphs;

/* --- grouping communities ----------------------------------------------------------- */

static void test_group_hand(void) {
    /* 8 communities of 10 nodes over 3 classes: 0-3 mostly class 0, 4-7 mostly class 2 */
    static const int mix[8][3] = {{10, 0, 0}, {9, 1, 0}, {8, 1, 1}, {9, 0, 1}, {0, 1, 9}, {1, 0, 9}, {0, 0, 10}, {1, 1, 8}};
    int comm[80], y[80], out[80], out2[80], i, c, q = 0;
    fgl_error err;
    for (c = 0; c < 8; c++) {
        int k, j;
        for (k = 0; k < 3; k++)
            for (j = 0; j < mix[c][k]; j++) {
                comm[q] = c;
                y[q++] = k;
            }
    }
    FT_CHECK(fgl_split_group_communities(comm, 80, 8, y, 3, 2, 7, out, &err) == FGL_OK, "%s", err.msg);
    for (i = 0; i < 80; i++) {
        FT_CHECK(out[i] == out[comm[i] * 10], "node %d not with its community", i);
        FT_CHECK((out[i] == out[0]) == (comm[i] < 4), "community %d in the wrong group", comm[i]);
    }
    FT_CHECK(out[0] != out[79], "one group");
    FT_CHECK(fgl_split_group_communities(comm, 80, 8, y, 3, 2, 7, out2, &err) == FGL_OK && !memcmp(out, out2, sizeof out),
             "same seed, different grouping");
    /* refusals: more clients than communities; fewer distinct distributions than clients */
    FT_CHECK(fgl_split_group_communities(comm, 80, 8, y, 3, 9, 7, out, &err) == FGL_ERR_ARG, "9 clients of 8 communities");
    for (i = 0; i < 80; i++) y[i] = 1;
    FT_CHECK(fgl_split_group_communities(comm, 80, 8, y, 3, 2, 7, out, &err) == FGL_ERR_ARG &&
                 strstr(err.msg, "distinct"), "one distribution for 2 clients: %s", err.msg);
}

/* The groups of comm under client_of are a k-means fixed point: each
 * community's label distribution is at least as near its own group's mean as
 * any other group's. Returns the number of communities that are not. */
static int kmeans_violations(const int *comm, int n, int m, const int *y, int C, int k, const int *client_of) {
    double *p = (double *)calloc((size_t)m * C, sizeof(double)), *mean = (double *)calloc((size_t)k * C, sizeof(double));
    int *grp = (int *)malloc(sizeof(int) * (size_t)m), *cnt = (int *)calloc((size_t)k, sizeof(int)), i, j, c, bad = 0;
    for (i = 0; i < n; i++) {
        p[(size_t)comm[i] * C + y[i]] += 1;
        grp[comm[i]] = client_of[i];
    }
    for (i = 0; i < m; i++) {
        double s = 0;
        for (c = 0; c < C; c++) s += p[(size_t)i * C + c];
        for (c = 0; c < C; c++) p[(size_t)i * C + c] /= s > 0 ? s : 1;
        cnt[grp[i]]++;
        for (c = 0; c < C; c++) mean[(size_t)grp[i] * C + c] += p[(size_t)i * C + c];
    }
    for (j = 0; j < k; j++)
        for (c = 0; c < C; c++) mean[(size_t)j * C + c] /= cnt[j] ? cnt[j] : 1;
    for (i = 0; i < m; i++) {
        double own = 0;
        for (c = 0; c < C; c++) own += pow(p[(size_t)i * C + c] - mean[(size_t)grp[i] * C + c], 2);
        for (j = 0; j < k; j++) {
            double d = 0;
            for (c = 0; c < C; c++) d += pow(p[(size_t)i * C + c] - mean[(size_t)j * C + c], 2);
            if (d < own - 1e-12) {
                bad++;
                break;
            }
        }
    }
    for (j = 0; j < k; j++) bad += cnt[j] == 0 ? 1000 : 0; /* an empty client */
    free(p);
    free(mean);
    free(grp);
    free(cnt);
    return bad;
}

/* Louvain+ and Metis+ on the synthetic graph: the communities the split
 * groups, grouped as k-means would, and the scenario's clients of their sizes. */
static void check_plus(int how, int k) {
    const fgl_node_data *d = &nodes.node;
    int n = d->n_nodes, *comm = (int *)malloc(sizeof(int) * (size_t)n), *part = (int *)malloc(sizeof(int) * (size_t)n);
    int *size = (int *)calloc((size_t)k, sizeof(int)), m = 0, i, total = 0, edges = 0;
    fgl_split_config c = fgl_split_default();
    fgl_scenario sc;
    fgl_error err;
    c.how = how;
    c.clients = k;
    c.metis_parts = 24;
    if (how == FGL_PART_LOUVAIN_PLUS) FT_CHECK(fgl_louvain_ex(&d->adj, c.seed, 1.0, comm, &m, &err) == FGL_OK, "%s", err.msg);
    else FT_CHECK(fgl_partition_metis(&d->adj, m = 24, c.seed, comm, &err) == FGL_OK, "%s", err.msg);
    FT_CHECK(fgl_split_group_communities(comm, n, m, d->y, d->n_classes, k, c.seed, part, &err) == FGL_OK, "%s",
             err.msg);
    FT_CHECK(kmeans_violations(comm, n, m, d->y, d->n_classes, k, part) == 0, "%s: not a k-means fixed point",
             fgl_part_name(how));
    for (i = 0; i < n; i++) size[part[i]]++;
    printf("#   %s: %d communities into %d clients of", fgl_part_name(how), m, k);
    for (i = 0; i < k; i++) printf(" %d", size[i]);
    printf("\n");
    FT_CHECK(fgl_scenario_make(&sc, &nodes, &c, &err) == FGL_OK, "%s", err.msg);
    for (i = 0; i < sc.n_clients; i++) {
        FT_CHECK(sc.node[i].n_nodes == size[i], "client %d: %d nodes, the grouping gives %d", i, sc.node[i].n_nodes,
                 size[i]);
        total += sc.node[i].n_nodes;
        edges += fgl_graph_num_edges(&sc.node[i].adj);
    }
    FT_CHECK(sc.n_clients == k && total == n, "%d clients, %d nodes of %d", sc.n_clients, total, n);
    FT_CHECK(edges + sc.edge_cut == fgl_graph_num_edges(&d->adj), "edges %d + cut %ld", edges, sc.edge_cut);
    fgl_scenario_free(&sc);
    free(comm);
    free(part);
    free(size);
}

static void test_plus_splits(void) {
    check_plus(FGL_PART_LOUVAIN_PLUS, 4);
    check_plus(FGL_PART_METIS_PLUS, 5);
}

static void test_louvain_resolution(void) {
    const fgl_csr *a = &nodes.node.adj;
    int n = a->rows, *c1 = (int *)malloc(sizeof(int) * (size_t)n), *c2 = (int *)malloc(sizeof(int) * (size_t)n), m1 = 0,
        m2 = -1, m4 = 0;
    fgl_error err;
    FT_CHECK(fgl_louvain(a, 3, c1, &m1, NULL) == FGL_OK && fgl_louvain_ex(a, 3, 1.0, c2, &m2, NULL) == FGL_OK,
             "louvain");
    FT_CHECK(m1 == m2 && !memcmp(c1, c2, sizeof(int) * (size_t)n), "resolution 1 differs from fgl_louvain");
    FT_CHECK(fgl_louvain_ex(a, 3, 4.0, c2, &m4, NULL) == FGL_OK && m4 > m1, "resolution 4: %d communities, 1: %d", m4,
             m1);
    FT_CHECK(fgl_louvain_ex(a, 3, 0.0, c2, &m4, &err) == FGL_ERR_ARG, "resolution 0 accepted");
    free(c1);
    free(c2);
}

/* --- label skew ------------------------------------------------------------------------ */

static void test_label_skew(void) {
    enum { N = 1000, C = 5, K = 4, S = 400 };
    int y[N], a[N], b[N], i, j, s, cnt[K], cum[K];
    double alpha = 0.5, sum = 0, sum2 = 0, mean, var, ev = 1.0 / K, vv = ev * (1 - ev) / (K * alpha + 1);
    fgl_error err;
    for (i = 0; i < N; i++) y[i] = i % C;
    /* the first class meets no capacity: its shares are one Dirichlet(alpha) draw */
    for (s = 0; s < S; s++) {
        FT_CHECK(fgl_split_label_skew(y, N, C, K, alpha, 0, 1, (uint64_t)s, a, &err) == FGL_OK, "%s", err.msg);
        memset(cnt, 0, sizeof cnt);
        for (i = 0; i < N; i += C) cnt[a[i]]++;
        for (j = 0; j < K; j++) { /* client j's share is Beta(alpha, (K - 1) alpha) */
            double x = cnt[j] / (double)(N / C);
            sum += j == 0 ? x : 0; /* the shares of a draw sum to 1: client 0's mean is the informative one */
            sum2 += x * x;
        }
    }
    mean = sum / S;
    var = sum2 / (S * K) - ev * ev;
    printf("#   label skew, class 0 shares over %d seeds: mean %.4f (Dirichlet %.4f), variance %.4f (%.4f)\n", S, mean,
           ev, var, vv);
    FT_NEAR(mean, ev, 5 * sqrt(vv / S), "client 0's mean share");
    FT_CHECK(fabs(var - vv) < 0.2 * vv, "share variance %.4f, Dirichlet's %.4f", var, vv);
    /* capacity: a client holding n / k items after classes 0..c-1 gets nothing of class c */
    for (s = 0; s < 20; s++) {
        FT_CHECK(fgl_split_label_skew(y, N, C, K, 0.3, 0, 1, (uint64_t)s, a, &err) == FGL_OK, "%s", err.msg);
        memset(cum, 0, sizeof cum);
        for (i = 0; i < C; i++) {
            int got[K] = {0}, q;
            for (q = i; q < N; q += C) got[a[q]]++;
            for (j = 0; j < K; j++) {
                FT_CHECK(!(cum[j] >= N / K && got[j] > 0), "seed %d: client %d at %d items got %d of class %d", s, j,
                         cum[j], got[j], i);
                cum[j] += got[j];
            }
        }
    }
    /* the minimum: met, else refused; same seed, same split */
    FT_CHECK(fgl_split_label_skew(y, N, C, K, 0.5, 100, 100, 9, a, &err) == FGL_OK, "%s", err.msg);
    memset(cnt, 0, sizeof cnt);
    for (i = 0; i < N; i++) cnt[a[i]]++;
    for (j = 0; j < K; j++) FT_CHECK(cnt[j] >= 100, "client %d: %d items", j, cnt[j]);
    FT_CHECK(fgl_split_label_skew(y, N, C, K, 0.5, 100, 100, 9, b, &err) == FGL_OK && !memcmp(a, b, sizeof a),
             "same seed, different split");
    FT_CHECK(fgl_split_label_skew(y, N, C, 20, 0.01, 49, 100, 9, a, &err) == FGL_ERR_ARG && strstr(err.msg, "--alpha"),
             "an unreachable minimum: %s", err.msg);
    FT_CHECK(fgl_split_label_skew(y, N, C, 20, 0.5, 51, 100, 9, a, &err) == FGL_ERR_ARG, "20 x 51 > 1000 accepted");
    y[7] = C;
    FT_CHECK(fgl_split_label_skew(y, N, C, K, 0.5, 0, 1, 9, a, &err) == FGL_ERR_RANGE, "label out of range accepted");
}

/* --- sorted splits ------------------------------------------------------------------ */

static void test_sorted(void) {
    static const double st[10] = {3, 1, 2, 1, 5, 0, 4, 2, 3, 9};
    /* order: 5(0) 1(1) 3(1) 2(2) 7(2) 0(3) 8(3) 6(4) 4(5) 9(9); runs of 3, the last 4 */
    static const int want[10] = {1, 0, 1, 0, 2, 0, 2, 1, 2, 2};
    double nan_st[3] = {1, 0, 2};
    int out[10], i;
    fgl_error err;
    FT_CHECK(fgl_split_sorted(st, 10, 3, out, &err) == FGL_OK, "%s", err.msg);
    for (i = 0; i < 10; i++) FT_CHECK(out[i] == want[i], "item %d: client %d, want %d", i, out[i], want[i]);
    FT_CHECK(fgl_split_sorted(st, 10, 11, out, &err) == FGL_ERR_ARG, "11 clients of 10 items accepted");
    nan_st[1] = NAN;
    FT_CHECK(fgl_split_sorted(nan_st, 3, 2, out, &err) == FGL_ERR_ARG, "a NaN statistic accepted");
}

/* topology-skew / feature-skew: client j's statistics all at or below client j+1's, runs of floor(n / k) */
static void check_sorted_scenario(int how, int k) {
    fgl_split_config c = fgl_split_default();
    fgl_scenario sc;
    fgl_error err;
    int j, g, n = graphs.sets[0].n_graphs, total = 0;
    double prev_hi = -1e300;
    c.how = how;
    c.clients = k;
    FT_CHECK(fgl_scenario_make(&sc, &graphs, &c, &err) == FGL_OK, "%s", err.msg);
    for (j = 0; j < sc.n_clients; j++) {
        const fgl_graph_set *s = &sc.graphs[j];
        double *st = (double *)malloc(sizeof(double) * (size_t)s->n_graphs), lo = 1e300, hi = -1e300;
        if (how == FGL_PART_TOPOLOGY_SKEW) fgl_graph_set_mean_degrees(s, st);
        else FT_CHECK(fgl_graph_set_mean_features(s, st, &err) == FGL_OK, "%s", err.msg);
        for (g = 0; g < s->n_graphs; g++) {
            lo = st[g] < lo ? st[g] : lo;
            hi = st[g] > hi ? st[g] : hi;
        }
        FT_CHECK(lo >= prev_hi, "%s: client %d's statistics start at %g below client %d's end %g", fgl_part_name(how),
                 j, lo, j - 1, prev_hi);
        FT_CHECK(s->n_graphs == (j < k - 1 ? n / k : n - (k - 1) * (n / k)), "client %d: %d graphs", j, s->n_graphs);
        prev_hi = hi;
        total += s->n_graphs;
        free(st);
    }
    FT_CHECK(total == n, "%d graphs of %d", total, n);
    fgl_scenario_free(&sc);
}

static void test_graph_skews(void) {
    const fgl_graph_set *s = &graphs.sets[0];
    double *deg = (double *)malloc(sizeof(double) * (size_t)s->n_graphs);
    int g;
    fgl_graph_set_mean_degrees(s, deg); /* against each graph taken alone: 2 E / N */
    for (g = 0; g < 5; g++) {
        fgl_graph_set one;
        fgl_graph_set_init(&one);
        FT_CHECK(fgl_graph_set_subset(s, &g, 1, &one, NULL) == FGL_OK, "subset");
        FT_NEAR(deg[g], 2.0 * fgl_graph_num_edges(&one.adj) / one.n_nodes, 1e-12, "mean degree");
        fgl_graph_set_free(&one);
    }
    free(deg);
    check_sorted_scenario(FGL_PART_TOPOLOGY_SKEW, 7);
    check_sorted_scenario(FGL_PART_FEATURE_SKEW, 5);
}

/* --- the scenario: label skew's edges, refusals ----------------------------------------- */

static void test_scenario(void) {
    fgl_split_config c = fgl_split_default();
    fgl_scenario sc, sc2;
    fgl_error err;
    int i, total = 0, edges = 0, same = 1;
    c.how = FGL_PART_LABEL_SKEW;
    c.clients = 6;
    FT_CHECK(fgl_scenario_make(&sc, &nodes, &c, &err) == FGL_OK, "%s", err.msg);
    FT_CHECK(fgl_scenario_make(&sc2, &nodes, &c, &err) == FGL_OK, "%s", err.msg);
    for (i = 0; i < sc.n_clients; i++) {
        total += sc.node[i].n_nodes;
        edges += fgl_graph_num_edges(&sc.node[i].adj);
        same &= sc.node[i].n_nodes == sc2.node[i].n_nodes &&
                !memcmp(sc.node[i].y, sc2.node[i].y, sizeof(int) * (size_t)sc.node[i].n_nodes);
        FT_CHECK(sc.node[i].n_nodes >= c.min_per_client, "client %d: %d nodes", i, sc.node[i].n_nodes);
    }
    FT_CHECK(same, "same seed, different label skew");
    FT_CHECK(total == nodes.node.n_nodes, "%d nodes of %d", total, nodes.node.n_nodes);
    FT_CHECK(edges + sc.edge_cut == fgl_graph_num_edges(&nodes.node.adj), "edges %d + cut %ld", edges, sc.edge_cut);
    fgl_scenario_free(&sc);
    fgl_scenario_free(&sc2);
    /* the graph task's label skew: every graph once */
    c.clients = 5;
    FT_CHECK(fgl_scenario_make(&sc, &graphs, &c, &err) == FGL_OK, "%s", err.msg);
    for (total = 0, i = 0; i < sc.n_clients; i++) total += sc.graphs[i].n_graphs;
    FT_CHECK(total == graphs.sets[0].n_graphs, "%d graphs of %d", total, graphs.sets[0].n_graphs);
    fgl_scenario_free(&sc);
    /* refusals */
    c.how = FGL_PART_TOPOLOGY_SKEW;
    FT_CHECK(fgl_scenario_make(&sc, &nodes, &c, &err) == FGL_ERR_ARG, "topology-skew of a node graph accepted");
    c.how = FGL_PART_LOUVAIN_PLUS;
    FT_CHECK(fgl_scenario_make(&sc, &graphs, &c, &err) == FGL_ERR_ARG, "louvain-plus of graphs accepted");
    c.how = FGL_PART_FEATURE_SKEW;
    c.clients = graphs.sets[0].n_graphs + 1;
    FT_CHECK(fgl_scenario_make(&sc, &graphs, &c, &err) == FGL_ERR_ARG, "more clients than graphs accepted");
    c.how = FGL_PART_METIS_PLUS;
    c.clients = 10;
    c.metis_parts = 8;
    FT_CHECK(fgl_scenario_make(&sc, &nodes, &c, &err) == FGL_ERR_ARG && strstr(err.msg, "METIS parts"),
             "8 METIS parts for 10 clients: %s", err.msg);
    c.how = FGL_PART_LOUVAIN_PLUS;
    c.clients = 2000;
    FT_CHECK(fgl_scenario_make(&sc, &nodes, &c, &err) == FGL_ERR_ARG && strstr(err.msg, "communities"),
             "2000 Louvain+ clients: %s", err.msg);
    c.clients = 4;
    c.resolution = -1;
    FT_CHECK(fgl_scenario_make(&sc, &nodes, &c, &err) == FGL_ERR_ARG, "resolution -1 accepted");
    c.how = FGL_PART_LABEL_SKEW;
    c.resolution = 1;
    c.alpha = 0.01;
    c.clients = 50;
    c.min_per_client = 55;
    FT_CHECK(fgl_scenario_make(&sc, &nodes, &c, &err) == FGL_ERR_ARG, "an unreachable label-skew minimum accepted");
    FT_CHECK(fgl_part_from_name("louvain-plus") == FGL_PART_LOUVAIN_PLUS &&
                 fgl_part_from_name("feature-skew") == FGL_PART_FEATURE_SKEW &&
                 !strcmp(fgl_part_name(FGL_PART_TOPOLOGY_SKEW), "topology-skew"),
             "names");
}

int main(void) {
    fgl_error err;
    if (fgl_dataset_load(&nodes, NULL, "synthetic", FGL_TASK_NODE, NULL, 5, &err) ||
        fgl_dataset_load(&graphs, NULL, "synthetic", FGL_TASK_GRAPH, NULL, 5, &err)) {
        printf("not ok - synthetic data: %s\n", err.msg);
        return 1;
    }
    FT_RUN(test_group_hand);
    FT_RUN(test_plus_splits);
    FT_RUN(test_louvain_resolution);
    FT_RUN(test_label_skew);
    FT_RUN(test_sorted);
    FT_RUN(test_graph_skews);
    FT_RUN(test_scenario);
    fgl_dataset_free(&nodes);
    fgl_dataset_free(&graphs);
    return ft_finish();
}
