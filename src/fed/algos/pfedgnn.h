/* ------------------------------------------------------------------------ */
/* Anchored distance completion and client coarsening (pFedGNN)             */
/* ------------------------------------------------------------------------ */
/* Clients hold disjoint sets of points (node features) and may not share
 * them. Each computes the squared distances from its points to K public
 * anchors; from those alone a server completes the unobserved distances
 * between points of different clients, builds an affinity graph over all
 * points and coarsens its Laplacian by the client membership P into a
 * K_clients x K_clients matrix L_C = P L_G P^T (pFedGNN, Kataria et al.).
 *
 * Completion. fgl_anchor_frame_init places the anchors by classical MDS of
 * their squared distances (rank r <= K - 1); fgl_anchor_embed places a point
 * by landmark MDS (de Silva & Tenenbaum 2004): z = -1/2 Lambda^-1/2 V^T
 * (delta - mu), the orthogonal projection of the point onto the anchors'
 * affine span, i.e. the Nystrom completion G ~ G_pa G_aa^+ G_ap of the
 * points' Gram matrix relative to the anchors. The completed squared
 * distance of two points is ||z_i - z_j||^2: exact when the anchors span the
 * points' space (K >= d + 1 in general position), a lower bound otherwise.
 * fgl_anchor_smacof refines the points by anchored weighted SMACOF (weight 1
 * on observed distances, 0 on the others, anchors fixed): Guttman
 * transforms that never increase the stress sum (d_ij(Z) - delta_ij)^2 over
 * the observed pairs; with a client's own point-point block observed too,
 * the client's points move jointly (V = (K + n) I - 1 1^T, inverted in
 * closed form). No N x N matrix is ever formed: points of different clients
 * never interact in the completion.
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

/* out[i K + k] = ||x_i - a_k||^2 for the n_nodes rows of d (dense or sparse
 * features) and K anchors (K x n_feat, row-major); sums in double. */
FGLDEF int fgl_anchor_sqdist(const fgl_node_data *d, const float *anchors, int K, float *out, fgl_error *err);
/* out[i n + j] = ||x_i - x_j||^2 among the n rows of d (n x n). */
FGLDEF int fgl_node_sqdist_block(const fgl_node_data *d, float *out, fgl_error *err);

/* The anchors' frame: coordinates and the landmark projection. */
typedef struct fgl_anchor_frame {
    int K;          /* anchors */
    int r;          /* dimension kept (eigenvalues > 1e-9 of the largest, at most max_dim) */
    double *coord;  /* K x r anchor coordinates (centred) */
    double *proj;   /* r x K: z = proj (delta - mu) */
    double *mu;     /* K: mean squared distance of each anchor to the anchors */
    double *eig;    /* r: eigenvalues kept, descending */
} fgl_anchor_frame;

/* From the anchors' K x K squared distances (symmetric, zero diagonal);
 * max_dim <= 0: K - 1. FGL_ERR_ARG if the anchors coincide. */
FGLDEF int fgl_anchor_frame_init(fgl_anchor_frame *f, const double *d2, int K, int max_dim, fgl_error *err);
FGLDEF void fgl_anchor_frame_free(fgl_anchor_frame *f);
/* Landmark completion: z (n x f->r) of n points from their squared
 * distances to the anchors (n x K). */
FGLDEF void fgl_anchor_embed(const fgl_anchor_frame *f, const float *dist2, int n, float *z);
/* Anchored weighted SMACOF from z (n x r, refined in place): observed are
 * the n x K squared distances to the anchors and, if block is not NULL, the
 * n x n squared distances among the n points. Stops when the stress falls by
 * less than tol (relative) in an iteration, or after max_iter. Returns the
 * iterations done (< 0: an error); *stress (may be NULL): the final raw
 * stress, *stress0 that of the start. */
FGLDEF int fgl_anchor_smacof(const fgl_anchor_frame *f, const float *dist2, const float *block, int n, int max_iter,
                             double tol, float *z, double *stress0, double *stress, fgl_error *err);

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
/* --- anchored distance completion and client coarsening (pFedGNN) ----------- */
/* Helpers of this section are fgl__anc_*. */

static int fgl__anc_has_features(const fgl_node_data *d) {
    return (d->x.data && d->x.cols == d->n_feat && d->x.rows == d->n_nodes) ||
           (d->x_sparse.indptr && d->x_sparse.rows == d->n_nodes);
}

FGLDEF int fgl_anchor_sqdist(const fgl_node_data *d, const float *anchors, int K, float *out, fgl_error *err) {
    int n, F, i, k;
    double *asq;
    if (!d || !anchors || !out || K <= 0) return fgl_error_set(err, FGL_ERR_ARG, "anchor distances: %d anchors", K);
    if (!fgl__anc_has_features(d)) return fgl_error_set(err, FGL_ERR_ARG, "%s: no node features", d->name);
    n = d->n_nodes;
    F = d->n_feat;
    if (d->x.data) { /* dense: sums of squared differences */
        for (i = 0; i < n; i++) {
            const float *x = d->x.data + (size_t)i * (size_t)F;
            for (k = 0; k < K; k++) {
                const float *a = anchors + (size_t)k * (size_t)F;
                double acc = 0;
                int f;
                for (f = 0; f < F; f++) {
                    double t = (double)x[f] - a[f];
                    acc += t * t;
                }
                out[(size_t)i * K + k] = (float)acc;
            }
        }
        return FGL_OK;
    }
    asq = (double *)FGL_MALLOC(sizeof(double) * (size_t)K);
    if (!asq) return fgl_error_set(err, FGL_ERR_NOMEM, "anchor distances: out of memory");
    for (k = 0; k < K; k++) {
        const float *a = anchors + (size_t)k * (size_t)F;
        double acc = 0;
        int f;
        for (f = 0; f < F; f++) acc += (double)a[f] * a[f];
        asq[k] = acc;
    }
    for (i = 0; i < n; i++) { /* sparse: ||x||^2 + ||a||^2 - 2 x.a over the row's non-zeros */
        const fgl_csr *xs = &d->x_sparse;
        double xsq = 0;
        int p;
        for (p = xs->indptr[i]; p < xs->indptr[i + 1]; p++) {
            double v = xs->values ? xs->values[p] : 1.0;
            xsq += v * v;
        }
        for (k = 0; k < K; k++) {
            const float *a = anchors + (size_t)k * (size_t)F;
            double dot = 0, v;
            for (p = xs->indptr[i]; p < xs->indptr[i + 1]; p++)
                dot += (xs->values ? xs->values[p] : 1.0) * a[xs->indices[p]];
            v = xsq + asq[k] - 2 * dot;
            out[(size_t)i * K + k] = (float)(v > 0 ? v : 0);
        }
    }
    FGL_FREE(asq);
    return FGL_OK;
}

