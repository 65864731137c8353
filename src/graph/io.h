#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Loaders and writers                                                      */
/* ------------------------------------------------------------------------ */

/* TU Dortmund layout: dir/NAME_A.txt, NAME_graph_indicator.txt,
 * NAME_graph_labels.txt (required), NAME_node_labels.txt,
 * NAME_node_attributes.txt (optional); 1-based ids. */
FGLDEF int fgl_load_tu(const char *dir, const char *name, fgl_graph_set *out, fgl_error *err);
/* Write s in the TU layout (graph labels written as 0..C-1). */
FGLDEF int fgl_save_tu(const fgl_graph_set *s, const char *dir, const char *name, fgl_error *err);
/* Node layout: dir/NAME.edges ("u v", 0-based), NAME.labels (one per line),
 * NAME.features (header "n f": dense rows -> x; header "n f nnz": sparse
 * "node feature value" triplets -> x_sparse, duplicates summed), optional
 * NAME.split (codes 0..3 = FGL_SPLIT_*). */
FGLDEF int fgl_load_node(const char *dir, const char *name, fgl_node_data *out, fgl_error *err);
/* Write d in the node layout (dense or sparse as held; NAME.split if any). */
FGLDEF int fgl_save_node(const fgl_node_data *d, const char *dir, const char *name,
                         fgl_error *err);
/* LINQS layout: dir/NAME.content ("id f_1 .. f_F class", string ids and
 * classes) and dir/NAME.cites ("a b"). Features go to x_sparse (non-zeros),
 * classes to 0..C-1 in sorted (strcmp) order, nodes keep file order. Cites
 * naming an unknown id are dropped and counted in *n_dropped (may be NULL). */
FGLDEF int fgl_load_linqs(const char *dir, const char *name, fgl_node_data *out, int *n_dropped,
                          fgl_error *err);
/* OGB-like raw CSV: edge_path "u,v" per line (0-based), feat_path one row
 * of comma-separated floats per node (dense x), label_path one integer per
 * node (-1 = unknown). out->name is left empty (set it yourself). */
FGLDEF int fgl_load_csv(const char *edge_path, const char *feat_path, const char *label_path,
                        fgl_node_data *out, fgl_error *err);

/* The data directory (the real datasets, as node/NAME and tu/NAME), by one
 * rule for fgl's loaders (fgl_dataset_load with dir NULL), fglrun, the
 * examples and the tests:
 *   1. $FGL_DATA, when it is set and not empty (used as given);
 *   2. else data/ in the current directory, if it exists (where `make data`
 *      writes: the repository's root, when a program runs from there);
 *   3. else the per-user directory $XDG_DATA_HOME/fgl (unset:
 *      $HOME/.local/share/fgl), if it exists.
 * Writes the directory into buf (cap bytes) and returns FGL_OK. When
 * FGL_DATA is unset and neither of the others exists: FGL_ERR_IO, buf
 * holds "data", and err names every directory tried. */
FGLDEF int fgl_data_dir(char *buf, size_t cap, fgl_error *err);

/* fgl:implementation */
#include "../alone.h"
/* --- text parsing --------------------------------------------------------- */

/* A whole text file in memory (NUL-terminated) with a cursor and the line
 * number for messages. Read by fgl_file_read_bounded: a regular file of at
 * most fgl_file_max() bytes, without a NUL byte (a file of zeros fails at
 * its first block instead of being read whole). */
typedef struct fgl__g_txt {
    const char *path;
    char *own;          /* path, when the cursor owns it (fgl__g_txt_open_in) */
    char *buf;
    const char *p, *end;
    int line;
    fgl_error *err;
} fgl__g_txt;

static int fgl__g_txt_fail(fgl__g_txt *t, int code, const char *fmt, ...) FGL__PRINTF(3, 4);

