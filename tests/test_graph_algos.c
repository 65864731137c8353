/* Tests of fgl_graph.h's generators, properties, encodings, partitioners and splits:
 * generators, synthetic benchmarks, graph properties, DSE/RWSE, the
 * multilevel partitioner, Louvain, and the federated splits.
 *
 * Statistical checks use tolerances of 5 standard deviations computed from
 * the model's variance, with fixed seeds: they are deterministic and would
 * only fail for a real bias. */
#include "../fgl_graph.h"
#include "ft.h"

/* --- helpers --------------------------------------------------------------- */

/* Symmetric, sorted, no duplicates, no self loops. */
static int is_simple_graph(const fgl_csr *a) {
    int i, k;
    if (fgl_csr_validate(a, NULL) != FGL_OK || a->rows != a->cols || a->values) return 0;
    for (i = 0; i < a->rows; i++)
        for (k = a->indptr[i]; k < a->indptr[i + 1]; k++)
            if (a->indices[k] == i) return 0;
    return fgl_graph_is_symmetric(a);
}

static int same_csr(const fgl_csr *a, const fgl_csr *b) {
    if (a->rows != b->rows || a->nnz != b->nnz) return 0;
    if (memcmp(a->indptr, b->indptr, sizeof(int) * (size_t)(a->rows + 1))) return 0;
    return a->nnz == 0 || !memcmp(a->indices, b->indices, sizeof(int) * (size_t)a->nnz);
}

static int build(int n, int m, const int *e, fgl_csr *out) {
    int *u = (int *)malloc(sizeof(int) * (size_t)(m + 1)), *v = (int *)malloc(sizeof(int) * (size_t)(m + 1)), i, rc;
    for (i = 0; i < m; i++) {
        u[i] = e[2 * i];
        v[i] = e[2 * i + 1];
    }
    rc = fgl_graph_from_edges(n, u, v, m, FGL_EDGES_SYMMETRIZE | FGL_EDGES_DROP_SELF_LOOPS, out, NULL);
    free(u);
    free(v);
    return rc;
}

static void path_graph(int n, fgl_csr *out) {
    int e[64], i;
    for (i = 0; i + 1 < n; i++) {
        e[2 * i] = i;
        e[2 * i + 1] = i + 1;
    }
    build(n, n - 1, e, out);
}

static void cycle_graph(int n, fgl_csr *out) {
    int e[64], i;
    for (i = 0; i < n; i++) {
        e[2 * i] = i;
        e[2 * i + 1] = (i + 1) % n;
    }
    build(n, n, e, out);
}

static void star_graph(int leaves, fgl_csr *out) {
    int e[64], i;
    for (i = 0; i < leaves; i++) {
        e[2 * i] = 0;
        e[2 * i + 1] = i + 1;
    }
    build(leaves + 1, leaves, e, out);
}

static void complete_graph(int n, fgl_csr *out) {
    int e[256], i, j, m = 0;
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++) {
            e[2 * m] = i;
            e[2 * m + 1] = j;
            m++;
        }
    build(n, m, e, out);
}

static int max_part_size(const int *part, int n, int k, int *bad_id) {
    int *pw = (int *)calloc((size_t)k, sizeof(int)), i, mx = 0;
    *bad_id = 0;
    for (i = 0; i < n; i++) {
        if (part[i] < 0 || part[i] >= k) {
            *bad_id = 1;
            continue;
        }
        pw[part[i]]++;
    }
    for (i = 0; i < k; i++)
        if (pw[i] > mx) mx = pw[i];
    free(pw);
    return mx;
}

static int balance_limit(int n, int k) { return (int)ceil(1.05 * n / k - 1e-9); }

/* --- generators ---------------------------------------------------------------- */

static void test_gnp(void) {
    /* E ~ Binomial(N, p), N = n(n-1)/2. The population variance S of the
     * degrees has E[S] = (n-1) p (1-p) (1 - 2/n) (degrees are Bin(n-1, p),
     * pairwise covariance p(1-p)); Var(S) ~ (mu4 - sigma^4)/n with the
     * Poisson(lambda) moments: (lambda + 2 lambda^2) / n. */
    int n = 2000, i;
    double p = 0.005, N = (double)n * (n - 1) / 2, E, S, lam = (n - 1) * p;
    fgl_csr a, b, c;
    fgl_error err;
    FT_CHECK(fgl_gen_gnp(n, p, 7, &a, &err) == FGL_OK, "%s", err.msg);
    FT_CHECK(is_simple_graph(&a), "G(n,p) is not a simple symmetric graph");
    E = a.nnz / 2.0;
    FT_NEAR(E, N * p, 5 * sqrt(N * p * (1 - p)), "G(2000, 0.005) edges");
    S = fgl_graph_degree_variance(&a);
    FT_NEAR(S, (n - 1) * p * (1 - p) * (1 - 2.0 / n), 5 * sqrt((lam + 2 * lam * lam) / n), "degree variance");
    FT_NEAR(fgl_graph_avg_degree(&a), 2 * E / n, 1e-12, "average degree = 2E/n");
    FT_CHECK(fgl_gen_gnp(n, p, 7, &b, NULL) == FGL_OK && same_csr(&a, &b), "same seed, different graph");
    FT_CHECK(fgl_gen_gnp(n, p, 8, &c, NULL) == FGL_OK && !same_csr(&a, &c), "different seeds, same graph");
    fgl_csr_free(&a);
    fgl_csr_free(&b);
    fgl_csr_free(&c);
    /* large and sparse: skipping makes this O(n + E) */
    n = 200000;
    p = 5e-5;
    N = (double)n * (n - 1) / 2;
    FT_CHECK(fgl_gen_gnp(n, p, 1, &a, &err) == FGL_OK, "%s", err.msg);
    FT_NEAR(a.nnz / 2.0, N * p, 5 * sqrt(N * p * (1 - p)), "G(200000, 5e-5) edges");
    fgl_csr_free(&a);
    /* extremes and errors */
    FT_CHECK(fgl_gen_gnp(50, 0.0, 1, &a, NULL) == FGL_OK && a.nnz == 0, "p = 0 gives edges");
    fgl_csr_free(&a);
    FT_CHECK(fgl_gen_gnp(50, 1.0, 1, &a, NULL) == FGL_OK && a.nnz == 50 * 49 && is_simple_graph(&a), "p = 1 is not K_50");
    fgl_csr_free(&a);
    FT_CHECK(fgl_gen_gnp(0, 0.5, 1, &a, NULL) == FGL_OK && a.rows == 0, "n = 0");
    fgl_csr_free(&a);
    FT_CHECK(fgl_gen_gnp(10, 1.5, 1, &a, &err) == FGL_ERR_ARG, "p = 1.5 accepted");
    FT_CHECK(fgl_gen_gnp(10, -0.1, 1, &a, &err) == FGL_ERR_ARG, "p < 0 accepted");
    FT_CHECK(fgl_gen_gnp(-1, 0.1, 1, &a, &err) == FGL_ERR_ARG, "n < 0 accepted");
    for (i = 0; i < 1; i++) FT_CHECK(strlen(err.msg) > 0, "no error message");
}

