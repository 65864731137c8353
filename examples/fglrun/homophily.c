/* fglrun/homophily.c - part of examples/fglrun.c (included by it): the homophily of the data and of each client. */
#include "fglrun.h"

/* ======================================================================================= */
/*
 * fglrun --info and the result record (--json, DIR/result.json) of a node
 * task report the measures of src/graph/homophily.h (edge, node, adjusted,
 * class-insensitive homophily, label informativeness) for the whole graph
 * (the dataset as loaded: after --lcc when given) and for each client's
 * subgraph: the client's own adjacency, that is the edges inside the client
 * (cut edges are not the client's; under --halo the halo rows are unlabelled,
 * so they and their edges are left out as well). A measure that is undefined
 * for a client (no edge inside it, one class) is null, counted in the
 * summary's "undefined" and left out of its min / median / max.
 */

enum { HM_EDGE, HM_NODE, HM_ADJ, HM_CI, HM_LI, HM_N };
static const char *const hm_name[HM_N] = {"edge", "node", "adjusted", "class_insensitive", "label_informativeness"};

static double hm_get(const fgl_homophily *h, int m) {
    return m == HM_EDGE ? h->edge : m == HM_NODE ? h->node : m == HM_ADJ ? h->adjusted
           : m == HM_CI ? h->class_insensitive : h->label_informativeness;
}

static void sb_num4(sbuf *b, double x) {
    if (isfinite(x)) sb_printf(b, "%.4f", x);
    else sb_puts(b, "null");
}

/* The whole graph's measures into *g and each client's into (*cl)[0..K-1]
 * (malloc'd, the caller frees). 0, or 1 for data that is not a node task's,
 * or when out of memory. */
FGLRUN_SHARED int homophily_compute(const fgl_dataset *ds, const fgl_scenario *sc, fgl_homophily *g,
                                    fgl_homophily **cl) {
    int i, K = sc->n_clients;
    *cl = NULL;
    if (ds->task != FGL_TASK_NODE || !sc->node || K < 0) return 1;
    if (fgl_graph_homophily(&ds->node.adj, ds->node.y, g, NULL)) return 1;
    if (!(*cl = (fgl_homophily *)malloc(sizeof(fgl_homophily) * (size_t)(K > 0 ? K : 1)))) return 1;
    for (i = 0; i < K; i++)
        if (fgl_graph_homophily(&sc->node[i].adj, sc->node[i].y, &(*cl)[i], NULL)) {
            free(*cl);
            *cl = NULL;
            return 1;
        }
    return 0;
}

/* One (sub)graph's measures and counts as the members of an object (no braces). */
FGLRUN_SHARED void homophily_members(sbuf *b, const fgl_homophily *h) {
    int m;
    for (m = 0; m < HM_N; m++) {
        sb_printf(b, "%s\"%s\": ", m ? ", " : "", hm_name[m]);
        sb_num4(b, hm_get(h, m));
    }
    sb_printf(b, ", \"edges\": %ld, \"labelled_nodes\": %d, \"classes\": %d", h->edges, h->nodes, h->classes);
}

/* The "homophily" object: the graph's measures, "clients_summary" (per
 * measure the min, median and max over the clients where it is defined, and
 * how many it is not), and with lists "clients": per measure an array over
 * the clients (and their "edges"). */
FGLRUN_SHARED void homophily_json(sbuf *b, const fgl_homophily *g, const fgl_homophily *cl, int K, int lists) {
    double *v = (double *)malloc(sizeof(double) * (size_t)(K > 0 ? K : 1));
    int m, i, j;
    sb_puts(b, "{");
    homophily_members(b, g);
    sb_puts(b, ", \"clients_summary\": {");
    for (m = 0; m < HM_N; m++) {
        int n = 0;
        for (i = 0; v && i < K; i++) {
            double x = hm_get(&cl[i], m);
            if (!isfinite(x)) continue;
            for (j = n++; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1]; /* insertion: kept sorted */
            v[j] = x;
        }
        sb_printf(b, "%s\"%s\": {\"min\": ", m ? ", " : "", hm_name[m]);
        sb_num4(b, n ? v[0] : NAN);
        sb_puts(b, ", \"median\": ");
        sb_num4(b, n ? (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2])) : NAN);
        sb_puts(b, ", \"max\": ");
        sb_num4(b, n ? v[n - 1] : NAN);
        sb_printf(b, ", \"undefined\": %d}", K - n);
    }
    sb_puts(b, "}");
    if (lists) {
        sb_puts(b, ", \"clients\": {");
        for (m = 0; m < HM_N; m++) {
            sb_printf(b, "%s\"%s\": [", m ? ", " : "", hm_name[m]);
            for (i = 0; i < K; i++) {
                if (i) sb_puts(b, ", ");
                sb_num4(b, hm_get(&cl[i], m));
            }
            sb_puts(b, "]");
        }
        sb_puts(b, ", \"edges\": [");
        for (i = 0; i < K; i++) sb_printf(b, "%s%ld", i ? ", " : "", cl[i].edges);
        sb_puts(b, "]}");
    }
    sb_puts(b, "}");
    free(v);
}

/* The record's "homophily" member (its JSON text, malloc'd; NULL for data
 * that is not a node task's). lists: the per-client arrays too (not under
 * --dp without --per-client-records, as the other per-client outputs). */
FGLRUN_SHARED char *homophily_record(const fgl_dataset *ds, const fgl_scenario *sc, int lists) {
    fgl_homophily g, *cl;
    sbuf b = {0, 0, 0, 0};
    if (homophily_compute(ds, sc, &g, &cl)) return NULL;
    homophily_json(&b, &g, cl, sc->n_clients, lists);
    free(cl);
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* --info's per-client label histogram of a node client: `, "label_counts": [n_0, ...]` over the data's C classes
 * (unlabelled nodes not counted), so label skews can be read off. */
FGLRUN_SHARED void print_node_label_counts(const fgl_node_data *d, int C) {
    int c, v, *counts = (int *)calloc((size_t)(C > 0 ? C : 1), sizeof(int));
    if (!counts) return;
    for (v = 0; d->y && v < d->n_nodes; v++)
        if (d->y[v] >= 0 && d->y[v] < C) counts[d->y[v]]++;
    printf(", \"label_counts\": [");
    for (c = 0; c < C; c++) printf("%s%d", c ? ", " : "", counts[c]);
    printf("]");
    free(counts);
}

/* --info's range of a graph client's OpenFGL statistics (the topology-skew and feature-skew splits sort by them):
 * `, "mean_degree": [min, max], "mean_feature": [min, max]` over its graphs. */
FGLRUN_SHARED void print_graph_stat_ranges(const fgl_graph_set *g) {
    double *st = (double *)malloc(sizeof(double) * (size_t)(g->n_graphs > 0 ? g->n_graphs : 1)), lo, hi;
    int pass, i;
    fgl_error e;
    if (!st || g->n_graphs < 1) {
        free(st);
        return;
    }
    for (pass = 0; pass < 2; pass++) {
        if (pass == 0) fgl_graph_set_mean_degrees(g, st);
        else if (fgl_graph_set_mean_features(g, st, &e)) break;
        for (lo = hi = st[0], i = 1; i < g->n_graphs; i++) {
            lo = st[i] < lo ? st[i] : lo;
            hi = st[i] > hi ? st[i] : hi;
        }
        printf(", \"%s\": [%.6g, %.6g]", pass ? "mean_feature" : "mean_degree", lo, hi);
    }
    free(st);
}
