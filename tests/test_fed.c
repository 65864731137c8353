/* Tests of fgl_fed.h's runtime: every built-in algorithm end to end on real
 * data (Cora over 5 METIS clients; MUTAG over clients; CHEM-style
 * heterogeneous clients), exact byte accounting, determinism across thread
 * counts, checkpoint/resume, rejection of NaN and wrong-size uploads, and
 * clear errors for bad parameters and incompatible models. */
#define FGL_IMPLEMENTATION
#include "../fgl_fed.h"
#include "ft.h"
#include "ft_fed.h"
#include <time.h>

static fgl_node_data cora;
static int have_cora;
static fgl_graph_set mutag, ptc;
static int have_tu;

static void test_node_algorithms_run_and_count_bytes(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    const char *algos[] = {"local", "fedavg", "fedprox", "fedper", "fedpub"};
    int a;
    if (!have_cora) FT_SKIP("Cora not found under %s", ft_data_dir());
    if (!ft_cora_clients(&cora, 32, &sc, cd)) return;
    for (a = 0; a < 5; a++) {
        fgl_fed_config cfg = fgl_fed_config_default(FGL_TASK_NODE);
        fgl_run run;
        fgl_run_summary s;
        size_t P, shared, up = 0, down = 0;
        int r;
        cfg.rounds = 30;
        if (!ft_run_rounds(&run, &cfg, algos[a], cd, 5, 30, NULL)) continue;
        fgl_run_summarize(&run, &s);
        /* 7 classes, the largest about 30% of the nodes */
        FT_CHECK(s.best_test > 0.45, "%s: mean test accuracy %.3f after 30 rounds", algos[a], s.best_test);
        P = run.clients[0].model.params.size;
        shared = fgl_params_count(&run.clients[0].model.params, FGL_G_ALL & ~(unsigned)FGL_G_MASK);
        if (!strcmp(algos[a], "local")) {
            up = down = 0;
        } else if (!strcmp(algos[a], "fedpub")) { /* weights + 128-wide embedding + count; masks stay home */
            up = 4 * (shared + (size_t)fgl_model_emb_dim(&run.clients[0].model) + 1);
            down = 4 * shared;
        } else if (!strcmp(algos[a], "fedper")) {
            size_t body = fgl_params_count(&run.clients[0].model.params, FGL_G_ALL & ~(unsigned)FGL_G_HEAD);
            up = 4 * (body + 1);
            down = 4 * body;
        } else {
            up = 4 * (P + 1);
            down = 4 * P;
        }
        for (r = 1; r < 30; r++) { /* round 0 also carries the initial broadcast */
            FT_CHECK(run.stats[r].bytes_up == 5 * up, "%s round %d: %zu bytes up, expected %zu", algos[a], r,
                     run.stats[r].bytes_up, 5 * up);
            FT_CHECK(run.stats[r].bytes_down == 5 * down, "%s round %d: %zu bytes down, expected %zu", algos[a], r,
                     run.stats[r].bytes_down, 5 * down);
        }
        FT_CHECK(run.stats[0].bytes_down == 10 * down, "%s: initial broadcast + round 0: %zu, expected %zu", algos[a],
                 run.stats[0].bytes_down, 10 * down);
        FT_CHECK(s.bytes_up == 30 * 5 * up && s.bytes_down == 31 * 5 * down, "%s: totals %zu / %zu", algos[a],
                 s.bytes_up, s.bytes_down);
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

static void test_thread_count_does_not_change_bits(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    const char *algos[] = {"fedavg", "fedpub"};
    int a;
    if (!have_cora) FT_SKIP("Cora not found");
    if (!ft_cora_clients(&cora, 32, &sc, cd)) return;
    for (a = 0; a < 2; a++) {
        fgl_fed_config cfg = fgl_fed_config_default(FGL_TASK_NODE);
        fgl_run r1, r2;
        cfg.rounds = 8;
        cfg.threads = 1;
        if (!ft_run_rounds(&r1, &cfg, algos[a], cd, 5, 8, NULL)) continue;
        cfg.threads = 2;
        if (ft_run_rounds(&r2, &cfg, algos[a], cd, 5, 8, NULL)) {
            FT_CHECK(ft_same_history(&r1, &r2) && ft_same_models(&r1, &r2), "%s: 1 and 2 threads differ", algos[a]);
            fgl_run_free(&r2);
        }
        fgl_run_free(&r1);
    }
    fgl_scenario_free(&sc);
}

static void test_checkpoint_resume_is_exact(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    const char *algos[] = {"fedavg", "fedpub"};
    char path[128];
    int a;
    if (!have_cora) FT_SKIP("Cora not found");
    if (!ft_cora_clients(&cora, 32, &sc, cd)) return;
    snprintf(path, sizeof path, "/tmp/fgl_test_ckpt_%lx.bin", (unsigned long)time(NULL) ^ (unsigned long)(uintptr_t)&sc);
    for (a = 0; a < 2; a++) {
        fgl_fed_config cfg = fgl_fed_config_default(FGL_TASK_NODE);
        fgl_run full, part, resumed;
        fgl_error err;
        int r;
        cfg.rounds = 10;
        if (!ft_run_rounds(&full, &cfg, algos[a], cd, 5, 10, NULL)) continue;
        if (!ft_run_rounds(&part, &cfg, algos[a], cd, 5, 4, NULL)) continue;
        FT_CHECK(fgl_run_save(&part, path, &err) == FGL_OK, "%s: save: %s", algos[a], err.msg);
        fgl_run_free(&part);
        if (!ft_run_rounds(&resumed, &cfg, algos[a], cd, 5, 0, NULL)) continue;
        FT_CHECK(fgl_run_load(&resumed, path, &err) == FGL_OK, "%s: load: %s", algos[a], err.msg);
        FT_CHECK(resumed.round == 4, "%s: resumed at round %d", algos[a], resumed.round);
        for (r = resumed.round; r < 10; r++)
            if (fgl_run_round(&resumed)) break;
        FT_CHECK(ft_same_history(&full, &resumed) && ft_same_models(&full, &resumed),
                 "%s: resumed run differs from the uninterrupted one", algos[a]);
        FT_CHECK(full.bytes_up == resumed.bytes_up && full.bytes_down == resumed.bytes_down, "%s: byte totals differ",
                 algos[a]);
        fgl_run_free(&resumed);
        fgl_run_free(&full);
    }
    { /* a checkpoint of another configuration is refused */
        fgl_fed_config cfg = fgl_fed_config_default(FGL_TASK_NODE);
        fgl_run other;
        fgl_error err;
        cfg.rounds = 11;
        if (ft_run_rounds(&other, &cfg, "fedavg", cd, 5, 0, NULL)) {
            FT_CHECK(fgl_run_load(&other, path, &err) == FGL_ERR_SHAPE, "loading a 10-round checkpoint into an 11-round run: %s",
                     err.msg);
            fgl_run_free(&other);
        }
    }
    remove(path);
    fgl_scenario_free(&sc);
}

/* Graph clients shuffle their training order every epoch: a resumed run
 * must draw the same mini-batches. */
static void test_graph_checkpoint_resume_is_exact(void) {
    fgl_scenario sc;
    fgl_client_data cd[3];
    fgl_fed_config cfg = fgl_fed_config_default(FGL_TASK_GRAPH);
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GIN, FGL_TASK_GRAPH, 1, 1);
    fgl_run full, part, resumed;
    fgl_error err;
    char path[128];
    int r;
    if (!have_tu) FT_SKIP("MUTAG not found");
    if (fgl_scenario_graphs(&sc, &mutag, FGL_PART_DIRICHLET, 3, 1.0, 30, 0.8, 0.1, 7, &err)) {
        FT_CHECK(0, "scenario: %s", err.msg);
        return;
    }
    fgl_scenario_clients(&sc, &spec, cd);
    cfg.rounds = 6;
    cfg.batch_size = 16; /* several shuffled batches per epoch */
    snprintf(path, sizeof path, "/tmp/fgl_test_gckpt_%lx.bin", (unsigned long)time(NULL) ^ (unsigned long)(uintptr_t)&sc);
    if (ft_run_rounds(&full, &cfg, "fedavg", cd, 3, 6, NULL)) {
        if (ft_run_rounds(&part, &cfg, "fedavg", cd, 3, 2, NULL)) {
            FT_CHECK(fgl_run_save(&part, path, &err) == FGL_OK, "save: %s", err.msg);
            fgl_run_free(&part);
            if (ft_run_rounds(&resumed, &cfg, "fedavg", cd, 3, 0, NULL)) {
                FT_CHECK(fgl_run_load(&resumed, path, &err) == FGL_OK, "load: %s", err.msg);
                for (r = resumed.round; r < 6; r++)
                    if (fgl_run_round(&resumed)) break;
                FT_CHECK(ft_same_history(&full, &resumed) && ft_same_models(&full, &resumed),
                         "a resumed graph-task run differs from the uninterrupted one");
                fgl_run_free(&resumed);
            }
        }
        fgl_run_free(&full);
    }
    remove(path);
    fgl_scenario_free(&sc);
}

/* A FedAvg variant whose client 1 uploads NaN, another whose client 2 sends
 * a message of the wrong size: the server must leave them out and count it. */
static int nan_upload(fgl_run *run, fgl_client *c, fgl_msg *up) {
    int rc = fgl_algo_find("fedavg")->upload(run, c, up);
    if (!rc && c->id == 1) up->part[0][7] = NAN;
    if (!rc && c->id == 2) fgl_msg_part(up, 0, up->len[0] - 3);
    return rc;
}

static void test_bad_uploads_are_rejected(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_algo bad = *fgl_algo_find("fedavg");
    fgl_fed_config cfg = fgl_fed_config_default(FGL_TASK_NODE);
    fgl_run run;
    fgl_error err;
    fgl_run_summary s;
    int r, i;
    if (!have_cora) FT_SKIP("Cora not found");
    if (!ft_cora_clients(&cora, 32, &sc, cd)) return;
    bad.upload = nan_upload;
    cfg.rounds = 10;
    if (fgl_run_init(&run, &cfg, &bad, cd, 5, &err)) {
        FT_CHECK(0, "init: %s", err.msg);
        return;
    }
    for (r = 0; r < 10; r++) FT_CHECK(fgl_run_round(&run) == FGL_OK, "round %d: %s", r, run.err.msg);
    fgl_run_summarize(&run, &s);
    FT_CHECK(s.rejected == 20, "2 bad uploads x 10 rounds must be rejected, counted %d", s.rejected);
    FT_CHECK(run.stats[3].n_rejected == 2, "round 3 rejected %d", run.stats[3].n_rejected);
    FT_CHECK(!fgl_run_accepted(&run, 1) && !fgl_run_accepted(&run, 2) && fgl_run_accepted(&run, 0), "acceptance flags");
    for (i = 0; i < run.n_clients; i++) /* nothing was averaged in: every model stays finite */
        FT_CHECK(fgl_all_finite(run.clients[i].model.params.size, run.clients[i].model.params.data),
                 "client %d's model holds NaN", i);
    FT_CHECK(s.best_test > 0.3, "training went on: %.3f", s.best_test);
    fgl_run_free(&run);
    fgl_scenario_free(&sc);
}

static void test_parameters_and_errors(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_fed_config cfg = fgl_fed_config_default(FGL_TASK_NODE);
    fgl_run run;
    fgl_error err;
    unsigned g;
    FT_CHECK(fgl_groups_parse("all-head", &g) == FGL_OK && g == (FGL_G_ALL & ~(unsigned)FGL_G_HEAD), "all-head");
    FT_CHECK(fgl_groups_parse("conv+struct", &g) == FGL_OK && g == (FGL_G_CONV | FGL_G_STRUCT), "conv+struct");
    FT_CHECK(fgl_groups_parse("convv", &g) == FGL_ERR_ARG, "unknown group");
    FT_CHECK(fgl_algo_find("nope") == NULL, "unknown algorithm");
    if (!have_cora) FT_SKIP("Cora not found");
    if (!ft_cora_clients(&cora, 16, &sc, cd)) return;
    cfg.rounds = 2;
    FT_CHECK(fgl_run_init(&run, &cfg, fgl_algo_find("fedprox"), cd, 5, &err) == FGL_OK, "init");
    FT_CHECK(fgl_run_set(&run, "mu", "0.5", &err) == FGL_OK, "mu: %s", err.msg);
    FT_CHECK(((fgl_avg_config *)run.algo_cfg)->mu == 0.5f, "mu stored");
    FT_CHECK(fgl_run_set(&run, "mu", "abc", &err) == FGL_ERR_PARSE && strstr(err.msg, "mu"), "bad number: %s", err.msg);
    FT_CHECK(fgl_run_set(&run, "tau", "3", &err) == FGL_ERR_ARG && strstr(err.msg, "tau"), "foreign key: %s", err.msg);
    FT_CHECK(fgl_run_set(&run, "share", "conv+head", &err) == FGL_OK, "share");
    FT_CHECK(fgl_run_round(&run) == FGL_OK, "round: %s", run.err.msg);
    FT_CHECK(fgl_run_set(&run, "mu", "1", &err) == FGL_ERR_ARG, "setting after the start is refused");
    fgl_run_free(&run);
    cfg.rounds = 0;
    FT_CHECK(fgl_run_init(&run, &cfg, fgl_algo_find("fedavg"), cd, 5, &err) == FGL_ERR_ARG, "0 rounds");
    fgl_scenario_free(&sc);
}

/* One dataset per client with different feature widths: sharing everything
 * is refused with a message that says why; sharing the GNN layers works;
 * FedStar's structure encoder is shared across them. */
static void test_heterogeneous_graph_clients(void) {
    fgl_scenario sc;
    fgl_client_data cd[2];
    fgl_graph_set sets[2];
    fgl_fed_config cfg = fgl_fed_config_default(FGL_TASK_GRAPH);
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GIN, FGL_TASK_GRAPH, 1, 1);
    fgl_error err;
    fgl_run run;
    const char *conv[] = {"share", "conv", NULL};
    const char *algos[] = {"local", "fedavg", "fedstar"};
    int a;
    if (!have_tu) FT_SKIP("MUTAG / PTC_MR not found");
    sets[0] = mutag;
    sets[1] = ptc;
    FT_CHECK(mutag.n_feat != ptc.n_feat, "the test needs different feature widths");
    if (fgl_scenario_per_dataset(&sc, sets, 2, 0.8, 0.1, 123, &err)) {
        FT_CHECK(0, "scenario: %s", err.msg);
        return;
    }
    fgl_scenario_clients(&sc, &spec, cd);
    cfg.rounds = 3;
    cfg.optim.lr = 0.01f; /* short runs: a larger step than the protocol's 1e-3 */
    FT_CHECK(fgl_run_init(&run, &cfg, fgl_algo_find("fedavg"), cd, 2, &err) == FGL_OK, "init: %s", err.msg);
    FT_CHECK(fgl_run_round(&run) == FGL_ERR_SHAPE && strstr(run.err.msg, "share"), "share=all must fail: %s", run.err.msg);
    fgl_run_free(&run);
    for (a = 0; a < 3; a++) {
        fgl_run_summary s;
        cfg.rounds = 60;
        if (!ft_run_rounds(&run, &cfg, algos[a], cd, 2, 60, a == 1 ? conv : NULL)) continue;
        fgl_run_summarize(&run, &s);
        /* Majority classes: MUTAG 66.5%, PTC_MR 55.8%, mean 61.2%. The
         * validation sets (19 and 34 graphs) are too small to select a round,
         * so, as FedStar's protocol does, the final round counts. */
        FT_CHECK(s.last_test > 0.64, "%s: mean final test accuracy %.3f", algos[a], s.last_test);
        if (a == 2) { /* only the structure encoder travels */
            size_t st = fgl_params_count(&run.clients[0].model.params, FGL_G_STRUCT);
            FT_CHECK(run.stats[5].bytes_down == 2 * 4 * st && run.stats[5].bytes_up == 2 * 4 * (st + 1),
                     "fedstar bytes %zu / %zu, expected %zu / %zu", run.stats[5].bytes_up, run.stats[5].bytes_down,
                     2 * 4 * (st + 1), 2 * 4 * st);
            FT_CHECK(run.clients[0].model.spec.arch == FGL_ARCH_FEDSTAR && run.clients[0].model.spec.in_dim == mutag.n_feat &&
                         run.clients[1].model.spec.in_dim == ptc.n_feat, "fedstar models keep each client's input width");
        }
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

static void test_graph_dirichlet_fedavg(void) {
    fgl_scenario sc;
    fgl_client_data cd[3];
    fgl_fed_config cfg = fgl_fed_config_default(FGL_TASK_GRAPH);
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GIN, FGL_TASK_GRAPH, 1, 1);
    fgl_error err;
    fgl_run run;
    fgl_run_summary s;
    if (!have_tu) FT_SKIP("MUTAG not found");
    if (fgl_scenario_graphs(&sc, &mutag, FGL_PART_DIRICHLET, 3, 1.0, 30, 0.8, 0.1, 7, &err)) {
        FT_CHECK(0, "scenario: %s", err.msg);
        return;
    }
    fgl_scenario_clients(&sc, &spec, cd);
    cfg.rounds = 60;
    cfg.batch_size = 32;
    cfg.optim.lr = 0.01f;
    if (ft_run_rounds(&run, &cfg, "fedavg", cd, 3, 60, NULL)) {
        fgl_run_summarize(&run, &s);
        FT_CHECK(s.last_test > 0.72, "FedAvg on MUTAG over 3 clients: %.3f (majority class 66%%)", s.last_test);
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

/* FedAvg's rule, recomputed from the uploads: after a round the server model
 * is the training-count-weighted mean of what the clients sent, and every
 * client starts the next round's training from exactly that vector. One
 * client's FedAvg is Local, bit for bit. */
static void test_fedavg_rule(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_fed_config cfg = fgl_fed_config_default(FGL_TASK_NODE);
    fgl_run run;
    if (!have_cora) FT_SKIP("Cora not found under %s", ft_data_dir());
    if (!ft_cora_clients(&cora, 16, &sc, cd)) return;
    cfg.rounds = 3;
    if (ft_run_rounds(&run, &cfg, "fedavg", cd, 5, 2, NULL)) {
        const fgl_avg_state *srv = (const fgl_avg_state *)run.server;
        size_t k, n = srv->n, bad = 0;
        double wsum = 0;
        int i;
        float *packed = (float *)malloc(sizeof(float) * n);
        FT_CHECK(packed != NULL, "out of memory");
        for (i = 0; i < 5; i++) wsum += run.clients[i].up.part[1][0];
        FT_CHECK(n == run.clients[0].model.params.size, "server holds %zu floats, the model has %zu", n,
                 run.clients[0].model.params.size);
        for (k = 0; k < n; k++) {
            double acc = 0;
            for (i = 0; i < 5; i++) acc += (double)run.clients[i].up.part[1][0] * run.clients[i].up.part[0][k];
            bad += fabs(acc / wsum - srv->global[k]) > 1e-6 * (1 + fabs(acc / wsum));
        }
        FT_CHECK(bad == 0, "%zu of %zu server values differ from the weighted mean of the uploads", bad, n);
        for (i = 0; i < 5; i++) FT_CHECK(run.clients[i].up.part[1][0] == (float)run.clients[i].n_train, "client %d count", i);
        /* one more round: each client's training starts from the server vector */
        if (packed) memcpy(packed, srv->global, sizeof(float) * n);
        FT_CHECK(fgl_run_round(&run) == FGL_OK, "round 3: %s", run.err.msg);
        for (i = 0; i < 5 && packed; i++) {
            float *start = (float *)malloc(sizeof(float) * n);
            if (!start) break;
            fgl_params_pack(&run.clients[i].start, FGL_G_ALL, start);
            FT_CHECK(memcmp(start, packed, sizeof(float) * n) == 0, "client %d did not start round 3 from the average", i);
            free(start);
        }
        free(packed);
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
    { /* one client */
        fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 1, 1);
        fgl_error err;
        fgl_run a, b;
        spec.hidden = 16;
        if (fgl_scenario_subgraphs(&sc, &cora, FGL_PART_METIS, 1, 0.2, 0.4, 1234, &err)) {
            FT_CHECK(0, "scenario: %s", err.msg);
            return;
        }
        fgl_scenario_clients(&sc, &spec, cd);
        if (ft_run_rounds(&a, &cfg, "fedavg", cd, 1, 3, NULL)) {
            if (ft_run_rounds(&b, &cfg, "local", cd, 1, 3, NULL)) {
                FT_CHECK(ft_same_history(&a, &b) && ft_same_models(&a, &b), "FedAvg with one client differs from Local");
                fgl_run_free(&b);
            }
            fgl_run_free(&a);
        }
        fgl_scenario_free(&sc);
    }
}

int main(void) {
    have_cora = ft_load_cora(&cora);
    have_tu = ft_load_tu("MUTAG", 16, &mutag) && ft_load_tu("PTC_MR", 16, &ptc);
    FT_RUN(test_node_algorithms_run_and_count_bytes);
    FT_RUN(test_thread_count_does_not_change_bits);
    FT_RUN(test_checkpoint_resume_is_exact);
    FT_RUN(test_graph_checkpoint_resume_is_exact);
    FT_RUN(test_bad_uploads_are_rejected);
    FT_RUN(test_parameters_and_errors);
    FT_RUN(test_heterogeneous_graph_clients);
    FT_RUN(test_graph_dirichlet_fedavg);
    FT_RUN(test_fedavg_rule);
    fgl_node_data_free(&cora);
    fgl_graph_set_free(&mutag);
    fgl_graph_set_free(&ptc);
    return ft_finish();
}
