#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Partitions                                                               */
/* ------------------------------------------------------------------------ */

/* Options of the multilevel k-way partitioner. */
typedef struct fgl_partition_config {
    double imbalance;   /* 0.05: every part holds at most ceil((1 + imbalance) n / k) nodes */
    int coarsen_to;     /* 0: coarsen until max(30 k, n / (20 log2 k)) vertices remain */
    int n_init;         /* 8: grown bisections tried at the bottom of each initial bisection */
    int refine_passes;  /* 10: greedy k-way refinement passes per level (at most) */
    int n_cuts;         /* 1: independent multilevel runs, best cut kept */
} fgl_partition_config;
/* The name before the naming rule (README, "Names"), kept so that existing programs compile: */
#define fgl_partition_options fgl_partition_config

FGLDEF fgl_partition_config fgl_partition_default(void);
/* Min-edge-cut k-way partition in the METIS style of a graph (the contract
 * is checked; self loops are allowed and ignored).
 *   1. Coarsening by heavy-edge matching (seeded random visit order, ties
 *      to a random neighbour; when matching stalls, leftover vertices that
 *      share their heaviest neighbour, and isolated vertices, are paired),
 *      summing vertex and edge weights, down to coarsen_to vertices.
 *   2. Initial partition of the coarsest graph by recursive bisection; each
 *      bisection is itself multilevel (coarsened to ~40 vertices, best of
 *      n_init greedy-graph-growing + Fiduccia-Mattheyses tries, FM at every
 *      level back up). The best of up to 4 such partitions (1-2 when the
 *      coarsest graph has more than 0.5M / 2M adjacency entries) is kept.
 *   3. Uncoarsening: at every level, forced balancing moves (cheapest first)
 *      and greedy k-way boundary refinement (random order; moves that lower
 *      the cut, or keep it and improve balance, into parts with room).
 * Disconnected graphs and isolated vertices are fine. part (n ints)
 * receives parts 0..k-1, each of at most ceil(1.05 n / k) nodes (with the
 * default imbalance), none empty; 1 <= k <= n. Edge weights (values) are
 * ignored: the cut counts edges. Same seed, same partition. Costs
 * O(E) per level in time and memory (E = adjacency entries of the level). */
FGLDEF int fgl_partition_metis(const fgl_csr *adj, int k, uint64_t seed, int *part, fgl_error *err);
FGLDEF int fgl_partition_metis_ex(const fgl_csr *adj, int k, uint64_t seed,
                                  const fgl_partition_config *opt, int *part, fgl_error *err);
/* Number of undirected edges whose ends lie in different parts. */
FGLDEF long fgl_edge_cut(const fgl_csr *adj, const int *part);
/* Uniformly random balanced partition: part sizes differ by at most one. */
FGLDEF int fgl_partition_random(int n, int k, uint64_t seed, int *part, fgl_error *err);
/* Louvain community detection (Blondel et al. 2008): local moving of nodes
 * in a seeded random order to the neighbouring community of largest
 * modularity gain until a pass gains less than 1e-7, then aggregation of
 * communities into nodes, repeated until nothing merges. comm (n ints)
 * receives communities numbered 0..n_comm-1; n_comm may be NULL. Uses the
 * values as weights when present (they must be >= 0). The graph contract is
 * checked, self loops allowed (a node's self weight). */
FGLDEF int fgl_louvain(const fgl_csr *adj, uint64_t seed, int *comm, int *n_comm, fgl_error *err);
/* Louvain at resolution gamma > 0: the modularity whose null-model term is
 * scaled by gamma, sum_c [ in_c / 2m - gamma (tot_c / 2m)^2 ] (gamma 1:
 * fgl_louvain, bit for bit; larger gamma, more and smaller communities). */
FGLDEF int fgl_louvain_ex(const fgl_csr *adj, uint64_t seed, double gamma, int *comm, int *n_comm, fgl_error *err);
/* Newman modularity Q = sum_c [ in_c / 2m - (tot_c / 2m)^2 ] of the
 * assignment comm (ids >= 0), with weights if values is present. 0 for a
 * graph without edges; NaN if an id is negative or memory runs out. */
FGLDEF double fgl_modularity(const fgl_csr *adj, const int *comm);

/* fgl:implementation */
#include "../alone.h"
/* --- multilevel k-way partitioning ---------------------------------------- */

#define FGL__G_MAX_LEVELS 64

/* A graph with integer vertex and edge weights (adjacency lists unsorted). */
typedef struct fgl__g_wg {
    int n, tvw;       /* vertices, total vertex weight */
    int *xadj;        /* n + 1 */
    int *adj, *ew;    /* xadj[n] neighbours and edge weights */
    int *vw;          /* n vertex weights */
} fgl__g_wg;

static void fgl__g_wg_free(fgl__g_wg *g) {
    FGL_FREE(g->xadj);
    FGL_FREE(g->adj);
    FGL_FREE(g->ew);
    FGL_FREE(g->vw);
    memset(g, 0, sizeof *g);
}

static int fgl__g_wg_alloc(fgl__g_wg *g, int n, int nnz) {
    memset(g, 0, sizeof *g);
    g->xadj = FGL__G_NEW(int, (size_t)n + 1);
    g->adj = FGL__G_NEW(int, nnz);
    g->ew = FGL__G_NEW(int, nnz);
    g->vw = FGL__G_NEW(int, n);
    if (!g->xadj || !g->adj || !g->ew || !g->vw) {
        fgl__g_wg_free(g);
        return FGL_ERR_NOMEM;
    }
    g->n = n;
    g->xadj[0] = 0;
    return FGL_OK;
}

/* Indexed binary max-heap of vertices keyed by key[v] (shared array). */
typedef struct fgl__g_pq {
    int n;
    int *heap, *pos;  /* pos[v] = slot of v, or -1 */
    const int *key;
} fgl__g_pq;

static void fgl__g_pq_up(fgl__g_pq *q, int i) {
    int v = q->heap[i];
    while (i > 0) {
        int p = (i - 1) / 2;
        if (q->key[q->heap[p]] >= q->key[v]) break;
        q->heap[i] = q->heap[p];
        q->pos[q->heap[i]] = i;
        i = p;
    }
    q->heap[i] = v;
    q->pos[v] = i;
}

static void fgl__g_pq_down(fgl__g_pq *q, int i) {
    int v = q->heap[i];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= q->n) break;
        if (c + 1 < q->n && q->key[q->heap[c + 1]] > q->key[q->heap[c]]) c++;
        if (q->key[q->heap[c]] <= q->key[v]) break;
        q->heap[i] = q->heap[c];
        q->pos[q->heap[i]] = i;
        i = c;
    }
    q->heap[i] = v;
    q->pos[v] = i;
}

static void fgl__g_pq_insert(fgl__g_pq *q, int v) {
    q->heap[q->n] = v;
    q->pos[v] = q->n;
    q->n++;
    fgl__g_pq_up(q, q->n - 1);
}

