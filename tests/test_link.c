/* test_link.c - link prediction (src/gnn/link.h) and its runs: AUC and
 * Hits@K against hand-computed values (ties included), the edge split
 * (disjoint, complete, deterministic, negatives that are not edges), the
 * decoders' gradients, Local / FedAvg / FED-PUB end to end on stochastic
 * block models (AUC well above 0.5), resume bit for bit, the algorithms
 * that cannot run a link task (an explicit list) refused by name with their
 * reason, and every other registered algorithm running two link rounds
 * with a finite AUC. */
#include "../fgl_fed.h"
#include <math.h>
#include "ft.h"
#include "ft_fed.h"

#define K 3

static void test_auc_hits(void) {
    /* pairs (p, n): 0.9 beats both, 0.5 ties 0.5 (one half) and beats 0.1,
     * 0.3 beats 0.1 only: 4.5 of 6 */
    static const float pos[3] = {0.9f, 0.5f, 0.3f}, neg[2] = {0.5f, 0.1f};
    static const float hp[4] = {0.9f, 0.6f, 0.7f, 0.1f}, hn[4] = {0.8f, 0.6f, 0.4f, 0.2f};
    static const float all_tied[2] = {1.0f, 1.0f};
    float with_nan[2] = {0.5f, 0.0f};
    with_nan[1] = NAN;
    FT_CHECK(fabs(fgl_link_auc(pos, 3, neg, 2) - 0.75) < 1e-12, "AUC %g, want 0.75", fgl_link_auc(pos, 3, neg, 2));
    FT_CHECK(fabs(fgl_link_auc(all_tied, 2, all_tied, 2) - 0.5) < 1e-12, "AUC of ties only: 0.5");
    FT_CHECK(fgl_link_auc(neg, 2, pos, 3) + fgl_link_auc(pos, 3, neg, 2) == 1.0, "AUC swapped: 1 - AUC");
    FT_CHECK(isnan(fgl_link_auc(pos, 0, neg, 2)) && isnan(fgl_link_auc(pos, 3, neg, 0)), "AUC of an empty list: NaN");
    FT_CHECK(isnan(fgl_link_auc(with_nan, 2, neg, 2)), "AUC with a NaN score: NaN");
    /* the 2nd highest negative is 0.6: 0.9 and 0.7 are above, 0.6 (a tie) is not */
    FT_CHECK(fgl_link_hits(hp, 4, hn, 4, 2) == 0.5, "Hits@2 %g, want 0.5", fgl_link_hits(hp, 4, hn, 4, 2));
    FT_CHECK(fgl_link_hits(hp, 4, hn, 4, 1) == 0.25, "Hits@1 %g, want 0.25", fgl_link_hits(hp, 4, hn, 4, 1));
    FT_CHECK(fgl_link_hits(hp, 4, hn, 4, 4) == 0.75, "Hits@4 %g, want 0.75", fgl_link_hits(hp, 4, hn, 4, 4));
    FT_CHECK(fgl_link_hits(hp, 4, hn, 4, 5) == 1.0, "Hits@5 with 4 negatives: 1 (OGB)");
    FT_CHECK(isnan(fgl_link_hits(hp, 0, hn, 4, 2)) && isnan(fgl_link_hits(hp, 4, hn, 4, 0)), "Hits: empty, K 0: NaN");
}

/* The synthetic benchmark graph (communities, homophilous classes). */
static int synth(fgl_node_data *d, int n, int *community) {
    fgl_synth_node_config c = fgl_synth_node_default();
    fgl_error err;
    c.n_nodes = n;
    c.n_communities = K;
    if (fgl_synth_node(&c, 7, d, community, &err)) {
        FT_CHECK(0, "synthetic graph: %s", err.msg);
        return 0;
    }
    return 1;
}

