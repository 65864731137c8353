#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Runs                                                                     */
/* ------------------------------------------------------------------------ */

typedef struct fgl_round_stats {
    int n_part, n_rejected;
    int n_screened, n_clipped, n_dropped;   /* rejected for their norm; clipped by NORMCLIP; secagg dropouts */
    int secagg_failed;                      /* 1: secure aggregation could not unmask the round (fewer
                                               survivors than its threshold): the models stayed */
    int n_out_of_range;                     /* secure aggregation: uploads their clients withheld because a
                                               weighted value left the ring's per-client range (counted among
                                               the rejected too; not checkpointed: --secagg is never) */
    int n_lost;                             /* participants whose host stopped answering (a transport) */
    int n_fallback;                         /* robust aggregations that had too few accepted uploads for
                                               the rule's parameter and fell back (fgl_server_mix) */
    long long dp_draws;                     /* DP: noise values drawn into the round's release (every value of
                                               every model and delta part when the round was noised; -1: not
                                               counted, a checkpoint of an older build) */
    double train_loss, val_acc, test_acc;   /* means over clients (loss: accepted ones); a link task's val_acc
                                               and test_acc are AUC, its means weighted by the split's positive
                                               pairs */
    double val_hits, test_hits;             /* link tasks: Hits@K, means as AUC's (other tasks: NaN) */
    double val_f1, test_f1;                 /* node and graph tasks: macro-F1 (fgl_class_metrics), means over
                                               the clients that have one (labelled samples in the split) */
    double val_auc, test_auc;               /* two-class node and graph tasks: ROC-AUC, means over the clients
                                               that have one (both classes in the split); else NaN */
    size_t bytes_up, bytes_down;
    double t_train, t_server, t_eval;       /* seconds */
} fgl_round_stats;

struct fgl_run {
    fgl_fed_config cfg;
    fgl_algo algo;               /* a copy of the table */
    fgl_settings set;
    char unknown_param[FGL_SETTINGS_UNKNOWN]; /* set.unknown: a parameter read but not declared */
    int n_clients;
    fgl_client *clients;
    fgl_server server;
    fgl_model ref;               /* the common initial model (server->init) */
    const fgl_node_data *pub;    /* public data the server holds, or NULL (borrowed) */
    int *n_nodes;                /* per client: nodes it holds */
    size_t *up_len_of;           /* K x FGL_MSG_MAX_PARTS: declared upload sizes per client */
    int *n_registered;
    const fgl_msg **up_view;     /* what server.up points to */
    fgl_msg *down;               /* K downloads */
    int *part;                   /* this round's participants (between rounds: the coming round's) */
    int n_part;
    int *next;                   /* the next round's, drawn in this round's sample stage (stages.h) */
    int n_next;
    int withheld;                /* this round's uploads never reached the server as values (a plug-in's
                                    arrive stage: secure aggregation without its keys): none is rejected */
    unsigned char *accepted;     /* per client: upload accepted this round */
    unsigned char *checked;      /* per client: 0 upload not checked yet this round, 1 well formed, 2 malformed */
    struct {                     /* per client phase (0 training, 1 evaluation): fgl__run_clients' trial of its */
        int calls, pick;         /* two ways of running a client alone; pick: 0 undecided, 1 alone, 2 beside */
        double secs[2];
    } sched[2];
    double *up_norm;             /* K x FGL_MSG_MAX_PARTS: update norms of checked uploads (screening) */
    struct fgl__intact intact;   /* the checks that what hooks received stays as sent (intact.h) */
    FILE *park_file;             /* cfg.park_idle 2: the idle clients' packed states, or NULL */
    struct fgl__chunk **arenas;  /* tape arenas of clients gone idle, lent to the next that trains or evaluates */
    int n_arenas, cap_arenas;
    size_t park_end;             /* its length */
    int *rejected_by;            /* per client: uploads rejected so far */
    unsigned char *attacker;     /* per client: a simulated attacker (cfg.attack) */
    unsigned char *dropped;      /* per client: dropped out of this round's secure aggregation */
    unsigned char *trained;      /* per client: took part in the round just run */
    unsigned char *lost;         /* per client: its host stopped answering (a transport's timeout) */
    struct fgl__sa *sa;          /* secure aggregation: the server's side of the round */
    unsigned char dp_key[32];    /* DP: the server's secret key (noise, participation); never saved */
    float *dp_out[FGL_MSG_MAX_PARTS];   /* DP: the round's release of each model or delta part (server.dp_release) */
    int rejected_total;
    size_t bytes_up, bytes_down; /* totals, initial broadcast included */
    fgl_round_stats *stats;      /* per round (cfg.rounds) */
    double *client_val, *client_test, *client_loss;   /* rounds x clients */
    double *client_val_f1, *client_test_f1;          /* rounds x clients: macro-F1 (NaN: none) */
    double *client_val_auc, *client_test_auc;        /* rounds x clients: two-class ROC-AUC (NaN: none) */
    size_t *client_up, *client_down;                 /* rounds x clients: bytes */
    int round;                   /* rounds completed */
    int started;                 /* models built, algorithm initialised */
    double t_start;
    fgl_error err;
    int role;                    /* FGL__ROLE_*: what this process does of the run (a transport splits it) */
    int allow_other_build;       /* fgl_run_load: accept a checkpoint of another build (fgl_build_id) */
    char other_build[200];       /* the other build a resumed checkpoint came from ("": this one) */
    struct fgl__transport *transport;   /* clients hosted elsewhere and how to reach them (NULL: all here) */
};

/* fgl_run_init checks, before anything is built, what does not depend on
 * the algorithm's parameters, and refuses (FGL_ERR_ARG, nothing left to
 * free) a run that could not start: an algorithm that is NULL (the error
 * names the name fgl_algo_find did not find); the configuration's ranges
 * (rounds >= 1, local_epochs >= 0, batch sizes >= 0, frac in (0, 1], a
 * known optimizer with lr > 0, weight decay, momentum, eps and clip >= 0,
 * betas in [0, 1), all finite; threads >= 0, park_idle 0..2, eval_every >=
 * 0; a known metric (FGL_METRIC_AUC: every client's model two outputs;
 * link tasks: accuracy only, their AUC already); a known robust rule with
 * trim, f, m >= 0, screen >= 0 and clip > 0 for normclip; a known attack with a fraction in [0, 1]; dp clip and
 * noise >= 0); the clients' data; every client's task and model against
 * the algorithm (its prepare_spec, called on a copy of each client's spec
 * with the parameters' defaults: FedStar and GPFL refuse node tasks,
 * pFedGNN graph tasks, the prototype methods a model without a hidden
 * representation ...); and the defences against the algorithm's messages
 * (README, "Covered or refused"). The models, the algorithm's state and
 * the initial broadcast come with the first round (or fgl_run_start), so
 * parameters can be set in between. */
FGLDEF int fgl_run_init(fgl_run *run, const fgl_fed_config *cfg, const fgl_algo *algo,
                        const fgl_client_data *clients, int n_clients, fgl_error *err);
/* Every check fgl_run_start makes, with the parameters as set, without
 * building anything: those of fgl_run_init again, and the ones that depend
 * on the parameters (the clients' shared parameter layouts, the message
 * sizes the parameters give). FGL_OK, or the error in run->err; the run
 * is unchanged either way (FGL_OK at once once started). A program that
 * runs several configurations calls it for each before it spends time on
 * any (fglrun does, for every --algo of its command line). Algorithms'
 * own range checks of their parameters (in their init hooks) still come
 * at the start. */
FGLDEF int fgl_run_check(fgl_run *run);
FGLDEF int fgl_run_start(fgl_run *run);
/* Public data the server holds (e.g. nodes withheld from every client and
 * made public: fgl_scenario.pub); borrowed, it must outlive the run. Its
 * features must have the clients' width. Server hooks read it as s->pub;
 * clients see only what a download sends them. Before the start; NULL
 * removes it. */
