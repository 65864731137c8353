#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Autodiff tape                                                            */
/* ------------------------------------------------------------------------ */

typedef struct fgl_node fgl_node;
typedef struct fgl_tape fgl_tape;
typedef void (*fgl_backward_fn)(fgl_tape *t, fgl_node *n);

/* A value on the tape: a rows x cols matrix, its gradient (allocated on
 * demand during backward; for parameters it points into fgl_params.grad),
 * and what the op that made it saved for its backward pass. */
struct fgl_node {
    int rows, cols;
    float *val;
    float *grad;
    int needs_grad;
    const char *op;            /* name, for messages and debugging */
    fgl_backward_fn backward;  /* NULL for leaves */
    fgl_node *in[3];
    int i0, i1;
    float f0, f1;
    const void *p0, *p1;
    void *s0, *s1;             /* saved buffers in the tape's arena */
    fgl_params *param;         /* a parameter leaf: its set and slice (for a gradient whose zeroing is deferred) */
    int slice;
};

typedef struct fgl__chunk fgl__chunk;

/* Optional time per op, for benchmarks (bench/bench_gin): point a tape's
 * prof at a zeroed fgl_tape_prof and every op's forward time (from the
 * creation of its node, which ops do before computing, to the creation of
 * the next node or the start of backward) and backward step are added under
 * its name. Costs two clock reads per node; NULL (the default) costs nothing. */
#define FGL_PROF_OPS 64
typedef struct fgl_tape_prof {
    int n;                          /* distinct op names seen */
    const char *op[FGL_PROF_OPS];
    double fwd[FGL_PROF_OPS], bwd[FGL_PROF_OPS];
    long calls[FGL_PROF_OPS];
    int open;                       /* 1 + slot of the op whose forward is running, 0 none */
    double since;                   /* when it started */
} fgl_tape_prof;

struct fgl_tape {
    fgl__chunk *chunk;         /* arena: current chunk, linked to older ones */
    size_t arena_total;        /* bytes handed out since the last reset */
    fgl_node **nodes;
    int n_nodes, cap_nodes;
    fgl_error err;             /* the first error (its code and message), sticky until reset */
    fgl_tape_prof *prof;       /* optional op timing (NULL: off); kept by reset */
    /* Gradients of the nodes the backward pass has left (none will read
     * them again), whose buffers take the next gradients: a GIN batch's
     * backward then writes into memory still in cache instead of 18 MB of
     * fresh arena (a tape larger than the cache makes every fresh write a
     * trip to memory, and two cores share that bandwidth). */
    float **spare;             /* up to FGL__SPARES (allocated at the first release), oldest first */
    size_t *spare_bytes;       /* each one's size */
    int n_spare;
    int retain_grads;          /* 1: keep every node's gradient after backward (as PyTorch's retain_grad) */
};

FGLDEF void fgl_tape_init(fgl_tape *t);
FGLDEF void fgl_tape_free(fgl_tape *t);
/* Forget every node; keeps the arena's memory for the next step. */
FGLDEF void fgl_tape_reset(fgl_tape *t);
/* Forget every node and return the arena's memory to the allocator; the
 * tape stays usable (the next op allocates again) and keeps its error
 * state and its prof pointer. For a tape that will sit idle (a client out of
 * the round). */
FGLDEF void fgl_tape_trim(fgl_tape *t);
/* Backpropagate from a 1 x 1 node; gradients accumulate (+=) into parameter
 * gradients (or are stored into those fgl_params_defer_zero_grad left
 * unset). On return, every set of parameters on the tape has its gradients
 * written, even after an error. Returns the tape's error state. As in
 * PyTorch, the gradients of intermediate nodes (ops' outputs) are not kept:
 * each is released once the pass has gone through its node (grad NULL
 * again) and its memory serves the gradients still to come. Leaves keep
 * theirs. Set t->retain_grads = 1 before backward to keep them all. */
FGLDEF int fgl_tape_backward(fgl_tape *t, fgl_node *loss);
/* Bytes the arena holds (reserved, used or not), and in how many chunks
 * (chunks may be NULL). Steady-state training steps keep both constant. */
FGLDEF size_t fgl_tape_reserved(const fgl_tape *t, int *chunks);
/* Scratch memory valid until the next reset (zeroed). NULL + error on OOM. */
FGLDEF void *fgl_tape_alloc(fgl_tape *t, size_t bytes);
/* Record an error on the tape (first one wins); returns NULL for chaining. */
FGLDEF fgl_node *fgl_tape_fail(fgl_tape *t, int code, const char *fmt, ...) FGL__PRINTF(3, 4);

