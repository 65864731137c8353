/* fglrun/options.c - part of examples/fglrun.c (included by it): the options, --help, parsing. */

typedef struct options {
    char algos[MAX_ITEMS][32];
    int n_algos;
    char data[1024];     /* the --data value ("": the synthetic default) */
    int task;            /* -1: from the data */
    int split;           /* -1: the protocol's default */
    int public_split;
    int clients;         /* 0: default */
    double alpha;
    int arch;            /* -1: default */
    int archs[MAX_ITEMS], n_archs;   /* --model a,b,c: client i gets archs[n_archs i / K] */
    int heads, layers, head;         /* GAT heads, message-passing layers, classifier head; -1: the spec's default */
    int stratified;      /* node tasks: per-class stratified split */
    int rounds, local_epochs, batch, hidden, threads, seeds, min_per_client;
    double lr, wd, frac;
    uint64_t seed, split_seed;
    int split_seed_set;
    char sets[MAX_ITEMS][128];
    int n_sets;
    const char *out_dir, *checkpoint;
    int info, json, quiet, lcc, eval_point, reset_optim;
    int raw_features;    /* node tasks: 1 keeps the (binarised) features unnormalised */   /* eval_point: -1 protocol default, 0 download, 1 train */
    int k_dse, k_rwse;   /* graph tasks: structure-embedding widths (FedStar: 16 + 16) */
    double train_frac, val_frac;   /* per-client split; < 0: the protocol's (node 0.2/0.4, graph 0.8/0.1) */
    const char *data_dir;
    int stop_after;      /* with --checkpoint: stop after this round (0: run to the end) */
    int eval_every;      /* evaluate every N rounds and at the last (0: every round) */
    fgl_robust_config robust;
    fgl_attack_config attack;
    fgl_dp_config dp;
    fgl_secagg_config secagg;
#ifdef FGL_MPI
    fgl_mpi_options mpi;
#endif
    int folds, fold;     /* graph tasks: k-fold CV inside every client (0: none); fold -1: all folds */
    int optim;           /* -1: the protocol's (Adam); FGL_SGD, FGL_ADAM */
    double momentum;     /* SGD momentum (< 0: 0) */
    int public_nodes;    /* node tasks: nodes withheld from every client, held by the server */
    /* run records, progress, plots (the sections "run records", "progress" and "plots") */
    const char *config, *row;   /* --config FILE, --row LABEL */
    int checkpoint_every;       /* --checkpoint-every N (0: every round) */
    int log_every;              /* --log-every N: progress lines every N rounds, even on a terminal (0: auto) */
    int park_idle;              /* --park-idle 0|1|2 (default 1): cfg.park_idle */
    int embedded;               /* the embedded default benchmark (no --algo, no data) */
    char *config_json, *config_pretty;   /* the effective configuration (compact, indented) */
    struct replay *rp;          /* --config: the record replayed */
    struct progress *pg;        /* progress of the invocation */
} options;

