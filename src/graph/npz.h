#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* numpy files: .npy arrays, .npz archives (zip + DEFLATE), and the         */
/* heterophilous-graph datasets of Platonov et al. stored as .npz           */
/* ------------------------------------------------------------------------ */

/* A numpy array (.npy, format versions 1.0 to 3.0) viewing bytes owned
 * elsewhere: bool, signed or unsigned integers of 1, 2, 4 or 8 bytes,
 * float32 or float64, of 0, 1 or 2 dimensions (shape[d] = 1 for d >= ndim),
 * C order, or Fortran order (column-major) when fortran is 1. */
typedef struct fgl_npy {
    char kind;      /* 'b' bool, 'i' signed, 'u' unsigned, 'f' float */
    int size;       /* bytes per element: 1, 2, 4 or 8 */
    int big;        /* big-endian elements */
    int fortran;    /* column-major */
    int ndim;       /* 0, 1 or 2 */
    long long shape[2];
    long long count;
    const unsigned char *data;
} fgl_npy;

/* The array that buf[0..len-1] (a whole .npy file) holds into out (viewing
 * buf). what names the file in messages ("dir/x.npy", "x.npz: edges.npy").
 * A header without descr/fortran_order/shape, an object or string dtype,
 * more than 2 dimensions, or a data length other than shape x itemsize is
 * refused. */
FGLDEF int fgl_npy_parse(const unsigned char *buf, size_t len, const char *what, fgl_npy *out, fgl_error *err);
/* a's kind, size and byte order from a numpy dtype string ('<f4', '|b1',
 * '>i8', ...; len bytes, not NUL-terminated). */
FGLDEF int fgl_npy_dtype(fgl_npy *a, const char *descr, size_t len, const char *what, fgl_error *err);
/* Element k (in storage order) as a double. */
FGLDEF double fgl_npy_f64(const fgl_npy *a, long long k);
/* Element k as an integer; 0 and *bad = 1 for a float that is not an
 * integer, or an unsigned value over LLONG_MAX. */
FGLDEF long long fgl_npy_i64(const fgl_npy *a, long long k, int *bad);
/* The storage index of element (i, j) of a 2-D array. */
FGLDEF long long fgl_npy_at(const fgl_npy *a, long long i, long long j);

/* Raw DEFLATE (RFC 1951: stored, fixed and dynamic Huffman blocks) of
 * src[0..n-1] into dst, which must receive exactly cap bytes: a stream that
 * is truncated, malformed (a bad block type, an over-subscribed or
 * incomplete code, a distance before the start) or that would write more or
 * fewer than cap bytes is FGL_ERR_FORMAT, "what: ..." saying which. */
FGLDEF int fgl_inflate(const unsigned char *src, size_t n, unsigned char *dst, size_t cap, const char *what,
                       fgl_error *err);
/* CRC-32 (ISO-HDLC, as zip and gzip use) of p[0..n-1], continuing from crc
 * (0 to start). */
FGLDEF uint32_t fgl_crc32(uint32_t crc, const void *p, size_t n);

/* A zip archive read whole (fgl_file_read's bound: regular files only, at
 * most fgl_file_max() bytes), its members from the central directory. */
typedef struct fgl_zip_member {
    const char *name;    /* into the archive's bytes, not NUL-terminated */
    int name_len;
    int method;          /* 0 stored, 8 deflated (the only ones accepted) */
    uint32_t crc;
    size_t csize, usize; /* compressed and uncompressed sizes */
    size_t offset;       /* of the member's data in the archive */
} fgl_zip_member;
typedef struct fgl_zip {
    char path[1024];
    unsigned char *file;
    size_t len;
    int n;
    fgl_zip_member *m;
} fgl_zip;

/* Open path: the end of central directory record, then every member's
 * entry and local header, checked against the file's length. Refused
 * (FGL_ERR_UNSUPPORTED, naming the file and the member): zip64, archives
 * split over disks, encrypted members, methods other than stored and
 * deflated; malformed records are FGL_ERR_FORMAT. */
FGLDEF int fgl_zip_open(const char *path, fgl_zip *z, fgl_error *err);
/* The index of member `name`, or -1. */
FGLDEF int fgl_zip_find(const fgl_zip *z, const char *name);
/* Member i uncompressed into a new buffer (*data, *len; FGL_FREE it),
 * its CRC-32 checked. Its size is checked before anything is allocated:
 * at most fgl_file_max(), and no more than DEFLATE can expand its
 * compressed bytes to (1032 to 1). */
FGLDEF int fgl_zip_read(const fgl_zip *z, int i, unsigned char **data, size_t *len, fgl_error *err);
FGLDEF void fgl_zip_close(fgl_zip *z);

/* A node-classification dataset in the .npz layout of Platonov et al.
 * (ICLR 2023, github.com/yandex-research/heterophilous-graphs:
 * chameleon_filtered, squirrel_filtered, actor, tolokers, roman_empire,
 * amazon_ratings, minesweeper, questions, cornell, texas, wisconsin):
 *   node_features  N x F numbers (float32 there): dense features, finite;
 *   node_labels    N integers: 0-based classes (-1: unknown);
 *   edges          E x 2 integers in 0..N-1, each undirected edge once
 *                  (both directions are added; self loops dropped and
 *                  duplicates merged, as every fgl loader does);
 *   train_masks, val_masks, test_masks  S x N (or N) booleans: S fixed
 *                  splits (10 there), a node in at most one of the three
 *                  of a split (none: FGL_SPLIT_NONE), each split with a
 *                  training and a test node; optional, all three or none.
 * out gets the graph, features, labels and the name (the file's name
 * without .npz); out->split stays NULL. splits (may be NULL): a new array
 * of *n_splits x N FGL_SPLIT_* codes, split s at splits + s N (NULL and 0
 * for a file without masks; FGL_FREE it). Every problem is named with the
 * file and the member ("x.npz: edges.npy: edge 17 joins node 890, outside
 * 0..889"); on error nothing is held. */