/* key[v] changed: restore the heap order. */
static void fgl__g_pq_fix(fgl__g_pq *q, int v) {
    int i = q->pos[v];
    fgl__g_pq_up(q, i);
    fgl__g_pq_down(q, q->pos[v]);
}

static void fgl__g_pq_remove(fgl__g_pq *q, int v) {
    int i = q->pos[v], last;
    q->pos[v] = -1;
    q->n--;
    if (i == q->n) return;
    last = q->heap[q->n];
    q->heap[i] = last;
    q->pos[last] = i;
    fgl__g_pq_up(q, i);
    fgl__g_pq_down(q, q->pos[last]);
}

static int fgl__g_pq_pop(fgl__g_pq *q) {
    int v = q->heap[0];
    fgl__g_pq_remove(q, v);
    return v;
}

/* Scratch for bisections of graphs of up to cap vertices. */
typedef struct fgl__g_bis {
    int cap;
    int *gain, *locked, *moves, *perm, *where, *best;
    int *heap0, *pos0, *heap1, *pos1;
} fgl__g_bis;

static void fgl__g_bis_free(fgl__g_bis *b) {
    FGL_FREE(b->gain);
    FGL_FREE(b->locked);
    FGL_FREE(b->moves);
    FGL_FREE(b->perm);
    FGL_FREE(b->where);
    FGL_FREE(b->best);
    FGL_FREE(b->heap0);
    FGL_FREE(b->pos0);
    FGL_FREE(b->heap1);
    FGL_FREE(b->pos1);
    memset(b, 0, sizeof *b);
}

static int fgl__g_bis_init(fgl__g_bis *b, int cap) {
    size_t c = (size_t)cap;
    memset(b, 0, sizeof *b);
    b->gain = FGL__G_NEW(int, c);
    b->locked = FGL__G_NEW(int, c);
    b->moves = FGL__G_NEW(int, c);
    b->perm = FGL__G_NEW(int, c);
    b->where = FGL__G_NEW(int, c);
    b->best = FGL__G_NEW(int, c);
    b->heap0 = FGL__G_NEW(int, c);
    b->pos0 = FGL__G_NEW(int, c);
    b->heap1 = FGL__G_NEW(int, c);
    b->pos1 = FGL__G_NEW(int, c);
    if (!b->gain || !b->locked || !b->moves || !b->perm || !b->where || !b->best || !b->heap0 || !b->pos0 ||
        !b->heap1 || !b->pos1) {
        fgl__g_bis_free(b);
        return FGL_ERR_NOMEM;
    }
    b->cap = cap;
    return FGL_OK;
}

static int fgl__g_bad2(const int *pw, const int *maxw) {
    return (pw[0] > maxw[0] ? pw[0] - maxw[0] : 0) + (pw[1] > maxw[1] ? pw[1] - maxw[1] : 0);
}

static int fgl__g_cut2(const fgl__g_wg *g, const int *where) {
    int v, k, cut = 0;
    for (v = 0; v < g->n; v++)
        for (k = g->xadj[v]; k < g->xadj[v + 1]; k++)
            if (where[g->adj[k]] != where[v]) cut += g->ew[k];
    return cut / 2;
}

/* Fiduccia-Mattheyses refinement of the bisection where[] (weights pw[2],
 * limits maxw[2]); returns the new cut. Each pass moves vertices one at a
 * time, best gain first from the side that may give, each at most once, and
 * keeps the best prefix: least balance violation, then least cut. */
static int fgl__g_fm2(const fgl__g_wg *g, int *where, int *pw, const int *maxw, int cut, int npass, fgl__g_bis *b,
                    fgl_rng *r) {
    int n = g->n, pass, v, k;
    int limit = 50 + n / 50;
    fgl__g_pq q[2];
    q[0].heap = b->heap0;
    q[0].pos = b->pos0;
    q[1].heap = b->heap1;
    q[1].pos = b->pos1;
    q[0].key = q[1].key = b->gain;
    for (pass = 0; pass < npass; pass++) {
        int nm = 0, best_nm = 0, best_cut = cut, best_bad = fgl__g_bad2(pw, maxw);
        for (v = 0; v < n; v++) {
            int g_ = 0;
            for (k = g->xadj[v]; k < g->xadj[v + 1]; k++)
                g_ += where[g->adj[k]] != where[v] ? g->ew[k] : -g->ew[k];
            b->gain[v] = g_;
            b->locked[v] = 0;
            b->pos0[v] = b->pos1[v] = -1;
            b->perm[v] = v;
        }
        fgl_rng_shuffle(r, b->perm, n);
        q[0].n = q[1].n = 0;
        for (k = 0; k < n; k++) fgl__g_pq_insert(&q[where[b->perm[k]]], b->perm[k]);
        for (;;) {
            int from, to, bad_before = fgl__g_bad2(pw, maxw), bad, npw[2];
            if (pw[0] > maxw[0] && q[0].n) from = 0;
            else if (pw[1] > maxw[1] && q[1].n) from = 1;
            else if (!q[0].n && !q[1].n) break;
            else if (!q[0].n) from = 1;
            else if (!q[1].n) from = 0;
            else {
                int g0 = b->gain[q[0].heap[0]], g1 = b->gain[q[1].heap[0]];
                from = g0 > g1 ? 0 : g1 > g0 ? 1 : (pw[0] >= pw[1] ? 0 : 1);
            }
            to = 1 - from;
            v = fgl__g_pq_pop(&q[from]);
            b->locked[v] = 1;
            npw[from] = pw[from] - g->vw[v];
            npw[to] = pw[to] + g->vw[v];
            if (fgl__g_bad2(npw, maxw) > bad_before) continue; /* would unbalance: skip it this pass */
            where[v] = to;
            pw[0] = npw[0];
            pw[1] = npw[1];
            cut -= b->gain[v];
            b->moves[nm++] = v;
            for (k = g->xadj[v]; k < g->xadj[v + 1]; k++) {
                int u = g->adj[k];
                if (b->locked[u]) continue;
                b->gain[u] += where[u] == to ? -2 * g->ew[k] : 2 * g->ew[k];
                fgl__g_pq_fix(&q[where[u]], u);
            }
            bad = fgl__g_bad2(pw, maxw);
            if (bad < best_bad || (bad == best_bad && cut < best_cut)) {
                best_bad = bad;
                best_cut = cut;
                best_nm = nm;
            } else if (nm - best_nm > limit) {
                break;
            }
        }
        while (nm > best_nm) { /* undo the moves after the best prefix */
            v = b->moves[--nm];
            pw[where[v]] -= g->vw[v];
            where[v] = 1 - where[v];
            pw[where[v]] += g->vw[v];
        }
        cut = best_cut;
        if (best_nm == 0) break;
    }
    return cut;
}

/* Greedy graph growing: side 0 grows from a random vertex, always taking the
 * outside vertex whose move lowers the cut most, until it weighs tw0 (a new
 * random seed is taken when a component is used up). */
