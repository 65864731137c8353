/* dev/fed_algos_b.h - GCFL, GCFL+, FedProto and FedTGP.
 *
 * A fragment of fgl_fed.h's implementation (included right before the
 * registry, merged into fgl_fed.h when done): static code only. The facts
 * below that ALGORITHMS.md leaves open were read from the authors' public
 * code (Oxfordblue7/GCFL, yuetan031/FedProto, TsingZ0/FedTGP); no code was
 * copied or translated.
 */

/* ======================================================================== */
/* Two small algorithms: a global minimum cut and dynamic time warping      */
/* ======================================================================== */

/* Global minimum cut of the complete graph on n >= 2 vertices with symmetric
 * non-negative edge weights w (n x n, row-major, diagonal ignored), by Stoer &
 * Wagner (1997): n - 1 phases; each orders the current (merged) vertices by
 * maximum adjacency to the growing set A, the last one t is cut off with
 * weight w(A - t, t) ("cut of the phase"), then t is merged into the vertex
 * added before it. The lightest cut of the phase is a global minimum cut.
 * Ties go to the lowest index, so the result is deterministic.
 * side[i] = 1 for the vertices of the cut's side that does not hold vertex 0.
 * Returns the cut weight, or -1 if n < 2 or out of memory. O(n^3). */
static double fgl__stoer_wagner(const double *w, int n, unsigned char *side) {
    double *a, *key, best = -1;
    int *owner, i, u, phase;
    unsigned char *alive, *in_a;
    if (n < 2) return -1;
    a = (double *)FGL_MALLOC(sizeof(double) * (size_t)n * (size_t)n);
    key = (double *)FGL_MALLOC(sizeof(double) * (size_t)n);
    owner = (int *)FGL_MALLOC(sizeof(int) * (size_t)n);
    alive = (unsigned char *)FGL_MALLOC((size_t)n);
    in_a = (unsigned char *)FGL_MALLOC((size_t)n);
    if (!a || !key || !owner || !alive || !in_a) goto done;
    for (i = 0; i < n; i++)
        for (u = 0; u < n; u++) a[(size_t)i * n + u] = i == u ? 0.0 : w[(size_t)i * n + u];
    for (i = 0; i < n; i++) {
        owner[i] = i; /* the merged vertex original vertex i belongs to */
        alive[i] = 1;
        side[i] = 0;
    }
    for (phase = 0; phase < n - 1; phase++) {
        int left = n - phase, k, prev = -1, last = -1;
        double cut = 0;
        for (i = 0; i < n; i++) {
            in_a[i] = 0;
            key[i] = 0;
        }
        for (k = 0; k < left; k++) { /* add the most tightly connected vertex */
            int v = -1;
            for (u = 0; u < n; u++)
                if (alive[u] && !in_a[u] && (v < 0 || key[u] > key[v])) v = u;
            in_a[v] = 1;
            prev = last;
            last = v;
            cut = key[v];
            for (u = 0; u < n; u++)
                if (alive[u] && !in_a[u]) key[u] += a[(size_t)v * n + u];
        }
        if (best < 0 || cut < best) {
            best = cut;
            for (i = 0; i < n; i++) side[i] = (unsigned char)(owner[i] == last);
        }
        for (u = 0; u < n; u++) { /* merge last into prev */
            a[(size_t)prev * n + u] += a[(size_t)last * n + u];
            a[(size_t)u * n + prev] = a[(size_t)prev * n + u];
        }
        a[(size_t)prev * n + prev] = 0;
        alive[last] = 0;
        for (i = 0; i < n; i++)
            if (owner[i] == last) owner[i] = prev;
    }
    if (side[0])
        for (i = 0; i < n; i++) side[i] = (unsigned char)!side[i];
done:
    FGL_FREE(a);
    FGL_FREE(key);
    FGL_FREE(owner);
    FGL_FREE(alive);
    FGL_FREE(in_a);
    return best;
}

/* Dynamic time warping distance of sequences x (n) and y (m): the cheapest
 * monotone alignment path from (0, 0) to (n-1, m-1) with steps (1,0), (0,1),
 * (1,1) and point cost (x_i - y_j)^2; returned as the square root of that
 * cost (the convention of dtaidistance's dtw.distance, which GCFL+'s code
 * uses). -1 if a sequence is empty or out of memory. */
static double fgl__dtw(const double *x, int n, const double *y, int m) {
    double *prev, *cur, r;
    int i, j;
    if (n < 1 || m < 1) return -1;
    prev = (double *)FGL_MALLOC(sizeof(double) * (size_t)m);
    cur = (double *)FGL_MALLOC(sizeof(double) * (size_t)m);
    if (!prev || !cur) {
        FGL_FREE(prev);
        FGL_FREE(cur);
        return -1;
    }
    for (i = 0; i < n; i++) {
        for (j = 0; j < m; j++) {
            double d = (x[i] - y[j]) * (x[i] - y[j]), b;
            if (i == 0 && j == 0) b = 0;
            else if (i == 0) b = cur[j - 1];
            else if (j == 0) b = prev[j];
            else {
                b = prev[j - 1];
                if (prev[j] < b) b = prev[j];
                if (cur[j - 1] < b) b = cur[j - 1];
            }
            cur[j] = d + b;
        }
        for (j = 0; j < m; j++) prev[j] = cur[j];
    }
    r = sqrt(prev[m - 1]);
    FGL_FREE(prev);
    FGL_FREE(cur);
    return r;
}

/* Graph tasks: fgl_client_train shuffles c->train_ids in place every epoch
 * and the runtime's checkpoint does not carry that order, so a resumed run
 * would draw other mini-batches. Until fgl_run_start registers it, these
 * algorithms register it themselves. */
static int fgl__keep_train_order(fgl_run *run) {
    int i, rc;
    for (i = 0; i < run->n_clients; i++) {
        fgl_client *c = &run->clients[i];
        if (c->task == FGL_TASK_GRAPH && c->n_train > 0 && (rc = fgl_run_keep_ints(run, i, c->train_ids, (size_t)c->n_train)))
            return rc;
    }
    return FGL_OK;
}

