/* libFuzzer harness of fgl_model_load. The input is a model payload (spec
 * and parameters): the harness frames it with a valid header and checksum,
 * as a forger would (FNV-1a is no defence), so the mutations reach the spec
 * and parameter checks instead of dying at the checksum; the raw input is
 * also loaded as a whole file. A model that loads must run a forward pass
 * on a small graph. */
#include "fuzz.h"

/* One tape for the process, reset per input (a fresh tape maps a new 1 MB
 * arena chunk, and ASan's quarantine of freed chunks would grow the RSS). */
static fgl_tape fz_tape;
static int fz_tape_ready;

/* A loaded model on a 4-node path (two graphs of two nodes for graph
 * tasks): its widths are bounded by the payload, so this stays small. */
static void fz_forward(fgl_model *m) {
    static const int src[3] = {0, 1, 2}, dst[3] = {1, 2, 3}, src_g[2] = {0, 2}, dst_g[2] = {1, 3};
    const fgl_model_spec *s = &m->spec;
    int graph = s->task == FGL_TASK_GRAPH, offsets[3] = {0, 2, 4}, n = 4;
    /* pe_dim is read only by FedStar, whose parameters bound it; other
     * architectures may carry any pe_dim up to FGL_MAX_DIM, unused. */
    int fedstar = s->arch == FGL_ARCH_FEDSTAR;
    size_t i, nx = (size_t)n * (size_t)s->in_dim, npe = (size_t)n * (size_t)(fedstar ? s->pe_dim : 1);
    float *x = (float *)malloc(sizeof(float) * nx), *pe = (float *)malloc(sizeof(float) * npe);
    fgl_csr adj;
    fgl_gnn_graph g;
    fgl_tape *t = &fz_tape;
    fgl_forward out;
    fgl_rng r;
    fgl_error e;
    for (i = 0; i < nx; i++) x[i] = (float)(i % 7) * 0.25f - 0.5f;
    for (i = 0; i < npe; i++) pe[i] = (float)(i % 3) * 0.5f;
    FZ_CHECK(fgl_graph_from_edges(n, graph ? src_g : src, graph ? dst_g : dst, graph ? 2 : 3,
                                  FGL_EDGES_SYMMETRIZE | FGL_EDGES_DROP_SELF_LOOPS, &adj, &e) == FGL_OK,
             "%s", e.msg);
    if (fgl_gnn_graph_make(&g, &adj, NULL, x, NULL, s->in_dim, fedstar ? pe : NULL,
                           s->pe_dim, graph ? offsets : NULL, graph ? 2 : 0, s, &e) == FGL_OK) {
        if (!fz_tape_ready) {
            fgl_tape_init(t);
            fz_tape_ready = 1;
        }
        fgl_rng_init(&r, 1, 2);
        fgl_tape_reset(t);
        FZ_CHECK(fgl_model_forward(m, t, &g, 1, &r, &out) == FGL_OK, "forward (train): %s", t->err.msg);
        fgl_tape_reset(t);
        FZ_CHECK(fgl_model_forward(m, t, &g, 0, NULL, &out) == FGL_OK, "forward (eval): %s", t->err.msg);
        fgl_gnn_graph_free(&g);
    }
    fgl_csr_free(&adj);
    free(x);
    free(pe);
}

static void fz_load(const char *file) {
    fgl_model m;
    fgl_error e;
    int rc;
    memset(&m, 0, sizeof m);
    memset(&e, 0, sizeof e);
    rc = fgl_model_load(&m, fz_path(file), &e);
    if (rc) {
        fz_check_error(rc, &e, &m, sizeof m); /* untouched: it was zeroed */
        return;
    }
    FZ_CHECK(fgl_model_spec_check(&m.spec, &e) == FGL_OK, "loaded spec invalid: %s", e.msg);
    fz_forward(&m);
    fgl_model_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fgl_bytes b;
    size_t mark;
    fgl_bytes_init(&b);
    fgl_frame_begin(&b, "FGLM", FGL__MODEL_VERSION, &mark);
    fgl_bytes_put(&b, data, size);
    fgl_frame_end(&b, mark);
    FZ_CHECK(!b.err, "out of memory framing %zu bytes", size);
    fz_write("framed.fglm", b.data, b.len);
    fgl_bytes_free(&b);
    fz_load("framed.fglm");
    fz_write("raw.fglm", data, size);
    fz_load("raw.fglm");
    remove(fz_path("framed.fglm"));
    remove(fz_path("raw.fglm"));
    return 0;
}
