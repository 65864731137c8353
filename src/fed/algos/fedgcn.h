#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- FedGCN: cross-client neighbours' features, once, before training --------------- */
/* Yao et al., NeurIPS 2023, "FedGCN: Convergence-Communication Tradeoffs in
 * Federated Training of Graph Convolutional Networks". Clients hold their
 * data with its halo (fgl_split_halo; fglrun --halo H): their own nodes, then
 * the nodes of other clients within H hops of them, known by structure only
 * (ids, the edges among all of them, the whole graph's degrees in the GCN
 * matrix; features zero). hops 1 or 2 (-1, the default: the halo the data
 * brings) makes round 1 the one-shot pre-training exchange:
 *   up   "x"    n_k x F: the client's own nodes' features (halo rows zero),
 *        "gid"  n_k:     every row's id in the whole graph (own g, halo -(g+1));
 *   down "halo" n_k x F: the features of its halo rows, which the server takes
 *        from the uploads of the clients that own those nodes (own rows zero),
 *        sent with round 2's model, once.
 * Round 1 trains nothing (the exchange comes before training); from round 2
 * on the clients train the GCN on their rows as FedAvg does (theta averaged
 * by samples, or alike: weights=equal, the authors' code). With the whole
 * graph's degrees a GCN layer at an own node sums A_hat x over its whole
 * neighbourhood, as on the whole graph: hops 1 gives the first layer's
 * aggregate exactly, hops 2 a 2-layer GCN's output at own nodes exactly. hops
 * 0 is FedAvg on the clients' own subgraphs (bit for bit: tested).
 * Sent in the exchange: up 4 (F + 1) n_k, down 4 F n_k bytes per client,
 * n_k its rows (own and halo); then FedAvg's 4 (n + 1) up and 4 n down per
 * round. The paper's homomorphic encryption of the exchange is not provided.
 * "x" and "gid" are RAW parts: no robust rule, DP or secure aggregation
 * covers them, and such a run is refused at its start (any hops). The
 * exchange needs every client in round 1 (frac 1 then); under FGL_MPI the
 * halo travels with each rank's clients' data. */

enum { FGL__GCN_NONE, FGL__GCN_DUE, FGL__GCN_SENT }; /* the server's exchange state ("xch") */

/* FedAvg's parameters (its server init and aggregation read weights), and the hops. */
typedef struct fgl__fedgcn_params {
    fgl__fedavg_params fedavg;
    int hops; /* -1: the data's halo; else 0, 1 or 2 */
} fgl__fedgcn_params;

/* A client's state: "hops", the hops it runs and 1 once the halo arrived;
 * "xfull", its features with the halo's rows (hops 1 or 2). */
typedef struct fgl__fedgcn_client {
    int *hops;
    float *xfull;
} fgl__fedgcn_client;

/* The server's state: FedAvg's, the exchange's state ("xch": state, own rows
 * sent, halo rows filled) and every client's halo rows to send ("hx"). */
typedef struct fgl__fedgcn_server {
    fgl__avg_server avg;
    int *xch;
    float *hx;
} fgl__fedgcn_server;

/* The hops a client runs: the parameter, or (-1) the halo its data brings; -1 with an error recorded. */
static int fgl__gcn_hops(fgl_client *c) {
    const fgl_node_data *d = c->data.node;
    int want = FGL_PARAMS(fgl__fedgcn_params, c->set)->hops, has = d && d->gid ? d->halo_hops : 0;
    if (want < -1 || want > 2) {
        fgl_client_fail(c, FGL_ERR_RANGE, "fedgcn: hops = %d, not -1 (the data's halo), 0, 1 or 2", want);
        return -1;
    }
    if (want >= 0 && want != has) {
        fgl_client_fail(c, FGL_ERR_ARG, "fedgcn: hops = %d needs the clients' data with a halo of %d hops "
                        "(fgl_split_halo; fglrun --halo %d); client %d's has %d", want, want, want, c->id, has);
        return -1;
    }
    if (has > 2) {
        fgl_client_fail(c, FGL_ERR_ARG, "fedgcn: a halo of %d hops; FedGCN exchanges 0, 1 or 2", has);
        return -1;
    }
    return has;
}

