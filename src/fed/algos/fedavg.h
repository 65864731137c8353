#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- Weight averaging: FedAvg, FedProx, FedPer (FedStar: fedstar.h) --------------- */
/* One mechanism, four published defaults: the server keeps the global vector
 * of the shared groups; clients send those groups and their training-sample
 * count; the server averages by count:
 *     theta = sum_i n_i theta_i / sum_i n_i.
 * FedProx adds mu (theta - theta_global) to the gradient, the derivative of
 * mu/2 ||theta - theta_global||^2. Sent: up 4 (n + 1), down 4 n bytes. */

/* The parameters: the weight-averaging base's (FedAvg, Ditto, MOON and the
 * server optimizers extend it, their structs beginning with it), and the
 * FedAvg family's. */
typedef struct fgl__avg_params {
    unsigned share; /* the groups averaged */
} fgl__avg_params;

typedef struct fgl__fedavg_params {
    fgl__avg_params avg;
    double mu;   /* FedProx's proximal weight */
    int weights; /* FedAvg: 0 by samples, 1 equal */
} fgl__fedavg_params;

/* The server's state: the global vector (the algorithms that build on this
 * server begin their own struct with it). */
typedef struct fgl__avg_server {
    float *global;
} fgl__avg_server;

static int fgl__avg_server_init(fgl_server *s) {
    fgl__avg_server *st = FGL_NEW_STATE(fgl__avg_server, &s->store);
    if (!st || !(st->global = fgl_server_global(s, "global"))) return FGL_ERR_NOMEM; /* the common initial model */
    return FGL_OK;
}

static int fgl__avg_aggregate(fgl_server *s) {
    return fgl_server_mean(s, "theta", FGL_STATE(fgl__avg_server, &s->store)->global); /* (empty: the model stays) */
}

/* The weight-averaging base that FedAvg, Ditto and MOON extend: the share
 * parameter, the messages and the server. */
static fgl_algo fgl__avg_base(const char *name, const char *summary, unsigned share, const char *share_help) {
    fgl_algo a = fgl_algo_new(name, summary);
    FGL_ALGO_PARAM(&a, fgl__avg_params, share, FGL_PARAM_GROUPS, (double)share, share_help);
    fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, 0, 0, 0);
    fgl_algo_upload(&a, "n", FGL_SEND_WEIGHT, 0, 0, 0);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, 0, "global");
    a.server_init = fgl__avg_server_init;
    a.aggregate = fgl__avg_aggregate;
    return a;
}

static int fgl__prox_grad(fgl_client *c, const fgl_step *st) {
    float mu = (float)FGL_PARAMS(fgl__fedavg_params, c->set)->mu;
    if (mu > 0) fgl_client_prox_grad(c, &st->model->params, mu);
    return FGL_OK;
}

static fgl_algo fgl__fedavg_like(const char *name, const char *summary, unsigned share, const char *share_help,
                                 double mu, const char *mu_help) {
    fgl_algo a = fgl__avg_base(name, summary, share, share_help);
    FGL_ALGO_PARAM(&a, fgl__fedavg_params, mu, FGL_PARAM_FLOAT, mu, mu_help);
    a.train.grad = fgl__prox_grad;
    return a;
}

/* FedAvg's weights = equal (FED-PUB's code weighs every client alike):
 * theta = the plain mean of the uploads. */
static int fgl__fedavg_server_init(fgl_server *s) {
    int weights = FGL_PARAMS(fgl__fedavg_params, s->set)->weights;
    if (weights != 0 && weights != 1)
        return fgl_server_fail(s, FGL_ERR_ARG, "fedavg: weights must be samples (0) or equal (1), not %d", weights);
    if (weights == 1 && (s->fed->secagg.on || s->fed->robust.rule == FGL_ROBUST_NORMCLIP))
        return fgl_server_fail(s, FGL_ERR_ARG, "fedavg: weights=equal is not defined with %s, which weigh by samples",
                               s->fed->secagg.on ? "secure aggregation" : "normclip");
    return fgl__avg_server_init(s);
}

static int fgl__fedavg_aggregate(fgl_server *s) {
    float *global = FGL_STATE(fgl__avg_server, &s->store)->global;
    return FGL_PARAMS(fgl__fedavg_params, s->set)->weights == 1 ? fgl_server_plain_mean(s, "theta", global)
                                                                 : fgl_server_mean(s, "theta", global);
}

static fgl_algo fgl__fedavg(void) {
    fgl_algo a = fgl__fedavg_like("fedavg", "McMahan et al. 2017: average the shared parameters weighted by training "
                                  "samples", FGL_G_ALL, "parameter groups averaged", 0.0, "proximal weight (FedProx)");
    FGL_ALGO_PARAM(&a, fgl__fedavg_params, weights, FGL_PARAM_INT, 0, "clients weighted by training samples (samples, the "
                       "default) or alike (equal: FED-PUB's code)");
    fgl_algo_param_choices(&a, "weights", "samples|equal");
    a.server_init = fgl__fedavg_server_init;
    a.aggregate = fgl__fedavg_aggregate;
    return a;
}

static fgl_algo fgl__fedprox(void) {
    return fgl__fedavg_like("fedprox", "Li et al. 2020: FedAvg plus a proximal term to the global model", FGL_G_ALL,
                            "parameter groups averaged", 0.01, "proximal weight mu/2 ||theta - theta_global||^2");
}

static fgl_algo fgl__fedper(void) {
    return fgl__fedavg_like("fedper", "Arivazhagan et al. 2019: FedAvg of everything but the personal classifier head",
                            FGL_G_ALL & ~(unsigned)FGL_G_HEAD,
                            "parameter groups averaged (all but the classifier head)", 0.0, "proximal weight");
}
#include "../../alone.h"
