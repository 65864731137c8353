/* fglrun/options.c - part of examples/fglrun.c (included by it): the options
 * and the option table.
 *
 * Every flag is defined once, by its row in opt_table below: its name, the
 * type and range of its value, its initial value, the synopsis' name for
 * the value, the paragraph --help gives it, and its kind:
 *   'e'  an experiment setting: recorded with its effective value and its
 *        default ("flags" and "defaults" of the record, in the table's
 *        order) and replayed by --config;
 *   'r'  run control (--out, --checkpoint, --threads, --json ...): recorded
 *        ("run"), not replayed; given with --config, it leaves the
 *        experiment unchanged (the replayed result is compared);
 *   's'  --set (recorded as "set" and as the algorithms' "params");
 *   'h'  --help; 'v' --version (in the synopsis, not recorded).
 * The synopsis and --help (usage), parsing and range checks (parse_args),
 * the record (opt_record) and replay (config_reparse: which flags are run
 * control) read the table. Defaults that depend on the data (the protocol's:
 * rounds, lr, the split ...) are the library's; a row's rec function records
 * them. The embedded default benchmark (no --algo, no data) has its own
 * values: the rows' emb. The types (options, opt_def, rec_item, rec_ctx)
 * are in fglrun/fglrun.h, which the other parts read too.
 */
#include "fglrun.h"

/* The protocols' per-client train and validation fractions (fgl_scenario_make's). */
FGLRUN_SHARED double split_frac_default(int task, int val) {
    return task == FGL_TASK_NODE ? (val ? 0.4 : 0.2) : (val ? 0.1 : 0.8);
}

/* The model spec of an architecture with the command line's overrides. */
FGLRUN_SHARED fgl_model_spec model_spec(const options *o, int arch, int task) {
    fgl_model_spec s = fgl_model_spec_default(arch, o->task == FGL_TASK_LINK ? FGL_TASK_LINK : task, 1, 1);
    s.task = task; /* --task link: the node task's clients, made link clients by link_clients (fglrun/link.c) */
    if (o->task == FGL_TASK_LINK && o->decoder == 1) s.head = FGL_HEAD_MLP; /* the MLP decoder */
    if (o->hidden > 0) s.hidden = o->hidden;
    if (o->heads > 0) s.heads = o->heads;
    if (o->layers > 0) s.layers = o->layers;
    if (o->head >= 0) s.head = o->head;
    if (o->bn) s.batch_norm = 1; /* GIN only: fgl_model_spec_check refuses it elsewhere */
    s.residual = o->residual;    /* node models gcn, gin, sage, gat, mlp: fgl_model_spec_check refuses others */
    s.norm = o->norm;
    /* GCNII's output map is its classifier; graph tasks need a head after the readout */
    if (s.head == FGL_HEAD_NONE && (arch == FGL_ARCH_GCNII || task == FGL_TASK_GRAPH)) s.head = FGL_HEAD_LINEAR;
    return s;
}

/* A number of a row's field. */
static double opt_num(const options *o, const opt_def *d) {
    const char *p = (const char *)o + d->off;
    switch (d->type) {
    case OPT_BOOL: case OPT_INT: case OPT_ENUM: return *(const int *)p;
    case OPT_U64: return (double)*(const uint64_t *)p;
    case OPT_DOUBLE: return *(const double *)p;
    case OPT_FLOAT: return *(const float *)p;
    default: return 0;
    }
}

static void opt_put_num(options *o, const opt_def *d, double x) {
    char *p = (char *)o + d->off;
    switch (d->type) {
    case OPT_BOOL: case OPT_INT: case OPT_ENUM: *(int *)p = (int)x; break;
    case OPT_U64: *(uint64_t *)p = (uint64_t)x; break;
    case OPT_DOUBLE: *(double *)p = x; break;
    case OPT_FLOAT: *(float *)p = (float)x; break;
    default: break;
    }
}

/* An enum's choice i ("" past the last), into out. */
static const char *enum_choice(const opt_def *d, int i, char *out, size_t cap) {
    const char *s = d->arg;
    size_t len;
    while (i-- > 0 && *s) s += strcspn(s, "|") + (s[strcspn(s, "|")] == '|');
    len = strcspn(s, "|");
    snprintf(out, cap, "%.*s", (int)len, s);
    return out;
}

/* The name of an enum's value (out: a buffer of 32). */
static const char *enum_name(const opt_def *d, int value, char *out) {
    int i;
    char c[32];
    for (i = 0; *enum_choice(d, i, c, sizeof c); i++)
        if ((d->vals ? d->vals[i] : i) == value) return enum_choice(d, i, out, 32);
    out[0] = 0;
    return out;
}

/* --- parsing helpers --- */

static int fail(char *msg, size_t cap, const char *fmt, const char *a) {
    snprintf(msg, cap, fmt, a);
    return 1;
}

static void usage(FILE *f);

/* A refusal of the command line: the reason, and one line pointing at the
 * help (the whole text buries the reason). */
FGLRUN_SHARED int bad(const char *fmt, const char *a) {
    fprintf(stderr, "fglrun: ");
    fprintf(stderr, fmt, a);
    fprintf(stderr, "\n(fglrun --help lists the options; fglrun --algo NAME --help an algorithm's parameters)\n");
    return 2;
}

/* The edit distance of a and b (short words: option names), capped at 9. */
static int edit_distance(const char *a, const char *b) {
    int la = (int)strlen(a), lb = (int)strlen(b), i, j, d[40][40];
    if (la >= 40 || lb >= 40) return 9;
    for (i = 0; i <= la; i++) d[i][0] = i;
    for (j = 0; j <= lb; j++) d[0][j] = j;
    for (i = 1; i <= la; i++)
        for (j = 1; j <= lb; j++) {
            int c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < c) c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c) c = d[i][j - 1] + 1;
            d[i][j] = c;
        }
    return d[la][lb] < 9 ? d[la][lb] : 9;
}

/* A --data value: at most MAX_ITEMS comma-separated items, none empty; a
 * name (or a directory's last component) shorter than 64 characters. */
static int data_list_ok(const char *s) {
    int n = 0;
    while (*s) {
        size_t len = strcspn(s, ","), base = len;
        const char *p;
        for (p = s + len; p > s && p[-1] == '/'; p--) base--; /* "dir/Cora/" */
        for (p = s + base; p > s && p[-1] != '/'; p--) {
        }
        if (len == 0 || (size_t)(s + base - p) >= 64 || s + base == p || ++n > MAX_ITEMS) return 0;
        s += len;
        if (*s == ',' && !*++s) return 0;
    }
    return n > 0;
}

static int split_list(const char *s, char out[][64], int max, size_t width) {
    int n = 0;
    while (*s && n < max) {
        size_t len = strcspn(s, ",");
        if (len == 0 || len >= width) return -1;
        memcpy(out[n], s, len);
        out[n][len] = 0;
        n++;
        s += len;
        if (*s == ',') s++;
    }
    return *s ? -1 : n;
}

static int parse_int(const char *s, int lo, int hi, int *v) {
    char *end;
    long x;
    errno = 0;
    x = strtol(s, &end, 10);
    if (end == s || *end || errno || x < lo || x > hi) return 0;
    *v = (int)x;
    return 1;
}

/* --- values that are not one number: the rows' parse functions --- */

static int p_algo(options *o, const char *v, char *msg, size_t cap) {
    char tmp[MAX_ITEMS][64];
    int k;
    if ((o->n_algos = split_list(v, tmp, MAX_ITEMS, 32)) <= 0) return fail(msg, cap, "bad --algo list '%s'", v);
    for (k = 0; k < o->n_algos; k++) {
        if (!fgl_algo_find(tmp[k])) { /* "FedAvg": did you mean fedavg? (case, or two edits at most) */
            const char *near = fgl_algo_suggest(tmp[k]);
            if (near) snprintf(msg, cap, "unknown algorithm '%s'; did you mean '%s'?", tmp[k], near);
            else snprintf(msg, cap, "unknown algorithm '%s' (the algorithms are listed below)", tmp[k]);
            return 1;
        }
        strcpy(o->algos[k], tmp[k]);
    }
    return 0;
}

static int p_data(options *o, const char *v, char *msg, size_t cap) {
    if (!data_list_ok(v) || strlen(v) >= sizeof o->data) return fail(msg, cap, "bad --data list '%s'", v);
    strcpy(o->data, v);
    return 0;
}

static int p_split(options *o, const char *v, char *msg, size_t cap) {
    if (!strcmp(v, "public")) {
        o->public_split = 1;
        o->split = FGL_PART_NONE;
    } else if ((o->split = fgl_part_from_name(v)) < 0) {
        return fail(msg, cap, "unknown split '%s'", v);
    }
    return 0;
}

static int p_model(options *o, const char *v, char *msg, size_t cap) {
    char tmp[MAX_ITEMS][64];
    int k;
    if ((o->n_archs = split_list(v, tmp, MAX_ITEMS, 64)) <= 0) return fail(msg, cap, "bad --model list '%s'", v);
    for (k = 0; k < o->n_archs; k++)
        if ((o->archs[k] = fgl_arch_from_name(tmp[k])) < 0 || o->archs[k] == FGL_ARCH_FEDSTAR)
            return fail(msg, cap, "unknown model '%s'", tmp[k]);
    o->arch = o->archs[0];
    return 0;
}

