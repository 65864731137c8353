#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:private */
#include "../../alone.h"
FGL__PRIVATE fgl_node *fgl__proto_loss(fgl_client *c, const fgl_step *st);
/* fgl:implementation */
#include "../../alone.h"
/* --- FedProto (Tan et al., AAAI 2022) --------------------------------------------- */
/* Prototype methods: no weights leave a client, so models may differ as long
 * as the representation the classifier reads (fgl_forward.rep, `hidden`
 * wide) has one width d. C = the largest class count among clients.
 * Sends: up C x d prototypes (the mean rep of the client's training samples
 * of each class, computed in evaluation mode after local training as
 * FedTGP's code does; FedProto's code averages the training-mode reps seen
 * during the local epochs instead; zeros for classes the client lacks) + C
 * per-class counts; down C x d global prototypes (a class without one is a
 * row of NaN, FedProto only; nothing is sent before the first aggregation).
 * Client loss: CE + lambda * mean over the training rows' entries of
 * (rep - P_y)^2, i.e. lambda * (1/d) * mean_v ||h_v - P_y||^2 (FedProto's
 * and FedTGP's code use nn.MSELoss so; samples of a class without a global
 * prototype count with a zero term, as there). Prediction: the classifier
 * head (nearest-prototype prediction is not offered: the evaluation path
 * reads logits).
 * FedProto's server: P_c = count-weighted mean of the uploaded p_c
 * (docs/algorithms.md; the authors' code takes the plain mean over clients:
 * weighted=0), over this round's accepted uploads.
 * FedTGP (fedtgp.h) shares this client side; its server trains the global
 * prototypes. */

/* The parameters: the family's (FedProto's and FedTGP's structs begin with
 * it), and FedProto's. */
typedef struct fgl__proto_params {
    double lambda; /* the prototype term's weight */
} fgl__proto_params;

typedef struct fgl__fedproto_params {
    fgl__proto_params proto;
    int weighted; /* 1: class means weighted by counts; 0: plain mean */
} fgl__fedproto_params;

/* The server's state: the global prototypes, which classes have one, whether
 * any exist yet, and FedTGP's last margin and server loss (FedTGP's struct
 * begins with it). */
typedef struct fgl__proto_server {
    float *global;
    int *has, *ready;
    float *last;
} fgl__proto_server;

/* C and d of the prototype messages. */
static int fgl__proto_C(fgl_client *c) { return (int)fgl_up_size(c, "counts"); }

/* Prototypes are the representation the classifier reads: the head's input,
 * or without a head the last layer's input, which must then be a hidden
 * representation (more than one layer, or an input projection). Checked on
 * each client's spec before anything is sized by it. */
static int fgl__proto_spec(const fgl_settings *set, fgl_model_spec *sp, fgl_error *err) {
    (void)set;
    if (sp->head == FGL_HEAD_NONE && sp->layers < 2 && !sp->input_proj && sp->arch != FGL_ARCH_GCNII)
        return fgl_error_set(err, FGL_ERR_ARG,
                             "a %s model of one layer without a classifier head has no hidden "
                             "representation to make prototypes of (give it two layers or a head)",
                             fgl_arch_name(sp->arch));
    return FGL_OK;
}

static int fgl__proto_server_init(fgl_server *s) {
    size_t C = fgl_server_up_size(s, "counts"), d = fgl_server_up_size(s, "protos") / FGL__MAX(C, 1);
    fgl__proto_server *st = FGL_NEW_STATE(fgl__proto_server, &s->store);
    if (!st) return FGL_ERR_NOMEM;
    st->global = fgl_new_floats(&s->store, "global", C * d);
    st->has = fgl_new_ints(&s->store, "has", C);
    st->ready = fgl_new_ints(&s->store, "ready", 1); /* 1 once prototypes exist (before: nothing is sent) */
    st->last = fgl_new_floats(&s->store, "last", 2); /* FedTGP: margin and server loss of the last aggregation */
    return s->store.err.code;
}

