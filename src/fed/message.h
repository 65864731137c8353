#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Messages                                                                 */
/* ------------------------------------------------------------------------ */

#define FGL_MSG_MAX_PARTS 8

/* What a message part holds. The runtime fills and applies all but DATA. */
enum {
    FGL_SEND_DATA,     /* written by the algorithm (upload / download hook), read by the other side */
    FGL_SEND_MODEL,    /* the shared groups of the model, packed; on the way down loaded into the client's model */
    FGL_SEND_DELTA,    /* up: the shared groups minus the model as received this round */
    FGL_SEND_WEIGHT    /* up: the client's training-sample count, the weight of fgl_server_mean */
};

/* Size rules: a part has rows x cols floats, each either a positive count
 * or one of these. */
enum {
    FGL_DIM_SHARED = -1,     /* floats in the shared parameter groups (n) */
    FGL_DIM_TRAINABLE = -2,  /* floats in their trainable slices (m) */
    FGL_DIM_CLIENTS = -3,    /* K */
    FGL_DIM_CLASSES = -4,    /* C, the largest class count among clients */
    FGL_DIM_REP = -5,        /* d, the width of what the classifier reads (equal for all clients) */
    FGL_DIM_EMB = -6,        /* the width of the last message-passing output (equal for all clients) */
    FGL_DIM_HOPS = -7,       /* H + 1: hops 0..H, H the smallest message-passing layer count among
                                clients (FedPG's receptive fields) */
    FGL_DIM_CLASS_HOPS = -8, /* C (H + 1): one row per class and hop */
    FGL_DIM_INPUT = -9,      /* the width of the model's input features (equal for all clients) */
    FGL_DIM_NODES = -10      /* the client's own node count (node tasks: the nodes of its graph; graph
                                tasks: of all its graphs), so sizes differ between clients; a download
                                part sized by it is written by the download hook (fgl_download_part) */
};
#define FGL_DIM_RULES 11     /* rules are 1 .. FGL_DIM_RULES - 1 below zero */
/* A size given by an integer parameter of the algorithm (e.g. a number of
 * anchors): fgl_algo_param_dim(&a, "anchors") returns the rule; the value,
 * read at the start, must be a positive integer. */
#define FGL__DIM_PARAM0 (-100)

#define FGL_PART_OPTIONAL 1u /* may be absent (nothing to send yet); an upload part's memory is
                                 allocated by the first fgl_up and released by fgl_up_drop */
#define FGL_PART_ROW 2u      /* download: row `client` of the server buffer `from` */
#define FGL_PART_RAW 4u      /* upload: the server's own code turns this part into model state (reads it with
                                fgl_upload, fgl_server_gather or fgl_server_plain_mean and writes what it
                                computes into the models), not fgl_server_mean / fgl_server_mix: no robust
                                rule, DP or secure aggregation covers it, and a run asking for one is refused
                                at its start. Reading a part only to steer weights or clusters is not this. */

typedef struct fgl_part {
    const char *name;
    int kind;                /* FGL_SEND_* */
    int rows, cols;          /* size rule */
    unsigned flags;          /* FGL_PART_* */
    const char *from;        /* download: the server buffer sent; NULL: the download hook writes it */
} fgl_part;

/* A message: its parts in declaration order; an absent part has len 0 and
 * a NULL pointer. Download parts sent from server buffers are views of them
 * (identical downloads share one buffer), and an upload's model part may
 * view the client's parameters; the byte count is the same. Parts are
 * read-only (const): a hook reads the other side's message and never writes
 * it (c->down.part[p][k] = x and s->up[i]->part[p][k] = x do not compile).
 * Its writer writes its own message through fgl_up (a client's upload) and
 * fgl_download_part (the server's download hook), which return the part's
 * owned storage (own[p]: copied out of what it viewed first); a client that
 * wants to change what it received takes a copy (fgl_down_copy). A hook
 * that casts the const away and writes a received part anyway fails the
 * run (the runtime checks the download is as sent after the client's
 * hooks), in one process as over MPI. */
typedef struct fgl_msg {
    int n_parts;
    const fgl_part *decl;
    const float *part[FGL_MSG_MAX_PARTS];
    size_t len[FGL_MSG_MAX_PARTS];
    float *own[FGL_MSG_MAX_PARTS];   /* owned storage, the runtime's (parts not viewed: a download's parts
                                        `from` the server's store, an upload's model part its parameters) */
    size_t cap[FGL_MSG_MAX_PARTS];
} fgl_msg;

