/* pfedgnn_graph.c - what pFedGNN's collaboration graph follows: the
 * clients' label distributions, or their sizes?
 *
 *   make build/bench/pfedgnn_graph
 *   ./build/bench/pfedgnn_graph Cora metis      # FED-PUB's protocol: --lcc, METIS, 10 clients
 *   ./build/bench/pfedgnn_graph Cora dirichlet  # the authors': Dirichlet 0.5, 10 clients, 100 public anchors
 *
 * The one shot only (a round with no local training, through the runtime,
 * pFedGNN's defaults and the protocol's anchors), then, within each row i
 * (over j != i), mean over clients, the Spearman correlation of
 *   - w_ij (the mixing weights, fglrun's matrix_label_spearman) and
 *   - the mean affinity of a pair of nodes of clients i and j,
 *     -(L_C)_ij / (n_i n_j) (w without the clients' sizes)
 * with the cosine similarity of the clients' label histograms, and with
 * the other client's size n_j. Null: the label similarity of 100 random
 * permutations of the clients (mean and the 95th percentile). The kernel
 * and completion can be changed as in fglrun: KEY=VALUE arguments after the
 * split (kernel=1, method=0, ...). One JSON line. */
#define FGL_IMPLEMENTATION
#include "fgl_fed.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K = 10, PERMS = 100 };

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    const char *name = argc > 1 ? argv[1] : "Cora", *how = argc > 2 ? argv[2] : "metis";
    int dir = !strcmp(how, "dirichlet"), i, j, p;
    fgl_dataset ds;
    fgl_dataset_config opt = fgl_dataset_default();
    fgl_split_config split = fgl_split_default();
    fgl_scenario sc;
    fgl_client_data cd[K];
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 1, 1);
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run run;
    fgl_error err;
    double lab[K * K], sizes[K * K], nulls[PERMS], rho_w, rho_a, rho_wn, rho_an;
    float aff[K * K], w[K * K];
    const float *lc;
    char rep[1024] = "", sets[256] = "";
    fgl_rng rng;
    opt.lcc = !dir; /* FED-PUB's protocol keeps the largest component */
    if (fgl_dataset_load(&ds, NULL, name, FGL_TASK_NODE, &opt, 0, &err)) {
        fprintf(stderr, "pfedgnn_graph: %s\n", err.msg);
        return 1;
    }
    split.clients = K;
    if (dir) {
        split.how = FGL_PART_DIRICHLET;
        split.alpha = 0.5;
        split.public_nodes = 100;
        split.train = 0.6;
        split.val = 0.2;
        spec.hidden = 16;
        spec.head = FGL_HEAD_NONE;
    }
    if (fgl_scenario_make(&sc, &ds, &split, &err)) {
        fprintf(stderr, "pfedgnn_graph: %s\n", err.msg);
        return 1;
    }
    if (fgl_scenario_clients(&sc, &spec, cd, K, &err)) {
        fprintf(stderr, "pfedgnn_graph: %s\n", err.msg);
        return 1;
    }
    cfg.rounds = 1;
    cfg.local_epochs = 0;
    if (fgl_run_init(&run, &cfg, fgl_algo_find("pfedgnn"), cd, K, &err) || (dir && fgl_run_set_public(&run, &sc.pub, &err))) {
        fprintf(stderr, "pfedgnn_graph: %s\n", err.msg);
        return 1;
    }
    for (i = 3; i < argc; i++) { /* KEY=VALUE */
        char key[64], *eq = strchr(argv[i], '=');
        if (!eq || (size_t)(eq - argv[i]) >= sizeof key) continue;
        memcpy(key, argv[i], (size_t)(eq - argv[i]));
        key[eq - argv[i]] = 0;
        if (fgl_run_set(&run, key, eq + 1, &err)) {
            fprintf(stderr, "pfedgnn_graph: %s\n", err.msg);
            return 1;
        }
        snprintf(sets + strlen(sets), sizeof sets - strlen(sets), "%s%s", sets[0] ? " " : "", argv[i]);
    }
    if (fgl_run_round(&run)) {
        fprintf(stderr, "pfedgnn_graph: %s\n", run.err.msg);
        return 1;
    }
    fgl_run_report(&run, rep, sizeof rep);
    if (fgl_run_client_matrix(&run, w) != FGL_OK) memset(w, 0, sizeof w);
    lc = fgl_floats(&run.server.store, "lc");
    for (i = 0; i < K; i++)
        for (j = 0; j < K; j++) {
            aff[i * K + j] = (float)(-lc[i * K + j] / ((double)sc.node[i].n_nodes * sc.node[j].n_nodes));
            sizes[i * K + j] = sc.node[j].n_nodes;
        }
    fgl_label_similarity(cd, K, lab);
    rho_w = fgl_rowwise_spearman(w, lab, K, NULL);
    rho_a = fgl_rowwise_spearman(aff, lab, K, NULL);
    rho_wn = fgl_rowwise_spearman(w, sizes, K, NULL);
    rho_an = fgl_rowwise_spearman(aff, sizes, K, NULL);
    fgl_rng_init(&rng, 99, 0);
    for (p = 0; p < PERMS; p++) {
        int perm[K];
        for (i = 0; i < K; i++) perm[i] = i;
        fgl_rng_shuffle(&rng, perm, K);
        nulls[p] = fgl_rowwise_spearman(aff, lab, K, perm);
    }
    {
        double mean = 0;
        for (p = 0; p < PERMS; p++) mean += nulls[p] / PERMS;
        qsort(nulls, PERMS, sizeof nulls[0], cmp_double);
        printf("{\"data\": \"%s\", \"split\": \"%s\", \"clients\": %d, \"sets\": \"%s\", \"w_label_spearman\": %.4f, "
               "\"affinity_label_spearman\": %.4f, \"affinity_label_null_mean\": %.4f, \"affinity_label_null_p95\": %.4f, "
               "\"w_size_spearman\": %.4f, \"affinity_size_spearman\": %.4f, \"w_row0\": [",
               ds.label, how, K, sets, rho_w, rho_a, mean, nulls[(int)(0.95 * PERMS)], rho_wn, rho_an);
    }
    for (j = 0; j < K; j++) printf("%s%.4f", j ? ", " : "", w[j]);
    printf("], \"sizes\": [");
    for (j = 0; j < K; j++) printf("%s%d", j ? ", " : "", sc.node[j].n_nodes);
    printf("], %s}\n", rep);
    fgl_run_free(&run);
    fgl_scenario_free(&sc);
    fgl_dataset_free(&ds);
    return 0;
}
