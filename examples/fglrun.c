/* fglrun - run any federated algorithm on any dataset and split.
 *
 *   fglrun [--algo NAME[,NAME...]] [--data NAME[,NAME...]|synthetic[:N]] [--task node|graph]
 *          [--split metis|overlap|louvain|random|dirichlet|dirichlet-equal|iid|per-dataset|public|none]
 *          [--clients K] [--alpha A] [--model gcn|gin|sage|sgc|gcnii|gat|mlp|gamlp[,...]]
 *          [--rounds R] [--local-epochs E] [--batch B] [--lr X] [--wd X]
 *          [--hidden H] [--frac F] [--seed S] [--seeds N] [--split-seed S] [--threads T]
 *          [--set key=value ...] [--out DIR] [--checkpoint FILE] [--info] [--json] [--quiet]
 *          [--lcc] [--eval train|download] [--se DSE,RWSE] [--train-frac F] [--val-frac F]
 *          [--min-per-client N] [--data-dir DIR] [--reset-optim] [--features row|raw]
 *          [--stop-after R] [--eval-every N] [--folds F] [--fold I]
 *          [--stratified] [--heads N] [--layers L] [--head none|linear|mlp]
 *          [--optim adam|sgd] [--momentum M] [--public-nodes N]
 *          [--robust RULE] [--screen K] [--attack A] [--attackers F] [--dp clip=C,noise=Z[,delta=D]]
 *          [--secagg] [--secagg-dropout P]
 *          [--config FILE [--row LABEL]] [--checkpoint-every N] [--log-every N]
 *          (build/fglrun_mpi, under mpirun: [--mpi-timeout S] [--mpi-fail RANK:ROUND])
 *
 * With no arguments it runs the embedded default: a synthetic federated
 * node-classification benchmark (planted communities with different label
 * mixes, 10 METIS clients, 5% of each client's nodes labelled for training)
 * with several algorithms side by side, and prints a table. Named datasets are read from $FGL_DATA (default ../shared/data):
 * node/NAME (node classification) or tu/NAME (graph classification); a
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
 * flags give the same bits as fglrun.
 */
#define _POSIX_C_SOURCE 200809L
#define FGL_IMPLEMENTATION
#include "fgl_fed.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define MAX_ITEMS 32

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

/* --- models ---------------------------------------------------------------------------- */

/* The model spec of an architecture with the command line's overrides. */
static fgl_model_spec model_spec(const options *o, int arch, int task) {
    fgl_model_spec s = fgl_model_spec_default(arch, task, 1, 1);
    if (o->hidden > 0) s.hidden = o->hidden;
    if (o->heads > 0) s.heads = o->heads;
    if (o->layers > 0) s.layers = o->layers;
    if (o->head >= 0) s.head = o->head;
    /* GCNII's output map is its classifier; graph tasks need a head after the readout */
    if (s.head == FGL_HEAD_NONE && (arch == FGL_ARCH_GCNII || task == FGL_TASK_GRAPH)) s.head = FGL_HEAD_LINEAR;
    return s;
}

/* 1 if --model gives clients different architectures. */
static int mixed_models(const options *o) {
    int k;
    for (k = 1; k < o->n_archs; k++)
        if (o->archs[k] != o->archs[0]) return 1;
    return 0;
}

/* Every client's model spec: the template sized to its data, then with
 * --model a,b,c the architecture of its block (client i of K gets entry
 * n i / K). */
static void client_specs(const options *o, const fgl_scenario *sc, const fgl_model_spec *tmpl, int task,
                         fgl_client_data *cd) {
    int i;
    fgl_scenario_clients(sc, tmpl, cd);
    for (i = 0; o->n_archs > 1 && i < sc->n_clients; i++) {
        fgl_model_spec sp = model_spec(o, o->archs[(int)((long)o->n_archs * i / sc->n_clients)], task);
        sp.task = cd[i].spec.task;
        sp.in_dim = cd[i].spec.in_dim;
        sp.out_dim = cd[i].spec.out_dim;
        sp.pe_dim = cd[i].spec.pe_dim;
        cd[i].spec = sp;
    }
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
    fgl_dataset_options opt = fgl_dataset_default();
    opt.lcc = o->lcc;
    opt.raw_features = o->raw_features;
    opt.k_dse = o->k_dse;
    opt.k_rwse = o->k_rwse;
    return fgl_dataset_load(ds, o->data_dir, o->data[0] ? o->data : "synthetic", o->task, &opt, o->split_seed, err);
}

static int make_scenario(const options *o, int fold, const fgl_dataset *ds, fgl_scenario *sc, fgl_error *err) {
    fgl_split_config c = fgl_split_default();
    c.how = o->split;
    c.clients = o->clients;
    c.alpha = o->alpha;
    c.min_per_client = o->min_per_client;
    c.train = o->train_frac;
    c.val = o->val_frac;
    c.keep_split = o->public_split;
    c.stratified = o->stratified;
    c.public_nodes = o->public_nodes;
    c.seed = o->split_seed;
    c.folds = o->folds;
    c.fold = fold;
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
    printf("{\"data\": \"%s\", \"task\": \"%s\", \"split\": \"%s\", \"clients\": %d", ds->label,
           ds->task == FGL_TASK_NODE ? "node" : "graph", fgl_part_name(split), sc->n_clients);
    for (i = 1; i < ds->n_sets; i++) C = ds->sets[i].n_classes > C ? ds->sets[i].n_classes : C;
    split_statistics(sc, C, &clustering, &jsd, &jsdist);
    printf(", \"label_jsd_median\": %.4f, \"label_js_distance_median\": %.4f", jsd, jsdist);
    if (ds->task == FGL_TASK_NODE) {
        printf(", \"nodes\": %d, \"edges\": %d, \"features\": %d, \"classes\": %d, \"features_prep\": \"%s\"",
               ds->node.n_nodes, fgl_graph_num_edges(&ds->node.adj), ds->node.n_feat, ds->node.n_classes,
               ds->features);
        printf(", \"clustering_full\": %.4f, \"clustering_clients\": %.4f", fgl_graph_mean_clustering(&ds->node.adj),
               clustering);
        if (sc->edge_cut >= 0) printf(", \"edge_cut\": %ld", sc->edge_cut);
        if (sc->pub.n_nodes > 0) printf(", \"public_nodes\": %d", sc->pub.n_nodes);
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
            printf("%s{\"nodes\": %d, \"edges\": %d, \"train\": %d, \"val\": %d, \"test\": %d, \"clustering\": %.4f}",
                   i ? ", " : "", d->n_nodes, fgl_graph_num_edges(&d->adj),
                   fgl_split_indices(d->split, d->n_nodes, FGL_SPLIT_TRAIN, NULL),
                   fgl_split_indices(d->split, d->n_nodes, FGL_SPLIT_VAL, NULL),
                   fgl_split_indices(d->split, d->n_nodes, FGL_SPLIT_TEST, NULL), fgl_graph_mean_clustering(&d->adj));
        } else {
            const fgl_graph_set *g = &sc->graphs[i];
            int c, *counts = (int *)calloc((size_t)(g->n_classes > 0 ? g->n_classes : 1), sizeof(int));
            for (c = 0; c < g->n_graphs; c++) counts[g->y[c]]++;
            printf("%s{\"name\": \"%s\", \"graphs\": %d, \"nodes\": %d, \"features\": %d, \"classes\": %d, \"train\": %d, "
                   "\"val\": %d, \"test\": %d, \"label_counts\": [", i ? ", " : "", g->name, g->n_graphs, g->n_nodes,
                   g->n_feat, g->n_classes, fgl_split_indices(g->split, g->n_graphs, FGL_SPLIT_TRAIN, NULL),
                   fgl_split_indices(g->split, g->n_graphs, FGL_SPLIT_VAL, NULL),
                   fgl_split_indices(g->split, g->n_graphs, FGL_SPLIT_TEST, NULL));
            for (c = 0; c < g->n_classes; c++) printf("%s%d", c ? ", " : "", counts[c]);
            printf("]}");
            free(counts);
        }
    }
    printf("]}\n");
}

/* --- outputs ---------------------------------------------------------------------------- */

