/* Tests of fgl_fed.h's runtime and its contract: every built-in algorithm
 * end to end, exact byte accounting from the declared messages, determinism
 * across thread counts, checkpoint/resume of every registered algorithm
 * (and a deliberately unregistered buffer caught), upload validation
 * charged to the client that caused it, hook errors naming round and side,
 * user algorithms by name, and clear errors for bad parameters and
 * incompatible models. They run on Cora / MUTAG / PTC_MR when FGL_DATA has
 * them and on fgl's synthetic generators otherwise. */
#include "../fgl_fed.h"
#include "ft.h"
#include "ft_fed.h"
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static fgl_dataset nodes, graphs, graphs2;
static int real_nodes, real_graphs;

static void tmp_path(char *out, size_t cap, const char *tag, const void *p) {
    snprintf(out, cap, "/tmp/fgl_test_%s_%lx_%lx.bin", tag, (unsigned long)time(NULL), (unsigned long)(uintptr_t)p);
}

static void test_node_algorithms_run_and_count_bytes(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    const char *algos[] = {"local", "fedavg", "fedprox", "fedper", "fedpub"};
    double bar, majority;
    int a;
    if (!ft_node_clients(&nodes, 5, 32, &sc, cd)) return;
    /* twice chance: METIS clients are label-skewed (on Cora predicting each
     * client's majority class scores ~50%, more than FedAvg reaches in 30
     * rounds of one full-batch step), so the bar is learning, not the majority */
    bar = 2.0 / nodes.node.n_classes;
    majority = ft_majority_baseline(&sc);
    for (a = 0; a < 5; a++) {
        fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
        fgl_run run;
        fgl_run_summary s;
        size_t P, shared, up = 0, down = 0;
        int r;
        cfg.rounds = ft_quick() ? 4 : 30;
        if (!ft_run_rounds(&run, &cfg, algos[a], cd, 5, cfg.rounds, NULL)) continue;
        fgl_run_summarize(&run, &s);
        printf("#   %-8s %s: %.3f after %d rounds (majority class per client %.3f)\n", algos[a], nodes.label, s.best_test,
               cfg.rounds, majority);
        if (!ft_quick())
            FT_CHECK(s.best_test > bar, "%s on %s: mean test accuracy %.3f after 30 rounds, needs > %.3f (twice chance)",
                     algos[a], nodes.label, s.best_test, bar);
        P = run.clients[0].model.params.size;
        shared = fgl_params_count(&run.clients[0].model.params, FGL_G_ALL & ~(unsigned)FGL_G_MASK);
        if (!strcmp(algos[a], "local")) {
            up = down = 0;
        } else if (!strcmp(algos[a], "fedpub")) { /* weights + embedding + count; masks stay home */
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
        for (r = 1; r < cfg.rounds; r++) { /* round 0 also carries the initial broadcast */
            FT_CHECK(run.stats[r].bytes_up == 5 * up, "%s round %d: %zu bytes up, expected %zu", algos[a], r,
                     run.stats[r].bytes_up, 5 * up);
            FT_CHECK(run.stats[r].bytes_down == 5 * down, "%s round %d: %zu bytes down, expected %zu", algos[a], r,
                     run.stats[r].bytes_down, 5 * down);
        }
        FT_CHECK(run.stats[0].bytes_down == 10 * down, "%s: initial broadcast + round 0: %zu, expected %zu", algos[a],
                 run.stats[0].bytes_down, 10 * down);
        FT_CHECK(s.bytes_up == (size_t)cfg.rounds * 5 * up && s.bytes_down == (size_t)(cfg.rounds + 1) * 5 * down,
                 "%s: totals %zu / %zu", algos[a], s.bytes_up, s.bytes_down);
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

/* The clients' schedule (fgl__schedule): largest first, ties in the
 * clients' order; a client runs alone, with every thread, only when that
 * is predicted to end the phase sooner, and never for more threads than
 * its work (nodes + edges at FGL_PER_THREAD_ENTRIES a thread) pays for.
 * Work below is in those units. */
static void test_client_schedule(void) {
    int order[10], i, ok = 1;
    const double one[1] = {5e4}, equal[4] = {2e4, 2e4, 2e4, 2e4}, big[3] = {2e4, 1e6, 4e4},
                 mixed[4] = {3e4, 1e4, 3e4, 2e4},
                 /* FedStar's CHEM: NCI1, AIDS, MUTAG, BZR, COX2, DHFR, PTC_MR (graphs + nodes, roughly) */
                 chem[7] = {1.2e5, 3e4, 3.5e3, 1.5e4, 1.8e4, 2.7e4, 5e3};
    double cora[10];
    for (i = 0; i < 10; i++) cora[i] = 6e3; /* FedAvg on Cora, 10 METIS clients: nodes + edges + feature entries */
    FT_CHECK(fgl__schedule(1, 1, one, order) == 0 && order[0] == 0, "one thread: nothing alone");
    FT_CHECK(fgl__schedule(2, 4, equal, order) == 0, "four equal clients, two threads: side by side");
    for (i = 0; i < 4; i++) ok &= order[i] == i;
    FT_CHECK(ok, "ties keep the clients' order");
    FT_CHECK(fgl__schedule(2, 3, big, order) >= 1 && order[0] == 1 && order[1] == 2 && order[2] == 0,
             "a client larger than the rest together runs alone, first; then largest first");
    FT_CHECK(fgl__schedule(2, 4, mixed, order) == 0 && order[0] == 0 && order[1] == 2 && order[2] == 3 && order[3] == 1,
             "largest first, ties in order: 0 2 3 1 (got %d %d %d %d)", order[0], order[1], order[2], order[3]);
    FT_CHECK(fgl__schedule(2, 0, one, order) == 0, "no clients");
    FT_CHECK(fgl__schedule(16, 10, cora, order) == 0 && fgl__schedule(8, 10, cora, order) == 0,
             "ten small clients on 16 or 8 threads: side by side (their products pay for 1 thread, not 14)");
    FT_CHECK(fgl__schedule(2, 10, cora, order) == 0, "ten small clients on 2 threads: side by side");
    FT_CHECK(fgl__schedule(16, 7, chem, order) == 1 && order[0] == 0,
             "CHEM on 16 threads: NCI1 alone first, the six others side by side");
    FT_CHECK(fgl__schedule(16, 1, cora, order) == 0, "a lone small client: nothing to gain alone");
    FT_CHECK(fgl__alone_speed(6e3, 16) == 1.0 && fgl__alone_speed(1e6, 2) > 1.0 &&
                 fgl__alone_speed(1e6, 16) == 8 * fgl__alone_speed(1e6, 2) &&
                 fgl__alone_speed(3e4, 16) < fgl__alone_speed(1e6, 16) && fgl__alone_speed(3e4, 16) > 1.0,
             "alone speed: 1 below two threads' work, else the threads given or those the work pays for");
}

/* The trial of a phase's two ways (fgl__alone_trial / fgl__alone_record):
 * the first run is left out, the next eight go alone / side by side /
 * side by side / alone, twice, the faster sum is kept for good; calls
 * with partial participation (a different set each round) are no part of
 * it and run the model's way. */
static void test_alone_trial(void) {
    fgl_run run;
    int i, ways[9], ok;
    static const int want[9] = {1, 1, 0, 0, 1, 1, 0, 0, 1};
    static const double secs_alone = 0.30, secs_beside = 0.25;
    memset(&run, 0, sizeof run);
    run.n_clients = run.n_part = 3;
    for (i = 0, ok = 1; i < 9; i++) {
        ways[i] = fgl__alone_trial(&run, 0);
        ok &= ways[i] == want[i];
        fgl__alone_record(&run, 0, ways[i], ways[i] ? secs_alone : secs_beside);
    }
    FT_CHECK(ok, "first run as modelled, then A B B A A B B A: %d %d %d %d %d %d %d %d %d", ways[0], ways[1], ways[2], ways[3],
             ways[4], ways[5], ways[6], ways[7], ways[8]);
    FT_CHECK(run.sched[0].pick == 2 && !fgl__alone_trial(&run, 0), "side by side was faster: kept");
    fgl__alone_record(&run, 0, 0, 100.0);
    FT_CHECK(run.sched[0].pick == 2 && !fgl__alone_trial(&run, 0), "the pick is for good");
    { /* work every other round (odd calls 0.1 s more) weighs on both ways alike: the truly faster wins */
        int c;
        for (c = 0; c < 9; c++) {
            int w = fgl__alone_trial(&run, 1);
            fgl__alone_record(&run, 1, w, (w ? 0.20 : 0.21) + (c % 2 ? 0.1 : 0.0));
        }
        FT_CHECK(run.sched[1].pick == 1 && fgl__alone_trial(&run, 1), "alone was faster (evaluation every other round): kept");
    }
    memset(&run, 0, sizeof run);
    run.n_clients = 10;
    run.n_part = 3;
    for (i = 0, ok = 1; i < 12; i++) { /* partial participation: not counted */
        ok &= fgl__alone_trial(&run, 0) == 1;
        fgl__alone_record(&run, 0, 1, 1.0);
    }
    FT_CHECK(ok && run.sched[0].pick == 0 && run.sched[0].calls == 0, "partial participation: no trial, the model's way");
    run.n_part = 10; /* then full participation: the trial starts from its first call and decides */
    for (i = 0; i < 9; i++) {
        int w = fgl__alone_trial(&run, 0);
        fgl__alone_record(&run, 0, w, w ? 0.1 : 0.2);
    }
    FT_CHECK(run.sched[0].pick == 1, "a trial after rounds of partial participation still decides (pick %d)", run.sched[0].pick);
}

static void test_thread_count_does_not_change_bits(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    const char *algos[] = {"fedavg", "fedpub"};
    int a;
    if (!ft_node_clients(&nodes, 5, 32, &sc, cd)) return;
    for (a = 0; a < 2; a++) {
        fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
        fgl_run r1, r2;
        cfg.rounds = 6;
        cfg.threads = 1;
        if (!ft_run_rounds(&r1, &cfg, algos[a], cd, 5, 6, NULL)) continue;
        cfg.threads = 2;
        if (ft_run_rounds(&r2, &cfg, algos[a], cd, 5, 6, NULL)) {
            FT_CHECK(ft_same_history(&r1, &r2) && ft_same_models(&r1, &r2), "%s: 1 and 2 threads differ", algos[a]);
            fgl_run_free(&r2);
        }
        fgl_run_free(&r1);
    }
    fgl_scenario_free(&sc);
}

/* Clients side by side with fewer clients than threads (issue 38): the
 * largest client's thread is granted the spare threads for its products,
 * every other client's products get its own thread; with as many clients
 * as threads, none is granted more than one. */
#ifdef _OPENMP
static void record_budget(fgl_run *run, fgl_client *c, const void *ctx) {
    (void)run;
    ((int *)ctx)[c->id] = fgl__budget();
}
#endif

static void test_side_by_side_grants(void) {
#ifdef _OPENMP
    fgl_run run;
    fgl_client cl[3];
    int budget[3], i, nt, saved = omp_get_max_threads();
    const int ids[3] = {0, 1, 2}, order[3] = {2, 0, 1}; /* client 2 the largest */
    memset(&run, 0, sizeof run);
    memset(cl, 0, sizeof cl);
    for (i = 0; i < 3; i++) cl[i].id = i;
    run.clients = cl;
    for (nt = 2; nt <= 6; nt++) {
        int want2 = nt > 3 ? nt - 2 : 1;
        omp_set_num_threads(nt);
        fgl__side_by_side(&run, ids, order, NULL, 0, 3, nt, record_budget, budget);
        FT_CHECK(budget[2] == want2 && budget[0] == 1 && budget[1] == 1,
                 "%d threads, 3 clients: budgets %d %d %d, want 1 1 %d", nt, budget[0], budget[1], budget[2], want2);
        FT_CHECK(omp_get_max_active_levels() >= 1 && fgl__budget() == nt, "%d threads: the budget back after the loop",
                 nt);
    }
    { /* with the clients' work: a grant only to a client that sets the pace */
        const double even[3] = {1e4, 1e4, 1.1e4}, lead[3] = {1e4, 1e4, 4e4};
        fgl__side_by_side(&run, ids, order, even, 0, 3, 6, record_budget, budget);
        FT_CHECK(budget[0] == 1 && budget[1] == 1 && budget[2] == 1, "balanced clients: no grant (%d %d %d)", budget[0],
                 budget[1], budget[2]);
        fgl__side_by_side(&run, ids, order, lead, 0, 3, 6, record_budget, budget);
        FT_CHECK(budget[0] == 1 && budget[1] == 1 && budget[2] == 4, "the client that sets the pace: granted (%d %d %d)",
                 budget[0], budget[1], budget[2]);
    }
    budget[1] = 0;
    fgl__side_by_side(&run, ids, order, NULL, 2, 3, 4, record_budget, budget); /* order[2] = client 1 alone: no region */
    FT_CHECK(budget[1] == omp_get_max_threads(), "one client side by side: every thread (%d)", budget[1]);
    omp_set_num_threads(saved);
#endif
}

/* A graph task with one client larger than the other: the same bits at
 * 1, 2, 3 and 4 threads, at 3 and 4 the larger client's products on the
 * threads granted to it (nested), at 2 the clients side by side. */
static void test_big_client_same_bits(void) {
    fgl_scenario sc;
    fgl_client_data cd[2];
    const char *algos[] = {"fedavg", "fedstar"};
    int a, t;
#ifdef _OPENMP
    int saved = omp_get_max_threads();
#endif
    if (!ft_graph_clients(&graphs, 2, 0.3, 8, 7, &sc, cd)) return;
    for (a = 0; a < 2; a++) {
        fgl_fed_config cfg = fgl_fed_default(FGL_TASK_GRAPH);
        fgl_run r1, rt;
        cfg.rounds = 3;
        cfg.threads = 1;
#ifdef _OPENMP
        omp_set_num_threads(1);
#endif
        if (!ft_run_rounds(&r1, &cfg, algos[a], cd, 2, 3, NULL)) continue;
        for (t = 2; t <= 4; t++) {
            cfg.threads = t;
#ifdef _OPENMP
            omp_set_num_threads(t);
#endif
            if (!ft_run_rounds(&rt, &cfg, algos[a], cd, 2, 3, NULL)) continue;
            FT_CHECK(ft_same_history(&r1, &rt) && ft_same_models(&r1, &rt), "%s: 1 and %d threads differ", algos[a], t);
            fgl_run_free(&rt);
        }
        fgl_run_free(&r1);
    }
#ifdef _OPENMP
    omp_set_num_threads(saved);
#endif
    fgl_scenario_free(&sc);
}

/* Evaluating every third round (and the last) leaves training alone: the
 * same models bit for bit, NaN in the rounds skipped, and the best round
 * chosen among the evaluated ones. */
static void test_eval_every(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run a, b;
    fgl_run_summary s;
    int r;
    if (!ft_node_clients(&nodes, 5, 16, &sc, cd)) return;
    cfg.rounds = 7;
    if (ft_run_rounds(&a, &cfg, "fedavg", cd, 5, 7, NULL)) {
        cfg.eval_every = 3;
        if (ft_run_rounds(&b, &cfg, "fedavg", cd, 5, 7, NULL)) {
            FT_CHECK(ft_same_models(&a, &b), "evaluating less changed the training");
            for (r = 0; r < 7; r++) {
                int evaluated = r == 2 || r == 5 || r == 6;
                FT_CHECK(evaluated ? b.stats[r].test_acc == a.stats[r].test_acc : b.stats[r].test_acc != b.stats[r].test_acc,
                         "round %d: test %g (evaluated: %d)", r + 1, b.stats[r].test_acc, evaluated);
            }
            fgl_run_summarize(&b, &s);
            FT_CHECK(s.best_round == 2 || s.best_round == 5 || s.best_round == 6, "best round %d was not evaluated", s.best_round + 1);
            FT_CHECK(s.last_test == a.stats[6].test_acc, "the last round is always evaluated");
            fgl_run_free(&b);
        }
        fgl_run_free(&a);
    }
    fgl_scenario_free(&sc);
}

/* --- checkpoints ------------------------------------------------------------------ */

/* Run `rounds` rounds straight, and `cut` rounds + save + load into a fresh
 * run + the rest; *same says whether they ended identical. 0 if a step
 * failed (the test has failed). */
static int resume_matches(const fgl_algo *algo, const fgl_fed_config *cfg, fgl_client_data *cd, int k, int cut,
                          const char *const *sets, int *same, char *why, size_t cap) {
    fgl_run full, part, resumed;
    fgl_error err;
    char path[256];
    int r, ok = 1;
    tmp_path(path, sizeof path, algo->name, cd);
    if (!ft_run_algo(&full, cfg, algo, cd, k, cfg->rounds, sets)) return 0;
    if (!ft_run_algo(&part, cfg, algo, cd, k, cut, sets)) {
        fgl_run_free(&full);
        return 0;
    }
    ok = fgl_run_save(&part, path, &err) == FGL_OK;
    FT_CHECK(ok, "%s: save: %s", algo->name, err.msg);
    fgl_run_free(&part);
    if (ok && ft_run_algo(&resumed, cfg, algo, cd, k, 0, sets)) {
        ok = fgl_run_load(&resumed, path, &err) == FGL_OK;
        FT_CHECK(ok, "%s: load: %s", algo->name, err.msg);
        FT_CHECK(!ok || resumed.round == cut, "%s: resumed at round %d, saved at %d", algo->name, resumed.round, cut);
        for (r = resumed.round; ok && r < cfg->rounds; r++) ok = fgl_run_round(&resumed) == FGL_OK;
        FT_CHECK(ok, "%s: resumed round failed: %s", algo->name, resumed.err.msg);
        *same = ft_same_run(&full, &resumed, why, cap);
        fgl_run_free(&resumed);
    } else {
        ok = 0;
    }
    remove(path);
    fgl_run_free(&full);
    return ok;
}

/* Every registered algorithm, saved after 3 of 7 rounds and resumed, ends
 * with the bits of the uninterrupted run: models, histories, bytes and
 * every state entry (2 local epochs, so optimizer moments, control
 * variates, drifts, personal and previous models, server matrices and
 * cluster assignments all matter by then). Node algorithms on node data,
 * FedStar and GPFL on graphs. */
/* The parameters the loops over every algorithm set: GCFL's clusters split
 * within the run; AdaFGL's step 2 (200 full-batch steps on n x n matrices,
 * 23 s of the resume loop's 32) takes 20 steps, the same path. */
static const char *const *loop_sets(const char *name) {
    static const char *const gcfl_sets[] = {"share", "all", "warmup", "2", "eps1", "10", "eps2", "0", NULL};
    static const char *const adafgl_sets[] = {"epochs", "20", NULL};
    /* FedDEP's generators at a test's size (the default eGen is 256 x 2048 wide): the same code paths */
    static const char *const feddep_sets[] = {"gen_hidden", "32", "gen_hidden2", "64", "latent", "32", "emb_dim", "32",
                                              "enc_epochs", "10", NULL};
    return !strncmp(name, "gcfl", 4) ? gcfl_sets : !strcmp(name, "adafgl") ? adafgl_sets
           : !strcmp(name, "feddep") ? feddep_sets : NULL;
}

static void test_every_algorithm_resumes_exactly(void) {
    fgl_scenario nsc, gsc;
    fgl_client_data ncd[5], gcd[3];
    int a, n = fgl_algo_count();
    if (!ft_node_clients(&nodes, 5, 16, &nsc, ncd)) return;
    if (!ft_graph_clients(&graphs, 3, 1.0, 30, 7, &gsc, gcd)) {
        fgl_scenario_free(&nsc);
        return;
    }
    for (a = 0; a < n; a++) {
        const fgl_algo *algo = fgl_algo_at(a);
        int graph = !strcmp(algo->name, "fedstar") || !strcmp(algo->name, "gpfl"), same = 0, ok; /* graph-only ones */
        fgl_fed_config cfg = fgl_fed_default(graph ? FGL_TASK_GRAPH : FGL_TASK_NODE);
        const char *const *sets = loop_sets(algo->name);
        char why[128] = "";
        cfg.rounds = ft_quick() ? 4 : 7;
        cfg.local_epochs = 2;
        if (graph) {
            cfg.batch_size = 16; /* several shuffled batches per epoch */
            cfg.optim.lr = 0.01f;
        }
        clock_t t0 = clock();
        ok = resume_matches(algo, &cfg, graph ? gcd : ncd, graph ? 3 : 5, ft_quick() ? 2 : 3, sets, &same, why, sizeof why);
        if (getenv("FT_TIMES")) printf("#   %s: %.2f s of CPU\n", algo->name, (double)(clock() - t0) / CLOCKS_PER_SEC);
        FT_CHECK(!ok || same, "%s: the resumed run differs from the uninterrupted one: %s", algo->name, why);
    }
    fgl_scenario_free(&nsc);
    fgl_scenario_free(&gsc);
}

/* The check above can fail: a variant of FedAvg that keeps a per-client
 * round counter in scratch memory (not checkpointed) and lets it scale the
 * gradient diverges after a resume, and the comparison says so; the same
 * counter registered with fgl_new_ints resumes exactly. */
static int leaky_init(fgl_client *c) { return fgl_new_scratch(&c->store, "count", sizeof(int), NULL) ? FGL_OK : FGL_ERR_NOMEM; }
static int kept_init(fgl_client *c) { return fgl_new_ints(&c->store, "count", 1) ? FGL_OK : FGL_ERR_NOMEM; }

static int scaled_grad(const fgl_step *st, int *count) {
    size_t j;
    if (st->index == 0) ++*count;
    for (j = 0; j < st->model->params.size; j++) st->model->params.grad[j] *= (float)*count;
    return FGL_OK;
}
static int leaky_grad(fgl_client *c, const fgl_step *st) { return scaled_grad(st, (int *)fgl_get_scratch(&c->store, "count")); }
static int kept_grad(fgl_client *c, const fgl_step *st) { return scaled_grad(st, fgl_ints(&c->store, "count")); }

static void test_unregistered_state_is_caught(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_algo leaky = fgl_algo_base("fedavg"), kept = fgl_algo_base("fedavg");
    char why[128] = "";
    int same = 1;
    if (!ft_node_clients(&nodes, 5, 16, &sc, cd)) return;
    leaky.name = "leaky";
    leaky.client_init = leaky_init;
    leaky.train.grad = leaky_grad;
    kept.name = "kept";
    kept.client_init = kept_init;
    kept.train.grad = kept_grad;
    cfg.rounds = 6;
    if (resume_matches(&leaky, &cfg, cd, 5, 3, NULL, &same, why, sizeof why))
        FT_CHECK(!same, "a run whose state is not checkpointed resumed with the same bits: the check cannot fail");
    if (resume_matches(&kept, &cfg, cd, 5, 3, NULL, &same, why, sizeof why))
        FT_CHECK(same, "the registered counter did not resume exactly: %s", why);
    fgl_scenario_free(&sc);
}

/* A failed load leaves the run as it was; a checkpoint of a run that
 * differs in rounds, learning rate, an algorithm parameter or the data is
 * refused whatever its sizes. */
static void test_checkpoint_refusals(void) {
    fgl_scenario sc, other_sc;
    fgl_client_data cd[5], other_cd[5];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run part, run;
    fgl_error err;
    char path[256];
    unsigned char *data = NULL;
    size_t len = 0;
    int k;
    if (!ft_node_clients(&nodes, 5, 16, &sc, cd)) return;
    tmp_path(path, sizeof path, "refuse", &sc);
    cfg.rounds = 5;
    if (!ft_run_rounds(&part, &cfg, "fedprox", cd, 5, 2, NULL)) return;
    FT_CHECK(fgl_run_save(&part, path, &err) == FGL_OK, "save: %s", err.msg);
    fgl_run_free(&part);
    for (k = 0; k < 4; k++) {
        fgl_fed_config c2 = cfg;
        const char *mu[] = {"mu", k == 2 ? "0.5" : "0.01", NULL};
        fgl_client_data *use = cd;
        if (k == 0) c2.rounds = 6;
        if (k == 1) c2.optim.lr = 0.02f;
        if (k == 3) { /* another split of the same data */
            fgl_split_config s = fgl_split_default();
            s.seed = 99;
            if (fgl_scenario_make(&other_sc, &nodes, &s, &err)) break;
            if (fgl_scenario_clients(&other_sc, &cd[0].spec, other_cd, 5, &err)) break;
            use = other_cd;
        }
        if (ft_run_rounds(&run, &c2, "fedprox", use, 5, 0, mu)) {
            FT_CHECK(fgl_run_load(&run, path, &err) == FGL_ERR_SHAPE && strstr(err.msg, "different run") && strstr(err.msg, path),
                     "case %d: a checkpoint of another run must be refused, naming the file: %s", k, err.msg);
            FT_CHECK(run.round == 0 && !run.started, "case %d: the run was touched", k);
            fgl_run_free(&run);
        }
        if (k == 3) fgl_scenario_free(&other_sc);
    }
    /* a corrupted or truncated file: refused, the run untouched */
    FT_CHECK(fgl_file_read(path, &data, &len, &err) == FGL_OK, "read back");
    if (data && len > 64 && ft_run_rounds(&run, &cfg, "fedprox", cd, 5, 1, NULL)) {
        double before = run.client_test[0];
        FILE *f = fopen(path, "wb");
        data[len / 2] ^= 0x5a;
        if (f) {
            fwrite(data, 1, len, f);
            fclose(f);
        }
        FT_CHECK(fgl_run_load(&run, path, &err) == FGL_ERR_FORMAT, "a corrupted checkpoint is refused: %s", err.msg);
        FT_CHECK(run.round == 1 && run.client_test[0] == before, "the run was touched by a failed load");
        f = fopen(path, "wb");
        data[len / 2] ^= 0x5a;
        if (f) {
            fwrite(data, 1, len - 9, f);
            fclose(f);
        }
        FT_CHECK(fgl_run_load(&run, path, &err) == FGL_ERR_FORMAT, "a truncated checkpoint is refused: %s", err.msg);
        FT_CHECK(fgl_run_round(&run) == FGL_OK && run.round == 2, "the run goes on after failed loads: %s", run.err.msg);
        fgl_run_free(&run);
    }
    free(data);
    data = NULL;
    /* another build's checkpoint (its recorded identity changed, the frame's checksum made anew): refused
     * naming both builds, accepted with allow_other_build and then said in other_build */
    FT_CHECK(ft_run_rounds(&part, &cfg, "fedprox", cd, 5, 2, NULL) && fgl_run_save(&part, path, &err) == FGL_OK,
             "save: %s", err.msg);
    fgl_run_free(&part);
    if (fgl_file_read(path, &data, &len, &err) == FGL_OK && len > 32) {
        const char *id = fgl_build_id();
        size_t n = strlen(id), at;
        uint64_t sum;
        FILE *f;
        for (at = 16; at + n <= len - 8 && memcmp(data + at, id, n) != 0; at++) continue;
        FT_CHECK(at + n <= len - 8, "the checkpoint records the build '%s'", id);
        if (at + n <= len - 8) {
            data[at] = (unsigned char)'G'; /* "fgl ..." -> "Ggl ...": another build */
            sum = fgl_checksum64(data + 8, len - 16);
            for (k = 0; k < 8; k++) data[len - 8 + k] = (unsigned char)(sum >> (8 * k));
            if ((f = fopen(path, "wb"))) {
                fwrite(data, 1, len, f);
                fclose(f);
            }
            if (ft_run_rounds(&run, &cfg, "fedprox", cd, 5, 0, NULL)) {
                FT_CHECK(fgl_run_load(&run, path, &err) == FGL_ERR_SHAPE && strstr(err.msg, "another build") &&
                             strstr(err.msg, "Ggl") && strstr(err.msg, id),
                         "another build's checkpoint must be refused, naming both: %s", err.msg);
                FT_CHECK(run.round == 0, "the run was touched");
                run.allow_other_build = 1;
                FT_CHECK(fgl_run_load(&run, path, &err) == FGL_OK && run.round == 2 && !strncmp(run.other_build, "Ggl", 3),
                         "allowed: loaded (%s), other_build '%s'", err.msg, run.other_build);
                fgl_run_free(&run);
            }
        }
    }
    free(data);
    remove(path);
    fgl_scenario_free(&sc);
}

/* A client without test samples has no test accuracy: NaN in the history,
 * left out of the round's mean (it counted as 0 and pulled the mean down). */
static void test_empty_test_set(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run run;
    int q, moved = 0;
    if (!ft_node_clients(&nodes, 5, 16, &sc, cd)) return;
    for (q = 0; q < cd[0].node->n_nodes; q++) /* client 0's test nodes become validation nodes */
        if (cd[0].node->split[q] == FGL_SPLIT_TEST) {
            cd[0].node->split[q] = FGL_SPLIT_VAL;
            moved++;
        }
    cfg.rounds = 1;
    FT_CHECK(moved > 0, "client 0 had test nodes");
    if (ft_run_rounds(&run, &cfg, "fedavg", cd, 5, 1, NULL)) {
        double sum = 0;
        int i;
        for (i = 1; i < 5; i++) sum += run.client_test[i];
        FT_CHECK(isnan(run.client_test[0]), "client 0 without test nodes: test accuracy %g (NaN expected)",
                 run.client_test[0]);
        FT_NEAR(run.stats[0].test_acc, sum / 4, 1e-12, "the round's test mean over the 4 clients with test nodes");
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

/* Graph clients shuffle their training order every epoch: a resumed run
 * must draw the same mini-batches (FedAvg on graphs). */
static void test_graph_checkpoint_resume_is_exact(void) {
    fgl_scenario sc;
    fgl_client_data cd[3];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_GRAPH);
    char why[128] = "";
    int same = 0;
    if (!ft_graph_clients(&graphs, 3, 1.0, 30, 7, &sc, cd)) return;
    cfg.rounds = 6;
    cfg.batch_size = 16;
    if (resume_matches(fgl_algo_find("fedavg"), &cfg, cd, 3, 2, NULL, &same, why, sizeof why))
        FT_CHECK(same, "a resumed graph-task run differs from the uninterrupted one: %s", why);
    fgl_scenario_free(&sc);
}

/* Partial participation: only the round's participants get a download
 * (2 of 5 here), a client that sits a round out keeps its model, and a
 * resume keeps the participants already drawn. */
static void test_partial_participation(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run run;
    char why[128] = "";
    int same = 0, r, i;
    if (!ft_node_clients(&nodes, 5, 16, &sc, cd)) return;
    cfg.rounds = 6;
    cfg.frac = 0.4f;
    if (fgl_run_init(&run, &cfg, fgl_algo_find("fedavg"), cd, 5, &run.err) == FGL_OK && fgl_run_start(&run) == FGL_OK) {
        size_t down = 4 * run.clients[0].n_shared, n = run.clients[0].model.params.size;
        float *before = (float *)malloc(sizeof(float) * 5 * n);
        FT_CHECK(run.n_part == 2 && run.stats[0].bytes_down == 2 * down, "initial downloads to the 2 first participants: %zu",
                 run.stats[0].bytes_down);
        for (r = 0; r < 6 && before; r++) {
            unsigned char sat_out[5];
            for (i = 0; i < 5; i++) {
                int k;
                sat_out[i] = 1;
                for (k = 0; k < run.n_part; k++) sat_out[i] &= run.part[k] != i;
                memcpy(before + (size_t)i * n, run.clients[i].model.params.data, sizeof(float) * n);
            }
            if (fgl_run_round(&run)) break;
            for (i = 0; i < 5; i++) { /* not in this round, not in the next: untouched */
                int k, next = 0;
                for (k = 0; k < run.n_part; k++) next |= run.part[k] == i;
                if (sat_out[i] && !next)
                    FT_CHECK(!memcmp(before + (size_t)i * n, run.clients[i].model.params.data, sizeof(float) * n),
                             "round %d: client %d sat out but its model changed", r + 1, i);
            }
            FT_CHECK(run.stats[r].bytes_down == (r == 0 ? 4 : 2) * down && run.stats[r].n_part == 2,
                     "round %d: %zu bytes down, expected downloads for the next 2 participants only", r + 1, run.stats[r].bytes_down);
        }
        free(before);
        fgl_run_free(&run);
    }
    if (resume_matches(fgl_algo_find("fedavg"), &cfg, cd, 5, 3, NULL, &same, why, sizeof why))
        FT_CHECK(same, "a resumed run with partial participation differs: %s", why);
    fgl_scenario_free(&sc);
}

/* --- idle clients packed (cfg.park_idle) ------------------------------------------ */

/* Unpack every client of run; the number that were packed. */
static int unpark_all(fgl_run *run) {
    int i, n = 0;
    for (i = 0; i < run->n_clients; i++) {
        n += run->clients[i].parked_len > 0;
        FT_CHECK(fgl_run_unpark(run, i) == FGL_OK && run->clients[i].model.params.data, "client %d: unpark: %s", i,
                 run->err.msg);
    }
    return n;
}

/* fgl_run_client_params on every client of run, packed or resident, gives
 * the bits of kept's models (a run with the same history, nothing packed),
 * and leaves a packed client packed; the algorithm's report (FED-PUB's reads
 * every client's masks) is kept's; no such client: FGL_ERR_ARG. */
static void client_params_match(const fgl_run *run, const fgl_run *kept) {
    char a[8192] = "", b[8192] = "";
    int i, packed_seen = 0;
    for (i = 0; i < run->n_clients; i++) {
        size_t n = kept->clients[i].model.params.size, packed = run->clients[i].parked_len;
        float *buf = (float *)malloc(sizeof(float) * (n ? n : 1));
        int rc = buf ? fgl_run_client_params(run, i, buf, n ? n : 1, NULL) : FGL_ERR_NOMEM;
        FT_CHECK(rc == FGL_OK && run->clients[i].model.params.size == n &&
                     !memcmp(buf, kept->clients[i].model.params.data, sizeof(float) * n) && run->clients[i].parked_len == packed,
                 "%s: client %d's parameters (%s, rc %d)", run->algo.name, i, packed ? "packed" : "resident", rc);
        packed_seen += packed > 0;
        free(buf);
    }
    FT_CHECK(packed_seen > 0, "%s: no client packed", run->algo.name);
    FT_CHECK(fgl_run_client_params(run, -1, NULL, 0, NULL) == FGL_ERR_ARG &&
                 fgl_run_client_params(run, run->n_clients, NULL, 0, NULL) == FGL_ERR_ARG,
             "%s: no such client: FGL_ERR_ARG", run->algo.name);
    { /* an output too small is refused, saying how many floats the client has */
        fgl_error e;
        float one = 0;
        size_t n0 = run->clients[0].model.params.size;
        char want[32];
        snprintf(want, sizeof want, "%zu", n0);
        FT_CHECK(n0 > 1 && fgl_run_client_params(run, 0, &one, 1, &e) == FGL_ERR_ARG && strstr(e.msg, want) && one == 0,
                 "%s: an output of 1 float for %zu parameters: %s", run->algo.name, n0, e.msg);
    }
    if (kept->algo.report) {
        fgl_run_report(kept, a, sizeof a);
        fgl_run_report(run, b, sizeof b);
        FT_CHECK(!strcmp(a, b), "%s: the report with packed clients: '%s', not '%s'", run->algo.name, b, a);
    }
}

/* Every registered algorithm with 2 of 5 clients per round: packing the idle
 * ones (cfg.park_idle) changes no bit of the history, the models or any
 * state entry, straight (packed in memory) or saved with clients packed in
 * the park file and resumed the same way; and the packing is real (idle
 * clients hold no parameter array; with park_idle 2 no packed state in
 * memory either) and compact (a client that has not trained packs its
 * model, equal to the initial one, and its zero moments in a byte per run
 * of up to 64 blocks of 64 floats); fgl_run_client_params reads a packed
 * client's model without unpacking it. */
static void test_parked_clients_change_nothing(void) {
    fgl_scenario nsc, gsc;
    fgl_client_data ncd[5], gcd[5];
    int a, n = fgl_algo_count();
    if (!ft_node_clients(&nodes, 5, 16, &nsc, ncd)) return;
    if (!ft_graph_clients(&graphs, 5, 1.0, 30, 7, &gsc, gcd)) {
        fgl_scenario_free(&nsc);
        return;
    }
    for (a = 0; a < n; a++) {
        const fgl_algo *algo = fgl_algo_at(a);
        int graph = !strcmp(algo->name, "fedstar") || !strcmp(algo->name, "gpfl"), same = 0, cut = 2, r, i;
        fgl_fed_config cfg = fgl_fed_default(graph ? FGL_TASK_GRAPH : FGL_TASK_NODE);
        const char *const *sets = loop_sets(algo->name);
        fgl_client_data *cd = graph ? gcd : ncd;
        fgl_run kept, parked, part, resumed;
        fgl_error err;
        char why[128] = "", path[256];
        cfg.rounds = 4;
        cfg.local_epochs = 2;
        cfg.frac = 0.4f;
        if (graph) {
            cfg.batch_size = 16;
            cfg.optim.lr = 0.01f;
        }
        if (!ft_run_algo(&kept, &cfg, algo, cd, 5, cfg.rounds, sets)) continue;
        cfg.park_idle = 1;
        if (ft_run_algo(&parked, &cfg, algo, cd, 5, cfg.rounds, sets)) {
            int idle = 0, packed = 0;
            for (i = 0; i < 5; i++) {
                int k, next = 0;
                for (k = 0; k < parked.n_part; k++) next |= parked.part[k] == i;
                idle += !next;
                packed += !next && parked.clients[i].parked_len && parked.clients[i].parked && !parked.clients[i].model.params.data;
            }
            FT_CHECK(idle == 3 && packed == 3, "%s: %d of %d idle clients packed", algo->name, packed, idle);
            client_params_match(&parked, &kept);
            unpark_all(&parked);
            same = ft_same_run(&kept, &parked, why, sizeof why);
            FT_CHECK(same, "%s: packing idle clients changed the run: %s", algo->name, why);
            fgl_run_free(&parked);
        }
        tmp_path(path, sizeof path, "parked", cd);
        cfg.park_idle = 2; /* saved and resumed with the packed states in a temporary file */
        if (ft_run_algo(&part, &cfg, algo, cd, 5, cut, sets)) {
            int on_disk = 0, ok;
            for (i = 0; i < 5; i++) on_disk += part.clients[i].parked_len > 0 && !part.clients[i].parked;
            FT_CHECK(on_disk == 3 && part.park_file, "%s: %d of 3 idle clients packed to the file", algo->name, on_disk);
            ok = fgl_run_save(&part, path, &err) == FGL_OK;
            FT_CHECK(ok, "%s: save with packed clients: %s", algo->name, err.msg);
            fgl_run_free(&part);
            if (ok && ft_run_algo(&resumed, &cfg, algo, cd, 5, 0, sets)) {
                ok = fgl_run_load(&resumed, path, &err) == FGL_OK;
                FT_CHECK(ok, "%s: load with packed clients: %s", algo->name, err.msg);
                for (r = cut; ok && r < cfg.rounds; r++) ok = fgl_run_round(&resumed) == FGL_OK;
                FT_CHECK(ok, "%s: resumed: %s", algo->name, resumed.err.msg);
                if (ok) {
                    client_params_match(&resumed, &kept); /* packed in the park file */
                    unpark_all(&resumed);
                    same = ft_same_run(&kept, &resumed, why, sizeof why);
                    FT_CHECK(same, "%s: saved with packed clients and resumed, the run differs: %s", algo->name, why);
                }
                fgl_run_free(&resumed);
            }
            remove(path);
        }
        fgl_run_free(&kept);
    }
    { /* compact: at the start, FedAvg's idle clients hold the initial model and zero moments: one run per
       * 64 blocks of each array (this model's initial values have no all-zero block, which would start a
       * run of its own) */
        fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
        fgl_run run;
        cfg.frac = 0.4f;
        cfg.park_idle = 1;
        if (ft_run_rounds(&run, &cfg, "fedavg", ncd, 5, 0, NULL) && fgl_run_start(&run) == FGL_OK) {
            size_t P = run.clients[0].model.params.size, runs = ((P + 63) / 64 + 63) / 64;
            int i, small = 0;
            for (i = 0; i < 5; i++) small += run.clients[i].parked && run.clients[i].parked_len == 3 * runs;
            FT_CHECK(small == 3, "%d of 3 idle clients packed in 3 x %zu bytes (%zu floats each)", small, runs, P);
            fgl_run_free(&run);
        }
    }
    fgl_scenario_free(&nsc);
    fgl_scenario_free(&gsc);
}

/* The run's tape arenas: those it holds and those its clients hold, sorted. */
static int arenas_of(const fgl_run *run, const void **out, int cap) {
    int i, j, n = 0;
    for (i = 0; i < run->n_arenas && n < cap; i++) out[n++] = run->arenas[i];
    for (i = 0; i < run->n_clients && n < cap; i++)
        if (run->clients[i].tape.chunk) out[n++] = run->clients[i].tape.chunk;
    for (i = 1; i < n; i++) /* insertion sort: a handful */
        for (j = i; j > 0 && (uintptr_t)out[j - 1] > (uintptr_t)out[j]; j--) {
            const void *t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

/* With 2 of 5 clients per round, an idle client's tape arena goes to the
 * run, which lends it to the next client that trains or evaluates: after
 * each round every idle client's tape holds no arena and the run holds at
 * most its capacity; no arena is ever freed (each round's arenas include
 * the round before's) and a new one comes only when all are in use (at
 * most 2 x 2 + 1: this round's participants, the next round's, evaluated
 * before they train, and one idle client evaluated at a time on one
 * thread); and a run whose pool is off (capacity 0: idle arenas freed)
 * gives the same history and models bit for bit. Resident and packed. */
static void test_idle_arenas_lent(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    int park;
    if (!ft_node_clients(&nodes, 5, 16, &sc, cd)) return;
    for (park = 0; park <= 1; park++) {
        fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
        fgl_run pooled, plain;
        char why[128] = "";
        const void *first[16], *now[16];
        int r, i, ok = 1, n_first = 0;
        cfg.frac = 0.4f;
        cfg.rounds = 6;
        cfg.park_idle = park;
        cfg.threads = 1; /* one arena in use at a time in evaluation, whatever the schedule */
        if (!ft_run_rounds(&pooled, &cfg, "fedavg", cd, 5, 0, NULL)) continue;
        if (!ft_run_rounds(&plain, &cfg, "fedavg", cd, 5, 0, NULL)) {
            fgl_run_free(&pooled);
            continue;
        }
        plain.cap_arenas = 0;
        for (r = 0; ok && r < cfg.rounds; r++) {
            int k, bare = 0, idle = 0, n_now;
            ok = fgl_run_round(&pooled) == FGL_OK && fgl_run_round(&plain) == FGL_OK;
            FT_CHECK(ok, "park %d, round %d: %s%s", park, r + 1, pooled.err.msg, plain.err.msg);
            if (!ok) break;
            for (i = 0; i < 5; i++) {
                int next = 0;
                for (k = 0; k < pooled.n_part; k++) next |= pooled.part[k] == i;
                idle += !next;
                bare += !next && pooled.clients[i].tape.chunk == NULL;
            }
            FT_CHECK(bare == idle, "park %d, round %d: %d of %d idle clients still hold an arena", park, r + 1,
                     idle - bare, idle);
            FT_CHECK(pooled.n_arenas >= 1 && pooled.n_arenas <= pooled.cap_arenas,
                     "park %d, round %d: the run holds %d arenas (capacity %d)", park, r + 1, pooled.n_arenas,
                     pooled.cap_arenas);
            FT_CHECK(plain.n_arenas == 0, "park %d: a run without a pool holds %d arenas", park, plain.n_arenas);
            n_now = arenas_of(&pooled, now, 16);
            FT_CHECK(n_now <= 2 * 2 + 1, "park %d, round %d: %d arenas for 2 clients a round", park, r + 1, n_now);
            for (i = 0; i < n_first; i++) { /* both sorted */
                int j = 0;
                while (j < n_now && (uintptr_t)now[j] < (uintptr_t)first[i]) j++;
                if (j == n_now || now[j] != first[i]) break;
            }
            FT_CHECK(i == n_first, "park %d, round %d: an arena of the round before was freed", park, r + 1);
            memcpy(first, now, sizeof(void *) * (size_t)n_now);
            n_first = n_now;
        }
        if (ok && park) {
            unpark_all(&pooled);
            unpark_all(&plain);
        }
        FT_CHECK(!ok || ft_same_run(&pooled, &plain, why, sizeof why), "park %d: lending idle arenas changed the run: %s",
                 park, why);
        fgl_run_free(&pooled);
        fgl_run_free(&plain);
    }
    fgl_scenario_free(&sc);
}

/* --- what clients send --------------------------------------------------------------- */

/* FedAvg variants whose client 1 uploads NaN, client 2 a part of the wrong
 * size, client 3 a negative sample count, client 4 more samples than it
 * registered: the server must leave each out, charge it to that client,
 * and go on with client 0. */
static int bad_upload(fgl_client *c) {
    if (c->id == 1) fgl_up(c, "theta")[7] = NAN;
    if (c->id == 2) c->up.len[0] -= 3;
    if (c->id == 3) fgl_up(c, "n")[0] = -5;
    if (c->id == 4) fgl_up(c, "n")[0] = (float)(c->n_train + 1);
    return FGL_OK;
}

static void test_bad_uploads_are_rejected(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_algo bad = fgl_algo_base("fedavg");
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run run;
    fgl_run_summary s;
    ft_seen up;
    int r, i;
    if (!ft_node_clients(&nodes, 5, 32, &sc, cd)) return;
    bad.upload = bad_upload;
    cfg.rounds = ft_quick() ? 3 : 10;
    if (ft_run_algo_seen(&run, &cfg, &bad, cd, 5, cfg.rounds, &up)) {
        fgl_run_summarize(&run, &s);
        FT_CHECK(s.rejected == 4 * cfg.rounds, "4 bad uploads x %d rounds must be rejected, counted %d", cfg.rounds, s.rejected);
        FT_CHECK(run.rejected_by[0] == 0, "the honest client was charged %d rejections", run.rejected_by[0]);
        for (i = 1; i < 5; i++) FT_CHECK(run.rejected_by[i] == cfg.rounds, "client %d charged %d times", i, run.rejected_by[i]);
        FT_CHECK(run.stats[2].n_rejected == 4, "round 3 rejected %d", run.stats[2].n_rejected);
        FT_CHECK(fgl_run_accepted(&run, 0) && !fgl_run_accepted(&run, 1) && !fgl_run_accepted(&run, 4), "acceptance flags");
        for (r = 0; r < cfg.rounds; r++)
            FT_CHECK(run.stats[r].train_loss == run.client_loss[(size_t)r * 5], "round %d: the mean loss (%g) is client 0's "
                     "(%g), the rejected ones left out", r, run.stats[r].train_loss, run.client_loss[(size_t)r * 5]);
        for (i = 0; i < run.n_clients; i++) /* nothing was averaged in: every model stays finite */
            FT_CHECK(fgl_all_finite(run.clients[i].model.params.size, run.clients[i].model.params.data),
                     "client %d's model holds NaN", i);
        /* the server's model is client 0's upload alone, bit for bit: the others never counted */
        FT_CHECK(up.theta[0] && memcmp(fgl_floats(&run.server.store, "global"), up.theta[0],
                                       sizeof(float) * run.clients[0].n_shared) == 0, "the rejected uploads leaked into the average");
        ft_seen_free(&up);
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

/* A hook's error stops the run with a message naming the round and the
 * client or the server. */
static int failing_upload(fgl_client *c) { return c->id == 3 && c->round == 1 ? fgl_client_fail(c, FGL_ERR_ARG, "boom") : FGL_OK; }
static int failing_aggregate(fgl_server *s) { return s->round == 2 ? fgl_server_fail(s, FGL_ERR_RANGE, "bang") : FGL_OK; }

static void test_hook_errors_are_reported(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_algo a = fgl_algo_base("fedavg");
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run run;
    fgl_error err;
    if (!ft_node_clients(&nodes, 5, 16, &sc, cd)) return;
    cfg.rounds = 4;
    a.upload = failing_upload;
    if (fgl_run_init(&run, &cfg, &a, cd, 5, &err) == FGL_OK) {
        FT_CHECK(fgl_run_round(&run) == FGL_OK, "round 1: %s", run.err.msg);
        FT_CHECK(fgl_run_round(&run) == FGL_ERR_ARG && strstr(run.err.msg, "round 2") && strstr(run.err.msg, "client 3") &&
                     strstr(run.err.msg, "boom"), "client error: %s", run.err.msg);
        fgl_run_free(&run);
    }
    a = fgl_algo_base("fedavg");
    a.aggregate = failing_aggregate;
    if (fgl_run_init(&run, &cfg, &a, cd, 5, &err) == FGL_OK) {
        FT_CHECK(fgl_run_round(&run) == FGL_OK && fgl_run_round(&run) == FGL_OK, "rounds 1-2: %s", run.err.msg);
        FT_CHECK(fgl_run_round(&run) == FGL_ERR_RANGE && strstr(run.err.msg, "round 3") && strstr(run.err.msg, "server") &&
                     strstr(run.err.msg, "bang"), "server error: %s", run.err.msg);
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

/* An empty round's one meaning (fgl_algo.aggregate): a hook that returns
 * FGL_ERR_EMPTY leaves the server's state as it is and the run goes on; the
 * clients then train from the unchanged global model. */
static int empty_aggregate(fgl_server *s) {
    (void)s;
    return FGL_ERR_EMPTY;
}
static void test_empty_round(void) {
    fgl_scenario sc;
    fgl_client_data cd[3];
    fgl_algo a = fgl_algo_base("fedavg");
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run run;
    fgl_error err;
    float *init;
    if (!ft_node_clients(&nodes, 3, 8, &sc, cd)) return;
    cfg.rounds = 3;
    a.aggregate = empty_aggregate;
    if (fgl_run_init(&run, &cfg, &a, cd, 3, &err) == FGL_OK) {
        int r, ok = 1;
        for (r = 0; r < 3 && ok; r++) ok = fgl_run_round(&run) == FGL_OK;
        FT_CHECK(ok && run.round == 3, "an aggregate hook returning FGL_ERR_EMPTY stopped the run: %s", run.err.msg);
        init = (float *)malloc(sizeof(float) * run.server.n_shared);
        if (init) {
            fgl_server_pack(&run.server, run.server.init, init);
            FT_CHECK(!memcmp(init, fgl_floats(&run.server.store, "global"), sizeof(float) * run.server.n_shared),
                     "after three empty rounds the global model is not the initial one");
            free(init);
        }
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

/* A user's algorithm: registered by name, found, run; its optional part
 * left out costs no bytes; a name is registered once. */
static int sometimes_upload(fgl_client *c) {
    float *x = fgl_up(c, "extra");
    if (c->round % 2) fgl_up_drop(c, "extra");
    else x[0] = x[1] = 1.0f;
    return FGL_OK;
}

static void test_user_algorithm(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_algo mine = fgl_algo_base("fedavg");
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run run;
    size_t n;
    if (!ft_node_clients(&nodes, 5, 16, &sc, cd)) return;
    mine.name = "test-mine";
    mine.summary = "FedAvg with an optional two-float part";
    fgl_algo_upload(&mine, "extra", FGL_SEND_DATA, 2, 1, FGL_PART_OPTIONAL);
    mine.upload = sometimes_upload;
    FT_CHECK(fgl_algo_register(&mine) == FGL_OK, "register");
    FT_CHECK(fgl_algo_register(&mine) == FGL_ERR_ARG, "a name registers once");
    FT_CHECK(fgl_algo_find("test-mine") && fgl_algo_find("test-mine")->n_up == 3, "found by name with its declaration");
    FT_CHECK(fgl_algo_shares_weights(fgl_algo_find("test-mine")) && !fgl_algo_shares_weights(fgl_algo_find("fedproto")),
             "weights travel in fedavg's messages, not in fedproto's");
    cfg.rounds = 4;
    if (ft_run_rounds(&run, &cfg, "test-mine", cd, 5, 4, NULL)) {
        n = run.clients[0].n_shared;
        FT_CHECK(run.stats[0].bytes_up == 5 * 4 * (n + 1 + 2) && run.stats[1].bytes_up == 5 * 4 * (n + 1),
                 "bytes up %zu / %zu: the optional part counts only when sent", run.stats[0].bytes_up, run.stats[1].bytes_up);
        FT_CHECK(run.rejected_total == 0, "an absent optional part is no reason to reject");
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

/* A parameter read under a name the algorithm does not declare (a
 * misspelling) fails the run with that name, in every build: at the start
 * when an init hook reads it, in the round when a training hook does. */
static int misspelt_init(fgl_client *c) { return fgl_get(c->set, "mu_") > 0 ? FGL_ERR_ARG : FGL_OK; }
static int misspelt_server_init(fgl_server *s) {
    return fgl_get(s->set, "mu") > 0 && fgl_get(s->set, "lr2") == 0 ? FGL_OK : FGL_ERR_ARG;
}
static int misspelt_grad(fgl_client *c, const fgl_step *st) {
    return fgl_get(c->set, st->epoch > 0 ? "mu" : "mu2") >= 0 ? FGL_OK : FGL_ERR_ARG;
}
static void test_misspelt_parameter(void) {
    fgl_scenario sc;
    fgl_client_data cd[3];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_algo a = fgl_algo_base("fedprox");
    fgl_run run;
    fgl_error err;
    int rc, i;
    if (!ft_node_clients(&nodes, 3, 8, &sc, cd)) return;
    cfg.rounds = 2;
    for (i = 0; i < 3; i++) {
        a = fgl_algo_base("fedprox");
        a.name = "misspelt";
        if (i == 0) a.client_init = misspelt_init;
        if (i == 1) a.server_init = misspelt_server_init;
        if (i == 2) a.train.grad = misspelt_grad;
        if (fgl_run_init(&run, &cfg, &a, cd, 3, &err) != FGL_OK) {
            FT_CHECK(0, "init: %s", err.msg);
            continue;
        }
        rc = fgl_run_round(&run);
        FT_CHECK(rc == FGL_ERR_ARG && strstr(run.err.msg, i == 0 ? "'mu_'" : i == 1 ? "'lr2'" : "'mu2'") &&
                     strstr(run.err.msg, "does not declare") && (i == 2 || run.round == 0),
                 "a misspelt parameter read by the %s: rc %d, round %d: %s", i == 0 ? "client init" : i == 1 ?
                 "server init" : "gradient hook", rc, run.round, run.err.msg);
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

/* cfg.plugin: a name the plug-in list does not have, a name that is not a
 * string, an argument that is not finite: refused at init, nothing run. */
static void test_plugin_by_name(void) {
    fgl_scenario sc;
    fgl_client_data cd[3];
    fgl_run run;
    fgl_error err;
    int k;
    if (!ft_node_clients(&nodes, 3, 8, &sc, cd)) return;
    for (k = 0; k < 3; k++) {
        fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
        const char *want = k == 0 ? "no plug-in named 'nosuch'" : k == 1 ? "not a string" : "not a finite number";
        int rc;
        cfg.rounds = 1;
        if (k == 0) FT_CHECK(fgl_plugin_parse("nosuch:2", &cfg.plugin, &err) == FGL_OK, "parse: %s", err.msg);
        if (k == 1) memset(cfg.plugin.name, 'a', sizeof cfg.plugin.name); /* no NUL */
        if (k == 2) {
            strcpy(cfg.plugin.name, "nosuch");
            cfg.plugin.arg = NAN;
        }
        rc = fgl_run_init(&run, &cfg, fgl_algo_find("fedavg"), cd, 3, &err);
        FT_CHECK(rc == FGL_ERR_ARG && strstr(err.msg, want), "plug-in case %d refused: %s", k, rc ? err.msg : "(ran)");
        if (rc == FGL_OK) fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

/* The names before the naming rule (README, "Names") still compile and
 * are the new ones. */
static void test_old_names(void) {
    fgl_fed_config a = fgl_fed_config_default(FGL_TASK_GRAPH), b = fgl_fed_default(FGL_TASK_GRAPH);
    fgl_dataset_options d = fgl_dataset_default();
    fgl_dataset_config e = fgl_dataset_default();
    fgl_link_options l = fgl_link_options_default();
    fgl_link_config m = fgl_link_default();
    fgl_partition_options p = fgl_partition_default();
    fgl_partition_config q = fgl_partition_default();
    struct fgl_link_options *tagged = &m; /* the old struct tag names the same struct */
    FT_CHECK(tagged == &m && !memcmp(&a, &b, sizeof a) && !memcmp(&d, &e, sizeof d) && !memcmp(&l, &m, sizeof l) &&
                 !memcmp(&p, &q, sizeof p),
             "the old names give the new defaults");
}

/* Typed parameters and state: a program's algorithm written the built-ins'
 * way. Its parameters are a struct's members (FGL_ALGO_PARAM) read through
 * FGL_PARAMS; its client state is a struct of pointers to its entries, made
 * in the init hook (FGL_NEW_STATE) and read in the later hooks
 * (FGL_STATE). (A program that extends a built-in table adds parameters and
 * state by name instead: the built-ins' structs are not public.) */
typedef struct {
    double boost;    /* added to each count */
    int every;       /* count every `every` rounds */
    unsigned groups; /* a group list, read back */
} tp_params;
typedef struct {
    int *rounds;  /* "rounds": counted in the upload hook */
    float *total; /* "total": the sum of 1 + boost over the counted rounds */
} tp_client;

static int tp_client_init(fgl_client *c) {
    tp_client *st = FGL_NEW_STATE(tp_client, &c->store);
    if (!st) return FGL_ERR_NOMEM;
    st->rounds = fgl_new_ints(&c->store, "rounds", 1);
    st->total = fgl_new_floats(&c->store, "total", 1);
    return c->store.err.code;
}

static int tp_upload(fgl_client *c) {
    const tp_params *p = FGL_PARAMS(tp_params, c->set);
    tp_client *st = FGL_STATE(tp_client, &c->store);
    if (c->round % p->every == 0) {
        st->rounds[0]++;
        st->total[0] += (float)(1 + p->boost);
    }
    return FGL_OK;
}

static int tp_server_init_by_name(fgl_server *s) {
    return fgl_server_global(s, "global") ? FGL_OK : FGL_ERR_NOMEM;
}

static int tp_aggregate_by_name(fgl_server *s) { return fgl_server_mean(s, "theta", fgl_floats(&s->store, "global")); }

static void test_typed_parameters_and_state(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_algo a = fgl_algo_new("typed", "counts rounds in typed state");
    fgl_run run;
    fgl_error err;
    const tp_params *p;
    int i;
    FGL_ALGO_PARAM(&a, tp_params, boost, FGL_PARAM_FLOAT, 0.25, "added to each count");
    FGL_ALGO_PARAM(&a, tp_params, every, FGL_PARAM_INT, 1, "count every this many rounds");
    FGL_ALGO_PARAM(&a, tp_params, groups, FGL_PARAM_GROUPS, (double)FGL_G_HEAD, "a group list");
    a.client_init = tp_client_init;
    a.upload = tp_upload;
    FT_CHECK(a.params_size == sizeof(tp_params) && a.n_params == 3 && a.params[0].member == 1 &&
                 a.params[1].member == offsetof(tp_params, every) + 1,
             "the rows name their members: %d parameters, a struct of %zu bytes", a.n_params, a.params_size);
    if (!ft_node_clients(&nodes, 5, 16, &sc, cd)) return;
    cfg.rounds = 4;
    if (fgl_run_init(&run, &cfg, &a, cd, 5, &err)) {
        FT_CHECK(0, "init: %s", err.msg);
        fgl_scenario_free(&sc);
        return;
    }
    p = FGL_PARAMS(tp_params, &run.set);
    FT_CHECK(p->boost == (double)0.25f && p->every == 1 && p->groups == FGL_G_HEAD,
             "the defaults, typed: boost %g every %d groups %u", p->boost, p->every, p->groups);
    FT_CHECK(fgl_run_set(&run, "every", "2", &err) == FGL_OK && fgl_run_set(&run, "boost", "0.5", &err) == FGL_OK &&
                 fgl_run_set(&run, "groups", "conv+head", &err) == FGL_OK,
             "set: %s", err.msg);
    FT_CHECK(p->every == 2 && p->boost == 0.5 && p->groups == (FGL_G_CONV | FGL_G_HEAD) &&
                 fgl_get(&run.set, "every") == 2,
             "fgl_run_set refills the struct: every %d boost %g", p->every, p->boost);
    for (i = 0; i < cfg.rounds; i++) FT_CHECK(fgl_run_round(&run) == FGL_OK, "round %d: %s", i + 1, run.err.msg);
    for (i = 0; i < 5; i++) {
        const tp_client *st = FGL_STATE(tp_client, &run.clients[i].store);
        FT_CHECK(st->rounds == fgl_ints(&run.clients[i].store, "rounds") && st->rounds[0] == 2 &&
                     st->total[0] == 3.0f,
                 "client %d: the state read by member is the named entry: %d rounds counted, total %g", i,
                 st->rounds[0], st->total[0]);
    }
    fgl_run_free(&run);
    { /* a program replacing FedAvg's server init (making "global" by name) but keeping its aggregate, which reads
       * FedAvg's typed state: refused at the start, not left to read none */
        fgl_algo b = fgl_algo_base("fedavg");
        b.name = "own-init";
        b.server_init = tp_server_init_by_name;
        cfg.rounds = 1;
        FT_CHECK(fgl_run_init(&run, &cfg, &b, cd, 5, &err) == FGL_OK, "init: %s", err.msg);
        FT_CHECK(fgl_run_round(&run) == FGL_ERR_ARG && strstr(run.err.msg, "own-init: its server_init replaces fedavg's") &&
                     strstr(run.err.msg, "call fedavg's server_init"),
                 "a replaced init that leaves no typed state is refused: %s", run.err.msg);
        fgl_run_free(&run);
        b.aggregate = tp_aggregate_by_name; /* its own aggregate too: nothing of FedAvg's reads the state */
        FT_CHECK(fgl_run_init(&run, &cfg, &b, cd, 5, &err) == FGL_OK && fgl_run_round(&run) == FGL_OK,
                 "with its own aggregate too it runs: %s", run.err.msg);
        fgl_run_free(&run);
    }
    { /* a base's struct extended: what its init filled is kept */
        fgl_store st;
        tp_client *small, *again;
        struct {
            tp_client base;
            float *more;
        } *ext;
        fgl__store_init(&st, 0);
        small = FGL_NEW_STATE(tp_client, &st);
        small->total = fgl_new_floats(&st, "total", 3);
        again = FGL_NEW_STATE(tp_client, &st);
        ext = fgl_new_state(&st, sizeof *ext);
        FT_CHECK(again == small && ext && ext->base.total == fgl_floats(&st, "total") && ext->more == NULL &&
                     st.state_size == sizeof *ext,
                 "FGL_NEW_STATE again: the same struct; larger: its prefix kept, the rest zero");
        fgl__store_free(&st);
    }
    fgl_scenario_free(&sc);
}

static void test_parameters_and_errors(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run run;
    fgl_error err;
    unsigned g;
    char buf[64];
    FT_CHECK(fgl_groups_parse("all-head", &g) == FGL_OK && g == (FGL_G_ALL & ~(unsigned)FGL_G_HEAD), "all-head");
    fgl_groups_format(g, buf, sizeof buf);
    FT_CHECK(!strcmp(buf, "all-head"), "formats as all-head: %s", buf);
    FT_CHECK(fgl_groups_parse("conv+struct", &g) == FGL_OK && g == (FGL_G_CONV | FGL_G_STRUCT), "conv+struct");
    FT_CHECK(fgl_groups_parse("convv", &g) == FGL_ERR_ARG, "unknown group");
    FT_CHECK(fgl_algo_find("nope") == NULL, "unknown algorithm");
    { /* the registry starts with the built-ins of src/fed/algos/list.h, in its order, each table named as in the list */
#define NAME_OF(name, file) #name,
        static const char *const builtin[] = {FGL__ALGORITHMS(NAME_OF)};
#undef NAME_OF
        int i, n = (int)(sizeof builtin / sizeof builtin[0]);
        FT_CHECK(n == 33 && fgl_algo_count() >= n, "%d built-ins, %d registered", n, fgl_algo_count());
        for (i = 0; i < n && i < fgl_algo_count(); i++)
            FT_CHECK(!strcmp(fgl_algo_at(i)->name, builtin[i]) && fgl_algo_find(builtin[i]) == fgl_algo_at(i),
                     "built-in %d: %s, not %s", i, fgl_algo_at(i)->name, builtin[i]);
    }
    if (!ft_node_clients(&nodes, 5, 16, &sc, cd)) return;
    cfg.rounds = 2;
    FT_CHECK(fgl_run_init(&run, &cfg, fgl_algo_find("fedprox"), cd, 5, &err) == FGL_OK, "init");
    FT_CHECK(fgl_run_get(&run, "mu") == (double)0.01f, "published default mu 0.01: %g", fgl_run_get(&run, "mu"));
    FT_CHECK(fgl_run_set(&run, "mu", "0.5", &err) == FGL_OK, "mu: %s", err.msg);
    FT_CHECK(fgl_run_get(&run, "mu") == 0.5, "mu stored");
    FT_CHECK(fgl_run_set(&run, "mu", "abc", &err) == FGL_ERR_PARSE && strstr(err.msg, "mu"), "bad number: %s", err.msg);
    FT_CHECK(fgl_run_set(&run, "tau", "3", &err) == FGL_ERR_ARG && strstr(err.msg, "tau"), "foreign key: %s", err.msg);
    FT_CHECK(fgl_run_set(&run, "share", "conv+head", &err) == FGL_OK, "share");
    FT_CHECK(fgl_run_round(&run) == FGL_OK, "round: %s", run.err.msg);
    FT_CHECK(run.clients[0].n_shared == fgl_params_count(&run.clients[0].model.params, FGL_G_CONV | FGL_G_HEAD),
             "share=conv+head sends the convolutions and the head");
    FT_CHECK(fgl_run_set(&run, "mu", "1", &err) == FGL_ERR_ARG, "setting after the start is refused");
    fgl_run_free(&run);
    cfg.rounds = 0;
    FT_CHECK(fgl_run_init(&run, &cfg, fgl_algo_find("fedavg"), cd, 5, &err) == FGL_ERR_ARG, "0 rounds");
    { /* the configuration's ranges, refused by fgl_run_init with the field named */
        static const struct { const char *field, *says; } bad[] = {
            {"lr -1", "learning rate"}, {"lr nan", "learning rate"}, {"weight decay -1", "weight_decay"},
            {"frac 0", "frac"}, {"frac 1.5", "frac"}, {"local epochs -1", "local_epochs"}, {"batch -1", "batch_size"},
            {"rounds 0", "rounds"}, {"beta1 1", "beta1"}, {"park_idle 3", "park_idle"}, {"screen -1", "screen"},
            {"attackers 2", "attack"}, {"optimizer 7", "optim"}};
        size_t k;
        for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            fgl_fed_config c = fgl_fed_default(FGL_TASK_NODE);
            int rc;
            c.rounds = 2;
            switch (k) {
            case 0: c.optim.lr = -1; break;
            case 1: c.optim.lr = NAN; break;
            case 2: c.optim.weight_decay = -1; break;
            case 3: c.frac = 0; break;
            case 4: c.frac = 1.5f; break;
            case 5: c.local_epochs = -1; break;
            case 6: c.batch_size = -1; break;
            case 7: c.rounds = 0; break;
            case 8: c.optim.beta1 = 1; break;
            case 9: c.park_idle = 3; break;
            case 10: c.robust.screen = -1; break;
            case 11: c.attack.kind = FGL_ATTACK_SIGNFLIP, c.attack.frac = 2; break;
            default: c.optim.kind = 7; break;
            }
            rc = fgl_run_init(&run, &c, fgl_algo_find("fedavg"), cd, 5, &err);
            FT_CHECK(rc == FGL_ERR_ARG && strstr(err.msg, bad[k].says), "%s: refused naming %s: %s", bad[k].field,
                     bad[k].says, rc ? err.msg : "accepted");
            if (rc == FGL_OK) fgl_run_free(&run);
        }
    }
    { /* an algorithm that is not registered: the run's error names it, and suggests one */
        fgl_fed_config c = fgl_fed_default(FGL_TASK_NODE);
        FT_CHECK(fgl_run_init(&run, &c, fgl_algo_find("nope"), cd, 5, &err) == FGL_ERR_ARG &&
                     strstr(err.msg, "\"nope\"") && strstr(err.msg, "registered: local, fedavg"),
                 "an unknown algorithm named: %s", err.msg);
        FT_CHECK(fgl_run_init(&run, &c, fgl_algo_find("FedAvg"), cd, 5, &err) == FGL_ERR_ARG &&
                     strstr(err.msg, "FedAvg") && strstr(err.msg, "did you mean 'fedavg'"),
                 "FedAvg: 'did you mean fedavg': %s", err.msg);
        FT_CHECK(fgl_algo_suggest("FedAvg") && !strcmp(fgl_algo_suggest("FedAvg"), "fedavg") && fgl_algo_suggest("fedprx") &&
                     !strcmp(fgl_algo_suggest("fedprx"), "fedprox") && fgl_algo_suggest("scafold") &&
                     !strcmp(fgl_algo_suggest("scafold"), "scaffold") && !fgl_algo_suggest("zzz") && !fgl_algo_suggest("x"),
                 "suggestions: case, two edits at most, nothing for a name unlike any");
    }
    { /* a task the algorithm does not support: refused by fgl_run_init, before anything is built */
        static const char *const graph_only[] = {"fedstar", "gpfl"};
        fgl_fed_config c = fgl_fed_default(FGL_TASK_NODE);
        int k;
        for (k = 0; k < 2; k++)
            FT_CHECK(fgl_run_init(&run, &c, fgl_algo_find(graph_only[k]), cd, 5, &err) == FGL_ERR_ARG &&
                         strstr(err.msg, graph_only[k]) && strstr(err.msg, "graph classification only") &&
                         strstr(err.msg, "client 0"),
                     "%s on a node task: %s", graph_only[k], err.msg);
    }
    fgl_scenario_free(&sc);
}

/* --- graph clients ------------------------------------------------------------------ */

/* One dataset per client with different feature widths: sharing everything
 * is refused with a message that says why; sharing the GNN layers works;
 * FedStar's structure encoder is shared across them. */
static void test_heterogeneous_graph_clients(void) {
    fgl_scenario sc;
    fgl_client_data cd[2];
    fgl_dataset two;
    fgl_split_config split = fgl_split_default();
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_GRAPH);
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GIN, FGL_TASK_GRAPH, 1, 1);
    fgl_error err;
    fgl_run run;
    const char *conv[] = {"share", "conv", NULL};
    const char *algos[] = {"local", "fedavg", "fedstar"};
    double bar;
    int a;
    memset(&two, 0, sizeof two);
    two.task = FGL_TASK_GRAPH;
    two.n_sets = 2;
    two.sets[0] = graphs.sets[0];
    two.sets[1] = graphs2.sets[0];
    snprintf(two.label, sizeof two.label, "two");
    FT_CHECK(two.sets[0].n_feat != two.sets[1].n_feat, "the test needs different feature widths");
    split.seed = 123;
    if (fgl_scenario_make(&sc, &two, &split, &err)) { /* `two` borrows: not freed */
        FT_CHECK(0, "scenario: %s", err.msg);
        return;
    }
    FT_CHECK(fgl_scenario_clients(&sc, &spec, cd, 1, &err) == FGL_ERR_ARG && strstr(err.msg, "2 entries"),
             "an output array of 1 for 2 clients: %s", err.msg);
    if (fgl_scenario_clients(&sc, &spec, cd, 2, &err)) {
        FT_CHECK(0, "scenario clients: %s", err.msg);
        fgl_scenario_free(&sc);
        return;
    }
    bar = ft_majority_baseline(&sc) + 0.02;
    cfg.rounds = 3;
    cfg.optim.lr = 0.01f; /* short runs: a larger step than the protocol's 1e-3 */
    FT_CHECK(fgl_run_init(&run, &cfg, fgl_algo_find("fedavg"), cd, 2, &err) == FGL_OK, "init: %s", err.msg);
    /* the shared layout depends on the parameter share: fgl_run_check, after fgl_run_set, refuses before anything is built */
    FT_CHECK(fgl_run_check(&run) == FGL_ERR_SHAPE && strstr(run.err.msg, "share") && !run.started &&
                 run.clients[0].model.params.size == 0,
             "share=all refused by fgl_run_check, nothing built: %s", run.err.msg);
    FT_CHECK(fgl_run_round(&run) == FGL_ERR_SHAPE && strstr(run.err.msg, "share"), "share=all must fail: %s", run.err.msg);
    fgl_run_free(&run);
    FT_CHECK(fgl_run_init(&run, &cfg, fgl_algo_find("fedavg"), cd, 2, &err) == FGL_OK &&
                 fgl_run_set(&run, "share", "conv", &err) == FGL_OK && fgl_run_check(&run) == FGL_OK,
             "share=conv passes fgl_run_check: %s %s", err.msg, run.err.msg);
    fgl_run_free(&run);
    { /* pFedGNN is for node tasks: refused by fgl_run_init on graph clients */
        FT_CHECK(fgl_run_init(&run, &cfg, fgl_algo_find("pfedgnn"), cd, 2, &err) == FGL_ERR_ARG &&
                     strstr(err.msg, "node classification only"),
                 "pfedgnn on a graph task: %s", err.msg);
    }
    for (a = 0; a < 3; a++) {
        fgl_run_summary s;
        cfg.rounds = ft_quick() ? 3 : 60;
        if (!ft_run_rounds(&run, &cfg, algos[a], cd, 2, cfg.rounds, a == 1 ? conv : NULL)) continue;
        fgl_run_summarize(&run, &s);
        /* The validation sets are small, so, as FedStar's protocol does, the
         * final round counts; the bar is the clients' majority classes. */
        if (!ft_quick())
            FT_CHECK(s.last_test > bar, "%s: mean final test accuracy %.3f, needs > %.3f", algos[a], s.last_test, bar);
        if (a == 2) { /* only the structure encoder travels */
            size_t st = fgl_params_count(&run.clients[0].model.params, FGL_G_STRUCT);
            FT_CHECK(run.stats[2].bytes_down == 2 * 4 * st && run.stats[2].bytes_up == 2 * 4 * (st + 1),
                     "fedstar bytes %zu / %zu, expected %zu / %zu", run.stats[2].bytes_up, run.stats[2].bytes_down,
                     2 * 4 * (st + 1), 2 * 4 * st);
            FT_CHECK(run.clients[0].model.spec.arch == FGL_ARCH_FEDSTAR && run.clients[0].model.spec.in_dim == two.sets[0].n_feat &&
                         run.clients[1].model.spec.in_dim == two.sets[1].n_feat, "fedstar models keep each client's input width");
        }
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

static void test_graph_dirichlet_fedavg(void) {
    fgl_scenario sc;
    fgl_client_data cd[3];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_GRAPH);
    fgl_run run;
    fgl_run_summary s;
    double bar;
    if (ft_quick()) FT_SKIP("an accuracy bar: make test's job");
    if (!ft_graph_clients(&graphs, 3, 1.0, 30, 7, &sc, cd)) return;
    bar = ft_majority_baseline(&sc) + 0.05;
    cfg.rounds = 60;
    cfg.batch_size = 32;
    cfg.optim.lr = 0.01f;
    if (ft_run_rounds(&run, &cfg, "fedavg", cd, 3, 60, NULL)) {
        /* Each client tests on a handful of graphs (one graph moves its
         * accuracy by several points), so the measure is the mean test
         * accuracy of the last 10 rounds, not of the last one alone. */
        double tail = 0;
        int r;
        fgl_run_summarize(&run, &s);
        for (r = 50; r < 60; r++) tail += run.stats[r].test_acc / 10;
        printf("#   FedAvg on %s over 3 clients: last round %.3f, last 10 rounds %.3f (bar %.3f)\n", graphs.label, s.last_test,
                tail, bar);
        FT_CHECK(tail > bar, "FedAvg on %s over 3 clients: mean of the last 10 rounds %.3f, needs > %.3f (majority + 0.05)",
                 graphs.label, tail, bar);
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

/* FedAvg's rule, recomputed from the uploads: after a round the server model
 * is the training-count-weighted mean of what the clients sent, and every
 * client's model holds it when the next round begins. One client's FedAvg is
 * Local, bit for bit. */
static int keep_uploads(fgl_server *s) {
    float *copy = fgl_floats(&s->store, "copy");
    int i;
    for (i = 0; i < s->n_clients; i++) {
        memcpy(copy + (size_t)i * (s->n_shared + 1), fgl_upload(s, i, "theta"), sizeof(float) * s->n_shared);
        copy[(size_t)i * (s->n_shared + 1) + s->n_shared] = fgl_upload(s, i, "n")[0];
    }
    return fgl_server_mean(s, "theta", fgl_floats(&s->store, "global"));
}
static int keep_init(fgl_server *s) {
    fgl_new_floats(&s->store, "copy", (size_t)s->n_clients * (s->n_shared + 1));
    fgl_params_pack(s->init, s->share, fgl_new_floats(&s->store, "global", s->n_shared));
    return s->store.err.code;
}

static void test_fedavg_rule(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_algo watched = fgl_algo_base("fedavg");
    fgl_run run;
    if (!ft_node_clients(&nodes, 5, 16, &sc, cd)) return;
    watched.server_init = keep_init;
    watched.aggregate = keep_uploads; /* fedavg's aggregation, keeping what it saw */
    cfg.rounds = 3;
    if (ft_run_algo(&run, &cfg, &watched, cd, 5, 2, NULL)) {
        const float *g = fgl_floats(&run.server.store, "global"), *up = fgl_floats(&run.server.store, "copy");
        size_t k, n = run.server.n_shared, bad = 0;
        double wsum = 0;
        int i;
        float *now = (float *)malloc(sizeof(float) * n);
        for (i = 0; i < 5; i++) wsum += up[(size_t)i * (n + 1) + n];
        FT_CHECK(n == run.clients[0].model.params.size, "server holds %zu floats, the model has %zu", n,
                 run.clients[0].model.params.size);
        for (k = 0; k < n; k++) {
            double acc = 0;
            for (i = 0; i < 5; i++) acc += (double)up[(size_t)i * (n + 1) + n] * up[(size_t)i * (n + 1) + k];
            bad += fabs(acc / wsum - g[k]) > 1e-6 * (1 + fabs(acc / wsum));
        }
        FT_CHECK(bad == 0, "%zu of %zu server values differ from the weighted mean of the uploads", bad, n);
        for (i = 0; i < 5; i++) FT_CHECK(up[(size_t)i * (n + 1) + n] == (float)run.clients[i].n_train, "client %d count", i);
        for (i = 0; i < 5 && now; i++) { /* every client holds the server model after the download */
            fgl_client_pack(&run.clients[i], &run.clients[i].model.params, now);
            FT_CHECK(memcmp(now, g, sizeof(float) * n) == 0 && fgl_received(&run.clients[i]) == g,
                     "client %d does not hold the average it received", i);
        }
        free(now);
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
    { /* one client */
        fgl_run a, b;
        if (!ft_node_clients(&nodes, 1, 16, &sc, cd)) return;
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
    real_nodes = ft_node_data(&nodes);
    real_graphs = ft_graph_data("MUTAG", 16, &graphs) && ft_graph_data("PTC_MR", 16, &graphs2);
    if (!real_graphs) { /* two synthetic sets whose node labels have different widths */
        fgl_dataset_free(&graphs);
        fgl_dataset_free(&graphs2);
        ft_synth_graphs(&graphs, 1, 4, 16);
        ft_synth_graphs(&graphs2, 2, 6, 16);
    }
    printf("# data: %s (%s), %s (%s)\n", nodes.label, real_nodes ? "real" : "synthetic", graphs.label,
           real_graphs ? "real, with PTC_MR" : "synthetic");
    FT_RUN(test_node_algorithms_run_and_count_bytes);
    FT_RUN(test_client_schedule);
    FT_RUN(test_alone_trial);
    FT_RUN(test_thread_count_does_not_change_bits);
    FT_RUN(test_side_by_side_grants);
    FT_RUN(test_big_client_same_bits);
    FT_RUN(test_eval_every);
    FT_RUN(test_every_algorithm_resumes_exactly);
    FT_RUN(test_unregistered_state_is_caught);
    FT_RUN(test_checkpoint_refusals);
    FT_RUN(test_empty_test_set);
    FT_RUN(test_graph_checkpoint_resume_is_exact);
    FT_RUN(test_partial_participation);
    FT_RUN(test_parked_clients_change_nothing);
    FT_RUN(test_idle_arenas_lent);
    FT_RUN(test_bad_uploads_are_rejected);
    FT_RUN(test_hook_errors_are_reported);
    FT_RUN(test_user_algorithm);
    FT_RUN(test_parameters_and_errors);
    FT_RUN(test_misspelt_parameter);
    FT_RUN(test_old_names);
    FT_RUN(test_typed_parameters_and_state);
    FT_RUN(test_plugin_by_name);
    FT_RUN(test_empty_round);
    FT_RUN(test_heterogeneous_graph_clients);
    FT_RUN(test_graph_dirichlet_fedavg);
    FT_RUN(test_fedavg_rule);
    fgl_dataset_free(&nodes);
    fgl_dataset_free(&graphs);
    fgl_dataset_free(&graphs2);
    return ft_finish();
}
