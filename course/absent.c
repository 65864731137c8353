/* absent.c - an assignment with nothing in it (compiled with
 * -DCOURSE_ABSENT_NAME): the Makefile links it in place of a student file
 * that is not in the folder graded, does not compile or does not link, so
 * that the other assignments are still graded and fglrun still builds. The
 * grader scores the assignment 0 and says why (NAME.syms names the reason).
 * Not a student's file. */
#include "course.h"

#if defined(COURSE_ABSENT_a1_trimmed)
int a1_register(void) { return 0; } /* registers no "trimmed" */
#elif defined(COURSE_ABSENT_a2_fedprox)
int a2_register(void) { return 0; } /* registers no "myprox" */
#elif defined(COURSE_ABSENT_a3_sage_backward)
int sage_backward(const sage_graph *g, const float *X, int f, const float *Ws, const float *Wn, int h,
                  const float *Z, const float *dH, float *dX, float *dWs, float *dWn, float *db) {
    (void)g, (void)X, (void)f, (void)Ws, (void)Wn, (void)h, (void)Z, (void)dH, (void)dX, (void)dWs, (void)dWn, (void)db;
    return -1;
}
#elif defined(COURSE_ABSENT_a4_personal)
int a4_register(void) { return 0; } /* registers no "mine" */
#else
typedef int course_absent_nothing; /* compiled alone: an empty unit is not ISO C */
#endif
