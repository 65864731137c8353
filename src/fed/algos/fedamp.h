#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- FedAMP (Huang et al. 2021) ---------------------------------------------------- */
/* Clients upload theta_i (n floats, 4 n bytes); the server keeps every
 * client's latest upload and gives client i its cloud model
 *     u_i = sum_j xi_ij theta_j,  xi_ij = (1 - xi_ii) e^{-||theta_i - theta_j||^2 / sigma}
 *                                          / sum_{k != i} e^{-||theta_i - theta_k||^2 / sigma}  (j != i),
 * xi_ii = self_weight (4 n bytes down). The client starts from u_i and adds
 * lambda/2 ||theta - u_i||^2 (lambda = 1, docs/algorithms.md). xi is the
 * client_matrix. This is the normalised form (the attention over the others
 * is a softmax, their total 1 - xi_ii): the paper's raw form
 * xi_ij = alpha_k e^{-d/sigma}/sigma depends on the model's scale so much
 * that with PFLlib's defaults (alpha_k = sigma = 1) all xi_ij underflow and
 * FedAMP degenerates into local training. self_weight = 0.3: the FedAMP
 * baseline in the pFedGraph authors' code. sigma (the distance scale): no
 * published value fits this normalised form; sigma = 10 is fgl's choice,
 * measured on the FED-PUB protocol (Cora, 5 METIS clients, 2-layer GCN
 * hidden 128), where squared distances between clients run 15-50 early on:
 * near models get clearly more weight without a hard nearest neighbour
 * (30 rounds: 71% mean test accuracy vs 45% with sigma = 1e3, where the
 * weights are uniform). It scales with the model's size: tune it. Only
 * accepted clients' cloud models are recomputed; rows of clients whose
 * upload is missing stay. */

typedef struct fgl__fedamp_params {
    unsigned share;     /* the groups shared */
    double sigma;       /* the attention's distance scale */
    double lambda;      /* the proximal weight */
    double self_weight; /* xi_ii */
} fgl__fedamp_params;

/* The server's state: every client's latest model theta_j, its cloud model
 * u_i, the weights xi and who has uploaded yet. */
typedef struct fgl__fedamp_server {
    float *theta, *u, *xi;
    int *has;
} fgl__fedamp_server;

static int fgl__amp_server_init(fgl_server *s) {
    const fgl__fedamp_params *p = FGL_PARAMS(fgl__fedamp_params, s->set);
    fgl__fedamp_server *st = FGL_NEW_STATE(fgl__fedamp_server, &s->store);
    size_t K = (size_t)s->n_clients, i;
    if (!st) return FGL_ERR_NOMEM;
    st->theta = fgl_server_per_client(s, "theta"); /* before any upload: everyone's cloud model is the
                                                       common initialisation */
    st->u = fgl_new_floats(&s->store, "u", K * s->n_shared);
    st->xi = fgl_new_floats(&s->store, "xi", K * K);
    st->has = fgl_new_ints(&s->store, "has", K);
    if (!(p->sigma > 0) || !(p->self_weight >= 0 && p->self_weight <= 1))
        return fgl_server_fail(s, FGL_ERR_ARG, "fedamp: sigma %g must be > 0 and self_weight %g in [0, 1]", p->sigma,
                               p->self_weight);
    if (s->store.err.code) return s->store.err.code;
    for (i = 0; i < K; i++) {
        memcpy(st->u + i * s->n_shared, st->theta + i * s->n_shared, sizeof(float) * s->n_shared);
        st->xi[i * K + i] = 1.0f;
    }
    return FGL_OK;
}

