/* Tests of FGSSL (fgssl):
 * - the node semantic contrast (FNSC) on three nodes against the value
 *   worked out by hand, with a mask and an unlabelled row left out;
 * - the structure distillation (FGSD) on a three-node path against the KL
 *   worked out by hand (nodes with one neighbour contribute 0);
 * - the authors' code's structural term (form = code) on one edge by hand;
 * - finite-difference gradient checks of the three terms;
 * - the augmentation: probabilities 0 and 1 keep and drop everything, an
 *   edge goes with its mirror, masked feature columns are zero (dense and
 *   sparse);
 * - both weights 0 is FedAvg, bit for bit; the defaults and form = code
 *   each train otherwise;
 * - end to end on Cora (fgl's synthetic data where Cora is missing) over 5
 *   Louvain clients beside Local and FedAvg, with thread-count determinism;
 * - saved after 2 of 4 rounds and resumed, the run ends with the
 *   uninterrupted run's bits (the augmentation draws from the client's
 *   generator, which the checkpoint holds).
 * The link and graph refusal: prepare_spec (test_link.c's list); the
 * defences' covered-or-refused check: tests/test_defences_cover.sh. */
#include "../fgl_fed.h"
#include "ft.h"
#include "ft_fed.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static fgl_dataset nodes;

#define NEAR(a, b, tol) (fabs((double)(a) - (double)(b)) < (tol))

/* z rows (1,0), (0,1), (1,1); the global rows (2,0), (0,3), (1,1): unit
 * vectors a_i = b_i = (1,0), (0,1), (1,1)/sqrt2, so s(a_i, b_k) is 1 on the
 * diagonal, 0 between rows 0 and 1, 1/sqrt2 = r otherwise. Labels 0, 0, 1,
 * tau 1:
 *   row 0: -log((e + 1) / (e + 1 + e^r)), row 1 the same,
 *   row 2: -log(e / (e + 2 e^r)).
 * Masking row 1 out (and giving it label -1) leaves rows 0 and 2 with the
 * global rows 0 and 2 only: row 0 -log(e / (e + e^r)), row 2 -log(e / (e + e^r)). */
static void test_fnsc_by_hand(void) {
    float zv[6] = {1, 0, 0, 1, 1, 1}, zg[6] = {2, 0, 0, 3, 1, 1};
    int y[3] = {0, 0, 1}, y2[3] = {0, -1, 1};
    unsigned char mask[3] = {1, 1, 1};
    double e = exp(1.0), er = exp(1 / sqrt(2.0)), want, got;
    fgl_tape t;
    fgl_node *l;
    fgl_tape_init(&t);
    l = fgl__fgssl_fnsc(&t, fgl_op_const(&t, zv, 3, 2), zg, y, NULL, 2, 1.0f);
    want = (-2 * log((e + 1) / (e + 1 + er)) - log(e / (e + 2 * er))) / 3;
    got = l ? l->val[0] : NAN;
    FT_CHECK(l && NEAR(got, want, 1e-5), "fnsc: %.7f, by hand %.7f", got, want);
    l = fgl__fgssl_fnsc(&t, fgl_op_const(&t, zv, 3, 2), zg, y2, mask, 2, 1.0f);
    want = -log(e / (e + er));
    got = l ? l->val[0] : NAN;
    FT_CHECK(l && NEAR(got, want, 1e-5), "fnsc, row 1 out: %.7f, by hand %.7f", got, want);
    mask[0] = mask[2] = 0;
    FT_CHECK(fgl__fgssl_fnsc(&t, fgl_op_const(&t, zv, 3, 2), zg, y2, mask, 2, 1.0f) == NULL,
             "fnsc: no labelled row gives no term");
    FT_CHECK(t.err.code == FGL_OK, "fnsc: tape error %s", t.err.msg);
    fgl_tape_free(&t);
}

/* The path 0 - 1 - 2. Local rows (1,0), (1,1), (0,1): node 1's cosines to
 * 0 and 2 are both 1/sqrt2, q = (1/2, 1/2). Global rows (1,0), (1,0),
 * (0,1): cosines 1 and 0, omega 1, p = (e, 1) / (e + 1). Nodes 0 and 2 have
 * one neighbour (KL 0); all three count: L = KL(p || q) / 3 with
 * KL = p0 log(2 p0) + p1 log(2 p1). Omega 1/2 doubles the scores:
 * p = (e^2, 1) / (e^2 + 1). */
