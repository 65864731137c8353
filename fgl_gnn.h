/* fgl_gnn.h is generated from src/gnn by tools/amalgamate: edit src/, then run make. */
/* fgl_gnn.h - GNN layers, models and readouts on fgl's autodiff tape.
 *
 * Part of fgl (see README.md). Builds on fgl_graph.h and fgl.h.
 *
 * A model is built from a declarative spec (architecture, dimensions, depth,
 * dropout, readout, task). Its parameters live in one fgl_params set whose
 * slices carry group tags, so federated algorithms choose what to share by
 * tag (FGL_G_FEATURE, FGL_G_CONV, FGL_G_STRUCT, FGL_G_HEAD, FGL_G_MASK,
 * FGL_G_BNSTAT), never by name.
 *
 * EXAMPLE: a 2-layer GCN trained on Cora's training nodes (the body of a
 * main(), compiled by make test; examples/gcn_cora.c is the full program).
 *       fgl_node_data data; fgl_error err;
 *       char dir[1024], path[1100];   // the data directory: $FGL_DATA, else ./data, else ~/.local/share/fgl
 *       if (fgl_data_dir(dir, sizeof dir, &err)) { puts(err.msg); return 1; }
 *       snprintf(path, sizeof path, "%s/node/Cora", dir);
 *       if (fgl_load_node(path, "Cora", &data, &err) ||
 *           fgl_split_nodes_random(&data, 0.2, 0.4, 1, &err)) { puts(err.msg); return 1; }
 *       fgl_node_data_normalize_features(&data);
 *       fgl_model_spec spec = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE,
 *                                                    data.n_feat, data.n_classes);
 *       fgl_model m;
 *       if (fgl_model_init(&m, &spec, 1, &err)) { puts(err.msg); return 1; }
 *       fgl_gnn_graph g;                        // the derived matrices a model needs
 *       if (fgl_gnn_graph_from_node_data(&g, &data, &spec, &err)) { puts(err.msg); return 1; }
 *       unsigned char *train = (unsigned char *)malloc((size_t)data.n_nodes);
 *       for (int i = 0; i < data.n_nodes; i++) train[i] = data.split[i] == FGL_SPLIT_TRAIN;
 *       fgl_optim opt; fgl_optim_init(&opt, fgl_optim_default(FGL_ADAM), &m.params);
 *       fgl_tape t; fgl_tape_init(&t);
 *       fgl_rng rng; fgl_rng_init(&rng, 1, 0);  // dropout's stream
 *       for (int epoch = 0; epoch < 100; epoch++) {
 *           fgl_forward out;
 *           fgl_tape_reset(&t); fgl_params_zero_grad(&m.params);
 *           fgl_model_forward(&m, &t, &g, 1, &rng, &out);   // train mode
 *           fgl_node *loss = fgl_op_cross_entropy(&t, out.logits, data.y, train);
 *           if (fgl_tape_backward(&t, loss)) { puts(t.err.msg); return 1; }
 *           fgl_optim_step(&opt, &m.params);
 *       }
 *       printf("train accuracy %.3f\n", fgl_model_accuracy(&m, &t, &g, data.y, train, NULL));
 *       free(train); fgl_tape_free(&t); fgl_optim_free(&opt); fgl_gnn_graph_free(&g);
 *       fgl_model_free(&m); fgl_node_data_free(&data);
 *
 * ARCHITECTURES (fgl_model_spec.arch)
 *   FGL_ARCH_GCN     Kipf & Welling: A_hat = D^-1/2 (A + I) D^-1/2, h' = A_hat h W + b.
 *   FGL_ARCH_GIN     Xu et al.: h' = MLP((1 + eps) h + sum of neighbours), eps fixed or
 *                    learned; MLP = Linear [-> BatchNorm] -> ReLU -> Linear.
 *   FGL_ARCH_SAGE    GraphSAGE, mean aggregator with root weight:
 *                    h' = h W_root + mean_{u in N(v)} h_u W_neigh + b.
 *   FGL_ARCH_SGC     Wu et al.: A_hat^K X computed once per graph, then linear layers.
 *   FGL_ARCH_GCNII   Chen et al.: h' = ((1 - a) A_hat h + a h0)((1 - b_l) I + b_l W_l),
 *                    b_l = log(lambda / l + 1).
 *   FGL_ARCH_GAT     Velickovic et al.: multi-head attention over N(v) and v itself,
 *                    LeakyReLU(0.2) scores, edge softmax, heads concatenated, ELU.
 *   FGL_ARCH_MLP     no graph: linear layers (a baseline).
 *   FGL_ARCH_FEDSTAR FedStar's feature/structure decoupled GIN + GCN model with its
 *                    published wiring (see fgl__fedstar_forward).
 *   FGL_ARCH_GAMLP   Zhang et al. (KDD 2022), as FedPG's node-level tables use it: the
 *                    propagated features X_k = A_hat^k X, k = 0..K (K = sgc_hops),
 *                    computed once per graph; per node, softmax attention over the hops
 *                    with one learned scoring vector a (weight of hop k: softmax_k
 *                    (X_k[v] . a)), their weighted sum, then linear layers (an MLP).
 *                    GAMLP's recursive/JK attention conditions each hop's score on the
 *                    others and it adds a label-propagation branch; fgl scores each hop
 *                    on its own features and has no label branch.
 *   Any layer weight may carry a FED-PUB mask (spec.masked): effective weight
 *   W * M with M a separate trainable FGL_G_MASK slice initialised to 1; in
 *   evaluation |M| < spec.mask_prune counts as 0.
 *
 * spec.norm_rep L2-normalises each row of the representation the classifier
 * reads (FedPG's embedding z = L2norm(ReLU(layer 1 output)): with no head,
 * the input of the last layer, after dropout in training; with a head, what
 * the head reads; for graph tasks, the readout).
 *
 * A FORWARD PASS returns node embeddings (the last message-passing layer's
 * output before its activation), the representation the classifier reads
 * (activated node embeddings, or the graph readout for graph tasks), graph
 * embeddings for graph tasks, and logits.
 *
 * LINK PREDICTION (FGL_TASK_LINK, link.h): a node model is the encoder, a
 * dot product of its outputs or its MLP head on pairs the decoder; the
 * edge split, the loss (binary cross-entropy against fresh negatives) and
 * AUC / Hits@K come with it, and a data view (view.h) supplies each task's
 * loss and metrics to the federated runtime.
 */
#ifndef FGL_GNN_H
#define FGL_GNN_H

#include "fgl_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --- src/gnn/model.h --- */
enum { FGL_ARCH_GCN, FGL_ARCH_GIN, FGL_ARCH_SAGE, FGL_ARCH_SGC, FGL_ARCH_GCNII, FGL_ARCH_GAT,
       FGL_ARCH_MLP, FGL_ARCH_FEDSTAR, FGL_ARCH_GAMLP, FGL_ARCH_COUNT };
/* Tasks: FGL_TASK_NODE, FGL_TASK_GRAPH, FGL_TASK_LINK (fgl_graph.h,
 * src/graph/dataset.h: a dataset is loaded for a task too). */
enum { FGL_READOUT_SUM, FGL_READOUT_MEAN, FGL_READOUT_MAX };
/* Classifier heads: none (the last layer emits the classes; node tasks
 * only), one linear layer, or Linear -> ReLU -> dropout -> Linear. */
enum { FGL_HEAD_NONE, FGL_HEAD_LINEAR, FGL_HEAD_MLP };
/* Normalisation of the hidden representations (fgl_model_spec.norm). */
enum { FGL_NORM_NONE, FGL_NORM_LAYER, FGL_NORM_BATCH };

#define FGL_MAX_LAYERS 16
#define FGL_MAX_HEADS 32
/* Bound on in_dim, hidden, out_dim and pe_dim (so that 2 * hidden and the
 * products of two dimensions cannot overflow), and on SGC's hops. */
#define FGL_MAX_DIM (1 << 24)
#define FGL_MAX_SGC_HOPS 64

typedef struct fgl_model_spec {
    int arch, task;
    int in_dim;          /* node feature width */
    int hidden;          /* width of every hidden layer */
    int out_dim;         /* number of classes */
    int layers;          /* message-passing layers (1..FGL_MAX_LAYERS) */
    float dropout;       /* after each hidden activation and inside the head */
    float input_dropout; /* on the input features (sparse inputs: on their non-zeros) */
    int readout;         /* graph tasks: FGL_READOUT_* */
    int head;            /* FGL_HEAD_* */
    int input_proj;      /* GIN: Linear(in -> hidden) before the first layer */
    int batch_norm;      /* GIN: batch norm inside each MLP */
    int learn_eps;       /* GIN: trainable epsilon */
    int heads;           /* GAT: attention heads (hidden must divide by it) */
    float gcnii_alpha, gcnii_lambda;
    int sgc_hops;        /* SGC, GAMLP: K propagation steps */
    int pe_dim;          /* FedStar: structure embedding width (DSE + RWSE) */
    int masked;          /* FED-PUB weight masks */
    float mask_prune;    /* evaluation: |mask| below this is 0 */
    float bn_momentum, bn_eps;
    int norm_rep;        /* 1: rep (what the classifier reads) is L2-normalised per row */
    /* Backbone options of node models (Platonov et al., ICLR 2023: plain GNNs
     * with skip connections and normalisation are strong under heterophily);
     * GCN, GIN, SAGE, GAT and MLP only, node and link tasks; both 0 by
     * default (the model, its parameters and its bits as without them). The
     * separate ego/neighbour weights of that paper are SAGE's layer as it is:
     * h' = mean_{u in N(v)} h_u W_neigh + h_v W_root + b (PyG's SAGEConv).
     *
     * residual: an input projection h = Dropout(ReLU(x W_in + b_in)) to the
     * hidden width, then every layer l is a block
     *     h <- h + Dropout(Act(Conv_l(Norm_l(h))))
     * (Act: ReLU, GAT's ELU; Conv_l the architecture's layer, hidden ->
     * hidden, holding the block's one linear map), and the head reads
     * rep = Norm_out(h). This is the pre-norm residual block of Platonov et
     * al.'s code (ResidualModuleWrapper: x + module(norm(x)); input linear,
     * dropout, activation; output norm and linear), with two simplifications,
     * so that the options combine with the library's layers unchanged (their
     * parameters, masks and groups): their module is the aggregation then a
     * two-layer feed-forward net with GELU (Linear, Dropout, GELU, Linear,
     * Dropout) where ours is the layer's own linear map(s) then ReLU and
     * dropout; and the head is the model's (--head linear: dropout then a
     * linear map; theirs has no dropout before it). A node task needs a head
     * (the blocks keep the hidden width). node_emb is h after the last
     * block, before Norm_out.
     *
     * norm: FGL_NORM_LAYER (per row, learned gain and bias per hidden
     * feature) or FGL_NORM_BATCH (per column; running statistics for
     * evaluation), applied to every hidden representation before a map reads
     * it: each layer's input when it is hidden (every layer with residual or
     * an input projection, else every layer but the first, which reads the
     * raw features), and rep before the head (none when the last layer emits
     * the classes). Without residual that is h <- Dropout(Act(Conv_l(Norm_l(h)))).
     * eps is bn_eps, the batch norm's momentum bn_momentum.
     * Parameter groups: Norm_l's gain and bias are FGL_G_CONV | FGL_G_NORM
     * and its running statistics FGL_G_CONV | FGL_G_BNSTAT, as GIN's batch
     * norm; Norm_out's likewise (CONV: rep is the body's output, so methods
     * that share the body and keep the head, or compare representations,
     * treat it as body). FGL_G_NORM is "normalisation affine parameters",
     * layer norm's included: FedBN (keep = norm|bnstat) keeps them local,
     * keep = bnstat shares a layer norm's gain and bias. */
    int residual;
    int norm;            /* FGL_NORM_* */
} fgl_model_spec;

/* Slot indices (into the parameter set) of one layer; -1 where unused. */
typedef struct fgl_layer_slots {
    int w, b, mask;          /* main linear map */
    int w2, b2, mask2;       /* second linear map (GIN MLP, SAGE root, head MLP) */
    int bn_g, bn_b, bn_mean, bn_var;
    int eps;                 /* GIN epsilon */
    int att;                 /* GAT attention vectors, 2 x (heads * head_dim): src, dst */
    int nrm_g, nrm_b, nrm_mean, nrm_var; /* spec.norm on the layer's input (mean, var: batch norm) */
} fgl_layer_slots;

typedef struct fgl_model {
    fgl_model_spec spec;
    fgl_params params;
    fgl_layer_slots in_proj, pe_proj, node_out, head;
    fgl_layer_slots out_norm;  /* spec.norm on rep (its nrm_* slots) */
    /* spec.layers entries each (one allocation, owned): conv[l] is layer l,
     * sconv[l] FedStar's structure layer l. Allocated, not fixed arrays of
     * FGL_MAX_LAYERS: a federated run holds a model per client (10,000 in
     * bench/scale.sh), and the unused slots were 1.5 KB of each. */
    fgl_layer_slots *conv, *sconv;
    int hop_att;         /* GAMLP: the hop scoring vector (in_dim x 1), else -1 */
} fgl_model;

/* The graph a forward pass runs on, with the derived matrices the model's
 * architecture needs (built once per graph or batch by fgl_gnn_graph_*). The
 * struct owns the derived matrices; features and the adjacency are borrowed
 * and must outlive it. */
typedef struct fgl_gnn_graph {
    int n_nodes, n_feat;
    const float *x;            /* dense features, or NULL */
    const fgl_csr *x_sparse;   /* sparse features, or NULL */
    fgl_csr x_sparse_t;        /* its transpose (fast backward), owned */
    const fgl_csr *adj;        /* symmetric, no self loops */
    const fgl_csr *adj_gcn;    /* D^-1/2 (A+I) D^-1/2 (borrowed or own_gcn) */
    fgl_csr own_gcn;
    fgl_csr adj_mean, adj_mean_t;  /* SAGE: D^-1 A and its transpose */
    fgl_csr adj_loop;          /* GAT, GIN, FedStar: A + I */
    int *loop_rows;            /* row of each adj_loop entry (GAT's edge scores) */
    float *x_prop;             /* SGC: A_hat^K X, n_nodes x n_feat */
    float *x_hops;             /* GAMLP: A_hat^k X for k = 0..n_hops-1, one n_nodes x n_feat block each */
    int n_hops;
    const float *pe;           /* FedStar structure embeddings, n_nodes x n_pe */
    int n_pe;
    const int *offsets;        /* graph tasks: nodes of graph b are offsets[b]..offsets[b+1]-1 */
    int n_graphs;
} fgl_gnn_graph;

typedef struct fgl_forward {
    fgl_node *node_emb;    /* n_nodes x width: last message-passing output, before activation */
    fgl_node *graph_emb;   /* n_graphs x width (graph tasks), else NULL */
    fgl_node *rep;         /* what the classifier head reads */
    fgl_node *logits;      /* n_nodes or n_graphs x out_dim */
} fgl_forward;

FGLDEF const char *fgl_arch_name(int arch);
FGLDEF int fgl_arch_from_name(const char *name);   /* -1 if unknown */
/* Defaults of the published protocols: GCN/SAGE/... node models (hidden 128,
 * 2 layers, dropout 0.5, linear head: FED-PUB), GIN graph models (hidden 64,
 * 3 layers, input projection, sum readout, MLP head: GCFL/FedStar), FedStar
 * (hidden 64, 3 layers, pe_dim 32). Link prediction: the node model without a
 * head (GCNII keeps its linear one), out_dim the embedding width that the
 * dot-product decoder scores (src/gnn/link.h). */
FGLDEF fgl_model_spec fgl_model_spec_default(int arch, int task, int in_dim, int out_dim);
/* Checks a spec (enumerations, dimensions in 1..FGL_MAX_DIM, layer and head
 * counts, dropout in [0, 1), ...); FGL_ERR_ARG with the reason. */
FGLDEF int fgl_model_spec_check(const fgl_model_spec *spec, fgl_error *err);
/* Builds the parameter set and initialises it from seed (and allocates the
 * layers' slot tables); fgl_model_free releases both. A model is not copied
 * by assignment: the copy would share, and free, the same memory. */
FGLDEF int fgl_model_init(fgl_model *m, const fgl_model_spec *spec, uint64_t seed, fgl_error *err);
FGLDEF void fgl_model_free(fgl_model *m);
/* Re-draws every parameter from seed (masks to 1, BN statistics reset). */
FGLDEF void fgl_model_reset_params(fgl_model *m, uint64_t seed);

/* Prepare a graph for a model of this spec. */
FGLDEF int fgl_gnn_graph_from_node_data(fgl_gnn_graph *g, fgl_node_data *d, const fgl_model_spec *spec,
                                        fgl_error *err);
FGLDEF int fgl_gnn_graph_from_batch(fgl_gnn_graph *g, fgl_batch *b, const fgl_model_spec *spec, fgl_error *err);
/* General form: any of x / x_sparse; adj_gcn may be NULL (built if needed),
 * else it must be n x n (FGL_ERR_SHAPE otherwise). */
FGLDEF int fgl_gnn_graph_make(fgl_gnn_graph *g, const fgl_csr *adj, const fgl_csr *adj_gcn, const float *x,
                              const fgl_csr *x_sparse, int n_feat, const float *pe, int n_pe, const int *offsets,
                              int n_graphs, const fgl_model_spec *spec, fgl_error *err);
FGLDEF void fgl_gnn_graph_free(fgl_gnn_graph *g);

/* Forward pass on the tape. train != 0 uses dropout (rng) and batch
 * statistics; evaluation uses running statistics and prunes masks. */
FGLDEF int fgl_model_forward(fgl_model *m, fgl_tape *t, const fgl_gnn_graph *g, int train, fgl_rng *rng,
                             fgl_forward *out);
/* The same with the input features a node x on the tape (n_nodes x in_dim)
 * in place of g's constant ones (g supplies the graph; its features are not
 * read), so that the gradient reaches x: FedTAD's generator learns through
 * the models it feeds. Node models whose first layer reads the features
 * (not SGC or GAMLP, which propagate them once beforehand). */
FGLDEF int fgl_model_forward_x(fgl_model *m, fgl_tape *t, const fgl_gnn_graph *g, fgl_node *x, int train,
                               fgl_rng *rng, fgl_forward *out);
