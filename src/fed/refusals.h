#include "../alone.h" /* (this file alone: src/alone.h) */
/* --- covered or refused: a run's plug-ins against its algorithm -------------------- */
/* A defence is accepted only when every upload part that reaches the
 * models goes through the path it guards (README, Privacy: "Covered or
 * refused"). Each plug-in (src/fed/plugins/) refuses what it would not
 * cover in its `check`; fgl_run_init, fgl_run_check and fgl_run_start call
 * every one that is on before anything is drawn or built. */

/* fgl:implementation */
#include "../alone.h"
/* What a defence needs of the algorithm, for fgl__covered. */
enum {
    FGL__COVER_WEIGHTS = 1, /* it sends model weights (the defence acts on them) */
    FGL__COVER_RAW = 2,     /* no upload its server turns into state by its own code (FGL_PART_RAW) */
    FGL__COVER_MIX = 4,     /* one mean, no model mixed per client (fgl_server_mix) */
    FGL__COVER_EACH = 8,    /* no server that reads every client's model on its own */
    FGL__COVER_HOOK = 16    /* an aggregate hook of the program's own declares mean_only */
};
/* The refusal of the first need the algorithm does not meet, or FGL_OK.
 * what: the defence ("differential privacy"); it: how the message names it
 * after the algorithm ("it", "the rule"); under, mean: for
 * FGL__COVER_HOOK, what the hook is under ("DP") and what mean it gets
 * ("noised"). */
static int fgl__covered(fgl_run *run, const char *what, const char *it, const char *under, const char *mean,
                        unsigned need);

static int fgl__covered(fgl_run *run, const char *what, const char *it, const char *under, const char *mean,
                        unsigned need) {
    const fgl_algo *a = &run->algo;
    int p, weights = 0, raw = -1;
    for (p = 0; p < a->n_up; p++) {
        weights |= fgl__weights_part(&a->up[p]);
        if ((a->up[p].flags & FGL_PART_RAW) && raw < 0) raw = p;
    }
    if ((need & FGL__COVER_WEIGHTS) && !weights)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "%s sends no model weights: robust rules, weight attacks, DP and secure "
                             "aggregation act on them",
                             a->name);
    if ((need & FGL__COVER_RAW) && raw >= 0)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "%s: refused: %s's server turns its upload '%s' into model state by its own code "
                             "(FGL_PART_RAW), which %s does not cover",
                             what, a->name, a->up[raw].name, it);
    if ((need & FGL__COVER_MIX) && a->mixes)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "%s: refused: %s mixes a model per client from the uploads (fgl_server_mix); it is "
                             "defined for one mean of them, not for personalised mixtures",
                             what, a->name);
    if ((need & FGL__COVER_EACH) && a->reads_each)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "%s: refused: %s's server reads every client's model on its own (an ensemble it "
                             "distils from), which %s does not cover",
                             what, a->name, it);
    if ((need & FGL__COVER_HOOK) && (fgl__user_hooks(a) & FGL__HOOK_AGGREGATE) && !a->mean_only)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "%s: refused: %s's aggregate hook is the program's own: under %s a hook is handed no "
                             "upload, only the %s mean (fgl_server_mean), so a rule built on it declares "
                             "mean_only = 1 in its table (a rule over the uploads, such as a median, cannot run)",
                             what, a->name, under, mean);
    return FGL_OK;
}

/* The run's plug-ins: cfg.plugin names one the list has, and each plug-in
 * on accepts the run (nothing drawn, nothing changed: fgl_run_init and
 * fgl_run_check call it too). */
static int fgl__defences_check(fgl_run *run) {
    fgl__plugin p;
    unsigned flags = fgl__plugin_flags(run);
    const char *sealed = NULL; /* a privacy mechanism on earlier in the list: it had the last word on uploads */
    int i, rc;
    if ((rc = fgl__plugin_named(&run->cfg, &run->err))) return rc;
    for (i = 0; fgl__plugin_get(i, &p); i++) {
        if (!fgl__plugin_on(run, &p)) continue;
        if ((p.flags & FGL__PLUGIN_REWRITES) && (flags & FGL__PLUGIN_HIDES_VALUES))
            return fgl_error_set(&run->err, FGL_ERR_ARG, "%s: refused: it rewrites uploads on the server, which "
                                 "arrive masked here (secure aggregation)", p.name);
        if (p.upload && sealed) /* after DP's clip or secure aggregation's masks: its change would undo them */
            return fgl_error_set(&run->err, FGL_ERR_ARG, "%s: refused: it changes each upload after %s has clipped "
                                 "or masked it (src/fed/plugins/list.h runs it later)", p.name, sealed);
        if (p.check && (rc = p.check(run))) return rc;
        if (p.upload && (p.flags & FGL__PLUGIN_HIDES_UPLOADS)) sealed = p.name;
    }
    return FGL_OK;
}
#include "../alone.h"
