/* A mutant of course/solutions/a1_trimmed.c for tests/test_course.sh: the
 * sample-weighted mean instead of the trimmed mean.
 * expect: a1.1 a1.2 a1.3 a1.5 */
#include "course.h"

static int trimmed_aggregate(fgl_server *s) {
    int rc = fgl_server_mean(s, "theta", fgl_floats(&s->store, "global"));
    return rc == FGL_ERR_EMPTY ? FGL_OK : rc;
}

int a1_register(void) {
    fgl_algo a = fgl_algo_base("fedavg");
    a.name = "trimmed";
    a.summary = "a mutant";
    fgl_algo_param_add(&a, "trim", FGL_PARAM_INT, 1, "unused");
    a.aggregate = trimmed_aggregate;
    return fgl_algo_register(&a);
}