FGLDEF int fgl_run_set_public(fgl_run *run, const fgl_node_data *pub, fgl_error *err);
/* Set an algorithm parameter by name ("mu", "0.01"); before the start. */
FGLDEF int fgl_run_set(fgl_run *run, const char *key, const char *value, fgl_error *err);
/* An algorithm parameter's value. */
FGLDEF double fgl_run_get(const fgl_run *run, const char *key);
/* One round; FGL_OK or the first error (run->err names the round, the
 * client or the server, and why). */
FGLDEF int fgl_run_round(fgl_run *run);
FGLDEF void fgl_run_free(fgl_run *run);
/* 1 if client c's upload was accepted this round. */
FGLDEF int fgl_run_accepted(const fgl_run *run, int client);

/* fgl:private */
#include "../alone.h"
FGL__PRIVATE double fgl__alone_speed(double w, int g);
FGL__PRIVATE int fgl__schedule(int nt, int n, const double *w, int *order);
FGL__PRIVATE int fgl__alone_trial(fgl_run *run, int phase);
FGL__PRIVATE void fgl__alone_record(fgl_run *run, int phase, int alone, double secs);
FGL__PRIVATE void fgl__side_by_side(fgl_run *run, const int *ids, const int *order, const double *w, int first, int n,
                                    int nt, void (*step)(fgl_run *, fgl_client *, const void *), const void *ctx);
/* fgl:implementation */
#include "../alone.h"
/* --- runs: setup ------------------------------------------------------------------- */

/* What this process does of a run: all of it, the server with every
 * client hosted elsewhere, or the hosted clients of a run whose server is
 * elsewhere. */
enum { FGL__ROLE_ALL, FGL__ROLE_SERVER, FGL__ROLE_CLIENTS };

/* A transport runs the client side of a run in other processes (FGL_MPI
 * is one). The runtime calls it where a round crosses between the sides;
 * each call returns FGL_OK or an error in run->err. A host that stops
 * answering is the transport's to detect: it marks its clients in
 * run->lost and the run goes on without them. */
struct fgl__transport {
    int (*start)(fgl_run *run);                  /* the first downloads are built: remote clients start, receive */
    int (*train)(fgl_run *run);                  /* remote participants train: their uploads arrive in c->up */
    int (*finish)(fgl_run *run, int evaluated);  /* next downloads out; remote evaluations in (c->val_acc ...) */
    int (*save)(fgl_run *run, fgl_bytes *stores);   /* remote clients' serialised stores into stores[i] */
    int (*load)(fgl_run *run, const fgl_reader *stores, int commit, fgl_error *err);  /* check (0) or install (1) */
    int (*resume)(fgl_run *run);                 /* after a load: round, participants and downloads out */
    int (*secagg)(fgl_run *run, int step);       /* secure aggregation's step 1 (keys), 2 (shares), 4 (the
                                                    survivors list's tags), 3 (reveal) for the remote
                                                    participants (run->sa) */
    void (*free)(fgl_run *run);
};

/* Secure aggregation's step for the participants hosted elsewhere. */
static int fgl__sa_transport(fgl_run *run, int step) {
    return run->transport && run->transport->secagg ? run->transport->secagg(run, step) : FGL_OK;
}

/* A client hosted by another process (FGL_MPI): what it registered. */
typedef struct fgl__remote {
    int remote;
    int n_train, n_val, n_test;
    uint64_t data_sum;
} fgl__remote;

static int fgl__run_init(fgl_run *run, const fgl_fed_config *cfg, const fgl_algo *algo, const fgl_client_data *clients,
                         int n_clients, const fgl__remote *remote, fgl_error *err);
static int fgl__run_check(fgl_run *run, int full);
static const char *fgl__algo_missed(void);            /* the registry's (registry.h) */
static void fgl__algo_names(char *buf, size_t cap);

FGLDEF int fgl_run_init(fgl_run *run, const fgl_fed_config *cfg, const fgl_algo *algo,
                        const fgl_client_data *clients, int n_clients, fgl_error *err) {
    return fgl__run_init(run, cfg, algo, clients, n_clients, NULL, err);
}

