/* user_fglrun.c - a program of a user's own that registers an algorithm and
 * runs fglrun's command line on it (tests/test_fglrun.sh drives it): the
 * shape of a course's student solution.
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

int main(int argc, char **argv) {
    fgl_algo a = fgl_algo_base("fedavg");
    a.name = "trimmed";
    a.summary = "FedAvg with a coordinate-wise trimmed mean";
    fgl_algo_param_add(&a, "trim", FGL_PARAM_INT, 1, "uploads dropped at each end, per coordinate");
    a.aggregate = trimmed_aggregate;
    a.report = trimmed_report;
    if (fgl_algo_register(&a)) return 1;
    return fglrun_main(argc, argv);
}
