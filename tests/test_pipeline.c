/* Tests of the pipeline options that reproduce FED-PUB's own code (issue
 * 37), on fgl's synthetic node data (no datasets needed):
 *  - split_global: the train/val/test roles are drawn once on the whole
 *    graph and every client's node keeps its role (checked node by node
 *    through a given partition, whose node order is known); the same seed
 *    gives the same bits; without it some client's roles differ;
 *  - fgl_read_partition: a good file gives its parts; a wrong line count,
 *    an id out of range, a negative id, an empty part, garbage, a blank line
 *    are refused with the line named, and nothing is written (all or
 *    nothing); fgl_write_metis_graph writes METIS's header and one line per
 *    node; FGL_PART_GIVEN makes exactly the file's clients and refuses
 *    entries that do not fit the data;
 *  - fedavg weights=equal: the server model is the plain mean of the uploads
 *    (recomputed here), which differs from the sample-weighted default when
 *    the clients' sizes differ; unknown names are refused. */
#include "../fgl_fed.h"
#include "ft.h"
#include "ft_fed.h"
#include <time.h>

static fgl_dataset ds;

static void make_data(int n) {
    fgl_synth_node_config c = fgl_synth_node_default();
    fgl_error e;
    memset(&ds, 0, sizeof ds);
    ds.task = FGL_TASK_NODE;
    snprintf(ds.label, sizeof ds.label, "synthetic");
    c.n_nodes = n;
    if (fgl_synth_node(&c, 7, &ds.node, NULL, &e)) printf("#   synthetic node data: %s\n", e.msg);
}

static void tmp_file(char *out, size_t cap, const char *tag) {
    snprintf(out, cap, "/tmp/fgl_test_pipeline_%s_%lx_%lx", tag, (unsigned long)time(NULL), (unsigned long)clock());
}

static int write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    fputs(text, f);
    return fclose(f) == 0;
}

/* unequal parts: node i in part 0 if i % 10 == 0, part 1 if i % 10 < 4, else part 2 */
static int unequal_part(int i) { return i % 10 == 0 ? 0 : i % 10 < 4 ? 1 : 2; }

static void test_split_global_keeps_roles(void) {
    int n = ds.node.n_nodes, i, c, *part = (int *)malloc(sizeof(int) * (size_t)n), differ = 0;
    fgl_split_config cfg = fgl_split_default(), one = fgl_split_default();
    fgl_scenario sc, sc2, whole, local;
    fgl_error err;
    if (!part) return;
    for (i = 0; i < n; i++) part[i] = unequal_part(i);
    cfg.how = FGL_PART_GIVEN;
    cfg.part = part;
    cfg.part_n = n;
    cfg.split_global = 1;
    one.how = FGL_PART_NONE; /* one client holding the whole graph in its order: the global split itself */
    one.split_global = 1;
    FT_CHECK(fgl_scenario_make(&sc, &ds, &cfg, &err) == FGL_OK, "given + global: %s", err.msg);
    FT_CHECK(fgl_scenario_make(&sc2, &ds, &cfg, &err) == FGL_OK, "again: %s", err.msg);
    FT_CHECK(fgl_scenario_make(&whole, &ds, &one, &err) == FGL_OK, "whole: %s", err.msg);
    cfg.split_global = 0;
    FT_CHECK(fgl_scenario_make(&local, &ds, &cfg, &err) == FGL_OK, "given, per-client split: %s", err.msg);
    FT_CHECK(sc.n_clients == 3 && whole.n_clients == 1 && whole.node[0].n_nodes == n, "clients %d, whole %d nodes",
             sc.n_clients, whole.n_clients ? whole.node[0].n_nodes : -1);
    if (sc.n_clients == 3 && whole.n_clients == 1 && local.n_clients == 3) {
        int pos[3] = {0, 0, 0}, wrong = 0, ntr = 0;
        for (i = 0; i < n; i++) { /* client c's j-th node is the j-th node of part c, in id order */
            c = part[i];
            wrong += sc.node[c].split[pos[c]] != whole.node[0].split[i];
            differ += local.node[c].split[pos[c]] != whole.node[0].split[i];
            pos[c]++;
            ntr += whole.node[0].split[i] == FGL_SPLIT_TRAIN;
        }
        FT_CHECK(wrong == 0, "%d nodes changed role between the whole graph and their client", wrong);
        FT_CHECK(differ > 0, "the per-client split gave every node its global role: the test cannot tell them apart");
        FT_CHECK(ntr == (int)floor(0.2 * n + 0.5), "%d training nodes of %d, expected 20%%", ntr, n);
        for (c = 0; c < 3; c++)
            FT_CHECK(memcmp(sc.node[c].split, sc2.node[c].split, (size_t)sc.node[c].n_nodes) == 0,
                     "client %d: the same seed gave another split", c);
    }
    fgl_scenario_free(&sc);
    fgl_scenario_free(&sc2);
    fgl_scenario_free(&whole);
    fgl_scenario_free(&local);
    { /* with fgl's METIS partitioner: the roles' totals over the clients are the global split's */
        fgl_split_config m = fgl_split_default();
        int tr = 0, va = 0;
        m.clients = 4;
        m.split_global = 1;
        FT_CHECK(fgl_scenario_make(&sc, &ds, &m, &err) == FGL_OK, "metis + global: %s", err.msg);
        for (c = 0; c < sc.n_clients; c++) {
            tr += fgl_split_indices(sc.node[c].split, sc.node[c].n_nodes, FGL_SPLIT_TRAIN, NULL);
            va += fgl_split_indices(sc.node[c].split, sc.node[c].n_nodes, FGL_SPLIT_VAL, NULL);
        }
        FT_CHECK(tr == (int)floor(0.2 * n + 0.5) && va == (int)floor(0.4 * n + 0.5), "train %d, val %d of %d", tr, va,
                 n);
        fgl_scenario_free(&sc);
        /* a global split on graph data, or with the data's own split, is refused */
        m.keep_split = 1;
        m.how = FGL_PART_NONE;
        FT_CHECK(fgl_scenario_make(&sc, &ds, &m, &err) != FGL_OK, "global split with keep_split accepted");
    }
    free(part);
}

