/* A shortcut submission for assignment 1 (issue 39): no trimmed mean of its
 * own. It switches the run's robust rule to the library's trimmed mean
 * (writing through s->fed) and calls fgl_server_plain_mean, which applies
 * it. Before the course kit withheld the library's means it scored 20/20.
 * expect: a1=0 */
#include "course.h"

static int trimmed_aggregate(fgl_server *s) {
    fgl_fed_config *cfg = (fgl_fed_config *)s->fed;
    int rc;
    cfg->robust.rule = FGL_ROBUST_TRIMMED;
    cfg->robust.trim = (int)fgl_get(s->set, "trim");
    rc = fgl_server_plain_mean(s, "theta", fgl_floats(&s->store, "global"));
    return rc == FGL_ERR_EMPTY ? FGL_OK : rc;
}

int a1_register(void) {
    fgl_algo a = course_algo_base("fedavg");
    a.name = "trimmed";
    a.summary = "a shortcut";
    fgl_algo_param_add(&a, "trim", FGL_PARAM_INT, 1, "uploads dropped at each end, per coordinate");
    a.aggregate = trimmed_aggregate;
    return fgl_algo_register(&a);
}
