/* A shortcut submission for assignment 2 (issue 39): the training hook is
 * the library's FedProx, found by name and called; the file never names
 * the library's proximal gradient function and its hook is a function of
 * its own, so a text search and a pointer comparison passed it.
 * expect: a2=0 */
#include "course.h"

static int myprox_grad(fgl_client *c, const fgl_step *s) { return fgl_algo_find("fedprox")->train.grad(c, s); }

int a2_register(void) {
    fgl_algo a = course_algo_base("fedavg");
    int i;
    a.name = "myprox";
    a.summary = "a shortcut";
    for (i = 0; i < a.n_params; i++)
        if (!strcmp(a.params[i].name, "mu")) a.params[i].def = 0.01;
    a.train.grad = myprox_grad;
    return fgl_algo_register(&a);
}
