/* Tests of fgl_graph.h's loaders and writers: every real dataset of $FGL_DATA
 * against the counts of its README, round trips through the writers, error
 * codes and "file:line:" messages on small malformed datasets, and fuzzing
 * (garbage bytes, every truncation) of each loader. */
#define _POSIX_C_SOURCE 200809L
/* ft_alloc_largest bounds what a loader allocates (ft.h) */
#include "ft.h"
#include "../fgl_graph.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Temporary files                                                          */
/* ------------------------------------------------------------------------ */

static char tmp_dir[256];
static char written[128][320];
static int n_written;

static void tmp_init(void) {
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/fgl_test_loaders_%ld", (long)getpid());
    if (mkdir(tmp_dir, 0700) != 0) printf("# cannot create %s\n", tmp_dir);
}

static void tmp_cleanup(void) {
    int i;
    for (i = 0; i < n_written; i++) remove(written[i]);
    rmdir(tmp_dir);
}

static const char *tmp_path(const char *file) {
    static char p[320];
    snprintf(p, sizeof p, "%s/%s", tmp_dir, file);
    return p;
}

/* Write n bytes (n < 0: strlen) to tmp_dir/file, remembering it for cleanup. */
static void put_file_n(const char *file, const char *text, long n) {
    /* open + write + ftruncate rather than fopen("wb"): ext4 flushes a file
     * truncated to zero and rewritten when it is closed, which made the
     * thousands of rewrites of the fuzz tests slow */
    const char *path = tmp_path(file);
    int fd = open(path, O_WRONLY | O_CREAT, 0600), i, known = 0;
    if (fd < 0) {
        printf("# cannot write %s\n", path);
        return;
    }
    if (n < 0) n = (long)strlen(text);
    if ((n && write(fd, text, (size_t)n) != (ssize_t)n) || ftruncate(fd, (off_t)n) != 0)
        printf("# short write to %s\n", path);
    close(fd);
    for (i = 0; i < n_written; i++) known |= strcmp(written[i], path) == 0;
    if (!known && n_written < 128) strcpy(written[n_written++], path);
}

static void put_file(const char *file, const char *text) { put_file_n(file, text, -1); }

static void del_file(const char *file) { remove(tmp_path(file)); }

/* 1 if the message names "file:line:". */
static int msg_has(const fgl_error *e, const char *file, int line) {
    char pat[128];
    snprintf(pat, sizeof pat, "%s:%d:", file, line);
    return strstr(e->msg, pat) != NULL;
}

static int all_zero(const void *p, size_t n) {
    const unsigned char *c = (const unsigned char *)p;
    size_t i;
    for (i = 0; i < n; i++)
        if (c[i]) return 0;
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Real datasets                                                            */
/* ------------------------------------------------------------------------ */


/* The README table (graphs, average nodes and edges, node info, classes);
 * exact node and undirected edge totals counted independently from the files
 * (edges: distinct unordered pairs of _A.txt, none of them a self loop). */
static const struct {
    const char *name;
    int graphs;
    double avg_nodes, avg_edges;
    int node_labels, attr_dim, classes;
    int nodes, edges;
} tu_expect[] = {
    {"MUTAG", 188, 17.93, 19.79, 7, 0, 2, 3371, 3721},
    {"PTC_MR", 344, 14.29, 14.69, 18, 0, 2, 4915, 5054},
    {"BZR", 405, 35.75, 38.36, 10, 3, 2, 14479, 15535},
    {"COX2", 467, 41.22, 43.45, 8, 3, 2, 19252, 20289},
    {"DHFR", 756, 42.43, 44.54, 9, 3, 2, 32075, 33676},
    {"AIDS", 2000, 15.69, 16.20, 38, 4, 2, 31385, 32390},
    {"NCI1", 4110, 29.87, 32.30, 37, 0, 2, 122747, 132753},
    {"PROTEINS", 1113, 39.06, 72.82, 3, 1, 2, 43471, 81044},
    {"IMDB-BINARY", 1000, 19.77, 96.53, 0, 0, 2, 19773, 96531},
};

static int load_tu_data(const char *name, fgl_graph_set *s, fgl_error *e) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/tu/%s", ft_data_dir(), name);
    return fgl_load_tu(dir, name, s, e);
}

static int load_node_data(const char *name, fgl_node_data *d, fgl_error *e) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/node/%s", ft_data_dir(), name);
    return fgl_load_node(dir, name, d, e);
}

/* Skip the running test unless every dataset it reads is present. */
#define NEED_TU(name) FT_NEED_DATA("tu/" name "/" name "_A.txt")
#define NEED_NODE(name) FT_NEED_DATA("node/" name "/" name ".edges")

static void test_tu_datasets_match_readme(void) {
    size_t i;
    char rel[256];
    for (i = 0; i < sizeof tu_expect / sizeof tu_expect[0]; i++) {
        snprintf(rel, sizeof rel, "tu/%s/%s_A.txt", tu_expect[i].name, tu_expect[i].name);
        FT_NEED_DATA(rel);
    }
    for (i = 0; i < sizeof tu_expect / sizeof tu_expect[0]; i++) {
        fgl_graph_set s;
        fgl_error e;
        int rc = load_tu_data(tu_expect[i].name, &s, &e), E;
        FT_CHECK(rc == FGL_OK, "%s: %s", tu_expect[i].name, e.msg);
        if (rc) continue;
        E = fgl_graph_num_edges(&s.adj);
        FT_CHECK(s.n_graphs == tu_expect[i].graphs, "%s: %d graphs", s.name, s.n_graphs);
        FT_CHECK(s.n_nodes == tu_expect[i].nodes, "%s: %d nodes", s.name, s.n_nodes);
        FT_CHECK(E == tu_expect[i].edges, "%s: %d undirected edges", s.name, E);
        FT_CHECK(s.adj.nnz == 2 * E, "%s: both directions stored, no self loops", s.name);
        FT_CHECK(floor(100.0 * s.n_nodes / s.n_graphs + 0.5) == floor(100.0 * tu_expect[i].avg_nodes + 0.5),
                 "%s: average nodes %.4f vs README %.2f", s.name, (double)s.n_nodes / s.n_graphs,
                 tu_expect[i].avg_nodes);
        FT_CHECK(floor(100.0 * E / s.n_graphs + 0.5) == floor(100.0 * tu_expect[i].avg_edges + 0.5),
                 "%s: average edges %.4f vs README %.2f", s.name, (double)E / s.n_graphs, tu_expect[i].avg_edges);
        FT_CHECK(s.n_node_label_values == tu_expect[i].node_labels && (s.node_labels != NULL) == (tu_expect[i].node_labels > 0),
                 "%s: %d node label values", s.name, s.n_node_label_values);
        FT_CHECK(s.n_node_attr == tu_expect[i].attr_dim, "%s: attribute width %d", s.name, s.n_node_attr);
        FT_CHECK(s.n_classes == tu_expect[i].classes, "%s: %d classes", s.name, s.n_classes);
        FT_CHECK(fgl_graph_set_validate(&s, &e) == FGL_OK, "%s: %s", s.name, e.msg);
        FT_CHECK(strcmp(s.name, tu_expect[i].name) == 0, "name %s", s.name);
        fgl_graph_set_free(&s);
    }
}

static void test_node_datasets_match_readme(void) {
    static const struct {
        const char *name;
        int nodes, edges, feat, classes, sparse;
    } ex[] = {{"Cora", 2708, 5278, 1433, 7, 1}, {"Computers", 13752, 245861, 767, 10, 0}, {"CS", 18333, 81894, 6805, 15, 1}};
    size_t i;
    NEED_NODE("Cora");
    NEED_NODE("Computers");
    NEED_NODE("CS");
    for (i = 0; i < 3; i++) {
        fgl_node_data d;
        fgl_error e;
        int rc = load_node_data(ex[i].name, &d, &e), k, ymax = -1;
        FT_CHECK(rc == FGL_OK, "%s: %s", ex[i].name, e.msg);
        if (rc) continue;
        FT_CHECK(d.n_nodes == ex[i].nodes, "%s: %d nodes", d.name, d.n_nodes);
        FT_CHECK(fgl_graph_num_edges(&d.adj) == ex[i].edges && d.adj.nnz == 2 * ex[i].edges, "%s: %d edges", d.name,
                 fgl_graph_num_edges(&d.adj));
        FT_CHECK(d.n_feat == ex[i].feat, "%s: %d features", d.name, d.n_feat);
        FT_CHECK(d.n_classes == ex[i].classes, "%s: %d classes", d.name, d.n_classes);
        FT_CHECK((d.x_sparse.indptr != NULL) == ex[i].sparse && (d.x.data != NULL) == !ex[i].sparse,
                 "%s: sparse features stay sparse, dense go to x", d.name);
        for (k = 0; k < d.n_nodes; k++) ymax = d.y[k] > ymax ? d.y[k] : ymax;
        FT_CHECK(ymax == ex[i].classes - 1, "%s: labels up to %d", d.name, ymax);
        FT_CHECK(fgl_node_data_validate(&d, &e) == FGL_OK, "%s: %s", d.name, e.msg);
        if (i == 0) {
            FT_CHECK(d.split != NULL, "Cora has its Planetoid split");
            FT_CHECK(fgl_split_indices(d.split, d.n_nodes, FGL_SPLIT_TRAIN, NULL) == 140 &&
                         fgl_split_indices(d.split, d.n_nodes, FGL_SPLIT_VAL, NULL) == 500 &&
                         fgl_split_indices(d.split, d.n_nodes, FGL_SPLIT_TEST, NULL) == 1000,
                     "Planetoid split 140/500/1000");
        }
        if (i == 1) { /* README: 281 isolated nodes, largest component 13381 / 245778 */
            fgl_node_data lcc;
            int iso = 0, bin = 1;
            size_t j;
            for (k = 0; k < d.n_nodes; k++) iso += d.adj.indptr[k + 1] == d.adj.indptr[k];
            FT_CHECK(iso == 281, "Computers: %d isolated nodes", iso);
            FT_CHECK(fgl_node_data_largest_component(&d, &lcc, &e) == FGL_OK, "%s", e.msg);
            FT_CHECK(lcc.n_nodes == 13381 && fgl_graph_num_edges(&lcc.adj) == 245778, "largest component %d / %d",
                     lcc.n_nodes, fgl_graph_num_edges(&lcc.adj));
            fgl_node_data_free(&lcc);
            for (j = 0; j < fgl_tensor_size(&d.x); j++) bin &= d.x.data[j] == 0 || d.x.data[j] == 1;
            FT_CHECK(bin, "Computers features are binary");
        }
        if (i == 2) { /* raw counts 1..105 */
            float lo = 1e30f, hi = -1e30f;
            for (k = 0; k < d.x_sparse.nnz; k++) {
                lo = d.x_sparse.values[k] < lo ? d.x_sparse.values[k] : lo;
                hi = d.x_sparse.values[k] > hi ? d.x_sparse.values[k] : hi;
            }
            FT_CHECK(lo == 1 && hi == 105, "CS counts %g..%g", lo, hi);
        }
        fgl_node_data_free(&d);
    }
}

/* A batch of every graph of s in order is s itself. */
static void check_batch_of_whole_set(fgl_graph_set *s) {
    fgl_batch b;
    fgl_error e;
    int *ids, g, same;
    if (fgl_graph_set_features(s, FGL_FEAT_NODE_LABELS, 0, &e) != FGL_OK) {
        FT_CHECK(0, "features: %s", e.msg);
        return;
    }
    ids = (int *)malloc(sizeof(int) * s->n_graphs);
    for (g = 0; g < s->n_graphs; g++) ids[g] = g;
    FT_CHECK(fgl_batch_make(s, ids, s->n_graphs, &b, &e) == FGL_OK, "%s", e.msg);
    same = b.adj.nnz == s->adj.nnz && memcmp(b.adj.indptr, s->adj.indptr, sizeof(int) * (s->n_nodes + 1)) == 0 &&
           memcmp(b.adj.indices, s->adj.indices, sizeof(int) * s->adj.nnz) == 0 &&
           memcmp(b.offsets, s->node_ptr, sizeof(int) * (s->n_graphs + 1)) == 0 &&
           memcmp(b.x, s->x, sizeof(float) * s->n_nodes * s->n_feat) == 0 && memcmp(b.y, s->y, sizeof(int) * s->n_graphs) == 0;
    FT_CHECK(same, "a batch of every graph in order is the set itself");
    FT_CHECK(fgl_batch_gcn(&b, &e) && fgl_all_finite((size_t)b.adj_gcn.nnz, b.adj_gcn.values), "finite GCN matrix");
    fgl_batch_free(&b);
    free(ids);
}

static void test_batch_of_whole_set_synth(void) {
    fgl_graph_set s;
    fgl_error e;
    if (fgl_synth_graphs(NULL, 4, &s, &e) != FGL_OK) {
        FT_CHECK(0, "%s", e.msg);
        return;
    }
    check_batch_of_whole_set(&s);
    fgl_graph_set_free(&s);
}

static void test_batch_of_whole_set(void) {
    fgl_graph_set s;
    fgl_error e;
    NEED_TU("NCI1");
    if (load_tu_data("NCI1", &s, &e)) {
        FT_CHECK(0, "%s", e.msg);
        return;
    }
    check_batch_of_whole_set(&s);
    fgl_graph_set_free(&s);
}

