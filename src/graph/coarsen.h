#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Client coarsening of an affinity graph over points (pFedGNN)             */
/* ------------------------------------------------------------------------ */
/* N points z (N x r; pFedGNN: the clients' node features completed from
 * their distances to public anchors, src/graph/anchors.h) are owned by K
 * clients through the membership P; the server builds an affinity graph
 * over all points and coarsens its Laplacian by P into a K x K matrix
 * L_C = P L_G P^T (pFedGNN, Kataria et al.).
 *
 * Coarsening. L_C needs only, for every pair of clients (a, b), the sum of
 * the affinities between a's and b's points, so fgl_coarsen_clients streams
 * over tiles of point pairs and keeps O(N + K^2) numbers: exact in
 * O(N^2 r) time, or, with cfg.sample = s > 0, over s points drawn from each
 * client (each standing for n_b / s of its client's points): O(N K s r)
 * time, unbiased for the pair sums (the maxdiff kernel's row maxima become
 * maxima over the sample). Per-client-pair sums rather than k-nearest-
 * neighbour sparsification: L_C needs nothing else, the sums are exact or
 * unbiased, and no neighbour search is needed. Kernels on the completed
 * distances D (Euclidean):
 *   FGL_KERNEL_MAXDIFF  the pFedGNN authors' code: A_ij = (m_i - D_ij) / sum_k
 *                       (m_i - D_ik), m_i = max_k D_ik (rows sum to 1),
 *                       symmetrised (A + A^T) / 2, rows normalised again,
 *                       L_G = I - D^-1 A (the random-walk Laplacian);
 *   FGL_KERNEL_GAUSS    W_ij = exp(-D_ij^2 / sigma^2), i != j, L_G = Diag(W 1) - W;
 *                       sigma^2 = cfg.sigma times the mean squared distance
 *                       over all pairs (computed exactly from sums).
 * fgl_collab_weights turns L_C into row-normalised inter-client weights
 * w_ij = max(-(L_C)_ij, 0) / sum_{k != i} max(-(L_C)_ik, 0), w_ii = 0 (the
 * paper's literal "L_C row-normalised" is ill-defined: rows of a Laplacian
 * sum to 0). */

enum { FGL_KERNEL_MAXDIFF, FGL_KERNEL_GAUSS };

typedef struct fgl_coarsen_config {
    int kernel;          /* FGL_KERNEL_* (MAXDIFF) */
    double sigma;        /* GAUSS: sigma^2 = sigma x mean squared distance (1) */
    int sample;          /* 0: every pair; s > 0: s points per client stand for the client (0) */
    uint64_t seed;       /* the sample's draw (1) */
} fgl_coarsen_config;

FGLDEF fgl_coarsen_config fgl_coarsen_default(void);
/* lc (K x K, row-major) = P L_G P^T for the N points z (N x r); client c owns
 * rows ptr[c] .. ptr[c + 1] - 1 (ptr[0] = 0, ptr[K] = N). */
FGLDEF int fgl_coarsen_clients(const float *z, int r, const int *ptr, int K, const fgl_coarsen_config *cfg, double *lc,
                               fgl_error *err);
/* w (K x K): the inter-client weights of lc (see above); a client without
 * positive mass towards the others gets a row of zeros. */
FGLDEF void fgl_collab_weights(const double *lc, int K, double *w);

/* fgl:implementation */
#include "../alone.h"
/* --- client coarsening (pFedGNN) ------------------------------------------ */
/* Helpers of this section are fgl__anc_* (as in src/graph/anchors.h). */

FGLDEF fgl_coarsen_config fgl_coarsen_default(void) {
    fgl_coarsen_config c;
    memset(&c, 0, sizeof c);
    c.kernel = FGL_KERNEL_MAXDIFF;
    c.sigma = 1.0;
    c.sample = 0;
    c.seed = 1;
    return c;
}

/* The columns the pair sums run over: every point, or s per client. */
typedef struct fgl__anc_cols {
    int n;
    int *row;        /* the point each column is */
    int *owner;      /* its client */
    double *weight;  /* how many points it stands for */
    float *z;        /* n x r copy of the points */
    double *q;       /* squared norms */
} fgl__anc_cols;

