/* fgl_convert - turns downloaded datasets into fgl's node layout with fgl's
 * own writer (fgl_save_node), and checks TU directories with fgl's loader.
 * tools/fetch_data.sh (`make data`) runs it; nothing here needs Python.
 *
 *   fgl_convert planetoid SRC PREFIX OUT NAME
 *       SRC/ind.PREFIX.{x,tx,allx,y,ty,ally,graph,test.index}, the Planetoid
 *       files of Yang et al. 2016 (Python pickles of scipy CSR matrices, numpy
 *       arrays and a dict of adjacency lists, plus a text list of the test
 *       nodes), to OUT/NAME.{edges,labels,features,split}: nodes 0..len(allx)-1
 *       are the rows of allx, test node test.index[k] is row k of tx; the
 *       standard split is train = the len(y) first nodes, validation = the 500
 *       after them, test = test.index.
 *   fgl_convert npz SRC OUT NAME
 *       SRC holds the .npy members of one of Shchur et al.'s .npz files, unzipped
 *       (adj_data/adj_indices/adj_indptr/adj_shape: a CSR adjacency;
 *       attr_data/attr_indices/attr_indptr/attr_shape or attr_matrix: the
 *       features; labels), to OUT/NAME.{edges,labels,features}.
 *   fgl_convert check-tu DIR NAME      load DIR with fgl_load_tu (0 if it loads)
 *   fgl_convert check-node DIR NAME    load DIR with fgl_load_node
 *   fgl_convert check-npz FILE NAME    load FILE (a heterophilous-graph .npz,
 *       kept as published) with fgl_load_npz and say what it holds
 *
 * Edges are symmetrised, self loops dropped and duplicates merged (fgl's
 * graph contract). Features are written as sparse triplets when fewer than
 * one entry in six is non-zero, as dense rows otherwise (the smaller text).
 * What is written is loaded back and validated before the exit status says
 * success. Errors: one line on stderr naming the file and the problem,
 * exit status 1 (2 for a bad command line). The tool uses fgl's default
 * allocator (malloc/free), so it frees what fgl allocates with free(). */
#define FGL_IMPLEMENTATION
#include "../fgl_graph.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------------ */
/* Numeric arrays (.npy files and unpickled numpy arrays)                   */
/* ------------------------------------------------------------------------ */

/* A C-ordered (or Fortran-ordered) array viewing bytes owned elsewhere:
 * the library's (fgl_graph.h, which reads .npy and .npz for fgl_load_npz). */
typedef fgl_npy nd;

/* ------------------------------------------------------------------------ */
/* .npy                                                                     */
/* ------------------------------------------------------------------------ */

/* An array read from a .npy file (owns the file's bytes). */
typedef struct npy {
    unsigned char *file;
    nd a;
} npy;

/* Reads path (numpy's format, versions 1 to 3) with the library's parser. */
static int npy_read(const char *path, npy *out, fgl_error *err) {
    unsigned char *d = NULL;
    size_t len = 0;
    int rc;
    memset(out, 0, sizeof *out);
    if ((rc = fgl_file_read(path, &d, &len, err)) != FGL_OK) return rc;
    if ((rc = fgl_npy_parse(d, len, path, &out->a, err)) != FGL_OK) {
        free(d);
        memset(out, 0, sizeof *out);
        return rc;
    }
    out->file = d;
    return FGL_OK;
}

static void npy_free(npy *a) {
    free(a->file);
    memset(a, 0, sizeof *a);
}

#include "fgl_pickle.h" /* the pickle reader: pk_load, pk_get, pk_ndarray, ... */

/* ------------------------------------------------------------------------ */
/* Sparse and dense matrices, labels                                        */
/* ------------------------------------------------------------------------ */

/* A CSR matrix in plain arrays. */
typedef struct mat {
    int rows, cols;
    long long nnz;
    long long *indptr;
    int *indices;
    float *values;
} mat;

static void mat_free(mat *m) {
    free(m->indptr);
    free(m->indices);
    free(m->values);
    memset(m, 0, sizeof *m);
}

