#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Random graph generators                                                  */
/* ------------------------------------------------------------------------ */
/* All return a symmetric fgl_csr (values NULL, no self loops, no duplicate
 * edges) that the caller frees with fgl_csr_free; bad arguments give
 * FGL_ERR_ARG (and more than INT_MAX/2 edges FGL_ERR_RANGE). */

/* Erdos-Renyi G(n, p): every pair independently with probability p. Runs in
 * O(n + E) by geometric skipping over the pairs (Batagelj & Brandes 2005). */
FGLDEF int fgl_gen_gnp(int n, double p, uint64_t seed, fgl_csr *out, fgl_error *err);
/* Erdos-Renyi G(n, m): exactly m distinct edges, uniformly over all sets of
 * m pairs (Floyd's sampling of pair indices). 0 <= m <= n(n-1)/2. */
FGLDEF int fgl_gen_gnm(int n, int m, uint64_t seed, fgl_csr *out, fgl_error *err);
/* Stochastic block model: block b holds sizes[b] consecutive nodes (block 0
 * first); a pair in blocks a, b is an edge with probability
 * probs[a * n_blocks + b] (a symmetric matrix of values in [0, 1]).
 * Geometric skipping per block pair: O(n + n_blocks^2 + E). block_of, if not
 * NULL, receives each node's block (n entries). */
FGLDEF int fgl_gen_sbm(int n_blocks, const int *sizes, const double *probs, uint64_t seed,
                       fgl_csr *out, int *block_of, fgl_error *err);
/* Barabasi-Albert preferential attachment: nodes 0..m-1 start unconnected,
 * node m links to all of them, and every later node links to m distinct
 * earlier nodes chosen with probability proportional to their degree.
 * Exactly m (n - m) edges; 1 <= m < n. */
FGLDEF int fgl_gen_ba(int n, int m, uint64_t seed, fgl_csr *out, fgl_error *err);
/* Watts-Strogatz: a ring where each node links to its k/2 nearest neighbours
 * on each side (k even, 0 <= k < n), then each lattice edge (u, u + j) is
 * rewired with probability beta to (u, w), w uniform among the nodes not
 * already linked to u (kept when u is linked to all). Exactly n k / 2 edges. */
FGLDEF int fgl_gen_ws(int n, int k, double beta, uint64_t seed, fgl_csr *out, fgl_error *err);
/* Configuration model: degree[i] stubs per node (even sum), paired uniformly
 * at random. Self loops and multi-edges are then removed (each multi-edge
 * kept once), so a node's degree can end below degree[i]; on sparse
 * sequences the loss is a handful of edges. */
FGLDEF int fgl_gen_config(int n, const int *degree, uint64_t seed, fgl_csr *out, fgl_error *err);

/* fgl:implementation */
#include "../alone.h"
/* --- edge lists and hash sets of the generators --------------------------- */

/* A growable list of undirected edges. */
typedef struct fgl__g_edges {
    int *u, *v;
    size_t n, cap;
    int err;
} fgl__g_edges;

static void fgl__g_edges_init(fgl__g_edges *e) { memset(e, 0, sizeof *e); }

static void fgl__g_edges_free(fgl__g_edges *e) {
    FGL_FREE(e->u);
    FGL_FREE(e->v);
    memset(e, 0, sizeof *e);
}

static int fgl__g_edges_reserve(fgl__g_edges *e, size_t cap) {
    int *nu, *nv;
    if (cap <= e->cap) return FGL_OK;
    nu = FGL__G_RESIZE(int, e->u, cap);
    if (!nu) return e->err = FGL_ERR_NOMEM;
    e->u = nu;
    nv = FGL__G_RESIZE(int, e->v, cap);
    if (!nv) return e->err = FGL_ERR_NOMEM;
    e->v = nv;
    e->cap = cap;
    return FGL_OK;
}

static void fgl__g_edges_push(fgl__g_edges *e, int a, int b) {
    if (e->err) return;
    if (e->n == e->cap && fgl__g_edges_reserve(e, e->cap ? 2 * e->cap : 1024)) return;
    e->u[e->n] = a;
    e->v[e->n] = b;
    e->n++;
}

