/* Tests of FedBN and of the keep-local mechanism it runs on (an algorithm's
 * "keep" group list: what its share mask selects but stays on the client):
 * - on a GIN with batch norm, every round: after the download is loaded the
 *   shared slices are equal across clients (the server's vector), the batch
 *   norm (NORM, BNSTAT) is each client's own, as its last training left it,
 *   and differs between clients; FedAvg on the same model overwrites it
 *   (the check can fail); Local sends nothing;
 * - bytes up and down are FedAvg's less exactly the batch norm's floats;
 * - on a model without batch norm FedBN is FedAvg, bit for bit;
 * - the same keep on another algorithm (FedAdam's table extended by a user)
 *   keeps the batch norm local too: one mechanism, not FedBN's own;
 * - a keep that leaves nothing shared is refused when the run is checked;
 * - saved and resumed, a FedBN run ends with the uninterrupted run's bits;
 *   1 and 2 threads give the same bits;
 * - DP and secure aggregation cover it (noise reaches the shared part only,
 *   which a spy that must see downloads checks; the uploads the server
 *   receives are masked and the sum is exact up to fixed point), on
 *   synthetic graphs.
 * Data: fgl's synthetic graph set (clients over a Dirichlet split) for the
 * batch-norm model; Cora or fgl's synthetic nodes for the GCN. */
#include "../fgl_fed.h"
#include "ft.h"
#include "ft_fed.h"
#include <math.h>
#include <time.h>

#define K 4
static fgl_dataset graphs, nodes;
static const unsigned BN = FGL_G_NORM | FGL_G_BNSTAT;

/* --- what each client holds after the download and after training ---------------- */
static float *at_receive[K], *after_train[K];
static size_t spy_size;
static int spy_rounds[K], spy_overwritten[K]; /* trainings seen; downloads that changed the batch norm */
static int spy_checked[K];                    /* downloads compared with the client's last training */
static int (*spy_inner_receive)(fgl_client *c), (*spy_inner_upload)(fgl_client *c);

static int spy_receive(fgl_client *c) {
    const fgl_params *ps = &c->model.params;
    int i;
    if (c->id >= K || ps->size != spy_size) return fgl_client_fail(c, FGL_ERR_ARG, "spy: unexpected client");
    if (spy_rounds[c->id] > 0) /* the batch norm as the client's last training left it? */
        for (spy_checked[c->id]++, i = 0; i < ps->n; i++) {
            const fgl_slice *s = &ps->slices[i];
            if (!(s->groups & BN)) continue;
            if (memcmp(ps->data + s->offset, after_train[c->id] + s->offset, sizeof(float) * fgl_slice_size(s)))
                spy_overwritten[c->id]++;
        }
    memcpy(at_receive[c->id], ps->data, sizeof(float) * ps->size);
    return spy_inner_receive ? spy_inner_receive(c) : FGL_OK;
}

static int spy_upload(fgl_client *c) {
    memcpy(after_train[c->id], c->model.params.data, sizeof(float) * spy_size);
    spy_rounds[c->id]++;
    return spy_inner_upload ? spy_inner_upload(c) : FGL_OK;
}

static fgl_algo spied(fgl_algo a) {
    spy_inner_receive = a.receive;
    spy_inner_upload = a.upload;
    a.receive = spy_receive;
    a.upload = spy_upload;
    return a;
}

static void spy_reset(size_t size) {
    int i;
    spy_size = size;
    for (i = 0; i < K; i++) {
        free(at_receive[i]);
        free(after_train[i]);
        at_receive[i] = (float *)calloc(size, sizeof(float));
        after_train[i] = (float *)calloc(size, sizeof(float));
        spy_rounds[i] = spy_overwritten[i] = spy_checked[i] = 0;
    }
}

/* Floats of the slices that meet `groups` which differ between clients a and b at receive. */
static size_t differing(const fgl_params *ps, unsigned groups, int a, int b) {
    size_t n = 0, j;
    int i;
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *s = &ps->slices[i];
        if (!(s->groups & groups)) continue;
        for (j = 0; j < fgl_slice_size(s); j++)
            n += memcmp(&at_receive[a][s->offset + j], &at_receive[b][s->offset + j], sizeof(float)) != 0;
    }
    return n;
}

