/* A mutant of course/teacher/solutions/a2_fedprox.c for tests/test_course.sh: it
 * calls the library's proximal gradient, which the assignment forbids.
 * expect: a2 */
#include "course.h"

static int myprox_grad(fgl_client *c, const fgl_step *s) {
    fgl_client_prox_grad(c, &s->model->params, (float)fgl_get(c->set, "mu"));
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
