/* fglrun/fglrun.h - what fglrun's parts share: fglrun's own types and
 * constants, and the prototypes of what one part (or examples/fglrun.c)
 * defines and another uses. Every part of examples/fglrun/ begins by
 * including it, so that each part reads, and compiles, on its own.
 *
 * fglrun is still built as ONE translation unit: examples/fglrun.c defines
 * FGLRUN_UNITY, includes fgl_fed.h (with the implementation), this header
 * and then every part (`cc ... examples/fglrun.c -o fglrun -lm`; a program
 * of your own includes examples/fglrun.c to add algorithms). There
 * FGLRUN_SHARED, the storage class of what the parts share, is `static`:
 * the program is the code it was when it was one file, and a program that
 * includes it gets no external names but fglrun_main (fglrun_mpi_main).
 *
 * A part compiled alone (`cc -std=c99 -fsyntax-only -Wall -Wextra -Wpedantic
 * -Werror -I. examples/fglrun/X.c`, which tests/house_check.sh runs on every
 * part; an editor's or clangd's view of it) has no FGLRUN_UNITY. There
 * FGLRUN_SHARED is empty: what the part uses from the others is declared
 * extern, and what it defines for them is external, so the compiler says
 * neither "used but never defined" nor "declared static but never defined"
 * (which a static prototype of another part's function gives), nor "defined
 * but not used". The shared variables are declared (extern) only then: in
 * the one translation unit the part that defines them comes first, as C++
 * has no declaration of a static variable that is not its definition.
 */
#ifndef FGLRUN_H
#define FGLRUN_H

#ifndef FGLRUN_UNITY /* a part compiled alone: the library's declarations only */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "../../fgl_fed.h"
#endif

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#ifdef FGLRUN_UNITY
#define FGLRUN_SHARED static
#else
#define FGLRUN_SHARED
#endif

#define MAX_ITEMS 32
#define MAX_SWEEP_KEYS 4   /* swept --set keys per algorithm */

#ifndef FGL_COMMIT
#define FGL_COMMIT "unknown" /* the build passes the commit: -DFGL_COMMIT='"<git rev-parse --short HEAD>"' */
#endif

/* FedStar's fixed split seed: the split seed with several graph datasets
 * and no --split-seed (the library's default otherwise, fgl_split_default). */
static const int fedstar_split_seed = 123;

/* --- types ------------------------------------------------------------------------------ */

/* A growable string. */
typedef struct sbuf {
    char *s;
    size_t len, cap;
    int oom;
} sbuf;

/* A JSON value read (fglrun/json.c's reader). */
typedef struct jv {
    char t;          /* 'o' object, 'a' array, 's' string, 'n' number, 'b' true/false, 'z' null */
    char *s;         /* a string's value, a number's text, "true" / "false" */
    int n;           /* members / elements */
    char **k;        /* member names */
    struct jv *v;    /* members / elements */
} jv;

/* A file written whole or not at all (fglrun/files.c). */
typedef struct outfile {
    FILE *f;
    char path[1300], tmp[1400];
} outfile;

