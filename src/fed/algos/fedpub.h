#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- FED-PUB (Baek et al. 2023) ---------------------------------------------------- */
/* Clients run GCNs with personal weight masks (kept local). Each round they
 * upload their weights and a functional embedding: the mean output of their
 * model's last GCN layer on a random proxy graph every client builds from
 * the shared seed (so it costs no bytes). Graph tasks (GPFL's comparison)
 * run the same on any graph model, e.g. the GIN: masks on every weight
 * matrix, the proxy graph seen as one graph, and the embedding the mean
 * over its nodes of the last GIN layer's output (before its activation). The server turns cosine
 * similarities of the embeddings into weights
 *     alpha_ij = exp(tau S_ij) / sum_k exp(tau S_ik)
 * over the accepted uploads and sends each client its own average
 * sum_j alpha_ij theta_j, from the first aggregation on (the initial
 * broadcast is the common initial model, as in the authors' code). Locally:
 *     CE + l1 ||mask||_1 + loc_l2 sum_slices ||theta - theta_received||_2,
 * applied to the live parameters (the authors' code computes them on
 * detached copies). Sent: up 4 (n + d + 1), down 4 n bytes (masks stay). */

typedef struct fgl__fedpub_params {
    unsigned share;       /* the groups sent (not the masks) */
    double tau;           /* the similarity's sharpness */
    double l1;            /* the masks' L1 weight */
    double loc_l2;        /* the proximal weight */
    int proxy_blocks;     /* the proxy graph's blocks */
    int proxy_block_size; /* nodes per block */
    double p_in, p_out;   /* edge probabilities inside and across blocks */
    int live_reg;         /* 1: the L1 and proximal terms act */
    int l1_prox;          /* 1: L1 as a soft-threshold step */
    int masks;            /* 1: personal weight masks */
} fgl__fedpub_params;

/* The state. Client: the proxy graph (scratch, rebuilt from the seed).
 * Server: every client's model and latest embedding, who has sent one, and
 * the similarity weights. */
typedef struct fgl__fedpub_client {
    fgl__probe *proxy;
} fgl__fedpub_client;

typedef struct fgl__fedpub_server {
    float *theta, *fe;
    int *has_fe;
    float *sim;
} fgl__fedpub_server;

static int fgl__pub_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    if (spec->arch == FGL_ARCH_FEDSTAR)
        return fgl_error_set(err, FGL_ERR_ARG,
                             "fedpub: FedStar's model needs structure encodings the proxy graph lacks");
    spec->masked = FGL_PARAMS(fgl__fedpub_params, set)->masks != 0;
    return FGL_OK;
}

/* The proxy graph: blocks of equal size, edges i.i.d. with p_in inside a
 * block and p_out across, node features N(0, 1); drawn from the run seed so
 * every client holds the same graph. */
static int fgl__pub_client_init(fgl_client *c) {
    const fgl__fedpub_params *p = FGL_PARAMS(fgl__fedpub_params, c->set);
    fgl__fedpub_client *st = FGL_NEW_STATE(fgl__fedpub_client, &c->store);
    int bs = p->proxy_block_size, n = p->proxy_blocks * bs;
    float p_in = (float)p->p_in, p_out = (float)p->p_out;
    int i, j, rc;
    fgl__probe *px;
    fgl_rng r;
    fgl_error err;
    size_t k;
    if (!st) return FGL_ERR_NOMEM;
    if (n <= 0 || bs <= 0)
        return fgl_client_fail(c, FGL_ERR_ARG, "fedpub: the proxy graph needs proxy_blocks and proxy_block_size > 0");
    if (!(px = st->proxy = fgl__probe_new(c, "proxy", n, 1))) return FGL_ERR_NOMEM;
    fgl_rng_init(&r, c->fed->seed, 0x50524f5859ull); /* "PROXY" */
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++) {
            double p = (i / bs == j / bs) ? p_in : p_out;
            if (p <= 0 || fgl_rng_uniform(&r) >= p) continue;
            if (fgl__probe_edge(px, i, j)) return FGL_ERR_NOMEM;
        }
    if ((rc = fgl__probe_adjacency(px, &err))) return fgl_client_fail(c, rc, "fedpub: %s", err.msg);
    for (k = 0; k < (size_t)n * (size_t)px->in_dim; k++) px->x[k] = (float)fgl_rng_normal(&r);
    if ((rc = fgl__probe_view(px, c, &err))) return fgl_client_fail(c, rc, "fedpub: %s", err.msg);
    return FGL_OK;
}