/* Builds m from CSR arrays (data may be NULL: ones), checking everything. */
static int mat_from_csr(mat *m, long long rows, long long cols, const nd *indptr, const nd *indices, const nd *data,
                        const char *what, fgl_error *err) {
    long long i, k;
    int bad = 0;
    memset(m, 0, sizeof *m);
    if (rows < 0 || cols < 0 || rows > INT_MAX || cols > INT_MAX)
        return fgl_error_set(err, FGL_ERR_RANGE, "%s: shape %lld x %lld", what, rows, cols);
    if (indptr->ndim != 1 || indptr->count != rows + 1)
        return fgl_error_set(err, FGL_ERR_SHAPE, "%s: indptr has %lld entries for %lld rows", what, indptr->count,
                             rows);
    if (indices->ndim != 1 || (data && (data->ndim != 1 || data->count != indices->count)))
        return fgl_error_set(err, FGL_ERR_SHAPE, "%s: %lld indices but %lld values", what, indices->count,
                             data ? data->count : indices->count);
    m->rows = (int)rows;
    m->cols = (int)cols;
    m->nnz = indices->count;
    m->indptr = (long long *)malloc(sizeof(long long) * (size_t)(rows + 1));
    m->indices = (int *)malloc(sizeof(int) * (size_t)(m->nnz ? m->nnz : 1));
    m->values = (float *)malloc(sizeof(float) * (size_t)(m->nnz ? m->nnz : 1));
    if (!m->indptr || !m->indices || !m->values) {
        mat_free(m);
        return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", what);
    }
    for (i = 0; i <= rows; i++) {
        m->indptr[i] = fgl_npy_i64(indptr, i, &bad);
        if (bad || m->indptr[i] < (i ? m->indptr[i - 1] : 0) || m->indptr[i] > m->nnz ||
            (i == 0 && m->indptr[0] != 0) || (i == rows && m->indptr[i] != m->nnz)) {
            mat_free(m);
            return fgl_error_set(err, FGL_ERR_FORMAT, "%s: indptr[%lld] out of order or range", what, i);
        }
    }
    for (k = 0; k < m->nnz; k++) {
        long long c = fgl_npy_i64(indices, k, &bad);
        double v = data ? fgl_npy_f64(data, k) : 1.0;
        if (bad || c < 0 || c >= cols) {
            mat_free(m);
            return fgl_error_set(err, FGL_ERR_RANGE, "%s: column index %lld outside 0..%lld", what, c, cols - 1);
        }
        if (!(v == v) || v > 3.4e38 || v < -3.4e38) {
            mat_free(m);
            return fgl_error_set(err, FGL_ERR_NONFINITE, "%s: value %lld is not a finite float", what, k);
        }
        m->indices[k] = (int)c;
        m->values[k] = (float)v;
    }
    return FGL_OK;
}

/* Builds m from a dense 2-D array. */
static int mat_from_dense(mat *m, const nd *x, const char *what, fgl_error *err) {
    long long i, j, nnz = 0, k = 0;
    memset(m, 0, sizeof *m);
    if (x->ndim != 2 || x->shape[0] > INT_MAX || x->shape[1] > INT_MAX)
        return fgl_error_set(err, FGL_ERR_SHAPE, "%s: a feature matrix must be 2-dimensional", what);
    for (i = 0; i < x->count; i++) nnz += fgl_npy_f64(x, i) != 0;
    m->rows = (int)x->shape[0];
    m->cols = (int)x->shape[1];
    m->nnz = nnz;
    m->indptr = (long long *)malloc(sizeof(long long) * (size_t)(m->rows + 1));
    m->indices = (int *)malloc(sizeof(int) * (size_t)(nnz ? nnz : 1));
    m->values = (float *)malloc(sizeof(float) * (size_t)(nnz ? nnz : 1));
    if (!m->indptr || !m->indices || !m->values) {
        mat_free(m);
        return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", what);
    }
    m->indptr[0] = 0;
    for (i = 0; i < m->rows; i++) {
        for (j = 0; j < m->cols; j++) {
            double v = fgl_npy_f64(x, fgl_npy_at(x, i, j));
            if (!(v == v) || v > 3.4e38 || v < -3.4e38) {
                mat_free(m);
                return fgl_error_set(err, FGL_ERR_NONFINITE, "%s: entry (%lld, %lld) is not a finite float", what, i,
                                     j);
            }
            if (v != 0) {
                m->indices[k] = (int)j;
                m->values[k++] = (float)v;
            }
        }
        m->indptr[i + 1] = k;
    }
    return FGL_OK;
}

