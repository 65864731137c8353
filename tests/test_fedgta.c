/* Tests of FedGTA (fedgta):
 * - the client's statistics on a two-node graph against values worked out
 *   by hand: the label propagation, the raw and central moments (a padding
 *   column zero), the smoothing confidence;
 * - the server's weights on three moment vectors against hand values:
 *   cosine above the threshold selects, confidences weigh, equal weights
 *   under a robust rule, an absent client in no row;
 * - threshold 1 (every row the client alone) is Local, bit for bit;
 * - end to end on Cora (fgl's synthetic data where Cora is missing) over 5
 *   Louvain clients beside Local and FedAvg, with thread-count determinism.
 * Resuming (every algorithm) is in test_fed.c, the link refusal in
 * test_link.c, the defences' covered-or-refused check in
 * tests/test_defences_cover.sh. */
#include "../fgl_fed.h"
#include "ft.h"
#include "ft_fed.h"
#include <math.h>

static fgl_dataset nodes;

#define NEAR(a, b) (fabs((double)(a) - (double)(b)) < 1e-6)

/* Nodes 0 - 1, C = 2; node 0 trains with label 0, node 1 predicts logits
 * (0, 0). A_hat = D^-1/2 (A + I) D^-1/2 = [[.5, .5], [.5, .5]]; F0 =
 * [[1, 0], [.5, .5]]; one step (alpha .5): A_hat F0 = [.75, .25] in both
 * rows, F = .5 A_hat F0 + .5 F0 = [[.875, .125], [.625, .375]], and the
 * training row gets F0 again: [1.875, .125]. P: row 0 one-hot, row 1
 * softmax(.625, .375) = (s, 1 - s), s = 1 / (1 + e^-.25). Q: row 0 one-hot,
 * row 1 (q, 1 - q), q = 1 / (1 + e^-(.25/T)). Both degrees 1:
 * conf = 2 (2/e) + log(1 + 1e-8) + q log(q + 1e-8) + (1-q) log(1-q + 1e-8).
 * Moments over both rows: raw p: ((1 + s^p) / 2, (1 - s)^p / 2); central 1: 0;
 * central 2: (1 - s)^2 / 4 in both classes. */
static void test_stats_by_hand(void) {
    int indptr[3] = {0, 1, 2}, indices[2] = {1, 0}, y[2] = {0, -1};
    unsigned char train[2] = {1, 0};
    float logits[4] = {3.0f, -1.0f, 0.0f, 0.0f}; /* row 0's are not read: it trains */
    float raw[2 * 3], central[2 * 3];
    fgl_csr adj;
    double conf = -1, T = 20, s = 1 / (1 + exp(-0.25)), q = 1 / (1 + exp(-0.25 / T)), want;
    int rc;
    memset(&adj, 0, sizeof adj);
    adj.rows = adj.cols = 2;
    adj.nnz = 2;
    adj.indptr = indptr;
    adj.indices = indices;
    rc = fgl__gta_stats(&adj, 2, logits, 2, y, train, 1, 0.5, T, 2, 3, raw, central, &conf);
    FT_CHECK(rc == FGL_OK, "stats: %s", fgl_result_name(rc));
    want = 4 * exp(-1.0) + log(1 + 1e-8) + q * log(q + 1e-8) + (1 - q) * log(1 - q + 1e-8);
    FT_CHECK(NEAR(conf, want), "confidence %.9f, by hand %.9f", conf, want);
    FT_CHECK(NEAR(raw[0], (1 + s) / 2) && NEAR(raw[1], (1 - s) / 2) && raw[2] == 0, "raw moments of order 1: %g %g %g",
             raw[0], raw[1], raw[2]);
    FT_CHECK(NEAR(raw[3], (1 + s * s) / 2) && NEAR(raw[4], (1 - s) * (1 - s) / 2) && raw[5] == 0,
             "raw moments of order 2: %g %g %g", raw[3], raw[4], raw[5]);
    FT_CHECK(NEAR(central[0], 0) && NEAR(central[1], 0) && central[2] == 0, "central moments of order 1: %g %g %g",
             central[0], central[1], central[2]);
    FT_CHECK(NEAR(central[3], (1 - s) * (1 - s) / 4) && NEAR(central[4], (1 - s) * (1 - s) / 4) && central[5] == 0,
             "central moments of order 2: %g %g %g", central[3], central[4], central[5]);
    /* no step: P = softmax(F0) off the training rows, softmax(.5, .5) = (.5, .5) */
    rc = fgl__gta_stats(&adj, 2, logits, 2, y, train, 0, 0.5, T, 1, 2, raw, NULL, &conf);
    FT_CHECK(rc == FGL_OK && NEAR(raw[0], 0.75) && NEAR(raw[1], 0.25), "no propagation: %g %g", raw[0], raw[1]);
    /* a halo row propagates but does not count: the moments over row 0 alone */
    rc = fgl__gta_stats(&adj, 1, logits, 2, y, train, 1, 0.5, T, 1, 2, raw, NULL, &conf);
    FT_CHECK(rc == FGL_OK && NEAR(raw[0], 1) && NEAR(raw[1], 0) && NEAR(conf, 2 * exp(-1.0) + log(1 + 1e-8)),
             "over row 0: %g %g, confidence %g", raw[0], raw[1], conf);
}

