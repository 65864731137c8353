#include "../alone.h" /* (this file alone: src/alone.h) */
/* ------------------------------------------------------------------------ */
/* Ready-made federated datasets (protocols: docs/algorithms.md)            */
/* ------------------------------------------------------------------------ */
/* A dataset (fgl_dataset_load, fgl_graph.h: src/graph/dataset.h) spread
 * over clients: partitions, splits, the clients' data and model specs. */

/* How a dataset is spread over clients. */
enum {
    FGL_PART_METIS,       /* node task: min-edge-cut k-way partition, disjoint subgraphs */
    FGL_PART_LOUVAIN,     /* node task: Louvain communities packed into k clients */
    FGL_PART_RANDOM,      /* node task: random balanced node partition */
    FGL_PART_OVERLAP,     /* node task: FED-PUB's overlapping split (k multiple of 5) */
    FGL_PART_DIRICHLET,   /* Dirichlet(alpha) label skew (node task: of the nodes, edges across clients dropped) */
    FGL_PART_IID,         /* graph task: uniform */
    FGL_PART_PER_DATASET, /* graph task: one dataset per client */
    FGL_PART_NONE,        /* one client holding everything (centralised baseline) */
    FGL_PART_DIRICHLET_EQUAL, /* graph task: GPFL's soft Dirichlet(alpha) skew, capped priors, equal sizes */
    FGL_PART_GIVEN,       /* node task: the caller's node -> client array (fgl_split_config.part), e.g. real METIS's
                             output read by fgl_read_partition; disjoint subgraphs */
    /* OpenFGL's simulations (src/graph/simulate.h; docs/algorithms.md, "OpenFGL's data simulations"): */
    FGL_PART_LOUVAIN_PLUS, /* node task: Louvain communities (resolution) grouped into k clients by k-means of their
                              label distributions (OpenFGL's Louvain+) */
    FGL_PART_METIS_PLUS,  /* node task: METIS into metis_parts parts, grouped likewise (OpenFGL's Metis+) */
    FGL_PART_LABEL_SKEW,  /* node or graph task: OpenFGL's Dirichlet(alpha) label skew with client capacities n / k,
                             redrawn until every client has min_per_client (node task: edges across clients dropped) */
    FGL_PART_TOPOLOGY_SKEW, /* graph task: graphs sorted by mean degree, dealt in k consecutive runs */
    FGL_PART_FEATURE_SKEW,  /* graph task: graphs sorted by the mean of their node features, likewise */
    FGL_PART_COUNT
};

FGLDEF const char *fgl_part_name(int how);
FGLDEF int fgl_part_from_name(const char *name);   /* -1 if unknown */

typedef struct fgl_split_config {
    int how;             /* FGL_PART_*; -1: METIS for a node task, DIRICHLET for one graph set,
                            PER_DATASET for several */
    int clients;         /* 0: 5 (node; overlapping: 10), 10 (graph); PER_DATASET: one per set */
    double alpha;        /* DIRICHLET, LABEL_SKEW concentration (0.5; OpenFGL's default is 10) */
    int min_per_client;  /* DIRICHLET, LABEL_SKEW: fewest graphs (nodes) a client may get (10; OpenFGL's: 5) */
    int public_nodes;    /* node tasks: nodes drawn at random (split seed) and withheld from every client
                            before the split, kept in fgl_scenario.pub (0) */
    double train, val;   /* fractions of each client's samples; < 0: the protocol's
                            (node 0.2 / 0.4, graph 0.8 / 0.1); the rest is test */
    int keep_split;      /* NONE: keep the split the data brings (Planetoid's public split) */
    int stratified;      /* node tasks: per-class stratified node split (FedPG's protocol); 0: random */
    uint64_t seed;       /* the split's own seed, separate from the model's (1234) */
    int folds, fold;     /* graph tasks, folds >= 2: stratified k-fold CV inside every client
                            (fgl_split_graphs_kfold), fold `fold` the test set, no validation set */
    double cap;          /* DIRICHLET_EQUAL: the largest class prior (0.95, GPFL's code) */
    int test_first;      /* node tasks, 1: each client's test set is the first round((1 - train - val) n)
                            of its n labelled nodes in the stored order (ascending ids of the data),
                            the rest split at random into train and val in the ratio train : val
                            (the pFedGNN authors' code: the first 20% test, no validation set); 0: random */
    int split_global;    /* node tasks: 1 draws the train/val/test split once on the whole graph (after the public
                            nodes are withheld), before the partition, and the clients inherit it (FED-PUB's code);
                            0 (default): each client splits its own nodes. Each client must get a training node */
    int halo;            /* node tasks, disjoint splits: > 0 keeps every client's halo of that many hops, the nodes of
                            other clients near its own with the edges to them (fgl_split_halo: FedGCN's data); 0
                            (default): edges between clients are dropped */
    const int *part;     /* GIVEN: part[i] the client of node i (0..clients-1), for the dataset's nodes in its order
                            (after --lcc, the largest component's nodes in increasing original id); not copied */
    int part_n;          /* GIVEN: the entries of part, which must equal the dataset's nodes */
    int use_fixed_split; /* node tasks, 1: the dataset's fixed split fixed_split (0..ds->n_fixed_splits-1) gives every
                            node its role, as one global split that the clients inherit (as split_global, but the
                            data's: train/val fractions, stratified and the split seed do not apply); 0 (default):
                            splits are drawn */
    int fixed_split;
    double resolution;   /* LOUVAIN_PLUS: the Louvain resolution (1, OpenFGL's default) */
    int metis_parts;     /* METIS_PLUS: the METIS parts grouped into clients (100, OpenFGL's default) */
} fgl_split_config;

