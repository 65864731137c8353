/* --- fglrun over MPI: rank 0 the server, the other ranks the clients' hosts (make mpi) --- */
#include "fglrun.h"
#ifdef FGL_MPI /* the whole part: built with -DFGL_MPI only (make mpi) */
/* Rank 0 runs fglrun as the server; the other ranks host clients until it
 * is done. Faults (README, "Across processes and machines"): a rank lost
 * in a run is left out and the run finishes; rank 0 then exits with status
 * 4 (FGLRUN_LOST; 3 is a replay on other data) once everything is written.
 * A rank that did not confirm the end (dead, or stopped) would keep
 * MPI_Finalize waiting: under plain mpirun, rank 0 ends the job with
 * MPI_Abort(4) after flushing its output;
 * under mpirun --enable-recovery, where Open MPI 4's MPI_Abort does not end
 * a job, the ranks on that rank's host end it (SIGKILL, after checking in
 * /proc that the process is that rank of this job) and every rank left
 * exits without MPI_Finalize, whose fence Open MPI 4.1 was seen to wait on
 * forever after a process died (2 runs in 8 here). Each rank's process id
 * and host are gathered at the start for that, and so that a worker
 * notices when rank 0, on its host, is gone (it then exits too).
 * fglrun_mpi_main does all of it (MPI initialised and finalised there): a
 * program of your own that registers algorithms returns it instead of
 * fglrun_main when built with -DFGL_MPI (every rank registers them first). */
#define FGLRUN_LOST 4
#define FGLRUN_TAG_END 7199

typedef struct mpi_proc {
    long pid;
    char host[MPI_MAX_PROCESSOR_NAME + 1];
} mpi_proc;

typedef struct mpi_procs {
    mpi_proc *all;   /* per rank */
    int me;
} mpi_procs;

static int same_host(const mpi_procs *p, int r) { return strcmp(p->all[r].host, p->all[p->me].host) == 0; }

/* Rank 0 exists, or cannot be seen from here (another host). */
static int server_alive(void *ctx) {
    const mpi_procs *p = (const mpi_procs *)ctx;
    return !same_host(p, 0) || kill((pid_t)p->all[0].pid, 0) == 0 || errno != ESRCH;
}

/* Process pid is rank `rank` of this Open MPI job: its environment (Linux's
 * /proc) has the rank and this job's id; 0 when it cannot be told. */
static int is_rank_of_job(long pid, int rank) {
    const char *job = getenv("OMPI_MCA_ess_base_jobid");
    char path[64], want_rank[64], want_job[128], *buf;
    size_t n = 0, at;
    int has_rank = 0, has_job = 0, c;
    FILE *f;
    if (!job) return 0;
    snprintf(path, sizeof path, "/proc/%ld/environ", pid);
    snprintf(want_rank, sizeof want_rank, "OMPI_COMM_WORLD_RANK=%d", rank);
    snprintf(want_job, sizeof want_job, "OMPI_MCA_ess_base_jobid=%s", job);
    if (!(f = fopen(path, "rb"))) return 0;
    if (!(buf = (char *)malloc(1 << 20))) {
        fclose(f);
        return 0;
    }
    while (n < (1 << 20) - 1 && (c = fgetc(f)) != EOF) buf[n++] = (char)c;
    buf[n] = 0;
    fclose(f);
    for (at = 0; at < n; at += strlen(buf + at) + 1) {
        has_rank |= strcmp(buf + at, want_rank) == 0;
        has_job |= strcmp(buf + at, want_job) == 0;
    }
    free(buf);
    return has_rank && has_job;
}

/* Open MPI's mpirun --enable-recovery (the job survives a process that dies) */
static int mpi_recovery(void) {
    const char *env = getenv("OMPI_MCA_orte_enable_recovery");
    int on = 0;
#if MPI_VERSION > 3 || (MPI_VERSION == 3 && MPI_SUBVERSION >= 1)
    int provided, idx, count;
    MPI_T_cvar_handle h;
    union { int i; long long l; double d; unsigned char b[16]; } v;
    if (env) return strcmp(env, "0") != 0 && strcmp(env, "false") != 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return 0;
    if (MPI_T_cvar_get_index("orte_enable_recovery", &idx) == MPI_SUCCESS &&
        MPI_T_cvar_handle_alloc(idx, NULL, &h, &count) == MPI_SUCCESS) {
        memset(&v, 0, sizeof v);
        if (count == 1 && MPI_T_cvar_read(h, &v) == MPI_SUCCESS) on = v.b[0] != 0; /* a bool, little-endian int */
        MPI_T_cvar_handle_free(&h);
    }
    MPI_T_finalize();
#else
    on = env && strcmp(env, "0") != 0 && strcmp(env, "false") != 0;
#endif
    return on;
}