/* ======================================================================== */
/* GCFL and GCFL+ (Xie et al., NeurIPS 2021)                                */
/* ======================================================================== */
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
 * norms ||Delta theta_i|| (ALGORITHMS.md; the authors' run_gcflplus_dWs) or,
 * with seq_grad=1, of the gradient norms of its last local step (the authors'
 * run_gcflplus); it splits only when every client's sequence holds seq_length
 * values, and then cuts by the DTW distances D_ij of the clients' last
 * seq_length values, with weights max(D) - D_ij (max over the cluster's
 * symmetric, zero-diagonal matrix, as dtaidistance's distance_matrix gives
 * it), each sequence divided by its standard deviation first if
 * standardize=1. After a GCFL+ split every client's sequence starts
 * again (so at most one GCFL+ split per round), as in the authors' code.
 * Choices: share defaults to conv (GCFL's code shares the GIN convolution
 * layers; input projection and head stay local), one default for both tasks:
 * for node-task models pass share=all. A cluster with a member whose upload
 * is missing this round (not
 * sampled, rejected) is not split that round (the authors always use every
 * client). The side of a cut holding the cluster's lowest client keeps the
 * cluster id; the other side gets a new one. Evaluation uses each client's
 * own model, never a best over cached cluster models (the authors' code
 * reports that, which is optimistic). Reference: Xie, Ma, Xu and Yang,
 * "Federated Graph Classification over Non-IID Graphs", NeurIPS 2021. */

typedef struct fgl__gcfl_config {
    unsigned share;    /* groups clustered and averaged */
    float eps1, eps2;  /* split thresholds on the mean and max update norms */
    int warmup;        /* no split in the first `warmup` rounds */
    int seq_length;    /* GCFL+: length of the norm sequences compared by DTW */
    int standardize;   /* GCFL+: divide each sequence by its standard deviation */
    int seq_grad;      /* GCFL+: 0 update norms, 1 last-step gradient norms */
} fgl__gcfl_config;

typedef struct fgl__gcfl_server {
    int plus;          /* GCFL+ */
    size_t n;          /* shared floats */
    float *theta;      /* K x n: each client's shared parameters as last sent */
    int *cluster;      /* K: cluster id of each client */
    int meta[2];       /* cluster ids used so far (never reused), splits so far */
    int L;             /* GCFL+: sequence length */
    float *seq;        /* K x L: each client's last values, oldest first */
    int *seq_len;      /* K: values held (at most L) */
    float *matrix;     /* K x K co-membership, filled on request */
} fgl__gcfl_server;

static void fgl__gcfl_destroy(fgl_run *run) {
    fgl__gcfl_server *s = (fgl__gcfl_server *)run->server;
    if (s) {
        FGL_FREE(s->theta);
        FGL_FREE(s->cluster);
        FGL_FREE(s->seq);
        FGL_FREE(s->seq_len);
        FGL_FREE(s->matrix);
        FGL_FREE(s);
    }
    run->server = NULL;
}

static int fgl__gcfl_init_common(fgl_run *run, int plus) {
    const fgl__gcfl_config *cfg = (const fgl__gcfl_config *)run->algo_cfg;
    fgl__gcfl_server *s;
    int K = run->n_clients, i, rc;
    if ((rc = fgl_run_check_shared(run, cfg->share, &run->err))) return rc;
    if (plus && cfg->seq_length < 1)
        return fgl_error_set(&run->err, FGL_ERR_ARG, "%s: seq_length must be at least 1 (the paper uses 5..10)",
                             run->algo->name);
    s = (fgl__gcfl_server *)FGL_MALLOC(sizeof *s);
    if (!s) return FGL_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    run->server = s;
    s->plus = plus;
    s->n = fgl_params_count(&run->clients[0].model.params, cfg->share);
    s->L = plus ? cfg->seq_length : 1;
    s->theta = (float *)FGL_MALLOC(sizeof(float) * (size_t)K * FGL__MAX(s->n, 1));
    s->cluster = (int *)FGL_MALLOC(sizeof(int) * (size_t)K);
    s->seq = (float *)FGL_MALLOC(sizeof(float) * (size_t)K * (size_t)s->L);
    s->seq_len = (int *)FGL_MALLOC(sizeof(int) * (size_t)K);
    s->matrix = (float *)FGL_MALLOC(sizeof(float) * (size_t)K * (size_t)K);
    if (!s->theta || !s->cluster || !s->seq || !s->seq_len || !s->matrix) return FGL_ERR_NOMEM;
    memset(s->seq, 0, sizeof(float) * (size_t)K * (size_t)s->L);
    s->meta[0] = 1; /* everyone starts in cluster 0 */
    s->meta[1] = 0;
    for (i = 0; i < K; i++) {
        /* The server's initial model for everyone: client 0's initialisation
         * (as FedAvg here; the authors' clients all download one model). */
        fgl_params_pack(&run->clients[0].model.params, cfg->share, s->theta + (size_t)i * s->n);
        s->cluster[i] = 0;
        s->seq_len[i] = 0;
        fgl_run_expect(run, i, 0, s->n);
        fgl_run_expect(run, i, 1, 1);
        if (plus && cfg->seq_grad) fgl_run_expect(run, i, 2, 1);
    }
    if ((rc = fgl_run_keep_floats(run, -1, s->theta, (size_t)K * s->n)) ||
        (rc = fgl_run_keep_ints(run, -1, s->cluster, (size_t)K)) || (rc = fgl_run_keep_ints(run, -1, s->meta, 2)))
        return rc;
    if (plus && ((rc = fgl_run_keep_floats(run, -1, s->seq, (size_t)K * (size_t)s->L)) ||
                 (rc = fgl_run_keep_ints(run, -1, s->seq_len, (size_t)K))))
        return rc;
    return fgl__keep_train_order(run);
}

static int fgl__gcfl_init(fgl_run *run) { return fgl__gcfl_init_common(run, 0); }
static int fgl__gcflplus_init(fgl_run *run) { return fgl__gcfl_init_common(run, 1); }

static int fgl__gcfl_download(fgl_run *run, fgl_client *c, fgl_msg *down) {
    fgl__gcfl_server *s = (fgl__gcfl_server *)run->server;
    float *p = fgl_msg_part(down, 0, s->n);
    if (!p) return FGL_ERR_NOMEM;
    memcpy(p, s->theta + (size_t)c->id * s->n, sizeof(float) * s->n);
    return FGL_OK;
}

static int fgl__gcfl_receive(fgl_run *run, fgl_client *c, const fgl_msg *down) {
    const fgl__gcfl_config *cfg = (const fgl__gcfl_config *)run->algo_cfg;
    if (down->n_parts < 1 || down->len[0] != fgl_params_count(&c->model.params, cfg->share))
        return fgl_client_fail(c, FGL_ERR_SHAPE, "client %d: download of the wrong size", c->id);
    fgl_params_unpack(&c->model.params, cfg->share, down->part[0]);
    return FGL_OK;
}

/* Delta theta = theta(after training) - theta(start) on the shared groups,
 * in fgl_params_pack order. */
static int fgl__gcfl_upload(fgl_run *run, fgl_client *c, fgl_msg *up) {
    const fgl__gcfl_config *cfg = (const fgl__gcfl_config *)run->algo_cfg;
    const fgl__gcfl_server *s = (const fgl__gcfl_server *)run->server;
    const fgl_params *ps = &c->model.params;
    float *d = fgl_msg_part(up, 0, s->n), *cnt = fgl_msg_part(up, 1, 1);
    size_t k = 0, j;
    int i;
    if (!d || !cnt) return FGL_ERR_NOMEM;
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *sl = &ps->slices[i];
        if (!(sl->groups & cfg->share)) continue;
        for (j = 0; j < fgl_slice_size(sl); j++) d[k++] = ps->data[sl->offset + j] - c->start.data[sl->offset + j];
    }
    cnt[0] = (float)c->n_train;
    if (s->plus && cfg->seq_grad) {
        float *g = fgl_msg_part(up, 2, 1);
        double sq = 0;
        if (!g) return FGL_ERR_NOMEM;
        for (i = 0; i < ps->n; i++) {
            const fgl_slice *sl = &ps->slices[i];
            if (sl->groups & cfg->share) sq += fgl_dot(fgl_slice_size(sl), ps->grad + sl->offset, ps->grad + sl->offset);
        }
        g[0] = (float)sqrt(sq);
    }
    return FGL_OK;
}

