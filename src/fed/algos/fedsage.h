#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:private */
#include "../../alone.h"
/* The client's derived data (rebuilt from the seed and its data, never saved). */
typedef struct fgl__fs_data {
    int n, F, P, n_imp;
    float *x;               /* n x F dense features of the local graph */
    int *imp;               /* n_imp: local id of each remaining node */
    int *miss_ptr, *miss;   /* remaining node i misses local nodes miss[miss_ptr[i] .. miss_ptr[i+1]-1] */
    fgl_csr imp_adj;
    float *imp_x;
    fgl_gnn_graph imp_g, full_g;
    int built_imp, built_full;
    /* the mended graph (the classifier's) */
    int mended;
    fgl_csr m_adj;
    float *m_x;
    int *m_y;
    unsigned char *m_mask;
    fgl_node_data m_nd;
    fgl_gnn_graph m_g;
} fgl__fs_data;
/* Tests: client c's generated-neighbour counts k_v (n ints), recomputed
 * from its generator in evaluation mode; its mended graph (NULL before the
 * first classifier round). */
FGL__PRIVATE int fgl__fedsage_counts(fgl_client *c, int *kv);
FGL__PRIVATE const fgl_gnn_graph *fgl__fedsage_mended(const fgl_client *c);
/* fgl:implementation */
#include "../../alone.h"
/* --- FedSage+ (Zhang et al. 2021) --------------------------------------------------- */
/* Subgraph FL with missing-neighbour generation (docs/algorithms.md, FedSage+).
 * Two phases over one run: rounds 0 .. gen_rounds-1 train every client's
 * NeighGen, the later rounds train the classifier with FedAvg on each
 * client's subgraph mended by its NeighGen.
 *
 * NeighGen (per client, never averaged): an encoder (a 2-layer mean-SAGE,
 * width `latent`, dropout 0.5) gives z_v; dGen n_v = ReLU(z_v w_d + b_d)
 * predicts how many neighbours v misses (its loss reads the value before the
 * ReLU, so that a unit dead at the start still learns); fGen H_v = tanh(ReLU(z_v W_1 + b_1)
 * W_2 + b_2) (width gen_hidden, dropout 0.5) generates num_pred feature
 * vectors H_v[0..num_pred-1]. It trains on an impaired copy of the client's
 * subgraph: a fraction hidden_portion of its nodes (drawn once from the seed)
 * is removed, and each remaining node's neighbours among them are its
 * missing neighbours M_v. The loss per step is
 *     lambda_d SmoothL1(n_v, |M_v|)                              (mean over v)
 *   + lambda_f sum_{p < min(P, |M_v|)} min_{u in M_v} ||H_v[p] - x_u||^2 / F
 *                                                                (mean over slots)
 *   + alpha (K - 1) sum_{(v,p) in S} ||H_v[p] - t_(v,p)||^2 / F  (mean over S)
 * where the last, cross-client term stands for the paper's
 * alpha sum_{j != i} min_{u in V_j} ||H_v[p] - x_u||^2: every round a client
 * uploads `cross` generated vectors H_v[p] of a random sample S of its
 * impaired nodes and slots ("gen"); the server routes them to one other
 * client j (a rotation: each round another j, each j answering one client);
 * j answers, for each vector h, the gradient 2 (h - x_u*) of the squared
 * distance to its nearest own node feature x_u* ("back"), and the server
 * routes the answer back. The asking client, two rounds after it sent S,
 * recovers t = h - g / 2 = x_u* and adds the term on its current H_v[p].
 * Sent per NeighGen round: up 4 cross F (gen) + 4 cross F (back), down the
 * same, on top of FedAvg's model parts (which stay as they were: the
 * classifier does not train in this phase).
 *
 * Mending (the first classifier round, and again after a resume, from the
 * stored generator, deterministic): the encoder runs in evaluation mode on
 * the whole local subgraph; node v gets k_v = min(P, round(n_v)) new nodes
 * with features H_v[0..k_v-1], each linked to v only, unlabelled and in no
 * split. The classifier trains on the mended graph; evaluation stays on the
 * client's own graph (no generated nodes), as the authors test on the
 * original graph. num_pred = 0 (or gen_rounds = 0 with num_pred = 0) is
 * FedAvg, bit for bit. The generator's uploads are marked raw: robust rules,
 * DP and secure aggregation cover the classifier's mean only and such runs
 * are refused. */


static void fgl__fs_unmend(fgl__fs_data *d) {
    if (d->mended) fgl_gnn_graph_free(&d->m_g);
    fgl_csr_free(&d->m_adj);
    FGL_FREE(d->m_x);
    FGL_FREE(d->m_y);
    FGL_FREE(d->m_mask);
    d->m_x = NULL;
    d->m_y = NULL;
    d->m_mask = NULL;
    d->mended = 0;
}

static void fgl__fs_destroy(void *p) {
    fgl__fs_data *d = (fgl__fs_data *)p;
    fgl__fs_unmend(d);
    if (d->built_imp) fgl_gnn_graph_free(&d->imp_g);
    if (d->built_full) fgl_gnn_graph_free(&d->full_g);
    fgl_csr_free(&d->imp_adj);
    FGL_FREE(d->x);
    FGL_FREE(d->imp);
    FGL_FREE(d->miss_ptr);
    FGL_FREE(d->miss);
    FGL_FREE(d->imp_x);
}

/* Zeroed memory through FGL_MALLOC (a user's allocator has no calloc). */
static void *fgl__fs_zalloc(size_t bytes) {
    void *p = FGL_MALLOC(bytes ? bytes : 1);
    if (p) memset(p, 0, bytes ? bytes : 1);
    return p;
}