/* SIGKILL the ranks marked in end[] that run on this host. */
static void end_ranks(const mpi_procs *p, const unsigned char *end, int size) {
    int r;
    for (r = 1; r < size; r++)
        if (end[r] && r != p->me && same_host(p, r) && is_rank_of_job(p->all[r].pid, r)) {
            fprintf(stderr, "fglrun (rank %d): ending rank %d (process %ld), which did not leave\n", p->me, r,
                    p->all[r].pid);
            kill((pid_t)p->all[r].pid, SIGKILL);
        }
}

int fglrun_mpi_main(int argc, char **argv) {
    int rank = 0, size = 1, rc, r, lost = 0, missing = 0;
    mpi_procs p;
    mpi_proc me;
    unsigned char *end;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* a rank that dies is fgl's to handle */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(&me, 0, sizeof me);
    me.pid = (long)getpid();
    MPI_Get_processor_name(me.host, &r);
    p.me = rank;
    p.all = (mpi_proc *)calloc((size_t)size, sizeof(mpi_proc));
    end = (unsigned char *)calloc((size_t)size, 1);
    if (!p.all || !end) {
        fprintf(stderr, "fglrun (rank %d): out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, p.all, (int)sizeof me, MPI_BYTE, MPI_COMM_WORLD);
    if (rank == 0) {
        rc = fglrun_main(argc, argv);
        missing = fgl_mpi_finish(MPI_COMM_WORLD);
        for (r = 1; r < size; r++) {
            end[r] = fgl_mpi_rank_gone(MPI_COMM_WORLD, r) == 2;
            lost += fgl_mpi_rank_gone(MPI_COMM_WORLD, r) != 0;
        }
        if (lost) {
            fprintf(stderr, "fglrun: %d of %d worker ranks lost (%d did not leave at the end); exit status %d\n",
                    lost, size - 1, missing, rc ? rc : FGLRUN_LOST);
            if (!rc) rc = FGLRUN_LOST;
        }
        fflush(stdout);
        fflush(stderr);
        if (missing && !mpi_recovery()) {
            /* everything is written: MPI_Finalize would wait for them, so the job ends here */
            fprintf(stderr, "fglrun: MPI_Abort ends the job (exit status %d)\n", rc);
            fflush(stderr);
            MPI_Abort(MPI_COMM_WORLD, rc);
        }
        end[0] = missing > 0; /* then nobody calls MPI_Finalize */
        for (r = 1; r < size; r++) /* who ends whom (nobody, mostly) */
            if (!end[r]) MPI_Send(end, size, MPI_BYTE, r, FGLRUN_TAG_END, MPI_COMM_WORLD);
        end_ranks(&p, end, size);
    } else {
        fgl_error err;
        MPI_Request rq;
        int flag = 0;
        rc = fgl_mpi_serve_watched(MPI_COMM_WORLD, server_alive, &p, &err);
        if (rc) fprintf(stderr, "fglrun: %s\n", err.msg); /* "rank N: ..." */
        rc = rc ? 1 : 0;
        if (!rc && MPI_Irecv(end, size, MPI_BYTE, 0, FGLRUN_TAG_END, MPI_COMM_WORLD, &rq) == MPI_SUCCESS) {
            double next = fgl_now() + 1;
            while (MPI_Test(&rq, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag) {
                struct timespec ts = {0, 1000000};
                if (fgl_now() > next) {
                    next = fgl_now() + 1;
                    if (!server_alive(&p)) break;
                }
                nanosleep(&ts, NULL);
            }
            if (flag) end_ranks(&p, end, size);
            else {
                MPI_Cancel(&rq);
                MPI_Request_free(&rq);
            }
        }
        if (rc || !flag) end[0] = 1; /* rank 0 is gone: no MPI_Finalize */
    }
    r = end[0];
    free(p.all);
    free(end);
    if (r) { /* a rank died or was ended: MPI_Finalize might wait for it */
        fflush(NULL);
        return rc;
    }
    MPI_Finalize();
    return rc;
}
#endif /* FGL_MPI */
