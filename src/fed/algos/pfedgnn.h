#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- pFedGNN (Kataria, Malik, Shukla, Bhilwade, Kumar, LoG 2025) ----------------- */
/* A collaboration graph between clients inferred once, before training,
 * from distances to public anchors, then personalised weight mixing.
 * One shot: the server asks every client (download part "ask", 4 bytes)
 * for the squared distances from each of its n_i nodes' features to K_a
 * anchors (upload "dist", n_i x K_a floats, sent once; with blocks=1 also
 * its n_i x n_i node-node block "block", as the authors' code). Anchors:
 * K_a real nodes withheld from every client and held by the server
 * (fgl_run_set_public; fglrun --public-nodes), sent once to every client
 * (download "anchors", K_a x d floats), as the authors' code (default when
 * the server holds public nodes); or K_a random points N(0, anchor_scale^2
 * / d I) drawn from the run seed by server and clients alike (the paper's
 * "any public points"; no bytes). With K_a < d the features cannot be
 * recovered from the distances (the paper's Lemma 1); the report says
 * whether that holds.
 * Server (the numerics: src/graph/anchors.h and coarsen.h, fgl_graph.h):
 * the anchors' classical-MDS frame (rank r <= K_a - 1), each
 * client's nodes placed by landmark MDS (method=0: Nystrom, closed form) or
 * refined by anchored weighted SMACOF (method=1, the authors' code: weight 1
 * on the observed distances, anchors fixed, at most max_iter iterations,
 * stop when the stress falls by less than tol relatively); the completed
 * distances are those of the placed nodes. Affinity kernel (kernel=0: the
 * authors' row-max kernel and random-walk Laplacian; kernel=1: exp(-D^2 /
 * sigma^2) with the combinatorial Laplacian), L_C = P L_G P^T by per-client-
 * pair sums, never an N x N matrix (fgl_coarsen_clients: every pair up to
 * 50,000 nodes, 256 sampled nodes per client beyond, or pair_sample), and
 * w_ij proportional to -(L_C)_ij for j != i, rows normalised (the
 * client_matrix).
 * Rounds (all of them, from the aggregation that completes the graph on):
 *     theta_i <- alpha theta_i + (1 - alpha) sum_{j != i} w_ij theta_j
 * over the accepted uploads (w renormalised over them; a client without a
 * neighbour keeps its model), on fgl_server_mix (so the run's robust rule
 * acts row by row; DP and secure aggregation are refused), each client
 * receiving its own row. alpha = 0 is the authors' code (no self term) and
 * the default: in the authors' setting under one honest protocol (Cora,
 * 3 seeds, RESULTS.md) the mean validation accuracy falls with alpha (0 /
 * 0.7 / 0.9: 83.07 / 81.78 / 79.13); on METIS clients (FED-PUB's protocol)
 * a client needs its own model (alpha 0.9: 82.37 against 57.58 at 0). The
 * paper's best: 0.7 (Cora), 0.2 (CiteSeer). Until every client's distances are in, each
 * keeps its own model. Sent: round 0 up 4 (n + 1 + n_i K_a) (+ 4 n_i^2),
 * later rounds 4 (n + 1); down 4 n a round, plus 4 (1 + K_a d) once. Not
 * lam != 0: the pre-release's extra pFedGraph-style term (not in the paper)
 * lam <u_i, theta> / ||theta|| in the local loss, u_i = sum_j m_ij theta_j /
 * ||theta_j|| over the round's mixing row m_i (self term included), sent
 * once the graph is complete (down 4 n more bytes a round); lam = 0.01 in
 * the pre-release, 0 (off) by default. */

/* pFedGNN's parameters (fgl__pfedgnn: their defaults and help). The first
 * three are pFedGraph's struct (share, alpha, lam): pFedGNN trains with
 * pFedGraph's grad hook (fgl__pfg_grad), which reads lam through it. */