FGLDEF int fgl_load_npz(const char *path, fgl_node_data *out, unsigned char **splits, int *n_splits,
                        fgl_error *err);

/* fgl:implementation */
#include "../alone.h"
/* --- .npy -------------------------------------------------------------------- */

FGLDEF int fgl_npy_dtype(fgl_npy *a, const char *descr, size_t len, const char *what, fgl_error *err) {
    char buf[16];
    size_t i = 0;
    if (len == 0 || len >= sizeof buf)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: dtype '%.*s'", what, (int)(len < 40 ? len : 40), descr);
    memcpy(buf, descr, len);
    buf[len] = 0;
    a->big = 0;
    if (buf[0] == '<' || buf[0] == '|' || buf[0] == '=') i = 1;
    else if (buf[0] == '>') {
        a->big = 1;
        i = 1;
    }
    a->kind = buf[i];
    a->size = atoi(buf + i + 1);
    if (!strchr("biuf", a->kind) || buf[i] == 0 || !(a->size == 1 || a->size == 2 || a->size == 4 || a->size == 8) ||
        (a->kind == 'f' && a->size < 4) || (a->kind == 'b' && a->size != 1))
        return fgl_error_set(err, FGL_ERR_UNSUPPORTED,
                             "%s: dtype '%s' (fgl reads bool, integer and float32/64 arrays, not objects or strings)",
                             what, buf);
    return FGL_OK;
}

/* Element k's bytes in a 64-bit container, least significant first. */
static uint64_t fgl__npy_bits(const fgl_npy *a, long long k) {
    const unsigned char *b = a->data + (size_t)k * (size_t)a->size;
    uint64_t v = 0;
    int j;
    for (j = 0; j < a->size; j++) v |= (uint64_t)b[a->big ? a->size - 1 - j : j] << (8 * j);
    return v;
}

FGLDEF double fgl_npy_f64(const fgl_npy *a, long long k) {
    uint64_t v = fgl__npy_bits(a, k);
    if (a->kind == 'f') {
        if (a->size == 4) {
            uint32_t u = (uint32_t)v;
            float f;
            memcpy(&f, &u, 4);
            return f;
        } else {
            double d;
            memcpy(&d, &v, 8);
            return d;
        }
    }
    if (a->kind == 'i' && a->size < 8 && (v >> (8 * a->size - 1)) & 1) v |= ~(uint64_t)0 << (8 * a->size);
    if (a->kind == 'i') return (double)(int64_t)v;
    return (double)v;
}

FGLDEF long long fgl_npy_i64(const fgl_npy *a, long long k, int *bad) {
    double d;
    uint64_t v;
    if (a->kind != 'f') {
        v = fgl__npy_bits(a, k);
        if (a->kind == 'i' && a->size < 8 && (v >> (8 * a->size - 1)) & 1) v |= ~(uint64_t)0 << (8 * a->size);
        if (a->kind != 'i' && a->size == 8 && v > (uint64_t)LLONG_MAX) {
            *bad = 1;
            return 0;
        }
        return (long long)(int64_t)v;
    }
    d = fgl_npy_f64(a, k);
    if (!(d >= -9e15 && d <= 9e15) || d != (double)(long long)d) {
        *bad = 1;
        return 0;
    }
    return (long long)d;
}

FGLDEF long long fgl_npy_at(const fgl_npy *a, long long i, long long j) {
    return a->fortran ? j * a->shape[0] + i : i * a->shape[1] + j;
}

/* The value after 'key': in a header dict h[0..n-1], or NULL. */
static const char *fgl__npy_key(const char *h, size_t n, const char *key) {
    size_t k = strlen(key), i;
    for (i = 0; i + k + 2 <= n; i++)
        if ((h[i] == '\'' || h[i] == '"') && !memcmp(h + i + 1, key, k) && h[i + 1 + k] == h[i]) {
            const char *p = h + i + k + 2;
            while (p < h + n && (*p == ' ' || *p == ':')) p++;
            return p;
        }
    return NULL;
}

