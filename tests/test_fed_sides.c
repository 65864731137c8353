/* The sides apart (fgl_fed.h, issue 36): what a hook receives is read-only
 * and what an observer gets is a read-only summary.
 *  - the checksum behind the runtime's checks changes with any one float;
 *  - fgl_down_copy gives a private copy, and writing it leaves the download,
 *    the server's buffer and the run's bits as they were;
 *  - a hook that casts the const away and writes into its download (a part
 *    sent by row: one buffer per client) or the server into an upload fails
 *    the run, naming the client and the hook, at 1 and 2 threads;
 *  - fgl_observed holds what the run holds, reads through const, and the
 *    observers' wrappers (fgl_run_report, fgl_run_client_matrix) say when
 *    there is nothing.
 * tests/test_sides.sh checks that the writes do not compile without the cast,
 * and the same refusals under MPI. Synthetic data only: quick everywhere. */
#include "../fgl_fed.h"
#include "ft.h"
#include "ft_fed.h"
#include <stdio.h>

static fgl_dataset nodes;

/* 900 synthetic nodes over 4 METIS clients, GCN of hidden 16. */
static int clients4(fgl_scenario *sc, fgl_client_data *cd) { return ft_node_clients(&nodes, 4, 16, sc, cd); }

static fgl_fed_config cfg_of(int rounds, int threads) {
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    cfg.rounds = rounds;
    cfg.local_epochs = 1;
    cfg.threads = threads;
    return cfg;
}

/* --- the checksum ------------------------------------------------------------------ */

static void test_checksum(void) {
    float x[37], y[37];
    uint64_t h;
    int i, b, changed = 1;
    for (i = 0; i < 37; i++) x[i] = (float)i * 0.37f - 3.0f;
    h = fgl__floats_sum(x, 37);
    memcpy(y, x, sizeof x);
    FT_CHECK(fgl__floats_sum(y, 37) == h, "equal floats, equal sums");
    for (i = 0; i < 37; i++) /* every float, every bit (the lanes and the tail) */
        for (b = 0; b < 32; b++) {
            uint32_t u;
            memcpy(&u, &y[i], 4);
            u ^= 1u << b;
            memcpy(&y[i], &u, 4);
            changed &= fgl__floats_sum(y, 37) != h;
            memcpy(&y[i], &x[i], 4);
        }
    FT_CHECK(changed, "a flipped bit of any float changes the sum");
    FT_CHECK(fgl__floats_sum(x, 36) != h && fgl__floats_sum(x, 0) != h, "the length counts");
    y[3] = -0.0f;
    x[3] = 0.0f;
    FT_CHECK(fgl__floats_sum(x, 37) != fgl__floats_sum(y, 37), "bits, not values: -0 is not 0");
}

/* --- fgl_down_copy --------------------------------------------------------------------- */

static int copy_calls[4], copy_ok[4], copy_absent[4]; /* per client: the hooks run side by side */

static int copy_receive(fgl_client *c) {
    const float *down = fgl_down(c, "theta"), *received = fgl_received(c);
    float *x = fgl_down_copy(c, "theta"), first;
    size_t n = fgl_up_size(c, "theta");
    if (!x || !down) return FGL_ERR_NOMEM;
    first = down[0];
    copy_calls[c->id]++;
    if (x != down && !memcmp(x, down, sizeof(float) * n)) {
        x[0] += 1.0f;
        x[n - 1] = -x[n - 1];
        if (down[0] == first && fgl_received(c) == received && received[0] == first) copy_ok[c->id]++;
    }
    if (fgl_down(c, "u") == NULL && fgl_down_copy(c, "u") == NULL) copy_absent[c->id]++;
    return FGL_OK;
}

static void test_down_copy(void) {
    fgl_scenario sc;
    fgl_client_data cd[4];
    fgl_fed_config cfg = cfg_of(3, 2);
    fgl_algo a = fgl_algo_base("pfedgraph");
    fgl_run plain, copying;
    if (!clients4(&sc, cd)) return;
    a.name = "pfedgraph-copying";
    a.receive = copy_receive;
    if (ft_run_rounds(&plain, &cfg, "pfedgraph", cd, 4, 3, NULL)) {
        if (ft_run_algo(&copying, &cfg, &a, cd, 4, 3, NULL)) {
            int i, calls = 0, ok = 0, absent = 0;
            for (i = 0; i < 4; i++) {
                calls += copy_calls[i];
                ok += copy_ok[i];
                absent += copy_absent[i];
            }
            FT_CHECK(calls == 4 * 4, "receive hooks: %d (the start and 3 rounds, 4 clients)", calls);
            FT_CHECK(ok == calls, "%d of %d copies private, the download as received", ok, calls);
            FT_CHECK(absent >= 4, "an absent part has no copy (%d)", absent);
            FT_CHECK(ft_same_history(&plain, &copying) && ft_same_models(&plain, &copying),
                     "writing the copies leaves pFedGraph's bits");
            fgl_run_free(&copying);
        }
        fgl_run_free(&plain);
    }
    fgl_scenario_free(&sc);
}