/* The model's head (none, linear or MLP: spec.head) applied to rows x of
 * the representation's width (fgl_model_rep_dim), with dropout inside when
 * train (rng): link prediction's MLP decoder reads it on the products of
 * two nodes' representations (src/gnn/link.h). A model without a head
 * returns x. */
FGLDEF fgl_node *fgl_model_head(fgl_model *m, fgl_tape *t, fgl_node *x, int train, fgl_rng *rng);
/* Evaluation helpers (own tape). accuracy over rows with mask[i] != 0 and
 * labels[i] >= 0 (mask NULL: all); returns -1 on error. */
FGLDEF double fgl_model_accuracy(fgl_model *m, fgl_tape *t, const fgl_gnn_graph *g, const int *labels,
                                 const unsigned char *mask, double *loss_out);
/* One evaluation-mode forward pass scored on several masks: acc[i] for
 * masks[i] (and, if correct/count are not NULL, the raw counts). */
FGLDEF int fgl_model_evaluate(fgl_model *m, fgl_tape *t, const fgl_gnn_graph *g, const int *labels,
                              const unsigned char *const *masks, int n_masks, double *acc, int *correct, int *count);
/* Mean over nodes of the node embeddings in evaluation mode (FED-PUB's
 * functional embedding) into out (width floats). */
FGLDEF int fgl_model_mean_embedding(fgl_model *m, fgl_tape *t, const fgl_gnn_graph *g, float *out);
/* Width of node_emb (the last message-passing output; FED-PUB's functional
 * embedding) and of rep (what the classifier reads; prototypes). */
FGLDEF int fgl_model_emb_dim(const fgl_model *m);
FGLDEF int fgl_model_rep_dim(const fgl_model *m);

/* --- src/gnn/link.h --- */
/* ------------------------------------------------------------------------ */
/* Link prediction: edge splits, decoders, loss and metrics                 */
/* ------------------------------------------------------------------------ */

/* A link-prediction task on a graph (a client's subgraph): its undirected
 * edges are split into training, validation and test positives; the model
 * (a node model, the encoder: spec.task FGL_TASK_LINK) passes messages over
 * the training edges only; a decoder scores node pairs; training minimises
 * binary cross-entropy on the training positives against as many negatives
 * (node pairs that are not training edges) drawn afresh every epoch from the
 * client's generator; validation and test score their positives against
 * negatives drawn once from the split's seed; the metrics are AUC and
 * Hits@K (docs/algorithms.md, "Link prediction protocol").
 *
 *       fgl_link_config lo = fgl_link_default();   // 85/5/10, Hits@50
 *       fgl_link_split ls;
 *       if (fgl_link_split_make(&sub, &lo, seed, &ls, &err)) ...   // sub: an fgl_node_data
 *       fgl_client_data cd = {&sub, NULL, fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_LINK, sub.n_feat, 64),
 *                             &ls};
 *       ... fgl_run_init(&run, &cfg, fgl_algo_find("fedavg"), &cd, 1, &err) and rounds as usual:
 *       c->val_acc / c->test_acc hold the AUC, fgl_round_stats.val_hits / test_hits Hits@K ...
 *       fgl_link_split_free(&ls);   // after the run
 *
 * The decoder is the model's head: without one (or with a linear one) the
 * score of (u, v) is the dot product of the model's output rows z_u . z_v
 * (out_dim: the embedding width); an MLP head (out_dim 1) is the MLP
 * decoder, reading rep_u * rep_v (elementwise) of the representation.
 * Features, not labels: a link task never reads y. */

typedef struct fgl_link_config {
    double val, test;   /* fractions of the undirected edges for validation and test (0.05, 0.10) */
    int eval_neg;       /* negatives per validation / test split: max(its positives, eval_neg) (1000; 0: as
                           many as the positives) */
    int hits_k;         /* K of Hits@K (50) */
} fgl_link_config;

typedef struct fgl_link_split {
    int n_nodes, hits_k;
    int n_pos[4], n_neg[4];   /* by FGL_SPLIT_* code (TRAIN, VAL, TEST): positives; negatives (VAL, TEST) */
    int *src[4], *dst[4];     /* the split's pairs: n_pos positives (src < dst), then n_neg negatives */
    fgl_csr adj;              /* the message-passing graph: the training edges, both directions */
    uint64_t sum;             /* a checksum of the split (run fingerprints) */
} fgl_link_split;

FGLDEF fgl_link_config fgl_link_default(void);
/* The name before the naming rule (README, "Names"), kept so that existing programs compile: */
#define fgl_link_options fgl_link_config
#define fgl_link_options_default fgl_link_default
/* The split of d's undirected edges (self loops ignored) from seed: E edges
 * shuffled, floor(val E) validation, floor(test E) test (at least one each
 * when its fraction is > 0 and E >= 3), the rest training; validation and
 * test negatives drawn uniformly, with replacement, among the node pairs
 * u != v that are not edges of d. Fewer than 2 nodes, no training edge left,
 * a graph too dense to find negatives, or bad options: an error, ls zeroed. */
FGLDEF int fgl_link_split_make(const fgl_node_data *d, const fgl_link_config *o, uint64_t seed, fgl_link_split *ls,
                               fgl_error *err);
FGLDEF void fgl_link_split_free(fgl_link_split *ls);
/* n training negatives into src/dst: pairs u != v drawn uniformly from r,
 * redrawn while they are training edges (positives of other splits may be
 * drawn: the client does not know them while it trains). FGL_ERR_ARG if
 * 100 n draws do not find them. */
FGLDEF int fgl_link_sample_negatives(const fgl_link_split *ls, int n, fgl_rng *r, int *src, int *dst);
/* The decoder's scores (logits, n x 1) of pairs (src[i], dst[i]) from a
 * forward pass fw of model m (dropout in the MLP decoder when train). */
FGLDEF fgl_node *fgl_link_scores(fgl_model *m, fgl_tape *t, const fgl_forward *fw, const int *src, const int *dst,
                                 int n, int train, fgl_rng *rng);
/* The training loss: mean binary cross-entropy with logits of the training
 * positives (target 1) and as many fresh negatives from r (target 0). */
FGLDEF fgl_node *fgl_link_loss(const fgl_link_split *ls, fgl_model *m, fgl_tape *t, const fgl_forward *fw,
                               fgl_rng *r);
/* AUC: the probability that a positive scores above a negative, ties
 * counting one half (the Mann-Whitney statistic). NaN when either list is
 * empty or holds a NaN. */
FGLDEF double fgl_link_auc(const float *pos, int n_pos, const float *neg, int n_neg);
/* Hits@K as OGB defines it: the fraction of positives scoring strictly
 * above the K-th highest negative score; 1 when there are fewer than K
 * negatives. NaN when there are no positives, k < 1, or a score is NaN. */
FGLDEF double fgl_link_hits(const float *pos, int n_pos, const float *neg, int n_neg, int k);

/* --- src/gnn/view.h --- */
/* ------------------------------------------------------------------------ */
/* Data views: one way to walk a dataset, node, graph or link task         */
/* ------------------------------------------------------------------------ */

/* A dataset (one graph for node classification, or a set of graphs) with
 * its FGL_SPLIT_* codes, prepared once for models of one spec, seen as
 * batches: a node task's split is one batch (the whole graph, a mask
 * selecting the split's nodes); a graph task's split is batches of graphs.
 * Training, evaluation and prototype extraction walk it the same way for
 * both tasks:
 *       fgl_view_iter it; fgl_view_batch b;
 *       fgl_view_begin(&v, FGL_SPLIT_TRAIN, 128, &it);
 *       while ((rc = fgl_view_next(&it, &b, &err)) > 0) { forward on b.g ... b.labels, b.mask }
 *       fgl_view_end(&it);
 * The view borrows the data (it must outlive the view) and owns what it
 * derives. Graph tasks keep the split's graph ids in an order that
 * fgl_view_shuffle permutes in place (ids[FGL_SPLIT_TRAIN]: save it to
 * resume the same batches). A link task (fgl_view_init_link) is one batch
 * too: the message-passing graph of its edge split (src/gnn/link.h), no
 * labels, count[] its positive pairs. The task supplies its loss
 * (fgl_view_loss) and its metrics (fgl_view_metrics): cross-entropy and
 * accuracy for classification, binary cross-entropy with fresh negatives
 * and AUC, Hits@K for link prediction. */
typedef struct fgl_view {
    int task;
    int count[4];                  /* samples per FGL_SPLIT_* code (labelled ones, node tasks) */
    int *ids[4];                   /* graph tasks: the split's graph ids, in batch order */
    fgl_model_spec spec;           /* what the batches are prepared for */
    int eval_batch;                /* graph tasks: graphs per prepared evaluation batch */
    fgl_node_data *node;           /* node tasks (borrowed) */
    fgl_gnn_graph full;            /* node tasks: the prepared graph */
    unsigned char *mask[4];        /* node tasks: nodes of each split */
    fgl_graph_set *graphs;         /* graph tasks (borrowed) */
    int n_prep[4];                 /* graph tasks: prepared batches of the validation and test splits */
    fgl_batch *prep_b[4];
    fgl_gnn_graph *prep_g[4];
    const fgl_link_split *link;    /* link tasks (borrowed) */
} fgl_view;

/* One batch: run the model on g; rows of the logits are scored against
 * labels where mask (NULL: every row) is set and the label is >= 0. */
typedef struct fgl_view_batch {
    const fgl_gnn_graph *g;
    const int *labels;
    const unsigned char *mask;
    int n;                         /* samples (nodes of the split, or graphs) in the batch */
} fgl_view_batch;

typedef struct fgl_view_iter {
    fgl_view *v;
    int which, batch, pos, prepared;
    fgl_batch b;                   /* graph tasks: the batch being served */
    fgl_gnn_graph g;
} fgl_view_iter;

/* Exactly one of node / graphs; eval_batch <= 0 means 512. */
FGLDEF int fgl_view_init(fgl_view *v, fgl_node_data *node, fgl_graph_set *graphs, const fgl_model_spec *spec,
                         int eval_batch, fgl_error *err);
/* A link task: node's features (node->adj is not read: the model passes
 * messages over link->adj, the training edges), link's pairs. */
FGLDEF int fgl_view_init_link(fgl_view *v, fgl_node_data *node, const fgl_link_split *link, const fgl_model_spec *spec,
                              fgl_error *err);
FGLDEF void fgl_view_free(fgl_view *v);
/* batch_size <= 0: a graph task's split in one batch, except the validation
 * and test splits, which are served in their prepared evaluation batches.
 * Node tasks ignore it. */
FGLDEF void fgl_view_begin(fgl_view *v, int which, int batch_size, fgl_view_iter *it);
/* 1 with the next batch in *out (valid until the next call), 0 when the
 * split is done, or an error code (err says why). */
FGLDEF int fgl_view_next(fgl_view_iter *it, fgl_view_batch *out, fgl_error *err);
FGLDEF void fgl_view_end(fgl_view_iter *it);
/* Graph tasks: a new random order of the split's graphs (node tasks: nothing). */
FGLDEF void fgl_view_shuffle(fgl_view *v, int which, fgl_rng *r);
/* Accuracy of m (evaluation mode) on each split of which[0..n-1] into acc;
 * a node task scores all of them in one forward pass. */
FGLDEF int fgl_view_accuracy(fgl_view *v, fgl_model *m, fgl_tape *t, const int *which, int n, double *acc);
/* The task's training loss on batch b of forward pass fw (training mode):
 * cross-entropy of fw->logits against b's labels where b's mask is set, or
 * for a link task fgl_link_loss (its negatives drawn from r). labels, when
 * not NULL, replace b's (a label-flipping attacker's). NULL on error (t
 * says why). */
FGLDEF fgl_node *fgl_view_loss(fgl_view *v, fgl_model *m, fgl_tape *t, const fgl_forward *fw,
                               const fgl_view_batch *b, const int *labels, fgl_rng *r);
/* The task's metrics of m (evaluation mode) on each split of which[0..n-1]:
 * score[q] the accuracy, or a link task's AUC; extra[q] (may be NULL) NaN,
 * or a link task's Hits@K (K: the split's hits_k). One forward pass for
 * node and link tasks. */
FGLDEF int fgl_view_metrics(fgl_view *v, fgl_model *m, fgl_tape *t, const int *which, int n, double *score,
                            double *extra);
/* fgl_view_metrics with, for node and graph tasks, the macro-F1 and the
 * two-class ROC-AUC of each split beside (fgl_class_metrics: f1[q], auc[q];
 * either may be NULL; link tasks: NaN). The accuracies are those
 * fgl_view_metrics gives, bit for bit, from the same forward passes. */
FGLDEF int fgl_view_class_metrics(fgl_view *v, fgl_model *m, fgl_tape *t, const int *which, int n, double *score,
                                  double *extra, double *f1, double *auc);
/* Classification metrics of class scores sc (n rows of C, row-major:
 * logits, or any scores increasing with the class's likelihood) against
 * labels y, on the rows where mask (NULL: every row) is set and 0 <= y[i]
 * < C. A row's prediction is its highest score (the first on ties, as the
 * accuracy's).
 *   f1 (may be NULL): the macro-F1, the mean over the classes present in
 *     those rows (support > 0) of the class's F1 = 2 TP / (2 TP + FP + FN)
 *     (0 for a present class never predicted right). A class absent from
 *     the rows is left out of the mean even when it is predicted: its false
 *     positives count as the other classes' false negatives (so this is
 *     scikit-learn's f1_score(average='macro', labels=<the present classes>),
 *     not its default over the union of true and predicted labels). NaN
 *     when no row counts.
 *   auc (may be NULL): C == 2 only, the ROC-AUC of the positive class (1)
 *     scored by sc[i][1] - sc[i][0] (a float; any monotone transform of it,
 *     softmax's p1 included, ranks alike up to its rounding): the
 *     Mann-Whitney statistic, the probability that a positive row scores
 *     above a negative one, ties counting one half (the midrank definition;
 *     fgl_link_auc). NaN when C != 2, when the rows hold one class only (or
 *     none), or when a counted score is NaN.
 * FGL_OK, or FGL_ERR_NOMEM (both NaN then). */
FGLDEF int fgl_class_metrics(const float *sc, int n, int C, const int *y, const unsigned char *mask, double *f1,
                             double *auc);

/* --- src/gnn/save.h --- */
/* Save / load spec + parameters (framed, versioned, checksummed). Loading
 * replaces m only on success; m must be zeroed or hold a model. The stored
 * spec is validated, and the size of the parameter set it implies compared
 * with the bytes that follow, before anything is built: a forged file
 * (the checksum is no defence) is FGL_ERR_FORMAT, never a large
 * allocation. */
FGLDEF int fgl_model_save(const fgl_model *m, const char *path, fgl_error *err);
FGLDEF int fgl_model_load(fgl_model *m, const char *path, fgl_error *err);
FGLDEF void fgl_model_write(const fgl_model *m, fgl_bytes *b);
FGLDEF int fgl_model_read(fgl_model *m, fgl_reader *r, fgl_error *err);

/* --- src/gnn/gae.h --- */
/* ------------------------------------------------------------------------ */
/* A dense graph auto-encoder (GPFL's server model)                         */
/* ------------------------------------------------------------------------ */

/* GPFL's server model (docs/algorithms.md, GPFL): a dense 2-layer graph
 * auto-encoder over k clients with features X (k x in_dim) and a weighted
 * client network A (k x k, used as given: GPFL passes its row-normalised
 * network; fgl_dense_gcn_norm gives the GCN normalisation instead),
 *     H = ReLU(LayerNorm(A X W1 + b1))   (width hidden, GPFL 128)
 *     Z = A H W2 + b2                    (width out_dim, GPFL 32)
 *     S = Z Z^T                          (k x k edge logits),
 * LayerNorm with eps 1e-5 and a learned scale and shift. Weights and biases
 * are drawn U(+-1/sqrt(width of their output)), the LayerNorm scale 1 and
 * shift 0, as the authors' code initialises them. */
typedef struct fgl_gae {
    int in_dim, hidden, out_dim;
    fgl_params params;
    int w1, b1, ln_g, ln_b, w2, b2;
} fgl_gae;
FGLDEF int fgl_gae_init(fgl_gae *g, int in_dim, int hidden, int out_dim, uint64_t seed);
/* Re-draw the weights and biases from seed; the LayerNorm scale and shift
 * back to 1 and 0 too when norm != 0 (GPFL starts from a new model every
 * round). */
FGLDEF void fgl_gae_reset(fgl_gae *g, uint64_t seed, int norm);
FGLDEF void fgl_gae_free(fgl_gae *g);
/* a: k x k client network; x: k x in_dim. Returns Z and sets *logits to
 * S = Z Z^T (both NULL on error, see t->err.msg). */
FGLDEF fgl_node *fgl_gae_forward(fgl_gae *g, fgl_tape *t, const float *a, const float *x, int k,
                                 fgl_node **logits);
/* GPFL's unsupervised loss (Ying et al.'s regulariser) on P = sigmoid(S):
 *     mean_ij H(P_ij) + size_weight mean_ij -log(1 + 1e-6 - P_ij),
 * H(p) = -p log(p + 1e-6) - (1 - p) log(1 - p + 1e-6): certain edges, and
 * few of them. A 1 x 1 node. */
FGLDEF fgl_node *fgl_gae_loss(fgl_tape *t, fgl_node *logits, float size_weight);
/* `steps` full-batch steps of optimizer o (over g->params) on fgl_gae_loss;
 * then S (k x k, may be NULL) receives the trained model's logits and
 * *loss (may be NULL) the last step's loss. t is reset as needed. */
FGLDEF int fgl_gae_fit(fgl_gae *g, fgl_optim *o, fgl_tape *t, const float *a, const float *x, int k, int steps,
                       float size_weight, float *S, double *loss);
/* Dense D^-1/2 (A + I) D^-1/2 of a k x k weight matrix into out. */
FGLDEF void fgl_dense_gcn_norm(const float *a, int k, float *out);

#ifdef __cplusplus
}
#endif
#endif /* FGL_GNN_H */