FGLDEF size_t fgl_msg_bytes(const fgl_msg *m);
/* Index of the part called name, or -1. */
FGLDEF int fgl_msg_find(const fgl_msg *m, const char *name);

/* fgl:private */
#include "../alone.h"
/* A checksum of n floats' bits (whether a message part changed). */
FGL__PRIVATE uint64_t fgl__floats_sum(const float *x, size_t n);
/* fgl:implementation */
#include "../alone.h"
/* --- messages --------------------------------------------------------------- */

FGLDEF size_t fgl_msg_bytes(const fgl_msg *m) {
    size_t n = 0;
    int p;
    for (p = 0; p < m->n_parts; p++) n += m->len[p];
    return 4 * n;
}

FGLDEF int fgl_msg_find(const fgl_msg *m, const char *name) {
    int p;
    for (p = 0; p < m->n_parts; p++)
        if (strcmp(m->decl[p].name, name) == 0) return p;
    return -1;
}

static void fgl__msg_free(fgl_msg *m) {
    int p;
    for (p = 0; p < FGL_MSG_MAX_PARTS; p++) FGL_FREE(m->own[p]);
    memset(m, 0, sizeof *m);
}

/* Every part absent (owned storage kept). */
static void fgl__msg_clear(fgl_msg *m) {
    int p;
    for (p = 0; p < FGL_MSG_MAX_PARTS; p++) {
        m->part[p] = NULL;
        m->len[p] = 0;
    }
}

/* Part p present with n floats of owned storage (contents undefined). */
static float *fgl__msg_own(fgl_msg *m, int p, size_t n) {
    if (n > m->cap[p] || !m->own[p]) {
        float *d = (float *)FGL_REALLOC(m->own[p], sizeof(float) * FGL__MAX(n, 1));
        if (!d) return NULL;
        m->own[p] = d;
        m->cap[p] = FGL__MAX(n, 1);
    }
    m->part[p] = m->own[p];
    m->len[p] = n;
    return m->own[p];
}

/* Part p of m, writable: a viewed part (an upload's model part views the
 * client's parameters until the server has read it) is first copied into
 * m's own storage, so a writer never changes what it views. NULL: out of
 * memory, or the part is absent. */
static float *fgl__msg_write(fgl_msg *m, int p) {
    const float *viewed = m->part[p];
    float *x;
    if (!viewed) return NULL;
    if (viewed == m->own[p]) return m->own[p];
    if (!(x = fgl__msg_own(m, p, m->len[p]))) return NULL;
    memcpy(x, viewed, sizeof(float) * m->len[p]);
    return x;
}

/* A Fletcher sum over 64-bit words (pairs of floats) in 16 lanes: in each
 * lane the running sum of the words and the sum of those running sums,
 * modulo 2^64 (two adds a word over independent lanes, which compilers
 * vectorise: about 0.05 ns a float here with -march=native, 0.1 without,
 * 8 us for FedAvg's 184,455-float GCN on Cora), then the tail and the
 * length mixed in by invertible multiply-xorshift steps. A change of any
 * one float changes its lane's running sum and so the result; two changes
 * cancel only if they cancel in both sums. A hook's write is caught; an
 * adversary aiming at a collision is not what it is for. */
#define FGL__SUM_LANES 16
FGL__PRIVATE uint64_t fgl__floats_sum(const float *x, size_t n) {
    uint64_t a[FGL__SUM_LANES], b[FGL__SUM_LANES], w[FGL__SUM_LANES], t = 0, h;
    size_t j, blocks = n / (2 * FGL__SUM_LANES), tail = n % (2 * FGL__SUM_LANES);
    const float *end = x + 2 * FGL__SUM_LANES * blocks;
    int k;
    for (k = 0; k < FGL__SUM_LANES; k++) a[k] = b[k] = 0;
    for (j = 0; j < blocks; j++) {
        memcpy(w, x + 2 * FGL__SUM_LANES * j, sizeof w);
        for (k = 0; k < FGL__SUM_LANES; k++) {
            a[k] += w[k];
            b[k] += a[k];
        }
    }
    for (j = 0; j < tail; j++) {
        uint32_t u;
        memcpy(&u, end + j, 4);
        t = (t ^ u) * 0xC4CEB9FE1A85EC53ull;
    }
    h = (uint64_t)n * 0x9E3779B97F4A7C15ull ^ t;
    for (k = 0; k < FGL__SUM_LANES; k++) {
        h = (h ^ a[k]) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 31;
        h = (h ^ b[k]) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 31;
    }
    return h;
}
#include "../alone.h"
