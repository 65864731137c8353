#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Federated splits                                                         */
/* ------------------------------------------------------------------------ */

/* n_lists lists of indices, list i = idx[ptr[i] .. ptr[i+1]-1] (ascending). */
typedef struct fgl_index_lists {
    int n_lists;
    int *ptr;    /* n_lists + 1 */
    int *idx;    /* ptr[n_lists] */
} fgl_index_lists;

FGLDEF void fgl_index_lists_free(fgl_index_lists *l);
/* Lists of the items of each value of assign[0..n-1] (values in 0..k-1). */
FGLDEF int fgl_index_lists_from_assign(const int *assign, int n, int k, fgl_index_lists *out,
                                       fgl_error *err);
/* FED-PUB's overlapping split: fgl_partition_metis into n_clients / 5 parts,
 * then from each part five independent uniform samples of floor(|part| / 2)
 * of its nodes. List 5 p + s is sample s of part p. n_clients must be a
 * positive multiple of 5 with n_clients / 5 <= n. */
FGLDEF int fgl_split_overlapping(const fgl_csr *adj, int n_clients, uint64_t seed,
                                 fgl_index_lists *out, fgl_error *err);
/* Dirichlet(alpha) label skew of n items over n_clients: for every class, a
 * proportion vector p ~ Dir(alpha, ..., alpha) cuts the shuffled items of the
 * class into consecutive runs, one per client. The whole draw is repeated
 * (up to 100 times) until every client holds at least min_per_client items;
 * if no draw does, the last one is rebalanced by moving random items from
 * the currently largest client to each client short of the minimum (so the
 * skew is kept as far as the minimum allows). client_of (n ints) receives
 * each item's client. Labels must lie in 0..n_classes-1;
 * n >= n_clients * min_per_client. */
FGLDEF int fgl_split_dirichlet(const int *labels, int n, int n_classes, int n_clients, double alpha,
                               int min_per_client, uint64_t seed, int *client_of, fgl_error *err);
/* Uniform (IID) split: a random permutation dealt round-robin, so client
 * sizes differ by at most one. */
FGLDEF int fgl_split_iid(int n, int n_clients, uint64_t seed, int *client_of, fgl_error *err);

/* ------------------------------------------------------------------------ */
/* GPFL's protocol: soft Dirichlet split, k-fold CV, client graph properties */
/* ------------------------------------------------------------------------ */
/* (docs/algorithms.md, GPFL protocol.) */

/* GPFL's soft Dirichlet label skew with equal client sizes: client j draws a
 * class prior p_j ~ Dir(alpha, ..., alpha); entries above cap are set to cap
 * and the excess is spread equally over the entries that were not above it;
 * client j gets floor(n / K) items, one more for the first n mod K clients.
 * Items are dealt one at a time: a client chosen uniformly among those
 * still short draws a class from its prior (renormalised over the classes
 * that still have items) and receives a random remaining item of that
 * class. client_of (n ints) receives each item's client. Labels in
 * 0..n_classes-1; 1 <= n_clients <= n; alpha > 0; 1/n_classes <= cap <= 1
 * (the authors use 0.95). */
FGLDEF int fgl_split_dirichlet_equal(const int *labels, int n, int n_classes, int n_clients, double alpha, double cap,
                                     uint64_t seed, int *client_of, fgl_error *err);
/* Stratified k-fold cross-validation of a graph set: the graphs of each
 * class (in a random order drawn from seed) are dealt round-robin over the
 * folds, the dealing continuing from class to class so that fold sizes
 * differ by at most one; fold `fold` becomes FGL_SPLIT_TEST and the others
 * FGL_SPLIT_TRAIN (no validation set). The folds depend on seed only, so
 * calls with fold = 0 .. folds-1 give the folds of one partition.
 * FGL_ERR_ARG unless 2 <= folds and 0 <= fold < folds. */
FGLDEF int fgl_split_graphs_kfold(fgl_graph_set *s, int folds, int fold, uint64_t seed, fgl_error *err);