FGLDEF int fgl_npy_parse(const unsigned char *d, size_t len, const char *what, fgl_npy *out, fgl_error *err) {
    size_t hl, off, need;
    const char *h, *p, *end;
    int rc, i;
    memset(out, 0, sizeof *out);
    if (len < 10 || memcmp(d, "\x93NUMPY", 6) != 0)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: not a .npy file (no \\x93NUMPY magic)", what);
    if (d[6] == 1) {
        hl = (size_t)d[8] | (size_t)d[9] << 8;
        off = 10;
    } else if ((d[6] == 2 || d[6] == 3) && len >= 12) {
        hl = (size_t)d[8] | (size_t)d[9] << 8 | (size_t)d[10] << 16 | (size_t)d[11] << 24;
        off = 12;
    } else {
        return fgl_error_set(err, FGL_ERR_UNSUPPORTED, "%s: .npy format version %d.%d", what, d[6], d[7]);
    }
    if (hl > len - off) return fgl_error_set(err, FGL_ERR_FORMAT, "%s: truncated header", what);
    h = (const char *)d + off;
    end = h + hl;
    if (!(p = fgl__npy_key(h, hl, "descr")) || p >= end || (*p != '\'' && *p != '"'))
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: header without 'descr' (or a structured dtype)", what);
    else {
        const char *q = p + 1 < end ? (const char *)memchr(p + 1, *p, (size_t)(end - p - 1)) : NULL;
        if (!q) return fgl_error_set(err, FGL_ERR_FORMAT, "%s: unterminated 'descr'", what);
        if ((rc = fgl_npy_dtype(out, p + 1, (size_t)(q - p - 1), what, err)) != FGL_OK) return rc;
    }
    if (!(p = fgl__npy_key(h, hl, "fortran_order")))
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: header without 'fortran_order'", what);
    out->fortran = end - p >= 4 && !memcmp(p, "True", 4);
    if (!(p = fgl__npy_key(h, hl, "shape")) || p >= end || *p != '(')
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: header without 'shape'", what);
    out->ndim = 0;
    out->count = 1;
    for (p++; p < end && *p != ')';) {
        long long v = 0;
        const char *e = p;
        while (p < end && (*p == ' ' || *p == ',')) p++;
        if (p >= end || *p == ')') break;
        for (e = p; e < end && *e >= '0' && *e <= '9' && v < (1ll << 50); e++) v = v * 10 + (*e - '0');
        if (e == p || (e < end && *e >= '0' && *e <= '9'))
            return fgl_error_set(err, FGL_ERR_FORMAT, "%s: a bad dimension in 'shape'", what);
        if (out->ndim == 2)
            return fgl_error_set(err, FGL_ERR_UNSUPPORTED, "%s: shape is not 0-, 1- or 2-dimensional", what);
        out->shape[out->ndim++] = v;
        if (v > 0 && out->count > (long long)(len / (size_t)v))
            return fgl_error_set(err, FGL_ERR_FORMAT, "%s: shape larger than the file", what);
        out->count *= v;
        p = e;
    }
    if (p >= end) return fgl_error_set(err, FGL_ERR_FORMAT, "%s: unterminated 'shape'", what);
    for (i = out->ndim; i < 2; i++) out->shape[i] = 1;
    off += hl;
    need = (size_t)out->count * (size_t)out->size;
    if (len - off != need)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: %zu data bytes for %lld elements of %d bytes", what, len - off,
                             out->count, out->size);
    out->data = d + off;
    return FGL_OK;
}

/* --- DEFLATE (RFC 1951) ----------------------------------------------------------- */

typedef struct fgl__infl {
    const unsigned char *src;
    size_t n, pos;
    uint32_t bits;
    int nbits;
    unsigned char *dst;
    size_t cap, out;
    const char *what;
    fgl_error *err;
} fgl__infl;

/* A canonical Huffman code: count[l] codes of length l, symbols sorted by
 * (length, value). fast[] decodes the codes of up to FGL__INFL_FAST bits at
 * once: entry = symbol << 4 | length, 0 for a longer (or unused) code. */
#define FGL__INFL_FAST 9
typedef struct fgl__huff {
    unsigned short count[16];
    unsigned short sym[288];
    unsigned short fast[1 << FGL__INFL_FAST];
} fgl__huff;

static int fgl__infl_fail(fgl__infl *s, const char *why) {
    return fgl_error_set(s->err, FGL_ERR_FORMAT, "%s: corrupt DEFLATE data: %s (at compressed byte %zu)", s->what, why,
                         s->pos);
}

/* Up to 24 bits, least significant first; -1 past the end of the input. */
static int fgl__infl_need(fgl__infl *s, int k) {
    while (s->nbits < k) {
        if (s->pos >= s->n) return -1;
        s->bits |= (uint32_t)s->src[s->pos++] << s->nbits;
        s->nbits += 8;
    }
    return 0;
}

static int fgl__infl_bits(fgl__infl *s, int k, int *v) {
    *v = 0;
    if (fgl__infl_need(s, k)) return fgl__infl_fail(s, "the stream ends early (truncated?)");
    *v = (int)(s->bits & ((1u << k) - 1u));
    s->bits >>= k;
    s->nbits -= k;
    return FGL_OK;
}

/* Builds h from len[0..n-1]; an over-subscribed set of lengths is refused,
 * an incomplete one accepted (its unused codes are refused when met). */
static int fgl__huff_build(fgl__infl *s, fgl__huff *h, const unsigned char *len, int n, const char *which) {
    unsigned short offs[16];
    int l, i, left = 1;
    char why[96];
    memset(h->count, 0, sizeof h->count);
    memset(h->fast, 0, sizeof h->fast);
    for (i = 0; i < n; i++) h->count[len[i]]++;
    for (l = 1; l < 16; l++) {
        left = left * 2 - h->count[l];
        if (left < 0) {
            snprintf(why, sizeof why, "the %s code lengths are over-subscribed", which);
            return fgl__infl_fail(s, why);
        }
    }
    offs[1] = 0;
    for (l = 1; l < 15; l++) offs[l + 1] = (unsigned short)(offs[l] + h->count[l]);
    for (i = 0; i < n; i++)
        if (len[i]) h->sym[offs[len[i]]++] = (unsigned short)i;
    { /* the short codes into the table: code c of length l fills every entry whose low l bits are c reversed */
        int code = 0, k = 0;
        for (l = 1; l <= FGL__INFL_FAST; l++) {
            for (i = 0; i < h->count[l]; i++, code++, k++) {
                int rev = 0, b, e;
                for (b = 0; b < l; b++) rev |= ((code >> b) & 1) << (l - 1 - b);
                for (e = rev; e < (1 << FGL__INFL_FAST); e += 1 << l) h->fast[e] = (unsigned short)(h->sym[k] << 4 | l);
            }
            code <<= 1;
        }
    }
    return FGL_OK;
}

/* The next symbol of code h into *sym. */
static int fgl__huff_decode(fgl__infl *s, const fgl__huff *h, int *sym) {
    int code = 0, first = 0, index = 0, l;
    unsigned e;
    if (fgl__infl_need(s, FGL__INFL_FAST) == 0 || s->nbits > 0) {
        e = h->fast[s->bits & ((1u << FGL__INFL_FAST) - 1u)];
        if (e && (int)(e & 15) <= s->nbits) {
            s->bits >>= e & 15;
            s->nbits -= (int)(e & 15);
            *sym = (int)(e >> 4);
            return FGL_OK;
        }
    }
    for (l = 1; l < 16; l++) { /* bit by bit: codes are stored most significant bit first */
        int b, count = h->count[l];
        if (fgl__infl_bits(s, 1, &b)) return FGL_ERR_FORMAT;
        code |= b;
        if (code - first < count) {
            *sym = h->sym[index + code - first];
            return FGL_OK;
        }
        index += count;
        first = (first + count) << 1;
        code <<= 1;
    }
    return fgl__infl_fail(s, "a Huffman code that the block's table does not define");
}