/* The options (fglrun/options.c: the option table defines every flag). */
typedef struct options {
    char algos[MAX_ITEMS][32];
    int n_algos;
    char data[1024];     /* the --data value ("": the synthetic default) */
    int task;            /* -1: from the data; FGL_TASK_LINK: link prediction on the node data (fglrun/link.c) */
    double link_val, link_test;   /* --task link: each client's edges for validation and test */
    int decoder, hits_k, link_neg, link_dim;   /* --task link: 0 dot, 1 mlp; K of Hits@K; evaluation negatives;
                                                  the dot decoder's embedding width */
    int split;           /* -1: the protocol's default */
    int public_split;
    int clients;         /* 0: default */
    double alpha;
    double resolution;   /* --split louvain-plus: the Louvain resolution */
    int metis_parts;     /* --split metis-plus: the METIS parts grouped into clients */
    int arch;            /* -1: default */
    int archs[MAX_ITEMS], n_archs;   /* --model a,b,c: client i gets archs[n_archs i / K] */
    int heads, layers, head;         /* GAT heads, message-passing layers, classifier head; -1: the spec's default */
    int stratified;      /* node tasks: per-class stratified split */
    int rounds, local_epochs, batch, hidden, threads, seeds, min_per_client;
    double lr, wd, frac;
    uint64_t seed, split_seed;
    char sets[MAX_ITEMS][128];
    int n_sets;
    /* sweeps (--set key=a,b,c): after expand_sweeps, algos[] holds one slot per algorithm and combination of
       swept values; labels[] names each slot ("fedpub tau=3"; the algorithm alone when it is not swept), vset[]
       holds its values as "algo.key=value"; swept[k]: sets[k] is a list, applied through vset[] only */
    char labels[MAX_ITEMS][96];
    char vset[MAX_ITEMS][MAX_SWEEP_KEYS][128];
    int n_vset[MAX_ITEMS];
    unsigned char swept[MAX_ITEMS];
    int n_swept;
    char *slot_config[MAX_ITEMS];   /* with a sweep: each slot's own record (compact), so a row replays alone */
    const char *out_dir, *checkpoint;
    int info, json, quiet, lcc, eval_point, reset_optim;
    int bn;              /* --bn: GIN with batch norm inside each MLP */
    int residual, norm;  /* --residual, --norm none|layer|batch: spec.residual, spec.norm (node models) */
    int raw_features;    /* node tasks: 1 keeps the (binarised) features unnormalised */   /* eval_point: -1 protocol default, 0 download, 1 train */
    int k_dse, k_rwse;   /* graph tasks: structure-embedding widths (FedStar: 16 + 16) */
    double train_frac, val_frac;   /* per-client split; < 0: the protocol's (split_frac_default) */
    const char *data_dir;        /* --data-dir, else the data directory (fgl_data_dir), in data_dir_buf */
    char data_dir_buf[1024];
    int stop_after;      /* with --checkpoint: stop after this round (0: run to the end) */
    int eval_every;      /* evaluate every N rounds and at the last (0: every round) */
    fgl_robust_config robust;
    fgl_attack_config attack;
    fgl_dp_config dp;
    fgl_secagg_config secagg;
    fgl_plugin_config plugin;   /* --plugin NAME[:ARG]: a plug-in no other option turns on */
    uint64_t secret_seed;       /* --secret-seed S (never recorded) */
    int secret_seed_set;
    int per_client_records;     /* --per-client-records: per-client outputs under --dp too (they reveal who took part) */
#ifdef FGL_MPI
    fgl_mpi_config mpi;
#endif
    int folds, fold;     /* graph tasks: k-fold CV inside every client (0: none); fold -1: all folds */
    int optim;           /* -1: the protocol's (Adam); FGL_SGD, FGL_ADAM */
    int wait;            /* OpenMP's wait policy: 0 auto, 1 spin, 2 passive (fgl_wait_choose, fgl.h) */
    double momentum;     /* SGD momentum (< 0: 0) */
    int public_nodes;    /* node tasks: nodes withheld from every client, held by the server */
    int test_first;      /* node tasks: each client's test set is the first nodes in stored order */
    int metric, select_pc, val_public;   /* fglrun/protocol.c: --metric, --select, --val */
    int score;           /* --score auto|acc|f1|auc: what selects the best-validation round (0 auto) */
    int score_metric;    /* the FGL_METRIC_* in use (--score, or auto's choice; set after loading) */
    int protocol;        /* --protocol: 0 none, 1 pfedgnn-authors (fglrun/protocol.c) */
    int split_global;    /* node tasks: the train/val/test split drawn on the whole graph before the partition */
    int split_index;     /* --split-index K: the dataset's fixed split K only; -1 (default): every fixed split */
    int n_fixed;         /* the dataset's fixed splits in use, one run each (0: drawn splits; set after loading) */
    int halo;            /* node tasks: each client keeps its halo of that many hops (FedGCN); 0: edges dropped */
    const char *partition_file; /* node tasks: the clients from a file of part ids (gpmetis's output) */
    const char *write_metis;    /* node tasks: write the graph in METIS's format to this file and stop */
    /* run records, progress, plots (the sections "run records", "progress" and "plots") */
    const char *config, *row;   /* --config FILE, --row LABEL */
    int config_run_control;     /* --config-run-control: obey run-control flags the file holds (default: ignored) */
    int allow_other_build;      /* --allow-other-build: resume a checkpoint another build wrote (recorded) */
    double mem_limit_gb;        /* --mem-limit GB: what a run's models may need (0: the machine's memory) */
    int checkpoint_every;       /* --checkpoint-every N (0: every round) */
    int log_every;              /* --log-every N: progress lines every N rounds, even on a terminal (0: auto) */
    int park_idle;              /* --park-idle 0|1|2: cfg.park_idle */
    int embedded;               /* the embedded default benchmark (no --algo, no data) */
    int failed;                 /* a run failed: the results are those of the runs that finished */
    char *config_json, *config_pretty;   /* the effective configuration (compact, indented) */
    struct replay *rp;          /* --config: the record replayed */
    struct progress *pg;        /* progress of the invocation */
    unsigned char given[96];    /* given[i]: flag i of the table was given (on the command line or by --config) */
} options;

