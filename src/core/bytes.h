#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Serialisation helpers                                                    */
/* ------------------------------------------------------------------------ */

/* A growable byte buffer; a failed allocation sets err and later puts are
 * ignored, so callers check once at the end. */
typedef struct fgl_bytes {
    unsigned char *data;
    size_t len, cap;
    int err;
} fgl_bytes;

FGLDEF void fgl_bytes_init(fgl_bytes *b);
FGLDEF void fgl_bytes_free(fgl_bytes *b);
FGLDEF void fgl_bytes_put(fgl_bytes *b, const void *p, size_t n);
FGLDEF void fgl_bytes_put_u32(fgl_bytes *b, uint32_t v);
FGLDEF void fgl_bytes_put_u64(fgl_bytes *b, uint64_t v);
FGLDEF void fgl_bytes_put_f32s(fgl_bytes *b, const float *x, size_t n);
FGLDEF void fgl_bytes_put_str(fgl_bytes *b, const char *s);   /* u32 length + bytes */

/* A bounds-checked cursor over bytes. Reading past the end sets err (and
 * returns zeros); callers check err once. */
typedef struct fgl_reader {
    const unsigned char *data;
    size_t len, pos;
    int err;
} fgl_reader;

FGLDEF fgl_reader fgl_reader_make(const void *data, size_t len);
FGLDEF int fgl_reader_get(fgl_reader *r, void *p, size_t n);
FGLDEF uint32_t fgl_reader_u32(fgl_reader *r);
FGLDEF uint64_t fgl_reader_u64(fgl_reader *r);
FGLDEF int fgl_reader_f32s(fgl_reader *r, float *x, size_t n);
/* Reads a string written by fgl_bytes_put_str into buf (NUL-terminated);
 * a string longer than cap-1 bytes is an error. */
FGLDEF int fgl_reader_str(fgl_reader *r, char *buf, size_t cap);

/* 64-bit FNV-1a checksum. */
FGLDEF uint64_t fgl_checksum64(const void *p, size_t n);
/* Whole-file helpers; the read buffer is released with FGL_FREE. Only
 * regular files are read: a directory, device or pipe is FGL_ERR_IO (told
 * before the file is opened, so a FIFO without a writer does not block).
 * Every file fgl reads whole (these, every dataset loader, checkpoints,
 * parameter files) is bounded: a file longer than fgl_file_max() bytes is
 * FGL_ERR_RANGE, told from its length before anything is read or
 * allocated. */
FGLDEF int fgl_file_read(const char *path, unsigned char **data, size_t *len, fgl_error *err);
/* The bound: the environment variable FGL_MAX_FILE_BYTES when it is set
 * (a positive integer, optionally followed by k, M or G for 2^10, 2^20,
 * 2^30: FGL_MAX_FILE_BYTES=4G), else FGL_MAX_FILE_BYTES as compiled
 * (default 1 GiB; the largest file of the bundled datasets is 21 MB).
 * 0 when the variable is set to something else: the readers then refuse to
 * read and say why. */
#ifndef FGL_MAX_FILE_BYTES
#define FGL_MAX_FILE_BYTES ((size_t)1 << 30)
#endif
FGLDEF size_t fgl_file_max(void);
/* fgl_file_read with the bound max (0: fgl_file_max()). text != 0: the file
 * must be text: a NUL byte is FGL_ERR_FORMAT "PATH:LINE: a NUL byte ...",
 * found as the file is read, a block of 1 MiB at a time (a file of zeros,
 * e.g. a sparse file, fails at its first block, whatever its length). */
FGLDEF int fgl_file_read_bounded(const char *path, size_t max, int text, unsigned char **data, size_t *len,
                                 fgl_error *err);
FGLDEF int fgl_file_write(const char *path, const void *data, size_t len, fgl_error *err);

/* Frame a payload as  magic(4) version(u32) length(u64) payload checksum(u64).
 * fgl_frame_open checks all four and returns a reader over the payload. */
FGLDEF void fgl_frame_begin(fgl_bytes *b, const char magic[4], uint32_t version, size_t *mark);
FGLDEF void fgl_frame_end(fgl_bytes *b, size_t mark);
FGLDEF int fgl_frame_open(const void *data, size_t len, const char magic[4], uint32_t version,
                          fgl_reader *payload, const char *what, fgl_error *err);

/* fgl:implementation */
#include "../alone.h"
/* --- bytes, readers, frames, files ------------------------------------------ */

FGLDEF void fgl_bytes_init(fgl_bytes *b) { memset(b, 0, sizeof *b); }