#if (defined(FGL_IMPLEMENTATION) || defined(FGL_TEST_PRIVATE)) && !defined(FGL_GNN_H_PRIVATE)
#define FGL_GNN_H_PRIVATE /* private declarations: see fgl.h's */
#ifdef __cplusplus
extern "C" {
#endif

/* --- src/gnn/link.h --- */
/* ls->sum: FNV-1a over the split's pairs, with K of Hits@K (fgl_link_split_make's, and the check of a
 * split that arrived over MPI). */
FGL__PRIVATE uint64_t fgl__link_sum(const fgl_link_split *ls);

/* --- src/gnn/save.h --- */
#define FGL__MODEL_VERSION 4u /* 2: parameter values in grouped memory order; 3: + norm_rep; 4: + residual, norm
                                 (after the floats; 2 and 3 still read) */

#ifdef __cplusplus
}
#endif
#endif /* FGL_GNN_H_PRIVATE */

/* ======================================================================== */
/*                              IMPLEMENTATION                              */
/* ======================================================================== */
#if defined(FGL_IMPLEMENTATION) && !defined(FGL_GNN_H_IMPLEMENTED)
#define FGL_GNN_H_IMPLEMENTED

#include <math.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- src/gnn/model.h --- */
static const char *fgl__arch_names[FGL_ARCH_COUNT] = {"gcn", "gin", "sage",    "sgc",  "gcnii",
                                                      "gat", "mlp", "fedstar", "gamlp"};

FGLDEF const char *fgl_arch_name(int arch) {
    return arch >= 0 && arch < FGL_ARCH_COUNT ? fgl__arch_names[arch] : "unknown";
}

FGLDEF int fgl_arch_from_name(const char *name) {
    int i;
    for (i = 0; i < FGL_ARCH_COUNT; i++)
        if (strcmp(name, fgl__arch_names[i]) == 0) return i;
    return -1;
}

FGLDEF fgl_model_spec fgl_model_spec_default(int arch, int task, int in_dim, int out_dim) {
    fgl_model_spec s;
    memset(&s, 0, sizeof s);
    s.arch = arch;
    s.task = task;
    s.in_dim = in_dim;
    s.out_dim = out_dim;
    s.hidden = task == FGL_TASK_GRAPH ? 64 : 128;
    s.layers = task == FGL_TASK_GRAPH ? 3 : 2;
    s.dropout = 0.5f;
    s.readout = FGL_READOUT_SUM;
    s.head = task == FGL_TASK_GRAPH ? FGL_HEAD_MLP : FGL_HEAD_LINEAR;
    s.input_proj = arch == FGL_ARCH_GIN && task == FGL_TASK_GRAPH;
    s.heads = 8;
    s.gcnii_alpha = 0.1f;
    s.gcnii_lambda = 0.5f;
    s.sgc_hops = 2;
    s.mask_prune = 1e-3f;
    s.bn_momentum = 0.1f;
    s.bn_eps = 1e-5f;
    if (arch == FGL_ARCH_GCNII) s.layers = 8;
    if (task == FGL_TASK_LINK && arch != FGL_ARCH_GCNII) s.head = FGL_HEAD_NONE; /* out_dim: the embedding width */
    if (arch == FGL_ARCH_GAMLP) s.sgc_hops = 3;
    if (arch == FGL_ARCH_FEDSTAR) {
        s.task = FGL_TASK_GRAPH;
        s.hidden = 64;
        s.layers = 3;
        s.pe_dim = 32;
        s.head = FGL_HEAD_MLP;
    }
    return s;
}

FGLDEF int fgl_model_spec_check(const fgl_model_spec *s, fgl_error *err) {
    if (s->arch < 0 || s->arch >= FGL_ARCH_COUNT)
        return fgl_error_set(err, FGL_ERR_ARG, "model: unknown architecture %d", s->arch);
    if (s->task != FGL_TASK_NODE && s->task != FGL_TASK_GRAPH && s->task != FGL_TASK_LINK)
        return fgl_error_set(err, FGL_ERR_ARG, "model: unknown task %d", s->task);
    if (s->task == FGL_TASK_LINK && s->head == FGL_HEAD_MLP && s->out_dim != 1)
        return fgl_error_set(err, FGL_ERR_ARG,
                             "model: link prediction with an MLP head (the MLP decoder) scores a pair with one output, "
                             "not out_dim %d", s->out_dim);
    if (s->in_dim <= 0 || s->out_dim <= 0 || s->hidden <= 0)
        return fgl_error_set(err, FGL_ERR_ARG, "model: in_dim %d, hidden %d, out_dim %d must be positive", s->in_dim,
                             s->hidden, s->out_dim);
    if (s->in_dim > FGL_MAX_DIM || s->out_dim > FGL_MAX_DIM || s->hidden > FGL_MAX_DIM || s->pe_dim < 0 ||
        s->pe_dim > FGL_MAX_DIM)
        return fgl_error_set(err, FGL_ERR_ARG, "model: in_dim %d, hidden %d, out_dim %d, pe_dim %d: each at most %d",
                             s->in_dim, s->hidden, s->out_dim, s->pe_dim, FGL_MAX_DIM);
    if (s->layers < 1 || s->layers > FGL_MAX_LAYERS)
        return fgl_error_set(err, FGL_ERR_ARG, "model: %d layers, allowed 1..%d", s->layers, FGL_MAX_LAYERS);
    if (!(s->dropout >= 0 && s->dropout < 1) || !(s->input_dropout >= 0 && s->input_dropout < 1))
        return fgl_error_set(err, FGL_ERR_ARG, "model: dropout must be in [0, 1)");
    if (s->head < FGL_HEAD_NONE || s->head > FGL_HEAD_MLP)
        return fgl_error_set(err, FGL_ERR_ARG, "model: unknown head %d", s->head);
    if (s->task == FGL_TASK_GRAPH && s->head == FGL_HEAD_NONE)
        return fgl_error_set(err, FGL_ERR_ARG, "model: graph tasks need a classifier head after the readout");
    if (s->task == FGL_TASK_GRAPH && (s->readout < FGL_READOUT_SUM || s->readout > FGL_READOUT_MAX))
        return fgl_error_set(err, FGL_ERR_ARG, "model: unknown readout %d", s->readout);
    if (s->arch == FGL_ARCH_GAT && (s->heads < 1 || s->heads > FGL_MAX_HEADS || s->hidden % s->heads != 0))
        return fgl_error_set(err, FGL_ERR_ARG, "model: GAT hidden %d must be a multiple of heads %d", s->hidden,
                             s->heads);
    if (s->arch == FGL_ARCH_SGC && (s->sgc_hops < 0 || s->sgc_hops > FGL_MAX_SGC_HOPS))
        return fgl_error_set(err, FGL_ERR_ARG, "model: SGC hops %d, allowed 0..%d", s->sgc_hops, FGL_MAX_SGC_HOPS);
    if (s->arch == FGL_ARCH_GAMLP && (s->sgc_hops < 0 || s->sgc_hops > 64))
        return fgl_error_set(err, FGL_ERR_ARG, "model: GAMLP needs 0..64 propagation steps, not %d", s->sgc_hops);
    if (s->arch == FGL_ARCH_FEDSTAR && (s->task != FGL_TASK_GRAPH || s->pe_dim <= 0))
        return fgl_error_set(err, FGL_ERR_ARG, "model: FedStar is a graph model with pe_dim > 0");
    if (s->arch == FGL_ARCH_GCNII && s->head == FGL_HEAD_NONE)
        return fgl_error_set(err, FGL_ERR_ARG, "model: GCNII needs an output head");
    if ((s->residual != 0 && s->residual != 1) || s->norm < FGL_NORM_NONE || s->norm > FGL_NORM_BATCH)
        return fgl_error_set(err, FGL_ERR_ARG, "model: residual %d (0 or 1), norm %d (FGL_NORM_*)", s->residual,
                             s->norm);
    if ((s->residual || s->norm) &&
        (s->task == FGL_TASK_GRAPH || !(s->arch == FGL_ARCH_GCN || s->arch == FGL_ARCH_GIN || s->arch == FGL_ARCH_SAGE ||
                                        s->arch == FGL_ARCH_GAT || s->arch == FGL_ARCH_MLP)))
        return fgl_error_set(err, FGL_ERR_ARG,
                             "model: residual blocks and normalisation are options of the node models gcn, gin, sage, "
                             "gat and mlp, not of %s (%s task)", fgl_arch_name(s->arch),
                             s->task == FGL_TASK_GRAPH ? "graph" : s->task == FGL_TASK_LINK ? "link" : "node");
    if (s->residual && s->head == FGL_HEAD_NONE)
        return fgl_error_set(err, FGL_ERR_ARG, "model: residual blocks keep the hidden width: they need a head");
    return FGL_OK;
}

/* --- building the parameter set ------------------------------------------- */

static void fgl__slots_clear(fgl_layer_slots *s) {
    s->w = s->b = s->mask = s->w2 = s->b2 = s->mask2 = -1;
    s->bn_g = s->bn_b = s->bn_mean = s->bn_var = s->eps = s->att = -1;
    s->nrm_g = s->nrm_b = s->nrm_mean = s->nrm_var = -1;
}

/* Weight init kinds: Glorot for GCN/GAT weights (as PyG), fan-in uniform for
 * Linear layers (as PyTorch: U(+-1/sqrt(fan_in)) for weight and bias). */
enum { FGL__INIT_GLOROT, FGL__INIT_FAN_IN };

/* Builds a model's parameter set, or with count_only just counts what it
 * would hold (slices, floats, and the bytes fgl_params_write would give
 * them), allocating nothing: fgl_model_read checks a file's spec that way. */
typedef struct fgl__builder {
    fgl_model *m;
    int rc;
    int count_only, n_slices;
    uint64_t n_floats, n_header_bytes;
} fgl__builder;

static int fgl__add(fgl__builder *bd, const char *name, int rows, int cols, unsigned groups, int trainable) {
    int i;
    if (bd->rc) return -1;
    if (bd->count_only) { /* the slice header: name (u32 length + bytes), rows, cols, groups, trainable */
        bd->n_floats += (uint64_t)(rows > 0 ? rows : 0) * (uint64_t)(cols > 0 ? cols : 0);
        bd->n_header_bytes += 4 + strlen(name) + 16;
        return bd->n_slices++;
    }
    i = fgl_params_add(&bd->m->params, name, rows, cols, groups, trainable);
    if (i < 0) bd->rc = i;
    return i;
}

/* A linear map in -> out: weight (in x out), optional bias, and a mask when
 * the model is masked and the weight is maskable. */
/* Names are composed in a roomy buffer; fgl_params_add rejects any longer
 * than FGL_SLICE_NAME_LEN - 1. */
#define FGL__NAME_BUF 128

static void fgl__add_linear(fgl__builder *bd, const char *prefix, int in, int out, unsigned group, int bias,
                            int *w, int *b, int *mask) {
    char name[FGL__NAME_BUF];
    snprintf(name, sizeof name, "%s.w", prefix);
    *w = fgl__add(bd, name, in, out, group, 1);
    *b = -1;
    if (bias) {
        snprintf(name, sizeof name, "%s.b", prefix);
        *b = fgl__add(bd, name, 1, out, group, 1);
    }
    *mask = -1;
    if (bd->m->spec.masked) {
        snprintf(name, sizeof name, "%s.mask", prefix);
        *mask = fgl__add(bd, name, in, out, FGL_G_MASK, 1);
    }
}

static void fgl__add_bn(fgl__builder *bd, const char *prefix, int width, unsigned group, fgl_layer_slots *s) {
    char name[FGL__NAME_BUF];
    snprintf(name, sizeof name, "%s.bn_g", prefix);
    s->bn_g = fgl__add(bd, name, 1, width, group | FGL_G_NORM, 1);
    snprintf(name, sizeof name, "%s.bn_b", prefix);
    s->bn_b = fgl__add(bd, name, 1, width, group | FGL_G_NORM, 1);
    snprintf(name, sizeof name, "%s.bn_mean", prefix);
    s->bn_mean = fgl__add(bd, name, 1, width, group | FGL_G_BNSTAT, 0);
    snprintf(name, sizeof name, "%s.bn_var", prefix);
    s->bn_var = fgl__add(bd, name, 1, width, group | FGL_G_BNSTAT, 0);
}

/* spec.norm's parameters, prefix.g and prefix.b (FGL_G_NORM), and for
 * batch norm prefix.mean and prefix.var (FGL_G_BNSTAT, not trained). */
static void fgl__add_norm(fgl__builder *bd, const char *prefix, int width, unsigned group, fgl_layer_slots *s) {
    char name[FGL__NAME_BUF];
    snprintf(name, sizeof name, "%s.g", prefix);
    s->nrm_g = fgl__add(bd, name, 1, width, group | FGL_G_NORM, 1);
    snprintf(name, sizeof name, "%s.b", prefix);
    s->nrm_b = fgl__add(bd, name, 1, width, group | FGL_G_NORM, 1);
    if (bd->m->spec.norm != FGL_NORM_BATCH) return;
    snprintf(name, sizeof name, "%s.mean", prefix);
    s->nrm_mean = fgl__add(bd, name, 1, width, group | FGL_G_BNSTAT, 0);
    snprintf(name, sizeof name, "%s.var", prefix);
    s->nrm_var = fgl__add(bd, name, 1, width, group | FGL_G_BNSTAT, 0);
}

static void fgl__add_head(fgl__builder *bd, int in, fgl_layer_slots *h) {
    const fgl_model_spec *s = &bd->m->spec;
    if (s->head == FGL_HEAD_LINEAR) {
        fgl__add_linear(bd, "head", in, s->out_dim, FGL_G_HEAD, 1, &h->w, &h->b, &h->mask);
    } else if (s->head == FGL_HEAD_MLP) {
        fgl__add_linear(bd, "head1", in, s->hidden, FGL_G_HEAD, 1, &h->w, &h->b, &h->mask);
        fgl__add_linear(bd, "head2", s->hidden, s->out_dim, FGL_G_HEAD, 1, &h->w2, &h->b2, &h->mask2);
    }
}

static void fgl__build_layout(fgl__builder *bd) {
    fgl_model *m = bd->m;
    const fgl_model_spec *s = &m->spec;
    int l, H = s->hidden, C = s->out_dim, in = s->in_dim;
    char p[FGL_SLICE_NAME_LEN];  /* "conv15" at most */
    int last_emits_classes = s->head == FGL_HEAD_NONE && s->task != FGL_TASK_GRAPH;
    int proj = s->input_proj || s->arch == FGL_ARCH_GCNII || s->residual; /* in_proj: the layers read width H */

    if (s->arch == FGL_ARCH_FEDSTAR) {
        fgl__add_linear(bd, "feat_in", in, H, FGL_G_FEATURE, 1, &m->in_proj.w, &m->in_proj.b, &m->in_proj.mask);
        fgl__add_linear(bd, "struct_in", s->pe_dim, H, FGL_G_STRUCT, 1, &m->pe_proj.w, &m->pe_proj.b, &m->pe_proj.mask);
        for (l = 0; l < s->layers; l++) {
            fgl_layer_slots *c = &m->conv[l], *sc = &m->sconv[l];
            snprintf(p, sizeof p, "gin%d.lin1", l);
            fgl__add_linear(bd, p, 2 * H, H, FGL_G_FEATURE, 1, &c->w, &c->b, &c->mask);
            snprintf(p, sizeof p, "gin%d.lin2", l);
            fgl__add_linear(bd, p, H, H, FGL_G_FEATURE, 1, &c->w2, &c->b2, &c->mask2);
            snprintf(p, sizeof p, "gcn%d", l);
            fgl__add_linear(bd, p, H, H, FGL_G_STRUCT, 1, &sc->w, &sc->b, &sc->mask);
        }
        fgl__add_linear(bd, "readout", 2 * H, H, FGL_G_HEAD, 1, &m->node_out.w, &m->node_out.b, &m->node_out.mask);
        fgl__add_head(bd, H, &m->head);
        return;
    }
    if (s->arch == FGL_ARCH_GAMLP) m->hop_att = fgl__add(bd, "hop_att", in, 1, FGL_G_FEATURE, 1);
    if (proj) {
        fgl__add_linear(bd, "in_proj", in, H, FGL_G_FEATURE, 1, &m->in_proj.w, &m->in_proj.b, &m->in_proj.mask);
        in = H;
    }
    for (l = 0; l < s->layers; l++) {
        fgl_layer_slots *c = &m->conv[l];
        int out = (l == s->layers - 1 && last_emits_classes) ? C : H;
        snprintf(p, sizeof p, "conv%d", l);
        if (s->norm && (l > 0 || proj)) { /* the layer reads a hidden representation */
            char q[FGL__NAME_BUF];
            snprintf(q, sizeof q, "conv%d.norm", l);
            fgl__add_norm(bd, q, H, FGL_G_CONV, c);
        }
        switch (s->arch) {
        case FGL_ARCH_GCN:
        case FGL_ARCH_SGC:
        case FGL_ARCH_MLP:
        case FGL_ARCH_GAMLP:
            fgl__add_linear(bd, p, in, out, FGL_G_CONV, 1, &c->w, &c->b, &c->mask);
            break;
        case FGL_ARCH_GIN: {
            char q[FGL_SLICE_NAME_LEN];
            snprintf(q, sizeof q, "conv%d.lin1", l);
            fgl__add_linear(bd, q, in, H, FGL_G_CONV, 1, &c->w, &c->b, &c->mask);
            if (s->batch_norm) fgl__add_bn(bd, p, H, FGL_G_CONV, c);
            snprintf(q, sizeof q, "conv%d.lin2", l);
            fgl__add_linear(bd, q, H, out, FGL_G_CONV, 1, &c->w2, &c->b2, &c->mask2);
            snprintf(q, sizeof q, "conv%d.eps", l);
            c->eps = fgl__add(bd, q, 1, 1, FGL_G_CONV, s->learn_eps);
            break;
        }
        case FGL_ARCH_SAGE: {
            char q[FGL_SLICE_NAME_LEN];
            snprintf(q, sizeof q, "conv%d.neigh", l);
            fgl__add_linear(bd, q, in, out, FGL_G_CONV, 1, &c->w, &c->b, &c->mask);
            snprintf(q, sizeof q, "conv%d.root", l);
            fgl__add_linear(bd, q, in, out, FGL_G_CONV, 0, &c->w2, &c->b2, &c->mask2);
            break;
        }
        case FGL_ARCH_GCNII:
            fgl__add_linear(bd, p, H, H, FGL_G_CONV, 0, &c->w, &c->b, &c->mask);
            break;
        case FGL_ARCH_GAT: { /* att row 0: source vectors of all heads, row 1: destination */
            char q[FGL_SLICE_NAME_LEN];
            fgl__add_linear(bd, p, in, out, FGL_G_CONV, 1, &c->w, &c->b, &c->mask);
            snprintf(q, sizeof q, "conv%d.att", l);
            c->att = fgl__add(bd, q, 2, out, FGL_G_CONV, 1);
            break;
        }
        default: break;
        }
        in = out;
    }
    if (s->norm && !last_emits_classes) fgl__add_norm(bd, "out_norm", in, FGL_G_CONV, &m->out_norm);
    fgl__add_head(bd, in, &m->head);
}