/* Split cluster members mem[0..m-1] (all with accepted uploads) in two by a
 * minimum cut; the side without mem[0] moves to a new cluster id. */
static int fgl__gcfl_split(fgl_run *run, fgl__gcfl_server *s, const int *mem, int m) {
    const fgl__gcfl_config *cfg = (const fgl__gcfl_config *)run->algo_cfg;
    double *w = (double *)FGL_MALLOC(sizeof(double) * (size_t)m * (size_t)m);
    double *seqs = s->plus ? (double *)FGL_MALLOC(sizeof(double) * (size_t)m * (size_t)s->L) : NULL;
    unsigned char *side = (unsigned char *)FGL_MALLOC((size_t)m);
    int a, b, L = s->L, rc = FGL_OK;
    if (!w || !side || (s->plus && !seqs)) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    if (!s->plus) { /* cosine similarity of the updates, + 1 (non-negative) */
        for (a = 0; a < m; a++)
            for (b = 0; b < m; b++)
                w[(size_t)a * m + b] = fgl_cosine(s->n, run->clients[mem[a]].up.part[0], run->clients[mem[b]].up.part[0]) + 1.0;
    } else { /* max(D) - D with D the DTW distances of the norm sequences */
        double dmax = 0;
        for (a = 0; a < m; a++) {
            double *q = seqs + (size_t)a * L, mean = 0, var = 0;
            int t;
            for (t = 0; t < L; t++) q[t] = s->seq[(size_t)mem[a] * L + t];
            if (cfg->standardize) { /* numpy's std (ddof 0); a constant sequence is left as it is */
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
                if (d < 0) {
                    rc = FGL_ERR_NOMEM;
                    goto done;
                }
                w[(size_t)a * m + b] = d;
                if (d > dmax) dmax = d;
            }
        for (a = 0; a < m * m; a++) w[a] = dmax - w[a];
    }
    if (fgl__stoer_wagner(w, m, side) < 0) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    for (a = 0; a < m; a++)
        if (side[a]) s->cluster[mem[a]] = s->meta[0];
    s->meta[0]++;
    s->meta[1]++;
done:
    FGL_FREE(w);
    FGL_FREE(seqs);
    FGL_FREE(side);
    return rc;
}

static int fgl__gcfl_aggregate(fgl_run *run) {
    const fgl__gcfl_config *cfg = (const fgl__gcfl_config *)run->algo_cfg;
    fgl__gcfl_server *s = (fgl__gcfl_server *)run->server;
    int K = run->n_clients, i, id, n_ids = s->meta[0], L = s->L, rc = FGL_OK;
    size_t j, n = s->n;
    int *mem = (int *)FGL_MALLOC(sizeof(int) * (size_t)K);
    double *acc = (double *)FGL_MALLOC(sizeof(double) * FGL__MAX(n, 1));
    if (!mem || !acc) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    if (s->plus) /* extend the sequences of the clients heard from this round */
        for (i = 0; i < K; i++) {
            const fgl_client *c = &run->clients[i];
            float v;
            if (!run->accepted[i]) continue;
            v = cfg->seq_grad ? c->up.part[2][0] : (float)fgl_norm2(n, c->up.part[0]);
            if (s->seq_len[i] < L) {
                s->seq[(size_t)i * L + s->seq_len[i]++] = v;
            } else {
                memmove(s->seq + (size_t)i * L, s->seq + (size_t)i * L + 1, sizeof(float) * (size_t)(L - 1));
                s->seq[(size_t)i * L + L - 1] = v;
            }
        }
    /* Splits, over the clusters as they were at the start of the round. */
    for (id = 0; id < n_ids && run->round >= cfg->warmup; id++) {
        int m = 0, all = 1;
        double mean_norm, max_norm = 0;
        for (i = 0; i < K; i++)
            if (s->cluster[i] == id) {
                mem[m++] = i;
                all &= run->accepted[i] != 0;
            }
        if (m <= 2 || !all) continue;
        if (s->plus) {
            int ready = 1;
            for (i = 0; i < K; i++) ready &= s->seq_len[i] >= L;
            if (!ready) continue;
        }
        memset(acc, 0, sizeof(double) * n);
        for (i = 0; i < m; i++) {
            const float *d = run->clients[mem[i]].up.part[0];
            double nd = fgl_norm2(n, d);
            if (nd > max_norm) max_norm = nd;
            for (j = 0; j < n; j++) acc[j] += d[j];
        }
        mean_norm = 0;
        for (j = 0; j < n; j++) mean_norm += (acc[j] / m) * (acc[j] / m);
        mean_norm = sqrt(mean_norm);
        if (!(mean_norm < cfg->eps1 && max_norm > cfg->eps2)) continue;
        if ((rc = fgl__gcfl_split(run, s, mem, m))) goto done;
        if (s->plus)
            for (i = 0; i < K; i++) s->seq_len[i] = 0;
    }
    /* Cluster-wise aggregation of the updates, weighted by training counts. */
    for (id = 0; id < s->meta[0]; id++) {
        double wsum = 0;
        memset(acc, 0, sizeof(double) * n);
        for (i = 0; i < K; i++) {
            const fgl_client *c = &run->clients[i];
            double w;
            if (s->cluster[i] != id || !run->accepted[i]) continue;
            w = c->up.part[1][0];
            for (j = 0; j < n; j++) acc[j] += w * c->up.part[0][j];
            wsum += w;
        }
        if (wsum <= 0) continue; /* nobody heard from: the cluster keeps its models */
        for (j = 0; j < n; j++) acc[j] /= wsum;
        for (i = 0; i < K; i++)
            if (s->cluster[i] == id) {
                float *th = s->theta + (size_t)i * n;
                for (j = 0; j < n; j++) th[j] += (float)acc[j];
            }
    }
done:
    FGL_FREE(mem);
    FGL_FREE(acc);
    return rc;
}

static const float *fgl__gcfl_matrix(const fgl_run *run) {
    fgl__gcfl_server *s = (fgl__gcfl_server *)run->server;
    int K = run->n_clients, i, j;
    if (!s) return NULL;
    for (i = 0; i < K; i++)
        for (j = 0; j < K; j++) s->matrix[(size_t)i * K + j] = s->cluster[i] == s->cluster[j] ? 1.0f : 0.0f;
    return s->matrix;
}

static void fgl__gcfl_report(const fgl_run *run, char *buf, size_t cap) {
    const fgl__gcfl_server *s = (const fgl__gcfl_server *)run->server;
    size_t used;
    int i, id, nonempty = 0;
    if (!s || !cap) return;
    for (id = 0; id < s->meta[0]; id++)
        for (i = 0; i < run->n_clients; i++)
            if (s->cluster[i] == id) {
                nonempty++;
                break;
            }
    snprintf(buf, cap, "\"clusters\": %d, \"splits\": %d, \"cluster_of\": [", nonempty, s->meta[1]);
    for (i = 0; i < run->n_clients; i++) {
        used = strlen(buf);
        if (used + 16 >= cap) return;
        snprintf(buf + used, cap - used, "%s%d", i ? ", " : "", s->cluster[i]);
    }
    used = strlen(buf);
    if (used + 2 < cap) snprintf(buf + used, cap - used, "]");
}

static const fgl_algo_param fgl__gcfl_params[] = {
    {"share", FGL_PARAM_GROUPS, FGL__OFF(fgl__gcfl_config, share), (double)FGL_G_CONV,
     "groups clustered and averaged (GCFL's code: the GIN convolutions; node tasks: pass share=all)"},
    {"eps1", FGL_PARAM_FLOAT, FGL__OFF(fgl__gcfl_config, eps1), 0.05,
     "split when ||mean update|| < eps1 (authors' scripts: PROTEINS 0.03, molecules 0.07)"},
    {"eps2", FGL_PARAM_FLOAT, FGL__OFF(fgl__gcfl_config, eps2), 0.1,
     "... and max ||update|| > eps2 (authors' scripts: PROTEINS 0.06, molecules 0.28)"},
    {"warmup", FGL_PARAM_INT, FGL__OFF(fgl__gcfl_config, warmup), 20, "no split in the first rounds (authors: 20)"}};

static const fgl_algo_param fgl__gcflplus_params[] = {
    {"share", FGL_PARAM_GROUPS, FGL__OFF(fgl__gcfl_config, share), (double)FGL_G_CONV,
     "groups clustered and averaged (GCFL's code: the GIN convolutions; node tasks: pass share=all)"},
    {"eps1", FGL_PARAM_FLOAT, FGL__OFF(fgl__gcfl_config, eps1), 0.05,
     "split when ||mean update|| < eps1 (authors' scripts: PROTEINS 0.03, molecules 0.07)"},
    {"eps2", FGL_PARAM_FLOAT, FGL__OFF(fgl__gcfl_config, eps2), 0.1,
     "... and max ||update|| > eps2 (authors' scripts: PROTEINS 0.06, molecules 0.28)"},
    {"warmup", FGL_PARAM_INT, FGL__OFF(fgl__gcfl_config, warmup), 20, "no split in the first rounds (authors: 20)"},
    {"seq_length", FGL_PARAM_INT, FGL__OFF(fgl__gcfl_config, seq_length), 5,
     "values per norm sequence compared by DTW (paper: 5..10)"},
    {"standardize", FGL_PARAM_INT, FGL__OFF(fgl__gcfl_config, standardize), 0,
     "1: divide each sequence by its standard deviation before DTW"},
    {"seq_grad", FGL_PARAM_INT, FGL__OFF(fgl__gcfl_config, seq_grad), 0,
     "0: sequences of update norms; 1: of the last local step's gradient norm (+4 bytes up)"}};

static const fgl_algo fgl__algo_gcfl = {
    "gcfl", "Xie et al. 2021: clusters of clients split by a min cut of update similarities, averaged inside",
    sizeof(fgl__gcfl_config), fgl__gcfl_params, 4,
    NULL, fgl__gcfl_init, fgl__gcfl_destroy, fgl__gcfl_download, fgl__gcfl_receive, NULL,
    {NULL, NULL, NULL}, fgl__gcfl_upload, fgl__gcfl_aggregate, NULL, fgl__gcfl_report, fgl__gcfl_matrix};

static const fgl_algo fgl__algo_gcflplus = {
    "gcflplus", "Xie et al. 2021 (GCFL+): GCFL splitting by DTW distances of update-norm sequences",
    sizeof(fgl__gcfl_config), fgl__gcflplus_params, 7,
    NULL, fgl__gcflplus_init, fgl__gcfl_destroy, fgl__gcfl_download, fgl__gcfl_receive, NULL,
    {NULL, NULL, NULL}, fgl__gcfl_upload, fgl__gcfl_aggregate, NULL, fgl__gcfl_report, fgl__gcfl_matrix};

/* ======================================================================== */
/* FedProto (Tan et al., AAAI 2022) and FedTGP (Zhang et al., AAAI 2024)    */
/* ======================================================================== */
/* References: Tan et al., "FedProto: Federated Prototype Learning across
 * Heterogeneous Clients", AAAI 2022; Zhang et al., "FedTGP: Trainable Global
 * Prototypes with Adaptive-Margin-Enhanced Contrastive Learning for Data and
 * Model Heterogeneity in Federated Learning", AAAI 2024.
 * Prototype methods: no weights leave a client, so models may differ as long
 * as the representation the classifier reads (fgl_forward.rep, `hidden`
 * wide) has one width d. C = the largest class count among clients.
 * Sends: up C x d prototypes (the mean rep of the client's training samples
 * of each class, computed in evaluation mode after local training as
 * FedTGP's code does; FedProto's code averages the training-mode reps seen
 * during the local epochs instead; zeros for classes the client lacks) + C
 * per-class counts; down C x d global prototypes (a
 * class without one is a row of NaN, FedProto only; nothing is sent before
 * the first aggregation). Client loss: CE + lambda * mean over the training
 * rows' entries of (rep - P_y)^2, i.e. lambda * (1/d) * mean_v ||h_v - P_y||^2
 * (FedProto's and FedTGP's code use nn.MSELoss so; samples of a class
 * without a global prototype count with a zero term, as there). Prediction:
 * the classifier head (nearest-prototype prediction is not offered: the
 * evaluation path reads logits).
 * FedProto's server: P_c = count-weighted mean of the uploaded p_c
 * (ALGORITHMS.md; the authors' code takes the plain mean over clients:
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

typedef struct fgl__proto_config {
    float lambda;       /* weight of the prototype regulariser */
    int weighted;       /* FedProto: 1 count-weighted class means, 0 plain mean over clients */
    int server_steps;   /* FedTGP: server optimisation steps per round */
    float server_lr;    /* FedTGP: Adam learning rate */
    float tau;          /* FedTGP: margin cap */
    int margin_rule;    /* FedTGP: 0 authors' code (max of nearest-class gaps), 1 paper (max pair distance) */
    int server_hidden;  /* FedTGP: MLP hidden width (0: d) */
} fgl__proto_config;

