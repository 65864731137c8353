#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- GPFL (Chen et al., TMLR 2025; docs/algorithms.md) ------------------------------- */
/* A learned client network for personalised graph classification. Every
 * client trains the whole model (the GIN of the protocol) and uploads it
 * with its functional embedding: the flattened log-softmax output of its
 * model (evaluation mode) on 20 Erdos-Renyi graphs G(fe_nodes, fe_p) with
 * one-hot degree features clipped to its feature width F (20 x C floats; the
 * graphs come from the run seed, so every client holds the same ones and
 * they cost no bytes; same_graphs=1 draws the 20 identically, as the
 * authors' code does). In round 1 it also sends 6 floats, the mean GPFL
 * graph properties of its training graphs (fgl_graph_gpfl_properties).
 * Sent: up 4 (n + 20 C) bytes a round, + 24 once; down 4 n.
 *
 * The server keeps every client's model theta_i and, with
 *     cosnet(v)_ij = relu(cos(v_i - mean_k v_k, v_j - mean_k v_k))
 * (centred, not z-scored), A_E = cosnet(FE) every round:
 *  1. first aggregation: the property network A_P = cosnet(properties),
 *     after a greedy backward elimination that drops, while more than
 *     min_props remain, the property whose removal most reduces
 *     ||A_P - A_E||_F^2, and stops when no removal reduces it
 *     (init=0: a network of U(0, 1) weights instead, the paper's "random");
 *     A_1 = rownorm(A_P). Later A_t = rownorm(relu(beta A_{t-1} + (1 - beta) A_E)).
 *  2. the client features X: each uploaded model average-pooled to about
 *     `pool` numbers (kernel = stride = floor(n / pool), in fgl's parameter
 *     order), centred across clients, rows L2-normalised;
 *  3. a graph auto-encoder (fgl_gae, src/gnn/gae.h: widths gae_hidden, gae_out, LayerNorm),
 *     built afresh every round (weights, LayerNorm and Adam state, as the
 *     authors' code builds a new one each round), trained gae_steps
 *     full-batch Adam steps (gae_lr, gae_wd) on fgl_gae_loss(S, size_weight)
 *     with input (A_t, X); S = Z Z^T;
 *  4. the client network A = rownorm(1[rowsoftmax(S) >= thresh / K]);
 *     learn=0 skips steps 2-4 and the moving average: A = A_1 every round
 *     (the paper's fixed "property" / "random" networks);
 *  5. with dtheta_i = theta_i(uploaded) - theta_i (0 for a client whose
 *     upload is missing),
 *         theta_i += gamma (A dtheta)_i + (1 - gamma) dtheta_i     (code)
 *         theta_i += gamma dtheta_i + (1 - gamma) (A dtheta)_i     (paper_mix=1, Eq. 4)
 *     and client i downloads theta_i.
 * rownorm divides each row by its sum; a row summing to 0 becomes the
 * client's own unit row. A (the network the aggregation used) is the
 * client_matrix, identity before the first aggregation. */

#define FGL__GPFL_GRAPHS 20

static const char *const fgl__gpfl_prop_names[FGL_GPFL_PROPS] = {"avg_degree", "density", "degree_variance",
                                                                 "entropy", "scale_free", "closeness"};

static void fgl__gpfl_gae_free(void *p) { fgl_gae_free((fgl_gae *)p); }

/* GPFL's parameters (fgl__gpfl: their defaults and help). */
typedef struct fgl__gpfl_params {
    unsigned share;     /* parameter groups shared */
    double gamma;       /* the neighbours' weight in theta_i's update (the client's with paper_mix=1) */
    int paper_mix;      /* 1: the paper's Eq. 4 (gamma on the client itself) */
    double beta;        /* moving average of the network A_t */
    double thresh;      /* edge if row-softmax(S) >= thresh / K */
    int gae_steps;      /* auto-encoder Adam steps per round */
    double gae_lr;      /* auto-encoder learning rate */
    double gae_wd;      /* auto-encoder weight decay */
    int gae_hidden;     /* auto-encoder hidden width */
    int gae_out;        /* auto-encoder embedding width */
    double size_weight; /* weight of the auto-encoder's sparsity term */
    int pool;           /* client features: parameters average-pooled to about this many numbers */
    int min_props;      /* property selection keeps at least this many properties */
    int fe_nodes;       /* nodes of each random graph of the functional embedding */
    double fe_p;        /* edge probability of the random graphs */
    int same_graphs;    /* 1: the 20 random graphs identical */
    int init;           /* 1: property-based initial network; 0: U(0, 1) weights */
    int learn;          /* 1: moving average and auto-encoder every round; 0: the initial network fixed */
} fgl__gpfl_params;

