/* Tests of FedSage+ (fedsage):
 * - with no generated neighbours (num_pred = 0) it is FedAvg, bit for bit,
 *   bytes included;
 * - the mended graph holds the local graph plus k_v = min(P, round(n_v))
 *   generated nodes per node v (recomputed from the generator), each linked
 *   to v only, and its first rows are the client's own features;
 * - NeighGen's feature losses fall on data where missing neighbours'
 *   features are predictable (communities whose members share one feature
 *   vector), the cross-client term included;
 * - a checkpoint resumes bit for bit in the NeighGen phase and in the
 *   classifier phase;
 * - end to end on Cora (fgl's synthetic data where Cora is missing) over 3
 *   Louvain clients with GraphSage beside Local and FedAvg: it trains on
 *   graphs with generated nodes and scores within 5 points of FedAvg, with
 *   thread-count determinism.
 * Resuming (every algorithm) is also in test_fed.c, the defences'
 * covered-or-refused check in tests/test_defences_cover.sh. */
#include "../fgl_fed.h"
#include "ft.h"
#include "ft_fed.h"
#include <math.h>

static fgl_dataset nodes;

/* Small generator sizes keep the suite quick. */
static const char *const small[] = {"latent", "16", "gen_hidden", "32", "cross", "12", NULL};

static void test_no_generation_is_fedavg(void) {
    static const char *const none[] = {"num_pred", "0", NULL};
    fgl_scenario sc;
    fgl_client_data cd[3];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run a, b;
    if (!ft_clients(&nodes, 3, FGL_PART_LOUVAIN, FGL_ARCH_SAGE, 32, &sc, cd)) return;
    cfg.rounds = 4;
    cfg.local_epochs = 2;
    if (ft_run_rounds(&a, &cfg, "fedavg", cd, 3, 4, NULL)) {
        if (ft_run_rounds(&b, &cfg, "fedsage", cd, 3, 4, none)) {
            FT_CHECK(ft_same_history(&a, &b) && ft_same_models(&a, &b), "fedsage num_pred=0 differs from fedavg");
            FT_CHECK(a.bytes_up == b.bytes_up && a.bytes_down == b.bytes_down, "fedsage num_pred=0 sends what fedavg "
                     "sends (%.0f/%.0f up)", (double)b.bytes_up, (double)a.bytes_up);
            fgl_run_free(&b);
        }
        fgl_run_free(&a);
    }
    { /* and with generated neighbours it is not FedAvg (the check above can fail) */
        static const char *const gen[] = {"gen_rounds", "1", NULL};
        const char *sets[16];
        cfg.rounds = 4;
        if (ft_run_rounds(&a, &cfg, "fedavg", cd, 3, 3, NULL)) {
            if (ft_run_rounds(&b, &cfg, "fedsage", cd, 3, 4, ft_join(small, gen, sets, 16))) {
                FT_CHECK(!ft_same_models(&a, &b), "fedsage with generated neighbours equals fedavg");
                fgl_run_free(&b);
            }
            fgl_run_free(&a);
        }
    }
    fgl_scenario_free(&sc);
}

static void test_mended_graph(void) {
    /* 2 x 10 steps at a higher rate: dGen predicts some missing neighbours by then */
    static const char *const gen[] = {"gen_rounds", "2", "num_pred", "3", "gen_steps", "10", "gen_lr", "0.01", NULL};
    const char *sets[16];
    fgl_scenario sc;
    fgl_client_data cd[3];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run run;
    int i;
    if (!ft_clients(&nodes, 3, FGL_PART_LOUVAIN, FGL_ARCH_SAGE, 32, &sc, cd)) return;
    cfg.rounds = 3;
    cfg.local_epochs = 1;
    if (!ft_run_rounds(&run, &cfg, "fedsage", cd, 3, 3, ft_join(small, gen, sets, 16))) {
        fgl_scenario_free(&sc);
        return;
    }
    for (i = 0; i < 3; i++) {
        fgl_client *c = &run.clients[i];
        const fgl_gnn_graph *g = fgl__fedsage_mended(c);
        const fgl_node_data *nd = cd[i].node;
        int n = nd->n_nodes, v, p, G = 0, bad = 0, *kv = (int *)malloc(sizeof(int) * (size_t)n);
        if (!kv || !g) {
            FT_CHECK(0, "client %d: %s", i, kv ? "no mended graph after the NeighGen rounds" : "out of memory");
            free(kv);
            continue;
        }
        FT_CHECK(fgl__fedsage_counts(c, kv) == FGL_OK, "client %d: counts", i);
        for (v = 0; v < n; v++) G += kv[v];
        FT_CHECK(g->n_nodes == n + G && fgl_ints(&c->store, "mend")[0] == G, "client %d: %d nodes, %d + %d expected", i,
                 g->n_nodes, n, G);
        FT_CHECK(G > 0 && G <= 3 * n, "client %d: %d generated nodes for %d nodes, at most 3 each", i, G, n);
        FT_CHECK(g->adj->nnz == nd->adj.nnz + 2 * G, "client %d: %d edges, %d + 2 x %d expected", i, g->adj->nnz,
                 nd->adj.nnz, G);
        /* node v's generated nodes follow in order, each linked to v alone, unlabelled and never trained on */
        for (v = 0, G = n; v < n && g->n_nodes > n; v++)
            for (p = 0; p < kv[v] && G < g->n_nodes; p++, G++) {
                const fgl_csr *A = g->adj;
                bad += A->indptr[G + 1] - A->indptr[G] != 1 || A->indices[A->indptr[G]] != v;
            }
        FT_CHECK(!bad, "client %d: %d generated nodes not linked to their node alone", i, bad);
        for (v = 0; v < n && !bad; v++) { /* the first n rows are the client's own features */
            int j;
            for (j = 0; j < nd->n_feat; j++) {
                float x = nd->x.data ? FGL_AT(&nd->x, v, j) : 0.0f;
                if (!nd->x.data) {
                    int q;
                    for (q = nd->x_sparse.indptr[v]; q < nd->x_sparse.indptr[v + 1]; q++)
                        if (nd->x_sparse.indices[q] == j) x = nd->x_sparse.values ? nd->x_sparse.values[q] : 1.0f;
                }
                bad += g->x[(size_t)v * g->n_feat + j] != x;
            }
        }
        FT_CHECK(!bad, "client %d: the mended graph's first %d rows are not the client's features", i, n);
        free(kv);
    }
    fgl_run_free(&run);
    fgl_scenario_free(&sc);
}