/* GPFL's six properties of one graph (N nodes, 2|E| adjacency entries,
 * degrees d_i), as the authors' code computes them:
 *   [0] average degree <d> = 2|E| / N
 *   [1] density 2|E| / (N (N - 1))               (0 if N < 2)
 *   [2] degree variance (1/N) sum (d_i - <d>)^2
 *   [3] entropy mean_i(d_i ln d_i) / (2|E|)       (0 if |E| = 0)
 *   [4] "scale-free exponent" -(2 + 1/<d>): a function of <d>, not a fit;
 *       NaN for a graph without edges (fgl_graph_set_gpfl_properties leaves
 *       such graphs out of this property's mean)
 *   [5] mean closeness centrality (fgl_graph_closeness: Wasserman-Faust,
 *       as networkx)
 * These differ from fgl_graph_properties (entropy not divided by N there,
 * scale-free exponent a power-law fit). All 0 for an empty graph. */
#define FGL_GPFL_PROPS 6
FGLDEF int fgl_graph_gpfl_properties(const fgl_csr *adj, double *out, fgl_error *err);
/* Their mean over the graphs of s whose split code is `code` (code < 0:
 * every graph) into out (FGL_GPFL_PROPS doubles). FGL_ERR_EMPTY if there is
 * no such graph. */
FGLDEF int fgl_graph_set_gpfl_properties(const fgl_graph_set *s, int code, double *out, fgl_error *err);

/* ------------------------------------------------------------------------ */
/* Stratified node splits and split statistics (FedPG's protocol; the       */
/* partition statistics of FED-PUB's Table 4)                               */
/* ------------------------------------------------------------------------ */

/* Per-class stratified node split: inside each class (labelled nodes only;
 * y < 0 stays FGL_SPLIT_NONE) a random floor(train n_c) nodes train,
 * floor(val n_c) validate and the rest test (rounded down, as FedPG's code
 * does), so every split keeps the class proportions (FedPG's 20/40/40).
 * FGL_ERR_ARG for bad fractions. */
FGLDEF int fgl_split_nodes_stratified(fgl_node_data *d, double train, double val, uint64_t seed, fgl_error *err);
/* Mean over nodes of the local clustering coefficient (Watts and Strogatz:
 * the fraction of a node's neighbour pairs that are adjacent; nodes of
 * degree < 2 count 0, as networkx's average_clustering) of a symmetric
 * graph without self loops. 0 for an empty graph. */
FGLDEF double fgl_graph_mean_clustering(const fgl_csr *adj);
/* Jensen-Shannon divergence (natural log, in [0, ln 2]) of two
 * distributions given as non-negative weights over n outcomes (normalised
 * here; an all-zero vector gives 0). */
FGLDEF double fgl_js_divergence(const double *p, const double *q, int n);

/* fgl:implementation */
#include "../alone.h"
/* --- federated splits ----------------------------------------------------- */

FGLDEF void fgl_index_lists_free(fgl_index_lists *l) {
    FGL_FREE(l->ptr);
    FGL_FREE(l->idx);
    memset(l, 0, sizeof *l);
}

FGLDEF int fgl_index_lists_from_assign(const int *assign, int n, int k, fgl_index_lists *out, fgl_error *err) {
    int i;
    memset(out, 0, sizeof *out);
    if (n < 0 || k < 1 || (n > 0 && !assign))
        return fgl_error_set(err, FGL_ERR_ARG, "index_lists_from_assign: n = %d, k = %d", n, k);
    for (i = 0; i < n; i++)
        if (assign[i] < 0 || assign[i] >= k)
            return fgl_error_set(err, FGL_ERR_RANGE, "index_lists_from_assign: item %d has list %d of %d", i,
                                 assign[i], k);
    out->ptr = FGL__G_NEW(int, (size_t)k + 1);
    out->idx = FGL__G_NEW(int, n);
    if (!out->ptr || !out->idx) {
        fgl_index_lists_free(out);
        return fgl_error_set(err, FGL_ERR_NOMEM, "index_lists_from_assign: out of memory");
    }
    fgl__g_bucket(assign, n, k, out->ptr, out->idx);
    out->n_lists = k;
    return FGL_OK;
}