FGLDEF int fgl_node_sqdist_block(const fgl_node_data *d, float *out, fgl_error *err) {
    int n, F, i, j;
    if (!d || !out) return fgl_error_set(err, FGL_ERR_ARG, "distance block: no data");
    if (!fgl__anc_has_features(d)) return fgl_error_set(err, FGL_ERR_ARG, "%s: no node features", d->name);
    n = d->n_nodes;
    F = d->n_feat;
    for (i = 0; i < n; i++) out[(size_t)i * n + i] = 0;
    if (d->x.data) {
        for (i = 0; i < n; i++)
            for (j = i + 1; j < n; j++) {
                const float *x = d->x.data + (size_t)i * F, *y = d->x.data + (size_t)j * F;
                double acc = 0;
                int f;
                for (f = 0; f < F; f++) {
                    double t = (double)x[f] - y[f];
                    acc += t * t;
                }
                out[(size_t)i * n + j] = out[(size_t)j * n + i] = (float)acc;
            }
    } else {
        const fgl_csr *xs = &d->x_sparse;
        double *row = (double *)FGL_MALLOC(sizeof(double) * (size_t)(F > 0 ? F : 1));
        double *sq = (double *)FGL_MALLOC(sizeof(double) * (size_t)(n > 0 ? n : 1));
        int p;
        if (!row || !sq) {
            FGL_FREE(row);
            FGL_FREE(sq);
            return fgl_error_set(err, FGL_ERR_NOMEM, "distance block: out of memory");
        }
        for (i = 0; i < F; i++) row[i] = 0;
        for (i = 0; i < n; i++) {
            sq[i] = 0;
            for (p = xs->indptr[i]; p < xs->indptr[i + 1]; p++) {
                double v = xs->values ? xs->values[p] : 1.0;
                sq[i] += v * v;
            }
        }
        for (i = 0; i < n; i++) {
            for (p = xs->indptr[i]; p < xs->indptr[i + 1]; p++) row[xs->indices[p]] = xs->values ? xs->values[p] : 1.0;
            for (j = i + 1; j < n; j++) {
                double dot = 0, v;
                for (p = xs->indptr[j]; p < xs->indptr[j + 1]; p++)
                    dot += (xs->values ? xs->values[p] : 1.0) * row[xs->indices[p]];
                v = sq[i] + sq[j] - 2 * dot;
                out[(size_t)i * n + j] = out[(size_t)j * n + i] = (float)(v > 0 ? v : 0);
            }
            for (p = xs->indptr[i]; p < xs->indptr[i + 1]; p++) row[xs->indices[p]] = 0;
        }
        FGL_FREE(row);
        FGL_FREE(sq);
    }
    return FGL_OK;
}

/* Eigen-decomposition of the symmetric n x n matrix a (destroyed) by cyclic
 * Jacobi rotations: w the eigenvalues, v (n x n) the eigenvectors as columns. */
static void fgl__anc_jacobi(double *a, int n, double *v, double *w) {
    int sweep, p, q, k;
    for (p = 0; p < n; p++)
        for (q = 0; q < n; q++) v[(size_t)p * n + q] = p == q;
    for (sweep = 0; sweep < 100; sweep++) {
        double off = 0, tot = 0;
        for (p = 0; p < n; p++)
            for (q = 0; q < n; q++) {
                double x = a[(size_t)p * n + q] * a[(size_t)p * n + q];
                tot += x;
                if (p != q) off += x;
            }
        if (off <= 1e-30 * tot || off == 0) break;
        for (p = 0; p < n - 1; p++)
            for (q = p + 1; q < n; q++) {
                double apq = a[(size_t)p * n + q], theta, t, c, s;
                if (apq == 0) continue;
                theta = (a[(size_t)q * n + q] - a[(size_t)p * n + p]) / (2 * apq);
                t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
                c = 1 / sqrt(t * t + 1);
                s = t * c;
                for (k = 0; k < n; k++) { /* columns p, q */
                    double x = a[(size_t)k * n + p], y = a[(size_t)k * n + q];
                    a[(size_t)k * n + p] = c * x - s * y;
                    a[(size_t)k * n + q] = s * x + c * y;
                }
                for (k = 0; k < n; k++) { /* rows p, q */
                    double x = a[(size_t)p * n + k], y = a[(size_t)q * n + k];
                    a[(size_t)p * n + k] = c * x - s * y;
                    a[(size_t)q * n + k] = s * x + c * y;
                }
                for (k = 0; k < n; k++) {
                    double x = v[(size_t)k * n + p], y = v[(size_t)k * n + q];
                    v[(size_t)k * n + p] = c * x - s * y;
                    v[(size_t)k * n + q] = s * x + c * y;
                }
            }
    }
    for (p = 0; p < n; p++) w[p] = a[(size_t)p * n + p];
}

