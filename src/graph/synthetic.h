#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Synthetic federated benchmarks                                           */
/* ------------------------------------------------------------------------ */

/* One graph for node classification with planted communities: each node
 * belongs to one of n_communities (near-equal sizes, node ids shuffled) and
 * has a class drawn from its community's class distribution pi_c ~
 * Dirichlet(label_alpha), so per-community clients are non-IID. Edges: E =
 * round(n avg_degree / 2) draws; one end u uniform, the other inside u's
 * community with probability 1 - mixing (else in another community), and of
 * u's class with probability homophily (else uniform in that pool); repeats
 * and self loops dropped, so the mean degree ends slightly below avg_degree.
 * Features (dense): x = mu_y + nu_c + feat_noise * N(0, I) with class means
 * mu_y ~ N(0, feat_signal^2 / (2 n_feat) I) (two class means are about
 * feat_signal apart) and community offsets nu_c ~ N(0, feat_shift^2 / n_feat
 * I) (a covariate shift between communities). Features alone classify
 * moderately; averaging over neighbours (homophily) does much better. */
typedef struct fgl_synth_node_config {
    int n_nodes;          /* 3000 */
    int n_communities;    /* 10 */
    int n_classes;        /* 7 */
    int n_feat;           /* 32 */
    double avg_degree;    /* 8 */
    double mixing;        /* 0.1: share of edge draws leaving the community */
    double homophily;     /* 0.7: share of edge draws forced to the same class */
    double label_alpha;   /* 0.5: Dirichlet concentration of community class mixes */
    double feat_signal;   /* 2.0: typical distance between two class means */
    double feat_shift;    /* 0.5: typical norm of a community's feature offset */
    double feat_noise;    /* 1.0: standard deviation of the per-feature noise */
} fgl_synth_node_config;

FGLDEF fgl_synth_node_config fgl_synth_node_default(void);
/* Fills out (name "synth-node", adj, dense x, y, n_classes, n_feat; split
 * NULL, x_sparse and adj_gcn empty); cfg NULL means the defaults.
 * community, if not NULL, receives each node's community (n_nodes ints).
 * out is released with fgl_node_data_free. */
FGLDEF int fgl_synth_node(const fgl_synth_node_config *cfg, uint64_t seed, fgl_node_data *out,
                          int *community, fgl_error *err);

/* Many small graphs for graph classification whose classes differ in
 * structure at the same size distribution (nodes uniform in min..max) and
 * the same number of edges (round(nodes * avg_degree / 2)):
 *   class 0  random: G(n, m);
 *   class 1  hubs: preferential attachment (BA-like growth, spread so the
 *            edge count matches);
 *   class 2  triangles: the union of random triangles (high clustering);
 *   class 3  ring: a Hamiltonian cycle plus chords that pair up the nodes
 *            of random permutations (long cycles, near-regular degrees).
 * Node labels (n_node_labels values) are min(max(degree, 1), L) - 1 for a
 * node, replaced by a uniform value with probability node_label_noise, so
 * one-hot node labels are informative, like atom types in molecules. Graph
 * labels are balanced, then a label_noise share is redrawn uniformly. */
typedef struct fgl_synth_graphs_config {
    int n_graphs;            /* 600 */
    int n_classes;           /* 3 (1..4) */
    int min_nodes, max_nodes;/* 12, 36 (3 <= min <= max <= 10000) */
    double avg_degree;       /* 3.0 */
    int n_node_labels;       /* 4 */
    double node_label_noise; /* 0.2 */
    double label_noise;      /* 0.05 */
} fgl_synth_graphs_config;

FGLDEF fgl_synth_graphs_config fgl_synth_graphs_default(void);
/* Fills out (name "synth-graphs", n_graphs, n_nodes, n_classes, node_ptr,
 * block-diagonal adj, y, node_labels, n_node_label_values; split, node_attr,
 * x and pe NULL/0); cfg NULL means the defaults. Released with
 * fgl_graph_set_free. */
FGLDEF int fgl_synth_graphs(const fgl_synth_graphs_config *cfg, uint64_t seed, fgl_graph_set *out,
                            fgl_error *err);

/* fgl:implementation */
#include "../alone.h"
/* --- synthetic federated benchmarks --------------------------------------- */

FGLDEF fgl_synth_node_config fgl_synth_node_default(void) {
    fgl_synth_node_config c;
    memset(&c, 0, sizeof c);
    c.n_nodes = 3000;
    c.n_communities = 10;
    c.n_classes = 7;
    c.n_feat = 32;
    c.avg_degree = 8.0;
    c.mixing = 0.1;
    c.homophily = 0.7;
    c.label_alpha = 0.5;
    c.feat_signal = 2.0;
    c.feat_shift = 0.5;
    c.feat_noise = 1.0;
    return c;
}

