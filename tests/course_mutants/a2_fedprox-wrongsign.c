/* A mutant of course/teacher/solutions/a2_fedprox.c for tests/test_course.sh: the
 * proximal gradient with the wrong sign pushes clients away.
 * expect: a2.1 a2.2 a2.5 */
#include "course.h"

static int myprox_grad(fgl_client *c, const fgl_step *s) {
    float mu = (float)fgl_get(c->set, "mu");
    const float *received = fgl_received(c);
    fgl_params *ps = &s->model->params;
    int k;
    size_t j;
    if (!received) return FGL_OK;
    for (k = 0; k < c->n_span; k++)
        for (j = 0; j < c->span[k].len && c->span[k].trainable; j++)
            ps->grad[c->span[k].offset + j] -= mu * (ps->data[c->span[k].offset + j] - received[c->span[k].packed + j]);
    return FGL_OK;
}

int a2_register(void) {
    fgl_algo a = course_algo_base("fedavg");
    int i;
    a.name = "myprox";
    a.summary = "a mutant";
    for (i = 0; i < a.n_params; i++)
        if (!strcmp(a.params[i].name, "mu")) a.params[i].def = 0.01;
    a.train.grad = myprox_grad;
    return fgl_algo_register(&a);
}