/* ------------------------------------------------------------------------ */
/* Round trips through the writers                                          */
/* ------------------------------------------------------------------------ */

static int same_csr(const fgl_csr *a, const fgl_csr *b) {
    if (a->rows != b->rows || a->cols != b->cols || a->nnz != b->nnz) return 0;
    if (memcmp(a->indptr, b->indptr, sizeof(int) * (a->rows + 1))) return 0;
    if (a->nnz && memcmp(a->indices, b->indices, sizeof(int) * a->nnz)) return 0;
    if ((a->values == NULL) != (b->values == NULL)) return 0;
    return !a->values || !a->nnz || memcmp(a->values, b->values, sizeof(float) * a->nnz) == 0;
}

static int same_node_data(const fgl_node_data *a, const fgl_node_data *b) {
    int ok = a->n_nodes == b->n_nodes && a->n_feat == b->n_feat && a->n_classes == b->n_classes;
    ok = ok && same_csr(&a->adj, &b->adj) && memcmp(a->y, b->y, sizeof(int) * a->n_nodes) == 0;
    ok = ok && (a->split == NULL) == (b->split == NULL) && (!a->split || memcmp(a->split, b->split, a->n_nodes) == 0);
    ok = ok && (a->x_sparse.indptr == NULL) == (b->x_sparse.indptr == NULL);
    if (ok && a->x_sparse.indptr) ok = same_csr(&a->x_sparse, &b->x_sparse);
    if (ok && a->x.data)
        ok = b->x.data && a->x.rows == b->x.rows && a->x.cols == b->x.cols &&
             memcmp(a->x.data, b->x.data, sizeof(float) * fgl_tensor_size(&a->x)) == 0;
    return ok;
}

static int same_graph_set(const fgl_graph_set *a, const fgl_graph_set *b) {
    int ok = a->n_graphs == b->n_graphs && a->n_nodes == b->n_nodes && a->n_classes == b->n_classes;
    ok = ok && memcmp(a->node_ptr, b->node_ptr, sizeof(int) * (a->n_graphs + 1)) == 0 && same_csr(&a->adj, &b->adj);
    ok = ok && memcmp(a->y, b->y, sizeof(int) * a->n_graphs) == 0;
    ok = ok && a->n_node_label_values == b->n_node_label_values && (a->node_labels == NULL) == (b->node_labels == NULL);
    if (ok && a->node_labels) ok = memcmp(a->node_labels, b->node_labels, sizeof(int) * a->n_nodes) == 0;
    ok = ok && a->n_node_attr == b->n_node_attr;
    if (ok && a->node_attr)
        ok = memcmp(a->node_attr, b->node_attr, sizeof(float) * (size_t)a->n_nodes * a->n_node_attr) == 0;
    return ok;
}

static void test_round_trip_real(void) {
    const char *tu[] = {"MUTAG", "BZR", "AIDS"};
    int i;
    fgl_error e;
    NEED_TU("MUTAG");
    NEED_TU("BZR");
    NEED_TU("AIDS");
    NEED_NODE("Cora");
    for (i = 0; i < 3; i++) {
        fgl_graph_set a, b;
        if (load_tu_data(tu[i], &a, &e)) {
            FT_CHECK(0, "%s", e.msg);
            continue;
        }
        FT_CHECK(fgl_save_tu(&a, tmp_dir, "RT", &e) == FGL_OK, "%s", e.msg);
        FT_CHECK(fgl_load_tu(tmp_dir, "RT", &b, &e) == FGL_OK, "%s", e.msg);
        FT_CHECK(same_graph_set(&a, &b), "%s survives save_tu + load_tu", tu[i]);
        fgl_graph_set_free(&a);
        fgl_graph_set_free(&b);
        del_file("RT_node_labels.txt");
        del_file("RT_node_attributes.txt");
    }
    {
        fgl_node_data a, b;
        if (load_node_data("Cora", &a, &e) == FGL_OK) {
            FT_CHECK(fgl_save_node(&a, tmp_dir, "RN", &e) == FGL_OK, "%s", e.msg);
            FT_CHECK(fgl_load_node(tmp_dir, "RN", &b, &e) == FGL_OK, "%s", e.msg);
            FT_CHECK(same_node_data(&a, &b), "Cora survives save_node + load_node");
            fgl_node_data_free(&a);
            fgl_node_data_free(&b);
        } else
            FT_CHECK(0, "%s", e.msg);
        del_file("RN.split");
    }
}

static void test_round_trip_synth(void) {
    /* The writers on fgl's generators: a graph set with node labels and
     * (added here) 3-wide node attributes, a node dataset with dense
     * features and a split, and the same with its features made sparse. */
    fgl_graph_set a, b;
    fgl_node_data d, d2;
    fgl_error e;
    fgl_rng r;
    int i, k, nnz, *rows, *cols;
    float *vals;
    if (fgl_synth_graphs(NULL, 8, &a, &e) != FGL_OK) {
        FT_CHECK(0, "%s", e.msg);
        return;
    }
    fgl_rng_init(&r, 8, 1);
    a.n_node_attr = 3;
    a.node_attr = (float *)malloc(sizeof(float) * (size_t)a.n_nodes * 3);
    for (i = 0; i < a.n_nodes * 3; i++) a.node_attr[i] = (float)fgl_rng_normal(&r);
    FT_CHECK(fgl_save_tu(&a, tmp_dir, "ST", &e) == FGL_OK, "%s", e.msg);
    FT_CHECK(fgl_load_tu(tmp_dir, "ST", &b, &e) == FGL_OK, "%s", e.msg);
    FT_CHECK(same_graph_set(&a, &b), "synth-graphs survive save_tu + load_tu");
    fgl_graph_set_free(&a);
    fgl_graph_set_free(&b);
    del_file("ST_A.txt");
    del_file("ST_graph_indicator.txt");
    del_file("ST_graph_labels.txt");
    del_file("ST_node_labels.txt");
    del_file("ST_node_attributes.txt");
    if (fgl_synth_node(NULL, 8, &d, NULL, &e) != FGL_OK) {
        FT_CHECK(0, "%s", e.msg);
        return;
    }
    fgl_split_nodes_random(&d, 0.2, 0.3, 8, NULL);
    FT_CHECK(fgl_save_node(&d, tmp_dir, "SN", &e) == FGL_OK, "%s", e.msg);
    FT_CHECK(fgl_load_node(tmp_dir, "SN", &d2, &e) == FGL_OK, "%s", e.msg);
    FT_CHECK(same_node_data(&d, &d2), "synth-node (dense features, split) survives save_node + load_node");
    fgl_node_data_free(&d2);
    /* sparse: keep the positive entries */
    rows = (int *)malloc(sizeof(int) * fgl_tensor_size(&d.x));
    cols = (int *)malloc(sizeof(int) * fgl_tensor_size(&d.x));
    vals = (float *)malloc(sizeof(float) * fgl_tensor_size(&d.x));
    for (nnz = 0, i = 0; i < d.x.rows; i++)
        for (k = 0; k < d.x.cols; k++)
            if (FGL_AT(&d.x, i, k) > 0) {
                rows[nnz] = i;
                cols[nnz] = k;
                vals[nnz++] = FGL_AT(&d.x, i, k);
            }
    FT_CHECK(fgl_csr_from_coo(d.x.rows, d.x.cols, nnz, rows, cols, vals, 0, &d.x_sparse, &e) == FGL_OK, "%s", e.msg);
    fgl_tensor_free(&d.x);
    FT_CHECK(fgl_save_node(&d, tmp_dir, "SN", &e) == FGL_OK, "%s", e.msg);
    FT_CHECK(fgl_load_node(tmp_dir, "SN", &d2, &e) == FGL_OK, "%s", e.msg);
    FT_CHECK(d2.x_sparse.indptr && same_node_data(&d, &d2), "synth-node (sparse features) survives save_node + load_node");
    fgl_node_data_free(&d);
    fgl_node_data_free(&d2);
    free(rows);
    free(cols);
    free(vals);
    del_file("SN.edges");
    del_file("SN.labels");
    del_file("SN.features");
    del_file("SN.split");
}

static void test_round_trip_random_floats(void) {
    /* Arbitrary floats (tiny, huge, negative) survive the text format exactly. */
    fgl_node_data a, b;
    fgl_error e;
    fgl_rng r;
    int i, j, s[40], t[40];
    fgl_rng_init(&r, 99, 0);
    memset(&a, 0, sizeof a);
    a.n_nodes = 40;
    a.n_feat = 7;
    a.n_classes = 4;
    for (i = 0; i < 40; i++) {
        s[i] = i;
        t[i] = (int)fgl_rng_below(&r, 40);
    }
    fgl_graph_from_edges(40, s, t, 40, FGL_EDGES_SYMMETRIZE | FGL_EDGES_DROP_SELF_LOOPS, &a.adj, NULL);
    fgl_tensor_init(&a.x, 40, 7);
    a.y = (int *)malloc(sizeof(int) * 40);
    for (i = 0; i < 40; i++) {
        a.y[i] = (int)fgl_rng_below(&r, 5) - 1;
        for (j = 0; j < 7; j++)
            FGL_AT(&a.x, i, j) = (float)(fgl_rng_normal(&r) * pow(10.0, (double)((int)fgl_rng_below(&r, 60) - 30)));
    }
    a.y[0] = 3;
    FGL_AT(&a.x, 0, 0) = -0.0f;
    FGL_AT(&a.x, 0, 1) = 16777217.0f;
    FGL_AT(&a.x, 0, 2) = 3.4028234e38f;
    FGL_AT(&a.x, 0, 3) = 1e-45f;
    a.n_classes = 4;
    FT_CHECK(fgl_save_node(&a, tmp_dir, "RF", &e) == FGL_OK, "%s", e.msg);
    FT_CHECK(fgl_load_node(tmp_dir, "RF", &b, &e) == FGL_OK, "%s", e.msg);
    FT_CHECK(b.n_nodes == 40 && same_node_data(&a, &b), "floats written with %%.9g read back bit-exactly");
    fgl_node_data_free(&a);
    fgl_node_data_free(&b);
}

/* ------------------------------------------------------------------------ */
/* Small hand-written datasets                                               */
/* ------------------------------------------------------------------------ */

static const char *TU_FILES[][2] = {
    {"T_graph_indicator.txt", "1\n1\n1\n2\n2\n3\n"},
    {"T_graph_labels.txt", "-1\n1\n1\n"},
    {"T_A.txt", "1, 2\n2, 1\n2, 3\n3, 2\n4, 5\n5, 4\n"},
    {"T_node_labels.txt", "3\n5\n3\n7\n5\n3\n"},
    {"T_node_attributes.txt", " 1.5, 2\n 0.25,-3\n1e2, 4\n0,0\n1,1\n2, 2\n"},
};

#define TU_ZERO_ATTR "0, 0\n0,0\n 0.0, -0\n0,0\n0,0\n0,0\n"

static void write_tu(void) {
    int i;
    for (i = 0; i < 5; i++) put_file(TU_FILES[i][0], TU_FILES[i][1]);
    put_file("T_edge_labels.txt", "whatever, this file is ignored\n");
}

static void test_tu_small_valid(void) {
    fgl_graph_set s;
    fgl_error e;
    write_tu();
    FT_CHECK(fgl_load_tu(tmp_dir, "T", &s, &e) == FGL_OK, "%s", e.msg);
    FT_CHECK(s.n_graphs == 3 && s.n_nodes == 6 && s.n_classes == 2, "sizes");
    FT_CHECK(s.node_ptr[1] == 3 && s.node_ptr[2] == 5 && s.node_ptr[3] == 6, "node_ptr");
    FT_CHECK(s.y[0] == 0 && s.y[1] == 1 && s.y[2] == 1, "-1/1 remapped to 0/1");
    FT_CHECK(s.n_node_label_values == 3 && s.node_labels[0] == 0 && s.node_labels[1] == 1 && s.node_labels[3] == 2,
             "node labels 3/5/7 -> 0/1/2");
    FT_CHECK(s.n_node_attr == 2 && s.node_attr[0] == 1.5f && s.node_attr[3] == -3.0f && s.node_attr[4] == 100.0f,
             "padded attributes");
    FT_CHECK(fgl_graph_num_edges(&s.adj) == 3 && fgl_graph_set_validate(&s, &e) == FGL_OK, "3 edges");
    fgl_graph_set_free(&s);

    /* a UTF-8 BOM, CRLF, trailing blanks, blank lines at the end, self loops and repeated
     * edges (IMDB lists every edge twice) load to the same set */
    put_file("T_graph_indicator.txt", "\xEF\xBB\xBF" "1 \r\n1\t\r\n1\r\n2\r\n2\r\n3\r\n\r\n  \r\n");
    put_file("T_A.txt", "1,2\n2, 1\n1, 1\n2 ,3\n3, 2\n2, 3\n3, 2\n4, 5\n5, 4\n5,4\n\n");
    FT_CHECK(fgl_load_tu(tmp_dir, "T", &s, &e) == FGL_OK, "%s", e.msg);
    FT_CHECK(s.n_nodes == 6 && fgl_graph_num_edges(&s.adj) == 3 && s.adj.nnz == 6, "dedup + self loop dropped");
    fgl_graph_set_free(&s);
    put_file("T_graph_indicator.txt", TU_FILES[0][1]);
    put_file("T_A.txt", TU_FILES[2][1]);

    /* optional files may be absent */
    del_file("T_node_labels.txt");
    del_file("T_node_attributes.txt");
    FT_CHECK(fgl_load_tu(tmp_dir, "T", &s, &e) == FGL_OK && !s.node_labels && !s.node_attr, "structure only");
    fgl_graph_set_free(&s);
    write_tu();
}