FGLDEF fgl_split_config fgl_split_default(void);

typedef struct fgl_scenario {
    int task, how, n_clients;
    fgl_node_data *node;       /* n_clients client subgraphs (node tasks) */
    fgl_graph_set *graphs;     /* n_clients client graph sets (graph tasks) */
    long edge_cut;             /* disjoint node splits: edges lost between clients (-1: n/a) */
    fgl_node_data pub;         /* the withheld public nodes with their induced edges (n_nodes 0: none);
                                  fgl_run_set_public gives them to the server */
} fgl_scenario;

/* Spread ds over clients as cfg says; each client gets its own random node
 * split (per class with cfg->stratified; node tasks; with cfg->split_global
 * one split of the whole graph, which the clients inherit) or stratified graph
 * split (graph tasks), seeded by cfg->seed and the client id. The scenario copies what it needs: ds may be
 * freed after. */
FGLDEF int fgl_scenario_make(fgl_scenario *sc, const fgl_dataset *ds, const fgl_split_config *cfg, fgl_error *err);
/* Fill out[0..sc->n_clients-1] with each client's data and a copy of tmpl
 * whose in_dim / out_dim are the client's feature width and class count
 * (and pe_dim its structure-embedding width, for graph sets that have one).
 * cap: the entries out holds; fewer than sc->n_clients is FGL_ERR_ARG, with
 * a message saying how many are needed, and nothing is written. */
FGLDEF int fgl_scenario_clients(const fgl_scenario *sc, const fgl_model_spec *tmpl, fgl_client_data *out, int cap,
                                fgl_error *err);
FGLDEF void fgl_scenario_free(fgl_scenario *sc);

/* fgl:implementation */
#include "../alone.h"
/* --- ready-made federated datasets ----------------------------------------------- */

static const char *fgl__part_names[FGL_PART_COUNT] = {"metis", "louvain", "random", "overlap", "dirichlet",
                                                      "iid", "per-dataset", "none", "dirichlet-equal",
                                                      "given", "louvain-plus", "metis-plus", "label-skew",
                                                      "topology-skew", "feature-skew"};

FGLDEF const char *fgl_part_name(int how) {
    return how >= 0 && how < FGL_PART_COUNT ? fgl__part_names[how] : "unknown";
}

FGLDEF int fgl_part_from_name(const char *name) {
    int i;
    for (i = 0; name && i < FGL_PART_COUNT; i++)
        if (strcmp(name, fgl__part_names[i]) == 0) return i;
    return -1;
}

FGLDEF void fgl_scenario_free(fgl_scenario *sc) {
    int i;
    for (i = 0; sc->node && i < sc->n_clients; i++) fgl_node_data_free(&sc->node[i]);
    for (i = 0; sc->graphs && i < sc->n_clients; i++) fgl_graph_set_free(&sc->graphs[i]);
    FGL_FREE(sc->node);
    FGL_FREE(sc->graphs);
    fgl_node_data_free(&sc->pub);
    memset(sc, 0, sizeof *sc);
}

/* Louvain communities packed into k clients: largest community first, each
 * to the client with the fewest nodes so far. */
static int fgl__louvain_parts(const fgl_csr *adj, int k, uint64_t seed, int *part, fgl_error *err) {
    int n = adj->rows, nc = 0, i, rc, *comm, *size, *order, *load, *owner;
    comm = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(n, 1));
    if (!comm) return fgl_error_set(err, FGL_ERR_NOMEM, "louvain split: out of memory");
    if ((rc = fgl_louvain(adj, seed, comm, &nc, err))) {
        FGL_FREE(comm);
        return rc;
    }
    size = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(nc, 1));
    order = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(nc, 1));
    owner = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(nc, 1));
    load = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(k, 1));
    if (!size || !order || !owner || !load) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "louvain split: out of memory");
        goto done;
    }
    memset(size, 0, sizeof(int) * (size_t)nc);
    memset(load, 0, sizeof(int) * (size_t)k);
    for (i = 0; i < n; i++) size[comm[i]]++;
    for (i = 0; i < nc; i++) order[i] = i;
    for (i = 1; i < nc; i++) { /* insertion sort by size, descending (ties: lower id first) */
        int j = i, x = order[i];
        while (j > 0 && size[order[j - 1]] < size[x]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = x;
    }
    for (i = 0; i < nc; i++) {
        int best = 0, j;
        for (j = 1; j < k; j++)
            if (load[j] < load[best]) best = j;
        owner[order[i]] = best;
        load[best] += size[order[i]];
    }
    for (i = 0; i < n; i++) part[i] = owner[comm[i]];
    rc = FGL_OK;
done:
    FGL_FREE(comm);
    FGL_FREE(size);
    FGL_FREE(order);
    FGL_FREE(owner);
    FGL_FREE(load);
    return rc;
}

