#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Observers                                                                */
/* ------------------------------------------------------------------------ */

/* What an algorithm's observers (fgl_algo.report, fgl_algo.client_matrix)
 * see of a run: a read-only summary, never the run itself. Its arrays
 * point into the run (valid while it lives and does not change, i.e. not
 * across a round); the server's state and the clients' models are read
 * through the functions below, which return const memory. The runtime
 * builds it (fgl_run_observe) each time an observer is called
 * (fgl_run_report, fgl_run_client_matrix); a program may build one to read
 * a run the same way. */
struct fgl_observed {
    const char *algo;              /* the algorithm's name */
    const fgl_settings *set;       /* its parameters (fgl_get(o->set, "tau")) */
    const fgl_fed_config *fed;     /* the run's configuration */
    int n_clients;                 /* K */
    int task;                      /* FGL_TASK_NODE, FGL_TASK_GRAPH or FGL_TASK_LINK */
    int started;                   /* 0 before the first round (or fgl_run_start): no state yet, and
                                      observers give nothing */
    int rounds;                    /* rounds completed */
    size_t dim[FGL_DIM_RULES];     /* the size rules' values as the server sees them (fgl_observed_dim) */
    int n_public;                  /* public nodes the server holds (fgl_run_set_public; 0: none) */
    const int *n_train;            /* K: training samples each client registered */
    const int *n_nodes;            /* K: nodes each client holds (what FGL_DIM_NODES means for it) */
    const fgl_round_stats *stats;  /* `rounds` rounds: means, counts, bytes, seconds */
    const double *client_val, *client_test;   /* rounds x K accuracies (row r: round r; NaN where a round
                                                 was not evaluated or the client's host was lost) */
    const double *client_loss;     /* rounds x K: training loss (of the round's participants) */
    const size_t *client_up, *client_down;    /* rounds x K: bytes */
    const void *runtime;           /* the runtime's: the functions below read through it */
};

/* Client i's model, as observers see it: its layout (the spec its
 * algorithm prepared, the slices in the order they were added, with their
 * offsets into the parameters) and its size in floats. */
typedef struct fgl_observed_model {
    const fgl_model_spec *spec;
    const fgl_slice *slices;
    int n_slices;
    size_t size;
} fgl_observed_model;

/* The summary of run (o's arrays point into it). */
FGLDEF void fgl_run_observe(const fgl_run *run, fgl_observed *o);
/* The algorithm's report on run (buf "" when it has none, or nothing to
 * say yet) and its K x K client matrix of the last round, written into out
 * (K x K floats): FGL_OK, or FGL_ERR_EMPTY (out untouched) when the
 * algorithm has no matrix or none yet. */
FGLDEF void fgl_run_report(const fgl_run *run, char *buf, size_t cap);
FGLDEF int fgl_run_client_matrix(const fgl_run *run, float *out);
/* What a size rule means in the run (fgl_server_dim); a positive count is
 * itself. */
FGLDEF size_t fgl_observed_dim(const fgl_observed *o, int rule);
/* The server's state entries, read-only: NULL before the start, and for a
 * name the server's store does not have (an observer only reads: its
 * misspelling is not the algorithm's error, and the run goes on). */
FGLDEF const float *fgl_observed_floats(const fgl_observed *o, const char *name);
FGLDEF const int *fgl_observed_ints(const fgl_observed *o, const char *name);
FGLDEF const void *fgl_observed_scratch(const fgl_observed *o, const char *name);
/* The server's K x K floats entry `name` copied into out (what most
 * client_matrix observers return): FGL_OK; FGL_ERR_EMPTY before the start
 * (out untouched); FGL_ERR_SHAPE if it is not K x K floats. */
FGLDEF int fgl_observed_matrix(const fgl_observed *o, const char *name, float *out);
/* Client i's model layout (FGL_OK), and its parameters (m.size floats, in
 * the model's order) copied into out, which holds cap floats, whether the
 * client is resident or packed (fgl_run_client_params: reading changes
 * nothing). FGL_ERR_ARG (out untouched): no client i, the run has not
 * started, the client is hosted by another process (FGL_MPI), whose model
 * is not here, or cap is smaller than m.size. */
FGLDEF int fgl_observed_layout(const fgl_observed *o, int client, fgl_observed_model *m);
FGLDEF int fgl_observed_params(const fgl_observed *o, int client, float *out, size_t cap);