FGLDEF int fgl_split_overlapping(const fgl_csr *adj, int n_clients, uint64_t seed, fgl_index_lists *out,
                                 fgl_error *err) {
    int P, n, *part = NULL, *pptr = NULL, *pids = NULL, *pick = NULL, p, s, i, rc, w = 0;
    long long total = 0;
    fgl_rng r;
    memset(out, 0, sizeof *out);
    if (!adj || adj->rows != adj->cols || n_clients < 5 || n_clients % 5)
        return fgl_error_set(err, FGL_ERR_ARG, "split_overlapping: %d clients (need a positive multiple of 5)",
                             n_clients);
    n = adj->rows;
    P = n_clients / 5;
    if (P > n) return fgl_error_set(err, FGL_ERR_ARG, "split_overlapping: %d parts for %d nodes", P, n);
    part = FGL__G_NEW(int, n);
    pptr = FGL__G_NEW(int, (size_t)P + 1);
    pids = FGL__G_NEW(int, n);
    pick = FGL__G_NEW(int, n);
    if (!part || !pptr || !pids || !pick) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "split_overlapping: out of memory");
        goto done;
    }
    rc = fgl_partition_metis(adj, P, seed, part, err);
    if (rc) goto done;
    fgl__g_bucket(part, n, P, pptr, pids);
    for (p = 0; p < P; p++) total += 5 * ((pptr[p + 1] - pptr[p]) / 2);
    out->ptr = FGL__G_NEW(int, (size_t)n_clients + 1);
    out->idx = FGL__G_NEW(int, total);
    if (!out->ptr || !out->idx) {
        fgl_index_lists_free(out);
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "split_overlapping: out of memory");
        goto done;
    }
    fgl_rng_init(&r, seed, FGL__G_ST_SPLIT);
    out->ptr[0] = 0;
    for (p = 0; p < P; p++) {
        int size = pptr[p + 1] - pptr[p], half = size / 2;
        for (s = 0; s < 5; s++) {
            rc = fgl_rng_sample(&r, size, half, pick);
            if (rc) {
                fgl_index_lists_free(out);
                rc = fgl_error_set(err, rc, "split_overlapping: out of memory");
                goto done;
            }
            for (i = 0; i < half; i++) out->idx[w + i] = pids[pptr[p] + pick[i]];
            fgl__g_sort_ints(out->idx + w, (size_t)half);
            w += half;
            out->ptr[5 * p + s + 1] = w;
        }
    }
    out->n_lists = n_clients;
    rc = FGL_OK;
done:
    FGL_FREE(part);
    FGL_FREE(pptr);
    FGL_FREE(pids);
    FGL_FREE(pick);
    return rc;
}

FGLDEF int fgl_split_dirichlet(const int *labels, int n, int n_classes, int n_clients, double alpha,
                               int min_per_client, uint64_t seed, int *client_of, fgl_error *err) {
    int K = n_clients, C = n_classes, *cptr = NULL, *cids = NULL, *count = NULL, i, c, j, t, rc = FGL_OK;
    double *a = NULL, *p = NULL;
    fgl_rng r;
    if (n < 0 || C < 1 || K < 1 || !(alpha > 0) || min_per_client < 0 || (n > 0 && (!labels || !client_of)))
        return fgl_error_set(err, FGL_ERR_ARG,
                             "split_dirichlet: n = %d, %d classes, %d clients, alpha = %g, minimum %d", n, C, K, alpha,
                             min_per_client);
    if ((long long)K * min_per_client > n)
        return fgl_error_set(err, FGL_ERR_ARG, "split_dirichlet: %d clients x %d items exceed the %d items", K,
                             min_per_client, n);
    for (i = 0; i < n; i++)
        if (labels[i] < 0 || labels[i] >= C)
            return fgl_error_set(err, FGL_ERR_RANGE, "split_dirichlet: item %d has label %d of %d classes", i,
                                 labels[i], C);
    cptr = FGL__G_NEW(int, (size_t)C + 1);
    cids = FGL__G_NEW(int, n);
    count = FGL__G_NEW(int, K);
    a = FGL__G_NEW(double, K);
    p = FGL__G_NEW(double, K);
    if (!cptr || !cids || !count || !a || !p) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "split_dirichlet: out of memory");
        goto done;
    }
    fgl__g_bucket(labels, n, C, cptr, cids);
    for (j = 0; j < K; j++) a[j] = alpha;
    fgl_rng_init(&r, seed, FGL__G_ST_SPLIT);
    for (t = 0; t < 100; t++) {
        int low = INT_MAX;
        memset(count, 0, sizeof(int) * (size_t)K);
        for (c = 0; c < C; c++) {
            int nc = cptr[c + 1] - cptr[c], start = 0;
            double cum = 0;
            fgl_rng_shuffle(&r, cids + cptr[c], nc);
            fgl_rng_dirichlet(&r, a, K, p);
            for (j = 0; j < K; j++) {
                int end;
                cum += p[j];
                end = j == K - 1 ? nc : (int)floor(cum * nc + 0.5);
                if (end > nc) end = nc;
                if (end < start) end = start;
                for (i = start; i < end; i++) client_of[cids[cptr[c] + i]] = j;
                count[j] += end - start;
                start = end;
            }
        }
        for (j = 0; j < K; j++)
            if (count[j] < low) low = count[j];
        if (low >= min_per_client) goto done;
    }
    /* no draw met the minimum: move random items of the largest client */
    for (j = 0; j < K; j++)
        while (count[j] < min_per_client) {
            int donor = 0, pickn, q;
            for (i = 1; i < K; i++)
                if (count[i] > count[donor]) donor = i;
            pickn = (int)fgl_rng_below(&r, (uint64_t)count[donor]);
            for (q = 0; q < n; q++)
                if (client_of[q] == donor && pickn-- == 0) break;
            client_of[q] = j;
            count[donor]--;
            count[j]++;
        }