static void fgl__init_linear(fgl_model *m, int w, int b, int mask, int kind, fgl_rng *r) {
    fgl_params *ps = &m->params;
    if (w >= 0) {
        int fan_in = ps->slices[w].rows;
        if (kind == FGL__INIT_GLOROT) fgl_params_glorot(ps, w, r);
        else fgl_params_fan_in_uniform(ps, w, fan_in, r);
        if (b >= 0) {
            if (kind == FGL__INIT_GLOROT) fgl_params_fill(ps, b, 0.0f);
            else fgl_params_fan_in_uniform(ps, b, fan_in, r);
        }
    }
    if (mask >= 0) fgl_params_fill(ps, mask, 1.0f);
}

static void fgl__init_slots(fgl_model *m, fgl_layer_slots *s, int kind, fgl_rng *r) {
    fgl__init_linear(m, s->w, s->b, s->mask, kind, r);
    fgl__init_linear(m, s->w2, s->b2, s->mask2, FGL__INIT_FAN_IN, r);
    if (s->bn_g >= 0) {
        fgl_params_fill(&m->params, s->bn_g, 1.0f);
        fgl_params_fill(&m->params, s->bn_b, 0.0f);
        fgl_params_fill(&m->params, s->bn_mean, 0.0f);
        fgl_params_fill(&m->params, s->bn_var, 1.0f);
    }
    if (s->nrm_g >= 0) { /* no draws: the other parameters' values do not depend on spec.norm */
        fgl_params_fill(&m->params, s->nrm_g, 1.0f);
        fgl_params_fill(&m->params, s->nrm_b, 0.0f);
    }
    if (s->nrm_mean >= 0) {
        fgl_params_fill(&m->params, s->nrm_mean, 0.0f);
        fgl_params_fill(&m->params, s->nrm_var, 1.0f);
    }
    if (s->eps >= 0) fgl_params_fill(&m->params, s->eps, 0.0f);
    if (s->att >= 0) fgl_params_glorot(&m->params, s->att, r);
}

FGLDEF void fgl_model_reset_params(fgl_model *m, uint64_t seed) {
    fgl_rng r;
    int l, conv_kind;
    const fgl_model_spec *s = &m->spec;
    fgl_rng_init(&r, seed, 0x6d6f64656cull); /* "model" */
    conv_kind = (s->arch == FGL_ARCH_GCN || s->arch == FGL_ARCH_GAT || s->arch == FGL_ARCH_GCNII)
                    ? FGL__INIT_GLOROT : FGL__INIT_FAN_IN;
    fgl__init_slots(m, &m->in_proj, FGL__INIT_FAN_IN, &r);
    fgl__init_slots(m, &m->pe_proj, FGL__INIT_FAN_IN, &r);
    for (l = 0; l < s->layers; l++) {
        fgl__init_slots(m, &m->conv[l], conv_kind, &r);
        fgl__init_slots(m, &m->sconv[l], FGL__INIT_GLOROT, &r);
    }
    fgl__init_slots(m, &m->node_out, FGL__INIT_FAN_IN, &r);
    fgl__init_slots(m, &m->head, FGL__INIT_FAN_IN, &r);
    fgl__init_slots(m, &m->out_norm, FGL__INIT_FAN_IN, &r); /* fills only */
    if (m->hop_att >= 0)
        fgl_params_fan_in_uniform(&m->params, m->hop_att, s->in_dim, &r); /* last: other models' draws unchanged */
}

FGLDEF int fgl_model_init(fgl_model *m, const fgl_model_spec *spec, uint64_t seed, fgl_error *err) {
    fgl__builder bd;
    int rc, l;
    memset(m, 0, sizeof *m);
    rc = fgl_model_spec_check(spec, err);
    if (rc) return rc;
    m->spec = *spec;
    fgl_params_init(&m->params);
    fgl__slots_clear(&m->in_proj);
    fgl__slots_clear(&m->pe_proj);
    fgl__slots_clear(&m->node_out);
    fgl__slots_clear(&m->head);
    fgl__slots_clear(&m->out_norm);
    m->hop_att = -1;
    m->conv = (fgl_layer_slots *)FGL_MALLOC(sizeof(fgl_layer_slots) * 2 * (size_t)spec->layers);
    if (!m->conv) return fgl_error_set(err, FGL_ERR_NOMEM, "model: out of memory for %d layers", spec->layers);
    m->sconv = m->conv + spec->layers;
    for (l = 0; l < 2 * spec->layers; l++) fgl__slots_clear(&m->conv[l]);
    memset(&bd, 0, sizeof bd);
    bd.m = m;
    bd.rc = FGL_OK;
    fgl__build_layout(&bd);
    if (bd.rc) {
        fgl_model_free(m);
        return fgl_error_set(err, bd.rc, "model: cannot build the parameter set (%s)", fgl_result_name(bd.rc));
    }
    fgl_model_reset_params(m, seed);
    return FGL_OK;
}

FGLDEF void fgl_model_free(fgl_model *m) {
    fgl_params_free(&m->params);
    FGL_FREE(m->conv);
    m->conv = m->sconv = NULL;
}

FGLDEF int fgl_model_emb_dim(const fgl_model *m) {
    const fgl_model_spec *s = &m->spec;
    if (s->head == FGL_HEAD_NONE && s->task != FGL_TASK_GRAPH) return s->out_dim;
    return s->hidden;
}

FGLDEF int fgl_model_rep_dim(const fgl_model *m) {
    const fgl_model_spec *s = &m->spec;
    /* Without a head the last layer emits the classes and rep is its input:
     * the previous layer's activation, or the raw features of a 1-layer model. */
    if (s->head == FGL_HEAD_NONE && s->task != FGL_TASK_GRAPH)
        return s->layers > 1 || s->input_proj || s->arch == FGL_ARCH_GCNII ? s->hidden : s->in_dim;
    return s->hidden;
}

/* --- src/gnn/layers.h --- */
/* --- derived graph matrices -------------------------------------------------- */

/* D^-1 A (rows sum to 1; isolated nodes keep an empty row). */
static int fgl__mean_adj(const fgl_csr *a, fgl_csr *out) {
    int i, k, rc = fgl_csr_clone(out, a);
    if (rc) return rc;
    if (!out->values) {
        out->values = (float *)FGL_MALLOC(sizeof(float) * (size_t)FGL__MAX(a->nnz, 1));
        if (!out->values) {
            fgl_csr_free(out);
            return FGL_ERR_NOMEM;
        }
        for (k = 0; k < a->nnz; k++) out->values[k] = 1.0f;
    }
    for (i = 0; i < a->rows; i++) {
        double s = 0;
        for (k = a->indptr[i]; k < a->indptr[i + 1]; k++) s += out->values[k];
        if (s > 0)
            for (k = a->indptr[i]; k < a->indptr[i + 1]; k++) out->values[k] = (float)(out->values[k] / s);
    }
    return FGL_OK;
}

/* A + I with sorted columns, and the row index of every entry: each row's
 * length first, then (their prefix sums known) the rows themselves, in
 * parallel for a large matrix outside another parallel region (a batch of
 * PROTEINS graphs is built on one thread once per step otherwise). */
static int fgl__loop_adj(const fgl_csr *a, fgl_csr *out, int **rows_out) {
    int i, rc = fgl_csr_init(out, a->rows, a->cols, a->nnz + a->rows, 0), par;
    int *rows;
    if (rc) return rc;
    rows = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(out->nnz, 1));
    if (!rows) {
        fgl_csr_free(out);
        return FGL_ERR_NOMEM;
    }
    par = fgl__threads_entries((size_t)a->nnz + (size_t)a->rows); /* fgl_graph.h's threads for a batch */
    (void)par; /* read by the OpenMP pragmas only */
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(par)
#endif
    for (i = 0; i < a->rows; i++) { /* row i's length: its entries but an existing self loop, and the one we add */
        int k, len = 1;
        for (k = a->indptr[i]; k < a->indptr[i + 1]; k++) len += a->indices[k] != i;
        out->indptr[i + 1] = len;
    }
    out->indptr[0] = 0;
    for (i = 0; i < a->rows; i++) out->indptr[i + 1] += out->indptr[i];
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(par)
#endif
    for (i = 0; i < a->rows; i++) {
        int k, w = out->indptr[i], placed = 0;
        for (k = a->indptr[i]; k < a->indptr[i + 1]; k++) {
            int c = a->indices[k];
            if (c == i) continue; /* an existing self loop is replaced by the one we add */
            if (!placed && c > i) {
                rows[w] = i;
                out->indices[w++] = i;
                placed = 1;
            }
            rows[w] = i;
            out->indices[w++] = c;
        }
        if (!placed) {
            rows[w] = i;
            out->indices[w++] = i;
        }
    }
    out->nnz = out->indptr[a->rows];
    *rows_out = rows;
    return FGL_OK;
}

FGLDEF void fgl_gnn_graph_free(fgl_gnn_graph *g) {
    fgl_csr_free(&g->x_sparse_t);
    fgl_csr_free(&g->own_gcn);
    fgl_csr_free(&g->adj_mean);
    fgl_csr_free(&g->adj_mean_t);
    fgl_csr_free(&g->adj_loop);
    FGL_FREE(g->loop_rows);
    FGL_FREE(g->x_prop);
    FGL_FREE(g->x_hops);
    memset(g, 0, sizeof *g);
}

/* Whether the architecture aggregates with D^-1/2 (A + I) D^-1/2. */
static int fgl__arch_reads_gcn(int arch) {
    return arch == FGL_ARCH_GCN || arch == FGL_ARCH_SGC || arch == FGL_ARCH_GCNII || arch == FGL_ARCH_FEDSTAR ||
           arch == FGL_ARCH_GAMLP;
}

FGLDEF int fgl_gnn_graph_make(fgl_gnn_graph *g, const fgl_csr *adj, const fgl_csr *adj_gcn, const float *x,
                              const fgl_csr *x_sparse, int n_feat, const float *pe, int n_pe, const int *offsets,
                              int n_graphs, const fgl_model_spec *spec, fgl_error *err) {
    int arch = spec->arch, rc = FGL_OK, n;
    memset(g, 0, sizeof *g);
    if (!adj || adj->rows != adj->cols)
        return fgl_error_set(err, FGL_ERR_ARG, "gnn graph: adjacency missing or not square");
    n = adj->rows;
    if ((x == NULL) == (x_sparse == NULL))
        return fgl_error_set(err, FGL_ERR_ARG, "gnn graph: give exactly one of dense or sparse features");
    if (adj_gcn && (adj_gcn->rows != n || adj_gcn->cols != n))
        return fgl_error_set(err, FGL_ERR_SHAPE, "gnn graph: %dx%d GCN matrix for %d nodes (fgl_batch_gcn and "
                             "fgl_node_data_gcn build it)", adj_gcn->rows, adj_gcn->cols, n);
    if (x_sparse && (x_sparse->rows != n || x_sparse->cols != n_feat))
        return fgl_error_set(err, FGL_ERR_SHAPE, "gnn graph: sparse features %dx%d for %d nodes, %d features",
                             x_sparse->rows, x_sparse->cols, n, n_feat);
    if (n_feat != spec->in_dim)
        return fgl_error_set(err, FGL_ERR_SHAPE, "gnn graph: %d features but the model expects %d", n_feat,
                             spec->in_dim);
    if (arch == FGL_ARCH_FEDSTAR && (!pe || n_pe != spec->pe_dim))
        return fgl_error_set(err, FGL_ERR_SHAPE, "gnn graph: FedStar needs %d-wide structure embeddings, got %d",
                             spec->pe_dim, pe ? n_pe : 0);
    if (spec->task == FGL_TASK_GRAPH && (!offsets || n_graphs <= 0))
        return fgl_error_set(err, FGL_ERR_ARG, "gnn graph: a graph task needs graph offsets");
    g->n_nodes = n;
    g->n_feat = n_feat;
    g->x = x;
    g->x_sparse = x_sparse;
    g->adj = adj;
    g->adj_gcn = adj_gcn;
    g->pe = pe;
    g->n_pe = n_pe;
    g->offsets = offsets;
    g->n_graphs = n_graphs;
    if (x_sparse && (rc = fgl_csr_transpose(x_sparse, &g->x_sparse_t))) goto fail;
    if (!adj_gcn && fgl__arch_reads_gcn(arch)) {
        if ((rc = fgl_gcn_norm(adj, &g->own_gcn))) goto fail;
        g->adj_gcn = &g->own_gcn;
    }
    if (arch == FGL_ARCH_SAGE) {
        if ((rc = fgl__mean_adj(adj, &g->adj_mean))) goto fail;
        if ((rc = fgl_csr_transpose(&g->adj_mean, &g->adj_mean_t))) goto fail;
    }
    /* A + I: GAT's attention support; GIN's and FedStar's aggregation with eps = 0 */
    if ((arch == FGL_ARCH_GAT || arch == FGL_ARCH_GIN || arch == FGL_ARCH_FEDSTAR) &&
        (rc = fgl__loop_adj(adj, &g->adj_loop, &g->loop_rows)))
        goto fail;
    if (arch == FGL_ARCH_SGC) { /* A_hat^K X, once */
        size_t sz = (size_t)n * (size_t)n_feat;
        float *a = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(sz, 1));
        float *b = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(sz, 1));
        int k, i;
        if (!a || !b) {
            FGL_FREE(a);
            FGL_FREE(b);
            rc = FGL_ERR_NOMEM;
            goto fail;
        }
        if (x) memcpy(a, x, sizeof(float) * sz);
        else {
            memset(a, 0, sizeof(float) * sz);
            for (i = 0; i < n; i++)
                for (k = x_sparse->indptr[i]; k < x_sparse->indptr[i + 1]; k++)
                    a[(size_t)i * n_feat + x_sparse->indices[k]] = x_sparse->values ? x_sparse->values[k] : 1.0f;
        }
        for (k = 0; k < spec->sgc_hops; k++) {
            float *tmp;
            fgl_csr_spmm(g->adj_gcn, a, n_feat, 0.0f, b);
            tmp = a;
            a = b;
            b = tmp;
        }
        FGL_FREE(b);
        g->x_prop = a;
    }
    if (arch == FGL_ARCH_GAMLP) { /* X, A_hat X, ..., A_hat^K X, block after block */
        size_t sz = (size_t)n * (size_t)n_feat;
        int k, i, K = spec->sgc_hops;
        float *h = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(sz * (size_t)(K + 1), 1));
        if (!h) {
            rc = FGL_ERR_NOMEM;
            goto fail;
        }
        if (x) memcpy(h, x, sizeof(float) * sz);
        else {
            memset(h, 0, sizeof(float) * sz);
            for (i = 0; i < n; i++)
                for (k = x_sparse->indptr[i]; k < x_sparse->indptr[i + 1]; k++)
                    h[(size_t)i * n_feat + x_sparse->indices[k]] = x_sparse->values ? x_sparse->values[k] : 1.0f;
        }
        for (k = 1; k <= K; k++) fgl_csr_spmm(g->adj_gcn, h + (size_t)(k - 1) * sz, n_feat, 0.0f, h + (size_t)k * sz);
        g->x_hops = h;
        g->n_hops = K + 1;
    }
    return FGL_OK;
fail:
    fgl_gnn_graph_free(g);
    return fgl_error_set(err, rc, "gnn graph: cannot derive the matrices the %s model needs (%s)", fgl_arch_name(arch),
                         fgl_result_name(rc));
}

FGLDEF int fgl_gnn_graph_from_node_data(fgl_gnn_graph *g, fgl_node_data *d, const fgl_model_spec *spec,
                                        fgl_error *err) {
    fgl_error local;
    const fgl_csr *gcn = NULL;
    memset(g, 0, sizeof *g);
    if (!err) err = &local; /* for the code of a failure */
    if (fgl__arch_reads_gcn(spec->arch) && !(gcn = fgl_node_data_gcn(d, err))) return err->code;
    return fgl_gnn_graph_make(g, &d->adj, gcn, d->x_sparse.rows ? NULL : d->x.data,
                              d->x_sparse.rows ? &d->x_sparse : NULL, d->n_feat, NULL, 0, NULL, 0, spec, err);
}

FGLDEF int fgl_gnn_graph_from_batch(fgl_gnn_graph *g, fgl_batch *b, const fgl_model_spec *spec, fgl_error *err) {
    fgl_error local;
    const fgl_csr *gcn = NULL;
    memset(g, 0, sizeof *g);
    if (!err) err = &local; /* for the code of a failure */
    if (fgl__arch_reads_gcn(spec->arch) && !(gcn = fgl_batch_gcn(b, err))) return err->code;
    return fgl_gnn_graph_make(g, &b->adj, gcn, b->x, NULL, b->n_feat, b->pe, b->n_pe, b->offsets, b->n_graphs, spec,
                              err);
}

/* --- forward pieces ------------------------------------------------------------- */

typedef struct fgl__fwd {
    fgl_model *m;
    fgl_tape *t;
    const fgl_gnn_graph *g;
    int train;
    fgl_rng *rng;
    fgl_node *x_in;        /* the input features as a tape node (fgl_model_forward_x), or NULL */
} fgl__fwd;

static fgl_node *fgl__p(fgl__fwd *f, int slot) { return slot >= 0 ? fgl_op_param(f->t, &f->m->params, slot) : NULL; }

/* The weight a layer uses: W, or W * M; in evaluation W * M * keep, where
 * keep is 0 for |M| < mask_prune (so gradients still reach kept entries). */
