/* fgl_fed.h - the federated runtime and its aggregation algorithms.
 *
 * Part of fgl (see README.md). Builds on fgl_gnn.h, fgl_graph.h and fgl.h.
 *
 * THE CONTRACT IN ONE PAGE
 * A run has K clients and one server. A client owns its data (a subgraph
 * for node classification, or a set of graphs; seen through an fgl_view), a
 * model built from its own spec, an optimizer whose state persists across
 * rounds, an RNG stream, and the algorithm's client state. The server owns
 * the algorithm's server state. Hooks see one side only: a client hook gets
 * its fgl_client (its model, data, state, the last download, read-only, and
 * this round's upload), a server hook gets the fgl_server (its state, the
 * round's accepted uploads, read-only, and the downloads it builds); the
 * types say so (THE SIDES ARE APART below). One round:
 *   1. every sampled client trains locally (in parallel, one client per
 *      thread; a client large enough, or the only one, alone with every
 *      thread inside its products) and fills its upload;
 *   2. the runtime validates each upload: every declared part present with
 *      its declared size, every value finite, the sample count positive and
 *      at most what the client registered (on the thread that built the
 *      upload, as soon as it is final). A rejected upload is absent from
 *      the server's view (fgl_upload returns NULL) and counted against that
 *      client;
 *   3. the server aggregates, the runtime builds one download per client
 *      from the declared parts, checks each against its declaration, loads
 *      model parts into the client's model and calls the client's receive
 *      hook;
 *   4. each client is evaluated on its validation and test data, after its
 *      local training (cfg.eval_after_train, the node-task default, as
 *      FED-PUB's code) or after applying the download (graph tasks, as
 *      FedStar's code).
 * In the runtime these are stages (fgl_run_round, src/fed/stages.h: begin,
 * train, arrive, accept, sum, aggregate, sample, broadcast, evaluate,
 * record), and the defences, attacks, DP, secure aggregation and the
 * integrity checks are plug-ins that join them, one file each
 * (src/fed/plugins/; docs/layout.md draws the round).
 *
 * MESSAGES ARE DECLARED ONCE. An algorithm lists its upload and download
 * parts by name, with what they hold and a size rule:
 *       fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, FGL_DIM_SHARED, 1, 0);
 *       fgl_algo_upload(&a, "n", FGL_SEND_WEIGHT, 1, 1, 0);
 *       fgl_algo_download(&a, "theta", FGL_SEND_MODEL, FGL_DIM_SHARED, 1, 0, "global");
 * The runtime derives from that the expected sizes, validation, exact byte
 * accounting (4 bytes a float, round 0 also carries the initial broadcast)
 * and named access (fgl_up, fgl_down, fgl_upload; the declared sizes:
 * fgl_up_size, fgl_server_up_size, fgl_server_down_size). It fills the standard
 * contents itself: FGL_SEND_MODEL packs the shared parameter groups of the
 * client's model (and loads them on the way down), FGL_SEND_DELTA their
 * change since the download, FGL_SEND_WEIGHT the training-sample count that
 * weights means. A download part naming a server buffer ("global") is sent
 * as it is, or one row of it per client with FGL_PART_ROW; other parts are
 * written by the algorithm's download hook. The shared groups are the value
 * of the algorithm's first group-list parameter ("share"), less the slices
 * whose groups meet its group-list parameter "keep" if it declares one
 * (FedBN keeps the batch norm local: src/fed/algo.h). A size may also
 * depend on the client (FGL_DIM_NODES: its node count, for uploads; the
 * server reads each client's with fgl_upload_size) or on an integer
 * parameter (fgl_algo_param_dim): pFedGNN uploads n_i x K_a anchor
 * distances once. An optional upload part costs memory only once written
 * (fgl_up) and until dropped (fgl_up_drop). A model part whose shared
 * groups lie in one run of the parameters is not copied: it views the
 * client's parameters, is copied only for a writer (fgl_up, an attack, DP
 * clipping, secure aggregation's masking), and ends (is absent) when the
 * client receives its next download. So after local training an upload
 * hook changes the client's model only through fgl_up, never c->model's
 * parameters directly, and a program reading uploads does so in the round
 * (a server hook: fgl_upload), not after it.
 *
 * THE SIDES ARE APART BY THEIR TYPES. A message's parts are const (fgl_msg:
 * `const float *part[]`): a client reads its download (c->down, fgl_down,
 * fgl_received) and the server the accepted uploads (s->up, fgl_upload)
 * but neither can write them, and `c->down.part[0][0] = 42` does not
 * compile. Each side writes only its own messages: the client through
 * fgl_up, the server's download hook through fgl_download_part. A client
 * that wants to change what it received writes a copy (fgl_down_copy:
 * scratch memory until the hook returns; what must last goes into its
 * store). In one process a download part views the server's buffer (one
 * buffer for every client sent the same part) and an upload's model part
 * the client's parameters; over MPI both are copies. So a hook that casts
 * the const away and writes anyway would change the other side in one and
 * not in the other: the runtime checksums what a hook of the program's own
 * can reach and checks it after the hook (a client's download after
 * receive, the local training, upload and eval_model; the accepted uploads
 * after aggregate) and fails the run naming the client and the hook, in
 * one process and under MPI alike. The built-in algorithms' hooks never
 * cast and are not checked; a program's hooks pay a pass over a message
 * per check, no copy (README, "Writing an algorithm"). Observers
 * (fgl_algo.report, .client_matrix) get a read-only summary of the run
 * (fgl_observed), not the run.
 *
 * PUBLIC DATA. fgl_run_set_public gives the server data no client holds
 * (fgl_scenario.pub: nodes withheld from every client); server hooks read
 * it as s->pub, clients get only what a download sends.
 *
 * STATE IS ASKED OF THE RUNTIME. fgl_new_floats(&c->store, "ci", m) (in a
 * client_init or server_init hook) returns zeroed memory that the runtime
 * checkpoints and frees; fgl_floats(&c->store, "ci") finds it again. Models,
 * optimizers and parameter sets come the same way; fgl_new_scratch holds
 * what is rebuilt from the seed (not checkpointed) and fgl_scratch gives
 * temporary memory until the hook returns. A resumed run ends with the same
 * bits as an uninterrupted one because everything that persists is
 * registered. The built-in algorithms keep a struct of pointers to their
 * entries, made in the init hook (FGL_NEW_STATE) and read by member in the
 * later hooks (FGL_STATE), and read their parameters as the members of a
 * struct the runtime fills from the rows that declare them (FGL_ALGO_PARAM,
 * FGL_PARAMS): a misspelt name is a compile error (src/fed/algos/fedopt.h
 * is a short example).
 *
 * IDLE CLIENTS MAY BE PACKED. With cfg.park_idle and partial participation
 * (cfg.frac < 1), a client out of the next round gives the runtime its
 * registered models, parameter sets and optimizers to pack (blocks of zeros
 * or of the initial model take a byte) and frees its gradients and upload
 * buffers (its tape's arena goes to the run, which lends it to the next
 * client that trains or evaluates: no new memory per draw); it gets them
 * back, bit for bit, before it receives, trains
 * or is evaluated, and checkpoints read them packed. Hooks never see a packed
 * client; a program reading an idle client's model calls fgl_run_unpark
 * first, or copies its parameters with fgl_run_client_params (which leaves
 * it packed; observers do it with fgl_observed_params, as FED-PUB's report
 * of its masks).
 * Memory then follows the active clients (bench/scale.sh).
 *
 * SERVER STEPS ARE LIBRARY CALLS: fgl_server_mean (the sample-weighted mean
 * of an upload part), fgl_server_mix (personalised mixing: row i of a K x K
 * matrix weights the uploads into client i's model; fgl_server_mix_div also
 * divides each upload by a number of its own, as pFedGraph's normalised
 * models), fgl_server_gather (accepted uploads into the rows of a K x n
 * buffer), fgl_mix_rows (the same mixing of any K x n buffer). The run's
 * defences act inside the first three: a robust rule (cfg.robust) replaces
 * the mean of model weights in fgl_server_mean and applies row by row, with
 * the row's weights, in the mixtures; DP and secure aggregation are defined
 * for fgl_server_mean only, and an algorithm that mixes declares it
 * (fgl_algo.mixes), as it declares an upload its own server code turns
 * into model state (FGL_PART_RAW: gather + fgl_mix_rows, fgl_upload or
 * fgl_server_plain_mean into the models bypasses every defence), so that a
 * run asking for a defence that would not cover it is refused at its start.
 *
 * PRIVACY: cfg.dp is DP-FedAvg (Poisson participation at rate frac, the
 * whole update clipped, the fixed denominator frac K, Gaussian noise;
 * fgl_run_dp_epsilon is its accountant); cfg.secagg is Bonawitz et al.'s
 * secure aggregation (X25519, ChaCha20, Shamir t-of-n, fresh every round,
 * a threshold below which a round is not unmasked). Their secrets come from
 * the operating system's entropy on their owner's side, never from
 * cfg.seed and never saved; cfg.secrets.from_seed derives them from a
 * secret seed, the run seed and cfg.secrets.label (the run's name: give
 * each run of one secret seed its own) for simulations that must repeat.
 *
 * AN ALGORITHM IS A TABLE BUILT BY NAME (valid C99 and C++11):
 *       fgl_algo a = fgl_algo_base("fedavg");          // extend a built-in
 *       a.name = "median";
 *       a.summary = "coordinate-wise median of the clients' parameters";
 *       a.aggregate = median_aggregate;                 // fgl_server *s
 *       fgl_algo_register(&a);                           // now fglrun --algo median works
 * examples/custom_aggregator.c is a complete program.
 *
 * ALGORITHMS (fgl_algo_find(name); `fglrun --algo NAME --help` lists each
 * one's parameters with their published defaults)
 *   local      no communication
 *   fedavg     average of the shared groups (share=all; share=conv: GNN layers
 *              only, as GCFL's and FedStar's code), weighted by samples
 *   fedprox    + mu/2 ||theta - theta_global||^2
 *   fedper     everything but the classifier head
 *   scaffold   control variates c, c_i correct the local gradient
 *   ditto      a personal model pulled towards the global one
 *   moon       model-contrastive term on representations
 *   feddc      local drift h_i with penalty and gradient correction
 *   gcfl       clusters split by a min cut of update similarities; gcflplus
 *              compares sequences of update norms by dynamic time warping
 *   fedamp     personalised cloud models from similarity-weighted averages
 *   pfedgraph  an inferred collaboration graph (a simplex QP per client)
 *   fedproto   per-class prototypes instead of weights; fedtgp trains
 *              global prototypes on the server with an adaptive margin
 *   fedstar    only the structure encoder of a feature/structure decoupled GNN
 *   fedpub     functional-embedding similarity and personal weight masks
 *              (node tasks: GCN; graph tasks: any graph model, e.g. the GIN)
 *   gpfl       a client network learned from graph properties, functional
 *              embeddings and a graph auto-encoder guides personal
 *              aggregation (graph classification)
 *   fedpg      prototypes per class and hop (receptive field 0..H), a server
 *              generator with a per-hop adaptive margin, personalised fusion;
 *              clients may run different backbones
 *   pfedgnn    a one-shot collaboration graph from anchor distances (distance
 *              completion, coarsening L_C = P L_G P^T), personalised mixing
 *   fedavgm, fedadagrad, fedadam, fedyogi  FedAvg's uploads; the server
 *              steps along the mean update with momentum / Adagrad / Adam / Yogi
 *   fedbn      FedAvg less the batch norm, which stays on each client
 *   fedgcn     a one-shot exchange of neighbour features over the cut edges
 *              (a halo of H hops), then FedAvg (node tasks)
 *   fedsage    NeighGen generates missing neighbours across clients, then
 *              FedAvg on the mended subgraphs (node tasks)
 *   adafgl     FedAvg rounds, then an adaptive personalised propagation
 *              on each client in the last round (node tasks)
 *   fedgta     label-propagated prediction moments pick each client's
 *              peers; confidence-weighted personalised mixing (node tasks)
 *   fgssl      FedAvg; local embeddings contrasted class-wise with the global
 *              model's, its neighbour similarities distilled (node tasks)
 *   fedtad     FedAvg, then data-free distillation of the clients' models,
 *              weighted per class by topology-aware reliability, into the
 *              average on a generator's pseudo graphs (node tasks)
 *   fggp       FedAvg plus class prototypes clustered by FINCH on the server;
 *              a kNN second view, prototype alignment and contrast, a vote
 *              of the nearest prototypes predicts (node tasks)
 *
 * READY-MADE FEDERATED DATASETS: fgl_dataset_load (fgl_graph.h) reads a dataset by name
 * and prepares it as the protocols do (row-normalised features, one-hot node
 * labels or degrees, structure encodings); fgl_scenario_make spreads it over
 * clients (METIS-style, Louvain, random, FED-PUB's overlapping split,
 * Dirichlet label skew of graphs or nodes, IID, one dataset per client, a
 * partition the caller gives (FGL_PART_GIVEN: real METIS's, read with
 * fgl_read_partition); optionally withholding public nodes first; the node
 * split inside each client, or with split_global drawn once on the whole
 * graph before partitioning, as FED-PUB's code does); fgl_scenario_clients
 * gives each client a model spec sized to its data (into an array whose
 * size it is told: too small is an error, never an overflow). GPFL's protocol: the
 * soft Dirichlet split with equal client sizes (FGL_PART_DIRICHLET_EQUAL)
 * and stratified k-fold cross-validation inside every client (folds, fold).
 *
 * EXAMPLE: FedProx on Cora over 5 METIS clients (the body of a main(),
 * compiled by make test; README.md's quickstart is the complete program).
 *       fgl_dataset cora; fgl_scenario sc; fgl_client_data cd[5]; fgl_error err;
 *       // dir NULL: the data directory ($FGL_DATA, else ./data, else ~/.local/share/fgl)
 *       if (fgl_dataset_load(&cora, NULL, "Cora", FGL_TASK_NODE, NULL, 0, &err)) {
 *           puts(err.msg); return 1;                        // it says every directory it tried
 *       }
 *       fgl_split_config split = fgl_split_default();       // METIS, 5 clients
 *       if (fgl_scenario_make(&sc, &cora, &split, &err)) { puts(err.msg); return 1; }
 *       fgl_model_spec gcn = fgl_model_spec_default(FGL_ARCH_GCN, FGL_TASK_NODE, 1, 1);
 *       if (fgl_scenario_clients(&sc, &gcn, cd, 5, &err)) { puts(err.msg); return 1; } // a spec per client
 *       fgl_run run;
 *       fgl_fed_config cfg = fgl_fed_default(FGL_TASK_NODE);
 *       if (fgl_run_init(&run, &cfg, fgl_algo_find("fedprox"), cd, 5, &err) ||
 *           fgl_run_set(&run, "mu", "0.01", &err)) { puts(err.msg); return 1; }
 *       for (int r = 0; r < cfg.rounds; r++)
 *           if (fgl_run_round(&run)) { puts(run.err.msg); return 1; }
 *       fgl_run_summary s; fgl_run_summarize(&run, &s);
 *       printf("%.2f%%\n", 100 * s.best_test);
 *       fgl_run_free(&run); fgl_scenario_free(&sc); fgl_dataset_free(&cora);
 *
 * LIFETIMES: fgl_client_data borrows the scenario's data (free the
 * scenario after the run); fgl_run_init copies the algorithm table; an
 * fgl_run must not be copied (it holds pointers into itself).
 */
