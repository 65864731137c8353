/* Tests of GPFL (docs/algorithms.md, GPFL) and its protocol: the soft
 * Dirichlet split with equal client sizes, stratified k-fold CV inside each
 * client, GPFL's graph properties (hand-computed graphs), the server's graph
 * auto-encoder (loss gradient, training), the aggregation rule recomputed
 * from what the server saw (the authors' weighting and the paper's), the
 * special cases that must reduce to Local, the ablation switches, the
 * client network offered every round, FED-PUB on a GIN for graph tasks,
 * checkpoint/resume, and GPFL beside Local and FedAvg end to end. They run
 * on PROTEINS (MUTAG in quick runs) when FGL_DATA has it and on fgl's
 * synthetic graphs otherwise. */
#include "../fgl_fed.h"
#include "ft.h"
#include "ft_fed.h"
#include <time.h>

static fgl_dataset graphs;
static int real_graphs;

/* The graph set over k clients of GPFL's split (alpha, 3 folds, fold 0),
 * each with the protocol's GIN. */
static int gpfl_clients(int k, double alpha, int fold, fgl_scenario *sc, fgl_client_data *cd) {
    fgl_error err;
    fgl_split_config split = fgl_split_default();
    fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GIN, FGL_TASK_GRAPH, 1, 1);
    split.how = FGL_PART_DIRICHLET_EQUAL;
    split.clients = k;
    split.alpha = alpha;
    split.folds = 3;
    split.fold = fold;
    if (fgl_scenario_make(sc, &graphs, &split, &err)) {
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

static fgl_fed_config graph_cfg(int rounds) {
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_GRAPH);
    cfg.rounds = rounds;
    cfg.batch_size = 32; /* a few steps per round on small clients */
    cfg.optim.lr = 0.01f;
    return cfg;
}

/* --- the split ------------------------------------------------------------------ */

/* labels 0..C-1 in blocks: n_c items of class c */
static int *block_labels(int n, int C) {
    int *y = (int *)malloc(sizeof(int) * (size_t)n), i;
    for (i = 0; i < n; i++) y[i] = i * C / n;
    return y;
}

/* mean over clients of the share of their largest class */
static double dominant_share(const int *y, const int *client_of, int n, int C, int K, int *empty_class_clients) {
    int *cnt = (int *)calloc((size_t)K * (size_t)C, sizeof(int)), i, c;
    double sum = 0;
    *empty_class_clients = 0;
    for (i = 0; i < n; i++) cnt[client_of[i] * C + y[i]]++;
    for (i = 0; i < K; i++) {
        int best = 0, tot = 0, zero = 0;
        for (c = 0; c < C; c++) {
            tot += cnt[i * C + c];
            best = cnt[i * C + c] > best ? cnt[i * C + c] : best;
            zero |= cnt[i * C + c] == 0;
        }
        *empty_class_clients += zero;
        sum += tot ? (double)best / tot : 0;
    }
    free(cnt);
    return sum / K;
}

