#include "../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../alone.h"
/* --- a round, stage by stage -------------------------------------------------------- */
/* fgl_run_round runs the stages of fgl__round_stages in order, each one
 * function over the run and the round's numbers (st):
 *
 *   begin      plug-ins' begin (secure aggregation: keys and shares)
 *   train      this round's participants (run->part) train and build their
 *              uploads, then the plug-ins' upload (an attacker's change, DP's
 *              clipping, secure aggregation's masks); each upload is checked
 *              where it was built; a transport trains the remote ones
 *   arrive     plug-ins' arrive (ALIE, dropouts); the uploads not checked yet
 *              are; which are accepted; bytes and losses counted
 *   accept     plug-ins' accept (norm screening); the rejections counted
 *   sum        plug-ins' sum (secure aggregation unmasks the survivors' sum)
 *   aggregate  plug-ins' release (DP's noised means), the algorithm's
 *              aggregate hook over the accepted uploads, plug-ins' after
 *              (DP: every release taken; the uploads left as sent)
 *   sample     the next round's participants (run->next): a plug-in's draw
 *              (DP's Poisson draw) or cfg.frac of the clients, uniformly
 *   broadcast  their downloads built from the server's state, and applied
 *              where the clients live here
 *   evaluate   a transport's downloads out and evaluations in; the local
 *              clients evaluate; those out of the next round rest
 *   record     the round's numbers into the history (a plug-in's record:
 *              secure aggregation's sums)
 *
 * then the round ends: run->part becomes the next round's participants.
 * This round's participants and the next round's are two lists; between
 * rounds (a checkpoint, fgl_run_start's end) run->part is the coming
 * round's. The clock: begin and train are st->t_train, arrive to broadcast
 * st->t_server, evaluate and record st->t_eval. The client-side stages
 * (train, the receive in broadcast, evaluate) are also what a transport's
 * remote processes run (src/fed/mpi_worker.h). */

/* (schedule.h) */
static void fgl__run_clients(fgl_run *run, const int *ids, int n, const int *splits, int n_splits, int phase,
                             void (*step)(fgl_run *, fgl_client *, const void *), const void *ctx);

/* Whether client c's upload is well formed: every declared part there at
 * its declared size, every value finite, the sample count positive and at
 * most what the client registered. With norms (screening), the update norm
 * of each weights part goes to norms[p], measured in the same pass as the
 * finiteness check. */
static int fgl__validate(const fgl_run *run, const fgl_client *c, double *norms) {
    int p, masked = (fgl__plugin_flags(run) & FGL__PLUGIN_HIDES_VALUES) != 0;
    if (c->err.code || c->wire_error) return 0;
    for (p = 0; p < run->algo.n_up; p++) {
        const fgl_part *d = &run->algo.up[p];
        if (!c->up.part[p]) {
            if (!(d->flags & FGL_PART_OPTIONAL)) return 0;
            continue;
        }
        if (c->up.len[p] != c->up_len[p]) return 0;
        if (masked && (d->kind == FGL_SEND_MODEL || d->kind == FGL_SEND_WEIGHT))
            continue; /* masked ring values */
        if (norms && fgl__weights_part(d)) {
            if (!fgl__finite_update_norm(c->up.part[p], fgl__ref_of(&run->down[c->id], d), c->up.len[p], &norms[p]))
                return 0;
        } else if (!fgl_all_finite(c->up.len[p], c->up.part[p]))
            return 0;
        if (d->kind == FGL_SEND_WEIGHT &&
            !(c->up.part[p][0] > 0 && c->up.part[p][0] <= (float)run->n_registered[c->id]))
            return 0;
    }
    return 1;
}

/* Round `round`'s participants into run->next: a plug-in's draw, or
 * cfg.frac of the clients uniformly from the server's stream, in increasing
 * id order (all clients when cfg.frac is 1). */
