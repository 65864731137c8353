/* fglrun/wait.c - OpenMP's wait policy, chosen by the program (issue 38).
 *
 * Between parallel regions an OpenMP thread either spins (busy-waits) for a
 * while or sleeps at once. Spinning saves a wake-up on a quiet machine with
 * a core per thread; on a machine whose cores are all busy (other
 * processes, or as many threads as cores) a spinning thread takes the time
 * slice that another thread needs: on a loaded 2-core machine fglrun's
 * default run took 20.8 s spinning against 12.3 s passive, the course
 * grader 70 s against 7 s (issue 38). libgomp reads OMP_WAIT_POLICY when
 * the program is loaded, before main, so fgl_wait_choose sets it and
 * re-executes the program, once, with the same arguments.
 *
 * how: "auto" (the default), "spin" or "passive". auto keeps the user's
 * OMP_WAIT_POLICY or GOMP_SPINCOUNT when either is set; otherwise it asks
 * for passive waiting when the run's threads plus the machine's load (its
 * 1-minute average, /proc/loadavg) would not leave a core free (more than
 * the online processors less one half), and leaves the runtime's default
 * (spinning for a while) when there is room. spin and passive set
 * OMP_WAIT_POLICY (active, passive) whatever the environment says. The
 * policy chosen is left in FGL_WAIT_CHOSEN (which also keeps auto from
 * choosing twice). Returns when nothing needs to change, or when the
 * re-execution failed (the run goes on with the runtime's policy). */
static int fgl__wait_same(const char *a, const char *b) {
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    return *a == *b;
}

static void fgl_wait_choose(char **argv, const char *how, int threads) {
    const char *set = getenv("OMP_WAIT_POLICY"), *want;
    if (!argv || !argv[0]) return;
    if (!how || !strcmp(how, "auto")) {
        double load = 0;
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        FILE *f;
        if ((set && *set) || getenv("GOMP_SPINCOUNT") || getenv("FGL_WAIT_CHOSEN")) return;
#ifdef _OPENMP
        if (threads <= 0) threads = omp_get_max_threads();
#endif
        if (threads <= 1) return; /* one thread never waits for another */
        if ((f = fopen("/proc/loadavg", "r"))) {
            if (fscanf(f, "%lf", &load) != 1) load = 0;
            fclose(f);
        }
        if (ncpu > 0 && threads + load <= (double)ncpu - 0.5) return; /* a core for every thread: spinning pays */
        want = "passive";
    } else {
        want = strcmp(how, "spin") ? "passive" : "active";
    }
    if (set && fgl__wait_same(set, want)) return;
    if (setenv("OMP_WAIT_POLICY", want, 1) || setenv("FGL_WAIT_CHOSEN", want, 1)) return;
    fflush(NULL);
    execv("/proc/self/exe", argv);
    execvp(argv[0], argv); /* no /proc: the name it was started by */
}