static int fgl__g_txt_fail(fgl__g_txt *t, int code, const char *fmt, ...) {
    char msg[FGL_ERROR_MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fgl_error_set(t->err, code, "%s:%d: %s", t->path, t->line, msg);
}

static int fgl__g_txt_open(fgl__g_txt *t, const char *path, fgl_error *err) {
    unsigned char *data, *nb;
    size_t len;
    int rc;
    memset(t, 0, sizeof *t);
    t->path = path;
    t->err = err;
    t->line = 1;
    rc = fgl_file_read_bounded(path, 0, 1, &data, &len, err); /* regular, bounded, text */
    if (rc) return rc;
    nb = FGL__G_RESIZE(unsigned char, data, len + 1);
    if (!nb) {
        FGL_FREE(data);
        return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", path);
    }
    nb[len] = 0;
    t->buf = (char *)nb;
    t->p = t->buf;
    t->end = t->buf + len;
    if (len >= 3 && nb[0] == 0xEF && nb[1] == 0xBB && nb[2] == 0xBF) t->p += 3; /* UTF-8 BOM */
    return FGL_OK;
}

static void fgl__g_txt_close(fgl__g_txt *t) {
    FGL_FREE(t->buf);
    FGL_FREE(t->own);
    t->buf = t->own = NULL;
    t->path = NULL;
    t->p = t->end = NULL;
}

/* Upper bound on the number of lines (records). */
static size_t fgl__g_txt_lines(const fgl__g_txt *t) {
    size_t n = 0;
    const char *q = t->p;
    while (q < t->end) {
        const char *nl = (const char *)memchr(q, '\n', (size_t)(t->end - q));
        n++;
        if (!nl) break;
        q = nl + 1;
    }
    return n;
}

static int fgl__g_is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
static int fgl__g_is_delim(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ','; }

static void fgl__g_txt_blanks(fgl__g_txt *t) {
    while (t->p < t->end && fgl__g_is_blank(*t->p)) t->p++;
}

/* 1 at the end of the line or file (after blanks). */
static int fgl__g_txt_at_eol(fgl__g_txt *t) {
    fgl__g_txt_blanks(t);
    return t->p >= t->end || *t->p == '\n';
}

/* 1 if a non-blank line follows, 0 at the end of the data (only blank
 * lines left), or an error for a blank line in the middle. */
static int fgl__g_txt_more(fgl__g_txt *t) {
    const char *q;
    fgl__g_txt_blanks(t);
    if (t->p >= t->end) return 0;
    if (*t->p != '\n') return 1;
    for (q = t->p; q < t->end; q++)
        if (!fgl__g_is_blank(*q) && *q != '\n') break;
    if (q >= t->end) {
        t->p = t->end;
        return 0;
    }
    return fgl__g_txt_fail(t, FGL_ERR_FORMAT, "empty line");
}

/* The token at p (up to a delimiter) quoted safely for a message. */
static void fgl__g_tok(const char *p, const char *end, char *out, size_t cap) {
    size_t n = 0;
    while (p < end && !fgl__g_is_delim(*p) && n + 4 < cap) {
        unsigned char ch = (unsigned char)*p++;
        out[n++] = (ch >= 32 && ch < 127) ? (char)ch : '?';
    }
    if (p < end && !fgl__g_is_delim(*p)) {
        out[n++] = '.';
        out[n++] = '.';
        out[n++] = '.';
    }
    out[n] = 0;
}

/* Consume the end of the line; anything else left on it is an error. */
static int fgl__g_txt_eol(fgl__g_txt *t) {
    fgl__g_txt_blanks(t);
    if (t->p < t->end && *t->p != '\n') {
        char tok[40];
        fgl__g_tok(t->p, t->end, tok, sizeof tok);
        if (!tok[0]) tok[0] = *t->p == ',' ? ',' : '?', tok[1] = 0;
        return fgl__g_txt_fail(t, FGL_ERR_PARSE, "unexpected '%s' at the end of the line", tok);
    }
    if (t->p < t->end) {
        t->p++;
        t->line++;
    }
    return FGL_OK;
}

/* Skip blanks and at most one comma. */
static void fgl__g_txt_sep(fgl__g_txt *t) {
    fgl__g_txt_blanks(t);
    if (t->p < t->end && *t->p == ',') {
        t->p++;
        fgl__g_txt_blanks(t);
    }
}

static int fgl__g_txt_missing(fgl__g_txt *t, const char *what) {
    return fgl__g_txt_fail(t, FGL_ERR_FORMAT, "missing %s (the line or file ends early)", what);
}

static int fgl__g_txt_bad(fgl__g_txt *t, const char *p, const char *what) {
    char tok[40];
    fgl__g_tok(p, t->end, tok, sizeof tok);
    if (!tok[0]) tok[0] = *p == ',' ? ',' : '?', tok[1] = 0;
    return fgl__g_txt_fail(t, FGL_ERR_PARSE, "'%s' is not a valid %s", tok, what);
}

static int fgl__g_txt_int(fgl__g_txt *t, int *out, const char *what) {
    const char *p;
    long long v = 0;
    int neg = 0, nd = 0;
    fgl__g_txt_blanks(t);
    p = t->p;
    if (p >= t->end || *p == '\n') return fgl__g_txt_missing(t, what);
    if (*p == '-' || *p == '+') neg = *p++ == '-';
    while (p < t->end && *p >= '0' && *p <= '9') {
        if (nd < 18) v = v * 10 + (*p - '0');
        nd++;
        p++;
    }
    if (nd == 0 || (p < t->end && !fgl__g_is_delim(*p))) return fgl__g_txt_bad(t, t->p, what);
    if (neg) v = -v;
    if (nd > 10 || v > INT_MAX || v < INT_MIN) {
        char tok[40];
        fgl__g_tok(t->p, t->end, tok, sizeof tok);
        return fgl__g_txt_fail(t, FGL_ERR_RANGE, "%s %s is out of range", what, tok);
    }
    t->p = p;
    *out = (int)v;
    return FGL_OK;
}

static const double fgl__g_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A float: plain decimals with at most 15 digits are converted exactly
 * (one correctly rounded multiply or divide); anything else goes to strtod. */
static int fgl__g_txt_float(fgl__g_txt *t, float *out, const char *what) {
    const char *p, *s;
    double d;
    int neg = 0, nd = 0, frac = 0, ex = 0, fast = 1;
    uint64_t m = 0;
    fgl__g_txt_blanks(t);
    s = p = t->p;
    if (p >= t->end || *p == '\n') return fgl__g_txt_missing(t, what);
    if (*p == '-' || *p == '+') neg = *p++ == '-';
    while (p < t->end && *p >= '0' && *p <= '9') {
        m = m * 10 + (uint64_t)(*p++ - '0');
        nd++;
    }
    if (p < t->end && *p == '.') {
        p++;
        while (p < t->end && *p >= '0' && *p <= '9') {
            m = m * 10 + (uint64_t)(*p++ - '0');
            nd++;
            frac++;
        }
    }
    if (nd == 0) fast = 0;
    if (fast && p < t->end && (*p == 'e' || *p == 'E')) {
        int eneg = 0, en = 0, e = 0;
        p++;
        if (p < t->end && (*p == '-' || *p == '+')) eneg = *p++ == '-';
        while (p < t->end && *p >= '0' && *p <= '9') {
            if (e < 10000) e = e * 10 + (*p - '0');
            p++;
            en++;
        }
        if (en == 0) fast = 0;
        ex = eneg ? -e : e;
    }
    ex -= frac;
    if (fast && nd <= 15 && ex >= -22 && ex <= 22 && (p >= t->end || fgl__g_is_delim(*p))) {
        d = (double)m;
        d = ex >= 0 ? d * fgl__g_pow10[ex] : d / fgl__g_pow10[-ex];
        if (neg) d = -d;
    } else {
        char *e;
        char c0 = (neg || *s == '+') ? s[1] : s[0];
        if (!((c0 >= '0' && c0 <= '9') || c0 == '.' || c0 == 'i' || c0 == 'I' || c0 == 'n' ||
              c0 == 'N'))
            return fgl__g_txt_bad(t, s, what);  /* strtod would skip white space */
        d = strtod(s, &e);
        if (e == s || (e < t->end && !fgl__g_is_delim(*e))) return fgl__g_txt_bad(t, s, what);
        p = e;
    }
    /* at or beyond FLT_MAX + half an ulp a float conversion gives Inf */
    if (d != d || d >= 3.4028235677973366e38 || d <= -3.4028235677973366e38) {
        char tok[40];
        fgl__g_tok(s, t->end, tok, sizeof tok);
        return fgl__g_txt_fail(t, FGL_ERR_NONFINITE, "%s %s is not a finite float", what, tok);
    }
    t->p = p;
    *out = (float)d;
    return FGL_OK;
}

/* A word: the characters up to a blank or the end of the line. */
static int fgl__g_txt_word(fgl__g_txt *t, const char **w, int *len, const char *what) {
    const char *p;
    fgl__g_txt_blanks(t);
    p = t->p;
    if (p >= t->end || *p == '\n') return fgl__g_txt_missing(t, what);
    while (p < t->end && !fgl__g_is_blank(*p) && *p != '\n') p++;
    *w = t->p;
    *len = (int)(p - t->p);
    t->p = p;
    return FGL_OK;
}

/* dir + "/" + name + suffix (dir may be NULL or empty). */
static char *fgl__g_path(const char *dir, const char *name, const char *suffix) {
    size_t a = dir ? strlen(dir) : 0, b = name ? strlen(name) : 0, c = strlen(suffix);
    char *p = FGL__G_NEW(char, a + b + c + 2), *q;
    if (!p) return NULL;
    q = p;
    if (a) {
        memcpy(q, dir, a);
        q += a;
        if (dir[a - 1] != '/') *q++ = '/';
    }
    if (b) memcpy(q, name, b);
    q += b;
    memcpy(q, suffix, c + 1);
    return p;
}

/* Open dir/name+suffix; the cursor owns the path (freed by txt_close). */
static int fgl__g_txt_open_in(fgl__g_txt *t, const char *dir, const char *name, const char *suffix,
                              fgl_error *err) {
    char *path = fgl__g_path(dir, name, suffix);
    int rc;
    memset(t, 0, sizeof *t);
    if (!path) return fgl_error_set(err, FGL_ERR_NOMEM, "%s%s: out of memory", name ? name : "", suffix);
    rc = fgl__g_txt_open(t, path, err);
    if (rc) {
        FGL_FREE(path);
        memset(t, 0, sizeof *t);
        return rc;
    }
    t->own = path;
    return FGL_OK;
}

/* An optional file: 1 if it is open in t, 0 if it does not exist, or the
 * error reading it (a file that exists but is not readable as text, a
 * directory for one, is an error, not an absent file). */
static int fgl__g_txt_open_optional(fgl__g_txt *t, const char *dir, const char *name, const char *suffix,
                                    fgl_error *err) {
    int rc = fgl__g_txt_open_in(t, dir, name, suffix, err);
    if (rc == FGL_ERR_IO) {
        char *path = fgl__g_path(dir, name, suffix);
        int there;
#if defined(__unix__) || defined(__APPLE__)
        struct stat st; /* not fopen: it blocks on a FIFO without a writer */
        there = path && stat(path, &st) == 0;
#else
        FILE *f = path ? fopen(path, "rb") : NULL;
        there = f != NULL;
        if (f) fclose(f);
#endif
        FGL_FREE(path);
        if (!there) {
            fgl_error_clear(err);
            return 0;
        }
    }
    return rc ? rc : 1;
}

/* A growable int array. */
typedef struct fgl__g_ivec {
    int *a;
    size_t n, cap;
} fgl__g_ivec;

static int fgl__g_ivec_push(fgl__g_ivec *v, int x) {
    if (v->n == v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 1024;
        int *na = FGL__G_RESIZE(int, v->a, nc);
        if (!na) return FGL_ERR_NOMEM;
        v->a = na;
        v->cap = nc;
    }
    v->a[v->n++] = x;
    return FGL_OK;
}

/* A growable float array. */
typedef struct fgl__g_fvec {
    float *a;
    size_t n, cap;
} fgl__g_fvec;

static int fgl__g_fvec_push(fgl__g_fvec *v, float x) {
    if (v->n == v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 1024;
        float *na = FGL__G_RESIZE(float, v->a, nc);
        if (!na) return FGL_ERR_NOMEM;
        v->a = na;
        v->cap = nc;
    }
    v->a[v->n++] = x;
    return FGL_OK;
}

/* Rows of floats, one per line, as many on every line as on the first: the
 * TU node attributes and the CSV features. The messages use each file's own
 * words, e.g. "attribute" / "attributes" / "line" / "attribute lines" /
 * "nodes". */
typedef struct fgl__g_rows_words {
    const char *value;   /* one value (parse errors) */
    const char *values;  /* the values of a row */
    const char *row;     /* one row */
    const char *rows;    /* the rows */
    const char *owners;  /* what the expected number of rows counts */
} fgl__g_rows_words;

/* *w = the number of values on the first non-blank line, 0 for a file without
 * one. They are parsed (a bad token is reported here) but not consumed: the
 * cursor stays at the start of that line for fgl__g_read_rows. */
static int fgl__g_row_width(fgl__g_txt *t, const fgl__g_rows_words *words, int *w) {
    int rc;
    *w = 0;
    if ((rc = fgl__g_txt_more(t)) > 0) {
        const char *save = t->p;
        while (!fgl__g_txt_at_eol(t)) {
            float v;
            if ((rc = fgl__g_txt_float(t, &v, words->value)) != 0) return rc;
            fgl__g_txt_sep(t);
            (*w)++;
        }
        t->p = save;
    }
    return rc < 0 ? rc : FGL_OK;
}

/* The rest of the file into x: exactly n rows of exactly w values
 * (FGL_ERR_SHAPE otherwise, at the offending line). */
static int fgl__g_read_rows(fgl__g_txt *t, float *x, int n, int w, const fgl__g_rows_words *words) {
    int rc, row = 0, j;
    while ((rc = fgl__g_txt_more(t)) > 0) {
        float *r;
        if (row >= n)
            return fgl__g_txt_fail(t, FGL_ERR_SHAPE, "more %s than the %d %s", words->rows, n, words->owners);
        r = x + (size_t)row * (size_t)w;
        for (j = 0; j < w; j++) {
            if (fgl__g_txt_at_eol(t))
                return fgl__g_txt_fail(t, FGL_ERR_SHAPE, "%d %s, the first %s has %d", j, words->values, words->row, w);
            if ((rc = fgl__g_txt_float(t, &r[j], words->value)) != 0) return rc;
            fgl__g_txt_sep(t);
        }
        if (!fgl__g_txt_at_eol(t))
            return fgl__g_txt_fail(t, FGL_ERR_SHAPE, "more %s than the %d of the first %s", words->values, w,
                                   words->row);
        if ((rc = fgl__g_txt_eol(t)) != 0) return rc;
        row++;
    }
    if (rc < 0) return rc;
    if (row != n) return fgl__g_txt_fail(t, FGL_ERR_SHAPE, "%d %s for %d %s", row, words->rows, n, words->owners);
    return FGL_OK;
}

/* FGL_ERR_EMPTY when none of the k values x holds is non-zero: n rows of w
 * features (or attributes) that are all 0 carry nothing to learn from, a
 * failed conversion more likely than data. */
static int fgl__g_nonzero(const char *path, const float *x, size_t k, int n, int w, const char *what,
                          fgl_error *err) {
    size_t i;
    for (i = 0; i < k; i++)
        if (x[i] != 0.0f) return FGL_OK;
    return fgl_error_set(err, FGL_ERR_EMPTY, "%s: every %s value of the %d nodes x %d %ss is 0: nothing to learn "
                         "from (a failed conversion?)", path, what, n, w, what);
}

/* --- TU loader ------------------------------------------------------------ */

/* Read one integer per line into a new array; *n = lines read. */
static int fgl__g_read_int_lines(fgl__g_txt *t, int **out, int *n, const char *what) {
    size_t cap = fgl__g_txt_lines(t);
    int rc, cnt = 0, *a = FGL__G_NEW(int, cap);
    *out = NULL;
    *n = 0;
    if (!a) return fgl_error_set(t->err, FGL_ERR_NOMEM, "%s: out of memory", t->path);
    while ((rc = fgl__g_txt_more(t)) > 0) {
        if ((rc = fgl__g_txt_int(t, &a[cnt], what)) != 0 || (rc = fgl__g_txt_eol(t)) != 0) break;
        cnt++;
    }
    if (rc < 0) {
        FGL_FREE(a);
        return rc;
    }
    *out = a;
    *n = cnt;
    return FGL_OK;
}

FGLDEF int fgl_load_tu(const char *dir, const char *name, fgl_graph_set *out, fgl_error *err) {
    /* Every count comes from a file's lines (so from its length): N nodes
     * from the graph indicator, G <= N graphs (no gaps), then the other
     * files are checked against N and G before anything of their size is
     * allocated. */
    fgl__g_txt t;
    int *gi = NULL, *lab = NULL, *src = NULL, *dst = NULL, *nl = NULL;
    float *attr = NULL;
    int rc, N = 0, G, nlab, m = 0, i;
    memset(out, 0, sizeof *out);
    memset(&t, 0, sizeof t);
    /* graph indicator: node -> graph, 1-based, non-decreasing, no gaps */
    rc = fgl__g_txt_open_in(&t, dir, name, "_graph_indicator.txt", err);
    if (rc) goto fail;
    rc = fgl__g_read_int_lines(&t, &gi, &N, "graph id");
    if (rc) goto fail;
    t.line = 1;
    for (i = 0; i < N; i++) {
        int prev = i ? gi[i - 1] : 0;
        t.line = i + 1;
        if (gi[i] < 1) {
            rc = fgl__g_txt_fail(&t, FGL_ERR_RANGE, "graph id %d (ids start at 1)", gi[i]);
            goto fail;
        }
        if (gi[i] < prev) {
            rc = fgl__g_txt_fail(&t, FGL_ERR_FORMAT, "graph id %d after %d: ids must not decrease", gi[i], prev);
            goto fail;
        }
        if (gi[i] > prev + 1) {
            rc = fgl__g_txt_fail(&t, FGL_ERR_FORMAT, "graph id %d after %d: graph %d has no nodes", gi[i],
                               prev, prev + 1);
            goto fail;
        }
    }
    if (N == 0) {
        rc = fgl__g_txt_fail(&t, FGL_ERR_EMPTY, "no nodes: the dataset is empty");
        goto fail;
    }
    G = gi[N - 1];
    out->node_ptr = FGL__G_NEW(int, G + 1);
    if (!out->node_ptr) goto nomem;
    out->node_ptr[0] = 0;
    for (i = 0; i < N; i++) out->node_ptr[gi[i]] = i + 1;

    /* graph labels: one per graph, any integers, remapped to 0..C-1 */
    fgl__g_txt_close(&t);
    rc = fgl__g_txt_open_in(&t, dir, name, "_graph_labels.txt", err);
    if (rc) goto fail;
    rc = fgl__g_read_int_lines(&t, &lab, &nlab, "graph label");
    if (rc) goto fail;
    if (nlab != G) {
        t.line = (nlab < G ? nlab : G) + 1;
        rc = fgl__g_txt_fail(&t, FGL_ERR_SHAPE, "%d graph labels, but the graph indicator names %d graphs",
                           nlab, G);
        goto fail;
    }
    rc = fgl_labels_remap(lab, G, NULL, &out->n_classes);
    if (rc) goto nomem;
    out->y = lab;
    lab = NULL;

    /* adjacency: "row, col" per directed entry, 1-based */
    fgl__g_txt_close(&t);
    rc = fgl__g_txt_open_in(&t, dir, name, "_A.txt", err);
    if (rc) goto fail;
    {
        size_t cap = fgl__g_txt_lines(&t);
        src = FGL__G_NEW(int, cap);
        dst = FGL__G_NEW(int, cap);
        if (!src || !dst) goto nomem;
        while ((rc = fgl__g_txt_more(&t)) > 0) {
            int u, v;
            if ((rc = fgl__g_txt_int(&t, &u, "node id")) != 0) goto fail;
            fgl__g_txt_sep(&t);
            if ((rc = fgl__g_txt_int(&t, &v, "node id")) != 0) goto fail;
            if (u < 1 || u > N || v < 1 || v > N) {
                rc = fgl__g_txt_fail(&t, FGL_ERR_RANGE, "node id %d outside 1..%d", (u < 1 || u > N) ? u : v, N);
                goto fail;
            }
            if (gi[u - 1] != gi[v - 1]) {
                rc = fgl__g_txt_fail(&t, FGL_ERR_FORMAT, "edge (%d, %d) joins graph %d and graph %d", u, v,
                                   gi[u - 1], gi[v - 1]);
                goto fail;
            }
            if ((rc = fgl__g_txt_eol(&t)) != 0) goto fail;
            src[m] = u - 1;
            dst[m++] = v - 1;
        }
        if (rc < 0) goto fail;
    }
    rc = fgl_graph_from_edges(N, src, dst, m, FGL_EDGES_SYMMETRIZE | FGL_EDGES_DROP_SELF_LOOPS,
                              &out->adj, err);
    if (rc) goto fail;
    FGL_FREE(src);
    FGL_FREE(dst);
    src = dst = NULL;

    /* optional node labels */
    fgl__g_txt_close(&t);
    rc = fgl__g_txt_open_optional(&t, dir, name, "_node_labels.txt", err);
    if (rc < 0) goto fail;
    if (rc == 1) {
        int cnt;
        rc = fgl__g_read_int_lines(&t, &nl, &cnt, "node label");
        if (rc) goto fail;
        if (cnt != N) {
            t.line = (cnt < N ? cnt : N) + 1;
            rc = fgl__g_txt_fail(&t, FGL_ERR_SHAPE, "%d node labels for %d nodes", cnt, N);
            goto fail;
        }
        rc = fgl_labels_remap(nl, N, NULL, &out->n_node_label_values);
        if (rc) goto nomem;
        out->node_labels = nl;
        nl = NULL;
    }

    /* optional node attributes: the same number of floats on every line */
    fgl__g_txt_close(&t);
    rc = fgl__g_txt_open_optional(&t, dir, name, "_node_attributes.txt", err);
    if (rc < 0) goto fail;
    if (rc == 1) {
        static const fgl__g_rows_words words = {"attribute", "attributes", "line", "attribute lines", "nodes"};
        int w;
        if ((rc = fgl__g_row_width(&t, &words, &w)) != 0) goto fail;
        if (w == 0) {
            rc = fgl__g_txt_fail(&t, FGL_ERR_SHAPE, "no attributes for %d nodes", N);
            goto fail;
        }
        /* a row of w values takes at least 2 w bytes (value, separator) */
        if ((double)N * w * 2.0 > (double)(t.end - t.buf) + 1.0) {
            rc = fgl__g_txt_fail(&t, FGL_ERR_SHAPE, "%d nodes, but the file cannot hold %d rows of %d attributes", N,
                                 N, w);
            goto fail;
        }
        attr = FGL__G_NEW2(float, N, w);
        if (!attr) goto nomem;
        if ((rc = fgl__g_read_rows(&t, attr, N, w, &words)) != 0) goto fail;
        if ((rc = fgl__g_nonzero(t.path, attr, (size_t)N * (size_t)w, N, w, "attribute", err)) != 0) goto fail;
        out->node_attr = attr;
        out->n_node_attr = w;
        attr = NULL;
    }

    fgl__g_txt_close(&t);
    FGL_FREE(gi);
    fgl__g_name_copy(out->name, name);
    out->n_graphs = G;
    out->n_nodes = N;
    fgl_error_clear(err);
    return FGL_OK;
nomem:
    rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", t.path ? t.path : "load_tu");
fail:
    fgl__g_txt_close(&t);
    FGL_FREE(gi);
    FGL_FREE(lab);
    FGL_FREE(src);
    FGL_FREE(dst);
    FGL_FREE(nl);
    FGL_FREE(attr);
    fgl_graph_set_free(out);
    return rc;
}

/* --- node layout loader --------------------------------------------------- */

/* A class label as files give it: -1 (unknown) or 0..FGL_MAX_CLASSES-1. */
static int fgl__g_check_label(fgl__g_txt *t, int v) {
    if (v < -1) return fgl__g_txt_fail(t, FGL_ERR_RANGE, "label %d (labels are 0-based, -1 = unknown)", v);
    if (v >= FGL_MAX_CLASSES)
        return fgl__g_txt_fail(t, FGL_ERR_RANGE, "label %d: at most %d classes (FGL_MAX_CLASSES)", v,
                               FGL_MAX_CLASSES);
    return FGL_OK;
}

/* The classes of labels y (n nodes, line i + 1 of t's file is node i):
 * n_classes = max + 1, so a stray label (99 among 0..6) would make classes
 * no node has. Refused: no node labelled (all -1); more classes 0..max
 * without a node than with one, naming the first line of the label above
 * the widest run of empty classes. A few empty classes are accepted (a
 * client's nodes saved alone may miss some classes; 1-based ids leave
 * class 0 empty): the node layout does not declare its class count, so they
 * cannot be told from data. The cursor's line is left as found. */
static int fgl__g_check_classes(fgl__g_txt *t, const int *y, int n, int *n_classes) {
    int *v, m = 0, i, used = 0, lo = -1, hi = -1, prev = -1, rc = FGL_OK;
    if (!(v = FGL__G_NEW(int, n > 0 ? n : 1))) return fgl_error_set(t->err, FGL_ERR_NOMEM, "%s: out of memory", t->path);
    for (i = 0; i < n; i++)
        if (y[i] >= 0) v[m++] = y[i];
    if (m == 0) {
        FGL_FREE(v);
        return fgl_error_set(t->err, FGL_ERR_EMPTY, "%s: no node is labelled: all %d labels are -1 (unknown)", t->path,
                             n);
    }
    fgl__g_sort_ints(v, (size_t)m);
    for (i = 0; i < m; i++) {
        if (i > 0 && v[i] == v[i - 1]) continue;
        used++;
        if (v[i] - prev - 1 > hi - lo - 1) lo = prev, hi = v[i]; /* the widest run of empty classes so far */
        prev = v[i];
    }
    *n_classes = v[m - 1] + 1;
    FGL_FREE(v);
    if (*n_classes - used > used) {
        int line = t->line;
        char range[64];
        if (lo + 1 == hi - 1) snprintf(range, sizeof range, "class %d", lo + 1);
        else snprintf(range, sizeof range, "classes %d..%d", lo + 1, hi - 1);
        for (i = 0; i < n && y[i] != hi; i++) {}
        t->line = i + 1;
        rc = fgl__g_txt_fail(t, FGL_ERR_RANGE, "label %d: the labels make %d classes but only %d hold a node (none "
                             "has %s): a stray label? (class ids are 0-based; at least half of the classes 0..C-1 "
                             "must hold a node)", hi, *n_classes, used, range);
        t->line = line;
    }
    return rc;
}

/* Labels: one integer per line (fgl__g_check_label), exactly n lines, into
 * y (room for min(n, lines of the file)); fgl__g_check_classes, n_classes =
 * max + 1. */
static int fgl__g_read_labels(fgl__g_txt *t, int n, int *y, int *n_classes) {
    int rc, cnt = 0;
    while ((rc = fgl__g_txt_more(t)) > 0) {
        int v;
        if (cnt >= n) return fgl__g_txt_fail(t, FGL_ERR_SHAPE, "more labels than the %d nodes", n);
        if ((rc = fgl__g_txt_int(t, &v, "label")) != 0) return rc;
        if ((rc = fgl__g_check_label(t, v)) != 0) return rc;
        if ((rc = fgl__g_txt_eol(t)) != 0) return rc;
        y[cnt++] = v;
    }
    if (rc < 0) return rc;
    if (cnt != n) return fgl__g_txt_fail(t, FGL_ERR_SHAPE, "%d labels for %d nodes", cnt, n);
    return fgl__g_check_classes(t, y, n, n_classes);
}

/* Edges "u v" (0-based, < n) -> a symmetric graph without self loops. */
static int fgl__g_read_edges(fgl__g_txt *t, int n, fgl_csr *adj) {
    size_t cap = fgl__g_txt_lines(t);
    int *src = FGL__G_NEW(int, cap), *dst = FGL__G_NEW(int, cap), m = 0, rc;
    if (!src || !dst) {
        rc = fgl_error_set(t->err, FGL_ERR_NOMEM, "%s: out of memory", t->path);
        goto done;
    }
    while ((rc = fgl__g_txt_more(t)) > 0) {
        int u, v;
        if ((rc = fgl__g_txt_int(t, &u, "node id")) != 0) goto done;
        fgl__g_txt_sep(t);
        if ((rc = fgl__g_txt_int(t, &v, "node id")) != 0) goto done;
        if (u < 0 || u >= n || v < 0 || v >= n) {
            rc = fgl__g_txt_fail(t, FGL_ERR_RANGE, "node id %d outside 0..%d", (u < 0 || u >= n) ? u : v, n - 1);
            goto done;
        }
        if ((rc = fgl__g_txt_eol(t)) != 0) goto done;
        src[m] = u;
        dst[m++] = v;
    }
    if (rc < 0) goto done;
    rc = fgl_graph_from_edges(n, src, dst, m, FGL_EDGES_SYMMETRIZE | FGL_EDGES_DROP_SELF_LOOPS, adj,
                              t->err);
done:
    FGL_FREE(src);
    FGL_FREE(dst);
    return rc;
}

/* The header of NAME.features: "n f" (dense rows) or "n f nnz" (sparse
 * triplets; *nnz = -1 for dense). Checked against the caps and the file's
 * own length (n x f values of at least 2 bytes, or nnz triplets of at least
 * 6); nothing is allocated. n is checked against NAME.labels next. */
static int fgl__g_read_features_header(fgl__g_txt *t, int *n_out, int *f_out, int *nnz_out) {
    int n, f, nnz = -1, rc;
    size_t avail = (size_t)(t->end - t->p) + 1;
    if ((rc = fgl__g_txt_more(t)) <= 0)
        return rc < 0 ? rc : fgl__g_txt_fail(t, FGL_ERR_EMPTY, "empty file: no header \"nodes features [nnz]\"");
    if ((rc = fgl__g_txt_int(t, &n, "node count")) != 0) return rc;
    if ((rc = fgl__g_txt_int(t, &f, "feature count")) != 0) return rc;
    if (!fgl__g_txt_at_eol(t) && (rc = fgl__g_txt_int(t, &nnz, "non-zero count")) != 0) return rc;
    if ((rc = fgl__g_txt_eol(t)) != 0) return rc;
    if (n < 0 || f < 0 || nnz < -1)
        return fgl__g_txt_fail(t, FGL_ERR_RANGE, "negative count in the header (%d %d %d)", n, f, nnz);
    if (n == 0 || f == 0)
        return fgl__g_txt_fail(t, FGL_ERR_EMPTY, "empty dataset: %d nodes, %d features", n, f);
    if (f > FGL_MAX_FEATURES)
        return fgl__g_txt_fail(t, FGL_ERR_RANGE, "feature count %d: at most %d (FGL_MAX_FEATURES)", f,
                               FGL_MAX_FEATURES);
    if (nnz < 0 && (double)n * f * 2.0 > (double)avail)
        return fgl__g_txt_fail(t, FGL_ERR_FORMAT, "truncated: the header announces %d x %d values", n, f);
    if (nnz >= 0 && (double)nnz * 6.0 > (double)avail + 1.0)
        return fgl__g_txt_fail(t, FGL_ERR_FORMAT, "truncated: the header announces %d triplets", nnz);
    *n_out = n;
    *f_out = f;
    *nnz_out = nnz;
    return FGL_OK;
}

/* The rows or triplets after the header into d->x or d->x_sparse. */
static int fgl__g_read_features_body(fgl__g_txt *t, int n, int f, int nnz, fgl_node_data *d) {
    int rc, i, j;
    if (nnz < 0) { /* dense: every value is written below, so no zero fill */
        d->x.data = FGL__G_NEW2(float, n, f);
        if (!d->x.data) return fgl_error_set(t->err, FGL_ERR_NOMEM, "%s: out of memory", t->path);
        d->x.rows = n;
        d->x.cols = f;
        d->x.owns = 1;
        for (i = 0; i < n; i++) {
            float *row = d->x.data + (size_t)i * (size_t)f;
            if ((rc = fgl__g_txt_more(t)) <= 0)
                return rc < 0 ? rc : fgl__g_txt_fail(t, FGL_ERR_FORMAT, "truncated: %d of %d rows", i, n);
            for (j = 0; j < f; j++) {
                const char *p = t->p, *q = p;
                int v = 0;
                /* fast path: a small non-negative integer (binary features) */
                while (q < t->end && *q >= '0' && *q <= '9' && q - p < 7) v = v * 10 + (*q++ - '0');
                if (q > p && (q >= t->end || fgl__g_is_delim(*q))) {
                    row[j] = (float)v;
                    while (q < t->end && (*q == ' ' || *q == '\t')) q++;
                    t->p = q;
                    if (q < t->end && (*q == ',' || *q == '\r')) fgl__g_txt_sep(t);
                    continue;
                }
                if (fgl__g_txt_at_eol(t)) {
                    if (t->p >= t->end)
                        return fgl__g_txt_fail(t, FGL_ERR_FORMAT,
                                               "truncated: the file ends after %d of %d values of row %d", j, f, i + 1);
                    return fgl__g_txt_fail(t, FGL_ERR_SHAPE, "row %d has %d values, expected %d", i + 1, j, f);
                }
                if ((rc = fgl__g_txt_float(t, &row[j], "feature value")) != 0) return rc;
                fgl__g_txt_sep(t);
            }
            if (!fgl__g_txt_at_eol(t))
                return fgl__g_txt_fail(t, FGL_ERR_SHAPE, "row %d has more than %d values", i + 1, f);
            if ((rc = fgl__g_txt_eol(t)) != 0) return rc;
        }
        if ((rc = fgl__g_txt_more(t)) != 0)
            return rc < 0 ? rc : fgl__g_txt_fail(t, FGL_ERR_SHAPE, "more rows than the %d of the header", n);
    } else { /* sparse */
        int *r, *c, k = 0;
        float *v;
        r = FGL__G_NEW(int, nnz);
        c = FGL__G_NEW(int, nnz);
        v = FGL__G_NEW(float, nnz);
        if (!r || !c || !v) {
            rc = fgl_error_set(t->err, FGL_ERR_NOMEM, "%s: out of memory", t->path);
            goto sparse_done;
        }
        while ((rc = fgl__g_txt_more(t)) > 0) {
            if (k >= nnz) {
                rc = fgl__g_txt_fail(t, FGL_ERR_SHAPE, "more triplets than the %d of the header", nnz);
                goto sparse_done;
            }
            if ((rc = fgl__g_txt_int(t, &r[k], "node id")) != 0) goto sparse_done;
            fgl__g_txt_sep(t);
            if ((rc = fgl__g_txt_int(t, &c[k], "feature id")) != 0) goto sparse_done;
            fgl__g_txt_sep(t);
            if ((rc = fgl__g_txt_float(t, &v[k], "feature value")) != 0) goto sparse_done;
            if (r[k] < 0 || r[k] >= n) {
                rc = fgl__g_txt_fail(t, FGL_ERR_RANGE, "node id %d outside 0..%d", r[k], n - 1);
                goto sparse_done;
            }
            if (c[k] < 0 || c[k] >= f) {
                rc = fgl__g_txt_fail(t, FGL_ERR_RANGE, "feature id %d outside 0..%d", c[k], f - 1);
                goto sparse_done;
            }
            if ((rc = fgl__g_txt_eol(t)) != 0) goto sparse_done;
            k++;
        }
        if (rc < 0) goto sparse_done;
        if (k != nnz) {
            rc = fgl__g_txt_fail(t, FGL_ERR_FORMAT, "truncated: %d of the %d triplets of the header", k, nnz);
            goto sparse_done;
        }
        rc = fgl_csr_from_coo(n, f, nnz, r, c, v, 1, &d->x_sparse, t->err);
        if (rc) {
            rc = fgl_error_set(t->err, rc, "%s: out of memory", t->path);
            goto sparse_done;
        }
        /* every value was finite, but duplicates are summed: 2 x 3e38 is Inf */
        for (i = 0; i < n && !rc; i++)
            for (k = d->x_sparse.indptr[i]; k < d->x_sparse.indptr[i + 1]; k++)
                if (!fgl_all_finite(1, &d->x_sparse.values[k])) {
                    rc = fgl_error_set(t->err, FGL_ERR_NONFINITE,
                                       "%s: node %d, feature %d: its triplets sum to %g, not a finite float", t->path,
                                       i, d->x_sparse.indices[k], (double)d->x_sparse.values[k]);
                    break;
                }
    sparse_done:
        FGL_FREE(r);
        FGL_FREE(c);
        FGL_FREE(v);
        return rc;
    }
    return FGL_OK;
}

FGLDEF int fgl_load_node(const char *dir, const char *name, fgl_node_data *out, fgl_error *err) {
    /* The features header first (checked against its own file's length),
     * then the labels, whose number must equal the header's node count and
     * whose array is sized by the labels file's lines: the header's counts
     * are trusted for allocation only once two files agree on them. */
    fgl__g_txt tf, t;
    int rc, n = 0, f = 0, nnz = -1;
    memset(out, 0, sizeof *out);
    memset(&t, 0, sizeof t);
    if ((rc = fgl__g_txt_open_in(&tf, dir, name, ".features", err)) != 0 ||
        (rc = fgl__g_read_features_header(&tf, &n, &f, &nnz)) != 0)
        goto fail;
    if ((rc = fgl__g_txt_open_in(&t, dir, name, ".labels", err)) != 0) goto fail;
    {
        size_t lines = fgl__g_txt_lines(&t);
        out->y = FGL__G_NEW(int, lines < (size_t)n ? lines : (size_t)n);
    }
    if (!out->y) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", t.path);
        goto fail;
    }
    if ((rc = fgl__g_read_labels(&t, n, out->y, &out->n_classes)) != 0) goto fail;
    out->n_nodes = n;
    out->n_feat = f;
    if ((rc = fgl__g_read_features_body(&tf, n, f, nnz, out)) != 0) goto fail;
    rc = nnz < 0 ? fgl__g_nonzero(tf.path, out->x.data, (size_t)n * (size_t)f, n, f, "feature", err)
                 : fgl__g_nonzero(tf.path, out->x_sparse.values, (size_t)out->x_sparse.nnz, n, f, "feature", err);
    if (rc) goto fail;
    fgl__g_txt_close(&tf);
    fgl__g_txt_close(&t);
    if ((rc = fgl__g_txt_open_in(&t, dir, name, ".edges", err)) != 0 ||
        (rc = fgl__g_read_edges(&t, n, &out->adj)) != 0)
        goto fail;
    fgl__g_txt_close(&t);
    rc = fgl__g_txt_open_optional(&t, dir, name, ".split", err);
    if (rc < 0) goto fail;
    if (rc == 1) {
        int cnt = 0;
        out->split = FGL__G_NEW(unsigned char, n);
        if (!out->split) {
            rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", t.path);
            goto fail;
        }
        while ((rc = fgl__g_txt_more(&t)) > 0) {
            int v;
            if (cnt >= n) {
                rc = fgl__g_txt_fail(&t, FGL_ERR_SHAPE, "more split codes than the %d nodes", n);
                goto fail;
            }
            if ((rc = fgl__g_txt_int(&t, &v, "split code")) != 0) goto fail;
            if (v < 0 || v > 3) {
                rc = fgl__g_txt_fail(&t, FGL_ERR_RANGE, "split code %d outside 0..3", v);
                goto fail;
            }
            if ((rc = fgl__g_txt_eol(&t)) != 0) goto fail;
            out->split[cnt++] = (unsigned char)(v == 1 ? FGL_SPLIT_TRAIN : v == 2 ? FGL_SPLIT_VAL
                                                : v == 3 ? FGL_SPLIT_TEST : FGL_SPLIT_NONE);
        }
        if (rc < 0) goto fail;
        if (cnt != n) {
            rc = fgl__g_txt_fail(&t, FGL_ERR_SHAPE, "%d split codes for %d nodes", cnt, n);
            goto fail;
        }
    }
    fgl__g_txt_close(&t);
    fgl__g_name_copy(out->name, name);
    fgl_error_clear(err);
    return FGL_OK;
fail:
    fgl__g_txt_close(&tf);
    fgl__g_txt_close(&t);
    fgl_node_data_free(out);
    return rc;
}