/* Counting sort of the ids 0..n-1 by key (0..nk-1) into ptr (nk + 1) and
 * ids (n); ids of one key stay in increasing order. */
static void fgl__g_bucket(const int *key, int n, int nk, int *ptr, int *ids) {
    int i;
    memset(ptr, 0, sizeof(int) * ((size_t)nk + 1));
    for (i = 0; i < n; i++) ptr[key[i] + 1]++;
    for (i = 0; i < nk; i++) ptr[i + 1] += ptr[i];
    for (i = 0; i < n; i++) ids[ptr[key[i]]++] = i;
    for (i = nk; i > 0; i--) ptr[i] = ptr[i - 1];
    ptr[0] = 0;
}

FGLDEF int fgl_synth_node(const fgl_synth_node_config *cfg_in, uint64_t seed, fgl_node_data *out,
                          int *community, fgl_error *err) {
    fgl_synth_node_config cfg = cfg_in ? *cfg_in : fgl_synth_node_default();
    int n = cfg.n_nodes, B = cfg.n_communities, C = cfg.n_classes, F = cfg.n_feat;
    int *comm = NULL, *perm = NULL, *cptr = NULL, *cids = NULL, *ccptr = NULL, *ccids = NULL, *cckey = NULL;
    double *pi = NULL, *alpha = NULL, *mu = NULL, *nu = NULL;
    fgl__g_edges e;
    fgl_rng r;
    long long E, t;
    int i, c, f, rc;
    memset(out, 0, sizeof *out);
    if (n < 1 || B < 1 || B > n || C < 1 || F < 1 || !(cfg.avg_degree >= 0) || cfg.avg_degree > n ||
        !(cfg.mixing >= 0 && cfg.mixing <= 1) || !(cfg.homophily >= 0 && cfg.homophily <= 1) ||
        !(cfg.label_alpha > 0) || !(cfg.feat_noise >= 0) || !(cfg.feat_signal >= 0) || !(cfg.feat_shift >= 0))
        return fgl_error_set(err, FGL_ERR_ARG,
                             "synth_node: bad configuration (n_nodes %d, n_communities %d, n_classes %d, n_feat %d, "
                             "avg_degree %g, mixing %g, homophily %g, label_alpha %g)",
                             n, B, C, F, cfg.avg_degree, cfg.mixing, cfg.homophily, cfg.label_alpha);
    E = (long long)floor((double)n * cfg.avg_degree / 2 + 0.5);
    fgl__g_edges_init(&e);
    comm = FGL__G_NEW(int, n);
    perm = FGL__G_NEW(int, n);
    cptr = FGL__G_NEW(int, (size_t)B + 1);
    cids = FGL__G_NEW(int, n);
    ccptr = FGL__G_NEW(int, (size_t)B * C + 1);
    ccids = FGL__G_NEW(int, n);
    cckey = FGL__G_NEW(int, n);
    pi = FGL__G_NEW2(double, B, C);
    alpha = FGL__G_NEW(double, C);
    mu = FGL__G_NEW2(double, C, F);
    nu = FGL__G_NEW2(double, B, F);
    out->y = FGL__G_NEW(int, n);
    rc = fgl_tensor_init(&out->x, n, F);
    if (!comm || !perm || !cptr || !cids || !ccptr || !ccids || !cckey || !pi || !alpha || !mu || !nu || !out->y ||
        rc || fgl__g_edges_reserve(&e, (size_t)E + 1)) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "synth_node: out of memory");
        goto fail;
    }
    fgl_rng_init(&r, seed, FGL__G_ST_SYNTH);
    /* communities: a random permutation dealt round-robin */
    for (i = 0; i < n; i++) perm[i] = i;
    fgl_rng_shuffle(&r, perm, n);
    for (i = 0; i < n; i++) comm[perm[i]] = i % B;
    /* class mix of each community, then labels */
    for (c = 0; c < C; c++) alpha[c] = cfg.label_alpha;
    for (i = 0; i < B; i++) fgl_rng_dirichlet(&r, alpha, C, pi + (size_t)i * C);
    for (i = 0; i < n; i++) {
        const double *p = pi + (size_t)comm[i] * C;
        double u = fgl_rng_uniform(&r), acc = 0;
        int y = C - 1;
        for (c = 0; c < C; c++) {
            acc += p[c];
            if (u < acc) {
                y = c;
                break;
            }
        }
        out->y[i] = y;
        cckey[i] = comm[i] * C + y;
    }
    fgl__g_bucket(comm, n, B, cptr, cids);
    fgl__g_bucket(cckey, n, B * C, ccptr, ccids);
    /* edges */
    for (t = 0; t < E; t++) {
        int u = (int)fgl_rng_below(&r, (uint64_t)n), cu = comm[u], yu = out->y[u], d = cu, v;
        int outside = B > 1 && fgl_rng_uniform(&r) < cfg.mixing;
        int same = fgl_rng_uniform(&r) < cfg.homophily;
        int k0, k1;
        if (outside) {
            d = (int)fgl_rng_below(&r, (uint64_t)(B - 1));
            if (d >= cu) d++;
        }
        k0 = ccptr[d * C + yu];
        k1 = ccptr[d * C + yu + 1];
        if (same && k1 - k0 > (d == cu ? 1 : 0)) v = ccids[k0 + (int)fgl_rng_below(&r, (uint64_t)(k1 - k0))];
        else v = cids[cptr[d] + (int)fgl_rng_below(&r, (uint64_t)(cptr[d + 1] - cptr[d]))];
        fgl__g_edges_push(&e, u, v);
    }
    /* features */
    for (i = 0; i < C * F; i++) mu[i] = fgl_rng_normal(&r) * cfg.feat_signal / sqrt(2.0 * F);
    for (i = 0; i < B * F; i++) nu[i] = fgl_rng_normal(&r) * cfg.feat_shift / sqrt((double)F);
    for (i = 0; i < n; i++) {
        float *xi = out->x.data + (size_t)i * F;
        const double *m = mu + (size_t)out->y[i] * F, *s = nu + (size_t)comm[i] * F;
        for (f = 0; f < F; f++) xi[f] = (float)(m[f] + s[f] + cfg.feat_noise * fgl_rng_normal(&r));
    }
    rc = fgl__g_finish_edges(n, &e, &out->adj, err, "synth_node");
    if (rc) goto fail;
    if (community) memcpy(community, comm, sizeof(int) * (size_t)n);
    snprintf(out->name, sizeof out->name, "%s", "synth-node");
    out->n_nodes = n;
    out->n_feat = F;
    out->n_classes = C;
    goto done;