done:
    FGL_FREE(cptr);
    FGL_FREE(cids);
    FGL_FREE(count);
    FGL_FREE(a);
    FGL_FREE(p);
    return rc;
}

FGLDEF int fgl_split_iid(int n, int n_clients, uint64_t seed, int *client_of, fgl_error *err) {
    int *perm, i;
    fgl_rng r;
    if (n < 0 || n_clients < 1 || (n > 0 && !client_of))
        return fgl_error_set(err, FGL_ERR_ARG, "split_iid: n = %d, %d clients", n, n_clients);
    perm = FGL__G_NEW(int, n);
    if (!perm) return fgl_error_set(err, FGL_ERR_NOMEM, "split_iid: out of memory");
    for (i = 0; i < n; i++) perm[i] = i;
    fgl_rng_init(&r, seed, FGL__G_ST_SPLIT);
    fgl_rng_shuffle(&r, perm, n);
    for (i = 0; i < n; i++) client_of[perm[i]] = i % n_clients;
    FGL_FREE(perm);
    return FGL_OK;
}

/* --- GPFL's protocol: soft Dirichlet split, k-fold CV, graph properties ----------- */
/* Public fgl_ functions and FGL_MALLOC / FGL_FREE only. */

FGLDEF int fgl_split_dirichlet_equal(const int *labels, int n, int n_classes, int n_clients, double alpha, double cap,
                                     uint64_t seed, int *client_of, fgl_error *err) {
    int K = n_clients, C = n_classes, i, j, c, rc = FGL_OK, left = n, n_open = K;
    int *pool = NULL, *start = NULL, *avail = NULL, *slots = NULL, *open = NULL;
    double *a = NULL, *prior = NULL, *w = NULL;
    fgl_rng r;
    if (n < 1 || C < 1 || K < 1 || K > n || !(alpha > 0) || !(cap * C >= 1.0 - 1e-12 && cap <= 1.0) || !labels ||
        !client_of)
        return fgl_error_set(err, FGL_ERR_ARG,
                             "split_dirichlet_equal: n = %d, %d classes, %d clients, alpha = %g, "
                             "cap = %g (need 1 <= clients <= n, alpha > 0, 1/classes <= cap <= 1)",
                             n, C, K, alpha, cap);
    for (i = 0; i < n; i++)
        if (labels[i] < 0 || labels[i] >= C)
            return fgl_error_set(err, FGL_ERR_RANGE, "split_dirichlet_equal: item %d has label %d of %d classes", i,
                                 labels[i], C);
    pool = (int *)FGL_MALLOC(sizeof(int) * (size_t)n);
    start = (int *)FGL_MALLOC(sizeof(int) * ((size_t)C + 1));
    avail = (int *)FGL_MALLOC(sizeof(int) * (size_t)C);
    slots = (int *)FGL_MALLOC(sizeof(int) * (size_t)K);
    open = (int *)FGL_MALLOC(sizeof(int) * (size_t)K);
    a = (double *)FGL_MALLOC(sizeof(double) * (size_t)C);
    prior = (double *)FGL_MALLOC(sizeof(double) * (size_t)K * (size_t)C);
    w = (double *)FGL_MALLOC(sizeof(double) * (size_t)C);
    if (!pool || !start || !avail || !slots || !open || !a || !prior || !w) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "split_dirichlet_equal: out of memory");
        goto done;
    }
    fgl_rng_init(&r, seed, 0x47504c4653ull); /* "GPLFS" */
    /* the class priors, capped */
    for (c = 0; c < C; c++) a[c] = alpha;
    for (j = 0; j < K; j++) {
        double *p = prior + (size_t)j * C, excess = 0;
        int below = 0;
        fgl_rng_dirichlet(&r, a, C, p);
        for (c = 0; c < C; c++) {
            if (p[c] > cap) excess += p[c] - cap;
            else below++;
        }
        for (c = 0; c < C && excess > 0; c++) p[c] = p[c] > cap ? cap : p[c] + excess / below;
    }
    /* every class's items in a random order */
    memset(avail, 0, sizeof(int) * (size_t)C);
    for (i = 0; i < n; i++) avail[labels[i]]++;
    start[0] = 0;
    for (c = 0; c < C; c++) start[c + 1] = start[c] + avail[c];
    for (c = 0; c < C; c++) avail[c] = 0;
    for (i = 0; i < n; i++) pool[start[labels[i]] + avail[labels[i]]++] = i;
    for (c = 0; c < C; c++) fgl_rng_shuffle(&r, pool + start[c], avail[c]);
    /* equal sizes, then one item at a time */
    for (j = 0; j < K; j++) {
        slots[j] = n / K + (j < n % K);
        open[j] = j;
    }
    while (left > 0) {
        int q = (int)fgl_rng_below(&r, (uint64_t)n_open), cl = -1;
        double tot = 0, u, cum = 0;
        const double *p;
        j = open[q];
        p = prior + (size_t)j * C;
        for (c = 0; c < C; c++) tot += w[c] = avail[c] > 0 ? p[c] : 0.0;
        if (!(tot > 0)) /* no prior mass on the classes left: uniform over them */
            for (c = 0, tot = 0; c < C; c++) tot += w[c] = avail[c] > 0 ? 1.0 : 0.0;
        u = fgl_rng_uniform(&r) * tot;
        for (c = 0; c < C; c++) {
            if (w[c] <= 0) continue;
            cl = c;
            cum += w[c];
            if (u < cum) break;
        }
        client_of[pool[start[cl] + --avail[cl]]] = j;
        left--;
        if (--slots[j] == 0) open[q] = open[--n_open];
    }
