/* fgl:private */
FGL__PRIVATE fgl_node *fgl__proto_loss(fgl_client *c, const fgl_step *st);
/* fgl:implementation */
/* --- FedProto (Tan et al., AAAI 2022) and FedTGP (Zhang et al., AAAI 2024) -------- */
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
 * FedTGP's server: P_c = MLP(anchor_c), anchors C x d (N(0,1) init, as
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
    fgl_new_floats(&s->store, "global", C * d);
    fgl_new_ints(&s->store, "has", C);
    fgl_new_ints(&s->store, "ready", 1);   /* 1 once prototypes exist (before: nothing is sent) */
    fgl_new_floats(&s->store, "last", 2);  /* FedTGP: margin and server loss of the last aggregation */
    return s->store.err;
}

static int fgl__proto_download(fgl_server *s, int client, fgl_msg *down) {
    size_t C = fgl_server_up_size(s, "counts"), d = fgl_server_up_size(s, "protos") / FGL__MAX(C, 1), k, cl;
    const float *global = fgl_floats(&s->store, "global");
    const int *has = fgl_ints(&s->store, "has");
    float *p;
    (void)down;
    if (!fgl_ints(&s->store, "ready")[0]) return FGL_OK; /* no prototypes yet: nothing to send */
    if (!(p = fgl_download_part(s, client, "protos"))) return FGL_ERR_NOMEM;
    for (cl = 0; cl < C; cl++)
        for (k = 0; k < d; k++) p[cl * d + k] = has[cl] ? global[cl * d + k] : (float)NAN;
    return FGL_OK;
}

/* lambda * MSE(rep rows of the step's training samples, their class's
 * global prototype), built on the tape with a constant target matrix. */
FGL__PRIVATE fgl_node *fgl__proto_loss(fgl_client *c, const fgl_step *st) {
    float lambda = (float)fgl_get(c->set, "lambda");
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
            rc = fgl_client_fail(c, c->tape.err ? c->tape.err : FGL_ERR_ARG, "prototypes: %s", c->tape.msg);
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
    if (rc < 0 && !c->error) fgl_client_fail(c, rc, "%s", err.msg);
    fgl_view_end(&it);
    if (rc < 0) return rc;
    for (cl = 0; cl < C; cl++) {
        np[cl] = (float)cnt[cl];
        for (k = 0; k < d; k++) p[(size_t)cl * d + k] = cnt[cl] > 0 ? (float)(sum[(size_t)cl * d + k] / cnt[cl]) : 0.0f;
    }
    return FGL_OK;
}

static int fgl__fedproto_aggregate(fgl_server *s) {
    int weighted = fgl_get(s->set, "weighted") != 0, i;
    size_t C = fgl_server_up_size(s, "counts"), d = fgl_server_up_size(s, "protos") / FGL__MAX(C, 1), cl, k;
    float *global = fgl_floats(&s->store, "global");
    int *has = fgl_ints(&s->store, "has");
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
    fgl_ints(&s->store, "ready")[0] = 1;
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
    fgl_algo_param_add(&a, "lambda", FGL_PARAM_FLOAT, 1.0, lambda_help);
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
    fgl_algo_param_add(&a, "weighted", FGL_PARAM_INT, 1,
                       "1: class means weighted by counts (docs/algorithms.md); 0: plain mean (authors' code)");
    a.aggregate = fgl__fedproto_aggregate;
    a.report = fgl__fedproto_report;
    return a;
}

/* The trainable prototype generator of FedTGP and FedPG: `rows` anchors
 * (N(0, 1), as nn.Embedding) through one shared Linear(d, h) -> ReLU ->
 * Linear(h, d) (PyTorch's default Linear init), optionally L2-normalised
 * (FedPG), with its Adam state; drawn from the run seed and `stream`. All of
 * it is run-managed (checkpointed): params "tgp", optimizer "tgp_optim",
 * tape "tgp_tape". Slices 0..4: */
enum { FGL__TGP_ANCHOR, FGL__TGP_W1, FGL__TGP_B1, FGL__TGP_W2, FGL__TGP_B2 };