static void test_fgsd_by_hand(void) {
    int indptr[4] = {0, 1, 3, 4}, indices[4] = {1, 0, 2, 1};
    float zv[6] = {1, 0, 1, 1, 0, 1}, zg[6] = {1, 0, 1, 0, 0, 1};
    fgl_csr adj, empty;
    fgl_tape t;
    fgl_node *l;
    double p0 = exp(1.0) / (exp(1.0) + 1), p1 = 1 - p0, want = (p0 * log(2 * p0) + p1 * log(2 * p1)) / 3, got;
    adj.rows = adj.cols = 3;
    adj.nnz = 4;
    adj.indptr = indptr;
    adj.indices = indices;
    adj.values = NULL;
    fgl_tape_init(&t);
    l = fgl__fgssl_fgsd(&t, fgl_op_const(&t, zv, 3, 2), zg, &adj, 1.0f);
    got = l ? l->val[0] : NAN;
    FT_CHECK(l && NEAR(got, want, 1e-6), "fgsd: %.8f, by hand %.8f", got, want);
    p0 = exp(2.0) / (exp(2.0) + 1), p1 = 1 - p0, want = (p0 * log(2 * p0) + p1 * log(2 * p1)) / 3;
    l = fgl__fgssl_fgsd(&t, fgl_op_const(&t, zv, 3, 2), zg, &adj, 0.5f);
    got = l ? l->val[0] : NAN;
    FT_CHECK(l && NEAR(got, want, 1e-6), "fgsd, omega 1/2: %.8f, by hand %.8f", got, want);
    l = fgl__fgssl_fgsd(&t, fgl_op_const(&t, zg, 3, 2), zg, &adj, 0.5f); /* the same embeddings: KL 0 */
    got = l ? l->val[0] : NAN;
    FT_CHECK(l && NEAR(got, 0, 1e-6), "fgsd of the global model against itself: %.8f", got);
    memset(&empty, 0, sizeof empty);
    empty.rows = empty.cols = 3;
    empty.indptr = indptr; /* reused with nnz 0: no neighbour anywhere */
    FT_CHECK(fgl__fgssl_fgsd(&t, fgl_op_const(&t, zv, 3, 2), zg, &empty, 1.0f) == NULL, "fgsd: no edge, no term");
    FT_CHECK(t.err.code == FGL_OK, "fgsd: tape error %s", t.err.msg);
    fgl_tape_free(&t);
}

/* form = code: the edge 0 - 1 (both entries), C = 2, tau 1. Local logits
 * (0,0), (1,0): |o_0 - o_1| = (1, 0), q = (e, 1) / (e + 1); global (0,0),
 * (0,0): p = (1/2, 1/2); KL = 1/2 log(1/(2 q0)) + 1/2 log(1/(2 q1)), the
 * same for both entries. Global (0,0), (2,1) at tau 1/2: p = softmax(4, 2),
 * q = softmax(2, 0). */
static void test_edge_by_hand(void) {
    int indptr[3] = {0, 1, 2}, indices[2] = {1, 0};
    float o[4] = {0, 0, 1, 0}, og[4] = {0, 0, 0, 0}, og2[4] = {0, 0, 2, 1};
    double q0 = exp(1.0) / (exp(1.0) + 1), q1 = 1 - q0, want = 0.5 * log(0.5 / q0) + 0.5 * log(0.5 / q1), got;
    double p0 = exp(4.0) / (exp(4.0) + exp(2.0)), p1 = 1 - p0;
    fgl_csr adj;
    fgl_tape t;
    fgl_node *l;
    adj.rows = adj.cols = 2;
    adj.nnz = 2;
    adj.indptr = indptr;
    adj.indices = indices;
    adj.values = NULL;
    fgl_tape_init(&t);
    l = fgl__fgssl_edge(&t, fgl_op_const(&t, o, 2, 2), og, &adj, 1.0f);
    got = l ? l->val[0] : NAN;
    FT_CHECK(l && NEAR(got, want, 1e-6), "edge term: %.8f, by hand %.8f", got, want);
    q0 = exp(2.0) / (exp(2.0) + 1), q1 = 1 - q0;
    want = p0 * log(p0 / q0) + p1 * log(p1 / q1);
    l = fgl__fgssl_edge(&t, fgl_op_const(&t, o, 2, 2), og2, &adj, 0.5f);
    got = l ? l->val[0] : NAN;
    FT_CHECK(l && NEAR(got, want, 1e-6), "edge term, tau 1/2: %.8f, by hand %.8f", got, want);
    FT_CHECK(t.err.code == FGL_OK, "edge term: tape error %s", t.err.msg);
    fgl_tape_free(&t);
}