static void usage(FILE *f) {
    fprintf(f,
            "usage: fglrun [--algo NAME[,NAME...]] [--data NAME[,NAME...]|synthetic[:N]] [--task node|graph]\n"
            "              [--split metis|overlap|louvain|random|dirichlet|dirichlet-equal|iid|per-dataset|public|none]\n"
            "              [--clients K] [--alpha A] [--model gcn|gin|sage|sgc|gcnii|gat|mlp|gamlp[,...]]\n"
            "              [--rounds R] [--local-epochs E] [--batch B] [--lr X] [--wd X]\n"
            "              [--hidden H] [--frac F] [--seed S] [--seeds N] [--split-seed S] [--threads T]\n"
            "              [--set key=value ...] [--out DIR] [--checkpoint FILE] [--info] [--json] [--quiet]\n"
            "              [--lcc] [--eval train|download] [--se DSE,RWSE] [--train-frac F] [--val-frac F]\n"
            "              [--min-per-client N] [--data-dir DIR] [--reset-optim] [--features row|raw]\n"
            "              [--stop-after R] [--eval-every N] [--folds F] [--fold I]\n"
            "              [--stratified] [--heads N] [--layers L] [--head none|linear|mlp]\n"
            "              [--optim adam|sgd] [--momentum M] [--public-nodes N]\n"
            "              [--robust RULE] [--screen K] [--attack A] [--attackers F] [--dp clip=C,noise=Z[,delta=D]]\n"
            "              [--secagg] [--secagg-dropout P]\n"
            "              [--config FILE [--row LABEL]] [--checkpoint-every N] [--log-every N] [--park-idle 0|1|2]\n"
#ifdef FGL_MPI
            "              [--mpi-timeout S] [--mpi-fail RANK:ROUND]\n"
#endif
            "\n"
            "--robust mean|median|trimmed:B|krum:F|multikrum:F,M|normclip:M replaces the server's mean of model weights\n"
            "  (fedpub, fedamp, pfedgraph: it acts row by row in their per-client mixtures, with each row's weights);\n"
            "  --screen K rejects uploads whose update norm exceeds K x the round's median (default 100, 0: off).\n"
            "--attack signflip[:L]|scale:L|noise:S|labelflip|nan|count:N|alie makes a fraction --attackers F of the\n"
            "  clients (drawn from the seed) attack; --dp clips updates to C and adds noise Z C / n (epsilon reported);\n"
            "  --secagg masks uploads so the server sees their sum only (--secagg-dropout: simulated dropouts);\n"
            "  --dp and --secagg are refused for fedpub, fedamp, pfedgraph, pfedgnn and gpfl (defined for one mean, not per-client\n"
            "  mixtures).\n"
            "--model a,b,c gives clients different backbones in contiguous blocks (client i of K gets entry n*i/K);\n"
            "  only algorithms that share no weights accept it (local and the prototype methods).\n"
            "--stratified splits each client's nodes per class (train/val/test keep the class proportions).\n"
            "--head none: the last message-passing layer is the classifier (GCNII keeps its output map).\n");
    fprintf(f, /* in parts: C99 compilers need only support strings of 4095 characters */
            "--checkpoint FILE saves the run after every round and resumes from FILE if it exists (one file per run:\n"
            "  FILE.ALGO.seedS with several algorithms or seeds, FILE.ALGO.foldF.seedS with --folds); --stop-after R\n"
            "  stops after round R, leaving it.\n"
            "--checkpoint-every N saves the checkpoint every N rounds (and at --stop-after and the last round).\n"
            "--json and --out DIR record the full configuration (DIR/config; \"config\" in the JSON): every flag with its\n"
            "  value and default, the algorithms' parameters, the fgl version and commit, the data files' checksums.\n"
            "--config FILE runs from such a record (a config, a result JSON, or with --row LABEL the line of a JSON Lines\n"
            "  file such as bench/results/*.jsonl); flags given after it override it. Unchanged, the new result is\n"
            "  compared with the recorded one (exit status 1 if test_acc, last_acc or bytes differ).\n"
            "Progress: a bar on a terminal; otherwise a line every --log-every N rounds (default: a tenth of them).\n"
            "--out DIR also writes per-round CSV as rounds complete, DIR/progress.json after every round, and plots:\n"
            "  curves.svg (learning curves), clients.svg (per-client accuracy), bytes.svg (communication).\n"
            "--reset-optim restarts each client's optimizer state every round (default: kept across rounds).\n"
            "--park-idle 1 (default): with --frac < 1, clients out of the next round keep their parameters and optimizer\n"
            "  moments packed and get them back bit for bit when drawn or evaluated (same results); 2 packs them into\n"
            "  a temporary file instead of memory (memory for the active clients only); 0 keeps every state resident.\n"
            "--features raw skips the row normalisation of node features (default row).\n"
            "--folds F: stratified F-fold cross-validation inside every client (graph tasks; train on F-1 folds,\n"
            "  test on the other, no validation set), every fold run in turn and the results over folds and seeds;\n"
            "  --fold I runs fold I (0-based) only. --split dirichlet-equal: GPFL's soft Dirichlet(--alpha) skew,\n"
            "  class priors capped at 0.95, equal client sizes.\n"
            "--optim sgd [--momentum M] trains every client with SGD (default: Adam).\n"
            "--public-nodes N withholds N random nodes (split seed) from every client and gives them to the server\n"
            "  as public data (pfedgnn's anchors, as its authors' code).\n"
            "--set key=value sets an algorithm parameter; --set algo.key=value sets it for that algorithm only.\n"
#ifdef FGL_MPI
            "--mpi-timeout S: seconds a rank may take to answer before its clients are left out (default 300);\n"
            "  --mpi-fail RANK:ROUND simulates a fault: that rank stops answering from that round on.\n"
#endif
            "No arguments: a synthetic federated benchmark with several algorithms side by side; --data synthetic:N\n"
            "draws a node-classification graph of N nodes (a community per 300 nodes) for runs at scale.\n"
            "Datasets are read from $FGL_DATA (default ../shared/data): node/NAME or tu/NAME.\n"
            "Algorithms:");
    {
        int i;
        for (i = 0; i < fgl_algo_count(); i++) fprintf(f, " %s", fgl_algo_at(i)->name);
    }
    fprintf(f, "\n`fglrun --algo NAME --help` lists an algorithm's --set parameters.\n");
}