FGLDEF void fgl_bytes_free(fgl_bytes *b) {
    FGL_FREE(b->data);
    memset(b, 0, sizeof *b);
}

FGLDEF void fgl_bytes_put(fgl_bytes *b, const void *p, size_t n) {
    if (b->err || n == 0) return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        unsigned char *d;
        while (cap < b->len + n) cap *= 2;
        d = (unsigned char *)FGL_REALLOC(b->data, cap);
        if (!d) {
            b->err = FGL_ERR_NOMEM;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

/* Every fgl format is little-endian on every host: the low n bytes of v at
 * dst, and back. */
static void fgl__le_store(unsigned char *dst, uint64_t v, int n) {
    int i;
    for (i = 0; i < n; i++) dst[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t fgl__le_load(const unsigned char *src, int n) {
    uint64_t v = 0;
    int i;
    for (i = 0; i < n; i++) v |= (uint64_t)src[i] << (8 * i);
    return v;
}

FGLDEF void fgl_bytes_put_u32(fgl_bytes *b, uint32_t v) {
    unsigned char x[4];
    fgl__le_store(x, v, 4);
    fgl_bytes_put(b, x, 4);
}

FGLDEF void fgl_bytes_put_u64(fgl_bytes *b, uint64_t v) {
    unsigned char x[8];
    fgl__le_store(x, v, 8);
    fgl_bytes_put(b, x, 8);
}

FGLDEF void fgl_bytes_put_f32s(fgl_bytes *b, const float *x, size_t n) {
    /* Convert in blocks through a small buffer. */
    unsigned char tmp[1024];
    size_t i = 0;
    while (i < n) {
        size_t m = FGL__MIN(n - i, sizeof tmp / 4), j;
        for (j = 0; j < m; j++) {
            uint32_t u;
            memcpy(&u, x + i + j, 4);
            fgl__le_store(tmp + 4 * j, u, 4);
        }
        fgl_bytes_put(b, tmp, 4 * m);
        i += m;
    }
}

FGLDEF void fgl_bytes_put_str(fgl_bytes *b, const char *s) {
    size_t n = strlen(s);
    fgl_bytes_put_u32(b, (uint32_t)n);
    fgl_bytes_put(b, s, n);
}

FGLDEF fgl_reader fgl_reader_make(const void *data, size_t len) {
    fgl_reader r;
    r.data = (const unsigned char *)data;
    r.len = data ? len : 0;
    r.pos = 0;
    r.err = 0;
    return r;
}

FGLDEF int fgl_reader_get(fgl_reader *r, void *p, size_t n) {
    if (r->err || n > r->len - r->pos) {
        r->err = FGL_ERR_FORMAT;
        if (n) memset(p, 0, n);
        return r->err;
    }
    if (n) memcpy(p, r->data + r->pos, n);
    r->pos += n;
    return FGL_OK;
}

FGLDEF uint32_t fgl_reader_u32(fgl_reader *r) {
    unsigned char x[4];
    fgl_reader_get(r, x, 4);
    return (uint32_t)fgl__le_load(x, 4);
}

FGLDEF uint64_t fgl_reader_u64(fgl_reader *r) {
    unsigned char x[8];
    fgl_reader_get(r, x, 8);
    return fgl__le_load(x, 8);
}

FGLDEF int fgl_reader_f32s(fgl_reader *r, float *x, size_t n) {
    size_t i;
    if (r->err || n > (r->len - r->pos) / 4) {
        r->err = FGL_ERR_FORMAT;
        if (n) memset(x, 0, sizeof(float) * n); /* "returns zeros", like every reader call */
        return r->err;
    }
    for (i = 0; i < n; i++) {
        uint32_t u = (uint32_t)fgl__le_load(r->data + r->pos + 4 * i, 4);
        memcpy(x + i, &u, 4);
    }
    r->pos += 4 * n;
    return FGL_OK;
}

FGLDEF int fgl_reader_str(fgl_reader *r, char *buf, size_t cap) {
    uint32_t n = fgl_reader_u32(r);
    if (r->err || (size_t)n >= cap) {
        r->err = FGL_ERR_FORMAT;
        if (cap) buf[0] = 0;
        return r->err;
    }
    fgl_reader_get(r, buf, n);
    buf[r->err ? 0 : n] = 0;
    return r->err;
}

FGLDEF uint64_t fgl_checksum64(const void *p, size_t n) {
    const unsigned char *s = (const unsigned char *)p;
    uint64_t h = 0xCBF29CE484222325ull;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= s[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

FGLDEF size_t fgl_file_max(void) {
    const char *e = getenv("FGL_MAX_FILE_BYTES"), *p;
    unsigned long long v = 0, unit = 1;
    if (!e) return FGL_MAX_FILE_BYTES;
    for (p = e; *p >= '0' && *p <= '9'; p++)
        if ((v = v * 10 + (unsigned long long)(*p - '0')) >= (1ull << 50)) return 0;
    if (p == e) return 0;
    if (*p == 'k' || *p == 'K') unit = 1ull << 10;
    else if (*p == 'm' || *p == 'M') unit = 1ull << 20;
    else if (*p == 'g' || *p == 'G') unit = 1ull << 30;
    if (unit > 1) p++;
    if (*p || v == 0) return 0;
    if (v >= (unsigned long long)((size_t)-1 / 2) / unit) return (size_t)-1 / 2; /* no bound, in effect */
    return (size_t)(v * unit);
}

/* The line (1-based) of byte at in buf. */
static long fgl__line_of(const unsigned char *buf, size_t at) {
    long line = 1;
    size_t i;
    for (i = 0; i < at; i++) line += buf[i] == '\n';
    return line;
}

FGLDEF int fgl_file_read_bounded(const char *path, size_t max, int text, unsigned char **data, size_t *len,
                                 fgl_error *err) {
    FILE *f;
    unsigned char *buf = NULL;
    size_t n = 0, cap = 0, whole = 0, block = (size_t)1 << 20;
    long size;
    *data = NULL;
    *len = 0;
    if (max > (size_t)-1 / 2) max = (size_t)-1 / 2; /* max + 1 below must not wrap */
    if (max == 0 && (max = fgl_file_max()) == 0)
        return fgl_error_set(err, FGL_ERR_ARG, "%s: FGL_MAX_FILE_BYTES='%s' is not a byte count (a positive integer, "
                             "optionally with k, M or G)", path, getenv("FGL_MAX_FILE_BYTES"));
#if defined(__unix__) || defined(__APPLE__)
    { /* A directory opens and "seeks" to LLONG_MAX on Linux; a device or a
       * pipe may never end, and opening a FIFO blocks until a writer comes.
       * Only regular files are read, and only up to the bound. */
        struct stat st;
        int known = stat(path, &st) == 0;
        if (known && !S_ISREG(st.st_mode))
            return fgl_error_set(err, FGL_ERR_IO, "%s: not a regular file (%s)", path,
                                 S_ISDIR(st.st_mode) ? "a directory" : "a device, pipe or socket");
        if (known && st.st_size > 0 && (unsigned long long)st.st_size > (unsigned long long)max)
            return fgl_error_set(err, FGL_ERR_RANGE, "%s: %llu bytes, over the bound of %llu bytes on one file "
                                 "(FGL_MAX_FILE_BYTES; set it higher to read this file)", path,
                                 (unsigned long long)st.st_size, (unsigned long long)max);
    }
#endif
    f = fopen(path, "rb");
    if (!f) return fgl_error_set(err, FGL_ERR_IO, "%s: cannot open for reading", path);
    /* The buffer is sized from the file's length (no copies at every
     * doubling), +1 so reaching the end needs no growth, once its first
     * block has been read and checked: a text file of zeros fails holding
     * 1 MiB, not its length. A length beyond the bound is refused (a
     * directory on a system without stat above reports a huge one). A file
     * that grows while it is read still works, up to the bound: the buffer
     * then doubles. */
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        if ((unsigned long)size > max) {
            fclose(f);
            return fgl_error_set(err, FGL_ERR_RANGE, "%s: %ld bytes, over the bound of %llu bytes on one file "
                                 "(FGL_MAX_FILE_BYTES; set it higher to read this file)", path, size,
                                 (unsigned long long)max);
        }
        whole = (size_t)size + 1;
    } else {
        clearerr(f);
        rewind(f);
    }
    for (;;) { /* blocks of at most 1 MiB, each checked as it comes */
        size_t got, want;
        if (n == cap) {
            size_t nc = whole > cap ? (cap == 0 && whole > block ? block : whole) : cap ? cap * 2 : 65536;
            unsigned char *nb;
            if (n > max) {
                FGL_FREE(buf);
                fclose(f);
                return fgl_error_set(err, FGL_ERR_RANGE, "%s: more than the bound of %llu bytes on one file "
                                     "(FGL_MAX_FILE_BYTES; set it higher to read this file)", path,
                                     (unsigned long long)max);
            }
            if (nc > max + 1) nc = max + 1; /* > n: n <= max here */
            nb = (unsigned char *)FGL_REALLOC(buf, nc);
            if (!nb) {
                FGL_FREE(buf);
                fclose(f);
                return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory reading %llu bytes", path,
                                     (unsigned long long)nc);
            }
            buf = nb;
            cap = nc;
        }
        want = cap - n < block ? cap - n : block;
        got = fread(buf + n, 1, want, f);
        if (text && got) {
            const unsigned char *z = (const unsigned char *)memchr(buf + n, 0, got);
            if (z) {
                size_t at = (size_t)(z - buf);
                long line = fgl__line_of(buf, at);
                FGL_FREE(buf);
                fclose(f);
                return fgl_error_set(err, FGL_ERR_FORMAT, "%s:%ld: a NUL byte (at byte %llu): binary data, "
                                     "not a text file", path, line, (unsigned long long)at);
            }
        }
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        FGL_FREE(buf);
        fclose(f);
        return fgl_error_set(err, FGL_ERR_IO, "%s: read error", path);
    }
    fclose(f);
    if (n > max) {
        FGL_FREE(buf);
        return fgl_error_set(err, FGL_ERR_RANGE, "%s: more than the bound of %llu bytes on one file "
                             "(FGL_MAX_FILE_BYTES; set it higher to read this file)", path, (unsigned long long)max);
    }
    *data = buf;
    *len = n;
    return FGL_OK;
}

FGLDEF int fgl_file_read(const char *path, unsigned char **data, size_t *len, fgl_error *err) {
    return fgl_file_read_bounded(path, 0, 0, data, len, err);
}

FGLDEF int fgl_file_write(const char *path, const void *data, size_t len, fgl_error *err) {
    FILE *f = fopen(path, "wb");
    int ok;
    if (!f) return fgl_error_set(err, FGL_ERR_IO, "%s: cannot open for writing", path);
    ok = len == 0 || fwrite(data, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    return ok ? FGL_OK : fgl_error_set(err, FGL_ERR_IO, "%s: write failed", path);
}

FGLDEF void fgl_frame_begin(fgl_bytes *b, const char magic[4], uint32_t version, size_t *mark) {
    fgl_bytes_put(b, magic, 4);
    fgl_bytes_put_u32(b, version);
    *mark = b->len;
    fgl_bytes_put_u64(b, 0); /* payload length, patched by fgl_frame_end */
}

FGLDEF void fgl_frame_end(fgl_bytes *b, size_t mark) {
    uint64_t n, sum;
    if (b->err) return;
    n = (uint64_t)(b->len - mark - 8);
    fgl__le_store(b->data + mark, n, 8);
    sum = fgl_checksum64(b->data + mark, b->len - mark); /* length field + payload */
    fgl_bytes_put_u64(b, sum);
}

FGLDEF int fgl_frame_open(const void *data, size_t len, const char magic[4], uint32_t version,
                          fgl_reader *payload, const char *what, fgl_error *err) {
    fgl_reader r = fgl_reader_make(data, len);
    char m[4];
    uint32_t ver;
    uint64_t n, sum;
    if (!what) what = "buffer";
    fgl_reader_get(&r, m, 4);
    if (r.err || memcmp(m, magic, 4) != 0)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: not an fgl '%.4s' file (bad magic)", what, magic);
    ver = fgl_reader_u32(&r);
    n = fgl_reader_u64(&r);
    if (r.err) return fgl_error_set(err, FGL_ERR_FORMAT, "%s: truncated header", what);
    if (ver != version)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: format version %u, this build reads %u", what,
                             (unsigned)ver, (unsigned)version);
    if (n > len - r.pos || len - r.pos - (size_t)n < 8)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: truncated (%zu bytes, header says %llu + 8 more)",
                             what, len, (unsigned long long)n);
    if (len - r.pos - (size_t)n != 8)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: %zu trailing bytes after the payload", what,
                             len - r.pos - (size_t)n - 8);
    {
        fgl_reader tail = fgl_reader_make((const unsigned char *)data + r.pos + n, 8);
        sum = fgl_reader_u64(&tail);
    }
    if (sum != fgl_checksum64((const unsigned char *)data + 8, (size_t)n + 8))
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: checksum mismatch (corrupted)", what);
    *payload = fgl_reader_make((const unsigned char *)data + r.pos, (size_t)n);
    return FGL_OK;
}

#include "../alone.h"