/* A client's state: its mean graph properties (sent in round 1) and the 20
 * random graphs of its functional embedding ("probe", rebuilt on resume). */
typedef struct fgl__gpfl_client {
    float *props;
    fgl__probe *probe;
} fgl__gpfl_client;

/* The server's state: every client's model, properties (and whether they
 * came), the kept properties, [network initialised, aggregations done], the
 * auto-encoder's input network A_t, the network the aggregation uses, the
 * row-softmax of S, [last auto-encoder loss, mean links per client]; the
 * auto-encoder, its optimizer and tape. */
typedef struct fgl__gpfl_server {
    float *theta, *props;
    int *has_props, *keep, *state;
    float *net, *A, *soft, *last;
    fgl_gae *gae;
    fgl_optim *gae_optim;
    fgl_tape *gae_tape;
} fgl__gpfl_server;

static int fgl__gpfl_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    (void)set;
    if (spec->task != FGL_TASK_GRAPH) return fgl_error_set(err, FGL_ERR_ARG, "gpfl: graph classification only");
    return FGL_OK;
}

static int fgl__gpfl_client_init(fgl_client *c) {
    const fgl__gpfl_params *gp = FGL_PARAMS(fgl__gpfl_params, c->set);
    int nn = gp->fe_nodes, same = gp->same_graphs != 0, F = c->model.spec.in_dim;
    double p = gp->fe_p, pr[FGL_GPFL_PROPS];
    fgl__gpfl_client *st = FGL_NEW_STATE(fgl__gpfl_client, &c->store);
    float *props = st ? (st->props = fgl_new_floats(&c->store, "props", FGL_GPFL_PROPS)) : NULL;
    fgl__probe *pb;
    int g, i, k, rc = FGL_OK, N;
    fgl_error err;
    if (!props) return FGL_ERR_NOMEM;
    if (nn < 1 || !(p >= 0 && p <= 1))
        return fgl_client_fail(c, FGL_ERR_ARG, "gpfl: fe_nodes must be >= 1 and fe_p in [0, 1]");
    if ((rc = fgl_graph_set_gpfl_properties(c->data.graphs, FGL_SPLIT_TRAIN, pr, &err)))
        return fgl_client_fail(c, rc, "gpfl: %s", err.msg);
    for (k = 0; k < FGL_GPFL_PROPS; k++) props[k] = (float)pr[k];
    /* 20 G(nn, p) graphs side by side */
    N = FGL__GPFL_GRAPHS * nn;
    if (!(pb = st->probe = fgl__probe_new(c, "probe", N, FGL__GPFL_GRAPHS))) return FGL_ERR_NOMEM;
    for (g = 0; g < FGL__GPFL_GRAPHS && !rc; g++) {
        fgl_csr one;
        uint64_t gs = c->fed->seed * 7919u + 0x4750464c4552ull + (uint64_t)(same ? 0 : g); /* "GPFLER" */
        memset(&one, 0, sizeof one);
        pb->offsets[g] = g * nn;
        if ((rc = fgl_gen_gnp(nn, p, gs, &one, &err))) break;
        for (i = 0; i < nn && !rc; i++)
            for (k = one.indptr[i]; k < one.indptr[i + 1] && !rc; k++)
                if (fgl__probe_edge(pb, g * nn + i, g * nn + one.indices[k]))
                    rc = fgl_error_set(&err, FGL_ERR_NOMEM, "out of memory");
        fgl_csr_free(&one);
    }
    if (!rc) rc = fgl__probe_adjacency(pb, &err);
    if (rc) return fgl_client_fail(c, rc, "gpfl: random graphs: %s", err.msg);
    /* one-hot degree, clipped to the feature width */
    for (i = 0; i < N; i++) {
        int d = pb->adj.indptr[i + 1] - pb->adj.indptr[i];
        pb->x[(size_t)i * F + (d < F ? d : F - 1)] = 1.0f;
    }
    if ((rc = fgl__probe_view(pb, c, &err))) return fgl_client_fail(c, rc, "gpfl: %s", err.msg);
    return FGL_OK;
}

