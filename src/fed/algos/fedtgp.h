#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- FedTGP (Zhang et al., AAAI 2024) --------------------------------------------- */
/* FedProto's client side (fedproto.h: what is sent, the client loss), with
 * trainable global prototypes on the server.
 * The server: P_c = MLP(anchor_c), anchors C x d (N(0,1) init, as
 * nn.Embedding), MLP Linear(d, h) -> ReLU -> Linear(h, d) (h = d; PyTorch's
 * default Linear init), trained each round for server_steps full-batch Adam
 * steps (lr 0.01; the authors: SGD on mini-batches of 10 prototypes for
 * server_epochs epochs) on, over every uploaded prototype p of class c,
 * CE(-(dist(p, P) + delta onehot_c)) = -log(e^-(d(p,P_c)+delta) /
 * (e^-(d(p,P_c)+delta) + sum_{c' != c} e^-d(p,P_c'))), with margin
 * delta = min(gap, tau); Q_c is the plain mean of the uploaded p_c and gap,
 * as in the authors' code, max over classes c of min_{c' != c} ||Q_c - Q_c'||
 * (margin_rule=1: the paper's max over pairs ||Q_c - Q_c'||); fewer than two
 * classes uploaded: delta = tau. Every class gets a global prototype. The
 * anchors, MLP and Adam state persist across rounds (checkpointed). */

/* The trainable prototype generator of FedTGP and FedPG: `rows` anchors
 * (N(0, 1), as nn.Embedding) through one shared Linear(d, h) -> ReLU ->
 * Linear(h, d) (PyTorch's default Linear init), optionally L2-normalised
 * (FedPG), with its Adam state; drawn from the run seed and `stream`. All of
 * it is run-managed (checkpointed): params "tgp", optimizer "tgp_optim",
 * tape "tgp_tape", which fgl__tgp_init creates and points g's members to
 * (g: a member of the algorithm's typed state). Slices 0..4: */
enum { FGL__TGP_ANCHOR, FGL__TGP_W1, FGL__TGP_B1, FGL__TGP_W2, FGL__TGP_B2 };

typedef struct fgl__tgp_gen {
    fgl_params *tgp;       /* anchors and MLP */
    fgl_optim *tgp_optim;  /* their Adam state */
    fgl_tape *tgp_tape;    /* the server's tape */
} fgl__tgp_gen;

static int fgl__tgp_init(fgl_server *s, fgl__tgp_gen *g, int rows, int d, int h, float lr, float wd, uint64_t stream) {
    fgl_params *ps;
    fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
    fgl_rng r;
    size_t k;
    float *a;
    if (!(ps = g->tgp = fgl_new_params(&s->store, "tgp"))) return FGL_ERR_NOMEM;
    if (fgl_params_add(ps, "tgp.anchor", rows, d, FGL_G_OTHER, 1) < 0 ||
        fgl_params_add(ps, "tgp.w1", d, h, FGL_G_OTHER, 1) < 0 ||
        fgl_params_add(ps, "tgp.b1", 1, h, FGL_G_OTHER, 1) < 0 ||
        fgl_params_add(ps, "tgp.w2", h, d, FGL_G_OTHER, 1) < 0 ||
        fgl_params_add(ps, "tgp.b2", 1, d, FGL_G_OTHER, 1) < 0)
        return FGL_ERR_NOMEM;
    fgl_rng_init(&r, s->fed->seed, stream);
    a = fgl_params_data(ps, FGL__TGP_ANCHOR);
    for (k = 0; k < (size_t)rows * (size_t)d; k++) a[k] = (float)fgl_rng_normal(&r);
    fgl_params_fan_in_uniform(ps, FGL__TGP_W1, d, &r);
    fgl_params_fan_in_uniform(ps, FGL__TGP_B1, d, &r);
    fgl_params_fan_in_uniform(ps, FGL__TGP_W2, h, &r);
    fgl_params_fan_in_uniform(ps, FGL__TGP_B2, h, &r);
    oc.lr = lr;
    oc.weight_decay = wd;
    g->tgp_optim = fgl_new_optim(&s->store, "tgp_optim", oc, ps);
    g->tgp_tape = fgl_new_tape(&s->store, "tgp_tape");
    return s->store.err.code;
}

