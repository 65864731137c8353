#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* A dense graph auto-encoder (GPFL's server model)                         */
/* ------------------------------------------------------------------------ */

/* GPFL's server model (docs/algorithms.md, GPFL): a dense 2-layer graph
 * auto-encoder over k clients with features X (k x in_dim) and a weighted
 * client network A (k x k, used as given: GPFL passes its row-normalised
 * network; fgl_dense_gcn_norm gives the GCN normalisation instead),
 *     H = ReLU(LayerNorm(A X W1 + b1))   (width hidden, GPFL 128)
 *     Z = A H W2 + b2                    (width out_dim, GPFL 32)
 *     S = Z Z^T                          (k x k edge logits),
 * LayerNorm with eps 1e-5 and a learned scale and shift. Weights and biases
 * are drawn U(+-1/sqrt(width of their output)), the LayerNorm scale 1 and
 * shift 0, as the authors' code initialises them. */
typedef struct fgl_gae {
    int in_dim, hidden, out_dim;
    fgl_params params;
    int w1, b1, ln_g, ln_b, w2, b2;
} fgl_gae;
FGLDEF int fgl_gae_init(fgl_gae *g, int in_dim, int hidden, int out_dim, uint64_t seed);
/* Re-draw the weights and biases from seed; the LayerNorm scale and shift
 * back to 1 and 0 too when norm != 0 (GPFL starts from a new model every
 * round). */
FGLDEF void fgl_gae_reset(fgl_gae *g, uint64_t seed, int norm);
FGLDEF void fgl_gae_free(fgl_gae *g);
/* a: k x k client network; x: k x in_dim. Returns Z and sets *logits to
 * S = Z Z^T (both NULL on error, see t->err.msg). */
FGLDEF fgl_node *fgl_gae_forward(fgl_gae *g, fgl_tape *t, const float *a, const float *x, int k,
                                 fgl_node **logits);
/* GPFL's unsupervised loss (Ying et al.'s regulariser) on P = sigmoid(S):
 *     mean_ij H(P_ij) + size_weight mean_ij -log(1 + 1e-6 - P_ij),
 * H(p) = -p log(p + 1e-6) - (1 - p) log(1 - p + 1e-6): certain edges, and
 * few of them. A 1 x 1 node. */
FGLDEF fgl_node *fgl_gae_loss(fgl_tape *t, fgl_node *logits, float size_weight);
/* `steps` full-batch steps of optimizer o (over g->params) on fgl_gae_loss;
 * then S (k x k, may be NULL) receives the trained model's logits and
 * *loss (may be NULL) the last step's loss. t is reset as needed. */
FGLDEF int fgl_gae_fit(fgl_gae *g, fgl_optim *o, fgl_tape *t, const float *a, const float *x, int k, int steps,
                       float size_weight, float *S, double *loss);
/* Dense D^-1/2 (A + I) D^-1/2 of a k x k weight matrix into out. */
FGLDEF void fgl_dense_gcn_norm(const float *a, int k, float *out);

/* fgl:implementation */
#include "../alone.h"
/* --- the dense graph auto-encoder ------------------------------------------------ */

FGLDEF void fgl_dense_gcn_norm(const float *a, int k, float *out) {
    int i, j;
    double *d = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(k, 1));
    if (!d) return;
    for (i = 0; i < k; i++) {
        double s = 1.0; /* the self loop */
        for (j = 0; j < k; j++)
            if (j != i) s += a[(size_t)i * k + j];
        d[i] = s > 0 ? 1.0 / sqrt(s) : 0.0;
    }
    for (i = 0; i < k; i++)
        for (j = 0; j < k; j++) {
            double w = i == j ? 1.0 : a[(size_t)i * k + j];
            out[(size_t)i * k + j] = (float)(d[i] * w * d[j]);
        }
    FGL_FREE(d);
}

FGLDEF void fgl_gae_reset(fgl_gae *g, uint64_t seed, int norm) {
    fgl_params *ps = &g->params;
    fgl_rng r;
    fgl_rng_init(&r, seed, 0x676165ull); /* "gae" */
    fgl_params_fan_in_uniform(ps, g->w1, g->hidden, &r); /* U(+-1/sqrt(out)), the authors' GraphConvolution */
    fgl_params_fan_in_uniform(ps, g->b1, g->hidden, &r);
    fgl_params_fan_in_uniform(ps, g->w2, g->out_dim, &r);
    fgl_params_fan_in_uniform(ps, g->b2, g->out_dim, &r);
    if (norm) {
        fgl_params_fill(ps, g->ln_g, 1.0f);
        fgl_params_fill(ps, g->ln_b, 0.0f);
    }
}