static void write_round_csv(const char *dir, const char *algo, uint64_t seed, const fgl_run *run) {
    char path[1024];
    FILE *f;
    int r, i;
    snprintf(path, sizeof path, "%s/%s_seed%llu_rounds.csv", dir, algo, (unsigned long long)seed);
    if (!(f = fopen(path, "w"))) {
        fprintf(stderr, "fglrun: cannot write %s\n", path);
        return;
    }
    fprintf(f, "round,client,train_loss,val_acc,test_acc,bytes_up,bytes_down\n");
    for (r = 0; r < run->round; r++)
        for (i = 0; i < run->n_clients; i++) {
            size_t k = (size_t)r * run->n_clients + i;
            fprintf(f, "%d,%d,%.6f,%.6f,%.6f,%zu,%zu\n", r + 1, i, run->client_loss[k], run->client_val[k],
                    run->client_test[k], run->client_up[k], run->client_down[k]);
        }
    fclose(f);
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

static void svg_heatmap(const char *path, const char *algo, int round, const float *m, int K, const int *order,
                        const int *dom);

/* The algorithm's client-to-client matrix as CSV (rows and columns in
 * client order) and as an SVG heatmap whose rows and columns follow `order`
 * (NULL: client order), rows labelled "id:dominant label" when dom is given
 * (the plots section draws it). */
static void write_matrix(const char *dir, const char *algo, uint64_t seed, const fgl_run *run, const int *order,
                         const int *dom) {
    const float *m = run->algo.client_matrix ? run->algo.client_matrix(run) : NULL;
    char path[1024];
    FILE *f;
    int K = run->n_clients, i, j;
    if (!m) return;
    snprintf(path, sizeof path, "%s/%s_seed%llu_matrix.csv", dir, algo, (unsigned long long)seed);
    if ((f = fopen(path, "w"))) {
        for (i = 0; i < K; i++)
            for (j = 0; j < K; j++) fprintf(f, "%.6g%c", m[i * K + j], j + 1 < K ? ',' : '\n');
        fclose(f);
    }
    snprintf(path, sizeof path, "%s/%s_seed%llu_matrix.svg", dir, algo, (unsigned long long)seed);
    svg_heatmap(path, algo, run->round, m, K, order, dom);
}

/* ======================================================================================= */
/* --- run records: the effective configuration, --config and replay ---------------------- */
/*
 * Every result (--json, --out DIR/result.json) carries "config": the fgl
 * version and commit, the command, every flag with its effective value and
 * its default ("flags", "defaults"), every algorithm parameter's effective
 * value ("params"), the run-control flags ("run": recorded, not replayed) and
 * the data (directory, and the size and FNV-1a checksum of each file read).
 * --out DIR/config holds the same object, indented. `--config FILE` runs from
 * such a record: FILE is a config, a result JSON holding one, or a line of
 * bench/results/SECTION.jsonl (`--row LABEL` picks the line; a line recorded before
 * configs were replays its "args"). The recorded flags come first and the
 * command line after them, so its flags override. When the command line
 * changes nothing but run control (--json, --out, --threads ...) and the
 * record holds a result, the new result is compared with it: test_acc,
 * last_acc and bytes must be identical (exit status 1 otherwise).
 *
 * A flag added to parse_args must be added to the record (record_build):
 * to its flags (experiment flags, replayed; "flags" and "defaults") or to
 * its run control ("run", recorded, not replayed; and to run_control_flag).
 * tests/test_fglrun.sh checks that every flag of --help is recorded,
 * tests/test_mpi.sh that every flag of build/fglrun_mpi's is (--mpi-timeout
 * and --mpi-fail are run control). Flags whose value depends on the
 * architecture (--hidden, --heads, --layers, --head) record the value every
 * client gets, or null when --model mixes architectures that differ there
 * (replayed as absent: each architecture keeps its own).
 */

#ifndef FGL_COMMIT
#define FGL_COMMIT "unknown" /* the build passes the commit: -DFGL_COMMIT='"<git rev-parse --short HEAD>"' */
#endif

/* A growable string. */
typedef struct sbuf {
    char *s;
    size_t len, cap;
    int oom;
} sbuf;

static void sb_putn(sbuf *b, const char *s, size_t n) {
    if (b->oom) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        char *p;
        while (cap < b->len + n + 1) cap *= 2;
        if (!(p = (char *)realloc(b->s, cap))) {
            b->oom = 1;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

static void sb_puts(sbuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

static void sb_printf(sbuf *b, const char *fmt, ...) FGL__PRINTF(2, 3);
static void sb_printf(sbuf *b, const char *fmt, ...) {
    char tmp[1024];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    sb_putn(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* s as a JSON string, quoted and escaped. */
static void sb_json_str(sbuf *b, const char *s) {
    sb_puts(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[3] = {'\\', (char)c, 0};
            sb_puts(b, e);
        } else if (c < 0x20) {
            sb_printf(b, "\\u%04x", c);
        } else {
            sb_putn(b, s, 1);
        }
    }
    sb_puts(b, "\"");
}

/* The shortest decimal that reads back as the same double (as the same
 * float when single is set): what a config records and replays. */
static void fmt_real(char *out, size_t cap, double x, int single) {
    int p;
    if (x == floor(x) && fabs(x) < 1e15) { /* an integer: all its digits, no exponent */
        snprintf(out, cap, "%.0f", x);
        return;
    }
    for (p = 1; p <= 17; p++) {
        snprintf(out, cap, "%.*g", p, x);
        if (single ? (float)strtod(out, NULL) == (float)x : strtod(out, NULL) == x) return;
    }
}

/* --- a small JSON reader (configs and result records) --- */

typedef struct jv {
    char t;          /* 'o' object, 'a' array, 's' string, 'n' number, 'b' true/false, 'z' null */
    char *s;         /* a string's value, a number's text, "true" / "false" */
    int n;           /* members / elements */
    char **k;        /* member names */
    struct jv *v;    /* members / elements */
} jv;

typedef struct jparse {
    const char *p, *begin, *end;
    int depth;
    char err[160];
} jparse;

static void jv_free(jv *v) {
    int i;
    if (!v) return;
    for (i = 0; i < v->n; i++) {
        if (v->k) free(v->k[i]);
        jv_free(&v->v[i]);
    }
    free(v->k);
    free(v->v);
    free(v->s);
    memset(v, 0, sizeof *v);
}

static int jp_fail(jparse *j, const char *what) {
    if (!j->err[0]) snprintf(j->err, sizeof j->err, "%s at byte %ld", what, (long)(j->p - j->begin));
    return -1;
}

static void jp_ws(jparse *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

static int jp_string(jparse *j, char **out) {
    sbuf b = {0, 0, 0, 0};
    j->p++; /* the opening quote */
    sb_puts(&b, "");
    while (j->p < j->end && *j->p != '"') {
        unsigned c = (unsigned char)*j->p++;
        char u[4];
        if (c < 0x20) {
            free(b.s);
            return jp_fail(j, "control character in a string");
        }
        if (c == '\\') {
            if (j->p >= j->end) break;
            c = (unsigned char)*j->p++;
            if (c == 'b') c = 8;
            else if (c == 'f') c = 12;
            else if (c == 'n') c = 10;
            else if (c == 'r') c = 13;
            else if (c == 't') c = 9;
            else if (c == 'u') {
                unsigned code = 0;
                int i;
                for (i = 0; i < 4; i++) {
                    int h = j->p < j->end ? *j->p++ : 0;
                    code = code * 16 + (unsigned)(h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                                                  : h >= 'A' && h <= 'F' ? h - 'A' + 10 : 99);
                    if (code >= 0x10000) {
                        free(b.s);
                        return jp_fail(j, "bad \\u escape");
                    }
                }
                if (code < 0x80) {
                    u[0] = (char)code;
                    sb_putn(&b, u, 1);
                } else if (code < 0x800) {
                    u[0] = (char)(0xC0 | (code >> 6));
                    u[1] = (char)(0x80 | (code & 63));
                    sb_putn(&b, u, 2);
                } else {
                    u[0] = (char)(0xE0 | (code >> 12));
                    u[1] = (char)(0x80 | ((code >> 6) & 63));
                    u[2] = (char)(0x80 | (code & 63));
                    sb_putn(&b, u, 3);
                }
                continue;
            } else if (c != '"' && c != '\\' && c != '/') {
                free(b.s);
                return jp_fail(j, "bad escape in a string");
            }
        }
        u[0] = (char)c;
        sb_putn(&b, u, 1);
    }
    if (j->p >= j->end) {
        free(b.s);
        return jp_fail(j, "unterminated string");
    }
    j->p++;
    if (b.oom) {
        free(b.s);
        return jp_fail(j, "out of memory");
    }
    *out = b.s;
    return 0;
}

static int jp_value(jparse *j, jv *v);

/* One more member or element into v (its name k, for objects). */
static jv *jv_push(jv *v, char *k) {
    jv *nv = (jv *)realloc(v->v, sizeof(jv) * (size_t)(v->n + 1));
    if (!nv) return NULL;
    v->v = nv;
    if (v->t == 'o') {
        char **nk = (char **)realloc(v->k, sizeof(char *) * (size_t)(v->n + 1));
        if (!nk) return NULL;
        v->k = nk;
        v->k[v->n] = k;
    }
    memset(&v->v[v->n], 0, sizeof(jv));
    return &v->v[v->n++];
}

static int jp_container(jparse *j, jv *v, char close) {
    v->t = close == '}' ? 'o' : 'a';
    j->p++;
    jp_ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        return 0;
    }
    for (;;) {
        char *key = NULL;
        jv *item;
        jp_ws(j);
        if (v->t == 'o') {
            if (j->p >= j->end || *j->p != '"') return jp_fail(j, "expected a member name");
            if (jp_string(j, &key)) return -1;
            jp_ws(j);
            if (j->p >= j->end || *j->p != ':') {
                free(key);
                return jp_fail(j, "expected ':'");
            }
            j->p++;
        }
        if (!(item = jv_push(v, key))) {
            free(key);
            return jp_fail(j, "out of memory");
        }
        if (jp_value(j, item)) return -1;
        jp_ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->end && *j->p == close) {
            j->p++;
            return 0;
        }
        return jp_fail(j, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static int jp_value(jparse *j, jv *v) {
    int rc;
    jp_ws(j);
    if (j->p >= j->end) return jp_fail(j, "unexpected end");
    if (++j->depth > 64) return jp_fail(j, "nested too deeply");
    if (*j->p == '{' || *j->p == '[') {
        rc = jp_container(j, v, *j->p == '{' ? '}' : ']');
    } else if (*j->p == '"') {
        v->t = 's';
        rc = jp_string(j, &v->s);
    } else if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')) {
        const char *q = j->p;
        char *end;
        while (q < j->end && strchr("+-0123456789.eE", *q)) q++;
        v->t = 'n';
        if (!(v->s = (char *)malloc((size_t)(q - j->p) + 1))) return jp_fail(j, "out of memory");
        memcpy(v->s, j->p, (size_t)(q - j->p));
        v->s[q - j->p] = 0;
        strtod(v->s, &end);
        if (*end) return jp_fail(j, "bad number");
        j->p = q;
        rc = 0;
    } else {
        static const char *lit[] = {"true", "false", "null"};
        int i;
        for (i = 0; i < 3; i++) {
            size_t len = strlen(lit[i]);
            if ((size_t)(j->end - j->p) >= len && !memcmp(j->p, lit[i], len)) break;
        }
        if (i == 3) return jp_fail(j, "unexpected character");
        j->p += strlen(lit[i]);
        v->t = i < 2 ? 'b' : 'z';
        if (i < 2 && !(v->s = (char *)malloc(6))) return jp_fail(j, "out of memory");
        if (i < 2) strcpy(v->s, lit[i]);
        rc = 0;
    }
    j->depth--;
    return rc;
}

/* Parse text[0, len) as one JSON value; err (cap 160) says why not. */
static int jv_parse(const char *text, size_t len, jv *out, char *err) {
    jparse j;
    memset(&j, 0, sizeof j);
    memset(out, 0, sizeof *out);
    j.p = j.begin = text;
    j.end = text + len;
    if (!jp_value(&j, out)) {
        jp_ws(&j);
        if (j.p == j.end) return 0;
        jp_fail(&j, "text after the value");
    }
    strcpy(err, j.err);
    jv_free(out);
    return -1;
}

static const jv *jv_get(const jv *o, const char *key) {
    int i;
    if (!o || o->t != 'o') return NULL;
    for (i = 0; i < o->n; i++)
        if (!strcmp(o->k[i], key)) return &o->v[i];
    return NULL;
}

/* --- the record --- */

#define REC_MAX 96

typedef struct rec_item {
    char key[64];
    char val[1024], def[512];
    char vk, dk; /* 'n' number, 's' string, 'b' boolean ("true"/"false"), 'z' null */
} rec_item;

typedef struct run_record {
    rec_item flag[REC_MAX], run[REC_MAX], param[REC_MAX * 2];
    int n_flag, n_run, n_param;
    sbuf files;      /* JSON array of the data files read */
    char data_dir[1024];
    int n_clients;   /* as the split made them */
    const jv *replayed_files; /* --config: the recorded files, compared with these */
} run_record;

static void rec_add(rec_item *it, int *n, const char *key, char vk, const char *val, char dk, const char *def) {
    rec_item *r;
    if (*n >= REC_MAX) return;
    r = &it[(*n)++];
    snprintf(r->key, sizeof r->key, "%s", key);
    snprintf(r->val, sizeof r->val, "%s", val ? val : "");
    snprintf(r->def, sizeof r->def, "%s", def ? def : "");
    r->vk = val ? vk : 'z';
    r->dk = def ? dk : 'z';
}

static void rec_int(run_record *r, const char *key, long v, long d) {
    char a[32], b[32];
    snprintf(a, sizeof a, "%ld", v);
    snprintf(b, sizeof b, "%ld", d);
    rec_add(r->flag, &r->n_flag, key, 'n', a, 'n', b);
}

static void rec_real(run_record *r, const char *key, double v, int vsingle, double d, int dsingle) {
    char a[40], b[40];
    fmt_real(a, sizeof a, v, vsingle);
    fmt_real(b, sizeof b, d, dsingle);
    rec_add(r->flag, &r->n_flag, key, 'n', a, 'n', b);
}

static void rec_str(run_record *r, const char *key, const char *v, const char *d) {
    rec_add(r->flag, &r->n_flag, key, 's', v, 's', d);
}

static void rec_bool(rec_item *it, int *n, const char *key, int v) {
    rec_add(it, n, key, 'b', v ? "true" : "false", 'b', "false");
}

static void robust_format(const fgl_robust_config *r, char *out, size_t cap) {
    char c[40];
    switch (r->rule) {
    case FGL_ROBUST_TRIMMED: snprintf(out, cap, "trimmed:%d", r->trim); break;
    case FGL_ROBUST_KRUM: snprintf(out, cap, "krum:%d", r->f); break;
    case FGL_ROBUST_MULTIKRUM: snprintf(out, cap, "multikrum:%d,%d", r->f, r->m); break;
    case FGL_ROBUST_NORMCLIP:
        fmt_real(c, sizeof c, r->clip, 1);
        snprintf(out, cap, "normclip:%s", c);
        break;
    default: snprintf(out, cap, "%s", fgl_robust_name(r->rule));
    }
}

static void attack_format(const fgl_attack_config *a, char *out, size_t cap) {
    char c[40];
    fmt_real(c, sizeof c, a->arg, 0);
    if (a->kind == FGL_ATTACK_SIGNFLIP || a->kind == FGL_ATTACK_SCALE || a->kind == FGL_ATTACK_NOISE ||
        a->kind == FGL_ATTACK_COUNT)
        snprintf(out, cap, "%s:%s", fgl_attack_name(a->kind), c);
    else
        snprintf(out, cap, "%s", fgl_attack_name(a->kind));
}

/* The size and 64-bit FNV-1a checksum (fgl_checksum64's) of a file, read in
 * blocks; -1 if it cannot be read. */
static long file_fnv(const char *path, uint64_t *sum) {
    unsigned char buf[65536];
    FILE *f = fopen(path, "rb");
    uint64_t h = 0xCBF29CE484222325ull;
    long total = 0;
    size_t n, i;
    if (!f) return -1;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        for (i = 0; i < n; i++) {
            h ^= buf[i];
            h *= 0x100000001B3ull;
        }
        total += (long)n;
    }
    fclose(f);
    *sum = h;
    return total;
}

/* The files fgl_dataset_load reads for ds (node/NAME/NAME.* or
 * tu/NAME/NAME_*.txt, the optional ones if present), as a JSON array. */
static void record_files(run_record *r, const options *o, const fgl_dataset *ds) {
    static const char *node_files[] = {".features", ".labels", ".edges", ".split"};
    static const char *tu_files[] = {"_graph_indicator.txt", "_graph_labels.txt", "_A.txt", "_node_labels.txt",
                                     "_node_attributes.txt"};
    const char *p = strncmp(ds->label, "synthetic", 9) ? o->data : "";
    int k, first = 1;
    sb_puts(&r->files, "[");
    while (*p) {
        char item[1024]; /* as given: a name, or a dataset's directory */
        size_t len = strcspn(p, ",");
        int node = ds->task == FGL_TASK_NODE, m = node ? 4 : 5;
        const char *slash, *base;
        snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), p);
        p += len + (p[len] == ',');
        for (len = strlen(item); len > 1 && item[len - 1] == '/'; len--) item[len - 1] = 0;
        slash = strrchr(item, '/');
        base = slash ? slash + 1 : item;
        for (k = 0; k < m; k++) {
            char rel[4200], path[5400];
            uint64_t sum;
            long size;
            if (slash) { /* a directory given as the dataset: its path as given */
                snprintf(rel, sizeof rel, "%s/%s%s", item, base, node ? node_files[k] : tu_files[k]);
                snprintf(path, sizeof path, "%s", rel);
            } else {
                snprintf(rel, sizeof rel, "%s/%s/%s%s", node ? "node" : "tu", item, item, node ? node_files[k] : tu_files[k]);
                snprintf(path, sizeof path, "%s/%s", o->data_dir, rel);
            }
            if ((size = file_fnv(path, &sum)) < 0) continue;
            sb_printf(&r->files, "%s{\"path\": ", first ? "" : ", ");
            sb_json_str(&r->files, rel);
            if (slash) sb_puts(&r->files, ", \"given\": true"); /* as given on the command line, not under data_dir */
            sb_printf(&r->files, ", \"bytes\": %ld, \"fnv1a64\": \"%016llx\"}", size, (unsigned long long)sum);
            first = 0;
        }
    }
    sb_puts(&r->files, "]");
}

/* A model flag's field of a spec: --hidden, --heads, --layers, --head. */
static int spec_field(const fgl_model_spec *s, const char *key) {
    return !strcmp(key, "hidden") ? s->hidden : !strcmp(key, "heads") ? s->heads : !strcmp(key, "layers") ? s->layers : s->head;
}

static const char *head_name(int h) { return h == FGL_HEAD_NONE ? "none" : h == FGL_HEAD_MLP ? "mlp" : "linear"; }

/* A model flag (--hidden, --heads, --layers, --head; given: its value, -1
 * if not given): the value given, or else the value every client's
 * architecture gets (model_spec), and the default likewise without the
 * command line's overrides. With --model a,b,c and architectures whose
 * values differ (GCNII's 8 layers) it is null, "each architecture's own":
 * replayed, the flag is left out, as it was. */
static void rec_model_field(run_record *r, const options *o, int def_arch, int task, const char *key, int given) {
    options plain = *o;
    int a, n = o->n_archs > 0 ? o->n_archs : 1, val = given, def = -1, same_v = 1, same_d = 1;
    char vs[32], ds[32];
    plain.hidden = plain.heads = plain.layers = plain.head = -1;
    for (a = 0; a < n; a++) {
        int arch = o->n_archs > 0 ? o->archs[a] : o->arch >= 0 ? o->arch : def_arch;
        fgl_model_spec sv = model_spec(o, arch, task), sd = model_spec(&plain, arch, task);
        if (given < 0) {
            if (a && spec_field(&sv, key) != val) same_v = 0;
            val = spec_field(&sv, key);
        }
        if (a && spec_field(&sd, key) != def) same_d = 0;
        def = spec_field(&sd, key);
    }
    if (!strcmp(key, "head")) {
        snprintf(vs, sizeof vs, "%s", head_name(val));
        snprintf(ds, sizeof ds, "%s", head_name(def));
    } else {
        snprintf(vs, sizeof vs, "%d", val);
        snprintf(ds, sizeof ds, "%d", def);
    }
    rec_add(r->flag, &r->n_flag, key, strcmp(key, "head") ? 'n' : 's', same_v ? vs : NULL, strcmp(key, "head") ? 'n' : 's',
            same_d ? ds : NULL);
}

/* The effective configuration of this invocation (after the data and the
 * split are made: defaults depend on the task). given: the flags were the
 * embedded default benchmark's (no --algo, no --data). */
static void record_build(run_record *r, const options *o, const fgl_dataset *ds, const fgl_scenario *sc, int rounds,
                         int embedded) {
    int node = ds->task == FGL_TASK_NODE, graph_sets = ds->task == FGL_TASK_GRAPH ? ds->n_sets : 0, a, i;
    fgl_fed_config d = fgl_fed_config_default(ds->task);
    int def_split = node ? FGL_PART_METIS : graph_sets > 1 ? FGL_PART_PER_DATASET : FGL_PART_DIRICHLET;
    int split = sc->how, def_arch = node ? FGL_ARCH_GCN : FGL_ARCH_GIN;
    int def_clients = embedded ? 10 : node ? (split == FGL_PART_OVERLAP ? 10 : 5)
                                           : split == FGL_PART_PER_DATASET ? graph_sets : 10;
    double def_tr = embedded ? 0.05 : node ? 0.2 : 0.8, def_va = embedded ? 0.2 : node ? 0.4 : 0.1;
    char v[512];
    memset(r, 0, sizeof *r);
    /* experiment flags: replayed by --config */
    for (a = 0, v[0] = 0; a < o->n_algos; a++) snprintf(v + strlen(v), sizeof v - strlen(v), "%s%s", a ? "," : "", o->algos[a]);
    rec_str(r, "algo", v, (o->data[0] || o->task == FGL_TASK_GRAPH) ? "local,fedavg,fedper" : "local,fedavg,fedper,fedpub");
    rec_str(r, "data", strchr(o->data, '/') ? o->data : ds->label, "synthetic"); /* directories as given */
    rec_str(r, "task", node ? "node" : "graph", strncmp(ds->label, "synthetic", 9) ? (node ? "node" : "graph") : "node");
    rec_str(r, "split", o->public_split ? "public" : fgl_part_name(split), fgl_part_name(def_split));
    rec_int(r, "clients", o->clients > 0 ? o->clients : def_clients, def_clients);
    rec_real(r, "alpha", o->alpha, 0, 0.5, 0);
    for (a = 0, v[0] = 0; a < (o->n_archs > 0 ? o->n_archs : 1); a++) /* --model a,b,c: the list as given */
        snprintf(v + strlen(v), sizeof v - strlen(v), "%s%s", a ? "," : "",
                 fgl_arch_name(o->n_archs > 0 ? o->archs[a] : o->arch >= 0 ? o->arch : def_arch));
    rec_str(r, "model", v, fgl_arch_name(def_arch));
    rec_model_field(r, o, def_arch, ds->task, "hidden", o->hidden);
    rec_model_field(r, o, def_arch, ds->task, "heads", o->heads);
    rec_model_field(r, o, def_arch, ds->task, "layers", o->layers);
    rec_model_field(r, o, def_arch, ds->task, "head", o->head);
    rec_bool(r->flag, &r->n_flag, "stratified", o->stratified);
    rec_int(r, "rounds", rounds, embedded ? 50 : d.rounds);
    rec_int(r, "local-epochs", o->local_epochs >= 0 ? o->local_epochs : d.local_epochs, d.local_epochs);
    if (node) rec_add(r->flag, &r->n_flag, "batch", 'z', NULL, 'z', NULL); /* node tasks train full-batch */
    else rec_int(r, "batch", o->batch > 0 ? o->batch : d.batch_size, d.batch_size);
    rec_real(r, "lr", o->lr >= 0 ? o->lr : d.optim.lr, o->lr < 0, d.optim.lr, 1);
    rec_real(r, "wd", o->wd >= 0 ? o->wd : d.optim.weight_decay, o->wd < 0, d.optim.weight_decay, 1);
    rec_real(r, "frac", o->frac, 0, 1, 0);
    rec_int(r, "seed", (long)o->seed, 1);
    rec_int(r, "seeds", o->seeds, embedded ? 3 : 1);
    rec_int(r, "split-seed", (long)o->split_seed, graph_sets > 1 ? 123 : 1234);
    rec_bool(r->flag, &r->n_flag, "lcc", o->lcc);
    rec_str(r, "eval", (o->eval_point >= 0 ? o->eval_point : d.eval_after_train) ? "train" : "download",
            d.eval_after_train ? "train" : "download");
    snprintf(v, sizeof v, "%d,%d", o->k_dse, o->k_rwse);
    rec_str(r, "se", v, "16,16");
    rec_real(r, "train-frac", o->train_frac >= 0 ? o->train_frac : def_tr, 0, def_tr, 0);
    rec_real(r, "val-frac", o->val_frac >= 0 ? o->val_frac : def_va, 0, def_va, 0);
    rec_int(r, "min-per-client", o->min_per_client, 10);
    rec_bool(r->flag, &r->n_flag, "reset-optim", o->reset_optim);
    rec_str(r, "features", o->raw_features ? "raw" : "row", "row");
    rec_int(r, "eval-every", o->eval_every > 0 ? o->eval_every : 1, 1);
    robust_format(&o->robust, v, sizeof v);
    rec_str(r, "robust", v, "mean");
    rec_real(r, "screen", o->robust.screen, 1, d.robust.screen, 1);
    attack_format(&o->attack, v, sizeof v);
    rec_add(r->flag, &r->n_flag, "attack", 's', o->attack.kind != FGL_ATTACK_NONE ? v : NULL, 'z', NULL);
    rec_real(r, "attackers", o->attack.frac, 1, 0, 1);
    if (o->dp.clip > 0) {
        char c[40], z[40], e[40];
        fmt_real(c, sizeof c, o->dp.clip, 1);
        fmt_real(z, sizeof z, o->dp.noise, 1);
        fmt_real(e, sizeof e, o->dp.delta, 0);
        snprintf(v, sizeof v, "clip=%s,noise=%s,delta=%s", c, z, e);
    }
    rec_add(r->flag, &r->n_flag, "dp", 's', o->dp.clip > 0 ? v : NULL, 'z', NULL);
    rec_bool(r->flag, &r->n_flag, "secagg", o->secagg.on);
    rec_real(r, "secagg-dropout", o->secagg.dropout, 1, 0, 1);
    /* cross-validation (graph tasks): null without it; fold null: every fold */
    snprintf(v, sizeof v, "%d", o->folds);
    rec_add(r->flag, &r->n_flag, "folds", 'n', o->folds ? v : NULL, 'z', NULL);
    snprintf(v, sizeof v, "%d", o->fold);
    rec_add(r->flag, &r->n_flag, "fold", 'n', o->folds && o->fold >= 0 ? v : NULL, 'z', NULL);
    /* the optimizer (the protocol's is Adam); the momentum is SGD's only */
    rec_str(r, "optim", (o->optim >= 0 ? o->optim : d.optim.kind) == FGL_SGD ? "sgd" : "adam",
            d.optim.kind == FGL_SGD ? "sgd" : "adam");
    {
        char m[40], md[40];
        fgl_optim_config sgd = fgl_optim_default(FGL_SGD);
        fmt_real(m, sizeof m, o->momentum >= 0 ? o->momentum : sgd.momentum, o->momentum < 0);
        fmt_real(md, sizeof md, sgd.momentum, 1);
        rec_add(r->flag, &r->n_flag, "momentum", 'n', o->optim == FGL_SGD ? m : NULL, 'n', md);
    }
    rec_int(r, "public-nodes", o->public_nodes, 0);
    /* run control: recorded, not replayed */
    rec_add(r->run, &r->n_run, "out", 's', o->out_dir, 'z', NULL);
    rec_add(r->run, &r->n_run, "checkpoint", 's', o->checkpoint, 'z', NULL);
    snprintf(v, sizeof v, "%d", o->checkpoint_every > 0 ? o->checkpoint_every : 1);
    rec_add(r->run, &r->n_run, "checkpoint-every", 'n', v, 'n', "1");
    snprintf(v, sizeof v, "%d", o->stop_after);
    rec_add(r->run, &r->n_run, "stop-after", 'n', o->stop_after ? v : NULL, 'z', NULL);
    snprintf(v, sizeof v, "%d", o->threads);
    rec_add(r->run, &r->n_run, "threads", 'n', o->threads ? v : NULL, 'z', NULL);
    snprintf(v, sizeof v, "%d", o->log_every);
    rec_add(r->run, &r->n_run, "log-every", 'n', o->log_every ? v : NULL, 'z', NULL);
    snprintf(v, sizeof v, "%d", o->park_idle);
    rec_add(r->run, &r->n_run, "park-idle", 'n', v, 'n', "1");
    rec_bool(r->run, &r->n_run, "json", o->json);
    rec_bool(r->run, &r->n_run, "quiet", o->quiet);
    rec_bool(r->run, &r->n_run, "info", o->info);
    rec_add(r->run, &r->n_run, "config", 's', o->config, 'z', NULL);
    rec_add(r->run, &r->n_run, "row", 's', o->row, 'z', NULL);
    rec_add(r->run, &r->n_run, "data-dir", 's', o->data_dir, 's', "$FGL_DATA or ../shared/data");
#ifdef FGL_MPI
    { /* build/fglrun_mpi's: where the clients run, not what they compute */
        char t[40], td[40];
        fmt_real(t, sizeof t, o->mpi.timeout, 0);
        fmt_real(td, sizeof td, fgl_mpi_options_default().timeout, 0);
        rec_add(r->run, &r->n_run, "mpi-timeout", 'n', t, 'n', td);
        snprintf(v, sizeof v, "%d:%d", o->mpi.fail_rank, o->mpi.fail_round);
        rec_add(r->run, &r->n_run, "mpi-fail", 's', o->mpi.fail_rank > 0 ? v : NULL, 'z', NULL);
    }
#endif
    /* every parameter of every chosen algorithm, as --set leaves it */
    for (a = 0; a < o->n_algos; a++) {
        const fgl_algo *al = fgl_algo_find(o->algos[a]);
        for (i = 0; al && i < al->n_params && r->n_param < REC_MAX * 2; i++) {
            const fgl_algo_param *p = &al->params[i];
            rec_item *it = &r->param[r->n_param++];
            int k;
            const char *val = NULL;
            for (k = 0; k < o->n_sets; k++) { /* the last --set of this key wins, as in run_one */
                const char *s = o->sets[k], *eq = strchr(s, '='), *dot = strchr(s, '.');
                const char *name = dot && dot < eq ? dot + 1 : s;
                if (dot && dot < eq && ((size_t)(dot - s) != strlen(al->name) || strncmp(s, al->name, (size_t)(dot - s))))
                    continue;
                if ((size_t)(eq - name) == strlen(p->name) && !strncmp(name, p->name, (size_t)(eq - name))) val = eq + 1;
            }
            it->vk = it->dk = p->type == FGL_PARAM_GROUPS ? 's' : 'n';
            if (p->type == FGL_PARAM_GROUPS) {
                unsigned g = (unsigned)p->def;
                fgl_groups_format(g, it->def, sizeof it->def);
                if (val && !fgl_groups_parse(val, &g)) fgl_groups_format(g, it->val, sizeof it->val);
                else strcpy(it->val, it->def);
            } else if (p->type == FGL_PARAM_INT) {
                snprintf(it->def, sizeof it->def, "%ld", (long)p->def);
                snprintf(it->val, sizeof it->val, "%ld", val ? strtol(val, NULL, 10) : (long)p->def);
            } else {
                fmt_real(it->def, sizeof it->def, p->def, 1);
                fmt_real(it->val, sizeof it->val, val ? strtod(val, NULL) : p->def, 1);
            }
            snprintf(it->key, sizeof it->key, "%s.%s", al->name, p->name);
        }
    }
    snprintf(r->data_dir, sizeof r->data_dir, "%s", o->data_dir);
    r->n_clients = sc->n_clients;
    record_files(r, o, ds);
}

static void rec_value(sbuf *b, char kind, const char *s) {
    if (kind == 's') sb_json_str(b, s);
    else if (kind == 'z') sb_puts(b, "null");
    else sb_puts(b, s);
}

static void rec_object(sbuf *b, const rec_item *it, int n, int def, int pretty) {
    int i;
    sb_puts(b, "{");
    for (i = 0; i < n; i++) {
        sb_puts(b, i ? (pretty ? ",\n    " : ", ") : (pretty ? "\n    " : ""));
        sb_json_str(b, it[i].key);
        sb_puts(b, ": ");
        rec_value(b, def ? it[i].dk : it[i].vk, def ? it[i].def : it[i].val);
    }
    sb_puts(b, pretty && n ? "\n  }" : "}");
}

/* Opens the next top-level member of the record. */
static void rec_member(sbuf *b, int *first, int pretty, const char *key) {
    sb_puts(b, *first ? (pretty ? "\n  " : "") : (pretty ? ",\n  " : ", "));
    *first = 0;
    sb_json_str(b, key);
    sb_puts(b, ": ");
}

/* The record as JSON (pretty: one member a line, for DIR/config); argv: the
 * command as typed. NULL when out of memory. */
static char *record_json(const run_record *r, const options *o, int argc, char **argv, int pretty) {
    sbuf b = {0, 0, 0, 0}, cmd = {0, 0, 0, 0};
    int i, first = 1;
    for (i = 0; i < argc; i++) { /* the command, quoted for a shell where needed */
        if (i) sb_puts(&cmd, " ");
        if (argv[i][0] && !argv[i][strcspn(argv[i], " \t\n\"'\\$`*?&|;<>(){}[]#~!")]) {
            sb_puts(&cmd, argv[i]);
        } else {
            const char *p;
            sb_puts(&cmd, "'");
            for (p = argv[i]; *p; p++) {
                if (*p == '\'') sb_puts(&cmd, "'\\''");
                else sb_putn(&cmd, p, 1);
            }
            sb_puts(&cmd, "'");
        }
    }
    sb_puts(&b, "{");
    rec_member(&b, &first, pretty, "fgl_version");
    sb_json_str(&b, FGL_VERSION);
    rec_member(&b, &first, pretty, "fgl_commit");
    sb_json_str(&b, FGL_COMMIT);
#if defined(__clang__) || !defined(__GNUC__)
#ifdef __VERSION__
    rec_member(&b, &first, pretty, "compiler");
    sb_json_str(&b, __VERSION__);
#endif
#else
    rec_member(&b, &first, pretty, "compiler");
    sb_json_str(&b, "gcc " __VERSION__);
#endif
    rec_member(&b, &first, pretty, "openmp");
#ifdef _OPENMP
    sb_puts(&b, "true");
#else
    sb_puts(&b, "false");
#endif
    rec_member(&b, &first, pretty, "command");
    sb_json_str(&b, cmd.s ? cmd.s : "");
    rec_member(&b, &first, pretty, "flags");
    rec_object(&b, r->flag, r->n_flag, 0, pretty);
    rec_member(&b, &first, pretty, "defaults");
    rec_object(&b, r->flag, r->n_flag, 1, pretty);
    rec_member(&b, &first, pretty, "set");
    sb_puts(&b, "[");
    for (i = 0; i < o->n_sets; i++) {
        if (i) sb_puts(&b, ", ");
        sb_json_str(&b, o->sets[i]);
    }
    sb_puts(&b, "]");
    rec_member(&b, &first, pretty, "params");
    rec_object(&b, r->param, r->n_param, 0, pretty);
    rec_member(&b, &first, pretty, "param_defaults");
    rec_object(&b, r->param, r->n_param, 1, pretty);
    rec_member(&b, &first, pretty, "run");
    rec_object(&b, r->run, r->n_run, 0, pretty);
    rec_member(&b, &first, pretty, "data");
    sb_puts(&b, "{\"dir\": ");
    sb_json_str(&b, r->data_dir);
    sb_printf(&b, ", \"clients_made\": %d, \"files\": ", r->n_clients);
    sb_puts(&b, r->files.s ? r->files.s : "[]");
    sb_puts(&b, pretty ? "}\n}" : "}}");
    free(cmd.s);
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* --- --config: replay a record --- */

typedef struct replay {
    jv doc;             /* the record read */
    const jv *result;   /* the result recorded with it (NULL: none) */
    const jv *files;    /* the data files it read */
    char **argv;        /* the record's flags, then the command line (options point into these) */
    int argc, n_sets;   /* --set arguments made from the record (they come first in options.sets) */
    int changed;        /* the command line changes the experiment (not only run control) */
    char what[1200];    /* "FILE" or "FILE, row LABEL", for messages */
} replay;

static void replay_free(replay *rp) {
    int i;
    if (!rp) return;
    for (i = 0; i < rp->argc; i++) free(rp->argv[i]);
    free(rp->argv);
    jv_free(&rp->doc);
    free(rp);
}

/* Appends the argument a b c (b, c may be NULL). */
static int replay_arg(replay *rp, const char *a, const char *b, const char *c) {
    char **nv = (char **)realloc(rp->argv, sizeof(char *) * (size_t)(rp->argc + 2));
    size_t n = strlen(a) + (b ? strlen(b) : 0) + (c ? strlen(c) : 0) + 1;
    if (!nv) return -1;
    rp->argv = nv;
    if (!(rp->argv[rp->argc] = (char *)malloc(n))) return -1;
    snprintf(rp->argv[rp->argc], n, "%s%s%s", a, b ? b : "", c ? c : "");
    rp->argc++;
    return 0;
}

/* The run-control flags: they may be given with --config without changing
 * the experiment. */
static int run_control_flag(const char *a) {
    static const char *names[] = {"--out", "--checkpoint", "--checkpoint-every", "--stop-after", "--threads",
                                  "--log-every", "--park-idle", "--json", "--quiet", "--info", "--config", "--row", "--data-dir",
                                  "--mpi-timeout", "--mpi-fail", "--help", "-h"};
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(a, names[i])) return 1;
    return 0;
}

/* An algorithm parameter's current default, formatted as records hold it. */
static int param_default(const char *algo, const char *key, char *out, size_t cap) {
    const fgl_algo *a = fgl_algo_find(algo);
    int i;
    for (i = 0; a && i < a->n_params; i++) {
        const fgl_algo_param *p = &a->params[i];
        if (strcmp(p->name, key)) continue;
        if (p->type == FGL_PARAM_GROUPS) fgl_groups_format((unsigned)p->def, out, cap);
        else if (p->type == FGL_PARAM_INT) snprintf(out, cap, "%ld", (long)p->def);
        else fmt_real(out, cap, p->def, 1);
        return 1;
    }
    return 0;
}

/* Finds the record in text: one JSON value, or with row the line of a JSON
 * Lines file whose "label" is row. */
static int replay_find(replay *rp, char *text, size_t len, const char *path, const char *row) {
    char err[160];
    if (!row) {
        if (!jv_parse(text, len, &rp->doc, err)) return 0;
        fprintf(stderr, "fglrun: --config %s: not one JSON record (%s)%s\n", path, err,
                memchr(text, '\n', len) && (char *)memchr(text, '\n', len) < text + len - 1 && text[0] == '{'
                    ? "; for a JSON Lines file choose a line with --row LABEL" : "");
        return 2;
    }
    {
        char *line = text, *end = text + len;
        int lines = 0;
        while (line < end) {
            char *nl = (char *)memchr(line, '\n', (size_t)(end - line));
            size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
            jv v;
            if (n && !jv_parse(line, n, &v, err)) {
                const jv *l = jv_get(&v, "label");
                lines++;
                if (l && l->t == 's' && !strcmp(l->s, row)) {
                    rp->doc = v;
                    return 0;
                }
                jv_free(&v);
            }
            line += n + 1;
        }
        fprintf(stderr, "fglrun: --config %s: no line labelled '%s' (of %d JSON lines)\n", path, row, lines);
        return 2;
    }
}

/* --config FILE [--row LABEL]: parse again, the record's flags first and
 * the command line after them. */
static int config_reparse(int argc, char **argv, options *o) {
    replay *rp = (replay *)calloc(1, sizeof *rp);
    const char *path = o->config, *row = o->row;
    const jv *rec, *res, *cfg = NULL, *args = NULL;
    char *text = NULL;
    size_t len = 0, cap = 0;
    FILE *f;
    int rc, i, k, n;
    if (!rp) return 1;
    if (!(f = fopen(path, "rb"))) {
        fprintf(stderr, "fglrun: --config %s: cannot read it\n", path);
        free(rp);
        return 2;
    }
    for (;;) { /* the whole file */
        size_t got;
        if (len + 4096 + 1 > cap) {
            char *p = (char *)realloc(text, cap = 2 * cap + 8192);
            if (!p) break;
            text = p;
        }
        if (!(got = fread(text + len, 1, 4096, f))) break;
        len += got;
    }
    fclose(f);
    if (!text) {
        free(rp);
        return 1;
    }
    snprintf(rp->what, sizeof rp->what, "%s%s%s", path, row ? ", row " : "", row ? row : "");
    rc = replay_find(rp, text, len, path, row);
    free(text);
    if (rc) {
        replay_free(rp);
        return rc;
    }
    rec = &rp->doc;
    res = jv_get(rec, "result"); /* a line of bench/results/SECTION.jsonl */
    if (res && res->t != 'o') res = NULL;
    if (!(cfg = jv_get(rec, "config")) && res) cfg = jv_get(res, "config");
    if (!cfg && jv_get(rec, "flags")) cfg = rec;
    rp->result = res ? res : (jv_get(rec, "test_acc") || jv_get(rec, "runs")) ? rec : NULL;
    if (replay_arg(rp, argv[0], NULL, NULL)) goto oom;
    if (cfg && cfg->t == 'o' && jv_get(cfg, "flags") && jv_get(cfg, "flags")->t == 'o') {
        const jv *fl = jv_get(cfg, "flags"), *pa = jv_get(cfg, "params"), *data = jv_get(cfg, "data");
        for (i = 0; i < fl->n; i++) {
            const jv *v = &fl->v[i];
            char flag[80];
            snprintf(flag, sizeof flag, "--%s", fl->k[i]);
            if (v->t == 'z' || (v->t == 'b' && !strcmp(v->s, "false"))) continue;
            if (v->t == 'b') {
                if (replay_arg(rp, flag, NULL, NULL)) goto oom;
            } else if (v->t == 's' || v->t == 'n') {
                if (replay_arg(rp, flag, NULL, NULL) || replay_arg(rp, v->s, NULL, NULL)) goto oom;
            } else {
                fprintf(stderr, "fglrun: --config %s: flag %s has a value that is not a string or a number\n", rp->what, flag);
                replay_free(rp);
                return 2;
            }
        }
        /* algorithm parameters that differ from this build's defaults */
        for (i = 0; pa && pa->t == 'o' && i < pa->n; i++) {
            char algo[64], def[512];
            const char *dot = strchr(pa->k[i], '.');
            const jv *v = &pa->v[i];
            if (!dot || (v->t != 's' && v->t != 'n') || (size_t)(dot - pa->k[i]) >= sizeof algo) continue;
            memcpy(algo, pa->k[i], (size_t)(dot - pa->k[i]));
            algo[dot - pa->k[i]] = 0;
            if (param_default(algo, dot + 1, def, sizeof def) && !strcmp(def, v->s)) continue;
            if (replay_arg(rp, "--set", NULL, NULL) || replay_arg(rp, pa->k[i], "=", v->s)) goto oom;
            rp->n_sets++;
        }
        if (data) rp->files = jv_get(data, "files");
    } else if ((args = jv_get(rec, "args")) && args->t == 's') {
        const char *p = args->s;
        fprintf(stderr, "fglrun: %s has no recorded configuration: replaying its \"args\" with this version's defaults\n",
                rp->what);
        while (*p) { /* the arguments as bench/results.sh wrote them: words without quoting */
            size_t w;
            char word[1024];
            while (*p == ' ') p++;
            if (!*p) break;
            w = strcspn(p, " ");
            if (w >= sizeof word) w = sizeof word - 1;
            memcpy(word, p, w);
            word[w] = 0;
            if (!strcmp(word, "--set")) rp->n_sets++;
            if (replay_arg(rp, word, NULL, NULL)) goto oom;
            p += w;
        }
    } else {
        fprintf(stderr, "fglrun: --config %s: no fglrun configuration in it (a config, a result with \"config\" or a "
                        "bench/results line with \"args\" is expected)\n", rp->what);
        replay_free(rp);
        return 2;
    }
    n = rp->argc;
    for (i = 1; i < argc; i++) {
        if (replay_arg(rp, argv[i], NULL, NULL)) goto oom;
        if (argv[i][0] == '-' && !run_control_flag(argv[i])) rp->changed = 1;
        /* the value of a run-control flag is not a flag */
        if (run_control_flag(argv[i]) && strcmp(argv[i], "--json") && strcmp(argv[i], "--quiet") &&
            strcmp(argv[i], "--info") && strcmp(argv[i], "--help") && strcmp(argv[i], "-h") && i + 1 < argc) {
            if (replay_arg(rp, argv[++i], NULL, NULL)) goto oom;
        }
    }
    (void)n;
    if ((rc = parse_args(rp->argc, rp->argv, o))) {
        replay_free(rp);
        return rc;
    }
    /* the record's parameters of algorithms no longer chosen (--algo on the command line) */
    for (i = 0, k = 0; i < o->n_sets; i++) {
        const char *dot = strchr(o->sets[i], '.');
        int keep = 1, a;
        if (i < rp->n_sets && dot && dot < strchr(o->sets[i], '=')) {
            keep = 0;
            for (a = 0; a < o->n_algos; a++)
                keep |= strlen(o->algos[a]) == (size_t)(dot - o->sets[i]) && !strncmp(o->algos[a], o->sets[i], (size_t)(dot - o->sets[i]));
        }
        if (keep) memmove(o->sets[k++], o->sets[i], sizeof o->sets[0]);
    }
    o->n_sets = k;
    o->rp = rp;
    return 0;
oom:
    fprintf(stderr, "fglrun: out of memory\n");
    replay_free(rp);
    return 1;
}

/* With --config: are the data files those the record read? */
static void replay_check_files(const options *o) {
    const jv *fs = o->rp ? o->rp->files : NULL;
    int i;
    for (i = 0; fs && fs->t == 'a' && i < fs->n; i++) {
        const jv *p = jv_get(&fs->v[i], "path"), *h = jv_get(&fs->v[i], "fnv1a64");
        char path[1600], now[20];
        uint64_t sum;
        if (!p || p->t != 's' || !h || h->t != 's') continue;
        if (jv_get(&fs->v[i], "given")) snprintf(path, sizeof path, "%s", p->s); /* a directory named by --data */
        else snprintf(path, sizeof path, "%s/%s", o->data_dir, p->s);
        if (file_fnv(path, &sum) < 0) {
            fprintf(stderr, "fglrun: warning: the record read %s, which is missing here (%s)\n", p->s, path);
            continue;
        }
        snprintf(now, sizeof now, "%016llx", (unsigned long long)sum);
        if (strcmp(now, h->s))
            fprintf(stderr, "fglrun: warning: %s differs from the file the record read (fnv1a64 %s, recorded %s)\n", path,
                    now, h->s);
    }
}

/* --- progress, partial results and plots: declarations (defined after json_result) --- */

struct result;

typedef struct curves {      /* one algorithm's per-round record over seeds (plots) */
    int rounds, K, n;
    double *val, *test, *mb; /* seeds x rounds: mean val / test accuracy (NaN: not evaluated), cumulative MB up + down */
    double *client;          /* seeds x K: each client's test accuracy at the last round */
} curves;

typedef struct progress {
    int n_algos, seeds, rounds, K, split;
    const fgl_dataset *ds;
    struct result *res;      /* per algorithm */
    curves *cv;              /* per algorithm */
    long total, done, ran;   /* rounds of all runs; completed (resumed ones too); run by this process */
    double t0, t_last, t_ran;   /* start; the last round's end; seconds spent in rounds */
    FILE *csv;               /* the current run's per-round CSV (--out) */
    int tty, every, bar;     /* progress bar on stderr; a line every N rounds; a bar is on screen */
    int final;               /* the final result is being written (it carries the record) */
    const char *algo;        /* the run under way */
    uint64_t seed;
    int fold;                /* its fold (--folds) */
    char label[64];          /* "ALGO" or "ALGO fold F", for progress lines */
    const fgl_run *run;
} progress;

/* The process's peak resident memory (MB) once the data and the clients'
 * copies of it were built, before any run (0: unknown): the JSON's
 * data_rss_mb, so that peak_rss_mb - data_rss_mb is the runs' own. */
static double data_rss_mb;

static void progress_begin(const options *o, const char *algo, uint64_t seed, int fold, const fgl_run *run);
static void progress_round(const options *o, const fgl_run *run);
static void progress_end(const options *o);
static void progress_run_done(const options *o, struct result *res, int idx, const fgl_run *run);
static int checkpoint_due(const options *o, int done, int rounds);
static int checkpoint_save(const fgl_run *run, const char *path, fgl_error *err);

/* --- running --------------------------------------------------------------------------- */

typedef struct result {
    double best[1000], last[1000], secs[1000], eps[1000], server[1000], train[1000], eval[1000];
    double rho[1000];    /* Spearman of the client matrix with the clients' label similarity, per seed */
    int has_rho;
    size_t up, down;
    int rejected, screened, clipped, dropped, n;
    int *rejected_round, *clipped_round;   /* per round, summed over seeds */
    int defended;                         /* a defence, attack or privacy option is on */
    int lost;                             /* uploads lost with an MPI rank that stopped answering */
#ifdef FGL_MPI
    fgl_mpi_stats mpi;                    /* summed over seeds (ranks, note: the last run's) */
#endif
    char report[512];
} result;

static void mean_std(const double *x, int n, double *mean, double *sd) {
    double s = 0, q = 0;
    int i;
    for (i = 0; i < n; i++) s += x[i];
    *mean = n ? s / n : 0;
    for (i = 0; i < n; i++) q += (x[i] - *mean) * (x[i] - *mean);
    *sd = n > 1 ? sqrt(q / (n - 1)) : 0;
}

/* The checkpoint file of one run: FILE itself, or FILE.ALGO.seedS when
 * there are several runs. */
static void checkpoint_path(const options *o, const char *algo, uint64_t seed, int fold, char *out, size_t cap) {
    if (o->n_algos == 1 && o->seeds == 1 && (!o->folds || o->fold >= 0)) snprintf(out, cap, "%s", o->checkpoint);
    else if (o->folds) snprintf(out, cap, "%s.%s.fold%d.seed%llu", o->checkpoint, algo, fold, (unsigned long long)seed);
    else snprintf(out, cap, "%s.%s.seed%llu", o->checkpoint, algo, (unsigned long long)seed);
}

/* 0: done, 1: error, 2: bad parameter, 3: stopped at --stop-after. */
static int run_one(const options *o, const char *algo_name, uint64_t seed, int fold, fgl_client_data *cd, int K,
                   int task, const fgl_node_data *pub, const double *labsim, result *res, int idx) {
    const fgl_algo *algo = fgl_algo_find(algo_name);
    fgl_fed_config cfg = fgl_fed_config_default(task);
    fgl_run run;
    fgl_error err;
    fgl_run_summary s;
    char ckpt[1024];
    int r, k;
    ckpt[0] = 0;
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
    cfg.seed = seed;
    cfg.threads = o->threads;
    cfg.park_idle = o->park_idle;
    if (o->reset_optim) cfg.reset_optim = 1;
    if (o->eval_point >= 0) cfg.eval_after_train = o->eval_point;
    cfg.eval_every = o->eval_every;
    cfg.robust = o->robust;
    cfg.attack = o->attack;
    cfg.dp = o->dp;
    cfg.secagg = o->secagg;
    if (fgl_run_init(&run, &cfg, algo, cd, K, &err)) {
        fprintf(stderr, "fglrun: %s\n", err.msg);
        return 1;
    }
    if (pub && pub->n_nodes > 0 && fgl_run_set_public(&run, pub, &err)) {
        fprintf(stderr, "fglrun: %s\n", err.msg);
        fgl_run_free(&run);
        return 1;
    }
    for (k = 0; k < o->n_sets; k++) { /* key=value, or algo.key=value for one algorithm only (checked before) */
        char key[128], *eq, *dot, *name;
        double now;
        strcpy(key, o->sets[k]);
        eq = strchr(key, '=');
        *eq = 0;
        name = key;
        dot = strchr(key, '.');
        if (dot) {
            *dot = 0;
            if (strcmp(key, algo->name) != 0) continue;
            name = dot + 1;
        }
        now = fgl_run_get(&run, name);
        if (now != now) continue; /* NaN: not a parameter of this algorithm */
        if (fgl_run_set(&run, name, eq + 1, &err)) {
            fprintf(stderr, "fglrun: %s\n", err.msg);
            fgl_run_free(&run);
            return 2;
        }
    }
#ifdef FGL_MPI
    if (fgl_mpi_distribute(&run, MPI_COMM_WORLD, &o->mpi, &err)) { /* the clients go to ranks 1..P-1 */
        fprintf(stderr, "fglrun: %s\n", err.msg);
        fgl_run_free(&run);
        return 1;
    }
#endif
    if (o->checkpoint) {
        checkpoint_path(o, algo->name, seed, fold, ckpt, sizeof ckpt);
        if (file_exists(ckpt)) {
            if (fgl_run_load(&run, ckpt, &err)) {
                fprintf(stderr, "fglrun: %s\n", err.msg);
                fgl_run_free(&run);
                return 1;
            }
            if (!o->quiet) fprintf(stderr, "fglrun: resumed %s at round %d\n", ckpt, run.round);
        }
    }
    progress_begin(o, algo->name, seed, fold, &run);
    for (r = run.round; r < cfg.rounds; r++) {
        if (fgl_run_round(&run)) {
            progress_end(o);
            fprintf(stderr, "\nfglrun: %s\n", run.err.msg);
            fgl_run_free(&run);
            return 1;
        }
        if (o->checkpoint && checkpoint_due(o, r + 1, cfg.rounds) && checkpoint_save(&run, ckpt, &err))
            fprintf(stderr, "fglrun: %s\n", err.msg);
        progress_round(o, &run);
        if (o->stop_after && r + 1 == o->stop_after && r + 1 < cfg.rounds) {
            progress_end(o);
            if (!o->quiet) fprintf(stderr, "fglrun: %s seed %llu stopped after round %d; %s resumes it\n", algo->name,
                                   (unsigned long long)seed, r + 1, ckpt);
            fgl_run_free(&run);
            return 3;
        }
    }
    progress_end(o);
    fgl_run_summarize(&run, &s);
    res->best[idx] = s.best_test;
    res->last[idx] = s.last_test;
    res->secs[idx] = s.seconds;
    res->server[idx] = s.t_server;
    res->train[idx] = s.t_train;
    res->eval[idx] = s.t_eval;
    res->up += s.bytes_up;
    res->down += s.bytes_down;
    res->rejected += s.rejected;
    res->screened += s.screened;
    res->clipped += s.clipped;
    res->dropped += s.dropped;
    res->eps[idx] = fgl_run_dp_epsilon(&run, 0);
    res->lost += s.lost;
#ifdef FGL_MPI
    {
        fgl_mpi_stats ms;
        fgl_mpi_stats_get(&run, &ms);
        res->mpi.ranks = ms.ranks;
        res->mpi.lost_ranks += ms.lost_ranks;
        res->mpi.bytes_sent += ms.bytes_sent;
        res->mpi.bytes_received += ms.bytes_received;
        res->mpi.bytes_data += ms.bytes_data;
        res->mpi.t_exchange += ms.t_exchange;
        res->mpi.t_remote += ms.t_remote;
        if (ms.note[0]) {
            memcpy(res->mpi.note, ms.note, sizeof ms.note);
            fprintf(stderr, "fglrun: %s seed %llu: %s\n", algo->name, (unsigned long long)seed, ms.note); /* even --quiet */
        }
    }
#endif
    res->defended = cfg.robust.rule != FGL_ROBUST_MEAN || cfg.attack.kind != FGL_ATTACK_NONE || cfg.dp.clip > 0 ||
                    cfg.secagg.on || s.screened > 0;
    if (!res->rejected_round) {
        res->rejected_round = (int *)calloc((size_t)cfg.rounds, sizeof(int));
        res->clipped_round = (int *)calloc((size_t)cfg.rounds, sizeof(int));
    }
    for (k = 0; k < run.round && res->rejected_round && res->clipped_round; k++) {
        res->rejected_round[k] += run.stats[k].n_rejected;
        res->clipped_round[k] += run.stats[k].n_clipped;
    }
    res->n = idx + 1;
    res->report[0] = 0;
    if (algo->report) algo->report(&run, res->report, sizeof res->report);
    if (labsim && algo->client_matrix && algo->client_matrix(&run)) { /* does the matrix follow the labels? */
        res->rho[idx] = fgl_rowwise_spearman(algo->client_matrix(&run), labsim, K, NULL);
        res->has_rho = 1;
    }
    progress_run_done(o, res, idx, &run);
    if (o->out_dir) {
        char name[64];
        int *order = (int *)malloc(sizeof(int) * (size_t)K), *dom = (int *)malloc(sizeof(int) * (size_t)K);
        double *share = (double *)malloc(sizeof(double) * (size_t)K);
        if (o->folds) snprintf(name, sizeof name, "%s_fold%d", algo->name, fold);
        else snprintf(name, sizeof name, "%s", algo->name);
        if (order && dom && share) client_order(cd, K, order, dom, share);
        write_round_csv(o->out_dir, name, seed, &run);
        write_matrix(o->out_dir, name, seed, &run, order && dom && share ? order : NULL, order && dom && share ? dom : NULL);
        free(order);
        free(dom);
        free(share);
    }
    if (!o->quiet && !o->json && o->folds)
        printf("  %-10s fold %d seed %llu: last %.2f%%\n", algo->name, fold, (unsigned long long)seed, 100 * s.last_test);
    else if (!o->quiet && !o->json && o->seeds > 1)
        printf("  %-10s seed %llu: test %.2f%% (best val round %d), last %.2f%%\n", algo->name,
               (unsigned long long)seed, 100 * s.best_test, s.best_round + 1, 100 * s.last_test);
    fgl_run_free(&run);
    return 0;
}

static void json_result(FILE *f, const options *o, const char *algo, const fgl_dataset *ds, int split, int K, int rounds,
                        const result *res) {
    double bm, bs, lm, ls, sm, ss, vm, vs, tm, ts, em, es;
    int i;
    /* with cross-validation there is no validation set: the last round is reported */
    const double *sel = o->folds ? res->last : res->best;
    mean_std(sel, res->n, &bm, &bs);
    mean_std(res->last, res->n, &lm, &ls);
    mean_std(res->secs, res->n, &sm, &ss);
    mean_std(res->server, res->n, &vm, &vs);
    mean_std(res->train, res->n, &tm, &ts);
    mean_std(res->eval, res->n, &em, &es);
    fprintf(f, "{\"algo\": \"%s\", \"data\": \"%s\", \"split\": \"%s\", \"clients\": %d, \"rounds\": %d, \"seeds\": %d, "
               "\"seed\": %llu, \"split_seed\": %llu, ",
            algo, ds->label, o->public_split ? "public" : fgl_part_name(split), K, rounds, o->seeds,
            (unsigned long long)o->seed, (unsigned long long)o->split_seed);
    if (o->folds) fprintf(f, "\"folds\": %d, \"fold\": %d, \"runs\": %d, ", o->folds, o->fold, res->n);
    fprintf(f, "\"test_acc_mean\": %.6f, \"test_acc_std\": %.6f, \"selection\": \"%s\", \"last_acc_mean\": %.6f, "
               "\"last_acc_std\": %.6f, \"test_acc\": [", bm, bs, o->folds ? "last_round" : "best_val", lm, ls);
    for (i = 0; i < res->n; i++) fprintf(f, "%s%.6f", i ? ", " : "", sel[i]);
    fprintf(f, "], \"bytes_up\": %zu, \"bytes_down\": %zu, \"rejected_uploads\": %d, \"seconds\": %.3f, "
               "\"seconds_server\": %.3f, \"seconds_train\": %.3f, \"seconds_eval\": %.3f",
            res->up / (size_t)res->n, res->down / (size_t)res->n, res->rejected, sm, vm, tm, em);
    {   /* the process's peak resident memory so far (Linux reports kilobytes): with several
         * algorithms or seeds in one process, the running maximum, not this row's own */
        struct rusage ru;
        if (getrusage(RUSAGE_SELF, &ru) == 0) fprintf(f, ", \"peak_rss_mb\": %.1f", (double)ru.ru_maxrss / 1024.0);
        if (data_rss_mb > 0) fprintf(f, ", \"data_rss_mb\": %.1f", data_rss_mb);
    }
    if (res->has_rho) { /* mean over clients of Spearman(matrix row, label-histogram cosine), mean over seeds */
        double rm, rs;
        mean_std(res->rho, res->n, &rm, &rs);
        fprintf(f, ", \"matrix_label_spearman\": %.4f", rm);
    }
    if (res->defended) { /* the defences' record: totals over seeds, then per round */
        fprintf(f, ", \"robust\": \"%s\", \"attack\": \"%s\", \"attackers\": %g, \"screened_uploads\": %d, "
                   "\"clipped_uploads\": %d, \"dropped_uploads\": %d, \"rejected_per_round\": [",
                fgl_robust_name(o->robust.rule), fgl_attack_name(o->attack.kind), (double)o->attack.frac, res->screened,
                res->clipped, res->dropped);
        for (i = 0; i < rounds && res->rejected_round; i++) fprintf(f, "%s%d", i ? ", " : "", res->rejected_round[i]);
        fprintf(f, "], \"clipped_per_round\": [");
        for (i = 0; i < rounds && res->clipped_round; i++) fprintf(f, "%s%d", i ? ", " : "", res->clipped_round[i]);
        fprintf(f, "]");
    }
    if (o->dp.clip > 0) {
        double em, es;
        mean_std(res->eps, res->n, &em, &es);
        fprintf(f, ", \"dp_clip\": %g, \"dp_noise\": %g, \"dp_delta\": %g, \"dp_epsilon\": %.6g", (double)o->dp.clip,
                (double)o->dp.noise, o->dp.delta, em);
    }
    if (res->lost) fprintf(f, ", \"lost_uploads\": %d", res->lost);
#ifdef FGL_MPI
    /* what crossed MPI (per run: means over seeds) beside the counted bytes_up / bytes_down above */
    fprintf(f, ", \"mpi\": {\"ranks\": %d, \"bytes_up\": %zu, \"bytes_down\": %zu, \"bytes_start\": %zu, "
               "\"seconds_exchange\": %.3f, \"seconds_remote\": %.3f, \"lost_ranks\": %d}",
            res->mpi.ranks, res->mpi.bytes_received / (size_t)res->n, res->mpi.bytes_sent / (size_t)res->n,
            res->mpi.bytes_data / (size_t)res->n, res->mpi.t_exchange / res->n, res->mpi.t_remote / res->n,
            res->mpi.lost_ranks);
#endif
    if (res->report[0]) fprintf(f, ", %s", res->report);
    if (o->n_algos == 1 && o->pg && o->pg->final && o->config_json) fprintf(f, ", \"config\": %s", o->config_json);
    fprintf(f, "}");
}
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

/* Round r of run as rows of the per-round CSV (write_round_csv's format). */
static void progress_csv_round(FILE *f, const fgl_run *run, int r) {
    int i;
    for (i = 0; i < run->n_clients; i++) {
        size_t k = (size_t)r * run->n_clients + i;
        fprintf(f, "%d,%d,%.6f,%.6f,%.6f,%zu,%zu\n", r + 1, i, run->client_loss[k], run->client_val[k], run->client_test[k],
                run->client_up[k], run->client_down[k]);
    }
}

static void fmt_time(char *out, size_t cap, double s) {
    if (!(s >= 0)) snprintf(out, cap, "?");
    else if (s < 90) snprintf(out, cap, "%.0fs", s);
    else if (s < 5400) snprintf(out, cap, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else snprintf(out, cap, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
}

/* ", "config": {...}" when there is a record. */
static void config_member(FILE *f, const options *o) {
    if (o->config_json) fprintf(f, ", \"config\": %s", o->config_json);
}

/* runs: per algorithm (seeds, or folds x seeds with --folds). */
static void progress_init(progress *pg, options *o, result *res, const fgl_dataset *ds, int split, int K, int rounds,
                          int runs) {
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
    if (o->out_dir) {
        char path[1200];
        FILE *f;
        snprintf(path, sizeof path, "%s/result.json", o->out_dir);
        remove(path); /* a result.json in DIR is this invocation's, written when it is complete */
        snprintf(path, sizeof path, "%s/config", o->out_dir);
        if (o->config_pretty && (f = fopen(path, "w"))) {
            fputs(o->config_pretty, f);
            fclose(f);
        }
    }
}

/* DIR/progress.json, atomically. */
static void progress_write(const options *o, const char *status) {
    const progress *pg = o->pg;
    char path[1200], tmp[1300], eta[32];
    FILE *f;
    int a, first = 1;
    double el = now_s() - pg->t0;
    if (!o->out_dir) return;
    snprintf(path, sizeof path, "%s/progress.json", o->out_dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (!(f = fopen(tmp, "w"))) return;
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
        fprintf(f, ", \"current\": {\"algo\": \"%s\", \"seed\": %llu, \"round\": %d, \"rounds\": %d", pg->algo,
                (unsigned long long)pg->seed, run->round, pg->rounds);
        if (o->folds) fprintf(f, ", \"fold\": %d", pg->fold);
        if (run->round > 0 && s.best_round >= 0)
            fprintf(f, ", \"best_val_round\": %d, \"test_acc\": %.6f, \"last_acc\": %.6f", s.best_round + 1, s.best_test,
                    s.last_test);
        fprintf(f, ", \"bytes_up\": %zu, \"bytes_down\": %zu}", run->bytes_up, run->bytes_down);
    }
    fprintf(f, ", \"runs\": [");
    for (a = 0; a < pg->n_algos; a++) {
        if (pg->res[a].n <= 0) continue;
        if (!first) fprintf(f, ", ");
        first = 0;
        json_result(f, o, o->algos[a], pg->ds, pg->split, pg->K, pg->rounds, &pg->res[a]);
    }
    fprintf(f, "]");
    config_member(f, o);
    fprintf(f, "}\n");
    if (fclose(f) == 0) rename(tmp, path);
    else remove(tmp);
}

/* A run begins (or resumes at run->round). */
static void progress_begin(const options *o, const char *algo, uint64_t seed, int fold, const fgl_run *run) {
    progress *pg = o->pg;
    int r;
    if (!pg) return;
    pg->algo = algo;
    pg->seed = seed;
    pg->fold = fold;
    if (o->folds) snprintf(pg->label, sizeof pg->label, "%s fold %d", algo, fold);
    else snprintf(pg->label, sizeof pg->label, "%s", algo);
    pg->run = run;
    pg->done += run->round;
    pg->t_last = now_s();
    if (o->out_dir) {
        char path[1200];
        if (o->folds) /* the name write_round_csv gives it */
            snprintf(path, sizeof path, "%s/%s_fold%d_seed%llu_rounds.csv", o->out_dir, algo, fold, (unsigned long long)seed);
        else
            snprintf(path, sizeof path, "%s/%s_seed%llu_rounds.csv", o->out_dir, algo, (unsigned long long)seed);
        if ((pg->csv = fopen(path, "w"))) {
            fprintf(pg->csv, "round,client,train_loss,val_acc,test_acc,bytes_up,bytes_down\n");
            for (r = 0; r < run->round; r++) progress_csv_round(pg->csv, run, r);
            fflush(pg->csv);
        } else {
            fprintf(stderr, "fglrun: cannot write %s\n", path);
        }
    }
}

/* After every round. */
static void progress_round(const options *o, const fgl_run *run) {
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
        progress_csv_round(pg->csv, run, r);
        fflush(pg->csv);
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
        char acc[64] = "val -       test -      ";
        if (st->val_acc == st->val_acc && o->folds) /* cross-validation: no validation set */
            snprintf(acc, sizeof acc, "val -       test %6.2f%%", 100 * st->test_acc);
        else if (st->val_acc == st->val_acc)
            snprintf(acc, sizeof acc, "val %6.2f%%  test %6.2f%%", 100 * st->val_acc, 100 * st->test_acc);
        fprintf(stderr, "fglrun: %s seed %llu round %d/%d  %s  loss %.4f  sent %.1f MB  elapsed %s  ETA %s\n", pg->label,
                (unsigned long long)pg->seed, r + 1, R, acc, st->train_loss, (run->bytes_up + run->bytes_down) / 1e6, e1,
                e2);
    }
    progress_write(o, "running");
}

/* A run stops (finished, stopped or failed). */
static void progress_end(const options *o) {
    progress *pg = o->pg;
    if (!pg) return;
    if (pg->csv) fclose(pg->csv);
    pg->csv = NULL;
    if (pg->bar) fprintf(stderr, "\r%*s\r", 120, "");
    pg->bar = 0;
    pg->run = NULL;
}

/* A run finished and res holds it as seed idx: keep its curves for the plots. */
static void progress_run_done(const options *o, result *res, int idx, const fgl_run *run) {
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

static void progress_finish(progress *pg, const options *o, const char *status) {
    if (pg && o->pg) progress_write(o, status);
}

static void progress_free(progress *pg) {
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
static int checkpoint_due(const options *o, int done, int rounds) {
    return o->checkpoint_every <= 1 || done % o->checkpoint_every == 0 || done == rounds || done == o->stop_after;
}

static int checkpoint_save(const fgl_run *run, const char *path, fgl_error *err) {
    char tmp[1100];
    int rc;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if ((rc = fgl_run_save(run, tmp, err))) return rc;
    if (rename(tmp, path)) return fgl_error_set(err, FGL_ERR_IO, "%s: cannot rename to %s", tmp, path);
    return FGL_OK;
}

/* --config with a recorded result and nothing changed but run control: the
 * result must be identical (test_acc per seed, last_acc, bytes). 0 if it is
 * (or there is nothing to compare), 1 if not. */
static int replay_check(const options *o, const result *res) {
    const replay *rp = o->rp;
    int a, i, bad = 0, compared = 0;
    if (!rp || !rp->result) return 0;
    if (rp->changed) {
        if (!o->quiet) fprintf(stderr, "fglrun: the command line changes the recorded experiment: no comparison with %s\n", rp->what);
        return 0;
    }
    for (a = 0; a < o->n_algos; a++) {
        const jv *rec = NULL, *runs = jv_get(rp->result, "runs"), *v;
        char got[64], want[64];
        double lm, ls;
        if (runs && runs->t == 'a') {
            for (i = 0; i < runs->n && !rec; i++)
                if ((v = jv_get(&runs->v[i], "algo")) && v->t == 's' && !strcmp(v->s, o->algos[a])) rec = &runs->v[i];
        } else if ((v = jv_get(rp->result, "algo")) && v->t == 's' && !strcmp(v->s, o->algos[a])) {
            rec = rp->result;
        }
        if (!rec) {
            fprintf(stderr, "fglrun: replay: %s has no recorded result for %s\n", rp->what, o->algos[a]);
            bad = 1;
            continue;
        }
        compared++;
        v = jv_get(rec, "test_acc");
        if (!v || v->t != 'a' || v->n != res[a].n) {
            fprintf(stderr, "fglrun: replay: %s: %d seeds recorded, %d run\n", o->algos[a], v && v->t == 'a' ? v->n : 0, res[a].n);
            bad = 1;
        }
        for (i = 0; v && v->t == 'a' && i < v->n && i < res[a].n; i++) {
            snprintf(got, sizeof got, "%.6f", o->folds ? res[a].last[i] : res[a].best[i]); /* json_result's selection */
            snprintf(want, sizeof want, "%.6f", strtod(v->v[i].s ? v->v[i].s : "nan", NULL));
            if (strcmp(got, want)) {
                fprintf(stderr, "fglrun: replay: %s seed %d: test_acc %s, recorded %s\n", o->algos[a], i + 1, got, want);
                bad = 1;
            }
        }
        mean_std(res[a].last, res[a].n, &lm, &ls);
        snprintf(got, sizeof got, "%.6f", lm);
        v = jv_get(rec, "last_acc_mean");
        snprintf(want, sizeof want, "%.6f", v && v->s ? strtod(v->s, NULL) : -1.0);
        if (strcmp(got, want)) {
            fprintf(stderr, "fglrun: replay: %s: last_acc_mean %s, recorded %s\n", o->algos[a], got, want);
            bad = 1;
        }
        for (i = 0; i < 2; i++) {
            size_t mine = res[a].n ? (i ? res[a].down : res[a].up) / (size_t)res[a].n : 0;
            v = jv_get(rec, i ? "bytes_down" : "bytes_up");
            snprintf(got, sizeof got, "%zu", mine);
            if (!v || !v->s || strcmp(got, v->s)) {
                fprintf(stderr, "fglrun: replay: %s: %s %s, recorded %s\n", o->algos[a], i ? "bytes_down" : "bytes_up", got,
                        v && v->s ? v->s : "nothing");
                bad = 1;
            }
        }
    }
    if (!bad && compared) {
        if (!o->quiet) fprintf(stderr, "fglrun: replay of %s: test_acc, last_acc and bytes identical to the record\n", rp->what);
        return 0;
    }
    fprintf(stderr, "fglrun: the replay of %s differs from the record\n", rp->what);
    return 1;
}

/* ======================================================================================= */
/* --- plots: standalone SVG in --out DIR --------------------------------------------------- */
/*
 * curves.svg   mean client validation and test accuracy per round, one line
 *              per algorithm (the mean over seeds) and a band from the lowest
 *              to the highest seed;
 * clients.svg  each client's test accuracy at the last round (mean over
 *              seeds, a whisker from the lowest to the highest seed), and the
 *              same sorted, worst client first (fairness);
 * bytes.svg    megabytes sent (up + down) so far, per round, per algorithm;
 * ALGO_seedS_matrix.svg  an algorithm's client-to-client matrix (heatmap).
 * tests/test_plots.sh renders each in headless Chromium and checks that no
 * text leaves the picture or overlaps other text.
 */

static const char *plot_colour(int i) {
    static const char *c[] = {"#1f5fbf", "#d2452b", "#2a9d4b", "#8e44ad", "#e08a00",
                              "#1a9aa8", "#c2378a", "#5b6770", "#7a8f00", "#8c5a2b"};
    return c[i % 10];
}

/* The line style of series i, so that lines lying on each other stay
 * visible (NULL: solid). */
static const char *plot_dash(int i) {
    static const char *d[] = {NULL, "9 4", "3 3", "12 3 3 3"};
    return d[i % 4];
}

/* Width of s in pixels at font size px: a generous estimate for common
 * sans-serif fonts by classes of characters (the layout leaves room for
 * it; tests/test_plots.sh measures the real text in Chromium). */
static double text_w(const char *s, double px) {
    double em = 0;
    for (; *s; s++) {
        if (strchr("ijlt.,:;!|'()[] ", *s)) em += 0.36;
        else if (strchr("mwMW%", *s)) em += 0.95;
        else if (*s >= 'A' && *s <= 'Z') em += 0.74;
        else em += 0.64;
    }
    return em * px;
}

/* Text content, escaped for XML. */
static void svg_esc(FILE *f, const char *s) {
    for (; *s; s++) {
        if (*s == '&') fputs("&amp;", f);
        else if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '"') fputs("&quot;", f);
        else fputc(*s, f);
    }
}

static void svg_text(FILE *f, double x, double y, const char *anchor, double px, const char *extra, const char *s) {
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%g\"%s%s>", x, y, anchor, px, extra ? " " : "",
            extra ? extra : "");
    svg_esc(f, s);
    fputs("</text>\n", f);
}

static FILE *svg_open(const char *dir, const char *name, int w, int h) {
    char path[1200];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!(f = fopen(path, "w"))) {
        fprintf(stderr, "fglrun: cannot write %s\n", path);
        return NULL;
    }
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" fill=\"#222\">\n"
               "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", w, h, w, h, w, h);
    return f;
}

/* A plot area: pixels (px, py, pw, ph) showing data x0..x1, y0..y1
 * (ylog: decades). */
typedef struct chart {
    FILE *f;
    double px, py, pw, ph, x0, x1, y0, y1;
    int ylog;
} chart;

static double ch_x(const chart *c, double x) { return c->px + (x - c->x0) / (c->x1 - c->x0) * c->pw; }

static double ch_y(const chart *c, double y) {
    double t = c->ylog ? (log10(y) - log10(c->y0)) / (log10(c->y1) - log10(c->y0)) : (y - c->y0) / (c->y1 - c->y0);
    return c->py + c->ph - t * c->ph;
}

static double nice_step(double span, int n) {
    double raw = span / n, mag, f;
    if (!(raw > 0)) return 1;
    mag = pow(10, floor(log10(raw)));
    f = raw / mag;
    return (f <= 1.2 ? 1 : f <= 2.5 ? 2 : f <= 6 ? 5 : 10) * mag;
}

static void fmt_tick(char *out, size_t cap, double v, double step) {
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    snprintf(out, cap, "%.*f", dec > 6 ? 6 : dec, fabs(v) < step * 1e-6 ? 0.0 : v);
}

/* Frame, grid, ticks, axis labels and the panel title. */
static void ch_axes(chart *c, const char *xlabel, const char *ylabel, const char *title, int integer_x) {
    FILE *f = c->f;
    char buf[64];
    double s, v;
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fbfbfb\" stroke=\"#bbb\"/>\n", c->px, c->py,
            c->pw, c->ph);
    s = nice_step(c->x1 - c->x0, (int)(c->pw / 70) > 2 ? (int)(c->pw / 70) : 2);
    if (integer_x && s < 1) s = 1;
    for (v = ceil(c->x0 / s - 1e-9) * s; v <= c->x1 + s * 1e-9; v += s) {
        double x = ch_x(c, v);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", x, c->py, x, c->py + c->ph);
        fmt_tick(buf, sizeof buf, v, s);
        svg_text(f, x, c->py + c->ph + 15, "middle", 11, NULL, buf);
    }
    if (c->ylog) {
        for (v = pow(10, ceil(log10(c->y0) - 1e-9)); v <= c->y1 * (1 + 1e-9); v *= 10) {
            double y = ch_y(c, v);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", c->px, y, c->px + c->pw, y);
            fmt_tick(buf, sizeof buf, v, v);
            svg_text(f, c->px - 6, y + 4, "end", 11, NULL, buf);
        }
    } else {
        s = nice_step(c->y1 - c->y0, 5);
        for (v = ceil(c->y0 / s - 1e-9) * s; v <= c->y1 + s * 1e-9; v += s) {
            double y = ch_y(c, v);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", c->px, y, c->px + c->pw, y);
            fmt_tick(buf, sizeof buf, v, s);
            svg_text(f, c->px - 6, y + 4, "end", 11, NULL, buf);
        }
    }
    svg_text(f, c->px + c->pw / 2, c->py + c->ph + 34, "middle", 12, NULL, xlabel);
    fprintf(f, "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">",
            c->px - 44, c->py + c->ph / 2);
    svg_esc(f, ylabel);
    fputs("</text>\n", f);
    if (title) svg_text(f, c->px, c->py - 8, "start", 13, "font-weight=\"bold\"", title);
}

/* A polyline through the finite points (x[i], y[i]). */
static void ch_line(chart *c, const double *x, const double *y, int n, const char *colour, double width, const char *dash) {
    int i, first = 1;
    fprintf(c->f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"%g\" stroke-linejoin=\"round\"%s%s%s d=\"", colour, width,
            dash ? " stroke-dasharray=\"" : "", dash ? dash : "", dash ? "\"" : "");
    for (i = 0; i < n; i++) {
        if (!(y[i] == y[i]) || (c->ylog && !(y[i] > 0))) continue;
        fprintf(c->f, "%s%.1f %.1f", first ? "M" : " L", ch_x(c, x[i]), ch_y(c, y[i]));
        first = 0;
    }
    fprintf(c->f, "\"/>\n");
}

/* A translucent band between lo and hi (points where both are finite). */
static void ch_band(chart *c, const double *x, const double *lo, const double *hi, int n, const char *colour) {
    int i, first = 1;
    fprintf(c->f, "<path fill=\"%s\" fill-opacity=\"0.18\" stroke=\"none\" d=\"", colour);
    for (i = 0; i < n; i++) {
        if (!(lo[i] == lo[i]) || !(hi[i] == hi[i])) continue;
        fprintf(c->f, "%s%.1f %.1f", first ? "M" : " L", ch_x(c, x[i]), ch_y(c, hi[i]));
        first = 0;
    }
    for (i = n - 1; i >= 0; i--) {
        if (!(lo[i] == lo[i]) || !(hi[i] == hi[i])) continue;
        fprintf(c->f, " L%.1f %.1f", ch_x(c, x[i]), ch_y(c, lo[i]));
    }
    fprintf(c->f, "%s\"/>\n", first ? "" : " Z");
}

/* Legend entries laid out in rows from (x, y) within width w; returns the
 * y below the last row. */
static double legend(FILE *f, double x, double y, double w, char labels[][160], int n, int markers) {
    double cx = x;
    int i;
    for (i = 0; i < n; i++) {
        double iw = 30 + text_w(labels[i], 12) + 18;
        if (cx > x && cx + iw > x + w) {
            cx = x;
            y += 20;
        }
        if (markers) fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", cx + 12, y - 4, plot_colour(i));
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2.5\"%s%s%s/>\n", cx,
                y - 4, cx + 24, y - 4, plot_colour(i), plot_dash(i) ? " stroke-dasharray=\"" : "",
                plot_dash(i) ? plot_dash(i) : "", plot_dash(i) ? "\"" : "");
        svg_text(f, cx + 30, y, "start", 12, NULL, labels[i]);
        cx += iw;
    }
    return y + 20;
}