/* The parameters. The NeighGen parameters that fgl__fs_build and
 * fgl__fs_enc_spec read begin both FedSage+'s struct and FedDEP's
 * (feddep.h), after the weight-averaging base's (fedavg.h). */
typedef struct fgl__fs_gen_params {
    fgl__avg_params avg;
    int num_pred;          /* generated neighbours per node at most (0: FedAvg) */
    double hidden_portion; /* share of the (pool's) nodes hidden in the impaired graph */
    int latent;            /* NeighGen encoder width */
} fgl__fs_gen_params;

typedef struct fgl__fedsage_params {
    fgl__fs_gen_params gen;
    int gen_rounds;  /* rounds that train NeighGen before the classifier's */
    int gen_hidden;  /* fGen hidden width */
    int gen_steps;   /* NeighGen optimizer steps per round */
    double gen_lr;   /* NeighGen Adam learning rate */
    double gen_wd;   /* NeighGen weight decay */
    double lambda_d; /* weight of dGen's smooth L1 loss */
    double lambda_f; /* weight of fGen's local feature loss */
    double alpha;    /* weight of fGen's cross-client feature loss (per client) */
    int cross;       /* generated vectors sent for cross-client matching per round */
} fgl__fedsage_params;

/* A client's state (num_pred > 0), in the order of creation: its derived
 * data ("fs"), the NeighGen encoder and generator with their optimizers,
 * the vectors of the last two samples sent ("sent", "sent_idx": v P + p,
 * "sent_n": how many), the last NeighGen step's losses, the mended graph's
 * counts ("mend") and the generator's tape. */
typedef struct fgl__fs_client {
    fgl__fs_data *fs;
    fgl_model *enc;
    fgl_params *gen;
    fgl_optim *enc_optim, *gen_optim;
    float *sent;
    int *sent_idx, *sent_n;
    float *losses;
    int *mend;
    fgl_tape *gen_tape;
} fgl__fs_client;

/* The server's state: FedAvg's global vector, and the cross-client
 * exchange: the last uploads of "gen" and "back" (K x cross F each),
 * whether each client has them, whose vectors each client was sent last
 * ("src") and the aggregations done ("rounds"). */
typedef struct fgl__fs_server {
    fgl__avg_server avg;
    float *gen_buf, *back_buf;
    int *has_gen, *has_back, *src, *rounds;
} fgl__fs_server;

static fgl_model_spec fgl__fs_enc_spec(const fgl_client *c, int F) {
    fgl_model_spec s =
        fgl_model_spec_default(FGL_ARCH_SAGE, FGL_TASK_NODE, F, FGL_PARAMS(fgl__fs_gen_params, c->set)->latent);
    s.hidden = s.out_dim;
    s.layers = 2;
    s.head = FGL_HEAD_NONE;
    return s;
}

static int fgl__fs_check(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    const fgl__fedsage_params *p = FGL_PARAMS(fgl__fedsage_params, set);
    double h = p->gen.hidden_portion;
    if (spec->task != FGL_TASK_NODE) return fgl_error_set(err, FGL_ERR_ARG, "fedsage: node classification only");
    if (p->gen_rounds < 0 || p->gen.num_pred < 0 || p->gen.num_pred > 64 || p->gen.latent < 1 || p->gen_hidden < 1 ||
        p->gen_steps < 1)
        return fgl_error_set(err, FGL_ERR_RANGE, "fedsage: gen_rounds >= 0, num_pred in 0..64, latent, gen_hidden "
                             "and gen_steps >= 1");
    if (!(h >= 0 && h < 1)) return fgl_error_set(err, FGL_ERR_RANGE, "fedsage: hidden_portion = %g, not in [0, 1)", h);
    if (!(p->gen_lr > 0) || !(p->gen_wd >= 0) || !(p->lambda_d >= 0) || !(p->lambda_f >= 0) || !(p->alpha >= 0))
        return fgl_error_set(err, FGL_ERR_RANGE, "fedsage: gen_lr > 0; gen_wd, lambda_d, lambda_f, alpha >= 0");
    return FGL_OK;
}

/* The impaired graph, the local graph and the dense features. The hidden
 * nodes are floor(hidden_portion m) of the m nodes with pool[i] set (pool
 * NULL: of all nodes; FedDEP hides validation nodes only). */
