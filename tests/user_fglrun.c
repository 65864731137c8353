/* user_fglrun.c - a program of a user's own that registers algorithms and
 * runs fglrun's command line on them (tests/test_fglrun.sh drives it): the
 * shape of a course's student solution. Built with -DFGL_MPI (make mpi) it
 * runs under mpirun (tests/test_sides.sh).
 *
 * "trimmed" is FedAvg with a trimmed mean on the server: per coordinate,
 * drop the `trim` largest and smallest uploads, average the rest. */
#define FGLRUN_NO_MAIN
#include "../examples/fglrun.c"

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static int trimmed_aggregate(fgl_server *s) {
    float *global = fgl_floats(&s->store, "global");
    float *col = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)s->n_clients);
    int i, n, k, trim = (int)fgl_get(s->set, "trim");
    size_t j;
    if (!col) return FGL_ERR_NOMEM;
    if (s->n_accepted <= 2 * trim) return fgl_server_fail(s, FGL_ERR_ARG, "trim %d leaves nothing of %d uploads", trim, s->n_accepted);
    for (j = 0; j < s->n_shared; j++) {
        double sum = 0;
        for (i = 0, n = 0; i < s->n_clients; i++)
            if (fgl_upload(s, i, "theta")) col[n++] = fgl_upload(s, i, "theta")[j];
        qsort(col, (size_t)n, sizeof(float), cmp_float);
        for (k = trim; k < n - trim; k++) sum += col[k];
        global[j] = (float)(sum / (n - 2 * trim));
    }
    return FGL_OK;
}

/* Its report: the share of the uploads the trim drops, and a figure it
 * cannot compute, printed as C prints it ("nan", "-inf"): fglrun writes
 * those as null, in figures but not inside strings (tests/test_faults.sh
 * checks that the JSON stays valid). */
static void trimmed_report(const fgl_observed *o, char *buf, size_t cap) {
    int trim = (int)fgl_get(o->set, "trim");
    snprintf(buf, cap, "\"trimmed_share\": %g, \"trimmed_undefined\": [%g, %g], \"trimmed_note\": \"nan stays text\"",
             o->n_clients > 0 ? 2.0 * trim / o->n_clients : 0.0, (double)NAN, -(double)INFINITY);
}

/* "scribble" is FedAvg whose hooks cast the const of a received message
 * away and write into it, where --set scribble.where=W says
 * (tests/test_sides.sh): client 0's 1 receive hook, 2 training hook, 3
 * upload hook, 4 eval_model (into the download), or 5 the aggregate hook
 * (into client 0's upload). The runtime refuses each, in one process as under MPI. 6
 * writes into the copy fgl_down_copy gives instead, which is allowed, and 0
 * writes nothing: both are FedAvg, bit for bit. */
static int (*fedavg_aggregate)(fgl_server *s);
static int (*fedavg_grad)(fgl_client *c, const fgl_step *st);

static int scribble_where(const fgl_settings *set) { return (int)fgl_get(set, "where"); }

static void scribble_down(fgl_client *c) { /* client 0 writes (the others' checks must not blame themselves) */
    float *x = (float *)fgl_down(c, "theta"); /* the const cast away: what the runtime refuses */
    if (x && c->id == 0) x[0] += 1.0f;
}

static int scribble_receive(fgl_client *c) {
    if (scribble_where(c->set) == 1) scribble_down(c);
    if (scribble_where(c->set) == 6) {
        float *x = fgl_down_copy(c, "theta");
        const float *down = fgl_down(c, "theta");
        if (!x || !down) return FGL_ERR_NOMEM;
        x[0] += 1.0f;
        if (x == down || x[0] == down[0]) return fgl_client_fail(c, FGL_ERR_ARG, "the copy is the download");
    }
    return FGL_OK;
}

static int scribble_grad(fgl_client *c, const fgl_step *st) {
    if (scribble_where(c->set) == 2 && st->index == 0) scribble_down(c);
    return fedavg_grad ? fedavg_grad(c, st) : FGL_OK;
}

static int scribble_upload(fgl_client *c) {
    if (scribble_where(c->set) == 3) scribble_down(c);
    return FGL_OK;
}

static fgl_model *scribble_eval(fgl_client *c) {
    if (scribble_where(c->set) == 4) scribble_down(c);
    return &c->model;
}

static int scribble_aggregate(fgl_server *s) {
    int rc = fedavg_aggregate(s);
    if (scribble_where(s->set) == 5) {
        float *x = (float *)fgl_upload(s, 0, "theta"); /* the const cast away */
        if (x) x[0] += 1.0f;
    }
    return rc;
}