/* Label-Dirichlet assignment of nodes (the FedGCN-style split): unlabelled
 * nodes form one more pseudo-class so every node is assigned. */
static int fgl__node_dirichlet(const fgl_node_data *d, int k, double alpha, int min_per_client, uint64_t seed,
                               int *part, fgl_error *err) {
    int n = d->n_nodes, i, rc, C = d->n_classes, unl = 0;
    int *lab = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(n, 1));
    if (!lab) return fgl_error_set(err, FGL_ERR_NOMEM, "dirichlet split: out of memory");
    for (i = 0; i < n; i++) {
        lab[i] = d->y && d->y[i] >= 0 && d->y[i] < C ? d->y[i] : C;
        unl |= lab[i] == C;
    }
    rc = fgl_split_dirichlet(lab, n, C + unl, k, alpha, min_per_client, seed, part, err);
    FGL_FREE(lab);
    return rc;
}

/* OpenFGL's node simulations: Louvain+ and Metis+ (communities grouped by
 * their label distributions) and its label skew; unlabelled nodes count as
 * one more class in the label skew, and not at all in a community's label
 * distribution. */
static int fgl__node_openfgl(const fgl_node_data *d, int how, int k, const fgl_split_config *c, int *part,
                             fgl_error *err) {
    int n = d->n_nodes, i, rc, C = d->n_classes, unl = 0, nc = 0;
    int *lab = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(n, 1));
    int *comm = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(n, 1));
    if (!lab || !comm) {
        FGL_FREE(lab);
        FGL_FREE(comm);
        return fgl_error_set(err, FGL_ERR_NOMEM, "%s split: out of memory", fgl_part_name(how));
    }
    for (i = 0; i < n; i++) {
        lab[i] = d->y && d->y[i] >= 0 && d->y[i] < C ? d->y[i] : C;
        unl |= lab[i] == C;
    }
    if (how == FGL_PART_LABEL_SKEW)
        rc = fgl_split_label_skew(lab, n, C + unl, k, c->alpha, c->min_per_client, 100, c->seed, part, err);
    else {
        if (how == FGL_PART_LOUVAIN_PLUS) rc = fgl_louvain_ex(&d->adj, c->seed, c->resolution, comm, &nc, err);
        else rc = fgl_partition_metis(&d->adj, nc = c->metis_parts, c->seed, comm, err);
        if (!rc && nc < k)
            rc = fgl_error_set(err, FGL_ERR_ARG, "%s split: %d %s for %d clients (each client gets whole %s)%s",
                               fgl_part_name(how), nc, how == FGL_PART_LOUVAIN_PLUS ? "Louvain communities" : "METIS parts",
                               k, how == FGL_PART_LOUVAIN_PLUS ? "communities" : "parts",
                               how == FGL_PART_LOUVAIN_PLUS ? ": raise the resolution (--resolution) or use fewer clients"
                                                            : ": raise metis_parts (--metis-parts) or use fewer clients");
        if (!rc) rc = fgl_split_group_communities(comm, n, nc, lab, C, k, c->seed, part, err);
    }
    FGL_FREE(lab);
    FGL_FREE(comm);
    return rc;
}

/* Withhold `count` random nodes of full: *pub gets them (induced edges),
 * *rest the others (induced edges). */
static int fgl__withhold_nodes(const fgl_node_data *full, int count, uint64_t seed, fgl_node_data *pub,
                               fgl_node_data *rest, fgl_error *err) {
    int n = full->n_nodes, i, m = 0, rc;
    int *pick = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(count, 1));
    int *others = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(n, 1));
    unsigned char *taken = (unsigned char *)fgl__zalloc((size_t)FGL__MAX(n, 1));
    fgl_rng r;
    if (!pick || !others || !taken) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "public nodes: out of memory");
        goto done;
    }
    fgl_rng_init(&r, seed, 0x5055424c4943ull); /* "PUBLIC" */
    if ((rc = fgl_rng_sample(&r, n, count, pick))) {
        rc = fgl_error_set(err, rc, "public nodes: cannot draw %d of %d", count, n);
        goto done;
    }
    for (i = 1; i < count; i++) { /* ascending ids: the public set reads in the data's order */
        int j = i, x = pick[i];
        while (j > 0 && pick[j - 1] > x) {
            pick[j] = pick[j - 1];
            j--;
        }
        pick[j] = x;
    }
    for (i = 0; i < count; i++) taken[pick[i]] = 1;
    for (i = 0; i < n; i++)
        if (!taken[i]) others[m++] = i;
    if ((rc = fgl_node_data_subgraph(full, pick, count, pub, err))) goto done;
    snprintf(pub->name, sizeof pub->name, "%.50s-public", full->name);
    if ((rc = fgl_node_data_subgraph(full, others, m, rest, err))) fgl_node_data_free(pub);