/* The functional embedding, and the properties in the first round. */
static int fgl__gpfl_upload(fgl_client *c) {
    const fgl__gpfl_client *st = FGL_STATE(fgl__gpfl_client, &c->store);
    fgl__probe *pb = st->probe;
    float *fe = fgl_up(c, "fe");
    int C = (int)(fgl_up_size(c, "fe") / FGL__GPFL_GRAPHS), Ci = c->model.spec.out_dim, g, j;
    fgl_forward fw;
    fgl_node *lp;
    fgl_tape_reset(&c->tape);
    if (fgl_model_forward(&c->model, &c->tape, &pb->g, 0, NULL, &fw) || !(lp = fgl_op_log_softmax(&c->tape, fw.logits)))
        return fgl_client_fail(c, c->tape.err.code ? c->tape.err.code : FGL_ERR_ARG, "gpfl: functional embedding: %s",
                               c->tape.err.msg);
    for (g = 0; g < FGL__GPFL_GRAPHS; g++)
        for (j = 0; j < C; j++) fe[g * C + j] = j < Ci ? lp->val[g * Ci + j] : 0.0f;
    fgl_tape_reset(&c->tape);
    if (c->round == 0) memcpy(fgl_up(c, "props"), st->props, sizeof(float) * FGL_GPFL_PROPS);
    else fgl_up_drop(c, "props");
    return FGL_OK;
}

/* Rows of a (K x K) divided by their sums; a row summing to 0 (or less)
 * becomes the unit row of its client. */
static void fgl__gpfl_rownorm(int K, float *a) {
    int i, j;
    for (i = 0; i < K; i++) {
        float *r = a + (size_t)i * K;
        double sum = 0;
        for (j = 0; j < K; j++) sum += r[j];
        for (j = 0; j < K; j++) r[j] = sum > 0 ? (float)(r[j] / sum) : (float)(j == i);
    }
}

/* out = relu(cos(v_i - mean, v_j - mean)) over the rows with has[i] (v: K x
 * d, columns with use[q] when use is not NULL; the mean over those rows);
 * a row without has is 0 but for 1 on the diagonal. */
static int fgl__gpfl_cosnet(fgl_server *s, int K, int d, const float *v, const int *has, const int *use, float *out) {
    double *mean = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)FGL__MAX(d, 1));
    float *cv = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * (size_t)FGL__MAX(d, 1));
    int i, j, q, n = 0;
    if (!mean || !cv) return FGL_ERR_NOMEM;
    for (i = 0; i < K; i++)
        if (has[i]) {
            n++;
            for (q = 0; q < d; q++) mean[q] += v[(size_t)i * d + q];
        }
    for (i = 0; i < K; i++)
        for (q = 0; q < d; q++)
            cv[(size_t)i * d + q] =
                has[i] && (!use || use[q]) ? (float)(v[(size_t)i * d + q] - mean[q] / FGL__MAX(n, 1)) : 0.0f;
    for (i = 0; i < K; i++)
        for (j = 0; j < K; j++) {
            double c =
                has[i] && has[j] ? fgl_cosine((size_t)d, cv + (size_t)i * d, cv + (size_t)j * d) : (double)(i == j);
            out[(size_t)i * K + j] = c > 0 ? (float)c : 0.0f;
        }
    return FGL_OK;
}

static double fgl__gpfl_dist2(int K, const float *a, const float *b) {
    double s = 0;
    size_t q;
    for (q = 0; q < (size_t)K * K; q++) s += ((double)a[q] - b[q]) * ((double)a[q] - b[q]);
    return s;
}

/* Round 1's greedy backward elimination of properties (keep[q] = 1 for the
 * kept ones) and the property network on them into ap. */