/* Class of each row of y: a 1-D array of integers (-1 = unlabelled, any
 * other negative value an error naming its node), or a 2-D one-hot (or
 * score) matrix whose row argmax is the class; a row of zeros is -1. */
static int labels_from(const nd *y, int *out, long long n, const char *what, fgl_error *err) {
    long long i, j;
    int bad = 0;
    if (y->ndim == 0 || y->shape[0] != n)
        return fgl_error_set(err, FGL_ERR_SHAPE, "%s: %lld labels for %lld nodes", what, y->ndim ? y->shape[0] : 0, n);
    for (i = 0; i < n; i++) {
        if (y->ndim == 1) {
            long long c = fgl_npy_i64(y, i, &bad);
            if (bad || c > INT_MAX)
                return fgl_error_set(err, FGL_ERR_RANGE, "%s: label %lld is not a class id", what, i);
            if (c < -1)
                return fgl_error_set(err, FGL_ERR_RANGE, "%s: label %lld of node %lld (class ids are 0-based, -1 = "
                                     "unlabelled)", what, c, i);
            out[i] = (int)c;
        } else {
            double best = 0;
            out[i] = -1;
            for (j = 0; j < y->shape[1]; j++) {
                double v = fgl_npy_f64(y, fgl_npy_at(y, i, j));
                if (v > best) {
                    best = v;
                    out[i] = (int)j;
                }
            }
        }
    }
    return FGL_OK;
}

/* ------------------------------------------------------------------------ */
/* Assembling and writing a node dataset                                    */
/* ------------------------------------------------------------------------ */

/* d from n nodes, m edges src->dst, features x (row r of x is node
 * row_node[r]; rows may be fewer than n), labels y (n) and split (n or NULL);
 * writes OUT/NAME.* and loads it back. Takes ownership of y and split. */