static int bad(const char *fmt, const char *a) {
    fprintf(stderr, "fglrun: ");
    fprintf(stderr, fmt, a);
    fprintf(stderr, "\n\n");
    usage(stderr);
    return 2;
}

/* A --data value: at most MAX_ITEMS comma-separated items, none empty; a
 * name (or a directory's last component) shorter than 64 characters. */
static int data_list_ok(const char *s) {
    int n = 0;
    while (*s) {
        size_t len = strcspn(s, ","), base = len;
        const char *p;
        for (p = s + len; p > s && p[-1] == '/'; p--) base--; /* "dir/Cora/" */
        for (p = s + base; p > s && p[-1] != '/'; p--) {
        }
        if (len == 0 || (size_t)(s + base - p) >= 64 || s + base == p || ++n > MAX_ITEMS) return 0;
        s += len;
        if (*s == ',' && !*++s) return 0;
    }
    return n > 0;
}

static int split_list(const char *s, char out[][64], int max, size_t width) {
    int n = 0;
    while (*s && n < max) {
        size_t len = strcspn(s, ",");
        if (len == 0 || len >= width) return -1;
        memcpy(out[n], s, len);
        out[n][len] = 0;
        n++;
        s += len;
        if (*s == ',') s++;
    }
    return *s ? -1 : n;
}

static int parse_int(const char *s, int lo, int hi, int *v) {
    char *end;
    long x;
    errno = 0;
    x = strtol(s, &end, 10);
    if (end == s || *end || errno || x < lo || x > hi) return 0;
    *v = (int)x;
    return 1;
}

static int parse_double(const char *s, double lo, double hi, double *v) {
    char *end;
    double x = strtod(s, &end);
    if (end == s || *end || !(x >= lo && x <= hi)) return 0;
    *v = x;
    return 1;
}

static void print_algo_help(const fgl_algo *a) {
    int i;
    printf("%s: %s\nparameters (--set key=value):\n", a->name, a->summary);
    for (i = 0; i < a->n_params; i++) {
        const fgl_algo_param *p = &a->params[i];
        if (p->type == FGL_PARAM_GROUPS) {
            char buf[128];
            fgl_groups_format((unsigned)p->def, buf, sizeof buf);
            printf("  %-18s %-10s %s\n", p->name, buf, p->help);
        } else {
            printf("  %-18s %-10g %s\n", p->name, p->def, p->help);
        }
    }
    if (!a->n_params) printf("  (none)\n");
}

