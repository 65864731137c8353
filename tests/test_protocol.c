/* Tests of the evaluation protocols of examples/fglrun/protocol.c (issue 37)
 * and of the test-first split (fgl_split_config.test_first), on fgl's
 * synthetic data:
 *  - the personalised accuracy against a hand computation on a tiny case,
 *    and undefined (NaN) when no test node is of a class the client trained on;
 *  - per-client selection picks each client's own best round (first of equal
 *    maxima, rounds not evaluated skipped), global selection the best mean;
 *  - --val public is refused without public nodes (and not with them);
 *  - --protocol pfedgnn-authors sets what it says, a flag given wins;
 *  - the test-first split: each client's test set is exactly its first
 *    round(0.2 n) nodes, train and validation the rest in the ratio asked.
 * (tests/test_fglrun.sh replays the measures' records bit for bit.) */
#define FGLRUN_NO_MAIN
#ifndef FGL_NO_IMPLEMENTATION
#define FGL_NO_IMPLEMENTATION
#endif
#include "../examples/fglrun.c"

static int failures = 0;

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (cond) {                                                                                                    \
            printf("ok - ");                                                                                           \
        } else {                                                                                                       \
            printf("not ok - ");                                                                                       \
            failures++;                                                                                                \
        }                                                                                                              \
        printf(__VA_ARGS__);                                                                                           \
        printf("\n");                                                                                                  \
    } while (0)

static void test_personalized_by_hand(void) {
    /* 3 classes; the client trained on classes 0 and 1 only (p = 0.75, 0.25, 0); its test nodes: 4 of class 0
     * (3 right), 2 of class 1 (0 right), 3 of class 2 (1 right). Plain: 4 / 9. Personalised: (0.75 * 3 + 0.25 *
     * 0) / (0.75 * 4 + 0.25 * 2) = 2.25 / 3.5; class 2 counts not at all. */
    int correct[3] = {3, 0, 1}, count[3] = {4, 2, 3}, none[3] = {0, 0, 3};
    double p[3] = {0.75, 0.25, 0.0};
    double pers = personalized_accuracy(correct, count, p, 3);
    CHECK(fabs(pers - 2.25 / 3.5) < 1e-12, "personalised accuracy %.6f = 2.25 / 3.5 by hand (plain would be 4/9)",
          pers);
    pers = personalized_accuracy(correct, none, p, 3);
    CHECK(pers != pers, "personalised accuracy undefined (NaN) with test nodes only of a class never trained on");
}

static void test_selection(void) {
    /* 4 rounds x 3 clients; round 1 not evaluated (NaN). Selection set: */
    double n = NAN;
    double sel[12] = {0.2, 0.9, 0.1,   /* round 0 */
                      n,   n,   n,     /* round 1: not evaluated */
                      0.6, 0.3, 0.4,   /* round 2 */
                      0.6, 0.9, 0.5};  /* round 3 */
    double test[12] = {10, 11, 12, 20, 21, 22, 30, 31, 32, 40, 41, 42}, out[3];
    int rounds[3];
    double mean = select_per_client(sel, test, 4, 3, out, rounds);
    /* client 0: 0.6 at rounds 2 and 3 -> the first, 2; client 1: 0.9 at 0 and 3 -> 0; client 2: 0.5 at 3 */
    CHECK(rounds[0] == 2 && rounds[1] == 0 && rounds[2] == 3, "per-client selection: rounds %d %d %d (2 0 3)",
          rounds[0], rounds[1], rounds[2]);
    CHECK(out[0] == 30 && out[1] == 11 && out[2] == 42 && fabs(mean - (30 + 11 + 42) / 3.0) < 1e-12,
          "per-client selection takes each client's value at its own round (%g %g %g, mean %g)", out[0], out[1],
          out[2], mean);
    /* means: 0.4, -, 0.433, 0.667 -> round 3 */
    CHECK(select_global(sel, 4, 3) == 3, "global selection: the round of best mean (3), not evaluated rounds skipped");
}

static void test_val_public_refused(void) {
    options o;
    fgl_scenario sc;
    memset(&o, 0, sizeof o);
    memset(&sc, 0, sizeof sc);
    sc.task = FGL_TASK_NODE;
    o.val_public = 1;
    fprintf(stderr, "(test_protocol: the refusal below is expected)\n");
    CHECK(proto_check(&o, &sc) == 2, "--val public without public nodes is refused");
    sc.pub.n_nodes = 10;
    CHECK(proto_check(&o, &sc) == 0, "--val public with public nodes is accepted");
    o.val_public = 0;
    o.select_pc = 1;
    o.val_frac = 0;
    CHECK(proto_check(&o, &sc) == 2, "--select per-client without a validation set or --val public is refused");
    o.val_frac = 0.1;
    CHECK(proto_check(&o, &sc) == 0, "--select per-client on the clients' validation sets is accepted");
    sc.task = FGL_TASK_GRAPH;
    CHECK(proto_check(&o, &sc) == 2, "the measures are refused for graph tasks");
}