static int write_node(const char *out_dir, const char *name, int n, const int *src, const int *dst, long long m,
                      const mat *x, const int *row_node, int *y, unsigned char *split, fgl_error *err) {
    fgl_node_data d, back;
    int rc, i, C = 0;
    long long k, nnz = 0;
    fgl_node_data_init(&d);
    snprintf(d.name, sizeof d.name, "%s", name);
    d.n_nodes = n;
    d.n_feat = x->cols;
    d.y = y;
    d.split = split;
    for (i = 0; i < n; i++) C = y[i] + 1 > C ? y[i] + 1 : C;
    d.n_classes = C;
    if (m > INT_MAX) {
        fgl_node_data_free(&d);
        return fgl_error_set(err, FGL_ERR_RANGE, "%s: %lld edges are too many", name, m);
    }
    if ((rc = fgl_graph_from_edges(n, src, dst, (int)m, FGL_EDGES_SYMMETRIZE | FGL_EDGES_DROP_SELF_LOOPS, &d.adj,
                                   err)) != FGL_OK) {
        fgl_node_data_free(&d);
        return rc;
    }
    for (k = 0; k < x->nnz; k++) nnz += x->values[k] != 0;
    if (nnz > INT_MAX) {
        fgl_node_data_free(&d);
        return fgl_error_set(err, FGL_ERR_RANGE, "%s: %lld feature values are too many", name, nnz);
    }
    if (6 * nnz < (long long)n * x->cols) { /* sparse triplets */
        int *r = (int *)malloc(sizeof(int) * (size_t)(nnz ? nnz : 1));
        int *c = (int *)malloc(sizeof(int) * (size_t)(nnz ? nnz : 1));
        float *v = (float *)malloc(sizeof(float) * (size_t)(nnz ? nnz : 1));
        long long q = 0;
        if (!r || !c || !v) rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", name);
        for (i = 0; rc == FGL_OK && i < x->rows; i++)
            for (k = x->indptr[i]; k < x->indptr[i + 1]; k++)
                if (x->values[k] != 0) {
                    r[q] = row_node[i];
                    c[q] = x->indices[k];
                    v[q++] = x->values[k];
                }
        if (rc == FGL_OK) rc = fgl_csr_from_coo(n, x->cols, (int)nnz, r, c, v, 1, &d.x_sparse, err);
        free(r);
        free(c);
        free(v);
    } else { /* dense rows */
        if (fgl_tensor_init(&d.x, n, x->cols) != FGL_OK)
            rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", name);
        for (i = 0; rc == FGL_OK && i < x->rows; i++)
            for (k = x->indptr[i]; k < x->indptr[i + 1]; k++) FGL_AT(&d.x, row_node[i], x->indices[k]) += x->values[k];
    }
    if (rc == FGL_OK) rc = fgl_node_data_validate(&d, err);
    if (rc == FGL_OK) rc = fgl_save_node(&d, out_dir, name, err);
    if (rc == FGL_OK) {
        rc = fgl_load_node(out_dir, name, &back, err);
        if (rc == FGL_OK && (back.n_nodes != d.n_nodes || back.n_feat != d.n_feat || back.adj.nnz != d.adj.nnz))
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: what was written does not read back the same", name);
        fgl_node_data_free(&back);
    }
    if (rc == FGL_OK)
        printf("%s: %d nodes, %d undirected edges, %d %s features, %d classes%s\n", name, d.n_nodes,
               fgl_graph_num_edges(&d.adj), d.n_feat, d.x_sparse.indptr ? "sparse" : "dense", d.n_classes,
               d.split ? ", standard split" : "");
    fgl_node_data_free(&d);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Planetoid                                                                */
/* ------------------------------------------------------------------------ */

typedef struct pfile {
    char path[1024];
    unsigned char *data;
    size_t len;
    pk k;
    int root;
} pfile;

static int pfile_load(pfile *f, const char *src, const char *prefix, const char *part, fgl_error *err) {
    int rc;
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s/ind.%s.%s", src, prefix, part);
    if ((rc = fgl_file_read(f->path, &f->data, &f->len, err)) != FGL_OK) return rc;
    return pk_load(&f->k, f->path, f->data, f->len, &f->root, err);
}

static void pfile_free(pfile *f) {
    pk_free(&f->k);
    free(f->data);
    memset(f, 0, sizeof *f);
}

/* A scipy CSR matrix pickled as an object whose state dict holds _shape,
 * indices, indptr and data. */
static int pfile_csr(pfile *f, mat *m, fgl_error *err) {
    const pk *k = &f->k;
    int st, rc;
    long long shape[2];
    nd ip, ix, dv;
    if (k->o[f->root].type != PK_OBJ || (!pk_global_is(k, k->o[f->root].cls, "sparse", "csr_matrix") &&
                                             !pk_global_is(k, k->o[f->root].cls, "csr", "csr_matrix")))
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: not a pickled scipy.sparse csr_matrix", f->path);
    st = k->o[f->root].state;
    if (pk_tuple_ints(k, pk_get(k, st, "_shape"), shape, 2) != 2 &&
        pk_tuple_ints(k, pk_get(k, st, "shape"), shape, 2) != 2)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: csr_matrix without a 2-D shape", f->path);
    if ((rc = pk_ndarray(k, pk_get(k, st, "indptr"), &ip, f->path, err)) != FGL_OK ||
        (rc = pk_ndarray(k, pk_get(k, st, "indices"), &ix, f->path, err)) != FGL_OK ||
        (rc = pk_ndarray(k, pk_get(k, st, "data"), &dv, f->path, err)) != FGL_OK)
        return rc;
    return mat_from_csr(m, shape[0], shape[1], &ip, &ix, &dv, f->path, err);
}

static int convert_planetoid(const char *src, const char *prefix, const char *out, const char *name, fgl_error *err) {
    static const char *parts[7] = {"x", "tx", "allx", "y", "ty", "ally", "graph"};
    pfile f[7];
    mat x, tx, allx;
    nd y, ty, ally;
    int i, j, rc = FGL_OK, n, n_test = 0, cap = 0, *test = NULL, *row_node = NULL, *yv = NULL, *src_e = NULL,
              *dst_e = NULL, *lab = NULL;
    unsigned char *split = NULL, *tdata = NULL;
    size_t tlen = 0;
    long long m = 0, e_cap = 0, maxid = -1;
    char tpath[1024];
    mat all;
    memset(f, 0, sizeof f);
    memset(&x, 0, sizeof x);
    memset(&tx, 0, sizeof tx);
    memset(&allx, 0, sizeof allx);
    memset(&all, 0, sizeof all);
    for (i = 0; i < 7 && rc == FGL_OK; i++) rc = pfile_load(&f[i], src, prefix, parts[i], err);
    if (rc == FGL_OK) rc = pfile_csr(&f[0], &x, err);
    if (rc == FGL_OK) rc = pfile_csr(&f[1], &tx, err);
    if (rc == FGL_OK) rc = pfile_csr(&f[2], &allx, err);
    if (rc == FGL_OK) rc = pk_ndarray(&f[3].k, f[3].root, &y, f[3].path, err);
    if (rc == FGL_OK) rc = pk_ndarray(&f[4].k, f[4].root, &ty, f[4].path, err);
    if (rc == FGL_OK) rc = pk_ndarray(&f[5].k, f[5].root, &ally, f[5].path, err);
    if (rc != FGL_OK) goto done;
    if (x.cols != allx.cols || tx.cols != allx.cols) {
        rc = fgl_error_set(err, FGL_ERR_SHAPE, "%s: x, tx and allx have %d, %d and %d columns", src, x.cols, tx.cols,
                           allx.cols);
        goto done;
    }
    if (y.ndim == 0 || y.shape[0] != x.rows || ty.ndim == 0 || ty.shape[0] != tx.rows || ally.ndim == 0 ||
        ally.shape[0] != allx.rows || x.rows > allx.rows) {
        rc = fgl_error_set(err, FGL_ERR_SHAPE,
                           "%s: row counts of x/y (%d/%lld), tx/ty (%d/%lld), allx/ally (%d/%lld) disagree", src,
                           x.rows, y.ndim ? y.shape[0] : 0, tx.rows, ty.ndim ? ty.shape[0] : 0, allx.rows,
                           ally.ndim ? ally.shape[0] : 0);
        goto done;
    }
    /* test.index: one node id per line */
    snprintf(tpath, sizeof tpath, "%s/ind.%s.test.index", src, prefix);
    if ((rc = fgl_file_read(tpath, &tdata, &tlen, err)) != FGL_OK) goto done;
    {
        size_t p = 0;
        int line = 1;
        while (p < tlen) {
            char *e;
            long v;
            while (p < tlen && (tdata[p] == ' ' || tdata[p] == '\r' || tdata[p] == '\n')) {
                if (tdata[p] == '\n') line++;
                p++;
            }
            if (p >= tlen) break;
            v = strtol((const char *)tdata + p, &e, 10);
            if (e == (char *)tdata + p || v < 0 || v > INT_MAX / 2 ||
                (e < (char *)tdata + tlen && *e != '\n' && *e != '\r' && *e != ' ')) {
                rc = fgl_error_set(err, FGL_ERR_PARSE, "%s:%d: not a node id", tpath, line);
                goto done;
            }
            if (n_test == cap) {
                int *t2;
                cap = cap ? 2 * cap : 1024;
                t2 = (int *)realloc(test, sizeof(int) * (size_t)cap);
                if (!t2) goto nomem;
                test = t2;
            }
            test[n_test++] = (int)v;
            p = (size_t)(e - (char *)tdata);
        }
    }
    if (n_test != tx.rows) {
        rc = fgl_error_set(err, FGL_ERR_SHAPE, "%s: %d test ids for %d rows of tx", tpath, n_test, tx.rows);
        goto done;
    }
    /* the graph: {node: [neighbours]} (a dict or collections.defaultdict) */
    {
        const pk *k = &f[6].k;
        const pk_obj *g = &k->o[f[6].root];
        if (g->type != PK_DICT && g->type != PK_OBJ) {
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: not a dict of adjacency lists", f[6].path);
            goto done;
        }
        for (i = 0; i + 1 < g->n_items; i += 2) {
            const pk_obj *key = &k->o[g->items[i]], *l = &k->o[g->items[i + 1]];
            if (key->type != PK_INT || key->i < 0 || key->i > INT_MAX / 2 ||
                (l->type != PK_LIST && l->type != PK_TUPLE)) {
                rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: entry %d is not node id -> list of node ids", f[6].path,
                                   i / 2);
                goto done;
            }
            maxid = key->i > maxid ? key->i : maxid;
            for (j = 0; j < l->n_items; j++) {
                const pk_obj *v = &k->o[l->items[j]];
                if (v->type != PK_INT || v->i < 0 || v->i > INT_MAX / 2) {
                    rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: neighbour %d of node %lld is not a node id", f[6].path,
                                       j, key->i);
                    goto done;
                }
                if (m == e_cap) {
                    int *s2, *d2;
                    e_cap = e_cap ? 2 * e_cap : 4096;
                    if (e_cap > INT_MAX) goto nomem;
                    s2 = (int *)realloc(src_e, sizeof(int) * (size_t)e_cap);
                    if (s2) src_e = s2;
                    d2 = (int *)realloc(dst_e, sizeof(int) * (size_t)e_cap);
                    if (d2) dst_e = d2;
                    if (!s2 || !d2) goto nomem;
                }
                src_e[m] = (int)key->i;
                dst_e[m++] = (int)v->i;
                maxid = v->i > maxid ? v->i : maxid;
            }
        }
    }
    /* every node is a key of the graph (Citeseer's missing test rows too):
     * an id beyond both the keys and the feature rows is damage */
    {
        const pk_obj *g = &f[6].k.o[f[6].root];
        long long limit = g->n_items / 2 > allx.rows + tx.rows ? g->n_items / 2 : allx.rows + tx.rows;
        for (i = 0; i < n_test; i++) maxid = test[i] > maxid ? test[i] : maxid;
        if (maxid >= limit) {
            rc = fgl_error_set(err, FGL_ERR_RANGE,
                               "%s: node id %lld, but there are %lld nodes (graph keys, feature rows)", src, maxid,
                               limit);
            goto done;
        }
    }
    n = allx.rows;
    if (maxid + 1 > n) n = (int)(maxid + 1);
    /* rows of allx then tx, placed at their nodes */
    row_node = (int *)malloc(sizeof(int) * (size_t)(allx.rows + tx.rows));
    yv = (int *)malloc(sizeof(int) * (size_t)n);
    lab = (int *)malloc(sizeof(int) * (size_t)(allx.rows + tx.rows + 1));
    split = (unsigned char *)malloc((size_t)n);
    all.rows = allx.rows + tx.rows;
    all.cols = allx.cols;
    all.nnz = allx.nnz + tx.nnz;
    all.indptr = (long long *)malloc(sizeof(long long) * (size_t)(all.rows + 1));
    all.indices = (int *)malloc(sizeof(int) * (size_t)(all.nnz + 1));
    all.values = (float *)malloc(sizeof(float) * (size_t)(all.nnz + 1));
    if (!row_node || !yv || !lab || !split || !all.indptr || !all.indices || !all.values) goto nomem;
    memcpy(all.indptr, allx.indptr, sizeof(long long) * (size_t)(allx.rows + 1));
    for (i = 1; i <= tx.rows; i++) all.indptr[allx.rows + i] = allx.nnz + tx.indptr[i];
    memcpy(all.indices, allx.indices, sizeof(int) * (size_t)allx.nnz);
    memcpy(all.indices + allx.nnz, tx.indices, sizeof(int) * (size_t)tx.nnz);
    memcpy(all.values, allx.values, sizeof(float) * (size_t)allx.nnz);
    memcpy(all.values + allx.nnz, tx.values, sizeof(float) * (size_t)tx.nnz);
    if ((rc = labels_from(&ally, lab, allx.rows, f[5].path, err)) != FGL_OK ||
        (rc = labels_from(&ty, lab + allx.rows, tx.rows, f[4].path, err)) != FGL_OK)
        goto done;
    for (i = 0; i < n; i++) {
        yv[i] = -1;
        split[i] = FGL_SPLIT_NONE;
    }
    for (i = 0; i < allx.rows; i++) {
        row_node[i] = i;
        yv[i] = lab[i];
    }
    for (i = 0; i < tx.rows; i++) {
        if (test[i] < allx.rows || split[test[i]] == FGL_SPLIT_TEST) {
            rc = fgl_error_set(err, FGL_ERR_RANGE, "%s: test node %d is %s", tpath, test[i],
                               test[i] < allx.rows ? "also a row of allx" : "listed twice");
            goto done;
        }
        row_node[allx.rows + i] = test[i];
        yv[test[i]] = lab[allx.rows + i];
        split[test[i]] = FGL_SPLIT_TEST;
    }
    for (i = 0; i < x.rows; i++) split[i] = FGL_SPLIT_TRAIN;
    for (i = x.rows; i < x.rows + 500 && i < allx.rows; i++) split[i] = FGL_SPLIT_VAL;
    rc = write_node(out, name, n, src_e, dst_e, m, &all, row_node, yv, split, err);
    yv = NULL;
    split = NULL;
    goto done;
