#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Data views: one way to walk a dataset, node, graph or link task         */
/* ------------------------------------------------------------------------ */

/* A dataset (one graph for node classification, or a set of graphs) with
 * its FGL_SPLIT_* codes, prepared once for models of one spec, seen as
 * batches: a node task's split is one batch (the whole graph, a mask
 * selecting the split's nodes); a graph task's split is batches of graphs.
 * Training, evaluation and prototype extraction walk it the same way for
 * both tasks:
 *       fgl_view_iter it; fgl_view_batch b;
 *       fgl_view_begin(&v, FGL_SPLIT_TRAIN, 128, &it);
 *       while ((rc = fgl_view_next(&it, &b, &err)) > 0) { forward on b.g ... b.labels, b.mask }
 *       fgl_view_end(&it);
 * The view borrows the data (it must outlive the view) and owns what it
 * derives. Graph tasks keep the split's graph ids in an order that
 * fgl_view_shuffle permutes in place (ids[FGL_SPLIT_TRAIN]: save it to
 * resume the same batches). A link task (fgl_view_init_link) is one batch
 * too: the message-passing graph of its edge split (src/gnn/link.h), no
 * labels, count[] its positive pairs. The task supplies its loss
 * (fgl_view_loss) and its metrics (fgl_view_metrics): cross-entropy and
 * accuracy for classification, binary cross-entropy with fresh negatives
 * and AUC, Hits@K for link prediction. */
typedef struct fgl_view {
    int task;
    int count[4];                  /* samples per FGL_SPLIT_* code (labelled ones, node tasks) */
    int *ids[4];                   /* graph tasks: the split's graph ids, in batch order */
    fgl_model_spec spec;           /* what the batches are prepared for */
    int eval_batch;                /* graph tasks: graphs per prepared evaluation batch */
    fgl_node_data *node;           /* node tasks (borrowed) */
    fgl_gnn_graph full;            /* node tasks: the prepared graph */
    unsigned char *mask[4];        /* node tasks: nodes of each split */
    fgl_graph_set *graphs;         /* graph tasks (borrowed) */
    int n_prep[4];                 /* graph tasks: prepared batches of the validation and test splits */
    fgl_batch *prep_b[4];
    fgl_gnn_graph *prep_g[4];
    const fgl_link_split *link;    /* link tasks (borrowed) */
} fgl_view;

/* One batch: run the model on g; rows of the logits are scored against
 * labels where mask (NULL: every row) is set and the label is >= 0. */
typedef struct fgl_view_batch {
    const fgl_gnn_graph *g;
    const int *labels;
    const unsigned char *mask;
    int n;                         /* samples (nodes of the split, or graphs) in the batch */
} fgl_view_batch;

typedef struct fgl_view_iter {
    fgl_view *v;
    int which, batch, pos, prepared;
    fgl_batch b;                   /* graph tasks: the batch being served */
    fgl_gnn_graph g;
} fgl_view_iter;

/* Exactly one of node / graphs; eval_batch <= 0 means 512. */
FGLDEF int fgl_view_init(fgl_view *v, fgl_node_data *node, fgl_graph_set *graphs, const fgl_model_spec *spec,
                         int eval_batch, fgl_error *err);
/* A link task: node's features (node->adj is not read: the model passes
 * messages over link->adj, the training edges), link's pairs. */
FGLDEF int fgl_view_init_link(fgl_view *v, fgl_node_data *node, const fgl_link_split *link, const fgl_model_spec *spec,
                              fgl_error *err);
FGLDEF void fgl_view_free(fgl_view *v);
/* batch_size <= 0: a graph task's split in one batch, except the validation
 * and test splits, which are served in their prepared evaluation batches.
 * Node tasks ignore it. */
FGLDEF void fgl_view_begin(fgl_view *v, int which, int batch_size, fgl_view_iter *it);
/* 1 with the next batch in *out (valid until the next call), 0 when the
 * split is done, or an error code (err says why). */
FGLDEF int fgl_view_next(fgl_view_iter *it, fgl_view_batch *out, fgl_error *err);
FGLDEF void fgl_view_end(fgl_view_iter *it);
/* Graph tasks: a new random order of the split's graphs (node tasks: nothing). */
FGLDEF void fgl_view_shuffle(fgl_view *v, int which, fgl_rng *r);
/* Accuracy of m (evaluation mode) on each split of which[0..n-1] into acc;
 * a node task scores all of them in one forward pass. */