static int p_se(options *o, const char *v, char *msg, size_t cap) { /* DSE,RWSE widths */
    char se[2][64];
    if (split_list(v, se, 2, 64) != 2 || !parse_int(se[0], 0, 1024, &o->k_dse) || !parse_int(se[1], 0, 1024, &o->k_rwse) ||
        o->k_dse + o->k_rwse == 0)
        return fail(msg, cap, "--se takes two widths DSE,RWSE (e.g. 16,16 or 16,0), not '%s'", v);
    return 0;
}

static int p_robust(options *o, const char *v, char *msg, size_t cap) {
    fgl_error e;
    return fgl_robust_parse(v, &o->robust, &e) ? fail(msg, cap, "%s", e.msg) : 0;
}

static int p_attack(options *o, const char *v, char *msg, size_t cap) {
    fgl_error e;
    return fgl_attack_parse(v, &o->attack, &e) ? fail(msg, cap, "%s", e.msg) : 0;
}

static int p_secret_seed(options *o, const char *v, char *msg, size_t cap) {
    char *end;
    unsigned long long x;
    errno = 0;
    x = strtoull(v, &end, 10);
    if (!*v || *end || errno || *v == '-') return fail(msg, cap, "--secret-seed needs an integer >= 0, not '%s'", v);
    o->secret_seed = (uint64_t)x;
    o->secret_seed_set = 1;
    return 0;
}

static int p_dp(options *o, const char *v, char *msg, size_t cap) {
    fgl_error e;
    return fgl_dp_parse(v, &o->dp, &e) ? fail(msg, cap, "%s", e.msg) : 0;
}

static int p_plugin(options *o, const char *v, char *msg, size_t cap) {
    fgl_error e;
    return fgl_plugin_parse(v, &o->plugin, &e) ? fail(msg, cap, "%s", e.msg) : 0;
}

static int p_set(options *o, const char *v, char *msg, size_t cap) {
    if (!strchr(v, '=') || o->n_sets == MAX_ITEMS || strlen(v) >= sizeof o->sets[0])
        return fail(msg, cap, "--set takes key=value, not '%s'", v);
    strcpy(o->sets[o->n_sets++], v);
    return 0;
}

#ifdef FGL_MPI
static int p_mpi_fail(options *o, const char *v, char *msg, size_t cap) {
    char rr[64], *colon = NULL, *mode = NULL;
    if (strlen(v) < sizeof rr) {
        strcpy(rr, v);
        colon = strchr(rr, ':');
    }
    if (colon) {
        *colon = 0;
        mode = strchr(colon + 1, ':');
    }
    if (mode) *mode++ = 0;
    if (!colon || !parse_int(rr, 1, 1000000, &o->mpi.fail_rank) ||
        !parse_int(colon + 1, 0, 1000000, &o->mpi.fail_round) || (mode && strcmp(mode, "exit") != 0))
        return fail(msg, cap, "--mpi-fail takes RANK:ROUND or RANK:ROUND:exit (a rank >= 1, a round >= 0), not '%s'",
                    v);
    o->mpi.fail_exit = mode != NULL;
    return 0;
}
#endif

/* --- the record: the rows' rec functions (values and defaults that depend on the data) --- */

static void rec_put(rec_item *r, char vk, const char *val, char dk, const char *def) {
    snprintf(r->val, sizeof r->val, "%s", val ? val : "");
    snprintf(r->def, sizeof r->def, "%s", def ? def : "");
    r->vk = val ? vk : 'z';
    r->dk = def ? dk : 'z';
}

static void rec_long(rec_item *r, long v, long d) {
    char a[32], b[32];
    snprintf(a, sizeof a, "%ld", v);
    snprintf(b, sizeof b, "%ld", d);
    rec_put(r, 'n', a, 'n', b);
}

/* single: the number is a float (its shortest decimal as a float) */
static void rec_reals(rec_item *r, double v, int vsingle, double d, int dsingle) {
    char a[40], b[40];
    fmt_real(a, sizeof a, v, vsingle);
    fmt_real(b, sizeof b, d, dsingle);
    rec_put(r, 'n', a, 'n', b);
}

/* A row by its type: the value, and the value without the flag (the
 * embedded benchmark's, if it has one); OPT_NULL: null while unset. */
static void rec_by_type(const opt_def *d, const rec_ctx *c, rec_item *it) {
    double x = opt_num(c->o, d), p = opt_num(c->plain, d);
    char v[64], dv[64];
    switch (d->type) {
    case OPT_BOOL: rec_put(it, 'b', x ? "true" : "false", 'b', p ? "true" : "false"); break;
    case OPT_INT:
    case OPT_U64:
        snprintf(v, sizeof v, "%ld", (long)x);
        snprintf(dv, sizeof dv, "%ld", (long)p);
        if (d->fl & OPT_NULL) rec_put(it, 'n', x != p ? v : NULL, 'z', NULL);
        else rec_put(it, 'n', v, 'n', c->embedded && d->emb ? d->emb : dv);
        break;
    case OPT_DOUBLE:
    case OPT_FLOAT: rec_reals(it, x, d->type == OPT_FLOAT, p, d->type == OPT_FLOAT); break;
    case OPT_ENUM: rec_put(it, 's', enum_name(d, (int)x, v), 's', enum_name(d, (int)p, dv)); break;
    case OPT_STR: rec_put(it, 's', *(const char *const *)(const void *)((const char *)c->o + d->off), 's', d->dflt); break;
    default: rec_put(it, 'z', NULL, 'z', NULL);
    }
}

static void r_algo(const opt_def *d, const rec_ctx *c, rec_item *it) {
    const options *o = c->o;
    char v[512];
    int a;
    for (a = 0, v[0] = 0; a < o->n_algos; a++) snprintf(v + strlen(v), sizeof v - strlen(v), "%s%s", a ? "," : "", o->algos[a]);
    rec_put(it, 's', v, 's', (o->data[0] || o->task == FGL_TASK_GRAPH) ? d->dflt : d->emb);
}

static void r_data(const opt_def *d, const rec_ctx *c, rec_item *it) { /* directories as given */
    rec_put(it, 's', strchr(c->o->data, '/') ? c->o->data : c->ds->label, 's', d->dflt);
}

static void r_task(const opt_def *d, const rec_ctx *c, rec_item *it) { /* the data's; synthetic data: node by default */
    char v[32], dv[32];
    enum_name(d, c->o->task == FGL_TASK_LINK ? FGL_TASK_LINK : c->ds->task, v);
    rec_put(it, 's', v, 's', strncmp(c->ds->label, "synthetic", 9) ? v : enum_name(d, FGL_TASK_NODE, dv));
}

static void r_split(const opt_def *d, const rec_ctx *c, rec_item *it) {
    int def_split = c->node ? FGL_PART_METIS : c->graph_sets > 1 ? FGL_PART_PER_DATASET : FGL_PART_DIRICHLET;
    (void)d;
    rec_put(it, 's', c->o->public_split ? "public" : fgl_part_name(c->sc->how), 's', fgl_part_name(def_split));
}

static void r_clients(const opt_def *d, const rec_ctx *c, rec_item *it) { /* fgl_scenario_make's default */
    int split = c->sc->how;
    long def = c->embedded ? strtol(d->emb, NULL, 10)
                           : c->node ? (split == FGL_PART_OVERLAP ? 10 : 5) : split == FGL_PART_PER_DATASET ? c->graph_sets : 10;
    if (split == FGL_PART_GIVEN) def = c->sc->n_clients; /* the parts the file names */
    rec_long(it, c->o->clients > 0 ? c->o->clients : def, def);
}

static void r_model(const opt_def *d, const rec_ctx *c, rec_item *it) { /* --model a,b,c: the list as given */
    const options *o = c->o;
    char v[512];
    int a;
    (void)d;
    for (a = 0, v[0] = 0; a < (o->n_archs > 0 ? o->n_archs : 1); a++)
        snprintf(v + strlen(v), sizeof v - strlen(v), "%s%s", a ? "," : "",
                 fgl_arch_name(o->n_archs > 0 ? o->archs[a] : o->arch >= 0 ? o->arch : c->def_arch));
    rec_put(it, 's', v, 's', fgl_arch_name(c->def_arch));
}

/* A model flag's field of a spec: --hidden, --heads, --layers, --head. */
static int spec_field(const fgl_model_spec *s, const char *key) {
    return !strcmp(key, "hidden") ? s->hidden : !strcmp(key, "heads") ? s->heads : !strcmp(key, "layers") ? s->layers : s->head;
}

/* A model flag (--hidden, --heads, --layers, --head): the value given, or
 * else the value every client's architecture gets (model_spec), and the
 * default likewise without the command line's overrides. With --model a,b,c
 * and architectures whose values differ (GCNII's 8 layers) it is null, "each
 * architecture's own": replayed, the flag is left out, as it was. */
