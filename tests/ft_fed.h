/* ft_fed.h - setup shared by the federated tests (test_fed*.c): the data
 * (a real dataset when FGL_DATA has it, fgl's synthetic generators
 * otherwise, so the runtime is tested on every machine), clients over it, a
 * run driven for some rounds, bitwise comparisons of two runs, and an
 * end-to-end comparison of algorithms (ft_end_to_end). Include
 * after fgl_fed.h (with FGL_IMPLEMENTATION) and ft.h. */
#ifndef FT_FED_H
#define FT_FED_H

/* Cora (row-normalised features) if it is under the data directory, else
 * fgl's synthetic node benchmark (7 classes, 32 features; 3000 nodes, 1200
 * in quick runs). Returns 1 when the data is real. */
static inline int ft_node_data(fgl_dataset *d) {
    fgl_synth_node_config c = fgl_synth_node_default();
    fgl_error e;
    if (fgl_dataset_load(d, ft_data_dir(), "Cora", FGL_TASK_NODE, NULL, 0, &e) == FGL_OK) return 1;
    memset(d, 0, sizeof *d);
    d->task = FGL_TASK_NODE;
    snprintf(d->label, sizeof d->label, "synthetic");
    if (ft_quick()) c.n_nodes = 1200;
    if (fgl_synth_node(&c, 1, &d->node, NULL, &e)) printf("#   synthetic node data: %s\n", e.msg);
    return 0;
}

/* fgl's synthetic graph set (3 structural classes; 600 graphs, 200 in
 * quick runs) with one-hot node labels of `labels` values and, se > 0, se + se
 * structure encodings. */
static inline void ft_synth_graphs(fgl_dataset *d, uint64_t seed, int labels, int se) {
    fgl_synth_graphs_config c = fgl_synth_graphs_default();
    fgl_error e;
    memset(d, 0, sizeof *d);
    c.n_node_labels = labels;
    if (ft_quick()) c.n_graphs = 200;
    d->task = FGL_TASK_GRAPH;
    d->n_sets = 1;
    snprintf(d->label, sizeof d->label, "synthetic graphs");
    if (fgl_synth_graphs(&c, seed, &d->sets[0], &e) || fgl_graph_set_features(&d->sets[0], FGL_FEAT_NODE_LABELS, 0, &e) ||
        (se > 0 && fgl_structure_encodings(&d->sets[0], se, se, &e)))
        printf("#   synthetic graph data: %s\n", e.msg);
}

/* A TU dataset with one-hot node labels (and, se > 0, se + se structure
 * encodings) if it is there, else fgl's synthetic graph set prepared the
 * same way. Returns 1 when real. */
static inline int ft_graph_data(const char *name, int se, fgl_dataset *d) {
    fgl_dataset_config o = fgl_dataset_default();
    fgl_error e;
    o.k_dse = o.k_rwse = se;
    if (fgl_dataset_load(d, ft_data_dir(), name, FGL_TASK_GRAPH, &o, 0, &e) == FGL_OK) return 1;
    ft_synth_graphs(d, 1, 4, se);
    return 0;
}

/* d over k clients split by how (FGL_PART_*, or -1: fgl_split_default's;
 * each 20% train, 40% validation nodes; split seed 1234), each with a node
 * model of the given arch and hidden width (0: the arch's default). */
static inline int ft_clients(const fgl_dataset *d, int k, int how, int arch, int hidden, fgl_scenario *sc,
                             fgl_client_data *cd) {
    fgl_error err;
    fgl_split_config split = fgl_split_default();
    fgl_model_spec spec = fgl_model_spec_default(arch, FGL_TASK_NODE, 1, 1);
    if (hidden > 0) spec.hidden = hidden;
    if (how >= 0) split.how = how;
    split.clients = k;
    if (fgl_scenario_make(sc, d, &split, &err)) {
        FT_CHECK(0, "scenario: %s", err.msg);
        return 0;
    }
    if (fgl_scenario_clients(sc, &spec, cd, k, &err)) { /* cd holds k */
        FT_CHECK(0, "scenario clients: %s", err.msg);
        fgl_scenario_free(sc);
        return 0;
    }
    return 1;
}

/* d over k clients as fgl_split_default splits them (METIS for a node
 * task), each with a GCN of the given hidden width. */
static inline int ft_node_clients(const fgl_dataset *d, int k, int hidden, fgl_scenario *sc, fgl_client_data *cd) {
    return ft_clients(d, k, -1, FGL_ARCH_GCN, hidden, sc, cd);
}

