#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:private */
#include "../../alone.h"
/* Tests (src/fed/algos/feddep.h): K-means on n rows of width E (k-means++
 * seeding from rng, then Lloyd's steps until no row changes cluster, at most
 * iters): centres (K x E) and each row's cluster (assign, n); K <= n. */
FGL__PRIVATE int fgl__feddep_kmeans(const float *x, int n, int E, int K, int iters, fgl_rng *rng, float *centres,
                                    int *assign);
/* The squared distance of h (E floats) to its nearest row of q (m x E) over
 * E, and that row (*best). */
FGL__PRIVATE double fgl__feddep_nearest(const float *h, const float *q, int m, int E, int *best);
/* Client c's fused embeddings zbar (n x emb_dim: the mean over the num_pred
 * slots of its mended deep neighbours, zeros beyond k_v), NULL before its
 * first classifier round; its prototypes (num_proto x emb_dim) and each
 * node's prototype index, NULL before the run starts or where num_pred = 0. */
FGL__PRIVATE const float *fgl__feddep_zbar(const fgl_client *c);
FGL__PRIVATE const float *fgl__feddep_protos(const fgl_client *c, const int **assign);
/* fgl:implementation */
#include "../../alone.h"
/* --- FedDEP (Zhang et al., SDM 2024) ---------------------------------------------- */
/* "Deep Efficient Private Neighbor Generation for Subgraph Federated
 * Learning" (arXiv 2401.04336): FedSage+ (fedsage.h) with missing
 * neighbours generated as deep embeddings, not raw features.
 *
 * Client, once (client_init, from its data and the run seed): an embedding
 * GNN (2-layer mean-SAGE, width emb_dim, linear head) trains enc_epochs
 * full-batch Adam steps (lr 0.01, weight decay 5e-4, dropout 0.5) on the
 * client's training labels; z_u = tanh(its last layer's output), in
 * evaluation mode. K-means (k-means++ seeding) puts the z_u in num_proto
 * clusters; the centres are the client's embedding prototypes and node u's
 * deep embedding is its centre p_u ("embedding prototyping": what is shared
 * is num_proto centres, never a node's embedding). The impaired graph (as
 * FedSage+'s, fgl__fs_build) hides floor(hidden_portion m) of the client's m
 * validation nodes (the authors' choice); remaining node v misses M_v.
 *
 * Generator (per client, never averaged): an encoder (fedsage.h's 2-layer
 * mean-SAGE, width latent, dropout 0.5) gives s_v; dGen n_v = ReLU(s_v w_d
 * + b_d) (its loss reads the value before the ReLU, as FedSage+'s); eGen
 *     H_v = tanh(Dropout(ReLU(ReLU((s_v + eps) W_1 + b_1) W_2 + b_2)) W_3 + b_3),
 * eps ~ N(0, 1) in training (widths gen_hidden, gen_hidden2, num_pred
 * emb_dim) gives P = num_pred deep embeddings H_v[0..P-1]. With S the slots
 * (v, p < min(P, |M_v|)), the loss per step on the impaired graph is
 *     lambda_d SmoothL1(n_v, |M_v|)                                (mean over v)
 *   + lambda_e sum_S min_{u in M_v} ||H_v[p] - p_u||^2 / E         (mean over S)
 *   + lambda_e alpha (K - 1) sum_S min_q ||H_v[p] - q||^2 / E      (mean over S)
 *   + lambda_c CE(f_loc(x, zbar), y)                 (the impaired training nodes)
 * where q runs over the num_proto prototypes of one other client received
 * this round (a rotation over rounds, as FedSage+'s; K - 1 scales that one
 * client to all of them), zbar_v = (1/P) sum_{p < k_v} H_v[p] with k_v =
 * min(P, round(n_v)), and f_loc is a local classifier of the run's model
 * fused with zbar (below) that trains with the generator (the authors'
 * joint loss) and is then dropped. Round 0 takes pre_steps + gen_steps
 * Adam steps (gen_lr, gen_wd), rounds 1 .. gen_rounds-1 gen_steps each.
 *
 * Classifier (rounds gen_rounds ..): mending (the first such round, and
 * again after a resume, from the stored generator, deterministic): the
 * generator in evaluation mode on the client's whole subgraph gives every
 * node v its k_v deep neighbours and zbar_v (no node is added). The
 * classifier is the run's model f (FedAvg'd: theta) with zbar fused before
 * its head:
 *     logits_v = head(rep_v + zbar_v W_z + b_z)
 * (rep: what the head reads, R wide; a model without a head adds it to
 * its logits); local_epochs full-batch steps of the run's optimizer on
 * cross-entropy; evaluated the same way on the client's own nodes. W_z,
 * b_z are averaged with theta (by training samples: fuse_avg = 1, the
 * authors' whole classifier averaged) or stay on the client (fuse_avg =
 * 0). num_pred = 0 is FedAvg, bit for bit.
 *
 * Sent: up in generator rounds 4 num_proto emb_dim bytes (the prototypes,
 * "protos"), down the same (another client's); in classifier rounds, with
 * fuse_avg, 4 (emb_dim + 1) R bytes up and down (W_z, b_z and their mean);
 * FedAvg's model parts every round. The server averages W_z, b_z by its own
 * code (RAW): DP, secure aggregation and robust rules are refused at the
 * start (the table declares the parts whatever fuse_avg is).
 * Defaults: the authors' code (feddep_on_cora5.yaml) and OpenFGL's config:
 * num_pred 5, num_proto 5, hidden_portion 0.5, emb_dim 128, latent 128, eGen
 * 256 and 2048 wide, enc_epochs 50, one local pre-training step, 3
 * generator rounds, lambda_d = lambda_e = lambda_c = 1. docs/algorithms.md,
 * "FedDEP", says where paper, authors' code and OpenFGL differ, and what
 * this follows. */

/* A client's derived data (rebuilt from the seed and its data, never saved). */
typedef struct fgl__dep_data {
    fgl__fs_data fs;       /* the impaired graph, the local graph, dense features (fedsage.h) */
    int E, K;              /* emb_dim, num_proto */
    float *protos;         /* K x E */
    int *assign;           /* n: each node's prototype */
    fgl_gnn_graph imp_cg;  /* the impaired graph for the run's model (f_loc) */
    int built_imp_cg;
    int *imp_y;            /* labels of the impaired graph's nodes */
    unsigned char *imp_train;
    float *zbar;           /* n x E after mending */
    int mended;
    float *scores;         /* n x C, what eval_scores returns */
} fgl__dep_data;