static void test_preset(void) {
    const char *argv[] = {"fglrun", "--algo", "pfedgnn,fedavg", "--protocol", "pfedgnn-authors", "--lr", "0.05",
                    "--set", "pfedgnn.lam=0.02", "--quiet"};
    options o;
    int k, alpha0 = 0, lam = 0, lam_added = 0;
    CHECK(parse_args((int)(sizeof argv / sizeof argv[0]), (char **)argv, &o) == 0 && protocol_apply(&o) == 0,
          "--protocol pfedgnn-authors parses and applies");
    CHECK(o.split == FGL_PART_DIRICHLET && o.alpha == 0.5 && o.clients == 10 && o.public_nodes == 100 &&
              o.hidden == 16 && o.head == FGL_HEAD_NONE && o.optim == FGL_SGD && o.momentum == 0.9 &&
              o.local_epochs == 200 && o.rounds == 50 && o.reset_optim && o.raw_features == 1,
          "the preset sets the authors' split, model and training");
    CHECK(o.train_frac == 0.8 && o.val_frac == 0 && o.test_first && o.metric && o.select_pc && o.val_public,
          "the preset sets the test-first 80/0/20 split, the personalised metric, per-client selection on the "
          "public nodes");
    CHECK(o.lr == 0.05, "a flag given on the command line wins over the preset (--lr 0.05)");
    for (k = 0; k < o.n_sets; k++) {
        alpha0 |= !strcmp(o.sets[k], "pfedgnn.alpha=0");
        lam |= !strcmp(o.sets[k], "pfedgnn.lam=0.02");
        lam_added |= !strcmp(o.sets[k], "pfedgnn.lam=0.01");
    }
    CHECK(alpha0 && lam && !lam_added, "the preset sets pfedgnn alpha=0; a --set lam given wins over its 0.01");
    CHECK(opt_given(&o, "test-first") && opt_given(&o, "val"), "what the preset set counts as given (recorded)");
}

static void test_first_split(void) {
    fgl_dataset ds;
    fgl_scenario sc;
    fgl_split_config c = fgl_split_default();
    fgl_error err;
    int i, j, ok = 1, ok_val = 1;
    if (fgl_dataset_load(&ds, NULL, "synthetic:600", FGL_TASK_NODE, NULL, 1, &err)) {
        CHECK(0, "synthetic data: %s", err.msg);
        return;
    }
    c.how = FGL_PART_DIRICHLET;
    c.clients = 3;
    c.public_nodes = 50;
    c.test_first = 1;
    c.train = 0.8;
    c.val = 0;
    if (fgl_scenario_make(&sc, &ds, &c, &err)) {
        CHECK(0, "test-first scenario: %s", err.msg);
        fgl_dataset_free(&ds);
        return;
    }
    for (i = 0; i < sc.n_clients; i++) {
        const fgl_node_data *d = &sc.node[i];
        int nte = (int)floor(0.2 * d->n_nodes + 0.5);
        for (j = 0; j < d->n_nodes; j++)
            ok &= d->split[j] == (j < nte ? FGL_SPLIT_TEST : FGL_SPLIT_TRAIN);
    }
    fgl_scenario_free(&sc);
    CHECK(ok, "test-first 80/0/20: each client's first round(0.2 n) nodes are its test set, the rest train");
    c.train = 0.7;
    c.val = 0.1;
    if (fgl_scenario_make(&sc, &ds, &c, &err)) {
        CHECK(0, "test-first 70/10/20: %s", err.msg);
        fgl_dataset_free(&ds);
        return;
    }
    for (i = 0; i < sc.n_clients; i++) {
        const fgl_node_data *d = &sc.node[i];
        int nte = (int)floor(0.2 * d->n_nodes + 0.5), m = d->n_nodes - nte, nva = 0;
        for (j = 0; j < d->n_nodes; j++) {
            ok_val &= (j < nte) == (d->split[j] == FGL_SPLIT_TEST);
            nva += d->split[j] == FGL_SPLIT_VAL;
        }
        ok_val &= nva == (int)floor(0.1 / 0.8 * m + 0.5);
    }
    fgl_scenario_free(&sc);
    CHECK(ok_val, "test-first 70/10/20: the first 20%% test, validation 1/8 of the rest");
    c.stratified = 1;
    CHECK(fgl_scenario_make(&sc, &ds, &c, &err) == FGL_ERR_ARG, "test-first with a stratified split is refused (%s)",
          err.msg);
    fgl_dataset_free(&ds);
}

int main(void) {
    test_personalized_by_hand();
    test_selection();
    test_val_public_refused();
    test_preset();
    test_first_split();
    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures != 0;
}