static void test_gnm(void) {
    /* Uniformity: over T draws of G(6, 5), each of the 15 pairs is an edge
     * Binomial(T, 1/3) times. */
    int T = 3000, cnt[6][6], s, i, j, k, bad = 0;
    fgl_csr a;
    fgl_error err;
    memset(cnt, 0, sizeof cnt);
    for (s = 0; s < T; s++) {
        fgl_gen_gnm(6, 5, (uint64_t)s, &a, NULL);
        if (a.nnz != 10) bad++;
        for (i = 0; i < 6; i++)
            for (k = a.indptr[i]; k < a.indptr[i + 1]; k++) cnt[i][a.indices[k]]++;
        fgl_csr_free(&a);
    }
    FT_CHECK(bad == 0, "%d draws without exactly 5 edges", bad);
    for (i = 0; i < 6; i++)
        for (j = i + 1; j < 6; j++)
            FT_NEAR(cnt[i][j], T / 3.0, 5 * sqrt(T * (1.0 / 3) * (2.0 / 3)), "G(6,5) pair frequency");
    FT_CHECK(fgl_gen_gnm(1000, 4000, 3, &a, &err) == FGL_OK && a.nnz == 8000 && is_simple_graph(&a), "G(1000, 4000)");
    fgl_csr_free(&a);
    FT_CHECK(fgl_gen_gnm(20, 190, 3, &a, NULL) == FGL_OK && a.nnz == 380, "G(20, 190) is not K_20");
    fgl_csr_free(&a);
    FT_CHECK(fgl_gen_gnm(20, 191, 3, &a, &err) == FGL_ERR_ARG, "m above n(n-1)/2 accepted");
    FT_CHECK(fgl_gen_gnm(20, 0, 3, &a, NULL) == FGL_OK && a.nnz == 0, "m = 0");
    fgl_csr_free(&a);
}

static void test_sbm(void) {
    /* Edges of block pair (a, b) ~ Binomial(N_ab, p_ab). */
    int sizes[3] = {300, 500, 200}, *blk = (int *)malloc(sizeof(int) * 1000), a, b, i, k, ok = 1;
    double P[9] = {0.05, 0.002, 0.001, 0.002, 0.03, 0.004, 0.001, 0.004, 0.08}, cnt[3][3];
    fgl_csr A, B;
    fgl_error err;
    memset(cnt, 0, sizeof cnt);
    FT_CHECK(fgl_gen_sbm(3, sizes, P, 11, &A, blk, &err) == FGL_OK, "%s", err.msg);
    FT_CHECK(is_simple_graph(&A), "SBM is not a simple symmetric graph");
    for (i = 0; i < 1000; i++) ok &= blk[i] == (i < 300 ? 0 : i < 800 ? 1 : 2);
    FT_CHECK(ok, "block_of wrong");
    for (i = 0; i < 1000; i++)
        for (k = A.indptr[i]; k < A.indptr[i + 1]; k++)
            if (A.indices[k] > i) {
                a = blk[i] < blk[A.indices[k]] ? blk[i] : blk[A.indices[k]];
                b = blk[i] < blk[A.indices[k]] ? blk[A.indices[k]] : blk[i];
                cnt[a][b]++;
            }
    for (a = 0; a < 3; a++)
        for (b = a; b < 3; b++) {
            double N = a == b ? sizes[a] * (sizes[a] - 1) / 2.0 : (double)sizes[a] * sizes[b], p = P[a * 3 + b];
            FT_NEAR(cnt[a][b], N * p, 5 * sqrt(N * p * (1 - p)), "SBM block-pair edges");
        }
    FT_CHECK(fgl_gen_sbm(3, sizes, P, 11, &B, NULL, NULL) == FGL_OK && same_csr(&A, &B), "not deterministic");
    fgl_csr_free(&A);
    fgl_csr_free(&B);
    P[1] = 0.5;
    FT_CHECK(fgl_gen_sbm(3, sizes, P, 1, &A, NULL, &err) == FGL_ERR_ARG, "asymmetric probabilities accepted");
    P[1] = P[3] = 1.5;
    FT_CHECK(fgl_gen_sbm(3, sizes, P, 1, &A, NULL, &err) == FGL_ERR_ARG, "probability > 1 accepted");
    free(blk);
}

static void test_ba(void) {
    int n = 2000, m = 3, i, mn = 1 << 30, mx = 0;
    fgl_csr a;
    fgl_error err;
    FT_CHECK(fgl_gen_ba(n, m, 5, &a, &err) == FGL_OK, "%s", err.msg);
    FT_CHECK(is_simple_graph(&a), "BA is not simple");
    FT_CHECK(a.nnz == 2 * m * (n - m), "BA has %d entries, expected %d", a.nnz, 2 * m * (n - m));
    for (i = m; i < n; i++) {
        int d = a.indptr[i + 1] - a.indptr[i];
        if (d < mn) mn = d;
        if (d > mx) mx = d;
    }
    FT_CHECK(mn >= m, "a node added after the start has degree %d < m", mn);
    /* hubs: G(n, p) of the same mean degree 6 has max degree about 17 */
    FT_CHECK(mx > 40, "BA max degree %d: no hubs", mx);
    FT_CHECK(fgl_graph_degree_variance(&a) > 3 * fgl_graph_avg_degree(&a), "BA degree variance %g too small",
             fgl_graph_degree_variance(&a));
    fgl_csr_free(&a);
    FT_CHECK(fgl_gen_ba(5, 5, 1, &a, &err) == FGL_ERR_ARG, "m = n accepted");
    FT_CHECK(fgl_gen_ba(5, 0, 1, &a, &err) == FGL_ERR_ARG, "m = 0 accepted");
}

static void test_ws(void) {
    /* beta = 0: the ring lattice, every local clustering 3(k-2)/(4(k-1)).
     * beta = 0.2: about 0.2 n k/2 edges leave the lattice (a rewired edge
     * lands back on a free lattice pair with probability < k/(n-1-k)). */
    int n = 1000, k = 6, i, j, q, off = 0, deg_ok = 1;
    double c, E = n * k / 2.0, sd = sqrt(E * 0.2 * 0.8);
    fgl_csr a;
    fgl_error err;
    FT_CHECK(fgl_gen_ws(n, k, 0.0, 3, &a, &err) == FGL_OK, "%s", err.msg);
    for (i = 0; i < n; i++) deg_ok &= a.indptr[i + 1] - a.indptr[i] == k;
    FT_CHECK(deg_ok && a.nnz == n * k, "lattice degrees");
    fgl_graph_clustering(&a, NULL, &c);
    FT_NEAR(c, 3.0 * (k - 2) / (4.0 * (k - 1)), 1e-12, "lattice clustering");
    fgl_csr_free(&a);
    FT_CHECK(fgl_gen_ws(n, k, 0.2, 3, &a, &err) == FGL_OK && is_simple_graph(&a), "WS beta = 0.2");
    FT_CHECK(a.nnz == n * k, "WS has %d entries, expected %d", a.nnz, n * k);
    for (i = 0; i < n; i++)
        for (q = a.indptr[i]; q < a.indptr[i + 1]; q++) {
            j = a.indices[q];
            if (j > i) {
                int dist = j - i < n - (j - i) ? j - i : n - (j - i);
                off += dist > k / 2;
            }
        }
    FT_CHECK(off >= 0.2 * E * (1 - (double)k / (n - 1 - k)) - 5 * sd && off <= 0.2 * E + 5 * sd,
             "%d rewired edges, expected about %.0f", off, 0.2 * E);
    fgl_csr_free(&a);
    FT_CHECK(fgl_gen_ws(10, 3, 0.1, 1, &a, &err) == FGL_ERR_ARG, "odd k accepted");
    FT_CHECK(fgl_gen_ws(10, 10, 0.1, 1, &a, &err) == FGL_ERR_ARG, "k = n accepted");
}

static void test_config(void) {
    /* 3-regular: self loops and multi-edges of the uniform pairing are about
     * Poisson((d-1)/2) + Poisson((d-1)^2/4), mean 2 for d = 3; removing them
     * loses at most 2 + 5 sqrt(2) < 10 edges. */
    int n = 1000, *deg = (int *)malloc(sizeof(int) * (size_t)n), i, ok = 1;
    fgl_csr a;
    fgl_error err;
    for (i = 0; i < n; i++) deg[i] = 3;
    FT_CHECK(fgl_gen_config(n, deg, 9, &a, &err) == FGL_OK && is_simple_graph(&a), "configuration model");
    for (i = 0; i < n; i++) ok &= a.indptr[i + 1] - a.indptr[i] <= 3;
    FT_CHECK(ok, "a degree above the requested one");
    FT_CHECK(a.nnz / 2 >= 1500 - 10 && a.nnz / 2 <= 1500, "%d edges of 1500", a.nnz / 2);
    fgl_csr_free(&a);
    deg[0] = 4;
    FT_CHECK(fgl_gen_config(n, deg, 9, &a, &err) == FGL_ERR_ARG, "odd degree sum accepted");
    deg[0] = -1;
    FT_CHECK(fgl_gen_config(n, deg, 9, &a, &err) == FGL_ERR_ARG, "negative degree accepted");
    free(deg);
}

