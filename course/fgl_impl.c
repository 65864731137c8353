/* fgl_impl.c - fgl's implementation, compiled once (build/fgl.o): the
 * grader, fglrun and the assignments include the headers without it
 * (-DFGL_NO_IMPLEMENTATION) and link this object. */
#define FGL_IMPLEMENTATION
#include "fgl_fed.h"