static int key_cmp(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

static void test_split(void) {
    fgl_node_data d;
    fgl_link_split a, b, c;
    fgl_link_config o = fgl_link_default();
    fgl_error err;
    long long *keys;
    int i, k, j, E = 0, n_keys = 0, bad = 0;
    if (!synth(&d, 300, NULL)) return;
    for (i = 0; i < d.n_nodes; i++)
        for (j = d.adj.indptr[i]; j < d.adj.indptr[i + 1]; j++) E += d.adj.indices[j] > i;
    o.eval_neg = 50;
    FT_CHECK(fgl_link_split_make(&d, &o, 11, &a, &err) == FGL_OK, "split: %s", err.msg);
    FT_CHECK(fgl_link_split_make(&d, &o, 11, &b, &err) == FGL_OK, "split again: %s", err.msg);
    FT_CHECK(fgl_link_split_make(&d, &o, 12, &c, &err) == FGL_OK, "split, another seed: %s", err.msg);
    FT_CHECK(a.n_pos[FGL_SPLIT_VAL] == (int)floor(0.05 * E) && a.n_pos[FGL_SPLIT_TEST] == (int)floor(0.10 * E) &&
                 a.n_pos[FGL_SPLIT_TRAIN] + a.n_pos[FGL_SPLIT_VAL] + a.n_pos[FGL_SPLIT_TEST] == E,
             "split sizes %d/%d/%d of %d edges", a.n_pos[1], a.n_pos[2], a.n_pos[3], E);
    FT_CHECK(a.n_neg[FGL_SPLIT_VAL] == (a.n_pos[FGL_SPLIT_VAL] > 50 ? a.n_pos[FGL_SPLIT_VAL] : 50) &&
                 a.n_neg[FGL_SPLIT_TEST] == (a.n_pos[FGL_SPLIT_TEST] > 50 ? a.n_pos[FGL_SPLIT_TEST] : 50) &&
                 a.n_neg[FGL_SPLIT_TRAIN] == 0,
             "negatives: max(positives, eval_neg) for validation and test, none fixed for training");
    FT_CHECK(a.sum == b.sum && a.sum != c.sum, "the same seed gives the same split, another seed another");
    for (k = 1; k < 4; k++) {
        int m = a.n_pos[k] + a.n_neg[k];
        FT_CHECK(!memcmp(a.src[k], b.src[k], sizeof(int) * (size_t)m) &&
                     !memcmp(a.dst[k], b.dst[k], sizeof(int) * (size_t)m),
                 "split %d: the same pairs from the same seed", k);
    }
    /* positives: every edge exactly once over the three splits */
    keys = (long long *)malloc(sizeof(long long) * (size_t)(E + 1));
    for (k = 1; k < 4 && keys; k++)
        for (i = 0; i < a.n_pos[k]; i++) {
            bad += !(a.src[k][i] < a.dst[k][i]);
            keys[n_keys++] = (long long)a.src[k][i] * d.n_nodes + a.dst[k][i];
        }
    if (keys) {
        qsort(keys, (size_t)n_keys, sizeof(long long), key_cmp);
        for (i = 1; i < n_keys; i++) bad += keys[i] == keys[i - 1];
        for (i = 0; i < d.n_nodes; i++)
            for (j = d.adj.indptr[i]; j < d.adj.indptr[i + 1]; j++) {
                long long key = (long long)i * d.n_nodes + d.adj.indices[j];
                if (d.adj.indices[j] > i) bad += bsearch(&key, keys, (size_t)n_keys, sizeof key, key_cmp) == NULL;
            }
    }
    FT_CHECK(keys && bad == 0 && n_keys == E, "positives: disjoint and covering the %d edges (%d problems)", E, bad);
    free(keys);
    /* negatives: pairs u != v that are no edge of the graph */
    bad = 0;
    for (k = FGL_SPLIT_VAL; k <= FGL_SPLIT_TEST; k++)
        for (i = a.n_pos[k]; i < a.n_pos[k] + a.n_neg[k]; i++) {
            int u = a.src[k][i], v = a.dst[k][i];
            bad += u == v;
            for (j = d.adj.indptr[u]; j < d.adj.indptr[u + 1]; j++) bad += d.adj.indices[j] == v;
        }
    FT_CHECK(bad == 0, "negatives are non-edges (%d are not)", bad);
    /* the message-passing graph holds the training edges only, both ways */
    FT_CHECK(a.adj.nnz == 2 * a.n_pos[FGL_SPLIT_TRAIN], "message passing: %d entries for %d training edges", a.adj.nnz,
             a.n_pos[FGL_SPLIT_TRAIN]);
    bad = 0;
    for (k = FGL_SPLIT_VAL; k <= FGL_SPLIT_TEST; k++)
        for (i = 0; i < a.n_pos[k]; i++)
            for (j = a.adj.indptr[a.src[k][i]]; j < a.adj.indptr[a.src[k][i] + 1]; j++)
                bad += a.adj.indices[j] == a.dst[k][i];
    FT_CHECK(bad == 0, "no validation or test edge passes messages (%d do)", bad);
    /* training negatives: not training edges, drawn from the generator given */
    {
        int src[200], dst[200];
        fgl_rng r;
        fgl_rng_init(&r, 5, 0);
        FT_CHECK(fgl_link_sample_negatives(&a, 200, &r, src, dst) == FGL_OK, "training negatives");
        for (bad = 0, i = 0; i < 200; i++) {
            bad += src[i] == dst[i];
            for (j = a.adj.indptr[src[i]]; j < a.adj.indptr[src[i] + 1]; j++) bad += a.adj.indices[j] == dst[i];
        }
        FT_CHECK(bad == 0, "training negatives are not training edges (%d are)", bad);
    }
    fgl_link_split_free(&c);
    o.val = 0.6;
    o.test = 0.5;
    FT_CHECK(fgl_link_split_make(&d, &o, 1, &c, &err) == FGL_ERR_ARG && strstr(err.msg, "fractions"),
             "fractions summing over 1 refused: %s", err.msg);
    fgl_link_split_free(&a);
    fgl_link_split_free(&b);
    fgl_link_split_free(&c);
    fgl_node_data_free(&d);
}

/* Gradients of the training loss through both decoders (dot product on the
 * output, MLP on the products of representations), by finite differences. */
typedef struct gc_ctx {
    fgl_model *m;
    fgl_gnn_graph *g;
    const fgl_link_split *ls;
} gc_ctx;

static fgl_node *gc_loss(fgl_tape *t, fgl_params *ps, void *ud) {
    gc_ctx *c = (gc_ctx *)ud;
    fgl_forward fw;
    fgl_rng r;
    (void)ps;
    fgl_rng_init(&r, 3, 0); /* the same negatives at every evaluation */
    if (fgl_model_forward(c->m, t, c->g, 0, NULL, &fw)) return NULL;
    return fgl_link_loss(c->ls, c->m, t, &fw, &r);
}

static void test_decoder_gradients(void) {
    fgl_node_data d;
    fgl_link_split ls;
    fgl_error err;
    int head;
    if (!synth(&d, 40, NULL)) return;
    if (fgl_link_split_make(&d, NULL, 2, &ls, &err)) {
        FT_CHECK(0, "split: %s", err.msg);
        fgl_node_data_free(&d);
        return;
    }
    for (head = 0; head < 2; head++) {
        fgl_model_spec s = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_LINK, d.n_feat, head ? 1 : 6);
        fgl_gradcheck_report rep;
        int seed, ok = 0;
        s.hidden = 5;
        s.layers = 1; /* no ReLU in the encoder's output: the dot product has no kink to cross */
        s.dropout = 0;
        if (head) s.head = FGL_HEAD_MLP;
        /* The MLP decoder has ReLUs: a model whose pre-activations sit on a
         * kink within the finite-difference step fails at that entry, so up
         * to 8 initialisations are tried (as the op tests redraw inputs away
         * from kinks); a wrong gradient fails them all. The dot product must
         * pass at the first. */
        for (seed = 1; seed <= (head ? 8 : 1) && !ok; seed++) {
            fgl_model m;
            fgl_view v;
            gc_ctx c;
            if (fgl_model_init(&m, &s, (uint64_t)seed, &err) || fgl_view_init_link(&v, &d, &ls, &s, &err)) {
                FT_CHECK(0, "model / view: %s", err.msg);
                break;
            }
            c.m = &m;
            c.g = &v.full;
            c.ls = &ls;
            ok = fgl_gradcheck_ex(&m.params, gc_loss, &c, 0, 0, &rep) == FGL_OK && rep.worst <= 1.0;
            fgl_view_free(&v);
            fgl_model_free(&m);
        }
        FT_CHECK(ok, "%s decoder: gradient check (worst %g of the tolerance at %zu: %g vs %g)",
                 head ? "MLP" : "dot-product", rep.worst, rep.index, rep.analytic, rep.numeric);
    }
    fgl_link_split_free(&ls);
    fgl_node_data_free(&d);
}