/* --- writers -------------------------------------------------------------- */

static void fgl__g_put_int(fgl_bytes *b, long long v) {
    char tmp[24];
    int n = 0, neg = v < 0;
    unsigned long long u = neg ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        tmp[23 - n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (neg) tmp[23 - n++] = '-';
    fgl_bytes_put(b, tmp + 24 - n, (size_t)n);
}

/* Shortest exact text of a float: an integer when it is one, else %.9g. */
static void fgl__g_put_float(fgl_bytes *b, float v) {
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    if (v > -16777216.0f && v < 16777216.0f && v == (float)(int)v && !(bits >> 31 && v == 0)) {
        fgl__g_put_int(b, (long long)v);
    } else {
        char tmp[32];
        int n = snprintf(tmp, sizeof tmp, "%.9g", (double)v);
        if (n > 0) fgl_bytes_put(b, tmp, (size_t)n);
    }
}

static void fgl__g_put_str(fgl_bytes *b, const char *s) { fgl_bytes_put(b, s, strlen(s)); }

/* Write b to dir/name+suffix and reset it. */
static int fgl__g_flush_file(fgl_bytes *b, const char *dir, const char *name, const char *suffix,
                           fgl_error *err) {
    char *path = fgl__g_path(dir, name, suffix);
    int rc;
    if (!path || b->err) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s%s: out of memory", name ? name : "", suffix);
    } else
        rc = fgl_file_write(path, b->data, b->len, err);
    FGL_FREE(path);
    b->len = 0;
    return rc;
}

