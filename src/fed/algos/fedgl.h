#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:private */
#include "../../alone.h"
/* Tests: the server's fusion of the clients' predictions and embeddings,
 * its pseudo-graph, and a client's propagation matrix with the pseudo-graph
 * added, on plain arrays (src/fed/algos/fedgl.h). */
FGL__PRIVATE void fgl__gl_fuse(int N, int C, int D, int M, const int *node, const double *w, const float *logits,
                               const float *emb, double tau, int *label, float *fused);
FGL__PRIVATE int fgl__gl_graph(int N, int D, const float *emb, int k, int *nbr, float *val, float *self);
FGL__PRIVATE int fgl__gl_augment(const fgl_csr *gcn, int k, const float *idx, const float *val, const float *self,
                                 float mu, fgl_csr *out, fgl_error *err);
/* fgl:implementation */
#include "../../alone.h"
/* --- FedGL (Chen et al., Information Sciences 2024) -------------------------------- */
/* "FedGL: Federated Graph Learning Framework with Global Self-Supervision"
 * (arXiv 2105.03170). FedAvg of the weights, and besides them each client
 * uploads, for every node of its graph, the model's prediction and an
 * embedding; the server fuses them into global self-supervision that it
 * sends back: pseudo-labels (confident fused predictions) and a pseudo-graph
 * (the kNN graph of the fused embeddings).
 *
 * Client, each round after local training (evaluation mode, on the graph it
 * trains on): up "logits" n_k x C, the model's logits of its n_k rows (the
 * server takes their softmax), and, embed = rep, "rep" n_k x d, what the
 * classifier reads (embed = logits, the default: the logits are the
 * embedding, as OpenFGL's model returns them); "gid" n_k: the rows' node ids
 * in the whole graph where the data has them (fglrun --halo: own rows g,
 * halo rows -(g + 1)). Every `update` rounds only (others: the weights).
 *
 * Node identity: a node is a node id where the data carries ids (the halo
 * split, where a halo row is another client's own node), and otherwise a
 * client's row, distinct from every other client's (fgl's Louvain, METIS
 * and random splits are partitions, so this is exact there; the FED-PUB
 * overlap split carries no ids, and a node held twice counts as two). OpenFGL
 * sends each client's global node ids (its global_map) and places the rows
 * in the whole graph by them; on its Louvain and METIS partitions no node is
 * held twice, so the placement is all they do, as here. Only own rows are
 * fused; a halo row receives what its owner's row gives.
 *
 * Server, rounds t with t % update == 0, over the uploading clients i with
 * weight r_i (training samples, fuse = samples: OpenFGL's sampling_rate; or
 * 1, fuse = equal) and p_iv = softmax(logits_iv):
 *     P_v = sum_i r_i [p_iv >= tau] p_iv / sum_i r_i      (per class),
 *     pseudo-label y~_v = argmax_c P_vc where sum_c P_vc > 0 (ties: lowest),
 *     E_v = sum_i r_i e_iv / sum_i r_i,
 *     S_vu = max(E_v . E_u, 0); N_k(v) its k largest u != v with S_vu > 0
 *            (ties: lowest index); Z_vu = S_vu / sum_{u' in N_k(v)} S_vu',
 *     W = I + (Z + Z^T) / 2,  A~ = D^-1/2 W D^-1/2,  D = diag(W 1),
 * and sends each client, for its rows, y~ (-1: none; "plabel") and the
 * pseudo-graph's entries among them: per row v its k listed neighbours'
 * rows in the client ("pg_idx", -1: not the client's) with
 * 0.5 Z_vu d_v^-1/2 d_u^-1/2 ("pg_val"), placed at (v, u) and (u, v), and
 * the diagonal 1 / d_v ("pg_self"): the restriction of A~ to its rows, A~
 * normalised with the whole graph's degrees.
 *
 * Client training, once it has them: the propagation matrix of its GCN is
 *     A_hat + mu A~|client         (mu = pgraph; A_hat = D^-1/2 (A + I) D^-1/2),
 * and the loss is
 *     CE(train) + lambda CE(y~ on its rows with a pseudo-label, training rows
 *     excepted);
 * the same matrix gives its uploads and its evaluation (eval_scores). The
 * pseudo-graph needs a model that reads the GCN matrix as it runs (GCN,
 * GCNII); pgraph = 0 runs with any.
 *
 * Where this departs from OpenFGL (docs/algorithms.md, "FedGL"): the
 * pseudo-graph is symmetrised (fgl's graphs are undirected and its GCN uses
 * its matrix as its own transpose; OpenFGL's D^-1/2 Z^T D^-1/2 is not
 * symmetric), a node is not its own kNN neighbour (OpenFGL ranks it among
 * the s, then sets the diagonal to 1), no random entry is put into an empty
 * column, the pseudo-labels are recomputed at every update (OpenFGL appends
 * them to lists it never clears and each client reads entry client_id: the
 * first round's, for good), and a client with no pseudo-labelled row adds
 * nothing (OpenFGL draws one random row and gives it label 0).
 *
 * Privacy: per-node logits, embeddings and node ids leave the client: they
 * are RAW parts (the server turns them into what clients train on), so
 * robust rules, DP and secure aggregation are refused at the start by the
 * runtime (secure aggregation could not hide per-node uploads anyway).
 * Node classification only.
 *
 * Defaults: OpenFGL's fedgl_config (ssl weight lambda 0.1, threshold tau
 * 0.5, k 100, update every round, fuse by samples), except pgraph = 1:
 * OpenFGL ships the pseudo-graph off (pseudo_graph_weight 0); the paper
 * uses both parts, and its weight could not be read from the stored
 * sources; 1 adds A~ at the local matrix's scale.
 * Sent per update round, beyond FedAvg's 4 (n + 1) up and 4 n down: up
 * 4 n_k (C [+ d] [+ 1]) bytes, down 4 n_k (2 k + 2) bytes (plabel, pg_*;
 * lambda = 0 leaves plabel out, pgraph = 0 the pg_ parts). */