static int fgl__draw(fgl_run *run, int round) {
    fgl__plugin p;
    int i, j, n = (int)(run->cfg.frac * run->n_clients + 0.5f), *ids = run->next;
    for (i = 0; fgl__plugin_get(i, &p); i++)
        if (p.sample && fgl__plugin_on(run, &p)) {
            run->n_next = p.sample(run, round, ids);
            return FGL_OK;
        }
    n = FGL__MAX(1, FGL__MIN(n, run->n_clients));
    if (n == run->n_clients) {
        for (i = 0; i < n; i++) ids[i] = i;
    } else {
        if (fgl_rng_sample(&run->server.rng, run->n_clients, n, ids))
            return fgl_error_set(&run->err, FGL_ERR_NOMEM, "run: out of memory");
        for (i = 1; i < n; i++) /* increasing id order; insertion sort: n is small */
            for (j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
                int tmp = ids[j];
                ids[j] = ids[j - 1];
                ids[j - 1] = tmp;
            }
    }
    run->n_next = n;
    return FGL_OK;
}

/* The downloads of the next round's participants, built (their bytes
 * counted in this round) and applied by those hosted here. */
static int fgl__broadcast(fgl_run *run) {
    if (fgl__build_downloads(run, run->next, run->n_next, 1)) return fgl__server_error(run, run->server.err.code, "download");
    return fgl__phase_receive(run, run->next, run->n_next);
}

/* The round ends: its participants' list becomes the next round's. */
static void fgl__part_advance(fgl_run *run) {
    int *t = run->part;
    run->part = run->next;
    run->n_part = run->n_next;
    run->next = t;
    run->n_next = 0;
}

/* The server's check of client c's upload (well formed, and its update
 * norms when screening is on), once per round: as soon as the upload is
 * final, where it was built, while it is still in that core's cache; or in
 * the server phase for an upload that came over a transport or that the
 * ALIE attack rewrote. */
static void fgl__check_upload(fgl_run *run, const fgl_client *c) {
    run->checked[c->id] =
        fgl__validate(run, c, fgl__screening(run) ? run->up_norm + (size_t)c->id * FGL_MSG_MAX_PARTS : NULL) ? 1 : 2;
    if (run->checked[c->id] == 1 && (run->intact.user_hooks & FGL__HOOK_AGGREGATE))
        fgl__upload_sums(run, c); /* what the server reads only: checked after aggregation */
}

static void fgl__round_step(fgl_run *run, fgl_client *c, const void *unused) {
    (void)unused;
    run->checked[c->id] = 0;
    if (!c->local) return;
    fgl__client_round(run, c);
    if (run->cfg.attack.kind != FGL_ATTACK_ALIE &&                /* (ALIE rewrites it in the arrive stage) */
        !(fgl__plugin_flags(run) & FGL__PLUGIN_REWRITES) &&      /* (so does such a plug-in) */
        run->role != FGL__ROLE_CLIENTS)                           /* a clients-only rank sends it: the server checks */
        fgl__check_upload(run, c);
}

/* Client side: the local participants train and build their uploads, on
 * fgl__run_clients' schedule (fgl.h's kernels run in parallel outside a
 * parallel region, on omp_get_max_threads() threads: fglrun sets that to
 * --threads; a program setting only cfg.threads should call
 * omp_set_num_threads too). */
static void fgl__phase_train(fgl_run *run) {
    static const int train[1] = {FGL_SPLIT_TRAIN};
    fgl__run_clients(run, run->part, run->n_part, train, 1, 0, fgl__round_step, NULL);
}

/* With partial participation (cfg.frac < 1) a client that sits out the
 * coming round returns its tape's arena (the largest part of an idle
 * client's memory) once its work in this round is done. coming[0..n): the
 * coming round's participants; the mask: 1 for each of them. */
