#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Configuration                                                            */
/* ------------------------------------------------------------------------ */

/* Defences, attacks and privacy (docs/algorithms.md, "Robust aggregation,
 * attacks and privacy"). They act on the message parts that carry model
 * weights (FGL_SEND_MODEL, FGL_SEND_DELTA), whose update is the part minus
 * what the client received (a delta is its own update), and the robust
 * rules, DP and secure aggregation replace the mean of such parts in
 * fgl_server_mean: every algorithm whose server averages them (FedAvg,
 * FedProx, FedPer, FedStar, Ditto, MOON, SCAFFOLD, a user's) gets them. The
 * robust rules also act in fgl_server_mix, the personalised mixtures of
 * FED-PUB, FedAMP, pFedGraph and pFedGNN (each row a weighted mean of the
 * uploads); DP and secure aggregation are refused for those and for GPFL.
 * GCFL's cluster means and GPFL's mixture of updates are computed by hand
 * and get none of them; FedPG, FedProto and FedTGP send no weights. */
enum {
    FGL_ROBUST_MEAN,      /* the sample-weighted mean (no defence) */
    FGL_ROBUST_MEDIAN,    /* coordinate-wise median (Yin et al. 2018) */
    FGL_ROBUST_TRIMMED,   /* coordinate-wise mean without the `trim` largest and smallest */
    FGL_ROBUST_KRUM,      /* the upload with the least sum of squared distances to its
                             K - f - 2 nearest others (Blanchard et al. 2017; its guarantee
                             needs K > 2 f + 2, checked when a run is set up: fgl_run_init) */
    FGL_ROBUST_MULTIKRUM, /* the mean of the m best-scored uploads (m <= K - f) */
    FGL_ROBUST_NORMCLIP   /* each update scaled to norm <= clip, then the mean (Sun et al. 2019) */
};

/* A round whose rejections leave too few uploads for trim or f does not
 * fail: the rule falls back and counts it (fgl_server_mix, "Too few
 * uploads"; fgl_round_stats.n_fallback). */
typedef struct fgl_robust_config {
    int rule;            /* FGL_ROBUST_* */
    int trim, f, m;      /* TRIMMED: per side; KRUM / MULTIKRUM: assumed attackers, uploads kept */
    float clip;          /* NORMCLIP: the norm bound */
    float screen;        /* reject (and charge) an upload whose update norm exceeds screen x the
                            median over the round's uploads (3 or more); 0: no screening */
} fgl_robust_config;

enum {
    FGL_ATTACK_NONE,
    FGL_ATTACK_SIGNFLIP,  /* update -> -arg x update (arg 1) */
    FGL_ATTACK_SCALE,     /* update -> arg x update */
    FGL_ATTACK_NOISE,     /* upload + N(0, arg^2) per value */
    FGL_ATTACK_LABELFLIP, /* trains on labels C - 1 - y */
    FGL_ATTACK_NAN,       /* NaN uploads */
    FGL_ATTACK_COUNT,     /* claims arg training samples */
    FGL_ATTACK_ALIE       /* colluding: mean - z std of the round's updates per coordinate,
                             z from the number of clients (Baruch et al. 2019) */
};

/* A simulated attack by a fraction of the clients (chosen from the run seed). */
typedef struct fgl_attack_config {
    int kind;            /* FGL_ATTACK_* */
    double arg;
    float frac;          /* share of the clients that attack */
} fgl_attack_config;

/* Client-level differential privacy, DP-FedAvg as McMahan et al. (2018)
 * define it: every round each client takes part independently with
 * probability q = frac (Poisson sampling, drawn from the run's secrets);
 * each participant's update (every model part it uploads, together) is
 * clipped to L2 norm clip (by the client, and again by the server, so that
 * the bound holds whatever a client sends); the server adds the clipped
 * updates, divides by the fixed q K (K the clients; never the uploads that
 * arrived), and adds Gaussian noise of standard deviation noise clip / (q K)
 * per value, drawn from the run's secrets (never from cfg.seed).
 * fgl_run_dp_epsilon gives the privacy spent: the Renyi DP of the sampled
 * Gaussian mechanism at rate q and multiplier noise. Refused (by fgl_run_init)
 * for an algorithm any of whose uploads would reach the models unclipped
 * or un-noised (a data part, FGL_PART_RAW, per-client mixing). */