static void test_split_dirichlet_equal(void) {
    int n = 4000, C = 2, K = 25, i, *y = block_labels(n, C), *a = (int *)malloc(sizeof(int) * (size_t)n);
    int *b = (int *)malloc(sizeof(int) * (size_t)n), *size = (int *)calloc((size_t)K, sizeof(int)), z0, z1, same = 1;
    double skewed, mild;
    fgl_error err;
    FT_CHECK(fgl_split_dirichlet_equal(y, n, C, K, 0.5, 0.95, 7, a, &err) == FGL_OK, "%s", err.msg);
    for (i = 0; i < n; i++) {
        FT_CHECK(a[i] >= 0 && a[i] < K, "item %d: client %d", i, a[i]);
        if (a[i] >= 0 && a[i] < K) size[a[i]]++;
    }
    for (i = 0; i < K; i++) /* 4000 = 25 x 160: equal; see below for a remainder */
        FT_CHECK(size[i] == n / K, "client %d holds %d items, expected %d", i, size[i], n / K);
    FT_CHECK(fgl_split_dirichlet_equal(y, n, C, K, 0.5, 0.95, 7, b, &err) == FGL_OK, "%s", err.msg);
    for (i = 0; i < n; i++) same &= a[i] == b[i];
    FT_CHECK(same, "the same seed gives another split");
    fgl_split_dirichlet_equal(y, n, C, K, 0.5, 0.95, 8, b, &err);
    for (i = 0, same = 1; i < n; i++) same &= a[i] == b[i];
    FT_CHECK(!same, "another seed gives the same split");
    /* smaller alpha, stronger skew */
    skewed = dominant_share(y, a, n, C, K, &z0);
    fgl_split_dirichlet_equal(y, n, C, K, 100.0, 0.95, 7, b, &err);
    mild = dominant_share(y, b, n, C, K, &z1);
    FT_CHECK(skewed > mild + 0.15 && mild < 0.62, "dominant class share: alpha 0.5 %.3f, alpha 100 %.3f", skewed, mild);
    /* the cap: alpha 0.01 draws nearly one-hot priors; capped at 0.95 every
     * client of 160 items still holds both classes, uncapped most do not */
    fgl_split_dirichlet_equal(y, n, C, K, 0.01, 0.95, 3, a, &err);
    dominant_share(y, a, n, C, K, &z0);
    fgl_split_dirichlet_equal(y, n, C, K, 0.01, 1.0, 3, b, &err);
    dominant_share(y, b, n, C, K, &z1);
    FT_CHECK(z0 == 0 && z1 >= 5, "clients missing a class: cap 0.95 %d, no cap %d (of %d)", z0, z1, K);
    /* a remainder goes to the first clients */
    free(y);
    y = block_labels(4010, C);
    a = (int *)realloc(a, sizeof(int) * 4010);
    memset(size, 0, sizeof(int) * (size_t)K);
    FT_CHECK(fgl_split_dirichlet_equal(y, 4010, C, K, 1.0, 0.95, 1, a, &err) == FGL_OK, "%s", err.msg);
    for (i = 0; i < 4010; i++) size[a[i]]++;
    for (i = 0; i < K; i++) FT_CHECK(size[i] == 160 + (i < 10), "client %d: %d items", i, size[i]);
    /* bad input */
    FT_CHECK(fgl_split_dirichlet_equal(y, 10, C, 11, 1.0, 0.95, 1, a, &err) == FGL_ERR_ARG, "more clients than items");
    FT_CHECK(fgl_split_dirichlet_equal(y, 100, C, 5, 0.0, 0.95, 1, a, &err) == FGL_ERR_ARG, "alpha 0");
    FT_CHECK(fgl_split_dirichlet_equal(y, 100, C, 5, 1.0, 0.4, 1, a, &err) == FGL_ERR_ARG && strstr(err.msg, "cap"),
             "a cap below 1/C: %s", err.msg);
    y[3] = 5;
    FT_CHECK(fgl_split_dirichlet_equal(y, 100, C, 5, 1.0, 0.95, 1, a, &err) == FGL_ERR_RANGE, "label out of range");
    free(y);
    free(a);
    free(b);
    free(size);
}

static void test_kfold(void) {
    fgl_graph_set s = graphs.sets[0];
    int F = 5, G = s.n_graphs, f, g, c, *times = (int *)calloc((size_t)G, sizeof(int));
    int *per = (int *)calloc((size_t)F * (size_t)s.n_classes, sizeof(int)), other = 0;
    unsigned char *keep = s.split;
    s.split = NULL; /* a private split array on a shallow copy */
    for (f = 0; f < F; f++) {
        FT_CHECK(fgl_split_graphs_kfold(&s, F, f, 11, NULL) == FGL_OK, "fold %d", f);
        for (g = 0; g < G; g++) {
            if (s.split[g] == FGL_SPLIT_TEST) {
                times[g]++;
                per[f * s.n_classes + s.y[g]]++;
            } else {
                other += s.split[g] != FGL_SPLIT_TRAIN;
            }
        }
    }
    for (g = 0; g < G; g++) FT_CHECK(times[g] == 1, "graph %d is a test graph in %d folds", g, times[g]);
    FT_CHECK(other == 0, "%d graphs neither training nor test", other);
    for (c = 0; c < s.n_classes; c++) {
        int lo = G, hi = 0;
        for (f = 0; f < F; f++) {
            lo = per[f * s.n_classes + c] < lo ? per[f * s.n_classes + c] : lo;
            hi = per[f * s.n_classes + c] > hi ? per[f * s.n_classes + c] : hi;
        }
        FT_CHECK(hi - lo <= 1, "class %d: %d to %d test graphs per fold (stratified: at most 1 apart)", c, lo, hi);
    }
    FT_CHECK(fgl_split_graphs_kfold(&s, 1, 0, 1, NULL) == FGL_ERR_ARG && fgl_split_graphs_kfold(&s, 5, 5, 1, NULL) == FGL_ERR_ARG,
             "bad folds accepted");
    free(s.split);
    s.split = keep;
    free(times);
    free(per);
}

