/* bench_gin.c - one GIN training epoch on PROTEINS, the model of the PyTorch
 * anchor (../shared/anchors/torch_gin.py), and where its time goes.
 *
 *   make build/bench/bench_gin
 *   OMP_WAIT_POLICY=passive OMP_NUM_THREADS=1 ./build/bench/bench_gin
 *   ./build/bench/bench_gin --phases      # the roofline table of BENCHMARKS.md
 *   ./build/bench/bench_gin --batch 512   # another batch size (the same FLOPs per epoch)
 *   ./build/bench/bench_gin --wait spin   # OpenMP's wait policy: auto (default), spin or passive
 *   sh bench/speed.sh                     # this and the anchors, side by side
 *
 * The model and protocol are the anchor's: GIN-0 (eps fixed at 0, no input
 * projection), 3 layers of Lin(in, 64) -> batch norm -> ReLU -> Lin(64, 64)
 * -> ReLU, sum readout of the last layer, head Lin(64, 64) -> ReLU ->
 * Lin(64, 2), cross-entropy, no dropout, Adam lr 1e-3; node features are the
 * one-hot node labels (3); 1002 training graphs (the anchor's 90% of 1113,
 * here the first 1002 of a seeded permutation) in shuffled batches of 128.
 * One epoch = shuffle + build every batch + forward + backward + Adam step.
 * 2 warm-up epochs, then the median of 20.
 *
 * --phases also runs the epoch with the tape's op timer (fgl_tape_prof) and
 * prints, per phase, FLOPs and bytes (counted from the shapes on the tape:
 * the least a kernel must compute and move), time, and achieved GFLOP/s and
 * GB/s against the peaks this program measures itself: a register-only FMA
 * loop (compute) and a streaming triad on arrays of one batch's activation
 * size and on 64 MB (memory).
 *
 * The wait policy is fglrun's (fgl_wait_choose, fgl.h): --wait auto keeps
 * OMP_WAIT_POLICY when it is set and otherwise waits passively only when the
 * machine's load leaves no core per thread, so a benchmark on a busy machine
 * does not measure threads spinning against each other.
 *
 * The last line is one JSON object (threads, wait policy, median epoch
 * seconds, nodes per epoch) that bench/speed.sh reads.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, execv, sysconf: the wait policy */
#include "fgl_gnn.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <ctype.h>
#include <unistd.h>

#define EPOCHS 20
#define WARM 2
#define N_TRAIN 1002
#define BATCH 128 /* the anchor's; --batch N changes it (to see how the epoch's cost follows its working set) */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* --- the peaks -------------------------------------------------------------- */

/* The core's multiply-add peak: twelve independent chains of fused
 * multiply-adds at the widest vector width the build has (fgl.h's GEMM
 * kernel uses the same instructions), all in registers, on every thread at
 * once; the portable loop (no FMA) counts a multiply and an add as 2 FLOPs
 * too. */