typedef struct fgl_dp_config {
    float clip, noise;   /* clip > 0 turns it on; noise: the noise multiplier sigma */
    double delta;        /* the delta epsilon is reported at (1e-5) */
} fgl_dp_config;

/* Secure aggregation (Bonawitz et al. 2017), for an algorithm that uploads
 * its model and its sample count only (FedAvg-like). Every round each
 * participant makes two fresh X25519 key pairs and a self-mask seed from
 * the run's secrets; the server relays the public keys; each participant
 * splits its masking key and its self-mask seed t-of-n (Shamir) among the
 * others, the shares encrypted to each (ChaCha20-Poly1305 under their
 * X25519 shared key) and relayed by the server; each sends
 * (n_i / N) theta_i and n_i / N (N: the training samples all clients
 * registered) in a 32-bit fixed-point ring, plus its self-mask and plus or
 * minus one mask per peer (ChaCha20 streams keyed by the pair's X25519
 * secret), which cancel in the sum. When the uploads are in, the survivors
 * reveal, for each peer, its self-mask share if the peer's upload arrived
 * and its masking-key share if not, never both; with fewer than t survivors
 * the round is not unmasked (counted; the models stay) and the run goes on.
 * The server side sees public keys, encrypted shares, masked uploads,
 * revealed shares and the sum. The 32-bit ring must hold the SUM of the
 * round's n participants: a client one of whose weighted values (n_i / N) v
 * exceeds floor((2^31 - 1) / n) / 2^frac_bits in magnitude withholds its
 * upload (rejected, charged to it, and counted in
 * fgl_round_stats.n_out_of_range with its reason in the client's msg);
 * nothing wraps. */
typedef struct fgl_secagg_config {
    int on;
    int frac_bits;       /* fixed-point fraction bits (20) */
    float dropout;       /* probability that a participant drops out after masking (simulation) */
    int threshold;       /* t: survivors needed to unmask a round (0: a majority of the round's
                            participants, at least 2); otherwise more than half of a round's
                            participants and at most all of them (fgl__secagg_check) */
} fgl_secagg_config;

/* Where a run's secrets come from: secure aggregation's keys, self-masks
 * and share coins, DP's noise and participant draws. By default from the
 * operating system's entropy (each on its owner's side: a client's on its
 * host, the server's noise on the server), so that no record, checkpoint or
 * seed gives them away, and runs with DP are not repeatable bit for bit.
 * A simulation that must repeat may derive them from a secret seed instead;
 * whoever knows that seed can then remove the masks and the noise. Records
 * say which ("secrets": "os-entropy" or "reproducible"), never the seed. */
#define FGL_SECRETS_LABEL 256 /* bytes of fgl_secrets_config.label, its NUL included */
typedef struct fgl_secrets_config {
    int from_seed;       /* 0: the operating system's entropy; 1: derived from seed */
    uint64_t seed;
    /* With from_seed: the run's name among the runs that share the secret
     * seed (a NUL-terminated string, "" included; not secret: checkpoints
     * and transports carry it). The secrets are derived from the seed, the
     * run seed (cfg.seed) and this label, so runs that differ in either get
     * unrelated keys, masks and noise: give every run of one secret seed its
     * own label (fglrun: the algorithm, its parameters and the fold), and the
     * same label again to repeat a run. Two runs with one seed, one run seed
     * and one label share every secret: subtracting their masked uploads
     * gives the difference of their models. */
    char label[FGL_SECRETS_LABEL];
} fgl_secrets_config;

/* A plug-in that no field above turns on (src/fed/plugins/list.h: a
 * defence, an attack or a check added to fgl as one file and one line), by
 * its name, with one argument for it to read; name "" for none (the
 * default). fgl_run_init refuses a name the list does not have. */
#define FGL_PLUGIN_NAME 32 /* bytes of fgl_plugin_config.name, its NUL included */
typedef struct fgl_plugin_config {
    char name[FGL_PLUGIN_NAME];
    double arg;
} fgl_plugin_config;

/* Parse the command-line forms: "median", "trimmed:B", "krum:F",
 * "multikrum:F,M", "normclip:M", "mean"; "signflip[:L]", "scale:L",
 * "noise:S", "labelflip", "nan", "count:N", "alie", "none";
 * "clip=C,noise=Z[,delta=D]". */
