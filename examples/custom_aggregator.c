/* custom_aggregator.c - a new aggregation rule in about 30 lines.
 *
 *   make build/custom_aggregator && ./build/custom_aggregator [data_dir]
 *   data_dir: by default the data directory ($FGL_DATA, else ./data, else ~/.local/share/fgl)
 *
 * Coordinate-wise median instead of FedAvg's weighted mean (Yin et al. 2018):
 * robust to a minority of clients sending garbage. We extend the fedavg
 * table: its messages stay (each client uploads "theta", its shared
 * parameters, and "n", its sample count; the server sends its buffer
 * "global"), so the byte accounting, validation and checkpoints come with
 * them, and only the server's aggregation changes. The server hook sees the
 * round's accepted uploads (fgl_upload returns NULL for a client left out or
 * rejected) and its own state, nothing of the clients.
 *
 * A median needs every upload, which differential privacy and secure
 * aggregation hide from the server: under those a run of this rule is
 * refused at its start. A rule built on the defended mean instead (it takes
 * fgl_server_mean and transforms the result, as a server optimizer does)
 * declares `mean_only = 1` and runs under both.
 *
 * Registered by name, the rule also runs in fglrun (see fglrun.c's top
 * comment: a program that registers algorithms and calls fglrun_main).
 * Without data (no Cora under data_dir) it runs on fgl's synthetic graph.
 */
#define FGL_IMPLEMENTATION
#include "fgl_fed.h"
#include <stdio.h>
#include <stdlib.h>

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* global[j] = median over the accepted clients of their theta[j]. */
static int median_aggregate(fgl_server *s) {
    float *global = fgl_floats(&s->store, "global");
    float *col = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)s->n_clients); /* freed after the hook */
    size_t j;
    int i, n;
    if (!col) return FGL_ERR_NOMEM;
    if (s->n_accepted == 0) return FGL_OK; /* nothing accepted: keep the model */
    for (j = 0; j < s->n_shared; j++) {
        for (i = 0, n = 0; i < s->n_clients; i++)
            if (fgl_upload(s, i, "theta")) col[n++] = fgl_upload(s, i, "theta")[j];
        if (n == 0) return FGL_OK; /* no upload readable: keep the model */
        qsort(col, (size_t)n, sizeof(float), cmp_float);
        global[j] = n % 2 ? col[n / 2] : 0.5f * (col[n / 2 - 1] + col[n / 2]);
    }
    return FGL_OK;
}

int main(int argc, char **argv) {
    fgl_wait_choose(argv, "auto", 0); /* fgl.h: passive waiting on a busy machine (may restart the program once) */
    fgl_algo median = fgl_algo_base("fedavg"); /* FedAvg's table, extended */
    const char *dir = argc > 1 && *argv[1] ? argv[1] : NULL; /* NULL: the data directory (fgl_data_dir) */
    fgl_dataset data;
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_split_config split = fgl_split_default(); /* METIS, 5 clients, 20/40/40 per client */
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 1, 1);
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_error err;
    int a, r;
    median.name = "median";
    median.summary = "coordinate-wise median of the clients' parameters";
    median.aggregate = median_aggregate;
    if (fgl_algo_register(&median)) return 1;
    if (fgl_dataset_load(&data, dir, "Cora", FGL_TASK_NODE, NULL, 0, &err)) {
        printf("(%s; using the synthetic graph)\n", err.msg);
        if (fgl_dataset_load(&data, dir, "synthetic", FGL_TASK_NODE, NULL, 1, &err)) return 1;
    }
    if (fgl_scenario_make(&sc, &data, &split, &err)) {
        fprintf(stderr, "custom_aggregator: %s\n", err.msg);
        return 1;
    }
    if (fgl_scenario_clients(&sc, &spec, cd, 5, &err)) { /* a model spec per client */
        fprintf(stderr, "custom_aggregator: %s\n", err.msg);
        return 1;
    }
    cfg.rounds = 50;
    for (a = 0; a < 2; a++) {
        const char *name = a == 0 ? "fedavg" : "median";
        fgl_run run;
        fgl_run_summary s;
        if (fgl_run_init(&run, &cfg, fgl_algo_find(name), cd, 5, &err)) {
            fprintf(stderr, "custom_aggregator: %s\n", err.msg);
            return 1;
        }
        for (r = 0; r < cfg.rounds; r++)
            if (fgl_run_round(&run)) {
                fprintf(stderr, "custom_aggregator: %s\n", run.err.msg);
                return 1;
            }
        fgl_run_summarize(&run, &s);
        printf("%-7s %s, 5 METIS clients, %d rounds: mean client test accuracy %.2f%% (round %d, best validation)\n",
               name, data.label, cfg.rounds, 100 * s.best_test, s.best_round + 1);
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
    fgl_dataset_free(&data);
    return 0;
}