static void fgl__g_grow(const fgl__g_wg *g, int tw0, int *where, fgl__g_bis *b, fgl_rng *r) {
    int n = g->n, v, k, w0 = 0;
    fgl__g_pq q;
    q.heap = b->heap0;
    q.pos = b->pos0;
    q.key = b->gain;
    q.n = 0;
    for (v = 0; v < n; v++) {
        int d = 0;
        for (k = g->xadj[v]; k < g->xadj[v + 1]; k++) d += g->ew[k];
        b->gain[v] = -d;
        where[v] = 1;
        b->pos0[v] = -1;
    }
    while (w0 < tw0) {
        if (q.n == 0) { /* a random vertex still outside */
            int start = (int)fgl_rng_below(r, (uint64_t)n), i, found = -1;
            for (i = 0; i < n; i++) {
                int c = (start + i) % n;
                if (where[c] == 1) {
                    found = c;
                    break;
                }
            }
            if (found < 0) break;
            fgl__g_pq_insert(&q, found);
        }
        v = fgl__g_pq_pop(&q);
        where[v] = 0;
        w0 += g->vw[v];
        for (k = g->xadj[v]; k < g->xadj[v + 1]; k++) {
            int u = g->adj[k];
            if (where[u] != 1) continue;
            b->gain[u] += 2 * g->ew[k];
            if (b->pos0[u] >= 0) fgl__g_pq_fix(&q, u);
            else fgl__g_pq_insert(&q, u);
        }
    }
}

/* Best of ntries grown + FM-refined bisections with side 0 of weight about
 * tw0, into where (b->where is scratch). */
static void fgl__g_bisect(const fgl__g_wg *g, int tw0, double ub, int ntries, fgl__g_bis *b, int *where, fgl_rng *r) {
    int maxw[2], t, best_cut = INT_MAX, best_bad = INT_MAX, tw1 = g->tvw - tw0;
    maxw[0] = (int)ceil(tw0 * (1.0 + ub));
    maxw[1] = (int)ceil(tw1 * (1.0 + ub));
    for (t = 0; t < ntries; t++) {
        int pw[2], v, cut, bad;
        fgl__g_grow(g, tw0, b->where, b, r);
        pw[0] = pw[1] = 0;
        for (v = 0; v < g->n; v++) pw[b->where[v]] += g->vw[v];
        cut = fgl__g_fm2(g, b->where, pw, maxw, fgl__g_cut2(g, b->where), 10, b, r);
        bad = fgl__g_bad2(pw, maxw);
        if (bad < best_bad || (bad == best_bad && cut < best_cut)) {
            best_bad = bad;
            best_cut = cut;
            memcpy(where, b->where, sizeof(int) * (size_t)g->n);
        }
    }
}

/* Induced subgraph on the vertices with where[v] == side; back[i] = the
 * vertex of g that is vertex i of s; map is scratch of g->n. */
static int fgl__g_wg_sub(const fgl__g_wg *g, const int *where, int side, fgl__g_wg *s, int *map, int *back) {
    int v, k, ns = 0, nnz = 0, rc;
    for (v = 0; v < g->n; v++) {
        if (where[v] == side) {
            map[v] = ns;
            back[ns++] = v;
            for (k = g->xadj[v]; k < g->xadj[v + 1]; k++) nnz += where[g->adj[k]] == side;
        } else {
            map[v] = -1;
        }
    }
    rc = fgl__g_wg_alloc(s, ns, nnz);
    if (rc) return rc;
    nnz = 0;
    s->tvw = 0;
    for (v = 0; v < ns; v++) {
        int x = back[v];
        for (k = g->xadj[x]; k < g->xadj[x + 1]; k++)
            if (where[g->adj[k]] == side) {
                s->adj[nnz] = map[g->adj[k]];
                s->ew[nnz++] = g->ew[k];
            }
        s->xadj[v + 1] = nnz;
        s->vw[v] = g->vw[x];
        s->tvw += g->vw[x];
    }
    return FGL_OK;
}

static int fgl__g_coarsen(const fgl__g_wg *g, int maxvw, fgl_rng *r, int *cmap, fgl__g_wg *cg);

/* Multilevel bisection: coarsen g further (to about 40 vertices), take the
 * best of ntries grown + FM-refined bisections there, then project it back
 * level by level with an FM refinement at each. */
static int fgl__g_mlbisect(const fgl__g_wg *g, int tw0, double ub, int ntries, fgl__g_bis *b, int *where,
                           fgl_rng *r) {
    fgl__g_wg lv[FGL__G_MAX_LEVELS];
    int *cm[FGL__G_MAX_LEVELS], *w = NULL, L = 0, l, v, rc = FGL_OK, maxw[2];
    maxw[0] = (int)ceil(tw0 * (1.0 + ub));
    maxw[1] = (int)ceil((g->tvw - tw0) * (1.0 + ub));
    lv[0] = *g; /* borrowed, never freed here */
    while (L + 1 < FGL__G_MAX_LEVELS && lv[L].n > 40) {
        int maxvw = (int)(1.5 * g->tvw / 40);
        if (maxvw < 2) maxvw = 2;
        cm[L] = FGL__G_NEW(int, (size_t)lv[L].n);
        rc = cm[L] ? fgl__g_coarsen(&lv[L], maxvw, r, cm[L], &lv[L + 1]) : FGL_ERR_NOMEM;
        if (rc) {
            FGL_FREE(cm[L]);
            goto done;
        }
        L++;
        if (lv[L].n > 0.9 * lv[L - 1].n) break;
    }
    w = FGL__G_NEW(int, (size_t)lv[L].n);
    if (!w) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    fgl__g_bisect(&lv[L], tw0, ub, ntries, b, w, r);
    for (l = L - 1; l >= 0; l--) {
        int *wl = l == 0 ? where : FGL__G_NEW(int, (size_t)lv[l].n), pw[2];
        if (!wl) {
            rc = FGL_ERR_NOMEM;
            goto done;
        }
        pw[0] = pw[1] = 0;
        for (v = 0; v < lv[l].n; v++) {
            wl[v] = w[cm[l][v]];
            pw[wl[v]] += lv[l].vw[v];
        }
        FGL_FREE(w);
        w = wl;
        fgl__g_fm2(&lv[l], w, pw, maxw, fgl__g_cut2(&lv[l], w), 10, b, r);
    }
    if (L == 0) memcpy(where, w, sizeof(int) * (size_t)g->n);
    if (w == where) w = NULL;
done:
    FGL_FREE(w);
    for (l = 1; l <= L; l++) fgl__g_wg_free(&lv[l]);
    for (l = 0; l < L; l++) FGL_FREE(cm[l]);
    return rc;
}