static const unsigned short fgl__len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                                 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const unsigned char fgl__len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const unsigned short fgl__dist_base[30] = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                                  33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                                  1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const unsigned char fgl__dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                                  6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

static int fgl__infl_codes(fgl__infl *s, const fgl__huff *lit, const fgl__huff *dist) {
    for (;;) {
        int sym = 0, rc, extra = 0, d, len;
        size_t dd;
        if ((rc = fgl__huff_decode(s, lit, &sym))) return rc;
        if (sym < 256) {
            if (s->out >= s->cap) return fgl__infl_fail(s, "more data than the member's declared size");
            s->dst[s->out++] = (unsigned char)sym;
            continue;
        }
        if (sym == 256) return FGL_OK;
        if ((sym -= 257) >= 29) return fgl__infl_fail(s, "a length code over 285");
        if ((rc = fgl__infl_bits(s, fgl__len_extra[sym], &extra))) return rc;
        len = fgl__len_base[sym] + extra;
        if ((rc = fgl__huff_decode(s, dist, &sym))) return rc;
        if (sym >= 30) return fgl__infl_fail(s, "a distance code over 29");
        if ((rc = fgl__infl_bits(s, fgl__dist_extra[sym], &extra))) return rc;
        d = fgl__dist_base[sym] + extra;
        if ((size_t)d > s->out) return fgl__infl_fail(s, "a distance back before the start of the data");
        if ((size_t)len > s->cap - s->out) return fgl__infl_fail(s, "more data than the member's declared size");
        dd = (size_t)d;
        if (dd == 1) { /* a run of one byte */
            memset(s->dst + s->out, s->dst[s->out - 1], (size_t)len);
            s->out += (size_t)len;
        } else if (dd >= (size_t)len) { /* no overlap */
            memcpy(s->dst + s->out, s->dst + s->out - dd, (size_t)len);
            s->out += (size_t)len;
        } else {
            for (; len > 0; len--, s->out++) s->dst[s->out] = s->dst[s->out - dd];
        }
    }
}

static int fgl__infl_dynamic(fgl__infl *s, fgl__huff *lit, fgl__huff *dist) {
    static const unsigned char order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    unsigned char len[286 + 30];
    int nlen = 0, ndist = 0, ncode = 0, i, rc, v = 0;
    fgl__huff cl;
    if ((rc = fgl__infl_bits(s, 5, &nlen)) || (rc = fgl__infl_bits(s, 5, &ndist)) ||
        (rc = fgl__infl_bits(s, 4, &ncode)))
        return rc;
    nlen += 257;
    ndist += 1;
    ncode += 4;
    if (nlen > 286 || ndist > 30) return fgl__infl_fail(s, "a dynamic block with more than 286/30 codes");
    memset(len, 0, sizeof len);
    for (i = 0; i < ncode; i++) {
        if ((rc = fgl__infl_bits(s, 3, &v))) return rc;
        len[order[i]] = (unsigned char)v;
    }
    if ((rc = fgl__huff_build(s, &cl, len, 19, "code-length"))) return rc;
    for (i = 0; i < nlen + ndist;) {
        int sym, rep, val = 0;
        if ((rc = fgl__huff_decode(s, &cl, &sym))) return rc;
        if (sym < 16) {
            len[i++] = (unsigned char)sym;
            continue;
        }
        if (sym == 16) {
            if (i == 0) return fgl__infl_fail(s, "a repeat of the previous length with none before it");
            val = len[i - 1];
            if ((rc = fgl__infl_bits(s, 2, &rep))) return rc;
            rep += 3;
        } else if (sym == 17) {
            if ((rc = fgl__infl_bits(s, 3, &rep))) return rc;
            rep += 3;
        } else {
            if ((rc = fgl__infl_bits(s, 7, &rep))) return rc;
            rep += 11;
        }
        if (i + rep > nlen + ndist) return fgl__infl_fail(s, "code lengths repeated past the end of the table");
        while (rep-- > 0) len[i++] = (unsigned char)val;
    }
    if (len[256] == 0) return fgl__infl_fail(s, "a dynamic block without an end-of-block code");
    if ((rc = fgl__huff_build(s, lit, len, nlen, "literal/length"))) return rc;
    return fgl__huff_build(s, dist, len + nlen, ndist, "distance");
}

