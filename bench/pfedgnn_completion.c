/* pfedgnn_completion.c - is pFedGNN's distance completion right, and how
 * does its error depend on the number of anchors?
 *
 *   make build/bench/pfedgnn_completion
 *   ./build/bench/pfedgnn_completion synthetic   # 32-dimensional points
 *   ./build/bench/pfedgnn_completion Cora        # 1,433 features, row-normalised
 *
 * The clients are a label-Dirichlet(0.5) split over 10 clients with 400
 * nodes withheld as public (the pFedGNN authors' setting). In a simulation
 * every distance is known, so for each number of anchors K_a and each
 * completion (landmark MDS; anchored SMACOF started from it) we compare the
 * completed squared distances between nodes of different clients with the
 * true ones on 200,000 random inter-client pairs: the relative error
 * sqrt(sum (D^2 - D_true^2)^2 / sum D_true^4), the mean ratio D^2 / D_true^2
 * and the Spearman correlation of the two (the kernels only see distances'
 * order and scale). Then the collaboration weights w built from the
 * completion (the authors' row-max kernel, exact pair sums) against those
 * built from the true features: the largest difference and the mean
 * within-row Spearman correlation; w is dominated by the clients' sizes (a
 * pair sum grows with n_i n_j), so also the same correlation for the mean
 * affinity of a pair of clients, -(L_C)_ij / (n_i n_j), which is not. Anchors: random points N(0, 1/d) from a
 * seed, and the first K_a public nodes. One JSON line per configuration. */
#define FGL_IMPLEMENTATION
#include "fgl_fed.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PAIRS = 200000, K = 10 };

static void dense_rows(const fgl_node_data *d, float *out) { /* n x n_feat */
    int i, p;
    if (d->x.data) {
        memcpy(out, d->x.data, sizeof(float) * (size_t)d->n_nodes * d->n_feat);
        return;
    }
    memset(out, 0, sizeof(float) * (size_t)d->n_nodes * d->n_feat);
    for (i = 0; i < d->n_nodes; i++)
        for (p = d->x_sparse.indptr[i]; p < d->x_sparse.indptr[i + 1]; p++)
            out[(size_t)i * d->n_feat + d->x_sparse.indices[p]] = d->x_sparse.values ? d->x_sparse.values[p] : 1.0f;
}

static double sq(const float *x, const float *y, int d) {
    double s = 0;
    int k;
    for (k = 0; k < d; k++) s += ((double)x[k] - y[k]) * ((double)x[k] - y[k]);
    return s;
}

