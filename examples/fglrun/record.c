/* fglrun/record.c - part of examples/fglrun.c (included by it): run records and --config. */
#include "fglrun.h"

/* ======================================================================================= */
/* --- run records: the effective configuration, --config and replay ---------------------- */
/*
 * Every result (--json, --out DIR/result.json) carries "config": the fgl
 * version and commit, the command, every flag with its effective value and
 * its default ("flags", "defaults"), every algorithm parameter's effective
 * value ("params"), the run-control flags ("run": recorded, not replayed) and
 * the data (directory, and the size and FNV-1a checksum of each file read).
 * --out DIR/config holds the same object, indented. `--config FILE` runs from
 * such a record: FILE is a config, a result JSON holding one, or a line of
 * bench/results/SECTION.jsonl (`--row LABEL` picks the line; a line recorded before
 * configs were replays its "args"). The recorded flags come first and the
 * command line after them, so its flags override. Run control that the
 * file holds among its flags (or args) is left out with a note, unless
 * --config-run-control: a record does not choose where a replay writes.
 * When the command line changes nothing but run control (--json, --out,
 * --threads ...) and the record holds a result, the new result is compared
 * with it: every per-run figure a replay compares (scores, bytes) must be identical (exit status 1
 * otherwise), and the data files those the record read (exit status 3
 * otherwise: a run on other data is no replay, whatever its numbers).
 *
 * The flags and the run control are recorded from the option table
 * (fglrun/options.c: a flag is one row there, with its kind, its value's
 * type and its default). tests/test_fglrun.sh checks that every flag of
 * --help is recorded, tests/test_mpi.sh that every flag of
 * build/fglrun_mpi's is (--mpi-timeout and --mpi-fail are run control).
 * Flags whose value depends on the architecture (--hidden, --heads,
 * --layers, --head) record the value every client gets, or null when
 * --model mixes architectures that differ there
 * (replayed as absent: each architecture keeps its own).
 */

/* --- the record --- */

/* The size and 64-bit FNV-1a checksum (fgl_checksum64's) of a file, read in
 * blocks; -1 if it cannot be read. */
static long file_fnv(const char *path, uint64_t *sum) {
    unsigned char buf[65536];
    FILE *f = fopen(path, "rb");
    uint64_t h = 0xCBF29CE484222325ull;
    long total = 0;
    size_t n, i;
    if (!f) return -1;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        for (i = 0; i < n; i++) {
            h ^= buf[i];
            h *= 0x100000001B3ull;
        }
        total += (long)n;
    }
    fclose(f);
    *sum = h;
    return total;
}

/* The files fgl_dataset_load reads for ds (node/NAME/NAME.* or
 * tu/NAME/NAME_*.txt, the optional ones if present), as a JSON array. */