static void r_arch_field(const opt_def *d, const rec_ctx *c, rec_item *it) {
    const options *o = c->o;
    options plain = *o;
    const char *key = d->name;
    int a, n = o->n_archs > 0 ? o->n_archs : 1, given = (int)opt_num(o, d), val = given, def = -1, same_v = 1, same_d = 1;
    char vs[32], ds[32];
    plain.hidden = plain.heads = plain.layers = plain.head = -1;
    for (a = 0; a < n; a++) {
        int arch = o->n_archs > 0 ? o->archs[a] : o->arch >= 0 ? o->arch : c->def_arch;
        fgl_model_spec sv = model_spec(o, arch, c->ds->task), sd = model_spec(&plain, arch, c->ds->task);
        if (given < 0) {
            if (a && spec_field(&sv, key) != val) same_v = 0;
            val = spec_field(&sv, key);
        }
        if (a && spec_field(&sd, key) != def) same_d = 0;
        def = spec_field(&sd, key);
    }
    if (d->type == OPT_ENUM) {
        enum_name(d, val, vs);
        enum_name(d, def, ds);
    } else {
        snprintf(vs, sizeof vs, "%d", val);
        snprintf(ds, sizeof ds, "%d", def);
    }
    rec_put(it, d->type == OPT_ENUM ? 's' : 'n', same_v ? vs : NULL, d->type == OPT_ENUM ? 's' : 'n', same_d ? ds : NULL);
}

static void r_rounds(const opt_def *d, const rec_ctx *c, rec_item *it) {
    rec_long(it, c->rounds, c->embedded ? strtol(d->emb, NULL, 10) : c->d.rounds);
}

static void r_local_epochs(const opt_def *d, const rec_ctx *c, rec_item *it) {
    (void)d;
    rec_long(it, c->o->local_epochs >= 0 ? c->o->local_epochs : c->d.local_epochs, c->d.local_epochs);
}

static void r_batch(const opt_def *d, const rec_ctx *c, rec_item *it) {
    (void)d;
    if (c->node) rec_put(it, 'z', NULL, 'z', NULL); /* node tasks train full-batch */
    else rec_long(it, c->o->batch > 0 ? c->o->batch : c->d.batch_size, c->d.batch_size);
}

static void r_lr(const opt_def *d, const rec_ctx *c, rec_item *it) {
    (void)d;
    rec_reals(it, c->o->lr >= 0 ? c->o->lr : c->d.optim.lr, c->o->lr < 0, c->d.optim.lr, 1);
}

static void r_wd(const opt_def *d, const rec_ctx *c, rec_item *it) {
    (void)d;
    rec_reals(it, c->o->wd >= 0 ? c->o->wd : c->d.optim.weight_decay, c->o->wd < 0, c->d.optim.weight_decay, 1);
}

static void r_split_seed(const opt_def *d, const rec_ctx *c, rec_item *it) {
    (void)d;
    rec_long(it, (long)c->o->split_seed, c->graph_sets > 1 ? fedstar_split_seed : (long)c->plain->split_seed);
}

static void r_eval(const opt_def *d, const rec_ctx *c, rec_item *it) { /* vals: train 1, download 0 */
    char v[32], dv[32];
    enum_name(d, (c->o->eval_point >= 0 ? c->o->eval_point : c->d.eval_after_train) ? 1 : 0, v);
    rec_put(it, 's', v, 's', enum_name(d, c->d.eval_after_train ? 1 : 0, dv));
}

static void r_se(const opt_def *d, const rec_ctx *c, rec_item *it) {
    char v[64];
    snprintf(v, sizeof v, "%d,%d", c->o->k_dse, c->o->k_rwse);
    rec_put(it, 's', v, 's', d->dflt);
}

static void r_split_frac(const opt_def *d, const rec_ctx *c, rec_item *it) { /* --train-frac, --val-frac */
    double x = opt_num(c->o, d);
    double def = c->embedded ? strtod(d->emb, NULL) : split_frac_default(c->ds->task, !strcmp(d->name, "val-frac"));
    rec_reals(it, x >= 0 ? x : def, 0, def, 0);
    if (x < 0 && c->o->n_fixed > 0) it->vk = 'z'; /* the data's fixed splits gave the roles: no fraction was used
                                                   * (a replay giving one would draw a split instead) */
}

static void r_every(const opt_def *d, const rec_ctx *c, rec_item *it) { /* 0: every round */
    long x = (long)opt_num(c->o, d);
    rec_long(it, x > 0 ? x : 1, 1);
}

FGLRUN_SHARED void robust_format(const fgl_robust_config *r, char *out, size_t cap) {
    char c[40];
    switch (r->rule) {
    case FGL_ROBUST_TRIMMED: snprintf(out, cap, "trimmed:%d", r->trim); break;
    case FGL_ROBUST_KRUM: snprintf(out, cap, "krum:%d", r->f); break;
    case FGL_ROBUST_MULTIKRUM: snprintf(out, cap, "multikrum:%d,%d", r->f, r->m); break;
    case FGL_ROBUST_NORMCLIP:
        fmt_real(c, sizeof c, r->clip, 1);
        snprintf(out, cap, "normclip:%s", c);
        break;
    default: snprintf(out, cap, "%s", fgl_robust_name(r->rule));
    }
}

static void attack_format(const fgl_attack_config *a, char *out, size_t cap) {
    char c[40];
    fmt_real(c, sizeof c, a->arg, 0);
    if (a->kind == FGL_ATTACK_SIGNFLIP || a->kind == FGL_ATTACK_SCALE || a->kind == FGL_ATTACK_NOISE ||
        a->kind == FGL_ATTACK_COUNT)
        snprintf(out, cap, "%s:%s", fgl_attack_name(a->kind), c);
    else
        snprintf(out, cap, "%s", fgl_attack_name(a->kind));
}

static void r_robust(const opt_def *d, const rec_ctx *c, rec_item *it) {
    char v[128], dv[128];
    (void)d;
    robust_format(&c->o->robust, v, sizeof v);
    robust_format(&c->plain->robust, dv, sizeof dv);
    rec_put(it, 's', v, 's', dv);
}

static void r_attack(const opt_def *d, const rec_ctx *c, rec_item *it) {
    char v[128];
    (void)d;
    attack_format(&c->o->attack, v, sizeof v);
    rec_put(it, 's', c->o->attack.kind != FGL_ATTACK_NONE ? v : NULL, 'z', NULL);
}

/* never the secret seed itself: the result says "secrets": "reproducible" */
static void r_secret_seed(const opt_def *d, const rec_ctx *c, rec_item *it) {
    (void)d;
    rec_put(it, 's', c->o->secret_seed_set ? "(given, not recorded)" : NULL, 'z', NULL);
}

static void r_dp(const opt_def *d, const rec_ctx *c, rec_item *it) {
    const fgl_dp_config *dp = &c->o->dp;
    char v[160], cl[40], z[40], e[40];
    (void)d;
    fmt_real(cl, sizeof cl, dp->clip, 1);
    fmt_real(z, sizeof z, dp->noise, 1);
    fmt_real(e, sizeof e, dp->delta, 0);
    snprintf(v, sizeof v, "clip=%s,noise=%s,delta=%s", cl, z, e);
    rec_put(it, 's', dp->clip > 0 ? v : NULL, 'z', NULL);
}

static void r_plugin(const opt_def *d, const rec_ctx *c, rec_item *it) {
    char v[FGL_PLUGIN_NAME + 40], a[40];
    (void)d;
    fmt_real(a, sizeof a, c->o->plugin.arg, 0);
    snprintf(v, sizeof v, "%s:%s", c->o->plugin.name, a);
    rec_put(it, 's', c->o->plugin.name[0] ? v : NULL, 'z', NULL);
}

static void r_fold(const opt_def *d, const rec_ctx *c, rec_item *it) { /* null without --folds; null: every fold */
    char v[32];
    (void)d;
    snprintf(v, sizeof v, "%d", c->o->fold);
    rec_put(it, 'n', c->o->folds && c->o->fold >= 0 ? v : NULL, 'z', NULL);
}

static void r_split_index(const opt_def *d, const rec_ctx *c, rec_item *it) { /* null: every fixed split */
    char v[32];
    (void)d;
    snprintf(v, sizeof v, "%d", c->o->split_index);
    rec_put(it, 'n', c->o->split_index >= 0 ? v : NULL, 'z', NULL);
}

static void r_optim(const opt_def *d, const rec_ctx *c, rec_item *it) { /* the protocol's is Adam */
    char v[32], dv[32];
    enum_name(d, (c->o->optim >= 0 ? c->o->optim : c->d.optim.kind) == FGL_SGD ? FGL_SGD : FGL_ADAM, v);
    rec_put(it, 's', v, 's', enum_name(d, c->d.optim.kind == FGL_SGD ? FGL_SGD : FGL_ADAM, dv));
}

static void r_momentum(const opt_def *d, const rec_ctx *c, rec_item *it) { /* SGD's only */
    char m[40], md[40];
    fgl_optim_config sgd = fgl_optim_default(FGL_SGD);
    (void)d;
    fmt_real(m, sizeof m, c->o->momentum >= 0 ? c->o->momentum : sgd.momentum, c->o->momentum < 0);
    fmt_real(md, sizeof md, sgd.momentum, 1);
    rec_put(it, 'n', c->o->optim == FGL_SGD ? m : NULL, 'n', md);
}

static void r_data_dir(const opt_def *d, const rec_ctx *c, rec_item *it) {
    char dv[300];
    (void)d;
    snprintf(dv, sizeof dv, "the data directory ($FGL_DATA, else ./data, else $XDG_DATA_HOME/fgl)");
    rec_put(it, 's', c->o->data_dir, 's', dv);
}

