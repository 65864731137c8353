/* Tests of pFedGNN (issue 15) and of what it added to the library:
 *  - fgl_graph.h's anchored distance completion: distances to anchors dense
 *    and sparse; landmark MDS exact when the anchors span the points' space
 *    and its error falling with the number of anchors; SMACOF's stress never
 *    rising, recovering the points from a perturbed start, and fitting a
 *    client's own block when it is sent;
 *  - client coarsening: L_C = P L_G P^T against a dense N x N computation
 *    for both kernels, the sampled pair sums against the exact ones, the
 *    collaboration weights;
 *  - the runtime's per-client and parameter-sized message parts
 *    (FGL_DIM_NODES, fgl_algo_param_dim, fgl_upload_size), the declared sizes
 *    by name (fgl_up_size, fgl_server_up_size, fgl_server_down_size), optional parts
 *    allocated only when written, the server's public data;
 *  - the label-Dirichlet node split with withheld public nodes;
 *  - pFedGNN end to end: the one-shot bytes, the mixing rule recomputed
 *    from the uploads, alpha = 1 is Local bit for bit, public anchors,
 *    determinism across thread counts, and accuracy beside Local and FedAvg;
 *  - the rank-correlation helpers.
 * Cora when FGL_DATA has it, fgl's synthetic node data otherwise. */
#include "../fgl_fed.h"
#include "ft.h"
#include "ft_fed.h"
#include <time.h>

static fgl_dataset nodes;
static int real_nodes;

/* n points of dimension d, N(offset c, 1) per client c, dense, in node data
 * (no edges). */
static void make_points(fgl_node_data *d, int n, int dim, double offset, uint64_t seed) {
    fgl_rng r;
    int i, k;
    fgl_node_data_init(d);
    snprintf(d->name, sizeof d->name, "points");
    d->n_nodes = n;
    d->n_feat = dim;
    d->n_classes = 1;
    fgl_tensor_init(&d->x, n, dim);
    fgl_csr_init(&d->adj, n, n, 0, 0);
    d->y = (int *)calloc((size_t)n, sizeof(int));
    fgl_rng_init(&r, seed, 7);
    for (i = 0; i < n; i++)
        for (k = 0; k < dim; k++) d->x.data[(size_t)i * dim + k] = (float)(offset + fgl_rng_normal(&r));
}

static void random_anchors(float *a, int K, int dim, uint64_t seed) {
    fgl_rng r;
    int i;
    fgl_rng_init(&r, seed, 9);
    for (i = 0; i < K * dim; i++) a[i] = (float)(2 * fgl_rng_normal(&r));
}

static void anchor_d2(const float *a, int K, int dim, double *d2) {
    int i, j, k;
    for (i = 0; i < K; i++)
        for (j = 0; j < K; j++) {
            double s = 0;
            for (k = 0; k < dim; k++) s += ((double)a[i * dim + k] - a[j * dim + k]) * ((double)a[i * dim + k] - a[j * dim + k]);
            d2[i * K + j] = s;
        }
}

static double sqd(const float *x, const float *y, int dim) {
    double s = 0;
    int k;
    for (k = 0; k < dim; k++) s += ((double)x[k] - y[k]) * ((double)x[k] - y[k]);
    return s;
}

/* Three clients of n points each (offsets 0, 1, 2) in dim dimensions and K
 * anchors: the relative error of the completed inter-client squared
 * distances (landmark, then, if smacof, refined). max_under: the largest
 * amount by which a completed distance exceeds the true one. */
static double completion_error(int dim, int K, int n, int smacof, double *max_over, double *stress_ratio) {
    fgl_node_data c[3];
    fgl_anchor_frame f;
    fgl_error err;
    float *a = (float *)malloc(sizeof(float) * (size_t)K * dim), *dist[3], *z[3];
    double *d2 = (double *)malloc(sizeof(double) * (size_t)K * K), num = 0, den = 0, s0 = 0, s1 = 0;
    int i, p, q, u, v;
    random_anchors(a, K, dim, 3);
    anchor_d2(a, K, dim, d2);
    *max_over = 0;
    if (fgl_anchor_frame_init(&f, d2, K, 0, &err)) {
        FT_CHECK(0, "frame: %s", err.msg);
        return 1e9;
    }
    for (i = 0; i < 3; i++) {
        make_points(&c[i], n, dim, i, 10 + i);
        dist[i] = (float *)malloc(sizeof(float) * (size_t)n * K);
        z[i] = (float *)malloc(sizeof(float) * (size_t)n * f.r);
        FT_CHECK(fgl_anchor_sqdist(&c[i], a, K, dist[i], &err) == FGL_OK, "sqdist: %s", err.msg);
        fgl_anchor_embed(&f, dist[i], n, z[i]);
        if (smacof) {
            double t0 = 0, t1 = 0;
            fgl_anchor_smacof(&f, dist[i], NULL, n, 1000, 1e-6, z[i], &t0, &t1, &err);
            s0 += t0;
            s1 += t1;
        }
    }
    for (p = 0; p < 3; p++)
        for (q = p + 1; q < 3; q++)
            for (u = 0; u < n; u++)
                for (v = 0; v < n; v++) {
                    double t = sqd(c[p].x.data + (size_t)u * dim, c[q].x.data + (size_t)v * dim, dim);
                    double e = sqd(z[p] + (size_t)u * f.r, z[q] + (size_t)v * f.r, f.r);
                    num += (e - t) * (e - t);
                    den += t * t;
                    if (e - t > *max_over) *max_over = e - t;
                }
    if (stress_ratio) *stress_ratio = s0 > 0 ? s1 / s0 : 0;
    for (i = 0; i < 3; i++) {
        fgl_node_data_free(&c[i]);
        free(dist[i]);
        free(z[i]);
    }
    fgl_anchor_frame_free(&f);
    free(a);
    free(d2);
    return sqrt(num / den);
}

