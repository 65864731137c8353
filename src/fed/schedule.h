#include "../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../alone.h"
/* --- runs: which clients run side by side, on how many threads --------------------- */
/* The schedule of a client phase (fgl_run_round's training and evaluation):
 * the clients' work, the clients run alone on every thread first, and the
 * rest side by side, the largest of them given the threads the others leave
 * idle. Each client's result is the same whichever thread runs it. */
/* A client's share of a phase's work: the nodes and edges its passes over
 * the given splits touch (graph tasks: the nodes of those splits' graphs;
 * node tasks: the whole graph, which every pass propagates over). */
static double fgl__client_work(const fgl_client *c, const int *splits, int n_splits) {
    const fgl_view *v = &c->data;
    double w = 0;
    int i, s;
    if (v->graphs) {
        for (s = 0; s < n_splits; s++)
            if (v->ids[splits[s]])
                for (i = 0; i < v->count[splits[s]]; i++) {
                    int g = v->ids[splits[s]][i];
                    w += 1.0 + v->graphs->node_ptr[g + 1] - v->graphs->node_ptr[g];
                }
    } else if (v->node) {
        w = (double)v->node->n_nodes + v->node->adj.nnz + v->node->x_sparse.nnz;
    }
    return w;
}

/* How much of a second thread's speed a client gets from running alone
 * with every thread inside its products rather than beside another client.
 * Set to 0.72 when a GIN epoch on PROTEINS ran 1.44x faster on 2 threads;
 * there, 0.9 or 0.95 (FedStar's NCI1 alone on CHEM) was no faster. Raised
 * to 0.9 once a single large client's products wasted less on two threads
 * (95ee2d7, c368298: FedStar's NCI1 as its only client runs 1.8x faster on
 * 2 threads), on an AMD EPYC VM: FedStar on CHEM at 2 threads, 4 pairs of
 * runs, median 1.82x over 1 thread against 1.76x at 0.72 (2-thread times
 * 9.01-9.31 s against 9.02-9.54 s). The model's first guess only: where
 * it puts clients alone and every client takes part in every round, the
 * runtime times that against all side by side and keeps the faster
 * (fgl__alone_trial); with partial participation the model decides. */
#define FGL__INTRA_EFFICIENCY 0.9

/* How many times faster a client of work w runs its products on g
 * threads than on one: at most the threads its work pays for (its nodes
 * and edges at FGL_PER_THREAD_ENTRIES a thread, the table's measure for a
 * batch's graph work), each at FGL__INTRA_EFFICIENCY. Without that bound
 * the model sent the ten clients of FedAvg on Cora (about 6,000 nodes,
 * edges and feature entries each) one after the other on 16 threads,
 * predicting each 14x faster alone, while their products ran on 1 or 2
 * threads: 5.8x slower than side by side on 8 (issue 38's table). A client
 * whose dense products pay for more threads than its nodes and edges (a
 * wide GEMM over a small graph) is underrated here; the trial below
 * measures the two ways where every client takes part. */
FGL__PRIVATE double fgl__alone_speed(double w, int g) {
    double t = w / (double)FGL_PER_THREAD_ENTRIES;
    if (t > g) t = g;
    return t >= 2 ? t * FGL__INTRA_EFFICIENCY : 1.0;
}

/* The schedule of a phase over n clients of work w[]: order[] lists them
 * largest first (so a dynamic schedule over it is the longest-first rule,
 * which keeps the last client to start from setting the pace), and the
 * return value is how many of them, from the front, run alone, one after
 * the other, with every thread inside their products. The predicted time
 * of "the first k alone, the rest side by side" is the alone clients' work
 * at their alone speed, plus the longer of the largest remaining client
 * (on the threads fgl__side_by_side grants it: 1 + those the others leave
 * idle; every thread when it is the only one left) and the remaining work
 * spread over the loop's threads. A client runs alone only when that is
 * predicted to end the phase sooner: a client much larger than all the
 * others together would leave the other threads idle, while one that is
 * merely the largest is better run beside the rest. Ties keep the smaller
 * k and the clients' order, so the plan depends on the work only. */