static unsigned char *fgl__next_mask(const fgl_run *run, const int *coming, int n) {
    unsigned char *next;
    int q;
    if (!(run->cfg.frac < 1)) return NULL;
    if (!(next = (unsigned char *)FGL_MALLOC((size_t)run->n_clients))) return NULL;
    memset(next, 0, (size_t)run->n_clients);
    for (q = 0; q < n; q++) next[coming[q]] = 1;
    return next;
}

/* An idle client trims its tape, or with cfg.park_idle packs its state. */
static void fgl__rest(fgl_run *run, fgl_client *c) {
    if (run->cfg.park_idle) fgl__park(run, c);
    else if (c->tape.chunk) fgl__tape_stow(run, &c->tape);
}

static void fgl__trim_idle(fgl_run *run, const int *coming, int n) {
    unsigned char *next = fgl__next_mask(run, coming, n);
    int i;
    if (!next) return;
    for (i = 0; i < run->n_clients; i++)
        if (run->clients[i].local && !next[i]) fgl__rest(run, &run->clients[i]);
    FGL_FREE(next);
}

/* A client evaluates its model (restored first if packed; an idle one,
 * next[i] == 0, then rests at once, so an evaluation round holds one
 * arena, and with cfg.park_idle one unpacked state, per thread, not per
 * client). */
static void fgl__eval_step(fgl_run *run, fgl_client *c, const void *next_mask) {
    const unsigned char *next = (const unsigned char *)next_mask;
    int rc = fgl__unpark(run, c);
    if (rc) {
        c->val_acc = c->test_acc = -1;
        fgl_tape_fail(&c->tape, rc, "cannot restore its packed state (%s)", fgl_result_name(rc));
        return;
    }
    fgl__client_evaluate(run, c);
    if (next && !next[c->id]) fgl__rest(run, c);
}

/* Client side: the local clients not evaluated after training (all, or
 * those that sat the round out) evaluate their models, on
 * fgl__run_clients' schedule; coming[0..n_coming): the coming round's
 * participants (the others rest after it). */
static void fgl__phase_eval(fgl_run *run, const int *coming, int n_coming) {
    static const int eval[2] = {FGL_SPLIT_VAL, FGL_SPLIT_TEST};
    unsigned char *next = fgl__next_mask(run, coming, n_coming);
    int i, n = 0, *ids = (int *)FGL_MALLOC(sizeof(int) * (size_t)run->n_clients);
    for (i = 0; i < run->n_clients; i++)
        if (run->clients[i].local && (!run->cfg.eval_after_train || !run->trained[i])) {
            if (ids) ids[n++] = i;
            else fgl__eval_step(run, &run->clients[i], next); /* out of memory: in order */
        }
    if (ids) fgl__run_clients(run, ids, n, eval, 2, 1, fgl__eval_step, next);
    FGL_FREE(ids);
    FGL_FREE(next);
}

/* The runtime's record: the round's accuracies (c->val_acc, c->test_acc of
 * every client, NaN for a round not evaluated) into the history. */
