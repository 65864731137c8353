/* A mutant of course/teacher/solutions/a1_trimmed.c for tests/test_course.sh: it
 * reads every client's upload, rejected ones (NULL) included; the grader's
 * process for assignment 1 crashes, the grader goes on.
 * expect: a1(crash) */
#include "course.h"

static int trimmed_aggregate(fgl_server *s) {
    float *global = fgl_floats(&s->store, "global");
    int trim = (int)fgl_get(s->set, "trim"), n = s->n_clients, i, k;
    float *col = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)n);
    size_t j;
    if (!col) return FGL_ERR_NOMEM;
    for (j = 0; j < s->n_shared; j++) {
        double sum = 0;
        for (i = 0; i < n; i++) col[i] = fgl_upload(s, i, "theta")[j]; /* NULL when rejected */
        for (i = 1; i < n; i++) /* insertion sort */
            for (k = i; k > 0 && col[k - 1] > col[k]; k--) {
                float t = col[k];
                col[k] = col[k - 1];
                col[k - 1] = t;
            }
        for (k = trim; k < n - trim; k++) sum += col[k];
        global[j] = (float)(sum / (n - 2 * trim));
    }
    return FGL_OK;
}

int a1_register(void) {
    fgl_algo a = course_algo_base("fedavg");
    a.name = "trimmed";
    a.summary = "a mutant";
    fgl_algo_param_add(&a, "trim", FGL_PARAM_INT, 1, "uploads dropped at each end");
    a.aggregate = trimmed_aggregate;
    return fgl_algo_register(&a);
}
