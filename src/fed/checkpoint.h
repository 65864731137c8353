#include "../alone.h" /* (this file alone: src/alone.h) */
/* Checkpoint the whole run (models, optimizers, RNG streams, every state
 * entry, history) and resume it: the resumed run finishes with the same
 * bits. The file records a fingerprint of the configuration, the
 * algorithm's parameters and the clients' data; loading it into a run that
 * differs is refused, and a failed load leaves the run as it was. The
 * run's secrets are never in it: with DP from the system's entropy a
 * resumed run draws new noise (the same only with cfg.secrets from a seed),
 * and a secure-aggregation run whose clients live in other processes is
 * not saved at all (the file would hold every client's state).
 * The file also records the build that wrote it (fgl_build_id): another
 * build may round differently (other instruction sets, fast math, another
 * compiler), so that the resumed run would match neither build's bits;
 * fgl_run_load refuses a checkpoint of another build (or of one that did not
 * record it) unless run->allow_other_build is set, and then copies the
 * other build's identity into run->other_build for the record. */
FGLDEF int fgl_run_save(const fgl_run *run, const char *path, fgl_error *err);
FGLDEF int fgl_run_load(fgl_run *run, const char *path, fgl_error *err);
/* The identity of this build of the library, as far as it decides a run's
 * floating-point bits: the library version, the compiler and its version,
 * the instruction sets compiled for, fast math, and FGL_BUILD_FLAGS when
 * the build defines it (a string: the compiler flags). Thread counts, MPI
 * and OpenMP give the same bits and are not in it. */
FGLDEF const char *fgl_build_id(void);

/* fgl:implementation */
#include "../alone.h"
/* --- checkpoints ----------------------------------------------------------------- */

#define FGL__STR2(x) #x
#define FGL__STR(x) FGL__STR2(x)
#if defined(__clang__)
#define FGL__BUILD_CC "clang " __clang_version__
#elif defined(__GNUC__)
#define FGL__BUILD_CC "gcc " __VERSION__
#elif defined(_MSC_VER)
#define FGL__BUILD_CC "msvc " FGL__STR(_MSC_VER)
#else
#define FGL__BUILD_CC "cc"
#endif
#ifdef __AVX512F__
#define FGL__BUILD_AVX512 " avx512f"
#else
#define FGL__BUILD_AVX512 ""
#endif
#ifdef __AVX2__
#define FGL__BUILD_AVX2 " avx2"
#else
#define FGL__BUILD_AVX2 ""
#endif
#ifdef __FMA__
#define FGL__BUILD_FMA " fma"
#else
#define FGL__BUILD_FMA ""
#endif
#ifdef __AVX__
#define FGL__BUILD_AVX " avx"
#else
#define FGL__BUILD_AVX ""
#endif
#if defined(__ARM_NEON) || defined(__aarch64__)
#define FGL__BUILD_NEON " neon"
#else
#define FGL__BUILD_NEON ""
#endif
#if defined(__FAST_MATH__)
#define FGL__BUILD_FAST " fast-math"
#else
#define FGL__BUILD_FAST ""
#endif
#ifdef FGL_BUILD_FLAGS
#define FGL__BUILD_FLAGS "; flags " FGL_BUILD_FLAGS
#else
#define FGL__BUILD_FLAGS ""
#endif

FGLDEF const char *fgl_build_id(void) {
    return "fgl " FGL_VERSION "; " FGL__BUILD_CC ";" FGL__BUILD_AVX512 FGL__BUILD_AVX2 FGL__BUILD_AVX FGL__BUILD_FMA
           FGL__BUILD_NEON FGL__BUILD_FAST FGL__BUILD_FLAGS;
}

#define FGL__RUN_MAGIC "FGLR"
#define FGL__RUN_VERSION 6u /* 2: named state entries, configuration fingerprint; 3: robust fallbacks per round;
                              4: Hits@K per round (link prediction); 5: DP noise values drawn per round;
                              6: macro-F1 and ROC-AUC per round and per client */

static void fgl__put_sum(fgl_bytes *b, const void *p, size_t bytes) {
    fgl_bytes_put_u64(b, p ? fgl_checksum64(p, bytes) : 0);
}

static void fgl__put_csr_sum(fgl_bytes *b, const fgl_csr *a) {
    fgl_bytes_put_u32(b, (uint32_t)a->rows);
    fgl_bytes_put_u32(b, (uint32_t)a->nnz);
    fgl__put_sum(b, a->indptr, a->indptr ? sizeof(int) * (size_t)(a->rows + 1) : 0);
    fgl__put_sum(b, a->indices, sizeof(int) * (size_t)a->nnz);
    fgl__put_sum(b, a->values, a->values ? sizeof(float) * (size_t)a->nnz : 0);
}

