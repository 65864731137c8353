#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Run-managed state                                                        */
/* ------------------------------------------------------------------------ */

typedef struct fgl__entry fgl__entry;

/* The state a client or the server holds for its algorithm: named entries
 * the runtime allocates (zeroed), checkpoints and frees. */
typedef struct fgl_store {
    int owner;               /* client id, or -1 for the server */
    fgl__entry *e;
    int n, cap;
    fgl_tape scratch;        /* fgl_scratch: reset after every hook */
    fgl_error err;           /* the first failure (FGL_ERR_NOMEM; FGL_ERR_ARG: a state looked up, never created),
                                its message a predicate of the algorithm ("looks up the state 'x', which ..."):
                                the hook's run fails with it */
    void *state;             /* the algorithm's typed view of its entries (FGL_NEW_STATE), or NULL */
    size_t state_size;
} fgl_store;

/* In an init hook: a new named entry, zeroed; NULL on failure (the store
 * records it). n may be 0. */
FGLDEF float *fgl_new_floats(fgl_store *st, const char *name, size_t n);
FGLDEF int *fgl_new_ints(fgl_store *st, const char *name, size_t n);
/* A model built from spec and seed, an optimizer over ps, an empty
 * parameter set to build: checkpointed like the rest. */
FGLDEF fgl_model *fgl_new_model(fgl_store *st, const char *name, const fgl_model_spec *spec, uint64_t seed);
FGLDEF fgl_optim *fgl_new_optim(fgl_store *st, const char *name, fgl_optim_config cfg, const fgl_params *ps);
FGLDEF fgl_params *fgl_new_params(fgl_store *st, const char *name);
/* Memory that is not checkpointed because it is rebuilt (from the seed, or
 * every round before use); destroy (may be NULL) runs before it is freed. */
FGLDEF void *fgl_new_scratch(fgl_store *st, const char *name, size_t bytes, void (*destroy)(void *));
FGLDEF fgl_tape *fgl_new_tape(fgl_store *st, const char *name);
/* Find an entry again. A name no entry has (misspelt, or never created
 * in an init hook) is a programmer error: an assertion in a debug build,
 * which names it first on stderr; under NDEBUG the call returns NULL and
 * the run fails after the hook, naming the state (the hook should not
 * use the NULL). */
FGLDEF float *fgl_floats(const fgl_store *st, const char *name);
FGLDEF int *fgl_ints(const fgl_store *st, const char *name);
FGLDEF fgl_model *fgl_get_model(const fgl_store *st, const char *name);
FGLDEF fgl_optim *fgl_get_optim(const fgl_store *st, const char *name);
FGLDEF fgl_params *fgl_get_params(const fgl_store *st, const char *name);
FGLDEF void *fgl_get_scratch(const fgl_store *st, const char *name);
FGLDEF fgl_tape *fgl_get_tape(const fgl_store *st, const char *name);
/* Temporary memory until the current hook returns (zeroed; NULL on OOM). */
FGLDEF void *fgl_scratch(fgl_store *st, size_t bytes);

/* Typed state. An algorithm keeps a struct of pointers to its entries, made
 * (zeroed) in the init hook and filled as the entries are created; every
 * later hook reads the entries through it, by member, not by name:
 *     typedef struct { float *global, *m; } opt_server;
 *     init:      opt_server *st = FGL_NEW_STATE(opt_server, &s->store);
 *                st->global = fgl_server_global(s, "global");
 *                st->m = fgl_new_floats(&s->store, "m", s->n_shared);
 *     aggregate: opt_server *st = FGL_STATE(opt_server, &s->store);
 * The names given at creation are the checkpoint's; the struct is a view
 * (an entry never moves: parking packs what it points to, not the entry),
 * so it is neither checkpointed nor sent. A built-in table that builds on
 * another puts the other's struct first in its own: FGL_NEW_STATE with a
 * larger struct keeps what the other's init filled. (A program extending
 * a built-in keeps its own state by name, fgl_new_* and fgl_floats: the
 * built-ins' structs are not public; one that replaces a built-in's init
 * hook calls it from its own, or fgl_run_start refuses the run when the
 * built-in's other hooks would read no state.) FGL_STATE before
 * FGL_NEW_STATE, or with a struct larger than the one made, is a
 * programmer error: an assertion; under NDEBUG it returns NULL and the
 * run fails after the hook, so a hook that may meet it checks for NULL
 * (the built-ins' hooks rely on their own init hooks, which make it). */
