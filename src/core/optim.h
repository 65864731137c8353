#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Optimizers                                                               */
/* ------------------------------------------------------------------------ */

enum { FGL_SGD = 0, FGL_ADAM = 1, FGL_ADAMW = 2 };

typedef struct fgl_optim_config {
    int kind;            /* FGL_SGD, FGL_ADAM, FGL_ADAMW */
    float lr;
    float weight_decay;  /* SGD/Adam: L2 added to the gradient; AdamW: decoupled */
    float momentum;      /* SGD */
    int nesterov;        /* SGD */
    float beta1, beta2, eps;   /* Adam/AdamW */
    float clip_norm;     /* > 0: clip the gradient's global norm first */
} fgl_optim_config;

/* State beside a parameter set: moments mirror its flat buffer. */
typedef struct fgl_optim {
    fgl_optim_config cfg;
    size_t size;
    float *m, *v;        /* SGD uses m as the momentum buffer */
    int64_t t;           /* steps taken */
} fgl_optim;

/* Defaults as in PyTorch: SGD lr 0.01; Adam/AdamW lr 1e-3, betas 0.9/0.999,
 * eps 1e-8 (AdamW weight decay 0.01). */
FGLDEF fgl_optim_config fgl_optim_default(int kind);
FGLDEF int fgl_optim_init(fgl_optim *o, fgl_optim_config cfg, const fgl_params *ps);
FGLDEF void fgl_optim_free(fgl_optim *o);
FGLDEF void fgl_optim_reset(fgl_optim *o);                /* zero moments, t = 0 */
FGLDEF int fgl_optim_copy(fgl_optim *dst, const fgl_optim *src);
/* One update of the trainable slices (of the selected groups). A clip_norm
 * in the config first clips the gradient of all trainable slices, selected
 * or not, by their joint norm. */
FGLDEF int fgl_optim_step(fgl_optim *o, fgl_params *ps);
FGLDEF int fgl_optim_step_groups(fgl_optim *o, fgl_params *ps, unsigned groups);
/* Scale the gradient of trainable slices so its norm is at most max_norm;
 * returns the norm before clipping. */
FGLDEF double fgl_params_clip_grad(fgl_params *ps, double max_norm);
FGLDEF void fgl_optim_write(const fgl_optim *o, fgl_bytes *b);
FGLDEF int fgl_optim_read(fgl_optim *o, fgl_reader *r, fgl_error *err);

/* fgl:implementation */
#include "../alone.h"
/* --- optimizers ------------------------------------------------------------- */

FGLDEF fgl_optim_config fgl_optim_default(int kind) {
    fgl_optim_config c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.lr = kind == FGL_SGD ? 0.01f : 1e-3f;
    c.weight_decay = kind == FGL_ADAMW ? 0.01f : 0.0f;
    c.beta1 = 0.9f;
    c.beta2 = 0.999f;
    c.eps = 1e-8f;
    return c;
}

FGLDEF int fgl_optim_init(fgl_optim *o, fgl_optim_config cfg, const fgl_params *ps) {
    size_t n = ps->size ? ps->size : 1;
    memset(o, 0, sizeof *o);
    if (cfg.kind != FGL_SGD && cfg.kind != FGL_ADAM && cfg.kind != FGL_ADAMW) return FGL_ERR_ARG;
    o->cfg = cfg;
    o->size = ps->size;
    o->m = (float *)FGL_MALLOC(sizeof(float) * n);
    o->v = (float *)FGL_MALLOC(sizeof(float) * n);
    if (!o->m || !o->v) {
        fgl_optim_free(o);
        return FGL_ERR_NOMEM;
    }
    fgl_optim_reset(o);
    return FGL_OK;
}

FGLDEF void fgl_optim_free(fgl_optim *o) {
    FGL_FREE(o->m);
    FGL_FREE(o->v);
    memset(o, 0, sizeof *o);
}

FGLDEF void fgl_optim_reset(fgl_optim *o) {
    if (o->size) {
        memset(o->m, 0, sizeof(float) * o->size);
        memset(o->v, 0, sizeof(float) * o->size);
    }
    o->t = 0;
}

FGLDEF int fgl_optim_copy(fgl_optim *dst, const fgl_optim *src) {
    if (dst->size != src->size) return FGL_ERR_SHAPE;
    dst->cfg = src->cfg;
    dst->t = src->t;
    if (src->size) {
        memcpy(dst->m, src->m, sizeof(float) * src->size);
        memcpy(dst->v, src->v, sizeof(float) * src->size);
    }
    return FGL_OK;
}