/* A checksum of a client's data (what decides its bits). */
static uint64_t fgl__data_sum(const fgl_node_data *nd, const fgl_graph_set *gs) {
    fgl_bytes b;
    uint64_t h;
    fgl_bytes_init(&b);
    if (nd) {
        size_t n = (size_t)nd->n_nodes;
        fgl_bytes_put_u32(&b, (uint32_t)nd->n_nodes);
        fgl_bytes_put_u32(&b, (uint32_t)nd->n_feat);
        fgl_bytes_put_u32(&b, (uint32_t)nd->n_classes);
        fgl__put_sum(&b, nd->y, sizeof(int) * n);
        fgl__put_sum(&b, nd->split, n);
        fgl__put_csr_sum(&b, &nd->adj);
        fgl__put_sum(&b, nd->x.data, nd->x.data ? sizeof(float) * fgl_tensor_size(&nd->x) : 0);
        if (nd->x_sparse.rows) fgl__put_csr_sum(&b, &nd->x_sparse);
        if (nd->gid) { /* a halo (fgl_split_halo): its ids, own rows, hops, the whole graph's GCN norm */
            fgl_bytes_put_u32(&b, (uint32_t)nd->n_own);
            fgl_bytes_put_u32(&b, (uint32_t)nd->halo_hops);
            fgl__put_sum(&b, nd->gid, sizeof(int) * n);
            fgl__put_csr_sum(&b, &nd->adj_gcn);
        }
    } else if (gs) {
        fgl_bytes_put_u32(&b, (uint32_t)gs->n_graphs);
        fgl_bytes_put_u32(&b, (uint32_t)gs->n_nodes);
        fgl_bytes_put_u32(&b, (uint32_t)gs->n_feat);
        fgl_bytes_put_u32(&b, (uint32_t)gs->n_pe);
        fgl__put_sum(&b, gs->y, sizeof(int) * (size_t)gs->n_graphs);
        fgl__put_sum(&b, gs->split, (size_t)gs->n_graphs);
        fgl__put_sum(&b, gs->node_ptr, sizeof(int) * (size_t)(gs->n_graphs + 1));
        fgl__put_csr_sum(&b, &gs->adj);
        fgl__put_sum(&b, gs->x, sizeof(float) * (size_t)gs->n_nodes * (size_t)gs->n_feat);
        fgl__put_sum(&b, gs->pe, gs->pe ? sizeof(float) * (size_t)gs->n_nodes * (size_t)gs->n_pe : 0);
    }
    h = b.err ? 0 : fgl_checksum64(b.data, b.len);
    fgl_bytes_free(&b);
    return h;
}

/* A checksum of everything that decides a run's bits: the configuration
 * (but the thread count), the algorithm and its parameter values, each
 * client's model spec and data. */
static uint64_t fgl__fingerprint(const fgl_run *run) {
    fgl_bytes b;
    uint64_t h;
    int i;
    fgl_bytes_init(&b);
    fgl_bytes_put_str(&b, run->algo.name);
    for (i = 0; i < run->algo.n_params; i++) {
        fgl_bytes_put_str(&b, run->algo.params[i].name);
        fgl__put_f64(&b, run->set.value[i]);
    }
    fgl__put_config(&b, &run->cfg);
    if (run->cfg.plugin.name[0]) { /* a plug-in by name (none: the fingerprint of the builds before it) */
        fgl_bytes_put_str(&b, run->cfg.plugin.name);
        fgl__put_f64(&b, run->cfg.plugin.arg);
    }
    fgl_bytes_put_u32(&b, (uint32_t)run->n_clients);
    if (run->pub) { /* the server's public data */
        const fgl_node_data *pd = run->pub;
        fgl_bytes_put_u32(&b, (uint32_t)pd->n_nodes);
        fgl_bytes_put_u32(&b, (uint32_t)pd->n_feat);
        fgl__put_sum(&b, pd->y, sizeof(int) * (size_t)pd->n_nodes);
        fgl__put_csr_sum(&b, &pd->adj);
        fgl__put_sum(&b, pd->x.data, pd->x.data ? sizeof(float) * fgl_tensor_size(&pd->x) : 0);
        if (pd->x_sparse.rows) fgl__put_csr_sum(&b, &pd->x_sparse);
    }
    for (i = 0; i < run->n_clients; i++) {
        const fgl_client *cl = &run->clients[i];
        const fgl_model_spec *s = &cl->spec;
        const fgl_node_data *nd = cl->data.node;
        const fgl_graph_set *gs = cl->data.graphs;
        int ints[18] = {s->arch,
                        s->task,
                        s->in_dim,
                        s->hidden,
                        s->out_dim,
                        s->layers,
                        s->readout,
                        s->head,
                        s->input_proj,
                        s->batch_norm,
                        s->learn_eps,
                        s->heads,
                        s->sgc_hops,
                        s->pe_dim,
                        s->masked,
                        0,
                        0,
                        0};
        float fl[7] = {s->dropout,    s->input_dropout, s->gcnii_alpha, s->gcnii_lambda,
                       s->mask_prune, s->bn_momentum,   s->bn_eps};
        int q;
        for (q = 0; q < 15; q++) fgl_bytes_put_u32(&b, (uint32_t)ints[q]);
        fgl_bytes_put_f32s(&b, fl, 7);
        if (s->residual || s->norm) { /* only then: the checkpoints of models without them keep their sums */
            fgl_bytes_put_u32(&b, (uint32_t)s->residual);
            fgl_bytes_put_u32(&b, (uint32_t)s->norm);
        }
        /* a link client's edge split is part of its data */
        fgl_bytes_put_u64(&b, !cl->local ? cl->data_sum
                                         : fgl__data_sum(nd, gs) ^ (cl->data.link ? cl->data.link->sum : 0));
    }
    h = b.err ? 0 : fgl_checksum64(b.data, b.len);
    fgl_bytes_free(&b);
    return h;
}