static void test_anchor_distances_dense_and_sparse(void) {
    fgl_node_data d, s;
    fgl_error err;
    float a[3 * 6], out1[20 * 3], out2[20 * 3], blk1[400], blk2[400];
    int i, k, nnz = 0, w = 0;
    make_points(&d, 20, 6, 0, 1);
    for (i = 0; i < 20 * 6; i++)
        if (i % 3 == 0) d.x.data[i] = 0; /* some zeros, so the sparse form is sparse */
    random_anchors(a, 3, 6, 2);
    fgl_node_data_init(&s);
    s.n_nodes = 20;
    s.n_feat = 6;
    for (i = 0; i < 20 * 6; i++) nnz += d.x.data[i] != 0;
    fgl_csr_init(&s.x_sparse, 20, 6, nnz, 1);
    for (i = 0; i < 20; i++) {
        for (k = 0; k < 6; k++)
            if (d.x.data[i * 6 + k] != 0) {
                s.x_sparse.indices[w] = k;
                s.x_sparse.values[w++] = d.x.data[i * 6 + k];
            }
        s.x_sparse.indptr[i + 1] = w;
    }
    FT_CHECK(fgl_anchor_sqdist(&d, a, 3, out1, &err) == FGL_OK && fgl_anchor_sqdist(&s, a, 3, out2, &err) == FGL_OK, "%s", err.msg);
    for (i = 0; i < 20; i++)
        for (k = 0; k < 3; k++) {
            double t = sqd(d.x.data + i * 6, a + k * 6, 6);
            FT_NEAR(out1[i * 3 + k], t, 1e-5 * (1 + t), "dense distance");
            FT_NEAR(out2[i * 3 + k], t, 1e-5 * (1 + t), "sparse distance");
        }
    FT_CHECK(fgl_node_sqdist_block(&d, blk1, &err) == FGL_OK && fgl_node_sqdist_block(&s, blk2, &err) == FGL_OK, "%s", err.msg);
    for (i = 0; i < 400; i++) FT_NEAR(blk1[i], blk2[i], 1e-5 * (1 + blk1[i]), "block");
    FT_NEAR(blk1[3 * 20 + 7], sqd(d.x.data + 3 * 6, d.x.data + 7 * 6, 6), 1e-5, "block entry");
    FT_CHECK(blk1[5 * 20 + 5] == 0 && blk1[2 * 20 + 9] == blk1[9 * 20 + 2], "block diagonal and symmetry");
    fgl_node_data_free(&s);
    FT_CHECK(fgl_anchor_sqdist(&s, a, 3, out2, &err) == FGL_ERR_ARG, "no features: an error");
    fgl_node_data_free(&d);
}

/* Landmark MDS places points exactly once the anchors span their space
 * (K >= d + 1), its completed distances never exceed the true ones (a
 * projection), and the error falls as anchors are added. */
static void test_landmark_completion(void) {
    static const int Ks[] = {3, 5, 9, 17, 24};
    double e[5], over;
    int i;
    for (i = 0; i < 5; i++) {
        e[i] = completion_error(16, Ks[i], 30, 0, &over, NULL);
        printf("#   landmark, d = 16, %2d anchors: relative error of inter-client squared distances %.2e\n", Ks[i], e[i]);
        FT_CHECK(over < 1e-3, "%d anchors: a completed distance exceeds the true one by %g (a projection cannot)", Ks[i], over);
        if (i > 0) FT_CHECK(e[i] < e[i - 1] + 1e-6, "the error grows from %d to %d anchors: %g -> %g", Ks[i - 1], Ks[i], e[i - 1], e[i]);
    }
    FT_CHECK(e[0] > 0.1, "3 anchors in 16 dimensions cannot be exact: %g", e[0]);
    FT_CHECK(e[3] < 1e-4 && e[4] < 1e-4, "17 or more anchors span 16 dimensions: errors %g, %g", e[3], e[4]);
}

/* SMACOF: the stress never rises (checked iteration by iteration), a
 * perturbed start goes back to the exact points, a sent block is fitted. */
static void test_smacof(void) {
    fgl_node_data c;
    fgl_anchor_frame f;
    fgl_error err;
    enum { D = 5, K = 8, N = 25 };
    float a[K * D], dist[N * K], z[N * (K - 1)], z0[N * (K - 1)], blk[N * N];
    double d2[K * K], prev = 1e300, s0 = 0, s1 = 0, over, e_lm, e_sm, ratio;
    int it, i, j, r;
    make_points(&c, N, D, 0.5, 4);
    random_anchors(a, K, D, 5);
    anchor_d2(a, K, D, d2);
    if (fgl_anchor_frame_init(&f, d2, K, 0, &err)) {
        FT_CHECK(0, "frame: %s", err.msg);
        return;
    }
    r = f.r;
    FT_CHECK(r == D, "8 anchors in 5 dimensions: rank %d", r);
    fgl_anchor_sqdist(&c, a, K, dist, &err);
    fgl_anchor_embed(&f, dist, N, z0);
    for (i = 0; i < N * r; i++) z0[i] += (float)(0.3 * ((i * 7919) % 13 - 6) / 6.0); /* a perturbed start */
    for (it = 0; it <= 6; it++) {
        memcpy(z, z0, sizeof z0);
        FT_CHECK(fgl_anchor_smacof(&f, dist, NULL, N, it, 0.0, z, &s0, &s1, &err) == it, "iterations");
        FT_CHECK(s1 <= prev * (1 + 1e-12), "stress rose at iteration %d: %g -> %g", it, prev, s1);
        prev = s1;
    }
    FT_CHECK(prev < s0 * 0.5, "6 iterations barely moved: %g -> %g", s0, prev);
    memcpy(z, z0, sizeof z0);
    fgl_anchor_smacof(&f, dist, NULL, N, 20000, 1e-14, z, &s0, &s1, &err);
    FT_CHECK(s1 < 1e-10 * s0, "with exact distances SMACOF recovers the points: stress %g of %g", s1, s0);
    for (i = 0; i < N; i++)
        for (j = i + 1; j < N; j++) {
            double t = sqd(c.x.data + i * D, c.x.data + j * D, D);
            FT_NEAR(sqd(z + i * r, z + j * r, r), t, 1e-4 * (1 + t), "recovered distance");
        }
    /* a block of the client's own distances: SMACOF fits it, landmark cannot use it */
    fgl_node_sqdist_block(&c, blk, &err);
    fgl_anchor_embed(&f, dist, N, z);
    fgl_anchor_smacof(&f, dist, blk, N, 500, 1e-9, z, &s0, &s1, &err);
    FT_CHECK(s1 <= s0 && s1 < 1e-6 * (s0 + 1e-12) + 1e-9, "with the block the exact points are a fixed point: %g -> %g", s0, s1);
    fgl_anchor_frame_free(&f);
    fgl_node_data_free(&c);
    /* fewer anchors than dimensions: SMACOF fits the observed distances better than the projection */
    e_lm = completion_error(16, 9, 20, 0, &over, NULL);
    e_sm = completion_error(16, 9, 20, 1, &over, &ratio);
    printf("#   d = 16, 9 anchors: landmark error %.3f, SMACOF error %.3f (observed stress x %.3f)\n", e_lm, e_sm, ratio);
    FT_CHECK(ratio < 0.5, "SMACOF did not lower the stress of the landmark start: x %g", ratio);
}

