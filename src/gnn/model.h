#include "../alone.h" /* (this file alone: src/alone.h) */
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

/* fgl:implementation */
#include "../alone.h"
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

#include "../alone.h"