/* A layout's checksum: slice names, shapes, tags, offsets. */
static uint64_t fgl__layout_sum(const fgl_params *ps) {
    uint64_t h = 1469598103934665603ull;
    int i;
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *s = &ps->slices[i];
        uint64_t v[4];
        v[0] = (uint64_t)s->rows;
        v[1] = (uint64_t)s->cols;
        v[2] = (uint64_t)s->groups | ((uint64_t)s->trainable << 32);
        v[3] = (uint64_t)s->offset;
        h ^= fgl_checksum64(s->name, strlen(s->name));
        h = h * 1099511628211ull ^ fgl_checksum64(v, sizeof v);
    }
    return h;
}

/* A store's entries into b; c: the client that owns it (NULL: the server's).
 * A packed client's values are unpacked one array at a time into a
 * temporary buffer. */
static void fgl__put_store(const fgl_run *run, fgl_bytes *b, const fgl_store *st, const fgl_client *c) {
    int i, q, n = 0;
    float *tmp = NULL;
    size_t tmp_n = 0;
    unsigned char *owned = NULL;
    const unsigned char *parked = NULL;
    if (c && c->parked_len && !(parked = fgl__park_blob(run, c, &owned))) {
        b->err = FGL_ERR_IO;
        return;
    }
    for (i = 0; i < st->n; i++) {
        const fgl__entry *e = &st->e[i];
        const fgl_params *ps = fgl__entry_params(e);
        size_t k = ps ? ps->size : e->kind == FGL__E_OPTIM ? ((const fgl_optim *)e->p)->size : 0;
        n += e->kind != FGL__E_SCRATCH && e->kind != FGL__E_TAPE;
        tmp_n = FGL__MAX(tmp_n, k);
    }
    if (parked && !(tmp = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(tmp_n, 1)))) {
        FGL_FREE(owned);
        b->err = FGL_ERR_NOMEM;
        return;
    }
    fgl_bytes_put_u32(b, (uint32_t)n);
    for (i = 0; i < st->n; i++) {
        const fgl__entry *e = &st->e[i];
        if (e->kind == FGL__E_SCRATCH || e->kind == FGL__E_TAPE) continue;
        fgl_bytes_put_u32(b, (uint32_t)e->kind);
        fgl_bytes_put_str(b, e->name);
        switch (e->kind) {
        case FGL__E_FLOATS:
            fgl_bytes_put_u64(b, e->n);
            fgl_bytes_put_f32s(b, (const float *)e->p, e->n);
            break;
        case FGL__E_INTS:
            fgl_bytes_put_u64(b, e->n);
            for (q = 0; q < (int)e->n; q++) fgl_bytes_put_u32(b, (uint32_t)((const int *)e->p)[q]);
            break;
        case FGL__E_MODEL:
        case FGL__E_PARAMS: {
            const fgl_params *ps = fgl__entry_params(e);
            fgl_bytes_put_u64(b, ps->size);
            fgl_bytes_put_u64(b, fgl__layout_sum(ps));
            if (parked) parked = fgl__unpark_floats(parked, tmp, fgl__park_ref(run, ps->size), ps->size);
            fgl_bytes_put_f32s(b, parked ? tmp : ps->data, ps->size);
            break;
        }
        case FGL__E_OPTIM: {
            const fgl_optim *o = (const fgl_optim *)e->p;
            fgl_bytes_put_u64(b, o->size);
            fgl_bytes_put_u64(b, (uint64_t)o->t);
            if (parked) parked = fgl__unpark_floats(parked, tmp, NULL, o->size);
            fgl_bytes_put_f32s(b, parked ? tmp : o->m, o->size);
            if (parked) parked = fgl__unpark_floats(parked, tmp, NULL, o->size);
            fgl_bytes_put_f32s(b, parked ? tmp : o->v, o->size);
            break;
        }
        default: { /* FGL__E_RNG */
            const fgl_rng *r = (const fgl_rng *)e->p;
            fgl_bytes_put_u64(b, 0);
            for (q = 0; q < 4; q++) fgl_bytes_put_u64(b, r->s[q]);
        }
        }
    }
    FGL_FREE(tmp);
    FGL_FREE(owned);
}

