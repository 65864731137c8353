/* fglrun/metrics.c - part of examples/fglrun.c (included by it): --score,
 * and the macro-F1 and ROC-AUC every node and graph run reports beside its
 * accuracy (fgl_class_metrics, src/gnn/view.h; the history's
 * client_val_f1 ...).
 *
 * --score picks what selects the best-validation round (cfg.metric): acc,
 * f1, auc (two classes), or auto: ROC-AUC for a two-class dataset that
 * carries fixed splits (the heterophilous .npz sets tolokers, minesweeper,
 * questions, whose published metric it is), accuracy otherwise. The table
 * gets a block of macro-F1 (and ROC-AUC) rows that says which metric
 * selected; the JSON row gets "selected_by", "val_score_mean" and
 * "test_f1_mean" ... ("test_auc_mean" ... where a run had one).
 * Last under the table, the defences' lines (defences_lines): the robust
 * rule, screening and a simulated attack; DP's parameters and epsilon per
 * run; what secure aggregation hid.
 */
#include "fglrun.h"

/* --score's names (FGL_METRIC_*): in the record, the table's notes. */
static const char *score_key(int metric) {
    return metric == FGL_METRIC_AUC ? "auc" : metric == FGL_METRIC_F1 ? "f1" : "acc";
}
FGLRUN_SHARED const char *score_words(int metric) {
    return metric == FGL_METRIC_AUC ? "ROC-AUC" : metric == FGL_METRIC_F1 ? "macro-F1" : "accuracy";
}

/* The metric in use, after loading: 0, or 1 (refused: the message said why). */
FGLRUN_SHARED int score_resolve(options *o, const fgl_dataset *ds) {
    static const int chosen[4] = {FGL_METRIC_ACC, FGL_METRIC_ACC, FGL_METRIC_F1, FGL_METRIC_AUC};
    int i, C = ds->task == FGL_TASK_NODE ? ds->node.n_classes : ds->sets[0].n_classes;
    for (i = 1; ds->task != FGL_TASK_NODE && i < ds->n_sets; i++)
        C = ds->sets[i].n_classes > C ? ds->sets[i].n_classes : C;
    o->score_metric = chosen[o->score >= 0 && o->score < 4 ? o->score : 0];
    if (o->score == 0 && ds->task == FGL_TASK_NODE && o->task != FGL_TASK_LINK && C == 2 && ds->n_fixed_splits > 0 &&
        !o->val_public)
        o->score_metric = FGL_METRIC_AUC;
    if (o->score_metric == FGL_METRIC_ACC) return 0;
    if (o->task == FGL_TASK_LINK) {
        fprintf(stderr, "fglrun: --score %s: a link task is scored by its AUC already (--score acc or auto)\n",
                score_key(o->score_metric));
        return 1;
    }
    if (o->val_public) {
        fprintf(stderr, "fglrun: --score %s: --val public selects on the public nodes' accuracy (--score acc or "
                        "auto)\n", score_key(o->score_metric));
        return 1;
    }
    if (o->score_metric == FGL_METRIC_AUC && C != 2) {
        fprintf(stderr, "fglrun: --score auc: ROC-AUC needs two classes; %s has %d\n", ds->label, C);
        return 1;
    }
    if (o->score == 0 && !o->quiet && !o->json)
        printf("fglrun: note: %s has two classes and fixed splits: the best round is the one of best mean validation "
               "ROC-AUC, its published metric (--score auto; --score acc selects by accuracy)\n", ds->label);
    return 0;
}

