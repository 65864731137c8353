/* --- covered or refused: a run's defences against its algorithm ------------------- */
/* A defence is accepted only when every upload part that reaches the
 * models goes through the path it guards; fgl_run_init, fgl_run_check and
 * fgl_run_start call this before anything is drawn or built (README,
 * Privacy: "Covered or refused"). */

/* fgl:implementation */
/* The run's defences, attacks and privacy: their consistency with each
 * other and the algorithm's declared messages (nothing drawn, nothing
 * changed: fgl_run_init and fgl_run_check call it too). */
static int fgl__defences_check(fgl_run *run) {
    const fgl_fed_config *c = &run->cfg;
    const fgl_algo *a = &run->algo;
    int p, weights = 0, n_model = 0, n_weight = 0, raw = -1, data = -1, rc;
    const char *priv = c->dp.clip > 0 ? "differential privacy" : "secure aggregation";
    for (p = 0; p < a->n_up; p++) {
        weights |= fgl__weights_part(&a->up[p]);
        n_model += a->up[p].kind == FGL_SEND_MODEL;
        n_weight += a->up[p].kind == FGL_SEND_WEIGHT;
        if ((a->up[p].flags & FGL_PART_RAW) && raw < 0) raw = p;
        if (a->up[p].kind == FGL_SEND_DATA && data < 0) data = p;
    }
    if ((c->robust.rule != FGL_ROBUST_MEAN || c->dp.clip > 0 || c->secagg.on ||
         (c->attack.kind != FGL_ATTACK_NONE && c->attack.kind != FGL_ATTACK_LABELFLIP &&
          c->attack.kind != FGL_ATTACK_NAN && c->attack.kind != FGL_ATTACK_COUNT)) &&
        !weights)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "%s sends no model weights: robust rules, weight attacks, DP and secure "
                             "aggregation act on them",
                             a->name);
    /* Covered or refused: a defence is accepted only when every upload part
     * that reaches the models goes through the path it guards. */
    if ((c->robust.rule != FGL_ROBUST_MEAN || c->dp.clip > 0 || c->secagg.on) && raw >= 0)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "%s: refused: %s's server turns its upload '%s' into model state by its own code "
                             "(FGL_PART_RAW), which %s does not cover",
                             c->robust.rule != FGL_ROBUST_MEAN ? "robust aggregation" : priv, a->name, a->up[raw].name,
                             c->robust.rule != FGL_ROBUST_MEAN ? "the rule" : "it");
    if ((c->dp.clip > 0 || c->secagg.on) && a->mixes)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "%s: refused: %s mixes a model per client from the uploads (fgl_server_mix); it is "
                             "defined for one mean of them, not for personalised mixtures",
                             priv, a->name);
    if ((c->dp.clip > 0 || c->secagg.on || c->robust.rule != FGL_ROBUST_MEAN) && a->reads_each)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "%s: refused: %s's server reads every client's model on its own (an ensemble it "
                             "distils from), which %s does not cover",
                             c->robust.rule != FGL_ROBUST_MEAN ? "robust aggregation" : priv, a->name,
                             c->robust.rule != FGL_ROBUST_MEAN ? "the rule" : "it");
    if ((c->dp.clip > 0 || c->secagg.on) && (fgl__user_hooks(a) & FGL__HOOK_AGGREGATE) && !a->mean_only)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "%s: refused: %s's aggregate hook is the program's own: under %s a hook is handed no "
                             "upload, only the %s mean (fgl_server_mean), so a rule built on it declares "
                             "mean_only = 1 in its table (a rule over the uploads, such as a median, cannot run)",
                             priv, a->name, c->dp.clip > 0 ? "DP" : "it", c->dp.clip > 0 ? "noised" : "unmasked");
    if (c->dp.clip > 0 && n_model > 0 && fgl__model_source(a) < 0)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "differential privacy: refused: %s sends no model from one server buffer (a download "
                             "model part `from` a buffer, not a row per client), which a round without "
                             "participants adds its noise to",
                             a->name);
    if (c->dp.clip > 0 && data >= 0)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "differential privacy: refused: %s uploads '%s' (data the server reads as sent), "
                             "which DP-FedAvg neither clips nor noises",
                             a->name, a->up[data].name);
    if (c->dp.clip > 0 && (c->robust.rule != FGL_ROBUST_MEAN || c->secagg.on))
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "dp: combine it with neither a robust rule nor secure aggregation");
    { /* a robust rule's parameter that a round without a single rejection could not support: refused here;
       * rounds that reject uploads fall back (fgl_server_mix) */
        int np = FGL__MAX(1, FGL__MIN((int)(c->frac * run->n_clients + 0.5f), run->n_clients));
        const fgl_robust_config *rb = &c->robust;
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
    }
    if (c->secagg.on) {
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
        if ((rc = fgl__secagg_check(run))) return rc;
    }
    if (c->dp.clip > 0 && !(c->dp.noise >= 0 && c->dp.delta > 0 && c->dp.delta < 1 && c->frac > 0 && c->frac <= 1))
        return fgl_error_set(&run->err, FGL_ERR_ARG, "dp: noise %g must be >= 0, delta %g in (0, 1), frac %g in (0, 1]",
                             (double)c->dp.noise, c->dp.delta, (double)c->frac);
    if (c->attack.kind != FGL_ATTACK_NONE && c->attack.frac > 0 && !(c->attack.frac <= 1))
        return fgl_error_set(&run->err, FGL_ERR_ARG, "attackers: a fraction in (0, 1], not %g", (double)c->attack.frac);
    return FGL_OK;
}