/* Load T with file `file` replaced by `text`; expect code and "file:line:". */
static void tu_expect_error(const char *file, const char *text, int code, int line) {
    fgl_graph_set s;
    fgl_error e;
    int rc, i;
    write_tu();
    put_file(file, text);
    memset(&s, 0x5a, sizeof s);
    rc = fgl_load_tu(tmp_dir, "T", &s, &e);
    FT_CHECK(rc == code, "%s: got %s (%s), expected %s", file, fgl_result_name(rc), e.msg, fgl_result_name(code));
    FT_CHECK(e.code == rc, "err->code matches");
    if (line > 0) FT_CHECK(msg_has(&e, file, line), "message '%s' should name %s:%d:", e.msg, file, line);
    FT_CHECK(all_zero(&s, sizeof s), "output zeroed on error");
    for (i = 0; i < 5; i++)
        if (strcmp(TU_FILES[i][0], file) == 0) put_file(file, TU_FILES[i][1]);
}

static void test_tu_errors(void) {
    fgl_graph_set s;
    fgl_error e;
    int rc;
    write_tu();
    /* missing file */
    del_file("T_A.txt");
    rc = fgl_load_tu(tmp_dir, "T", &s, &e);
    FT_CHECK(rc == FGL_ERR_IO && strstr(e.msg, "T_A.txt"), "missing _A.txt: %s", e.msg);
    rc = fgl_load_tu(tmp_dir, "NOPE", &s, &e);
    FT_CHECK(rc == FGL_ERR_IO && strstr(e.msg, "NOPE_graph_indicator.txt"), "missing dataset: %s", e.msg);
    write_tu();
    /* unparsable numbers */
    tu_expect_error("T_graph_indicator.txt", "1\n1\nx1\n2\n2\n3\n", FGL_ERR_PARSE, 3);
    tu_expect_error("T_graph_indicator.txt", "1\n1\n1\n2\n2\n3abc\n", FGL_ERR_PARSE, 6);
    tu_expect_error("T_A.txt", "1, 2\n2; 1\n", FGL_ERR_PARSE, 2);
    tu_expect_error("T_A.txt", "1, 2\n2, 1 7\n", FGL_ERR_PARSE, 2);
    tu_expect_error("T_node_attributes.txt", " 1.5, 2\n 0.25,-3\n1e2, 4\n0,0\n1,1.2.3\n2, 2\n", FGL_ERR_PARSE, 5);
    tu_expect_error("T_node_attributes.txt", " 1.5, 2\n nan, 1\n1e2, 4\n0,0\n1,1\n2, 2\n", FGL_ERR_NONFINITE, 2);
    tu_expect_error("T_graph_labels.txt", "-1\n1\n99999999999\n", FGL_ERR_RANGE, 3);
    /* ids out of range */
    tu_expect_error("T_A.txt", "1, 2\n2, 9\n", FGL_ERR_RANGE, 2);
    tu_expect_error("T_A.txt", "1, 2\n0, 1\n", FGL_ERR_RANGE, 2);
    tu_expect_error("T_graph_indicator.txt", "1\n1\n0\n", FGL_ERR_RANGE, 3);
    /* inconsistent counts */
    tu_expect_error("T_graph_labels.txt", "-1\n1\n", FGL_ERR_SHAPE, 3);
    tu_expect_error("T_graph_labels.txt", "-1\n1\n1\n1\n", FGL_ERR_SHAPE, 4);
    tu_expect_error("T_node_labels.txt", "3\n5\n3\n7\n5\n", FGL_ERR_SHAPE, 6);
    tu_expect_error("T_node_attributes.txt", " 1.5, 2\n 0.25,-3\n1e2, 4\n0,0,0\n1,1\n2, 2\n", FGL_ERR_SHAPE, 4);
    tu_expect_error("T_node_attributes.txt", " 1.5, 2\n 0.25\n1e2, 4\n0,0\n1,1\n2, 2\n", FGL_ERR_SHAPE, 2);
    tu_expect_error("T_node_attributes.txt", " 1.5, 2\n 0.25,-3\n1e2, 4\n0,0\n1,1\n", FGL_ERR_SHAPE, 6);
    /* graph indicator structure */
    tu_expect_error("T_graph_indicator.txt", "1\n1\n2\n1\n3\n3\n", FGL_ERR_FORMAT, 4);
    tu_expect_error("T_graph_indicator.txt", "1\n1\n1\n3\n3\n3\n", FGL_ERR_FORMAT, 4);
    tu_expect_error("T_graph_indicator.txt", "2\n2\n", FGL_ERR_FORMAT, 1);
    tu_expect_error("T_A.txt", "1, 2\n3, 4\n", FGL_ERR_FORMAT, 2);
    /* truncated lines and blank lines in the middle */
    tu_expect_error("T_A.txt", "1, 2\n2, 1\n2,", FGL_ERR_FORMAT, 3);
    tu_expect_error("T_A.txt", "1, 2\n\n2, 1\n", FGL_ERR_FORMAT, 2);
    /* empty dataset */
    tu_expect_error("T_graph_indicator.txt", "", FGL_ERR_EMPTY, 1);
    tu_expect_error("T_graph_indicator.txt", "\n \n", FGL_ERR_EMPTY, 1);
    write_tu();
}

static const char *NODE_FILES[][2] = {
    {"N.features", "4 3\n1 0 0.5\n0 1 0\n0 0 1\n1 1 1\n"},
    {"N.labels", "0\n1\n2\n1\n"},
    {"N.edges", "0 1\n1 2\n2 3\n"},
    {"N.split", "1\n2\n3\n0\n"},
};

static void write_node(void) {
    int i;
    for (i = 0; i < 4; i++) put_file(NODE_FILES[i][0], NODE_FILES[i][1]);
}

static void node_expect_error(const char *file, const char *text, int code, int line) {
    fgl_node_data d;
    fgl_error e;
    int rc;
    write_node();
    put_file(file, text);
    memset(&d, 0x5a, sizeof d);
    rc = fgl_load_node(tmp_dir, "N", &d, &e);
    FT_CHECK(rc == code, "%s: got %s (%s), expected %s", file, fgl_result_name(rc), e.msg, fgl_result_name(code));
    if (line > 0) FT_CHECK(msg_has(&e, file, line), "message '%s' should name %s:%d:", e.msg, file, line);
    FT_CHECK(all_zero(&d, sizeof d), "output zeroed on error");
    write_node();
}

static void test_node_small(void) {
    fgl_node_data d;
    fgl_error e;
    int rc;
    write_node();
    rc = fgl_load_node(tmp_dir, "N", &d, &e);
    FT_CHECK(rc == FGL_OK, "%s", e.msg);
    if (rc == FGL_OK) {
        FT_CHECK(d.n_nodes == 4 && d.n_feat == 3 && d.n_classes == 3 && d.x.data && !d.x_sparse.indptr, "dense");
        FT_CHECK(FGL_AT(&d.x, 0, 2) == 0.5f && FGL_AT(&d.x, 3, 1) == 1.0f, "values");
        FT_CHECK(d.split[0] == FGL_SPLIT_TRAIN && d.split[1] == FGL_SPLIT_VAL && d.split[2] == FGL_SPLIT_TEST &&
                     d.split[3] == FGL_SPLIT_NONE, "Planetoid codes");
        FT_CHECK(fgl_graph_num_edges(&d.adj) == 3 && fgl_node_data_validate(&d, &e) == FGL_OK, "graph");
        fgl_node_data_free(&d);
    }
    put_file("N.features", "4 3 5\r\n0 0 1\r\n1 1 2.5\r\n2 2 1\r\n3 0 1\r\n3 2 4\r\n");
    del_file("N.split");
    rc = fgl_load_node(tmp_dir, "N", &d, &e);
    FT_CHECK(rc == FGL_OK, "%s", e.msg);
    if (rc == FGL_OK) {
        FT_CHECK(d.x_sparse.indptr && !d.x.data && d.x_sparse.nnz == 5 && !d.split, "sparse stays sparse, no split");
        FT_CHECK(d.x_sparse.values[1] == 2.5f && d.x_sparse.indptr[3] == 3, "triplets");
        fgl_node_data_free(&d);
    }
    write_node();
    node_expect_error("N.features", "", FGL_ERR_EMPTY, 1);
    node_expect_error("N.features", "0 3\n", FGL_ERR_EMPTY, 2);
    node_expect_error("N.features", "4 3\n1 0 0.5\n0 abc 0\n0 0 1\n1 1 1\n", FGL_ERR_PARSE, 3);
    node_expect_error("N.features", "4 3\n1 0 0.5\n0 1\n0 0 1\n1 1 1\n", FGL_ERR_SHAPE, 3);
    node_expect_error("N.features", "4 3\n1 0 0.5\n0 1 0 1\n0 0 1\n1 1 1\n", FGL_ERR_SHAPE, 3);
    node_expect_error("N.features", "4 3\n1 0 0.5\n0 1 0\n0 0 1\n", FGL_ERR_FORMAT, 5);
    node_expect_error("N.features", "4 3\n1 0 0.5\n0 1 0\n0 0 1\n1 1", FGL_ERR_FORMAT, 5);
    node_expect_error("N.features", "4 3\n1 0 0.5\n0 1 0\n0 0 1\n1 1 1\n0 0 0\n", FGL_ERR_SHAPE, 6);
    node_expect_error("N.features", "1000000 1000000\n1 2 3\n", FGL_ERR_FORMAT, 2);
    node_expect_error("N.features", "4 3 3\n0 0 1.000000\n1 1 1.000000\n", FGL_ERR_FORMAT, 4);
    node_expect_error("N.features", "4 3 30\n0 0 1\n1 1 1\n", FGL_ERR_FORMAT, 2);
    node_expect_error("N.features", "4 3 2\n0 0 1\n1 1 1\n2 2 1\n", FGL_ERR_SHAPE, 4);
    node_expect_error("N.features", "4 3 2\n0 0 1\n1 3 1\n", FGL_ERR_RANGE, 3);
    node_expect_error("N.features", "4 3 2\n0 0 1\n4 0 1\n", FGL_ERR_RANGE, 3);
    node_expect_error("N.labels", "0\n1\n2\n", FGL_ERR_SHAPE, 4);
    node_expect_error("N.labels", "0\n1\n2\n1\n1\n", FGL_ERR_SHAPE, 5);
    node_expect_error("N.labels", "0\n-2\n2\n1\n", FGL_ERR_RANGE, 2);
    node_expect_error("N.labels", "0\n1.0\n2\n1\n", FGL_ERR_PARSE, 2);
    node_expect_error("N.edges", "0 1\n1 2\n2 4\n", FGL_ERR_RANGE, 3);
    node_expect_error("N.edges", "0 1\n1 -1\n", FGL_ERR_RANGE, 2);
    node_expect_error("N.edges", "0 1\n1\n", FGL_ERR_FORMAT, 2);
    node_expect_error("N.split", "1\n5\n3\n0\n", FGL_ERR_RANGE, 2);
    node_expect_error("N.split", "1\n2\n3\n", FGL_ERR_SHAPE, 4);
    del_file("N.labels");
    rc = fgl_load_node(tmp_dir, "N", &d, &e);
    FT_CHECK(rc == FGL_ERR_IO && strstr(e.msg, "N.labels"), "missing labels: %s", e.msg);
    write_node();
}

static const char *LINQS_FILES[][2] = {
    {"L.content", "p1\t1\t0\t0\tB\np2\t0\t1\t0\tA\nx_3\t0\t0\t0.5\tC\np4\t1\t1\t0\tA\n"},
    {"L.cites", "p1 p2\np2 x_3\nzz p1\np4 p4\np2\tp1\n"},
};

static void write_linqs(void) {
    put_file(LINQS_FILES[0][0], LINQS_FILES[0][1]);
    put_file(LINQS_FILES[1][0], LINQS_FILES[1][1]);
}

static void linqs_expect_error(const char *file, const char *text, int code, int line) {
    fgl_node_data d;
    fgl_error e;
    int rc;
    write_linqs();
    put_file(file, text);
    rc = fgl_load_linqs(tmp_dir, "L", &d, NULL, &e);
    FT_CHECK(rc == code, "%s: got %s (%s), expected %s", file, fgl_result_name(rc), e.msg, fgl_result_name(code));
    if (line > 0) FT_CHECK(msg_has(&e, file, line), "message '%s' should name %s:%d:", e.msg, file, line);
    FT_CHECK(all_zero(&d, sizeof d), "output zeroed on error");
    write_linqs();
}

