#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:private */
#include "../../alone.h"
enum { FGL__CV_SCAFFOLD, FGL__CV_FEDDC }; /* fgl_algo.variant */
/* fgl:implementation */
#include "../../alone.h"
/* --- SCAFFOLD: control variates (FedDC, feddc.h, shares them) --------------------- */
/* Notation of docs/algorithms.md: theta the shared parameters (n floats),
 * m the floats of their *trainable* slices (control variates and drifts live
 * there: batch-norm statistics and fixed GIN epsilons have no gradient to
 * correct), K clients, n_i training samples.
 *
 * SCAFFOLD (Karimireddy et al. 2020). Server: theta and its control variate
 * c (m). Client i: its variate c_i (m). Local steps use the gradient
 * g + c - c_i. After training (option II of the paper)
 *     c_i+ = c_i - c + (theta_global - theta_i) / (steps * lr),
 * steps = the optimizer steps taken, lr = the client's optimizer lr. The
 * formula assumes plain SGD; fgl applies it with whatever optimizer the
 * client is configured with (Adam by the protocols), as the published graph
 * FL baselines do: with Adam the variates are a rescaled mean update
 * direction rather than a mean gradient, of about unit size per
 * coordinate, which swamps the gradients (on Cora it stalls at the majority
 * class). variate = 1 replaces it by the mean uncorrected gradient of the
 * local steps: the same under plain SGD (tested), gradient-sized under Adam.
 * Sent: down theta + c = 4 (n + m) bytes; up dtheta = theta_i - theta_global
 * (n), dc = c_i+ - c_i (m) and n_i (1) = 4 (n + m + 1) bytes.
 * Server: theta += sum n_i dtheta_i / sum n_i (global lr 1);
 *         c += (|S| / K) mean_S dc_i, S the accepted uploads.
 *
 *
 * FedDC (feddc.h) is built on the same machinery (its drift and weighted
 * variates are the FGL__CV_FEDDC branches below). */

/* The parameters: the control-variate base's (SCAFFOLD's), and FedDC's,
 * which its branches below read. */
typedef struct fgl__cv_params {
    unsigned share; /* the groups averaged and corrected */
    int variate;    /* 1: mean uncorrected gradient; 0: option II */
} fgl__cv_params;

typedef struct fgl__feddc_params {
    fgl__cv_params cv;
    double alpha; /* the drift penalty */
    int weighted; /* 1: alpha and variates scaled by w_i; 0: w_i = 1 */
} fgl__feddc_params;

/* The state. Server: theta, its variate c, FedDC's w_i. Client: its variate
 * c_i, the round's dc_i, the sum of the round's gradients (scratch), FedDC's
 * drift h_i. */
typedef struct fgl__cv_server {
    float *theta, *c, *w;
} fgl__cv_server;

typedef struct fgl__cv_client {
    float *ci, *dc;
    double *gsum;
    float *h;
} fgl__cv_client;

static int fgl__cv_server_init(fgl_server *s) {
    fgl__cv_server *st = FGL_NEW_STATE(fgl__cv_server, &s->store);
    if (!st) return FGL_ERR_NOMEM;
    st->theta = fgl_server_global(s, "theta"); /* the common initial model */
    st->c = fgl_new_floats(&s->store, "c", s->n_trainable);
    if (!st->theta) return FGL_ERR_NOMEM;
    if (s->algo->variant == FGL__CV_FEDDC) { /* relative data sizes, from registration */
        float *w = st->w = fgl_new_floats(&s->store, "w", (size_t)s->n_clients);
        double total = 0;
        int i, weighted = FGL_PARAMS(fgl__feddc_params, s->set)->weighted != 0;
        if (!w) return FGL_ERR_NOMEM;
        for (i = 0; i < s->n_clients; i++) total += s->n_registered[i];
        for (i = 0; i < s->n_clients; i++)
            w[i] = weighted && total > 0 ? (float)(s->n_clients * (double)s->n_registered[i] / total) : 1.0f;
    }
    return s->store.err.code;
}

static int fgl__cv_client_init(fgl_client *c) {
    fgl__cv_client *st = FGL_NEW_STATE(fgl__cv_client, &c->store);
    if (!st) return FGL_ERR_NOMEM;
    st->ci = fgl_new_floats(&c->store, "ci", c->n_trainable);
    st->dc = fgl_new_floats(&c->store, "dc", c->n_trainable);
    st->gsum = (double *)fgl_new_scratch(&c->store, "gsum", sizeof(double) * FGL__MAX(c->n_trainable, 1),
                                         NULL); /* reset every round */
    if (c->algo->variant == FGL__CV_FEDDC) st->h = fgl_new_floats(&c->store, "h", c->n_trainable);
    return c->store.err.code;
}

