#include "../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../alone.h"
/* ======================================================================== */
/* FGL_MPI: the worker ranks (fgl_mpi_serve; src/fed/mpi.h is the server)   */
/* ======================================================================== */
/* A worker waits for the server's commands (the protocol: src/fed/mpi.h),
 * builds the run INIT describes from the clients' data it carries, and
 * answers each command with one reply, posted with MPI_Isend and settled
 * before the next reply is built, so that it never blocks on a server that
 * is gone. */
#ifdef FGL_MPI
#include <stdlib.h> /* _Exit: the simulated fault fail_exit only */

/* --- the workers' side ------------------------------------------------------------- */

typedef struct fgl__worker {
    MPI_Comm comm;
    int rank;
    uint32_t run_id;
    int have;                   /* a run is set up */
    fgl_run run;
    int K;
    fgl_client_data *cd;        /* K; the hosted clients' data owned here */
    int fail, fail_round;       /* the simulated fault: this rank's, from that round (0: the start) */
    int fail_exit;              /* it ends the process in mid-reply instead of going silent */
    int silent;                 /* it is under way */
    int trained_round;          /* the round whose participants run->trained marks */
    unsigned char *load;        /* the checkpoint part checked, kept for the commit */
    size_t load_len;
    fgl_bytes out;              /* the reply */
    MPI_Request req;            /* its send */
    int (*server_alive)(void *ctx); /* the program's check that rank 0 exists (NULL: none) */
    void *ctx;
    double next_check;
    int gone;                   /* the check said rank 0 is gone */
} fgl__worker;

/* 1 when the program's check (asked about once a second) says rank 0 is gone. */
static int fgl__worker_alone(fgl__worker *w) {
    double now;
    if (!w->server_alive || w->gone) return w->gone;
    if ((now = fgl_now()) < w->next_check) return 0;
    w->next_check = now + 1;
    return w->gone = !w->server_alive(w->ctx);
}

static int fgl__worker_alone_cb(void *w) { return fgl__worker_alone((fgl__worker *)w); }

/* Post w->out to the server (it is taken while the rank waits for the next
 * command: fgl__worker_settle before w->out changes). FGL_OK or FGL_ERR_IO. */
static int fgl__worker_send(fgl__worker *w) {
    if (MPI_Isend(w->out.data, (int)w->out.len, MPI_BYTE, 0, FGL__MPI_REPLY, w->comm, &w->req) == MPI_SUCCESS)
        return FGL_OK;
    w->req = MPI_REQUEST_NULL;
    return FGL_ERR_IO;
}

/* Poll until the last reply is taken: FGL_OK, or FGL_ERR_IO (MPI failed, or
 * rank 0 is gone: the send is given up, its buffer left to MPI). */