/* --- graph properties ------------------------------------------------------------- */

static void graph_of(int n, const int *src, const int *dst, int m, fgl_csr *out) {
    fgl_error err;
    if (fgl_graph_from_edges(n, src, dst, m, FGL_EDGES_SYMMETRIZE, out, &err)) FT_CHECK(0, "%s", err.msg);
}

static void test_gpfl_properties(void) {
    static const int ps[] = {0, 1}, pd[] = {1, 2};                       /* path 0-1-2 */
    static const int ks[] = {0, 0, 0, 1, 1, 2}, kd[] = {1, 2, 3, 2, 3, 3}; /* K4 */
    fgl_csr p3, k4;
    fgl_graph_set set;
    double v[FGL_GPFL_PROPS], m[FGL_GPFL_PROPS];
    fgl_error err;
    int i;
    graph_of(3, ps, pd, 2, &p3);
    graph_of(4, ks, kd, 6, &k4);
    /* P3: degrees 1, 2, 1; 2|E| = 4 */
    FT_CHECK(fgl_graph_gpfl_properties(&p3, v, &err) == FGL_OK, "%s", err.msg);
    FT_NEAR(v[0], 4.0 / 3, 1e-12, "P3 average degree");
    FT_NEAR(v[1], 4.0 / 6, 1e-12, "P3 density");
    FT_NEAR(v[2], 2.0 - 16.0 / 9, 1e-12, "P3 degree variance");
    FT_NEAR(v[3], (2 * log(2.0) / 3) / 4, 1e-12, "P3 entropy mean(d ln d) / 2|E|");
    FT_NEAR(v[4], -(2 + 3.0 / 4), 1e-12, "P3 exponent -(2 + 1/<d>)");
    FT_NEAR(v[5], (1.0 + 2.0 / 3 + 2.0 / 3) / 3, 1e-12, "P3 mean closeness");
    /* K4: degrees 3; 2|E| = 12 */
    fgl_graph_gpfl_properties(&k4, v, &err);
    FT_NEAR(v[0], 3, 1e-12, "K4 average degree");
    FT_NEAR(v[1], 1, 1e-12, "K4 density");
    FT_NEAR(v[2], 0, 1e-12, "K4 degree variance");
    FT_NEAR(v[3], 3 * log(3.0) / 12, 1e-12, "K4 entropy");
    FT_NEAR(v[4], -(2 + 1.0 / 3), 1e-12, "K4 exponent");
    FT_NEAR(v[5], 1, 1e-12, "K4 closeness");
    /* a set of P3, K4 and two isolated nodes: the exponent of the edgeless
     * graph is left out of its mean, the other properties count it as 0 */
    memset(&set, 0, sizeof set);
    {
        static const int node_ptr[] = {0, 3, 7, 9};
        int src[8], dst[8], e = 0;
        for (i = 0; i < 2; i++, e++) {
            src[e] = ps[i];
            dst[e] = pd[i];
        }
        for (i = 0; i < 6; i++, e++) {
            src[e] = 3 + ks[i];
            dst[e] = 3 + kd[i];
        }
        set.n_graphs = 3;
        set.n_nodes = 9;
        set.node_ptr = (int *)node_ptr;
        graph_of(9, src, dst, e, &set.adj);
    }
    FT_CHECK(fgl_graph_set_gpfl_properties(&set, -1, m, &err) == FGL_OK, "%s", err.msg);
    FT_NEAR(m[0], (4.0 / 3 + 3 + 0) / 3, 1e-12, "set: mean average degree");
    FT_NEAR(m[4], (-(2 + 3.0 / 4) - (2 + 1.0 / 3)) / 2, 1e-12, "set: exponent over the graphs with edges");
    FT_NEAR(m[5], ((1.0 + 4.0 / 3) / 3 + 1 + 0) / 3, 1e-12, "set: closeness");
    FT_CHECK(fgl_graph_set_gpfl_properties(&set, FGL_SPLIT_TRAIN, m, &err) == FGL_ERR_ARG, "a split code without a split");
    fgl_csr_free(&set.adj);
    fgl_csr_free(&p3);
    fgl_csr_free(&k4);
}

/* --- the auto-encoder ------------------------------------------------------------- */

typedef struct gae_ctx {
    fgl_gae *g;
    float *a, *x;
    int k;
} gae_ctx;

static fgl_node *gae_loss_build(fgl_tape *t, fgl_params *ps, void *ud) {
    gae_ctx *c = (gae_ctx *)ud;
    fgl_node *logits;
    (void)ps;
    fgl_gae_forward(c->g, t, c->a, c->x, c->k, &logits);
    return fgl_gae_loss(t, logits, 1.0f);
}