/* Per-round mean, lowest and highest over the seeds of v (seeds x R). */
static void over_seeds(const double *v, int n, int R, double *mean, double *lo, double *hi) {
    int r, s;
    for (r = 0; r < R; r++) {
        double sum = 0;
        int k = 0;
        lo[r] = hi[r] = NAN;
        for (s = 0; s < n; s++) {
            double x = v[(size_t)s * R + r];
            if (!(x == x)) continue;
            sum += x;
            if (!k || x < lo[r]) lo[r] = x;
            if (!k || x > hi[r]) hi[r] = x;
            k++;
        }
        mean[r] = k ? sum / k : NAN;
    }
}

/* The title, and the subtitle on one line or, if it is too wide for W, two. */
static void plot_header(FILE *f, int W, const char *title, const char *sub) {
    char line[600];
    size_t n = strlen(sub), cut = n;
    svg_text(f, 16, 24, "start", 16, "font-weight=\"bold\"", title);
    while (cut > 0 && 16 + text_w(sub, 12) * cut / n > W - 16) { /* the last space that fits */
        do cut--;
        while (cut > 0 && sub[cut] != ' ');
    }
    if (cut == 0 || cut >= n) {
        svg_text(f, 16, 44, "start", 12, "fill=\"#555\"", sub);
        return;
    }
    snprintf(line, sizeof line, "%.*s", (int)cut, sub);
    svg_text(f, 16, 44, "start", 12, "fill=\"#555\"", line);
    svg_text(f, 16, 60, "start", 12, "fill=\"#555\"", sub + cut + 1);
}