static int fgl__phase_record(fgl_run *run, fgl_round_stats *st, int evaluated) {
    double vsum = 0, tsum = 0, vw = 0, tw = 0, vh = 0, th = 0, msum[4] = {0, 0, 0, 0};
    int i, q, n = 0, n_tested = 0, mn[4] = {0, 0, 0, 0}, link = run->clients[0].task == FGL_TASK_LINK;
    double *hist[4];
    hist[0] = run->client_val_f1;
    hist[1] = run->client_test_f1;
    hist[2] = run->client_val_auc;
    hist[3] = run->client_test_auc;
    for (i = 0; i < run->n_clients; i++) {
        fgl_client *c = &run->clients[i];
        size_t at = (size_t)run->round * run->n_clients + i;
        if (run->lost[i]) { /* its host stopped answering: no accuracy, left out of the means */
            run->client_val[at] = NAN;
            run->client_test[at] = NAN;
            for (q = 0; q < 4; q++) hist[q][at] = NAN;
            continue;
        }
        { /* macro-F1 and AUC: NaN where the client has none (no labelled sample, one class), left out of the
           * means as a client without test samples is left out of the test accuracy's */
            double v[4];
            v[0] = c->val_f1;
            v[1] = c->n_test > 0 ? c->test_f1 : NAN;
            v[2] = c->val_auc;
            v[3] = c->n_test > 0 ? c->test_auc : NAN;
            for (q = 0; q < 4; q++) {
                hist[q][at] = evaluated ? v[q] : NAN;
                if (evaluated && v[q] == v[q]) {
                    msum[q] += v[q];
                    mn[q]++;
                }
            }
        }
        n++;
        if (evaluated && (c->val_acc < 0 || c->test_acc < 0))
            return fgl_error_set(&run->err, c->tape.err.code ? c->tape.err.code : FGL_ERR_ARG,
                                 "%s, round %d, client %d: evaluation failed: %s", run->algo.name, run->round + 1, i,
                                 c->tape.err.msg[0] ? c->tape.err.msg : "(no reason recorded)");
        run->client_val[(size_t)run->round * run->n_clients + i] = evaluated ? c->val_acc : NAN;
        /* a client without test samples has no test accuracy (NaN, left out of the mean), not 0 */
        run->client_test[(size_t)run->round * run->n_clients + i] = evaluated && c->n_test > 0 ? c->test_acc : NAN;
        if (link) { /* weighted by the split's positive pairs: a client without any counts for nothing */
            if (c->n_val > 0) {
                vsum += c->n_val * c->val_acc;
                vh += c->n_val * c->val_hits;
                vw += c->n_val;
            }
            if (c->n_test > 0) {
                tsum += c->n_test * c->test_acc;
                th += c->n_test * c->test_hits;
                tw += c->n_test;
            }
        } else {
            vsum += c->val_acc;
            if (c->n_test > 0) {
                tsum += c->test_acc;
                n_tested++;
            }
        }
    }
    if (n == 0)
        return fgl_error_set(&run->err, FGL_ERR_EMPTY, "%s, round %d: every client is lost", run->algo.name,
                             run->round + 1);
    st->val_f1 = mn[0] ? msum[0] / mn[0] : NAN;
    st->test_f1 = mn[1] ? msum[1] / mn[1] : NAN;
    st->val_auc = mn[2] ? msum[2] / mn[2] : NAN;
    st->test_auc = mn[3] ? msum[3] / mn[3] : NAN;
    if (link) {
        st->val_acc = evaluated && vw > 0 ? vsum / vw : NAN;
        st->test_acc = evaluated && tw > 0 ? tsum / tw : NAN;
        st->val_hits = evaluated && vw > 0 ? vh / vw : NAN;
        st->test_hits = evaluated && tw > 0 ? th / tw : NAN;
    } else {
        st->val_acc = evaluated ? vsum / n : NAN;
        st->test_acc = evaluated && n_tested > 0 ? tsum / n_tested : NAN; /* no test set anywhere: none */
        st->val_hits = st->test_hits = NAN;
    }
    return FGL_OK;
}

/* --- the stages ----------------------------------------------------------------- */

static int fgl__stage_begin(fgl_run *run, fgl_round_stats *st, int evaluated) {
    (void)evaluated;
    memset(run->accepted, 0, (size_t)run->n_clients);
    run->withheld = 0;
    FGL__PLUGINS_CALL(run, begin, (run, st));
    return FGL_OK;
}

static int fgl__stage_train(fgl_run *run, fgl_round_stats *st, int evaluated) {
    (void)st;
    (void)evaluated;
    fgl__phase_train(run);
    return run->transport ? run->transport->train(run) : FGL_OK;
}