fail:
    fgl__g_edges_free(&e);
    fgl_tensor_free(&out->x);
    fgl_csr_free(&out->adj);
    FGL_FREE(out->y);
    memset(out, 0, sizeof *out);
done:
    FGL_FREE(comm);
    FGL_FREE(perm);
    FGL_FREE(cptr);
    FGL_FREE(cids);
    FGL_FREE(ccptr);
    FGL_FREE(ccids);
    FGL_FREE(cckey);
    FGL_FREE(pi);
    FGL_FREE(alpha);
    FGL_FREE(mu);
    FGL_FREE(nu);
    return rc;
}

FGLDEF fgl_synth_graphs_config fgl_synth_graphs_default(void) {
    fgl_synth_graphs_config c;
    memset(&c, 0, sizeof c);
    c.n_graphs = 600;
    c.n_classes = 3;
    c.min_nodes = 12;
    c.max_nodes = 36;
    c.avg_degree = 3.0;
    c.n_node_labels = 4;
    c.node_label_noise = 0.2;
    c.label_noise = 0.05;
    return c;
}

/* Edges of one small graph under construction (local ids), kept distinct. */
typedef struct fgl__g_small {
    int n, m;          /* nodes, edges so far */
    int *a, *b;        /* edges (capacity cap) */
    int cap;
    fgl__g_hset hs;
    int err;
} fgl__g_small;

static int fgl__g_small_add(fgl__g_small *s, int a, int b) {
    int added;
    if (a == b || s->err || s->m >= s->cap) return 0;
    added = fgl__g_hset_add(&s->hs, fgl__g_pair_key(a, b));
    if (added < 0) s->err = FGL_ERR_NOMEM;
    if (added <= 0) return 0;
    s->a[s->m] = a;
    s->b[s->m] = b;
    s->m++;
    return 1;
}

/* Fill up to `target` edges with uniformly random new pairs. */
static void fgl__g_small_fill_random(fgl__g_small *s, int target, fgl_rng *r) {
    while (s->m < target && !s->err) {
        int a = (int)fgl_rng_below(r, (uint64_t)s->n), b = (int)fgl_rng_below(r, (uint64_t)s->n);
        fgl__g_small_add(s, a, b);
    }
}