FGLDEF int fgl_view_accuracy(fgl_view *v, fgl_model *m, fgl_tape *t, const int *which, int n, double *acc);
/* The task's training loss on batch b of forward pass fw (training mode):
 * cross-entropy of fw->logits against b's labels where b's mask is set, or
 * for a link task fgl_link_loss (its negatives drawn from r). labels, when
 * not NULL, replace b's (a label-flipping attacker's). NULL on error (t
 * says why). */
FGLDEF fgl_node *fgl_view_loss(fgl_view *v, fgl_model *m, fgl_tape *t, const fgl_forward *fw,
                               const fgl_view_batch *b, const int *labels, fgl_rng *r);
/* The task's metrics of m (evaluation mode) on each split of which[0..n-1]:
 * score[q] the accuracy, or a link task's AUC; extra[q] (may be NULL) NaN,
 * or a link task's Hits@K (K: the split's hits_k). One forward pass for
 * node and link tasks. */
FGLDEF int fgl_view_metrics(fgl_view *v, fgl_model *m, fgl_tape *t, const int *which, int n, double *score,
                            double *extra);
/* fgl_view_metrics with, for node and graph tasks, the macro-F1 and the
 * two-class ROC-AUC of each split beside (fgl_class_metrics: f1[q], auc[q];
 * either may be NULL; link tasks: NaN). The accuracies are those
 * fgl_view_metrics gives, bit for bit, from the same forward passes. */
FGLDEF int fgl_view_class_metrics(fgl_view *v, fgl_model *m, fgl_tape *t, const int *which, int n, double *score,
                                  double *extra, double *f1, double *auc);
/* Classification metrics of class scores sc (n rows of C, row-major:
 * logits, or any scores increasing with the class's likelihood) against
 * labels y, on the rows where mask (NULL: every row) is set and 0 <= y[i]
 * < C. A row's prediction is its highest score (the first on ties, as the
 * accuracy's).
 *   f1 (may be NULL): the macro-F1, the mean over the classes present in
 *     those rows (support > 0) of the class's F1 = 2 TP / (2 TP + FP + FN)
 *     (0 for a present class never predicted right). A class absent from
 *     the rows is left out of the mean even when it is predicted: its false
 *     positives count as the other classes' false negatives (so this is
 *     scikit-learn's f1_score(average='macro', labels=<the present classes>),
 *     not its default over the union of true and predicted labels). NaN
 *     when no row counts.
 *   auc (may be NULL): C == 2 only, the ROC-AUC of the positive class (1)
 *     scored by sc[i][1] - sc[i][0] (a float; any monotone transform of it,
 *     softmax's p1 included, ranks alike up to its rounding): the
 *     Mann-Whitney statistic, the probability that a positive row scores
 *     above a negative one, ties counting one half (the midrank definition;
 *     fgl_link_auc). NaN when C != 2, when the rows hold one class only (or
 *     none), or when a counted score is NaN.
 * FGL_OK, or FGL_ERR_NOMEM (both NaN then). */
FGLDEF int fgl_class_metrics(const float *sc, int n, int C, const int *y, const unsigned char *mask, double *f1,
                             double *auc);

/* fgl:implementation */
#include "../alone.h"
/* --- data views -------------------------------------------------------------------- */

FGLDEF void fgl_view_free(fgl_view *v) {
    int k, b;
    for (k = 0; k < 4; k++) {
        FGL_FREE(v->ids[k]);
        FGL_FREE(v->mask[k]);
        for (b = 0; b < v->n_prep[k]; b++) {
            fgl_gnn_graph_free(&v->prep_g[k][b]);
            fgl_batch_free(&v->prep_b[k][b]);
        }
        FGL_FREE(v->prep_b[k]);
        FGL_FREE(v->prep_g[k]);
    }
    fgl_gnn_graph_free(&v->full);
    memset(v, 0, sizeof *v);
}

/* The validation and test splits of a graph task, cut once into evaluation
 * batches prepared for the spec (they never change). */