static void test_partition_files(void) {
    char path[256];
    int n = 6, part[6], k = -1, i, rc;
    struct { const char *text; int k, code; const char *says; } bad[] = {
        {"0\n1\n2\n0\n1\n", 0, FGL_ERR_SHAPE, "5 lines"},          /* one line short */
        {"0\n1\n2\n0\n1\n2\n0\n", 0, FGL_ERR_SHAPE, "more lines"},  /* one too many */
        {"0\n1\n3\n0\n1\n2\n", 3, FGL_ERR_RANGE, "line 3"},        /* id outside 0..k-1 */
        {"0\n1\n-1\n0\n1\n2\n", 0, FGL_ERR_RANGE, "line 3"},       /* negative */
        {"0\n1\n3\n0\n1\n3\n", 0, FGL_ERR_EMPTY, "part 2"},        /* part 2 empty */
        {"0\n1\nx\n0\n1\n2\n", 0, FGL_ERR_PARSE, "line 3"},        /* garbage */
        {"0\n1\n2.5\n0\n1\n2\n", 0, FGL_ERR_PARSE, "line 3"},      /* not an integer */
        {"0\n1\n2 1\n0\n1\n2\n", 0, FGL_ERR_PARSE, "line 3"},      /* two numbers */
        {"0\n\n2\n0\n1\n2\n", 0, FGL_ERR_PARSE, "line 2"},         /* blank line */
        {"", 0, FGL_ERR_EMPTY, "0 lines"},                         /* empty file */
    };
    fgl_error err;
    tmp_file(path, sizeof path, "part");
    FT_CHECK(write_text(path, "2\n0\n1\r\n1\n0\n2"), "cannot write %s", path); /* CRLF and no final newline: fine */
    FT_CHECK(fgl_read_partition(path, n, 0, part, &k, &err) == FGL_OK && k == 3, "good file: %s (k %d)", err.msg, k);
    FT_CHECK(part[0] == 2 && part[1] == 0 && part[2] == 1 && part[3] == 1 && part[4] == 0 && part[5] == 2,
             "parts as written");
    FT_CHECK(fgl_read_partition(path, n, 3, part, &k, &err) == FGL_OK, "k = 3 given: %s", err.msg);
    FT_CHECK(fgl_read_partition(path, n, 4, part, &k, &err) == FGL_ERR_EMPTY && strstr(err.msg, "part 3"),
             "4 parts expected, the file has 3: %s", err.msg);
    for (i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        int j, kept = 1;
        for (j = 0; j < n; j++) part[j] = 99;
        write_text(path, bad[i].text);
        rc = fgl_read_partition(path, n, bad[i].k, part, &k, &err);
        for (j = 0; j < n; j++) kept &= part[j] == 99;
        FT_CHECK(rc == bad[i].code && strstr(err.msg, bad[i].says) && strstr(err.msg, path),
                 "bad file %d: %s (code %d, expected %d with '%s')", i, err.msg, rc, bad[i].code, bad[i].says);
        FT_CHECK(kept, "bad file %d: part was written", i);
    }
    remove(path);
    FT_CHECK(fgl_read_partition(path, n, 0, part, &k, &err) == FGL_ERR_IO && strstr(err.msg, "cannot be opened"),
             "a missing file: %s", err.msg);
    { /* the METIS graph file of the synthetic data: header n m, then one line per node */
        FILE *f;
        long nn = -1, m = -1, lines = 0;
        int ch;
        FT_CHECK(fgl_write_metis_graph(&ds.node.adj, path, &err) == FGL_OK, "write: %s", err.msg);
        if ((f = fopen(path, "r"))) {
            if (fscanf(f, "%ld %ld", &nn, &m) != 2) nn = -1;
            while ((ch = fgetc(f)) != EOF) lines += ch == '\n';
            fclose(f);
        }
        FT_CHECK(nn == ds.node.n_nodes && m == fgl_graph_num_edges(&ds.node.adj) && lines == nn + 1,
                 "METIS file: header %ld %ld, %ld lines; graph %d nodes, %d edges", nn, m, lines, ds.node.n_nodes,
                 fgl_graph_num_edges(&ds.node.adj));
        remove(path);
        FT_CHECK(fgl_write_metis_graph(&ds.node.adj, "/nonexistent-dir/x.graph", &err) == FGL_ERR_IO, "unwritable");
    }
    { /* the given partition as clients */
        int N = ds.node.n_nodes, *p = (int *)malloc(sizeof(int) * (size_t)N), c;
        fgl_split_config cfg = fgl_split_default();
        fgl_scenario sc;
        if (!p) return;
        for (i = 0; i < N; i++) p[i] = unequal_part(i);
        cfg.how = FGL_PART_GIVEN;
        cfg.part = p;
        cfg.part_n = N;
        FT_CHECK(fgl_scenario_make(&sc, &ds, &cfg, &err) == FGL_OK && sc.n_clients == 3, "given: %s", err.msg);
        for (c = 0; c < sc.n_clients; c++) {
            int cnt = 0;
            for (i = 0; i < N; i++) cnt += p[i] == c;
            FT_CHECK(sc.node[c].n_nodes == cnt, "client %d: %d nodes, the partition gives it %d", c,
                     sc.node[c].n_nodes, cnt);
        }
        fgl_scenario_free(&sc);
        cfg.part_n = N - 1;
        FT_CHECK(fgl_scenario_make(&sc, &ds, &cfg, &err) == FGL_ERR_SHAPE && strstr(err.msg, "entries"),
                 "a partition of another size: %s", err.msg);
        cfg.part_n = N;
        cfg.clients = 2;
        FT_CHECK(fgl_scenario_make(&sc, &ds, &cfg, &err) == FGL_ERR_RANGE, "3 parts for 2 clients: %s", err.msg);
        cfg.clients = 4;
        FT_CHECK(fgl_scenario_make(&sc, &ds, &cfg, &err) == FGL_ERR_EMPTY && strstr(err.msg, "client 3"),
                 "3 parts for 4 clients: %s", err.msg);
        cfg.clients = 0;
        cfg.public_nodes = 10;
        FT_CHECK(fgl_scenario_make(&sc, &ds, &cfg, &err) == FGL_ERR_ARG, "public nodes with a partition: %s", err.msg);
        cfg.public_nodes = 0;
        cfg.part = NULL;
        FT_CHECK(fgl_scenario_make(&sc, &ds, &cfg, &err) == FGL_ERR_ARG, "no partition: %s", err.msg);
        free(p);
    }
}