static fgl_node *fgl__weight(fgl__fwd *f, int w, int mask) {
    fgl_node *W = fgl__p(f, w), *M;
    if (mask < 0) return W;
    M = fgl__p(f, mask);
    if (!f->train && M && f->m->spec.mask_prune > 0) {
        size_t i, n = (size_t)M->rows * (size_t)M->cols;
        float *keep = (float *)fgl_tape_alloc(f->t, sizeof(float) * n);
        if (!keep) return NULL;
        for (i = 0; i < n; i++) keep[i] = fabsf(M->val[i]) < f->m->spec.mask_prune ? 0.0f : 1.0f;
        M = fgl_op_mul(f->t, M, fgl_op_const(f->t, keep, M->rows, M->cols));
    }
    return fgl_op_mul(f->t, W, M);
}

static fgl_node *fgl__maybe_bias(fgl__fwd *f, fgl_node *y, int b) {
    return b >= 0 ? fgl_op_bias(f->t, y, fgl__p(f, b)) : y;
}

/* A x (+ b) in one node (a GCN layer's aggregation and bias). */
static fgl_node *fgl__spmm_bias(fgl__fwd *f, const fgl_csr *a, const fgl_csr *at, fgl_node *x, int b) {
    return fgl_op_spmm_bias(f->t, a, at, x, b >= 0 ? fgl__p(f, b) : NULL);
}

/* x W (+ b) for a dense node x, as one tape node. */
static fgl_node *fgl__linear(fgl__fwd *f, fgl_node *x, int w, int b, int mask) {
    return fgl_op_linear(f->t, x, fgl__weight(f, w, mask), fgl__p(f, b));
}

/* ReLU(x W (+ b)) as one tape node (the ReLU applied as the product is
 * stored: no pass over the output, no pre-activation buffer). */
static fgl_node *fgl__linear_relu(fgl__fwd *f, fgl_node *x, int w, int b, int mask) {
    return fgl_op_linear_relu(f->t, x, fgl__weight(f, w, mask), fgl__p(f, b));
}

static fgl_node *fgl__dropout(fgl__fwd *f, fgl_node *x, float p) {
    return f->train ? fgl_op_dropout(f->t, x, p, f->rng) : x;
}

/* GAMLP: per node, softmax over hops k of X_k[v] . a, then sum_k w_k X_k[v]. */
static fgl_node *fgl__hop_attention(fgl__fwd *f) {
    const fgl_gnn_graph *g = f->g;
    fgl_node *cols[65], *a = fgl__p(f, f->m->hop_att);
    size_t block = (size_t)g->n_nodes * (size_t)g->n_feat;
    int k;
    if (!g->x_hops || g->n_hops < 1 || g->n_hops > 65)
        return fgl_tape_fail(f->t, FGL_ERR_ARG, "GAMLP: the graph was not prepared for it (no propagated features)");
    for (k = 0; k < g->n_hops; k++)
        cols[k] = fgl_op_matmul(f->t, fgl_op_const(f->t, g->x_hops + (size_t)k * block, g->n_nodes, g->n_feat), a);
    return fgl_op_mix_blocks(f->t, fgl_op_softmax(f->t, fgl_op_concat_cols(f->t, cols, g->n_hops)), g->x_hops,
                             g->n_feat);
}

/* The input features as a dense node, or NULL when they are sparse (the
 * first layer then multiplies the sparse matrix directly, see fgl__first). */
static fgl_node *fgl__dense_input(fgl__fwd *f) {
    const fgl_gnn_graph *g = f->g;
    fgl_node *x;
    if (f->x_in) return fgl__dropout(f, f->x_in, f->m->spec.input_dropout);
    if (f->m->hop_att >= 0) return fgl__dropout(f, fgl__hop_attention(f), f->m->spec.input_dropout);
    if (g->x_prop) x = fgl_op_const(f->t, g->x_prop, g->n_nodes, g->n_feat);
    else if (g->x) x = fgl_op_const(f->t, g->x, g->n_nodes, g->n_feat);
    else return NULL;
    return fgl__dropout(f, x, f->m->spec.input_dropout);
}

/* x_sparse W, with input dropout applied to the non-zeros (fresh values on
 * the tape, structure shared with the data). */
static fgl_node *fgl__sparse_times(fgl__fwd *f, fgl_node *W) {
    const fgl_gnn_graph *g = f->g;
    const fgl_csr *xs = g->x_sparse;
    float p = f->m->spec.input_dropout;
    if (!W) return NULL;
    if (f->train && p > 0 && f->rng) {
        fgl_csr *d = (fgl_csr *)fgl_tape_alloc(f->t, sizeof(fgl_csr));
        float *v = (float *)fgl_tape_alloc(f->t, sizeof(float) * (size_t)FGL__MAX(xs->nnz, 1));
        float keep = 1.0f / (1.0f - p);
        int k;
        if (!d || !v) return NULL;
        *d = *xs;
        for (k = 0; k < xs->nnz; k++)
            v[k] = fgl_rng_uniform(f->rng) >= p ? (xs->values ? xs->values[k] : 1.0f) * keep : 0.0f;
        d->values = v;
        return fgl_op_spmm(f->t, d, NULL, W); /* backward by serial scatter */
    }
    return fgl_op_spmm(f->t, xs, &g->x_sparse_t, W);
}

/* The first linear map of a model on its raw input (dense or sparse). */
static fgl_node *fgl__first(fgl__fwd *f, fgl_node *dense_in, int w, int b, int mask) {
    if (dense_in) return fgl__linear(f, dense_in, w, b, mask);
    return fgl__maybe_bias(f, fgl__sparse_times(f, fgl__weight(f, w, mask)), b);
}

static fgl_node *fgl__readout(fgl__fwd *f, fgl_node *h) {
    const int *off = f->g->offsets;
    int n = f->g->n_graphs;
    switch (f->m->spec.readout) {
    case FGL_READOUT_MEAN: return fgl_op_segment_mean(f->t, h, off, n);
    case FGL_READOUT_MAX: return fgl_op_segment_max(f->t, h, off, n);
    default: return fgl_op_segment_sum(f->t, h, off, n);
    }
}

static fgl_node *fgl__head(fgl__fwd *f, fgl_node *rep) {
    const fgl_model_spec *s = &f->m->spec;
    const fgl_layer_slots *h = &f->m->head;
    if (s->head == FGL_HEAD_LINEAR) return fgl__linear(f, fgl__dropout(f, rep, s->dropout), h->w, h->b, h->mask);
    if (s->head == FGL_HEAD_MLP) {
        fgl_node *z = fgl__linear_relu(f, rep, h->w, h->b, h->mask);
        return fgl__linear(f, fgl__dropout(f, z, s->dropout), h->w2, h->b2, h->mask2);
    }
    return rep;
}

/* One message-passing layer l on input h (NULL: the raw, possibly sparse,
 * features). Returns the pre-activation output; with relu_out (GIN only)
 * the output after the ReLU, fused into the layer's last product. */
static fgl_node *fgl__conv(fgl__fwd *f, int l, fgl_node *h, fgl_node *h0, int relu_out) {
    const fgl_model_spec *s = &f->m->spec;
    const fgl_layer_slots *c = &f->m->conv[l];
    const fgl_gnn_graph *g = f->g;
    fgl_tape *t = f->t;
    FGL_ASSERT(!relu_out || s->arch == FGL_ARCH_GIN); /* the only architecture that fuses it */
    switch (s->arch) {
    case FGL_ARCH_GCN: {
        fgl_node *xw = h ? fgl_op_matmul(t, h, fgl__weight(f, c->w, c->mask))
                         : fgl__sparse_times(f, fgl__weight(f, c->w, c->mask));
        return fgl__spmm_bias(f, g->adj_gcn, g->adj_gcn, xw, c->b);
    }
    case FGL_ARCH_SGC:
    case FGL_ARCH_MLP:
    case FGL_ARCH_GAMLP:
        return fgl__first(f, h, c->w, c->b, c->mask);
    case FGL_ARCH_GIN: {
        /* ((A + (1 + eps) I) h) W; with sparse input h = X the equal
         * (A + (1 + eps) I)(X W) keeps the sparse product first. */
        /* the MLP's inner ReLU: after batch norm in one pass, or with the product (dense input) */
        fgl_node *one_eps = fgl_op_affine(t, fgl__p(f, c->eps), 1.0f, 1.0f), *z, *agg = NULL;
        int bn = c->bn_g >= 0;
        if (h && g->adj_loop.rows && !s->learn_eps && one_eps && one_eps->val[0] == 1.0f)
            agg = fgl_op_spmm(t, &g->adj_loop, &g->adj_loop,
                              h); /* eps fixed at 0 (the usual GIN): one product with A + I */
        else if (h)
            agg = fgl_op_add(t, fgl_op_spmm(t, g->adj, g->adj, h), fgl_op_mul(t, h, one_eps));
        if (agg) {
            z = bn ? fgl__linear(f, agg, c->w, c->b, c->mask) : fgl__linear_relu(f, agg, c->w, c->b, c->mask);
        } else {
            fgl_node *xw = fgl__sparse_times(f, fgl__weight(f, c->w, c->mask));
            z = fgl__maybe_bias(f, fgl_op_add(t, fgl_op_spmm(t, g->adj, g->adj, xw), fgl_op_mul(t, xw, one_eps)), c->b);
            if (!bn) z = fgl_op_relu(t, z);
        }
        if (bn)
            z = fgl_op_batch_norm_relu(t, z, fgl__p(f, c->bn_g), fgl__p(f, c->bn_b),
                                       fgl_params_data(&f->m->params, c->bn_mean),
                                       fgl_params_data(&f->m->params, c->bn_var), s->bn_momentum, s->bn_eps, f->train);
        return relu_out ? fgl__linear_relu(f, z, c->w2, c->b2, c->mask2) : fgl__linear(f, z, c->w2, c->b2, c->mask2);
    }
    case FGL_ARCH_SAGE: {
        fgl_node *neigh, *root;
        if (h) {
            neigh = fgl_op_matmul(t, fgl_op_spmm(t, &g->adj_mean, &g->adj_mean_t, h), fgl__weight(f, c->w, c->mask));
            root = fgl_op_matmul(t, h, fgl__weight(f, c->w2, c->mask2));
        } else { /* sparse input: (mean A X) W = mean A (X W) */
            neigh = fgl_op_spmm(t, &g->adj_mean, &g->adj_mean_t, fgl__sparse_times(f, fgl__weight(f, c->w, c->mask)));
            root = fgl__sparse_times(f, fgl__weight(f, c->w2, c->mask2));
        }
        return fgl__maybe_bias(f, fgl_op_add(t, neigh, root), c->b);
    }
    case FGL_ARCH_GCNII: {
        float a = s->gcnii_alpha, beta = (float)log(s->gcnii_lambda / (double)(l + 1) + 1.0);
        fgl_node *sup = fgl_op_add(t, fgl_op_scale(t, fgl_op_spmm(t, g->adj_gcn, g->adj_gcn, h), 1.0f - a),
                                   fgl_op_scale(t, h0, a));
        return fgl_op_add(t, fgl_op_scale(t, sup, 1.0f - beta),
                          fgl_op_scale(t, fgl_op_matmul(t, sup, fgl__weight(f, c->w, c->mask)), beta));
    }
    case FGL_ARCH_GAT: {
        int last = l == s->layers - 1 && s->head == FGL_HEAD_NONE && s->task != FGL_TASK_GRAPH;
        int H = last ? 1 : s->heads, width = f->m->params.slices[c->w].cols, F = width / H, hh, j;
        fgl_node *z = h ? fgl_op_matmul(t, h, fgl__weight(f, c->w, c->mask))
                        : fgl__sparse_times(f, fgl__weight(f, c->w, c->mask));
        fgl_node *att_t = fgl_op_transpose(t, fgl__p(f, c->att)); /* width x 2: source, destination */
        fgl_node *cols[2 * FGL_MAX_HEADS], *sc, *e, *alpha;
        float *bm = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)width * 2 * (size_t)H);
        if (!z || !att_t || !bm) return NULL;
        /* Scores of every head at once: sc = z B (n x 2H), where column h of
         * B is the source vector restricted to head h's block of z and column
         * H + h the destination vector, built as [src..src dst..dst] * mask. */
        for (hh = 0; hh < H; hh++) {
            cols[hh] = fgl_op_slice_cols(t, att_t, 0, 1);
            cols[H + hh] = fgl_op_slice_cols(t, att_t, 1, 1);
            for (j = hh * F; j < (hh + 1) * F; j++) {
                bm[(size_t)j * 2 * H + hh] = 1.0f;
                bm[(size_t)j * 2 * H + H + hh] = 1.0f;
            }
        }
        sc = fgl_op_matmul(t, z, fgl_op_mul(t, fgl_op_concat_cols(t, cols, 2 * H), fgl_op_const(t, bm, width, 2 * H)));
        /* e_ij = LeakyReLU(dst_i + src_j) over the entries (i, j) of A + I. */
        e = fgl_op_add(t, fgl_op_gather_rows(t, fgl_op_slice_cols(t, sc, H, H), g->loop_rows, g->adj_loop.nnz),
                       fgl_op_gather_rows(t, fgl_op_slice_cols(t, sc, 0, H), g->adj_loop.indices, g->adj_loop.nnz));
        alpha = fgl_op_segment_softmax(t, fgl_op_leaky_relu(t, e, 0.2f), g->adj_loop.indptr, g->n_nodes);
        alpha = fgl__dropout(f, alpha, s->dropout);
        return fgl__maybe_bias(f, fgl_op_spmm_values(t, &g->adj_loop, alpha, z), c->b);
    }
    default:
        return fgl_tape_fail(t, FGL_ERR_UNSUPPORTED, "conv: architecture %d", s->arch);
    }
}

/* FedStar (docs/algorithms.md): x0 = Linear(X), s0 = Linear(SE); per layer
 * x <- dropout(ReLU(GIN([x || s]))) with GIN MLP 2H -> H -> ReLU -> H and
 * eps = 0, then s <- tanh(GCN(s)) (the GIN sees s before that layer's GCN);
 * readout: Linear(2H -> H) on [x || s], sum pooling, then the MLP head. */
static int fgl__fedstar_forward(fgl__fwd *f, fgl_forward *out) {
    fgl_model *m = f->m;
    const fgl_model_spec *s = &m->spec;
    const fgl_gnn_graph *g = f->g;
    fgl_tape *t = f->t;
    fgl_node *x, *st, *node;
    int l;
    x = fgl__first(f, fgl__dense_input(f), m->in_proj.w, m->in_proj.b, m->in_proj.mask);
    st = fgl__linear(f, fgl_op_const(t, g->pe, g->n_nodes, g->n_pe), m->pe_proj.w, m->pe_proj.b, m->pe_proj.mask);
    for (l = 0; l < s->layers; l++) {
        const fgl_layer_slots *c = &m->conv[l], *sc = &m->sconv[l];
        fgl_node *xs = fgl_op_concat2(t, x, st);
        fgl_node *agg = fgl_op_spmm(t, &g->adj_loop, &g->adj_loop, xs); /* (A + I) [x || s]: GIN with eps = 0 */
        fgl_node *z = fgl__linear(f, fgl__linear_relu(f, agg, c->w, c->b, c->mask), c->w2, c->b2, c->mask2);
        x = f->train ? fgl_op_relu_dropout(t, z, s->dropout, f->rng) : fgl_op_relu(t, z);
        st = fgl_op_tanh(
            t, fgl__spmm_bias(f, g->adj_gcn, g->adj_gcn, fgl_op_matmul(t, st, fgl__weight(f, sc->w, sc->mask)), sc->b));
    }
    node = fgl__linear(f, fgl_op_concat2(t, x, st), m->node_out.w, m->node_out.b, m->node_out.mask);
    out->node_emb = node;
    out->graph_emb = fgl__readout(f, node);
    out->rep = s->norm_rep ? fgl_op_l2_normalize_rows(t, out->graph_emb, 0) : out->graph_emb;
    out->logits = fgl__head(f, out->rep);
    return t->err.code;
}

/* spec.norm on h with the slots' parameters (layer or batch norm; eps
 * bn_eps); h itself where the slots have none. */
static fgl_node *fgl__norm_slots(fgl__fwd *f, const fgl_layer_slots *c, fgl_node *h) {
    const fgl_model_spec *s = &f->m->spec;
    if (!h || c->nrm_g < 0) return h;
    if (s->norm == FGL_NORM_BATCH)
        return fgl_op_batch_norm(f->t, h, fgl__p(f, c->nrm_g), fgl__p(f, c->nrm_b),
                                 fgl_params_data(&f->m->params, c->nrm_mean), fgl_params_data(&f->m->params, c->nrm_var),
                                 s->bn_momentum, s->bn_eps, f->train);
    return fgl_op_layer_norm(f->t, h, fgl__p(f, c->nrm_g), fgl__p(f, c->nrm_b), s->bn_eps);
}

/* The node models with spec.residual or spec.norm (the block form is in
 * model.h, at the spec's fields); a path of its own, so that a model
 * without them runs the code (and gets the bits) it ran before. */
static int fgl__backbone_forward(fgl__fwd *f, fgl_forward *out) {
    fgl_model *m = f->m;
    const fgl_model_spec *s = &m->spec;
    fgl_tape *t = f->t;
    fgl_node *h, *z = NULL, *pre = NULL;
    int l, gat = s->arch == FGL_ARCH_GAT, last_emits_classes = s->head == FGL_HEAD_NONE;
    h = fgl__dense_input(f); /* NULL for sparse input */
    if (m->in_proj.w >= 0) {
        h = fgl__first(f, h, m->in_proj.w, m->in_proj.b, m->in_proj.mask);
        if (s->residual) h = f->train ? fgl_op_relu_dropout(t, h, s->dropout, f->rng) : fgl_op_relu(t, h);
    }
    for (l = 0; l < s->layers; l++) {
        int last = l == s->layers - 1;
        z = fgl__norm_slots(f, &m->conv[l], h);
        /* the last layer is the classifier: its (normalised) input is the representation */
        if (last && last_emits_classes && s->norm_rep && z) z = fgl_op_l2_normalize_rows(t, z, 0);
        pre = fgl__conv(f, l, z, NULL, 0);
        if (last && last_emits_classes) break;
        if (s->residual || !last) { /* Dropout(Act(.)): ReLU and dropout in one pass */
            fgl_node *d = gat ? fgl__dropout(f, fgl_op_elu(t, pre, 1.0f), s->dropout)
                        : f->train ? fgl_op_relu_dropout(t, pre, s->dropout, f->rng)
                                   : fgl_op_relu(t, pre);
            h = s->residual ? fgl_op_add(t, h, d) : d; /* h <- h + Dropout(Act(Conv(Norm(h)))) */
        } else { /* the last layer of a plain model: the head brings its own dropout */
            h = gat ? fgl_op_elu(t, pre, 1.0f) : fgl_op_relu(t, pre);
        }
    }
    if (last_emits_classes) {
        out->node_emb = pre;
        out->rep = z;
        out->logits = pre;
        return t->err.code;
    }
    out->node_emb = s->residual ? h : pre;
    out->rep = fgl__norm_slots(f, &m->out_norm, h);
    if (s->norm_rep) out->rep = fgl_op_l2_normalize_rows(t, out->rep, 0);
    out->logits = fgl__head(f, out->rep);
    return t->err.code;
}