static int fgl__pub_server_init(fgl_server *s) {
    fgl__fedpub_server *st = FGL_NEW_STATE(fgl__fedpub_server, &s->store);
    size_t K = (size_t)s->n_clients;
    if (!st) return FGL_ERR_NOMEM;
    st->theta = fgl_server_per_client(s, "theta"); /* the common initial model, for every client */
    st->fe = fgl_new_floats(&s->store, "fe", K * fgl_server_up_size(s, "fe"));
    st->has_fe = fgl_new_ints(&s->store, "has_fe", K);
    st->sim = fgl_new_floats(&s->store, "sim", K * K);
    return s->store.err.code;
}

static int fgl__pub_upload(fgl_client *c) {
    fgl__probe *px = FGL_STATE(fgl__fedpub_client, &c->store)->proxy;
    int rc = fgl_model_mean_embedding(&c->model, &c->tape, &px->g, fgl_up(c, "fe"));
    if (rc) return fgl_client_fail(c, rc, "functional embedding: %s", c->tape.err.msg);
    return FGL_OK;
}

static int fgl__pub_aggregate(fgl_server *s) {
    int K = s->n_clients, i, j, rc;
    size_t n = s->n_shared, d = fgl_server_up_size(s, "fe");
    const fgl__fedpub_server *st = FGL_STATE(fgl__fedpub_server, &s->store);
    float tau = (float)FGL_PARAMS(fgl__fedpub_params, s->set)->tau;
    float *theta = st->theta, *fe = st->fe, *sim = st->sim;
    int *has_fe = st->has_fe;
    float *plain = (float *)fgl_scratch(&s->store, sizeof(float) * FGL__MAX(n, 1));
    double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * (size_t)K);
    unsigned char *mixed = (unsigned char *)fgl_scratch(&s->store, (size_t)K);
    if (!plain || !w || !mixed) return FGL_ERR_NOMEM;
    fgl_server_gather(s, "fe", fe, has_fe);
    rc = fgl_server_mean(s, "theta", plain);
    if (rc) return rc; /* (FGL_ERR_EMPTY: nothing accepted, everyone keeps their model) */
    for (i = 0; i < K; i++) {
        float *row = sim + (size_t)i * K;
        double wsum = 0, smax = -1e300;
        memset(row, 0, sizeof(float) * (size_t)K);
        if (!has_fe[i]) { /* no embedding from this client yet: the plain average */
            memcpy(theta + (size_t)i * n, plain, sizeof(float) * n);
            continue;
        }
        for (j = 0; j < K; j++) /* softmax over the accepted clients, shifted for stability */
            if (s->up[j]) {
                double sij = fgl_cosine(d, fe + (size_t)i * d, fe + (size_t)j * d);
                if (tau * sij > smax) smax = tau * sij;
                row[j] = (float)sij;
            }
        for (j = 0; j < K; j++)
            if (s->up[j]) {
                double a = exp(tau * row[j] - smax);
                row[j] = (float)a;
                wsum += a;
            }
        for (j = 0; j < K; j++) {
            double a = s->up[j] ? row[j] / wsum : 0.0;
            w[(size_t)i * K + j] = a;
            row[j] = (float)a;
        }
        mixed[i] = 1;
    }
    /* the run's robust rule, row by row (NORMCLIP's clips were counted by fgl_server_mean above: not again) */
    return fgl_server_mix_div(s, "theta", NULL, w, NULL, theta, mixed, 0);
}

