/* A shortcut submission for assignment 2: the library's own FedAvg table
 * (fgl_algo_base, not the course's) trains with FedProx's hook; this file
 * starts from it and keeps that hook.
 * expect: a2=0 */
#include "course.h"

int a2_register(void) {
    fgl_algo a = fgl_algo_base("fedavg");
    int i;
    a.name = "myprox";
    a.summary = "a shortcut";
    for (i = 0; i < a.n_params; i++)
        if (!strcmp(a.params[i].name, "mu")) a.params[i].def = 0.01;
    return fgl_algo_register(&a);
}