static void plot_curves(const options *o, const progress *pg, const char *what) {
    int A = pg->n_algos, R = pg->rounds, a, r, p, nl = 0, seeds = 1, gaps = o->eval_every > 1;
    double *x = (double *)malloc(sizeof(double) * R), *m = (double *)malloc(sizeof(double) * R),
           *lo = (double *)malloc(sizeof(double) * R), *hi = (double *)malloc(sizeof(double) * R);
    double ymin = 100, ymax = 0;
    char labels[MAX_ITEMS][160], sub[600];
    int W = 1000, H = 470;
    FILE *f;
    chart c[2];
    if (!x || !m || !lo || !hi) goto done;
    for (r = 0; r < R; r++) x[r] = r + 1;
    for (a = 0; a < A; a++) { /* a common accuracy range for both panels */
        const curves *cv = &pg->cv[a];
        if (!cv->n) continue;
        if (cv->n > seeds) seeds = cv->n;
        for (p = 0; p < 2; p++) {
            over_seeds(p ? cv->test : cv->val, cv->n, R, m, lo, hi);
            for (r = 0; r < R; r++) {
                if (lo[r] == lo[r] && 100 * lo[r] < ymin) ymin = 100 * lo[r];
                if (hi[r] == hi[r] && 100 * hi[r] > ymax) ymax = 100 * hi[r];
            }
        }
    }
    if (ymax < ymin) ymin = 0, ymax = 100;
    {
        double s = nice_step(ymax - ymin > 1 ? ymax - ymin : 1, 5);
        ymin = floor(ymin / s) * s;
        ymax = ceil(ymax / s) * s;
        if (ymax <= ymin) ymax = ymin + s;
        if (ymin < 0) ymin = 0;
        if (ymax > 100) ymax = 100;
    }
    if (!(f = svg_open(o->out_dir, "curves.svg", W, H))) goto done;
    snprintf(sub, sizeof sub, "%s. Mean client accuracy each round; line: mean over %d %s%s%s%s", what, seeds,
             o->folds ? "run" : "seed", seeds > 1 ? "s" : "", seeds > 1 ? ", band: lowest to highest " : "",
             seeds > 1 ? (o->folds ? "run" : "seed") : "");
    plot_header(f, W, "Learning curves", sub);
    for (p = 0; p < 2; p++) {
        c[p].f = f;
        c[p].px = 80 + p * 470;
        c[p].py = 88;
        c[p].pw = 400;
        c[p].ph = 280;
        c[p].x0 = 1;
        c[p].x1 = R > 1 ? R : 2;
        c[p].y0 = ymin - 0.03 * (ymax - ymin); /* a margin: lines at the extremes stay off the frame */
        c[p].y1 = ymax + 0.03 * (ymax - ymin);
        c[p].ylog = 0;
        ch_axes(&c[p], "round", p ? "test accuracy (%)" : "validation accuracy (%)",
                p ? "Test accuracy" : "Validation accuracy", 1);
        if (!p && o->folds) /* cross-validation keeps no validation set */
            svg_text(f, c[p].px + c[p].pw / 2, c[p].py + c[p].ph / 2, "middle", 12, "fill=\"#555\"",
                     "no validation set (--folds: cross-validation)");
        for (a = 0; a < A; a++) {
            const curves *cv = &pg->cv[a];
            if (!cv->n) continue;
            over_seeds(p ? cv->test : cv->val, cv->n, R, m, lo, hi);
            for (r = 0; r < R; r++) m[r] *= 100, lo[r] *= 100, hi[r] *= 100;
            if (cv->n > 1) ch_band(&c[p], x, lo, hi, R, plot_colour(a));
            ch_line(&c[p], x, m, R, plot_colour(a), 2, plot_dash(a));
            if (gaps)
                for (r = 0; r < R; r++)
                    if (m[r] == m[r])
                        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n", ch_x(&c[p], x[r]),
                                ch_y(&c[p], m[r]), plot_colour(a));
        }
    }
    for (a = 0; a < A; a++) {
        double bm, bs;
        mean_std(o->folds ? pg->res[a].last : pg->res[a].best, pg->res[a].n, &bm, &bs); /* folds: no validation set */
        snprintf(labels[nl++], sizeof labels[0], "%s: test %.2f%% (%s)", o->algos[a], 100 * bm,
                 o->folds ? "at the last round" : "at the best-validation round");
    }
    legend(f, 80, 420, W - 100, labels, nl, 0);
    fprintf(f, "</svg>\n");
    fclose(f);