static int fgl__gcn_client_init(fgl_client *c) {
    const fgl_node_data *d = c->data.node;
    fgl__fedgcn_client *st = FGL_NEW_STATE(fgl__fedgcn_client, &c->store);
    int h = fgl__gcn_hops(c), *state;
    float *x;
    if (!st) return FGL_ERR_NOMEM;
    state = st->hops = fgl_new_ints(&c->store, "hops", 2); /* the hops run, and 1 once the halo arrived */
    if (h < 0) return c->err.code;
    if (!state) return FGL_ERR_NOMEM;
    state[0] = h;
    if (h == 0) return FGL_OK;
    if (!d->x.data || d->x.cols != d->n_feat || d->n_own < 1 || d->n_own > d->n_nodes || d->n_nodes > (1 << 24) ||
        !d->gid)
        return fgl_client_fail(c, FGL_ERR_ARG, "fedgcn: client %d's halo data needs dense features, own rows first, "
                               "their node ids and at most 2^24 rows", c->id);
    {   /* node ids travel as floats: exact below 2^24 */
        int r;
        for (r = 0; r < d->n_nodes; r++)
            if (d->gid[r] < 0 || d->gid[r] >= (1 << 24))
                return fgl_client_fail(c, FGL_ERR_ARG, "fedgcn: client %d's row %d has node id %d (0 .. 2^24 - 1)",
                                       c->id, r, d->gid[r]);
    }
    x = st->xfull = fgl_new_floats(&c->store, "xfull", (size_t)d->n_nodes * (size_t)d->n_feat);
    if (!x) return FGL_ERR_NOMEM;
    memcpy(x, d->x.data, sizeof(float) * (size_t)d->n_nodes * (size_t)d->n_feat);
    c->data.full.x = x; /* the GCN reads its features from here: the halo rows once they arrive */
    return FGL_OK;
}

static int fgl__gcn_train(fgl_client *c) {
    /* the exchange round: nothing to train on yet */
    if (FGL_STATE(fgl__fedgcn_client, &c->store)->hops[0] > 0 && c->round == 0) {
        c->steps = 0;
        c->train_loss = 0;
        return FGL_OK;
    }
    return fgl_client_train(c, &c->model, &c->optim, &c->algo->train);
}

static int fgl__gcn_upload(fgl_client *c) {
    const fgl_node_data *d = c->data.node;
    float *x, *gid;
    int r;
    if (FGL_STATE(fgl__fedgcn_client, &c->store)->hops[0] == 0 || c->round != 0) {
        fgl_up_drop(c, "x");
        fgl_up_drop(c, "gid");
        return FGL_OK;
    }
    x = fgl_up(c, "x");
    gid = fgl_up(c, "gid");
    if (!x || !gid) return FGL_ERR_NOMEM;
    memcpy(x, d->x.data, sizeof(float) * (size_t)d->n_nodes * (size_t)d->n_feat); /* halo rows: zero */
    for (r = 0; r < d->n_nodes; r++) gid[r] = (float)(r < d->n_own ? d->gid[r] : -d->gid[r] - 1);
    return FGL_OK;
}

static int fgl__gcn_receive(fgl_client *c) {
    const fgl_node_data *d = c->data.node;
    const fgl__fedgcn_client *st = FGL_STATE(fgl__fedgcn_client, &c->store);
    const float *h = fgl_down(c, "halo");
    size_t F, own;
    int *state = st->hops;
    if (!h) return FGL_OK;
    F = (size_t)d->n_feat;
    own = (size_t)d->n_own;
    if (state[0] == 0) return fgl_client_fail(c, FGL_ERR_ARG, "fedgcn: a halo arrived at a client without one");
    memcpy(st->xfull + own * F, h + own * F, sizeof(float) * ((size_t)d->n_nodes - own) * F);
    state[1] = 1;
    return FGL_OK;
}

/* All clients' rows together. */
static size_t fgl__gcn_rows(const fgl_server *s) {
    size_t rows = 0;
    int i;
    for (i = 0; i < s->n_clients; i++) rows += (size_t)s->n_nodes[i];
    return rows;
}

static int fgl__gcn_server_init(fgl_server *s) {
    int rc = fgl__fedavg_server_init(s), hops = FGL_PARAMS(fgl__fedgcn_params, s->set)->hops;
    fgl__fedgcn_server *st;
    if (rc) return rc;
    if (hops < -1 || hops > 2) return fgl_server_fail(s, FGL_ERR_RANGE, "fedgcn: hops = %d, not -1, 0, 1 or 2", hops);
    if (!(st = FGL_NEW_STATE(fgl__fedgcn_server, &s->store))) return FGL_ERR_NOMEM; /* FedAvg's, extended */
    if (!(st->xch = fgl_new_ints(&s->store, "xch", 3))) return FGL_ERR_NOMEM; /* state, own rows sent, halo filled */
    if (hops == 0) return FGL_OK;
    /* every client's halo rows to send, at the offset of its rows among all clients' */
    st->hx = fgl_new_floats(&s->store, "hx", fgl__gcn_rows(s) * fgl_server_dim(s, FGL_DIM_INPUT));
    return st->hx ? FGL_OK : FGL_ERR_NOMEM;
}

