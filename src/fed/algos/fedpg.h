#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:private */
#include "../../alone.h"
/* Per hop, a centres x nodes matrix whose row i averages N^h(centre i)
 * (values 1/|N^h|; an empty row: no neighbours at that hop), its
 * transpose, and the centres' classes. */
typedef struct fgl__pg_rings {
    int H, n;                     /* hops 1..H (hop 0 is the centre itself), centres */
    int *centre, *label;
    fgl_csr hop[FGL_MAX_LAYERS + 1], hop_t[FGL_MAX_LAYERS + 1];
    int on_tape;                  /* memory from an arena: nothing to free */
} fgl__pg_rings;

FGL__PRIVATE void fgl__pg_rings_free(void *p);
FGL__PRIVATE int fgl__pg_rings_graph(fgl__pg_rings *r, const fgl_csr *adj, const int *centre, const int *label, int n,
                                     int H, fgl_tape *t);
FGL__PRIVATE float fgl__pg_kth_largest(float *a, size_t m, size_t k);
FGL__PRIVATE int fgl__pg_rings_cosine(fgl__pg_rings *r, const float *z, const int *label, int n, int d, int H,
                                      double band, fgl_tape *t);
FGL__PRIVATE fgl_node *fgl__fedpg_loss(fgl_client *c, const fgl_step *st);
/* fgl:implementation */
#include "../../alone.h"
/* --- FedPG (Li et al., Federated Prototype Graph Learning) ------------------------- */
/* Prototypes per class and hop instead of weights (docs/algorithms.md, FedPG: the
 * paper's equations are lost; this is the reconstruction written there).
 * Clients may run different backbones (no weights travel); they must agree
 * on the width d of the embedding z the classifier reads, which on node
 * tasks is L2-normalised (normalize=1 sets spec.norm_rep: z =
 * L2norm(ReLU(layer-1 output)) for a two-layer model whose last layer is the
 * classifier). Graph tasks keep the pooled embedding as it is by default
 * (normalize=2 normalises it too: on NCI1 the normalised readouts collapsed
 * to one direction and every client predicted its majority class).
 *
 * Hops h = 0..H, H the smallest message-passing layer count among clients
 * (FGL_DIM_HOPS = H + 1). Node tasks: N^0(v) = {v}, N^h(v) = the nodes at
 * distance exactly h from v in the client's subgraph (the centre excluded).
 * Graph tasks (no public code; fgl's choice): the "neighbours" of a training
 * graph are the other training graphs of the client whose embedding cosine
 * lies in a ring that moves outwards with h: N^h(v) = {u != v : theta_h <=
 * cos(z_u, z_v) < theta_{h-1}}, theta_0 = +inf, with decaying thresholds
 * theta_h = the cosine reached by the top h graph_band fraction of all pairs
 * (graph_band 0.1: hop 1 is the 10% most similar pairs, hop 2 the next 10%,
 * ...), recomputed from the current embeddings: over all training graphs
 * for the upload, over the graphs of the mini-batch inside the loss. (Fixed
 * cosine thresholds fail: the ReLU embeddings are non-negative and nearly
 * all pairs exceed 0.9.)
 *
 * Client, after local training (evaluation mode): for class c and hop h,
 * p^{c,h} = mean over the centres v of class c with N^h(v) non-empty of
 * mean_{u in N^h(v)} z_u; centres are the training samples (their labels
 * only, never validation ones: val_centres=1, for reproduction only, makes
 * the validation nodes centres too, at every hop, in the prototypes and in
 * the loss, as the authors' code does at hop 0 -- label leakage: the
 * validation accuracy that selects the round then measures nodes trained
 * on), plus, with pseudo > 0 (node tasks, the
 * paper's Algorithm 1), the other nodes the model predicts with softmax
 * confidence >= pseudo, under their predicted class. Sends "protos"
 * (C (H+1) x d, row c (H+1) + h) and "counts" (C x (H+1): the centres
 * behind each row; 0 marks an absent row, whose floats are zeros and are
 * never read).
 * Loss: CE + mu sum_{h, c} mean_{v in S_c^h} ||mean_{N^h(v)} z - P~^{c,h}||^2 / d
 * (MSE per class and hop, as nn.MSELoss), over the rows the download marks
 * and the hops h <= loss_hops (0: the centre's hop only, what the authors'
 * code trains; -1: every hop, as the paper writes; the default -2: 0 on
 * node tasks, every hop on graph tasks); no term before the first download
 * (round 0). The node default is measured: on FedPG's protocol the hop-0
 * loss beats the all-hop one on Cora (80.98 against 77.56) and Amazon
 * Computers (88.02 against 86.13): the hop-1/2 terms pull a training
 * node's neighbours, test nodes of other classes among them, towards the
 * centre's class. Graph tasks keep every hop (their rings are fgl's own
 * construction, and the hop-0-only loss was not measured there).
 * Server: every accepted upload replaces that client's entry in a bank (the
 * latest prototypes and counts of every client). Per hop h in turn: the
 * queries are this round's uploaded p^{c,h} with counts > 0 (plus, with
 * rf_ratio > 0, round(rf_ratio m_h) prototypes of the same classes at other
 * hops, drawn without replacement: the paper's "RF context"); the margin
 * delta_h = FedTGP's adaptive margin over them (tau caps it; tau = 0 removes
 * it); server_steps Adam steps (lr server_lr, weight decay server_wd) of the
 * generator on FedTGP's loss against P^{.,h} = L2norm(MLP(anchor^{.,h})),
 * anchors C (H+1) x d, one MLP d -> server_hidden -> d shared by all rows.
 * Personalisation, per client i, class c, hop h that i holds: F = the topk
 * clients holding (c, h) with the highest cos(p_i^{c,h}, p_j^{c,h}), self
 * included (fusion=1: every client with cosine >= threshold, and self);
 * P~_i^{c,h} = alpha P^{c,h} + (1 - alpha) sum_{j in F} w_j p_j^{c,h}, w_j =
 * n_j^{c,h} / sum_F n^{c,h} (the authors' code weights by the receiving
 * client's total count: not copied); target_scale=authors divides P~ by
 * 1 + |F| as the authors' code does (|F| = topk when that many clients hold
 * the row), which shrinks the target towards 0 (a third of its length at
 * topk 2). alpha = 1 turns personalisation off. Download: "protos" and "mask" (C x (H+1), 1 where a
 * row holds a prototype), nothing before the first aggregation.
 * The authors' code also: takes validation labels into its prototypes (as
 * val_centres=1), uses
 * 0/1 masks as row indices (its 1- and 2-hop terms read rows 0 and 1) and
 * appends the 2-hop term to the 1-hop list, divides the per-class means by
 * the client count once per class (K^C: its margin is about 0), keeps
 * dropout on at evaluation (F.dropout without training=): none copied. */