static int fgl__tgp_make(fgl_server *s, int rows, int d, int h, float lr, float wd, uint64_t stream) {
    fgl_params *ps;
    fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
    fgl_rng r;
    size_t k;
    float *a;
    if (!(ps = fgl_new_params(&s->store, "tgp"))) return FGL_ERR_NOMEM;
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
    fgl_new_optim(&s->store, "tgp_optim", oc, ps);
    fgl_new_tape(&s->store, "tgp_tape");
    return s->store.err;
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
static int fgl__tgp_train(fgl_server *s, const float *U, const int *y, int m, int C, int d, const int *idx,
                          double delta, int steps, int normalize, double *loss) {
    fgl_params *ps = fgl_get_params(&s->store, "tgp");
    fgl_optim *opt = fgl_get_optim(&s->store, "tgp_optim");
    fgl_tape *t = fgl_get_tape(&s->store, "tgp_tape");
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
            return fgl_server_fail(s, t->err, "%s: server training: %s", s->algo->name, t->msg);
        *loss = l->val[0];
        fgl_optim_step(opt, ps);
    }
    fgl_tape_reset(t);
    return FGL_OK;
}

/* FedTGP's server: anchors C x d, MLP hidden h (server_hidden, 0: d). */
static int fgl__tgp_server_init(fgl_server *s) {
    int C = (int)fgl_server_up_size(s, "counts"), d = (int)(fgl_server_up_size(s, "protos") / (size_t)FGL__MAX(C, 1));
    int h = (int)fgl_get(s->set, "server_hidden") > 0 ? (int)fgl_get(s->set, "server_hidden") : d, rc;
    if (fgl_get(s->set, "server_steps") < 0 || !(fgl_get(s->set, "server_lr") >= 0) || !(fgl_get(s->set, "tau") >= 0))
        return fgl_server_fail(s, FGL_ERR_ARG, "fedtgp: server_steps, server_lr and tau must be non-negative");
    if ((rc = fgl__proto_server_init(s))) return rc;
    return fgl__tgp_make(s, C, d, h, (float)fgl_get(s->set, "server_lr"), 0.0f, 0x464544544750ull); /* "FEDTGP" */
}

static int fgl__fedtgp_aggregate(fgl_server *s) {
    int C = (int)fgl_server_up_size(s, "counts"), d = (int)(fgl_server_up_size(s, "protos") / (size_t)FGL__MAX(C, 1)),
        K = s->n_clients, m = 0, i, cl, rc;
    int steps = (int)fgl_get(s->set, "server_steps");
    fgl_params *ps = fgl_get_params(&s->store, "tgp");
    fgl_tape *t = fgl_get_tape(&s->store, "tgp_tape");
    float *U, *last = fgl_floats(&s->store, "last");
    int *y, *has = fgl_ints(&s->store, "has");
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
    if ((rc = fgl__tgp_margin(&s->store, U, y, m, C, d, fgl_get(s->set, "margin_rule") != 0,
                              (float)fgl_get(s->set, "tau"), &delta)))
        return rc;
    if ((rc = fgl__tgp_train(s, U, y, m, C, d, NULL, delta, steps, 0, &loss))) return rc;
    P = fgl__tgp_forward(t, ps, NULL, C, 0);
    if (!P || t->err) return fgl_server_fail(s, t->err ? t->err : FGL_ERR_ARG, "fedtgp: server prototypes: %s", t->msg);
    memcpy(fgl_floats(&s->store, "global"), P->val, sizeof(float) * (size_t)C * (size_t)d);
    fgl_tape_reset(t);
    for (cl = 0; cl < C; cl++) has[cl] = 1;
    fgl_ints(&s->store, "ready")[0] = 1;
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
    fgl_algo_param_add(&a, "server_steps", FGL_PARAM_INT, 100, "full-batch server optimisation steps per round");
    fgl_algo_param_add(&a, "server_lr", FGL_PARAM_FLOAT, 0.01, "server Adam learning rate");
    fgl_algo_param_add(&a, "tau", FGL_PARAM_FLOAT, 100.0, "margin cap (authors' margin_threthold 100)");
    fgl_algo_param_add(&a, "margin_rule", FGL_PARAM_INT, 0,
                       "0: max over classes of the nearest-class gap (authors' code); 1: largest pairwise gap (paper)");
    fgl_algo_param_add(&a, "server_hidden", FGL_PARAM_INT, 0, "MLP hidden width (0: rep width d)");
    a.server_init = fgl__tgp_server_init;
    a.aggregate = fgl__fedtgp_aggregate;
    a.report = fgl__fedtgp_report;
    return a;
}

