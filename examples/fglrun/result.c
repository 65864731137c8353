/* fglrun/result.c - part of examples/fglrun.c (included by it): the
 * results as JSON (--json's last line, DIR/result.json of --out, and the
 * rows of progress.json), and what a replay compares with a record.
 *
 * One shape, whatever was run (record version 2, "result_version": 2):
 *
 *   {"result_version": 2,
 *    "runs": [ROW, ...],            one per algorithm, or per row of a sweep
 *    "status": "failed",            only when a run failed (ROWs: those that finished)
 *    "config": {...}}               the record: --config FILE replays it
 *
 * A ROW says what ran (algo, data, split, clients, rounds, seeds, ...) and
 * its figures over its runs (seeds x folds or fixed splits) as mean and
 * standard deviation (test_acc_mean, test_acc_std, last_acc_mean, ...;
 * bytes as the mean per run, counts summed over the runs). Its "per_run"
 * list has one object per run, in the order they ran, each with scalars:
 * the run's seed (and fold or split_index), test_acc, last_acc, val_acc,
 * macro-F1 and ROC-AUC, bytes_up and bytes_down, seconds, and where they
 * apply dp_epsilon (privacy spent composes over runs: never averaged),
 * participants_per_round, the honest clients' accuracy under an attack,
 * the protocol's measures (fglrun/protocol.c). A link-prediction row calls
 * its score what it is: test_auc, last_auc, val_auc and test_hits,
 * last_hits (Hits@K), never *_acc.
 *
 * Version 1 (fglrun before this shape) wrote a bare ROW for one algorithm,
 * per-seed lists in the ROW (test_acc: [...], dp_epsilon: [...]) and a link
 * run's AUC as test_acc; such records are still read and still replay
 * (rec_run_value reads either).
 */
#include "fglrun.h"

/* The process's peak resident memory (MB) once the data and the clients'
 * copies of it were built, before any run (0: unknown): the JSON's
 * data_rss_mb, so that peak_rss_mb - data_rss_mb is the runs' own (fglrun.c sets it). */
FGLRUN_SHARED double data_rss_mb;
/* Node data: the record's "homophily" member (fglrun/homophily.c), made once before the runs; NULL otherwise. */
FGLRUN_SHARED char *homophily_rec;

/* The mean and the sample standard deviation of x[0..n-1]. */
FGLRUN_SHARED void mean_std(const double *x, int n, double *mean, double *sd) {
    double s = 0, q = 0;
    int i;
    for (i = 0; i < n; i++) s += x[i];
    *mean = n ? s / n : 0;
    for (i = 0; i < n; i++) q += (x[i] - *mean) * (x[i] - *mean);
    *sd = n > 1 ? sqrt(q / (n - 1)) : 0;
}

/* A ROW's figure over its runs: "NAME_mean" and "NAME_std". */
FGLRUN_SHARED void json_mean_std(FILE *f, const char *name, const double *x, int n) {
    double m, sd;
    mean_std(x, n, &m, &sd);
    fprintf(f, ", \"%s_mean\": ", name);
    json_num(f, "%.6f", m);
    fprintf(f, ", \"%s_std\": ", name);
    json_num(f, "%.6f", sd);
}

/* A per-run figure: its name in a version-2 run, its list's name in a
 * version-1 row (NULL: v1 had none), its values, whether a replay compares
 * it, and how it is printed. */
typedef struct run_figure {
    const char *name, *v1;
    const double *x;
    int replay;
    const char *fmt;
} run_figure;

/* The per-run figures of a row, in the order they are written. Returns how
 * many (at most cap). */
