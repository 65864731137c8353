/* A shortcut submission for assignment 2: in the library, FedAvg's table
 * trains with FedProx's hook (mu 0 by default). This file keeps the hook of
 * the table it started from and calls it, naming nothing withheld.
 * course_algo_base("fedavg") has no such hook: this is FedAvg, and fails. The
 * same with fgl_algo_base under #undef-free spelling is withheld by name.
 * expect: a2=0 */
#include "course.h"

static int (*base_grad)(fgl_client *c, const fgl_step *s);

static int myprox_grad(fgl_client *c, const fgl_step *s) { return base_grad ? base_grad(c, s) : FGL_OK; }

int a2_register(void) {
    fgl_algo a = course_algo_base("fedavg");
    int i;
    a.name = "myprox";
    a.summary = "a shortcut";
    for (i = 0; i < a.n_params; i++)
        if (!strcmp(a.params[i].name, "mu")) a.params[i].def = 0.01;
    base_grad = a.train.grad;
    a.train.grad = myprox_grad;
    return fgl_algo_register(&a);
}
