#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:private */
#include "../../alone.h"
enum { FGL__GCFL, FGL__GCFL_PLUS }; /* fgl_algo.variant */
/* fgl:implementation */
#include "../../alone.h"
/* --- GCFL and GCFL+ (Xie et al., NeurIPS 2021) ------------------------------------- */
/* Clustered FL for non-IID graphs. Sends: up Delta theta_i on the shared
 * groups (n floats) + the client's training-graph count (1 float) [+ GCFL+
 * with seq_grad=1: the norm of the last local step's gradient on the shared
 * groups, 1 float]; down the client's shared parameters (n floats).
 * Computes: the server keeps a cluster id per client (start: one cluster) and
 * each client's shared parameters theta_i; inside a cluster
 * theta_i += sum_j n_j Delta theta_j / sum_j n_j over the cluster's accepted
 * members. Before aggregating, a cluster of more than 2 clients is split in
 * two when ||mean_j Delta theta_j|| < eps1 (the plain mean, as the authors'
 * code) and max_j ||Delta theta_j|| > eps2, after `warmup` rounds (the
 * authors' c_round > 20). GCFL cuts the complete graph on the cluster's
 * members weighted cos(Delta theta_i, Delta theta_j) + 1 by a minimum cut
 * (Stoer-Wagner). GCFL+ also keeps, per client, the sequence of its update
 * norms ||Delta theta_i|| (docs/algorithms.md; authors' run_gcflplus_dWs) or,
 * with seq_grad=1, of the gradient norms of its last local step (the authors'
 * run_gcflplus); it splits only when every client's sequence holds seq_length
 * values, and then cuts by the DTW distances D_ij of the clients' last
 * seq_length values, with weights max(D) - D_ij (max over the cluster's
 * symmetric, zero-diagonal matrix, as dtaidistance's distance_matrix gives
 * it), each sequence divided by its standard deviation first if
 * standardize=1. After a GCFL+ split every client's sequence starts again
 * (so at most one GCFL+ split per round), as in the authors' code.
 * Choices: share defaults to conv (GCFL's code shares the GIN convolution
 * layers; input projection and head stay local), one default for both tasks:
 * for node-task models pass share=all. A cluster with a member whose upload
 * is missing this round (not sampled, rejected) is not split that round (the
 * authors always use every client). The side of a cut holding the cluster's
 * lowest client keeps the cluster id; the other side gets a new one.
 * Evaluation uses each client's own model, never a best over cached cluster
 * models (the authors' code reports that, which is optimistic). Reference:
 * Xie, Ma, Xu and Yang, "Federated Graph Classification over Non-IID
 * Graphs", NeurIPS 2021. */

/* The parameters: GCFL's, and GCFL+'s, which begin with them. */
typedef struct fgl__gcfl_params {
    unsigned share; /* the groups clustered and averaged */
    double eps1;    /* split when ||mean update|| < eps1 */
    double eps2;    /* ... and max ||update|| > eps2 */
    int warmup;     /* no split in the first rounds */
} fgl__gcfl_params;

typedef struct fgl__gcflplus_params {
    fgl__gcfl_params gcfl;
    int seq_length;  /* values per norm sequence */
    int standardize; /* 1: sequences divided by their standard deviation */
    int seq_grad;    /* 0: update norms; 1: the last step's gradient norms */
} fgl__gcflplus_params;

/* The server's state: every client's shared parameters, its cluster, the
 * cluster ids used and splits made (meta), GCFL+'s norm sequences and their
 * lengths. */
typedef struct fgl__gcfl_server {
    float *theta;
    int *cluster, *meta;
    float *seq;
    int *seq_len;
} fgl__gcfl_server;

static int fgl__gcfl_plus(const fgl_server *s) { return s->algo->variant == FGL__GCFL_PLUS; }

/* The sequences' length: GCFL+'s seq_length, 1 for GCFL. */
static int fgl__gcfl_L(const fgl_server *s) {
    return fgl__gcfl_plus(s) ? FGL_PARAMS(fgl__gcflplus_params, s->set)->seq_length : 1;
}

