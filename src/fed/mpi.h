#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Distributed runs over MPI (define FGL_MPI before including)               */
/* ------------------------------------------------------------------------ */
#ifdef FGL_MPI
/* Rank 0 is the server; the clients are spread over the other ranks in
 * contiguous blocks (client i on the (1 + floor(i L / K))-th of the L live
 * worker ranks), several per rank, OpenMP inside a rank. Rank 0 builds the
 * run as usual (it holds the data only to send each rank its own clients'
 * share: node data, with its halo if it has one and a link client's edge
 * split, or graph sets), then:
 *       if (rank == 0) {
 *           fgl_run_init(&run, &cfg, algo, cd, K, &err);
 *           fgl_mpi_distribute(&run, MPI_COMM_WORLD, NULL, &err);
 *           for (r = 0; r < cfg.rounds; r++) fgl_run_round(&run);   // as in one process
 *           fgl_run_free(&run);                 // the workers drop the run
 *           if (fgl_mpi_finish(MPI_COMM_WORLD)) // they return from fgl_mpi_serve
 *               ...                             // some rank did not: see below
 *       } else fgl_mpi_serve(MPI_COMM_WORLD, &err);
 * fgl_run_round, fgl_run_save and fgl_run_load then work across the
 * processes with the same bits as in one: every rank runs the same build
 * (checked), each client's computation happens where it lives, uploads and
 * downloads travel as their declared parts (4 bytes a float, plus a header
 * per message), and only the next round's participants get a download.
 * Algorithms must be registered (fgl_algo_register) in every process, as
 * the workers find them by name.
 *
 * Faults. A rank that does not answer within the timeout (dead, stopped,
 * hung, or sending garbage; a reply that begins but whose body does not
 * come within another timeout, too) is lost: its clients are left out of the rounds
 * (counted in fgl_round_stats.n_lost) and of the accuracy means, and the
 * run goes on; checkpoints need every client, so the last one written
 * before the loss restarts the whole job. A lost rank stays lost on that
 * communicator: later runs spread their clients over the other ranks (a
 * rank lost while a run starts, too; with no worker left the run stays on
 * rank 0). The server never blocks on a lost rank: every send is
 * non-blocking and given up (MPI_Request_free) when the rank is lost, and
 * fgl sets the communicator's error handler to MPI_ERRORS_RETURN, so that a
 * failed call reaches fgl (which loses the rank) instead of ending the job.
 * Whether the job survives a process that dies is the MPI's decision: Open
 * MPI 4 ends the whole job unless mpirun has --enable-recovery (README,
 * "Across processes and machines"). fgl never aborts: fgl_mpi_finish tells
 * the program whether MPI_Finalize is safe, and the program decides. */
typedef struct fgl_mpi_config {
    double timeout;              /* seconds a rank may take to answer before it is lost (300) */
    int fail_rank, fail_round;   /* a simulated fault: rank fail_rank (0: none) stops answering from
                                    round fail_round (1-based) on; fail_round 0: from the run's start
                                    (it never answers the run's description) */
    int fail_exit;               /* 1: instead, that rank posts the start of a large reply and ends its
                                    process (_Exit, status 70), as a process killed in mid-send: the
                                    server sees a reply begin whose body never comes. For tests of
                                    the server under mpirun --enable-recovery (plain mpirun ends the
                                    job); fgl never ends a process otherwise */
} fgl_mpi_config;

typedef struct fgl_mpi_stats {
    int ranks, lost_ranks;               /* lost_ranks: in this run (while it started, too) */
    int lost_clients;                    /* the clients left out with them */
    size_t bytes_sent, bytes_received;   /* by the server during the run, headers included */
    size_t bytes_data;                   /* the clients' data and the run's description, at the start */
    double t_exchange;                   /* server seconds from posting commands to the last reply */
    double t_remote;                     /* sum over exchanges of the slowest rank's own seconds */
    char note[256];                      /* each lost rank, which clients, and why (" | " between; those that fit) */
} fgl_mpi_stats;

FGLDEF fgl_mpi_config fgl_mpi_default(void);
/* The name before the naming rule (README, "Names"), kept so that existing programs compile: */
#define fgl_mpi_options fgl_mpi_config
#define fgl_mpi_options_default fgl_mpi_default
/* Rank 0, after fgl_run_init (and fgl_run_set) and before the first round:
 * send each other live rank its clients' data and the run's description.
 * With one process (or no live worker left) the run stays where it is. */
FGLDEF int fgl_mpi_distribute(fgl_run *run, MPI_Comm comm, const fgl_mpi_config *opt, fgl_error *err);
/* Ranks 1..P-1: host clients for the runs rank 0 distributes, until
 * fgl_mpi_finish. Returns FGL_OK, or an error that stopped this process. */
FGLDEF int fgl_mpi_serve(MPI_Comm comm, fgl_error *err);
/* fgl_mpi_serve that, while it waits for the server (a command, or a reply
 * to be taken), asks server_alive(ctx) about once a second whether rank 0
 * still exists; when it says 0, returns FGL_ERR_IO ("the server is gone").
 * MPI cannot tell a rank that rank 0 died; the program can (fglrun: rank
 * 0's process id, on the same host). */
FGLDEF int fgl_mpi_serve_watched(MPI_Comm comm, int (*server_alive)(void *ctx), void *ctx, fgl_error *err);
/* Rank 0: no more runs. Tells every other rank to return from
 * fgl_mpi_serve and waits for each to confirm (up to the longest timeout of
 * the runs; ranks lost before, a second). Returns how many did not confirm:
 * 0, and MPI_Finalize waits for no lost rank; otherwise they are dead or
 * stopped (fgl_mpi_rank_gone says which), and with Open MPI 4 MPI_Finalize
 * would wait for a stopped one forever (the program ends the job, MPI_Abort,
 * after writing what it has). */
FGLDEF int fgl_mpi_finish(MPI_Comm comm);
/* Rank 0: 1 if rank was lost on comm (in a run, while one started, or at
 * fgl_mpi_finish; 2: it did not confirm fgl_mpi_finish), else 0. */
FGLDEF int fgl_mpi_rank_gone(MPI_Comm comm, int rank);
/* What crossed MPI for a distributed run (0 and ranks 1 for a local one). */
FGLDEF void fgl_mpi_stats_get(const fgl_run *run, fgl_mpi_stats *out);
#endif /* FGL_MPI */

