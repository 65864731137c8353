#include "../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../alone.h"
/* ======================================================================== */
/* FGL_MPI: clients' data and messages as bytes (src/fed/mpi.h sends them)  */
/* ======================================================================== */
/* In fgl_bytes' little-endian encoding: arrays as a u64 count (0: absent)
 * and their values, a CSR matrix as its shape and arrays, a client's node
 * data or graph set field by field, a download or upload as the client's
 * id and per declared part a u64 length and the floats' bits. Every count
 * read is checked against the bytes left before anything is allocated. */
#ifdef FGL_MPI

/* --- client data on the wire -------------------------------------------------- */

static void fgl__put_ints(fgl_bytes *b, const int *x, size_t n) {
    size_t k;
    fgl_bytes_put_u64(b, x ? (uint64_t)n : 0);
    for (k = 0; x && k < n; k++) fgl_bytes_put_u32(b, (uint32_t)x[k]);
}

static void fgl__put_floats(fgl_bytes *b, const float *x, size_t n) {
    fgl_bytes_put_u64(b, x ? (uint64_t)n : 0);
    if (x) fgl_bytes_put_f32s(b, x, n);
}

/* An array of n values of `width` bytes each, its count checked against the
 * bytes left before anything is allocated; NULL when the count is 0 (or on
 * error, which r records). */
static void *fgl__get_array(fgl_reader *r, size_t width, uint64_t expect) {
    uint64_t n = fgl_reader_u64(r);
    void *p;
    size_t k;
    if (r->err || n == 0) return NULL;
    if (n != expect || n > (uint64_t)(r->len - r->pos) / width) {
        r->err = FGL_ERR_FORMAT;
        return NULL;
    }
    if (!(p = FGL_MALLOC((size_t)n * width))) {
        r->err = FGL_ERR_NOMEM;
        return NULL;
    }
    if (width == 1) fgl_reader_get(r, p, (size_t)n);
    else if (width == 4)
        for (k = 0; k < (size_t)n; k++) { /* ints and floats: their 32 bits, little-endian */
            uint32_t v = fgl_reader_u32(r);
            memcpy((unsigned char *)p + 4 * k, &v, 4);
        }
    return p;
}

static void fgl__put_csr(fgl_bytes *b, const fgl_csr *a) {
    fgl_bytes_put_u32(b, a->indptr ? 1u : 0u);
    if (!a->indptr) return;
    fgl_bytes_put_u32(b, (uint32_t)a->rows);
    fgl_bytes_put_u32(b, (uint32_t)a->cols);
    fgl_bytes_put_u32(b, (uint32_t)a->nnz);
    fgl__put_ints(b, a->indptr, (size_t)a->rows + 1);
    fgl__put_ints(b, a->indices, (size_t)a->nnz);
    fgl__put_floats(b, a->values, (size_t)a->nnz);
}

static int fgl__get_csr(fgl_reader *r, fgl_csr *a) {
    uint32_t present = fgl_reader_u32(r), rows, cols, nnz;
    memset(a, 0, sizeof *a);
    if (r->err || !present) return r->err;
    rows = fgl_reader_u32(r);
    cols = fgl_reader_u32(r);
    nnz = fgl_reader_u32(r);
    if (r->err || rows > (uint32_t)INT_MAX - 1 || cols > (uint32_t)INT_MAX || nnz > (uint32_t)INT_MAX)
        return r->err = FGL_ERR_FORMAT;
    a->rows = (int)rows;
    a->cols = (int)cols;
    a->nnz = (int)nnz;
    a->indptr = (int *)fgl__get_array(r, 4, (uint64_t)rows + 1);
    a->indices = (int *)fgl__get_array(r, 4, nnz);
    a->values = (float *)fgl__get_array(r, 4, nnz);
    if (!r->err && (!a->indptr || (nnz && !a->indices) || fgl_csr_validate(a, NULL))) r->err = FGL_ERR_FORMAT;
    return r->err;
}