/* Floats at receive of slices outside `groups` that differ between clients a and b. */
static size_t differing_outside(const fgl_params *ps, unsigned groups, int a, int b) {
    size_t n = 0, j;
    int i;
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *s = &ps->slices[i];
        if (s->groups & groups) continue;
        for (j = 0; j < fgl_slice_size(s); j++)
            n += memcmp(&at_receive[a][s->offset + j], &at_receive[b][s->offset + j], sizeof(float)) != 0;
    }
    return n;
}

/* K graph clients, each with a 3-layer GIN with batch norm (hidden 16). */
static int bn_clients(fgl_scenario *sc, fgl_client_data *cd) {
    int i;
    if (!ft_graph_clients(&graphs, K, 1.0, 20, 7, sc, cd)) return 0;
    for (i = 0; i < K; i++) {
        cd[i].spec.batch_norm = 1;
        cd[i].spec.hidden = 16;
    }
    return 1;
}

static fgl_fed_config graph_cfg(int rounds) {
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_GRAPH);
    cfg.rounds = rounds;
    cfg.local_epochs = 1;
    cfg.batch_size = 16;
    cfg.optim.lr = 0.01f;
    cfg.threads = 1;
    return cfg;
}

static void test_batch_norm_stays_local(void) {
    fgl_scenario sc;
    fgl_client_data cd[K];
    fgl_fed_config cfg = graph_cfg(3);
    fgl_run bn, avg;
    fgl_algo a;
    int i;
    if (!bn_clients(&sc, cd)) return;
    a = spied(*fgl_algo_find("fedbn"));
    {
        fgl_model m;
        fgl_error err;
        FT_CHECK(fgl_model_init(&m, &cd[0].spec, 1, &err) == FGL_OK, "model: %s", err.msg);
        spy_reset(m.params.size);
        FT_CHECK(fgl_params_count(&m.params, BN) == 3 * 4 * 16, "the GIN has batch norm: %zu floats",
                 fgl_params_count(&m.params, BN));
        fgl_model_free(&m);
    }
    if (ft_run_algo(&bn, &cfg, &a, cd, K, cfg.rounds, NULL)) {
        const fgl_params *ps = &bn.clients[0].model.params;
        const float *global = fgl_floats(&bn.server.store, "global");
        float *mine = (float *)malloc(sizeof(float) * bn.server.n_shared);
        size_t n_bn = fgl_params_count(ps, BN);
        FT_CHECK(bn.server.n_shared == ps->size - n_bn, "shared %zu floats of %zu, batch norm %zu", bn.server.n_shared,
                 ps->size, n_bn);
        for (i = 0; i < K; i++) {
            FT_CHECK(spy_rounds[i] == cfg.rounds && spy_overwritten[i] == 0,
                     "client %d: its batch norm overwritten by %d downloads of %d", i, spy_overwritten[i], spy_rounds[i]);
            if (i > 0) {
                FT_CHECK(differing_outside(ps, BN, 0, i) == 0, "clients 0 and %d got different shared weights", i);
                FT_CHECK(differing(ps, FGL_G_BNSTAT, 0, i) > 0 && differing(ps, FGL_G_NORM, 0, i) > 0,
                         "clients 0 and %d hold the same batch norm (statistics: %zu, scale/shift: %zu differ)", i,
                         differing(ps, FGL_G_BNSTAT, 0, i), differing(ps, FGL_G_NORM, 0, i));
            }
        }
        if (mine) { /* the shared part each received is the server's vector of the round before the last */
            fgl_params tmp;
            fgl_params_init(&tmp);
            if (fgl_params_clone(&tmp, ps) == FGL_OK) {
                memcpy(tmp.data, at_receive[1], sizeof(float) * ps->size);
                fgl_params_pack_except(&tmp, FGL_G_ALL, BN, mine);
                FT_CHECK(global && memcmp(mine, fgl_received(&bn.clients[1]), sizeof(float) * bn.server.n_shared) == 0,
                         "client 1's shared weights at receive are not what it received");
            }
            fgl_params_free(&tmp);
            free(mine);
        }
        /* FedAvg on the same model: the download overwrites the batch norm (the checks above can fail) */
        a = spied(*fgl_algo_find("fedavg"));
        spy_reset(ps->size);
        if (ft_run_algo(&avg, &cfg, &a, cd, K, cfg.rounds, NULL)) {
            int over = 0;
            for (i = 0; i < K; i++) over += spy_overwritten[i];
            FT_CHECK(over > 0 && differing(ps, BN, 0, 1) == 0, "fedavg: batch norm overwritten %d times, %zu floats "
                     "differ between clients at receive", over, differing(ps, BN, 0, 1));
            /* bytes: FedAvg's less the batch norm, up and down, every client every round */
            FT_CHECK(avg.bytes_up - bn.bytes_up == (size_t)cfg.rounds * K * 4 * n_bn,
                     "bytes up: fedavg %zu, fedbn %zu, batch norm %zu floats", avg.bytes_up, bn.bytes_up, n_bn);
            /* (downloads: the first model, then one after each round) */
            FT_CHECK(avg.bytes_down - bn.bytes_down == (size_t)(cfg.rounds + 1) * K * 4 * n_bn,
                     "bytes down: fedavg %zu, fedbn %zu, batch norm %zu floats", avg.bytes_down, bn.bytes_down, n_bn);
            fgl_run_free(&avg);
        }
        fgl_run_free(&bn);
    }
    { /* Local sends nothing and keeps everything */
        fgl_run loc;
        if (ft_run_rounds(&loc, &cfg, "local", cd, K, cfg.rounds, NULL)) {
            FT_CHECK(loc.bytes_up == 0 && loc.bytes_down == 0, "local sent %zu bytes", loc.bytes_up + loc.bytes_down);
            fgl_run_free(&loc);
        }
    }
    fgl_scenario_free(&sc);
}