FGL__PRIVATE void fgl__pg_rings_free(void *p) {
    fgl__pg_rings *r = (fgl__pg_rings *)p;
    int h;
    if (!r || r->on_tape) return;
    for (h = 0; h <= r->H; h++) {
        fgl_csr_free(&r->hop[h]);
        fgl_csr_free(&r->hop_t[h]);
    }
    FGL_FREE(r->centre);
    FGL_FREE(r->label);
    memset(r, 0, sizeof *r);
}

/* Memory from arena t, or FGL_MALLOC (zeroed either way). */
static void *fgl__pg_alloc(fgl_tape *t, size_t bytes) {
    void *p;
    if (t) return fgl_tape_alloc(t, bytes ? bytes : 1);
    p = FGL_MALLOC(bytes ? bytes : 1);
    if (p) memset(p, 0, bytes ? bytes : 1);
    return p;
}

/* A CSR matrix (rows x cols) with the entries cnt[i] of row i already
 * counted; indices and values are filled by the caller. */
static int fgl__pg_csr(fgl_tape *t, fgl_csr *a, int rows, int cols, const int *cnt) {
    int i, nnz = 0;
    for (i = 0; i < rows; i++) nnz += cnt[i];
    memset(a, 0, sizeof *a);
    a->rows = rows;
    a->cols = cols;
    a->nnz = nnz;
    a->indptr = (int *)fgl__pg_alloc(t, sizeof(int) * (size_t)(rows + 1));
    a->indices = (int *)fgl__pg_alloc(t, sizeof(int) * (size_t)FGL__MAX(nnz, 1));
    a->values = (float *)fgl__pg_alloc(t, sizeof(float) * (size_t)FGL__MAX(nnz, 1));
    if (!a->indptr || !a->indices || !a->values) return FGL_ERR_NOMEM;
    for (i = 0; i < rows; i++) a->indptr[i + 1] = a->indptr[i] + cnt[i];
    return FGL_OK;
}

/* Transposes of hop[0..H] (only when not on a tape: the loss on a tape uses
 * the serial backward of spmm). */
static int fgl__pg_transposes(fgl__pg_rings *r) {
    int h, rc;
    for (h = 0; h <= r->H; h++)
        if ((rc = fgl_csr_transpose(&r->hop[h], &r->hop_t[h]))) return rc;
    return FGL_OK;
}

/* Node tasks: rings of exact graph distance h = 0..H around each centre
 * (breadth-first search to depth H; the centre is not its own neighbour).
 * Two passes over the centres: count the ring sizes, then fill. */
FGL__PRIVATE int fgl__pg_rings_graph(fgl__pg_rings *r, const fgl_csr *adj, const int *centre, const int *label, int n,
                                     int H, fgl_tape *t) {
    int N = adj->rows, H1 = H + 1, h, i, pass, q, rc = FGL_OK;
    int *dist = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(N, 1));
    int *queue = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(N, 1));
    int *cnt = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(n, 1) * (size_t)H1);
    int *col = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(n, 1));
    memset(r, 0, sizeof *r);
    r->H = H;
    r->n = n;
    r->on_tape = t != NULL;
    r->centre = (int *)fgl__pg_alloc(t, sizeof(int) * (size_t)FGL__MAX(n, 1));
    r->label = (int *)fgl__pg_alloc(t, sizeof(int) * (size_t)FGL__MAX(n, 1));
    if (!dist || !queue || !cnt || !col || !r->centre || !r->label) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    if (n) {
        memcpy(r->centre, centre, sizeof(int) * (size_t)n);
        memcpy(r->label, label, sizeof(int) * (size_t)n);
    }
    for (i = 0; i < N; i++) dist[i] = -1;
    for (pass = 0; pass < 2 && !rc; pass++) {
        if (pass == 1)
            for (h = 0; h <= H && !rc; h++) {
                for (i = 0; i < n; i++) col[i] = cnt[(size_t)i * H1 + h];
                rc = fgl__pg_csr(t, &r->hop[h], n, N, col);
            }
        for (i = 0; i < n && !rc; i++) {
            int head = 0, tail = 0;
            queue[tail++] = centre[i];
            dist[centre[i]] = 0;
            while (head < tail) {
                int u = queue[head++];
                if (dist[u] >= H) continue;
                for (q = adj->indptr[u]; q < adj->indptr[u + 1]; q++) {
                    int v = adj->indices[q];
                    if (dist[v] >= 0) continue;
                    dist[v] = dist[u] + 1;
                    queue[tail++] = v;
                }
            }
            /* queue[0..tail): the centre and every node within H hops, in discovery order */
            if (pass == 0) {
                for (h = 0; h <= H; h++) cnt[(size_t)i * H1 + h] = 0;
                for (q = 0; q < tail; q++) cnt[(size_t)i * H1 + dist[queue[q]]]++;
            } else {
                int w[FGL_MAX_LAYERS + 1];
                for (h = 0; h <= H; h++) w[h] = r->hop[h].indptr[i];
                for (q = 0; q < tail; q++) {
                    fgl_csr *a = &r->hop[dist[queue[q]]];
                    a->indices[w[dist[queue[q]]]] = queue[q];
                    a->values[w[dist[queue[q]]]++] = 1.0f / (float)cnt[(size_t)i * H1 + dist[queue[q]]];
                }
            }
            for (q = 0; q < tail; q++) dist[queue[q]] = -1;
        }
    }
done:
    FGL_FREE(dist);
    FGL_FREE(queue);
    FGL_FREE(cnt);
    FGL_FREE(col);
    if (rc && !t) fgl__pg_rings_free(r);
    return rc;
}

/* The k-th largest (0-based) of a[0..m-1], reordering a: quickselect with a
 * median-of-three pivot (no randomness; the value is the order statistic
 * whatever the order). */
