#include "../alone.h" /* (this file alone: src/alone.h) */
/* With cfg.park_idle, an idle client's parameters and optimizer moments are
 * packed away (model.params.data is NULL): this makes client i's state
 * resident again, bit for bit, so that a caller may read it (until the next
 * round, which packs it again if the client is idle). FGL_OK at once for a
 * resident client; FGL_ERR_NOMEM, or FGL_ERR_IO for a state in the park
 * file that cannot be read back as written (state still packed). An
 * algorithm's report and client_matrix observers never see the run: they
 * read a client's model with fgl_observed_params, which calls the next. */
FGLDEF int fgl_run_unpark(fgl_run *run, int client);
/* Copy client i's model parameters (run->clients[i].model.params.size
 * floats, in the model's order) into out, which holds cap floats, whether
 * the client is resident or packed (cfg.park_idle); a packed client stays
 * packed: reading changes neither the run nor its memory. FGL_ERR_ARG (out
 * untouched; err, if not NULL, says why): no client i, one hosted by
 * another process (FGL_MPI), or cap smaller than its parameters (err says
 * how many); FGL_ERR_IO: its packed state cannot be read back (out of
 * memory for a copy from the park file, or the file changed). */
FGLDEF int fgl_run_client_params(const fgl_run *run, int client, float *out, size_t cap, fgl_error *err);
/* fgl:implementation */
#include "../alone.h"
/* --- idle clients' state, packed (cfg.park_idle) ------------------------------------ */

/* A parked client's blob holds, in store order, the values of each model or
 * parameter set entry and the two moments of each optimizer entry, as
 * blocks of FGL__PARK_BLOCK floats of three kinds: all zero bits, the same
 * bits as the run's initial model there, or raw (the floats themselves).
 * Neighbouring blocks of one kind form a run of at most FGL__PARK_RUN
 * blocks, written as one byte (kind in the top two bits, length - 1 in the
 * low six) and, for a raw run, its floats. A client that has not trained
 * yet (its model the initial one, fresh moments all zeros) thus costs a
 * byte per 4,096 floats of each array, not a byte per 64: at 10,000 clients
 * of a 21,600-float model with Adam the old tags took 10 MB. Everything
 * else (sizes, layouts, step counts, FLOATS and INTS entries, RNG streams)
 * stays where it is. The blob lives in this process only (native byte
 * order). Gradients are not state: they come back zeroed, as a step starts
 * them. */
#define FGL__PARK_BLOCK 64
#define FGL__PARK_RUN 64 /* a run's length - 1 takes the header byte's low six bits */
#if FGL__PARK_RUN > 64
#error "FGL__PARK_RUN must fit in six bits"
#endif
enum { FGL__PARK_ZERO, FGL__PARK_SAME, FGL__PARK_RAW }; /* a kind takes the top two bits */

static int fgl__park_kind(const float *x, const float *ref, size_t len) {
    static const float zero[FGL__PARK_BLOCK] = {0};
    if (!memcmp(x, zero, sizeof(float) * len)) return FGL__PARK_ZERO;
    return ref && !memcmp(x, ref, sizeof(float) * len) ? FGL__PARK_SAME : FGL__PARK_RAW;
}

/* The kind of the block at i (-1 past the end). */
static int fgl__park_kind_at(const float *x, const float *ref, size_t n, size_t i) {
    return i < n ? fgl__park_kind(x + i, ref ? ref + i : NULL, FGL__MIN((size_t)FGL__PARK_BLOCK, n - i)) : -1;
}

static void fgl__park_floats(fgl_bytes *b, const float *x, const float *ref, size_t n) {
    size_t i = 0;
    int kind = fgl__park_kind_at(x, ref, n, 0);
    while (i < n) { /* one run: blocks of i's kind from i on; the block after it starts the next */
        int blocks = 1, next;
        size_t end = FGL__MIN(n, i + FGL__PARK_BLOCK);
        unsigned char head;
        while ((next = fgl__park_kind_at(x, ref, n, end)) == kind && blocks < FGL__PARK_RUN) {
            end = FGL__MIN(n, end + FGL__PARK_BLOCK);
            blocks++;
        }
        head = (unsigned char)(kind << 6 | (blocks - 1));
        fgl_bytes_put(b, &head, 1);
        if (kind == FGL__PARK_RAW) fgl_bytes_put(b, x + i, sizeof(float) * (end - i));
        i = end;
        kind = next;
    }
}

