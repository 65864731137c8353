#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:private */
#include "../../alone.h"
enum { FGL__OPT_AVGM, FGL__OPT_ADAGRAD, FGL__OPT_ADAM, FGL__OPT_YOGI }; /* fgl_algo.variant */
/* fgl:implementation */
#include "../../alone.h"
/* --- Server optimizers: FedAvgM, FedAdagrad, FedAdam, FedYogi --------------------------- */
/* Clients train and upload exactly as in FedAvg; the server treats the
 * change of the mean as a gradient-like step and runs an optimizer over it
 * (Reddi et al. 2021, "Adaptive Federated Optimization", Algorithm 2; FedAvgM
 * is Hsu et al. 2019's server momentum). With x the global shared vector and
 * mean the sample-weighted mean of the accepted uploads (the same mean FedAvg
 * takes, robust rules, DP and secure aggregation included):
 *     d = mean - x                                  (the pseudo-gradient, negated)
 *     FedAvgM:    m = beta1 m + d;                   x += eta m
 *     the others: m = beta1 m + (1 - beta1) d
 *                 FedAdagrad: v = v + d^2
 *                 FedAdam:    v = beta2 v + (1 - beta2) d^2
 *                 FedYogi:    v = v - (1 - beta2) d^2 sign(v - d^2)
 *                 x += eta m / (sqrt(v) + tau)
 * per coordinate, with m = 0 and v = tau^2 at the start (the paper's v_{-1} >=
 * tau^2) and no bias correction (the paper has none). FedAvgM with beta1 = 0
 * and eta = 1 is FedAvg, bit for bit (tested). beta1 = 0.9, beta2 = 0.99 and
 * tau = 1e-3 are the paper's fixed values; the paper tunes the server rate
 * eta per task. fgl's defaults come from a sweep on Cora over 10 METIS
 * clients (RESULTS.md, "Server optimizers"; 3 seeds, fgl's clients train
 * with Adam): 0.1 for FedAvgM (with beta1 = 0.9 its steady step is
 * eta / (1 - beta1) = 1 times the mean update, FedAvg's; eta = 1 diverged
 * to the majority class), 0.1 for FedAdagrad and 0.001 for FedAdam and
 * FedYogi (0.01 and above diverged). None of them beat FedAvg there. On
 * CHEM with batch norm (RESULTS.md, FedBN section) they end 0.3 to 2.6
 * points above FedAvg at any of the rates swept, far under FedBN. A round
 * with no accepted upload leaves the model and the moments as they were.
 * m and v live in the
 * server's store, so a checkpoint resumes them bit for bit.
 * Sent: as FedAvg, up 4 (n + 1), down 4 n bytes. */

typedef struct fgl__opt_params {
    fgl__avg_params avg;
    double eta, beta1;       /* server learning rate, first moment decay */
    double beta2, tau;       /* second moment decay, adaptivity (not FedAvgM) */
} fgl__opt_params;

/* The server's state: the global model x, the moments m and v (v: not
 * FedAvgM's), and the mean of the uploads. */
typedef struct fgl__opt_server {
    fgl__avg_server avg; /* x: "global" */
    float *m, *v, *mean;
} fgl__opt_server;

static int fgl__opt_server_init(fgl_server *s) {
    fgl__opt_server *st = FGL_NEW_STATE(fgl__opt_server, &s->store);
    size_t j;
    if (!st) return FGL_ERR_NOMEM;
    st->avg.global = fgl_server_global(s, "global"); /* the common initial model */
    st->m = fgl_new_floats(&s->store, "m", s->n_shared);
    st->mean = fgl_new_floats(&s->store, "mean", s->n_shared);
    if (!st->avg.global || !st->m || !st->mean) return FGL_ERR_NOMEM;
    if (s->algo->variant != FGL__OPT_AVGM) {
        float tau = (float)FGL_PARAMS(fgl__opt_params, s->set)->tau;
        if (!(st->v = fgl_new_floats(&s->store, "v", s->n_shared))) return FGL_ERR_NOMEM;
        for (j = 0; j < s->n_shared; j++) st->v[j] = tau * tau;
    }
    return FGL_OK;
}