/* The parameters: FedSage+'s NeighGen base (the weight-averaging base's
 * share, num_pred, hidden_portion, latent: fgl__fs_build and
 * fgl__fs_enc_spec read them), then FedDEP's own. */
typedef struct fgl__feddep_params {
    fgl__fs_gen_params gen;
    int gen_rounds;  /* rounds that train the generators before the classifier */
    int pre_steps;   /* local generator steps before the first exchange (round 0) */
    int gen_steps;   /* generator optimizer steps per generator round */
    int num_proto;   /* embedding prototypes per client (K-means clusters) */
    int emb_dim;     /* width of the deep embeddings */
    int enc_epochs;  /* training steps of the embedding GNN */
    int gen_hidden;  /* eGen's first hidden width */
    int gen_hidden2; /* eGen's second hidden width */
    double gen_lr;   /* generator Adam learning rate */
    double gen_wd;   /* generator weight decay */
    double lambda_d; /* weight of dGen's smooth L1 loss (beta_d) */
    double lambda_e; /* weight of the embedding losses (beta_n) */
    double lambda_c; /* weight of the local classifier's loss (beta_c) */
    double alpha;    /* weight of the cross-client embedding loss (per client) */
    int fuse_avg;    /* 1: W_z, b_z averaged with the classifier; 0: kept local */
} fgl__feddep_params;

/* A client's state (num_pred > 0), in the order of creation: its derived
 * data ("dep"), the generator's tape, the generator's encoder, the local
 * classifier f_loc, the generator, f_loc's and the classifier's fusion
 * weights, their optimizers, the last generator step's losses and the
 * deep neighbours generated ("mend"). */
typedef struct fgl__dep_client {
    fgl__dep_data *dep;
    fgl_tape *gen_tape;
    fgl_model *enc, *loc;
    fgl_params *gen, *loc_fuse, *fuse;
    fgl_optim *enc_optim, *gen_optim, *loc_optim, *loc_fuse_optim, *fuse_optim;
    float *losses;
    int *mend;
} fgl__dep_client;

/* The server's state: FedAvg's global vector; each client's latest
 * prototypes (K x num_proto emb_dim) and whether it has sent them; the
 * aggregations done; the mean W_z, b_z and whether there is one. */
typedef struct fgl__dep_server {
    fgl__avg_server avg;
    float *proto_buf;
    int *has_proto, *rounds;
    float *fuse_w, *fuse_b;
    int *has_fuse;
} fgl__dep_server;

static void fgl__dep_destroy(void *p) {
    fgl__dep_data *d = (fgl__dep_data *)p;
    fgl__fs_destroy(&d->fs);
    if (d->built_imp_cg) fgl_gnn_graph_free(&d->imp_cg);
    FGL_FREE(d->protos);
    FGL_FREE(d->assign);
    FGL_FREE(d->imp_y);
    FGL_FREE(d->imp_train);
    FGL_FREE(d->zbar);
    FGL_FREE(d->scores);
}

FGL__PRIVATE const float *fgl__feddep_zbar(const fgl_client *c) {
    const fgl__dep_data *d = c->set && FGL_PARAMS(fgl__feddep_params, c->set)->gen.num_pred > 0
                                 ? FGL_STATE(fgl__dep_client, &c->store)->dep
                                 : NULL;
    return d && d->mended ? d->zbar : NULL;
}

FGL__PRIVATE const float *fgl__feddep_protos(const fgl_client *c, const int **assign) {
    const fgl__dep_data *d = c->set && FGL_PARAMS(fgl__feddep_params, c->set)->gen.num_pred > 0
                                 ? FGL_STATE(fgl__dep_client, &c->store)->dep
                                 : NULL;
    if (assign) *assign = d ? d->assign : NULL;
    return d ? d->protos : NULL;
}

FGL__PRIVATE double fgl__feddep_nearest(const float *h, const float *q, int m, int E, int *best) {
    double bd = 0;
    int k;
    *best = 0;
    for (k = 0; k < m; k++) {
        double dd = fgl__fs_dist2(h, q + (size_t)k * E, E);
        if (k == 0 || dd < bd) bd = dd, *best = k;
    }
    return E > 0 ? bd / E : 0;
}

FGL__PRIVATE int fgl__feddep_kmeans(const float *x, int n, int E, int K, int iters, fgl_rng *rng, float *centres,
                                    int *assign) {
    double *d2 = (double *)FGL_MALLOC(sizeof(double) * (size_t)(n + 1));
    double *sum = (double *)FGL_MALLOC(sizeof(double) * ((size_t)K * (size_t)E + 1));
    int *cnt = (int *)FGL_MALLOC(sizeof(int) * (size_t)(K + 1));
    int i, k, j, it;
    if (!d2 || !sum || !cnt || K < 1 || K > n) {
        FGL_FREE(d2);
        FGL_FREE(sum);
        FGL_FREE(cnt);
        return K < 1 || K > n ? FGL_ERR_ARG : FGL_ERR_NOMEM;
    }
    /* k-means++: the first centre uniform, each next one drawn with probability ~ its squared distance */
    k = (int)fgl_rng_below(rng, (uint64_t)n);
    memcpy(centres, x + (size_t)k * E, sizeof(float) * (size_t)E);
    for (i = 0; i < n; i++) d2[i] = fgl__fs_dist2(x + (size_t)i * E, centres, E);
    for (k = 1; k < K; k++) {
        double tot = 0, r;
        int pick = n - 1;
        for (i = 0; i < n; i++) tot += d2[i];
        r = fgl_rng_uniform(rng) * tot;
        if (tot > 0) {
            for (i = 0; i < n; i++) {
                r -= d2[i];
                if (r < 0 && d2[i] > 0) {
                    pick = i;
                    break;
                }
            }
        } else {
            pick = (int)fgl_rng_below(rng, (uint64_t)n); /* all rows on the centres: any row */
        }
        memcpy(centres + (size_t)k * E, x + (size_t)pick * E, sizeof(float) * (size_t)E);
        for (i = 0; i < n; i++) {
            double dd = fgl__fs_dist2(x + (size_t)i * E, centres + (size_t)k * E, E);
            if (dd < d2[i]) d2[i] = dd;
        }
    }
    for (i = 0; i < n; i++) assign[i] = -1;
    for (it = 0; it < iters; it++) { /* Lloyd: nearest centre (the lowest index on ties), then the means */
        int moved = 0;
        for (i = 0; i < n; i++) {
            int b;
            fgl__feddep_nearest(x + (size_t)i * E, centres, K, E, &b);
            moved += b != assign[i];
            assign[i] = b;
        }
        if (!moved) break;
        memset(sum, 0, sizeof(double) * (size_t)K * (size_t)E);
        memset(cnt, 0, sizeof(int) * (size_t)K);
        for (i = 0; i < n; i++) {
            cnt[assign[i]]++;
            for (j = 0; j < E; j++) sum[(size_t)assign[i] * E + j] += x[(size_t)i * E + j];
        }
        for (k = 0; k < K; k++) /* an empty cluster keeps its centre */
            for (j = 0; cnt[k] > 0 && j < E; j++) centres[(size_t)k * E + j] = (float)(sum[(size_t)k * E + j] / cnt[k]);
    }
    FGL_FREE(d2);
    FGL_FREE(sum);
    FGL_FREE(cnt);
    return FGL_OK;
}