/* d over k Dirichlet(alpha) clients (at least min_per_client graphs each,
 * 80/10/10 inside), each with the default 3-layer GIN. */
static inline int ft_graph_clients(const fgl_dataset *d, int k, double alpha, int min_per_client, uint64_t seed, fgl_scenario *sc,
                            fgl_client_data *cd) {
    fgl_error err;
    fgl_split_config split = fgl_split_default();
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GIN, FGL_TASK_GRAPH, 1, 1);
    split.how = FGL_PART_DIRICHLET;
    split.clients = k;
    split.alpha = alpha;
    split.min_per_client = min_per_client;
    split.seed = seed;
    if (fgl_scenario_make(sc, d, &split, &err)) {
        FT_CHECK(0, "scenario: %s", err.msg);
        return 0;
    }
    if (fgl_scenario_clients(sc, &spec, cd, k, &err)) { /* cd holds k */
        FT_CHECK(0, "scenario clients: %s", err.msg);
        fgl_scenario_free(sc);
        return 0;
    }
    return 1;
}

/* A run of algo (a table) over cd[0..k-1] with the parameters sets
 * (NULL-terminated key, value pairs), `rounds` rounds done. 1 on success
 * (the caller frees the run); otherwise the test fails and nothing is left
 * to free. */
static inline int ft_run_algo(fgl_run *run, const fgl_fed_config *cfg, const fgl_algo *algo, fgl_client_data *cd, int k, int rounds,
                       const char *const *sets) {
    fgl_error err;
    int r;
    if (!algo) {
        FT_CHECK(0, "no such algorithm");
        return 0;
    }
    if (fgl_run_init(run, cfg, algo, cd, k, &err)) {
        FT_CHECK(0, "%s: init: %s", algo->name, err.msg);
        return 0;
    }
    for (; sets && *sets; sets += 2)
        if (fgl_run_set(run, sets[0], sets[1], &err)) {
            FT_CHECK(0, "%s: set %s=%s: %s", algo->name, sets[0], sets[1], err.msg);
            fgl_run_free(run);
            return 0;
        }
    for (r = 0; r < rounds; r++)
        if (fgl_run_round(run)) {
            FT_CHECK(0, "%s: round %d: %s", algo->name, r, run->err.msg);
            fgl_run_free(run);
            return 0;
        }
    return 1;
}

/* Every client's upload part "theta" as it stood when the server aggregated
 * the last round (copies: after the round, a model part that viewed its
 * client's parameters is gone). */
#define FT_SEEN_MAX 64
typedef struct ft_seen {
    float *theta[FT_SEEN_MAX];
} ft_seen;

static fgl_run *ft__seen_run;
static ft_seen *ft__seen;
static int (*ft__seen_inner)(fgl_server *s);

static int ft__seen_aggregate(fgl_server *s) {
    int i;
    for (i = 0; i < ft__seen_run->n_clients && i < FT_SEEN_MAX; i++) {
        const fgl_msg *m = &ft__seen_run->clients[i].up;
        int p = fgl_msg_find(m, "theta");
        free(ft__seen->theta[i]);
        ft__seen->theta[i] = NULL;
        if (p >= 0 && m->part[p] && (ft__seen->theta[i] = (float *)malloc(sizeof(float) * (m->len[p] + 1))))
            memcpy(ft__seen->theta[i], m->part[p], sizeof(float) * m->len[p]);
    }
    return ft__seen_inner ? ft__seen_inner(s) : FGL_OK;
}

static inline void ft_seen_free(ft_seen *seen) {
    int i;
    for (i = 0; i < FT_SEEN_MAX; i++) free(seen->theta[i]);
    memset(seen, 0, sizeof *seen);
}

/* ft_run_algo, keeping what the clients uploaded in the last round in
 * *seen (zeroed first; ft_seen_free when done). */
static inline int ft_run_algo_seen(fgl_run *run, const fgl_fed_config *cfg, const fgl_algo *a, fgl_client_data *cd, int k,
                                   int rounds, ft_seen *seen) {
    fgl_algo wrapped;
    memset(seen, 0, sizeof *seen);
    if (!a) {
        FT_CHECK(0, "no such algorithm");
        return 0;
    }
    wrapped = *a;
    ft__seen_inner = a->aggregate;
    wrapped.mean_only = 1; /* the spy reads the clients' uploads, not the server's view (which DP empties) */
    wrapped.aggregate = ft__seen_aggregate;
    ft__seen_run = run;
    ft__seen = seen;
    return ft_run_algo(run, cfg, &wrapped, cd, k, rounds, NULL);
}