static int fgl__view_prepare(fgl_view *v, int k, fgl_error *err) {
    int n = v->count[k], B = v->eval_batch, nb = (n + B - 1) / B, b, rc;
    v->prep_b[k] = (fgl_batch *)FGL_MALLOC(sizeof(fgl_batch) * (size_t)FGL__MAX(nb, 1));
    v->prep_g[k] = (fgl_gnn_graph *)FGL_MALLOC(sizeof(fgl_gnn_graph) * (size_t)FGL__MAX(nb, 1));
    if (!v->prep_b[k] || !v->prep_g[k]) return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", v->graphs->name);
    for (b = 0; b < nb; b++) {
        int i0 = b * B, m = FGL__MIN(B, n - i0);
        fgl_batch_init(&v->prep_b[k][b]);
        memset(&v->prep_g[k][b], 0, sizeof(fgl_gnn_graph));
        v->n_prep[k] = b + 1;
        if ((rc = fgl_batch_make(v->graphs, v->ids[k] + i0, m, &v->prep_b[k][b], err)) ||
            (rc = fgl_gnn_graph_from_batch(&v->prep_g[k][b], &v->prep_b[k][b], &v->spec, err)))
            return rc;
    }
    return FGL_OK;
}

FGLDEF int fgl_view_init(fgl_view *v, fgl_node_data *node, fgl_graph_set *graphs, const fgl_model_spec *spec,
                         int eval_batch, fgl_error *err) {
    int k, i, rc = FGL_OK;
    memset(v, 0, sizeof *v);
    if ((node == NULL) == (graphs == NULL))
        return fgl_error_set(err, FGL_ERR_ARG, "view: give exactly one of node data or a graph set");
    v->spec = *spec;
    v->eval_batch = eval_batch > 0 ? eval_batch : 512;
    if (node) {
        int n = node->n_nodes;
        v->task = FGL_TASK_NODE;
        v->node = node;
        if (!node->split)
            return fgl_error_set(err, FGL_ERR_ARG, "%s: node data without a train/val/test split", node->name);
        for (k = 1; k < 4; k++) {
            v->mask[k] = (unsigned char *)FGL_MALLOC((size_t)FGL__MAX(n, 1));
            if (!v->mask[k]) {
                rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", node->name);
                goto fail;
            }
            for (i = 0; i < n; i++) {
                v->mask[k][i] = node->y[i] >= 0 && node->split[i] == k;
                v->count[k] += v->mask[k][i];
            }
        }
        if ((rc = fgl_gnn_graph_from_node_data(&v->full, node, spec, err))) goto fail;
        return FGL_OK;
    }
    v->task = FGL_TASK_GRAPH;
    v->graphs = graphs;
    if (!graphs->split)
        return fgl_error_set(err, FGL_ERR_ARG, "%s: graph set without a train/val/test split", graphs->name);
    if (!graphs->x || graphs->n_feat <= 0)
        return fgl_error_set(err, FGL_ERR_ARG, "%s: graph set without node features", graphs->name);
    for (k = 1; k < 4; k++) {
        v->count[k] = fgl_split_indices(graphs->split, graphs->n_graphs, k, NULL);
        v->ids[k] = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(v->count[k], 1));
        if (!v->ids[k]) {
            rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", graphs->name);
            goto fail;
        }
        fgl_split_indices(graphs->split, graphs->n_graphs, k, v->ids[k]);
    }
    if ((rc = fgl__view_prepare(v, FGL_SPLIT_VAL, err)) || (rc = fgl__view_prepare(v, FGL_SPLIT_TEST, err))) goto fail;
    return FGL_OK;
fail:
    fgl_view_free(v);
    return rc;
}

FGLDEF int fgl_view_init_link(fgl_view *v, fgl_node_data *node, const fgl_link_split *link, const fgl_model_spec *spec,
                              fgl_error *err) {
    int k, rc;
    memset(v, 0, sizeof *v);
    if (!node || !link) return fgl_error_set(err, FGL_ERR_ARG, "view: a link task needs node data and its edge split");
    if (link->n_nodes != node->n_nodes || link->adj.rows != node->n_nodes)
        return fgl_error_set(err, FGL_ERR_SHAPE, "%s: the edge split is of %d nodes, the data has %d", node->name,
                             link->n_nodes, node->n_nodes);
    v->spec = *spec;
    v->task = FGL_TASK_LINK;
    v->node = node;
    v->link = link;
    for (k = 1; k < 4; k++) v->count[k] = link->n_pos[k];
    rc = fgl_gnn_graph_make(&v->full, &link->adj, NULL, node->x_sparse.rows ? NULL : node->x.data,
                            node->x_sparse.rows ? &node->x_sparse : NULL,
                            node->n_feat, NULL, 0, NULL, 0, spec, err);
    if (rc) fgl_view_free(v);
    return rc;
}