/* Leaves. fgl_op_const does not copy: data must live until backward is done. */
FGLDEF fgl_node *fgl_op_const(fgl_tape *t, const float *data, int rows, int cols);
FGLDEF fgl_node *fgl_op_tensor(fgl_tape *t, const fgl_tensor *x);
FGLDEF fgl_node *fgl_op_zeros(fgl_tape *t, int rows, int cols);
/* A leaf whose gradient is accumulated into grad (may be NULL: no gradient). */
FGLDEF fgl_node *fgl_op_leaf(fgl_tape *t, float *val, float *grad, int rows, int cols);
/* A parameter slice as a leaf (gradient into ps->grad if trainable). */
FGLDEF fgl_node *fgl_op_param(fgl_tape *t, fgl_params *ps, int slice);
/* The ops: declared, documented and defined in src/core/ops_*.h (linear
 * algebra, elementwise, shape, softmax and losses, normalisation, sparse). */

/* fgl:implementation */
#include "../alone.h"
/* --- autodiff: arena and tape ---------------------------------------------- */

#define FGL__ALIGN 64
#define FGL__CHUNK_MIN ((size_t)1 << 20)

struct fgl__chunk {
    fgl__chunk *prev;
    unsigned char *base;   /* FGL__ALIGN-aligned start of the usable bytes */
    size_t size, used;
};

static fgl__chunk *fgl__chunk_new(size_t size, fgl__chunk *prev) {
    fgl__chunk *c = (fgl__chunk *)FGL_MALLOC(sizeof(fgl__chunk) + size + FGL__ALIGN);
    uintptr_t p;
    if (!c) return NULL;
    p = (uintptr_t)(c + 1);
    p = (p + FGL__ALIGN - 1) & ~(uintptr_t)(FGL__ALIGN - 1);
    c->base = (unsigned char *)p;
    c->prev = prev;
    c->size = size;
    c->used = 0;
    return c;
}

FGLDEF void fgl_tape_init(fgl_tape *t) { memset(t, 0, sizeof *t); }

static void fgl__chunks_free(fgl__chunk *c) {
    while (c) {
        fgl__chunk *p = c->prev;
        FGL_FREE(c);
        c = p;
    }
}

FGLDEF void fgl_tape_free(fgl_tape *t) {
    fgl__chunks_free(t->chunk);
    FGL_FREE(t->nodes);
    FGL_FREE(t->spare);
    FGL_FREE(t->spare_bytes);
    memset(t, 0, sizeof *t);
}

FGLDEF void fgl_tape_trim(fgl_tape *t) {
    fgl_error err = t->err;
    fgl_tape_prof *prof = t->prof;
    int retain = t->retain_grads;
    fgl_tape_free(t);
    t->err = err;
    t->prof = prof;
    t->retain_grads = retain;
}

/* Profiling: the slot of op in p (a new one if unseen; the last slot
 * collects the overflow), and closing the running forward op. */
static int fgl__prof_slot(fgl_tape_prof *p, const char *op) {
    int i;
    for (i = 0; i < p->n; i++)
        if (p->op[i] == op || strcmp(p->op[i], op) == 0) return i;
    if (p->n == FGL_PROF_OPS) return FGL_PROF_OPS - 1;
    p->op[p->n] = op;
    return p->n++;
}

static void fgl__prof_close(fgl_tape *t, double now) {
    fgl_tape_prof *p = t->prof;
    if (p && p->open) {
        p->fwd[p->open - 1] += now - p->since;
        p->open = 0;
    }
}

FGLDEF void fgl_tape_reset(fgl_tape *t) {
    if (t->prof) fgl__prof_close(t, fgl_now());
    /* Several chunks mean the last step outgrew the arena: replace them by one
     * chunk big enough for everything, so steady-state steps never allocate. */
    if (t->chunk && t->chunk->prev) {
        size_t need = t->arena_total + t->arena_total / 4;
        fgl__chunks_free(t->chunk);
        t->chunk = fgl__chunk_new(FGL__MAX(need, FGL__CHUNK_MIN), NULL);
    }
    if (t->chunk) t->chunk->used = 0;
    t->arena_total = 0;
    t->n_nodes = 0;
    t->n_spare = 0;
    fgl_error_clear(&t->err);
}

FGLDEF size_t fgl_tape_reserved(const fgl_tape *t, int *chunks) {
    const fgl__chunk *c;
    size_t bytes = 0;
    int n = 0;
    for (c = t->chunk; c; c = c->prev) {
        bytes += c->size;
        n++;
    }
    if (chunks) *chunks = n;
    return bytes;
}