enum { FGL__GL_EMB_LOGITS, FGL__GL_EMB_REP };
enum { FGL__GL_FUSE_SAMPLES, FGL__GL_FUSE_EQUAL };

/* The parameters: the weight-averaging base's, then FedGL's. */
typedef struct fgl__fedgl_params {
    fgl__avg_params avg;
    double lambda; /* the pseudo-label loss's weight */
    double tau;    /* a class probability counts in the fusion from this on */
    double pgraph; /* the weight of the pseudo-graph added to the GCN matrix */
    int k;         /* neighbours of a node in the pseudo-graph */
    int update;    /* rounds between updates */
    int embed;     /* FGL__GL_EMB_LOGITS or FGL__GL_EMB_REP */
    int fuse;      /* FGL__GL_FUSE_SAMPLES or FGL__GL_FUSE_EQUAL */
} fgl__fedgl_params;

/* The fusion. M entries (a client's own row each): node[e] in 0..N-1 its
 * node, w[e] its client's weight, logits + e C its logits, emb + e D its
 * embedding. label (N) gets y~ (-1: none), fused (N x D) E (zero rows for
 * nodes without entries). */
FGL__PRIVATE void fgl__gl_fuse(int N, int C, int D, int M, const int *node, const double *w, const float *logits,
                               const float *emb, double tau, int *label, float *fused) {
    double *P = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(N, 1) * (size_t)FGL__MAX(C, 1));
    double *E = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(N, 1) * (size_t)FGL__MAX(D, 1));
    double *W = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(N, 1));
    double *p = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(C, 1));
    int e, v, c;
    if (!P || !E || !W || !p) { /* nothing fused: no pseudo-label, zero embeddings */
        for (v = 0; v < N; v++) label[v] = -1;
        memset(fused, 0, sizeof(float) * (size_t)N * (size_t)D);
        goto done;
    }
    memset(P, 0, sizeof(double) * (size_t)N * (size_t)C);
    memset(E, 0, sizeof(double) * (size_t)N * (size_t)D);
    memset(W, 0, sizeof(double) * (size_t)N);
    for (e = 0; e < M; e++) {
        const float *l = logits + (size_t)e * C;
        double mx = l[0], s = 0;
        v = node[e];
        for (c = 1; c < C; c++) mx = l[c] > mx ? l[c] : mx;
        for (c = 0; c < C; c++) s += (p[c] = exp((double)l[c] - mx));
        for (c = 0; c < C; c++) {
            double q = p[c] / s;
            if (q >= tau) P[(size_t)v * C + c] += w[e] * q; /* below the threshold: 0 */
        }
        for (c = 0; c < D; c++) E[(size_t)v * D + c] += w[e] * (double)emb[(size_t)e * D + c];
        W[v] += w[e];
    }
    for (v = 0; v < N; v++) {
        const double *r = P + (size_t)v * C;
        double sum = 0;
        int best = 0;
        for (c = 0; c < C; c++) {
            sum += r[c];
            if (r[c] > r[best]) best = c;
        }
        label[v] = sum > 0 ? best : -1; /* the argmax of P_v / sum_i r_i is P_v's */
        for (c = 0; c < D; c++) fused[(size_t)v * D + c] = W[v] > 0 ? (float)(E[(size_t)v * D + c] / W[v]) : 0.0f;
    }
done:
    FGL_FREE(P);
    FGL_FREE(E);
    FGL_FREE(W);
    FGL_FREE(p);
}

/* Similarity order of nodes a and b: a below b (lower similarity, or equal
 * and a later index). */
static int fgl__gl_worse(const float *s, int a, int b) { return s[a] < s[b] || (s[a] == s[b] && a > b); }

/* The min-heap nb[0..n-1] (worst on top) with its top replaced by j. */
static void fgl__gl_sift(const float *s, int *nb, int n, int j) {
    int q = 0;
    for (;;) {
        int l = 2 * q + 1, m = l;
        if (l >= n) break;
        if (l + 1 < n && fgl__gl_worse(s, nb[l + 1], nb[l])) m = l + 1;
        if (!fgl__gl_worse(s, nb[m], j)) break;
        nb[q] = nb[m];
        q = m;
    }
    nb[q] = j;
}

/* The pseudo-graph of N embeddings (N x D): nbr (N x k) each node's listed
 * neighbours (-1 past the last), val (N x k) their 0.5 Z_vu d_v^-1/2 d_u^-1/2
 * (0 past the last), self (N) 1 / d_v. FGL_OK or FGL_ERR_NOMEM. */
