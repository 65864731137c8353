/* libFuzzer harness of fgl_run_load (checkpoints). The first input byte
 * picks a registered algorithm; a small run of it is set up (a synthetic
 * graph of 90 nodes over 3 clients, 3 rounds); the rest is a checkpoint
 * payload the harness frames with a valid header and checksum (anyone can
 * recompute FNV-1a), so mutations reach the fingerprint and state checks.
 * A failed load leaves the run where it was (no round done); a load that
 * succeeds must let the run finish. */
#define _POSIX_C_SOURCE 200809L
#define FGL_IMPLEMENTATION
#include "../../fgl_fed.h"
#include "fuzz.h"

static fgl_dataset fz_data;
static fgl_scenario fz_sc;
static fgl_client_data fz_cd[3];
static int fz_ready;

static void fz_setup(void) {
    fgl_synth_node_config c = fgl_synth_node_default();
    fgl_split_config s = fgl_split_default();
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 1, 1);
    fgl_error e;
    c.n_nodes = 90;
    c.n_communities = 3;
    c.n_feat = 6;
    fz_data.task = FGL_TASK_NODE;
    FZ_CHECK(fgl_synth_node(&c, 1, &fz_data.node, NULL, &e) == FGL_OK, "%s", e.msg);
    s.clients = 3;
    s.how = FGL_PART_RANDOM;
    FZ_CHECK(fgl_scenario_make(&fz_sc, &fz_data, &s, &e) == FGL_OK, "%s", e.msg);
    spec.hidden = 4;
    FZ_CHECK(fgl_scenario_clients(&fz_sc, &spec, fz_cd, 3, &e) == FGL_OK, "%s", e.msg);
    fz_ready = 1;
}

static void fz_load(const fgl_algo *algo, const char *file) {
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run run;
    fgl_error e;
    int rc;
    cfg.rounds = 3;
    cfg.threads = 1;
    if (fgl_run_init(&run, &cfg, algo, fz_cd, 3, &e)) return; /* an algorithm this data does not suit */
    rc = fgl_run_load(&run, fz_path(file), &e);
    if (rc) {
        FZ_CHECK(e.msg[0] && run.round == 0, "failed load: round %d, message '%s'", run.round, e.msg);
    } else {
        FZ_CHECK(run.round >= 0 && run.round <= 3, "loaded round %d", run.round);
        while (run.round < 3 && fgl_run_round(&run) == FGL_OK) {
        }
    }
    fgl_run_free(&run);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const fgl_algo *algo;
    fgl_bytes b;
    size_t mark;
    if (!fz_ready) fz_setup();
    if (size < 1) return 0;
    algo = fgl_algo_at(data[0] % fgl_algo_count());
    fgl_bytes_init(&b);
    fgl_frame_begin(&b, "FGLR", FGL__RUN_VERSION, &mark);
    fgl_bytes_put(&b, data + 1, size - 1);
    fgl_frame_end(&b, mark);
    FZ_CHECK(!b.err, "out of memory framing %zu bytes", size);
    fz_write("framed.ckpt", b.data, b.len);
    fgl_bytes_free(&b);
    fz_load(algo, "framed.ckpt");
    fz_write("raw.ckpt", data + 1, size - 1);
    fz_load(algo, "raw.ckpt");
    remove(fz_path("framed.ckpt"));
    remove(fz_path("raw.ckpt"));
    return 0;
}