FGLDEF fgl_node *fgl_tape_fail(fgl_tape *t, int code, const char *fmt, ...) {
    if (t->err.code == FGL_OK) {
        va_list ap;
        t->err.code = code;
        va_start(ap, fmt);
        vsnprintf(t->err.msg, sizeof t->err.msg, fmt, ap);
        va_end(ap);
    }
    return NULL;
}

/* Uninitialised arena memory. */
static void *fgl__talloc(fgl_tape *t, size_t bytes) {
    fgl__chunk *c = t->chunk;
    void *p;
    bytes = (bytes + FGL__ALIGN - 1) & ~(size_t)(FGL__ALIGN - 1);
    if (bytes == 0) bytes = FGL__ALIGN;
    if (!c || c->size - c->used < bytes) {
        size_t sz = FGL__MAX(bytes, FGL__CHUNK_MIN);
        if (c) sz = FGL__MAX(sz, 2 * c->size);
        c = fgl__chunk_new(sz, t->chunk);
        if (!c) {
            fgl_tape_fail(t, FGL_ERR_NOMEM, "tape: out of memory allocating %zu bytes", bytes);
            return NULL;
        }
        t->chunk = c;
    }
    p = c->base + c->used;
    c->used += bytes;
    t->arena_total += bytes;
    return p;
}

FGLDEF void *fgl_tape_alloc(fgl_tape *t, size_t bytes) {
    void *p = fgl__talloc(t, bytes);
    if (p) memset(p, 0, bytes);
    return p;
}

static float *fgl__fbuf(fgl_tape *t, size_t n) { return (float *)fgl__talloc(t, sizeof(float) * n); }

/* A new node with an uninitialised value buffer, registered on the tape. It
 * needs a gradient if its op has a backward and any input needs one. */
static fgl_node *fgl__node(fgl_tape *t, const char *op, int rows, int cols, fgl_backward_fn bw,
                           fgl_node *a, fgl_node *b, fgl_node *c) {
    fgl_node *n;
    if (t->err.code) return NULL;
    if (rows < 0 || cols < 0) return fgl_tape_fail(t, FGL_ERR_SHAPE, "%s: negative shape %d x %d", op, rows, cols);
    if (t->n_nodes == t->cap_nodes) {
        int cap = t->cap_nodes ? 2 * t->cap_nodes : 256;
        fgl_node **nn = (fgl_node **)FGL_REALLOC(t->nodes, sizeof(fgl_node *) * (size_t)cap);
        if (!nn) return fgl_tape_fail(t, FGL_ERR_NOMEM, "tape: out of memory for nodes");
        t->nodes = nn;
        t->cap_nodes = cap;
    }
    n = (fgl_node *)fgl_tape_alloc(t, sizeof(fgl_node));
    if (!n) return NULL;
    n->val = fgl__fbuf(t, (size_t)rows * (size_t)cols);
    if (!n->val) return NULL;
    n->rows = rows;
    n->cols = cols;
    n->op = op;
    n->backward = bw;
    n->in[0] = a;
    n->in[1] = b;
    n->in[2] = c;
    n->needs_grad = bw && ((a && a->needs_grad) || (b && b->needs_grad) || (c && c->needs_grad));
    t->nodes[t->n_nodes++] = n;
    if (t->prof) {
        double now = fgl_now();
        int k = fgl__prof_slot(t->prof, op);
        fgl__prof_close(t, now);
        t->prof->calls[k]++;
        t->prof->open = k + 1;
        t->prof->since = now;
    }
    return n;
}

static size_t fgl__size(const fgl_node *n) { return (size_t)n->rows * (size_t)n->cols; }

/* 1 once if n is a parameter leaf whose gradient counts as zero but was not
 * written (fgl_params_defer_zero_grad); it is then the caller's to fill. */
static int fgl__claim_unset(fgl_node *n) {
    fgl_slice *s = n->param ? &n->param->slices[n->slice] : NULL;
    if (!s || !s->grad_unset) return 0;
    s->grad_unset = 0;
    return 1;
}

/* A gradient's buffer of len floats, uninitialised: the smallest spare
 * that holds it, the most recently released of those (the likeliest still
 * in cache; a layer's gradients all have the same size), its remainder
 * kept as a spare; else new arena memory. The list is short
 * (FGL__SPARES): once full, the oldest spare is dropped (left unused in
 * the arena), so a search costs little whatever the tape. */