/* Recursive bisection of g into k parts numbered first.. into part. */
static int fgl__g_rb(const fgl__g_wg *g, int k, int first, int *part, int ntries, fgl__g_bis *b, fgl_rng *r) {
    int k1 = k / 2, *where = NULL, *map = NULL, *back0 = NULL, *back1 = NULL, *p0 = NULL, *p1 = NULL;
    int v, rc = FGL_OK, tw0;
    fgl__g_wg s0, s1;
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    if (k <= 1 || g->n == 0) {
        for (v = 0; v < g->n; v++) part[v] = first;
        return FGL_OK;
    }
    tw0 = (int)((long long)g->tvw * k1 / k);
    where = FGL__G_NEW(int, (size_t)g->n);
    map = FGL__G_NEW(int, (size_t)g->n);
    back0 = FGL__G_NEW(int, (size_t)g->n);
    back1 = FGL__G_NEW(int, (size_t)g->n);
    p0 = FGL__G_NEW(int, (size_t)g->n);
    p1 = FGL__G_NEW(int, (size_t)g->n);
    if (!where || !map || !back0 || !back1 || !p0 || !p1) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    rc = fgl__g_mlbisect(g, tw0, 0.02, ntries, b, where, r);
    if (!rc) rc = fgl__g_wg_sub(g, where, 0, &s0, map, back0);
    if (!rc) rc = fgl__g_wg_sub(g, where, 1, &s1, map, back1);
    if (!rc) rc = fgl__g_rb(&s0, k1, first, p0, ntries, b, r);
    if (!rc) rc = fgl__g_rb(&s1, k - k1, first + k1, p1, ntries, b, r);
    if (!rc) {
        for (v = 0; v < s0.n; v++) part[back0[v]] = p0[v];
        for (v = 0; v < s1.n; v++) part[back1[v]] = p1[v];
    }
done:
    fgl__g_wg_free(&s0);
    fgl__g_wg_free(&s1);
    FGL_FREE(where);
    FGL_FREE(map);
    FGL_FREE(back0);
    FGL_FREE(back1);
    FGL_FREE(p0);
    FGL_FREE(p1);
    return rc;
}

/* One coarsening step: heavy-edge matching in random order (ties broken at
 * random, coarse vertices capped at maxvw), then, if that leaves the graph
 * large, pairing of leftover vertices that share a neighbour and of isolated
 * ones; contraction sums vertex weights and parallel edge weights. */
static int fgl__g_coarsen(const fgl__g_wg *g, int maxvw, fgl_rng *r, int *cmap, fgl__g_wg *cg) {
    int n = g->n, *match = NULL, *perm = NULL, *pend = NULL, *mark = NULL, *members = NULL;
    int i, k, cn = 0, unmatched = 0, nnz, rc = FGL_OK, iso = -1;
    match = FGL__G_NEW(int, n);
    perm = FGL__G_NEW(int, n);
    pend = FGL__G_NEW(int, n);
    mark = FGL__G_NEW(int, n);
    members = FGL__G_NEW2(int, n, 2);
    if (!match || !perm || !pend || !mark || !members) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    for (i = 0; i < n; i++) {
        match[i] = -1;
        perm[i] = i;
        pend[i] = -1;
    }
    fgl_rng_shuffle(r, perm, n);
    for (i = 0; i < n; i++) {
        int v = perm[i], best = -1, bw = -1, bvw = INT_MAX, d = g->xadj[v + 1] - g->xadj[v], start, j;
        if (match[v] >= 0 || d == 0) {
            unmatched += match[v] < 0;
            continue;
        }
        /* scan from a random offset: ties go to a random neighbour */
        start = d > 1 ? (int)fgl_rng_below(r, (uint64_t)d) : 0;
        for (j = 0; j < d; j++) {
            int kk = g->xadj[v] + (start + j < d ? start + j : start + j - d);
            int u = g->adj[kk], w = g->ew[kk];
            if (match[u] >= 0 || u == v || g->vw[u] + g->vw[v] > maxvw) continue;
            if (w > bw || (w == bw && g->vw[u] < bvw)) {
                best = u;
                bw = w;
                bvw = g->vw[u];
            }
        }
        if (best >= 0) {
            match[v] = best;
            match[best] = v;
        } else {
            unmatched++;
        }
    }
    if (unmatched > n / 10) { /* two-hop pairing of the leftovers */
        for (i = 0; i < n; i++) {
            int v = perm[i], hub = -1, hw = -1;
            if (match[v] >= 0) continue;
            if (g->xadj[v] == g->xadj[v + 1]) {
                if (iso >= 0 && g->vw[iso] + g->vw[v] <= maxvw) {
                    match[v] = iso;
                    match[iso] = v;
                    iso = -1;
                } else {
                    iso = v;
                }
                continue;
            }
            for (k = g->xadj[v]; k < g->xadj[v + 1]; k++)
                if (g->ew[k] > hw) {
                    hw = g->ew[k];
                    hub = g->adj[k];
                }
            if (pend[hub] >= 0 && match[pend[hub]] < 0 && g->vw[pend[hub]] + g->vw[v] <= maxvw) {
                match[v] = pend[hub];
                match[pend[hub]] = v;
                pend[hub] = -1;
            } else {
                pend[hub] = v;
            }
        }
    }
    for (i = 0; i < n; i++) cmap[i] = -1;
    for (i = 0; i < n; i++) {
        if (cmap[i] >= 0) continue;
        members[2 * cn] = i;
        members[2 * cn + 1] = match[i] >= 0 && match[i] != i ? match[i] : -1;
        cmap[i] = cn;
        if (match[i] >= 0) cmap[match[i]] = cn;
        cn++;
    }
    rc = fgl__g_wg_alloc(cg, cn, g->xadj[n]);
    if (rc) goto done;
    for (i = 0; i < cn; i++) mark[i] = -1;
    nnz = 0;
    cg->tvw = g->tvw;
    for (i = 0; i < cn; i++) {
        int start = nnz, s;
        cg->vw[i] = 0;
        for (s = 0; s < 2; s++) {
            int v = members[2 * i + s];
            if (v < 0) continue;
            cg->vw[i] += g->vw[v];
            for (k = g->xadj[v]; k < g->xadj[v + 1]; k++) {
                int cu = cmap[g->adj[k]];
                if (cu == i) continue;
                if (mark[cu] < 0) {
                    mark[cu] = nnz;
                    cg->adj[nnz] = cu;
                    cg->ew[nnz++] = g->ew[k];
                } else {
                    cg->ew[mark[cu]] += g->ew[k];
                }
            }
        }
        for (k = start; k < nnz; k++) mark[cg->adj[k]] = -1;
        cg->xadj[i + 1] = nnz;
    }
    if (nnz > 0) { /* give back the unused tail of the edge arrays */
        int *a2 = FGL__G_RESIZE(int, cg->adj, nnz);
        int *w2;
        if (a2) cg->adj = a2;
        w2 = FGL__G_RESIZE(int, cg->ew, nnz);
        if (w2) cg->ew = w2;
    }
done:
    FGL_FREE(match);
    FGL_FREE(perm);
    FGL_FREE(pend);
    FGL_FREE(mark);
    FGL_FREE(members);
    return rc;
}

/* Scratch of the k-way stages. */
typedef struct fgl__g_kw {
    int *conn, *tl;      /* k: connectivity to each part (zero between uses), touched parts */
    int *perm, *next;    /* n: vertex lists of the refinement passes */
    int *flag;           /* n: pass stamps */
} fgl__g_kw;

/* Connectivity of v to the parts around it into kw->conn (touched list tl);
 * returns the number of touched parts. */