/* A run's figures so far, over its rounds (best and last). */
typedef struct fgl_run_summary {
    int rounds, best_round;       /* best_round: the highest mean validation score of cfg.metric (0-based; the
                                     first of equals; rounds without one are skipped, and if no round has
                                     one, the accuracy's is taken: metric then says FGL_METRIC_ACC) */
    int metric;                   /* the FGL_METRIC_* that chose best_round */
    double best_val, best_test;   /* mean accuracy over clients at best_round (link tasks: AUC) */
    double last_val, last_test;   /* mean over clients at the last round */
    double best_val_f1, best_test_f1, last_val_f1, last_test_f1;       /* macro-F1 (link tasks: NaN) */
    double best_val_auc, best_test_auc, last_val_auc, last_test_auc;   /* two-class ROC-AUC (else NaN) */
    double best_val_hits, best_test_hits, last_val_hits, last_test_hits;   /* link tasks: Hits@K (else NaN) */
    size_t bytes_up, bytes_down;
    int rejected;                 /* uploads rejected (screened ones included) */
    int screened, clipped, dropped;
    int out_of_range;             /* secure aggregation: uploads withheld out of the ring's range (rejected) */
    int lost;                     /* uploads lost with a host that stopped answering (FGL_MPI) */
    int fallback;                 /* robust aggregations that fell back (fgl_round_stats.n_fallback) */
    double seconds, t_train, t_server, t_eval;
} fgl_run_summary;
FGLDEF void fgl_run_summarize(const fgl_run *run, fgl_run_summary *s);

/* fgl:implementation */
#include "../alone.h"
/* --- observers ------------------------------------------------------------------- */

FGLDEF void fgl_run_observe(const fgl_run *run, fgl_observed *o) {
    memset(o, 0, sizeof *o);
    o->algo = run->algo.name;
    o->set = &run->set;
    o->fed = &run->cfg;
    o->n_clients = run->n_clients;
    o->task = run->n_clients > 0 ? run->clients[0].task : 0;
    o->started = run->started;
    o->rounds = run->round;
    memcpy(o->dim, run->server.dim, sizeof o->dim);
    o->n_public = run->pub ? run->pub->n_nodes : 0;
    o->n_train = run->n_registered;
    o->n_nodes = run->n_nodes;
    o->stats = run->stats;
    o->client_val = run->client_val;
    o->client_test = run->client_test;
    o->client_loss = run->client_loss;
    o->client_up = run->client_up;
    o->client_down = run->client_down;
    o->runtime = run;
}

FGLDEF void fgl_run_report(const fgl_run *run, char *buf, size_t cap) {
    fgl_observed o;
    if (!cap) return;
    buf[0] = 0;
    if (!run->algo.report) return;
    fgl_run_observe(run, &o);
    run->algo.report(&o, buf, cap);
}

FGLDEF int fgl_run_client_matrix(const fgl_run *run, float *out) {
    fgl_observed o;
    if (!run->algo.client_matrix) return FGL_ERR_EMPTY;
    fgl_run_observe(run, &o);
    return run->algo.client_matrix(&o, out);
}

FGLDEF size_t fgl_observed_dim(const fgl_observed *o, int rule) {
    if (rule > 0) return (size_t)rule;
    return rule > -FGL_DIM_RULES ? o->dim[-rule] : 0;
}

static const fgl_run *fgl__observed_run(const fgl_observed *o) { return (const fgl_run *)o->runtime; }

static const void *fgl__observed_entry(const fgl_observed *o, const char *name, int kind) {
    const fgl__entry *e = o->started ? fgl__store_find(&fgl__observed_run(o)->server.store, name, kind) : NULL;
    return e ? e->p : NULL;
}

FGLDEF const float *fgl_observed_floats(const fgl_observed *o, const char *name) {
    return (const float *)fgl__observed_entry(o, name, FGL__E_FLOATS);
}

FGLDEF const int *fgl_observed_ints(const fgl_observed *o, const char *name) {
    return (const int *)fgl__observed_entry(o, name, FGL__E_INTS);
}

FGLDEF const void *fgl_observed_scratch(const fgl_observed *o, const char *name) {
    return fgl__observed_entry(o, name, FGL__E_SCRATCH);
}

