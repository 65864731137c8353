#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Link prediction: edge splits, decoders, loss and metrics                 */
/* ------------------------------------------------------------------------ */

/* A link-prediction task on a graph (a client's subgraph): its undirected
 * edges are split into training, validation and test positives; the model
 * (a node model, the encoder: spec.task FGL_TASK_LINK) passes messages over
 * the training edges only; a decoder scores node pairs; training minimises
 * binary cross-entropy on the training positives against as many negatives
 * (node pairs that are not training edges) drawn afresh every epoch from the
 * client's generator; validation and test score their positives against
 * negatives drawn once from the split's seed; the metrics are AUC and
 * Hits@K (docs/algorithms.md, "Link prediction protocol").
 *
 *       fgl_link_config lo = fgl_link_default();   // 85/5/10, Hits@50
 *       fgl_link_split ls;
 *       if (fgl_link_split_make(&sub, &lo, seed, &ls, &err)) ...   // sub: an fgl_node_data
 *       fgl_client_data cd = {&sub, NULL, fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_LINK, sub.n_feat, 64),
 *                             &ls};
 *       ... fgl_run_init(&run, &cfg, fgl_algo_find("fedavg"), &cd, 1, &err) and rounds as usual:
 *       c->val_acc / c->test_acc hold the AUC, fgl_round_stats.val_hits / test_hits Hits@K ...
 *       fgl_link_split_free(&ls);   // after the run
 *
 * The decoder is the model's head: without one (or with a linear one) the
 * score of (u, v) is the dot product of the model's output rows z_u . z_v
 * (out_dim: the embedding width); an MLP head (out_dim 1) is the MLP
 * decoder, reading rep_u * rep_v (elementwise) of the representation.
 * Features, not labels: a link task never reads y. */

typedef struct fgl_link_config {
    double val, test;   /* fractions of the undirected edges for validation and test (0.05, 0.10) */
    int eval_neg;       /* negatives per validation / test split: max(its positives, eval_neg) (1000; 0: as
                           many as the positives) */
    int hits_k;         /* K of Hits@K (50) */
} fgl_link_config;

typedef struct fgl_link_split {
    int n_nodes, hits_k;
    int n_pos[4], n_neg[4];   /* by FGL_SPLIT_* code (TRAIN, VAL, TEST): positives; negatives (VAL, TEST) */
    int *src[4], *dst[4];     /* the split's pairs: n_pos positives (src < dst), then n_neg negatives */
    fgl_csr adj;              /* the message-passing graph: the training edges, both directions */
    uint64_t sum;             /* a checksum of the split (run fingerprints) */
} fgl_link_split;

FGLDEF fgl_link_config fgl_link_default(void);
/* The name before the naming rule (README, "Names"), kept so that existing programs compile: */
#define fgl_link_options fgl_link_config
#define fgl_link_options_default fgl_link_default
/* The split of d's undirected edges (self loops ignored) from seed: E edges
 * shuffled, floor(val E) validation, floor(test E) test (at least one each
 * when its fraction is > 0 and E >= 3), the rest training; validation and
 * test negatives drawn uniformly, with replacement, among the node pairs
 * u != v that are not edges of d. Fewer than 2 nodes, no training edge left,
 * a graph too dense to find negatives, or bad options: an error, ls zeroed. */
FGLDEF int fgl_link_split_make(const fgl_node_data *d, const fgl_link_config *o, uint64_t seed, fgl_link_split *ls,
                               fgl_error *err);
FGLDEF void fgl_link_split_free(fgl_link_split *ls);
/* n training negatives into src/dst: pairs u != v drawn uniformly from r,
 * redrawn while they are training edges (positives of other splits may be
 * drawn: the client does not know them while it trains). FGL_ERR_ARG if
 * 100 n draws do not find them. */
FGLDEF int fgl_link_sample_negatives(const fgl_link_split *ls, int n, fgl_rng *r, int *src, int *dst);
/* The decoder's scores (logits, n x 1) of pairs (src[i], dst[i]) from a
 * forward pass fw of model m (dropout in the MLP decoder when train). */
FGLDEF fgl_node *fgl_link_scores(fgl_model *m, fgl_tape *t, const fgl_forward *fw, const int *src, const int *dst,
                                 int n, int train, fgl_rng *rng);
/* The training loss: mean binary cross-entropy with logits of the training
 * positives (target 1) and as many fresh negatives from r (target 0). */
FGLDEF fgl_node *fgl_link_loss(const fgl_link_split *ls, fgl_model *m, fgl_tape *t, const fgl_forward *fw,
                               fgl_rng *r);