/* The graph of a generated edge list (self loops and repeats dropped, every
 * edge both ways); frees the list. */
static int fgl__g_finish_edges(int n, fgl__g_edges *e, fgl_csr *out, fgl_error *err, const char *who) {
    int rc;
    if (e->err) {
        fgl__g_edges_free(e);
        return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", who);
    }
    if (e->n > (size_t)INT_MAX / 2) {
        fgl__g_edges_free(e);
        return fgl_error_set(err, FGL_ERR_RANGE, "%s: %zu edges do not fit an int CSR", who, e->n);
    }
    rc = fgl_graph_from_edges(n, e->u, e->v, (int)e->n, FGL_EDGES_SYMMETRIZE | FGL_EDGES_DROP_SELF_LOOPS, out,
                              err);
    fgl__g_edges_free(e);
    return rc;
}

/* Open-addressing set of 64-bit keys (keys < 2^64 - 2). */
typedef struct fgl__g_hset {
    uint64_t *keys;
    size_t cap, n, used; /* used counts live keys and tombstones */
} fgl__g_hset;

#define FGL__G_HS_EMPTY (~(uint64_t)0)
#define FGL__G_HS_DEAD (~(uint64_t)0 - 1)

static uint64_t fgl__g_mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int fgl__g_hset_init(fgl__g_hset *h, size_t expect) {
    size_t cap = 16, i;
    while (cap < 2 * expect + 16) cap *= 2;
    h->keys = FGL__G_NEW(uint64_t, cap);
    h->cap = cap;
    h->n = h->used = 0;
    if (!h->keys) return FGL_ERR_NOMEM;
    for (i = 0; i < cap; i++) h->keys[i] = FGL__G_HS_EMPTY;
    return FGL_OK;
}

static void fgl__g_hset_free(fgl__g_hset *h) {
    FGL_FREE(h->keys);
    memset(h, 0, sizeof *h);
}

static int fgl__g_hset_has(const fgl__g_hset *h, uint64_t key) {
    size_t i = (size_t)fgl__g_mix64(key) & (h->cap - 1);
    for (;;) {
        if (h->keys[i] == key) return 1;
        if (h->keys[i] == FGL__G_HS_EMPTY) return 0;
        i = (i + 1) & (h->cap - 1);
    }
}

static int fgl__g_hset_add(fgl__g_hset *h, uint64_t key); /* below */

static int fgl__g_hset_grow(fgl__g_hset *h) {
    fgl__g_hset g;
    size_t i;
    if (fgl__g_hset_init(&g, h->n * 2 + 16)) return FGL_ERR_NOMEM;
    for (i = 0; i < h->cap; i++)
        if (h->keys[i] != FGL__G_HS_EMPTY && h->keys[i] != FGL__G_HS_DEAD) fgl__g_hset_add(&g, h->keys[i]);
    fgl__g_hset_free(h);
    *h = g;
    return FGL_OK;
}

/* 1 if added, 0 if present, negative on out of memory. */
static int fgl__g_hset_add(fgl__g_hset *h, uint64_t key) {
    size_t i, dead = (size_t)-1;
    if ((h->used + 1) * 2 > h->cap && fgl__g_hset_grow(h)) return FGL_ERR_NOMEM;
    i = (size_t)fgl__g_mix64(key) & (h->cap - 1);
    for (;;) {
        if (h->keys[i] == key) return 0;
        if (h->keys[i] == FGL__G_HS_DEAD && dead == (size_t)-1) dead = i;
        if (h->keys[i] == FGL__G_HS_EMPTY) break;
        i = (i + 1) & (h->cap - 1);
    }
    if (dead != (size_t)-1) i = dead;
    else h->used++;
    h->keys[i] = key;
    h->n++;
    return 1;
}

static void fgl__g_hset_del(fgl__g_hset *h, uint64_t key) {
    size_t i = (size_t)fgl__g_mix64(key) & (h->cap - 1);
    for (;;) {
        if (h->keys[i] == key) {
            h->keys[i] = FGL__G_HS_DEAD;
            h->n--;
            return;
        }
        if (h->keys[i] == FGL__G_HS_EMPTY) return;
        i = (i + 1) & (h->cap - 1);
    }
}