static int fgl__run_init(fgl_run *run, const fgl_fed_config *cfg, const fgl_algo *algo, const fgl_client_data *clients,
                         int n_clients, const fgl__remote *remote, fgl_error *err) {
    int i, k, rc;
    size_t R, K;
    memset(run, 0, sizeof *run);
    if (!algo || !algo->name) {
        const char *m = fgl__algo_missed(), *near = *m ? fgl_algo_suggest(m) : NULL;
        char names[400];
        fgl__algo_names(names, sizeof names);
        if (!*m) return fgl_error_set(err, FGL_ERR_ARG, "run: no algorithm (the table is NULL); registered: %s", names);
        return fgl_error_set(err, FGL_ERR_ARG,
                             "run: no algorithm: fgl_algo_find(\"%s\") found none%s%s%s; registered: %s", m,
                             near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "", names);
    }
    if (algo->refused)
        return fgl_error_set(err, FGL_ERR_ARG, "%s: its parameter row '%s' names a member of the wrong size, outside "
                             "its struct or over another (FGL_ALGO_PARAM)", algo->name, algo->refused);
    if (!cfg || n_clients <= 0 || !clients) return fgl_error_set(err, FGL_ERR_ARG, "run: no clients");
    if ((rc = fgl__config_check(cfg, err))) return rc;
    for (i = 0; cfg->metric != FGL_METRIC_ACC && i < n_clients; i++) {
        if (clients[i].spec.task == FGL_TASK_LINK)
            return fgl_error_set(err, FGL_ERR_ARG, "run: metric %s: a link task's accuracy is its AUC already "
                                 "(FGL_METRIC_ACC)", cfg->metric == FGL_METRIC_AUC ? "AUC" : "F1");
        if (cfg->metric == FGL_METRIC_AUC && clients[i].spec.out_dim != 2)
            return fgl_error_set(err, FGL_ERR_ARG, "run: metric AUC needs two classes: client %d's model has %d "
                                 "outputs", i, clients[i].spec.out_dim);
    }
    run->cfg = *cfg;
    run->algo = *algo;
    run->n_clients = n_clients;
    R = (size_t)cfg->rounds;
    K = (size_t)n_clients;
    run->set.algo = &run->algo;
    run->set.unknown = run->unknown_param;
    run->set.value = (double *)fgl__zalloc(sizeof(double) * FGL_ALGO_MAX_PARAMS);
    run->clients = (fgl_client *)fgl__zalloc(sizeof(fgl_client) * K);
    run->n_registered = (int *)fgl__zalloc(sizeof(int) * K);
    run->n_nodes = (int *)fgl__zalloc(sizeof(int) * K);
    run->up_len_of = (size_t *)fgl__zalloc(sizeof(size_t) * K * FGL_MSG_MAX_PARTS);
    run->up_view = (const fgl_msg **)fgl__zalloc(sizeof(fgl_msg *) * K);
    run->down = (fgl_msg *)fgl__zalloc(sizeof(fgl_msg) * K);
    run->accepted = (unsigned char *)fgl__zalloc(K);
    run->checked = (unsigned char *)fgl__zalloc(K);
    run->up_norm = (double *)fgl__zalloc(sizeof(double) * K * FGL_MSG_MAX_PARTS);
    run->intact.up_sum = (uint64_t *)fgl__zalloc(sizeof(uint64_t) * K * FGL_MSG_MAX_PARTS);
    run->rejected_by = (int *)fgl__zalloc(sizeof(int) * K);
    run->attacker = (unsigned char *)fgl__zalloc(K);
    run->dropped = (unsigned char *)fgl__zalloc(K);
    run->trained = (unsigned char *)fgl__zalloc(K);
    run->lost = (unsigned char *)fgl__zalloc(K);
    run->part = (int *)fgl__zalloc(sizeof(int) * K);
    run->next = (int *)fgl__zalloc(sizeof(int) * K);
    { /* the most arenas in use at once: in the evaluation phase, the round's participants, the next round's
       * (evaluated, not yet trained) and one per thread evaluating an idle client */
        int per_round = FGL__MAX(1, FGL__MIN((int)(cfg->frac * n_clients + 0.5f), n_clients)), nt = 1;
#ifdef _OPENMP
        nt = FGL__NTHREADS(run);
#endif
        run->cap_arenas = FGL__MIN(n_clients, 2 * per_round + nt);
        run->arenas = (struct fgl__chunk **)fgl__zalloc(sizeof(struct fgl__chunk *) * (size_t)run->cap_arenas);
        if (!run->arenas) run->cap_arenas = 0; /* not needed: idle arenas are then freed */
    }
    run->stats = (fgl_round_stats *)fgl__zalloc(sizeof(fgl_round_stats) * R);
    run->client_val = (double *)fgl__zalloc(sizeof(double) * R * K);
    run->client_test = (double *)fgl__zalloc(sizeof(double) * R * K);
    run->client_loss = (double *)fgl__zalloc(sizeof(double) * R * K);
    run->client_val_f1 = (double *)fgl__zalloc(sizeof(double) * R * K);
    run->client_test_f1 = (double *)fgl__zalloc(sizeof(double) * R * K);
    run->client_val_auc = (double *)fgl__zalloc(sizeof(double) * R * K);
    run->client_test_auc = (double *)fgl__zalloc(sizeof(double) * R * K);
    run->client_up = (size_t *)fgl__zalloc(sizeof(size_t) * R * K);
    run->client_down = (size_t *)fgl__zalloc(sizeof(size_t) * R * K);
    if (!run->set.value || !run->clients || !run->n_registered || !run->n_nodes || !run->up_len_of || !run->up_view ||
        !run->down || !run->accepted || !run->checked || !run->up_norm || !run->intact.up_sum ||
        !run->rejected_by || !run->attacker || !run->dropped || !run->trained || !run->lost || !run->part || !run->next ||
        !run->stats || !run->client_val || !run->client_test || !run->client_loss || !run->client_up ||
        !run->client_down || !run->client_val_f1 || !run->client_test_f1 || !run->client_val_auc ||
        !run->client_test_auc) {
        FGL_FREE(run->clients);
        run->clients = NULL;
        run->n_clients = 0;
        fgl_run_free(run);
        return fgl_error_set(err, FGL_ERR_NOMEM, "run: out of memory");
    }
    for (k = 0; k < run->algo.n_params; k++) run->set.value[k] = run->algo.params[k].def;
    fgl_settings_fill(&run->set);
    fgl__store_init(&run->server.store, -1);
    for (i = 0; i < n_clients; i++) {
        fgl_client *c = &run->clients[i];
        const fgl_client_data *cd = &clients[i];
        const fgl_link_split *link;
        c->id = i;
        fgl_tape_init(&c->tape);
        fgl__store_init(&c->store, i);
        if (remote && remote[i].remote) { /* hosted elsewhere: its spec and what it registered */
            c->local = 0;
            c->task = cd->spec.task;
            if ((rc = fgl_model_spec_check(&cd->spec, err))) goto fail;
            if (i > 0 && c->task != run->clients[0].task) {
                rc = fgl_error_set(err, FGL_ERR_ARG, "client %d: all clients must have the same task", i);
                goto fail;
            }
            c->spec = c->model.spec = cd->spec;
            c->n_train = remote[i].n_train;
            c->n_val = remote[i].n_val;
            c->n_test = remote[i].n_test;
            c->data_sum = remote[i].data_sum;
            if (c->n_train <= 0) {
                rc = fgl_error_set(err, FGL_ERR_EMPTY, "client %d: no training samples registered", i);
                goto fail;
            }
            run->n_registered[i] = c->n_train;
            fgl_rng_init(&c->rng, cfg->seed, 0x434c49454e54ull + (uint64_t)i);
            continue;
        }
        c->local = 1;
        if ((cd->node == NULL) == (cd->graphs == NULL)) {
            rc = fgl_error_set(err, FGL_ERR_ARG, "client %d: give exactly one of node data or a graph set", i);
            goto fail;
        }
        /* cd->link is read only for a link spec: code written before it may leave it unset */
        link = cd->spec.task == FGL_TASK_LINK ? cd->link : NULL;
        c->task = cd->spec.task == FGL_TASK_LINK ? FGL_TASK_LINK : cd->node ? FGL_TASK_NODE : FGL_TASK_GRAPH;
        if (c->task != cd->spec.task) {
            rc = fgl_error_set(err, FGL_ERR_ARG, "client %d: the model spec's task does not match its data", i);
            goto fail;
        }
        if (i > 0 && c->task != run->clients[0].task) {
            rc = fgl_error_set(err, FGL_ERR_ARG, "client %d: all clients must have the same task", i);
            goto fail;
        }
        if ((rc = fgl_model_spec_check(&cd->spec, err))) goto fail;
        c->spec = cd->spec;
        c->model.spec = cd->spec; /* the model is built at the start */
        /* the data, borrowed, with its split: prepared for the model at the start */
        c->data.node = cd->node;
        c->data.graphs = cd->graphs;
        c->data.link = link;
        if (c->task == FGL_TASK_LINK && (!link || !cd->node || link->n_nodes != cd->node->n_nodes)) {
            rc = fgl_error_set(err, FGL_ERR_ARG,
                               "client %d: link prediction needs node data and its edge split (fgl_client_data.link, "
                               "from fgl_link_split_make on that node data)",
                               i);
            goto fail;
        }
        if (cd->node && !link && !cd->node->split) {
            rc = fgl_error_set(err, FGL_ERR_ARG, "client %d: node data without a train/val/test split", i);
            goto fail;
        }
        if (cd->graphs && !cd->graphs->split) {
            rc = fgl_error_set(err, FGL_ERR_ARG, "client %d: graph set without a train/val/test split", i);
            goto fail;
        }
        if (cd->graphs && (!cd->graphs->x || cd->graphs->n_feat <= 0)) {
            rc =
                fgl_error_set(err, FGL_ERR_ARG, "client %d (%s): graph set without node features", i, cd->graphs->name);
            goto fail;
        }
        if (link) { /* positive pairs */
            c->n_train = link->n_pos[FGL_SPLIT_TRAIN];
            c->n_val = link->n_pos[FGL_SPLIT_VAL];
            c->n_test = link->n_pos[FGL_SPLIT_TEST];
        } else {
            int q, n = cd->node ? cd->node->n_nodes : cd->graphs->n_graphs, counts[4] = {0, 0, 0, 0};
            const unsigned char *split = cd->node ? cd->node->split : cd->graphs->split;
            for (q = 0; q < n; q++)
                if (split[q] <= 3 && (!cd->node || cd->node->y[q] >= 0)) counts[split[q]]++;
            c->n_train = counts[FGL_SPLIT_TRAIN];
            c->n_val = counts[FGL_SPLIT_VAL];
            c->n_test = counts[FGL_SPLIT_TEST];
        }
        if (c->n_train == 0) {
            rc = fgl_error_set(err, FGL_ERR_EMPTY, "client %d (%s): no training %s", i,
                               cd->node ? cd->node->name : cd->graphs->name,
                               link ? "edges" : cd->node ? "nodes" : "graphs");
            goto fail;
        }
        run->n_registered[i] = c->n_train;
        run->n_nodes[i] = cd->node ? cd->node->n_nodes : cd->graphs->n_nodes;
        fgl_rng_init(&c->rng, cfg->seed, 0x434c49454e54ull + (uint64_t)i); /* "CLIENT" + id */
    }
    fgl_rng_init(&run->server.rng, cfg->seed, 0x5345525645ull); /* "SERVE" */
    if ((rc = fgl__run_check(run, 0))) { /* tasks, models and defences against the algorithm, before any work */
        fgl_error e = run->err;         /* err may be &run->err, which fgl_run_free clears */
        fgl_run_free(run);
        if (err) *err = e;
        return rc;
    }
    return FGL_OK;
fail:
    fgl_run_free(run);
    return rc;
}