FGL__PRIVATE float fgl__pg_kth_largest(float *a, size_t m, size_t k) {
    size_t lo = 0, hi = m - 1;
    while (lo < hi) {
        size_t i = lo, j = hi, mid = lo + (hi - lo) / 2;
        float x = a[lo], y = a[mid], z = a[hi],
              pivot = x > y ? (y > z ? y : (x > z ? z : x)) : (x > z ? x : (y > z ? z : y));
        while (i <= j) { /* descending: larger values to the left */
            while (a[i] > pivot) i++;
            while (a[j] < pivot) j--;
            if (i <= j) {
                float t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return a[k];
    }
    return a[k];
}

/* Graph tasks: rings of embedding cosine among the n rows of z (d wide):
 * hop h holds the pairs whose cosine lies between thresholds theta_h <=
 * cos < theta_{h-1} (theta_0 = +inf). theta_h is the cosine that the
 * fraction h band of all pairs (i != j) reach or exceed: with band 0.1, hop 1
 * is the 10% most similar pairs, hop 2 the next 10%, ... (thresholds that
 * decay with h and follow the embeddings' own spread; the ReLU embeddings
 * of a GNN are non-negative, so fixed cosine thresholds would put nearly
 * every pair in hop 1). */
FGL__PRIVATE int fgl__pg_rings_cosine(fgl__pg_rings *r, const float *z, const int *label, int n, int d, int H,
                                      double band, fgl_tape *t) {
    int i, j, h, rc;
    double *nrm = (double *)fgl__pg_alloc(t, sizeof(double) * (size_t)FGL__MAX(n, 1));
    signed char *ring = (signed char *)fgl__pg_alloc(t, (size_t)FGL__MAX(n, 1) * (size_t)FGL__MAX(n, 1));
    int *cnt = (int *)fgl__pg_alloc(t, sizeof(int) * (size_t)FGL__MAX(n, 1));
    float *cs = (float *)fgl__pg_alloc(t, sizeof(float) * (size_t)FGL__MAX(n, 1) * (size_t)FGL__MAX(n, 1));
    float *sorted = (float *)fgl__pg_alloc(t, sizeof(float) * (size_t)FGL__MAX(n, 1) * (size_t)FGL__MAX(n, 1));
    double theta[FGL_MAX_LAYERS + 1];
    size_t m = 0;
    memset(r, 0, sizeof *r);
    r->H = H;
    r->n = n;
    r->on_tape = t != NULL;
    r->centre = (int *)fgl__pg_alloc(t, sizeof(int) * (size_t)FGL__MAX(n, 1));
    r->label = (int *)fgl__pg_alloc(t, sizeof(int) * (size_t)FGL__MAX(n, 1));
    if (!nrm || !ring || !cnt || !cs || !sorted || !r->centre || !r->label) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    for (i = 0; i < n; i++) {
        r->centre[i] = i;
        r->label[i] = label[i];
        nrm[i] = FGL__MAX(fgl_norm2((size_t)d, z + (size_t)i * d), 1e-12);
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            cs[(size_t)i * n + j] =
                (float)(fgl_dot((size_t)d, z + (size_t)i * d, z + (size_t)j * d) / (nrm[i] * nrm[j]));
            if (i != j) sorted[m++] = cs[(size_t)i * n + j];
        }
    for (h = 1; h <= H; h++) { /* the band h quantile from the top; no pair at all: +inf */
        double q = ceil(band * h * (double)m) - 1;
        theta[h] = m == 0 || q < 0 ? HUGE_VAL : fgl__pg_kth_largest(sorted, m, (size_t)FGL__MIN(q, (double)m - 1));
    }
    /* ring[i n + j]: the hop of j around i (0: itself, -1: none within H) */
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            signed char hh = -1;
            if (i == j) {
                ring[(size_t)i * n + j] = 0;
                continue;
            }
            for (h = 1; h <= H; h++)
                if (cs[(size_t)i * n + j] >= theta[h]) {
                    hh = (signed char)h;
                    break;
                }
            ring[(size_t)i * n + j] = hh;
        }
    for (h = 0; h <= H; h++) {
        for (i = 0; i < n; i++) {
            cnt[i] = 0;
            for (j = 0; j < n; j++) cnt[i] += ring[(size_t)i * n + j] == h;
        }
        if ((rc = fgl__pg_csr(t, &r->hop[h], n, n, cnt))) goto done;
        for (i = 0; i < n; i++) {
            int w = r->hop[h].indptr[i];
            for (j = 0; j < n; j++)
                if (ring[(size_t)i * n + j] == h) {
                    r->hop[h].indices[w] = j;
                    r->hop[h].values[w++] = 1.0f / (float)cnt[i];
                }
        }
    }
    rc = FGL_OK;
done:
    if (!t) {
        FGL_FREE(nrm);
        FGL_FREE(ring);
        FGL_FREE(cnt);
        FGL_FREE(cs);
        FGL_FREE(sorted);
        if (rc) fgl__pg_rings_free(r);
    }
    return rc;
}

/* sum[c (H+1) + h] += mean_{N^h(centre i)} z and cnt[..]++ for every centre
 * with a non-empty ring (z: one d-wide row per column of the rings). */
static void fgl__pg_accumulate(const fgl__pg_rings *r, const float *z, int d, int C, double *sum, double *cnt) {
    int h, i, q, k, H1 = r->H + 1;
    for (h = 0; h <= r->H; h++)
        for (i = 0; i < r->n; i++) {
            const fgl_csr *a = &r->hop[h];
            size_t row = (size_t)r->label[i] * H1 + h;
            if (a->indptr[i] == a->indptr[i + 1] || r->label[i] < 0 || r->label[i] >= C) continue;
            for (q = a->indptr[i]; q < a->indptr[i + 1]; q++)
                for (k = 0; k < d; k++) sum[row * d + k] += (double)a->values[q] * z[(size_t)a->indices[q] * d + k];
            cnt[row] += 1;
        }
}

/* FedPG's parameters (fgl__fedpg: their defaults and help). */
typedef struct fgl__fedpg_params {
    double mu;          /* weight of the prototype alignment loss */
    double alpha;       /* fusion: the global prototype's weight (1: no personalisation) */
    int topk;           /* fusion set: the k most similar clients, self included */
    int fusion;         /* 0: top-k fusion; 1: every client with cosine >= threshold */
    double threshold;   /* similarity threshold of fusion=1 */
    int server_steps;   /* generator Adam steps per hop per round */
    double server_lr;   /* generator learning rate */
    double server_wd;   /* generator weight decay */
    int server_hidden;  /* generator MLP hidden width (0: d) */
    double tau;         /* margin cap (0: no adaptive margin) */
    int margin_rule;    /* 0: max over classes of the nearest-class gap; 1: largest pairwise gap */
    double rf_ratio;    /* RF context: extra queries from other hops, a fraction of a hop's queries */
    int loss_hops;      /* highest hop in the loss: >= 0, -1 all, -2 the task's default */
    int normalize;      /* L2-normalise z: 1 node tasks, 2 graph tasks too, 0 never */
    double pseudo;      /* node tasks: confidence for pseudo-labelled centres (0: off) */
    int val_centres;    /* node tasks: 1 lets validation labels into the prototypes (leakage) */
    int target_scale;   /* 0 (fgl): the fused target; 1 (authors): divided by 1 + |F| */
    double graph_band;  /* graph tasks: the fraction of pairs in each hop's cosine band */
} fgl__fedpg_params;

/* A client's state: node tasks, the rings around its centres ("rings",
 * rebuilt from the data on resume); graph tasks, none (NULL). */
typedef struct fgl__fedpg_client {
    fgl__pg_rings *rings;
} fgl__fedpg_client;

/* The server's state: the bank of each client's latest prototypes and
 * counts, the generated prototypes, the personalised downloads and their
 * masks, whether they exist, the margins per hop and the last server loss;
 * the generator (FedTGP's fgl__tgp_gen: its parameters, Adam state and tape). */
typedef struct fgl__fedpg_server {
    float *bank, *bank_n, *global, *pers;
    float *pers_mask;
    int *ready;
    float *last;
    fgl__tgp_gen gen;
} fgl__fedpg_server;

static int fgl__pg_H(const fgl_client *c) { return (int)fgl_client_dim(c, FGL_DIM_HOPS) - 1; }

static int fgl__fedpg_prepare(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    int n = FGL_PARAMS(fgl__fedpg_params, set)->normalize, rc = fgl__proto_spec(set, spec, err);
    if (rc) return rc;
    if (n < 0 || n > 2) return fgl_error_set(err, FGL_ERR_ARG, "fedpg: normalize is 0, 1 or 2, not %d", n);
    if (n == 2 || (n == 1 && spec->task == FGL_TASK_NODE)) spec->norm_rep = 1;
    return FGL_OK;
}

static int fgl__fedpg_client_init(fgl_client *c) {
    const fgl__fedpg_params *p = FGL_PARAMS(fgl__fedpg_params, c->set);
    int H = fgl__pg_H(c), n = 0, i, rc, with_val = p->val_centres;
    fgl_node_data *nd = c->data.node;
    fgl__fedpg_client *st;
    fgl__pg_rings *r;
    int *centre, *label;
    if (H < 0 || H > FGL_MAX_LAYERS) return fgl_client_fail(c, FGL_ERR_ARG, "fedpg: %d hops", H + 1);
    if (p->mu < 0 || !(p->pseudo >= 0 && p->pseudo <= 1))
        return fgl_client_fail(c, FGL_ERR_ARG, "fedpg: mu must be >= 0 and pseudo in [0, 1]");
    if (with_val != 0 && with_val != 1)
        return fgl_client_fail(c, FGL_ERR_ARG, "fedpg: val_centres is 0 or 1, not %d", with_val);
    if (p->loss_hops < -2)
        return fgl_client_fail(c, FGL_ERR_ARG, "fedpg: loss_hops is a hop >= 0, -1 (all) or -2 (the task's default), "
                               "not %d", p->loss_hops);
    if (!(st = FGL_NEW_STATE(fgl__fedpg_client, &c->store))) return FGL_ERR_NOMEM;
    if (!nd) return FGL_OK; /* graph tasks: rings from the embeddings, every time */
    /* node tasks: the rings around the training nodes (with val_centres=1 the validation nodes too: the
     * authors' label leakage), once (rebuilt from the data on resume) */
    centre = (int *)fgl_scratch(&c->store, sizeof(int) * (size_t)FGL__MAX(nd->n_nodes, 1));
    label = (int *)fgl_scratch(&c->store, sizeof(int) * (size_t)FGL__MAX(nd->n_nodes, 1));
    r = st->rings = (fgl__pg_rings *)fgl_new_scratch(&c->store, "rings", sizeof(fgl__pg_rings), fgl__pg_rings_free);
    if (!centre || !label || !r) return FGL_ERR_NOMEM;
    for (i = 0; i < nd->n_nodes; i++)
        if ((nd->split[i] == FGL_SPLIT_TRAIN || (with_val && nd->split[i] == FGL_SPLIT_VAL)) && nd->y[i] >= 0) {
            centre[n] = i;
            label[n++] = nd->y[i];
        }
    if ((rc = fgl__pg_rings_graph(r, &nd->adj, centre, label, n, H, NULL)) || (rc = fgl__pg_transposes(r)))
        return fgl_client_fail(c, rc, "fedpg: cannot build the hop neighbourhoods (%s)", fgl_result_name(rc));
    return FGL_OK;
}

/* mu sum_{h, c} mean_{v in S_c^h} ||mean_{N^h(v)} z - P~^{c,h}||^2 / d on the tape. */
FGL__PRIVATE fgl_node *fgl__fedpg_loss(fgl_client *c, const fgl_step *st) {
    const fgl__fedpg_params *p = FGL_PARAMS(fgl__fedpg_params, c->set);
    float mu = (float)p->mu;
    const float *P = fgl_down(c, "protos"), *mask = fgl_down(c, "mask");
    fgl_node *z = st->fwd->rep, *total = NULL;
    fgl_tape *t = st->t;
    int C = (int)fgl_client_dim(c, FGL_DIM_CLASSES), H = fgl__pg_H(c), H1 = H + 1, h, i, d;
    int lh = p->loss_hops, top;
    fgl__pg_rings *r;
    int *nch;
    if (!z || mu == 0 || !P || !mask) return NULL;
    if (lh == -2) lh = c->task == FGL_TASK_NODE ? 0 : -1; /* the default: hop 0 on node tasks (measured) */
    top = lh >= 0 ? FGL__MIN(lh, H) : H;
    /* Graph tasks without normalize=2: the classifier reads the raw pooled
     * embedding, but prototypes live on the unit sphere, as the generator's
     * (and the reconstruction's z = L2-normalise(...)); pulling raw sum-pooled
     * embeddings to unit-norm targets shrank them to nothing (chance accuracy). */
    if (c->task != FGL_TASK_NODE && !c->model.spec.norm_rep) z = fgl_op_l2_normalize_rows(t, z, 0);
    if (!z) return NULL;
    d = z->cols;
    if (c->task == FGL_TASK_NODE) {
        r = FGL_STATE(fgl__fedpg_client, &c->store)->rings;
    } else { /* the rings among this batch's graphs, from the embeddings as they are now, on the tape: the
              * sparse products below keep pointers to its CSRs until the backward pass, after this returns */
        int rc;
        r = (fgl__pg_rings *)fgl_tape_alloc(t, sizeof *r);
        rc = r ? fgl__pg_rings_cosine(r, z->val, st->labels, z->rows, d, H, p->graph_band, t)
               : FGL_ERR_NOMEM;
        if (rc) {
            fgl_client_fail(c, rc, "fedpg: out of memory");
            return NULL;
        }
    }
    nch = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)C * (size_t)H1);
    if (!nch) return NULL;
    for (h = 0; h <= H; h++)
        for (i = 0; i < r->n; i++) {
            int y = r->label[i];
            if (y >= 0 && y < C && mask[y * H1 + h] > 0 && r->hop[h].indptr[i] < r->hop[h].indptr[i + 1])
                nch[y * H1 + h]++;
        }
    for (h = 0; h <= top; h++) {
        float *T = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)FGL__MAX(r->n, 1) * (size_t)d);
        float *w = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)FGL__MAX(r->n, 1));
        fgl_node *R, *term;
        int any = 0;
        if (!T || !w) return NULL;
        for (i = 0; i < r->n; i++) {
            int y = r->label[i];
            if (y < 0 || y >= C || !(mask[y * H1 + h] > 0) || r->hop[h].indptr[i] == r->hop[h].indptr[i + 1]) continue;
            memcpy(T + (size_t)i * d, P + ((size_t)y * H1 + h) * d, sizeof(float) * (size_t)d);
            w[i] = 1.0f / ((float)nch[y * H1 + h] * (float)d);
            any = 1;
        }
        if (!any) continue;
        R = fgl_op_spmm(t, &r->hop[h], r->on_tape ? NULL : &r->hop_t[h], z);
        term = fgl_op_sum(t, fgl_op_mul(t, fgl_op_square(t, fgl_op_sub(t, R, fgl_op_const(t, T, r->n, d))),
                                        fgl_op_const(t, w, r->n, 1)));
        total = total ? fgl_op_add(t, total, term) : term;
    }
    return total ? fgl_op_scale(t, total, mu) : NULL;
}

