/* A mutant of course/teacher/solutions/a4_personal.c for tests/test_course.sh: a
 * counter of aggregations in a static variable (softer weights every third
 * one). A second run in the same process continues the count: not
 * deterministic.
 * expect: a4.5 */
#include "course.h"

#include <math.h>

static int mine_server_init(fgl_server *s) {
    size_t K = (size_t)s->n_clients, i;
    float *personal = fgl_new_floats(&s->store, "personal", K * s->n_shared);
    fgl_new_floats(&s->store, "theta", K * s->n_shared);
    fgl_new_floats(&s->store, "weights", K * K);
    if (s->store.err.code) return s->store.err.code;
    for (i = 0; i < K; i++) fgl_params_pack(s->init, s->share, personal + i * s->n_shared); /* all start alike */
    return FGL_OK;
}

/* The histogram of the client's training labels. */
static int mine_upload(fgl_client *c) {
    float *hist = fgl_up(c, "hist");
    const fgl_view *v = &c->data;
    int i, p;
    if (!hist) return FGL_ERR_NOMEM;
    for (p = 0; p < c->algo->n_up; p++) /* the buffer is reused: start from zero */
        if (!strcmp(c->algo->up[p].name, "hist")) memset(hist, 0, sizeof(float) * c->up_len[p]);
    if (v->node) {
        for (i = 0; i < v->node->n_nodes; i++)
            if (v->mask[FGL_SPLIT_TRAIN][i] && v->node->y[i] >= 0) hist[v->node->y[i]] += 1;
    } else {
        for (i = 0; i < v->count[FGL_SPLIT_TRAIN]; i++) hist[v->graphs->y[v->ids[FGL_SPLIT_TRAIN][i]]] += 1;
    }
    return FGL_OK;
}

static int mine_aggregate(fgl_server *s) {
    static int calls; /* WRONG: state outside the run's store */
    int K = s->n_clients, C = 0, i, j, k;
    float *theta = fgl_floats(&s->store, "theta"), *personal = fgl_floats(&s->store, "personal");
    float *weights = fgl_floats(&s->store, "weights"), tau = (float)fgl_get(s->set, "tau") * (calls++ % 3 ? 1.0f : 0.5f);
    double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * (size_t)K);
    unsigned char *rows = (unsigned char *)fgl_scratch(&s->store, (size_t)K);
    if (!w || !rows) return FGL_ERR_NOMEM;
    for (k = 0; k < s->algo->n_up; k++)
        if (!strcmp(s->algo->up[k].name, "hist")) C = (int)s->up_len[k];
    fgl_server_gather(s, "theta", theta, NULL);
    for (i = 0; i < K; i++) {
        const float *hi = fgl_upload(s, i, "hist");
        double sum = 0;
        if (!hi) continue;
        rows[i] = 1;
        for (j = 0; j < K; j++) {
            const float *hj = fgl_upload(s, j, "hist");
            double dot = 0, ni = 0, nj = 0;
            if (!hj) continue;
            for (k = 0; k < C; k++) {
                dot += (double)hi[k] * hj[k];
                ni += (double)hi[k] * hi[k];
                nj += (double)hj[k] * hj[k];
            }
            w[(size_t)i * K + j] = exp(tau * (ni > 0 && nj > 0 ? dot / sqrt(ni * nj) - 1 : -1));
            sum += w[(size_t)i * K + j];
        }
        for (j = 0; j < K; j++) {
            w[(size_t)i * K + j] /= sum;
            weights[(size_t)i * K + j] = (float)w[(size_t)i * K + j];
        }
    }
    return fgl_mix_rows(K, w, theta, s->n_shared, personal, rows);
}

static int mine_matrix(const fgl_observed *o, float *out) { return fgl_observed_matrix(o, "weights", out); }

int a4_register(void) {
    fgl_algo a = fgl_algo_new("mine", "personalised averaging weighted by the similarity of label mixes (assignment 4)");
    fgl_algo_param_add(&a, "share", FGL_PARAM_GROUPS, (double)FGL_G_ALL, "parameter groups shared");
    fgl_algo_param_add(&a, "tau", FGL_PARAM_FLOAT, 10.0, "sharpness: w_ij ~ exp(tau cos(hist_i, hist_j))");
    fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, 0, 0, 0);
    fgl_algo_upload(&a, "hist", FGL_SEND_DATA, 1, FGL_DIM_CLASSES, 0);
    fgl_algo_download(&a, "personal", FGL_SEND_MODEL, 0, 0, FGL_PART_ROW, "personal");
    a.server_init = mine_server_init;
    a.upload = mine_upload;
    a.aggregate = mine_aggregate;
    a.client_matrix = mine_matrix;
    return fgl_algo_register(&a);
}
