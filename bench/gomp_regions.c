/* gomp_regions.c - where a program's OpenMP time goes, region by region
 * (GCC's libgomp only: it wraps GOMP_parallel, the entry point of every
 * `#pragma omp parallel` GCC compiles).
 *
 *   make build/bench/gomp_regions.so
 *   sh bench/regions.sh build/bench/bench_gin        # OMP_NUM_THREADS, SKIP
 *
 * Loaded with LD_PRELOAD, it times each parallel region (wall clock, from
 * the call to its return) and each of the first two threads' busy span in
 * it (from entering the region's body to leaving it). At exit it prints,
 * for the regions that started SKIP seconds (default 0) or more after the
 * first one (to leave out a run's first rounds), one line per outlined
 * function (the
 * address of the compiler's `foo._omp_fn.N` in the executable, which
 * bench/regions.sh turns into a name with addr2line): how many regions,
 * their wall time, the two threads' busy time, the time they waited for
 * each other (|busy0 - busy1|), and the time outside any region (serial
 * code). A region that ran on one thread (an `if` clause, or nested inside
 * another) is listed apart, as "1t"; the window and the time in and out of
 * regions count the outermost regions only (nested ones run inside them).
 *
 * Not part of the library: a measuring tool for BENCHMARKS.md. Needs
 * POSIX (dlsym, clock_gettime) and GNU extensions (RTLD_NEXT).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern int omp_get_thread_num(void);
extern int omp_get_num_threads(void);
extern int omp_in_parallel(void);

typedef void (*gomp_parallel_fn)(void (*)(void *), void *, unsigned, unsigned);

typedef struct {
    void (*fn)(void *);
    void *data;
    double in[2], out[2];
    int nt;
} region;

typedef struct {
    uintptr_t off;
    int one_thread;
    long count;
    double wall, busy[2], wait;
} fn_stats;

#define MAX_FNS 512
static fn_stats stats[MAX_FNS];
static int n_stats;
static double t_first = -1, t_last, t_start, in_regions;
static uintptr_t exe_base;
static gomp_parallel_fn real_parallel;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* nested regions end on several threads at once */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void body(void *p) {
    region *r = (region *)p;
    int t = omp_get_thread_num();
    if (t < 2) r->in[t] = now();
    if (t == 0) r->nt = omp_get_num_threads();
    r->fn(r->data);
    if (t < 2) r->out[t] = now();
}

static void record(uintptr_t off, const region *r, double t0, double t1, int nested) {
    int i, one = r->nt < 2;
    fn_stats *s = NULL;
    for (i = 0; i < n_stats; i++)
        if (stats[i].off == off && stats[i].one_thread == one) s = &stats[i];
    if (!s && n_stats < MAX_FNS) {
        s = &stats[n_stats++];
        s->off = off;
        s->one_thread = one;
    }
    if (!nested) { /* the window and the time in regions count outermost regions only */
        if (t_first < 0) t_first = t0;
        t_last = t1;
        in_regions += t1 - t0;
    }
    if (!s) return;
    s->count++;
    s->wall += t1 - t0;
    s->busy[0] += r->out[0] - r->in[0];
    if (!one) {
        double b1 = r->out[1] - r->in[1], b0 = r->out[0] - r->in[0];
        s->busy[1] += b1;
        s->wait += b0 > b1 ? b0 - b1 : b1 - b0;
    }
}

void GOMP_parallel(void (*fn)(void *), void *data, unsigned nthreads, unsigned flags) {
    region r = {0};
    double t0, t1;
    int nested = omp_in_parallel();
    if (!real_parallel) {
        Dl_info info;
        const char *skip = getenv("SKIP");
        void *sym = dlsym(RTLD_NEXT, "GOMP_parallel"), *code;
        memcpy(&real_parallel, &sym, sizeof sym); /* object and function pointers: POSIX, not ISO C */
        memcpy(&code, &fn, sizeof code);
        if (dladdr(code, &info)) exe_base = (uintptr_t)info.dli_fbase;
        t_start = now() + (skip ? atof(skip) : 0.0);
    }
    r.fn = fn;
    r.data = data;
    t0 = now();
    real_parallel(body, &r, nthreads, flags);
    t1 = now();
    if (t0 >= t_start) {
        pthread_mutex_lock(&lock);
        record((uintptr_t)fn - exe_base, &r, t0, t1, nested);
        pthread_mutex_unlock(&lock);
    }
}

__attribute__((destructor)) static void report(void) {
    int i;
    if (t_first < 0) return;
    fprintf(stderr, "gomp_regions: %.1f ms from the first timed region to the last; %.1f ms in regions, %.1f ms outside\n",
            1e3 * (t_last - t_first), 1e3 * in_regions, 1e3 * (t_last - t_first - in_regions));
    fprintf(stderr, "gomp_regions: offset threads count wall_ms busy0_ms busy1_ms waited_ms\n");
    for (i = 0; i < n_stats; i++)
        fprintf(stderr, "gomp_regions: %#lx %s %ld %.2f %.2f %.2f %.2f\n", (unsigned long)stats[i].off,
                stats[i].one_thread ? "1t" : "2t", stats[i].count, 1e3 * stats[i].wall, 1e3 * stats[i].busy[0],
                1e3 * stats[i].busy[1], 1e3 * stats[i].wait);
}