FGLDEF double fgl_params_clip_grad(fgl_params *ps, double max_norm) {
    double sq = 0, norm;
    int i;
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *s = &ps->slices[i];
        if (s->trainable) sq += fgl_dot(fgl_slice_size(s), ps->grad + s->offset, ps->grad + s->offset);
    }
    norm = sqrt(sq);
    if (max_norm > 0 && norm > max_norm) {
        float f = (float)(max_norm / (norm + 1e-6));
        for (i = 0; i < ps->n; i++) {
            const fgl_slice *s = &ps->slices[i];
            if (s->trainable) fgl_scale(fgl_slice_size(s), f, ps->grad + s->offset);
        }
    }
    return norm;
}

FGLDEF int fgl_optim_step_groups(fgl_optim *o, fgl_params *ps, unsigned groups) {
    const fgl_optim_config *c = &o->cfg;
    double bc1, bc2;
    int si;
    if (o->size != ps->size) return FGL_ERR_SHAPE;
    fgl_params_settle_grad(ps);
    if (c->clip_norm > 0) fgl_params_clip_grad(ps, c->clip_norm);
    o->t++;
    bc1 = 1.0 - pow((double)c->beta1, (double)o->t);
    bc2 = 1.0 - pow((double)c->beta2, (double)o->t);
    for (si = 0; si < ps->n; si++) {
        const fgl_slice *s = &ps->slices[si];
        float *FGL__RESTRICT w = ps->data + s->offset;
        const float *FGL__RESTRICT g = ps->grad + s->offset;
        float *FGL__RESTRICT m = o->m + s->offset;
        float *FGL__RESTRICT v = o->v + s->offset;
        size_t i, n = fgl_slice_size(s);
        if (!s->trainable || !FGL__SELECTED(s, groups)) continue;
        if (c->kind == FGL_SGD) {
            for (i = 0; i < n; i++) {
                float gi = g[i] + c->weight_decay * w[i];
                if (c->momentum != 0.0f) {
                    /* The buffer starts at zero, so its first value is the
                     * first gradient, as in PyTorch. */
                    m[i] = c->momentum * m[i] + gi;
                    gi = c->nesterov ? gi + c->momentum * m[i] : m[i];
                }
                w[i] -= c->lr * gi;
            }
        } else {
            float lr = c->lr, b1 = c->beta1, b2 = c->beta2, eps = c->eps;
            float step = (float)(lr / bc1), sb2 = (float)sqrt(bc2);
            float wd = c->kind == FGL_ADAM ? c->weight_decay : 0.0f;
            float decay = c->kind == FGL_ADAMW ? 1.0f - lr * c->weight_decay : 1.0f;
            for (i = 0; i < n; i++) {
                float gi = g[i] + wd * w[i];
                m[i] = b1 * m[i] + (1.0f - b1) * gi;
                v[i] = b2 * v[i] + (1.0f - b2) * gi * gi;
                w[i] = w[i] * decay - step * m[i] / (sqrtf(v[i]) / sb2 + eps);
            }
        }
    }
    return FGL_OK;
}

FGLDEF int fgl_optim_step(fgl_optim *o, fgl_params *ps) { return fgl_optim_step_groups(o, ps, FGL_G_ALL); }

FGLDEF void fgl_optim_write(const fgl_optim *o, fgl_bytes *b) {
    fgl_bytes_put_u32(b, (uint32_t)o->cfg.kind);
    fgl_bytes_put_u64(b, (uint64_t)o->t);
    fgl_bytes_put_u64(b, (uint64_t)o->size);
    fgl_bytes_put_f32s(b, o->m, o->size);
    fgl_bytes_put_f32s(b, o->v, o->size);
}

FGLDEF int fgl_optim_read(fgl_optim *o, fgl_reader *r, fgl_error *err) {
    uint32_t kind = fgl_reader_u32(r);
    uint64_t t = fgl_reader_u64(r), size = fgl_reader_u64(r);
    if (r->err) return fgl_error_set(err, FGL_ERR_FORMAT, "optimizer state: truncated header");
    if (size != (uint64_t)o->size || (int)kind != o->cfg.kind)
        return fgl_error_set(err, FGL_ERR_SHAPE, "optimizer state: stored kind %u size %llu, expected kind %d size %zu",
                             (unsigned)kind, (unsigned long long)size, o->cfg.kind, o->size);
    /* Check the length first so a short buffer leaves o untouched. */
    if ((r->len - r->pos) / 8 < o->size) {
        r->err = FGL_ERR_FORMAT;
        return fgl_error_set(err, FGL_ERR_FORMAT, "optimizer state: moments truncated (%zu bytes for %zu values)",
                             r->len - r->pos, o->size);
    }
    fgl_reader_f32s(r, o->m, o->size);
    fgl_reader_f32s(r, o->v, o->size);
    o->t = (int64_t)t;
    return FGL_OK;
}

#include "../alone.h"
