#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- Local: no communication ------------------------------------------------------ */

static fgl_algo fgl__local(void) {
    return fgl_algo_new("local", "self-training: each client trains alone, nothing is sent");
}
#include "../../alone.h"