FGL__PRIVATE int fgl__gl_graph(int N, int D, const float *emb, int k, int *nbr, float *val, float *self) {
    enum { BLOCK = 256 }; /* rows of similarities at a time: BLOCK x N floats */
    float *sim = (float *)FGL_MALLOC(sizeof(float) * (size_t)FGL__MIN(FGL__MAX(N, 1), BLOCK) * (size_t)FGL__MAX(N, 1));
    double *z = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(N, 1) * (size_t)FGL__MAX(k, 1));
    double *deg = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(N, 1));
    int v, j, q, v0, kk = FGL__MIN(k, N - 1);
    if (!sim || !z || !deg) {
        FGL_FREE(sim);
        FGL_FREE(z);
        FGL_FREE(deg);
        return FGL_ERR_NOMEM;
    }
    for (v = 0; v < N; v++) {
        deg[v] = 1.0; /* W's diagonal */
        for (q = 0; q < k; q++) nbr[(size_t)v * k + q] = -1, val[(size_t)v * k + q] = 0.0f;
    }
    for (v0 = 0; v0 < N && kk > 0; v0 += BLOCK) {
        int m = FGL__MIN(BLOCK, N - v0);
        fgl_gemm(0, 1, m, N, D, 1.0f, emb + (size_t)v0 * D, D, emb, D, 0.0f, sim, N); /* E_v . E_u, rows v0.. */
        for (v = v0; v < v0 + m; v++) {
            const float *s = sim + (size_t)(v - v0) * N;
            int *nb = nbr + (size_t)v * k, got = 0;
            double sum = 0;
            for (j = 0; j < N; j++) { /* the kk most similar other nodes with S > 0, ties to the lowest index: */
                if (j == v || !(s[j] > 0) || (got == kk && !(s[j] > s[nb[0]]))) continue; /* a heap, worst on top */
                if (got < kk) {
                    q = got++;
                    while (q > 0 && fgl__gl_worse(s, j, nb[(q - 1) / 2])) nb[q] = nb[(q - 1) / 2], q = (q - 1) / 2;
                    nb[q] = j;
                } else {
                    fgl__gl_sift(s, nb, got, j);
                }
            }
            for (q = got; q > 1; q--) { /* heap sort: best first */
                int last = nb[q - 1];
                nb[q - 1] = nb[0];
                fgl__gl_sift(s, nb, q - 1, last);
            }
            for (q = 0; q < got; q++) sum += (double)s[nb[q]];
            for (q = 0; q < got; q++) z[(size_t)v * k + q] = (double)s[nb[q]] / sum;
        }
    }
    for (v = 0; v < N; v++) /* d_v = 1 + (sum_u Z_vu + sum_u Z_uv) / 2 */
        for (q = 0; q < k && nbr[(size_t)v * k + q] >= 0; q++) {
            double h = 0.5 * z[(size_t)v * k + q];
            deg[v] += h;
            deg[nbr[(size_t)v * k + q]] += h;
        }
    for (v = 0; v < N; v++) {
        self[v] = (float)(1.0 / deg[v]);
        for (q = 0; q < k && nbr[(size_t)v * k + q] >= 0; q++)
            val[(size_t)v * k + q] =
                (float)(0.5 * z[(size_t)v * k + q] / sqrt(deg[v] * deg[nbr[(size_t)v * k + q]]));
    }
    FGL_FREE(sim);
    FGL_FREE(z);
    FGL_FREE(deg);
    return FGL_OK;
}

/* A client's propagation matrix with the pseudo-graph: gcn (n x n, with
 * values) + mu times the received entries (idx, val: n x k, self: n). */
FGL__PRIVATE int fgl__gl_augment(const fgl_csr *gcn, int k, const float *idx, const float *val, const float *self,
                                 float mu, fgl_csr *out, fgl_error *err) {
    int n = gcn->rows, v, q, rc;
    size_t cap = (size_t)gcn->nnz + (size_t)n + 2 * (size_t)n * (size_t)k, e = 0;
    int *r = (int *)FGL_MALLOC(sizeof(int) * cap), *c = (int *)FGL_MALLOC(sizeof(int) * cap);
    float *x = (float *)FGL_MALLOC(sizeof(float) * cap);
    if (!r || !c || !x || !gcn->values) {
        rc = fgl_error_set(err, r && c && x ? FGL_ERR_ARG : FGL_ERR_NOMEM, "fedgl: %s",
                           r && c && x ? "the GCN matrix has no values" : "out of memory for the pseudo-graph");
        goto done;
    }
    for (v = 0; v < n; v++)
        for (q = gcn->indptr[v]; q < gcn->indptr[v + 1]; q++) r[e] = v, c[e] = gcn->indices[q], x[e++] = gcn->values[q];
    for (v = 0; v < n; v++) {
        if (self[v] != 0) r[e] = v, c[e] = v, x[e++] = mu * self[v];
        for (q = 0; q < k; q++) {
            int u = (int)idx[(size_t)v * k + q];
            float a = mu * val[(size_t)v * k + q];
            if (u < 0 || u >= n || a == 0) continue;
            r[e] = v, c[e] = u, x[e++] = a;
            r[e] = u, c[e] = v, x[e++] = a;
        }
    }
    rc = fgl_csr_from_coo(n, n, (int)e, r, c, x, 1, out, err);
done:
    FGL_FREE(r);
    FGL_FREE(c);
    FGL_FREE(x);
    return rc;
}

static int fgl__gl_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    const fgl__fedgl_params *p = FGL_PARAMS(fgl__fedgl_params, set);
    double lam = p->lambda, tau = p->tau, mu = p->pgraph;
    if (spec->task != FGL_TASK_NODE)
        return fgl_error_set(err, FGL_ERR_ARG, "fedgl: node classification only (its self-supervision is per-node "
                             "pseudo-labels and a graph of the nodes)");
    if (!(lam >= 0) || !(tau >= 0 && tau <= 1) || !(mu >= 0) || p->update < 1)
        return fgl_error_set(err, FGL_ERR_RANGE, "fedgl: lambda %g and pgraph %g must be >= 0, tau %g in [0, 1], "
                             "update %d >= 1", lam, mu, tau, p->update);
    return FGL_OK;
}