static void fgl__g_small_hubs(fgl__g_small *s, int target, fgl_rng *r, int *rep, int *mark) {
    /* Growth with attachment probability proportional to degree + 1: rep holds
     * each node once plus once per edge end. Node t adds ceil(R / (n - t))
     * edges (R edges still to place), at most t. */
    int n = s->n, nrep = 0, t, i;
    if (n < 2 || target < 1) return;
    for (i = 0; i < n; i++) mark[i] = -1;
    rep[nrep++] = 0;
    rep[nrep++] = 1;
    fgl__g_small_add(s, 1, 0);
    rep[nrep++] = 0;
    rep[nrep++] = 1;
    for (t = 2; t < n && s->m < target; t++) {
        int R = target - s->m, a = (R + (n - t) - 1) / (n - t), got = 0;
        if (a > t) a = t;
        while (got < a) {
            int c = rep[fgl_rng_below(r, (uint64_t)nrep)];
            if (mark[c] == t) continue;
            mark[c] = t;
            if (fgl__g_small_add(s, t, c)) {
                rep[nrep++] = c;
                rep[nrep++] = t;
            }
            got++;
        }
        rep[nrep++] = t;
    }
    /* early nodes could not take their share: add preferential pairs */
    for (i = 0; s->m < target && i < 50 * target && !s->err; i++)
        fgl__g_small_add(s, rep[fgl_rng_below(r, (uint64_t)nrep)], rep[fgl_rng_below(r, (uint64_t)nrep)]);
    fgl__g_small_fill_random(s, target, r);
}

static void fgl__g_small_triangles(fgl__g_small *s, int target, fgl_rng *r) {
    int tries = 0;
    while (s->m < target && !s->err && tries++ < 100 * target + 100) {
        int a = (int)fgl_rng_below(r, (uint64_t)s->n), b = (int)fgl_rng_below(r, (uint64_t)s->n);
        int c = (int)fgl_rng_below(r, (uint64_t)s->n);
        if (a == b || b == c || a == c) continue;
        fgl__g_small_add(s, a, b);
        if (s->m < target) fgl__g_small_add(s, b, c);
        if (s->m < target) fgl__g_small_add(s, c, a);
    }
    fgl__g_small_fill_random(s, target, r);
}

static void fgl__g_small_ring(fgl__g_small *s, int target, fgl_rng *r, int *perm) {
    /* A Hamiltonian cycle, then rounds of chords pairing the nodes of a
     * random permutation two by two (each round adds at most one edge per
     * node), so every degree is within one or two of the mean. */
    int n = s->n, u, round, i;
    for (u = 0; u < n && s->m < target; u++) fgl__g_small_add(s, u, (u + 1) % n);
    for (round = 0; s->m < target && round < 4 * n && !s->err; round++) {
        for (i = 0; i < n; i++) perm[i] = i;
        fgl_rng_shuffle(r, perm, n);
        for (i = 0; i + 1 < n && s->m < target; i += 2) fgl__g_small_add(s, perm[i], perm[i + 1]);
    }
    fgl__g_small_fill_random(s, target, r);
}

