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

/* fgl:private */
#if (defined(FGL_IMPLEMENTATION) || defined(FGL_TEST_PRIVATE)) && !defined(FGL_GNN_H_PRIVATE)
#define FGL_GNN_H_PRIVATE /* private declarations: see fgl.h's */
#ifdef __cplusplus
extern "C" {
#endif

/* fgl:implementation */
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