/* Client state: what it received last (kept between updates and saved with
 * the run): "pl" its rows' pseudo-labels, "pgi" / "pgv" / "pgs" its rows'
 * pseudo-graph entries, "has" [labels received, graph received]; and
 * "scores", where eval_scores writes. */
typedef struct fgl__fedgl_client {
    float *pl, *pgi, *pgv, *pgs;
    int *has;
    float *scores;
} fgl__fedgl_client;

static int fgl__gl_client_init(fgl_client *c) {
    const fgl__fedgl_params *p = FGL_PARAMS(fgl__fedgl_params, c->set);
    const fgl_node_data *d = c->data.node;
    size_t n = (size_t)(d ? d->n_nodes : 1), k = (size_t)p->k;
    int arch = c->model.spec.arch;
    fgl__fedgl_client *st;
    if (!d) return fgl_client_fail(c, FGL_ERR_ARG, "fedgl: node classification only");
    if (p->pgraph > 0 && arch != FGL_ARCH_GCN && arch != FGL_ARCH_GCNII)
        return fgl_client_fail(c, FGL_ERR_ARG, "fedgl: the pseudo-graph is added to the GCN matrix a gcn or gcnii "
                               "model reads as it runs, and client %d runs %s: set pgraph=0 for it", c->id,
                               fgl_arch_name(arch));
    if ((int)fgl_client_dim(c, FGL_DIM_CLASSES) != c->model.spec.out_dim)
        return fgl_client_fail(c, FGL_ERR_SHAPE, "fedgl: client %d has %d classes of the run's %d", c->id,
                               c->model.spec.out_dim, (int)fgl_client_dim(c, FGL_DIM_CLASSES));
    if (!(st = FGL_NEW_STATE(fgl__fedgl_client, &c->store))) return FGL_ERR_NOMEM;
    st->pl = fgl_new_floats(&c->store, "pl", n);
    st->pgi = fgl_new_floats(&c->store, "pgi", n * k);
    st->pgv = fgl_new_floats(&c->store, "pgv", n * k);
    st->pgs = fgl_new_floats(&c->store, "pgs", n);
    st->has = fgl_new_ints(&c->store, "has", 2);
    st->scores = (float *)fgl_new_scratch(&c->store, "scores",
                                          sizeof(float) * n * (size_t)FGL__MAX(c->model.spec.out_dim, 1), NULL);
    return c->store.err.code;
}

static int fgl__gl_receive(fgl_client *c) {
    const fgl_node_data *d = c->data.node;
    const float *pl = fgl_down(c, "plabel"), *gi = fgl_down(c, "pg_idx"), *gv = fgl_down(c, "pg_val"),
                *gs = fgl_down(c, "pg_self");
    const fgl__fedgl_client *st = FGL_STATE(fgl__fedgl_client, &c->store);
    size_t n = (size_t)d->n_nodes, k = (size_t)FGL_PARAMS(fgl__fedgl_params, c->set)->k, j;
    int C = c->model.spec.out_dim, *has = st->has;
    if (pl) {
        for (j = 0; j < n; j++)
            if (!(pl[j] >= -1 && pl[j] < C && pl[j] == (float)(int)pl[j]))
                return fgl_client_fail(c, FGL_ERR_ARG, "fedgl: pseudo-label %g of row %d", (double)pl[j], (int)j);
        memcpy(st->pl, pl, sizeof(float) * n);
        has[0] = 1;
    }
    if (gi || gv || gs) {
        if (!gi || !gv || !gs) return fgl_client_fail(c, FGL_ERR_ARG, "fedgl: a pseudo-graph without all its parts");
        for (j = 0; j < n * k; j++)
            if (!(gi[j] >= -1 && gi[j] < (float)n && gi[j] == (float)(int)gi[j]) || !isfinite(gv[j]))
                return fgl_client_fail(c, FGL_ERR_ARG, "fedgl: pseudo-graph entry %d: row %g, value %g", (int)j,
                                       (double)gi[j], (double)gv[j]);
        for (j = 0; j < n; j++)
            if (!isfinite(gs[j])) return fgl_client_fail(c, FGL_ERR_ARG, "fedgl: pseudo-graph diagonal not finite");
        memcpy(st->pgi, gi, sizeof(float) * n * k);
        memcpy(st->pgv, gv, sizeof(float) * n * k);
        memcpy(st->pgs, gs, sizeof(float) * n);
        has[1] = 1;
    }
    return FGL_OK;
}

/* The client's graph with the pseudo-graph added, into *aug (returns 1), or
 * 0 when it has none to add (or, after recording the failure, -1). */
static int fgl__gl_graph_on(fgl_client *c, fgl_csr *aug) {
    const fgl__fedgl_params *p = FGL_PARAMS(fgl__fedgl_params, c->set);
    const fgl__fedgl_client *st = FGL_STATE(fgl__fedgl_client, &c->store);
    const fgl_csr *gcn = c->data.full.adj_gcn;
    float mu = (float)p->pgraph;
    fgl_error err;
    memset(aug, 0, sizeof *aug);
    if (!(mu > 0) || !st->has[1]) return 0;
    if (!gcn || gcn->rows != c->data.node->n_nodes) {
        fgl_client_fail(c, FGL_ERR_ARG, "fedgl: client %d's graph has no GCN matrix to add the pseudo-graph to", c->id);
        return -1;
    }
    if (fgl__gl_augment(gcn, p->k, st->pgi, st->pgv, st->pgs, mu, aug, &err)) {
        fgl_client_fail(c, err.code ? err.code : FGL_ERR_NOMEM, "%s", err.msg);
        return -1;
    }
    return 1;
}

