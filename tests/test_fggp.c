/* Tests of FGGP (fggp):
 * - FINCH's final partition on hand-made points (one level, two levels with
 *   the last one-cluster step undone, one and two points);
 * - the second view: a graph united with the kNN graph of representations;
 * - the prototype alignment and the clustered-prototype contrastive losses
 *   against values worked out by hand, and their gradients by finite
 *   differences (fgl_gradcheck_ex);
 * - the prototype prediction (top-k vote) by hand;
 * - end to end on Cora (fgl's synthetic data where Cora is missing) over 5
 *   Louvain clients beside Local and FedAvg;
 * - the same bits on 1 and 2 threads (3 clients, 3 rounds);
 * - a run saved after 2 rounds and resumed ends as the uninterrupted one.
 * Every algorithm's resume is also in test_fed.c, the defences'
 * covered-or-refused check in tests/test_defences_cover.sh. */
#include "../fgl_fed.h"
#include "ft.h"
#include "ft_fed.h"
#include <math.h>

static fgl_dataset nodes;

#define NEAR(a, b) (fabs((double)(a) - (double)(b)) < 1e-5)

/* Unit vectors at the given angles (degrees). */
static void at_angles(const double *deg, int n, float *X) {
    int i;
    for (i = 0; i < n; i++) {
        X[2 * i] = (float)cos(deg[i] * 3.14159265358979 / 180);
        X[2 * i + 1] = (float)sin(deg[i] * 3.14159265358979 / 180);
    }
}

static void test_finch_by_hand(void) {
    /* pairs at 0/2, 10/12, 80/82, 90/92 degrees: level 1 the four pairs, level 2
     * {0..3} and {4..7}, level 3 one cluster, undone: two clusters */
    const double eight[8] = {0, 2, 10, 12, 80, 82, 90, 92}, four[4] = {0, 3, 60, 61}, two[2] = {0, 90};
    float X[16];
    int lab[8], k = -1, rc, i, ok = 1;
    at_angles(eight, 8, X);
    rc = fgl__finch(X, 8, 2, lab, &k);
    for (i = 0; i < 8; i++) ok &= lab[i] == (i < 4 ? 0 : 1);
    FT_CHECK(rc == FGL_OK && k == 2 && ok, "eight points: %d clusters, labels %d %d %d %d %d %d %d %d", k, lab[0],
             lab[1], lab[2], lab[3], lab[4], lab[5], lab[6], lab[7]);
    /* 0/3 and 60/61: level 1 two pairs, level 2 one cluster, undone: the pairs */
    at_angles(four, 4, X);
    rc = fgl__finch(X, 4, 2, lab, &k);
    FT_CHECK(rc == FGL_OK && k == 2 && lab[0] == 0 && lab[1] == 0 && lab[2] == 1 && lab[3] == 1,
             "four points: %d clusters, labels %d %d %d %d", k, lab[0], lab[1], lab[2], lab[3]);
    /* two points are each other's first neighbour: one cluster (the first partition is kept) */
    at_angles(two, 2, X);
    rc = fgl__finch(X, 2, 2, lab, &k);
    FT_CHECK(rc == FGL_OK && k == 1 && lab[0] == 0 && lab[1] == 0, "two points: %d clusters", k);
    rc = fgl__finch(X, 1, 2, lab, &k);
    FT_CHECK(rc == FGL_OK && k == 1 && lab[0] == 0, "one point: %d clusters", k);
    /* cosine, not Euclidean: a long and a short vector along one direction belong together */
    {
        const float Y[8] = {10, 0, 0.1f, 0.001f, 0, 1, 0.01f, 5};
        rc = fgl__finch(Y, 4, 2, lab, &k);
        FT_CHECK(rc == FGL_OK && k == 2 && lab[0] == lab[1] && lab[2] == lab[3] && lab[0] != lab[2],
                 "cosine distance: %d clusters, labels %d %d %d %d", k, lab[0], lab[1], lab[2], lab[3]);
    }
}

/* Path 0 - 1; representations (1, 0), (0, 1), (1, .1), (.1, 1): with k = 1
 * node 0's nearest by cosine is 2, 1's is 3 (and back): edges 0-1, 0-2, 1-3. */