/* --- properties ---------------------------------------------------------------- */

static void check_props(const char *name, const fgl_csr *a, double dens, double avg, double var, double ent,
                        double sf, double clo, double clus) {
    fgl_graph_props p;
    char what[64];
    FT_CHECK(fgl_graph_properties(a, &p, NULL) == FGL_OK, "%s: properties failed", name);
    snprintf(what, sizeof what, "%s density", name);
    FT_NEAR(p.density, dens, 1e-12, what);
    snprintf(what, sizeof what, "%s average degree", name);
    FT_NEAR(p.avg_degree, avg, 1e-12, what);
    snprintf(what, sizeof what, "%s degree variance", name);
    FT_NEAR(p.degree_variance, var, 1e-12, what);
    snprintf(what, sizeof what, "%s entropy", name);
    FT_NEAR(p.entropy, ent, 1e-12, what);
    snprintf(what, sizeof what, "%s scale-free exponent", name);
    FT_NEAR(p.scale_free, sf, 1e-12, what);
    snprintf(what, sizeof what, "%s closeness", name);
    FT_NEAR(p.closeness, clo, 1e-12, what);
    snprintf(what, sizeof what, "%s clustering", name);
    FT_NEAR(p.clustering, clus, 1e-12, what);
}

static void test_properties_closed_forms(void) {
    /* N nodes, E edges. density 2E/(N(N-1)); avg 2E/N; var population;
     * entropy sum d ln d / 2E; scale-free 1 + N1 / sum ln(d / 0.5);
     * closeness mean of ((r-1)/S) ((r-1)/(N-1)).
     * Path P5 (degrees 1,2,2,2,1): density 2/5, avg 8/5, var 0.24, entropy
     *   3 (2 ln 2) / 8, sf 1 + 5 / (2 ln 2 + 3 ln 4), distance sums
     *   10, 7, 6, 7, 10 -> closeness mean of 4/10, 4/7, 4/6, 4/7, 4/10.
     * Star S6 (centre + 5 leaves): density 1/3, avg 5/3, var 20/9, entropy
     *   5 ln 5 / 10, sf 1 + 6 / (ln 10 + 5 ln 2), closeness (1 + 5 (5/9))/6.
     * Cycle C_n: density 2/(n-1), avg 2, var 0, entropy ln 2, sf 1 + 1/ln 4,
     *   closeness (n-1)/S with S = r(r+1) (n = 2r+1) or r^2 (n = 2r).
     * Complete K5: density 1, avg 4, var 0, entropy ln 4, sf 1 + 1/ln 8,
     *   closeness 1, clustering 1. Values agree with networkx 3.6. */
    fgl_csr a;
    path_graph(5, &a);
    check_props("P5", &a, 0.4, 1.6, 0.24, 0.75 * log(2.0), 1 + 5 / (2 * log(2.0) + 3 * log(4.0)),
                (0.4 + 4.0 / 7 + 4.0 / 6 + 4.0 / 7 + 0.4) / 5, 0);
    fgl_csr_free(&a);
    star_graph(5, &a);
    check_props("S6", &a, 1.0 / 3, 5.0 / 3, 20.0 / 9, log(5.0) / 2, 1 + 6 / (log(10.0) + 5 * log(2.0)),
                (1 + 5 * (5.0 / 9)) / 6, 0);
    fgl_csr_free(&a);
    cycle_graph(6, &a);
    check_props("C6", &a, 0.4, 2, 0, log(2.0), 1 + 1 / log(4.0), 5.0 / 9, 0);
    fgl_csr_free(&a);
    cycle_graph(5, &a);
    check_props("C5", &a, 0.5, 2, 0, log(2.0), 1 + 1 / log(4.0), 4.0 / 6, 0);
    fgl_csr_free(&a);
    cycle_graph(3, &a);
    check_props("C3", &a, 1, 2, 0, log(2.0), 1 + 1 / log(4.0), 1, 1);
    fgl_csr_free(&a);
    complete_graph(5, &a);
    check_props("K5", &a, 1, 4, 0, log(4.0), 1 + 1 / log(8.0), 1, 1);
    fgl_csr_free(&a);
}

static void test_properties_disconnected_and_empty(void) {
    /* Two edges {0-1}, {2-3} and isolated 4: closeness of an edge end is
     * (1/1) (1/4), of the isolated node 0 -> mean 0.2 (networkx agrees). */
    int e[4] = {0, 1, 2, 3};
    double clo[5], avg;
    fgl_csr a, z;
    fgl_graph_props p;
    build(5, 2, e, &a);
    FT_CHECK(fgl_graph_closeness(&a, clo, &avg) == FGL_OK, "closeness");
    FT_NEAR(avg, 0.2, 1e-12, "closeness with components");
    FT_NEAR(clo[4], 0.0, 0, "isolated closeness");
    FT_NEAR(fgl_graph_scale_free_exponent(&a), 1 + 4 / (4 * log(2.0)), 1e-12, "sf skips isolated nodes");
    fgl_csr_free(&a);
    /* no edges at all: every property 0, nothing NaN */
    fgl_gen_gnp(4, 0.0, 1, &z, NULL);
    FT_CHECK(fgl_graph_properties(&z, &p, NULL) == FGL_OK, "properties of an empty graph");
    FT_CHECK(p.density == 0 && p.avg_degree == 0 && p.entropy == 0 && p.scale_free == 0 && p.closeness == 0 &&
                 p.clustering == 0 && p.degree_variance == 0,
             "empty graph properties not all 0");
    fgl_csr_free(&z);
}

static void test_clustering_homophily(void) {
    /* Triangle 0-1-2 plus pendant 3 on 0: c = 1/3, 1, 1, 0 (mean 7/12).
     * Path 0-1-2-3 with labels 0,0,1,1: edge homophily 2/3; node
     * homophily mean(1, 1/2, 1/2, 1) = 3/4; an unknown label (-1) on node 3
     * drops its edge: 1/2 and mean(1, 1/2, 0) = 1/2. */
    int e1[8] = {0, 1, 1, 2, 2, 0, 0, 3}, e2[6] = {0, 1, 1, 2, 2, 3}, y[4] = {0, 0, 1, 1};
    double c[4], avg;
    fgl_csr a;
    build(4, 4, e1, &a);
    fgl_graph_clustering(&a, c, &avg);
    FT_NEAR(c[0], 1.0 / 3, 1e-12, "clustering of the triangle node with a pendant");
    FT_NEAR(c[1], 1.0, 1e-12, "clustering");
    FT_NEAR(c[3], 0.0, 0, "clustering of a leaf");
    FT_NEAR(avg, 7.0 / 12, 1e-12, "average clustering");
    fgl_csr_free(&a);
    build(4, 3, e2, &a);
    FT_NEAR(fgl_edge_homophily(&a, y), 2.0 / 3, 1e-12, "edge homophily");
    FT_NEAR(fgl_node_homophily(&a, y), 0.75, 1e-12, "node homophily");
    y[3] = -1;
    FT_NEAR(fgl_edge_homophily(&a, y), 0.5, 1e-12, "edge homophily with an unknown label");
    FT_NEAR(fgl_node_homophily(&a, y), 0.5, 1e-12, "node homophily with an unknown label");
    fgl_csr_free(&a);
}

/* --- encodings ----------------------------------------------------------------- */

