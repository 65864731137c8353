/* Assignment 1, a reference solution (course/teacher/README.md): the coordinate-wise
 * trimmed mean. Not for students. */
#include "course.h"

#include <stdlib.h>

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static int trimmed_aggregate(fgl_server *s) {
    float *global = fgl_floats(&s->store, "global");
    float *col = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)s->n_clients);
    const float **up = (const float **)fgl_scratch(&s->store, sizeof(float *) * (size_t)s->n_clients);
    int trim = (int)fgl_get(s->set, "trim"), n = 0, i, k;
    size_t j;
    if (!col || !up) return FGL_ERR_NOMEM;
    for (i = 0; i < s->n_clients; i++)
        if ((up[n] = fgl_upload(s, i, "theta")) != NULL) n++;
    if (n == 0) return FGL_OK; /* nothing accepted: keep the model */
    if (trim < 0 || n <= 2 * trim)
        return fgl_server_fail(s, FGL_ERR_ARG, "trimmed: trim=%d leaves nothing of %d uploads", trim, n);
    for (j = 0; j < s->n_shared; j++) {
        double sum = 0;
        for (i = 0; i < n; i++) col[i] = up[i][j];
        qsort(col, (size_t)n, sizeof(float), cmp_float);
        for (k = trim; k < n - trim; k++) sum += col[k];
        global[j] = (float)(sum / (n - 2 * trim));
    }
    return FGL_OK;
}

int a1_register(void) {
    fgl_algo a = course_algo_base("fedavg");
    a.name = "trimmed";
    a.summary = "FedAvg with a coordinate-wise trimmed mean on the server (assignment 1)";
    fgl_algo_param_add(&a, "trim", FGL_PARAM_INT, 1, "uploads dropped at each end, per coordinate");
    a.aggregate = trimmed_aggregate;
    return fgl_algo_register(&a);
}
