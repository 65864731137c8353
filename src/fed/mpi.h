/* ------------------------------------------------------------------------ */
/* Distributed runs over MPI (define FGL_MPI before including)               */
/* ------------------------------------------------------------------------ */
#ifdef FGL_MPI
/* Rank 0 is the server; the clients are spread over the other ranks in
 * contiguous blocks (client i on rank 1 + floor(i (P - 1) / K)), several
 * per rank, OpenMP inside a rank. Rank 0 builds the run as usual (it holds
 * the data only to send each rank its own clients' share), then:
 *       if (rank == 0) {
 *           fgl_run_init(&run, &cfg, algo, cd, K, &err);
 *           fgl_mpi_distribute(&run, MPI_COMM_WORLD, NULL, &err);
 *           for (r = 0; r < cfg.rounds; r++) fgl_run_round(&run);   // as in one process
 *           fgl_run_free(&run);                 // the workers drop the run
 *           fgl_mpi_finish(MPI_COMM_WORLD);     // and return from fgl_mpi_serve
 *       } else fgl_mpi_serve(MPI_COMM_WORLD, &err);
 * fgl_run_round, fgl_run_save and fgl_run_load then work across the
 * processes with the same bits as in one: every rank runs the same build
 * (checked), each client's computation happens where it lives, uploads and
 * downloads travel as their declared parts (4 bytes a float, plus a header
 * per message), and only the next round's participants get a download. A
 * rank that does not answer within the timeout is lost: its clients are
 * left out of the rounds (counted in fgl_round_stats.n_lost) and of the
 * accuracy means, and the run goes on; checkpoints need every client, so
 * the last one written before the loss restarts the whole job. Algorithms
 * must be registered (fgl_algo_register) in every process, as the workers
 * find them by name. */
typedef struct fgl_mpi_options {
    double timeout;              /* seconds a rank may take to answer before it is lost (300) */
    int fail_rank, fail_round;   /* a simulated fault: rank fail_rank stops answering from round
                                    fail_round (1-based) on; 0: none */
} fgl_mpi_options;

typedef struct fgl_mpi_stats {
    int ranks, lost_ranks;
    size_t bytes_sent, bytes_received;   /* by the server during the run, headers included */
    size_t bytes_data;                   /* the clients' data and the run's description, at the start */
    double t_exchange;                   /* server seconds from posting commands to the last reply */
    double t_remote;                     /* sum over exchanges of the slowest rank's own seconds */
    char note[256];                      /* the first lost rank, which clients, and why */
} fgl_mpi_stats;

FGLDEF fgl_mpi_options fgl_mpi_options_default(void);
/* Rank 0, after fgl_run_init (and fgl_run_set) and before the first round:
 * send each other rank its clients' data and the run's description. With
 * one process the run stays where it is. */
FGLDEF int fgl_mpi_distribute(fgl_run *run, MPI_Comm comm, const fgl_mpi_options *opt, fgl_error *err);
/* Ranks 1..P-1: host clients for the runs rank 0 distributes, until
 * fgl_mpi_finish. Returns FGL_OK, or an error that stopped this process. */
FGLDEF int fgl_mpi_serve(MPI_Comm comm, fgl_error *err);
/* Rank 0: no more runs; the other ranks return from fgl_mpi_serve. */
FGLDEF void fgl_mpi_finish(MPI_Comm comm);
/* What crossed MPI for a distributed run (0 and ranks 1 for a local one). */
FGLDEF void fgl_mpi_stats_get(const fgl_run *run, fgl_mpi_stats *out);
#endif /* FGL_MPI */

/* fgl:implementation */
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
 *           the rank (the secret seed, when the run has one, comes in INIT)
 *   END, QUIT (no reply)
 * A download or upload is, per client, its id and per declared part a u64
 * length (0: absent) and the floats' bits. Waiting polls (MPI_Iprobe) with
 * growing naps, so a waiting process leaves the cores to those computing. */
#ifdef FGL_MPI

#define FGL__MPI_CMD 7101
#define FGL__MPI_REPLY 7102
#define FGL__MPI_PROTOCOL 3u /* 2: INIT carries cfg.park_idle; 3: secure aggregation's steps, the secret seed */

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

