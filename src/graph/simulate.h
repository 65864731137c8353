#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* OpenFGL's data simulations                                               */
/* ------------------------------------------------------------------------ */
/* The federated data simulations of OpenFGL (Li et al., "OpenFGL: A
 * Comprehensive Benchmark for Federated Graph Learning", 2024; its
 * openfgl/data/simulation.py), written afresh from their definitions
 * (docs/algorithms.md, "OpenFGL's data simulations"): Louvain+ and Metis+
 * (communities grouped by their label distributions), label skew with
 * client capacities, and the graph-level topology and feature skews (graphs
 * sorted by a statistic and dealt out in contiguous runs). fgl_scenario_make
 * uses them for --split louvain-plus, metis-plus, label-skew, topology-skew
 * and feature-skew. */

/* OpenFGL's Louvain+ / Metis+ grouping: the communities comm[0..n-1] (ids
 * 0..n_comm-1) become k clients by their label distributions. Each
 * community's histogram of labels (labels outside 0..n_classes-1 are not
 * counted; a community with none is the zero vector), divided by its sum, is
 * a point of R^n_classes, one point per community whatever its size; k-means
 * clusters the points into k groups (k-means++ seeding from seed, Lloyd's
 * iterations until no point changes group or 300 iterations, an emptied
 * group refilled by the point farthest from its centre; the best of 10
 * seedings by the sum of squared distances); client j receives every node of
 * every community of group j. FGL_ERR_ARG when fewer than k communities, or
 * fewer than k distinct distributions, exist (some client would be empty).
 * client_of (n ints) receives each node's client. */
FGLDEF int fgl_split_group_communities(const int *comm, int n, int n_comm, const int *labels, int n_classes, int k,
                                       uint64_t seed, int *client_of, fgl_error *err);
/* OpenFGL's label skew (subgraph_fl_label_skew, graph_fl_label_skew): for
 * every class in turn, a proportion vector p ~ Dir(alpha, ..., alpha) over
 * the k clients, with p_j set to 0 for every client already holding at
 * least n / k items (a capacity), renormalised, cuts the class's shuffled
 * items into consecutive runs, client j's run ending at floor(n_c x (p_1 +
 * ... + p_j)) and the last client with a positive share taking the rest. The
 * whole draw is repeated until every client holds at least min_per_client
 * items, at most `tries` times; if no draw does, FGL_ERR_ARG says so (no
 * rebalancing: OpenFGL stops there too). Labels in 0..n_classes-1; 1 <= k;
 * k x min_per_client <= n; alpha > 0; tries >= 1. */
FGLDEF int fgl_split_label_skew(const int *labels, int n, int n_classes, int k, double alpha, int min_per_client,
                                int tries, uint64_t seed, int *client_of, fgl_error *err);
/* OpenFGL's sorted split (graph_fl_topology_skew, graph_fl_feature_skew):
 * the n items in increasing order of stat (ties in increasing index: a
 * stable sort) are cut into k consecutive runs of floor(n / k), the last run
 * taking the rest; run j is client j's, so client j's statistics all lie at
 * or below client j+1's. 1 <= k <= n; a NaN statistic is FGL_ERR_ARG. */
FGLDEF int fgl_split_sorted(const double *stat, int n, int k, int *client_of, fgl_error *err);
/* Per graph of s: its mean degree, the adjacency entries of its nodes over
 * its nodes (2 E / N for E undirected edges without self loops; 0 for a
 * graph without nodes): OpenFGL's topology statistic. */
FGLDEF void fgl_graph_set_mean_degrees(const fgl_graph_set *s, double *out);
/* Per graph of s: the mean of all entries of its node feature matrix, the
 * node attributes (node_attr, when the set has them) beside the features x
 * (one-hot node labels or degrees): OpenFGL's feature statistic (its TU
 * graphs carry the attributes and the one-hot labels). FGL_ERR_ARG when s
 * has no features x yet. With one-hot features alone every graph's mean is
 * 1 / n_feat, so the statistic ties everywhere and the split is the stored
 * order (as OpenFGL's stable sort). */
FGLDEF int fgl_graph_set_mean_features(const fgl_graph_set *s, double *out, fgl_error *err);

/* fgl:implementation */
#include "../alone.h"
/* --- OpenFGL's data simulations ----------------------------------------------------- */

#define FGL__SIM_ST_KMEANS 0x4b4d45414e53ull /* "KMEANS" */
#define FGL__SIM_ST_SKEW 0x534b4557ull       /* "SKEW" */