FGLDEF int fgl_robust_parse(const char *s, fgl_robust_config *out, fgl_error *err);
FGLDEF const char *fgl_robust_name(int rule);
FGLDEF const char *fgl_attack_name(int kind);
FGLDEF int fgl_attack_parse(const char *s, fgl_attack_config *out, fgl_error *err);
FGLDEF int fgl_dp_parse(const char *s, fgl_dp_config *out, fgl_error *err);
/* "NAME" or "NAME:ARG" (ARG a number, 0 when absent). */
FGLDEF int fgl_plugin_parse(const char *s, fgl_plugin_config *out, fgl_error *err);

/* fgl_fed_config.metric */
enum { FGL_METRIC_ACC = 0, FGL_METRIC_F1 = 1, FGL_METRIC_AUC = 2 };

typedef struct fgl_fed_config {
    int rounds;             /* communication rounds */
    int local_epochs;       /* local epochs per round */
    int batch_size;         /* graph tasks: graphs per step (node tasks: full batch) */
    float frac;             /* fraction of clients sampled each round */
    uint64_t seed;          /* model initialisation and training randomness */
    fgl_optim_config optim; /* each client's optimizer */
    int reset_optim;        /* 1: optimizer state restarts every round (default: kept) */
    int threads;            /* OpenMP threads for the client loop (0: default) */
    int park_idle;          /* 1 (with frac < 1): a client out of the next round keeps
                               its models' parameters and optimizer moments packed
                               (a block of zeros, or of the run's initial model, takes
                               one byte) and gets them back, bit for bit, when it is
                               drawn, evaluated or checkpointed; its gradients are
                               freed and its tape's arena lent to the next client
                               that trains or evaluates. 2: the packed states go to a temporary
                               file (C's tmpfile(), gone when the run is freed), so
                               memory holds the active clients only. Results do not
                               change (fgl_run_unpark gives a caller an idle client's
                               state). Default 0 */
    double mem_limit;       /* bytes the run may need (0: this machine's memory, where it can be
                               told): a run whose models need more, by the lower bound
                               fgl_run_check computes before building any (every client's
                               parameters four times: values, gradients, two optimizer
                               moments; the widest client's activations), is refused */
    int eval_batch;         /* graph tasks: graphs per evaluation batch */
    int eval_after_train;   /* 1: evaluate a client right after its local training
                               (FED-PUB's code); 0: after it applies the server's
                               download (FedStar's code) */
    int eval_every;         /* evaluate every eval_every rounds and at the last (0, 1:
                               every round); rounds not evaluated record NaN and the
                               best-validation round is chosen among evaluated ones */
    int metric;             /* what picks the best-validation round (fgl_run_summarize): FGL_METRIC_ACC
                               (0, the default) the mean validation accuracy, FGL_METRIC_F1 the mean
                               macro-F1, FGL_METRIC_AUC the mean two-class ROC-AUC (every client's
                               model two outputs, node or graph tasks); the history keeps all three
                               (fgl_run.client_val_f1 ...). Not part of the training: a checkpoint
                               resumes under any */
    fgl_robust_config robust;   /* the server's mean and screening (default: mean, screen 100) */
    fgl_attack_config attack;   /* simulated attackers (default: none) */
    fgl_dp_config dp;           /* client-level DP (default: off) */
    fgl_secagg_config secagg;   /* secure aggregation (default: off) */
    fgl_secrets_config secrets; /* where DP and secure aggregation's secrets come from (default: entropy) */
    fgl_plugin_config plugin;   /* a plug-in by name (default: none) */
} fgl_fed_config;

/* Published protocol defaults (docs/algorithms.md, authors' code): node
 * tasks 100 rounds, Adam lr 0.01 wd 1e-6, evaluation after local training;
 * graph tasks 200 rounds, batch 128, Adam lr 1e-3 wd 5e-4, evaluation after
 * the download; 1 local epoch, all clients every round. */
FGLDEF fgl_fed_config fgl_fed_default(int task);
/* The name before the naming rule (README, "Names"), kept so that existing programs compile: */
#define fgl_fed_config_default fgl_fed_default

/* What one client brings: its data (exactly one of node / graphs, borrowed:
 * it must outlive the run) with FGL_SPLIT_* codes in node->split or
 * graphs->split, and its model spec. A link-prediction client (spec.task
 * FGL_TASK_LINK) brings node (features; no labels or split needed) and
 * link, the edge split of node's graph (fgl_link_split_make, borrowed);
 * link is read for such a spec only (other clients may leave it unset). */
