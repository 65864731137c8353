/* cache_owner.c - what it costs a thread to write memory the other core
 * wrote last, against memory it wrote itself.
 *
 *   make build/bench/cache_owner && ./build/bench/cache_owner
 *
 * Two threads, two buffers of S bytes each, 200 passes. In each pass every
 * thread fills one buffer with a constant (a streaming write), or sums one
 * (a streaming read), then both meet at a barrier:
 *   own    thread t always writes buffer t (its lines are in its own caches)
 *   swap   thread t writes buffer (t + pass) % 2: every line it writes was
 *          last written by the other thread, one pass before
 *   read   thread t sums buffer (t + pass) % 2 after the other wrote it
 * for S from 256 KB to 64 MB. Printed: microseconds per pass (each thread)
 * and GB/s per thread. Where "swap" stays slow at sizes that fit one
 * core's caches, the lines come from the other core rather than from a
 * cache both share; the tape of a GIN batch (BENCHMARKS.md, Training) is
 * written this way whenever an op's rows land on the other thread than the
 * last time that memory was used.
 *
 * Not part of the library: a measuring tool for BENCHMARKS.md. Needs
 * OpenMP (built without it, it says so and exits).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define PASSES 200

int main(void) {
#ifdef _OPENMP
    static const int kb[] = {256, 1024, 4096, 16384, 65536};
    int s, mode;
    printf("| KB per thread | own write (us, thread 0 / 1) | swap write | swap read | own write GB/s | swap write GB/s |\n");
    printf("|---:|---:|---:|---:|---:|---:|\n");
    for (s = 0; s < (int)(sizeof kb / sizeof kb[0]); s++) {
        size_t n = (size_t)kb[s] * 1024 / sizeof(float);
        float *raw = (float *)malloc(sizeof(float) * n * 2 + 64), *buf;
        double us[3][2] = {{0, 0}, {0, 0}, {0, 0}};
        volatile float sink = 0;
        /* on a cache line's start: unaligned 64-byte stores each touch two lines */
        buf = (float *)(((size_t)raw + 63) / 64 * 64);
        if (!raw) {
            fprintf(stderr, "cache_owner: out of memory at %d KB\n", kb[s]);
            return 1;
        }
        memset(buf, 0, sizeof(float) * n * 2);
        for (mode = 0; mode < 3; mode++) {
#pragma omp parallel num_threads(2)
            {
                int t = omp_get_thread_num(), pass;
                double busy = 0;
                for (pass = 0; pass < PASSES; pass++) {
                    float *p = buf + n * (size_t)(mode == 0 ? t : (t + pass) % 2);
                    double t0 = omp_get_wtime();
                    size_t i;
                    if (mode < 2) {
                        for (i = 0; i < n; i++) p[i] = (float)pass;
                    } else {
                        float acc[16] = {0};
                        int j;
                        for (i = 0; i + 16 <= n; i += 16)
                            for (j = 0; j < 16; j++) acc[j] += p[i + j];
                        for (j = 1; j < 16; j++) acc[0] += acc[j];
                        if (acc[0] == -1.0f) sink = acc[0]; /* keep the sum */
                    }
                    busy += omp_get_wtime() - t0;
#pragma omp barrier
                }
                if (t < 2) us[mode][t] = busy / PASSES * 1e6;
            }
        }
        printf("| %d | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %.1f | %.1f |\n", kb[s], us[0][0], us[0][1], us[1][0],
               us[1][1], us[2][0], us[2][1], kb[s] * 1024.0 / (us[0][0] * 1e3), kb[s] * 1024.0 / (us[1][0] * 1e3));
        (void)sink;
        free(raw);
    }
    return 0;
#else
    puts("cache_owner: built without OpenMP; it measures two threads");
    return 0;
#endif
}