/* A forward pass (evaluation mode) over the client's graph as it trains on
 * it, on c->tape; NULL after recording the failure. */
static fgl_node *fgl__gl_forward(fgl_client *c, fgl_forward *fw) {
    fgl_csr aug;
    const fgl_csr *was = c->data.full.adj_gcn;
    int on = fgl__gl_graph_on(c, &aug), rc;
    if (on < 0) return NULL;
    if (on) c->data.full.adj_gcn = &aug;
    fgl_tape_reset(&c->tape);
    rc = fgl_model_forward(&c->model, &c->tape, &c->data.full, 0, NULL, fw);
    c->data.full.adj_gcn = was;
    fgl_csr_free(&aug);
    if (rc || !fw->logits || !fw->rep) {
        fgl_client_fail(c, c->tape.err.code ? c->tape.err.code : FGL_ERR_ARG, "fedgl: predictions: %s", c->tape.err.msg);
        return NULL;
    }
    return fw->logits;
}

static int fgl__gl_train(fgl_client *c) {
    fgl_csr aug;
    const fgl_csr *was = c->data.full.adj_gcn;
    int on = fgl__gl_graph_on(c, &aug), rc;
    if (on < 0) return c->err.code;
    if (on) c->data.full.adj_gcn = &aug; /* A_hat + mu A~ for this round's steps */
    rc = fgl_client_train(c, &c->model, &c->optim, &c->algo->train);
    c->data.full.adj_gcn = was;
    fgl_csr_free(&aug);
    return rc;
}

/* lambda CE over the rows with a pseudo-label that are not training rows. */
static fgl_node *fgl__gl_loss(fgl_client *c, const fgl_step *st) {
    const fgl__fedgl_client *cs = FGL_STATE(fgl__fedgl_client, &c->store);
    float lam = (float)FGL_PARAMS(fgl__fedgl_params, c->set)->lambda;
    const float *pl = cs->pl;
    const unsigned char *train = c->data.mask[FGL_SPLIT_TRAIN];
    fgl_node *L = st->fwd->logits;
    int *y, n, v, any = 0;
    unsigned char *m;
    if (!(lam > 0) || !cs->has[0]) return NULL;
    if (!L || st->g != &c->data.full || L->rows != c->data.node->n_nodes) {
        fgl_client_fail(c, FGL_ERR_ARG, "fedgl: a step outside the client's whole graph (node tasks train on it)");
        return NULL;
    }
    n = L->rows;
    y = (int *)fgl_tape_alloc(st->t, sizeof(int) * (size_t)FGL__MAX(n, 1));
    m = (unsigned char *)fgl_tape_alloc(st->t, (size_t)FGL__MAX(n, 1));
    if (!y || !m) {
        fgl_client_fail(c, FGL_ERR_NOMEM, "fedgl: out of memory");
        return NULL;
    }
    for (v = 0; v < n; v++) {
        y[v] = (int)pl[v];
        m[v] = y[v] >= 0 && !(train && train[v]);
        any |= m[v];
    }
    return any ? fgl_op_scale(st->t, fgl_op_cross_entropy(st->t, L, y, m), lam) : NULL;
}

static int fgl__gl_upload(fgl_client *c) {
    const fgl__fedgl_params *p = FGL_PARAMS(fgl__fedgl_params, c->set);
    const fgl_node_data *d = c->data.node;
    int rep = p->embed == FGL__GL_EMB_REP, r;
    size_t n = (size_t)d->n_nodes, C = fgl_client_dim(c, FGL_DIM_CLASSES), R = fgl_client_dim(c, FGL_DIM_REP);
    fgl_forward fw;
    float *lo, *re = NULL, *gid = NULL;
    if (c->round % p->update != 0 || (!(p->lambda > 0) && !(p->pgraph > 0))) {
        fgl_up_drop(c, "logits");
        fgl_up_drop(c, "rep");
        fgl_up_drop(c, "gid");
        return FGL_OK;
    }
    if (!rep) fgl_up_drop(c, "rep");
    if (!d->gid) fgl_up_drop(c, "gid");
    if (!(lo = fgl_up(c, "logits")) || (rep && !(re = fgl_up(c, "rep"))) || (d->gid && !(gid = fgl_up(c, "gid"))))
        return FGL_ERR_NOMEM;
    if (!fgl__gl_forward(c, &fw)) return c->err.code;
    if ((size_t)fw.logits->rows != n || (size_t)fw.logits->cols != C || (rep && (size_t)fw.rep->cols != R))
        return fgl_client_fail(c, FGL_ERR_SHAPE, "fedgl: %d x %d predictions for %d nodes and %d classes",
                               fw.logits->rows, fw.logits->cols, (int)n, (int)C);
    memcpy(lo, fw.logits->val, sizeof(float) * n * C);
    if (rep) memcpy(re, fw.rep->val, sizeof(float) * n * R);
    for (r = 0; gid && r < (int)n; r++) {
        if (d->gid[r] < 0 || d->gid[r] >= (1 << 24))
            return fgl_client_fail(c, FGL_ERR_ARG, "fedgl: client %d's row %d has node id %d (0 .. 2^24 - 1)", c->id,
                                   r, d->gid[r]);
        gid[r] = (float)(r < d->n_own ? d->gid[r] : -d->gid[r] - 1);
    }
    return FGL_OK;
}

/* Evaluation on the graph the client trains on (its own scores only once it
 * has a pseudo-graph; before, the runtime evaluates the model). */