static void test_gae(void) {
    enum { K = 6, D = 5 };
    float a[K * K], x[K * D], S[K * K];
    fgl_gae g;
    gae_ctx c;
    fgl_rng r;
    fgl_gradcheck_report rep;
    fgl_optim o;
    fgl_tape t;
    fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
    double first = 0, last = 0;
    int i, rc, in_range = 1;
    fgl_rng_init(&r, 5, 0);
    for (i = 0; i < K * K; i++) a[i] = (float)fgl_rng_uniform(&r);
    for (i = 0; i < K; i++) { /* row-normalised, as GPFL's network: S stays moderate, sigmoid(S) unsaturated in float */
        float sum = 0;
        int j;
        for (j = 0; j < K; j++) sum += a[i * K + j];
        for (j = 0; j < K; j++) a[i * K + j] /= sum;
    }
    for (i = 0; i < K * D; i++) x[i] = fgl_rng_uniformf(&r, -1, 1);
    FT_CHECK(fgl_gae_init(&g, D, 8, 4, 1) == FGL_OK, "init");
    /* the authors' initialisation: U(+-1/sqrt(output width)), LayerNorm 1 / 0 */
    for (i = 0; i < D * 8; i++) in_range &= fabsf(fgl_params_data(&g.params, g.w1)[i]) <= 1 / sqrtf(8.0f);
    for (i = 0; i < 8 * 4; i++) in_range &= fabsf(fgl_params_data(&g.params, g.w2)[i]) <= 0.5f;
    FT_CHECK(in_range && fgl_params_data(&g.params, g.ln_g)[3] == 1 && fgl_params_data(&g.params, g.ln_b)[3] == 0,
             "initialisation");
    c.g = &g;
    c.a = a;
    c.x = x;
    c.k = K;
    rc = fgl_gradcheck_ex(&g.params, gae_loss_build, &c, 1e-3, 0, &rep); /* a step that does not cross the ReLU's kink */
    FT_CHECK(rc == FGL_OK && rep.worst <= 1.0, "gradient of the GPFL loss through the auto-encoder: worst %.3g at %zu: "
             "analytic %.6g numeric %.6g tol %.3g (%s)", rep.worst, rep.index, rep.analytic, rep.numeric, rep.tol, rep.msg);
    /* training lowers the loss; the fit reports the trained logits */
    oc.lr = 1e-3f;
    fgl_optim_init(&o, oc, &g.params);
    fgl_tape_init(&t);
    fgl_gae_fit(&g, &o, &t, a, x, K, 1, 1.0f, NULL, &first);
    FT_CHECK(fgl_gae_fit(&g, &o, &t, a, x, K, 100, 1.0f, S, &last) == FGL_OK, "fit");
    FT_CHECK(last < first, "100 Adam steps: loss %.4f -> %.4f", first, last);
    fgl_tape_reset(&t);
    {
        fgl_node *logits;
        fgl_gae_forward(&g, &t, a, x, K, &logits);
        FT_CHECK(logits && memcmp(logits->val, S, sizeof S) == 0, "S is the trained model's output");
    }
    /* a reset re-draws the same model from the same seed */
    {
        fgl_gae h;
        fgl_gae_init(&h, D, 8, 4, 9);
        fgl_gae_reset(&g, 9, 1);
        FT_CHECK(memcmp(g.params.data, h.params.data, sizeof(float) * g.params.size) == 0, "reset(seed) != init(seed)");
        fgl_gae_free(&h);
    }
    fgl_tape_free(&t);
    fgl_optim_free(&o);
    fgl_gae_free(&g);
}

/* --- the aggregation rule ----------------------------------------------------------- */

/* GPFL, keeping a copy of the server's models before each aggregation and of
 * the uploaded ones. */
static int (*gpfl_init)(fgl_server *), (*gpfl_agg)(fgl_server *);
static int watch_init(fgl_server *s) {
    int rc = gpfl_init(s);
    fgl_new_floats(&s->store, "before", (size_t)s->n_clients * s->n_shared);
    fgl_new_floats(&s->store, "ups", (size_t)s->n_clients * s->n_shared);
    return rc ? rc : s->store.err.code;
}
static int watch_agg(fgl_server *s) {
    memcpy(fgl_floats(&s->store, "before"), fgl_floats(&s->store, "theta"), sizeof(float) * (size_t)s->n_clients * s->n_shared);
    fgl_server_gather(s, "theta", fgl_floats(&s->store, "ups"), NULL);
    return gpfl_agg(s);
}