done:
    FGL_FREE(pick);
    FGL_FREE(others);
    FGL_FREE(taken);
    return rc;
}

/* The given partition (FGL_PART_GIVEN) checked against the data: one entry
 * per node, ids 0..k-1, every client with a node. */
static int fgl__check_given(const fgl_split_config *c, int n, int k, const char *name, fgl_error *err) {
    int i, *count, rc = FGL_OK;
    if (!c->part) return fgl_error_set(err, FGL_ERR_ARG, "split 'given': no partition (fgl_split_config.part)");
    if (c->part_n != n)
        return fgl_error_set(err, FGL_ERR_SHAPE, "%s: the partition has %d entries, the graph %d nodes", name,
                             c->part_n, n);
    if (c->public_nodes)
        return fgl_error_set(err, FGL_ERR_ARG, "a given partition and public nodes cannot be combined");
    if (!(count = (int *)fgl__zalloc(sizeof(int) * (size_t)FGL__MAX(k, 1))))
        return fgl_error_set(err, FGL_ERR_NOMEM, "scenario: out of memory");
    for (i = 0; i < n && !rc; i++)
        if (c->part[i] < 0 || c->part[i] >= k)
            rc = fgl_error_set(err, FGL_ERR_RANGE, "%s: node %d is in part %d, expected 0..%d (%d clients)", name, i,
                               c->part[i], k - 1, k);
        else count[c->part[i]]++;
    for (i = 0; i < k && !rc; i++)
        if (!count[i]) rc = fgl_error_set(err, FGL_ERR_EMPTY, "%s: the partition gives client %d no node", name, i);
    FGL_FREE(count);
    return rc;
}