static void test_linqs_small(void) {
    fgl_node_data d;
    fgl_error e;
    int dropped = -1, rc;
    write_linqs();
    rc = fgl_load_linqs(tmp_dir, "L", &d, &dropped, &e);
    FT_CHECK(rc == FGL_OK, "%s", e.msg);
    if (rc == FGL_OK) {
        FT_CHECK(d.n_nodes == 4 && d.n_feat == 3 && d.n_classes == 3, "sizes %d %d %d", d.n_nodes, d.n_feat, d.n_classes);
        FT_CHECK(d.y[0] == 1 && d.y[1] == 0 && d.y[2] == 2 && d.y[3] == 0, "classes A, B, C -> 0, 1, 2");
        FT_CHECK(d.x_sparse.nnz == 5 && d.x_sparse.values[2] == 0.5f && d.x_sparse.indices[2] == 2, "features");
        FT_CHECK(dropped == 1, "one cite names an unknown paper: %d", dropped);
        FT_CHECK(fgl_graph_num_edges(&d.adj) == 2, "p1-p2, p2-x_3 (self loop and repeat dropped)");
        FT_CHECK(fgl_node_data_validate(&d, &e) == FGL_OK, "%s", e.msg);
        fgl_node_data_free(&d);
    }
    linqs_expect_error("L.content", "p1\t1\t0\t0\tB\np2\t0\t1\t0\tA\np1\t0\t0\t1\tC\n", FGL_ERR_FORMAT, 3);
    linqs_expect_error("L.content", "p1\t1\t0\t0\tB\np2\t0\t1\tA\n", FGL_ERR_SHAPE, 2);
    linqs_expect_error("L.content", "p1\t1\t0\t0\tB\np2\t0\tq\t0\tA\n", FGL_ERR_PARSE, 2);
    linqs_expect_error("L.content", "p1 B\n", FGL_ERR_SHAPE, 1);
    linqs_expect_error("L.content", "\n", FGL_ERR_EMPTY, 1);
    linqs_expect_error("L.cites", "p1 p2\np2\n", FGL_ERR_FORMAT, 2);
    linqs_expect_error("L.cites", "p1 p2\np2 p1 p4\n", FGL_ERR_PARSE, 2);
    del_file("L.cites");
    rc = fgl_load_linqs(tmp_dir, "L", &d, NULL, &e);
    FT_CHECK(rc == FGL_ERR_IO && strstr(e.msg, "L.cites"), "missing cites: %s", e.msg);
    write_linqs();
}

static const char *CSV_FILES[][2] = {
    {"edge.csv", "0,1\n1,2\n2,0\n"},
    {"node-feat.csv", "1.0,2.0\n3,4\n-5e-1,6\n"},
    {"node-label.csv", "0\n1\n1\n"},
};

static void write_csv(void) {
    int i;
    for (i = 0; i < 3; i++) put_file(CSV_FILES[i][0], CSV_FILES[i][1]);
}

static int load_csv_tmp(fgl_node_data *d, fgl_error *e) {
    char a[320], b[320], c[320];
    strcpy(a, tmp_path("edge.csv"));
    strcpy(b, tmp_path("node-feat.csv"));
    strcpy(c, tmp_path("node-label.csv"));
    return fgl_load_csv(a, b, c, d, e);
}

static void csv_expect_error(const char *file, const char *text, int code, const char *msg_file, int line) {
    fgl_node_data d;
    fgl_error e;
    int rc;
    write_csv();
    put_file(file, text);
    rc = load_csv_tmp(&d, &e);
    FT_CHECK(rc == code, "%s: got %s (%s), expected %s", file, fgl_result_name(rc), e.msg, fgl_result_name(code));
    if (line > 0) FT_CHECK(msg_has(&e, msg_file, line), "message '%s' should name %s:%d:", e.msg, msg_file, line);
    FT_CHECK(all_zero(&d, sizeof d), "output zeroed on error");
    write_csv();
}

static void test_csv_small(void) {
    fgl_node_data d;
    fgl_error e;
    int rc;
    write_csv();
    rc = load_csv_tmp(&d, &e);
    FT_CHECK(rc == FGL_OK, "%s", e.msg);
    if (rc == FGL_OK) {
        FT_CHECK(d.n_nodes == 3 && d.n_feat == 2 && d.n_classes == 2 && FGL_AT(&d.x, 2, 0) == -0.5f, "values");
        FT_CHECK(fgl_graph_num_edges(&d.adj) == 3 && fgl_node_data_validate(&d, &e) == FGL_OK, "triangle");
        fgl_node_data_free(&d);
    }
    csv_expect_error("node-feat.csv", "1.0,2.0\n3\n-5e-1,6\n", FGL_ERR_SHAPE, "node-feat.csv", 2);
    csv_expect_error("node-feat.csv", "1.0,2.0\n3,4,5\n-5e-1,6\n", FGL_ERR_SHAPE, "node-feat.csv", 2);
    csv_expect_error("node-feat.csv", "1.0,2.0\n3,4\n", FGL_ERR_SHAPE, "node-feat.csv", 3);
    csv_expect_error("node-feat.csv", "1.0,2.0\n3,x4\n-5e-1,6\n", FGL_ERR_PARSE, "node-feat.csv", 2);
    csv_expect_error("node-label.csv", "0\n1\n1\n1\n", FGL_ERR_SHAPE, "node-feat.csv", 4);
    csv_expect_error("node-label.csv", "", FGL_ERR_EMPTY, "node-label.csv", 1);
    csv_expect_error("edge.csv", "0,1\n1,3\n", FGL_ERR_RANGE, "edge.csv", 2);
    csv_expect_error("edge.csv", "0,1\n1,,2\n", FGL_ERR_PARSE, "edge.csv", 2);
}

/* ------------------------------------------------------------------------ */
/* Hostile files (issue 16)                                                 */
/* ------------------------------------------------------------------------ */
/* Each file announces sizes or holds values that must be refused before
 * anything of that size is allocated: the loader must answer with the
 * error, a message naming the problem, a zeroed output, no allocation
 * larger than max_alloc (64 KiB for files of a few bytes: what is read is
 * proportional to the files, what is announced is not) and within a
 * second. */

#define HOSTILE_MAX_ALLOC ((size_t)64 << 10)

static size_t max_alloc = HOSTILE_MAX_ALLOC;

static void hostile_check(const char *what, int rc, const fgl_error *e, int code, const char *needle, const void *out,
                          size_t out_size, double secs) {
    FT_CHECK(rc == code && strstr(e->msg, needle), "%s: got %s (%s), expected %s naming '%s'", what,
             fgl_result_name(rc), e->msg, fgl_result_name(code), needle);
    FT_CHECK(all_zero(out, out_size), "%s: output not zeroed on error", what);
    FT_CHECK(ft_alloc_largest <= max_alloc, "%s: allocated %zu bytes at once", what, ft_alloc_largest);
    FT_CHECK(secs < 1.0, "%s: took %.2f s", what, secs);
}

/* The node dataset N with one file replaced. */
static void node_hostile(const char *file, const char *text, int code, const char *needle) {
    fgl_node_data d;
    fgl_error e;
    double t0;
    int rc;
    write_node();
    put_file(file, text);
    memset(&d, 0x5a, sizeof d);
    ft_alloc_reset();
    t0 = fgl_now();
    rc = fgl_load_node(tmp_dir, "N", &d, &e);
    hostile_check(text, rc, &e, code, needle, &d, sizeof d, fgl_now() - t0);
    if (rc == FGL_OK) fgl_node_data_free(&d);
    write_node();
}

/* A sparse-features header declaring far more nodes than the other files
 * hold: 3e8 used to cost 2.3 GB and 20 s before an error, 2147483646 more
 * than a minute, and 2147483647 overflowed rows + 1. The labels file (4
 * labels) bounds the node count before anything is allocated. */
static void test_hostile_node_count(void) {
    node_hostile("N.features", "300000000 3 1\n0 0 1\n", FGL_ERR_SHAPE, "4 labels for 300000000 nodes");
    node_hostile("N.features", "2147483646 3 1\n0 0 1\n", FGL_ERR_SHAPE, "4 labels for 2147483646 nodes");
    node_hostile("N.features", "2147483647 3 1\n0 0 1\n", FGL_ERR_SHAPE, "4 labels for 2147483647 nodes");
    /* a dense header cannot be held by the file's bytes */
    node_hostile("N.features", "2147483647 3\n0 0 1\n", FGL_ERR_FORMAT, "truncated");
    /* a feature count beyond the documented cap (sparse: the columns need
     * not appear in the file, so the file's length cannot bound them) */
    node_hostile("N.features", "4 2147483647 1\n0 0 1\n", FGL_ERR_RANGE, "feature count 2147483647");
    node_hostile("N.features", "4 16777217 1\n0 0 1\n", FGL_ERR_RANGE, "feature count 16777217");
}

/* Labels give n_classes = max + 1: a label of 1e9 made a billion classes,
 * 2147483647 overflowed n_classes to a negative number. Both loaders that
 * take labels as they are (node layout, CSV) cap classes at FGL_MAX_CLASSES. */
static void test_hostile_labels(void) {
    fgl_node_data d;
    fgl_error e;
    double t0;
    int rc, i;
    static const char *csv_labels[2] = {"0\n1000000000\n1\n", "0\n2147483647\n1\n"};
    node_hostile("N.labels", "0\n1000000000\n2\n1\n", FGL_ERR_RANGE, "label 1000000000");
    node_hostile("N.labels", "0\n2147483647\n2\n1\n", FGL_ERR_RANGE, "label 2147483647");
    node_hostile("N.labels", "0\n1048576\n2\n1\n", FGL_ERR_RANGE, "label 1048576");
    for (i = 0; i < 2; i++) {
        write_csv();
        put_file("node-label.csv", csv_labels[i]);
        memset(&d, 0x5a, sizeof d);
        ft_alloc_reset();
        t0 = fgl_now();
        rc = load_csv_tmp(&d, &e);
        hostile_check(csv_labels[i], rc, &e, FGL_ERR_RANGE, i ? "label 2147483647" : "label 1000000000", &d, sizeof d,
                      fgl_now() - t0);
        FT_CHECK(msg_has(&e, "node-label.csv", 2), "message names the line: %s", e.msg);
        if (rc == FGL_OK) fgl_node_data_free(&d);
    }
    write_csv();
    /* the largest label under the cap is refused too: 4 labels cannot use
     * half of 2^20 classes (issue 49: a stray label is not a class) */
    node_hostile("N.labels", "0\n1048575\n2\n1\n", FGL_ERR_RANGE, "label 1048575: the labels make 1048576 classes");
}

/* Labels that make classes no node has, or no class at all (issue 49): one
 * label 99 in a copy of Cora made 100 classes (accuracy 32.2 -> 22.2), all
 * labels -1 gave "out_dim 0 must be positive" much later. Both loaders that
 * take labels as they are refuse them naming the file (and line); a few
 * empty classes still load. */
static void test_label_sanity(void) {
    fgl_node_data d;
    fgl_error e;
    int rc;
    /* 7 used classes and a stray 99: 100 classes, 92 empty */
    write_node();
    put_file("N.features", "9 3\n1 0 0\n0 1 0\n0 0 1\n1 1 0\n1 0 0\n0 1 0\n0 0 1\n1 1 1\n1 0 1\n");
    put_file("N.labels", "0\n1\n2\n3\n4\n99\n5\n6\n0\n");
    put_file("N.edges", "0 1\n");
    del_file("N.split");
    rc = fgl_load_node(tmp_dir, "N", &d, &e);
    FT_CHECK(rc == FGL_ERR_RANGE && msg_has(&e, "N.labels", 6) && strstr(e.msg, "label 99") &&
                 strstr(e.msg, "100 classes but only 8 hold a node") && strstr(e.msg, "classes 7..98"),
             "a stray label 99: %s (%s)", fgl_result_name(rc), e.msg);
    if (rc == FGL_OK) fgl_node_data_free(&d);
    /* a few empty classes load (a client's nodes saved alone): 0 2 5 of 6 */
    put_file("N.labels", "0\n2\n5\n0\n2\n5\n0\n2\n-1\n");
    rc = fgl_load_node(tmp_dir, "N", &d, &e);
    FT_CHECK(rc == FGL_OK && d.n_classes == 6, "classes 0, 2, 5: %s (%d classes)", e.msg, rc ? 0 : d.n_classes);
    if (rc == FGL_OK) fgl_node_data_free(&d);
    /* nothing labelled */
    put_file("N.labels", "-1\n-1\n-1\n-1\n-1\n-1\n-1\n-1\n-1\n");
    rc = fgl_load_node(tmp_dir, "N", &d, &e);
    FT_CHECK(rc == FGL_ERR_EMPTY && strstr(e.msg, "N.labels") && strstr(e.msg, "all 9 labels are -1"),
             "all unlabelled: %s (%s)", fgl_result_name(rc), e.msg);
    if (rc == FGL_OK) fgl_node_data_free(&d);
    /* negative labels other than -1: the file and line */
    put_file("N.labels", "0\n1\n2\n-5\n0\n1\n2\n0\n1\n");
    rc = fgl_load_node(tmp_dir, "N", &d, &e);
    FT_CHECK(rc == FGL_ERR_RANGE && msg_has(&e, "N.labels", 4) && strstr(e.msg, "label -5"), "label -5: %s", e.msg);
    if (rc == FGL_OK) fgl_node_data_free(&d);
    write_node();
    /* CSV: the same rules */
    write_csv();
    put_file("node-label.csv", "0\n99\n1\n");
    rc = load_csv_tmp(&d, &e);
    FT_CHECK(rc == FGL_ERR_RANGE && msg_has(&e, "node-label.csv", 2) && strstr(e.msg, "classes 2..98"), "csv 99: %s",
             e.msg);
    if (rc == FGL_OK) fgl_node_data_free(&d);
    put_file("node-label.csv", "-1\n-1\n-1\n");
    rc = load_csv_tmp(&d, &e);
    FT_CHECK(rc == FGL_ERR_EMPTY && strstr(e.msg, "all 3 labels are -1"), "csv unlabelled: %s", e.msg);
    if (rc == FGL_OK) fgl_node_data_free(&d);
    write_csv();
}

