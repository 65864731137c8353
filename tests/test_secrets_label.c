/* Tests of the run label of the secrets (fgl_secrets_config.label, issue
 * 48): with a secret seed, the keys, masks and noise come from the seed,
 * the run seed and the label, so that two runs of one seed (two
 * algorithms, two sweep rows, two folds of one fglrun invocation) never
 * share them; the same three give the same secrets again (a replay), and a
 * checkpoint of one label is not resumed under another. On fgl's
 * synthetic node data (small: the secrets are the point, not the model). */
#include <time.h>

#include "../fgl_fed.h"
#include "ft.h"
#include "ft_fed.h"

static fgl_dataset nodes;

/* A seeded configuration with the label given. */
static fgl_fed_config seeded(const char *label, uint64_t run_seed) {
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    cfg.secrets.from_seed = 1;
    cfg.secrets.seed = 987654321987ull;
    cfg.seed = run_seed;
    snprintf(cfg.secrets.label, sizeof cfg.secrets.label, "%s", label);
    return cfg;
}

/* 32 bytes of purpose for client 3 in round 5 under cfg. */
static void bytes_of(const fgl_fed_config *cfg, uint32_t purpose, unsigned char out[32]) {
    fgl_error err;
    FT_CHECK(fgl__secret_bytes(cfg, out, purpose, 3, 5, &err) == FGL_OK, "fgl__secret_bytes: %s", err.msg);
}

static void test_labels_part_the_secrets(void) {
    static const uint32_t purposes[] = {FGL__SECRET_DP_KEY, FGL__SECRET_SA_C, FGL__SECRET_SA_S, FGL__SECRET_SA_B,
                                        FGL__SECRET_SA_COIN};
    /* pairs that must differ: other labels, a prefix, one byte more, the last byte of a full label */
    char full_a[FGL_SECRETS_LABEL], full_b[FGL_SECRETS_LABEL];
    const char *pairs[][2] = {{"fglrun fedavg", "fglrun fedprox"},
                              {"fglrun fedavg", "fglrun fedavg mu=0.01"},
                              {"abcdefgh", "abcdefgh1"},
                              {"abcdefg", "abcdefgh"},
                              {"", "a"},
                              {"fglrun fedavg fold=0", "fglrun fedavg fold=1"},
                              {full_a, full_b}};
    unsigned char a[32], b[32];
    size_t p, q;
    memset(full_a, 'x', sizeof full_a - 1);
    full_a[sizeof full_a - 1] = 0;
    memcpy(full_b, full_a, sizeof full_b);
    full_b[sizeof full_b - 2] = 'y';
    for (p = 0; p < sizeof pairs / sizeof pairs[0]; p++)
        for (q = 0; q < sizeof purposes / sizeof purposes[0]; q++) {
            fgl_fed_config x = seeded(pairs[p][0], 1), y = seeded(pairs[p][1], 1);
            bytes_of(&x, purposes[q], a);
            bytes_of(&y, purposes[q], b);
            FT_CHECK(memcmp(a, b, 32) != 0, "labels '%.20s' and '%.20s' (%zu bytes) give the same secret %zu",
                     pairs[p][0], pairs[p][1], strlen(pairs[p][1]), q);
            bytes_of(&x, purposes[q], b); /* the same label again: the same secret (a replay repeats) */
            FT_CHECK(memcmp(a, b, 32) == 0, "label '%.20s' gives two secrets %zu", pairs[p][0], q);
        }
    { /* the run seed and the secret seed still count */
        fgl_fed_config x = seeded("fglrun fedavg", 1), y = seeded("fglrun fedavg", 2);
        bytes_of(&x, FGL__SECRET_SA_S, a);
        bytes_of(&y, FGL__SECRET_SA_S, b);
        FT_CHECK(memcmp(a, b, 32) != 0, "run seeds 1 and 2 give the same secret");
        y = seeded("fglrun fedavg", 1);
        y.secrets.seed++;
        bytes_of(&y, FGL__SECRET_SA_S, b);
        FT_CHECK(memcmp(a, b, 32) != 0, "secret seeds S and S + 1 give the same secret");
    }
}

/* Two runs of FedAvg under DP (noise 5) and secure aggregation's keys from
 * one secret seed and one run seed: other labels, other noise (so other
 * models); the same label, the same bits; a checkpoint of one label is
 * refused by a run of another. */
static void test_label_runs(void) {
    fgl_scenario sc;
    fgl_client_data cd[4];
    fgl_run a, b, c;
    fgl_error err;
    char path[256], why[128] = "";
    int ok;
    fgl_fed_config ca = seeded("fglrun fedavg", 1), cb = seeded("fglrun fedavg mu=0", 1);
    if (!ft_node_clients(&nodes, 4, 8, &sc, cd)) return;
    ca.dp.clip = cb.dp.clip = 1;
    ca.dp.noise = cb.dp.noise = 5;
    ca.frac = cb.frac = 0.5f;
    if (!ft_run_rounds(&a, &ca, "fedavg", cd, 4, 3, NULL)) goto done;
    if (ft_run_rounds(&b, &cb, "fedavg", cd, 4, 3, NULL)) {
        FT_CHECK(!ft_same_models(&a, &b), "two labels, one secret seed and run seed: the same models (the same noise)");
        fgl_run_free(&b);
    }
    if (ft_run_rounds(&b, &ca, "fedavg", cd, 4, 3, NULL)) {
        FT_CHECK(ft_same_run(&a, &b, why, sizeof why), "one label twice: runs differ: %s", why);
        fgl_run_free(&b);
    }
    snprintf(path, sizeof path, "/tmp/fgl_test_label_%lx.bin", (unsigned long)time(NULL));
    if (fgl_run_save(&a, path, &err) == FGL_OK && ft_run_rounds(&c, &cb, "fedavg", cd, 4, 0, NULL)) {
        ok = fgl_run_load(&c, path, &err) == FGL_OK;
        FT_CHECK(!ok, "a checkpoint of label 'fglrun fedavg' resumed under label 'fglrun fedavg mu=0'");
        fgl_run_free(&c);
    }
    remove(path);
    fgl_run_free(&a);
done:
    fgl_scenario_free(&sc);
}

int main(void) {
    fgl_synth_node_config c = fgl_synth_node_default();
    fgl_error e;
    memset(&nodes, 0, sizeof nodes);
    nodes.task = FGL_TASK_NODE;
    snprintf(nodes.label, sizeof nodes.label, "synthetic");
    c.n_nodes = 400;
    if (fgl_synth_node(&c, 1, &nodes.node, NULL, &e)) printf("#   synthetic node data: %s\n", e.msg);
    FT_RUN(test_labels_part_the_secrets);
    FT_RUN(test_label_runs);
    fgl_dataset_free(&nodes);
    return ft_finish();
}