FGLDEF int fgl_synth_graphs(const fgl_synth_graphs_config *cfg_in, uint64_t seed, fgl_graph_set *out,
                            fgl_error *err) {
    fgl_synth_graphs_config cfg = cfg_in ? *cfg_in : fgl_synth_graphs_default();
    int G = cfg.n_graphs, C = cfg.n_classes, L = cfg.n_node_labels, maxn = cfg.max_nodes;
    int *truth = NULL, *deg = NULL, *rep = NULL, *mark = NULL, g, i, rc;
    long long total_nodes = 0;
    fgl__g_small s;
    fgl__g_edges e;
    fgl_rng r;
    memset(out, 0, sizeof *out);
    memset(&s, 0, sizeof s);
    fgl__g_edges_init(&e);
    if (G < 1 || C < 1 || C > 4 || cfg.min_nodes < 3 || maxn < cfg.min_nodes || maxn > 10000 || L < 1 ||
        !(cfg.avg_degree >= 0) || cfg.avg_degree > maxn || !(cfg.node_label_noise >= 0 && cfg.node_label_noise <= 1) ||
        !(cfg.label_noise >= 0 && cfg.label_noise <= 1))
        return fgl_error_set(
            err, FGL_ERR_ARG,
            "synth_graphs: bad configuration (n_graphs %d, n_classes %d (1..4), nodes %d..%d (3..10000), "
            "n_node_labels %d, avg_degree %g)",
            G, C, cfg.min_nodes, maxn, L, cfg.avg_degree);
    if ((long long)G * maxn > INT_MAX / 4)
        return fgl_error_set(err, FGL_ERR_RANGE, "synth_graphs: too many nodes for an int");
    s.cap = (int)((double)maxn * cfg.avg_degree / 2 + 1) + 1;
    if (s.cap > maxn * (maxn - 1) / 2) s.cap = maxn * (maxn - 1) / 2;
    truth = FGL__G_NEW(int, G);
    deg = FGL__G_NEW(int, maxn);
    mark = FGL__G_NEW(int, maxn);
    rep = FGL__G_NEW(int, (size_t)maxn + 4 * (size_t)s.cap + 4);
    s.a = FGL__G_NEW(int, (size_t)s.cap);
    s.b = FGL__G_NEW(int, (size_t)s.cap);
    out->node_ptr = FGL__G_NEW(int, (size_t)G + 1);
    out->y = FGL__G_NEW(int, G);
    if (!truth || !deg || !mark || !rep || !s.a || !s.b || !out->node_ptr || !out->y ||
        fgl__g_hset_init(&s.hs, (size_t)s.cap)) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "synth_graphs: out of memory");
        goto fail;
    }
    fgl_rng_init(&r, seed, FGL__G_ST_SYNTH);
    for (g = 0; g < G; g++) truth[g] = g % C;
    fgl_rng_shuffle(&r, truth, G);
    /* sizes first, so node_labels can be allocated once */
    out->node_ptr[0] = 0;
    for (g = 0; g < G; g++) {
        int ng = cfg.min_nodes + (int)fgl_rng_below(&r, (uint64_t)(maxn - cfg.min_nodes + 1));
        out->node_ptr[g + 1] = out->node_ptr[g] + ng;
    }
    total_nodes = out->node_ptr[G];
    out->node_labels = FGL__G_NEW(int, total_nodes);
    if (!out->node_labels || fgl__g_edges_reserve(&e, (size_t)((double)total_nodes * cfg.avg_degree / 2 + G + 16))) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "synth_graphs: out of memory");
        goto fail;
    }
    for (g = 0; g < G; g++) {
        int off = out->node_ptr[g], ng = out->node_ptr[g + 1] - off, target;
        size_t k;
        double mt = floor((double)ng * cfg.avg_degree / 2 + 0.5);
        target = mt > (double)ng * (ng - 1) / 2 ? ng * (ng - 1) / 2 : (int)mt;
        if (target > s.cap) target = s.cap;
        s.n = ng;
        s.m = 0;
        for (k = 0; k < s.hs.cap; k++) s.hs.keys[k] = FGL__G_HS_EMPTY;
        s.hs.n = s.hs.used = 0;
        switch (truth[g]) {
        case 0: fgl__g_small_fill_random(&s, target, &r); break;
        case 1: fgl__g_small_hubs(&s, target, &r, rep, mark); break;
        case 2: fgl__g_small_triangles(&s, target, &r); break;
        default: fgl__g_small_ring(&s, target, &r, mark); break;
        }
        if (s.err) {
            rc = fgl_error_set(err, FGL_ERR_NOMEM, "synth_graphs: out of memory");
            goto fail;
        }
        memset(deg, 0, sizeof(int) * (size_t)ng);
        for (i = 0; i < s.m; i++) {
            deg[s.a[i]]++;
            deg[s.b[i]]++;
            fgl__g_edges_push(&e, off + s.a[i], off + s.b[i]);
        }
        for (i = 0; i < ng; i++) {
            int d = deg[i] < 1 ? 1 : deg[i] > L ? L : deg[i];
            out->node_labels[off + i] =
                fgl_rng_uniform(&r) < cfg.node_label_noise ? (int)fgl_rng_below(&r, (uint64_t)L) : d - 1;
        }
        out->y[g] = fgl_rng_uniform(&r) < cfg.label_noise ? (int)fgl_rng_below(&r, (uint64_t)C) : truth[g];
    }
    rc = fgl__g_finish_edges((int)total_nodes, &e, &out->adj, err, "synth_graphs");
    if (rc) goto fail;
    snprintf(out->name, sizeof out->name, "%s", "synth-graphs");
    out->n_graphs = G;
    out->n_nodes = (int)total_nodes;
    out->n_classes = C;
    out->n_node_label_values = L;
    goto done;
fail:
    fgl__g_edges_free(&e);
    FGL_FREE(out->node_ptr);
    FGL_FREE(out->y);
    FGL_FREE(out->node_labels);
    fgl_csr_free(&out->adj);
    memset(out, 0, sizeof *out);
done:
    fgl__g_hset_free(&s.hs);
    FGL_FREE(s.a);
    FGL_FREE(s.b);
    FGL_FREE(truth);
    FGL_FREE(deg);
    FGL_FREE(mark);
    FGL_FREE(rep);
    return rc;
}

#include "../alone.h"