FGL__PRIVATE int fgl__schedule(int nt, int n, const double *w, int *order) {
    double total = 0, alone = 0, best = 0, rest;
    int i, j, k, n_alone = 0;
    for (i = 0; i < n; i++) { /* insertion sort, largest first: n is the round's participants */
        int x = i;
        for (j = i; j > 0 && w[order[j - 1]] < w[x]; j--) order[j] = order[j - 1];
        order[j] = x;
        total += w[i];
    }
    if (nt <= 1 || n == 0) return 0;
    rest = total;
    for (k = 0; k <= n; k++) { /* the first k alone, the rest side by side */
        double front = 0, t;
        int n_side = n - k;
        if (k > 0) {
            alone += w[order[k - 1]] / fgl__alone_speed(w[order[k - 1]], nt);
            rest -= w[order[k - 1]];
        }
        if (n_side == 1) {
            front = w[order[k]] / fgl__alone_speed(w[order[k]], nt);
        } else if (n_side > 1) {
            int outer = FGL__MIN(nt, n_side);
            double big = w[order[k]] / fgl__alone_speed(w[order[k]], 1 + nt - outer);
            front = big > rest / outer ? big : rest / outer;
        }
        t = alone + front;
        if (k == 0 || t < best) {
            best = t;
            n_alone = k;
        }
    }
    return n_alone;
}

/* Whether a phase that the schedule would start with clients alone runs
 * so (1) or with every client side by side (0). How much of a second
 * thread a client gets inside its own products depends on the phase (a
 * training step's ops on a batch of 128 graphs are small beside an
 * evaluation's), on the model and on the machine, so rather than trust one
 * constant the runtime times both: when every client takes part in every
 * round (the phase's work the same each time) in this process (a
 * transport's worker holding some of the clients keeps the model), a
 * phase's first run is left out (its first allocations), the next eight
 * alternate the two ways and the faster on the sum of four runs each is
 * kept (single runs here vary by 5%: where the two ways are that close
 * either will do). While it runs, a side-by-side call may hold one more
 * client's tape than the alone schedule would. FedStar on CHEM, 2
 * threads, 3 runs each: training with NCI1 alone 12.3-12.5 s, side by side
 * 11.5-12.1 s; evaluation alone 1.49-1.53 s, side by side 1.64-1.73 s.
 * The results are the same either way (a client's computation does not
 * depend on where it runs). */
#define FGL__TRIAL_CALLS 8
FGL__PRIVATE int fgl__alone_trial(fgl_run *run, int phase) {
    int calls = run->sched[phase].calls;
    if (run->n_part != run->n_clients || run->sched[phase].pick) return run->sched[phase].pick != 2;
    /* calls 1, 4, 5, 8 alone; 2, 3, 6, 7 side by side: each way gets two
     * odd and two even calls, so that work recurring every other round
     * (evaluation every 2 rounds, inside training) weighs on both alike */
    return calls < 1 || (calls - 1) % 4 == 0 || (calls - 1) % 4 == 3;
}

FGL__PRIVATE void fgl__alone_record(fgl_run *run, int phase, int alone, double secs) {
    int c;
    if (run->n_part != run->n_clients || run->sched[phase].pick) return; /* only while the trial runs */
    c = run->sched[phase].calls++;
    if (c < 1) return;
    run->sched[phase].secs[alone] += secs;
    if (c >= FGL__TRIAL_CALLS) run->sched[phase].pick = run->sched[phase].secs[1] <= run->sched[phase].secs[0] ? 1 : 2;
}

/* Clients order[first .. n-1] (largest first; order NULL: ids in their
 * order) side by side: one thread per client, at most nt. When there are
 * fewer of them than threads, the threads left over go to the largest
 * client's products, as a fixed split: its thread is granted 1 + the
 * spare threads (fgl__grant, nested parallelism) and every other client's
 * products run on its own thread. FedStar on CHEM at 16 threads: 7
 * clients, NCI1 (more than half the work) set the pace on one thread while
 * 9 threads sat idle (issue 38). The grant is made only when the largest
 * client sets the pace (its work over FGL__GRANT_MARGIN times the others'
 * per remaining thread; w NULL: always): libgomp keeps no pool of threads
 * for nested regions and starts every nested team's threads anew (strace:
 * two clone3 calls per nested region of 3 threads), so granting threads to
 * a client that does not set the pace (ten balanced METIS clients) would
 * cost thread starts and shorten nothing. Kernels give the same bits on
 * any number of threads, so the split moves only time. */