done:
    FGL_FREE(pool);
    FGL_FREE(start);
    FGL_FREE(avail);
    FGL_FREE(slots);
    FGL_FREE(open);
    FGL_FREE(a);
    FGL_FREE(prior);
    FGL_FREE(w);
    return rc;
}

FGLDEF int fgl_split_graphs_kfold(fgl_graph_set *s, int folds, int fold, uint64_t seed, fgl_error *err) {
    int G = s->n_graphs, c, g, pos = 0, *idx;
    fgl_rng r;
    if (folds < 2 || fold < 0 || fold >= folds)
        return fgl_error_set(err, FGL_ERR_ARG, "kfold: need 2 <= folds and 0 <= fold < folds (got %d, %d)", folds,
                             fold);
    if (G > 0 && !s->y) return fgl_error_set(err, FGL_ERR_ARG, "kfold: the graph set has no labels");
    if (!s->split) {
        s->split = (unsigned char *)FGL_MALLOC((size_t)(G > 0 ? G : 1));
        if (!s->split) return fgl_error_set(err, FGL_ERR_NOMEM, "kfold: out of memory (%d graphs)", G);
    }
    idx = (int *)FGL_MALLOC(sizeof(int) * (size_t)(G > 0 ? G : 1));
    if (!idx) return fgl_error_set(err, FGL_ERR_NOMEM, "kfold: out of memory (%d graphs)", G);
    fgl_rng_init(&r, seed, 0x4b464f4c44ull); /* "KFOLD" */
    for (g = 0; g < G; g++) s->split[g] = FGL_SPLIT_NONE;
    for (c = 0; c < s->n_classes; c++) {
        int m = 0, i;
        for (g = 0; g < G; g++)
            if (s->y[g] == c) idx[m++] = g;
        fgl_rng_shuffle(&r, idx, m);
        for (i = 0; i < m; i++, pos++)
            s->split[idx[i]] = (unsigned char)(pos % folds == fold ? FGL_SPLIT_TEST : FGL_SPLIT_TRAIN);
    }
    FGL_FREE(idx);
    return FGL_OK;
}