/* the uploads of the last round, kept by ft_fed.h's wrapper */
static void test_fedavg_equal_weights(void) {
    int N = ds.node.n_nodes, *p = (int *)malloc(sizeof(int) * (size_t)N), i, w;
    fgl_split_config cfg = fgl_split_default();
    fgl_scenario sc;
    fgl_client_data cd[3];
    fgl_model_spec spec;
    fgl_fed_config fc = fgl_fed_default(FGL_TASK_NODE);
    fgl_error err;
    float *global[2] = {NULL, NULL};
    size_t n = 0, k;
    if (!p) return;
    for (i = 0; i < N; i++) p[i] = unequal_part(i);
    cfg.how = FGL_PART_GIVEN;
    cfg.part = p;
    cfg.part_n = N;
    if (fgl_scenario_make(&sc, &ds, &cfg, &err)) {
        FT_CHECK(0, "scenario: %s", err.msg);
        free(p);
        return;
    }
    spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, ds.node.n_feat, ds.node.n_classes);
    spec.hidden = 16;
    fgl_scenario_clients(&sc, &spec, cd, 3, &err);
    fc.rounds = 2;
    for (w = 0; w < 2; w++) { /* samples, then equal */
        const char *sets[] = {"weights", w ? "equal" : "samples", NULL};
        fgl_algo a = fgl_algo_base("fedavg");
        ft_seen seen;
        fgl_run run;
        memset(&seen, 0, sizeof seen);
        ft__seen_inner = a.aggregate;
        a.aggregate = ft__seen_aggregate;
        ft__seen_run = &run;
        ft__seen = &seen;
        if (ft_run_algo(&run, &fc, &a, cd, 3, 2, sets)) {
            const float *g = fgl_floats(&run.server.store, "global");
            double wt[3], wsum = 0;
            size_t off = 0;
            n = run.server.n_shared;
            for (i = 0; i < 3; i++) wsum += wt[i] = w ? 1.0 : (double)run.clients[i].n_train;
            FT_CHECK(run.clients[0].n_train != run.clients[2].n_train, "the clients need unequal sizes (%d, %d)",
                     run.clients[0].n_train, run.clients[2].n_train);
            for (k = 0; k < n && seen.theta[0] && seen.theta[1] && seen.theta[2]; k++) { /* the mean, by hand */
                double acc = 0;
                for (i = 0; i < 3; i++) acc += wt[i] * seen.theta[i][k];
                off += fabs(acc / wsum - g[k]) > 1e-6 * (1 + fabs(acc / wsum));
            }
            FT_CHECK(seen.theta[0] && off == 0, "weights=%s: %zu of %zu server values differ from the %s mean",
                     sets[1], off, n, w ? "plain" : "sample-weighted");
            FT_CHECK(fgl_run_get(&run, "weights") == w, "weights read back %g", fgl_run_get(&run, "weights"));
            if ((global[w] = (float *)malloc(sizeof(float) * n))) memcpy(global[w], g, sizeof(float) * n);
            fgl_run_free(&run);
        }
        ft_seen_free(&seen);
    }
    if (global[0] && global[1]) {
        size_t diff = 0;
        for (k = 0; k < n; k++) diff += global[0][k] != global[1][k];
        FT_CHECK(diff > n / 2, "equal and sample weights gave the same model in %zu of %zu values", n - diff, n);
    }
    { /* names: refused when unknown; secure aggregation (weighted by samples) refused with equal weights */
        fgl_run run;
        FT_CHECK(fgl_run_init(&run, &fc, fgl_algo_find("fedavg"), cd, 3, &err) == FGL_OK, "init: %s", err.msg);
        FT_CHECK(fgl_run_set(&run, "weights", "eq", &err) == FGL_ERR_PARSE && strstr(err.msg, "samples|equal"),
                 "weights=eq: %s", err.msg);
        FT_CHECK(fgl_run_set(&run, "weights", "1", &err) == FGL_OK && fgl_run_get(&run, "weights") == 1,
                 "weights=1 is equal");
        fgl_run_free(&run);
    }
    free(global[0]);
    free(global[1]);
    fgl_scenario_free(&sc);
    free(p);
}

int main(void) {
    make_data(ft_quick() ? 600 : 1200);
    FT_RUN(test_split_global_keeps_roles);
    FT_RUN(test_partition_files);
    FT_RUN(test_fedavg_equal_weights);
    fgl_dataset_free(&ds);
    return ft_finish();
}
