/* fgl_pickle.h - tools/fgl_convert's pickle reader (protocols 0 to 5, data
 * only: nothing is executed), and the numpy arrays and dtypes it unpickles.
 * Included once, by tools/fgl_convert.c, after its numeric arrays (nd);
 * not a public header. */
/* ------------------------------------------------------------------------ */
/* A pickle reader (protocols 0 to 5, data only: nothing is executed)       */
/* ------------------------------------------------------------------------ */

enum { PK_NONE, PK_BOOL, PK_INT, PK_FLOAT, PK_BYTES, PK_STR, PK_TUPLE, PK_LIST, PK_DICT, PK_GLOBAL, PK_OBJ, PK_MARK };

/* One object. Sequences (tuple, list, set) keep their elements in items;
 * dicts and objects built by REDUCE/NEWOBJ that receive SETITEM(S) keep
 * key, value pairs in items. GLOBAL: s = "module name". OBJ: cls, args,
 * state (-1: none) as object ids. */
typedef struct pk_obj {
    int type;
    long long i;
    double f;
    unsigned char *s; /* owned, NUL-terminated */
    size_t n;
    int *items, n_items, cap;
    int cls, args, state;
} pk_obj;

typedef struct pk {
    const char *path;
    const unsigned char *d;
    size_t len, pos;
    pk_obj *o;
    int n_o, cap_o;
    int *stack, n_stack, cap_stack;
    int *marks, n_marks, cap_marks;
    int *memo, cap_memo, n_memo; /* n_memo: keys assigned (MEMOIZE's next key) */
    fgl_error *err;
} pk;

static int pk_grow(void **p, int *cap, int need, size_t elem) {
    if (need <= *cap) return 1;
    {
        int nc = *cap ? *cap : 16;
        void *q;
        while (nc < need) {
            if (nc > INT_MAX / 2) return 0;
            nc *= 2;
        }
        q = realloc(*p, (size_t)nc * elem);
        if (!q) return 0;
        *p = q;
        *cap = nc;
    }
    return 1;
}

static int pk_new(pk *k, int type) {
    pk_obj *o;
    if (!pk_grow((void **)&k->o, &k->cap_o, k->n_o + 1, sizeof(pk_obj))) return -1;
    o = &k->o[k->n_o];
    memset(o, 0, sizeof *o);
    o->type = type;
    o->cls = o->args = o->state = -1;
    return k->n_o++;
}

static int pk_add(pk *k, int obj, int item) {
    pk_obj *o = &k->o[obj];
    if (!pk_grow((void **)&o->items, &o->cap, o->n_items + 1, sizeof(int))) return 0;
    o->items[o->n_items++] = item;
    return 1;
}

static int pk_push(pk *k, int obj) {
    if (obj < 0 || !pk_grow((void **)&k->stack, &k->cap_stack, k->n_stack + 1, sizeof(int))) return 0;
    k->stack[k->n_stack++] = obj;
    return 1;
}

static void pk_free(pk *k) {
    int i;
    for (i = 0; i < k->n_o; i++) {
        free(k->o[i].s);
        free(k->o[i].items);
    }
    free(k->o);
    free(k->stack);
    free(k->marks);
    free(k->memo);
    memset(k, 0, sizeof *k);
}

/* A new string-like object holding a copy of n bytes. */
static int pk_bytes(pk *k, int type, const void *p, size_t n) {
    int id = pk_new(k, type);
    if (id < 0) return -1;
    k->o[id].s = (unsigned char *)malloc(n + 1);
    if (!k->o[id].s) return -1;
    if (n) memcpy(k->o[id].s, p, n);
    k->o[id].s[n] = 0;
    k->o[id].n = n;
    return id;
}

static int pk_int(pk *k, long long v) {
    int id = pk_new(k, PK_INT);
    if (id >= 0) k->o[id].i = v;
    return id;
}

/* 1 if obj is a string (bytes or text) equal to s. */
static int pk_is(const pk *k, int obj, const char *s) {
    return obj >= 0 && (k->o[obj].type == PK_BYTES || k->o[obj].type == PK_STR) && k->o[obj].n == strlen(s) &&
           !memcmp(k->o[obj].s, s, k->o[obj].n);
}