static const unsigned char *fgl__unpark_floats(const unsigned char *p, float *x, const float *ref, size_t n) {
    size_t i = 0;
    while (i < n) {
        int kind = *p >> 6, blocks = (*p & 63) + 1;
        size_t len = FGL__MIN(n - i, (size_t)blocks * FGL__PARK_BLOCK);
        p++;
        if (kind == FGL__PARK_ZERO) {
            memset(x + i, 0, sizeof(float) * len);
        } else if (kind == FGL__PARK_SAME) {
            memcpy(x + i, ref + i, sizeof(float) * len);
        } else {
            memcpy(x + i, p, sizeof(float) * len);
            p += sizeof(float) * len;
        }
        i += len;
    }
    return p;
}

/* The parameter set of a model or parameter set entry (NULL for other kinds),
 * and the initial model's values when its size matches (blocks are compared
 * bit for bit, so any same-sized reference packs and unpacks exactly). */
static fgl_params *fgl__entry_params(const fgl__entry *e) {
    if (e->kind == FGL__E_MODEL) return &((fgl_model *)e->p)->params;
    return e->kind == FGL__E_PARAMS ? (fgl_params *)e->p : NULL;
}

static const float *fgl__park_ref(const fgl_run *run, size_t n) {
    return run->ref.params.data && run->ref.params.size == n ? run->ref.params.data : NULL;
}

/* cfg.park_idle 2: the packed states in one temporary file, a slot per
 * client reused while the state fits (a trained client's always does).
 * Clients pack and unpack in parallel; the file is used by one at a time.
 * Any failure (no temporary file, a full disk) keeps the state in memory. */
static int fgl__park_write(fgl_run *run, fgl_client *c, const unsigned char *blob, size_t len) {
    int rc = FGL_ERR_IO;
#ifdef _OPENMP
#pragma omp critical(fgl__park_file)
#endif
    {
        if (!run->park_file) run->park_file = tmpfile();
        if (run->park_file) {
            size_t at = c->park_cap >= len ? c->park_off : run->park_end;
            if (len <= (size_t)LONG_MAX && at <= (size_t)LONG_MAX - len &&
                fseek(run->park_file, (long)at, SEEK_SET) == 0 && fwrite(blob, 1, len, run->park_file) == len) {
                if (at == run->park_end) {
                    run->park_end += len;
                    c->park_off = at;
                    c->park_cap = len;
                }
                c->park_sum = fgl_checksum64(blob, len);
                rc = FGL_OK;
            }
        }
    }
    return rc;
}

/* A parked client's blob: c->parked, or a copy read from the park file into
 * *owned (the caller frees it); NULL if it cannot be read back as written. */
static const unsigned char *fgl__park_blob(const fgl_run *run, const fgl_client *c, unsigned char **owned) {
    unsigned char *buf;
    int ok = 0;
    *owned = NULL;
    if (c->parked) return c->parked;
    if (!run->park_file || !(buf = (unsigned char *)FGL_MALLOC(c->parked_len))) return NULL;
#ifdef _OPENMP
#pragma omp critical(fgl__park_file)
#endif
    ok = fseek(run->park_file, (long)c->park_off, SEEK_SET) == 0 &&
         fread(buf, 1, c->parked_len, run->park_file) == c->parked_len;
    if (!ok || fgl_checksum64(buf, c->parked_len) != c->park_sum) { /* unreadable or changed on disk */
        FGL_FREE(buf);
        return NULL;
    }
    return *owned = buf;
}

/* Free the arrays a packed client does without (parameter values and
 * gradients, optimizer moments) and, with tapes, trim its store's tapes. */
static void fgl__park_release(fgl_store *st, int tapes) {
    int i;
    for (i = 0; i < st->n; i++) {
        fgl__entry *e = &st->e[i];
        fgl_params *ps = fgl__entry_params(e);
        if (ps) {
            FGL_FREE(ps->data);
            FGL_FREE(ps->grad);
            ps->data = ps->grad = NULL;
        } else if (e->kind == FGL__E_OPTIM) {
            fgl_optim *o = (fgl_optim *)e->p;
            FGL_FREE(o->m);
            FGL_FREE(o->v);
            o->m = o->v = NULL;
        } else if (tapes && e->kind == FGL__E_TAPE) {
            fgl_tape_trim((fgl_tape *)e->p);
        }
    }
}