/* (T^k)_ii, T = A D^-1 (0 column for degree 0), by dense powers. */
static void rwse_dense(const fgl_csr *a, int K, float *out) {
    int n = a->rows, i, j, l, k, q;
    double *T = (double *)calloc((size_t)n * n, sizeof(double)), *M = (double *)malloc(sizeof(double) * n * n);
    double *N = (double *)malloc(sizeof(double) * n * n);
    for (j = 0; j < n; j++) {
        int d = a->indptr[j + 1] - a->indptr[j];
        for (q = a->indptr[j]; q < a->indptr[j + 1]; q++) T[(size_t)a->indices[q] * n + j] = 1.0 / d;
    }
    memcpy(M, T, sizeof(double) * n * n);
    for (k = 1; k <= K; k++) {
        for (i = 0; i < n; i++) out[(size_t)i * K + k - 1] = (float)M[(size_t)i * n + i];
        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++) {
                double s = 0;
                for (l = 0; l < n; l++) s += M[(size_t)i * n + l] * T[(size_t)l * n + j];
                N[(size_t)i * n + j] = s;
            }
        memcpy(M, N, sizeof(double) * n * n);
    }
    free(T);
    free(M);
    free(N);
}

static void test_dse_rwse_hand(void) {
    /* Path 0-1-2: a walk from an end is back at it after 2, 4, ... steps
     * with probability 1/2; from the middle with probability 1. Triangle:
     * p1 = 0, p_{k+1} = (1 - p_k)/2 -> 0, 1/2, 1/4, 3/8, 5/16. Isolated
     * node: all zeros (D^-1 = 0), DSE column 0 like degree 1. */
    int e[10] = {0, 1, 1, 2, 3, 4, 4, 5, 5, 3}, i, K = 5;
    float r[7 * 5], d[7 * 4];
    float end[5] = {0, 0.5f, 0, 0.5f, 0}, mid[5] = {0, 1, 0, 1, 0}, tri[5] = {0, 0.5f, 0.25f, 0.375f, 0.3125f};
    fgl_csr a;
    build(7, 5, e, &a); /* nodes 0-2 path, 3-5 triangle, 6 isolated */
    FT_CHECK(fgl_rwse(&a, K, r) == FGL_OK, "rwse failed");
    for (i = 0; i < K; i++) {
        FT_NEAR(r[0 * K + i], end[i], 1e-6, "RWSE path end");
        FT_NEAR(r[2 * K + i], end[i], 1e-6, "RWSE path end");
        FT_NEAR(r[1 * K + i], mid[i], 1e-6, "RWSE path middle");
        FT_NEAR(r[4 * K + i], tri[i], 1e-6, "RWSE triangle");
        FT_NEAR(r[6 * K + i], 0, 0, "RWSE isolated node");
    }
    FT_CHECK(fgl_all_finite(7 * 5, r), "RWSE has NaN/Inf");
    FT_CHECK(fgl_dse(&a, 4, d) == FGL_OK, "dse failed");
    FT_CHECK(d[0 * 4 + 0] == 1 && d[1 * 4 + 1] == 1 && d[3 * 4 + 1] == 1 && d[6 * 4 + 0] == 1, "DSE one-hots");
    {
        float s = 0;
        for (i = 0; i < 7 * 4; i++) s += d[i];
        FT_NEAR(s, 7, 0, "DSE rows are one-hot");
    }
    FT_CHECK(fgl_rwse(&a, 0, r) == FGL_ERR_ARG && fgl_dse(&a, 0, d) == FGL_ERR_ARG, "K = 0 accepted");
    fgl_csr_free(&a);
    /* a degree above K is clipped to the last column */
    star_graph(20, &a);
    {
        float ds[21 * 16];
        fgl_dse(&a, 16, ds);
        FT_CHECK(ds[15] == 1 && ds[16 + 0] == 1, "DSE clip at K");
    }
    fgl_csr_free(&a);
}

static void test_rwse_matches_dense(void) {
    int n = 40, K = 16, i;
    float *r = (float *)malloc(sizeof(float) * n * K), *ref = (float *)malloc(sizeof(float) * n * K);
    double worst = 0;
    fgl_csr a;
    fgl_gen_gnp(n, 0.08, 3, &a, NULL); /* sparse enough to have isolated nodes or leaves */
    fgl_rwse(&a, K, r);
    rwse_dense(&a, K, ref);
    for (i = 0; i < n * K; i++) worst = fmax(worst, fabs(r[i] - ref[i]));
    FT_CHECK(worst < 1e-5, "RWSE differs from dense powers by %g", worst);
    FT_CHECK(fgl_all_finite((size_t)n * K, r), "RWSE NaN");
    fgl_csr_free(&a);
    free(r);
    free(ref);
}

/* --- partitions ------------------------------------------------------------------ */

/* Cora from the real data; a failed check when present but unreadable. */
static int load_cora(fgl_node_data *d) {
    fgl_error err;
    if (fgl_load_node(ft_data_path("node/Cora"), "Cora", d, &err) == FGL_OK) return 1;
    FT_CHECK(0, "load Cora: %s", err.msg);
    return 0;
}

/* fgl_synth_node's default graph (3000 nodes in 10 planted communities of
 * near-equal size, 10% of the edge draws leave their community) and the
 * planted communities. */
static int load_synth(fgl_node_data *d, int *comm) {
    fgl_error err;
    if (fgl_synth_node(NULL, 5, d, comm, &err) == FGL_OK) return 1;
    FT_CHECK(0, "synth_node: %s", err.msg);
    return 0;
}

static void test_partition_cora(void) {
    /* gpmetis 5.1 on the same graph: 379 / 594 / 806; we require <= 1.3x. */
    int ks[3] = {5, 10, 20}, bound[3] = {492, 772, 1047}, q, s, bad, *part, *again;
    fgl_node_data d;
    fgl_error err;
    FT_NEED_DATA("node/Cora/Cora.edges");
    if (!load_cora(&d)) return;
    part = (int *)malloc(sizeof(int) * (size_t)d.n_nodes);
    again = (int *)malloc(sizeof(int) * (size_t)d.n_nodes);
    for (q = 0; q < 3; q++)
        for (s = 1; s <= 3; s++) {
            long cut;
            int mx;
            FT_CHECK(fgl_partition_metis(&d.adj, ks[q], (uint64_t)s, part, &err) == FGL_OK, "%s", err.msg);
            cut = fgl_edge_cut(&d.adj, part);
            mx = max_part_size(part, d.n_nodes, ks[q], &bad);
            printf("#   Cora k=%d seed %d: cut %ld (bound %d), largest part %d (limit %d)\n", ks[q], s, cut, bound[q], mx,
                   balance_limit(d.n_nodes, ks[q]));
            FT_CHECK(!bad, "part id out of range");
            FT_CHECK(cut <= bound[q], "k=%d seed %d: cut %ld > %d", ks[q], s, cut, bound[q]);
            FT_CHECK(mx <= balance_limit(d.n_nodes, ks[q]), "k=%d: part of %d nodes > %d", ks[q], mx,
                     balance_limit(d.n_nodes, ks[q]));
        }
    fgl_partition_metis(&d.adj, 10, 42, part, NULL);
    fgl_partition_metis(&d.adj, 10, 42, again, NULL);
    FT_CHECK(!memcmp(part, again, sizeof(int) * (size_t)d.n_nodes), "same seed, different partition");
    free(part);
    free(again);
    fgl_node_data_free(&d);
}

