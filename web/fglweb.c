/* web/fglweb.c - fglrun compiled to WebAssembly for the course page (make wasm: build/wasm/).
 *
 * This is fglrun itself: examples/fglrun.c with its parts, unchanged but for
 * one hook (FGLRUN_WEB: progress_round calls web_round below after every
 * round). The page's Web Worker (web/worker.js) calls main with the argv the
 * page builds from its URL, exactly as a shell would: fglrun parses and
 * checks the flags, loads the data (from the in-memory file system, where
 * the worker put the bundled files; FGL_DATA=/data), runs, prints its table
 * on stdout and, with --json, its JSON record; the worker forwards each line
 * to the page. So the page's command line, table and record are fglrun's own,
 * and a student who copies the command line gets the same numbers natively
 * (tests/test_wasm.sh compares them).
 *
 * Two exports beside main:
 *   fglweb_options()  the option table (every flag's name, kind, whether it
 *                     takes a value, the synopsis' value) and the algorithms,
 *                     as JSON: the page turns URL parameters into flags with it
 *                     and fills its form;
 *   web_round         (not exported: called by fglrun) one JSON object per
 *                     round to the page: the run, the round, mean validation
 *                     and test accuracy, loss, bytes so far, every client's
 *                     test accuracy (not under --dp without
 *                     --per-client-records, as fglrun's own files).
 * A module instance runs main once (fglrun keeps a few statics): the worker
 * is started afresh for every run.
 */
#define FGLRUN_NO_MAIN
#define FGLRUN_WEB
#include "examples/fglrun.c"
#include <emscripten.h>

/* the page's handler: Module.fglweb(kind, json) in the worker */
EM_JS(void, web_post, (const char *kind, const char *json),
      { if (Module["fglweb"]) Module["fglweb"](UTF8ToString(kind), UTF8ToString(json)); }) /* (no ';': EM_JS ends its definition) */

static void web_real(sbuf *b, const char *key, double x) {
    if (x == x && x - x == 0) sb_printf(b, ", \"%s\": %.6f", key, x);
    else sb_printf(b, ", \"%s\": null", key);
}

static void web_round(const options *o, const fgl_run *run) {
    const progress *pg = o->pg;
    const fgl_round_stats *st;
    sbuf b = {NULL, 0, 0, 0};
    int r = run->round - 1, K = run->n_clients, i;
    if (!pg || r < 0) return;
    st = &run->stats[r];
    sb_puts(&b, "{\"algo\": ");
    sb_json_str(&b, pg->label);
    sb_printf(&b, ", \"seed\": %llu, \"round\": %d, \"rounds\": %d, \"done\": %ld, \"total\": %ld",
              (unsigned long long)pg->seed, r + 1, pg->rounds, pg->done, pg->total);
    web_real(&b, "val", st->val_acc);
    web_real(&b, "test", st->test_acc);
    web_real(&b, "loss", st->train_loss);
    sb_printf(&b, ", \"up\": %.0f, \"down\": %.0f", (double)run->bytes_up, (double)run->bytes_down);
    if (per_client_out(o) && run->client_test) {
        sb_puts(&b, ", \"clients\": [");
        for (i = 0; i < K; i++) {
            double x = run->client_test[(size_t)r * (size_t)K + (size_t)i];
            if (x == x) sb_printf(&b, "%s%.4f", i ? "," : "", x);
            else sb_printf(&b, "%snull", i ? "," : "");
        }
        sb_puts(&b, "]");
    }
    sb_puts(&b, "}");
    if (!b.oom) web_post("round", b.s);
    free(b.s);
}

EMSCRIPTEN_KEEPALIVE const char *fglweb_options(void) {
    static sbuf b;
    size_t i;
    int a;
    if (b.s) return b.s;
    sb_puts(&b, "{\"version\": ");
    sb_json_str(&b, FGL_VERSION);
    sb_puts(&b, ", \"commit\": ");
    sb_json_str(&b, FGL_COMMIT);
    sb_puts(&b, ", \"options\": [");
    for (i = 0; i < sizeof opt_table / sizeof opt_table[0]; i++) {
        const opt_def *d = &opt_table[i];
        sb_puts(&b, i ? ", {\"name\": " : "{\"name\": ");
        sb_json_str(&b, d->name);
        sb_printf(&b, ", \"kind\": \"%c\", \"bool\": %s, \"arg\": ", d->kind, d->type == OPT_BOOL ? "true" : "false");
        sb_json_str(&b, d->arg ? d->arg : "");
        sb_puts(&b, "}");
    }
    sb_puts(&b, "], \"algos\": [");
    for (a = 0; a < fgl_algo_count(); a++) {
        sb_puts(&b, a ? ", " : "");
        sb_json_str(&b, fgl_algo_at(a)->name);
    }
    sb_puts(&b, "]}");
    return b.oom ? "{}" : b.s;
}

int main(int argc, char **argv) { return fglrun_main(argc, argv); }