FGLDEF int fgl_save_node(const fgl_node_data *d, const char *dir, const char *name,
                         fgl_error *err) {
    fgl_bytes b;
    int i, k, j, rc, n = d->n_nodes;
    fgl_bytes_init(&b);
    for (i = 0; i < n; i++)
        for (k = d->adj.indptr[i]; k < d->adj.indptr[i + 1]; k++)
            if (d->adj.indices[k] > i) {
                fgl__g_put_int(&b, i);
                fgl__g_put_str(&b, " ");
                fgl__g_put_int(&b, d->adj.indices[k]);
                fgl__g_put_str(&b, "\n");
            }
    if ((rc = fgl__g_flush_file(&b, dir, name, ".edges", err)) != 0) goto done;
    for (i = 0; i < n; i++) {
        fgl__g_put_int(&b, d->y ? d->y[i] : -1);
        fgl__g_put_str(&b, "\n");
    }
    if ((rc = fgl__g_flush_file(&b, dir, name, ".labels", err)) != 0) goto done;
    fgl__g_put_int(&b, n);
    fgl__g_put_str(&b, " ");
    fgl__g_put_int(&b, d->n_feat);
    if (d->x_sparse.indptr) {
        fgl__g_put_str(&b, " ");
        fgl__g_put_int(&b, d->x_sparse.nnz);
        fgl__g_put_str(&b, "\n");
        for (i = 0; i < d->x_sparse.rows; i++)
            for (k = d->x_sparse.indptr[i]; k < d->x_sparse.indptr[i + 1]; k++) {
                fgl__g_put_int(&b, i);
                fgl__g_put_str(&b, " ");
                fgl__g_put_int(&b, d->x_sparse.indices[k]);
                fgl__g_put_str(&b, " ");
                fgl__g_put_float(&b, d->x_sparse.values ? d->x_sparse.values[k] : 1.0f);
                fgl__g_put_str(&b, "\n");
            }
    } else {
        fgl__g_put_str(&b, "\n");
        for (i = 0; i < d->x.rows; i++) {
            for (j = 0; j < d->x.cols; j++) {
                if (j) fgl__g_put_str(&b, " ");
                fgl__g_put_float(&b, FGL_AT(&d->x, i, j));
            }
            fgl__g_put_str(&b, "\n");
        }
    }
    if ((rc = fgl__g_flush_file(&b, dir, name, ".features", err)) != 0) goto done;
    if (d->split) {
        for (i = 0; i < n; i++) {
            fgl__g_put_int(&b, d->split[i]);
            fgl__g_put_str(&b, "\n");
        }
        if ((rc = fgl__g_flush_file(&b, dir, name, ".split", err)) != 0) goto done;
    }
done:
    fgl_bytes_free(&b);
    return rc;
}