/* The checkpoint of run into b; client_stores (NULL: the run's own) gives
 * client i's serialised store (what a transport gathered from where the
 * client lives). */
static void fgl__save_bytes(const fgl_run *run, fgl_bytes *b_out, const fgl_bytes *client_stores);

FGLDEF int fgl_run_save(const fgl_run *run, const char *path, fgl_error *err) {
    fgl_bytes b, *stores = NULL;
    int rc = FGL_OK, i;
    fgl_bytes_init(&b);
    if (run->transport && run->cfg.secagg.on)
        return fgl_error_set(err, FGL_ERR_ARG, "%s: refused: a checkpoint of a secure-aggregation run would bring "
                             "every client's state to the server's process", path);
    if (run->transport && run->started) { /* the remote clients' state comes from where they live */
        stores = (fgl_bytes *)fgl__zalloc(sizeof(fgl_bytes) * (size_t)run->n_clients);
        if (!stores) return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", path);
        for (i = 0; i < run->n_clients; i++)
            if (run->clients[i].local) fgl__put_store(run, &stores[i], &run->clients[i].store, &run->clients[i]);
        /* the transport may find a host lost while asking: that is the run's state to change */
        if ((rc = run->transport->save((fgl_run *)run, stores)))
            rc = fgl_error_set(err, rc, "%s: not written: %s", path, run->err.msg);
    }
    if (!rc) {
        fgl__save_bytes(run, &b, stores);
        rc = b.err ? fgl_error_set(err, b.err, "%s: cannot build the checkpoint (%s)", path, fgl_result_name(b.err))
                   : fgl_file_write(path, b.data, b.len, err);
    }
    for (i = 0; stores && i < run->n_clients; i++) fgl_bytes_free(&stores[i]);
    FGL_FREE(stores);
    fgl_bytes_free(&b);
    return rc;
}

static void fgl__save_bytes(const fgl_run *run, fgl_bytes *b_out, const fgl_bytes *client_stores) {
    fgl_bytes b = *b_out;
    size_t mark, rounds = (size_t)run->round, k, RK = rounds * (size_t)run->n_clients;
    int i;
    fgl_frame_begin(&b, FGL__RUN_MAGIC, FGL__RUN_VERSION, &mark);
    fgl_bytes_put_str(&b, run->algo.name);
    fgl_bytes_put_u32(&b, (uint32_t)run->n_clients);
    fgl_bytes_put_u32(&b, (uint32_t)run->cfg.rounds);
    fgl_bytes_put_u64(&b, run->cfg.seed);
    fgl_bytes_put_u64(&b, fgl__fingerprint(run));
    fgl_bytes_put_u32(&b, (uint32_t)run->started);
    fgl_bytes_put_u32(&b, (uint32_t)run->round);
    fgl_bytes_put_str(&b, fgl_build_id()); /* (version 5 on) */
    fgl_bytes_put_u64(&b, (uint64_t)run->bytes_up);
    fgl_bytes_put_u64(&b, (uint64_t)run->bytes_down);
    fgl_bytes_put_u32(&b, (uint32_t)run->rejected_total);
    for (i = 0; i < run->n_clients; i++) fgl_bytes_put_u32(&b, (uint32_t)run->rejected_by[i]);
    fgl_bytes_put_u32(&b, (uint32_t)run->n_part); /* the next round's participants, already drawn */
    for (i = 0; i < run->n_part; i++) fgl_bytes_put_u32(&b, (uint32_t)run->part[i]);
    for (k = 0; k < rounds; k++) {
        const fgl_round_stats *st = &run->stats[k];
        fgl_bytes_put_u32(&b, (uint32_t)st->n_part);
        fgl_bytes_put_u32(&b, (uint32_t)st->n_rejected);
        fgl_bytes_put_u32(&b, (uint32_t)st->n_screened);
        fgl_bytes_put_u32(&b, (uint32_t)st->n_clipped);
        fgl_bytes_put_u32(&b, (uint32_t)st->n_dropped);
        fgl_bytes_put_u32(&b, (uint32_t)st->n_lost);
        fgl_bytes_put_u32(&b, (uint32_t)st->n_fallback);
        fgl_bytes_put_u64(&b, (uint64_t)st->dp_draws);
        fgl_bytes_put_u64(&b, (uint64_t)st->bytes_up);
        fgl_bytes_put_u64(&b, (uint64_t)st->bytes_down);
        fgl__put_f64(&b, st->train_loss);
        fgl__put_f64(&b, st->val_acc);
        fgl__put_f64(&b, st->test_acc);
        fgl__put_f64(&b, st->val_hits);
        fgl__put_f64(&b, st->test_hits);
        fgl__put_f64(&b, st->val_f1); /* (version 6 on) */
        fgl__put_f64(&b, st->test_f1);
        fgl__put_f64(&b, st->val_auc);
        fgl__put_f64(&b, st->test_auc);
        fgl__put_f64(&b, st->t_train);
        fgl__put_f64(&b, st->t_server);
        fgl__put_f64(&b, st->t_eval);
    }
    for (k = 0; k < RK; k++) {
        fgl__put_f64(&b, run->client_val[k]);
        fgl__put_f64(&b, run->client_test[k]);
        fgl__put_f64(&b, run->client_loss[k]);
        fgl_bytes_put_u64(&b, (uint64_t)run->client_up[k]);
        fgl_bytes_put_u64(&b, (uint64_t)run->client_down[k]);
        fgl__put_f64(&b, run->client_val_f1[k]); /* (version 6 on) */
        fgl__put_f64(&b, run->client_test_f1[k]);
        fgl__put_f64(&b, run->client_val_auc[k]);
        fgl__put_f64(&b, run->client_test_auc[k]);
    }
    if (run->started) {
        fgl__put_store(run, &b, &run->server.store, NULL);
        for (i = 0; i < run->n_clients; i++) {
            if (client_stores) fgl_bytes_put(&b, client_stores[i].data, client_stores[i].len);
            else fgl__put_store(run, &b, &run->clients[i].store, &run->clients[i]);
        }
    }
    fgl_frame_end(&b, mark);
    *b_out = b;
}