/* --- the record's items (the record: fglrun/record.c) --- */

#define REC_MAX 96

typedef struct rec_item {
    char key[64];
    char val[1024], def[512];
    char vk, dk; /* 'n' number, 's' string, 'b' boolean ("true"/"false"), 'z' null */
} rec_item;

/* What a row's rec function records from: the options, the options as no
 * flag leaves them, the data and its split, the protocol's defaults for the
 * task. */
typedef struct rec_ctx {
    const options *o, *plain;
    const fgl_dataset *ds;
    const fgl_scenario *sc;
    fgl_fed_config d;
    int rounds, embedded, node, graph_sets, def_arch;
} rec_ctx;

/* --- the option table's rows --- */

enum { OPT_BOOL, OPT_INT, OPT_U64, OPT_DOUBLE, OPT_FLOAT, OPT_ENUM, OPT_STR, OPT_CUSTOM };
enum {
    OPT_NULL = 1,     /* recorded as null (and null by default) while at its initial value */
    OPT_LIB = 2,      /* its initial value is the library's (fgl_fed_default ...), not the row's init */
    OPT_INIT = 4      /* OPT_CUSTOM: starts as its dflt parsed, or without a dflt its int field as init */
};

typedef struct opt_def {
    const char *name;   /* the flag, without "--" */
    char kind;          /* 'e' experiment, 'r' run control, 's' --set, 'h' --help (see above) */
    char type;          /* OPT_BOOL (no value), OPT_INT ... OPT_CUSTOM */
    char fl;            /* OPT_NULL, OPT_LIB, OPT_INIT */
    size_t off;         /* its field in options (OPT_CUSTOM with OPT_INIT and init: an int field) */
    double lo, hi;      /* the range of a number */
    double init;        /* a number's or an enum's initial value (-1: unset, the protocol's or the data's) */
    const char *arg;    /* the value in the synopsis; OPT_ENUM: its choices, "a|b|c" */
    const char *what;   /* a valid number, for messages ("a positive integer"; NULL: "an integer in LO..HI") */
    const char *dflt;   /* OPT_STR, OPT_CUSTOM: the default, as a value of the flag */
    const char *emb;    /* its value in the embedded default benchmark (no --algo, no data) */
    const int *vals;    /* OPT_ENUM: the choices' values (NULL: 0, 1, ...) */
    int (*parse)(options *o, const char *v, char *msg, size_t cap);         /* OPT_CUSTOM: 0, or 1 and why not */
    void (*rec)(const struct opt_def *d, const rec_ctx *c, rec_item *it);   /* its value and default in the record
                                                                               (NULL: by type) */
    const char *help;   /* its paragraph of --help (NULL: the synopsis says it all) */
} opt_def;

/* A run's record: the effective configuration (fglrun/record.c). */
typedef struct run_record {
    rec_item flag[REC_MAX], run[REC_MAX], param[REC_MAX * 2];
    int n_flag, n_run, n_param;
    sbuf files;      /* JSON array of the data files read */
    char data_dir[1024];
    int n_clients;   /* as the split made them */
    const jv *replayed_files; /* --config: the recorded files, compared with these */
} run_record;

/* --config: the record replayed (fglrun/record.c). */
typedef struct replay {
    jv doc;             /* the record read */
    const jv *result;   /* the result recorded with it (NULL: none) */
    const jv *files;    /* the data files it read */
    const jv *row;      /* --row LABEL of a result with "runs": that run (its "label", else its "algo") */
    char **argv;        /* the record's flags, then the command line (options point into these) */
    int argc, n_sets;   /* --set arguments made from the record (they come first in options.sets) */
    int changed;        /* the command line changes the experiment (not only run control) */
    int data_differ;    /* data files the record read are missing here or differ (replay_check_files) */
    int secret_seed;    /* the record's run had --secret-seed (its value is in no record) */
    char what[1200];    /* "FILE" or "FILE, row LABEL", for messages */
    char notes[2048];   /* what reading the record had to say, said after fgl_wait_choose's exec (once) */
} replay;

