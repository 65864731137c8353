/* seeds.c - writes the seed corpora of the fuzz harnesses (tests/fuzz) from
 * small excerpts of the real datasets, through fgl's own writers where it
 * has them:
 *   seeds DATA_DIR OUT_DIR  ->  OUT_DIR/{tu,node,linqs,csv,model,params,checkpoint}/...
 * Each seed is the files of one dataset joined by NUL bytes in the order
 * its harness expects (see fuzz.h). The excerpts are made at run time, so
 * no data file is copied into the repository. */
#define _POSIX_C_SOURCE 200809L
#define FGL_IMPLEMENTATION
#include "../../fgl_fed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char out_dir[512];

static int append_file(fgl_bytes *b, const char *path, int nul_before) {
    unsigned char *data;
    size_t len;
    if (fgl_file_read(path, &data, &len, NULL)) return 0;
    if (nul_before) fgl_bytes_put(b, "", 1);
    fgl_bytes_put(b, data, len);
    free(data);
    return 1;
}

static void save_seed(const char *kind, const char *name, const fgl_bytes *b) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", out_dir, kind);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%s/%s", out_dir, kind, name);
    if (b->err || fgl_file_write(path, b->data, b->len, NULL)) fprintf(stderr, "seeds: cannot write %s\n", path);
}

/* The first n_graphs graphs of a TU dataset, written back in the TU layout. */
static void seed_tu(const char *data, const char *name, int n_graphs, const char *tmp) {
    static const char *suffix[5] = {"_graph_indicator.txt", "_graph_labels.txt", "_A.txt", "_node_labels.txt",
                                    "_node_attributes.txt"};
    char path[1024];
    fgl_graph_set s, sub;
    fgl_bytes b;
    int ids[8], i;
    snprintf(path, sizeof path, "%s/tu/%s", data, name);
    if (fgl_load_tu(path, name, &s, NULL)) return;
    for (i = 0; i < n_graphs && i < 8; i++) ids[i] = i;
    if (fgl_graph_set_subset(&s, ids, i, &sub, NULL) == FGL_OK && fgl_save_tu(&sub, tmp, "S", NULL) == FGL_OK) {
        fgl_bytes_init(&b);
        for (i = 0; i < 5; i++) { /* the optional files end the seed where they stop */
            snprintf(path, sizeof path, "%s/S%s", tmp, suffix[i]);
            if (!append_file(&b, path, i > 0)) break;
            remove(path);
        }
        save_seed("tu", name, &b);
        fgl_bytes_free(&b);
        fgl_graph_set_free(&sub);
    }
    fgl_graph_set_free(&s);
}

/* Breadth-first ball of n nodes around node 0 of d (connected, so the seed
 * has edges). */
static int ball(const fgl_node_data *d, int n, int *nodes) {
    int *seen = (int *)calloc((size_t)d->n_nodes, sizeof(int)), head = 0, cnt = 1, k;
    nodes[0] = 0;
    seen[0] = 1;
    while (head < cnt && cnt < n) {
        int v = nodes[head++];
        for (k = d->adj.indptr[v]; k < d->adj.indptr[v + 1] && cnt < n; k++)
            if (!seen[d->adj.indices[k]]) {
                seen[d->adj.indices[k]] = 1;
                nodes[cnt++] = d->adj.indices[k];
            }
    }
    free(seen);
    return cnt;
}

/* A small connected piece of a node dataset in the node layout; for Cora
 * also in the LINQS and CSV layouts (written here: fgl has no writer). */