static int fgl__scenario_subgraphs(fgl_scenario *sc, const fgl_node_data *all, int how, int k, double train, double val,
                                   const fgl_split_config *cfg, fgl_error *err) {
    int keep_split = cfg->keep_split, stratified = cfg->stratified, min_per_client = cfg->min_per_client;
    int public_nodes = cfg->public_nodes, n = all->n_nodes, i, rc = FGL_OK;
    double alpha = cfg->alpha;
    uint64_t seed = cfg->seed;
    int *part = NULL;
    fgl_node_data rest, whole;
    const fgl_node_data *full = all;
    memset(sc, 0, sizeof *sc);
    fgl_node_data_init(&rest);
    memset(&whole, 0, sizeof whole);
    if (how == FGL_PART_NONE) k = 1;
    if (how == FGL_PART_GIVEN && (rc = fgl__check_given(cfg, n, k, all->name, err))) return rc;
    if (cfg->split_global && keep_split)
        return fgl_error_set(err, FGL_ERR_ARG, "a global split and the data's own split cannot be combined");
    if (public_nodes < 0 || public_nodes >= n)
        return fgl_error_set(err, FGL_ERR_ARG, "%s: %d public nodes of %d", all->name, public_nodes, n);
    n -= public_nodes;
    if (k < 1 || k > n) return fgl_error_set(err, FGL_ERR_ARG, "%s: %d clients for %d nodes", all->name, k, n);
    if (cfg->halo && (how == FGL_PART_OVERLAP || cfg->halo < 0 || cfg->halo > 8))
        return fgl_error_set(err, FGL_ERR_ARG, "a halo of %d hops: 1..8, and not with the overlapping split",
                             cfg->halo);
    if (how == FGL_PART_OVERLAP && k % 5 != 0)
        return fgl_error_set(err, FGL_ERR_ARG, "overlap split: the number of clients (%d) must be a multiple of 5", k);
    if (how != FGL_PART_METIS && how != FGL_PART_LOUVAIN && how != FGL_PART_RANDOM && how != FGL_PART_OVERLAP &&
        how != FGL_PART_DIRICHLET && how != FGL_PART_NONE && how != FGL_PART_GIVEN && how != FGL_PART_LOUVAIN_PLUS &&
        how != FGL_PART_METIS_PLUS && how != FGL_PART_LABEL_SKEW)
        return fgl_error_set(err, FGL_ERR_ARG, "split '%s' is not for node classification (metis, louvain, random, "
                             "overlap, dirichlet, given, none, louvain-plus, metis-plus, label-skew)",
                             fgl_part_name(how));
    if (how == FGL_PART_LOUVAIN_PLUS && !(cfg->resolution > 0 && cfg->resolution < 1e9))
        return fgl_error_set(err, FGL_ERR_ARG, "louvain-plus split: resolution %g must be > 0", cfg->resolution);
    if (how == FGL_PART_METIS_PLUS && !(cfg->metis_parts >= k && cfg->metis_parts <= n))
        return fgl_error_set(err, FGL_ERR_ARG, "metis-plus split: %d METIS parts for %d clients and %d nodes (need "
                             "clients <= parts <= nodes)", cfg->metis_parts, k, n);
    if (how == FGL_PART_LABEL_SKEW && !((alpha > 0) && (double)k * FGL__MAX(min_per_client, 0) <= n))
        return fgl_error_set(err, FGL_ERR_ARG, "label-skew split: alpha %g must be > 0 and %d clients x %d nodes at "
                             "least must fit in %d nodes", alpha, k, min_per_client, n);
    if (how == FGL_PART_DIRICHLET && !((alpha > 0) && (double)k * FGL__MAX(min_per_client, 0) <= n))
        return fgl_error_set(err, FGL_ERR_ARG,
                             "dirichlet split: alpha %g must be > 0 and %d clients x %d nodes at least "
                             "must fit in %d nodes",
                             alpha, k, min_per_client, n);
    if (public_nodes > 0) { /* withheld before the split: no client ever holds them */
        if ((rc = fgl__withhold_nodes(all, public_nodes, seed, &sc->pub, &rest, err))) return rc;
        full = &rest;
    }
    if (cfg->split_global) { /* one split of the whole graph, before the partition: the clients inherit it */
        whole = *full;    /* shares full's arrays, except the split it draws */
        whole.split = NULL;
        rc = stratified ? fgl_split_nodes_stratified(&whole, train, val, seed * 7919u + 0x474c4f42u, err)
                        : fgl_split_nodes_random(&whole, train, val, seed * 7919u + 0x474c4f42u, err); /* "GLOB" */
        if (rc) {
            FGL_FREE(whole.split);
            fgl_node_data_free(&rest);
            fgl_scenario_free(sc); /* the public nodes, if withheld */
            return fgl_error_set(err, rc, "%s: cannot split the whole graph's nodes (%s)", full->name,
                                 fgl_result_name(rc));
        }
        full = &whole;
    }
    sc->task = FGL_TASK_NODE;
    sc->how = how;
    sc->edge_cut = -1;
    sc->node = (fgl_node_data *)FGL_MALLOC(sizeof(fgl_node_data) * (size_t)k);
    for (i = 0; sc->node && i < k; i++) fgl_node_data_init(&sc->node[i]); /* before any exit: done: frees them */
    part = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(n, 1));
    if (!sc->node || !part) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "scenario: out of memory");
        goto done;
    }
    if (how == FGL_PART_OVERLAP) {
        fgl_index_lists l;
        memset(&l, 0, sizeof l);
        if (!(rc = fgl_split_overlapping(&full->adj, k, seed, &l, err)))
            rc = fgl_split_node_lists(full, l.ptr, l.idx, k, sc->node, err);
        fgl_index_lists_free(&l);
    } else {
        if (how == FGL_PART_NONE) memset(part, 0, sizeof(int) * (size_t)n);
        else if (how == FGL_PART_DIRICHLET) rc = fgl__node_dirichlet(full, k, alpha, min_per_client, seed, part, err);
        else if (how == FGL_PART_METIS) rc = fgl_partition_metis(&full->adj, k, seed, part, err);
        else if (how == FGL_PART_LOUVAIN) rc = fgl__louvain_parts(&full->adj, k, seed, part, err);
        else if (how == FGL_PART_GIVEN) memcpy(part, cfg->part, sizeof(int) * (size_t)n);
        else if (how == FGL_PART_LOUVAIN_PLUS || how == FGL_PART_METIS_PLUS || how == FGL_PART_LABEL_SKEW)
            rc = fgl__node_openfgl(full, how, k, cfg, part, err);
        else rc = fgl_partition_random(n, k, seed, part, err);
        if (!rc) {
            sc->edge_cut = fgl_edge_cut(&full->adj, part);
            rc = fgl_split_subgraphs(full, part, k, sc->node, err);
        }
    }
    if (rc) goto done;
    sc->n_clients = k;
    for (i = 0; i < k; i++) {
        if (sc->node[i].n_nodes == 0) {
            rc = fgl_error_set(err, FGL_ERR_EMPTY, "%s: client %d of %d received no nodes", full->name, i, k);
            goto done;
        }
        /* the centralised baseline can keep a split the data brings (Planetoid) */
        if (how == FGL_PART_NONE && keep_split && sc->node[i].split) continue;
        if (cfg->split_global || cfg->use_fixed_split) { /* inherited: each client must have something to train on */
            if (fgl_split_indices(sc->node[i].split, sc->node[i].n_nodes, FGL_SPLIT_TRAIN, NULL) == 0) {
                if (cfg->use_fixed_split)
                    rc = fgl_error_set(err, FGL_ERR_EMPTY, "%s: client %d of %d received no training node of fixed "
                                       "split %d", full->name, i, k, cfg->fixed_split);
                else
                    rc = fgl_error_set(err, FGL_ERR_EMPTY, "%s: client %d of %d received no training node from the "
                                       "global split", full->name, i, k);
                goto done;
            }
            continue;
        }
        if ((rc = stratified ? fgl_split_nodes_stratified(&sc->node[i], train, val, seed * 7919u + (uint64_t)i, err)
                             : fgl_split_nodes_random(&sc->node[i], train, val, seed * 7919u + (uint64_t)i, err)))
            rc = fgl_error_set(err, rc, "%s: cannot split client %d's nodes (%s)", full->name, i, fgl_result_name(rc));
        if (rc) goto done;
    }
    if (cfg->halo > 0) /* after the clients' splits: their own rows keep what they drew */
        rc = fgl_split_halo(full, part, k, cfg->halo, sc->node, err);