FGLDEF int fgl_inflate(const unsigned char *src, size_t n, unsigned char *dst, size_t cap, const char *what,
                       fgl_error *err) {
    fgl__infl s;
    fgl__huff *lit = (fgl__huff *)FGL_MALLOC(2 * sizeof(fgl__huff)), *dist;
    int last = 0, type = 0, rc = FGL_OK;
    if (!lit) return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", what);
    dist = lit + 1;
    memset(&s, 0, sizeof s);
    s.src = src;
    s.n = n;
    s.dst = dst;
    s.cap = cap;
    s.what = what;
    s.err = err;
    while (!last && !rc) {
        if ((rc = fgl__infl_bits(&s, 1, &last)) || (rc = fgl__infl_bits(&s, 2, &type))) break;
        if (type == 0) { /* stored: LEN, NLEN from the next byte boundary */
            size_t k;
            /* to the byte boundary; whole bytes that the bit buffer read ahead go back to the input */
            s.pos -= (size_t)(s.nbits / 8);
            s.bits = 0;
            s.nbits = 0;
            if (s.n - s.pos < 4) {
                rc = fgl__infl_fail(&s, "the stream ends early (truncated?)");
                break;
            }
            k = (size_t)s.src[s.pos] | (size_t)s.src[s.pos + 1] << 8;
            if ((k ^ 0xffffu) != ((size_t)s.src[s.pos + 2] | (size_t)s.src[s.pos + 3] << 8)) {
                rc = fgl__infl_fail(&s, "a stored block whose length and its complement disagree");
                break;
            }
            s.pos += 4;
            if (k > s.n - s.pos) {
                rc = fgl__infl_fail(&s, "the stream ends early (truncated?)");
                break;
            }
            if (k > s.cap - s.out) {
                rc = fgl__infl_fail(&s, "more data than the member's declared size");
                break;
            }
            memcpy(s.dst + s.out, s.src + s.pos, k);
            s.out += k;
            s.pos += k;
        } else if (type == 1) { /* fixed codes (RFC 1951, 3.2.6) */
            unsigned char len[288 + 30];
            int i;
            for (i = 0; i < 288; i++) len[i] = (unsigned char)(i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8);
            for (i = 0; i < 30; i++) len[288 + i] = 5;
            if (!(rc = fgl__huff_build(&s, lit, len, 288, "fixed")) && !(rc = fgl__huff_build(&s, dist, len + 288, 30, "fixed")))
                rc = fgl__infl_codes(&s, lit, dist);
        } else if (type == 2) {
            if (!(rc = fgl__infl_dynamic(&s, lit, dist))) rc = fgl__infl_codes(&s, lit, dist);
        } else {
            rc = fgl__infl_fail(&s, "block type 3 (reserved)");
        }
    }
    FGL_FREE(lit);
    if (!rc && s.out != cap)
        rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: corrupt DEFLATE data: %zu bytes where the member declares %zu",
                           what, s.out, cap);
    return rc;
}

FGLDEF uint32_t fgl_crc32(uint32_t crc, const void *p, size_t n) {
    static uint32_t table[256];
    static int ready = 0;
    const unsigned char *b = (const unsigned char *)p;
    size_t i;
    if (!ready) { /* (racing threads write the same values) */
        uint32_t k, c;
        int j;
        for (k = 0; k < 256; k++) {
            for (c = k, j = 0; j < 8; j++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
            table[k] = c;
        }
        ready = 1;
    }
    crc = ~crc;
    for (i = 0; i < n; i++) crc = table[(crc ^ b[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

/* --- zip ------------------------------------------------------------------------ */

static uint32_t fgl__zip_u16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t fgl__zip_u32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

FGLDEF void fgl_zip_close(fgl_zip *z) {
    FGL_FREE(z->file);
    FGL_FREE(z->m);
    memset(z, 0, sizeof *z);
}

FGLDEF int fgl_zip_open(const char *path, fgl_zip *z, fgl_error *err) {
    const unsigned char *d, *e = NULL, *p;
    size_t len, i, cd_off, cd_size, lo;
    int n, k, rc;
    memset(z, 0, sizeof *z);
    snprintf(z->path, sizeof z->path, "%s", path);
    if ((rc = fgl_file_read_bounded(path, 0, 0, &z->file, &z->len, err))) return rc;
    d = z->file;
    len = z->len;
    if (len < 22 || memcmp(d, "PK", 2) != 0) {
        fgl_zip_close(z);
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: not a zip archive (an .npz is one)%s", path,
                             len < 22 ? ": shorter than its end record" : ": no PK signature");
    }
    lo = len > 22 + 65535 ? len - 22 - 65535 : 0;
    for (i = len - 22 + 1; i-- > lo;) /* the end of central directory record, with its comment reaching the end */
        if (!memcmp(d + i, "PK\5\6", 4) && i + 22 + fgl__zip_u16(d + i + 20) == len) {
            e = d + i;
            break;
        }
    if (!e) {
        fgl_zip_close(z);
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: no end of central directory record (truncated?)", path);
    }
    if ((size_t)(e - d) >= 20 && !memcmp(e - 20, "PK\6\7", 4)) {
        fgl_zip_close(z);
        return fgl_error_set(err, FGL_ERR_UNSUPPORTED, "%s: a zip64 archive (fgl reads archives under 4 GiB without "
                             "zip64 records)", path);
    }
    if (fgl__zip_u16(e + 4) || fgl__zip_u16(e + 6) || fgl__zip_u16(e + 8) != fgl__zip_u16(e + 10)) {
        fgl_zip_close(z);
        return fgl_error_set(err, FGL_ERR_UNSUPPORTED, "%s: an archive split over several disks", path);
    }
    n = (int)fgl__zip_u16(e + 10);
    cd_size = fgl__zip_u32(e + 12);
    cd_off = fgl__zip_u32(e + 16);
    if (cd_off > (size_t)(e - d) || cd_size > (size_t)(e - d) - cd_off || (size_t)n * 46 > cd_size) {
        fgl_zip_close(z);
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: the central directory (%d entries, %zu bytes at %zu) does not "
                             "fit before its end record (truncated or corrupt)", path, n, cd_size, cd_off);
    }
    if (!(z->m = (fgl_zip_member *)FGL_MALLOC(sizeof(fgl_zip_member) * (size_t)(n > 0 ? n : 1)))) {
        fgl_zip_close(z);
        return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", path);
    }
    for (p = d + cd_off, k = 0; k < n; k++) {
        fgl_zip_member *m = &z->m[k];
        size_t nl, xl, cl, rest = (size_t)(d + cd_off + cd_size - p), loc, lnl, lxl;
        uint32_t flags;
        if (rest < 46 || memcmp(p, "PK\1\2", 4) != 0) {
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: central directory entry %d is malformed", path, k + 1);
            goto fail;
        }
        nl = fgl__zip_u16(p + 28);
        xl = fgl__zip_u16(p + 30);
        cl = fgl__zip_u16(p + 32);
        if (46 + nl + xl + cl > rest) {
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: central directory entry %d runs past the directory", path,
                               k + 1);
            goto fail;
        }
        m->name = (const char *)p + 46;
        m->name_len = (int)nl;
        flags = fgl__zip_u16(p + 8);
        m->method = (int)fgl__zip_u16(p + 10);
        m->crc = fgl__zip_u32(p + 16);
        m->csize = fgl__zip_u32(p + 20);
        m->usize = fgl__zip_u32(p + 24);
        loc = fgl__zip_u32(p + 42);
        if (flags & 0x41u) {
            rc = fgl_error_set(err, FGL_ERR_UNSUPPORTED, "%s: member %.*s is encrypted", path, (int)nl, m->name);
            goto fail;
        }
        if (m->csize == 0xffffffffu || m->usize == 0xffffffffu || loc == 0xffffffffu) {
            rc = fgl_error_set(err, FGL_ERR_UNSUPPORTED, "%s: member %.*s needs zip64 (4 GiB or more): not read by fgl",
                               path, (int)nl, m->name);
            goto fail;
        }
        if (m->method != 0 && m->method != 8) {
            rc = fgl_error_set(err, FGL_ERR_UNSUPPORTED, "%s: member %.*s is compressed with method %d (fgl reads "
                               "stored (0) and deflated (8) members)", path, (int)nl, m->name, m->method);
            goto fail;
        }
        if (loc > cd_off || cd_off - loc < 30 || memcmp(d + loc, "PK\3\4", 4) != 0) {
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: member %.*s: no local header at offset %zu", path, (int)nl,
                               m->name, loc);
            goto fail;
        }
        lnl = fgl__zip_u16(d + loc + 26);
        lxl = fgl__zip_u16(d + loc + 28);
        if (lnl != nl || memcmp(d + loc + 30, m->name, nl < cd_off - loc - 30 ? nl : cd_off - loc - 30) != 0 ||
            30 + lnl + lxl > cd_off - loc) {
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: member %.*s: its local header disagrees with the central "
                               "directory", path, (int)nl, m->name);
            goto fail;
        }
        m->offset = loc + 30 + lnl + lxl;
        if (m->csize > cd_off - m->offset) {
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: member %.*s: %zu compressed bytes run past the members "
                               "(truncated?)", path, (int)nl, m->name, m->csize);
            goto fail;
        }
        p += 46 + nl + xl + cl;
    }
    z->n = n;
    return FGL_OK;
