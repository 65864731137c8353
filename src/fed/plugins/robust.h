#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- the robust plug-in: robust rules and norm screening (cfg.robust) --------------- */
/* The rule itself (median, trimmed mean, Krum, Multi-Krum, norm clipping)
 * is the server's mean: fgl_server_mean applies it (src/fed/defences.h).
 * This plug-in refuses the algorithms and settings a rule cannot cover, and
 * screens uploads by their update norms in the accept stage. */

/* Screening on: its norms are measured as uploads are checked. */
static int fgl__screening(const fgl_run *run) {
    return run->cfg.robust.screen > 0 && !(fgl__plugin_flags(run) & FGL__PLUGIN_HIDES_VALUES);
}

static int fgl__robust_on(const fgl_run *run) {
    return run->cfg.robust.rule != FGL_ROBUST_MEAN || run->cfg.robust.screen > 0;
}

static int fgl__robust_check(fgl_run *run) {
    const fgl_fed_config *c = &run->cfg;
    const fgl_robust_config *rb = &c->robust;
    int np = FGL__MAX(1, FGL__MIN((int)(c->frac * run->n_clients + 0.5f), run->n_clients)), rc;
    if (rb->rule == FGL_ROBUST_MEAN) return FGL_OK; /* screening alone reads nothing but norms */
    if ((rc = fgl__covered(run, "robust aggregation", "the rule", NULL, NULL,
                           FGL__COVER_WEIGHTS | FGL__COVER_RAW | FGL__COVER_EACH)))
        return rc;
    /* a parameter that a round without a single rejection could not support is refused here; rounds that
     * reject uploads fall back (fgl_server_mix) */
    if (rb->rule == FGL_ROBUST_TRIMMED && 2 * rb->trim >= np)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "trimmed:%d needs more than %d uploads a round, and a round has %d participants "
                             "(%d clients, frac %g): trim at most %d",
                             rb->trim, 2 * rb->trim, np, run->n_clients, (double)c->frac, (np - 1) / 2);
    if ((rb->rule == FGL_ROBUST_KRUM || rb->rule == FGL_ROBUST_MULTIKRUM) && np <= 2 * rb->f + 2)
        return np < 3 ? fgl_error_set(&run->err, FGL_ERR_ARG,
                                      "%s needs 3 or more participants a round, and a round has %d (%d clients, "
                                      "frac %g)",
                                      fgl_robust_name(rb->rule), np, run->n_clients, (double)c->frac)
                      : fgl_error_set(&run->err, FGL_ERR_ARG,
                                      "%s with f = %d: Krum's guarantee needs more than 2f + 2 = %d uploads a "
                                      "round, and a round has %d participants (%d clients, frac %g): f at most %d",
                                      fgl_robust_name(rb->rule), rb->f, 2 * rb->f + 2, np, run->n_clients,
                                      (double)c->frac, (np - 3) / 2);
    if (rb->rule == FGL_ROBUST_MULTIKRUM && (rb->m < 1 || rb->m > np - rb->f))
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "multikrum:%d,%d keeps %d uploads of a round's %d participants, of which f = %d are "
                             "assumed attackers: keep 1 to %d",
                             rb->f, rb->m, rb->m, np, rb->f, np - rb->f);
    return FGL_OK;
}

static int fgl__robust_accept(fgl_run *run, fgl_round_stats *st) {
    int rc = fgl__screening(run) ? fgl__screen(run, st) : 0;
    return rc < 0 ? rc : FGL_OK;
}

static fgl__plugin fgl__plugin_robust(void) {
    fgl__plugin p;
    memset(&p, 0, sizeof p);
    p.name = "robust";
    p.on = fgl__robust_on;
    p.check = fgl__robust_check;
    p.accept = fgl__robust_accept;
    return p;
}
#include "../../alone.h"
