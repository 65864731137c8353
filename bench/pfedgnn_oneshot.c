/* pfedgnn_oneshot.c - what pFedGNN's one-shot step costs: time, memory and
 * bytes, on a real dataset or on fgl's synthetic node data of N nodes.
 *
 *   make build/bench/pfedgnn_oneshot
 *   ./build/bench/pfedgnn_oneshot CS [clients] [anchors] [method] [algo]
 *   ./build/bench/pfedgnn_oneshot 1000000 10 32 0
 *
 * DATA is a dataset name under $FGL_DATA (split by METIS) or a node count N
 * (fgl_synth_node with 64 features, 10 communities, mean degree 8; a random
 * balanced split: the partitioner's time is not the one-shot's). One round
 * of the algorithm (default pfedgnn; "fedavg" for the runtime's own cost)
 * with no local training (0 local epochs) and evaluation after the
 * download, through the federated runtime, so the bytes are those it
 * counts: round 0 carries the anchor distances. Printed as one JSON line:
 * the clients' time (the distances), the server's (completion, kernel,
 * coarsening, mixing), the one-shot bytes, the process's peak resident
 * memory and its resident memory before the run (Linux /proc), the CPU
 * seconds of the run (wall times on a shared machine stretch), and then the
 * same steps one by one outside the runtime, in CPU seconds (DIRECT=0 skips
 * them; run with OMP_NUM_THREADS=1 so CPU seconds are compute seconds).
 * Run one configuration per process: the peak is per process.
 * pfedgnn's defaults otherwise (pair sums over every pair up to 50,000
 * nodes, 256 sampled nodes per client beyond). */
#define _POSIX_C_SOURCE 200809L
#define FGL_IMPLEMENTATION
#include "fgl_fed.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static double rss_mb(void) { /* current resident set, MB */
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, res = 0;
    if (!f) return -1;
    if (fscanf(f, "%ld %ld", &pages, &res) != 2) res = 0;
    fclose(f);
    return res * 4096.0 / 1e6;
}