/* --- gradient checks: z a parameter, 5 nodes x 3 -------------------------------- */

static const float gc_zg[15] = {0.3f, -1.2f, 0.5f, 1.1f, 0.4f, -0.2f, -0.7f, 0.9f, 1.3f,
                                0.2f, 0.2f, -0.8f, 1.0f, -0.5f, 0.6f};
static const int gc_y[5] = {0, 1, 0, 2, 1};
static int gc_indptr[6] = {0, 2, 4, 7, 9, 10}, gc_indices[10] = {1, 2, 0, 2, 0, 1, 3, 2, 4, 3};

static fgl_node *gc_fnsc(fgl_tape *t, fgl_params *ps, void *ud) {
    (void)ud;
    return fgl__fgssl_fnsc(t, fgl_op_param(t, ps, 0), gc_zg, gc_y, NULL, 3, 0.5f);
}

static fgl_node *gc_fgsd(fgl_tape *t, fgl_params *ps, void *ud) {
    fgl_csr adj;
    (void)ud;
    adj.rows = adj.cols = 5;
    adj.nnz = 10;
    adj.indptr = gc_indptr;
    adj.indices = gc_indices;
    adj.values = NULL;
    return fgl__fgssl_fgsd(t, fgl_op_param(t, ps, 0), gc_zg, &adj, 0.5f);
}

static fgl_node *gc_edge(fgl_tape *t, fgl_params *ps, void *ud) {
    fgl_csr adj;
    (void)ud;
    adj.rows = adj.cols = 5;
    adj.nnz = 10;
    adj.indptr = gc_indptr;
    adj.indices = gc_indices;
    adj.values = NULL;
    return fgl__fgssl_edge(t, fgl_op_param(t, ps, 0), gc_zg, &adj, 0.5f);
}

static void gradcheck(const char *what, fgl_node *(*build)(fgl_tape *, fgl_params *, void *)) {
    static const float z0[15] = {0.8f, 0.1f, -0.4f, -0.3f, 1.2f, 0.7f, 0.5f, 0.5f, -1.1f,
                                 -0.9f, 0.3f, 0.2f, 0.6f, -0.6f, 1.4f};
    fgl_params ps;
    fgl_gradcheck_report rep;
    int rc;
    fgl_params_init(&ps);
    if (fgl_params_add(&ps, "z", 5, 3, FGL_G_OTHER, 1) < 0) {
        FT_CHECK(0, "%s: params", what);
        fgl_params_free(&ps);
        return;
    }
    memcpy(fgl_params_data(&ps, 0), z0, sizeof z0);
    rc = fgl_gradcheck_ex(&ps, build, NULL, 0, 0, &rep);
    FT_CHECK(rc == FGL_OK, "%s: gradcheck could not run: %s", what, rep.msg);
    FT_CHECK(rep.checked == 15, "%s: %zu values checked", what, rep.checked);
    FT_CHECK(rep.worst <= 1.0, "%s: value %zu: analytic %.8g, numeric %.8g, tol %.3g", what, rep.index, rep.analytic,
             rep.numeric, rep.tol);
    fgl_params_free(&ps);
}

static void test_gradients(void) {
    gradcheck("fnsc", gc_fnsc);
    gradcheck("fgsd", gc_fgsd);
    gradcheck("edge (form=code)", gc_edge); /* |.| has a kink at 0: no two rows of z0 share a value in a column */
}

/* --- augmentation ----------------------------------------------------------------- */

static int has_entry(const fgl_csr *a, int i, int j) {
    int k;
    for (k = a->indptr[i]; k < a->indptr[i + 1]; k++)
        if (a->indices[k] == j) return 1;
    return 0;
}