/* 1 if obj is the GLOBAL "module name" whose name is `name` and whose module
 * ends with `mod_suffix` (numpy moved multiarray to numpy._core, scipy
 * moved csr_matrix to scipy.sparse._csr). */
static int pk_global_is(const pk *k, int obj, const char *mod_suffix, const char *name) {
    const char *s, *sp;
    size_t ln, lm;
    if (obj < 0 || k->o[obj].type != PK_GLOBAL) return 0;
    s = (const char *)k->o[obj].s;
    sp = strchr(s, ' ');
    if (!sp || strcmp(sp + 1, name) != 0) return 0;
    lm = (size_t)(sp - s);
    ln = strlen(mod_suffix);
    return lm >= ln && !memcmp(sp - ln, mod_suffix, ln);
}

static int pk_fail(pk *k, const char *what) {
    return fgl_error_set(k->err, FGL_ERR_FORMAT, "%s: pickle offset %zu: %s", k->path, k->pos, what);
}

static int pk_need(pk *k, size_t n) { return k->len - k->pos >= n; }

static uint64_t pk_le(pk *k, int n) {
    uint64_t v = 0;
    int j;
    for (j = 0; j < n; j++) v |= (uint64_t)k->d[k->pos + (size_t)j] << (8 * j);
    k->pos += (size_t)n;
    return v;
}

/* The text line at pos (without its '\n'); advances past it. */
static const char *pk_line(pk *k, size_t *n) {
    const unsigned char *e = (const unsigned char *)memchr(k->d + k->pos, '\n', k->len - k->pos);
    const char *s = (const char *)k->d + k->pos;
    if (!e) return NULL;
    *n = (size_t)(e - (k->d + k->pos));
    k->pos += *n + 1;
    return s;
}

/* Objects since the last mark, which is removed: *first, *count. */
static int pk_pop_mark(pk *k, int *first, int *count) {
    if (k->n_marks == 0) return 0;
    *first = k->marks[--k->n_marks];
    *count = k->n_stack - *first;
    return *count >= 0;
}

static int pk_seq(pk *k, int type, int first, int count) {
    int id = pk_new(k, type), j;
    if (id < 0) return -1;
    for (j = 0; j < count; j++)
        if (!pk_add(k, id, k->stack[first + j])) return -1;
    return id;
}

/* Decodes the quoted, backslash-escaped argument of STRING. */
static int pk_string0(pk *k, const char *s, size_t n) {
    unsigned char *b;
    size_t i, m = 0;
    int id;
    if (n < 2 || (s[0] != '\'' && s[0] != '"') || s[n - 1] != s[0]) return -1;
    b = (unsigned char *)malloc(n);
    if (!b) return -1;
    for (i = 1; i + 1 < n; i++) {
        char c = s[i];
        if (c != '\\' || i + 2 >= n) {
            b[m++] = (unsigned char)c;
            continue;
        }
        c = s[++i];
        if (c == 'n') b[m++] = '\n';
        else if (c == 't') b[m++] = '\t';
        else if (c == 'r') b[m++] = '\r';
        else if (c == 'x' && i + 2 < n - 1) {
            char hx[3] = {s[i + 1], s[i + 2], 0};
            b[m++] = (unsigned char)strtol(hx, NULL, 16);
            i += 2;
        } else if (c >= '0' && c <= '7') {
            int v = 0, j;
            for (j = 0; j < 3 && i < n - 1 && s[i] >= '0' && s[i] <= '7'; j++) v = v * 8 + (s[i++] - '0');
            i--;
            b[m++] = (unsigned char)v;
        } else
            b[m++] = (unsigned char)c; /* \\ \' \" */
    }
    id = pk_bytes(k, PK_BYTES, b, m);
    free(b);
    return id;
}

/* Decodes raw-unicode-escape (bytes are Latin-1 code points, \uXXXX and
 * \UXXXXXXXX escapes) into a UTF-8 text object; -2 for a bad escape. */