/* AUC: the probability that a positive scores above a negative, ties
 * counting one half (the Mann-Whitney statistic). NaN when either list is
 * empty or holds a NaN. */
FGLDEF double fgl_link_auc(const float *pos, int n_pos, const float *neg, int n_neg);
/* Hits@K as OGB defines it: the fraction of positives scoring strictly
 * above the K-th highest negative score; 1 when there are fewer than K
 * negatives. NaN when there are no positives, k < 1, or a score is NaN. */
FGLDEF double fgl_link_hits(const float *pos, int n_pos, const float *neg, int n_neg, int k);

/* fgl:private */
#include "../alone.h"
/* ls->sum: FNV-1a over the split's pairs, with K of Hits@K (fgl_link_split_make's, and the check of a
 * split that arrived over MPI). */
FGL__PRIVATE uint64_t fgl__link_sum(const fgl_link_split *ls);

/* fgl:implementation */
#include "../alone.h"
/* --- link prediction -------------------------------------------------------------- */

FGLDEF fgl_link_config fgl_link_default(void) {
    fgl_link_config o;
    o.val = 0.05;
    o.test = 0.10;
    o.eval_neg = 1000;
    o.hits_k = 50;
    return o;
}

FGLDEF void fgl_link_split_free(fgl_link_split *ls) {
    int k;
    for (k = 0; k < 4; k++) {
        FGL_FREE(ls->src[k]);
        FGL_FREE(ls->dst[k]);
    }
    fgl_csr_free(&ls->adj);
    memset(ls, 0, sizeof *ls);
}

static int fgl__u64_cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* 1 if (u, v) (either order) is an edge of adj. */
static int fgl__link_has_edge(const fgl_csr *adj, int u, int v) {
    int lo = adj->indptr[u], hi = adj->indptr[u + 1] - 1;
    while (lo <= hi) { /* columns strictly increase (the graph contract) */
        int mid = lo + (hi - lo) / 2, c = adj->indices[mid];
        if (c == v) return 1;
        if (c < v) lo = mid + 1;
        else hi = mid - 1;
    }
    return 0;
}

/* A pair u != v that is not an edge of adj, uniform over such pairs by
 * rejection; -1 after `tries` draws. */
static int fgl__link_draw(const fgl_csr *adj, int n, fgl_rng *r, int tries, int *u, int *v) {
    while (tries-- > 0) {
        int a = (int)fgl_rng_below(r, (uint64_t)n), b = (int)fgl_rng_below(r, (uint64_t)n);
        if (a == b || fgl__link_has_edge(adj, a, b)) continue;
        *u = a < b ? a : b;
        *v = a < b ? b : a;
        return 0;
    }
    return -1;
}

FGL__PRIVATE uint64_t fgl__link_sum(const fgl_link_split *ls) {
    uint64_t h = 0x4c494e4bull;
    int i, k;
    for (k = 1; k < 4; k++)
        for (i = 0; i < ls->n_pos[k] + ls->n_neg[k]; i++) {
            h = (h ^ (uint64_t)(uint32_t)ls->src[k][i]) * 0x100000001b3ull;
            h = (h ^ (uint64_t)(uint32_t)ls->dst[k][i]) * 0x100000001b3ull;
        }
    return h ^ (uint64_t)ls->hits_k;
}