static int fgl__fs_build(fgl_client *c, fgl__fs_data *d, const unsigned char *pool) {
    const fgl_node_data *nd = c->data.node;
    const fgl_csr *A = &nd->adj;
    const fgl__fs_gen_params *gp = FGL_PARAMS(fgl__fs_gen_params, c->set);
    int n = nd->n_nodes, F = nd->n_feat, i, k, nh, np, ne = 0, rc;
    double h = gp->hidden_portion;
    int *hide = NULL, *map = NULL, *r = NULL, *cc = NULL;
    fgl_model_spec es = fgl__fs_enc_spec(c, F);
    fgl_rng rng;
    fgl_error err;
    d->n = n;
    d->F = F;
    d->P = gp->num_pred;
    d->x = (float *)fgl__fs_zalloc(sizeof(float) * ((size_t)n * (size_t)F + 1));
    map = (int *)FGL_MALLOC(sizeof(int) * (size_t)(n + 1));
    hide = (int *)FGL_MALLOC(sizeof(int) * (size_t)(n + 1));
    d->imp = (int *)FGL_MALLOC(sizeof(int) * (size_t)(n + 1));
    d->miss_ptr = (int *)fgl__fs_zalloc(sizeof(int) * ((size_t)n + 1));
    d->miss = (int *)FGL_MALLOC(sizeof(int) * (size_t)(A->nnz + 1));
    r = (int *)FGL_MALLOC(sizeof(int) * (size_t)(A->nnz + 1));
    cc = (int *)FGL_MALLOC(sizeof(int) * (size_t)(A->nnz + 1));
    rc = FGL_ERR_NOMEM;
    if (!d->x || !map || !hide || !d->imp || !d->miss_ptr || !d->miss || !r || !cc) goto done;
    if (nd->x.data && nd->x.rows == n) {
        memcpy(d->x, nd->x.data, sizeof(float) * (size_t)n * (size_t)F);
    } else {
        const fgl_csr *X = &nd->x_sparse;
        for (i = 0; i < n; i++)
            for (k = X->indptr[i]; k < X->indptr[i + 1]; k++)
                d->x[(size_t)i * F + X->indices[k]] = X->values ? X->values[k] : 1.0f;
    }
    /* hide floor(h m) of the m nodes of the pool, drawn from the run seed and the client */
    for (i = 0, np = 0; i < n; i++)
        if (!pool || pool[i]) map[np++] = i;
    nh = (int)floor(h * np);
    fgl_rng_init(&rng, c->fed->seed, 0x66736869ull + (uint64_t)c->id); /* "fshi" */
    if (nh > 0 && fgl_rng_sample(&rng, np, nh, hide)) goto done;
    for (i = 0; i < nh; i++) hide[i] = map[hide[i]];
    for (i = 0; i < n; i++) map[i] = 0;
    for (i = 0; i < nh; i++) map[hide[i]] = -1;
    d->n_imp = 0;
    for (i = 0; i < n; i++)
        if (map[i] == 0) d->imp[d->n_imp] = i, map[i] = d->n_imp++;
    for (i = 0; i < d->n_imp; i++) {
        int v = d->imp[i];
        d->miss_ptr[i + 1] = d->miss_ptr[i];
        for (k = A->indptr[v]; k < A->indptr[v + 1]; k++) {
            int u = A->indices[k];
            if (map[u] < 0) d->miss[d->miss_ptr[i + 1]++] = u;
            else r[ne] = i, cc[ne++] = map[u];
        }
    }
    d->imp_x = (float *)FGL_MALLOC(sizeof(float) * ((size_t)d->n_imp * (size_t)F + 1));
    if (!d->imp_x) goto done;
    for (i = 0; i < d->n_imp; i++) memcpy(d->imp_x + (size_t)i * F, d->x + (size_t)d->imp[i] * F, sizeof(float) * F);
    if (d->n_imp > 0) {
        if ((rc = fgl_csr_from_coo(d->n_imp, d->n_imp, ne, r, cc, NULL, 0, &d->imp_adj, &err))) goto done;
        if ((rc = fgl_gnn_graph_make(&d->imp_g, &d->imp_adj, NULL, d->imp_x, NULL, F, NULL, 0, NULL, 0, &es, &err)))
            goto done;
        d->built_imp = 1;
    }
    if ((rc = fgl_gnn_graph_make(&d->full_g, A, NULL, d->x, NULL, F, NULL, 0, NULL, 0, &es, &err))) goto done;
    d->built_full = 1;
    rc = FGL_OK;
done:
    FGL_FREE(map);
    FGL_FREE(hide);
    FGL_FREE(r);
    FGL_FREE(cc);
    return rc;
}

static int fgl__fs_client_init(fgl_client *c) {
    const fgl__fedsage_params *pa = FGL_PARAMS(fgl__fedsage_params, c->set);
    fgl__fs_client *st;
    fgl__fs_data *d;
    fgl_params *g;
    fgl_model *enc;
    fgl_model_spec es;
    fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
    int P = pa->gen.num_pred, L = pa->gen.latent;
    int H = pa->gen_hidden;
    int F, cross = pa->cross, rc;
    fgl_rng r;
    if (!(st = FGL_NEW_STATE(fgl__fs_client, &c->store))) return FGL_ERR_NOMEM; /* (empty without a generator) */
    if (P == 0) return FGL_OK; /* no generator: FedAvg */
    d = st->fs = (fgl__fs_data *)fgl_new_scratch(&c->store, "fs", sizeof(fgl__fs_data), fgl__fs_destroy);
    if (!d) return FGL_ERR_NOMEM;
    if ((rc = fgl__fs_build(c, d, NULL)))
        return fgl_client_fail(c, rc, "fedsage: impaired graph: %s", fgl_result_name(rc));
    F = d->F;
    es = fgl__fs_enc_spec(c, F);
    enc = st->enc = fgl_new_model(&c->store, "enc", &es, c->fed->seed * 1000003u + 0x656e63u + (uint64_t)c->id);
    g = st->gen = fgl_new_params(&c->store, "gen");
    if (!enc || !g) return FGL_ERR_NOMEM;
    if (fgl_params_add(g, "dgen.w", L, 1, FGL_G_HEAD, 1) < 0 || fgl_params_add(g, "dgen.b", 1, 1, FGL_G_HEAD, 1) < 0 ||
        fgl_params_add(g, "fgen.w1", L, H, FGL_G_HEAD, 1) < 0 ||
        fgl_params_add(g, "fgen.b1", 1, H, FGL_G_HEAD, 1) < 0 ||
        fgl_params_add(g, "fgen.w2", H, P * F, FGL_G_HEAD, 1) < 0 ||
        fgl_params_add(g, "fgen.b2", 1, P * F, FGL_G_HEAD, 1) < 0)
        return FGL_ERR_NOMEM;
    fgl_rng_init(&r, c->fed->seed, 0x6667656eull + (uint64_t)c->id); /* "fgen" */
    fgl_params_glorot(g, fgl_params_find(g, "dgen.w"), &r);
    fgl_params_glorot(g, fgl_params_find(g, "fgen.w1"), &r);
    fgl_params_glorot(g, fgl_params_find(g, "fgen.w2"), &r);
    oc.lr = (float)pa->gen_lr;
    oc.weight_decay = (float)pa->gen_wd;
    st->enc_optim = fgl_new_optim(&c->store, "enc_optim", oc, &enc->params);
    st->gen_optim = fgl_new_optim(&c->store, "gen_optim", oc, g);
    st->sent = fgl_new_floats(&c->store, "sent", (size_t)2 * (size_t)cross * (size_t)F); /* H of the last two samples */
    st->sent_idx = fgl_new_ints(&c->store, "sent_idx", (size_t)2 * (size_t)cross);     /* their v P + p */
    st->sent_n = fgl_new_ints(&c->store, "sent_n", 2);
    st->losses = fgl_new_floats(&c->store, "losses", 4); /* the last NeighGen step: L_d, L_f, L_x, total */
    st->mend = fgl_new_ints(&c->store, "mend", 2);       /* the mended graph: generated nodes, nodes before */
    st->gen_tape = fgl_new_tape(&c->store, "gen_tape");
    return c->store.err.code;
}