FGLDEF int fgl_run_set(fgl_run *run, const char *key, const char *value, fgl_error *err) {
    const fgl_algo *a = &run->algo;
    int i = fgl__param_index(a, key);
    if (run->started)
        return fgl_error_set(err, FGL_ERR_ARG, "%s: parameters must be set before the first round", a->name);
    if (i < 0) return fgl_error_set(err, FGL_ERR_ARG, "algorithm %s has no parameter '%s'", a->name, key);
    if (fgl_algo_param_parse(&a->params[i], value, &run->set.value[i])) {
        if (a->params[i].type == FGL_PARAM_GROUPS)
            return fgl_error_set(err, FGL_ERR_PARSE, "%s: '%s' is not a group list (all, feature, conv, struct, "
                                 "head, mask, norm, bnstat; joined by + and -)", key, value);
        if (a->params[i].type == FGL_PARAM_INT && a->params[i].choices)
            return fgl_error_set(err, FGL_ERR_PARSE, "%s: '%s' is not one of %s (or an integer)", key, value,
                                 a->params[i].choices);
        return fgl_error_set(err, FGL_ERR_PARSE, "%s: '%s' is not %s", key, value,
                             a->params[i].type == FGL_PARAM_INT ? "an integer" : "a number");
    }
    fgl_settings_fill(&run->set);
    return FGL_OK;
}

FGLDEF int fgl_run_set_public(fgl_run *run, const fgl_node_data *pub, fgl_error *err) {
    if (run->started)
        return fgl_error_set(err, FGL_ERR_ARG, "%s: public data must be set before the first round", run->algo.name);
    if (pub && run->n_clients > 0 && run->clients[0].data.node && pub->n_feat != run->clients[0].data.node->n_feat)
        return fgl_error_set(err, FGL_ERR_SHAPE, "public data: %d features, the clients %d", pub->n_feat,
                             run->clients[0].data.node->n_feat);
    if (pub && pub->n_nodes > 0 && !pub->x.data && !pub->x_sparse.indptr)
        return fgl_error_set(err, FGL_ERR_ARG, "public data: no node features");
    run->pub = pub && pub->n_nodes > 0 ? pub : NULL;
    return FGL_OK;
}

FGLDEF double fgl_run_get(const fgl_run *run, const char *key) {
    int i = fgl__param_index(&run->algo, key);
    return i >= 0 ? run->set.value[i] : NAN;
}

FGLDEF int fgl_run_accepted(const fgl_run *run, int client) {
    return client >= 0 && client < run->n_clients && run->accepted[client];
}

FGLDEF void fgl_run_free(fgl_run *run) {
    int i;
    if (run->transport) run->transport->free(run); /* tells the remote side the run is over */
    for (i = 0; i < run->n_clients; i++) {
        fgl_client *c = &run->clients[i];
        fgl__store_free(&c->store);
        FGL_FREE(c->parked);
        fgl_view_free(&c->data);
        fgl_model_free(&c->model);
        fgl_optim_free(&c->optim);
        fgl_tape_free(&c->tape);
        fgl__msg_free(&c->up);
        FGL_FREE(c->span);
        fgl__sa_client_free(c);
    }
    for (i = 0; run->down && i < run->n_clients; i++) fgl__msg_free(&run->down[i]);
    fgl__store_free(&run->server.store);
    if (run->park_file) fclose(run->park_file);
    while (run->n_arenas > 0) fgl__chunks_free(run->arenas[--run->n_arenas]);
    FGL_FREE(run->arenas);
    fgl_model_free(&run->ref);
    FGL_FREE(run->clients);
    FGL_FREE(run->set.value);
    FGL_FREE(run->n_registered);
    FGL_FREE(run->n_nodes);
    FGL_FREE(run->up_len_of);
    FGL_FREE(run->up_view);
    for (i = 0; i < FGL_MSG_MAX_PARTS; i++) FGL_FREE(run->dp_out[i]);
    FGL_FREE(run->down);
    FGL_FREE(run->accepted);
    FGL_FREE(run->checked);
    FGL_FREE(run->up_norm);
    FGL_FREE(run->intact.up_sum);
    FGL_FREE(run->rejected_by);
    FGL_FREE(run->attacker);
    FGL_FREE(run->dropped);
    FGL_FREE(run->trained);
    FGL_FREE(run->lost);
    fgl__sa_free(run->sa);
    FGL_FREE(run->part);
    FGL_FREE(run->next);
    FGL_FREE(run->stats);
    FGL_FREE(run->client_val);
    FGL_FREE(run->client_test);
    FGL_FREE(run->client_loss);
    FGL_FREE(run->client_val_f1);
    FGL_FREE(run->client_test_f1);
    FGL_FREE(run->client_val_auc);
    FGL_FREE(run->client_test_auc);
    FGL_FREE(run->client_up);
    FGL_FREE(run->client_down);
    fgl__crypto_wipe(run->dp_key, sizeof run->dp_key); /* the server's DP key */
    memset(run, 0, sizeof *run);
}

/* --- runs: the start ----------------------------------------------------------------- */

/* Every client agrees with client 0 on the shared slices (names, shapes).
 * ref: client 0's model (built from its prepared spec); groups: the shared
 * ones; specs: every client's prepared spec, the layouts built from them
 * (a spec like the one before, or like client 0's, has its layout), or
 * NULL: the clients' models as the start built them. */
static int fgl__check_shared(fgl_run *run, const fgl_model *ref, unsigned groups, unsigned keep,
                             const fgl_model_spec *specs) {
    const fgl_params *a = &ref->params;
    int i, sa, sb;
    if (fgl_params_count_except(a, groups, keep) == 0)
        return fgl_error_set(&run->err, FGL_ERR_ARG, "%s: the shared groups%s select no parameters of client 0's model",
                             run->algo.name, keep ? " less those kept local" : "");
    for (i = 1; i < run->n_clients; i++) {
        const fgl_client *c = &run->clients[i];
        const fgl_params *b = &c->model.params;
        fgl_model tmp;
        int built = 0, rc = FGL_OK;
        if (specs || !c->local) { /* not built (hosted elsewhere): its layout from its spec */
            const fgl_model_spec *sp = specs ? &specs[i] : &c->model.spec;
            if (!memcmp(sp, &ref->spec, sizeof *sp) || (specs && !memcmp(sp, &specs[i - 1], sizeof *sp))) continue;
            if ((rc = fgl_model_init(&tmp, sp, 0, &run->err))) return rc;
            b = &tmp.params;
            built = 1;
        }
        sa = sb = 0;
        for (;;) {
            while (sa < a->n && !fgl_slice_selected(&a->slices[a->order[sa]], groups, keep)) sa++;
            while (sb < b->n && !fgl_slice_selected(&b->slices[b->order[sb]], groups, keep)) sb++;
            if (sa == a->n || sb == b->n) break;
            {
                const fgl_slice *x = &a->slices[a->order[sa]], *y = &b->slices[b->order[sb]];
                if (strcmp(x->name, y->name) || x->rows != y->rows || x->cols != y->cols) {
                    rc = fgl_error_set(&run->err, FGL_ERR_SHAPE,
                                       "%s: clients 0 and %d differ on shared parameter '%s' (%dx%d) vs '%s' (%dx%d); "
                                       "share fewer groups (e.g. share=conv) or give them the same model",
                                       run->algo.name, i, x->name, x->rows, x->cols, y->name, y->rows, y->cols);
                    break;
                }
            }
            sa++;
            sb++;
        }
        if (!rc && (sa != a->n || sb != b->n))
            rc = fgl_error_set(&run->err, FGL_ERR_SHAPE, "%s: clients 0 and %d share a different number of parameters",
                               run->algo.name, i);
        if (built) fgl_model_free(&tmp);
        if (rc) return rc;
    }
    return FGL_OK;
}

/* A model holding only spec (what the width functions read). */
static fgl_model fgl__spec_model(const fgl_model_spec *spec) {
    fgl_model m;
    memset(&m, 0, sizeof m);
    m.spec = *spec;
    return m;
}

/* The size rules' values; widths the messages use must agree across
 * clients. ref: client 0's model (its prepared spec), share: the shared
 * groups; specs: every client's prepared spec, or NULL: the clients' models. */
