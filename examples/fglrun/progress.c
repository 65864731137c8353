/* fglrun/progress.c - part of examples/fglrun.c (included by it): progress, partial results, checkpoints. */
#include "fglrun.h"

/* ======================================================================================= */
/* --- progress and partial results --------------------------------------------------------- */
/*
 * On a terminal (stderr) a progress bar with the elapsed time and an ETA;
 * otherwise (a pipe, a file, nohup), or with --log-every N, one line every N
 * rounds (default: a tenth of the rounds) and at the last: the round, mean
 * validation and test accuracy, training loss, MB sent (up + down), elapsed
 * time and the ETA of the whole invocation. stdout is line-buffered. With
 * --out DIR, each run's per-round CSV grows as its rounds complete, and
 * DIR/progress.json is rewritten (to a temporary file, then renamed) after
 * every round: "status" (running, stopped, complete or failed), the results
 * of the runs finished so far and the state of the run under way; a killed
 * run leaves both. DIR/result.json appears when everything is done.
 */

static double now_s(void) { return fgl_now(); }

#ifdef FGLRUN_WEB
static void web_round(const options *o, const fgl_run *run); /* web/fglweb.c: each round to the browser page */
#endif

/* Per-client outputs (the CSV's rows per client, clients.svg, the client
 * matrix): under --dp only with --per-client-records, as they name the
 * clients the secret Poisson draw chose each round (README, Privacy). */
FGLRUN_SHARED int per_client_out(const options *o) { return !(o->dp.clip > 0) || o->per_client_records; }

/* The per-round CSV: its header, and round r of run as rows (a row per
 * client; agg: one row, the round's aggregates, as under --dp without
 * --per-client-records). names (NULL: none): each client's dataset, when
 * each client is one dataset (--split per-dataset: CHEM's MUTAG, BZR, ...),
 * in a last column "dataset". link (--task link): the run's accuracy is the
 * AUC, and its columns say so (val_auc, test_auc). */
FGLRUN_SHARED void csv_header(FILE *f, const char *const *names, int link, int agg) {
    if (agg) {
        fprintf(f, "round,participants,train_loss,%s,bytes_up,bytes_down\n", link ? "val_auc,test_auc" : "val_acc,test_acc");
        return;
    }
    fprintf(f, "round,client,train_loss,%s,bytes_up,bytes_down%s\n", link ? "val_auc,test_auc" : "val_acc,test_acc",
            names ? ",dataset" : "");
}

FGLRUN_SHARED void csv_round(FILE *f, const fgl_run *run, int r, const char *const *names, int agg) {
    int i;
    if (agg) { /* the means over clients (loss: over the accepted uploads) and the round's bytes */
        const fgl_round_stats *st = &run->stats[r];
        fprintf(f, "%d,%d,%.6f,%.6f,%.6f,%zu,%zu\n", r + 1, st->n_part, st->train_loss, st->val_acc, st->test_acc,
                st->bytes_up, st->bytes_down);
        return;
    }
    for (i = 0; i < run->n_clients; i++) {
        size_t k = (size_t)r * run->n_clients + i;
        fprintf(f, "%d,%d,%.6f,%.6f,%.6f,%zu,%zu", r + 1, i, run->client_loss[k], run->client_val[k],
                run->client_test[k], run->client_up[k], run->client_down[k]);
        if (names) fprintf(f, ",%s", names[i]);
        fprintf(f, "\n");
    }
}