typedef struct fgl_client_data {
    fgl_node_data *node;
    fgl_graph_set *graphs;
    fgl_model_spec spec;
    const fgl_link_split *link;
} fgl_client_data;

/* fgl:implementation */
#include "../alone.h"
/* The configuration's ranges (what fgl_run_init documents; run.h). */
static int fgl__config_check(const fgl_fed_config *c, fgl_error *err) {
    const fgl_optim_config *o = &c->optim;
    const fgl_robust_config *rb = &c->robust;
    if (c->rounds < 1) return fgl_error_set(err, FGL_ERR_ARG, "run: rounds %d: at least 1", c->rounds);
    if (c->local_epochs < 0)
        return fgl_error_set(err, FGL_ERR_ARG, "run: local_epochs %d: 0 or more", c->local_epochs);
    if (c->batch_size < 0 || c->eval_batch < 0)
        return fgl_error_set(err, FGL_ERR_ARG, "run: batch_size %d, eval_batch %d: 0 or more (0: the default)",
                             c->batch_size, c->eval_batch);
    if (!(c->frac > 0 && c->frac <= 1))
        return fgl_error_set(err, FGL_ERR_ARG, "run: frac %g: the fraction of clients per round is in (0, 1]",
                             (double)c->frac);
    if (o->kind != FGL_SGD && o->kind != FGL_ADAM && o->kind != FGL_ADAMW)
        return fgl_error_set(err, FGL_ERR_ARG, "run: optim.kind %d: FGL_SGD, FGL_ADAM or FGL_ADAMW", o->kind);
    if (!(o->lr > 0 && isfinite(o->lr)))
        return fgl_error_set(err, FGL_ERR_ARG, "run: learning rate (optim.lr) %g: a finite number > 0", (double)o->lr);
    if (!(o->weight_decay >= 0 && isfinite(o->weight_decay)) || !(o->momentum >= 0 && isfinite(o->momentum)) ||
        !(o->eps >= 0 && isfinite(o->eps)) || !(o->clip_norm >= 0 && isfinite(o->clip_norm)))
        return fgl_error_set(err, FGL_ERR_ARG,
                             "run: optim weight_decay %g, momentum %g, eps %g, clip_norm %g: finite numbers >= 0",
                             (double)o->weight_decay, (double)o->momentum, (double)o->eps, (double)o->clip_norm);
    if (!(o->beta1 >= 0 && o->beta1 < 1) || !(o->beta2 >= 0 && o->beta2 < 1))
        return fgl_error_set(err, FGL_ERR_ARG, "run: optim beta1 %g, beta2 %g: in [0, 1)", (double)o->beta1,
                             (double)o->beta2);
    if (c->metric < FGL_METRIC_ACC || c->metric > FGL_METRIC_AUC)
        return fgl_error_set(err, FGL_ERR_ARG, "run: metric %d: FGL_METRIC_ACC, FGL_METRIC_F1 or FGL_METRIC_AUC",
                             c->metric);
    if (c->threads < 0 || c->park_idle < 0 || c->park_idle > 2 || c->eval_every < 0)
        return fgl_error_set(err, FGL_ERR_ARG, "run: threads %d (>= 0), park_idle %d (0, 1 or 2), eval_every %d (>= 0)",
                             c->threads, c->park_idle, c->eval_every);
    if (rb->rule < FGL_ROBUST_MEAN || rb->rule > FGL_ROBUST_NORMCLIP || rb->trim < 0 || rb->f < 0 || rb->m < 0 ||
        !(rb->screen >= 0 && isfinite(rb->screen)) || (rb->rule == FGL_ROBUST_NORMCLIP && !(rb->clip > 0)))
        return fgl_error_set(err, FGL_ERR_ARG,
                             "run: robust rule %d, trim %d, f %d, m %d, clip %g, screen %g: a known rule, counts and "
                             "screen >= 0, clip > 0 for normclip",
                             rb->rule, rb->trim, rb->f, rb->m, (double)rb->clip, (double)rb->screen);
    if (c->attack.kind < FGL_ATTACK_NONE || c->attack.kind > FGL_ATTACK_ALIE ||
        !(c->attack.frac >= 0 && c->attack.frac <= 1) || !isfinite(c->attack.arg))
        return fgl_error_set(err, FGL_ERR_ARG,
                             "run: attack %d, fraction %g, argument %g: a known attack, a fraction in [0, 1], a finite "
                             "argument", c->attack.kind, (double)c->attack.frac, c->attack.arg);
    if (!(c->dp.clip >= 0 && isfinite(c->dp.clip)) || !(c->dp.noise >= 0 && isfinite(c->dp.noise)))
        return fgl_error_set(err, FGL_ERR_ARG, "run: dp clip %g, noise %g: finite numbers >= 0 (clip 0: off)",
                             (double)c->dp.clip, (double)c->dp.noise);
    return FGL_OK;
}

