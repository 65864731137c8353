#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Parameter sets                                                           */
/* ------------------------------------------------------------------------ */

/* Group tags: each slice carries one or more bits; algorithms select what to
 * share, keep local or regularise by these bits, never by names. */
enum {
    FGL_G_FEATURE = 1u << 0,  /* feature encoder / input projection */
    FGL_G_CONV = 1u << 1,     /* message-passing (GNN) layers */
    FGL_G_STRUCT = 1u << 2,   /* structure encoder (FedStar) */
    FGL_G_HEAD = 1u << 3,     /* classifier head, readout MLP */
    FGL_G_MASK = 1u << 4,     /* personal weight masks (FED-PUB) */
    FGL_G_NORM = 1u << 5,     /* normalisation affine parameters */
    FGL_G_BNSTAT = 1u << 6,   /* batch-norm running statistics (not trained) */
    FGL_G_OTHER = 1u << 7,    /* anything untagged */
    FGL_G_USER = 1u << 16     /* first bit free for applications */
};
#define FGL_G_ALL 0xFFFFFFFFu

#define FGL_SLICE_NAME_LEN 48

typedef struct fgl_slice {
    char name[FGL_SLICE_NAME_LEN];
    size_t offset;       /* into data / grad */
    int rows, cols;
    unsigned groups;     /* FGL_G_* bits */
    int trainable;       /* 0: the optimizer and gradients skip it */
    int grad_unset;      /* fgl_params_defer_zero_grad: the gradient counts as zero, its memory not yet written */
} fgl_slice;

/* Slices keep the order they were added in (their index); in memory they
 * are grouped by tag: by the lowest group bit first (FEATURE, CONV, STRUCT,
 * HEAD, MASK, ...), then by the whole tag set, then in the order they were
 * added. So a primary group (all CONV slices, all STRUCT slices) is one
 * contiguous range, and any selection of groups is a few ranges
 * (fgl_params_ranges): packing the shared part of a model is a few memcpys. */
typedef struct fgl_params {
    int n, cap;          /* slices */
    fgl_slice *slices;
    int *order;          /* slice indices in memory order */
    size_t size;         /* floats in data (and grad) */
    float *data, *grad;
} fgl_params;

/* A run of contiguous floats in a parameter set's data / grad. */
typedef struct fgl_range {
    size_t offset, len;
} fgl_range;

FGLDEF void fgl_params_init(fgl_params *ps);
FGLDEF void fgl_params_free(fgl_params *ps);
/* Add a zero-initialised slice; returns its index (>= 0) or an error. Its
 * memory goes after the slices of the same tags (see fgl_params), so data,
 * grad and the offsets of other slices may move: take pointers after the set
 * is built. */
FGLDEF int fgl_params_add(fgl_params *ps, const char *name, int rows, int cols,
                          unsigned groups, int trainable);
FGLDEF int fgl_params_find(const fgl_params *ps, const char *name);   /* -1 if absent */
FGLDEF float *fgl_params_data(const fgl_params *ps, int slice);
FGLDEF float *fgl_params_gradp(const fgl_params *ps, int slice);
FGLDEF size_t fgl_slice_size(const fgl_slice *s);
/* Deep copy of layout and values; gradients start at zero. dst must be an
 * initialised set (fgl_params_init, or one in use: it is freed first); it may
 * be src itself. */
FGLDEF int fgl_params_clone(fgl_params *dst, const fgl_params *src);
/* 1 if both sets have the same slices (names, shapes, tags) in the same order. */
FGLDEF int fgl_params_same_layout(const fgl_params *a, const fgl_params *b);
/* Number of floats in the slices whose groups intersect `groups`. */
FGLDEF size_t fgl_params_count(const fgl_params *ps, unsigned groups);
/* A selection with exceptions: the slices whose groups intersect `groups`
 * and miss `except` (a slice carries several bits: a batch-norm weight of a
 * GIN layer is CONV|NORM, so groups = CONV, except = NORM|BNSTAT selects the
 * layer's linear maps without its batch norm). except = 0 is the plain
 * selection. A federated run's shared part is this selection with the
 * algorithm's share and keep masks (FedBN). */