static double cpu_s(void) { /* user + system time of the process */
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

static double peak_mb(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss / 1e3; /* KB on Linux */
}

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "Cora", *algo = argc > 5 ? argv[5] : "pfedgnn";
    int K = argc > 2 ? atoi(argv[2]) : 10, Ka = argc > 3 ? atoi(argv[3]) : 100, method = argc > 4 ? atoi(argv[4]) : 1;
    int direct = !getenv("DIRECT") || atoi(getenv("DIRECT")) != 0, synth = what[0] >= '0' && what[0] <= '9', i, N = 0;
    char buf[64];
    fgl_dataset ds;
    fgl_split_config split = fgl_split_default();
    fgl_scenario sc;
    fgl_client_data *cd;
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 1, 1);
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run run;
    fgl_error err;
    double t0, t_data, rss0, cpu0, once_up = 0;
    char rep[1024] = "";
    t0 = fgl_now();
    memset(&ds, 0, sizeof ds);
    if (synth) {
        fgl_synth_node_config sn = fgl_synth_node_default();
        sn.n_nodes = atoi(what);
        sn.n_feat = 64;
        ds.task = FGL_TASK_NODE;
        snprintf(ds.label, sizeof ds.label, "synthetic-%d", sn.n_nodes);
        if (fgl_synth_node(&sn, 1, &ds.node, NULL, &err)) {
            fprintf(stderr, "pfedgnn_oneshot: %s\n", err.msg);
            return 1;
        }
        split.how = FGL_PART_RANDOM;
    } else if (fgl_dataset_load(&ds, NULL, what, FGL_TASK_NODE, NULL, 0, &err)) {
        fprintf(stderr, "pfedgnn_oneshot: %s\n", err.msg);
        return 1;
    }
    split.clients = K;
    if (fgl_scenario_make(&sc, &ds, &split, &err)) {
        fprintf(stderr, "pfedgnn_oneshot: %s\n", err.msg);
        return 1;
    }
    t_data = fgl_now() - t0;
    spec.hidden = 16;
    spec.head = FGL_HEAD_NONE;
    cd = (fgl_client_data *)malloc(sizeof(fgl_client_data) * (size_t)K);
    if (fgl_scenario_clients(&sc, &spec, cd, K, &err)) {
        fprintf(stderr, "pfedgnn_oneshot: %s\n", err.msg);
        return 1;
    }
    for (i = 0; i < K; i++) N += sc.node[i].n_nodes;
    cfg.rounds = 1;
    cfg.local_epochs = 0;
    cfg.eval_after_train = 0;
    rss0 = rss_mb();
    cpu0 = cpu_s();
    if (fgl_run_init(&run, &cfg, fgl_algo_find(algo), cd, K, &err)) {
        fprintf(stderr, "pfedgnn_oneshot: %s\n", err.msg);
        return 1;
    }
    if (!strcmp(algo, "pfedgnn")) {
        snprintf(buf, sizeof buf, "%d", Ka);
        fgl_run_set(&run, "anchors", buf, &err);
        snprintf(buf, sizeof buf, "%d", method);
        fgl_run_set(&run, "method", buf, &err);
        fgl_run_set(&run, "anchor_nodes", "0", &err);
    }
    if (fgl_run_round(&run)) {
        fprintf(stderr, "pfedgnn_oneshot: %s\n", run.err.msg);
        return 1;
    }
    fgl_run_report(&run, rep, sizeof rep);
    for (i = 0; i < K; i++) once_up += 4.0 * sc.node[i].n_nodes * Ka;
    printf("{\"data\": \"%s\", \"nodes\": %d, \"feature_dim\": %d, \"clients\": %d, \"algo\": \"%s\", \"anchors_set\": %d, \"method\": %d, "
           "\"data_seconds\": %.2f, \"client_seconds\": %.3f, \"server_seconds\": %.3f, \"eval_seconds\": %.3f, "
           "\"bytes_up_round0\": %zu, \"distance_bytes\": %.0f, \"bytes_down_round0\": %zu, \"rss_before_mb\": %.1f, "
           "\"peak_rss_mb\": %.1f, \"cpu_seconds_run\": %.2f%s%s",
           ds.label, N, ds.node.n_feat, K, algo, Ka, method, t_data, run.stats[0].t_train, run.stats[0].t_server,
           run.stats[0].t_eval, run.stats[0].bytes_up, once_up, run.stats[0].bytes_down, rss0, peak_mb(), cpu_s() - cpu0, rep[0] ? ", " : "",
           rep);
    fgl_run_free(&run);
    if (direct && !strcmp(algo, "pfedgnn")) { /* the same steps one by one, random anchors as above */
        int d = ds.node.n_feat, r, *ptr = (int *)malloc(sizeof(int) * (size_t)(K + 1)), j, f, its = 0;
        float *a = (float *)malloc(sizeof(float) * (size_t)Ka * d), *z, *dist;
        double *d2 = (double *)malloc(sizeof(double) * (size_t)Ka * Ka), td = 0, te = 0, ts = 0, tc, *lc;
        fgl_anchor_frame fr;
        fgl_coarsen_config cc = fgl_coarsen_default();
        fgl_rng rg;
        fgl_rng_init(&rg, 1, 0x414e43484f52ull);
        for (i = 0; i < Ka * d; i++) a[i] = (float)(fgl_rng_normal(&rg) / sqrt((double)d));
        for (i = 0; i < Ka; i++)
            for (j = 0; j < Ka; j++) {
                double s = 0;
                for (f = 0; f < d; f++) s += ((double)a[i * d + f] - a[j * d + f]) * ((double)a[i * d + f] - a[j * d + f]);
                d2[i * Ka + j] = s;
            }
        t0 = cpu_s();
        fgl_anchor_frame_init(&fr, d2, Ka, 0, &err);
        r = fr.r;
        z = (float *)malloc(sizeof(float) * (size_t)N * r);
        ptr[0] = 0;
        for (i = 0; i < K; i++) {
            int n = sc.node[i].n_nodes;
            double t1;
            ptr[i + 1] = ptr[i] + n;
            dist = (float *)malloc(sizeof(float) * (size_t)n * Ka);
            t1 = cpu_s();
            fgl_anchor_sqdist(&sc.node[i], a, Ka, dist, &err);
            td += cpu_s() - t1;
            t1 = cpu_s();
            fgl_anchor_embed(&fr, dist, n, z + (size_t)ptr[i] * r);
            te += cpu_s() - t1;
            if (method == 1) {
                t1 = cpu_s();
                its += fgl_anchor_smacof(&fr, dist, NULL, n, 1000, 1e-3, z + (size_t)ptr[i] * r, NULL, NULL, &err);
                ts += cpu_s() - t1;
            }
            free(dist);
        }
        lc = (double *)malloc(sizeof(double) * (size_t)K * K);
        cc.sample = N <= 50000 ? 0 : 256;
        t0 = cpu_s();
        fgl_coarsen_clients(z, r, ptr, K, &cc, lc, &err);
        tc = cpu_s() - t0;
        printf(", \"direct\": {\"distances_s\": %.3f, \"landmark_s\": %.3f, \"smacof_s\": %.3f, \"smacof_iters_mean\": %.1f, "
               "\"coarsen_s\": %.3f, \"pair_sample\": %d}", td, te, ts, (double)its / K, tc, cc.sample);
        fgl_anchor_frame_free(&fr);
        free(a);
        free(d2);
        free(z);
        free(ptr);
        free(lc);
    }
    printf("}\n");
    free(cd);
    fgl_scenario_free(&sc);
    fgl_dataset_free(&ds);
    return 0;
}