static void test_partition_synth(void) {
    /* The Cora test's checks on a graph of the same size with a known
     * answer: k = 10 parts must cut no more than 1.1x the 10 planted
     * communities do, within the balance limit, the same for the same seed. */
    int *planted, *part, *again, s, bad, mx;
    long pcut;
    fgl_node_data d;
    fgl_error err;
    planted = (int *)malloc(sizeof(int) * (size_t)fgl_synth_node_default().n_nodes);
    if (!load_synth(&d, planted)) {
        free(planted);
        return;
    }
    part = (int *)malloc(sizeof(int) * (size_t)d.n_nodes);
    again = (int *)malloc(sizeof(int) * (size_t)d.n_nodes);
    pcut = fgl_edge_cut(&d.adj, planted);
    for (s = 1; s <= 3; s++) {
        long cut;
        FT_CHECK(fgl_partition_metis(&d.adj, 10, (uint64_t)s, part, &err) == FGL_OK, "%s", err.msg);
        cut = fgl_edge_cut(&d.adj, part);
        mx = max_part_size(part, d.n_nodes, 10, &bad);
        printf("#   synth-node k=10 seed %d: cut %ld (planted %ld), largest part %d (limit %d)\n", s, cut, pcut, mx,
               balance_limit(d.n_nodes, 10));
        FT_CHECK(!bad, "part id out of range");
        FT_CHECK(cut <= 1.1 * pcut, "seed %d: cut %ld > 1.1 x planted %ld", s, cut, pcut);
        FT_CHECK(mx <= balance_limit(d.n_nodes, 10), "seed %d: part of %d nodes", s, mx);
    }
    fgl_partition_metis(&d.adj, 10, 42, part, NULL);
    fgl_partition_metis(&d.adj, 10, 42, again, NULL);
    FT_CHECK(!memcmp(part, again, sizeof(int) * (size_t)d.n_nodes), "same seed, different partition");
    free(planted);
    free(part);
    free(again);
    fgl_node_data_free(&d);
}

static void test_partition_planted_and_edge_cases(void) {
    /* Four planted blocks: the partition should find them (cut close to
     * the planted cut). */
    int sizes[4] = {250, 250, 250, 250}, blk[1000], part[1000], i, bad, mx;
    double P[16];
    long planted, cut;
    fgl_csr a;
    fgl_error err;
    for (i = 0; i < 16; i++) P[i] = i / 4 == i % 4 ? 0.04 : 0.002;
    fgl_gen_sbm(4, sizes, P, 3, &a, blk, NULL);
    FT_CHECK(fgl_partition_metis(&a, 4, 1, part, &err) == FGL_OK, "%s", err.msg);
    planted = fgl_edge_cut(&a, blk);
    cut = fgl_edge_cut(&a, part);
    FT_CHECK(cut <= planted * 1.05, "cut %ld vs planted %ld", cut, planted);
    mx = max_part_size(part, 1000, 4, &bad);
    FT_CHECK(!bad && mx <= balance_limit(1000, 4), "balance %d", mx);
    fgl_csr_free(&a);
    /* many components and isolated vertices: 30 triangles + 40 isolated */
    {
        int e[180], n = 130, p2[130]; /* e doubles as a count array below */
        for (i = 0; i < 30; i++) {
            e[6 * i] = 3 * i;
            e[6 * i + 1] = 3 * i + 1;
            e[6 * i + 2] = 3 * i + 1;
            e[6 * i + 3] = 3 * i + 2;
            e[6 * i + 4] = 3 * i + 2;
            e[6 * i + 5] = 3 * i;
        }
        build(n, 90, e, &a);
        FT_CHECK(fgl_partition_metis(&a, 7, 2, p2, &err) == FGL_OK, "%s", err.msg);
        mx = max_part_size(p2, n, 7, &bad);
        FT_CHECK(!bad && mx <= balance_limit(n, 7), "disconnected: largest part %d > %d", mx, balance_limit(n, 7));
        FT_CHECK(fgl_edge_cut(&a, p2) <= 6, "disconnected: cut %ld (at most a few triangles need splitting)",
                 fgl_edge_cut(&a, p2));
        FT_CHECK(fgl_partition_metis(&a, n, 2, p2, &err) == FGL_OK, "k = n");
        mx = max_part_size(p2, n, n, &bad);
        FT_CHECK(!bad && mx <= balance_limit(n, n), "k = n: largest part %d", mx);
        for (i = 0; i < n; i++) e[i] = 0;
        for (i = 0; i < n; i++) e[p2[i]]++;
        for (bad = 0, i = 0; i < n; i++) bad += e[i] == 0;
        FT_CHECK(bad == 0, "k = n: %d empty parts", bad);
        FT_CHECK(fgl_partition_metis(&a, 1, 2, p2, &err) == FGL_OK && max_part_size(p2, n, 1, &bad) == n, "k = 1");
        FT_CHECK(fgl_partition_metis(&a, 0, 2, p2, &err) == FGL_ERR_ARG, "k = 0 accepted");
        FT_CHECK(fgl_partition_metis(&a, n + 1, 2, p2, &err) == FGL_ERR_ARG, "k > n accepted");
        a.indices[0] = 2; /* row 0 now lists 1, 2 -> 2, 2: not strictly increasing */
        FT_CHECK(fgl_partition_metis(&a, 3, 2, p2, &err) != FGL_OK, "broken CSR accepted");
        a.indices[0] = 1;
        {
            fgl_csr t;
            int d[2] = {0, 1};
            fgl_csr_from_coo(3, 3, 1, d, d + 1, NULL, 0, &t, NULL); /* the single entry (0, 1) */
            FT_CHECK(fgl_partition_metis(&t, 2, 1, p2, &err) == FGL_ERR_ARG, "asymmetric adjacency accepted");
            fgl_csr_free(&t);
        }
        fgl_csr_free(&a);
    }
    /* no edges at all */
    fgl_gen_gnp(100, 0.0, 1, &a, NULL);
    FT_CHECK(fgl_partition_metis(&a, 7, 1, part, NULL) == FGL_OK, "edgeless graph");
    FT_CHECK(max_part_size(part, 100, 7, &bad) <= balance_limit(100, 7) && !bad, "edgeless balance");
    fgl_csr_free(&a);
    /* options: best of 3 runs (run 0 is the default run) and a tight balance */
    {
        fgl_synth_node_config c = fgl_synth_node_default();
        fgl_node_data d;
        fgl_partition_config o = fgl_partition_default();
        int *p1, *p3;
        long c1, c3;
        c.n_nodes = 3000;
        fgl_synth_node(&c, 5, &d, NULL, NULL);
        p1 = (int *)malloc(sizeof(int) * 3000);
        p3 = (int *)malloc(sizeof(int) * 3000);
        fgl_partition_metis(&d.adj, 7, 9, p1, NULL);
        o.n_cuts = 3;
        FT_CHECK(fgl_partition_metis_ex(&d.adj, 7, 9, &o, p3, &err) == FGL_OK, "%s", err.msg);
        c1 = fgl_edge_cut(&d.adj, p1);
        c3 = fgl_edge_cut(&d.adj, p3);
        FT_CHECK(c3 <= c1, "best of 3 runs (%ld) worse than the first run (%ld)", c3, c1);
        o.n_cuts = 1;
        o.imbalance = 0.0;
        FT_CHECK(fgl_partition_metis_ex(&d.adj, 7, 9, &o, p3, &err) == FGL_OK, "%s", err.msg);
        mx = max_part_size(p3, 3000, 7, &bad);
        FT_CHECK(!bad && mx <= 429, "imbalance 0: largest part %d > ceil(3000/7) = 429", mx);
        /* no slack leaves refinement almost no legal move: only ask for far
         * better than random */
        c3 = fgl_edge_cut(&d.adj, p3);
        fgl_partition_random(3000, 7, 9, p1, NULL);
        FT_CHECK(c3 < fgl_edge_cut(&d.adj, p1) / 2, "imbalance 0: cut %ld vs random %ld", c3, fgl_edge_cut(&d.adj, p1));
        o.imbalance = -1;
        FT_CHECK(fgl_partition_metis_ex(&d.adj, 7, 9, &o, p3, &err) == FGL_ERR_ARG, "negative imbalance accepted");
        free(p1);
        free(p3);
        fgl_node_data_free(&d);
    }
    /* random balanced partition */
    FT_CHECK(fgl_partition_random(1000, 7, 1, part, NULL) == FGL_OK, "random partition");
    FT_CHECK(max_part_size(part, 1000, 7, &bad) == 143 && !bad, "random partition sizes");
}