FGLDEF int fgl_save_tu(const fgl_graph_set *s, const char *dir, const char *name, fgl_error *err) {
    fgl_bytes b;
    int i, k, g, rc;
    fgl_bytes_init(&b);
    for (i = 0; i < s->n_nodes; i++)
        for (k = s->adj.indptr[i]; k < s->adj.indptr[i + 1]; k++) {
            fgl__g_put_int(&b, i + 1);
            fgl__g_put_str(&b, ", ");
            fgl__g_put_int(&b, s->adj.indices[k] + 1);
            fgl__g_put_str(&b, "\n");
        }
    if ((rc = fgl__g_flush_file(&b, dir, name, "_A.txt", err)) != 0) goto done;
    for (g = 0; g < s->n_graphs; g++)
        for (i = s->node_ptr[g]; i < s->node_ptr[g + 1]; i++) {
            fgl__g_put_int(&b, g + 1);
            fgl__g_put_str(&b, "\n");
        }
    if ((rc = fgl__g_flush_file(&b, dir, name, "_graph_indicator.txt", err)) != 0) goto done;
    for (g = 0; g < s->n_graphs; g++) {
        fgl__g_put_int(&b, s->y ? s->y[g] : 0);
        fgl__g_put_str(&b, "\n");
    }
    if ((rc = fgl__g_flush_file(&b, dir, name, "_graph_labels.txt", err)) != 0) goto done;
    if (s->node_labels) {
        for (i = 0; i < s->n_nodes; i++) {
            fgl__g_put_int(&b, s->node_labels[i]);
            fgl__g_put_str(&b, "\n");
        }
        if ((rc = fgl__g_flush_file(&b, dir, name, "_node_labels.txt", err)) != 0) goto done;
    }
    if (s->node_attr && s->n_node_attr > 0) {
        for (i = 0; i < s->n_nodes; i++) {
            for (k = 0; k < s->n_node_attr; k++) {
                if (k) fgl__g_put_str(&b, ", ");
                fgl__g_put_float(&b, s->node_attr[(size_t)i * (size_t)s->n_node_attr + (size_t)k]);
            }
            fgl__g_put_str(&b, "\n");
        }
        if ((rc = fgl__g_flush_file(&b, dir, name, "_node_attributes.txt", err)) != 0) goto done;
    }
done:
    fgl_bytes_free(&b);
    return rc;
}