typedef struct fgl__proto_client {
    float *global;      /* C x d received global prototypes */
    int *has;           /* C: 1 where a global prototype exists */
} fgl__proto_client;

typedef struct fgl__proto_server {
    int tgp;            /* FedTGP */
    int C, d, h;
    float *global;      /* C x d */
    int *has;           /* C */
    int ready[1];       /* 1 once prototypes exist (before: nothing is sent) */
    /* FedTGP */
    fgl_params ps;
    int s_anchor, s_w1, s_b1, s_w2, s_b2;
    fgl_optim opt;
    int opt_ready;
    fgl_tape tape;
    float last[2];      /* margin and server loss of the last aggregation */
} fgl__proto_server;

static void fgl__proto_destroy(fgl_run *run) {
    fgl__proto_server *s = (fgl__proto_server *)run->server;
    int i;
    for (i = 0; i < run->n_clients; i++) {
        fgl__proto_client *pc = (fgl__proto_client *)run->clients[i].state;
        if (!pc) continue;
        FGL_FREE(pc->global);
        FGL_FREE(pc->has);
        FGL_FREE(pc);
        run->clients[i].state = NULL;
    }
    if (s) {
        FGL_FREE(s->global);
        FGL_FREE(s->has);
        fgl_params_free(&s->ps);
        if (s->opt_ready) fgl_optim_free(&s->opt);
        fgl_tape_free(&s->tape);
        FGL_FREE(s);
    }
    run->server = NULL;
}