static int fgl__resolve_dims(fgl_run *run, const fgl_model *ref, unsigned share, unsigned keep,
                             const fgl_model_spec *specs, fgl__dims *d) {
    const fgl_algo *a = &run->algo;
    int i, p, uses_rep = 0, uses_emb = 0, uses_input = 0;
    fgl_model m0 = fgl__spec_model(specs ? &specs[0] : &run->clients[0].model.spec);
    memset(d, 0, sizeof *d);
    if (share) { /* the shared layout, from client 0's prepared spec */
        const fgl_params *ps = &ref->params;
        for (i = 0; i < ps->n; i++)
            if (fgl_slice_selected(&ps->slices[i], share, keep)) {
                d->shared += fgl_slice_size(&ps->slices[i]);
                if (ps->slices[i].trainable) d->trainable += fgl_slice_size(&ps->slices[i]);
            }
    }
    d->clients = (size_t)run->n_clients;
    d->rep = (size_t)fgl_model_rep_dim(&m0);
    d->emb = (size_t)fgl_model_emb_dim(&m0);
    d->hops = (size_t)m0.spec.layers;
    d->input = (size_t)m0.spec.in_dim;
    d->param = run->set.value;
    d->n_params = a->n_params;
    for (i = 0; i < run->n_clients; i++) {
        const fgl_model_spec *s = specs ? &specs[i] : &run->clients[i].model.spec;
        if ((size_t)s->out_dim > d->classes) d->classes = (size_t)s->out_dim;
        if ((size_t)s->layers < d->hops) d->hops = (size_t)s->layers;
    }
    d->hops += 1; /* hops 0..H */
    for (p = 0; p < a->n_up + a->n_down; p++) {
        const fgl_part *q = p < a->n_up ? &a->up[p] : &a->down[p - a->n_up];
        int k, rule[2];
        uses_rep |= q->rows == FGL_DIM_REP || q->cols == FGL_DIM_REP;
        uses_emb |= q->rows == FGL_DIM_EMB || q->cols == FGL_DIM_EMB;
        uses_input |= q->rows == FGL_DIM_INPUT || q->cols == FGL_DIM_INPUT;
        if (p >= a->n_up && fgl__per_client(q) && q->from)
            return fgl_error_set(&run->err, FGL_ERR_ARG, "%s: download part '%s' is sized by the client's nodes; "
                                 "such a part is written by the download hook, not sent from a server buffer",
                                 a->name, q->name);
        rule[0] = q->rows;
        rule[1] = q->cols;
        for (k = 0; k < 2; k++) {
            int pi = FGL__DIM_PARAM0 - rule[k];
            double v;
            if (rule[k] > FGL__DIM_PARAM0) continue;
            if (pi >= a->n_params || a->params[pi].type != FGL_PARAM_INT)
                return fgl_error_set(&run->err, FGL_ERR_ARG, "%s: part '%s' is sized by an unknown parameter", a->name,
                                     q->name);
            v = run->set.value[pi];
            if (!(v >= 1 && v <= 2147483647.0))
                return fgl_error_set(&run->err, FGL_ERR_ARG,
                                     "%s: part '%s' is sized by parameter %s = %g; it must be a "
                                     "positive integer",
                                     a->name, q->name, a->params[pi].name, v);
        }
    }
    for (i = 1; i < run->n_clients; i++) {
        fgl_model mi = fgl__spec_model(specs ? &specs[i] : &run->clients[i].model.spec);
        const fgl_model *m = &mi;
        if (uses_rep && (size_t)fgl_model_rep_dim(m) != d->rep)
            return fgl_error_set(
                &run->err, FGL_ERR_SHAPE,
                "%s: client %d represents samples in %d dimensions, client 0 in %zu; the messages need "
                "one width (give the models the same hidden size)",
                a->name, i, fgl_model_rep_dim(m), d->rep);
        if (uses_emb && (size_t)fgl_model_emb_dim(m) != d->emb)
            return fgl_error_set(&run->err, FGL_ERR_SHAPE, "%s: client %d embeds in %d dimensions, client 0 in %zu",
                                 a->name, i, fgl_model_emb_dim(m), d->emb);
        if (uses_input && (size_t)m->spec.in_dim != d->input)
            return fgl_error_set(&run->err, FGL_ERR_SHAPE, "%s: client %d has %d input features, client 0 %zu; the "
                                 "messages need one width", a->name, i, m->spec.in_dim, d->input);
    }
    return FGL_OK;
}

/* The error of a parameter read but not declared (fgl_get), or FGL_OK. */
static int fgl__unknown_param(fgl_run *run) {
    if (!run->unknown_param[0]) return FGL_OK;
    return fgl_error_set(&run->err, FGL_ERR_ARG, "%s reads the parameter '%s', which it does not declare "
                         "(fgl_algo_param_add; its parameters are what --help lists)", run->algo.name, run->unknown_param);
}

/* 1 when a program replaced a built-in table's init hook on one side
 * (server or client) but kept other hooks of the built-in there, which
 * read the built-in's typed state (FGL_STATE), and its init made none (it
 * did not call the built-in's): the run is then refused at its start
 * rather than the built-in's hooks reading no state. */
static int fgl__state_missing(const fgl_run *run, int server, const fgl_store *st) {
    const fgl_algo *a = &run->algo, *o = a->origin;
    int kept;
    if (!o || st->state) return FGL_OK;
    if (server) {
        if (!o->server_init || a->server_init == o->server_init) return FGL_OK;
        kept = (a->aggregate && a->aggregate == o->aggregate) || (a->download && a->download == o->download);
    } else {
        if (!o->client_init || a->client_init == o->client_init) return FGL_OK;
        kept = (a->receive && a->receive == o->receive) || (a->local_train && a->local_train == o->local_train) ||
               (a->train.loss && a->train.loss == o->train.loss) || (a->train.grad && a->train.grad == o->train.grad) ||
               (a->train.after_step && a->train.after_step == o->train.after_step) ||
               (a->upload && a->upload == o->upload) || (a->eval_model && a->eval_model == o->eval_model) ||
               (a->eval_scores && a->eval_scores == o->eval_scores);
    }
    return kept;
}

/* Run a client hook and reset the client's scratch memory after it. */
static int fgl__client_hook(fgl_client *c, int (*hook)(fgl_client *)) {
    int rc = hook ? hook(c) : FGL_OK;
    fgl_tape_reset(&c->store.scratch);
    if (!rc && c->store.err.code) rc = c->store.err.code;
    if (rc && !c->err.code && c->store.err.code) /* what the hook did with its state: the store's message */
        return fgl_client_fail(c, c->store.err.code, "%s %s", c->algo ? c->algo->name : "the algorithm",
                               c->store.err.msg);
    if (!rc && c->set && c->set->unknown && c->set->unknown[0])
        return fgl_client_fail(c, FGL_ERR_ARG, "%s reads the parameter '%s', which it does not declare "
                               "(fgl_algo_param_add)", c->algo ? c->algo->name : "the algorithm", c->set->unknown);
    if (rc && !c->err.code) fgl_client_fail(c, rc, "%s", fgl_result_name(rc));
    return rc;
}

static int fgl__client_error(fgl_run *run, const fgl_client *c, const char *when) {
    return fgl_error_set(&run->err, c->err.code ? c->err.code : FGL_ERR_ARG, "%s, round %d, client %d (%s): %s",
                         run->algo.name, run->round + 1, c->id, when, c->err.msg);
}

static int fgl__server_error(fgl_run *run, int rc, const char *when) {
    fgl_server *s = &run->server;
    if (!s->err.code && s->store.err.code) /* what the hook did with its state: the store's message */
        fgl_server_fail(s, s->store.err.code, "%s %s", run->algo.name, s->store.err.msg);
    if (!s->err.code) s->err.code = rc;
    return fgl_error_set(&run->err, s->err.code, "%s, round %d, server (%s): %s", run->algo.name, run->round + 1, when,
                         s->err.msg[0] ? s->err.msg : fgl_result_name(s->err.code));
}

/* Build the downloads of clients ids[0..n) (the coming round's
 * participants) from the server's state; count their bytes when `count`. */
