/* fgl_gnn.h - GNN layers, models and readouts.
 *
 * Part of fgl (see README.md). Builds on fgl_graph.h and fgl.h.
 */
#ifndef FGL_GNN_H
#define FGL_GNN_H

#include "fgl_graph.h"

#endif /* FGL_GNN_H */

#if defined(FGL_IMPLEMENTATION) && !defined(FGL_GNN_H_IMPLEMENTED)
#define FGL_GNN_H_IMPLEMENTED
#endif