/* One NeighGen forward on graph g (train: dropout): dGen's output before
 * its ReLU (n x 1; the loss reads it there, so that a unit dead at the start
 * still learns, and the counts are ReLU'd where they are used) and H (n x P F). */
static int fgl__fs_forward(fgl_client *c, fgl_tape *t, const fgl_gnn_graph *g, int train, fgl_node **dn,
                           fgl_node **Hn) {
    const fgl__fs_client *st = FGL_STATE(fgl__fs_client, &c->store);
    fgl_model *enc = st->enc;
    fgl_params *ps = st->gen;
    fgl_forward fw;
    fgl_node *z, *h;
    if (fgl_model_forward(enc, t, g, train, &c->rng, &fw) || !fw.logits) return t->err.code ? t->err.code : FGL_ERR_ARG;
    z = fw.logits;
    *dn = fgl_op_linear(t, z, fgl_op_param(t, ps, fgl_params_find(ps, "dgen.w")),
                        fgl_op_param(t, ps, fgl_params_find(ps, "dgen.b"))); /* before the ReLU (see above) */
    h = fgl_op_linear(t, z, fgl_op_param(t, ps, fgl_params_find(ps, "fgen.w1")),
                      fgl_op_param(t, ps, fgl_params_find(ps, "fgen.b1")));
    h = train ? fgl_op_relu_dropout(t, h, 0.5f, &c->rng) : fgl_op_relu(t, h);
    *Hn = fgl_op_tanh(t, fgl_op_linear(t, h, fgl_op_param(t, ps, fgl_params_find(ps, "fgen.w2")),
                                       fgl_op_param(t, ps, fgl_params_find(ps, "fgen.b2"))));
    return t->err.code;
}

/* sum over the pairs k of ||H_{v_k}[p_k] - T_k||^2 (T: n_pairs x F), slot by
 * slot (a gather of the slot's columns); NULL when there are no pairs. */
static fgl_node *fgl__fs_sqerr(fgl_tape *t, fgl_node *H, int P, int F, const int *vp, int n_pairs, const float *T) {
    fgl_node *acc = NULL;
    int p, k;
    for (p = 0; p < P; p++) {
        int m = 0, *idx;
        float *tg;
        fgl_node *s;
        for (k = 0; k < n_pairs; k++) m += vp[k] % P == p;
        if (!m) continue;
        idx = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)m);
        tg = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)m * (size_t)F);
        if (!idx || !tg) return fgl_tape_fail(t, FGL_ERR_NOMEM, "fedsage: out of memory");
        for (k = 0, m = 0; k < n_pairs; k++)
            if (vp[k] % P == p) {
                idx[m] = vp[k] / P;
                memcpy(tg + (size_t)m * F, T + (size_t)k * F, sizeof(float) * (size_t)F);
                m++;
            }
        s = fgl_op_gather_rows(t, fgl_op_slice_cols(t, H, p * F, F), idx, m);
        s = fgl_op_sum(t, fgl_op_square(t, fgl_op_sub(t, s, fgl_op_const(t, tg, m, F))));
        acc = acc ? fgl_op_add(t, acc, s) : s;
    }
    return acc;
}

/* dGen's loss: the mean over the n nodes of smooth L1 (beta 1) between dn
 * (n x 1, before the ReLU) and the true missing counts miss_ptr[i+1] -
 * miss_ptr[i], written with masks of the current values: 0.5 e^2 where
 * |e| < 1, |e| - 0.5 elsewhere. NULL when out of memory. */