#ifdef FGL_MPI
static void r_mpi_fail(const opt_def *d, const rec_ctx *c, rec_item *it) {
    char v[64];
    (void)d;
    snprintf(v, sizeof v, "%d:%d%s", c->o->mpi.fail_rank, c->o->mpi.fail_round, c->o->mpi.fail_exit ? ":exit" : "");
    rec_put(it, 's', c->o->mpi.fail_rank > 0 ? v : NULL, 'z', NULL);
}
#endif

/* --- the option table --- */

#define OFF(f) offsetof(options, f)
/* rows: a flag without a value; a number (OPT_INT, OPT_U64, OPT_DOUBLE, OPT_FLOAT); one of choices; a string;
 * a value with its own parse function (and, for a custom field, dflt/emb as values of the flag) */
#define ROW_BOOL(name, kind, field, help) {name, kind, OPT_BOOL, 0, OFF(field), 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, help}
#define ROW_NUM(name, kind, type, fl, field, lo, hi, init, arg, what, emb, rec, help) \
    {name, kind, type, fl, OFF(field), lo, hi, init, arg, what, NULL, emb, NULL, NULL, rec, help}
#define ROW_ENUM(name, kind, field, init, choices, vals, rec, help) \
    {name, kind, OPT_ENUM, 0, OFF(field), 0, 0, init, choices, NULL, NULL, NULL, vals, NULL, rec, help}
#define ROW_STR(name, kind, field, arg, dflt, rec, help) \
    {name, kind, OPT_STR, 0, OFF(field), 0, 0, 0, arg, NULL, dflt, NULL, NULL, NULL, rec, help}
#define ROW_CUSTOM(name, kind, fl, field, init, arg, dflt, emb, parse, rec, help) \
    {name, kind, OPT_CUSTOM, fl, OFF(field), 0, 0, init, arg, NULL, dflt, emb, NULL, parse, rec, help}

static const int eval_vals[] = {1, 0};               /* eval_point: 1 after training, 0 on download */
static const int optim_vals[] = {FGL_ADAM, FGL_SGD};
static const int wait_vals[] = {0, 1, 2}; /* wait: auto, spin, passive */