#define FGL_NEW_STATE(type, store) ((type *)fgl_new_state((store), sizeof(type)))
#define FGL_STATE(type, store) ((type *)fgl_state_of((store), sizeof(type)))
FGLDEF void *fgl_new_state(fgl_store *st, size_t size);
FGLDEF void *fgl_state_of(const fgl_store *st, size_t size);

/* fgl:private */
#include "../alone.h"
enum { FGL__E_FLOATS, FGL__E_INTS, FGL__E_MODEL, FGL__E_OPTIM, FGL__E_PARAMS, FGL__E_RNG, FGL__E_SCRATCH, FGL__E_TAPE };

#define FGL__ENTRY_NAME 40

struct fgl__entry {
    char name[FGL__ENTRY_NAME];
    int kind;
    size_t n;                   /* floats / ints */
    void *p;
    int owned;                  /* the store frees p */
    void (*destroy)(void *);    /* scratch */
};

FGL__PRIVATE void fgl__store_init(fgl_store *st, int owner);
FGL__PRIVATE void fgl__store_free(fgl_store *st);
/* fgl:implementation */
#include "../alone.h"
/* --- run-managed state -------------------------------------------------------- */

FGL__PRIVATE void fgl__store_init(fgl_store *st, int owner) {
    memset(st, 0, sizeof *st);
    st->owner = owner;
    fgl_tape_init(&st->scratch);
}

FGL__PRIVATE void fgl__store_free(fgl_store *st) {
    int i;
    for (i = st->n - 1; i >= 0; i--) {
        fgl__entry *e = &st->e[i];
        if (!e->owned || !e->p) continue;
        switch (e->kind) {
        case FGL__E_MODEL: fgl_model_free((fgl_model *)e->p); break;
        case FGL__E_OPTIM: fgl_optim_free((fgl_optim *)e->p); break;
        case FGL__E_PARAMS: fgl_params_free((fgl_params *)e->p); break;
        case FGL__E_TAPE: fgl_tape_free((fgl_tape *)e->p); break;
        case FGL__E_SCRATCH:
            if (e->destroy) e->destroy(e->p);
            break;
        default: break;
        }
        FGL_FREE(e->p);
    }
    FGL_FREE(st->e);
    FGL_FREE(st->state);
    fgl_tape_free(&st->scratch);
    memset(st, 0, sizeof *st);
}

static fgl__entry *fgl__store_find(const fgl_store *st, const char *name, int kind) {
    int i;
    for (i = 0; i < st->n; i++)
        if (st->e[i].kind == kind && strcmp(st->e[i].name, name) == 0) return &st->e[i];
    return NULL;
}

/* Record the store's first failure: code, and what the algorithm did (a predicate of its name). */
static void fgl__store_fail(const fgl_store *st, int code, const char *fmt, const char *name) {
    fgl_store *w = (fgl_store *)(void *)st; /* (never a const object: the runtime owns every store) */
    if (!w->err.code) fgl_error_set(&w->err, code, fmt, name ? name : "(null)");
}

/* Register p (owned or not) under a new name; NULL and st->err on failure. */
static void *fgl__store_add(fgl_store *st, const char *name, int kind, void *p, size_t n, int owned) {
    fgl__entry *e;
    int i;
    FGL_ASSERT(name && strlen(name) < FGL__ENTRY_NAME);
    for (i = 0; i < st->n; i++) FGL_ASSERT(strcmp(st->e[i].name, name) != 0); /* one name, one entry */
    if (!p) {
        fgl__store_fail(st, FGL_ERR_NOMEM, "ran out of memory for its state '%s'", name);
        return NULL;
    }
    if (st->n == st->cap) {
        int cap = st->cap ? 2 * st->cap : 4; /* most stores hold a few entries; one per client */
        fgl__entry *ne = (fgl__entry *)FGL_REALLOC(st->e, sizeof(fgl__entry) * (size_t)cap);
        if (!ne) {
            if (owned) FGL_FREE(p);
            fgl__store_fail(st, FGL_ERR_NOMEM, "ran out of memory for its state '%s'", name);
            return NULL;
        }
        st->e = ne;
        st->cap = cap;
    }
    e = &st->e[st->n++];
    memset(e, 0, sizeof *e);
    strcpy(e->name, name);
    e->kind = kind;
    e->p = p;
    e->n = n;
    e->owned = owned;
    return p;
}