static fgl_node *fgl__fs_count_loss(fgl_tape *t, fgl_node *dn, const int *miss_ptr, int n) {
    float *cnt = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n);
    float *m1 = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n);
    float *m2 = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n);
    fgl_node *e, *l;
    double off = 0;
    int i;
    if (!cnt || !m1 || !m2) return NULL;
    for (i = 0; i < n; i++) {
        double x;
        cnt[i] = (float)(miss_ptr[i + 1] - miss_ptr[i]);
        x = (double)dn->val[i] - cnt[i];
        m1[i] = fabs(x) < 1 ? (float)(0.5 / n) : 0.0f;
        m2[i] = fabs(x) < 1 ? 0.0f : (float)(1.0 / n);
        if (fabs(x) >= 1) off += 0.5 / n;
    }
    e = fgl_op_sub(t, dn, fgl_op_const(t, cnt, n, 1));
    l = fgl_op_add(t, fgl_op_sum(t, fgl_op_mul(t, fgl_op_square(t, e), fgl_op_const(t, m1, n, 1))),
                   fgl_op_sum(t, fgl_op_mul(t, fgl_op_abs(t, e), fgl_op_const(t, m2, n, 1))));
    return fgl_op_affine(t, l, 1.0f, (float)-off);
}

static double fgl__fs_dist2(const float *a, const float *b, int F) {
    double s = 0;
    int j;
    for (j = 0; j < F; j++) s += ((double)a[j] - b[j]) * ((double)a[j] - b[j]);
    return s;
}

/* One NeighGen round: gen_steps full-batch steps on the impaired graph. */
static int fgl__fs_train_gen(fgl_client *c) {
    const fgl__fedsage_params *pa = FGL_PARAMS(fgl__fedsage_params, c->set);
    const fgl__fs_client *st = FGL_STATE(fgl__fs_client, &c->store);
    fgl__fs_data *d = st->fs;
    fgl_tape *t = st->gen_tape;
    fgl_model *enc = st->enc;
    fgl_params *ps = st->gen;
    fgl_optim *eo = st->enc_optim, *go = st->gen_optim;
    float *sent = st->sent, *losses = st->losses;
    int *sent_idx = st->sent_idx, *sent_n = st->sent_n;
    int P = d->P, F = d->F, n = d->n_imp, cross = pa->cross, K;
    int steps = pa->gen_steps, par = c->round % 2, s, i, p, k;
    int gen_rounds = pa->gen_rounds;
    const float *back = fgl_down(c, "cross_back");
    double ld = pa->lambda_d, lf = pa->lambda_f, al = pa->alpha;
    double loss_sum = 0;
    c->steps = 0;
    if (n == 0) { /* nothing left to train on */
        sent_n[par] = 0;
        c->train_loss = 0;
        return FGL_OK;
    }
    K = (int)fgl_client_dim(c, FGL_DIM_CLIENTS);
    for (s = 0; s < steps; s++) {
        fgl_node *dn, *Hn, *loss, *lx = NULL, *lfn = NULL, *ldn;
        float *T;
        int *vp, n_pairs = 0, rc;
        fgl_tape_reset(t);
        fgl_params_zero_grad(&enc->params);
        fgl_params_zero_grad(ps);
        if ((rc = fgl__fs_forward(c, t, &d->imp_g, 1, &dn, &Hn)))
            return fgl_client_fail(c, rc, "fedsage: generator: %s", t->err.msg);
        ldn = fgl__fs_count_loss(t, dn, d->miss_ptr, n);
        vp = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)n * (size_t)P);
        T = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n * (size_t)P * (size_t)F);
        if (!ldn || !vp || !T) return fgl_client_fail(c, FGL_ERR_NOMEM, "fedsage: out of memory");
        /* fGen, local: slot p < min(P, |M_v|) against its nearest missing neighbour (greedy, on current values) */
        for (i = 0; i < n; i++) {
            int m = d->miss_ptr[i + 1] - d->miss_ptr[i];
            for (p = 0; p < P && p < m; p++) {
                const float *h = Hn->val + (size_t)i * P * F + (size_t)p * F;
                int best = d->miss[d->miss_ptr[i]];
                double bd = fgl__fs_dist2(h, d->x + (size_t)best * F, F);
                for (k = d->miss_ptr[i] + 1; k < d->miss_ptr[i + 1]; k++) {
                    double dd = fgl__fs_dist2(h, d->x + (size_t)d->miss[k] * F, F);
                    if (dd < bd) bd = dd, best = d->miss[k];
                }
                vp[n_pairs] = i * P + p;
                memcpy(T + (size_t)n_pairs * F, d->x + (size_t)best * F, sizeof(float) * (size_t)F);
                n_pairs++;
            }
        }
        if (n_pairs)
            lfn = fgl_op_scale(t, fgl__fs_sqerr(t, Hn, P, F, vp, n_pairs, T), (float)(1.0 / ((double)n_pairs * F)));
        /* fGen, cross-client: the targets recovered from the answers to the sample sent two rounds ago */
        if (back && sent_n[par] > 0 && al > 0) {
            int m = sent_n[par];
            float *Tx = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)m * (size_t)F);
            if (!Tx) return fgl_client_fail(c, FGL_ERR_NOMEM, "fedsage: out of memory");
            for (k = 0; k < m * F; k++) Tx[k] = sent[(size_t)par * cross * F + k] - 0.5f * back[k];
            lx = fgl_op_scale(t, fgl__fs_sqerr(t, Hn, P, F, sent_idx + (size_t)par * cross, m, Tx),
                              (float)(al * (K - 1) / ((double)m * F)));
        }
        loss = fgl_op_scale(t, ldn, (float)ld);
        if (lfn) loss = fgl_op_add(t, loss, fgl_op_scale(t, lfn, (float)lf));
        if (lx) loss = fgl_op_add(t, loss, lx);
        if (fgl_tape_backward(t, loss)) return fgl_client_fail(c, t->err.code, "fedsage: generator: %s", t->err.msg);
        losses[0] = ldn->val[0];
        losses[1] = lfn ? lfn->val[0] : 0.0f;
        losses[2] = lx ? lx->val[0] : 0.0f;
        losses[3] = loss->val[0];
        loss_sum += loss->val[0];
        fgl_optim_step(eo, &enc->params);
        fgl_optim_step(go, ps);
        c->steps++;
        if (s == steps - 1) { /* the sample to send: this step's vectors (before its update) */
            fgl_rng r;
            int want = c->round + 2 < gen_rounds && K > 1 ? cross : 0;
            fgl_rng_init(&r, c->fed->seed * 7919u + (uint64_t)c->round, 0x73616d70ull + (uint64_t)c->id); /* "samp" */
            for (k = 0; k < want; k++) {
                int v = (int)fgl_rng_below(&r, (uint64_t)n), q = (int)fgl_rng_below(&r, (uint64_t)P);
                sent_idx[(size_t)par * cross + k] = v * P + q;
                memcpy(sent + ((size_t)par * cross + k) * F, Hn->val + (size_t)v * P * F + (size_t)q * F,
                       sizeof(float) * (size_t)F);
            }
            sent_n[par] = want;
        }
    }
    fgl_tape_reset(t);
    c->train_loss = loss_sum / steps;
    return FGL_OK;
}

