#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- the DP plug-in: DP-FedAvg (cfg.dp) ------------------------------------------- */
/* McMahan et al. 2018, as fgl_dp_config says: Poisson participation from
 * the server's secret key, each honest participant's update clipped where
 * it is built, the noised mean released by the runtime before the
 * aggregate hook (which is handed no upload, and must take every release),
 * in every round, participants or not (src/fed/defences.h). */

static int fgl__dp_on(const fgl_run *run) { return run->cfg.dp.clip > 0; }

static int fgl__dp_check(fgl_run *run) {
    const fgl_fed_config *c = &run->cfg;
    const fgl_algo *a = &run->algo;
    int p, rc;
    if ((rc = fgl__covered(run, "differential privacy", "it", "DP", "noised",
                           FGL__COVER_WEIGHTS | FGL__COVER_RAW | FGL__COVER_MIX | FGL__COVER_EACH | FGL__COVER_HOOK)))
        return rc;
    for (p = 0; p < a->n_up; p++)
        if (a->up[p].kind == FGL_SEND_MODEL && fgl__model_source(a) < 0)
            return fgl_error_set(&run->err, FGL_ERR_ARG,
                                 "differential privacy: refused: %s sends no model from one server buffer (a "
                                 "download model part `from` a buffer, not a row per client), which a round without "
                                 "participants adds its noise to",
                                 a->name);
    for (p = 0; p < a->n_up; p++)
        if (a->up[p].kind == FGL_SEND_DATA)
            return fgl_error_set(&run->err, FGL_ERR_ARG,
                                 "differential privacy: refused: %s uploads '%s' (data the server reads as sent), "
                                 "which DP-FedAvg neither clips nor noises",
                                 a->name, a->up[p].name);
    if (c->robust.rule != FGL_ROBUST_MEAN || c->secagg.on)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "dp: combine it with neither a robust rule nor secure aggregation");
    if (!(c->dp.noise >= 0 && c->dp.delta > 0 && c->dp.delta < 1 && c->frac > 0 && c->frac <= 1))
        return fgl_error_set(&run->err, FGL_ERR_ARG, "dp: noise %g must be >= 0, delta %g in (0, 1), frac %g in (0, 1]",
                             (double)c->dp.noise, c->dp.delta, (double)c->frac);
    return FGL_OK;
}

static int fgl__dp_start(fgl_run *run) { return fgl__secrets_start(run); }

static int fgl__dp_sample(fgl_run *run, int round, int *ids) { return fgl__poisson_participants(run, round, ids); }

/* An honest participant clips its whole update (every model and delta part
 * together) to norm clip. */
static int fgl__dp_upload(fgl_run *run, fgl_client *c) {
    const fgl_algo *a = &run->algo;
    double norm, scale;
    int p;
    if (c->attacker) return FGL_OK;
    norm = fgl__joint_update_norm(a, &c->up, &c->down);
    if (!(norm > run->cfg.dp.clip)) return FGL_OK;
    scale = run->cfg.dp.clip / norm;
    for (p = 0; p < a->n_up; p++) {
        float *x;
        if (!c->up.part[p]) continue;
        if (!(x = fgl__msg_write(&c->up, p))) return fgl_client_fail(c, FGL_ERR_NOMEM, "out of memory");
        if (fgl__weights_part(&a->up[p])) fgl__affine_update(x, fgl__ref_of(&c->down, &a->up[p]), c->up.len[p], scale);
    }
    return FGL_OK;
}

static int fgl__dp_after(fgl_run *run) {
    return fgl__dp_released(run) ? fgl__server_error(run, run->server.err.code, "aggregation") : FGL_OK;
}

static int fgl__dp_release_stage(fgl_run *run, fgl_round_stats *st) {
    return fgl__dp_release(run, st) ? fgl__server_error(run, run->server.err.code, "noise") : FGL_OK;
}

static fgl__plugin fgl__plugin_dp(void) {
    fgl__plugin p;
    memset(&p, 0, sizeof p);
    p.name = "dp";
    p.flags = FGL__PLUGIN_HIDES_UPLOADS | FGL__PLUGIN_HIDES_WHO;
    p.on = fgl__dp_on;
    p.check = fgl__dp_check;
    p.start = fgl__dp_start;
    p.sample = fgl__dp_sample;
    p.upload = fgl__dp_upload;
    p.release = fgl__dp_release_stage;
    p.after = fgl__dp_after;
    return p;
}
#include "../../alone.h"