FGLDEF int fgl_graph_gpfl_properties(const fgl_csr *adj, double *out, fgl_error *err) {
    int N, i, rc;
    double twoE, mean, var = 0, dlnd = 0;
    if (!adj || adj->rows != adj->cols || !out)
        return fgl_error_set(err, FGL_ERR_ARG, "gpfl_properties: need a square adjacency and an output");
    for (i = 0; i < FGL_GPFL_PROPS; i++) out[i] = 0;
    N = adj->rows;
    if (N == 0) return FGL_OK;
    twoE = (double)adj->nnz;
    mean = twoE / N;
    for (i = 0; i < N; i++) {
        double d = (double)(adj->indptr[i + 1] - adj->indptr[i]);
        var += (d - mean) * (d - mean);
        if (d > 0) dlnd += d * log(d);
    }
    out[0] = mean;
    out[1] = N > 1 ? twoE / ((double)N * (N - 1)) : 0.0;
    out[2] = var / N;
    out[3] = twoE > 0 ? dlnd / N / twoE : 0.0;
    out[4] = mean > 0 ? -(2.0 + 1.0 / mean) : NAN;
    if ((rc = fgl_graph_closeness(adj, NULL, &out[5])))
        return fgl_error_set(err, rc, "gpfl_properties: out of memory (%d nodes)", N);
    return FGL_OK;
}

FGLDEF int fgl_graph_set_gpfl_properties(const fgl_graph_set *s, int code, double *out, fgl_error *err) {
    double sum[FGL_GPFL_PROPS], p[FGL_GPFL_PROPS];
    int cnt[FGL_GPFL_PROPS], g, k, *nodes = NULL, cap = 0, rc = FGL_OK, used = 0;
    fgl_csr sub;
    memset(&sub, 0, sizeof sub);
    for (k = 0; k < FGL_GPFL_PROPS; k++) {
        sum[k] = 0;
        cnt[k] = 0;
        out[k] = 0;
    }
    if (code >= 0 && !s->split) return fgl_error_set(err, FGL_ERR_ARG, "%s: no split to choose graphs from", s->name);
    for (g = 0; g < s->n_graphs && !rc; g++) {
        int n = s->node_ptr[g + 1] - s->node_ptr[g], i;
        if (code >= 0 && s->split[g] != code) continue;
        if (n > cap || !nodes) {
            FGL_FREE(nodes);
            cap = n > 1 ? n : 1;
            if (!(nodes = (int *)FGL_MALLOC(sizeof(int) * (size_t)cap))) {
                rc = fgl_error_set(err, FGL_ERR_NOMEM, "gpfl_properties: out of memory");
                break;
            }
        }
        for (i = 0; i < n; i++) nodes[i] = s->node_ptr[g] + i;
        if ((rc = fgl_graph_subgraph(&s->adj, nodes, n, &sub, NULL, err))) break;
        rc = fgl_graph_gpfl_properties(&sub, p, err);
        fgl_csr_free(&sub);
        for (k = 0; k < FGL_GPFL_PROPS && !rc; k++)
            if (p[k] == p[k]) { /* the exponent of a graph without edges (NaN) is left out */
                sum[k] += p[k];
                cnt[k]++;
            }
        used++;
    }
    FGL_FREE(nodes);
    if (rc) return rc;
    if (!used) return fgl_error_set(err, FGL_ERR_EMPTY, "%s: no graph with split code %d", s->name, code);
    for (k = 0; k < FGL_GPFL_PROPS; k++) out[k] = cnt[k] ? sum[k] / cnt[k] : 0.0;
    return FGL_OK;
}