static int fgl__proto_download(fgl_server *s, int client, fgl_msg *down) {
    size_t C = fgl_server_up_size(s, "counts"), d = fgl_server_up_size(s, "protos") / FGL__MAX(C, 1), k, cl;
    const fgl__proto_server *st = FGL_STATE(fgl__proto_server, &s->store);
    const float *global = st->global;
    const int *has = st->has;
    float *p;
    (void)down;
    if (!st->ready[0]) return FGL_OK; /* no prototypes yet: nothing to send */
    if (!(p = fgl_download_part(s, client, "protos"))) return FGL_ERR_NOMEM;
    for (cl = 0; cl < C; cl++)
        for (k = 0; k < d; k++) p[cl * d + k] = has[cl] ? global[cl * d + k] : (float)NAN;
    return FGL_OK;
}

/* lambda * MSE(rep rows of the step's training samples, their class's
 * global prototype), built on the tape with a constant target matrix. */
FGL__PRIVATE fgl_node *fgl__proto_loss(fgl_client *c, const fgl_step *st) {
    float lambda = (float)FGL_PARAMS(fgl__proto_params, c->set)->lambda;
    const float *global = fgl_down(c, "protos");
    fgl_node *rep = st->fwd->rep;
    fgl_tape *t = st->t;
    int C = fgl__proto_C(c), i, n = 0, any = 0, d, *idx, *has;
    float *target;
    if (!rep || lambda == 0 || !global) return NULL;
    d = rep->cols;
    has = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)FGL__MAX(C, 1));
    if (!has) return NULL;
    for (i = 0; i < C; i++) any |= has[i] = fgl_all_finite((size_t)d, global + (size_t)i * d);
    if (!any) return NULL;
    for (i = 0; i < rep->rows; i++)
        if ((!st->mask || st->mask[i]) && st->labels[i] >= 0 && st->labels[i] < C) n++;
    if (n == 0) return NULL;
    idx = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)n);
    target = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n * (size_t)d);
    if (!idx || !target) return NULL;
    n = 0;
    for (i = 0; i < rep->rows; i++) {
        int y = st->labels[i];
        if ((st->mask && !st->mask[i]) || y < 0 || y >= C) continue;
        /* no global prototype for the class: the target is the sample itself (a zero term) */
        memcpy(target + (size_t)n * d, has[y] ? global + (size_t)y * d : rep->val + (size_t)i * d,
               sizeof(float) * (size_t)d);
        idx[n++] = i;
    }
    return fgl_op_scale(t, fgl_op_mse(t, fgl_op_gather_rows(t, rep, idx, n), fgl_op_const(t, target, n, d)), lambda);
}

/* Upload: per-class mean representations of the training samples
 * (evaluation mode, after local training) and per-class counts. */
static int fgl__proto_upload(fgl_client *c) {
    int C = fgl__proto_C(c), d = (int)(fgl_up_size(c, "protos") / FGL__MAX((size_t)C, 1)), cl, k, i, rc;
    float *p = fgl_up(c, "protos"), *np = fgl_up(c, "counts");
    double *sum = (double *)fgl_scratch(&c->store, sizeof(double) * (size_t)C * (size_t)d);
    double *cnt = (double *)fgl_scratch(&c->store, sizeof(double) * (size_t)C);
    fgl_view_iter it;
    fgl_view_batch b;
    fgl_error err;
    if (!sum || !cnt) return FGL_ERR_NOMEM;
    fgl_view_begin(&c->data, FGL_SPLIT_TRAIN, c->fed->eval_batch > 0 ? c->fed->eval_batch : 512, &it);
    while ((rc = fgl_view_next(&it, &b, &err)) > 0) {
        fgl_forward fw;
        fgl_tape_reset(&c->tape);
        if (fgl_model_forward(&c->model, &c->tape, b.g, 0, NULL, &fw) || !fw.rep) {
            rc = fgl_client_fail(c, c->tape.err.code ? c->tape.err.code : FGL_ERR_ARG, "prototypes: %s", c->tape.err.msg);
            break;
        }
        for (i = 0; i < fw.rep->rows; i++) {
            int y = b.labels[i];
            const float *r = fw.rep->val + (size_t)i * d;
            if ((b.mask && !b.mask[i]) || y < 0 || y >= C) continue;
            for (k = 0; k < d; k++) sum[(size_t)y * d + k] += r[k];
            cnt[y] += 1;
        }
    }
    if (rc < 0 && !c->err.code) fgl_client_fail(c, rc, "%s", err.msg);
    fgl_view_end(&it);
    if (rc < 0) return rc;
    for (cl = 0; cl < C; cl++) {
        np[cl] = (float)cnt[cl];
        for (k = 0; k < d; k++) p[(size_t)cl * d + k] = cnt[cl] > 0 ? (float)(sum[(size_t)cl * d + k] / cnt[cl]) : 0.0f;
    }
    return FGL_OK;
}