static int pk_unicode0(pk *k, const char *s, size_t n) {
    unsigned char *b = (unsigned char *)malloc(4 * n + 1);
    size_t i, m = 0;
    int id;
    if (!b) return -1;
    for (i = 0; i < n; i++) {
        unsigned long c = (unsigned char)s[i];
        if (c == '\\' && i + 1 < n && (s[i + 1] == 'u' || s[i + 1] == 'U')) {
            int w = s[i + 1] == 'u' ? 4 : 8, j;
            char hx[9];
            if (i + 2 + (size_t)w > n) {
                free(b);
                return -2;
            }
            for (j = 0; j < w; j++) hx[j] = s[i + 2 + (size_t)j];
            hx[w] = 0;
            c = strtoul(hx, NULL, 16);
            i += 1 + (size_t)w;
        }
        if (c < 0x80) b[m++] = (unsigned char)c;
        else if (c < 0x800) {
            b[m++] = (unsigned char)(0xC0 | c >> 6);
            b[m++] = (unsigned char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            b[m++] = (unsigned char)(0xE0 | c >> 12);
            b[m++] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
            b[m++] = (unsigned char)(0x80 | (c & 0x3F));
        } else {
            b[m++] = (unsigned char)(0xF0 | ((c >> 18) & 0x07));
            b[m++] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
            b[m++] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
            b[m++] = (unsigned char)(0x80 | (c & 0x3F));
        }
    }
    id = pk_bytes(k, PK_STR, b, m);
    free(b);
    return id;
}

/* Latin-1 bytes from the UTF-8 text of obj (Python 3 pickles bytes at
 * protocol 2 as _codecs.encode(text, 'latin1')). */
static int pk_latin1(pk *k, int obj) {
    const unsigned char *s = k->o[obj].s;
    size_t n = k->o[obj].n, i, m = 0;
    unsigned char *b = (unsigned char *)malloc(n + 1);
    int id;
    if (!b) return -1;
    for (i = 0; i < n; i++) {
        if (s[i] < 0x80) b[m++] = s[i];
        else if ((s[i] & 0xE0) == 0xC0 && i + 1 < n && s[i] <= 0xC3) {
            b[m++] = (unsigned char)(((s[i] & 0x03) << 6) | (s[i + 1] & 0x3F));
            i++;
        } else {
            free(b);
            return -2;
        }
    }
    id = pk_bytes(k, PK_BYTES, b, m);
    free(b);
    return id;
}

/* REDUCE: a few callables are data in disguise; the rest become objects. */
static int pk_reduce(pk *k, int fn, int args) {
    int id;
    const pk_obj *a = &k->o[args];
    if (a->type != PK_TUPLE) return -1;
    if (pk_global_is(k, fn, "_codecs", "encode") && a->n_items == 2 && k->o[a->items[0]].type == PK_STR &&
        (pk_is(k, a->items[1], "latin1") || pk_is(k, a->items[1], "latin-1")))
        return pk_latin1(k, a->items[0]);
    if ((pk_global_is(k, fn, "builtin", "bytes") || pk_global_is(k, fn, "builtins", "bytes")) && a->n_items == 0)
        return pk_bytes(k, PK_BYTES, "", 0);
    if ((pk_global_is(k, fn, "builtin", "set") || pk_global_is(k, fn, "builtins", "set") ||
         pk_global_is(k, fn, "builtin", "frozenset") || pk_global_is(k, fn, "builtins", "frozenset")) &&
        a->n_items == 1 && (k->o[a->items[0]].type == PK_LIST || k->o[a->items[0]].type == PK_TUPLE)) {
        int src = a->items[0], j; /* a is invalid once pk_new has grown k->o */
        if ((id = pk_new(k, PK_LIST)) < 0) return -1;
        for (j = 0; j < k->o[src].n_items; j++)
            if (!pk_add(k, id, k->o[src].items[j])) return -1;
        return id;
    }
    /* protocols 0 and 1 build instances with copy_reg._reconstructor(cls,
     * base, state) or copy_reg.__newobj__(cls, ...): the class is the first
     * argument */
    if ((pk_global_is(k, fn, "copy_reg", "_reconstructor") || pk_global_is(k, fn, "copyreg", "_reconstructor") ||
         pk_global_is(k, fn, "copy_reg", "__newobj__") || pk_global_is(k, fn, "copyreg", "__newobj__")) &&
        a->n_items >= 1)
        fn = a->items[0];
    id = pk_new(k, PK_OBJ);
    if (id < 0) return -1;
    k->o[id].cls = fn;
    k->o[id].args = args;
    return id;
}

static int pk_memo_put(pk *k, long long key, int obj) {
    if (key < 0 || key > (1 << 26)) return 0;
    if (key >= k->cap_memo) {
        int old = k->cap_memo, j;
        if (!pk_grow((void **)&k->memo, &k->cap_memo, (int)key + 1, sizeof(int))) return 0;
        for (j = old; j < k->cap_memo; j++) k->memo[j] = -1;
    }
    if (k->memo[key] < 0) k->n_memo++;
    k->memo[key] = obj;
    return 1;
}

static int pk_memo_get(pk *k, long long key) {
    if (key < 0 || key >= k->cap_memo || k->memo[key] < 0) return -1;
    return k->memo[key];
}

/* Runs the pickle in path; *root receives the object STOP returns. */
static int pk_load(pk *k, const char *path, const unsigned char *d, size_t len, int *root, fgl_error *err) {
    memset(k, 0, sizeof *k);
    k->path = path;
    k->d = d;
    k->len = len;
    k->err = err;
    while (k->pos < k->len) {
        int op = k->d[k->pos++], a, b, c, first, count, id = -1, j;
        size_t n = 0;
        const char *line;
        long long v;
        switch (op) {
        case 0x80: /* PROTO */
            if (!pk_need(k, 1)) return pk_fail(k, "truncated PROTO");
            k->pos++;
            continue;
        case 0x95: /* FRAME */
            if (!pk_need(k, 8)) return pk_fail(k, "truncated FRAME");
            k->pos += 8;
            continue;
        case '.': /* STOP */
            if (k->n_stack < 1) return pk_fail(k, "STOP with an empty stack");
            *root = k->stack[k->n_stack - 1];
            return FGL_OK;
        case '(':
            if (!pk_grow((void **)&k->marks, &k->cap_marks, k->n_marks + 1, sizeof(int))) goto nomem;
            k->marks[k->n_marks++] = k->n_stack;
            continue;
        case '0': /* POP */
            if (k->n_marks && k->marks[k->n_marks - 1] == k->n_stack) k->n_marks--;
            else if (k->n_stack) k->n_stack--;
            else return pk_fail(k, "POP on an empty stack");
            continue;
        case '1': /* POP_MARK */
            if (!pk_pop_mark(k, &first, &count)) return pk_fail(k, "POP_MARK without a mark");
            k->n_stack = first;
            continue;
        case '2': /* DUP */
            if (!k->n_stack) return pk_fail(k, "DUP on an empty stack");
            id = k->stack[k->n_stack - 1];
            break;
        case 'N': id = pk_new(k, PK_NONE); break;
        case 0x88:
        case 0x89:
            id = pk_new(k, PK_BOOL);
            if (id >= 0) k->o[id].i = op == 0x88;
            break;
        case 'I': /* INT */
        case 'L': /* LONG */
            if (!(line = pk_line(k, &n))) return pk_fail(k, "unterminated INT/LONG");
            if (op == 'I' && n == 2 && (line[1] == '0' || line[1] == '1') && line[0] == '0') {
                id = pk_new(k, PK_BOOL);
                if (id >= 0) k->o[id].i = line[1] == '1';
            } else {
                char buf[32], *e;
                if (n == 0 || n >= sizeof buf) return pk_fail(k, "bad INT/LONG");
                memcpy(buf, line, n);
                buf[n] = 0;
                v = strtoll(buf, &e, 10);
                if (e == buf || (*e && !(*e == 'L' && !e[1]))) return pk_fail(k, "bad INT/LONG");
                id = pk_int(k, v);
            }
            break;
        case 'J':
            if (!pk_need(k, 4)) return pk_fail(k, "truncated BININT");
            id = pk_int(k, (long long)(int32_t)(uint32_t)pk_le(k, 4));
            break;
        case 'K':
            if (!pk_need(k, 1)) return pk_fail(k, "truncated BININT1");
            id = pk_int(k, (long long)pk_le(k, 1));
            break;
        case 'M':
            if (!pk_need(k, 2)) return pk_fail(k, "truncated BININT2");
            id = pk_int(k, (long long)pk_le(k, 2));
            break;
        case 0x8a: /* LONG1 */
        case 0x8b: /* LONG4 */
            if (!pk_need(k, op == 0x8a ? 1 : 4)) return pk_fail(k, "truncated LONG1/LONG4");
            n = (size_t)pk_le(k, op == 0x8a ? 1 : 4);
            if (n > 8 || !pk_need(k, n)) return pk_fail(k, "integer wider than 64 bits, or truncated");
            {
                uint64_t u = n ? pk_le(k, (int)n) : 0;
                if (n && n < 8 && (u >> (8 * n - 1)) & 1) u |= ~(uint64_t)0 << (8 * n);
                id = pk_int(k, (long long)(int64_t)u);
            }
            break;
        case 'F':
            if (!(line = pk_line(k, &n))) return pk_fail(k, "unterminated FLOAT");
            {
                char buf[64];
                if (n >= sizeof buf) return pk_fail(k, "bad FLOAT");
                memcpy(buf, line, n);
                buf[n] = 0;
                id = pk_new(k, PK_FLOAT);
                if (id >= 0) k->o[id].f = strtod(buf, NULL);
            }
            break;
        case 'G':
            if (!pk_need(k, 8)) return pk_fail(k, "truncated BINFLOAT");
            {
                uint64_t u = 0;
                double dv;
                for (j = 0; j < 8; j++) u = u << 8 | k->d[k->pos + (size_t)j];
                k->pos += 8;
                memcpy(&dv, &u, 8);
                id = pk_new(k, PK_FLOAT);
                if (id >= 0) k->o[id].f = dv;
            }
            break;
        case 'S': /* STRING */
            if (!(line = pk_line(k, &n))) return pk_fail(k, "unterminated STRING");
            if ((id = pk_string0(k, line, n)) < 0) return pk_fail(k, "bad STRING");
            break;
        case 'V': /* UNICODE: raw-unicode-escape text, kept as UTF-8 */
            if (!(line = pk_line(k, &n))) return pk_fail(k, "unterminated UNICODE");
            if ((id = pk_unicode0(k, line, n)) == -2) return pk_fail(k, "bad \\u escape in UNICODE");
            break;
        case 'T':
        case 'U':
        case 'B':
        case 'C':
        case 0x8e:
        case 0x96:
        case 'X':
        case 0x8c:
        case 0x8d: {
            int w = (op == 'U' || op == 'C' || op == 0x8c) ? 1 : (op == 0x8e || op == 0x96 || op == 0x8d) ? 8 : 4;
            uint64_t m;
            if (!pk_need(k, (size_t)w)) return pk_fail(k, "truncated string length");
            m = pk_le(k, w);
            if (m > k->len - k->pos) return pk_fail(k, "string longer than the file");
            id = pk_bytes(k, (op == 'X' || op == 0x8c || op == 0x8d) ? PK_STR : PK_BYTES, k->d + k->pos, (size_t)m);
            k->pos += (size_t)m;
            break;
        }
        case ')': id = pk_new(k, PK_TUPLE); break;
        case ']': id = pk_new(k, PK_LIST); break;
        case '}': id = pk_new(k, PK_DICT); break;
        case 0x8f: id = pk_new(k, PK_LIST); break; /* EMPTY_SET */
        case 't':
        case 'l':
        case 0x91: /* FROZENSET */
            if (!pk_pop_mark(k, &first, &count)) return pk_fail(k, "TUPLE/LIST without a mark");
            id = pk_seq(k, op == 't' ? PK_TUPLE : PK_LIST, first, count);
            k->n_stack = first;
            break;
        case 'd':
            if (!pk_pop_mark(k, &first, &count) || count % 2)
                return pk_fail(k, "DICT without a mark or with an odd count");
            id = pk_seq(k, PK_DICT, first, count);
            k->n_stack = first;
            break;
        case 0x85:
        case 0x86:
        case 0x87:
            count = op - 0x84;
            if (k->n_stack < count) return pk_fail(k, "TUPLEn on a short stack");
            id = pk_seq(k, PK_TUPLE, k->n_stack - count, count);
            k->n_stack -= count;
            break;
        case 'a': /* APPEND */
        case 's': /* SETITEM */
            count = op == 'a' ? 1 : 2;
            if (k->n_stack < count + 1) return pk_fail(k, "APPEND/SETITEM on a short stack");
            first = k->n_stack - count;
            goto add_items;
        case 'e': /* APPENDS */
        case 'u': /* SETITEMS */
        case 0x90: /* ADDITEMS */
            if (!pk_pop_mark(k, &first, &count) || first < 1) return pk_fail(k, "APPENDS/SETITEMS without a mark");
            if (op == 'u' && count % 2) return pk_fail(k, "SETITEMS with an odd count");
        add_items:
            c = k->stack[first - 1];
            if (k->o[c].type != PK_LIST && k->o[c].type != PK_DICT && k->o[c].type != PK_OBJ)
                return pk_fail(k, "items added to something that is not a list, dict or object");
            for (j = 0; j < count; j++)
                if (!pk_add(k, c, k->stack[first + j])) goto nomem;
            k->n_stack = first;
            continue;
        case 'c': /* GLOBAL */
        case 'i': { /* INST */
            const char *mod, *name;
            size_t nm, nn;
            char *g;
            if (!(mod = pk_line(k, &nm)) || !(name = pk_line(k, &nn))) return pk_fail(k, "unterminated GLOBAL");
            if ((id = pk_new(k, PK_GLOBAL)) < 0) goto nomem;
            g = (char *)malloc(nm + nn + 2);
            if (!g) goto nomem;
            memcpy(g, mod, nm);
            g[nm] = ' ';
            memcpy(g + nm + 1, name, nn);
            g[nm + nn + 1] = 0;
            k->o[id].s = (unsigned char *)g;
            k->o[id].n = nm + nn + 1;
            if (op == 'i') {
                if (!pk_pop_mark(k, &first, &count)) return pk_fail(k, "INST without a mark");
                a = pk_seq(k, PK_TUPLE, first, count);
                k->n_stack = first;
                if (a < 0 || (id = pk_reduce(k, id, a)) < 0) goto nomem;
            }
            break;
        }
        case 0x93: /* STACK_GLOBAL */
            if (k->n_stack < 2) return pk_fail(k, "STACK_GLOBAL on a short stack");
            a = k->stack[k->n_stack - 2];
            b = k->stack[k->n_stack - 1];
            if (k->o[a].type != PK_STR || k->o[b].type != PK_STR) return pk_fail(k, "STACK_GLOBAL of non-strings");
            k->n_stack -= 2;
            if ((id = pk_new(k, PK_GLOBAL)) < 0) goto nomem;
            {
                char *g = (char *)malloc(k->o[a].n + k->o[b].n + 2);
                if (!g) goto nomem;
                memcpy(g, k->o[a].s, k->o[a].n);
                g[k->o[a].n] = ' ';
                memcpy(g + k->o[a].n + 1, k->o[b].s, k->o[b].n);
                g[k->o[a].n + k->o[b].n + 1] = 0;
                k->o[id].s = (unsigned char *)g;
                k->o[id].n = k->o[a].n + k->o[b].n + 1;
            }
            break;
        case 'o': /* OBJ */
            if (!pk_pop_mark(k, &first, &count) || count < 1) return pk_fail(k, "OBJ without a class");
            a = pk_seq(k, PK_TUPLE, first + 1, count - 1);
            c = k->stack[first];
            k->n_stack = first;
            if (a < 0 || (id = pk_reduce(k, c, a)) < 0) goto nomem;
            break;
        case 'R': /* REDUCE */
        case 0x81: /* NEWOBJ */
            if (k->n_stack < 2) return pk_fail(k, "REDUCE/NEWOBJ on a short stack");
            c = k->stack[k->n_stack - 2];
            a = k->stack[k->n_stack - 1];
            k->n_stack -= 2;
            if (k->o[a].type != PK_TUPLE) return pk_fail(k, "REDUCE/NEWOBJ arguments are not a tuple");
            id = pk_reduce(k, c, a);
            if (id == -2) return pk_fail(k, "_codecs.encode of text that is not Latin-1");
            break;
        case 0x92: /* NEWOBJ_EX */
            if (k->n_stack < 3) return pk_fail(k, "NEWOBJ_EX on a short stack");
            c = k->stack[k->n_stack - 3];
            a = k->stack[k->n_stack - 2];
            k->n_stack -= 3;
            if (k->o[a].type != PK_TUPLE) return pk_fail(k, "NEWOBJ_EX arguments are not a tuple");
            id = pk_reduce(k, c, a);
            break;
        case 'b': /* BUILD */
            if (k->n_stack < 2) return pk_fail(k, "BUILD on a short stack");
            c = k->stack[k->n_stack - 2];
            k->o[c].state = k->stack[k->n_stack - 1];
            k->n_stack--;
            continue;
        case 'p': /* PUT */
        case 'g': /* GET */
            if (!(line = pk_line(k, &n))) return pk_fail(k, "unterminated PUT/GET");
            {
                char buf[24];
                if (n == 0 || n >= sizeof buf) return pk_fail(k, "bad PUT/GET");
                memcpy(buf, line, n);
                buf[n] = 0;
                v = strtoll(buf, NULL, 10);
            }
            goto memo;
        case 'q':
        case 'h':
            if (!pk_need(k, 1)) return pk_fail(k, "truncated BINPUT/BINGET");
            v = (long long)pk_le(k, 1);
            goto memo;
        case 'r':
        case 'j':
            if (!pk_need(k, 4)) return pk_fail(k, "truncated LONG_BINPUT/GET");
            v = (long long)pk_le(k, 4);
            goto memo;
        case 0x94: /* MEMOIZE */
            v = k->n_memo;
            op = 'q';
        memo:
            if (op == 'p' || op == 'q' || op == 'r') {
                if (!k->n_stack) return pk_fail(k, "PUT on an empty stack");
                if (!pk_memo_put(k, v, k->stack[k->n_stack - 1])) return pk_fail(k, "memo key out of range");
                continue;
            }
            if ((id = pk_memo_get(k, v)) < 0) return pk_fail(k, "GET of an unknown memo key");
            break;
        default: {
            char msg[64];
            snprintf(msg, sizeof msg, "unsupported opcode 0x%02x", (unsigned)op);
            return pk_fail(k, msg);
        }
        }
        if (!pk_push(k, id)) goto nomem;
    }
    return pk_fail(k, "no STOP opcode (truncated file)");
nomem:
    return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", path);
}

/* The value of key in the dict (or dict-like object) obj, or -1. */
static int pk_get(const pk *k, int obj, const char *key) {
    int j;
    if (obj < 0 || (k->o[obj].type != PK_DICT && k->o[obj].type != PK_OBJ)) return -1;
    for (j = 0; j + 1 < k->o[obj].n_items; j += 2)
        if (pk_is(k, k->o[obj].items[j], key)) return k->o[obj].items[j + 1];
    return -1;
}

static int pk_tuple_ints(const pk *k, int obj, long long *v, int max) {
    int j;
    if (obj < 0 || (k->o[obj].type != PK_TUPLE && k->o[obj].type != PK_LIST) || k->o[obj].n_items > max) return -1;
    for (j = 0; j < k->o[obj].n_items; j++) {
        int e = k->o[obj].items[j];
        if (k->o[e].type != PK_INT || k->o[e].i < 0) return -1;
        v[j] = k->o[e].i;
    }
    return k->o[obj].n_items;
}

/* A numpy dtype object: REDUCE(numpy.dtype, ('f4', ...)) + BUILD((ver, '<', ...)). */
static int pk_dtype(const pk *k, int obj, nd *a, const char *what, fgl_error *err) {
    const pk_obj *o, *args, *st;
    char descr[16];
    const pk_obj *t;
    if (obj < 0 || k->o[obj].type != PK_OBJ || !pk_global_is(k, k->o[obj].cls, "numpy", "dtype"))
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: a numpy array without a numpy.dtype", what);
    o = &k->o[obj];
    args = &k->o[o->args];
    if (args->n_items < 1) return fgl_error_set(err, FGL_ERR_FORMAT, "%s: numpy.dtype without a type", what);
    t = &k->o[args->items[0]];
    if ((t->type != PK_STR && t->type != PK_BYTES) || t->n + 2 > sizeof descr)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: numpy.dtype of a non-string", what);
    descr[0] = '<';
    if (o->state >= 0 && k->o[o->state].type == PK_TUPLE && k->o[o->state].n_items >= 2) {
        st = &k->o[k->o[o->state].items[1]];
        if ((st->type == PK_STR || st->type == PK_BYTES) && st->n == 1) descr[0] = (char)st->s[0];
    }
    memcpy(descr + 1, t->s, t->n);
    return fgl_npy_dtype(a, descr, t->n + 1, what, err);
}

static int nd_finish(nd *a, const long long *shape, int ndim, const unsigned char *data, size_t n, const char *what,
                     fgl_error *err) {
    int j;
    a->ndim = ndim;
    a->count = 1;
    for (j = 0; j < 2; j++) a->shape[j] = j < ndim ? shape[j] : 1;
    for (j = 0; j < ndim; j++) {
        if (shape[j] && a->count > (long long)(n + 1) / shape[j])
            return fgl_error_set(err, FGL_ERR_FORMAT, "%s: array shape larger than its data", what);
        a->count *= shape[j];
    }
    if ((size_t)a->count * (size_t)a->size != n)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: %zu data bytes for %lld elements of %d bytes", what, n, a->count,
                             a->size);
    a->data = data;
    return FGL_OK;
}