static int fgl__worker_settle(fgl__worker *w) {
    int flag = 0, nap = 50;
    while (w->req != MPI_REQUEST_NULL) {
        if (MPI_Test(&w->req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || (!flag && fgl__worker_alone(w))) {
            if (w->req != MPI_REQUEST_NULL) MPI_Request_free(&w->req);
            fgl_bytes_init(&w->out);
            return FGL_ERR_IO;
        }
        if (flag) break;
        fgl__mpi_nap(&nap);
    }
    return FGL_OK;
}

static void fgl__worker_drop(fgl__worker *w) {
    int i;
    if (w->have) {
        fgl_run_free(&w->run);
        for (i = 0; w->cd && i < w->K; i++) {
            if (w->cd[i].node) fgl_node_data_free(w->cd[i].node);
            if (w->cd[i].graphs) fgl_graph_set_free(w->cd[i].graphs);
            if (w->cd[i].link) fgl_link_split_free((fgl_link_split *)w->cd[i].link); /* ours: it arrived */
            FGL_FREE((void *)w->cd[i].link);
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

/* The simulated fault with fail_exit: post the start of a reply to this
 * command (a valid header, then 1 MiB the server cannot read as a body) and
 * end the process while MPI is still sending it, as a rank killed then. */
static void fgl__worker_exit_midreply(fgl__worker *w, uint32_t kind, uint32_t run_id, int round) {
    size_t size = (size_t)1 << 20; /* large enough for MPI to send it in parts */
    unsigned char *pad = (unsigned char *)fgl__zalloc(size);
    int flag = 0;
    if (pad && fgl__worker_settle(w) == FGL_OK) {
        fgl__mpi_begin(&w->out, kind, run_id, round);
        fgl_bytes_put_u32(&w->out, 0);
        fgl_bytes_put_str(&w->out, "");
        fgl__put_f64(&w->out, 0);
        fgl_bytes_put(&w->out, pad, size);
        if (!w->out.err && fgl__worker_send(w) == FGL_OK) MPI_Test(&w->req, &flag, MPI_STATUS_IGNORE);
    }
    _Exit(70);
}

static int fgl__worker_init(fgl__worker *w, fgl_reader *r, fgl_error *err) {
    char name[64];
    fgl_fed_config cfg;
    const fgl_algo *algo;
    fgl__remote *remote = NULL;
    uint32_t proto, spec_size, threads, park, fail_rank, fail_round, fail_exit, K, i;
    int rc = FGL_OK;
    proto = fgl_reader_u32(r);
    spec_size = fgl_reader_u32(r);
    if (r->err || proto != FGL__MPI_PROTOCOL || spec_size != (uint32_t)sizeof(fgl_model_spec))
        return fgl_error_set(err, FGL_ERR_FORMAT, "it runs another fgl build (protocol %u, spec %u bytes; here %u, %u)",
                             (unsigned)proto, (unsigned)spec_size, FGL__MPI_PROTOCOL, (unsigned)sizeof(fgl_model_spec));
    fgl_reader_str(r, name, sizeof name);
    fgl__get_config(r, &cfg);
    fgl_reader_str(r, cfg.plugin.name, sizeof cfg.plugin.name);
    cfg.plugin.arg = fgl__get_f64(r);
    if (cfg.secrets.from_seed) cfg.secrets.seed = fgl_reader_u64(r);
    threads = fgl_reader_u32(r);
    park = fgl_reader_u32(r);
    fail_rank = fgl_reader_u32(r);
    fail_round = fgl_reader_u32(r);
    fail_exit = fgl_reader_u32(r);
    K = fgl_reader_u32(r);
    if (r->err || K == 0 || K > (uint32_t)(r->len - r->pos) / (24 + sizeof(fgl_model_spec)))
        return fgl_error_set(err, FGL_ERR_FORMAT, "a malformed run description");
    if (!(algo = fgl_algo_find(name)))
        return fgl_error_set(err, FGL_ERR_ARG, "algorithm '%s' is not registered in this process", name);
    cfg.threads = (int)threads;
    cfg.park_idle = park <= 2 ? (int)park : 0;
    w->fail = (int)fail_rank == w->rank;
    w->fail_round = (int)fail_round;
    w->fail_exit = fail_exit == 1;
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
        if (kind == 1 && (w->cd[i].node = (fgl_node_data *)fgl__zalloc(sizeof(fgl_node_data))) != NULL) {
            fgl_link_split *ls;
            uint32_t link = fgl__get_node_data(r, w->cd[i].node) ? 0 : fgl_reader_u32(r);
            if (!r->err && link > 1) r->err = FGL_ERR_FORMAT;
            if (r->err || !link) continue;
            if (!(ls = (fgl_link_split *)fgl__zalloc(sizeof(fgl_link_split)))) r->err = FGL_ERR_NOMEM;
            else if (fgl__get_link_split(r, w->cd[i].node->n_nodes, ls)) FGL_FREE(ls);
            else w->cd[i].link = ls;
        }
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
        if (fgl__phase_receive(run, run->part, run->n_part)) return fgl_error_set(err, run->err.code, "%s", run->err.msg);
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
        fgl_bytes_put_u32(&w->out, (uint32_t)c->err.code);
        fgl_bytes_put_str(&w->out, c->err.msg);
        fgl__put_f64(&w->out, run->cfg.secagg.on ? NAN : c->train_loss); /* secagg: in step 5's sum only */
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
    if (r->err || step < 1 || step > 4 || n < 2 || n > (uint32_t)run->n_clients)
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
            c->err.code = 0;
            c->err.msg[0] = 0;
            memset(pk, 0, sizeof pk);
            fgl__sa_keys(run, c, round, (int)n, ids, pk);
            fgl_bytes_put_u32(&w->out, (uint32_t)c->id);
            fgl_bytes_put_u32(&w->out, (uint32_t)c->err.code);
            fgl_bytes_put_str(&w->out, c->err.msg);
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
            fgl_bytes_put_u32(&w->out, (uint32_t)c->err.code);
            fgl_bytes_put_str(&w->out, c->err.msg);
            fgl_bytes_put(&w->out, ct, (size_t)n * FGL__SA_CT);
        }
        FGL_FREE(ct);
        return FGL_OK;
    }
    if (step == 4) { /* the survivors list in; each hosted survivor's tags of it out */
        const unsigned char *alive = r->data + r->pos;
        unsigned char *tags;
        int i;
        if (fgl__reader_skip(r, n)) return fgl_error_set(err, FGL_ERR_FORMAT, "malformed survivors");
        if (!(tags = (unsigned char *)FGL_MALLOC((size_t)n * FGL__SA_TAG)))
            return fgl_error_set(err, FGL_ERR_NOMEM, "out of memory");
        for (i = 0; i < run->n_clients; i++) {
            const fgl_client *c = &run->clients[i];
            m += c->local && c->sa && c->sa->n == (int)n && c->sa->me >= 0 && alive[c->sa->me];
        }
        fgl_bytes_put_u32(&w->out, step);
        fgl_bytes_put_u32(&w->out, m);
        for (i = 0; i < run->n_clients; i++) {
            fgl_client *c = &run->clients[i];
            if (!c->local || !c->sa || c->sa->n != (int)n || c->sa->me < 0 || !alive[c->sa->me]) continue;
            c->err.code = 0;
            c->err.msg[0] = 0;
            fgl__sa_confirm(c, alive, tags);
            fgl_bytes_put_u32(&w->out, (uint32_t)c->id);
            fgl_bytes_put_u32(&w->out, (uint32_t)c->err.code);
            fgl_bytes_put_str(&w->out, c->err.msg);
            fgl_bytes_put(&w->out, tags, (size_t)n * FGL__SA_TAG);
        }
        FGL_FREE(tags);
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
            size_t at_tag = r->pos;
            at = r->pos + (size_t)n * FGL__SA_TAG;
            if (r->err || id >= (uint32_t)run->n_clients || !run->clients[id].local ||
                fgl__reader_skip(r, (size_t)n * (FGL__SA_TAG + FGL__SA_CT))) {
                FGL_FREE(rev);
                return fgl_error_set(err, FGL_ERR_FORMAT, "malformed shares");
            }
            c = &run->clients[id];
            c->err.code = 0;
            c->err.msg[0] = 0;
            ok = c->sa && c->sa->n == (int)n && fgl__sa_reveal(c, alive, r->data + at_tag, r->data + at, rev) == FGL_OK;
            fgl_bytes_put_u32(&w->out, id);
            fgl_bytes_put_u32(&w->out, (uint32_t)c->err.code);
            fgl_bytes_put_str(&w->out, c->err.msg);
            fgl_bytes_put_u32(&w->out, (uint32_t)ok);
            if (ok) fgl_bytes_put(&w->out, rev, (size_t)n * FGL__SA_REV);
        }
        fgl__crypto_wipe(rev, (size_t)n * FGL__SA_REV); /* revealed shares */
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
    if (run->cfg.secagg.on) { /* step 5: each survivor's numbers, masked; no client's own leaves the host */
        uint64_t words[FGL__SA_NM];
        if (evaluated) fgl__phase_eval(run, run->part, run->n_part);
        fgl__trim_idle(run, run->part, run->n_part);
        for (i = 0; i < run->n_clients; i++) n += run->clients[i].local && run->clients[i].sa;
        fgl_bytes_put_u32(&w->out, (uint32_t)n);
        for (i = 0; i < run->n_clients; i++) {
            fgl_client *c = &run->clients[i];
            int k;
            if (!c->local || !c->sa) continue;
            c->err.msg[0] = 0;
            rc = fgl__sa_metrics_mask(c, round, (int)evaluated, words);
            fgl_bytes_put_u32(&w->out, (uint32_t)i);
            fgl_bytes_put_u32(&w->out, (uint32_t)(rc == FGL_OK ? 1 : rc == FGL_ERR_ARG ? 2 : 0));
            for (k = 0; k < FGL__SA_NM; k++) fgl_bytes_put_u64(&w->out, rc == FGL_OK ? words[k] : 0);
            fgl_bytes_put_u32(&w->out, (uint32_t)c->tape.err.code);
            fgl_bytes_put_str(&w->out, c->err.msg);
        }
        return FGL_OK;
    }
    if (!evaluated) {
        fgl__trim_idle(run, run->part, run->n_part);
        return FGL_OK;
    }
    fgl__phase_eval(run, run->part, run->n_part);
    fgl__trim_idle(run, run->part, run->n_part);
    for (i = 0; i < run->n_clients; i++) n += run->clients[i].local;
    fgl_bytes_put_u32(&w->out, (uint32_t)n);
    for (i = 0; i < run->n_clients; i++) {
        const fgl_client *c = &run->clients[i];
        if (!c->local) continue;
        fgl_bytes_put_u32(&w->out, (uint32_t)i);
        fgl__put_f64(&w->out, c->val_acc);
        fgl__put_f64(&w->out, c->test_acc);
        fgl__put_f64(&w->out, c->val_hits);
        fgl__put_f64(&w->out, c->test_hits);
        fgl__put_f64(&w->out, c->val_f1);
        fgl__put_f64(&w->out, c->test_f1);
        fgl__put_f64(&w->out, c->val_auc);
        fgl__put_f64(&w->out, c->test_auc);
        fgl_bytes_put_u32(&w->out, (uint32_t)c->tape.err.code);
        fgl_bytes_put_str(&w->out, c->tape.err.msg);
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

/* The next command from rank 0 (napping between polls, for its envelope
 * and for its body): NULL, with *rc FGL_ERR_NOMEM or FGL_ERR_IO (MPI failed,
 * or the program's check says rank 0 is gone), when none can be had. */
static unsigned char *fgl__mpi_wait(fgl__worker *w, size_t *len, int *rc) {
    int flag = 0, count = 0, nap = 50;
    MPI_Status status;
    unsigned char *buf;
    for (;;) {
        if (MPI_Iprobe(0, FGL__MPI_CMD, w->comm, &flag, &status) != MPI_SUCCESS) {
            *rc = FGL_ERR_IO;
            return NULL;
        }
        if (flag) break;
        if (fgl__worker_alone(w)) {
            *rc = FGL_ERR_IO;
            return NULL;
        }
        fgl__mpi_nap(&nap);
    }
    MPI_Get_count(&status, MPI_BYTE, &count);
    buf = (unsigned char *)FGL_MALLOC((size_t)FGL__MAX(count, 1));
    if (!buf) {
        *rc = FGL_ERR_NOMEM;
        return NULL;
    }
    /* the body, polled like the envelope: a rank 0 that dies in mid-send must not hold this rank for ever */
    if ((*rc = fgl__mpi_recv_body(&buf, count, 0, FGL__MPI_CMD, w->comm, HUGE_VAL, fgl__worker_alone_cb, w))) {
        FGL_FREE(buf); /* NULL when MPI kept it */
        *rc = FGL_ERR_IO;
        return NULL;
    }
    *len = (size_t)count;
    return buf;
}

FGLDEF int fgl_mpi_serve(MPI_Comm comm, fgl_error *err) { return fgl_mpi_serve_watched(comm, NULL, NULL, err); }

/* A worker that cannot go on: what it holds is freed, the reason returned. */
static int fgl__worker_stop(fgl__worker *w, int rc, const char *what, fgl_error *err) {
    fgl__worker_drop(w);
    if (w->req != MPI_REQUEST_NULL) { /* a reply not taken: its buffer stays with MPI */
        MPI_Request_free(&w->req);
        fgl_bytes_init(&w->out);
    }
    fgl_bytes_free(&w->out);
    if (rc == FGL_ERR_NOMEM) return fgl_error_set(err, rc, "rank %d: out of memory for %s", w->rank, what);
    return fgl_error_set(err, rc, "rank %d: %s", w->rank,
                         w->gone ? "the server (rank 0) is gone" : "MPI failed talking to the server (rank 0)");
}

FGLDEF int fgl_mpi_serve_watched(MPI_Comm comm, int (*server_alive)(void *ctx), void *ctx, fgl_error *err) {
    fgl__worker w;
    memset(&w, 0, sizeof w);
    w.comm = comm;
    w.server_alive = server_alive;
    w.ctx = ctx;
    if (MPI_Comm_rank(comm, &w.rank) != MPI_SUCCESS)
        return fgl_error_set(err, FGL_ERR_ARG, "mpi: not a usable communicator");
    if (w.rank == 0) return fgl_error_set(err, FGL_ERR_ARG, "mpi: rank 0 is the server");
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN); /* the server's death comes back as an error */
    w.next_check = fgl_now() + 1;
    w.req = MPI_REQUEST_NULL;
    fgl_bytes_init(&w.out);
    for (;;) {
        size_t len = 0;
        int round, rc = FGL_OK;
        unsigned char *msg = fgl__mpi_wait(&w, &len, &rc);
        fgl_reader r;
        uint32_t kind, run_id;
        fgl_error e;
        double t0 = fgl_now();
        if (!msg) return fgl__worker_stop(&w, rc, "a command", err);
        r = fgl_reader_make(msg, len);
        kind = fgl_reader_u32(&r);
        run_id = fgl_reader_u32(&r);
        round = (int)fgl_reader_u32(&r);
        e.code = 0;
        e.msg[0] = 0;
        if (r.err) kind = 0;
        if (kind == FGL__MC_QUIT) { /* confirmed, so that the server knows this rank leaves */
            FGL_FREE(msg);
            if (fgl__worker_settle(&w)) return fgl__worker_stop(&w, FGL_ERR_IO, "", err);
            fgl__mpi_begin(&w.out, FGL__MC_QUIT, run_id, round);
            fgl_bytes_put_u32(&w.out, 0);
            fgl_bytes_put_str(&w.out, "");
            fgl__put_f64(&w.out, 0);
            if (w.out.err) return fgl__worker_stop(&w, FGL_ERR_NOMEM, "the last reply", err);
            if (fgl__worker_send(&w) || fgl__worker_settle(&w)) return fgl__worker_stop(&w, FGL_ERR_IO, "", err);
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
        if (kind == FGL__MC_TRAIN && w.fail && w.fail_round > 0 && round + 1 >= w.fail_round) {
            if (w.fail_exit) fgl__worker_exit_midreply(&w, kind, run_id, round);
            w.silent = 1;
        }
        if (w.silent) { /* the simulated fault: hears, never answers, until the run ends */
            FGL_FREE(msg);
            continue;
        }
        if (fgl__worker_settle(&w)) { /* the last reply taken: w.out is this one's */
            FGL_FREE(msg);
            return fgl__worker_stop(&w, FGL_ERR_IO, "", err);
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
                fgl_settings_fill(&w.run.set);
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
                if (!(rc = fgl__worker_downloads(&w, &r, 0, &e))) fgl__trim_idle(&w.run, w.run.part, w.run.n_part); /* loaded resident */
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
        if (kind == FGL__MC_INIT && !rc && w.fail && w.fail_round == 0) { /* the fault from the start */
            if (w.fail_exit) fgl__worker_exit_midreply(&w, kind, run_id, round);
            w.silent = 1;
            continue;
        }
        if (w.out.err) { /* not even the error fits: send the bare header */
            fgl__mpi_begin(&w.out, kind, run_id, round);
            fgl_bytes_put_u32(&w.out, FGL_ERR_NOMEM);
            fgl_bytes_put_str(&w.out, "out of memory");
            fgl__put_f64(&w.out, 0);
        }
        if (fgl__worker_send(&w)) return fgl__worker_stop(&w, FGL_ERR_IO, "a reply", err);
        if (rc && kind == FGL__MC_INIT) fgl__worker_drop(&w);
    }
    fgl__worker_drop(&w);
    fgl_bytes_free(&w.out);
    return FGL_OK;
}

#endif /* FGL_MPI */
#include "../alone.h"