/* A stochastic block model of 4 blocks of 40 nodes (edge probability 0.15
 * inside a block, 0.005 across), features the block's one-hot plus N(0, 1)
 * noise in 8 columns: structure a GCN encoder can learn. */
static int sbm(fgl_node_data *d, uint64_t seed) {
    static const int sizes[4] = {40, 40, 40, 40};
    double probs[16];
    int block[160], i, j;
    fgl_error err;
    fgl_rng r;
    memset(d, 0, sizeof *d);
    for (i = 0; i < 16; i++) probs[i] = i / 4 == i % 4 ? 0.15 : 0.005;
    if (fgl_gen_sbm(4, sizes, probs, seed, &d->adj, block, &err) || fgl_tensor_init(&d->x, 160, 8)) {
        FT_CHECK(0, "SBM: %s", err.msg);
        return 0;
    }
    snprintf(d->name, sizeof d->name, "sbm-%d", (int)seed);
    d->n_nodes = 160;
    d->n_feat = 8;
    fgl_rng_init(&r, seed, 1);
    for (i = 0; i < 160; i++)
        for (j = 0; j < 8; j++) d->x.data[i * 8 + j] = (float)((j == block[i]) + fgl_rng_normal(&r));
    return 1;
}

/* K clients, each an SBM graph with its edge split. */
typedef struct fixture {
    fgl_node_data sub[K];
    fgl_link_split ls[K];
    fgl_client_data cd[K];
} fixture;

