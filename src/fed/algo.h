#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Algorithms                                                               */
/* ------------------------------------------------------------------------ */

typedef struct fgl_run fgl_run;
typedef struct fgl_client fgl_client;
typedef struct fgl_server fgl_server;
typedef struct fgl_algo fgl_algo;
typedef struct fgl_observed fgl_observed;

enum { FGL_PARAM_FLOAT, FGL_PARAM_INT, FGL_PARAM_GROUPS };
/* What travels and what stays local. An algorithm that sends model weights
 * declares what it shares as its first group-list parameter (conventionally
 * "share"), and may declare what stays local as a group-list parameter
 * named "keep": a parameter slice is shared when its groups meet share and
 * miss keep (fgl_slice_selected). Tags are sets (a GIN layer's batch-norm
 * weights are CONV|NORM), so a share mask alone cannot leave them out; keep
 * can (FedBN: share=all, keep=norm+bnstat). The runtime applies the pair
 * everywhere the shared part appears: the size n of FGL_DIM_SHARED, the
 * model parts of uploads and downloads (what is kept is neither sent nor
 * overwritten), fgl_client_pack, fgl_received_at, the proximal gradient,
 * and fgl_server_pack (the server's initial vector: fgl_server_global,
 * fgl_server_per_client); the defences see the
 * shared vector only. Checkpoints save whole models, so what is kept
 * resumes with its client. */

#define FGL_ALGO_MAX_PARAMS 24

/* A named parameter with its published default. */
typedef struct fgl_algo_param {
    const char *name;
    int type;                    /* FGL_PARAM_* (GROUPS: a group mask, "all-head" ...) */
    double def;
    const char *help;
    const char *choices;         /* FGL_PARAM_INT: names of the values 0, 1, ... ("samples|equal"), which --set and
                                    fgl_run_set accept beside the numbers; NULL: numbers only */
    size_t member;               /* 1 + the offset of its member in the algorithm's parameter struct
                                    (FGL_ALGO_PARAM); 0: read by name only (fgl_get) */
} fgl_algo_param;

/* An algorithm's parameter values: typed (FGL_PARAMS), or by name (fgl_get). */
#define FGL_SETTINGS_UNKNOWN 48
typedef struct fgl_settings {
    const fgl_algo *algo;
    double *value;               /* one per parameter, in declaration order */
    char *unknown;               /* FGL_SETTINGS_UNKNOWN bytes where fgl_get writes the first name the algorithm
                                    does not declare (the run's: it fails with that name), or NULL */
    double typed[FGL_ALGO_MAX_PARAMS]; /* the algorithm's parameter struct, filled from value by
                                          fgl_settings_fill (the run does it whenever a value changes) */
} fgl_settings;

/* Typed parameters. An algorithm declares its parameters as the members of
 * one struct, each row naming a member (its name is the parameter's name,
 * for --set, --help, the record and checkpoints):
 *     typedef struct { unsigned share; double mu; int weights; } avg_params;
 *     FGL_ALGO_PARAM(&a, avg_params, mu, FGL_PARAM_FLOAT, 0.01, "proximal weight");
 * and its hooks read them through the struct, so that a misspelt name is a
 * compile error, not a lookup that fails at run time:
 *     const avg_params *p = FGL_PARAMS(avg_params, c->set);
 *     if (p->mu > 0) ...
 * FGL_PARAM_FLOAT members are double (the value as fgl_get returns it),
 * FGL_PARAM_INT int, FGL_PARAM_GROUPS unsigned. A built-in table that
 * builds on another puts the other's struct first in its own, so the
 * other's hooks read their prefix. A program that extends a built-in table
 * (fgl_algo_base) adds its parameters by name (fgl_algo_param_add, read
 * with fgl_get): the built-ins' structs are not public. A struct holds at
 * most FGL_ALGO_MAX_PARAMS members (sizeof(fgl_settings.typed) bytes). */
#define FGL_ALGO_PARAM(a, type, member, kind, def, help)                                                      \
    fgl_algo_param_member((a), #member, (kind), (def), (help), offsetof(type, member),                        \
                          sizeof(((type *)0)->member), sizeof(type))
#define FGL_PARAMS(type, set) ((const type *)fgl_params_of((set), sizeof(type)))

/* The value of parameter `name`. A name the algorithm does not declare (a
 * misspelling) reads 0 and is written to s->unknown: a run fails with it
 * after the hook that read it, in every build (not an assertion). For a
 * program's quick algorithm; the built-in ones read FGL_PARAMS. */