static void fgl__put_node_data(fgl_bytes *b, const fgl_node_data *d) {
    size_t n = (size_t)d->n_nodes;
    fgl_bytes_put_str(b, d->name);
    fgl_bytes_put_u32(b, (uint32_t)d->n_nodes);
    fgl_bytes_put_u32(b, (uint32_t)d->n_feat);
    fgl_bytes_put_u32(b, (uint32_t)d->n_classes);
    fgl__put_csr(b, &d->adj);
    fgl_bytes_put_u32(b, (uint32_t)d->x.rows);
    fgl_bytes_put_u32(b, (uint32_t)d->x.cols);
    fgl__put_floats(b, d->x.data, (size_t)d->x.rows * (size_t)d->x.cols);
    fgl__put_csr(b, &d->x_sparse);
    fgl__put_ints(b, d->y, n);
    fgl_bytes_put_u64(b, d->split ? (uint64_t)n : 0);
    if (d->split) fgl_bytes_put(b, d->split, n);
    fgl_bytes_put_u32(b, d->gid ? 1u : 0u); /* a halo (fgl_split_halo): ids, own rows, hops, whole-graph norm */
    if (!d->gid) return;
    fgl__put_ints(b, d->gid, n);
    fgl_bytes_put_u32(b, (uint32_t)d->n_own);
    fgl_bytes_put_u32(b, (uint32_t)d->halo_hops);
    fgl__put_csr(b, &d->adj_gcn);
}

static int fgl__get_node_data(fgl_reader *r, fgl_node_data *d) {
    uint32_t xr, xc, halo;
    fgl_node_data_init(d);
    fgl_reader_str(r, d->name, sizeof d->name);
    d->n_nodes = (int)fgl_reader_u32(r);
    d->n_feat = (int)fgl_reader_u32(r);
    d->n_classes = (int)fgl_reader_u32(r);
    if (r->err || d->n_nodes < 0 || d->n_feat < 0 || d->n_classes < 0) return r->err = FGL_ERR_FORMAT;
    fgl__get_csr(r, &d->adj);
    xr = fgl_reader_u32(r);
    xc = fgl_reader_u32(r);
    if (r->err || xr > (uint32_t)INT_MAX || xc > (uint32_t)INT_MAX) return r->err = FGL_ERR_FORMAT;
    d->x.rows = (int)xr;
    d->x.cols = (int)xc;
    d->x.data = (float *)fgl__get_array(r, 4, (uint64_t)xr * xc);
    d->x.owns = d->x.data != NULL;
    fgl__get_csr(r, &d->x_sparse);
    d->y = (int *)fgl__get_array(r, 4, (uint64_t)d->n_nodes);
    d->split = (unsigned char *)fgl__get_array(r, 1, (uint64_t)d->n_nodes);
    if (!r->err && (!d->y || d->adj.rows != d->n_nodes)) r->err = FGL_ERR_FORMAT;
    halo = r->err ? 0 : fgl_reader_u32(r);
    if (!r->err && halo > 1) r->err = FGL_ERR_FORMAT;
    if (!r->err && halo) { /* checked here for shape; the data's checksum (fgl__data_sum) covers its values */
        uint32_t own, hops;
        int i;
        d->gid = (int *)fgl__get_array(r, 4, (uint64_t)d->n_nodes);
        own = fgl_reader_u32(r);
        hops = fgl_reader_u32(r);
        if (r->err) return r->err;
        if (!d->gid || own > (uint32_t)d->n_nodes || hops < 1 || hops > 8) return r->err = FGL_ERR_FORMAT;
        d->n_own = (int)own;
        d->halo_hops = (int)hops;
        for (i = 0; i < d->n_nodes; i++)
            if (d->gid[i] < 0) return r->err = FGL_ERR_FORMAT;
        /* fgl_split_halo's norm: every edge and a diagonal per row, with values */
        if (!fgl__get_csr(r, &d->adj_gcn) &&
            (d->adj_gcn.rows != d->n_nodes || d->adj_gcn.cols != d->n_nodes || !d->adj_gcn.values ||
             (int64_t)d->adj_gcn.nnz != (int64_t)d->adj.nnz + d->n_nodes))
            r->err = FGL_ERR_FORMAT;
    }
    return r->err;
}

/* A link client's edge split (fgl_link_split_make's result): its pairs and
 * sizes; the receiver rebuilds the training graph from the training pairs
 * and checks the checksum, so a split arrives exactly as it left. */