/* Features that are all zero carry nothing (issue 49: accepted without a
 * word): refused by every loader, naming the file. */
static void test_all_zero_features(void) {
    fgl_node_data d;
    fgl_graph_set s;
    fgl_error e;
    int rc;
    node_expect_error("N.features", "4 3\n0 0 0\n0 0 0\n0.0 0 0\n0 -0 0\n", FGL_ERR_EMPTY, 0);
    node_expect_error("N.features", "4 3 0\n", FGL_ERR_EMPTY, 0);
    node_expect_error("N.features", "4 3 2\n0 0 0\n2 1 0\n", FGL_ERR_EMPTY, 0);
    write_node();
    put_file("N.features", "4 3\n0 0 0\n0 0 0\n0 0 0\n0 0 0\n");
    rc = fgl_load_node(tmp_dir, "N", &d, &e);
    FT_CHECK(rc == FGL_ERR_EMPTY && strstr(e.msg, "N.features") && strstr(e.msg, "every feature value"), "%s", e.msg);
    if (rc == FGL_OK) fgl_node_data_free(&d);
    write_node();
    linqs_expect_error("L.content", "p1\t0\t0\tB\np2\t0\t0\tA\n", FGL_ERR_EMPTY, 0);
    csv_expect_error("node-feat.csv", "0,0\n0,0\n0,0\n", FGL_ERR_EMPTY, "node-feat.csv", 0);
    write_tu();
    put_file("T_node_attributes.txt", TU_ZERO_ATTR);
    rc = fgl_load_tu(tmp_dir, "T", &s, &e);
    FT_CHECK(rc == FGL_ERR_EMPTY && strstr(e.msg, "T_node_attributes.txt"), "TU attributes: %s", e.msg);
    if (rc == FGL_OK) fgl_graph_set_free(&s);
    write_tu();
}

/* ------------------------------------------------------------------------ */
/* Bounded readers (issue 49)                                               */
/* ------------------------------------------------------------------------ */

/* A sparse file of 2 GiB (no disk) named file; 0 if the system refuses. */
static int put_sparse(const char *file, long long bytes) {
    const char *path = tmp_path(file);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), ok, i, known = 0;
    if (fd < 0) return 0;
    ok = ftruncate(fd, (off_t)bytes) == 0;
    close(fd);
    for (i = 0; i < n_written; i++) known |= strcmp(written[i], path) == 0;
    if (!known && n_written < 128) strcpy(written[n_written++], path);
    return ok;
}

/* Every reader refuses a file over the bound (FGL_MAX_FILE_BYTES, here set
 * low), a file that is not regular (a FIFO must not block, /dev/zero must
 * not be read for ever) and a text file holding a NUL byte; a 2 GiB sparse
 * file used to take 2.1 GB of memory and 12-21 s before "line 1". */
static void test_bounded_readers(void) {
    fgl_node_data d;
    fgl_error e;
    unsigned char *data = NULL;
    size_t len = 0;
    double t0, secs;
    int rc;
    /* the bound and its variable */
    unsetenv("FGL_MAX_FILE_BYTES");
    FT_CHECK(fgl_file_max() == FGL_MAX_FILE_BYTES, "default bound %zu", fgl_file_max());
    setenv("FGL_MAX_FILE_BYTES", "3k", 1);
    FT_CHECK(fgl_file_max() == 3072, "3k: %zu", fgl_file_max());
    setenv("FGL_MAX_FILE_BYTES", "2G", 1);
    FT_CHECK(fgl_file_max() == ((size_t)2 << 30) || sizeof(size_t) < 8, "2G: %zu", fgl_file_max());
    setenv("FGL_MAX_FILE_BYTES", "12x", 1);
    FT_CHECK(fgl_file_max() == 0, "12x is no bound: %zu", fgl_file_max());
    write_node();
    rc = fgl_load_node(tmp_dir, "N", &d, &e);
    FT_CHECK(rc == FGL_ERR_ARG && strstr(e.msg, "FGL_MAX_FILE_BYTES='12x'"), "a bad bound is said: %s", e.msg);
    if (rc == FGL_OK) fgl_node_data_free(&d);
    setenv("FGL_MAX_FILE_BYTES", "20", 1); /* N.labels (8 bytes) fits, N.features (30) does not */
    node_hostile("N.features", NODE_FILES[0][1], FGL_ERR_RANGE, "over the bound of 20 bytes");
    rc = fgl_file_read(tmp_path("N.features"), &data, &len, &e);
    FT_CHECK(rc == FGL_ERR_RANGE && !data && strstr(e.msg, "FGL_MAX_FILE_BYTES"), "file_read: %s", e.msg);
    setenv("FGL_MAX_FILE_BYTES", "30", 1); /* exactly the file: read */
    rc = fgl_file_read(tmp_path("N.features"), &data, &len, &e);
    FT_CHECK(rc == FGL_OK && len == 30, "a file of exactly the bound: %s", e.msg);
    free(data);
    data = NULL;
    unsetenv("FGL_MAX_FILE_BYTES");
    /* a NUL byte in a text file: its line, at once */
    write_node();
    put_file_n("N.labels", "0\n1\n\0002\n1\n", 9);
    memset(&d, 0x5a, sizeof d);
    rc = fgl_load_node(tmp_dir, "N", &d, &e);
    FT_CHECK(rc == FGL_ERR_FORMAT && strstr(e.msg, "N.labels:3: a NUL byte") && all_zero(&d, sizeof d), "NUL: %s",
             e.msg);
    if (rc == FGL_OK) fgl_node_data_free(&d);
    write_node();
    { /* N.labels of 2 GiB, sparse: refused by its length, reading nothing */
        if (!put_sparse("N.labels", (long long)2 << 30)) FT_SKIP("cannot make a sparse file");
        memset(&d, 0x5a, sizeof d);
        ft_alloc_reset();
        t0 = fgl_now();
        rc = fgl_load_node(tmp_dir, "N", &d, &e);
        secs = fgl_now() - t0;
        printf("#   2 GiB sparse N.labels, default bound: %s in %.6f s\n", fgl_result_name(rc), secs);
        hostile_check("2 GiB sparse labels", rc, &e, FGL_ERR_RANGE, "2147483648 bytes, over the bound", &d, sizeof d,
                      secs);
        if (rc == FGL_OK) fgl_node_data_free(&d);
        /* the bound raised: the first 1 MiB block holds a NUL, nothing more is read */
        setenv("FGL_MAX_FILE_BYTES", "4G", 1);
        memset(&d, 0x5a, sizeof d);
        ft_alloc_reset();
        max_alloc = ((size_t)1 << 20) + 64;
        t0 = fgl_now();
        rc = fgl_load_node(tmp_dir, "N", &d, &e);
        secs = fgl_now() - t0;
        printf("#   2 GiB sparse N.labels, FGL_MAX_FILE_BYTES=4G: %s in %.6f s, largest allocation %zu bytes\n",
               fgl_result_name(rc), secs, ft_alloc_largest);
        if (sizeof(size_t) >= 8)
            hostile_check("2 GiB sparse labels, bound 4G", rc, &e, FGL_ERR_FORMAT, "N.labels:1: a NUL byte", &d,
                          sizeof d, secs);
        if (rc == FGL_OK) fgl_node_data_free(&d);
        max_alloc = HOSTILE_MAX_ALLOC;
        unsetenv("FGL_MAX_FILE_BYTES");
        write_node();
    }
    { /* a FIFO without a writer: refused, not waited on (the alarm ends a hang) */
        char fifo[320]; /* tmp_path's buffer is overwritten by the next call */
        snprintf(fifo, sizeof fifo, "%s", tmp_path("Q.features"));
        FT_CHECK(mkfifo(fifo, 0600) == 0, "mkfifo %s", fifo);
        alarm(20);
        t0 = fgl_now();
        rc = fgl_file_read(fifo, &data, &len, &e);
        FT_CHECK(rc == FGL_ERR_IO && strstr(e.msg, "not a regular file") && fgl_now() - t0 < 1.0, "FIFO: %s", e.msg);
        put_file("Q.labels", NODE_FILES[1][1]);
        put_file("Q.edges", NODE_FILES[2][1]);
        rc = fgl_load_node(tmp_dir, "Q", &d, &e);
        FT_CHECK(rc == FGL_ERR_IO && strstr(e.msg, "Q.features: not a regular file"), "FIFO features: %s", e.msg);
        if (rc == FGL_OK) fgl_node_data_free(&d);
        alarm(0);
        remove(fifo);
        del_file("Q.labels");
        del_file("Q.edges");
    }
    rc = fgl_file_read("/dev/zero", &data, &len, &e);
    FT_CHECK(rc == FGL_ERR_IO && strstr(e.msg, "not a regular file"), "/dev/zero: %s", e.msg);
}

/* fgl_read_partition (fglrun --partition-file) hung on /dev/zero and on a
 * FIFO, and took 16.8 s on a 2 GB sparse file before "line 1: too long":
 * it now refuses non-regular files before opening them, files longer than
 * 64 bytes a node, and a line at its 64th character. */
static void test_partition_file_bounded(void) {
    int part[6], k = 0, rc;
    fgl_error e;
    double t0, secs;
    char *text = (char *)malloc(400);
    alarm(20);
    t0 = fgl_now();
    rc = fgl_read_partition("/dev/zero", 6, 0, part, &k, &e);
    FT_CHECK(rc == FGL_ERR_IO && strstr(e.msg, "not a regular file") && fgl_now() - t0 < 1.0, "/dev/zero: %s", e.msg);
    FT_CHECK(mkfifo(tmp_path("part.fifo"), 0600) == 0, "mkfifo");
    rc = fgl_read_partition(tmp_path("part.fifo"), 6, 0, part, &k, &e);
    FT_CHECK(rc == FGL_ERR_IO && strstr(e.msg, "not a regular file"), "FIFO: %s", e.msg);
    remove(tmp_path("part.fifo"));
    rc = fgl_read_partition(tmp_dir, 6, 0, part, &k, &e);
    FT_CHECK(rc == FGL_ERR_IO && strstr(e.msg, "a directory"), "directory: %s", e.msg);
    alarm(0);
    if (put_sparse("part.sparse", (long long)2 << 30)) {
        t0 = fgl_now();
        rc = fgl_read_partition(tmp_path("part.sparse"), 6, 0, part, &k, &e);
        secs = fgl_now() - t0;
        printf("#   2 GiB sparse partition file: %s in %.6f s\n", fgl_result_name(rc), secs);
        FT_CHECK(rc == FGL_ERR_RANGE && strstr(e.msg, "2147483648 bytes, more than 6 lines") && secs < 1.0,
                 "2 GiB sparse: %s (%.2f s)", e.msg, secs);
        del_file("part.sparse");
    }
    /* 6 lines of 64 bytes fit; one byte more does not */
    memset(text, ' ', 384);
    text[0] = '0', text[63] = '\n', text[64] = '1', text[127] = '\n', text[128] = '2', text[191] = '\n';
    text[192] = '0', text[255] = '\n', text[256] = '1', text[319] = '\n', text[320] = '2', text[383] = '\n';
    put_file_n("part.txt", text, 384);
    rc = fgl_read_partition(tmp_path("part.txt"), 6, 0, part, &k, &e);
    FT_CHECK(rc == FGL_OK && k == 3 && part[5] == 2, "6 lines of 64 bytes: %s", e.msg);
    text[384] = '\n';
    put_file_n("part.txt", text, 385);
    rc = fgl_read_partition(tmp_path("part.txt"), 6, 0, part, &k, &e);
    FT_CHECK(rc == FGL_ERR_RANGE && strstr(e.msg, "385 bytes"), "385 bytes: %s", e.msg);
    /* a long line ends the read at its 64th character */
    memset(text, '0', 300);
    put_file_n("part.txt", text, 300);
    rc = fgl_read_partition(tmp_path("part.txt"), 6, 0, part, &k, &e);
    FT_CHECK(rc == FGL_ERR_PARSE && strstr(e.msg, "line 1: too long"), "a long line: %s", e.msg);
    del_file("part.txt");
    free(text);
}

/* Duplicate sparse triplets are summed; two finite values can sum to +Inf,
 * which used to be accepted (finiteness was checked before summing). */