/* Upload: the prototypes of every class and hop from the embeddings in
 * evaluation mode after local training, and their centre counts. */
static int fgl__fedpg_upload(fgl_client *c) {
    int C = (int)fgl_client_dim(c, FGL_DIM_CLASSES), H = fgl__pg_H(c), H1 = H + 1,
        d = (int)fgl_client_dim(c, FGL_DIM_REP);
    float *p = fgl_up(c, "protos"), *np = fgl_up(c, "counts");
    double *sum = (double *)fgl_scratch(&c->store, sizeof(double) * (size_t)C * H1 * (size_t)d);
    double *cnt = (double *)fgl_scratch(&c->store, sizeof(double) * (size_t)C * H1);
    const fgl__fedpg_params *pp = FGL_PARAMS(fgl__fedpg_params, c->set);
    float pseudo = (float)pp->pseudo;
    fgl_view_iter it;
    fgl_view_batch b;
    fgl_error err;
    size_t q;
    int rc, i, k;
    if (!sum || !cnt) return FGL_ERR_NOMEM;
    if (c->task == FGL_TASK_NODE) {
        fgl_forward fw;
        fgl_view_begin(&c->data, FGL_SPLIT_TRAIN, 0, &it);
        rc = fgl_view_next(&it, &b, &err);
        fgl_tape_reset(&c->tape);
        if (rc <= 0 || fgl_model_forward(&c->model, &c->tape, b.g, 0, NULL, &fw) || !fw.rep) {
            fgl_view_end(&it);
            return fgl_client_fail(c, c->tape.err.code ? c->tape.err.code : FGL_ERR_ARG, "fedpg: prototypes: %s", c->tape.err.msg);
        }
        fgl__pg_accumulate(FGL_STATE(fgl__fedpg_client, &c->store)->rings, fw.rep->val, d, C, sum, cnt);
        if (pseudo > 0) { /* confidently predicted nodes outside the training set, under their predicted class */
            const fgl_node_data *nd = c->data.node;
            int n = 0, *centre = (int *)fgl_scratch(&c->store, sizeof(int) * (size_t)FGL__MAX(nd->n_nodes, 1));
            int *label = (int *)fgl_scratch(&c->store, sizeof(int) * (size_t)FGL__MAX(nd->n_nodes, 1));
            fgl__pg_rings extra;
            int prc = centre && label ? FGL_OK : FGL_ERR_NOMEM;
            for (i = 0; !prc && i < nd->n_nodes; i++) {
                const float *row = fw.logits->val + (size_t)i * fw.logits->cols;
                double mx = row[0], z = 0;
                int best = 0;
                if (nd->split[i] == FGL_SPLIT_TRAIN) continue;
                for (k = 1; k < fw.logits->cols; k++)
                    if (row[k] > mx) mx = row[k], best = k;
                for (k = 0; k < fw.logits->cols; k++) z += exp(row[k] - mx);
                if (1.0 / z >= pseudo) { /* softmax of the top class */
                    centre[n] = i;
                    label[n++] = best;
                }
            }
            if (!prc && !(prc = fgl__pg_rings_graph(&extra, &nd->adj, centre, label, n, H, &c->store.scratch)))
                fgl__pg_accumulate(&extra, fw.rep->val, d, C, sum, cnt);
            if (prc) {
                fgl_view_end(&it);
                return fgl_client_fail(c, prc, "fedpg: pseudo-labelled prototypes: %s", fgl_result_name(prc));
            }
        }
        fgl_view_end(&it);
    } else { /* the embeddings of every training graph, then rings among them */
        float *Z = (float *)fgl_scratch(&c->store, sizeof(float) * (size_t)FGL__MAX(c->n_train, 1) * (size_t)d);
        int *y = (int *)fgl_scratch(&c->store, sizeof(int) * (size_t)FGL__MAX(c->n_train, 1)), n = 0;
        fgl__pg_rings r;
        if (!Z || !y) return FGL_ERR_NOMEM;
        fgl_view_begin(&c->data, FGL_SPLIT_TRAIN, c->fed->eval_batch > 0 ? c->fed->eval_batch : 512, &it);
        while ((rc = fgl_view_next(&it, &b, &err)) > 0) {
            fgl_forward fw;
            fgl_tape_reset(&c->tape);
            if (fgl_model_forward(&c->model, &c->tape, b.g, 0, NULL, &fw) || !fw.rep) {
                rc = fgl_client_fail(c, c->tape.err.code ? c->tape.err.code : FGL_ERR_ARG, "fedpg: prototypes: %s", c->tape.err.msg);
                break;
            }
            for (i = 0; i < fw.rep->rows && n < c->n_train; i++) { /* on the unit sphere, as in the loss */
                const float *zi = fw.rep->val + (size_t)i * d;
                float nz = c->model.spec.norm_rep ? 1.0f : (float)FGL__MAX(fgl_norm2((size_t)d, zi), 1e-12);
                int k;
                for (k = 0; k < d; k++) Z[(size_t)n * d + k] = zi[k] / nz;
                y[n++] = b.labels[i];
            }
        }
        if (rc < 0 && !c->err.code) fgl_client_fail(c, rc, "%s", err.msg);
        fgl_view_end(&it);
        if (rc < 0) return rc;
        if ((rc = fgl__pg_rings_cosine(&r, Z, y, n, d, H, pp->graph_band, &c->store.scratch)))
            return rc;
        fgl__pg_accumulate(&r, Z, d, C, sum, cnt);
    }
    for (q = 0; q < (size_t)C * H1; q++) {
        np[q] = (float)cnt[q];
        for (k = 0; k < d; k++) p[q * d + k] = cnt[q] > 0 ? (float)(sum[q * d + k] / cnt[q]) : 0.0f;
    }
    return FGL_OK;
}