/* The dense N x N computation of L_C for checking. */
static void dense_lc(const float *z, int r, const int *ptr, int K, int kernel, double sigma, double *lc) {
    int N = ptr[K], i, j, a, *own = (int *)malloc(sizeof(int) * N);
    double *D = (double *)malloc(sizeof(double) * N * N), *A = (double *)calloc((size_t)N * N, sizeof(double));
    double *L = (double *)calloc((size_t)N * N, sizeof(double)), mean = 0;
    for (a = 0; a < K; a++)
        for (i = ptr[a]; i < ptr[a + 1]; i++) own[i] = a;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            D[i * N + j] = sqrt(sqd(z + i * r, z + j * r, r));
            if (i != j) mean += D[i * N + j] * D[i * N + j] / ((double)N * (N - 1));
        }
    if (kernel == FGL_KERNEL_GAUSS) {
        for (i = 0; i < N; i++)
            for (j = 0; j < N; j++)
                if (i != j) A[i * N + j] = exp(-D[i * N + j] * D[i * N + j] / (sigma * mean));
        for (i = 0; i < N; i++)
            for (j = 0; j < N; j++) {
                L[i * N + j] -= A[i * N + j];
                L[i * N + i] += A[i * N + j];
            }
    } else {
        double *As = (double *)malloc(sizeof(double) * N * N);
        for (i = 0; i < N; i++) {
            double m = 0, s = 0;
            for (j = 0; j < N; j++) {
                m = D[i * N + j] > m ? D[i * N + j] : m;
                s += D[i * N + j];
            }
            for (j = 0; j < N; j++) A[i * N + j] = (m - D[i * N + j]) / (N * m - s);
        }
        for (i = 0; i < N; i++)
            for (j = 0; j < N; j++) As[i * N + j] = 0.5 * (A[i * N + j] + A[j * N + i]);
        for (i = 0; i < N; i++) {
            double s = 0;
            for (j = 0; j < N; j++) s += As[i * N + j];
            for (j = 0; j < N; j++) L[i * N + j] = (i == j) - As[i * N + j] / s;
        }
        free(As);
    }
    memset(lc, 0, sizeof(double) * K * K);
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) lc[own[i] * K + own[j]] += L[i * N + j];
    free(own);
    free(D);
    free(A);
    free(L);
}

static void test_coarsening(void) {
    enum { K = 4, R = 3 };
    int ptr[K + 1] = {0, 5, 15, 30, 50}, i, a, b, k;
    float z[50 * R];
    double lc[K * K], ref[K * K], w[K * K];
    fgl_coarsen_config cc = fgl_coarsen_default();
    fgl_error err;
    fgl_rng rng;
    fgl_rng_init(&rng, 5, 1);
    for (a = 0; a < K; a++)
        for (i = ptr[a]; i < ptr[a + 1]; i++)
            for (k = 0; k < R; k++) z[i * R + k] = (float)(a * (k == 0) + 0.7 * fgl_rng_normal(&rng));
    for (k = 0; k < 2; k++) {
        cc.kernel = k ? FGL_KERNEL_GAUSS : FGL_KERNEL_MAXDIFF;
        cc.sigma = 0.5;
        FT_CHECK(fgl_coarsen_clients(z, R, ptr, K, &cc, lc, &err) == FGL_OK, "coarsen: %s", err.msg);
        dense_lc(z, R, ptr, K, cc.kernel, cc.sigma, ref);
        for (i = 0; i < K * K; i++) FT_NEAR(lc[i], ref[i], 1e-4 * (1 + fabs(ref[i])), k ? "gauss L_C vs dense" : "maxdiff L_C vs dense");
        for (a = 0; a < K; a++) {
            double s = 0;
            for (b = 0; b < K; b++) s += lc[a * K + b];
            FT_NEAR(s, 0, 1e-6 * ptr[K], "a Laplacian's rows sum to 0");
        }
        fgl_collab_weights(lc, K, w);
        for (a = 0; a < K; a++) {
            double s = 0;
            for (b = 0; b < K; b++) {
                FT_CHECK(w[a * K + b] >= 0, "negative weight");
                s += w[a * K + b];
            }
            FT_NEAR(s, 1, 1e-12, "weights sum to 1");
            FT_CHECK(w[a * K + a] == 0, "no self weight in w");
        }
        /* the nearest clients (consecutive offsets) weigh more than the farthest */
        FT_CHECK(w[0 * K + 1] > w[0 * K + 3] && w[3 * K + 2] > w[3 * K + 0], "client 0 weighs 1 %g vs 3 %g", w[1], w[3]);
    }
    { /* a row without positive mass is all zeros; negative masses are dropped */
        double l2[9] = {1, 1, -2, 0, 0, 0, -1, -1, 2}, w2[9];
        fgl_collab_weights(l2, 3, w2);
        FT_CHECK(w2[0] == 0 && w2[1] == 0 && w2[2] == 1 && w2[3] == 0 && w2[4] == 0 && w2[5] == 0 && w2[6] == 0.5 &&
                     w2[7] == 0.5 && w2[8] == 0, "weights of a hand-made L_C");
    }
    FT_CHECK(fgl_coarsen_clients(z, R, ptr, K, NULL, lc, &err) == FGL_OK, "default config");
    cc.kernel = 7;
    FT_CHECK(fgl_coarsen_clients(z, R, ptr, K, &cc, lc, &err) == FGL_ERR_ARG, "unknown kernel refused");
}

/* Sums over sampled points approach the exact sums (within 5% at 300 a
 * client; the error falls as 1/sqrt(sample)); a sample as large as
 * every client is the exact computation, bit for bit. */