/* The table's block: macro-F1 (and ROC-AUC where a run had one) at the selected round and the last. */
FGLRUN_SHARED void metrics_table(const options *o, const result *res, int w) {
    int a, auc = 0;
    for (a = 0; a < o->n_algos; a++) {
        int i;
        for (i = 0; i < res[a].n; i++) auc |= res[a].auc[i] == res[a].auc[i];
    }
    printf("\n%-*s %18s %18s", w, "", o->folds ? "F1-macro (last)" : "F1-macro (best)", "F1-macro (last)");
    if (auc) printf(" %18s %18s", o->folds ? "ROC-AUC (last)" : "ROC-AUC (best)", "ROC-AUC (last)");
    printf("\n");
    for (a = 0; a < o->n_algos; a++) {
        double bm, bs, lm, ls;
        if (res[a].n == 0) continue;
        mean_std(o->folds ? res[a].f1_last : res[a].f1, res[a].n, &bm, &bs);
        mean_std(res[a].f1_last, res[a].n, &lm, &ls);
        if (res[a].n == 1) printf("%-*s %10.2f%9s %10.2f%9s", w, o->labels[a], 100 * bm, "", 100 * lm, "");
        else printf("%-*s %10.2f +- %5.2f %10.2f +- %5.2f", w, o->labels[a], 100 * bm, 100 * bs, 100 * lm, 100 * ls);
        if (auc) {
            mean_std(o->folds ? res[a].auc_last : res[a].auc, res[a].n, &bm, &bs);
            mean_std(res[a].auc_last, res[a].n, &lm, &ls);
            if (res[a].n == 1) printf(" %10.2f%9s %10.2f%9s", 100 * bm, "", 100 * lm, "");
            else printf(" %10.2f +- %5.2f %10.2f +- %5.2f", 100 * bm, 100 * bs, 100 * lm, 100 * ls);
        }
        if (!o->folds && res[a].metric != o->score_metric)
            printf("   (no round had a validation %s: selected by accuracy)", score_words(o->score_metric));
        printf("\n");
    }
    if (o->folds)
        printf("(the mean client macro-F1%s at the last round: no validation set)\n", auc ? " and ROC-AUC" : "");
    else
        printf("(the mean client macro-F1%s, at the round of best mean validation %s (--score %s) and at the last "
               "round; macro-F1: the mean over the classes in a client's split of their F1)\n",
               auc ? " and ROC-AUC" : "", score_words(o->score_metric), score_key(o->score_metric));
}

/* The JSON row's members (node and graph tasks). */
FGLRUN_SHARED void metrics_json(FILE *f, const options *o, const result *res) {
    int i, auc = 0;
    fprintf(f, ", \"selected_by\": \"%s\"", o->folds ? "last_round" : score_key(res->metric));
    if (!o->folds) json_mean_std(f, "val_score", res->vsel, res->n);
    json_mean_std(f, "test_f1", o->folds ? res->f1_last : res->f1, res->n);
    json_mean_std(f, "last_f1", res->f1_last, res->n);
    for (i = 0; i < res->n; i++) auc |= res->auc[i] == res->auc[i];
    if (!auc) return;
    json_mean_std(f, "test_auc", o->folds ? res->auc_last : res->auc, res->n);
    json_mean_std(f, "last_auc", res->auc_last, res->n);
}

/* Which defences, attack and privacy options were on, under the table: a
 * DP run's epsilon per run (it composes over runs, so it is never averaged),
 * what secure aggregation hid and what it could not unmask. */
FGLRUN_SHARED void defences_lines(const options *o, const result *res) {
    int a, i;
    if (o->robust.rule != FGL_ROBUST_MEAN || (o->attack.kind != FGL_ATTACK_NONE && o->attack.frac > 0)) {
        printf("defences: robust rule %s, norm screening %s", fgl_robust_name(o->robust.rule),
               o->robust.screen > 0 ? "on" : "off");
        if (o->attack.kind != FGL_ATTACK_NONE && o->attack.frac > 0)
            printf("; simulated attack: %s by %g of the clients", fgl_attack_name(o->attack.kind), (double)o->attack.frac);
        printf("\n");
    }
    if (o->dp.clip > 0) {
        printf("DP-FedAvg: clip %g, noise multiplier %g, each client taking part with probability %g, delta %g; "
               "secrets from %s. epsilon per run (it adds up over runs on the same data, never averaged):\n",
               (double)o->dp.clip, (double)o->dp.noise, (double)o->frac, o->dp.delta,
               o->secret_seed_set ? "--secret-seed (reproducible)" : "the system's entropy");
        for (a = 0; a < o->n_algos; a++) {
            if (res[a].n == 0) continue;
            printf("  %-10s", o->labels[a]);
            for (i = 0; i < res[a].n; i++) {
                if (isfinite(res[a].eps[i])) printf(" %.4g", res[a].eps[i]);
                else printf(" none (no noise)");
            }
            printf("\n");
        }
    }
    if (o->secagg.on)
        for (a = 0; a < o->n_algos; a++) {
            if (res[a].n == 0) continue;
            printf("secure aggregation%s%s: the server saw the survivors' sums only (models and the rounds' numbers);"
                   " %d round%s not unmasked, %d upload%s withheld out of the ring's range\n",
                   o->n_algos > 1 ? ", " : "", o->n_algos > 1 ? o->labels[a] : "", res[a].secagg_failed,
                   res[a].secagg_failed == 1 ? "" : "s", res[a].secagg_range, res[a].secagg_range == 1 ? "" : "s");
        }
}