static double fgl__sim_d2(const double *a, const double *b, int d) {
    double s = 0;
    int i;
    for (i = 0; i < d; i++) s += (a[i] - b[i]) * (a[i] - b[i]);
    return s;
}

/* One k-means run over the m points pts (m x d) from a k-means++ seeding:
 * assign (m ints) receives the groups, the return value the sum of squared
 * distances. cen (k x d), dist (m) and cnt (k) are scratch. The caller has
 * checked that at least k points differ. */
static double fgl__sim_kmeans_run(const double *pts, int m, int d, int k, fgl_rng *r, int *assign, double *cen,
                                  double *dist, int *cnt) {
    int i, j, c, it, first = (int)fgl_rng_below(r, (uint64_t)m);
    double inertia = 0;
    memcpy(cen, pts + (size_t)first * d, sizeof(double) * (size_t)d);
    for (i = 0; i < m; i++) dist[i] = fgl__sim_d2(pts + (size_t)i * d, cen, d);
    for (c = 1; c < k; c++) { /* the next centre with probability proportional to the squared distance */
        double tot = 0, u;
        int pick = -1;
        for (i = 0; i < m; i++) tot += dist[i];
        u = fgl_rng_uniform(r) * tot;
        for (i = 0; i < m; i++) {
            if (dist[i] <= 0) continue;
            pick = i;
            if (u < dist[i]) break;
            u -= dist[i];
        }
        memcpy(cen + (size_t)c * d, pts + (size_t)pick * d, sizeof(double) * (size_t)d);
        for (i = 0; i < m; i++) {
            double e = fgl__sim_d2(pts + (size_t)i * d, cen + (size_t)c * d, d);
            if (e < dist[i]) dist[i] = e;
        }
    }
    for (i = 0; i < m; i++) assign[i] = -1;
    for (it = 0; it < 300; it++) {
        int moved = 0;
        for (i = 0; i < m; i++) { /* the nearest centre (ties: the lower group) */
            int best = 0;
            double bd = fgl__sim_d2(pts + (size_t)i * d, cen, d);
            for (c = 1; c < k; c++) {
                double e = fgl__sim_d2(pts + (size_t)i * d, cen + (size_t)c * d, d);
                if (e < bd) {
                    bd = e;
                    best = c;
                }
            }
            dist[i] = bd;
            moved += assign[i] != best;
            assign[i] = best;
        }
        memset(cnt, 0, sizeof(int) * (size_t)k);
        for (i = 0; i < m; i++) cnt[assign[i]]++;
        for (c = 0; c < k; c++) { /* an empty group takes the point farthest from its centre (of a group of 2+) */
            int far = -1;
            if (cnt[c]) continue;
            for (i = 0; i < m; i++)
                if (cnt[assign[i]] > 1 && (far < 0 || dist[i] > dist[far])) far = i;
            cnt[assign[far]]--;
            assign[far] = c;
            dist[far] = 0;
            cnt[c] = 1;
            moved++;
        }
        if (!moved) break;
        memset(cen, 0, sizeof(double) * (size_t)k * (size_t)d);
        for (i = 0; i < m; i++)
            for (j = 0; j < d; j++) cen[(size_t)assign[i] * d + j] += pts[(size_t)i * d + j];
        for (c = 0; c < k; c++)
            for (j = 0; j < d; j++) cen[(size_t)c * d + j] /= cnt[c];
    }
    for (i = 0; i < m; i++) inertia += fgl__sim_d2(pts + (size_t)i * d, cen + (size_t)assign[i] * d, d);
    return inertia;
}