static uint64_t fgl__g_pair_key(int a, int b) {
    return a < b ? ((uint64_t)(uint32_t)a << 32) | (uint32_t)b : ((uint64_t)(uint32_t)b << 32) | (uint32_t)a;
}

/* --- generators ----------------------------------------------------------- */

/* Number of failures before the next success of Bernoulli(p) trials, given
 * lq = ln(1 - p) (p in (0, 1)); as a double, since it can be huge. */
static double fgl__g_geom_skip(fgl_rng *r, double lq) {
    double u = 1.0 - fgl_rng_uniform(r); /* (0, 1] */
    return floor(log(u) / lq);
}

/* Edges among the pairs (a, b), 0 <= b < a < n, of a block starting at off,
 * each with probability p. */
static void fgl__g_gnp_block(fgl_rng *r, int off, int n, double p, fgl__g_edges *e) {
    long long v = 1, w = -1;
    double lq;
    if (n < 2 || p <= 0) return;
    if (p >= 1) {
        int a, b;
        for (a = 1; a < n; a++)
            for (b = 0; b < a; b++) fgl__g_edges_push(e, off + a, off + b);
        return;
    }
    lq = log(1.0 - p);
    while (v < n && !e->err) {
        double s = fgl__g_geom_skip(r, lq);
        if (s > 4e18) break;
        w += 1 + (long long)s;
        while (w >= v && v < n) {
            w -= v;
            v++;
        }
        if (v < n) fgl__g_edges_push(e, off + (int)v, off + (int)w);
    }
}

/* Edges between block A (na nodes from offa) and block B (nb from offb),
 * each of the na * nb pairs with probability p. */
static void fgl__g_gnp_bipartite(fgl_rng *r, int offa, int na, int offb, int nb, double p, fgl__g_edges *e) {
    long long total = (long long)na * nb, t = -1;
    double lq;
    if (total == 0 || p <= 0) return;
    if (p >= 1) {
        int a, b;
        for (a = 0; a < na; a++)
            for (b = 0; b < nb; b++) fgl__g_edges_push(e, offa + a, offb + b);
        return;
    }
    lq = log(1.0 - p);
    for (;;) {
        double s = fgl__g_geom_skip(r, lq);
        if (e->err || s >= (double)(total - t)) break;
        t += 1 + (long long)s;
        if (t >= total) break;
        fgl__g_edges_push(e, offa + (int)(t / nb), offb + (int)(t % nb));
    }
}

FGLDEF int fgl_gen_gnp(int n, double p, uint64_t seed, fgl_csr *out, fgl_error *err) {
    fgl__g_edges e;
    fgl_rng r;
    double expect;
    memset(out, 0, sizeof *out);
    if (n < 0 || !(p >= 0 && p <= 1))
        return fgl_error_set(err, FGL_ERR_ARG, "gen_gnp: need n >= 0 and 0 <= p <= 1 (n = %d, p = %g)", n, p);
    expect = p * (double)n * (n - 1) / 2;
    if (expect > (double)INT_MAX / 2)
        return fgl_error_set(err, FGL_ERR_RANGE, "gen_gnp: about %.0f edges do not fit an int CSR", expect);
    fgl__g_edges_init(&e);
    fgl__g_edges_reserve(&e, (size_t)(expect + 6 * sqrt(expect + 1) + 16));
    fgl_rng_init(&r, seed, FGL__G_ST_GEN);
    fgl__g_gnp_block(&r, 0, n, p, &e);
    return fgl__g_finish_edges(n, &e, out, err, "gen_gnp");
}

/* Pair index t in [0, n(n-1)/2) -> (a, b) with b < a: t = a(a-1)/2 + b. */
static void fgl__g_pair_of_index(long long t, int *a, int *b) {
    long long x = (long long)((1.0 + sqrt(1.0 + 8.0 * (double)t)) / 2.0);
    while (x * (x - 1) / 2 > t) x--;
    while ((x + 1) * x / 2 <= t) x++;
    *a = (int)x;
    *b = (int)(t - x * (x - 1) / 2);
}