/* --- stratified node splits and split statistics ------------------------------ */

FGLDEF int fgl_split_nodes_stratified(fgl_node_data *d, double train, double val, uint64_t seed, fgl_error *err) {
    int *idx, i, c, C = 0, n = d->n_nodes;
    fgl_rng r;
    if (!(train >= 0 && val >= 0 && train + val <= 1.0 + 1e-9))
        return fgl_error_set(err, FGL_ERR_ARG, "stratified split: fractions train %g, val %g (need >= 0, sum <= 1)",
                             train, val);
    if (n > 0 && !d->y) return fgl_error_set(err, FGL_ERR_ARG, "stratified split: the nodes have no labels");
    if (!d->split) {
        d->split = (unsigned char *)FGL_MALLOC((size_t)(n > 0 ? n : 1));
        if (!d->split) return fgl_error_set(err, FGL_ERR_NOMEM, "stratified split: out of memory (%d nodes)", n);
    }
    idx = (int *)FGL_MALLOC(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!idx) return fgl_error_set(err, FGL_ERR_NOMEM, "stratified split: out of memory (%d nodes)", n);
    for (i = 0; i < n; i++) {
        d->split[i] = FGL_SPLIT_NONE;
        if (d->y && d->y[i] + 1 > C) C = d->y[i] + 1;
    }
    fgl_rng_init(&r, seed, 0x5374726174ull); /* "Strat" */
    for (c = 0; c < C; c++) {
        int m = 0, ntr, nva;
        for (i = 0; i < n; i++)
            if (d->y[i] == c) idx[m++] = i;
        fgl_rng_shuffle(&r, idx, m);
        ntr = (int)floor(train * m + 1e-9);
        nva = (int)floor(val * m + 1e-9);
        if (ntr > m) ntr = m;
        if (nva > m - ntr) nva = m - ntr;
        for (i = 0; i < m; i++)
            d->split[idx[i]] = (unsigned char)(i < ntr         ? FGL_SPLIT_TRAIN
                                               : i < ntr + nva ? FGL_SPLIT_VAL
                                                               : FGL_SPLIT_TEST);
    }
    FGL_FREE(idx);
    return FGL_OK;
}

FGLDEF double fgl_graph_mean_clustering(const fgl_csr *adj) {
    int n = adj->rows, v, k, q;
    double total = 0;
    unsigned char *mark;
    if (n <= 0) return 0.0;
    mark = (unsigned char *)FGL_MALLOC((size_t)n);
    if (!mark) return NAN;
    memset(mark, 0, (size_t)n);
    for (v = 0; v < n; v++) {
        long deg = adj->indptr[v + 1] - adj->indptr[v], links = 0;
        if (deg < 2) continue;
        for (k = adj->indptr[v]; k < adj->indptr[v + 1]; k++) mark[adj->indices[k]] = 1;
        for (k = adj->indptr[v]; k < adj->indptr[v + 1]; k++) {
            int u = adj->indices[k];
            for (q = adj->indptr[u]; q < adj->indptr[u + 1]; q++) links += mark[adj->indices[q]];
        }
        for (k = adj->indptr[v]; k < adj->indptr[v + 1]; k++) mark[adj->indices[k]] = 0;
        total += (double)links / ((double)deg * (double)(deg - 1)); /* each link seen from both ends */
    }
    FGL_FREE(mark);
    return total / n;
}

FGLDEF double fgl_js_divergence(const double *p, const double *q, int n) {
    double sp = 0, sq = 0, js = 0;
    int i;
    for (i = 0; i < n; i++) {
        sp += p[i];
        sq += q[i];
    }
    if (!(sp > 0) || !(sq > 0)) return 0.0;
    for (i = 0; i < n; i++) {
        double a = p[i] / sp, b = q[i] / sq, m = 0.5 * (a + b);
        if (a > 0) js += 0.5 * a * log(a / m);
        if (b > 0) js += 0.5 * b * log(b / m);
    }
    return js;
}

#include "../alone.h"