FGLDEF void fgl_anchor_frame_free(fgl_anchor_frame *f) {
    if (!f) return;
    FGL_FREE(f->coord);
    FGL_FREE(f->proj);
    FGL_FREE(f->mu);
    FGL_FREE(f->eig);
    memset(f, 0, sizeof *f);
}

FGLDEF int fgl_anchor_frame_init(fgl_anchor_frame *f, const double *d2, int K, int max_dim, fgl_error *err) {
    double *b, *v, *w, grand = 0, top;
    int *order, i, j, r;
    memset(f, 0, sizeof *f);
    if (K < 2 || !d2) return fgl_error_set(err, FGL_ERR_ARG, "anchor frame: %d anchors (at least 2)", K);
    for (i = 0; i < K * K; i++)
        if (!(d2[i] >= 0 && d2[i] < 1e300))
            return fgl_error_set(err, FGL_ERR_NONFINITE, "anchor frame: distance %d is %g", i, d2[i]);
    b = (double *)FGL_MALLOC(sizeof(double) * (size_t)K * K);
    v = (double *)FGL_MALLOC(sizeof(double) * (size_t)K * K);
    w = (double *)FGL_MALLOC(sizeof(double) * (size_t)K);
    order = (int *)FGL_MALLOC(sizeof(int) * (size_t)K);
    f->mu = (double *)FGL_MALLOC(sizeof(double) * (size_t)K);
    if (!b || !v || !w || !order || !f->mu) {
        FGL_FREE(b);
        FGL_FREE(v);
        FGL_FREE(w);
        FGL_FREE(order);
        fgl_anchor_frame_free(f);
        return fgl_error_set(err, FGL_ERR_NOMEM, "anchor frame: out of memory");
    }
    for (i = 0; i < K; i++) {
        double s = 0;
        for (j = 0; j < K; j++) s += 0.5 * (d2[(size_t)i * K + j] + d2[(size_t)j * K + i]);
        f->mu[i] = s / K;
        grand += f->mu[i] / K;
    }
    for (i = 0; i < K; i++) /* B = -1/2 H D2 H */
        for (j = 0; j < K; j++)
            b[(size_t)i * K + j] =
                -0.5 * (0.5 * (d2[(size_t)i * K + j] + d2[(size_t)j * K + i]) - f->mu[i] - f->mu[j] + grand);
    fgl__anc_jacobi(b, K, v, w);
    for (i = 0; i < K; i++) order[i] = i;
    for (i = 1; i < K; i++) { /* descending eigenvalues (ties: lower index first) */
        int x = order[i];
        j = i;
        while (j > 0 && w[order[j - 1]] < w[x]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = x;
    }
    top = w[order[0]];
    for (r = 0; r < K - 1 && w[order[r]] > 1e-9 * top && top > 0; r++) {}
    if (max_dim > 0 && r > max_dim) r = max_dim;
    if (r == 0) {
        FGL_FREE(b);
        FGL_FREE(v);
        FGL_FREE(w);
        FGL_FREE(order);
        fgl_anchor_frame_free(f);
        return fgl_error_set(err, FGL_ERR_ARG, "anchor frame: the %d anchors coincide", K);
    }
    f->K = K;
    f->r = r;
    f->coord = (double *)FGL_MALLOC(sizeof(double) * (size_t)K * r);
    f->proj = (double *)FGL_MALLOC(sizeof(double) * (size_t)K * r);
    f->eig = (double *)FGL_MALLOC(sizeof(double) * (size_t)r);
    if (f->coord && f->proj && f->eig)
        for (j = 0; j < r; j++) {
            double lam = w[order[j]], sl = sqrt(lam);
            f->eig[j] = lam;
            for (i = 0; i < K; i++) {
                double vij = v[(size_t)i * K + order[j]];
                f->coord[(size_t)i * r + j] = vij * sl;
                f->proj[(size_t)j * K + i] = -0.5 * vij / sl;
            }
        }
    FGL_FREE(b);
    FGL_FREE(v);
    FGL_FREE(w);
    FGL_FREE(order);
    if (!f->coord || !f->proj || !f->eig) {
        fgl_anchor_frame_free(f);
        return fgl_error_set(err, FGL_ERR_NOMEM, "anchor frame: out of memory");
    }
    return FGL_OK;
}

FGLDEF void fgl_anchor_embed(const fgl_anchor_frame *f, const float *dist2, int n, float *z) {
    int i, k, t, K = f->K, r = f->r;
    for (i = 0; i < n; i++) {
        const float *dl = dist2 + (size_t)i * K;
        for (t = 0; t < r; t++) {
            const double *p = f->proj + (size_t)t * K;
            double acc = 0;
            for (k = 0; k < K; k++) acc += p[k] * ((double)dl[k] - f->mu[k]);
            z[(size_t)i * r + t] = (float)acc;
        }
    }
}

/* One point's part of a Guttman transform with the anchors: its stress
 * against the anchors and acc = sum_k a_k + delta_k (x - a_k) / d_k, from
 * the dot products x.a_k (d_k^2 = x.x + a_k.a_k - 2 x.a_k). */
static double fgl__anc_point(const fgl_anchor_frame *f, const double *coord_t, const double *asq, const float *dist2,
                             const double *x, double *acc, double *dots) {
    int K = f->K, r = f->r, k, t;
    double xx = 0, st = 0, gsum = 0;
    for (t = 0; t < r; t++) {
        xx += x[t] * x[t];
        acc[t] = 0;
    }
    for (k = 0; k < K; k++) dots[k] = 0;
    for (t = 0; t < r; t++) { /* dots = A x, by columns of A (coord_t is r x K): no reduction in the inner loop */
        const double *at = coord_t + (size_t)t * K, xt = x[t];
        for (k = 0; k < K; k++) dots[k] += xt * at[k];
    }
    for (k = 0; k < K; k++) {
        const double *a = f->coord + (size_t)k * r;
        double dd = xx + asq[k] - 2 * dots[k], delta = dist2[k] > 0 ? sqrt((double)dist2[k]) : 0, g, c;
        dd = dd > 0 ? sqrt(dd) : 0;
        st += (dd - delta) * (dd - delta);
        g = dd > 0 ? delta / dd : 0;
        gsum += g;
        c = 1 - g; /* a_k + g (x - a_k) = (1 - g) a_k + g x */
        for (t = 0; t < r; t++) acc[t] += c * a[t];
    }
    for (t = 0; t < r; t++) acc[t] += gsum * x[t];
    return st;
}

FGLDEF int fgl_anchor_smacof(const fgl_anchor_frame *f, const float *dist2, const float *block, int n, int max_iter,
                             double tol, float *z, double *stress0, double *stress, fgl_error *err) {
    int K = f->K, r = f->r, i, j, k, t, it;
    double *x, *acc, *diff, *sum, *asq, *dots, *pst, *coord_t, prev = 0, cur = 0;
    size_t nn = (size_t)(n > 0 ? n : 1);
    if (n < 0 || max_iter < 0 || !(tol >= 0))
        return fgl_error_set(err, FGL_ERR_ARG, "smacof: n %d, %d iterations, tol %g", n, max_iter, tol);
    x = (double *)FGL_MALLOC(sizeof(double) * nn * r);
    acc = (double *)FGL_MALLOC(sizeof(double) * nn * r);
    dots = (double *)FGL_MALLOC(sizeof(double) * nn * K);
    pst = (double *)FGL_MALLOC(sizeof(double) * nn);
    diff = (double *)FGL_MALLOC(sizeof(double) * (size_t)r);
    sum = (double *)FGL_MALLOC(sizeof(double) * (size_t)r);
    asq = (double *)FGL_MALLOC(sizeof(double) * (size_t)K);
    coord_t = (double *)FGL_MALLOC(sizeof(double) * (size_t)K * r);
    if (!x || !acc || !dots || !pst || !diff || !sum || !asq || !coord_t) {
        FGL_FREE(coord_t);
        FGL_FREE(x);
        FGL_FREE(acc);
        FGL_FREE(dots);
        FGL_FREE(pst);
        FGL_FREE(diff);
        FGL_FREE(sum);
        FGL_FREE(asq);
        return fgl_error_set(err, FGL_ERR_NOMEM, "smacof: out of memory for %d points", n);
    }
    for (k = 0; k < K; k++) {
        double a2 = 0;
        for (t = 0; t < r; t++) {
            a2 += f->coord[(size_t)k * r + t] * f->coord[(size_t)k * r + t];
            coord_t[(size_t)t * K + k] = f->coord[(size_t)k * r + t];
        }
        asq[k] = a2;
    }
    for (i = 0; i < n * r; i++) x[i] = z[i];
    for (it = 0;; it++) {
        /* the stress at x and the Guttman right-hand side B(x) x (with the fixed anchors); points are
         * independent here, their stresses summed in order afterwards */
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(fgl__threads((double)n, FGL_PER_THREAD_POINT))
#endif
        for (i = 0; i < n; i++)
            pst[i] = fgl__anc_point(f, coord_t, asq, dist2 + (size_t)i * K, x + (size_t)i * r, acc + (size_t)i * r,
                                    dots + (size_t)i * K);
        cur = 0;
        for (i = 0; i < n; i++) cur += pst[i];
        if (block)
            for (i = 0; i < n; i++)
                for (j = i + 1; j < n; j++) {
                    double *xi = x + (size_t)i * r, *xj = x + (size_t)j * r, dd = 0, g, b = block[(size_t)i * n + j];
                    double delta = b > 0 ? sqrt(b) : 0;
                    for (t = 0; t < r; t++) {
                        diff[t] = xi[t] - xj[t];
                        dd += diff[t] * diff[t];
                    }
                    dd = sqrt(dd);
                    cur += (dd - delta) * (dd - delta);
                    g = dd > 0 ? delta / dd : 0;
                    for (t = 0; t < r; t++) {
                        acc[(size_t)i * r + t] += g * diff[t];
                        acc[(size_t)j * r + t] -= g * diff[t];
                    }
                }
        if (it == 0 && stress0) *stress0 = cur;
        if (it == max_iter || cur <= 0 || (it > 0 && prev - cur <= tol * prev)) break;
        prev = cur;
        if (!block) {
            for (i = 0; i < n * r; i++) x[i] = acc[i] / K;
        } else { /* V = (K + n) I - 1 1^T on the client's points: x = (acc + 1 (1^T acc) / K) / (K + n) */
            for (t = 0; t < r; t++) sum[t] = 0;
            for (i = 0; i < n; i++)
                for (t = 0; t < r; t++) sum[t] += acc[(size_t)i * r + t];
            for (i = 0; i < n; i++)
                for (t = 0; t < r; t++) x[(size_t)i * r + t] = (acc[(size_t)i * r + t] + sum[t] / K) / (K + n);
        }
    }
    for (i = 0; i < n * r; i++) z[i] = (float)x[i];
    if (stress) *stress = cur;
    FGL_FREE(x);
    FGL_FREE(acc);
    FGL_FREE(dots);
    FGL_FREE(pst);
    FGL_FREE(diff);
    FGL_FREE(sum);
    FGL_FREE(asq);
    FGL_FREE(coord_t);
    return it;
}

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

/* --- pFedGNN (Kataria, Malik, Shukla, Bhilwade, Kumar, LoG 2025) ----------------- */
/* A collaboration graph between clients inferred once, before training,
 * from distances to public anchors, then personalised weight mixing.
 * One shot: the server asks every client (download part "ask", 4 bytes)
 * for the squared distances from each of its n_i nodes' features to K_a
 * anchors (upload "dist", n_i x K_a floats, sent once; with blocks=1 also
 * its n_i x n_i node-node block "block", as the authors' code). Anchors:
 * K_a real nodes withheld from every client and held by the server
 * (fgl_run_set_public; fglrun --public-nodes), sent once to every client
 * (download "anchors", K_a x d floats), as the authors' code (default when
 * the server holds public nodes); or K_a random points N(0, anchor_scale^2
 * / d I) drawn from the run seed by server and clients alike (the paper's
 * "any public points"; no bytes). With K_a < d the features cannot be
 * recovered from the distances (the paper's Lemma 1); the report says
 * whether that holds.
 * Server: the anchors' classical-MDS frame (rank r <= K_a - 1), each
 * client's nodes placed by landmark MDS (method=0: Nystrom, closed form) or
 * refined by anchored weighted SMACOF (method=1, the authors' code: weight 1
 * on the observed distances, anchors fixed, at most max_iter iterations,
 * stop when the stress falls by less than tol relatively); the completed
 * distances are those of the placed nodes. Affinity kernel (kernel=0: the
 * authors' row-max kernel and random-walk Laplacian; kernel=1: exp(-D^2 /
 * sigma^2) with the combinatorial Laplacian), L_C = P L_G P^T by per-client-
 * pair sums, never an N x N matrix (fgl_coarsen_clients: every pair up to
 * 50,000 nodes, 256 sampled nodes per client beyond, or pair_sample), and
 * w_ij proportional to -(L_C)_ij for j != i, rows normalised (the
 * client_matrix).
 * Rounds (all of them, from the aggregation that completes the graph on):
 *     theta_i <- alpha theta_i + (1 - alpha) sum_{j != i} w_ij theta_j
 * over the accepted uploads (w renormalised over them; a client without a
 * neighbour keeps its model), on fgl_server_mix (so the run's robust rule
 * acts row by row; DP and secure aggregation are refused), each client
 * receiving its own row. alpha = 0 is the authors' code (no self term) and
 * the default: in the authors' setting under one honest protocol (Cora,
 * 3 seeds, RESULTS.md) the mean validation accuracy falls with alpha (0 /
 * 0.7 / 0.9: 83.07 / 81.78 / 79.13); on METIS clients (FED-PUB's protocol)
 * a client needs its own model (alpha 0.9: 82.37 against 57.58 at 0). The
 * paper's best: 0.7 (Cora), 0.2 (CiteSeer). Until every client's distances are in, each
 * keeps its own model. Sent: round 0 up 4 (n + 1 + n_i K_a) (+ 4 n_i^2),
 * later rounds 4 (n + 1); down 4 n a round, plus 4 (1 + K_a d) once. Not
 * lam != 0: the pre-release's extra pFedGraph-style term (not in the paper)
 * lam <u_i, theta> / ||theta|| in the local loss, u_i = sum_j m_ij theta_j /
 * ||theta_j|| over the round's mixing row m_i (self term included), sent
 * once the graph is complete (down 4 n more bytes a round); lam = 0.01 in
 * the pre-release, 0 (off) by default. */

/* The anchors: the server's first K_a public nodes, or random points. */
static int fgl__pfn_public(const fgl_server *s) { return fgl_get(s->set, "anchor_nodes") != 0 && s->pub != NULL; }

static void fgl__pfn_random_anchors(uint64_t seed, float scale, int K, int d, float *a) {
    fgl_rng r;
    size_t k;
    fgl_rng_init(&r, seed, 0x414e43484f52ull); /* "ANCHOR" */
    for (k = 0; k < (size_t)K * (size_t)d; k++) a[k] = (float)(scale * fgl_rng_normal(&r) / sqrt((double)d));
}

typedef struct fgl__pfn_frame {
    fgl_anchor_frame f;
    float *anchors;   /* K_a x d */
    int d;            /* feature width */
} fgl__pfn_frame;

static void fgl__pfn_frame_free(void *p) {
    fgl__pfn_frame *fr = (fgl__pfn_frame *)p;
    fgl_anchor_frame_free(&fr->f);
    FGL_FREE(fr->anchors);
}

static int fgl__pfn_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    (void)set;
    if (spec->task != FGL_TASK_NODE) return fgl_error_set(err, FGL_ERR_ARG, "pfedgnn: node classification only");
    return FGL_OK;
}