static void record_files(run_record *r, const options *o, const fgl_dataset *ds) {
    static const char *node_files[] = {".features", ".labels", ".edges", ".split"};
    static const char *tu_files[] = {"_graph_indicator.txt", "_graph_labels.txt", "_A.txt", "_node_labels.txt",
                                     "_node_attributes.txt"};
    const char *p = strncmp(ds->label, "synthetic", 9) ? o->data : "";
    int k, first = 1;
    sb_puts(&r->files, "[");
    while (*p) {
        char item[1024]; /* as given: a name, or a dataset's directory */
        size_t len = strcspn(p, ",");
        int node = ds->task == FGL_TASK_NODE, m = node ? 4 : 5;
        const char *slash, *base;
        snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), p);
        p += len + (p[len] == ',');
        for (len = strlen(item); len > 1 && item[len - 1] == '/'; len--) item[len - 1] = 0;
        slash = strrchr(item, '/');
        base = slash ? slash + 1 : item;
        for (k = 0; k < m; k++) {
            char rel[4200], path[5400];
            uint64_t sum;
            long size;
            if (slash) { /* a directory given as the dataset: its path as given */
                snprintf(rel, sizeof rel, "%s/%s%s", item, base, node ? node_files[k] : tu_files[k]);
                snprintf(path, sizeof path, "%s", rel);
            } else {
                snprintf(rel, sizeof rel, "%s/%s/%s%s", node ? "node" : "tu", item, item, node ? node_files[k] : tu_files[k]);
                snprintf(path, sizeof path, "%s/%s", o->data_dir, rel);
            }
            if ((size = file_fnv(path, &sum)) < 0) continue;
            sb_printf(&r->files, "%s{\"path\": ", first ? "" : ", ");
            sb_json_str(&r->files, rel);
            if (slash) sb_puts(&r->files, ", \"given\": true"); /* as given on the command line, not under data_dir */
            sb_printf(&r->files, ", \"bytes\": %ld, \"fnv1a64\": \"%016llx\"}", size, (unsigned long long)sum);
            first = 0;
        }
    }
    if (o->partition_file) { /* the clients' file, as given */
        uint64_t sum;
        long size = file_fnv(o->partition_file, &sum);
        if (size >= 0) {
            sb_printf(&r->files, "%s{\"path\": ", first ? "" : ", ");
            sb_json_str(&r->files, o->partition_file);
            sb_printf(&r->files, ", \"given\": true, \"bytes\": %ld, \"fnv1a64\": \"%016llx\"}", size,
                      (unsigned long long)sum);
        }
    }
    sb_puts(&r->files, "]");
}

/* The effective configuration of this invocation (after the data and the
 * split are made: defaults depend on the task). given: the flags were the
 * embedded default benchmark's (no --algo, no --data). */
FGLRUN_SHARED void record_build(run_record *r, const options *o, const fgl_dataset *ds, const fgl_scenario *sc,
                                int rounds, int embedded) {
    int a, i;
    rec_ctx c;
    options plain;
    memset(r, 0, sizeof *r);
    opt_init(&plain);
    c.o = o;
    c.plain = &plain;
    c.ds = ds;
    c.sc = sc;
    c.d = fgl_fed_default(ds->task);
    c.rounds = rounds;
    c.embedded = embedded;
    c.node = ds->task == FGL_TASK_NODE;
    c.graph_sets = ds->task == FGL_TASK_GRAPH ? ds->n_sets : 0;
    c.def_arch = c.node ? FGL_ARCH_GCN : FGL_ARCH_GIN;
    /* the flags (experiment settings, replayed by --config) and the run control (recorded, not replayed) */
    opt_record(&c, r->flag, &r->n_flag, r->run, &r->n_run);
    /* every parameter of every chosen algorithm, as --set leaves it */
    for (a = 0; a < o->n_algos; a++) {
        const fgl_algo *al = fgl_algo_find(o->algos[a]);
        int b;
        for (b = 0; b < a && strcmp(o->algos[b], o->algos[a]); b++) continue;
        if (b < a) continue; /* a sweep's rows of one algorithm: its parameters once (a name twice is no JSON) */
        for (i = 0; al && i < al->n_params && r->n_param < REC_MAX * 2; i++) {
            const fgl_algo_param *p = &al->params[i];
            rec_item *it = &r->param[r->n_param++];
            int k;
            const char *val = NULL;
            for (k = 0; k < o->n_sets; k++) { /* the last --set of this key wins, as in run_one */
                const char *s = o->sets[k], *eq = strchr(s, '='), *dot = strchr(s, '.');
                const char *name = dot && dot < eq ? dot + 1 : s;
                if (dot && dot < eq && ((size_t)(dot - s) != strlen(al->name) || strncmp(s, al->name, (size_t)(dot - s))))
                    continue;
                if ((size_t)(eq - name) == strlen(p->name) && !strncmp(name, p->name, (size_t)(eq - name))) val = eq + 1;
            }
            it->vk = it->dk = p->type == FGL_PARAM_GROUPS ? 's' : 'n';
            if (val && p->type != FGL_PARAM_GROUPS && strchr(val, ',')) { /* a sweep's list, as given */
                fmt_real(it->def, sizeof it->def, p->def, 1);
                if (p->type == FGL_PARAM_INT) snprintf(it->def, sizeof it->def, "%ld", (long)p->def);
                snprintf(it->val, sizeof it->val, "%s", val);
                it->vk = 's';
            } else if (p->type == FGL_PARAM_GROUPS) {
                unsigned g = (unsigned)p->def;
                fgl_groups_format(g, it->def, sizeof it->def);
                if (val && !fgl_groups_parse(val, &g)) fgl_groups_format(g, it->val, sizeof it->val);
                else strcpy(it->val, it->def);
            } else if (p->type == FGL_PARAM_INT && p->choices) { /* its value's name ("equal") */
                double v = p->def;
                it->vk = it->dk = 's';
                fgl_algo_param_format(p, p->def, it->def, sizeof it->def);
                if (val) fgl_algo_param_parse(p, val, &v);
                fgl_algo_param_format(p, v, it->val, sizeof it->val);
            } else if (p->type == FGL_PARAM_INT) {
                snprintf(it->def, sizeof it->def, "%ld", (long)p->def);
                snprintf(it->val, sizeof it->val, "%ld", val ? strtol(val, NULL, 10) : (long)p->def);
            } else {
                fmt_real(it->def, sizeof it->def, p->def, 1);
                fmt_real(it->val, sizeof it->val, val ? strtod(val, NULL) : p->def, 1);
            }
            snprintf(it->key, sizeof it->key, "%s.%s", al->name, p->name);
        }
    }
    snprintf(r->data_dir, sizeof r->data_dir, "%s", o->data_dir);
    r->n_clients = sc->n_clients;
    record_files(r, o, ds);
}