/* theta_i(after) against theta_i + a (A dtheta)_i + b dtheta_i; the number of
 * values off by more than a float rounding allows. */
static size_t rule_errors(const fgl_run *run, double a, double b) {
    const fgl_store *st = &run->server.store;
    const float *before = fgl_floats(st, "before"), *ups = fgl_floats(st, "ups"), *theta = fgl_floats(st, "theta");
    const float *A = fgl_floats(st, "A");
    int K = run->n_clients, i, j;
    size_t n = run->server.n_shared, q, bad = 0;
    for (i = 0; i < K; i++)
        for (q = 0; q < n; q++) {
            double mix = 0, own = (double)ups[i * n + q] - before[i * n + q], want;
            for (j = 0; j < K; j++) mix += (double)A[i * K + j] * ((double)ups[j * n + q] - before[j * n + q]);
            want = before[i * n + q] + a * mix + b * own;
            bad += fabs(want - theta[i * n + q]) > 1e-5 * (1 + fabs(want));
        }
    return bad;
}

static void test_gpfl_rule(void) {
    fgl_scenario sc;
    fgl_client_data cd[6];
    fgl_fed_config cfg = graph_cfg(3);
    fgl_algo watched = fgl_algo_base("gpfl");
    int mode;
    if (!gpfl_clients(6, 0.5, 0, &sc, cd)) return;
    gpfl_init = watched.server_init;
    gpfl_agg = watched.aggregate;
    watched.server_init = watch_init;
    watched.aggregate = watch_agg;
    for (mode = 0; mode < 2; mode++) {
        static const char *const code[] = {"gamma", "0.8", NULL}, *const paper[] = {"gamma", "0.8", "paper_mix", "1", NULL};
        fgl_run run;
        if (!ft_run_algo(&run, &cfg, &watched, cd, 6, 3, mode ? paper : code)) continue;
        {
            const float *A = fgl_floats(&run.server.store, "A");
            size_t n = run.server.n_shared, bad = rule_errors(&run, mode ? 0.2 : 0.8, mode ? 0.8 : 0.2), P, F;
            int i, j, C = run.clients[0].model.spec.out_dim, rows_ok = 1;
            float *now = (float *)malloc(sizeof(float) * n);
            FT_CHECK(bad == 0, "%s weighting: %zu of %zu values differ from theta + a A dtheta + b dtheta",
                     mode ? "paper's" : "code's", bad, 6 * n);
            for (i = 0; i < 6; i++) { /* rows: 1 / degree on the kept links, summing to 1 */
                double sum = 0;
                float w = 0;
                for (j = 0; j < 6; j++) {
                    float v = A[i * 6 + j];
                    sum += v;
                    if (v > 0 && w == 0) w = v;
                    rows_ok &= v == 0 || v == w;
                }
                rows_ok &= fabs(sum - 1) < 1e-5;
            }
            FT_CHECK(rows_ok, "the client network's rows are not normalised 0/1 indicators");
            for (i = 0; i < 6 && now; i++) { /* each client holds its own row of the server's models */
                fgl_client_pack(&run.clients[i], &run.clients[i].model.params, now);
                FT_CHECK(memcmp(now, fgl_floats(&run.server.store, "theta") + (size_t)i * n, sizeof(float) * n) == 0,
                         "client %d does not hold theta_%d", i, i);
            }
            free(now);
            /* bytes: the model and 20 x C embedding every round, 6 properties once */
            P = 4 * (n + 20 * (size_t)C);
            F = 4 * n;
            FT_CHECK(run.stats[0].bytes_up == 6 * (P + 24) && run.stats[1].bytes_up == 6 * P && run.stats[2].bytes_up == 6 * P,
                     "bytes up per round %zu %zu %zu, expected %zu then %zu", run.stats[0].bytes_up, run.stats[1].bytes_up,
                     run.stats[2].bytes_up, 6 * (P + 24), 6 * P);
            FT_CHECK(run.stats[1].bytes_down == 6 * F && run.stats[0].bytes_down == 12 * F, "bytes down %zu %zu",
                     run.stats[0].bytes_down, run.stats[1].bytes_down);
            fgl_run_free(&run);
        }
    }
    fgl_scenario_free(&sc);
}

/* gamma = 0 (the code's weighting) or gamma = 1 with the paper's: every
 * client keeps exactly its own update, i.e. trains alone: Local, up to the
 * rounding of theta + (theta' - theta). */