/* A client gone idle gives its tape's arena to the run, for the next client
 * that trains or evaluates, and trims the tape (its error state stays); an
 * arena the run has no room for is freed. Every client's step is the same
 * size, so a lent arena is usually large enough already: new memory (a
 * page fault on every page's first touch, about 10 us each on some VMs)
 * then comes only with the data and state of a client, not with each
 * client-round of --frac's draws. */
static void fgl__tape_stow(fgl_run *run, fgl_tape *t) {
    fgl__chunk *a = t->chunk;
    int kept = 0;
    if (a && run->cap_arenas > 0) {
        fgl__chunks_free(a->prev); /* the newest chunk only: a reset would merge them anyway */
        a->prev = NULL;
        a->used = 0;
#ifdef _OPENMP
#pragma omp critical(fgl__arenas)
#endif
        if (run->n_arenas < run->cap_arenas) {
            run->arenas[run->n_arenas++] = a;
            kept = 1;
        }
        if (kept) t->chunk = NULL;
    }
    fgl_tape_trim(t);
}

/* A tape without an arena borrows one that an idle client gave back. */
static void fgl__tape_lend(fgl_run *run, fgl_tape *t) {
    fgl__chunk *a = NULL;
    if (t->chunk || run->cap_arenas == 0) return;
#ifdef _OPENMP
#pragma omp critical(fgl__arenas)
#endif
    if (run->n_arenas > 0) a = run->arenas[--run->n_arenas];
    t->chunk = a;
}

/* Pack an idle client's state and free what it no longer needs; a client
 * whose state cannot be packed (out of memory) simply stays resident. */
static void fgl__park(fgl_run *run, fgl_client *c) {
    fgl_store *st = &c->store;
    fgl_bytes b;
    int i, p;
    if (c->parked_len || !c->local) return;
    fgl_bytes_init(&b);
    for (i = 0; i < st->n; i++) {
        const fgl__entry *e = &st->e[i];
        fgl_params *ps = fgl__entry_params(e);
        if (ps) fgl__park_floats(&b, ps->data, fgl__park_ref(run, ps->size), ps->size);
        if (e->kind == FGL__E_OPTIM) {
            const fgl_optim *o = (const fgl_optim *)e->p;
            fgl__park_floats(&b, o->m, NULL, o->size);
            fgl__park_floats(&b, o->v, NULL, o->size);
        }
    }
    if (b.err || !b.len) { /* out of memory, or no floats at all */
        fgl_bytes_free(&b);
        return;
    }
    fgl__park_release(st, 1);
    fgl__tape_stow(run, &c->tape);
    fgl_tape_trim(&st->scratch);
    for (p = 0; p < FGL_MSG_MAX_PARTS; p++) { /* the uploads were read in their round */
        FGL_FREE(c->up.own[p]);
        c->up.own[p] = NULL;
        c->up.part[p] = NULL;
        c->up.cap[p] = c->up.len[p] = 0;
    }
    c->parked_len = b.len;
    if (run->cfg.park_idle == 2 && fgl__park_write(run, c, b.data, b.len) == FGL_OK) {
        fgl_bytes_free(&b);
        return;
    }
    c->parked = (unsigned char *)FGL_REALLOC(b.data, b.len); /* in memory; the growth slack given back */
    if (!c->parked) c->parked = b.data;
}