/* fgl:implementation */
#include "../alone.h"
/* ======================================================================== */
/* FGL_MPI: a run across processes                                          */
/* ======================================================================== */
/* The server (rank 0) sends commands, each rank answers each command with
 * one reply; both are byte strings in fgl_bytes' little-endian encoding:
 *   command: u32 kind, u32 run id, u32 round, then its body;
 *   reply:   u32 kind, u32 run id, u32 round, u32 status, str error, f64
 *            seconds the rank spent on it, then its body.
 *   INIT    run description, every client's spec and registration, the
 *           rank's clients' data                       -> status
 *   START   parameter values, the first downloads      -> status
 *   TRAIN   the round's participants                   -> each hosted
 *           participant's error, loss and upload parts
 *   FINISH  evaluate?, the next downloads              -> accuracies
 *   SAVE                                               -> client stores
 *   LOAD    check: client stores; commit: nothing       -> status
 *   RESUME  participants, downloads (no receive hooks) -> status
 *   SECAGG  a step of secure aggregation (secagg.h): 1 the participants
 *           -> each hosted one's public keys; 2 all public keys -> its
 *           sealed shares; 3 the survivors and the shares sealed to each
 *           hosted survivor -> its revealed shares. The secrets stay on
 *           the rank (the secret seed, when the run has one, comes in
 *           INIT; its run label with the configuration)
 *   END (no reply)
 *   QUIT                                               -> a bare header
 * A download or upload is, per client, its id and per declared part a u64
 * length (0: absent) and the floats' bits. Waiting polls (MPI_Iprobe) with
 * growing naps, so a waiting process leaves the cores to those computing;
 * every send is MPI_Isend, tested with the same naps until it completes or
 * its rank is given up, and every body whose envelope arrived is received
 * with MPI_Irecv, tested every 50-100 us for a second, then with the naps,
 * so no side blocks on a process that died or stopped.
 * The server keeps, with each communicator (an MPI attribute), which ranks
 * it lost and the longest timeout of its runs. */
#ifdef FGL_MPI

#define FGL__MPI_CMD 7101
#define FGL__MPI_REPLY 7102
#define FGL__MPI_PROTOCOL 10u /* 2: INIT carries cfg.park_idle; 3: secure aggregation's steps, the secret seed;
                                4: QUIT is confirmed; 5: node data's halo, link splits, Hits@K in replies;
                                6: INIT carries the simulated fault's fail_exit;
                                7: the configuration carries the secrets' run label (with a secret seed);
                                8: evaluation replies carry macro-F1 and ROC-AUC;
                                9: under secure aggregation every FINISH is answered with the survivors'
                                   masked numbers (step 5), not with any client's own; SECAGG step 4 (the
                                   survivors list's tags), which step 3 then carries to each survivor;
                                10: INIT carries cfg.plugin (a plug-in by name) */

enum {
    FGL__MC_INIT = 1,
    FGL__MC_START,
    FGL__MC_TRAIN,
    FGL__MC_FINISH,
    FGL__MC_SAVE,
    FGL__MC_LOAD,
    FGL__MC_RESUME,
    FGL__MC_END,
    FGL__MC_QUIT,
    FGL__MC_SECAGG
};

FGLDEF fgl_mpi_config fgl_mpi_default(void) {
    fgl_mpi_config o;
    memset(&o, 0, sizeof o);
    o.timeout = 300;
    return o;
}

/* Sleep *us microseconds where POSIX allows it (else return at once: the
 * caller polls MPI again), doubling up to 2 ms. */
static void fgl__mpi_nap(int *us) {
#if defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 199309L
    struct timespec ts;
    ts.tv_sec = 0;
    ts.tv_nsec = 1000L * *us;
    nanosleep(&ts, NULL);
#endif
    if (*us < 2000) *us *= 2;
}

/* The body of a message whose envelope MPI_Iprobe saw, received without
 * waiting past `wait` seconds: a rank that dies after its envelope arrived
 * never delivers the body (Open MPI's shared-memory transport then fails
 * its copy out of the dead sender, "Read -1 ... errno = 3"), and a blocking
 * MPI_Recv would hold rank 0 for ever. FGL_OK when the body is in *buf;
 * FGL_ERR_EMPTY when it did not come within `wait`, FGL_ERR_IO when MPI
 * failed. Then the receive is given up and *buf, which MPI may still write
 * to, is left to MPI (set to NULL here, never freed), except when MPI_Irecv
 * itself failed (*buf stays the caller's). Polls every 50-100 us for the
 * first second (a transport that moves data only inside MPI calls, such
 * as TCP, needs them often), then with growing naps. gone (NULL: none),
 * asked between polls, ends the wait early when it says the sender is gone
 * (FGL_ERR_IO): a worker's check on rank 0. */
static int fgl__mpi_recv_body(unsigned char **buf, int count, int src, int tag, MPI_Comm comm, double wait,
                              int (*gone)(void *ctx), void *ctx) {
    MPI_Request q;
    int flag = 0, nap = 50, rc = FGL_ERR_IO;
    double t0 = fgl_now(), el;
    if (MPI_Irecv(*buf, count, MPI_BYTE, src, tag, comm, &q) != MPI_SUCCESS) return FGL_ERR_IO; /* *buf: ours */
    for (;;) {
        if (MPI_Test(&q, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) break;
        if (flag) return FGL_OK;
        if (gone && gone(ctx)) break;
        if ((el = fgl_now() - t0) > wait) {
            rc = FGL_ERR_EMPTY;
            break;
        }
        if (el < 1) nap = 50;
        fgl__mpi_nap(&nap);
    }
    if (q != MPI_REQUEST_NULL) MPI_Request_free(&q);
    *buf = NULL;
    return rc;
}

static void fgl__mpi_begin(fgl_bytes *b, uint32_t kind, uint32_t run_id, int round) {
    b->len = 0;
    b->err = 0;
    fgl_bytes_put_u32(b, kind);
    fgl_bytes_put_u32(b, run_id);
    fgl_bytes_put_u32(b, (uint32_t)round);
}

/* --- the server's side ------------------------------------------------------------- */

/* What the server keeps with a communicator (an MPI attribute, freed with
 * it): the ranks it lost, for the runs after and fgl_mpi_finish, and the
 * longest timeout of its runs. */
typedef struct fgl__mpi_comm {
    int size;
    double timeout;
    unsigned char *gone; /* per rank: 1 lost, 2 did not confirm fgl_mpi_finish */
} fgl__mpi_comm;

static int fgl__mpi_keyval = MPI_KEYVAL_INVALID;

static int fgl__mpi_comm_delete(MPI_Comm comm, int keyval, void *attr, void *extra) {
    fgl__mpi_comm *s = (fgl__mpi_comm *)attr;
    (void)comm;
    (void)keyval;
    (void)extra;
    if (s) FGL_FREE(s->gone);
    FGL_FREE(s);
    return MPI_SUCCESS;
}

/* comm's state, created (nothing lost) when create is set; NULL when there
 * is none, or no memory or keyval for it. */
static fgl__mpi_comm *fgl__mpi_comm_state(MPI_Comm comm, int create) {
    fgl__mpi_comm *s;
    void *v = NULL;
    int flag = 0, size = 0;
    if (fgl__mpi_keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, fgl__mpi_comm_delete, &fgl__mpi_keyval, NULL) != MPI_SUCCESS) {
        fgl__mpi_keyval = MPI_KEYVAL_INVALID;
        return NULL;
    }
    if (MPI_Comm_get_attr(comm, fgl__mpi_keyval, &v, &flag) == MPI_SUCCESS && flag && v) return (fgl__mpi_comm *)v;
    if (!create || MPI_Comm_size(comm, &size) != MPI_SUCCESS || size < 1) return NULL;
    s = (fgl__mpi_comm *)fgl__zalloc(sizeof *s);
    if (s && !(s->gone = (unsigned char *)fgl__zalloc((size_t)size))) {
        FGL_FREE(s);
        s = NULL;
    }
    if (s && MPI_Comm_set_attr(comm, fgl__mpi_keyval, s) != MPI_SUCCESS) {
        fgl__mpi_comm_delete(comm, fgl__mpi_keyval, s, NULL);
        s = NULL;
    }
    if (s) s->size = size;
    return s;
}