static void fgl__anc_cols_free(fgl__anc_cols *c) {
    FGL_FREE(c->row);
    FGL_FREE(c->owner);
    FGL_FREE(c->weight);
    FGL_FREE(c->z);
    FGL_FREE(c->q);
    memset(c, 0, sizeof *c);
}

static int fgl__anc_cols_make(fgl__anc_cols *c, const float *z, int r, const int *ptr, int K, int sample,
                              uint64_t seed) {
    int b, i, n = 0;
    fgl_rng rng;
    memset(c, 0, sizeof *c);
    for (b = 0; b < K; b++) {
        int nb = ptr[b + 1] - ptr[b];
        n += sample > 0 && nb > sample ? sample : nb;
    }
    c->row = (int *)FGL_MALLOC(sizeof(int) * (size_t)(n > 0 ? n : 1));
    c->owner = (int *)FGL_MALLOC(sizeof(int) * (size_t)(n > 0 ? n : 1));
    c->weight = (double *)FGL_MALLOC(sizeof(double) * (size_t)(n > 0 ? n : 1));
    c->z = (float *)FGL_MALLOC(sizeof(float) * (size_t)(n > 0 ? n : 1) * (size_t)r);
    c->q = (double *)FGL_MALLOC(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!c->row || !c->owner || !c->weight || !c->z || !c->q) {
        fgl__anc_cols_free(c);
        return FGL_ERR_NOMEM;
    }
    fgl_rng_init(&rng, seed, 0x434f4c53ull); /* "COLS" */
    for (b = 0; b < K; b++) {
        int nb = ptr[b + 1] - ptr[b], sb = sample > 0 && nb > sample ? sample : nb, k0 = c->n;
        if (sb < nb) {
            if (fgl_rng_sample(&rng, nb, sb, c->row + k0)) {
                fgl__anc_cols_free(c);
                return FGL_ERR_NOMEM;
            }
            for (i = 1; i < sb; i++) { /* ascending */
                int x = c->row[k0 + i], j = i;
                while (j > 0 && c->row[k0 + j - 1] > x) {
                    c->row[k0 + j] = c->row[k0 + j - 1];
                    j--;
                }
                c->row[k0 + j] = x;
            }
            for (i = 0; i < sb; i++) c->row[k0 + i] += ptr[b];
        } else {
            for (i = 0; i < sb; i++) c->row[k0 + i] = ptr[b] + i;
        }
        for (i = 0; i < sb; i++) {
            int t, row = c->row[k0 + i];
            double s = 0;
            c->owner[k0 + i] = b;
            c->weight[k0 + i] = (double)nb / sb;
            for (t = 0; t < r; t++) {
                float v = z[(size_t)row * r + t];
                c->z[(size_t)(k0 + i) * r + t] = v;
                s += (double)v * v;
            }
            c->q[k0 + i] = s;
        }
        c->n += sb;
    }
    return FGL_OK;
}

/* Squared distances of rows i0 .. i0 + m - 1 to every column into e (m x cols). */
static void fgl__anc_tile(const float *z, int r, int i0, int m, const fgl__anc_cols *c, const double *q, float *e) {
    int i, j;
    fgl_gemm(0, 1, m, c->n, r, 1.0f, z + (size_t)i0 * r, r, c->z, r, 0.0f, e, c->n);
    for (i = 0; i < m; i++) {
        float *row = e + (size_t)i * c->n;
        for (j = 0; j < c->n; j++) {
            double v = q[i0 + i] + c->q[j] - 2.0 * row[j];
            row[j] = c->row[j] == i0 + i ? 0.0f : (float)(v > 0 ? v : 0);
        }
    }
}

