#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* What a hook received stays as it was sent                                */
/* ------------------------------------------------------------------------ */

/* Hooks see the other side's messages through const (fgl_msg), but a hook
 * could still cast the const away and write. In one process a download
 * part views the server's buffer and an upload's model part the client's
 * parameters; over MPI both are the receiving rank's copies. So that such a
 * write gives neither different bits in the two nor silent damage, the
 * runtime checks, with checksums (fgl__floats_sum), that every received
 * part is unchanged after each hook that can reach it, and fails the run
 * naming the client and the hook. Private to the runtime (run.h).
 *
 * Only hooks of the program's own are checked: a hook of a built-in table
 * (the library's, also when a table extended from one keeps it) never casts
 * the const away, and the built-in algorithms give the same bits in one
 * process and under MPI (tests/test_mpi.sh; tests/test_sides.sh greps
 * src/fed/algos for such casts). So the built-in algorithms pay nothing,
 * and a program's hooks pay one pass over the message they could reach
 * after each of them, and one as it arrives (README, "Writing an
 * algorithm": what it costs). */

/* The runtime's state of these checks (fgl_run.intact). */
struct fgl__intact {
    unsigned user_hooks;         /* FGL__HOOK_* bits: the algorithm's hooks of the program's own (checked) */
    int written;                 /* a hook's write into what it received was caught (the first is recorded) */
    uint64_t *up_sum;            /* K x FGL_MSG_MAX_PARTS: the accepted uploads' checksums where checked */
    const float *shared_at[FGL_MSG_MAX_PARTS];   /* download part p sent whole: the buffer every
                                                    participant's download views (NULL: none) */
    uint64_t shared_sum[FGL_MSG_MAX_PARTS];      /* its checksum when the downloads were built */
};

/* fgl:private */
#include "../alone.h"
/* The hooks that can reach what they received, as bits of
 * fgl_run.user_hooks: set for a hook that is not a built-in table's. */
enum {
    FGL__HOOK_RECEIVE = 1,
    FGL__HOOK_TRAIN = 2,     /* local_train, train.loss, train.grad, train.after_step */
    FGL__HOOK_UPLOAD = 4,
    FGL__HOOK_EVAL = 8,      /* eval_model */
    FGL__HOOK_AGGREGATE = 16
};
#define FGL__HOOKS_DOWN (FGL__HOOK_RECEIVE | FGL__HOOK_TRAIN | FGL__HOOK_UPLOAD) /* checked with c->down_sum */
/* The FGL__HOOK_* bits of a's hooks that are neither NULL nor a built-in
 * table's (src/fed/registry.h). */
FGL__PRIVATE unsigned fgl__user_hooks(const fgl_algo *a);

/* fgl:implementation */
#include "../alone.h"
/* --- received messages, checked -------------------------------------------------- */

/* Each part of a download is summed as received (fgl__floats_sum), and
 * after every client hook that can reach it (receive, the local training
 * and its hooks, upload; eval_model around its call) the runtime checks it
 * is unchanged. In one process a part views the server's buffer, over MPI
 * it is the rank's copy: a hook that casts the const away and writes into
 * it would change the server's state in one and not in the other, so both
 * refuse it alike, naming the client and the hook. A part sent whole (not
 * by row) is one buffer that every client views in one process: summed
 * once when the downloads are built, and a write into it shows in every
 * viewer's next check. The first check that catches a write records it
 * (run->intact.written) and later ones stay silent, so with clients one after the
 * other the writer is named, as under MPI; with clients side by side
 * another client's check may come first and be named (the run fails
 * either way). */
static void fgl__down_sums(const fgl_run *run, const fgl_client *c, uint64_t *sums) {
    const fgl_msg *m = &run->down[c->id];
    int p;
    for (p = 0; p < m->n_parts && p < c->down.n_parts; p++)
        sums[p] = !m->part[p] ? 0
                  : m->part[p] == run->intact.shared_at[p] ? run->intact.shared_sum[p]
                                                          : fgl__floats_sum(m->part[p], m->len[p]);
}

/* After the downloads of clients ids[0..n) are built: a part sent whole
 * (not by row) views one buffer for every participant, summed here once
 * for fgl__down_sums. */
static void fgl__downs_built(fgl_run *run, const int *ids, int n) {
    const fgl_algo *a = &run->algo;
    int p;
    for (p = 0; p < a->n_down; p++) {
        const float *at = n > 0 ? run->down[ids[0]].part[p] : NULL;
        int whole = a->down[p].from && !(a->down[p].flags & FGL_PART_ROW);
        run->intact.shared_at[p] = whole && (run->intact.user_hooks & FGL__HOOKS_DOWN) ? at : NULL;
        if (run->intact.shared_at[p]) run->intact.shared_sum[p] = fgl__floats_sum(at, run->server.down_len[p]);
    }
}

