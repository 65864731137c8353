/* fedpub_similarity.c - does FED-PUB's learned similarity follow the
 * clients' label distributions?
 *
 *   make build/bench/fedpub_similarity && ./build/bench/fedpub_similarity [clients] [seeds]
 *
 * Cora (largest component), METIS split into K clients (default 20), FED-PUB
 * with its defaults for 100 rounds. For every client i we take its
 * aggregation weights alpha_ij of the last round (j != i) and the cosine
 * similarity of the class histograms of clients i and j (all their nodes),
 * and compute the Spearman rank correlation across j; the figure reported
 * is the mean over clients (1: client i weights others exactly in the order
 * of label similarity; 0: unrelated). As a null, the same statistic with the
 * label similarities of a random permutation of the clients. The statistic
 * is fgl_rowwise_spearman with fgl_label_similarity (fgl_fed.h), which
 * fglrun reports for every algorithm with a client matrix
 * ("matrix_label_spearman").
 */
#define FGL_IMPLEMENTATION
#include "fgl_fed.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int K = argc > 1 ? atoi(argv[1]) : 20, seeds = argc > 2 ? atoi(argv[2]) : 3, s, i;
    fgl_dataset cora;
    fgl_dataset_config opt = fgl_dataset_default();
    fgl_split_config split = fgl_split_default();
    fgl_scenario sc;
    fgl_client_data *cd = (fgl_client_data *)malloc(sizeof(fgl_client_data) * (size_t)K);
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 1, 1);
    fgl_error err;
    double *lab, mean_rho = 0, mean_null = 0;
    int *perm = (int *)malloc(sizeof(int) * (size_t)K);
    fgl_rng rng;
    opt.lcc = 1;
    split.clients = K;
    if (fgl_dataset_load(&cora, NULL, "Cora", FGL_TASK_NODE, &opt, 0, &err) ||
        fgl_scenario_make(&sc, &cora, &split, &err)) {
        fprintf(stderr, "fedpub_similarity: %s\n", err.msg);
        return 1;
    }
    if (fgl_scenario_clients(&sc, &spec, cd, K, &err)) {
        fprintf(stderr, "fedpub_similarity: %s\n", err.msg);
        return 1;
    }
    /* label similarity: cosine of class histograms (fgl_label_similarity) */
    lab = (double *)calloc((size_t)K * (size_t)K, sizeof(double));
    if (!lab || fgl_label_similarity(cd, K, lab)) return 1;
    fgl_rng_init(&rng, 99, 0);
    for (i = 0; i < K; i++) perm[i] = i;
    fgl_rng_shuffle(&rng, perm, K);
    for (s = 1; s <= seeds; s++) {
        fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
        fgl_run run;
        float *alpha = (float *)malloc(sizeof(float) * (size_t)K * (size_t)K);
        double rho, null_rho;
        int r;
        cfg.seed = (uint64_t)s;
        if (!alpha || fgl_run_init(&run, &cfg, fgl_algo_find("fedpub"), cd, K, &err)) {
            fprintf(stderr, "fedpub_similarity: %s\n", err.msg);
            return 1;
        }
        for (r = 0; r < cfg.rounds; r++)
            if (fgl_run_round(&run)) {
                fprintf(stderr, "fedpub_similarity: %s\n", run.err.msg);
                return 1;
            }
        if (fgl_run_client_matrix(&run, alpha) != FGL_OK) {
            fprintf(stderr, "fedpub_similarity: no similarity weights\n");
            return 1;
        }
        rho = fgl_rowwise_spearman(alpha, lab, K, NULL);      /* the helper fglrun reports too */
        null_rho = fgl_rowwise_spearman(alpha, lab, K, perm);
        printf("seed %d: mean within-client Spearman(alpha_ij, label similarity) = %.3f (null %.3f); test %.2f%%\n", s,
               rho, null_rho, 100 * run.stats[run.round - 1].test_acc);
        mean_rho += rho / seeds;
        mean_null += null_rho / seeds;
        fgl_run_free(&run);
        free(alpha);
    }
    printf("Cora, %d METIS clients, FED-PUB: mean Spearman %.3f over %d seeds (random-permutation null %.3f)\n", K,
           mean_rho, seeds, mean_null);
    free(lab);
    free(perm);
    free(cd);
    fgl_scenario_free(&sc);
    fgl_dataset_free(&cora);
    return 0;
}