done:
    free(x);
    free(m);
    free(lo);
    free(hi);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void plot_clients(const options *o, const progress *pg, const char *what) {
    int A = pg->n_algos, K = pg->K, a, i, s, nl = 0, seeds = 1, dots = K <= 40;
    double *mean = (double *)calloc((size_t)A * K, sizeof(double)), *lo = (double *)calloc((size_t)A * K, sizeof(double)),
           *hi = (double *)calloc((size_t)A * K, sizeof(double)), *xs = (double *)calloc((size_t)K, sizeof(double)),
           *ys = (double *)calloc((size_t)K, sizeof(double));
    double ymin = 100, ymax = 0, step;
    char labels[MAX_ITEMS][160], sub[600], buf[32];
    int W = 1000, H = 480;
    FILE *f;
    chart c[2];
    if (!mean || !lo || !hi || !xs || !ys) goto done;
    for (a = 0; a < A; a++) {
        const curves *cv = &pg->cv[a];
        if (cv->n > seeds) seeds = cv->n;
        for (i = 0; i < K; i++) {
            double sum = 0;
            int k = 0;
            lo[a * K + i] = hi[a * K + i] = mean[a * K + i] = NAN;
            for (s = 0; s < cv->n && cv->K == K; s++) {
                double v = 100 * cv->client[(size_t)s * K + i];
                if (!(v == v)) continue;
                sum += v;
                if (!k || v < lo[a * K + i]) lo[a * K + i] = v;
                if (!k || v > hi[a * K + i]) hi[a * K + i] = v;
                k++;
            }
            if (k) mean[a * K + i] = sum / k;
            if (k && lo[a * K + i] < ymin) ymin = lo[a * K + i];
            if (k && hi[a * K + i] > ymax) ymax = hi[a * K + i];
        }
    }
    if (ymax < ymin) ymin = 0, ymax = 100;
    step = nice_step(ymax - ymin > 1 ? ymax - ymin : 1, 5);
    ymin = floor(ymin / step) * step;
    ymax = ceil(ymax / step) * step;
    if (ymax <= ymin) ymax = ymin + step;
    if (ymin < 0) ymin = 0;
    if (ymax > 100) ymax = 100;
    if (!(f = svg_open(o->out_dir, "clients.svg", W, H))) goto done;
    snprintf(sub, sizeof sub, "%s. Test accuracy of each client at the last round; mean over %d %s%s%s%s", what, seeds,
             o->folds ? "run" : "seed", seeds > 1 ? "s" : "", seeds > 1 ? ", whisker: lowest to highest " : "",
             seeds > 1 ? (o->folds ? "run" : "seed") : "");
    plot_header(f, W, "Per-client accuracy (fairness)", sub);
    for (i = 0; i < 2; i++) {
        c[i].f = f;
        c[i].px = 80 + i * 470;
        c[i].py = 88;
        c[i].pw = 400;
        c[i].ph = 280;
        c[i].y0 = ymin - 0.03 * (ymax - ymin);
        c[i].y1 = ymax + 0.03 * (ymax - ymin);
        c[i].ylog = 0;
    }
    /* left: by client */
    c[0].x0 = -0.5;
    c[0].x1 = K - 0.5;
    if (dots) {
        double slot = c[0].pw / K, off;
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fbfbfb\" stroke=\"#bbb\"/>\n", c[0].px,
                c[0].py, c[0].pw, c[0].ph);
        step = nice_step(ymax - ymin, 5);
        {
            double v;
            for (v = ceil(ymin / step - 1e-9) * step; v <= ymax + step * 1e-9; v += step) {
                double y = ch_y(&c[0], v);
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", c[0].px, y,
                        c[0].px + c[0].pw, y);
                fmt_tick(buf, sizeof buf, v, step);
                svg_text(f, c[0].px - 6, y + 4, "end", 11, NULL, buf);
            }
        }
        for (i = 0; i < K; i++) {
            int every = slot >= 16 ? 1 : slot >= 8 ? 2 : 5;
            if (i % 2) fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f0f0f0\"/>\n",
                               ch_x(&c[0], i - 0.5), c[0].py, slot, c[0].ph);
            if (i % every == 0) {
                snprintf(buf, sizeof buf, "%d", i);
                svg_text(f, ch_x(&c[0], i), c[0].py + c[0].ph + 15, "middle", 11, NULL, buf);
            }
        }
        for (a = 0; a < A; a++)
            for (i = 0; i < K; i++) {
                double x;
                if (!(mean[a * K + i] == mean[a * K + i])) continue;
                off = A > 1 ? (a - (A - 1) / 2.0) * (0.7 / A) : 0;
                x = ch_x(&c[0], i + off);
                if (hi[a * K + i] > lo[a * K + i])
                    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\"/>\n", x,
                            ch_y(&c[0], lo[a * K + i]), x, ch_y(&c[0], hi[a * K + i]), plot_colour(a));
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"><title>%s, client %d: %.2f%%</title></circle>\n",
                        x, ch_y(&c[0], mean[a * K + i]), slot / A >= 7 ? 3.5 : 2.5, plot_colour(a), o->algos[a], i,
                        mean[a * K + i]);
            }
        svg_text(f, c[0].px + c[0].pw / 2, c[0].py + c[0].ph + 34, "middle", 12, NULL, "client");
        fprintf(f, "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">test accuracy "
                   "(%%)</text>\n", c[0].px - 44, c[0].py + c[0].ph / 2);
        svg_text(f, c[0].px, c[0].py - 8, "start", 13, "font-weight=\"bold\"", "By client");
    } else { /* too many clients to tell apart: the sorted view takes the whole width */
        c[1].px = 80;
        c[1].pw = 870;
    }
    /* right: sorted, worst first */
    c[1].x0 = 1;
    c[1].x1 = K > 1 ? K : 2;
    ch_axes(&c[1], "client rank (worst first)", "test accuracy (%)", "Sorted, worst client first", 1);
    for (i = 0; i < K; i++) xs[i] = i + 1;
    for (a = 0; a < A; a++) {
        double sum = 0, sq = 0;
        int k = 0;
        for (i = 0; i < K; i++)
            if (mean[a * K + i] == mean[a * K + i]) ys[k++] = mean[a * K + i];
        if (!k) continue;
        qsort(ys, (size_t)k, sizeof(double), cmp_double);
        ch_line(&c[1], xs, ys, k, plot_colour(a), 2, plot_dash(a));
        if (k <= 40)
            for (i = 0; i < k; i++)
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n", ch_x(&c[1], xs[i]), ch_y(&c[1], ys[i]),
                        plot_colour(a));
        for (i = 0; i < k; i++) sum += ys[i];
        for (i = 0; i < k; i++) sq += (ys[i] - sum / k) * (ys[i] - sum / k);
        snprintf(labels[nl++], sizeof labels[0], "%s: mean %.1f%%, worst %.1f%%, std %.1f", o->algos[a], sum / k, ys[0],
                 k > 1 ? sqrt(sq / (k - 1)) : 0.0);
    }
    legend(f, 80, 430, W - 100, labels, nl, 1);
    fprintf(f, "</svg>\n");
    fclose(f);