/* Advance past n bytes, or fail the reader. */
static int fgl__skip(fgl_reader *r, size_t n) {
    if (r->err || r->len - r->pos < n) {
        r->err = FGL_ERR_FORMAT;
        return r->err;
    }
    r->pos += n;
    return FGL_OK;
}

/* Read one store's entries: check them against st (commit 0), or copy them
 * in (commit 1, only after a checking pass succeeded on the same bytes). */
static int fgl__get_store(fgl_reader *r, fgl_store *st, int commit, const char *path, fgl_error *err) {
    uint32_t n = fgl_reader_u32(r), i;
    int expect = 0, q;
    const char *who = st->owner < 0 ? "the server" : "client";
    for (q = 0; q < st->n; q++) expect += st->e[q].kind != FGL__E_SCRATCH && st->e[q].kind != FGL__E_TAPE;
    if (r->err || n != (uint32_t)expect)
        return fgl_error_set(err, FGL_ERR_SHAPE, "%s: %s %d holds %u state entries, this run %d", path, who, st->owner,
                             (unsigned)n, expect);
    for (i = 0; i < n; i++) {
        char name[FGL__ENTRY_NAME];
        int kind = (int)fgl_reader_u32(r);
        fgl__entry *e;
        uint64_t size;
        fgl_reader_str(r, name, sizeof name);
        size = fgl_reader_u64(r);
        if (r->err) return fgl_error_set(err, FGL_ERR_FORMAT, "%s: truncated state entry", path);
        e = fgl__store_find(st, name, kind);
        if (!e)
            return fgl_error_set(err, FGL_ERR_SHAPE, "%s: state '%s' (%s %d) is not in this run", path, name, who,
                                 st->owner);
        switch (kind) {
        case FGL__E_FLOATS:
        case FGL__E_INTS:
            if (size != (uint64_t)e->n)
                return fgl_error_set(err, FGL_ERR_SHAPE, "%s: state '%s' has %llu values, this run %zu", path, name,
                                     (unsigned long long)size, e->n);
            if (!commit) {
                if (fgl__skip(r, 4 * e->n)) break;
            } else if (kind == FGL__E_FLOATS) {
                fgl_reader_f32s(r, (float *)e->p, e->n);
            } else {
                size_t k;
                for (k = 0; k < e->n; k++) ((int *)e->p)[k] = (int)fgl_reader_u32(r);
            }
            break;
        case FGL__E_MODEL:
        case FGL__E_PARAMS: {
            fgl_params *ps = kind == FGL__E_MODEL ? &((fgl_model *)e->p)->params : (fgl_params *)e->p;
            uint64_t layout = fgl_reader_u64(r);
            if (size != (uint64_t)ps->size || layout != fgl__layout_sum(ps))
                return fgl_error_set(err, FGL_ERR_SHAPE, "%s: parameters '%s' have another layout", path, name);
            if (!commit) fgl__skip(r, 4 * ps->size);
            else fgl_reader_f32s(r, ps->data, ps->size);
            break;
        }
        case FGL__E_OPTIM: {
            fgl_optim *o = (fgl_optim *)e->p;
            uint64_t t = fgl_reader_u64(r);
            if (size != (uint64_t)o->size)
                return fgl_error_set(err, FGL_ERR_SHAPE, "%s: optimizer '%s' has another size", path, name);
            if (!commit) {
                fgl__skip(r, 8 * o->size);
            } else {
                fgl_reader_f32s(r, o->m, o->size);
                fgl_reader_f32s(r, o->v, o->size);
                o->t = (int64_t)t;
            }
            break;
        }
        case FGL__E_RNG: {
            fgl_rng *g = (fgl_rng *)e->p;
            if (!commit) fgl__skip(r, 32);
            else
                for (q = 0; q < 4; q++) g->s[q] = fgl_reader_u64(r);
            break;
        }
        default: return fgl_error_set(err, FGL_ERR_FORMAT, "%s: state '%s' of unknown kind %d", path, name, kind);
        }
        if (r->err) return fgl_error_set(err, FGL_ERR_FORMAT, "%s: state '%s' truncated", path, name);
    }
    return FGL_OK;
}

