/* custom_aggregator.c - a new aggregation rule in about 30 lines.
 *
 *   make build/custom_aggregator && ./build/custom_aggregator [data_dir]
 *
 * Coordinate-wise median instead of FedAvg's weighted mean (Yin et al. 2018):
 * robust to a minority of clients sending garbage. We copy the fedavg table,
 * rename it and replace its aggregate hook; everything else (what clients
 * upload, what they receive, byte accounting, NaN rejection) is reused.
 */
#define FGL_IMPLEMENTATION
#include "fgl_fed.h"
#include <stdio.h>
#include <stdlib.h>

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The server state of the weight-averaging family is the global vector; each
 * accepted upload's part 0 holds a client's shared parameters. */
static int median_aggregate(fgl_run *run) {
    fgl_avg_state *s = (fgl_avg_state *)run->server;
    float *col = (float *)malloc(sizeof(float) * (size_t)run->n_clients);
    size_t j;
    int i, n;
    if (!col) return FGL_ERR_NOMEM;
    for (j = 0; j < s->n; j++) {
        for (i = 0, n = 0; i < run->n_clients; i++)
            if (fgl_run_accepted(run, i)) col[n++] = run->clients[i].up.part[0][j];
        if (n == 0) break; /* nothing accepted: keep the model */
        qsort(col, (size_t)n, sizeof(float), cmp_float);
        s->global[j] = n % 2 ? col[n / 2] : 0.5f * (col[n / 2 - 1] + col[n / 2]);
    }
    free(col);
    return FGL_OK;
}

int main(int argc, char **argv) {
    fgl_algo median = *fgl_algo_find("fedavg");
    const char *env = getenv("FGL_DATA");
    char dir[1024];
    fgl_node_data cora;
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 1, 1);
    fgl_fed_config cfg = fgl_fed_config_default(FGL_TASK_NODE);
    fgl_error err;
    int a, r;
    median.name = "median";
    median.summary = "coordinate-wise median of the clients' parameters";
    median.aggregate = median_aggregate;
    snprintf(dir, sizeof dir, "%s/node/Cora", argc > 1 ? argv[1] : env && *env ? env : "../shared/data");
    fgl_node_data_init(&cora);
    if (fgl_load_node(dir, "Cora", &cora, &err) || fgl_node_data_normalize_features(&cora) ||
        fgl_scenario_subgraphs(&sc, &cora, FGL_PART_METIS, 5, 0.2, 0.4, 1234, &err)) {
        fprintf(stderr, "custom_aggregator: %s\n", err.msg);
        return 1;
    }
    fgl_scenario_clients(&sc, &spec, cd);
    cfg.rounds = 50;
    for (a = 0; a < 2; a++) {
        const fgl_algo *algo = a == 0 ? fgl_algo_find("fedavg") : &median;
        fgl_run run;
        fgl_run_summary s;
        if (fgl_run_init(&run, &cfg, algo, cd, 5, &err)) {
            fprintf(stderr, "custom_aggregator: %s\n", err.msg);
            return 1;
        }
        for (r = 0; r < cfg.rounds; r++)
            if (fgl_run_round(&run)) {
                fprintf(stderr, "custom_aggregator: %s\n", run.err.msg);
                return 1;
            }
        fgl_run_summarize(&run, &s);
        printf("%-7s Cora, 5 METIS clients, %d rounds: mean client test accuracy %.2f%% (round %d, best validation)\n",
               algo->name, cfg.rounds, 100 * s.best_test, s.best_round + 1);
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
    fgl_node_data_free(&cora);
    return 0;
}