FGLDEF double fgl_get(const fgl_settings *s, const char *name);
/* The parameter struct of s's algorithm, read as a struct of `size` bytes
 * (FGL_PARAMS; a size over the algorithm's struct is a programmer error). */
FGLDEF const void *fgl_params_of(const fgl_settings *s, size_t size);
/* Fill s->typed from s->value (after a value changed; fgl_run_set and the
 * run do it for the run's settings). */
FGLDEF void fgl_settings_fill(fgl_settings *s);

/* One local optimisation step, as the training hooks see it. */
typedef struct fgl_step {
    fgl_tape *t;
    fgl_model *model;            /* the model being trained */
    const fgl_gnn_graph *g;      /* the graph or batch of this step */
    const fgl_forward *fwd;      /* its forward pass */
    const int *labels;           /* per row of fwd->logits */
    const unsigned char *mask;   /* rows that count (NULL: all) */
    int epoch, index;            /* local epoch, step within the round */
} fgl_step;

/* Hooks of the local training loop (fgl_client_train). */
typedef struct fgl_train_hooks {
    /* A term added to the task's loss (cross-entropy; link tasks: BCE) (NULL: none; an error is
     * recorded with fgl_client_fail). */
    fgl_node *(*loss)(fgl_client *c, const fgl_step *s);
    /* After backward, before the optimizer step: adjust s->model->params.grad. */
    int (*grad)(fgl_client *c, const fgl_step *s);
    /* After the optimizer step (e.g. a proximal step on the parameters). */
    int (*after_step)(fgl_client *c, const fgl_step *s);
} fgl_train_hooks;

/* The table. Build it with fgl_algo_new (or extend a built-in with
 * fgl_algo_base) and assign hooks by name; every hook may be NULL. */
