#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* The two sides                                                            */
/* ------------------------------------------------------------------------ */

/* A run of contiguous shared floats: at offset in the model's parameters,
 * at `packed` in the shared vector (what FGL_SEND_MODEL carries), and, if
 * trainable, at `trained` in the vector of trainable shared floats. */
typedef struct fgl_span {
    size_t offset, packed, trained, len;
    int trainable;
} fgl_span;

struct fgl_client {
    int id, task;
    int round;                   /* the round being run (0-based) */
    const fgl_fed_config *fed;   /* the run's configuration */
    const fgl_settings *set;     /* the algorithm's parameters */
    const fgl_algo *algo;
    unsigned share;              /* shared groups (0 when no weights travel) */
    unsigned keep;               /* groups kept local: a slice is shared if it meets share and misses keep */
    fgl_span *span;              /* the shared floats of the model, in memory order */
    int n_span;
    size_t n_shared, n_trainable;
    int n_train, n_val, n_test;  /* samples (nodes or graphs) */
    fgl_view data;               /* its train / val / test batches */
    fgl_model_spec spec;         /* the spec it brought (model.spec: as the algorithm prepared it) */
    fgl_model model;
    fgl_optim optim;
    fgl_rng rng;
    fgl_tape tape;
    fgl_msg up;                  /* this round's upload */
    fgl_msg down;                /* the last download, as received (read-only: see fgl_down) */
    uint64_t down_sum[FGL_MSG_MAX_PARTS];   /* runtime-private: checksums of its parts when received */
    size_t up_len[FGL_MSG_MAX_PARTS], down_len[FGL_MSG_MAX_PARTS];   /* declared sizes in this run */
    size_t dim[FGL_DIM_RULES];   /* dim[-rule]: the size rules' values (fgl_client_dim) */
    int steps;                   /* optimizer steps of the last local training */
    double train_loss;           /* mean loss of the last local training */
    int attacker;                /* a simulated attacker (cfg.attack) */
    int local;                   /* hosted by this process (a transport may host some clients elsewhere) */
    size_t parked_len;           /* cfg.park_idle: > 0 while its state is packed (runtime-owned): */
    unsigned char *parked;       /*   in memory here, or (NULL) in the run's park file at */
    size_t park_off, park_cap;   /*   park_off, in a slot of park_cap bytes it reuses, */
    uint64_t park_sum;           /*   checked against this checksum when read back */
    int wire_error;              /* its upload arrived malformed over a transport: rejected */
    uint64_t data_sum;           /* a checksum of its data (checkpoint fingerprints) */
    double val_acc, test_acc;    /* latest evaluation: accuracy, or a link task's AUC */
    double val_hits, test_hits;  /* link tasks: the latest Hits@K (else NaN) */
    double val_f1, test_f1;      /* node and graph tasks: the latest macro-F1 (fgl_class_metrics; else NaN) */
    double val_auc, test_auc;    /* two-class node and graph tasks: the latest ROC-AUC (else NaN) */
    fgl_store store;             /* the algorithm's client state */
    struct fgl__sa_client *sa;   /* secure aggregation: this round's secrets (runtime-private, never saved) */
    fgl_error err;               /* its first error in the round (code and message: fgl_client_fail) */
};

struct fgl_server {
    int n_clients, round;
    const fgl_fed_config *fed;
    const fgl_settings *set;
    const fgl_algo *algo;
    unsigned share, keep;        /* shared groups, groups kept local (as fgl_client's) */
    size_t n_shared, n_trainable;
    const fgl_params *init;      /* the common initial model (client 0's spec, the run seed) */
    const fgl_model_spec *spec;  /* its spec (as the algorithm prepared it): a server that runs the clients'
                                    models (FedTAD's distillation) builds them from it */
    const int *n_registered;     /* training samples each client registered at the start */
    const int *n_nodes;          /* nodes each client holds (what FGL_DIM_NODES means for it) */
    const fgl_node_data *pub;    /* public data the server holds (fgl_run_set_public), or NULL */
    const size_t *up_len_of;     /* K x FGL_MSG_MAX_PARTS: each client's declared upload sizes */
    const fgl_msg *const *up;    /* up[i]: client i's accepted upload this round, or NULL */
    int n_accepted;
    fgl_msg *down;               /* down[i]: built by the runtime (and the download hook) */
    size_t up_len[FGL_MSG_MAX_PARTS], down_len[FGL_MSG_MAX_PARTS];   /* declared sizes in this run (0: the
                                                                        size depends on the client, see
                                                                        fgl_upload_size) */
    size_t dim[FGL_DIM_RULES];   /* dim[-rule]: the size rules' values (fgl_server_dim) */
    fgl_rng rng;                 /* server randomness (participation) */
    fgl_store store;             /* the algorithm's server state */
    const unsigned char *dropped;   /* secure aggregation: clients that dropped out this round */
    const uint32_t *secagg_sum;  /* secure aggregation: the round's unmasked sum in the fixed-point ring
                                    (secagg_len values, then the weight), or NULL when the round was not
                                    unmasked; fgl_server_mean decodes it */
    size_t secagg_len;
    const unsigned char *dp_key; /* DP: the server's secret noise key (runtime-private; the server is the
                                    party that adds the noise) */
    const float *dp_release[FGL_MSG_MAX_PARTS];   /* DP: this round's noised mean of each model or delta
                                                     upload part, computed by the runtime before the
                                                     aggregate hook, which fgl_server_mean hands out
                                                     (runtime-private) */
    unsigned char dp_taken[FGL_MSG_MAX_PARTS];    /* DP: the hook took part p's release this round */
    int n_clipped;               /* this round's updates clipped by the NORMCLIP rule */
    int n_fallback;              /* this round's robust aggregations with too few accepted uploads for the
                                    rule's parameter, which fell back (fgl_server_mix: "Too few uploads") */
    fgl_error err;               /* its first error in the round (code and message: fgl_server_fail) */
};