/* One algorithm's (or sweep row's) figures over its runs: fglrun.c's run_one fills it. */
typedef struct result {
    double best[1000], last[1000], secs[1000], eps[1000], server[1000], train[1000], eval[1000];
    double hbest[1000], hlast[1000];   /* the honest clients' mean test accuracy (an attack on), per seed */
    double val[1000];    /* the selection set's mean accuracy at the selected round, per seed */
    double pers[1000], pers_last[1000], pc[1000], pc_pers[1000];   /* fglrun/protocol.c's measures, per seed */
    double hits[1000], hits_last[1000];   /* --task link: Hits@K at the selected round and the last, per seed */
    double f1[1000], f1_last[1000];       /* mean client macro-F1 at the selected round and the last, per seed */
    double auc[1000], auc_last[1000];     /* two classes: mean client ROC-AUC, the same (else NaN) */
    double vsel[1000];   /* the selection set's mean of the selecting metric at the selected round, per seed */
    int metric;          /* the FGL_METRIC_* that selected (a run's fgl_run_summary.metric) */
    double rho[1000];    /* Spearman of the client matrix with the clients' label similarity, per seed */
    int has_rho;
    size_t up, down;                      /* summed over the runs */
    double up_run[1000], down_run[1000];  /* each run's own bytes (exact in a double below 2^53) */
    int rejected, screened, clipped, dropped, fallback, n;
    int *rejected_round, *clipped_round, *fallback_round;   /* per round, summed over seeds */
    int *part_run;                        /* participants per round, per run: part_run[idx * rounds + r] */
    int part_runs, part_rounds;           /* runs part_run holds, rounds a run */
    int secagg_failed;                    /* rounds secure aggregation could not unmask, over seeds */
    int secagg_range;                     /* uploads withheld out of secure aggregation's ring range, over seeds */
    int defended;                         /* a defence, attack or privacy option is on */
    int lost;                             /* uploads lost with an MPI rank that stopped answering */
#ifdef FGL_MPI
    fgl_mpi_stats mpi;                    /* summed over seeds (ranks, note: the last run's) */
#endif
    char report[512];
    char leak[160];                       /* a reproduction option that trains on held-out labels ("": none) */
    char other_build[200];                /* a run resumed from another build's checkpoint: that build ("": none) */
} result;

/* Progress, partial results and plots (fglrun/progress.c, fglrun/plots.c). */
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
    FILE *csv;               /* the current run's per-round CSV (--out), a line a round */
    char csv_path[1300];
    int csv_failed;          /* a line of it could not be written: the run stops (fglrun/files.c) */
    int tty, every, bar;     /* progress bar on stderr; a line every N rounds; a bar is on screen */
    int final;               /* the final result is being written (it carries the record) */
    const char *algo;        /* the run under way */
    uint64_t seed;
    int fold;                /* its fold (--folds) */
    char label[64];          /* "ALGO" or "ALGO fold F", for progress lines */
    const fgl_run *run;
    const char *const *names; /* each client's dataset when each client is one (per-dataset split), or NULL */
} progress;

/* --- what each part defines for the others ---------------------------------------------- */

/* fglrun/json.c: a growable string, JSON out and in */
FGLRUN_SHARED void sb_putn(sbuf *b, const char *s, size_t n);
FGLRUN_SHARED void sb_puts(sbuf *b, const char *s);
FGLRUN_SHARED void sb_printf(sbuf *b, const char *fmt, ...) FGL__PRINTF(2, 3);
FGLRUN_SHARED void sb_json_str(sbuf *b, const char *s);
FGLRUN_SHARED int utf8_len(const unsigned char *p, const unsigned char *end);
FGLRUN_SHARED void json_str(FILE *f, const char *s);
FGLRUN_SHARED void json_num(FILE *f, const char *fmt, double x);
FGLRUN_SHARED void json_fix_nonfinite(const char *s, sbuf *out);
FGLRUN_SHARED void fmt_real(char *out, size_t cap, double x, int single);
FGLRUN_SHARED void jv_free(jv *v);
FGLRUN_SHARED const jv *jv_get(const jv *o, const char *key);
FGLRUN_SHARED int jv_parse(const char *text, size_t len, jv *out, char *err);

