/* test_metrics.c - macro-F1 and two-class ROC-AUC (fgl_class_metrics,
 * src/gnn/view.h) against hand computations on tiny prediction sets (ties
 * in the scores and in the argmax, a class absent from the rows but
 * predicted, one class only: AUC NaN, no rows: NaN, a mask, labels -1);
 * then runs on a synthetic two-class node graph: the history holds the
 * metrics per client and round, the round means are the means of the
 * clients that have one, cfg.metric selects the best round by its own
 * validation mean without changing anything else, metric AUC is refused
 * for a model of three outputs, and a resumed run gives the same bits,
 * the new arrays included. */
#include "../fgl_fed.h"
#include <math.h>
#include "ft.h"
#include "ft_fed.h"

#define K 3

static void test_f1_by_hand(void) {
    /* C = 3, six rows, one-hot scores: predictions 0 1 1 1 0 2 against labels 0 0 1 1 2 2.
     * class 0: TP 1, predicted 2, support 2: F1 2/4; class 1: TP 2, predicted 3, support 2: 4/5;
     * class 2: TP 1, predicted 1, support 2: 2/3 */
    static const int pred[6] = {0, 1, 1, 1, 0, 2}, y[6] = {0, 0, 1, 1, 2, 2};
    float sc[18];
    double f1, auc;
    int i;
    memset(sc, 0, sizeof sc);
    for (i = 0; i < 6; i++) sc[i * 3 + pred[i]] = 1;
    FT_CHECK(fgl_class_metrics(sc, 6, 3, y, NULL, &f1, &auc) == FGL_OK, "metrics");
    FT_NEAR(f1, (0.5 + 0.8 + 2.0 / 3) / 3, 1e-12, "f1");
    FT_CHECK(isnan(auc), "three classes: no AUC (%g)", auc);
    { /* class 2 absent from the rows (the mask drops rows 4 and 5) but predicted for row 1 (scores 0 0 1) */
        static const unsigned char mask[6] = {1, 1, 1, 1, 0, 0};
        float s2[18];
        memcpy(s2, sc, sizeof sc);
        s2[1 * 3 + 1] = 0;
        s2[1 * 3 + 2] = 1;
        /* class 0: TP 1, predicted 1, support 2: 2/3; class 1: TP 2, predicted 2, support 2: 1; class 2 left out
         * (scikit-learn's default, over the union of the labels, would count it as 0: 5/9) */
        FT_CHECK(fgl_class_metrics(s2, 6, 3, y, mask, &f1, NULL) == FGL_OK, "metrics, masked");
        FT_NEAR(f1, (2.0 / 3 + 1.0) / 2, 1e-12, "f1");
    }
    { /* a label -1 is not counted; tied scores predict the first class */
        static const int y2[3] = {-1, 0, 1};
        static const float tied[6] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
        FT_CHECK(fgl_class_metrics(tied, 3, 2, y2, NULL, &f1, &auc) == FGL_OK, "metrics, ties");
        /* class 0: TP 1, predicted 2, support 1: 2/3; class 1: TP 0: 0 */
        FT_NEAR(f1, (2.0 / 3) / 2, 1e-12, "f1");
        FT_NEAR(auc, 0.5, 1e-12, "auc"); /* every pair tied: one half */
    }
    { /* no row counts: NaN */
        static const unsigned char none[6] = {0, 0, 0, 0, 0, 0};
        FT_CHECK(fgl_class_metrics(sc, 6, 3, y, none, &f1, &auc) == FGL_OK && isnan(f1) && isnan(auc),
                 "no rows: NaN, NaN (%g, %g)", f1, auc);
    }
}

static void test_auc_by_hand(void) {
    /* scores s = sc[1] - sc[0] (sc[0] = 1, sc[1] = 1 + s, exact in float): positives 0.75 0.5 0.25,
     * negatives 0.5 0.125 0.625. Pairs won: 0.75: 3; 0.5: 1 + a tie; 0.25: 1 -> 5.5 / 9. Midranks:
     * 0.125:1 0.25:2 0.5,0.5:3.5 0.625:5 0.75:6; positives' rank sum 11.5, U = 11.5 - 3*4/2 = 5.5. */
    static const float s[6] = {0.75f, 0.5f, 0.5f, 0.125f, 0.25f, 0.625f};
    static const int y[6] = {1, 1, 0, 0, 1, 0}, ones[6] = {1, 1, 1, 1, 1, 1};
    float sc[12];
    double f1, auc;
    int i;
    for (i = 0; i < 6; i++) {
        sc[2 * i] = 1.0f;
        sc[2 * i + 1] = 1.0f + s[i];
    }
    FT_CHECK(fgl_class_metrics(sc, 6, 2, y, NULL, &f1, &auc) == FGL_OK, "metrics");
    FT_NEAR(auc, 5.5 / 9, 1e-12, "auc");
    /* every row predicts class 1 (s > 0): class 0 TP 0 (F1 0), class 1 TP 3, predicted 6, support 3: 6/9 */
    FT_NEAR(f1, (0 + 6.0 / 9) / 2, 1e-12, "f1");
    FT_CHECK(fgl_class_metrics(sc, 6, 2, ones, NULL, &f1, &auc) == FGL_OK && isnan(auc),
             "one class only: AUC NaN (%g)", auc);
    FT_NEAR(f1, 2.0 * 6 / 12, 1e-12, "f1"); /* class 1 only: TP 6, predicted 6, support 6 */
    sc[5] = NAN;
    FT_CHECK(fgl_class_metrics(sc, 6, 2, y, NULL, NULL, &auc) == FGL_OK && isnan(auc), "a NaN score: AUC NaN");
}