static int fgl__dep_check(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    const fgl__feddep_params *p = FGL_PARAMS(fgl__feddep_params, set);
    double h = p->gen.hidden_portion;
    if (spec->task != FGL_TASK_NODE) return fgl_error_set(err, FGL_ERR_ARG, "feddep: node classification only");
    if (p->gen_rounds < 0 || p->gen.num_pred < 0 || p->gen.num_pred > 64 || p->pre_steps < 0 || p->gen_steps < 1 ||
        p->enc_epochs < 0)
        return fgl_error_set(err, FGL_ERR_RANGE, "feddep: gen_rounds, pre_steps, enc_epochs >= 0, num_pred in "
                             "0..64, gen_steps >= 1");
    if (p->num_proto < 1 || p->emb_dim < 1 || p->gen.latent < 1 || p->gen_hidden < 1 || p->gen_hidden2 < 1)
        return fgl_error_set(err, FGL_ERR_RANGE, "feddep: num_proto, emb_dim, latent, gen_hidden, gen_hidden2 >= 1");
    if (!(h >= 0 && h < 1)) return fgl_error_set(err, FGL_ERR_RANGE, "feddep: hidden_portion = %g, not in [0, 1)", h);
    if (!(p->gen_lr > 0) || !(p->gen_wd >= 0) || !(p->lambda_d >= 0) || !(p->lambda_e >= 0) || !(p->lambda_c >= 0) ||
        !(p->alpha >= 0))
        return fgl_error_set(err, FGL_ERR_RANGE, "feddep: gen_lr > 0; gen_wd, lambda_d, lambda_e, lambda_c, "
                             "alpha >= 0");
    return FGL_OK;
}

/* The embedding GNN trained on the client's labels, its embeddings
 * clustered: d->protos and d->assign. */
static int fgl__dep_prototypes(fgl_client *c, fgl__dep_data *d) {
    const fgl_node_data *nd = c->data.node;
    int n = nd->n_nodes, E = d->E, K = d->K, Ke = K < n ? K : n, e, i, rc;
    int epochs = FGL_PARAMS(fgl__feddep_params, c->set)->enc_epochs;
    fgl_model_spec s = fgl_model_spec_default(FGL_ARCH_SAGE, FGL_TASK_NODE, d->fs.F, c->model.spec.out_dim);
    fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
    fgl_tape *t = FGL_STATE(fgl__dep_client, &c->store)->gen_tape;
    fgl_model m;
    fgl_optim o;
    fgl_forward fw;
    fgl_error err;
    fgl_rng r;
    float *z;
    d->protos = (float *)fgl__fs_zalloc(sizeof(float) * (size_t)K * (size_t)E);
    d->assign = (int *)fgl__fs_zalloc(sizeof(int) * (size_t)(n + 1));
    if (!d->protos || !d->assign) return FGL_ERR_NOMEM;
    if (n == 0) return FGL_OK;
    s.hidden = E;
    s.layers = 2;
    oc.lr = 0.01f;
    oc.weight_decay = 5e-4f;
    if ((rc = fgl_model_init(&m, &s, c->fed->seed * 1000003u + 0x64656d62ull + (uint64_t)c->id, &err))) return rc;
    if ((rc = fgl_optim_init(&o, oc, &m.params))) {
        fgl_model_free(&m);
        return rc;
    }
    fgl_rng_init(&r, c->fed->seed, 0x64656e63ull + (uint64_t)c->id); /* "denc" */
    for (e = 0; e < epochs && !rc; e++) {
        fgl_node *loss;
        fgl_tape_reset(t);
        fgl_params_zero_grad(&m.params);
        if ((rc = fgl_model_forward(&m, t, &d->fs.full_g, 1, &r, &fw)) || !fw.logits) break;
        loss = fgl_op_cross_entropy(t, fw.logits, nd->y, c->data.mask[FGL_SPLIT_TRAIN]);
        if ((rc = fgl_tape_backward(t, loss))) break;
        fgl_optim_step(&o, &m.params);
    }
    fgl_tape_reset(t);
    if (!rc) rc = fgl_model_forward(&m, t, &d->fs.full_g, 0, &r, &fw);
    z = rc ? NULL : (float *)FGL_MALLOC(sizeof(float) * (size_t)n * (size_t)E);
    if (!rc && !z) rc = FGL_ERR_NOMEM;
    if (!rc) {
        for (i = 0; i < n * E; i++) z[i] = tanhf(fw.node_emb->val[i]);
        fgl_rng_init(&r, c->fed->seed, 0x646b6d6eull + (uint64_t)c->id); /* "dkmn" */
        rc = fgl__feddep_kmeans(z, n, E, Ke, 100, &r, d->protos, d->assign);
        for (i = Ke; i < K; i++) /* fewer nodes than prototypes: the centres again */
            memcpy(d->protos + (size_t)i * E, d->protos + (size_t)(i % Ke) * E, sizeof(float) * (size_t)E);
    }
    fgl_tape_reset(t);
    FGL_FREE(z);
    fgl_optim_free(&o);
    fgl_model_free(&m);
    return rc;
}

/* The impaired graph as the run's model reads it, its labels and training nodes. */
static int fgl__dep_impaired_classes(fgl_client *c, fgl__dep_data *d) {
    int i, n = d->fs.n_imp;
    fgl_error err;
    d->imp_y = (int *)FGL_MALLOC(sizeof(int) * (size_t)(n + 1));
    d->imp_train = (unsigned char *)fgl__fs_zalloc((size_t)n + 1);
    if (!d->imp_y || !d->imp_train) return FGL_ERR_NOMEM;
    for (i = 0; i < n; i++) {
        d->imp_y[i] = c->data.node->y[d->fs.imp[i]];
        d->imp_train[i] = c->data.mask[FGL_SPLIT_TRAIN][d->fs.imp[i]];
    }
    if (n == 0) return FGL_OK;
    if (fgl_gnn_graph_make(&d->imp_cg, &d->fs.imp_adj, NULL, d->fs.imp_x, NULL, d->fs.F, NULL, 0, NULL, 0,
                           &c->model.spec, &err))
        return FGL_ERR_ARG;
    d->built_imp_cg = 1;
    return FGL_OK;
}

