/* fglrun/protocol.c - part of examples/fglrun.c (included by it): ways of
 * measuring other than fgl's default, for every algorithm, and the named
 * presets that set a paper's whole pipeline.
 *
 * fgl's default: each client's test accuracy (its correct test nodes over
 * its test nodes), averaged over clients, at the round of best mean
 * validation accuracy over the clients' own validation sets ("test_acc")
 * and at the last round ("last_acc"). The options below add to that:
 *   --metric personalized  also the personalised accuracy of the pFedGNN
 *       authors' code: a client's hits on class c weighted by p_c, the share
 *       of class c among the client's training nodes,
 *           pers = sum_c p_c correct_c / sum_c p_c total_c,
 *       averaged over the clients (those with sum_c p_c total_c > 0). Test
 *       nodes of classes a client never trained on do not count at all, so
 *       it favours predicting a client's own majority classes. Reported
 *       beside plain accuracy ("personalized_acc_*"), never instead of it.
 *   --select per-client  also each client's test accuracy at its own best
 *       round on the selection set (first of equal maxima), averaged over
 *       clients ("per_client_test_acc_*"; with --metric personalized also
 *       "per_client_personalized_acc_*"). Each client then reports a
 *       different round: a selection no deployed system could make without
 *       the selection set at every round.
 *   --val public  the selection set is the server's public nodes (only a
 *       scenario with --public-nodes has them; refused otherwise), scored by
 *       each client's deployed model, instead of each client's validation
 *       nodes: "test_acc" is then at the round of best mean public accuracy
 *       ("selection": "best_public").
 *   --test-first  the split option: each client's test set is the first
 *       share of its nodes in the stored order (fgl_split_config.test_first).
 * The measures come from a wrapper of the algorithm's eval_model hook: the
 * model the algorithm deploys is scored, nothing it does changes, so plain
 * accuracy and bytes are the same bits with or without these options.
 * They are node-task options, and not with --checkpoint (the extra
 * histories are not in a checkpoint) or MPI (the scores are taken where
 * the clients run).
 *
 * --protocol pfedgnn-authors sets what the pFedGNN authors' pre-release code
 * does, flag by flag (a flag given on the command line wins): label
 * Dirichlet(0.5) over 10 clients, 100 public anchor nodes, GCN d -> 16 -> C,
 * 200 SGD steps a round (lr 0.01, momentum 0.9), 50 rounds, the optimizer
 * re-created each round, 0/1 features as stored, the first 20% of each
 * client's nodes for test and the rest for training (no validation set),
 * selection per client on the public nodes, the personalised metric beside
 * plain accuracy, and for pfedgnn alpha = 0 and lam = 0.01. It prints what
 * it set; the record holds "protocol" and every flag's value.
 */
#include "fglrun.h"

static const char *const proto_preset[][2] = { /* pfedgnn-authors: flag, value (NULL: a flag without one) */
    {"split", "dirichlet"}, {"alpha", "0.5"}, {"clients", "10"}, {"public-nodes", "100"}, {"hidden", "16"},
    {"head", "none"}, {"optim", "sgd"}, {"momentum", "0.9"}, {"lr", "0.01"}, {"local-epochs", "200"},
    {"rounds", "50"}, {"reset-optim", NULL}, {"features", "raw"}, {"train-frac", "0.8"}, {"val-frac", "0"},
    {"test-first", NULL}, {"metric", "personalized"}, {"select", "per-client"}, {"val", "public"}};
static const char *const proto_preset_sets[][2] = {{"alpha", "0"}, {"lam", "0.01"}}; /* pfedgnn's --set */

/* --protocol NAME: its flags where none was given, then its --set values for pfedgnn where none was set.
 * 0, or 2 (said). */
