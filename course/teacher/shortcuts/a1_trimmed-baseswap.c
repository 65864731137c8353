/* A shortcut submission for assignment 1: the next try after the library's
 * means are withheld. It keeps the aggregate of the table it started from
 * (FedAvg's, which applies the run's robust rule) and calls it with s->fed
 * pointed at a configuration of its own asking for the trimmed mean,
 * restoring the pointer afterwards; no withheld function is named.
 * expect: a1=0 */
#include "course.h"

static int (*base_aggregate)(fgl_server *s);

static int trimmed_aggregate(fgl_server *s) {
    const fgl_fed_config *keep = s->fed;
    fgl_fed_config mine = *s->fed;
    int rc;
    mine.robust.rule = FGL_ROBUST_TRIMMED;
    mine.robust.trim = (int)fgl_get(s->set, "trim");
    s->fed = &mine;
    rc = base_aggregate(s);
    s->fed = keep;
    return rc;
}

int a1_register(void) {
    fgl_algo a = course_algo_base("fedavg");
    a.name = "trimmed";
    a.summary = "a shortcut";
    fgl_algo_param_add(&a, "trim", FGL_PARAM_INT, 1, "uploads dropped at each end, per coordinate");
    base_aggregate = a.aggregate;
    a.aggregate = trimmed_aggregate;
    return fgl_algo_register(&a);
}