/* W_z, b_z of a fused classifier: rep_dim wide, drawn from the run seed
 * alone (every client starts from the same, as from the same model). */
static fgl_params *fgl__dep_fuse_params(fgl_client *c, const char *name, int E, int R, uint64_t stream) {
    fgl_params *f = fgl_new_params(&c->store, name);
    fgl_rng r;
    if (!f || fgl_params_add(f, "fuse.w", E, R, FGL_G_HEAD, 1) < 0 || fgl_params_add(f, "fuse.b", 1, R, FGL_G_HEAD, 1) < 0)
        return NULL;
    fgl_rng_init(&r, c->fed->seed, stream);
    fgl_params_glorot(f, fgl_params_find(f, "fuse.w"), &r);
    return f;
}

static int fgl__dep_client_init(fgl_client *c) {
    const fgl__feddep_params *pa = FGL_PARAMS(fgl__feddep_params, c->set);
    fgl__dep_client *st;
    fgl__dep_data *d;
    fgl_params *g;
    fgl_model *enc, *loc;
    fgl_model_spec es;
    fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
    int P = pa->gen.num_pred, L = pa->gen.latent;
    int H1 = pa->gen_hidden, H2 = pa->gen_hidden2;
    int E = pa->emb_dim, R = fgl_model_rep_dim(&c->model), rc;
    fgl_params *lf, *fz;
    fgl_rng r;
    if (!(st = FGL_NEW_STATE(fgl__dep_client, &c->store))) return FGL_ERR_NOMEM; /* (empty without a generator) */
    if (P == 0) return FGL_OK; /* no generator: FedAvg */
    d = st->dep = (fgl__dep_data *)fgl_new_scratch(&c->store, "dep", sizeof(fgl__dep_data), fgl__dep_destroy);
    if (!d || !(st->gen_tape = fgl_new_tape(&c->store, "gen_tape"))) return FGL_ERR_NOMEM;
    d->E = E;
    d->K = pa->num_proto;
    if ((rc = fgl__fs_build(c, &d->fs, c->data.mask[FGL_SPLIT_VAL])) || (rc = fgl__dep_prototypes(c, d)) ||
        (rc = fgl__dep_impaired_classes(c, d)))
        return fgl_client_fail(c, rc, "feddep: setup: %s", fgl_result_name(rc));
    es = fgl__fs_enc_spec(c, d->fs.F);
    enc = st->enc = fgl_new_model(&c->store, "enc", &es, c->fed->seed * 1000003u + 0x656e63u + (uint64_t)c->id);
    loc = st->loc =
        fgl_new_model(&c->store, "loc", &c->model.spec, c->fed->seed * 1000003u + 0x6c6f63u + (uint64_t)c->id);
    g = st->gen = fgl_new_params(&c->store, "gen");
    if (!enc || !loc || !g) return FGL_ERR_NOMEM;
    if (fgl_params_add(g, "dgen.w", L, 1, FGL_G_HEAD, 1) < 0 || fgl_params_add(g, "dgen.b", 1, 1, FGL_G_HEAD, 1) < 0 ||
        fgl_params_add(g, "egen.w1", L, H1, FGL_G_HEAD, 1) < 0 || fgl_params_add(g, "egen.b1", 1, H1, FGL_G_HEAD, 1) < 0 ||
        fgl_params_add(g, "egen.w2", H1, H2, FGL_G_HEAD, 1) < 0 || fgl_params_add(g, "egen.b2", 1, H2, FGL_G_HEAD, 1) < 0 ||
        fgl_params_add(g, "egen.w3", H2, P * E, FGL_G_HEAD, 1) < 0 ||
        fgl_params_add(g, "egen.b3", 1, P * E, FGL_G_HEAD, 1) < 0)
        return FGL_ERR_NOMEM;
    fgl_rng_init(&r, c->fed->seed, 0x6467656eull + (uint64_t)c->id); /* "dgen" */
    fgl_params_glorot(g, fgl_params_find(g, "dgen.w"), &r);
    fgl_params_glorot(g, fgl_params_find(g, "egen.w1"), &r);
    fgl_params_glorot(g, fgl_params_find(g, "egen.w2"), &r);
    fgl_params_glorot(g, fgl_params_find(g, "egen.w3"), &r);
    lf = st->loc_fuse = fgl__dep_fuse_params(c, "loc_fuse", E, R, 0x6c667a00ull); /* f_loc's W_z, b_z */
    fz = st->fuse = fgl__dep_fuse_params(c, "fuse", E, R, 0x66757a00ull);         /* the classifier's */
    if (!lf || !fz) return FGL_ERR_NOMEM;
    oc.lr = (float)pa->gen_lr;
    oc.weight_decay = (float)pa->gen_wd;
    st->enc_optim = fgl_new_optim(&c->store, "enc_optim", oc, &enc->params);
    st->gen_optim = fgl_new_optim(&c->store, "gen_optim", oc, g);
    st->loc_optim = fgl_new_optim(&c->store, "loc_optim", oc, &loc->params);
    st->loc_fuse_optim = fgl_new_optim(&c->store, "loc_fuse_optim", oc, lf);
    st->fuse_optim = fgl_new_optim(&c->store, "fuse_optim", c->fed->optim, fz); /* the classifier's settings */
    st->losses = fgl_new_floats(&c->store, "losses", 5); /* the last generator step: L_d, L_e, L_x, L_c, total */
    st->mend = fgl_new_ints(&c->store, "mend", 1);       /* deep neighbours generated in all */
    return c->store.err.code;
}

/* Generator forward on graph g (train: dropout and the input noise): dGen
 * before its ReLU (n x 1) and H (n x P E). */