static void test_coarsening_sampled(void) {
    enum { K = 5, R = 8 };
    int n = ft_quick() ? 600 : 1200, ptr[K + 1], i, a, k, kern;
    float *z = (float *)malloc(sizeof(float) * (size_t)n * K * R);
    double exact[K * K], samp[K * K], again[K * K], worst = 0;
    fgl_coarsen_config cc = fgl_coarsen_default();
    fgl_error err;
    fgl_rng rng;
    fgl_rng_init(&rng, 6, 1);
    for (a = 0; a <= K; a++) ptr[a] = a * n;
    for (a = 0; a < K; a++)
        for (i = ptr[a]; i < ptr[a + 1]; i++)
            for (k = 0; k < R; k++) z[(size_t)i * R + k] = (float)(0.5 * a * (k == a % R) + fgl_rng_normal(&rng));
    for (kern = 0; kern < 2; kern++) {
        cc.kernel = kern;
        cc.sample = 0;
        fgl_coarsen_clients(z, R, ptr, K, &cc, exact, &err);
        cc.sample = n;
        fgl_coarsen_clients(z, R, ptr, K, &cc, again, &err);
        FT_CHECK(memcmp(exact, again, sizeof exact) == 0, "a sample of everything must be the exact sums");
        cc.sample = 300;
        FT_CHECK(fgl_coarsen_clients(z, R, ptr, K, &cc, samp, &err) == FGL_OK, "%s", err.msg);
        for (i = 0; i < K * K; i++) {
            double rel = fabs(samp[i] - exact[i]) / fabs(exact[i]);
            worst = rel > worst ? rel : worst;
        }
    }
    printf("#   %d points a client, 300 sampled: largest relative error of L_C %.4f\n", n, worst);
    FT_CHECK(worst < 0.05, "sampled pair sums off by %.3f", worst);
    free(z);
}

/* --- runtime rules pFedGNN needs ----------------------------------------------- */

/* FedAvg plus an optional part of n_i x width floats (width a parameter)
 * sent in round 0 only, filled with the client's id. */
static int rows_upload(fgl_client *c) {
    float *x;
    size_t j;
    if (c->round > 0) {
        fgl_up_drop(c, "rows");
        return FGL_OK;
    }
    if (!(x = fgl_up(c, "rows"))) return c->err.code;
    for (j = 0; j < fgl_up_size(c, "rows"); j++) x[j] = (float)c->id;
    return FGL_OK;
}
static int short_upload(fgl_client *c) {
    int rc = rows_upload(c);
    if (c->id == 2 && c->round == 0) c->up.len[2] -= 1; /* one float short */
    return rc;
}
static int rows_seen(fgl_server *s) {
    int i, *seen = fgl_ints(&s->store, "seen");
    for (i = 0; i < s->n_clients; i++) {
        const float *x = fgl_upload(s, i, "rows");
        size_t j, n = fgl_upload_size(s, i, "rows");
        int ok = n == (size_t)s->n_nodes[i] * 3;
        for (j = 0; x && j < n; j++) ok &= x[j] == (float)i;
        if (x) seen[i] = ok ? 1 : -1;
    }
    seen[s->n_clients] = fgl_server_gather(s, "rows", fgl_floats(&s->store, "global"), NULL);
    return fgl_server_mean(s, "theta", fgl_floats(&s->store, "global"));
}
/* An aggregation asking the size of a part the algorithm does not declare. */
static int unknown_size(fgl_server *s) { return fgl_server_up_size(s, "nope") == 0 ? FGL_OK : FGL_ERR_ARG; }
static int rows_init(fgl_server *s) {
    fgl_params_pack(s->init, s->share, fgl_new_floats(&s->store, "global", s->n_shared));
    fgl_new_ints(&s->store, "seen", (size_t)s->n_clients + 1);
    return s->store.err.code;
}