static int fgl__gcfl_server_init(fgl_server *s) {
    size_t K = (size_t)s->n_clients;
    int L = fgl__gcfl_L(s);
    fgl__gcfl_server *st;
    if (L < 1)
        return fgl_server_fail(s, FGL_ERR_ARG, "%s: seq_length must be at least 1 (the paper uses 5..10)",
                               s->algo->name);
    if (!(st = FGL_NEW_STATE(fgl__gcfl_server, &s->store))) return FGL_ERR_NOMEM;
    /* the server's initial model for everyone: the common initialisation
     * (the authors' clients all download one model) */
    st->theta = fgl_server_per_client(s, "theta");
    st->cluster = fgl_new_ints(&s->store, "cluster", K);       /* everyone starts in cluster 0 */
    st->meta = fgl_new_ints(&s->store, "meta", 2);             /* cluster ids used so far (never reused), splits */
    st->seq = fgl_new_floats(&s->store, "seq", K * (size_t)L); /* GCFL+: each client's last values, oldest first */
    st->seq_len = fgl_new_ints(&s->store, "seq_len", K);
    if (s->store.err.code) return s->store.err.code;
    st->meta[0] = 1;
    return FGL_OK;
}

/* GCFL+ with seq_grad: the norm of the last local step's gradient on the
 * shared groups; otherwise that part is left out. */
static int fgl__gcfl_upload(fgl_client *c) {
    const fgl_params *ps = &c->model.params;
    double sq = 0;
    int i;
    if (c->algo->variant != FGL__GCFL_PLUS) return FGL_OK;
    if (FGL_PARAMS(fgl__gcflplus_params, c->set)->seq_grad == 0) {
        fgl_up_drop(c, "gnorm");
        return FGL_OK;
    }
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *sl = &ps->slices[i];
        if (fgl_slice_selected(sl, c->share, c->keep))
            sq += fgl_dot(fgl_slice_size(sl), ps->grad + sl->offset, ps->grad + sl->offset);
    }
    fgl_up(c, "gnorm")[0] = (float)sqrt(sq);
    return FGL_OK;
}

/* Split cluster members mem[0..m-1] (all with accepted uploads) in two by a
 * minimum cut; the side without mem[0] moves to a new cluster id. */
static int fgl__gcfl_split(fgl_server *s, const int *mem, int m) {
    const fgl__gcfl_server *st = FGL_STATE(fgl__gcfl_server, &s->store);
    int plus = fgl__gcfl_plus(s), L = fgl__gcfl_L(s), a, b;
    int standardize = plus && FGL_PARAMS(fgl__gcflplus_params, s->set)->standardize != 0;
    const float *seq = st->seq;
    int *cluster = st->cluster, *meta = st->meta;
    double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)m * (size_t)m);
    double *seqs = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)m * (size_t)L);
    unsigned char *side = (unsigned char *)fgl_scratch(&s->store, (size_t)m);
    if (!w || !seqs || !side) return FGL_ERR_NOMEM;
    if (!plus) { /* cosine similarity of the updates, + 1 (non-negative) */
        for (a = 0; a < m; a++)
            for (b = 0; b < m; b++)
                w[(size_t)a * m + b] =
                    fgl_cosine(s->n_shared, fgl_upload(s, mem[a], "delta"), fgl_upload(s, mem[b], "delta")) + 1.0;
    } else { /* max(D) - D with D the DTW distances of the norm sequences */
        double dmax = 0;
        for (a = 0; a < m; a++) {
            double *q = seqs + (size_t)a * L, mean = 0, var = 0;
            int t;
            for (t = 0; t < L; t++) q[t] = seq[(size_t)mem[a] * L + t];
            if (standardize) { /* numpy's std (ddof 0); a constant sequence is left as it is */
                for (t = 0; t < L; t++) mean += q[t];
                mean /= L;
                for (t = 0; t < L; t++) var += (q[t] - mean) * (q[t] - mean);
                var = sqrt(var / L);
                if (var > 0)
                    for (t = 0; t < L; t++) q[t] /= var;
            }
        }
        for (a = 0; a < m; a++)
            for (b = 0; b < m; b++) {
                double d = a == b ? 0.0 : fgl__dtw(seqs + (size_t)a * L, L, seqs + (size_t)b * L, L);
                if (d < 0) return FGL_ERR_NOMEM;
                w[(size_t)a * m + b] = d;
                if (d > dmax) dmax = d;
            }
        for (a = 0; a < m * m; a++) w[a] = dmax - w[a];
    }
    if (fgl__stoer_wagner(w, m, side) < 0) return FGL_ERR_NOMEM;
    for (a = 0; a < m; a++)
        if (side[a]) cluster[mem[a]] = meta[0];
    meta[0]++;
    meta[1]++;
    return FGL_OK;
}