static int fgl__dep_forward(fgl_client *c, fgl_tape *t, const fgl_gnn_graph *g, int train, fgl_node **dn,
                            fgl_node **Hn) {
    const fgl__dep_client *st = FGL_STATE(fgl__dep_client, &c->store);
    fgl_model *enc = st->enc;
    fgl_params *ps = st->gen;
    fgl_forward fw;
    fgl_node *s, *h;
    if (fgl_model_forward(enc, t, g, train, &c->rng, &fw) || !fw.logits) return t->err.code ? t->err.code : FGL_ERR_ARG;
    s = fw.logits;
    *dn = fgl_op_linear(t, s, fgl_op_param(t, ps, fgl_params_find(ps, "dgen.w")),
                        fgl_op_param(t, ps, fgl_params_find(ps, "dgen.b")));
    if (train) { /* the authors' Sampling: s + N(0, 1) */
        float *eps = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)s->rows * (size_t)s->cols + 1);
        int i;
        if (!eps) {
            fgl_tape_fail(t, FGL_ERR_NOMEM, "feddep: out of memory");
            return FGL_ERR_NOMEM;
        }
        for (i = 0; i < s->rows * s->cols; i++) eps[i] = (float)fgl_rng_normal(&c->rng);
        s = fgl_op_add(t, s, fgl_op_const(t, eps, s->rows, s->cols));
    }
    h = fgl_op_linear_relu(t, s, fgl_op_param(t, ps, fgl_params_find(ps, "egen.w1")),
                           fgl_op_param(t, ps, fgl_params_find(ps, "egen.b1")));
    h = fgl_op_linear(t, h, fgl_op_param(t, ps, fgl_params_find(ps, "egen.w2")),
                      fgl_op_param(t, ps, fgl_params_find(ps, "egen.b2")));
    h = train ? fgl_op_relu_dropout(t, h, 0.5f, &c->rng) : fgl_op_relu(t, h);
    *Hn = fgl_op_tanh(t, fgl_op_linear(t, h, fgl_op_param(t, ps, fgl_params_find(ps, "egen.w3")),
                                       fgl_op_param(t, ps, fgl_params_find(ps, "egen.b3"))));
    return t->err.code;
}

/* zbar = (1/P) sum_{p < k_v} H_v[p] on the tape (n x E), k_v from dn (rounded, ReLU'd, at most P). */
static fgl_node *fgl__dep_zbar(fgl_tape *t, fgl_node *dn, fgl_node *H, int P, int E) {
    int n = H->rows, i, p, k;
    float *mask = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n * (size_t)P * (size_t)E + 1);
    fgl_node *m, *z = NULL;
    if (!mask) return fgl_tape_fail(t, FGL_ERR_NOMEM, "feddep: out of memory");
    for (i = 0; i < n; i++) {
        double v = floor((double)dn->val[i] + 0.5);
        int kv = v <= 0 ? 0 : v >= P ? P : (int)v;
        for (p = 0; p < P; p++)
            for (k = 0; k < E; k++) mask[((size_t)i * P + p) * E + k] = p < kv ? 1.0f / P : 0.0f;
    }
    m = fgl_op_mul(t, H, fgl_op_const(t, mask, n, P * E));
    for (p = 0; p < P; p++) {
        fgl_node *s = fgl_op_slice_cols(t, m, p * E, E);
        z = z ? fgl_op_add(t, z, s) : s;
    }
    return z;
}

/* A fused classifier's logits: head(rep + zbar W_z + b_z). */
static fgl_node *fgl__dep_logits(fgl_client *c, fgl_tape *t, fgl_model *m, fgl_params *fz, const fgl_gnn_graph *g,
                                 fgl_node *zbar, int train) {
    fgl_forward fw;
    fgl_node *r;
    if (fgl_model_forward(m, t, g, train, &c->rng, &fw) || !fw.rep) return NULL;
    r = fgl_op_add(t, fw.rep, fgl_op_linear(t, zbar, fgl_op_param(t, fz, fgl_params_find(fz, "fuse.w")),
                                            fgl_op_param(t, fz, fgl_params_find(fz, "fuse.b"))));
    return fgl_model_head(m, t, r, train, &c->rng);
}

/* Generator rounds: gen_steps full-batch steps on the impaired graph (round 0: pre_steps more). */
static int fgl__dep_train_gen(fgl_client *c) {
    const fgl__feddep_params *pa = FGL_PARAMS(fgl__feddep_params, c->set);
    const fgl__dep_client *st = FGL_STATE(fgl__dep_client, &c->store);
    fgl__dep_data *d = st->dep;
    fgl__fs_data *fs = &d->fs;
    fgl_tape *t = st->gen_tape;
    fgl_model *enc = st->enc, *loc = st->loc;
    fgl_params *ps = st->gen, *lf = st->loc_fuse;
    float *losses = st->losses;
    int P = fs->P, E = d->E, n = fs->n_imp, K, s, i, p, k, rc;
    int steps = pa->gen_steps + (c->round == 0 ? pa->pre_steps : 0);
    const float *got = fgl_down(c, "cross_protos");
    double ld = pa->lambda_d, le = pa->lambda_e, lc = pa->lambda_c;
    double al = pa->alpha, loss_sum = 0;
    c->steps = 0;
    c->train_loss = 0;
    if (n == 0) return FGL_OK; /* nothing left to train on */
    K = (int)fgl_client_dim(c, FGL_DIM_CLIENTS);
    for (s = 0; s < steps; s++) {
        fgl_node *dn, *Hn, *loss, *lx = NULL, *lel = NULL, *lcl = NULL, *ldn;
        float *T, *Tx = NULL;
        int *vp, n_pairs = 0;
        fgl_tape_reset(t);
        fgl_params_zero_grad(&enc->params);
        fgl_params_zero_grad(ps);
        fgl_params_zero_grad(&loc->params);
        fgl_params_zero_grad(lf);
        if ((rc = fgl__dep_forward(c, t, &fs->imp_g, 1, &dn, &Hn)))
            return fgl_client_fail(c, rc, "feddep: generator: %s", t->err.msg);
        ldn = fgl__fs_count_loss(t, dn, fs->miss_ptr, n);
        vp = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)n * (size_t)P + 1);
        T = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n * (size_t)P * (size_t)E + 1);
        if (got) Tx = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n * (size_t)P * (size_t)E + 1);
        if (!ldn || !vp || !T || (got && !Tx)) return fgl_client_fail(c, FGL_ERR_NOMEM, "feddep: out of memory");
        /* the slots p < min(P, |M_v|): local targets (the nearest missing neighbour's prototype, on current
         * values) and cross-client ones (the nearest received prototype) */
        for (i = 0; i < n; i++) {
            int m = fs->miss_ptr[i + 1] - fs->miss_ptr[i];
            for (p = 0; p < P && p < m; p++) {
                const float *h = Hn->val + (size_t)i * P * E + (size_t)p * E;
                int best = fs->miss[fs->miss_ptr[i]], b;
                double bd = fgl__fs_dist2(h, d->protos + (size_t)d->assign[best] * E, E);
                for (k = fs->miss_ptr[i] + 1; k < fs->miss_ptr[i + 1]; k++) {
                    double dd = fgl__fs_dist2(h, d->protos + (size_t)d->assign[fs->miss[k]] * E, E);
                    if (dd < bd) bd = dd, best = fs->miss[k];
                }
                vp[n_pairs] = i * P + p;
                memcpy(T + (size_t)n_pairs * E, d->protos + (size_t)d->assign[best] * E, sizeof(float) * (size_t)E);
                if (got) {
                    fgl__feddep_nearest(h, got, d->K, E, &b);
                    memcpy(Tx + (size_t)n_pairs * E, got + (size_t)b * E, sizeof(float) * (size_t)E);
                }
                n_pairs++;
            }
        }
        if (n_pairs) {
            lel = fgl_op_scale(t, fgl__fs_sqerr(t, Hn, P, E, vp, n_pairs, T), (float)(1.0 / ((double)n_pairs * E)));
            if (got && al > 0 && K > 1)
                lx = fgl_op_scale(t, fgl__fs_sqerr(t, Hn, P, E, vp, n_pairs, Tx),
                                  (float)(al * (K - 1) / ((double)n_pairs * E)));
        }
        if (lc > 0) { /* the local classifier on the impaired graph, fused with the generated embeddings */
            fgl_node *lg = fgl__dep_logits(c, t, loc, lf, &d->imp_cg, fgl__dep_zbar(t, dn, Hn, P, E), 1);
            if (!lg) return fgl_client_fail(c, t->err.code ? t->err.code : FGL_ERR_ARG, "feddep: local classifier: %s", t->err.msg);
            lcl = fgl_op_cross_entropy(t, lg, d->imp_y, d->imp_train);
        }
        loss = fgl_op_scale(t, ldn, (float)ld);
        if (lel) loss = fgl_op_add(t, loss, fgl_op_scale(t, lel, (float)le));
        if (lx) loss = fgl_op_add(t, loss, fgl_op_scale(t, lx, (float)le));
        if (lcl) loss = fgl_op_add(t, loss, fgl_op_scale(t, lcl, (float)lc));
        if (fgl_tape_backward(t, loss)) return fgl_client_fail(c, t->err.code, "feddep: generator: %s", t->err.msg);
        losses[0] = ldn->val[0];
        losses[1] = lel ? lel->val[0] : 0.0f;
        losses[2] = lx ? lx->val[0] : 0.0f;
        losses[3] = lcl ? lcl->val[0] : 0.0f;
        losses[4] = loss->val[0];
        loss_sum += loss->val[0];
        fgl_optim_step(st->enc_optim, &enc->params);
        fgl_optim_step(st->gen_optim, ps);
        if (lcl) {
            fgl_optim_step(st->loc_optim, &loc->params);
            fgl_optim_step(st->loc_fuse_optim, lf);
        }
        c->steps++;
    }
    fgl_tape_reset(t);
    c->train_loss = loss_sum / steps;
    return FGL_OK;
}

