/* fgl:implementation */
/* --- the registry ------------------------------------------------------------------- */
/* The built-in tables, built once on first use, then the registered ones.
 * Read-only after that: register at program start. */

#define FGL__REGISTRY_CAP 64

typedef struct fgl__registry {
    int built, n, n_builtin;
    fgl_algo algo[FGL__REGISTRY_CAP];
} fgl__registry;

static fgl__registry *fgl__reg(void) {
    static fgl__registry reg;
    if (!reg.built) {
#define FGL__BUILDER(name, file) fgl__##name,
        static fgl_algo (*const make[])(void) = {FGL__ALGORITHMS(FGL__BUILDER)};
#undef FGL__BUILDER
        int i, n = (int)(sizeof make / sizeof make[0]);
        for (i = 0; i < n; i++) reg.algo[i] = make[i]();
        reg.n = reg.n_builtin = n;
        reg.built = 1;
    }
    return &reg;
}

FGLDEF int fgl_algo_count(void) { return fgl__reg()->n; }

FGLDEF const fgl_algo *fgl_algo_at(int i) { return i >= 0 && i < fgl__reg()->n ? &fgl__reg()->algo[i] : NULL; }

FGLDEF const fgl_algo *fgl_algo_find(const char *name) {
    fgl__registry *r = fgl__reg();
    int i;
    for (i = 0; name && i < r->n; i++)
        if (strcmp(r->algo[i].name, name) == 0) return &r->algo[i];
    return NULL;
}

FGLDEF fgl_algo fgl_algo_base(const char *name) {
    const fgl_algo *a = fgl_algo_find(name);
    return a ? *a : fgl_algo_new(name, "");
}

FGLDEF int fgl_algo_register(const fgl_algo *a) {
    fgl__registry *r = fgl__reg();
    if (!a || !a->name || !*a->name) return FGL_ERR_ARG;
    if (fgl_algo_find(a->name)) return FGL_ERR_ARG; /* names are unique */
    if (r->n == FGL__REGISTRY_CAP) return FGL_ERR_NOMEM;
    r->algo[r->n++] = *a;
    return FGL_OK;
}

FGL__PRIVATE unsigned fgl__user_hooks(const fgl_algo *a) {
    const fgl__registry *r = fgl__reg();
    int i, ours[8] = {0}; /* the slot's hook is a built-in table's */
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
    }
    if (a->receive && !ours[0]) user |= FGL__HOOK_RECEIVE;
    if ((a->local_train && !ours[1]) || (a->train.loss && !ours[2]) || (a->train.grad && !ours[3]) ||
        (a->train.after_step && !ours[4]))
        user |= FGL__HOOK_TRAIN;
    if (a->upload && !ours[5]) user |= FGL__HOOK_UPLOAD;
    if (a->eval_model && !ours[6]) user |= FGL__HOOK_EVAL;
    if (a->aggregate && !ours[7]) user |= FGL__HOOK_AGGREGATE;
    return user;
}