FGLRUN_SHARED const opt_def opt_table[] = {
    /* experiment settings: the record's "flags" and "defaults", in this order; replayed by --config */
    ROW_CUSTOM("algo", 'e', 0, algos, 0, "NAME[,NAME...]", "local,fedavg,fedper", "local,fedavg,fedper,fedpub", p_algo,
               r_algo, NULL),
    ROW_CUSTOM("data", 'e', 0, data, 0, "NAME[,NAME...]|synthetic[:N]", "synthetic", NULL, p_data, r_data, NULL),
    ROW_ENUM("task", 'e', task, -1, "node|graph|link", NULL, r_task,
             "--task link: link prediction on a node dataset's client subgraphs (README, \"Link prediction\"):\n"
             "  each client's edges split --link-val/--link-test (0.05/0.10; the rest train and pass messages),\n"
             "  validation and test scored against max(positives, --link-neg N) fixed negatives (1000), a GCN\n"
             "  encoder and --decoder dot (embeddings of --link-dim D, 64) or mlp; binary cross-entropy against\n"
             "  fresh negatives every epoch; the JSON's test_auc is the AUC (mean over clients weighted by their\n"
             "  test edges), test_hits Hits@--hits-k (50); with --out the per-round CSV's columns are val_auc, test_auc and the\n"
             "  plots say AUC.\n"),
    ROW_NUM("link-val", 'e', OPT_DOUBLE, 0, link_val, 0, 0.99, 0.05, "F", "a fraction in [0, 0.99]", NULL, NULL,
            NULL),
    ROW_NUM("link-test", 'e', OPT_DOUBLE, 0, link_test, 0, 0.99, 0.10, "F", "a fraction in [0, 0.99]", NULL, NULL,
            NULL),
    ROW_ENUM("decoder", 'e', decoder, 0, "dot|mlp", NULL, NULL, NULL),
    ROW_NUM("hits-k", 'e', OPT_INT, 0, hits_k, 1, 1000000, 50, "K", "a positive integer", NULL, NULL, NULL),
    ROW_NUM("link-neg", 'e', OPT_INT, 0, link_neg, 0, 100000000, 1000, "N", "an integer >= 0", NULL, NULL, NULL),
    ROW_NUM("link-dim", 'e', OPT_INT, 0, link_dim, 1, 1000000, 64, "D", "a positive integer", NULL, NULL, NULL),
    ROW_CUSTOM("split", 'e', OPT_INIT, split, -1,
               "metis|overlap|louvain|random|dirichlet|dirichlet-equal|iid|per-dataset|given|public|none|"
               "louvain-plus|metis-plus|label-skew|topology-skew|feature-skew",
               NULL, NULL, p_split, r_split,
               "--split louvain-plus|metis-plus|label-skew|topology-skew|feature-skew: OpenFGL's simulations. louvain-plus:\n"
               "  Louvain communities (--resolution R, 1) grouped into the clients by k-means of their label distributions;\n"
               "  metis-plus: METIS into --metis-parts P parts (100), grouped likewise; label-skew (node or graph task):\n"
               "  per class a Dirichlet(--alpha) share over the clients not yet holding n/K items, redrawn until each\n"
               "  has --min-per-client; topology-skew / feature-skew (graph task): graphs sorted by mean degree / mean\n"
               "  node feature, cut into K consecutive runs. docs/algorithms.md, \"OpenFGL's data simulations\".\n"),
    ROW_NUM("clients", 'e', OPT_INT, 0, clients, 1, 100000, 0, "K", "a positive integer", "10", r_clients, NULL),
    ROW_NUM("alpha", 'e', OPT_DOUBLE, 0, alpha, 1e-6, 1e9, 0.5, "A", "a positive number", NULL, NULL, NULL),
    ROW_NUM("resolution", 'e', OPT_DOUBLE, 0, resolution, 1e-6, 1e6, 1, "R", "a positive number", NULL, NULL, NULL),
    ROW_NUM("metis-parts", 'e', OPT_INT, 0, metis_parts, 1, 100000000, 100, "P", "a positive integer", NULL, NULL, NULL),
    ROW_CUSTOM("model", 'e', OPT_INIT, arch, -1, "gcn|gin|sage|sgc|gcnii|gat|mlp|gamlp[,...]", NULL, NULL, p_model, r_model,
               "--model a,b,c gives clients different backbones in contiguous blocks (client i of K gets entry n*i/K);\n"
               "  only algorithms that share no weights accept it (local and the prototype methods).\n"),
    ROW_NUM("hidden", 'e', OPT_INT, 0, hidden, 1, 1000000, -1, "H", "a positive integer", NULL, r_arch_field, NULL),
    ROW_NUM("heads", 'e', OPT_INT, 0, heads, 1, FGL_MAX_HEADS, -1, "N", NULL, NULL, r_arch_field, NULL),
    ROW_NUM("layers", 'e', OPT_INT, 0, layers, 1, FGL_MAX_LAYERS, -1, "L", NULL, NULL, r_arch_field, NULL),
    ROW_ENUM("head", 'e', head, -1, "none|linear|mlp", NULL, r_arch_field,
             "--head none: the last message-passing layer is the classifier (GCNII keeps its output map).\n"),
    ROW_BOOL("bn", 'e', bn, "--bn puts batch norm inside each GIN layer's MLP (GIN only; FedBN keeps it local).\n"),
    ROW_BOOL("residual", 'e', residual,
             "--residual (node models gcn, gin, sage, gat, mlp; a head): an input projection to --hidden, then each\n"
             "  layer a residual block h <- h + Dropout(Act(Conv(Norm(h)))) (Platonov et al., ICLR 2023; sage is\n"
             "  their separate ego/neighbour weights). --norm layer|batch normalises every hidden representation\n"
             "  before a layer or the head reads it (layer norm per node, batch norm per feature; unlike --bn,\n"
             "  GIN's inside its MLP); their gains and biases are the norm group (FedBN keeps them local).\n"),
    ROW_ENUM("norm", 'e', norm, 0, "none|layer|batch", NULL, NULL, NULL),
    ROW_BOOL("stratified", 'e', stratified,
             "--stratified splits each client's nodes per class (train/val/test keep the class proportions).\n"),
    ROW_NUM("rounds", 'e', OPT_INT, 0, rounds, 1, 1000000, -1, "R", "a positive integer", "50", r_rounds, NULL),
    ROW_NUM("local-epochs", 'e', OPT_INT, 0, local_epochs, 0, 100000, -1, "E", "an integer >= 0", NULL, r_local_epochs, NULL),
    ROW_NUM("batch", 'e', OPT_INT, 0, batch, 1, 100000000, -1, "B", "a positive integer", NULL, r_batch, NULL),
    ROW_NUM("lr", 'e', OPT_DOUBLE, 0, lr, 1e-300, 1e6, -1, "X", "a number > 0", NULL, r_lr, NULL),
    ROW_NUM("wd", 'e', OPT_DOUBLE, 0, wd, 0, 1e6, -1, "X", "a number >= 0", NULL, r_wd, NULL),
    ROW_NUM("frac", 'e', OPT_DOUBLE, 0, frac, 1e-9, 1, 1, "F", "a number in (0, 1]", NULL, NULL, NULL),
    ROW_NUM("seed", 'e', OPT_U64, 0, seed, 0, 2147483647, 1, "S", "an integer >= 0", NULL, NULL, NULL),
    ROW_NUM("seeds", 'e', OPT_INT, 0, seeds, 1, 1000, 1, "N", "a positive integer", "3", NULL, NULL),
    ROW_NUM("split-seed", 'e', OPT_U64, OPT_LIB, split_seed, 0, 2147483647, 0, "S", "an integer >= 0", NULL, r_split_seed, NULL),
    ROW_BOOL("lcc", 'e', lcc, NULL),
    ROW_ENUM("eval", 'e', eval_point, -1, "train|download", eval_vals, r_eval, NULL),
    ROW_CUSTOM("se", 'e', OPT_INIT, k_dse, 0, "DSE,RWSE", "16,16", NULL, p_se, r_se, NULL),
    ROW_NUM("train-frac", 'e', OPT_DOUBLE, 0, train_frac, 0, 1, -1, "F", "a number in [0, 1]", "0.05", r_split_frac, NULL),
    ROW_NUM("val-frac", 'e', OPT_DOUBLE, 0, val_frac, 0, 1, -1, "F", "a number in [0, 1]", "0.2", r_split_frac, NULL),
    ROW_NUM("min-per-client", 'e', OPT_INT, 0, min_per_client, 1, 1000000, 10, "N", "a positive integer", NULL, NULL, NULL),
    ROW_BOOL("reset-optim", 'e', reset_optim,
             "--reset-optim restarts each client's optimizer state every round (default: kept across rounds).\n"),
    ROW_ENUM("features", 'e', raw_features, 0, "row|raw", NULL, NULL,
             "--features raw skips the row normalisation of node features (default row).\n"),
    ROW_NUM("eval-every", 'e', OPT_INT, 0, eval_every, 1, 1000000, 0, "N", "a positive integer", NULL, r_every, NULL),
    ROW_CUSTOM("robust", 'e', 0, robust, 0, "RULE", NULL, NULL, p_robust, r_robust,
               "--robust mean|median|trimmed:B|krum:F|multikrum:F,M|normclip:M replaces the server's mean of model weights\n"
               "  (fedpub, fedamp, pfedgraph: it acts row by row in their per-client mixtures, with each row's weights);\n"
               "  --screen K rejects uploads whose update norm exceeds K x the round's median (default 100, 0: off).\n"),
    ROW_NUM("screen", 'e', OPT_FLOAT, OPT_LIB, robust.screen, 0, 1e30, 0, "K", "a number >= 0", NULL, NULL, NULL),
    ROW_CUSTOM("attack", 'e', 0, attack, 0, "A", NULL, NULL, p_attack, r_attack,
               "--attack signflip[:L]|scale:L|noise:S|labelflip|nan|count:N|alie makes a fraction --attackers F of the\n"
               "  clients (drawn from the seed) attack. --dp is DP-FedAvg: each client takes part with probability --frac,\n"
               "  clips its update to C, the server adds noise Z C / (frac K) to the sum over frac K (epsilon reported);\n"
               "  --secagg masks uploads (X25519, ChaCha20, Shamir t-of-n: --secagg-threshold T > half a round's participants,\n"
               "  default a majority) so the server sees their sum only (--secagg-dropout: simulated dropouts; screening off).\n"
               "  An algorithm a defence would not cover is refused at the start (see README). Their secrets come from the\n"
               "  system's entropy; --secret-seed S derives them from S instead (reproducible; whoever knows S can undo them).\n"),
    ROW_NUM("attackers", 'e', OPT_FLOAT, OPT_LIB, attack.frac, 0, 1, 0, "F", "a fraction in [0, 1]", NULL, NULL, NULL),
    ROW_CUSTOM("dp", 'e', 0, dp, 0, "clip=C,noise=Z[,delta=D]", NULL, NULL, p_dp, r_dp, NULL),
    ROW_BOOL("secagg", 'e', secagg.on, NULL),
    ROW_CUSTOM("plugin", 'e', 0, plugin, 0, "NAME[:ARG]", NULL, NULL, p_plugin, r_plugin,
               "--plugin NAME[:ARG] turns on a plug-in of src/fed/plugins/ that no option above names, with its\n"
               "  argument (a defence or a check added to fgl as one file and one line; none is built in yet).\n"),
    ROW_NUM("secagg-dropout", 'e', OPT_FLOAT, OPT_LIB, secagg.dropout, 0, 1, 0, "P", "a fraction in [0, 1]", NULL, NULL, NULL),
    ROW_NUM("secagg-threshold", 'e', OPT_INT, OPT_LIB, secagg.threshold, 0, 100000, 0, "T", "0 (a majority) or more than half of a round's participants",
            NULL, NULL, NULL),
    ROW_NUM("folds", 'e', OPT_INT, OPT_NULL, folds, 2, 1000, 0, "F", "an integer >= 2", NULL, NULL,
            "--folds F: stratified F-fold cross-validation inside every client (graph tasks; train on F-1 folds,\n"
            "  test on the other, no validation set), every fold run in turn and the results over folds and seeds;\n"
            "  --fold I runs fold I (0-based) only. --split dirichlet-equal: GPFL's soft Dirichlet(--alpha) skew,\n"
            "  class priors capped at 0.95, equal client sizes.\n"),
    ROW_NUM("fold", 'e', OPT_INT, 0, fold, 0, 999, -1, "I", "an integer >= 0", NULL, r_fold, NULL),
    ROW_ENUM("optim", 'e', optim, -1, "adam|sgd", optim_vals, r_optim,
             "--optim sgd [--momentum M] trains every client with SGD (default: Adam).\n"),
    ROW_NUM("momentum", 'e', OPT_DOUBLE, 0, momentum, 0, 0.999999, -1, "M", "a number in [0, 1)", NULL, r_momentum, NULL),
    ROW_NUM("public-nodes", 'e', OPT_INT, 0, public_nodes, 0, 100000000, 0, "N", "an integer >= 0", NULL, NULL,
            "--public-nodes N withholds N random nodes (split seed) from every client and gives them to the server\n"
            "  as public data (pfedgnn's anchors, as its authors' code).\n"),
    ROW_BOOL("test-first", 'e', test_first,
             "--test-first makes each client's test set the first (1 - train - val) of its nodes in the stored order\n"
             "  (the data's node order), train and validation drawn at random from the rest (pFedGNN authors' code).\n"),
    ROW_ENUM("score", 'e', score, 0, "auto|acc|f1|auc", NULL, NULL,
             "--score acc|f1|auc: the mean validation accuracy, macro-F1 or ROC-AUC (two classes) selects the best\n"
             "  round (cfg.metric); auto (the default): ROC-AUC for the two-class heterophilous sets (tolokers,\n"
             "  minesweeper, questions: the metric Platonov et al. report), accuracy otherwise. Node and graph runs\n"
             "  report the three (macro-F1 over the classes present in a client's split; README, Metrics).\n"),
    ROW_ENUM("metric", 'e', metric, 0, "plain|personalized", NULL, NULL,
             "--metric personalized also reports the pFedGNN authors' personalised accuracy, a client's hits on class c\n"
             "  weighted by c's share of its training nodes (sum_c p_c correct_c / sum_c p_c total_c), beside plain\n"
             "  accuracy. --select per-client also reports each client's test accuracy at its own best round on the\n"
             "  selection set, beside the global selection. --val public selects on the server's public nodes\n"
             "  (--public-nodes) instead of the clients' validation sets (examples/fglrun/protocol.c).\n"),
    ROW_ENUM("select", 'e', select_pc, 0, "global|per-client", NULL, NULL, NULL),
    ROW_ENUM("val", 'e', val_public, 0, "clients|public", NULL, NULL, NULL),
    ROW_ENUM("protocol", 'e', protocol, 0, "none|pfedgnn-authors", NULL, NULL,
             "--protocol pfedgnn-authors sets the pFedGNN authors' pipeline where a flag does not: --split dirichlet\n"
             "  --alpha 0.5 --clients 10 --public-nodes 100 --hidden 16 --head none --optim sgd --momentum 0.9 --lr 0.01\n"
             "  --local-epochs 200 --rounds 50 --reset-optim --features raw --train-frac 0.8 --val-frac 0 --test-first\n"
             "  --metric personalized --select per-client --val public, and pfedgnn's alpha=0 lam=0.01.\n"),
    ROW_BOOL("split-global", 'e', split_global,
             "--split-global draws the node train/val/test split once on the whole graph (after --lcc) before the\n"
             "  partition, and each client keeps its nodes' roles (FED-PUB's code); default: each client splits\n"
             "  its own.\n"),
    ROW_NUM("split-index", 'e', OPT_INT, 0, split_index, 0, 999, -1, "K", "an integer >= 0", NULL, r_split_index,
            "--split-index K: a dataset with fixed splits (the heterophilous .npz sets: ten, e.g. 48/32/20% of the nodes)\n"
            "  gives every node its role from its split K, and the clients keep them (as --split-global). Default:\n"
            "  every fixed split is run in turn, like seeds (splits x seeds runs), and the table reports the mean\n"
            "  +- std over them. --split-global, --train-frac, --val-frac, --stratified, --test-first or\n"
            "  --split public draw splits as for any dataset instead (not with --split-index).\n"),
    ROW_NUM("halo", 'e', OPT_INT, 0, halo, 0, 8, 0, "H", "an integer in 0..8", NULL, NULL,
            "--halo H (node tasks, disjoint splits): each client also holds its halo, the nodes of other clients\n"
            "  within H hops of its own, by structure only (ids, edges, whole-graph degrees; features zero, no\n"
            "  labels), which fedgcn's one-shot exchange fills in (fedgcn hops = H); default 0: edges between\n"
            "  clients are dropped, but 2 for --algo fedgcn alone (the paper's 2 hops; --set hops=0: none).\n"
            "  Refused with other algorithms (they would train on the halo's zero rows).\n"
            "  Under MPI the halo travels with each rank's clients.\n"),
    ROW_STR("partition-file", 'e', partition_file, "FILE", NULL, NULL,
            "--partition-file FILE takes the clients from FILE (--split given): line i holds the client (part id,\n"
            "  0..K-1) of node i, as gpmetis writes GRAPH.part.K; node i is the i-th node of the graph fglrun splits\n"
            "  (after --lcc: the largest component's nodes in increasing original id), exactly the graph that\n"
            "  --write-metis FILE writes in METIS's input format (then fglrun stops): gpmetis FILE K makes the part\n"
            "  file. The file must have one line per node, integer ids, every part non-empty (K: --clients if given).\n"
            "  fedavg --set weights=equal weighs clients alike instead of by training samples (FED-PUB's code).\n"),
    /* algorithm parameters: the record's "set" and "params" */
    ROW_CUSTOM("set", 's', 0, sets, 0, "key=value ...", NULL, NULL, p_set, NULL,
               "--set key=value sets an algorithm parameter; --set algo.key=value sets it for that algorithm only.\n"
               "  --set key=a,b,c sweeps a number parameter: one run (of every seed) per value, each a row labelled\n"
               "  'algo key=value' in the table, the JSON and the plots; several swept keys run every combination\n"
               "  (at most 32 rows). Every value is checked before the first run.\n"),
    /* run control: the record's "run", in this order; not replayed */
    ROW_STR("out", 'r', out_dir, "DIR", NULL, NULL,
            "--out DIR also writes per-round CSV as rounds complete, DIR/progress.json after every round, and plots:\n"
            "  curves.svg (learning curves), clients.svg (per-client accuracy), bytes.svg (communication). DIR is\n"
            "  created with its parents; the files an earlier fglrun wrote there are removed first, others kept.\n"),
    ROW_STR("checkpoint", 'r', checkpoint, "FILE", NULL, NULL,
            "--checkpoint FILE saves the run after every round and resumes from FILE if it exists (one file per run:\n"
            "  FILE.ALGO.seedS with several algorithms or seeds, FILE.ALGO.foldF.seedS with --folds); --stop-after R\n"
            "  stops after round R, leaving it.\n"),
    ROW_NUM("checkpoint-every", 'r', OPT_INT, 0, checkpoint_every, 1, 1000000, 0, "N", "a positive integer", NULL, r_every,
            "--checkpoint-every N saves the checkpoint every N rounds (and at --stop-after and the last round).\n"),
    ROW_NUM("stop-after", 'r', OPT_INT, OPT_NULL, stop_after, 1, 1000000, 0, "R", "a positive round", NULL, NULL, NULL),
    ROW_NUM("threads", 'r', OPT_INT, OPT_NULL, threads, 1, 1024, 0, "T", "a positive integer", NULL, NULL, NULL),
    ROW_ENUM("wait", 'r', wait, 0, "auto|spin|passive", wait_vals, NULL,
             "--wait auto (default): OpenMP threads wait passively (sleep) between parallel regions when --threads plus\n"
             "  the machine's load would fill its cores, else spin a while (the runtime's default); OMP_WAIT_POLICY or\n"
             "  GOMP_SPINCOUNT set keeps yours. spin / passive: that policy whatever the environment (fglrun restarts\n"
             "  itself once with OMP_WAIT_POLICY set: the runtime reads it at start).\n"),
    ROW_NUM("log-every", 'r', OPT_INT, OPT_NULL, log_every, 1, 1000000, 0, "N", "a positive integer", NULL, NULL,
            "Progress: a bar on a terminal; otherwise a line every --log-every N rounds (default: a tenth of them).\n"),
    ROW_NUM("park-idle", 'r', OPT_INT, 0, park_idle, 0, 2, 1, "0|1|2", "0, 1 or 2", NULL, NULL,
            "--park-idle 1 (default): with --frac < 1, clients out of the next round keep their parameters and optimizer\n"
            "  moments packed and get them back bit for bit when drawn or evaluated (same results); 2 packs them into\n"
            "  a temporary file instead of memory (memory for the active clients only); 0 keeps every state resident.\n"),
    ROW_BOOL("json", 'r', json,
             "--json and --out DIR record the full configuration (DIR/config; \"config\" in the JSON): every flag with its\n"
             "  value and default, the algorithms' parameters, the fgl version and commit, the data files' checksums.\n"),
    ROW_BOOL("quiet", 'r', quiet,
             "--quiet silences the progress (the bar, the round lines, the per-seed lines); the table of results is\n"
             "  still printed, unless --json (then the JSON line alone).\n"),
    ROW_BOOL("info", 'r', info, NULL),
    ROW_STR("config", 'r', config, "FILE", NULL, NULL,
            "--config FILE runs from such a record (a config, a result JSON; with --row LABEL one run of a result's\n"
            "  \"runs\", by its label (a sweep's 'fedpub tau=3') or algorithm, or the line of a JSON Lines file\n"
            "  such as bench/results/*.jsonl); flags given after it override it. Unchanged, the new result is\n"
            "  compared with the recorded one (exit status 1 if a run's test or last-round score or bytes differ).\n"),
    ROW_STR("row", 'r', row, "LABEL", NULL, NULL, NULL),
    ROW_STR("write-metis", 'r', write_metis, "FILE", NULL, NULL, NULL),
    ROW_CUSTOM("secret-seed", 'r', 0, secret_seed, 0, "S", NULL, NULL, p_secret_seed, r_secret_seed, NULL),
    ROW_BOOL("per-client-records", 'r', per_client_records,
             "--per-client-records: under --dp, --out writes per-client outputs too (each round's CSV a row per client,\n"
             "  clients.svg, the client matrix). They reveal which clients the secret Poisson draw chose in each round\n"
             "  (the others' bytes and loss are 0) to whoever reads the files; without it, under --dp the round's CSV\n"
             "  holds the round's aggregates only, and no per-client file is written.\n"),
    ROW_NUM("mem-limit", 'r', OPT_DOUBLE, 0, mem_limit_gb, 0, 1e9, 0, "GB", "a number of GB >= 0", NULL, NULL,
            "--mem-limit GB refuses, before anything is built, a run whose models need more than GB gigabytes\n"
            "  (a lower bound: each client's parameters four times over, and the widest client's activations);\n"
            "  0 (the default): this machine's memory.\n"),
    ROW_BOOL("allow-other-build", 'r', allow_other_build,
             "--allow-other-build resumes a --checkpoint written by another build of fgl (another compiler, other\n"
             "  instruction sets or fast math: it may round differently, so the result matches neither build's bits);\n"
             "  without it such a checkpoint is refused. The record then says \"resumed_from_other_build\".\n"),
    ROW_BOOL("config-run-control", 'r', config_run_control,
             "--config-run-control obeys run-control flags (--out, --checkpoint, --threads ...) that the --config\n"
             "  file holds among its \"flags\" (or \"args\"); without it they are ignored with a note: a record says\n"
             "  where its run wrote, it does not choose where a replay writes.\n"),
    ROW_STR("data-dir", 'r', data_dir, "DIR", NULL, r_data_dir,
            "Datasets are read from --data-dir DIR, by default the data directory: $FGL_DATA if set, else ./data\n"
            "  if it exists (where `make data` writes), else $XDG_DATA_HOME/fgl (~/.local/share/fgl): node/NAME or\n"
            "  tu/NAME.\n"),
#ifdef FGL_MPI
    ROW_NUM("mpi-timeout", 'r', OPT_DOUBLE, OPT_LIB, mpi.timeout, 1e-3, 1e9, 0, "S", "seconds > 0", NULL, NULL,
            "--mpi-timeout S: seconds a rank may take to answer before its clients are left out (default 300);\n"
            "  --mpi-fail RANK:ROUND simulates a fault: that rank stops answering from that round on\n"
            "  (ROUND 0: from the run's start, so its clients go to the other ranks); RANK:ROUND:exit: it\n"
            "  starts a reply and ends its process mid-send instead (for an mpirun that outlives a dead rank).\n"),
    ROW_CUSTOM("mpi-fail", 'r', 0, mpi.fail_rank, 0, "RANK:ROUND[:exit]", NULL, NULL, p_mpi_fail, r_mpi_fail, NULL),
#endif
    /* prints the version and the commit fglrun was built from, and exits */
    {"version", 'v', OPT_BOOL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    /* -h too; `fglrun --algo NAME --help`: that algorithm's parameters. Not in the synopsis, no field. */
    {"help", 'h', OPT_BOOL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL}
};

#define N_OPTS ((int)(sizeof opt_table / sizeof opt_table[0]))
typedef char opt_given_fits[N_OPTS <= (int)sizeof(((options *)0)->given) ? 1 : -1]; /* options.given: one per row */

/* The row of an argument ("--name", or "-h"); -1 if none. */
FGLRUN_SHARED int opt_lookup(const char *a) {
    int k;
    if (!strcmp(a, "-h")) a = "--help";
    if (strncmp(a, "--", 2)) return -1;
    for (k = 0; k < N_OPTS; k++)
        if (!strcmp(a + 2, opt_table[k].name)) return k;
    return -1;
}

FGLRUN_SHARED const opt_def *opt_row(const char *name) {
    int k;
    for (k = 0; k < N_OPTS; k++)
        if (!strcmp(name, opt_table[k].name)) return &opt_table[k];
    return NULL;
}

/* Was the flag given (on the command line or by a replayed record)? */
FGLRUN_SHARED int opt_given(const options *o, const char *name) {
    const opt_def *d = opt_row(name);
    return d && o->given[d - opt_table];
}

/* A run-control flag (or --help): given with --config, it leaves the
 * experiment unchanged; held by the --config file, it is ignored (unless
 * --config-run-control; --help never). *takes_value: it is followed by a
 * value. */
FGLRUN_SHARED int opt_run_control(const char *a, int *takes_value) {
    int k = opt_lookup(a);
    if (k < 0 || (opt_table[k].kind != 'r' && opt_table[k].kind != 'h' && opt_table[k].kind != 'v')) return 0;
    *takes_value = opt_table[k].type != OPT_BOOL;
    return 1;
}

/* Sets row d's field from the value v (NULL for OPT_BOOL): 0, or 1 and why
 * not in msg. */
FGLRUN_SHARED int opt_set(options *o, const opt_def *d, const char *v, char *msg, size_t cap) {
    char *p = (char *)o + d->off, *end, c[32];
    int i;
    switch (d->type) {
    case OPT_BOOL: *(int *)p = 1; return 0;
    case OPT_INT:
    case OPT_U64: {
        long x;
        errno = 0;
        x = strtol(v, &end, 10);
        if (end == v || *end || errno || x < d->lo || x > d->hi) break;
        opt_put_num(o, d, (double)x);
        return 0;
    }
    case OPT_DOUBLE:
    case OPT_FLOAT: {
        double x = strtod(v, &end);
        if (end == v || *end || !(x >= d->lo && x <= d->hi)) break;
        opt_put_num(o, d, x);
        return 0;
    }
    case OPT_ENUM: {
        size_t n;
        for (i = 0; *enum_choice(d, i, c, sizeof c); i++)
            if (!strcmp(v, c)) {
                *(int *)p = d->vals ? d->vals[i] : i;
                return 0;
            }
        n = (size_t)snprintf(msg, cap, "--%s is ", d->name); /* "--task is node or graph, not 'x'" */
        for (i = 0; *enum_choice(d, i, c, sizeof c) && n < cap; i++) {
            char next[32];
            const char *sep = !i ? "" : *enum_choice(d, i + 1, next, sizeof next) ? ", " : " or ";
            n += (size_t)snprintf(msg + n, cap - n, "%s%s", sep, c);
        }
        if (n < cap) snprintf(msg + n, cap - n, ", not '%s'", v);
        return 1;
    }
    case OPT_STR: *(const char **)(void *)p = v; return 0;
    default: return d->parse(o, v, msg, cap);
    }
    if (d->what) /* the description, and the largest value it takes */
        snprintf(msg, cap, "--%s needs %s (at most %.*g), not '%s'", d->name, d->what,
                 d->type == OPT_DOUBLE || d->type == OPT_FLOAT ? 6 : 20, d->hi, v);
    else snprintf(msg, cap, "--%s needs an integer in %.0f..%.0f, not '%s'", d->name, d->lo, d->hi, v);
    return 1;
}

/* The options as no flag sets them: the rows' initial values, the library's
 * defaults, the data directory. */
FGLRUN_SHARED void opt_init(options *o) {
    int k;
    char msg[64];
    memset(o, 0, sizeof *o);
    for (k = 0; k < N_OPTS; k++) {
        const opt_def *d = &opt_table[k];
        if (d->fl & OPT_LIB) continue;
        if (d->type == OPT_STR && d->dflt) *(const char **)(void *)((char *)o + d->off) = d->dflt;
        else if (d->type == OPT_CUSTOM && (d->fl & OPT_INIT) && d->dflt) d->parse(o, d->dflt, msg, sizeof msg);
        else if (d->type == OPT_CUSTOM && (d->fl & OPT_INIT)) *(int *)(void *)((char *)o + d->off) = (int)d->init;
        else if (d->type != OPT_CUSTOM && d->type != OPT_STR) opt_put_num(o, d, d->init);
    }
    {
        fgl_fed_config d = fgl_fed_default(FGL_TASK_NODE);
        o->robust = d.robust;
        o->attack = d.attack;
        o->dp = d.dp;
        o->secagg = d.secagg;
    }
    o->split_seed = fgl_split_default().seed;
#ifdef FGL_MPI
    o->mpi = fgl_mpi_default();
#endif
    /* none there: "data", and loading says where it looked */
    fgl_data_dir(o->data_dir_buf, sizeof o->data_dir_buf, NULL);
    o->data_dir = o->data_dir_buf;
}

/* The synopsis, the flags' paragraphs, the algorithms. */
static void usage(FILE *f) {
    int k, col = 13;
    fprintf(f, "usage: fglrun");
    for (k = 0; k < N_OPTS; k++) { /* "[--name VALUE]", lines of at most 118 columns */
        const opt_def *d = &opt_table[k];
        char item[160];
        int len;
        if (d->kind == 'h') continue;
        len = snprintf(item, sizeof item, "[--%s%s%s]", d->name, d->arg ? " " : "", d->arg ? d->arg : "");
        if (col + 1 + len > 118) {
            fprintf(f, "\n             ");
            col = 13;
        }
        fprintf(f, " %s", item);
        col += 1 + len;
    }
    fprintf(f, "\n\n");
    for (k = 0; k < N_OPTS; k++)
        if (opt_table[k].help) fputs(opt_table[k].help, f);
    fprintf(f,
            "No arguments: a synthetic federated benchmark with several algorithms side by side; --data synthetic:N\n"
            "draws a node-classification graph of N nodes (a community per 300 nodes) for runs at scale.\n"
            "Algorithms:");
    for (k = 0; k < fgl_algo_count(); k++) fprintf(f, " %s", fgl_algo_at(k)->name);
    fprintf(f, "\n`fglrun --algo NAME --help` lists an algorithm's --set parameters.\n");
}

/* param p's default as --set takes it */
static void algo_param_default(const fgl_algo_param *p, char *buf, size_t cap) {
    if (p->type == FGL_PARAM_GROUPS) fgl_groups_format((unsigned)p->def, buf, cap);
    else if (p->choices) fgl_algo_param_format(p, p->def, buf, cap);
    else snprintf(buf, cap, "%g", p->def);
}

static void print_algo_help(const fgl_algo *a) {
    int i, w = 10; /* the defaults' column: as wide as the widest */
    char buf[128];
    printf("%s: %s\nparameters (--set key=value):\n", a->name, a->summary);
    for (i = 0; i < a->n_params; i++) {
        algo_param_default(&a->params[i], buf, sizeof buf);
        if ((int)strlen(buf) > w) w = (int)strlen(buf);
    }
    for (i = 0; i < a->n_params; i++) {
        const fgl_algo_param *p = &a->params[i];
        algo_param_default(p, buf, sizeof buf);
        if (p->choices && p->type != FGL_PARAM_GROUPS)
            printf("  %-18s %-*s %s (%s)\n", p->name, w, buf, p->help, p->choices);
        else printf("  %-18s %-*s %s\n", p->name, w, buf, p->help);
    }
    if (!a->n_params) printf("  (none)\n");
}

/* 0; 1: --help was printed; 2: a bad argument (said, with the usage). */
FGLRUN_SHARED int parse_args(int argc, char **argv, options *o) {
    int i;
    char msg[2200];
    opt_init(o);
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int k = opt_lookup(a);
        if (k < 0) { /* the nearest option, when one is near (--round: --rounds) */
            int q, best = -1, bd = 9;
            for (q = 0; !strncmp(a, "--", 2) && q < N_OPTS; q++) {
                int e = edit_distance(a + 2, opt_table[q].name);
                if (e < bd) bd = e, best = q;
            }
            if (best >= 0 && bd <= 2 && bd < (int)strlen(a + 2)) {
                fprintf(stderr, "fglrun: unknown option '%s'; did you mean --%s?\n", a, opt_table[best].name);
                fprintf(stderr, "(fglrun --help lists the options)\n");
                return 2;
            }
            return bad("unknown option '%s'", a);
        }
        if (opt_table[k].kind == 'h') {
            if (o->n_algos == 1 && fgl_algo_find(o->algos[0])) print_algo_help(fgl_algo_find(o->algos[0]));
            else usage(stdout);
            return 1;
        }
        if (opt_table[k].kind == 'v') {
            printf("fglrun (fgl %s), commit %s\n", FGL_VERSION, FGL_COMMIT);
            return 1;
        }
        if (opt_table[k].type != OPT_BOOL) {
            if (i + 1 >= argc) return bad("%s needs a value", a);
            v = argv[++i];
        }
        if (opt_set(o, &opt_table[k], v, msg, sizeof msg)) return bad("%s", msg);
        o->given[k] = 1;
    }
    if (o->stop_after && !o->checkpoint) return bad("%s", "--stop-after needs --checkpoint FILE");
    if (o->checkpoint_every && !o->checkpoint) return bad("%s", "--checkpoint-every needs --checkpoint FILE");
    if (o->row && !o->config) return bad("%s", "--row needs --config FILE");
    if (o->config_run_control && !o->config) return bad("%s", "--config-run-control needs --config FILE");
    if (o->attack.kind != FGL_ATTACK_NONE && !(o->attack.frac > 0)) return bad("%s", "--attack needs --attackers F (a fraction > 0)");
    if (o->fold >= 0 && o->fold >= o->folds) return bad("%s", "--fold I needs --folds F with I < F");
    if (o->folds && o->seeds * o->folds > 1000) return bad("%s", "--folds x --seeds: at most 1000 runs");
    if (o->momentum >= 0 && o->optim != FGL_SGD) return bad("%s", "--momentum is for --optim sgd");
    return 0;
}