static void fgl__put_f64(fgl_bytes *b, double v) {
    uint64_t u;
    memcpy(&u, &v, 8);
    fgl_bytes_put_u64(b, u);
}

static double fgl__get_f64(fgl_reader *r) {
    uint64_t u = fgl_reader_u64(r);
    double v;
    memcpy(&v, &u, 8);
    return v;
}

/* The configuration's fields that decide a run's bits (all but the thread
 * count; dp.delta only what is reported), in a fixed order: fingerprints, and what a transport sends. */
static void fgl__put_config(fgl_bytes *b, const fgl_fed_config *c) {
    fgl_bytes_put_u32(b, (uint32_t)c->rounds);
    fgl_bytes_put_u32(b, (uint32_t)c->local_epochs);
    fgl_bytes_put_u32(b, (uint32_t)c->batch_size);
    fgl__put_f64(b, c->frac);
    fgl_bytes_put_u64(b, c->seed);
    fgl_bytes_put_u32(b, (uint32_t)c->optim.kind);
    fgl__put_f64(b, c->optim.lr);
    fgl__put_f64(b, c->optim.weight_decay);
    fgl__put_f64(b, c->optim.momentum);
    fgl_bytes_put_u32(b, (uint32_t)c->optim.nesterov);
    fgl__put_f64(b, c->optim.beta1);
    fgl__put_f64(b, c->optim.beta2);
    fgl__put_f64(b, c->optim.eps);
    fgl__put_f64(b, c->optim.clip_norm);
    fgl_bytes_put_u32(b, (uint32_t)c->reset_optim);
    fgl_bytes_put_u32(b, (uint32_t)c->eval_batch);
    fgl_bytes_put_u32(b, (uint32_t)c->eval_after_train);
    fgl_bytes_put_u32(b, (uint32_t)(c->eval_every > 1 ? c->eval_every : 1));
    fgl_bytes_put_u32(b, (uint32_t)c->robust.rule);
    fgl_bytes_put_u32(b, (uint32_t)c->robust.trim);
    fgl_bytes_put_u32(b, (uint32_t)c->robust.f);
    fgl_bytes_put_u32(b, (uint32_t)c->robust.m);
    fgl__put_f64(b, c->robust.clip);
    fgl__put_f64(b, c->robust.screen);
    fgl_bytes_put_u32(b, (uint32_t)c->attack.kind);
    fgl__put_f64(b, c->attack.arg);
    fgl__put_f64(b, c->attack.frac);
    fgl__put_f64(b, c->dp.clip);
    fgl__put_f64(b, c->dp.noise);
    fgl__put_f64(b, c->dp.delta);
    fgl_bytes_put_u32(b, (uint32_t)c->secagg.on);
    fgl_bytes_put_u32(b, (uint32_t)c->secagg.frac_bits);
    fgl__put_f64(b, c->secagg.dropout);
    fgl_bytes_put_u32(b, (uint32_t)c->secagg.threshold);
    fgl_bytes_put_u32(b, (uint32_t)c->secrets.from_seed); /* never the seed (a transport sends it apart) */
    if (c->secrets.from_seed) { /* the label (not secret): it decides the secrets with the seed */
        char label[FGL_SECRETS_LABEL];
        memcpy(label, c->secrets.label, sizeof label);
        label[sizeof label - 1] = 0;
        fgl_bytes_put_str(b, label);
    }
}