static void test_neighgen_loss_falls(void) {
    static const char *const sets[] = {"gen_rounds", "40", "num_pred", "3", "latent", "16", "gen_hidden", "32",
                                       "cross", "12", "gen_lr", "0.01", "gen_steps", "20", NULL};
    fgl_node_data d[2];
    fgl_client_data cd[2];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run run;
    int i;
    static const unsigned char split_of[5] = {FGL_SPLIT_TRAIN, FGL_SPLIT_VAL, FGL_SPLIT_TEST, FGL_SPLIT_TEST,
                                              FGL_SPLIT_TEST};
    if (ft_communities(&d[0], 6, 20, split_of, 5) || ft_communities(&d[1], 6, 20, split_of, 5)) {
        FT_CHECK(0, "community graphs");
        fgl_node_data_free(&d[0]);
        fgl_node_data_free(&d[1]);
        return;
    }
    for (i = 0; i < 2; i++) {
        memset(&cd[i], 0, sizeof cd[i]);
        cd[i].node = &d[i];
        cd[i].spec = fgl_model_spec_default(FGL_ARCH_SAGE, FGL_TASK_NODE, 6, 6);
        cd[i].spec.hidden = 16;
    }
    cfg.rounds = 40;
    cfg.local_epochs = 1;
    if (ft_run_rounds(&run, &cfg, "fedsage", cd, 2, 2, sets)) { /* the cross term starts in round 3 */
        double l0[2][3] = {{0}}, l1[2][3] = {{0}}; /* means over rounds 3-7 and 36-40 (single steps are noisy) */
        double first = run.stats[0].train_loss, last = 0;
        int ok = 1, j;
        while (ok && run.round < 40) {
            ok = fgl_run_round(&run) == FGL_OK;
            for (i = 0; ok && i < 2; i++)
                for (j = 0; j < 3; j++) {
                    double v = fgl_floats(&run.clients[i].store, "losses")[j] / 5;
                    if (run.round <= 7) l0[i][j] += v;
                    if (run.round > 35) l1[i][j] += v;
                }
        }
        FT_CHECK(ok, "round %d: %s", run.round, run.err.msg);
        for (i = 37; i < 40; i++) last += run.stats[i].train_loss / 3;
        printf("#   NeighGen loss: round 1 %.4f, rounds 38-40 %.4f\n", first, last);
        FT_CHECK(isfinite(last) && last < 0.8 * first, "NeighGen's loss fell from %.4f to %.4f only", first, last);
        for (i = 0; i < 2; i++) {
            printf("#   client %d: rounds 3-7 -> 36-40: L_d %.4f -> %.4f, L_f %.4f -> %.4f, L_x %.4f -> %.4f\n", i,
                   l0[i][0], l1[i][0], l0[i][1], l1[i][1], l0[i][2], l1[i][2]);
            /* the features are predictable (a node's missing neighbours share its vector), the counts are not
             * (which ring neighbours are hidden is random): L_d may only level off */
            FT_CHECK(l1[i][1] < 0.9 * l0[i][1] && l1[i][0] < 1.05 * l0[i][0],
                     "client %d: L_d %.4f -> %.4f, L_f %.4f -> %.4f", i, l0[i][0], l1[i][0], l0[i][1], l1[i][1]);
            FT_CHECK(l0[i][2] > 0 && l1[i][2] < 0.9 * l0[i][2], "client %d: the cross term %.4f -> %.4f", i, l0[i][2],
                     l1[i][2]);
        }
        fgl_run_free(&run);
    }
    fgl_node_data_free(&d[0]);
    fgl_node_data_free(&d[1]);
}