/* fglrun/files.c: the files fglrun writes, whole or not at all; locks; signals */
FGLRUN_SHARED void write_failed(const char *path, const char *why);
FGLRUN_SHARED void sync_dir_of(const char *path);
FGLRUN_SHARED FILE *out_open(outfile *w, const char *path);
FGLRUN_SHARED int flush_to_disk(FILE *f);
FGLRUN_SHARED int out_commit(outfile *w);
FGLRUN_SHARED int out_text(const char *path, const char *text);
FGLRUN_SHARED int take_lock(const char *path, const char *what);
#ifndef FGL_MPI
FGLRUN_SHARED void on_stop_signal(int sig);
#endif

/* fglrun/options.c: the options and their table */
FGLRUN_SHARED double split_frac_default(int task, int val);
FGLRUN_SHARED fgl_model_spec model_spec(const options *o, int arch, int task);
FGLRUN_SHARED int bad(const char *fmt, const char *a);
FGLRUN_SHARED void robust_format(const fgl_robust_config *r, char *out, size_t cap);
FGLRUN_SHARED int opt_lookup(const char *a);
FGLRUN_SHARED const opt_def *opt_row(const char *name);
FGLRUN_SHARED int opt_given(const options *o, const char *name);
FGLRUN_SHARED int opt_run_control(const char *a, int *takes_value);
FGLRUN_SHARED int opt_set(options *o, const opt_def *d, const char *v, char *msg, size_t cap);
FGLRUN_SHARED void opt_init(options *o);
FGLRUN_SHARED int parse_args(int argc, char **argv, options *o);
FGLRUN_SHARED void opt_defaults(options *o);
FGLRUN_SHARED int check_sets(const options *o);
FGLRUN_SHARED int expand_sweeps(options *o);
FGLRUN_SHARED void opt_record(const rec_ctx *c, rec_item *flag, int *n_flag, rec_item *run, int *n_run);

/* fglrun/homophily.c: the homophily of the data and of each client */
FGLRUN_SHARED int homophily_compute(const fgl_dataset *ds, const fgl_scenario *sc, fgl_homophily *g,
                                    fgl_homophily **cl);
FGLRUN_SHARED void homophily_members(sbuf *b, const fgl_homophily *h);
FGLRUN_SHARED void homophily_json(sbuf *b, const fgl_homophily *g, const fgl_homophily *cl, int K, int lists);
FGLRUN_SHARED char *homophily_record(const fgl_dataset *ds, const fgl_scenario *sc, int lists);
FGLRUN_SHARED void print_node_label_counts(const fgl_node_data *d, int C);
FGLRUN_SHARED void print_graph_stat_ranges(const fgl_graph_set *g);

/* fglrun/record.c: run records and --config */
FGLRUN_SHARED void record_build(run_record *r, const options *o, const fgl_dataset *ds, const fgl_scenario *sc,
                                int rounds, int embedded);
FGLRUN_SHARED char *record_json(const run_record *r, const options *o, int argc, char **argv, int pretty);
FGLRUN_SHARED void record_slot(run_record *rec, options *o, int slot, const fgl_dataset *ds, const fgl_scenario *sc,
                               int rounds, int argc, char **argv);
FGLRUN_SHARED void replay_free(replay *rp);
FGLRUN_SHARED int config_reparse(int argc, char **argv, options *o);
FGLRUN_SHARED void replay_check_files(const options *o);

/* fglrun/protocol.c: other ways of measuring, and the named presets */
FGLRUN_SHARED int protocol_apply(options *o);
FGLRUN_SHARED int proto_check(const options *o, const fgl_scenario *sc);
FGLRUN_SHARED int proto_on(const options *o);
FGLRUN_SHARED int proto_begin(const options *o, const fgl_algo *algo, fgl_algo *wrapped, const fgl_client_data *cd,
                              int K, const fgl_node_data *pub, int rounds);
FGLRUN_SHARED void proto_watch_run(const fgl_run *run);
FGLRUN_SHARED void proto_finish(const options *o, const fgl_run *run, result *res, int idx);
FGLRUN_SHARED void proto_free(void);
FGLRUN_SHARED void proto_json(FILE *f, const options *o, const result *res);
FGLRUN_SHARED void proto_table(const options *o, const result *res);