FGLDEF void fgl_view_begin(fgl_view *v, int which, int batch_size, fgl_view_iter *it) {
    memset(it, 0, sizeof *it);
    it->v = v;
    it->which = which >= 1 && which <= 3 ? which : FGL_SPLIT_TRAIN;
    it->prepared = v->task == FGL_TASK_GRAPH && batch_size <= 0 && v->n_prep[it->which] > 0;
    it->batch = batch_size > 0 ? batch_size : FGL__MAX(v->count[it->which], 1);
    fgl_batch_init(&it->b);
}

FGLDEF void fgl_view_end(fgl_view_iter *it) {
    fgl_gnn_graph_free(&it->g);
    fgl_batch_free(&it->b);
}

FGLDEF int fgl_view_next(fgl_view_iter *it, fgl_view_batch *out, fgl_error *err) {
    fgl_view *v = it->v;
    int k = it->which, rc, m;
    memset(out, 0, sizeof *out);
    if (v->task != FGL_TASK_GRAPH) {
        if (it->pos++ > 0) return 0;
        out->g = &v->full;
        out->labels = v->task == FGL_TASK_NODE ? v->node->y : NULL;
        out->mask = v->mask[k];
        out->n = v->count[k];
        return 1;
    }
    if (it->prepared) {
        const fgl_batch *b;
        if (it->pos >= v->n_prep[k]) return 0;
        b = &v->prep_b[k][it->pos];
        out->g = &v->prep_g[k][it->pos++];
        out->labels = b->y;
        out->n = b->n_graphs;
        return 1;
    }
    if (it->pos >= v->count[k]) return 0;
    fgl_gnn_graph_free(&it->g);
    fgl_batch_free(&it->b);
    m = FGL__MIN(it->batch, v->count[k] - it->pos);
    if ((rc = fgl_batch_make(v->graphs, v->ids[k] + it->pos, m, &it->b, err)) ||
        (rc = fgl_gnn_graph_from_batch(&it->g, &it->b, &v->spec, err)))
        return rc;
    it->pos += m;
    out->g = &it->g;
    out->labels = it->b.y;
    out->n = m;
    return 1;
}

FGLDEF void fgl_view_shuffle(fgl_view *v, int which, fgl_rng *r) {
    if (v->task == FGL_TASK_GRAPH && which >= 1 && which <= 3) fgl_rng_shuffle(r, v->ids[which], v->count[which]);
}

FGLDEF fgl_node *fgl_view_loss(fgl_view *v, fgl_model *m, fgl_tape *t, const fgl_forward *fw,
                               const fgl_view_batch *b, const int *labels, fgl_rng *r) {
    if (v->task == FGL_TASK_LINK) return fgl_link_loss(v->link, m, t, fw, r);
    return fgl_op_cross_entropy(t, fw->logits, labels ? labels : b->labels, b->mask);
}

/* A link task's metrics: one forward pass, every split's pairs scored. */
static int fgl__view_link_metrics(fgl_view *v, fgl_model *m, fgl_tape *t, const int *which, int n, double *score,
                                  double *extra) {
    const fgl_link_split *ls = v->link;
    fgl_forward fw;
    int q;
    fgl_tape_reset(t);
    if (fgl_model_forward(m, t, &v->full, 0, NULL, &fw) || !fw.logits) return t->err.code ? t->err.code : FGL_ERR_ARG;
    for (q = 0; q < n; q++) {
        int k = which[q] >= 1 && which[q] <= 3 ? which[q] : FGL_SPLIT_TEST, P = ls->n_pos[k], N = ls->n_neg[k];
        fgl_node *s = fgl_link_scores(m, t, &fw, ls->src[k], ls->dst[k], P + N, 0, NULL);
        if (!s) return t->err.code ? t->err.code : FGL_ERR_ARG;
        score[q] = fgl_link_auc(s->val, P, s->val + P, N);
        if (extra) extra[q] = fgl_link_hits(s->val, P, s->val + P, N, ls->hits_k);
    }
    return FGL_OK;
}

FGLDEF int fgl_view_metrics(fgl_view *v, fgl_model *m, fgl_tape *t, const int *which, int n, double *score,
                            double *extra) {
    int q;
    if (v->task == FGL_TASK_LINK) return fgl__view_link_metrics(v, m, t, which, n, score, extra);
    for (q = 0; extra && q < n; q++) extra[q] = NAN;
    return fgl_view_accuracy(v, m, t, which, n, score);
}