static int fgl__pfn_server_init(fgl_server *s) {
    int K = s->n_clients, Ka = (int)fgl_get(s->set, "anchors"), i, j, d, N = 0, rc;
    int method = (int)fgl_get(s->set, "method"), kernel = (int)fgl_get(s->set, "kernel");
    fgl__pfn_frame *fr;
    double *d2;
    fgl_error err;
    float *theta;
    d = (int)(fgl_server_down_size(s, "anchors") / (size_t)Ka);
    if (Ka < 2) return fgl_server_fail(s, FGL_ERR_ARG, "pfedgnn: anchors = %d, at least 2", Ka);
    if (method != 0 && method != 1)
        return fgl_server_fail(s, FGL_ERR_ARG, "pfedgnn: method %d (0 landmark, 1 smacof)", method);
    if (kernel != FGL_KERNEL_MAXDIFF && kernel != FGL_KERNEL_GAUSS)
        return fgl_server_fail(s, FGL_ERR_ARG, "pfedgnn: kernel %d (0 the authors' row-max, 1 Gaussian)", kernel);
    if (fgl_get(s->set, "blocks") != 0 && method != 1)
        return fgl_server_fail(s, FGL_ERR_ARG,
                               "pfedgnn: blocks=1 feeds SMACOF (method=1); landmark MDS cannot use them");
    if (!(fgl_get(s->set, "alpha") >= 0 && fgl_get(s->set, "alpha") <= 1))
        return fgl_server_fail(s, FGL_ERR_ARG, "pfedgnn: alpha %g must be in [0, 1]", fgl_get(s->set, "alpha"));
    if (fgl__pfn_public(s) && s->pub->n_nodes < Ka)
        return fgl_server_fail(s, FGL_ERR_ARG, "pfedgnn: %d anchors, but the server holds %d public nodes", Ka,
                               s->pub->n_nodes);
    for (i = 0; i < K; i++) N += s->n_nodes[i];
    fr = (fgl__pfn_frame *)fgl_new_scratch(&s->store, "frame", sizeof(fgl__pfn_frame), fgl__pfn_frame_free);
    d2 = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)Ka * (size_t)Ka);
    if (!fr || !d2 || !(fr->anchors = (float *)FGL_MALLOC(sizeof(float) * (size_t)Ka * (size_t)d)))
        return FGL_ERR_NOMEM;
    fr->d = d;
    if (fgl__pfn_public(s)) { /* the first K_a public nodes, as their features are */
        const fgl_node_data *pd = s->pub;
        memset(fr->anchors, 0, sizeof(float) * (size_t)Ka * (size_t)d);
        for (i = 0; i < Ka; i++) {
            if (pd->x.data) {
                memcpy(fr->anchors + (size_t)i * d, pd->x.data + (size_t)i * d, sizeof(float) * (size_t)d);
            } else {
                int p;
                for (p = pd->x_sparse.indptr[i]; p < pd->x_sparse.indptr[i + 1]; p++)
                    fr->anchors[(size_t)i * d + pd->x_sparse.indices[p]] =
                        pd->x_sparse.values ? pd->x_sparse.values[p] : 1.0f;
            }
        }
    } else {
        fgl__pfn_random_anchors(s->fed->seed, (float)fgl_get(s->set, "anchor_scale"), Ka, d, fr->anchors);
    }
    for (i = 0; i < Ka; i++)
        for (j = 0; j < Ka; j++) {
            double acc = 0;
            int f;
            for (f = 0; f < d; f++) {
                double t = (double)fr->anchors[(size_t)i * d + f] - fr->anchors[(size_t)j * d + f];
                acc += t * t;
            }
            d2[(size_t)i * Ka + j] = acc;
        }
    if ((rc = fgl_anchor_frame_init(&fr->f, d2, Ka, (int)fgl_get(s->set, "dim"), &err)))
        return fgl_server_fail(s, rc, "pfedgnn: %s", err.msg);
    theta = fgl_new_floats(&s->store, "theta", (size_t)K * s->n_shared);
    fgl_new_floats(&s->store, "emb", (size_t)N * (size_t)fr->f.r); /* the completion: every node placed */
    fgl_new_ints(&s->store, "has_dist", (size_t)K);
    fgl_new_floats(&s->store, "stress", 2 * (size_t)K);   /* per client: SMACOF's start and end */
    fgl_new_ints(&s->store, "iters", (size_t)K);
    fgl_new_floats(&s->store, "lc", (size_t)K * K);       /* the coarsened Laplacian */
    fgl_new_floats(&s->store, "w", (size_t)K * K);        /* the collaboration weights */
    fgl_new_ints(&s->store, "ready", 1);
    if (fgl_get(s->set, "lam") != 0) fgl_new_floats(&s->store, "u", (size_t)K * s->n_shared);
    if (s->store.err) return s->store.err;
    for (i = 0; i < K; i++) fgl_server_pack(s, s->init, theta + (size_t)i * s->n_shared);
    return FGL_OK;
}