static int fixture_make(fixture *f, int head_mlp) {
    int i, ok = 1;
    fgl_error err;
    memset(f, 0, sizeof *f);
    for (i = 0; i < K && ok; i++) ok = sbm(&f->sub[i], 40 + (uint64_t)i);
    for (i = 0; i < K && ok; i++) {
        fgl_link_config o = fgl_link_default();
        o.eval_neg = 100;
        if (fgl_link_split_make(&f->sub[i], &o, 100 + (uint64_t)i, &f->ls[i], &err)) {
            FT_CHECK(0, "client %d split: %s", i, err.msg);
            ok = 0;
            break;
        }
        f->cd[i].node = &f->sub[i];
        f->cd[i].link = &f->ls[i];
        f->cd[i].spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_LINK, f->sub[i].n_feat, head_mlp ? 1 : 32);
        f->cd[i].spec.hidden = 32;
        if (head_mlp) f->cd[i].spec.head = FGL_HEAD_MLP;
    }
    return ok;
}

static void fixture_free(fixture *f) {
    int i;
    for (i = 0; i < K; i++) {
        fgl_link_split_free(&f->ls[i]);
        fgl_node_data_free(&f->sub[i]);
    }
}

static fgl_fed_config link_cfg(int rounds) {
    fgl_fed_config cfg = fgl_fed_default(FGL_TASK_LINK);
    cfg.rounds = rounds;
    cfg.local_epochs = 1;
    cfg.threads = 1;
    return cfg;
}

static void test_end_to_end(void) {
    static const char *algos[3] = {"local", "fedavg", "fedpub"};
    fixture f;
    int a, head;
    for (head = 0; head < 2; head++) {
        if (!fixture_make(&f, head)) {
            fixture_free(&f);
            return;
        }
        for (a = 0; a < 3; a++) {
            fgl_fed_config cfg = link_cfg(30);
            fgl_run run;
            fgl_run_summary s;
            if (head && a == 2) continue; /* the MLP decoder: Local and FedAvg */
            if (!ft_run_rounds(&run, &cfg, algos[a], f.cd, K, 30, NULL)) continue;
            fgl_run_summarize(&run, &s);
            printf("#   %s, %s decoder: test AUC %.4f, Hits@50 %.4f (last round), best-validation round %d\n", algos[a],
                   head ? "MLP" : "dot", s.last_test, s.last_test_hits, s.best_round + 1);
            /* a quarter of the negatives lie inside a block, as likely as the
             * positives to a block-level model: about 0.875 is the ceiling */
            FT_CHECK(s.last_test > 0.7, "%s (%s decoder): test AUC %.4f, well above 0.5", algos[a],
                     head ? "MLP" : "dot", s.last_test);
            FT_CHECK(s.last_test_hits > 0 && s.last_test_hits <= 1, "%s: Hits@50 %g in (0, 1]", algos[a],
                     s.last_test_hits);
            FT_CHECK(run.stats[0].test_acc < s.last_test, "%s: AUC improves over training (%.4f -> %.4f)", algos[a],
                     run.stats[0].test_acc, s.last_test);
            fgl_run_free(&run);
        }
        fixture_free(&f);
    }
}