#if (defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))) && !defined(FGL_NO_SIMD)
#include <immintrin.h>
#if defined(__AVX512F__)
typedef __m512 vec_t;
#define VW 16
#define VSET(x) _mm512_set1_ps(x)
#define VFMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define VSUM(v) _mm512_reduce_add_ps(v)
#else
typedef __m256 vec_t;
#define VW 8
#define VSET(x) _mm256_set1_ps(x)
#define VFMA(a, b, c) _mm256_fmadd_ps(a, b, c)
static float vsum8(__m256 v) {
    float f[8];
    int i;
    float s = 0;
    _mm256_storeu_ps(f, v);
    for (i = 0; i < 8; i++) s += f[i];
    return s;
}
#define VSUM(v) vsum8(v)
#endif
static double fma_chains(long iters) {
    vec_t x = VSET(0.999999f), y = VSET(1e-7f), a[12];
    float s = 0;
    int k;
    long it;
    for (k = 0; k < 12; k++) a[k] = VSET((float)k);
    for (it = 0; it < iters; it++) {
        a[0] = VFMA(a[0], x, y); a[1] = VFMA(a[1], x, y); a[2] = VFMA(a[2], x, y); a[3] = VFMA(a[3], x, y);
        a[4] = VFMA(a[4], x, y); a[5] = VFMA(a[5], x, y); a[6] = VFMA(a[6], x, y); a[7] = VFMA(a[7], x, y);
        a[8] = VFMA(a[8], x, y); a[9] = VFMA(a[9], x, y); a[10] = VFMA(a[10], x, y); a[11] = VFMA(a[11], x, y);
    }
    for (k = 0; k < 12; k++) s += VSUM(a[k]);
    return s == 12345.0f ? 1.0 : 2.0 * 12 * VW * (double)iters; /* FLOPs (the test keeps the chains alive) */
}
#else
static double fma_chains(long iters) {
    float a[12][8], x = 0.999999f, y = 1e-7f, s = 0;
    int k, j;
    long it;
    for (k = 0; k < 12; k++)
        for (j = 0; j < 8; j++) a[k][j] = (float)(k + j);
    for (it = 0; it < iters; it++)
        for (k = 0; k < 12; k++)
            for (j = 0; j < 8; j++) a[k][j] = a[k][j] * x + y;
    for (k = 0; k < 12; k++)
        for (j = 0; j < 8; j++) s += a[k][j];
    return s == 12345.0f ? 1.0 : 2.0 * 12 * 8 * (double)iters;
}
#endif

static double peak_fma_gflops(void) {
    double best = 0;
    int rep;
    for (rep = 0; rep < 5; rep++) {
        double t0 = fgl_now(), flops = 0, dt;
#ifdef _OPENMP
#pragma omp parallel reduction(+ : flops)
#endif
        flops += fma_chains(2000000);
        dt = fgl_now() - t0;
        if (flops / dt > best) best = flops / dt;
    }
    return best / 1e9;
}

/* a[i] = b[i] + s c[i] over n floats (12 bytes per element), on every
 * thread at once, each on its own arrays, which it has written and run the
 * triad over once before the clock starts: on some VMs a page's first touch
 * costs about 10 us and the first pass after it is still slow (timing them
 * with the reps read 3 GB/s on 64 MB where the memory streams at 31; after
 * the writes alone, 8). *secs gets this thread's time for the reps. */
static double triad_one(size_t n, int reps, double *secs) {
    float *a = (float *)malloc(sizeof(float) * n), *b = (float *)malloc(sizeof(float) * n),
          *c = (float *)malloc(sizeof(float) * n);
    size_t i;
    int rep, ok = a && b && c;
    double sink = 0, t0;
    if (ok)
        for (i = 0; i < n; i++) {
            a[i] = 0;
            b[i] = (float)i;
            c[i] = 1.0f;
        }
    if (ok)
        for (i = 0; i < n; i++) a[i] = b[i] + 0.5f * c[i];
#ifdef _OPENMP
#pragma omp barrier
#endif
    t0 = fgl_now();
    if (ok) {
        for (rep = 0; rep < reps; rep++) {
            for (i = 0; i < n; i++) a[i] = b[i] + 0.5f * c[i];
            b[rep % n] = a[(rep * 7) % n];
        }
        sink = a[n / 2];
    }
    *secs = ok ? fgl_now() - t0 : -1;
    free(a);
    free(b);
    free(c);
    return sink;
}

/* The triad's rate over every thread: the bytes of all threads over the
 * slowest thread's time, the best of 3 runs. */
static double triad_gbs(size_t n) {
    int reps = n < 1000000 ? 200 : 10, threads = 1, r, i;
    double best = 0, secs[256];
#ifdef _OPENMP
    threads = omp_get_max_threads();
    if (threads > 256) threads = 256;
#endif
    for (r = 0; r < 3; r++) {
        double dt = 0, sink = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) reduction(+ : sink)
        sink += triad_one(n, reps, &secs[omp_get_thread_num()]);
#else
        sink += triad_one(n, reps, &secs[0]);
#endif
        if (sink == -1.0) printf(" ");
        for (i = 0; i < threads; i++) {
            if (secs[i] < 0) return 0; /* out of memory */
            if (secs[i] > dt) dt = secs[i];
        }
        if (dt > 0 && 12.0 * (double)n * reps * threads / dt > best) best = 12.0 * (double)n * reps * threads / dt;
    }
    return best / 1e9;
}