done:
    FGL_FREE(part);
    FGL_FREE(whole.split);
    fgl_node_data_free(&rest);
    if (rc) {
        sc->n_clients = k; /* free what exists */
        fgl_scenario_free(sc);
    }
    return rc;
}

static int fgl__scenario_graph_alloc(fgl_scenario *sc, int k, int how, fgl_error *err) {
    int i;
    memset(sc, 0, sizeof *sc);
    sc->task = FGL_TASK_GRAPH;
    sc->how = how;
    sc->edge_cut = -1;
    sc->graphs = (fgl_graph_set *)FGL_MALLOC(sizeof(fgl_graph_set) * (size_t)FGL__MAX(k, 1));
    if (!sc->graphs) return fgl_error_set(err, FGL_ERR_NOMEM, "scenario: out of memory");
    for (i = 0; i < k; i++) fgl_graph_set_init(&sc->graphs[i]);
    sc->n_clients = k;
    return FGL_OK;
}

static int fgl__scenario_graphs(fgl_scenario *sc, const fgl_graph_set *full, int how, int k, double alpha,
                               int min_per_client, double train, double val, const fgl_split_config *cfg,
                               fgl_error *err) {
    uint64_t seed = cfg->seed;
    int n = full->n_graphs, i, rc;
    int *client_of = NULL;
    fgl_index_lists lists;
    memset(&lists, 0, sizeof lists);
    if (how == FGL_PART_NONE) k = 1;
    if (how != FGL_PART_DIRICHLET && how != FGL_PART_DIRICHLET_EQUAL && how != FGL_PART_IID && how != FGL_PART_NONE &&
        how != FGL_PART_LABEL_SKEW && how != FGL_PART_TOPOLOGY_SKEW && how != FGL_PART_FEATURE_SKEW)
        return fgl_error_set(err, FGL_ERR_ARG,
                             "split '%s' is not for one graph set (dirichlet, dirichlet-equal, iid, none, label-skew, "
                             "topology-skew, feature-skew)", fgl_part_name(how));
    if (k < 1 || k > n) return fgl_error_set(err, FGL_ERR_ARG, "%s: %d clients for %d graphs", full->name, k, n);
    if (!full->x) return fgl_error_set(err, FGL_ERR_ARG, "%s: build node features before splitting", full->name);
    if ((rc = fgl__scenario_graph_alloc(sc, k, how, err))) return rc;
    client_of = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(n, 1));
    if (!client_of) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "scenario: out of memory");
        goto done;
    }
    if (how == FGL_PART_NONE) memset(client_of, 0, sizeof(int) * (size_t)n);
    else if (how == FGL_PART_IID) rc = fgl_split_iid(n, k, seed, client_of, err);
    else if (how == FGL_PART_LABEL_SKEW)
        rc = fgl_split_label_skew(full->y, n, full->n_classes, k, alpha, min_per_client, 100, seed, client_of, err);
    else if (how == FGL_PART_TOPOLOGY_SKEW || how == FGL_PART_FEATURE_SKEW) { /* sorted by a statistic */
        double *stat = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(n, 1));
        if (!stat) rc = fgl_error_set(err, FGL_ERR_NOMEM, "scenario: out of memory");
        else if (how == FGL_PART_TOPOLOGY_SKEW) fgl_graph_set_mean_degrees(full, stat);
        else rc = fgl_graph_set_mean_features(full, stat, err);
        if (!rc) rc = fgl_split_sorted(stat, n, k, client_of, err);
        FGL_FREE(stat);
    }
    else if (how == FGL_PART_DIRICHLET_EQUAL)
        rc = fgl_split_dirichlet_equal(full->y, n, full->n_classes, k, alpha, cfg->cap > 0 ? cfg->cap : 0.95, seed,
                                       client_of, err);
    else rc = fgl_split_dirichlet(full->y, n, full->n_classes, k, alpha, min_per_client, seed, client_of, err);
    if (rc) goto done;
    if ((rc = fgl_index_lists_from_assign(client_of, n, k, &lists, err))) goto done;
    for (i = 0; i < k && !rc; i++) {
        fgl_graph_set *g = &sc->graphs[i];
        rc = fgl_graph_set_subset(full, lists.idx + lists.ptr[i], lists.ptr[i + 1] - lists.ptr[i], g, err);
        if (!rc) {
            snprintf(g->name, sizeof g->name, "%.40s#%d", full->name, i);
            if (cfg->folds >= 2) rc = fgl_split_graphs_kfold(g, cfg->folds, cfg->fold, seed * 7919u + (uint64_t)i, err);
            else rc = fgl_split_graphs_stratified(g, train, val, seed * 7919u + (uint64_t)i, err);
        }
    }