FGLDEF int fgl_slice_selected(const fgl_slice *s, unsigned groups, unsigned except);
FGLDEF size_t fgl_params_count_except(const fgl_params *ps, unsigned groups, unsigned except);
/* Vector arithmetic over the selected slices; sets must share a layout
 * (FGL_ERR_SHAPE otherwise). */
FGLDEF int fgl_params_copy(fgl_params *dst, const fgl_params *src, unsigned groups);
FGLDEF void fgl_params_zero(fgl_params *ps, unsigned groups);
FGLDEF void fgl_params_zero_grad(fgl_params *ps);
/* fgl_params_zero_grad without writing memory: every trainable slice's
 * gradient counts as zero until the backward pass reaches its leaf
 * (fgl_op_param), which then stores its first contribution instead of adding
 * it to zeros (one pass over the gradients saved per step). fgl_tape_backward
 * zeroes, when it ends, the slices it did not reach of every set it saw, and
 * fgl_params_settle_grad those of one set (fgl_optim_step calls it): call it
 * before reading ps->grad yourself if a set may not be on the tape. */
FGLDEF void fgl_params_defer_zero_grad(fgl_params *ps);
FGLDEF void fgl_params_settle_grad(fgl_params *ps);
FGLDEF int fgl_params_axpy(fgl_params *y, float a, const fgl_params *x, unsigned groups);
FGLDEF void fgl_params_scale(fgl_params *ps, float a, unsigned groups);
FGLDEF double fgl_params_dot(const fgl_params *a, const fgl_params *b, unsigned groups);
FGLDEF double fgl_params_norm(const fgl_params *ps, unsigned groups);
/* The selected slices (trainable ones only if trainable_only) as maximal
 * runs of contiguous memory, in memory order. Writes at most max runs to out
 * (out may be NULL) and returns how many there are. Packing the selection
 * concatenates these runs. */
FGLDEF int fgl_params_ranges(const fgl_params *ps, unsigned groups, int trainable_only, fgl_range *out, int max);
/* Pack the selected slices into a contiguous vector in memory order (the
 * concatenation of fgl_params_ranges; returns floats written)
 * and back. A message between client and server is such a vector. */
FGLDEF size_t fgl_params_pack(const fgl_params *ps, unsigned groups, float *out);
FGLDEF size_t fgl_params_unpack(fgl_params *ps, unsigned groups, const float *in);
FGLDEF size_t fgl_params_pack_grad(const fgl_params *ps, unsigned groups, float *out);
/* The same over a selection with exceptions (fgl_slice_selected). */
FGLDEF size_t fgl_params_pack_except(const fgl_params *ps, unsigned groups, unsigned except, float *out);
FGLDEF size_t fgl_params_unpack_except(fgl_params *ps, unsigned groups, unsigned except, const float *in);
/* Initialisers for one slice. */
FGLDEF void fgl_params_fill(fgl_params *ps, int slice, float v);
FGLDEF void fgl_params_uniform(fgl_params *ps, int slice, float lo, float hi, fgl_rng *r);
/* Glorot/Xavier uniform: U(+-sqrt(6 / (rows + cols))). */
FGLDEF void fgl_params_glorot(fgl_params *ps, int slice, fgl_rng *r);
/* PyTorch's default for Linear: U(+-1/sqrt(fan_in)). */
FGLDEF void fgl_params_fan_in_uniform(fgl_params *ps, int slice, int fan_in, fgl_rng *r);
/* Serialise (layout + values) into b / from r. Reading into an empty set
 * creates the layout; reading into a built set requires the same layout. */