static void test_edge_cut_and_modularity(void) {
    /* Two triangles joined by the edge 2-3, m = 7: the natural split has
     * in_c = 6 entries, tot_c = 7 each: Q = 2 (6/14 - (7/14)^2) = 5/14. */
    int e[14] = {0, 1, 1, 2, 2, 0, 3, 4, 4, 5, 5, 3, 2, 3}, c[6] = {0, 0, 0, 1, 1, 1}, one[6] = {0}, comm[6], nc;
    fgl_csr a;
    build(6, 7, e, &a);
    FT_CHECK(fgl_edge_cut(&a, c) == 1, "edge cut");
    FT_NEAR(fgl_modularity(&a, c), 5.0 / 14, 1e-12, "modularity of two triangles");
    FT_NEAR(fgl_modularity(&a, one), 0.0, 1e-12, "modularity of one community");
    FT_CHECK(fgl_louvain(&a, 1, comm, &nc, NULL) == FGL_OK, "louvain");
    FT_CHECK(nc == 2 && comm[0] == comm[1] && comm[1] == comm[2] && comm[3] == comm[4] && comm[4] == comm[5] &&
                 comm[0] != comm[3],
             "louvain did not find the two triangles (%d communities)", nc);
    c[0] = -1;
    FT_CHECK(isnan(fgl_modularity(&a, c)), "negative id not NaN");
    fgl_csr_free(&a);
}

static void test_louvain_synth(void) {
    /* Louvain is a modularity heuristic: it must come within 0.02 of the
     * modularity of the 10 planted communities and recover them (each found
     * community 90% one planted community, weighted by size),
     * deterministically. */
    int *planted, *comm, *again, *cnt, nc, nc2, i, j, ok = 1;
    double q, qp, purity = 0;
    fgl_node_data d;
    fgl_error err;
    planted = (int *)malloc(sizeof(int) * (size_t)fgl_synth_node_default().n_nodes);
    if (!load_synth(&d, planted)) {
        free(planted);
        return;
    }
    comm = (int *)malloc(sizeof(int) * (size_t)d.n_nodes);
    again = (int *)malloc(sizeof(int) * (size_t)d.n_nodes);
    FT_CHECK(fgl_louvain(&d.adj, 1, comm, &nc, &err) == FGL_OK, "%s", err.msg);
    for (i = 0; i < d.n_nodes; i++) ok &= comm[i] >= 0 && comm[i] < nc;
    FT_CHECK(ok, "community ids outside 0..%d", nc - 1);
    q = fgl_modularity(&d.adj, comm);
    qp = fgl_modularity(&d.adj, planted);
    cnt = (int *)calloc((size_t)nc * 10, sizeof(int));
    for (i = 0; ok && i < d.n_nodes; i++) cnt[comm[i] * 10 + planted[i]]++;
    for (i = 0; ok && i < nc; i++) {
        int best = 0;
        for (j = 0; j < 10; j++) best = cnt[i * 10 + j] > best ? cnt[i * 10 + j] : best;
        purity += (double)best / d.n_nodes;
    }
    free(cnt);
    printf("#   synth-node Louvain: %d communities, modularity %.4f, purity %.3f (planted: 10, %.4f)\n", nc, q,
           purity, qp);
    FT_CHECK(q >= qp - 0.02, "modularity %.4f, planted %.4f", q, qp);
    FT_CHECK(purity >= 0.9, "purity %.3f: the planted communities are not recovered", purity);
    fgl_louvain(&d.adj, 1, again, &nc2, NULL);
    FT_CHECK(nc == nc2 && !memcmp(comm, again, sizeof(int) * (size_t)d.n_nodes), "not deterministic");
    free(planted);
    free(comm);
    free(again);
    fgl_node_data_free(&d);
}

static void test_louvain_cora(void) {
    int *comm, *again, nc, nc2, i, ok = 1;
    double q;
    fgl_node_data d;
    fgl_error err;
    FT_NEED_DATA("node/Cora/Cora.edges");
    if (!load_cora(&d)) return;
    comm = (int *)malloc(sizeof(int) * (size_t)d.n_nodes);
    again = (int *)malloc(sizeof(int) * (size_t)d.n_nodes);
    FT_CHECK(fgl_louvain(&d.adj, 1, comm, &nc, &err) == FGL_OK, "%s", err.msg);
    for (i = 0; i < d.n_nodes; i++) ok &= comm[i] >= 0 && comm[i] < nc;
    FT_CHECK(ok, "community ids outside 0..%d", nc - 1);
    q = fgl_modularity(&d.adj, comm);
    printf("#   Cora Louvain: %d communities, modularity %.4f\n", nc, q);
    FT_CHECK(q >= 0.78, "modularity %.4f < 0.78", q);
    fgl_louvain(&d.adj, 1, again, &nc2, NULL);
    FT_CHECK(nc == nc2 && !memcmp(comm, again, sizeof(int) * (size_t)d.n_nodes), "not deterministic");
    free(comm);
    free(again);
    fgl_node_data_free(&d);
}

/* --- splits ------------------------------------------------------------------------ */

static double mean_client_entropy(const int *client, const int *y, int n, int K, int C) {
    double *cnt = (double *)calloc((size_t)K * C, sizeof(double)), h = 0;
    int i, j, c;
    for (i = 0; i < n; i++) cnt[client[i] * C + y[i]] += 1;
    for (j = 0; j < K; j++) {
        double tot = 0, e = 0;
        for (c = 0; c < C; c++) tot += cnt[j * C + c];
        for (c = 0; c < C; c++)
            if (cnt[j * C + c] > 0) e -= cnt[j * C + c] / tot * log(cnt[j * C + c] / tot);
        h += e / K;
    }
    free(cnt);
    return h;
}

static void test_split_dirichlet(void) {
    int n = 2000, C = 10, K = 20, y[2000], a[2000], b[2000], cnt[50], i, j, low;
    double h01, h10;
    fgl_error err;
    for (i = 0; i < n; i++) y[i] = i % C;
    FT_CHECK(fgl_split_dirichlet(y, n, C, K, 0.1, 10, 5, a, &err) == FGL_OK, "%s", err.msg);
    memset(cnt, 0, sizeof cnt);
    for (i = 0; i < n; i++) {
        FT_CHECK(a[i] >= 0 && a[i] < K, "item %d has client %d", i, a[i]);
        if (a[i] >= 0 && a[i] < K) cnt[a[i]]++;
    }
    for (low = n, j = 0; j < K; j++) low = cnt[j] < low ? cnt[j] : low;
    FT_CHECK(low >= 10, "a client holds %d < 10 items", low);
    FT_CHECK(fgl_split_dirichlet(y, n, C, K, 0.1, 10, 5, b, NULL) == FGL_OK && !memcmp(a, b, sizeof a),
             "same seed, different split");
    h01 = mean_client_entropy(a, y, n, K, C);
    fgl_split_dirichlet(y, n, C, K, 10.0, 10, 5, b, NULL);
    h10 = mean_client_entropy(b, y, n, K, C);
    printf("#   mean client label entropy: alpha 0.1 -> %.3f, alpha 10 -> %.3f (uniform %.3f)\n", h01, h10, log(10.0));
    FT_CHECK(h01 < h10 - 0.5, "skew does not grow as alpha falls (%.3f vs %.3f)", h01, h10);
    /* a minimum that random draws miss: rebalancing must honour it */
    FT_CHECK(fgl_split_dirichlet(y, n, C, 50, 0.01, 35, 1, a, &err) == FGL_OK, "%s", err.msg);
    memset(cnt, 0, sizeof cnt);
    for (i = 0; i < n; i++) cnt[a[i]]++;
    for (low = n, j = 0; j < 50; j++) low = cnt[j] < low ? cnt[j] : low;
    FT_CHECK(low >= 35, "rebalanced split: a client holds %d < 35", low);
    FT_CHECK(fgl_split_dirichlet(y, n, C, 50, 0.5, 41, 1, a, &err) == FGL_ERR_ARG, "impossible minimum accepted");
    y[3] = 10;
    FT_CHECK(fgl_split_dirichlet(y, n, C, K, 0.5, 1, 1, a, &err) == FGL_ERR_RANGE, "label out of range accepted");
}