/* P = MLP(anchors) on the server's tape: every anchor, or the n rows idx. */
static fgl_node *fgl__tgp_forward(fgl_tape *t, fgl_params *ps, const int *idx, int n, int normalize) {
    fgl_node *a = fgl_op_param(t, ps, FGL__TGP_ANCHOR), *h, *P;
    if (idx) a = fgl_op_gather_rows(t, a, idx, n);
    h = fgl_op_relu(
        t, fgl_op_bias(t, fgl_op_matmul(t, a, fgl_op_param(t, ps, FGL__TGP_W1)), fgl_op_param(t, ps, FGL__TGP_B1)));
    P = fgl_op_bias(t, fgl_op_matmul(t, h, fgl_op_param(t, ps, FGL__TGP_W2)), fgl_op_param(t, ps, FGL__TGP_B2));
    return normalize ? fgl_op_l2_normalize_rows(t, P, 0) : P;
}

/* The adaptive margin of m query prototypes U (rows) of classes y in 0..C-1:
 * Q_c the plain mean of the rows of class c, gap = max over classes c of
 * min_{c' != c} ||Q_c - Q_c'|| (margin_rule 0, FedTGP's code) or the largest
 * pairwise ||Q_c - Q_c'|| (margin_rule 1, its paper); min(gap, tau), or tau
 * when fewer than two classes are present. Sums in double, row order. */
static int fgl__tgp_margin(fgl_store *st, const float *U, const int *y, int m, int C, int d, int margin_rule, float tau,
                           double *delta) {
    double *Q = (double *)fgl_scratch(st, sizeof(double) * (size_t)C * (size_t)d), gap = 0;
    int *qn = (int *)fgl_scratch(st, sizeof(int) * (size_t)C), i, cl, c2, k, n_present = 0;
    if (!Q || !qn) return FGL_ERR_NOMEM;
    for (i = 0; i < m; i++) {
        for (k = 0; k < d; k++) Q[(size_t)y[i] * d + k] += U[(size_t)i * d + k];
        qn[y[i]]++;
    }
    for (cl = 0; cl < C; cl++)
        if (qn[cl]) {
            n_present++;
            for (k = 0; k < d; k++) Q[(size_t)cl * d + k] /= qn[cl];
        }
    for (cl = 0; cl < C; cl++) {
        double nearest = -1;
        if (!qn[cl]) continue;
        for (c2 = 0; c2 < C; c2++) {
            double dist = 0;
            if (c2 == cl || !qn[c2]) continue;
            for (k = 0; k < d; k++)
                dist +=
                    (Q[(size_t)cl * d + k] - Q[(size_t)c2 * d + k]) * (Q[(size_t)cl * d + k] - Q[(size_t)c2 * d + k]);
            dist = sqrt(dist);
            if (margin_rule) {
                if (dist > gap) gap = dist;
            } else if (nearest < 0 || dist < nearest) {
                nearest = dist;
            }
        }
        if (!margin_rule && nearest > gap) gap = nearest;
    }
    *delta = n_present < 2 ? tau : FGL__MIN(gap, (double)tau);
    return FGL_OK;
}

/* `steps` full-batch Adam steps of the generator on the adaptive-margin
 * contrastive loss of m query prototypes U of classes y against the
 * generated prototypes P (the C anchors idx, or all of them):
 * CE(-(dist(U, P) + delta onehot_y)). *loss: the last step's loss. */