/* --- counting FLOPs and bytes from the tape --------------------------------- */

enum { PH_GEMM, PH_AGG, PH_NORM, PH_LOSS, PH_BATCH, PH_OPT, PH_N };
static const char *phase_name[PH_N] = {"dense products (linear)", "neighbour sum + readout (spmm, segment_sum)",
                                       "batch norm + elementwise", "head loss and leaves",
                                       "batching (shuffle, batch, CSR)", "Adam + zero grad"};

static int phase_of(const char *op) {
    if (!strcmp(op, "linear") || !strcmp(op, "linear_relu") || !strcmp(op, "matmul")) return PH_GEMM;
    if (!strcmp(op, "spmm") || !strncmp(op, "segment", 7)) return PH_AGG;
    if (!strcmp(op, "cross_entropy") || !strcmp(op, "param") || !strcmp(op, "const") || !strcmp(op, "leaf"))
        return PH_LOSS;
    return PH_NORM;
}

static double sz(const fgl_node *n) { return n ? (double)n->rows * n->cols : 0.0; }

/* The least work of one node's forward and backward (F: flops, B: bytes). */
static void count_node(const fgl_node *n, double *F, double *B) {
    double y = sz(n);
    int ph = phase_of(n->op), gx = n->in[0] && n->in[0]->needs_grad;
    if (!strncmp(n->op, "linear", 6)) { /* and linear_relu (its ReLU in the product's epilogue) */
        double r = n->rows, k = n->in[0]->cols, c = n->cols, relu = !strcmp(n->op, "linear_relu");
        F[0] += 2 * r * k * c;
        B[0] += 4 * (r * k + k * c + r * c);
        F[1] += 2 * r * k * c * (1 + gx) + (n->in[2] ? r * c : 0) + relu * r * c;
        B[1] += 4 * (r * c + r * k + k * c + (gx ? r * k : 0) + relu * 3 * r * c); /* + the mask: read y, dy, write dy */
    } else if (!strcmp(n->op, "spmm")) {
        const fgl_csr *a = (const fgl_csr *)n->p0;
        double nnz = a->nnz, c = n->cols;
        F[0] += 2 * nnz * c;
        B[0] += 4 * (nnz + a->rows + 1 + sz(n->in[0]) + y);
        if (gx) {
            F[1] += 2 * nnz * c;
            B[1] += 4 * (nnz + a->rows + 1 + sz(n->in[0]) + y);
        }
    } else if (ph == PH_AGG) { /* segment reductions */
        F[0] += sz(n->in[0]);
        B[0] += 4 * (sz(n->in[0]) + y);
        if (gx) B[1] += 4 * (sz(n->in[0]) + y);
    } else if (!strncmp(n->op, "batch_norm", 10)) { /* and batch_norm_relu */
        /* statistics (read x), normalise (read x, write y); backward: two
         * column sums over dy and x-hat (read dy and x: x-hat is computed
         * again), then dx (read dy and x, write dx) */
        F[0] += 7 * y;
        B[0] += 4 * 3 * y;
        F[1] += 12 * y;
        B[1] += 4 * 5 * y;
    } else if (ph == PH_NORM) { /* elementwise: read inputs, write output */
        int i;
        double in = 0;
        for (i = 0; i < 3; i++) in += n->in[i] ? sz(n->in[i]) : 0;
        F[0] += y;
        B[0] += 4 * (in + y);
        if (gx) {
            F[1] += y;
            B[1] += 4 * (y + in + sz(n->in[0]));
        }
    }
}