/* Everything after the header: checked (commit 0) or installed (commit 1). */
/* The extent of one serialised store, read past without being understood
 * (a remote client's, forwarded to where it lives). */
static int fgl__skip_store(fgl_reader *r) {
    uint32_t n = fgl_reader_u32(r), i;
    for (i = 0; i < n && !r->err; i++) {
        char name[FGL__ENTRY_NAME];
        int kind = (int)fgl_reader_u32(r);
        uint64_t size;
        fgl_reader_str(r, name, sizeof name);
        size = fgl_reader_u64(r);
        if (r->err || size > (uint64_t)r->len) return r->err = FGL_ERR_FORMAT;
        switch (kind) {
        case FGL__E_FLOATS:
        case FGL__E_INTS: fgl__skip(r, 4 * (size_t)size); break;
        case FGL__E_MODEL:
        case FGL__E_PARAMS: fgl__skip(r, 8 + 4 * (size_t)size); break;
        case FGL__E_OPTIM: fgl__skip(r, 8 + 8 * (size_t)size); break;
        case FGL__E_RNG: fgl__skip(r, 32); break;
        default: return r->err = FGL_ERR_FORMAT;
        }
    }
    return r->err;
}

/* remote (with a transport): the byte spans of the remote clients' stores. */
static int fgl__ckpt_body(fgl_run *run, fgl_reader *r, uint32_t version, int started, size_t rounds, int commit,
                          const char *path, fgl_reader *remote, fgl_error *err) {
    size_t k, RK = rounds * (size_t)run->n_clients;
    uint64_t bu = fgl_reader_u64(r), bd = fgl_reader_u64(r);
    uint32_t rej = fgl_reader_u32(r);
    int i, rc;
    for (i = 0; i < run->n_clients; i++) {
        uint32_t v = fgl_reader_u32(r);
        if (commit) run->rejected_by[i] = (int)v;
    }
    {
        uint32_t np = fgl_reader_u32(r), q;
        long prev = -1;
        /* (an empty coming round is DP's Poisson draw's right, no one else's) */
        if (r->err || np > (uint32_t)run->n_clients || (started && np == 0 && !(run->cfg.dp.clip > 0)))
            return fgl_error_set(err, FGL_ERR_FORMAT, "%s: %u participants of %d clients", path, (unsigned)np,
                                 run->n_clients);
        for (q = 0; q < np; q++) {
            uint32_t id = fgl_reader_u32(r);
            if (r->err || id >= (uint32_t)run->n_clients || (long)id <= prev)
                return fgl_error_set(err, FGL_ERR_FORMAT, "%s: participant %u out of range or order", path,
                                     (unsigned)id);
            prev = (long)id;
            if (commit) run->part[q] = (int)id;
        }
        if (commit) run->n_part = (int)np;
    }
    for (k = 0; k < rounds; k++) {
        fgl_round_stats st;
        st.n_part = (int)fgl_reader_u32(r);
        st.n_rejected = (int)fgl_reader_u32(r);
        st.n_screened = (int)fgl_reader_u32(r);
        st.n_clipped = (int)fgl_reader_u32(r);
        st.n_dropped = (int)fgl_reader_u32(r);
        st.n_lost = (int)fgl_reader_u32(r);
        st.n_fallback = version >= 3 ? (int)fgl_reader_u32(r) : 0; /* version 2 counted none */
        st.dp_draws = version >= 5 ? (long long)fgl_reader_u64(r) : -1; /* before version 5: not counted */
        st.bytes_up = (size_t)fgl_reader_u64(r);
        st.bytes_down = (size_t)fgl_reader_u64(r);
        st.train_loss = fgl__get_f64(r);
        st.val_acc = fgl__get_f64(r);
        st.test_acc = fgl__get_f64(r);
        st.val_hits = version >= 4 ? fgl__get_f64(r) : NAN; /* before version 4: no link tasks */
        st.test_hits = version >= 4 ? fgl__get_f64(r) : NAN;
        st.val_f1 = version >= 6 ? fgl__get_f64(r) : NAN; /* before version 6: not kept */
        st.test_f1 = version >= 6 ? fgl__get_f64(r) : NAN;
        st.val_auc = version >= 6 ? fgl__get_f64(r) : NAN;
        st.test_auc = version >= 6 ? fgl__get_f64(r) : NAN;
        st.t_train = fgl__get_f64(r);
        st.t_server = fgl__get_f64(r);
        st.t_eval = fgl__get_f64(r);
        if (commit) run->stats[k] = st;
    }
    if (!commit) {
        if (fgl__skip(r, RK * (version >= 6 ? 72 : 40)))
            return fgl_error_set(err, FGL_ERR_FORMAT, "%s: checkpoint truncated", path);
    } else {
        for (k = 0; k < RK; k++) {
            run->client_val[k] = fgl__get_f64(r);
            run->client_test[k] = fgl__get_f64(r);
            run->client_loss[k] = fgl__get_f64(r);
            run->client_up[k] = (size_t)fgl_reader_u64(r);
            run->client_down[k] = (size_t)fgl_reader_u64(r);
            run->client_val_f1[k] = version >= 6 ? fgl__get_f64(r) : NAN;
            run->client_test_f1[k] = version >= 6 ? fgl__get_f64(r) : NAN;
            run->client_val_auc[k] = version >= 6 ? fgl__get_f64(r) : NAN;
            run->client_test_auc[k] = version >= 6 ? fgl__get_f64(r) : NAN;
        }
    }
    if (r->err) return fgl_error_set(err, FGL_ERR_FORMAT, "%s: checkpoint truncated", path);
    if (started) {
        if ((rc = fgl__get_store(r, &run->server.store, commit, path, err))) return rc;
        for (i = 0; i < run->n_clients; i++) {
            size_t at = r->pos;
            if (run->clients[i].local) {
                if ((rc = fgl__get_store(r, &run->clients[i].store, commit, path, err))) return rc;
                continue;
            }
            if (fgl__skip_store(r))
                return fgl_error_set(err, FGL_ERR_FORMAT, "%s: client %d's state is truncated", path, i);
            if (remote) remote[i] = fgl_reader_make(r->data + at, r->pos - at);
        }
    }
    if (r->err || r->pos != r->len)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: checkpoint truncated or with extra bytes", path);
    if (commit) {
        run->round = (int)rounds;
        run->bytes_up = (size_t)bu;
        run->bytes_down = (size_t)bd;
        run->rejected_total = (int)rej;
    }
    return FGL_OK;
}

