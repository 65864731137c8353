#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- the secure aggregation plug-in (cfg.secagg) ---------------------------------- */
/* Bonawitz et al. 2017, as fgl_secagg_config says (the protocol's steps are
 * in src/fed/secagg.h): keys and shares before the training (begin), the
 * masked upload where it is built (upload), the simulated dropouts (arrive),
 * the survivors' reveals and the unmasked sum (sum), and the round's metrics
 * as masked sums (record). The server reads no upload's values, norms or
 * loss, and the aggregate hook is handed the sum only. */

static int fgl__secagg_on(const fgl_run *run) { return run->cfg.secagg.on; }

static int fgl__secagg_plugin_check(fgl_run *run) {
    const fgl_fed_config *c = &run->cfg;
    const fgl_algo *a = &run->algo;
    int p, n_model = 0, n_weight = 0, rc;
    if ((rc = fgl__covered(run, "secure aggregation", "it", "it", "unmasked",
                           FGL__COVER_WEIGHTS | FGL__COVER_RAW | FGL__COVER_MIX | FGL__COVER_EACH | FGL__COVER_HOOK)))
        return rc;
    for (p = 0; p < a->n_up; p++) {
        n_model += a->up[p].kind == FGL_SEND_MODEL;
        n_weight += a->up[p].kind == FGL_SEND_WEIGHT;
    }
    if (n_model != 1 || n_weight != 1 || a->n_up != 2)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "secure aggregation: refused: %s must upload exactly its model and its sample "
                             "count (FedAvg-like), the server seeing their sum only",
                             a->name);
    if (c->robust.screen > 0)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "secure aggregation hides the update norms that norm screening (robust.screen "
                             "%g) needs: turn screening off (0) to use it",
                             (double)c->robust.screen);
    if (run->transport && !run->transport->secagg)
        return fgl_error_set(&run->err, FGL_ERR_ARG, "secure aggregation: this transport cannot run its steps");
    return fgl__secagg_check(run);
}

static int fgl__secagg_upload(fgl_run *run, fgl_client *c) { return fgl__secagg_mask(run, c); }

/* Dropouts; a round whose keys or shares did not go round has withheld
 * every upload (none reached the server as values: none is rejected). */
static int fgl__secagg_arrive(fgl_run *run, fgl_round_stats *st) {
    fgl__secagg_dropouts(run, st);
    run->withheld = !run->sa || !run->sa->ready;
    return FGL_OK;
}

/* The rejected uploads its clients withheld because a weighted value left
 * the ring's range (fgl_round_stats.n_out_of_range). */
static int fgl__secagg_accept(fgl_run *run, fgl_round_stats *st) {
    int q;
    for (q = 0; q < run->n_part && !run->withheld; q++) {
        const fgl_client *c = &run->clients[run->part[q]];
        if (!run->dropped[c->id] && !run->lost[c->id] && !run->accepted[c->id])
            st->n_out_of_range += fgl__sa_out_of_range(c);
    }
    return FGL_OK;
}

static fgl__plugin fgl__plugin_secagg(void) {
    fgl__plugin p;
    memset(&p, 0, sizeof p);
    p.name = "secagg";
    p.flags = FGL__PLUGIN_HIDES_UPLOADS | FGL__PLUGIN_HIDES_VALUES;
    p.on = fgl__secagg_on;
    p.check = fgl__secagg_plugin_check;
    p.begin = fgl__secagg_setup;
    p.upload = fgl__secagg_upload;
    p.arrive = fgl__secagg_arrive;
    p.accept = fgl__secagg_accept;
    p.sum = fgl__secagg_unmask;
    p.record = fgl__secagg_record;
    return p;
}
#include "../../alone.h"
