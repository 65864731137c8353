/* gpfl_network.c - does GPFL's client network follow the clients' label
 * distributions, and what does it become along the run?
 *
 *   make build/bench/gpfl_network && ./build/bench/gpfl_network [DATA] [clients] [alpha] [fold] [rounds] [key=value ...]
 *
 * Defaults: PROTEINS, 15 clients, alpha 0.5, fold 0 of 5, 200 rounds: GPFL's
 * protocol (docs/algorithms.md; soft Dirichlet split, GIN, Adam 1e-3). Extra
 * arguments set GPFL parameters (e.g. init=0). For three matrices
 *   A    the network the aggregation used (0/1 links, row-normalised),
 *   net  the auto-encoder's input A_t (property network, moving average
 *        with the functional-embedding similarity),
 *   soft the row-softmax of the auto-encoder's output S,
 * taken after round 1, after the last round, and averaged over all rounds
 * (the paper's Fig. 5 shows the average), we compute for every client i the
 * Spearman rank correlation across j != i between its row and the cosine
 * similarity of the two clients' class histograms (all their graphs), and
 * report the mean over clients (1: i weights the others exactly in the order
 * of label similarity; 0: unrelated; undefined rows, e.g. all links equal,
 * count 0), beside the same statistic against the label similarities of a
 * random permutation of the clients (a null). Also the links per client
 * (off-diagonal non-zeros of A) per round and the auto-encoder's loss.
 */
#define FGL_IMPLEMENTATION
#include "fgl_fed.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ranks (1..n, ties averaged) of x[0..n-1] */
static void ranks(const double *x, int n, double *r) {
    int i, j;
    for (i = 0; i < n; i++) {
        double less = 0, equal = 0;
        for (j = 0; j < n; j++) {
            less += x[j] < x[i];
            equal += x[j] == x[i];
        }
        r[i] = less + (equal + 1) / 2.0;
    }
}

static double pearson(const double *a, const double *b, int n) {
    double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
    int i;
    for (i = 0; i < n; i++) {
        ma += a[i];
        mb += b[i];
    }
    ma /= n;
    mb /= n;
    for (i = 0; i < n; i++) {
        sab += (a[i] - ma) * (b[i] - mb);
        saa += (a[i] - ma) * (a[i] - ma);
        sbb += (b[i] - mb) * (b[i] - mb);
    }
    return saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : 0;
}

/* mean over clients of Spearman(row i of m without i, label similarity);
 * perm != NULL: against the permuted clients' similarities */
static double spearman(const double *m, const double *lab, const int *perm, int K) {
    double rho = 0, *a = (double *)malloc(sizeof(double) * (size_t)K * 4), *l = a + K, *ra = l + K, *rl = ra + K;
    int i, j;
    for (i = 0; i < K; i++) {
        int n = 0;
        for (j = 0; j < K; j++) {
            if (j == i) continue;
            a[n] = m[i * K + j];
            l[n] = perm ? lab[perm[i] * K + perm[j]] : lab[i * K + j];
            n++;
        }
        ranks(a, n, ra);
        ranks(l, n, rl);
        rho += pearson(ra, rl, n);
    }
    free(a);
    return rho / K;
}

enum { M_A, M_NET, M_SOFT, M_N };