#define FGL__GRANT_MARGIN 1.25
FGL__PRIVATE void fgl__side_by_side(fgl_run *run, const int *ids, const int *order, const double *w, int first, int n,
                                    int nt, void (*step)(fgl_run *, fgl_client *, const void *), const void *ctx) {
    int i, n_side = n - first, outer = FGL__MAX(1, FGL__MIN(nt, n_side / FGL_PER_THREAD_CLIENT)), spare = 0;
#ifdef _OPENMP
    int levels = omp_get_max_active_levels();
    spare = order && n_side > 1 ? nt - outer : 0;
    if (spare > 0 && w && outer > 1) { /* the largest sets the pace, or no grant */
        double others = 0;
        for (i = first + 1; i < n; i++) others += w[order[i]];
        if (!(w[order[first]] > FGL__GRANT_MARGIN * others / (outer - 1))) spare = 0;
    }
    if (outer <= 1) { /* no region: a lone client's products take every thread */
        for (i = first; i < n; i++) step(run, &run->clients[ids[order ? order[i] : i]], ctx);
        return;
    }
    if (spare > 0 && levels < 2) omp_set_max_active_levels(2);
#pragma omp parallel for schedule(dynamic, 1) num_threads(outer)
#endif
    for (i = first; i < n; i++) {
        int g = i == first && spare > 0 ? 1 + spare : 1; /* order[first]: the largest */
#ifdef _OPENMP
        int was = omp_get_max_threads();
        if (outer > 1) omp_set_num_threads(g); /* a region with no num_threads clause (a hook's): this share */
#endif
        fgl__grant(g);
        step(run, &run->clients[ids[order ? order[i] : i]], ctx);
        fgl__grant(0);
#ifdef _OPENMP
        if (outer > 1) omp_set_num_threads(was); /* libgomp: the master thread's setting outlived the region */
#endif
    }
#ifdef _OPENMP
    if (spare > 0 && levels < 2) omp_set_max_active_levels(levels);
#else
    (void)nt;
    (void)w;
    (void)spare;
    (void)outer;
#endif
}

/* Runs a phase's step (phase 0 training, 1 evaluation) on n clients
 * (ids[]): the schedule above over their work on the given splits, each
 * client's result the same whichever thread runs it and whatever runs
 * beside it. */
static void fgl__run_clients(fgl_run *run, const int *ids, int n, const int *splits, int n_splits, int phase,
                             void (*step)(fgl_run *, fgl_client *, const void *), const void *ctx) {
    int i, nt = 1, n_alone = 0, *order = NULL, trial = -1;
    double *w = NULL, t0 = fgl_now();
#ifdef _OPENMP
    nt = FGL__NTHREADS(run);
#endif
    if (nt > 1 && n > 0) {
        order = (int *)FGL_MALLOC(sizeof(int) * (size_t)n);
        w = (double *)FGL_MALLOC(sizeof(double) * (size_t)n);
    }
    if (order && w) {
        for (i = 0; i < n; i++) w[i] = fgl__client_work(&run->clients[ids[i]], splits, n_splits);
        n_alone = fgl__schedule(nt, n, w, order);
        if (n_alone > 0 && n > 1) { /* a choice to make: alone first, or all side by side */
            trial = fgl__alone_trial(run, phase);
            if (!trial) n_alone = 0;
        }
        for (i = 0; i < n_alone; i++) step(run, &run->clients[ids[order[i]]], ctx);
    } else {
        FGL_FREE(order); /* out of memory: the clients in their order, side by side */
        order = NULL;
    }
    fgl__side_by_side(run, ids, order, w, n_alone, n, nt, step, ctx);
    if (trial >= 0) fgl__alone_record(run, phase, trial, fgl_now() - t0);
    FGL_FREE(order);
    FGL_FREE(w);
}
#include "../alone.h"