/* share=conv, as on CHEM: the convolutions less their batch norm travel. */
static void test_share_conv_less_batch_norm(void) {
    static const char *const conv[] = {"share", "conv", NULL};
    static const char *const nothing[] = {"share", "norm", NULL};
    fgl_scenario sc;
    fgl_client_data cd[K];
    fgl_fed_config cfg = graph_cfg(2);
    fgl_run run;
    fgl_error err;
    if (!bn_clients(&sc, cd)) return;
    if (ft_run_rounds(&run, &cfg, "fedbn", cd, K, cfg.rounds, conv)) {
        const fgl_params *ps = &run.clients[0].model.params;
        size_t want = fgl_params_count(ps, FGL_G_CONV) - fgl_params_count(ps, BN);
        FT_CHECK(run.server.n_shared == want && want > 0, "share=conv: %zu floats shared, want %zu", run.server.n_shared,
                 want);
        fgl_run_free(&run);
    }
    /* share=norm less keep=norm+bnstat selects nothing: refused before a round */
    if (fgl_run_init(&run, &cfg, fgl_algo_find("fedbn"), cd, K, &err) == FGL_OK) {
        int rc = fgl_run_set(&run, nothing[0], nothing[1], &err);
        if (rc == FGL_OK) rc = fgl_run_check(&run);
        FT_CHECK(rc != FGL_OK && strstr(run.err.msg, "kept local"), "share=norm with keep=norm+bnstat: %s",
                 rc ? run.err.msg : "accepted");
        FT_CHECK(run.round == 0, "no round ran");
        fgl_run_free(&run);
    } else {
        FT_CHECK(0, "init: %s", err.msg);
    }
    fgl_scenario_free(&sc);
}