FGL__PRIVATE int fgl__fedsage_counts(fgl_client *c, int *kv) {
    const fgl__fs_client *st;
    fgl__fs_data *d;
    fgl_tape *t;
    fgl_node *dn, *Hn;
    fgl_rng keep = c->rng;
    int i, rc;
    if (FGL_PARAMS(fgl__fs_gen_params, c->set)->num_pred == 0) {
        for (i = 0; i < c->data.node->n_nodes; i++) kv[i] = 0;
        return FGL_OK;
    }
    st = FGL_STATE(fgl__fs_client, &c->store);
    d = st->fs;
    t = st->gen_tape;
    fgl_tape_reset(t);
    rc = fgl__fs_forward(c, t, &d->full_g, 0, &dn, &Hn);
    c->rng = keep;
    for (i = 0; !rc && i < d->n; i++) {
        double v = floor((double)dn->val[i] + 0.5);
        kv[i] = v <= 0 ? 0 : v >= d->P ? d->P : (int)v;
    }
    fgl_tape_reset(t);
    return rc;
}

FGL__PRIVATE const fgl_gnn_graph *fgl__fedsage_mended(const fgl_client *c) {
    const fgl__fs_data *d =
        FGL_PARAMS(fgl__fs_gen_params, c->set)->num_pred > 0 ? FGL_STATE(fgl__fs_client, &c->store)->fs : NULL;
    return d && d->mended ? &d->m_g : NULL;
}

/* The mended graph: k_v = min(P, round(n_v)) generated neighbours of every node. */
static int fgl__fs_mend(fgl_client *c, fgl__fs_data *d) {
    const fgl__fs_client *st = FGL_STATE(fgl__fs_client, &c->store);
    fgl_tape *t = st->gen_tape;
    const fgl_node_data *nd = c->data.node;
    const fgl_csr *A = &nd->adj;
    int n = d->n, P = d->P, F = d->F, i, p, G = 0, N, e = 0, rc, *kv, *r, *cc;
    int *mend = st->mend;
    fgl_node *dn, *Hn;
    fgl_error err;
    fgl_rng keep = c->rng; /* evaluation mode draws nothing; kept as it was all the same */
    kv = (int *)fgl_scratch(&c->store, sizeof(int) * (size_t)(n + 1));
    if (!kv) return fgl_client_fail(c, FGL_ERR_NOMEM, "fedsage: out of memory");
    if ((rc = fgl__fedsage_counts(c, kv))) return fgl_client_fail(c, rc, "fedsage: mend: %s", t->err.msg);
    fgl_tape_reset(t);
    if ((rc = fgl__fs_forward(c, t, &d->full_g, 0, &dn, &Hn)))
        return fgl_client_fail(c, rc, "fedsage: mend: %s", t->err.msg);
    c->rng = keep;
    for (i = 0; i < n; i++) G += kv[i];
    N = n + G;
    r = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)(A->nnz + 2 * G + 1));
    cc = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)(A->nnz + 2 * G + 1));
    d->m_x = (float *)FGL_MALLOC(sizeof(float) * ((size_t)N * (size_t)F + 1));
    d->m_y = (int *)FGL_MALLOC(sizeof(int) * (size_t)(N + 1));
    d->m_mask = (unsigned char *)fgl__fs_zalloc((size_t)N + 1);
    if (!r || !cc || !d->m_x || !d->m_y || !d->m_mask)
        return fgl_client_fail(c, FGL_ERR_NOMEM, "fedsage: out of memory");
    memcpy(d->m_x, d->x, sizeof(float) * (size_t)n * (size_t)F);
    for (i = 0; i < n; i++) d->m_y[i] = nd->y[i];
    for (i = n; i < N; i++) d->m_y[i] = -1;
    if (n > 0) memcpy(d->m_mask, c->data.mask[FGL_SPLIT_TRAIN], (size_t)n);
    for (i = 0; i < n; i++) {
        int k;
        for (k = A->indptr[i]; k < A->indptr[i + 1]; k++) r[e] = i, cc[e++] = A->indices[k];
    }
    for (i = 0, G = n; i < n; i++)
        for (p = 0; p < kv[i]; p++, G++) {
            memcpy(d->m_x + (size_t)G * F, Hn->val + (size_t)i * P * F + (size_t)p * F, sizeof(float) * (size_t)F);
            r[e] = i, cc[e++] = G;
            r[e] = G, cc[e++] = i;
        }
    if ((rc = fgl_csr_from_coo(N, N, e, r, cc, NULL, 0, &d->m_adj, &err)) ||
        (rc = fgl_gnn_graph_make(&d->m_g, &d->m_adj, NULL, d->m_x, NULL, F, NULL, 0, NULL, 0, &c->model.spec, &err))) {
        fgl_tape_reset(t);
        return fgl_client_fail(c, rc, "fedsage: mended graph: %s", err.msg);
    }
    d->m_nd = *nd;
    d->m_nd.n_nodes = N;
    d->m_nd.y = d->m_y;
    d->mended = 1;
    mend[0] = N - n;
    mend[1] = n;
    fgl_tape_reset(t);
    return FGL_OK;
}

