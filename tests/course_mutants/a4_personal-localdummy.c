/* A mutant of course/teacher/solutions/a4_personal.c for tests/test_course.sh: Local
 * training with a message that changes nothing (it "communicates").
 * expect: a4.2 a4.3 a4.4 a4.5 a4.6 */
#include "course.h"

static int dummy_upload(fgl_client *c) {
    float *x = fgl_up(c, "hello");
    if (!x) return FGL_ERR_NOMEM;
    x[0] = 1;
    return FGL_OK;
}

int a4_register(void) {
    fgl_algo a = fgl_algo_new("mine", "a mutant: Local training plus a message");
    fgl_algo_upload(&a, "hello", FGL_SEND_DATA, 1, 1, 0);
    a.upload = dummy_upload;
    return fgl_algo_register(&a);
}
