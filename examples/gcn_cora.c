/* gcn_cora.c - centralised GCN on Cora with the public Planetoid split.
 *
 *   make build/gcn_cora && ./build/gcn_cora [data_dir] [seeds]
 *   data_dir: by default the data directory ($FGL_DATA, else ./data, else ~/.local/share/fgl)
 *
 * Kipf & Welling's setting: 2 GCN layers (hidden 16, ReLU, dropout 0.5 on
 * the input and the hidden layer), row-normalised features, Adam lr 0.01,
 * weight decay 5e-4, 200 epochs; the test accuracy is read at the epoch of
 * best validation accuracy. They report 81.5%.
 */
#define FGL_IMPLEMENTATION
#include "fgl_gnn.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    fgl_wait_choose(argv, "auto", 0); /* fgl.h: passive waiting on a busy machine (may restart the program once) */
    char root[1024], dir[1100];
    int seeds = argc > 2 ? atoi(argv[2]) : 5, s, i;
    fgl_node_data d;
    fgl_error err;
    unsigned char *train, *val, *test;
    double sum = 0, sumsq = 0, ms_per_epoch = 0;
    fgl_node_data_init(&d);
    if (argc > 1 && *argv[1]) snprintf(root, sizeof root, "%s", argv[1]);
    else if (fgl_data_dir(root, sizeof root, &err)) { /* $FGL_DATA, ./data or ~/.local/share/fgl */
        fprintf(stderr, "gcn_cora: %s\n", err.msg);
        return 1;
    }
    snprintf(dir, sizeof dir, "%s/node/Cora", root);
    if (fgl_load_node(dir, "Cora", &d, &err) || fgl_node_data_normalize_features(&d)) {
        fprintf(stderr, "gcn_cora: %s\n", err.msg);
        return 1;
    }
    train = (unsigned char *)malloc((size_t)d.n_nodes);
    val = (unsigned char *)malloc((size_t)d.n_nodes);
    test = (unsigned char *)malloc((size_t)d.n_nodes);
    for (i = 0; i < d.n_nodes; i++) {
        train[i] = d.split[i] == FGL_SPLIT_TRAIN;
        val[i] = d.split[i] == FGL_SPLIT_VAL;
        test[i] = d.split[i] == FGL_SPLIT_TEST;
    }
    printf("Cora: %d nodes, %d features, %d classes\n", d.n_nodes, d.n_feat, d.n_classes);
    for (s = 0; s < seeds; s++) {
        fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, d.n_feat, d.n_classes);
        fgl_model m;
        fgl_gnn_graph g;
        fgl_optim opt;
        fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
        fgl_tape t;
        fgl_rng rng;
        double best_val = -1, test_at_best = 0, t0;
        int epoch;
        spec.hidden = 16;
        spec.head = FGL_HEAD_NONE; /* the second GCN layer emits the classes */
        spec.input_dropout = 0.5f;
        if (fgl_model_init(&m, &spec, (uint64_t)s + 1, &err) || fgl_gnn_graph_from_node_data(&g, &d, &spec, &err)) {
            fprintf(stderr, "gcn_cora: %s\n", err.msg);
            return 1;
        }
        oc.lr = 0.01f;
        oc.weight_decay = 5e-4f;
        fgl_optim_init(&opt, oc, &m.params);
        fgl_tape_init(&t);
        fgl_rng_init(&rng, (uint64_t)s + 1, 1);
        t0 = fgl_now();
        for (epoch = 0; epoch < 200; epoch++) {
            fgl_forward out;
            fgl_node *loss;
            double v, te;
            fgl_tape_reset(&t);
            fgl_params_zero_grad(&m.params);
            fgl_model_forward(&m, &t, &g, 1, &rng, &out);
            loss = fgl_op_cross_entropy(&t, out.logits, d.y, train);
            if (fgl_tape_backward(&t, loss)) {
                fprintf(stderr, "gcn_cora: %s\n", t.err.msg);
                return 1;
            }
            fgl_optim_step(&opt, &m.params);
            v = fgl_model_accuracy(&m, &t, &g, d.y, val, NULL);
            te = fgl_model_accuracy(&m, &t, &g, d.y, test, NULL);
            if (v > best_val) {
                best_val = v;
                test_at_best = te;
            }
        }
        ms_per_epoch += 1000.0 * (fgl_now() - t0) / 200;
        printf("seed %d: best val %.2f%%, test at best val %.2f%%\n", s + 1, 100 * best_val, 100 * test_at_best);
        sum += test_at_best;
        sumsq += test_at_best * test_at_best;
        fgl_tape_free(&t);
        fgl_optim_free(&opt);
        fgl_gnn_graph_free(&g);
        fgl_model_free(&m);
    }
    {
        double mean = sum / seeds, sd = seeds > 1 ? sqrt((sumsq - seeds * mean * mean) / (seeds - 1)) : 0;
        printf("GCN on Cora (public split), %d seeds: test %.2f +- %.2f%% (Kipf & Welling: 81.5%%); "
               "%.2f ms per epoch incl. evaluation\n", seeds, 100 * mean, 100 * sd, ms_per_epoch / seeds);
    }
    free(train);
    free(val);
    free(test);
    fgl_node_data_free(&d);
    return 0;
}