FGLDEF fgl_mpi_options fgl_mpi_options_default(void) {
    fgl_mpi_options o;
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

static void fgl__mpi_begin(fgl_bytes *b, uint32_t kind, uint32_t run_id, int round) {
    b->len = 0;
    b->err = 0;
    fgl_bytes_put_u32(b, kind);
    fgl_bytes_put_u32(b, run_id);
    fgl_bytes_put_u32(b, (uint32_t)round);
}

/* --- client data on the wire -------------------------------------------------- */

static void fgl__put_ints(fgl_bytes *b, const int *x, size_t n) {
    size_t k;
    fgl_bytes_put_u64(b, x ? (uint64_t)n : 0);
    for (k = 0; x && k < n; k++) fgl_bytes_put_u32(b, (uint32_t)x[k]);
}

static void fgl__put_floats(fgl_bytes *b, const float *x, size_t n) {
    fgl_bytes_put_u64(b, x ? (uint64_t)n : 0);
    if (x) fgl_bytes_put_f32s(b, x, n);
}

/* An array of n values of `width` bytes each, its count checked against the
 * bytes left before anything is allocated; NULL when the count is 0 (or on
 * error, which r records). */
static void *fgl__get_array(fgl_reader *r, size_t width, uint64_t expect) {
    uint64_t n = fgl_reader_u64(r);
    void *p;
    size_t k;
    if (r->err || n == 0) return NULL;
    if (n != expect || n > (uint64_t)(r->len - r->pos) / width) {
        r->err = FGL_ERR_FORMAT;
        return NULL;
    }
    if (!(p = FGL_MALLOC((size_t)n * width))) {
        r->err = FGL_ERR_NOMEM;
        return NULL;
    }
    if (width == 1) fgl_reader_get(r, p, (size_t)n);
    else if (width == 4)
        for (k = 0; k < (size_t)n; k++) { /* ints and floats: their 32 bits, little-endian */
            uint32_t v = fgl_reader_u32(r);
            memcpy((unsigned char *)p + 4 * k, &v, 4);
        }
    return p;
}

static void fgl__put_csr(fgl_bytes *b, const fgl_csr *a) {
    fgl_bytes_put_u32(b, a->indptr ? 1u : 0u);
    if (!a->indptr) return;
    fgl_bytes_put_u32(b, (uint32_t)a->rows);
    fgl_bytes_put_u32(b, (uint32_t)a->cols);
    fgl_bytes_put_u32(b, (uint32_t)a->nnz);
    fgl__put_ints(b, a->indptr, (size_t)a->rows + 1);
    fgl__put_ints(b, a->indices, (size_t)a->nnz);
    fgl__put_floats(b, a->values, (size_t)a->nnz);
}

static int fgl__get_csr(fgl_reader *r, fgl_csr *a) {
    uint32_t present = fgl_reader_u32(r), rows, cols, nnz;
    memset(a, 0, sizeof *a);
    if (r->err || !present) return r->err;
    rows = fgl_reader_u32(r);
    cols = fgl_reader_u32(r);
    nnz = fgl_reader_u32(r);
    if (r->err || rows > (uint32_t)INT_MAX - 1 || cols > (uint32_t)INT_MAX || nnz > (uint32_t)INT_MAX)
        return r->err = FGL_ERR_FORMAT;
    a->rows = (int)rows;
    a->cols = (int)cols;
    a->nnz = (int)nnz;
    a->indptr = (int *)fgl__get_array(r, 4, (uint64_t)rows + 1);
    a->indices = (int *)fgl__get_array(r, 4, nnz);
    a->values = (float *)fgl__get_array(r, 4, nnz);
    if (!r->err && (!a->indptr || (nnz && !a->indices) || fgl_csr_validate(a, NULL))) r->err = FGL_ERR_FORMAT;
    return r->err;
}

static void fgl__put_node_data(fgl_bytes *b, const fgl_node_data *d) {
    size_t n = (size_t)d->n_nodes;
    fgl_bytes_put_str(b, d->name);
    fgl_bytes_put_u32(b, (uint32_t)d->n_nodes);
    fgl_bytes_put_u32(b, (uint32_t)d->n_feat);
    fgl_bytes_put_u32(b, (uint32_t)d->n_classes);
    fgl__put_csr(b, &d->adj);
    fgl_bytes_put_u32(b, (uint32_t)d->x.rows);
    fgl_bytes_put_u32(b, (uint32_t)d->x.cols);
    fgl__put_floats(b, d->x.data, (size_t)d->x.rows * (size_t)d->x.cols);
    fgl__put_csr(b, &d->x_sparse);
    fgl__put_ints(b, d->y, n);
    fgl_bytes_put_u64(b, d->split ? (uint64_t)n : 0);
    if (d->split) fgl_bytes_put(b, d->split, n);
}

static int fgl__get_node_data(fgl_reader *r, fgl_node_data *d) {
    uint32_t xr, xc;
    fgl_node_data_init(d);
    fgl_reader_str(r, d->name, sizeof d->name);
    d->n_nodes = (int)fgl_reader_u32(r);
    d->n_feat = (int)fgl_reader_u32(r);
    d->n_classes = (int)fgl_reader_u32(r);
    if (r->err || d->n_nodes < 0 || d->n_feat < 0 || d->n_classes < 0) return r->err = FGL_ERR_FORMAT;
    fgl__get_csr(r, &d->adj);
    xr = fgl_reader_u32(r);
    xc = fgl_reader_u32(r);
    if (r->err || xr > (uint32_t)INT_MAX || xc > (uint32_t)INT_MAX) return r->err = FGL_ERR_FORMAT;
    d->x.rows = (int)xr;
    d->x.cols = (int)xc;
    d->x.data = (float *)fgl__get_array(r, 4, (uint64_t)xr * xc);
    d->x.owns = d->x.data != NULL;
    fgl__get_csr(r, &d->x_sparse);
    d->y = (int *)fgl__get_array(r, 4, (uint64_t)d->n_nodes);
    d->split = (unsigned char *)fgl__get_array(r, 1, (uint64_t)d->n_nodes);
    if (!r->err && (!d->y || d->adj.rows != d->n_nodes)) r->err = FGL_ERR_FORMAT;
    return r->err;
}

static void fgl__put_graph_set(fgl_bytes *b, const fgl_graph_set *s) {
    size_t G = (size_t)s->n_graphs, N = (size_t)s->n_nodes;
    fgl_bytes_put_str(b, s->name);
    fgl_bytes_put_u32(b, (uint32_t)s->n_graphs);
    fgl_bytes_put_u32(b, (uint32_t)s->n_nodes);
    fgl_bytes_put_u32(b, (uint32_t)s->n_classes);
    fgl_bytes_put_u32(b, (uint32_t)s->n_node_label_values);
    fgl_bytes_put_u32(b, (uint32_t)s->n_node_attr);
    fgl_bytes_put_u32(b, (uint32_t)s->n_feat);
    fgl_bytes_put_u32(b, (uint32_t)s->n_pe);
    fgl__put_ints(b, s->node_ptr, G + 1);
    fgl__put_csr(b, &s->adj);
    fgl__put_ints(b, s->y, G);
    fgl_bytes_put_u64(b, s->split ? (uint64_t)G : 0);
    if (s->split) fgl_bytes_put(b, s->split, G);
    fgl__put_ints(b, s->node_labels, N);
    fgl__put_floats(b, s->node_attr, N * (size_t)s->n_node_attr);
    fgl__put_floats(b, s->x, N * (size_t)s->n_feat);
    fgl__put_floats(b, s->pe, N * (size_t)s->n_pe);
}

static int fgl__get_graph_set(fgl_reader *r, fgl_graph_set *s) {
    uint64_t G, N;
    fgl_graph_set_init(s);
    fgl_reader_str(r, s->name, sizeof s->name);
    s->n_graphs = (int)fgl_reader_u32(r);
    s->n_nodes = (int)fgl_reader_u32(r);
    s->n_classes = (int)fgl_reader_u32(r);
    s->n_node_label_values = (int)fgl_reader_u32(r);
    s->n_node_attr = (int)fgl_reader_u32(r);
    s->n_feat = (int)fgl_reader_u32(r);
    s->n_pe = (int)fgl_reader_u32(r);
    if (r->err || s->n_graphs < 0 || s->n_nodes < 0 || s->n_classes < 0 || s->n_node_label_values < 0 ||
        s->n_node_attr < 0 || s->n_feat < 0 || s->n_pe < 0)
        return r->err = FGL_ERR_FORMAT;
    G = (uint64_t)s->n_graphs;
    N = (uint64_t)s->n_nodes;
    s->node_ptr = (int *)fgl__get_array(r, 4, G + 1);
    fgl__get_csr(r, &s->adj);
    s->y = (int *)fgl__get_array(r, 4, G);
    s->split = (unsigned char *)fgl__get_array(r, 1, G);
    s->node_labels = (int *)fgl__get_array(r, 4, N);
    s->node_attr = (float *)fgl__get_array(r, 4, N * (uint64_t)s->n_node_attr);
    s->x = (float *)fgl__get_array(r, 4, N * (uint64_t)s->n_feat);
    s->pe = (float *)fgl__get_array(r, 4, N * (uint64_t)s->n_pe);
    if (!r->err && (!s->node_ptr || s->node_ptr[0] != 0 || s->node_ptr[G] != s->n_nodes || s->adj.rows != s->n_nodes))
        r->err = FGL_ERR_FORMAT;
    return r->err;
}

/* Per client: id, then per declared part a u64 length (0: absent) and the floats. */
static void fgl__put_msg(fgl_bytes *b, int id, const fgl_msg *m, int n_parts) {
    int p;
    fgl_bytes_put_u32(b, (uint32_t)id);
    for (p = 0; p < n_parts; p++) fgl__put_floats(b, m->part[p], m->part[p] ? m->len[p] : 0);
}

/* Read what fgl__put_msg wrote into m: a part whose length is neither 0 nor
 * expected[p] is skipped and makes *bad 1 (the message is refused, not
 * allocated); a length beyond the bytes left fails r. */
static void fgl__get_msg(fgl_reader *r, fgl_msg *m, const fgl_part *decl, int n_parts, const size_t *expected,
                         int *bad) {
    int p;
    m->decl = decl;
    m->n_parts = n_parts;
    fgl__msg_clear(m);
    for (p = 0; p < n_parts && !r->err; p++) {
        uint64_t n = fgl_reader_u64(r);
        float *x;
        if (r->err || n == 0) continue;
        if (n > (uint64_t)(r->len - r->pos) / 4) {
            r->err = FGL_ERR_FORMAT;
            return;
        }
        if (n != (uint64_t)expected[p]) {
            *bad = 1;
            fgl__skip(r, 4 * (size_t)n);
            continue;
        }
        if (!(x = fgl__msg_own(m, p, (size_t)n))) {
            r->err = FGL_ERR_NOMEM;
            return;
        }
        fgl_reader_f32s(r, x, (size_t)n);
    }
}

/* --- the server's side ------------------------------------------------------------- */

typedef struct fgl__mpi {
    struct fgl__transport tr;   /* first: run->transport points here */
    MPI_Comm comm;
    int size;
    uint32_t run_id;
    fgl_mpi_options opt;
    int *host;                  /* K: the rank hosting client i */
    unsigned char *alive;       /* per rank */
    unsigned char *want;        /* per rank: a reply awaited */
    fgl_bytes *out;             /* per rank: the command being sent */
    MPI_Request *req;           /* per rank: its send */
    fgl_bytes *stores;          /* SAVE: where the replies' client stores go */
    fgl_mpi_stats st;
} fgl__mpi;

typedef int (*fgl__mpi_handler)(fgl_run *run, fgl__mpi *t, int rank, fgl_reader *r);

static fgl__mpi *fgl__mpi_of(const fgl_run *run) { return (fgl__mpi *)run->transport; }

/* A rank stops answering: its clients are out of the run from now on. */
static void fgl__mpi_lose(fgl_run *run, fgl__mpi *t, int rank, const char *why) {
    int i, first = -1, last = -1;
    if (!t->alive[rank]) return;
    t->alive[rank] = 0;
    t->want[rank] = 0;
    for (i = 0; i < run->n_clients; i++)
        if (t->host[i] == rank) {
            fgl_client *c = &run->clients[i];
            run->lost[i] = 1;
            fgl__msg_clear(&c->up);
            c->error = 0;
            if (first < 0) first = i;
            last = i;
        }
    if (!t->st.lost_ranks++)
        snprintf(t->st.note, sizeof t->st.note, "rank %d (clients %d-%d) lost in round %d: %s", rank, first, last,
                 run->round + 1, why);
}

/* Post the commands built in t->out for the ranks in t->want and wait for
 * their replies of the same kind: handler (may be NULL) reads each body. A
 * rank that does not answer within the timeout, or whose reply is
 * malformed, is lost; a rank that reports an error fails the run. */
static int fgl__mpi_exchange(fgl_run *run, fgl__mpi *t, uint32_t kind, fgl__mpi_handler handler) {
    double t0 = fgl_now(), slowest = 0;
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
        if (t->req[r] != MPI_REQUEST_NULL) MPI_Wait(&t->req[r], MPI_STATUS_IGNORE); /* the last one was answered */
        MPI_Isend(b->data, (int)b->len, MPI_BYTE, r, FGL__MPI_CMD, t->comm, &t->req[r]);
        t->st.bytes_sent += b->len;
        pending++;
    }
    while (pending > 0) {
        int got = 0;
        for (r = 1; r < t->size; r++) {
            int flag = 0, count = 0;
            MPI_Status status;
            unsigned char *buf;
            fgl_reader rd;
            uint32_t k, id, round, status_code;
            char msg[256];
            double secs;
            if (!t->want[r]) continue;
            MPI_Iprobe(r, FGL__MPI_REPLY, t->comm, &flag, &status);
            if (!flag) continue;
            MPI_Get_count(&status, MPI_BYTE, &count);
            buf = (unsigned char *)FGL_MALLOC((size_t)FGL__MAX(count, 1));
            if (!buf) {
                fgl__mpi_lose(run, t, r, "out of memory for its reply");
                pending--;
                continue;
            }
            MPI_Recv(buf, count, MPI_BYTE, r, FGL__MPI_REPLY, t->comm, MPI_STATUS_IGNORE);
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
        if (fgl_now() - t0 > t->opt.timeout) {
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

/* Append to each rank's command the downloads of its clients among the
 * participants run->part. */
static void fgl__mpi_put_downloads(fgl_run *run, fgl__mpi *t) {
    int r, q, n;
    for (r = 1; r < t->size; r++) {
        if (!t->want[r]) continue;
        for (q = n = 0; q < run->n_part; q++) n += t->host[run->part[q]] == r && !run->lost[run->part[q]];
        fgl_bytes_put_u32(&t->out[r], (uint32_t)n);
        for (q = 0; q < run->n_part; q++) {
            int i = run->part[q];
            if (t->host[i] == r && !run->lost[i]) fgl__put_msg(&t->out[r], i, &run->down[i], run->algo.n_down);
        }
    }
}

/* Mark the participants (or, sel NULL, nobody) in a K-byte scratch. */
static unsigned char *fgl__mpi_participants(fgl_run *run, fgl__mpi *t) {
    unsigned char *sel = t->want + t->size; /* K bytes after the per-rank flags */
    int q;
    memset(sel, 0, (size_t)run->n_clients);
    for (q = 0; q < run->n_part; q++) sel[run->part[q]] = 1;
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
    fgl__mpi_put_downloads(run, t);
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
        c->error = (int)fgl_reader_u32(r);
        fgl_reader_str(r, c->msg, sizeof c->msg);
        c->train_loss = fgl__get_f64(r);
        fgl__get_msg(r, &c->up, run->algo.up, run->algo.n_up, c->up_len, &bad);
        c->wire_error = bad;
    }
    return r->err;
}

static int fgl__mpi_train(fgl_run *run) {
    fgl__mpi *t = fgl__mpi_of(run);
    unsigned char *sel = fgl__mpi_participants(run, t);
    int r, q, rc;
    for (q = 0; q < run->n_part; q++) {
        fgl_client *c = &run->clients[run->part[q]];
        fgl__msg_clear(&c->up);
        c->error = c->wire_error = 0;
        c->msg[0] = 0;
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
        c->error = (int)fgl_reader_u32(r);
        fgl_reader_str(r, c->msg, sizeof c->msg);
        if (step == 1) fgl_reader_get(r, sa->pk + (size_t)a * FGL__SA_PK, FGL__SA_PK);
        else if (step == 2) fgl_reader_get(r, sa->ct + (size_t)a * n * FGL__SA_CT, n * FGL__SA_CT);
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
        if (step == 3) { /* the survivors, then the shares sealed to each of the rank's survivors (ct: to, from) */
            int m = 0;
            fgl_bytes_put(b, sa->alive, (size_t)n);
            for (a = 0; a < n; a++) m += sel[sa->ids[a]] && t->host[sa->ids[a]] == r;
            fgl_bytes_put_u32(b, (uint32_t)m);
            for (a = 0; a < n; a++)
                if (sel[sa->ids[a]] && t->host[sa->ids[a]] == r) {
                    fgl_bytes_put_u32(b, (uint32_t)sa->ids[a]);
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
        c->tape.err = (int)fgl_reader_u32(r);
        fgl_reader_str(r, c->tape.msg, sizeof c->tape.msg);
    }
    return r->err;
}

static int fgl__mpi_finish(fgl_run *run, int evaluated) {
    fgl__mpi *t = fgl__mpi_of(run);
    unsigned char *sel = fgl__mpi_participants(run, t);
    int r, i;
    /* evaluated rounds ask every rank; otherwise only those hosting a next participant hear anything */
    fgl__mpi_begin_all(run, t, FGL__MC_FINISH, evaluated ? NULL : sel);
    for (r = 1; r < t->size; r++)
        if (t->want[r]) fgl_bytes_put_u32(&t->out[r], (uint32_t)evaluated);
    fgl__mpi_put_downloads(run, t);
    for (i = 0; evaluated && i < run->n_clients; i++) /* what does not arrive stays a failure */
        if (!run->clients[i].local) run->clients[i].val_acc = run->clients[i].test_acc = -1;
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
    fgl__mpi_put_downloads(run, t);
    return fgl__mpi_exchange(run, t, FGL__MC_RESUME, NULL);
}

static void fgl__mpi_free(fgl_run *run) {
    fgl__mpi *t = fgl__mpi_of(run);
    int r, nap = 50;
    double t0 = fgl_now();
    fgl_bytes end;
    MPI_Request *req;
    fgl_bytes_init(&end);
    fgl__mpi_begin(&end, FGL__MC_END, t->run_id, run->round);
    req = (MPI_Request *)FGL_MALLOC(sizeof(MPI_Request) * (size_t)t->size);
    for (r = 1; r < t->size; r++) { /* lost ranks too: a slow one may still be listening */
        if (req) MPI_Isend(end.data, (int)end.len, MPI_BYTE, r, FGL__MPI_CMD, t->comm, &req[r]);
        else MPI_Send(end.data, (int)end.len, MPI_BYTE, r, FGL__MPI_CMD, t->comm);
    }
    for (;;) { /* every send done (a few seconds' grace for lost ranks) */
        int done = 1, flag;
        for (r = 1; r < t->size; r++) {
            if (req && req[r] != MPI_REQUEST_NULL) {
                MPI_Test(&req[r], &flag, MPI_STATUS_IGNORE);
                done &= flag;
            }
            if (t->req[r] != MPI_REQUEST_NULL) {
                MPI_Test(&t->req[r], &flag, MPI_STATUS_IGNORE);
                done &= flag;
            }
        }
        if (done || fgl_now() - t0 > 5) break;
        fgl__mpi_nap(&nap);
    }
    for (r = 1; r < t->size; r++) {
        int flag = 1;
        MPI_Status status;
        if (req && req[r] != MPI_REQUEST_NULL) MPI_Request_free(&req[r]);
        if (t->req[r] != MPI_REQUEST_NULL) { /* a rank that never took it: its buffer must outlive the send */
            MPI_Request_free(&t->req[r]);
            fgl_bytes_init(&t->out[r]);
        }
        while (!t->alive[r] && flag) { /* late replies of lost ranks */
            MPI_Iprobe(r, FGL__MPI_REPLY, t->comm, &flag, &status);
            if (flag) {
                int count = 0;
                unsigned char *buf;
                MPI_Get_count(&status, MPI_BYTE, &count);
                buf = (unsigned char *)FGL_MALLOC((size_t)FGL__MAX(count, 1));
                if (!buf) break;
                MPI_Recv(buf, count, MPI_BYTE, r, FGL__MPI_REPLY, t->comm, MPI_STATUS_IGNORE);
                FGL_FREE(buf);
            }
        }
        fgl_bytes_free(&t->out[r]);
    }
    if (req) FGL_FREE(req); /* its sends are complete or freed */
    fgl_bytes_free(&end);
    FGL_FREE(t->host);
    FGL_FREE(t->alive);
    FGL_FREE(t->want);
    FGL_FREE(t->out);
    FGL_FREE(t->req);
    FGL_FREE(t);
    run->transport = NULL;
}

FGLDEF void fgl_mpi_stats_get(const fgl_run *run, fgl_mpi_stats *out) {
    memset(out, 0, sizeof *out);
    out->ranks = 1;
    if (run->transport && run->transport->start == fgl__mpi_start) *out = fgl__mpi_of(run)->st;
}

FGLDEF int fgl_mpi_distribute(fgl_run *run, MPI_Comm comm, const fgl_mpi_options *opt, fgl_error *err) {
    static uint32_t runs = 0;
    fgl__mpi *t;
    int size, rank, i, r, K = run->n_clients, rc;
    uint64_t *sums;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    if (!run->clients || run->started || run->transport)
        return fgl_error_set(err, FGL_ERR_ARG, "mpi: distribute an initialised run once, before its first round");
    if (rank != 0) return fgl_error_set(err, FGL_ERR_ARG, "mpi: the server is rank 0 (this is rank %d)", rank);
    if (size < 2) return FGL_OK; /* one process: the run stays here */
    if (opt && !(opt->timeout > 0)) return fgl_error_set(err, FGL_ERR_ARG, "mpi: the timeout must be positive");
    for (i = 0; i < K; i++)
        if (!run->clients[i].local) return fgl_error_set(err, FGL_ERR_ARG, "mpi: client %d has no data here", i);
    t = (fgl__mpi *)fgl__zalloc(sizeof *t);
    sums = (uint64_t *)fgl__zalloc(sizeof(uint64_t) * (size_t)K);
    if (t) {
        t->host = (int *)fgl__zalloc(sizeof(int) * (size_t)K);
        t->alive = (unsigned char *)fgl__zalloc((size_t)size);
        t->want = (unsigned char *)fgl__zalloc((size_t)size + (size_t)K);
        t->out = (fgl_bytes *)fgl__zalloc(sizeof(fgl_bytes) * (size_t)size);
        t->req = (MPI_Request *)fgl__zalloc(sizeof(MPI_Request) * (size_t)size);
    }
    if (!t || !sums || !t->host || !t->alive || !t->want || !t->out || !t->req) {
        if (t) {
            FGL_FREE(t->host);
            FGL_FREE(t->alive);
            FGL_FREE(t->want);
            FGL_FREE(t->out);
            FGL_FREE(t->req);
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
    t->opt = opt ? *opt : fgl_mpi_options_default();
    t->st.ranks = size;
    for (r = 0; r < size; r++) {
        t->alive[r] = r > 0;
        t->req[r] = MPI_REQUEST_NULL;
    }
    for (i = 0; i < K; i++) {
        const fgl_client *c = &run->clients[i];
        t->host[i] = 1 + (int)((int64_t)i * (size - 1) / K);
        sums[i] = fgl__data_sum(c->data.node, c->data.graphs);
    }
    /* INIT: the run's description, every client's spec and registration, the rank's clients' data */
    fgl__mpi_begin_all(run, t, FGL__MC_INIT, NULL);
    for (r = 1; r < size; r++) {
        fgl_bytes *b = &t->out[r];
        fgl_bytes_put_u32(b, FGL__MPI_PROTOCOL);
        fgl_bytes_put_u32(b, (uint32_t)sizeof(fgl_model_spec));
        fgl_bytes_put_str(b, run->algo.name);
        fgl__put_config(b, &run->cfg);
        if (run->cfg.secrets.from_seed) fgl_bytes_put_u64(b, run->cfg.secrets.seed); /* a simulation's choice */
        fgl_bytes_put_u32(b, (uint32_t)run->cfg.threads);
        fgl_bytes_put_u32(b, (uint32_t)run->cfg.park_idle); /* run control, outside the fingerprint */
        fgl_bytes_put_u32(b, (uint32_t)t->opt.fail_rank);
        fgl_bytes_put_u32(b, (uint32_t)t->opt.fail_round);
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
            if (c->data.node) fgl__put_node_data(b, c->data.node);
            else fgl__put_graph_set(b, c->data.graphs);
        }
    }
    rc = fgl__mpi_exchange(run, t, FGL__MC_INIT, NULL);
    if (!rc && t->st.lost_ranks) rc = fgl_error_set(&run->err, FGL_ERR_ARG, "mpi: %s", t->st.note);
    t->st.bytes_data = t->st.bytes_sent + t->st.bytes_received;
    t->st.bytes_sent = t->st.bytes_received = 0;
    t->st.t_exchange = t->st.t_remote = 0;
    run->transport = &t->tr;
    if (rc) {
        fgl_error_set(err, rc, "%s", run->err.msg);
        fgl__mpi_free(run); /* the ranks that took the run drop it */
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

FGLDEF void fgl_mpi_finish(MPI_Comm comm) {
    int size, rank, r;
    fgl_bytes b;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    if (rank != 0) return;
    fgl_bytes_init(&b);
    fgl__mpi_begin(&b, FGL__MC_QUIT, 0, 0);
    for (r = 1; r < size && !b.err; r++) MPI_Send(b.data, (int)b.len, MPI_BYTE, r, FGL__MPI_CMD, comm);
    fgl_bytes_free(&b);
}

/* --- the workers' side ------------------------------------------------------------- */

typedef struct fgl__worker {
    MPI_Comm comm;
    int rank;
    uint32_t run_id;
    int have;                   /* a run is set up */
    fgl_run run;
    int K;
    fgl_client_data *cd;        /* K; the hosted clients' data owned here */
    int fail_round, silent;     /* the simulated fault */
    int trained_round;          /* the round whose participants run->trained marks */
    unsigned char *load;        /* the checkpoint part checked, kept for the commit */
    size_t load_len;
    fgl_bytes out;
} fgl__worker;

static void fgl__worker_drop(fgl__worker *w) {
    int i;
    if (w->have) {
        fgl_run_free(&w->run);
        for (i = 0; w->cd && i < w->K; i++) {
            if (w->cd[i].node) fgl_node_data_free(w->cd[i].node);
            if (w->cd[i].graphs) fgl_graph_set_free(w->cd[i].graphs);
            FGL_FREE(w->cd[i].node);
            FGL_FREE(w->cd[i].graphs);
        }
    }
    FGL_FREE(w->cd);
    FGL_FREE(w->load);
    w->cd = NULL;
    w->load = NULL;
    w->have = 0;
    w->silent = 0;
}

static int fgl__worker_init(fgl__worker *w, fgl_reader *r, fgl_error *err) {
    char name[64];
    fgl_fed_config cfg;
    const fgl_algo *algo;
    fgl__remote *remote = NULL;
    uint32_t proto, spec_size, threads, park, fail_rank, fail_round, K, i;
    int rc = FGL_OK;
    proto = fgl_reader_u32(r);
    spec_size = fgl_reader_u32(r);
    if (r->err || proto != FGL__MPI_PROTOCOL || spec_size != (uint32_t)sizeof(fgl_model_spec))
        return fgl_error_set(err, FGL_ERR_FORMAT, "it runs another fgl build (protocol %u, spec %u bytes; here %u, %u)",
                             (unsigned)proto, (unsigned)spec_size, FGL__MPI_PROTOCOL, (unsigned)sizeof(fgl_model_spec));
    fgl_reader_str(r, name, sizeof name);
    fgl__get_config(r, &cfg);
    if (cfg.secrets.from_seed) cfg.secrets.seed = fgl_reader_u64(r);
    threads = fgl_reader_u32(r);
    park = fgl_reader_u32(r);
    fail_rank = fgl_reader_u32(r);
    fail_round = fgl_reader_u32(r);
    K = fgl_reader_u32(r);
    if (r->err || K == 0 || K > (uint32_t)(r->len - r->pos) / (24 + sizeof(fgl_model_spec)))
        return fgl_error_set(err, FGL_ERR_FORMAT, "a malformed run description");
    if (!(algo = fgl_algo_find(name)))
        return fgl_error_set(err, FGL_ERR_ARG, "algorithm '%s' is not registered in this process", name);
    cfg.threads = (int)threads;
    cfg.park_idle = park <= 2 ? (int)park : 0;
    w->fail_round = (int)fail_rank == w->rank ? (int)fail_round : 0;
    w->cd = (fgl_client_data *)fgl__zalloc(sizeof(fgl_client_data) * K);
    w->K = (int)K;
    remote = (fgl__remote *)fgl__zalloc(sizeof(fgl__remote) * K);
    if (!w->cd || !remote) {
        FGL_FREE(remote);
        return fgl_error_set(err, FGL_ERR_NOMEM, "out of memory");
    }
    for (i = 0; i < K; i++) {
        remote[i].remote = (int)fgl_reader_u32(r) != w->rank;
        fgl_reader_get(r, &w->cd[i].spec, sizeof(fgl_model_spec));
        remote[i].n_train = (int)fgl_reader_u32(r);
        remote[i].n_val = (int)fgl_reader_u32(r);
        remote[i].n_test = (int)fgl_reader_u32(r);
        remote[i].data_sum = fgl_reader_u64(r);
    }
    for (i = 0; i < K && !r->err; i++) { /* this rank's clients' data, in client order */
        uint32_t kind;
        if (remote[i].remote) continue;
        kind = fgl_reader_u32(r);
        if (kind == 1 && (w->cd[i].node = (fgl_node_data *)fgl__zalloc(sizeof(fgl_node_data))) != NULL)
            fgl__get_node_data(r, w->cd[i].node);
        else if (kind == 2 && (w->cd[i].graphs = (fgl_graph_set *)fgl__zalloc(sizeof(fgl_graph_set))) != NULL)
            fgl__get_graph_set(r, w->cd[i].graphs);
        else if (!r->err)
            r->err = kind == 1 || kind == 2 ? FGL_ERR_NOMEM : FGL_ERR_FORMAT;
    }
    w->have = 1; /* what arrived is freed by fgl__worker_drop from here on */
    w->run.n_clients = 0;
    if (r->err || r->pos != r->len) rc = fgl_error_set(err, r->err == FGL_ERR_NOMEM ? FGL_ERR_NOMEM : FGL_ERR_FORMAT,
                                                        "a malformed or truncated run description");
    if (!rc && (rc = fgl__run_init(&w->run, &cfg, algo, w->cd, (int)K, remote, err))) memset(&w->run, 0, sizeof w->run);
    for (i = 0; !rc && i < K; i++) { /* the data arrived as it left */
        const fgl_client *c = &w->run.clients[i];
        if (remote[i].remote) continue;
        if (fgl__data_sum(w->cd[i].node, w->cd[i].graphs) != remote[i].data_sum || c->n_train != remote[i].n_train ||
            c->n_val != remote[i].n_val || c->n_test != remote[i].n_test)
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "client %u's data differs from what the server registered",
                               (unsigned)i);
    }
    w->run.role = FGL__ROLE_CLIENTS;
    w->trained_round = -1;
    FGL_FREE(remote);
    return rc;
}

/* Install the downloads that follow in r: run->part becomes their clients;
 * hook: call the receive hooks (else only take the messages as received). */
static int fgl__worker_downloads(fgl__worker *w, fgl_reader *r, int hook, fgl_error *err) {
    fgl_run *run = &w->run;
    uint32_t n = fgl_reader_u32(r), q;
    int i;
    if (r->err || n > (uint32_t)run->n_clients) return fgl_error_set(err, FGL_ERR_FORMAT, "malformed downloads");
    for (q = 0; q < n; q++) {
        uint32_t id = fgl_reader_u32(r);
        int bad = 0;
        if (r->err || id >= (uint32_t)run->n_clients || !run->clients[id].local ||
            (q > 0 && (int)id <= run->part[q - 1]))
            return fgl_error_set(err, FGL_ERR_FORMAT, "a download for a client it does not host");
        fgl__get_msg(r, &run->down[id], run->algo.down, run->algo.n_down, run->clients[id].down_len, &bad);
        if (r->err || bad)
            return fgl_error_set(err, FGL_ERR_FORMAT, "client %u's download is malformed", (unsigned)id);
        run->part[q] = (int)id;
    }
    run->n_part = (int)n;
    if (hook) {
        if (fgl__phase_receive(run)) return fgl_error_set(err, run->err.code, "%s", run->err.msg);
    } else {
        for (i = 0; i < run->n_part; i++) fgl__receive(run, &run->clients[run->part[i]], 0);
    }
    return FGL_OK;
}

static int fgl__worker_train(fgl__worker *w, fgl_reader *r, int round, fgl_error *err) {
    fgl_run *run = &w->run;
    uint32_t n = fgl_reader_u32(r), q;
    int m = 0;
    if (r->err || n == 0 || n > (uint32_t)run->n_clients)
        return fgl_error_set(err, FGL_ERR_FORMAT, "malformed participants");
    for (q = 0; q < n; q++) {
        uint32_t id = fgl_reader_u32(r);
        if (r->err || id >= (uint32_t)run->n_clients || (q > 0 && (int)id <= run->part[q - 1]))
            return fgl_error_set(err, FGL_ERR_FORMAT, "malformed participants");
        run->part[q] = (int)id;
    }
    run->n_part = (int)n;
    run->round = round;
    memset(run->trained, 0, (size_t)run->n_clients);
    for (q = 0; q < n; q++) run->trained[run->part[q]] = 1;
    w->trained_round = round;
    fgl__phase_train(run);
    for (q = 0; q < n; q++) m += run->clients[run->part[q]].local;
    fgl_bytes_put_u32(&w->out, (uint32_t)m);
    for (q = 0; q < n; q++) {
        const fgl_client *c = &run->clients[run->part[q]];
        if (!c->local) continue;
        fgl_bytes_put_u32(&w->out, (uint32_t)c->id);
        fgl_bytes_put_u32(&w->out, (uint32_t)c->error);
        fgl_bytes_put_str(&w->out, c->msg);
        fgl__put_f64(&w->out, c->train_loss);
        for (m = 0; m < run->algo.n_up; m++) fgl__put_floats(&w->out, c->up.part[m], c->up.part[m] ? c->up.len[m] : 0);
    }
    return FGL_OK;
}

/* Step over n bytes (read in place by the caller). */
static int fgl__reader_skip(fgl_reader *r, size_t n) {
    if (r->err || n > r->len - r->pos) return r->err = FGL_ERR_FORMAT;
    r->pos += n;
    return FGL_OK;
}

/* Secure aggregation's step for the rank's participants (fgl__mpi_secagg). */
static int fgl__worker_secagg(fgl__worker *w, fgl_reader *r, int round, fgl_error *err) {
    fgl_run *run = &w->run;
    uint32_t step = fgl_reader_u32(r), n = fgl_reader_u32(r), q, m = 0;
    size_t at;
    if (r->err || step < 1 || step > 3 || n < 2 || n > (uint32_t)run->n_clients)
        return fgl_error_set(err, FGL_ERR_FORMAT, "malformed secure aggregation step");
    run->round = round;
    if (step == 1) {
        int *ids = (int *)FGL_MALLOC(sizeof(int) * n);
        unsigned char pk[FGL__SA_PK];
        if (!ids) return fgl_error_set(err, FGL_ERR_NOMEM, "out of memory");
        for (q = 0; q < n; q++) {
            ids[q] = (int)fgl_reader_u32(r);
            if (r->err || ids[q] < 0 || ids[q] >= run->n_clients || (q > 0 && ids[q] <= ids[q - 1])) {
                FGL_FREE(ids);
                return fgl_error_set(err, FGL_ERR_FORMAT, "malformed participants");
            }
            m += run->clients[ids[q]].local;
        }
        fgl_bytes_put_u32(&w->out, step);
        fgl_bytes_put_u32(&w->out, m);
        for (q = 0; q < n; q++) {
            fgl_client *c = &run->clients[ids[q]];
            if (!c->local) continue;
            c->error = 0;
            c->msg[0] = 0;
            memset(pk, 0, sizeof pk);
            fgl__sa_keys(run, c, round, (int)n, ids, pk);
            fgl_bytes_put_u32(&w->out, (uint32_t)c->id);
            fgl_bytes_put_u32(&w->out, (uint32_t)c->error);
            fgl_bytes_put_str(&w->out, c->msg);
            fgl_bytes_put(&w->out, pk, FGL__SA_PK);
        }
        FGL_FREE(ids);
        return FGL_OK;
    }
    if (step == 2) {
        uint32_t t = fgl_reader_u32(r);
        const unsigned char *pks = r->data + r->pos;
        unsigned char *ct;
        int i;
        if (r->err || t < 2 || t > n || (size_t)(r->len - r->pos) != (size_t)n * FGL__SA_PK)
            return fgl_error_set(err, FGL_ERR_FORMAT, "malformed public keys");
        r->pos = r->len;
        if (!(ct = (unsigned char *)FGL_MALLOC((size_t)n * FGL__SA_CT)))
            return fgl_error_set(err, FGL_ERR_NOMEM, "out of memory");
        for (i = 0; i < run->n_clients; i++)
            m += run->clients[i].local && run->clients[i].sa && run->clients[i].sa->n == (int)n;
        fgl_bytes_put_u32(&w->out, step);
        fgl_bytes_put_u32(&w->out, m);
        for (i = 0; i < run->n_clients; i++) {
            fgl_client *c = &run->clients[i];
            if (!c->local || !c->sa || c->sa->n != (int)n) continue;
            fgl__sa_share(run, c, pks, (int)t, ct);
            fgl_bytes_put_u32(&w->out, (uint32_t)c->id);
            fgl_bytes_put_u32(&w->out, (uint32_t)c->error);
            fgl_bytes_put_str(&w->out, c->msg);
            fgl_bytes_put(&w->out, ct, (size_t)n * FGL__SA_CT);
        }
        FGL_FREE(ct);
        return FGL_OK;
    }
    {   /* step 3 */
        const unsigned char *alive = r->data + r->pos;
        unsigned char *rev;
        uint32_t k;
        if (fgl__reader_skip(r, n)) return fgl_error_set(err, FGL_ERR_FORMAT, "malformed survivors");
        m = fgl_reader_u32(r);
        if (r->err || m > n) return fgl_error_set(err, FGL_ERR_FORMAT, "malformed survivors");
        if (!(rev = (unsigned char *)FGL_MALLOC((size_t)n * FGL__SA_REV)))
            return fgl_error_set(err, FGL_ERR_NOMEM, "out of memory");
        fgl_bytes_put_u32(&w->out, step);
        fgl_bytes_put_u32(&w->out, m);
        for (k = 0; k < m; k++) {
            uint32_t id = fgl_reader_u32(r);
            fgl_client *c;
            int ok;
            at = r->pos;
            if (r->err || id >= (uint32_t)run->n_clients || !run->clients[id].local ||
                fgl__reader_skip(r, (size_t)n * FGL__SA_CT)) {
                FGL_FREE(rev);
                return fgl_error_set(err, FGL_ERR_FORMAT, "malformed shares");
            }
            c = &run->clients[id];
            c->error = 0;
            c->msg[0] = 0;
            ok = c->sa && c->sa->n == (int)n && fgl__sa_reveal(c, alive, r->data + at, rev) == FGL_OK;
            fgl_bytes_put_u32(&w->out, id);
            fgl_bytes_put_u32(&w->out, (uint32_t)c->error);
            fgl_bytes_put_str(&w->out, c->msg);
            fgl_bytes_put_u32(&w->out, (uint32_t)ok);
            if (ok) fgl_bytes_put(&w->out, rev, (size_t)n * FGL__SA_REV);
        }
        FGL_FREE(rev);
        return FGL_OK;
    }
}

static int fgl__worker_finish(fgl__worker *w, fgl_reader *r, int round, fgl_error *err) {
    fgl_run *run = &w->run;
    uint32_t evaluated = fgl_reader_u32(r);
    int i, rc, n = 0;
    if (r->err) return fgl_error_set(err, FGL_ERR_FORMAT, "malformed command");
    run->round = round;
    if (w->trained_round != round) memset(run->trained, 0, (size_t)run->n_clients); /* none of its clients took part */
    if ((rc = fgl__worker_downloads(w, r, 1, err))) return rc;
    if (!evaluated) {
        fgl__trim_idle(run);
        return FGL_OK;
    }
    fgl__phase_eval(run);
    fgl__trim_idle(run);
    for (i = 0; i < run->n_clients; i++) n += run->clients[i].local;
    fgl_bytes_put_u32(&w->out, (uint32_t)n);
    for (i = 0; i < run->n_clients; i++) {
        const fgl_client *c = &run->clients[i];
        if (!c->local) continue;
        fgl_bytes_put_u32(&w->out, (uint32_t)i);
        fgl__put_f64(&w->out, c->val_acc);
        fgl__put_f64(&w->out, c->test_acc);
        fgl_bytes_put_u32(&w->out, (uint32_t)c->tape.err);
        fgl_bytes_put_str(&w->out, c->tape.msg);
    }
    return FGL_OK;
}

static int fgl__worker_load(fgl__worker *w, fgl_reader *r, int round, const unsigned char *msg, size_t len,
                            fgl_error *err) {
    fgl_run *run = &w->run;
    uint32_t commit = fgl_reader_u32(r), n, q;
    size_t at = r->pos;
    int rc;
    fgl_reader body;
    if (r->err) return fgl_error_set(err, FGL_ERR_FORMAT, "malformed command");
    if (!run->started) return fgl_error_set(err, FGL_ERR_ARG, "the run has not started");
    if (commit) {
        if (!w->load) return fgl_error_set(err, FGL_ERR_ARG, "nothing checked to install");
        body = fgl_reader_make(w->load, w->load_len);
    } else {
        /* packed clients take their state back now, in the checking pass: the
         * installing pass cannot fail, so a load stays all or nothing */
        if ((rc = fgl__unpark_all(run)))
            return fgl_error_set(err, rc, "cannot restore the clients' packed state (%s)", fgl_result_name(rc));
        FGL_FREE(w->load);
        if (!(w->load = (unsigned char *)FGL_MALLOC(FGL__MAX(len - at, 1))))
            return fgl_error_set(err, FGL_ERR_NOMEM, "out of memory");
        memcpy(w->load, msg + at, len - at);
        w->load_len = len - at;
        r->pos = r->len; /* all of it is the checkpoint part, read below */
        body = fgl_reader_make(w->load, w->load_len);
    }
    n = fgl_reader_u32(&body);
    for (q = 0; q < n && !body.err; q++) {
        uint32_t id = fgl_reader_u32(&body);
        uint64_t bytes = fgl_reader_u64(&body);
        fgl_reader st;
        if (body.err || id >= (uint32_t)run->n_clients || !run->clients[id].local ||
            bytes > (uint64_t)(body.len - body.pos))
            return fgl_error_set(err, FGL_ERR_FORMAT, "malformed checkpoint part");
        st = fgl_reader_make(body.data + body.pos, (size_t)bytes);
        if ((rc = fgl__get_store(&st, &run->clients[id].store, (int)commit, "checkpoint", err))) return rc;
        if (st.pos != st.len)
            return fgl_error_set(err, FGL_ERR_FORMAT, "checkpoint: client %u's state has extra bytes", (unsigned)id);
        fgl__skip(&body, (size_t)bytes);
    }
    if (body.err || body.pos != body.len) return fgl_error_set(err, FGL_ERR_FORMAT, "malformed checkpoint part");
    if (commit) {
        run->round = round;
        FGL_FREE(w->load);
        w->load = NULL;
    }
    return FGL_OK;
}

/* Wait for a message with this tag from rank `from` (napping between polls). */
static unsigned char *fgl__mpi_wait(MPI_Comm comm, int from, int tag, size_t *len) {
    int flag = 0, count = 0, nap = 50;
    MPI_Status status;
    unsigned char *buf;
    for (;;) {
        MPI_Iprobe(from, tag, comm, &flag, &status);
        if (flag) break;
        fgl__mpi_nap(&nap);
    }
    MPI_Get_count(&status, MPI_BYTE, &count);
    buf = (unsigned char *)FGL_MALLOC((size_t)FGL__MAX(count, 1));
    if (!buf) return NULL;
    MPI_Recv(buf, count, MPI_BYTE, from, tag, comm, MPI_STATUS_IGNORE);
    *len = (size_t)count;
    return buf;
}

FGLDEF int fgl_mpi_serve(MPI_Comm comm, fgl_error *err) {
    fgl__worker w;
    int size;
    memset(&w, 0, sizeof w);
    w.comm = comm;
    MPI_Comm_rank(comm, &w.rank);
    MPI_Comm_size(comm, &size);
    if (w.rank == 0) return fgl_error_set(err, FGL_ERR_ARG, "mpi: rank 0 is the server");
    fgl_bytes_init(&w.out);
    for (;;) {
        size_t len = 0;
        unsigned char *msg = fgl__mpi_wait(comm, 0, FGL__MPI_CMD, &len);
        fgl_reader r;
        uint32_t kind, run_id;
        int round, rc = FGL_OK;
        fgl_error e;
        double t0 = fgl_now();
        if (!msg) {
            fgl__worker_drop(&w);
            fgl_bytes_free(&w.out);
            return fgl_error_set(err, FGL_ERR_NOMEM, "rank %d: out of memory for a command", w.rank);
        }
        r = fgl_reader_make(msg, len);
        kind = fgl_reader_u32(&r);
        run_id = fgl_reader_u32(&r);
        round = (int)fgl_reader_u32(&r);
        e.code = 0;
        e.msg[0] = 0;
        if (r.err) kind = 0;
        if (kind == FGL__MC_QUIT) {
            FGL_FREE(msg);
            break;
        }
        if (kind == FGL__MC_END) {
            if (run_id == w.run_id) fgl__worker_drop(&w);
            FGL_FREE(msg);
            continue;
        }
        if (kind == FGL__MC_INIT) {
            fgl__worker_drop(&w);
            w.run_id = run_id;
        } else if (run_id != w.run_id || !w.have) {
            FGL_FREE(msg); /* a command for a run this rank does not hold: nothing to answer */
            continue;
        }
        if (kind == FGL__MC_TRAIN && w.fail_round > 0 && round + 1 >= w.fail_round) w.silent = 1;
        if (w.silent) { /* the simulated fault: hears, never answers, until the run ends */
            FGL_FREE(msg);
            continue;
        }
        fgl__mpi_begin(&w.out, kind, run_id, round);
        {
            fgl_bytes body;
            fgl_bytes saved = w.out; /* the header is finished after the body: build the body apart */
            fgl_bytes_init(&w.out);
            switch (kind) {
            case FGL__MC_INIT: rc = fgl__worker_init(&w, &r, &e); break;
            case FGL__MC_START: {
                uint32_t n = fgl_reader_u32(&r), k;
                if (r.err || n != (uint32_t)w.run.algo.n_params) {
                    rc = fgl_error_set(&e, FGL_ERR_FORMAT, "%u parameter values for %s", (unsigned)n, w.run.algo.name);
                    break;
                }
                for (k = 0; k < n; k++) w.run.set.value[k] = fgl__get_f64(&r);
                if ((rc = fgl_run_start(&w.run))) {
                    fgl_error_set(&e, rc, "%s", w.run.err.msg);
                    break;
                }
                rc = fgl__worker_downloads(&w, &r, 1, &e);
                break;
            }
            case FGL__MC_TRAIN: rc = fgl__worker_train(&w, &r, round, &e); break;
            case FGL__MC_SECAGG: rc = fgl__worker_secagg(&w, &r, round, &e); break;
            case FGL__MC_FINISH: rc = fgl__worker_finish(&w, &r, round, &e); break;
            case FGL__MC_SAVE: {
                int i, n = 0;
                fgl_bytes st;
                for (i = 0; i < w.run.n_clients; i++) n += w.run.clients[i].local;
                fgl_bytes_put_u32(&w.out, (uint32_t)n);
                fgl_bytes_init(&st);
                for (i = 0; i < w.run.n_clients; i++) {
                    if (!w.run.clients[i].local) continue;
                    st.len = 0;
                    fgl__put_store(&w.run, &st, &w.run.clients[i].store, &w.run.clients[i]);
                    fgl_bytes_put_u32(&w.out, (uint32_t)i);
                    fgl_bytes_put_u64(&w.out, (uint64_t)st.len);
                    fgl_bytes_put(&w.out, st.data, st.len);
                }
                if (st.err)
                    rc = fgl_error_set(&e, st.err, "cannot write its clients' state (%s)", fgl_result_name(st.err));
                fgl_bytes_free(&st);
                break;
            }
            case FGL__MC_LOAD: rc = fgl__worker_load(&w, &r, round, msg, len, &e); break;
            case FGL__MC_RESUME:
                w.run.round = round;
                if (!(rc = fgl__worker_downloads(&w, &r, 0, &e))) fgl__trim_idle(&w.run); /* loaded resident */
                break;
            default: rc = fgl_error_set(&e, FGL_ERR_FORMAT, "unknown command %u", (unsigned)kind);
            }
            if (!rc && (r.err || r.pos != r.len)) rc = fgl_error_set(&e, FGL_ERR_FORMAT, "a malformed command");
            if (!rc && w.out.err) rc = fgl_error_set(&e, FGL_ERR_NOMEM, "out of memory");
            body = w.out;
            w.out = saved;
            fgl_bytes_put_u32(&w.out, (uint32_t)rc);
            fgl_bytes_put_str(&w.out, rc ? e.msg : "");
            fgl__put_f64(&w.out, fgl_now() - t0);
            if (!rc) fgl_bytes_put(&w.out, body.data, body.len);
            fgl_bytes_free(&body);
        }
        FGL_FREE(msg);
        if (w.out.err) { /* not even the error fits: send the bare header */
            fgl__mpi_begin(&w.out, kind, run_id, round);
            fgl_bytes_put_u32(&w.out, FGL_ERR_NOMEM);
            fgl_bytes_put_str(&w.out, "out of memory");
            fgl__put_f64(&w.out, 0);
        }
        MPI_Send(w.out.data, (int)w.out.len, MPI_BYTE, 0, FGL__MPI_REPLY, comm);
        if (rc && kind == FGL__MC_INIT) fgl__worker_drop(&w);
    }
    fgl__worker_drop(&w);
    fgl_bytes_free(&w.out);
    (void)size;
    return FGL_OK;
}

#endif /* FGL_MPI */

