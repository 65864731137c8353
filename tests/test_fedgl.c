/* Tests of FedGL (fedgl):
 * - the server's fusion of per-node predictions and embeddings by hand (two
 *   clients holding one node, the threshold, ties, a node without a label);
 * - the pseudo-graph by hand (kNN of positive dot products, ties to the
 *   lowest index, the symmetric normalisation with the degrees of
 *   I + (Z + Z^T) / 2);
 * - a client's GCN matrix with the pseudo-graph added, against the dense
 *   sum, symmetric;
 * - lambda = 0 and pgraph = 0: FedAvg's history and models, bit for bit;
 * - DP, secure aggregation and a robust rule refused at the start; a model
 *   that does not read the GCN matrix refused with the pseudo-graph on, and
 *   run with it off;
 * - node ids: over clients with a halo, a halo row's pseudo-label is its
 *   owner's;
 * - a run saved after 2 rounds and resumed ends as the uninterrupted one;
 * - end to end on fgl's synthetic node data over 5 Louvain clients beside
 *   Local and FedAvg, the same bits on 1 and 2 threads. */
#include "../fgl_fed.h"
#include "ft.h"
#include "ft_fed.h"
#include <math.h>
#include <time.h>

#define NEAR(a, b) (fabs((double)(a) - (double)(b)) < 1e-6)

static fgl_dataset synth;

/* Two classes. Node 0 held by two clients (weights 1 and 3): p = (.75, .25)
 * and (.2, .8); node 1 by one (weight 2): p = (.4, .6); node 2 by one:
 * p = (.5, .5). tau .5: P_0 = (.75, 3 x .8) -> 1; P_1 = (0, 1.2) -> 1;
 * P_2 = (.5, .5), a tie -> 0. tau .7: node 1 and 2 have none. Embeddings
 * (one column) 1, 5, 2, -1: E = (1 + 15) / 4, 2, -1. */
static void test_fuse_by_hand(void) {
    const int node[4] = {0, 0, 1, 2};
    const double w[4] = {1, 3, 2, 1};
    float logits[8], emb[4] = {1, 5, 2, -1}, fused[3];
    int label[3];
    logits[0] = (float)log(3.0), logits[1] = 0;
    logits[2] = 0, logits[3] = (float)log(4.0);
    logits[4] = 0, logits[5] = (float)log(1.5);
    logits[6] = 0.25f, logits[7] = 0.25f;
    fgl__gl_fuse(3, 2, 1, 4, node, w, logits, emb, 0.5, label, fused);
    FT_CHECK(label[0] == 1 && label[1] == 1 && label[2] == 0, "tau .5: labels %d %d %d", label[0], label[1], label[2]);
    FT_CHECK(NEAR(fused[0], 4) && NEAR(fused[1], 2) && NEAR(fused[2], -1), "embeddings %g %g %g", fused[0], fused[1],
             fused[2]);
    fgl__gl_fuse(3, 2, 1, 4, node, w, logits, emb, 0.7, label, fused);
    FT_CHECK(label[0] == 1 && label[1] == -1 && label[2] == -1, "tau .7: labels %d %d %d", label[0], label[1], label[2]);
    /* node 0's second holder alone below .7 in both classes: the first holder's class */
    logits[2] = 0, logits[3] = (float)log(1.5);
    fgl__gl_fuse(3, 2, 1, 4, node, w, logits, emb, 0.7, label, fused);
    FT_CHECK(label[0] == 0, "tau .7, node 0: label %d, not the first holder's 0", label[0]);
}

/* a = (1, 0), b = (1, 1), c = (0, 1), d = (-1, 0): S_ab = S_bc = 1, S_ac = 0,
 * d's dot products <= 0 (no neighbour, nobody's). k = 1: a -> b, b -> a
 * (tie with c: the lower index), c -> b. Degrees of I + (Z + Z^T) / 2:
 * a 1 + (1 + 1) / 2 = 2, b 1 + (1 + 2) / 2 = 2.5, c 1 + (1 + 0) / 2 = 1.5,
 * d 1. k = 2: b -> a, c with Z .5 each. */