#ifdef FGL_MPI /* only the MPI workers read a configuration back */
/* What fgl__put_config wrote (exact: each value goes back to its type). */
static void fgl__get_config(fgl_reader *r, fgl_fed_config *c) {
    memset(c, 0, sizeof *c);
    c->rounds = (int)fgl_reader_u32(r);
    c->local_epochs = (int)fgl_reader_u32(r);
    c->batch_size = (int)fgl_reader_u32(r);
    c->frac = (float)fgl__get_f64(r);
    c->seed = fgl_reader_u64(r);
    c->optim.kind = (int)fgl_reader_u32(r);
    c->optim.lr = (float)fgl__get_f64(r);
    c->optim.weight_decay = (float)fgl__get_f64(r);
    c->optim.momentum = (float)fgl__get_f64(r);
    c->optim.nesterov = (int)fgl_reader_u32(r);
    c->optim.beta1 = (float)fgl__get_f64(r);
    c->optim.beta2 = (float)fgl__get_f64(r);
    c->optim.eps = (float)fgl__get_f64(r);
    c->optim.clip_norm = (float)fgl__get_f64(r);
    c->reset_optim = (int)fgl_reader_u32(r);
    c->eval_batch = (int)fgl_reader_u32(r);
    c->eval_after_train = (int)fgl_reader_u32(r);
    c->eval_every = (int)fgl_reader_u32(r);
    c->robust.rule = (int)fgl_reader_u32(r);
    c->robust.trim = (int)fgl_reader_u32(r);
    c->robust.f = (int)fgl_reader_u32(r);
    c->robust.m = (int)fgl_reader_u32(r);
    c->robust.clip = (float)fgl__get_f64(r);
    c->robust.screen = (float)fgl__get_f64(r);
    c->attack.kind = (int)fgl_reader_u32(r);
    c->attack.arg = fgl__get_f64(r);
    c->attack.frac = (float)fgl__get_f64(r);
    c->dp.clip = (float)fgl__get_f64(r);
    c->dp.noise = (float)fgl__get_f64(r);
    c->dp.delta = fgl__get_f64(r);
    c->secagg.on = (int)fgl_reader_u32(r);
    c->secagg.frac_bits = (int)fgl_reader_u32(r);
    c->secagg.dropout = (float)fgl__get_f64(r);
    c->secagg.threshold = (int)fgl_reader_u32(r);
    c->secrets.from_seed = (int)fgl_reader_u32(r);
    if (c->secrets.from_seed) fgl_reader_str(r, c->secrets.label, sizeof c->secrets.label);
}
#endif

/* --- configuration ------------------------------------------------------------- */

FGLDEF fgl_fed_config fgl_fed_default(int task) {
    fgl_fed_config c;
    memset(&c, 0, sizeof c);
    c.local_epochs = 1;
    c.frac = 1.0f;
    c.seed = 1;
    c.optim = fgl_optim_default(FGL_ADAM);
    c.eval_batch = 512;
    c.eval_after_train = task != FGL_TASK_GRAPH;
    c.robust.screen = 100;
    c.attack.arg = 1;
    c.dp.delta = 1e-5;
    c.secagg.frac_bits = 20;
    if (task == FGL_TASK_GRAPH) {
        c.rounds = 200;
        c.batch_size = 128;
        c.optim.lr = 1e-3f;
        c.optim.weight_decay = 5e-4f;
    } else {
        c.rounds = 100;
        c.batch_size = 0;
        c.optim.lr = 0.01f;
        c.optim.weight_decay = 1e-6f;
    }
    return c;
}

FGLDEF int fgl_groups_parse(const char *s, unsigned *groups) {
    static const struct { const char *name; unsigned bits; } names[] = {
        {"all", FGL_G_ALL}, {"feature", FGL_G_FEATURE}, {"conv", FGL_G_CONV}, {"struct", FGL_G_STRUCT},
        {"head", FGL_G_HEAD}, {"mask", FGL_G_MASK}, {"norm", FGL_G_NORM}, {"bnstat", FGL_G_BNSTAT},
        {"other", FGL_G_OTHER}, {"none", 0u}};
    unsigned acc = 0;
    int sign = 1;
    const char *p = s;
    if (!s || !*s) return FGL_ERR_ARG;
    while (*p) {
        size_t len = strcspn(p, "+-,");
        size_t i, n = sizeof names / sizeof names[0];
        for (i = 0; i < n; i++)
            if (strlen(names[i].name) == len && strncmp(p, names[i].name, len) == 0) break;
        if (i == n) return FGL_ERR_ARG;
        acc = sign > 0 ? acc | names[i].bits : acc & ~names[i].bits;
        p += len;
        if (*p == '-') sign = -1;
        else if (*p) sign = 1;
        if (*p) p++;
    }
    *groups = acc;
    return FGL_OK;
}