static int fgl__opt_aggregate(fgl_server *s) {
    const fgl__opt_server *st = FGL_STATE(fgl__opt_server, &s->store);
    float *x = st->avg.global, *m = st->m, *mean = st->mean, *v = st->v;
    const fgl__opt_params *p = FGL_PARAMS(fgl__opt_params, s->set);
    double eta = p->eta, b1 = p->beta1;
    double b2 = s->algo->variant == FGL__OPT_AVGM ? 0 : p->beta2;
    double tau = s->algo->variant == FGL__OPT_AVGM ? 0 : p->tau;
    size_t j, n = s->n_shared;
    int rc;
    memcpy(mean, x, sizeof(float) * n); /* DP with no participant adds its noise to the model this holds */
    rc = fgl_server_mean(s, "theta", mean);
    if (rc) return rc; /* (FGL_ERR_EMPTY: nothing accepted, the model and the moments stay) */
    for (j = 0; j < n; j++) {
        double d = (double)mean[j] - x[j], d2 = d * d, mj, vj;
        if (s->algo->variant == FGL__OPT_AVGM) {
            mj = b1 * m[j] + d;
            m[j] = (float)mj;
            x[j] = (float)(x[j] + eta * mj);
            continue;
        }
        mj = b1 * m[j] + (1 - b1) * d;
        vj = v[j];
        switch (s->algo->variant) {
        case FGL__OPT_ADAGRAD: vj = vj + d2; break;
        case FGL__OPT_ADAM: vj = b2 * vj + (1 - b2) * d2; break;
        default: vj = vj - (1 - b2) * d2 * (vj > d2 ? 1.0 : vj < d2 ? -1.0 : 0.0); break; /* Yogi */
        }
        m[j] = (float)mj;
        v[j] = (float)vj;
        x[j] = (float)(x[j] + eta * mj / (sqrt(vj > 0 ? vj : 0) + tau));
    }
    return FGL_OK;
}

/* The parameters' ranges, checked when the run is made (fgl_run_init): the spec is left as it is. */
static int fgl__opt_check(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    const char *name = set->algo->name;
    const fgl__opt_params *p = FGL_PARAMS(fgl__opt_params, set);
    double eta = p->eta, b1 = p->beta1;
    (void)spec;
    if (!(eta > 0 && eta <= 1e3)) return fgl_error_set(err, FGL_ERR_RANGE, "%s: eta = %g, not in (0, 1000]", name, eta);
    if (!(b1 >= 0 && b1 < 1)) return fgl_error_set(err, FGL_ERR_RANGE, "%s: beta1 = %g, not in [0, 1)", name, b1);
    if (set->algo->variant != FGL__OPT_AVGM) {
        double b2 = p->beta2, tau = p->tau;
        if (!(b2 >= 0 && b2 < 1)) return fgl_error_set(err, FGL_ERR_RANGE, "%s: beta2 = %g, not in [0, 1)", name, b2);
        if (!(tau > 0 && tau <= 1e3)) return fgl_error_set(err, FGL_ERR_RANGE, "%s: tau = %g, not in (0, 1000]", name, tau);
    }
    return FGL_OK;
}

static fgl_algo fgl__fedopt_like(const char *name, const char *summary, int variant, double eta) {
    fgl_algo a = fgl__avg_base(name, summary, FGL_G_ALL, "parameter groups averaged");
    a.variant = variant;
    FGL_ALGO_PARAM(&a, fgl__opt_params, eta, FGL_PARAM_FLOAT, eta, "server learning rate");
    FGL_ALGO_PARAM(&a, fgl__opt_params, beta1, FGL_PARAM_FLOAT, 0.9, "server momentum (first moment decay)");
    if (variant != FGL__OPT_AVGM) {
        FGL_ALGO_PARAM(&a, fgl__opt_params, beta2, FGL_PARAM_FLOAT, 0.99, "second moment decay (FedAdam, FedYogi)");
        FGL_ALGO_PARAM(&a, fgl__opt_params, tau, FGL_PARAM_FLOAT, 1e-3, "adaptivity: added to sqrt(v); v starts at tau^2");
    }
    a.prepare_spec = fgl__opt_check;
    a.server_init = fgl__opt_server_init;
    a.aggregate = fgl__opt_aggregate;
    return a;
}

static fgl_algo fgl__fedavgm(void) {
    return fgl__fedopt_like("fedavgm", "Hsu et al. 2019: FedAvg with server momentum over the mean update",
                            FGL__OPT_AVGM, 0.1);
}

static fgl_algo fgl__fedadagrad(void) {
    return fgl__fedopt_like("fedadagrad", "Reddi et al. 2021: the mean update as a gradient for a server Adagrad",
                            FGL__OPT_ADAGRAD, 0.1);
}

static fgl_algo fgl__fedadam(void) {
    return fgl__fedopt_like("fedadam", "Reddi et al. 2021: the mean update as a gradient for a server Adam",
                            FGL__OPT_ADAM, 0.001);
}

static fgl_algo fgl__fedyogi(void) {
    return fgl__fedopt_like("fedyogi", "Reddi et al. 2021: the mean update as a gradient for a server Yogi",
                            FGL__OPT_YOGI, 0.001);
}
#include "../../alone.h"
