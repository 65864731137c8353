#include "../alone.h" /* (this file alone: src/alone.h) */
/* --- OpenMP's wait policy, chosen for the program ---------------------------- */
/* Between parallel regions an OpenMP thread either spins (busy-waits) for a
 * while or sleeps at once. Spinning saves a wake-up on a quiet machine with a
 * core per thread; on a machine whose cores are all busy (other processes,
 * or as many threads as cores) a spinning thread takes the time slice that
 * another thread needs: on a loaded 2-core machine a 5-client FedAvg
 * program took 20.0 s with the runtime's default and 3.4 s with passive
 * waiting. The runtime (libgomp) reads OMP_WAIT_POLICY once, when the
 * program is loaded, before main, so no call can change it afterwards:
 * fgl_wait_choose decides and, when the policy must change, re-executes the
 * program once with the same arguments and OMP_WAIT_POLICY set. Call it
 * first thing in main, before anything with side effects:
 *
 *     int main(int argc, char **argv) {
 *         fgl_wait_choose(argv, "auto", 0);   // may restart the program, once
 *         ...
 *
 * how: "auto" (NULL too), "spin" or "passive". auto keeps the user's
 * OMP_WAIT_POLICY or GOMP_SPINCOUNT when either is set; otherwise it asks
 * for passive waiting when the program's threads (threads, or <= 0: the
 * runtime's maximum) plus the machine's 1-minute load (/proc/loadavg) would
 * not leave a core free (more than the processors less one half), and keeps
 * the runtime's default when there is room. spin and passive set the policy
 * (active, passive) whatever the environment says. The choice is left in
 * FGL_WAIT_CHOSEN, which also keeps auto from choosing twice. Returns 0 when
 * nothing needed to change, -1 when the re-execution failed (the program
 * goes on with the runtime's policy); on success it does not return. It does
 * nothing (returns 0) in a build without OpenMP (nothing waits) and where
 * the program cannot re-execute itself (not Linux: no /proc/self/exe). */
FGLDEF int fgl_wait_choose(char **argv, const char *how, int threads);

/* fgl:implementation */
#include "../alone.h"
#if defined(_OPENMP) && defined(__linux__)
extern char **environ;

static int fgl__wait_same(const char *a, const char *b) {
    for (; *a && *b; a++, b++)
        if ((*a | 0x20) != (*b | 0x20)) return 0; /* ASCII letters, either case */
    return *a == *b;
}

FGLDEF int fgl_wait_choose(char **argv, const char *how, int threads) {
    const char *set = getenv("OMP_WAIT_POLICY"), *want;
    char pol[64], chosen[64], **env;
    size_t n = 0, k, m = 0;
    if (!argv || !argv[0]) return 0;
    if (!how || !strcmp(how, "auto")) {
        double load = 0;
        int ncpu = omp_get_num_procs();
        FILE *f;
        if ((set && *set) || getenv("GOMP_SPINCOUNT") || getenv("FGL_WAIT_CHOSEN")) return 0;
        if (threads <= 0) threads = omp_get_max_threads();
        if (threads <= 1) return 0; /* one thread never waits for another */
        if ((f = fopen("/proc/loadavg", "r"))) {
            if (fscanf(f, "%lf", &load) != 1) load = 0;
            fclose(f);
        }
        if (ncpu > 0 && threads + load <= ncpu - 0.5) return 0; /* a core for every thread: spinning pays */
        want = "passive";
    } else {
        want = strcmp(how, "spin") ? "passive" : "active";
    }
    if (set && fgl__wait_same(set, want)) return 0;
    /* the environment, less any OMP_WAIT_POLICY and FGL_WAIT_CHOSEN, plus the two (execve: no setenv needed,
     * which strict C99 does not declare) */
    while (environ && environ[n]) n++;
    if (!(env = (char **)FGL_MALLOC(sizeof(char *) * (n + 3)))) return -1;
    for (k = 0; k < n; k++)
        if (strncmp(environ[k], "OMP_WAIT_POLICY=", 16) && strncmp(environ[k], "FGL_WAIT_CHOSEN=", 16))
            env[m++] = environ[k];
    snprintf(pol, sizeof pol, "OMP_WAIT_POLICY=%s", want);
    snprintf(chosen, sizeof chosen, "FGL_WAIT_CHOSEN=%s", want);
    env[m++] = pol;
    env[m++] = chosen;
    env[m] = NULL;
    fflush(NULL);
    execve("/proc/self/exe", argv, env);
    FGL_FREE(env); /* still here: the re-execution failed */
    return -1;
}
#else
FGLDEF int fgl_wait_choose(char **argv, const char *how, int threads) {
    (void)argv;
    (void)how;
    (void)threads;
    return 0;
}
#endif
#include "../alone.h"
