#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- FedStar (Tan et al., AAAI 2023) ---------------------------------------------- */
/* FedAvg's mechanism (fedavg.h: fgl__fedavg_like) on a decoupled model: each
 * client's GNN has a feature encoder and a structure encoder (random-walk
 * and degree structure embeddings, --se), and only the structure encoder's
 * groups (FGL_G_STRUCT) are averaged; the feature encoder and the head stay
 * local. Sent: up 4 (n_struct + 1), down 4 n_struct bytes. */

/* FedStar runs its decoupled model: any client spec becomes FedStar's with
 * the same input and output sizes. */
static int fgl__star_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    fgl_model_spec s;
    (void)set;
    if (spec->task != FGL_TASK_GRAPH) return fgl_error_set(err, FGL_ERR_ARG, "fedstar: graph classification only");
    if (spec->arch == FGL_ARCH_FEDSTAR) return FGL_OK;
    s = fgl_model_spec_default(FGL_ARCH_FEDSTAR, FGL_TASK_GRAPH, spec->in_dim, spec->out_dim);
    s.dropout = spec->dropout;
    if (spec->pe_dim > 0) s.pe_dim = spec->pe_dim; /* the width the data's structure embeddings have */
    *spec = s;
    return FGL_OK;
}

static fgl_algo fgl__fedstar(void) {
    fgl_algo a = fgl__fedavg_like("fedstar", "Tan et al. 2023: share only the structure encoder of a feature/structure "
                                  "decoupled GNN", FGL_G_STRUCT, "parameter groups averaged (the structure encoder)",
                                  0.0, "proximal weight");
    a.prepare_spec = fgl__star_spec;
    return a;
}

#include "../../alone.h"