FGLRUN_SHARED int protocol_apply(options *o) {
    char msg[256], said[1024];
    size_t k, n = 0;
    int a, has_pfedgnn = 0;
    if (o->protocol == 0) return 0;
    said[0] = 0;
    for (k = 0; k < sizeof proto_preset / sizeof proto_preset[0]; k++) {
        const opt_def *d = opt_row(proto_preset[k][0]);
        if (opt_given(o, d->name)) continue;
        if (opt_set(o, d, proto_preset[k][1], msg, sizeof msg)) return bad("--protocol: %s", msg);
        o->given[d - opt_table] = 1;
        n += (size_t)snprintf(said + n, n < sizeof said ? sizeof said - n : 0, " --%s%s%s", d->name,
                              proto_preset[k][1] ? " " : "", proto_preset[k][1] ? proto_preset[k][1] : "");
    }
    for (a = 0; a < o->n_algos; a++) has_pfedgnn |= !strcmp(o->algos[a], "pfedgnn");
    for (k = 0; has_pfedgnn && k < sizeof proto_preset_sets / sizeof proto_preset_sets[0]; k++) {
        const char *key = proto_preset_sets[k][0];
        int s, set = 0;
        for (s = 0; s < o->n_sets; s++) { /* key=... or pfedgnn.key=... given: it wins */
            size_t len = strcspn(o->sets[s], "=");
            const char *p = o->sets[s];
            if (!strncmp(p, "pfedgnn.", 8)) p += 8, len -= 8;
            set |= strlen(key) == len && !strncmp(p, key, len);
        }
        if (set || o->n_sets == MAX_ITEMS) continue;
        snprintf(o->sets[o->n_sets++], sizeof o->sets[0], "pfedgnn.%s=%s", key, proto_preset_sets[k][1]);
        n += (size_t)snprintf(said + n, n < sizeof said ? sizeof said - n : 0, " --set pfedgnn.%s=%s", key,
                              proto_preset_sets[k][1]);
    }
    if (!o->quiet && n) fprintf(stderr, "fglrun: --protocol pfedgnn-authors set:%s\n", said);
    return 0;
}

/* The personalised accuracy of one client (see above): NaN when no test node
 * is of a class it trained on. */
static double personalized_accuracy(const int *correct, const int *count, const double *p, int C) {
    double num = 0, den = 0;
    int c;
    for (c = 0; c < C; c++) {
        num += p[c] * correct[c];
        den += p[c] * count[c];
    }
    return den > 0 ? num / den : NAN;
}

/* The mean of the defined (not NaN) entries of x[0..n-1] (stride 1); NaN if none. */
static double mean_defined(const double *x, int n) {
    double s = 0;
    int i, m = 0;
    for (i = 0; i < n; i++)
        if (x[i] == x[i]) {
            s += x[i];
            m++;
        }
    return m ? s / m : NAN;
}

/* The round (0-based) of the best mean over clients of sel (R x K, NaN where
 * a round was not evaluated), the first of equal ones; -1 if none. */
static int select_global(const double *sel, int R, int K) {
    int r, best = -1;
    double bv = 0;
    for (r = 0; r < R; r++) {
        double m = mean_defined(sel + (size_t)r * K, K);
        if (m == m && (best < 0 || m > bv)) {
            best = r;
            bv = m;
        }
    }
    return best;
}

/* Each client's own round of best sel (first of equal maxima): out[i] =
 * val[r_i K + i] (NaN when client i has none); rounds (may be NULL) gets r_i.
 * Returns the mean of the defined out[i]. */
static double select_per_client(const double *sel, const double *val, int R, int K, double *out, int *rounds) {
    int i, r;
    for (i = 0; i < K; i++) {
        int best = -1;
        for (r = 0; r < R; r++) {
            double v = sel[(size_t)r * K + i];
            if (v == v && (best < 0 || v > sel[(size_t)best * K + i])) best = r;
        }
        out[i] = best < 0 ? NAN : val[(size_t)best * K + i];
        if (rounds) rounds[i] = best;
    }
    return mean_defined(out, K);
}

/* --- the wrapper of eval_model: what one run's clients score --- */

typedef struct proto_watch {
    const fgl_algo *base;       /* the algorithm wrapped */
    const fgl_run *run;
    int K, C, R, pers, pub;
    double *p;                  /* K x C: each client's training label distribution */
    unsigned char **mask;       /* K x C: client i's test nodes of class c */
    fgl_gnn_graph *pubg;        /* K: the public nodes prepared for client i's model */
    const int *pub_y;
    fgl_tape *tape;             /* K: tapes of these evaluations */
    double *pers_acc, *pub_acc; /* R x K: NaN where not evaluated */
} proto_watch;

static proto_watch PW; /* one run at a time */

/* The run whose clients proto_eval scores (run_one: once the run is set up). */
FGLRUN_SHARED void proto_watch_run(const fgl_run *run) { PW.run = run; }

FGLRUN_SHARED int proto_on(const options *o) { return o->metric || o->select_pc || o->val_public; }