static int fgl__gpfl_select(fgl_server *s, const float *ae, int *keep, float *ap) {
    const fgl__gpfl_server *st = FGL_STATE(fgl__gpfl_server, &s->store);
    int K = s->n_clients, left = FGL_GPFL_PROPS, q, rc, minp = FGL_PARAMS(fgl__gpfl_params, s->set)->min_props;
    const float *props = st->props;
    const int *has = st->has_props;
    double cur;
    for (q = 0; q < FGL_GPFL_PROPS; q++) keep[q] = 1;
    if ((rc = fgl__gpfl_cosnet(s, K, FGL_GPFL_PROPS, props, has, keep, ap))) return rc;
    cur = fgl__gpfl_dist2(K, ap, ae);
    while (left > minp) {
        int best = -1;
        double best_d = cur;
        for (q = 0; q < FGL_GPFL_PROPS; q++) {
            double dq;
            if (!keep[q]) continue;
            keep[q] = 0;
            rc = fgl__gpfl_cosnet(s, K, FGL_GPFL_PROPS, props, has, keep, ap);
            keep[q] = 1;
            if (rc) return rc;
            dq = fgl__gpfl_dist2(K, ap, ae);
            if (dq < best_d) { /* strictly better; ties keep the earlier property */
                best_d = dq;
                best = q;
            }
        }
        if (best < 0) break; /* no removal helps */
        keep[best] = 0;
        cur = best_d;
        left--;
    }
    return fgl__gpfl_cosnet(s, K, FGL_GPFL_PROPS, props, has, keep, ap);
}

static int fgl__gpfl_server_init(fgl_server *s) {
    const fgl__gpfl_params *p = FGL_PARAMS(fgl__gpfl_params, s->set);
    size_t K = (size_t)s->n_clients, n = s->n_shared, i, kern;
    int pool = p->pool, h = p->gae_hidden, o = p->gae_out;
    double gamma = p->gamma, beta = p->beta;
    float *theta, *A, *net;
    fgl_gae *gae;
    fgl__gpfl_server *st;
    fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
    if (!(gamma >= 0 && gamma <= 1) || !(beta >= 0 && beta <= 1) || pool < 1 || h < 1 || o < 1 || p->gae_steps < 0 ||
        !(p->thresh >= 0) || p->min_props < 1 || p->min_props > FGL_GPFL_PROPS || !(p->gae_lr >= 0) ||
        !(p->gae_wd >= 0))
        return fgl_server_fail(s, FGL_ERR_ARG, "gpfl: gamma and beta must be in [0, 1], pool, gae_hidden and gae_out "
                               ">= 1, gae_steps, gae_lr, gae_wd and thresh >= 0, min_props in 1..6");
    if (!(st = FGL_NEW_STATE(fgl__gpfl_server, &s->store))) return FGL_ERR_NOMEM;
    theta = st->theta = fgl_new_floats(&s->store, "theta", K * n);
    st->props = fgl_new_floats(&s->store, "props", K * FGL_GPFL_PROPS);
    st->has_props = fgl_new_ints(&s->store, "has_props", K);
    st->keep = fgl_new_ints(&s->store, "keep", FGL_GPFL_PROPS);
    st->state = fgl_new_ints(&s->store, "state", 2); /* [0]: network initialised; [1]: aggregations done */
    net = st->net = fgl_new_floats(&s->store, "net", K * K); /* A_t, the auto-encoder's input network */
    A = st->A = fgl_new_floats(&s->store, "A", K * K);       /* the network the aggregation uses */
    st->soft = fgl_new_floats(&s->store, "soft", K * K);     /* row-softmax of the auto-encoder's S */
    st->last = fgl_new_floats(&s->store, "last", 2);         /* last auto-encoder loss, mean links per client */
    kern = n / (size_t)pool > 0 ? n / (size_t)pool : 1;
    gae = st->gae = (fgl_gae *)fgl_new_scratch(&s->store, "gae", sizeof(fgl_gae), fgl__gpfl_gae_free);
    if (s->store.err.code || !gae) return FGL_ERR_NOMEM;
    if (fgl_gae_init(gae, (int)(n / kern), h, o, s->fed->seed))
        return fgl_server_fail(s, FGL_ERR_NOMEM, "gpfl: auto-encoder");
    oc.lr = (float)p->gae_lr;
    oc.weight_decay = (float)p->gae_wd;
    st->gae_optim = fgl_new_optim(&s->store, "gae_optim", oc, &gae->params); /* restarted every round */
    st->gae_tape = fgl_new_tape(&s->store, "gae_tape");
    if (s->store.err.code) return s->store.err.code;
    for (i = 0; i < K; i++) fgl_server_pack(s, s->init, theta + i * n);
    for (i = 0; i < K; i++) A[i * K + i] = 1.0f;
    if (p->init == 0) { /* the paper's random initial network */
        fgl_rng r;
        fgl_rng_init(&r, s->fed->seed, 0x47504652414eull); /* "GPFRAN" */
        for (i = 0; i < K * K; i++) net[i] = (float)fgl_rng_uniform(&r);
    }
    return FGL_OK;
}