fail:
    fgl_zip_close(z);
    return rc;
}

FGLDEF int fgl_zip_find(const fgl_zip *z, const char *name) {
    size_t l = strlen(name);
    int i;
    for (i = 0; i < z->n; i++)
        if ((size_t)z->m[i].name_len == l && !memcmp(z->m[i].name, name, l)) return i;
    return -1;
}

FGLDEF int fgl_zip_read(const fgl_zip *z, int i, unsigned char **data, size_t *len, fgl_error *err) {
    const fgl_zip_member *m = &z->m[i];
    char what[1400];
    unsigned char *buf;
    size_t max = fgl_file_max();
    int rc = FGL_OK;
    *data = NULL;
    *len = 0;
    snprintf(what, sizeof what, "%s: member %.*s", z->path, m->name_len, m->name);
    if (m->method == 0 && m->csize != m->usize)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: stored with %zu bytes but declares %zu", what, m->csize,
                             m->usize);
    if (m->usize > max)
        return fgl_error_set(err, FGL_ERR_RANGE, "%s: %zu bytes uncompressed, over the bound of %zu bytes on one file "
                             "(FGL_MAX_FILE_BYTES)", what, m->usize, max);
    if (m->method == 8 && m->usize / 1032 > m->csize)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: declares %zu bytes from %zu compressed ones, more than DEFLATE "
                             "can expand to (corrupt)", what, m->usize, m->csize);
    if (!(buf = (unsigned char *)FGL_MALLOC(m->usize ? m->usize : 1)))
        return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory (%zu bytes)", what, m->usize);
    if (m->method == 0) memcpy(buf, z->file + m->offset, m->usize);
    else rc = fgl_inflate(z->file + m->offset, m->csize, buf, m->usize, what, err);
    if (!rc && fgl_crc32(0, buf, m->usize) != m->crc)
        rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: CRC-32 %08lx, the archive records %08lx (corrupt)", what,
                           (unsigned long)fgl_crc32(0, buf, m->usize), (unsigned long)m->crc);
    if (rc) {
        FGL_FREE(buf);
        return rc;
    }
    *data = buf;
    *len = m->usize;
    return FGL_OK;
}

/* --- the heterophilous-graph .npz datasets ----------------------------------------- */

/* Member name+".npy" of z, read and parsed into *a (the bytes in *buf);
 * 0 if absent and !required. */
static int fgl__npz_member(const fgl_zip *z, const char *name, int required, unsigned char **buf, fgl_npy *a,
                           char *what, size_t what_cap, fgl_error *err) {
    char member[64];
    size_t len;
    int i, rc;
    snprintf(member, sizeof member, "%s.npy", name);
    snprintf(what, what_cap, "%s: %s", z->path, member);
    *buf = NULL;
    if ((i = fgl_zip_find(z, member)) < 0) {
        if (!required) return 0;
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: no member %s (the heterophilous-graph layout has node_features, "
                             "node_labels, edges and train/val/test_masks)", z->path, member);
    }
    if ((rc = fgl_zip_read(z, i, buf, &len, err))) return rc;
    if ((rc = fgl_npy_parse(*buf, len, what, a, err))) {
        FGL_FREE(*buf);
        *buf = NULL;
        return rc;
    }
    return 1;
}