FGLDEF int fgl_gen_gnm(int n, int m, uint64_t seed, fgl_csr *out, fgl_error *err) {
    long long total = (long long)n * (n - 1) / 2, j;
    fgl__g_hset hs;
    fgl__g_edges e;
    fgl_rng r;
    memset(out, 0, sizeof *out);
    if (n < 0 || m < 0 || (long long)m > total)
        return fgl_error_set(err, FGL_ERR_ARG, "gen_gnm: need 0 <= m <= n(n-1)/2 (n = %d, m = %d)", n, m);
    if (m > INT_MAX / 2) return fgl_error_set(err, FGL_ERR_RANGE, "gen_gnm: m = %d does not fit an int CSR", m);
    fgl__g_edges_init(&e);
    if (fgl__g_hset_init(&hs, (size_t)m) || fgl__g_edges_reserve(&e, (size_t)m + 1)) {
        fgl__g_hset_free(&hs);
        fgl__g_edges_free(&e);
        return fgl_error_set(err, FGL_ERR_NOMEM, "gen_gnm: out of memory");
    }
    fgl_rng_init(&r, seed, FGL__G_ST_GEN);
    /* Floyd: for j = total-m .. total-1 take t uniform in [0, j]; if t is
     * taken already take j. Every m-subset is equally likely. */
    for (j = total - m; j < total; j++) {
        long long t = (long long)fgl_rng_below(&r, (uint64_t)j + 1);
        int a, b, added = fgl__g_hset_add(&hs, (uint64_t)t);
        if (added < 0) break;
        if (added == 0) {
            t = j;
            if (fgl__g_hset_add(&hs, (uint64_t)t) < 0) break;
        }
        fgl__g_pair_of_index(t, &a, &b);
        fgl__g_edges_push(&e, a, b);
    }
    if (e.n != (size_t)m) e.err = FGL_ERR_NOMEM;
    fgl__g_hset_free(&hs);
    return fgl__g_finish_edges(n, &e, out, err, "gen_gnm");
}

FGLDEF int fgl_gen_sbm(int n_blocks, const int *sizes, const double *probs, uint64_t seed,
                       fgl_csr *out, int *block_of, fgl_error *err) {
    fgl__g_edges e;
    fgl_rng r;
    long long n = 0;
    double expect = 0;
    int a, b, off_a, off_b;
    memset(out, 0, sizeof *out);
    if (n_blocks < 0 || (n_blocks > 0 && (!sizes || !probs)))
        return fgl_error_set(err, FGL_ERR_ARG, "gen_sbm: %d blocks or NULL sizes / probabilities", n_blocks);
    for (a = 0; a < n_blocks; a++) {
        if (sizes[a] < 0) return fgl_error_set(err, FGL_ERR_ARG, "gen_sbm: block %d has size %d", a, sizes[a]);
        n += sizes[a];
        for (b = 0; b < n_blocks; b++) {
            double p = probs[(size_t)a * n_blocks + b];
            if (!(p >= 0 && p <= 1))
                return fgl_error_set(err, FGL_ERR_ARG, "gen_sbm: probability [%d][%d] = %g outside [0, 1]", a, b, p);
            if (fabs(p - probs[(size_t)b * n_blocks + a]) > 1e-12)
                return fgl_error_set(err, FGL_ERR_ARG, "gen_sbm: probabilities not symmetric at [%d][%d]", a, b);
        }
    }
    if (n > INT_MAX) return fgl_error_set(err, FGL_ERR_RANGE, "gen_sbm: %lld nodes do not fit an int", n);
    for (a = 0; a < n_blocks; a++)
        for (b = a; b < n_blocks; b++)
            expect += probs[(size_t)a * n_blocks + b] *
                      (a == b ? (double)sizes[a] * (sizes[a] - 1) / 2 : (double)sizes[a] * sizes[b]);
    if (expect > (double)INT_MAX / 2)
        return fgl_error_set(err, FGL_ERR_RANGE, "gen_sbm: about %.0f edges do not fit an int CSR", expect);
    fgl__g_edges_init(&e);
    fgl__g_edges_reserve(&e, (size_t)(expect + 6 * sqrt(expect + 1) + 16));
    fgl_rng_init(&r, seed, FGL__G_ST_GEN);
    off_a = 0;
    for (a = 0; a < n_blocks; a++) {
        off_b = off_a;
        for (b = a; b < n_blocks; b++) {
            double p = probs[(size_t)a * n_blocks + b];
            if (a == b) fgl__g_gnp_block(&r, off_a, sizes[a], p, &e);
            else fgl__g_gnp_bipartite(&r, off_a, sizes[a], off_b, sizes[b], p, &e);
            off_b += sizes[b];
        }
        off_a += sizes[a];
    }
    if (block_of) {
        int i = 0, j;
        for (a = 0; a < n_blocks; a++)
            for (j = 0; j < sizes[a]; j++) block_of[i++] = a;
    }
    return fgl__g_finish_edges((int)n, &e, out, err, "gen_sbm");
}