/* The auto-encoder's network: A = rownorm(1[rowsoftmax(S) >= thresh / K]). */
static int fgl__gpfl_learn(fgl_server *s, const float *ups, float *A) {
    const fgl__gpfl_server *st = FGL_STATE(fgl__gpfl_server, &s->store);
    const fgl__gpfl_params *p = FGL_PARAMS(fgl__gpfl_params, s->set);
    int K = s->n_clients, i, j, rc;
    size_t n = s->n_shared, q, kern;
    fgl_gae *gae = st->gae;
    fgl_optim *opt = st->gae_optim;
    float *soft = st->soft;
    float *last = st->last, thr = (float)(p->thresh / K);
    int m = gae->in_dim;
    float *X = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * (size_t)m);
    float *S = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * (size_t)K);
    double loss = 0;
    if (!X || !S) return FGL_ERR_NOMEM;
    kern = n / (size_t)m;
    /* client features: pooled, centred across clients, rows L2-normalised */
    for (i = 0; i < K; i++)
        for (j = 0; j < m; j++) {
            double acc = 0;
            for (q = 0; q < kern; q++) acc += ups[(size_t)i * n + (size_t)j * kern + q];
            X[(size_t)i * m + j] = (float)(acc / (double)kern);
        }
    for (j = 0; j < m; j++) {
        double mean = 0;
        for (i = 0; i < K; i++) mean += X[(size_t)i * m + j];
        mean /= K;
        for (i = 0; i < K; i++) X[(size_t)i * m + j] = (float)(X[(size_t)i * m + j] - mean);
    }
    for (i = 0; i < K; i++) {
        double nrm = fgl_norm2((size_t)m, X + (size_t)i * m);
        if (nrm > 0)
            for (j = 0; j < m; j++) X[(size_t)i * m + j] = (float)(X[(size_t)i * m + j] / nrm);
    }
    /* a fresh auto-encoder, trained on (A_t, X) */
    fgl_gae_reset(gae, s->fed->seed * 1000003u + (uint64_t)s->round, 1);
    fgl_optim_reset(opt);
    rc = fgl_gae_fit(gae, opt, st->gae_tape, st->net, X, K, p->gae_steps, (float)p->size_weight, S, &loss);
    if (rc) return fgl_server_fail(s, rc, "gpfl: auto-encoder: %s", st->gae_tape->err.msg);
    last[0] = (float)loss;
    /* row softmax, threshold, row-normalise */
    for (i = 0; i < K; i++) {
        const float *r = S + (size_t)i * K;
        double mx = r[0], sum = 0;
        for (j = 1; j < K; j++) mx = r[j] > mx ? r[j] : mx;
        for (j = 0; j < K; j++) sum += exp((double)r[j] - mx);
        for (j = 0; j < K; j++) {
            soft[(size_t)i * K + j] = (float)(exp((double)r[j] - mx) / sum);
            A[(size_t)i * K + j] = soft[(size_t)i * K + j] >= thr ? 1.0f : 0.0f;
        }
    }
    fgl__gpfl_rownorm(K, A);
    return FGL_OK;
}