/* Until the server has a client's distances it asks for them (and sends the
 * public anchors). */
static int fgl__pfn_download(fgl_server *s, int client, fgl_msg *down) {
    float *ask, *a;
    (void)down;
    if (fgl_get(s->set, "lam") != 0 && fgl_ints(&s->store, "ready")[0]) { /* the lam term's direction */
        if (!(a = fgl_download_part(s, client, "u"))) return FGL_ERR_NOMEM;
        memcpy(a, fgl_floats(&s->store, "u") + (size_t)client * s->n_shared, sizeof(float) * s->n_shared);
    }
    if (fgl_ints(&s->store, "has_dist")[client]) return FGL_OK;
    if (!(ask = fgl_download_part(s, client, "ask"))) return FGL_ERR_NOMEM;
    ask[0] = 1.0f;
    if (fgl__pfn_public(s)) {
        const fgl__pfn_frame *fr = (const fgl__pfn_frame *)fgl_get_scratch(&s->store, "frame");
        if (!(a = fgl_download_part(s, client, "anchors"))) return FGL_ERR_NOMEM;
        memcpy(a, fr->anchors, sizeof(float) * (size_t)fr->f.K * (size_t)fr->d);
    }
    return FGL_OK;
}

/* Asked: the squared distances of every node to the anchors (and the block). */
static int fgl__pfn_upload(fgl_client *c) {
    int Ka = (int)fgl_get(c->set, "anchors"), d = c->model.spec.in_dim, rc;
    const float *anchors = fgl_down(c, "anchors");
    float *dist, *block;
    fgl_error err;
    if (!fgl_down(c, "ask")) {
        fgl_up_drop(c, "dist");
        fgl_up_drop(c, "block");
        return FGL_OK;
    }
    if (!anchors) { /* random anchors: drawn from the run seed, as the server did */
        float *a = (float *)fgl_scratch(&c->store, sizeof(float) * (size_t)Ka * (size_t)d);
        if (!a) return FGL_ERR_NOMEM;
        fgl__pfn_random_anchors(c->fed->seed, (float)fgl_get(c->set, "anchor_scale"), Ka, d, a);
        anchors = a;
    }
    if (!(dist = fgl_up(c, "dist"))) return c->error;
    if ((rc = fgl_anchor_sqdist(c->data.node, anchors, Ka, dist, &err)))
        return fgl_client_fail(c, rc, "pfedgnn: %s", err.msg);
    if (fgl_get(c->set, "blocks") == 0) {
        fgl_up_drop(c, "block");
    } else {
        if (!(block = fgl_up(c, "block"))) return c->error;
        if ((rc = fgl_node_sqdist_block(c->data.node, block, &err)))
            return fgl_client_fail(c, rc, "pfedgnn: %s", err.msg);
    }
    return FGL_OK;
}