static void seed_node(const char *data, const char *name, int n, const char *tmp) {
    static const char *suffix[4] = {".features", ".labels", ".edges", ".split"};
    char path[1024];
    fgl_node_data d, sub;
    fgl_bytes b;
    int nodes[64], cnt, i, j, k;
    snprintf(path, sizeof path, "%s/node/%s", data, name);
    if (fgl_load_node(path, name, &d, NULL)) return;
    cnt = ball(&d, n, nodes);
    if (fgl_node_data_subgraph(&d, nodes, cnt, &sub, NULL) == FGL_OK && fgl_save_node(&sub, tmp, "S", NULL) == FGL_OK) {
        fgl_bytes_init(&b);
        for (i = 0; i < 4; i++) {
            snprintf(path, sizeof path, "%s/S%s", tmp, suffix[i]);
            if (!append_file(&b, path, i > 0)) break;
            remove(path);
        }
        save_seed("node", name, &b);
        fgl_bytes_free(&b);
        if (strcmp(name, "Cora") == 0) {
            fgl_bytes l, c;
            char num[64];
            fgl_node_data_densify(&sub);
            fgl_bytes_init(&l);
            fgl_bytes_init(&c);
            for (i = 0; i < sub.n_nodes; i++) {
                snprintf(num, sizeof num, "p%d", nodes[i]);
                fgl_bytes_put(&l, num, strlen(num));
                for (j = 0; j < 48 && j < sub.n_feat; j++) /* 48 columns keep the seed small */
                    fgl_bytes_put(&l, FGL_AT(&sub.x, i, j) != 0 ? "\t1" : "\t0", 2);
                snprintf(num, sizeof num, "\tclass_%d\n", sub.y[i]);
                fgl_bytes_put(&l, num, strlen(num));
            }
            fgl_bytes_put(&l, "", 1);
            /* CSV: edges, then features (the first 16 columns), then labels */
            for (i = 0; i < sub.n_nodes; i++)
                for (k = sub.adj.indptr[i]; k < sub.adj.indptr[i + 1]; k++) {
                    snprintf(num, sizeof num, "p%d p%d\n", nodes[sub.adj.indices[k]], nodes[i]);
                    if (sub.adj.indices[k] > i) fgl_bytes_put(&l, num, strlen(num));
                    snprintf(num, sizeof num, "%d,%d\n", i, sub.adj.indices[k]);
                    fgl_bytes_put(&c, num, strlen(num));
                }
            fgl_bytes_put(&c, "", 1);
            for (i = 0; i < sub.n_nodes; i++)
                for (j = 0; j < 16; j++) {
                    snprintf(num, sizeof num, j < 15 ? "%g," : "%g\n", (double)FGL_AT(&sub.x, i, j) * 0.5 - 0.25);
                    fgl_bytes_put(&c, num, strlen(num));
                }
            fgl_bytes_put(&c, "", 1);
            for (i = 0; i < sub.n_nodes; i++) {
                snprintf(num, sizeof num, "%d\n", i % 5 == 4 ? -1 : sub.y[i]);
                fgl_bytes_put(&c, num, strlen(num));
            }
            save_seed("linqs", name, &l);
            save_seed("csv", name, &c);
            fgl_bytes_free(&l);
            fgl_bytes_free(&c);
        }
        fgl_node_data_free(&sub);
    }
    fgl_node_data_free(&d);
}

/* Small models of every architecture, as payloads (fuzz_model frames them). */
static void seed_models(void) {
    int arch;
    for (arch = 0; arch < FGL_ARCH_COUNT; arch++) {
        int task;
        for (task = 0; task < 2; task++) {
            fgl_model_spec s = fgl_model_spec_default(arch, task, 5, 3);
            fgl_model m;
            fgl_bytes b;
            char name[64];
            if (arch == FGL_ARCH_FEDSTAR && task == FGL_TASK_NODE) continue;
            s.hidden = 4;
            s.layers = 2;
            s.heads = 2;
            s.pe_dim = arch == FGL_ARCH_FEDSTAR ? 3 : 0;
            s.batch_norm = arch == FGL_ARCH_GIN;
            s.masked = arch == FGL_ARCH_GCN;
            if (fgl_model_init(&m, &s, 1, NULL)) continue;
            fgl_bytes_init(&b);
            fgl_model_write(&m, &b);
            snprintf(name, sizeof name, "%s_%s", fgl_arch_name(arch), task ? "graph" : "node");
            save_seed("model", name, &b);
            fgl_bytes_free(&b);
            fgl_model_free(&m);
        }
    }
}