FGLDEF void fgl_params_write(const fgl_params *ps, fgl_bytes *b);
FGLDEF int fgl_params_read(fgl_params *ps, fgl_reader *r, fgl_error *err);
/* Framed, checksummed, versioned: save to / load from memory or a file. */
FGLDEF int fgl_params_save_mem(const fgl_params *ps, fgl_bytes *out);
FGLDEF int fgl_params_load_mem(fgl_params *ps, const void *data, size_t len, fgl_error *err);
FGLDEF int fgl_params_save(const fgl_params *ps, const char *path, fgl_error *err);
FGLDEF int fgl_params_load(fgl_params *ps, const char *path, fgl_error *err);

/* fgl:implementation */
#include "../alone.h"
/* --- parameter sets --------------------------------------------------------- */

FGLDEF void fgl_params_init(fgl_params *ps) { memset(ps, 0, sizeof *ps); }

FGLDEF void fgl_params_free(fgl_params *ps) {
    FGL_FREE(ps->slices);
    FGL_FREE(ps->order);
    FGL_FREE(ps->data);
    FGL_FREE(ps->grad);
    memset(ps, 0, sizeof *ps);
}

FGLDEF size_t fgl_slice_size(const fgl_slice *s) { return (size_t)s->rows * (size_t)s->cols; }

/* Memory placement key of a tag set: the lowest bit first, then the set. */
static uint64_t fgl__slice_key(unsigned groups) {
    unsigned low = 0;
    while (low < 31 && !(groups & (1u << low))) low++;
    return ((uint64_t)low << 32) | groups;
}

FGLDEF int fgl_params_add(fgl_params *ps, const char *name, int rows, int cols,
                          unsigned groups, int trainable) {
    fgl_slice *s;
    size_t n = (size_t)(rows > 0 ? rows : 0) * (size_t)(cols > 0 ? cols : 0), total, at = 0, tail;
    uint64_t key;
    float *d, *g;
    int i, pos = 0;
    if (rows <= 0 || cols <= 0 || !name || strlen(name) >= FGL_SLICE_NAME_LEN) return FGL_ERR_ARG;
    if (fgl_params_find(ps, name) >= 0) return FGL_ERR_ARG;
    groups = groups ? groups : (unsigned)FGL_G_OTHER;
    if (ps->n == ps->cap) {
        int cap = ps->cap ? 2 * ps->cap : 8;
        fgl_slice *ns = (fgl_slice *)FGL_REALLOC(ps->slices, sizeof(fgl_slice) * (size_t)cap);
        int *no;
        if (!ns) return FGL_ERR_NOMEM;
        ps->slices = ns;
        no = (int *)FGL_REALLOC(ps->order, sizeof(int) * (size_t)cap);
        if (!no) return FGL_ERR_NOMEM; /* slices grew; cap and n unchanged: still consistent */
        ps->order = no;
        ps->cap = cap;
    }
    total = ps->size + n;
    d = (float *)FGL_REALLOC(ps->data, sizeof(float) * total);
    if (!d) return FGL_ERR_NOMEM;
    ps->data = d;
    g = (float *)FGL_REALLOC(ps->grad, sizeof(float) * total);
    if (!g) return FGL_ERR_NOMEM; /* data grew; size unchanged, so the set is consistent */
    ps->grad = g;
    /* the new slice goes after every slice whose key is not larger */
    key = fgl__slice_key(groups);
    while (pos < ps->n && fgl__slice_key(ps->slices[ps->order[pos]].groups) <= key) {
        const fgl_slice *o = &ps->slices[ps->order[pos]];
        at = o->offset + fgl_slice_size(o);
        pos++;
    }
    tail = ps->size - at;
    if (tail) {
        memmove(ps->data + at + n, ps->data + at, sizeof(float) * tail);
        memmove(ps->grad + at + n, ps->grad + at, sizeof(float) * tail);
    }
    for (i = pos; i < ps->n; i++) ps->slices[ps->order[i]].offset += n;
    memmove(ps->order + pos + 1, ps->order + pos, sizeof(int) * (size_t)(ps->n - pos));
    ps->order[pos] = ps->n;
    memset(ps->data + at, 0, sizeof(float) * n);
    memset(ps->grad + at, 0, sizeof(float) * n);
    s = &ps->slices[ps->n];
    memset(s, 0, sizeof *s);
    strcpy(s->name, name);
    s->offset = at;
    s->rows = rows;
    s->cols = cols;
    s->groups = groups;
    s->trainable = trainable != 0;
    ps->size = total;
    return ps->n++;
}

