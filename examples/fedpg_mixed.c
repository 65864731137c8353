/* fedpg_mixed.c - FedPG on Cora with five different backbones over 10 clients.
 *
 *   make build/fedpg_mixed && ./build/fedpg_mixed [data_dir]
 *   data_dir: by default the data directory ($FGL_DATA, else ./data, else ~/.local/share/fgl)
 *
 * FedPG's heterogeneous-model setting (its Table VI): Cora in 10 METIS
 * subgraphs, each client's nodes split 20/40/40 per class, and the backbones
 * GCN, single-head GAT, GraphSAGE, SGC and GCNII given in blocks of two
 * (client i gets backbone 5i/10), all two layers of width 64. No weights
 * travel, only prototypes of each class at hops 0..2 of the 64-wide
 * normalised embedding, so the models never need to agree on anything but
 * that width. FedPG's protocol: Adam lr 0.01, weight decay 5e-4, 3 local
 * epochs, 100 rounds. It prints each client's backbone, its test accuracy
 * at the round of best mean validation accuracy and the bytes it sent, and
 * what one FedAvg round with a GCN would have cost by comparison.
 */
#define FGL_IMPLEMENTATION
#include "fgl_fed.h"
#include <stdio.h>
#include <stdlib.h>

enum { K = 10 };

int main(int argc, char **argv) {
    fgl_wait_choose(argv, "auto", 0); /* fgl.h: passive waiting on a busy machine (may restart the program once) */
    static const int backbone[5] = {FGL_ARCH_GCN, FGL_ARCH_GAT, FGL_ARCH_SAGE, FGL_ARCH_SGC, FGL_ARCH_GCNII};
    const char *dir = argc > 1 && *argv[1] ? argv[1] : NULL; /* NULL: the data directory (fgl_data_dir) */
    fgl_dataset cora;
    fgl_split_config split = fgl_split_default();
    fgl_scenario sc;
    fgl_client_data cd[K];
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 1, 1);
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run run;
    fgl_run_summary s;
    fgl_error err;
    size_t gcn_floats, up_floats;
    int r, i;
    split.clients = K;
    split.stratified = 1; /* per-class 20/40/40 */
    if (fgl_dataset_load(&cora, dir, "Cora", FGL_TASK_NODE, NULL, 0, &err) || fgl_scenario_make(&sc, &cora, &split, &err)) {
        fprintf(stderr, "fedpg_mixed: %s\n", err.msg);
        return 1;
    }
    if (fgl_scenario_clients(&sc, &spec, cd, K, &err)) { /* data and feature / class counts per client */
        fprintf(stderr, "fedpg_mixed: %s\n", err.msg);
        return 1;
    }
    for (i = 0; i < K; i++) {
        fgl_model_spec m = fgl_model_spec_default(backbone[5 * i / K], FGL_TASK_NODE, cd[i].spec.in_dim, cd[i].spec.out_dim);
        m.hidden = 64;
        m.layers = 2;
        m.heads = 1;                                        /* single-head GAT */
        if (m.arch != FGL_ARCH_GCNII) m.head = FGL_HEAD_NONE; /* the second layer is the classifier */
        cd[i].spec = m;
    }
    cfg.local_epochs = 3;
    cfg.optim.lr = 0.01f;
    cfg.optim.weight_decay = 5e-4f;
    if (fgl_run_init(&run, &cfg, fgl_algo_find("fedpg"), cd, K, &err)) {
        fprintf(stderr, "fedpg_mixed: %s\n", err.msg);
        return 1;
    }
    for (r = 0; r < cfg.rounds; r++)
        if (fgl_run_round(&run)) {
            fprintf(stderr, "fedpg_mixed: %s\n", run.err.msg);
            return 1;
        }
    fgl_run_summarize(&run, &s);
    printf("Cora, %d METIS clients, FedPG, %d rounds (best mean validation: round %d)\n\n", K, cfg.rounds, s.best_round + 1);
    printf("client  backbone  parameters  test acc  KB sent\n");
    for (i = 0; i < K; i++) {
        size_t sent = 0;
        for (r = 0; r < run.round; r++) sent += run.client_up[(size_t)r * K + i];
        printf("%6d  %-8s  %10zu  %7.2f%%  %7.1f\n", i, fgl_arch_name(run.clients[i].model.spec.arch),
               run.clients[i].model.params.size, 100 * run.client_test[(size_t)s.best_round * K + i], sent / 1e3);
    }
    printf("  mean                        %7.2f%%  (last round %.2f%%)\n", 100 * s.best_test, 100 * s.last_test);
    {
        fgl_model gcn;
        fgl_model_spec g = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, cd[0].spec.in_dim, cd[0].spec.out_dim);
        g.hidden = 64;
        g.head = FGL_HEAD_NONE;
        fgl_model_init(&gcn, &g, 1, &err);
        gcn_floats = gcn.params.size;
        fgl_model_free(&gcn);
    }
    up_floats = fgl_up_size(&run.clients[0], "protos") + fgl_up_size(&run.clients[0], "counts");
    printf("\none upload: %zu floats (prototypes of %zu classes x %zu hops x %zu dims, and their counts);\n"
           "FedAvg with a 2-layer GCN of width 64 would send %zu floats (%.0fx more)\n",
           up_floats, fgl_client_dim(&run.clients[0], FGL_DIM_CLASSES),
           fgl_client_dim(&run.clients[0], FGL_DIM_HOPS), fgl_client_dim(&run.clients[0], FGL_DIM_REP), gcn_floats,
           (double)gcn_floats / (double)up_floats);
    fgl_run_free(&run);
    fgl_scenario_free(&sc);
    fgl_dataset_free(&cora);
    return 0;
}