FGLDEF int fgl_run_load(fgl_run *run, const char *path, fgl_error *err) {
    unsigned char *data;
    size_t len, rounds;
    fgl_reader r, body;
    char name[64], build[200];
    uint32_t K, R, version = FGL__RUN_VERSION;
    uint64_t seed, fp;
    int rc, started, i;
    fgl_reader *remote = NULL;
    if (!run->clients) return fgl_error_set(err, FGL_ERR_ARG, "%s: the run is not initialised", path);
    if ((rc = fgl_file_read(path, &data, &len, err))) return rc;
    if (!fgl_frame_open(data, len, FGL__RUN_MAGIC, 2u, &r, path, NULL)) version = 2u; /* read as it was written */
    else if (!fgl_frame_open(data, len, FGL__RUN_MAGIC, 3u, &r, path, NULL)) version = 3u;
    else if (!fgl_frame_open(data, len, FGL__RUN_MAGIC, 4u, &r, path, NULL)) version = 4u;
    else if (!fgl_frame_open(data, len, FGL__RUN_MAGIC, 5u, &r, path, NULL)) version = 5u;
    else if ((rc = fgl_frame_open(data, len, FGL__RUN_MAGIC, FGL__RUN_VERSION, &r, path, err))) goto done;
    fgl_reader_str(&r, name, sizeof name);
    K = fgl_reader_u32(&r);
    R = fgl_reader_u32(&r);
    seed = fgl_reader_u64(&r);
    fp = fgl_reader_u64(&r);
    started = (int)fgl_reader_u32(&r);
    rounds = fgl_reader_u32(&r);
    build[0] = 0;
    if (version >= 5) fgl_reader_str(&r, build, sizeof build);
    if (r.err) {
        rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: checkpoint header truncated", path);
        goto done;
    }
    if (strcmp(name, run->algo.name) != 0 || K != (uint32_t)run->n_clients || R != (uint32_t)run->cfg.rounds ||
        seed != run->cfg.seed) {
        rc = fgl_error_set(err, FGL_ERR_SHAPE,
                           "%s: checkpoint of a different run (%s, %u clients, %u rounds, seed %llu; "
                           "this run: %s, %d clients, %d rounds, seed %llu)",
                           path, name, (unsigned)K, (unsigned)R, (unsigned long long)seed, run->algo.name,
                           run->n_clients, run->cfg.rounds, (unsigned long long)run->cfg.seed);
        goto done;
    }
    if (fp != fgl__fingerprint(run)) {
        rc = fgl_error_set(err, FGL_ERR_SHAPE, "%s: checkpoint of a different run: the configuration, the algorithm's "
                           "parameters, a model spec or the data differ", path);
        goto done;
    }
    if (strcmp(build, fgl_build_id()) != 0 && !run->allow_other_build) {
        rc = fgl_error_set(err, FGL_ERR_SHAPE, "%s: checkpoint of another build (%s; this one: %s): the resumed run "
                           "would match neither build's bits (allow it explicitly: fglrun --allow-other-build)", path,
                           build[0] ? build : "a build that did not record itself", fgl_build_id());
        goto done;
    }
    if (rounds > (size_t)run->cfg.rounds || (!started && rounds > 0)) {
        rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: %zu rounds done of %d", path, rounds, run->cfg.rounds);
        goto done;
    }
    /* the state entries exist once the run has started (deterministic: a
     * started run with no rounds is what the first round would start from) */
    if (started && !run->started && (rc = fgl_run_start(run))) {
        fgl_error_set(err, rc, "%s: %s", path, run->err.msg);
        goto done;
    }
    if (run->transport && started &&
        !(remote = (fgl_reader *)fgl__zalloc(sizeof(fgl_reader) * (size_t)run->n_clients))) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", path);
        goto done;
    }
    body = r;
    if ((rc = fgl__ckpt_body(run, &body, version, started, rounds, 0, path, remote, err))) goto done;
    /* every part checked (the remote clients' where they live) before anything is installed */
    if (remote && (rc = run->transport->load(run, remote, 0, err))) goto done;
    /* parked clients take their state back to be overwritten (cfg.park_idle:
     * for the moment of the load, every client's state is resident) */
    if ((rc = fgl__unpark_all(run))) {
        rc = fgl_error_set(err, rc, "%s: cannot restore the clients' packed state (%s)", path, fgl_result_name(rc));
        goto done;
    }
    body = r;
    if ((rc = fgl__ckpt_body(run, &body, version, started, rounds, 1, path, NULL, err)))
        goto done; /* cannot fail: checked above */
    if (remote && (rc = run->transport->load(run, remote, 1, err))) goto done;
    if (started) { /* the downloads the clients last received: rebuilt from the restored server state */
        if (fgl__build_downloads(run, run->part, run->n_part, 0)) {
            rc = fgl__server_error(run, run->server.err.code, "rebuilding downloads");
            fgl_error_set(err, rc, "%s: %s", path, run->err.msg);
            goto done;
        }
        for (i = 0; i < run->n_part; i++)
            if (run->clients[run->part[i]].local) fgl__receive(run, &run->clients[run->part[i]], 0);
        fgl__trim_idle(run, run->part, run->n_part);
        if (run->transport && (rc = run->transport->resume(run))) {
            fgl_error_set(err, rc, "%s: %s", path, run->err.msg);
            goto done;
        }
    }
    if (strcmp(build, fgl_build_id()) != 0) /* allowed: said in the run for its record */
        snprintf(run->other_build, sizeof run->other_build, "%s", build[0] ? build : "(not recorded)");
done:
    FGL_FREE(remote);
    FGL_FREE(data);
    return rc;
}

/* ======================================================================== */
/* Algorithms                                                               */
/* ======================================================================== */
/* Each algorithm is a function building its table: the parameters with
 * their published defaults, what it sends, and the hooks that are its
 * mathematics. Where the paper and the authors' public code disagree, the
 * code's choice is the default (docs/algorithms.md); every such choice is
 * written next to the code. No code was copied or translated. */

#include "../alone.h"