static void test_hostile_duplicate_sum(void) {
    node_hostile("N.features", "4 3 2\n0 0 3e38\n0 0 3e38\n", FGL_ERR_NONFINITE, "node 0, feature 0");
    node_hostile("N.features", "4 3 3\n2 1 -3e38\n1 1 1\n2 1 -3e38\n", FGL_ERR_NONFINITE, "node 2, feature 1");
}

/* A directory where a file should be: ftell reports LLONG_MAX on Linux and
 * the reader used to try to allocate that (FGL_ERR_NOMEM, an abort under
 * ASan) instead of saying what is wrong. */
static void test_hostile_directory(void) {
    fgl_node_data d;
    fgl_error e;
    unsigned char *data = NULL;
    size_t len = 99;
    double t0;
    int rc, i;
    char dir[320];
    snprintf(dir, sizeof dir, "%s", tmp_path("D.features"));
    FT_CHECK(mkdir(dir, 0700) == 0, "mkdir %s", dir);
    for (i = 1; i < 3; i++) { /* D.labels, D.edges: those of N */
        char name[16];
        snprintf(name, sizeof name, "D%s", NODE_FILES[i][0] + 1);
        put_file(name, NODE_FILES[i][1]);
    }
    ft_alloc_reset();
    t0 = fgl_now();
    rc = fgl_file_read(dir, &data, &len, &e);
    FT_CHECK(rc == FGL_ERR_IO && strstr(e.msg, "not a regular file") && strstr(e.msg, "D.features"),
             "file_read: %s (%s)", fgl_result_name(rc), e.msg);
    FT_CHECK(data == NULL && len == 0 && ft_alloc_largest <= HOSTILE_MAX_ALLOC && fgl_now() - t0 < 1.0,
             "file_read allocated %zu bytes", ft_alloc_largest);
    free(data); /* tests/ft_impl.c: the library allocates with malloc, through the counter */
    memset(&d, 0x5a, sizeof d);
    ft_alloc_reset();
    t0 = fgl_now();
    rc = fgl_load_node(tmp_dir, "D", &d, &e);
    hostile_check("D.features is a directory", rc, &e, FGL_ERR_IO, "not a regular file", &d, sizeof d, fgl_now() - t0);
    if (rc == FGL_OK) fgl_node_data_free(&d);
    rmdir(dir);
}

/* TU node attributes: the width comes from the first line and the node
 * count from the graph indicator; a 40 KB indicator and a 40 KB first line
 * announce 20000 x 20000 floats (1.6 GB), which the attribute file cannot
 * hold. Reading the files takes 4 bytes per indicator line: 256 KiB at
 * most. */
static void test_hostile_tu_attributes(void) {
    fgl_graph_set s;
    fgl_error e;
    char *text = (char *)malloc(40001);
    double t0;
    int rc, i;
    for (i = 0; i < 20000; i++) memcpy(text + 2 * i, "1\n", 2);
    text[40000] = 0;
    put_file("H_graph_indicator.txt", text);
    for (i = 0; i < 20000; i++) memcpy(text + 2 * i, "0,", 2);
    text[39999] = '\n';
    put_file("H_node_attributes.txt", text);
    put_file("H_graph_labels.txt", "1\n");
    put_file("H_A.txt", "1, 2\n2, 1\n");
    memset(&s, 0x5a, sizeof s);
    ft_alloc_reset();
    max_alloc = (size_t)256 << 10;
    t0 = fgl_now();
    rc = fgl_load_tu(tmp_dir, "H", &s, &e);
    hostile_check("20000 x 20000 attributes", rc, &e, FGL_ERR_SHAPE, "cannot hold 20000 rows of 20000", &s, sizeof s,
                  fgl_now() - t0);
    max_alloc = HOSTILE_MAX_ALLOC;
    FT_CHECK(msg_has(&e, "H_node_attributes.txt", 1), "message names the file: %s", e.msg);
    if (rc == FGL_OK) fgl_graph_set_free(&s);
    del_file("H_graph_indicator.txt");
    del_file("H_node_attributes.txt");
    del_file("H_graph_labels.txt");
    del_file("H_A.txt");
    free(text);
}

/* ------------------------------------------------------------------------ */
/* Fuzzing                                                                  */
/* ------------------------------------------------------------------------ */

enum { FZ_TU, FZ_NODE, FZ_LINQS, FZ_CSV };

/* Load with the given loader; an error must leave the output zeroed with a
 * message, a success must give a valid dataset. Returns 1 if all is well. */
static int fuzz_one(int kind, int *n_ok) {
    fgl_error e;
    int rc, good;
    e.msg[0] = 0;
    if (kind == FZ_TU) {
        fgl_graph_set s;
        rc = fgl_load_tu(tmp_dir, "T", &s, &e);
        good = rc ? (all_zero(&s, sizeof s) && e.msg[0] && e.code == rc) : fgl_graph_set_validate(&s, &e) == FGL_OK;
        fgl_graph_set_free(&s);
    } else {
        fgl_node_data d;
        rc = kind == FZ_NODE ? fgl_load_node(tmp_dir, "N", &d, &e)
                             : kind == FZ_LINQS ? fgl_load_linqs(tmp_dir, "L", &d, NULL, &e) : load_csv_tmp(&d, &e);
        good = rc ? (all_zero(&d, sizeof d) && e.msg[0] && e.code == rc) : fgl_node_data_validate(&d, &e) == FGL_OK;
        fgl_node_data_free(&d);
    }
    if (!good) printf("#   fuzz: rc %s, message '%s'\n", fgl_result_name(rc), e.msg);
    *n_ok += rc == FGL_OK;
    return good;
}

static void fuzz_files(int kind, const char *(*files)[2], int n_files, void (*restore)(void)) {
    static const char alphabet[] = "0123456789 ,\n\r\t-+.eE\0xn#";
    fgl_rng r;
    int f, bad = 0, ok = 0, runs = 0;
    fgl_rng_init(&r, 2024, (uint64_t)kind);
    for (f = 0; f < n_files; f++) {
        const char *name = files[f][0], *text = files[f][1];
        long len = (long)strlen(text), cut, it;
        char buf[256];
        restore();
        for (cut = 0; cut <= len; cut++) { /* every truncation */
            put_file_n(name, text, cut);
            bad += !fuzz_one(kind, &ok);
            runs++;
        }
        for (it = 0; it < 150; it++) { /* a few bytes changed */
            int k, nm = 1 + (int)fgl_rng_below(&r, 4);
            memcpy(buf, text, (size_t)len);
            for (k = 0; k < nm && len > 0; k++) {
                long at = (long)fgl_rng_below(&r, (uint64_t)len);
                buf[at] = fgl_rng_below(&r, 4) == 0 ? (char)fgl_rng_below(&r, 256)
                                                     : alphabet[fgl_rng_below(&r, sizeof alphabet - 1)];
            }
            put_file_n(name, buf, len);
            bad += !fuzz_one(kind, &ok);
            runs++;
        }
        for (it = 0; it < 50; it++) { /* pure garbage */
            long n = (long)fgl_rng_below(&r, 120), k;
            for (k = 0; k < n; k++)
                buf[k] = fgl_rng_below(&r, 3) == 0 ? (char)fgl_rng_below(&r, 256)
                                                    : alphabet[fgl_rng_below(&r, sizeof alphabet - 1)];
            put_file_n(name, buf, n);
            bad += !fuzz_one(kind, &ok);
            runs++;
        }
    }
    restore();
    FT_CHECK(bad == 0, "%d of %d fuzzed loads broke the contract", bad, runs);
    FT_CHECK(ok > 0 && ok < runs, "fuzzing hit both outcomes (%d successes of %d)", ok, runs);
}

static void test_fuzz_tu(void) { fuzz_files(FZ_TU, TU_FILES, 5, write_tu); }
static void test_fuzz_node(void) {
    fuzz_files(FZ_NODE, NODE_FILES, 4, write_node);
    { /* and the sparse variant of the features */
        static const char *sparse[][2] = {{"N.features", "4 3 5\n0 0 1\n1 1 2.5\n2 2 1\n3 0 1\n3 2 4\n"}};
        fuzz_files(FZ_NODE, sparse, 1, write_node);
    }
}
static void test_fuzz_linqs(void) { fuzz_files(FZ_LINQS, LINQS_FILES, 2, write_linqs); }
static void test_fuzz_csv(void) { fuzz_files(FZ_CSV, CSV_FILES, 3, write_csv); }

/* ------------------------------------------------------------------------ */
/* .npz: zip + DEFLATE + .npy (fgl_load_npz), on archives written here       */
/* ------------------------------------------------------------------------ */

/* A byte buffer. */
typedef struct zbuf {
    unsigned char b[1 << 16];
    size_t n;
} zbuf;

static void zb_put(zbuf *z, const void *p, size_t n) {
    if (z->n + n > sizeof z->b) return;
    memcpy(z->b + z->n, p, n);
    z->n += n;
}
static void zb_u16(zbuf *z, unsigned v) {
    unsigned char b[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
    zb_put(z, b, 2);
}
static void zb_u32(zbuf *z, uint32_t v) {
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
    zb_put(z, b, 4);
}

/* A .npy file (format 1.0) of dtype descr and shape text ("(3, 2)") with the
 * data bytes. */
static void npy_make(zbuf *z, const char *descr, const char *shape, const void *data, size_t n) {
    char h[256];
    int len = snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape);
    z->n = 0;
    while ((10 + len + 1) % 64) h[len++] = ' ';
    h[len++] = '\n';
    zb_put(z, "\x93NUMPY\x01\x00", 8);
    zb_u16(z, (unsigned)len);
    zb_put(z, h, (size_t)len);
    zb_put(z, data, n);
}

/* Bits into a DEFLATE stream, least significant first. */
typedef struct zbits {
    zbuf *z;
    uint32_t acc;
    int n;
} zbits;
static void zbits_put(zbits *w, uint32_t v, int k) {
    int i;
    for (i = 0; i < k; i++) {
        w->acc |= ((v >> i) & 1u) << w->n;
        if (++w->n == 8) {
            unsigned char c = (unsigned char)w->acc;
            zb_put(w->z, &c, 1);
            w->acc = 0;
            w->n = 0;
        }
    }
}
/* A Huffman code of k bits: most significant bit first. */
static void zbits_code(zbits *w, uint32_t code, int k) {
    while (k-- > 0) zbits_put(w, (code >> k) & 1u, 1);
}
static void zbits_fixed_lit(zbits *w, int sym) {
    if (sym < 144) zbits_code(w, 0x30u + (uint32_t)sym, 8);
    else if (sym < 256) zbits_code(w, 0x190u + (uint32_t)(sym - 144), 9);
    else if (sym < 280) zbits_code(w, (uint32_t)(sym - 256), 7);
    else zbits_code(w, 0xc0u + (uint32_t)(sym - 280), 8);
}

/* src deflated into out with the fixed codes: literals, and runs of one
 * byte as a literal then matches at distance 1 (lengths 3..258), so the
 * overlapping copy is exercised. */
static void deflate_fixed(const unsigned char *src, size_t n, zbuf *out) {
    static const unsigned short base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                            31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    static const unsigned char extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                            2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    zbits w;
    size_t i = 0;
    out->n = 0;
    w.z = out;
    w.acc = 0;
    w.n = 0;
    zbits_put(&w, 1, 1); /* BFINAL */
    zbits_put(&w, 1, 2); /* fixed */
    while (i < n) {
        size_t run = 1;
        zbits_fixed_lit(&w, src[i]);
        while (i + run < n && src[i + run] == src[i]) run++;
        i++;
        run--;
        while (run >= 3) {
            int len = run > 258 ? 258 : (int)run, c = 28;
            if (run - (size_t)len > 0 && run - (size_t)len < 3) len -= 3; /* leave a remainder of 0 or >= 3 */
            while (base[c] > len) c--;
            zbits_fixed_lit(&w, 257 + c);
            zbits_put(&w, (uint32_t)(len - base[c]), extra[c]);
            zbits_code(&w, 0, 5); /* distance code 0: distance 1 */
            i += (size_t)len;
            run -= (size_t)len;
        }
        while (run-- > 0) zbits_fixed_lit(&w, src[i++]);
    }
    zbits_fixed_lit(&w, 256);
    while (w.n) zbits_put(&w, 0, 1);
}

/* A zip of the members (name, bytes), stored (method 0) or deflated with
 * the fixed codes (method 8), with the central directory. */