FGLDEF int fgl_gen_ba(int n, int m, uint64_t seed, fgl_csr *out, fgl_error *err) {
    /* rep holds every node once per edge end, so a uniform draw from it is a
     * draw proportional to degree; mark[] stamps the targets of the current
     * node to keep them distinct. */
    fgl__g_edges e;
    fgl_rng r;
    int *rep = NULL, *mark = NULL, *targ = NULL, t, i;
    size_t nrep = 0;
    long long total;
    memset(out, 0, sizeof *out);
    if (m < 1 || m >= n)
        return fgl_error_set(err, FGL_ERR_ARG, "gen_ba: need 1 <= m < n (n = %d, m = %d)", n, m);
    total = (long long)m * (n - m);
    if (total > INT_MAX / 2)
        return fgl_error_set(err, FGL_ERR_RANGE, "gen_ba: %lld edges do not fit an int CSR", total);
    fgl__g_edges_init(&e);
    rep = FGL__G_NEW2(int, total, 2);
    mark = FGL__G_NEW(int, n);
    targ = FGL__G_NEW(int, m);
    if (!rep || !mark || !targ || fgl__g_edges_reserve(&e, (size_t)total + 1)) {
        FGL_FREE(rep);
        FGL_FREE(mark);
        FGL_FREE(targ);
        fgl__g_edges_free(&e);
        return fgl_error_set(err, FGL_ERR_NOMEM, "gen_ba: out of memory");
    }
    for (i = 0; i < n; i++) mark[i] = -1;
    fgl_rng_init(&r, seed, FGL__G_ST_GEN);
    for (i = 0; i < m; i++) targ[i] = i;
    for (t = m; t < n; t++) {
        if (t > m) {
            int got = 0;
            while (got < m) {
                int c = rep[fgl_rng_below(&r, (uint64_t)nrep)];
                if (mark[c] == t) continue;
                mark[c] = t;
                targ[got++] = c;
            }
        }
        for (i = 0; i < m; i++) {
            fgl__g_edges_push(&e, t, targ[i]);
            rep[nrep++] = t;
            rep[nrep++] = targ[i];
        }
    }
    FGL_FREE(rep);
    FGL_FREE(mark);
    FGL_FREE(targ);
    return fgl__g_finish_edges(n, &e, out, err, "gen_ba");
}