/* w_i as received (FedDC), 1 for SCAFFOLD. */
static float fgl__cv_w(const fgl_client *c) {
    const float *w = c->algo->variant == FGL__CV_FEDDC ? fgl_down(c, "w") : NULL;
    return w ? w[0] : 1.0f;
}

static int fgl__cv_receive(fgl_client *c) {
    float w = fgl__cv_w(c);
    if (!(w > 0)) return fgl_client_fail(c, FGL_ERR_ARG, "feddc: weight %g", (double)w);
    return FGL_OK;
}

/* The local gradient on the trainable shared floats (k: their index): with a
 * drift (FedDC) first g += a (theta + h_i - theta_global), a = alpha_i; then,
 * variate 1, the gradient so far into the round's sum; then the correction
 * g += c/w_i - c_i (SCAFFOLD: w_i = 1, g += c - c_i). */
static int fgl__cv_grad(fgl_client *c, const fgl_step *st) {
    fgl_params *ps = &st->model->params;
    const fgl__cv_client *cs = FGL_STATE(fgl__cv_client, &c->store);
    const float *ci = cs->ci, *crecv = fgl_down(c, "c"), *w0 = fgl_received(c);
    const float *h = c->algo->variant == FGL__CV_FEDDC ? cs->h : NULL;
    double *gsum = cs->gsum;
    int variate = FGL_PARAMS(fgl__cv_params, c->set)->variate != 0, q;
    float wi = fgl__cv_w(c), inv_w = 1.0f / wi, a = h ? (float)FGL_PARAMS(fgl__feddc_params, c->set)->alpha / wi : 0.0f;
    size_t j;
    for (q = 0; q < c->n_span; q++) {
        const fgl_span *sp = &c->span[q];
        float *g = ps->grad + sp->offset;
        const float *w = ps->data + sp->offset, *r = w0 + sp->packed;
        if (!sp->trainable) continue;
        for (j = 0; j < sp->len; j++) {
            size_t k = sp->trained + j;
            if (h) g[j] += a * (w[j] + h[k] - r[j]);
            if (variate) gsum[k] += g[j];
            g[j] += inv_w * crecv[k] - ci[k];
        }
    }
    return FGL_OK;
}

/* Local training, then on the trainable shared floats: dtheta = theta_i -
 * theta_global, FedDC's drift h_i += dtheta, and the new variate
 *   variate 0: c_i+ = c_i - c/w_i - dtheta / (steps lr)  (w_i = 1 for SCAFFOLD)
 *   variate 1: c_i+ = the mean over the local steps of the gradient before
 *              the correction was added;
 * dc_i = w_i (c_i+ - c_i) is what the upload carries. */
static int fgl__cv_train(fgl_client *c) {
    const fgl__cv_client *cs = FGL_STATE(fgl__cv_client, &c->store);
    float *ci = cs->ci, *dc = cs->dc;
    float *h = c->algo->variant == FGL__CV_FEDDC ? cs->h : NULL;
    const float *crecv = fgl_down(c, "c"), *w0 = fgl_received(c);
    double *gsum = cs->gsum, lr_steps, inv;
    int variate = FGL_PARAMS(fgl__cv_params, c->set)->variate != 0, q, rc;
    float wi = fgl__cv_w(c);
    size_t j;
    memset(gsum, 0, sizeof(double) * c->n_trainable);
    if ((rc = fgl_client_train(c, &c->model, &c->optim, &c->algo->train))) return rc;
    lr_steps = (double)c->steps * (double)c->optim.cfg.lr;
    inv = lr_steps > 0 ? 1.0 / lr_steps : 0.0;
    for (q = 0; q < c->n_span; q++) {
        const fgl_span *sp = &c->span[q];
        const float *now = c->model.params.data + sp->offset, *before = w0 + sp->packed;
        if (!sp->trainable) continue;
        for (j = 0; j < sp->len; j++) {
            size_t k = sp->trained + j;
            double d = (double)now[j] - before[j];
            float ci_new = c->steps == 0 ? ci[k]
                           : variate    ? (float)(gsum[k] / c->steps)
                                        : (float)(ci[k] - (double)crecv[k] / wi - d * inv);
            if (h) h[k] = (float)(h[k] + d);
            dc[k] = (ci_new - ci[k]) * wi;
            ci[k] = ci_new;
        }
    }
    return FGL_OK;
}