/* Two-class synthetic node data over K clients, a small GCN. */
static int two_class(fgl_dataset *d, fgl_scenario *sc, fgl_client_data *cd) {
    fgl_synth_node_config c = fgl_synth_node_default();
    fgl_error e;
    memset(d, 0, sizeof *d);
    d->task = FGL_TASK_NODE;
    snprintf(d->label, sizeof d->label, "two-class synthetic");
    c.n_nodes = 900;
    c.n_classes = 2;
    if (fgl_synth_node(&c, 3, &d->node, NULL, &e)) {
        FT_CHECK(0, "synthetic: %s", e.msg);
        return 0;
    }
    return ft_node_clients(d, K, 16, sc, cd);
}

static fgl_fed_config cfg_of(int metric) {
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    cfg.rounds = 6;
    cfg.threads = 1;
    cfg.metric = metric;
    return cfg;
}

static int same_bits(const double *a, const double *b, size_t n) {
    return memcmp(a, b, sizeof(double) * n) == 0;
}

static void test_runs(void) {
    fgl_dataset d;
    fgl_scenario sc;
    fgl_client_data cd[K];
    fgl_run acc, auc;
    fgl_run_summary sa, su;
    fgl_fed_config c_acc = cfg_of(FGL_METRIC_ACC), c_auc = cfg_of(FGL_METRIC_AUC);
    int r, i;
    if (!two_class(&d, &sc, cd)) {
        fgl_dataset_free(&d);
        return;
    }
    if (ft_run_rounds(&acc, &c_acc, "fedavg", cd, K, 6, NULL)) {
        if (ft_run_rounds(&auc, &c_auc, "fedavg", cd, K, 6, NULL)) {
            size_t n = (size_t)6 * K;
            char why[200];
            fgl_run_summarize(&acc, &sa);
            fgl_run_summarize(&auc, &su);
            FT_CHECK(ft_same_run(&acc, &auc, why, sizeof why), "the metric changes no training: %s", why);
            FT_CHECK(same_bits(acc.client_test_auc, auc.client_test_auc, n) &&
                         same_bits(acc.client_val_f1, auc.client_val_f1, n),
                     "the metric changes no figure");
            for (r = 0; r < 6; r++) {
                const fgl_round_stats *st = &auc.stats[r];
                double m[4] = {0, 0, 0, 0};
                int q;
                FT_CHECK(st->val_auc > 0 && st->val_auc <= 1 && st->test_auc > 0 && st->test_auc <= 1 &&
                             st->val_f1 > 0 && st->val_f1 <= 1 && st->test_f1 > 0 && st->test_f1 <= 1,
                         "round %d: AUC %g %g, F1 %g %g in (0, 1]", r + 1, st->val_auc, st->test_auc, st->val_f1,
                         st->test_f1);
                for (i = 0; i < K; i++) {
                    size_t at = (size_t)r * K + i;
                    m[0] += auc.client_val_f1[at];
                    m[1] += auc.client_test_f1[at];
                    m[2] += auc.client_val_auc[at];
                    m[3] += auc.client_test_auc[at];
                }
                for (q = 0; q < 4; q++) m[q] /= K;
                FT_CHECK(m[0] == st->val_f1 && m[1] == st->test_f1 && m[2] == st->val_auc && m[3] == st->test_auc,
                         "round %d: the means are the clients' means", r + 1);
            }
            FT_CHECK(sa.metric == FGL_METRIC_ACC && su.metric == FGL_METRIC_AUC, "summaries' metrics %d %d",
                     sa.metric, su.metric);
            for (r = 0; r < 6; r++) {
                FT_CHECK(acc.stats[r].val_acc <= acc.stats[sa.best_round].val_acc, "accuracy's best round");
                FT_CHECK(auc.stats[r].val_auc <= auc.stats[su.best_round].val_auc, "AUC's best round");
                if (r < su.best_round) FT_CHECK(auc.stats[r].val_auc < su.best_val_auc, "the first of equals");
            }
            FT_CHECK(su.best_test_auc == auc.stats[su.best_round].test_auc &&
                         su.best_test == auc.stats[su.best_round].test_acc &&
                         su.last_test_f1 == auc.stats[5].test_f1,
                     "the summary's figures are its rounds'");
            printf("#   fedavg, two classes: best round by accuracy %d, by AUC %d; test AUC %.4f, F1 %.4f, acc %.4f\n",
                   sa.best_round + 1, su.best_round + 1, su.best_test_auc, su.best_test_f1, su.best_test);
            fgl_run_free(&auc);
        }
        fgl_run_free(&acc);
    }
    { /* resume: the same bits, the new arrays included */
        const char *path = "build/tests/test_metrics.ckpt";
        fgl_run full, part, resumed;
        fgl_error err;
        char why[200];
        if (ft_run_rounds(&full, &c_auc, "fedavg", cd, K, 6, NULL)) {
            if (ft_run_rounds(&part, &c_auc, "fedavg", cd, K, 3, NULL)) {
                FT_CHECK(fgl_run_save(&part, path, &err) == FGL_OK, "save: %s", err.msg);
                fgl_run_free(&part);
                if (fgl_run_init(&resumed, &c_auc, fgl_algo_find("fedavg"), cd, K, &err) == FGL_OK) {
                    size_t n = (size_t)6 * K;
                    FT_CHECK(fgl_run_load(&resumed, path, &err) == FGL_OK, "load: %s", err.msg);
                    for (r = resumed.round; r < 6; r++)
                        if (fgl_run_round(&resumed)) break;
                    FT_CHECK(ft_same_run(&full, &resumed, why, sizeof why), "resumed: %s", why);
                    FT_CHECK(same_bits(full.client_val_f1, resumed.client_val_f1, n) &&
                                 same_bits(full.client_test_f1, resumed.client_test_f1, n) &&
                                 same_bits(full.client_val_auc, resumed.client_val_auc, n) &&
                                 same_bits(full.client_test_auc, resumed.client_test_auc, n),
                             "resumed: the clients' F1 and AUC bit for bit");
                    for (r = 0; r < 6; r++)
                        FT_CHECK(!memcmp(&full.stats[r].val_f1, &resumed.stats[r].val_f1, sizeof(double)) &&
                                     !memcmp(&full.stats[r].test_f1, &resumed.stats[r].test_f1, sizeof(double)) &&
                                     !memcmp(&full.stats[r].val_auc, &resumed.stats[r].val_auc, sizeof(double)) &&
                                     !memcmp(&full.stats[r].test_auc, &resumed.stats[r].test_auc, sizeof(double)),
                                 "round %d's means resumed bit for bit", r + 1);
                    fgl_run_free(&resumed);
                } else {
                    FT_CHECK(0, "init: %s", err.msg);
                }
            }
            fgl_run_free(&full);
        }
        remove(path);
    }
    fgl_scenario_free(&sc);
    fgl_dataset_free(&d);
}