/* Without batch norm nothing is kept: FedBN is FedAvg, bit for bit (and with it, the check can fail). */
static void test_without_batch_norm_is_fedavg(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run a, b;
    if (!ft_node_clients(&nodes, 5, 16, &sc, cd)) return;
    cfg.rounds = 3;
    cfg.local_epochs = 2;
    if (ft_run_rounds(&a, &cfg, "fedavg", cd, 5, cfg.rounds, NULL)) {
        if (ft_run_rounds(&b, &cfg, "fedbn", cd, 5, cfg.rounds, NULL)) {
            FT_CHECK(ft_same_history(&a, &b) && ft_same_models(&a, &b), "fedbn on a GCN differs from fedavg");
            FT_CHECK(a.bytes_up == b.bytes_up && a.bytes_down == b.bytes_down, "fedbn on a GCN sends what fedavg sends");
            fgl_run_free(&b);
        }
        fgl_run_free(&a);
    }
    fgl_scenario_free(&sc);
    { /* with batch norm it is not FedAvg */
        fgl_scenario gs;
        fgl_client_data gd[K];
        fgl_fed_config g = graph_cfg(2);
        if (!bn_clients(&gs, gd)) return;
        if (ft_run_rounds(&a, &g, "fedavg", gd, K, g.rounds, NULL)) {
            if (ft_run_rounds(&b, &g, "fedbn", gd, K, g.rounds, NULL)) {
                FT_CHECK(!ft_same_models(&a, &b), "fedbn equals fedavg on a model with batch norm");
                fgl_run_free(&b);
            }
            fgl_run_free(&a);
        }
        fgl_scenario_free(&gs);
    }
}