static void *fgl__zalloc(size_t bytes) {
    void *p = FGL_MALLOC(bytes ? bytes : 1);
    if (p) memset(p, 0, bytes ? bytes : 1);
    return p;
}

FGLDEF float *fgl_new_floats(fgl_store *st, const char *name, size_t n) {
    return (float *)fgl__store_add(st, name, FGL__E_FLOATS, fgl__zalloc(sizeof(float) * n), n, 1);
}

FGLDEF int *fgl_new_ints(fgl_store *st, const char *name, size_t n) {
    return (int *)fgl__store_add(st, name, FGL__E_INTS, fgl__zalloc(sizeof(int) * n), n, 1);
}

FGLDEF fgl_model *fgl_new_model(fgl_store *st, const char *name, const fgl_model_spec *spec, uint64_t seed) {
    fgl_model *m = (fgl_model *)fgl__zalloc(sizeof(fgl_model));
    if (m && fgl_model_init(m, spec, seed, NULL)) {
        FGL_FREE(m);
        m = NULL;
    }
    return (fgl_model *)fgl__store_add(st, name, FGL__E_MODEL, m, 0, 1);
}

FGLDEF fgl_optim *fgl_new_optim(fgl_store *st, const char *name, fgl_optim_config cfg, const fgl_params *ps) {
    fgl_optim *o = (fgl_optim *)fgl__zalloc(sizeof(fgl_optim));
    if (o && fgl_optim_init(o, cfg, ps)) {
        FGL_FREE(o);
        o = NULL;
    }
    return (fgl_optim *)fgl__store_add(st, name, FGL__E_OPTIM, o, 0, 1);
}

FGLDEF fgl_params *fgl_new_params(fgl_store *st, const char *name) {
    fgl_params *ps = (fgl_params *)fgl__zalloc(sizeof(fgl_params));
    if (ps) fgl_params_init(ps);
    return (fgl_params *)fgl__store_add(st, name, FGL__E_PARAMS, ps, 0, 1);
}

FGLDEF void *fgl_new_scratch(fgl_store *st, const char *name, size_t bytes, void (*destroy)(void *)) {
    void *p = fgl__store_add(st, name, FGL__E_SCRATCH, fgl__zalloc(bytes), bytes, 1);
    if (p) st->e[st->n - 1].destroy = destroy;
    return p;
}

FGLDEF fgl_tape *fgl_new_tape(fgl_store *st, const char *name) {
    fgl_tape *t = (fgl_tape *)fgl__zalloc(sizeof(fgl_tape));
    if (t) fgl_tape_init(t);
    return (fgl_tape *)fgl__store_add(st, name, FGL__E_TAPE, t, 0, 1);
}

static void *fgl__store_get(const fgl_store *st, const char *name, int kind) {
    fgl__entry *e = fgl__store_find(st, name, kind);
    if (!e) { /* state is created in an init hook before it is used */
        fgl__store_fail(st, FGL_ERR_ARG, "looks up the state '%s', which it never created (fgl_new_* in an init hook)",
                        name);
#ifndef NDEBUG
        fprintf(stderr, "fgl: the state '%s' is looked up but was never created (fgl_new_* in an init hook)\n",
                name ? name : "(null)");
#endif
        FGL_ASSERT(e != NULL);
        return NULL;
    }
    return e->p;
}