static int fgl__build_downloads(fgl_run *run, const int *ids, int n, int count) {
    fgl_server *s = &run->server;
    const fgl_algo *a = &run->algo;
    size_t bytes = 0;
    int q, i, p, rc;
    for (q = 0; q < n; q++) { /* the coming round's participants: nothing is sent to the others */
        fgl_msg *m = &run->down[i = ids[q]];
        m->decl = a->down;
        m->n_parts = a->n_down;
        fgl__msg_clear(m);
        for (p = 0; p < a->n_down; p++) {
            const fgl_part *d = &a->down[p];
            fgl__entry *e;
            size_t need = s->down_len[p] * (d->flags & FGL_PART_ROW ? (size_t)run->n_clients : 1);
            if (!d->from) continue;
            e = fgl__store_find(&s->store, d->from, FGL__E_FLOATS);
            if (!e || e->n != need)
                return fgl_server_fail(s, FGL_ERR_SHAPE,
                                       "download part '%s': server buffer '%s' %s (%zu floats, %zu needed)", d->name,
                                       d->from, e ? "has another size" : "does not exist", e ? e->n : 0, need);
            m->part[p] = (const float *)e->p + (d->flags & FGL_PART_ROW ? (size_t)i * s->down_len[p] : 0);
            m->len[p] = s->down_len[p];
        }
        if (a->download && ((rc = a->download(s, i, m)) || (rc = s->store.err.code))) {
            fgl_tape_reset(&s->store.scratch);
            if (s->store.err.code)
                return fgl_server_fail(s, s->store.err.code, "download of client %d: %s %s", i, a->name,
                                       s->store.err.msg);
            return fgl_server_fail(s, rc, "download of client %d: %s", i, fgl_result_name(rc));
        }
        fgl_tape_reset(&s->store.scratch);
        for (p = 0; p < a->n_down; p++)
            if (!m->part[p] && !(a->down[p].flags & FGL_PART_OPTIONAL))
                return fgl_server_fail(s, FGL_ERR_ARG, "download of client %d lacks part '%s'", i, a->down[p].name);
        if (count && !run->lost[i]) { /* a lost client's host is not sent anything */
            size_t b = fgl_msg_bytes(m);
            bytes += b;
            run->client_down[(size_t)run->round * run->n_clients + i] += b;
        }
    }
    if (count) {
        run->bytes_down += bytes;
        run->stats[run->round].bytes_down += bytes;
    }
    fgl__downs_built(run, ids, n); /* the checksums of parts sent whole (intact.h) */
    return FGL_OK;
}

/* --- runs: downloads received, defences armed, fgl_run_start ---------------------- */

/* Client side of a download: check it against the declaration, load the
 * model parts, call the receive hook. */
static void fgl__receive(fgl_run *run, fgl_client *c, int call_hook) {
    const fgl_msg *m = &run->down[c->id];
    int p;
    if (call_hook && (p = fgl__unpark(run, c)) != FGL_OK) {
        fgl_client_fail(c, p, "cannot restore its packed state (%s)", fgl_result_name(p));
        return;
    }
    if (call_hook) /* the parameters change: an upload part viewing them ends (the server has read it) */
        for (p = 0; p < FGL_MSG_MAX_PARTS; p++)
            if (c->up.part[p] && c->up.part[p] != c->up.own[p]) {
                c->up.part[p] = NULL;
                c->up.len[p] = 0;
            }
    c->down = *m; /* a view: the client reads, never frees */
    memset(c->down.own, 0, sizeof c->down.own);
    memset(c->down.cap, 0, sizeof c->down.cap);
    for (p = 0; p < m->n_parts; p++) {
        if (!m->part[p]) continue;
        if (m->len[p] != c->down_len[p]) {
            fgl_client_fail(c, FGL_ERR_SHAPE, "download part '%s' has %zu floats, expected %zu", m->decl[p].name,
                            m->len[p], c->down_len[p]);
            return;
        }
        if (call_hook && m->decl[p].kind == FGL_SEND_MODEL) fgl_client_unpack(c, &c->model.params, m->part[p]);
    }
    if (run->intact.user_hooks & FGL__HOOKS_DOWN) fgl__down_sums(run, c, c->down_sum); /* as received (intact.h) */
    if (call_hook && !fgl__client_hook(c, run->algo.receive) && (run->intact.user_hooks & FGL__HOOK_RECEIVE))
        fgl__down_intact(run, c, "the receive hook");
}

static void fgl__trim_idle(fgl_run *run, const int *coming, int n); /* (stages.h) */
static int fgl__memory_check(fgl_run *run, const fgl_model_spec *specs); /* (budget.h) */
static int fgl__defences_check(fgl_run *run);                             /* (refusals.h) */
static int fgl__draw(fgl_run *run, int round);                            /* (stages.h) */
static int fgl__broadcast(fgl_run *run);
static void fgl__part_advance(fgl_run *run);

/* Client side: the local ones among clients ids[0..n) apply their
 * downloads. */
static int fgl__phase_receive(fgl_run *run, const int *ids, int n) {
    int q;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(FGL__NTHREADS_FOR(run, n))
#endif
    for (q = 0; q < n; q++)
        if (run->clients[ids[q]].local) fgl__receive(run, &run->clients[ids[q]], 1);
    for (q = 0; q < n; q++)
        if (run->clients[ids[q]].err.code) return fgl__client_error(run, &run->clients[ids[q]], "receive");
    return FGL_OK;
}

/* The run's plug-ins at the start (src/fed/plugins/): checked
 * (fgl__defences_check), then each one's state (DP's key, the attackers
 * and their random streams: checkpointed). */
static int fgl__defences_start(fgl_run *run) {
    fgl__plugin p;
    int i, rc;
    if ((rc = fgl__defences_check(run))) return rc;
    for (i = 0; fgl__plugin_get(i, &p); i++)
        if (p.start && fgl__plugin_on(run, &p) && (rc = p.start(run))) return rc;
    return FGL_OK;
}

/* The declared sizes of a client's messages. */
static void fgl__client_sizes(fgl_run *run, fgl_client *c, const fgl__dims *dims) {
    fgl__dims d = *dims;
    int p;
    d.nodes = (size_t)run->n_nodes[c->id];
    for (p = 0; p < run->algo.n_up; p++) {
        c->up_len[p] = fgl__part_size(&d, &run->algo.up[p]);
        run->up_len_of[(size_t)c->id * FGL_MSG_MAX_PARTS + p] = c->up_len[p];
    }
    for (p = 0; p < run->algo.n_down; p++) c->down_len[p] = fgl__part_size(&d, &run->algo.down[p]);
    c->up.decl = run->algo.up;
    c->up.n_parts = run->algo.n_up;
    fgl__dims_fill(&d, c->dim);
}

/* Client i's model spec as the algorithm prepares it (prepare_spec:
 * FedStar's decoupled model, FED-PUB's masks ...), from the spec it was
 * given. The hook is also the algorithm's check of the client's task and
 * model: its refusal names the client. */
static int fgl__prepared_spec(fgl_run *run, int i, fgl_model_spec *spec) {
    int rc;
    *spec = run->clients[i].spec;
    if (!run->algo.prepare_spec || !(rc = run->algo.prepare_spec(&run->set, spec, &run->err))) return FGL_OK;
    {
        char msg[FGL_ERROR_MSG_LEN]; /* say whose model */
        const fgl_client *c = &run->clients[i];
        const char *what = c->task == FGL_TASK_NODE    ? "node classification"
                           : c->task == FGL_TASK_LINK ? "link prediction"
                                                      : "graph classification";
        const char *name = c->data.node ? c->data.node->name : c->data.graphs ? c->data.graphs->name : "";
        size_t nl = strlen(run->algo.name);
        snprintf(msg, sizeof msg, "%s", run->err.msg);
        return fgl_error_set(&run->err, rc, "%s%s%s (client %d: %s data%s%s, model %s)",
                             strncmp(msg, run->algo.name, nl) == 0 && msg[nl] == ':' ? "" : run->algo.name,
                             strncmp(msg, run->algo.name, nl) == 0 && msg[nl] == ':' ? "" : ": ", msg, i, what,
                             *name ? " " : "", name, fgl_arch_name(spec->arch));
    }
}

/* A link-prediction run (src/gnn/link.h) has no classes: an algorithm that
 * exchanges something per class (prototypes, class counts: a message part
 * sized by FGL_DIM_CLASSES) is refused by name (the label-flipping attack
 * refuses such a run in its plug-in's check). Algorithms that train
 * through the loss hook and send weights run unchanged; those whose own checks refuse the task (prepare_spec: FedStar,
 * GPFL, pFedGNN) say so themselves. */
