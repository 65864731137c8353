#include "../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../alone.h"
/* --- plug-ins: what joins a round's stages ---------------------------------------- */
/* A round is a list of stages (src/fed/stages.h): begin, train, arrive,
 * accept, sum, aggregate, sample, broadcast, evaluate, record. The
 * runtime's own work fills them; a defence, an attack for experiments, a
 * privacy mechanism or an integrity check joins them as a plug-in: one
 * table of the functions below, each NULL where it has nothing to do, and
 * one line of src/fed/plugins/list.h. A plug-in reads its configuration
 * from the run's (fgl_fed_config: its own fields, or for one that no field
 * names, cfg.plugin), refuses in `check` what it cannot cover, and keeps
 * its state where its functions find it. The runtime calls each stage
 * function of every plug-in that is on, in the list's order. Adding one is
 * a file and a line (tests/plugin_check.sh adds a norm bound). */

/* What a plug-in changes for the rest of the round (fgl__plugin.flags). */
enum {
    FGL__PLUGIN_HIDES_UPLOADS = 1, /* the aggregate hook is handed no upload, only the runtime's means */
    FGL__PLUGIN_HIDES_VALUES = 2,  /* uploads arrive masked: their values, norms and losses are not the
                                      server's to read (the runtime checks only their presence and size) */
    FGL__PLUGIN_HIDES_WHO = 4,     /* who took part is the mechanism's secret (s->n_accepted reads 0) */
    FGL__PLUGIN_REWRITES = 8       /* its arrive stage may rewrite uploads (of any shape: none is checked
                                      yet): the runtime checks them after it, not where they were built */
};

typedef struct fgl__plugin {
    const char *name;   /* as cfg.plugin.name turns it on, for a plug-in no field names */
    unsigned flags;     /* FGL__PLUGIN_*, while it is on */
    /* 1 when the run's configuration turns it on. NULL: on when
     * cfg.plugin.name is the plug-in's name. */
    int (*on)(const fgl_run *run);
    /* Its refusals, before anything is built or drawn (fgl_run_init,
     * fgl_run_check, fgl_run_start): its own settings, and the algorithm's
     * messages it would not cover. FGL_OK or an error in run->err. */
    int (*check)(fgl_run *run);
    /* Once, at the start, the models built: its state (secrets, attackers). */
    int (*start)(fgl_run *run);
    /* sample: draws round `round`'s participants into ids (increasing) and
     * returns how many, instead of the uniform draw of cfg.frac (DP's
     * Poisson draw). The first plug-in on with one draws. */
    int (*sample)(fgl_run *run, int round, int *ids);
    /* begin: before the round's training (secure aggregation's keys). */
    int (*begin)(fgl_run *run, fgl_round_stats *st);
    /* train: where client c lives, after its upload hook: what it does to
     * its upload (an attacker's change, DP's clipping, secure aggregation's
     * masks). It runs on the client's thread, beside other clients', and
     * in an MPI worker's process for a remote client: it reads the client
     * and the run's configuration, never the server's state. A plug-in
     * that changes uploads after a privacy mechanism (one with
     * FGL__PLUGIN_HIDES_UPLOADS earlier in the list) is refused. FGL_OK or
     * an error through fgl_client_fail. */
    int (*upload)(fgl_run *run, fgl_client *c);
    /* arrive: on the server, the round's uploads in (the ALIE attack
     * rewrites, secure aggregation's dropouts). Uploads built in this
     * process were checked already, where they were built, unless a
     * plug-in that is on declares FGL__PLUGIN_REWRITES: then every upload
     * is checked after this stage. So a plug-in that rewrites uploads here
     * must declare it (refused under secure aggregation). It may set
     * run->withheld: no upload of the round reached the server as values,
     * so none counts as rejected. */
    int (*arrive)(fgl_run *run, fgl_round_stats *st);
    /* accept: the uploads checked (run->accepted), more may be rejected
     * (norm screening). Returns FGL_OK or below 0 with run->err. */
    int (*accept)(fgl_run *run, fgl_round_stats *st);
    /* sum: the accepted uploads into what the server may read (secure
     * aggregation's unmasking of their sum). */
    int (*sum)(fgl_run *run, fgl_round_stats *st);
    /* aggregate: release before the aggregate hook (DP's noised means),
     * after: what the hook must have done (DP: taken every release) or left
     * alone (the uploads, unchanged). Errors through fgl_server_fail, or in
     * run->err for `after`. */
    int (*release)(fgl_run *run, fgl_round_stats *st);
    int (*after)(fgl_run *run);
    /* record: the round's metrics into the history in its own way instead
     * of the runtime's (secure aggregation: sums only). The first plug-in
     * on with one records. */
    int (*record)(fgl_run *run, fgl_round_stats *st, int evaluated);
} fgl__plugin;

/* The plug-ins, in src/fed/plugins/list.h's order: the i-th into out (0
 * past the last); whether it is on in a run; the FGL__PLUGIN_* flags of
 * those on; cfg.plugin's name checked against the list. */
static int fgl__plugin_get(int i, fgl__plugin *out);
static int fgl__plugin_on(const fgl_run *run, const fgl__plugin *p);
static unsigned fgl__plugin_flags(const fgl_run *run);
static int fgl__plugin_named(const fgl_fed_config *cfg, fgl_error *err);
/* Calls stage function FN of every plug-in that is on, in order, with
 * ARGS; returns the first error from the function it is used in. */
#define FGL__PLUGINS_CALL(run, fn, args)                                                \
    do {                                                                                \
        fgl__plugin fgl__p_;                                                            \
        int fgl__i_, fgl__rc_ = FGL_OK;                                                 \
        for (fgl__i_ = 0; !fgl__rc_ && fgl__plugin_get(fgl__i_, &fgl__p_); fgl__i_++)   \
            if (fgl__p_.fn && fgl__plugin_on(run, &fgl__p_)) fgl__rc_ = fgl__p_.fn args; \
        if (fgl__rc_) return fgl__rc_;                                                  \
    } while (0)

#include "../alone.h"