/* Place newly arrived clients' nodes; once all are in, the graph. */
static int fgl__pfn_oneshot(fgl_server *s) {
    const fgl__pfn_frame *fr = (const fgl__pfn_frame *)fgl_get_scratch(&s->store, "frame");
    int K = s->n_clients, r = fr->f.r, i, off = 0, rc, all = 1;
    int *has = fgl_ints(&s->store, "has_dist"), *iters = fgl_ints(&s->store, "iters"), *ptr;
    float *emb = fgl_floats(&s->store, "emb"), *stress = fgl_floats(&s->store, "stress");
    fgl_error err;
    for (i = 0; i < K; i++) {
        const float *dist = fgl_upload(s, i, "dist");
        int n = s->n_nodes[i];
        if (!has[i] && dist) {
            float *z = emb + (size_t)off * r;
            fgl_anchor_embed(&fr->f, dist, n, z);
            if (fgl_get(s->set, "method") == 1) {
                double s0 = 0, s1 = 0;
                int it = fgl_anchor_smacof(&fr->f, dist, fgl_upload(s, i, "block"), n, (int)fgl_get(s->set, "max_iter"),
                                           fgl_get(s->set, "tol"), z, &s0, &s1, &err);
                if (it < 0) return fgl_server_fail(s, it, "pfedgnn: client %d: %s", i, err.msg);
                iters[i] = it;
                stress[2 * i] = (float)s0;
                stress[2 * i + 1] = (float)s1;
            }
            has[i] = 1;
        }
        all &= has[i];
        off += n;
    }
    if (!all || fgl_ints(&s->store, "ready")[0]) return FGL_OK;
    {
        fgl_coarsen_config cc = fgl_coarsen_default();
        double *lc = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * K);
        double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * K);
        int sample = (int)fgl_get(s->set, "pair_sample");
        ptr = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)(K + 1));
        if (!lc || !w || !ptr) return FGL_ERR_NOMEM;
        for (i = 0; i < K; i++) ptr[i + 1] = ptr[i] + s->n_nodes[i];
        cc.kernel = (int)fgl_get(s->set, "kernel");
        cc.sigma = fgl_get(s->set, "sigma");
        cc.sample = sample > 0 ? sample : sample < 0 || ptr[K] <= 50000 ? 0 : 256;
        cc.seed = s->fed->seed;
        if ((rc = fgl_coarsen_clients(emb, r, ptr, K, &cc, lc, &err)))
            return fgl_server_fail(s, rc, "pfedgnn: %s", err.msg);
        fgl_collab_weights(lc, K, w);
        for (i = 0; i < K * K; i++) {
            fgl_floats(&s->store, "lc")[i] = (float)lc[i];
            fgl_floats(&s->store, "w")[i] = (float)w[i];
        }
        fgl_ints(&s->store, "ready")[0] = 1;
    }
    return FGL_OK;
}