/* The index of a part that differs from sums, or -1. */
static int fgl__down_changed(const fgl_run *run, const fgl_client *c, const uint64_t *sums) {
    const fgl_msg *m = &run->down[c->id];
    int p;
    for (p = 0; p < m->n_parts && p < c->down.n_parts; p++)
        if (m->part[p] && m->part[p] == c->down.part[p] && fgl__floats_sum(m->part[p], m->len[p]) != sums[p])
            return p;
    return -1;
}

/* 1 for the first check of the run that caught a write. */
static int fgl__first_written(fgl_run *run) {
    int first;
#ifdef _OPENMP
#pragma omp critical(fgl__written)
#endif
    {
        first = !run->intact.written;
        run->intact.written = 1;
    }
    return first;
}

static int fgl__down_intact(fgl_run *run, fgl_client *c, const char *hook) {
    int p = fgl__down_changed(run, c, c->down_sum);
    if (p < 0 || !fgl__first_written(run)) return FGL_OK;
    return fgl_client_fail(c, FGL_ERR_ARG,
                           "%s wrote into download part '%s', which clients read only (fgl_down_copy gives a "
                           "writable copy)",
                           hook, c->down.decl[p].name);
}

/* The checksums of client c's accepted upload, where the server checks it
 * (on the client's thread, or the server's for an upload from elsewhere). */
static void fgl__upload_sums(fgl_run *run, const fgl_client *c) {
    int p;
    for (p = 0; p < c->up.n_parts; p++)
        run->intact.up_sum[(size_t)c->id * FGL_MSG_MAX_PARTS + p] =
            c->up.part[p] ? fgl__floats_sum(c->up.part[p], c->up.len[p]) : 0;
}

/* After aggregation: every accepted upload as the client sent it? In one
 * process an upload's model part views the client's parameters (and the
 * other parts are the client's buffers), over MPI they are the server's
 * copies: an aggregate hook that casts the const away and writes into one
 * would change the client in one and not in the other, so both refuse it
 * alike. */
static int fgl__upload_changed(const fgl_run *run, const fgl_client *c) {
    const uint64_t *sum = run->intact.up_sum + (size_t)c->id * FGL_MSG_MAX_PARTS;
    int p;
    for (p = 0; p < c->up.n_parts; p++)
        if (c->up.part[p] && fgl__floats_sum(c->up.part[p], c->up.len[p]) != sum[p]) return p;
    return -1;
}

static int fgl__uploads_intact(fgl_run *run) {
    int q, bad = -1, n = run->n_part, p;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(FGL__NTHREADS_FOR(run, n))
#endif
    for (q = 0; q < n; q++)
        if (run->accepted[run->part[q]] && fgl__upload_changed(run, &run->clients[run->part[q]]) >= 0) {
#ifdef _OPENMP
#pragma omp critical(fgl__uploads_intact)
#endif
            if (bad < 0 || q < bad) bad = q;
        }
    if (bad < 0) return FGL_OK;
    p = fgl__upload_changed(run, &run->clients[run->part[bad]]);
    return fgl_server_fail(&run->server, FGL_ERR_ARG,
                           "the aggregate hook wrote into client %d's upload part '%s', which the server reads only",
                           run->part[bad], run->clients[run->part[bad]].up.decl[p].name);
}

/* Client c's eval_scores hook, checked as eval_model below. */
static const float *fgl__eval_scores(fgl_run *run, fgl_client *c) {
    uint64_t before[FGL_MSG_MAX_PARTS];
    int p, check = (run->intact.user_hooks & FGL__HOOK_EVAL) != 0;
    const float *sc;
    if (check) fgl__down_sums(run, c, before);
    sc = run->algo.eval_scores(c);
    if (!check || (p = fgl__down_changed(run, c, before)) < 0 || !fgl__first_written(run)) return sc;
    fgl_tape_fail(&c->tape, FGL_ERR_ARG,
                  "the eval_scores hook wrote into download part '%s', which clients read only (fgl_down_copy gives "
                  "a writable copy)",
                  c->down.decl[p].name);
    return NULL;
}

/* Client c's eval_model hook, checked when it is the program's own: the
 * last download it may reach (an idle client's may view server buffers
 * changed since) summed before the call and checked after. NULL with the
 * tape's error on a write. */
static fgl_model *fgl__eval_model(fgl_run *run, fgl_client *c) {
    uint64_t before[FGL_MSG_MAX_PARTS];
    int p, check = (run->intact.user_hooks & FGL__HOOK_EVAL) != 0;
    fgl_model *m;
    if (check) fgl__down_sums(run, c, before);
    m = run->algo.eval_model(c);
    if (!check || (p = fgl__down_changed(run, c, before)) < 0 || !fgl__first_written(run)) return m;
    fgl_tape_fail(&c->tape, FGL_ERR_ARG,
                  "the eval_model hook wrote into download part '%s', which clients read only (fgl_down_copy gives "
                  "a writable copy)",
                  c->down.decl[p].name);
    return NULL;
}
#include "../alone.h"