static int fgl__link_check(fgl_run *run) {
    const fgl_algo *a = &run->algo;
    int q;
    for (q = 0; q < a->n_up + a->n_down; q++) {
        const fgl_part *p = q < a->n_up ? &a->up[q] : &a->down[q - a->n_up];
        if (p->rows == FGL_DIM_CLASSES || p->cols == FGL_DIM_CLASSES)
            return fgl_error_set(&run->err, FGL_ERR_ARG,
                                 "%s: not for link prediction: it exchanges per-class data (its %s part '%s' is sized "
                                 "by the classes), and a link task has no classes",
                                 a->name, q < a->n_up ? "upload" : "download", p->name);
    }
    return FGL_OK; /* (the label-flipping attack refuses link tasks itself: plugins/attack.h) */
}

/* fgl_run_check's checks (full) or fgl_run_init's (those that do not
 * depend on the parameters), in run->err. */
static int fgl__run_check(fgl_run *run, int full) {
    fgl_model_spec *specs;
    fgl_model ref;
    fgl__dims dims;
    int i, rc, weights = fgl_algo_shares_weights(&run->algo);
    unsigned share = weights ? fgl__share_of(&run->algo, run->set.value) : 0u;
    unsigned keep = weights ? fgl__keep_of(&run->algo, run->set.value) : 0u;
    if (!run->clients) return fgl_error_set(&run->err, FGL_ERR_ARG, "run: not initialised");
    fgl_settings_fill(&run->set); /* (the values as set, however they were: prepare_spec reads them) */
    if ((rc = fgl__config_check(&run->cfg, &run->err))) return rc;
    if (run->clients[0].task == FGL_TASK_LINK && (rc = fgl__link_check(run))) return rc;
    specs = (fgl_model_spec *)FGL_MALLOC(sizeof(fgl_model_spec) * (size_t)run->n_clients);
    if (!specs) return fgl_error_set(&run->err, FGL_ERR_NOMEM, "run: out of memory");
    for (i = 0; i < run->n_clients && !rc; i++)
        if (!(rc = fgl__prepared_spec(run, i, &specs[i])) && (rc = fgl_model_spec_check(&specs[i], &run->err))) {
            char msg[FGL_ERROR_MSG_LEN];
            snprintf(msg, sizeof msg, "%s", run->err.msg);
            fgl_error_set(&run->err, rc, "%s: client %d's model as %s prepares it: %s", run->algo.name, i,
                          run->algo.name, msg);
        }
    if (!rc) rc = fgl__defences_check(run);
    if (!rc) rc = fgl__memory_check(run, specs);
    if (!rc && full) {
        if (!(rc = fgl_model_init(&ref, &specs[0], run->cfg.seed, &run->err))) {
            if (weights) rc = fgl__check_shared(run, &ref, share, keep, specs);
            if (!rc) rc = fgl__resolve_dims(run, &ref, share, keep, specs, &dims);
            fgl_model_free(&ref);
        }
    }
    FGL_FREE(specs);
    return rc;
}

FGLDEF int fgl_run_check(fgl_run *run) { return run->started ? FGL_OK : fgl__run_check(run, 1); }

FGLDEF int fgl_run_start(fgl_run *run) {
    fgl_server *s = &run->server;
    fgl__dims dims;
    int i, p, rc, weights = fgl_algo_shares_weights(&run->algo), idle_parks = run->cfg.park_idle && run->cfg.frac < 1;
    unsigned share = weights ? fgl__share_of(&run->algo, run->set.value) : 0u;
    unsigned keep = weights ? fgl__keep_of(&run->algo, run->set.value) : 0u;
    if (run->started) return FGL_OK;
    if (!run->clients) return fgl_error_set(&run->err, FGL_ERR_ARG, "run: not initialised");
    fgl_settings_fill(&run->set); /* (the values as set, however they were) */
    if ((rc = fgl__run_check(run, 1))) return rc; /* every refusal before anything is built */
    run->t_start = fgl_now();
    run->intact.user_hooks = fgl__user_hooks(&run->algo); /* what the runtime checks (src/fed/intact.h) */
    for (i = 0; i < run->n_clients; i++) {
        fgl_client *c = &run->clients[i];
        fgl_model_spec spec;
        fgl_node_data *node = c->data.node;
        fgl_graph_set *graphs = c->data.graphs;
        c->fed = &run->cfg;
        c->set = &run->set;
        c->algo = &run->algo;
        c->share = share;
        c->keep = keep;
        if ((rc = fgl__prepared_spec(run, i, &spec))) return rc;
        /* the server's view of the setup: the common initial model (client 0's) */
        if (i == 0 && (rc = fgl_model_init(&run->ref, &spec, run->cfg.seed, &run->err))) return rc;
        if (!c->local) { /* hosted elsewhere: only the prepared spec is known here */
            c->model.spec = spec;
            continue;
        }
        if ((rc = fgl_model_init(&c->model, &spec, run->cfg.seed, &run->err))) return rc;
        if (c->task == FGL_TASK_LINK) {
            const fgl_link_split *link = c->data.link;
            if ((rc = fgl_view_init_link(&c->data, node, link, &spec, &run->err))) return rc;
        } else if ((rc = fgl_view_init(&c->data, node, graphs, &spec, run->cfg.eval_batch, &run->err))) {
            return rc;
        }
        if ((rc = fgl_optim_init(&c->optim, run->cfg.optim, &c->model.params)) || (rc = fgl__client_spans(c)))
            return fgl_error_set(&run->err, rc, "client %d: out of memory", i);
        /* what every client has, checkpointed with the algorithm's state */
        fgl__store_add(&c->store, "model", FGL__E_MODEL, &c->model, 0, 0);
        fgl__store_add(&c->store, "optim", FGL__E_OPTIM, &c->optim, 0, 0);
        fgl__store_add(&c->store, "rng", FGL__E_RNG, &c->rng, 0, 0);
        if (c->task == FGL_TASK_GRAPH) /* graph clients reshuffle their training order in place */
            fgl__store_add(&c->store, "train_order", FGL__E_INTS, c->data.ids[FGL_SPLIT_TRAIN],
                           (size_t)c->data.count[FGL_SPLIT_TRAIN], 0);
        if (c->store.err.code) return fgl_error_set(&run->err, c->store.err.code, "client %d: out of memory", i);
        if (idle_parks) fgl__park(run, c); /* all are idle until the first draw */
    }
    s->n_clients = run->n_clients;
    s->fed = &run->cfg;
    s->set = &run->set;
    s->algo = &run->algo;
    s->share = share;
    s->keep = keep;
    s->init = &run->ref.params;
    s->spec = &run->ref.spec;
    s->n_registered = run->n_registered;
    s->n_nodes = run->n_nodes;
    s->pub = run->pub;
    s->up_len_of = run->up_len_of;
    s->up = run->up_view;
    s->down = run->down;
    /* (the shared layouts were checked before anything was built: fgl__run_check) */
    if ((rc = fgl__resolve_dims(run, &run->ref, share, keep, NULL, &dims))) return rc;
    s->n_shared = dims.shared;
    s->n_trainable = dims.trainable;
    for (p = 0; p < run->algo.n_up; p++) s->up_len[p] = fgl__part_size(&dims, &run->algo.up[p]);
    for (p = 0; p < run->algo.n_down; p++) s->down_len[p] = fgl__part_size(&dims, &run->algo.down[p]);
    fgl__dims_fill(&dims, s->dim);
    for (i = 0; i < run->n_clients; i++) fgl__client_sizes(run, &run->clients[i], &dims);
    fgl__store_add(&s->store, "rng", FGL__E_RNG, &s->rng, 0, 0);
    s->dropped = run->dropped;
    s->dp_key = run->dp_key;
    if ((rc = fgl__defences_start(run))) return rc;
    run->started = 1;
    if (run->role != FGL__ROLE_CLIENTS && run->algo.server_init) {
        rc = run->algo.server_init(s);
        fgl_tape_reset(&s->store.scratch);
        if (rc || s->store.err.code) return fgl__server_error(run, rc ? rc : s->store.err.code, "initialisation");
    }
    for (i = 0; i < run->n_clients; i++) {
        fgl_client *c = &run->clients[i];
        if (!c->local || !run->algo.client_init) continue;
        if ((rc = fgl__unpark(run, c)))
            return fgl_error_set(&run->err, rc, "client %d: cannot restore its packed state (%s)", i,
                                 fgl_result_name(rc));
        if (fgl__client_hook(c, run->algo.client_init)) return fgl__client_error(run, c, "initialisation");
        if (idle_parks) fgl__park(run, c);
    }
    if ((rc = fgl__unknown_param(run))) return rc; /* read by a spec, size or init hook */
    for (i = -1; i < run->n_clients; i++) { /* the typed state the kept hooks of a built-in read (server: -1) */
        const fgl_store *st = i < 0 ? &s->store : &run->clients[i].store;
        if ((i < 0 ? run->role == FGL__ROLE_CLIENTS : !run->clients[i].local) || !fgl__state_missing(run, i < 0, st))
            continue;
        return fgl_error_set(&run->err, FGL_ERR_ARG, "%s: its %s replaces %s's, whose other %s hooks it keeps read "
                             "the state %s's init makes (FGL_NEW_STATE): call %s's %s from its own", run->algo.name,
                             i < 0 ? "server_init" : "client_init", run->algo.origin->name, i < 0 ? "server" : "client",
                             run->algo.origin->name, run->algo.origin->name, i < 0 ? "server_init" : "client_init");
    }
    if (run->role == FGL__ROLE_CLIENTS) return FGL_OK; /* the first downloads come from the server */
    /* round 1's participants and their downloads: the last two stages of a round (stages.h) */
    if ((rc = fgl__draw(run, 0)) || (rc = fgl__broadcast(run)) || (rc = fgl__unknown_param(run))) return rc;
    fgl__part_advance(run);
    fgl__trim_idle(run, run->part, run->n_part);
    return run->transport ? run->transport->start(run) : FGL_OK;
}