FGLDEF void fgl_groups_format(unsigned groups, char *buf, size_t cap) {
    static const char *names[] = {"feature", "conv", "struct", "head", "mask", "norm", "bnstat", "other"};
    size_t used = 0;
    int i;
    if (!cap) return;
    buf[0] = 0;
    if (groups == FGL_G_ALL) {
        snprintf(buf, cap, "all");
        return;
    }
    if ((groups | (unsigned)FGL_G_MASK) == FGL_G_ALL || (groups | (unsigned)FGL_G_HEAD) == FGL_G_ALL) {
        snprintf(buf, cap, "all-%s", (groups | (unsigned)FGL_G_MASK) == FGL_G_ALL ? "mask" : "head");
        return;
    }
    for (i = 0; i < 8; i++)
        if (groups & (1u << i)) {
            int w = snprintf(buf + used, cap - used, "%s%s", used ? "+" : "", names[i]);
            if (w < 0 || (size_t)w >= cap - used) return;
            used += (size_t)w;
        }
    if (!used) snprintf(buf, cap, "none");
}

/* --- defences, attacks, privacy: options ------------------------------------------ */

/* "name" or "name:a[,b]" into the name and up to two numbers; the count of
 * numbers, or -1 if malformed. */
static int fgl__opt_split(const char *s, char *name, size_t cap, double *a, double *b) {
    const char *colon = strchr(s, ':');
    size_t len = colon ? (size_t)(colon - s) : strlen(s);
    char *end;
    if (!len || len >= cap) return -1;
    memcpy(name, s, len);
    name[len] = 0;
    if (!colon) return 0;
    *a = strtod(colon + 1, &end);
    if (end == colon + 1 || !isfinite(*a)) return -1;
    if (!*end) return 1;
    if (*end != ',') return -1;
    *b = strtod(end + 1, &end);
    return *end || !isfinite(*b) ? -1 : 2;
}

/* a is an integer in [lo, hi]: checked on the double, before any conversion
 * (a double outside int's range converts with undefined behaviour). */
static int fgl__opt_int(double a, int lo, int hi) { return a >= lo && a <= hi && a == floor(a); }

/* The largest count (trimmed:B, krum:F, multikrum:F,M) and norm bound
 * (normclip:M, dp clip=C) or noise multiplier a parser accepts: beyond them
 * a value is a typo, or overflows a float. */
#define FGL__OPT_MAX_COUNT 1000000
#define FGL__OPT_MAX_NORM 1e6

FGLDEF int fgl_robust_parse(const char *s, fgl_robust_config *out, fgl_error *err) {
    char name[32];
    double a = 0, b = 0;
    int n = s ? fgl__opt_split(s, name, sizeof name, &a, &b) : -1;
    fgl_robust_config r = *out;
    r.trim = r.f = r.m = 0;
    r.clip = 0;
    if (n < 0) goto bad;
    if (!strcmp(name, "mean") && n == 0) r.rule = FGL_ROBUST_MEAN;
    else if (!strcmp(name, "median") && n == 0) r.rule = FGL_ROBUST_MEDIAN;
    else if (!strcmp(name, "trimmed") && n == 1 && fgl__opt_int(a, 1, FGL__OPT_MAX_COUNT))
        r.rule = FGL_ROBUST_TRIMMED, r.trim = (int)a;
    else if (!strcmp(name, "krum") && n == 1 && fgl__opt_int(a, 0, FGL__OPT_MAX_COUNT))
        r.rule = FGL_ROBUST_KRUM, r.f = (int)a;
    else if (!strcmp(name, "multikrum") && n == 2 && fgl__opt_int(a, 0, FGL__OPT_MAX_COUNT) &&
             fgl__opt_int(b, 1, FGL__OPT_MAX_COUNT))
        r.rule = FGL_ROBUST_MULTIKRUM, r.f = (int)a, r.m = (int)b;
    else if (!strcmp(name, "normclip") && n == 1 && a > 0 && a <= FGL__OPT_MAX_NORM)
        r.rule = FGL_ROBUST_NORMCLIP, r.clip = (float)a;
    else goto bad;
    *out = r;
    return FGL_OK;
bad:
    return fgl_error_set(err, FGL_ERR_PARSE,
                         "robust rule '%s': expected mean, median, trimmed:B, krum:F, multikrum:F,M "
                         "or normclip:M (B, F, M integers up to 10^6; 0 < M <= 10^6)",
                         s ? s : "");
}

FGLDEF const char *fgl_robust_name(int rule) {
    static const char *n[] = {"mean", "median", "trimmed", "krum", "multikrum", "normclip"};
    return rule >= 0 && rule <= FGL_ROBUST_NORMCLIP ? n[rule] : "unknown";
}