static void fmt_time(char *out, size_t cap, double s) {
    if (!(s >= 0)) snprintf(out, cap, "?");
    else if (s < 90) snprintf(out, cap, "%.0fs", s);
    else if (s < 5400) snprintf(out, cap, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else snprintf(out, cap, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
}


/* A file fglrun writes into --out DIR: result.json, progress.json (and its
 * .tmp), config, curves.svg, clients.svg, bytes.svg, and per run
 * ALGO[_foldF]_seedS_rounds.csv, _matrix.csv and _matrix.svg. */
static int out_file_ours(const char *name) {
    static const char *const fixed[] = {"result.json", "progress.json", "progress.json.tmp", "config",
                                        "curves.svg", "clients.svg", "bytes.svg"};
    static const char *const tail[] = {"_rounds.csv", "_matrix.csv", "_matrix.svg"};
    size_t i, n = strlen(name);
    for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (!strcmp(name, fixed[i])) return 1;
    for (i = 0; i < sizeof tail / sizeof tail[0]; i++) {
        size_t t = strlen(tail[i]), d = 0;
        if (n <= t || strcmp(name + n - t, tail[i])) continue;
        while (d < n - t && isdigit((unsigned char)name[n - t - 1 - d])) d++;
        if (d > 0 && n - t - d >= 6 && !strncmp(name + n - t - d - 5, "_seed", 5)) return 1;
    }
    return 0;
}

/* --out DIR: created with its missing parents (mkdir -p); the files an
 * earlier fglrun wrote there (out_file_ours) are removed, so that nothing
 * of another run is left beside this one's; other files are kept. 0, or 1
 * with the reason on stderr. */
FGLRUN_SHARED int out_dir_prepare(const char *dir) {
    char path[1200], *p;
    DIR *d;
    struct dirent *e;
    snprintf(path, sizeof path, "%s", dir);
    for (p = path + 1; ; p++) { /* each parent, then the directory */
        if (*p && *p != '/') continue;
        {
            char c = *p;
            *p = 0;
            if (mkdir(path, 0777) != 0 && errno != EEXIST) {
                fprintf(stderr, "fglrun: --out %s: cannot create %s (%s)\n", dir, path, strerror(errno));
                return 1;
            }
            *p = c;
        }
        if (!*p) break;
    }
    if (!(d = opendir(dir))) {
        fprintf(stderr, "fglrun: --out %s: not a directory it can read (%s)\n", dir, strerror(errno));
        return 1;
    }
    snprintf(path, sizeof path, "%s/.fglrun.lock", dir);
    if (take_lock(path, dir)) { /* another fglrun writes there: its files stay */
        closedir(d);
        return 1;
    }
    while ((e = readdir(d)))
        if (out_file_ours(e->d_name)) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            remove(path);
        }
    closedir(d);
    return 0;
}

/* runs: per algorithm (seeds, or folds x seeds with --folds). */
FGLRUN_SHARED void progress_init(progress *pg, options *o, result *res, const fgl_dataset *ds, int split, int K,
                                 int rounds, int runs) {
    int per_run = o->stop_after && o->stop_after < rounds ? o->stop_after : rounds;
    memset(pg, 0, sizeof *pg);
    pg->n_algos = o->n_algos;
    pg->seeds = runs;
    pg->rounds = rounds;
    pg->K = K;
    pg->split = split;
    pg->ds = ds;
    pg->res = res;
    pg->cv = (curves *)calloc((size_t)o->n_algos, sizeof(curves));
    pg->total = (long)o->n_algos * runs * per_run;
    pg->t0 = now_s();
    pg->tty = !o->quiet && !o->log_every && isatty(2);
    pg->every = o->log_every > 0 ? o->log_every : rounds >= 10 ? rounds / 10 : 1;
    o->pg = pg;
    if (o->out_dir) { /* (fglrun's files of an earlier run there were removed: out_dir_prepare) */
        char path[1200];
        snprintf(path, sizeof path, "%s/config", o->out_dir);
        if (o->config_pretty) out_text(path, o->config_pretty);
    }
}

/* The live CSV's lines to the disk; a failure is said once and stops the run. */
static void csv_flush(progress *pg) {
    int e = flush_to_disk(pg->csv);
    if (!e || pg->csv_failed) return;
    write_failed(pg->csv_path, strerror(e));
    pg->csv_failed = 1;
}

/* DIR/progress.json, atomically. */
static void progress_write(const options *o, const char *status) {
    const progress *pg = o->pg;
    char path[1200], eta[32];
    outfile w;
    FILE *f;
    int a, first = 1;
    double el = now_s() - pg->t0;
    if (!o->out_dir) return;
    snprintf(path, sizeof path, "%s/progress.json", o->out_dir);
    if (!(f = out_open(&w, path))) return;
    fprintf(f, "{\"status\": \"%s\", \"rounds_done\": %ld, \"rounds_total\": %ld, \"elapsed_seconds\": %.1f", status,
            pg->done, pg->total, el);
    if (pg->ran > 0 && !strcmp(status, "running")) {
        fmt_time(eta, sizeof eta, pg->t_ran / pg->ran * (double)(pg->total - pg->done));
        fprintf(f, ", \"eta\": \"%s\"", eta);
    }
    if (pg->run && !strcmp(status, "running")) {
        const fgl_run *run = pg->run;
        fgl_run_summary s;
        fgl_run_summarize(run, &s);
        fprintf(f, ", \"current\": {\"algo\": ");
        json_str(f, pg->algo);
        fprintf(f, ", \"seed\": %llu, \"round\": %d, \"rounds\": %d", (unsigned long long)pg->seed, run->round,
                pg->rounds);
        if (o->folds) fprintf(f, ", \"fold\": %d", pg->fold);
        else if (o->n_fixed) fprintf(f, ", \"split_index\": %d", pg->fold);
        if (run->round > 0 && s.best_round >= 0) { /* (the last round may not be evaluated: --eval-every) */
            int link = o->task == FGL_TASK_LINK; /* the score is then the AUC, named so */
            fprintf(f, ", \"best_val_round\": %d, \"test_%s\": ", s.best_round + 1, link ? "auc" : "acc");
            json_num(f, "%.6f", s.best_test);
            fprintf(f, ", \"last_%s\": ", link ? "auc" : "acc");
            json_num(f, "%.6f", s.last_test);
            if (link) { /* Hits@K beside the AUC */
                fprintf(f, ", \"test_hits\": ");
                json_num(f, "%.6f", s.best_test_hits);
            }
        }
        fprintf(f, ", \"bytes_up\": %zu, \"bytes_down\": %zu}", run->bytes_up, run->bytes_down);
    }
    fprintf(f, ", \"runs\": [");
    for (a = 0; a < pg->n_algos; a++) {
        if (pg->res[a].n <= 0) continue;
        if (!first) fprintf(f, ", ");
        first = 0;
        json_result(f, o, a, pg->ds, pg->split, pg->K, pg->rounds, &pg->res[a]);
    }
    fprintf(f, "]");
    config_member(f, o);
    fprintf(f, "}\n");
    out_commit(&w);
}

/* A run begins (or resumes at run->round). algo: its label; file: the label
 * in file names (blanks as underscores). */
FGLRUN_SHARED void progress_begin(const options *o, const char *algo, const char *file, uint64_t seed, int fold,
                                  const fgl_run *run) {
    progress *pg = o->pg;
    int r;
    if (!pg) return;
    pg->algo = algo;
    pg->seed = seed;
    pg->fold = fold;
    if (o->folds) snprintf(pg->label, sizeof pg->label, "%s fold %d", algo, fold);
    else if (o->n_fixed) snprintf(pg->label, sizeof pg->label, "%s split %d", algo, fold);
    else snprintf(pg->label, sizeof pg->label, "%s", algo);
    pg->run = run;
    pg->done += run->round;
    pg->t_last = now_s();
    if (o->out_dir) {
        char path[1200];
        if (o->folds || o->n_fixed) /* the name write_round_csv gives it */
            snprintf(path, sizeof path, "%s/%s_%s%d_seed%llu_rounds.csv", o->out_dir, file, o->folds ? "fold" : "split",
                     fold, (unsigned long long)seed);
        else
            snprintf(path, sizeof path, "%s/%s_seed%llu_rounds.csv", o->out_dir, file, (unsigned long long)seed);
        snprintf(pg->csv_path, sizeof pg->csv_path, "%s", path);
        if ((pg->csv = fopen(path, "w"))) {
            csv_header(pg->csv, pg->names, o->task == FGL_TASK_LINK, !per_client_out(o));
            for (r = 0; r < run->round; r++) csv_round(pg->csv, run, r, pg->names, !per_client_out(o));
            csv_flush(pg);
        } else {
            write_failed(path, strerror(errno));
            pg->csv_failed = 1;
        }
    }
}

/* After every round. */
FGLRUN_SHARED void progress_round(const options *o, const fgl_run *run) {
    progress *pg = o->pg;
    const fgl_round_stats *st;
    int r = run->round - 1, R = pg ? pg->rounds : 0;
    double t = now_s(), el, eta;
    char e1[32], e2[32];
    if (!pg || r < 0) return;
    st = &run->stats[r];
    pg->t_ran += t - pg->t_last;
    pg->t_last = t;
    pg->ran++;
    pg->done++;
    el = t - pg->t0;
    eta = pg->t_ran / pg->ran * (double)(pg->total - pg->done);
    fmt_time(e1, sizeof e1, el);
    fmt_time(e2, sizeof e2, eta);
    if (pg->csv) {
        csv_round(pg->csv, run, r, pg->names, !per_client_out(o));
        csv_flush(pg);
    }
    if (o->quiet) {
        /* nothing on the terminal */
    } else if (pg->tty) {
        int w = 30, done = (r + 1) * w / R, q;
        fprintf(stderr, "\r%-10s seed %-3llu [", pg->label, (unsigned long long)pg->seed);
        for (q = 0; q < w; q++) fputc(q < done ? '#' : '.', stderr);
        fprintf(stderr, "] %d/%d", r + 1, R);
        if (st->val_acc == st->val_acc && o->folds) fprintf(stderr, " test %.3f", st->test_acc);
        else if (st->val_acc == st->val_acc) fprintf(stderr, " val %.3f test %.3f", st->val_acc, st->test_acc);
        fprintf(stderr, " %s, ETA %s   ", e1, e2);
        pg->bar = 1;
    } else if ((r + 1) % pg->every == 0 || r + 1 == R || r + 1 == o->stop_after) {
        char acc[64] = "val -       test -      ", def[64] = "";
        const fgl_fed_config *c = &run->cfg;
        if (st->val_acc == st->val_acc && o->folds) /* cross-validation: no validation set */
            snprintf(acc, sizeof acc, "val -       test %6.2f%%", 100 * st->test_acc);
        else if (st->val_acc == st->val_acc)
            snprintf(acc, sizeof acc, "val %6.2f%%  test %6.2f%%", 100 * st->val_acc, 100 * st->test_acc);
        /* with defences or attacks (or a rejection): the round's rejected uploads, and the robust rule's fallbacks */
        if (c->robust.rule != FGL_ROBUST_MEAN || c->attack.kind != FGL_ATTACK_NONE || c->dp.clip > 0 || c->secagg.on ||
            st->n_rejected > 0)
            snprintf(def, sizeof def, "  rejected %d", st->n_rejected);
        if (c->robust.rule != FGL_ROBUST_MEAN)
            snprintf(def + strlen(def), sizeof def - strlen(def), "  fallback %d", st->n_fallback);
        fprintf(stderr, "fglrun: %s seed %llu round %d/%d  %s  loss %.4f%s  sent %.1f MB  elapsed %s  ETA %s\n",
                pg->label, (unsigned long long)pg->seed, r + 1, R, acc, st->train_loss, def,
                (run->bytes_up + run->bytes_down) / 1e6, e1, e2);
    }
    progress_write(o, "running");
#ifdef FGLRUN_WEB
    web_round(o, run);
#endif
}

/* A run stops (finished, stopped or failed). */
FGLRUN_SHARED void progress_end(const options *o) {
    progress *pg = o->pg;
    if (!pg) return;
    if (pg->csv) fclose(pg->csv);
    pg->csv = NULL;
    if (pg->bar) fprintf(stderr, "\r%*s\r", 120, "");
    pg->bar = 0;
    pg->run = NULL;
}

/* A run finished and res holds it as seed idx: keep its curves for the plots. */
FGLRUN_SHARED void progress_run_done(const options *o, result *res, int idx, const fgl_run *run) {
    progress *pg = o->pg;
    curves *cv;
    int r, i, R, K;
    double mb = 0;
    if (!pg) return;
    cv = &pg->cv[res - pg->res];
    R = pg->rounds;
    K = run->n_clients;
    if (!cv->val) {
        cv->rounds = R;
        cv->K = K;
        cv->val = (double *)calloc((size_t)pg->seeds * R, sizeof(double));
        cv->test = (double *)calloc((size_t)pg->seeds * R, sizeof(double));
        cv->mb = (double *)calloc((size_t)pg->seeds * R, sizeof(double));
        cv->client = (double *)calloc((size_t)pg->seeds * K, sizeof(double));
    }
    if (cv->val && cv->test && cv->mb && cv->client && idx < pg->seeds && run->round == R && K == cv->K) {
        for (r = 0; r < R; r++) {
            mb += (run->stats[r].bytes_up + run->stats[r].bytes_down) / 1e6;
            cv->val[(size_t)idx * R + r] = o->folds ? NAN : run->stats[r].val_acc; /* folds: no validation set */
            cv->test[(size_t)idx * R + r] = run->stats[r].test_acc;
            cv->mb[(size_t)idx * R + r] = mb;
        }
        for (i = 0; i < K; i++) cv->client[(size_t)idx * K + i] = run->client_test[(size_t)(R - 1) * K + i];
        if (idx + 1 > cv->n) cv->n = idx + 1;
    }
    progress_write(o, "running");
}

FGLRUN_SHARED void progress_finish(progress *pg, const options *o, const char *status) {
    if (pg && o->pg) progress_write(o, status);
}

FGLRUN_SHARED void progress_free(progress *pg) {
    int a;
    for (a = 0; a < pg->n_algos && pg->cv; a++) {
        free(pg->cv[a].val);
        free(pg->cv[a].test);
        free(pg->cv[a].mb);
        free(pg->cv[a].client);
    }
    free(pg->cv);
    pg->cv = NULL;
}

/* Checkpoints: every --checkpoint-every rounds, at --stop-after and at the
 * last round; written to FILE.tmp, then renamed over FILE, so that a run
 * killed while saving keeps its previous checkpoint. */
FGLRUN_SHARED int checkpoint_due(const options *o, int done, int rounds) {
    return o->checkpoint_every <= 1 || done % o->checkpoint_every == 0 || done == rounds || done == o->stop_after;
}

FGLRUN_SHARED int checkpoint_save(const fgl_run *run, const char *path, fgl_error *err) {
    char tmp[1100];
    int rc, fd;
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if ((rc = fgl_run_save(run, tmp, err))) {
        remove(tmp); /* (a partial file: a full disk) */
        return rc;
    }
    if ((fd = open(tmp, O_RDONLY)) < 0 || fsync(fd) != 0) { /* on the disk before it replaces the last one */
        int e = errno;
        if (fd >= 0) close(fd);
        remove(tmp);
        return fgl_error_set(err, FGL_ERR_IO, "%s: cannot sync it to the disk (%s)", tmp, strerror(e));
    }
    close(fd);
    if (rename(tmp, path)) {
        int e = errno;
        remove(tmp);
        return fgl_error_set(err, FGL_ERR_IO, "%s: cannot rename it to %s (%s)", tmp, path, strerror(e));
    }
    sync_dir_of(path);
    return FGL_OK;
}

/* --config with a recorded result and nothing changed but run control: the
 * result must be identical (every per-run figure a replay compares,
 * replay_row in fglrun/result.c). 0 if it is (or there is nothing to
 * compare), 1 if not; 3 if the data files differ from those the record read
 * (missing or another checksum): then the run is no replay of the record,
 * whatever its result. */
FGLRUN_SHARED int replay_check(const options *o, const result *res) {
    const replay *rp = o->rp;
    int a, i, bad = 0, compared = 0;
    if (!rp || !rp->result) return 0;
    if (rp->changed) {
        if (!o->quiet) fprintf(stderr, "fglrun: the command line changes the recorded experiment: no comparison with %s\n", rp->what);
        return 0;
    }
    for (a = 0; a < o->n_algos; a++) {
        const jv *rec = NULL, *runs = jv_get(rp->result, "runs"), *v;
        const char *name = o->labels[a]; /* a row's "label" (a sweep's), else its "algo" */
        if (runs && runs->t == 'a') {
            for (i = 0; i < runs->n && !rec; i++)
                if (((v = jv_get(&runs->v[i], "label")) || (v = jv_get(&runs->v[i], "algo"))) && v->t == 's' &&
                    !strcmp(v->s, name))
                    rec = &runs->v[i];
        } else if ((v = jv_get(rp->result, "algo")) && v->t == 's' && !strcmp(v->s, name)) {
            rec = rp->result; /* a version-1 record of one algorithm: the row itself */
        }
        if (!rec) {
            fprintf(stderr, "fglrun: replay: %s has no recorded result for %s\n", rp->what, name);
            bad = 1;
            continue;
        }
        compared++;
        bad |= replay_row(o, name, rec, &res[a]);
    }
    if (rp->data_differ) { /* the same numbers from other data would be a coincidence, not a replay */
        fprintf(stderr, "fglrun: the data differ from the record's (%d file%s, above): this run is not a replay of %s "
                        "(its runs' scores and bytes %s the record's)\n", rp->data_differ,
                rp->data_differ > 1 ? "s" : "", rp->what, !bad && compared ? "equal" : "differ from");
        return 3;
    }
    if (!bad && compared) { /* the verdict is what --config was asked for: said even with --quiet */
        fprintf(stderr, "fglrun: replay of %s: every run's scores and bytes identical to the record\n", rp->what);
        return 0;
    }
    fprintf(stderr, "fglrun: the replay of %s differs from the record%s\n", rp->what,
            rp->secret_seed && !o->secret_seed_set
                ? " (it was run with --secret-seed S: give it again)"
                : o->dp.clip > 0 && !o->secret_seed_set
                      ? " as it must: under --dp the noise and the participants are drawn from the system's entropy, "
                        "a secret no record holds, so no two runs are alike (a run given --secret-seed S replays "
                        "with the same S)"
                      : "");
    return 1;
}