static fgl_model *proto_eval(fgl_client *c) {
    fgl_model *m = PW.base->eval_model ? PW.base->eval_model(c) : &c->model;
    int r = PW.run->round, i = c->id, C = PW.C, q;
    size_t k = (size_t)r * PW.K + (size_t)i;
    if (!m || r >= PW.R || i < 0 || i >= PW.K) return m;
    if (PW.pers) {
        int *cnt = (int *)malloc(sizeof(int) * 2 * (size_t)C);
        double *acc = (double *)malloc(sizeof(double) * (size_t)C);
        const unsigned char **masks = (const unsigned char **)calloc((size_t)C, sizeof(char *));
        if (cnt && acc && masks) {
            for (q = 0; q < C; q++) masks[q] = PW.mask[(size_t)i * C + q];
            if (!fgl_model_evaluate(m, &PW.tape[i], &c->data.full, c->data.node->y, masks, C, acc, cnt, cnt + C))
                PW.pers_acc[k] = personalized_accuracy(cnt, cnt + C, PW.p + (size_t)i * C, C);
        }
        free(cnt);
        free(acc);
        free(masks);
    }
    if (PW.pub) {
        double a;
        if (!fgl_model_evaluate(m, &PW.tape[i], &PW.pubg[i], PW.pub_y, NULL, 1, &a, NULL, NULL)) PW.pub_acc[k] = a;
    }
    return m;
}

FGLRUN_SHARED void proto_free(void) {
    int i;
    for (i = 0; PW.tape && i < PW.K; i++) fgl_tape_free(&PW.tape[i]);
    for (i = 0; PW.pubg && i < PW.K; i++) fgl_gnn_graph_free(&PW.pubg[i]);
    for (i = 0; PW.mask && i < PW.K * PW.C; i++) free(PW.mask[i]);
    free(PW.tape);
    free(PW.pubg);
    free(PW.mask);
    free(PW.p);
    free(PW.pers_acc);
    free(PW.pub_acc);
    memset(&PW, 0, sizeof PW);
}

/* Before a run: the wrapper in *wrapped, the clients' masks and label
 * distributions, the public graphs. 0, or 1 (said). */
FGLRUN_SHARED int proto_begin(const options *o, const fgl_algo *algo, fgl_algo *wrapped, const fgl_client_data *cd,
                              int K, const fgl_node_data *pub, int rounds) {
    int i, j, q, C = 0;
    size_t RK = (size_t)rounds * (size_t)K;
    fgl_error err;
    memset(&PW, 0, sizeof PW);
    for (i = 0; i < K; i++) C = cd[i].spec.out_dim > C ? cd[i].spec.out_dim : C;
    PW.base = algo;
    PW.K = K;
    PW.C = C;
    PW.R = rounds;
    PW.pers = o->metric;
    PW.pub = o->val_public;
    PW.p = (double *)calloc((size_t)K * (size_t)C, sizeof(double));
    PW.mask = (unsigned char **)calloc((size_t)K * (size_t)C, sizeof(char *));
    PW.tape = (fgl_tape *)calloc((size_t)K, sizeof(fgl_tape));
    PW.pubg = (fgl_gnn_graph *)calloc((size_t)K, sizeof(fgl_gnn_graph));
    PW.pers_acc = (double *)malloc(sizeof(double) * (RK ? RK : 1));
    PW.pub_acc = (double *)malloc(sizeof(double) * (RK ? RK : 1));
    if (!PW.p || !PW.mask || !PW.tape || !PW.pubg || !PW.pers_acc || !PW.pub_acc) {
        fprintf(stderr, "fglrun: out of memory\n");
        proto_free();
        return 1;
    }
    for (j = 0; j < (int)RK; j++) PW.pers_acc[j] = PW.pub_acc[j] = NAN;
    for (i = 0; i < K; i++) {
        const fgl_node_data *d = cd[i].node;
        double tot = 0;
        fgl_tape_init(&PW.tape[i]);
        for (q = 0; q < C; q++)
            if (!(PW.mask[(size_t)i * C + q] = (unsigned char *)calloc((size_t)(d->n_nodes > 0 ? d->n_nodes : 1), 1))) {
                fprintf(stderr, "fglrun: out of memory\n");
                proto_free();
                return 1;
            }
        for (j = 0; j < d->n_nodes; j++) {
            int y = d->y ? d->y[j] : -1;
            if (y < 0 || y >= C || !d->split) continue;
            if (d->split[j] == FGL_SPLIT_TEST) PW.mask[(size_t)i * C + y][j] = 1;
            if (d->split[j] == FGL_SPLIT_TRAIN) {
                PW.p[(size_t)i * C + y] += 1;
                tot += 1;
            }
        }
        for (q = 0; q < C; q++) PW.p[(size_t)i * C + q] /= tot > 0 ? tot : 1;
        /* the public nodes as client i's model reads them (built here, one thread: the data's caches) */
        if (PW.pub && fgl_gnn_graph_from_node_data(&PW.pubg[i], (fgl_node_data *)pub, &cd[i].spec, &err)) {
            fprintf(stderr, "fglrun: --val public: %s\n", err.msg);
            proto_free();
            return 1;
        }
    }
    PW.pub_y = pub ? pub->y : NULL;
    *wrapped = *algo;
    wrapped->eval_model = proto_eval;
    return 0;
}