/* The masks into splits (s x n codes); codes already written stay. */
static int fgl__npz_masks(const fgl_zip *z, int n, unsigned char **splits, int *n_splits, fgl_error *err) {
    static const char *names[3] = {"train_masks", "val_masks", "test_masks"};
    static const unsigned char codes[3] = {FGL_SPLIT_TRAIN, FGL_SPLIT_VAL, FGL_SPLIT_TEST};
    unsigned char *buf[3] = {NULL, NULL, NULL}, *out = NULL;
    fgl_npy a[3];
    char what[3][1200];
    int have[3], k, rc = FGL_OK, S = 0;
    long long s, i;
    for (k = 0; k < 3; k++)
        if ((have[k] = fgl__npz_member(z, names[k], 0, &buf[k], &a[k], what[k], sizeof what[k], err)) < 0) {
            rc = have[k];
            goto done;
        }
    if (have[0] + have[1] + have[2] == 1 || have[0] + have[1] + have[2] == 2) {
        for (k = 0; have[k]; k++) {
        }
        rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: has %d of the three masks but not %s.npy: the fixed splits need "
                           "train_masks, val_masks and test_masks, or none", z->path, have[0] + have[1] + have[2],
                           names[k]);
        goto done;
    }
    if (!have[0]) goto done; /* no fixed splits */
    for (k = 0; k < 3; k++) {
        long long rows = a[k].ndim == 2 ? a[k].shape[0] : 1, cols = a[k].ndim == 2 ? a[k].shape[1] : a[k].shape[0];
        if (a[k].ndim == 0 || cols != n || rows < 1 || rows > 1000) {
            rc = fgl_error_set(err, FGL_ERR_SHAPE, "%s: shape (%lld, %lld) of %d dimensions: expected (splits, %d), 1 "
                               "to 1000 splits, or (%d,) for the %d nodes", what[k], a[k].shape[0], a[k].shape[1],
                               a[k].ndim, n, n, n);
            goto done;
        }
        if (a[k].ndim == 1) a[k].shape[1] = a[k].shape[0], a[k].shape[0] = 1, a[k].ndim = 2;
        if (k > 0 && rows != S) {
            rc = fgl_error_set(err, FGL_ERR_SHAPE, "%s: %lld splits, %s.npy has %d", what[k], rows, names[0], S);
            goto done;
        }
        S = (int)rows;
        if (a[k].kind == 'f') {
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: float masks (expected booleans)", what[k]);
            goto done;
        }
    }
    if (!(out = FGL__G_NEW2(unsigned char, S, n))) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", z->path);
        goto done;
    }
    memset(out, FGL_SPLIT_NONE, (size_t)S * (size_t)n);
    for (s = 0; s < S && !rc; s++) {
        int count[3] = {0, 0, 0};
        for (k = 0; k < 3 && !rc; k++)
            for (i = 0; i < n; i++) {
                int bad = 0;
                long long v = fgl_npy_i64(&a[k], fgl_npy_at(&a[k], s, i), &bad);
                if (v == 0) continue;
                if (v != 1) {
                    rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: split %lld, node %lld: %lld, not a boolean", what[k], s,
                                       i, v);
                    break;
                }
                if (out[s * n + i] != FGL_SPLIT_NONE) {
                    rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: split %lld, node %lld is in %s.npy too: the masks of "
                                       "a split must not overlap", what[k], s, i,
                                       names[out[s * n + i] == FGL_SPLIT_TRAIN ? 0 : 1]);
                    break;
                }
                out[s * n + i] = codes[k];
                count[k]++;
            }
        if (!rc && (count[0] == 0 || count[2] == 0))
            rc = fgl_error_set(err, FGL_ERR_EMPTY, "%s: split %lld has %d training and %d test nodes (a split needs "
                               "both)", z->path, s, count[0], count[2]);
    }
done:
    for (k = 0; k < 3; k++) FGL_FREE(buf[k]);
    if (rc) {
        FGL_FREE(out);
        return rc;
    }
    *splits = out;
    *n_splits = out ? S : 0;
    return FGL_OK;
}