/* FedTGP's server model: anchors and the MLP, initialised from the run seed. */
static int fgl__tgp_build(fgl_run *run, fgl__proto_server *s) {
    const fgl__proto_config *cfg = (const fgl__proto_config *)run->algo_cfg;
    fgl_params *ps = &s->ps;
    fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
    fgl_rng r;
    size_t k;
    float *a;
    int rc;
    s->h = cfg->server_hidden > 0 ? cfg->server_hidden : s->d;
    if (cfg->server_steps < 0 || !(cfg->server_lr >= 0) || !(cfg->tau >= 0))
        return fgl_error_set(&run->err, FGL_ERR_ARG, "fedtgp: server_steps, server_lr and tau must be non-negative");
    if ((s->s_anchor = fgl_params_add(ps, "tgp.anchor", s->C, s->d, FGL_G_OTHER, 1)) < 0 ||
        (s->s_w1 = fgl_params_add(ps, "tgp.w1", s->d, s->h, FGL_G_OTHER, 1)) < 0 ||
        (s->s_b1 = fgl_params_add(ps, "tgp.b1", 1, s->h, FGL_G_OTHER, 1)) < 0 ||
        (s->s_w2 = fgl_params_add(ps, "tgp.w2", s->h, s->d, FGL_G_OTHER, 1)) < 0 ||
        (s->s_b2 = fgl_params_add(ps, "tgp.b2", 1, s->d, FGL_G_OTHER, 1)) < 0)
        return FGL_ERR_NOMEM;
    fgl_rng_init(&r, run->cfg.seed, 0x464544544750ull); /* "FEDTGP" */
    a = fgl_params_data(ps, s->s_anchor);
    for (k = 0; k < (size_t)s->C * (size_t)s->d; k++) a[k] = (float)fgl_rng_normal(&r);
    fgl_params_fan_in_uniform(ps, s->s_w1, s->d, &r);
    fgl_params_fan_in_uniform(ps, s->s_b1, s->d, &r);
    fgl_params_fan_in_uniform(ps, s->s_w2, s->h, &r);
    fgl_params_fan_in_uniform(ps, s->s_b2, s->h, &r);
    oc.lr = cfg->server_lr;
    if ((rc = fgl_optim_init(&s->opt, oc, ps))) return rc;
    s->opt_ready = 1;
    if ((rc = fgl_run_keep_params(run, -1, ps)) || (rc = fgl_run_keep_optim(run, -1, &s->opt))) return rc;
    return FGL_OK;
}

static int fgl__proto_init_common(fgl_run *run, int tgp) {
    fgl__proto_server *s;
    int K = run->n_clients, i, rc, C = 0, d;
    const char *name = run->algo->name;
    for (i = 0; i < K; i++) {
        const fgl_model_spec *sp = &run->clients[i].model.spec;
        if (sp->head == FGL_HEAD_NONE)
            return fgl_error_set(&run->err, FGL_ERR_ARG,
                                 "%s: client %d's model has no classifier head; prototypes are the representation "
                                 "the head reads (give the model a linear or MLP head)", name, i);
        if (sp->out_dim > C) C = sp->out_dim;
    }
    d = fgl_model_emb_dim(&run->clients[0].model);
    for (i = 1; i < K; i++)
        if (fgl_model_emb_dim(&run->clients[i].model) != d)
            return fgl_error_set(&run->err, FGL_ERR_SHAPE,
                                 "%s: client %d represents samples in %d dimensions, client 0 in %d; prototype methods "
                                 "allow different models but one representation width (spec.hidden)",
                                 name, i, fgl_model_emb_dim(&run->clients[i].model), d);
    s = (fgl__proto_server *)FGL_MALLOC(sizeof *s);
    if (!s) return FGL_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    fgl_params_init(&s->ps);
    fgl_tape_init(&s->tape);
    run->server = s;
    s->tgp = tgp;
    s->C = C;
    s->d = d;
    s->global = (float *)FGL_MALLOC(sizeof(float) * (size_t)C * (size_t)d);
    s->has = (int *)FGL_MALLOC(sizeof(int) * (size_t)C);
    if (!s->global || !s->has) return FGL_ERR_NOMEM;
    memset(s->global, 0, sizeof(float) * (size_t)C * (size_t)d);
    memset(s->has, 0, sizeof(int) * (size_t)C);
    for (i = 0; i < K; i++) {
        fgl_client *c = &run->clients[i];
        fgl__proto_client *pc = (fgl__proto_client *)FGL_MALLOC(sizeof *pc);
        if (!pc) return FGL_ERR_NOMEM;
        c->state = pc;
        pc->global = (float *)FGL_MALLOC(sizeof(float) * (size_t)C * (size_t)d);
        pc->has = (int *)FGL_MALLOC(sizeof(int) * (size_t)C);
        if (!pc->global || !pc->has) return FGL_ERR_NOMEM;
        memset(pc->global, 0, sizeof(float) * (size_t)C * (size_t)d);
        memset(pc->has, 0, sizeof(int) * (size_t)C);
        fgl_run_expect(run, i, 0, (size_t)C * (size_t)d);
        fgl_run_expect(run, i, 1, (size_t)C);
        if ((rc = fgl_run_keep_floats(run, i, pc->global, (size_t)C * (size_t)d)) ||
            (rc = fgl_run_keep_ints(run, i, pc->has, (size_t)C)))
            return rc;
    }
    if ((rc = fgl_run_keep_floats(run, -1, s->global, (size_t)C * (size_t)d)) ||
        (rc = fgl_run_keep_ints(run, -1, s->has, (size_t)C)) || (rc = fgl_run_keep_ints(run, -1, s->ready, 1)) ||
        (rc = fgl_run_keep_floats(run, -1, s->last, 2)))
        return rc;
    if (tgp && (rc = fgl__tgp_build(run, s))) return rc;
    return fgl__keep_train_order(run);
}