static int fgl__cv_upload(fgl_client *c) {
    const fgl__cv_client *cs = FGL_STATE(fgl__cv_client, &c->store);
    memcpy(fgl_up(c, "dc"), cs->dc, sizeof(float) * c->n_trainable);
    if (c->algo->variant == FGL__CV_FEDDC) { /* theta_i + h_i; h only on trainable floats */
        float *th = fgl_up(c, "theta_h");
        const float *h = cs->h;
        int q;
        size_t j;
        for (q = 0; q < c->n_span; q++) {
            const fgl_span *sp = &c->span[q];
            const float *w = c->model.params.data + sp->offset;
            for (j = 0; j < sp->len; j++) th[sp->packed + j] = sp->trainable ? w[j] + h[sp->trained + j] : w[j];
        }
    }
    return FGL_OK;
}

/* c += (|S| / K) mean_S dc_i, i.e. (1/K) sum_S dc_i. */
static int fgl__cv_update_c(fgl_server *s) {
    float *c = FGL_STATE(fgl__cv_server, &s->store)->c,
          *tmp = (float *)fgl_scratch(&s->store, sizeof(float) * FGL__MAX(s->n_trainable, 1));
    double frac = (double)s->n_accepted / s->n_clients;
    size_t k;
    int rc;
    if (!tmp) return FGL_ERR_NOMEM;
    if ((rc = fgl_server_plain_mean(s, "dc", tmp))) return rc;
    for (k = 0; k < s->n_trainable; k++) c[k] = (float)(c[k] + frac * tmp[k]);
    return FGL_OK;
}

static int fgl__scaf_aggregate(fgl_server *s) {
    float *theta = FGL_STATE(fgl__cv_server, &s->store)->theta,
          *tmp = (float *)fgl_scratch(&s->store, sizeof(float) * FGL__MAX(s->n_shared, 1));
    size_t k;
    int rc;
    if (!tmp) return FGL_ERR_NOMEM;
    rc = fgl_server_mean(s, "dtheta", tmp);
    if (rc) return rc; /* (FGL_ERR_EMPTY: nothing accepted, the server state stays) */
    for (k = 0; k < s->n_shared; k++) theta[k] += tmp[k];
    return fgl__cv_update_c(s);
}

static fgl_algo fgl__cv_base(const char *name, const char *summary, const char *share_help) {
    fgl_algo a = fgl_algo_new(name, summary);
    FGL_ALGO_PARAM(&a, fgl__cv_params, share, FGL_PARAM_GROUPS, (double)FGL_G_ALL, share_help);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, 0, "theta");
    fgl_algo_download(&a, "c", FGL_SEND_DATA, FGL_DIM_TRAINABLE, 1, 0, "c");
    a.server_init = fgl__cv_server_init;
    a.client_init = fgl__cv_client_init;
    a.receive = fgl__cv_receive;
    a.local_train = fgl__cv_train;
    a.train.grad = fgl__cv_grad;
    a.upload = fgl__cv_upload;
    return a;
}

static fgl_algo fgl__scaffold(void) {
    fgl_algo a = fgl__cv_base("scaffold",
                              "Karimireddy et al. 2020: FedAvg with server/client control variates "
                              "correcting client drift",
                              "parameter groups averaged and corrected by the control variates");
    FGL_ALGO_PARAM(
        &a, fgl__cv_params, variate, FGL_PARAM_INT, 1,
        "1: mean uncorrected gradient of the local steps (option I of the paper when, as in full-batch node "
        "tasks, the one step starts at the global model); 0: c_i+ = c_i - c + (theta_global - theta_i)/(steps lr) "
        "(option II, which assumes SGD: under the protocols' Adam it stalls, Cora/5 clients/30 rounds 30% vs 76%)");
    fgl_algo_upload(&a, "dtheta", FGL_SEND_DELTA, 0, 0, 0);
    /* dc reaches the server's c through the plain mean (SCAFFOLD's update of c) */
    fgl_algo_upload(&a, "dc", FGL_SEND_DATA, FGL_DIM_TRAINABLE, 1, FGL_PART_RAW);
    fgl_algo_upload(&a, "n", FGL_SEND_WEIGHT, 0, 0, 0);
    a.aggregate = fgl__scaf_aggregate;
    a.variant = FGL__CV_SCAFFOLD;
    return a;
}
#include "../../alone.h"
