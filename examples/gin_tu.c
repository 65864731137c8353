/* gin_tu.c - centralised GIN on a TU dataset with 10-fold cross-validation.
 *
 *   make build/gin_tu && ./build/gin_tu NCI1 [epochs] [folds] [data_dir] [grid]
 *   data_dir: by default the data directory ($FGL_DATA, else ./data, else ~/.local/share/fgl)
 *
 * The protocol of Errica et al. 2020 ("A fair comparison of graph neural
 * networks for graph classification"): stratified 10-fold cross-validation;
 * inside each training fold a stratified 10% holdout selects both the
 * configuration and the epoch: every configuration of a small grid (batch
 * 32 or 128, dropout 0 or 0.5: the part of Errica et al.'s grid that
 * mattered here) is trained, the one with the best holdout accuracy wins,
 * and the fold's test accuracy is read at its best-holdout epoch. The test
 * folds never influence any choice. Model: 3 GIN layers (hidden 64, batch
 * norm in the MLPs, ReLU), sum readout, MLP head; one-hot node labels as
 * features; Adam lr 0.01 halved every 50 epochs. Errica et al. report GIN
 * at 80.0 +- 1.4 (NCI1) and 73.3 +- 4.0 (PROTEINS).
 *
 * epochs defaults to 100, folds to 10; a grid of "128:0.5" (batch:dropout,
 * comma-separated) as a fifth argument replaces the default grid.
 */
#define FGL_IMPLEMENTATION
#include "fgl_gnn.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Accuracy of m over graphs ids[0..n-1] of s, in batches. */
static double accuracy(fgl_model *m, fgl_tape *t, const fgl_graph_set *s, const int *ids, int n) {
    double correct = 0;
    int i0;
    for (i0 = 0; i0 < n; i0 += 512) {
        fgl_batch b;
        fgl_gnn_graph g;
        fgl_error err;
        int k = n - i0 < 512 ? n - i0 : 512;
        fgl_batch_init(&b);
        if (fgl_batch_make(s, ids + i0, k, &b, &err) || fgl_gnn_graph_from_batch(&g, &b, &m->spec, &err)) {
            fprintf(stderr, "gin_tu: %s\n", err.msg);
            exit(1);
        }
        correct += fgl_model_accuracy(m, t, &g, b.y, NULL, NULL) * k;
        fgl_gnn_graph_free(&g);
        fgl_batch_free(&b);
    }
    return n ? correct / n : 0;
}

typedef struct {
    int batch;
    float dropout;
} config;

typedef struct {
    double best_val, test_at_best;
} outcome;

/* Train a fresh model with configuration c on train[0..n_tr-1] for `epochs`
 * epochs (model seed `seed`); the holdout picks the epoch. */
static outcome train_one(const fgl_graph_set *s, config c, int epochs, uint64_t seed, int *train, int n_tr,
                         const int *val, int n_va, const int *test, int n_te, double *t_epoch, long *n_epochs) {
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GIN, FGL_TASK_GRAPH, s->n_feat, s->n_classes);
    fgl_model m;
    fgl_optim opt;
    fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
    fgl_tape t;
    fgl_rng rng;
    fgl_error err;
    outcome o = {-1, 0};
    int e;
    spec.batch_norm = 1;
    spec.dropout = c.dropout;
    if (fgl_model_init(&m, &spec, seed, &err)) {
        fprintf(stderr, "gin_tu: %s\n", err.msg);
        exit(1);
    }
    oc.lr = 0.01f;
    fgl_optim_init(&opt, oc, &m.params);
    fgl_tape_init(&t);
    fgl_rng_init(&rng, seed, 7);
    for (e = 0; e < epochs; e++) {
        double t0 = fgl_now(), v, te;
        int i0;
        if (e > 0 && e % 50 == 0) opt.cfg.lr *= 0.5f;
        fgl_rng_shuffle(&rng, train, n_tr);
        for (i0 = 0; i0 < n_tr; i0 += c.batch) {
            fgl_batch b;
            fgl_gnn_graph g;
            fgl_forward out;
            int nb = n_tr - i0 < c.batch ? n_tr - i0 : c.batch;
            fgl_batch_init(&b);
            if (fgl_batch_make(s, train + i0, nb, &b, &err) || fgl_gnn_graph_from_batch(&g, &b, &spec, &err)) {
                fprintf(stderr, "gin_tu: %s\n", err.msg);
                exit(1);
            }
            fgl_tape_reset(&t);
            fgl_params_zero_grad(&m.params);
            fgl_model_forward(&m, &t, &g, 1, &rng, &out);
            if (fgl_tape_backward(&t, fgl_op_cross_entropy(&t, out.logits, b.y, NULL))) {
                fprintf(stderr, "gin_tu: %s\n", t.err.msg);
                exit(1);
            }
            fgl_optim_step(&opt, &m.params);
            fgl_gnn_graph_free(&g);
            fgl_batch_free(&b);
        }
        if (c.batch == 128) { /* the speed figure: the benchmark's batch size */
            *t_epoch += fgl_now() - t0;
            (*n_epochs)++;
        }
        v = accuracy(&m, &t, s, val, n_va);
        te = accuracy(&m, &t, s, test, n_te);
        if (v > o.best_val) {
            o.best_val = v;
            o.test_at_best = te;
        }
    }
    fgl_tape_free(&t);
    fgl_optim_free(&opt);
    fgl_model_free(&m);
    return o;
}