done:
    free(mean);
    free(lo);
    free(hi);
    free(xs);
    free(ys);
}

static void plot_bytes(const options *o, const progress *pg, const char *what) {
    int A = pg->n_algos, R = pg->rounds, a, r, nl = 0, ylog;
    double *x = (double *)malloc(sizeof(double) * R), *m = (double *)malloc(sizeof(double) * R),
           *lo = (double *)malloc(sizeof(double) * R), *hi = (double *)malloc(sizeof(double) * R);
    double top = 0, small = 1e300;
    char labels[MAX_ITEMS][160], sub[600];
    int W = 760, H = 470;
    FILE *f;
    chart c;
    if (!x || !m || !lo || !hi) goto done;
    for (r = 0; r < R; r++) x[r] = r + 1;
    for (a = 0; a < A; a++) {
        const curves *cv = &pg->cv[a];
        if (!cv->n) continue;
        over_seeds(cv->mb, cv->n, R, m, lo, hi);
        for (r = 0; r < R; r++) {
            if (hi[r] > top) top = hi[r];
            if (m[r] > 0 && m[r] < small) small = m[r];
        }
    }
    ylog = top > 0 && small < 1e300 && top / small > 100; /* totals far apart: decades */
    if (!(f = svg_open(o->out_dir, "bytes.svg", W, H))) goto done;
    snprintf(sub, sizeof sub, "%s. Megabytes sent so far (uploads + downloads, round 1 with the initial model)%s", what,
             ylog ? "; log scale" : "");
    plot_header(f, W, "Communication", sub);
    c.f = f;
    c.px = 90;
    c.py = 88;
    c.pw = 620;
    c.ph = 280;
    c.x0 = 1;
    c.x1 = R > 1 ? R : 2;
    c.ylog = ylog;
    if (ylog) {
        c.y0 = pow(10, floor(log10(small)));
        c.y1 = pow(10, ceil(log10(top)));
    } else {
        double s = nice_step(top > 0 ? top : 1, 5);
        c.y0 = 0;
        c.y1 = ceil((top > 0 ? top : 1) / s) * s;
    }
    ch_axes(&c, "round", "MB sent (cumulative)", NULL, 1);
    for (a = 0; a < A; a++) {
        const curves *cv = &pg->cv[a];
        double last = 0;
        if (!cv->n) continue;
        over_seeds(cv->mb, cv->n, R, m, lo, hi);
        last = m[R - 1];
        if (last > 0) ch_line(&c, x, m, R, plot_colour(a), 2, plot_dash(a));
        snprintf(labels[nl++], sizeof labels[0], last > 0 ? "%s: %.1f MB" : "%s: nothing sent", o->algos[a], last);
    }
    legend(f, 90, 420, W - 110, labels, nl, 0);
    fprintf(f, "</svg>\n");
    fclose(f);
done:
    free(x);
    free(m);
    free(lo);
    free(hi);
}