static int fgl__gpfl_aggregate(fgl_server *s) {
    const fgl__gpfl_params *p = FGL_PARAMS(fgl__gpfl_params, s->set);
    const fgl__gpfl_server *st = FGL_STATE(fgl__gpfl_server, &s->store);
    int K = s->n_clients, i, j, rc, n_up, learn = p->learn != 0, paper = p->paper_mix != 0;
    size_t n = s->n_shared, d = fgl_server_up_size(s, "fe"), q;
    float gamma = (float)p->gamma, beta = (float)p->beta;
    float *theta = st->theta, *props = st->props, *net = st->net, *A = st->A, *last = st->last;
    int *has_props = st->has_props, *state = st->state;
    float *ups = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * FGL__MAX(n, 1));
    float *mixed = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * FGL__MAX(n, 1));
    float *fe = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * FGL__MAX(d, 1));
    float *ae = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * (size_t)K);
    double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * (size_t)K), links = 0;
    int *has = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K);
    int *has_fe = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K);
    if (!ups || !mixed || !fe || !ae || !w || !has || !has_fe) return FGL_ERR_NOMEM;
    if ((n_up = fgl_server_gather(s, "theta", ups, has)) == 0) return FGL_OK; /* nothing accepted: models stay */
    for (i = 0; i < K; i++) {
        const float *pr = fgl_upload(s, i, "props");
        if (!has[i]) memcpy(ups + (size_t)i * n, theta + (size_t)i * n, sizeof(float) * n); /* no update */
        if (pr) {
            memcpy(props + (size_t)i * FGL_GPFL_PROPS, pr, sizeof(float) * FGL_GPFL_PROPS);
            has_props[i] = 1;
        }
    }
    fgl_server_gather(s, "fe", fe, has_fe);
    if ((rc = fgl__gpfl_cosnet(s, K, (int)d, fe, has_fe, NULL, ae))) return rc;
    /* the network the auto-encoder starts from */
    if (!state[0]) {
        if (p->init != 0 && (rc = fgl__gpfl_select(s, ae, st->keep, net))) return rc;
        fgl__gpfl_rownorm(K, net);
        state[0] = 1;
    } else if (learn) {
        for (q = 0; q < (size_t)K * K; q++) {
            float v = beta * net[q] + (1.0f - beta) * ae[q];
            net[q] = v > 0 ? v : 0.0f;
        }
        fgl__gpfl_rownorm(K, net);
    }
    if (learn) {
        if ((rc = fgl__gpfl_learn(s, ups, A))) return rc;
    } else {
        memcpy(A, net, sizeof(float) * (size_t)K * K);
    }
    /* theta_i += a (A dtheta)_i + b dtheta_i */
    for (i = 0; i < K; i++)
        for (q = 0; q < n; q++) ups[(size_t)i * n + q] -= theta[(size_t)i * n + q];
    for (i = 0; i < K; i++)
        for (j = 0; j < K; j++) {
            w[(size_t)i * K + j] = A[(size_t)i * K + j];
            links += i != j && A[(size_t)i * K + j] > 0;
        }
    if ((rc = fgl_mix_rows(K, w, ups, n, mixed, NULL))) return rc;
    {
        float a = paper ? 1.0f - gamma : gamma, b = paper ? gamma : 1.0f - gamma;
        for (i = 0; i < K; i++)
            for (q = 0; q < n; q++)
                theta[(size_t)i * n + q] += a * mixed[(size_t)i * n + q] + b * ups[(size_t)i * n + q];
    }
    last[1] = (float)(links / K);
    state[1]++;
    return FGL_OK;
}

static int fgl__gpfl_matrix(const fgl_observed *o, float *out) { return fgl_observed_matrix(o, "A", out); }

static void fgl__gpfl_report(const fgl_observed *o, char *buf, size_t cap) {
    const int *keep;
    const float *last;
    size_t used;
    int q, first = 1;
    if (!o->started || !cap) return;
    keep = fgl_observed_ints(o, "keep");
    last = fgl_observed_floats(o, "last");
    used = (size_t)snprintf(buf, cap, "\"gpfl_properties\": \"");
    for (q = 0; q < FGL_GPFL_PROPS && used < cap; q++)
        if (keep[q] && FGL_PARAMS(fgl__gpfl_params, o->set)->init != 0) {
            used += (size_t)snprintf(buf + used, cap - used, "%s%s", first ? "" : ",", fgl__gpfl_prop_names[q]);
            first = 0;
        }
    if (used < cap)
        snprintf(buf + used, cap - used, "\", \"gpfl_gae_loss\": %.6g, \"gpfl_links_per_client\": %.4g",
                 (double)last[0], (double)last[1]);
}