static int fgl__g_conn(const fgl__g_wg *g, const int *part, int v, fgl__g_kw *kw) {
    int k, nt = 0;
    for (k = g->xadj[v]; k < g->xadj[v + 1]; k++) {
        int p = part[g->adj[k]];
        if (kw->conn[p] == 0) kw->tl[nt++] = p;
        kw->conn[p] += g->ew[k];
    }
    return nt;
}

static void fgl__g_conn_clear(fgl__g_kw *kw, int nt) {
    int i;
    for (i = 0; i < nt; i++) kw->conn[kw->tl[i]] = 0;
}

/* Greedy k-way refinement: boundary vertices in random order move to the
 * adjacent part that lowers the cut most (or keeps it and improves the
 * balance) if that part has room. The first pass visits every vertex, later
 * passes only the vertices next to one that moved in the pass before. */
static void fgl__g_kway_refine(const fgl__g_wg *g, int *part, int *pw, int maxpw, int npass, fgl__g_kw *kw,
                               fgl_rng *r) {
    int n = g->n, pass, i, nlist = n, *list = kw->perm, *next = kw->next;
    for (i = 0; i < n; i++) {
        list[i] = i;
        kw->flag[i] = 0;
    }
    for (pass = 0; pass < npass && nlist > 0; pass++) {
        int nnext = 0, *tmp;
        fgl_rng_shuffle(r, list, nlist);
        for (i = 0; i < nlist; i++) {
            int v = list[i], a = part[v], k, nt, j, best = -1, bg = INT_MIN, id, vw = g->vw[v], bnd = 0;
            for (k = g->xadj[v]; k < g->xadj[v + 1]; k++)
                if (part[g->adj[k]] != a) {
                    bnd = 1;
                    break;
                }
            if (!bnd) continue;
            nt = fgl__g_conn(g, part, v, kw);
            id = kw->conn[a];
            for (j = 0; j < nt; j++) {
                int q = kw->tl[j], gn;
                if (q == a || pw[q] + vw > maxpw) continue;
                gn = kw->conn[q] - id;
                if (gn > bg || (gn == bg && best >= 0 && pw[q] < pw[best])) {
                    bg = gn;
                    best = q;
                }
            }
            fgl__g_conn_clear(kw, nt);
            if (best >= 0 && (bg > 0 || (bg == 0 && pw[best] + vw < pw[a]) || pw[a] > maxpw)) {
                part[v] = best;
                pw[a] -= vw;
                pw[best] += vw;
                if (kw->flag[v] != pass + 1) {
                    kw->flag[v] = pass + 1;
                    next[nnext++] = v;
                }
                for (k = g->xadj[v]; k < g->xadj[v + 1]; k++) {
                    int u = g->adj[k];
                    if (kw->flag[u] != pass + 1) {
                        kw->flag[u] = pass + 1;
                        next[nnext++] = u;
                    }
                }
            }
        }
        tmp = list;
        list = next;
        next = tmp;
        nlist = nnext;
    }
}

static int fgl__g_lightest(const int *pw, int k) {
    int p, best = 0;
    for (p = 1; p < k; p++)
        if (pw[p] < pw[best]) best = p;
    return best;
}

/* Best destination for v out of an overweight part: the adjacent part with
 * room and the largest gain, else the lightest part if it has room. */
static int fgl__g_dest(const fgl__g_wg *g, const int *part, const int *pw, int k, int maxpw, int v, fgl__g_kw *kw,
                     int *gain) {
    int a = part[v], nt = fgl__g_conn(g, part, v, kw), id = kw->conn[a], j, best = -1, bg = INT_MIN;
    for (j = 0; j < nt; j++) {
        int q = kw->tl[j];
        if (q == a || pw[q] + g->vw[v] > maxpw) continue;
        if (kw->conn[q] - id > bg) {
            bg = kw->conn[q] - id;
            best = q;
        }
    }
    fgl__g_conn_clear(kw, nt);
    if (best < 0) {
        int l = fgl__g_lightest(pw, k);
        if (l != a && pw[l] + g->vw[v] <= maxpw) {
            best = l;
            bg = -id;
        }
    }
    *gain = bg;
    return best;
}

static int fgl__g_cand_cmp(const void *x, const void *y) {
    const int *a = (const int *)x, *b = (const int *)y;
    if (a[0] != b[0]) return a[0] > b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* Forced balancing: from every overweight part move the vertices that cost
 * least to parts with room, until no part exceeds maxpw or nothing can move. */
static void fgl__g_kway_balance(const fgl__g_wg *g, int k, int *part, int *pw, int maxpw, fgl__g_kw *kw, int *cand) {
    int round, v, p;
    for (round = 0; round < 64; round++) {
        int over = 0, nc = 0, i, moved = 0;
        for (p = 0; p < k; p++) over |= pw[p] > maxpw;
        if (!over) return;
        for (v = 0; v < g->n; v++) {
            int gain;
            if (pw[part[v]] <= maxpw) continue;
            if (fgl__g_dest(g, part, pw, k, maxpw, v, kw, &gain) < 0) continue;
            cand[2 * nc] = gain;
            cand[2 * nc + 1] = v;
            nc++;
        }
        qsort(cand, (size_t)nc, 2 * sizeof(int), fgl__g_cand_cmp);
        for (i = 0; i < nc; i++) {
            int gain, q, a;
            v = cand[2 * i + 1];
            a = part[v];
            if (pw[a] <= maxpw) continue;
            q = fgl__g_dest(g, part, pw, k, maxpw, v, kw, &gain);
            if (q < 0) continue;
            part[v] = q;
            pw[a] -= g->vw[v];
            pw[q] += g->vw[v];
            moved++;
        }
        if (!moved) return;
    }
}

/* Give every empty part one vertex: the vertex of the largest part with the
 * fewest edges to its own part (first such id). Only on the input graph,
 * where vertex weights are 1, so balance can only improve. */
static void fgl__g_fill_empty(const fgl__g_wg *g, int k, int *part, int *pw) {
    int p, v, e;
    for (p = 0; p < k; p++) {
        int big, best = -1, bid = INT_MAX;
        if (pw[p] > 0) continue;
        big = 0;
        for (v = 1; v < k; v++)
            if (pw[v] > pw[big]) big = v;
        if (pw[big] < 2) return;
        for (v = 0; v < g->n; v++) {
            int id = 0;
            if (part[v] != big) continue;
            for (e = g->xadj[v]; e < g->xadj[v + 1]; e++) id += part[g->adj[e]] == big ? g->ew[e] : 0;
            if (id < bid) {
                bid = id;
                best = v;
            }
        }
        part[best] = p;
        pw[big] -= g->vw[best];
        pw[p] += g->vw[best];
    }
}

FGLDEF fgl_partition_config fgl_partition_default(void) {
    fgl_partition_config o;
    memset(&o, 0, sizeof o);
    o.imbalance = 0.05;
    o.coarsen_to = 0;
    o.n_init = 8;
    o.refine_passes = 10;
    o.n_cuts = 1;
    return o;
}

FGLDEF long fgl_edge_cut(const fgl_csr *adj, const int *part) {
    long cut = 0;
    int i, k;
    for (i = 0; i < adj->rows; i++)
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++)
            if (adj->indices[k] > i && part[adj->indices[k]] != part[i]) cut++;
    return cut;
}

