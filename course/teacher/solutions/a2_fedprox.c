/* Assignment 2, a reference solution (course/teacher/README.md): the gradient of
 * FedProx's proximal term. Not for students. */
#include "course.h"

static int myprox_grad(fgl_client *c, const fgl_step *s) {
    float mu = (float)fgl_get(c->set, "mu");
    const float *received = fgl_received(c);
    fgl_params *ps = &s->model->params;
    int k;
    size_t j;
    if (!received || mu == 0) return FGL_OK;
    for (k = 0; k < c->n_span; k++) {
        const fgl_span *sp = &c->span[k];
        if (!sp->trainable) continue;
        for (j = 0; j < sp->len; j++)
            ps->grad[sp->offset + j] += mu * (ps->data[sp->offset + j] - received[sp->packed + j]);
    }
    return FGL_OK;
}

int a2_register(void) {
    fgl_algo a = course_algo_base("fedavg");
    int i;
    a.name = "myprox";
    a.summary = "FedAvg plus a proximal term mu/2 ||theta - theta_g||^2 (assignment 2)";
    for (i = 0; i < a.n_params; i++) /* FedAvg already declares mu (0): FedProx's default is 0.01 */
        if (!strcmp(a.params[i].name, "mu")) a.params[i].def = 0.01;
    a.train.grad = myprox_grad;
    return fgl_algo_register(&a);
}
