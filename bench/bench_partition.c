/* bench_partition.c - the multilevel k-way partitioner at scale and on Cora.
 *
 *   make bench && ./build/bench/bench_partition [n_nodes]   (Cora from the data directory: fgl_data_dir)
 *
 * 1. A stochastic block model of n_nodes (default 1,000,000) in 100 equal
 *    blocks, expected degree 8 inside the block and 2 across (average degree
 *    about 10), split into 100 parts: generation time, partitioning time,
 *    edge cut, the planted cut (the blocks themselves) and the cut of a
 *    random balanced partition for scale, and the largest part.
 * 2. Cora (from $FGL_DATA/node/Cora) into 5, 10 and 20 parts over 5 seeds:
 *    mean / worst cut and time, against METIS 5.1's gpmetis (379 / 594 / 806).
 * 3. Louvain on Cora: modularity and time.
 */
#define FGL_IMPLEMENTATION
#include "../fgl_graph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int max_part(const int *part, int n, int k) {
    int *pw = (int *)calloc((size_t)k, sizeof(int)), i, mx = 0;
    for (i = 0; i < n; i++) pw[part[i]]++;
    for (i = 0; i < k; i++)
        if (pw[i] > mx) mx = pw[i];
    free(pw);
    return mx;
}

static int bench_sbm(int n) {
    enum { B = 100 };
    int sizes[B], *block, *part, i, rc;
    double *P = (double *)malloc(sizeof(double) * B * B), t0, t_gen, t_part;
    fgl_csr A;
    fgl_error err;
    for (i = 0; i < B; i++) sizes[i] = n / B + (i < n % B);
    for (i = 0; i < B * B; i++) {
        int a = i / B, b = i % B;
        P[i] = a == b ? 8.0 / (sizes[a] - 1) : 2.0 / ((double)n - sizes[a]);
    }
    block = (int *)malloc(sizeof(int) * (size_t)n);
    part = (int *)malloc(sizeof(int) * (size_t)n);
    t0 = fgl_now();
    rc = fgl_gen_sbm(B, sizes, P, 1, &A, block, &err);
    t_gen = fgl_now() - t0;
    if (rc) {
        printf("sbm: %s\n", err.msg);
        return 1;
    }
    printf("SBM: %d nodes, %d edges, %d blocks (generated in %.2f s)\n", n, A.nnz / 2, B, t_gen);
    t0 = fgl_now();
    rc = fgl_partition_metis(&A, 100, 1, part, &err);
    t_part = fgl_now() - t0;
    if (rc) {
        printf("partition: %s\n", err.msg);
        return 1;
    }
    printf("  fgl_partition_metis k=100: %.2f s, edge cut %ld (%.2f%% of edges), largest part %d (limit %d)\n",
           t_part, fgl_edge_cut(&A, part), 100.0 * fgl_edge_cut(&A, part) / (A.nnz / 2),
           max_part(part, n, 100), (int)ceil(1.05 * n / 100));
    printf("  planted blocks: edge cut %ld\n", fgl_edge_cut(&A, block));
    fgl_partition_random(n, 100, 1, part, &err);
    printf("  random balanced partition: edge cut %ld\n", fgl_edge_cut(&A, part));
    fgl_csr_free(&A);
    free(P);
    free(block);
    free(part);
    return 0;
}

static int bench_cora(void) {
    char dir[1100], root[1024];
    fgl_node_data d;
    fgl_error err;
    int ks[3] = {5, 10, 20}, metis[3] = {379, 594, 806}, q, s, *part, nc;
    double t0;
    fgl_data_dir(root, sizeof root, NULL); /* $FGL_DATA, else ./data, else $XDG_DATA_HOME/fgl */
    snprintf(dir, sizeof dir, "%s/node/Cora", root);
    if (fgl_load_node(dir, "Cora", &d, &err)) {
        printf("Cora: skipped (%s)\n", err.msg);
        return 0;
    }
    part = (int *)malloc(sizeof(int) * (size_t)d.n_nodes);
    printf("Cora: %d nodes, %d edges\n", d.n_nodes, d.adj.nnz / 2);
    for (q = 0; q < 3; q++) {
        long worst = 0, sum = 0;
        int mx = 0;
        t0 = fgl_now();
        for (s = 1; s <= 5; s++) {
            long c;
            fgl_partition_metis(&d.adj, ks[q], (uint64_t)s, part, &err);
            c = fgl_edge_cut(&d.adj, part);
            sum += c;
            if (c > worst) worst = c;
            if (max_part(part, d.n_nodes, ks[q]) > mx) mx = max_part(part, d.n_nodes, ks[q]);
        }
        printf("  k=%2d: cut mean %.1f worst %ld (gpmetis %d: x%.3f / x%.3f), largest part %d (limit %d), %.1f ms\n",
               ks[q], sum / 5.0, worst, metis[q], sum / 5.0 / metis[q], (double)worst / metis[q], mx,
               (int)ceil(1.05 * d.n_nodes / ks[q]), (fgl_now() - t0) / 5 * 1e3);
    }
    t0 = fgl_now();
    fgl_louvain(&d.adj, 1, part, &nc, &err);
    printf("  louvain: %d communities, modularity %.4f, %.1f ms\n", nc, fgl_modularity(&d.adj, part),
           (fgl_now() - t0) * 1e3);
    free(part);
    fgl_node_data_free(&d);
    return 0;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000000;
    if (bench_sbm(n)) return 1;
    return bench_cora();
}