static void test_augmentation(void) {
    /* a 6-cycle with two chords, features 6 x 4 all ones; sparse: the same */
    int i, k, n = 0, kept = 0, trials;
    int pairs[8][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0}, {0, 3}, {1, 4}};
    float x[24], *xo = NULL;
    fgl_csr adj, out, xs, xso;
    fgl_rng r;
    fgl_error err;
    int rr[16], cc[16], xr[24], xc[24];
    for (i = 0; i < 24; i++) x[i] = 1.0f, xr[i] = i / 4, xc[i] = i % 4;
    for (i = 0; i < 8; i++) {
        rr[n] = pairs[i][0], cc[n++] = pairs[i][1];
        rr[n] = pairs[i][1], cc[n++] = pairs[i][0];
    }
    if (fgl_csr_from_coo(6, 6, 16, rr, cc, NULL, 0, &adj, &err) || fgl_csr_from_coo(6, 4, 24, xr, xc, NULL, 0, &xs, &err)) {
        FT_CHECK(0, "coo: %s", err.msg);
        return;
    }
    fgl_rng_init(&r, 7, 1);
    FT_CHECK(fgl__fgssl_drop(&adj, x, NULL, 4, 0.0, 0.0, &r, &out, &xo, &xso) == FGL_OK, "drop nothing");
    FT_CHECK(out.nnz == 16 && xo && xo[0] == 1.0f && xo[23] == 1.0f, "p = 0: %d entries", out.nnz);
    fgl_csr_free(&out);
    free(xo);
    FT_CHECK(fgl__fgssl_drop(&adj, x, NULL, 4, 1.0, 1.0, &r, &out, &xo, &xso) == FGL_OK, "drop all");
    for (i = 0, k = 0; xo && i < 24; i++) k += xo[i] != 0;
    FT_CHECK(out.nnz == 0 && xo && k == 0, "p = 1: %d entries, %d features left", out.nnz, k);
    fgl_csr_free(&out);
    free(xo);
    for (trials = 0; trials < 50; trials++) { /* p = 0.5: symmetric, a mask by whole columns */
        int sym = 1;
        FT_CHECK(fgl__fgssl_drop(&adj, NULL, &xs, 4, 0.5, 0.5, &r, &out, &xo, &xso) == FGL_OK, "drop half");
        for (i = 0; i < 6; i++)
            for (k = out.indptr[i]; k < out.indptr[i + 1]; k++) sym &= has_entry(&out, out.indices[k], i);
        FT_CHECK(sym && xo == NULL && xso.rows == 6 && xso.nnz % 6 == 0, "p = .5: symmetric %d, %d features", sym,
                 xso.nnz);
        for (i = 1; i < 6; i++) /* every row masks the same columns */
            FT_CHECK(xso.indptr[i + 1] - xso.indptr[i] == xso.indptr[1] - xso.indptr[0], "row %d's mask differs", i);
        kept += out.nnz;
        fgl_csr_free(&out);
        fgl_csr_free(&xso);
    }
    FT_CHECK(kept > 50 * 16 * 3 / 10 && kept < 50 * 16 * 7 / 10, "p = .5 kept %d of %d entries", kept, 50 * 16);
    fgl_csr_free(&adj);
    fgl_csr_free(&xs);
}

/* --- runs ------------------------------------------------------------------------ */

/* Both weights 0: no term, no draw; the run is FedAvg's (sample-weighted
 * mean, no proximal term): the same history and models. */
static void test_zero_weights_is_fedavg(void) {
    static const char *const zero[] = {"fnsc", "0", "fgsd", "0", NULL};
    fgl_scenario sc;
    fgl_client_data cd[3];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    fgl_run a, b;
    if (!ft_clients(&nodes, 3, FGL_PART_LOUVAIN, FGL_ARCH_GCN, 0, &sc, cd)) return;
    cfg.local_epochs = 2;
    if (ft_run_rounds(&a, &cfg, "fgssl", cd, 3, 3, zero)) {
        if (ft_run_rounds(&b, &cfg, "fedavg", cd, 3, 3, NULL)) {
            FT_CHECK(ft_same_history(&a, &b) && ft_same_models(&a, &b), "fgssl with weights 0 differs from fedavg");
            fgl_run_free(&b);
        }
        if (ft_run_rounds(&b, &cfg, "fgssl", cd, 3, 3, NULL)) { /* and the terms do change the run */
            fgl_run c;
            static const char *const code[] = {"form", "code", "fnsc", "0", "fgsd", "0.1", NULL};
            FT_CHECK(!ft_same_models(&a, &b), "fgssl at its defaults trains as with weights 0");
            if (ft_run_rounds(&c, &cfg, "fgssl", cd, 3, 3, code)) { /* the authors' code's loss runs too */
                FT_CHECK(!ft_same_models(&a, &c) && !ft_same_models(&b, &c), "fgssl form=code trains as another");
                fgl_run_free(&c);
            }
            fgl_run_free(&b);
        }
        fgl_run_free(&a);
    }
    fgl_scenario_free(&sc);
}