struct fgl_algo {
    const char *name;
    const char *summary;
    int n_params;
    fgl_algo_param params[FGL_ALGO_MAX_PARAMS];
    size_t params_size;          /* sizeof its parameter struct (FGL_ALGO_PARAM); 0: none */
    int n_up, n_down;
    fgl_part up[FGL_MSG_MAX_PARTS], down[FGL_MSG_MAX_PARTS];
    /* Adjust a client's model spec before its model is built (FED-PUB turns
     * on weight masks, FedStar swaps in its decoupled model). It is also the
     * algorithm's check of a client's task and model: an error refuses the
     * run (FedStar and GPFL refuse node tasks). Called on a copy of every
     * client's spec by fgl_run_init (the parameters at their defaults), by
     * fgl_run_check and at the start (the parameters as set), so it must not
     * refuse under the defaults what a parameter could make valid. */
    int (*prepare_spec)(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err);
    /* Client side: state (fgl_new_* on c->store), then every round: */
    int (*client_init)(fgl_client *c);
    int (*receive)(fgl_client *c);          /* after the runtime loaded the download's model parts */
    int (*local_train)(fgl_client *c);      /* NULL: fgl_client_train with `train` */
    fgl_train_hooks train;
    int (*upload)(fgl_client *c);           /* fill the DATA parts of c->up (c->model's parameters: read only) */
    fgl_model *(*eval_model)(fgl_client *c);   /* NULL: c->model */
    /* Node tasks: a prediction that no single model gives (AdaFGL's mixture
     * of modules): the client's class scores, c->data.node's nodes x the
     * model's classes, row-major, the argmax of a row being the node's
     * prediction; the runtime scores them on the validation and test nodes
     * as the model's logits. NULL (or a hook returning NULL): the model
     * (eval_model or c->model) is evaluated. Memory the client owns (its
     * store), read only by the runtime. */
    const float *(*eval_scores)(fgl_client *c);
    /* Server side: state (fgl_new_* on s->store), then every round: */
    int (*server_init)(fgl_server *s);
    /* An empty round, one meaning: when the server accepted no upload,
     * fgl_server_mean and its kin return FGL_ERR_EMPTY; an aggregate hook
     * that returns it (as it is) leaves the server's state as the hook left
     * it, and the round goes on (the next downloads are built from that
     * state). Any other error stops the run. */
    int (*aggregate)(fgl_server *s);
    int (*download)(fgl_server *s, int client, fgl_msg *down);   /* the parts without `from` */
    /* Observers (outside the protocol): algorithm-specific results as
     * JSON members ("\"key\": value, ..."), and a K x K client-to-client
     * matrix of the last round written into out (FGL_OK; FGL_ERR_EMPTY: none
     * yet). They get a read-only summary of the run (fgl_observed: the
     * server's state, the clients' models and the history, read through
     * const), never the run; programs call them through fgl_run_report and
     * fgl_run_client_matrix. */
    void (*report)(const fgl_observed *o, char *buf, size_t cap);
    int (*client_matrix)(const fgl_observed *o, float *out);
    /* 1: the server builds per-client mixtures of the uploads (fgl_server_mix:
     * FED-PUB, FedAMP, pFedGraph, pFedGNN; GPFL mixes updates by hand). DP
     * and secure aggregation are defined for one mean of the uploads, not
     * for K mixtures of them, and such a run is refused when it is set up
     * (fgl_run_init). A declaration, not something the runtime
     * observes: the refusal must come before the clients clip, mask or spend
     * privacy, i.e. before the first aggregation could show that it mixes. */
    int mixes;
    /* 1: the aggregate hook reads the model and delta uploads only through
     * fgl_server_mean (never fgl_upload, fgl_server_gather or the s->up
     * messages), so that what it publishes is a function of the means the
     * runtime defends. Under DP and secure aggregation the runtime enforces
     * this for every table: the hook is handed no upload at all (s->up[i]
     * NULL, s->n_accepted 0), fgl_server_mean gives the noised (DP) or
     * unmasked (secure) mean, and a DP round whose hook did not take the
     * noised mean of every model or delta part fails. A program's own
     * aggregate hook is refused under DP and secure aggregation unless its
     * table sets this, so that a rule written against the uploads (a
     * median over fgl_upload) is refused at the start rather than handed
     * nothing; the built-in tables need not set it. */
    int mean_only;
    /* 1: the aggregate hook reads each accepted client's model upload on its
     * own (fgl_upload) as one of an ensemble (FedTAD distils the clients'
     * models into the mean). DP and secure aggregation hand the hook no
     * upload, and a robust rule guards the mean, not that path: such a run
     * is refused when it is set up (fgl_run_init). A declaration, as mixes. */
    int reads_each;
    /* Which member of a family of algorithms sharing hooks this table is, set
     * by its builder and read by the hooks (c->algo->variant), never inferred
     * from the parts declared: SCAFFOLD 0, FedDC 1; GCFL 0, GCFL+ 1. The
     * runtime ignores it; a table extended from a built-in keeps it. */
    int variant;
    /* Set by the runtime: the built-in table this one is (fgl_algo_base
     * copies it along), or NULL. A program that replaces a built-in's init
     * hook and keeps hooks of the built-in that read its typed state
     * (FGL_STATE) must make that state: call the built-in's init from its
     * own. fgl_run_start refuses the run when that init left no typed
     * state, rather than let the built-in's hooks read none. */
    const struct fgl_algo *origin;
    /* Set by fgl_algo_param_member: the first parameter row whose member
     * was refused (a programmer error, an assertion; under NDEBUG
     * fgl_run_init refuses the table naming it), or NULL. */
    const char *refused;
};

/* An empty table (no parameters, no messages, no hooks: Local). */
FGLDEF fgl_algo fgl_algo_new(const char *name, const char *summary);
/* A copy of a built-in table to extend (Ditto extends FedAvg); an empty
 * table named name if there is none. */
FGLDEF fgl_algo fgl_algo_base(const char *name);
/* Add a parameter, an upload part or a download part (capacity overflow and
 * duplicate names are programmer errors). */
FGLDEF void fgl_algo_param_add(fgl_algo *a, const char *name, int type, double def, const char *help);
/* fgl_algo_param_add, bound to a member of the parameter struct (use
 * FGL_ALGO_PARAM, which passes the member's offset and sizes). A member of
 * the wrong size for its type, outside the struct, or overlapping another
 * is a programmer error. */
FGLDEF void fgl_algo_param_member(fgl_algo *a, const char *name, int type, double def, const char *help,
                                  size_t offset, size_t size, size_t struct_size);
FGLDEF void fgl_algo_upload(fgl_algo *a, const char *name, int kind, int rows, int cols, unsigned flags);
FGLDEF void fgl_algo_download(fgl_algo *a, const char *name, int kind, int rows, int cols, unsigned flags,
                              const char *from);