static inline int ft_run_rounds_seen(fgl_run *run, const fgl_fed_config *cfg, const char *algo, fgl_client_data *cd, int k,
                                     int rounds, ft_seen *seen) {
    return ft_run_algo_seen(run, cfg, fgl_algo_find(algo), cd, k, rounds, seen);
}

static inline int ft_run_rounds(fgl_run *run, const fgl_fed_config *cfg, const char *algo, fgl_client_data *cd, int k,
                         int rounds, const char *const *sets) {
    const fgl_algo *a = fgl_algo_find(algo);
    if (!a) {
        FT_CHECK(0, "no algorithm '%s'", algo);
        return 0;
    }
    return ft_run_algo(run, cfg, a, cd, k, rounds, sets);
}

/* The run's client matrix (fgl_run_client_matrix) in buffer `slot` (0 to
 * 3: up to four matrices at hand at once, of up to 64 clients), or NULL when
 * there is none. */
static inline const float *ft_matrix(const fgl_run *run, int slot) {
    static float buf[4][64 * 64];
    if (slot < 0 || slot > 3 || run->n_clients > 64) return NULL;
    return fgl_run_client_matrix(run, buf[slot]) == FGL_OK ? buf[slot] : NULL;
}

/* The same rounds done and the same per-client accuracies, macro-F1s,
 * ROC-AUCs and losses, bit for bit. */
static inline int ft_same_history(const fgl_run *a, const fgl_run *b) {
    size_t n = (size_t)a->round * a->n_clients;
    return a->round == b->round && memcmp(a->client_val, b->client_val, sizeof(double) * n) == 0 &&
           memcmp(a->client_test, b->client_test, sizeof(double) * n) == 0 &&
           memcmp(a->client_loss, b->client_loss, sizeof(double) * n) == 0 &&
           memcmp(a->client_val_f1, b->client_val_f1, sizeof(double) * n) == 0 &&
           memcmp(a->client_test_f1, b->client_test_f1, sizeof(double) * n) == 0 &&
           memcmp(a->client_val_auc, b->client_val_auc, sizeof(double) * n) == 0 &&
           memcmp(a->client_test_auc, b->client_test_auc, sizeof(double) * n) == 0;
}

/* Every client's model parameters equal, bit for bit. */
static inline int ft_same_models(const fgl_run *a, const fgl_run *b) {
    int i;
    for (i = 0; i < a->n_clients; i++)
        if (a->clients[i].model.params.size != b->clients[i].model.params.size ||
            memcmp(a->clients[i].model.params.data, b->clients[i].model.params.data,
                   sizeof(float) * a->clients[i].model.params.size) != 0)
            return 0;
    return 1;
}

/* Two stores hold the same entries with the same contents, bit for bit. */
static inline int ft_same_store(const fgl_store *a, const fgl_store *b, char *why, size_t cap) {
    int i;
    if (a->n != b->n) {
        snprintf(why, cap, "%d vs %d entries", a->n, b->n);
        return 0;
    }
    for (i = 0; i < a->n; i++) {
        const fgl__entry *x = &a->e[i], *y = &b->e[i];
        int same = 1;
        if (x->kind != y->kind || strcmp(x->name, y->name) || x->n != y->n) same = 0;
        else if (x->kind == FGL__E_FLOATS) same = !memcmp(x->p, y->p, sizeof(float) * x->n);
        else if (x->kind == FGL__E_INTS) same = !memcmp(x->p, y->p, sizeof(int) * x->n);
        else if (x->kind == FGL__E_MODEL || x->kind == FGL__E_PARAMS) {
            const fgl_params *p = x->kind == FGL__E_MODEL ? &((const fgl_model *)x->p)->params : (const fgl_params *)x->p;
            const fgl_params *q = y->kind == FGL__E_MODEL ? &((const fgl_model *)y->p)->params : (const fgl_params *)y->p;
            same = p->size == q->size && !memcmp(p->data, q->data, sizeof(float) * p->size);
        } else if (x->kind == FGL__E_OPTIM) {
            const fgl_optim *p = (const fgl_optim *)x->p, *q = (const fgl_optim *)y->p;
            same = p->size == q->size && p->t == q->t && !memcmp(p->m, q->m, sizeof(float) * p->size) &&
                   !memcmp(p->v, q->v, sizeof(float) * p->size);
        } else if (x->kind == FGL__E_RNG) {
            same = !memcmp(x->p, y->p, sizeof(fgl_rng));
        }
        if (!same) {
            snprintf(why, cap, "entry '%s' differs", x->name);
            return 0;
        }
    }
    return 1;
}

