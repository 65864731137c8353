#include "../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../alone.h"
/* --- the registry ------------------------------------------------------------------- */
/* The built-in tables, built once on first use, then the registered ones.
 * Read-only after that: register at program start. */

#define FGL__REGISTRY_CAP 64

typedef struct fgl__registry {
    int built, n, n_builtin;
    fgl_algo algo[FGL__REGISTRY_CAP];
    char missed[64];   /* the last name fgl_algo_find did not find (fgl_run_init's error names it) */
} fgl__registry;

static fgl__registry *fgl__reg(void) {
    static fgl__registry reg;
    if (!reg.built) {
#define FGL__BUILDER(name, file) fgl__##name,
        static fgl_algo (*const make[])(void) = {FGL__ALGORITHMS(FGL__BUILDER)};
#undef FGL__BUILDER
        int i, n = (int)(sizeof make / sizeof make[0]);
        for (i = 0; i < n; i++) {
            reg.algo[i] = make[i]();
            reg.algo[i].origin = &reg.algo[i]; /* (fgl_algo_base copies it along) */
        }
        reg.n = reg.n_builtin = n;
        reg.built = 1;
    }
    return &reg;
}

FGLDEF int fgl_algo_count(void) { return fgl__reg()->n; }

FGLDEF const fgl_algo *fgl_algo_at(int i) { return i >= 0 && i < fgl__reg()->n ? &fgl__reg()->algo[i] : NULL; }

static const fgl_algo *fgl__algo_lookup(const char *name) {
    fgl__registry *r = fgl__reg();
    int i;
    for (i = 0; name && i < r->n; i++)
        if (strcmp(r->algo[i].name, name) == 0) return &r->algo[i];
    return NULL;
}

FGLDEF const fgl_algo *fgl_algo_find(const char *name) {
    const fgl_algo *a = fgl__algo_lookup(name);
    if (!a && name) { /* a longer name is cut (copied by hand: snprintf's cut is a -Wformat-truncation warning) */
        char *m = fgl__reg()->missed;
        size_t k;
        for (k = 0; name[k] && k + 1 < sizeof fgl__reg()->missed; k++) m[k] = name[k];
        m[k] = 0;
    }
    return a;
}

/* Levenshtein distance of a and b, ASCII case ignored (names are short:
 * up to 63 characters are compared). */
static int fgl__name_distance(const char *a, const char *b) {
    int row[64], i, j, n = (int)FGL__MIN(strlen(a), 63), m = (int)FGL__MIN(strlen(b), 63);
    for (j = 0; j <= m; j++) row[j] = j;
    for (i = 1; i <= n; i++) {
        int diag = row[0], ca = a[i - 1] >= 'A' && a[i - 1] <= 'Z' ? a[i - 1] + 32 : a[i - 1];
        row[0] = i;
        for (j = 1; j <= m; j++) {
            int cb = b[j - 1] >= 'A' && b[j - 1] <= 'Z' ? b[j - 1] + 32 : b[j - 1], up = row[j];
            row[j] = FGL__MIN(FGL__MIN(row[j] + 1, row[j - 1] + 1), diag + (ca != cb));
            diag = up;
        }
    }
    return row[m];
}

FGLDEF const char *fgl_algo_suggest(const char *name) {
    fgl__registry *r = fgl__reg();
    const char *best = NULL;
    int i, d, best_d = 3, len = name ? (int)strlen(name) : 0;
    for (i = 0; name && i < r->n; i++) {
        d = fgl__name_distance(name, r->algo[i].name);
        if (d < best_d && 2 * d < FGL__MAX(len, (int)strlen(r->algo[i].name))) { /* close, and not most of it */
            best_d = d;
            best = r->algo[i].name;
        }
    }
    return best;
}

/* The last name fgl_algo_find did not find ("" if none). */
static const char *fgl__algo_missed(void) { return fgl__reg()->missed; }

/* "local, fedavg, ..." (the registered names, cut to cap). */
static void fgl__algo_names(char *buf, size_t cap) {
    fgl__registry *r = fgl__reg();
    size_t n = 0;
    int i;
    if (cap) buf[0] = 0;
    for (i = 0; i < r->n && n + 1 < cap; i++) {
        int w = snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", r->algo[i].name);
        if (w < 0) break;
        n += (size_t)w;
    }
}

FGLDEF fgl_algo fgl_algo_base(const char *name) {
    const fgl_algo *a = fgl__algo_lookup(name);
    return a ? *a : fgl_algo_new(name, "");
}

FGLDEF int fgl_algo_register(const fgl_algo *a) {
    fgl__registry *r = fgl__reg();
    if (!a || !a->name || !*a->name) return FGL_ERR_ARG;
    if (fgl__algo_lookup(a->name)) return FGL_ERR_ARG; /* names are unique */
    if (r->n == FGL__REGISTRY_CAP) return FGL_ERR_NOMEM;
    r->algo[r->n++] = *a;
    return FGL_OK;
}

FGL__PRIVATE unsigned fgl__user_hooks(const fgl_algo *a) {
    const fgl__registry *r = fgl__reg();
    int i, ours[9] = {0}; /* the slot's hook is a built-in table's */
    unsigned user = 0;
    for (i = 0; i < r->n_builtin; i++) {
        const fgl_algo *b = &r->algo[i];
        ours[0] |= a->receive == b->receive;
        ours[1] |= a->local_train == b->local_train;
        ours[2] |= a->train.loss == b->train.loss;
        ours[3] |= a->train.grad == b->train.grad;
        ours[4] |= a->train.after_step == b->train.after_step;
        ours[5] |= a->upload == b->upload;
        ours[6] |= a->eval_model == b->eval_model;
        ours[7] |= a->aggregate == b->aggregate;
        ours[8] |= a->eval_scores == b->eval_scores;
    }
    if (a->receive && !ours[0]) user |= FGL__HOOK_RECEIVE;
    if ((a->local_train && !ours[1]) || (a->train.loss && !ours[2]) || (a->train.grad && !ours[3]) ||
        (a->train.after_step && !ours[4]))
        user |= FGL__HOOK_TRAIN;
    if (a->upload && !ours[5]) user |= FGL__HOOK_UPLOAD;
    if ((a->eval_model && !ours[6]) || (a->eval_scores && !ours[8])) user |= FGL__HOOK_EVAL;
    if (a->aggregate && !ours[7]) user |= FGL__HOOK_AGGREGATE;
    return user;
}
#include "../alone.h"