static void test_gpfl_reduces_to_local(void) {
    fgl_scenario sc;
    fgl_client_data cd[4];
    fgl_fed_config cfg = graph_cfg(3);
    fgl_run local, g;
    int mode, i;
    if (!gpfl_clients(4, 1.0, 1, &sc, cd)) return;
    if (!ft_run_rounds(&local, &cfg, "local", cd, 4, 3, NULL)) {
        fgl_scenario_free(&sc);
        return;
    }
    for (mode = 0; mode < 2; mode++) {
        static const char *const z[] = {"gamma", "0", NULL}, *const p[] = {"gamma", "1", "paper_mix", "1", NULL};
        double worst = 0;
        size_t q;
        if (!ft_run_rounds(&g, &cfg, "gpfl", cd, 4, 3, mode ? p : z)) continue;
        for (i = 0; i < 4; i++)
            for (q = 0; q < g.clients[i].model.params.size; q++) {
                double d = fabs((double)g.clients[i].model.params.data[q] - local.clients[i].model.params.data[q]);
                worst = d > worst ? d : worst;
            }
        FT_CHECK(worst < 1e-4, "%s: GPFL differs from Local by %.3g", mode ? "paper_mix gamma=1" : "gamma=0", worst);
        fgl_run_free(&g);
    }
    /* and the default differs from Local (the check can fail) */
    if (ft_run_rounds(&g, &cfg, "gpfl", cd, 4, 3, NULL)) {
        FT_CHECK(!ft_same_models(&g, &local), "default GPFL trained exactly as Local");
        fgl_run_free(&g);
    }
    fgl_run_free(&local);
    fgl_scenario_free(&sc);
}

/* The client network is offered after every round; learn=0 keeps the
 * initial one (the random one with init=0), learn=1 rebuilds it; the
 * report names the kept properties. */
static void test_gpfl_network_and_ablations(void) {
    fgl_scenario sc;
    fgl_client_data cd[6];
    fgl_fed_config cfg = graph_cfg(4);
    int init, learn;
    if (!gpfl_clients(6, 0.5, 2, &sc, cd)) return;
    for (init = 0; init < 2; init++)
        for (learn = 0; learn < 2; learn++) {
            const char *sets[] = {"init", init ? "1" : "0", "learn", learn ? "1" : "0", NULL};
            fgl_run run;
            float first[36];
            int r, i, fixed = 1, rows = 1;
            char rep[512];
            if (!ft_run_rounds(&run, &cfg, "gpfl", cd, 6, 0, sets)) continue;
            for (r = 0; r < 4; r++) {
                const float *A;
                if (fgl_run_round(&run)) {
                    FT_CHECK(0, "round %d: %s", r, run.err.msg);
                    break;
                }
                A = ft_matrix(&run, 0);
                FT_CHECK(A != NULL, "no client network after round %d", r + 1);
                if (!A) break;
                for (i = 0; i < 6; i++) {
                    double sum = 0;
                    int j;
                    for (j = 0; j < 6; j++) sum += A[i * 6 + j];
                    rows &= fabs(sum - 1) < 1e-5;
                }
                if (r == 0) memcpy(first, A, sizeof first);
                else fixed &= memcmp(first, A, sizeof first) == 0;
            }
            FT_CHECK(rows, "init=%d learn=%d: rows of the network do not sum to 1", init, learn);
            if (!learn) FT_CHECK(fixed, "init=%d learn=0: the network changed between rounds", init);
            fgl_run_report(&run, rep, sizeof rep);
            FT_CHECK(init ? !strstr(rep, "\"gpfl_properties\": \"\"") : strstr(rep, "\"gpfl_properties\": \"\"") != NULL,
                     "init=%d: report %s", init, rep);
            if (!init && !learn) { /* the random network: U(0, 1) entries, row-normalised */
                int j, distinct = 0;
                for (i = 0; i < 6; i++)
                    for (j = 1; j < 6; j++) distinct += first[i * 6 + j] != first[i * 6];
                FT_CHECK(distinct > 20, "the random network looks constant");
            }
            fgl_run_free(&run);
        }
    fgl_scenario_free(&sc);
}

/* --- FED-PUB on a GIN ------------------------------------------------------------- */