/* --- writes into what a hook received: refused ------------------------------------------ */

static int victim;     /* the client whose hook writes (or whose upload the server writes) */
static int into_theta; /* the server writes into the model part (else the sample count) */
static int theta_viewed;
static int (*base_grad)(fgl_client *c, const fgl_step *st);
static int (*base_aggregate)(fgl_server *s);

static void scribble(fgl_client *c) {
    float *x = (float *)fgl_down(c, "theta"); /* the const cast away */
    if (c->id == victim && x) x[1] += 1.0f;
}

static int scribble_receive(fgl_client *c) {
    scribble(c);
    return FGL_OK;
}

static int scribble_grad(fgl_client *c, const fgl_step *st) {
    if (st->index == 0) scribble(c);
    return base_grad ? base_grad(c, st) : FGL_OK;
}

static int scribble_upload(fgl_client *c) {
    scribble(c);
    return FGL_OK;
}

static int scribble_aggregate(fgl_server *s) {
    int rc = base_aggregate(s);
    float *n = (float *)fgl_upload(s, victim, "n"), *theta = (float *)fgl_upload(s, victim, "theta");
    if (!into_theta && s->round == 1 && n) n[0] -= 1.0f;     /* the upload's own buffer */
    if (into_theta && s->round == 2 && theta) {
        theta_viewed = theta != s->up[victim]->own[0]; /* a view of the client's parameters */
        theta[2] += 0.5f;
    }
    return rc;
}

/* A run of pfedgraph with one hook replaced fails with a message holding
 * want. */