static int fgl__tgp_fit(fgl_server *s, const fgl__tgp_gen *g, const float *U, const int *y, int m, int C, int d,
                        const int *idx, double delta, int steps, int normalize, double *loss) {
    fgl_params *ps = g->tgp;
    fgl_optim *opt = g->tgp_optim;
    fgl_tape *t = g->tgp_tape;
    float *M = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)FGL__MAX(m, 1) * (size_t)C);
    int i, step;
    if (!M) return FGL_ERR_NOMEM;
    for (i = 0; i < m; i++) M[(size_t)i * C + y[i]] = (float)delta;
    for (step = 0; step < steps; step++) {
        fgl_node *P, *dist, *l;
        fgl_tape_reset(t);
        fgl_params_zero_grad(ps);
        P = fgl__tgp_forward(t, ps, idx, C, normalize);
        dist = fgl_op_add(t, fgl_op_pairwise_dist(t, fgl_op_const(t, U, m, d), P), fgl_op_const(t, M, m, C));
        l = fgl_op_cross_entropy(t, fgl_op_scale(t, dist, -1.0f), y, NULL);
        if (fgl_tape_backward(t, l))
            return fgl_server_fail(s, t->err.code, "%s: server training: %s", s->algo->name, t->err.msg);
        *loss = l->val[0];
        fgl_optim_step(opt, ps);
    }
    fgl_tape_reset(t);
    return FGL_OK;
}

/* The parameters: the prototype family's, and FedTGP's server's. */
typedef struct fgl__fedtgp_params {
    fgl__proto_params proto;
    int server_steps;  /* full-batch server steps per round */
    double server_lr;  /* the server's Adam learning rate */
    double tau;        /* the margin's cap */
    int margin_rule;   /* 0: nearest-class gap (code); 1: largest pairwise gap (paper) */
    int server_hidden; /* the MLP's hidden width (0: d) */
} fgl__fedtgp_params;

/* The server's state: FedProto's, and the generator. */
typedef struct fgl__fedtgp_server {
    fgl__proto_server proto;
    fgl__tgp_gen gen;
} fgl__fedtgp_server;

/* FedTGP's server: anchors C x d, MLP hidden h (server_hidden, 0: d). */
static int fgl__tgp_server_init(fgl_server *s) {
    const fgl__fedtgp_params *p = FGL_PARAMS(fgl__fedtgp_params, s->set);
    int C = (int)fgl_server_up_size(s, "counts"), d = (int)(fgl_server_up_size(s, "protos") / (size_t)FGL__MAX(C, 1));
    int h = p->server_hidden > 0 ? p->server_hidden : d, rc;
    fgl__fedtgp_server *st;
    if (p->server_steps < 0 || !(p->server_lr >= 0) || !(p->tau >= 0))
        return fgl_server_fail(s, FGL_ERR_ARG, "fedtgp: server_steps, server_lr and tau must be non-negative");
    if ((rc = fgl__proto_server_init(s))) return rc;
    if (!(st = FGL_NEW_STATE(fgl__fedtgp_server, &s->store))) return FGL_ERR_NOMEM; /* FedProto's, extended */
    return fgl__tgp_init(s, &st->gen, C, d, h, (float)p->server_lr, 0.0f, 0x464544544750ull); /* "FEDTGP" */
}