static int fgl__fedproto_init(fgl_run *run) { return fgl__proto_init_common(run, 0); }
static int fgl__fedtgp_init(fgl_run *run) { return fgl__proto_init_common(run, 1); }

static int fgl__proto_download(fgl_run *run, fgl_client *c, fgl_msg *down) {
    const fgl__proto_server *s = (const fgl__proto_server *)run->server;
    size_t d = (size_t)s->d, k;
    int cl;
    float *p;
    (void)c;
    if (!s->ready[0]) return FGL_OK; /* no prototypes yet: nothing to send */
    if (!(p = fgl_msg_part(down, 0, (size_t)s->C * d))) return FGL_ERR_NOMEM;
    for (cl = 0; cl < s->C; cl++)
        for (k = 0; k < d; k++) p[(size_t)cl * d + k] = s->has[cl] ? s->global[(size_t)cl * d + k] : (float)NAN;
    return FGL_OK;
}

static int fgl__proto_receive(fgl_run *run, fgl_client *c, const fgl_msg *down) {
    const fgl__proto_server *s = (const fgl__proto_server *)run->server;
    fgl__proto_client *pc = (fgl__proto_client *)c->state;
    size_t d = (size_t)s->d;
    int cl;
    if (down->n_parts == 0) return FGL_OK;
    if (down->len[0] != (size_t)s->C * d)
        return fgl_client_fail(c, FGL_ERR_SHAPE, "client %d: prototype download of the wrong size", c->id);
    memcpy(pc->global, down->part[0], sizeof(float) * (size_t)s->C * d);
    for (cl = 0; cl < s->C; cl++) pc->has[cl] = fgl_all_finite(d, pc->global + (size_t)cl * d);
    return FGL_OK;
}

/* lambda * MSE(rep rows of the step's training samples, their class's
 * global prototype), built on the tape with a constant target matrix. */
static fgl_node *fgl__proto_loss(fgl_run *run, fgl_client *c, const fgl_step *st) {
    const fgl__proto_config *cfg = (const fgl__proto_config *)run->algo_cfg;
    const fgl__proto_server *s = (const fgl__proto_server *)run->server;
    const fgl__proto_client *pc = (const fgl__proto_client *)c->state;
    fgl_node *rep = st->fwd->rep;
    fgl_tape *t = st->t;
    int i, n = 0, any = 0, d = s->d, *idx;
    float *target;
    if (!rep || cfg->lambda == 0) return NULL;
    if (rep->cols != d) {
        fgl_client_fail(c, FGL_ERR_SHAPE, "client %d: representation has %d columns, prototypes %d", c->id, rep->cols, d);
        return NULL;
    }
    for (i = 0; i < s->C; i++) any |= pc->has[i];
    if (!any) return NULL;
    for (i = 0; i < rep->rows; i++)
        if ((!st->mask || st->mask[i]) && st->labels[i] >= 0 && st->labels[i] < s->C) n++;
    if (n == 0) return NULL;
    idx = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)n);
    target = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n * (size_t)d);
    if (!idx || !target) return NULL;
    n = 0;
    for (i = 0; i < rep->rows; i++) {
        int y = st->labels[i];
        if ((st->mask && !st->mask[i]) || y < 0 || y >= s->C) continue;
        /* no global prototype for the class: the target is the sample itself (a zero term) */
        memcpy(target + (size_t)n * d, pc->has[y] ? pc->global + (size_t)y * d : rep->val + (size_t)i * d,
               sizeof(float) * (size_t)d);
        idx[n++] = i;
    }
    return fgl_op_scale(t, fgl_op_mse(t, fgl_op_gather_rows(t, rep, idx, n), fgl_op_const(t, target, n, d)),
                        cfg->lambda);
}

/* Add the rep rows of one evaluation-mode forward pass to the class sums. */
static int fgl__proto_accumulate(fgl_client *c, const fgl_gnn_graph *g, const int *labels, const unsigned char *mask,
                                 int C, int d, double *sum, double *cnt) {
    fgl_forward fw;
    int i, k;
    fgl_tape_reset(&c->tape);
    if (fgl_model_forward(&c->model, &c->tape, g, 0, NULL, &fw) || !fw.rep)
        return fgl_client_fail(c, c->tape.err ? c->tape.err : FGL_ERR_ARG, "client %d: prototypes: %s", c->id, c->tape.msg);
    if (fw.rep->cols != d)
        return fgl_client_fail(c, FGL_ERR_SHAPE, "client %d: representation has %d columns, prototypes %d", c->id,
                               fw.rep->cols, d);
    for (i = 0; i < fw.rep->rows; i++) {
        int y = labels[i];
        const float *r = fw.rep->val + (size_t)i * d;
        if ((mask && !mask[i]) || y < 0 || y >= C) continue;
        for (k = 0; k < d; k++) sum[(size_t)y * d + k] += r[k];
        cnt[y] += 1;
    }
    return FGL_OK;
}

/* Upload: per-class mean representations of the training samples
 * (evaluation mode, after local training) and per-class counts. */