static int fgl__fs_train(fgl_client *c) {
    const fgl__fedsage_params *pa = FGL_PARAMS(fgl__fedsage_params, c->set);
    fgl__fs_data *d;
    fgl_view keep;
    int rc;
    if (pa->gen.num_pred == 0) return fgl_client_train(c, &c->model, &c->optim, &c->algo->train);
    if (c->round < pa->gen_rounds) return fgl__fs_train_gen(c);
    d = FGL_STATE(fgl__fs_client, &c->store)->fs;
    if (!fgl__fedsage_mended(c) && (rc = fgl__fs_mend(c, d))) return rc;
    keep = c->data;
    c->data.full = d->m_g; /* the classifier trains on the mended graph */
    c->data.node = &d->m_nd;
    c->data.mask[FGL_SPLIT_TRAIN] = d->m_mask;
    rc = fgl_client_train(c, &c->model, &c->optim, &c->algo->train);
    c->data = keep;
    return rc;
}

/* gen: this round's sample; back: the answers to the vectors received. */
static int fgl__fs_upload(fgl_client *c) {
    const fgl__fedsage_params *pa = FGL_PARAMS(fgl__fedsage_params, c->set);
    const float *got = fgl_down(c, "cross_gen");
    int P = pa->gen.num_pred, cross = pa->cross, k, u;
    int on = P > 0 && c->round < pa->gen_rounds;
    const fgl__fs_client *st = on ? FGL_STATE(fgl__fs_client, &c->store) : NULL;
    fgl__fs_data *d = on ? st->fs : NULL;
    if (on && st->sent_n[c->round % 2] == cross) {
        float *up = fgl_up(c, "gen");
        if (!up) return FGL_ERR_NOMEM;
        memcpy(up, st->sent + (size_t)(c->round % 2) * cross * d->F, sizeof(float) * (size_t)cross * d->F);
    } else {
        fgl_up_drop(c, "gen");
    }
    if (on && got && d->n > 0) { /* the gradient of each vector's squared distance to its nearest own node */
        float *up = fgl_up(c, "back");
        int F = d->F;
        if (!up) return FGL_ERR_NOMEM;
        for (k = 0; k < cross; k++) {
            const float *h = got + (size_t)k * F;
            int best = 0;
            double bd = fgl__fs_dist2(h, d->x, F);
            for (u = 1; u < d->n; u++) {
                double dd = fgl__fs_dist2(h, d->x + (size_t)u * F, F);
                if (dd < bd) bd = dd, best = u;
            }
            for (u = 0; u < F; u++) up[(size_t)k * F + u] = 2.0f * (h[u] - d->x[(size_t)best * F + u]);
        }
    } else {
        fgl_up_drop(c, "back");
    }
    return FGL_OK;
}

static int fgl__fs_server_init(fgl_server *s) {
    size_t K = (size_t)s->n_clients, L = fgl_server_up_size(s, "gen");
    fgl__fs_server *st = FGL_NEW_STATE(fgl__fs_server, &s->store);
    size_t i;
    if (!st) return FGL_ERR_NOMEM;
    st->gen_buf = fgl_new_floats(&s->store, "gen_buf", K * L);
    st->back_buf = fgl_new_floats(&s->store, "back_buf", K * L);
    st->has_gen = fgl_new_ints(&s->store, "has_gen", K);
    st->has_back = fgl_new_ints(&s->store, "has_back", K);
    st->src = fgl_new_ints(&s->store, "src", K);       /* whose vectors client i was sent last */
    st->rounds = fgl_new_ints(&s->store, "rounds", 1); /* aggregations done */
    if (s->store.err.code) return s->store.err.code;
    for (i = 0; i < K; i++) st->src[i] = -1;
    return fgl__avg_server_init(s); /* st->avg.global, after the entries above (their order is the checkpoint's) */
}

static int fgl__fs_aggregate(fgl_server *s) {
    const fgl__fs_server *st = FGL_STATE(fgl__fs_server, &s->store);
    int K = s->n_clients, i, rc = fgl__avg_aggregate(s);
    size_t L = fgl_server_up_size(s, "gen");
    float *gb = st->gen_buf, *bb = st->back_buf;
    int *hg = st->has_gen, *hb = st->has_back, *src = st->src;
    if (rc) return rc;
    for (i = 0; i < K; i++) hb[i] = 0;
    for (i = 0; i < K; i++) {
        const float *g = fgl_upload(s, i, "gen"), *b = fgl_upload(s, i, "back");
        hg[i] = g != NULL;
        if (g) memcpy(gb + (size_t)i * L, g, sizeof(float) * L);
        if (b && src[i] >= 0) {
            memcpy(bb + (size_t)src[i] * L, b, sizeof(float) * L);
            hb[src[i]] = 1;
        }
    }
    for (i = 0; i < K; i++) src[i] = -1;
    st->rounds[0]++;
    return FGL_OK;
}