FGLDEF int fgl_params_find(const fgl_params *ps, const char *name) {
    int i;
    for (i = 0; i < ps->n; i++)
        if (strcmp(ps->slices[i].name, name) == 0) return i;
    return -1;
}

FGLDEF float *fgl_params_data(const fgl_params *ps, int slice) {
    FGL_ASSERT(slice >= 0 && slice < ps->n);
    return ps->data + ps->slices[slice].offset;
}

FGLDEF float *fgl_params_gradp(const fgl_params *ps, int slice) {
    FGL_ASSERT(slice >= 0 && slice < ps->n);
    return ps->grad + ps->slices[slice].offset;
}

FGLDEF int fgl_params_clone(fgl_params *dst, const fgl_params *src) {
    fgl_params tmp;
    fgl_params_init(&tmp);
    if (src->n) {
        tmp.slices = (fgl_slice *)FGL_MALLOC(sizeof(fgl_slice) * (size_t)src->n);
        tmp.order = (int *)FGL_MALLOC(sizeof(int) * (size_t)src->n);
        tmp.data = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(src->size, 1));
        tmp.grad = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(src->size, 1));
        if (!tmp.slices || !tmp.order || !tmp.data || !tmp.grad) {
            fgl_params_free(&tmp);
            return FGL_ERR_NOMEM;
        }
        memcpy(tmp.slices, src->slices, sizeof(fgl_slice) * (size_t)src->n);
        memcpy(tmp.order, src->order, sizeof(int) * (size_t)src->n);
        memcpy(tmp.data, src->data, sizeof(float) * src->size);
        tmp.n = tmp.cap = src->n;
        tmp.size = src->size;
        fgl_params_zero_grad(&tmp); /* written zeros: none left unset */
    }
    { /* free dst's old buffers after copying: dst may be src itself */
        fgl_params old = *dst;
        *dst = tmp;
        fgl_params_free(&old);
    }
    return FGL_OK;
}

FGLDEF int fgl_params_same_layout(const fgl_params *a, const fgl_params *b) {
    int i;
    if (a->n != b->n || a->size != b->size) return 0;
    for (i = 0; i < a->n; i++) {
        const fgl_slice *x = &a->slices[i], *y = &b->slices[i];
        if (x->rows != y->rows || x->cols != y->cols || x->groups != y->groups ||
            x->offset != y->offset || strcmp(x->name, y->name) != 0)
            return 0;
    }
    return 1;
}

#define FGL__SELECTED(s, g) (((s)->groups & (g)) != 0)

FGLDEF int fgl_slice_selected(const fgl_slice *s, unsigned groups, unsigned except) {
    return (s->groups & groups) != 0 && (s->groups & except) == 0;
}

FGLDEF size_t fgl_params_count(const fgl_params *ps, unsigned groups) {
    return fgl_params_count_except(ps, groups, 0u);
}

FGLDEF size_t fgl_params_count_except(const fgl_params *ps, unsigned groups, unsigned except) {
    size_t n = 0;
    int i;
    for (i = 0; i < ps->n; i++)
        if (fgl_slice_selected(&ps->slices[i], groups, except)) n += fgl_slice_size(&ps->slices[i]);
    return n;
}

FGLDEF int fgl_params_copy(fgl_params *dst, const fgl_params *src, unsigned groups) {
    int i;
    if (!fgl_params_same_layout(dst, src)) return FGL_ERR_SHAPE;
    for (i = 0; i < dst->n; i++) {
        const fgl_slice *s = &dst->slices[i];
        if (FGL__SELECTED(s, groups))
            memcpy(dst->data + s->offset, src->data + s->offset, sizeof(float) * fgl_slice_size(s));
    }
    return FGL_OK;
}

