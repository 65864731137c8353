#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- pFedGraph (Ye et al. 2023) ----------------------------------------------------- */
/* Clients upload theta_i and n_i (4 (n + 1) bytes). For each accepted client
 * i the server solves, over the accepted clients S,
 *     min_{a in simplex} alpha ||a - p||^2 + sum_j a_j d_ij,
 *     p_j = n_j / sum_S n,   d_ij = -cos(dtheta_i, dtheta_j) (set to -1 below -0.9),
 * dtheta = theta - theta_init (the common initial model): the authors' code
 * (cvxpy on alpha x'x + (d - 2 alpha p)'x). Completing the square, the
 * solution is exactly the Euclidean projection of p - d_i/(2 alpha) onto the
 * simplex (computed by sorting). Then theta_i <- sum_j a_ij theta_j, and
 * the client also receives u_i = sum_j a_ij theta_j / ||theta_j||: down
 * 4 n bytes before the first aggregation, 4 (2 n) after. Local loss:
 *     CE + lam <u_i, theta> / ||theta||,  lam = 0.01,
 * from the first aggregation on, exactly the authors' code
 * (pfedgraph_cosine); with a positive lam it lowers the similarity to the
 * aggregated direction. A negative lam pulls towards it instead, the sign
 * that matches the graph's dissimilarity -cos; the paper's text was not at
 * hand to settle which it intends. alpha = 0.8. The row of A of a client
 * whose upload is missing stays; A rows put 0 on clients left out (the code
 * leaves their stale weights, which then do not sum to 1). A is the
 * client_matrix. */

/* The parameters. pFedGNN (pfedgnn.h) trains with fgl__pfg_grad, which
 * reads lam: its struct must begin with this one. */
typedef struct fgl__pfedgraph_params {
    unsigned share; /* the groups shared */
    double alpha;   /* graph inference: the weight of ||a_i - p||^2 */
    double lam;     /* the local term's weight */
} fgl__pfedgraph_params;

/* The server's state: every client's model theta_i and direction u_i, the
 * graph A, and whose u_i exists yet. */
typedef struct fgl__pfedgraph_server {
    float *theta, *u, *A;
    int *has_u;
} fgl__pfedgraph_server;

static int fgl__pfg_server_init(fgl_server *s) {
    fgl__pfedgraph_server *st = FGL_NEW_STATE(fgl__pfedgraph_server, &s->store);
    size_t K = (size_t)s->n_clients;
    double alpha = FGL_PARAMS(fgl__pfedgraph_params, s->set)->alpha;
    if (!st) return FGL_ERR_NOMEM;
    st->theta = fgl_server_per_client(s, "theta"); /* the common initial model, for every client */
    st->u = fgl_new_floats(&s->store, "u", K * s->n_shared);
    st->A = fgl_new_floats(&s->store, "A", K * K);
    st->has_u = fgl_new_ints(&s->store, "has_u", K);
    if (!(alpha > 0)) return fgl_server_fail(s, FGL_ERR_ARG, "pfedgraph: alpha %g must be > 0", alpha);
    return s->store.err.code;
}

static int fgl__pfg_aggregate(fgl_server *s) {
    int K = s->n_clients, ns = 0, i, a, b, rc;
    size_t q, n = s->n_shared;
    const fgl__pfedgraph_server *st = FGL_STATE(fgl__pfedgraph_server, &s->store);
    float alpha = (float)FGL_PARAMS(fgl__pfedgraph_params, s->set)->alpha;
    float *theta = st->theta, *u = st->u, *A = st->A;
    int *has_u = st->has_u;
    double total = 0;
    int *S = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K);
    double *cosm = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * (size_t)K);
    double *v = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K),
           *x = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K);
    double *work = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K),
           *norm = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K);
    double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * (size_t)K);
    double *div = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K);
    float *init = (float *)fgl_scratch(&s->store, sizeof(float) * FGL__MAX(n, 1));
    float *ups = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * FGL__MAX(n, 1));
    float *dw = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * FGL__MAX(n, 1));
    unsigned char *rows = (unsigned char *)fgl_scratch(&s->store, (size_t)K);
    if (!S || !cosm || !v || !x || !work || !norm || !w || !div || !init || !ups || !dw || !rows) return FGL_ERR_NOMEM;
    fgl_server_pack(s, s->init, init);
    fgl_server_gather(s, "theta", ups, NULL);
    for (i = 0; i < K; i++)
        if (s->up[i]) {
            S[ns++] = i;
            total += fgl_upload(s, i, "n")[0];
        }
    if (ns == 0) return FGL_OK; /* nothing accepted: everyone keeps their model */
    for (a = 0; a < ns; a++) {
        const float *th = ups + (size_t)S[a] * n;
        for (q = 0; q < n; q++) dw[(size_t)a * n + q] = th[q] - init[q];
        norm[a] = fgl_norm2(n, th);
    }
    for (a = 0; a < ns; a++)
        for (b = a; b < ns; b++) {
            double c = a == b ? 1.0 : fgl_cosine(n, dw + (size_t)a * n, dw + (size_t)b * n);
            if (-c < -0.9) c = 1.0; /* the code's clamp of the dissimilarity */
            cosm[(size_t)a * ns + b] = cosm[(size_t)b * ns + a] = c;
        }
    for (a = 0; a < ns; a++) {
        i = S[a];
        for (b = 0; b < ns; b++) /* p_j - d_ij / (2 alpha), d = -cos */
            v[b] =
                (total > 0 ? fgl_upload(s, S[b], "n")[0] / total : 1.0 / ns) + cosm[(size_t)a * ns + b] / (2.0 * alpha);
        fgl__simplex_project(v, ns, x, work);
        memset(A + (size_t)i * K, 0, sizeof(float) * (size_t)K);
        for (b = 0; b < ns; b++) {
            A[(size_t)i * K + S[b]] = (float)x[b];
            w[(size_t)i * K + S[b]] = x[b];
        }
        rows[i] = 1;
        has_u[i] = 1;
    }
    for (a = 0; a < ns; a++) div[S[a]] = norm[a];
    /* the run's robust rule, row by row: u_i from the uploads over their norms, then theta_i from the uploads.
     * u first: the downloads' references (NORMCLIP's clip, KRUM's updates) are rows of theta, which the
     * second call overwrites; the clips are counted once, by the second. */
    if ((rc = fgl_server_mix_div(s, "theta", NULL, w, div, u, rows, 0))) return rc;
    return fgl_server_mix(s, "theta", NULL, w, theta, rows);
}