FGLDEF int fgl_class_metrics(const float *sc, int n, int C, const int *y, const unsigned char *mask, double *f1,
                             double *auc) {
    int *cnt, i, k, total = 0, present = 0, n_pos = 0, n_neg = 0;
    float *s = NULL;
    if (f1) *f1 = NAN;
    if (auc) *auc = NAN;
    if (n <= 0 || C < 1) return FGL_OK;
    if (!(cnt = (int *)FGL_MALLOC(sizeof(int) * 3 * (size_t)C))) return FGL_ERR_NOMEM; /* TP, predicted, support */
    memset(cnt, 0, sizeof(int) * 3 * (size_t)C);
    for (i = 0; i < n; i++) {
        const float *r = sc + (size_t)i * (size_t)C;
        int best = 0;
        if ((mask && !mask[i]) || y[i] < 0 || y[i] >= C) continue;
        for (k = 1; k < C; k++)
            if (r[k] > r[best]) best = k;
        cnt[y[i]] += best == y[i];
        cnt[C + best]++;
        cnt[2 * C + y[i]]++;
        total++;
    }
    if (f1 && total) {
        double sum = 0;
        for (k = 0; k < C; k++)
            if (cnt[2 * C + k] > 0) { /* 2 TP / (2 TP + FP + FN) = 2 TP / (predicted + support) */
                sum += 2.0 * cnt[k] / ((double)cnt[C + k] + (double)cnt[2 * C + k]);
                present++;
            }
        *f1 = sum / present;
    }
    if (auc && C == 2 && total && cnt[2 * C] > 0 && cnt[2 * C + 1] > 0) {
        if (!(s = (float *)FGL_MALLOC(sizeof(float) * (size_t)total))) {
            FGL_FREE(cnt);
            if (f1) *f1 = NAN;
            return FGL_ERR_NOMEM;
        }
        n_pos = cnt[2 * C + 1];
        k = 0;
        for (i = 0; i < n; i++) { /* positives first, then the negatives */
            const float *r = sc + (size_t)i * 2;
            if ((mask && !mask[i]) || y[i] < 0 || y[i] >= 2) continue;
            if (y[i] == 1) s[k++] = r[1] - r[0];
            else s[n_pos + n_neg++] = r[1] - r[0];
        }
        *auc = fgl_link_auc(s, n_pos, s + n_pos, n_neg);
        FGL_FREE(s);
    }
    FGL_FREE(cnt);
    return FGL_OK;
}

/* Rows of logits scored as fgl_model_evaluate scores them: hits, counted. */
static void fgl__view_hits(const fgl_node *lg, const int *labels, const unsigned char *mask, int *ok, int *total) {
    int i, j;
    *ok = *total = 0;
    for (i = 0; i < lg->rows; i++) {
        const float *row = lg->val + (size_t)i * lg->cols;
        int best = 0;
        if ((mask && !mask[i]) || labels[i] < 0) continue;
        for (j = 1; j < lg->cols; j++)
            if (row[j] > row[best]) best = j;
        *ok += best == labels[i];
        (*total)++;
    }
}

/* A graph task's split: the accuracy as fgl_view_accuracy sums it, the
 * batches' logits gathered for fgl_class_metrics. */
