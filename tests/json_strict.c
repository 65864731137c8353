/* json_strict - a strict JSON validator (RFC 8259), a test tool.
 *
 *   json_strict [-q] FILE...     (- reads standard input)
 *
 * Each FILE must hold exactly one JSON text: one value with optional white
 * space (space, tab, line feed, carriage return) around it and nothing
 * else. Refused, with the byte, line and column where it goes wrong: NaN,
 * Infinity and any other bare word but true, false and null; numbers outside
 * the grammar (a leading +, leading zeros, "1.", ".5", "1e", hex); trailing
 * commas; single quotes; comments; control characters in strings; escapes
 * other than \" \\ \/ \b \f \n \r \t \uXXXX; a \u escape of half a surrogate
 * pair; text that is not well-formed UTF-8 (overlong forms, surrogates, code
 * points past U+10FFFF); a byte order mark; a member name given twice in one
 * object (RFC 8259 says names SHOULD be unique: a writer that repeats one is
 * ambiguous to its readers); nesting deeper than 512. Exit status 0 when
 * every file is valid, 1 otherwise, 2 on a usage or read error. -q prints
 * only the failures.
 *
 * Used by tests/test_faults.sh on every JSON file fglrun writes. It depends
 * on nothing of fgl. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 512

typedef struct js {
    const unsigned char *p, *begin, *end;
    int depth;
    char err[200];
    const unsigned char *at; /* where the error is */
} js;

/* A member name seen in an object (its raw bytes between the quotes, escapes
 * decoded to UTF-8 so that "a" and "\u0061" are the same name). */
typedef struct names {
    char **v;
    size_t n, cap;
} names;

static int fail(js *j, const unsigned char *at, const char *what) {
    if (!j->err[0]) {
        snprintf(j->err, sizeof j->err, "%s", what);
        j->at = at;
    }
    return -1;
}

static void ws(js *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Four hex digits at j->p: the code unit, or -1. */
static long hex4(js *j) {
    long u = 0;
    int i;
    for (i = 0; i < 4; i++) {
        int h = j->p < j->end ? hexval(*j->p) : -1;
        if (h < 0) return -1;
        u = u * 16 + h;
        j->p++;
    }
    return u;
}

/* One UTF-8 sequence at j->p (its first byte >= 0x80): well formed, the
 * shortest form, no surrogate, at most U+10FFFF. Its code point, or -1. */
static long utf8(js *j) {
    const unsigned char *s = j->p;
    unsigned c = *s;
    long cp, min;
    int n, i;
    if (c >= 0xC2 && c <= 0xDF) n = 1, cp = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF) n = 2, cp = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4) n = 3, cp = c & 0x07, min = 0x10000;
    else return fail(j, s, "not UTF-8 (a byte that starts no sequence)");
    if (j->end - s <= n) return fail(j, s, "not UTF-8 (a sequence cut short)");
    for (i = 1; i <= n; i++) {
        if ((s[i] & 0xC0) != 0x80) return fail(j, s, "not UTF-8 (a continuation byte missing)");
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min) return fail(j, s, "not UTF-8 (an overlong form)");
    if (cp >= 0xD800 && cp <= 0xDFFF) return fail(j, s, "not UTF-8 (a surrogate encoded)");
    if (cp > 0x10FFFF) return fail(j, s, "not UTF-8 (past U+10FFFF)");
    j->p += n + 1;
    return cp;
}

static void put_utf8(char *out, size_t *len, long cp) {
    if (cp < 0x80) out[(*len)++] = (char)cp;
    else if (cp < 0x800) {
        out[(*len)++] = (char)(0xC0 | (cp >> 6));
        out[(*len)++] = (char)(0x80 | (cp & 63));
    } else if (cp < 0x10000) {
        out[(*len)++] = (char)(0xE0 | (cp >> 12));
        out[(*len)++] = (char)(0x80 | ((cp >> 6) & 63));
        out[(*len)++] = (char)(0x80 | (cp & 63));
    } else {
        out[(*len)++] = (char)(0xF0 | (cp >> 18));
        out[(*len)++] = (char)(0x80 | ((cp >> 12) & 63));
        out[(*len)++] = (char)(0x80 | ((cp >> 6) & 63));
        out[(*len)++] = (char)(0x80 | (cp & 63));
    }
}

/* A string at j->p (its opening quote); *decoded (may be NULL): its value,
 * malloc'ed. */
