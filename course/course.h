/* course.h - what each assignment provides to the grader and to fglrun
 * (course/README.md). Every assignment file includes it. */
#ifndef COURSE_H
#define COURSE_H

#include <stdlib.h>
#include <string.h>

#include "fgl_fed.h"
#include "sage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The table an assignment starts from (course.c): fgl_algo_base for the
 * course. "fedavg" is FedAvg without the library's proximal term (its
 * training has no grad hook; the parameter mu is declared and unused) whose
 * aggregate, under the grader, refuses a run whose aggregation settings
 * (robust rule, DP, secure aggregation) are not plain FedAvg's; "local" is
 * Local training. Any other name is refused: the assignments are written
 * from these, not from the library's other algorithms (it prints why and
 * returns a table that does nothing, and the grader scores the assignment 0). */
fgl_algo course_algo_base(const char *name);

/* Assignment 1: registers the algorithm "trimmed". */
int a1_register(void);
/* Assignment 2: registers the algorithm "myprox". */
int a2_register(void);
/* Assignment 3: the backward pass of the layer of sage.h. Given the
 * forward's inputs, its pre-activation Z and dH = dL/dH (n x h), write
 * dX = dL/dX (n x f), dWs, dWn = dL/dWs, dL/dWn (f x h) and db = dL/db (h);
 * the outputs are overwritten, not added to. 0 on success. */
int sage_backward(const sage_graph *g, const float *X, int f, const float *Ws, const float *Wn, int h,
                  const float *Z, const float *dH, float *dX, float *dWs, float *dWn, float *db);
/* Assignment 4: registers the algorithm "mine". */
int a4_register(void);

#ifdef __cplusplus
}
#endif
#endif