static int fgl__amp_aggregate(fgl_server *s) {
    int K = s->n_clients, i, j;
    size_t q, n = s->n_shared;
    const fgl__fedamp_params *p = FGL_PARAMS(fgl__fedamp_params, s->set);
    const fgl__fedamp_server *st = FGL_STATE(fgl__fedamp_server, &s->store);
    float *theta = st->theta, *u = st->u, *xi = st->xi;
    float sigma = (float)p->sigma, self_weight = (float)p->self_weight;
    int *has = st->has;
    double *d = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * (size_t)K);
    double *e = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K);
    double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * (size_t)K);
    unsigned char *rows = (unsigned char *)fgl_scratch(&s->store, (size_t)K);
    if (!d || !e || !w || !rows) return FGL_ERR_NOMEM;
    fgl_server_gather(s, "theta", theta, has);
    for (i = 0; i < K; i++) /* squared distances between the latest models, in client order */
        for (j = i; j < K; j++) {
            const float *a = theta + (size_t)i * n, *b = theta + (size_t)j * n;
            double sum = 0;
            if (i != j)
                for (q = 0; q < n; q++) sum += ((double)a[q] - b[q]) * ((double)a[q] - b[q]);
            d[(size_t)i * K + j] = d[(size_t)j * K + i] = sum;
        }
    for (i = 0; i < K; i++) {
        const double *di = d + (size_t)i * K;
        double dmin = HUGE_VAL, esum = 0, self = self_weight;
        if (!s->up[i]) continue;
        rows[i] = 1;
        for (j = 0; j < K; j++)
            if (j != i && has[j] && di[j] < dmin) dmin = di[j];
        for (j = 0; j < K; j++) { /* softmax of -d/sigma over the others, shifted by the nearest for stability */
            e[j] = (j != i && has[j]) ? exp(-(di[j] - dmin) / sigma) : 0.0;
            esum += e[j];
        }
        if (esum <= 0) self = 1.0; /* nobody else yet */
        for (j = 0; j < K; j++) {
            double x = j == i ? self : esum > 0 ? (1.0 - self) * e[j] / esum : 0.0;
            w[(size_t)i * K + j] = x;
            xi[(size_t)i * K + j] = (float)x;
        }
    }
    return fgl_server_mix(s, "theta", theta, w, u, rows); /* theta holds the latest model of those not in the round */
}

static int fgl__amp_grad(fgl_client *c, const fgl_step *st) { /* g += lambda (theta - u_i) */
    float lambda = (float)FGL_PARAMS(fgl__fedamp_params, c->set)->lambda;
    if (lambda != 0) fgl_client_prox_grad(c, &st->model->params, lambda);
    return FGL_OK;
}

static int fgl__amp_matrix(const fgl_observed *o, float *out) { return fgl_observed_matrix(o, "xi", out); }

static fgl_algo fgl__fedamp(void) {
    fgl_algo a =
        fgl_algo_new("fedamp", "Huang et al. 2021: personalised cloud models from attention over model distances, "
                               "proximal local training");
    FGL_ALGO_PARAM(&a, fgl__fedamp_params, share, FGL_PARAM_GROUPS, (double)FGL_G_ALL, "parameter groups shared");
    FGL_ALGO_PARAM(&a, fgl__fedamp_params, sigma, FGL_PARAM_FLOAT, 10.0,
                   "attention scale: xi_ij ~ exp(-||theta_i - theta_j||^2 / sigma)");
    FGL_ALGO_PARAM(&a, fgl__fedamp_params, lambda, FGL_PARAM_FLOAT, 1.0, "proximal weight lambda/2 ||theta - u_i||^2");
    FGL_ALGO_PARAM(&a, fgl__fedamp_params, self_weight, FGL_PARAM_FLOAT, 0.3,
                   "xi_ii, the weight of a client's own model in its cloud model");
    fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, 0, 0, 0);
    fgl_algo_download(&a, "u", FGL_SEND_MODEL, 0, 0, FGL_PART_ROW, "u");
    a.server_init = fgl__amp_server_init;
    a.aggregate = fgl__amp_aggregate;
    a.train.grad = fgl__amp_grad;
    a.client_matrix = fgl__amp_matrix;
    a.mixes = 1;
    return a;
}

#include "../../alone.h"