typedef struct fgl__pfedgnn_params {
    fgl__pfedgraph_params pfg; /* share (the groups mixed), alpha (self weight of the mixing), lam (the local
                                  term's weight in lam <u_i, theta>/||theta||, 0: off) */
    int anchors;         /* K_a anchors */
    int anchor_nodes;    /* 1: the server's public nodes when it holds them, 0: random points */
    double anchor_scale; /* random anchors: N(0, scale^2 / d) per feature */
    int method;          /* completion: 0 landmark MDS, 1 anchored SMACOF */
    int blocks;          /* 1: clients also send their n_i x n_i distances */
    int max_iter;        /* SMACOF iterations at most */
    double tol;          /* SMACOF's relative stress tolerance */
    int dim;             /* completion dimension at most (0: K_a - 1) */
    int kernel;          /* affinity: 0 the authors' row-max kernel, 1 Gaussian */
    double sigma;        /* kernel=1: sigma^2 = sigma x mean squared distance */
    int pair_sample;     /* pair sums over this many nodes per client (0: automatic; -1: all) */
} fgl__pfedgnn_params;

/* The anchors: the server's first K_a public nodes, or random points. */
static int fgl__pfn_public(const fgl_server *s) {
    return FGL_PARAMS(fgl__pfedgnn_params, s->set)->anchor_nodes != 0 && s->pub != NULL;
}

static void fgl__pfn_random_anchors(uint64_t seed, float scale, int K, int d, float *a) {
    fgl_rng r;
    size_t k;
    fgl_rng_init(&r, seed, 0x414e43484f52ull); /* "ANCHOR" */
    for (k = 0; k < (size_t)K * (size_t)d; k++) a[k] = (float)(scale * fgl_rng_normal(&r) / sqrt((double)d));
}

typedef struct fgl__pfn_frame {
    fgl_anchor_frame f;
    float *anchors;   /* K_a x d */
    int d;            /* feature width */
} fgl__pfn_frame;

static void fgl__pfn_frame_free(void *p) {
    fgl__pfn_frame *fr = (fgl__pfn_frame *)p;
    fgl_anchor_frame_free(&fr->f);
    FGL_FREE(fr->anchors);
}

/* The server's state: the anchors' frame ("frame", rebuilt on resume),
 * every client's model, the completion (every node placed), whose
 * distances are in, SMACOF's start and end stress and iterations per
 * client, the coarsened Laplacian, the collaboration weights, whether the
 * graph is complete, and (lam != 0) the lam term's directions u (else
 * NULL). */
typedef struct fgl__pfn_server {
    fgl__pfn_frame *frame;
    float *theta, *emb;
    int *has_dist;
    float *stress;
    int *iters;
    float *lc, *w;
    int *ready;
    float *u;
} fgl__pfn_server;

static int fgl__pfn_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    (void)set;
    if (spec->task != FGL_TASK_NODE) return fgl_error_set(err, FGL_ERR_ARG, "pfedgnn: node classification only");
    return FGL_OK;
}