FGLDEF void fgl_params_zero(fgl_params *ps, unsigned groups) {
    int i;
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *s = &ps->slices[i];
        if (FGL__SELECTED(s, groups)) memset(ps->data + s->offset, 0, sizeof(float) * fgl_slice_size(s));
    }
}

FGLDEF void fgl_params_zero_grad(fgl_params *ps) {
    int i;
    if (ps->size) memset(ps->grad, 0, sizeof(float) * ps->size);
    for (i = 0; i < ps->n; i++) ps->slices[i].grad_unset = 0;
}

FGLDEF void fgl_params_defer_zero_grad(fgl_params *ps) {
    int i;
    for (i = 0; i < ps->n; i++) ps->slices[i].grad_unset = ps->slices[i].trainable;
}

FGLDEF void fgl_params_settle_grad(fgl_params *ps) {
    int i;
    for (i = 0; i < ps->n; i++) {
        fgl_slice *s = &ps->slices[i];
        if (s->grad_unset) memset(ps->grad + s->offset, 0, sizeof(float) * fgl_slice_size(s));
        s->grad_unset = 0;
    }
}

FGLDEF int fgl_params_axpy(fgl_params *y, float a, const fgl_params *x, unsigned groups) {
    int i;
    if (!fgl_params_same_layout(y, x)) return FGL_ERR_SHAPE;
    for (i = 0; i < y->n; i++) {
        const fgl_slice *s = &y->slices[i];
        if (FGL__SELECTED(s, groups)) fgl_axpy(fgl_slice_size(s), a, x->data + s->offset, y->data + s->offset);
    }
    return FGL_OK;
}

FGLDEF void fgl_params_scale(fgl_params *ps, float a, unsigned groups) {
    int i;
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *s = &ps->slices[i];
        if (FGL__SELECTED(s, groups)) fgl_scale(fgl_slice_size(s), a, ps->data + s->offset);
    }
}

FGLDEF double fgl_params_dot(const fgl_params *a, const fgl_params *b, unsigned groups) {
    double sum = 0;
    int i;
    FGL_ASSERT(fgl_params_same_layout(a, b));
    for (i = 0; i < a->n; i++) {
        const fgl_slice *s = &a->slices[i];
        if (FGL__SELECTED(s, groups)) sum += fgl_dot(fgl_slice_size(s), a->data + s->offset, b->data + s->offset);
    }
    return sum;
}

FGLDEF double fgl_params_norm(const fgl_params *ps, unsigned groups) {
    return sqrt(fgl_params_dot(ps, ps, groups));
}

FGLDEF int fgl_params_ranges(const fgl_params *ps, unsigned groups, int trainable_only, fgl_range *out, int max) {
    int i, k = 0;
    size_t end = 0;
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *s = &ps->slices[ps->order[i]];
        if (!FGL__SELECTED(s, groups) || (trainable_only && !s->trainable)) continue;
        if (k > 0 && s->offset == end) { /* continues the previous run */
            if (out && k <= max) out[k - 1].len += fgl_slice_size(s);
        } else {
            if (out && k < max) {
                out[k].offset = s->offset;
                out[k].len = fgl_slice_size(s);
            }
            k++;
        }
        end = s->offset + fgl_slice_size(s);
    }
    return k;
}

/* Copy the selected slices between a set's buffer and a packed vector, one
 * memcpy per run of contiguous slices. */
static size_t fgl__pack(const fgl_params *ps, unsigned groups, unsigned except, float *buf, float *vec, int to_vec) {
    size_t n = 0, start = 0, len = 0;
    int i;
    for (i = 0; i <= ps->n; i++) {
        const fgl_slice *s = i < ps->n ? &ps->slices[ps->order[i]] : NULL;
        int sel = s && fgl_slice_selected(s, groups, except);
        if (sel && len && s->offset == start + len) {
            len += fgl_slice_size(s);
            continue;
        }
        if (len) {
            if (to_vec) memcpy(vec + n, buf + start, sizeof(float) * len);
            else memcpy(buf + start, vec + n, sizeof(float) * len);
            n += len;
        }
        len = 0;
        if (sel) {
            start = s->offset;
            len = fgl_slice_size(s);
        }
    }
    return n;
}