FGLDEF int fgl_split_group_communities(const int *comm, int n, int n_comm, const int *labels, int n_classes, int k,
                                       uint64_t seed, int *client_of, fgl_error *err) {
    int m = n_comm, d = n_classes > 0 ? n_classes : 1, i, j, t, distinct = 0, rc = FGL_OK;
    double *pts = NULL, *cen = NULL, *dist = NULL, best = 0;
    int *assign = NULL, *keep = NULL, *cnt = NULL;
    fgl_rng r;
    if (n < 1 || m < 1 || k < 1 || n_classes < 1 || !comm || !labels || !client_of)
        return fgl_error_set(err, FGL_ERR_ARG, "group communities: %d nodes, %d communities, %d classes, %d clients",
                             n, m, n_classes, k);
    if (k > m)
        return fgl_error_set(err, FGL_ERR_ARG, "group communities: %d communities cannot fill %d clients (each client "
                             "gets whole communities)", m, k);
    pts = FGL__G_NEW2(double, m, d);
    cen = FGL__G_NEW2(double, k, d);
    dist = FGL__G_NEW(double, m);
    assign = FGL__G_NEW(int, m);
    keep = FGL__G_NEW(int, m);
    cnt = FGL__G_NEW(int, k);
    if (!pts || !cen || !dist || !assign || !keep || !cnt) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "group communities: out of memory");
        goto done;
    }
    memset(pts, 0, sizeof(double) * (size_t)m * (size_t)d);
    for (i = 0; i < n; i++) {
        if (comm[i] < 0 || comm[i] >= m) {
            rc = fgl_error_set(err, FGL_ERR_RANGE, "group communities: node %d is in community %d of %d", i, comm[i], m);
            goto done;
        }
        if (labels[i] >= 0 && labels[i] < n_classes) pts[(size_t)comm[i] * d + labels[i]] += 1;
    }
    for (i = 0; i < m; i++) { /* each community's label distribution */
        double s = 0;
        for (j = 0; j < d; j++) s += pts[(size_t)i * d + j];
        for (j = 0; s > 0 && j < d; j++) pts[(size_t)i * d + j] /= s;
    }
    for (i = 0; i < m && distinct < k; i++) { /* are there k different points? */
        for (j = 0; j < i; j++)
            if (!memcmp(pts + (size_t)i * d, pts + (size_t)j * d, sizeof(double) * (size_t)d)) break;
        distinct += j == i;
    }
    if (distinct < k) {
        rc = fgl_error_set(err, FGL_ERR_ARG, "group communities: the %d communities have %d distinct label "
                           "distributions, fewer than the %d clients (some client would be empty): fewer clients, or "
                           "more communities", m, distinct, k);
        goto done;
    }
    fgl_rng_init(&r, seed, FGL__SIM_ST_KMEANS);
    for (t = 0; t < 10; t++) {
        double in = fgl__sim_kmeans_run(pts, m, d, k, &r, assign, cen, dist, cnt);
        if (t == 0 || in < best) {
            best = in;
            memcpy(keep, assign, sizeof(int) * (size_t)m);
        }
    }
    for (i = 0; i < n; i++) client_of[i] = keep[comm[i]];
done:
    FGL_FREE(pts);
    FGL_FREE(cen);
    FGL_FREE(dist);
    FGL_FREE(assign);
    FGL_FREE(keep);
    FGL_FREE(cnt);
    return rc;
}

FGLDEF int fgl_split_label_skew(const int *labels, int n, int n_classes, int k, double alpha, int min_per_client,
                                int tries, uint64_t seed, int *client_of, fgl_error *err) {
    int C = n_classes, *cptr = NULL, *cids = NULL, *count = NULL, i, c, j, t, low = 0, rc = FGL_OK;
    double *a = NULL, *p = NULL, cap = (double)n / (k > 0 ? k : 1);
    fgl_rng r;
    if (n < 1 || C < 1 || k < 1 || !(alpha > 0) || min_per_client < 0 || tries < 1 || !labels || !client_of)
        return fgl_error_set(err, FGL_ERR_ARG, "label skew: %d items, %d classes, %d clients, alpha %g, minimum %d, "
                             "%d tries (need alpha > 0)", n, C, k, alpha, min_per_client, tries);
    if ((long long)k * min_per_client > n)
        return fgl_error_set(err, FGL_ERR_ARG, "label skew: %d clients x %d items at least exceed the %d items", k,
                             min_per_client, n);
    for (i = 0; i < n; i++)
        if (labels[i] < 0 || labels[i] >= C)
            return fgl_error_set(err, FGL_ERR_RANGE, "label skew: item %d has label %d of %d classes", i, labels[i], C);
    cptr = FGL__G_NEW(int, (size_t)C + 1);
    cids = FGL__G_NEW(int, n);
    count = FGL__G_NEW(int, k);
    a = FGL__G_NEW(double, k);
    p = FGL__G_NEW(double, k);
    if (!cptr || !cids || !count || !a || !p) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "label skew: out of memory");
        goto done;
    }
    for (j = 0; j < k; j++) a[j] = alpha;
    fgl_rng_init(&r, seed, FGL__SIM_ST_SKEW);
    for (t = 0; t < tries; t++) {
        fgl__g_bucket(labels, n, C, cptr, cids); /* every class's items in increasing order, then shuffled */
        memset(count, 0, sizeof(int) * (size_t)k);
        for (c = 0; c < C; c++) {
            int nc = cptr[c + 1] - cptr[c], start = 0, last = -1;
            double tot = 0, cum = 0;
            fgl_rng_shuffle(&r, cids + cptr[c], nc);
            fgl_rng_dirichlet(&r, a, k, p);
            for (j = 0; j < k; j++) { /* clients at capacity take no more */
                if (!(count[j] < cap)) p[j] = 0;
                tot += p[j];
                if (p[j] > 0) last = j;
            }
            if (!(tot > 0)) { /* every open client drew an underflowing share: the first open one takes the class */
                for (j = 0; j < k; j++) p[j] = 0;
                for (j = 0; j < k && !(count[j] < cap); j++) {
                }
                p[j] = tot = 1;
                last = j;
            }
            for (j = 0; j < k; j++) {
                int end;
                cum += p[j];
                end = j >= last ? nc : (int)floor((double)nc * (cum / tot));
                if (end > nc) end = nc;
                if (end < start) end = start;
                for (i = start; i < end; i++) client_of[cids[cptr[c] + i]] = j;
                count[j] += end - start;
                start = end;
            }
        }
        for (low = count[0], j = 1; j < k; j++)
            if (count[j] < low) low = count[j];
        if (low >= min_per_client) goto done;
    }
    rc = fgl_error_set(err, FGL_ERR_ARG, "label skew: none of %d draws gave every client %d items or more (the last: "
                       "a client with %d): raise --alpha (%g), lower --min-per-client or use fewer clients (%d)", tries,
                       min_per_client, low, alpha, k);