static void fgl__put_link_split(fgl_bytes *b, const fgl_link_split *ls) {
    int k;
    fgl_bytes_put_u32(b, (uint32_t)ls->n_nodes);
    fgl_bytes_put_u32(b, (uint32_t)ls->hits_k);
    for (k = FGL_SPLIT_TRAIN; k <= FGL_SPLIT_TEST; k++) {
        fgl_bytes_put_u32(b, (uint32_t)ls->n_pos[k]);
        fgl_bytes_put_u32(b, (uint32_t)ls->n_neg[k]);
        fgl__put_ints(b, ls->src[k], (size_t)ls->n_pos[k] + (size_t)ls->n_neg[k]);
        fgl__put_ints(b, ls->dst[k], (size_t)ls->n_pos[k] + (size_t)ls->n_neg[k]);
    }
    fgl_bytes_put_u64(b, ls->sum);
}

/* Into *ls (zeroed first; freed on error) for node data of n_nodes nodes. */
static int fgl__get_link_split(fgl_reader *r, int n_nodes, fgl_link_split *ls) {
    uint32_t nn, hk;
    int k, i;
    memset(ls, 0, sizeof *ls);
    nn = fgl_reader_u32(r);
    hk = fgl_reader_u32(r);
    if (r->err || nn != (uint32_t)n_nodes || nn < 2 || hk < 1 || hk > (uint32_t)INT_MAX) return r->err = FGL_ERR_FORMAT;
    ls->n_nodes = (int)nn;
    ls->hits_k = (int)hk;
    for (k = FGL_SPLIT_TRAIN; k <= FGL_SPLIT_TEST && !r->err; k++) {
        uint32_t np = fgl_reader_u32(r), ng = fgl_reader_u32(r);
        uint64_t n = (uint64_t)np + ng;
        if (r->err || np > (uint32_t)INT_MAX || ng > (uint32_t)INT_MAX || n > (uint64_t)INT_MAX ||
            (k == FGL_SPLIT_TRAIN && (ng != 0 || np < 1))) {
            r->err = FGL_ERR_FORMAT;
            break;
        }
        ls->n_pos[k] = (int)np;
        ls->n_neg[k] = (int)ng;
        ls->src[k] = (int *)fgl__get_array(r, 4, n);
        ls->dst[k] = (int *)fgl__get_array(r, 4, n);
        if (!r->err && n && (!ls->src[k] || !ls->dst[k])) r->err = FGL_ERR_FORMAT;
        for (i = 0; !r->err && i < (int)n; i++) /* node ids of this graph; a positive pair has src < dst */
            if (ls->src[k][i] < 0 || ls->src[k][i] >= n_nodes || ls->dst[k][i] < 0 || ls->dst[k][i] >= n_nodes ||
                (i < (int)np && ls->src[k][i] >= ls->dst[k][i]))
                r->err = FGL_ERR_FORMAT;
    }
    if (!r->err && fgl_reader_u64(r) != fgl__link_sum(ls)) r->err = FGL_ERR_FORMAT;
    if (!r->err)
        r->err = fgl_graph_from_edges(n_nodes, ls->src[FGL_SPLIT_TRAIN], ls->dst[FGL_SPLIT_TRAIN],
                                      ls->n_pos[FGL_SPLIT_TRAIN], FGL_EDGES_SYMMETRIZE, &ls->adj, NULL);
    if (r->err) {
        fgl_link_split_free(ls);
        memset(ls, 0, sizeof *ls);
    } else ls->sum = fgl__link_sum(ls);
    return r->err;
}

static void fgl__put_graph_set(fgl_bytes *b, const fgl_graph_set *s) {
    size_t G = (size_t)s->n_graphs, N = (size_t)s->n_nodes;
    fgl_bytes_put_str(b, s->name);
    fgl_bytes_put_u32(b, (uint32_t)s->n_graphs);
    fgl_bytes_put_u32(b, (uint32_t)s->n_nodes);
    fgl_bytes_put_u32(b, (uint32_t)s->n_classes);
    fgl_bytes_put_u32(b, (uint32_t)s->n_node_label_values);
    fgl_bytes_put_u32(b, (uint32_t)s->n_node_attr);
    fgl_bytes_put_u32(b, (uint32_t)s->n_feat);
    fgl_bytes_put_u32(b, (uint32_t)s->n_pe);
    fgl__put_ints(b, s->node_ptr, G + 1);
    fgl__put_csr(b, &s->adj);
    fgl__put_ints(b, s->y, G);
    fgl_bytes_put_u64(b, s->split ? (uint64_t)G : 0);
    if (s->split) fgl_bytes_put(b, s->split, G);
    fgl__put_ints(b, s->node_labels, N);
    fgl__put_floats(b, s->node_attr, N * (size_t)s->n_node_attr);
    fgl__put_floats(b, s->x, N * (size_t)s->n_feat);
    fgl__put_floats(b, s->pe, N * (size_t)s->n_pe);
}