FGLDEF int fgl_load_npz(const char *path, fgl_node_data *out, unsigned char **splits, int *n_splits,
                        fgl_error *err) {
    fgl_zip z;
    fgl_npy a;
    unsigned char *buf = NULL, *sp = NULL;
    char what[1200];
    int rc, n = 0, f, m = 0, *src = NULL, *dst = NULL, used = 0, i, ns = 0;
    long long k;
    memset(out, 0, sizeof *out);
    if (splits) *splits = NULL;
    if (n_splits) *n_splits = 0;
    if ((rc = fgl_zip_open(path, &z, err))) return rc;
    /* labels: N, the classes */
    if ((rc = fgl__npz_member(&z, "node_labels", 1, &buf, &a, what, sizeof what, err)) < 0) goto fail;
    if (a.ndim != 1 || a.shape[0] < 1 || a.shape[0] > INT_MAX / 2) {
        rc = fgl_error_set(err, FGL_ERR_SHAPE, "%s: shape (%lld, %lld) of %d dimensions: expected (nodes,)", what,
                           a.shape[0], a.shape[1], a.ndim);
        goto fail;
    }
    n = (int)a.shape[0];
    if (!(out->y = FGL__G_NEW(int, n))) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", what);
        goto fail;
    }
    {
        int maxy = -1, *hit;
        for (k = 0; k < n; k++) {
            int bad = 0;
            long long v = fgl_npy_i64(&a, k, &bad);
            if (bad || v < -1 || v >= FGL_MAX_CLASSES) {
                rc = fgl_error_set(err, FGL_ERR_RANGE, "%s: node %lld: label %.17g (labels are 0-based classes under %d, "
                                   "-1 = unknown)", what, k, fgl_npy_f64(&a, k), FGL_MAX_CLASSES);
                goto fail;
            }
            out->y[k] = (int)v;
            if (v > maxy) maxy = (int)v;
        }
        if (maxy < 0) {
            rc = fgl_error_set(err, FGL_ERR_EMPTY, "%s: no node is labelled: all %d labels are -1", what, n);
            goto fail;
        }
        if (!(hit = FGL__G_NEW(int, maxy + 1))) {
            rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", what);
            goto fail;
        }
        memset(hit, 0, sizeof(int) * (size_t)(maxy + 1));
        for (i = 0; i < n; i++)
            if (out->y[i] >= 0) used += !hit[out->y[i]]++;
        FGL_FREE(hit);
        out->n_classes = maxy + 1;
        if (out->n_classes - used > used) {
            for (i = 0; i < n && out->y[i] != maxy; i++) {
            }
            rc = fgl_error_set(err, FGL_ERR_RANGE, "%s: node %d: label %d: the labels make %d classes but only %d hold "
                               "a node: a stray label?", what, i, maxy, out->n_classes, used);
            goto fail;
        }
    }
    FGL_FREE(buf);
    buf = NULL;
    /* features: N x F, finite, not all 0 */
    if ((rc = fgl__npz_member(&z, "node_features", 1, &buf, &a, what, sizeof what, err)) < 0) goto fail;
    if (a.ndim != 2 || a.shape[0] != n || a.shape[1] < 1 || a.shape[1] > FGL_MAX_FEATURES) {
        rc = fgl_error_set(err, FGL_ERR_SHAPE, "%s: shape (%lld, %lld) of %d dimensions: expected (%d, features) for "
                           "the %d labels, 1 to %d features", what, a.shape[0], a.shape[1], a.ndim, n, n,
                           FGL_MAX_FEATURES);
        goto fail;
    }
    f = (int)a.shape[1];
    if (!(out->x.data = FGL__G_NEW2(float, n, f))) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory (%d x %d floats)", what, n, f);
        goto fail;
    }
    out->x.rows = n;
    out->x.cols = f;
    out->x.owns = 1;
    out->n_nodes = n;
    out->n_feat = f;
    for (i = 0; i < n; i++) {
        int j;
        float *row = out->x.data + (size_t)i * (size_t)f;
        if (a.kind == 'f' && a.size == 4 && !a.big && !a.fortran) { /* float32 as stored: copy the row */
            memcpy(row, a.data + (size_t)i * (size_t)f * 4, (size_t)f * 4);
        } else {
            for (j = 0; j < f; j++) row[j] = (float)fgl_npy_f64(&a, fgl_npy_at(&a, i, j));
        }
        if (!fgl_all_finite((size_t)f, row))
            for (j = 0; j < f; j++)
                if (!fgl_all_finite(1, &row[j])) {
                    rc = fgl_error_set(err, FGL_ERR_NONFINITE, "%s: node %d, feature %d: %g, not a finite float32",
                                       what, i, j, fgl_npy_f64(&a, fgl_npy_at(&a, i, j)));
                    goto fail;
                }
    }
    if ((rc = fgl__g_nonzero(what, out->x.data, (size_t)n * (size_t)f, n, f, "feature", err))) goto fail;
    FGL_FREE(buf);
    buf = NULL;
    /* edges: E x 2 in 0..N-1, both directions */
    if ((rc = fgl__npz_member(&z, "edges", 1, &buf, &a, what, sizeof what, err)) < 0) goto fail;
    if (a.ndim != 2 || a.shape[1] != 2 || a.shape[0] > INT_MAX / 2) {
        rc = fgl_error_set(err, FGL_ERR_SHAPE, "%s: shape (%lld, %lld) of %d dimensions: expected (edges, 2)%s", what,
                           a.shape[0], a.shape[1], a.ndim, a.ndim == 2 && a.shape[0] == 2 ? " (this one is transposed)"
                                                                                      : "");
        goto fail;
    }
    m = (int)a.shape[0];
    src = FGL__G_NEW(int, m > 0 ? m : 1);
    dst = FGL__G_NEW(int, m > 0 ? m : 1);
    if (!src || !dst) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", what);
        goto fail;
    }
    for (k = 0; k < m; k++) {
        int bad = 0, c;
        for (c = 0; c < 2; c++) {
            long long v = fgl_npy_i64(&a, fgl_npy_at(&a, k, c), &bad);
            if (bad || v < 0 || v >= n) {
                rc = fgl_error_set(err, FGL_ERR_RANGE, "%s: edge %lld joins node %.17g, outside 0..%d", what, k,
                                   fgl_npy_f64(&a, fgl_npy_at(&a, k, c)), n - 1);
                goto fail;
            }
            (c ? dst : src)[k] = (int)v;
        }
    }
    FGL_FREE(buf);
    buf = NULL;
    if ((rc = fgl_graph_from_edges(n, src, dst, m, FGL_EDGES_SYMMETRIZE | FGL_EDGES_DROP_SELF_LOOPS, &out->adj, err)))
        goto fail;
    FGL_FREE(src);
    FGL_FREE(dst);
    src = dst = NULL;
    /* the fixed splits */
    if ((rc = fgl__npz_masks(&z, n, &sp, &ns, err))) goto fail;
    {
        const char *base = strrchr(path, '/');
        size_t l;
        base = base ? base + 1 : path;
        l = strlen(base);
        if (l > 4 && !strcmp(base + l - 4, ".npz")) l -= 4;
        if (l >= FGL_NAME_LEN) l = FGL_NAME_LEN - 1;
        memcpy(out->name, base, l);
        out->name[l] = 0;
    }
    fgl_zip_close(&z);
    if (splits) *splits = sp;
    else FGL_FREE(sp);
    if (n_splits) *n_splits = ns;
    fgl_error_clear(err);
    return FGL_OK;
fail:
    FGL_FREE(buf);
    FGL_FREE(src);
    FGL_FREE(dst);
    fgl_zip_close(&z);
    fgl_node_data_free(out);
    return rc;
}
#include "../alone.h"