static long long fgl__g_wg_cut(const fgl__g_wg *g, const int *part) {
    long long cut = 0;
    int v, k;
    for (v = 0; v < g->n; v++)
        for (k = g->xadj[v]; k < g->xadj[v + 1]; k++)
            if (part[g->adj[k]] != part[v]) cut += g->ew[k];
    return cut / 2;
}

/* One multilevel run on lv[0]; the partition of lv[0] goes to part. */
static int fgl__g_multilevel(fgl__g_wg *lv, int **cmaps, int k, int maxpw, int coarsen_to,
                             const fgl_partition_config *o, fgl_rng *r, int *part, int *pw, fgl__g_kw *kw, int *cand) {
    int L = 0, l, rc = FGL_OK, v, t, n_ip, *cpart = NULL, *tpart = NULL, best_over = 0;
    long long best_cut = 0;
    fgl__g_bis b;
    memset(&b, 0, sizeof b);
    /* coarsen */
    while (L + 1 < FGL__G_MAX_LEVELS && lv[L].n > coarsen_to) {
        int maxvw = (int)(1.5 * lv[0].tvw / coarsen_to);
        if (maxvw < 2) maxvw = 2;
        cmaps[L] = FGL__G_NEW(int, (size_t)lv[L].n);
        rc = cmaps[L] ? fgl__g_coarsen(&lv[L], maxvw, r, cmaps[L], &lv[L + 1]) : FGL_ERR_NOMEM;
        if (rc) {
            FGL_FREE(cmaps[L]);
            cmaps[L] = NULL;
            goto done;
        }
        L++;
        if (lv[L].n > 0.95 * lv[L - 1].n) break; /* no longer shrinking */
    }
    /* initial partition of the coarsest graph: the best of a few recursive
     * bisections, each balanced and refined there */
    cpart = FGL__G_NEW(int, (size_t)lv[L].n);
    tpart = FGL__G_NEW(int, (size_t)lv[L].n);
    rc = cpart && tpart ? fgl__g_bis_init(&b, lv[L].n) : FGL_ERR_NOMEM;
    n_ip = lv[L].xadj[lv[L].n] > 2000000 ? 1 : lv[L].xadj[lv[L].n] > 500000 ? 2 : 4;
    for (t = 0; t < n_ip && !rc; t++) {
        long long cut;
        int over = 0, p;
        rc = fgl__g_rb(&lv[L], k, 0, tpart, o->n_init, &b, r);
        if (rc) break;
        memset(pw, 0, sizeof(int) * (size_t)k);
        for (v = 0; v < lv[L].n; v++) pw[tpart[v]] += lv[L].vw[v];
        fgl__g_kway_balance(&lv[L], k, tpart, pw, maxpw, kw, cand);
        fgl__g_kway_refine(&lv[L], tpart, pw, maxpw, o->refine_passes, kw, r);
        for (p = 0; p < k; p++) over += pw[p] > maxpw ? pw[p] - maxpw : 0;
        cut = fgl__g_wg_cut(&lv[L], tpart);
        if (t == 0 || over < best_over || (over == best_over && cut < best_cut)) {
            best_over = over;
            best_cut = cut;
            memcpy(cpart, tpart, sizeof(int) * (size_t)lv[L].n);
        }
    }
    fgl__g_bis_free(&b);
    FGL_FREE(tpart);
    tpart = NULL;
    if (rc) goto done;
    /* uncoarsen: project, balance, refine */
    for (l = L; l >= 0; l--) {
        int *pl = l == 0 ? part : FGL__G_NEW(int, (size_t)lv[l].n);
        if (!pl) {
            rc = FGL_ERR_NOMEM;
            goto done;
        }
        if (l == L) memcpy(pl, cpart, sizeof(int) * (size_t)lv[l].n);
        else
            for (v = 0; v < lv[l].n; v++) pl[v] = cpart[cmaps[l][v]];
        FGL_FREE(cpart);
        cpart = pl;
        memset(pw, 0, sizeof(int) * (size_t)k);
        for (v = 0; v < lv[l].n; v++) pw[cpart[v]] += lv[l].vw[v];
        fgl__g_kway_balance(&lv[l], k, cpart, pw, maxpw, kw, cand);
        fgl__g_kway_refine(&lv[l], cpart, pw, maxpw, o->refine_passes, kw, r);
        fgl__g_kway_balance(&lv[l], k, cpart, pw, maxpw, kw, cand);
    }
    fgl__g_fill_empty(&lv[0], k, part, pw);
    cpart = NULL; /* it is part now */
done:
    if (cpart != part) FGL_FREE(cpart);
    FGL_FREE(tpart);
    for (l = 1; l <= L; l++) fgl__g_wg_free(&lv[l]);
    for (l = 0; l < L; l++) {
        FGL_FREE(cmaps[l]);
        cmaps[l] = NULL;
    }
    return rc;
}

FGLDEF int fgl_partition_metis(const fgl_csr *adj, int k, uint64_t seed, int *part, fgl_error *err) {
    return fgl_partition_metis_ex(adj, k, seed, NULL, part, err);
}

