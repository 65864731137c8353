/* halves.c - the two halves of one sparse product, run alone, in two
 * processes at once and in two threads of one process at once.
 *
 *   make build/bench/halves && ./build/bench/halves      # FGL_DATA; ROUNDS=5
 *
 * The product is a GIN layer's neighbour sum on one PROTEINS batch (128
 * graphs, 64 columns, the adjacency with self-loops), its rows cut in two
 * at the middle of the work. Each half gets its own copy of the matrix and
 * of x and y, made before anything is timed, and runs fgl_csr_spmm on its
 * rows for 2 seconds on one thread (microseconds per call). Per round:
 * half 0 alone, half 1 alone, both in two processes (fork) at once, both
 * in two threads (pthreads) at once; the rounds run one after the other,
 * so that a drift of the machine shows as a difference between rounds, not
 * between ways of running. If the two threads are slower than the two
 * processes, something shared within one process costs; if both are, the
 * cores (or the machine under them) are what the halves share.
 *
 * Not part of the library: a measuring tool for BENCHMARKS.md. Needs POSIX
 * (fork, pipes, pthreads).
 */
#define _POSIX_C_SOURCE 200809L
#include "fgl_gnn.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define COLS 64
#define SECONDS 2.0

typedef struct half {
    fgl_csr a;  /* a view of the rows of this half (indptr offset), over a private copy */
    float *x, *y;
    double us;  /* result: microseconds per call */
} half;

static void *run_half(void *p) {
    half *h = (half *)p;
    double t0, end;
    long calls = 0;
#ifdef _OPENMP
    omp_set_num_threads(1); /* one thread per half, in a process or a thread alike */
#endif
    t0 = fgl_now();
    end = t0 + SECONDS;
    do {
        fgl_csr_spmm(&h->a, h->x, COLS, 0.0f, h->y);
        calls++;
    } while (fgl_now() < end);
    h->us = (fgl_now() - t0) / (double)calls * 1e6;
    return NULL;
}

/* The halves in two child processes at once; their times through pipes. */
static int run_procs(half *h) {
    int k, fd[2][2];
    pid_t pid[2];
    for (k = 0; k < 2; k++) {
        if (pipe(fd[k])) return -1;
        pid[k] = fork();
        if (pid[k] < 0) return -1;
        if (pid[k] == 0) {
            run_half(&h[k]);
            if (write(fd[k][1], &h[k].us, sizeof h[k].us) != (ssize_t)sizeof h[k].us) _exit(1);
            _exit(0);
        }
        close(fd[k][1]);
    }
    for (k = 0; k < 2; k++) {
        if (read(fd[k][0], &h[k].us, sizeof h[k].us) != (ssize_t)sizeof h[k].us) return -1;
        close(fd[k][0]);
        waitpid(pid[k], NULL, 0);
    }
    return 0;
}

static int run_threads(half *h) {
    pthread_t th[2];
    int k;
    for (k = 0; k < 2; k++)
        if (pthread_create(&th[k], NULL, run_half, &h[k])) return -1;
    for (k = 0; k < 2; k++) pthread_join(th[k], NULL);
    return 0;
}

int main(void) {
    char root[1024]; /* the data directory: $FGL_DATA, else ./data, else $XDG_DATA_HOME/fgl */
    const char *env_rounds = getenv("ROUNDS");
    int rounds = env_rounds ? atoi(env_rounds) : 5, r, i, k, mid, ids[128];
    char dir[1100];
    fgl_error err;
    fgl_graph_set prot;
    fgl_model_spec s;
    fgl_batch b;
    fgl_gnn_graph g;
    const fgl_csr *A;
    half h[2];
    fgl_graph_set_init(&prot);
    fgl_data_dir(root, sizeof root, NULL);
    snprintf(dir, sizeof dir, "%s/tu/PROTEINS", root);
    if (fgl_load_tu(dir, "PROTEINS", &prot, &err) || fgl_graph_set_features(&prot, FGL_FEAT_NODE_LABELS, 0, &err)) {
        fprintf(stderr, "halves: %s\n", err.msg);
        return 1;
    }
    for (i = 0; i < 128; i++) ids[i] = i * 7 % prot.n_graphs;
    s = fgl_model_spec_default(FGL_ARCH_GIN, FGL_TASK_GRAPH, prot.n_feat, prot.n_classes);
    fgl_batch_init(&b);
    if (fgl_batch_make(&prot, ids, 128, &b, &err) || fgl_gnn_graph_from_batch(&g, &b, &s, &err)) {
        fprintf(stderr, "halves: %s\n", err.msg);
        return 1;
    }
    A = &g.adj_loop;
    for (mid = 0; mid < A->rows && 2 * ((double)A->indptr[mid] + mid) < (double)A->nnz + A->rows; mid++) {
    }
    for (k = 0; k < 2; k++) { /* private copies of everything a half reads and writes */
        int r0 = k ? mid : 0, r1 = k ? A->rows : mid;
        size_t nx = (size_t)A->cols * COLS;
        int *indptr = (int *)malloc(sizeof(int) * (size_t)(A->rows + 1)), *indices = (int *)malloc(sizeof(int) * (size_t)A->nnz);
        h[k].x = (float *)malloc(sizeof(float) * nx);
        h[k].y = (float *)calloc((size_t)(r1 - r0) * COLS, sizeof(float));
        if (!indptr || !indices || !h[k].x || !h[k].y) {
            fprintf(stderr, "halves: out of memory\n");
            return 1;
        }
        memcpy(indptr, A->indptr, sizeof(int) * (size_t)(A->rows + 1));
        memcpy(indices, A->indices, sizeof(int) * (size_t)A->nnz);
        for (i = 0; i < (int)nx; i++) h[k].x[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
        h[k].a.rows = r1 - r0;
        h[k].a.cols = A->cols;
        h[k].a.nnz = indptr[r1]; /* positions in indices go up to there (the prefetch's bound) */
        h[k].a.indptr = indptr + r0; /* absolute offsets into indices: a view of rows r0 .. r1-1 */
        h[k].a.indices = indices;
        h[k].a.values = NULL;
    }
    printf("One PROTEINS batch: %d nodes, %d nonzeros with self-loops, %d columns; halves of rows 0-%d and %d-%d.\n\n",
           A->rows, A->nnz, COLS, mid - 1, mid, A->rows - 1);
    printf("| round | half 0 alone | half 1 alone | two processes (0 / 1) | two threads (0 / 1) |\n");
    printf("|---:|---:|---:|---:|---:|\n");
    for (r = 0; r < rounds; r++) {
        double alone[2];
        for (k = 0; k < 2; k++) {
            run_half(&h[k]);
            alone[k] = h[k].us;
        }
        if (run_procs(h)) {
            fprintf(stderr, "halves: fork or pipe failed\n");
            return 1;
        }
        printf("| %d | %.1f us | %.1f us | %.1f / %.1f us |", r + 1, alone[0], alone[1], h[0].us, h[1].us);
        if (run_threads(h)) {
            fprintf(stderr, "halves: pthread_create failed\n");
            return 1;
        }
        printf(" %.1f / %.1f us |\n", h[0].us, h[1].us);
        fflush(stdout);
    }
    return 0;
}