static void test_split_iid(void) {
    int a[1003], b[1003], cnt[10] = {0}, i, mn = 1 << 30, mx = 0;
    FT_CHECK(fgl_split_iid(1003, 10, 4, a, NULL) == FGL_OK, "iid split");
    for (i = 0; i < 1003; i++) cnt[a[i]]++;
    for (i = 0; i < 10; i++) {
        mn = cnt[i] < mn ? cnt[i] : mn;
        mx = cnt[i] > mx ? cnt[i] : mx;
    }
    FT_CHECK(mn == 100 && mx == 101, "client sizes %d..%d", mn, mx);
    fgl_split_iid(1003, 10, 4, b, NULL);
    FT_CHECK(!memcmp(a, b, sizeof a), "not deterministic");
    fgl_split_iid(1003, 10, 5, b, NULL);
    FT_CHECK(memcmp(a, b, sizeof a), "seed ignored");
}

static int overlap(const fgl_index_lists *l, int x, int y) {
    int i = l->ptr[x], j = l->ptr[y], c = 0;
    while (i < l->ptr[x + 1] && j < l->ptr[y + 1]) {
        if (l->idx[i] == l->idx[j]) {
            c++;
            i++;
            j++;
        } else if (l->idx[i] < l->idx[j]) {
            i++;
        } else {
            j++;
        }
    }
    return c;
}

static void test_split_overlapping(void) {
    /* K = 10 -> 2 parts; a list holds floor(|part|/2) distinct sorted nodes
     * of one part; lists of different parts are disjoint, lists of one part
     * share about half their nodes (hypergeometric mean h^2 / |part|). */
    fgl_node_data d;
    fgl_index_lists l, l2;
    fgl_error err;
    int i, j, sorted = 1, sizes_ok = 1;
    FT_CHECK(fgl_synth_node(NULL, 3, &d, NULL, &err) == FGL_OK, "%s", err.msg);
    FT_CHECK(fgl_split_overlapping(&d.adj, 10, 7, &l, &err) == FGL_OK, "%s", err.msg);
    FT_CHECK(l.n_lists == 10, "%d lists", l.n_lists);
    for (i = 0; i < 10; i++) {
        for (j = l.ptr[i] + 1; j < l.ptr[i + 1]; j++) sorted &= l.idx[j - 1] < l.idx[j];
        sizes_ok &= l.ptr[i + 1] - l.ptr[i] == l.ptr[5 * (i / 5) + 1] - l.ptr[5 * (i / 5)];
    }
    FT_CHECK(sorted, "lists not strictly increasing");
    FT_CHECK(sizes_ok, "lists of one part differ in size");
    {
        int h0 = l.ptr[1] - l.ptr[0], h1 = l.ptr[6] - l.ptr[5], part0 = 0;
        /* both parts together hold all nodes: part sizes are 2h or 2h + 1 */
        part0 = d.n_nodes - (2 * h1);
        FT_CHECK(part0 == 2 * h0 || part0 == 2 * h0 + 1 || part0 == 2 * h0 - 1 || d.n_nodes - 2 * h0 - 2 * h1 <= 2,
                 "list sizes %d, %d are not half of parts of %d nodes", h0, h1, d.n_nodes);
        FT_CHECK(overlap(&l, 0, 5) == 0 && overlap(&l, 4, 9) == 0, "lists of different parts overlap");
        FT_NEAR(overlap(&l, 0, 1), h0 / 2.0, 5 * sqrt(h0 / 8.0), "overlap of two samples of one part");
    }
    FT_CHECK(fgl_split_overlapping(&d.adj, 10, 7, &l2, NULL) == FGL_OK && l2.ptr[10] == l.ptr[10] &&
                 !memcmp(l.idx, l2.idx, sizeof(int) * (size_t)l.ptr[10]),
             "not deterministic");
    fgl_index_lists_free(&l);
    fgl_index_lists_free(&l2);
    FT_CHECK(fgl_split_overlapping(&d.adj, 7, 7, &l, &err) == FGL_ERR_ARG, "K = 7 accepted");
    /* lists from an assignment */
    {
        int assign[6] = {2, 0, 2, 1, 0, 2};
        FT_CHECK(fgl_index_lists_from_assign(assign, 6, 3, &l, NULL) == FGL_OK, "from_assign");
        FT_CHECK(l.ptr[1] == 2 && l.ptr[2] == 3 && l.ptr[3] == 6 && l.idx[0] == 1 && l.idx[1] == 4 && l.idx[2] == 3 &&
                     l.idx[3] == 0 && l.idx[5] == 5,
                 "from_assign lists");
        fgl_index_lists_free(&l);
    }
    fgl_node_data_free(&d);
}

/* --- synthetic benchmarks ------------------------------------------------------------- */

/* Accuracy of the nearest class mean (means over all nodes) on features X. */
static double centroid_accuracy(const float *X, const int *y, int n, int F, int C) {
    double *mu = (double *)calloc((size_t)C * F, sizeof(double)), *cnt = (double *)calloc((size_t)C, sizeof(double));
    int i, c, f, right = 0;
    for (i = 0; i < n; i++) {
        cnt[y[i]] += 1;
        for (f = 0; f < F; f++) mu[y[i] * F + f] += X[(size_t)i * F + f];
    }
    for (c = 0; c < C; c++)
        for (f = 0; f < F; f++) mu[c * F + f] /= cnt[c] > 0 ? cnt[c] : 1;
    for (i = 0; i < n; i++) {
        int best = 0;
        double bd = 1e300;
        for (c = 0; c < C; c++) {
            double dd = 0;
            if (cnt[c] == 0) continue;
            for (f = 0; f < F; f++) {
                double t = X[(size_t)i * F + f] - mu[c * F + f];
                dd += t * t;
            }
            if (dd < bd) {
                bd = dd;
                best = c;
            }
        }
        right += best == y[i];
    }
    free(mu);
    free(cnt);
    return (double)right / n;
}