/* A user's FedAdam with a "keep" parameter keeps the batch norm local as FedBN does. */
static void test_keep_on_another_algorithm(void) {
    fgl_scenario sc;
    fgl_client_data cd[K];
    fgl_fed_config cfg = graph_cfg(3);
    fgl_algo a = fgl_algo_base("fedadam"), plain;
    fgl_run run, ref;
    int i;
    if (!bn_clients(&sc, cd)) return;
    a.name = "fedadam_bn";
    fgl_algo_param_add(&a, "keep", FGL_PARAM_GROUPS, (double)BN, "kept local");
    plain = fgl_algo_base("fedadam");
    a = spied(a);
    {
        fgl_model m;
        fgl_error err;
        if (fgl_model_init(&m, &cd[0].spec, 1, &err) == FGL_OK) {
            spy_reset(m.params.size);
            fgl_model_free(&m);
        }
    }
    if (ft_run_algo(&run, &cfg, &a, cd, K, cfg.rounds, NULL)) {
        const fgl_params *ps = &run.clients[0].model.params;
        size_t n_bn = fgl_params_count(ps, BN);
        for (i = 0; i < K; i++)
            FT_CHECK(spy_overwritten[i] == 0, "fedadam keep=norm+bnstat: client %d's batch norm overwritten", i);
        FT_CHECK(differing_outside(ps, BN, 0, 1) == 0 && differing(ps, FGL_G_BNSTAT, 0, 1) > 0,
                 "fedadam keep=norm+bnstat: shared equal, batch norm own");
        if (ft_run_algo(&ref, &cfg, &plain, cd, K, cfg.rounds, NULL)) {
            FT_CHECK(ref.bytes_up - run.bytes_up == (size_t)cfg.rounds * K * 4 * n_bn, "fedadam keep: bytes up %zu vs %zu",
                     run.bytes_up, ref.bytes_up);
            fgl_run_free(&ref);
        }
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

static int resumed_same(const fgl_fed_config *cfg, fgl_client_data *cd, int cut, const char *const *sets, char *why,
                        size_t cap) {
    const fgl_algo *algo = fgl_algo_find("fedbn");
    fgl_run full, part, resumed;
    fgl_error err;
    char path[256];
    int r, ok, same = 0;
    snprintf(path, sizeof path, "/tmp/fgl_test_fedbn_%lx_%lx.bin", (unsigned long)time(NULL),
             (unsigned long)(uintptr_t)cd);
    if (!ft_run_algo(&full, cfg, algo, cd, K, cfg->rounds, sets)) return 0;
    if (!ft_run_algo(&part, cfg, algo, cd, K, cut, sets)) {
        fgl_run_free(&full);
        return 0;
    }
    ok = fgl_run_save(&part, path, &err) == FGL_OK;
    FT_CHECK(ok, "save: %s", err.msg);
    fgl_run_free(&part);
    if (ok && ft_run_algo(&resumed, cfg, algo, cd, K, 0, sets)) {
        ok = fgl_run_load(&resumed, path, &err) == FGL_OK;
        FT_CHECK(ok, "load: %s", err.msg);
        for (r = resumed.round; ok && r < cfg->rounds; r++) ok = fgl_run_round(&resumed) == FGL_OK;
        FT_CHECK(ok, "resumed round failed: %s", resumed.err.msg);
        same = ok && ft_same_run(&full, &resumed, why, cap);
        fgl_run_free(&resumed);
    }
    remove(path);
    fgl_run_free(&full);
    return same;
}

static void test_resume_and_threads(void) {
    static const char *const conv[] = {"share", "conv", NULL};
    fgl_scenario sc;
    fgl_client_data cd[K];
    fgl_fed_config cfg = graph_cfg(4);
    char why[128] = "";
    if (!bn_clients(&sc, cd)) return;
    FT_CHECK(resumed_same(&cfg, cd, 2, NULL, why, sizeof why), "fedbn resumed after 2 of 4 rounds differs: %s", why);
    FT_CHECK(resumed_same(&cfg, cd, 1, conv, why, sizeof why), "fedbn share=conv resumed differs: %s", why);
    {
        fgl_run one, two;
        fgl_fed_config c2 = cfg;
        c2.threads = 2;
        if (ft_run_rounds(&one, &cfg, "fedbn", cd, K, cfg.rounds, NULL)) {
            if (ft_run_rounds(&two, &c2, "fedbn", cd, K, cfg.rounds, NULL)) {
                FT_CHECK(ft_same_history(&one, &two) && ft_same_models(&one, &two), "fedbn: 1 and 2 threads differ");
                fgl_run_free(&two);
            }
            fgl_run_free(&one);
        }
    }
    fgl_scenario_free(&sc);
}

/* Secure aggregation: every round unmasked, what the server received
 * (each client's last upload) masked - neither the plain run's floats nor
 * their fixed-point encoding - and the server's vector within fixed point of
 * the plain run's; DP with huge noise changes the models, and its noise
 * never writes the batch norm (at every download after the first it is as
 * training left it). */
static void test_defences_cover(void) {
    fgl_scenario sc;
    fgl_client_data cd[K];
    fgl_fed_config cfg = graph_cfg(2);
    fgl_run plain, masked, loud;
    ft_seen plain_up, masked_up;
    fgl_algo a = spied(*fgl_algo_find("fedbn"));
    if (!bn_clients(&sc, cd)) return;
    cfg.secrets.from_seed = 1;
    cfg.secrets.seed = 5;
    if (ft_run_rounds_seen(&plain, &cfg, "fedbn", cd, K, cfg.rounds, &plain_up)) {
        fgl_fed_config s = cfg, d = cfg;
        s.secagg.on = 1;
        s.robust.screen = 0;
        if (ft_run_rounds_seen(&masked, &s, "fedbn", cd, K, cfg.rounds, &masked_up)) {
            const float *g0 = fgl_floats(&plain.server.store, "global");
            const float *g1 = fgl_floats(&masked.server.store, "global");
            double worst = 0, N = 0, scale = ldexp(1.0, s.secagg.frac_bits);
            size_t j, n = masked.server.n_shared, same = 0, near = 0, seen = 0;
            int i, r;
            for (j = 0; j < plain.server.n_shared; j++)
                if (fabs((double)g0[j] - g1[j]) > worst) worst = fabs((double)g0[j] - g1[j]);
            FT_CHECK(worst < 1e-4, "secure aggregation: the global model differs by %g from the plain mean's", worst);
            for (r = 0; r < cfg.rounds; r++)
                FT_CHECK(!masked.stats[r].secagg_failed && !plain.stats[r].secagg_failed,
                         "round %d: secure aggregation unmasked %d (masked run), failed %d (plain run)", r + 1,
                         !masked.stats[r].secagg_failed, plain.stats[r].secagg_failed);
            FT_CHECK(fgl_upload(&masked.server, 0, "theta") == NULL, "the server reads client 0's masked upload");
            /* the masked words against the plain run's uploads: bit for bit, and as fixed point (n_i / N) theta_i
             * 2^frac_bits, which the masks take uniformly over the ring: within 2^16 of it by chance with
             * probability 2^-15 a word; unmasked, every word is within a few units (the runs' models differ by
             * the fixed point's rounding only) */
            for (i = 0; i < K; i++) N += masked.n_registered[i];
            for (i = 0; i < K; i++) {
                double wn = masked.n_registered[i] / N;
                if (!plain_up.theta[i] || !masked_up.theta[i]) continue;
                for (j = 0; j < n; j++) {
                    uint32_t w, enc = (uint32_t)(int32_t)llround(wn * plain_up.theta[i][j] * scale);
                    memcpy(&w, &masked_up.theta[i][j], 4);
                    same += !memcmp(&masked_up.theta[i][j], &plain_up.theta[i][j], sizeof(float));
                    near += (int32_t)(w - enc) > -65536 && (int32_t)(w - enc) < 65536;
                }
                seen++;
            }
            printf("#   secagg: %zu of %zu uploaded words equal the plain upload's, %zu near its fixed point; "
                   "global within %.3g\n", same, seen * n, near, worst);
            FT_CHECK(seen == K && n > 0, "uploads seen from %zu of %d clients (%zu floats each)", seen, K, n);
            FT_CHECK(same == 0 && near <= seen * n / 1000,
                     "masking: %zu uploaded words are the plain upload's, %zu of %zu near its fixed point", same, near,
                     seen * n);
            fgl_run_free(&masked);
        }
        ft_seen_free(&masked_up);
        d.dp.clip = 1;
        d.dp.noise = 1000;
        d.robust.screen = 0;
        spy_reset(plain.clients[0].model.params.size);
        if (ft_run_algo(&loud, &d, &a, cd, K, cfg.rounds, NULL)) {
            int i, over = 0, checked = 0;
            FT_CHECK(!ft_same_models(&plain, &loud), "dp noise 1000 left the models alone");
            for (i = 0; i < K; i++) over += spy_overwritten[i], checked += spy_checked[i];
            /* every client's download after each round (the first, of the initial model, has nothing to compare) */
            FT_CHECK(checked == K * cfg.rounds, "dp: %d downloads compared with the last training, %d expected",
                     checked, K * cfg.rounds);
            FT_CHECK(over == 0, "dp: %d of %d downloads wrote into a client's batch norm", over, checked);
            fgl_run_free(&loud);
        }
        fgl_run_free(&plain);
    }
    ft_seen_free(&plain_up);
    fgl_scenario_free(&sc);
}

/* End to end beside Local and FedAvg on the batch-norm GIN: every one above the majority class. */
static void test_end_to_end(void) {
    static const char *const names[] = {"local", "fedavg", "fedbn"};
    fgl_scenario sc;
    fgl_client_data cd[K];
    fgl_fed_config cfg = graph_cfg(ft_quick() ? 10 : 20);
    double majority;
    int a;
    cfg.local_epochs = 2;
    if (!bn_clients(&sc, cd)) return;
    majority = ft_majority_baseline(&sc);
    printf("#   %s, %d clients, GIN with batch norm, majority %.2f%%\n", graphs.label, K, 100 * majority);
    for (a = 0; a < 3; a++) {
        fgl_run run;
        fgl_run_summary s;
        if (!ft_run_rounds(&run, &cfg, names[a], cd, K, cfg.rounds, NULL)) continue;
        fgl_run_summarize(&run, &s);
        printf("#   %-8s best %6.2f%%  last %6.2f%%  up %zu B\n", names[a], 100 * s.best_test, 100 * s.last_test,
               s.bytes_up);
        FT_CHECK(s.best_test > majority, "%s: best mean test accuracy %.3f, majority %.3f", names[a], s.best_test,
                 majority);
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

int main(void) {
    int i;
    ft_synth_graphs(&graphs, 3, 4, 0);
    printf("# data: %s (nodes: %s)\n", graphs.label, ft_node_data(&nodes) ? "real" : "synthetic");
    FT_RUN(test_batch_norm_stays_local);
    FT_RUN(test_share_conv_less_batch_norm);
    FT_RUN(test_without_batch_norm_is_fedavg);
    FT_RUN(test_keep_on_another_algorithm);
    FT_RUN(test_resume_and_threads);
    FT_RUN(test_defences_cover);
    FT_RUN(test_end_to_end);
    for (i = 0; i < K; i++) {
        free(at_receive[i]);
        free(after_train[i]);
    }
    fgl_dataset_free(&graphs);
    fgl_dataset_free(&nodes);
    return ft_finish();
}