/* Same history, models, byte counts and every piece of algorithm state. */
static inline int ft_same_run(const fgl_run *a, const fgl_run *b, char *why, size_t cap) {
    int i;
    if (!ft_same_history(a, b)) return snprintf(why, cap, "histories differ"), 0;
    if (!ft_same_models(a, b)) return snprintf(why, cap, "models differ"), 0;
    if (a->bytes_up != b->bytes_up || a->bytes_down != b->bytes_down) return snprintf(why, cap, "byte totals differ"), 0;
    if (!ft_same_store(&a->server.store, &b->server.store, why, cap)) return 0;
    for (i = 0; i < a->n_clients; i++)
        if (!ft_same_store(&a->clients[i].store, &b->clients[i].store, why, cap)) return 0;
    return 1;
}

/* Parameter sets a then b (each NULL-terminated key, value pairs) joined
 * into out (cap entries, NULL-terminated); returns out. */
static inline const char *const *ft_join(const char *const *a, const char *const *b, const char **out, int cap) {
    int n = 0;
    for (; a && *a && n + 2 < cap; a += 2) out[n++] = a[0], out[n++] = a[1];
    for (; b && *b && n + 2 < cap; b += 2) out[n++] = b[0], out[n++] = b[1];
    out[n] = NULL;
    return out;
}

/* n_comm communities of `per` nodes; a node links to the 2 nodes either
 * side of it on its community's ring; its features are its community's
 * one-hot vector, its label its community, and node i's split
 * split_of[i % period] (FGL_SPLIT_*). 0 or an error code. */
static inline int ft_communities(fgl_node_data *d, int n_comm, int per, const unsigned char *split_of, int period) {
    int n = n_comm * per, i, k, e = 0, *r = (int *)malloc(sizeof(int) * (size_t)n * 4);
    int *c = (int *)malloc(sizeof(int) * (size_t)n * 4);
    fgl_error err;
    int rc = FGL_ERR_NOMEM;
    fgl_node_data_init(d);
    snprintf(d->name, sizeof d->name, "communities");
    d->n_nodes = n;
    d->n_feat = n_comm;
    d->n_classes = n_comm;
    d->y = (int *)malloc(sizeof(int) * (size_t)n);
    d->split = (unsigned char *)malloc((size_t)n);
    if (!r || !c || !d->y || !d->split || fgl_tensor_init(&d->x, n, n_comm)) goto done;
    for (i = 0; i < n; i++) {
        int cm = i / per, j = i % per;
        FGL_AT(&d->x, i, cm) = 1.0f;
        d->y[i] = cm;
        d->split[i] = split_of[i % period];
        for (k = 1; k <= 2; k++) {
            r[e] = i, c[e++] = cm * per + (j + k) % per;
            r[e] = i, c[e++] = cm * per + (j + per - k) % per;
        }
    }
    rc = fgl_csr_from_coo(n, n, e, r, c, NULL, 0, &d->adj, &err);
done:
    free(r);
    free(c);
    return rc;
}

/* algo over cd[0..k-1] (parameters sets, local_epochs 2): `rounds` rounds
 * straight, and `cut` rounds + save + load into a fresh run + the rest,
 * must end the same, bit for bit (ft_same_run). */
static inline void ft_resume_at(const char *algo, fgl_client_data *cd, int k, int rounds, int cut,
                                const char *const *sets) {
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run full, part, resumed;
    fgl_error err;
    char path[256], why[128] = "";
    int r, ok;
    snprintf(path, sizeof path, "/tmp/fgl_test_%s_%d_%lx.ckpt", algo, cut, (unsigned long)(uintptr_t)cd);
    cfg.rounds = rounds;
    cfg.local_epochs = 2;
    if (!ft_run_rounds(&full, &cfg, algo, cd, k, rounds, sets)) return;
    if (!ft_run_rounds(&part, &cfg, algo, cd, k, cut, sets)) {
        fgl_run_free(&full);
        return;
    }
    ok = fgl_run_save(&part, path, &err) == FGL_OK;
    FT_CHECK(ok, "save: %s", err.msg);
    fgl_run_free(&part);
    if (ok && ft_run_rounds(&resumed, &cfg, algo, cd, k, 0, sets)) {
        ok = fgl_run_load(&resumed, path, &err) == FGL_OK;
        FT_CHECK(ok, "load: %s", err.msg);
        for (r = resumed.round; ok && r < rounds; r++) ok = fgl_run_round(&resumed) == FGL_OK;
        FT_CHECK(ok, "resumed round: %s", resumed.err.msg);
        FT_CHECK(!ok || ft_same_run(&full, &resumed, why, sizeof why), "%s resumed at round %d of %d differs: %s",
                 algo, cut, rounds, why);
        fgl_run_free(&resumed);
    }
    remove(path);
    fgl_run_free(&full);
}