FGLDEF size_t fgl_params_pack(const fgl_params *ps, unsigned groups, float *out) {
    return fgl__pack(ps, groups, 0u, ps->data, out, 1);
}

FGLDEF size_t fgl_params_pack_grad(const fgl_params *ps, unsigned groups, float *out) {
    return fgl__pack(ps, groups, 0u, ps->grad, out, 1);
}

FGLDEF size_t fgl_params_unpack(fgl_params *ps, unsigned groups, const float *in) {
    return fgl__pack(ps, groups, 0u, ps->data, (float *)in, 0);
}

FGLDEF size_t fgl_params_pack_except(const fgl_params *ps, unsigned groups, unsigned except, float *out) {
    return fgl__pack(ps, groups, except, ps->data, out, 1);
}

FGLDEF size_t fgl_params_unpack_except(fgl_params *ps, unsigned groups, unsigned except, const float *in) {
    return fgl__pack(ps, groups, except, ps->data, (float *)in, 0);
}

FGLDEF void fgl_params_fill(fgl_params *ps, int slice, float v) {
    float *p = fgl_params_data(ps, slice);
    size_t i, n = fgl_slice_size(&ps->slices[slice]);
    for (i = 0; i < n; i++) p[i] = v;
}

FGLDEF void fgl_params_uniform(fgl_params *ps, int slice, float lo, float hi, fgl_rng *r) {
    float *p = fgl_params_data(ps, slice);
    size_t i, n = fgl_slice_size(&ps->slices[slice]);
    for (i = 0; i < n; i++) p[i] = fgl_rng_uniformf(r, lo, hi);
}

FGLDEF void fgl_params_glorot(fgl_params *ps, int slice, fgl_rng *r) {
    const fgl_slice *s = &ps->slices[slice];
    float a = (float)sqrt(6.0 / (double)(s->rows + s->cols));
    fgl_params_uniform(ps, slice, -a, a, r);
}

FGLDEF void fgl_params_fan_in_uniform(fgl_params *ps, int slice, int fan_in, fgl_rng *r) {
    float a = (float)(1.0 / sqrt((double)FGL__MAX(fan_in, 1)));
    fgl_params_uniform(ps, slice, -a, a, r);
}

FGLDEF void fgl_params_write(const fgl_params *ps, fgl_bytes *b) {
    int i;
    fgl_bytes_put_u32(b, (uint32_t)ps->n);
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *s = &ps->slices[i];
        fgl_bytes_put_str(b, s->name);
        fgl_bytes_put_u32(b, (uint32_t)s->rows);
        fgl_bytes_put_u32(b, (uint32_t)s->cols);
        fgl_bytes_put_u32(b, s->groups);
        fgl_bytes_put_u32(b, (uint32_t)s->trainable);
    }
    fgl_bytes_put_f32s(b, ps->data, ps->size);
}

/* Read the layout into a fresh set first; only on success compare it with, or
 * install it into, ps, so a bad buffer never leaves ps half-written. With
 * whole != 0 the values must also end the reader's bytes. */