static int run_figures(const options *o, const result *res, run_figure *fig, int cap) {
    int n = 0, i, auc = 0;
#define FIG(NAME, V1, X, REPLAY, FMT) do { if (n < cap) { fig[n].name = NAME; fig[n].v1 = V1; fig[n].x = X; \
        fig[n].replay = REPLAY; fig[n].fmt = FMT; n++; } } while (0)
    const double *sel = o->folds ? res->last : res->best;   /* cross-validation: the last round */
    if (o->task == FGL_TASK_LINK) {
        FIG("test_auc", "test_acc", sel, 1, "%.6f");
        FIG("last_auc", NULL, res->last, 1, "%.6f");
        if (!o->folds) FIG("val_auc", NULL, res->val, 1, "%.6f");
        FIG("test_hits", "test_hits", o->folds ? res->hits_last : res->hits, 1, "%.6f");
        FIG("last_hits", NULL, res->hits_last, 1, "%.6f");
    } else {
        FIG("test_acc", "test_acc", sel, 1, "%.6f");
        FIG("last_acc", NULL, res->last, 1, "%.6f");
        if (!o->folds) FIG("val_acc", NULL, res->val, 1, "%.6f");
        if (!o->folds) FIG("val_score", NULL, res->vsel, 1, "%.6f");
        FIG("test_f1", "test_f1", o->folds ? res->f1_last : res->f1, 1, "%.6f");
        FIG("last_f1", NULL, res->f1_last, 1, "%.6f");
        for (i = 0; i < res->n; i++) auc |= res->auc[i] == res->auc[i];
        if (auc) {
            FIG("test_auc", "test_auc", o->folds ? res->auc_last : res->auc, 1, "%.6f");
            FIG("last_auc", NULL, res->auc_last, 1, "%.6f");
        }
    }
    if (o->metric) {
        FIG("personalized_acc", "personalized_acc", res->pers, 1, "%.6f");
        FIG("personalized_last_acc", "personalized_last_acc", res->pers_last, 1, "%.6f");
    }
    if (o->select_pc) FIG("per_client_test_acc", "per_client_test_acc", res->pc, 1, "%.6f");
    if (o->select_pc && o->metric)
        FIG("per_client_personalized_acc", "per_client_personalized_acc", res->pc_pers, 1, "%.6f");
    if (o->attack.kind != FGL_ATTACK_NONE && o->attack.frac > 0) {
        FIG("honest_test_acc", NULL, res->hbest, 1, "%.6f");
        FIG("honest_last_acc", NULL, res->hlast, 1, "%.6f");
    }
    if (res->has_rho) FIG("matrix_label_spearman", NULL, res->rho, 0, "%.4f");
    FIG("bytes_up", NULL, res->up_run, 1, "%.0f");
    FIG("bytes_down", NULL, res->down_run, 1, "%.0f");
    /* no finite epsilon (no noise) is null; the noise is the system's entropy unless --secret-seed: not compared */
    if (o->dp.clip > 0) FIG("dp_epsilon", "dp_epsilon", res->eps, 0, "%.6g");
    FIG("seconds", NULL, res->secs, 0, "%.3f");
#undef FIG
    return n;
}

/* A ROW's "per_run": one object of scalars per run. */
static void json_per_run(FILE *f, const options *o, const result *res) {
    run_figure fig[24];
    int nf = run_figures(o, res, fig, 24), i, k, r;
    fprintf(f, ", \"per_run\": [");
    for (i = 0; i < res->n; i++) {
        int split = i / (o->seeds > 0 ? o->seeds : 1); /* runs go split (or fold) by split, seeds within */
        fprintf(f, "%s{\"seed\": %llu", i ? ", " : "", (unsigned long long)(o->seed + (uint64_t)(i % o->seeds)));
        if (o->folds) fprintf(f, ", \"fold\": %d", o->fold >= 0 ? o->fold : split);
        else if (o->n_fixed) fprintf(f, ", \"split_index\": %d", o->split_index >= 0 ? o->split_index : split);
        for (k = 0; k < nf; k++) {
            fprintf(f, ", \"%s\": ", fig[k].name);
            json_num(f, fig[k].fmt, fig[k].x[i]);
        }
        if ((o->dp.clip > 0 || o->secagg.on) && i < res->part_runs) { /* who took part, round by round */
            fprintf(f, ", \"participants_per_round\": [");
            for (r = 0; r < res->part_rounds; r++)
                fprintf(f, "%s%d", r ? ", " : "", res->part_run[(size_t)i * res->part_rounds + r]);
            fprintf(f, "]");
        }
        fprintf(f, "}");
    }
    fprintf(f, "]");
}

/* One ROW (an algorithm, or a sweep's row, over its runs). Valid JSON in
 * every case (RFC 8259): strings escaped, a figure that is not finite
 * written as null. In a sweep the row also has its "label", its swept
 * values ("sweep": ["algo.key=value"]) and its own record ("config":
 * --config FILE --row LABEL replays that row alone). */