typedef struct fgl__mpi {
    struct fgl__transport tr;   /* first: run->transport points here */
    MPI_Comm comm;
    int size;
    uint32_t run_id;
    fgl_mpi_config opt;
    fgl__mpi_comm *cs;          /* the communicator's state (NULL: none could be kept) */
    int starting;               /* INIT under way: a rank lost now gives its clients to the others */
    int *host;                  /* K: the rank hosting client i */
    int *ranks;                 /* size: scratch, the live ranks in order */
    unsigned char *alive;       /* per rank: took the run, not lost */
    unsigned char *member;      /* per rank: was sent the run (INIT) */
    unsigned char *want;        /* per rank: a reply awaited */
    fgl_bytes *out;             /* per rank: the command being sent */
    MPI_Request *req;           /* per rank: its send */
    MPI_Request *end;           /* per rank: the END send */
    fgl_bytes *stores;          /* SAVE: where the replies' client stores go */
    fgl_mpi_stats st;
} fgl__mpi;

typedef int (*fgl__mpi_handler)(fgl_run *run, fgl__mpi *t, int rank, fgl_reader *r);

static fgl__mpi *fgl__mpi_of(const fgl_run *run) { return (fgl__mpi *)run->transport; }

/* A rank stops answering: its clients are out of the run from now on, and
 * the rank out of the communicator's later runs. Its pending send, if any,
 * stays posted (given up when the run is freed). */
static void fgl__mpi_lose(fgl_run *run, fgl__mpi *t, int rank, const char *why) {
    int i, first = -1, last = -1;
    if (!t->alive[rank]) return;
    t->alive[rank] = 0;
    t->want[rank] = 0;
    if (t->cs && rank < t->cs->size) t->cs->gone[rank] = 1;
    for (i = 0; i < run->n_clients; i++)
        if (t->host[i] == rank) {
            fgl_client *c = &run->clients[i];
            run->lost[i] = 1;
            fgl__msg_clear(&c->up);
            c->err.code = 0;
            if (first < 0) first = i;
            last = i;
        }
    { /* appended to the note, " | " between; an entry that does not fit whole is left out */
        char one[sizeof t->st.note], *note = t->st.note;
        size_t at = strlen(note), n;
        if (t->starting)
            snprintf(one, sizeof one, "rank %d lost as the run started: %s; its clients went to the others", rank, why);
        else
            snprintf(one, sizeof one, "rank %d (clients %d-%d) lost in round %d: %s", rank, first, last, run->round + 1,
                     why);
        n = strlen(one);
        if (t->st.lost_ranks++ == 0) memcpy(note, one, n + 1);
        else if (at + 3 + n < sizeof t->st.note) {
            memcpy(note + at, " | ", 3);
            memcpy(note + at + 3, one, n + 1);
        }
    }
}

/* Poll (napping) until rank r's last send completes: FGL_OK, or the rank
 * is lost (not taken before the deadline, or MPI failed). */