static int fgl__params_read(fgl_params *ps, fgl_reader *r, int whole, fgl_error *err) {
    fgl_params tmp;
    uint32_t n = fgl_reader_u32(r), i;
    int rc = FGL_OK;
    fgl_params_init(&tmp);
    if (r->err) return fgl_error_set(err, FGL_ERR_FORMAT, "parameters: truncated before the slice count");
    if (n > 1000000u) return fgl_error_set(err, FGL_ERR_FORMAT, "parameters: implausible slice count %u", (unsigned)n);
    for (i = 0; i < n; i++) {
        char name[FGL_SLICE_NAME_LEN];
        uint32_t rows, cols, groups, trainable;
        fgl_reader_str(r, name, sizeof name);
        rows = fgl_reader_u32(r);
        cols = fgl_reader_u32(r);
        groups = fgl_reader_u32(r);
        trainable = fgl_reader_u32(r);
        if (r->err) {
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "parameters: slice %u header truncated or malformed", (unsigned)i);
            goto fail;
        }
        if (rows == 0 || cols == 0 || rows > (1u << 30) || cols > (1u << 30) ||
            (uint64_t)rows * cols > (uint64_t)(r->len - r->pos) / 4) {
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "parameters: slice '%s' has impossible shape %u x %u", name,
                               (unsigned)rows, (unsigned)cols);
            goto fail;
        }
        if (fgl_params_add(&tmp, name, (int)rows, (int)cols, groups, (int)trainable) < 0) {
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "parameters: cannot add slice '%s' (duplicate or no memory)", name);
            goto fail;
        }
    }
    if (fgl_reader_f32s(r, tmp.data, tmp.size)) {
        rc = fgl_error_set(err, FGL_ERR_FORMAT, "parameters: values truncated (%zu floats expected)", tmp.size);
        goto fail;
    }
    if (whole && r->pos != r->len) {
        rc = fgl_error_set(err, FGL_ERR_FORMAT, "parameters: %zu unread bytes in payload", r->len - r->pos);
        goto fail;
    }
    if (ps->n == 0) {
        fgl_params_free(ps);
        *ps = tmp;
        return FGL_OK;
    }
    if (!fgl_params_same_layout(ps, &tmp)) {
        rc = fgl_error_set(err, FGL_ERR_SHAPE, "parameters: stored layout (%d slices, %zu floats) differs from "
                           "the model's (%d slices, %zu floats)", tmp.n, tmp.size, ps->n, ps->size);
        goto fail;
    }
    memcpy(ps->data, tmp.data, sizeof(float) * ps->size);
fail:
    fgl_params_free(&tmp);
    return rc;
}

FGLDEF int fgl_params_read(fgl_params *ps, fgl_reader *r, fgl_error *err) { return fgl__params_read(ps, r, 0, err); }

#define FGL__PARAMS_MAGIC "FGLP"
#define FGL__PARAMS_VERSION 2u /* 2: values in grouped memory order */

FGLDEF int fgl_params_save_mem(const fgl_params *ps, fgl_bytes *out) {
    size_t mark;
    fgl_frame_begin(out, FGL__PARAMS_MAGIC, FGL__PARAMS_VERSION, &mark);
    fgl_params_write(ps, out);
    fgl_frame_end(out, mark);
    return out->err;
}

FGLDEF int fgl_params_load_mem(fgl_params *ps, const void *data, size_t len, fgl_error *err) {
    fgl_reader r;
    int rc = fgl_frame_open(data, len, FGL__PARAMS_MAGIC, FGL__PARAMS_VERSION, &r, "parameters", err);
    if (rc) return rc;
    return fgl__params_read(ps, &r, 1, err);
}

FGLDEF int fgl_params_save(const fgl_params *ps, const char *path, fgl_error *err) {
    fgl_bytes b;
    int rc;
    fgl_bytes_init(&b);
    rc = fgl_params_save_mem(ps, &b);
    if (rc) rc = fgl_error_set(err, rc, "%s: out of memory serialising parameters", path);
    else rc = fgl_file_write(path, b.data, b.len, err);
    fgl_bytes_free(&b);
    return rc;
}

FGLDEF int fgl_params_load(fgl_params *ps, const char *path, fgl_error *err) {
    unsigned char *data;
    size_t len;
    int rc = fgl_file_read(path, &data, &len, err);
    if (rc) return rc;
    rc = fgl_params_load_mem(ps, data, len, err);
    if (rc && err) { /* prefix the file name */
        char tmp[FGL_ERROR_MSG_LEN];
        snprintf(tmp, sizeof tmp, "%s", err->msg);
        fgl_error_set(err, rc, "%s: %s", path, tmp);
    }
    FGL_FREE(data);
    return rc;
}

#include "../alone.h"
