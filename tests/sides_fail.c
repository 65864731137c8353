/* sides_fail.c - hooks that write into what they received must not compile
 * (tests/test_sides.sh). Compiled with -DCASE=N: case 0 is the legal code
 * (it reads what it received, writes its own messages through fgl_up and
 * fgl_download_part and a received part through fgl_down_copy's copy) and
 * compiles warning-free; each other case adds one line that writes through
 * const memory, or an observer of the old kind, and must fail. */
#include "../fgl_fed.h"

#ifndef CASE
#define CASE 0
#endif

static int my_receive(fgl_client *c) {
    const float *w = fgl_down(c, "theta");
    float *mine = fgl_down_copy(c, "theta");
    if (!w || !mine) return FGL_OK;
    mine[0] = w[0] + 1.0f; /* a copy of its own: allowed */
#if CASE == 1
    c->down.part[0][0] = 42; /* the server's buffer, in one process */
#elif CASE == 2
    fgl_down(c, "theta")[0] = 42;
#elif CASE == 3
    fgl_received(c)[0] = 42;
#endif
    return FGL_OK;
}

static int my_upload(fgl_client *c) {
    float *mine = fgl_up(c, "theta"); /* its own upload: writable */
    if (mine) mine[0] *= 0.5f;
#if CASE == 4
    c->up.part[0][0] = 42; /* the part may view the client's parameters: write it through fgl_up */
#endif
    return FGL_OK;
}

static int my_aggregate(fgl_server *s) {
    float *global = fgl_floats(&s->store, "global");
    int i, p = 0;
    size_t k = 0;
    for (i = 0; i < s->n_clients; i++)
        if (s->up[i] && global) global[k] += s->up[i]->part[p][k];
#if CASE == 5
    s->up[0]->part[p][k] = 0; /* client 0's parameters, in one process */
#elif CASE == 6
    fgl_upload(s, 0, "theta")[0] = 0;
#endif
    return FGL_OK;
}

static int my_download(fgl_server *s, int client, fgl_msg *down) {
    float *x = fgl_download_part(s, client, "extra"); /* its own message: writable */
    if (x) x[0] = 1.0f;
#if CASE == 7
    down->part[0][0] = 0; /* a part sent from the server's store: written there, not here */
#endif
    (void)down;
    return FGL_OK;
}

static void my_report(const fgl_observed *o, char *buf, size_t cap) {
    const float *g = fgl_observed_floats(o, "global");
    snprintf(buf, cap, "\"first\": %g, \"rounds\": %d", g ? (double)g[0] : 0.0, o->rounds);
#if CASE == 8
    fgl_observed_floats(o, "global")[0] = 0; /* the server's state */
#elif CASE == 9
    o->stats[0].bytes_up = 0; /* the run's history */
#elif CASE == 10
    o->client_test[0] = 1.0;
#endif
}

static int my_matrix(const fgl_observed *o, float *out) { return fgl_observed_matrix(o, "sim", out); }

#if CASE == 11
static void old_report(const fgl_run *run, char *buf, size_t cap) { /* an observer that got the whole run */
    snprintf(buf, cap, "\"k\": %d", run->n_clients);
}
#endif

int main(void) {
    fgl_algo a = fgl_algo_base("fedavg");
    a.name = "sides";
    fgl_algo_download(&a, "extra", FGL_SEND_DATA, 1, 1, FGL_PART_OPTIONAL, NULL);
    a.receive = my_receive;
    a.upload = my_upload;
    a.aggregate = my_aggregate;
    a.download = my_download;
    a.report = my_report;
    a.client_matrix = my_matrix;
#if CASE == 11
    a.report = old_report;
#endif
    return fgl_algo_register(&a) == FGL_OK ? 0 : 1;
}