static int fgl__view_graph_class(fgl_view *v, fgl_model *m, fgl_tape *t, int which, double *acc, double *f1,
                                 double *auc) {
    fgl_view_iter it;
    fgl_view_batch b;
    double correct = 0;
    int total = 0, rc, C = v->spec.out_dim, n_rows = 0, cap = v->count[which >= 1 && which <= 3 ? which : 1];
    float *sc = (float *)FGL_MALLOC(sizeof(float) * (size_t)FGL__MAX(cap, 1) * (size_t)FGL__MAX(C, 1));
    int *y = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(cap, 1));
    if (!sc || !y) {
        FGL_FREE(sc);
        FGL_FREE(y);
        return FGL_ERR_NOMEM;
    }
    fgl_view_begin(v, which, 0, &it);
    while ((rc = fgl_view_next(&it, &b, NULL)) > 0) {
        fgl_forward out;
        int ok, cnt, i;
        fgl_tape_reset(t);
        if (fgl_model_forward(m, t, b.g, 0, NULL, &out) || !out.logits) {
            rc = t->err.code ? t->err.code : FGL_ERR_ARG;
            break;
        }
        fgl__view_hits(out.logits, b.labels, NULL, &ok, &cnt);
        /* as fgl_view_accuracy: a weighted mean of batch accuracies (fgl_model_evaluate's) */
        correct += (cnt ? (double)ok / cnt : 0.0) * b.n;
        total += b.n;
        for (i = 0; i < out.logits->rows && out.logits->cols == C; i++) {
            if (b.labels[i] < 0 || n_rows >= cap) continue;
            memcpy(sc + (size_t)n_rows * (size_t)C, out.logits->val + (size_t)i * (size_t)C, sizeof(float) * (size_t)C);
            y[n_rows++] = b.labels[i];
        }
    }
    fgl_view_end(&it);
    if (rc >= 0) {
        *acc = total ? correct / total : 0.0;
        rc = fgl_class_metrics(sc, n_rows, C, y, NULL, f1, auc);
    }
    FGL_FREE(sc);
    FGL_FREE(y);
    return rc < 0 ? rc : FGL_OK;
}

FGLDEF int fgl_view_class_metrics(fgl_view *v, fgl_model *m, fgl_tape *t, const int *which, int n, double *score,
                                  double *extra, double *f1, double *auc) {
    int q, rc;
    for (q = 0; q < n; q++) {
        if (f1) f1[q] = NAN;
        if (auc) auc[q] = NAN;
    }
    if (v->task == FGL_TASK_LINK || (!f1 && !auc)) return fgl_view_metrics(v, m, t, which, n, score, extra);
    for (q = 0; extra && q < n; q++) extra[q] = NAN;
    if (v->task == FGL_TASK_NODE) { /* one forward pass scores every split */
        fgl_forward out;
        fgl_tape_reset(t);
        if (fgl_model_forward(m, t, &v->full, 0, NULL, &out) || !out.logits) return t->err.code ? t->err.code : FGL_ERR_ARG;
        for (q = 0; q < n; q++) {
            const unsigned char *mask = v->mask[which[q] >= 1 && which[q] <= 3 ? which[q] : 1];
            int ok, total;
            fgl__view_hits(out.logits, v->node->y, mask, &ok, &total);
            score[q] = total ? (double)ok / total : 0.0; /* as fgl_model_evaluate */
            if ((rc = fgl_class_metrics(out.logits->val, out.logits->rows, out.logits->cols, v->node->y, mask,
                                        f1 ? f1 + q : NULL, auc ? auc + q : NULL)))
                return rc;
        }
        return FGL_OK;
    }
    for (q = 0; q < n; q++)
        if ((rc = fgl__view_graph_class(v, m, t, which[q], score + q, f1 ? f1 + q : NULL, auc ? auc + q : NULL)))
            return rc;
    return FGL_OK;
}

FGLDEF int fgl_view_accuracy(fgl_view *v, fgl_model *m, fgl_tape *t, const int *which, int n, double *acc) {
    int q, rc;
    if (v->task == FGL_TASK_LINK) return fgl__view_link_metrics(v, m, t, which, n, acc, NULL);
    if (v->task == FGL_TASK_NODE) { /* one forward pass scores every split */
        const unsigned char *masks[4];
        for (q = 0; q < n && q < 4; q++) masks[q] = v->mask[which[q] >= 1 && which[q] <= 3 ? which[q] : 1];
        return fgl_model_evaluate(m, t, &v->full, v->node->y, masks, FGL__MIN(n, 4), acc, NULL, NULL);
    }
    for (q = 0; q < n; q++) {
        fgl_view_iter it;
        fgl_view_batch b;
        double correct = 0;
        int total = 0;
        fgl_view_begin(v, which[q], 0, &it);
        while ((rc = fgl_view_next(&it, &b, NULL)) > 0) {
            double a;
            if ((rc = fgl_model_evaluate(m, t, b.g, b.labels, NULL, 1, &a, NULL, NULL))) break;
            /* as a weighted mean of batch accuracies, the order fgl has always summed in */
            correct += a * b.n;
            total += b.n;
        }
        fgl_view_end(&it);
        if (rc < 0) return rc;
        acc[q] = total ? correct / total : 0.0;
    }
    return FGL_OK;
}

#include "../alone.h"