/* Client side. The part called name of this round's upload (allocated with
 * its declared size for the upload hook to write; a model part is copied out
 * of the parameters it views) and of the last download (NULL when absent).
 * fgl_up_drop leaves an optional part out this round. The download is
 * read-only: in one process its parts are views of the server's buffers
 * (one buffer for every client that gets the same part), over MPI a copy;
 * the runtime checks after the receive hook, the local training and the
 * upload hook that it is as it was sent, and fails the run (naming the
 * client and the hook) if a hook wrote into it. Read it in the round it
 * came (receive, training, upload, and the evaluation that follows): in
 * one process a view then goes on showing the server's buffer as later
 * rounds change it, while a client that sits those rounds out has
 * received nothing; what an evaluation in a later round needs is copied
 * into the store on receive (FGGP keeps its prototype table so). */
FGLDEF float *fgl_up(fgl_client *c, const char *name);
FGLDEF void fgl_up_drop(fgl_client *c, const char *name);
FGLDEF const float *fgl_down(const fgl_client *c, const char *name);
/* A writable copy of download part `name` (its declared size), private to
 * the client, for a hook that wants to change what it received: temporary
 * memory (fgl_scratch: until the hook returns; a training hook's, until the
 * training ends), so a checkpoint never needs it; fgl_down and fgl_received still
 * give the part as received. What must last (a corrected reference kept
 * from receive to training) goes into the client's store (fgl_new_floats
 * in client_init), which is checkpointed. NULL when the part is absent,
 * and on OOM (recorded on c). */
FGLDEF float *fgl_down_copy(fgl_client *c, const char *name);
/* The floats upload part `name` holds as declared (its size rule's value for
 * c in this run), written or not. A name the algorithm does not declare: 0,
 * and FGL_ERR_ARG recorded on c (fgl_client_fail) with the name. */
FGLDEF size_t fgl_up_size(fgl_client *c, const char *name);
/* The shared groups as received (the download's model part), or NULL; and
 * the received values of the parameter at `offset` in c's model (NULL if it
 * is not shared). */
FGLDEF const float *fgl_received(const fgl_client *c);
FGLDEF const float *fgl_received_at(const fgl_client *c, size_t offset);
/* Pack / unpack the shared groups of c's model (n_shared floats). */
FGLDEF void fgl_client_pack(const fgl_client *c, const fgl_params *ps, float *out);
FGLDEF void fgl_client_unpack(const fgl_client *c, fgl_params *ps, const float *in);
/* The standard local training loop: cfg.local_epochs epochs over the
 * training batches (full graph for node tasks, shuffled mini-batches for
 * graph tasks) minimising the task's loss (fgl_view_loss: cross-entropy, or
 * a link task's binary cross-entropy) + hooks->loss on model m with
 * optimizer o. */
FGLDEF int fgl_client_train(fgl_client *c, fgl_model *m, fgl_optim *o, const fgl_train_hooks *hooks);
/* Record an error on a client (the first wins); returns code. */
FGLDEF int fgl_client_fail(fgl_client *c, int code, const char *fmt, ...) FGL__PRINTF(3, 4);
/* What a size rule (FGL_DIM_CLASSES, FGL_DIM_REP, FGL_DIM_HOPS, ...) means
 * in this run, as a client and the server see it; a positive count is
 * itself, a parameter's rule (fgl_algo_param_dim) the parameter's value. */
FGLDEF size_t fgl_client_dim(const fgl_client *c, int rule);
FGLDEF size_t fgl_server_dim(const fgl_server *s, int rule);
/* g += mu (theta - theta_received) on the trainable shared floats of ps
 * (c's model or one of its layout): the gradient of mu/2 ||theta - theta_received||^2. */