/* --- LINQS loader --------------------------------------------------------- */

typedef struct fgl__g_strref {
    const char *p;
    int len, idx;
} fgl__g_strref;

static int fgl__g_cmp_strref(const void *a, const void *b) {
    const fgl__g_strref *x = (const fgl__g_strref *)a, *y = (const fgl__g_strref *)b;
    int n = x->len < y->len ? x->len : y->len, c = n ? memcmp(x->p, y->p, (size_t)n) : 0;
    if (c) return c;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static uint32_t fgl__g_hash_bytes(const char *p, int len) {
    uint32_t h = 2166136261u;
    int i;
    for (i = 0; i < len; i++) {
        h ^= (unsigned char)p[i];
        h *= 16777619u;
    }
    return h;
}

/* Open-addressing table from string ids to node indices. */
typedef struct fgl__g_idmap {
    int *slot;             /* node index or -1 */
    uint32_t mask;
    const fgl__g_strref *ids;
} fgl__g_idmap;

static int fgl__g_idmap_find(const fgl__g_idmap *m, const char *p, int len, uint32_t *where) {
    uint32_t h = fgl__g_hash_bytes(p, len) & m->mask;
    for (;;) {
        int k = m->slot[h];
        if (k < 0) {
            if (where) *where = h;
            return -1;
        }
        if (m->ids[k].len == len && memcmp(m->ids[k].p, p, (size_t)len) == 0) return k;
        h = (h + 1) & m->mask;
    }
}

/* Tokens left on the current line (does not move the cursor). */
static int fgl__g_count_words(const fgl__g_txt *t) {
    const char *p = t->p;
    int n = 0;
    for (;;) {
        while (p < t->end && fgl__g_is_blank(*p)) p++;
        if (p >= t->end || *p == '\n') return n;
        n++;
        while (p < t->end && !fgl__g_is_blank(*p) && *p != '\n') p++;
    }
}

FGLDEF int fgl_load_linqs(const char *dir, const char *name, fgl_node_data *out, int *n_dropped,
                          fgl_error *err) {
    fgl__g_txt t, tc;
    fgl__g_strref *ids = NULL, *cls = NULL;
    fgl__g_idmap map;
    fgl__g_ivec col = {NULL, 0, 0};
    fgl__g_fvec val = {NULL, 0, 0};
    int *ptr = NULL, *src = NULL, *dst = NULL, *lines = NULL;
    int rc, n = 0, F = -1, ntok = 0, i, m = 0, dropped = 0;
    size_t cap;
    memset(out, 0, sizeof *out);
    memset(&t, 0, sizeof t);
    memset(&tc, 0, sizeof tc);
    memset(&map, 0, sizeof map);
    if (n_dropped) *n_dropped = 0;
    if ((rc = fgl__g_txt_open_in(&tc, dir, name, ".content", err)) != 0) goto fail;
    cap = fgl__g_txt_lines(&tc);
    ids = FGL__G_NEW(fgl__g_strref, cap);
    cls = FGL__G_NEW(fgl__g_strref, cap);
    ptr = FGL__G_NEW(int, cap + 1);
    lines = FGL__G_NEW(int, cap);
    if (!ids || !cls || !ptr || !lines) goto nomem;
    ptr[0] = 0;
    while ((rc = fgl__g_txt_more(&tc)) > 0) {
        int words = fgl__g_count_words(&tc), j;
        if (F < 0) {
            if (words < 3) {
                rc = fgl__g_txt_fail(&tc, FGL_ERR_SHAPE, "%d fields: expected an id, features and a class", words);
                goto fail;
            }
            ntok = words;
            F = words - 2;
        } else if (words != ntok) {
            rc = fgl__g_txt_fail(&tc, FGL_ERR_SHAPE, "%d fields, the first line has %d", words, ntok);
            goto fail;
        }
        if ((rc = fgl__g_txt_word(&tc, &ids[n].p, &ids[n].len, "paper id")) != 0) goto fail;
        ids[n].idx = n;
        lines[n] = tc.line;
        for (j = 0; j < F; j++) {
            float v;
            if ((rc = fgl__g_txt_float(&tc, &v, "feature value")) != 0) goto fail;
            if (v != 0.0f && (fgl__g_ivec_push(&col, j) || fgl__g_fvec_push(&val, v))) goto nomem;
        }
        if ((rc = fgl__g_txt_word(&tc, &cls[n].p, &cls[n].len, "class")) != 0) goto fail;
        cls[n].idx = n;
        if ((rc = fgl__g_txt_eol(&tc)) != 0) goto fail;
        if (col.n > (size_t)INT_MAX) goto nomem;
        ptr[++n] = (int)col.n;
    }
    if (rc < 0) goto fail;
    if (n == 0) {
        rc = fgl__g_txt_fail(&tc, FGL_ERR_EMPTY, "no nodes: the dataset is empty");
        goto fail;
    }
    if (col.n == 0) { /* only non-zero values were kept */
        rc = fgl__g_nonzero(tc.path, NULL, 0, n, F, "feature", err);
        goto fail;
    }
    /* id table; duplicates are an error */
    {
        uint32_t size = 16;
        while (size < (uint32_t)n * 2u) size *= 2;
        map.slot = FGL__G_NEW(int, size);
        if (!map.slot) goto nomem;
        for (i = 0; i < (int)size; i++) map.slot[i] = -1;
        map.mask = size - 1;
        map.ids = ids;
        for (i = 0; i < n; i++) {
            uint32_t where = 0;
            int k = fgl__g_idmap_find(&map, ids[i].p, ids[i].len, &where);
            if (k >= 0) {
                char tok[40];
                fgl__g_tok(ids[i].p, tc.end, tok, sizeof tok);
                tc.line = lines[i];
                rc = fgl__g_txt_fail(&tc, FGL_ERR_FORMAT, "id '%s' already used on line %d", tok, lines[k]);
                goto fail;
            }
            map.slot[where] = i;
        }
    }
    /* classes: ranks of the distinct strings in sorted order */
    out->y = FGL__G_NEW(int, n);
    if (!out->y) goto nomem;
    qsort(cls, (size_t)n, sizeof *cls, fgl__g_cmp_strref);
    for (i = 0; i < n; i++) {
        if (i > 0 && (cls[i].len != cls[i - 1].len || memcmp(cls[i].p, cls[i - 1].p, (size_t)cls[i].len)))
            out->n_classes++;
        out->y[cls[i].idx] = out->n_classes;
    }
    out->n_classes++;
    /* features: rows were read in order, so the CSR is built directly */
    if (fgl_csr_init(&out->x_sparse, n, F, (int)col.n, 1)) goto nomem;
    memcpy(out->x_sparse.indptr, ptr, sizeof(int) * ((size_t)n + 1));
    if (col.n) {
        memcpy(out->x_sparse.indices, col.a, sizeof(int) * col.n);
        memcpy(out->x_sparse.values, val.a, sizeof(float) * val.n);
    }
    out->n_nodes = n;
    out->n_feat = F;
    /* cites */
    if ((rc = fgl__g_txt_open_in(&t, dir, name, ".cites", err)) != 0) goto fail;
    cap = fgl__g_txt_lines(&t);
    src = FGL__G_NEW(int, cap);
    dst = FGL__G_NEW(int, cap);
    if (!src || !dst) goto nomem;
    while ((rc = fgl__g_txt_more(&t)) > 0) {
        const char *a, *b;
        int la, lb, ia, ib;
        if ((rc = fgl__g_txt_word(&t, &a, &la, "cited id")) != 0 ||
            (rc = fgl__g_txt_word(&t, &b, &lb, "citing id")) != 0 || (rc = fgl__g_txt_eol(&t)) != 0)
            goto fail;
        ia = fgl__g_idmap_find(&map, a, la, NULL);
        ib = fgl__g_idmap_find(&map, b, lb, NULL);
        if (ia < 0 || ib < 0) {
            dropped++;
            continue;
        }
        src[m] = ia;
        dst[m++] = ib;
    }
    if (rc < 0) goto fail;
    rc = fgl_graph_from_edges(n, src, dst, m, FGL_EDGES_SYMMETRIZE | FGL_EDGES_DROP_SELF_LOOPS, &out->adj, err);
    if (rc) goto fail;
    fgl__g_name_copy(out->name, name);
    if (n_dropped) *n_dropped = dropped;
    fgl_error_clear(err);
    goto done;
nomem:
    rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory",
                       t.path ? t.path : tc.path ? tc.path : "load_linqs");
fail:
    fgl_node_data_free(out);
done:
    fgl__g_txt_close(&t);
    fgl__g_txt_close(&tc);
    FGL_FREE(ids);
    FGL_FREE(cls);
    FGL_FREE(ptr);
    FGL_FREE(lines);
    FGL_FREE(src);
    FGL_FREE(dst);
    FGL_FREE(col.a);
    FGL_FREE(val.a);
    FGL_FREE(map.slot);
    return rc;
}