typedef struct fgl__gcn_owner {
    int gid, client, row;
} fgl__gcn_owner;

static int fgl__gcn_owner_cmp(const void *a, const void *b) {
    int x = ((const fgl__gcn_owner *)a)->gid, y = ((const fgl__gcn_owner *)b)->gid;
    return (x > y) - (x < y);
}

/* Round 1's uploads: every halo row's features from the upload of the client that owns the node. */
static int fgl__gcn_exchange(fgl_server *s) {
    const fgl__fedgcn_server *st = FGL_STATE(fgl__fedgcn_server, &s->store);
    size_t F = fgl_server_dim(s, FGL_DIM_INPUT), off = 0, n_own = 0, k = 0, filled = 0;
    fgl__gcn_owner *own;
    float *hx;
    int i, r, senders = 0;
    for (i = 0; i < s->n_clients; i++) senders += fgl_upload(s, i, "gid") != NULL && fgl_upload(s, i, "x") != NULL;
    if (senders == 0) return FGL_OK; /* no halo anywhere: FedAvg */
    if (senders < s->n_clients)
        return fgl_server_fail(s, FGL_ERR_ARG, "fedgcn: the exchange needs every client's upload in round 1 (%d of "
                               "%d arrived)", senders, s->n_clients);
    hx = st->hx; /* there: a client sends only with hops 1 or 2, the server's parameter too */
    for (i = 0; i < s->n_clients; i++) {
        const float *g = fgl_upload(s, i, "gid");
        for (r = 0; r < s->n_nodes[i]; r++) {
            if (!(g[r] > -16777217.0f && g[r] < 16777216.0f) || g[r] != (float)(int)g[r]) /* NaN, huge, fractional */
                return fgl_server_fail(s, FGL_ERR_ARG, "fedgcn: client %d's row %d carries node id %g", i, r, g[r]);
            n_own += g[r] >= 0;
        }
    }
    own = (fgl__gcn_owner *)fgl_scratch(&s->store, sizeof(fgl__gcn_owner) * FGL__MAX(n_own, 1));
    if (!own) return FGL_ERR_NOMEM;
    for (i = 0; i < s->n_clients; i++) {
        const float *g = fgl_upload(s, i, "gid");
        for (r = 0; r < s->n_nodes[i]; r++)
            if (g[r] >= 0) {
                own[k].gid = (int)g[r];
                own[k].client = i;
                own[k++].row = r;
            }
    }
    qsort(own, n_own, sizeof *own, fgl__gcn_owner_cmp);
    for (k = 1; k < n_own; k++)
        if (own[k].gid == own[k - 1].gid)
            return fgl_server_fail(s, FGL_ERR_ARG, "fedgcn: node %d is owned by clients %d and %d", own[k].gid,
                                   own[k - 1].client, own[k].client);
    memset(hx, 0, sizeof(float) * F * fgl__gcn_rows(s));
    for (i = 0; i < s->n_clients; off += (size_t)s->n_nodes[i++]) {
        const float *g = fgl_upload(s, i, "gid");
        for (r = 0; r < s->n_nodes[i]; r++) {
            fgl__gcn_owner key, *o;
            if (g[r] >= 0) continue;
            key.gid = (int)(-g[r] - 1);
            o = (fgl__gcn_owner *)bsearch(&key, own, n_own, sizeof *own, fgl__gcn_owner_cmp);
            if (!o)
                return fgl_server_fail(s, FGL_ERR_ARG, "fedgcn: client %d's halo node %d has no owner", i, key.gid);
            memcpy(hx + (off + (size_t)r) * F, fgl_upload(s, o->client, "x") + (size_t)o->row * F, sizeof(float) * F);
            filled++;
        }
    }
    st->xch[0] = FGL__GCN_DUE;
    st->xch[1] = (int)n_own;
    st->xch[2] = (int)filled;
    return FGL_OK;
}

