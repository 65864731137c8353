/* A mutant of course/teacher/solutions/a1_trimmed.c for tests/test_course.sh:
 * the sample-weighted mean (FedAvg's, written by hand) instead of the
 * trimmed mean.
 * expect: a1.1 a1.2 a1.3 a1.5 */
#include "course.h"

static int trimmed_aggregate(fgl_server *s) {
    float *global = fgl_floats(&s->store, "global");
    double wsum = 0;
    int i;
    size_t j;
    for (i = 0; i < s->n_clients; i++)
        if (fgl_upload(s, i, "theta") && fgl_upload(s, i, "n")) wsum += fgl_upload(s, i, "n")[0];
    if (!(wsum > 0)) return FGL_OK;
    for (j = 0; j < s->n_shared; j++) {
        double acc = 0;
        for (i = 0; i < s->n_clients; i++)
            if (fgl_upload(s, i, "theta") && fgl_upload(s, i, "n"))
                acc += (double)fgl_upload(s, i, "n")[0] * fgl_upload(s, i, "theta")[j];
        global[j] = (float)(acc / wsum);
    }
    return FGL_OK;
}

int a1_register(void) {
    fgl_algo a = course_algo_base("fedavg");
    a.name = "trimmed";
    a.summary = "a mutant";
    fgl_algo_param_add(&a, "trim", FGL_PARAM_INT, 1, "unused");
    a.aggregate = trimmed_aggregate;
    return fgl_algo_register(&a);
}