/* --- CSV loader ----------------------------------------------------------- */

FGLDEF int fgl_load_csv(const char *edge_path, const char *feat_path, const char *label_path,
                        fgl_node_data *out, fgl_error *err) {
    static const fgl__g_rows_words words = {"feature value", "values", "row", "feature rows", "labels"};
    fgl__g_txt t;
    int rc, n = 0, i, w = 0;
    memset(out, 0, sizeof *out);
    memset(&t, 0, sizeof t);
    if (!edge_path || !feat_path || !label_path)
        return fgl_error_set(err, FGL_ERR_ARG, "load_csv: a path is NULL");
    /* labels: one integer per node */
    if ((rc = fgl__g_txt_open(&t, label_path, err)) != 0) goto fail;
    if ((rc = fgl__g_read_int_lines(&t, &out->y, &n, "label")) != 0) goto fail;
    for (i = 0; i < n; i++) {
        t.line = i + 1;
        if ((rc = fgl__g_check_label(&t, out->y[i])) != 0) goto fail;
    }
    if (n == 0) {
        rc = fgl__g_txt_fail(&t, FGL_ERR_EMPTY, "no labels: the dataset is empty");
        goto fail;
    }
    if ((rc = fgl__g_check_classes(&t, out->y, n, &out->n_classes)) != 0) goto fail;
    out->n_nodes = n;
    fgl__g_txt_close(&t);
    /* features: the first row sets the width */
    if ((rc = fgl__g_txt_open(&t, feat_path, err)) != 0) goto fail;
    if ((rc = fgl__g_row_width(&t, &words, &w)) != 0) goto fail;
    if (w == 0) {
        rc = fgl__g_txt_fail(&t, FGL_ERR_EMPTY, "no features");
        goto fail;
    }
    if ((double)n * w * 2.0 > (double)(t.end - t.buf) + 1.0) {
        rc = fgl__g_txt_fail(&t, FGL_ERR_SHAPE, "%d labels, but the file cannot hold %d rows of %d values", n, n, w);
        goto fail;
    }
    if (fgl_tensor_init(&out->x, n, w)) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", feat_path);
        goto fail;
    }
    if ((rc = fgl__g_read_rows(&t, out->x.data, n, w, &words)) != 0) goto fail;
    if ((rc = fgl__g_nonzero(t.path, out->x.data, (size_t)n * (size_t)w, n, w, "feature", err)) != 0) goto fail;
    out->n_feat = w;
    fgl__g_txt_close(&t);
    /* edges */
    if ((rc = fgl__g_txt_open(&t, edge_path, err)) != 0) goto fail;
    if ((rc = fgl__g_read_edges(&t, n, &out->adj)) != 0) goto fail;
    fgl__g_txt_close(&t);
    fgl_error_clear(err);
    return FGL_OK;