static void test_resume(void) {
    static const char *const gen[] = {"gen_rounds", "4", NULL};
    const char *sets[16];
    fgl_scenario sc;
    fgl_client_data cd[3];
    if (!ft_clients(&nodes, 3, FGL_PART_LOUVAIN, FGL_ARCH_SAGE, 32, &sc, cd)) return;
    ft_join(small, gen, sets, 16);
    ft_resume_at("fedsage", cd, 3, 7, 3, sets); /* inside NeighGen: answers in flight on both sides */
    ft_resume_at("fedsage", cd, 3, 7, 5, sets); /* inside the classifier phase: the mended graph rebuilt */
    fgl_scenario_free(&sc);
}

/* The generated nodes in each client's mended graph (-1: none built), seen by ft_end_to_end's inspect. */
static int e2e_generated[3];
static void e2e_inspect(int a, const fgl_run *run, void *ud) {
    int i;
    (void)ud;
    for (i = 0; a == 2 && i < 3 && i < run->n_clients; i++)
        e2e_generated[i] = fgl__fedsage_mended(&run->clients[i]) ? fgl_ints(&run->clients[i].store, "mend")[0] : -1;
}

/* Cora: 7 classes, chance 14%; the bar is the one the other end-to-end
 * tests hold baselines to (0.40), the numbers printed beside Local and
 * FedAvg. NeighGen trains 3 rounds of 10 steps at rate 0.01 (as in
 * test_mended_graph), up to 2 generated neighbours a node: with the
 * defaults' single step at 0.001, dGen still predicted no missing neighbour
 * for any Cora node after 3 rounds (seeds 1 to 8; one client of one seed
 * excepted), and FedSage+ here was FedAvg on the unmended graphs. Checked:
 * - the classifier trained on mended graphs: every client's holds generated
 *   nodes (seeds 1 to 8: 1317 to 1679 per client on Cora, 1806 to 2382 on
 *   the synthetic data);
 * - FedSage+'s best mean test accuracy within 5 points of FedAvg's. Over
 *   seeds 1 to 8, best FedSage+ - best FedAvg: Cora -2.8 to +2.1 points
 *   (mean -0.9), synthetic -1.5 to -0.1 (mean -1.0); 5 points is nearly
 *   twice the worst gap. (The run is seeded: 1 and 2 threads give the same
 *   numbers, which the one-thread rerun checks. An fGen left untrained,
 *   lambda_f = alpha = 0, scored within this margin too: the check catches
 *   a broken classifier phase, not a weak generator.) */
static void test_end_to_end(void) {
    static const char *const gen[] = {"gen_rounds", "3", "gen_steps", "10", "gen_lr", "0.01", "num_pred", "2", NULL};
    const char *sets[16];
    fgl_scenario sc;
    fgl_client_data cd[3];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    ft_e2e_algo algos[3] = {{"local", 0, NULL, 0}, {"fedavg", 0, NULL, 0}, {"fedsage", 0, NULL, 1}};
    fgl_run_summary s[3];
    int a, i;
    if (!ft_clients(&nodes, 3, FGL_PART_LOUVAIN, FGL_ARCH_SAGE, 32, &sc, cd)) return;
    algos[2].sets = ft_join(small, gen, sets, 16);
    cfg.local_epochs = 5;
    cfg.threads = 2;
    for (a = 0; a < 3; a++) algos[a].rounds = (ft_quick() ? 3 : 15) + (a == 2 ? 3 : 0); /* + NeighGen's rounds */
    for (i = 0; i < 3; i++) e2e_generated[i] = -1;
    if (ft_end_to_end(nodes.label, algos, 3, &cfg, cd, 3, 0.40, s, e2e_inspect, NULL) == 3) {
        printf("#   %s: fedsage's mended graphs: %d, %d, %d generated nodes\n", nodes.label, e2e_generated[0],
               e2e_generated[1], e2e_generated[2]);
        for (i = 0; i < 3; i++)
            FT_CHECK(e2e_generated[i] > 0, "fedsage: client %d's classifier trained on %s", i,
                     e2e_generated[i] < 0 ? "no mended graph" : "a mended graph without generated nodes");
        if (!ft_quick())
            FT_CHECK(s[2].best_test >= s[1].best_test - 0.05, "fedsage: best mean test accuracy %.4f, fedavg's %.4f",
                     s[2].best_test, s[1].best_test);
    }
    fgl_scenario_free(&sc);
}

int main(void) {
    int real = ft_node_data(&nodes);
    printf("# data: %s (%s)\n", nodes.label, real ? "real" : "synthetic");
    FT_RUN(test_no_generation_is_fedavg);
    FT_RUN(test_mended_graph);
    FT_RUN(test_neighgen_loss_falls);
    FT_RUN(test_resume);
    FT_RUN(test_end_to_end);
    fgl_dataset_free(&nodes);
    return ft_finish();
}