/* After a run: the selections and metrics of seed idx into res. */
FGLRUN_SHARED void proto_finish(const options *o, const fgl_run *run, result *res, int idx) {
    int K = run->n_clients, R = run->round, r;
    const double *sel = o->val_public ? PW.pub_acc : run->client_val;
    double *tmp = (double *)malloc(sizeof(double) * (size_t)(K > 0 ? K : 1));
    if (!tmp) return;
    r = select_global(sel, R, K);
    if (o->val_public) {
        res->best[idx] = r >= 0 ? mean_defined(run->client_test + (size_t)r * K, K) : NAN;
        res->val[idx] = r >= 0 ? mean_defined(sel + (size_t)r * K, K) : NAN;
    }
    res->pers[idx] = r >= 0 ? mean_defined(PW.pers_acc + (size_t)r * K, K) : NAN;
    res->pers_last[idx] = R > 0 ? mean_defined(PW.pers_acc + (size_t)(R - 1) * K, K) : NAN;
    res->pc[idx] = select_per_client(sel, run->client_test, R, K, tmp, NULL);
    res->pc_pers[idx] = select_per_client(sel, PW.pers_acc, R, K, tmp, NULL);
    free(tmp);
}

/* The option combinations these measures cannot serve. 0, or 2 (said). */
FGLRUN_SHARED int proto_check(const options *o, const fgl_scenario *sc) {
    if (!proto_on(o)) return 0;
    if (sc->task != FGL_TASK_NODE)
        return bad("%s", "--metric personalized, --select per-client and --val public are for node classification");
    if (o->val_public && sc->pub.n_nodes == 0)
        return bad("%s", "--val public selects on the server's public nodes, but this scenario has none: give "
                         "--public-nodes N (N > 0) to withhold N nodes as public data, or select on the clients' "
                         "validation sets (--val clients)");
    if (o->select_pc && !o->val_public && o->val_frac == 0)
        return bad("%s", "--select per-client with --val-frac 0: the clients have no validation set to select on; "
                         "give --val public (with --public-nodes N) or a validation fraction");
    if (o->checkpoint) return bad("%s", "--metric, --select and --val public are not kept in checkpoints: run them "
                                        "without --checkpoint");
#ifdef FGL_MPI
    return bad("%s", "--metric, --select and --val public score where the clients run: not over MPI (use fglrun)");
#else
    return 0;
#endif
}

/* JSON: the measures' means over the runs (each run's own value is in its
 * per_run object, fglrun/result.c). */
FGLRUN_SHARED void proto_json(FILE *f, const options *o, const result *res) {
    if (proto_on(o)) fprintf(f, ", \"selection_set\": \"%s\"", o->val_public ? "public nodes" : "clients' validation");
    if (o->metric) {
        json_mean_std(f, "personalized_acc", res->pers, res->n);
        json_mean_std(f, "personalized_last_acc", res->pers_last, res->n);
    }
    if (o->select_pc) json_mean_std(f, "per_client_test_acc", res->pc, res->n);
    if (o->select_pc && o->metric) json_mean_std(f, "per_client_personalized_acc", res->pc_pers, res->n);
}

/* The table's lines for these measures (mean +- std over seeds, in %). */
FGLRUN_SHARED void proto_table(const options *o, const result *res) {
    int a;
    if (!proto_on(o)) return;
    printf("\n%-10s %18s %18s %18s %18s   (selection on the %s)\n", "algorithm", "test (selected)",
           "personalised", "test (per client)", "pers. (per client)",
           o->val_public ? "public nodes" : "clients' validation sets");
    for (a = 0; a < o->n_algos; a++) {
        const double *x[4];
        int k, on[4];
        if (res[a].n == 0) continue;
        x[0] = res[a].best;
        x[1] = res[a].pers;
        x[2] = res[a].pc;
        x[3] = res[a].pc_pers;
        on[0] = 1;
        on[1] = o->metric;
        on[2] = o->select_pc;
        on[3] = o->metric && o->select_pc;
        printf("%-10s", o->algos[a]);
        for (k = 0; k < 4; k++) {
            double m, s;
            mean_std(x[k], res[a].n, &m, &s);
            if (on[k]) printf(" %10.2f +- %5.2f", 100 * m, 100 * s);
            else printf(" %18s", "-");
        }
        printf("\n");
    }
}
