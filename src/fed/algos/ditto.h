#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- Ditto (Li et al. 2021) ------------------------------------------------------- */
/* FedAvg's global model (its messages and server: down 4 n, up 4 (n + 1)
 * bytes). Each client also keeps a personal model v_i (same spec, own
 * optimizer, never sent) trained every round, after the global copy, on
 *     CE(v_i) + lambda/2 ||v_i - theta_global||^2
 * over the shared groups, theta_global = the model received this round
 * (Ditto's Algorithm 1). Evaluation uses v_i. lambda = 1: docs/algorithms.md
 * gives none; 1 is the default of the Ditto baseline in the pFedGraph
 * authors' code, inside the Ditto paper's grid. The reported training loss
 * is the personal model's (the one evaluated). */

typedef struct fgl__ditto_params {
    fgl__avg_params avg;
    double lambda; /* the personal model's proximal weight */
} fgl__ditto_params;

/* A client's state: the personal model v_i and its optimizer. */
typedef struct fgl__ditto_client {
    fgl_model *personal;
    fgl_optim *personal_optim;
} fgl__ditto_client;

static int fgl__ditto_client_init(fgl_client *c) {
    fgl__ditto_client *st = FGL_NEW_STATE(fgl__ditto_client, &c->store);
    /* same spec and seed: v_i starts equal to the client's model */
    if (!st || !(st->personal = fgl_new_model(&c->store, "personal", &c->model.spec, c->fed->seed)))
        return FGL_ERR_NOMEM;
    st->personal_optim = fgl_new_optim(&c->store, "personal_optim", c->fed->optim, &st->personal->params);
    return c->store.err.code;
}

static int fgl__ditto_grad(fgl_client *c, const fgl_step *st) {
    float lambda = (float)FGL_PARAMS(fgl__ditto_params, c->set)->lambda;
    if (lambda != 0) fgl_client_prox_grad(c, &st->model->params, lambda);
    return FGL_OK;
}

static int fgl__ditto_train(fgl_client *c) {
    const fgl__ditto_client *st = FGL_STATE(fgl__ditto_client, &c->store);
    fgl_train_hooks personal;
    int rc = fgl_client_train(c, &c->model, &c->optim, NULL); /* the global copy: plain FedAvg */
    if (rc) return rc;
    memset(&personal, 0, sizeof personal);
    personal.grad = fgl__ditto_grad;
    return fgl_client_train(c, st->personal, st->personal_optim, &personal);
}

static fgl_model *fgl__ditto_eval(fgl_client *c) { return FGL_STATE(fgl__ditto_client, &c->store)->personal; }

static fgl_algo fgl__ditto(void) {
    fgl_algo a = fgl__avg_base(
        "ditto",
        "Li et al. 2021: FedAvg global model plus a personal model pulled towards it, "
        "evaluated personally",
        FGL_G_ALL, "parameter groups of the global model (averaged) and of the personal model's proximal term");
    FGL_ALGO_PARAM(&a, fgl__ditto_params, lambda, FGL_PARAM_FLOAT, 1.0,
                       "personal model's proximal weight lambda/2 ||v_i - theta_global||^2");
    a.client_init = fgl__ditto_client_init;
    a.local_train = fgl__ditto_train;
    a.eval_model = fgl__ditto_eval;
    return a;
}

#include "../../alone.h"