static void write_plots(const options *o, const progress *pg) {
    char what[400];
    if (!o->out_dir || !pg || !pg->cv) return;
    snprintf(what, sizeof what, "%s, %s split, %d clients, %d rounds", pg->ds->label,
             o->public_split ? "public" : fgl_part_name(pg->split), pg->K, pg->rounds);
    plot_curves(o, pg, what);
    plot_clients(o, pg, what);
    plot_bytes(o, pg, what);
}

/* The colour of t in [0, 1]: light (low) to dark (high), through three
 * anchors, readable in grey too. */
static void heat_colour(double t, int *r, int *g, int *b) {
    static const double a[3][3] = {{250, 247, 232}, {94, 170, 190}, {22, 42, 110}};
    int k = t < 0.5 ? 0 : 1;
    double u = t < 0.5 ? t / 0.5 : (t - 0.5) / 0.5;
    if (!(t >= 0)) t = 0, k = 0, u = 0;
    if (t > 1) k = 1, u = 1;
    *r = (int)(a[k][0] + (a[k + 1][0] - a[k][0]) * u + 0.5);
    *g = (int)(a[k][1] + (a[k + 1][1] - a[k][1]) * u + 0.5);
    *b = (int)(a[k][2] + (a[k + 1][2] - a[k][2]) * u + 0.5);
}