static const float *fgl__gl_scores(fgl_client *c) {
    const fgl__fedgl_client *st = FGL_STATE(fgl__fedgl_client, &c->store);
    float *out;
    fgl_forward fw;
    size_t len;
    if (!(FGL_PARAMS(fgl__fedgl_params, c->set)->pgraph > 0) || !st->has[1]) return NULL;
    if (!fgl__gl_forward(c, &fw)) return NULL;
    len = (size_t)fw.logits->rows * (size_t)fw.logits->cols;
    if (!(out = st->scores) ||
        len != (size_t)c->data.node->n_nodes * (size_t)c->model.spec.out_dim)
        return NULL;
    memcpy(out, fw.logits->val, sizeof(float) * len);
    return out;
}

/* --- the server ------------------------------------------------------------------- */

/* Server state: "global" (FedAvg), and per row of every client (rows in
 * client order: "pl" T, "pgi" / "pgv" T x k, "pgs" T) what the last update
 * computed; "fresh" K: 1 for the clients it computed them for this round;
 * "stats": rows with a pseudo-label, rows, in-client pseudo-graph entries,
 * updates. */
typedef struct fgl__fedgl_server {
    fgl__avg_server avg;
    float *pl, *pgi, *pgv, *pgs;
    int *fresh, *stats;
} fgl__fedgl_server;

static int fgl__gl_server_init(fgl_server *s) {
    size_t T = 0, k = (size_t)FGL_PARAMS(fgl__fedgl_params, s->set)->k;
    int i, rc = fgl__avg_server_init(s);
    fgl__fedgl_server *st;
    if (rc) return rc;
    if (!(st = FGL_NEW_STATE(fgl__fedgl_server, &s->store))) return FGL_ERR_NOMEM; /* avg: filled */
    for (i = 0; i < s->n_clients; i++) T += (size_t)s->n_nodes[i];
    st->pl = fgl_new_floats(&s->store, "pl", T);
    st->pgi = fgl_new_floats(&s->store, "pgi", T * k);
    st->pgv = fgl_new_floats(&s->store, "pgv", T * k);
    st->pgs = fgl_new_floats(&s->store, "pgs", T);
    st->fresh = fgl_new_ints(&s->store, "fresh", (size_t)s->n_clients);
    st->stats = fgl_new_ints(&s->store, "stats", 4);
    return s->store.err.code;
}

/* An own row of a client: its node key (an id, or 2^24 + its place among
 * all clients' rows), client and row. */
typedef struct fgl__gl_row {
    long key;
    int client, row;
} fgl__gl_row;

static int fgl__gl_row_cmp(const void *a, const void *b) {
    const fgl__gl_row *x = (const fgl__gl_row *)a, *y = (const fgl__gl_row *)b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->client != y->client) return x->client < y->client ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* The node of a key among the N sorted distinct keys, or -1. */