/* Without --algo: the default algorithms (fedpub's too on synthetic node
 * data); and without data either, the embedded benchmark: its values (the
 * rows' emb) where no flag changed the initial one. */
FGLRUN_SHARED void opt_defaults(options *o) {
    const opt_def *al = opt_row("algo");
    char msg[64];
    int k, bench = !o->data[0] && o->task != FGL_TASK_GRAPH;
    o->embedded = o->n_algos == 0 && bench;
    if (o->n_algos == 0) al->parse(o, bench ? al->emb : al->dflt, msg, sizeof msg);
    /* the masks hide the norms screening reads (README): off unless asked for, and recorded off, so that
     * the record replays the run it describes */
    if (o->secagg.on && !opt_given(o, "screen")) o->robust.screen = 0;
    for (k = 0; o->embedded && k < N_OPTS; k++) {
        const opt_def *d = &opt_table[k];
        if (d != al && d->emb && opt_num(o, d) == d->init) opt_set(o, d, d->emb, msg, sizeof msg);
    }
}

/* Every --set key must name a parameter of a chosen algorithm (algo.key: of
 * that one). */
FGLRUN_SHARED int check_sets(const options *o) {
    int k, a;
    for (k = 0; k < o->n_sets; k++) {
        char key[128], *eq, *dot, *name;
        int found = 0, named = 0;
        strcpy(key, o->sets[k]);
        eq = strchr(key, '=');
        *eq = 0;
        name = key;
        dot = strchr(key, '.');
        if (dot) {
            *dot = 0;
            name = dot + 1;
        }
        for (a = 0; a < o->n_algos; a++) {
            const fgl_algo *al = fgl_algo_find(o->algos[a]);
            int i;
            if (dot && strcmp(key, al->name) != 0) continue;
            named = 1;
            for (i = 0; i < al->n_params; i++) found |= !strcmp(al->params[i].name, name);
        }
        if (dot && !named) return bad("--set %s: that algorithm is not among --algo", o->sets[k]);
        if (!found) return bad("--set %s: no chosen algorithm has that parameter (see fglrun --algo NAME --help)", o->sets[k]);
    }
    return 0;
}