int main(int argc, char **argv) {
    const char *name = argc > 1 ? argv[1] : "synthetic";
    static const int ks_syn[] = {4, 8, 16, 24, 32, 33, 48, 64}, ks_real[] = {10, 25, 50, 100, 200, 400};
    const int *ks;
    int nk, ki, src, meth, i, d, N = 0, ptr[K + 1], pi;
    fgl_dataset ds;
    fgl_split_config split = fgl_split_default();
    fgl_scenario sc;
    fgl_error err;
    float *x, *pubx;
    int *pa, *pb;
    double *truth, *w_true, lc[K * K], aff_true[K * K];
    fgl_coarsen_config cc = fgl_coarsen_default();
    fgl_rng rng;
    if (!strcmp(name, "synthetic")) {
        fgl_synth_node_config c = fgl_synth_node_default();
        memset(&ds, 0, sizeof ds);
        ds.task = FGL_TASK_NODE;
        snprintf(ds.label, sizeof ds.label, "synthetic");
        if (fgl_synth_node(&c, 1, &ds.node, NULL, &err)) return 1;
        ks = ks_syn;
        nk = (int)(sizeof ks_syn / sizeof ks_syn[0]);
    } else {
        if (fgl_dataset_load(&ds, NULL, name, FGL_TASK_NODE, NULL, 0, &err)) {
            fprintf(stderr, "pfedgnn_completion: %s\n", err.msg);
            return 1;
        }
        ks = ks_real;
        nk = (int)(sizeof ks_real / sizeof ks_real[0]);
    }
    split.how = FGL_PART_DIRICHLET;
    split.clients = K;
    split.public_nodes = 400;
    if (fgl_scenario_make(&sc, &ds, &split, &err)) {
        fprintf(stderr, "pfedgnn_completion: %s\n", err.msg);
        return 1;
    }
    d = ds.node.n_feat;
    ptr[0] = 0;
    for (i = 0; i < K; i++) ptr[i + 1] = ptr[i] + sc.node[i].n_nodes;
    N = ptr[K];
    x = (float *)malloc(sizeof(float) * (size_t)N * d);
    pubx = (float *)malloc(sizeof(float) * (size_t)sc.pub.n_nodes * d);
    for (i = 0; i < K; i++) dense_rows(&sc.node[i], x + (size_t)ptr[i] * d);
    dense_rows(&sc.pub, pubx);
    /* the inter-client pairs scored, and their true squared distances */
    pa = (int *)malloc(sizeof(int) * PAIRS);
    pb = (int *)malloc(sizeof(int) * PAIRS);
    truth = (double *)malloc(sizeof(double) * PAIRS);
    fgl_rng_init(&rng, 42, 0);
    for (pi = 0; pi < PAIRS; pi++) {
        int a, b, ca = 0, cb = 0;
        do {
            a = (int)fgl_rng_below(&rng, (uint64_t)N);
            b = (int)fgl_rng_below(&rng, (uint64_t)N);
            for (ca = 0; ptr[ca + 1] <= a; ca++) {}
            for (cb = 0; ptr[cb + 1] <= b; cb++) {}
        } while (ca == cb);
        pa[pi] = a;
        pb[pi] = b;
        truth[pi] = sq(x + (size_t)a * d, x + (size_t)b * d, d);
    }
    /* the collaboration weights of the true features */
    w_true = (double *)malloc(sizeof(double) * K * K);
    if (fgl_coarsen_clients(x, d, ptr, K, &cc, lc, &err)) {
        fprintf(stderr, "pfedgnn_completion: %s\n", err.msg);
        return 1;
    }
    fgl_collab_weights(lc, K, w_true);
    for (i = 0; i < K * K; i++)
        aff_true[i] = -lc[i] / ((double)(ptr[i / K + 1] - ptr[i / K]) * (ptr[i % K + 1] - ptr[i % K]));
    for (src = 0; src < 2; src++)
        for (ki = 0; ki < nk; ki++) {
            int Ka = ks[ki], a, b, f, r;
            float *anc = (float *)malloc(sizeof(float) * (size_t)Ka * d), *z0, *z;
            double *d2 = (double *)malloc(sizeof(double) * (size_t)Ka * Ka);
            fgl_anchor_frame fr;
            if (src == 0) {
                fgl_rng ar;
                fgl_rng_init(&ar, 7, 0x414e43484f52ull);
                for (i = 0; i < Ka * d; i++) anc[i] = (float)(fgl_rng_normal(&ar) / sqrt((double)d));
            } else {
                memcpy(anc, pubx, sizeof(float) * (size_t)Ka * d);
            }
            for (a = 0; a < Ka; a++)
                for (b = 0; b < Ka; b++) d2[a * Ka + b] = sq(anc + (size_t)a * d, anc + (size_t)b * d, d);
            if (fgl_anchor_frame_init(&fr, d2, Ka, 0, &err)) {
                fprintf(stderr, "pfedgnn_completion: %s\n", err.msg);
                return 1;
            }
            r = fr.r;
            z0 = (float *)malloc(sizeof(float) * (size_t)N * r);
            z = (float *)malloc(sizeof(float) * (size_t)N * r);
            for (i = 0; i < K; i++) {
                int n = sc.node[i].n_nodes;
                float *dist = (float *)malloc(sizeof(float) * (size_t)n * Ka);
                fgl_anchor_sqdist(&sc.node[i], anc, Ka, dist, &err);
                fgl_anchor_embed(&fr, dist, n, z0 + (size_t)ptr[i] * r);
                memcpy(z + (size_t)ptr[i] * r, z0 + (size_t)ptr[i] * r, sizeof(float) * (size_t)n * r);
                fgl_anchor_smacof(&fr, dist, NULL, n, 1000, 1e-3, z + (size_t)ptr[i] * r, NULL, NULL, &err);
                free(dist);
            }
            for (meth = 0; meth < 2; meth++) {
                const float *e = meth ? z : z0;
                double num = 0, den = 0, ratio = 0, wmax = 0, wrho, *est = (double *)malloc(sizeof(double) * PAIRS);
                double w[K * K], arho;
                float wf[K * K], af[K * K];
                for (pi = 0; pi < PAIRS; pi++) {
                    est[pi] = sq(e + (size_t)pa[pi] * r, e + (size_t)pb[pi] * r, r);
                    num += (est[pi] - truth[pi]) * (est[pi] - truth[pi]);
                    den += truth[pi] * truth[pi];
                    ratio += truth[pi] > 0 ? est[pi] / truth[pi] / PAIRS : 0;
                }
                cc.sample = 0;
                fgl_coarsen_clients(e, r, ptr, K, &cc, lc, &err);
                fgl_collab_weights(lc, K, w);
                for (f = 0; f < K * K; f++) {
                    wmax = fabs(w[f] - w_true[f]) > wmax ? fabs(w[f] - w_true[f]) : wmax;
                    wf[f] = (float)w[f];
                }
                wrho = fgl_rowwise_spearman(wf, w_true, K, NULL);
                for (f = 0; f < K * K; f++)
                    af[f] = (float)(-lc[f] / ((double)(ptr[f / K + 1] - ptr[f / K]) * (ptr[f % K + 1] - ptr[f % K])));
                arho = fgl_rowwise_spearman(af, aff_true, K, NULL);
                printf("{\"data\": \"%s\", \"features\": %d, \"nodes\": %d, \"anchors\": %d, \"anchor_source\": \"%s\", "
                       "\"method\": \"%s\", \"embed_dim\": %d, \"rel_error_sq\": %.4g, \"mean_ratio\": %.4f, "
                       "\"spearman_distances\": %.4f, \"w_max_abs_diff\": %.4g, \"w_rowwise_spearman\": %.4f, "
                       "\"pair_affinity_rowwise_spearman\": %.4f}\n",
                       ds.label, d, N, Ka, src ? "public nodes" : "random", meth ? "smacof" : "landmark", r, sqrt(num / den),
                       ratio, fgl_spearman(est, truth, PAIRS > 20000 ? 20000 : PAIRS), wmax, wrho, arho);
                fflush(stdout);
                free(est);
            }
            fgl_anchor_frame_free(&fr);
            free(anc);
            free(d2);
            free(z0);
            free(z);
        }
    free(x);
    free(pubx);
    free(pa);
    free(pb);
    free(truth);
    free(w_true);
    fgl_scenario_free(&sc);
    fgl_dataset_free(&ds);
    return 0;
}