FGLDEF int fgl_link_split_make(const fgl_node_data *d, const fgl_link_config *o, uint64_t seed, fgl_link_split *ls,
                               fgl_error *err) {
    fgl_link_config def = fgl_link_default();
    uint64_t *keys = NULL;
    int n, E = 0, i, j, k, rc = FGL_OK, cut[4];
    fgl_rng r;
    memset(ls, 0, sizeof *ls);
    if (!o) o = &def;
    if (!d || !d->adj.indptr) return fgl_error_set(err, FGL_ERR_ARG, "link split: no graph");
    n = d->n_nodes;
    if (!(o->val >= 0 && o->test >= 0 && o->val + o->test < 1))
        return fgl_error_set(err, FGL_ERR_ARG, "link split: validation %g and test %g: fractions >= 0 summing below 1",
                             o->val, o->test);
    if (o->eval_neg < 0 || o->eval_neg > 100000000 || o->hits_k < 1)
        return fgl_error_set(err, FGL_ERR_ARG, "link split: eval_neg %d (0 .. 1e8), hits_k %d (>= 1)", o->eval_neg,
                             o->hits_k);
    if (n < 2) return fgl_error_set(err, FGL_ERR_EMPTY, "link split: %s has %d node(s)", d->name, n);
    for (i = 0; i < n; i++)
        for (j = d->adj.indptr[i]; j < d->adj.indptr[i + 1]; j++) E += d->adj.indices[j] > i;
    keys = (uint64_t *)FGL_MALLOC(sizeof(uint64_t) * (size_t)FGL__MAX(E, 1));
    if (!keys) return fgl_error_set(err, FGL_ERR_NOMEM, "link split: out of memory");
    E = 0;
    for (i = 0; i < n; i++)
        for (j = d->adj.indptr[i]; j < d->adj.indptr[i + 1]; j++)
            if (d->adj.indices[j] > i) keys[E++] = (uint64_t)i * (uint64_t)n + (uint64_t)d->adj.indices[j];
    ls->n_nodes = n;
    ls->hits_k = o->hits_k;
    ls->n_pos[FGL_SPLIT_VAL] = (int)floor(o->val * E);
    ls->n_pos[FGL_SPLIT_TEST] = (int)floor(o->test * E);
    if (E >= 3 && o->val > 0 && ls->n_pos[FGL_SPLIT_VAL] == 0) ls->n_pos[FGL_SPLIT_VAL] = 1;
    if (E >= 3 && o->test > 0 && ls->n_pos[FGL_SPLIT_TEST] == 0) ls->n_pos[FGL_SPLIT_TEST] = 1;
    ls->n_pos[FGL_SPLIT_TRAIN] = E - ls->n_pos[FGL_SPLIT_VAL] - ls->n_pos[FGL_SPLIT_TEST];
    if (ls->n_pos[FGL_SPLIT_TRAIN] < 1) {
        FGL_FREE(keys);
        memset(ls, 0, sizeof *ls);
        return fgl_error_set(err, FGL_ERR_EMPTY, "link split: %s has %d edge(s): none left for training", d->name, E);
    }
    fgl_rng_init(&r, seed, 0x4c494e4b53504cull); /* "LINKSPL" */
    for (i = E - 1; i > 0; i--) { /* Fisher-Yates */
        int q = (int)fgl_rng_below(&r, (uint64_t)i + 1);
        uint64_t x = keys[i];
        keys[i] = keys[q];
        keys[q] = x;
    }
    /* validation first, then test, then training, each in increasing key order */
    cut[FGL_SPLIT_VAL] = 0;
    cut[FGL_SPLIT_TEST] = ls->n_pos[FGL_SPLIT_VAL];
    cut[FGL_SPLIT_TRAIN] = cut[FGL_SPLIT_TEST] + ls->n_pos[FGL_SPLIT_TEST];
    for (k = 1; k < 4; k++) {
        int np = ls->n_pos[k];
        qsort(keys + cut[k], (size_t)np, sizeof(uint64_t), fgl__u64_cmp);
        if (k != FGL_SPLIT_TRAIN) ls->n_neg[k] = FGL__MAX(np, o->eval_neg);
        ls->src[k] = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(np + ls->n_neg[k], 1));
        ls->dst[k] = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(np + ls->n_neg[k], 1));
        if (!ls->src[k] || !ls->dst[k]) {
            rc = fgl_error_set(err, FGL_ERR_NOMEM, "link split: out of memory");
            goto done;
        }
        for (i = 0; i < np; i++) {
            ls->src[k][i] = (int)(keys[cut[k] + i] / (uint64_t)n);
            ls->dst[k][i] = (int)(keys[cut[k] + i] % (uint64_t)n);
        }
    }
    /* fixed negatives: non-edges of the whole graph, validation then test */
    for (k = FGL_SPLIT_VAL; k <= FGL_SPLIT_TEST; k++)
        for (i = 0; i < ls->n_neg[k]; i++)
            if (fgl__link_draw(&d->adj, n, &r, 1000, &ls->src[k][ls->n_pos[k] + i], &ls->dst[k][ls->n_pos[k] + i])) {
                rc = fgl_error_set(err, FGL_ERR_ARG, "link split: %s is too dense: 1000 draws found no non-edge",
                                   d->name);
                goto done;
            }
    if ((rc = fgl_graph_from_edges(n, ls->src[FGL_SPLIT_TRAIN], ls->dst[FGL_SPLIT_TRAIN], ls->n_pos[FGL_SPLIT_TRAIN],
                                   FGL_EDGES_SYMMETRIZE, &ls->adj, err)))
        goto done;
    ls->sum = fgl__link_sum(ls);
done:
    FGL_FREE(keys);
    if (rc) fgl_link_split_free(ls);
    return rc;
}