done:
    fgl_index_lists_free(&lists);
    FGL_FREE(client_of);
    if (rc) fgl_scenario_free(sc);
    return rc;
}

static int fgl__scenario_per_dataset(fgl_scenario *sc, const fgl_graph_set *sets, int n, double train, double val,
                                    uint64_t seed, fgl_error *err) {
    int i, rc, *ids;
    if (n < 1) return fgl_error_set(err, FGL_ERR_ARG, "per-dataset split: no datasets");
    if ((rc = fgl__scenario_graph_alloc(sc, n, FGL_PART_PER_DATASET, err))) return rc;
    for (i = 0; i < n && !rc; i++) {
        int j;
        if (!sets[i].x) {
            rc = fgl_error_set(err, FGL_ERR_ARG, "%s: build node features before splitting", sets[i].name);
            break;
        }
        ids = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(sets[i].n_graphs, 1));
        if (!ids) {
            rc = fgl_error_set(err, FGL_ERR_NOMEM, "scenario: out of memory");
            break;
        }
        for (j = 0; j < sets[i].n_graphs; j++) ids[j] = j;
        rc = fgl_graph_set_subset(&sets[i], ids, sets[i].n_graphs, &sc->graphs[i], err);
        FGL_FREE(ids);
        if (!rc) {
            memcpy(sc->graphs[i].name, sets[i].name, sizeof sc->graphs[i].name);
            rc = fgl_split_graphs_stratified(&sc->graphs[i], train, val, seed, err);
        }
    }
    if (rc) fgl_scenario_free(sc);
    return rc;
}

FGLDEF int fgl_scenario_clients(const fgl_scenario *sc, const fgl_model_spec *tmpl, fgl_client_data *out, int cap,
                                fgl_error *err) {
    int i;
    if (!sc || !tmpl || (!out && sc->n_clients > 0))
        return fgl_error_set(err, FGL_ERR_ARG, "scenario clients: no scenario, model spec or output array");
    if (cap < sc->n_clients)
        return fgl_error_set(err, FGL_ERR_ARG,
                             "scenario clients: the scenario has %d clients, the output array holds %d: give it %d "
                             "entries (sc.n_clients)",
                             sc->n_clients, cap, sc->n_clients);
    for (i = 0; i < sc->n_clients; i++) {
        out[i].spec = *tmpl;
        out[i].node = sc->node ? &sc->node[i] : NULL;
        out[i].graphs = sc->graphs ? &sc->graphs[i] : NULL;
        out[i].link = NULL; /* link prediction: the caller's edge splits (fgl_link_split_make) */
        out[i].spec.task = sc->task;
        out[i].spec.in_dim = sc->node ? sc->node[i].n_feat : sc->graphs[i].n_feat;
        out[i].spec.out_dim = sc->node ? sc->node[i].n_classes : sc->graphs[i].n_classes;
        if (sc->graphs && sc->graphs[i].n_pe > 0) out[i].spec.pe_dim = sc->graphs[i].n_pe;
    }
    return FGL_OK;
}

/* cfg.test_first: client d's test set becomes the first nodes in stored
 * order (see fgl_split_config), train and val drawn from the rest. */
static int fgl__split_test_first(fgl_node_data *d, double train, double val, uint64_t seed, fgl_error *err) {
    int n = 0, i, nte, nva, m = 0, *rest = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(d->n_nodes, 1));
    fgl_rng r;
    if (!rest || !d->split) {
        FGL_FREE(rest);
        return fgl_error_set(err, FGL_ERR_NOMEM, "%s: test-first split: out of memory", d->name);
    }
    for (i = 0; i < d->n_nodes; i++) n += !d->y || d->y[i] >= 0;
    nte = (int)floor((1.0 - train - val) * n + 0.5);
    for (i = 0; i < d->n_nodes; i++) {
        if (d->y && d->y[i] < 0) continue;
        if (nte > 0) {
            d->split[i] = FGL_SPLIT_TEST;
            nte--;
        } else {
            rest[m++] = i;
        }
    }
    fgl_rng_init(&r, seed, 0x4649525354ull); /* "FIRST" */
    fgl_rng_shuffle(&r, rest, m);
    nva = train + val > 0 ? (int)floor(val / (train + val) * m + 0.5) : 0;
    for (i = 0; i < m; i++) d->split[rest[i]] = (unsigned char)(i < nva ? FGL_SPLIT_VAL : FGL_SPLIT_TRAIN);
    FGL_FREE(rest);
    return FGL_OK;
}

FGLDEF fgl_split_config fgl_split_default(void) {
    fgl_split_config c;
    memset(&c, 0, sizeof c);
    c.how = -1;
    c.alpha = 0.5;
    c.min_per_client = 10;
    c.train = c.val = -1;
    c.seed = 1234;
    c.cap = 0.95;
    c.resolution = 1.0;
    c.metis_parts = 100;
    return c;
}

