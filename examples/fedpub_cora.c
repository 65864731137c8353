/* fedpub_cora.c - FED-PUB on Cora, 10 clients, with its similarity heatmap.
 *
 *   make build/fedpub_cora && ./build/fedpub_cora [data_dir] [out.svg]
 *   data_dir: by default the data directory ($FGL_DATA, else ./data, else ~/.local/share/fgl)
 *
 * The protocol of the FED-PUB paper and its authors' code: Cora's largest
 * connected component, row-normalised features, a METIS-style partition
 * into 10 disjoint subgraphs, 20/40/40 node splits per client, 2-layer GCN
 * (hidden 128) with personal weight masks + linear classifier, Adam lr
 * 0.01, 100 rounds of 1 local epoch, evaluation after local training. It
 * prints each client's test accuracy at the round of best mean validation
 * accuracy and writes the last round's client-similarity weights (row i:
 * how client i averages the others' models) as an SVG heatmap.
 */
#define FGL_IMPLEMENTATION
#include "fgl_fed.h"
#include <stdio.h>
#include <stdlib.h>

enum { K = 10 };

static void write_heatmap(const char *path, const float *m, int k) {
    FILE *f = fopen(path, "w");
    int i, j, cell = 36, pad = 30;
    float hi = 0;
    if (!f) {
        fprintf(stderr, "fedpub_cora: cannot write %s\n", path);
        return;
    }
    for (i = 0; i < k * k; i++) hi = m[i] > hi ? m[i] : hi;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
               "font-size=\"11\">\n", pad + k * cell + 10, pad + k * cell + 10);
    for (i = 0; i < k; i++) {
        fprintf(f, "<text x=\"4\" y=\"%d\">%d</text><text x=\"%d\" y=\"20\">%d</text>\n", pad + i * cell + 22, i,
                pad + i * cell + 14, i);
        for (j = 0; j < k; j++) {
            double t = hi > 0 ? m[i * k + j] / hi : 0;
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgb(%d,%d,%d)\"><title>%.3f</title>"
                       "</rect>\n", pad + j * cell, pad + i * cell, cell, cell, (int)(255 - 220 * t), (int)(255 - 160 * t),
                    (int)(255 - 60 * t), m[i * k + j]);
        }
    }
    fprintf(f, "</svg>\n");
    fclose(f);
}

int main(int argc, char **argv) {
    fgl_wait_choose(argv, "auto", 0); /* fgl.h: passive waiting on a busy machine (may restart the program once) */
    const char *svg = argc > 2 ? argv[2] : "fedpub_similarity.svg";
    const char *dir = argc > 1 && *argv[1] ? argv[1] : NULL; /* NULL: the data directory (fgl_data_dir) */
    fgl_dataset cora;
    fgl_dataset_config opt = fgl_dataset_default();
    fgl_split_config split = fgl_split_default();
    fgl_scenario sc;
    fgl_client_data cd[K];
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 1, 1);
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run run;
    fgl_run_summary s;
    fgl_error err;
    float sim[K * K]; /* the similarity weights of the last round (fgl_run_client_matrix) */
    int r, i;
    opt.lcc = 1;        /* the largest connected component, as FED-PUB's code */
    split.clients = K;  /* METIS, 20/40/40 per client, split seed 1234 */
    if (fgl_dataset_load(&cora, dir, "Cora", FGL_TASK_NODE, &opt, 0, &err) || fgl_scenario_make(&sc, &cora, &split, &err)) {
        fprintf(stderr, "fedpub_cora: %s\n", err.msg);
        return 1;
    }
    if (fgl_scenario_clients(&sc, &spec, cd, K, &err)) { /* a model spec per client */
        fprintf(stderr, "fedpub_cora: %s\n", err.msg);
        return 1;
    }
    printf("Cora (largest component: %d nodes) in %d METIS subgraphs, %ld edges cut\n", cora.node.n_nodes, K, sc.edge_cut);
    if (fgl_run_init(&run, &cfg, fgl_algo_find("fedpub"), cd, K, &err)) {
        fprintf(stderr, "fedpub_cora: %s\n", err.msg);
        return 1;
    }
    for (r = 0; r < cfg.rounds; r++)
        if (fgl_run_round(&run)) {
            fprintf(stderr, "fedpub_cora: %s\n", run.err.msg);
            return 1;
        }
    fgl_run_summarize(&run, &s);
    printf("\nclient  nodes  train  test acc (round %d)\n", s.best_round + 1);
    for (i = 0; i < K; i++)
        printf("%6d %6d %6d   %6.2f%%\n", i, sc.node[i].n_nodes, run.clients[i].n_train,
               100 * run.client_test[(size_t)s.best_round * K + i]);
    printf("  mean                 %6.2f%%  (last round %.2f%%)\n", 100 * s.best_test, 100 * s.last_test);
    printf("sent %.1f MB up, %.1f MB down in %.1f s\n", s.bytes_up / 1e6, s.bytes_down / 1e6, s.seconds);
    if (fgl_run_client_matrix(&run, sim) == FGL_OK) write_heatmap(svg, sim, K);
    printf("similarity weights of the last round: %s\n", svg);
    fgl_run_free(&run);
    fgl_scenario_free(&sc);
    fgl_dataset_free(&cora);
    return 0;
}