static int fgl__pfn_aggregate(fgl_server *s) {
    int K = s->n_clients, i, j, rc, ready;
    size_t n = s->n_shared;
    double alpha = fgl_get(s->set, "alpha");
    float *theta = fgl_floats(&s->store, "theta"), *w = fgl_floats(&s->store, "w");
    float *out = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * FGL__MAX(n, 1));
    double *mix = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * K);
    if (!out || !mix) return FGL_ERR_NOMEM;
    if ((rc = fgl__pfn_oneshot(s))) return rc;
    if (s->n_accepted == 0) return FGL_OK; /* nothing accepted: everyone keeps their model */
    ready = fgl_ints(&s->store, "ready")[0];
    for (i = 0; i < K; i++) {
        double sum = 0;
        for (j = 0; ready && j < K; j++)
            if (j != i && fgl_upload(s, j, "theta")) sum += w[(size_t)i * K + j];
        for (j = 0; j < K; j++) {
            double v = j == i ? (sum > 0 ? alpha : 1.0)
                              : sum > 0 && fgl_upload(s, j, "theta") ? (1 - alpha) * w[(size_t)i * K + j] / sum : 0.0;
            mix[(size_t)i * K + j] = v;
        }
    }
    if (ready && fgl_get(s->set, "lam") != 0) { /* u_i = sum_j m_ij theta_j / ||theta_j|| (before theta moves) */
        double *div = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K);
        if (!div) return FGL_ERR_NOMEM;
        for (j = 0; j < K; j++) {
            const float *v = fgl_upload(s, j, "theta");
            div[j] = fgl_norm2(n, v ? v : theta + (size_t)j * n);
        }
        if ((rc = fgl_server_mix_div(s, "theta", theta, mix, div, fgl_floats(&s->store, "u"), NULL, 0))) return rc;
    }
    /* a client without an accepted upload takes part with the model kept for it (theta's row) */
    if ((rc = fgl_server_mix(s, "theta", theta, mix, out, NULL))) return rc;
    memcpy(theta, out, sizeof(float) * (size_t)K * n);
    return FGL_OK;
}

static int fgl__pfn_matrix(const fgl_observed *o, float *out) { return fgl_observed_matrix(o, "w", out); }