/* The parameter named by --set s (key=..., algo.key=...) of algorithm al:
 * its index, or -1 when the set does not concern al. */
static int set_param(const char *s, const fgl_algo *al) {
    const char *eq = strchr(s, '='), *dot = strchr(s, '.'), *name = s;
    int i;
    if (dot && dot < eq) {
        if ((size_t)(dot - s) != strlen(al->name) || strncmp(s, al->name, (size_t)(dot - s))) return -1;
        name = dot + 1;
    }
    for (i = 0; i < al->n_params; i++)
        if ((size_t)(eq - name) == strlen(al->params[i].name) &&
            !strncmp(name, al->params[i].name, (size_t)(eq - name)))
            return i;
    return -1;
}

/* --set key=a,b,c: a sweep of a number parameter (a group list, such as
 * share=conv,head, keeps its commas). Each algorithm with swept parameters
 * becomes one slot per combination of their values (the first key slowest),
 * labelled "algo key=value ..."; the others stay one slot each. Empty
 * values, more than MAX_SWEEP_KEYS swept keys or MAX_ITEMS slots are
 * refused here; each value is checked against its parameter before the
 * first run (check_runs). Sets the labels in every case. */
FGLRUN_SHARED int expand_sweeps(options *o) {
    char algos[MAX_ITEMS][32], vals[MAX_SWEEP_KEYS][MAX_ITEMS][64];
    int n_algos = o->n_algos, a, k, n = 0;
    memcpy(algos, o->algos, sizeof algos);
    o->n_swept = 0;
    for (k = 0; k < o->n_sets; k++) {
        int number = 0, group = 0;
        o->swept[k] = 0;
        if (!strchr(strchr(o->sets[k], '=') + 1, ',')) continue;
        for (a = 0; a < n_algos; a++) {
            const fgl_algo *al = fgl_algo_find(algos[a]);
            int i = set_param(o->sets[k], al);
            if (i < 0) continue;
            if (al->params[i].type == FGL_PARAM_GROUPS) group = 1;
            else number = 1;
        }
        if (number && group)
            return bad("--set %s: a list sweeps a number parameter, but for some chosen algorithm this is a group "
                       "list; name the algorithm (--set algo.key=a,b)", o->sets[k]);
        if (number) {
            o->swept[k] = 1;
            o->n_swept++;
        }
    }
    for (a = 0; a < n_algos; a++) {
        const fgl_algo *al = fgl_algo_find(algos[a]);
        int keys[MAX_SWEEP_KEYS], nv[MAX_SWEEP_KEYS], nk = 0, combos = 1, c, j;
        for (k = 0; k < o->n_sets; k++) {
            const char *v;
            int i, m;
            if (!o->swept[k] || (i = set_param(o->sets[k], al)) < 0) continue;
            for (j = 0; j < nk; j++) /* the same key swept twice: the later list wins, as for --set */
                if (set_param(o->sets[keys[j]], al) == i) break;
            if (j == nk && nk == MAX_SWEEP_KEYS)
                return bad("--set %s: at most 4 swept parameters per algorithm", o->sets[k]);
            if (j == nk) nk++;
            keys[j] = k;
            v = strchr(o->sets[k], '=') + 1;
            for (m = 0; *v || m == 0; m++) { /* the values, between commas */
                size_t w = strcspn(v, ",");
                if (w == 0 || w >= sizeof vals[0][0] || m == MAX_ITEMS)
                    return bad("--set %s: a sweep takes values separated by commas (key=a,b,c), each non-empty and "
                               "short, at most 32", o->sets[k]);
                memcpy(vals[j][m], v, w);
                vals[j][m][w] = 0;
                v += w;
                if (*v == ',') {
                    v++;
                    if (!*v) return bad("--set %s: an empty value at the end of the list", o->sets[k]);
                }
            }
            nv[j] = m;
        }
        for (j = 0; j < nk; j++) combos *= nv[j];
        if (n + combos > MAX_ITEMS)
            return bad("%s", "--set: the sweep makes more than 32 rows (algorithms x combinations of values)");
        for (c = 0; c < combos; c++, n++) {
            int rest = c;
            strcpy(o->algos[n], algos[a]);
            snprintf(o->labels[n], sizeof o->labels[n], "%s", al->name);
            o->n_vset[n] = nk;
            for (j = nk - 1; j >= 0; j--) { /* the last key fastest */
                const char *v = vals[j][rest % nv[j]];
                const char *pname = al->params[set_param(o->sets[keys[j]], al)].name;
                rest /= nv[j];
                snprintf(o->vset[n][j], sizeof o->vset[n][j], "%s.%s=%s", al->name, pname, v);
            }
            for (j = 0; j < nk; j++) {
                size_t l = strlen(o->labels[n]);
                snprintf(o->labels[n] + l, sizeof o->labels[n] - l, " %s", strchr(o->vset[n][j], '.') + 1);
            }
        }
    }
    o->n_algos = n;
    return 0;
}

/* The record's "flags" (with their "defaults") and "run", in the table's order. */
FGLRUN_SHARED void opt_record(const rec_ctx *c, rec_item *flag, int *n_flag, rec_item *run, int *n_run) {
    int k;
    for (k = 0; k < N_OPTS; k++) {
        const opt_def *d = &opt_table[k];
        rec_item *it;
        if (d->kind == 'e' && *n_flag < REC_MAX) it = &flag[(*n_flag)++];
        else if (d->kind == 'r' && *n_run < REC_MAX) it = &run[(*n_run)++];
        else continue;
        snprintf(it->key, sizeof it->key, "%s", d->name);
        (d->rec ? d->rec : rec_by_type)(d, c, it);
    }
}