static int fgl__model_forward(fgl_model *m, fgl_tape *t, const fgl_gnn_graph *g, fgl_node *x_in, int train,
                              fgl_rng *rng, fgl_forward *out);

FGLDEF int fgl_model_forward(fgl_model *m, fgl_tape *t, const fgl_gnn_graph *g, int train, fgl_rng *rng,
                             fgl_forward *out) {
    return fgl__model_forward(m, t, g, NULL, train, rng, out);
}

FGLDEF int fgl_model_forward_x(fgl_model *m, fgl_tape *t, const fgl_gnn_graph *g, fgl_node *x, int train,
                               fgl_rng *rng, fgl_forward *out) {
    const fgl_model_spec *s = &m->spec;
    memset(out, 0, sizeof *out);
    if (t->err.code) return t->err.code;
    if (!x) {
        fgl_tape_fail(t, FGL_ERR_ARG, "forward_x: no input node");
        return t->err.code;
    }
    if (s->task == FGL_TASK_GRAPH || s->arch == FGL_ARCH_FEDSTAR || s->arch == FGL_ARCH_SGC ||
        s->arch == FGL_ARCH_GAMLP) {
        fgl_tape_fail(t, FGL_ERR_ARG, "forward_x: a node model that reads its features in the forward pass (not %s%s)",
                      fgl_arch_name(s->arch), s->task == FGL_TASK_GRAPH ? ", a graph task" : "");
        return t->err.code;
    }
    if (x->rows != g->n_nodes || x->cols != s->in_dim) {
        fgl_tape_fail(t, FGL_ERR_SHAPE, "forward_x: %d x %d input for %d nodes and %d features", x->rows, x->cols,
                      g->n_nodes, s->in_dim);
        return t->err.code;
    }
    return fgl__model_forward(m, t, g, x, train, rng, out);
}

static int fgl__model_forward(fgl_model *m, fgl_tape *t, const fgl_gnn_graph *g, fgl_node *x_in, int train,
                              fgl_rng *rng, fgl_forward *out) {
    fgl__fwd f;
    const fgl_model_spec *s = &m->spec;
    fgl_node *h, *h0 = NULL, *pre = NULL, *act = NULL;
    int l, fuse, last_emits_classes = s->head == FGL_HEAD_NONE && s->task != FGL_TASK_GRAPH;
    memset(out, 0, sizeof *out);
    if (t->err.code) return t->err.code;
    if (g->n_feat != s->in_dim) {
        fgl_tape_fail(t, FGL_ERR_SHAPE, "forward: graph has %d features, model expects %d", g->n_feat, s->in_dim);
        return t->err.code;
    }
    if (s->task == FGL_TASK_GRAPH && !g->offsets) {
        fgl_tape_fail(t, FGL_ERR_ARG, "forward: graph task without graph offsets");
        return t->err.code;
    }
    f.m = m;
    f.t = t;
    f.g = g;
    f.train = train;
    f.rng = rng;
    f.x_in = x_in;
    if (s->arch == FGL_ARCH_FEDSTAR) return fgl__fedstar_forward(&f, out);
    if (s->residual || s->norm) return fgl__backbone_forward(&f, out);

    h = fgl__dense_input(&f); /* NULL for sparse input */
    if (m->in_proj.w >= 0) {
        h = fgl__first(&f, h, m->in_proj.w, m->in_proj.b, m->in_proj.mask);
        if (s->arch == FGL_ARCH_GCNII) {
            h = fgl_op_relu(t, h);
            h0 = h;
        }
    }
    for (l = 0; l < s->layers; l++) {
        int last = l == s->layers - 1;
        if (s->arch == FGL_ARCH_GCNII) h = fgl__dropout(&f, h, s->dropout);
        /* the last layer is the classifier: its (dense) input is the representation */
        if (last && last_emits_classes && s->norm_rep && h) h = fgl_op_l2_normalize_rows(t, h, 0);
        /* GIN's ReLU after a layer other than the last (whose output is
         * node_emb, before activation) goes into the layer's last product,
         * unless dropout follows it in training (fgl_op_relu_dropout's one
         * pass then) */
        fuse = s->arch == FGL_ARCH_GIN && !last && !(train && s->dropout > 0 && rng);
        pre = fgl__conv(&f, l, h, h0, fuse);
        if (last && last_emits_classes) break;
        if (fuse) {
            h = act = pre;
            continue;
        }
        /* Dropout after every activation, except where the next step brings
         * its own: GCNII before each layer, a node head before its map. */
        if (s->arch == FGL_ARCH_GCNII || (last && s->task != FGL_TASK_GRAPH)) {
            act = s->arch == FGL_ARCH_GAT ? fgl_op_elu(t, pre, 1.0f) : fgl_op_relu(t, pre);
            h = act;
        } else if (s->arch != FGL_ARCH_GAT && train) {
            h = act = fgl_op_relu_dropout(t, pre, s->dropout, rng); /* one pass; act is not read past here */
        } else {
            act = s->arch == FGL_ARCH_GAT ? fgl_op_elu(t, pre, 1.0f) : fgl_op_relu(t, pre);
            h = fgl__dropout(&f, act, s->dropout);
        }
    }
    out->node_emb = pre;
    if (last_emits_classes) {
        out->rep = h;
        out->logits = pre;
    } else if (s->task == FGL_TASK_GRAPH) {
        out->graph_emb = fgl__readout(&f, h);
        out->rep = s->norm_rep ? fgl_op_l2_normalize_rows(t, out->graph_emb, 0) : out->graph_emb;
        out->logits = fgl__head(&f, out->rep);
    } else {
        out->rep = s->norm_rep ? fgl_op_l2_normalize_rows(t, act, 0) : act;
        out->logits = fgl__head(&f, out->rep);
    }
    return t->err.code;
}

FGLDEF fgl_node *fgl_model_head(fgl_model *m, fgl_tape *t, fgl_node *x, int train, fgl_rng *rng) {
    fgl__fwd f;
    memset(&f, 0, sizeof f);
    f.m = m;
    f.t = t;
    f.train = train;
    f.rng = rng;
    return x ? fgl__head(&f, x) : NULL;
}

FGLDEF int fgl_model_evaluate(fgl_model *m, fgl_tape *t, const fgl_gnn_graph *g, const int *labels,
                              const unsigned char *const *masks, int n_masks, double *acc, int *correct, int *count) {
    fgl_forward out;
    int i, j, q;
    fgl_tape_reset(t);
    if (fgl_model_forward(m, t, g, 0, NULL, &out) || !out.logits) return t->err.code ? t->err.code : FGL_ERR_ARG;
    for (q = 0; q < n_masks; q++) {
        int ok = 0, total = 0;
        for (i = 0; i < out.logits->rows; i++) {
            const float *row = out.logits->val + (size_t)i * out.logits->cols;
            int best = 0;
            if ((masks && masks[q] && !masks[q][i]) || labels[i] < 0) continue;
            for (j = 1; j < out.logits->cols; j++)
                if (row[j] > row[best]) best = j;
            ok += best == labels[i];
            total++;
        }
        acc[q] = total ? (double)ok / total : 0.0;
        if (correct) correct[q] = ok;
        if (count) count[q] = total;
    }
    return FGL_OK;
}

FGLDEF double fgl_model_accuracy(fgl_model *m, fgl_tape *t, const fgl_gnn_graph *g, const int *labels,
                                 const unsigned char *mask, double *loss_out) {
    fgl_forward out;
    double acc;
    const unsigned char *masks[1];
    masks[0] = mask;
    if (!loss_out) return fgl_model_evaluate(m, t, g, labels, masks, 1, &acc, NULL, NULL) ? -1 : acc;
    fgl_tape_reset(t);
    if (fgl_model_forward(m, t, g, 0, NULL, &out) || !out.logits) return -1;
    {
        fgl_node *loss = fgl_op_cross_entropy(t, out.logits, labels, mask);
        *loss_out = loss ? loss->val[0] : NAN;
    }
    return fgl_model_evaluate(m, t, g, labels, masks, 1, &acc, NULL, NULL) ? -1 : acc;
}

FGLDEF int fgl_model_mean_embedding(fgl_model *m, fgl_tape *t, const fgl_gnn_graph *g, float *out) {
    fgl_forward fw;
    int i, j, w;
    fgl_tape_reset(t);
    if (fgl_model_forward(m, t, g, 0, NULL, &fw) || !fw.node_emb) return t->err.code ? t->err.code : FGL_ERR_ARG;
    w = fw.node_emb->cols;
    for (j = 0; j < w; j++) {
        double s = 0;
        for (i = 0; i < fw.node_emb->rows; i++) s += fw.node_emb->val[(size_t)i * w + j];
        out[j] = fw.node_emb->rows ? (float)(s / fw.node_emb->rows) : 0.0f;
    }
    return FGL_OK;
}

/* --- src/gnn/link.h --- */
/* --- link prediction -------------------------------------------------------------- */

FGLDEF fgl_link_config fgl_link_default(void) {
    fgl_link_config o;
    o.val = 0.05;
    o.test = 0.10;
    o.eval_neg = 1000;
    o.hits_k = 50;
    return o;
}

FGLDEF void fgl_link_split_free(fgl_link_split *ls) {
    int k;
    for (k = 0; k < 4; k++) {
        FGL_FREE(ls->src[k]);
        FGL_FREE(ls->dst[k]);
    }
    fgl_csr_free(&ls->adj);
    memset(ls, 0, sizeof *ls);
}

static int fgl__u64_cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* 1 if (u, v) (either order) is an edge of adj. */
static int fgl__link_has_edge(const fgl_csr *adj, int u, int v) {
    int lo = adj->indptr[u], hi = adj->indptr[u + 1] - 1;
    while (lo <= hi) { /* columns strictly increase (the graph contract) */
        int mid = lo + (hi - lo) / 2, c = adj->indices[mid];
        if (c == v) return 1;
        if (c < v) lo = mid + 1;
        else hi = mid - 1;
    }
    return 0;
}

/* A pair u != v that is not an edge of adj, uniform over such pairs by
 * rejection; -1 after `tries` draws. */
static int fgl__link_draw(const fgl_csr *adj, int n, fgl_rng *r, int tries, int *u, int *v) {
    while (tries-- > 0) {
        int a = (int)fgl_rng_below(r, (uint64_t)n), b = (int)fgl_rng_below(r, (uint64_t)n);
        if (a == b || fgl__link_has_edge(adj, a, b)) continue;
        *u = a < b ? a : b;
        *v = a < b ? b : a;
        return 0;
    }
    return -1;
}

FGL__PRIVATE uint64_t fgl__link_sum(const fgl_link_split *ls) {
    uint64_t h = 0x4c494e4bull;
    int i, k;
    for (k = 1; k < 4; k++)
        for (i = 0; i < ls->n_pos[k] + ls->n_neg[k]; i++) {
            h = (h ^ (uint64_t)(uint32_t)ls->src[k][i]) * 0x100000001b3ull;
            h = (h ^ (uint64_t)(uint32_t)ls->dst[k][i]) * 0x100000001b3ull;
        }
    return h ^ (uint64_t)ls->hits_k;
}

FGLDEF int fgl_link_split_make(const fgl_node_data *d, const fgl_link_config *o, uint64_t seed, fgl_link_split *ls,
                               fgl_error *err) {
    fgl_link_config def = fgl_link_default();
    uint64_t *keys = NULL;
    int n, E = 0, i, j, k, rc = FGL_OK, cut[4];
    fgl_rng r;
    memset(ls, 0, sizeof *ls);
    if (!o) o = &def;
    if (!d || !d->adj.indptr) return fgl_error_set(err, FGL_ERR_ARG, "link split: no graph");
    n = d->n_nodes;
    if (!(o->val >= 0 && o->test >= 0 && o->val + o->test < 1))
        return fgl_error_set(err, FGL_ERR_ARG, "link split: validation %g and test %g: fractions >= 0 summing below 1",
                             o->val, o->test);
    if (o->eval_neg < 0 || o->eval_neg > 100000000 || o->hits_k < 1)
        return fgl_error_set(err, FGL_ERR_ARG, "link split: eval_neg %d (0 .. 1e8), hits_k %d (>= 1)", o->eval_neg,
                             o->hits_k);
    if (n < 2) return fgl_error_set(err, FGL_ERR_EMPTY, "link split: %s has %d node(s)", d->name, n);
    for (i = 0; i < n; i++)
        for (j = d->adj.indptr[i]; j < d->adj.indptr[i + 1]; j++) E += d->adj.indices[j] > i;
    keys = (uint64_t *)FGL_MALLOC(sizeof(uint64_t) * (size_t)FGL__MAX(E, 1));
    if (!keys) return fgl_error_set(err, FGL_ERR_NOMEM, "link split: out of memory");
    E = 0;
    for (i = 0; i < n; i++)
        for (j = d->adj.indptr[i]; j < d->adj.indptr[i + 1]; j++)
            if (d->adj.indices[j] > i) keys[E++] = (uint64_t)i * (uint64_t)n + (uint64_t)d->adj.indices[j];
    ls->n_nodes = n;
    ls->hits_k = o->hits_k;
    ls->n_pos[FGL_SPLIT_VAL] = (int)floor(o->val * E);
    ls->n_pos[FGL_SPLIT_TEST] = (int)floor(o->test * E);
    if (E >= 3 && o->val > 0 && ls->n_pos[FGL_SPLIT_VAL] == 0) ls->n_pos[FGL_SPLIT_VAL] = 1;
    if (E >= 3 && o->test > 0 && ls->n_pos[FGL_SPLIT_TEST] == 0) ls->n_pos[FGL_SPLIT_TEST] = 1;
    ls->n_pos[FGL_SPLIT_TRAIN] = E - ls->n_pos[FGL_SPLIT_VAL] - ls->n_pos[FGL_SPLIT_TEST];
    if (ls->n_pos[FGL_SPLIT_TRAIN] < 1) {
        FGL_FREE(keys);
        memset(ls, 0, sizeof *ls);
        return fgl_error_set(err, FGL_ERR_EMPTY, "link split: %s has %d edge(s): none left for training", d->name, E);
    }
    fgl_rng_init(&r, seed, 0x4c494e4b53504cull); /* "LINKSPL" */
    for (i = E - 1; i > 0; i--) { /* Fisher-Yates */
        int q = (int)fgl_rng_below(&r, (uint64_t)i + 1);
        uint64_t x = keys[i];
        keys[i] = keys[q];
        keys[q] = x;
    }
    /* validation first, then test, then training, each in increasing key order */
    cut[FGL_SPLIT_VAL] = 0;
    cut[FGL_SPLIT_TEST] = ls->n_pos[FGL_SPLIT_VAL];
    cut[FGL_SPLIT_TRAIN] = cut[FGL_SPLIT_TEST] + ls->n_pos[FGL_SPLIT_TEST];
    for (k = 1; k < 4; k++) {
        int np = ls->n_pos[k];
        qsort(keys + cut[k], (size_t)np, sizeof(uint64_t), fgl__u64_cmp);
        if (k != FGL_SPLIT_TRAIN) ls->n_neg[k] = FGL__MAX(np, o->eval_neg);
        ls->src[k] = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(np + ls->n_neg[k], 1));
        ls->dst[k] = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(np + ls->n_neg[k], 1));
        if (!ls->src[k] || !ls->dst[k]) {
            rc = fgl_error_set(err, FGL_ERR_NOMEM, "link split: out of memory");
            goto done;
        }
        for (i = 0; i < np; i++) {
            ls->src[k][i] = (int)(keys[cut[k] + i] / (uint64_t)n);
            ls->dst[k][i] = (int)(keys[cut[k] + i] % (uint64_t)n);
        }
    }
    /* fixed negatives: non-edges of the whole graph, validation then test */
    for (k = FGL_SPLIT_VAL; k <= FGL_SPLIT_TEST; k++)
        for (i = 0; i < ls->n_neg[k]; i++)
            if (fgl__link_draw(&d->adj, n, &r, 1000, &ls->src[k][ls->n_pos[k] + i], &ls->dst[k][ls->n_pos[k] + i])) {
                rc = fgl_error_set(err, FGL_ERR_ARG, "link split: %s is too dense: 1000 draws found no non-edge",
                                   d->name);
                goto done;
            }
    if ((rc = fgl_graph_from_edges(n, ls->src[FGL_SPLIT_TRAIN], ls->dst[FGL_SPLIT_TRAIN], ls->n_pos[FGL_SPLIT_TRAIN],
                                   FGL_EDGES_SYMMETRIZE, &ls->adj, err)))
        goto done;
    ls->sum = fgl__link_sum(ls);
done:
    FGL_FREE(keys);
    if (rc) fgl_link_split_free(ls);
    return rc;
}

FGLDEF int fgl_link_sample_negatives(const fgl_link_split *ls, int n, fgl_rng *r, int *src, int *dst) {
    int i;
    for (i = 0; i < n; i++)
        if (fgl__link_draw(&ls->adj, ls->n_nodes, r, 100, &src[i], &dst[i])) return FGL_ERR_ARG;
    return FGL_OK;
}

FGLDEF fgl_node *fgl_link_scores(fgl_model *m, fgl_tape *t, const fgl_forward *fw, const int *src, const int *dst,
                                 int n, int train, fgl_rng *rng) {
    if (!fw->logits || !fw->rep) return fgl_tape_fail(t, FGL_ERR_ARG, "link scores: no forward pass");
    if (m->spec.head == FGL_HEAD_MLP) { /* the MLP decoder on rep_u * rep_v */
        fgl_node *h = fgl_op_mul(t, fgl_op_gather_rows(t, fw->rep, src, n), fgl_op_gather_rows(t, fw->rep, dst, n));
        return fgl_model_head(m, t, h, train, rng);
    }
    return fgl_op_edge_dot(t, fw->logits, src, dst, n);
}