/* Mending: the generator in evaluation mode on the whole subgraph: zbar. */
static int fgl__dep_mend(fgl_client *c, fgl__dep_data *d) {
    const fgl__dep_client *st = FGL_STATE(fgl__dep_client, &c->store);
    fgl_tape *t = st->gen_tape;
    int n = d->fs.n, P = d->fs.P, E = d->E, i, G = 0, rc;
    fgl_node *dn, *Hn, *z;
    fgl_rng keep = c->rng; /* evaluation mode draws nothing; kept as it was all the same */
    d->zbar = (float *)fgl__fs_zalloc(sizeof(float) * (size_t)n * (size_t)E + 1);
    d->scores = (float *)fgl__fs_zalloc(sizeof(float) * (size_t)n * (size_t)c->model.spec.out_dim + 1);
    if (!d->zbar || !d->scores) return fgl_client_fail(c, FGL_ERR_NOMEM, "feddep: out of memory");
    fgl_tape_reset(t);
    if (n > 0) {
        if ((rc = fgl__dep_forward(c, t, &d->fs.full_g, 0, &dn, &Hn)) || !(z = fgl__dep_zbar(t, dn, Hn, P, E))) {
            fgl_tape_reset(t);
            return fgl_client_fail(c, rc ? rc : FGL_ERR_NOMEM, "feddep: mend: %s", t->err.msg);
        }
        memcpy(d->zbar, z->val, sizeof(float) * (size_t)n * (size_t)E);
        for (i = 0; i < n; i++) {
            double v = floor((double)dn->val[i] + 0.5);
            G += v <= 0 ? 0 : v >= P ? P : (int)v;
        }
    }
    c->rng = keep;
    st->mend[0] = G;
    d->mended = 1;
    fgl_tape_reset(t);
    return FGL_OK;
}

/* The classifier: local_epochs full-batch steps on the client's graph, zbar fused before the head. */
static int fgl__dep_train_clf(fgl_client *c, fgl__dep_data *d) {
    fgl_tape *t = &c->tape;
    const fgl__dep_client *st = FGL_STATE(fgl__dep_client, &c->store);
    fgl_params *fz = st->fuse;
    fgl_optim *fo = st->fuse_optim;
    const fgl_node_data *nd = c->data.node;
    int e, n = nd->n_nodes, C = c->model.spec.out_dim, *y = nd->y, i;
    double loss_sum = 0;
    c->steps = 0;
    if (c->fed->reset_optim) {
        fgl_optim_reset(&c->optim);
        fgl_optim_reset(fo);
    }
    if (c->attacker && c->fed->attack.kind == FGL_ATTACK_LABELFLIP) { /* trains on C-1-y, as fgl_client_train */
        int *f = (int *)fgl_scratch(&c->store, sizeof(int) * (size_t)(n + 1));
        if (!f) return fgl_client_fail(c, FGL_ERR_NOMEM, "feddep: out of memory");
        for (i = 0; i < n; i++) f[i] = y[i] >= 0 && y[i] < C ? C - 1 - y[i] : y[i];
        y = f;
    }
    for (e = 0; e < c->fed->local_epochs; e++) {
        fgl_node *lg, *loss;
        fgl_tape_reset(t);
        fgl_params_defer_zero_grad(&c->model.params);
        fgl_params_zero_grad(fz);
        lg = fgl__dep_logits(c, t, &c->model, fz, &c->data.full, fgl_op_const(t, d->zbar, n, d->E), 1);
        if (!lg) return fgl_client_fail(c, t->err.code ? t->err.code : FGL_ERR_ARG, "feddep: classifier: %s", t->err.msg);
        loss = fgl_op_cross_entropy(t, lg, y, c->data.mask[FGL_SPLIT_TRAIN]);
        if (fgl_tape_backward(t, loss)) return fgl_client_fail(c, t->err.code, "feddep: classifier: %s", t->err.msg);
        loss_sum += loss->val[0];
        fgl_optim_step(&c->optim, &c->model.params);
        fgl_optim_step(fo, fz);
        c->steps++;
    }
    fgl_tape_reset(t);
    c->train_loss = c->steps ? loss_sum / c->steps : 0.0;
    return FGL_OK;
}