static int fgl__gcfl_aggregate(fgl_server *s) {
    const fgl__gcfl_params *p = FGL_PARAMS(fgl__gcfl_params, s->set);
    const fgl__gcfl_server *st = FGL_STATE(fgl__gcfl_server, &s->store);
    int plus = fgl__gcfl_plus(s), L = fgl__gcfl_L(s);
    int seq_grad = plus && FGL_PARAMS(fgl__gcflplus_params, s->set)->seq_grad != 0, warmup = p->warmup;
    float eps1 = (float)p->eps1, eps2 = (float)p->eps2;
    float *theta = st->theta, *seq = st->seq;
    int *cluster = st->cluster, *meta = st->meta, *seq_len = st->seq_len;
    int K = s->n_clients, i, id, n_ids = meta[0], rc;
    size_t j, n = s->n_shared;
    int *mem = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K);
    double *acc = (double *)fgl_scratch(&s->store, sizeof(double) * FGL__MAX(n, 1));
    if (!mem || !acc) return FGL_ERR_NOMEM;
    if (plus) /* extend the sequences of the clients heard from this round */
        for (i = 0; i < K; i++) {
            float v;
            if (!s->up[i]) continue;
            v = seq_grad ? fgl_upload(s, i, "gnorm")[0] : (float)fgl_norm2(n, fgl_upload(s, i, "delta"));
            if (seq_len[i] < L) {
                seq[(size_t)i * L + seq_len[i]++] = v;
            } else {
                memmove(seq + (size_t)i * L, seq + (size_t)i * L + 1, sizeof(float) * (size_t)(L - 1));
                seq[(size_t)i * L + L - 1] = v;
            }
        }
    /* Splits, over the clusters as they were at the start of the round. */
    for (id = 0; id < n_ids && s->round >= warmup; id++) {
        int m = 0, all = 1;
        double mean_norm, max_norm = 0;
        for (i = 0; i < K; i++)
            if (cluster[i] == id) {
                mem[m++] = i;
                all &= s->up[i] != NULL;
            }
        if (m <= 2 || !all) continue;
        if (plus) {
            int ready = 1;
            for (i = 0; i < K; i++) ready &= seq_len[i] >= L;
            if (!ready) continue;
        }
        memset(acc, 0, sizeof(double) * n);
        for (i = 0; i < m; i++) {
            const float *d = fgl_upload(s, mem[i], "delta");
            double nd = fgl_norm2(n, d);
            if (nd > max_norm) max_norm = nd;
            for (j = 0; j < n; j++) acc[j] += d[j];
        }
        mean_norm = 0;
        for (j = 0; j < n; j++) mean_norm += (acc[j] / m) * (acc[j] / m);
        mean_norm = sqrt(mean_norm);
        if (!(mean_norm < eps1 && max_norm > eps2)) continue;
        if ((rc = fgl__gcfl_split(s, mem, m))) return rc;
        if (plus)
            for (i = 0; i < K; i++) seq_len[i] = 0;
    }
    /* Cluster-wise aggregation of the updates, weighted by training counts. */
    for (id = 0; id < meta[0]; id++) {
        double wsum = 0;
        memset(acc, 0, sizeof(double) * n);
        for (i = 0; i < K; i++) {
            const float *d;
            double w;
            if (cluster[i] != id || !s->up[i]) continue;
            d = fgl_upload(s, i, "delta");
            w = fgl_upload(s, i, "n")[0];
            for (j = 0; j < n; j++) acc[j] += w * d[j];
            wsum += w;
        }
        if (wsum <= 0) continue; /* nobody heard from: the cluster keeps its models */
        for (j = 0; j < n; j++) acc[j] /= wsum;
        for (i = 0; i < K; i++)
            if (cluster[i] == id) {
                float *th = theta + (size_t)i * n;
                for (j = 0; j < n; j++) th[j] += (float)acc[j];
            }
    }
    return FGL_OK;
}