/* A numpy array: _reconstruct(ndarray, (0,), 'b') + BUILD((1, shape, dtype,
 * fortran, data)), or _frombuffer(data, dtype, shape, order) (protocol 5). */
static int pk_ndarray(const pk *k, int obj, nd *a, const char *what, fgl_error *err) {
    const pk_obj *o;
    long long shape[2];
    int ndim, rc;
    memset(a, 0, sizeof *a);
    if (obj < 0 || k->o[obj].type != PK_OBJ) return fgl_error_set(err, FGL_ERR_FORMAT, "%s: not a numpy array", what);
    o = &k->o[obj];
    if (pk_global_is(k, o->cls, "multiarray", "_reconstruct")) {
        const pk_obj *st;
        if (o->state < 0 || k->o[o->state].type != PK_TUPLE || k->o[o->state].n_items != 5)
            return fgl_error_set(err, FGL_ERR_FORMAT,
                                 "%s: numpy array without its (version, shape, dtype, order, data) state", what);
        st = &k->o[o->state];
        if ((ndim = pk_tuple_ints(k, st->items[1], shape, 2)) < 0)
            return fgl_error_set(err, FGL_ERR_UNSUPPORTED, "%s: numpy array of more than 2 dimensions", what);
        if ((rc = pk_dtype(k, st->items[2], a, what, err)) != FGL_OK) return rc;
        a->fortran = k->o[st->items[3]].type == PK_BOOL && k->o[st->items[3]].i;
        if (k->o[st->items[4]].type != PK_BYTES)
            return fgl_error_set(err, FGL_ERR_UNSUPPORTED, "%s: numpy array of Python objects", what);
        return nd_finish(a, shape, ndim, k->o[st->items[4]].s, k->o[st->items[4]].n, what, err);
    }
    if (pk_global_is(k, o->cls, "numeric", "_frombuffer")) {
        const pk_obj *ar = &k->o[o->args];
        if (ar->n_items != 4 || k->o[ar->items[0]].type != PK_BYTES)
            return fgl_error_set(err, FGL_ERR_FORMAT, "%s: bad numpy _frombuffer arguments", what);
        if ((ndim = pk_tuple_ints(k, ar->items[2], shape, 2)) < 0)
            return fgl_error_set(err, FGL_ERR_UNSUPPORTED, "%s: numpy array of more than 2 dimensions", what);
        if ((rc = pk_dtype(k, ar->items[1], a, what, err)) != FGL_OK) return rc;
        a->fortran = pk_is(k, ar->items[3], "F");
        return nd_finish(a, shape, ndim, k->o[ar->items[0]].s, k->o[ar->items[0]].n, what, err);
    }
    return fgl_error_set(err, FGL_ERR_FORMAT, "%s: not a numpy array", what);
}