static void rec_value(sbuf *b, char kind, const char *s) {
    if (kind == 's') sb_json_str(b, s);
    else if (kind == 'z') sb_puts(b, "null");
    else sb_puts(b, s);
}

static void rec_object(sbuf *b, const rec_item *it, int n, int def, int pretty) {
    int i;
    sb_puts(b, "{");
    for (i = 0; i < n; i++) {
        sb_puts(b, i ? (pretty ? ",\n    " : ", ") : (pretty ? "\n    " : ""));
        sb_json_str(b, it[i].key);
        sb_puts(b, ": ");
        rec_value(b, def ? it[i].dk : it[i].vk, def ? it[i].def : it[i].val);
    }
    sb_puts(b, pretty && n ? "\n  }" : "}");
}

/* Opens the next top-level member of the record. */
static void rec_member(sbuf *b, int *first, int pretty, const char *key) {
    sb_puts(b, *first ? (pretty ? "\n  " : "") : (pretty ? ",\n  " : ", "));
    *first = 0;
    sb_json_str(b, key);
    sb_puts(b, ": ");
}

/* The record as JSON (pretty: one member a line, for DIR/config); argv: the
 * command as typed, but the value of --secret-seed, written REDACTED (the
 * arguments read as parse_args reads them: a flag that takes a value is
 * followed by it). NULL when out of memory. */