typedef struct zmember {
    const char *name;
    zbuf data;
} zmember;
static zbuf zip_out;
static void zip_make(zmember *m, int k, int method) {
    static zbuf packed[8];
    size_t off[8], cd;
    int i;
    zbuf *z = &zip_out;
    z->n = 0;
    for (i = 0; i < k; i++) {
        zbuf *p = &packed[i];
        uint32_t crc = fgl_crc32(0, m[i].data.b, m[i].data.n);
        if (method == 8) deflate_fixed(m[i].data.b, m[i].data.n, p);
        else {
            p->n = 0;
            zb_put(p, m[i].data.b, m[i].data.n);
        }
        off[i] = z->n;
        zb_u32(z, 0x04034b50u);
        zb_u16(z, 20), zb_u16(z, 0), zb_u16(z, (unsigned)method), zb_u16(z, 0), zb_u16(z, 0x21);
        zb_u32(z, crc), zb_u32(z, (uint32_t)p->n), zb_u32(z, (uint32_t)m[i].data.n);
        zb_u16(z, (unsigned)strlen(m[i].name)), zb_u16(z, 0);
        zb_put(z, m[i].name, strlen(m[i].name));
        zb_put(z, p->b, p->n);
    }
    cd = z->n;
    for (i = 0; i < k; i++) {
        zb_u32(z, 0x02014b50u);
        zb_u16(z, 20), zb_u16(z, 20), zb_u16(z, 0), zb_u16(z, (unsigned)method), zb_u16(z, 0), zb_u16(z, 0x21);
        zb_u32(z, fgl_crc32(0, m[i].data.b, m[i].data.n)), zb_u32(z, (uint32_t)packed[i].n),
            zb_u32(z, (uint32_t)m[i].data.n);
        zb_u16(z, (unsigned)strlen(m[i].name)), zb_u16(z, 0), zb_u16(z, 0), zb_u16(z, 0), zb_u16(z, 0);
        zb_u32(z, 0), zb_u32(z, (uint32_t)off[i]);
        zb_put(z, m[i].name, strlen(m[i].name));
    }
    zb_u32(z, 0x06054b50u);
    zb_u16(z, 0), zb_u16(z, 0), zb_u16(z, (unsigned)k), zb_u16(z, (unsigned)k);
    zb_u32(z, (uint32_t)(z->n - 12 - cd)), zb_u32(z, (uint32_t)cd);
    zb_u16(z, 0);
}

/* The members of a small heterophilous-style dataset: 5 nodes, 3 features,
 * 2 classes, 5 edges (one self loop, one duplicate in the other
 * direction), 2 splits. Each field may be replaced by a test. */
static zmember npz_m[6];
static void npz_members(void) {
    static const float x[15] = {1, 0, 0.5f, 0, 1, 0, 1, 1, 0, 0, 0, 2, 0.25f, 0, 0};
    static const int64_t y[5] = {0, 1, 0, 1, 1};
    static const int64_t e[10] = {0, 1, 1, 2, 2, 3, 3, 3, 1, 0}; /* (0,1) (1,2) (2,3) (3,3) (1,0) */
    static const unsigned char tr[10] = {1, 1, 0, 0, 0, 0, 0, 1, 1, 0};
    static const unsigned char va[10] = {0, 0, 1, 0, 0, 1, 0, 0, 0, 0};
    static const unsigned char te[10] = {0, 0, 0, 1, 1, 0, 1, 0, 0, 1};
    npz_m[0].name = "node_features.npy";
    npy_make(&npz_m[0].data, "<f4", "(5, 3)", x, sizeof x);
    npz_m[1].name = "node_labels.npy";
    npy_make(&npz_m[1].data, "<i8", "(5,)", y, sizeof y);
    npz_m[2].name = "edges.npy";
    npy_make(&npz_m[2].data, "<i8", "(5, 2)", e, sizeof e);
    npz_m[3].name = "train_masks.npy";
    npy_make(&npz_m[3].data, "|b1", "(2, 5)", tr, sizeof tr);
    npz_m[4].name = "val_masks.npy";
    npy_make(&npz_m[4].data, "|b1", "(2, 5)", va, sizeof va);
    npz_m[5].name = "test_masks.npy";
    npy_make(&npz_m[5].data, "|b1", "(2, 5)", te, sizeof te);
}

static int load_npz_tmp(int k, int method, fgl_node_data *d, unsigned char **sp, int *ns, fgl_error *e) {
    zip_make(npz_m, k, method);
    put_file_n("t.npz", (const char *)zip_out.b, (long)zip_out.n);
    return fgl_load_npz(tmp_path("t.npz"), d, sp, ns, e);
}

/* Known vectors (computed once with zlib, kept here: no Python at test
 * time): a dynamic-Huffman stream and a stored block. */
static const unsigned char dyn_vec[226] = {
    0x15,0x90,0xc7,0x01,0xc0,0x30,0x08,0x03,0x17,0xd2,0x83,0x66,0xca,0xfe,0x8b,0xe5,0xf2,0x22,0x31,0x42,0xcd,0xe4,
    0x2a,0x9d,0xbc,0x15,0x4f,0xd9,0xaa,0x53,0x97,0xd6,0xe5,0x66,0xf2,0x60,0x56,0xb1,0x05,0x71,0x40,0xc0,0xc4,0x63,
    0xee,0x29,0xa3,0xc0,0x73,0x0d,0xae,0x8a,0xb9,0xa5,0x17,0xa7,0x37,0xad,0x06,0xd7,0xcc,0xe1,0x7f,0x78,0x5f,0xf6,
    0x07,0xee,0xc0,0xc7,0xe8,0x42,0xfe,0x0e,0xb6,0x55,0x1c,0x4c,0x13,0x30,0x0c,0xd7,0xa5,0xb6,0x54,0x73,0x31,0x3d,
    0xda,0x17,0xba,0x64,0x8f,0x89,0x08,0x85,0x63,0xd0,0x11,0x33,0xa0,0x86,0x08,0x73,0xf8,0x5f,0xde,0x8f,0x7d,0xe2,
    0xb3,0x7e,0x7f,0x0b,0x63,0x12,0xc4,0x80,0xa0,0x9f,0x40,0x5e,0xea,0x66,0xc9,0x84,0x62,0x0e,0xbe,0x17,0x0a,0x57,
    0x13,0x78,0xc0,0x9e,0x87,0x88,0xe5,0xbf,0x19,0xe2,0xd6,0xb1,0x2a,0xd3,0x30,0xef,0x8f,0x6f,0xa8,0x63,0xb8,0x9c,
    0xb3,0x81,0xb2,0x30,0xf6,0xab,0x8f,0xa2,0xa8,0xcc,0x31,0x84,0xda,0x34,0x46,0x58,0xf9,0xdf,0x8c,0x3d,0x1a,0x59,
    0x5a,0x48,0x6d,0x1b,0xd9,0x80,0x62,0x0a,0xc1,0x26,0xcf,0x12,0x1d,0x5f,0xc1,0x67,0xe1,0xbb,0x49,0xb9,0x30,0x61,
    0x3d,0xa8,0xba,0x36,0xd4,0x47,0x4f,0x8e,0x36,0x17,0xf9,0x10,0x58,0x62,0x40,0x9a,0x24,0xec,0xdf,0xe2,0xa3,0xdd,
    0xa5,0xd1,0x54,0xd0,0xd9,0x07};

static void test_inflate_vectors(void) {
    static const unsigned char stored[18] = {0x01, 0x0d, 0x00, 0xf2, 0xff, 's', 't', 'o', 'r',
                                             'e',  'd',  ' ',  'b',  'l',  'o', 'c', 'k', '!'};
    unsigned char text[600], out[600], bad[226];
    zbuf z;
    size_t n = 0;
    int i, broke = 0, refused = 0;
    fgl_error e;
    FT_CHECK(fgl_crc32(0, "123456789", 9) == 0xcbf43926u, "CRC-32 check value");
    for (i = 0; i < 120; i++) n += (size_t)sprintf((char *)text + n, "%d,", i * i % 997);
    FT_CHECK(n == 456 && fgl_crc32(0, text, n) == 0x2fc6fb5au, "the vector's text");
    FT_CHECK(fgl_inflate(dyn_vec, sizeof dyn_vec, out, n, "dyn", &e) == FGL_OK && !memcmp(out, text, n),
             "dynamic Huffman vector: %s", e.msg);
    FT_CHECK(fgl_inflate(stored, sizeof stored, out, 13, "stored", &e) == FGL_OK && !memcmp(out, "stored block!", 13),
             "stored vector: %s", e.msg);
    FT_CHECK(fgl_inflate(dyn_vec, sizeof dyn_vec, out, n - 1, "dyn", &e) == FGL_ERR_FORMAT &&
                 strstr(e.msg, "more data than"), "one byte short of room: %s", e.msg);
    FT_CHECK(fgl_inflate(dyn_vec, sizeof dyn_vec, out, n + 1, "dyn", &e) == FGL_ERR_FORMAT &&
                 strstr(e.msg, "456 bytes where the member declares 457"), "one byte too many: %s", e.msg);
    FT_CHECK(fgl_inflate(stored, 17, out, 13, "stored", &e) == FGL_ERR_FORMAT && strstr(e.msg, "truncated"),
             "truncated stored block: %s", e.msg);
    for (i = 0; i < (int)sizeof dyn_vec; i++) /* every truncation */
        if (fgl_inflate(dyn_vec, (size_t)i, out, n, "dyn", &e) != FGL_ERR_FORMAT || !strstr(e.msg, "dyn: corrupt"))
            broke++;
    FT_CHECK(broke == 0, "%d truncations of the dynamic stream not refused", broke);
    for (i = 0; i < 2000; i++) { /* the Huffman tables (the first ~40 bytes) and the data, a bit flipped */
        int at = i < 1000 ? i % 40 : i % 226, bit = (i / 40) % 8, rc;
        memcpy(bad, dyn_vec, sizeof bad);
        bad[at] ^= (unsigned char)(1u << bit);
        rc = fgl_inflate(bad, sizeof bad, out, n, "dyn", &e);
        refused += rc != FGL_OK;
        if (rc != FGL_OK && (rc != FGL_ERR_FORMAT || !strstr(e.msg, "dyn: corrupt"))) broke++;
    }
    FT_CHECK(broke == 0 && refused > 1000, "flipped bits: %d refused, %d broke the contract", refused, broke);
    bad[0] = 0x07; /* BFINAL, type 3 */
    FT_CHECK(fgl_inflate(bad, 1, out, n, "dyn", &e) == FGL_ERR_FORMAT && strstr(e.msg, "reserved"), "%s", e.msg);
    /* the fixed-code encoder above against the decoder: literals and long runs */
    for (i = 0; i < 600; i++) text[i] = (unsigned char)(i < 300 ? 7 : i < 420 ? i : 0);
    deflate_fixed(text, 600, &z);
    FT_CHECK(z.n < 300 && fgl_inflate(z.b, z.n, out, 600, "fixed", &e) == FGL_OK && !memcmp(out, text, 600),
             "fixed codes with matches (%zu bytes): %s", z.n, e.msg);
}

static void test_npz_small(void) {
    fgl_node_data d;
    fgl_error e;
    unsigned char *sp = NULL;
    int ns = 0, method, rc;
    for (method = 0; method <= 8; method += 8) {
        npz_members();
        rc = load_npz_tmp(6, method, &d, &sp, &ns, &e);
        FT_CHECK(rc == FGL_OK, "method %d: %s", method, e.msg);
        if (rc) continue;
        FT_CHECK(!strcmp(d.name, "t") && d.n_nodes == 5 && d.n_feat == 3 && d.n_classes == 2, "%s: %d x %d, %d classes",
                 d.name, d.n_nodes, d.n_feat, d.n_classes);
        FT_CHECK(fgl_graph_num_edges(&d.adj) == 3 && d.adj.nnz == 6, "3 edges both ways (self loop dropped, duplicate "
                 "merged): %d", fgl_graph_num_edges(&d.adj));
        FT_CHECK(fgl_node_data_validate(&d, &e) == FGL_OK, "%s", e.msg);
        FT_CHECK(d.x.data[2] == 0.5f && d.x.data[12] == 0.25f && d.y[3] == 1 && d.split == NULL, "values");
        FT_CHECK(ns == 2 && sp && sp[0] == FGL_SPLIT_TRAIN && sp[2] == FGL_SPLIT_VAL && sp[3] == FGL_SPLIT_TEST &&
                     sp[5 + 0] == FGL_SPLIT_VAL && sp[5 + 2] == FGL_SPLIT_TRAIN && sp[5 + 4] == FGL_SPLIT_TEST,
                 "two fixed splits");
        free(sp);
        fgl_node_data_free(&d);
    }
    /* without masks: no splits */
    npz_members();
    FT_CHECK(load_npz_tmp(3, 8, &d, &sp, &ns, &e) == FGL_OK && ns == 0 && !sp, "no masks, no splits: %s", e.msg);
    fgl_node_data_free(&d);
}

/* One altered member: refused, with the member and the message fragment. */
static void npz_refused(int k, const char *want, const char *why) {
    fgl_node_data d;
    fgl_error e;
    unsigned char *sp = (unsigned char *)1;
    int ns = 7, rc = load_npz_tmp(k, 8, &d, &sp, &ns, &e);
    FT_CHECK(rc != FGL_OK && strstr(e.msg, "t.npz") && strstr(e.msg, want) && all_zero(&d, sizeof d) && !sp && !ns,
             "%s: rc %s, '%s' (want '%s')", why, fgl_result_name(rc), e.msg, want);
    if (!rc) fgl_node_data_free(&d);
    npz_members();
}