static int fgl__fedproto_aggregate(fgl_server *s) {
    const fgl__proto_server *st = FGL_STATE(fgl__proto_server, &s->store);
    int weighted = FGL_PARAMS(fgl__fedproto_params, s->set)->weighted != 0, i;
    size_t C = fgl_server_up_size(s, "counts"), d = fgl_server_up_size(s, "protos") / FGL__MAX(C, 1), cl, k;
    float *global = st->global;
    int *has = st->has;
    double *acc = (double *)fgl_scratch(&s->store, sizeof(double) * FGL__MAX(d, 1));
    if (!acc) return FGL_ERR_NOMEM;
    if (s->n_accepted == 0) return FGL_OK; /* nothing accepted: keep the prototypes */
    for (cl = 0; cl < C; cl++) {
        double wsum = 0;
        memset(acc, 0, sizeof(double) * d);
        for (i = 0; i < s->n_clients; i++) { /* fixed client order */
            const float *p = fgl_upload(s, i, "protos"), *cnt = fgl_upload(s, i, "counts");
            double n, w;
            if (!p || (n = cnt[cl]) <= 0) continue;
            w = weighted ? n : 1.0;
            for (k = 0; k < d; k++) acc[k] += w * p[cl * d + k];
            wsum += w;
        }
        has[cl] = wsum > 0;
        for (k = 0; k < d; k++) global[cl * d + k] = wsum > 0 ? (float)(acc[k] / wsum) : 0.0f;
    }
    st->ready[0] = 1;
    return FGL_OK;
}

static void fgl__fedproto_report(const fgl_observed *o, char *buf, size_t cap) {
    int C = o->started ? (int)fgl_observed_dim(o, FGL_DIM_CLASSES) : 0, cl, n = 0;
    const int *has;
    if (!o->started || !cap) return;
    has = fgl_observed_ints(o, "has");
    for (cl = 0; cl < C; cl++) n += has[cl] != 0;
    snprintf(buf, cap, "\"classes\": %d, \"classes_with_prototype\": %d, \"rep_dim\": %d", C, n,
             C ? (int)fgl_observed_dim(o, FGL_DIM_REP) : 0);
}

/* The prototype family: parameters and messages shared by both. */
static fgl_algo fgl__proto_base(const char *name, const char *summary, const char *lambda_help) {
    fgl_algo a = fgl_algo_new(name, summary);
    FGL_ALGO_PARAM(&a, fgl__proto_params, lambda, FGL_PARAM_FLOAT, 1.0, lambda_help);
    fgl_algo_upload(&a, "protos", FGL_SEND_DATA, FGL_DIM_CLASSES, FGL_DIM_REP, 0);
    fgl_algo_upload(&a, "counts", FGL_SEND_DATA, FGL_DIM_CLASSES, 1, 0);
    fgl_algo_download(&a, "protos", FGL_SEND_DATA, FGL_DIM_CLASSES, FGL_DIM_REP, FGL_PART_OPTIONAL, NULL);
    a.prepare_spec = fgl__proto_spec;
    a.train.loss = fgl__proto_loss;
    a.upload = fgl__proto_upload;
    a.server_init = fgl__proto_server_init;
    a.download = fgl__proto_download;
    return a;
}

static fgl_algo fgl__fedproto(void) {
    fgl_algo a = fgl__proto_base("fedproto",
                                 "Tan et al. 2022: clients share per-class mean representations; loss CE + "
                                 "lambda ||h - P_y||^2",
                                 "weight of the prototype term lambda * MSE(rep, P_y) (mean over "
                                 "entries, as the authors' nn.MSELoss)");
    FGL_ALGO_PARAM(&a, fgl__fedproto_params, weighted, FGL_PARAM_INT, 1,
                   "1: class means weighted by counts (docs/algorithms.md); 0: plain mean (authors' code)");
    a.aggregate = fgl__fedproto_aggregate;
    a.report = fgl__fedproto_report;
    return a;
}
#include "../../alone.h"