done:
    FGL_FREE(cptr);
    FGL_FREE(cids);
    FGL_FREE(count);
    FGL_FREE(a);
    FGL_FREE(p);
    return rc;
}

FGLDEF int fgl_split_sorted(const double *stat, int n, int k, int *client_of, fgl_error *err) {
    int *ord, *tmp, i, w, len;
    if (n < 1 || k < 1 || k > n || !stat || !client_of)
        return fgl_error_set(err, FGL_ERR_ARG, "sorted split: %d clients for %d items (need 1 <= clients <= items)", k,
                             n);
    for (i = 0; i < n; i++)
        if (stat[i] != stat[i]) return fgl_error_set(err, FGL_ERR_ARG, "sorted split: item %d's statistic is NaN", i);
    ord = FGL__G_NEW(int, n);
    tmp = FGL__G_NEW(int, n);
    if (!ord || !tmp) {
        FGL_FREE(ord);
        FGL_FREE(tmp);
        return fgl_error_set(err, FGL_ERR_NOMEM, "sorted split: out of memory");
    }
    for (i = 0; i < n; i++) ord[i] = i;
    for (w = 1; w < n; w *= 2) { /* bottom-up merge sort: stable */
        int lo;
        for (lo = 0; lo < n; lo += 2 * w) {
            int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, a = lo, b = mid, q = lo;
            while (a < mid && b < hi) tmp[q++] = stat[ord[b]] < stat[ord[a]] ? ord[b++] : ord[a++];
            while (a < mid) tmp[q++] = ord[a++];
            while (b < hi) tmp[q++] = ord[b++];
        }
        memcpy(ord, tmp, sizeof(int) * (size_t)n);
    }
    len = n / k;
    for (i = 0; i < n; i++) client_of[ord[i]] = i / len < k ? i / len : k - 1;
    FGL_FREE(ord);
    FGL_FREE(tmp);
    return FGL_OK;
}

FGLDEF void fgl_graph_set_mean_degrees(const fgl_graph_set *s, double *out) {
    int g;
    for (g = 0; g < s->n_graphs; g++) {
        int a = s->node_ptr[g], b = s->node_ptr[g + 1];
        out[g] = b > a ? (double)(s->adj.indptr[b] - s->adj.indptr[a]) / (double)(b - a) : 0;
    }
}

FGLDEF int fgl_graph_set_mean_features(const fgl_graph_set *s, double *out, fgl_error *err) {
    int g, i, j, na = s->node_attr ? s->n_node_attr : 0;
    if (!s->x || s->n_feat < 1) return fgl_error_set(err, FGL_ERR_ARG, "%s: no node features to average", s->name);
    for (g = 0; g < s->n_graphs; g++) {
        int a = s->node_ptr[g], b = s->node_ptr[g + 1];
        double sum = 0;
        for (i = a; i < b; i++) {
            for (j = 0; j < na; j++) sum += s->node_attr[(size_t)i * na + j];
            for (j = 0; j < s->n_feat; j++) sum += s->x[(size_t)i * s->n_feat + j];
        }
        out[g] = b > a ? sum / ((double)(b - a) * (double)(na + s->n_feat)) : 0;
    }
    return FGL_OK;
}
#include "../alone.h"
