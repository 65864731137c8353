#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- the attack plug-in: simulated attackers (cfg.attack) --------------------------- */
/* For experiments with the defences: a fraction of the clients, drawn from
 * the run seed at the start, attack every round they take part in. Label
 * flipping acts in their training (src/fed/sides.h); the weight attacks
 * change the upload they built (signflip, scale, noise, nan, count); ALIE
 * rewrites the attackers' uploads on the server side from the round's
 * honest updates (fgl__alie, src/fed/defences.h). */

static int fgl__attack_on(const fgl_run *run) { return run->cfg.attack.kind != FGL_ATTACK_NONE; }

static int fgl__attack_check(fgl_run *run) {
    const fgl_attack_config *at = &run->cfg.attack;
    int rc;
    if (at->kind != FGL_ATTACK_LABELFLIP && at->kind != FGL_ATTACK_NAN && at->kind != FGL_ATTACK_COUNT &&
        (rc = fgl__covered(run, "an attack", "it", NULL, NULL, FGL__COVER_WEIGHTS)))
        return rc;
    if (at->frac > 0 && !(at->frac <= 1))
        return fgl_error_set(&run->err, FGL_ERR_ARG, "attackers: a fraction in (0, 1], not %g", (double)at->frac);
    if (at->kind == FGL_ATTACK_LABELFLIP && at->frac > 0 && run->clients[0].task == FGL_TASK_LINK)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "run: the label-flipping attack needs class labels; a link task has none");
    return FGL_OK;
}

/* The attackers, drawn from the run seed, and the noise attack's streams
 * (checkpointed with the clients). */
static int fgl__attack_start(fgl_run *run) {
    const fgl_fed_config *c = &run->cfg;
    int n = (int)(c->attack.frac * run->n_clients + 0.5f), i, *pick;
    fgl_rng r;
    if (!(c->attack.frac > 0)) return FGL_OK;
    pick = (int *)fgl__zalloc(sizeof(int) * (size_t)run->n_clients);
    if (!pick) return fgl_error_set(&run->err, FGL_ERR_NOMEM, "out of memory");
    fgl_rng_init(&r, c->seed, 0x41545441434bull); /* "ATTACK" */
    if (fgl_rng_sample(&r, run->n_clients, n, pick)) n = -1;
    for (i = 0; i < n; i++) {
        fgl_client *cl = &run->clients[pick[i]];
        run->attacker[pick[i]] = 1;
        cl->attacker = 1;
        if (c->attack.kind == FGL_ATTACK_NOISE &&
            !fgl__new_rng(&cl->store, "attack_rng", c->seed, 0x4e4f495345ull + (uint64_t)cl->id))
            n = -1;
    }
    FGL_FREE(pick);
    return n < 0 ? fgl_error_set(&run->err, FGL_ERR_NOMEM, "out of memory") : FGL_OK;
}

/* An attacker's change to the upload it built (weight attacks). */
static int fgl__attack_upload(fgl_run *run, fgl_client *c) {
    const fgl_attack_config *at = &run->cfg.attack;
    const fgl_algo *a = &run->algo;
    int p;
    if (!c->attacker) return FGL_OK;
    for (p = 0; p < a->n_up; p++) {
        const fgl_part *d = &a->up[p];
        size_t n = c->up.len[p], k;
        const float *ref;
        float *x;
        if (!c->up.part[p]) continue;
        if (!(x = fgl__msg_write(&c->up, p))) return fgl_client_fail(c, FGL_ERR_NOMEM, "out of memory");
        if (d->kind == FGL_SEND_WEIGHT && at->kind == FGL_ATTACK_COUNT) x[0] = (float)at->arg;
        if (!fgl__weights_part(d)) continue;
        ref = fgl__ref_of(&c->down, d);
        switch (at->kind) {
        case FGL_ATTACK_SIGNFLIP: fgl__affine_update(x, ref, n, -at->arg); break;
        case FGL_ATTACK_SCALE: fgl__affine_update(x, ref, n, at->arg); break;
        case FGL_ATTACK_NOISE: {
            fgl_rng *r = (fgl_rng *)fgl__store_get(&c->store, "attack_rng", FGL__E_RNG);
            for (k = 0; k < n; k++) x[k] = (float)(x[k] + at->arg * fgl_rng_normal(r));
            break;
        }
        case FGL_ATTACK_NAN:
            for (k = 0; k < n; k++) x[k] = (float)NAN;
            break;
        default: break;
        }
    }
    return FGL_OK;
}

/* ALIE: the colluding attackers' uploads rewritten from the round's. */
static int fgl__attack_arrive(fgl_run *run, fgl_round_stats *st) {
    (void)st;
    return run->cfg.attack.kind == FGL_ATTACK_ALIE ? fgl__alie(run) : FGL_OK;
}

static fgl__plugin fgl__plugin_attack(void) {
    fgl__plugin p;
    memset(&p, 0, sizeof p);
    p.name = "attack";
    p.on = fgl__attack_on;
    p.check = fgl__attack_check;
    p.start = fgl__attack_start;
    p.upload = fgl__attack_upload;
    p.arrive = fgl__attack_arrive;
    return p;
}
#include "../../alone.h"