static void test_npz_errors(void) {
    static const float nan_x[15] = {1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0};
    float xs[15];
    int64_t v[10];
    unsigned char m[10];
    npz_members();
    v[0] = 0, v[1] = 1, v[2] = 1, v[3] = 1, v[4] = 9;
    npy_make(&npz_m[1].data, "<i8", "(5,)", v, 40);
    npz_refused(6, "node 4: label 9: the labels make 10 classes but only 3", "a stray label");
    v[4] = -2;
    npy_make(&npz_m[1].data, "<i8", "(5,)", v, 40);
    npz_refused(6, "node_labels.npy: node 4: label -2", "label -2");
    npy_make(&npz_m[1].data, "<i8", "(4,)", v, 32);
    npz_refused(6, "node_features.npy: shape (5, 3)", "features for 5 nodes, 4 labels");
    memcpy(xs, nan_x, sizeof xs);
    xs[7] = (float)NAN;
    npy_make(&npz_m[0].data, "<f4", "(5, 3)", xs, sizeof xs);
    npz_refused(6, "node 2, feature 1: nan", "NaN feature");
    npy_make(&npz_m[0].data, "<f4", "(15,)", nan_x, sizeof nan_x);
    npz_refused(6, "expected (5, features)", "1-D features");
    v[0] = 0, v[1] = 1, v[2] = 1, v[3] = 5;
    npy_make(&npz_m[2].data, "<i8", "(2, 2)", v, 32);
    npz_refused(6, "edges.npy: edge 1 joins node 5, outside 0..4", "edge out of range");
    v[3] = -1;
    npy_make(&npz_m[2].data, "<i8", "(2, 2)", v, 32);
    npz_refused(6, "edge 1 joins node -1", "negative node id");
    npy_make(&npz_m[2].data, "<i8", "(2, 5)", v, 80);
    npz_refused(6, "expected (edges, 2) (this one is transposed)", "transposed edges");
    npy_make(&npz_m[2].data, "<i8", "(5, 2)", v, 40);
    npz_refused(6, "edges.npy: 40 data bytes for 10 elements", "short data");
    npy_make(&npz_m[2].data, "<U8", "(5, 2)", v, 80);
    npz_refused(6, "dtype '<U8'", "a string dtype");
    memset(m, 1, sizeof m);
    npy_make(&npz_m[3].data, "|b1", "(2, 4)", m, 8);
    npz_refused(6, "train_masks.npy: shape (2, 4)", "masks of 4 nodes");
    npy_make(&npz_m[3].data, "|b1", "(1, 5)", m, 5);
    npz_refused(6, "val_masks.npy: 2 splits, train_masks.npy has 1", "masks of 1 and 2 splits");
    npy_make(&npz_m[3].data, "|b1", "(2, 5)", m, 10);
    npz_refused(6, "the masks of a split must not overlap", "a node both train and val");
    memset(m, 0, sizeof m);
    npy_make(&npz_m[3].data, "|b1", "(2, 5)", m, 10);
    npz_refused(6, "split 0 has 0 training", "a split without training nodes");
    npz_refused(4, "has 1 of the three masks but not val_masks.npy", "one of the three masks");
    npz_refused(2, "no member edges.npy", "no edges member");
    { /* a member with method 12 (bzip2), an encrypted one, zip64 */
        fgl_node_data d;
        fgl_error e;
        zip_make(npz_m, 6, 8);
        {
            size_t cd = (size_t)zip_out.b[zip_out.n - 6] | (size_t)zip_out.b[zip_out.n - 5] << 8 |
                        (size_t)zip_out.b[zip_out.n - 4] << 16;
            unsigned char keep = zip_out.b[cd + 10];
            zip_out.b[cd + 10] = 12;
            put_file_n("t.npz", (const char *)zip_out.b, (long)zip_out.n);
            FT_CHECK(fgl_load_npz(tmp_path("t.npz"), &d, NULL, NULL, &e) == FGL_ERR_UNSUPPORTED &&
                         strstr(e.msg, "member node_features.npy is compressed with method 12"), "%s", e.msg);
            zip_out.b[cd + 10] = keep;
            zip_out.b[cd + 8] |= 1;
            put_file_n("t.npz", (const char *)zip_out.b, (long)zip_out.n);
            FT_CHECK(fgl_load_npz(tmp_path("t.npz"), &d, NULL, NULL, &e) == FGL_ERR_UNSUPPORTED &&
                         strstr(e.msg, "is encrypted"), "%s", e.msg);
            zip_out.b[cd + 8] &= 0xfe;
            memset(zip_out.b + cd + 20, 0xff, 4);
            put_file_n("t.npz", (const char *)zip_out.b, (long)zip_out.n);
            FT_CHECK(fgl_load_npz(tmp_path("t.npz"), &d, NULL, NULL, &e) == FGL_ERR_UNSUPPORTED &&
                         strstr(e.msg, "zip64"), "%s", e.msg);
            zip_make(npz_m, 6, 8); /* a corrupt CRC */
            zip_out.b[cd + 16] ^= 1;
            put_file_n("t.npz", (const char *)zip_out.b, (long)zip_out.n);
            FT_CHECK(fgl_load_npz(tmp_path("t.npz"), &d, NULL, NULL, &e) == FGL_ERR_FORMAT &&
                         strstr(e.msg, "CRC-32"), "%s", e.msg);
        }
        put_file("t.npz", "not a zip");
        FT_CHECK(fgl_load_npz(tmp_path("t.npz"), &d, NULL, NULL, &e) == FGL_ERR_FORMAT &&
                     strstr(e.msg, "not a zip archive"), "%s", e.msg);
        FT_CHECK(fgl_load_npz(tmp_dir, &d, NULL, NULL, &e) == FGL_ERR_IO && strstr(e.msg, "not a regular file"),
                 "a directory: %s", e.msg);
    }
}

/* Every truncation and random bytes changed in a deflated and a stored
 * archive: refused with a message, or loaded and valid; never a crash. */
static void test_fuzz_npz(void) {
    static zbuf orig;
    fgl_rng r;
    int method, bad = 0, ok = 0, runs = 0;
    long cut, it;
    fgl_rng_init(&r, 52, 8);
    for (method = 0; method <= 8; method += 8) {
        npz_members();
        zip_make(npz_m, 6, method);
        orig = zip_out;
        for (cut = 0; cut < (long)orig.n; cut += (method ? 1 : 3)) {
            fgl_node_data d;
            fgl_error e;
            int rc;
            put_file_n("t.npz", (const char *)orig.b, cut);
            rc = fgl_load_npz(tmp_path("t.npz"), &d, NULL, NULL, &e);
            bad += rc == FGL_OK || !e.msg[0] || !all_zero(&d, sizeof d);
            runs++;
        }
        for (it = 0; it < 400; it++) {
            fgl_node_data d;
            fgl_error e;
            unsigned char *sp = NULL;
            int rc, k, ns = 0;
            zip_out = orig;
            for (k = 0; k < 1 + (int)fgl_rng_below(&r, 3); k++)
                zip_out.b[fgl_rng_below(&r, (uint64_t)orig.n)] ^= (unsigned char)(1 + fgl_rng_below(&r, 255));
            put_file_n("t.npz", (const char *)zip_out.b, (long)zip_out.n);
            rc = fgl_load_npz(tmp_path("t.npz"), &d, &sp, &ns, &e);
            if (rc) bad += !e.msg[0] || !all_zero(&d, sizeof d) || sp || ns;
            else bad += fgl_node_data_validate(&d, &e) != FGL_OK;
            ok += rc == FGL_OK;
            runs++;
            free(sp);
            fgl_node_data_free(&d);
        }
    }
    FT_CHECK(bad == 0, "%d of %d fuzzed archives broke the contract", bad, runs);
    FT_CHECK(ok < runs, "fuzzing refused some (%d loaded of %d)", ok, runs);
}

/* The three files of $FGL_DATA/heterophilous against the README table,
 * with their ten splits (fgl_dataset_load by name and the splits in use:
 * tests/test_fglrun.sh). */
static void test_heterophilous_match_readme(void) {
    static const struct {
        const char *name;
        int nodes, edges, feat, classes;
    } ex[] = {{"chameleon_filtered", 890, 8854, 2325, 5}, {"actor", 7600, 26659, 932, 5}, {"tolokers", 11758, 519000, 10, 2}};
    size_t i;
    FT_NEED_DATA("heterophilous/chameleon_filtered.npz");
    FT_NEED_DATA("heterophilous/actor.npz");
    FT_NEED_DATA("heterophilous/tolokers.npz");
    for (i = 0; i < 3; i++) {
        char rel[128];
        fgl_node_data d;
        fgl_error e;
        unsigned char *sp = NULL;
        int ns = 0, rc, s, sane = 1;
        double t0 = fgl_now(), t;
        snprintf(rel, sizeof rel, "heterophilous/%s.npz", ex[i].name);
        rc = fgl_load_npz(ft_data_path(rel), &d, &sp, &ns, &e);
        t = fgl_now() - t0;
        FT_CHECK(rc == FGL_OK, "%s: %s", ex[i].name, e.msg);
        if (rc) continue;
        printf("#   %s: %d nodes, %d edges, %d features, %d classes, %d splits; loaded in %.0f ms\n", d.name,
               d.n_nodes, fgl_graph_num_edges(&d.adj), d.n_feat, d.n_classes, ns, 1000 * t);
        FT_CHECK(d.n_nodes == ex[i].nodes && fgl_graph_num_edges(&d.adj) == ex[i].edges && d.n_feat == ex[i].feat &&
                     d.n_classes == ex[i].classes, "%s: %d / %d / %d / %d", d.name, d.n_nodes,
                 fgl_graph_num_edges(&d.adj), d.n_feat, d.n_classes);
        FT_CHECK(fgl_node_data_validate(&d, &e) == FGL_OK, "%s", e.msg);
        FT_CHECK(ns == 10, "%s: %d splits", d.name, ns);
        for (s = 0; s < ns; s++) {
            int tr = fgl_split_indices(sp + (size_t)s * d.n_nodes, d.n_nodes, FGL_SPLIT_TRAIN, NULL);
            int va = fgl_split_indices(sp + (size_t)s * d.n_nodes, d.n_nodes, FGL_SPLIT_VAL, NULL);
            int te = fgl_split_indices(sp + (size_t)s * d.n_nodes, d.n_nodes, FGL_SPLIT_TEST, NULL);
            if (s == 0 || s == ns - 1)
                printf("#   %s split %d: %d train, %d val, %d test\n", d.name, s, tr, va, te);
            /* every node has a role: 50/25/25% (tolokers), 48/32/20% (the Geom-GCN splits of chameleon and actor) */
            sane &= tr + va + te == d.n_nodes && tr >= 0.4 * d.n_nodes && tr <= 0.5 * d.n_nodes + 1 &&
                    va >= 0.2 * d.n_nodes && te >= 0.15 * d.n_nodes;
        }
        FT_CHECK(sane, "%s: every split gives every node a role, about half of them training", d.name);
        free(sp);
        fgl_node_data_free(&d);
    }
}

/* The counter of tests/ft_alloc.h sees the library's allocations (else the
 * hostile-file bounds below would hold vacuously) and refuses a request over
 * its cap. */
static void test_alloc_counter_linked(void) {
    fgl_tensor t;
    ft_alloc_reset();
    FT_CHECK(fgl_tensor_init(&t, 100, 100) == FGL_OK && ft_alloc_largest >= sizeof(float) * 100 * 100,
             "a 100 x 100 tensor counted: largest request %zu bytes", ft_alloc_largest);
    fgl_tensor_free(&t);
    FT_CHECK(fgl_tensor_init(&t, 1 << 16, 1 << 15) != FGL_OK && ft_alloc_largest > FT_ALLOC_CAP,
             "8 GiB refused as out of memory (cap %zu)", (size_t)FT_ALLOC_CAP);
    ft_alloc_reset();
}

int main(void) {
    tmp_init();
    FT_RUN(test_alloc_counter_linked);
    FT_RUN(test_tu_datasets_match_readme);
    FT_RUN(test_node_datasets_match_readme);
    FT_RUN(test_batch_of_whole_set_synth);
    FT_RUN(test_batch_of_whole_set);
    FT_RUN(test_round_trip_synth);
    FT_RUN(test_round_trip_real);
    FT_RUN(test_round_trip_random_floats);
    FT_RUN(test_tu_small_valid);
    FT_RUN(test_tu_errors);
    FT_RUN(test_node_small);
    FT_RUN(test_linqs_small);
    FT_RUN(test_csv_small);
    FT_RUN(test_hostile_node_count);
    FT_RUN(test_hostile_labels);
    FT_RUN(test_label_sanity);
    FT_RUN(test_all_zero_features);
    FT_RUN(test_bounded_readers);
    FT_RUN(test_partition_file_bounded);
    FT_RUN(test_hostile_duplicate_sum);
    FT_RUN(test_hostile_directory);
    FT_RUN(test_hostile_tu_attributes);
    FT_RUN(test_fuzz_tu);
    FT_RUN(test_fuzz_node);
    FT_RUN(test_fuzz_linqs);
    FT_RUN(test_fuzz_csv);
    FT_RUN(test_inflate_vectors);
    FT_RUN(test_npz_small);
    FT_RUN(test_npz_errors);
    FT_RUN(test_fuzz_npz);
    FT_RUN(test_heterophilous_match_readme);
    tmp_cleanup();
    return ft_finish();
}