static int fgl__pfn_server_init(fgl_server *s) {
    const fgl__pfedgnn_params *p = FGL_PARAMS(fgl__pfedgnn_params, s->set);
    int K = s->n_clients, Ka = p->anchors, i, j, d, N = 0, rc;
    int method = p->method, kernel = p->kernel;
    fgl__pfn_server *st;
    fgl__pfn_frame *fr;
    double *d2;
    fgl_error err;
    d = (int)(fgl_server_down_size(s, "anchors") / (size_t)Ka);
    if (Ka < 2) return fgl_server_fail(s, FGL_ERR_ARG, "pfedgnn: anchors = %d, at least 2", Ka);
    if (method != 0 && method != 1)
        return fgl_server_fail(s, FGL_ERR_ARG, "pfedgnn: method %d (0 landmark, 1 smacof)", method);
    if (kernel != FGL_KERNEL_MAXDIFF && kernel != FGL_KERNEL_GAUSS)
        return fgl_server_fail(s, FGL_ERR_ARG, "pfedgnn: kernel %d (0 the authors' row-max, 1 Gaussian)", kernel);
    if (p->blocks != 0 && method != 1)
        return fgl_server_fail(s, FGL_ERR_ARG,
                               "pfedgnn: blocks=1 feeds SMACOF (method=1); landmark MDS cannot use them");
    if (!(p->pfg.alpha >= 0 && p->pfg.alpha <= 1))
        return fgl_server_fail(s, FGL_ERR_ARG, "pfedgnn: alpha %g must be in [0, 1]", p->pfg.alpha);
    if (fgl__pfn_public(s) && s->pub->n_nodes < Ka)
        return fgl_server_fail(s, FGL_ERR_ARG, "pfedgnn: %d anchors, but the server holds %d public nodes", Ka,
                               s->pub->n_nodes);
    for (i = 0; i < K; i++) N += s->n_nodes[i];
    if (!(st = FGL_NEW_STATE(fgl__pfn_server, &s->store))) return FGL_ERR_NOMEM;
    fr = st->frame = (fgl__pfn_frame *)fgl_new_scratch(&s->store, "frame", sizeof(fgl__pfn_frame), fgl__pfn_frame_free);
    d2 = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)Ka * (size_t)Ka);
    if (!fr || !d2 || !(fr->anchors = (float *)FGL_MALLOC(sizeof(float) * (size_t)Ka * (size_t)d)))
        return FGL_ERR_NOMEM;
    fr->d = d;
    if (fgl__pfn_public(s)) { /* the first K_a public nodes, as their features are */
        const fgl_node_data *pd = s->pub;
        memset(fr->anchors, 0, sizeof(float) * (size_t)Ka * (size_t)d);
        for (i = 0; i < Ka; i++) {
            if (pd->x.data) {
                memcpy(fr->anchors + (size_t)i * d, pd->x.data + (size_t)i * d, sizeof(float) * (size_t)d);
            } else {
                int p;
                for (p = pd->x_sparse.indptr[i]; p < pd->x_sparse.indptr[i + 1]; p++)
                    fr->anchors[(size_t)i * d + pd->x_sparse.indices[p]] =
                        pd->x_sparse.values ? pd->x_sparse.values[p] : 1.0f;
            }
        }
    } else {
        fgl__pfn_random_anchors(s->fed->seed, (float)p->anchor_scale, Ka, d, fr->anchors);
    }
    for (i = 0; i < Ka; i++)
        for (j = 0; j < Ka; j++) {
            double acc = 0;
            int f;
            for (f = 0; f < d; f++) {
                double t = (double)fr->anchors[(size_t)i * d + f] - fr->anchors[(size_t)j * d + f];
                acc += t * t;
            }
            d2[(size_t)i * Ka + j] = acc;
        }
    if ((rc = fgl_anchor_frame_init(&fr->f, d2, Ka, p->dim, &err)))
        return fgl_server_fail(s, rc, "pfedgnn: %s", err.msg);
    st->theta = fgl_server_per_client(s, "theta"); /* the common initial model, for every client */
    st->emb = fgl_new_floats(&s->store, "emb", (size_t)N * (size_t)fr->f.r); /* the completion: every node placed */
    st->has_dist = fgl_new_ints(&s->store, "has_dist", (size_t)K);
    st->stress = fgl_new_floats(&s->store, "stress", 2 * (size_t)K); /* per client: SMACOF's start and end */
    st->iters = fgl_new_ints(&s->store, "iters", (size_t)K);
    st->lc = fgl_new_floats(&s->store, "lc", (size_t)K * K); /* the coarsened Laplacian */
    st->w = fgl_new_floats(&s->store, "w", (size_t)K * K);   /* the collaboration weights */
    st->ready = fgl_new_ints(&s->store, "ready", 1);
    if (p->pfg.lam != 0) st->u = fgl_new_floats(&s->store, "u", (size_t)K * s->n_shared);
    return s->store.err.code;
}

/* Until the server has a client's distances it asks for them (and sends the
 * public anchors). */
static int fgl__pfn_download(fgl_server *s, int client, fgl_msg *down) {
    const fgl__pfn_server *st = FGL_STATE(fgl__pfn_server, &s->store);
    float *ask, *a;
    (void)down;
    if (FGL_PARAMS(fgl__pfedgnn_params, s->set)->pfg.lam != 0 && st->ready[0]) { /* the lam term's direction */
        if (!(a = fgl_download_part(s, client, "u"))) return FGL_ERR_NOMEM;
        memcpy(a, st->u + (size_t)client * s->n_shared, sizeof(float) * s->n_shared);
    }
    if (st->has_dist[client]) return FGL_OK;
    if (!(ask = fgl_download_part(s, client, "ask"))) return FGL_ERR_NOMEM;
    ask[0] = 1.0f;
    if (fgl__pfn_public(s)) {
        const fgl__pfn_frame *fr = st->frame;
        if (!(a = fgl_download_part(s, client, "anchors"))) return FGL_ERR_NOMEM;
        memcpy(a, fr->anchors, sizeof(float) * (size_t)fr->f.K * (size_t)fr->d);
    }
    return FGL_OK;
}