static void test_resume(void) {
    static const char *algos[2] = {"fedavg", "fedpub"};
    const char *path = "build/tests/test_link.ckpt";
    fixture f;
    int a;
    if (!fixture_make(&f, 0)) {
        fixture_free(&f);
        return;
    }
    for (a = 0; a < 2; a++) {
        fgl_fed_config cfg = link_cfg(6);
        fgl_run full, part, resumed;
        fgl_error err;
        char why[200];
        int r;
        if (!ft_run_rounds(&full, &cfg, algos[a], f.cd, K, 6, NULL)) continue;
        if (!ft_run_rounds(&part, &cfg, algos[a], f.cd, K, 3, NULL)) {
            fgl_run_free(&full);
            continue;
        }
        FT_CHECK(fgl_run_save(&part, path, &err) == FGL_OK, "%s: save: %s", algos[a], err.msg);
        fgl_run_free(&part);
        if (fgl_run_init(&resumed, &cfg, fgl_algo_find(algos[a]), f.cd, K, &err) == FGL_OK) {
            FT_CHECK(fgl_run_load(&resumed, path, &err) == FGL_OK, "%s: load: %s", algos[a], err.msg);
            for (r = resumed.round; r < 6; r++)
                if (fgl_run_round(&resumed)) break;
            FT_CHECK(ft_same_run(&full, &resumed, why, sizeof why), "%s: resumed after 3 rounds: %s", algos[a], why);
            for (r = 0; r < 6; r++)
                FT_CHECK(!memcmp(&full.stats[r].val_hits, &resumed.stats[r].val_hits, sizeof(double)) &&
                             !memcmp(&full.stats[r].test_hits, &resumed.stats[r].test_hits, sizeof(double)),
                         "%s: round %d's Hits@K resumed bit for bit", algos[a], r + 1);
            fgl_run_free(&resumed);
        } else {
            FT_CHECK(0, "%s: init: %s", algos[a], err.msg);
        }
        fgl_run_free(&full);
    }
    remove(path);
    fixture_free(&f);
}

/* The algorithms that refuse a link task, each with the words its refusal
 * must hold and why:
 * - fedproto, fedtgp, gpfl, fedpg, fedgta, fedtad, fggp, fedgl exchange per-class data
 *   (prototypes, class counts, FedGTA's moments of propagated class
 *   predictions, FedTAD's class-wise reliability, FedGL's per-node logits: a message part sized by
 *   the classes), and a link task has
 *   no classes: fgl_run_init's link check (src/fed/run.h) refuses them by
 *   name (GPFL, graph classification only, meets that check first; FedGTA's
 *   own check, node classification only, comes after it);
 * - fedstar is graph classification only (its structure encoder is over
 *   whole graphs: src/fed/algos/fedstar.h);
 * - pfedgnn, fedgcn and fedsage are node classification only: pFedGNN
 *   coarsens the clients' node sets into a client graph for a node
 *   classifier, FedGCN exchanges node features over the cut edges into a
 *   halo, FedSage+ generates missing neighbours for a node classifier
 *   (their prepare_spec checks, src/fed/algos/); AdaFGL too: its step 2
 *   classifies nodes with modules fed by soft labels, and evaluates class
 *   scores (eval_scores); FGSSL too: its contrast pulls labelled nodes to
 *   the global embeddings of their class; FedDEP too: it generates missing
 *   neighbours' embeddings for a node classifier.
 * Every other registered algorithm must run a link task: one added later
 * that neither runs nor is listed here fails the test. */