/* Server state: the generator (fgl__tgp_init), the bank of each client's
 * latest prototypes and counts, the personalised downloads. */
static int fgl__fedpg_server_init(fgl_server *s) {
    const fgl__fedpg_params *p = FGL_PARAMS(fgl__fedpg_params, s->set);
    int C = (int)fgl_server_dim(s, FGL_DIM_CLASSES), H1 = (int)fgl_server_dim(s, FGL_DIM_HOPS);
    int d = (int)fgl_server_dim(s, FGL_DIM_REP), K = s->n_clients, h = p->server_hidden, rc;
    size_t rows = (size_t)C * (size_t)H1;
    fgl__fedpg_server *st;
    if (p->server_steps < 0 || !(p->server_lr >= 0) || !(p->tau >= 0) || !(p->server_wd >= 0) ||
        !(p->alpha >= 0 && p->alpha <= 1) || p->topk < 1 || !(p->rf_ratio >= 0))
        return fgl_server_fail(s, FGL_ERR_ARG, "fedpg: server_steps, server_lr, server_wd, tau and rf_ratio must be "
                               "non-negative, alpha in [0, 1], topk >= 1");
    if (!(st = FGL_NEW_STATE(fgl__fedpg_server, &s->store))) return FGL_ERR_NOMEM;
    st->bank = fgl_new_floats(&s->store, "bank", (size_t)K * rows * (size_t)d);
    st->bank_n = fgl_new_floats(&s->store, "bank_n", (size_t)K * rows);
    st->global = fgl_new_floats(&s->store, "global", rows * (size_t)d);
    st->pers = fgl_new_floats(&s->store, "pers", (size_t)K * rows * (size_t)d);
    st->pers_mask = fgl_new_floats(&s->store, "pers_mask", (size_t)K * rows);
    st->ready = fgl_new_ints(&s->store, "ready", 1);
    st->last = fgl_new_floats(&s->store, "last", (size_t)H1 + 1); /* margins per hop, last server loss */
    if (s->store.err.code) return s->store.err.code;
    if ((rc = fgl__tgp_init(s, &st->gen, (int)rows, d, h > 0 ? h : d, (float)p->server_lr, (float)p->server_wd,
                            0x4645445047ull))) /* "FEDPG" */
        return rc;
    return s->store.err.code;
}