/* Asked: the squared distances of every node to the anchors (and the block). */
static int fgl__pfn_upload(fgl_client *c) {
    const fgl__pfedgnn_params *p = FGL_PARAMS(fgl__pfedgnn_params, c->set);
    int Ka = p->anchors, d = c->model.spec.in_dim, rc;
    const float *anchors = fgl_down(c, "anchors");
    float *dist, *block;
    fgl_error err;
    if (!fgl_down(c, "ask")) {
        fgl_up_drop(c, "dist");
        fgl_up_drop(c, "block");
        return FGL_OK;
    }
    if (!anchors) { /* random anchors: drawn from the run seed, as the server did */
        float *a = (float *)fgl_scratch(&c->store, sizeof(float) * (size_t)Ka * (size_t)d);
        if (!a) return FGL_ERR_NOMEM;
        fgl__pfn_random_anchors(c->fed->seed, (float)p->anchor_scale, Ka, d, a);
        anchors = a;
    }
    if (!(dist = fgl_up(c, "dist"))) return c->err.code;
    if ((rc = fgl_anchor_sqdist(c->data.node, anchors, Ka, dist, &err)))
        return fgl_client_fail(c, rc, "pfedgnn: %s", err.msg);
    if (p->blocks == 0) {
        fgl_up_drop(c, "block");
    } else {
        if (!(block = fgl_up(c, "block"))) return c->err.code;
        if ((rc = fgl_node_sqdist_block(c->data.node, block, &err)))
            return fgl_client_fail(c, rc, "pfedgnn: %s", err.msg);
    }
    return FGL_OK;
}

/* Place newly arrived clients' nodes; once all are in, the graph. */
static int fgl__pfn_oneshot(fgl_server *s) {
    const fgl__pfedgnn_params *p = FGL_PARAMS(fgl__pfedgnn_params, s->set);
    const fgl__pfn_server *st = FGL_STATE(fgl__pfn_server, &s->store);
    const fgl__pfn_frame *fr = st->frame;
    int K = s->n_clients, r = fr->f.r, i, off = 0, rc, all = 1;
    int *has = st->has_dist, *iters = st->iters, *ptr;
    float *emb = st->emb, *stress = st->stress;
    fgl_error err;
    for (i = 0; i < K; i++) {
        const float *dist = fgl_upload(s, i, "dist");
        int n = s->n_nodes[i];
        if (!has[i] && dist) {
            float *z = emb + (size_t)off * r;
            fgl_anchor_embed(&fr->f, dist, n, z);
            if (p->method == 1) {
                double s0 = 0, s1 = 0;
                int it = fgl_anchor_smacof(&fr->f, dist, fgl_upload(s, i, "block"), n, p->max_iter, p->tol, z, &s0,
                                           &s1, &err);
                if (it < 0) return fgl_server_fail(s, it, "pfedgnn: client %d: %s", i, err.msg);
                iters[i] = it;
                stress[2 * i] = (float)s0;
                stress[2 * i + 1] = (float)s1;
            }
            has[i] = 1;
        }
        all &= has[i];
        off += n;
    }
    if (!all || st->ready[0]) return FGL_OK;
    {
        fgl_coarsen_config cc = fgl_coarsen_default();
        double *lc = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * K);
        double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * K);
        int sample = p->pair_sample;
        ptr = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)(K + 1));
        if (!lc || !w || !ptr) return FGL_ERR_NOMEM;
        for (i = 0; i < K; i++) ptr[i + 1] = ptr[i] + s->n_nodes[i];
        cc.kernel = p->kernel;
        cc.sigma = p->sigma;
        cc.sample = sample > 0 ? sample : sample < 0 || ptr[K] <= 50000 ? 0 : 256;
        cc.seed = s->fed->seed;
        if ((rc = fgl_coarsen_clients(emb, r, ptr, K, &cc, lc, &err)))
            return fgl_server_fail(s, rc, "pfedgnn: %s", err.msg);
        fgl_collab_weights(lc, K, w);
        for (i = 0; i < K * K; i++) {
            st->lc[i] = (float)lc[i];
            st->w[i] = (float)w[i];
        }
        st->ready[0] = 1;
    }
    return FGL_OK;
}