FGLDEF int fgl_link_sample_negatives(const fgl_link_split *ls, int n, fgl_rng *r, int *src, int *dst) {
    int i;
    for (i = 0; i < n; i++)
        if (fgl__link_draw(&ls->adj, ls->n_nodes, r, 100, &src[i], &dst[i])) return FGL_ERR_ARG;
    return FGL_OK;
}

FGLDEF fgl_node *fgl_link_scores(fgl_model *m, fgl_tape *t, const fgl_forward *fw, const int *src, const int *dst,
                                 int n, int train, fgl_rng *rng) {
    if (!fw->logits || !fw->rep) return fgl_tape_fail(t, FGL_ERR_ARG, "link scores: no forward pass");
    if (m->spec.head == FGL_HEAD_MLP) { /* the MLP decoder on rep_u * rep_v */
        fgl_node *h = fgl_op_mul(t, fgl_op_gather_rows(t, fw->rep, src, n), fgl_op_gather_rows(t, fw->rep, dst, n));
        return fgl_model_head(m, t, h, train, rng);
    }
    return fgl_op_edge_dot(t, fw->logits, src, dst, n);
}

FGLDEF fgl_node *fgl_link_loss(const fgl_link_split *ls, fgl_model *m, fgl_tape *t, const fgl_forward *fw,
                               fgl_rng *r) {
    int P = ls->n_pos[FGL_SPLIT_TRAIN], i;
    int *src = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)(2 * P)),
        *dst = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)(2 * P));
    float *y = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)(2 * P));
    if (!src || !dst || !y) return fgl_tape_fail(t, FGL_ERR_NOMEM, "link loss: out of memory");
    memcpy(src, ls->src[FGL_SPLIT_TRAIN], sizeof(int) * (size_t)P);
    memcpy(dst, ls->dst[FGL_SPLIT_TRAIN], sizeof(int) * (size_t)P);
    if (fgl_link_sample_negatives(ls, P, r, src + P, dst + P))
        return fgl_tape_fail(t, FGL_ERR_ARG, "link loss: the graph is too dense to draw negatives");
    for (i = 0; i < 2 * P; i++) y[i] = i < P ? 1.0f : 0.0f;
    return fgl_op_bce_logits(t, fgl_link_scores(m, t, fw, src, dst, 2 * P, 1, r), fgl_op_const(t, y, 2 * P, 1));
}

static int fgl__float_cmp(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* Sorted copies of two score lists (ascending), or NULL (a NaN, or out of
 * memory: the caller says NaN). */
static float *fgl__link_sorted(const float *pos, int n_pos, const float *neg, int n_neg) {
    float *s = (float *)FGL_MALLOC(sizeof(float) * (size_t)FGL__MAX(n_pos + n_neg, 1));
    int i;
    if (!s) return NULL;
    for (i = 0; i < n_pos; i++) s[i] = pos[i];
    for (i = 0; i < n_neg; i++) s[n_pos + i] = neg[i];
    for (i = 0; i < n_pos + n_neg; i++)
        if (s[i] != s[i]) {
            FGL_FREE(s);
            return NULL;
        }
    qsort(s, (size_t)n_pos, sizeof(float), fgl__float_cmp);
    qsort(s + n_pos, (size_t)n_neg, sizeof(float), fgl__float_cmp);
    return s;
}

FGLDEF double fgl_link_auc(const float *pos, int n_pos, const float *neg, int n_neg) {
    float *s, *p, *q;
    double wins = 0;
    int i, lo = 0, hi = 0;
    if (n_pos <= 0 || n_neg <= 0 || !(s = fgl__link_sorted(pos, n_pos, neg, n_neg))) return NAN;
    p = s;
    q = s + n_pos;
    for (i = 0; i < n_pos; i++) { /* lo: negatives below p[i]; hi: negatives at most p[i] */
        while (lo < n_neg && q[lo] < p[i]) lo++;
        if (hi < lo) hi = lo;
        while (hi < n_neg && q[hi] <= p[i]) hi++;
        wins += lo + 0.5 * (hi - lo);
    }
    FGL_FREE(s);
    return wins / ((double)n_pos * (double)n_neg);
}

FGLDEF double fgl_link_hits(const float *pos, int n_pos, const float *neg, int n_neg, int k) {
    float *s, kth;
    int i, above = 0;
    if (n_pos <= 0 || k < 1 || !(s = fgl__link_sorted(pos, n_pos, neg, n_neg))) return NAN;
    if (n_neg < k) {
        FGL_FREE(s);
        return 1.0;
    }
    kth = s[n_pos + n_neg - k]; /* the k-th highest negative */
    for (i = 0; i < n_pos; i++) above += s[i] > kth;
    FGL_FREE(s);
    return (double)above / n_pos;
}
#include "../alone.h"