static const struct {
    const char *name, *says;
} link_refused[] = {{"fedproto", "not for link prediction"}, {"fedtgp", "not for link prediction"},
                    {"gpfl", "not for link prediction"},     {"fedpg", "not for link prediction"},
                    {"fedstar", "graph classification only"}, {"pfedgnn", "node classification only"},
                    {"fedgcn", "node classification only"},   {"fedsage", "node classification only"},
                    {"adafgl", "node classification only"},   {"fgssl", "node classification only"},
                    {"fedgta", "not for link prediction"}, {"fedtad", "not for link prediction"},
                    {"fggp", "not for link prediction"}, {"fedgl", "not for link prediction"},
                    {"feddep", "node classification only"}};
#define N_LINK_REFUSED ((int)(sizeof link_refused / sizeof link_refused[0]))

/* Every registered algorithm either is listed above and refused at
 * fgl_run_init with its reason, or runs two rounds of a link task to the
 * end with a finite AUC in [0, 1] for validation and test; the
 * label-flipping attack is refused by name. */
static void test_refusals(void) {
    fixture f;
    int i, j, ran = 0, refused = 0;
    for (j = 0; j < N_LINK_REFUSED; j++)
        FT_CHECK(fgl_algo_find(link_refused[j].name) != NULL, "%s is listed as refusing but is not registered",
                 link_refused[j].name);
    if (!fixture_make(&f, 0)) {
        fixture_free(&f);
        return;
    }
    for (i = 0; i < fgl_algo_count(); i++) {
        const fgl_algo *a = fgl_algo_at(i);
        fgl_fed_config cfg = link_cfg(2);
        fgl_run run;
        fgl_error err;
        const char *says = NULL;
        int rc, r, ok = 1;
        for (j = 0; j < N_LINK_REFUSED; j++)
            if (!strcmp(a->name, link_refused[j].name)) says = link_refused[j].says;
        rc = fgl_run_init(&run, &cfg, a, f.cd, K, &err);
        if (says) { /* listed: refused, with the reason */
            FT_CHECK(rc == FGL_ERR_ARG && strstr(err.msg, a->name) && strstr(err.msg, says),
                     "%s: refused with \"%s\" expected, got rc %d: %s", a->name, says, rc,
                     rc ? err.msg : "it ran");
            if (rc == FGL_OK) fgl_run_free(&run);
            else {
                refused++;
                printf("#   %s refused: %s\n", a->name, err.msg);
            }
            continue;
        }
        if (rc) { /* not listed: it must run */
            FT_CHECK(0, "%s refuses a link task but is not listed as refusing: %s", a->name, err.msg);
            continue;
        }
        for (r = 0; r < 2 && ok; r++) {
            ok = fgl_run_round(&run) == FGL_OK;
            FT_CHECK(ok, "%s: link round %d: %s", a->name, r + 1, run.err.msg);
        }
        if (ok) {
            double v = run.stats[1].val_acc, t = run.stats[1].test_acc;
            FT_CHECK(run.round == 2, "%s: %d rounds done of 2", a->name, run.round);
            FT_CHECK(isfinite(v) && v >= 0 && v <= 1 && isfinite(t) && t >= 0 && t <= 1,
                     "%s: round 2's validation AUC %g, test AUC %g: finite, in [0, 1]", a->name, v, t);
            ran++;
        }
        fgl_run_free(&run);
    }
    printf("#   %d algorithms run link prediction, %d refuse it\n", ran, refused);
    FT_CHECK(ran + refused == fgl_algo_count() && refused == N_LINK_REFUSED,
             "%d of %d registered algorithms ran, %d of the %d listed were refused", ran, fgl_algo_count(), refused,
             N_LINK_REFUSED);
    {
        fgl_fed_config cfg = link_cfg(2);
        fgl_run run;
        fgl_error err;
        cfg.attack.kind = FGL_ATTACK_LABELFLIP;
        cfg.attack.frac = 0.34f;
        FT_CHECK(fgl_run_init(&run, &cfg, fgl_algo_find("fedavg"), f.cd, K, &err) == FGL_ERR_ARG &&
                     strstr(err.msg, "label-flipping"),
                 "label flipping refused: %s", err.msg);
    }
    fixture_free(&f);
}

int main(void) {
    FT_RUN(test_auc_hits);
    FT_RUN(test_split);
    FT_RUN(test_decoder_gradients);
    FT_RUN(test_end_to_end);
    FT_RUN(test_resume);
    FT_RUN(test_refusals);
    return ft_finish();
}