static int fgl__stage_arrive(fgl_run *run, fgl_round_stats *st, int evaluated) {
    int i, n = run->n_part, hidden = (fgl__plugin_flags(run) & FGL__PLUGIN_HIDES_VALUES) != 0;
    (void)evaluated;
    for (i = 0; i < n; i++) {
        fgl_client *c = &run->clients[run->part[i]];
        if (c->err.code && c->err.code != FGL_ERR_NONFINITE) return fgl__client_error(run, c, "training and upload");
    }
    FGL__PLUGINS_CALL(run, arrive, (run, st));
    /* the uploads not checked where they were built, in parallel */
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(FGL__NTHREADS_FOR(run, n))
#endif
    for (i = 0; i < n; i++)
        if (!run->checked[run->part[i]]) fgl__check_upload(run, &run->clients[run->part[i]]);
    for (i = 0; i < n; i++) {
        int id = run->part[i];
        run->accepted[id] = !run->dropped[id] && !run->lost[id] && run->checked[id] == 1;
        run->checked[id] = 0;
    }
    for (i = 0; i < n; i++) {
        fgl_client *c = &run->clients[run->part[i]];
        size_t k = (size_t)run->round * run->n_clients + c->id;
        st->bytes_up += fgl_msg_bytes(&c->up);
        run->client_up[k] += fgl_msg_bytes(&c->up);
        run->client_loss[k] = hidden ? NAN : c->train_loss; /* masked: inside secure aggregation's sums */
        st->n_lost += run->lost[c->id];
    }
    return FGL_OK;
}

static int fgl__stage_accept(fgl_run *run, fgl_round_stats *st, int evaluated) {
    int i, n = run->n_part, rejected = 0, n_ok = 0, hidden = (fgl__plugin_flags(run) & FGL__PLUGIN_HIDES_VALUES) != 0;
    double loss = 0;
    (void)evaluated;
    FGL__PLUGINS_CALL(run, accept, (run, st));
    for (i = 0; i < n; i++) {
        const fgl_client *c = &run->clients[run->part[i]];
        if (run->dropped[c->id] || run->lost[c->id] || run->withheld) continue; /* not rejected */
        if (!run->accepted[c->id]) {
            rejected++;
            run->rejected_by[c->id]++;
        } else {
            loss += hidden ? 0 : c->train_loss;
            n_ok++;
        }
    }
    run->rejected_total += rejected;
    st->n_part = n;
    st->n_rejected = rejected;
    st->train_loss = n_ok ? loss / n_ok : NAN;
    run->server.n_accepted = n_ok;
    return FGL_OK;
}

static int fgl__stage_sum(fgl_run *run, fgl_round_stats *st, int evaluated) {
    (void)evaluated;
    FGL__PLUGINS_CALL(run, sum, (run, st)); /* its messages are uploads too: counted below */
    run->bytes_up += st->bytes_up;
    return FGL_OK;
}

static int fgl__stage_aggregate(fgl_run *run, fgl_round_stats *st, int evaluated) {
    fgl_server *s = &run->server;
    unsigned flags = fgl__plugin_flags(run);
    int i, rc;
    (void)evaluated;
    s->round = run->round;
    s->n_clipped = 0;
    s->n_fallback = 0;
    for (i = 0; i < run->n_clients; i++) run->up_view[i] = run->accepted[i] ? &run->clients[i].up : NULL;
    FGL__PLUGINS_CALL(run, release, (run, st));
    if (flags & FGL__PLUGIN_HIDES_UPLOADS) /* the hook is handed the runtime's means, no upload */
        for (i = 0; i < run->n_clients; i++) run->up_view[i] = NULL;
    if (flags & FGL__PLUGIN_HIDES_WHO) s->n_accepted = 0;
    if (run->algo.aggregate) {
        rc = run->algo.aggregate(s);
        if (rc == FGL_ERR_EMPTY) rc = FGL_OK; /* nothing accepted: the state stays (fgl_algo.aggregate) */
        fgl_tape_reset(&s->store.scratch);
        if (rc || s->err.code || s->store.err.code)
            return fgl__server_error(run, rc ? rc : s->err.code ? s->err.code : s->store.err.code, "aggregation");
    }
    FGL__PLUGINS_CALL(run, after, (run));
    st->n_clipped = s->n_clipped;
    s->secagg_sum = NULL;
    st->n_fallback = s->n_fallback;
    for (i = 0; i < run->n_clients; i++) run->up_view[i] = NULL; /* uploads are seen during aggregation only */
    memset(run->trained, 0, (size_t)run->n_clients);
    for (i = 0; i < run->n_part; i++) run->trained[run->part[i]] = 1;
    return FGL_OK;
}