/* Saved after 2 of 4 rounds, loaded into a fresh run and finished: the
 * uninterrupted run's bits (models, histories, every state entry). */
static void test_resume(void) {
    fgl_scenario sc;
    fgl_client_data cd[3];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    const fgl_algo *algo = fgl_algo_find("fgssl");
    fgl_run full, part, resumed;
    fgl_error err;
    char path[64], why[256] = "";
    int r, ok;
    if (!algo || !ft_clients(&nodes, 3, FGL_PART_LOUVAIN, FGL_ARCH_GCN, 0, &sc, cd)) return;
    cfg.local_epochs = 2;
    cfg.rounds = 4;
    snprintf(path, sizeof path, "/tmp/fgl_test_fgssl_%lx_%lx.bin", (unsigned long)time(NULL),
             (unsigned long)(uintptr_t)&sc);
    if (ft_run_algo(&full, &cfg, algo, cd, 3, 4, NULL)) {
        if (ft_run_algo(&part, &cfg, algo, cd, 3, 2, NULL)) {
            ok = fgl_run_save(&part, path, &err) == FGL_OK;
            FT_CHECK(ok, "save: %s", err.msg);
            fgl_run_free(&part);
            if (ok && ft_run_algo(&resumed, &cfg, algo, cd, 3, 0, NULL)) {
                ok = fgl_run_load(&resumed, path, &err) == FGL_OK;
                FT_CHECK(ok, "load: %s", err.msg);
                for (r = resumed.round; ok && r < cfg.rounds; r++) ok = fgl_run_round(&resumed) == FGL_OK;
                FT_CHECK(ok, "resumed rounds: %s", resumed.err.msg);
                FT_CHECK(ok && ft_same_run(&full, &resumed, why, sizeof why), "resumed run differs: %s", why);
                fgl_run_free(&resumed);
            }
            remove(path);
        }
        fgl_run_free(&full);
    }
    fgl_scenario_free(&sc);
}

/* Cora, 7 classes (chance 14%), 5 Louvain clients, GCN, 15 rounds of 3
 * local epochs: the bar the other end-to-end tests hold baselines to
 * (0.40), the three printed side by side. */
static void test_end_to_end(void) {
    fgl_scenario sc;
    fgl_client_data cd[5];
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
    ft_e2e_algo algos[3] = {{"local", 0, NULL, 0}, {"fedavg", 0, NULL, 0}, {"fgssl", 0, NULL, 1}};
    fgl_run_summary s[3];
    int a;
    if (!ft_clients(&nodes, 5, FGL_PART_LOUVAIN, FGL_ARCH_GCN, 0, &sc, cd)) return;
    cfg.local_epochs = 3;
    cfg.threads = 2;
    if (getenv("FGL_TEST_SEED")) cfg.seed = (uint64_t)atoi(getenv("FGL_TEST_SEED"));
    for (a = 0; a < 3; a++) algos[a].rounds = ft_quick() ? 4 : 15;
    ft_end_to_end(nodes.label, algos, 3, &cfg, cd, 5, 0.40, s, NULL, NULL);
    fgl_scenario_free(&sc);
}

int main(void) {
    int real = ft_node_data(&nodes);
    printf("# data: %s (%s)\n", nodes.label, real ? "real" : "synthetic");
    FT_RUN(test_fnsc_by_hand);
    FT_RUN(test_fgsd_by_hand);
    FT_RUN(test_edge_by_hand);
    FT_RUN(test_gradients);
    FT_RUN(test_augmentation);
    FT_RUN(test_zero_weights_is_fedavg);
    FT_RUN(test_resume);
    FT_RUN(test_end_to_end);
    fgl_dataset_free(&nodes);
    return ft_finish();
}