static void test_knn_union_by_hand(void) {
    int indptr[5] = {0, 1, 2, 2, 2}, indices[2] = {1, 0};
    const float Z[8] = {1, 0, 0, 1, 1, 0.1f, 0.1f, 1};
    fgl_csr adj, out;
    fgl_error err;
    int rc;
    memset(&adj, 0, sizeof adj);
    memset(&out, 0, sizeof out);
    adj.rows = adj.cols = 4;
    adj.nnz = 2;
    adj.indptr = indptr;
    adj.indices = indices;
    rc = fgl__fggp_knn_union(&adj, Z, 4, 2, 1, &out, &err);
    FT_CHECK(rc == FGL_OK && out.nnz == 6, "knn union: %s, %d entries", rc ? err.msg : "ok", out.nnz);
    if (rc == FGL_OK && out.nnz == 6) {
        FT_CHECK(out.indptr[1] == 2 && out.indices[0] == 1 && out.indices[1] == 2 && out.indptr[2] == 4 &&
                     out.indices[2] == 0 && out.indices[3] == 3 && out.indices[4] == 0 && out.indices[5] == 1,
                 "knn union: rows 0: %d %d, 1: %d %d, 2: %d, 3: %d", out.indices[0], out.indices[1], out.indices[2],
                 out.indices[3], out.indices[4], out.indices[5]);
        FT_CHECK(fgl_csr_validate(&out, &err) == FGL_OK, "knn union: %s", err.msg);
    }
    fgl_csr_free(&out);
    rc = fgl__fggp_knn_union(&adj, Z, 4, 2, 0, &out, &err); /* k = 0: the graph itself */
    FT_CHECK(rc == FGL_OK && out.nnz == 2, "k = 0: %d entries", out.nnz);
    fgl_csr_free(&out);
}

/* The alignment: view 2 = [[1, 0], [0, 1]], view 1 = [[1, 0], [1, 1]], tau
 * .5. Unit rows F = I, A = [[1, 0], [r, r]], r = 1/sqrt 2. Class 0: positive
 * <F0, A0>/tau = 2, negatives <F0, A1>/tau = 2r, <F0, F1>/tau = 0. Class 1:
 * positive 2r, negatives <F1, A0>/tau = 0, <F1, F0>/tau = 0. */
static void test_align_loss_by_hand(void) {
    const float v2[4] = {1, 0, 0, 1}, v1[4] = {1, 0, 1, 1};
    double r2 = 2 / sqrt(2.0), want = (-log(exp(2) / (exp(2) + exp(r2) + 1)) - log(exp(r2) / (exp(r2) + 2))) / 2;
    fgl_tape t;
    fgl_node *l;
    fgl_tape_init(&t);
    l = fgl__fggp_align_loss(&t, fgl_op_const(&t, v2, 2, 2), fgl_op_const(&t, v1, 2, 2), 0.5f);
    FT_CHECK(l && NEAR(l->val[0], want), "alignment loss %g, by hand %g", l ? l->val[0] : -1, want);
    fgl_tape_free(&t);
}

/* The clustered-prototype term: prototypes (1, 0) and (1, 1) of class 0, (0, 1)
 * of class 1; tau 1. Row (1, 0) of class 0: s = (1, 1/sqrt 2, 0) over (G0, G2,
 * G1) in the prototypes' order (1, 0, r): -log (e + e^r) / (e + 1 + e^r).
 * Row (0, 2) of class 1: s = (0, 1, r): -log e / (1 + e + e^r). Row (3, 3) of
 * class 2 has no prototype: left out of the mean. */
static void test_cluster_loss_by_hand(void) {
    const float Z[6] = {1, 0, 0, 2, 3, 3}, G[6] = {1, 0, 0, 1, 1, 1};
    const int y[3] = {0, 1, 2}, gl[3] = {0, 1, 0};
    double r = 1 / sqrt(2.0), e = exp(1.0), want = (-log((e + exp(r)) / (e + 1 + exp(r))) - log(e / (1 + e + exp(r)))) / 2;
    fgl_tape t;
    fgl_node *l;
    fgl_tape_init(&t);
    l = fgl__fggp_cluster_loss(&t, fgl_op_const(&t, Z, 3, 2), y, G, gl, 3, 1.0f);
    FT_CHECK(l && NEAR(l->val[0], want), "cluster loss %g, by hand %g", l ? l->val[0] : -1, want);
    /* a tiny temperature: the positives far below the negatives stay finite (no log 0) */
    fgl_tape_reset(&t);
    {
        const float Zn[2] = {0, 1};
        const int y1[1] = {0};
        l = fgl__fggp_cluster_loss(&t, fgl_op_const(&t, Zn, 1, 2), y1, G, gl, 3, 0.001f);
        /* s = (0, 1000, 707.1): -log (e^0 + e^707.1) / (e^0 + e^1000 + e^707.1) = 1000 - 707.1.. */
        FT_CHECK(l && isfinite(l->val[0]) && fabs(l->val[0] - (1000 - 1000 * r)) < 0.1,
                 "tau .001: loss %g, by hand %g", l ? l->val[0] : -1, 1000 - 1000 * r);
    }
    fgl_tape_reset(&t);
    { /* no row with a prototype of its class: no term */
        const int y2[1] = {2};
        FT_CHECK(!fgl__fggp_cluster_loss(&t, fgl_op_const(&t, Z, 1, 2), y2, G, gl, 3, 1.0f), "no positive: no term");
    }
    fgl_tape_free(&t);
}

