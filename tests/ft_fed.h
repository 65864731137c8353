/* ft_fed.h - setup shared by the federated tests (test_fed*.c): the real
 * datasets, Cora over 5 METIS clients, a run driven for some rounds, and
 * bitwise comparisons of two runs. Include after fgl_fed.h (with
 * FGL_IMPLEMENTATION) and ft.h. Loaders return 1 on success; on failure
 * they print why and leave the struct empty, so the caller can FT_SKIP. */
#ifndef FT_FED_H
#define FT_FED_H

/* Cora with row-normalised features. */
static int ft_load_cora(fgl_node_data *d) {
    char dir[1024];
    fgl_error e;
    fgl_node_data_init(d);
    snprintf(dir, sizeof dir, "%s/node/Cora", ft_data_dir());
    if (fgl_load_node(dir, "Cora", d, &e) || fgl_node_data_normalize_features(d)) {
        printf("#   %s\n", e.msg);
        fgl_node_data_free(d);
        return 0;
    }
    return 1;
}

/* A TU dataset with one-hot node labels as features; se > 0 adds FedStar's
 * structure encodings (se DSE + se RWSE columns). */
static int ft_load_tu(const char *name, int se, fgl_graph_set *s) {
    char dir[1024];
    fgl_error e;
    fgl_graph_set_init(s);
    snprintf(dir, sizeof dir, "%s/tu/%s", ft_data_dir(), name);
    if (fgl_load_tu(dir, name, s, &e) || fgl_graph_set_features(s, FGL_FEAT_NODE_LABELS, 0, &e) ||
        (se > 0 && fgl_structure_encodings(s, se, se, &e))) {
        printf("#   %s\n", e.msg);
        fgl_graph_set_free(s);
        return 0;
    }
    return 1;
}

/* Cora over 5 METIS clients (each 20% train, 40% validation nodes; seed
 * 1234), each with a GCN of the given hidden width. */
static int ft_cora_clients(const fgl_node_data *cora, int hidden, fgl_scenario *sc, fgl_client_data *cd) {
    fgl_error err;
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 1, 1);
    spec.hidden = hidden;
    if (fgl_scenario_subgraphs(sc, cora, FGL_PART_METIS, 5, 0.2, 0.4, 1234, &err)) {
        FT_CHECK(0, "scenario: %s", err.msg);
        return 0;
    }
    fgl_scenario_clients(sc, &spec, cd);
    return 1;
}

/* A run of algo over cd[0..k-1] with the parameters sets (NULL-terminated
 * key, value pairs), `rounds` rounds done. 1 on success (the caller frees
 * the run); otherwise the test fails and nothing is left to free. */
static int ft_run_rounds(fgl_run *run, const fgl_fed_config *cfg, const char *algo, fgl_client_data *cd, int k,
                         int rounds, const char *const *sets) {
    fgl_error err;
    int r;
    if (fgl_run_init(run, cfg, fgl_algo_find(algo), cd, k, &err)) {
        FT_CHECK(0, "%s: init: %s", algo, err.msg);
        return 0;
    }
    for (; sets && *sets; sets += 2)
        if (fgl_run_set(run, sets[0], sets[1], &err)) {
            FT_CHECK(0, "%s: set %s=%s: %s", algo, sets[0], sets[1], err.msg);
            fgl_run_free(run);
            return 0;
        }
    for (r = 0; r < rounds; r++)
        if (fgl_run_round(run)) {
            FT_CHECK(0, "%s: round %d: %s", algo, r, run->err.msg);
            fgl_run_free(run);
            return 0;
        }
    return 1;
}

/* The same rounds done and the same per-client accuracies and losses, bit
 * for bit. */
static int ft_same_history(const fgl_run *a, const fgl_run *b) {
    size_t n = (size_t)a->round * a->n_clients;
    return a->round == b->round && memcmp(a->client_val, b->client_val, sizeof(double) * n) == 0 &&
           memcmp(a->client_test, b->client_test, sizeof(double) * n) == 0 &&
           memcmp(a->client_loss, b->client_loss, sizeof(double) * n) == 0;
}

/* Every client's model parameters equal, bit for bit. */
static int ft_same_models(const fgl_run *a, const fgl_run *b) {
    int i;
    for (i = 0; i < a->n_clients; i++)
        if (a->clients[i].model.params.size != b->clients[i].model.params.size ||
            memcmp(a->clients[i].model.params.data, b->clients[i].model.params.data,
                   sizeof(float) * a->clients[i].model.params.size) != 0)
            return 0;
    return 1;
}

#endif