static void refused(const char *what, int threads, const char *want, void (*set)(fgl_algo *)) {
    fgl_scenario sc;
    fgl_client_data cd[4];
    fgl_fed_config cfg = cfg_of(3, threads);
    fgl_algo a = fgl_algo_base("pfedgraph");
    fgl_run run;
    fgl_error err;
    int rc = FGL_OK, r;
    if (!clients4(&sc, cd)) return;
    base_grad = a.train.grad;
    base_aggregate = a.aggregate;
    a.name = "pfedgraph-scribbling";
    set(&a);
    if (fgl_run_init(&run, &cfg, &a, cd, 4, &err)) {
        FT_CHECK(0, "init: %s", err.msg);
    } else {
        for (r = 0; r < 3 && !rc; r++) rc = fgl_run_round(&run);
        FT_CHECK(rc == FGL_ERR_ARG && strstr(run.err.msg, want), "%s, %d threads: rc %d, '%s' (want '%s')", what,
                 threads, rc, rc ? run.err.msg : "no error", want);
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

static void set_receive(fgl_algo *a) { a->receive = scribble_receive; }
static void set_grad(fgl_algo *a) { a->train.grad = scribble_grad; }
static void set_upload(fgl_algo *a) { a->upload = scribble_upload; }
static void set_aggregate(fgl_algo *a) { a->aggregate = scribble_aggregate; }

static void test_writes_refused(void) {
    int threads;
    for (threads = 1; threads <= 2; threads++) {
        victim = 2;
        refused("receive", threads,
                "round 1, client 2 (receive): the receive hook wrote into download part 'theta', which clients "
                "read only",
                set_receive);
        victim = 3;
        refused("training", threads, "round 1, client 3 (training and upload): a training hook wrote into "
                "download part 'theta'", set_grad);
        victim = 1;
        refused("upload", threads, "round 1, client 1 (training and upload): the upload hook wrote into download "
                "part 'theta'", set_upload);
        victim = 1;
        into_theta = 0;
        refused("aggregate, a buffer of the upload", threads, "round 2, server (aggregation): the aggregate hook "
                "wrote into client 1's upload part 'n', which the server reads only", set_aggregate);
        victim = 0;
        into_theta = 1;
        refused("aggregate, a view of the parameters", threads, "round 3, server (aggregation): the aggregate hook "
                "wrote into client 0's upload part 'theta'", set_aggregate);
        FT_CHECK(theta_viewed, "the model part viewed client 0's parameters");
    }
}

/* --- the observers' summary ---------------------------------------------------------------- */

static void test_observed(void) {
    fgl_scenario sc;
    fgl_client_data cd[4];
    fgl_fed_config cfg = cfg_of(2, 2);
    fgl_run run;
    fgl_observed o;
    fgl_error err;
    float m[16], *params;
    char rep[256];
    int i, r, same = 1;
    if (!clients4(&sc, cd)) return;
    /* before the start: no state, nothing to observe */
    if (fgl_run_init(&run, &cfg, fgl_algo_find("gcfl"), cd, 4, &err) == FGL_OK) {
        fgl_run_observe(&run, &o);
        strcpy(rep, "x");
        fgl_run_report(&run, rep, sizeof rep);
        FT_CHECK(!o.started && o.rounds == 0 && !rep[0] && fgl_run_client_matrix(&run, m) == FGL_ERR_EMPTY &&
                     fgl_observed_floats(&o, "theta") == NULL && fgl_observed_matrix(&o, "theta", m) == FGL_ERR_EMPTY,
                 "before the start: no report, no matrix, no state");
        fgl_run_free(&run);
    }
    if (ft_run_rounds(&run, &cfg, "fedavg", cd, 4, 1, NULL)) { /* no observers */
        strcpy(rep, "x");
        fgl_run_report(&run, rep, sizeof rep);
        FT_CHECK(!rep[0] && fgl_run_client_matrix(&run, m) == FGL_ERR_EMPTY, "fedavg: no report, no matrix");
        fgl_run_free(&run);
    }
    if (!ft_run_rounds(&run, &cfg, "pfedgraph", cd, 4, 2, NULL)) {
        fgl_scenario_free(&sc);
        return;
    }
    fgl_run_observe(&run, &o);
    FT_CHECK(!strcmp(o.algo, "pfedgraph") && o.set == &run.set && o.fed == &run.cfg && o.n_clients == 4 &&
                 o.task == FGL_TASK_NODE && o.started && o.rounds == 2 && o.n_public == 0,
             "the run's name, parameters, configuration, K, task and rounds");
    for (r = 1; r < FGL_DIM_RULES; r++) same &= fgl_observed_dim(&o, -r) == fgl_server_dim(&run.server, -r);
    FT_CHECK(same && fgl_observed_dim(&o, 5) == 5, "the size rules as the server's");
    FT_CHECK(o.n_train == run.n_registered && o.n_nodes == run.n_nodes && o.stats == run.stats &&
                 o.client_val == run.client_val && o.client_test == run.client_test &&
                 o.client_loss == run.client_loss && o.client_up == run.client_up && o.client_down == run.client_down,
             "the history, in place");
    FT_CHECK(fgl_observed_floats(&o, "A") == fgl_floats(&run.server.store, "A") &&
                 (const void *)fgl_observed_ints(&o, "has_u") == (const void *)fgl_ints(&run.server.store, "has_u"),
             "the server's state, read-only");
    FT_CHECK(fgl_observed_matrix(&o, "A", m) == FGL_OK && !memcmp(m, fgl_floats(&run.server.store, "A"), sizeof m),
             "fgl_observed_matrix copies a K x K entry");
    FT_CHECK(fgl_observed_matrix(&o, "theta", m) == FGL_ERR_SHAPE, "an entry of another size: FGL_ERR_SHAPE");
    memset(m, 0, sizeof m);
    FT_CHECK(fgl_run_client_matrix(&run, m) == FGL_OK && !memcmp(m, fgl_floats(&run.server.store, "A"), sizeof m),
             "fgl_run_client_matrix: pFedGraph's collaboration graph");
    for (i = 0; i < 4; i++) {
        fgl_observed_model lay;
        const fgl_model *md = &run.clients[i].model;
        FT_CHECK(fgl_observed_layout(&o, i, &lay) == FGL_OK && lay.size == md->params.size &&
                     lay.n_slices == md->params.n && lay.slices == md->params.slices && lay.spec == &md->spec,
                 "client %d's layout", i);
        params = (float *)malloc(sizeof(float) * lay.size);
        FT_CHECK(params && fgl_observed_params(&o, i, params, lay.size) == FGL_OK &&
                     !memcmp(params, md->params.data, sizeof(float) * lay.size),
                 "client %d's parameters", i);
        free(params);
    }
    {
        fgl_observed_model lay;
        FT_CHECK(fgl_observed_layout(&o, -1, &lay) == FGL_ERR_ARG && fgl_observed_layout(&o, 4, &lay) == FGL_ERR_ARG &&
                     fgl_observed_params(&o, 4, m, 16) == FGL_ERR_ARG &&
                     fgl_observed_params(&o, 0, m, 16) == FGL_ERR_ARG,
                 "no such client, or too small an array: FGL_ERR_ARG");
    }
    fgl_run_free(&run);
    fgl_scenario_free(&sc);
}

int main(void) {
    fgl_synth_node_config c = fgl_synth_node_default();
    fgl_error e;
    memset(&nodes, 0, sizeof nodes);
    nodes.task = FGL_TASK_NODE;
    snprintf(nodes.label, sizeof nodes.label, "synthetic");
    c.n_nodes = 900;
    if (fgl_synth_node(&c, 1, &nodes.node, NULL, &e)) {
        printf("not ok - synthetic node data: %s\n", e.msg);
        return 1;
    }
    FT_RUN(test_checksum);
    FT_RUN(test_down_copy);
    FT_RUN(test_writes_refused);
    FT_RUN(test_observed);
    fgl_dataset_free(&nodes);
    return ft_finish();
}