static void test_fedpub_graph(void) {
    fgl_scenario sc;
    fgl_client_data cd[4];
    fgl_fed_config cfg = graph_cfg(3);
    fgl_run run;
    if (!gpfl_clients(4, 1.0, 0, &sc, cd)) return;
    if (ft_run_rounds(&run, &cfg, "fedpub", cd, 4, 3, NULL)) {
        const fgl_params *ps = &run.clients[0].model.params;
        size_t masks = fgl_params_count(ps, FGL_G_MASK), shared = run.server.n_shared;
        const float *sim = ft_matrix(&run, 0);
        int i;
        double sum = 0;
        FT_CHECK(masks > 0 && masks < ps->size, "masks: %zu of %zu floats", masks, ps->size);
        FT_CHECK(shared == ps->size - masks, "masks are sent: %zu shared of %zu", shared, ps->size);
        FT_CHECK(fgl_model_emb_dim(&run.clients[0].model) == 64, "embedding width %d", fgl_model_emb_dim(&run.clients[0].model));
        FT_CHECK(run.stats[1].bytes_up == 4 * 4 * (shared + 64 + 1), "bytes up %zu", run.stats[1].bytes_up);
        for (i = 0; i < 4; i++) sum += sim[i];
        FT_CHECK(fabs(sum - 1) < 1e-5, "similarity weights of client 0 sum to %g", sum);
        fgl_run_free(&run);
    }
    fgl_scenario_free(&sc);
}

/* --- checkpoints ------------------------------------------------------------------ */

static void resume_check(const char *algo, fgl_client_data *cd, int k) {
    fgl_fed_config cfg = graph_cfg(5);
    fgl_run full, part, resumed;
    fgl_error err;
    char path[256], why[128] = "";
    int r, ok;
    snprintf(path, sizeof path, "/tmp/fgl_test_gpfl_%s_%lx.bin", algo, (unsigned long)time(NULL));
    cfg.local_epochs = 2;
    if (!ft_run_rounds(&full, &cfg, algo, cd, k, 5, NULL)) return;
    if (ft_run_rounds(&part, &cfg, algo, cd, k, 2, NULL)) {
        ok = fgl_run_save(&part, path, &err) == FGL_OK;
        FT_CHECK(ok, "%s: save: %s", algo, err.msg);
        fgl_run_free(&part);
        if (ok && ft_run_rounds(&resumed, &cfg, algo, cd, k, 0, NULL)) {
            ok = fgl_run_load(&resumed, path, &err) == FGL_OK;
            FT_CHECK(ok, "%s: load: %s", algo, err.msg);
            for (r = resumed.round; ok && r < 5; r++) ok = fgl_run_round(&resumed) == FGL_OK;
            FT_CHECK(ok && ft_same_run(&full, &resumed, why, sizeof why), "%s: resumed run differs: %s", algo, why);
            fgl_run_free(&resumed);
        }
        remove(path);
    }
    fgl_run_free(&full);
}

static void test_resume(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    if (!gpfl_clients(5, 0.5, 0, &sc, cd)) return;
    resume_check("gpfl", cd, 5);
    resume_check("fedpub", cd, 5);
    fgl_scenario_free(&sc);
}

/* --- end to end ------------------------------------------------------------------- */

/* Local, FedAvg and GPFL on the same label-skewed clients: all learn (beat
 * each client's majority class would be too strict in few rounds; beat
 * chance), GPFL's client network keeps links, and the results are
 * reproducible at 1 and 2 threads. */
static void test_end_to_end(void) {
    static const char *algos[] = {"local", "fedavg", "gpfl"};
    fgl_scenario sc;
    fgl_client_data cd[6];
    int rounds = ft_quick() ? 3 : 40, a;
    double chance;
    if (!gpfl_clients(6, 0.5, 0, &sc, cd)) return;
    chance = 1.0 / graphs.sets[0].n_classes;
    for (a = 0; a < 3; a++) {
        fgl_fed_config cfg = graph_cfg(rounds);
        fgl_run r1, r2;
        fgl_run_summary s;
        cfg.threads = 1;
        if (!ft_run_rounds(&r1, &cfg, algos[a], cd, 6, rounds, NULL)) continue;
        fgl_run_summarize(&r1, &s);
        printf("#   %-6s %s, 6 clients, alpha 0.5, %d rounds: last-round test %.3f (majority %.3f)\n", algos[a],
               graphs.label, rounds, s.last_test, ft_majority_baseline(&sc));
        if (!ft_quick()) FT_CHECK(s.last_test > chance + 0.05, "%s: %.3f, chance %.3f", algos[a], s.last_test, chance);
        if (a == 2) {
            cfg.threads = 2;
            if (ft_run_rounds(&r2, &cfg, algos[a], cd, 6, rounds, NULL)) {
                FT_CHECK(ft_same_history(&r1, &r2) && ft_same_models(&r1, &r2), "gpfl: 1 and 2 threads differ");
                fgl_run_free(&r2);
            }
        }
        fgl_run_free(&r1);
    }
    fgl_scenario_free(&sc);
}