nomem:
    rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", src);
done:
    for (i = 0; i < 7; i++) pfile_free(&f[i]);
    mat_free(&x);
    mat_free(&tx);
    mat_free(&allx);
    mat_free(&all);
    free(tdata);
    free(test);
    free(row_node);
    free(yv);
    free(lab);
    free(split);
    free(src_e);
    free(dst_e);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Shchur et al.'s .npz (unzipped)                                          */
/* ------------------------------------------------------------------------ */

static int npy_member(const char *src, const char *member, npy *a, int required, fgl_error *err) {
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s.npy", src, member);
    memset(a, 0, sizeof *a);
    if (!required && stat(path, &st) != 0) return 1; /* absent (stat, not fopen: a FIFO would block it) */
    return npy_read(path, a, err) == FGL_OK ? 0 : -1;
}

/* Entry j of a 2-entry shape array. */
static long long shape_of(const npy *s, int j, int *bad) {
    if (s->a.ndim != 1 || s->a.count != 2) {
        *bad = 1;
        return 0;
    }
    return fgl_npy_i64(&s->a, j, bad);
}

static int convert_npz(const char *src, const char *out, const char *name, fgl_error *err) {
    npy adj[4], attr[4], am, lab;
    static const char *adj_names[4] = {"adj_data", "adj_indices", "adj_indptr", "adj_shape"};
    static const char *attr_names[4] = {"attr_data", "attr_indices", "attr_indptr", "attr_shape"};
    mat A, X;
    int i, rc = FGL_OK, bad = 0, n, *src_e = NULL, *dst_e = NULL, *row_node = NULL, *y = NULL, have_attr;
    long long r, k, m = 0;
    memset(adj, 0, sizeof adj);
    memset(attr, 0, sizeof attr);
    memset(&am, 0, sizeof am);
    memset(&lab, 0, sizeof lab);
    memset(&A, 0, sizeof A);
    memset(&X, 0, sizeof X);
    for (i = 0; i < 4; i++)
        if (npy_member(src, adj_names[i], &adj[i], 1, err)) goto fail;
    if (npy_member(src, "labels", &lab, 1, err)) {
        npy ld;
        if (npy_member(src, "labels_data", &ld, 0, err) == 0) {
            npy_free(&ld);
            fgl_error_set(err, FGL_ERR_UNSUPPORTED, "%s: multi-label (CSR) labels are not supported", src);
        }
        goto fail;
    }
    have_attr = npy_member(src, attr_names[0], &attr[0], 0, err);
    if (have_attr < 0) goto fail;
    if (have_attr == 0) {
        for (i = 1; i < 4; i++)
            if (npy_member(src, attr_names[i], &attr[i], 1, err)) goto fail;
    } else {
        int have_am = npy_member(src, "attr_matrix", &am, 0, err);
        if (have_am > 0)
            fgl_error_set(err, FGL_ERR_IO, "%s: neither attr_data.npy (CSR features) nor attr_matrix.npy (dense) is "
                          "there", src);
        if (have_am) goto fail; /* absent, or there but malformed (npy_read said how) */
    }
    r = shape_of(&adj[3], 0, &bad);
    if (bad || r != shape_of(&adj[3], 1, &bad) || bad || r > INT_MAX) {
        rc = fgl_error_set(err, FGL_ERR_SHAPE, "%s/adj_shape.npy: not the shape of a square matrix", src);
        goto done;
    }
    if ((rc = mat_from_csr(&A, r, r, &adj[2].a, &adj[1].a, &adj[0].a, "adj", err)) != FGL_OK) goto done;
    if (have_attr == 0) {
        long long fr = shape_of(&attr[3], 0, &bad), fc = shape_of(&attr[3], 1, &bad);
        if (bad) {
            rc = fgl_error_set(err, FGL_ERR_SHAPE, "%s/attr_shape.npy: not a 2-D shape", src);
            goto done;
        }
        rc = mat_from_csr(&X, fr, fc, &attr[2].a, &attr[1].a, &attr[0].a, "attr", err);
    } else
        rc = mat_from_dense(&X, &am.a, "attr_matrix", err);
    if (rc != FGL_OK) goto done;
    n = A.rows;
    if (X.rows != n) {
        rc = fgl_error_set(err, FGL_ERR_SHAPE, "%s: %d feature rows for %d nodes", src, X.rows, n);
        goto done;
    }
    src_e = (int *)malloc(sizeof(int) * (size_t)(A.nnz + 1));
    dst_e = (int *)malloc(sizeof(int) * (size_t)(A.nnz + 1));
    row_node = (int *)malloc(sizeof(int) * (size_t)(n + 1));
    y = (int *)malloc(sizeof(int) * (size_t)(n + 1));
    if (!src_e || !dst_e || !row_node || !y) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", src);
        goto done;
    }
    for (i = 0; i < n; i++) {
        row_node[i] = i;
        for (k = A.indptr[i]; k < A.indptr[i + 1]; k++) {
            src_e[m] = i;
            dst_e[m++] = A.indices[k];
        }
    }
    if ((rc = labels_from(&lab.a, y, n, "labels.npy", err)) != FGL_OK) goto done;
    rc = write_node(out, name, n, src_e, dst_e, m, &X, row_node, y, NULL, err);
    y = NULL;
    goto done;