static void test_graph_by_hand(void) {
    const float E[8] = {1, 0, 1, 1, 0, 1, -1, 0};
    int nbr[8];
    float val[8], self[4];
    int rc = fgl__gl_graph(4, 2, E, 1, nbr, val, self);
    FT_CHECK(rc == FGL_OK && nbr[0] == 1 && nbr[1] == 0 && nbr[2] == 1 && nbr[3] == -1, "k 1: neighbours %d %d %d %d",
             nbr[0], nbr[1], nbr[2], nbr[3]);
    FT_CHECK(NEAR(self[0], 0.5) && NEAR(self[1], 0.4) && NEAR(self[2], 1 / 1.5) && NEAR(self[3], 1), "k 1: diagonal "
             "%g %g %g %g", self[0], self[1], self[2], self[3]);
    FT_CHECK(NEAR(val[0], 0.5 / sqrt(5.0)) && NEAR(val[1], 0.5 / sqrt(5.0)) && NEAR(val[2], 0.5 / sqrt(3.75)) &&
                 val[3] == 0,
             "k 1: values %g %g %g %g", val[0], val[1], val[2], val[3]);
    rc = fgl__gl_graph(4, 2, E, 2, nbr, val, self);
    /* b: Z .5 to a and c; a: 1 to b; c: 1 to b. d_a = 1 + (1 + .5) / 2, d_b = 1 + (1 + 2) / 2, d_c = d_a */
    FT_CHECK(rc == FGL_OK && nbr[0] == 1 && nbr[1] == -1 && nbr[2] == 0 && nbr[3] == 2 && nbr[4] == 1 && nbr[6] == -1,
             "k 2: neighbours %d %d / %d %d / %d %d / %d", nbr[0], nbr[1], nbr[2], nbr[3], nbr[4], nbr[5], nbr[6]);
    FT_CHECK(NEAR(self[0], 1 / 1.75) && NEAR(self[1], 0.4) && NEAR(val[2], 0.25 / sqrt(1.75 * 2.5)) &&
                 NEAR(val[0], 0.5 / sqrt(1.75 * 2.5)),
             "k 2: diagonal %g %g, values %g %g", self[0], self[1], val[0], val[2]);
}

/* gcn: rows 0, 1 a block of .5, row 2 alone (1); the pseudo-graph: 0 -> 2
 * (.1), 2 -> 0 (.2), diagonal (.3, 0, .4); mu 2: (0, 2) and (2, 0) gain
 * 2 (.1 + .2), (0, 0) .6, (2, 2) .8. */
static void test_augment_by_hand(void) {
    int ip[4] = {0, 2, 4, 5}, ix[5] = {0, 1, 0, 1, 2};
    float gv[5] = {0.5f, 0.5f, 0.5f, 0.5f, 1}, idx[3] = {2, -1, 0}, val[3] = {0.1f, 0, 0.2f}, self[3] = {0.3f, 0, 0.4f};
    const double want[9] = {1.1, 0.5, 0.6, 0.5, 0.5, 0, 0.6, 0, 1.8};
    double got[9] = {0};
    fgl_csr g, out;
    fgl_error err;
    int r, q, ok = 1;
    g.rows = g.cols = 3;
    g.nnz = 5;
    g.indptr = ip;
    g.indices = ix;
    g.values = gv;
    memset(&out, 0, sizeof out);
    FT_CHECK(fgl__gl_augment(&g, 1, idx, val, self, 2.0f, &out, &err) == FGL_OK, "augment: %s", err.msg);
    for (r = 0; r < out.rows; r++)
        for (q = out.indptr[r]; q < out.indptr[r + 1]; q++) got[r * 3 + out.indices[q]] += out.values[q];
    for (r = 0; r < 9; r++) ok &= NEAR(got[r], want[r]);
    FT_CHECK(ok && out.nnz == 7, "augmented: %d entries, %g %g %g / %g %g %g / %g %g %g", out.nnz, got[0], got[1],
             got[2], got[3], got[4], got[5], got[6], got[7], got[8]);
    fgl_csr_free(&out);
}

static int synth_clients(int k, int how, int arch, fgl_scenario *sc, fgl_client_data *cd) {
    return ft_clients(&synth, k, how, arch, 32, sc, cd);
}

/* Both parts off: nothing but FedAvg travels or trains. */
static void test_off_is_fedavg(void) {
    static const char *const off[] = {"lambda", "0", "pgraph", "0", NULL};
    fgl_scenario sc;
    fgl_client_data cd[3];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run a, b;
    if (!synth_clients(3, FGL_PART_LOUVAIN, FGL_ARCH_GCN, &sc, cd)) return;
    cfg.local_epochs = 2;
    if (ft_run_rounds(&a, &cfg, "fedgl", cd, 3, 3, off)) {
        if (ft_run_rounds(&b, &cfg, "fedavg", cd, 3, 3, NULL)) {
            FT_CHECK(ft_same_history(&a, &b) && ft_same_models(&a, &b), "fedgl lambda=0 pgraph=0 differs from fedavg");
            fgl_run_free(&b);
        }
        fgl_run_free(&a);
    }
    fgl_scenario_free(&sc);
}