FGLDEF fgl_node *fgl_link_loss(const fgl_link_split *ls, fgl_model *m, fgl_tape *t, const fgl_forward *fw,
                               fgl_rng *r) {
    int P = ls->n_pos[FGL_SPLIT_TRAIN], i;
    int *src = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)(2 * P)),
        *dst = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)(2 * P));
    float *y = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)(2 * P));
    if (!src || !dst || !y) return fgl_tape_fail(t, FGL_ERR_NOMEM, "link loss: out of memory");
    memcpy(src, ls->src[FGL_SPLIT_TRAIN], sizeof(int) * (size_t)P);
    memcpy(dst, ls->dst[FGL_SPLIT_TRAIN], sizeof(int) * (size_t)P);
    if (fgl_link_sample_negatives(ls, P, r, src + P, dst + P))
        return fgl_tape_fail(t, FGL_ERR_ARG, "link loss: the graph is too dense to draw negatives");
    for (i = 0; i < 2 * P; i++) y[i] = i < P ? 1.0f : 0.0f;
    return fgl_op_bce_logits(t, fgl_link_scores(m, t, fw, src, dst, 2 * P, 1, r), fgl_op_const(t, y, 2 * P, 1));
}

static int fgl__float_cmp(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* Sorted copies of two score lists (ascending), or NULL (a NaN, or out of
 * memory: the caller says NaN). */
static float *fgl__link_sorted(const float *pos, int n_pos, const float *neg, int n_neg) {
    float *s = (float *)FGL_MALLOC(sizeof(float) * (size_t)FGL__MAX(n_pos + n_neg, 1));
    int i;
    if (!s) return NULL;
    for (i = 0; i < n_pos; i++) s[i] = pos[i];
    for (i = 0; i < n_neg; i++) s[n_pos + i] = neg[i];
    for (i = 0; i < n_pos + n_neg; i++)
        if (s[i] != s[i]) {
            FGL_FREE(s);
            return NULL;
        }
    qsort(s, (size_t)n_pos, sizeof(float), fgl__float_cmp);
    qsort(s + n_pos, (size_t)n_neg, sizeof(float), fgl__float_cmp);
    return s;
}

FGLDEF double fgl_link_auc(const float *pos, int n_pos, const float *neg, int n_neg) {
    float *s, *p, *q;
    double wins = 0;
    int i, lo = 0, hi = 0;
    if (n_pos <= 0 || n_neg <= 0 || !(s = fgl__link_sorted(pos, n_pos, neg, n_neg))) return NAN;
    p = s;
    q = s + n_pos;
    for (i = 0; i < n_pos; i++) { /* lo: negatives below p[i]; hi: negatives at most p[i] */
        while (lo < n_neg && q[lo] < p[i]) lo++;
        if (hi < lo) hi = lo;
        while (hi < n_neg && q[hi] <= p[i]) hi++;
        wins += lo + 0.5 * (hi - lo);
    }
    FGL_FREE(s);
    return wins / ((double)n_pos * (double)n_neg);
}

FGLDEF double fgl_link_hits(const float *pos, int n_pos, const float *neg, int n_neg, int k) {
    float *s, kth;
    int i, above = 0;
    if (n_pos <= 0 || k < 1 || !(s = fgl__link_sorted(pos, n_pos, neg, n_neg))) return NAN;
    if (n_neg < k) {
        FGL_FREE(s);
        return 1.0;
    }
    kth = s[n_pos + n_neg - k]; /* the k-th highest negative */
    for (i = 0; i < n_pos; i++) above += s[i] > kth;
    FGL_FREE(s);
    return (double)above / n_pos;
}
/* --- src/gnn/view.h --- */
/* --- data views -------------------------------------------------------------------- */

FGLDEF void fgl_view_free(fgl_view *v) {
    int k, b;
    for (k = 0; k < 4; k++) {
        FGL_FREE(v->ids[k]);
        FGL_FREE(v->mask[k]);
        for (b = 0; b < v->n_prep[k]; b++) {
            fgl_gnn_graph_free(&v->prep_g[k][b]);
            fgl_batch_free(&v->prep_b[k][b]);
        }
        FGL_FREE(v->prep_b[k]);
        FGL_FREE(v->prep_g[k]);
    }
    fgl_gnn_graph_free(&v->full);
    memset(v, 0, sizeof *v);
}

/* The validation and test splits of a graph task, cut once into evaluation
 * batches prepared for the spec (they never change). */
static int fgl__view_prepare(fgl_view *v, int k, fgl_error *err) {
    int n = v->count[k], B = v->eval_batch, nb = (n + B - 1) / B, b, rc;
    v->prep_b[k] = (fgl_batch *)FGL_MALLOC(sizeof(fgl_batch) * (size_t)FGL__MAX(nb, 1));
    v->prep_g[k] = (fgl_gnn_graph *)FGL_MALLOC(sizeof(fgl_gnn_graph) * (size_t)FGL__MAX(nb, 1));
    if (!v->prep_b[k] || !v->prep_g[k]) return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", v->graphs->name);
    for (b = 0; b < nb; b++) {
        int i0 = b * B, m = FGL__MIN(B, n - i0);
        fgl_batch_init(&v->prep_b[k][b]);
        memset(&v->prep_g[k][b], 0, sizeof(fgl_gnn_graph));
        v->n_prep[k] = b + 1;
        if ((rc = fgl_batch_make(v->graphs, v->ids[k] + i0, m, &v->prep_b[k][b], err)) ||
            (rc = fgl_gnn_graph_from_batch(&v->prep_g[k][b], &v->prep_b[k][b], &v->spec, err)))
            return rc;
    }
    return FGL_OK;
}

FGLDEF int fgl_view_init(fgl_view *v, fgl_node_data *node, fgl_graph_set *graphs, const fgl_model_spec *spec,
                         int eval_batch, fgl_error *err) {
    int k, i, rc = FGL_OK;
    memset(v, 0, sizeof *v);
    if ((node == NULL) == (graphs == NULL))
        return fgl_error_set(err, FGL_ERR_ARG, "view: give exactly one of node data or a graph set");
    v->spec = *spec;
    v->eval_batch = eval_batch > 0 ? eval_batch : 512;
    if (node) {
        int n = node->n_nodes;
        v->task = FGL_TASK_NODE;
        v->node = node;
        if (!node->split)
            return fgl_error_set(err, FGL_ERR_ARG, "%s: node data without a train/val/test split", node->name);
        for (k = 1; k < 4; k++) {
            v->mask[k] = (unsigned char *)FGL_MALLOC((size_t)FGL__MAX(n, 1));
            if (!v->mask[k]) {
                rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", node->name);
                goto fail;
            }
            for (i = 0; i < n; i++) {
                v->mask[k][i] = node->y[i] >= 0 && node->split[i] == k;
                v->count[k] += v->mask[k][i];
            }
        }
        if ((rc = fgl_gnn_graph_from_node_data(&v->full, node, spec, err))) goto fail;
        return FGL_OK;
    }
    v->task = FGL_TASK_GRAPH;
    v->graphs = graphs;
    if (!graphs->split)
        return fgl_error_set(err, FGL_ERR_ARG, "%s: graph set without a train/val/test split", graphs->name);
    if (!graphs->x || graphs->n_feat <= 0)
        return fgl_error_set(err, FGL_ERR_ARG, "%s: graph set without node features", graphs->name);
    for (k = 1; k < 4; k++) {
        v->count[k] = fgl_split_indices(graphs->split, graphs->n_graphs, k, NULL);
        v->ids[k] = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(v->count[k], 1));
        if (!v->ids[k]) {
            rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", graphs->name);
            goto fail;
        }
        fgl_split_indices(graphs->split, graphs->n_graphs, k, v->ids[k]);
    }
    if ((rc = fgl__view_prepare(v, FGL_SPLIT_VAL, err)) || (rc = fgl__view_prepare(v, FGL_SPLIT_TEST, err))) goto fail;
    return FGL_OK;
fail:
    fgl_view_free(v);
    return rc;
}

FGLDEF int fgl_view_init_link(fgl_view *v, fgl_node_data *node, const fgl_link_split *link, const fgl_model_spec *spec,
                              fgl_error *err) {
    int k, rc;
    memset(v, 0, sizeof *v);
    if (!node || !link) return fgl_error_set(err, FGL_ERR_ARG, "view: a link task needs node data and its edge split");
    if (link->n_nodes != node->n_nodes || link->adj.rows != node->n_nodes)
        return fgl_error_set(err, FGL_ERR_SHAPE, "%s: the edge split is of %d nodes, the data has %d", node->name,
                             link->n_nodes, node->n_nodes);
    v->spec = *spec;
    v->task = FGL_TASK_LINK;
    v->node = node;
    v->link = link;
    for (k = 1; k < 4; k++) v->count[k] = link->n_pos[k];
    rc = fgl_gnn_graph_make(&v->full, &link->adj, NULL, node->x_sparse.rows ? NULL : node->x.data,
                            node->x_sparse.rows ? &node->x_sparse : NULL,
                            node->n_feat, NULL, 0, NULL, 0, spec, err);
    if (rc) fgl_view_free(v);
    return rc;
}

FGLDEF void fgl_view_begin(fgl_view *v, int which, int batch_size, fgl_view_iter *it) {
    memset(it, 0, sizeof *it);
    it->v = v;
    it->which = which >= 1 && which <= 3 ? which : FGL_SPLIT_TRAIN;
    it->prepared = v->task == FGL_TASK_GRAPH && batch_size <= 0 && v->n_prep[it->which] > 0;
    it->batch = batch_size > 0 ? batch_size : FGL__MAX(v->count[it->which], 1);
    fgl_batch_init(&it->b);
}

FGLDEF void fgl_view_end(fgl_view_iter *it) {
    fgl_gnn_graph_free(&it->g);
    fgl_batch_free(&it->b);
}

FGLDEF int fgl_view_next(fgl_view_iter *it, fgl_view_batch *out, fgl_error *err) {
    fgl_view *v = it->v;
    int k = it->which, rc, m;
    memset(out, 0, sizeof *out);
    if (v->task != FGL_TASK_GRAPH) {
        if (it->pos++ > 0) return 0;
        out->g = &v->full;
        out->labels = v->task == FGL_TASK_NODE ? v->node->y : NULL;
        out->mask = v->mask[k];
        out->n = v->count[k];
        return 1;
    }
    if (it->prepared) {
        const fgl_batch *b;
        if (it->pos >= v->n_prep[k]) return 0;
        b = &v->prep_b[k][it->pos];
        out->g = &v->prep_g[k][it->pos++];
        out->labels = b->y;
        out->n = b->n_graphs;
        return 1;
    }
    if (it->pos >= v->count[k]) return 0;
    fgl_gnn_graph_free(&it->g);
    fgl_batch_free(&it->b);
    m = FGL__MIN(it->batch, v->count[k] - it->pos);
    if ((rc = fgl_batch_make(v->graphs, v->ids[k] + it->pos, m, &it->b, err)) ||
        (rc = fgl_gnn_graph_from_batch(&it->g, &it->b, &v->spec, err)))
        return rc;
    it->pos += m;
    out->g = &it->g;
    out->labels = it->b.y;
    out->n = m;
    return 1;
}

FGLDEF void fgl_view_shuffle(fgl_view *v, int which, fgl_rng *r) {
    if (v->task == FGL_TASK_GRAPH && which >= 1 && which <= 3) fgl_rng_shuffle(r, v->ids[which], v->count[which]);
}

FGLDEF fgl_node *fgl_view_loss(fgl_view *v, fgl_model *m, fgl_tape *t, const fgl_forward *fw,
                               const fgl_view_batch *b, const int *labels, fgl_rng *r) {
    if (v->task == FGL_TASK_LINK) return fgl_link_loss(v->link, m, t, fw, r);
    return fgl_op_cross_entropy(t, fw->logits, labels ? labels : b->labels, b->mask);
}

/* A link task's metrics: one forward pass, every split's pairs scored. */
static int fgl__view_link_metrics(fgl_view *v, fgl_model *m, fgl_tape *t, const int *which, int n, double *score,
                                  double *extra) {
    const fgl_link_split *ls = v->link;
    fgl_forward fw;
    int q;
    fgl_tape_reset(t);
    if (fgl_model_forward(m, t, &v->full, 0, NULL, &fw) || !fw.logits) return t->err.code ? t->err.code : FGL_ERR_ARG;
    for (q = 0; q < n; q++) {
        int k = which[q] >= 1 && which[q] <= 3 ? which[q] : FGL_SPLIT_TEST, P = ls->n_pos[k], N = ls->n_neg[k];
        fgl_node *s = fgl_link_scores(m, t, &fw, ls->src[k], ls->dst[k], P + N, 0, NULL);
        if (!s) return t->err.code ? t->err.code : FGL_ERR_ARG;
        score[q] = fgl_link_auc(s->val, P, s->val + P, N);
        if (extra) extra[q] = fgl_link_hits(s->val, P, s->val + P, N, ls->hits_k);
    }
    return FGL_OK;
}

FGLDEF int fgl_view_metrics(fgl_view *v, fgl_model *m, fgl_tape *t, const int *which, int n, double *score,
                            double *extra) {
    int q;
    if (v->task == FGL_TASK_LINK) return fgl__view_link_metrics(v, m, t, which, n, score, extra);
    for (q = 0; extra && q < n; q++) extra[q] = NAN;
    return fgl_view_accuracy(v, m, t, which, n, score);
}

FGLDEF int fgl_class_metrics(const float *sc, int n, int C, const int *y, const unsigned char *mask, double *f1,
                             double *auc) {
    int *cnt, i, k, total = 0, present = 0, n_pos = 0, n_neg = 0;
    float *s = NULL;
    if (f1) *f1 = NAN;
    if (auc) *auc = NAN;
    if (n <= 0 || C < 1) return FGL_OK;
    if (!(cnt = (int *)FGL_MALLOC(sizeof(int) * 3 * (size_t)C))) return FGL_ERR_NOMEM; /* TP, predicted, support */
    memset(cnt, 0, sizeof(int) * 3 * (size_t)C);
    for (i = 0; i < n; i++) {
        const float *r = sc + (size_t)i * (size_t)C;
        int best = 0;
        if ((mask && !mask[i]) || y[i] < 0 || y[i] >= C) continue;
        for (k = 1; k < C; k++)
            if (r[k] > r[best]) best = k;
        cnt[y[i]] += best == y[i];
        cnt[C + best]++;
        cnt[2 * C + y[i]]++;
        total++;
    }
    if (f1 && total) {
        double sum = 0;
        for (k = 0; k < C; k++)
            if (cnt[2 * C + k] > 0) { /* 2 TP / (2 TP + FP + FN) = 2 TP / (predicted + support) */
                sum += 2.0 * cnt[k] / ((double)cnt[C + k] + (double)cnt[2 * C + k]);
                present++;
            }
        *f1 = sum / present;
    }
    if (auc && C == 2 && total && cnt[2 * C] > 0 && cnt[2 * C + 1] > 0) {
        if (!(s = (float *)FGL_MALLOC(sizeof(float) * (size_t)total))) {
            FGL_FREE(cnt);
            if (f1) *f1 = NAN;
            return FGL_ERR_NOMEM;
        }
        n_pos = cnt[2 * C + 1];
        k = 0;
        for (i = 0; i < n; i++) { /* positives first, then the negatives */
            const float *r = sc + (size_t)i * 2;
            if ((mask && !mask[i]) || y[i] < 0 || y[i] >= 2) continue;
            if (y[i] == 1) s[k++] = r[1] - r[0];
            else s[n_pos + n_neg++] = r[1] - r[0];
        }
        *auc = fgl_link_auc(s, n_pos, s + n_pos, n_neg);
        FGL_FREE(s);
    }
    FGL_FREE(cnt);
    return FGL_OK;
}

/* Rows of logits scored as fgl_model_evaluate scores them: hits, counted. */
static void fgl__view_hits(const fgl_node *lg, const int *labels, const unsigned char *mask, int *ok, int *total) {
    int i, j;
    *ok = *total = 0;
    for (i = 0; i < lg->rows; i++) {
        const float *row = lg->val + (size_t)i * lg->cols;
        int best = 0;
        if ((mask && !mask[i]) || labels[i] < 0) continue;
        for (j = 1; j < lg->cols; j++)
            if (row[j] > row[best]) best = j;
        *ok += best == labels[i];
        (*total)++;
    }
}

/* A graph task's split: the accuracy as fgl_view_accuracy sums it, the
 * batches' logits gathered for fgl_class_metrics. */
static int fgl__view_graph_class(fgl_view *v, fgl_model *m, fgl_tape *t, int which, double *acc, double *f1,
                                 double *auc) {
    fgl_view_iter it;
    fgl_view_batch b;
    double correct = 0;
    int total = 0, rc, C = v->spec.out_dim, n_rows = 0, cap = v->count[which >= 1 && which <= 3 ? which : 1];
    float *sc = (float *)FGL_MALLOC(sizeof(float) * (size_t)FGL__MAX(cap, 1) * (size_t)FGL__MAX(C, 1));
    int *y = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(cap, 1));
    if (!sc || !y) {
        FGL_FREE(sc);
        FGL_FREE(y);
        return FGL_ERR_NOMEM;
    }
    fgl_view_begin(v, which, 0, &it);
    while ((rc = fgl_view_next(&it, &b, NULL)) > 0) {
        fgl_forward out;
        int ok, cnt, i;
        fgl_tape_reset(t);
        if (fgl_model_forward(m, t, b.g, 0, NULL, &out) || !out.logits) {
            rc = t->err.code ? t->err.code : FGL_ERR_ARG;
            break;
        }
        fgl__view_hits(out.logits, b.labels, NULL, &ok, &cnt);
        /* as fgl_view_accuracy: a weighted mean of batch accuracies (fgl_model_evaluate's) */
        correct += (cnt ? (double)ok / cnt : 0.0) * b.n;
        total += b.n;
        for (i = 0; i < out.logits->rows && out.logits->cols == C; i++) {
            if (b.labels[i] < 0 || n_rows >= cap) continue;
            memcpy(sc + (size_t)n_rows * (size_t)C, out.logits->val + (size_t)i * (size_t)C, sizeof(float) * (size_t)C);
            y[n_rows++] = b.labels[i];
        }
    }
    fgl_view_end(&it);
    if (rc >= 0) {
        *acc = total ? correct / total : 0.0;
        rc = fgl_class_metrics(sc, n_rows, C, y, NULL, f1, auc);
    }
    FGL_FREE(sc);
    FGL_FREE(y);
    return rc < 0 ? rc : FGL_OK;
}