static int parse_args(int argc, char **argv, options *o) {
    int i;
    char tmp[MAX_ITEMS][64];
    memset(o, 0, sizeof *o);
    o->task = o->split = o->arch = -1;
    o->heads = o->layers = o->head = -1;
    o->alpha = 0.5;
    o->rounds = o->local_epochs = o->batch = o->hidden = -1;
    o->lr = o->wd = -1;
    o->frac = 1.0;
    o->seed = 1;
    o->seeds = 1;
    o->min_per_client = 10;
    o->park_idle = 1;
    o->eval_point = -1;
    o->k_dse = o->k_rwse = 16;
    o->train_frac = o->val_frac = -1;
    {
        fgl_fed_config d = fgl_fed_config_default(FGL_TASK_NODE);
        o->robust = d.robust;
        o->attack = d.attack;
        o->dp = d.dp;
        o->secagg = d.secagg;
    }
#ifdef FGL_MPI
    o->mpi = fgl_mpi_options_default();
#endif
    o->fold = -1;
    o->optim = -1;
    o->momentum = -1;
    o->data_dir = getenv("FGL_DATA");
    if (!o->data_dir || !*o->data_dir) o->data_dir = "../shared/data";
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int k;
#define NEED_VALUE() \
    if (!v) return bad("%s needs a value", a); \
    i++
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            if (o->n_algos == 1 && fgl_algo_find(o->algos[0])) print_algo_help(fgl_algo_find(o->algos[0]));
            else usage(stdout);
            return 1;
        } else if (!strcmp(a, "--algo")) {
            NEED_VALUE();
            if ((o->n_algos = split_list(v, tmp, MAX_ITEMS, 32)) <= 0) return bad("bad --algo list '%s'", v);
            for (k = 0; k < o->n_algos; k++) {
                if (!fgl_algo_find(tmp[k])) return bad("unknown algorithm '%s'", tmp[k]);
                strcpy(o->algos[k], tmp[k]);
            }
        } else if (!strcmp(a, "--data")) {
            NEED_VALUE();
            if (!data_list_ok(v) || strlen(v) >= sizeof o->data) return bad("bad --data list '%s'", v);
            strcpy(o->data, v);
        } else if (!strcmp(a, "--task")) {
            NEED_VALUE();
            if (!strcmp(v, "node")) o->task = FGL_TASK_NODE;
            else if (!strcmp(v, "graph")) o->task = FGL_TASK_GRAPH;
            else return bad("--task is node or graph, not '%s'", v);
        } else if (!strcmp(a, "--split")) {
            NEED_VALUE();
            if (!strcmp(v, "public")) {
                o->public_split = 1;
                o->split = FGL_PART_NONE;
            } else if ((o->split = fgl_part_from_name(v)) < 0) {
                return bad("unknown split '%s'", v);
            }
        } else if (!strcmp(a, "--clients")) {
            NEED_VALUE();
            if (!parse_int(v, 1, 100000, &o->clients)) return bad("--clients needs a positive integer, not '%s'", v);
        } else if (!strcmp(a, "--alpha")) {
            NEED_VALUE();
            if (!parse_double(v, 1e-6, 1e9, &o->alpha)) return bad("--alpha needs a positive number, not '%s'", v);
        } else if (!strcmp(a, "--model")) {
            NEED_VALUE();
            if ((o->n_archs = split_list(v, tmp, MAX_ITEMS, 64)) <= 0) return bad("bad --model list '%s'", v);
            for (k = 0; k < o->n_archs; k++)
                if ((o->archs[k] = fgl_arch_from_name(tmp[k])) < 0 || o->archs[k] == FGL_ARCH_FEDSTAR)
                    return bad("unknown model '%s'", tmp[k]);
            o->arch = o->archs[0];
        } else if (!strcmp(a, "--heads")) {
            NEED_VALUE();
            if (!parse_int(v, 1, FGL_MAX_HEADS, &o->heads)) return bad("--heads needs an integer in 1..32, not '%s'", v);
        } else if (!strcmp(a, "--layers")) {
            NEED_VALUE();
            if (!parse_int(v, 1, FGL_MAX_LAYERS, &o->layers)) return bad("--layers needs an integer in 1..16, not '%s'", v);
        } else if (!strcmp(a, "--head")) {
            NEED_VALUE();
            if (!strcmp(v, "none")) o->head = FGL_HEAD_NONE;
            else if (!strcmp(v, "linear")) o->head = FGL_HEAD_LINEAR;
            else if (!strcmp(v, "mlp")) o->head = FGL_HEAD_MLP;
            else return bad("--head is none, linear or mlp, not '%s'", v);
        } else if (!strcmp(a, "--stratified")) {
            o->stratified = 1;
        } else if (!strcmp(a, "--rounds")) {
            NEED_VALUE();
            if (!parse_int(v, 1, 1000000, &o->rounds)) return bad("--rounds needs a positive integer, not '%s'", v);
        } else if (!strcmp(a, "--local-epochs")) {
            NEED_VALUE();
            if (!parse_int(v, 0, 100000, &o->local_epochs)) return bad("--local-epochs needs an integer >= 0, not '%s'", v);
        } else if (!strcmp(a, "--batch")) {
            NEED_VALUE();
            if (!parse_int(v, 1, 100000000, &o->batch)) return bad("--batch needs a positive integer, not '%s'", v);
        } else if (!strcmp(a, "--hidden")) {
            NEED_VALUE();
            if (!parse_int(v, 1, 1000000, &o->hidden)) return bad("--hidden needs a positive integer, not '%s'", v);
        } else if (!strcmp(a, "--lr")) {
            NEED_VALUE();
            if (!parse_double(v, 0, 1e6, &o->lr)) return bad("--lr needs a number >= 0, not '%s'", v);
        } else if (!strcmp(a, "--wd")) {
            NEED_VALUE();
            if (!parse_double(v, 0, 1e6, &o->wd)) return bad("--wd needs a number >= 0, not '%s'", v);
        } else if (!strcmp(a, "--frac")) {
            NEED_VALUE();
            if (!parse_double(v, 1e-9, 1, &o->frac)) return bad("--frac needs a number in (0, 1], not '%s'", v);
        } else if (!strcmp(a, "--seed") || !strcmp(a, "--split-seed")) {
            int s;
            NEED_VALUE();
            if (!parse_int(v, 0, 2147483647, &s)) return bad("a seed is an integer >= 0, not '%s'", v);
            if (!strcmp(a, "--seed")) o->seed = (uint64_t)s;
            else {
                o->split_seed = (uint64_t)s;
                o->split_seed_set = 1;
            }
        } else if (!strcmp(a, "--seeds")) {
            NEED_VALUE();
            if (!parse_int(v, 1, 1000, &o->seeds)) return bad("--seeds needs a positive integer, not '%s'", v);
        } else if (!strcmp(a, "--park-idle")) {
            NEED_VALUE();
            if (!parse_int(v, 0, 2, &o->park_idle)) return bad("--park-idle needs 0, 1 or 2, not '%s'", v);
        } else if (!strcmp(a, "--threads")) {
            NEED_VALUE();
            if (!parse_int(v, 1, 1024, &o->threads)) return bad("--threads needs a positive integer, not '%s'", v);
        } else if (!strcmp(a, "--min-per-client")) {
            NEED_VALUE();
            if (!parse_int(v, 1, 1000000, &o->min_per_client)) return bad("--min-per-client needs a positive integer, not '%s'", v);
        } else if (!strcmp(a, "--set")) {
            NEED_VALUE();
            if (!strchr(v, '=') || o->n_sets == MAX_ITEMS || strlen(v) >= sizeof o->sets[0]) return bad("--set takes key=value, not '%s'", v);
            strcpy(o->sets[o->n_sets++], v);
        } else if (!strcmp(a, "--out")) {
            NEED_VALUE();
            o->out_dir = v;
        } else if (!strcmp(a, "--checkpoint")) {
            NEED_VALUE();
            o->checkpoint = v;
        } else if (!strcmp(a, "--robust") || !strcmp(a, "--attack") || !strcmp(a, "--dp")) {
            fgl_error e;
            NEED_VALUE();
            if ((!strcmp(a, "--robust") && fgl_robust_parse(v, &o->robust, &e)) ||
                (!strcmp(a, "--attack") && fgl_attack_parse(v, &o->attack, &e)) || (!strcmp(a, "--dp") && fgl_dp_parse(v, &o->dp, &e)))
                return bad("%s", e.msg);
        } else if (!strcmp(a, "--screen")) {
            double x;
            NEED_VALUE();
            if (!parse_double(v, 0, 1e30, &x)) return bad("--screen needs a number >= 0, not '%s'", v);
            o->robust.screen = (float)x;
        } else if (!strcmp(a, "--attackers") || !strcmp(a, "--secagg-dropout")) {
            double x;
            NEED_VALUE();
            if (!parse_double(v, 0, 1, &x)) return bad("a fraction in [0, 1], not '%s'", v);
            if (!strcmp(a, "--attackers")) o->attack.frac = (float)x;
            else o->secagg.dropout = (float)x;
        } else if (!strcmp(a, "--secagg")) {
            o->secagg.on = 1;
        } else if (!strcmp(a, "--eval-every")) {
            NEED_VALUE();
            if (!parse_int(v, 1, 1000000, &o->eval_every)) return bad("--eval-every needs a positive integer, not '%s'", v);
        } else if (!strcmp(a, "--folds")) {
            NEED_VALUE();
            if (!parse_int(v, 2, 1000, &o->folds)) return bad("--folds needs an integer >= 2, not '%s'", v);
        } else if (!strcmp(a, "--fold")) {
            NEED_VALUE();
            if (!parse_int(v, 0, 999, &o->fold)) return bad("--fold needs an integer >= 0, not '%s'", v);
        } else if (!strcmp(a, "--stop-after")) {
            NEED_VALUE();
            if (!parse_int(v, 1, 1000000, &o->stop_after)) return bad("--stop-after needs a positive round, not '%s'", v);
        } else if (!strcmp(a, "--optim")) {
            NEED_VALUE();
            if (!strcmp(v, "sgd")) o->optim = FGL_SGD;
            else if (!strcmp(v, "adam")) o->optim = FGL_ADAM;
            else return bad("--optim is adam or sgd, not '%s'", v);
        } else if (!strcmp(a, "--momentum")) {
            NEED_VALUE();
            if (!parse_double(v, 0, 0.999999, &o->momentum)) return bad("--momentum needs a number in [0, 1), not '%s'", v);
        } else if (!strcmp(a, "--public-nodes")) {
            NEED_VALUE();
            if (!parse_int(v, 0, 100000000, &o->public_nodes)) return bad("--public-nodes needs an integer >= 0, not '%s'", v);
#ifdef FGL_MPI
        } else if (!strcmp(a, "--mpi-timeout")) {
            NEED_VALUE();
            if (!parse_double(v, 1e-3, 1e9, &o->mpi.timeout)) return bad("--mpi-timeout needs seconds > 0, not '%s'", v);
        } else if (!strcmp(a, "--mpi-fail")) {
            char rr[64], *colon;
            NEED_VALUE();
            snprintf(rr, sizeof rr, "%s", v);
            colon = strchr(rr, ':');
            if (colon) *colon = 0;
            if (!colon || !parse_int(rr, 1, 1000000, &o->mpi.fail_rank) || !parse_int(colon + 1, 1, 1000000, &o->mpi.fail_round))
                return bad("--mpi-fail takes RANK:ROUND (a rank >= 1, a round >= 1), not '%s'", v);
#endif
        } else if (!strcmp(a, "--data-dir")) {
            NEED_VALUE();
            o->data_dir = v;
        } else if (!strcmp(a, "--lcc")) {
            o->lcc = 1;
        } else if (!strcmp(a, "--reset-optim")) {
            o->reset_optim = 1;
        } else if (!strcmp(a, "--features")) {
            NEED_VALUE();
            if (!strcmp(v, "row")) o->raw_features = 0;
            else if (!strcmp(v, "raw")) o->raw_features = 1;
            else return bad("--features is row or raw, not '%s'", v);
        } else if (!strcmp(a, "--eval")) {
            NEED_VALUE();
            if (!strcmp(v, "train")) o->eval_point = 1;
            else if (!strcmp(v, "download")) o->eval_point = 0;
            else return bad("--eval is train or download, not '%s'", v);
        } else if (!strcmp(a, "--train-frac") || !strcmp(a, "--val-frac")) {
            double f;
            NEED_VALUE();
            if (!parse_double(v, 0, 1, &f)) return bad("a split fraction is a number in [0, 1], not '%s'", v);
            if (!strcmp(a, "--train-frac")) o->train_frac = f;
            else o->val_frac = f;
        } else if (!strcmp(a, "--se")) { /* DSE,RWSE widths */
            char se[2][64];
            NEED_VALUE();
            if (split_list(v, se, 2, 64) != 2 || !parse_int(se[0], 0, 1024, &o->k_dse) ||
                !parse_int(se[1], 0, 1024, &o->k_rwse) || o->k_dse + o->k_rwse == 0)
                return bad("--se takes two widths DSE,RWSE (e.g. 16,16 or 16,0), not '%s'", v);
        } else if (!strcmp(a, "--config")) {
            NEED_VALUE();
            o->config = v;
        } else if (!strcmp(a, "--row")) {
            NEED_VALUE();
            o->row = v;
        } else if (!strcmp(a, "--checkpoint-every")) {
            NEED_VALUE();
            if (!parse_int(v, 1, 1000000, &o->checkpoint_every)) return bad("--checkpoint-every needs a positive integer, not '%s'", v);
        } else if (!strcmp(a, "--log-every")) {
            NEED_VALUE();
            if (!parse_int(v, 1, 1000000, &o->log_every)) return bad("--log-every needs a positive integer, not '%s'", v);
        } else if (!strcmp(a, "--info")) {
            o->info = 1;
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
        } else if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
        } else {
            return bad("unknown option '%s'", a);
        }