static int fgl__get_graph_set(fgl_reader *r, fgl_graph_set *s) {
    uint64_t G, N;
    fgl_graph_set_init(s);
    fgl_reader_str(r, s->name, sizeof s->name);
    s->n_graphs = (int)fgl_reader_u32(r);
    s->n_nodes = (int)fgl_reader_u32(r);
    s->n_classes = (int)fgl_reader_u32(r);
    s->n_node_label_values = (int)fgl_reader_u32(r);
    s->n_node_attr = (int)fgl_reader_u32(r);
    s->n_feat = (int)fgl_reader_u32(r);
    s->n_pe = (int)fgl_reader_u32(r);
    if (r->err || s->n_graphs < 0 || s->n_nodes < 0 || s->n_classes < 0 || s->n_node_label_values < 0 ||
        s->n_node_attr < 0 || s->n_feat < 0 || s->n_pe < 0)
        return r->err = FGL_ERR_FORMAT;
    G = (uint64_t)s->n_graphs;
    N = (uint64_t)s->n_nodes;
    s->node_ptr = (int *)fgl__get_array(r, 4, G + 1);
    fgl__get_csr(r, &s->adj);
    s->y = (int *)fgl__get_array(r, 4, G);
    s->split = (unsigned char *)fgl__get_array(r, 1, G);
    s->node_labels = (int *)fgl__get_array(r, 4, N);
    s->node_attr = (float *)fgl__get_array(r, 4, N * (uint64_t)s->n_node_attr);
    s->x = (float *)fgl__get_array(r, 4, N * (uint64_t)s->n_feat);
    s->pe = (float *)fgl__get_array(r, 4, N * (uint64_t)s->n_pe);
    if (!r->err && (!s->node_ptr || s->node_ptr[0] != 0 || s->node_ptr[G] != s->n_nodes || s->adj.rows != s->n_nodes))
        r->err = FGL_ERR_FORMAT;
    return r->err;
}

/* Per client: id, then per declared part a u64 length (0: absent) and the floats. */
static void fgl__put_msg(fgl_bytes *b, int id, const fgl_msg *m, int n_parts) {
    int p;
    fgl_bytes_put_u32(b, (uint32_t)id);
    for (p = 0; p < n_parts; p++) fgl__put_floats(b, m->part[p], m->part[p] ? m->len[p] : 0);
}

/* Read what fgl__put_msg wrote into m: a part whose length is neither 0 nor
 * expected[p] is skipped and makes *bad 1 (the message is refused, not
 * allocated); a length beyond the bytes left fails r. */
static void fgl__get_msg(fgl_reader *r, fgl_msg *m, const fgl_part *decl, int n_parts, const size_t *expected,
                         int *bad) {
    int p;
    m->decl = decl;
    m->n_parts = n_parts;
    fgl__msg_clear(m);
    for (p = 0; p < n_parts && !r->err; p++) {
        uint64_t n = fgl_reader_u64(r);
        float *x;
        if (r->err || n == 0) continue;
        if (n > (uint64_t)(r->len - r->pos) / 4) {
            r->err = FGL_ERR_FORMAT;
            return;
        }
        if (n != (uint64_t)expected[p]) {
            *bad = 1;
            fgl__skip(r, 4 * (size_t)n);
            continue;
        }
        if (!(x = fgl__msg_own(m, p, (size_t)n))) {
            r->err = FGL_ERR_NOMEM;
            return;
        }
        fgl_reader_f32s(r, x, (size_t)n);
    }
}

#endif /* FGL_MPI */
#include "../alone.h"
