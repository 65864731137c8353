/* bench_load.c - how long the dataset loaders take.
 *
 *   make bench && ./build/bench/bench_load [runs]     (data: $FGL_DATA, else ./data, else $XDG_DATA_HOME/fgl)
 *
 * Loads every TU and node dataset of $FGL_DATA `runs` times (default 7) and
 * prints, per dataset, the bytes of its files, the best and median wall time
 * of the whole load (read + parse + CSR), and the best time of reading the
 * same files with fgl_file_read alone (the part of the load that is I/O and
 * buffer growth rather than parsing). NCI1 and Computers are the two the
 * issue asks about; the others are there for scale.
 */
#define FGL_IMPLEMENTATION
#include "../fgl_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Total bytes and best read time of the files of a dataset. */
static void read_only(const char *dir, const char *name, const char *const *suffixes, int runs,
                      double *bytes, double *best) {
    int r, i;
    *best = 1e30;
    *bytes = 0;
    for (r = 0; r < runs; r++) {
        double t0 = fgl_now(), total = 0;
        for (i = 0; suffixes[i]; i++) {
            char path[2048];
            unsigned char *data;
            size_t len;
            snprintf(path, sizeof path, "%s/%s%s", dir, name, suffixes[i]);
            if (fgl_file_read(path, &data, &len, NULL) == FGL_OK) {
                total += (double)len;
                free(data);
            }
        }
        t0 = fgl_now() - t0;
        if (t0 < *best) *best = t0;
        *bytes = total;
    }
}

int main(int argc, char **argv) {
    static const char *tu[] = {"MUTAG", "PTC_MR", "BZR", "COX2", "DHFR", "AIDS", "NCI1", "PROTEINS", "IMDB-BINARY"};
    static const char *node[] = {"Cora", "Computers", "CS"};
    static const char *tu_files[] = {"_A.txt", "_graph_indicator.txt", "_graph_labels.txt", "_node_labels.txt",
                                     "_node_attributes.txt", NULL};
    static const char *node_files[] = {".edges", ".labels", ".features", ".split", NULL};
    char data[1024];
    int runs = argc > 1 ? atoi(argv[1]) : 7, i, r;
    double *t;
    fgl_data_dir(data, sizeof data, NULL); /* $FGL_DATA, else ./data, else $XDG_DATA_HOME/fgl */
    if (runs < 1) runs = 1;
    t = (double *)malloc(sizeof(double) * (size_t)runs);
    printf("data: %s, best and median of %d runs\n\n", data, runs);
    printf("| dataset | files (MB) | nodes | edges | load best (ms) | load median (ms) | read only (ms) | MB/s |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (i = 0; i < 9 + 3; i++) {
        char dir[1100];
        const char *name = i < 9 ? tu[i] : node[i - 9];
        int nodes = 0, edges = 0, failed = 0;
        double bytes, rd;
        snprintf(dir, sizeof dir, "%s/%s/%s", data, i < 9 ? "tu" : "node", name);
        for (r = 0; r < runs && !failed; r++) {
            fgl_error e;
            double t0 = fgl_now();
            if (i < 9) {
                fgl_graph_set s;
                failed = fgl_load_tu(dir, name, &s, &e) != FGL_OK;
                t[r] = fgl_now() - t0;
                nodes = s.n_nodes;
                edges = fgl_graph_num_edges(&s.adj);
                fgl_graph_set_free(&s);
            } else {
                fgl_node_data d;
                failed = fgl_load_node(dir, name, &d, &e) != FGL_OK;
                t[r] = fgl_now() - t0;
                nodes = d.n_nodes;
                edges = fgl_graph_num_edges(&d.adj);
                fgl_node_data_free(&d);
            }
            if (failed) printf("| %s | cannot load: %s |\n", name, e.msg);
        }
        if (failed) continue;
        qsort(t, (size_t)runs, sizeof(double), cmp_double);
        read_only(dir, name, i < 9 ? tu_files : node_files, runs, &bytes, &rd);
        printf("| %s | %.1f | %d | %d | %.1f | %.1f | %.1f | %.0f |\n", name, bytes / 1e6, nodes, edges, 1e3 * t[0],
               1e3 * t[runs / 2], 1e3 * rd, bytes / 1e6 / t[0]);
    }
    free(t);
    return 0;
}