FGLDEF void fgl_client_prox_grad(const fgl_client *c, fgl_params *ps, float mu);

/* Server side. Client i's accepted upload part (NULL if the upload is
 * absent or rejected, or the part absent). */
FGLDEF const float *fgl_upload(const fgl_server *s, int client, const char *name);
/* Pack the shared part (s->share less s->keep) of a model of the run's
 * layout, e.g. s->init, into n_shared floats, as a model part carries it. */
FGLDEF void fgl_server_pack(const fgl_server *s, const fgl_params *ps, float *out);
/* In a server init hook, the server's models as a round 1 starts them: a
 * new state buffer `name` holding the shared part of the common initial
 * model (s->init, packed), once ("one global model", n_shared floats) or
 * once for each client (K rows: "a model per client"). NULL on failure
 * (the store records it). */
FGLDEF float *fgl_server_global(fgl_server *s, const char *name);
FGLDEF float *fgl_server_per_client(fgl_server *s, const char *name);
/* The floats part `name` of client i's upload holds when sent (its declared
 * size for that client: FGL_DIM_NODES differs between clients). */
FGLDEF size_t fgl_upload_size(const fgl_server *s, int client, const char *name);
/* The floats upload part `name` holds, the same for every client, or 0 when
 * its size depends on the client (then fgl_upload_size gives each one's);
 * and the floats download part `name` holds. A name the algorithm does not
 * declare: 0, and FGL_ERR_ARG recorded on s (fgl_server_fail) with the name. */
FGLDEF size_t fgl_server_up_size(fgl_server *s, const char *name);
FGLDEF size_t fgl_server_down_size(fgl_server *s, const char *name);
/* The download part of client i to write (download hook), sized by its
 * declaration (a part sized by FGL_DIM_NODES: by client i's nodes); NULL on OOM. */
FGLDEF float *fgl_download_part(fgl_server *s, int client, const char *name);
/* out = sum_i w_i up_i / sum_i w_i over the accepted uploads, w_i the
 * upload's FGL_SEND_WEIGHT part (equal weights without one). FGL_ERR_EMPTY
 * (out untouched) if nothing was accepted. Sums in double, client order.
 * For a part that carries model weights, cfg.robust, cfg.dp and cfg.secagg
 * replace the mean: a robust rule is fgl_server_mix's with one row of equal
 * weights (MEDIAN, TRIMMED, KRUM, MULTIKRUM: unweighted, as published) or of
 * the sample counts (NORMCLIP), falling back as fgl_server_mix says when too
 * few uploads were accepted; DP adds noise to the equal-weight mean of the
 * clipped updates; secure aggregation decodes the masked sum. */
FGLDEF int fgl_server_mean(fgl_server *s, const char *part, float *out);
/* The same with equal weights whatever the declaration. */
FGLDEF int fgl_server_plain_mean(fgl_server *s, const char *part, float *out);
/* Personalised mixing: out row i (K x n, n the part's size) = the mean of
 * the sources weighted by row i of w (K x K, w[i K + j] the weight of client
 * j in row i), for the rows with rows[i] != 0 (rows NULL: all). Source j is
 * client j's accepted upload of the part, else row j of held (K x n, NULL:
 * none): a model the algorithm kept from an earlier round (FedAMP keeps the
 * latest of every client). A nonzero weight on a client with neither is an
 * error; out must not overlap held.
 * With cfg.robust.rule MEAN (or a part that carries no model weights) this is
 * fgl_mix_rows of the sources, bit for bit: sum_j w_ij x_j as given, not
 * renormalised. With a robust rule, row i applies the rule with its weights
 * (which must be >= 0), renormalised over the sources the rule keeps:
 *   MEDIAN    the weighted median per coordinate among the sources of nonzero
 *             weight (the midpoint where the cumulative weight is exactly
 *             half, so equal weights give the plain median);
 *   TRIMMED   per coordinate, the trim largest and trim smallest of those
 *             sources dropped, the weighted mean of the rest (a row with
 *             n <= 2 trim such sources drops (n - 1) / 2 at each end, the
 *             most that leaves one: with equal weights their median, with
 *             n <= 2 their weighted mean);
 *   KRUM, MULTIKRUM  the uploads selected by their Krum scores over the
 *             round's accepted uploads' updates (f, m as fgl_server_mean);
 *             row i is their mean under row i's weights (equal weights if
 *             the row puts none on them); KRUM selects one;
 *   NORMCLIP  each upload's update clipped to norm clip, then row i's
 *             weighted mean (each clipped upload counted once per call in
 *             s->n_clipped, whatever the number of rows; FED-PUB, which also
 *             takes fgl_server_mean of the same part, counts them there only).
 * An update is the upload minus the model part of the download the client
 * received (s->down), as in fgl_server_mean. Held rows take part in MEDIAN
 * and TRIMMED as values; KRUM, MULTIKRUM and NORMCLIP measure updates, which
 * a held row no longer has (its reference is gone), so they leave held rows
 * out; a row that weighs held rows only (a client keeping its own model)
 * gets their weighted mean. DP and secure aggregation are not defined for
 * mixtures: FGL_ERR_ARG (fgl_algo.mixes refuses them at the start of a
 * run).
 * Too few uploads: rejections (and dropouts, lost hosts) never make a rule
 * fail. With m accepted uploads, TRIMMED with 2 trim >= m trims as above
 * ((m - 1) / 2: their median, or with m <= 2 their mean); KRUM and
 * MULTIKRUM with m <= 2 f + 2 (outside Krum's guarantee) take the largest
 * f with m > 2 f + 2 and keep at most m - f uploads, and with m < 3 (no
 * scores) keep every upload: their mean. Each such aggregation adds one
 * to s->n_fallback (the round's fallbacks: fgl_round_stats.n_fallback).
 * With nothing accepted a robust rule returns FGL_ERR_EMPTY and leaves out
 * untouched (the algorithms keep their models that round). fgl_run_start refuses parameters that even a
 * round without rejections cannot support (2 trim >= participants;
 * participants <= 2 f + 2; m > participants - f).
 * FGL_OK also when no row is selected; FGL_ERR_ARG on a bad weight. Sums
 * in double in client order (KRUM: in selection order; every upload kept:
 * client order). */