static int string(js *j, char **decoded) {
    const unsigned char *start = j->p, *q = j->p + 1;
    char *out = NULL;
    size_t len = 0;
    while (q < j->end && *q != '"') q += *q == '\\' ? 2 : 1; /* the raw length: the decoded value is no longer */
    if (decoded && !(out = (char *)malloc((size_t)(q - start) + 1))) return fail(j, j->p, "out of memory");
    j->p++;
    for (;;) {
        unsigned c;
        if (j->p >= j->end) {
            free(out);
            return fail(j, start, "a string without its closing quote");
        }
        c = *j->p;
        if (c == '"') break;
        if (c < 0x20) {
            free(out);
            return fail(j, j->p, "a control character in a string (it must be escaped)");
        }
        if (c == '\\') {
            const unsigned char *esc = j->p;
            long u;
            j->p++;
            if (j->p >= j->end) {
                free(out);
                return fail(j, start, "a string without its closing quote");
            }
            c = *j->p++;
            switch (c) {
            case '"': case '\\': case '/': u = (long)c; break;
            case 'b': u = 8; break;
            case 'f': u = 12; break;
            case 'n': u = 10; break;
            case 'r': u = 13; break;
            case 't': u = 9; break;
            case 'u':
                if ((u = hex4(j)) < 0) {
                    free(out);
                    return fail(j, esc, "a \\u escape without four hex digits");
                }
                if (u >= 0xDC00 && u <= 0xDFFF) {
                    free(out);
                    return fail(j, esc, "a \\u escape of a low surrogate without its high one");
                }
                if (u >= 0xD800 && u <= 0xDBFF) { /* a high surrogate: its low one must follow */
                    long lo;
                    if (j->end - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u') {
                        free(out);
                        return fail(j, esc, "a \\u escape of a high surrogate without its low one");
                    }
                    j->p += 2;
                    lo = hex4(j);
                    if (lo < 0xDC00 || lo > 0xDFFF) {
                        free(out);
                        return fail(j, esc, "a \\u escape of a high surrogate without its low one");
                    }
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                }
                break;
            default: free(out); return fail(j, esc, "an escape JSON does not have");
            }
            if (out) put_utf8(out, &len, u);
            continue;
        }
        if (c >= 0x80) {
            const unsigned char *q = j->p;
            if (utf8(j) < 0) {
                free(out);
                return -1;
            }
            if (out) {
                memcpy(out + len, q, (size_t)(j->p - q));
                len += (size_t)(j->p - q);
            }
            continue;
        }
        if (out) out[len++] = (char)c;
        j->p++;
    }
    j->p++; /* the closing quote */
    if (out) {
        out[len] = 0;
        *decoded = out;
    }
    return 0;
}

static int digits(js *j) {
    const unsigned char *s = j->p;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') j->p++;
    return j->p > s;
}

/* number = [ minus ] int [ frac ] [ exp ]; int = zero / ( digit1-9 *DIGIT ) */
static int number(js *j) {
    const unsigned char *start = j->p;
    if (*j->p == '-') j->p++;
    if (j->p >= j->end || *j->p < '0' || *j->p > '9') return fail(j, start, "a number without digits (or a bare word)");
    if (*j->p == '0') {
        j->p++;
        if (j->p < j->end && *j->p >= '0' && *j->p <= '9') return fail(j, start, "a number with a leading zero");
    } else {
        digits(j);
    }
    if (j->p < j->end && *j->p == '.') {
        j->p++;
        if (!digits(j)) return fail(j, start, "a number with no digit after its point");
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-')) j->p++;
        if (!digits(j)) return fail(j, start, "a number with no digit in its exponent");
    }
    if (j->p < j->end && ((*j->p >= 'a' && *j->p <= 'z') || (*j->p >= 'A' && *j->p <= 'Z') || *j->p == '.'))
        return fail(j, start, "a number followed by letters (NaN, Infinity, hex, ...)");
    return 0;
}

static int value(js *j);

static void names_free(names *n) {
    size_t i;
    for (i = 0; i < n->n; i++) free(n->v[i]);
    free(n->v);
}

static int object(js *j) {
    names seen = {NULL, 0, 0};
    j->p++;
    ws(j);
    if (j->p < j->end && *j->p == '}') {
        j->p++;
        return 0;
    }
    for (;;) {
        const unsigned char *at;
        char *name = NULL;
        size_t i;
        ws(j);
        at = j->p;
        if (j->p >= j->end || *j->p != '"') {
            names_free(&seen);
            return fail(j, j->p, j->p < j->end && *j->p == '}' ? "a trailing comma in an object"
                                                                : "a member name must be a string in double quotes");
        }
        if (string(j, &name)) {
            names_free(&seen);
            return -1;
        }
        for (i = 0; i < seen.n; i++)
            if (!strcmp(seen.v[i], name)) {
                free(name);
                names_free(&seen);
                return fail(j, at, "a member name given twice in one object");
            }
        if (seen.n == seen.cap) {
            char **nv = (char **)realloc(seen.v, sizeof(char *) * (seen.cap = seen.cap ? 2 * seen.cap : 16));
            if (!nv) {
                free(name);
                names_free(&seen);
                return fail(j, at, "out of memory");
            }
            seen.v = nv;
        }
        seen.v[seen.n++] = name;
        ws(j);
        if (j->p >= j->end || *j->p != ':') {
            names_free(&seen);
            return fail(j, j->p, "expected ':' after a member name");
        }
        j->p++;
        if (value(j)) {
            names_free(&seen);
            return -1;
        }
        ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->end && *j->p == '}') {
            j->p++;
            names_free(&seen);
            return 0;
        }
        names_free(&seen);
        return fail(j, j->p, "expected ',' or '}' in an object");
    }
}