static int fgl__fedpg_aggregate(fgl_server *s) {
    int C = (int)fgl_server_dim(s, FGL_DIM_CLASSES), H1 = (int)fgl_server_dim(s, FGL_DIM_HOPS);
    int d = (int)fgl_server_dim(s, FGL_DIM_REP), K = s->n_clients, rows = C * H1, i, j, h, cl, k, rc;
    const fgl__fedpg_params *pr = FGL_PARAMS(fgl__fedpg_params, s->set);
    const fgl__fedpg_server *st = FGL_STATE(fgl__fedpg_server, &s->store);
    int steps = pr->server_steps, topk = pr->topk, fusion = pr->fusion, authors_scale = pr->target_scale == 1;
    double alpha = pr->alpha, thr = pr->threshold, rf = pr->rf_ratio;
    float *bank = st->bank, *bank_n = st->bank_n, *global = st->global, *pers = st->pers;
    float *pmask = st->pers_mask, *last = st->last;
    fgl_params *ps = st->gen.tgp;
    fgl_tape *t = st->gen.tgp_tape;
    float *U = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * rows * (size_t)d);
    int *y = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K * rows),
        *idx = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)C);
    int *pool = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K * rows);
    double *sim = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K),
           *acc = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)d);
    int *order = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K);
    double loss = 0, delta;
    fgl_node *P;
    if (!U || !y || !idx || !pool || !sim || !acc || !order) return FGL_ERR_NOMEM;
    if (s->n_accepted == 0) return FGL_OK; /* nothing new: keep everything */
    for (i = 0; i < K; i++) { /* the bank: each client's latest accepted upload */
        const float *p = fgl_upload(s, i, "protos"), *n = fgl_upload(s, i, "counts");
        if (!p) continue;
        memcpy(bank + (size_t)i * rows * d, p, sizeof(float) * (size_t)rows * d);
        memcpy(bank_n + (size_t)i * rows, n, sizeof(float) * (size_t)rows);
    }
    /* the generator, hop after hop, on this round's uploads */
    for (h = 0; h < H1; h++) {
        int m = 0, n_pool = 0, extra;
        for (cl = 0; cl < C; cl++) idx[cl] = cl * H1 + h;
        for (i = 0; i < K; i++) {
            const float *p = fgl_upload(s, i, "protos"), *n = fgl_upload(s, i, "counts");
            if (!p) continue;
            for (cl = 0; cl < C; cl++) {
                if (n[cl * H1 + h] > 0) {
                    memcpy(U + (size_t)m * d, p + ((size_t)cl * H1 + h) * d, sizeof(float) * (size_t)d);
                    y[m++] = cl;
                }
                for (k = 0; k < H1; k++) /* other hops: the RF-context pool, as (client, row) */
                    if (k != h && n[cl * H1 + k] > 0) pool[n_pool++] = i * rows + cl * H1 + k;
            }
        }
        if (m == 0) continue;
        if ((rc = fgl__tgp_margin(&s->store, U, y, m, C, d, pr->margin_rule != 0, (float)pr->tau, &delta)))
            return rc;
        extra = (int)floor(rf * m + 0.5);
        if (extra > n_pool) extra = n_pool;
        if (extra > 0) { /* RF context: same-class prototypes of other hops join the queries */
            fgl_rng r;
            int *pick = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)extra);
            if (!pick) return FGL_ERR_NOMEM;
            fgl_rng_init(&r, s->fed->seed, 0x524643ull * 4096u + (uint64_t)s->round * 64u + (uint64_t)h); /* "RFC" */
            if (fgl_rng_sample(&r, n_pool, extra, pick)) return FGL_ERR_NOMEM;
            for (k = 0; k < extra; k++) {
                int who = pool[pick[k]] / rows, row = pool[pick[k]] % rows;
                memcpy(U + (size_t)m * d, fgl_upload(s, who, "protos") + (size_t)row * d, sizeof(float) * (size_t)d);
                y[m++] = row / H1;
            }
        }
        if ((rc = fgl__tgp_fit(s, &st->gen, U, y, m, C, d, idx, delta, steps, 1, &loss))) return rc;
        last[h] = (float)delta;
    }
    last[H1] = (float)loss;
    P = fgl__tgp_forward(t, ps, NULL, rows, 1);
    if (!P || t->err.code) return fgl_server_fail(s, t->err.code ? t->err.code : FGL_ERR_ARG, "fedpg: server prototypes: %s", t->err.msg);
    memcpy(global, P->val, sizeof(float) * (size_t)rows * d);
    fgl_tape_reset(t);
    /* personalised fusion, for every client in the bank and every row it holds */
    memset(pmask, 0, sizeof(float) * (size_t)K * rows);
    for (i = 0; i < K; i++)
        for (k = 0; k < rows; k++) {
            const float *pi = bank + ((size_t)i * rows + k) * d;
            double ni = fgl_norm2((size_t)d, pi), wsum = 0;
            int nf = 0, q;
            float *out = pers + ((size_t)i * rows + k) * d;
            if (!(bank_n[(size_t)i * rows + k] > 0)) continue;
            for (j = 0; j < K; j++) { /* candidates: the clients holding this row */
                const float *pj = bank + ((size_t)j * rows + k) * d;
                double nj;
                if (!(bank_n[(size_t)j * rows + k] > 0)) continue;
                nj = fgl_norm2((size_t)d, pj);
                sim[j] = j == i             ? 2.0
                         : ni > 0 && nj > 0 ? fgl_dot((size_t)d, pi, pj) / (ni * nj)
                                            : -1.0; /* self first */
                if (fusion == 1 && j != i && sim[j] < thr) continue;
                order[nf++] = j;
            }
            if (fusion != 1) { /* the topk most similar (ties: lower client id) */
                for (q = 1; q < nf; q++) {
                    int x = order[q], p2 = q;
                    while (p2 > 0 && sim[order[p2 - 1]] < sim[x]) {
                        order[p2] = order[p2 - 1];
                        p2--;
                    }
                    order[p2] = x;
                }
                if (nf > topk) nf = topk;
            }
            for (q = 0; q < nf; q++) wsum += bank_n[(size_t)order[q] * rows + k];
            memset(acc, 0, sizeof(double) * (size_t)d);
            for (q = 0; q < nf; q++) {
                const float *pj = bank + ((size_t)order[q] * rows + k) * d;
                double w = bank_n[(size_t)order[q] * rows + k] / wsum;
                int e;
                for (e = 0; e < d; e++) acc[e] += w * pj[e];
            }
            for (q = 0; q < d; q++) {
                double v = alpha * global[(size_t)k * d + q] + (1 - alpha) * acc[q];
                out[q] = (float)(authors_scale ? v / (1 + nf) : v); /* the authors' code: over 1 + |F| */
            }
            pmask[(size_t)i * rows + k] = 1.0f;
        }
    st->ready[0] = 1;
    return FGL_OK;
}

