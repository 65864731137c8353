#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- MOON (Li, He and Song 2021) --------------------------------------------------- */
/* FedAvg's messages and server (down 4 n, up 4 (n + 1) bytes) with a
 * model-contrastive term in the local loss:
 *     mu * mean_rows -log( e^{cos(z, z_glob)/T} / (e^{cos(z, z_glob)/T} + e^{cos(z, z_prev)/T}) )
 * z = the representation the classifier reads (fwd.rep: activated node
 * embeddings, or the graph readout) of the model being trained, z_glob of
 * the model received this round, z_prev of this client's model after its
 * previous local training. Rows: the step's training rows (train nodes, or
 * the graphs of the batch). The two reference models run on the same graph
 * in evaluation mode (no dropout, running batch-norm statistics: MOON's code
 * uses them frozen) on a scratch tape; their outputs enter the loss as
 * constants, so gradients reach only the local model. The paper applies the
 * term from the second round (no previous model before: its pool is empty),
 * as here. T = 0.5 (paper and code); mu = 1, the code's default and the
 * paper's value for CIFAR-100/Tiny-ImageNet (5 for CIFAR-10). MOON's
 * projection head is not added: z is the model's own representation. */

typedef struct fgl__moon_params {
    fgl__avg_params avg;
    double mu;          /* the contrastive term's weight */
    double temperature; /* the cosines' temperature */
} fgl__moon_params;

/* A client's state: the global model as the round starts, its own previous
 * model (and whether it has one yet), and a tape for their forward passes. */
typedef struct fgl__moon_client {
    fgl_model *glob, *prev;
    int *has_prev;
    fgl_tape *ref;
} fgl__moon_client;

static int fgl__moon_client_init(fgl_client *c) {
    fgl__moon_client *st = FGL_NEW_STATE(fgl__moon_client, &c->store);
    if (!st) return FGL_ERR_NOMEM;
    st->glob = fgl_new_model(&c->store, "glob", &c->model.spec, c->fed->seed); /* refilled before every training */
    st->prev = fgl_new_model(&c->store, "prev", &c->model.spec, c->fed->seed);
    st->has_prev = fgl_new_ints(&c->store, "has_prev", 1);
    st->ref = fgl_new_tape(&c->store, "ref");
    return c->store.err.code;
}

/* The representation of a reference model on the step's graph, copied onto
 * the training tape as a constant (NULL on error, recorded on the client). */
static fgl_node *fgl__moon_ref(fgl_client *c, fgl_model *m, const fgl_step *st) {
    fgl_tape *ref = FGL_STATE(fgl__moon_client, &c->store)->ref;
    fgl_forward fw;
    float *copy;
    size_t bytes;
    fgl_tape_reset(ref);
    if (fgl_model_forward(m, ref, st->g, 0, NULL, &fw) || !fw.rep) {
        fgl_client_fail(c, ref->err.code ? ref->err.code : FGL_ERR_ARG, "moon reference model: %s", ref->err.msg);
        return NULL;
    }
    bytes = sizeof(float) * (size_t)fw.rep->rows * (size_t)fw.rep->cols;
    copy = (float *)fgl_tape_alloc(st->t, bytes);
    if (!copy) return NULL;
    memcpy(copy, fw.rep->val, bytes);
    return fgl_op_const(st->t, copy, fw.rep->rows, fw.rep->cols);
}

static fgl_node *fgl__moon_loss(fgl_client *c, const fgl_step *st) {
    const fgl__moon_params *p = FGL_PARAMS(fgl__moon_params, c->set);
    const fgl__moon_client *ms = FGL_STATE(fgl__moon_client, &c->store);
    float mu = (float)p->mu, T = (float)p->temperature;
    fgl_node *z = st->fwd->rep, *zg, *zp, *logits;
    int *zeros;
    if (!ms->has_prev[0] || mu == 0 || !z) return NULL;
    zg = fgl__moon_ref(c, ms->glob, st);
    zp = zg ? fgl__moon_ref(c, ms->prev, st) : NULL;
    if (!zg || !zp) return NULL;
    zeros = (int *)fgl_tape_alloc(st->t, sizeof(int) * (size_t)FGL__MAX(z->rows, 1)); /* label 0: the positive pair */
    if (!zeros) return NULL;
    logits = fgl_op_scale(
        st->t, fgl_op_concat2(st->t, fgl_op_cosine_rows(st->t, z, zg), fgl_op_cosine_rows(st->t, z, zp)), 1.0f / T);
    return fgl_op_scale(st->t, fgl_op_cross_entropy(st->t, logits, zeros, st->mask), mu);
}

static int fgl__moon_train(fgl_client *c) {
    const fgl__moon_client *ms = FGL_STATE(fgl__moon_client, &c->store);
    fgl_model *glob = ms->glob, *prev = ms->prev;
    int rc;
    if (!(FGL_PARAMS(fgl__moon_params, c->set)->temperature > 0))
        return fgl_client_fail(c, FGL_ERR_ARG, "moon: temperature must be positive");
    if ((rc = fgl_params_copy(&glob->params, &c->model.params, FGL_G_ALL))) /* the model as it starts the round */
        return fgl_client_fail(c, rc, "moon: model layout changed");
    if ((rc = fgl_client_train(c, &c->model, &c->optim, &c->algo->train))) return rc;
    if ((rc = fgl_params_copy(&prev->params, &c->model.params, FGL_G_ALL)))
        return fgl_client_fail(c, rc, "moon: model layout changed");
    ms->has_prev[0] = 1;
    return FGL_OK;
}

static fgl_algo fgl__moon(void) {
    fgl_algo a = fgl__avg_base("moon",
                               "Li et al. 2021: FedAvg plus a contrastive term pulling representations to the "
                               "global model's, away from the previous local model's",
                               FGL_G_ALL, "parameter groups averaged");
    FGL_ALGO_PARAM(&a, fgl__moon_params, mu, FGL_PARAM_FLOAT, 1.0, "weight of the model-contrastive term");
    FGL_ALGO_PARAM(&a, fgl__moon_params, temperature, FGL_PARAM_FLOAT, 0.5, "cosine temperature T");
    a.client_init = fgl__moon_client_init;
    a.local_train = fgl__moon_train;
    a.train.loss = fgl__moon_loss;
    return a;
}

#include "../../alone.h"