static void fgl__pfn_report(const fgl_observed *o, char *buf, size_t cap) {
    const fgl__pfn_frame *fr;
    const float *stress;
    int K = o->n_clients, Ka, i, d, pub;
    double bytes = 0, s0 = 0, s1 = 0;
    if (!o->started || !cap) return;
    fr = (const fgl__pfn_frame *)fgl_observed_scratch(o, "frame");
    stress = fgl_observed_floats(o, "stress");
    pub = fgl_get(o->set, "anchor_nodes") != 0 && o->n_public > 0; /* fgl__pfn_public */
    Ka = fr->f.K;
    d = (int)fgl_observed_dim(o, FGL_DIM_INPUT);
    for (i = 0; i < K; i++) {
        bytes += 4.0 * o->n_nodes[i] * Ka +
                 (fgl_get(o->set, "blocks") != 0 ? 4.0 * o->n_nodes[i] * o->n_nodes[i] : 0);
        s0 += stress[2 * i];
        s1 += stress[2 * i + 1];
    }
    snprintf(
        buf, cap,
        "\"anchors\": %d, \"anchor_source\": \"%s\", \"features\": %d, \"private\": %s, \"embed_dim\": %d, "
        "\"oneshot_bytes_up\": %.0f, \"oneshot_bytes_down\": %.0f, \"smacof_stress_ratio\": %.6f, \"graph_ready\": %d",
        Ka, pub ? "public nodes" : "random", d, Ka < d ? "true" : "false", fr->f.r, bytes,
        4.0 * K * (1 + (pub ? (double)Ka * d : 0)), s0 > 0 ? s1 / s0 : 1.0, fgl_observed_ints(o, "ready")[0]);
}

static fgl_algo fgl__pfedgnn(void) {
    fgl_algo a = fgl_algo_new("pfedgnn", "Kataria et al. 2025: one-shot collaboration graph from anchor distances "
                              "(completion, coarsening L_C = P L_G P^T), then personalised mixing");
    fgl_algo_param_add(&a, "share", FGL_PARAM_GROUPS, (double)FGL_G_ALL, "parameter groups mixed");
    fgl_algo_param_add(&a, "alpha", FGL_PARAM_FLOAT, 0.0,
                       "self weight: theta_i <- alpha theta_i + (1-alpha) sum_j w_ij theta_j (0: authors' code, "
                       "best on validation in the authors' setting; METIS clients: 0.7-0.9, RESULTS.md)");
    fgl_algo_param_add(&a, "lam", FGL_PARAM_FLOAT, 0.0,
                       "local term lam <u_i, theta>/||theta||, u_i the mixing row over normalised models "
                       "(pre-release: 0.01; 0: off)");
    fgl_algo_param_add(&a, "anchors", FGL_PARAM_INT, 100,
                       "K_a anchors (authors' code: 100; private if K_a < features)");
    fgl_algo_param_add(
        &a, "anchor_nodes", FGL_PARAM_INT, 1,
        "1: the server's public nodes when it holds them (authors' code), 0: random points from the seed");
    fgl_algo_param_add(&a, "anchor_scale", FGL_PARAM_FLOAT, 1.0, "random anchors: N(0, scale^2 / d) per feature");
    fgl_algo_param_add(&a, "method", FGL_PARAM_INT, 1,
                       "completion: 0 landmark MDS (Nystrom), 1 anchored SMACOF (authors')");
    fgl_algo_param_add(&a, "blocks", FGL_PARAM_INT, 0,
                       "1: clients also send their n_i x n_i distances (authors' code; SMACOF)");
    fgl_algo_param_add(&a, "max_iter", FGL_PARAM_INT, 1000, "SMACOF iterations at most");
    fgl_algo_param_add(&a, "tol", FGL_PARAM_FLOAT, 1e-3,
                       "SMACOF stops when the stress falls by less than this (relative)");
    fgl_algo_param_add(&a, "dim", FGL_PARAM_INT, 0, "completion dimension at most (0: K_a - 1)");
    fgl_algo_param_add(&a, "kernel", FGL_PARAM_INT, 0, "affinity: 0 the authors' row-max kernel, 1 exp(-D^2/sigma^2)");
    fgl_algo_param_add(&a, "sigma", FGL_PARAM_FLOAT, 1.0, "kernel=1: sigma^2 = sigma x mean squared distance");
    fgl_algo_param_add(&a, "pair_sample", FGL_PARAM_INT, 0,
                       "pair sums over s nodes per client (0: all pairs up to 50000 nodes, else 256; -1: all)");
    fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, 0, 0, 0);
    fgl_algo_upload(&a, "n", FGL_SEND_WEIGHT, 0, 0, 0);
    fgl_algo_upload(&a, "dist", FGL_SEND_DATA, FGL_DIM_NODES, fgl_algo_param_dim(&a, "anchors"), FGL_PART_OPTIONAL);
    fgl_algo_upload(&a, "block", FGL_SEND_DATA, FGL_DIM_NODES, FGL_DIM_NODES, FGL_PART_OPTIONAL);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, FGL_PART_ROW, "theta");
    fgl_algo_download(&a, "ask", FGL_SEND_DATA, 1, 1, FGL_PART_OPTIONAL, NULL);
    fgl_algo_download(&a, "u", FGL_SEND_DATA, FGL_DIM_SHARED, 1, FGL_PART_OPTIONAL, NULL);
    fgl_algo_download(&a, "anchors", FGL_SEND_DATA, fgl_algo_param_dim(&a, "anchors"), FGL_DIM_INPUT, FGL_PART_OPTIONAL,
                      NULL);
    a.prepare_spec = fgl__pfn_spec;
    a.upload = fgl__pfn_upload;
    a.server_init = fgl__pfn_server_init;
    a.aggregate = fgl__pfn_aggregate;
    a.mixes = 1;
    a.download = fgl__pfn_download;
    a.train.grad = fgl__pfg_grad; /* pFedGraph's: lam <u, theta>/||theta|| when u is received */
    a.report = fgl__pfn_report;
    a.client_matrix = fgl__pfn_matrix;
    return a;
}