#define FGL__SPARES 64
static float *fgl__grad_buf(fgl_tape *t, size_t len) {
    size_t bytes = (sizeof(float) * len + FGL__ALIGN - 1) & ~(size_t)(FGL__ALIGN - 1);
    int i, best = -1;
    float *p;
    for (i = t->n_spare - 1; i >= 0 && len > 0; i--)
        if (t->spare_bytes[i] >= bytes && (best < 0 || t->spare_bytes[i] < t->spare_bytes[best])) best = i;
    if (best < 0) return fgl__fbuf(t, len);
    p = t->spare[best];
    if (t->spare_bytes[best] - bytes >= FGL__ALIGN) { /* the rest stays a spare, in its place */
        t->spare[best] = (float *)((char *)p + bytes);
        t->spare_bytes[best] -= bytes;
    } else {
        for (i = best; i + 1 < t->n_spare; i++) {
            t->spare[i] = t->spare[i + 1];
            t->spare_bytes[i] = t->spare_bytes[i + 1];
        }
        t->n_spare--;
    }
    return p;
}

/* n's gradient, released once the backward pass has gone through n: its
 * buffer (arena memory, FGL__ALIGN-aligned, at least its size rounded up
 * to that) becomes a spare, unless it is empty or there is no memory for
 * the list (it then stays unused in the arena). */
static void fgl__grad_release(fgl_tape *t, fgl_node *n) {
    size_t bytes = (sizeof(float) * fgl__size(n) + FGL__ALIGN - 1) & ~(size_t)(FGL__ALIGN - 1);
    float *g = n->grad;
    int i;
    n->grad = NULL;
    if (!g || bytes == 0) return;
    if (!t->spare) {
        t->spare = (float **)FGL_MALLOC(sizeof(float *) * FGL__SPARES);
        t->spare_bytes = (size_t *)FGL_MALLOC(sizeof(size_t) * FGL__SPARES);
        if (!t->spare || !t->spare_bytes) { /* no list: the buffer simply stays where it is */
            FGL_FREE(t->spare);
            FGL_FREE(t->spare_bytes);
            t->spare = NULL;
            t->spare_bytes = NULL;
            return;
        }
    }
    if (t->n_spare == FGL__SPARES) {
        for (i = 0; i + 1 < t->n_spare; i++) {
            t->spare[i] = t->spare[i + 1];
            t->spare_bytes[i] = t->spare_bytes[i + 1];
        }
        t->n_spare--;
    }
    t->spare[t->n_spare] = g;
    t->spare_bytes[t->n_spare++] = bytes;
}

/* The gradient buffer of n, allocated (zeroed) on first use; NULL if n needs
 * no gradient. */
static float *fgl__grad(fgl_tape *t, fgl_node *n) {
    if (!n || !n->needs_grad) return NULL;
    if (!n->grad) {
        n->grad = fgl__grad_buf(t, fgl__size(n));
        if (n->grad) memset(n->grad, 0, sizeof(float) * fgl__size(n));
    } else if (fgl__claim_unset(n))
        memset(n->grad, 0, sizeof(float) * fgl__size(n));
    return n->grad;
}

/* For a backward step that will write every element of n's gradient: when n
 * has no gradient yet, uninitialised memory and *fresh = 1 (write, do not
 * add: zero-filling it first would double the memory traffic), as for a
 * parameter whose gradient is still unset; else the existing buffer and
 * *fresh = 0 (accumulate). Take it right before writing: an op whose two
 * inputs are the same node then writes, then accumulates. */
static float *fgl__grad_w(fgl_tape *t, fgl_node *n, int *fresh) {
    *fresh = 0;
    if (!n || !n->needs_grad) return NULL;
    if (!n->grad) {
        n->grad = fgl__grad_buf(t, fgl__size(n));
        *fresh = n->grad != NULL;
    } else
        *fresh = fgl__claim_unset(n);
    return n->grad;
}

/* 1 if the tape is healthy and the input exists. A NULL input without an
 * error on the tape is the caller's bug; it becomes the tape's error. */
static int fgl__live(fgl_tape *t, const char *op, const fgl_node *a) {
    if (t->err.code) return 0;
    if (!a) {
        fgl_tape_fail(t, FGL_ERR_ARG, "%s: input is NULL", op);
        return 0;
    }
    return 1;
}

#define FGL__LIVE1(op, a) \
    if (!fgl__live(t, op, a)) return NULL
#define FGL__LIVE2(op, a, b) \
    if (!fgl__live(t, op, a) || !fgl__live(t, op, b)) return NULL