static void test_synth_node(void) {
    fgl_synth_node_config cfg = fgl_synth_node_default();
    fgl_node_data d, d2;
    fgl_error err;
    int *comm = (int *)malloc(sizeof(int) * (size_t)cfg.n_nodes), n, F, C, B, i, f, q;
    double t0 = fgl_now(), t, h, acc_x, acc_agg, tv = 0;
    float *agg;
    FT_CHECK(fgl_synth_node(&cfg, 1, &d, comm, &err) == FGL_OK, "%s", err.msg);
    t = fgl_now() - t0;
    n = d.n_nodes;
    F = d.n_feat;
    C = d.n_classes;
    B = cfg.n_communities;
    FT_CHECK(t < 0.5, "synth_node took %.3f s", t);
    FT_CHECK(fgl_node_data_validate(&d, &err) == FGL_OK, "%s", err.msg);
    FT_CHECK(n == 3000 && F == 32 && C == 7 && d.x.rows == n && d.x.cols == F && d.split == NULL, "shapes");
    FT_CHECK(!strcmp(d.name, "synth-node"), "name %s", d.name);
    FT_CHECK(fabs(fgl_graph_avg_degree(&d.adj) - cfg.avg_degree) < 1.0, "average degree %.2f",
             fgl_graph_avg_degree(&d.adj));
    h = fgl_edge_homophily(&d.adj, d.y);
    FT_CHECK(h > 0.6 && h < 0.95, "edge homophily %.3f", h);
    /* community class mixes differ: mean total variation to the global mix */
    {
        double *pc = (double *)calloc((size_t)B * C, sizeof(double)), *pg = (double *)calloc((size_t)C, sizeof(double));
        double *nc = (double *)calloc((size_t)B, sizeof(double));
        for (i = 0; i < n; i++) {
            pc[comm[i] * C + d.y[i]] += 1;
            pg[d.y[i]] += 1.0 / n;
            nc[comm[i]] += 1;
        }
        for (q = 0; q < B; q++) {
            double s = 0;
            for (i = 0; i < C; i++) s += fabs(pc[q * C + i] / nc[q] - pg[i]) / 2;
            tv += s / B;
        }
        free(pc);
        free(pg);
        free(nc);
    }
    FT_CHECK(tv > 0.25, "community label mixes too alike (mean TV %.3f)", tv);
    /* features informative but noisy; neighbour averaging helps (homophily) */
    agg = (float *)calloc((size_t)n * F, sizeof(float));
    for (i = 0; i < n; i++) {
        int deg = d.adj.indptr[i + 1] - d.adj.indptr[i];
        for (f = 0; f < F; f++) {
            double s = d.x.data[(size_t)i * F + f];
            for (q = d.adj.indptr[i]; q < d.adj.indptr[i + 1]; q++) s += d.x.data[(size_t)d.adj.indices[q] * F + f];
            agg[(size_t)i * F + f] = (float)(s / (deg + 1));
        }
    }
    acc_x = centroid_accuracy(d.x.data, d.y, n, F, C);
    acc_agg = centroid_accuracy(agg, d.y, n, F, C);
    printf("#   synth-node: homophily %.3f, community mix TV %.3f, centroid accuracy x %.3f, neighbour mean %.3f\n", h, tv,
           acc_x, acc_agg);
    FT_CHECK(acc_x > 1.0 / C + 0.1 && acc_x < 0.9, "feature-only accuracy %.3f", acc_x);
    FT_CHECK(acc_agg > acc_x + 0.1, "neighbour averaging does not help (%.3f vs %.3f)", acc_agg, acc_x);
    free(agg);
    FT_CHECK(fgl_synth_node(&cfg, 1, &d2, NULL, NULL) == FGL_OK && same_csr(&d.adj, &d2.adj) &&
                 !memcmp(d.x.data, d2.x.data, sizeof(float) * (size_t)n * F) && !memcmp(d.y, d2.y, sizeof(int) * (size_t)n),
             "not deterministic");
    fgl_node_data_free(&d);
    fgl_node_data_free(&d2);
    cfg.n_communities = 0;
    FT_CHECK(fgl_synth_node(&cfg, 1, &d, NULL, &err) == FGL_ERR_ARG && d.y == NULL && d.adj.rows == 0, "bad config");
    free(comm);
}

static void test_synth_graphs(void) {
    fgl_synth_graphs_config cfg = fgl_synth_graphs_default();
    fgl_graph_set s, s2;
    fgl_error err;
    double t0, t, deg[4] = {0}, var[4] = {0}, clus[4] = {0}, cnt[4] = {0};
    int g, i, ok = 1;
    float *rw;
    cfg.n_classes = 4;
    t0 = fgl_now();
    FT_CHECK(fgl_synth_graphs(&cfg, 2, &s, &err) == FGL_OK, "%s", err.msg);
    t = fgl_now() - t0;
    FT_CHECK(t < 0.5, "synth_graphs took %.3f s", t);
    FT_CHECK(fgl_graph_set_validate(&s, &err) == FGL_OK, "%s", err.msg);
    FT_CHECK(s.n_graphs == 600 && s.n_classes == 4 && s.n_node_label_values == 4 && s.node_labels, "shapes");
    for (i = 0; i < s.n_nodes; i++) ok &= s.node_labels[i] >= 0 && s.node_labels[i] < 4;
    FT_CHECK(ok, "node label out of range");
    for (g = 0; g < s.n_graphs; g++) {
        fgl_csr sub;
        int ng = s.node_ptr[g + 1] - s.node_ptr[g], *ids = (int *)malloc(sizeof(int) * (size_t)ng), c = s.y[g];
        double cl;
        ok &= ng >= cfg.min_nodes && ng <= cfg.max_nodes;
        for (i = 0; i < ng; i++) ids[i] = s.node_ptr[g] + i;
        fgl_graph_subgraph(&s.adj, ids, ng, &sub, NULL, NULL);
        fgl_graph_clustering(&sub, NULL, &cl);
        deg[c] += fgl_graph_avg_degree(&sub);
        var[c] += fgl_graph_degree_variance(&sub);
        clus[c] += cl;
        cnt[c] += 1;
        fgl_csr_free(&sub);
        free(ids);
    }
    FT_CHECK(ok, "graph sizes outside min..max");
    for (i = 0; i < 4; i++) {
        deg[i] /= cnt[i];
        var[i] /= cnt[i];
        clus[i] /= cnt[i];
        printf("#   synth-graphs class %d: %3.0f graphs, mean degree %.2f, degree variance %.2f, clustering %.3f\n", i,
               cnt[i], deg[i], var[i], clus[i]);
        FT_CHECK(cnt[i] > 120, "class %d has %.0f graphs", i, cnt[i]);
        FT_CHECK(fabs(deg[i] - deg[0]) < 0.3, "class %d mean degree %.2f vs %.2f", i, deg[i], deg[0]);
    }
    FT_CHECK(var[1] > 1.5 * var[0], "hubs class: degree variance %.2f vs random %.2f", var[1], var[0]);
    FT_CHECK(clus[2] > 2 * clus[0] + 0.1, "triangle class: clustering %.3f vs random %.3f", clus[2], clus[0]);
    FT_CHECK(var[3] < 0.5 * var[0], "ring class: degree variance %.2f vs random %.2f", var[3], var[0]);
    /* the encodings of a whole set: no NaN even on isolated nodes */
    rw = (float *)malloc(sizeof(float) * (size_t)s.n_nodes * 16);
    FT_CHECK(fgl_rwse(&s.adj, 16, rw) == FGL_OK && fgl_all_finite((size_t)s.n_nodes * 16, rw), "RWSE of the set");
    free(rw);
    FT_CHECK(fgl_synth_graphs(&cfg, 2, &s2, NULL) == FGL_OK && same_csr(&s.adj, &s2.adj) &&
                 !memcmp(s.y, s2.y, sizeof(int) * (size_t)s.n_graphs) &&
                 !memcmp(s.node_labels, s2.node_labels, sizeof(int) * (size_t)s.n_nodes),
             "not deterministic");
    fgl_graph_set_free(&s);
    fgl_graph_set_free(&s2);
    FT_CHECK(fgl_synth_graphs(NULL, 2, &s, &err) == FGL_OK && s.n_classes == 3, "defaults");
    fgl_graph_set_free(&s);
    cfg.n_classes = 5;
    FT_CHECK(fgl_synth_graphs(&cfg, 2, &s, &err) == FGL_ERR_ARG && s.node_ptr == NULL, "5 classes accepted");
}

int main(void) {
    FT_RUN(test_gnp);
    FT_RUN(test_gnm);
    FT_RUN(test_sbm);
    FT_RUN(test_ba);
    FT_RUN(test_ws);
    FT_RUN(test_config);
    FT_RUN(test_properties_closed_forms);
    FT_RUN(test_properties_disconnected_and_empty);
    FT_RUN(test_clustering_homophily);
    FT_RUN(test_dse_rwse_hand);
    FT_RUN(test_rwse_matches_dense);
    FT_RUN(test_partition_synth);
    FT_RUN(test_partition_cora);
    FT_RUN(test_partition_planted_and_edge_cases);
    FT_RUN(test_edge_cut_and_modularity);
    FT_RUN(test_louvain_synth);
    FT_RUN(test_louvain_cora);
    FT_RUN(test_split_dirichlet);
    FT_RUN(test_split_iid);
    FT_RUN(test_split_overlapping);
    FT_RUN(test_synth_node);
    FT_RUN(test_synth_graphs);
    return ft_finish();
}
