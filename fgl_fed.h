/* fgl_fed.h - federated runtime and aggregation algorithms.
 *
 * Part of fgl (see README.md). Builds on fgl_gnn.h, fgl_graph.h and fgl.h.
 */
#ifndef FGL_FED_H
#define FGL_FED_H

#include "fgl_gnn.h"

#endif /* FGL_FED_H */

#if defined(FGL_IMPLEMENTATION) && !defined(FGL_FED_H_IMPLEMENTED)
#define FGL_FED_H_IMPLEMENTED
#endif