static int fgl__fedtgp_aggregate(fgl_server *s) {
    const fgl__fedtgp_params *p = FGL_PARAMS(fgl__fedtgp_params, s->set);
    const fgl__fedtgp_server *st = FGL_STATE(fgl__fedtgp_server, &s->store);
    int C = (int)fgl_server_up_size(s, "counts"), d = (int)(fgl_server_up_size(s, "protos") / (size_t)FGL__MAX(C, 1)),
        K = s->n_clients, m = 0, i, cl, rc;
    int steps = p->server_steps;
    fgl_params *ps = st->gen.tgp;
    fgl_tape *t = st->gen.tgp_tape;
    float *U, *last = st->proto.last;
    int *y, *has = st->proto.has;
    double delta, loss = 0;
    fgl_node *P;
    for (i = 0; i < K; i++)
        if (s->up[i])
            for (cl = 0; cl < C; cl++) m += fgl_upload(s, i, "counts")[cl] > 0;
    if (m == 0) return FGL_OK; /* nothing uploaded: keep the prototypes */
    U = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)m * (size_t)d);
    y = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)m);
    if (!U || !y) return FGL_ERR_NOMEM;
    /* the uploaded prototypes, client order, then class order */
    m = 0;
    for (i = 0; i < K; i++) {
        const float *protos = fgl_upload(s, i, "protos"), *counts = fgl_upload(s, i, "counts");
        if (!protos) continue;
        for (cl = 0; cl < C; cl++) {
            if (counts[cl] <= 0) continue;
            memcpy(U + (size_t)m * d, protos + (size_t)cl * d, sizeof(float) * (size_t)d);
            y[m++] = cl;
        }
    }
    if ((rc = fgl__tgp_margin(&s->store, U, y, m, C, d, p->margin_rule != 0, (float)p->tau, &delta))) return rc;
    if ((rc = fgl__tgp_fit(s, &st->gen, U, y, m, C, d, NULL, delta, steps, 0, &loss))) return rc;
    P = fgl__tgp_forward(t, ps, NULL, C, 0);
    if (!P || t->err.code) return fgl_server_fail(s, t->err.code ? t->err.code : FGL_ERR_ARG, "fedtgp: server prototypes: %s", t->err.msg);
    memcpy(st->proto.global, P->val, sizeof(float) * (size_t)C * (size_t)d);
    fgl_tape_reset(t);
    for (cl = 0; cl < C; cl++) has[cl] = 1;
    st->proto.ready[0] = 1;
    last[0] = (float)delta;
    last[1] = (float)loss;
    return FGL_OK;
}

static void fgl__fedtgp_report(const fgl_observed *o, char *buf, size_t cap) {
    int C = o->started ? (int)fgl_observed_dim(o, FGL_DIM_CLASSES) : 0;
    const float *last;
    if (!o->started || !cap) return;
    last = fgl_observed_floats(o, "last");
    snprintf(buf, cap, "\"classes\": %d, \"rep_dim\": %d, \"margin\": %.6g, \"server_loss\": %.6g", C,
             C ? (int)fgl_observed_dim(o, FGL_DIM_REP) : 0, (double)last[0], (double)last[1]);
}

static fgl_algo fgl__fedtgp(void) {
    fgl_algo a = fgl__proto_base("fedtgp",
                                 "Zhang et al. 2024: FedProto with trainable global prototypes and an "
                                 "adaptive-margin contrastive loss",
                                 "weight of the prototype term lambda * MSE(rep, P_y) "
                                 "(authors' default 1; their script uses 10)");
    FGL_ALGO_PARAM(&a, fgl__fedtgp_params, server_steps, FGL_PARAM_INT, 100,
                   "full-batch server optimisation steps per round");
    FGL_ALGO_PARAM(&a, fgl__fedtgp_params, server_lr, FGL_PARAM_FLOAT, 0.01, "server Adam learning rate");
    FGL_ALGO_PARAM(&a, fgl__fedtgp_params, tau, FGL_PARAM_FLOAT, 100.0, "margin cap (authors' margin_threthold 100)");
    FGL_ALGO_PARAM(&a, fgl__fedtgp_params, margin_rule, FGL_PARAM_INT, 0,
                   "0: max over classes of the nearest-class gap (authors' code); 1: largest pairwise gap (paper)");
    FGL_ALGO_PARAM(&a, fgl__fedtgp_params, server_hidden, FGL_PARAM_INT, 0, "MLP hidden width (0: rep width d)");
    a.server_init = fgl__tgp_server_init;
    a.aggregate = fgl__fedtgp_aggregate;
    a.report = fgl__fedtgp_report;
    return a;
}

#include "../../alone.h"