static int fgl__backward(fgl_tape *t, fgl_node *loss) {
    int i;
    if (t->err.code) return t->err.code;
    if (!loss) {
        fgl_tape_fail(t, FGL_ERR_ARG, "backward: loss is NULL");
        return t->err.code;
    }
    if (loss->rows != 1 || loss->cols != 1) {
        fgl_tape_fail(t, FGL_ERR_SHAPE, "backward: loss must be 1 x 1, got %d x %d", loss->rows, loss->cols);
        return t->err.code;
    }
    if (!loss->needs_grad) return FGL_OK; /* nothing trainable reaches the loss */
    if (!fgl__grad(t, loss)) return t->err.code;
    loss->grad[0] += 1.0f;
    if (t->prof) fgl__prof_close(t, fgl_now());
    for (i = t->n_nodes - 1; i >= 0 && !t->err.code; i--) {
        fgl_node *n = t->nodes[i];
        if (n->backward && n->grad && n->needs_grad) {
            double t0 = t->prof ? fgl_now() : 0.0;
            n->backward(t, n);
            if (t->prof) t->prof->bwd[fgl__prof_slot(t->prof, n->op)] += fgl_now() - t0;
            if (!t->retain_grads) fgl__grad_release(t, n);
        }
    }
    return t->err.code;
}

FGLDEF int fgl_tape_backward(fgl_tape *t, fgl_node *loss) {
    int i, rc = fgl__backward(t, loss);
    /* whatever happened, no parameter gradient on the tape is left unset */
    for (i = 0; i < t->n_nodes; i++)
        if (t->nodes[i]->param) fgl_params_settle_grad(t->nodes[i]->param);
    return rc;
}

/* --- leaves ------------------------------------------------------------------ */

FGLDEF fgl_node *fgl_op_leaf(fgl_tape *t, float *val, float *grad, int rows, int cols) {
    fgl_node *n;
    if (t->err.code) return NULL;
    if (!val && rows > 0 && cols > 0) return fgl_tape_fail(t, FGL_ERR_ARG, "leaf: data is NULL");
    if (rows < 0 || cols < 0) return fgl_tape_fail(t, FGL_ERR_SHAPE, "leaf: negative shape");
    if (t->n_nodes == t->cap_nodes) {
        int cap = t->cap_nodes ? 2 * t->cap_nodes : 256;
        fgl_node **nn = (fgl_node **)FGL_REALLOC(t->nodes, sizeof(fgl_node *) * (size_t)cap);
        if (!nn) return fgl_tape_fail(t, FGL_ERR_NOMEM, "tape: out of memory for nodes");
        t->nodes = nn;
        t->cap_nodes = cap;
    }
    n = (fgl_node *)fgl_tape_alloc(t, sizeof(fgl_node));
    if (!n) return NULL;
    n->rows = rows;
    n->cols = cols;
    n->val = val;
    n->grad = grad;
    n->needs_grad = grad != NULL;
    n->op = grad ? "param" : "const";
    t->nodes[t->n_nodes++] = n;
    return n;
}

FGLDEF fgl_node *fgl_op_const(fgl_tape *t, const float *data, int rows, int cols) {
    return fgl_op_leaf(t, (float *)data, NULL, rows, cols);
}

FGLDEF fgl_node *fgl_op_tensor(fgl_tape *t, const fgl_tensor *x) {
    return fgl_op_leaf(t, x->data, NULL, x->rows, x->cols);
}

FGLDEF fgl_node *fgl_op_zeros(fgl_tape *t, int rows, int cols) {
    float *d;
    if (t->err.code) return NULL;
    d = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)FGL__MAX(rows, 0) * (size_t)FGL__MAX(cols, 0));
    return d ? fgl_op_leaf(t, d, NULL, rows, cols) : NULL;
}

FGLDEF fgl_node *fgl_op_param(fgl_tape *t, fgl_params *ps, int slice) {
    const fgl_slice *s;
    fgl_node *n;
    if (t->err.code) return NULL;
    if (!ps || slice < 0 || slice >= ps->n)
        return fgl_tape_fail(t, FGL_ERR_ARG, "param: slice %d does not exist", slice);
    s = &ps->slices[slice];
    n = fgl_op_leaf(t, ps->data + s->offset, s->trainable ? ps->grad + s->offset : NULL, s->rows, s->cols);
    if (n && s->trainable) {
        n->param = ps;
        n->slice = slice;
    }
    return n;
}

#include "../alone.h"