static int fgl__gcn_aggregate(fgl_server *s) {
    int rc = fgl__fedavg_aggregate(s), *xch = FGL_STATE(fgl__fedgcn_server, &s->store)->xch;
    if (rc) return rc;
    if (xch[0] == FGL__GCN_DUE) xch[0] = FGL__GCN_SENT; /* round 2's downloads carried it */
    return s->round == 0 ? fgl__gcn_exchange(s) : FGL_OK;
}

static int fgl__gcn_download(fgl_server *s, int client, fgl_msg *down) {
    const fgl__fedgcn_server *st = FGL_STATE(fgl__fedgcn_server, &s->store);
    size_t F = fgl_server_dim(s, FGL_DIM_INPUT), off = 0, n = (size_t)s->n_nodes[client] * F;
    float *p;
    int i;
    (void)down;
    if (st->xch[0] != FGL__GCN_DUE) return FGL_OK;
    for (i = 0; i < client; i++) off += (size_t)s->n_nodes[i];
    if (!(p = fgl_download_part(s, client, "halo"))) return FGL_ERR_NOMEM;
    memcpy(p, st->hx + off * F, sizeof(float) * n);
    return FGL_OK;
}

static void fgl__gcn_report(const fgl_observed *o, char *buf, size_t cap) {
    const int *xch = fgl_observed_ints(o, "xch");
    double rows = 0, F = (double)fgl_observed_dim(o, FGL_DIM_INPUT);
    int i;
    if (!xch) return;
    for (i = 0; i < o->n_clients; i++) rows += o->n_nodes[i];
    snprintf(buf, cap, "\"exchange\": \"%s\", \"exchange_own_rows\": %d, \"exchange_halo_rows\": %d, "
             "\"exchange_bytes_up\": %.0f, \"exchange_bytes_down\": %.0f",
             xch[0] == FGL__GCN_SENT ? "sent" : xch[0] == FGL__GCN_DUE ? "due" : "none", xch[1], xch[2],
             xch[0] ? 4.0 * (F + 1) * rows : 0.0, xch[0] == FGL__GCN_SENT ? 4.0 * F * rows : 0.0);
}

/* The exchange is of node features over a node graph's cut edges: a graph-classification client has neither (its
 * receive hook would read a halo that does not exist). */
static int fgl__gcn_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    (void)set;
    if (spec->task != FGL_TASK_NODE) return fgl_error_set(err, FGL_ERR_ARG, "fedgcn: node classification only");
    if (spec->arch == FGL_ARCH_SGC || spec->arch == FGL_ARCH_GAMLP) /* they propagate the features once, before */
        return fgl_error_set(err, FGL_ERR_ARG, "fedgcn: not with %s (its features are propagated before the "
                             "exchange fills the halo in)", spec->arch == FGL_ARCH_SGC ? "sgc" : "gamlp");
    return FGL_OK;
}

static fgl_algo fgl__fedgcn(void) {
    fgl_algo a = fgl__avg_base("fedgcn", "Yao et al. 2023: the halo's features sent once before training (0-, 1-, "
                               "2-hop), then FedAvg on the clients' rows", FGL_G_ALL, "parameter groups averaged");
    FGL_ALGO_PARAM(&a, fgl__fedgcn_params, hops, FGL_PARAM_INT, -1,
                       "-1: the halo the clients' data brings (fglrun --halo H), else 0, 1 or 2, which it must be");
    FGL_ALGO_PARAM(&a, fgl__fedavg_params, weights, FGL_PARAM_INT, 0,
                       "clients weighted by training samples (samples) or alike (equal: the authors' code)");
    fgl_algo_param_choices(&a, "weights", "samples|equal");
    fgl_algo_upload(&a, "x", FGL_SEND_DATA, FGL_DIM_NODES, FGL_DIM_INPUT, FGL_PART_OPTIONAL | FGL_PART_RAW);
    fgl_algo_upload(&a, "gid", FGL_SEND_DATA, FGL_DIM_NODES, 1, FGL_PART_OPTIONAL | FGL_PART_RAW);
    fgl_algo_download(&a, "halo", FGL_SEND_DATA, FGL_DIM_NODES, FGL_DIM_INPUT, FGL_PART_OPTIONAL, NULL);
    a.client_init = fgl__gcn_client_init;
    a.local_train = fgl__gcn_train;
    a.upload = fgl__gcn_upload;
    a.receive = fgl__gcn_receive;
    a.server_init = fgl__gcn_server_init;
    a.aggregate = fgl__gcn_aggregate;
    a.download = fgl__gcn_download;
    a.report = fgl__gcn_report;
    a.prepare_spec = fgl__gcn_spec;
    return a;
}
#include "../../alone.h"