static int fgl__pub_grad(fgl_client *c, const fgl_step *st) {
    const fgl__fedpub_params *p = FGL_PARAMS(fgl__fedpub_params, c->set);
    float l1 = (float)p->l1, loc_l2 = (float)p->loc_l2;
    int l1_prox = p->l1_prox != 0;
    fgl_params *ps = &st->model->params;
    int i;
    size_t j;
    if (p->live_reg == 0) return FGL_OK;
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *sl = &ps->slices[i];
        float *g = ps->grad + sl->offset;
        const float *w = ps->data + sl->offset, *w0;
        size_t n = fgl_slice_size(sl);
        if (!sl->trainable) continue;
        if (sl->groups & FGL_G_MASK) { /* d/dm l1 |m|, unless applied as a proximal step */
            if (!l1_prox)
                for (j = 0; j < n; j++) g[j] += w[j] > 0 ? l1 : w[j] < 0 ? -l1 : 0.0f;
        } else if (c->round > 0 && (w0 = fgl_received_at(c, sl->offset)) != NULL) { /* d/dw loc_l2 ||w - w0||_2 */
            double norm = 0;
            for (j = 0; j < n; j++) norm += ((double)w[j] - w0[j]) * ((double)w[j] - w0[j]);
            norm = sqrt(norm);
            if (norm > 0)
                for (j = 0; j < n; j++) g[j] += (float)(loc_l2 * (w[j] - w0[j]) / norm);
        }
    }
    return FGL_OK;
}

/* The L1 term's proximal step: m <- sign(m) max(|m| - lr l1, 0). Through
 * Adam, the subgradient l1 sign(m) is rescaled to about lr per step wherever
 * the data gradient is small (masks over features a client never sees), so
 * it would zero those masks whatever l1 is; the proximal step keeps l1's
 * scale. */
static int fgl__pub_after_step(fgl_client *c, const fgl_step *st) {
    const fgl__fedpub_params *p = FGL_PARAMS(fgl__fedpub_params, c->set);
    fgl_params *ps = &st->model->params;
    float shrink = c->optim.cfg.lr * (float)p->l1;
    int i;
    size_t j;
    if (p->live_reg == 0 || p->l1_prox == 0) return FGL_OK;
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *sl = &ps->slices[i];
        float *w = ps->data + sl->offset;
        if (!sl->trainable || !(sl->groups & FGL_G_MASK)) continue;
        for (j = 0; j < fgl_slice_size(sl); j++)
            w[j] = w[j] > shrink ? w[j] - shrink : w[j] < -shrink ? w[j] + shrink : 0.0f;
    }
    return FGL_OK;
}

static void fgl__pub_report(const fgl_observed *o, char *buf, size_t cap) {
    long pruned = 0, total = 0;
    int i, k;
    size_t j;
    float *tmp = NULL;
    for (i = 0; i < o->n_clients; i++) {
        fgl_observed_model m;
        const float *data;
        float *t;
        if (fgl_observed_layout(o, i, &m)) continue; /* hosted elsewhere (FGL_MPI): its masks are not here */
        t = (float *)FGL_REALLOC(tmp, sizeof(float) * FGL__MAX(m.size, 1)); /* resident or packed (cfg.park_idle) */
        if (t) tmp = t;
        if (!t || fgl_observed_params(o, i, tmp, FGL__MAX(m.size, 1))) { /* out of memory or unreadable: no report */
            total = 0;
            break;
        }
        data = tmp;
        for (k = 0; k < m.n_slices; k++) {
            const fgl_slice *sl = &m.slices[k];
            const float *v = data + sl->offset;
            if (!(sl->groups & FGL_G_MASK)) continue;
            for (j = 0; j < fgl_slice_size(sl); j++) pruned += fabsf(v[j]) < m.spec->mask_prune;
            total += (long)fgl_slice_size(sl);
        }
    }
    FGL_FREE(tmp);
    if (!total) return;
    /* Uploads carry the dense weights; sending theta * mask sparsely would skip
     * the pruned entries (at 4 bytes each, before any index overhead). */
    snprintf(buf, cap, "\"mask_sparsity\": %.6f, \"prunable_bytes_per_round\": %ld",
             total ? (double)pruned / (double)total : 0.0, 4 * pruned);
}