/* A K x K matrix m (row-major) as a heatmap: row i, column j at display
 * position i, j of order (a permutation of the clients; NULL: 0..K-1), axis
 * labels (rows "id:label" when dom gives each client's dominant label), a
 * colour bar, and a constant matrix drawn in the middle colour. */
static void svg_heatmap(const char *path, const char *algo, int round, const float *m, int K, const int *order,
                        const int *dom) {
    int cell = K <= 12 ? 32 : K <= 20 ? 24 : K <= 50 ? 12 : 6, i, j, r, g, b, every = cell >= 12 ? 1 : cell >= 6 ? 5 : 10;
    int left = 74, top = 74, bar = 16, side = K * cell, W, H, pad = 0;
    float lo = 1e30f, hi = -1e30f;
    char title[256], sub[256], buf[64];
    double lw = 0;
    FILE *f;
    for (i = 0; i < K * K; i++) {
        lo = m[i] < lo ? m[i] : lo;
        hi = m[i] > hi ? m[i] : hi;
    }
    for (i = 0; dom && i < K; i++) { /* the widest row label: room between it and the axis label */
        snprintf(buf, sizeof buf, "%d:%d", i, dom[i]);
        if (text_w(buf, 10) > lw) lw = text_w(buf, 10);
    }
    if (lw > 24) pad = (int)(lw - 24) + 1;
    left += pad;
    snprintf(title, sizeof title, "%s: client-to-client matrix after round %d", algo, round);
    snprintf(sub, sizeof sub, "row i: client i's aggregation; column j: the weight it gives client j%s",
             dom ? "; clients ordered by dominant label, rows shown as id:label" : "");
    W = left + side + 30 + bar + 70;
    if (W < 40 + 1.1 * text_w(title, 16)) W = (int)(40 + 1.1 * text_w(title, 16)); /* the title is bold */
    if (W < 40 + text_w(sub, 12)) W = (int)(40 + text_w(sub, 12));
    H = top + side + 56;
    if (H < top + 160) H = top + 160;
    if (!(f = fopen(path, "w"))) return;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" fill=\"#222\">\n"
               "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H, W, H, W, H);
    plot_header(f, W, title, sub);
    for (i = 0; i < K; i++) {
        int ci = order ? order[i] : i;
        if (i % every == 0) {
            if (dom) snprintf(buf, sizeof buf, "%d:%d", ci, dom[ci]);
            else snprintf(buf, sizeof buf, "%d", ci);
            svg_text(f, left - 5, top + i * cell + cell / 2.0 + 4, "end", 10, NULL, buf);
            snprintf(buf, sizeof buf, "%d", ci);
            svg_text(f, left + i * cell + cell / 2.0, top + side + 14, "middle", 10, NULL, buf);
        }
        for (j = 0; j < K; j++) {
            int cj = order ? order[j] : j;
            double v = m[ci * K + cj], t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
            heat_colour(t, &r, &g, &b);
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgb(%d,%d,%d)\"><title>%d-%d: %.4g</title></rect>\n",
                    left + j * cell, top + i * cell, cell, cell, r, g, b, ci, cj, v);
        }
    }
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n", left, top, side, side);
    svg_text(f, left + side / 2.0, top + side + 34, "middle", 12, NULL, "client j");
    fprintf(f, "<text transform=\"translate(%d %.1f) rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">client i</text>\n",
            left - 36 - pad, top + side / 2.0);
    { /* the colour bar */
        int bx = left + side + 30, bh = side > 120 ? side : 120, steps = 50;
        for (i = 0; i < steps; i++) {
            heat_colour(hi > lo ? 1 - (i + 0.5) / steps : 0.5, &r, &g, &b);
            fprintf(f, "<rect x=\"%d\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" fill=\"rgb(%d,%d,%d)\"/>\n", bx,
                    top + i * (double)bh / steps, bar, (double)bh / steps + 0.5, r, g, b);
        }
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n", bx, top, bar, bh);
        if (hi > lo) {
            snprintf(buf, sizeof buf, "%.3g", hi);
            svg_text(f, bx + bar + 4, top + 10, "start", 10, NULL, buf);
            snprintf(buf, sizeof buf, "%.3g", (lo + hi) / 2);
            svg_text(f, bx + bar + 4, top + bh / 2.0 + 4, "start", 10, NULL, buf);
            snprintf(buf, sizeof buf, "%.3g", lo);
            svg_text(f, bx + bar + 4, top + bh - 2, "start", 10, NULL, buf);
        } else {
            snprintf(buf, sizeof buf, "all %.3g", hi);
            svg_text(f, bx + bar + 4, top + bh / 2.0 + 4, "start", 10, NULL, buf);
            svg_text(f, bx + bar + 4, top + bh / 2.0 + 18, "start", 10, NULL, "(constant)");
        }
    }
    fprintf(f, "</svg>\n");
    fclose(f);
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
    int rc, a, s, split, rounds, stopped = 0, f, n_folds;
    static const char *default_algos[] = {"local", "fedavg", "fedper", "fedpub"};
    setvbuf(stdout, NULL, _IOLBF, BUFSIZ); /* lines appear as they are printed, even in a pipe or a file */
    rc = parse_args(argc, argv, &o);
    if (!rc && o.config) rc = config_reparse(argc, argv, &o); /* --config FILE: its flags, then the command line's */
    if (rc) return rc == 1 ? 0 : rc;
    o.embedded = o.n_algos == 0 && !o.data[0] && o.task != FGL_TASK_GRAPH;
    if (o.n_algos == 0) { /* the embedded default: several algorithms side by side */
        int n = (int)(sizeof default_algos / sizeof default_algos[0]);
        if (o.data[0] || o.task == FGL_TASK_GRAPH) n = 3; /* named or graph data: local, fedavg, fedper */
        for (a = 0; a < n; a++) strcpy(o.algos[a], default_algos[a]);
        o.n_algos = n;
        if (!o.data[0] && o.task != FGL_TASK_GRAPH) { /* few labels per client: collaboration can help */
            if (o.rounds < 0) o.rounds = 50;
            if (o.clients <= 0) o.clients = 10;
            if (o.train_frac < 0) o.train_frac = 0.05;
            if (o.val_frac < 0) o.val_frac = 0.2;
            if (o.seeds == 1) o.seeds = 3;
        }
    }
    if ((rc = check_sets(&o)) || (rc = check_models(&o))) return rc;
    if (!o.split_seed_set) o.split_seed = 1234;
#ifdef _OPENMP
    if (o.threads > 0) omp_set_num_threads(o.threads);
#endif
    if (load_data(&o, &ds, &err)) {
        fprintf(stderr, "fglrun: %s\n", err.msg);
        replay_free(o.rp);
        return 1;
    }
    replay_check_files(&o);
    if (ds.n_sets > 1 && !o.split_seed_set) o.split_seed = 123; /* FedStar's fixed split seed */
    n_folds = o.folds ? (o.fold >= 0 ? 1 : o.folds) : 1;
    if (make_scenario(&o, o.fold > 0 ? o.fold : 0, &ds, &sc, &err)) {
        fprintf(stderr, "fglrun: %s\n", err.msg);
        fgl_dataset_free(&ds);
        replay_free(o.rp);
        return 1;
    }
    split = sc.how;
    { /* the data's share of the peak: the dataset and the clients' copies of it, before any run */
        struct rusage ru;
        if (getrusage(RUSAGE_SELF, &ru) == 0) data_rss_mb = (double)ru.ru_maxrss / 1024.0;
    }
    if (o.info || (o.out_dir && mkdir(o.out_dir, 0777) != 0 && errno != EEXIST)) {
        if (o.info) print_info(&ds, &sc, split);
        else fprintf(stderr, "fglrun: cannot create %s\n", o.out_dir);
        fgl_scenario_free(&sc);
        fgl_dataset_free(&ds);
        replay_free(o.rp);
        return o.info ? 0 : 1;
    }
    tmpl = model_spec(&o, o.arch >= 0 ? o.arch : ds.task == FGL_TASK_NODE ? FGL_ARCH_GCN : FGL_ARCH_GIN, ds.task);
    cd = (fgl_client_data *)malloc(sizeof(fgl_client_data) * (size_t)sc.n_clients);
    res = (result *)calloc((size_t)o.n_algos, sizeof(result));
    client_specs(&o, &sc, &tmpl, ds.task, cd);
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
    rounds = o.rounds > 0 ? o.rounds : fgl_fed_config_default(ds.task).rounds;
    if ((rec = (run_record *)calloc(1, sizeof *rec))) { /* the effective configuration, recorded with the results */
        record_build(rec, &o, &ds, &sc, rounds, o.embedded);
        o.config_json = record_json(rec, &o, argc, argv, 0);
        o.config_pretty = record_json(rec, &o, argc, argv, 1);
        free(rec->files.s);
        free(rec);
    }
    progress_init(&pg, &o, res, &ds, split, sc.n_clients, rounds, n_folds * o.seeds);
    if (!o.quiet && !o.json) {
        double tr = o.train_frac >= 0 ? o.train_frac : ds.task == FGL_TASK_NODE ? 0.2 : 0.8;
        printf("%s: %s, %s split over %d clients, %d rounds, %d seed%s", ds.label,
               ds.task == FGL_TASK_NODE ? "node classification" : "graph classification",
               o.public_split ? "public" : fgl_part_name(split), sc.n_clients, rounds, o.seeds, o.seeds > 1 ? "s" : "");
        if (!o.public_split) printf(", %g%% of each client's %s for training", 100 * tr, ds.task == FGL_TASK_NODE ? "nodes" : "graphs");
        printf("\n");
    }
    for (f = 0; f < n_folds && (!rc || rc == 3); f++) { /* one fold's clients at a time */
        int fold = o.folds ? (o.fold >= 0 ? o.fold : f) : 0;
        if (f > 0) {
            fgl_scenario_free(&sc);
            if (make_scenario(&o, fold, &ds, &sc, &err)) {
                fprintf(stderr, "fglrun: %s\n", err.msg);
                rc = 1;
                break;
            }
            client_specs(&o, &sc, &tmpl, ds.task, cd);
        }
        for (a = 0; a < o.n_algos && (!rc || rc == 3); a++)
            for (s = 0; s < o.seeds && (!rc || rc == 3); s++) {
                rc = run_one(&o, o.algos[a], o.seed + (uint64_t)s, fold, cd, sc.n_clients, ds.task, &sc.pub, labsim, &res[a],
                            f * o.seeds + s);
                stopped |= rc == 3;
            }
    }
    if (rc == 3) rc = 0;
    progress_finish(&pg, &o, stopped ? "stopped" : rc ? "failed" : "complete");
    if (stopped) { /* partial runs: nothing to report until they are resumed */
        free(o.config_json);
        free(o.config_pretty);
        replay_free(o.rp);
        progress_free(&pg);
        free(res);
        free(labsim);
        free(cd);
        fgl_scenario_free(&sc);
        fgl_dataset_free(&ds);
        return 0;
    }
    if (!rc && !o.quiet) {
        printf("\n%-10s %18s %18s %12s %12s %9s\n", "algorithm", "test (best val)", "test (last)", "MB up", "MB down", "seconds");
        for (a = 0; a < o.n_algos; a++) {
            double bm, bs, lm, ls, sm, ss;
            mean_std(o.folds ? res[a].last : res[a].best, res[a].n, &bm, &bs);
            mean_std(res[a].last, res[a].n, &lm, &ls);
            mean_std(res[a].secs, res[a].n, &sm, &ss);
            printf("%-10s %10.2f +- %5.2f %10.2f +- %5.2f %12.2f %12.2f %9.2f\n", o.algos[a], 100 * bm, 100 * bs,
                   100 * lm, 100 * ls, res[a].up / 1e6 / res[a].n, res[a].down / 1e6 / res[a].n, sm);
        }
        if (o.folds)
            printf("(mean +- std over %d fold%s x %d seed%s of the mean client test accuracy at the last round: no "
                   "validation set, so both columns are the last round)\n", n_folds, n_folds > 1 ? "s" : "", o.seeds,
                   o.seeds > 1 ? "s" : "");
        else
            printf("(mean +- std over %d seed%s of the mean client test accuracy, at the round of best mean validation "
                   "accuracy and at the last round)\n", o.seeds, o.seeds > 1 ? "s" : "");
    }
    pg.final = 1; /* the results below carry the record */
    if (!rc && (o.json || o.out_dir)) {
        FILE *jf = NULL;
        char path[1024];
        if (o.out_dir) {
            snprintf(path, sizeof path, "%s/result.json", o.out_dir);
            jf = fopen(path, "w");
        }
        for (a = 0; a < o.n_algos; a++) {
            if (o.json && o.n_algos == 1) json_result(stdout, &o, o.algos[a], &ds, split, sc.n_clients, rounds, &res[a]);
            if (jf) {
                fprintf(jf, a == 0 ? (o.n_algos > 1 ? "{\"runs\": [" : "") : ", ");
                json_result(jf, &o, o.algos[a], &ds, split, sc.n_clients, rounds, &res[a]);
            }
        }
        if (o.json && o.n_algos > 1) {
            printf("{\"runs\": [");
            for (a = 0; a < o.n_algos; a++) {
                if (a) printf(", ");
                json_result(stdout, &o, o.algos[a], &ds, split, sc.n_clients, rounds, &res[a]);
            }
            printf("]");
            config_member(stdout, &o);
            printf("}");
        }
        if (o.json) printf("\n");
        if (jf) {
            if (o.n_algos > 1) {
                fprintf(jf, "]");
                config_member(jf, &o);
                fprintf(jf, "}");
            }
            fprintf(jf, "\n");
            fclose(jf);
        }
    }
    if (!rc && o.out_dir) write_plots(&o, &pg);
    if (!rc) rc = replay_check(&o, res);
    progress_free(&pg);
    free(o.config_json);
    free(o.config_pretty);
    replay_free(o.rp);
    for (a = 0; a < o.n_algos; a++) {
        free(res[a].rejected_round);
        free(res[a].clipped_round);
    }
    free(res);
    free(labsim);
    free(cd);
    fgl_scenario_free(&sc);
    fgl_dataset_free(&ds);
    return rc;
}

#ifndef FGLRUN_NO_MAIN
#ifdef FGL_MPI
/* Rank 0 runs fglrun as the server; the other ranks host clients until it is done. */
int main(int argc, char **argv) {
    int rank = 0, rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        rc = fglrun_main(argc, argv);
        fgl_mpi_finish(MPI_COMM_WORLD);
    } else {
        fgl_error err;
        rc = fgl_mpi_serve(MPI_COMM_WORLD, &err) ? (fprintf(stderr, "fglrun (rank %d): %s\n", rank, err.msg), 1) : 0;
    }
    MPI_Finalize();
    return rc;
}
#else
int main(int argc, char **argv) { return fglrun_main(argc, argv); }
#endif
#endif