static int fgl__stage_sample(fgl_run *run, fgl_round_stats *st, int evaluated) {
    (void)st;
    (void)evaluated;
    return fgl__draw(run, run->round + 1);
}

static int fgl__stage_broadcast(fgl_run *run, fgl_round_stats *st, int evaluated) {
    int rc;
    (void)st;
    (void)evaluated;
    if ((rc = fgl__broadcast(run))) return rc;
    return fgl__unknown_param(run); /* (a download or receive hook's read) */
}

static int fgl__stage_evaluate(fgl_run *run, fgl_round_stats *st, int evaluated) {
    int rc;
    (void)st;
    if (run->transport && (rc = run->transport->finish(run, evaluated))) return rc;
    if (evaluated) fgl__phase_eval(run, run->next, run->n_next);
    if ((rc = fgl__unknown_param(run))) return rc; /* (an evaluation hook's read) */
    fgl__trim_idle(run, run->next, run->n_next);
    return FGL_OK;
}

static int fgl__stage_record(fgl_run *run, fgl_round_stats *st, int evaluated) {
    fgl__plugin p;
    int i;
    for (i = 0; fgl__plugin_get(i, &p); i++)
        if (p.record && fgl__plugin_on(run, &p)) return p.record(run, st, evaluated);
    return fgl__phase_record(run, st, evaluated);
}

/* A round's stages, in order; clock: 0 training, 1 server, 2 evaluation
 * (fgl_round_stats.t_train, t_server, t_eval). */
typedef struct fgl__stage {
    const char *name;
    int clock;
    int (*run)(fgl_run *run, fgl_round_stats *st, int evaluated);
} fgl__stage;

static const fgl__stage fgl__round_stages[] = {
    {"begin", 0, fgl__stage_begin},         {"train", 0, fgl__stage_train},
    {"arrive", 1, fgl__stage_arrive},       {"accept", 1, fgl__stage_accept},
    {"sum", 1, fgl__stage_sum},             {"aggregate", 1, fgl__stage_aggregate},
    {"sample", 1, fgl__stage_sample},       {"broadcast", 1, fgl__stage_broadcast},
    {"evaluate", 2, fgl__stage_evaluate},   {"record", 2, fgl__stage_record},
};

FGLDEF int fgl_run_round(fgl_run *run) {
    fgl_round_stats *st;
    double secs[3] = {0, 0, 0}, t;
    int rc, evaluated, k, n = (int)(sizeof fgl__round_stages / sizeof fgl__round_stages[0]);
    if (!run->started && (rc = fgl_run_start(run))) return rc;
    if (run->round >= run->cfg.rounds)
        return fgl_error_set(&run->err, FGL_ERR_ARG, "run: all %d rounds are done", run->cfg.rounds);
    st = &run->stats[run->round];
    evaluated = fgl__evaluated(run, run->round);
    for (k = 0; k < n; k++) {
        t = fgl_now();
        if ((rc = fgl__round_stages[k].run(run, st, evaluated))) return rc;
        secs[fgl__round_stages[k].clock] += fgl_now() - t;
    }
    st->t_train = secs[0];
    st->t_server = secs[1];
    st->t_eval = secs[2];
    run->round++;
    fgl__part_advance(run);
    return FGL_OK;
}
#include "../alone.h"