FGLRUN_SHARED void json_result(FILE *f, const options *o, int slot, const fgl_dataset *ds, int split, int K, int rounds,
                               const result *res) {
    const char *algo = o->algos[slot];
    int link = o->task == FGL_TASK_LINK, i;
    const char *score = link ? "auc" : "acc";
    char key[32];
    double sm, ss, vm, vs, tm, ts, em, es;
    /* with cross-validation there is no validation set: the last round is reported */
    const double *sel = o->folds ? res->last : res->best;
    mean_std(res->secs, res->n, &sm, &ss);
    mean_std(res->server, res->n, &vm, &vs);
    mean_std(res->train, res->n, &tm, &ts);
    mean_std(res->eval, res->n, &em, &es);
    fprintf(f, "{\"algo\": ");
    json_str(f, algo);
    if (o->n_swept) {
        fprintf(f, ", \"label\": ");
        json_str(f, o->labels[slot]);
        fprintf(f, ", \"sweep\": [");
        for (i = 0; i < o->n_vset[slot]; i++) {
            if (i) fprintf(f, ", ");
            json_str(f, o->vset[slot][i]);
        }
        fprintf(f, "]");
    }
    fprintf(f, ", \"data\": ");
    json_str(f, ds->label);
    fprintf(f, ", \"split\": ");
    json_str(f, o->public_split ? "public" : fgl_part_name(split));
    fprintf(f, ", \"clients\": %d, \"rounds\": %d, \"seeds\": %d, \"seed\": %llu, \"split_seed\": %llu, ", K, rounds,
            o->seeds, (unsigned long long)o->seed, (unsigned long long)o->split_seed);
    if (o->folds) fprintf(f, "\"folds\": %d, \"fold\": %d, ", o->folds, o->fold);
    if (o->n_fixed) fprintf(f, "\"fixed_splits\": %d, \"split_index\": %d, ", o->n_fixed, o->split_index);
    fprintf(f, "\"run_count\": %d, \"selection\": \"%s\"", res->n,
            o->folds ? "last_round" : o->val_public ? "best_public" : "best_val");
    snprintf(key, sizeof key, "test_%s", score);
    json_mean_std(f, key, sel, res->n);
    snprintf(key, sizeof key, "last_%s", score);
    json_mean_std(f, key, res->last, res->n);
    if (!o->folds) { /* what the selection saw: the selection set's mean score at the selected round */
        snprintf(key, sizeof key, "val_%s", score);
        json_mean_std(f, key, res->val, res->n);
    }
    if (link) link_json(f, o, res);
    else metrics_json(f, o, res);
    fprintf(f, ", \"bytes_up\": %zu, \"bytes_down\": %zu, \"rejected_uploads\": %d, \"seconds\": %.3f, "
               "\"seconds_server\": %.3f, \"seconds_train\": %.3f, \"seconds_eval\": %.3f",
            res->up / (size_t)res->n, res->down / (size_t)res->n, res->rejected, sm, vm, tm, em);
    {   /* the process's peak resident memory so far (Linux reports kilobytes): with several
         * algorithms or seeds in one process, the running maximum, not this row's own */
        struct rusage ru;
        if (getrusage(RUSAGE_SELF, &ru) == 0) fprintf(f, ", \"peak_rss_mb\": %.1f", (double)ru.ru_maxrss / 1024.0);
        if (data_rss_mb > 0) fprintf(f, ", \"data_rss_mb\": %.1f", data_rss_mb);
    }
    if (homophily_rec) fprintf(f, ", \"homophily\": %s", homophily_rec);
    if (res->leak[0]) { /* marked, so that a table cannot show it as an honest number */
        fprintf(f, ", \"label_leakage\": ");
        json_str(f, res->leak);
    }
    if (res->other_build[0]) { /* --allow-other-build: its bits are neither build's */
        fprintf(f, ", \"resumed_from_other_build\": ");
        json_str(f, res->other_build);
    }
    if (res->has_rho) { /* mean over clients of Spearman(matrix row, label-histogram cosine), mean over runs */
        double rm, rs;
        mean_std(res->rho, res->n, &rm, &rs);
        fprintf(f, ", \"matrix_label_spearman\": ");
        json_num(f, "%.4f", rm);
    }
    if (res->defended) { /* the defences' record: totals over the runs, then per round summed over them */
        fprintf(f, ", \"robust\": \"%s\", \"attack\": \"%s\", \"attackers\": %g, \"screened_uploads\": %d, "
                   "\"clipped_uploads\": %d, \"dropped_uploads\": %d, \"robust_fallbacks\": %d, "
                   "\"rejected_per_round\": [",
                fgl_robust_name(o->robust.rule), fgl_attack_name(o->attack.kind), (double)o->attack.frac, res->screened,
                res->clipped, res->dropped, res->fallback);
        for (i = 0; i < rounds && res->rejected_round; i++) fprintf(f, "%s%d", i ? ", " : "", res->rejected_round[i]);
        fprintf(f, "], \"fallback_per_round\": [");
        for (i = 0; i < rounds && res->fallback_round; i++) fprintf(f, "%s%d", i ? ", " : "", res->fallback_round[i]);
        fprintf(f, "], \"clipped_per_round\": [");
        for (i = 0; i < rounds && res->clipped_round; i++) fprintf(f, "%s%d", i ? ", " : "", res->clipped_round[i]);
        fprintf(f, "]");
    }
    if (o->dp.clip > 0) { /* epsilon is per run (per_run's dp_epsilon): it composes over runs, never averaged */
        int finite = 1;
        fprintf(f, ", \"dp_clip\": %g, \"dp_noise\": %g, \"dp_delta\": %g", (double)o->dp.clip, (double)o->dp.noise,
                o->dp.delta);
        for (i = 0; i < res->n; i++) finite &= isfinite(res->eps[i]) != 0;
        if (!finite || res->n > 1) {
            fprintf(f, ", \"dp_epsilon_note\": \"");
            if (!finite) fprintf(f, "no finite epsilon (noise %g)%s", (double)o->dp.noise, res->n > 1 ? "; " : "");
            if (res->n > 1)
                fprintf(f, "one per run: the %d runs use the same clients' data, so together they spend more than "
                           "any one of them (epsilon composes, it does not average)", res->n);
            fprintf(f, "\"");
        }
    }
    if (o->dp.clip > 0 || o->secagg.on) { /* where the secrets came from, never the secret seed */
        fprintf(f, ", \"secrets\": \"%s\"", o->secret_seed_set ? "reproducible" : "os-entropy");
        if (o->secagg.on)
            fprintf(f, ", \"secagg_rounds_not_unmasked\": %d, \"secagg_uploads_out_of_range\": %d", res->secagg_failed,
                    res->secagg_range);
    }
    if (o->attack.kind != FGL_ATTACK_NONE && o->attack.frac > 0) { /* honest clients only, beside all of them */
        json_mean_std(f, "honest_test_acc", res->hbest, res->n);
        json_mean_std(f, "honest_last_acc", res->hlast, res->n);
    }
    proto_json(f, o, res);
    if (res->lost) fprintf(f, ", \"lost_uploads\": %d", res->lost);
#ifdef FGL_MPI
    /* what crossed MPI (per run: means over the runs) beside the counted bytes_up / bytes_down above; the
       ranks lost and the clients left out with them, summed over the runs, and the losses of the last run that had any */
    fprintf(f, ", \"mpi\": {\"ranks\": %d, \"bytes_up\": %zu, \"bytes_down\": %zu, \"bytes_start\": %zu, "
               "\"seconds_exchange\": %.3f, \"seconds_remote\": %.3f, \"lost_ranks\": %d, \"lost_clients\": %d",
            res->mpi.ranks, res->mpi.bytes_received / (size_t)res->n, res->mpi.bytes_sent / (size_t)res->n,
            res->mpi.bytes_data / (size_t)res->n, res->mpi.t_exchange / res->n, res->mpi.t_remote / res->n,
            res->mpi.lost_ranks, res->mpi.lost_clients);
    if (res->mpi.note[0]) {
        sbuf note = {NULL, 0, 0, 0};
        sb_json_str(&note, res->mpi.note);
        if (note.s) fprintf(f, ", \"lost\": %s", note.s);
        free(note.s);
    }
    fprintf(f, "}");
#endif
    if (res->report[0]) { /* the algorithm's own members: a non-finite figure it printed becomes null */
        sbuf b = {0, 0, 0, 0};
        json_fix_nonfinite(res->report, &b);
        if (b.s && !b.oom) fprintf(f, ", %s", b.s);
        free(b.s);
    }
    json_per_run(f, o, res);
    if (o->n_swept && o->pg && o->pg->final && o->slot_config[slot])
        fprintf(f, ", \"config\": %s", o->slot_config[slot]);
    fprintf(f, "}");
}

