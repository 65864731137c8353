#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:private */
#include "../../alone.h"
/* Tests: a client's statistics (label propagation, moments, confidence) and
 * the server's mixing weights, on plain arrays (src/fed/algos/fedgta.h). */
FGL__PRIVATE int fgl__gta_stats(const fgl_csr *adj, int n_rows, const float *logits, int C, const int *y,
                                const unsigned char *train, int steps, double alpha, double temp, int m, int width,
                                float *raw, float *central, double *conf);
FGL__PRIVATE void fgl__gta_weights(int K, size_t dim, const float *mom, const double *conf,
                                   const unsigned char *present, double th, int equal, double *w, unsigned char *sel);
/* fgl:implementation */
#include "../../alone.h"
/* --- FedGTA (Li et al., VLDB 2024) ------------------------------------------------- */
/* "FedGTA: Topology-aware Averaging for Federated Graph Learning". After
 * local training each client runs its model once over its whole subgraph
 * (evaluation mode) and smooths the predictions by K steps of
 * non-parametric label propagation:
 *     F0 = one-hot labels on the training nodes, softmax(logits) elsewhere,
 *     F <- alpha A_hat F + (1 - alpha) F0, then F0 added again on the
 *          training rows (each step),
 *     A_hat = D^-1/2 (A + I) D^-1/2,
 *     P = softmax(F), Q = softmax(F / T), both one-hot on the training rows.
 * It uploads, besides its weights:
 *   "raw"     m x C: the raw moments mean_v P_vc^p, p = 1..m, per class c;
 *   "central" m x C: the central moments mean_v (P_vc - mean_u P_uc)^p;
 *             (moment_type: raw, central, or hybrid = both: the "mixed
 *             moments"; the part not used is left out of the upload);
 *   "conf"    1: the topology-aware local smoothing confidence
 *             sum_v deg_v (C/e - H(Q_v)), H the entropy (each term >= 0,
 *             as -q log q <= 1/e): confident, well-connected subgraphs
 *             weigh more.
 * The server compares every two accepted clients' moment vectors (raw then
 * central, concatenated) by cosine; client i's row mixes the clients j with
 * cos(v_i, v_j) > threshold (i itself always) by their confidences:
 *     theta_i = sum_j conf_j theta_j / sum_j conf_j,
 * a personalised model sent back to i alone (all confidences zero: equal
 * weights). Clients whose upload is missing keep their last row; before the
 * first aggregation every row is the common initial model. The mixing goes
 * through fgl_server_mix, so the run's robust rule acts on each row; under a
 * rule other than the mean the confidences, which a client states
 * unchecked and unbounded, do not weigh the rows (every selected client
 * alike, as the rules are published), the moments still select. The moments
 * and confidence only steer weights (not FGL_PART_RAW); mixes = 1: DP and
 * secure aggregation are refused at the start. Node classification only.
 * Defaults: the authors' code for Cora (K = 5, alpha = 0.5, T = 20, hybrid
 * moments of order 6, threshold 0.5). Sent: up 4 (n + 2 m C + 1) bytes
 * (hybrid), down 4 n. docs/algorithms.md, "FedGTA", says where the paper, the
 * authors' code and OpenFGL differ. */

enum { FGL__GTA_RAW, FGL__GTA_CENTRAL, FGL__GTA_HYBRID };

typedef struct fgl__fedgta_params {
    unsigned share;     /* the groups mixed */
    int steps;          /* label propagation steps K */
    double alpha;       /* label propagation: the propagated labels' weight */
    double temperature; /* softmax temperature of the confidence's labels */
    int moments;        /* moment orders 1..m */
    int moment_type;    /* FGL__GTA_RAW, _CENTRAL or _HYBRID */
    double threshold;   /* mix clients whose moments' cosine exceeds this */
} fgl__fedgta_params;

/* The server's state: every client's row of the model ("theta") and the
 * last mixing weights, K x K ("W", which the report reads). */
typedef struct fgl__fedgta_server {
    float *theta, *W;
} fgl__fedgta_server;