/* Errors: node data, bad parameters. */
static void test_errors(void) {
    fgl_dataset nodes;
    fgl_scenario sc;
    fgl_client_data cd[3];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run run;
    fgl_error err;
    ft_node_data(&nodes);
    if (ft_node_clients(&nodes, 3, 8, &sc, cd)) {
        cfg.rounds = 1;
        /* refused when the run is set up, before anything is built or trained */
        FT_CHECK(fgl_run_init(&run, &cfg, fgl_algo_find("gpfl"), cd, 3, &err) == FGL_ERR_ARG &&
                     strstr(err.msg, "graph classification"),
                 "gpfl on nodes: %s", err.msg);
        fgl_scenario_free(&sc);
    }
    fgl_dataset_free(&nodes);
    if (gpfl_clients(3, 1.0, 0, &sc, cd)) {
        cfg = graph_cfg(1);
        FT_CHECK(fgl_run_init(&run, &cfg, fgl_algo_find("gpfl"), cd, 3, &err) == FGL_OK, "%s", err.msg);
        fgl_run_set(&run, "gamma", "1.5", &err);
        FT_CHECK(fgl_run_round(&run) == FGL_ERR_ARG && strstr(run.err.msg, "gamma"), "gamma 1.5: %s", run.err.msg);
        fgl_run_free(&run);
        fgl_scenario_free(&sc);
    }
    {
        fgl_split_config split = fgl_split_default();
        split.folds = 3;
        split.fold = 3;
        FT_CHECK(fgl_scenario_make(&sc, &graphs, &split, &err) == FGL_ERR_ARG && strstr(err.msg, "fold"), "fold 3 of 3: %s",
                 err.msg);
    }
}

static fgl_node *gae_build(fgl_tape *t, fgl_params *ps, void *ud) {
    gae_ctx *c = (gae_ctx *)ud;
    fgl_node *logits;
    (void)ps;
    fgl_gae_forward(c->g, t, c->a, c->x, c->k, &logits);
    return logits;
}

/* GPFL's auto-encoder on the GCN-normalised network: the logits' gradient
 * by finite differences. */
static void test_gae_gradient(void) {
    fgl_gae g;
    gae_ctx c;
    float a[25], ah[25], x[5 * 3];
    fgl_rng r;
    fgl_gradcheck_report rep;
    int i, rc;
    fgl_rng_init(&r, 3, 0);
    for (i = 0; i < 25; i++) a[i] = (i % 5 != i / 5) && fgl_rng_uniform(&r) < 0.5 ? 1.0f : 0.0f;
    for (i = 0; i < 15; i++) x[i] = fgl_rng_uniformf(&r, -1, 1);
    fgl_dense_gcn_norm(a, 5, ah);
    for (i = 0; i < 5; i++) FT_CHECK(ah[i * 5 + i] > 0, "self loop weight on the diagonal");
    FT_CHECK(fgl_gae_init(&g, 3, 6, 4, 1) == FGL_OK, "gae init");
    c.g = &g;
    c.a = ah;
    c.x = x;
    c.k = 5;
    /* smooth but for the ReLU after the LayerNorm: a step small enough not
     * to cross it (h = 1e-3) */
    rc = fgl_gradcheck_ex(&g.params, gae_build, &c, 1e-3, 0, &rep);
    FT_CHECK(rc == FGL_OK && rep.worst <= 1.0, "gae gradient: worst %.3g (%s)", rep.worst, rep.msg);
    fgl_gae_free(&g);
}

int main(void) {
    /* quick (sanitizer) runs check memory safety on the smaller MUTAG */
    real_graphs = ft_graph_data(ft_quick() ? "MUTAG" : "PROTEINS", 0, &graphs);
    printf("# data: %s (%s)\n", graphs.label, real_graphs ? "real" : "synthetic");
    FT_RUN(test_split_dirichlet_equal);
    FT_RUN(test_kfold);
    FT_RUN(test_gpfl_properties);
    FT_RUN(test_gae);
    FT_RUN(test_gae_gradient);
    FT_RUN(test_gpfl_rule);
    FT_RUN(test_gpfl_reduces_to_local);
    FT_RUN(test_gpfl_network_and_ablations);
    FT_RUN(test_fedpub_graph);
    FT_RUN(test_resume);
    FT_RUN(test_end_to_end);
    FT_RUN(test_errors);
    fgl_dataset_free(&graphs);
    return ft_finish();
}