/* ", "config": {...}" when there is a record. */
FGLRUN_SHARED void config_member(FILE *f, const options *o) {
    if (o->config_json) fprintf(f, ", \"config\": %s", o->config_json);
}

/* The results as JSON: on stdout (--json, the last line) and in
 * DIR/result.json (--out), in the shape above. When a run failed, only the
 * rows with a finished run, and "status": "failed". */
FGLRUN_SHARED void write_results(const options *o, const result *res, const fgl_dataset *ds, int split, int K,
                                 int rounds) {
    FILE *jf = NULL;
    outfile w;
    char path[1200];
    int a, k, first;
    if (o->out_dir) {
        snprintf(path, sizeof path, "%s/result.json", o->out_dir);
        jf = out_open(&w, path);
    }
    for (k = 0; k < 2; k++) {
        FILE *f = k ? jf : o->json ? stdout : NULL;
        if (!f) continue;
        fprintf(f, "{\"result_version\": 2, \"runs\": [");
        for (a = 0, first = 1; a < o->n_algos; a++) {
            if (res[a].n == 0) continue;
            fprintf(f, "%s", first ? "" : ", ");
            json_result(f, o, a, ds, split, K, rounds, &res[a]);
            first = 0;
        }
        fprintf(f, "]");
        if (o->failed) fprintf(f, ", \"status\": \"failed\"");
        config_member(f, o);
        fprintf(f, "}\n");
    }
    if (jf) out_commit(&w);
}