static int fgl__dep_train(fgl_client *c) {
    const fgl__feddep_params *pa = FGL_PARAMS(fgl__feddep_params, c->set);
    fgl__dep_data *d;
    int rc;
    if (pa->gen.num_pred == 0) return fgl_client_train(c, &c->model, &c->optim, &c->algo->train);
    if (c->round < pa->gen_rounds) return fgl__dep_train_gen(c);
    d = FGL_STATE(fgl__dep_client, &c->store)->dep;
    if (!d->mended && (rc = fgl__dep_mend(c, d))) return rc;
    if (pa->fuse_avg != 0) { /* the averaged W_z, b_z (none yet in the first classifier round) */
        fgl_params *fz = FGL_STATE(fgl__dep_client, &c->store)->fuse;
        const float *w = fgl_down(c, "fuse_w"), *b = fgl_down(c, "fuse_b");
        size_t nw = (size_t)d->E * (size_t)fgl_model_rep_dim(&c->model);
        if (w && b) {
            memcpy(fz->data + fz->slices[fgl_params_find(fz, "fuse.w")].offset, w, sizeof(float) * nw);
            memcpy(fz->data + fz->slices[fgl_params_find(fz, "fuse.b")].offset, b,
                   sizeof(float) * (size_t)fgl_model_rep_dim(&c->model));
        }
    }
    return fgl__dep_train_clf(c, d);
}

/* Evaluation: the fused classifier's scores once mended; before, the model as it is. */
static const float *fgl__dep_scores(fgl_client *c) {
    const fgl__dep_client *st =
        FGL_PARAMS(fgl__feddep_params, c->set)->gen.num_pred > 0 ? FGL_STATE(fgl__dep_client, &c->store) : NULL;
    fgl__dep_data *d = st ? st->dep : NULL;
    fgl_tape *t = &c->tape;
    fgl_rng keep = c->rng;
    fgl_node *lg;
    int n;
    if (!d || !fgl__feddep_zbar(c)) return NULL;
    n = c->data.node->n_nodes;
    if (n == 0) return d->scores;
    fgl_tape_reset(t);
    lg = fgl__dep_logits(c, t, &c->model, st->fuse, &c->data.full,
                         fgl_op_const(t, d->zbar, n, d->E), 0);
    c->rng = keep;
    if (!lg) return NULL;
    memcpy(d->scores, lg->val, sizeof(float) * (size_t)n * (size_t)lg->cols);
    fgl_tape_reset(t);
    return d->scores;
}

/* In generator rounds: the client's prototypes. */
static int fgl__dep_upload(fgl_client *c) {
    const fgl__feddep_params *pa = FGL_PARAMS(fgl__feddep_params, c->set);
    int on = pa->gen.num_pred > 0 && c->round < pa->gen_rounds;
    if (on) {
        const float *protos = fgl__feddep_protos(c, NULL);
        float *up = fgl_up(c, "protos");
        if (!up || !protos) return FGL_ERR_NOMEM;
        memcpy(up, protos, sizeof(float) * (size_t)pa->num_proto * (size_t)pa->emb_dim);
    } else {
        fgl_up_drop(c, "protos");
    }
    if (!on && pa->gen.num_pred > 0 && pa->fuse_avg != 0) { /* W_z, b_z to average */
        const fgl_params *fz = FGL_STATE(fgl__dep_client, &c->store)->fuse;
        const fgl_slice *sw = &fz->slices[fgl_params_find(fz, "fuse.w")], *sb = &fz->slices[fgl_params_find(fz, "fuse.b")];
        float *w = fgl_up(c, "fuse_w"), *b = fgl_up(c, "fuse_b");
        if (!w || !b) return FGL_ERR_NOMEM;
        memcpy(w, fz->data + sw->offset, sizeof(float) * fgl_slice_size(sw));
        memcpy(b, fz->data + sb->offset, sizeof(float) * fgl_slice_size(sb));
    } else {
        fgl_up_drop(c, "fuse_w");
        fgl_up_drop(c, "fuse_b");
    }
    return FGL_OK;
}

static int fgl__dep_server_init(fgl_server *s) {
    size_t K = (size_t)s->n_clients, L = fgl_server_up_size(s, "protos");
    fgl__dep_server *st = FGL_NEW_STATE(fgl__dep_server, &s->store);
    if (!st) return FGL_ERR_NOMEM;
    st->proto_buf = fgl_new_floats(&s->store, "proto_buf", K * L);
    st->has_proto = fgl_new_ints(&s->store, "has_proto", K);
    st->rounds = fgl_new_ints(&s->store, "rounds", 1); /* aggregations done */
    st->fuse_w = fgl_new_floats(&s->store, "fuse_w", fgl_server_up_size(s, "fuse_w"));
    st->fuse_b = fgl_new_floats(&s->store, "fuse_b", fgl_server_up_size(s, "fuse_b"));
    st->has_fuse = fgl_new_ints(&s->store, "has_fuse", 1);
    if (s->store.err.code) return s->store.err.code;
    return fgl__avg_server_init(s); /* st->avg.global, after the entries above (their order is the checkpoint's) */
}

static int fgl__dep_aggregate(fgl_server *s) {
    const fgl__dep_server *st = FGL_STATE(fgl__dep_server, &s->store);
    int K = s->n_clients, i, rc = fgl__avg_aggregate(s);
    size_t L = fgl_server_up_size(s, "protos");
    float *buf = st->proto_buf;
    int *has = st->has_proto;
    if (rc) return rc;
    for (i = 0; i < K; i++) { /* the latest prototypes of each client */
        const float *u = fgl_upload(s, i, "protos");
        if (u) memcpy(buf + (size_t)i * L, u, sizeof(float) * L), has[i] = 1;
    }
    /* the fusion weights: averaged as theta is (by training samples) */
    if ((rc = fgl_server_mean(s, "fuse_w", st->fuse_w)) == FGL_OK &&
        (rc = fgl_server_mean(s, "fuse_b", st->fuse_b)) == FGL_OK)
        st->has_fuse[0] = 1;
    if (rc && rc != FGL_ERR_EMPTY) return rc;
    st->rounds[0]++;
    return FGL_OK;
}

/* Client i, in the round this download serves, gets the prototypes of
 * client (i + 1 + round mod (K - 1)) mod K (fedsage.h's rotation). */