FGLRUN_SHARED char *record_json(const run_record *r, const options *o, int argc, char **argv, int pretty) {
    sbuf b = {0, 0, 0, 0}, cmd = {0, 0, 0, 0};
    int i, first = 1;
    for (i = 0; i < argc; i++) { /* the command, quoted for a shell where needed */
        int k = i ? opt_lookup(argv[i]) : -1;
        if (i) sb_puts(&cmd, " ");
        if (k >= 0 && opt_table[k].type != OPT_BOOL && opt_table[k].kind != 'h' && opt_table[k].kind != 'v' &&
            i + 1 < argc) { /* a flag and its value (parse_args's reading) */
            sb_puts(&cmd, argv[i]);
            sb_puts(&cmd, " ");
            i++;
            if (!strcmp(opt_table[k].name, "secret-seed")) { /* never the secret seed (README, Secrets) */
                sb_puts(&cmd, "REDACTED");
                continue;
            }
        }
        if (argv[i][0] && !argv[i][strcspn(argv[i], " \t\n\"'\\$`*?&|;<>(){}[]#~!")]) {
            sb_puts(&cmd, argv[i]);
        } else {
            const char *p;
            sb_puts(&cmd, "'");
            for (p = argv[i]; *p; p++) {
                if (*p == '\'') sb_puts(&cmd, "'\\''");
                else sb_putn(&cmd, p, 1);
            }
            sb_puts(&cmd, "'");
        }
    }
    sb_puts(&b, "{");
    rec_member(&b, &first, pretty, "fgl_version");
    sb_json_str(&b, FGL_VERSION);
    rec_member(&b, &first, pretty, "fgl_commit");
    sb_json_str(&b, FGL_COMMIT);
#if defined(__clang__) || !defined(__GNUC__)
#ifdef __VERSION__
    rec_member(&b, &first, pretty, "compiler");
    sb_json_str(&b, __VERSION__);
#endif
#else
    rec_member(&b, &first, pretty, "compiler");
    sb_json_str(&b, "gcc " __VERSION__);
#endif
    rec_member(&b, &first, pretty, "openmp");
#ifdef _OPENMP
    sb_puts(&b, "true");
#else
    sb_puts(&b, "false");
#endif
    rec_member(&b, &first, pretty, "command");
    sb_json_str(&b, cmd.s ? cmd.s : "");
    rec_member(&b, &first, pretty, "flags");
    rec_object(&b, r->flag, r->n_flag, 0, pretty);
    rec_member(&b, &first, pretty, "defaults");
    rec_object(&b, r->flag, r->n_flag, 1, pretty);
    rec_member(&b, &first, pretty, "set");
    sb_puts(&b, "[");
    for (i = 0; i < o->n_sets; i++) {
        if (i) sb_puts(&b, ", ");
        sb_json_str(&b, o->sets[i]);
    }
    sb_puts(&b, "]");
    rec_member(&b, &first, pretty, "params");
    rec_object(&b, r->param, r->n_param, 0, pretty);
    rec_member(&b, &first, pretty, "param_defaults");
    rec_object(&b, r->param, r->n_param, 1, pretty);
    rec_member(&b, &first, pretty, "run");
    rec_object(&b, r->run, r->n_run, 0, pretty);
    rec_member(&b, &first, pretty, "data");
    sb_puts(&b, "{\"dir\": ");
    sb_json_str(&b, r->data_dir);
    sb_printf(&b, ", \"clients_made\": %d, \"files\": ", r->n_clients);
    sb_puts(&b, r->files.s ? r->files.s : "[]");
    sb_puts(&b, pretty ? "}\n}" : "}}");
    free(cmd.s);
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* In a sweep, slot's own record (o->slot_config[slot]): the invocation's,
 * with that slot's algorithm alone and its swept values as plain --set
 * values, so --config FILE --row LABEL replays that row by itself. */
FGLRUN_SHARED void record_slot(run_record *rec, options *o, int slot, const fgl_dataset *ds, const fgl_scenario *sc,
                               int rounds, int argc, char **argv) {
    options *one = (options *)malloc(sizeof *one);
    int k;
    if (!one) return;
    *one = *o;
    one->n_algos = 1;
    strcpy(one->algos[0], o->algos[slot]);
    strcpy(one->labels[0], o->algos[slot]);
    one->n_vset[0] = 0;
    one->n_swept = 0;
    one->n_sets = 0;
    for (k = 0; k < o->n_sets + o->n_vset[slot] && one->n_sets < MAX_ITEMS; k++) {
        if (k < o->n_sets && o->swept[k]) continue;
        strcpy(one->sets[one->n_sets], k < o->n_sets ? o->sets[k] : o->vset[slot][k - o->n_sets]);
        one->swept[one->n_sets++] = 0;
    }
    memset(rec, 0, sizeof *rec);
    record_build(rec, one, ds, sc, rounds, o->embedded);
    o->slot_config[slot] = record_json(rec, one, argc, argv, 0);
    free(rec->files.s);
    free(one);
}

/* --- --config: replay a record --- */

/* A note about the record, kept for replay_check_files: the record is read
 * before fglrun may restart itself (fgl_wait_choose), so said then it would
 * be said twice. */
static void replay_note(replay *rp, const char *fmt, ...) {
    size_t n = strlen(rp->notes);
    va_list ap;
    va_start(ap, fmt);
    if (n < sizeof rp->notes - 1) vsnprintf(rp->notes + n, sizeof rp->notes - n, fmt, ap);
    va_end(ap);
}

FGLRUN_SHARED void replay_free(replay *rp) {
    int i;
    if (!rp) return;
    for (i = 0; i < rp->argc; i++) free(rp->argv[i]);
    free(rp->argv);
    jv_free(&rp->doc);
    free(rp);
}

/* Appends the argument a b c (b, c may be NULL). */
static int replay_arg(replay *rp, const char *a, const char *b, const char *c) {
    char **nv = (char **)realloc(rp->argv, sizeof(char *) * (size_t)(rp->argc + 2));
    size_t n = strlen(a) + (b ? strlen(b) : 0) + (c ? strlen(c) : 0) + 1;
    if (!nv) return -1;
    rp->argv = nv;
    if (!(rp->argv[rp->argc] = (char *)malloc(n))) return -1;
    snprintf(rp->argv[rp->argc], n, "%s%s%s", a, b ? b : "", c ? c : "");
    rp->argc++;
    return 0;
}

/* An algorithm parameter's current default, formatted as records hold it. */
static int param_default(const char *algo, const char *key, char *out, size_t cap) {
    const fgl_algo *a = fgl_algo_find(algo);
    int i;
    for (i = 0; a && i < a->n_params; i++) {
        const fgl_algo_param *p = &a->params[i];
        if (strcmp(p->name, key)) continue;
        if (p->type == FGL_PARAM_GROUPS || p->choices) fgl_algo_param_format(p, p->def, out, cap);
        else if (p->type == FGL_PARAM_INT) snprintf(out, cap, "%ld", (long)p->def);
        else fmt_real(out, cap, p->def, 1);
        return 1;
    }
    return 0;
}

/* Finds the record in text: one JSON value, or with row the run of a
 * result with "runs" (result.json of several algorithms or a sweep) whose
 * "label" (else "algo") is row, or the line of a JSON Lines file whose
 * "label" is row. */
static int replay_find(replay *rp, char *text, size_t len, const char *path, const char *row) {
    char err[160];
    if (row && !jv_parse(text, len, &rp->doc, err)) { /* one JSON value: a result's runs (else a line below) */
        const jv *runs = jv_get(&rp->doc, "runs"), *v;
        int i;
        for (i = 0; runs && runs->t == 'a' && i < runs->n; i++)
            if (((v = jv_get(&runs->v[i], "label")) || (v = jv_get(&runs->v[i], "algo"))) && v->t == 's' &&
                !strcmp(v->s, row)) {
                rp->row = &runs->v[i];
                return 0;
            }
        if (runs && runs->t == 'a') {
            fprintf(stderr, "fglrun: --config %s: no run labelled '%s' in its \"runs\"\n", path, row);
            return 2;
        }
        jv_free(&rp->doc);
        memset(&rp->doc, 0, sizeof rp->doc);
    }
    if (!row) {
        if (!jv_parse(text, len, &rp->doc, err)) return 0;
        fprintf(stderr, "fglrun: --config %s: not one JSON record (%s)%s\n", path, err,
                memchr(text, '\n', len) && (char *)memchr(text, '\n', len) < text + len - 1 && text[0] == '{'
                    ? "; for a JSON Lines file choose a line with --row LABEL" : "");
        return 2;
    }
    {
        char *line = text, *end = text + len;
        int lines = 0;
        while (line < end) {
            char *nl = (char *)memchr(line, '\n', (size_t)(end - line));
            size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
            jv v;
            if (n && !jv_parse(line, n, &v, err)) {
                const jv *l = jv_get(&v, "label");
                lines++;
                if (l && l->t == 's' && !strcmp(l->s, row)) {
                    rp->doc = v;
                    return 0;
                }
                jv_free(&v);
            }
            line += n + 1;
        }
        fprintf(stderr, "fglrun: --config %s: no line labelled '%s' (of %d JSON lines)\n", path, row, lines);
        return 2;
    }
}

/* flag (a record's, "--name") is run control (where to write, how to run):
 * left out of the replay with a note, unless the command line says
 * --config-run-control (--help is never taken from a file). 1 if left out. */
static int replay_run_control(replay *rp, const options *o, const char *flag) {
    int value, k = opt_lookup(flag);
    if (!opt_run_control(flag, &value)) return 0;
    if (o->config_run_control && k >= 0 && opt_table[k].kind == 'r') return 0;
    replay_note(rp, "fglrun: config: run-control option %s from %s ignored; give it on the command line%s\n", flag,
            rp->what, k >= 0 && opt_table[k].kind == 'r' ? " (or --config-run-control to obey the file)" : "");
    return 1;
}

/* --config FILE [--row LABEL]: parse again, the record's flags first and
 * the command line after them. Run-control flags the record holds are left
 * out (replay_run_control). */
FGLRUN_SHARED int config_reparse(int argc, char **argv, options *o) {
    replay *rp = (replay *)calloc(1, sizeof *rp);
    const char *path = o->config, *row = o->row;
    const jv *rec, *res, *cfg = NULL, *args = NULL;
    unsigned char *data = NULL;
    char *text;
    size_t len = 0;
    fgl_error ferr;
    int rc, i, k, n, value;
    if (!rp) return 1;
    /* a regular text file within a bound (64 MiB: the largest bench/results file is under 1 MiB) */
    if (fgl_file_read_bounded(path, (size_t)64 << 20, 1, &data, &len, &ferr)) {
        fprintf(stderr, "fglrun: --config: %s\n", ferr.msg);
        free(rp);
        return 2;
    }
    text = (char *)data;
    snprintf(rp->what, sizeof rp->what, "%s%s%s", path, row ? ", row " : "", row ? row : "");
    rc = replay_find(rp, text, len, path, row);
    free(text);
    if (rc) {
        replay_free(rp);
        return rc;
    }
    rec = rp->row ? rp->row : &rp->doc;
    res = jv_get(rec, "result"); /* a line of bench/results/SECTION.jsonl */
    if (res && res->t != 'o') res = NULL;
    if (!(cfg = jv_get(rec, "config")) && res) cfg = jv_get(res, "config");
    if (!cfg && jv_get(rec, "flags")) cfg = rec;
    if (!cfg && rp->row) cfg = jv_get(&rp->doc, "config"); /* a row without its own record: the invocation's ... */
    /* a result: its runs, a row of them (per_run), or a version-1 bare row (test_acc) */
    rp->result = res ? res : (jv_get(rec, "per_run") || jv_get(rec, "test_acc") || jv_get(rec, "runs")) ? rec : NULL;
    if (replay_arg(rp, argv[0], NULL, NULL)) goto oom;
    if (cfg && cfg->t == 'o' && jv_get(cfg, "flags") && jv_get(cfg, "flags")->t == 'o') {
        const jv *fl = jv_get(cfg, "flags"), *pa = jv_get(cfg, "params"), *data = jv_get(cfg, "data");
        for (i = 0; i < fl->n; i++) { /* typed by the option table: a value is one argument, never a flag */
            const jv *v = &fl->v[i];
            const char *why = NULL;
            char flag[80];
            int kk;
            size_t len = strlen(fl->k[i]);
            if (len + 3 > sizeof flag) why = "is no option";
            else {
                flag[0] = flag[1] = '-';
                memcpy(flag + 2, fl->k[i], len + 1);
            }
            kk = why ? -1 : opt_lookup(flag);
            if (!why && (kk < 0 || opt_table[kk].kind == 'h' || opt_table[kk].kind == 'v')) why = "is no option a record holds";
            else if (!why && opt_table[kk].type == OPT_BOOL && v->t != 'b' && v->t != 'z')
                why = "is a switch: its value must be true, false or null";
            else if (!why && opt_table[kk].type != OPT_BOOL && v->t != 's' && v->t != 'n' && v->t != 'z')
                why = "takes a value: a string or a number (or null)";
            else if (!why && v->t == 'n' && (opt_table[kk].type == OPT_STR || opt_table[kk].type == OPT_ENUM))
                why = "takes a string";
            else if (!why && v->t == 's' &&
                     (opt_table[kk].type == OPT_INT || opt_table[kk].type == OPT_U64 ||
                      opt_table[kk].type == OPT_DOUBLE || opt_table[kk].type == OPT_FLOAT))
                why = "takes a number";
            if (why) {
                fprintf(stderr, "fglrun: --config %s: \"flags\" member '%s' %s; refused (nothing was run)\n", rp->what,
                        fl->k[i], why);
                replay_free(rp);
                return 2;
            }
            if (v->t == 'z' || (v->t == 'b' && !strcmp(v->s, "false"))) continue;
            if (replay_run_control(rp, o, flag)) continue; /* where to write, how to run: the command line's */
            if (replay_arg(rp, flag, NULL, NULL)) goto oom;
            if (v->t != 'b' && replay_arg(rp, v->s, NULL, NULL)) goto oom;
        }
        /* algorithm parameters that differ from this build's defaults */
        for (i = 0; pa && pa->t == 'o' && i < pa->n; i++) {
            char algo[64], def[512];
            const char *dot = strchr(pa->k[i], '.');
            const jv *v = &pa->v[i];
            if (!dot || (v->t != 's' && v->t != 'n') || (size_t)(dot - pa->k[i]) >= sizeof algo) continue;
            memcpy(algo, pa->k[i], (size_t)(dot - pa->k[i]));
            algo[dot - pa->k[i]] = 0;
            if (param_default(algo, dot + 1, def, sizeof def) && !strcmp(def, v->s)) continue;
            if (replay_arg(rp, "--set", NULL, NULL) || replay_arg(rp, pa->k[i], "=", v->s)) goto oom;
            rp->n_sets++;
        }
        if (data) rp->files = jv_get(data, "files");
        if (rp->row && !jv_get(rp->row, "config")) { /* ... with that row's algorithm alone */
            const jv *al = jv_get(rp->row, "algo");
            if (al && al->t == 's' && (replay_arg(rp, "--algo", NULL, NULL) || replay_arg(rp, al->s, NULL, NULL)))
                goto oom;
        }
    } else if ((args = jv_get(rec, "args")) && args->t == 's') {
        const char *p = args->s;
        int skip_value = 0;
        replay_note(rp, "fglrun: %s has no recorded configuration: replaying its \"args\" with this version's defaults\n",
                    rp->what);
        while (*p) { /* the arguments as bench/results.sh wrote them: words without quoting */
            size_t w;
            char word[1024];
            while (*p == ' ') p++;
            if (!*p) break;
            w = strcspn(p, " ");
            if (w >= sizeof word) w = sizeof word - 1;
            memcpy(word, p, w);
            word[w] = 0;
            p += w;
            if (skip_value) { /* the value of a run-control flag left out */
                skip_value = 0;
                continue;
            }
            if (replay_run_control(rp, o, word)) {
                opt_run_control(word, &skip_value);
                continue;
            }
            if (!strcmp(word, "--set")) rp->n_sets++;
            if (replay_arg(rp, word, NULL, NULL)) goto oom;
        }
    } else {
        fprintf(stderr, "fglrun: --config %s: no fglrun configuration in it (a config, a result with \"config\" or a "
                        "bench/results line with \"args\" is expected)\n", rp->what);
        replay_free(rp);
        return 2;
    }
    n = rp->argc;
    for (i = 1; i < argc; i++) {
        if (replay_arg(rp, argv[i], NULL, NULL)) goto oom;
        if (!opt_run_control(argv[i], &value)) {
            if (argv[i][0] == '-') rp->changed = 1;
        } else if (value && i + 1 < argc) { /* the value of a run-control flag is not a flag */
            if (replay_arg(rp, argv[++i], NULL, NULL)) goto oom;
        }
    }
    (void)n;
    if ((rc = parse_args(rp->argc, rp->argv, o))) {
        replay_free(rp);
        return rc;
    }
    /* the record's parameters of algorithms no longer chosen (--algo on the command line) */
    for (i = 0, k = 0; i < o->n_sets; i++) {
        const char *dot = strchr(o->sets[i], '.');
        int keep = 1, a;
        if (i < rp->n_sets && dot && dot < strchr(o->sets[i], '=')) {
            keep = 0;
            for (a = 0; a < o->n_algos; a++)
                keep |= strlen(o->algos[a]) == (size_t)(dot - o->sets[i]) && !strncmp(o->algos[a], o->sets[i], (size_t)(dot - o->sets[i]));
        }
        if (keep) memmove(o->sets[k++], o->sets[i], sizeof o->sets[0]);
    }
    o->n_sets = k;
    o->rp = rp;
    { /* a record of a run with --secret-seed: S is in no record, so only the command line can give it again */
        const jv *run = cfg && cfg->t == 'o' ? jv_get(cfg, "run") : NULL, *ss = run ? jv_get(run, "secret-seed") : NULL;
        rp->secret_seed = ss && ss->t == 's'; /* said by replay_check_files */
    }
    return 0;
oom:
    fprintf(stderr, "fglrun: out of memory\n");
    replay_free(rp);
    return 1;
}

/* With --config: are the data files those the record read? Each one that
 * is missing or differs is said, and marks the replay (replay_check: then
 * it is no replay of the record, whatever the result). A record of a run
 * with --secret-seed replayed without it is said too. */
FGLRUN_SHARED void replay_check_files(const options *o) {
    const jv *fs = o->rp ? o->rp->files : NULL;
    int i;
    if (o->rp) fputs(o->rp->notes, stderr); /* here: after fgl_wait_choose's exec, said once */
    if (o->rp && o->rp->secret_seed && !o->secret_seed_set)
        fprintf(stderr, "fglrun: %s was run with --secret-seed S, which no record holds: give --secret-seed S again "
                        "on the command line to repeat its secrets (without it they come from the system's entropy, "
                        "and a run with --dp does not repeat)\n", o->rp->what);
    for (i = 0; fs && fs->t == 'a' && i < fs->n; i++) {
        const jv *p = jv_get(&fs->v[i], "path"), *h = jv_get(&fs->v[i], "fnv1a64");
        char path[1600], now[20];
        uint64_t sum;
        if (!p || p->t != 's' || !h || h->t != 's') continue;
        if (jv_get(&fs->v[i], "given")) snprintf(path, sizeof path, "%s", p->s); /* a directory named by --data */
        else snprintf(path, sizeof path, "%s/%s", o->data_dir, p->s);
        if (file_fnv(path, &sum) < 0) {
            fprintf(stderr, "fglrun: warning: the record read %s, which is missing here (%s)\n", p->s, path);
            o->rp->data_differ++;
            continue;
        }
        snprintf(now, sizeof now, "%016llx", (unsigned long long)sum);
        if (strcmp(now, h->s)) {
            fprintf(stderr, "fglrun: warning: %s differs from the file the record read (fnv1a64 %s, recorded %s)\n", path,
                    now, h->s);
            o->rp->data_differ++;
        }
    }
}