/* A client's statistics. adj: its graph (the graph contract: no self loop,
 * symmetric), N = adj->rows nodes; logits N x C; y and train (NULL: none)
 * per node; moments and confidence over rows 0..n_rows-1 (a halo's rows
 * propagate but do not count). raw and central (m x width, width >= C, the
 * columns from C on zero; either may be NULL) and *conf are written. */
FGL__PRIVATE int fgl__gta_stats(const fgl_csr *adj, int n_rows, const float *logits, int C, const int *y,
                                const unsigned char *train, int steps, double alpha, double temp, int m, int width,
                                float *raw, float *central, double *conf) {
    int N = adj->rows, v, k, t, p, c;
    size_t NC = (size_t)N * (size_t)C;
    double *f0 = (double *)FGL_MALLOC(sizeof(double) * FGL__MAX(NC, 1));
    double *f = (double *)FGL_MALLOC(sizeof(double) * FGL__MAX(NC, 1));
    double *g = (double *)FGL_MALLOC(sizeof(double) * FGL__MAX(NC, 1));
    double *dinv = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(N, 1));
    double *mean = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(C, 1));
    double *sums = (double *)FGL_MALLOC(sizeof(double) * 2 * (size_t)FGL__MAX(m, 1));
    double total = 0;
    int rc = FGL_OK;
    if (!f0 || !f || !g || !dinv || !mean || !sums) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    if (C < 1 || width < C || n_rows > N || n_rows < 0 || m < 1) {
        rc = FGL_ERR_ARG;
        goto done;
    }
#define FGL__GTA_LABELLED(v) (train && train[v] && y && y[v] >= 0 && y[v] < C)
    for (v = 0; v < N; v++) { /* F0: labels where known for training, the model's softmax elsewhere */
        double *r = f0 + (size_t)v * C, mx = -HUGE_VAL, s = 0;
        const float *l = logits + (size_t)v * C;
        dinv[v] = 1.0 / sqrt((double)(adj->indptr[v + 1] - adj->indptr[v]) + 1.0);
        if (FGL__GTA_LABELLED(v)) {
            for (c = 0; c < C; c++) r[c] = c == y[v];
            continue;
        }
        for (c = 0; c < C; c++) mx = l[c] > mx ? l[c] : mx;
        for (c = 0; c < C; c++) s += (r[c] = exp(l[c] - mx));
        for (c = 0; c < C; c++) r[c] /= s;
    }
    memcpy(f, f0, sizeof(double) * NC);
    for (t = 0; t < steps; t++) {
        for (v = 0; v < N; v++) {
            double *o = g + (size_t)v * C;
            const double *fv = f + (size_t)v * C, *r0 = f0 + (size_t)v * C;
            for (c = 0; c < C; c++) o[c] = dinv[v] * fv[c]; /* the self loop */
            for (k = adj->indptr[v]; k < adj->indptr[v + 1]; k++) {
                int u = adj->indices[k];
                const double *fu = f + (size_t)u * C;
                for (c = 0; c < C; c++) o[c] += dinv[u] * fu[c];
            }
            for (c = 0; c < C; c++) {
                o[c] = alpha * dinv[v] * o[c] + (1 - alpha) * r0[c];
                if (FGL__GTA_LABELLED(v)) o[c] += r0[c]; /* the authors' code adds the labels again */
            }
        }
        { double *sw = f; f = g; g = sw; }
    }
    /* P = softmax(F) into f, Q = softmax(F / T) into g; training rows one-hot; the confidence from Q */
    for (v = 0; v < N; v++) {
        double *pr = f + (size_t)v * C, *q = g + (size_t)v * C, mx = -HUGE_VAL, sp = 0, sq = 0, ent = 0;
        if (FGL__GTA_LABELLED(v)) {
            for (c = 0; c < C; c++) pr[c] = q[c] = c == y[v];
        } else {
            for (c = 0; c < C; c++) mx = pr[c] > mx ? pr[c] : mx;
            for (c = 0; c < C; c++) {
                q[c] = exp((pr[c] - mx) / temp);
                pr[c] = exp(pr[c] - mx);
                sp += pr[c];
                sq += q[c];
            }
            for (c = 0; c < C; c++) {
                pr[c] /= sp;
                q[c] /= sq;
            }
        }
        if (v >= n_rows) continue;
        for (c = 0; c < C; c++) ent += q[c] * log(q[c] + 1e-8);
        total += (double)(adj->indptr[v + 1] - adj->indptr[v]) * ((double)C * exp(-1.0) + ent);
    }