FGLDEF int fgl_scenario_make(fgl_scenario *sc, const fgl_dataset *ds, const fgl_split_config *cfg, fgl_error *err) {
    fgl_split_config c = cfg ? *cfg : fgl_split_default();
    int node = ds->task == FGL_TASK_NODE;
    double tr = c.train >= 0 ? c.train : node ? 0.2 : 0.8, va = c.val >= 0 ? c.val : node ? 0.4 : 0.1;
    memset(sc, 0, sizeof *sc);
    if (!(tr >= 0 && va >= 0 && tr + va <= 1))
        return fgl_error_set(err, FGL_ERR_ARG, "train (%g) + validation (%g) fractions must be in [0, 1]", tr, va);
    if (c.folds != 0 && (node || c.folds < 2 || c.fold < 0 || c.fold >= c.folds))
        return fgl_error_set(err, FGL_ERR_ARG, "cross-validation: %d folds, fold %d (graph tasks; folds >= 2, "
                             "0 <= fold < folds)", c.folds, c.fold);
    if (node) {
        int how = c.how >= 0 ? c.how : FGL_PART_METIS;
        int k = c.clients > 0 ? c.clients : how == FGL_PART_OVERLAP ? 10 : 5;
        if (c.keep_split && how == FGL_PART_NONE && !ds->node.split)
            return fgl_error_set(err, FGL_ERR_ARG, "%s has no public split", ds->label);
        int rc, i;
        if (how == FGL_PART_GIVEN && c.clients <= 0) /* as many clients as the partition names */
            for (k = 1, i = 0; c.part && i < c.part_n; i++) k = FGL__MAX(k, c.part[i] + 1);
        if (c.test_first && (c.keep_split || c.stratified || c.split_global))
            return fgl_error_set(err, FGL_ERR_ARG, "the test-first split replaces the random node split: not with "
                                 "a kept public split, a stratified one or a global one");
        if (c.halo && c.test_first)
            return fgl_error_set(err, FGL_ERR_ARG, "a halo and the test-first split cannot be combined");
        if (c.use_fixed_split) { /* the data's split s for every node: the clients inherit it */
            fgl_node_data fixed = ds->node; /* shares ds's arrays but the split */
            if (ds->n_fixed_splits < 1)
                return fgl_error_set(err, FGL_ERR_ARG, "%s has no fixed splits (the heterophilous .npz datasets carry "
                                     "ten)", ds->label);
            if (c.fixed_split < 0 || c.fixed_split >= ds->n_fixed_splits)
                return fgl_error_set(err, FGL_ERR_ARG, "%s: fixed split %d: it has splits 0..%d", ds->label,
                                     c.fixed_split, ds->n_fixed_splits - 1);
            if (c.split_global || c.keep_split || c.test_first || c.stratified)
                return fgl_error_set(err, FGL_ERR_ARG, "%s: a fixed split gives every node its role: not with a "
                                     "global, kept, test-first or stratified split", ds->label);
            fixed.split = ds->fixed_splits + (size_t)c.fixed_split * (size_t)ds->node.n_nodes;
            return fgl__scenario_subgraphs(sc, &fixed, how, k, tr, va, &c, err);
        }
        rc = fgl__scenario_subgraphs(sc, &ds->node, how, k, tr, va, &c, err);
        if (rc || !c.test_first) return rc;
        for (i = 0; i < sc->n_clients && !rc; i++)
            rc = fgl__split_test_first(&sc->node[i], tr, va, c.seed * 7919u + (uint64_t)i, err);
        if (rc) fgl_scenario_free(sc);
        return rc;
    }
    if (c.test_first) return fgl_error_set(err, FGL_ERR_ARG, "the test-first split is for node classification");
    if (c.halo) return fgl_error_set(err, FGL_ERR_ARG, "a halo (cross-client edges kept) is for node classification");
    if (c.public_nodes) return fgl_error_set(err, FGL_ERR_ARG, "public nodes are for node classification");
    if (c.split_global) return fgl_error_set(err, FGL_ERR_ARG, "a global node split is for node classification");
    if (ds->task != FGL_TASK_GRAPH || ds->n_sets < 1)
        return fgl_error_set(err, FGL_ERR_ARG, "scenario: an empty dataset");
    if (ds->n_sets > 1 || c.how == FGL_PART_PER_DATASET) {
        if (c.how >= 0 && c.how != FGL_PART_PER_DATASET)
            return fgl_error_set(err, FGL_ERR_ARG, "%s: several datasets are split one per client, not '%s'", ds->label,
                                 fgl_part_name(c.how));
        if (c.folds)
            return fgl_error_set(err, FGL_ERR_ARG, "cross-validation folds are for one graph set split over clients");
        return fgl__scenario_per_dataset(sc, ds->sets, ds->n_sets, tr, va, c.seed, err);
    }
    return fgl__scenario_graphs(sc, &ds->sets[0], c.how >= 0 ? c.how : FGL_PART_DIRICHLET,
                                c.clients > 0 ? c.clients : 10, c.alpha, c.min_per_client, tr, va, &c, err);
}

#include "../alone.h"
