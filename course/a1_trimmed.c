/* Assignment 1 - a robust aggregation rule: the coordinate-wise trimmed mean.
 *
 * FedAvg's server averages the clients' models. One client that sends a
 * wild model (a bug, or an attack) can move that average anywhere. The
 * trimmed mean is robust to a few such clients: for every coordinate j of
 * the shared parameters, take the values the clients uploaded, drop the
 * `trim` smallest and the `trim` largest, and average the rest (with equal
 * weights).
 *
 * Your algorithm is FedAvg with one hook replaced: the server's aggregate.
 * Complete trimmed_aggregate below. What you have on the server
 * (fgl_fed.h, "The two sides"):
 *   s->n_clients               K
 *   s->n_shared                floats in each upload's "theta"
 *   fgl_upload(s, i, "theta")  client i's uploaded parameters (n_shared floats),
 *                              or NULL if client i's upload was rejected or
 *                              absent this round: skip those clients. Read
 *                              only (const): sort copies, never the upload
 *                              (a write is refused when the round ends)
 *   fgl_floats(&s->store, "global")   the server model (n_shared floats):
 *                              write the result here; it is what every client
 *                              receives next
 *   fgl_get(s->set, "trim")    the parameter (set with --set trim=2)
 *   fgl_scratch(&s->store, bytes)     temporary memory until you return
 *   fgl_server_fail(s, FGL_ERR_ARG, "...", ...)   report an error and return it
 * Rules:
 *   - no upload accepted this round: keep "global" as it is and return FGL_OK;
 *   - fewer than 2 trim + 1 accepted uploads: nothing would be left, so
 *     return an error with fgl_server_fail (never divide by zero);
 *   - do not use fgl_server_mean or the runtime's robust rules: write it
 *     (the grader checks which functions the file uses: course/README.md,
 *     "What you may use").
 *
 * Try it:   make -C course fglrun && ./course/build/fglrun --algo trimmed,fedavg --data synthetic
 *           ./course/build/fglrun --algo trimmed,fedavg --data synthetic --attack scale:20 --attackers 0.2
 * Grade it: make -C course grade
 */
#include "course.h"

static int trimmed_aggregate(fgl_server *s) {
    /* TODO: your code here (and delete the next line) */
    return fgl_server_fail(s, FGL_ERR_UNSUPPORTED, "assignment 1: trimmed_aggregate is not written yet");
}

int a1_register(void) {
    fgl_algo a = course_algo_base("fedavg");
    a.name = "trimmed";
    a.summary = "FedAvg with a coordinate-wise trimmed mean on the server (assignment 1)";
    fgl_algo_param_add(&a, "trim", FGL_PARAM_INT, 1, "uploads dropped at each end, per coordinate");
    a.aggregate = trimmed_aggregate;
    return fgl_algo_register(&a);
}
