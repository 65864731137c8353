/* fglrun/json.c - part of examples/fglrun.c (included by it): a growable string, JSON writing and a small JSON reader. */
#include "fglrun.h"

/* --- a growable string (sbuf: fglrun/fglrun.h) --- */

FGLRUN_SHARED void sb_putn(sbuf *b, const char *s, size_t n) {
    if (b->oom) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        char *p;
        while (cap < b->len + n + 1) cap *= 2;
        if (!(p = (char *)realloc(b->s, cap))) {
            b->oom = 1;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

FGLRUN_SHARED void sb_puts(sbuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

FGLRUN_SHARED void sb_printf(sbuf *b, const char *fmt, ...) {
    char tmp[1024];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    sb_putn(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* The length of the well-formed UTF-8 sequence at p (before end), or 0:
 * no overlong forms, no surrogates, nothing past U+10FFFF (RFC 3629). */
FGLRUN_SHARED int utf8_len(const unsigned char *p, const unsigned char *end) {
    unsigned c = p[0], lo = 0x80, hi = 0xBF;
    int n, i;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;      /* overlong */
        else if (c == 0xED) hi = 0x9F; /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;      /* overlong */
        else if (c == 0xF4) hi = 0x8F; /* past U+10FFFF */
    } else
        return 0;
    if (end - p < n) return 0;
    for (i = 1; i < n; i++) {
        if (p[i] < (i == 1 ? lo : 0x80) || p[i] > (i == 1 ? hi : 0xBF)) return 0;
    }
    return n;
}

/* s as a JSON string, quoted and escaped; a byte that is not part of
 * well-formed UTF-8 (a file name of another encoding) becomes U+FFFD, the
 * replacement character, so that the text stays JSON (RFC 8259). */
FGLRUN_SHARED void sb_json_str(sbuf *b, const char *s) {
    const unsigned char *end = (const unsigned char *)s + strlen(s);
    sb_puts(b, "\"");
    while (*s) {
        unsigned char c = (unsigned char)*s;
        int n = c < 0x80 ? 1 : utf8_len((const unsigned char *)s, end);
        if (c == '"' || c == '\\') {
            char e[3] = {'\\', (char)c, 0};
            sb_puts(b, e);
        } else if (c < 0x20) {
            sb_printf(b, "\\u%04x", c);
        } else if (!n) {
            sb_puts(b, "\\ufffd");
            n = 1;
        } else {
            sb_putn(b, s, (size_t)n);
        }
        s += n;
    }
    sb_puts(b, "\"");
}

/* s as a JSON string into f. */
FGLRUN_SHARED void json_str(FILE *f, const char *s) {
    sbuf b = {0, 0, 0, 0};
    sb_json_str(&b, s ? s : "");
    fputs(b.s && !b.oom ? b.s : "\"\"", f);
    free(b.s);
}

/* x as fmt prints it, or null where it is not finite: JSON (RFC 8259) has
 * no NaN or infinity, and a reader must be able to read every result. */
FGLRUN_SHARED void json_num(FILE *f, const char *fmt, double x) {
    if (isfinite(x)) fprintf(f, fmt, x);
    else fputs("null", f);
}

/* 1 if the word t (len characters) is nan or inf in any case and form
 * (infinity, nan(...)). */
static int word_nonfinite(const char *t, size_t len) {
    char w[4];
    int i;
    if (len < 3) return 0;
    for (i = 0; i < 3; i++) w[i] = (char)tolower((unsigned char)t[i]);
    w[3] = 0;
    return !strcmp(w, "nan") || !strcmp(w, "inf");
}

/* JSON members written by someone else (an algorithm's report hook, which
 * prints with %g) into out: every bare nan or inf outside a string (signed
 * or not, any case, "infinity" and "nan(...)" too) becomes null. */
FGLRUN_SHARED void json_fix_nonfinite(const char *s, sbuf *out) {
    int in_str = 0;
    while (*s) {
        const char *t = s + (*s == '-' || *s == '+');
        size_t len = 0;
        if (in_str || *s == '"') { /* strings as they are */
            if (*s == '\\' && s[1]) sb_putn(out, s++, 1);
            else if (*s == '"') in_str = !in_str;
            sb_putn(out, s++, 1);
            continue;
        }
        while (isalnum((unsigned char)t[len]) || (len && (t[len] == '(' || t[len] == ')' || t[len] == '_'))) len++;
        if (word_nonfinite(t, len)) sb_puts(out, "null");
        else sb_putn(out, s, len ? (size_t)(t + len - s) : 1); /* a word or a number's digits, or one character */
        s = len ? t + len : s + 1;
    }
}

/* The shortest decimal that reads back as the same double (as the same
 * float when single is set): what a config records and replays. */
FGLRUN_SHARED void fmt_real(char *out, size_t cap, double x, int single) {
    int p;
    if (x == floor(x) && fabs(x) < 1e15) { /* an integer: all its digits, no exponent */
        snprintf(out, cap, "%.0f", x);
        return;
    }
    for (p = 1; p <= 17; p++) {
        snprintf(out, cap, "%.*g", p, x);
        if (single ? (float)strtod(out, NULL) == (float)x : strtod(out, NULL) == x) return;
    }
}

/* --- a small JSON reader (configs and result records; jv: fglrun/fglrun.h) --- */

typedef struct jparse {
    const char *p, *begin, *end;
    int depth;
    char err[160];
} jparse;

FGLRUN_SHARED void jv_free(jv *v) {
    int i;
    if (!v) return;
    for (i = 0; i < v->n; i++) {
        if (v->k) free(v->k[i]);
        jv_free(&v->v[i]);
    }
    free(v->k);
    free(v->v);
    free(v->s);
    memset(v, 0, sizeof *v);
}

static int jp_fail(jparse *j, const char *what) {
    if (!j->err[0]) snprintf(j->err, sizeof j->err, "%s at byte %ld", what, (long)(j->p - j->begin));
    return -1;
}

static void jp_ws(jparse *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

/* Four hex digits of a \u escape at j->p, or -1. */
static long jp_hex4(jparse *j) {
    long code = 0;
    int i;
    if (j->end - j->p < 4) return -1;
    for (i = 0; i < 4; i++) {
        int h = (unsigned char)*j->p++;
        code = code * 16 + (h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                            : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -100000);
    }
    return code < 0 ? -1 : code;
}

/* A string (RFC 8259): UTF-8 only, the standard escapes, \u escapes of
 * whole surrogate pairs; NUL refused (the value becomes a C string, which
 * it would cut). */
static int jp_string(jparse *j, char **out) {
    sbuf b = {0, 0, 0, 0};
    const char *why = NULL;
    j->p++; /* the opening quote */
    sb_puts(&b, "");
    while (!why && j->p < j->end && *j->p != '"') {
        unsigned c = (unsigned char)*j->p;
        char u[4];
        if (c < 0x20) {
            why = "control character in a string";
            break;
        }
        if (c >= 0x80) { /* a multi-byte character, copied whole when well formed */
            int n = utf8_len((const unsigned char *)j->p, (const unsigned char *)j->end);
            if (!n) {
                why = "invalid UTF-8 in a string";
                break;
            }
            sb_putn(&b, j->p, (size_t)n);
            j->p += n;
            continue;
        }
        j->p++;
        if (c == '\\') {
            if (j->p >= j->end) break;
            c = (unsigned char)*j->p++;
            if (c == 'b') c = 8;
            else if (c == 'f') c = 12;
            else if (c == 'n') c = 10;
            else if (c == 'r') c = 13;
            else if (c == 't') c = 9;
            else if (c == 'u') {
                long code = jp_hex4(j);
                if (code < 0) {
                    why = "bad \\u escape";
                    break;
                }
                if (code >= 0xDC00 && code <= 0xDFFF) {
                    why = "\\u escape of a lone low surrogate";
                    break;
                }
                if (code >= 0xD800 && code <= 0xDBFF) { /* a high surrogate: its low half must follow */
                    long lo;
                    if (j->end - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u') {
                        why = "\\u escape of a lone high surrogate";
                        break;
                    }
                    j->p += 2;
                    lo = jp_hex4(j);
                    if (lo < 0xDC00 || lo > 0xDFFF) {
                        why = "\\u escape of a lone high surrogate";
                        break;
                    }
                    code = 0x10000 + ((code - 0xD800) << 10) + (lo - 0xDC00);
                }
                if (code == 0) {
                    why = "NUL (\\u0000) in a string";
                    break;
                }
                if (code < 0x80) {
                    u[0] = (char)code;
                    sb_putn(&b, u, 1);
                } else if (code < 0x800) {
                    u[0] = (char)(0xC0 | (code >> 6));
                    u[1] = (char)(0x80 | (code & 63));
                    sb_putn(&b, u, 2);
                } else if (code < 0x10000) {
                    u[0] = (char)(0xE0 | (code >> 12));
                    u[1] = (char)(0x80 | ((code >> 6) & 63));
                    u[2] = (char)(0x80 | (code & 63));
                    sb_putn(&b, u, 3);
                } else {
                    u[0] = (char)(0xF0 | (code >> 18));
                    u[1] = (char)(0x80 | ((code >> 12) & 63));
                    u[2] = (char)(0x80 | ((code >> 6) & 63));
                    u[3] = (char)(0x80 | (code & 63));
                    sb_putn(&b, u, 4);
                }
                continue;
            } else if (c != '"' && c != '\\' && c != '/') {
                why = "bad escape in a string";
                break;
            }
        }
        u[0] = (char)c;
        sb_putn(&b, u, 1);
    }
    if (!why && j->p >= j->end) why = "unterminated string";
    if (!why && b.oom) why = "out of memory";
    if (why) {
        free(b.s);
        return jp_fail(j, why);
    }
    j->p++;
    *out = b.s;
    return 0;
}

FGLRUN_SHARED const jv *jv_get(const jv *o, const char *key) {
    int i;
    if (!o || o->t != 'o') return NULL;
    for (i = 0; i < o->n; i++)
        if (!strcmp(o->k[i], key)) return &o->v[i];
    return NULL;
}

static int jp_value(jparse *j, jv *v);

/* One more member or element into v (its name k, for objects). */
static jv *jv_push(jv *v, char *k) {
    jv *nv = (jv *)realloc(v->v, sizeof(jv) * (size_t)(v->n + 1));
    if (!nv) return NULL;
    v->v = nv;
    if (v->t == 'o') {
        char **nk = (char **)realloc(v->k, sizeof(char *) * (size_t)(v->n + 1));
        if (!nk) return NULL;
        v->k = nk;
        v->k[v->n] = k;
    }
    memset(&v->v[v->n], 0, sizeof(jv));
    return &v->v[v->n++];
}

static int jp_container(jparse *j, jv *v, char close) {
    v->t = close == '}' ? 'o' : 'a';
    j->p++;
    jp_ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        return 0;
    }
    for (;;) {
        char *key = NULL;
        jv *item;
        jp_ws(j);
        if (v->t == 'o') {
            if (j->p >= j->end || *j->p != '"') return jp_fail(j, "expected a member name");
            if (jp_string(j, &key)) return -1;
            if (jv_get(v, key)) { /* RFC 8259's names SHOULD be unique: which one counts is a reader's guess */
                free(key);
                return jp_fail(j, "a member name given twice");
            }
            jp_ws(j);
            if (j->p >= j->end || *j->p != ':') {
                free(key);
                return jp_fail(j, "expected ':'");
            }
            j->p++;
        }
        if (!(item = jv_push(v, key))) {
            free(key);
            return jp_fail(j, "out of memory");
        }
        if (jp_value(j, item)) return -1;
        jp_ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->end && *j->p == close) {
            j->p++;
            return 0;
        }
        return jp_fail(j, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static int jp_value(jparse *j, jv *v) {
    int rc;
    jp_ws(j);
    if (j->p >= j->end) return jp_fail(j, "unexpected end");
    if (++j->depth > 64) return jp_fail(j, "nested too deeply");
    if (*j->p == '{' || *j->p == '[') {
        rc = jp_container(j, v, *j->p == '{' ? '}' : ']');
    } else if (*j->p == '"') {
        v->t = 's';
        rc = jp_string(j, &v->s);
    } else if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')) {
        /* RFC 8259: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
        const char *q = j->p, *e = j->end;
        int ok = 1;
#define JP_DIGITS(q) ((q) < e && *(q) >= '0' && *(q) <= '9')
        if (q < e && *q == '-') q++;
        if (q < e && *q == '0') q++;
        else if (JP_DIGITS(q))
            while (JP_DIGITS(q)) q++;
        else
            ok = 0;
        if (ok && q < e && *q == '.') {
            q++;
            ok = JP_DIGITS(q);
            while (JP_DIGITS(q)) q++;
        }
        if (ok && q < e && (*q == 'e' || *q == 'E')) {
            q++;
            if (q < e && (*q == '+' || *q == '-')) q++;
            ok = JP_DIGITS(q);
            while (JP_DIGITS(q)) q++;
        }
        if (ok && q < e && (strchr("+-.eE", *q) || (*q >= '0' && *q <= '9'))) ok = 0; /* 012, 1.2.3 */
#undef JP_DIGITS
        if (!ok) return jp_fail(j, "bad number");
        v->t = 'n';
        if (!(v->s = (char *)malloc((size_t)(q - j->p) + 1))) return jp_fail(j, "out of memory");
        memcpy(v->s, j->p, (size_t)(q - j->p));
        v->s[q - j->p] = 0;
        j->p = q;
        rc = 0;
    } else {
        static const char *lit[] = {"true", "false", "null"};
        int i;
        for (i = 0; i < 3; i++) {
            size_t len = strlen(lit[i]);
            if ((size_t)(j->end - j->p) >= len && !memcmp(j->p, lit[i], len)) break;
        }
        if (i == 3) return jp_fail(j, "unexpected character");
        j->p += strlen(lit[i]);
        v->t = i < 2 ? 'b' : 'z';
        if (i < 2 && !(v->s = (char *)malloc(6))) return jp_fail(j, "out of memory");
        if (i < 2) strcpy(v->s, lit[i]);
        rc = 0;
    }
    j->depth--;
    return rc;
}

/* Parse text[0, len) as one JSON value; err (cap 160) says why not. */
FGLRUN_SHARED int jv_parse(const char *text, size_t len, jv *out, char *err) {
    jparse j;
    memset(&j, 0, sizeof j);
    memset(out, 0, sizeof *out);
    j.p = j.begin = text;
    j.end = text + len;
    if (!jp_value(&j, out)) {
        jp_ws(&j);
        if (j.p == j.end) return 0;
        jp_fail(&j, "text after the value");
    }
    strcpy(err, j.err);
    jv_free(out);
    return -1;
}