int main(int argc, char **argv) {
    fgl_wait_choose(argv, "auto", 0); /* fgl.h: passive waiting on a busy machine (may restart the program once) */
    const char *name = argc > 1 ? argv[1] : "PROTEINS";
    int epochs = argc > 2 ? atoi(argv[2]) : 100, folds = argc > 3 ? atoi(argv[3]) : 10;
    char root[1024], dir[1300];
    fgl_graph_set s;
    fgl_error err;
    fgl_rng rng;
    int *fold, *order, *train, *val, *test, i, f, c, pos, n_grid = 0;
    config grid[16];
    double sum = 0, sumsq = 0, t_epoch = 0;
    long n_epochs = 0;
    if (argc > 4 && *argv[4]) snprintf(root, sizeof root, "%s", argv[4]);
    else if (fgl_data_dir(root, sizeof root, &err)) { /* $FGL_DATA, ./data or ~/.local/share/fgl */
        fprintf(stderr, "gin_tu: %s\n", err.msg);
        return 1;
    }
    snprintf(dir, sizeof dir, "%s/tu/%.200s", root, name);
    {
        const char *g = argc > 5 ? argv[5] : "32:0,32:0.5,128:0,128:0.5";
        while (*g && n_grid < 16) {
            char *end;
            grid[n_grid].batch = (int)strtol(g, &end, 10);
            if (end == g || *end != ':' || grid[n_grid].batch < 1) break;
            g = end + 1;
            grid[n_grid].dropout = strtof(g, &end);
            if (end == g || grid[n_grid].dropout < 0 || grid[n_grid].dropout >= 1) break;
            n_grid++;
            g = *end == ',' ? end + 1 : end;
            if (*end && *end != ',') break;
        }
        if (n_grid == 0 || *g) {
            fprintf(stderr, "gin_tu: bad grid '%s' (want batch:dropout,... e.g. 128:0.5)\n", argv[5]);
            return 2;
        }
    }
    if (epochs < 1 || folds < 2) {
        fprintf(stderr, "gin_tu: need epochs >= 1 and folds >= 2\n");
        return 2;
    }
    fgl_graph_set_init(&s);
    if (fgl_load_tu(dir, name, &s, &err) || fgl_graph_set_features(&s, FGL_FEAT_NODE_LABELS, 0, &err)) {
        fprintf(stderr, "gin_tu: %s\n", err.msg);
        return 1;
    }
    printf("%s: %d graphs, %d node features, %d classes; %d folds x %d epochs\n", name, s.n_graphs, s.n_feat,
           s.n_classes, folds, epochs);
    fold = (int *)malloc(sizeof(int) * (size_t)s.n_graphs);
    order = (int *)malloc(sizeof(int) * (size_t)s.n_graphs);
    train = (int *)malloc(sizeof(int) * (size_t)s.n_graphs);
    val = (int *)malloc(sizeof(int) * (size_t)s.n_graphs);
    test = (int *)malloc(sizeof(int) * (size_t)s.n_graphs);
    /* stratified folds: shuffle, then deal each class's graphs round-robin */
    fgl_rng_init(&rng, 12345, 0);
    for (i = 0; i < s.n_graphs; i++) order[i] = i;
    fgl_rng_shuffle(&rng, order, s.n_graphs);
    for (c = 0, pos = 0; c < s.n_classes; c++)
        for (i = 0; i < s.n_graphs; i++)
            if (s.y[order[i]] == c) fold[order[i]] = pos++ % folds;
    for (f = 0; f < folds; f++) {
        int n_tr = 0, n_va = 0, n_te = 0, k = 0, ci, best = 0;
        outcome o[16];
        /* inner holdout: every 10th training graph of each class (in shuffled order) */
        for (c = 0; c < s.n_classes; c++)
            for (i = 0; i < s.n_graphs; i++) {
                int g = order[i];
                if (s.y[g] != c) continue;
                if (fold[g] == f) test[n_te++] = g;
                else if (k++ % 10 == 0) val[n_va++] = g;
                else train[n_tr++] = g;
            }
        for (ci = 0; ci < n_grid; ci++) {
            o[ci] = train_one(&s, grid[ci], epochs, (uint64_t)f + 1, train, n_tr, val, n_va, test, n_te, &t_epoch,
                              &n_epochs);
            if (o[ci].best_val > o[best].best_val) best = ci;
        }
        printf("fold %d:", f + 1);
        for (ci = 0; ci < n_grid; ci++)
            printf(" [batch %d, dropout %.1f: holdout %.2f%%, test %.2f%%]", grid[ci].batch, grid[ci].dropout,
                   100 * o[ci].best_val, 100 * o[ci].test_at_best);
        printf(" -> batch %d, dropout %.1f: test %.2f%%\n", grid[best].batch, grid[best].dropout,
               100 * o[best].test_at_best);
        fflush(stdout);
        sum += o[best].test_at_best;
        sumsq += o[best].test_at_best * o[best].test_at_best;
    }
    {
        double mean = sum / folds, sd = folds > 1 ? sqrt((sumsq - folds * mean * mean) / (folds - 1)) : 0;
        printf("GIN on %s, %d-fold CV, configuration and epoch chosen on the holdout: test %.2f +- %.2f%%", name,
               folds, 100 * mean, 100 * sd);
        if (n_epochs) printf("; %.1f ms per training epoch at batch 128", 1000 * t_epoch / (double)n_epochs);
        printf("\n");
    }
    free(fold);
    free(order);
    free(train);
    free(val);
    free(test);
    fgl_graph_set_free(&s);
    return 0;
}