/* Name the values 0, 1, ... of integer parameter name (declared before):
 * choices "samples|equal" lets fgl_run_set take "equal" for 1. */
FGLDEF void fgl_algo_param_choices(fgl_algo *a, const char *name, const char *choices);
/* A parameter's value from text as fgl_run_set reads it (a group list, an
 * integer or one of its choices' names, a number): 0, or FGL_ERR_PARSE. */
FGLDEF int fgl_algo_param_parse(const fgl_algo_param *p, const char *text, double *value);
/* A parameter's value as text: its group list, its choice's name, or the
 * number. */
FGLDEF void fgl_algo_param_format(const fgl_algo_param *p, double value, char *buf, size_t cap);
/* The size rule "the value of integer parameter name" (declared before). */
FGLDEF int fgl_algo_param_dim(const fgl_algo *a, const char *name);
/* 1 if any message part carries model weights (FGL_SEND_MODEL / DELTA, or a
 * size in shared parameters): then clients must agree on the shared layout;
 * otherwise (prototype methods, Local) their models may differ. */
FGLDEF int fgl_algo_shares_weights(const fgl_algo *a);

/* The registry: the built-in algorithms, then those registered. Lookups
 * are read-only; register at program start, before runs begin (the table
 * is copied; capacity 64). fgl_algo_find gives NULL for a name not
 * registered and remembers that name, so that fgl_run_init, handed the
 * NULL, says which name was not found (and suggests one). */
FGLDEF const fgl_algo *fgl_algo_find(const char *name);
/* The registered name closest to name, for messages: the same name in
 * another case ("FedAvg": "fedavg"), or one within two edits that change
 * less than half of it ("fedprx": "fedprox"); NULL if none is that close. */
FGLDEF const char *fgl_algo_suggest(const char *name);
FGLDEF int fgl_algo_count(void);
FGLDEF const fgl_algo *fgl_algo_at(int i);
FGLDEF int fgl_algo_register(const fgl_algo *a);

/* Parse "all", "conv", "conv+head", "all-head" ... into a group mask. */
FGLDEF int fgl_groups_parse(const char *s, unsigned *groups);
FGLDEF void fgl_groups_format(unsigned groups, char *buf, size_t cap);

/* fgl:implementation */
#include "../alone.h"
/* --- algorithm tables ------------------------------------------------------------- */

FGLDEF fgl_algo fgl_algo_new(const char *name, const char *summary) {
    fgl_algo a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.summary = summary;
    return a;
}

static int fgl__param_index(const fgl_algo *a, const char *name) {
    int i;
    for (i = 0; i < a->n_params; i++)
        if (strcmp(a->params[i].name, name) == 0) return i;
    return -1;
}

FGLDEF void fgl_algo_param_add(fgl_algo *a, const char *name, int type, double def, const char *help) {
    int i = fgl__param_index(a, name);
    FGL_ASSERT(name && (type == FGL_PARAM_FLOAT || type == FGL_PARAM_INT || type == FGL_PARAM_GROUPS));
    if (i < 0) { /* a new parameter; an existing one (of a base) gets a new default, and keeps its member */
        FGL_ASSERT(a->n_params < FGL_ALGO_MAX_PARAMS);
        i = a->n_params++;
        a->params[i].member = 0;
    }
    FGL_ASSERT(!a->params[i].member || a->params[i].type == type); /* a member's type is its struct's */
    a->params[i].name = name;
    a->params[i].type = type;
    a->params[i].def = type == FGL_PARAM_FLOAT ? (double)(float)def : def;
    a->params[i].help = help;
    a->params[i].choices = NULL;
}

FGLDEF void fgl_algo_param_member(fgl_algo *a, const char *name, int type, double def, const char *help,
                                  size_t offset, size_t size, size_t struct_size) {
    size_t want = type == FGL_PARAM_FLOAT ? sizeof(double) : type == FGL_PARAM_INT ? sizeof(int) : sizeof(unsigned);
    int i, j, ok = size == want && offset + size <= struct_size && struct_size <= sizeof(((fgl_settings *)0)->typed);
    fgl_algo_param_add(a, name, type, def, help);
    i = fgl__param_index(a, name);
    for (j = 0; ok && j < a->n_params; j++) { /* no two members share bytes (a base's struct, extended, keeps its own) */
        size_t o = a->params[j].member, len = a->params[j].type == FGL_PARAM_FLOAT ? sizeof(double) : sizeof(int);
        if (j != i && o) ok = o - 1 >= offset + size || offset >= o - 1 + len;
    }
    /* FLOAT: double, INT: int, GROUPS: unsigned; inside the struct; alone in its bytes (programmer errors: under
     * NDEBUG the parameter is then read by name only, and its member stays 0) */
    FGL_ASSERT(ok);
    if (!ok && !a->refused) a->refused = name;
    a->params[i].member = ok ? offset + 1 : 0;
    if (ok && struct_size > a->params_size) a->params_size = struct_size;
}