static int fgl__fedpg_download(fgl_server *s, int client, fgl_msg *down) {
    const fgl__fedpg_server *st = FGL_STATE(fgl__fedpg_server, &s->store);
    size_t rows = fgl_server_dim(s, FGL_DIM_CLASS_HOPS), d = fgl_server_dim(s, FGL_DIM_REP), k;
    const float *pm = st->pers_mask + (size_t)client * rows;
    float *p, *m;
    int any = 0;
    (void)down;
    for (k = 0; k < rows; k++) any |= pm[k] > 0;
    if (!st->ready[0] || !any) return FGL_OK; /* nothing for this client yet */
    if (!(p = fgl_download_part(s, client, "protos")) || !(m = fgl_download_part(s, client, "mask")))
        return FGL_ERR_NOMEM;
    memcpy(p, st->pers + (size_t)client * rows * d, sizeof(float) * rows * d);
    memcpy(m, pm, sizeof(float) * rows);
    return FGL_OK;
}

static void fgl__fedpg_report(const fgl_observed *o, char *buf, size_t cap) {
    size_t n = 0;
    int h, H1;
    const float *last;
    if (!o->started || !cap) return;
    H1 = (int)fgl_observed_dim(o, FGL_DIM_HOPS);
    last = fgl_observed_floats(o, "last");
    n += (size_t)snprintf(buf, cap, "\"classes\": %d, \"hops\": %d, \"rep_dim\": %d, \"margin\": [",
                          (int)fgl_observed_dim(o, FGL_DIM_CLASSES), H1, (int)fgl_observed_dim(o, FGL_DIM_REP));
    for (h = 0; h < H1 && n < cap; h++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%.6g", h ? ", " : "", (double)last[h]);
    if (n < cap) snprintf(buf + n, cap - n, "], \"server_loss\": %.6g", (double)last[H1]);
}

static fgl_algo fgl__fedpg(void) {
    fgl_algo a =
        fgl_algo_new("fedpg", "Li et al.: per-class prototypes at hops 0..H, a trainable server generator with a "
                              "per-hop adaptive margin, top-k personalised fusion; no weights shared");
    FGL_ALGO_PARAM(&a, fgl__fedpg_params, mu, FGL_PARAM_FLOAT, 5.0,
                   "weight of the prototype alignment loss (authors' code 5; the paper "
                   "searches [0, 1])");
    FGL_ALGO_PARAM(&a, fgl__fedpg_params, alpha, FGL_PARAM_FLOAT, 0.5,
                   "fusion: P~ = alpha P_global + (1 - alpha) mix of similar clients "
                   "(1: no personalisation)");
    FGL_ALGO_PARAM(&a, fgl__fedpg_params, topk, FGL_PARAM_INT, 2,
                   "fusion set: the k clients most similar by cosine, self included");
    FGL_ALGO_PARAM(&a, fgl__fedpg_params, fusion, FGL_PARAM_INT, 0,
                   "0: top-k fusion (authors' code); 1: every client with cosine >= "
                   "threshold (the paper's variant)");
    FGL_ALGO_PARAM(&a, fgl__fedpg_params, threshold, FGL_PARAM_FLOAT, 0.5, "similarity threshold of fusion=1");
    FGL_ALGO_PARAM(&a, fgl__fedpg_params, server_steps, FGL_PARAM_INT, 10, "generator Adam steps per hop per round");
    FGL_ALGO_PARAM(&a, fgl__fedpg_params, server_lr, FGL_PARAM_FLOAT, 0.01, "generator learning rate");
    FGL_ALGO_PARAM(&a, fgl__fedpg_params, server_wd, FGL_PARAM_FLOAT, 5e-4, "generator weight decay");
    FGL_ALGO_PARAM(&a, fgl__fedpg_params, server_hidden, FGL_PARAM_INT, 0, "generator MLP hidden width (0: d)");
    FGL_ALGO_PARAM(&a, fgl__fedpg_params, tau, FGL_PARAM_FLOAT, 100.0, "margin cap (0: no adaptive margin)");
    FGL_ALGO_PARAM(&a, fgl__fedpg_params, margin_rule, FGL_PARAM_INT, 0,
                   "0: max over classes of the nearest-class gap (authors' code); 1: largest pairwise gap");
    FGL_ALGO_PARAM(&a, fgl__fedpg_params, rf_ratio, FGL_PARAM_FLOAT, 0.0,
                   "RF context: extra queries from other hops, as a fraction of "
                   "a hop's queries (the paper's Delta s; not in the authors' code)");
    FGL_ALGO_PARAM(&a, fgl__fedpg_params, loss_hops, FGL_PARAM_INT, -2,
                   "highest hop in the client's loss: 0 the centre only (what the authors' code trains, and "
                   "better on Cora and Computers, RESULTS.md FedPG), -1 all H as the paper writes, -2 (default) 0 "
                   "on node tasks and all on graph tasks (not measured there); the messages carry every hop");
    FGL_ALGO_PARAM(&a, fgl__fedpg_params, normalize, FGL_PARAM_INT, 1,
                   "L2-normalise the embedding z the classifier reads: 1 node tasks "
                   "(authors' code), 2 graph tasks too, 0 never (graph tasks: prototypes and their loss always use "
                   "the normalised z)");
    FGL_ALGO_PARAM(&a, fgl__fedpg_params, pseudo, FGL_PARAM_FLOAT, 0.0,
                   "node tasks: confidence above which unlabelled nodes join the "
                   "prototypes under their predicted class (0: off)");
    FGL_ALGO_PARAM(&a, fgl__fedpg_params, val_centres, FGL_PARAM_INT, 0,
                   "node tasks: 1 lets the validation nodes' labels into the prototypes and the prototype loss, "
                   "as the authors' code does: label leakage, for reproduction only (0: training labels only)");
    FGL_ALGO_PARAM(&a, fgl__fedpg_params, target_scale, FGL_PARAM_INT, 0,
                   "fgl: the personalised target as the fusion makes it; authors: divided by 1 + |F| (the "
                   "fusion set's size), as the authors' code does");
    fgl_algo_param_choices(&a, "target_scale", "fgl|authors");
    FGL_ALGO_PARAM(&a, fgl__fedpg_params, graph_band, FGL_PARAM_FLOAT, 0.1,
                   "graph tasks: hop h holds the pairs of training graphs "
                   "whose embedding cosine ranks in the h-th band of this fraction (0.1: top 10%, next 10%, ...)");
    fgl_algo_upload(&a, "protos", FGL_SEND_DATA, FGL_DIM_CLASS_HOPS, FGL_DIM_REP, 0);
    fgl_algo_upload(&a, "counts", FGL_SEND_DATA, FGL_DIM_CLASSES, FGL_DIM_HOPS, 0);
    fgl_algo_download(&a, "protos", FGL_SEND_DATA, FGL_DIM_CLASS_HOPS, FGL_DIM_REP, FGL_PART_OPTIONAL, NULL);
    fgl_algo_download(&a, "mask", FGL_SEND_DATA, FGL_DIM_CLASSES, FGL_DIM_HOPS, FGL_PART_OPTIONAL, NULL);
    a.prepare_spec = fgl__fedpg_prepare;
    a.client_init = fgl__fedpg_client_init;
    a.train.loss = fgl__fedpg_loss;
    a.upload = fgl__fedpg_upload;
    a.server_init = fgl__fedpg_server_init;
    a.aggregate = fgl__fedpg_aggregate;
    a.download = fgl__fedpg_download;
    a.report = fgl__fedpg_report;
    return a;
}

#include "../../alone.h"