FGLDEF int fgl_gen_ws(int n, int k, double beta, uint64_t seed, fgl_csr *out, fgl_error *err) {
    fgl__g_edges e;
    fgl__g_hset hs;
    fgl_rng r;
    int *deg = NULL, j, u;
    size_t idx;
    memset(out, 0, sizeof *out);
    if (n < 0 || k < 0 || k % 2 || (k >= n && k > 0) || !(beta >= 0 && beta <= 1))
        return fgl_error_set(err, FGL_ERR_ARG,
                             "gen_ws: need even 0 <= k < n and 0 <= beta <= 1 (n = %d, k = %d, beta = %g)", n, k, beta);
    if ((long long)n * k / 2 > INT_MAX / 2)
        return fgl_error_set(err, FGL_ERR_RANGE, "gen_ws: too many edges for an int CSR");
    fgl__g_edges_init(&e);
    deg = FGL__G_NEW(int, n);
    if (!deg || fgl__g_hset_init(&hs, (size_t)n * (size_t)k / 2) ||
        fgl__g_edges_reserve(&e, (size_t)n * (size_t)k / 2 + 1)) {
        FGL_FREE(deg);
        fgl__g_edges_free(&e);
        return fgl_error_set(err, FGL_ERR_NOMEM, "gen_ws: out of memory");
    }
    for (u = 0; u < n; u++) deg[u] = k;
    /* Lattice edges in the order (j = 1: all u), (j = 2: all u), ... */
    for (j = 1; j <= k / 2; j++)
        for (u = 0; u < n; u++) {
            int v = (u + j) % n;
            fgl__g_edges_push(&e, u, v);
            if (fgl__g_hset_add(&hs, fgl__g_pair_key(u, v)) < 0) e.err = FGL_ERR_NOMEM;
        }
    fgl_rng_init(&r, seed, FGL__G_ST_GEN);
    for (idx = 0; idx < e.n && !e.err && beta > 0; idx++) {
        int a = e.u[idx], b = e.v[idx], w;
        if (!(fgl_rng_uniform(&r) < beta)) continue;
        if (deg[a] >= n - 1) continue; /* a is linked to everyone */
        do {
            w = (int)fgl_rng_below(&r, (uint64_t)n);
        } while (w == a || fgl__g_hset_has(&hs, fgl__g_pair_key(a, w)));
        fgl__g_hset_del(&hs, fgl__g_pair_key(a, b));
        if (fgl__g_hset_add(&hs, fgl__g_pair_key(a, w)) < 0) e.err = FGL_ERR_NOMEM;
        deg[b]--;
        deg[w]++;
        e.v[idx] = w;
    }
    FGL_FREE(deg);
    fgl__g_hset_free(&hs);
    return fgl__g_finish_edges(n, &e, out, err, "gen_ws");
}

FGLDEF int fgl_gen_config(int n, const int *degree, uint64_t seed, fgl_csr *out, fgl_error *err) {
    fgl__g_edges e;
    fgl_rng r;
    int *stubs, i, j;
    long long total = 0;
    size_t s;
    memset(out, 0, sizeof *out);
    if (n < 0 || (n > 0 && !degree)) return fgl_error_set(err, FGL_ERR_ARG, "gen_config: n = %d or NULL degrees", n);
    for (i = 0; i < n; i++) {
        if (degree[i] < 0) return fgl_error_set(err, FGL_ERR_ARG, "gen_config: degree[%d] = %d", i, degree[i]);
        total += degree[i];
    }
    if (total % 2) return fgl_error_set(err, FGL_ERR_ARG, "gen_config: the degrees sum to %lld, an odd number", total);
    if (total > INT_MAX) return fgl_error_set(err, FGL_ERR_RANGE, "gen_config: %lld stubs do not fit an int", total);
    stubs = FGL__G_NEW(int, total);
    fgl__g_edges_init(&e);
    if (!stubs || fgl__g_edges_reserve(&e, (size_t)total / 2 + 1)) {
        FGL_FREE(stubs);
        fgl__g_edges_free(&e);
        return fgl_error_set(err, FGL_ERR_NOMEM, "gen_config: out of memory");
    }
    s = 0;
    for (i = 0; i < n; i++)
        for (j = 0; j < degree[i]; j++) stubs[s++] = i;
    fgl_rng_init(&r, seed, FGL__G_ST_GEN);
    fgl_rng_shuffle(&r, stubs, (int)total);
    for (s = 0; s + 1 < (size_t)total; s += 2) fgl__g_edges_push(&e, stubs[s], stubs[s + 1]);
    FGL_FREE(stubs);
    return fgl__g_finish_edges(n, &e, out, err, "gen_config"); /* drops loops and repeats */
}

#include "../alone.h"
