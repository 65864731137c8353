/* ft.h - the tiny test harness of fgl's test programs.
 *
 * Each test program calls FT_RUN(fn) for its test functions and returns
 * ft_finish(). Every test prints one line, "ok - name" or "not ok - name",
 * with the failed checks above it; tests/run.sh adds the lines of all
 * programs up into "N passed, M failed".
 *
 * Data-dependent tests find the real datasets through ft_data_dir(), by the
 * library's rule (fgl_data_dir, which this header mirrors so that tests of
 * fgl.h alone need not include fgl_graph.h): the FGL_DATA environment
 * variable (the Makefile always sets it); unset, data/ (where `make data`
 * writes) if it exists, else $XDG_DATA_HOME/fgl (~/.local/share/fgl). A test
 * that needs a dataset starts with FT_NEED_DATA("node/Cora/Cora.edges"):
 * when the file is missing, the test is skipped as "skip - name # no data:
 * PATH", and tests/run.sh folds all such skips into one summary line that
 * names the directory and `make data`. Whatever can run without the real
 * datasets runs on fgl's synthetic generators instead.
 */
#ifndef FT_H
#define FT_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

static int ft__failed_now, ft__n_pass, ft__n_fail, ft__skip_now;
static char ft__no_data[1024]; /* the missing file when the test lacks data */

#include "ft_alloc.h" /* the allocation counter every test links (tests/ft_impl.c) */

#define FT_CHECK(cond, ...)                                              \
    do {                                                                 \
        if (!(cond)) {                                                   \
            ft__failed_now = 1;                                          \
            printf("#   %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            printf(__VA_ARGS__);                                         \
            printf("\n");                                                \
        }                                                                \
    } while (0)

/* |a - b| <= tol */
#define FT_NEAR(a, b, tol, what)                                                       \
    FT_CHECK(fabs((double)(a) - (double)(b)) <= (tol), "%s: %.9g vs %.9g (tol %.3g)", \
             what, (double)(a), (double)(b), (double)(tol))

/* Mark the running test skipped (its checks are not run); say why. */
#define FT_SKIP(...)                        \
    do {                                    \
        ft__skip_now = 1;                   \
        printf("#   skipped: ");            \
        printf(__VA_ARGS__);                \
        printf("\n");                       \
        return;                             \
    } while (0)

static inline void ft__run(const char *name, void (*fn)(void)) {
    clock_t t0 = clock();
    ft__failed_now = 0;
    ft__skip_now = 0;
    ft__no_data[0] = 0;
    fn();
    if (getenv("FT_TIMES")) /* FT_TIMES=1: each test's CPU time (all threads), to find the slow ones */
        printf("# %s: %.2f s of CPU\n", name, (double)(clock() - t0) / CLOCKS_PER_SEC);
    if (ft__skip_now && !ft__failed_now) {
        if (ft__no_data[0]) printf("skip - %s # no data: %s\n", name, ft__no_data);
        else printf("skip - %s\n", name);
        fflush(stdout);
        return;
    }
    printf("%s - %s\n", ft__failed_now ? "not ok" : "ok", name);
    if (ft__failed_now) ft__n_fail++;
    else ft__n_pass++;
    fflush(stdout);
}

#define FT_RUN(fn) ft__run(#fn, fn)

static inline int ft_finish(void) { return ft__n_fail ? 1 : 0; }

/* 1 if path can be opened for reading (on POSIX systems a directory can). */
static inline int ft__exists(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    fclose(f);
    return 1;
}

/* Directory of the real datasets (fgl_data_dir's rule): $FGL_DATA; unset
 * or empty, data/ if it exists, else $XDG_DATA_HOME/fgl (unset:
 * ~/.local/share/fgl) if it exists, else data/. */
static inline const char *ft_data_dir(void) {
    static char *user; /* on the heap, kept: callers format it into buffers of their own size */
    const char *d = getenv("FGL_DATA"), *x = getenv("XDG_DATA_HOME"), *h = getenv("HOME");
    char probe[1100];
    if (d && *d) return d;
    if (ft__exists("data/.")) return "data";
    if (!user && !(user = (char *)malloc(1024))) return "data";
    if (x && *x) snprintf(user, 1024, "%s/fgl", x);
    else if (h && *h) snprintf(user, 1024, "%s/.local/share/fgl", h);
    else return "data";
    snprintf(probe, sizeof probe, "%s/.", user);
    return ft__exists(probe) ? user : "data";
}

/* ft_data_dir()/rel, in a static buffer (overwritten by the next call). */
static inline const char *ft_data_path(const char *rel) {
    static char p[1024];
    snprintf(p, sizeof p, "%s/%s", ft_data_dir(), rel);
    return p;
}

/* 1 if the file rel (e.g. "tu/MUTAG/MUTAG_A.txt") of the real data exists. */
static inline int ft_have_data(const char *rel) { return ft__exists(ft_data_path(rel)); }

/* Skip the running test for want of real data (rel names the file that is
 * missing); tests/run.sh counts these skips into one summary line. */
#define FT_SKIP_NO_DATA(rel)                                                        \
    do {                                                                            \
        ft__skip_now = 1;                                                           \
        snprintf(ft__no_data, sizeof ft__no_data, "%s", ft_data_path(rel));         \
        return;                                                                     \
    } while (0)

/* Start of a test that reads the real file rel: skipped if it is missing. */
#define FT_NEED_DATA(rel)                            \
    do {                                             \
        if (!ft_have_data(rel)) FT_SKIP_NO_DATA(rel); \
    } while (0)

/* 1 when long runs should be cut short: under AddressSanitizer, or with
 * FGL_TEST_QUICK set (tests/valgrind.sh sets it). Such runs check memory
 * safety; the accuracy bars are make test's job. */
static inline int ft_quick(void) {
#if defined(__SANITIZE_ADDRESS__)
    return 1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return 1;
#endif
#endif
    return getenv("FGL_TEST_QUICK") != NULL;
}

/* 1 if path exists and can be read. */
static inline int ft_readable(const char *path) { return ft__exists(path); }

#endif
