/* bench_gnn.c - training-epoch time of the two reference models.
 *
 *   make build/bench/bench_gnn && OMP_NUM_THREADS=1 ./build/bench/bench_gnn
 *   OMP_NUM_THREADS=2 ./build/bench/bench_gnn
 *
 * 1. Full-batch 2-layer GCN (hidden 64) on Cora: one training epoch =
 *    forward, cross-entropy on the public training nodes, backward, Adam.
 * 2. 3-layer GIN (hidden 64) on PROTEINS, batches of 128 graphs: one epoch
 *    over all 1113 graphs in shuffled batches (batch building included).
 * Median of repeated epochs after warm-up. These are fgl's default models
 * (the GIN with its input projection and dropout 0.5); bench_gin times the
 * exact model of the PyTorch anchor, and bench/speed.sh runs both beside
 * the anchors in one run (ratios, not absolute times, carry between
 * machines).
 */
#define FGL_IMPLEMENTATION
#include "fgl_gnn.h"
#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n) {
    qsort(t, (size_t)n, sizeof(double), cmp_double);
    return t[n / 2];
}

int main(int argc, char **argv) {
    char dir[1100], rootbuf[1024];
    const char *root = argc > 1 ? argv[1] : (fgl_data_dir(rootbuf, sizeof rootbuf, NULL), rootbuf);
    fgl_error err;
    fgl_node_data cora;
    fgl_graph_set prot;
    int threads = 1, i, e;
    double t[60];
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    fgl_node_data_init(&cora);
    fgl_graph_set_init(&prot);
    snprintf(dir, sizeof dir, "%s/node/Cora", root);
    if (fgl_load_node(dir, "Cora", &cora, &err) || fgl_node_data_normalize_features(&cora)) {
        fprintf(stderr, "bench_gnn: %s\n", err.msg);
        return 1;
    }
    snprintf(dir, sizeof dir, "%s/tu/PROTEINS", root);
    if (fgl_load_tu(dir, "PROTEINS", &prot, &err) || fgl_graph_set_features(&prot, FGL_FEAT_NODE_LABELS, 0, &err)) {
        fprintf(stderr, "bench_gnn: %s\n", err.msg);
        return 1;
    }
    { /* GCN on Cora */
        fgl_model_spec s = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, cora.n_feat, cora.n_classes);
        fgl_model m;
        fgl_gnn_graph g;
        fgl_optim o;
        fgl_tape tp;
        fgl_rng r;
        unsigned char *train = (unsigned char *)malloc((size_t)cora.n_nodes);
        for (i = 0; i < cora.n_nodes; i++) train[i] = cora.split[i] == FGL_SPLIT_TRAIN;
        s.hidden = 64;
        s.head = FGL_HEAD_NONE;
        fgl_model_init(&m, &s, 1, &err);
        fgl_gnn_graph_from_node_data(&g, &cora, &s, &err);
        fgl_optim_init(&o, fgl_optim_default(FGL_ADAM), &m.params);
        fgl_tape_init(&tp);
        fgl_rng_init(&r, 1, 1);
        for (e = 0; e < 60 + 10; e++) {
            double t0 = fgl_now();
            fgl_forward out;
            fgl_tape_reset(&tp);
            fgl_params_zero_grad(&m.params);
            fgl_model_forward(&m, &tp, &g, 1, &r, &out);
            fgl_tape_backward(&tp, fgl_op_cross_entropy(&tp, out.logits, cora.y, train));
            fgl_optim_step(&o, &m.params);
            if (e >= 10) t[e - 10] = fgl_now() - t0;
        }
        printf("GCN (2 layers, hidden 64) on Cora, full batch: %.2f ms per training epoch at %d thread%s\n",
               1e3 * median(t, 60), threads, threads > 1 ? "s" : "");
        free(train);
        fgl_tape_free(&tp);
        fgl_optim_free(&o);
        fgl_gnn_graph_free(&g);
        fgl_model_free(&m);
    }
    { /* GIN on PROTEINS */
        fgl_model_spec s = fgl_model_spec_default(FGL_ARCH_GIN, FGL_TASK_GRAPH, prot.n_feat, prot.n_classes);
        fgl_model m;
        fgl_optim o;
        fgl_tape tp;
        fgl_rng r;
        int *ids = (int *)malloc(sizeof(int) * (size_t)prot.n_graphs), n_ep = 12;
        for (i = 0; i < prot.n_graphs; i++) ids[i] = i;
        s.hidden = 64;
        s.layers = 3;
        fgl_model_init(&m, &s, 1, &err);
        fgl_optim_init(&o, fgl_optim_default(FGL_ADAM), &m.params);
        fgl_tape_init(&tp);
        fgl_rng_init(&r, 1, 1);
        for (e = 0; e < n_ep + 2; e++) {
            double t0 = fgl_now();
            int i0;
            fgl_rng_shuffle(&r, ids, prot.n_graphs);
            for (i0 = 0; i0 < prot.n_graphs; i0 += 128) {
                fgl_batch b;
                fgl_gnn_graph g;
                fgl_forward out;
                int nb = prot.n_graphs - i0 < 128 ? prot.n_graphs - i0 : 128;
                fgl_batch_init(&b);
                fgl_batch_make(&prot, ids + i0, nb, &b, &err);
                fgl_gnn_graph_from_batch(&g, &b, &s, &err);
                fgl_tape_reset(&tp);
                fgl_params_zero_grad(&m.params);
                fgl_model_forward(&m, &tp, &g, 1, &r, &out);
                fgl_tape_backward(&tp, fgl_op_cross_entropy(&tp, out.logits, b.y, NULL));
                fgl_optim_step(&o, &m.params);
                fgl_gnn_graph_free(&g);
                fgl_batch_free(&b);
            }
            if (e >= 2) t[e - 2] = fgl_now() - t0;
        }
        printf("GIN (3 layers, hidden 64, fgl's default: input projection, dropout 0.5) on PROTEINS, batch 128: "
               "%.1f ms per training epoch at %d thread%s\n", 1e3 * median(t, n_ep), threads, threads > 1 ? "s" : "");
        free(ids);
        fgl_tape_free(&tp);
        fgl_optim_free(&o);
        fgl_model_free(&m);
    }
    fgl_node_data_free(&cora);
    fgl_graph_set_free(&prot);
    return 0;
}