FGLDEF int fgl_view_class_metrics(fgl_view *v, fgl_model *m, fgl_tape *t, const int *which, int n, double *score,
                                  double *extra, double *f1, double *auc) {
    int q, rc;
    for (q = 0; q < n; q++) {
        if (f1) f1[q] = NAN;
        if (auc) auc[q] = NAN;
    }
    if (v->task == FGL_TASK_LINK || (!f1 && !auc)) return fgl_view_metrics(v, m, t, which, n, score, extra);
    for (q = 0; extra && q < n; q++) extra[q] = NAN;
    if (v->task == FGL_TASK_NODE) { /* one forward pass scores every split */
        fgl_forward out;
        fgl_tape_reset(t);
        if (fgl_model_forward(m, t, &v->full, 0, NULL, &out) || !out.logits) return t->err.code ? t->err.code : FGL_ERR_ARG;
        for (q = 0; q < n; q++) {
            const unsigned char *mask = v->mask[which[q] >= 1 && which[q] <= 3 ? which[q] : 1];
            int ok, total;
            fgl__view_hits(out.logits, v->node->y, mask, &ok, &total);
            score[q] = total ? (double)ok / total : 0.0; /* as fgl_model_evaluate */
            if ((rc = fgl_class_metrics(out.logits->val, out.logits->rows, out.logits->cols, v->node->y, mask,
                                        f1 ? f1 + q : NULL, auc ? auc + q : NULL)))
                return rc;
        }
        return FGL_OK;
    }
    for (q = 0; q < n; q++)
        if ((rc = fgl__view_graph_class(v, m, t, which[q], score + q, f1 ? f1 + q : NULL, auc ? auc + q : NULL)))
            return rc;
    return FGL_OK;
}

FGLDEF int fgl_view_accuracy(fgl_view *v, fgl_model *m, fgl_tape *t, const int *which, int n, double *acc) {
    int q, rc;
    if (v->task == FGL_TASK_LINK) return fgl__view_link_metrics(v, m, t, which, n, acc, NULL);
    if (v->task == FGL_TASK_NODE) { /* one forward pass scores every split */
        const unsigned char *masks[4];
        for (q = 0; q < n && q < 4; q++) masks[q] = v->mask[which[q] >= 1 && which[q] <= 3 ? which[q] : 1];
        return fgl_model_evaluate(m, t, &v->full, v->node->y, masks, FGL__MIN(n, 4), acc, NULL, NULL);
    }
    for (q = 0; q < n; q++) {
        fgl_view_iter it;
        fgl_view_batch b;
        double correct = 0;
        int total = 0;
        fgl_view_begin(v, which[q], 0, &it);
        while ((rc = fgl_view_next(&it, &b, NULL)) > 0) {
            double a;
            if ((rc = fgl_model_evaluate(m, t, b.g, b.labels, NULL, 1, &a, NULL, NULL))) break;
            /* as a weighted mean of batch accuracies, the order fgl has always summed in */
            correct += a * b.n;
            total += b.n;
        }
        fgl_view_end(&it);
        if (rc < 0) return rc;
        acc[q] = total ? correct / total : 0.0;
    }
    return FGL_OK;
}

/* --- src/gnn/save.h --- */
/* --- save / load ---------------------------------------------------------------- */

#define FGL__MODEL_MAGIC "FGLM"


static void fgl__put_f(fgl_bytes *b, float v) { fgl_bytes_put_f32s(b, &v, 1); }

FGLDEF void fgl_model_write(const fgl_model *m, fgl_bytes *b) {
    const fgl_model_spec *s = &m->spec;
    int ints[16], i;
    ints[0] = s->arch; ints[1] = s->task; ints[2] = s->in_dim; ints[3] = s->hidden; ints[4] = s->out_dim;
    ints[5] = s->layers; ints[6] = s->readout; ints[7] = s->head; ints[8] = s->input_proj; ints[9] = s->batch_norm;
    ints[10] = s->learn_eps; ints[11] = s->heads; ints[12] = s->sgc_hops; ints[13] = s->pe_dim; ints[14] = s->masked;
    ints[15] = s->norm_rep;
    for (i = 0; i < 16; i++) fgl_bytes_put_u32(b, (uint32_t)ints[i]);
    fgl__put_f(b, s->dropout);
    fgl__put_f(b, s->input_dropout);
    fgl__put_f(b, s->gcnii_alpha);
    fgl__put_f(b, s->gcnii_lambda);
    fgl__put_f(b, s->mask_prune);
    fgl__put_f(b, s->bn_momentum);
    fgl__put_f(b, s->bn_eps);
    fgl_bytes_put_u32(b, (uint32_t)s->residual);
    fgl_bytes_put_u32(b, (uint32_t)s->norm);
    fgl_params_write(&m->params, b);
}

/* Reads a model written as file format `version` (2 has no norm_rep, 2 and
 * 3 no residual and norm: 0).
 * Everything the spec says is checked before the model is built (its flags,
 * floats and fgl_model_spec_check), then the parameter set it implies is
 * counted without allocating and compared with the bytes left: only a spec
 * the payload can back is built. m is replaced only on success. */
static int fgl__model_read(fgl_model *m, fgl_reader *r, unsigned version, fgl_error *err) {
    static const char *flag_names[5] = {"input_proj", "batch_norm", "learn_eps", "masked", "norm_rep"};
    static const int flag_at[5] = {8, 9, 10, 14, 15};
    static const char *float_names[7] = {"dropout", "input_dropout", "gcnii_alpha", "gcnii_lambda",
                                         "mask_prune", "bn_momentum", "bn_eps"};
    fgl_model_spec s;
    int ints[16], i, rc, n_ints = version >= 3 ? 16 : 15, residual = 0, norm = FGL_NORM_NONE;
    float fl[7];
    fgl_model tmp;
    fgl_layer_slots scratch[2 * FGL_MAX_LAYERS];
    fgl__builder count;
    fgl_error why;
    uint64_t need;
    size_t left;
    ints[15] = 0;
    for (i = 0; i < n_ints; i++) ints[i] = (int)fgl_reader_u32(r);
    fgl_reader_f32s(r, fl, 7);
    if (version >= 4) {
        residual = (int)fgl_reader_u32(r);
        norm = (int)fgl_reader_u32(r);
    }
    if (r->err) return fgl_error_set(err, FGL_ERR_FORMAT, "model: truncated spec");
    if ((residual != 0 && residual != 1) || norm < FGL_NORM_NONE || norm > FGL_NORM_BATCH)
        return fgl_error_set(err, FGL_ERR_FORMAT, "model: stored residual = %d (0 or 1), norm = %d (0..2)", residual,
                             norm);
    for (i = 0; i < 5; i++)
        if (ints[flag_at[i]] != 0 && ints[flag_at[i]] != 1)
            return fgl_error_set(err, FGL_ERR_FORMAT, "model: stored flag %s = %d, expected 0 or 1", flag_names[i],
                                 ints[flag_at[i]]);
    for (i = 0; i < 7; i++)
        if (!fgl_all_finite(1, &fl[i]))
            return fgl_error_set(err, FGL_ERR_FORMAT, "model: stored %s is %g, not a finite number", float_names[i],
                                 (double)fl[i]);
    memset(&s, 0, sizeof s);
    s.arch = ints[0]; s.task = ints[1]; s.in_dim = ints[2]; s.hidden = ints[3]; s.out_dim = ints[4];
    s.layers = ints[5]; s.readout = ints[6]; s.head = ints[7]; s.input_proj = ints[8]; s.batch_norm = ints[9];
    s.learn_eps = ints[10]; s.heads = ints[11]; s.sgc_hops = ints[12]; s.pe_dim = ints[13]; s.masked = ints[14];
    s.dropout = fl[0]; s.input_dropout = fl[1]; s.gcnii_alpha = fl[2]; s.gcnii_lambda = fl[3];
    s.mask_prune = fl[4]; s.bn_momentum = fl[5]; s.bn_eps = fl[6];
    s.norm_rep = ints[15];
    s.residual = residual;
    s.norm = norm;
    if (fgl_model_spec_check(&s, &why) != FGL_OK)
        return fgl_error_set(err, FGL_ERR_FORMAT, "model: invalid stored spec: %s",
                             strncmp(why.msg, "model: ", 7) == 0 ? why.msg + 7 : why.msg);
    memset(&tmp, 0, sizeof tmp);
    memset(&count, 0, sizeof count);
    tmp.spec = s;
    tmp.conv = scratch; /* counting writes the slots too */
    tmp.sconv = scratch + FGL_MAX_LAYERS;
    count.m = &tmp;
    count.count_only = 1;
    fgl__build_layout(&count);
    /* fgl_params_write: slice count, slice headers, 4 bytes per float */
    need = 4 + count.n_header_bytes + 4 * count.n_floats;
    left = r->len - r->pos;
    if (need > (uint64_t)left)
        return fgl_error_set(err, FGL_ERR_FORMAT,
                             "model: the stored spec (%s, in_dim %d, hidden %d, out_dim %d, %d layers) implies %llu "
                             "parameters (%llu bytes), but %zu bytes remain",
                             fgl_arch_name(s.arch), s.in_dim, s.hidden, s.out_dim, s.layers,
                             (unsigned long long)count.n_floats, (unsigned long long)need, left);
    if ((rc = fgl_model_init(&tmp, &s, 0, err))) return rc;
    if ((rc = fgl_params_read(&tmp.params, r, err))) {
        fgl_model_free(&tmp);
        return rc;
    }
    fgl_model_free(m);
    *m = tmp;
    return FGL_OK;
}

FGLDEF int fgl_model_read(fgl_model *m, fgl_reader *r, fgl_error *err) {
    return fgl__model_read(m, r, FGL__MODEL_VERSION, err);
}

FGLDEF int fgl_model_save(const fgl_model *m, const char *path, fgl_error *err) {
    fgl_bytes b;
    size_t mark;
    int rc;
    fgl_bytes_init(&b);
    fgl_frame_begin(&b, FGL__MODEL_MAGIC, FGL__MODEL_VERSION, &mark);
    fgl_model_write(m, &b);
    fgl_frame_end(&b, mark);
    rc = b.err ? fgl_error_set(err, b.err, "%s: out of memory serialising the model", path)
               : fgl_file_write(path, b.data, b.len, err);
    fgl_bytes_free(&b);
    return rc;
}

FGLDEF int fgl_model_load(fgl_model *m, const char *path, fgl_error *err) {
    unsigned char *data;
    size_t len;
    fgl_reader r;
    int rc = fgl_file_read(path, &data, &len, err);
    if (rc) return rc;
    rc = fgl_frame_open(data, len, FGL__MODEL_MAGIC, FGL__MODEL_VERSION, &r, path, NULL);
    if (!rc) rc = fgl__model_read(m, &r, FGL__MODEL_VERSION, err);
    else if (!fgl_frame_open(data, len, FGL__MODEL_MAGIC, 3u, &r, path, NULL)) rc = fgl__model_read(m, &r, 3u, err);
    else if (!fgl_frame_open(data, len, FGL__MODEL_MAGIC, 2u, &r, path, NULL)) rc = fgl__model_read(m, &r, 2u, err);
    else rc = fgl_frame_open(data, len, FGL__MODEL_MAGIC, FGL__MODEL_VERSION, &r, path, err); /* the error */
    if (rc && err && strncmp(err->msg, path, strlen(path)) != 0) { /* name the file */
        char msg[FGL_ERROR_MSG_LEN];
        snprintf(msg, sizeof msg, "%s", err->msg);
        fgl_error_set(err, rc, "%s: %s", path, msg);
    }
    FGL_FREE(data);
    return rc;
}

/* --- src/gnn/gae.h --- */
/* --- the dense graph auto-encoder ------------------------------------------------ */

FGLDEF void fgl_dense_gcn_norm(const float *a, int k, float *out) {
    int i, j;
    double *d = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(k, 1));
    if (!d) return;
    for (i = 0; i < k; i++) {
        double s = 1.0; /* the self loop */
        for (j = 0; j < k; j++)
            if (j != i) s += a[(size_t)i * k + j];
        d[i] = s > 0 ? 1.0 / sqrt(s) : 0.0;
    }
    for (i = 0; i < k; i++)
        for (j = 0; j < k; j++) {
            double w = i == j ? 1.0 : a[(size_t)i * k + j];
            out[(size_t)i * k + j] = (float)(d[i] * w * d[j]);
        }
    FGL_FREE(d);
}

FGLDEF void fgl_gae_reset(fgl_gae *g, uint64_t seed, int norm) {
    fgl_params *ps = &g->params;
    fgl_rng r;
    fgl_rng_init(&r, seed, 0x676165ull); /* "gae" */
    fgl_params_fan_in_uniform(ps, g->w1, g->hidden, &r); /* U(+-1/sqrt(out)), the authors' GraphConvolution */
    fgl_params_fan_in_uniform(ps, g->b1, g->hidden, &r);
    fgl_params_fan_in_uniform(ps, g->w2, g->out_dim, &r);
    fgl_params_fan_in_uniform(ps, g->b2, g->out_dim, &r);
    if (norm) {
        fgl_params_fill(ps, g->ln_g, 1.0f);
        fgl_params_fill(ps, g->ln_b, 0.0f);
    }
}

FGLDEF int fgl_gae_init(fgl_gae *g, int in_dim, int hidden, int out_dim, uint64_t seed) {
    fgl_params *ps = &g->params;
    memset(g, 0, sizeof *g);
    if (in_dim <= 0 || hidden <= 0 || out_dim <= 0) return FGL_ERR_ARG;
    g->in_dim = in_dim;
    g->hidden = hidden;
    g->out_dim = out_dim;
    fgl_params_init(ps);
    if ((g->w1 = fgl_params_add(ps, "gae.w1", in_dim, hidden, FGL_G_CONV, 1)) < 0 ||
        (g->b1 = fgl_params_add(ps, "gae.b1", 1, hidden, FGL_G_CONV, 1)) < 0 ||
        (g->ln_g = fgl_params_add(ps, "gae.ln_g", 1, hidden, FGL_G_NORM, 1)) < 0 ||
        (g->ln_b = fgl_params_add(ps, "gae.ln_b", 1, hidden, FGL_G_NORM, 1)) < 0 ||
        (g->w2 = fgl_params_add(ps, "gae.w2", hidden, out_dim, FGL_G_CONV, 1)) < 0 ||
        (g->b2 = fgl_params_add(ps, "gae.b2", 1, out_dim, FGL_G_CONV, 1)) < 0) {
        fgl_params_free(ps);
        return FGL_ERR_NOMEM;
    }
    fgl_gae_reset(g, seed, 1);
    return FGL_OK;
}

FGLDEF void fgl_gae_free(fgl_gae *g) { fgl_params_free(&g->params); }

FGLDEF fgl_node *fgl_gae_forward(fgl_gae *g, fgl_tape *t, const float *a, const float *x, int k,
                                 fgl_node **logits) {
    fgl_params *ps = &g->params;
    fgl_node *A = fgl_op_const(t, a, k, k), *X = fgl_op_const(t, x, k, g->in_dim), *h, *z;
    h = fgl_op_bias(t, fgl_op_matmul(t, A, fgl_op_matmul(t, X, fgl_op_param(t, ps, g->w1))),
                    fgl_op_param(t, ps, g->b1));
    h = fgl_op_relu(t, fgl_op_layer_norm(t, h, fgl_op_param(t, ps, g->ln_g), fgl_op_param(t, ps, g->ln_b), 1e-5f));
    z = fgl_op_bias(t, fgl_op_matmul(t, A, fgl_op_matmul(t, h, fgl_op_param(t, ps, g->w2))),
                    fgl_op_param(t, ps, g->b2));
    if (logits) *logits = fgl_op_matmul_ex(t, z, 0, z, 1);
    return z;
}

FGLDEF fgl_node *fgl_gae_loss(fgl_tape *t, fgl_node *logits, float size_weight) {
    fgl_node *p = fgl_op_sigmoid(t, logits);
    fgl_node *q = fgl_op_affine(t, p, -1.0f, 1.0f); /* 1 - p */
    fgl_node *ent = fgl_op_add(t, fgl_op_mul(t, p, fgl_op_log(t, fgl_op_affine(t, p, 1.0f, 1e-6f))),
                               fgl_op_mul(t, q, fgl_op_log(t, fgl_op_affine(t, q, 1.0f, 1e-6f))));
    fgl_node *size = fgl_op_log(t, fgl_op_affine(t, q, 1.0f, 1e-6f));
    return fgl_op_scale(t, fgl_op_add(t, fgl_op_mean(t, ent), fgl_op_scale(t, fgl_op_mean(t, size), size_weight)),
                        -1.0f);
}

FGLDEF int fgl_gae_fit(fgl_gae *g, fgl_optim *o, fgl_tape *t, const float *a, const float *x, int k, int steps,
                       float size_weight, float *S, double *loss) {
    fgl_node *logits, *l;
    int step;
    if (loss) *loss = NAN;
    for (step = 0; step < steps; step++) {
        fgl_tape_reset(t);
        fgl_params_zero_grad(&g->params);
        fgl_gae_forward(g, t, a, x, k, &logits);
        l = fgl_gae_loss(t, logits, size_weight);
        if (fgl_tape_backward(t, l)) return t->err.code;
        if (loss) *loss = l->val[0];
        fgl_optim_step(o, &g->params);
    }
    fgl_tape_reset(t);
    fgl_gae_forward(g, t, a, x, k, &logits);
    if (!logits || t->err.code) return t->err.code ? t->err.code : FGL_ERR_ARG;
    if (S) memcpy(S, logits->val, sizeof(float) * (size_t)k * (size_t)k);
    fgl_tape_reset(t);
    return FGL_OK;
}
#ifdef __cplusplus
}
#endif
#endif /* FGL_IMPLEMENTATION */