FGLDEF float *fgl_floats(const fgl_store *st, const char *name) {
    return (float *)fgl__store_get(st, name, FGL__E_FLOATS);
}
FGLDEF int *fgl_ints(const fgl_store *st, const char *name) { return (int *)fgl__store_get(st, name, FGL__E_INTS); }
FGLDEF fgl_model *fgl_get_model(const fgl_store *st, const char *name) {
    return (fgl_model *)fgl__store_get(st, name, FGL__E_MODEL);
}
FGLDEF fgl_optim *fgl_get_optim(const fgl_store *st, const char *name) {
    return (fgl_optim *)fgl__store_get(st, name, FGL__E_OPTIM);
}
FGLDEF fgl_params *fgl_get_params(const fgl_store *st, const char *name) {
    return (fgl_params *)fgl__store_get(st, name, FGL__E_PARAMS);
}
FGLDEF void *fgl_get_scratch(const fgl_store *st, const char *name) { return fgl__store_get(st, name, FGL__E_SCRATCH); }
FGLDEF fgl_tape *fgl_get_tape(const fgl_store *st, const char *name) {
    return (fgl_tape *)fgl__store_get(st, name, FGL__E_TAPE);
}

FGLDEF void *fgl_new_state(fgl_store *st, size_t size) {
    if (size > st->state_size) { /* new, or a base's struct extended: its prefix kept */
        void *p = FGL_REALLOC(st->state, size);
        if (!p) {
            fgl__store_fail(st, FGL_ERR_NOMEM, "ran out of memory for its %s", "typed state (FGL_NEW_STATE)");
            return NULL;
        }
        memset((char *)p + st->state_size, 0, size - st->state_size);
        st->state = p;
        st->state_size = size;
    }
    return st->state;
}

FGLDEF void *fgl_state_of(const fgl_store *st, size_t size) {
    if (!st->state || size > st->state_size) { /* made in the init hook, as large as its struct */
        fgl__store_fail(st, FGL_ERR_ARG, "reads its %s, which no init hook made (FGL_NEW_STATE) as large",
                        "typed state (FGL_STATE)");
        FGL_ASSERT(st->state && size <= st->state_size);
        return NULL;
    }
    return st->state;
}

FGLDEF void *fgl_scratch(fgl_store *st, size_t bytes) {
    void *p = fgl_tape_alloc(&st->scratch, bytes ? bytes : 1);
    if (!p) fgl__store_fail(st, FGL_ERR_NOMEM, "ran out of memory for %s", "scratch memory (fgl_scratch)");
    return p;
}

/* --- sizes ------------------------------------------------------------------------- */

/* What the size rules mean in this run (equal for every client; checked). */
typedef struct fgl__dims {
    size_t shared, trainable, clients, classes, rep, emb, hops, input;
    size_t nodes;              /* one client's node count (0: the server's view, where it differs) */
    const double *param;       /* the algorithm's parameter values (sizes by parameter) */
    int n_params;
} fgl__dims;

static size_t fgl__dim(const fgl__dims *d, int rule) {
    switch (rule) {
    case FGL_DIM_SHARED: return d->shared;
    case FGL_DIM_TRAINABLE: return d->trainable;
    case FGL_DIM_CLIENTS: return d->clients;
    case FGL_DIM_CLASSES: return d->classes;
    case FGL_DIM_REP: return d->rep;
    case FGL_DIM_EMB: return d->emb;
    case FGL_DIM_HOPS: return d->hops;
    case FGL_DIM_CLASS_HOPS: return d->classes * d->hops;
    case FGL_DIM_INPUT: return d->input;
    case FGL_DIM_NODES: return d->nodes;
    default:
        if (rule <= FGL__DIM_PARAM0) { /* checked at the start: a positive integer */
            int i = FGL__DIM_PARAM0 - rule;
            return d->param && i < d->n_params && d->param[i] >= 1 ? (size_t)d->param[i] : 0;
        }
        return rule > 0 ? (size_t)rule : 0;
    }
}

static size_t fgl__part_size(const fgl__dims *d, const fgl_part *p) {
    return fgl__dim(d, p->rows) * fgl__dim(d, p->cols);
}
#include "../alone.h"