FGLDEF int fgl_gae_init(fgl_gae *g, int in_dim, int hidden, int out_dim, uint64_t seed) {
    fgl_params *ps = &g->params;
    memset(g, 0, sizeof *g);
    if (in_dim <= 0 || hidden <= 0 || out_dim <= 0) return FGL_ERR_ARG;
    g->in_dim = in_dim;
    g->hidden = hidden;
    g->out_dim = out_dim;
    fgl_params_init(ps);
    if ((g->w1 = fgl_params_add(ps, "gae.w1", in_dim, hidden, FGL_G_CONV, 1)) < 0 ||
        (g->b1 = fgl_params_add(ps, "gae.b1", 1, hidden, FGL_G_CONV, 1)) < 0 ||
        (g->ln_g = fgl_params_add(ps, "gae.ln_g", 1, hidden, FGL_G_NORM, 1)) < 0 ||
        (g->ln_b = fgl_params_add(ps, "gae.ln_b", 1, hidden, FGL_G_NORM, 1)) < 0 ||
        (g->w2 = fgl_params_add(ps, "gae.w2", hidden, out_dim, FGL_G_CONV, 1)) < 0 ||
        (g->b2 = fgl_params_add(ps, "gae.b2", 1, out_dim, FGL_G_CONV, 1)) < 0) {
        fgl_params_free(ps);
        return FGL_ERR_NOMEM;
    }
    fgl_gae_reset(g, seed, 1);
    return FGL_OK;
}

FGLDEF void fgl_gae_free(fgl_gae *g) { fgl_params_free(&g->params); }

FGLDEF fgl_node *fgl_gae_forward(fgl_gae *g, fgl_tape *t, const float *a, const float *x, int k,
                                 fgl_node **logits) {
    fgl_params *ps = &g->params;
    fgl_node *A = fgl_op_const(t, a, k, k), *X = fgl_op_const(t, x, k, g->in_dim), *h, *z;
    h = fgl_op_bias(t, fgl_op_matmul(t, A, fgl_op_matmul(t, X, fgl_op_param(t, ps, g->w1))),
                    fgl_op_param(t, ps, g->b1));
    h = fgl_op_relu(t, fgl_op_layer_norm(t, h, fgl_op_param(t, ps, g->ln_g), fgl_op_param(t, ps, g->ln_b), 1e-5f));
    z = fgl_op_bias(t, fgl_op_matmul(t, A, fgl_op_matmul(t, h, fgl_op_param(t, ps, g->w2))),
                    fgl_op_param(t, ps, g->b2));
    if (logits) *logits = fgl_op_matmul_ex(t, z, 0, z, 1);
    return z;
}

FGLDEF fgl_node *fgl_gae_loss(fgl_tape *t, fgl_node *logits, float size_weight) {
    fgl_node *p = fgl_op_sigmoid(t, logits);
    fgl_node *q = fgl_op_affine(t, p, -1.0f, 1.0f); /* 1 - p */
    fgl_node *ent = fgl_op_add(t, fgl_op_mul(t, p, fgl_op_log(t, fgl_op_affine(t, p, 1.0f, 1e-6f))),
                               fgl_op_mul(t, q, fgl_op_log(t, fgl_op_affine(t, q, 1.0f, 1e-6f))));
    fgl_node *size = fgl_op_log(t, fgl_op_affine(t, q, 1.0f, 1e-6f));
    return fgl_op_scale(t, fgl_op_add(t, fgl_op_mean(t, ent), fgl_op_scale(t, fgl_op_mean(t, size), size_weight)),
                        -1.0f);
}

FGLDEF int fgl_gae_fit(fgl_gae *g, fgl_optim *o, fgl_tape *t, const float *a, const float *x, int k, int steps,
                       float size_weight, float *S, double *loss) {
    fgl_node *logits, *l;
    int step;
    if (loss) *loss = NAN;
    for (step = 0; step < steps; step++) {
        fgl_tape_reset(t);
        fgl_params_zero_grad(&g->params);
        fgl_gae_forward(g, t, a, x, k, &logits);
        l = fgl_gae_loss(t, logits, size_weight);
        if (fgl_tape_backward(t, l)) return t->err.code;
        if (loss) *loss = l->val[0];
        fgl_optim_step(o, &g->params);
    }
    fgl_tape_reset(t);
    fgl_gae_forward(g, t, a, x, k, &logits);
    if (!logits || t->err.code) return t->err.code ? t->err.code : FGL_ERR_ARG;
    if (S) memcpy(S, logits->val, sizeof(float) * (size_t)k * (size_t)k);
    fgl_tape_reset(t);
    return FGL_OK;
}
#include "../alone.h"