/* Give a parked client its state back; FGL_ERR_NOMEM leaves it parked. */
static int fgl__unpark(fgl_run *run, fgl_client *c) {
    fgl_store *st = &c->store;
    unsigned char *owned;
    const unsigned char *blob, *p;
    int i, ok = 1;
    fgl__tape_lend(run, &c->tape);
    if (!c->parked_len) return FGL_OK;
    if (!(p = blob = fgl__park_blob(run, c, &owned))) return FGL_ERR_IO;
    for (i = 0; i < st->n; i++) { /* allocate everything first: all or nothing */
        fgl__entry *e = &st->e[i];
        fgl_params *ps = fgl__entry_params(e);
        size_t n = ps ? ps->size : e->kind == FGL__E_OPTIM ? ((fgl_optim *)e->p)->size : 0;
        float **a = ps ? &ps->data : e->kind == FGL__E_OPTIM ? &((fgl_optim *)e->p)->m : NULL;
        float **z = ps ? &ps->grad : e->kind == FGL__E_OPTIM ? &((fgl_optim *)e->p)->v : NULL;
        if (!a) continue;
        *a = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(n, 1));
        *z = (float *)fgl__zalloc(sizeof(float) * n);
        ok &= *a && *z;
    }
    if (!ok) {
        fgl__park_release(st, 0);
        FGL_FREE(owned);
        return FGL_ERR_NOMEM;
    }
    for (i = 0; i < st->n; i++) {
        const fgl__entry *e = &st->e[i];
        fgl_params *ps = fgl__entry_params(e);
        if (ps) p = fgl__unpark_floats(p, ps->data, fgl__park_ref(run, ps->size), ps->size);
        if (e->kind == FGL__E_OPTIM) {
            fgl_optim *o = (fgl_optim *)e->p;
            p = fgl__unpark_floats(p, o->m, NULL, o->size);
            p = fgl__unpark_floats(p, o->v, NULL, o->size);
        }
    }
    FGL_ASSERT((size_t)(p - blob) == c->parked_len);
    FGL_FREE(owned);
    FGL_FREE(c->parked);
    c->parked = NULL;
    c->parked_len = 0;
    return FGL_OK;
}

/* Every local client resident; the error (FGL_ERR_NOMEM, FGL_ERR_IO) when
 * one cannot be (those already unpacked stay resident: that changes
 * memory, not the run). */
static int fgl__unpark_all(fgl_run *run) {
    int i;
    int rc;
    for (i = 0; i < run->n_clients; i++)
        if ((rc = fgl__unpark(run, &run->clients[i]))) return rc;
    return FGL_OK;
}

/* Past n packed floats, without unpacking them. */
static const unsigned char *fgl__park_skip(const unsigned char *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        size_t len = FGL__MIN(n - i, (size_t)((*p & 63) + 1) * FGL__PARK_BLOCK);
        if (*p++ >> 6 == FGL__PARK_RAW) p += sizeof(float) * len;
        i += len;
    }
    return p;
}

FGLDEF int fgl_run_client_params(const fgl_run *run, int client, float *out, size_t cap, fgl_error *err) {
    const fgl_client *c;
    const unsigned char *p;
    unsigned char *owned;
    int i;
    if (!run || !run->clients || client < 0 || client >= run->n_clients)
        return fgl_error_set(err, FGL_ERR_ARG, "client parameters: no client %d", client);
    c = &run->clients[client];
    if (!c->local)
        return fgl_error_set(err, FGL_ERR_ARG, "client parameters: client %d is hosted by another process", client);
    if (cap < c->model.params.size || !out)
        return fgl_error_set(err, FGL_ERR_ARG, "client parameters: client %d has %zu parameters, the output holds %zu",
                             client, c->model.params.size, out ? cap : (size_t)0);
    if (!c->parked_len) {
        memcpy(out, c->model.params.data, sizeof(float) * c->model.params.size);
        return FGL_OK;
    }
    if (!(p = fgl__park_blob(run, c, &owned)))
        return fgl_error_set(err, FGL_ERR_IO, "client parameters: client %d's packed state cannot be read back",
                             client);
    for (i = 0; i < c->store.n; i++) { /* the blob holds the entries in store order (fgl__park) */
        const fgl__entry *e = &c->store.e[i];
        const fgl_params *ps = fgl__entry_params(e);
        if (e->p == (const void *)&c->model) {
            fgl__unpark_floats(p, out, fgl__park_ref(run, ps->size), ps->size);
            break;
        }
        if (ps) p = fgl__park_skip(p, ps->size);
        if (e->kind == FGL__E_OPTIM) { /* its two moments */
            size_t n = ((const fgl_optim *)e->p)->size;
            p = fgl__park_skip(fgl__park_skip(p, n), n);
        }
    }
    FGL_FREE(owned);
    FGL_ASSERT(i < c->store.n); /* the client's model is in its store */
    return i < c->store.n ? FGL_OK : FGL_ERR_ARG;
}

FGLDEF int fgl_run_unpark(fgl_run *run, int client) {
    if (!run->clients || client < 0 || client >= run->n_clients)
        return fgl_error_set(&run->err, FGL_ERR_ARG, "run: no client %d", client);
    int rc = fgl__unpark(run, &run->clients[client]);
    if (rc)
        return fgl_error_set(&run->err, rc, "client %d: cannot restore its packed state (%s)", client,
                             fgl_result_name(rc));
    return FGL_OK;
}

#include "../alone.h"