int main(int argc, char **argv) {
    static const char *mname[M_N] = {"A (aggregation)", "net (A_t)", "soft (softmax S)"}, *store[M_N] = {"A", "net", "soft"};
    const char *data = argc > 1 ? argv[1] : "PROTEINS";
    int K = argc > 2 ? atoi(argv[2]) : 15, fold = argc > 4 ? atoi(argv[4]) : 0, rounds = argc > 5 ? atoi(argv[5]) : 200;
    double alpha = argc > 3 ? atof(argv[3]) : 0.5;
    fgl_dataset ds;
    fgl_split_config split = fgl_split_default();
    fgl_scenario sc;
    fgl_model_spec gin = fgl_model_spec_default(FGL_ARCH_GIN, FGL_TASK_GRAPH, 1, 1);
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_GRAPH);
    fgl_client_data *cd = (fgl_client_data *)malloc(sizeof(fgl_client_data) * (size_t)K);
    fgl_run run;
    fgl_error err;
    double *hist, *lab, *first[M_N], *last[M_N], *avg[M_N], links = 0;
    int *perm = (int *)malloc(sizeof(int) * (size_t)K), C, i, j, c, r, q;
    fgl_rng rng;
    char rep[512];
    split.how = FGL_PART_DIRICHLET_EQUAL;
    split.clients = K;
    split.alpha = alpha;
    split.folds = 5;
    split.fold = fold;
    if (fgl_dataset_load(&ds, NULL, data, FGL_TASK_GRAPH, NULL, 0, &err) ||
        fgl_scenario_make(&sc, &ds, &split, &err)) {
        fprintf(stderr, "gpfl_network: %s\n", err.msg);
        return 1;
    }
    C = ds.sets[0].n_classes;
    if (fgl_scenario_clients(&sc, &gin, cd, K, &err)) {
        fprintf(stderr, "gpfl_network: %s\n", err.msg);
        return 1;
    }
    hist = (double *)calloc((size_t)K * (size_t)C, sizeof(double));
    lab = (double *)calloc((size_t)K * (size_t)K, sizeof(double));
    for (i = 0; i < K; i++)
        for (j = 0; j < sc.graphs[i].n_graphs; j++) hist[i * C + sc.graphs[i].y[j]] += 1;
    for (i = 0; i < K; i++)
        for (j = 0; j < K; j++) {
            double dot = 0, ni = 0, nj = 0;
            for (c = 0; c < C; c++) {
                dot += hist[i * C + c] * hist[j * C + c];
                ni += hist[i * C + c] * hist[i * C + c];
                nj += hist[j * C + c] * hist[j * C + c];
            }
            lab[i * K + j] = dot / sqrt(ni * nj);
        }
    fgl_rng_init(&rng, 99, 0);
    for (i = 0; i < K; i++) perm[i] = i;
    fgl_rng_shuffle(&rng, perm, K);
    for (q = 0; q < M_N; q++) {
        first[q] = (double *)calloc((size_t)K * K, sizeof(double));
        last[q] = (double *)calloc((size_t)K * K, sizeof(double));
        avg[q] = (double *)calloc((size_t)K * K, sizeof(double));
    }
    cfg.rounds = rounds;
    cfg.eval_every = rounds;
    if (fgl_run_init(&run, &cfg, fgl_algo_find("gpfl"), cd, K, &err)) {
        fprintf(stderr, "gpfl_network: %s\n", err.msg);
        return 1;
    }
    for (i = 6; i < argc; i++) {
        char key[64], *eq = strchr(argv[i], '=');
        if (!eq || eq - argv[i] >= 64) continue;
        memcpy(key, argv[i], (size_t)(eq - argv[i]));
        key[eq - argv[i]] = 0;
        if (fgl_run_set(&run, key, eq + 1, &err)) {
            fprintf(stderr, "gpfl_network: %s\n", err.msg);
            return 1;
        }
    }
    printf("round  links/client  gae_loss\n");
    for (r = 0; r < rounds; r++) {
        double l = 0;
        if (fgl_run_round(&run)) {
            fprintf(stderr, "gpfl_network: %s\n", run.err.msg);
            return 1;
        }
        for (q = 0; q < M_N; q++) {
            const float *m = fgl_floats(&run.server.store, store[q]);
            for (i = 0; i < K * K; i++) {
                if (r == 0) first[q][i] = m[i];
                last[q][i] = m[i];
                avg[q][i] += m[i] / rounds;
            }
        }
        for (i = 0; i < K; i++)
            for (j = 0; j < K; j++) l += i != j && last[M_A][i * K + j] > 0;
        links += l / K / rounds;
        if (r < 5 || (r + 1) % 20 == 0)
            printf("%5d  %12.2f  %8.5f\n", r + 1, l / K, (double)fgl_floats(&run.server.store, "last")[0]);
    }
    fgl_run_report(&run, rep, sizeof rep);
    printf("\n%s, %d clients, alpha %g, fold %d, %d rounds: mean test %.2f%%, %.2f links per client on average; %s\n", data, K,
           alpha, fold, rounds, 100 * run.stats[rounds - 1].test_acc, links, rep);
    printf("mean within-client Spearman(row of the network, label similarity), random-permutation null in brackets:\n");
    printf("%-18s %16s %16s %16s\n", "", "after round 1", "last round", "average");
    for (q = 0; q < M_N; q++)
        printf("%-18s %7.3f (%6.3f) %7.3f (%6.3f) %7.3f (%6.3f)\n", mname[q], spearman(first[q], lab, NULL, K),
               spearman(first[q], lab, perm, K), spearman(last[q], lab, NULL, K), spearman(last[q], lab, perm, K),
               spearman(avg[q], lab, NULL, K), spearman(avg[q], lab, perm, K));
    fgl_run_free(&run);
    for (q = 0; q < M_N; q++) {
        free(first[q]);
        free(last[q]);
        free(avg[q]);
    }
    free(hist);
    free(lab);
    free(perm);
    free(cd);
    fgl_scenario_free(&sc);
    fgl_dataset_free(&ds);
    return 0;
}