static int fgl__gcfl_matrix(const fgl_observed *o, float *out) {
    const int *cluster;
    int K = o->n_clients, i, j;
    if (!o->started) return FGL_ERR_EMPTY;
    cluster = fgl_observed_ints(o, "cluster");
    for (i = 0; i < K; i++)
        for (j = 0; j < K; j++) out[(size_t)i * K + j] = cluster[i] == cluster[j] ? 1.0f : 0.0f;
    return FGL_OK;
}

static void fgl__gcfl_report(const fgl_observed *o, char *buf, size_t cap) {
    const int *cluster, *meta;
    size_t used;
    int i, id, nonempty = 0;
    if (!o->started || !cap) return;
    cluster = fgl_observed_ints(o, "cluster");
    meta = fgl_observed_ints(o, "meta");
    for (id = 0; id < meta[0]; id++)
        for (i = 0; i < o->n_clients; i++)
            if (cluster[i] == id) {
                nonempty++;
                break;
            }
    snprintf(buf, cap, "\"clusters\": %d, \"splits\": %d, \"cluster_of\": [", nonempty, meta[1]);
    for (i = 0; i < o->n_clients; i++) {
        used = strlen(buf);
        if (used + 16 >= cap) return;
        snprintf(buf + used, cap - used, "%s%d", i ? ", " : "", cluster[i]);
    }
    used = strlen(buf);
    if (used + 2 < cap) snprintf(buf + used, cap - used, "]");
}

static fgl_algo fgl__gcfl(void) {
    fgl_algo a = fgl_algo_new("gcfl", "Xie et al. 2021: clusters of clients split by a min cut of update similarities, "
                              "averaged inside");
    FGL_ALGO_PARAM(&a, fgl__gcfl_params, share, FGL_PARAM_GROUPS, (double)FGL_G_CONV,
                   "groups clustered and averaged (GCFL's code: the GIN convolutions; node tasks: pass share=all)");
    FGL_ALGO_PARAM(&a, fgl__gcfl_params, eps1, FGL_PARAM_FLOAT, 0.05,
                   "split when ||mean update|| < eps1 (authors' scripts: PROTEINS 0.03, molecules 0.07)");
    FGL_ALGO_PARAM(&a, fgl__gcfl_params, eps2, FGL_PARAM_FLOAT, 0.1,
                   "... and max ||update|| > eps2 (authors' scripts: PROTEINS 0.06, molecules 0.28)");
    FGL_ALGO_PARAM(&a, fgl__gcfl_params, warmup, FGL_PARAM_INT, 20, "no split in the first rounds (authors: 20)");
    /* averaged by hand inside each cluster: no runtime defence covers it */
    fgl_algo_upload(&a, "delta", FGL_SEND_DELTA, 0, 0, FGL_PART_RAW);
    fgl_algo_upload(&a, "n", FGL_SEND_WEIGHT, 0, 0, 0);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, FGL_PART_ROW, "theta");
    a.server_init = fgl__gcfl_server_init;
    a.aggregate = fgl__gcfl_aggregate;
    a.report = fgl__gcfl_report;
    a.client_matrix = fgl__gcfl_matrix;
    a.variant = FGL__GCFL;
    return a;
}

static fgl_algo fgl__gcflplus(void) {
    fgl_algo a = fgl__gcfl();
    a.name = "gcflplus";
    a.summary = "Xie et al. 2021 (GCFL+): GCFL splitting by DTW distances of update-norm sequences";
    FGL_ALGO_PARAM(&a, fgl__gcflplus_params, seq_length, FGL_PARAM_INT, 5,
                   "values per norm sequence compared by DTW (paper: 5..10)");
    FGL_ALGO_PARAM(&a, fgl__gcflplus_params, standardize, FGL_PARAM_INT, 0,
                   "1: divide each sequence by its standard deviation before DTW");
    FGL_ALGO_PARAM(&a, fgl__gcflplus_params, seq_grad, FGL_PARAM_INT, 0,
                   "0: sequences of update norms; 1: of the last local step's gradient norm (+4 bytes up)");
    fgl_algo_upload(&a, "gnorm", FGL_SEND_DATA, 1, 1, FGL_PART_OPTIONAL);
    a.upload = fgl__gcfl_upload;
    a.variant = FGL__GCFL_PLUS;
    return a;
}

#include "../../alone.h"