/* Metric AUC needs two outputs; F1 and AUC are refused for link tasks (run.h). */
static void test_refusal(void) {
    fgl_dataset d;
    fgl_scenario sc;
    fgl_client_data cd[K];
    fgl_fed_config cfg = cfg_of(FGL_METRIC_AUC);
    fgl_run run;
    fgl_error err;
    if (!ft_node_data(&d) && d.node.n_classes < 3) {
        fgl_dataset_free(&d);
        return;
    }
    if (ft_node_clients(&d, K, 16, &sc, cd)) {
        FT_CHECK(fgl_run_init(&run, &cfg, fgl_algo_find("fedavg"), cd, K, &err) == FGL_ERR_ARG &&
                     strstr(err.msg, "two classes"),
                 "metric AUC with %d classes refused: %s", cd[0].spec.out_dim, err.msg);
        cfg.metric = 7;
        FT_CHECK(fgl_run_init(&run, &cfg, fgl_algo_find("fedavg"), cd, K, &err) == FGL_ERR_ARG, "metric 7 refused");
        fgl_scenario_free(&sc);
    }
    fgl_dataset_free(&d);
}

int main(void) {
    FT_RUN(test_f1_by_hand);
    FT_RUN(test_auc_by_hand);
    FT_RUN(test_runs);
    FT_RUN(test_refusal);
    return ft_finish();
}