static fgl_algo fgl__gpfl(void) {
    fgl_algo a = fgl_algo_new("gpfl", "Chen et al. 2025: a learned client network (property-initialised, graph "
                              "auto-encoder) guides personalised aggregation; graph classification");
    FGL_ALGO_PARAM(&a, fgl__gpfl_params, share, FGL_PARAM_GROUPS, (double)FGL_G_ALL,
                   "parameter groups shared (the whole model)");
    FGL_ALGO_PARAM(&a, fgl__gpfl_params, gamma, FGL_PARAM_FLOAT, 0.95,
                   "theta_i += gamma (A dtheta)_i + (1 - gamma) dtheta_i (authors' code; see paper_mix)");
    FGL_ALGO_PARAM(&a, fgl__gpfl_params, paper_mix, FGL_PARAM_INT, 0,
                   "1: the paper's Eq. 4, gamma on the client itself: theta_i += gamma dtheta_i + (1 - gamma) "
                   "(A dtheta)_i");
    FGL_ALGO_PARAM(&a, fgl__gpfl_params, beta, FGL_PARAM_FLOAT, 0.95,
                   "moving average A_t = relu(beta A_{t-1} + (1 - beta) A_E)");
    FGL_ALGO_PARAM(&a, fgl__gpfl_params, thresh, FGL_PARAM_FLOAT, 0.1, "edge if row-softmax(S) >= thresh / K");
    FGL_ALGO_PARAM(&a, fgl__gpfl_params, gae_steps, FGL_PARAM_INT, 100, "auto-encoder Adam steps per round");
    FGL_ALGO_PARAM(&a, fgl__gpfl_params, gae_lr, FGL_PARAM_FLOAT, 1e-3, "auto-encoder learning rate");
    FGL_ALGO_PARAM(&a, fgl__gpfl_params, gae_wd, FGL_PARAM_FLOAT, 5e-4, "auto-encoder weight decay");
    FGL_ALGO_PARAM(&a, fgl__gpfl_params, gae_hidden, FGL_PARAM_INT, 128, "auto-encoder hidden width");
    FGL_ALGO_PARAM(&a, fgl__gpfl_params, gae_out, FGL_PARAM_INT, 32, "auto-encoder embedding width");
    FGL_ALGO_PARAM(&a, fgl__gpfl_params, size_weight, FGL_PARAM_FLOAT, 1.0,
                   "weight of the sparsity term mean -log(1 - sigmoid(S))");
    FGL_ALGO_PARAM(&a, fgl__gpfl_params, pool, FGL_PARAM_INT, 100,
                   "client features: parameters average-pooled to about this many numbers");
    FGL_ALGO_PARAM(&a, fgl__gpfl_params, min_props, FGL_PARAM_INT, 2,
                   "property selection keeps at least this many properties");
    FGL_ALGO_PARAM(&a, fgl__gpfl_params, fe_nodes, FGL_PARAM_INT, 30,
                   "nodes of each of the 20 random graphs of the functional embedding");
    FGL_ALGO_PARAM(&a, fgl__gpfl_params, fe_p, FGL_PARAM_FLOAT, 0.1, "edge probability of the random graphs");
    FGL_ALGO_PARAM(&a, fgl__gpfl_params, same_graphs, FGL_PARAM_INT, 0,
                   "1: the 20 random graphs identical (the authors' code seeds them alike)");
    FGL_ALGO_PARAM(&a, fgl__gpfl_params, init, FGL_PARAM_INT, 1,
                   "1: property-based initial network; 0: U(0, 1) weights (ablation)");
    FGL_ALGO_PARAM(&a, fgl__gpfl_params, learn, FGL_PARAM_INT, 1,
                   "1: moving average and auto-encoder every round; 0: the initial network fixed (ablation)");
    fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, 0, 0, FGL_PART_RAW); /* its updates mixed by hand */
    fgl_algo_upload(&a, "fe", FGL_SEND_DATA, FGL__GPFL_GRAPHS, FGL_DIM_CLASSES, 0);
    fgl_algo_upload(&a, "props", FGL_SEND_DATA, FGL_GPFL_PROPS, 1, FGL_PART_OPTIONAL);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, FGL_PART_ROW, "theta");
    a.prepare_spec = fgl__gpfl_spec;
    a.client_init = fgl__gpfl_client_init;
    a.upload = fgl__gpfl_upload;
    a.server_init = fgl__gpfl_server_init;
    a.aggregate = fgl__gpfl_aggregate;
    a.mixes = 1; /* per-client mixtures of updates: no DP or secure aggregation (and, mixed by hand, no robust rule) */
    a.report = fgl__gpfl_report;
    a.client_matrix = fgl__gpfl_matrix;
    return a;
}

#include "../../alone.h"