/* Three rules of a user's own under DP and secure aggregation
 * (tests/test_defences_cover.sh): "median" is examples/custom_aggregator.c's
 * coordinate median over fgl_upload, which those defences refuse at the
 * start (it does not declare mean_only); "heavyball" is a DP-aware rule
 * (mean_only: it reads the uploads through fgl_server_mean only, then adds
 * a server momentum: post-processing of the noised mean); "ignorer"
 * declares mean_only but publishes its own model without taking the mean,
 * which a DP run must refuse in its first round, naming the part. */
static int median_aggregate(fgl_server *s) {
    float *global = fgl_floats(&s->store, "global");
    float *col = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)s->n_clients);
    size_t j;
    int i, n;
    if (!col) return FGL_ERR_NOMEM;
    for (j = 0; j < s->n_shared; j++) {
        for (i = 0, n = 0; i < s->n_clients; i++)
            if (fgl_upload(s, i, "theta")) col[n++] = fgl_upload(s, i, "theta")[j];
        if (n == 0) return FGL_OK; /* nothing to take the median of: keep the model */
        qsort(col, (size_t)n, sizeof(float), cmp_float);
        global[j] = n % 2 ? col[n / 2] : 0.5f * (col[n / 2 - 1] + col[n / 2]);
    }
    return FGL_OK;
}

static int heavyball_aggregate(fgl_server *s) {
    float *global = fgl_floats(&s->store, "global"), *v = fgl_floats(&s->store, "velocity");
    float *mean = (float *)fgl_scratch(&s->store, sizeof(float) * s->n_shared);
    size_t j;
    int rc;
    if (!mean) return FGL_ERR_NOMEM;
    if ((rc = fgl_server_mean(s, "theta", mean)) != FGL_OK) return rc == FGL_ERR_EMPTY ? FGL_OK : rc;
    for (j = 0; j < s->n_shared; j++) {
        v[j] = 0.5f * v[j] + (mean[j] - global[j]);
        global[j] += v[j];
    }
    return FGL_OK;
}

static int heavyball_init(fgl_server *s) {
    float *g = fgl_new_floats(&s->store, "global", s->n_shared);
    if (!g || !fgl_new_floats(&s->store, "velocity", s->n_shared)) return FGL_ERR_NOMEM;
    fgl_server_pack(s, s->init, g);
    return FGL_OK;
}

static int ignorer_aggregate(fgl_server *s) {
    float *global = fgl_floats(&s->store, "global");
    size_t j;
    for (j = 0; j < s->n_shared; j++) global[j] *= 0.99f; /* a model of its own, no mean taken */
    return FGL_OK;
}

int main(int argc, char **argv) {
    fgl_algo a = fgl_algo_base("fedavg"), w = a, m = a, h = a, g = a;
    m.name = "median";
    m.summary = "FedAvg with a coordinate-wise median (examples/custom_aggregator.c)";
    m.aggregate = median_aggregate;
    h.name = "heavyball";
    h.summary = "FedAvg with server momentum 0.5 on the mean (DP-aware: mean_only)";
    h.aggregate = heavyball_aggregate;
    h.server_init = heavyball_init;
    h.mean_only = 1;
    g.name = "ignorer";
    g.summary = "declares mean_only, then publishes a model of its own";
    g.aggregate = ignorer_aggregate;
    g.mean_only = 1;
    if (fgl_algo_register(&m) || fgl_algo_register(&h) || fgl_algo_register(&g)) return 1;
    w.name = "scribble";
    w.summary = "FedAvg whose hooks write into what they received (a test of the runtime's refusal)";
    fgl_algo_param_add(&w, "where", FGL_PARAM_INT, 0, "0 nowhere, 1 receive, 2 training, 3 upload, 4 eval_model, "
                       "5 aggregate, 6 a copy (fgl_down_copy)");
    fedavg_aggregate = w.aggregate;
    fedavg_grad = w.train.grad;
    w.receive = scribble_receive;
    w.train.grad = scribble_grad;
    w.upload = scribble_upload;
    w.eval_model = scribble_eval;
    w.aggregate = scribble_aggregate;
    if (fgl_algo_register(&w)) return 1;
    a.name = "trimmed";
    a.summary = "FedAvg with a coordinate-wise trimmed mean";
    fgl_algo_param_add(&a, "trim", FGL_PARAM_INT, 1, "uploads dropped at each end, per coordinate");
    a.aggregate = trimmed_aggregate;
    a.report = trimmed_report;
    if (fgl_algo_register(&a)) return 1;
#ifdef FGL_MPI
    return fglrun_mpi_main(argc, argv); /* make mpi: build/tests/user_fglrun_mpi */
#else
    return fglrun_main(argc, argv);
#endif
}