/* The mean over clients of the share of their test samples in their most
 * common class: what predicting each client's majority class scores. */
static inline double ft_majority_baseline(const fgl_scenario *sc) {
    double sum = 0;
    int i, j, c;
    for (i = 0; i < sc->n_clients; i++) {
        int n = 0, best = 0, C = sc->node ? sc->node[i].n_classes : sc->graphs[i].n_classes;
        int *cnt = (int *)calloc((size_t)(C > 0 ? C : 1), sizeof(int));
        const int *y = sc->node ? sc->node[i].y : sc->graphs[i].y;
        const unsigned char *split = sc->node ? sc->node[i].split : sc->graphs[i].split;
        int m = sc->node ? sc->node[i].n_nodes : sc->graphs[i].n_graphs;
        if (!cnt) return 1;
        for (j = 0; j < m; j++)
            if (split[j] == FGL_SPLIT_TEST && y[j] >= 0 && y[j] < C) {
                cnt[y[j]]++;
                n++;
            }
        for (c = 0; c < C; c++) best = cnt[c] > best ? cnt[c] : best;
        sum += n ? (double)best / n : 0;
        free(cnt);
    }
    return sum / sc->n_clients;
}

/* One algorithm of an end-to-end comparison (ft_end_to_end). */
typedef struct ft_e2e_algo {
    const char *name;
    int rounds;               /* rounds it runs */
    const char *const *sets;  /* its parameters (NULL-terminated key, value pairs), or NULL */
    int one_thread_too;       /* 1: run again on one thread, which must give the same bits */
} ft_e2e_algo;

/* End to end: each of algos[0..n-1] over cd[0..k-1] with cfg (cfg->threads
 * above 1 for the thread check), one line each of its best and last mean
 * test accuracy under `label`; outside quick runs (ft_quick) its best above
 * `bar`. s[a] is algorithm a's summary (zeroed when it did not run); with
 * `inspect`, inspect(a, run, ud) sees each run before it is freed. Returns
 * the number of algorithms that ran (one that failed has failed the test). */
static inline int ft_end_to_end(const char *label, const ft_e2e_algo *algos, int n, const fgl_fed_config *cfg,
                                fgl_client_data *cd, int k, double bar, fgl_run_summary *s,
                                void (*inspect)(int a, const fgl_run *run, void *ud), void *ud) {
    int a, ran = 0;
    printf("#   %s: %-12s %8s %8s\n", label, "algorithm", "best", "last");
    for (a = 0; a < n; a++) {
        fgl_fed_config c = *cfg;
        fgl_run run, one;
        memset(&s[a], 0, sizeof s[a]);
        c.rounds = algos[a].rounds;
        if (!ft_run_rounds(&run, &c, algos[a].name, cd, k, c.rounds, algos[a].sets)) continue;
        ran++;
        fgl_run_summarize(&run, &s[a]);
        printf("#   %s: %-12s %7.2f%% %7.2f%%\n", label, algos[a].name, 100 * s[a].best_test, 100 * s[a].last_test);
        if (!ft_quick())
            FT_CHECK(s[a].best_test > bar, "%s: best mean test accuracy %.3f, not above %.3f", algos[a].name,
                     s[a].best_test, bar);
        if (algos[a].one_thread_too) {
            fgl_fed_config c1 = c;
            c1.threads = 1;
            if (ft_run_rounds(&one, &c1, algos[a].name, cd, k, c.rounds, algos[a].sets)) {
                FT_CHECK(ft_same_history(&run, &one) && ft_same_models(&run, &one), "%s: 1 and %d threads differ",
                         algos[a].name, c.threads);
                fgl_run_free(&one);
            }
        }
        if (inspect) inspect(a, &run, ud);
        fgl_run_free(&run);
    }
    return ran;
}

#endif