FGLDEF int fgl_partition_metis_ex(const fgl_csr *adj, int k, uint64_t seed, const fgl_partition_config *opt,
                                  int *part, fgl_error *err) {
    fgl_partition_config o = opt ? *opt : fgl_partition_default();
    fgl__g_wg lv[FGL__G_MAX_LEVELS];
    int *cmaps[FGL__G_MAX_LEVELS];
    fgl__g_kw kw;
    int n, i, q, run, rc = FGL_OK, maxpw, coarsen_to, *trial = NULL, *pw = NULL, *cand = NULL;
    long long best_cut = -1;
    int best_over = INT_MAX;
    double lg;
    memset(lv, 0, sizeof lv);
    memset(cmaps, 0, sizeof cmaps);
    memset(&kw, 0, sizeof kw);
    if (!adj || adj->rows != adj->cols || !part)
        return fgl_error_set(err, FGL_ERR_ARG, "partition_metis: need a square adjacency and an output array");
    n = adj->rows;
    if (k < 1 || (k > n && n > 0))
        return fgl_error_set(err, FGL_ERR_ARG, "partition_metis: k = %d parts for %d nodes (need 1 <= k <= n)", k, n);
    if (!(o.imbalance >= 0) || o.n_init < 1 || o.refine_passes < 0 || o.n_cuts < 1 || o.coarsen_to < 0)
        return fgl_error_set(err, FGL_ERR_ARG, "partition_metis: bad options");
    if ((rc = fgl__g_check_graph_arg(adj, 1, "partition_metis", err)) != FGL_OK) return rc;
    if (k == 1 || n == 0) {
        for (i = 0; i < n; i++) part[i] = 0;
        return FGL_OK;
    }
    maxpw = (int)ceil((1.0 + o.imbalance) * n / k - 1e-9);
    if ((long long)maxpw * k < n) maxpw = (n + k - 1) / k;
    lg = log((double)k) / log(2.0);
    coarsen_to = o.coarsen_to > 0 ? o.coarsen_to : (int)fmax(30.0 * k, n / (20.0 * lg));
    if (coarsen_to < k) coarsen_to = k;
    /* the input graph as level 0 (unit weights, self loops dropped) */
    rc = fgl__g_wg_alloc(&lv[0], n, adj->nnz);
    trial = FGL__G_NEW(int, n);
    pw = FGL__G_NEW(int, k);
    cand = FGL__G_NEW2(int, n, 2);
    kw.conn = FGL__G_NEW(int, k);
    kw.tl = FGL__G_NEW(int, k);
    kw.perm = FGL__G_NEW(int, n);
    kw.next = FGL__G_NEW(int, n);
    kw.flag = FGL__G_NEW(int, n);
    if (rc || !trial || !pw || !cand || !kw.conn || !kw.tl || !kw.perm || !kw.next || !kw.flag) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "partition_metis: out of memory (%d nodes)", n);
        goto done;
    }
    memset(kw.conn, 0, sizeof(int) * (size_t)k);
    q = 0;
    for (i = 0; i < n; i++) {
        int e;
        for (e = adj->indptr[i]; e < adj->indptr[i + 1]; e++) {
            int j = adj->indices[e];
            if (j == i) continue;
            lv[0].adj[q] = j;
            lv[0].ew[q++] = 1;
        }
        lv[0].xadj[i + 1] = q;
        lv[0].vw[i] = 1;
    }
    lv[0].tvw = n;
    for (run = 0; run < o.n_cuts; run++) {
        fgl_rng r;
        long long cut;
        int over = 0, p;
        fgl_rng_init(&r, seed, FGL__G_ST_PART + 16u * (uint64_t)run);
        rc = fgl__g_multilevel(lv, cmaps, k, maxpw, coarsen_to, &o, &r, trial, pw, &kw, cand);
        if (rc) {
            rc = fgl_error_set(err, rc, "partition_metis: out of memory (%d nodes)", n);
            goto done;
        }
        for (p = 0; p < k; p++) over += pw[p] > maxpw ? pw[p] - maxpw : 0;
        cut = fgl__g_wg_cut(&lv[0], trial);
        if (best_cut < 0 || over < best_over || (over == best_over && cut < best_cut)) {
            best_cut = cut;
            best_over = over;
            memcpy(part, trial, sizeof(int) * (size_t)n);
        }
    }
done:
    fgl__g_wg_free(&lv[0]);
    FGL_FREE(trial);
    FGL_FREE(pw);
    FGL_FREE(cand);
    FGL_FREE(kw.conn);
    FGL_FREE(kw.tl);
    FGL_FREE(kw.perm);
    FGL_FREE(kw.next);
    FGL_FREE(kw.flag);
    return rc;
}

FGLDEF int fgl_partition_random(int n, int k, uint64_t seed, int *part, fgl_error *err) {
    int *perm, i;
    fgl_rng r;
    if (n < 0 || k < 1 || (n > 0 && !part))
        return fgl_error_set(err, FGL_ERR_ARG, "partition_random: n = %d, k = %d", n, k);
    perm = FGL__G_NEW(int, n);
    if (!perm) return fgl_error_set(err, FGL_ERR_NOMEM, "partition_random: out of memory");
    for (i = 0; i < n; i++) perm[i] = i;
    fgl_rng_init(&r, seed, FGL__G_ST_PART);
    fgl_rng_shuffle(&r, perm, n);
    for (i = 0; i < n; i++) part[perm[i]] = i % k;
    FGL_FREE(perm);
    return FGL_OK;
}

/* --- Louvain and modularity ----------------------------------------------- */

/* A weighted graph of the Louvain levels: adjacency without self loops plus
 * each node's self weight (A_ii) and strength k_i = A_ii + sum_j A_ij. */
typedef struct fgl__g_lg {
    int n;
    int *xadj, *adj;
    double *w, *self, *k;
} fgl__g_lg;

static void fgl__g_lg_free(fgl__g_lg *g) {
    FGL_FREE(g->xadj);
    FGL_FREE(g->adj);
    FGL_FREE(g->w);
    FGL_FREE(g->self);
    FGL_FREE(g->k);
    memset(g, 0, sizeof *g);
}

static int fgl__g_lg_alloc(fgl__g_lg *g, int n, int nnz) {
    memset(g, 0, sizeof *g);
    g->xadj = FGL__G_NEW(int, (size_t)n + 1);
    g->adj = FGL__G_NEW(int, nnz);
    g->w = FGL__G_NEW(double, nnz);
    g->self = FGL__G_NEW(double, n);
    g->k = FGL__G_NEW(double, n);
    if (!g->xadj || !g->adj || !g->w || !g->self || !g->k) {
        fgl__g_lg_free(g);
        return FGL_ERR_NOMEM;
    }
    g->n = n;
    g->xadj[0] = 0;
    return FGL_OK;
}

/* Local moving on one level. comm receives the communities (node ids of
 * this level); returns the number of nodes that changed community. */
static int fgl__g_louvain_move(const fgl__g_lg *g, double m2, double gamma, fgl_rng *r, int *comm, double *tot,
                               double *nw, int *mark, int *list, int *perm) {
    int n = g->n, v, i, e, pass, changed = 0;
    for (v = 0; v < n; v++) {
        comm[v] = v;
        tot[v] = g->k[v];
        mark[v] = 0;
        nw[v] = 0;
        perm[v] = v;
    }
    fgl_rng_shuffle(r, perm, n);
    for (pass = 0; pass < 1000; pass++) {
        int moves = 0;
        double improve = 0;
        for (i = 0; i < n; i++) {
            int a, best, nt = 0, j;
            double kv, stay, bg;
            v = perm[i];
            a = comm[v];
            kv = g->k[v];
            for (e = g->xadj[v]; e < g->xadj[v + 1]; e++) {
                int c = comm[g->adj[e]];
                if (!mark[c]) {
                    mark[c] = 1;
                    list[nt++] = c;
                }
                nw[c] += g->w[e];
            }
            tot[a] -= kv;
            stay = nw[a] - gamma * tot[a] * kv / m2;
            best = a;
            bg = stay;
            for (j = 0; j < nt; j++) {
                int c = list[j];
                double gn = nw[c] - gamma * tot[c] * kv / m2;
                if (gn > bg + 1e-12 * m2) {
                    bg = gn;
                    best = c;
                }
            }
            tot[best] += kv;
            comm[v] = best;
            if (best != a) {
                moves++;
                improve += bg - stay;
            }
            for (j = 0; j < nt; j++) {
                mark[list[j]] = 0;
                nw[list[j]] = 0;
            }
        }
        changed += moves;
        if (moves == 0 || 2.0 * improve / m2 < 1e-7) break;
    }
    return changed;
}

/* Contract the communities comm of g into h; map receives node -> new
 * community id (0..nc-1, numbered by first appearance). */