static int fgl__proto_upload(fgl_run *run, fgl_client *c, fgl_msg *up) {
    const fgl__proto_server *s = (const fgl__proto_server *)run->server;
    int C = s->C, d = s->d, cl, k, rc = FGL_OK;
    float *p = fgl_msg_part(up, 0, (size_t)C * (size_t)d), *np = fgl_msg_part(up, 1, (size_t)C);
    double *sum = (double *)FGL_MALLOC(sizeof(double) * (size_t)C * (size_t)d);
    double *cnt = (double *)FGL_MALLOC(sizeof(double) * (size_t)C);
    if (!p || !np || !sum || !cnt) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    memset(sum, 0, sizeof(double) * (size_t)C * (size_t)d);
    memset(cnt, 0, sizeof(double) * (size_t)C);
    if (c->task == FGL_TASK_NODE) {
        rc = fgl__proto_accumulate(c, &c->full, c->node->y, c->train_mask, C, d, sum, cnt);
    } else {
        int B = run->cfg.eval_batch > 0 ? run->cfg.eval_batch : 512, i0;
        for (i0 = 0; i0 < c->n_train && !rc; i0 += B) {
            fgl_batch b;
            fgl_gnn_graph g;
            fgl_error err;
            int nb = FGL__MIN(B, c->n_train - i0);
            fgl_batch_init(&b);
            memset(&g, 0, sizeof g);
            rc = fgl_batch_make(c->graphs, c->train_ids + i0, nb, &b, &err);
            if (!rc) rc = fgl_gnn_graph_from_batch(&g, &b, &c->model.spec, &err);
            if (rc) fgl_client_fail(c, rc, "client %d: %s", c->id, err.msg);
            else rc = fgl__proto_accumulate(c, &g, b.y, NULL, C, d, sum, cnt);
            fgl_gnn_graph_free(&g);
            fgl_batch_free(&b);
        }
    }
    if (rc) goto done;
    for (cl = 0; cl < C; cl++) {
        np[cl] = (float)cnt[cl];
        for (k = 0; k < d; k++) p[(size_t)cl * d + k] = cnt[cl] > 0 ? (float)(sum[(size_t)cl * d + k] / cnt[cl]) : 0.0f;
    }
done:
    FGL_FREE(sum);
    FGL_FREE(cnt);
    return rc;
}

static int fgl__fedproto_aggregate(fgl_run *run) {
    const fgl__proto_config *cfg = (const fgl__proto_config *)run->algo_cfg;
    fgl__proto_server *s = (fgl__proto_server *)run->server;
    int C = s->C, d = s->d, cl, i, k, heard = 0;
    double *acc = (double *)FGL_MALLOC(sizeof(double) * (size_t)d);
    if (!acc) return FGL_ERR_NOMEM;
    for (i = 0; i < run->n_clients; i++) heard |= run->accepted[i];
    if (!heard) { /* nothing accepted: keep the prototypes */
        FGL_FREE(acc);
        return FGL_OK;
    }
    for (cl = 0; cl < C; cl++) {
        double wsum = 0;
        memset(acc, 0, sizeof(double) * (size_t)d);
        for (i = 0; i < run->n_clients; i++) { /* fixed client order */
            const fgl_client *c = &run->clients[i];
            double n, w;
            if (!run->accepted[i] || (n = c->up.part[1][cl]) <= 0) continue;
            w = cfg->weighted ? n : 1.0;
            for (k = 0; k < d; k++) acc[k] += w * c->up.part[0][(size_t)cl * d + k];
            wsum += w;
        }
        s->has[cl] = wsum > 0;
        for (k = 0; k < d; k++) s->global[(size_t)cl * d + k] = wsum > 0 ? (float)(acc[k] / wsum) : 0.0f;
    }
    s->ready[0] = 1;
    FGL_FREE(acc);
    return FGL_OK;
}

/* P = MLP(anchors) on the server's tape. */
static fgl_node *fgl__tgp_forward(fgl__proto_server *s) {
    fgl_tape *t = &s->tape;
    fgl_node *a = fgl_op_param(t, &s->ps, s->s_anchor);
    fgl_node *h = fgl_op_relu(t, fgl_op_bias(t, fgl_op_matmul(t, a, fgl_op_param(t, &s->ps, s->s_w1)),
                                             fgl_op_param(t, &s->ps, s->s_b1)));
    return fgl_op_bias(t, fgl_op_matmul(t, h, fgl_op_param(t, &s->ps, s->s_w2)), fgl_op_param(t, &s->ps, s->s_b2));
}