fail:
    rc = err ? err->code : FGL_ERR_IO;
    if (rc == FGL_OK) rc = FGL_ERR_IO;
done:
    for (i = 0; i < 4; i++) {
        npy_free(&adj[i]);
        npy_free(&attr[i]);
    }
    npy_free(&am);
    npy_free(&lab);
    mat_free(&A);
    mat_free(&X);
    free(src_e);
    free(dst_e);
    free(row_node);
    free(y);
    return rc;
}

/* ------------------------------------------------------------------------ */

static int usage(void) {
    fprintf(stderr, "usage: fgl_convert planetoid SRC PREFIX OUT NAME\n"
                    "       fgl_convert npz SRC OUT NAME\n"
                    "       fgl_convert check-tu DIR NAME\n"
                    "       fgl_convert check-node DIR NAME\n"
                    "       fgl_convert check-npz FILE NAME\n");
    return 2;
}

int main(int argc, char **argv) {
    fgl_error err;
    int rc;
    fgl_error_clear(&err);
    if (argc < 2) return usage();
    if (!strcmp(argv[1], "planetoid") && argc == 6) rc = convert_planetoid(argv[2], argv[3], argv[4], argv[5], &err);
    else if (!strcmp(argv[1], "npz") && argc == 5) rc = convert_npz(argv[2], argv[3], argv[4], &err);
    else if (!strcmp(argv[1], "check-tu") && argc == 4) {
        fgl_graph_set s;
        rc = fgl_load_tu(argv[2], argv[3], &s, &err);
        if (rc == FGL_OK) rc = fgl_graph_set_validate(&s, &err);
        if (rc == FGL_OK)
            printf("%s: %d graphs, %d nodes, %d undirected edges, %d classes\n", argv[3], s.n_graphs, s.n_nodes,
                   fgl_graph_num_edges(&s.adj), s.n_classes);
        fgl_graph_set_free(&s);
    } else if (!strcmp(argv[1], "check-node") && argc == 4) {
        fgl_node_data d;
        rc = fgl_load_node(argv[2], argv[3], &d, &err);
        if (rc == FGL_OK) rc = fgl_node_data_validate(&d, &err);
        fgl_node_data_free(&d);
    } else if (!strcmp(argv[1], "check-npz") && argc == 4) {
        fgl_node_data d;
        unsigned char *sp = NULL;
        int ns = 0;
        rc = fgl_load_npz(argv[2], &d, &sp, &ns, &err);
        if (rc == FGL_OK) rc = fgl_node_data_validate(&d, &err);
        if (rc == FGL_OK)
            printf("%s: %d nodes, %d undirected edges, %d features, %d classes, %d fixed splits\n", argv[3], d.n_nodes,
                   fgl_graph_num_edges(&d.adj), d.n_feat, d.n_classes, ns);
        free(sp);
        fgl_node_data_free(&d);
    } else
        return usage();
    if (rc != FGL_OK) {
        fprintf(stderr, "fgl_convert: %s\n", err.msg[0] ? err.msg : fgl_result_name(rc));
        return 1;
    }
    return 0;
}