static int fgl__pfn_aggregate(fgl_server *s) {
    int K = s->n_clients, i, j, rc, ready;
    size_t n = s->n_shared;
    const fgl__pfedgnn_params *p = FGL_PARAMS(fgl__pfedgnn_params, s->set);
    const fgl__pfn_server *st = FGL_STATE(fgl__pfn_server, &s->store);
    double alpha = p->pfg.alpha;
    float *theta = st->theta, *w = st->w;
    float *out = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * FGL__MAX(n, 1));
    double *mix = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * K);
    if (!out || !mix) return FGL_ERR_NOMEM;
    if ((rc = fgl__pfn_oneshot(s))) return rc;
    if (s->n_accepted == 0) return FGL_OK; /* nothing accepted: everyone keeps their model */
    ready = st->ready[0];
    for (i = 0; i < K; i++) {
        double sum = 0;
        for (j = 0; ready && j < K; j++)
            if (j != i && fgl_upload(s, j, "theta")) sum += w[(size_t)i * K + j];
        for (j = 0; j < K; j++) {
            double v = j == i ? (sum > 0 ? alpha : 1.0)
                              : sum > 0 && fgl_upload(s, j, "theta") ? (1 - alpha) * w[(size_t)i * K + j] / sum : 0.0;
            mix[(size_t)i * K + j] = v;
        }
    }
    if (ready && p->pfg.lam != 0) { /* u_i = sum_j m_ij theta_j / ||theta_j|| (before theta moves) */
        double *div = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K);
        if (!div) return FGL_ERR_NOMEM;
        for (j = 0; j < K; j++) {
            const float *v = fgl_upload(s, j, "theta");
            div[j] = fgl_norm2(n, v ? v : theta + (size_t)j * n);
        }
        if ((rc = fgl_server_mix_div(s, "theta", theta, mix, div, st->u, NULL, 0))) return rc;
    }
    /* a client without an accepted upload takes part with the model kept for it (theta's row) */
    if ((rc = fgl_server_mix(s, "theta", theta, mix, out, NULL))) return rc;
    memcpy(theta, out, sizeof(float) * (size_t)K * n);
    return FGL_OK;
}

static int fgl__pfn_matrix(const fgl_observed *o, float *out) { return fgl_observed_matrix(o, "w", out); }

static void fgl__pfn_report(const fgl_observed *o, char *buf, size_t cap) {
    const fgl__pfedgnn_params *p;
    const fgl__pfn_frame *fr;
    const float *stress;
    int K = o->n_clients, Ka, i, d, pub;
    double bytes = 0, s0 = 0, s1 = 0;
    if (!o->started || !cap) return;
    fr = (const fgl__pfn_frame *)fgl_observed_scratch(o, "frame");
    stress = fgl_observed_floats(o, "stress");
    p = FGL_PARAMS(fgl__pfedgnn_params, o->set);
    pub = p->anchor_nodes != 0 && o->n_public > 0; /* fgl__pfn_public */
    Ka = fr->f.K;
    d = (int)fgl_observed_dim(o, FGL_DIM_INPUT);
    for (i = 0; i < K; i++) {
        bytes += 4.0 * o->n_nodes[i] * Ka +
                 (p->blocks != 0 ? 4.0 * o->n_nodes[i] * o->n_nodes[i] : 0);
        s0 += stress[2 * i];
        s1 += stress[2 * i + 1];
    }
    snprintf(
        buf, cap,
        "\"anchors\": %d, \"anchor_source\": \"%s\", \"features\": %d, \"private\": %s, \"embed_dim\": %d, "
        "\"oneshot_bytes_up\": %.0f, \"oneshot_bytes_down\": %.0f, \"smacof_stress_ratio\": %.6f, \"graph_ready\": %d",
        Ka, pub ? "public nodes" : "random", d, Ka < d ? "true" : "false", fr->f.r, bytes,
        4.0 * K * (1 + (pub ? (double)Ka * d : 0)), s0 > 0 ? s1 / s0 : 1.0, fgl_observed_ints(o, "ready")[0]);
}