FGLDEF int fgl_observed_matrix(const fgl_observed *o, const char *name, float *out) {
    const fgl__entry *e;
    size_t K = (size_t)o->n_clients;
    if (!o->started) return FGL_ERR_EMPTY;
    e = fgl__store_find(&fgl__observed_run(o)->server.store, name, FGL__E_FLOATS);
    FGL_ASSERT(e); /* an entry the algorithm made */
    if (!e || e->n != K * K) return FGL_ERR_SHAPE;
    memcpy(out, e->p, sizeof(float) * K * K);
    return FGL_OK;
}

FGLDEF int fgl_observed_layout(const fgl_observed *o, int client, fgl_observed_model *m) {
    const fgl_run *run = fgl__observed_run(o);
    const fgl_model *md;
    memset(m, 0, sizeof *m);
    if (!o->started || client < 0 || client >= run->n_clients || !run->clients[client].local) return FGL_ERR_ARG;
    md = &run->clients[client].model;
    m->spec = &md->spec;
    m->slices = md->params.slices;
    m->n_slices = md->params.n;
    m->size = md->params.size;
    return FGL_OK;
}

FGLDEF int fgl_observed_params(const fgl_observed *o, int client, float *out, size_t cap) {
    if (!o->started) return FGL_ERR_ARG;
    return fgl_run_client_params(fgl__observed_run(o), client, out, cap, NULL);
}

FGLDEF void fgl_run_summarize(const fgl_run *run, fgl_run_summary *s) {
    int r;
    memset(s, 0, sizeof *s);
    s->rounds = run->round;
    s->best_round = -1;
    s->best_val_hits = s->best_test_hits = s->last_val_hits = s->last_test_hits = NAN;
    s->best_val_f1 = s->best_test_f1 = s->last_val_f1 = s->last_test_f1 = NAN;
    s->best_val_auc = s->best_test_auc = s->last_val_auc = s->last_test_auc = NAN;
    s->metric = run->cfg.metric;
    if (s->metric != FGL_METRIC_ACC) { /* the chosen metric's best round, if any round has the metric */
        double best = NAN;
        for (r = 0; r < run->round; r++) {
            double v = s->metric == FGL_METRIC_AUC ? run->stats[r].val_auc : run->stats[r].val_f1;
            if (v == v && (s->best_round < 0 || v > best)) {
                s->best_round = r;
                best = v;
            }
        }
        if (s->best_round < 0) s->metric = FGL_METRIC_ACC;
    }
    s->bytes_up = run->bytes_up;
    s->bytes_down = run->bytes_down;
    s->rejected = run->rejected_total;
    for (r = 0; r < run->round; r++) {
        const fgl_round_stats *st = &run->stats[r];
        if (s->metric == FGL_METRIC_ACC && st->val_acc == st->val_acc &&
            (s->best_round < 0 || st->val_acc > s->best_val)) { /* evaluated rounds */
            s->best_round = r;
            s->best_val = st->val_acc;
        }
        s->t_train += st->t_train;
        s->t_server += st->t_server;
        s->t_eval += st->t_eval;
        s->screened += st->n_screened;
        s->clipped += st->n_clipped;
        s->dropped += st->n_dropped;
        s->out_of_range += st->n_out_of_range;
        s->lost += st->n_lost;
        s->fallback += st->n_fallback;
    }
    if (s->best_round >= 0) {
        const fgl_round_stats *st = &run->stats[s->best_round];
        s->best_val = st->val_acc;
        s->best_test = st->test_acc;
        s->best_val_hits = st->val_hits;
        s->best_test_hits = st->test_hits;
        s->best_val_f1 = st->val_f1;
        s->best_test_f1 = st->test_f1;
        s->best_val_auc = st->val_auc;
        s->best_test_auc = st->test_auc;
    }
    if (run->round > 0) {
        const fgl_round_stats *st = &run->stats[run->round - 1];
        s->last_val_f1 = st->val_f1;
        s->last_test_f1 = st->test_f1;
        s->last_val_auc = st->val_auc;
        s->last_test_auc = st->test_auc;
        s->last_val = run->stats[run->round - 1].val_acc;
        s->last_test = run->stats[run->round - 1].test_acc;
        s->last_val_hits = run->stats[run->round - 1].val_hits;
        s->last_test_hits = run->stats[run->round - 1].test_hits;
    }
    s->seconds = s->t_train + s->t_server + s->t_eval;
}
#include "../alone.h"