#undef FGL__GTA_LABELLED
    *conf = total;
    for (c = 0; c < C; c++) {
        double s = 0;
        for (v = 0; v < n_rows; v++) s += f[(size_t)v * C + c];
        mean[c] = n_rows ? s / n_rows : 0.0;
    }
    for (c = 0; c < width; c++) /* powers by repeated products, summed in double */
        for (p = 1; p <= m; p++) {
            if (raw) raw[(size_t)(p - 1) * width + c] = 0.0f;
            if (central) central[(size_t)(p - 1) * width + c] = 0.0f;
        }
    for (c = 0; c < C && n_rows > 0; c++) {
        double *sr = sums, *sc = sums + m;
        for (p = 0; p < 2 * m; p++) sr[p] = 0;
        for (v = 0; v < n_rows; v++) {
            double x = f[(size_t)v * C + c], xc = x - mean[c], pr = 1, pc = 1;
            for (p = 0; p < m; p++) {
                sr[p] += (pr *= x);
                sc[p] += (pc *= xc);
            }
        }
        for (p = 0; p < m; p++) {
            if (raw) raw[(size_t)p * width + c] = (float)(sr[p] / n_rows);
            if (central) central[(size_t)p * width + c] = (float)(sc[p] / n_rows);
        }
    }
done:
    FGL_FREE(f0);
    FGL_FREE(f);
    FGL_FREE(g);
    FGL_FREE(dinv);
    FGL_FREE(mean);
    FGL_FREE(sums);
    return rc;
}

static int fgl__gta_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    const fgl__fedgta_params *p = FGL_PARAMS(fgl__fedgta_params, set);
    double alpha = p->alpha, temp = p->temperature, th = p->threshold;
    if (spec->task != FGL_TASK_NODE)
        return fgl_error_set(err, FGL_ERR_ARG, "fedgta: node classification only (it propagates class "
                             "predictions over each client's subgraph)");
    if (p->steps < 0) return fgl_error_set(err, FGL_ERR_RANGE, "fedgta: steps must be >= 0");
    if (!(alpha >= 0 && alpha <= 1)) return fgl_error_set(err, FGL_ERR_RANGE, "fedgta: alpha %g not in [0, 1]", alpha);
    if (!(temp > 0)) return fgl_error_set(err, FGL_ERR_RANGE, "fedgta: temperature %g must be > 0", temp);
    if (!(th >= -1 && th <= 1)) return fgl_error_set(err, FGL_ERR_RANGE, "fedgta: threshold %g not in [-1, 1]", th);
    return FGL_OK;
}

static int fgl__gta_upload(fgl_client *c) {
    const fgl_node_data *d = c->data.node;
    const fgl__fedgta_params *p = FGL_PARAMS(fgl__fedgta_params, c->set);
    int type = p->moment_type, m = p->moments, rc;
    int width = (int)fgl_client_dim(c, FGL_DIM_CLASSES), n_rows;
    float *raw = NULL, *central = NULL, *conf = fgl_up(c, "conf");
    double w = 0;
    fgl_forward fw;
    if (type == FGL__GTA_CENTRAL) fgl_up_drop(c, "raw");
    else if (!(raw = fgl_up(c, "raw"))) return FGL_ERR_NOMEM;
    if (type == FGL__GTA_RAW) fgl_up_drop(c, "central");
    else if (!(central = fgl_up(c, "central"))) return FGL_ERR_NOMEM;
    if (!conf) return FGL_ERR_NOMEM;
    if (!d) return fgl_client_fail(c, FGL_ERR_ARG, "fedgta: node classification only");
    fgl_tape_reset(&c->tape);
    if (fgl_model_forward(&c->model, &c->tape, &c->data.full, 0, NULL, &fw) || !fw.logits)
        return fgl_client_fail(c, c->tape.err.code ? c->tape.err.code : FGL_ERR_ARG, "fedgta: predictions: %s", c->tape.err.msg);
    if (fw.logits->rows != d->adj.rows || fw.logits->cols > width)
        return fgl_client_fail(c, FGL_ERR_SHAPE, "fedgta: %d x %d predictions for %d nodes and %d classes",
                               fw.logits->rows, fw.logits->cols, d->adj.rows, width);
    n_rows = d->gid && d->n_own > 0 ? d->n_own : d->adj.rows; /* a halo's rows propagate, but are not the client's */
    rc = fgl__gta_stats(&d->adj, n_rows, fw.logits->val, fw.logits->cols, d->y, c->data.mask[FGL_SPLIT_TRAIN],
                        p->steps, p->alpha, p->temperature, m, width, raw, central, &w);
    if (rc) return fgl_client_fail(c, rc, "fedgta: label propagation: %s", fgl_result_name(rc));
    conf[0] = (float)w;
    return FGL_OK;
}