static int array(js *j) {
    j->p++;
    ws(j);
    if (j->p < j->end && *j->p == ']') {
        j->p++;
        return 0;
    }
    for (;;) {
        ws(j);
        if (j->p < j->end && *j->p == ']') return fail(j, j->p, "a trailing comma in an array");
        if (value(j)) return -1;
        ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->end && *j->p == ']') {
            j->p++;
            return 0;
        }
        return fail(j, j->p, "expected ',' or ']' in an array");
    }
}

static int literal(js *j, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n)) return 1;
    if ((size_t)(j->end - j->p) > n && ((j->p[n] >= 'a' && j->p[n] <= 'z') || (j->p[n] >= 'A' && j->p[n] <= 'Z')))
        return 1; /* "nullx", "trueish" */
    j->p += n;
    return 0;
}

static int value(js *j) {
    int rc;
    ws(j);
    if (j->p >= j->end) return fail(j, j->p, "a value expected, the text ends");
    if (++j->depth > MAX_DEPTH) return fail(j, j->p, "nested deeper than 512");
    switch (*j->p) {
    case '{': rc = object(j); break;
    case '[': rc = array(j); break;
    case '"': rc = string(j, NULL); break;
    case '-': case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
        rc = number(j);
        break;
    default:
        if (!literal(j, "true") || !literal(j, "false") || !literal(j, "null")) rc = 0;
        else if (*j->p == '\'') rc = fail(j, j->p, "a single quote (JSON strings take double quotes)");
        else if (*j->p == '/') rc = fail(j, j->p, "a comment (JSON has none)");
        else if (*j->p == ',') rc = fail(j, j->p, "a comma where a value belongs (an empty element or a trailing comma)");
        else rc = fail(j, j->p, "not a JSON value (NaN, Infinity and other bare words are not JSON)");
    }
    j->depth--;
    return rc;
}

/* 0 if text[0, len) is one JSON text; else -1 with j->err and j->at. */
static int validate(js *j, const unsigned char *text, size_t len) {
    memset(j, 0, sizeof *j);
    j->p = j->begin = text;
    j->end = text + len;
    if (len >= 3 && text[0] == 0xEF && text[1] == 0xBB && text[2] == 0xBF)
        return fail(j, text, "a byte order mark (RFC 8259: a sender must not add one)");
    if (value(j)) return -1;
    ws(j);
    if (j->p != j->end) return fail(j, j->p, "text after the value");
    return 0;
}

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    unsigned char *buf = NULL;
    size_t cap = 0, got;
    *len = 0;
    if (!f) return NULL;
    for (;;) {
        if (*len + 65536 > cap) {
            unsigned char *nb = (unsigned char *)realloc(buf, cap = 2 * cap + 65536);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
        }
        if (!(got = fread(buf + *len, 1, 65536, f))) break;
        *len += got;
    }
    if (f != stdin) fclose(f);
    return buf;
}

int main(int argc, char **argv) {
    int i, quiet = 0, bad = 0, files = 0;
    for (i = 1; i < argc; i++) {
        unsigned char *text;
        size_t len;
        js j;
        if (!strcmp(argv[i], "-q")) {
            quiet = 1;
            continue;
        }
        files++;
        if (!(text = slurp(argv[i], &len))) {
            fprintf(stderr, "json_strict: cannot read %s\n", argv[i]);
            return 2;
        }
        if (validate(&j, text, len)) {
            long line = 1, col = 1;
            const unsigned char *q;
            for (q = text; q < j.at; q++) {
                if (*q == '\n') line++, col = 1;
                else col++;
            }
            printf("%s: invalid JSON at byte %ld (line %ld, column %ld): %s\n", argv[i], (long)(j.at - text), line, col,
                   j.err);
            bad = 1;
        } else if (!quiet) {
            printf("%s: valid JSON\n", argv[i]);
        }
        free(text);
    }
    if (!files) {
        fprintf(stderr, "usage: json_strict [-q] FILE... (- for standard input)\n");
        return 2;
    }
    return bad;
}
