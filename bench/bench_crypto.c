/* bench_crypto.c - the speed of fgl_fed.h's cryptography (src/fed/crypto.h).
 *
 *   make build/bench/bench_crypto && ./build/bench/bench_crypto [--quick]
 *
 * X25519 in microseconds per call (secure aggregation does 2 (n - 1) per
 * client and round: a key pair's public half, then one shared secret per
 * peer); ChaCha20's keystream as words (the masks: 16 Mi words, 64 MiB)
 * and as bytes XORed into a buffer, Poly1305 and the AEAD, in GB/s (10^9
 * bytes a second) over 64 MiB and over 1 KiB; Shamir split and combine of
 * one secret for n = 100 (t = 51) and n = 1000 (t = 501). Each figure is
 * the median (best) of several timed runs after 50 ms of warm-up: on a
 * machine shared with other jobs the median shows what one gets, the best
 * what the code does when it has the core. One thread.
 */
#include "fgl_fed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct timing {
    double median, best;
} timing;

static timing time_runs(void (*fn)(void *), void *arg, int runs) {
    double t[64];
    timing r;
    int i;
    double w0 = fgl_now();
    do fn(arg);
    while (fgl_now() - w0 < 0.05);
    for (i = 0; i < runs; i++) {
        double t0 = fgl_now();
        fn(arg);
        t[i] = fgl_now() - t0;
    }
    qsort(t, (size_t)runs, sizeof(double), cmp_double);
    r.median = t[runs / 2];
    r.best = t[0];
    return r;
}

typedef struct job {
    unsigned char key[32], coins[32], nonce[12], tag[16], *buf, *out, *shares;
    uint32_t *words, xs[1000];
    size_t n;
    int calls, t, parties;
} job;

static void run_x25519(void *p) {
    job *j = (job *)p;
    int i;
    for (i = 0; i < j->calls; i++) fgl_x25519(j->out, j->key, j->buf); /* out = key x buf */
}

static void run_words(void *p) {
    job *j = (job *)p;
    fgl_chacha20_words(j->words, j->n / 4, j->key, j->nonce, 0);
}

static void run_xor(void *p) {
    job *j = (job *)p;
    int i;
    for (i = 0; i < j->calls; i++) fgl_chacha20_xor(j->out, j->buf, j->n, j->key, j->nonce, 1);
}

static void run_poly(void *p) {
    job *j = (job *)p;
    int i;
    for (i = 0; i < j->calls; i++) fgl_poly1305(j->tag, j->buf, j->n, j->key);
}

static void run_seal(void *p) {
    job *j = (job *)p;
    int i;
    for (i = 0; i < j->calls; i++) fgl_aead_seal(j->out, j->tag, j->buf, j->n, j->nonce, 12, j->key, j->nonce);
}

static void run_split(void *p) {
    job *j = (job *)p;
    fgl_shamir_split(j->shares, j->key, j->t, j->parties, j->coins);
}

static void run_combine(void *p) {
    job *j = (job *)p;
    unsigned char secret[32];
    fgl_shamir_combine(secret, j->shares, j->xs, j->t);
}

int main(int argc, char **argv) {
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0, runs = quick ? 3 : 11, i;
    size_t big = (size_t)64 << 20;
    job j;
    timing t;
    memset(&j, 0, sizeof j);
    j.buf = (unsigned char *)calloc(big, 1);
    j.out = (unsigned char *)malloc(big);
    j.words = (uint32_t *)malloc(big);
    j.shares = (unsigned char *)malloc((size_t)1000 * FGL_SHARE_BYTES + 32);
    if (!j.buf || !j.out || !j.words || !j.shares) return 1;
    for (i = 0; i < 32; i++) j.key[i] = (unsigned char)(7 * i + 1);
    j.buf[0] = 9;

    j.calls = 200;
    t = time_runs(run_x25519, &j, runs);
    printf("X25519: %.1f (%.1f) us per call\n", 1e6 * t.median / j.calls, 1e6 * t.best / j.calls);

    j.n = big;
    t = time_runs(run_words, &j, runs);
    printf("ChaCha20 keystream as words, 64 MiB: %.2f (%.2f) GB/s\n", big / t.median / 1e9, big / t.best / 1e9);
    j.calls = 1;
    t = time_runs(run_xor, &j, runs);
    printf("ChaCha20 XOR, 64 MiB: %.2f (%.2f) GB/s\n", big / t.median / 1e9, big / t.best / 1e9);
    t = time_runs(run_poly, &j, runs);
    printf("Poly1305, 64 MiB: %.2f (%.2f) GB/s\n", big / t.median / 1e9, big / t.best / 1e9);
    t = time_runs(run_seal, &j, runs);
    printf("ChaCha20-Poly1305 seal, 64 MiB: %.2f (%.2f) GB/s\n", big / t.median / 1e9, big / t.best / 1e9);
    j.n = 1024;
    j.calls = 10000;
    t = time_runs(run_seal, &j, runs);
    printf("ChaCha20-Poly1305 seal, 1 KiB: %.2f (%.2f) GB/s, %.2f us per message\n", 1024.0 * j.calls / t.median / 1e9,
           1024.0 * j.calls / t.best / 1e9, 1e6 * t.median / j.calls);

    for (j.parties = 100; j.parties <= 1000; j.parties *= 10) {
        timing c;
        j.t = j.parties / 2 + 1;
        for (i = 0; i < j.t; i++) j.xs[i] = (uint32_t)i + 1;
        t = time_runs(run_split, &j, runs);
        c = time_runs(run_combine, &j, runs);
        printf("Shamir, n = %d, t = %d: split %.3f (%.3f) ms, combine %.3f (%.3f) ms\n", j.parties, j.t,
               1e3 * t.median, 1e3 * t.best, 1e3 * c.median, 1e3 * c.best);
    }
    free(j.buf);
    free(j.out);
    free(j.words);
    free(j.shares);
    return 0;
}