/* Parameter payloads (fuzz_params frames them): a model's parameters. */
static void seed_params(void) {
    fgl_model_spec s = fgl_model_spec_default(FGL_ARCH_GIN, FGL_TASK_GRAPH, 5, 3);
    fgl_model m;
    fgl_bytes b;
    s.hidden = 4;
    s.batch_norm = 1;
    if (fgl_model_init(&m, &s, 1, NULL)) return;
    fgl_bytes_init(&b);
    fgl_params_write(&m.params, &b);
    save_seed("params", "gin", &b);
    fgl_bytes_free(&b);
    fgl_model_free(&m);
}

/* Checkpoint payloads of every algorithm after one round of the run
 * fuzz_checkpoint sets up: the algorithm's index byte, then the payload. */
static void seed_checkpoints(const char *tmp) {
    fgl_synth_node_config c = fgl_synth_node_default();
    fgl_split_config s = fgl_split_default();
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 1, 1);
    fgl_dataset d;
    fgl_scenario sc;
    fgl_client_data cd[3];
    char path[1024];
    int a;
    memset(&d, 0, sizeof d);
    c.n_nodes = 90;
    c.n_communities = 3;
    c.n_feat = 6;
    d.task = FGL_TASK_NODE;
    if (fgl_synth_node(&c, 1, &d.node, NULL, NULL)) return;
    s.clients = 3;
    s.how = FGL_PART_RANDOM;
    if (fgl_scenario_make(&sc, &d, &s, NULL)) return;
    spec.hidden = 4;
    if (fgl_scenario_clients(&sc, &spec, cd, 3, NULL)) return;
    snprintf(path, sizeof path, "%s/ckpt", tmp);
    for (a = 0; a < fgl_algo_count(); a++) {
        fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
        fgl_run run;
        unsigned char *data, idx = (unsigned char)a;
        size_t len;
        cfg.rounds = 3;
        cfg.threads = 1;
        if (fgl_run_init(&run, &cfg, fgl_algo_at(a), cd, 3, NULL)) continue;
        if (!fgl_run_round(&run) && !fgl_run_save(&run, path, NULL) && !fgl_file_read(path, &data, &len, NULL)) {
            fgl_bytes b;
            fgl_bytes_init(&b);
            fgl_bytes_put(&b, &idx, 1);
            if (len > 24) fgl_bytes_put(&b, data + 16, len - 24); /* the payload, without the frame */
            save_seed("checkpoint", fgl_algo_at(a)->name, &b);
            fgl_bytes_free(&b);
            free(data);
        }
        fgl_run_free(&run);
    }
    remove(path);
    fgl_scenario_free(&sc);
    fgl_dataset_free(&d);
}

int main(int argc, char **argv) {
    char tmp[1024];
    if (argc != 3) {
        fprintf(stderr, "usage: seeds DATA_DIR OUT_DIR\n");
        return 2;
    }
    snprintf(out_dir, sizeof out_dir, "%s", argv[2]);
    mkdir(out_dir, 0755);
    snprintf(tmp, sizeof tmp, "%s/tmp", out_dir);
    mkdir(tmp, 0755);
    seed_tu(argv[1], "MUTAG", 3, tmp);
    seed_tu(argv[1], "PROTEINS", 2, tmp);
    seed_tu(argv[1], "BZR", 2, tmp);
    seed_tu(argv[1], "IMDB-BINARY", 2, tmp);
    seed_node(argv[1], "Cora", 24, tmp);
    seed_node(argv[1], "CS", 12, tmp);
    seed_node(argv[1], "Computers", 6, tmp);
    seed_models();
    seed_params();
    seed_checkpoints(tmp);
    rmdir(tmp);
    return 0;
}