static int fgl__mpi_settle(fgl_run *run, fgl__mpi *t, int r, double deadline) {
    int nap = 50;
    while (t->req[r] != MPI_REQUEST_NULL) {
        int flag = 0;
        if (MPI_Test(&t->req[r], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            fgl__mpi_lose(run, t, r, "MPI failed on its last command");
            return FGL_ERR_IO;
        }
        if (flag) break;
        if (fgl_now() > deadline) {
            fgl__mpi_lose(run, t, r, "its last command was not taken within the timeout");
            return FGL_ERR_IO;
        }
        fgl__mpi_nap(&nap);
    }
    return FGL_OK;
}

/* Post the commands built in t->out for the ranks in t->want and wait for
 * their replies of the same kind: handler (may be NULL) reads each body. A
 * rank that does not answer within the timeout, whose reply is malformed,
 * or that MPI fails to reach, is lost; a rank that reports an error fails
 * the run. Nothing here blocks: sends are MPI_Isend, waits are polls. */
static int fgl__mpi_exchange(fgl_run *run, fgl__mpi *t, uint32_t kind, fgl__mpi_handler handler) {
    double t0 = fgl_now(), t_sent, slowest = 0;
    int r, pending = 0, nap = 50, rc = FGL_OK;
    for (r = 1; r < t->size; r++) {
        fgl_bytes *b = &t->out[r];
        if (!t->want[r]) continue;
        if (!t->alive[r]) {
            t->want[r] = 0;
            continue;
        }
        if (b->err || b->len > (size_t)INT_MAX) {
            t->want[r] = 0;
            if (!rc) rc = fgl_error_set(&run->err, b->err ? b->err : FGL_ERR_RANGE, "mpi: a command to rank %d %s", r,
                                        b->err ? "ran out of memory" : "exceeds 2 GB");
            continue;
        }
        /* its last command was answered, so that send completes at once; a rank lost here is lost */
        if (fgl__mpi_settle(run, t, r, fgl_now() + t->opt.timeout)) continue;
        if (MPI_Isend(b->data, (int)b->len, MPI_BYTE, r, FGL__MPI_CMD, t->comm, &t->req[r]) != MPI_SUCCESS) {
            t->req[r] = MPI_REQUEST_NULL;
            fgl__mpi_lose(run, t, r, "MPI could not send it a command");
            continue;
        }
        t->st.bytes_sent += b->len;
        pending++;
    }
    t_sent = fgl_now(); /* the deadline counts from here, whatever settling the sends took */
    while (pending > 0) {
        /* the deadline is read before the pass, so that each rank is probed once after it: a pass can take
           the timeout itself (a body that never comes), and a reply that arrived meanwhile is not late */
        int got = 0, late = fgl_now() - t_sent > t->opt.timeout;
        for (r = 1; r < t->size; r++) {
            int flag = 0, count = 0, rc_body;
            MPI_Status status;
            unsigned char *buf;
            fgl_reader rd;
            uint32_t k, id, round, status_code;
            char msg[256];
            double secs;
            if (!t->want[r]) continue;
            if (MPI_Iprobe(r, FGL__MPI_REPLY, t->comm, &flag, &status) != MPI_SUCCESS) {
                fgl__mpi_lose(run, t, r, "MPI failed while waiting for its reply");
                pending--;
                continue;
            }
            if (!flag) continue;
            MPI_Get_count(&status, MPI_BYTE, &count);
            buf = (unsigned char *)FGL_MALLOC((size_t)FGL__MAX(count, 1));
            if (!buf) {
                fgl__mpi_lose(run, t, r, "out of memory for its reply");
                pending--;
                continue;
            }
            if ((rc_body = fgl__mpi_recv_body(&buf, count, r, FGL__MPI_REPLY, t->comm, t->opt.timeout, NULL, NULL))) {
                FGL_FREE(buf);
                fgl__mpi_lose(run, t, r, rc_body == FGL_ERR_EMPTY ? "its reply began but did not arrive within the "
                                                                    "timeout" : "MPI failed receiving its reply");
                pending--;
                continue;
            }
            t->st.bytes_received += (size_t)count;
            got = 1;
            rd = fgl_reader_make(buf, (size_t)count);
            k = fgl_reader_u32(&rd);
            id = fgl_reader_u32(&rd);
            round = fgl_reader_u32(&rd);
            status_code = fgl_reader_u32(&rd);
            msg[0] = 0;
            fgl_reader_str(&rd, msg, sizeof msg);
            secs = fgl__get_f64(&rd);
            if (!rd.err &&
                (k != kind || id != t->run_id || round != (uint32_t)run->round)) { /* an old reply: not this one */
                FGL_FREE(buf);
                continue;
            }
            t->want[r] = 0;
            pending--;
            if (rd.err) fgl__mpi_lose(run, t, r, "a malformed reply");
            else if (status_code) {
                if (!rc) rc = fgl_error_set(&run->err, (int)status_code, "rank %d: %s", r, msg);
            } else if (handler && (handler(run, t, r, &rd) || rd.err || rd.pos != rd.len))
                fgl__mpi_lose(run, t, r, "a malformed reply");
            if (secs == secs && secs > slowest) slowest = secs;
            FGL_FREE(buf);
        }
        if (pending == 0) break;
        if (late) {
            char why[64];
            snprintf(why, sizeof why, "no answer within %g s", t->opt.timeout);
            for (r = 1; r < t->size; r++)
                if (t->want[r]) fgl__mpi_lose(run, t, r, why);
            break;
        }
        if (got) nap = 50;
        else fgl__mpi_nap(&nap);
    }
    t->st.t_exchange += fgl_now() - t0;
    t->st.t_remote += slowest;
    return rc;
}

/* Start a command of this kind to every live rank that hosts a client
 * selected by sel (NULL: every live rank); returns how many. */
static int fgl__mpi_begin_all(fgl_run *run, fgl__mpi *t, uint32_t kind, const unsigned char *sel) {
    int r, i, n = 0;
    memset(t->want, 0, (size_t)t->size);
    if (sel) {
        for (i = 0; i < run->n_clients; i++)
            if (sel[i]) t->want[t->host[i]] = 1;
    } else {
        for (r = 1; r < t->size; r++) t->want[r] = 1;
    }
    for (r = 1; r < t->size; r++) {
        t->want[r] = t->want[r] && t->alive[r];
        if (t->want[r]) {
            fgl__mpi_begin(&t->out[r], kind, t->run_id, run->round);
            n++;
        }
    }
    return n;
}

/* Append to each rank's command the downloads of its clients among
 * ids[0..n) (the coming round's participants). */
static void fgl__mpi_put_downloads(fgl_run *run, fgl__mpi *t, const int *ids, int n) {
    int r, q, m;
    for (r = 1; r < t->size; r++) {
        if (!t->want[r]) continue;
        for (q = m = 0; q < n; q++) m += t->host[ids[q]] == r && !run->lost[ids[q]];
        fgl_bytes_put_u32(&t->out[r], (uint32_t)m);
        for (q = 0; q < n; q++) {
            int i = ids[q];
            if (t->host[i] == r && !run->lost[i]) fgl__put_msg(&t->out[r], i, &run->down[i], run->algo.n_down);
        }
    }
}

/* Mark clients ids[0..n) (or, n 0, nobody) in a K-byte scratch. */
static unsigned char *fgl__mpi_participants(fgl_run *run, fgl__mpi *t, const int *ids, int n) {
    unsigned char *sel = t->want + t->size; /* K bytes after the per-rank flags */
    int q;
    memset(sel, 0, (size_t)run->n_clients);
    for (q = 0; q < n; q++) sel[ids[q]] = 1;
    return sel;
}

static int fgl__mpi_start(fgl_run *run) {
    fgl__mpi *t = fgl__mpi_of(run);
    int r, k;
    fgl__mpi_begin_all(run, t, FGL__MC_START, NULL);
    for (r = 1; r < t->size; r++) {
        if (!t->want[r]) continue;
        fgl_bytes_put_u32(&t->out[r], (uint32_t)run->algo.n_params);
        for (k = 0; k < run->algo.n_params; k++) fgl__put_f64(&t->out[r], run->set.value[k]);
    }
    fgl__mpi_put_downloads(run, t, run->part, run->n_part);
    return fgl__mpi_exchange(run, t, FGL__MC_START, NULL);
}

static int fgl__mpi_read_uploads(fgl_run *run, fgl__mpi *t, int rank, fgl_reader *r) {
    uint32_t n = fgl_reader_u32(r), q;
    unsigned char *sel = t->want + t->size;
    for (q = 0; q < n && !r->err; q++) {
        uint32_t id = fgl_reader_u32(r);
        fgl_client *c;
        int bad = 0;
        if (r->err || id >= (uint32_t)run->n_clients || t->host[id] != rank || sel[id] != 1) return FGL_ERR_FORMAT;
        c = &run->clients[id];
        sel[id] = 2; /* arrived */
        c->err.code = (int)fgl_reader_u32(r);
        fgl_reader_str(r, c->err.msg, sizeof c->err.msg);
        c->train_loss = fgl__get_f64(r);
        fgl__get_msg(r, &c->up, run->algo.up, run->algo.n_up, c->up_len, &bad);
        c->wire_error = bad;
    }
    return r->err;
}

static int fgl__mpi_train(fgl_run *run) {
    fgl__mpi *t = fgl__mpi_of(run);
    unsigned char *sel = fgl__mpi_participants(run, t, run->part, run->n_part);
    int r, q, rc;
    for (q = 0; q < run->n_part; q++) {
        fgl_client *c = &run->clients[run->part[q]];
        fgl__msg_clear(&c->up);
        c->err.code = c->wire_error = 0;
        c->err.msg[0] = 0;
        c->train_loss = NAN;
        if (run->lost[c->id]) sel[c->id] = 0;
    }
    fgl__mpi_begin_all(run, t, FGL__MC_TRAIN, sel);
    for (r = 1; r < t->size; r++) {
        if (!t->want[r]) continue;
        fgl_bytes_put_u32(&t->out[r], (uint32_t)run->n_part);
        for (q = 0; q < run->n_part; q++) fgl_bytes_put_u32(&t->out[r], (uint32_t)run->part[q]);
    }
    rc = fgl__mpi_exchange(run, t, FGL__MC_TRAIN, fgl__mpi_read_uploads);
    for (q = 0; q < run->n_part; q++) { /* a participant its live rank left out of the reply: refused */
        fgl_client *c = &run->clients[run->part[q]];
        if (sel[c->id] == 1 && !run->lost[c->id]) c->wire_error = 1;
    }
    return rc;
}

/* The place of client id among secure aggregation's participants, or -1. */
static int fgl__sa_place(const struct fgl__sa *sa, uint32_t id) {
    int lo = 0, hi = sa->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if ((uint32_t)sa->ids[mid] == id) return mid;
        if ((uint32_t)sa->ids[mid] < id) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

static int fgl__mpi_read_secagg(fgl_run *run, fgl__mpi *t, int rank, fgl_reader *r) {
    struct fgl__sa *sa = run->sa;
    uint32_t step = fgl_reader_u32(r), m = fgl_reader_u32(r), q;
    size_t n = (size_t)sa->n;
    for (q = 0; q < m && !r->err; q++) {
        uint32_t id = fgl_reader_u32(r);
        int a = fgl__sa_place(sa, id);
        fgl_client *c;
        if (r->err || a < 0 || t->host[id] != rank) return FGL_ERR_FORMAT;
        c = &run->clients[id];
        c->err.code = (int)fgl_reader_u32(r);
        fgl_reader_str(r, c->err.msg, sizeof c->err.msg);
        if (step == 1) fgl_reader_get(r, sa->pk + (size_t)a * FGL__SA_PK, FGL__SA_PK);
        else if (step == 2) fgl_reader_get(r, sa->ct + (size_t)a * n * FGL__SA_CT, n * FGL__SA_CT);
        else if (step == 4) fgl_reader_get(r, sa->tag + (size_t)a * n * FGL__SA_TAG, n * FGL__SA_TAG);
        else if ((sa->has_rev[a] = (unsigned char)(fgl_reader_u32(r) == 1)))
            fgl_reader_get(r, sa->rev + (size_t)a * n * FGL__SA_REV, n * FGL__SA_REV);
    }
    return r->err;
}

/* Secure aggregation's step for the participants hosted by the ranks. */
static int fgl__mpi_secagg(fgl_run *run, int step) {
    fgl__mpi *t = fgl__mpi_of(run);
    struct fgl__sa *sa = run->sa;
    unsigned char *sel = t->want + t->size;
    int r, a, n = sa->n;
    memset(sel, 0, (size_t)run->n_clients);
    for (a = 0; a < n; a++)
        if (!run->lost[sa->ids[a]] && !run->clients[sa->ids[a]].local && (step < 3 || sa->alive[a]))
            sel[sa->ids[a]] = 1;
    if (!fgl__mpi_begin_all(run, t, FGL__MC_SECAGG, sel)) return FGL_OK;
    for (r = 1; r < t->size; r++) {
        fgl_bytes *b = &t->out[r];
        if (!t->want[r]) continue;
        fgl_bytes_put_u32(b, (uint32_t)step);
        fgl_bytes_put_u32(b, (uint32_t)n);
        if (step == 1)
            for (a = 0; a < n; a++) fgl_bytes_put_u32(b, (uint32_t)sa->ids[a]);
        if (step == 2) {
            fgl_bytes_put_u32(b, (uint32_t)sa->t);
            fgl_bytes_put(b, sa->pk, (size_t)n * FGL__SA_PK);
        }
        if (step == 4) fgl_bytes_put(b, sa->alive, (size_t)n); /* the survivors list, for each to vouch for */
        if (step == 3) { /* the survivors, then to each of the rank's survivors the tags and the shares sealed to it
                          * (tag, ct: to, from) */
            int m = 0;
            fgl_bytes_put(b, sa->alive, (size_t)n);
            for (a = 0; a < n; a++) m += sel[sa->ids[a]] && t->host[sa->ids[a]] == r;
            fgl_bytes_put_u32(b, (uint32_t)m);
            for (a = 0; a < n; a++)
                if (sel[sa->ids[a]] && t->host[sa->ids[a]] == r) {
                    fgl_bytes_put_u32(b, (uint32_t)sa->ids[a]);
                    fgl_bytes_put(b, sa->tag + (size_t)a * n * FGL__SA_TAG, (size_t)n * FGL__SA_TAG);
                    fgl_bytes_put(b, sa->ct + (size_t)a * n * FGL__SA_CT, (size_t)n * FGL__SA_CT);
                }
        }
    }
    return fgl__mpi_exchange(run, t, FGL__MC_SECAGG, fgl__mpi_read_secagg);
}

static int fgl__mpi_read_evals(fgl_run *run, fgl__mpi *t, int rank, fgl_reader *r) {
    uint32_t n = fgl_reader_u32(r), q;
    for (q = 0; q < n && !r->err; q++) {
        uint32_t id = fgl_reader_u32(r);
        fgl_client *c;
        if (r->err || id >= (uint32_t)run->n_clients || t->host[id] != rank) return FGL_ERR_FORMAT;
        c = &run->clients[id];
        c->val_acc = fgl__get_f64(r);
        c->test_acc = fgl__get_f64(r);
        c->val_hits = fgl__get_f64(r);
        c->test_hits = fgl__get_f64(r);
        c->val_f1 = fgl__get_f64(r); /* (protocol 8 on) */
        c->test_f1 = fgl__get_f64(r);
        c->val_auc = fgl__get_f64(r);
        c->test_auc = fgl__get_f64(r);
        c->tape.err.code = (int)fgl_reader_u32(r);
        fgl_reader_str(r, c->tape.err.msg, sizeof c->tape.err.msg);
    }
    return r->err;
}

/* Under secure aggregation: per hosted survivor, whether its masked
 * numbers follow (1), its evaluation failed (2) or it has none (0), the
 * words, then its error and message. */
static int fgl__mpi_read_sa_metrics(fgl_run *run, fgl__mpi *t, int rank, fgl_reader *r) {
    struct fgl__sa *sa = run->sa;
    uint32_t n = fgl_reader_u32(r), q;
    for (q = 0; q < n && !r->err; q++) {
        uint32_t id = fgl_reader_u32(r), has = fgl_reader_u32(r);
        uint64_t words[FGL__SA_NM];
        int a = -1, k;
        if (r->err || id >= (uint32_t)run->n_clients || t->host[id] != rank || has > 2) return FGL_ERR_FORMAT;
        for (k = 0; k < FGL__SA_NM; k++) words[k] = fgl_reader_u64(r);
        run->clients[id].tape.err.code = (int)fgl_reader_u32(r);
        fgl_reader_str(r, run->clients[id].err.msg, sizeof run->clients[id].err.msg);
        if (r->err) return FGL_ERR_FORMAT;
        if (has == 2) { /* its evaluation failed: the run stops, as without secure aggregation */
            run->clients[id].val_acc = -1;
            continue;
        }
        for (k = 0; sa && k < sa->n; k++)
            if (sa->ids[k] == (int)id) a = k;
        if (has != 1 || a < 0 || !sa->alive || !sa->alive[a] || fgl__sa_metric_slots(sa)) continue;
        memcpy(sa->mw + (size_t)a * FGL__SA_NM, words, sizeof words);
        sa->has_mw[a] = 1;
    }
    return r->err;
}

static int fgl__mpi_finish(fgl_run *run, int evaluated) {
    fgl__mpi *t = fgl__mpi_of(run);
    unsigned char *sel = fgl__mpi_participants(run, t, run->next, run->n_next);
    int r, i;
    if (run->cfg.secagg.on) { /* every rank: its survivors' masked numbers come back, evaluated or not */
        fgl__mpi_begin_all(run, t, FGL__MC_FINISH, NULL);
        for (r = 1; r < t->size; r++)
            if (t->want[r]) fgl_bytes_put_u32(&t->out[r], (uint32_t)evaluated);
        fgl__mpi_put_downloads(run, t, run->next, run->n_next);
        for (i = 0; i < run->n_clients; i++)
            if (!run->clients[i].local) run->clients[i].val_acc = 0; /* (-1 below: a failure reported) */
        if ((r = fgl__mpi_exchange(run, t, FGL__MC_FINISH, fgl__mpi_read_sa_metrics))) return r;
        for (i = 0; i < run->n_clients; i++)
            if (!run->clients[i].local && run->clients[i].val_acc < 0)
                return fgl_error_set(&run->err, run->clients[i].tape.err.code ? run->clients[i].tape.err.code : FGL_ERR_ARG,
                                     "%s, round %d, client %d: %s", run->algo.name, run->round + 1, i,
                                     run->clients[i].err.msg);
        return FGL_OK;
    }
    /* evaluated rounds ask every rank; otherwise only those hosting a next participant hear anything */
    fgl__mpi_begin_all(run, t, FGL__MC_FINISH, evaluated ? NULL : sel);
    for (r = 1; r < t->size; r++)
        if (t->want[r]) fgl_bytes_put_u32(&t->out[r], (uint32_t)evaluated);
    fgl__mpi_put_downloads(run, t, run->next, run->n_next);
    for (i = 0; evaluated && i < run->n_clients; i++) /* what does not arrive stays a failure */
        if (!run->clients[i].local) {
            run->clients[i].val_acc = run->clients[i].test_acc = -1;
            run->clients[i].val_hits = run->clients[i].test_hits = NAN;
            run->clients[i].val_f1 = run->clients[i].test_f1 = NAN;
            run->clients[i].val_auc = run->clients[i].test_auc = NAN;
        }
    return fgl__mpi_exchange(run, t, FGL__MC_FINISH, evaluated ? fgl__mpi_read_evals : NULL);
}

/* SAVE replies: per hosted client, its store's bytes. */
static int fgl__mpi_read_stores(fgl_run *run, fgl__mpi *t, int rank, fgl_reader *r) {
    uint32_t n = fgl_reader_u32(r), q;
    for (q = 0; q < n && !r->err; q++) {
        uint32_t id = fgl_reader_u32(r);
        uint64_t len = fgl_reader_u64(r);
        if (r->err || id >= (uint32_t)run->n_clients || t->host[id] != rank || len > (uint64_t)(r->len - r->pos))
            return FGL_ERR_FORMAT;
        t->stores[id].len = 0;
        fgl_bytes_put(&t->stores[id], r->data + r->pos, (size_t)len);
        fgl__skip(r, (size_t)len);
    }
    return r->err;
}

static int fgl__mpi_save(fgl_run *run, fgl_bytes *stores) {
    fgl__mpi *t = fgl__mpi_of(run);
    int i, r, rc;
    for (i = 0; i < run->n_clients; i++)
        if (run->lost[i])
            return fgl_error_set(&run->err, FGL_ERR_ARG, "client %d is lost with rank %d: its state cannot be saved", i,
                                 t->host[i]);
    fgl__mpi_begin_all(run, t, FGL__MC_SAVE, NULL);
    t->stores = stores;
    rc = fgl__mpi_exchange(run, t, FGL__MC_SAVE, fgl__mpi_read_stores);
    t->stores = NULL;
    for (i = 0; !rc && i < run->n_clients; i++) {
        r = t->host[i];
        if (run->lost[i]) rc = fgl_error_set(&run->err, FGL_ERR_ARG, "rank %d did not send client %d's state", r, i);
        else if (stores[i].err) rc = fgl_error_set(&run->err, FGL_ERR_NOMEM, "out of memory");
    }
    return rc;
}

static int fgl__mpi_load(fgl_run *run, const fgl_reader *stores, int commit, fgl_error *err) {
    fgl__mpi *t = fgl__mpi_of(run);
    int r, i, n, rc;
    for (i = 0; i < run->n_clients; i++)
        if (run->lost[i]) return fgl_error_set(err, FGL_ERR_ARG, "client %d is lost with rank %d", i, t->host[i]);
    fgl__mpi_begin_all(run, t, FGL__MC_LOAD, NULL);
    for (r = 1; r < t->size; r++) {
        fgl_bytes *b = &t->out[r];
        if (!t->want[r]) continue;
        fgl_bytes_put_u32(b, (uint32_t)commit);
        if (commit) continue; /* the rank installs what it checked */
        for (i = n = 0; i < run->n_clients; i++) n += t->host[i] == r;
        fgl_bytes_put_u32(b, (uint32_t)n);
        for (i = 0; i < run->n_clients; i++)
            if (t->host[i] == r) {
                fgl_bytes_put_u32(b, (uint32_t)i);
                fgl_bytes_put_u64(b, (uint64_t)stores[i].len);
                fgl_bytes_put(b, stores[i].data, stores[i].len);
            }
    }
    rc = fgl__mpi_exchange(run, t, FGL__MC_LOAD, NULL);
    for (i = 0; !rc && i < run->n_clients; i++)
        if (run->lost[i])
            rc =
                fgl_error_set(&run->err, FGL_ERR_ARG, "rank %d did not answer while the checkpoint loaded", t->host[i]);
    return rc ? fgl_error_set(err, rc, "%s", run->err.msg) : FGL_OK;
}

static int fgl__mpi_resume(fgl_run *run) {
    fgl__mpi *t = fgl__mpi_of(run);
    fgl__mpi_begin_all(run, t, FGL__MC_RESUME, NULL);
    fgl__mpi_put_downloads(run, t, run->part, run->n_part);
    return fgl__mpi_exchange(run, t, FGL__MC_RESUME, NULL);
}

/* The run's end: every rank that took the run is sent END (a lost one too:
 * a slow rank may still be listening, and drops the run when it gets
 * there). The server waits for the live ranks' sends, at most the timeout
 * (a live rank that does not take them is lost), never for a lost rank's:
 * those sends are given up (MPI_Request_free) and their buffers left to MPI,
 * never freed, as the send may still read them. */
static void fgl__mpi_free(fgl_run *run) {
    fgl__mpi *t = fgl__mpi_of(run);
    int r, nap = 50, keep_end = 0;
    double t0 = fgl_now();
    fgl_bytes end;
    fgl_bytes_init(&end);
    fgl__mpi_begin(&end, FGL__MC_END, t->run_id, run->round);
    for (r = 1; r < t->size; r++) {
        t->end[r] = MPI_REQUEST_NULL;
        if (t->member[r] && !end.err &&
            MPI_Isend(end.data, (int)end.len, MPI_BYTE, r, FGL__MPI_CMD, t->comm, &t->end[r]) != MPI_SUCCESS) {
            t->end[r] = MPI_REQUEST_NULL;
            fgl__mpi_lose(run, t, r, "MPI could not send it the run's end");
        }
    }
    for (;;) { /* the live ranks' sends done */
        int waiting = 0, flag;
        for (r = 1; r < t->size; r++) {
            MPI_Request *q[2];
            int k;
            q[0] = &t->req[r];
            q[1] = &t->end[r];
            for (k = 0; k < 2; k++) {
                if (*q[k] == MPI_REQUEST_NULL) continue;
                flag = 0;
                if (MPI_Test(q[k], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
                    fgl__mpi_lose(run, t, r, "MPI failed on its last send");
                    flag = 0;
                }
                if (!flag && t->alive[r]) waiting = 1;
            }
        }
        if (!waiting) break;
        if (fgl_now() - t0 > t->opt.timeout) {
            for (r = 1; r < t->size; r++)
                if (t->alive[r] && (t->req[r] != MPI_REQUEST_NULL || t->end[r] != MPI_REQUEST_NULL))
                    fgl__mpi_lose(run, t, r, "it did not take the run's end within the timeout");
            break;
        }
        fgl__mpi_nap(&nap);
    }
    for (r = 1; r < t->size; r++) {
        int flag = 1;
        MPI_Status status;
        if (t->end[r] != MPI_REQUEST_NULL) {
            MPI_Request_free(&t->end[r]);
            keep_end = 1;
        }
        if (t->req[r] != MPI_REQUEST_NULL) { /* a rank that never took it: its buffer must outlive the send */
            MPI_Request_free(&t->req[r]);
            fgl_bytes_init(&t->out[r]);
        }
        while (!t->alive[r] && t->member[r] && flag) { /* late replies of lost ranks, already there */
            if (MPI_Iprobe(r, FGL__MPI_REPLY, t->comm, &flag, &status) != MPI_SUCCESS) break;
            if (flag) {
                int count = 0;
                unsigned char *buf;
                MPI_Get_count(&status, MPI_BYTE, &count);
                buf = (unsigned char *)FGL_MALLOC((size_t)FGL__MAX(count, 1));
                if (!buf) break;
                flag = fgl__mpi_recv_body(&buf, count, r, FGL__MPI_REPLY, t->comm, 1.0, NULL, NULL) == FGL_OK;
                FGL_FREE(buf);
            }
        }
        fgl_bytes_free(&t->out[r]);
    }
    if (!keep_end) fgl_bytes_free(&end); /* else a few bytes left to MPI */
    FGL_FREE(t->host);
    FGL_FREE(t->ranks);
    FGL_FREE(t->alive);
    FGL_FREE(t->member);
    FGL_FREE(t->want);
    FGL_FREE(t->out);
    FGL_FREE(t->req);
    FGL_FREE(t->end);
    FGL_FREE(t);
    run->transport = NULL;
}

FGLDEF void fgl_mpi_stats_get(const fgl_run *run, fgl_mpi_stats *out) {
    int i;
    memset(out, 0, sizeof *out);
    out->ranks = 1;
    if (!run->transport || run->transport->start != fgl__mpi_start) return;
    *out = fgl__mpi_of(run)->st;
    out->lost_clients = 0;
    for (i = 0; run->lost && i < run->n_clients; i++) out->lost_clients += run->lost[i] != 0;
}

/* INIT, to the live ranks: the run's description, every client's spec and
 * registration, the rank's clients' data. Client i goes to the
 * floor(i L / K)-th of the L live ranks. Returns how many ranks took it
 * (0: none was live), or the error a rank reported (negative). */
static int fgl__mpi_init_ranks(fgl_run *run, fgl__mpi *t, const uint64_t *sums) {
    int i, r, L = 0, K = run->n_clients, rc;
    for (r = 1; r < t->size; r++)
        if (t->alive[r]) t->ranks[L++] = r;
    if (L == 0) return 0;
    for (i = 0; i < K; i++) {
        t->host[i] = t->ranks[(int64_t)i * L / K];
        run->lost[i] = 0;
    }
    fgl__mpi_begin_all(run, t, FGL__MC_INIT, NULL);
    for (r = 1; r < t->size; r++) {
        fgl_bytes *b = &t->out[r];
        if (!t->want[r]) continue;
        t->member[r] = 1;
        fgl_bytes_put_u32(b, FGL__MPI_PROTOCOL);
        fgl_bytes_put_u32(b, (uint32_t)sizeof(fgl_model_spec));
        fgl_bytes_put_str(b, run->algo.name);
        fgl__put_config(b, &run->cfg);
        fgl_bytes_put_str(b, run->cfg.plugin.name); /* (outside fgl__put_config: fingerprints of runs without
                                                       one are those of the builds before it) */
        fgl__put_f64(b, run->cfg.plugin.arg);
        if (run->cfg.secrets.from_seed) fgl_bytes_put_u64(b, run->cfg.secrets.seed); /* a simulation's choice */
        fgl_bytes_put_u32(b, (uint32_t)run->cfg.threads);
        fgl_bytes_put_u32(b, (uint32_t)run->cfg.park_idle); /* run control, outside the fingerprint */
        fgl_bytes_put_u32(b, (uint32_t)t->opt.fail_rank);
        fgl_bytes_put_u32(b, (uint32_t)t->opt.fail_round);
        fgl_bytes_put_u32(b, (uint32_t)(t->opt.fail_exit != 0));
        fgl_bytes_put_u32(b, (uint32_t)K);
        for (i = 0; i < K; i++) {
            const fgl_client *c = &run->clients[i];
            fgl_bytes_put_u32(b, (uint32_t)t->host[i]);
            fgl_bytes_put(b, &c->spec, sizeof c->spec); /* plain ints and floats; the same build everywhere */
            fgl_bytes_put_u32(b, (uint32_t)c->n_train);
            fgl_bytes_put_u32(b, (uint32_t)c->n_val);
            fgl_bytes_put_u32(b, (uint32_t)c->n_test);
            fgl_bytes_put_u64(b, sums[i]);
        }
        for (i = 0; i < K; i++) {
            const fgl_client *c = &run->clients[i];
            if (t->host[i] != r) continue;
            fgl_bytes_put_u32(b, c->data.node ? 1u : 2u);
            if (c->data.node) {
                fgl__put_node_data(b, c->data.node);
                fgl_bytes_put_u32(b, c->data.link ? 1u : 0u); /* a link client's edge split travels with it */
                if (c->data.link) fgl__put_link_split(b, c->data.link);
            } else fgl__put_graph_set(b, c->data.graphs);
        }
    }
    rc = fgl__mpi_exchange(run, t, FGL__MC_INIT, NULL);
    if (rc) return rc < 0 ? rc : FGL_ERR_FORMAT;
    for (r = 1, L = 0; r < t->size; r++) L += t->alive[r];
    return L;
}

FGLDEF int fgl_mpi_distribute(fgl_run *run, MPI_Comm comm, const fgl_mpi_config *opt, fgl_error *err) {
    static uint32_t runs = 0;
    fgl__mpi *t;
    int size = 0, rank = -1, i, r, K = run->n_clients, rc = FGL_OK, lost;
    uint64_t *sums;
    if (MPI_Comm_size(comm, &size) != MPI_SUCCESS || MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
        return fgl_error_set(err, FGL_ERR_ARG, "mpi: not a usable communicator");
    if (!run->clients || run->started || run->transport)
        return fgl_error_set(err, FGL_ERR_ARG, "mpi: distribute an initialised run once, before its first round");
    if (rank != 0) return fgl_error_set(err, FGL_ERR_ARG, "mpi: the server is rank 0 (this is rank %d)", rank);
    if (size < 2) return FGL_OK; /* one process: the run stays here */
    if (opt && !(opt->timeout > 0)) return fgl_error_set(err, FGL_ERR_ARG, "mpi: the timeout must be positive");
    for (i = 0; i < K; i++)
        if (!run->clients[i].local) return fgl_error_set(err, FGL_ERR_ARG, "mpi: client %d has no data here", i);
    /* a rank that fails must come back as an error, not end the job */
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    t = (fgl__mpi *)fgl__zalloc(sizeof *t);
    sums = (uint64_t *)fgl__zalloc(sizeof(uint64_t) * (size_t)K);
    if (t) {
        t->host = (int *)fgl__zalloc(sizeof(int) * (size_t)K);
        t->ranks = (int *)fgl__zalloc(sizeof(int) * (size_t)size);
        t->alive = (unsigned char *)fgl__zalloc((size_t)size);
        t->member = (unsigned char *)fgl__zalloc((size_t)size);
        t->want = (unsigned char *)fgl__zalloc((size_t)size + (size_t)K);
        t->out = (fgl_bytes *)fgl__zalloc(sizeof(fgl_bytes) * (size_t)size);
        t->req = (MPI_Request *)fgl__zalloc(sizeof(MPI_Request) * (size_t)size);
        t->end = (MPI_Request *)fgl__zalloc(sizeof(MPI_Request) * (size_t)size);
    }
    if (!t || !sums || !t->host || !t->ranks || !t->alive || !t->member || !t->want || !t->out || !t->req || !t->end) {
        if (t) {
            FGL_FREE(t->host);
            FGL_FREE(t->ranks);
            FGL_FREE(t->alive);
            FGL_FREE(t->member);
            FGL_FREE(t->want);
            FGL_FREE(t->out);
            FGL_FREE(t->req);
            FGL_FREE(t->end);
        }
        FGL_FREE(t);
        FGL_FREE(sums);
        return fgl_error_set(err, FGL_ERR_NOMEM, "mpi: out of memory");
    }
    t->tr.start = fgl__mpi_start;
    t->tr.train = fgl__mpi_train;
    t->tr.finish = fgl__mpi_finish;
    t->tr.save = fgl__mpi_save;
    t->tr.load = fgl__mpi_load;
    t->tr.resume = fgl__mpi_resume;
    t->tr.secagg = fgl__mpi_secagg;
    t->tr.free = fgl__mpi_free;
    t->comm = comm;
    t->size = size;
    t->run_id = ++runs;
    t->opt = opt ? *opt : fgl_mpi_default();
    t->cs = fgl__mpi_comm_state(comm, 1);
    if (t->cs && t->opt.timeout > t->cs->timeout) t->cs->timeout = t->opt.timeout;
    t->st.ranks = size;
    for (r = 0; r < size; r++) {
        t->alive[r] = r > 0 && !(t->cs && t->cs->gone[r]); /* a rank lost before stays out */
        t->req[r] = t->end[r] = MPI_REQUEST_NULL;
    }
    for (i = 0; i < K; i++) {
        const fgl_client *c = &run->clients[i];
        sums[i] = fgl__data_sum(c->data.node, c->data.graphs);
    }
    run->transport = &t->tr;
    /* INIT; a rank lost meanwhile gives its clients to the others, and INIT starts again */
    t->starting = 1;
    do {
        lost = t->st.lost_ranks;
        rc = fgl__mpi_init_ranks(run, t, sums);
    } while (rc > 0 && t->st.lost_ranks > lost);
    t->starting = 0;
    t->st.bytes_data = t->st.bytes_sent + t->st.bytes_received;
    t->st.bytes_sent = t->st.bytes_received = 0;
    t->st.t_exchange = t->st.t_remote = 0;
    if (rc <= 0) {
        /* an error a rank reported, or no worker left: the ranks that took the run drop it; without
           workers (all lost, now or before) the run stays here, whole */
        if (rc < 0) fgl_error_set(err, rc, "%s", run->err.msg);
        fgl__mpi_free(run);
        memset(run->lost, 0, (size_t)K);
        FGL_FREE(sums);
        return rc;
    }
    for (i = 0; i < K; i++) { /* the clients live on their ranks now */
        fgl_client *c = &run->clients[i];
        c->data_sum = sums[i];
        c->local = 0;
        c->data.node = NULL;
        c->data.graphs = NULL;
    }
    run->role = FGL__ROLE_SERVER;
    FGL_FREE(sums);
    return FGL_OK;
}

/* Rank 0's QUIT to every other rank; each confirms with a bare reply. A
 * rank lost before gets a second to confirm (a slow one may), the others
 * the longest timeout of the runs. The QUIT sends of ranks that do not
 * take them are given up, their buffer left to MPI. */
FGLDEF int fgl_mpi_finish(MPI_Comm comm) {
    fgl__mpi_comm *cs;
    int size = 0, rank = -1, r, left = 0, nap = 50, missing = 0, keep = 0;
    double t0 = fgl_now(), wait;
    fgl_bytes b;
    MPI_Request *req;
    unsigned char *done;
    if (MPI_Comm_size(comm, &size) != MPI_SUCCESS || MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || rank != 0) return 0;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    cs = fgl__mpi_comm_state(comm, 1);
    wait = cs && cs->timeout > 0 ? cs->timeout : fgl_mpi_default().timeout;
    req = (MPI_Request *)FGL_MALLOC(sizeof(MPI_Request) * (size_t)size);
    done = (unsigned char *)fgl__zalloc((size_t)size); /* per rank: 1 confirmed, 2 given up */
    fgl_bytes_init(&b);
    fgl__mpi_begin(&b, FGL__MC_QUIT, 0, 0);
    for (r = 1; req && done && r < size; r++) {
        req[r] = MPI_REQUEST_NULL;
        if (b.err || MPI_Isend(b.data, (int)b.len, MPI_BYTE, r, FGL__MPI_CMD, comm, &req[r]) != MPI_SUCCESS) {
            req[r] = MPI_REQUEST_NULL;
            done[r] = 2;
        } else left++;
    }
    while (left > 0) {
        int got = 0;
        double el = fgl_now() - t0; /* before the pass, as in fgl__mpi_exchange: a body's wait delays no other rank */
        for (r = 1; r < size; r++) {
            int flag = 0, count = 0;
            MPI_Status status;
            unsigned char *buf;
            if (done[r]) continue;
            if (req[r] != MPI_REQUEST_NULL && MPI_Test(&req[r], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                req[r] = MPI_REQUEST_NULL;
            flag = 0;
            if (MPI_Iprobe(r, FGL__MPI_REPLY, comm, &flag, &status) != MPI_SUCCESS) {
                done[r] = 2;
                left--;
                continue;
            }
            if (!flag) continue;
            MPI_Get_count(&status, MPI_BYTE, &count);
            if (!(buf = (unsigned char *)FGL_MALLOC((size_t)FGL__MAX(count, 4)))) break;
            got = 1;
            if (fgl__mpi_recv_body(&buf, count, r, FGL__MPI_REPLY, comm, cs && cs->gone[r] ? 1.0 : wait, NULL, NULL)) {
                done[r] = 2;
                left--;
            } else if (count >= 4) {
                fgl_reader rd = fgl_reader_make(buf, (size_t)count);
                if (fgl_reader_u32(&rd) == FGL__MC_QUIT) { /* else a late reply of a lost run */
                    done[r] = 1;
                    left--;
                }
            }
            FGL_FREE(buf);
        }
        for (r = 1; r < size; r++)
            if (!done[r] && el > (cs && cs->gone[r] ? 1.0 : wait)) {
                done[r] = 2;
                left--;
            }
        if (got) nap = 50;
        else if (left > 0) fgl__mpi_nap(&nap);
    }
    for (r = 1; r < size; r++) {
        if (req && req[r] != MPI_REQUEST_NULL) {
            MPI_Request_free(&req[r]);
            keep = 1;
        }
        if (!done || done[r] != 1) {
            missing++;
            if (cs && r < cs->size) cs->gone[r] = 2;
        }
    }
    if (!keep) fgl_bytes_free(&b);
    FGL_FREE(req);
    FGL_FREE(done);
    return missing;
}

FGLDEF int fgl_mpi_rank_gone(MPI_Comm comm, int rank) {
    fgl__mpi_comm *s = fgl__mpi_comm_state(comm, 0);
    return s && rank >= 0 && rank < s->size ? s->gone[rank] : 0;
}

#endif /* FGL_MPI */

#include "../alone.h"