static fgl_algo fgl__pfedgnn(void) {
    fgl_algo a = fgl_algo_new("pfedgnn", "Kataria et al. 2025: one-shot collaboration graph from anchor distances "
                              "(completion, coarsening L_C = P L_G P^T), then personalised mixing");
    FGL_ALGO_PARAM(&a, fgl__pfedgraph_params, share, FGL_PARAM_GROUPS, (double)FGL_G_ALL, "parameter groups mixed");
    FGL_ALGO_PARAM(&a, fgl__pfedgraph_params, alpha, FGL_PARAM_FLOAT, 0.0,
                   "self weight: theta_i <- alpha theta_i + (1-alpha) sum_j w_ij theta_j (0: authors' code, "
                   "best on validation in the authors' setting; METIS clients: 0.7-0.9, RESULTS.md)");
    FGL_ALGO_PARAM(&a, fgl__pfedgraph_params, lam, FGL_PARAM_FLOAT, 0.0,
                   "local term lam <u_i, theta>/||theta||, u_i the mixing row over normalised models "
                   "(pre-release: 0.01; 0: off)");
    FGL_ALGO_PARAM(&a, fgl__pfedgnn_params, anchors, FGL_PARAM_INT, 100,
                   "K_a anchors (authors' code: 100; private if K_a < features)");
    FGL_ALGO_PARAM(&a, fgl__pfedgnn_params, anchor_nodes, FGL_PARAM_INT, 1,
                   "1: the server's public nodes when it holds them (authors' code), 0: random points from the seed");
    FGL_ALGO_PARAM(&a, fgl__pfedgnn_params, anchor_scale, FGL_PARAM_FLOAT, 1.0,
                   "random anchors: N(0, scale^2 / d) per feature");
    FGL_ALGO_PARAM(&a, fgl__pfedgnn_params, method, FGL_PARAM_INT, 1,
                   "completion: 0 landmark MDS (Nystrom), 1 anchored SMACOF (authors')");
    FGL_ALGO_PARAM(&a, fgl__pfedgnn_params, blocks, FGL_PARAM_INT, 0,
                   "1: clients also send their n_i x n_i distances (authors' code; SMACOF)");
    FGL_ALGO_PARAM(&a, fgl__pfedgnn_params, max_iter, FGL_PARAM_INT, 1000, "SMACOF iterations at most");
    FGL_ALGO_PARAM(&a, fgl__pfedgnn_params, tol, FGL_PARAM_FLOAT, 1e-3,
                   "SMACOF stops when the stress falls by less than this (relative)");
    FGL_ALGO_PARAM(&a, fgl__pfedgnn_params, dim, FGL_PARAM_INT, 0, "completion dimension at most (0: K_a - 1)");
    FGL_ALGO_PARAM(&a, fgl__pfedgnn_params, kernel, FGL_PARAM_INT, 0,
                   "affinity: 0 the authors' row-max kernel, 1 exp(-D^2/sigma^2)");
    FGL_ALGO_PARAM(&a, fgl__pfedgnn_params, sigma, FGL_PARAM_FLOAT, 1.0,
                   "kernel=1: sigma^2 = sigma x mean squared distance");
    FGL_ALGO_PARAM(&a, fgl__pfedgnn_params, pair_sample, FGL_PARAM_INT, 0,
                   "pair sums over s nodes per client (0: all pairs up to 50000 nodes, else 256; -1: all)");
    fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, 0, 0, 0);
    fgl_algo_upload(&a, "n", FGL_SEND_WEIGHT, 0, 0, 0);
    fgl_algo_upload(&a, "dist", FGL_SEND_DATA, FGL_DIM_NODES, fgl_algo_param_dim(&a, "anchors"), FGL_PART_OPTIONAL);
    fgl_algo_upload(&a, "block", FGL_SEND_DATA, FGL_DIM_NODES, FGL_DIM_NODES, FGL_PART_OPTIONAL);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, FGL_PART_ROW, "theta");
    fgl_algo_download(&a, "ask", FGL_SEND_DATA, 1, 1, FGL_PART_OPTIONAL, NULL);
    fgl_algo_download(&a, "u", FGL_SEND_DATA, FGL_DIM_SHARED, 1, FGL_PART_OPTIONAL, NULL);
    fgl_algo_download(&a, "anchors", FGL_SEND_DATA, fgl_algo_param_dim(&a, "anchors"), FGL_DIM_INPUT, FGL_PART_OPTIONAL,
                      NULL);
    a.prepare_spec = fgl__pfn_spec;
    a.upload = fgl__pfn_upload;
    a.server_init = fgl__pfn_server_init;
    a.aggregate = fgl__pfn_aggregate;
    a.mixes = 1;
    a.download = fgl__pfn_download;
    a.train.grad = fgl__pfg_grad; /* pFedGraph's: lam <u, theta>/||theta|| when u is received */
    a.report = fgl__pfn_report;
    a.client_matrix = fgl__pfn_matrix;
    return a;
}

#include "../../alone.h"