static int fgl__fedtgp_aggregate(fgl_run *run) {
    const fgl__proto_config *cfg = (const fgl__proto_config *)run->algo_cfg;
    fgl__proto_server *s = (fgl__proto_server *)run->server;
    int C = s->C, d = s->d, K = run->n_clients, m = 0, i, cl, c2, k, step, rc = FGL_OK, n_present = 0;
    float *U = NULL, *M = NULL;
    int *y = NULL, *qn = NULL;
    double *Q = NULL, gap = 0, delta, loss = 0;
    fgl_node *P;
    for (i = 0; i < K; i++)
        if (run->accepted[i])
            for (cl = 0; cl < C; cl++) m += run->clients[i].up.part[1][cl] > 0;
    if (m == 0) return FGL_OK; /* nothing uploaded: keep the prototypes */
    U = (float *)FGL_MALLOC(sizeof(float) * (size_t)m * (size_t)d);
    M = (float *)FGL_MALLOC(sizeof(float) * (size_t)m * (size_t)C);
    y = (int *)FGL_MALLOC(sizeof(int) * (size_t)m);
    Q = (double *)FGL_MALLOC(sizeof(double) * (size_t)C * (size_t)d);
    qn = (int *)FGL_MALLOC(sizeof(int) * (size_t)C);
    if (!U || !M || !y || !Q || !qn) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    /* The uploaded prototypes (client order, then class order) and the plain
     * per-class means Q_c. */
    memset(Q, 0, sizeof(double) * (size_t)C * (size_t)d);
    memset(qn, 0, sizeof(int) * (size_t)C);
    m = 0;
    for (i = 0; i < K; i++) {
        const fgl_client *c = &run->clients[i];
        if (!run->accepted[i]) continue;
        for (cl = 0; cl < C; cl++) {
            const float *p = c->up.part[0] + (size_t)cl * d;
            if (c->up.part[1][cl] <= 0) continue;
            memcpy(U + (size_t)m * d, p, sizeof(float) * (size_t)d);
            y[m++] = cl;
            for (k = 0; k < d; k++) Q[(size_t)cl * d + k] += p[k];
            qn[cl]++;
        }
    }
    for (cl = 0; cl < C; cl++)
        if (qn[cl]) {
            n_present++;
            for (k = 0; k < d; k++) Q[(size_t)cl * d + k] /= qn[cl];
        }
    /* The margin. */
    for (cl = 0; cl < C; cl++) {
        double nearest = -1;
        if (!qn[cl]) continue;
        for (c2 = 0; c2 < C; c2++) {
            double dist = 0;
            if (c2 == cl || !qn[c2]) continue;
            for (k = 0; k < d; k++)
                dist += (Q[(size_t)cl * d + k] - Q[(size_t)c2 * d + k]) * (Q[(size_t)cl * d + k] - Q[(size_t)c2 * d + k]);
            dist = sqrt(dist);
            if (cfg->margin_rule) {
                if (dist > gap) gap = dist;
            } else if (nearest < 0 || dist < nearest) {
                nearest = dist;
            }
        }
        if (!cfg->margin_rule && nearest > gap) gap = nearest;
    }
    delta = n_present < 2 ? cfg->tau : FGL__MIN(gap, (double)cfg->tau);
    memset(M, 0, sizeof(float) * (size_t)m * (size_t)C);
    for (i = 0; i < m; i++) M[(size_t)i * C + y[i]] = (float)delta;
    /* Server training, full batch. */
    for (step = 0; step < cfg->server_steps; step++) {
        fgl_tape *t = &s->tape;
        fgl_node *dist, *l;
        fgl_tape_reset(t);
        fgl_params_zero_grad(&s->ps);
        P = fgl__tgp_forward(s);
        dist = fgl_op_add(t, fgl_op_pairwise_dist(t, fgl_op_const(t, U, m, d), P), fgl_op_const(t, M, m, C));
        l = fgl_op_cross_entropy(t, fgl_op_scale(t, dist, -1.0f), y, NULL);
        if (fgl_tape_backward(t, l)) {
            rc = fgl_error_set(&run->err, t->err, "fedtgp: server training: %s", t->msg);
            goto done;
        }
        loss = l->val[0];
        fgl_optim_step(&s->opt, &s->ps);
    }
    fgl_tape_reset(&s->tape);
    P = fgl__tgp_forward(s);
    if (!P || s->tape.err) {
        rc = fgl_error_set(&run->err, s->tape.err ? s->tape.err : FGL_ERR_ARG, "fedtgp: server prototypes: %s", s->tape.msg);
        goto done;
    }
    memcpy(s->global, P->val, sizeof(float) * (size_t)C * (size_t)d);
    for (cl = 0; cl < C; cl++) s->has[cl] = 1;
    s->ready[0] = 1;
    s->last[0] = (float)delta;
    s->last[1] = (float)loss;
done:
    fgl_tape_reset(&s->tape);
    FGL_FREE(U);
    FGL_FREE(M);
    FGL_FREE(y);
    FGL_FREE(Q);
    FGL_FREE(qn);
    return rc;
}

static void fgl__fedproto_report(const fgl_run *run, char *buf, size_t cap) {
    const fgl__proto_server *s = (const fgl__proto_server *)run->server;
    int cl, n = 0;
    if (!s || !cap) return;
    for (cl = 0; cl < s->C; cl++) n += s->has[cl] != 0;
    snprintf(buf, cap, "\"classes\": %d, \"classes_with_prototype\": %d, \"rep_dim\": %d", s->C, n, s->d);
}

static void fgl__fedtgp_report(const fgl_run *run, char *buf, size_t cap) {
    const fgl__proto_server *s = (const fgl__proto_server *)run->server;
    if (!s || !cap) return;
    snprintf(buf, cap, "\"classes\": %d, \"rep_dim\": %d, \"margin\": %.6g, \"server_loss\": %.6g", s->C, s->d,
             (double)s->last[0], (double)s->last[1]);
}

static const fgl_algo_param fgl__fedproto_params[] = {
    {"lambda", FGL_PARAM_FLOAT, FGL__OFF(fgl__proto_config, lambda), 1.0,
     "weight of the prototype term lambda * MSE(rep, P_y) (mean over entries, as the authors' nn.MSELoss)"},
    {"weighted", FGL_PARAM_INT, FGL__OFF(fgl__proto_config, weighted), 1,
     "1: class means weighted by counts (ALGORITHMS.md); 0: plain mean over clients (authors' code)"}};

static const fgl_algo_param fgl__fedtgp_params[] = {
    {"lambda", FGL_PARAM_FLOAT, FGL__OFF(fgl__proto_config, lambda), 1.0,
     "weight of the prototype term lambda * MSE(rep, P_y) (authors' default 1; their script uses 10)"},
    {"server_steps", FGL_PARAM_INT, FGL__OFF(fgl__proto_config, server_steps), 100,
     "full-batch server optimisation steps per round"},
    {"server_lr", FGL_PARAM_FLOAT, FGL__OFF(fgl__proto_config, server_lr), 0.01, "server Adam learning rate"},
    {"tau", FGL_PARAM_FLOAT, FGL__OFF(fgl__proto_config, tau), 100.0, "margin cap (authors' margin_threthold 100)"},
    {"margin_rule", FGL_PARAM_INT, FGL__OFF(fgl__proto_config, margin_rule), 0,
     "0: max over classes of the nearest-class gap (authors' code); 1: largest pairwise gap (paper)"},
    {"server_hidden", FGL_PARAM_INT, FGL__OFF(fgl__proto_config, server_hidden), 0, "MLP hidden width (0: rep width d)"}};

static const fgl_algo fgl__algo_fedproto = {
    "fedproto", "Tan et al. 2022: clients share per-class mean representations; loss CE + lambda ||h - P_y||^2",
    sizeof(fgl__proto_config), fgl__fedproto_params, 2,
    NULL, fgl__fedproto_init, fgl__proto_destroy, fgl__proto_download, fgl__proto_receive, NULL,
    {fgl__proto_loss, NULL, NULL}, fgl__proto_upload, fgl__fedproto_aggregate, NULL, fgl__fedproto_report, NULL};

static const fgl_algo fgl__algo_fedtgp = {
    "fedtgp", "Zhang et al. 2024: FedProto with trainable global prototypes and an adaptive-margin contrastive loss",
    sizeof(fgl__proto_config), fgl__fedtgp_params, 6,
    NULL, fgl__fedtgp_init, fgl__proto_destroy, fgl__proto_download, fgl__proto_receive, NULL,
    {fgl__proto_loss, NULL, NULL}, fgl__proto_upload, fgl__fedtgp_aggregate, NULL, fgl__fedtgp_report, NULL};

#define FGL__DEV_ALGOS_B &fgl__algo_gcfl, &fgl__algo_gcflplus, &fgl__algo_fedproto, &fgl__algo_fedtgp,