static int fgl__gl_find(const long *keys, int N, long key) {
    int lo = 0, hi = N - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (keys[mid] == key) return mid;
        if (keys[mid] < key) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

static int fgl__gl_update(fgl_server *s) {
    const fgl__fedgl_params *p = FGL_PARAMS(fgl__fedgl_params, s->set);
    const fgl__fedgl_server *ss = FGL_STATE(fgl__fedgl_server, &s->store);
    int K = s->n_clients, C = (int)fgl_server_dim(s, FGL_DIM_CLASSES), k = p->k;
    int rep = p->embed == FGL__GL_EMB_REP, equal = p->fuse == 1;
    int D = rep ? (int)fgl_server_dim(s, FGL_DIM_REP) : C, i, r, q, M = 0, N = 0, rc = FGL_OK;
    int do_graph = p->pgraph > 0, *fresh = ss->fresh, *st = ss->stats;
    size_t T = 0, *off = (size_t *)FGL_MALLOC(sizeof(size_t) * (size_t)(K + 1)), e;
    fgl__gl_row *rows = NULL;
    long *keys = NULL;
    int *node = NULL, *label = NULL, *nbr = NULL, *at = NULL;
    float *lo = NULL, *em = NULL, *fused = NULL, *val = NULL, *self = NULL;
    float *pl = ss->pl, *pgi = ss->pgi, *pgv = ss->pgv, *pgs = ss->pgs;
    if (!off) return FGL_ERR_NOMEM;
    for (i = 0, off[0] = 0; i < K; i++) off[i + 1] = off[i] + (size_t)s->n_nodes[i];
    T = off[K];
    for (i = 0; i < K; i++) fresh[i] = 0;
    rows = (fgl__gl_row *)FGL_MALLOC(sizeof(fgl__gl_row) * FGL__MAX(T, 1));
    keys = (long *)FGL_MALLOC(sizeof(long) * FGL__MAX(T, 1));
    node = (int *)FGL_MALLOC(sizeof(int) * FGL__MAX(T, 1));
    if (!rows || !keys || !node) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    /* the uploading clients' own rows, sorted by key: the nodes */
    for (i = 0; i < K; i++) {
        const float *g = fgl_upload(s, i, "gid"), *L = fgl_upload(s, i, "logits");
        if (!s->up[i] || !L) continue;
        if (rep && !fgl_upload(s, i, "rep")) {
            rc = fgl_server_fail(s, FGL_ERR_ARG, "fedgl: client %d's upload lacks its embeddings (embed=rep)", i);
            goto done;
        }
        fresh[i] = 1;
        for (r = 0; r < s->n_nodes[i]; r++) {
            if (g && !(g[r] >= -(float)(1 << 24) && g[r] < (float)(1 << 24) && g[r] == (float)(long)g[r])) {
                rc = fgl_server_fail(s, FGL_ERR_ARG, "fedgl: client %d's row %d has node id %g", i, r, (double)g[r]);
                goto done;
            }
            if (g && g[r] < 0) continue; /* a halo row: fused from its owner's row */
            rows[M].key = g ? (long)g[r] : (long)(1 << 24) + (long)(off[i] + (size_t)r);
            rows[M].client = i;
            rows[M++].row = r;
        }
    }
    if (!M) goto done; /* nobody uploaded predictions: the clients keep what they have */
    qsort(rows, (size_t)M, sizeof *rows, fgl__gl_row_cmp);
    for (e = 0; e < (size_t)M; e++) {
        if (!N || keys[N - 1] != rows[e].key) keys[N++] = rows[e].key;
        node[e] = N - 1;
    }
    { /* the weights of fgl__gl_fuse follow the sorted rows */
        double *ws = (double *)FGL_MALLOC(sizeof(double) * (size_t)M);
        lo = (float *)FGL_MALLOC(sizeof(float) * (size_t)M * (size_t)C);
        em = (float *)FGL_MALLOC(sizeof(float) * (size_t)M * (size_t)D);
        label = (int *)FGL_MALLOC(sizeof(int) * (size_t)N);
        fused = (float *)FGL_MALLOC(sizeof(float) * (size_t)N * (size_t)D);
        if (!ws || !lo || !em || !label || !fused) {
            FGL_FREE(ws);
            rc = FGL_ERR_NOMEM;
            goto done;
        }
        for (e = 0; e < (size_t)M; e++) {
            int ci = rows[e].client, rr = rows[e].row;
            const float *L = fgl_upload(s, ci, "logits"), *E = rep ? fgl_upload(s, ci, "rep") : L;
            const float *n = fgl_upload(s, ci, "n");
            ws[e] = equal ? 1.0 : (n && n[0] > 0 ? (double)n[0] : 0.0);
            memcpy(lo + e * (size_t)C, L + (size_t)rr * C, sizeof(float) * (size_t)C);
            memcpy(em + e * (size_t)D, E + (size_t)rr * D, sizeof(float) * (size_t)D);
        }
        fgl__gl_fuse(N, C, D, M, node, ws, lo, em, p->tau, label, fused);
        FGL_FREE(ws);
    }
    if (do_graph) {
        nbr = (int *)FGL_MALLOC(sizeof(int) * (size_t)N * (size_t)k);
        val = (float *)FGL_MALLOC(sizeof(float) * (size_t)N * (size_t)k);
        self = (float *)FGL_MALLOC(sizeof(float) * (size_t)N);
        if (!nbr || !val || !self || fgl__gl_graph(N, D, fused, k, nbr, val, self)) {
            rc = FGL_ERR_NOMEM;
            goto done;
        }
    }
    if (!(at = (int *)FGL_MALLOC(sizeof(int) * (size_t)N))) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    st[0] = st[2] = 0;
    st[1] = 0;
    st[3]++;
    for (i = 0; i < K; i++) { /* each fresh client's rows: their node's label, and its graph entries among them */
        const float *g = fgl_upload(s, i, "gid");
        int n_i = s->n_nodes[i], v;
        if (!fresh[i]) continue;
        for (v = 0; v < N; v++) at[v] = -1;
        for (r = 0; r < n_i; r++) { /* the node of each row (-1: a halo row whose owner sent nothing) */
            long key = g ? (g[r] >= 0 ? (long)g[r] : (long)(-g[r] - 1)) : (long)(1 << 24) + (long)(off[i] + (size_t)r);
            node[r] = fgl__gl_find(keys, N, key);
            if (node[r] >= 0 && at[node[r]] < 0) at[node[r]] = r;
        }
        for (r = 0; r < n_i; r++) {
            size_t o = off[i] + (size_t)r;
            v = node[r];
            pl[o] = v >= 0 ? (float)label[v] : -1.0f;
            st[0] += pl[o] >= 0;
            st[1]++;
            if (!do_graph) continue;
            pgs[o] = v >= 0 ? self[v] : 0.0f;
            for (q = 0; q < k; q++) {
                int u = v >= 0 ? nbr[(size_t)v * k + q] : -1, ur = u >= 0 ? at[u] : -1;
                pgi[o * k + q] = (float)ur;
                pgv[o * k + q] = ur >= 0 ? val[(size_t)v * k + q] : 0.0f;
                st[2] += ur >= 0;
            }
        }
    }
done:
    FGL_FREE(off);
    FGL_FREE(rows);
    FGL_FREE(keys);
    FGL_FREE(node);
    FGL_FREE(lo);
    FGL_FREE(em);
    FGL_FREE(label);
    FGL_FREE(fused);
    FGL_FREE(nbr);
    FGL_FREE(val);
    FGL_FREE(self);
    FGL_FREE(at);
    return rc;
}

static int fgl__gl_aggregate(fgl_server *s) {
    int rc = fgl__avg_aggregate(s), i, *fresh = FGL_STATE(fgl__fedgl_server, &s->store)->fresh;
    if (rc) return rc;
    for (i = 0; i < s->n_clients; i++) fresh[i] = 0;
    if (s->round % FGL_PARAMS(fgl__fedgl_params, s->set)->update != 0) return FGL_OK;
    return fgl__gl_update(s);
}

static int fgl__gl_download(fgl_server *s, int client, fgl_msg *down) {
    const fgl__fedgl_params *pa = FGL_PARAMS(fgl__fedgl_params, s->set);
    const fgl__fedgl_server *st = FGL_STATE(fgl__fedgl_server, &s->store);
    size_t off = 0, n = (size_t)s->n_nodes[client], k = (size_t)pa->k;
    float *p;
    int i;
    (void)down;
    if (!st->fresh[client]) return FGL_OK;
    for (i = 0; i < client; i++) off += (size_t)s->n_nodes[i];
    if (pa->lambda > 0) {
        if (!(p = fgl_download_part(s, client, "plabel"))) return FGL_ERR_NOMEM;
        memcpy(p, st->pl + off, sizeof(float) * n);
    }
    if (pa->pgraph > 0) {
        if (!(p = fgl_download_part(s, client, "pg_idx"))) return FGL_ERR_NOMEM;
        memcpy(p, st->pgi + off * k, sizeof(float) * n * k);
        if (!(p = fgl_download_part(s, client, "pg_val"))) return FGL_ERR_NOMEM;
        memcpy(p, st->pgv + off * k, sizeof(float) * n * k);
        if (!(p = fgl_download_part(s, client, "pg_self"))) return FGL_ERR_NOMEM;
        memcpy(p, st->pgs + off, sizeof(float) * n);
    }
    return FGL_OK;
}

static void fgl__gl_report(const fgl_observed *o, char *buf, size_t cap) {
    const int *st = fgl_observed_ints(o, "stats");
    if (!st || !st[3]) return;
    snprintf(buf, cap, "\"pseudo_labelled\": %.4f, \"pseudo_edges_per_row\": %.4f, \"updates\": %d",
             st[1] ? (double)st[0] / st[1] : 0.0, st[1] ? (double)st[2] / st[1] : 0.0, st[3]);
}

static fgl_algo fgl__fedgl(void) {
    fgl_algo a = fgl__avg_base("fedgl", "Chen et al. 2024: FedAvg with global self-supervision: pseudo-labels and "
                               "a pseudo-graph fused on the server from the clients' per-node predictions and "
                               "embeddings", FGL_G_ALL, "parameter groups averaged");
    int k;
    FGL_ALGO_PARAM(&a, fgl__fedgl_params, lambda, FGL_PARAM_FLOAT, 0.1,
                   "weight of the pseudo-label loss (OpenFGL's ssl_loss_weight)");
    FGL_ALGO_PARAM(&a, fgl__fedgl_params, tau, FGL_PARAM_FLOAT, 0.5,
                   "a client's class probability counts in the fusion from this on (probability_threshold)");
    FGL_ALGO_PARAM(&a, fgl__fedgl_params, pgraph, FGL_PARAM_FLOAT, 1.0,
                   "weight of the pseudo-graph added to the GCN matrix (0: off, OpenFGL's default)");
    FGL_ALGO_PARAM(&a, fgl__fedgl_params, k, FGL_PARAM_INT, 100,
                   "neighbours of a node in the pseudo-graph (OpenFGL's k)");
    FGL_ALGO_PARAM(&a, fgl__fedgl_params, update, FGL_PARAM_INT, 1,
                   "rounds between updates (pseudo_labels_update_epoch)");
    FGL_ALGO_PARAM(&a, fgl__fedgl_params, embed, FGL_PARAM_INT, FGL__GL_EMB_LOGITS,
                   "the embedding sent: the logits (OpenFGL) or rep, what the classifier reads");
    fgl_algo_param_choices(&a, "embed", "logits|rep");
    FGL_ALGO_PARAM(&a, fgl__fedgl_params, fuse, FGL_PARAM_INT, FGL__GL_FUSE_SAMPLES,
                   "clients weighted in the fusion by training samples (sampling_rate) or alike (mean)");
    fgl_algo_param_choices(&a, "fuse", "samples|equal");
    k = fgl_algo_param_dim(&a, "k");
    fgl_algo_upload(&a, "logits", FGL_SEND_DATA, FGL_DIM_NODES, FGL_DIM_CLASSES, FGL_PART_OPTIONAL | FGL_PART_RAW);
    fgl_algo_upload(&a, "rep", FGL_SEND_DATA, FGL_DIM_NODES, FGL_DIM_REP, FGL_PART_OPTIONAL | FGL_PART_RAW);
    fgl_algo_upload(&a, "gid", FGL_SEND_DATA, FGL_DIM_NODES, 1, FGL_PART_OPTIONAL | FGL_PART_RAW);
    fgl_algo_download(&a, "plabel", FGL_SEND_DATA, FGL_DIM_NODES, 1, FGL_PART_OPTIONAL, NULL);
    fgl_algo_download(&a, "pg_idx", FGL_SEND_DATA, FGL_DIM_NODES, k, FGL_PART_OPTIONAL, NULL);
    fgl_algo_download(&a, "pg_val", FGL_SEND_DATA, FGL_DIM_NODES, k, FGL_PART_OPTIONAL, NULL);
    fgl_algo_download(&a, "pg_self", FGL_SEND_DATA, FGL_DIM_NODES, 1, FGL_PART_OPTIONAL, NULL);
    a.prepare_spec = fgl__gl_spec;
    a.client_init = fgl__gl_client_init;
    a.receive = fgl__gl_receive;
    a.local_train = fgl__gl_train;
    a.train.loss = fgl__gl_loss;
    a.upload = fgl__gl_upload;
    a.eval_scores = fgl__gl_scores;
    a.server_init = fgl__gl_server_init;
    a.aggregate = fgl__gl_aggregate;
    a.download = fgl__gl_download;
    a.report = fgl__gl_report;
    return a;
}
#include "../../alone.h"
