/* fglrun - run any federated algorithm on any dataset and split.
 *
 *   fglrun [--algo NAME[,NAME...]] [--data NAME[,NAME...]|synthetic[:N]] [--rounds R] ...
 *
 * `fglrun --help` prints the synopsis and what each flag does; every flag
 * is one row of the option table in fglrun/options.c, which the synopsis,
 * the parser, the run record and --config read.
 *
 * With no arguments it runs the embedded default: a synthetic federated
 * node-classification benchmark (planted communities with different label
 * mixes, 10 METIS clients, 5% of each client's nodes labelled for training)
 * with several algorithms side by side, and prints a table. Named datasets
 * are read from the data directory ($FGL_DATA, else ./data, else
 * ~/.local/share/fgl; --data-dir DIR): node/NAME (node classification) or tu/NAME (graph classification); a
 * comma list gives one dataset per client. `fglrun --help` lists
 * everything, `fglrun --algo NAME --help` that algorithm's parameters.
 *
 * A program of your own can run fglrun with algorithms it registers:
 *       #define FGLRUN_NO_MAIN
 *       #include "examples/fglrun.c"       // brings the implementation too
 *       int main(int c, char **v) {
 *           fgl_algo a = fgl_algo_base("fedavg"); a.name = "mine"; ...
 *           fgl_algo_register(&a);
 *           return fglrun_main(c, v);      // --algo mine, --set, --out ... work
 *       }
 *
 * Built with -DFGL_MPI (make mpi: build/fglrun_mpi) it runs under mpirun:
 * rank 0 loads the data, is the server and prints the results; the other
 * ranks host the clients (fgl_fed.h, "Distributed runs over MPI"). The same
 * flags give the same bits as fglrun. Such a program of your own returns
 * fglrun_mpi_main(c, v) instead (tests/user_fglrun.c does both).
 *
 * The parts, included below in this order, in examples/fglrun/: json.c (a
 * growable string, JSON out and in), files.c (files written whole or not at
 * all, locks, signals), options.c (the options and their table),
 * homophily.c (the homophily of the data and of each client), record.c (run
 * records and --config), protocol.c (other ways of measuring, the presets),
 * link.c (--task link), metrics.c (--score, macro-F1 and ROC-AUC, the
 * defences' lines), result.c (the results as JSON, and what a replay
 * compares), progress.c (progress, partial results, the per-round CSV,
 * checkpoints), plots.c (SVG plots), mpi_main.c (-DFGL_MPI: fglrun over
 * MPI). Each begins with fglrun/fglrun.h, which holds fglrun's types and
 * what each part defines for the others, so that each part also compiles
 * alone (tests/house_check.sh checks it); this file holds the models, the
 * data, the runs and main.
 */
#define _POSIX_C_SOURCE 200809L
#define FGL_IMPLEMENTATION
#include "fgl_fed.h"

#define FGLRUN_UNITY /* one translation unit: what the parts share is static (fglrun/fglrun.h) */
#include "fglrun/fglrun.h"

#include "fglrun/json.c"
#include "fglrun/files.c"
#include "fglrun/options.c"
#include "fglrun/homophily.c"
#include "fglrun/record.c"
#include "fglrun/protocol.c"
#include "fglrun/link.c"
#include "fglrun/metrics.c"
#include "fglrun/result.c"
#include "fglrun/progress.c"
#include "fglrun/plots.c"
#include "fglrun/mpi_main.c"

/* --- models ---------------------------------------------------------------------------- */

/* 1 if --model gives clients different architectures. */
static int mixed_models(const options *o) {
    int k;
    for (k = 1; k < o->n_archs; k++)
        if (o->archs[k] != o->archs[0]) return 1;
    return 0;
}

/* Every client's model spec: the template sized to its data, then with
 * --model a,b,c the architecture of its block (client i of K gets entry
 * n i / K). cd holds sc->n_clients entries. */
static int client_specs(const options *o, const fgl_scenario *sc, const fgl_model_spec *tmpl, int task,
                        fgl_client_data *cd, fgl_error *err) {
    int i;
    if (fgl_scenario_clients(sc, tmpl, cd, sc->n_clients, err)) return 1;
    for (i = 0; o->n_archs > 1 && i < sc->n_clients; i++) {
        fgl_model_spec sp = model_spec(o, o->archs[(int)((long)o->n_archs * i / sc->n_clients)], task);
        sp.task = cd[i].spec.task;
        sp.in_dim = cd[i].spec.in_dim;
        sp.out_dim = cd[i].spec.out_dim;
        sp.pe_dim = cd[i].spec.pe_dim;
        cd[i].spec = sp;
    }
    return o->task == FGL_TASK_LINK && link_clients(o, sc, cd, err); /* the edge splits, the encoders */
}

/* Algorithms that share weights need one model for every client. */
static int check_models(const options *o) {
    int a, i;
    if (!mixed_models(o)) return 0;
    for (a = 0; a < o->n_algos; a++) {
        const fgl_algo *al = fgl_algo_find(o->algos[a]);
        if (!fgl_algo_shares_weights(al)) continue;
        fprintf(stderr, "fglrun: --model gives clients different architectures, but %s shares model weights, so every "
                        "client needs the same model. Algorithms that share no weights:", al->name);
        for (i = 0; i < fgl_algo_count(); i++)
            if (!fgl_algo_shares_weights(fgl_algo_at(i))) fprintf(stderr, " %s", fgl_algo_at(i)->name);
        fprintf(stderr, "\n");
        return 2;
    }
    return 0;
}

/* --- data ------------------------------------------------------------------------------ */

