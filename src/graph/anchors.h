#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Anchored distance completion (pFedGNN)                                   */
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
 * never interact in the completion. The server then coarsens the completed
 * points by client: src/graph/coarsen.h. */

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

/* fgl:implementation */
#include "../alone.h"
/* --- anchored distance completion (pFedGNN) ------------------------------- */
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
#include "../alone.h"