/* Client i, in the round this download serves, gets the vectors of client
 * (i + 1 + round mod (K - 1)) mod K and the answers to its own. */
static int fgl__fs_download(fgl_server *s, int i, fgl_msg *down) {
    const fgl__fedsage_params *pa = FGL_PARAMS(fgl__fedsage_params, s->set);
    const fgl__fs_server *st = FGL_STATE(fgl__fs_server, &s->store);
    int K = s->n_clients, r = st->rounds[0], p;
    size_t L = fgl_server_up_size(s, "gen");
    (void)down;
    if (K < 2 || r >= pa->gen_rounds || pa->gen.num_pred == 0) return FGL_OK;
    p = (i + 1 + r % (K - 1)) % K;
    if (st->has_gen[p]) {
        float *o = fgl_download_part(s, i, "cross_gen");
        if (!o) return FGL_ERR_NOMEM;
        memcpy(o, st->gen_buf + (size_t)p * L, sizeof(float) * L);
        st->src[i] = p;
    }
    if (st->has_back[i]) {
        float *o = fgl_download_part(s, i, "cross_back");
        if (!o) return FGL_ERR_NOMEM;
        memcpy(o, st->back_buf + (size_t)i * L, sizeof(float) * L);
    }
    return FGL_OK;
}

static void fgl__fs_report(const fgl_observed *o, char *buf, size_t cap) {
    const int *r;
    if (!o->started || !cap) return;
    r = fgl_observed_ints(o, "rounds");
    snprintf(buf, cap, "\"aggregations\": %d", r ? r[0] : 0);
}

static fgl_algo fgl__fedsage(void) {
    fgl_algo a = fgl__avg_base("fedsage",
                               "Zhang et al. 2021 (FedSage+): per-client missing-neighbour generators trained with "
                               "cross-client feature matches, then FedAvg on the mended subgraphs",
                               FGL_G_ALL, "parameter groups of the classifier averaged");
    unsigned raw = FGL_PART_OPTIONAL | FGL_PART_RAW;
    FGL_ALGO_PARAM(&a, fgl__fedsage_params, gen_rounds, FGL_PARAM_INT, 20,
                   "rounds that train NeighGen before the classifier's");
    FGL_ALGO_PARAM(&a, fgl__fs_gen_params, num_pred, FGL_PARAM_INT, 5,
                   "generated neighbours per node at most (0: FedAvg)");
    FGL_ALGO_PARAM(&a, fgl__fs_gen_params, hidden_portion, FGL_PARAM_FLOAT, 0.5,
                   "share of nodes hidden in the impaired graph");
    FGL_ALGO_PARAM(&a, fgl__fs_gen_params, latent, FGL_PARAM_INT, 128, "NeighGen encoder width");
    FGL_ALGO_PARAM(&a, fgl__fedsage_params, gen_hidden, FGL_PARAM_INT, 256, "fGen hidden width");
    FGL_ALGO_PARAM(&a, fgl__fedsage_params, gen_steps, FGL_PARAM_INT, 1, "NeighGen optimizer steps per round");
    FGL_ALGO_PARAM(&a, fgl__fedsage_params, gen_lr, FGL_PARAM_FLOAT, 0.001, "NeighGen Adam learning rate");
    FGL_ALGO_PARAM(&a, fgl__fedsage_params, gen_wd, FGL_PARAM_FLOAT, 1e-4, "NeighGen weight decay");
    FGL_ALGO_PARAM(&a, fgl__fedsage_params, lambda_d, FGL_PARAM_FLOAT, 1.0, "weight of dGen's smooth L1 loss");
    FGL_ALGO_PARAM(&a, fgl__fedsage_params, lambda_f, FGL_PARAM_FLOAT, 1.0, "weight of fGen's local feature loss");
    FGL_ALGO_PARAM(&a, fgl__fedsage_params, alpha, FGL_PARAM_FLOAT, 1.0,
                   "weight of fGen's cross-client feature loss (per client)");
    FGL_ALGO_PARAM(&a, fgl__fedsage_params, cross, FGL_PARAM_INT, 160,
                   "generated vectors sent for cross-client matching per round");
    fgl_algo_upload(&a, "gen", FGL_SEND_DATA, fgl_algo_param_dim(&a, "cross"), FGL_DIM_INPUT, raw);
    fgl_algo_upload(&a, "back", FGL_SEND_DATA, fgl_algo_param_dim(&a, "cross"), FGL_DIM_INPUT, raw);
    fgl_algo_download(&a, "cross_gen", FGL_SEND_DATA, fgl_algo_param_dim(&a, "cross"), FGL_DIM_INPUT,
                      FGL_PART_OPTIONAL, NULL);
    fgl_algo_download(&a, "cross_back", FGL_SEND_DATA, fgl_algo_param_dim(&a, "cross"), FGL_DIM_INPUT,
                      FGL_PART_OPTIONAL, NULL);
    a.prepare_spec = fgl__fs_check;
    a.client_init = fgl__fs_client_init;
    a.local_train = fgl__fs_train;
    a.upload = fgl__fs_upload;
    a.server_init = fgl__fs_server_init;
    a.aggregate = fgl__fs_aggregate;
    a.download = fgl__fs_download;
    a.report = fgl__fs_report;
    return a;
}
#include "../../alone.h"
