#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- FedBN: FedAvg with local batch norm ------------------------------------------------- */
/* Li et al. 2021 ("FedBN: Federated Learning on Non-IID Features via Local
 * Batch Normalization"): clients whose features are shifted (one domain
 * each) keep their batch-norm layers, the affine scale and shift and the
 * running mean and variance, and average everything else as in FedAvg. It
 * is FedAvg's table with a keep-local mask: share (default all) less keep
 * (default norm+bnstat) travels, selected slice by slice (a GIN layer's
 * batch-norm weights are tagged CONV|NORM, so share=conv alone would send
 * them; keep leaves them out). The runtime applies the pair everywhere
 * (src/fed/algo.h, "What travels and what stays local"): a client never
 * sends its batch norm and the download does not overwrite it, the server's
 * vector holds only the rest, and checkpoints keep each client's own. On a
 * model without batch norm (fgl's GCN; a GIN without --bn) nothing is kept
 * and FedBN is FedAvg bit for bit (tested). Weights by training samples,
 * or equal (weights=equal), and mu (FedProx's term) as in FedAvg.
 * Sent: up 4 (n + 1), down 4 n bytes, n the shared floats less the batch
 * norm's 4 per feature of each normalised layer. */

typedef struct fgl__fedbn_params {
    fgl__fedavg_params fedavg;
    unsigned keep; /* the groups kept local (the runtime reads it) */
} fgl__fedbn_params;

static fgl_algo fgl__fedbn(void) {
    fgl_algo a = fgl__fedavg();
    a.name = "fedbn";
    a.summary = "Li et al. 2021: FedAvg with the batch-norm layers (scale, shift, running statistics) kept local";
    FGL_ALGO_PARAM(&a, fgl__fedbn_params, keep, FGL_PARAM_GROUPS, (double)(FGL_G_NORM | FGL_G_BNSTAT),
                   "parameter groups kept local even where share selects them (the batch norm)");
    return a;
}
#include "../../alone.h"
