/* A shortcut submission for assignment 4: it reads the environment (a
 * student could look for the grader there, or be handed answers).
 * expect: a4=0 */
#include "course.h"

#include <stdlib.h>

int a4_register(void) {
    fgl_algo a = course_algo_base(getenv("MINE_BASE") ? getenv("MINE_BASE") : "local");
    a.name = "mine";
    return fgl_algo_register(&a);
}