int main(int argc, char **argv) {
    char rootbuf[1024];
    const char *root = rootbuf; /* the data directory: $FGL_DATA, else ./data, else $XDG_DATA_HOME/fgl */
    int phases = 0, threads = 1, batch = BATCH, i, e, a;
    const char *wait = "auto", *policy;
    char dir[1100];
    fgl_error err;
    fgl_graph_set prot;
    fgl_model_spec s;
    fgl_model m;
    fgl_data_dir(rootbuf, sizeof rootbuf, NULL);
    fgl_optim o;
    fgl_optim_config oc;
    fgl_tape tp;
    fgl_tape_prof prof;
    fgl_rng r;
    int ids[N_TRAIN], perm[2000];
    double t[EPOCHS], nodes = 0, edges = 0;
    double F[PH_N][2], B[PH_N][2], T[PH_N][2], tape_mb[2] = {0, 0};
    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--phases")) phases = 1;
        else if (!strcmp(argv[a], "--batch") && a + 1 < argc) {
            batch = atoi(argv[++a]);
            if (batch < 1 || batch > N_TRAIN) {
                fprintf(stderr, "bench_gin: --batch takes 1 to %d\n", N_TRAIN);
                return 1;
            }
        } else if (!strcmp(argv[a], "--wait") && a + 1 < argc) {
            wait = argv[++a];
            if (strcmp(wait, "auto") && strcmp(wait, "spin") && strcmp(wait, "passive")) {
                fprintf(stderr, "bench_gin: --wait takes auto, spin or passive\n");
                return 1;
            }
        } else root = argv[a];
    }
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    fgl_wait_choose(argv, wait, threads); /* returns when the policy stays; otherwise re-runs this program */
    policy = getenv("OMP_WAIT_POLICY");
    if (!policy || !*policy) policy = "default";
    fgl_graph_set_init(&prot);
    snprintf(dir, sizeof dir, "%s/tu/PROTEINS", root);
    if (fgl_load_tu(dir, "PROTEINS", &prot, &err) || fgl_graph_set_features(&prot, FGL_FEAT_NODE_LABELS, 0, &err)) {
        fprintf(stderr, "bench_gin: %s\n", err.msg);
        return 1;
    }
    if (prot.n_graphs > 2000 || prot.n_graphs < N_TRAIN) {
        fprintf(stderr, "bench_gin: PROTEINS has %d graphs, expected 1113\n", prot.n_graphs);
        return 1;
    }
    fgl_rng_init(&r, 0, 0);
    for (i = 0; i < prot.n_graphs; i++) perm[i] = i;
    fgl_rng_shuffle(&r, perm, prot.n_graphs);
    memcpy(ids, perm, sizeof ids);
    for (i = 0; i < N_TRAIN; i++) {
        nodes += prot.node_ptr[ids[i] + 1] - prot.node_ptr[ids[i]];
    }
    edges = 0;

    s = fgl_model_spec_default(FGL_ARCH_GIN, FGL_TASK_GRAPH, prot.n_feat, prot.n_classes);
    s.hidden = 64;
    s.layers = 3;
    s.input_proj = 0;
    s.batch_norm = 1;
    s.dropout = 0.0f;
    if (fgl_model_init(&m, &s, 1, &err)) {
        fprintf(stderr, "bench_gin: %s\n", err.msg);
        return 1;
    }
    oc = fgl_optim_default(FGL_ADAM);
    oc.lr = 1e-3f;
    oc.weight_decay = 0.0f;
    fgl_optim_init(&o, oc, &m.params);
    fgl_tape_init(&tp);
    memset(&prof, 0, sizeof prof);
    memset(F, 0, sizeof F);
    memset(B, 0, sizeof B);
    memset(T, 0, sizeof T);
    fgl_rng_init(&r, 1, 1);
    for (e = 0; e < WARM + EPOCHS + (phases ? 1 : 0); e++) {
        int profiled = e == WARM + EPOCHS, i0;
        double t0 = fgl_now(), tb;
        tp.prof = profiled ? &prof : NULL;
        fgl_rng_shuffle(&r, ids, N_TRAIN);
        if (profiled) T[PH_BATCH][0] += fgl_now() - t0;
        for (i0 = 0; i0 < N_TRAIN; i0 += batch) {
            fgl_batch b;
            fgl_gnn_graph g;
            fgl_forward out;
            fgl_node *loss;
            int nb = N_TRAIN - i0 < batch ? N_TRAIN - i0 : batch;
            tb = fgl_now();
            fgl_batch_init(&b);
            if (fgl_batch_make(&prot, ids + i0, nb, &b, &err) || fgl_gnn_graph_from_batch(&g, &b, &s, &err)) {
                fprintf(stderr, "bench_gin: %s\n", err.msg);
                return 1;
            }
            if (profiled) {
                T[PH_BATCH][0] += fgl_now() - tb;
                edges += g.adj->nnz;
            }
            tb = fgl_now();
            fgl_tape_reset(&tp);
            fgl_params_defer_zero_grad(&m.params); /* as fglrun: the backward pass writes them */
            if (profiled) T[PH_OPT][0] += fgl_now() - tb;
            fgl_model_forward(&m, &tp, &g, 1, &r, &out);
            loss = fgl_op_cross_entropy(&tp, out.logits, b.y, NULL);
            if (profiled && (double)tp.arena_total > tape_mb[0] * 1e6) tape_mb[0] = (double)tp.arena_total / 1e6;
            if (fgl_tape_backward(&tp, loss)) {
                fprintf(stderr, "bench_gin: %s\n", tp.err.msg);
                return 1;
            }
            if (profiled && (double)tp.arena_total > tape_mb[1] * 1e6) tape_mb[1] = (double)tp.arena_total / 1e6;
            if (profiled)
                for (i = 0; i < tp.n_nodes; i++) {
                    fgl_node *n = tp.nodes[i];
                    int ph = phase_of(n->op);
                    double f[2] = {0, 0}, by[2] = {0, 0};
                    count_node(n, f, by);
                    F[ph][0] += f[0];
                    F[ph][1] += n->needs_grad ? f[1] : 0; /* (intermediate gradients are released by now) */
                    B[ph][0] += by[0];
                    B[ph][1] += n->needs_grad ? by[1] : 0;
                }
            tb = fgl_now();
            fgl_optim_step(&o, &m.params);
            if (profiled) {
                T[PH_OPT][0] += fgl_now() - tb;
                F[PH_OPT][0] += 12.0 * (double)m.params.size;
                B[PH_OPT][0] += 4.0 * 7 * (double)m.params.size; /* read p, g, m, v; write p, m, v */
            }
            tb = fgl_now();
            fgl_gnn_graph_free(&g);
            fgl_batch_free(&b);
            if (profiled) T[PH_BATCH][0] += fgl_now() - tb;
        }
        if (e >= WARM && !profiled) t[e - WARM] = fgl_now() - t0;
        if (profiled) {
            T[PH_BATCH][1] = fgl_now() - t0; /* the profiled epoch's total, kept here */
            fgl_tape_reset(&tp);
        }
    }
    qsort(t, EPOCHS, sizeof(double), cmp_double);
    printf("GIN-0 (3 layers, hidden 64, batch norm, no dropout) on PROTEINS, %d training graphs (%.0f nodes), "
           "batch %d: %.1f ms per epoch at %d thread%s (median of %d; fastest %.1f)\n",
           N_TRAIN, nodes, batch, 1e3 * t[EPOCHS / 2], threads, threads > 1 ? "s" : "", EPOCHS, 1e3 * t[0]);
    if (phases) {
        double total = T[PH_BATCH][1], flop_peak = peak_fma_gflops();
        double bw_l2 = triad_gbs((size_t)(nodes / ((N_TRAIN + batch - 1) / batch)) * 64);
        double bw_mem = triad_gbs((size_t)16 << 20), acc = 0;
        int k;
        T[PH_BATCH][1] = 0;
        for (k = 0; k < prof.n; k++) {
            int ph = phase_of(prof.op[k]);
            T[ph][0] += prof.fwd[k];
            T[ph][1] += prof.bwd[k];
        }
        printf("\nPeaks measured here (%d thread%s): FMA loop %.0f GFLOP/s; triad %.0f GB/s on one batch's activation size "
               "(%.1f MB x 3 per thread), %.0f GB/s on 64 MB x 3.\nProfiled epoch (op timer on): %.1f ms.\n\n",
               threads, threads > 1 ? "s" : "",
               flop_peak, bw_l2, nodes / ((N_TRAIN + batch - 1) / batch) * 64 * 4 / 1e6, bw_mem, 1e3 * total);
        printf("| phase | pass | GFLOP | MB | FLOP/byte | ms | share | GFLOP/s | GB/s | bound: %% of peak |\n");
        printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (k = 0; k < PH_N; k++) {
            int p;
            for (p = 0; p < 2; p++) {
                double ms = 1e3 * T[k][p], gf = F[k][p] / 1e9, mb = B[k][p] / 1e6;
                double ai = B[k][p] > 0 ? F[k][p] / B[k][p] : 0;
                /* roofline: the attainable rate is min(peak, intensity x bandwidth) */
                double attain = ai > 0 ? (ai * bw_l2 < flop_peak ? ai * bw_l2 : flop_peak) : 0;
                double got = T[k][p] > 0 ? F[k][p] / T[k][p] / 1e9 : 0;
                if (T[k][p] <= 0 && F[k][p] <= 0) continue;
                acc += T[k][p];
                printf("| %s | %s | %.3f | %.1f | %.1f | %.1f | %.0f%% | %.1f | %.1f | %s%.0f%% |\n", phase_name[k],
                       k >= PH_BATCH ? "-" : p ? "backward" : "forward", gf, mb, ai, ms, 100 * T[k][p] / total, got,
                       T[k][p] > 0 ? B[k][p] / T[k][p] / 1e9 : 0, ai * bw_l2 < flop_peak ? "memory " : "compute ",
                       attain > 0 ? 100 * got / attain : 0);
            }
        }
        printf("| (unattributed) | - | | | | %.1f | %.0f%% | | | |\n", 1e3 * (total - acc), 100 * (total - acc) / total);
        {
            double all = 0;
            for (k = 0; k < PH_N; k++) all += B[k][0] + B[k][1];
            printf("\nBytes the epoch must move (counted as above): %.0f MB, %.1f GB/s over the profiled epoch "
                   "(triads: %.0f and %.0f GB/s).\n", all / 1e6, all / total / 1e9, bw_l2, bw_mem);
            printf("The tape of the largest batch: %.1f MB after forward, %.1f MB after backward.\n", tape_mb[0],
                   tape_mb[1]);
        }
        printf("\nOps: ");
        for (k = 0; k < prof.n; k++)
            printf("%s %ld (%.1f + %.1f ms)%s", prof.op[k], prof.calls[k], 1e3 * prof.fwd[k], 1e3 * prof.bwd[k],
                   k + 1 < prof.n ? ", " : "\n");
        (void)edges;
    }
    {   /* FNV-1a of the trained parameters' bits: equal across thread counts */
        unsigned long long h = 1469598103934665603ULL;
        size_t q;
        const unsigned char *bytes = (const unsigned char *)m.params.data;
        for (q = 0; q < sizeof(float) * m.params.size; q++) h = (h ^ bytes[q]) * 1099511628211ULL;
        printf("{\"bench\": \"fgl_gin\", \"threads\": %d, \"wait\": \"%s\", \"batch\": %d, \"median_epoch_s\": %.6f, \"min_epoch_s\": %.6f, "
               "\"n_train\": %d, \"n_nodes\": %.0f, \"params_fnv1a\": \"%016llx\"}\n",
               threads, policy, batch, t[EPOCHS / 2], t[0], N_TRAIN, nodes, h);
    }
    fgl_tape_free(&tp);
    fgl_optim_free(&o);
    fgl_model_free(&m);
    fgl_graph_set_free(&prot);
    return 0;
}