static void test_refusals(void) {
    fgl_scenario sc;
    fgl_client_data cd[3];
    const char *what[3] = {"differential privacy", "secure aggregation", "robust aggregation"};
    int i;
    if (!synth_clients(3, FGL_PART_LOUVAIN, FGL_ARCH_GCN, &sc, cd)) return;
    for (i = 0; i < 3; i++) {
        fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
        fgl_run run;
        fgl_error err;
        int rc;
        if (i == 0) cfg.dp.clip = 1, cfg.dp.noise = 1;
        if (i == 1) cfg.secagg.on = 1;
        if (i == 2) cfg.robust.rule = FGL_ROBUST_MEDIAN;
        rc = fgl_run_init(&run, &cfg, fgl_algo_find("fedgl"), cd, 3, &err);
        FT_CHECK(rc != FGL_OK && strstr(err.msg, what[i]) && (strstr(err.msg, "logits") || strstr(err.msg, "exactly")),
                 "%s: not refused as it should be (%s)", what[i], rc ? err.msg : "accepted");
        if (rc == FGL_OK) fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
    /* SAGE does not read the GCN matrix: refused with the pseudo-graph, run without it */
    if (!synth_clients(3, FGL_PART_LOUVAIN, FGL_ARCH_SAGE, &sc, cd)) return;
    {
        static const char *const off[] = {"pgraph", "0", NULL};
        fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
        fgl_run run;
        fgl_error err;
        int rc = fgl_run_init(&run, &cfg, fgl_algo_find("fedgl"), cd, 3, &err);
        const char *msg = err.msg;
        if (rc == FGL_OK) { /* refused when its clients start */
            rc = fgl_run_round(&run);
            msg = run.err.msg;
        }
        FT_CHECK(rc != FGL_OK && strstr(msg, "pgraph=0"), "sage with the pseudo-graph: %s", rc ? msg : "ran");
        if (rc == FGL_OK || msg == run.err.msg) fgl_run_free(&run);
        if (ft_run_rounds(&run, &cfg, "fedgl", cd, 3, 2, off)) fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

/* Clients with a one-hop halo: after 2 rounds every halo row holds its
 * owner's pseudo-label (node ids fused), and some rows have one. */
static void test_halo_ids(void) {
    static const char *const low[] = {"tau", "0", "k", "5", NULL};
    fgl_scenario sc;
    fgl_client_data cd[3];
    fgl_split_config split = fgl_split_default();
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 1, 1);
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_error err;
    fgl_run run;
    int i, j, r, q, halo = 0, same = 0, labelled = 0;
    split.how = FGL_PART_LOUVAIN;
    split.clients = 3;
    split.halo = 1;
    spec.hidden = 16;
    if (fgl_scenario_make(&sc, &synth, &split, &err) || fgl_scenario_clients(&sc, &spec, cd, 3, &err)) {
        FT_CHECK(0, "halo clients: %s", err.msg);
        return;
    }
    if (ft_run_rounds(&run, &cfg, "fedgl", cd, 3, 2, low)) {
        for (i = 0; i < 3; i++) {
            const fgl_node_data *d = run.clients[i].data.node;
            const float *pl = fgl_floats(&run.clients[i].store, "pl");
            for (r = 0; r < d->n_nodes; r++) {
                labelled += pl[r] >= 0;
                if (r < d->n_own) continue;
                halo++;
                for (j = 0; j < 3; j++) { /* the owner's row of this node */
                    const fgl_node_data *o = run.clients[j].data.node;
                    for (q = 0; j != i && q < o->n_own; q++)
                        if (o->gid[q] == d->gid[r]) same += fgl_floats(&run.clients[j].store, "pl")[q] == pl[r];
                }
            }
        }
        FT_CHECK(halo > 0 && same == halo && labelled > 0, "halo rows: %d, %d with their owner's label; %d labelled",
                 halo, same, labelled);
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

/* 4 rounds straight, or 2, saved, loaded into a fresh run, and 2 more. */
static void test_resume(void) {
    static const char *const sets[] = {"k", "10", "update", "2", NULL};
    fgl_scenario sc;
    fgl_client_data cd[3];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run full, part, res;
    fgl_error err;
    char path[256], why[128] = "";
    int r, ok;
    if (!synth_clients(3, FGL_PART_LOUVAIN, FGL_ARCH_GCN, &sc, cd)) return;
    snprintf(path, sizeof path, "/tmp/fgl_test_fedgl_%lx_%lx.bin", (unsigned long)time(NULL), (unsigned long)(uintptr_t)cd);
    cfg.rounds = 5;
    cfg.local_epochs = 2;
    if (ft_run_rounds(&full, &cfg, "fedgl", cd, 3, 5, sets)) {
        if (ft_run_rounds(&part, &cfg, "fedgl", cd, 3, 3, sets)) {
            ok = fgl_run_save(&part, path, &err) == FGL_OK;
            FT_CHECK(ok, "save: %s", err.msg);
            fgl_run_free(&part);
            if (ok && ft_run_rounds(&res, &cfg, "fedgl", cd, 3, 0, sets)) {
                ok = fgl_run_load(&res, path, &err) == FGL_OK;
                FT_CHECK(ok, "load: %s", err.msg);
                for (r = res.round; ok && r < 5; r++) ok = fgl_run_round(&res) == FGL_OK;
                FT_CHECK(ok, "resumed rounds: %s", res.err.msg);
                FT_CHECK(!ok || ft_same_run(&full, &res, why, sizeof why), "resumed run differs: %s", why);
                {
                    char ra[512] = "", rb[512] = "";
                    fgl_run_report(&full, ra, sizeof ra);
                    fgl_run_report(&res, rb, sizeof rb);
                    FT_CHECK(strstr(ra, "\"updates\": 3") && !strcmp(ra, rb), "report: %s / %s", ra, rb);
                }
                fgl_run_free(&res);
            }
            remove(path);
        }
        fgl_run_free(&full);
    }
    fgl_scenario_free(&sc);
}

/* Seen by ft_end_to_end's inspect: FedGL's share of pseudo-labelled rows. */
static double e2e_labelled = -1;
static void e2e_inspect(int a, const fgl_run *run, void *ud) {
    char buf[256] = "";
    const char *p;
    (void)ud;
    if (a != 2) return;
    fgl_run_report(run, buf, sizeof buf);
    if ((p = strstr(buf, "\"pseudo_labelled\": "))) e2e_labelled = atof(p + 19);
}

/* fgl's synthetic node data (7 classes, chance 14%), 5 Louvain clients, GCN
 * hidden 32, 10 rounds of 3 local epochs, FedGL with k 10 (the test's
 * 1,200 nodes). The bar the other end-to-end tests hold every algorithm to
 * (0.40), and some rows pseudo-labelled. */
static void test_end_to_end(void) {
    static const char *const small[] = {"k", "10", NULL};
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    ft_e2e_algo algos[3] = {{"local", 10, NULL, 0}, {"fedavg", 10, NULL, 0}, {"fedgl", 10, small, 1}};
    fgl_run_summary s[3];
    if (!synth_clients(5, FGL_PART_LOUVAIN, FGL_ARCH_GCN, &sc, cd)) return;
    cfg.local_epochs = 3;
    cfg.threads = 2;
    if (getenv("FGL_TEST_SEED")) cfg.seed = (uint64_t)atoi(getenv("FGL_TEST_SEED"));
    if (ft_end_to_end("synthetic", algos, 3, &cfg, cd, 5, 0.40, s, e2e_inspect, NULL) == 3) {
        printf("#   synthetic: fedgl pseudo-labelled %.1f%% of the rows at its last update\n", 100 * e2e_labelled);
        FT_CHECK(e2e_labelled > 0, "fedgl: no pseudo-label (report %g)", e2e_labelled);
    }
    fgl_scenario_free(&sc);
}

int main(void) {
    fgl_synth_node_config c = fgl_synth_node_default();
    fgl_error e;
    memset(&synth, 0, sizeof synth);
    synth.task = FGL_TASK_NODE;
    snprintf(synth.label, sizeof synth.label, "synthetic");
    c.n_nodes = 1200;
    if (fgl_synth_node(&c, 1, &synth.node, NULL, &e)) printf("#   synthetic node data: %s\n", e.msg);
    FT_RUN(test_fuse_by_hand);
    FT_RUN(test_graph_by_hand);
    FT_RUN(test_augment_by_hand);
    FT_RUN(test_off_is_fedavg);
    FT_RUN(test_refusals);
    FT_RUN(test_halo_ids);
    FT_RUN(test_resume);
    FT_RUN(test_end_to_end);
    fgl_dataset_free(&synth);
    return ft_finish();
}
