/* A shortcut submission for assignment 4 (issue 39): FedPG's table renamed.
 * Before the course kit withheld the library's algorithms it scored 30/30.
 * expect: a4=0 */
#include "course.h"

int a4_register(void) {
    fgl_algo a = *fgl_algo_find("fedpg");
    a.name = "mine";
    return fgl_algo_register(&a);
}