/* The mixing weights (K x K, rows i with present[i]): row i puts
 * conf_j / sum conf on the present clients j with cos(mom_i, mom_j) > th
 * and on i itself (mom: K x dim), 1 / their number when equal or when
 * their confidences sum to 0; 0 elsewhere. sel: K bytes of scratch. */
FGL__PRIVATE void fgl__gta_weights(int K, size_t dim, const float *mom, const double *conf,
                                   const unsigned char *present, double th, int equal, double *w, unsigned char *sel) {
    int i, j;
    for (i = 0; i < K; i++) {
        double wsum = 0;
        int n_sel = 0;
        if (!present[i]) continue;
        for (j = 0; j < K; j++) {
            sel[j] = present[j] && (j == i || fgl_cosine(dim, mom + (size_t)i * dim, mom + (size_t)j * dim) > th);
            if (sel[j]) {
                n_sel++;
                wsum += conf[j];
            }
        }
        for (j = 0; j < K; j++)
            w[(size_t)i * K + j] = !sel[j] ? 0.0 : equal || !(wsum > 0) ? 1.0 / n_sel : conf[j] / wsum;
    }
}

static int fgl__gta_server_init(fgl_server *s) {
    size_t K = (size_t)s->n_clients;
    fgl__fedgta_server *st = FGL_NEW_STATE(fgl__fedgta_server, &s->store);
    if (!st) return FGL_ERR_NOMEM;
    st->theta = fgl_server_per_client(s, "theta");
    st->W = fgl_new_floats(&s->store, "W", K * K);
    return s->store.err.code;
}

static int fgl__gta_aggregate(fgl_server *s) {
    const fgl__fedgta_params *p = FGL_PARAMS(fgl__fedgta_params, s->set);
    const fgl__fedgta_server *st = FGL_STATE(fgl__fedgta_server, &s->store);
    int K = s->n_clients, type = p->moment_type, i, j;
    size_t nr = type == FGL__GTA_CENTRAL ? 0 : fgl_server_up_size(s, "raw");
    size_t nc = type == FGL__GTA_RAW ? 0 : fgl_server_up_size(s, "central"), dim = nr + nc;
    int equal = s->fed->robust.rule != FGL_ROBUST_MEAN; /* confidences are claims: no weight under a rule */
    float *theta = st->theta, *W = st->W;
    float *mom = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * FGL__MAX(dim, 1));
    double *conf = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K);
    double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * (size_t)K);
    unsigned char *rows = (unsigned char *)fgl_scratch(&s->store, (size_t)K),
                  *sel = (unsigned char *)fgl_scratch(&s->store, (size_t)K);
    if (!mom || !conf || !w || !rows || !sel) return FGL_ERR_NOMEM;
    if (s->n_accepted == 0) return FGL_OK; /* nothing accepted: everyone keeps their model */
    memset(w, 0, sizeof(double) * (size_t)K * (size_t)K);
    for (j = 0; j < K; j++) {
        const float *r = nr ? fgl_upload(s, j, "raw") : NULL, *ce = nc ? fgl_upload(s, j, "central") : NULL,
                    *cf = fgl_upload(s, j, "conf");
        if (!s->up[j]) continue;
        if ((nr && !r) || (nc && !ce) || !cf)
            return fgl_server_fail(s, FGL_ERR_ARG, "fedgta: client %d's upload lacks its moments (moment_type %d)",
                                   j, type);
        if (nr) memcpy(mom + (size_t)j * dim, r, sizeof(float) * nr);
        if (nc) memcpy(mom + (size_t)j * dim + nr, ce, sizeof(float) * nc);
        conf[j] = cf[0] > 0 ? cf[0] : 0.0; /* >= 0 in exact arithmetic */
    }
    for (i = 0; i < K; i++) rows[i] = s->up[i] != NULL;
    fgl__gta_weights(K, dim, mom, conf, rows, p->threshold, equal, w, sel);
    for (i = 0; i < K; i++)
        for (j = 0; rows[i] && j < K; j++) W[(size_t)i * K + j] = (float)w[(size_t)i * K + j];
    return fgl_server_mix(s, "theta", NULL, w, theta, rows);
}