FGLDEF const char *fgl_attack_name(int kind) {
    static const char *n[] = {"none", "signflip", "scale", "noise", "labelflip", "nan", "count", "alie"};
    return kind >= 0 && kind <= FGL_ATTACK_ALIE ? n[kind] : "unknown";
}

FGLDEF int fgl_attack_parse(const char *s, fgl_attack_config *out, fgl_error *err) {
    static const struct { const char *name; int kind, args; double def; } k[] = {
        {"none", FGL_ATTACK_NONE, 0, 0}, {"signflip", FGL_ATTACK_SIGNFLIP, 1, 1}, {"scale", FGL_ATTACK_SCALE, 2, 0},
        {"noise", FGL_ATTACK_NOISE, 2, 0}, {"labelflip", FGL_ATTACK_LABELFLIP, 0, 0}, {"nan", FGL_ATTACK_NAN, 0, 0},
        {"count", FGL_ATTACK_COUNT, 2, 0}, {"alie", FGL_ATTACK_ALIE, 0, 0}};
    char name[32];
    double a = 0, b = 0;
    int n = s ? fgl__opt_split(s, name, sizeof name, &a, &b) : -1;
    size_t i;
    for (i = 0; n >= 0 && n <= 1 && i < sizeof k / sizeof k[0]; i++) {
        if (strcmp(name, k[i].name)) continue;
        /* args: 0 none, 1 optional, 2 required */
        if ((k[i].args == 0 && n) || (k[i].args == 2 && !n) || !isfinite(a)) break;
        out->kind = k[i].kind;
        out->arg = n ? a : k[i].def;
        return FGL_OK;
    }
    return fgl_error_set(err, FGL_ERR_PARSE, "attack '%s': expected signflip[:L], scale:L, noise:S, labelflip, nan, "
                         "count:N, alie or none", s ? s : "");
}

FGLDEF int fgl_dp_parse(const char *s, fgl_dp_config *out, fgl_error *err) {
    fgl_dp_config d;
    const char *p = s;
    d.clip = 0;
    d.noise = 0;
    d.delta = 1e-5;
    while (p && *p) {
        char key[16], *end;
        size_t len = strcspn(p, "=");
        double v;
        if (!p[len] || len == 0 || len >= sizeof key) goto bad;
        memcpy(key, p, len);
        key[len] = 0;
        v = strtod(p + len + 1, &end);
        if (end == p + len + 1 || (*end && *end != ',') || !isfinite(v) || v < 0 || v > FGL__OPT_MAX_NORM) goto bad;
        if (!strcmp(key, "clip")) d.clip = (float)v;
        else if (!strcmp(key, "noise")) d.noise = (float)v;
        else if (!strcmp(key, "delta") && v > 0 && v < 1) d.delta = v;
        else goto bad;
        p = *end ? end + 1 : end;
    }
    if (!(d.clip > 0)) goto bad;
    *out = d;
    return FGL_OK;
bad:
    return fgl_error_set(err, FGL_ERR_PARSE,
                         "dp '%s': expected clip=C,noise=Z[,delta=D] with 0 < C <= 10^6, 0 <= Z <= 10^6, 0 < D < 1",
                         s ? s : "");
}

FGLDEF int fgl_plugin_parse(const char *s, fgl_plugin_config *out, fgl_error *err) {
    fgl_plugin_config c;
    size_t len = s ? strcspn(s, ":") : 0, k;
    memset(&c, 0, sizeof c);
    if (!s || len == 0 || len >= sizeof c.name) goto bad;
    for (k = 0; k < len; k++)
        if (!((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z') || (s[k] >= '0' && s[k] <= '9') ||
              s[k] == '_' || s[k] == '-'))
            goto bad;
    memcpy(c.name, s, len);
    if (s[len]) {
        char *end;
        c.arg = strtod(s + len + 1, &end);
        if (end == s + len + 1 || *end || !isfinite(c.arg)) goto bad;
    }
    *out = c;
    return FGL_OK;
bad:
    return fgl_error_set(err, FGL_ERR_PARSE, "plug-in '%s': expected NAME or NAME:ARG (a name of letters, digits, _ "
                         "and -, under %d characters; ARG a finite number)", s ? s : "", FGL_PLUGIN_NAME);
}

#include "../alone.h"