fail:
    fgl__g_txt_close(&t);
    fgl_node_data_free(out);
    return rc;
}

/* --- the data directory -------------------------------------------------------------- */

static int fgl__is_dir(const char *path) {
#if defined(__unix__) || defined(__APPLE__)
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
#else
    char p[1100];
    FILE *f;
    snprintf(p, sizeof p, "%s/.", path); /* a directory opens for reading on POSIX systems */
    if (!(f = fopen(p, "rb"))) return 0;
    fclose(f);
    return 1;
#endif
}

/* The per-user directory ($XDG_DATA_HOME/fgl or $HOME/.local/share/fgl);
 * 0 when neither variable is set. */
static int fgl__user_data_dir(char *buf, size_t cap) {
    const char *x = getenv("XDG_DATA_HOME"), *h = getenv("HOME");
    if (x && *x) snprintf(buf, cap, "%s/fgl", x);
    else if (h && *h) snprintf(buf, cap, "%s/.local/share/fgl", h);
    else return 0;
    return 1;
}

/* Where the rule looks, for messages: "$FGL_DATA is not set; ./data does
 * not exist; /home/me/.local/share/fgl does not exist". */
static void fgl__data_dir_tried(char *buf, size_t cap) {
    const char *e = getenv("FGL_DATA");
    char user[1024];
    user[0] = 0;
    if (e && *e) {
        snprintf(buf, cap, "$FGL_DATA=%s%s", e, fgl__is_dir(e) ? "" : " (does not exist)");
        return;
    }
    if (!fgl__user_data_dir(user, sizeof user)) snprintf(user, sizeof user, "$XDG_DATA_HOME and $HOME are not set");
    else
        snprintf(user + strlen(user), sizeof user - strlen(user), "%s",
                 fgl__is_dir(user) ? " exists" : " does not exist");
    snprintf(buf, cap, "$FGL_DATA is not set; ./data %s; %s", fgl__is_dir("data") ? "exists" : "does not exist", user);
}

FGLDEF int fgl_data_dir(char *buf, size_t cap, fgl_error *err) {
    const char *e = getenv("FGL_DATA");
    char user[1024], tried[2400];
    user[0] = 0;
    if (!buf || cap == 0) return fgl_error_set(err, FGL_ERR_ARG, "data directory: no buffer");
    if (e && *e) snprintf(buf, cap, "%s", e);
    else if (fgl__is_dir("data")) snprintf(buf, cap, "data");
    else if (fgl__user_data_dir(user, sizeof user) && fgl__is_dir(user)) snprintf(buf, cap, "%s", user);
    else {
        snprintf(buf, cap, "data");
        fgl__data_dir_tried(tried, sizeof tried);
        return fgl_error_set(err, FGL_ERR_IO, "no data directory (%s): set FGL_DATA=DIR, or fetch the datasets into "
                             "./data with `make data`", tried);
    }
    return FGL_OK;
}
#include "../alone.h"