/* Moments (1, 0), (1, 1), (0, 1): cosines 1/sqrt(2) between neighbours, 0
 * between the ends; confidences 1, 2, 3. */
static void test_weights_by_hand(void) {
    const float mom[6] = {1, 0, 1, 1, 0, 1};
    const double conf[3] = {1, 2, 3};
    const double want5[9] = {1. / 3, 2. / 3, 0, 1. / 6, 2. / 6, 3. / 6, 0, 2. / 5, 3. / 5};
    const double want8[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    const double equal5[9] = {.5, .5, 0, 1. / 3, 1. / 3, 1. / 3, 0, .5, .5};
    unsigned char all[3] = {1, 1, 1}, two[3] = {1, 0, 1}, sel[3];
    double w[9];
    int k, ok;
    fgl__gta_weights(3, 2, mom, conf, all, 0.5, 0, w, sel);
    for (ok = 1, k = 0; k < 9; k++) ok &= NEAR(w[k], want5[k]);
    FT_CHECK(ok, "threshold .5: row 0 %g %g %g, row 1 %g %g %g, row 2 %g %g %g", w[0], w[1], w[2], w[3], w[4], w[5],
             w[6], w[7], w[8]);
    fgl__gta_weights(3, 2, mom, conf, all, 0.8, 0, w, sel); /* above 1/sqrt(2): each client alone */
    for (ok = 1, k = 0; k < 9; k++) ok &= NEAR(w[k], want8[k]);
    FT_CHECK(ok, "threshold .8: not the identity");
    fgl__gta_weights(3, 2, mom, conf, all, 0.5, 1, w, sel); /* a robust rule: the same rows, equal weights */
    for (ok = 1, k = 0; k < 9; k++) ok &= NEAR(w[k], equal5[k]);
    FT_CHECK(ok, "equal weights: row 1 %g %g %g", w[3], w[4], w[5]);
    for (k = 0; k < 9; k++) w[k] = -7;
    fgl__gta_weights(3, 2, mom, conf, two, 0.5, 0, w, sel); /* client 1 absent: rows 0 and 2 alone, row 1 untouched */
    FT_CHECK(NEAR(w[0], 1) && w[1] == 0 && w[2] == 0 && w[3] == -7 && w[6] == 0 && w[7] == 0 && NEAR(w[8], 1),
             "client 1 absent: row 0 %g %g %g, row 2 %g %g %g", w[0], w[1], w[2], w[6], w[7], w[8]);
}

/* threshold 1: no cosine exceeds it, every row is the client's own upload
 * (weight 1, exact), so the run is Local's: the same history and models. */
static void test_threshold_one_is_local(void) {
    static const char *const one[] = {"threshold", "1", NULL};
    fgl_scenario sc;
    fgl_client_data cd[3];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run a, b;
    if (!ft_clients(&nodes, 3, FGL_PART_LOUVAIN, FGL_ARCH_GCN, 0, &sc, cd)) return;
    cfg.local_epochs = 2;
    if (ft_run_rounds(&a, &cfg, "fedgta", cd, 3, 4, one)) {
        if (ft_run_rounds(&b, &cfg, "local", cd, 3, 4, NULL)) {
            FT_CHECK(ft_same_history(&a, &b) && ft_same_models(&a, &b), "fedgta threshold=1 differs from local");
            fgl_run_free(&b);
        }
        fgl_run_free(&a);
    }
    fgl_scenario_free(&sc);
}

/* Seen by ft_end_to_end's inspect: the mean number of clients in FedGTA's rows. */
static double e2e_mixed = -1;
static void e2e_inspect(int a, const fgl_run *run, void *ud) {
    char buf[256] = "";
    const char *p;
    (void)ud;
    if (a != 2) return;
    fgl_run_report(run, buf, sizeof buf);
    if ((p = strstr(buf, "\"mean_clients_mixed\": "))) e2e_mixed = atof(p + 22);
}

/* Cora, 7 classes (chance 14%), 5 Louvain clients, GCN, 15 rounds of 3
 * local epochs (the authors' count). The bar is the one the other
 * end-to-end tests hold baselines to (0.40), the three printed side by
 * side, and FedGTA's best within 3 points of FedAvg's: with the default
 * threshold its rows mix most clients (Cora's moment cosines between
 * Louvain clients are 0.43 to 0.97), so it tracks FedAvg here. Measured
 * (seeds 1 to 3, FGL_TEST_SEED): see the commit that set the bar. It must
 * also mix: some row holds more than the client itself. */
static void test_end_to_end(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    ft_e2e_algo algos[3] = {{"local", 0, NULL, 0}, {"fedavg", 0, NULL, 0}, {"fedgta", 0, NULL, 1}};
    fgl_run_summary s[3];
    int a;
    if (!ft_clients(&nodes, 5, FGL_PART_LOUVAIN, FGL_ARCH_GCN, 0, &sc, cd)) return;
    cfg.local_epochs = 3;
    cfg.threads = 2;
    if (getenv("FGL_TEST_SEED")) cfg.seed = (uint64_t)atoi(getenv("FGL_TEST_SEED"));
    for (a = 0; a < 3; a++) algos[a].rounds = ft_quick() ? 4 : 15;
    if (ft_end_to_end(nodes.label, algos, 3, &cfg, cd, 5, 0.40, s, e2e_inspect, NULL) == 3) {
        printf("#   %s: fedgta mixes %.2f clients a row on average\n", nodes.label, e2e_mixed);
        FT_CHECK(e2e_mixed > 1, "fedgta: every row the client alone (%.2f)", e2e_mixed);
        if (!ft_quick())
            FT_CHECK(s[2].best_test >= s[1].best_test - 0.03, "fedgta: best mean test accuracy %.4f, FedAvg's %.4f",
                     s[2].best_test, s[1].best_test);
    }
    fgl_scenario_free(&sc);
}

int main(void) {
    int real = ft_node_data(&nodes);
    printf("# data: %s (%s)\n", nodes.label, real ? "real" : "synthetic");
    FT_RUN(test_stats_by_hand);
    FT_RUN(test_weights_by_hand);
    FT_RUN(test_threshold_one_is_local);
    FT_RUN(test_end_to_end);
    fgl_dataset_free(&nodes);
    return ft_finish();
}