static int fgl__g_louvain_aggregate(const fgl__g_lg *g, const int *comm, int *map, int *nc_out, fgl__g_lg *h, int *pos,
                                  int *bptr, int *bids) {
    int n = g->n, v, c, nc = 0, e, rc, nnz = 0;
    for (v = 0; v < n; v++) pos[v] = -1;
    for (v = 0; v < n; v++) {
        if (pos[comm[v]] < 0) pos[comm[v]] = nc++;
    }
    for (v = 0; v < n; v++) map[v] = pos[comm[v]];
    fgl__g_bucket(map, n, nc, bptr, bids);
    rc = fgl__g_lg_alloc(h, nc, g->xadj[n]);
    if (rc) return rc;
    for (v = 0; v < n; v++) pos[v] = -1; /* now: slot of a neighbour community in h */
    for (c = 0; c < nc; c++) {
        int start = nnz, q;
        h->self[c] = 0;
        h->k[c] = 0;
        for (q = bptr[c]; q < bptr[c + 1]; q++) {
            v = bids[q];
            h->self[c] += g->self[v];
            h->k[c] += g->k[v];
            for (e = g->xadj[v]; e < g->xadj[v + 1]; e++) {
                int d = map[g->adj[e]];
                if (d == c) {
                    h->self[c] += g->w[e];
                    continue;
                }
                if (pos[d] < 0) {
                    pos[d] = nnz;
                    h->adj[nnz] = d;
                    h->w[nnz++] = 0;
                }
                h->w[pos[d]] += g->w[e];
            }
        }
        for (q = start; q < nnz; q++) pos[h->adj[q]] = -1;
        h->xadj[c + 1] = nnz;
    }
    *nc_out = nc;
    return FGL_OK;
}

FGLDEF int fgl_louvain(const fgl_csr *adj, uint64_t seed, int *comm, int *n_comm, fgl_error *err) {
    return fgl_louvain_ex(adj, seed, 1.0, comm, n_comm, err);
}

FGLDEF int fgl_louvain_ex(const fgl_csr *adj, uint64_t seed, double gamma, int *comm, int *n_comm, fgl_error *err) {
    fgl__g_lg g, h;
    fgl_rng r;
    int n, i, e, rc = FGL_OK, nc = 0;
    int *lcomm = NULL, *newc = NULL, *mark = NULL, *list = NULL, *perm = NULL, *bptr = NULL, *bids = NULL;
    double *tot = NULL, *nw = NULL, m2 = 0;
    memset(&g, 0, sizeof g);
    memset(&h, 0, sizeof h);
    if (!adj || adj->rows != adj->cols || (adj->rows > 0 && !comm))
        return fgl_error_set(err, FGL_ERR_ARG, "louvain: need a square adjacency and an output array");
    if (!(gamma > 0 && gamma < 1e9))
        return fgl_error_set(err, FGL_ERR_ARG, "louvain: resolution %g (must be > 0)", gamma);
    if ((rc = fgl__g_check_graph_arg(adj, 1, "louvain", err)) != FGL_OK) return rc;
    n = adj->rows;
    if (n_comm) *n_comm = 0;
    if (n == 0) return FGL_OK;
    lcomm = FGL__G_NEW(int, n);
    newc = FGL__G_NEW(int, n);
    mark = FGL__G_NEW(int, n);
    list = FGL__G_NEW(int, n);
    perm = FGL__G_NEW(int, n);
    bptr = FGL__G_NEW(int, (size_t)n + 1);
    bids = FGL__G_NEW(int, n);
    tot = FGL__G_NEW(double, n);
    nw = FGL__G_NEW(double, n);
    if (!lcomm || !newc || !mark || !list || !perm || !bptr || !bids || !tot || !nw ||
        fgl__g_lg_alloc(&g, n, adj->nnz)) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "louvain: out of memory (%d nodes)", n);
        goto done;
    }
    {
        int q = 0;
        for (i = 0; i < n; i++) {
            g.self[i] = 0;
            g.k[i] = 0;
            for (e = adj->indptr[i]; e < adj->indptr[i + 1]; e++) {
                int j = adj->indices[e];
                double w = adj->values ? (double)adj->values[e] : 1.0;
                if (!(w >= 0)) {
                    rc = fgl_error_set(err, FGL_ERR_ARG, "louvain: row %d: column %d has weight %g", i, j, w);
                    goto done;
                }
                g.k[i] += w;
                if (j == i) {
                    g.self[i] += w;
                    continue;
                }
                g.adj[q] = j;
                g.w[q++] = w;
            }
            g.xadj[i + 1] = q;
            m2 += g.k[i];
            comm[i] = i;
        }
    }
    nc = n;
    if (m2 > 0) {
        fgl_rng_init(&r, seed, FGL__G_ST_LOUVAIN);
        for (;;) {
            int changed = fgl__g_louvain_move(&g, m2, gamma, &r, lcomm, tot, nw, mark, list, perm), prev = g.n;
            if (changed == 0) break;
            rc = fgl__g_louvain_aggregate(&g, lcomm, mark, &nc, &h, newc, bptr, bids);
            if (rc) {
                rc = fgl_error_set(err, rc, "louvain: out of memory");
                goto done;
            }
            for (i = 0; i < n; i++) comm[i] = mark[comm[i]];
            fgl__g_lg_free(&g);
            g = h;
            memset(&h, 0, sizeof h);
            if (nc == prev) break;
        }
    }
    if (n_comm) *n_comm = nc;
done:
    fgl__g_lg_free(&g);
    fgl__g_lg_free(&h);
    FGL_FREE(lcomm);
    FGL_FREE(newc);
    FGL_FREE(mark);
    FGL_FREE(list);
    FGL_FREE(perm);
    FGL_FREE(bptr);
    FGL_FREE(bids);
    FGL_FREE(tot);
    FGL_FREE(nw);
    return rc;
}

FGLDEF double fgl_modularity(const fgl_csr *adj, const int *comm) {
    int n = adj->rows, i, e, maxc = -1;
    double *tot, *in, m2 = 0, q = 0;
    for (i = 0; i < n; i++) {
        if (comm[i] < 0) return NAN;
        if (comm[i] > maxc) maxc = comm[i];
    }
    tot = FGL__G_NEW(double, (size_t)maxc + 1);
    in = FGL__G_NEW(double, (size_t)maxc + 1);
    if (!tot || !in) {
        FGL_FREE(tot);
        FGL_FREE(in);
        return NAN;
    }
    for (i = 0; i <= maxc; i++) tot[i] = in[i] = 0;
    for (i = 0; i < n; i++)
        for (e = adj->indptr[i]; e < adj->indptr[i + 1]; e++) {
            double w = adj->values ? (double)adj->values[e] : 1.0;
            m2 += w;
            tot[comm[i]] += w;
            if (comm[adj->indices[e]] == comm[i]) in[comm[i]] += w;
        }
    if (m2 > 0)
        for (i = 0; i <= maxc; i++) q += in[i] / m2 - (tot[i] / m2) * (tot[i] / m2);
    FGL_FREE(tot);
    FGL_FREE(in);
    return q;
}

#include "../alone.h"
