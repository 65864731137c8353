#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:private */
#include "../../alone.h"
/* --- the plug-ins ------------------------------------------------------------ */
/* Every plug-in, in the order the stages call them, as X(name, file): its
 * table is built by fgl__plugin_<name>(void), defined in
 * src/fed/plugins/<file>.h (src/fed/plugin.h says what a table holds).
 * The order matters where two act on one thing: an attacker changes its
 * upload before DP clips an honest one and before secure aggregation masks
 * it. Adding a plug-in is a new file plugins/NAME.h and one line here
 * (tests/plugin_check.sh adds a norm bound). */
#define FGL__PLUGINS(X) \
    X(attack, attack)   \
    X(robust, robust)   \
    X(dp, dp)           \
    X(secagg, secagg)   \
    X(intact, intact)   \
    /* (every line above ends in a backslash: a new one goes here) */
/* fgl:implementation */
#include "../../alone.h"
/* --- the plug-ins' list ---------------------------------------------------------- */

/* The tables are built when asked for (by value: a client's stage on one
 * thread and the server's on another share nothing). */
static int fgl__plugin_get(int i, fgl__plugin *out) {
    int k = 0;
#define FGL__PLUGIN_ROW(name, file) \
    if (i == k++) {                 \
        *out = fgl__plugin_##name(); \
        return 1;                   \
    }
    FGL__PLUGINS(FGL__PLUGIN_ROW)
#undef FGL__PLUGIN_ROW
    return 0;
}

static int fgl__plugin_on(const fgl_run *run, const fgl__plugin *p) {
    if (p->on) return p->on(run);
    return run->cfg.plugin.name[0] && p->name &&
           strncmp(run->cfg.plugin.name, p->name, sizeof run->cfg.plugin.name) == 0;
}

static unsigned fgl__plugin_flags(const fgl_run *run) {
    fgl__plugin p;
    unsigned flags = 0;
    int i;
    for (i = 0; fgl__plugin_get(i, &p); i++)
        if (fgl__plugin_on(run, &p)) flags |= p.flags;
    return flags;
}

/* cfg.plugin names a plug-in that no field turns on (a NUL-terminated
 * name, a finite argument), or nothing. */
static int fgl__plugin_named(const fgl_fed_config *cfg, fgl_error *err) {
    fgl__plugin p;
    char names[200];
    size_t at = 0;
    int i;
    if (!memchr(cfg->plugin.name, 0, sizeof cfg->plugin.name))
        return fgl_error_set(err, FGL_ERR_ARG, "run: the plug-in's name is not a string of under %d bytes",
                             (int)sizeof cfg->plugin.name);
    if (!cfg->plugin.name[0]) return FGL_OK;
    if (!isfinite(cfg->plugin.arg))
        return fgl_error_set(err, FGL_ERR_ARG, "run: plug-in %s: its argument is not a finite number", cfg->plugin.name);
    names[0] = 0;
    for (i = 0; fgl__plugin_get(i, &p); i++) {
        if (p.on) continue; /* turned on by its own fields, not by name */
        if (strncmp(cfg->plugin.name, p.name, sizeof cfg->plugin.name) == 0) return FGL_OK;
        if (at < sizeof names) at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", at ? ", " : "", p.name);
    }
    return fgl_error_set(err, FGL_ERR_ARG, "run: no plug-in named '%.*s'; by name: %s", (int)sizeof cfg->plugin.name,
                         cfg->plugin.name, at ? names : "none (the built-in ones have fields of their own)");
}
#include "../../alone.h"
