/* pfedgnn_majority.c - what the pFedGNN authors' personalised metric gives a
 * model that learns nothing: each client predicts the majority class of its
 * training nodes. On the split of fglrun --protocol pfedgnn-authors (label
 * Dirichlet 0.5 over 10 clients, 100 public nodes withheld, each client's
 * first 20% of nodes for test, the rest for training), for split seeds
 * 1234 (fglrun's default) and 1..S: the mean over clients of plain accuracy
 * and of the personalised accuracy sum_c p_c correct_c / sum_c p_c total_c
 * (p: the client's training label shares).
 *
 *   make build/bench/pfedgnn_majority
 *   FGL_DATA=... ./build/bench/pfedgnn_majority [data] [S]     # default Cora 5
 *
 * One JSON line per split seed. */
#define FGL_IMPLEMENTATION
#include "fgl_fed.h"
#include <stdio.h>
#include <stdlib.h>

static int one(const fgl_dataset *ds, uint64_t seed) {
    fgl_split_config c = fgl_split_default();
    fgl_scenario sc;
    fgl_error err;
    int i, j, C = ds->node.n_classes, K;
    double plain = 0, pers = 0;
    c.how = FGL_PART_DIRICHLET;
    c.alpha = 0.5;
    c.clients = 10;
    c.public_nodes = 100;
    c.train = 0.8;
    c.val = 0;
    c.test_first = 1;
    c.seed = seed;
    if (fgl_scenario_make(&sc, ds, &c, &err)) {
        fprintf(stderr, "pfedgnn_majority: %s\n", err.msg);
        return 1;
    }
    K = sc.n_clients;
    for (i = 0; i < K; i++) {
        const fgl_node_data *d = &sc.node[i];
        double *p = (double *)calloc((size_t)C, sizeof(double)), num = 0, den = 0, tot = 0;
        int *cnt = (int *)calloc((size_t)C, sizeof(int)), maj = 0, n_test = 0;
        if (!p || !cnt) return 1;
        for (j = 0; j < d->n_nodes; j++) {
            if (d->y[j] < 0) continue;
            if (d->split[j] == FGL_SPLIT_TRAIN) p[d->y[j]] += 1, tot += 1;
            if (d->split[j] == FGL_SPLIT_TEST) cnt[d->y[j]]++, n_test++;
        }
        for (j = 1; j < C; j++)
            if (p[j] > p[maj]) maj = j;
        for (j = 0; j < C; j++) {
            p[j] /= tot > 0 ? tot : 1;
            num += j == maj ? p[j] * cnt[j] : 0;
            den += p[j] * cnt[j];
        }
        plain += (n_test ? (double)cnt[maj] / n_test : 0) / K;
        pers += (den > 0 ? num / den : 0) / K;
        free(p);
        free(cnt);
    }
    printf("{\"data\": \"%s\", \"split_seed\": %llu, \"clients\": %d, \"majority_plain\": %.4f, "
           "\"majority_personalized\": %.4f}\n", ds->label, (unsigned long long)seed, K, plain, pers);
    fgl_scenario_free(&sc);
    return 0;
}

int main(int argc, char **argv) {
    const char *name = argc > 1 ? argv[1] : "Cora";
    int S = argc > 2 ? atoi(argv[2]) : 5, s;
    fgl_dataset ds;
    fgl_dataset_config opt = fgl_dataset_default();
    fgl_error err;
    opt.raw_features = 1;
    if (fgl_dataset_load(&ds, NULL, name, FGL_TASK_NODE, &opt, 0, &err)) {
        fprintf(stderr, "pfedgnn_majority: %s\n", err.msg);
        return 1;
    }
    if (one(&ds, 1234)) return 1;
    for (s = 1; s <= S; s++)
        if (one(&ds, (uint64_t)s)) return 1;
    fgl_dataset_free(&ds);
    return 0;
}