/* Gradients of both terms by finite differences, in the representations. */
static fgl_node *b_align(fgl_tape *t, fgl_params *ps, void *ud) {
    (void)ud;
    return fgl__fggp_align_loss(t, fgl_op_param(t, ps, 0), fgl_op_param(t, ps, 1), 0.5f);
}

static fgl_node *b_cluster(fgl_tape *t, fgl_params *ps, void *ud) {
    static const float G[12] = {1, 0, .5f, 0, 1, -.5f, 1, 1, 0, -1, .2f, .3f};
    static const int y[4] = {0, 1, 2, 0}, gl[4] = {0, 1, 0, 2};
    (void)ud;
    return fgl__fggp_cluster_loss(t, fgl_op_param(t, ps, 0), y, G, gl, 4, 0.3f);
}

static void test_gradients(void) {
    fgl_params ps;
    fgl_gradcheck_report rep;
    fgl_rng r;
    size_t k;
    int rc;
    fgl_rng_init(&r, 7, 1);
    fgl_params_init(&ps);
    fgl_params_add(&ps, "p2", 3, 4, FGL_G_OTHER, 1);
    fgl_params_add(&ps, "p1", 3, 4, FGL_G_OTHER, 1);
    for (k = 0; k < ps.size; k++) ps.data[k] = (float)(2 * fgl_rng_uniform(&r) - 1);
    rc = fgl_gradcheck_ex(&ps, b_align, NULL, 0, 0, &rep);
    FT_CHECK(rc == FGL_OK && rep.worst <= 1, "alignment gradient: %s, worst %.3g of tol", rep.msg, rep.worst);
    fgl_params_free(&ps);
    fgl_params_init(&ps);
    fgl_params_add(&ps, "z", 4, 3, FGL_G_OTHER, 1);
    for (k = 0; k < ps.size; k++) ps.data[k] = (float)(2 * fgl_rng_uniform(&r) - 1);
    rc = fgl_gradcheck_ex(&ps, b_cluster, NULL, 0, 0, &rep);
    FT_CHECK(rc == FGL_OK && rep.worst <= 1, "cluster-term gradient: %s, worst %.3g of tol", rep.msg, rep.worst);
    fgl_params_free(&ps);
}

/* The vote: node (1, 0) against prototypes (1, 0) class 0, (0, 1) class 1,
 * (1, 1) class 0; similarities 1, 0, r. k = 2: the two of class 0 only;
 * k = 3, T = .1: class 1 gets e^-10 / (1 + e^-10 + e^(10 (r - 1))). */
static void test_prediction_by_hand(void) {
    const float Z[2] = {1, 0}, G[6] = {1, 0, 0, 1, 1, 1};
    const int gl[3] = {0, 1, 0};
    float sc[2];
    double r = 1 / sqrt(2.0), den = 1 + exp(-10.0) + exp(10 * (r - 1));
    fgl__fggp_knn_scores(Z, 1, 2, G, gl, 3, 2, 2, 0.1f, sc);
    FT_CHECK(NEAR(sc[0], 1) && sc[1] == 0, "k = 2: scores %g %g", sc[0], sc[1]);
    fgl__fggp_knn_scores(Z, 1, 2, G, gl, 3, 2, 3, 0.1f, sc);
    FT_CHECK(NEAR(sc[0], (1 + exp(10 * (r - 1))) / den) && NEAR(sc[1], exp(-10.0) / den), "k = 3: scores %g %g", sc[0],
             sc[1]);
}

/* Seen by ft_end_to_end's inspect: FGGP's clustered prototypes. */
static int e2e_protos = -1;
static void e2e_inspect(int a, const fgl_run *run, void *ud) {
    char buf[256] = "";
    const char *p;
    (void)ud;
    if (a != 2) return;
    fgl_run_report(run, buf, sizeof buf);
    if ((p = strstr(buf, "\"prototypes\": "))) e2e_protos = atoi(p + 14);
}

/* Cora, 7 classes (chance 14%), 5 Louvain clients, GCN, 15 rounds of 3
 * local epochs (as test_fedgta). The bar is the one the other end-to-end tests hold baselines
 * to (0.40), the three printed side by side; FGGP must have clustered
 * prototypes (more than one per class on average is not required: with 5
 * clients FINCH often keeps one). */