static void test_per_client_parts(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_algo a = fgl_algo_base("fedavg"), bad;
    fgl_run run;
    fgl_error err;
    int i;
    if (!ft_node_clients(&nodes, 5, 16, &sc, cd)) return;
    a.name = "rows";
    fgl_algo_param_add(&a, "width", FGL_PARAM_INT, 3, "columns of the rows part");
    fgl_algo_upload(&a, "rows", FGL_SEND_DATA, FGL_DIM_NODES, fgl_algo_param_dim(&a, "width"), FGL_PART_OPTIONAL);
    a.upload = rows_upload;
    a.server_init = rows_init;
    a.aggregate = rows_seen;
    cfg.rounds = 3;
    if (ft_run_algo(&run, &cfg, &a, cd, 5, 3, NULL)) {
        size_t n = run.clients[0].n_shared, extra = 0;
        const int *seen = fgl_ints(&run.server.store, "seen");
        for (i = 0; i < 5; i++) {
            extra += 4 * 3 * (size_t)cd[i].node->n_nodes;
            FT_CHECK(seen[i] == 1, "client %d: the server saw %d (1: n_i x 3 floats holding its id)", i, seen[i]);
            FT_CHECK(run.clients[i].up.own[2] == NULL && run.clients[i].up.cap[2] == 0,
                     "client %d: the dropped part still holds memory", i);
        }
        FT_CHECK(seen[5] == FGL_ERR_SHAPE, "gathering parts of different sizes must fail: %d", seen[5]);
        FT_CHECK(run.stats[0].bytes_up == 5 * 4 * (n + 1) + extra && run.stats[1].bytes_up == 5 * 4 * (n + 1),
                 "bytes up %zu, %zu: FedAvg's plus n_i x 3 floats in round 0 only", run.stats[0].bytes_up, run.stats[1].bytes_up);
        FT_CHECK(run.server.up_len[2] == 0 && fgl_upload_size(&run.server, 3, "rows") == 3 * (size_t)cd[3].node->n_nodes,
                 "the server's per-part size is 0 (it differs), fgl_upload_size gives client 3's");
        /* the declared sizes by name: a part's size for every client (0: it differs), for one client, of a download */
        FT_CHECK(fgl_server_up_size(&run.server, "rows") == 0 && fgl_server_up_size(&run.server, "theta") == n &&
                     fgl_server_up_size(&run.server, "n") == 1 && fgl_server_down_size(&run.server, "theta") == n &&
                     !run.server.err.code, "server sizes: %s", run.server.err.msg);
        FT_CHECK(fgl_up_size(&run.clients[1], "rows") == 3 * (size_t)cd[1].node->n_nodes && fgl_up_size(&run.clients[1], "theta") == n &&
                     !run.clients[1].err.code, "client 1's sizes: %s", run.clients[1].err.msg);
        /* an unknown name: 0 and an error naming it on the side that asked, no crash */
        FT_CHECK(fgl_server_up_size(&run.server, "nope") == 0 && run.server.err.code == FGL_ERR_ARG && strstr(run.server.err.msg, "'nope'"),
                 "unknown upload part on the server: %d %s", run.server.err.code, run.server.err.msg);
        run.server.err.code = 0;
        FT_CHECK(fgl_server_down_size(&run.server, "rows") == 0 && run.server.err.code == FGL_ERR_ARG &&
                     strstr(run.server.err.msg, "downloads no part 'rows'"), "unknown download part: %s", run.server.err.msg);
        FT_CHECK(fgl_up_size(&run.clients[1], "nope") == 0 && run.clients[1].err.code == FGL_ERR_ARG &&
                     strstr(run.clients[1].err.msg, "'nope'"), "unknown upload part on a client: %d %s", run.clients[1].err.code,
                 run.clients[1].err.msg);
        fgl_run_free(&run);
    }
    bad = a;
    bad.name = "rows-unknown";
    bad.aggregate = unknown_size;
    FT_CHECK(fgl_run_init(&run, &cfg, &bad, cd, 5, &err) == FGL_OK, "init"); /* inside a hook: the round fails, naming it */
    FT_CHECK(fgl_run_round(&run) == FGL_ERR_ARG && strstr(run.err.msg, "no part 'nope'"), "a hook asking an unknown part's size: %s",
             run.err.msg);
    fgl_run_free(&run);
    bad = a;
    bad.name = "rows-short";
    bad.upload = short_upload;
    if (ft_run_algo(&run, &cfg, &bad, cd, 5, 1, NULL)) { /* a part one float short: client 2 rejected, alone */
        FT_CHECK(run.rejected_by[2] == 1 && run.rejected_total == 1, "rejected %d (client 2: %d)", run.rejected_total,
                 run.rejected_by[2]);
        fgl_run_free(&run);
    }
    FT_CHECK(fgl_run_init(&run, &cfg, &a, cd, 5, &err) == FGL_OK, "init");
    fgl_run_set(&run, "width", "0", &err);
    FT_CHECK(fgl_run_round(&run) == FGL_ERR_ARG && strstr(run.err.msg, "width"), "width 0 must be refused, naming it: %s",
             run.err.msg);
    fgl_run_free(&run);
    bad = fgl_algo_base("fedavg"); /* a download sized by the client's nodes: the download hook's (FedGCN's halo) */
    bad.name = "nodes-down";
    fgl_algo_download(&bad, "per", FGL_SEND_DATA, FGL_DIM_NODES, 1, FGL_PART_OPTIONAL, NULL);
    FT_CHECK(fgl_run_init(&run, &cfg, &bad, cd, 5, &err) == FGL_OK, "init");
    FT_CHECK(fgl_run_round(&run) == FGL_OK, "a per-client download the hook writes: %s", run.err.msg);
    fgl_run_free(&run);
    bad = fgl_algo_base("fedavg"); /* ... never one sent whole from a server buffer */
    bad.name = "nodes-down-from";
    fgl_algo_download(&bad, "per", FGL_SEND_DATA, FGL_DIM_NODES, 1, FGL_PART_OPTIONAL, "global");
    FT_CHECK(fgl_run_init(&run, &cfg, &bad, cd, 5, &err) == FGL_OK, "init");
    FT_CHECK(fgl_run_round(&run) == FGL_ERR_ARG && strstr(run.err.msg, "download hook"),
             "a per-client download from a server buffer must be refused: %s", run.err.msg);
    fgl_run_free(&run);
    fgl_scenario_free(&sc);
}

/* --- the node Dirichlet split and public nodes --------------------------------- */

static double mean_top_share(const fgl_scenario *sc) {
    double s = 0;
    int i, j, C = sc->node[0].n_classes;
    for (i = 0; i < sc->n_clients; i++) {
        int *h = (int *)calloc((size_t)C + 1, sizeof(int)), top = 0, n = 0;
        for (j = 0; j < sc->node[i].n_nodes; j++)
            if (sc->node[i].y[j] >= 0) {
                h[sc->node[i].y[j]]++;
                n++;
            }
        for (j = 0; j < C; j++) top = h[j] > top ? h[j] : top;
        s += n ? (double)top / n : 0;
        free(h);
    }
    return s / sc->n_clients;
}

static void test_node_dirichlet_split(void) {
    fgl_split_config c = fgl_split_default();
    fgl_scenario a, b, skew, flat;
    fgl_error err;
    int i, total = 0, edges = 0;
    c.how = FGL_PART_DIRICHLET;
    c.clients = 5;
    c.public_nodes = 40;
    c.alpha = 0.5;
    if (fgl_scenario_make(&a, &nodes, &c, &err) || fgl_scenario_make(&b, &nodes, &c, &err)) {
        FT_CHECK(0, "split: %s", err.msg);
        return;
    }
    for (i = 0; i < 5; i++) {
        total += a.node[i].n_nodes;
        edges += fgl_graph_num_edges(&a.node[i].adj);
        FT_CHECK(a.node[i].n_nodes >= c.min_per_client, "client %d holds %d nodes", i, a.node[i].n_nodes);
        FT_CHECK(a.node[i].n_nodes == b.node[i].n_nodes && !memcmp(a.node[i].y, b.node[i].y, sizeof(int) * a.node[i].n_nodes),
                 "the same seed, another split");
    }
    FT_CHECK(a.pub.n_nodes == 40 && total == nodes.node.n_nodes - 40, "%d public + %d client nodes of %d", a.pub.n_nodes,
             total, nodes.node.n_nodes);
    FT_CHECK(a.pub.n_feat == nodes.node.n_feat && a.pub.y != NULL, "public nodes keep features and labels");
    FT_CHECK(a.edge_cut > 0 && edges + a.edge_cut + fgl_graph_num_edges(&a.pub.adj) <= fgl_graph_num_edges(&nodes.node.adj),
             "edges across clients are dropped (kept %d, cut %ld)", edges, a.edge_cut);
    c.public_nodes = 0;
    c.alpha = 0.1;
    fgl_scenario_make(&skew, &nodes, &c, &err);
    c.alpha = 100;
    fgl_scenario_make(&flat, &nodes, &c, &err);
    printf("#   Dirichlet 0.1: mean share of a client's top class %.3f; Dirichlet 100: %.3f\n", mean_top_share(&skew),
           mean_top_share(&flat));
    FT_CHECK(mean_top_share(&skew) > mean_top_share(&flat) + 0.15, "beta 0.1 must skew labels more than beta 100");
    FT_CHECK(skew.pub.n_nodes == 0, "no public nodes unless asked");
    fgl_scenario_free(&a);
    fgl_scenario_free(&b);
    fgl_scenario_free(&skew);
    fgl_scenario_free(&flat);
    {
        fgl_scenario e;
        c.public_nodes = nodes.node.n_nodes;
        FT_CHECK(fgl_scenario_make(&e, &nodes, &c, &err) == FGL_ERR_ARG, "withholding every node must be refused");
    }
}