static int fgl__pfg_download(fgl_server *s, int client, fgl_msg *down) {
    const fgl__pfedgraph_server *st = FGL_STATE(fgl__pfedgraph_server, &s->store);
    float *u;
    (void)down;
    if (!st->has_u[client]) return FGL_OK; /* nothing aggregated yet */
    if (!(u = fgl_download_part(s, client, "u"))) return FGL_ERR_NOMEM;
    memcpy(u, st->u + (size_t)client * s->n_shared, sizeof(float) * s->n_shared);
    return FGL_OK;
}

/* d/dtheta lam <u, theta>/||theta|| = lam (u/||theta|| - <u, theta> theta/||theta||^3),
 * over the trainable shared floats (pFedGNN trains with this hook too: its
 * struct begins with pFedGraph's). */
static int fgl__pfg_grad(fgl_client *c, const fgl_step *st) {
    float lam = (float)FGL_PARAMS(fgl__pfedgraph_params, c->set)->lam;
    const float *u = fgl_down(c, "u");
    fgl_params *ps = &st->model->params;
    double dot = 0, nn = 0, nrm, a, b;
    size_t j;
    int k;
    if (!u || lam == 0) return FGL_OK;
    for (k = 0; k < c->n_span; k++) {
        const fgl_span *sp = &c->span[k];
        const float *w = ps->data + sp->offset;
        if (!sp->trainable) continue;
        for (j = 0; j < sp->len; j++) {
            dot += (double)u[sp->packed + j] * w[j];
            nn += (double)w[j] * w[j];
        }
    }
    if (nn <= 0) return FGL_OK;
    nrm = sqrt(nn);
    a = lam / nrm;
    b = lam * dot / (nrm * nn);
    for (k = 0; k < c->n_span; k++) {
        const fgl_span *sp = &c->span[k];
        const float *w = ps->data + sp->offset;
        float *g = ps->grad + sp->offset;
        if (!sp->trainable) continue;
        for (j = 0; j < sp->len; j++) g[j] += (float)(a * u[sp->packed + j] - b * w[j]);
    }
    return FGL_OK;
}

static int fgl__pfg_matrix(const fgl_observed *o, float *out) { return fgl_observed_matrix(o, "A", out); }

static fgl_algo fgl__pfedgraph(void) {
    fgl_algo a =
        fgl_algo_new("pfedgraph", "Ye et al. 2023: per-client aggregation over an inferred collaboration graph "
                                  "(simplex QP on size vs similarity)");
    FGL_ALGO_PARAM(&a, fgl__pfedgraph_params, share, FGL_PARAM_GROUPS, (double)FGL_G_ALL, "parameter groups shared");
    FGL_ALGO_PARAM(&a, fgl__pfedgraph_params, alpha, FGL_PARAM_FLOAT, 0.8,
                   "graph inference: weight of ||a_i - p||^2 against the model similarity");
    FGL_ALGO_PARAM(&a, fgl__pfedgraph_params, lam, FGL_PARAM_FLOAT, 0.01,
                   "local term lam <u_i, theta>/||theta|| (authors' code; negative: pull towards the aggregate)");
    fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, 0, 0, 0);
    fgl_algo_upload(&a, "n", FGL_SEND_WEIGHT, 0, 0, 0);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, FGL_PART_ROW, "theta");
    fgl_algo_download(&a, "u", FGL_SEND_DATA, FGL_DIM_SHARED, 1, FGL_PART_OPTIONAL, NULL);
    a.server_init = fgl__pfg_server_init;
    a.aggregate = fgl__pfg_aggregate;
    a.download = fgl__pfg_download;
    a.train.grad = fgl__pfg_grad;
    a.client_matrix = fgl__pfg_matrix;
    a.mixes = 1;
    return a;
}

#include "../../alone.h"