static void fgl__gta_report(const fgl_observed *o, char *buf, size_t cap) {
    int K = o->n_clients, i, j, n = 0, rows = 0;
    float *W = (float *)FGL_MALLOC(sizeof(float) * (size_t)K * (size_t)K);
    if (!W) return;
    if (fgl_observed_matrix(o, "W", W) == FGL_OK) {
        for (i = 0; i < K; i++) {
            int r = 0;
            for (j = 0; j < K; j++) r += W[(size_t)i * K + j] > 0;
            n += r;
            rows += r > 0;
        }
        if (rows) snprintf(buf, cap, "\"mean_clients_mixed\": %.4f", (double)n / rows);
    }
    FGL_FREE(W);
}

static int fgl__gta_matrix(const fgl_observed *o, float *out) { return fgl_observed_matrix(o, "W", out); }

static fgl_algo fgl__fedgta(void) {
    fgl_algo a = fgl_algo_new("fedgta", "Li et al. 2024: personalised averages over clients with similar moments "
                                        "of label-propagated predictions, weighted by smoothing confidence");
    int m;
    FGL_ALGO_PARAM(&a, fgl__fedgta_params, share, FGL_PARAM_GROUPS, (double)FGL_G_ALL, "parameter groups mixed");
    FGL_ALGO_PARAM(&a, fgl__fedgta_params, steps, FGL_PARAM_INT, 5, "label propagation steps K (lp_prop)");
    FGL_ALGO_PARAM(&a, fgl__fedgta_params, alpha, FGL_PARAM_FLOAT, 0.5,
                   "label propagation: weight of the propagated labels");
    FGL_ALGO_PARAM(&a, fgl__fedgta_params, temperature, FGL_PARAM_FLOAT, 20,
                   "softmax temperature of the confidence's labels");
    FGL_ALGO_PARAM(&a, fgl__fedgta_params, moments, FGL_PARAM_INT, 6,
                   "moment orders 1..m (authors' Cora 6; their default 13, OpenFGL 10)");
    FGL_ALGO_PARAM(&a, fgl__fedgta_params, moment_type, FGL_PARAM_INT, FGL__GTA_HYBRID,
                   "raw, central, or hybrid (both: the mixed moments)");
    fgl_algo_param_choices(&a, "moment_type", "raw|central|hybrid");
    FGL_ALGO_PARAM(&a, fgl__fedgta_params, threshold, FGL_PARAM_FLOAT, 0.5,
                   "mix clients whose moments' cosine exceeds this (authors' Cora 0.5; default 0.65)");
    m = fgl_algo_param_dim(&a, "moments");
    fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, 0, 0, 0);
    fgl_algo_upload(&a, "raw", FGL_SEND_DATA, m, FGL_DIM_CLASSES, FGL_PART_OPTIONAL);
    fgl_algo_upload(&a, "central", FGL_SEND_DATA, m, FGL_DIM_CLASSES, FGL_PART_OPTIONAL);
    fgl_algo_upload(&a, "conf", FGL_SEND_DATA, 1, 1, 0);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, FGL_PART_ROW, "theta");
    a.prepare_spec = fgl__gta_spec;
    a.upload = fgl__gta_upload;
    a.server_init = fgl__gta_server_init;
    a.aggregate = fgl__gta_aggregate;
    a.report = fgl__gta_report;
    a.client_matrix = fgl__gta_matrix;
    a.mixes = 1;
    return a;
}
#include "../../alone.h"