/* --- runs: rounds ----------------------------------------------------------------------- */

/* 1 if round r (0-based) is evaluated. */
static int fgl__evaluated(const fgl_run *run, int r) {
    return run->cfg.eval_every <= 1 || (r + 1) % run->cfg.eval_every == 0 || r + 1 == run->cfg.rounds;
}

/* Validation and test accuracy of the model a client deploys. */
/* The accuracy of class scores (n x C) on the nodes of mask with a label:
 * 0 when it has none, as fgl_model_evaluate and the model path below (a
 * client without validation or test nodes, as a small Louvain community on
 * a dataset's fixed split can be, is no failed evaluation; -1 meant that,
 * and stopped such a run with an empty reason). */
static double fgl__scores_accuracy(const float *sc, int n, int C, const int *y, const unsigned char *mask) {
    int i, k, hit = 0, count = 0;
    for (i = 0; i < n; i++) {
        const float *r = sc + (size_t)i * (size_t)C;
        int best = 0;
        if ((mask && !mask[i]) || y[i] < 0) continue;
        for (k = 1; k < C; k++)
            if (r[k] > r[best]) best = k;
        hit += best == y[i];
        count++;
    }
    return count ? (double)hit / count : 0.0;
}

static void fgl__client_evaluate(fgl_run *run, fgl_client *c) {
    fgl_model *m;
    static const int which[2] = {FGL_SPLIT_VAL, FGL_SPLIT_TEST};
    double acc[2], hits[2] = {NAN, NAN}, f1[2] = {NAN, NAN}, auc[2] = {NAN, NAN}; /* NaN unless computed */
    if (run->algo.eval_scores && c->data.task == FGL_TASK_NODE && c->data.node) {
        const float *sc = fgl__eval_scores(run, c); /* checked: intact.h */
        if (sc) {
            int q, C = c->model.spec.out_dim;
            for (q = 0; q < 2; q++) {
                acc[q] = fgl__scores_accuracy(sc, c->data.node->n_nodes, C, c->data.node->y, c->data.mask[which[q]]);
                if (fgl_class_metrics(sc, c->data.node->n_nodes, C, c->data.node->y, c->data.mask[which[q]], f1 + q,
                                      auc + q)) {
                    acc[q] = -1; /* out of memory: a failed evaluation, with its reason */
                    fgl_tape_fail(&c->tape, FGL_ERR_NOMEM, "out of memory for the class metrics");
                }
            }
            c->val_acc = acc[0];
            c->test_acc = acc[1];
            c->val_hits = c->test_hits = NAN;
            c->val_f1 = f1[0];
            c->test_f1 = f1[1];
            c->val_auc = auc[0];
            c->test_auc = auc[1];
            return;
        }
    }
    m = run->algo.eval_model ? fgl__eval_model(run, c) : &c->model; /* checked: intact.h */
    if (!m || fgl_view_class_metrics(&c->data, m, &c->tape, which, 2, acc, hits, f1, auc)) acc[0] = acc[1] = -1;
    c->val_acc = acc[0]; /* link tasks: NaN for a split without pairs */
    c->test_acc = acc[1];
    c->val_hits = hits[0];
    c->test_hits = hits[1];
    c->val_f1 = f1[0];
    c->test_f1 = f1[1];
    c->val_auc = auc[0];
    c->test_auc = auc[1];
}

/* Train, then build the upload: the runtime's parts, then the algorithm's. */
static int fgl__client_round(fgl_run *run, fgl_client *c) {
    const fgl_algo *a = &run->algo;
    int p, rc;
    c->err.code = 0;
    c->err.msg[0] = 0;
    c->round = run->round;
    fgl__msg_clear(&c->up);
    if ((rc = fgl__unpark(run, c)))
        return fgl_client_fail(c, rc, "cannot restore its packed state (%s)", fgl_result_name(rc));
    rc = a->local_train ? fgl__client_hook(c, a->local_train) : fgl_client_train(c, &c->model, &c->optim, &a->train);
    if (rc || c->err.code) return c->err.code ? c->err.code : rc;
    if ((run->intact.user_hooks & FGL__HOOK_TRAIN) &&
        (rc = fgl__down_intact(run, c, a->local_train ? "the local_train hook" : "a training hook")))
        return rc;
    for (p = 0; p < a->n_up; p++) {
        const fgl_part *d = &a->up[p];
        float *x;
        if (d->kind == FGL_SEND_DATA && (d->flags & FGL_PART_OPTIONAL)) continue; /* allocated by fgl_up */
        if (d->kind == FGL_SEND_MODEL && c->n_span == 1 && c->span[0].len == c->up_len[p]) {
            /* the shared groups are one run of the parameters: the part views
             * them, nothing is copied unless something writes it (fgl_up,
             * attacks, DP, secure aggregation: fgl__msg_write) */
            c->up.part[p] = c->model.params.data + c->span[0].offset;
            c->up.len[p] = c->up_len[p];
            continue;
        }
        if (!(x = fgl__msg_own(&c->up, p, c->up_len[p]))) return fgl_client_fail(c, FGL_ERR_NOMEM, "out of memory");
        if (d->kind == FGL_SEND_MODEL || d->kind == FGL_SEND_DELTA) fgl_client_pack(c, &c->model.params, x);
        if (d->kind == FGL_SEND_DELTA) {
            const float *r = fgl_received(c);
            size_t j;
            if (!r) return fgl_client_fail(c, FGL_ERR_ARG, "upload part '%s': no model was received", d->name);
            for (j = 0; j < c->up_len[p]; j++) x[j] -= r[j];
        }
        if (d->kind == FGL_SEND_WEIGHT) x[0] = (float)c->n_train;
    }
    if (fgl__client_hook(c, a->upload)) return c->err.code;
    if ((run->intact.user_hooks & FGL__HOOK_UPLOAD) && (rc = fgl__down_intact(run, c, "the upload hook"))) return rc;
    FGL__PLUGINS_CALL(run, upload, (run, c)); /* the plug-ins' changes: an attack, DP's clip, secure
                                                 aggregation's masks (src/fed/plugins/) */
    fgl_tape_reset(&c->store.scratch);
    if (run->cfg.eval_after_train && fgl__evaluated(run, run->round)) fgl__client_evaluate(run, c);
    return FGL_OK;
}

#include "../alone.h"