static int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* The dataset, prepared as the protocols do (the library's fgl_dataset_load),
 * and its split (fgl_scenario_make). */
static int load_data(const options *o, fgl_dataset *ds, fgl_error *err) {
    fgl_dataset_config opt = fgl_dataset_default();
    /* without --data-dir the library's rule (fgl_data_dir), whose message says every directory it tried */
    const char *dir = opt_given(o, "data-dir") ? o->data_dir : NULL;
    opt.lcc = o->lcc;
    opt.raw_features = o->raw_features;
    opt.k_dse = o->k_dse;
    opt.k_rwse = o->k_rwse;
    return fgl_dataset_load(ds, dir, o->data[0] ? o->data : opt_row("data")->dflt,
                            o->task == FGL_TASK_LINK ? FGL_TASK_NODE : o->task, &opt, o->split_seed, err);
}

static int make_scenario(const options *o, int fold, const fgl_dataset *ds, fgl_scenario *sc, fgl_error *err) {
    fgl_split_config c = fgl_split_default();
    c.how = o->split;
    c.clients = o->clients;
    c.alpha = o->alpha;
    c.resolution = o->resolution;
    c.metis_parts = o->metis_parts;
    c.min_per_client = o->min_per_client;
    c.train = o->train_frac;
    c.val = o->val_frac;
    c.keep_split = o->public_split;
    c.stratified = o->stratified;
    c.public_nodes = o->public_nodes;
    c.test_first = o->test_first;
    c.seed = o->split_seed;
    c.folds = o->folds;
    c.fold = fold;
    c.split_global = o->split_global;
    c.halo = o->halo;
    c.use_fixed_split = o->n_fixed > 0; /* `fold` is then the fixed split's index */
    c.fixed_split = fold;
    if (o->partition_file) { /* the clients from a file (gpmetis's output): read whole, checked, then used */
        int rc, *part, k = 0;
        if (ds->task != FGL_TASK_NODE)
            return fgl_error_set(err, FGL_ERR_ARG, "--partition-file: %s is not a node-classification dataset",
                                 ds->label);
        if (!(part = (int *)malloc(sizeof(int) * (size_t)(ds->node.n_nodes > 0 ? ds->node.n_nodes : 1))))
            return fgl_error_set(err, FGL_ERR_NOMEM, "out of memory");
        rc = fgl_read_partition(o->partition_file, ds->node.n_nodes, o->clients, part, &k, err);
        if (!rc && o->clients > 0 && k != o->clients)
            rc = fgl_error_set(err, FGL_ERR_SHAPE, "--partition-file %s names %d parts, --clients %d",
                               o->partition_file, k, o->clients);
        if (!rc) {
            c.how = FGL_PART_GIVEN;
            c.clients = k;
            c.part = part;
            c.part_n = ds->node.n_nodes;
            rc = fgl_scenario_make(sc, ds, &c, err);
        }
        free(part);
        return rc;
    }
    return fgl_scenario_make(sc, ds, &c, err);
}

/* FED-PUB's Table 4 statistics of a split: the mean over clients of each
 * subgraph's mean clustering coefficient, and the median over client pairs
 * of the Jensen-Shannon divergence of their label distributions (all their
 * labelled nodes, or graphs), natural log; FED-PUB's text says divergence,
 * scipy's jensenshannon returns its square root, so both are printed. */
static void split_statistics(const fgl_scenario *sc, int C, double *clustering, double *jsd, double *jsdist) {
    int K = sc->n_clients, i, j, q = 0, n_pairs = K * (K - 1) / 2;
    double *dist = (double *)calloc((size_t)(K > 0 ? K : 1) * (size_t)(C > 0 ? C : 1), sizeof(double));
    double *pairs = (double *)calloc((size_t)(n_pairs > 0 ? n_pairs : 1), sizeof(double));
    *clustering = 0;
    for (i = 0; i < K; i++) {
        const int *y = sc->node ? sc->node[i].y : sc->graphs[i].y;
        int n = sc->node ? sc->node[i].n_nodes : sc->graphs[i].n_graphs, v;
        if (sc->node) *clustering += fgl_graph_mean_clustering(&sc->node[i].adj) / K;
        for (v = 0; v < n; v++)
            if (y[v] >= 0 && y[v] < C) dist[(size_t)i * C + y[v]] += 1;
    }
    for (i = 0; i < K; i++)
        for (j = i + 1; j < K; j++) pairs[q++] = fgl_js_divergence(dist + (size_t)i * C, dist + (size_t)j * C, C);
    for (i = 1; i < q; i++) /* sort for the median */
        for (j = i; j > 0 && pairs[j - 1] > pairs[j]; j--) {
            double t = pairs[j];
            pairs[j] = pairs[j - 1];
            pairs[j - 1] = t;
        }
    *jsd = q == 0 ? 0 : q % 2 ? pairs[q / 2] : 0.5 * (pairs[q / 2 - 1] + pairs[q / 2]);
    for (i = 0; i < q; i++) pairs[i] = sqrt(pairs[i]); /* monotone: still sorted */
    *jsdist = q == 0 ? 0 : q % 2 ? pairs[q / 2] : 0.5 * (pairs[q / 2 - 1] + pairs[q / 2]);
    free(dist);
    free(pairs);
}

static void print_info(const fgl_dataset *ds, const fgl_scenario *sc, int split) {
    int i, C = ds->task == FGL_TASK_NODE ? ds->node.n_classes : ds->sets[0].n_classes;
    double clustering, jsd, jsdist;
    fgl_homophily hg, *hc = NULL; /* node data: the homophily of the graph and of each client */
    sbuf hb = {0, 0, 0, 0};
    if (homophily_compute(ds, sc, &hg, &hc)) hc = NULL;
    printf("{\"data\": ");
    json_str(stdout, ds->label);
    printf(", \"task\": \"%s\", \"split\": \"%s\", \"clients\": %d", ds->task == FGL_TASK_NODE ? "node" : "graph",
           fgl_part_name(split), sc->n_clients);
    for (i = 1; i < ds->n_sets; i++) C = ds->sets[i].n_classes > C ? ds->sets[i].n_classes : C;
    split_statistics(sc, C, &clustering, &jsd, &jsdist);
    printf(", \"label_jsd_median\": ");
    json_num(stdout, "%.4f", jsd);
    printf(", \"label_js_distance_median\": ");
    json_num(stdout, "%.4f", jsdist);
    if (ds->task == FGL_TASK_NODE) {
        printf(", \"nodes\": %d, \"edges\": %d, \"features\": %d, \"classes\": %d, \"features_prep\": ",
               ds->node.n_nodes, fgl_graph_num_edges(&ds->node.adj), ds->node.n_feat, ds->node.n_classes);
        json_str(stdout, ds->features);
        printf(", \"clustering_full\": ");
        json_num(stdout, "%.4f", fgl_graph_mean_clustering(&ds->node.adj));
        printf(", \"clustering_clients\": ");
        json_num(stdout, "%.4f", clustering);
        if (sc->edge_cut >= 0) printf(", \"edge_cut\": %ld", sc->edge_cut);
        if (sc->pub.n_nodes > 0) printf(", \"public_nodes\": %d", sc->pub.n_nodes);
        if (hc) { /* the graph's, and the spread over the clients (each client's in per_client) */
            homophily_json(&hb, &hg, hc, sc->n_clients, 0);
            if (hb.s && !hb.oom) printf(", \"homophily\": %s", hb.s);
            free(hb.s);
        }
    } else {
        long graphs = 0, edges = 0;
        for (i = 0; i < ds->n_sets; i++) {
            graphs += ds->sets[i].n_graphs;
            edges += fgl_graph_num_edges(&ds->sets[i].adj);
        }
        printf(", \"graphs\": %ld, \"edges\": %ld", graphs, edges);
    }
    printf(", \"per_client\": [");
    for (i = 0; i < sc->n_clients; i++) {
        if (sc->node) {
            const fgl_node_data *d = &sc->node[i];
            printf("%s{\"nodes\": %d, \"edges\": %d, \"train\": %d, \"val\": %d, \"test\": %d, \"clustering\": ",
                   i ? ", " : "", d->n_nodes, fgl_graph_num_edges(&d->adj),
                   fgl_split_indices(d->split, d->n_nodes, FGL_SPLIT_TRAIN, NULL),
                   fgl_split_indices(d->split, d->n_nodes, FGL_SPLIT_VAL, NULL),
                   fgl_split_indices(d->split, d->n_nodes, FGL_SPLIT_TEST, NULL));
            json_num(stdout, "%.4f", fgl_graph_mean_clustering(&d->adj));
            print_node_label_counts(d, ds->node.n_classes);
            if (hc) {
                sbuf cb = {0, 0, 0, 0};
                homophily_members(&cb, &hc[i]);
                if (cb.s && !cb.oom) printf(", \"homophily\": {%s}", cb.s);
                free(cb.s);
            }
            printf("}");
        } else {
            const fgl_graph_set *g = &sc->graphs[i];
            int c, *counts = (int *)calloc((size_t)(g->n_classes > 0 ? g->n_classes : 1), sizeof(int));
            for (c = 0; c < g->n_graphs; c++) counts[g->y[c]]++;
            printf("%s{\"name\": ", i ? ", " : "");
            json_str(stdout, g->name);
            printf(", \"graphs\": %d, \"nodes\": %d, \"features\": %d, \"classes\": %d, \"train\": %d, "
                   "\"val\": %d, \"test\": %d, \"label_counts\": [", g->n_graphs, g->n_nodes,
                   g->n_feat, g->n_classes, fgl_split_indices(g->split, g->n_graphs, FGL_SPLIT_TRAIN, NULL),
                   fgl_split_indices(g->split, g->n_graphs, FGL_SPLIT_VAL, NULL),
                   fgl_split_indices(g->split, g->n_graphs, FGL_SPLIT_TEST, NULL));
            for (c = 0; c < g->n_classes; c++) printf("%s%d", c ? ", " : "", counts[c]);
            printf("]");
            print_graph_stat_ranges(g);
            printf("}");
            free(counts);
        }
    }
    printf("]}\n");
    free(hc);
}

/* --- outputs ---------------------------------------------------------------------------- */

static void write_round_csv(const char *dir, const char *algo, uint64_t seed, const fgl_run *run,
                            const char *const *names, int link, int agg) {
    char path[1024];
    outfile w;
    int r;
    snprintf(path, sizeof path, "%s/%s_seed%llu_rounds.csv", dir, algo, (unsigned long long)seed);
    if (!out_open(&w, path)) return;
    csv_header(w.f, names, link, agg);
    for (r = 0; r < run->round; r++) csv_round(w.f, run, r, names, agg);
    out_commit(&w);
}

/* Each client's dominant label (the most frequent among its labelled
 * samples; ties to the smaller label) and its share, and an order of the
 * clients by dominant label, then by that share (descending), then by id. */
static void client_order(const fgl_client_data *cd, int K, int *order, int *dom, double *share) {
    int i, j;
    for (i = 0; i < K; i++) {
        int n = cd[i].node ? cd[i].node->n_nodes : cd[i].graphs->n_graphs, C = cd[i].spec.out_dim, q, best = 0, tot = 0;
        const int *y = cd[i].node ? cd[i].node->y : cd[i].graphs->y;
        int *cnt = (int *)calloc((size_t)(C > 0 ? C : 1), sizeof(int));
        for (q = 0; cnt && q < n; q++)
            if (y[q] >= 0 && y[q] < C) {
                cnt[y[q]]++;
                tot++;
            }
        for (q = 1; cnt && q < C; q++)
            if (cnt[q] > cnt[best]) best = q;
        dom[i] = best;
        share[i] = cnt && tot ? (double)cnt[best] / tot : 0;
        free(cnt);
        order[i] = i;
    }
    for (i = 1; i < K; i++) /* insertion sort: K is small */
        for (j = i; j > 0; j--) {
            int a = order[j - 1], b = order[j], t;
            if (dom[a] < dom[b] || (dom[a] == dom[b] && (share[a] > share[b] || (share[a] == share[b] && a < b)))) break;
            t = order[j - 1];
            order[j - 1] = order[j];
            order[j] = t;
        }
}

/* The algorithm's client-to-client matrix as CSV (rows and columns in
 * client order) and as an SVG heatmap whose rows and columns follow `order`
 * (NULL: client order), rows labelled "id:dominant label" when dom is given,
 * "id:dataset" when names are (the plots section draws it). */
static void write_matrix(const char *dir, const char *algo, uint64_t seed, const fgl_run *run, const int *order,
                         const int *dom, const char *const *names) {
    int K = run->n_clients, i, j;
    float *m = run->algo.client_matrix ? (float *)malloc(sizeof(float) * (size_t)K * (size_t)K) : NULL;
    char path[1024];
    outfile w;
    if (!m) return;
    if (fgl_run_client_matrix(run, m) != FGL_OK) {
        free(m);
        return;
    }
    snprintf(path, sizeof path, "%s/%s_seed%llu_matrix.csv", dir, algo, (unsigned long long)seed);
    if (out_open(&w, path)) {
        for (i = 0; i < K; i++)
            for (j = 0; j < K; j++) fprintf(w.f, "%.6g%c", m[i * K + j], j + 1 < K ? ',' : '\n');
        out_commit(&w);
    }
    snprintf(path, sizeof path, "%s/%s_seed%llu_matrix.svg", dir, algo, (unsigned long long)seed);
    svg_heatmap(path, algo, run->round, m, K, order, dom, names);
    free(m);
}

/* --- running --------------------------------------------------------------------------- */

/* A parameter whose non-zero value trains on labels the protocol holds out
 * (the authors' pipelines, for reproduction only): its description, or NULL. */
static const char *label_leak(const fgl_run *run) {
    double v = fgl_run_get(run, "val_centres"); /* NaN: not a parameter of this algorithm */
    if (v == v && v != 0)
        return "val_centres=1: validation labels train the prototypes (label leakage, the authors' code; for "
               "reproduction only)";
    return NULL;
}

/* The checkpoint file of one run: FILE itself, or FILE.ALGO.seedS when
 * there are several runs. */
static void checkpoint_path(const options *o, const char *algo, uint64_t seed, int fold, char *out, size_t cap) {
    if (o->n_algos == 1 && o->seeds == 1 && (!o->folds || o->fold >= 0) && (!o->n_fixed || o->split_index >= 0))
        snprintf(out, cap, "%s", o->checkpoint);
    else if (o->folds) snprintf(out, cap, "%s.%s.fold%d.seed%llu", o->checkpoint, algo, fold, (unsigned long long)seed);
    else if (o->n_fixed)
        snprintf(out, cap, "%s.%s.split%d.seed%llu", o->checkpoint, algo, fold, (unsigned long long)seed);
    else snprintf(out, cap, "%s.%s.seed%llu", o->checkpoint, algo, (unsigned long long)seed);
}

/* The configuration of a run: the protocol's defaults for the task, then the flags. */
static fgl_fed_config run_config(const options *o, int task, uint64_t seed) {
    fgl_fed_config cfg = fgl_fed_default(task);
    if (o->rounds > 0) cfg.rounds = o->rounds;
    if (o->local_epochs >= 0) cfg.local_epochs = o->local_epochs;
    if (o->batch > 0) cfg.batch_size = o->batch;
    if (o->optim >= 0) { /* another optimizer with the protocol's learning rate and weight decay */
        fgl_optim_config oc = fgl_optim_default(o->optim);
        oc.lr = cfg.optim.lr;
        oc.weight_decay = cfg.optim.weight_decay;
        if (o->momentum >= 0) oc.momentum = (float)o->momentum;
        cfg.optim = oc;
    }
    if (o->lr >= 0) cfg.optim.lr = (float)o->lr;
    if (o->wd >= 0) cfg.optim.weight_decay = (float)o->wd;
    cfg.frac = (float)o->frac;
    cfg.mem_limit = o->mem_limit_gb * 1e9;
    cfg.seed = seed;
    cfg.threads = o->threads;
    cfg.park_idle = o->park_idle;
    if (o->reset_optim) cfg.reset_optim = 1;
    if (o->eval_point >= 0) cfg.eval_after_train = o->eval_point;
    cfg.eval_every = o->eval_every;
    cfg.metric = o->score_metric;
    cfg.robust = o->robust;
    cfg.attack = o->attack;
    cfg.dp = o->dp;
    cfg.secagg = o->secagg;
    cfg.plugin = o->plugin;
    cfg.secrets.from_seed = o->secret_seed_set;
    cfg.secrets.seed = o->secret_seed;
    return cfg;
}

/* Applies --set s (key=value, or algo.key=value for that algorithm only:
 * checked before) to run if it concerns its algorithm: 0, or 2 (a bad value)
 * with the message on stderr. */
static int apply_set(fgl_run *run, const fgl_algo *algo, const char *s, const char *note) {
    char key[128], *eq, *dot, *name;
    fgl_error err;
    double now;
    strcpy(key, s);
    eq = strchr(key, '=');
    *eq = 0;
    name = key;
    dot = strchr(key, '.');
    if (dot) {
        *dot = 0;
        if (strcmp(key, algo->name) != 0) return 0;
        name = dot + 1;
    }
    now = fgl_run_get(run, name);
    if (now != now) return 0; /* NaN: not a parameter of this algorithm */
    if (fgl_run_set(run, name, eq + 1, &err)) {
        fprintf(stderr, "fglrun: %s%s\n", err.msg, note);
        return 2;
    }
    return 0;
}

/* A run of slot's algorithm set up (fgl_run_init, the server's public data,
 * the --set values that concern it, then the slot's swept values): 0, or 1
 * (an error) or 2 (a bad parameter) with the message on stderr (note: said
 * after it, e.g. that nothing was run) and nothing left to free. */
/* algo: the slot's algorithm, or a wrapped copy of it (NULL: the slot's own) */
static int run_setup(const options *o, int slot, const fgl_algo *algo, const fgl_fed_config *cfg,
                     fgl_client_data *cd, int K, const fgl_node_data *pub, fgl_run *run, const char *note) {
    fgl_error err;
    int k;
    if (!algo) algo = fgl_algo_find(o->algos[slot]);
    if (fgl_run_init(run, cfg, algo, cd, K, &err)) {
        fprintf(stderr, "fglrun: %s%s\n", err.msg, note);
        return 1;
    }
    if (pub && pub->n_nodes > 0 && fgl_run_set_public(run, pub, &err)) {
        fprintf(stderr, "fglrun: %s%s\n", err.msg, note);
        fgl_run_free(run);
        return 1;
    }
    for (k = 0; k < o->n_sets + o->n_vset[slot]; k++) {
        if (k < o->n_sets && o->swept[k]) continue; /* a sweep's list: the slot's own value below */
        if (apply_set(run, algo, k < o->n_sets ? o->sets[k] : o->vset[slot][k - o->n_sets], note)) {
            fgl_run_free(run);
            return 2;
        }
    }
    return 0;
}

/* With --secret-seed, each slot's run label (fgl_secrets_config.label,
 * made by check_runs; run_one adds the fold): "fglrun ALGO", then each
 * parameter whose value differs from its default as "name=value" (%.17g),
 * as the run set up holds them ("fglrun fedpub tau=3"). The values, not the
 * flags that gave them: a replay (--config, or --row LABEL of a sweep)
 * gets the same label, the rows of a sweep different ones, so that no two
 * runs of one invocation share their keys, masks or noise (the run seed is
 * in the key too). */
static char secret_labels[MAX_ITEMS][FGL_SECRETS_LABEL];

static int secret_label(const fgl_run *run, char *out, size_t cap) {
    size_t n = (size_t)snprintf(out, cap, "fglrun %s", run->algo.name);
    int i;
    for (i = 0; i < run->algo.n_params && n < cap; i++)
        if (run->set.value[i] != run->algo.params[i].def)
            n += (size_t)snprintf(out + n, cap - n, " %s=%.17g", run->algo.params[i].name, run->set.value[i]);
    if (n < cap) return 0;
    fprintf(stderr, "fglrun: --secret-seed: %s's parameters make a run label longer than %d bytes (nothing was run)\n",
            run->algo.name, (int)cap - 1);
    return 1;
}

/* Every algorithm of --algo checked against the data, its task, the
 * models and the flags before the first run (fgl_run_init, then
 * fgl_run_check with the --set values): a combination that cannot run is
 * refused at once, not after the runs before it. 0, 1 or 2 (run_setup's).
 * Makes the slots' secret_labels. */
static int check_runs(const options *o, fgl_client_data *cd, int K, int task, const fgl_node_data *pub) {
    static const char note[] = " (nothing was run: every --algo is checked before the first run)";
    int a, rc;
    for (a = 0; a < o->n_algos; a++) {
        fgl_fed_config cfg = run_config(o, task, o->seed);
        fgl_run run;
        if ((rc = run_setup(o, a, NULL, &cfg, cd, K, pub, &run, note))) return rc;
        rc = fgl_run_check(&run);
        if (rc) fprintf(stderr, "fglrun: %s%s\n", run.err.msg, note);
        else if (o->secret_seed_set && secret_label(&run, secret_labels[a], sizeof secret_labels[a])) rc = 1;
        else if (label_leak(&run)) /* even with --quiet: the numbers are not honest ones */
            fprintf(stderr, "fglrun: warning: %s: %s\n", run.algo.name, label_leak(&run));
        fgl_run_free(&run);
        if (rc) return 1;
    }
    return 0;
}

/* 0: done, 1: error, 2: bad parameter, 3: stopped at --stop-after. */
static int run_one(const options *o, int slot, uint64_t seed, int fold, fgl_client_data *cd, int K,
                   int task, const fgl_node_data *pub, const double *labsim, result *res, int idx) {
    const fgl_algo *algo = fgl_algo_find(o->algos[slot]);
    const char *label = o->labels[slot];
    fgl_fed_config cfg = run_config(o, task, seed);
    fgl_run run;
    fgl_error err;
    fgl_run_summary s;
    fgl_algo wrapped;
    char ckpt[1024], fname[96];
    int r, k;
    if (cfg.secrets.from_seed) { /* the slot's label (check_runs), and the fold: every run its own secrets */
        size_t n = (size_t)snprintf(cfg.secrets.label, sizeof cfg.secrets.label, "%s", secret_labels[slot]);
        if (o->folds) n += (size_t)snprintf(cfg.secrets.label + n, sizeof cfg.secrets.label - n, " fold=%d", fold);
        else if (o->n_fixed && n < sizeof cfg.secrets.label)
            n += (size_t)snprintf(cfg.secrets.label + n, sizeof cfg.secrets.label - n, " split=%d", fold);
        if (n >= sizeof cfg.secrets.label) {
            fprintf(stderr, "fglrun: --secret-seed: the run label of %s fold %d is longer than %d bytes\n", label, fold,
                    (int)sizeof cfg.secrets.label - 1);
            return 1;
        }
    }
    ckpt[0] = 0;
    for (k = 0; (fname[k] = label[k] == ' ' ? '_' : label[k]) != 0; k++) {} /* in file names: fedpub_tau=3 */
    if (proto_on(o)) { /* the measures of fglrun/protocol.c: the algorithm's eval_model, wrapped */
        if (proto_begin(o, algo, &wrapped, cd, K, pub, cfg.rounds)) return 1;
        algo = &wrapped;
    }
    if ((k = run_setup(o, slot, algo, &cfg, cd, K, pub, &run, ""))) {
        proto_free();
        return k;
    }
    proto_watch_run(&run);
    if (label_leak(&run)) snprintf(res->leak, sizeof res->leak, "%s", label_leak(&run));
#ifdef FGL_MPI
    if (fgl_mpi_distribute(&run, MPI_COMM_WORLD, &o->mpi, &err)) { /* the clients go to ranks 1..P-1 */
        fprintf(stderr, "fglrun: %s\n", err.msg);
        fgl_run_free(&run);
        proto_free();
        return 1;
    }
    if (o->checkpoint && o->secagg.on && run.transport) {
        fprintf(stderr, "fglrun: --checkpoint with --secagg over MPI: refused: a checkpoint would bring every client's "
                        "state to rank 0 (the server); run without --checkpoint\n");
        fgl_run_free(&run);
        proto_free();
        return 1;
    }
#endif
    if (o->checkpoint) {
        checkpoint_path(o, fname, seed, fold, ckpt, sizeof ckpt);
        if (file_exists(ckpt)) {
            run.allow_other_build = o->allow_other_build;
            if (fgl_run_load(&run, ckpt, &err)) {
                fprintf(stderr, "fglrun: %s\n", err.msg);
                fgl_run_free(&run);
                proto_free();
                return 1;
            }
            if (!o->quiet) fprintf(stderr, "fglrun: resumed %s at round %d\n", ckpt, run.round);
            if (run.other_build[0]) { /* said even with --quiet, and recorded */
                fprintf(stderr, "fglrun: %s was written by another build (%s; this one: %s): the result is neither "
                                "build's and is marked so in the record\n", ckpt, run.other_build, fgl_build_id());
                snprintf(res->other_build, sizeof res->other_build, "%s", run.other_build);
            }
        }
    }
    progress_begin(o, label, fname, seed, fold, &run);
    for (r = run.round; r < cfg.rounds; r++) {
        if (fgl_run_round(&run)) {
            progress_end(o);
#ifdef FGL_MPI
            { /* the ranks lost on the way, and why (the error may be that every client is) */
                fgl_mpi_stats ms;
                fgl_mpi_stats_get(&run, &ms);
                if (ms.note[0]) fprintf(stderr, "\nfglrun: %s seed %llu: %s", label, (unsigned long long)seed, ms.note);
            }
#endif
            fprintf(stderr, "\nfglrun: %s\n", run.err.msg);
            fgl_run_free(&run);
            proto_free();
            return 1;
        }
        if (o->checkpoint && checkpoint_due(o, r + 1, cfg.rounds) && checkpoint_save(&run, ckpt, &err)) {
            progress_end(o); /* a run whose checkpoints are lost fails: --checkpoint promised them */
            fprintf(stderr, "fglrun: %s seed %llu, round %d: %s; the run stops (the previous checkpoint, if any, "
                            "is kept)\n", label, (unsigned long long)seed, r + 1, err.msg);
            fgl_run_free(&run);
            proto_free();
            return 1;
        }
        progress_round(o, &run);
        if (write_errors && o->pg && o->pg->csv_failed) { /* the live CSV could not be written: the record is lost */
            progress_end(o);
            fgl_run_free(&run);
            proto_free();
            return 1;
        }
        if (fglrun_signal && r + 1 < cfg.rounds) {
            progress_end(o);
            fprintf(stderr, "fglrun: %s seed %llu interrupted after round %d%s%s\n", label, (unsigned long long)seed,
                    r + 1, o->checkpoint ? "; the same command resumes it from " : "", o->checkpoint ? ckpt : "");
            fgl_run_free(&run);
            proto_free();
            return 5;
        }
        if (o->stop_after && r + 1 == o->stop_after && r + 1 < cfg.rounds) {
            progress_end(o);
            if (!o->quiet) fprintf(stderr, "fglrun: %s seed %llu stopped after round %d; %s resumes it\n", label,
                                   (unsigned long long)seed, r + 1, ckpt);
            fgl_run_free(&run);
            proto_free();
            return 3;
        }
    }
    progress_end(o);
    fgl_run_summarize(&run, &s);
    if (s.fallback > 0 && !o->quiet) { /* the rule could not act as asked: say so (even with --json; never --quiet) */
        char rule[128];
        int fell = 0;
        for (k = 0; k < run.round; k++) fell += run.stats[k].n_fallback > 0;
        robust_format(&cfg.robust, rule, sizeof rule);
        fprintf(stderr, "fglrun: %s seed %llu: in %d of %d rounds too few uploads were accepted for --robust %s, which "
                        "fell back (%s; README, robust rules)\n", label, (unsigned long long)seed, fell, run.round,
                rule, cfg.robust.rule == FGL_ROBUST_TRIMMED ? "it trimmed fewer" : "it assumed fewer attackers");
    }
    res->best[idx] = s.best_test;
    res->val[idx] = s.best_val;
    res->last[idx] = s.last_test;
    res->hits[idx] = s.best_test_hits;
    res->hits_last[idx] = s.last_test_hits;
    res->f1[idx] = s.best_test_f1;
    res->f1_last[idx] = s.last_test_f1;
    res->auc[idx] = s.best_test_auc;
    res->auc_last[idx] = s.last_test_auc;
    res->vsel[idx] = s.metric == FGL_METRIC_AUC ? s.best_val_auc : s.metric == FGL_METRIC_F1 ? s.best_val_f1
                                                                                              : s.best_val;
    res->metric = s.metric;
    if (proto_on(o)) proto_finish(o, &run, res, idx);
    { /* the clients that do not attack: at the best-validation round and the last */
        int rr, which;
        for (which = 0; which < 2; which++) {
            double sum = 0;
            int n = 0;
            rr = which ? run.round - 1 : s.best_round;
            for (k = 0; rr >= 0 && k < run.n_clients; k++) {
                double a = run.client_test[(size_t)rr * run.n_clients + k];
                if (run.attacker[k] || !(a == a)) continue;
                sum += a;
                n++;
            }
            if (which) res->hlast[idx] = n ? sum / n : NAN;
            else res->hbest[idx] = n ? sum / n : NAN;
        }
    }
    res->secs[idx] = s.seconds;
    res->server[idx] = s.t_server;
    res->train[idx] = s.t_train;
    res->eval[idx] = s.t_eval;
    res->up += s.bytes_up;
    res->down += s.bytes_down;
    res->up_run[idx] = (double)s.bytes_up;
    res->down_run[idx] = (double)s.bytes_down;
    res->rejected += s.rejected;
    res->screened += s.screened;
    res->clipped += s.clipped;
    res->dropped += s.dropped;
    res->secagg_range += s.out_of_range;
    res->fallback += s.fallback;
    res->eps[idx] = fgl_run_dp_epsilon(&run, 0);
    res->lost += s.lost;
#ifdef FGL_MPI
    {
        fgl_mpi_stats ms;
        fgl_mpi_stats_get(&run, &ms);
        res->mpi.ranks = ms.ranks;
        res->mpi.lost_ranks += ms.lost_ranks;
        res->mpi.lost_clients += ms.lost_clients;
        res->mpi.bytes_sent += ms.bytes_sent;
        res->mpi.bytes_received += ms.bytes_received;
        res->mpi.bytes_data += ms.bytes_data;
        res->mpi.t_exchange += ms.t_exchange;
        res->mpi.t_remote += ms.t_remote;
        if (ms.note[0]) {
            memcpy(res->mpi.note, ms.note, sizeof ms.note);
            fprintf(stderr, "fglrun: %s seed %llu: %s\n", label, (unsigned long long)seed, ms.note); /* even --quiet */
        }
    }
#endif
    res->defended = cfg.robust.rule != FGL_ROBUST_MEAN || cfg.attack.kind != FGL_ATTACK_NONE || cfg.dp.clip > 0 ||
                    cfg.plugin.name[0] ||
                    cfg.secagg.on || s.screened > 0;
    if (!res->rejected_round) {
        res->rejected_round = (int *)calloc((size_t)cfg.rounds, sizeof(int));
        res->clipped_round = (int *)calloc((size_t)cfg.rounds, sizeof(int));
        res->fallback_round = (int *)calloc((size_t)cfg.rounds, sizeof(int));
    }
    if (idx >= res->part_runs) { /* a row of participants per run: DP's figures are per run (like epsilon) */
        int *p = (int *)realloc(res->part_run, sizeof(int) * (size_t)(idx + 1) * (size_t)cfg.rounds);
        if (p) {
            memset(p + (size_t)res->part_runs * cfg.rounds, 0,
                   sizeof(int) * (size_t)(idx + 1 - res->part_runs) * (size_t)cfg.rounds);
            res->part_run = p;
            res->part_runs = idx + 1;
            res->part_rounds = cfg.rounds;
        }
    }
    for (k = 0; k < run.round && res->rejected_round && res->clipped_round && res->fallback_round; k++) {
        res->rejected_round[k] += run.stats[k].n_rejected;
        res->clipped_round[k] += run.stats[k].n_clipped;
        res->fallback_round[k] += run.stats[k].n_fallback;
        if (idx < res->part_runs) res->part_run[(size_t)idx * cfg.rounds + k] = run.stats[k].n_part;
        res->secagg_failed += run.stats[k].secagg_failed;
    }
    res->n = idx + 1;
    fgl_run_report(&run, res->report, sizeof res->report);
    if (labsim && algo->client_matrix) { /* does the matrix follow the labels? */
        float *m = (float *)malloc(sizeof(float) * (size_t)K * (size_t)K);
        if (m && fgl_run_client_matrix(&run, m) == FGL_OK) {
            res->rho[idx] = fgl_rowwise_spearman(m, labsim, K, NULL);
            res->has_rho = 1;
        }
        free(m);
    }
    progress_run_done(o, res, idx, &run);
    if (o->out_dir) {
        char name[128];
        int *order = (int *)malloc(sizeof(int) * (size_t)K), *dom = (int *)malloc(sizeof(int) * (size_t)K);
        double *share = (double *)malloc(sizeof(double) * (size_t)K);
        const char *const *names = o->pg ? o->pg->names : NULL;
        int ok = order && dom && share && !names; /* clients that are datasets: in their order, by name */
        if (o->folds) snprintf(name, sizeof name, "%s_fold%d", fname, fold);
        else if (o->n_fixed) snprintf(name, sizeof name, "%s_split%d", fname, fold);
        else snprintf(name, sizeof name, "%s", fname);
        if (ok) client_order(cd, K, order, dom, share);
        write_round_csv(o->out_dir, name, seed, &run, names, o->task == FGL_TASK_LINK, !per_client_out(o));
        if (per_client_out(o)) write_matrix(o->out_dir, name, seed, &run, ok ? order : NULL, ok ? dom : NULL, names);
        free(order);
        free(dom);
        free(share);
    }
    if (!o->quiet && !o->json && o->folds)
        printf("  %-10s fold %d seed %llu: last %.2f%%\n", label, fold, (unsigned long long)seed, 100 * s.last_test);
    else if (!o->quiet && !o->json && o->n_fixed && (o->seeds > 1 || o->split_index < 0))
        printf("  %-10s split %d seed %llu: test %.2f%% (best val round %d), last %.2f%%\n", label, fold,
               (unsigned long long)seed, 100 * s.best_test, s.best_round + 1, 100 * s.last_test);
    else if (!o->quiet && !o->json && o->seeds > 1)
        printf("  %-10s seed %llu: test %s%.2f%% (best val round %d), last %.2f%%\n", label,
               (unsigned long long)seed, o->task == FGL_TASK_LINK ? "AUC " : "", 100 * s.best_test, s.best_round + 1,
               100 * s.last_test);
    fgl_run_free(&run);
    proto_free();
    return 0;
}

/* The table of results: one row per algorithm, mean +- std over its runs
 * (one run: the figure alone); an algorithm with no finished run (a run
 * failed) says so. */
static void print_table(const options *o, const result *res, int runs) {
    int a, w = 10; /* the first column: as wide as the longest label */
    for (a = 0; a < o->n_algos; a++) w = (int)strlen(o->labels[a]) > w ? (int)strlen(o->labels[a]) : w;
    printf("\n%-*s %18s %18s %12s %12s %9s\n", w, "algorithm",
           o->task == FGL_TASK_LINK ? "AUC (best val)" : "test (best val)",
           o->task == FGL_TASK_LINK ? "AUC (last)" : "test (last)", "MB up", "MB down", "seconds");
    for (a = 0; a < o->n_algos; a++) {
        double bm, bs, lm, ls, sm, ss;
        if (res[a].n == 0) {
            printf("%-*s %18s\n", w, o->labels[a], "(not run: a run failed)");
            continue;
        }
        mean_std(o->folds ? res[a].last : res[a].best, res[a].n, &bm, &bs);
        mean_std(res[a].last, res[a].n, &lm, &ls);
        mean_std(res[a].secs, res[a].n, &sm, &ss);
        if (res[a].n == 1)
            printf("%-*s %10.2f%9s %10.2f%9s %12.2f %12.2f %9.2f", w, o->labels[a], 100 * bm, "", 100 * lm, "",
                   res[a].up / 1e6, res[a].down / 1e6, sm);
        else
            printf("%-*s %10.2f +- %5.2f %10.2f +- %5.2f %12.2f %12.2f %9.2f", w, o->labels[a], 100 * bm, 100 * bs,
                   100 * lm, 100 * ls, res[a].up / 1e6 / res[a].n, res[a].down / 1e6 / res[a].n, sm);
        if (res[a].n < runs) printf("   (%d of %d runs)", res[a].n, runs);
        printf("\n");
    }
    proto_table(o, res);
    if (o->task == FGL_TASK_LINK) link_table(o, res);
    if (o->folds)
        printf("(%s %d fold%s x %d seed%s of the mean client test accuracy at the last round: no validation set, so "
               "both columns are the last round)\n", runs > 1 ? "mean +- std over" : "one run:", runs / o->seeds,
               runs / o->seeds > 1 ? "s" : "", o->seeds, o->seeds > 1 ? "s" : "");
    else if (o->task == FGL_TASK_LINK)
        printf("(%s %d seed%s of the clients' test AUC and Hits@%d, means weighted by their test edges, at the round "
               "of best validation AUC and at the last round)\n", runs > 1 ? "mean +- std over" : "one run:", runs,
               runs > 1 ? "s" : "", o->hits_k);
    else if (o->n_fixed)
        printf("(%s %d of the data's %d fixed split%s x %d seed%s (%d run%s) of the mean client test accuracy, at "
               "the round of best mean %s %s and at the last round)\n", runs > 1 ? "mean +- std over" : "one run:",
               runs / o->seeds, o->n_fixed, o->n_fixed > 1 ? "s" : "", o->seeds, o->seeds > 1 ? "s" : "", runs,
               runs > 1 ? "s" : "", o->val_public ? "public-node" : "validation", score_words(o->score_metric));
    else if (runs > 1)
        printf("(mean +- std over %d seeds of the mean client test accuracy, at the round of best mean %s "
               "%s and at the last round)\n", runs, o->val_public ? "public-node" : "validation",
               score_words(o->score_metric));
    else
        printf("(one seed: the mean client test accuracy, at the round of best mean %s %s and at the "
               "last round)\n", o->val_public ? "public-node" : "validation", score_words(o->score_metric));
    if (o->task != FGL_TASK_LINK) metrics_table(o, res, w);
    defences_lines(o, res);
}



int fglrun_main(int argc, char **argv) {
    options o;
    fgl_dataset ds;
    fgl_scenario sc;
    fgl_client_data *cd;
    fgl_model_spec tmpl;
    fgl_error err;
    result *res;
    progress pg;
    run_record *rec;
    double *labsim = NULL;
    const char **names = NULL;
    int rc, a, s, split, rounds, stopped = 0, f, n_folds, finished;
    setvbuf(stdout, NULL, _IOLBF, BUFSIZ); /* lines appear as they are printed, even in a pipe or a file */
    rc = parse_args(argc, argv, &o);
    if (!rc && o.config) rc = config_reparse(argc, argv, &o); /* --config FILE: its flags, then the command line's */
    if (rc) return rc == 1 ? 0 : rc;
#ifndef FGL_MPI /* under MPI the launcher owns the processes: OMP_WAIT_POLICY is the user's */
    {
        static const char *const wait_names[] = {"auto", "spin", "passive"};
        (void)fgl_wait_choose(argv, wait_names[o.wait >= 0 && o.wait <= 2 ? o.wait : 0], o.threads); /* fgl.h */
    }
#endif
    if ((rc = protocol_apply(&o))) return rc; /* --protocol NAME: its flags where none was given */
    opt_defaults(&o); /* no --algo: the default algorithms; no data either: the embedded benchmark */
    if ((rc = check_sets(&o)) || (rc = expand_sweeps(&o)) || (rc = check_models(&o))) return rc;
    if (o.partition_file && o.split >= 0 && o.split != FGL_PART_GIVEN && o.split != FGL_PART_METIS)
        return bad("--partition-file gives the clients; it cannot be combined with --split %s", fgl_part_name(o.split));
    if (o.split == FGL_PART_GIVEN && !o.partition_file) return bad("--split given needs --partition-file FILE%s", "");
    if (o.halo > 0) { /* the halo's rows are zero until FedGCN's exchange fills them: any other algorithm would train
                       * on them as they are */
        int a;
        for (a = 0; a < o.n_algos; a++)
            if (strcmp(o.algos[a], "fedgcn"))
                return bad("--halo is FedGCN's data: %s would train on the halo's zero rows (run it without --halo)",
                           o.algos[a]);
    }
#ifdef _OPENMP
    if (o.threads > 0) omp_set_num_threads(o.threads);
#endif
    if (load_data(&o, &ds, &err)) {
        fprintf(stderr, "fglrun: %s\n", err.msg);
        replay_free(o.rp);
        return 1;
    }
    replay_check_files(&o);
    if (o.write_metis) { /* the graph fglrun would split, in METIS's format, for gpmetis */
        rc = ds.task != FGL_TASK_NODE ? fgl_error_set(&err, FGL_ERR_ARG, "--write-metis: %s is not a node-"
                                                      "classification dataset", ds.label)
                                      : fgl_write_metis_graph(&ds.node.adj, o.write_metis, &err);
        if (rc) fprintf(stderr, "fglrun: %s\n", err.msg);
        else
            printf("fglrun: wrote %s's graph (%d nodes) to %s in METIS's format; `gpmetis %s K` writes the "
                   "partition into K parts to %s.part.K, for --partition-file\n", ds.label, ds.node.n_nodes,
                   o.write_metis, o.write_metis, o.write_metis);
        fgl_dataset_free(&ds);
        replay_free(o.rp);
        return rc ? 1 : 0;
    }
    if (ds.n_sets > 1 && !opt_given(&o, "split-seed")) o.split_seed = (uint64_t)fedstar_split_seed;
    { /* FedGCN exchanges its clients' halos (--halo H): without one it would be FedAvg's bits under its name */
        int a, k, gcn = 0, hops_set = 0;
        for (a = 0; a < o.n_algos; a++) gcn |= !strcmp(o.algos[a], "fedgcn");
        for (k = 0; k < o.n_sets; k++) hops_set |= !strncmp(o.sets[k], "hops=", 5) || !strncmp(o.sets[k], "fedgcn.hops=", 12);
        if (gcn && !opt_given(&o, "halo") && !hops_set && ds.task == FGL_TASK_NODE && o.task != FGL_TASK_LINK) {
            if (o.n_algos > 1) {
                fgl_dataset_free(&ds);
                replay_free(o.rp);
                return bad("fedgcn exchanges its clients' halos (--halo H), which the other algorithms of --algo "
                           "cannot take: run fedgcn alone (--halo 2 by default), or give --set fedgcn.hops=0 to run "
                           "it without the exchange (FedAvg's bits)%s", "");
            }
            o.halo = 2;
            o.given[opt_row("halo") - opt_table] = 1; /* recorded as given: a replay runs the same */
            if (!o.quiet)
                fprintf(stderr, "fglrun: fedgcn: --halo 2, the paper's 2-hop exchange (--halo 1: one hop; --set "
                                "hops=0: no exchange, FedAvg's bits)\n");
        }
    }
    { /* the data's fixed splits (the heterophilous sets' ten): one run each, unless a drawn split is asked for */
        int drawn = o.split_global || o.stratified || o.test_first || o.public_split || opt_given(&o, "train-frac") ||
                    opt_given(&o, "val-frac");
        int fixed = ds.task == FGL_TASK_NODE && o.task != FGL_TASK_LINK ? ds.n_fixed_splits : 0;
        const char *why = NULL;
        if (o.split_index >= 0 && !fixed) why = "has no fixed splits";
        else if (o.split_index >= fixed) why = "has fewer fixed splits";
        else if (o.split_index >= 0 && drawn) why = "";
        if (why) {
            if (*why) fprintf(stderr, "fglrun: --split-index %d: %s %s (%d)\n", o.split_index, ds.label, why, fixed);
            else fprintf(stderr, "fglrun: --split-index %d: a fixed split gives every node its role: not with "
                         "--split-global, --train-frac, --val-frac, --stratified, --test-first or --public-split\n",
                         o.split_index);
            fgl_dataset_free(&ds);
            replay_free(o.rp);
            return 1;
        }
        o.n_fixed = drawn ? 0 : fixed;
        if (drawn && fixed && !o.quiet && !o.json)
            printf("fglrun: note: %s's %d fixed splits are not used: a drawn split was asked for\n", ds.label, fixed);
    }
    if (score_resolve(&o, &ds)) {
        fgl_dataset_free(&ds);
        replay_free(o.rp);
        return 1;
    }
    n_folds = o.folds ? (o.fold >= 0 ? 1 : o.folds) : o.n_fixed ? (o.split_index >= 0 ? 1 : o.n_fixed) : 1;
    if (make_scenario(&o, o.fold > 0 ? o.fold : o.n_fixed && o.split_index >= 0 ? o.split_index : 0, &ds, &sc,
                      &err)) {
        fprintf(stderr, "fglrun: %s\n", err.msg);
        fgl_dataset_free(&ds);
        replay_free(o.rp);
        return 1;
    }
    split = sc.how;
    if ((rc = proto_check(&o, &sc))) {
        fgl_scenario_free(&sc);
        fgl_dataset_free(&ds);
        replay_free(o.rp);
        return rc;
    }
    { /* the data's share of the peak: the dataset and the clients' copies of it, before any run */
        struct rusage ru;
        if (getrusage(RUSAGE_SELF, &ru) == 0) data_rss_mb = (double)ru.ru_maxrss / 1024.0;
    }
    if (o.info) {
        print_info(&ds, &sc, split);
        fgl_scenario_free(&sc);
        fgl_dataset_free(&ds);
        replay_free(o.rp);
        return 0;
    }
    tmpl = model_spec(&o, o.arch >= 0 ? o.arch : ds.task == FGL_TASK_NODE ? FGL_ARCH_GCN : FGL_ARCH_GIN, ds.task);
    cd = (fgl_client_data *)malloc(sizeof(fgl_client_data) * (size_t)sc.n_clients);
    res = (result *)calloc((size_t)o.n_algos, sizeof(result));
    rc = !cd || !res ? (fprintf(stderr, "fglrun: out of memory\n"), 1)
         : o.bn && (tmpl.arch != FGL_ARCH_GIN || (o.n_archs > 0 && mixed_models(&o)))
             ? (fprintf(stderr, "fglrun: --bn: batch norm is GIN's (--model gin), not %s's\n", fgl_arch_name(tmpl.arch)), 1)
         : client_specs(&o, &sc, &tmpl, ds.task, cd, &err) ? (fprintf(stderr, "fglrun: %s\n", err.msg), 1)
         /* every --algo against the data, the task, the models and the flags, before the first run */
         : check_runs(&o, cd, sc.n_clients, ds.task, &sc.pub);
    if (!rc && o.out_dir && out_dir_prepare(o.out_dir)) rc = 1; /* locked, parents created; fglrun's old files removed */
    if (!rc && o.checkpoint) { /* one fglrun at a time on a checkpoint (and the ones derived from its name) */
        char lock[1100];
        snprintf(lock, sizeof lock, "%s.lock", o.checkpoint);
        if (take_lock(lock, o.checkpoint)) rc = 1;
    }
#ifndef FGL_MPI /* (under MPI, mpirun forwards signals to every rank: the default action ends the job) */
    if (!rc) {
        signal(SIGINT, on_stop_signal);
        signal(SIGTERM, on_stop_signal);
    }
#endif
    if (rc) {
        free(cd);
        free(res);
        fgl_scenario_free(&sc);
        fgl_dataset_free(&ds);
        replay_free(o.rp);
        return rc;
    }
    if (!o.quiet && !o.json && mixed_models(&o)) {
        printf("models:");
        for (a = 0; a < sc.n_clients; a++) printf(" %d:%s", a, fgl_arch_name(cd[a].spec.arch));
        printf("\n");
    }
    /* the clients' label similarity (K x K), for the algorithms that report a
     * client matrix to correlate it with; only then (10,000 clients: 800 MB) */
    for (a = 0; a < o.n_algos; a++)
        if (fgl_algo_find(o.algos[a]) && fgl_algo_find(o.algos[a])->client_matrix) break;
    if (a < o.n_algos) labsim = (double *)malloc(sizeof(double) * (size_t)sc.n_clients * (size_t)sc.n_clients);
    if (labsim && fgl_label_similarity(cd, sc.n_clients, labsim)) {
        free(labsim);
        labsim = NULL;
    }
    rounds = o.rounds > 0 ? o.rounds : fgl_fed_default(ds.task).rounds;
    if ((rec = (run_record *)calloc(1, sizeof *rec))) { /* the effective configuration, recorded with the results */
        record_build(rec, &o, &ds, &sc, rounds, o.embedded);
        o.config_json = record_json(rec, &o, argc, argv, 0);
        o.config_pretty = record_json(rec, &o, argc, argv, 1);
        free(rec->files.s);
        for (a = 0; o.n_swept && a < o.n_algos; a++) record_slot(rec, &o, a, &ds, &sc, rounds, argc, argv);
        free(rec);
    }
    if (ds.task == FGL_TASK_NODE) homophily_rec = homophily_record(&ds, &sc, per_client_out(&o));
    progress_init(&pg, &o, res, &ds, split, sc.n_clients, rounds, n_folds * o.seeds);
    if (split == FGL_PART_PER_DATASET && sc.graphs &&
        (names = (const char **)malloc(sizeof(char *) * (size_t)sc.n_clients))) {
        for (a = 0; a < sc.n_clients; a++) names[a] = sc.graphs[a].name; /* each client is one dataset: named by it */
        pg.names = names;
    }
    if (!o.quiet && !o.json) {
        double tr = o.train_frac >= 0 ? o.train_frac : split_frac_default(ds.task, 0);
        printf("%s: %s, %s split over %d clients, %d rounds, %d seed%s", ds.label,
               o.task == FGL_TASK_LINK ? "link prediction"
               : ds.task == FGL_TASK_NODE ? "node classification" : "graph classification",
               o.public_split ? "public" : fgl_part_name(split), sc.n_clients, rounds, o.seeds, o.seeds > 1 ? "s" : "");
        if (o.task == FGL_TASK_LINK)
            printf(", %g%%/%g%% of each client's edges for validation/test, %s decoder", 100 * o.link_val,
                   100 * o.link_test, o.decoder == 1 ? "MLP" : "dot-product");
        else if (o.n_fixed && o.split_index >= 0)
            printf(", the data's fixed split %d of %d (every node's role; --split-index)", o.split_index, o.n_fixed);
        else if (o.n_fixed)
            printf(", each of the data's %d fixed splits in turn (every node's role; --split-index K runs one)",
                   o.n_fixed);
        else if (!o.public_split)
            printf(", %g%% of each client's %s for training", 100 * tr, ds.task == FGL_TASK_NODE ? "nodes" : "graphs");
        printf("\n");
    }
    for (f = 0; f < n_folds && (!rc || rc == 3); f++) { /* one fold's clients at a time */
        int fold = o.folds ? (o.fold >= 0 ? o.fold : f) : o.n_fixed ? (o.split_index >= 0 ? o.split_index : f) : 0;
        if (f > 0) {
            fgl_scenario_free(&sc);
            if (make_scenario(&o, fold, &ds, &sc, &err)) {
                fprintf(stderr, "fglrun: %s\n", err.msg);
                rc = 1;
                break;
            }
            if (client_specs(&o, &sc, &tmpl, ds.task, cd, &err)) {
                fprintf(stderr, "fglrun: %s\n", err.msg);
                rc = 1;
                break;
            }
        }
        for (a = 0; a < o.n_algos && (!rc || rc == 3); a++)
            for (s = 0; s < o.seeds && (!rc || rc == 3); s++) {
                rc = run_one(&o, a, o.seed + (uint64_t)s, fold, cd, sc.n_clients, ds.task, &sc.pub, labsim, &res[a],
                            f * o.seeds + s);
                stopped |= rc == 3;
            }
    }
    if (rc == 3) rc = 0;
    progress_finish(&pg, &o, stopped ? "stopped" : rc == 5 ? "interrupted" : rc ? "failed" : "complete");
    if (stopped || rc == 5) { /* partial runs (stopped to be resumed, or a signal): nothing to report; progress.json
                               * says which */
        for (a = 0; a < o.n_algos; a++) free(o.slot_config[a]);
        free(o.config_json);
        free(o.config_pretty);
        free(homophily_rec);
        homophily_rec = NULL;
        replay_free(o.rp);
        progress_free(&pg);
        free(res);
        free(labsim);
        free(names);
        free(cd);
        link_free();
        fgl_scenario_free(&sc);
        fgl_dataset_free(&ds);
        return rc == 5 ? 128 + fglrun_signal : 0;
    }
    for (a = 0, finished = 0; a < o.n_algos; a++) finished += res[a].n > 0;
    o.failed = rc != 0;
    if (rc && finished) /* what finished is still reported: the table, the JSON, DIR's result.json and plots */
        fprintf(stderr, "fglrun: a run failed (above); reporting the %d algorithm%s with finished runs\n", finished,
                finished > 1 ? "s" : "");
    if (finished && (!o.quiet || !o.json)) print_table(&o, res, n_folds * o.seeds); /* --quiet silences progress only */
    pg.final = 1; /* the results below carry the record */
    if (finished && (o.json || o.out_dir)) write_results(&o, res, &ds, split, sc.n_clients, rounds);
    if (finished && o.out_dir) write_plots(&o, &pg);
    if (!rc) rc = replay_check(&o, res);
    if (write_errors) { /* every file that could be written is; the command fails */
        fprintf(stderr, "fglrun: %d file%s could not be written (above); exit status 1\n", write_errors,
                write_errors > 1 ? "s" : "");
        if (!rc || rc == 3) rc = 1;
    }
    progress_free(&pg);
    free(o.config_json);
    free(o.config_pretty);
    free(homophily_rec);
    homophily_rec = NULL;
    replay_free(o.rp);
    for (a = 0; a < o.n_algos; a++) {
        free(res[a].rejected_round);
        free(res[a].clipped_round);
        free(res[a].part_run);
        free(res[a].fallback_round);
    }
    free(res);
    free(labsim);
    free(names);
    free(cd);
    for (a = 0; a < o.n_algos; a++) free(o.slot_config[a]);
    link_free();
    fgl_scenario_free(&sc);
    fgl_dataset_free(&ds);
    return rc;
}

#ifndef FGLRUN_NO_MAIN
#ifdef FGL_MPI
int main(int argc, char **argv) { return fglrun_mpi_main(argc, argv); }
#else
int main(int argc, char **argv) { return fglrun_main(argc, argv); }
#endif
#endif
