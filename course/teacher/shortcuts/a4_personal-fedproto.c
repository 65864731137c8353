/* A shortcut submission for assignment 4 (issue 39): FedProto's table,
 * renamed, obtained through the course's own starting point.
 * expect: a4=0 */
#include "course.h"

int a4_register(void) {
    fgl_algo a = course_algo_base("fedproto");
    a.name = "mine";
    return fgl_algo_register(&a);
}
