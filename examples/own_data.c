/* examples/own_data.c - federated node classification on data you build
 * yourself: each of three clients (say, three hospitals) holds its own graph
 * as plain arrays (an edge list, a feature matrix, labels and which nodes
 * train, validate and test), turned into fgl_node_data and handed to the
 * runtime as fgl_client_data. No dataset file is read.
 *
 * Each client's graph here is made up so that the program runs anywhere:
 * 4 groups of 30 nodes (the class is the group), each node linked to the 4
 * next in its group and, rarely, to another group; features are the group's
 * one-hot code plus noise. Replace make_client's body with your loader: the
 * contract is the one fgl_node_data_validate checks (symmetric adjacency,
 * no self loops, labels in 0..n_classes-1 or -1, FGL_SPLIT_* codes).
 *
 *   make build/own_data && ./build/own_data
 */
#define FGL_IMPLEMENTATION
#include "../fgl_fed.h"
#include <stdio.h>
#include <stdlib.h>

enum { CLIENTS = 3, GROUPS = 4, PER_GROUP = 30, FEAT = 8 };

/* One client's graph from arrays: seed makes the three differ. */
static int make_client(fgl_node_data *d, uint64_t seed, fgl_error *err) {
    int n = GROUPS * PER_GROUP, i, k, e = 0, rc;
    int *src = (int *)malloc(sizeof(int) * (size_t)n * 10), *dst = (int *)malloc(sizeof(int) * (size_t)n * 10);
    fgl_rng r;
    fgl_rng_init(&r, seed, 0);
    fgl_node_data_init(d);
    snprintf(d->name, sizeof d->name, "hospital-%llu", (unsigned long long)seed);
    d->n_nodes = n;
    d->n_feat = FEAT;
    d->n_classes = GROUPS;
    d->y = (int *)malloc(sizeof(int) * (size_t)n);
    d->split = (unsigned char *)malloc((size_t)n);
    if (!src || !dst || !d->y || !d->split || fgl_tensor_init(&d->x, n, FEAT)) {
        free(src);
        free(dst);
        fgl_node_data_free(d);
        return fgl_error_set(err, FGL_ERR_NOMEM, "out of memory");
    }
    for (i = 0; i < n; i++) {
        int g = i / PER_GROUP, j;
        d->y[i] = g;
        /* 40% of each client's nodes train, 20% validate, 40% test */
        d->split[i] = i % 5 < 2 ? FGL_SPLIT_TRAIN : i % 5 == 2 ? FGL_SPLIT_VAL : FGL_SPLIT_TEST;
        for (k = 0; k < FEAT; k++) /* the group's code in features g and g + 4, plus noise */
            d->x.data[(size_t)i * FEAT + k] = (float)((k % GROUPS == g ? 1.0 : 0.0) + 1.5 * fgl_rng_normal(&r));
        for (k = 1; k <= 2; k++) { /* the next two in its group, both ways */
            j = g * PER_GROUP + (i % PER_GROUP + k) % PER_GROUP;
            src[e] = i, dst[e++] = j;
            src[e] = j, dst[e++] = i;
        }
        if (fgl_rng_uniform(&r) < 0.3) { /* now and then, a node of another group */
            j = (int)(fgl_rng_uniform(&r) * n) % n;
            if (j != i) {
                src[e] = i, dst[e++] = j;
                src[e] = j, dst[e++] = i;
            }
        }
    }
    /* duplicates collapse to one edge; fgl_node_data_validate checks the rest */
    rc = fgl_csr_from_coo(n, n, e, src, dst, NULL, 0, &d->adj, err);
    free(src);
    free(dst);
    if (!rc) rc = fgl_node_data_validate(d, err);
    if (rc) fgl_node_data_free(d);
    return rc;
}

int main(int argc, char **argv) {
    fgl_node_data data[CLIENTS];
    fgl_client_data clients[CLIENTS];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run run;
    fgl_run_summary s;
    fgl_error err;
    int i, r, made = 0;
    (void)argc;
    fgl_wait_choose(argv, "auto", 0); /* fgl.h: passive waiting on a busy machine (may restart the program once) */
    for (i = 0; i < CLIENTS; i++, made++) {
        if (make_client(&data[i], 100 + (uint64_t)i, &err)) {
            fprintf(stderr, "client %d: %s\n", i, err.msg);
            goto fail;
        }
        clients[i].node = &data[i]; /* borrowed: it must outlive the run */
        clients[i].graphs = NULL;
        clients[i].link = NULL;
        clients[i].spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, FEAT, GROUPS);
        clients[i].spec.hidden = 32;
    }
    cfg.rounds = 30;
    if (fgl_run_init(&run, &cfg, fgl_algo_find("fedavg"), clients, CLIENTS, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        goto fail;
    }
    for (r = 0; r < cfg.rounds; r++)
        if (fgl_run_round(&run)) {
            fprintf(stderr, "%s\n", run.err.msg);
            fgl_run_free(&run);
            goto fail;
        }
    fgl_run_summarize(&run, &s);
    printf("FedAvg over %d clients' own graphs: %.2f%% mean client test accuracy (round %d of best validation)\n",
           CLIENTS, 100 * s.best_test, s.best_round + 1);
    fgl_run_free(&run);
    for (i = 0; i < made; i++) fgl_node_data_free(&data[i]);
    return 0;
fail:
    for (i = 0; i < made; i++) fgl_node_data_free(&data[i]);
    return 1;
}