FGLDEF int fgl_coarsen_clients(const float *z, int r, const int *ptr, int K, const fgl_coarsen_config *cfg_in,
                               double *lc, fgl_error *err) {
    fgl_coarsen_config cfg = cfg_in ? *cfg_in : fgl_coarsen_default();
    fgl__anc_cols cols;
    double *q = NULL, *m = NULL, *den = NULL, *acc = NULL, *cu = NULL, *cv = NULL, total = 0;
    float *e = NULL;
    int N, a, b, i, j, tile, rc = FGL_OK, *owner = NULL;
    if (K < 1 || !ptr || !lc || r < 1 || ptr[0] != 0)
        return fgl_error_set(err, FGL_ERR_ARG, "coarsen: %d clients, dimension %d", K, r);
    for (a = 0; a < K; a++)
        if (ptr[a + 1] < ptr[a]) return fgl_error_set(err, FGL_ERR_ARG, "coarsen: client %d has a negative size", a);
    if (cfg.kernel != FGL_KERNEL_MAXDIFF && cfg.kernel != FGL_KERNEL_GAUSS)
        return fgl_error_set(err, FGL_ERR_ARG, "coarsen: unknown kernel %d", cfg.kernel);
    if (cfg.kernel == FGL_KERNEL_GAUSS && !(cfg.sigma > 0))
        return fgl_error_set(err, FGL_ERR_ARG, "coarsen: sigma %g must be > 0", cfg.sigma);
    N = ptr[K];
    memset(lc, 0, sizeof(double) * (size_t)K * K);
    if (N == 0) return FGL_OK;
    if (!z) return fgl_error_set(err, FGL_ERR_ARG, "coarsen: no points");
    if (fgl__anc_cols_make(&cols, z, r, ptr, K, cfg.sample, cfg.seed))
        return fgl_error_set(err, FGL_ERR_NOMEM, "coarsen: out of memory");
    tile = (int)(4000000 / (cols.n > 0 ? cols.n : 1)); /* about 16 MB of distances at a time */
    tile = tile < 1 ? 1 : tile > 256 ? 256 : tile;
    q = (double *)FGL_MALLOC(sizeof(double) * (size_t)N);
    m = (double *)FGL_MALLOC(sizeof(double) * (size_t)N);
    den = (double *)FGL_MALLOC(sizeof(double) * (size_t)N);
    owner = (int *)FGL_MALLOC(sizeof(int) * (size_t)N);
    acc = (double *)FGL_MALLOC(sizeof(double) * (size_t)K);
    e = (float *)FGL_MALLOC(sizeof(float) * (size_t)tile * (size_t)(cols.n > 0 ? cols.n : 1));
    if (!q || !m || !den || !owner || !acc || !e) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "coarsen: out of memory for %d points", N);
        goto done;
    }
    for (a = 0; a < K; a++)
        for (i = ptr[a]; i < ptr[a + 1]; i++) owner[i] = a;
    for (i = 0; i < N; i++) {
        double s = 0;
        int t;
        for (t = 0; t < r; t++) s += (double)z[(size_t)i * r + t] * z[(size_t)i * r + t];
        q[i] = s;
    }
    for (j = 0; j < cols.n; j++) total += cols.weight[j];
    if (cfg.kernel == FGL_KERNEL_GAUSS) {
        double sq = 0, s2, *zs = (double *)FGL_MALLOC(sizeof(double) * (size_t)r);
        int t;
        if (!zs) {
            rc = fgl_error_set(err, FGL_ERR_NOMEM, "coarsen: out of memory");
            goto done;
        }
        for (t = 0; t < r; t++) zs[t] = 0;
        for (i = 0; i < N; i++) {
            sq += q[i];
            for (t = 0; t < r; t++) zs[t] += z[(size_t)i * r + t];
        }
        s2 = 0;
        for (t = 0; t < r; t++) s2 += zs[t] * zs[t];
        FGL_FREE(zs);
        /* mean over pairs i != j of ||z_i - z_j||^2 = (2 N sum q - 2 ||sum z||^2) / (N (N - 1)) */
        s2 = N > 1 ? (2.0 * N * sq - 2.0 * s2) / ((double)N * (N - 1)) : 1.0;
        s2 = cfg.sigma * (s2 > 0 ? s2 : 1.0);
        for (i = 0; i < N; i += tile) {
            int mrows = N - i < tile ? N - i : tile, ii;
            fgl__anc_tile(z, r, i, mrows, &cols, q, e);
            for (ii = 0; ii < mrows; ii++) {
                const float *row = e + (size_t)ii * cols.n;
                for (b = 0; b < K; b++) acc[b] = 0;
                for (j = 0; j < cols.n; j++)
                    if (cols.row[j] != i + ii) acc[cols.owner[j]] += cols.weight[j] * exp(-row[j] / s2);
                for (b = 0; b < K; b++) lc[(size_t)owner[i + ii] * K + b] += acc[b];
            }
        }
        for (a = 0; a < K; a++) { /* L_C = P (Diag(W 1) - W) P^T from the pair sums T = P W P^T */
            double deg = 0;
            for (b = 0; b < K; b++)
                if (b != a) deg += lc[(size_t)a * K + b];
            for (b = 0; b < K; b++) lc[(size_t)a * K + b] = b == a ? deg : -lc[(size_t)a * K + b];
        }
        goto done;
    }
    /* MAXDIFF, pass 1: each point's largest distance and its kernel row's normaliser */
    for (i = 0; i < N; i += tile) {
        int mrows = N - i < tile ? N - i : tile, ii;
        fgl__anc_tile(z, r, i, mrows, &cols, q, e);
        for (ii = 0; ii < mrows; ii++) {
            const float *row = e + (size_t)ii * cols.n;
            double mx = 0, s = 0;
            for (j = 0; j < cols.n; j++) {
                double dj = sqrt((double)row[j]);
                mx = dj > mx ? dj : mx;
                s += cols.weight[j] * dj;
            }
            m[i + ii] = mx;
            den[i + ii] = total * mx - s; /* 0: every distance equal, a uniform row */
        }
    }
    /* pass 2: A_ij = (m_i - D_ij) / den_i = u_i - D_ij v_i (v_i = 0, u_i = 1/N for a uniform row),
     * symmetrised, rows normalised, summed per client pair; the columns' u, v gathered once */
    for (i = 0; i < N; i++) {
        double v = den[i] > 0 ? 1.0 / den[i] : 0.0;
        m[i] = den[i] > 0 ? m[i] * v : 1.0 / total;
        den[i] = v;
    }
    cu = (double *)FGL_MALLOC(sizeof(double) * (size_t)(cols.n > 0 ? cols.n : 1));
    cv = (double *)FGL_MALLOC(sizeof(double) * (size_t)(cols.n > 0 ? cols.n : 1));
    if (!cu || !cv) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "coarsen: out of memory");
        goto done;
    }
    for (j = 0; j < cols.n; j++) {
        cu[j] = m[cols.row[j]];
        cv[j] = den[cols.row[j]];
    }
    for (i = 0; i < N; i += tile) {
        int mrows = N - i < tile ? N - i : tile, ii;
        fgl__anc_tile(z, r, i, mrows, &cols, q, e);
        for (ii = 0; ii < mrows; ii++) {
            const float *row = e + (size_t)ii * cols.n;
            int p = i + ii;
            double rowsum = 0, colsum = 0, rs, up = m[p], vp = den[p];
            for (b = 0; b < K; b++) acc[b] = 0;
            for (j = 0; j < cols.n; j++) {
                double dj = sqrt((double)row[j]), wj = cols.weight[j];
                double aij = up - dj * vp, aji = cu[j] - dj * cv[j];
                rowsum += wj * aij;
                colsum += wj * aji;
                acc[cols.owner[j]] += wj * 0.5 * (aij + aji);
            }
            rs = 0.5 * (rowsum + colsum);
            if (rs > 0)
                for (b = 0; b < K; b++) lc[(size_t)owner[p] * K + b] += acc[b] / rs;
        }
    }
    for (a = 0; a < K; a++) /* L_C = P (I - D^-1 A) P^T */
        for (b = 0; b < K; b++)
            lc[(size_t)a * K + b] = (a == b ? (double)(ptr[a + 1] - ptr[a]) : 0.0) - lc[(size_t)a * K + b];
done:
    fgl__anc_cols_free(&cols);
    FGL_FREE(cu);
    FGL_FREE(cv);
    FGL_FREE(q);
    FGL_FREE(m);
    FGL_FREE(den);
    FGL_FREE(owner);
    FGL_FREE(acc);
    FGL_FREE(e);
    return rc;
}

FGLDEF void fgl_collab_weights(const double *lc, int K, double *w) {
    int i, j;
    for (i = 0; i < K; i++) {
        double s = 0;
        for (j = 0; j < K; j++)
            if (j != i && -lc[(size_t)i * K + j] > 0) s += -lc[(size_t)i * K + j];
        for (j = 0; j < K; j++) {
            double v = j != i && -lc[(size_t)i * K + j] > 0 ? -lc[(size_t)i * K + j] : 0.0;
            w[(size_t)i * K + j] = s > 0 ? v / s : 0.0;
        }
    }
}
#include "../alone.h"