FGLDEF void fgl_algo_param_choices(fgl_algo *a, const char *name, const char *choices) {
    int i = fgl__param_index(a, name);
    FGL_ASSERT(i >= 0 && a->params[i].type == FGL_PARAM_INT); /* a declared integer parameter */
    if (i >= 0) a->params[i].choices = choices;
}

/* The index of name among choices ("a|b|c"), or -1. */
static int fgl__choice_index(const char *choices, const char *name) {
    int i = 0;
    size_t len = strlen(name);
    while (choices && *choices) {
        size_t w = strcspn(choices, "|");
        if (w == len && len > 0 && strncmp(choices, name, len) == 0) return i;
        choices += w + (choices[w] == '|');
        i++;
    }
    return -1;
}

FGLDEF int fgl_algo_param_parse(const fgl_algo_param *p, const char *text, double *value) {
    char *end;
    if (!p || !text) return FGL_ERR_ARG;
    if (p->type == FGL_PARAM_GROUPS) {
        unsigned g;
        if (fgl_groups_parse(text, &g)) return FGL_ERR_PARSE;
        *value = (double)g;
    } else if (p->type == FGL_PARAM_INT) {
        long v = strtol(text, &end, 10);
        int c = fgl__choice_index(p->choices, text);
        if (c >= 0) v = c;
        else if (end == text || *end || v != (long)(int)v) return FGL_ERR_PARSE;
        else if (p->choices) { /* a named value's number: one of the names' indices */
            int n = 1;
            const char *q;
            for (q = p->choices; *q; q++) n += *q == '|';
            if (v < 0 || v >= n) return FGL_ERR_PARSE;
        }
        *value = (double)v;
    } else {
        double v = strtod(text, &end);
        if (end == text || *end || !isfinite(v)) return FGL_ERR_PARSE;
        *value = (double)(float)v; /* parameters are single precision, as the models */
    }
    return FGL_OK;
}

FGLDEF void fgl_algo_param_format(const fgl_algo_param *p, double value, char *buf, size_t cap) {
    if (p->type == FGL_PARAM_GROUPS) {
        fgl_groups_format((unsigned)value, buf, cap);
    } else if (p->type == FGL_PARAM_INT) {
        const char *s = p->choices;
        int i = 0, v = (int)value;
        while (s && *s && i < v) {
            s += strcspn(s, "|");
            s += *s == '|';
            i++;
        }
        if (s && *s && v >= 0) snprintf(buf, cap, "%.*s", (int)strcspn(s, "|"), s);
        else snprintf(buf, cap, "%ld", (long)value);
    } else {
        snprintf(buf, cap, "%.9g", value);
    }
}

static void fgl__part_add(fgl_part *parts, int *n, const char *name, int kind, int rows, int cols, unsigned flags,
                          const char *from) {
    int i;
    FGL_ASSERT(name && *n < FGL_MSG_MAX_PARTS && rows != 0);
    for (i = 0; i < *n; i++) FGL_ASSERT(strcmp(parts[i].name, name) != 0);
    parts[*n].name = name;
    parts[*n].kind = kind;
    parts[*n].rows = rows;
    parts[*n].cols = cols ? cols : 1;
    parts[*n].flags = flags;
    parts[*n].from = from;
    (*n)++;
}

FGLDEF void fgl_algo_upload(fgl_algo *a, const char *name, int kind, int rows, int cols, unsigned flags) {
    FGL_ASSERT(kind >= FGL_SEND_DATA && kind <= FGL_SEND_WEIGHT);
    if (kind == FGL_SEND_MODEL || kind == FGL_SEND_DELTA) rows = FGL_DIM_SHARED, cols = 1;
    if (kind == FGL_SEND_WEIGHT) rows = cols = 1;
    fgl__part_add(a->up, &a->n_up, name, kind, rows, cols, flags, NULL);
}