/* --- pFedGNN ----------------------------------------------------------------------- */

/* pfedgnn's aggregation, keeping the uploads it saw (theta rows). */
static int kept_aggregate(fgl_server *s) {
    const fgl_algo *p = fgl_algo_find("pfedgnn");
    float *copy = fgl_floats(&s->store, "seen_theta");
    int i;
    for (i = 0; i < s->n_clients; i++)
        if (fgl_upload(s, i, "theta")) memcpy(copy + (size_t)i * s->n_shared, fgl_upload(s, i, "theta"), sizeof(float) * s->n_shared);
    return p->aggregate(s);
}
static int kept_init(fgl_server *s) {
    int rc = fgl_algo_find("pfedgnn")->server_init(s);
    fgl_new_floats(&s->store, "seen_theta", (size_t)s->n_clients * s->n_shared);
    return rc ? rc : s->store.err.code;
}

static void test_pfedgnn_bytes_and_rule(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_algo a = fgl_algo_base("pfedgnn");
    const char *sets[] = {"alpha", "0.3", "anchors", "12", "method", "0", NULL};
    fgl_run run;
    int i, j, Ka = 12;
    if (!ft_node_clients(&nodes, 5, 16, &sc, cd)) return;
    a.name = "pfedgnn-watched";
    a.server_init = kept_init;
    a.aggregate = kept_aggregate;
    cfg.rounds = 3;
    if (ft_run_algo(&run, &cfg, &a, cd, 5, 3, sets)) {
        size_t n = run.clients[0].n_shared, once = 0;
        const float *w = ft_matrix(&run, 0), *theta = fgl_floats(&run.server.store, "theta");
        const float *up = fgl_floats(&run.server.store, "seen_theta");
        double worst = 0;
        for (i = 0; i < 5; i++) once += 4 * (size_t)Ka * cd[i].node->n_nodes;
        FT_CHECK(run.stats[0].bytes_up == 5 * 4 * (n + 1) + once, "round 0 up %zu, expected FedAvg's %zu + distances %zu",
                 run.stats[0].bytes_up, 5 * 4 * (n + 1), once);
        FT_CHECK(run.stats[1].bytes_up == 5 * 4 * (n + 1) && run.stats[2].bytes_up == 5 * 4 * (n + 1), "later rounds: FedAvg's");
        FT_CHECK(run.stats[0].bytes_down == 5 * 4 * (2 * n + 1) && run.stats[1].bytes_down == 5 * 4 * n,
                 "down %zu / %zu: the initial broadcast carries the 4-byte request", run.stats[0].bytes_down,
                 run.stats[1].bytes_down);
        FT_CHECK(fgl_ints(&run.server.store, "ready")[0] == 1, "the graph is ready after round 0");
        for (i = 0; i < 5; i++) { /* theta_i = alpha up_i + (1 - alpha) sum_j w_ij up_j */
            double s = 0;
            size_t q;
            for (j = 0; j < 5; j++) s += w[i * 5 + j];
            FT_NEAR(s, 1, 1e-5, "w rows sum to 1");
            FT_CHECK(w[i * 5 + i] == 0, "w has no self weight");
            for (q = 0; q < n; q++) {
                double e = 0.3f * (double)up[i * n + q];
                for (j = 0; j < 5; j++) e += (1 - 0.3f) * (double)w[i * 5 + j] * up[j * n + q];
                worst = fabs(e - theta[i * n + q]) > worst ? fabs(e - theta[i * n + q]) : worst;
            }
        }
        FT_CHECK(worst < 1e-5, "the server's models differ from the mixing rule by %g", worst);
        for (i = 0; i < 5; i++) { /* every client holds its own row after the download */
            float *now = (float *)malloc(sizeof(float) * n);
            fgl_client_pack(&run.clients[i], &run.clients[i].model.params, now);
            FT_CHECK(memcmp(now, theta + (size_t)i * n, sizeof(float) * n) == 0, "client %d does not hold its row", i);
            free(now);
        }
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

/* alpha = 1: every client keeps its own model, which is Local. */
static void test_pfedgnn_alpha_one_is_local(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    const char *sets[] = {"alpha", "1", "anchors", "10", NULL};
    fgl_run a, b;
    if (!ft_node_clients(&nodes, 5, 16, &sc, cd)) return;
    cfg.rounds = 4;
    if (ft_run_rounds(&a, &cfg, "pfedgnn", cd, 5, 4, sets)) {
        if (ft_run_rounds(&b, &cfg, "local", cd, 5, 4, NULL)) {
            FT_CHECK(ft_same_history(&a, &b) && ft_same_models(&a, &b), "pFedGNN with alpha = 1 differs from Local");
            fgl_run_free(&b);
        }
        fgl_run_free(&a);
    }
    fgl_scenario_free(&sc);
}

/* Public anchors: the server's first K_a public nodes, sent once; a
 * client's upload is its distances to them; the run's fingerprint holds the
 * public data. */
static int dist_check(fgl_server *s) {
    int i, *ok = fgl_ints(&s->store, "dist_ok");
    for (i = 0; i < s->n_clients; i++) {
        if (fgl_upload(s, i, "dist")) ok[i] = (int)fgl_upload_size(s, i, "dist");
    }
    return fgl_algo_find("pfedgnn")->aggregate(s);
}
static int dist_init(fgl_server *s) {
    int rc = fgl_algo_find("pfedgnn")->server_init(s);
    fgl_new_ints(&s->store, "dist_ok", (size_t)s->n_clients);
    return rc ? rc : s->store.err.code;
}
static int dist_upload(fgl_client *c) { /* the real upload, then a check against the anchors it received */
    int rc = fgl_algo_find("pfedgnn")->upload(c), Ka = (int)fgl_get(c->set, "anchors");
    const float *anch = fgl_down(c, "anchors");
    if (!rc && anch && fgl_down(c, "ask")) {
        float *mine = (float *)malloc(sizeof(float) * (size_t)c->data.node->n_nodes * Ka);
        fgl_error err;
        fgl_anchor_sqdist(c->data.node, anch, Ka, mine, &err);
        if (memcmp(mine, fgl_up(c, "dist"), sizeof(float) * (size_t)c->data.node->n_nodes * Ka) != 0) rc = FGL_ERR_RANGE;
        free(mine);
    }
    return rc;
}

static void test_pfedgnn_public_anchors(void) {
    fgl_split_config split = fgl_split_default();
    fgl_scenario sc;
    fgl_client_data cd[4];
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 1, 1);
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_algo a = fgl_algo_base("pfedgnn");
    const char *sets[] = {"anchors", "20", "method", "0", NULL}, *too_many[] = {"anchors", "31", NULL};
    fgl_run run;
    fgl_error err;
    char path[256];
    int i, d = nodes.node.n_feat;
    snprintf(path, sizeof path, "/tmp/fgl_test_pfedgnn_%lx.bin", (unsigned long)time(NULL));
    split.how = FGL_PART_DIRICHLET;
    split.clients = 4;
    split.public_nodes = 30;
    spec.hidden = 16;
    if (fgl_scenario_make(&sc, &nodes, &split, &err)) {
        FT_CHECK(0, "%s", err.msg);
        return;
    }
    if (fgl_scenario_clients(&sc, &spec, cd, 4, &err)) {
        FT_CHECK(0, "%s", err.msg);
        fgl_scenario_free(&sc);
        return;
    }
    a.name = "pfedgnn-public";
    a.server_init = dist_init;
    a.aggregate = dist_check;
    a.upload = dist_upload;
    cfg.rounds = 2;
    FT_CHECK(fgl_run_init(&run, &cfg, &a, cd, 4, &err) == FGL_OK, "init: %s", err.msg);
    sc.pub.n_feat++; /* public data of another width: refused */
    FT_CHECK(fgl_run_set_public(&run, &sc.pub, &err) == FGL_ERR_SHAPE && strstr(err.msg, "features"), "width: %s", err.msg);
    sc.pub.n_feat--;
    fgl_run_set(&run, "anchors", "20", &err);
    fgl_run_set(&run, "method", "0", &err);
    FT_CHECK(fgl_run_set_public(&run, &sc.pub, &err) == FGL_OK, "public: %s", err.msg);
    FT_CHECK(fgl_run_round(&run) == FGL_OK && fgl_run_round(&run) == FGL_OK, "rounds: %s", run.err.msg);
    if (run.round == 2) {
        size_t n = run.clients[0].n_shared;
        char rep[512];
        for (i = 0; i < 4; i++)
            FT_CHECK(fgl_ints(&run.server.store, "dist_ok")[i] == 20 * cd[i].node->n_nodes, "client %d's distances", i);
        FT_CHECK(run.stats[0].bytes_down == 4 * 4 * (2 * n + 1 + 20 * (size_t)d) && run.stats[1].bytes_down == 4 * 4 * n,
                 "down %zu: the initial broadcast carries the request and 20 x %d anchor features", run.stats[0].bytes_down, d);
        fgl_run_report(&run, rep, sizeof rep);
        FT_CHECK(strstr(rep, "\"anchor_source\": \"public nodes\"") != NULL, "report: %s", rep);
        FT_CHECK(fgl_run_save(&run, path, &err) == FGL_OK, "save: %s", err.msg);
    }
    fgl_run_free(&run);
    if (ft_run_algo(&run, &cfg, &a, cd, 4, 0, sets)) { /* the same run without the public data: another run */
        FT_CHECK(fgl_run_load(&run, path, &err) == FGL_ERR_SHAPE, "a checkpoint with public data loaded into a run "
                 "without: %s", err.msg);
        fgl_run_free(&run);
    }
    remove(path);
    if (ft_run_algo(&run, &cfg, &a, cd, 4, 0, too_many)) {
        fgl_run_set_public(&run, &sc.pub, &err);
        FT_CHECK(fgl_run_round(&run) == FGL_ERR_ARG && strstr(run.err.msg, "public"), "31 anchors of 30 public nodes: %s",
                 run.err.msg);
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

/* The authors' variants: the block upload (SMACOF only, counted), the
 * Gaussian kernel; and the same bits at 1 and 2 threads. */
static void test_pfedgnn_variants_and_threads(void) {
    fgl_scenario sc;
    fgl_client_data cd[4];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    const char *blocks[] = {"anchors", "10", "blocks", "1", "max_iter", "30", NULL};
    const char *landmark_blocks[] = {"blocks", "1", "method", "0", NULL};
    const char *gauss[] = {"anchors", "10", "kernel", "1", "alpha", "0.5", NULL};
    fgl_run a, b;
    fgl_error err;
    int i;
    if (!ft_node_clients(&nodes, 4, 16, &sc, cd)) return;
    cfg.rounds = 2;
    if (ft_run_rounds(&a, &cfg, "pfedgnn", cd, 4, 2, blocks)) {
        size_t n = a.clients[0].n_shared, once = 0;
        for (i = 0; i < 4; i++) once += 4 * (10 + (size_t)cd[i].node->n_nodes) * cd[i].node->n_nodes;
        FT_CHECK(a.stats[0].bytes_up == 4 * 4 * (n + 1) + once, "blocks: round 0 up %zu, expected %zu", a.stats[0].bytes_up,
                 4 * 4 * (n + 1) + once);
        fgl_run_free(&a);
    }
    FT_CHECK(fgl_run_init(&a, &cfg, fgl_algo_find("pfedgnn"), cd, 4, &err) == FGL_OK, "init");
    for (i = 0; landmark_blocks[i]; i += 2) fgl_run_set(&a, landmark_blocks[i], landmark_blocks[i + 1], &err);
    FT_CHECK(fgl_run_round(&a) == FGL_ERR_ARG && strstr(a.err.msg, "blocks"), "blocks with landmark MDS: %s", a.err.msg);
    fgl_run_free(&a);
    cfg.threads = 1;
    if (ft_run_rounds(&a, &cfg, "pfedgnn", cd, 4, 2, gauss)) {
        cfg.threads = 2;
        if (ft_run_rounds(&b, &cfg, "pfedgnn", cd, 4, 2, gauss)) {
            FT_CHECK(ft_same_history(&a, &b) && ft_same_models(&a, &b) &&
                         ft_matrix(&a, 0) && ft_matrix(&b, 1) &&
                         !memcmp(ft_matrix(&a, 0), ft_matrix(&b, 1), sizeof(float) * 16),
                     "pfedgnn: 1 and 2 threads differ");
            fgl_run_free(&b);
        }
        fgl_run_free(&a);
    }
    fgl_scenario_free(&sc);
}

/* End to end beside Local and FedAvg on one label-Dirichlet split with
 * public anchors (the authors' setting, shortened). */
static void test_pfedgnn_learns(void) {
    fgl_split_config split = fgl_split_default();
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 1, 1);
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    const char *algos[] = {"local", "fedavg", "pfedgnn"};
    const char *sets[] = {"alpha", "0.5", NULL};
    double acc[3];
    fgl_error err;
    int k;
    if (ft_quick()) FT_SKIP("an accuracy comparison: make test's job");
    split.how = FGL_PART_DIRICHLET;
    split.clients = 5;
    split.public_nodes = 100;
    spec.hidden = 32;
    if (fgl_scenario_make(&sc, &nodes, &split, &err)) {
        FT_CHECK(0, "%s", err.msg);
        return;
    }
    if (fgl_scenario_clients(&sc, &spec, cd, 5, &err)) {
        FT_CHECK(0, "%s", err.msg);
        fgl_scenario_free(&sc);
        return;
    }
    cfg.rounds = 20;
    cfg.local_epochs = 5;
    for (k = 0; k < 3; k++) {
        fgl_run run;
        fgl_run_summary s;
        acc[k] = -1;
        if (fgl_run_init(&run, &cfg, fgl_algo_find(algos[k]), cd, 5, &err)) continue;
        if (k == 2) {
            fgl_run_set(&run, sets[0], sets[1], &err);
            fgl_run_set_public(&run, &sc.pub, &err);
        }
        while (run.round < cfg.rounds && fgl_run_round(&run) == FGL_OK) {}
        FT_CHECK(run.round == cfg.rounds, "%s: %s", algos[k], run.err.msg);
        fgl_run_summarize(&run, &s);
        acc[k] = s.best_test;
        fgl_run_free(&run);
    }
    printf("#   %s, 5 Dirichlet(0.5) clients, 20 rounds: Local %.3f, FedAvg %.3f, pFedGNN (alpha 0.5) %.3f\n", nodes.label,
           acc[0], acc[1], acc[2]);
    FT_CHECK(acc[2] > 2.0 / nodes.node.n_classes, "pFedGNN did not learn: %.3f", acc[2]);
    FT_CHECK(acc[2] > (acc[0] < acc[1] ? acc[0] : acc[1]) - 0.03, "pFedGNN %.3f is below both Local %.3f and FedAvg %.3f",
             acc[2], acc[0], acc[1]);
    fgl_scenario_free(&sc);
}

static void test_rank_helpers(void) {
    double x[5] = {1, 2, 3, 4, 5}, y[5] = {10, 20, 30, 40, 50}, z[5] = {5, 4, 3, 2, 1}, t[5] = {1, 1, 2, 2, 3};
    double flat[5] = {2, 2, 2, 2, 2};
    double ref[16] = {1, .9, .5, .1, .9, 1, .6, .2, .5, .6, 1, .7, .1, .2, .7, 1};
    float m[16], mneg[16];
    int i, perm[4] = {1, 0, 2, 3};
    fgl_client_data cd[2];
    fgl_node_data d0, d1;
    double sim[4];
    int y0[4] = {0, 0, 1, 2}, y1[4] = {0, 0, 1, 2};
    FT_NEAR(fgl_spearman(x, y, 5), 1, 1e-12, "monotone");
    FT_NEAR(fgl_spearman(x, z, 5), -1, 1e-12, "reversed");
    FT_NEAR(fgl_spearman(x, t, 5), 0.9486832980505138, 1e-9, "ties get their mean rank");
    FT_CHECK(fgl_spearman(x, x, 1) == 0 && fgl_spearman(t, flat, 5) == 0, "degenerate cases");
    for (i = 0; i < 16; i++) {
        m[i] = (float)ref[i];
        mneg[i] = (float)-ref[i];
    }
    FT_NEAR(fgl_rowwise_spearman(m, ref, 4, NULL), 1, 1e-12, "a matrix against itself");
    FT_NEAR(fgl_rowwise_spearman(mneg, ref, 4, NULL), -1, 1e-12, "against its negation");
    FT_CHECK(fgl_rowwise_spearman(m, ref, 4, perm) < 1, "a permuted reference is not the same");
    fgl_node_data_init(&d0);
    fgl_node_data_init(&d1);
    d0.n_nodes = d1.n_nodes = 4;
    d0.n_classes = d1.n_classes = 3;
    d0.y = y0;
    d1.y = y1;
    y1[0] = y1[1] = 2;
    cd[0].node = &d0;
    cd[1].node = &d1;
    cd[0].graphs = cd[1].graphs = NULL;
    FT_CHECK(fgl_label_similarity(cd, 2, sim) == FGL_OK, "label similarity");
    FT_NEAR(sim[0], 1, 1e-12, "self");
    FT_NEAR(sim[1], (2.0 * 0 + 1 * 1 + 1 * 3) / (sqrt(6.0) * sqrt(10.0)), 1e-12, "histograms (2,1,1) and (0,1,3)");
}

int main(void) {
    real_nodes = ft_node_data(&nodes);
    printf("# data: %s (%s)\n", nodes.label, real_nodes ? "real" : "synthetic");
    FT_RUN(test_anchor_distances_dense_and_sparse);
    FT_RUN(test_landmark_completion);
    FT_RUN(test_smacof);
    FT_RUN(test_coarsening);
    FT_RUN(test_coarsening_sampled);
    FT_RUN(test_per_client_parts);
    FT_RUN(test_node_dirichlet_split);
    FT_RUN(test_pfedgnn_bytes_and_rule);
    FT_RUN(test_pfedgnn_alpha_one_is_local);
    FT_RUN(test_pfedgnn_public_anchors);
    FT_RUN(test_pfedgnn_variants_and_threads);
    FT_RUN(test_pfedgnn_learns);
    FT_RUN(test_rank_helpers);
    fgl_dataset_free(&nodes);
    return ft_finish();
}