#ifndef FGL_FED_H
#define FGL_FED_H

#include "fgl_gnn.h"
#ifdef FGL_MPI
#include <limits.h>
#ifndef OMPI_SKIP_MPICXX /* only the C interface is used: not OpenMPI's or MPICH's C++ bindings */
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* fgl:private */
#if (defined(FGL_IMPLEMENTATION) || defined(FGL_TEST_PRIVATE)) && !defined(FGL_FED_H_PRIVATE)
#define FGL_FED_H_PRIVATE /* private declarations: see fgl.h's */
#ifdef __cplusplus
extern "C" {
#endif

/* fgl:implementation */
/* ======================================================================== */
/*                              IMPLEMENTATION                              */
/* ======================================================================== */
#if defined(FGL_IMPLEMENTATION) && !defined(FGL_FED_H_IMPLEMENTED)
#define FGL_FED_H_IMPLEMENTED

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#if !defined(_WIN32) && (defined(__unix__) || defined(__APPLE__))
/* crypto.h's entropy: the character device, read with POSIX calls that
 * declare no feature macro (open, fstat, read, close), and on Linux
 * getrandom(2) where the C library has <sys/random.h> (glibc 2.25, musl
 * 1.1.20); define FGL_NO_GETRANDOM to read the device only. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#if defined(__linux__) && !defined(FGL_NO_GETRANDOM)
#if defined(__has_include)
#if __has_include(<sys/random.h>)
#define FGL__HAVE_GETRANDOM 1
#endif
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 25))
#define FGL__HAVE_GETRANDOM 1
#endif
#endif
#ifdef FGL__HAVE_GETRANDOM
#include <sys/random.h>
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define FGL__NTHREADS(run) ((run)->cfg.threads > 0 ? (run)->cfg.threads : omp_get_max_threads())
/* The threads of a loop over n clients: FGL__NTHREADS, at most one per
 * FGL_PER_THREAD_CLIENT clients (fgl.h's table), at least 1. */
#define FGL__NTHREADS_FOR(run, n) \
    FGL__MAX(1, FGL__MIN(FGL__NTHREADS(run), (int)((n) / FGL_PER_THREAD_CLIENT)))