/* fglrun/link.c: --task link */
FGLRUN_SHARED int link_clients(const options *o, const fgl_scenario *sc, fgl_client_data *cd, fgl_error *err);
FGLRUN_SHARED void link_free(void);
FGLRUN_SHARED void link_table(const options *o, const result *res);
FGLRUN_SHARED void link_json(FILE *f, const options *o, const result *res);

/* fglrun/metrics.c: --score, macro-F1 and ROC-AUC, the defences' lines */
FGLRUN_SHARED int score_resolve(options *o, const fgl_dataset *ds);
FGLRUN_SHARED const char *score_words(int metric);
FGLRUN_SHARED void metrics_table(const options *o, const result *res, int w);
FGLRUN_SHARED void metrics_json(FILE *f, const options *o, const result *res);
FGLRUN_SHARED void defences_lines(const options *o, const result *res);

/* fglrun/result.c: the results as JSON, and what a replay compares */
FGLRUN_SHARED void mean_std(const double *x, int n, double *mean, double *sd);
FGLRUN_SHARED void json_mean_std(FILE *f, const char *name, const double *x, int n);
FGLRUN_SHARED void json_result(FILE *f, const options *o, int slot, const fgl_dataset *ds, int split, int K, int rounds,
                               const result *res);
FGLRUN_SHARED void config_member(FILE *f, const options *o);
FGLRUN_SHARED void write_results(const options *o, const result *res, const fgl_dataset *ds, int split, int K,
                                 int rounds);
FGLRUN_SHARED int replay_row(const options *o, const char *name, const jv *rec, const result *res);

/* fglrun/progress.c: progress, partial results, the per-round CSV, checkpoints */
FGLRUN_SHARED int per_client_out(const options *o);
FGLRUN_SHARED void csv_header(FILE *f, const char *const *names, int link, int agg);
FGLRUN_SHARED void csv_round(FILE *f, const fgl_run *run, int r, const char *const *names, int agg);
FGLRUN_SHARED int out_dir_prepare(const char *dir);
FGLRUN_SHARED void progress_init(progress *pg, options *o, result *res, const fgl_dataset *ds, int split, int K,
                                 int rounds, int runs);
FGLRUN_SHARED void progress_begin(const options *o, const char *algo, const char *file, uint64_t seed, int fold,
                                  const fgl_run *run);
FGLRUN_SHARED void progress_round(const options *o, const fgl_run *run);
FGLRUN_SHARED void progress_end(const options *o);
FGLRUN_SHARED void progress_run_done(const options *o, result *res, int idx, const fgl_run *run);
FGLRUN_SHARED void progress_finish(progress *pg, const options *o, const char *status);
FGLRUN_SHARED void progress_free(progress *pg);
FGLRUN_SHARED int checkpoint_due(const options *o, int done, int rounds);
FGLRUN_SHARED int checkpoint_save(const fgl_run *run, const char *path, fgl_error *err);
FGLRUN_SHARED int replay_check(const options *o, const result *res);

/* fglrun/plots.c: SVG plots */
FGLRUN_SHARED void write_plots(const options *o, const progress *pg);
FGLRUN_SHARED void svg_heatmap(const char *path, const char *algo, int round, const float *m, int K, const int *order,
                               const int *dom, const char *const *names);

/* examples/fglrun.c, and fglrun/mpi_main.c (-DFGL_MPI): the programs (external, as ever) */
int fglrun_main(int argc, char **argv);
#ifdef FGL_MPI
int fglrun_mpi_main(int argc, char **argv);
#endif

/* --- variables one part defines and another uses: declared here for a part compiled alone only (in the
 * one translation unit, the part that defines them comes before the parts that use them) --- */
#ifndef FGLRUN_UNITY
extern int write_errors;                    /* fglrun/files.c: files that could not be written */
extern volatile sig_atomic_t fglrun_signal; /* fglrun/files.c: the stop signal received (0: none) */
extern const opt_def opt_table[];           /* fglrun/options.c: the option table */
extern double data_rss_mb;                  /* fglrun/result.c: the data's share of the peak memory (fglrun.c sets it) */
extern char *homophily_rec;                 /* fglrun/result.c: the record's "homophily" member (fglrun.c makes it) */
#endif

#endif /* FGLRUN_H */