#undef NEED_VALUE
    }
    if (o->stop_after && !o->checkpoint) return bad("%s", "--stop-after needs --checkpoint FILE");
    if (o->checkpoint_every && !o->checkpoint) return bad("%s", "--checkpoint-every needs --checkpoint FILE");
    if (o->row && !o->config) return bad("%s", "--row needs --config FILE");
    if (o->attack.kind != FGL_ATTACK_NONE && !(o->attack.frac > 0)) return bad("%s", "--attack needs --attackers F (a fraction > 0)");
    if (o->fold >= 0 && o->fold >= o->folds) return bad("%s", "--fold I needs --folds F with I < F");
    if (o->folds && o->seeds * o->folds > 1000) return bad("%s", "--folds x --seeds: at most 1000 runs");
    if (o->momentum >= 0 && o->optim != FGL_SGD) return bad("%s", "--momentum is for --optim sgd");
    return 0;
}

/* Every --set key must name a parameter of a chosen algorithm (algo.key: of
 * that one). */
static int check_sets(const options *o) {
    int k, a;
    for (k = 0; k < o->n_sets; k++) {
        char key[128], *eq, *dot, *name;
        int found = 0, named = 0;
        strcpy(key, o->sets[k]);
        eq = strchr(key, '=');
        *eq = 0;
        name = key;
        dot = strchr(key, '.');
        if (dot) {
            *dot = 0;
            name = dot + 1;
        }
        for (a = 0; a < o->n_algos; a++) {
            const fgl_algo *al = fgl_algo_find(o->algos[a]);
            int i;
            if (dot && strcmp(key, al->name) != 0) continue;
            named = 1;
            for (i = 0; i < al->n_params; i++) found |= !strcmp(al->params[i].name, name);
        }
        if (dot && !named) return bad("--set %s: that algorithm is not among --algo", o->sets[k]);
        if (!found) return bad("--set %s: no chosen algorithm has that parameter (see fglrun --algo NAME --help)", o->sets[k]);
    }
    return 0;
}