static void test_end_to_end(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    ft_e2e_algo algos[3] = {{"local", 0, NULL, 0}, {"fedavg", 0, NULL, 0}, {"fggp", 0, NULL, 0}};
    fgl_run_summary s[3];
    int a;
    if (!ft_clients(&nodes, 5, FGL_PART_LOUVAIN, FGL_ARCH_GCN, 0, &sc, cd)) return;
    cfg.local_epochs = 3;
    cfg.threads = 2;
    if (getenv("FGL_TEST_SEED")) cfg.seed = (uint64_t)atoi(getenv("FGL_TEST_SEED"));
    for (a = 0; a < 3; a++) algos[a].rounds = ft_quick() ? 4 : 15;
    if (ft_end_to_end(nodes.label, algos, 3, &cfg, cd, 5, 0.40, s, e2e_inspect, NULL) == 3) {
        printf("#   %s: fggp sends %d clustered prototypes\n", nodes.label, e2e_protos);
        FT_CHECK(e2e_protos >= nodes.node.n_classes / 2, "fggp: %d clustered prototypes for %d classes", e2e_protos,
                 nodes.node.n_classes);
    }
    fgl_scenario_free(&sc);
}

/* 3 clients, 3 rounds of 2 local epochs: the same history and models on 1
 * and 2 threads. */
static void test_threads(void) {
    fgl_scenario sc;
    fgl_client_data cd[3];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE), c1;
    fgl_run a, b;
    if (!ft_clients(&nodes, 3, FGL_PART_LOUVAIN, FGL_ARCH_GCN, 0, &sc, cd)) return;
    cfg.local_epochs = 2;
    cfg.threads = 2;
    c1 = cfg;
    c1.threads = 1;
    if (ft_run_rounds(&a, &cfg, "fggp", cd, 3, 3, NULL)) {
        if (ft_run_rounds(&b, &c1, "fggp", cd, 3, 3, NULL)) {
            FT_CHECK(ft_same_history(&a, &b) && ft_same_models(&a, &b), "fggp: 1 and 2 threads differ");
            fgl_run_free(&b);
        }
        fgl_run_free(&a);
    }
    fgl_scenario_free(&sc);
}

/* 2 rounds, save, load into a fresh run, 2 more: the bits of 4 straight. */
static void test_resume(void) {
    fgl_scenario sc;
    fgl_client_data cd[3];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run full, part, resumed;
    fgl_error err;
    char path[] = "test_fggp_resume.ckpt", why[128] = "";
    int r, ok;
    if (!ft_clients(&nodes, 3, FGL_PART_LOUVAIN, FGL_ARCH_GCN, 0, &sc, cd)) return;
    cfg.rounds = 4;
    cfg.local_epochs = 2;
    if (ft_run_rounds(&full, &cfg, "fggp", cd, 3, 4, NULL)) {
        if (ft_run_rounds(&part, &cfg, "fggp", cd, 3, 2, NULL)) {
            ok = fgl_run_save(&part, path, &err) == FGL_OK;
            FT_CHECK(ok, "save: %s", err.msg);
            fgl_run_free(&part);
            if (ok && ft_run_rounds(&resumed, &cfg, "fggp", cd, 3, 0, NULL)) {
                ok = fgl_run_load(&resumed, path, &err) == FGL_OK;
                FT_CHECK(ok, "load: %s", err.msg);
                for (r = resumed.round; ok && r < cfg.rounds; r++) ok = fgl_run_round(&resumed) == FGL_OK;
                FT_CHECK(ok, "resumed rounds: %s", resumed.err.msg);
                FT_CHECK(!ok || ft_same_run(&full, &resumed, why, sizeof why), "resumed run differs: %s", why);
                fgl_run_free(&resumed);
            }
            remove(path);
        }
        fgl_run_free(&full);
    }
    fgl_scenario_free(&sc);
}

int main(void) {
    int real = ft_node_data(&nodes);
    printf("# data: %s (%s)\n", nodes.label, real ? "real" : "synthetic");
    FT_RUN(test_finch_by_hand);
    FT_RUN(test_knn_union_by_hand);
    FT_RUN(test_align_loss_by_hand);
    FT_RUN(test_cluster_loss_by_hand);
    FT_RUN(test_gradients);
    FT_RUN(test_prediction_by_hand);
    FT_RUN(test_end_to_end);
    FT_RUN(test_threads);
    FT_RUN(test_resume);
    fgl_dataset_free(&nodes);
    return ft_finish();
}