static int fgl__dep_download(fgl_server *s, int i, fgl_msg *down) {
    const fgl__feddep_params *pa = FGL_PARAMS(fgl__feddep_params, s->set);
    const fgl__dep_server *st = FGL_STATE(fgl__dep_server, &s->store);
    int K = s->n_clients, r = st->rounds[0], p;
    size_t L = fgl_server_up_size(s, "protos");
    (void)down;
    if (pa->gen.num_pred == 0) return FGL_OK;
    if (r >= pa->gen_rounds && st->has_fuse[0]) { /* the averaged W_z, b_z */
        float *w = fgl_download_part(s, i, "fuse_w"), *b = fgl_download_part(s, i, "fuse_b");
        if (!w || !b) return FGL_ERR_NOMEM;
        memcpy(w, st->fuse_w, sizeof(float) * fgl_server_up_size(s, "fuse_w"));
        memcpy(b, st->fuse_b, sizeof(float) * fgl_server_up_size(s, "fuse_b"));
    }
    if (K < 2 || r >= pa->gen_rounds) return FGL_OK;
    p = (i + 1 + r % (K - 1)) % K;
    if (st->has_proto[p]) {
        float *o = fgl_download_part(s, i, "cross_protos");
        if (!o) return FGL_ERR_NOMEM;
        memcpy(o, st->proto_buf + (size_t)p * L, sizeof(float) * L);
    }
    return FGL_OK;
}

static fgl_algo fgl__feddep(void) {
    fgl_algo a = fgl__avg_base("feddep",
                               "Zhang et al. 2024 (FedDEP): per-client generators of missing neighbours' deep "
                               "embeddings, trained against embedding prototypes shared across clients, then "
                               "FedAvg on classifiers fused with the generated embeddings",
                               FGL_G_ALL, "parameter groups of the classifier averaged");
    int rows, cols;
    FGL_ALGO_PARAM(&a, fgl__feddep_params, gen_rounds, FGL_PARAM_INT, 3,
                   "rounds that train the generators before the classifier");
    FGL_ALGO_PARAM(&a, fgl__feddep_params, pre_steps, FGL_PARAM_INT, 1,
                   "local generator steps before the first exchange (round 0)");
    FGL_ALGO_PARAM(&a, fgl__feddep_params, gen_steps, FGL_PARAM_INT, 1,
                   "generator optimizer steps per generator round");
    FGL_ALGO_PARAM(&a, fgl__fs_gen_params, num_pred, FGL_PARAM_INT, 5,
                   "deep neighbours generated per node at most (0: FedAvg)");
    FGL_ALGO_PARAM(&a, fgl__feddep_params, num_proto, FGL_PARAM_INT, 5,
                   "embedding prototypes per client (K-means clusters)");
    FGL_ALGO_PARAM(&a, fgl__feddep_params, emb_dim, FGL_PARAM_INT, 128, "width of the deep embeddings");
    FGL_ALGO_PARAM(&a, fgl__feddep_params, enc_epochs, FGL_PARAM_INT, 50, "training steps of the embedding GNN");
    FGL_ALGO_PARAM(&a, fgl__fs_gen_params, hidden_portion, FGL_PARAM_FLOAT, 0.5,
                   "share of the validation nodes hidden in the impaired graph");
    FGL_ALGO_PARAM(&a, fgl__fs_gen_params, latent, FGL_PARAM_INT, 128, "generator encoder width");
    FGL_ALGO_PARAM(&a, fgl__feddep_params, gen_hidden, FGL_PARAM_INT, 256, "eGen's first hidden width");
    FGL_ALGO_PARAM(&a, fgl__feddep_params, gen_hidden2, FGL_PARAM_INT, 2048, "eGen's second hidden width");
    FGL_ALGO_PARAM(&a, fgl__feddep_params, gen_lr, FGL_PARAM_FLOAT, 0.01, "generator Adam learning rate");
    FGL_ALGO_PARAM(&a, fgl__feddep_params, gen_wd, FGL_PARAM_FLOAT, 5e-4, "generator weight decay");
    FGL_ALGO_PARAM(&a, fgl__feddep_params, lambda_d, FGL_PARAM_FLOAT, 1.0, "weight of dGen's smooth L1 loss (beta_d)");
    FGL_ALGO_PARAM(&a, fgl__feddep_params, lambda_e, FGL_PARAM_FLOAT, 1.0, "weight of the embedding losses (beta_n)");
    FGL_ALGO_PARAM(&a, fgl__feddep_params, lambda_c, FGL_PARAM_FLOAT, 1.0,
                   "weight of the local classifier's loss (beta_c)");
    FGL_ALGO_PARAM(&a, fgl__feddep_params, alpha, FGL_PARAM_FLOAT, 1.0,
                   "weight of the cross-client embedding loss (per client)");
    FGL_ALGO_PARAM(&a, fgl__feddep_params, fuse_avg, FGL_PARAM_INT, 1,
                   "1: the fusion weights W_z, b_z averaged with the classifier (the authors'); 0: kept local");
    rows = fgl_algo_param_dim(&a, "num_proto");
    cols = fgl_algo_param_dim(&a, "emb_dim");
    fgl_algo_upload(&a, "protos", FGL_SEND_DATA, rows, cols, FGL_PART_OPTIONAL);
    fgl_algo_download(&a, "cross_protos", FGL_SEND_DATA, rows, cols, FGL_PART_OPTIONAL, NULL);
    fgl_algo_upload(&a, "fuse_w", FGL_SEND_DATA, cols, FGL_DIM_REP, FGL_PART_OPTIONAL | FGL_PART_RAW);
    fgl_algo_upload(&a, "fuse_b", FGL_SEND_DATA, 1, FGL_DIM_REP, FGL_PART_OPTIONAL | FGL_PART_RAW);
    fgl_algo_download(&a, "fuse_w", FGL_SEND_DATA, cols, FGL_DIM_REP, FGL_PART_OPTIONAL, NULL);
    fgl_algo_download(&a, "fuse_b", FGL_SEND_DATA, 1, FGL_DIM_REP, FGL_PART_OPTIONAL, NULL);
    a.prepare_spec = fgl__dep_check;
    a.client_init = fgl__dep_client_init;
    a.local_train = fgl__dep_train;
    a.upload = fgl__dep_upload;
    a.eval_scores = fgl__dep_scores;
    a.server_init = fgl__dep_server_init;
    a.aggregate = fgl__dep_aggregate;
    a.download = fgl__dep_download;
    a.report = fgl__fs_report;
    return a;
}
#include "../../alone.h"