FGLDEF int fgl_server_mix(fgl_server *s, const char *part, const float *held, const double *w, float *out,
                          const unsigned char *rows);
/* fgl_server_mix with two options, the defences acting as there.
 * div (K doubles, NULL: none) divides source j by div[j] > 0 and leaves it
 * out where div[j] <= 0, whatever its weight: pFedGraph's
 * u_i = sum_j a_ij theta_j / ||theta_j||. A rule judges the sources as sent
 * (KRUM, MULTIKRUM: their updates; NORMCLIP clips the update, then divides)
 * and averages the divided ones (MEDIAN, TRIMMED: orders them). count_clips
 * 0: NORMCLIP's clips are not added to s->n_clipped, nor a fallback to
 * s->n_fallback (another mixture or mean of the same part this round counts
 * them: FED-PUB, pFedGraph); 1 as fgl_server_mix. fgl_server_mix(s, part, held, w, out, rows) is
 * fgl_server_mix_div(s, part, held, w, NULL, out, rows, 1). An unknown part:
 * FGL_ERR_ARG, with the message on s. */
FGLDEF int fgl_server_mix_div(fgl_server *s, const char *part, const float *held, const double *w, const double *div,
                              float *out, const unsigned char *rows, int count_clips);
/* Copy each accepted upload's part into row i of dst (K x len); has[i]
 * (may be NULL) becomes 1 for those rows. Returns the number copied, or
 * FGL_ERR_SHAPE for a part whose size differs between clients. The same
 * parts make fgl_server_mean fail with FGL_ERR_SHAPE. */
FGLDEF int fgl_server_gather(fgl_server *s, const char *part, float *dst, int *has);
FGLDEF int fgl_server_fail(fgl_server *s, int code, const char *fmt, ...) FGL__PRINTF(3, 4);
/* out row i = sum_j w[i K + j] src row j (rows of n floats) for the rows i
 * with rows[i] != 0 (rows NULL: all); zero weights skip their row; sums in
 * double in client order. */
FGLDEF int fgl_mix_rows(int K, const double *w, const float *src, size_t n, float *out, const unsigned char *rows);

/* fgl:implementation */
#include "../alone.h"
/* --- the client side ---------------------------------------------------------------- */