FGLDEF void fgl_algo_download(fgl_algo *a, const char *name, int kind, int rows, int cols, unsigned flags,
                              const char *from) {
    FGL_ASSERT(kind == FGL_SEND_DATA || kind == FGL_SEND_MODEL);
    if (kind == FGL_SEND_MODEL) rows = FGL_DIM_SHARED, cols = 1;
    fgl__part_add(a->down, &a->n_down, name, kind, rows, cols, flags, from);
}

FGLDEF int fgl_algo_param_dim(const fgl_algo *a, const char *name) {
    int i = fgl__param_index(a, name);
    FGL_ASSERT(i >= 0 && a->params[i].type == FGL_PARAM_INT); /* a declared integer parameter */
    return FGL__DIM_PARAM0 - (i < 0 ? 0 : i);
}

/* 1 if a part's size depends on the client. */
static int fgl__per_client(const fgl_part *p) { return p->rows == FGL_DIM_NODES || p->cols == FGL_DIM_NODES; }

FGLDEF int fgl_algo_shares_weights(const fgl_algo *a) {
    int i;
    for (i = 0; i < a->n_up + a->n_down; i++) {
        const fgl_part *p = i < a->n_up ? &a->up[i] : &a->down[i - a->n_up];
        if (p->kind == FGL_SEND_MODEL || p->kind == FGL_SEND_DELTA || p->rows == FGL_DIM_SHARED ||
            p->rows == FGL_DIM_TRAINABLE || p->cols == FGL_DIM_SHARED || p->cols == FGL_DIM_TRAINABLE)
            return 1;
    }
    return 0;
}

/* The shared groups: the value of the first group-list parameter not
 * named "keep". */
static unsigned fgl__share_of(const fgl_algo *a, const double *value) {
    int i;
    for (i = 0; i < a->n_params; i++)
        if (a->params[i].type == FGL_PARAM_GROUPS && strcmp(a->params[i].name, "keep") != 0)
            return (unsigned)value[i];
    return FGL_G_ALL;
}

/* The groups kept local: the group-list parameter "keep", or none. */
static unsigned fgl__keep_of(const fgl_algo *a, const double *value) {
    int i = fgl__param_index(a, "keep");
    return i >= 0 && a->params[i].type == FGL_PARAM_GROUPS ? (unsigned)value[i] : 0u;
}

FGLDEF const void *fgl_params_of(const fgl_settings *s, size_t size) {
    FGL_ASSERT(s && s->algo && size <= s->algo->params_size); /* the algorithm's struct (or a base's prefix) */
    if (s && s->algo && size > s->algo->params_size && s->unknown && !s->unknown[0]) /* (NDEBUG: the run fails) */
        snprintf(s->unknown, FGL_SETTINGS_UNKNOWN, "%s", "(FGL_PARAMS: a struct larger than its own)");
    return s->typed; /* (as large as any struct a row accepts) */
}

FGLDEF void fgl_settings_fill(fgl_settings *s) {
    int i;
    memset(s->typed, 0, sizeof s->typed);
    for (i = 0; s->algo && s->value && i < s->algo->n_params; i++) {
        const fgl_algo_param *p = &s->algo->params[i];
        unsigned char *at = (unsigned char *)s->typed + (p->member - 1);
        double v = s->value[i];
        if (!p->member) continue;
        if (p->type == FGL_PARAM_FLOAT) {
            memcpy(at, &v, sizeof v);
        } else if (p->type == FGL_PARAM_INT) {
            int n = (int)v;
            memcpy(at, &n, sizeof n);
        } else {
            unsigned g = (unsigned)v;
            memcpy(at, &g, sizeof g);
        }
    }
}

FGLDEF double fgl_get(const fgl_settings *s, const char *name) {
    int i = fgl__param_index(s->algo, name);
    if (i >= 0) return s->value[i];
    FGL_ASSERT(s->unknown != NULL); /* settings outside a run have nowhere to report a misspelt name */
    if (s->unknown) { /* clients read their settings side by side: the first name wins */
#ifdef _OPENMP
#pragma omp critical(fgl_settings_unknown)
#endif
        if (!s->unknown[0]) snprintf(s->unknown, FGL_SETTINGS_UNKNOWN, "%s", name ? name : "(null)");
    }
    return 0.0;
}

#include "../alone.h"