static int fgl__pub_matrix(const fgl_observed *o, float *out) { return fgl_observed_matrix(o, "sim", out); }

static fgl_algo fgl__fedpub(void) {
    fgl_algo a =
        fgl_algo_new("fedpub", "Baek et al. 2023: personalised subgraph FL with functional-embedding similarity "
                               "and weight masks");
    FGL_ALGO_PARAM(&a, fgl__fedpub_params, share, FGL_PARAM_GROUPS, (double)(FGL_G_ALL & ~(unsigned)FGL_G_MASK),
                   "parameter groups sent (the masks stay home)");
    FGL_ALGO_PARAM(&a, fgl__fedpub_params, tau, FGL_PARAM_FLOAT, 3.0,
                   "similarity sharpness (3 disjoint, 5 overlapping)");
    FGL_ALGO_PARAM(&a, fgl__fedpub_params, l1, FGL_PARAM_FLOAT, 1e-3, "mask L1 weight");
    FGL_ALGO_PARAM(&a, fgl__fedpub_params, loc_l2, FGL_PARAM_FLOAT, 1e-3, "proximal weight");
    FGL_ALGO_PARAM(&a, fgl__fedpub_params, proxy_blocks, FGL_PARAM_INT, 5, "proxy graph blocks");
    FGL_ALGO_PARAM(&a, fgl__fedpub_params, proxy_block_size, FGL_PARAM_INT, 100, "nodes per proxy block");
    FGL_ALGO_PARAM(&a, fgl__fedpub_params, p_in, FGL_PARAM_FLOAT, 0.1, "proxy edge probability inside a block");
    FGL_ALGO_PARAM(&a, fgl__fedpub_params, p_out, FGL_PARAM_FLOAT, 0.0,
                   "proxy edge probability across blocks (paper: 0.01)");
    FGL_ALGO_PARAM(&a, fgl__fedpub_params, live_reg, FGL_PARAM_INT, 1,
                   "1: L1/proximal terms act on the parameters; 0: as the authors' code (no effect)");
    FGL_ALGO_PARAM(&a, fgl__fedpub_params, l1_prox, FGL_PARAM_INT, 1,
                   "1: L1 as a soft-threshold step after the optimizer step; 0: its subgradient through Adam");
    FGL_ALGO_PARAM(&a, fgl__fedpub_params, masks, FGL_PARAM_INT, 1,
                   "1: personal weight masks; 0: none (with tau=0: no similarity either, i.e. FedAvg)");
    fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, 0, 0, 0);
    fgl_algo_upload(&a, "fe", FGL_SEND_DATA, FGL_DIM_EMB, 1, 0);
    fgl_algo_upload(&a, "n", FGL_SEND_WEIGHT, 0, 0, 0);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, FGL_PART_ROW, "theta");
    a.prepare_spec = fgl__pub_spec;
    a.client_init = fgl__pub_client_init;
    a.upload = fgl__pub_upload;
    a.train.grad = fgl__pub_grad;
    a.train.after_step = fgl__pub_after_step;
    a.server_init = fgl__pub_server_init;
    a.aggregate = fgl__pub_aggregate;
    a.report = fgl__pub_report;
    a.client_matrix = fgl__pub_matrix;
    a.mixes = 1;
    return a;
}

#include "../../alone.h"