FGLDEF int fgl_client_fail(fgl_client *c, int code, const char *fmt, ...) {
    if (!c->err.code) {
        va_list ap;
        c->err.code = code;
        va_start(ap, fmt);
        vsnprintf(c->err.msg, sizeof c->err.msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

FGLDEF float *fgl_up(fgl_client *c, const char *name) {
    int p = fgl_msg_find(&c->up, name);
    FGL_ASSERT(p >= 0); /* a declared part */
    if (p < 0) return NULL;
    if (c->up.part[p] ? !fgl__msg_write(&c->up, p)
                      : !fgl__msg_own(&c->up, p, c->up_len[p])) { /* an optional part: allocated when written */
        fgl_client_fail(c, FGL_ERR_NOMEM, "upload part '%s': out of memory for %zu floats", name, c->up_len[p]);
        return NULL;
    }
    return c->up.own[p]; /* the part is its own storage now */
}

FGLDEF void fgl_up_drop(fgl_client *c, const char *name) {
    int p = fgl_msg_find(&c->up, name);
    FGL_ASSERT(p >= 0 && (c->up.decl[p].flags & FGL_PART_OPTIONAL));
    if (p < 0) return;
    FGL_FREE(c->up.own[p]); /* a large one-off part does not stay allocated */
    c->up.own[p] = NULL;
    c->up.cap[p] = 0;
    c->up.part[p] = NULL;
    c->up.len[p] = 0;
}

FGLDEF size_t fgl_up_size(fgl_client *c, const char *name) {
    int q;
    for (q = 0; name && q < c->algo->n_up; q++)
        if (strcmp(c->algo->up[q].name, name) == 0) return c->up_len[q];
    fgl_client_fail(c, FGL_ERR_ARG, "%s uploads no part '%s'", c->algo->name, name ? name : "(null)");
    return 0;
}

FGLDEF const float *fgl_down(const fgl_client *c, const char *name) {
    int p = fgl_msg_find(&c->down, name);
    FGL_ASSERT(p >= 0 || c->down.n_parts == 0);
    return p >= 0 ? c->down.part[p] : NULL;
}

FGLDEF float *fgl_down_copy(fgl_client *c, const char *name) {
    const float *x = fgl_down(c, name);
    int p = fgl_msg_find(&c->down, name);
    float *copy;
    if (!x || p < 0) return NULL;
    if (!(copy = (float *)fgl_scratch(&c->store, sizeof(float) * FGL__MAX(c->down.len[p], 1)))) {
        fgl_client_fail(c, FGL_ERR_NOMEM, "download part '%s': out of memory for a copy of %zu floats", name,
                        c->down.len[p]);
        return NULL;
    }
    memcpy(copy, x, sizeof(float) * c->down.len[p]);
    return copy;
}

FGLDEF const float *fgl_received(const fgl_client *c) {
    int p;
    for (p = 0; p < c->down.n_parts; p++)
        if (c->down.decl[p].kind == FGL_SEND_MODEL) return c->down.part[p];
    return NULL;
}

FGLDEF const float *fgl_received_at(const fgl_client *c, size_t offset) {
    const float *r = fgl_received(c);
    int k;
    for (k = 0; r && k < c->n_span; k++)
        if (offset >= c->span[k].offset && offset < c->span[k].offset + c->span[k].len)
            return r + c->span[k].packed + (offset - c->span[k].offset);
    return NULL;
}

FGLDEF void fgl_client_pack(const fgl_client *c, const fgl_params *ps, float *out) {
    int k;
    for (k = 0; k < c->n_span; k++)
        memcpy(out + c->span[k].packed, ps->data + c->span[k].offset, sizeof(float) * c->span[k].len);
}

FGLDEF void fgl_client_unpack(const fgl_client *c, fgl_params *ps, const float *in) {
    int k;
    for (k = 0; k < c->n_span; k++)
        memcpy(ps->data + c->span[k].offset, in + c->span[k].packed, sizeof(float) * c->span[k].len);
}

FGLDEF void fgl_server_pack(const fgl_server *s, const fgl_params *ps, float *out) {
    fgl_params_pack_except(ps, s->share, s->keep, out);
}

FGLDEF float *fgl_server_global(fgl_server *s, const char *name) {
    float *g = fgl_new_floats(&s->store, name, s->n_shared);
    if (g) fgl_server_pack(s, s->init, g);
    return g;
}

FGLDEF float *fgl_server_per_client(fgl_server *s, const char *name) {
    float *theta = fgl_new_floats(&s->store, name, (size_t)s->n_clients * s->n_shared);
    int i;
    for (i = 0; theta && i < s->n_clients; i++) fgl_server_pack(s, s->init, theta + (size_t)i * s->n_shared);
    return theta;
}

FGLDEF void fgl_client_prox_grad(const fgl_client *c, fgl_params *ps, float mu) {
    const float *w0 = fgl_received(c);
    size_t j;
    int k;
    if (!w0 || mu == 0) return;
    for (k = 0; k < c->n_span; k++) {
        const fgl_span *sp = &c->span[k];
        float *g = ps->grad + sp->offset;
        const float *w = ps->data + sp->offset, *r = w0 + sp->packed;
        if (!sp->trainable) continue;
        for (j = 0; j < sp->len; j++) g[j] += mu * (w[j] - r[j]);
    }
}

/* The shared floats of a model as spans: runs of contiguous memory split
 * where trainability changes. */
static int fgl__client_spans(fgl_client *c) {
    const fgl_params *ps = &c->model.params;
    size_t packed = 0, trained = 0;
    int i, n = 0;
    FGL_FREE(c->span);
    c->span = (fgl_span *)FGL_MALLOC(sizeof(fgl_span) * (size_t)FGL__MAX(ps->n, 1));
    if (!c->span) return FGL_ERR_NOMEM;
    for (i = 0; i < ps->n && c->share; i++) {
        const fgl_slice *s = &ps->slices[ps->order[i]];
        size_t len = fgl_slice_size(s);
        if (!fgl_slice_selected(s, c->share, c->keep)) continue;
        if (n > 0 && c->span[n - 1].offset + c->span[n - 1].len == s->offset &&
            c->span[n - 1].trainable == s->trainable) {
            c->span[n - 1].len += len;
        } else {
            c->span[n].offset = s->offset;
            c->span[n].packed = packed;
            c->span[n].trained = trained;
            c->span[n].len = len;
            c->span[n].trainable = s->trainable;
            n++;
        }
        packed += len;
        if (s->trainable) trained += len;
    }
    c->n_span = n;
    c->n_shared = packed;
    c->n_trainable = trained;
    return FGL_OK;
}

/* One optimisation step on one batch. */
static int fgl__train_step(fgl_client *c, fgl_model *m, fgl_optim *o, const fgl_train_hooks *h, const fgl_view_batch *b,
                           int epoch, double *loss_sum) {
    fgl_tape *t = &c->tape;
    fgl_forward fw;
    fgl_node *loss;
    fgl_step st;
    int rc;
    fgl_tape_reset(t);
    fgl_params_defer_zero_grad(&m->params); /* the backward pass writes them */
    fgl_model_forward(m, t, b->g, 1, &c->rng, &fw);
    if (c->attacker && c->fed->attack.kind == FGL_ATTACK_LABELFLIP && fw.logits && b->labels) { /* trains on C-1-y */
        int i, C = fw.logits->cols, *y = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)FGL__MAX(fw.logits->rows, 1));
        if (!y) return fgl_client_fail(c, FGL_ERR_NOMEM, "out of memory");
        for (i = 0; i < fw.logits->rows; i++)
            y[i] = b->labels[i] >= 0 && b->labels[i] < C ? C - 1 - b->labels[i] : b->labels[i];
        loss = fgl_view_loss(&c->data, m, t, &fw, b, y, &c->rng);
    } else { /* the task's loss: cross-entropy, or a link task's BCE with fresh negatives */
        loss = fgl_view_loss(&c->data, m, t, &fw, b, NULL, &c->rng);
    }
    st.t = t;
    st.model = m;
    st.g = b->g;
    st.fwd = &fw;
    st.labels = b->labels;
    st.mask = b->mask;
    st.epoch = epoch;
    st.index = c->steps;
    if (loss && h && h->loss) {
        fgl_node *extra = h->loss(c, &st);
        if (c->err.code) return c->err.code;
        if (extra) loss = fgl_op_add(t, loss, extra);
    }
    if (fgl_tape_backward(t, loss)) return fgl_client_fail(c, t->err.code, "%s", t->err.msg);
    *loss_sum += loss->val[0];
    if (h && h->grad && (rc = h->grad(c, &st))) return fgl_client_fail(c, rc, "gradient hook: %s", fgl_result_name(rc));
    if (c->err.code) return c->err.code;
    fgl_optim_step(o, &m->params);
    if (h && h->after_step && (rc = h->after_step(c, &st)))
        return fgl_client_fail(c, rc, "step hook: %s", fgl_result_name(rc));
    c->steps++;
    return c->err.code;
}

FGLDEF int fgl_client_train(fgl_client *c, fgl_model *m, fgl_optim *o, const fgl_train_hooks *h) {
    double loss_sum = 0;
    int e, rc = FGL_OK, n_steps = 0;
    int B = c->fed->batch_size > 0 ? c->fed->batch_size : c->n_train;
    c->steps = 0;
    if (c->fed->reset_optim) fgl_optim_reset(o);
    for (e = 0; e < c->fed->local_epochs && !rc; e++) {
        fgl_view_iter it;
        fgl_view_batch b;
        fgl_error err;
        fgl_view_shuffle(&c->data, FGL_SPLIT_TRAIN, &c->rng);
        fgl_view_begin(&c->data, FGL_SPLIT_TRAIN, B, &it);
        while (!rc && (rc = fgl_view_next(&it, &b, &err)) > 0) {
            rc = fgl__train_step(c, m, o, h, &b, e, &loss_sum);
            n_steps++;
        }
        if (rc < 0 && !c->err.code) fgl_client_fail(c, rc, "%s", err.msg);
        fgl_view_end(&it);
    }
    c->train_loss = n_steps ? loss_sum / n_steps : 0.0;
    return rc < 0 ? rc : FGL_OK;
}

/* --- the server side ------------------------------------------------------------- */

FGLDEF int fgl_server_fail(fgl_server *s, int code, const char *fmt, ...) {
    if (!s->err.code) {
        va_list ap;
        s->err.code = code;
        va_start(ap, fmt);
        vsnprintf(s->err.msg, sizeof s->err.msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

FGLDEF const float *fgl_upload(const fgl_server *s, int client, const char *name) {
    const fgl_msg *m;
    int p;
    if (client < 0 || client >= s->n_clients || !(m = s->up[client])) return NULL;
    p = fgl_msg_find(m, name);
    FGL_ASSERT(p >= 0);
    if (p >= 0 && s->fed->secagg.on && (m->decl[p].kind == FGL_SEND_MODEL || m->decl[p].kind == FGL_SEND_WEIGHT))
        return NULL; /* masked: the server sees only the sum (fgl_server_mean) */
    return p >= 0 ? m->part[p] : NULL;
}

FGLDEF size_t fgl_upload_size(const fgl_server *s, int client, const char *name) {
    int q;
    for (q = 0; q < s->algo->n_up; q++)
        if (strcmp(s->algo->up[q].name, name) == 0) break;
    FGL_ASSERT(q < s->algo->n_up); /* a declared part */
    if (q == s->algo->n_up || client < 0 || client >= s->n_clients) return 0;
    return s->up_len_of[(size_t)client * FGL_MSG_MAX_PARTS + q];
}

FGLDEF size_t fgl_server_up_size(fgl_server *s, const char *name) {
    int q;
    for (q = 0; name && q < s->algo->n_up; q++)
        if (strcmp(s->algo->up[q].name, name) == 0) return s->up_len[q];
    fgl_server_fail(s, FGL_ERR_ARG, "%s uploads no part '%s'", s->algo->name, name ? name : "(null)");
    return 0;
}

FGLDEF size_t fgl_server_down_size(fgl_server *s, const char *name) {
    int q;
    for (q = 0; name && q < s->algo->n_down; q++)
        if (strcmp(s->algo->down[q].name, name) == 0) return s->down_len[q];
    fgl_server_fail(s, FGL_ERR_ARG, "%s downloads no part '%s'", s->algo->name, name ? name : "(null)");
    return 0;
}

FGLDEF float *fgl_download_part(fgl_server *s, int client, const char *name) {
    fgl_msg *m = &s->down[client];
    int p = fgl_msg_find(m, name);
    size_t n;
    FGL_ASSERT(p >= 0 && !m->decl[p].from); /* a part the download hook writes */
    if (p < 0) return NULL;
    n = s->down_len[p];
    if (fgl__per_client(&m->decl[p])) { /* sized by the client's nodes (FedGCN's halo) */
        const fgl_part *d = &m->decl[p];
        size_t nodes = (size_t)s->n_nodes[client];
        n = (d->rows == FGL_DIM_NODES ? nodes : fgl_server_dim(s, d->rows)) *
            (d->cols == FGL_DIM_NODES ? nodes : fgl_server_dim(s, d->cols));
    }
    return fgl__msg_own(m, p, n);
}

/* The weight of client i's accepted upload: its FGL_SEND_WEIGHT part, or 1. */
static double fgl__upload_weight(const fgl_msg *m, int equal) {
    int p;
    if (equal) return 1.0;
    for (p = 0; p < m->n_parts; p++)
        if (m->decl[p].kind == FGL_SEND_WEIGHT && m->part[p]) return m->part[p][0];
    return 1.0;
}

static int fgl__server_mean(fgl_server *s, const char *part, float *out, int equal) {
    double wsum = 0, *acc;
    size_t j, n = 0;
    int i, p = -1;
    if (s->fed->dp.clip > 0 || s->fed->secagg.on) { /* the hook sees no upload: the runtime's mean of the part */
        const char *priv = s->fed->dp.clip > 0 ? "differential privacy" : "secure aggregation";
        for (p = 0; p < s->algo->n_up && strcmp(s->algo->up[p].name, part) != 0; p++) continue;
        if (p == s->algo->n_up) return fgl_server_fail(s, FGL_ERR_ARG, "%s uploads no part '%s'", s->algo->name, part);
        if (!fgl__weights_part(&s->algo->up[p]))
            return fgl_server_fail(s, FGL_ERR_ARG, "%s: no mean of '%s' is released (it carries no model weights)",
                                   priv, part);
        if (s->fed->secagg.on) return fgl__defended_mean(s, p, out, s->up_len[p]);
        if (!s->dp_release[p])
            return fgl_server_fail(s, FGL_ERR_ARG, "differential privacy: the noised mean of '%s' exists during the "
                                   "aggregate hook only", part);
        memcpy(out, s->dp_release[p], sizeof(float) * s->up_len[p]);
        s->dp_taken[p] = 1;
        return FGL_OK;
    }
    for (i = 0; i < s->n_clients && p < 0; i++)
        if (s->up[i]) p = fgl_msg_find(s->up[i], part);
    if (p < 0) return FGL_ERR_EMPTY;
    if (fgl__per_client(&s->algo->up[p])) return FGL_ERR_SHAPE; /* sizes differ between clients */
    for (i = 0; i < s->n_clients; i++)
        if (s->up[i] && s->up[i]->part[p]) n = s->up[i]->len[p];
    if (fgl__weights_part(&s->algo->up[p]) && s->fed->robust.rule != FGL_ROBUST_MEAN)
        return fgl__defended_mean(s, p, out, n);
    acc = (double *)fgl_scratch(&s->store, sizeof(double) * FGL__MAX(n, 1));
    if (!acc) return FGL_ERR_NOMEM;
    for (i = 0; i < s->n_clients; i++) {
        const fgl_msg *m = s->up[i];
        if (m && m->part[p] && m->len[p] == n) wsum += fgl__upload_weight(m, equal);
    }
    if (!(wsum > 0)) return FGL_ERR_EMPTY;
    {   /* pieces of the vector in parallel; in each, the clients in their
         * fixed order: deterministic sums at any thread count */
        long ch, n_ch = (long)((n + 16383) / 16384);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) private(i, j) num_threads(fgl__threads_elem(n))
#endif
        for (ch = 0; ch < n_ch; ch++) {
            size_t lo = (size_t)ch * 16384, hi = FGL__MIN(n, lo + 16384);
            for (i = 0; i < s->n_clients; i++) {
                const fgl_msg *m = s->up[i];
                double w;
                if (!m || !m->part[p] || m->len[p] != n) continue;
                w = fgl__upload_weight(m, equal);
                for (j = lo; j < hi; j++) acc[j] += w * m->part[p][j];
            }
            for (j = lo; j < hi; j++) out[j] = (float)(acc[j] / wsum);
        }
    }
    return FGL_OK;
}

FGLDEF int fgl_server_mean(fgl_server *s, const char *part, float *out) { return fgl__server_mean(s, part, out, 0); }
FGLDEF int fgl_server_plain_mean(fgl_server *s, const char *part, float *out) {
    return fgl__server_mean(s, part, out, 1);
}

/* The index of the upload part called name in the declaration, or -1. */
static int fgl__up_part(const fgl_algo *a, const char *name) {
    int p;
    for (p = 0; p < a->n_up; p++)
        if (strcmp(a->up[p].name, name) == 0) return p;
    return -1;
}

FGLDEF int fgl_server_mix_div(fgl_server *s, const char *part, const float *held, const double *w, const double *div,
                              float *out, const unsigned char *rows, int count_clips) {
    int p = fgl__up_part(s->algo, part), i, any = 0;
    if (p < 0) return fgl_server_fail(s, FGL_ERR_ARG, "mixing: %s uploads no part '%s'", s->algo->name, part);
    if (s->fed->dp.clip > 0 || s->fed->secagg.on)
        return fgl_server_fail(s, FGL_ERR_ARG, "%s is not defined for personalised mixing (fgl_server_mix)",
                               s->fed->dp.clip > 0 ? "differential privacy" : "secure aggregation");
    for (i = 0; i < s->n_clients; i++) any |= !rows || rows[i];
    if (!any) return FGL_OK;
    return fgl__rule_mix(s, p, s->up_len[p], held, w, div, s->n_clients, out, rows, count_clips);
}

FGLDEF int fgl_server_mix(fgl_server *s, const char *part, const float *held, const double *w, float *out,
                          const unsigned char *rows) {
    return fgl_server_mix_div(s, part, held, w, NULL, out, rows, 1);
}

FGLDEF int fgl_server_gather(fgl_server *s, const char *part, float *dst, int *has) {
    int i, n = 0;
    for (i = 0; i < s->n_clients; i++) {
        const fgl_msg *m = s->up[i];
        int p;
        if (!m || (p = fgl_msg_find(m, part)) < 0) continue;
        if (fgl__per_client(&m->decl[p])) return FGL_ERR_SHAPE; /* rows of different sizes */
        if (!m->part[p]) continue;
        memcpy(dst + (size_t)i * m->len[p], m->part[p], sizeof(float) * m->len[p]);
        if (has) has[i] = 1;
        n++;
    }
    return n;
}

FGLDEF int fgl_mix_rows(int K, const double *w, const float *src, size_t n, float *out, const unsigned char *rows) {
    int i, j;
    size_t q;
    double *acc = (double *)FGL_MALLOC(sizeof(double) * FGL__MAX(n, 1));
    if (!acc) return FGL_ERR_NOMEM;
    for (i = 0; i < K; i++) {
        if (rows && !rows[i]) continue;
        memset(acc, 0, sizeof(double) * n);
        for (j = 0; j < K; j++) {
            double a = w[(size_t)i * K + j];
            const float *th = src + (size_t)j * n;
            if (a == 0) continue;
            for (q = 0; q < n; q++) acc[q] += a * th[q];
        }
        for (q = 0; q < n; q++) out[(size_t)i * n + q] = (float)acc[q];
    }
    FGL_FREE(acc);
    return FGL_OK;
}

#include "../alone.h"