/* A recorded run's figure: a version-2 row's per_run[i].name, else a
 * version-1 row's list v1[i]. NULL if the record has neither. */
static const jv *rec_run_value(const jv *row, const run_figure *fig, int i) {
    const jv *runs = jv_get(row, "per_run"), *v;
    if (runs && runs->t == 'a') return i < runs->n && runs->v[i].t == 'o' ? jv_get(&runs->v[i], fig->name) : NULL;
    if (!fig->v1 || !(v = jv_get(row, fig->v1)) || v->t != 'a' || i >= v->n) return NULL;
    return &v->v[i];
}

/* How many runs a recorded row holds: per_run's length (version 2), else
 * its test_acc list's (version 1, where a link run's AUC was test_acc). */
static int rec_run_count(const jv *row) {
    const jv *v = jv_get(row, "per_run");
    if (!v) v = jv_get(row, "test_acc");
    return v && v->t == 'a' ? v->n : 0;
}

/* A replay's comparison of one row with its record: every per-run figure
 * the replay compares, printed as the record prints it. 1 if one differs
 * (said), else 0. A version-1 record had per-run lists of the selected
 * score and the protocol's measures only: its last-round score and bytes
 * are compared as the row's means. */
FGLRUN_SHARED int replay_row(const options *o, const char *name, const jv *rec, const result *res) {
    run_figure fig[24];
    int nf = run_figures(o, res, fig, 24), k, i, bad = 0, v2 = jv_get(rec, "per_run") != NULL;
    int recorded = rec_run_count(rec);
    char got[64], want[64];
    if (recorded != res->n) {
        fprintf(stderr, "fglrun: replay: %s: %d runs recorded, %d run\n", name, recorded, res->n);
        return 1;
    }
    for (k = 0; k < nf; k++) {
        if (!fig[k].replay) continue;
        for (i = 0; i < res->n; i++) {
            const jv *v = rec_run_value(rec, &fig[k], i);
            if (!v) {
                if (v2 || k == 0) { /* version 2 records every figure it has; the selected score is always there */
                    fprintf(stderr, "fglrun: replay: %s: %s not recorded\n", name, fig[k].name);
                    bad = 1;
                }
                break;
            }
            snprintf(got, sizeof got, fig[k].fmt, fig[k].x[i]);
            if (!isfinite(fig[k].x[i])) snprintf(got, sizeof got, "null");
            if (v->t == 'z') snprintf(want, sizeof want, "null");
            else snprintf(want, sizeof want, fig[k].fmt, strtod(v->s ? v->s : "nan", NULL));
            if (strcmp(got, want)) {
                fprintf(stderr, "fglrun: replay: %s run %d: %s %s, recorded %s\n", name, i + 1, fig[k].name, got, want);
                bad = 1;
            }
        }
    }
    if (!v2) { /* version 1: the last round's mean score and the bytes per run */
        double lm, ls;
        const jv *v = jv_get(rec, "last_acc_mean");
        mean_std(res->last, res->n, &lm, &ls);
        snprintf(got, sizeof got, "%.6f", lm);
        snprintf(want, sizeof want, "%.6f", v && v->s ? strtod(v->s, NULL) : -1.0);
        if (strcmp(got, want)) {
            fprintf(stderr, "fglrun: replay: %s: last_acc_mean %s, recorded %s\n", name, got, want);
            bad = 1;
        }
        for (i = 0; i < 2; i++) {
            size_t mine = res->n ? (i ? res->down : res->up) / (size_t)res->n : 0;
            v = jv_get(rec, i ? "bytes_down" : "bytes_up");
            snprintf(got, sizeof got, "%zu", mine);
            if (!v || !v->s || strcmp(got, v->s)) {
                fprintf(stderr, "fglrun: replay: %s: %s %s, recorded %s\n", name, i ? "bytes_down" : "bytes_up", got,
                        v && v->s ? v->s : "nothing");
                bad = 1;
            }
        }
    }
    return bad;
}
