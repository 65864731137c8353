/* fgl_fed.h is generated from src/fed by tools/amalgamate: edit src/, then run make. */
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
 * registered.
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
 *       fgl_fed_config cfg = fgl_fed_config_default(FGL_TASK_NODE);
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

/* --- src/fed/config.h --- */
/* ------------------------------------------------------------------------ */
/* Configuration                                                            */
/* ------------------------------------------------------------------------ */

/* Defences, attacks and privacy (docs/algorithms.md, "Robust aggregation,
 * attacks and privacy"). They act on the message parts that carry model
 * weights (FGL_SEND_MODEL, FGL_SEND_DELTA), whose update is the part minus
 * what the client received (a delta is its own update), and the robust
 * rules, DP and secure aggregation replace the mean of such parts in
 * fgl_server_mean: every algorithm whose server averages them (FedAvg,
 * FedProx, FedPer, FedStar, Ditto, MOON, SCAFFOLD, a user's) gets them. The
 * robust rules also act in fgl_server_mix, the personalised mixtures of
 * FED-PUB, FedAMP, pFedGraph and pFedGNN (each row a weighted mean of the
 * uploads); DP and secure aggregation are refused for those and for GPFL.
 * GCFL's cluster means and GPFL's mixture of updates are computed by hand
 * and get none of them; FedPG, FedProto and FedTGP send no weights. */
enum {
    FGL_ROBUST_MEAN,      /* the sample-weighted mean (no defence) */
    FGL_ROBUST_MEDIAN,    /* coordinate-wise median (Yin et al. 2018) */
    FGL_ROBUST_TRIMMED,   /* coordinate-wise mean without the `trim` largest and smallest */
    FGL_ROBUST_KRUM,      /* the upload with the least sum of squared distances to its
                             K - f - 2 nearest others (Blanchard et al. 2017; its guarantee
                             needs K > 2 f + 2, checked when a run is set up: fgl_run_init) */
    FGL_ROBUST_MULTIKRUM, /* the mean of the m best-scored uploads (m <= K - f) */
    FGL_ROBUST_NORMCLIP   /* each update scaled to norm <= clip, then the mean (Sun et al. 2019) */
};

/* A round whose rejections leave too few uploads for trim or f does not
 * fail: the rule falls back and counts it (fgl_server_mix, "Too few
 * uploads"; fgl_round_stats.n_fallback). */
typedef struct fgl_robust_config {
    int rule;            /* FGL_ROBUST_* */
    int trim, f, m;      /* TRIMMED: per side; KRUM / MULTIKRUM: assumed attackers, uploads kept */
    float clip;          /* NORMCLIP: the norm bound */
    float screen;        /* reject (and charge) an upload whose update norm exceeds screen x the
                            median over the round's uploads (3 or more); 0: no screening */
} fgl_robust_config;

enum {
    FGL_ATTACK_NONE,
    FGL_ATTACK_SIGNFLIP,  /* update -> -arg x update (arg 1) */
    FGL_ATTACK_SCALE,     /* update -> arg x update */
    FGL_ATTACK_NOISE,     /* upload + N(0, arg^2) per value */
    FGL_ATTACK_LABELFLIP, /* trains on labels C - 1 - y */
    FGL_ATTACK_NAN,       /* NaN uploads */
    FGL_ATTACK_COUNT,     /* claims arg training samples */
    FGL_ATTACK_ALIE       /* colluding: mean - z std of the round's updates per coordinate,
                             z from the number of clients (Baruch et al. 2019) */
};

/* A simulated attack by a fraction of the clients (chosen from the run seed). */
typedef struct fgl_attack_config {
    int kind;            /* FGL_ATTACK_* */
    double arg;
    float frac;          /* share of the clients that attack */
} fgl_attack_config;

/* Client-level differential privacy, DP-FedAvg as McMahan et al. (2018)
 * define it: every round each client takes part independently with
 * probability q = frac (Poisson sampling, drawn from the run's secrets);
 * each participant's update (every model part it uploads, together) is
 * clipped to L2 norm clip (by the client, and again by the server, so that
 * the bound holds whatever a client sends); the server adds the clipped
 * updates, divides by the fixed q K (K the clients; never the uploads that
 * arrived), and adds Gaussian noise of standard deviation noise clip / (q K)
 * per value, drawn from the run's secrets (never from cfg.seed).
 * fgl_run_dp_epsilon gives the privacy spent: the Renyi DP of the sampled
 * Gaussian mechanism at rate q and multiplier noise. Refused (by fgl_run_init)
 * for an algorithm any of whose uploads would reach the models unclipped
 * or un-noised (a data part, FGL_PART_RAW, per-client mixing). */
typedef struct fgl_dp_config {
    float clip, noise;   /* clip > 0 turns it on; noise: the noise multiplier sigma */
    double delta;        /* the delta epsilon is reported at (1e-5) */
} fgl_dp_config;

/* Secure aggregation (Bonawitz et al. 2017), for an algorithm that uploads
 * its model and its sample count only (FedAvg-like). Every round each
 * participant makes two fresh X25519 key pairs and a self-mask seed from
 * the run's secrets; the server relays the public keys; each participant
 * splits its masking key and its self-mask seed t-of-n (Shamir) among the
 * others, the shares encrypted to each (ChaCha20-Poly1305 under their
 * X25519 shared key) and relayed by the server; each sends
 * (n_i / N) theta_i and n_i / N (N: the training samples all clients
 * registered) in a 32-bit fixed-point ring, plus its self-mask and plus or
 * minus one mask per peer (ChaCha20 streams keyed by the pair's X25519
 * secret), which cancel in the sum. When the uploads are in, the survivors
 * reveal, for each peer, its self-mask share if the peer's upload arrived
 * and its masking-key share if not, never both; with fewer than t survivors
 * the round is not unmasked (counted; the models stay) and the run goes on.
 * The server side sees public keys, encrypted shares, masked uploads,
 * revealed shares and the sum. The 32-bit ring must hold the SUM of the
 * round's n participants: a client one of whose weighted values (n_i / N) v
 * exceeds floor((2^31 - 1) / n) / 2^frac_bits in magnitude withholds its
 * upload (rejected, charged to it, and counted in
 * fgl_round_stats.n_out_of_range with its reason in the client's msg);
 * nothing wraps. */
typedef struct fgl_secagg_config {
    int on;
    int frac_bits;       /* fixed-point fraction bits (20) */
    float dropout;       /* probability that a participant drops out after masking (simulation) */
    int threshold;       /* t: survivors needed to unmask a round (0: a majority of the round's
                            participants, at least 2); otherwise more than half of a round's
                            participants and at most all of them (fgl__secagg_check) */
} fgl_secagg_config;

/* Where a run's secrets come from: secure aggregation's keys, self-masks
 * and share coins, DP's noise and participant draws. By default from the
 * operating system's entropy (each on its owner's side: a client's on its
 * host, the server's noise on the server), so that no record, checkpoint or
 * seed gives them away, and runs with DP are not repeatable bit for bit.
 * A simulation that must repeat may derive them from a secret seed instead;
 * whoever knows that seed can then remove the masks and the noise. Records
 * say which ("secrets": "os-entropy" or "reproducible"), never the seed. */
#define FGL_SECRETS_LABEL 256 /* bytes of fgl_secrets_config.label, its NUL included */
typedef struct fgl_secrets_config {
    int from_seed;       /* 0: the operating system's entropy; 1: derived from seed */
    uint64_t seed;
    /* With from_seed: the run's name among the runs that share the secret
     * seed (a NUL-terminated string, "" included; not secret: checkpoints
     * and transports carry it). The secrets are derived from the seed, the
     * run seed (cfg.seed) and this label, so runs that differ in either get
     * unrelated keys, masks and noise: give every run of one secret seed its
     * own label (fglrun: the algorithm, its parameters and the fold), and the
     * same label again to repeat a run. Two runs with one seed, one run seed
     * and one label share every secret: subtracting their masked uploads
     * gives the difference of their models. */
    char label[FGL_SECRETS_LABEL];
} fgl_secrets_config;

/* Parse the command-line forms: "median", "trimmed:B", "krum:F",
 * "multikrum:F,M", "normclip:M", "mean"; "signflip[:L]", "scale:L",
 * "noise:S", "labelflip", "nan", "count:N", "alie", "none";
 * "clip=C,noise=Z[,delta=D]". */
FGLDEF int fgl_robust_parse(const char *s, fgl_robust_config *out, fgl_error *err);
FGLDEF const char *fgl_robust_name(int rule);
FGLDEF const char *fgl_attack_name(int kind);
FGLDEF int fgl_attack_parse(const char *s, fgl_attack_config *out, fgl_error *err);
FGLDEF int fgl_dp_parse(const char *s, fgl_dp_config *out, fgl_error *err);

/* fgl_fed_config.metric */
enum { FGL_METRIC_ACC = 0, FGL_METRIC_F1 = 1, FGL_METRIC_AUC = 2 };

typedef struct fgl_fed_config {
    int rounds;             /* communication rounds */
    int local_epochs;       /* local epochs per round */
    int batch_size;         /* graph tasks: graphs per step (node tasks: full batch) */
    float frac;             /* fraction of clients sampled each round */
    uint64_t seed;          /* model initialisation and training randomness */
    fgl_optim_config optim; /* each client's optimizer */
    int reset_optim;        /* 1: optimizer state restarts every round (default: kept) */
    int threads;            /* OpenMP threads for the client loop (0: default) */
    int park_idle;          /* 1 (with frac < 1): a client out of the next round keeps
                               its models' parameters and optimizer moments packed
                               (a block of zeros, or of the run's initial model, takes
                               one byte) and gets them back, bit for bit, when it is
                               drawn, evaluated or checkpointed; its gradients are
                               freed and its tape's arena lent to the next client
                               that trains or evaluates. 2: the packed states go to a temporary
                               file (C's tmpfile(), gone when the run is freed), so
                               memory holds the active clients only. Results do not
                               change (fgl_run_unpark gives a caller an idle client's
                               state). Default 0 */
    double mem_limit;       /* bytes the run may need (0: this machine's memory, where it can be
                               told): a run whose models need more, by the lower bound
                               fgl_run_check computes before building any (every client's
                               parameters four times: values, gradients, two optimizer
                               moments; the widest client's activations), is refused */
    int eval_batch;         /* graph tasks: graphs per evaluation batch */
    int eval_after_train;   /* 1: evaluate a client right after its local training
                               (FED-PUB's code); 0: after it applies the server's
                               download (FedStar's code) */
    int eval_every;         /* evaluate every eval_every rounds and at the last (0, 1:
                               every round); rounds not evaluated record NaN and the
                               best-validation round is chosen among evaluated ones */
    int metric;             /* what picks the best-validation round (fgl_run_summarize): FGL_METRIC_ACC
                               (0, the default) the mean validation accuracy, FGL_METRIC_F1 the mean
                               macro-F1, FGL_METRIC_AUC the mean two-class ROC-AUC (every client's
                               model two outputs, node or graph tasks); the history keeps all three
                               (fgl_run.client_val_f1 ...). Not part of the training: a checkpoint
                               resumes under any */
    fgl_robust_config robust;   /* the server's mean and screening (default: mean, screen 100) */
    fgl_attack_config attack;   /* simulated attackers (default: none) */
    fgl_dp_config dp;           /* client-level DP (default: off) */
    fgl_secagg_config secagg;   /* secure aggregation (default: off) */
    fgl_secrets_config secrets; /* where DP and secure aggregation's secrets come from (default: entropy) */
} fgl_fed_config;

/* Published protocol defaults (docs/algorithms.md, authors' code): node
 * tasks 100 rounds, Adam lr 0.01 wd 1e-6, evaluation after local training;
 * graph tasks 200 rounds, batch 128, Adam lr 1e-3 wd 5e-4, evaluation after
 * the download; 1 local epoch, all clients every round. */
FGLDEF fgl_fed_config fgl_fed_config_default(int task);

/* What one client brings: its data (exactly one of node / graphs, borrowed:
 * it must outlive the run) with FGL_SPLIT_* codes in node->split or
 * graphs->split, and its model spec. A link-prediction client (spec.task
 * FGL_TASK_LINK) brings node (features; no labels or split needed) and
 * link, the edge split of node's graph (fgl_link_split_make, borrowed);
 * link is read for such a spec only (other clients may leave it unset). */
typedef struct fgl_client_data {
    fgl_node_data *node;
    fgl_graph_set *graphs;
    fgl_model_spec spec;
    const fgl_link_split *link;
} fgl_client_data;

/* --- src/fed/message.h --- */
/* ------------------------------------------------------------------------ */
/* Messages                                                                 */
/* ------------------------------------------------------------------------ */

#define FGL_MSG_MAX_PARTS 8

/* What a message part holds. The runtime fills and applies all but DATA. */
enum {
    FGL_SEND_DATA,     /* written by the algorithm (upload / download hook), read by the other side */
    FGL_SEND_MODEL,    /* the shared groups of the model, packed; on the way down loaded into the client's model */
    FGL_SEND_DELTA,    /* up: the shared groups minus the model as received this round */
    FGL_SEND_WEIGHT    /* up: the client's training-sample count, the weight of fgl_server_mean */
};

/* Size rules: a part has rows x cols floats, each either a positive count
 * or one of these. */
enum {
    FGL_DIM_SHARED = -1,     /* floats in the shared parameter groups (n) */
    FGL_DIM_TRAINABLE = -2,  /* floats in their trainable slices (m) */
    FGL_DIM_CLIENTS = -3,    /* K */
    FGL_DIM_CLASSES = -4,    /* C, the largest class count among clients */
    FGL_DIM_REP = -5,        /* d, the width of what the classifier reads (equal for all clients) */
    FGL_DIM_EMB = -6,        /* the width of the last message-passing output (equal for all clients) */
    FGL_DIM_HOPS = -7,       /* H + 1: hops 0..H, H the smallest message-passing layer count among
                                clients (FedPG's receptive fields) */
    FGL_DIM_CLASS_HOPS = -8, /* C (H + 1): one row per class and hop */
    FGL_DIM_INPUT = -9,      /* the width of the model's input features (equal for all clients) */
    FGL_DIM_NODES = -10      /* the client's own node count (node tasks: the nodes of its graph; graph
                                tasks: of all its graphs), so sizes differ between clients; a download
                                part sized by it is written by the download hook (fgl_download_part) */
};
#define FGL_DIM_RULES 11     /* rules are 1 .. FGL_DIM_RULES - 1 below zero */
/* A size given by an integer parameter of the algorithm (e.g. a number of
 * anchors): fgl_algo_param_dim(&a, "anchors") returns the rule; the value,
 * read at the start, must be a positive integer. */
#define FGL__DIM_PARAM0 (-100)

#define FGL_PART_OPTIONAL 1u /* may be absent (nothing to send yet); an upload part's memory is
                                 allocated by the first fgl_up and released by fgl_up_drop */
#define FGL_PART_ROW 2u      /* download: row `client` of the server buffer `from` */
#define FGL_PART_RAW 4u      /* upload: the server's own code turns this part into model state (reads it with
                                fgl_upload, fgl_server_gather or fgl_server_plain_mean and writes what it
                                computes into the models), not fgl_server_mean / fgl_server_mix: no robust
                                rule, DP or secure aggregation covers it, and a run asking for one is refused
                                at its start. Reading a part only to steer weights or clusters is not this. */

typedef struct fgl_part {
    const char *name;
    int kind;                /* FGL_SEND_* */
    int rows, cols;          /* size rule */
    unsigned flags;          /* FGL_PART_* */
    const char *from;        /* download: the server buffer sent; NULL: the download hook writes it */
} fgl_part;

/* A message: its parts in declaration order; an absent part has len 0 and
 * a NULL pointer. Download parts sent from server buffers are views of them
 * (identical downloads share one buffer), and an upload's model part may
 * view the client's parameters; the byte count is the same. Parts are
 * read-only (const): a hook reads the other side's message and never writes
 * it (c->down.part[p][k] = x and s->up[i]->part[p][k] = x do not compile).
 * Its writer writes its own message through fgl_up (a client's upload) and
 * fgl_download_part (the server's download hook), which return the part's
 * owned storage (own[p]: copied out of what it viewed first); a client that
 * wants to change what it received takes a copy (fgl_down_copy). A hook
 * that casts the const away and writes a received part anyway fails the
 * run (the runtime checks the download is as sent after the client's
 * hooks), in one process as over MPI. */
typedef struct fgl_msg {
    int n_parts;
    const fgl_part *decl;
    const float *part[FGL_MSG_MAX_PARTS];
    size_t len[FGL_MSG_MAX_PARTS];
    float *own[FGL_MSG_MAX_PARTS];   /* owned storage, the runtime's (parts not viewed: a download's parts
                                        `from` the server's store, an upload's model part its parameters) */
    size_t cap[FGL_MSG_MAX_PARTS];
} fgl_msg;

FGLDEF size_t fgl_msg_bytes(const fgl_msg *m);
/* Index of the part called name, or -1. */
FGLDEF int fgl_msg_find(const fgl_msg *m, const char *name);

/* --- src/fed/store.h --- */
/* ------------------------------------------------------------------------ */
/* Run-managed state                                                        */
/* ------------------------------------------------------------------------ */

typedef struct fgl__entry fgl__entry;

/* The state a client or the server holds for its algorithm: named entries
 * the runtime allocates (zeroed), checkpoints and frees. */
typedef struct fgl_store {
    int owner;               /* client id, or -1 for the server */
    fgl__entry *e;
    int n, cap;
    fgl_tape scratch;        /* fgl_scratch: reset after every hook */
    int err;                 /* first failure (FGL_ERR_NOMEM) */
} fgl_store;

/* In an init hook: a new named entry, zeroed; NULL on failure (the store
 * records it). n may be 0. */
FGLDEF float *fgl_new_floats(fgl_store *st, const char *name, size_t n);
FGLDEF int *fgl_new_ints(fgl_store *st, const char *name, size_t n);
/* A model built from spec and seed, an optimizer over ps, an empty
 * parameter set to build: checkpointed like the rest. */
FGLDEF fgl_model *fgl_new_model(fgl_store *st, const char *name, const fgl_model_spec *spec, uint64_t seed);
FGLDEF fgl_optim *fgl_new_optim(fgl_store *st, const char *name, fgl_optim_config cfg, const fgl_params *ps);
FGLDEF fgl_params *fgl_new_params(fgl_store *st, const char *name);
/* Memory that is not checkpointed because it is rebuilt (from the seed, or
 * every round before use); destroy (may be NULL) runs before it is freed. */
FGLDEF void *fgl_new_scratch(fgl_store *st, const char *name, size_t bytes, void (*destroy)(void *));
FGLDEF fgl_tape *fgl_new_tape(fgl_store *st, const char *name);
/* Find an entry again (a missing name is a programmer error). */
FGLDEF float *fgl_floats(const fgl_store *st, const char *name);
FGLDEF int *fgl_ints(const fgl_store *st, const char *name);
FGLDEF fgl_model *fgl_get_model(const fgl_store *st, const char *name);
FGLDEF fgl_optim *fgl_get_optim(const fgl_store *st, const char *name);
FGLDEF fgl_params *fgl_get_params(const fgl_store *st, const char *name);
FGLDEF void *fgl_get_scratch(const fgl_store *st, const char *name);
FGLDEF fgl_tape *fgl_get_tape(const fgl_store *st, const char *name);
/* Temporary memory until the current hook returns (zeroed; NULL on OOM). */
FGLDEF void *fgl_scratch(fgl_store *st, size_t bytes);

/* --- src/fed/algo.h --- */
/* ------------------------------------------------------------------------ */
/* Algorithms                                                               */
/* ------------------------------------------------------------------------ */

typedef struct fgl_run fgl_run;
typedef struct fgl_client fgl_client;
typedef struct fgl_server fgl_server;
typedef struct fgl_algo fgl_algo;
typedef struct fgl_observed fgl_observed;

enum { FGL_PARAM_FLOAT, FGL_PARAM_INT, FGL_PARAM_GROUPS };
/* What travels and what stays local. An algorithm that sends model weights
 * declares what it shares as its first group-list parameter (conventionally
 * "share"), and may declare what stays local as a group-list parameter
 * named "keep": a parameter slice is shared when its groups meet share and
 * miss keep (fgl_slice_selected). Tags are sets (a GIN layer's batch-norm
 * weights are CONV|NORM), so a share mask alone cannot leave them out; keep
 * can (FedBN: share=all, keep=norm+bnstat). The runtime applies the pair
 * everywhere the shared part appears: the size n of FGL_DIM_SHARED, the
 * model parts of uploads and downloads (what is kept is neither sent nor
 * overwritten), fgl_client_pack, fgl_received_at, the proximal gradient,
 * and fgl_server_pack (the server's initial vector); the defences see the
 * shared vector only. Checkpoints save whole models, so what is kept
 * resumes with its client. */

#define FGL_ALGO_MAX_PARAMS 24

/* A named parameter with its published default. */
typedef struct fgl_algo_param {
    const char *name;
    int type;                    /* FGL_PARAM_* (GROUPS: a group mask, "all-head" ...) */
    double def;
    const char *help;
    const char *choices;         /* FGL_PARAM_INT: names of the values 0, 1, ... ("samples|equal"), which --set and
                                    fgl_run_set accept beside the numbers; NULL: numbers only */
} fgl_algo_param;

/* An algorithm's parameter values (read with fgl_get). */
#define FGL_SETTINGS_UNKNOWN 48
typedef struct fgl_settings {
    const fgl_algo *algo;
    double *value;               /* one per parameter */
    char *unknown;               /* FGL_SETTINGS_UNKNOWN bytes where fgl_get writes the first name the algorithm
                                    does not declare (the run's: it fails with that name), or NULL */
} fgl_settings;

/* The value of parameter `name`. A name the algorithm does not declare (a
 * misspelling) reads 0 and is written to s->unknown: a run fails with it
 * after the hook that read it, in every build (not an assertion). */
FGLDEF double fgl_get(const fgl_settings *s, const char *name);

/* One local optimisation step, as the training hooks see it. */
typedef struct fgl_step {
    fgl_tape *t;
    fgl_model *model;            /* the model being trained */
    const fgl_gnn_graph *g;      /* the graph or batch of this step */
    const fgl_forward *fwd;      /* its forward pass */
    const int *labels;           /* per row of fwd->logits */
    const unsigned char *mask;   /* rows that count (NULL: all) */
    int epoch, index;            /* local epoch, step within the round */
} fgl_step;

/* Hooks of the local training loop (fgl_client_train). */
typedef struct fgl_train_hooks {
    /* A term added to the task's loss (cross-entropy; link tasks: BCE) (NULL: none; an error is
     * recorded with fgl_client_fail). */
    fgl_node *(*loss)(fgl_client *c, const fgl_step *s);
    /* After backward, before the optimizer step: adjust s->model->params.grad. */
    int (*grad)(fgl_client *c, const fgl_step *s);
    /* After the optimizer step (e.g. a proximal step on the parameters). */
    int (*after_step)(fgl_client *c, const fgl_step *s);
} fgl_train_hooks;

/* The table. Build it with fgl_algo_new (or extend a built-in with
 * fgl_algo_base) and assign hooks by name; every hook may be NULL. */
struct fgl_algo {
    const char *name;
    const char *summary;
    int n_params;
    fgl_algo_param params[FGL_ALGO_MAX_PARAMS];
    int n_up, n_down;
    fgl_part up[FGL_MSG_MAX_PARTS], down[FGL_MSG_MAX_PARTS];
    /* Adjust a client's model spec before its model is built (FED-PUB turns
     * on weight masks, FedStar swaps in its decoupled model). It is also the
     * algorithm's check of a client's task and model: an error refuses the
     * run (FedStar and GPFL refuse node tasks). Called on a copy of every
     * client's spec by fgl_run_init (the parameters at their defaults), by
     * fgl_run_check and at the start (the parameters as set), so it must not
     * refuse under the defaults what a parameter could make valid. */
    int (*prepare_spec)(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err);
    /* Client side: state (fgl_new_* on c->store), then every round: */
    int (*client_init)(fgl_client *c);
    int (*receive)(fgl_client *c);          /* after the runtime loaded the download's model parts */
    int (*local_train)(fgl_client *c);      /* NULL: fgl_client_train with `train` */
    fgl_train_hooks train;
    int (*upload)(fgl_client *c);           /* fill the DATA parts of c->up (c->model's parameters: read only) */
    fgl_model *(*eval_model)(fgl_client *c);   /* NULL: c->model */
    /* Node tasks: a prediction that no single model gives (AdaFGL's mixture
     * of modules): the client's class scores, c->data.node's nodes x the
     * model's classes, row-major, the argmax of a row being the node's
     * prediction; the runtime scores them on the validation and test nodes
     * as the model's logits. NULL (or a hook returning NULL): the model
     * (eval_model or c->model) is evaluated. Memory the client owns (its
     * store), read only by the runtime. */
    const float *(*eval_scores)(fgl_client *c);
    /* Server side: state (fgl_new_* on s->store), then every round: */
    int (*server_init)(fgl_server *s);
    /* An empty round, one meaning: when the server accepted no upload,
     * fgl_server_mean and its kin return FGL_ERR_EMPTY; an aggregate hook
     * that returns it (as it is) leaves the server's state as the hook left
     * it, and the round goes on (the next downloads are built from that
     * state). Any other error stops the run. */
    int (*aggregate)(fgl_server *s);
    int (*download)(fgl_server *s, int client, fgl_msg *down);   /* the parts without `from` */
    /* Observers (outside the protocol): algorithm-specific results as
     * JSON members ("\"key\": value, ..."), and a K x K client-to-client
     * matrix of the last round written into out (FGL_OK; FGL_ERR_EMPTY: none
     * yet). They get a read-only summary of the run (fgl_observed: the
     * server's state, the clients' models and the history, read through
     * const), never the run; programs call them through fgl_run_report and
     * fgl_run_client_matrix. */
    void (*report)(const fgl_observed *o, char *buf, size_t cap);
    int (*client_matrix)(const fgl_observed *o, float *out);
    /* 1: the server builds per-client mixtures of the uploads (fgl_server_mix:
     * FED-PUB, FedAMP, pFedGraph, pFedGNN; GPFL mixes updates by hand). DP
     * and secure aggregation are defined for one mean of the uploads, not
     * for K mixtures of them, and such a run is refused when it is set up
     * (fgl_run_init). A declaration, not something the runtime
     * observes: the refusal must come before the clients clip, mask or spend
     * privacy, i.e. before the first aggregation could show that it mixes. */
    int mixes;
    /* 1: the aggregate hook reads the model and delta uploads only through
     * fgl_server_mean (never fgl_upload, fgl_server_gather or the s->up
     * messages), so that what it publishes is a function of the means the
     * runtime defends. Under DP and secure aggregation the runtime enforces
     * this for every table: the hook is handed no upload at all (s->up[i]
     * NULL, s->n_accepted 0), fgl_server_mean gives the noised (DP) or
     * unmasked (secure) mean, and a DP round whose hook did not take the
     * noised mean of every model or delta part fails. A program's own
     * aggregate hook is refused under DP and secure aggregation unless its
     * table sets this, so that a rule written against the uploads (a
     * median over fgl_upload) is refused at the start rather than handed
     * nothing; the built-in tables need not set it. */
    int mean_only;
    /* 1: the aggregate hook reads each accepted client's model upload on its
     * own (fgl_upload) as one of an ensemble (FedTAD distils the clients'
     * models into the mean). DP and secure aggregation hand the hook no
     * upload, and a robust rule guards the mean, not that path: such a run
     * is refused when it is set up (fgl_run_init). A declaration, as mixes. */
    int reads_each;
    /* Which member of a family of algorithms sharing hooks this table is, set
     * by its builder and read by the hooks (c->algo->variant), never inferred
     * from the parts declared: SCAFFOLD 0, FedDC 1; GCFL 0, GCFL+ 1. The
     * runtime ignores it; a table extended from a built-in keeps it. */
    int variant;
};

/* An empty table (no parameters, no messages, no hooks: Local). */
FGLDEF fgl_algo fgl_algo_new(const char *name, const char *summary);
/* A copy of a built-in table to extend (Ditto extends FedAvg); an empty
 * table named name if there is none. */
FGLDEF fgl_algo fgl_algo_base(const char *name);
/* Add a parameter, an upload part or a download part (capacity overflow and
 * duplicate names are programmer errors). */
FGLDEF void fgl_algo_param_add(fgl_algo *a, const char *name, int type, double def, const char *help);
FGLDEF void fgl_algo_upload(fgl_algo *a, const char *name, int kind, int rows, int cols, unsigned flags);
FGLDEF void fgl_algo_download(fgl_algo *a, const char *name, int kind, int rows, int cols, unsigned flags,
                              const char *from);
/* Name the values 0, 1, ... of integer parameter name (declared before):
 * choices "samples|equal" lets fgl_run_set take "equal" for 1. */
FGLDEF void fgl_algo_param_choices(fgl_algo *a, const char *name, const char *choices);
/* A parameter's value from text as fgl_run_set reads it (a group list, an
 * integer or one of its choices' names, a number): 0, or FGL_ERR_PARSE. */
FGLDEF int fgl_algo_param_parse(const fgl_algo_param *p, const char *text, double *value);
/* A parameter's value as text: its group list, its choice's name, or the
 * number. */
FGLDEF void fgl_algo_param_format(const fgl_algo_param *p, double value, char *buf, size_t cap);
/* The size rule "the value of integer parameter name" (declared before). */
FGLDEF int fgl_algo_param_dim(const fgl_algo *a, const char *name);
/* 1 if any message part carries model weights (FGL_SEND_MODEL / DELTA, or a
 * size in shared parameters): then clients must agree on the shared layout;
 * otherwise (prototype methods, Local) their models may differ. */
FGLDEF int fgl_algo_shares_weights(const fgl_algo *a);

/* The registry: the built-in algorithms, then those registered. Lookups
 * are read-only; register at program start, before runs begin (the table
 * is copied; capacity 64). fgl_algo_find gives NULL for a name not
 * registered and remembers that name, so that fgl_run_init, handed the
 * NULL, says which name was not found (and suggests one). */
FGLDEF const fgl_algo *fgl_algo_find(const char *name);
/* The registered name closest to name, for messages: the same name in
 * another case ("FedAvg": "fedavg"), or one within two edits that change
 * less than half of it ("fedprx": "fedprox"); NULL if none is that close. */
FGLDEF const char *fgl_algo_suggest(const char *name);
FGLDEF int fgl_algo_count(void);
FGLDEF const fgl_algo *fgl_algo_at(int i);
FGLDEF int fgl_algo_register(const fgl_algo *a);

/* Parse "all", "conv", "conv+head", "all-head" ... into a group mask. */
FGLDEF int fgl_groups_parse(const char *s, unsigned *groups);
FGLDEF void fgl_groups_format(unsigned groups, char *buf, size_t cap);

/* --- src/fed/crypto.h --- */
/* ------------------------------------------------------------------------ */
/* Cryptography for secure aggregation                                      */
/* ------------------------------------------------------------------------ */

/* The primitives a secure-aggregation protocol (Bonawitz et al. 2017) is
 * built from, and what each one is for in fgl:
 *   fgl_os_entropy     the operating system's randomness: the only source of
 *                      secret keys, of the coins of Shamir sharing, and of
 *                      the seed of DP noise that nobody may predict (the
 *                      simulation's noise comes from the run seed, so that
 *                      runs replay)
 *   fgl_x25519         key agreement (X25519, RFC 7748): a pair of clients
 *                      derives a shared secret from one another's public
 *                      keys, which the server relays but cannot use
 *   fgl_kdf            keys for one purpose and round from a shared secret
 *                      (a PRF: ChaCha20 keyed by the secret over the nonce)
 *   fgl_chacha20_words mask expansion (ChaCha20, RFC 8439): a pairwise or
 *                      self-mask key becomes one 32-bit mask per value of
 *                      the model
 *   fgl_aead_seal/open share encryption (ChaCha20-Poly1305, RFC 8439): the
 *                      shares a client sends its peers through the server,
 *                      which can neither read nor alter them unnoticed
 *   fgl_shamir_*       t-of-n Shamir shares of each client's pairwise-key
 *                      secret and self-mask seed, so that the survivors can
 *                      remove a dropped client's masks (or a live client's
 *                      self-mask) and no fewer than t of them learn anything
 * They are written for fgl from the standards (no code is taken from
 * another library), in portable C99 without 128-bit integers, and are
 * constant-time where secrets are involved: X25519's Montgomery ladder
 * swaps by masks, never branches or indexes on a key bit; the tag
 * comparison looks at every byte; ChaCha20, Poly1305 and the field
 * arithmetic have no secret-dependent branches. tests/test_crypto.c checks
 * them against the RFCs' test vectors, and tests/test_crypto_sodium.sh
 * against libsodium on random inputs where it is installed. */

/* n bytes of the operating system's entropy into buf: on Linux getrandom(2)
 * where the C library declares it (the kernel's generator, waiting only
 * until it is seeded at boot); otherwise, and on a kernel without the call,
 * /dev/urandom, opened afresh each time and refused (fail closed) unless it
 * is a character device that gives not only zeros: a regular file bound
 * over it would hand out the same bytes from offset 0 on every call, i.e.
 * equal "secrets"; on Windows rand_s (the C runtime's interface to the
 * system generator). There is no weaker fallback: without a source this
 * fails with FGL_ERR_IO and says why. */
FGLDEF int fgl_os_entropy(void *buf, size_t n, fgl_error *err);

/* ChaCha20 (RFC 8439, section 2.4): out = in XOR the keystream of key and
 * nonce from block `counter` on (in NULL: out gets the keystream; out may
 * be in). The block counter is 32 bits: past 2^32 blocks (256 GiB) the
 * keystream would repeat, so no message may be that long. */
FGLDEF void fgl_chacha20_xor(unsigned char *out, const unsigned char *in, size_t n, const unsigned char key[32],
                             const unsigned char nonce[12], uint32_t counter);
/* The same keystream as n 32-bit words, word k being bytes 4k..4k+3 read
 * little-endian (on any host): the masks of secure aggregation, computed
 * sixteen blocks at a time straight into out. */
FGLDEF void fgl_chacha20_words(uint32_t *out, size_t n, const unsigned char key[32], const unsigned char nonce[12],
                               uint32_t counter);
/* A PRF (and so a KDF for a uniformly random key): the first 32 bytes of
 * ChaCha20's keystream under key with the nonce (label, a, b), each
 * little-endian, and counter 0. ChaCha20's block function is assumed to be a
 * PRF of its key over nonce and counter, so distinct (label, a, b) give
 * independent-looking keys: label names the purpose, a and b e.g. the round
 * and a peer. */
FGLDEF void fgl_kdf(unsigned char out[32], const unsigned char key[32], uint32_t label, uint32_t a, uint32_t b);

/* Poly1305 (RFC 8439, section 2.5): the 16-byte tag of the n bytes at m
 * under a one-time key (never use a key twice). */
FGLDEF void fgl_poly1305(unsigned char tag[16], const unsigned char *m, size_t n, const unsigned char key[32]);
/* ChaCha20-Poly1305 (RFC 8439, section 2.8): encrypts the n bytes of pt into
 * ct (which may be pt) and authenticates them with the n_aad bytes of aad
 * (sent in the clear). A nonce must never be used twice with one key. */
FGLDEF void fgl_aead_seal(unsigned char *ct, unsigned char tag[16], const unsigned char *pt, size_t n,
                          const unsigned char *aad, size_t n_aad, const unsigned char key[32],
                          const unsigned char nonce[12]);
/* The inverse: 0 and the plaintext in pt (which may be ct) when tag is
 * ct's and aad's, else -1 and pt zeroed (the tag is compared in constant
 * time, before anything is decrypted). */
FGLDEF int fgl_aead_open(unsigned char *pt, const unsigned char *ct, size_t n, const unsigned char tag[16],
                         const unsigned char *aad, size_t n_aad, const unsigned char key[32],
                         const unsigned char nonce[12]);

/* X25519 (RFC 7748, section 5): the u-coordinate of scalar x u on
 * Curve25519 (the scalar clamped as the RFC says; u's top bit ignored). A
 * u of small order gives all zeros, which a protocol that needs both
 * parties' contribution checks for. */
FGLDEF void fgl_x25519(unsigned char out[32], const unsigned char scalar[32], const unsigned char u[32]);
/* The public key of the secret key sk (32 bytes of entropy): X25519 of sk
 * and the base point u = 9. */
FGLDEF void fgl_x25519_public(unsigned char pk[32], const unsigned char sk[32]);

/* Shamir t-of-n secret sharing of a 32-byte secret over GF(2^61 - 1). The
 * secret is cut into 5 chunks (bytes 0-6, 7-13, 14-20, 21-27, 28-31, each
 * read little-endian, so each is < 2^56 < p), and each chunk is the value at
 * 0 of its own random polynomial of degree t - 1. A share is the 5 values
 * at the holder's x (a nonzero uint32; fgl_shamir_split gives share i
 * x = i + 1), little-endian u64s: FGL_SHARE_BYTES bytes. Any t shares give
 * the secret; t - 1 reveal nothing of it. */
#define FGL_SHARE_BYTES 40
/* Writes n shares (share i at shares + i FGL_SHARE_BYTES, for x = i + 1).
 * The polynomials' coefficients are uniform in the field, drawn from
 * ChaCha20 keyed by coin_key, which must be fresh entropy (fgl_os_entropy)
 * for every split. FGL_ERR_ARG unless 1 <= t <= n. */
FGLDEF int fgl_shamir_split(unsigned char *shares, const unsigned char secret[32], int t, int n,
                            const unsigned char coin_key[32]);
/* The secret from t shares (t FGL_SHARE_BYTES bytes) held at xs[0..t-1]
 * (distinct, nonzero), by Lagrange interpolation at 0. FGL_ERR_ARG (and the
 * secret zeroed) for repeated or zero xs, a share value that is not a field
 * element, or a chunk that decodes past its width: shares that are not of
 * one split. This is a check, not authentication: a share of another split
 * or at another x passes it with probability about 2^-49, but a deliberate
 * change to a share can pass it (shares travel sealed by fgl_aead_seal). */
FGLDEF int fgl_shamir_combine(unsigned char secret[32], const unsigned char *shares, const uint32_t *xs, int t);

/* --- src/fed/defences.h --- */
/* The (epsilon, delta) privacy spent by the rounds done, by the Renyi DP
 * accountant of the sampled Gaussian mechanism (Mironov, Talwar and Zhang
 * 2019) that DP-FedAvg is (Poisson sampling at rate cfg.frac, noise
 * multiplier cfg.dp.noise; orders 1.25 to 10.75 in steps of 0.25, and the
 * integers 11 to 1024); NaN without DP, +Inf without noise. Reported only
 * when every round done released every model and delta value with noise
 * (fgl_round_stats.dp_draws counts them): else NaN (a round resumed from a
 * checkpoint of a build that did not count them). */
FGLDEF double fgl_run_dp_epsilon(const fgl_run *run, double delta);
/* Renyi DP of one round of the sampled Gaussian mechanism at order
 * alpha > 1 (integer: the binomial expansion; fractional: the series of
 * Mironov, Talwar and Zhang 2019): for q = 1, alpha / (2 sigma^2). */
FGLDEF double fgl_rdp_sampled_gaussian(double q, double sigma, double alpha);

/* --- src/fed/secagg.h --- */
/* ------------------------------------------------------------------------ */
/* Secrets and secure aggregation                                           */
/* ------------------------------------------------------------------------ */
/* The run's secrets (fgl_secrets_config) and the secure-aggregation
 * protocol of Bonawitz et al. (2017) that fgl_secagg_config describes. A
 * round of it, for the participants U1 (increasing ids, n of them) and the
 * threshold t:
 *   1 keys     each participant draws two X25519 key pairs (c: to encrypt
 *              shares, s: to agree masks) and a self-mask seed b; up: its
 *              two public keys (64 bytes); the server relays all of them.
 *   2 shares   each splits s_sk and b t-of-n (Shamir, share k at x = k + 1)
 *              and sends peer k its two shares sealed with ChaCha20-Poly1305
 *              under KDF(X25519(c_sk, c_pk_k)); the server holds them.
 *   3 masked   each uploads its fixed-point values plus PRG(b) plus, per
 *              peer k, +PRG(m_k) if its id is lower, -PRG(m_k) if higher,
 *              m_k = KDF(X25519(s_sk, s_pk_k)) (the peer derives the same).
 *   4 reveal   the server names the survivors (uploads accepted); each
 *              survivor vouches for the list it received to every other
 *              survivor k with a tag under their pair's share key (the
 *              consistency round of Bonawitz et al.'s actively secure
 *              version; a MAC in place of their signatures, as each tag is
 *              checked by its one recipient): up n tags, down the n tags
 *              addressed to it, with the sealed shares addressed to it. A
 *              survivor reveals only if t of the survivors (itself
 *              included) vouch for the list it received: a server that
 *              tells some that client i dropped and others that it survived
 *              gets t confirmations for at most one of the two lists (t >
 *              n/2). It then opens its shares and reveals, per participant,
 *              its share of b if that one survived, of s_sk if not (never
 *              both: one list decides), and nothing at all if fewer than t
 *              survived.
 *   server     with t shares each it rebuilds the survivors' b and the
 *              others' s_sk, subtracts the survivors' self-masks and their
 *              masks with the others from the sum of the masked uploads.
 *   5 metrics  once the round is unmasked and evaluated, each survivor
 *              uploads its training loss and evaluation (accuracy, F1, AUC,
 *              Hits, each with its weight: fgl__sa_metrics_mask) in fixed
 *              point in Z / 2^64, masked, per surviving peer k, by the
 *              stream of m_k under another nonce label, +/- as in step 3;
 *              it wipes m_k after. Over the survivors the masks cancel:
 *              the server learns the round's sums (so its means) and no
 *              client's own numbers. It already holds the survivors' b, so
 *              no self-mask is added; a survivor whose metrics do not
 *              arrive leaves masks that cannot be removed, and the round's
 *              metrics are NaN (a survivor cannot be unmasked alone).
 * t is more than half of the round's n participants (fgl__secagg_check,
 * fgl__sa_threshold): with t <= n/2 a server that tells half of them that
 * client i dropped and the other half that it survived gets t shares of
 * both its s_sk and its b. A peer's public key of small order (X25519 with
 * it gives all zeros) is refused in step 2. Secrets are wiped after use
 * with fgl__crypto_wipe, which a compiler cannot drop.
 * The ring is Z / 2^32 (32-bit words, one per value, carried in a float's
 * bits), the fixed point x 2^frac_bits. It must not wrap in the SUM: with
 * n participants, a client encodes a weighted value x = (n_i / N) v only if
 * |x 2^frac_bits| <= floor((2^31 - 1) / n), so that any sum of at most n
 * such words stays in [-(2^31 - 1), 2^31 - 1] and decodes exactly as a
 * signed word. A client one of whose values (or its weight) is outside
 * that range (or not finite) withholds its whole upload: the server counts
 * it rejected and out of range (fgl_round_stats.n_out_of_range), its
 * message says which value; nothing is ever wrapped. Honest weights sum to
 * at most 1, so the bound is on the models: about 2^(31 - frac_bits) / n in
 * (n_i / N) v, 2048 / n at the default 20 bits (a lower
 * fgl_secagg_config.frac_bits widens it, at the cost of precision).
 * Every secret is fresh each round (a revealed s_sk unmasks nothing later)
 * and is held by its client only (under a transport: on the client's host;
 * nothing of it is checkpointed). The server side's state, below, is what
 * a server may see: public keys, sealed shares, masked uploads, revealed
 * shares, the sum. */

/* --- src/fed/sides.h --- */
/* ------------------------------------------------------------------------ */
/* The two sides                                                            */
/* ------------------------------------------------------------------------ */

/* A run of contiguous shared floats: at offset in the model's parameters,
 * at `packed` in the shared vector (what FGL_SEND_MODEL carries), and, if
 * trainable, at `trained` in the vector of trainable shared floats. */
typedef struct fgl_span {
    size_t offset, packed, trained, len;
    int trainable;
} fgl_span;

struct fgl_client {
    int id, task;
    int round;                   /* the round being run (0-based) */
    const fgl_fed_config *fed;   /* the run's configuration */
    const fgl_settings *set;     /* the algorithm's parameters */
    const fgl_algo *algo;
    unsigned share;              /* shared groups (0 when no weights travel) */
    unsigned keep;               /* groups kept local: a slice is shared if it meets share and misses keep */
    fgl_span *span;              /* the shared floats of the model, in memory order */
    int n_span;
    size_t n_shared, n_trainable;
    int n_train, n_val, n_test;  /* samples (nodes or graphs) */
    fgl_view data;               /* its train / val / test batches */
    fgl_model_spec spec;         /* the spec it brought (model.spec: as the algorithm prepared it) */
    fgl_model model;
    fgl_optim optim;
    fgl_rng rng;
    fgl_tape tape;
    fgl_msg up;                  /* this round's upload */
    fgl_msg down;                /* the last download, as received (read-only: see fgl_down) */
    uint64_t down_sum[FGL_MSG_MAX_PARTS];   /* runtime-private: checksums of its parts when received */
    size_t up_len[FGL_MSG_MAX_PARTS], down_len[FGL_MSG_MAX_PARTS];   /* declared sizes in this run */
    size_t dim[FGL_DIM_RULES];   /* dim[-rule]: the size rules' values (fgl_client_dim) */
    int steps;                   /* optimizer steps of the last local training */
    double train_loss;           /* mean loss of the last local training */
    int attacker;                /* a simulated attacker (cfg.attack) */
    int local;                   /* hosted by this process (a transport may host some clients elsewhere) */
    size_t parked_len;           /* cfg.park_idle: > 0 while its state is packed (runtime-owned): */
    unsigned char *parked;       /*   in memory here, or (NULL) in the run's park file at */
    size_t park_off, park_cap;   /*   park_off, in a slot of park_cap bytes it reuses, */
    uint64_t park_sum;           /*   checked against this checksum when read back */
    int wire_error;              /* its upload arrived malformed over a transport: rejected */
    uint64_t data_sum;           /* a checksum of its data (checkpoint fingerprints) */
    double val_acc, test_acc;    /* latest evaluation: accuracy, or a link task's AUC */
    double val_hits, test_hits;  /* link tasks: the latest Hits@K (else NaN) */
    double val_f1, test_f1;      /* node and graph tasks: the latest macro-F1 (fgl_class_metrics; else NaN) */
    double val_auc, test_auc;    /* two-class node and graph tasks: the latest ROC-AUC (else NaN) */
    fgl_store store;             /* the algorithm's client state */
    struct fgl__sa_client *sa;   /* secure aggregation: this round's secrets (runtime-private, never saved) */
    int error;                   /* first error of this client in the round */
    char msg[256];
};

struct fgl_server {
    int n_clients, round;
    const fgl_fed_config *fed;
    const fgl_settings *set;
    const fgl_algo *algo;
    unsigned share, keep;        /* shared groups, groups kept local (as fgl_client's) */
    size_t n_shared, n_trainable;
    const fgl_params *init;      /* the common initial model (client 0's spec, the run seed) */
    const fgl_model_spec *spec;  /* its spec (as the algorithm prepared it): a server that runs the clients'
                                    models (FedTAD's distillation) builds them from it */
    const int *n_registered;     /* training samples each client registered at the start */
    const int *n_nodes;          /* nodes each client holds (what FGL_DIM_NODES means for it) */
    const fgl_node_data *pub;    /* public data the server holds (fgl_run_set_public), or NULL */
    const size_t *up_len_of;     /* K x FGL_MSG_MAX_PARTS: each client's declared upload sizes */
    const fgl_msg *const *up;    /* up[i]: client i's accepted upload this round, or NULL */
    int n_accepted;
    fgl_msg *down;               /* down[i]: built by the runtime (and the download hook) */
    size_t up_len[FGL_MSG_MAX_PARTS], down_len[FGL_MSG_MAX_PARTS];   /* declared sizes in this run (0: the
                                                                        size depends on the client, see
                                                                        fgl_upload_size) */
    size_t dim[FGL_DIM_RULES];   /* dim[-rule]: the size rules' values (fgl_server_dim) */
    fgl_rng rng;                 /* server randomness (participation) */
    fgl_store store;             /* the algorithm's server state */
    const unsigned char *dropped;   /* secure aggregation: clients that dropped out this round */
    const uint32_t *secagg_sum;  /* secure aggregation: the round's unmasked sum in the fixed-point ring
                                    (secagg_len values, then the weight), or NULL when the round was not
                                    unmasked; fgl_server_mean decodes it */
    size_t secagg_len;
    const unsigned char *dp_key; /* DP: the server's secret noise key (runtime-private; the server is the
                                    party that adds the noise) */
    const float *dp_release[FGL_MSG_MAX_PARTS];   /* DP: this round's noised mean of each model or delta
                                                     upload part, computed by the runtime before the
                                                     aggregate hook, which fgl_server_mean hands out
                                                     (runtime-private) */
    unsigned char dp_taken[FGL_MSG_MAX_PARTS];    /* DP: the hook took part p's release this round */
    int n_clipped;               /* this round's updates clipped by the NORMCLIP rule */
    int n_fallback;              /* this round's robust aggregations with too few accepted uploads for the
                                    rule's parameter, which fell back (fgl_server_mix: "Too few uploads") */
    int error;
    char msg[256];
};

/* Client side. The part called name of this round's upload (allocated with
 * its declared size for the upload hook to write; a model part is copied out
 * of the parameters it views) and of the last download (NULL when absent).
 * fgl_up_drop leaves an optional part out this round. The download is
 * read-only: in one process its parts are views of the server's buffers
 * (one buffer for every client that gets the same part), over MPI a copy;
 * the runtime checks after the receive hook, the local training and the
 * upload hook that it is as it was sent, and fails the run (naming the
 * client and the hook) if a hook wrote into it. */
FGLDEF float *fgl_up(fgl_client *c, const char *name);
FGLDEF void fgl_up_drop(fgl_client *c, const char *name);
FGLDEF const float *fgl_down(const fgl_client *c, const char *name);
/* A writable copy of download part `name` (its declared size), private to
 * the client, for a hook that wants to change what it received: temporary
 * memory (fgl_scratch: until the hook returns; a training hook's, until the
 * training ends), so a checkpoint never needs it; fgl_down and fgl_received still
 * give the part as received. What must last (a corrected reference kept
 * from receive to training) goes into the client's store (fgl_new_floats
 * in client_init), which is checkpointed. NULL when the part is absent,
 * and on OOM (recorded on c). */
FGLDEF float *fgl_down_copy(fgl_client *c, const char *name);
/* The floats upload part `name` holds as declared (its size rule's value for
 * c in this run), written or not. A name the algorithm does not declare: 0,
 * and FGL_ERR_ARG recorded on c (fgl_client_fail) with the name. */
FGLDEF size_t fgl_up_size(fgl_client *c, const char *name);
/* The shared groups as received (the download's model part), or NULL; and
 * the received values of the parameter at `offset` in c's model (NULL if it
 * is not shared). */
FGLDEF const float *fgl_received(const fgl_client *c);
FGLDEF const float *fgl_received_at(const fgl_client *c, size_t offset);
/* Pack / unpack the shared groups of c's model (n_shared floats). */
FGLDEF void fgl_client_pack(const fgl_client *c, const fgl_params *ps, float *out);
FGLDEF void fgl_client_unpack(const fgl_client *c, fgl_params *ps, const float *in);
/* The standard local training loop: cfg.local_epochs epochs over the
 * training batches (full graph for node tasks, shuffled mini-batches for
 * graph tasks) minimising the task's loss (fgl_view_loss: cross-entropy, or
 * a link task's binary cross-entropy) + hooks->loss on model m with
 * optimizer o. */
FGLDEF int fgl_client_train(fgl_client *c, fgl_model *m, fgl_optim *o, const fgl_train_hooks *hooks);
/* Record an error on a client (the first wins); returns code. */
FGLDEF int fgl_client_fail(fgl_client *c, int code, const char *fmt, ...) FGL__PRINTF(3, 4);
/* What a size rule (FGL_DIM_CLASSES, FGL_DIM_REP, FGL_DIM_HOPS, ...) means
 * in this run, as a client and the server see it; a positive count is
 * itself, a parameter's rule (fgl_algo_param_dim) the parameter's value. */
FGLDEF size_t fgl_client_dim(const fgl_client *c, int rule);
FGLDEF size_t fgl_server_dim(const fgl_server *s, int rule);
/* g += mu (theta - theta_received) on the trainable shared floats of ps
 * (c's model or one of its layout): the gradient of mu/2 ||theta - theta_received||^2. */
FGLDEF void fgl_client_prox_grad(const fgl_client *c, fgl_params *ps, float mu);

/* Server side. Client i's accepted upload part (NULL if the upload is
 * absent or rejected, or the part absent). */
FGLDEF const float *fgl_upload(const fgl_server *s, int client, const char *name);
/* Pack the shared part (s->share less s->keep) of a model of the run's
 * layout, e.g. s->init, into n_shared floats, as a model part carries it. */
FGLDEF void fgl_server_pack(const fgl_server *s, const fgl_params *ps, float *out);
/* The floats part `name` of client i's upload holds when sent (its declared
 * size for that client: FGL_DIM_NODES differs between clients). */
FGLDEF size_t fgl_upload_size(const fgl_server *s, int client, const char *name);
/* The floats upload part `name` holds, the same for every client, or 0 when
 * its size depends on the client (then fgl_upload_size gives each one's);
 * and the floats download part `name` holds. A name the algorithm does not
 * declare: 0, and FGL_ERR_ARG recorded on s (fgl_server_fail) with the name. */
FGLDEF size_t fgl_server_up_size(fgl_server *s, const char *name);
FGLDEF size_t fgl_server_down_size(fgl_server *s, const char *name);
/* The download part of client i to write (download hook), sized by its
 * declaration (a part sized by FGL_DIM_NODES: by client i's nodes); NULL on OOM. */
FGLDEF float *fgl_download_part(fgl_server *s, int client, const char *name);
/* out = sum_i w_i up_i / sum_i w_i over the accepted uploads, w_i the
 * upload's FGL_SEND_WEIGHT part (equal weights without one). FGL_ERR_EMPTY
 * (out untouched) if nothing was accepted. Sums in double, client order.
 * For a part that carries model weights, cfg.robust, cfg.dp and cfg.secagg
 * replace the mean: a robust rule is fgl_server_mix's with one row of equal
 * weights (MEDIAN, TRIMMED, KRUM, MULTIKRUM: unweighted, as published) or of
 * the sample counts (NORMCLIP), falling back as fgl_server_mix says when too
 * few uploads were accepted; DP adds noise to the equal-weight mean of the
 * clipped updates; secure aggregation decodes the masked sum. */
FGLDEF int fgl_server_mean(fgl_server *s, const char *part, float *out);
/* The same with equal weights whatever the declaration. */
FGLDEF int fgl_server_plain_mean(fgl_server *s, const char *part, float *out);
/* Personalised mixing: out row i (K x n, n the part's size) = the mean of
 * the sources weighted by row i of w (K x K, w[i K + j] the weight of client
 * j in row i), for the rows with rows[i] != 0 (rows NULL: all). Source j is
 * client j's accepted upload of the part, else row j of held (K x n, NULL:
 * none): a model the algorithm kept from an earlier round (FedAMP keeps the
 * latest of every client). A nonzero weight on a client with neither is an
 * error; out must not overlap held.
 * With cfg.robust.rule MEAN (or a part that carries no model weights) this is
 * fgl_mix_rows of the sources, bit for bit: sum_j w_ij x_j as given, not
 * renormalised. With a robust rule, row i applies the rule with its weights
 * (which must be >= 0), renormalised over the sources the rule keeps:
 *   MEDIAN    the weighted median per coordinate among the sources of nonzero
 *             weight (the midpoint where the cumulative weight is exactly
 *             half, so equal weights give the plain median);
 *   TRIMMED   per coordinate, the trim largest and trim smallest of those
 *             sources dropped, the weighted mean of the rest (a row with
 *             n <= 2 trim such sources drops (n - 1) / 2 at each end, the
 *             most that leaves one: with equal weights their median, with
 *             n <= 2 their weighted mean);
 *   KRUM, MULTIKRUM  the uploads selected by their Krum scores over the
 *             round's accepted uploads' updates (f, m as fgl_server_mean);
 *             row i is their mean under row i's weights (equal weights if
 *             the row puts none on them); KRUM selects one;
 *   NORMCLIP  each upload's update clipped to norm clip, then row i's
 *             weighted mean (each clipped upload counted once per call in
 *             s->n_clipped, whatever the number of rows; FED-PUB, which also
 *             takes fgl_server_mean of the same part, counts them there only).
 * An update is the upload minus the model part of the download the client
 * received (s->down), as in fgl_server_mean. Held rows take part in MEDIAN
 * and TRIMMED as values; KRUM, MULTIKRUM and NORMCLIP measure updates, which
 * a held row no longer has (its reference is gone), so they leave held rows
 * out; a row that weighs held rows only (a client keeping its own model)
 * gets their weighted mean. DP and secure aggregation are not defined for
 * mixtures: FGL_ERR_ARG (fgl_algo.mixes refuses them at the start of a
 * run).
 * Too few uploads: rejections (and dropouts, lost hosts) never make a rule
 * fail. With m accepted uploads, TRIMMED with 2 trim >= m trims as above
 * ((m - 1) / 2: their median, or with m <= 2 their mean); KRUM and
 * MULTIKRUM with m <= 2 f + 2 (outside Krum's guarantee) take the largest
 * f with m > 2 f + 2 and keep at most m - f uploads, and with m < 3 (no
 * scores) keep every upload: their mean. Each such aggregation adds one
 * to s->n_fallback (the round's fallbacks: fgl_round_stats.n_fallback).
 * With nothing accepted a robust rule returns FGL_ERR_EMPTY and leaves out
 * untouched (the algorithms keep their models that round). fgl_run_start refuses parameters that even a
 * round without rejections cannot support (2 trim >= participants;
 * participants <= 2 f + 2; m > participants - f).
 * FGL_OK also when no row is selected; FGL_ERR_ARG on a bad weight. Sums
 * in double in client order (KRUM: in selection order; every upload kept:
 * client order). */
FGLDEF int fgl_server_mix(fgl_server *s, const char *part, const float *held, const double *w, float *out,
                          const unsigned char *rows);
/* fgl_server_mix with two options, the defences acting as there.
 * div (K doubles, NULL: none) divides source j by div[j] > 0 and leaves it
 * out where div[j] <= 0, whatever its weight: pFedGraph's
 * u_i = sum_j a_ij theta_j / ||theta_j||. A rule judges the sources as sent
 * (KRUM, MULTIKRUM: their updates; NORMCLIP clips the update, then divides)
 * and averages the divided ones (MEDIAN, TRIMMED: orders them). count_clips
 * 0: NORMCLIP's clips are not added to s->n_clipped, nor a fallback to
 * s->n_fallback (another mixture or mean of the same part this round counts
 * them: FED-PUB, pFedGraph); 1 as fgl_server_mix. fgl_server_mix(s, part, held, w, out, rows) is
 * fgl_server_mix_div(s, part, held, w, NULL, out, rows, 1). An unknown part:
 * FGL_ERR_ARG, with the message on s. */
FGLDEF int fgl_server_mix_div(fgl_server *s, const char *part, const float *held, const double *w, const double *div,
                              float *out, const unsigned char *rows, int count_clips);
/* Copy each accepted upload's part into row i of dst (K x len); has[i]
 * (may be NULL) becomes 1 for those rows. Returns the number copied, or
 * FGL_ERR_SHAPE for a part whose size differs between clients. The same
 * parts make fgl_server_mean fail with FGL_ERR_SHAPE. */
FGLDEF int fgl_server_gather(fgl_server *s, const char *part, float *dst, int *has);
FGLDEF int fgl_server_fail(fgl_server *s, int code, const char *fmt, ...) FGL__PRINTF(3, 4);
/* out row i = sum_j w[i K + j] src row j (rows of n floats) for the rows i
 * with rows[i] != 0 (rows NULL: all); zero weights skip their row; sums in
 * double in client order. */
FGLDEF int fgl_mix_rows(int K, const double *w, const float *src, size_t n, float *out, const unsigned char *rows);

/* --- src/fed/park.h --- */
/* With cfg.park_idle, an idle client's parameters and optimizer moments are
 * packed away (model.params.data is NULL): this makes client i's state
 * resident again, bit for bit, so that a caller may read it (until the next
 * round, which packs it again if the client is idle). FGL_OK at once for a
 * resident client; FGL_ERR_NOMEM, or FGL_ERR_IO for a state in the park
 * file that cannot be read back as written (state still packed). An
 * algorithm's report and client_matrix observers never see the run: they
 * read a client's model with fgl_observed_params, which calls the next. */
FGLDEF int fgl_run_unpark(fgl_run *run, int client);
/* Copy client i's model parameters (run->clients[i].model.params.size
 * floats, in the model's order) into out, which holds cap floats, whether
 * the client is resident or packed (cfg.park_idle); a packed client stays
 * packed: reading changes neither the run nor its memory. FGL_ERR_ARG (out
 * untouched; err, if not NULL, says why): no client i, one hosted by
 * another process (FGL_MPI), or cap smaller than its parameters (err says
 * how many); FGL_ERR_IO: its packed state cannot be read back (out of
 * memory for a copy from the park file, or the file changed). */
FGLDEF int fgl_run_client_params(const fgl_run *run, int client, float *out, size_t cap, fgl_error *err);
/* --- src/fed/intact.h --- */
/* ------------------------------------------------------------------------ */
/* What a hook received stays as it was sent                                */
/* ------------------------------------------------------------------------ */

/* Hooks see the other side's messages through const (fgl_msg), but a hook
 * could still cast the const away and write. In one process a download
 * part views the server's buffer and an upload's model part the client's
 * parameters; over MPI both are the receiving rank's copies. So that such a
 * write gives neither different bits in the two nor silent damage, the
 * runtime checks, with checksums (fgl__floats_sum), that every received
 * part is unchanged after each hook that can reach it, and fails the run
 * naming the client and the hook. Private to the runtime (run.h).
 *
 * Only hooks of the program's own are checked: a hook of a built-in table
 * (the library's, also when a table extended from one keeps it) never casts
 * the const away, and the built-in algorithms give the same bits in one
 * process and under MPI (tests/test_mpi.sh; tests/test_sides.sh greps
 * src/fed/algos for such casts). So the built-in algorithms pay nothing,
 * and a program's hooks pay one pass over the message they could reach
 * after each of them, and one as it arrives (README, "Writing an
 * algorithm": what it costs). */

/* The runtime's state of these checks (fgl_run.intact). */
struct fgl__intact {
    unsigned user_hooks;         /* FGL__HOOK_* bits: the algorithm's hooks of the program's own (checked) */
    int written;                 /* a hook's write into what it received was caught (the first is recorded) */
    uint64_t *up_sum;            /* K x FGL_MSG_MAX_PARTS: the accepted uploads' checksums where checked */
    const float *shared_at[FGL_MSG_MAX_PARTS];   /* download part p sent whole: the buffer every
                                                    participant's download views (NULL: none) */
    uint64_t shared_sum[FGL_MSG_MAX_PARTS];      /* its checksum when the downloads were built */
};

/* --- src/fed/budget.h --- */
/* --- the memory a run needs, estimated before anything is built ------------------- */
/* fgl_run_check (run.h) refuses a run whose models would not fit
 * (cfg.mem_limit) before it allocates the first of them. */

/* --- src/fed/run.h --- */
/* ------------------------------------------------------------------------ */
/* Runs                                                                     */
/* ------------------------------------------------------------------------ */

typedef struct fgl_round_stats {
    int n_part, n_rejected;
    int n_screened, n_clipped, n_dropped;   /* rejected for their norm; clipped by NORMCLIP; secagg dropouts */
    int secagg_failed;                      /* 1: secure aggregation could not unmask the round (fewer
                                               survivors than its threshold): the models stayed */
    int n_out_of_range;                     /* secure aggregation: uploads their clients withheld because a
                                               weighted value left the ring's per-client range (counted among
                                               the rejected too; not checkpointed: --secagg is never) */
    int n_lost;                             /* participants whose host stopped answering (a transport) */
    int n_fallback;                         /* robust aggregations that had too few accepted uploads for
                                               the rule's parameter and fell back (fgl_server_mix) */
    long long dp_draws;                     /* DP: noise values drawn into the round's release (every value of
                                               every model and delta part when the round was noised; -1: not
                                               counted, a checkpoint of an older build) */
    double train_loss, val_acc, test_acc;   /* means over clients (loss: accepted ones); a link task's val_acc
                                               and test_acc are AUC, its means weighted by the split's positive
                                               pairs */
    double val_hits, test_hits;             /* link tasks: Hits@K, means as AUC's (other tasks: NaN) */
    double val_f1, test_f1;                 /* node and graph tasks: macro-F1 (fgl_class_metrics), means over
                                               the clients that have one (labelled samples in the split) */
    double val_auc, test_auc;               /* two-class node and graph tasks: ROC-AUC, means over the clients
                                               that have one (both classes in the split); else NaN */
    size_t bytes_up, bytes_down;
    double t_train, t_server, t_eval;       /* seconds */
} fgl_round_stats;

struct fgl_run {
    fgl_fed_config cfg;
    fgl_algo algo;               /* a copy of the table */
    fgl_settings set;
    char unknown_param[FGL_SETTINGS_UNKNOWN]; /* set.unknown: a parameter read but not declared */
    int n_clients;
    fgl_client *clients;
    fgl_server server;
    fgl_model ref;               /* the common initial model (server->init) */
    const fgl_node_data *pub;    /* public data the server holds, or NULL (borrowed) */
    int *n_nodes;                /* per client: nodes it holds */
    size_t *up_len_of;           /* K x FGL_MSG_MAX_PARTS: declared upload sizes per client */
    int *n_registered;
    const fgl_msg **up_view;     /* what server.up points to */
    fgl_msg *down;               /* K downloads */
    int *part;                   /* participants of the current (or, between rounds, the next) round */
    int n_part;
    unsigned char *accepted;     /* per client: upload accepted this round */
    unsigned char *checked;      /* per client: 0 upload not checked yet this round, 1 well formed, 2 malformed */
    struct {                     /* per client phase (0 training, 1 evaluation): fgl__run_clients' trial of its */
        int calls, pick;         /* two ways of running a client alone; pick: 0 undecided, 1 alone, 2 beside */
        double secs[2];
    } sched[2];
    double *up_norm;             /* K x FGL_MSG_MAX_PARTS: update norms of checked uploads (screening) */
    struct fgl__intact intact;   /* the checks that what hooks received stays as sent (intact.h) */
    FILE *park_file;             /* cfg.park_idle 2: the idle clients' packed states, or NULL */
    struct fgl__chunk **arenas;  /* tape arenas of clients gone idle, lent to the next that trains or evaluates */
    int n_arenas, cap_arenas;
    size_t park_end;             /* its length */
    int *rejected_by;            /* per client: uploads rejected so far */
    unsigned char *attacker;     /* per client: a simulated attacker (cfg.attack) */
    unsigned char *dropped;      /* per client: dropped out of this round's secure aggregation */
    unsigned char *trained;      /* per client: took part in the round just run */
    unsigned char *lost;         /* per client: its host stopped answering (a transport's timeout) */
    struct fgl__sa *sa;          /* secure aggregation: the server's side of the round */
    unsigned char dp_key[32];    /* DP: the server's secret key (noise, participation); never saved */
    float *dp_out[FGL_MSG_MAX_PARTS];   /* DP: the round's release of each model or delta part (server.dp_release) */
    int rejected_total;
    size_t bytes_up, bytes_down; /* totals, initial broadcast included */
    fgl_round_stats *stats;      /* per round (cfg.rounds) */
    double *client_val, *client_test, *client_loss;   /* rounds x clients */
    double *client_val_f1, *client_test_f1;          /* rounds x clients: macro-F1 (NaN: none) */
    double *client_val_auc, *client_test_auc;        /* rounds x clients: two-class ROC-AUC (NaN: none) */
    size_t *client_up, *client_down;                 /* rounds x clients: bytes */
    int round;                   /* rounds completed */
    int started;                 /* models built, algorithm initialised */
    double t_start;
    fgl_error err;
    int role;                    /* FGL__ROLE_*: what this process does of the run (a transport splits it) */
    int allow_other_build;       /* fgl_run_load: accept a checkpoint of another build (fgl_build_id) */
    char other_build[200];       /* the other build a resumed checkpoint came from ("": this one) */
    struct fgl__transport *transport;   /* clients hosted elsewhere and how to reach them (NULL: all here) */
};

/* fgl_run_init checks, before anything is built, what does not depend on
 * the algorithm's parameters, and refuses (FGL_ERR_ARG, nothing left to
 * free) a run that could not start: an algorithm that is NULL (the error
 * names the name fgl_algo_find did not find); the configuration's ranges
 * (rounds >= 1, local_epochs >= 0, batch sizes >= 0, frac in (0, 1], a
 * known optimizer with lr > 0, weight decay, momentum, eps and clip >= 0,
 * betas in [0, 1), all finite; threads >= 0, park_idle 0..2, eval_every >=
 * 0; a known metric (FGL_METRIC_AUC: every client's model two outputs;
 * link tasks: accuracy only, their AUC already); a known robust rule with
 * trim, f, m >= 0, screen >= 0 and clip > 0 for normclip; a known attack with a fraction in [0, 1]; dp clip and
 * noise >= 0); the clients' data; every client's task and model against
 * the algorithm (its prepare_spec, called on a copy of each client's spec
 * with the parameters' defaults: FedStar and GPFL refuse node tasks,
 * pFedGNN graph tasks, the prototype methods a model without a hidden
 * representation ...); and the defences against the algorithm's messages
 * (README, "Covered or refused"). The models, the algorithm's state and
 * the initial broadcast come with the first round (or fgl_run_start), so
 * parameters can be set in between. */
FGLDEF int fgl_run_init(fgl_run *run, const fgl_fed_config *cfg, const fgl_algo *algo,
                        const fgl_client_data *clients, int n_clients, fgl_error *err);
/* Every check fgl_run_start makes, with the parameters as set, without
 * building anything: those of fgl_run_init again, and the ones that depend
 * on the parameters (the clients' shared parameter layouts, the message
 * sizes the parameters give). FGL_OK, or the error in run->err; the run
 * is unchanged either way (FGL_OK at once once started). A program that
 * runs several configurations calls it for each before it spends time on
 * any (fglrun does, for every --algo of its command line). Algorithms'
 * own range checks of their parameters (in their init hooks) still come
 * at the start. */
FGLDEF int fgl_run_check(fgl_run *run);
FGLDEF int fgl_run_start(fgl_run *run);
/* Public data the server holds (e.g. nodes withheld from every client and
 * made public: fgl_scenario.pub); borrowed, it must outlive the run. Its
 * features must have the clients' width. Server hooks read it as s->pub;
 * clients see only what a download sends them. Before the start; NULL
 * removes it. */
FGLDEF int fgl_run_set_public(fgl_run *run, const fgl_node_data *pub, fgl_error *err);
/* Set an algorithm parameter by name ("mu", "0.01"); before the start. */
FGLDEF int fgl_run_set(fgl_run *run, const char *key, const char *value, fgl_error *err);
/* An algorithm parameter's value. */
FGLDEF double fgl_run_get(const fgl_run *run, const char *key);
/* One round; FGL_OK or the first error (run->err names the round, the
 * client or the server, and why). */
FGLDEF int fgl_run_round(fgl_run *run);
FGLDEF void fgl_run_free(fgl_run *run);
/* 1 if client c's upload was accepted this round. */
FGLDEF int fgl_run_accepted(const fgl_run *run, int client);

/* --- src/fed/refusals.h --- */
/* --- covered or refused: a run's defences against its algorithm ------------------- */
/* A defence is accepted only when every upload part that reaches the
 * models goes through the path it guards; fgl_run_init, fgl_run_check and
 * fgl_run_start call this before anything is drawn or built (README,
 * Privacy: "Covered or refused"). */

/* --- src/fed/checkpoint.h --- */
/* Checkpoint the whole run (models, optimizers, RNG streams, every state
 * entry, history) and resume it: the resumed run finishes with the same
 * bits. The file records a fingerprint of the configuration, the
 * algorithm's parameters and the clients' data; loading it into a run that
 * differs is refused, and a failed load leaves the run as it was. The
 * run's secrets are never in it: with DP from the system's entropy a
 * resumed run draws new noise (the same only with cfg.secrets from a seed),
 * and a secure-aggregation run whose clients live in other processes is
 * not saved at all (the file would hold every client's state).
 * The file also records the build that wrote it (fgl_build_id): another
 * build may round differently (other instruction sets, fast math, another
 * compiler), so that the resumed run would match neither build's bits;
 * fgl_run_load refuses a checkpoint of another build (or of one that did not
 * record it) unless run->allow_other_build is set, and then copies the
 * other build's identity into run->other_build for the record. */
FGLDEF int fgl_run_save(const fgl_run *run, const char *path, fgl_error *err);
FGLDEF int fgl_run_load(fgl_run *run, const char *path, fgl_error *err);
/* The identity of this build of the library, as far as it decides a run's
 * floating-point bits: the library version, the compiler and its version,
 * the instruction sets compiled for, fast math, and FGL_BUILD_FLAGS when
 * the build defines it (a string: the compiler flags). Thread counts, MPI
 * and OpenMP give the same bits and are not in it. */
FGLDEF const char *fgl_build_id(void);

/* --- src/fed/observe.h --- */
/* ------------------------------------------------------------------------ */
/* Observers                                                                */
/* ------------------------------------------------------------------------ */

/* What an algorithm's observers (fgl_algo.report, fgl_algo.client_matrix)
 * see of a run: a read-only summary, never the run itself. Its arrays
 * point into the run (valid while it lives and does not change, i.e. not
 * across a round); the server's state and the clients' models are read
 * through the functions below, which return const memory. The runtime
 * builds it (fgl_run_observe) each time an observer is called
 * (fgl_run_report, fgl_run_client_matrix); a program may build one to read
 * a run the same way. */
struct fgl_observed {
    const char *algo;              /* the algorithm's name */
    const fgl_settings *set;       /* its parameters (fgl_get(o->set, "tau")) */
    const fgl_fed_config *fed;     /* the run's configuration */
    int n_clients;                 /* K */
    int task;                      /* FGL_TASK_NODE, FGL_TASK_GRAPH or FGL_TASK_LINK */
    int started;                   /* 0 before the first round (or fgl_run_start): no state yet, and
                                      observers give nothing */
    int rounds;                    /* rounds completed */
    size_t dim[FGL_DIM_RULES];     /* the size rules' values as the server sees them (fgl_observed_dim) */
    int n_public;                  /* public nodes the server holds (fgl_run_set_public; 0: none) */
    const int *n_train;            /* K: training samples each client registered */
    const int *n_nodes;            /* K: nodes each client holds (what FGL_DIM_NODES means for it) */
    const fgl_round_stats *stats;  /* `rounds` rounds: means, counts, bytes, seconds */
    const double *client_val, *client_test;   /* rounds x K accuracies (row r: round r; NaN where a round
                                                 was not evaluated or the client's host was lost) */
    const double *client_loss;     /* rounds x K: training loss (of the round's participants) */
    const size_t *client_up, *client_down;    /* rounds x K: bytes */
    const void *runtime;           /* the runtime's: the functions below read through it */
};

/* Client i's model, as observers see it: its layout (the spec its
 * algorithm prepared, the slices in the order they were added, with their
 * offsets into the parameters) and its size in floats. */
typedef struct fgl_observed_model {
    const fgl_model_spec *spec;
    const fgl_slice *slices;
    int n_slices;
    size_t size;
} fgl_observed_model;

/* The summary of run (o's arrays point into it). */
FGLDEF void fgl_run_observe(const fgl_run *run, fgl_observed *o);
/* The algorithm's report on run (buf "" when it has none, or nothing to
 * say yet) and its K x K client matrix of the last round, written into out
 * (K x K floats): FGL_OK, or FGL_ERR_EMPTY (out untouched) when the
 * algorithm has no matrix or none yet. */
FGLDEF void fgl_run_report(const fgl_run *run, char *buf, size_t cap);
FGLDEF int fgl_run_client_matrix(const fgl_run *run, float *out);
/* What a size rule means in the run (fgl_server_dim); a positive count is
 * itself. */
FGLDEF size_t fgl_observed_dim(const fgl_observed *o, int rule);
/* The server's state entries, read-only (fgl_floats, fgl_ints,
 * fgl_get_scratch on the server's store: a missing name is a programmer
 * error). NULL before the start. */
FGLDEF const float *fgl_observed_floats(const fgl_observed *o, const char *name);
FGLDEF const int *fgl_observed_ints(const fgl_observed *o, const char *name);
FGLDEF const void *fgl_observed_scratch(const fgl_observed *o, const char *name);
/* The server's K x K floats entry `name` copied into out (what most
 * client_matrix observers return): FGL_OK; FGL_ERR_EMPTY before the start
 * (out untouched); FGL_ERR_SHAPE if it is not K x K floats. */
FGLDEF int fgl_observed_matrix(const fgl_observed *o, const char *name, float *out);
/* Client i's model layout (FGL_OK), and its parameters (m.size floats, in
 * the model's order) copied into out, which holds cap floats, whether the
 * client is resident or packed (fgl_run_client_params: reading changes
 * nothing). FGL_ERR_ARG (out untouched): no client i, the run has not
 * started, the client is hosted by another process (FGL_MPI), whose model
 * is not here, or cap is smaller than m.size. */
FGLDEF int fgl_observed_layout(const fgl_observed *o, int client, fgl_observed_model *m);
FGLDEF int fgl_observed_params(const fgl_observed *o, int client, float *out, size_t cap);

/* A run's figures so far, over its rounds (best and last). */
typedef struct fgl_run_summary {
    int rounds, best_round;       /* best_round: the highest mean validation score of cfg.metric (0-based; the
                                     first of equals; rounds without one are skipped, and if no round has
                                     one, the accuracy's is taken: metric then says FGL_METRIC_ACC) */
    int metric;                   /* the FGL_METRIC_* that chose best_round */
    double best_val, best_test;   /* mean accuracy over clients at best_round (link tasks: AUC) */
    double last_val, last_test;   /* mean over clients at the last round */
    double best_val_f1, best_test_f1, last_val_f1, last_test_f1;       /* macro-F1 (link tasks: NaN) */
    double best_val_auc, best_test_auc, last_val_auc, last_test_auc;   /* two-class ROC-AUC (else NaN) */
    double best_val_hits, best_test_hits, last_val_hits, last_test_hits;   /* link tasks: Hits@K (else NaN) */
    size_t bytes_up, bytes_down;
    int rejected;                 /* uploads rejected (screened ones included) */
    int screened, clipped, dropped;
    int out_of_range;             /* secure aggregation: uploads withheld out of the ring's range (rejected) */
    int lost;                     /* uploads lost with a host that stopped answering (FGL_MPI) */
    int fallback;                 /* robust aggregations that fell back (fgl_round_stats.n_fallback) */
    double seconds, t_train, t_server, t_eval;
} fgl_run_summary;
FGLDEF void fgl_run_summarize(const fgl_run *run, fgl_run_summary *s);

/* --- src/fed/similarity.h --- */
/* ------------------------------------------------------------------------ */
/* How a client-to-client matrix relates to the clients' labels             */
/* ------------------------------------------------------------------------ */

/* Spearman's rank correlation of x and y (n values; ties get their mean
 * rank); 0 if either is constant or n < 2. */
FGLDEF double fgl_spearman(const double *x, const double *y, int n);
/* sim (K x K) = cosine similarity of the clients' label histograms (all
 * their labelled nodes, or all their graphs). */
FGLDEF int fgl_label_similarity(const fgl_client_data *cd, int K, double *sim);
/* The mean over clients i of the Spearman correlation, across j != i,
 * between m[i][j] (e.g. an algorithm's client_matrix) and ref[i][j] (e.g.
 * fgl_label_similarity): 1 when every client ranks the others in the order
 * of ref. perm (may be NULL) compares with ref[perm[i]][perm[j]] instead: a
 * random permutation gives a null value. */
FGLDEF double fgl_rowwise_spearman(const float *m, const double *ref, int K, const int *perm);

/* --- src/fed/scenario.h --- */
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

/* --- src/fed/mpi.h --- */
/* ------------------------------------------------------------------------ */
/* Distributed runs over MPI (define FGL_MPI before including)               */
/* ------------------------------------------------------------------------ */
#ifdef FGL_MPI
/* Rank 0 is the server; the clients are spread over the other ranks in
 * contiguous blocks (client i on the (1 + floor(i L / K))-th of the L live
 * worker ranks), several per rank, OpenMP inside a rank. Rank 0 builds the
 * run as usual (it holds the data only to send each rank its own clients'
 * share: node data, with its halo if it has one and a link client's edge
 * split, or graph sets), then:
 *       if (rank == 0) {
 *           fgl_run_init(&run, &cfg, algo, cd, K, &err);
 *           fgl_mpi_distribute(&run, MPI_COMM_WORLD, NULL, &err);
 *           for (r = 0; r < cfg.rounds; r++) fgl_run_round(&run);   // as in one process
 *           fgl_run_free(&run);                 // the workers drop the run
 *           if (fgl_mpi_finish(MPI_COMM_WORLD)) // they return from fgl_mpi_serve
 *               ...                             // some rank did not: see below
 *       } else fgl_mpi_serve(MPI_COMM_WORLD, &err);
 * fgl_run_round, fgl_run_save and fgl_run_load then work across the
 * processes with the same bits as in one: every rank runs the same build
 * (checked), each client's computation happens where it lives, uploads and
 * downloads travel as their declared parts (4 bytes a float, plus a header
 * per message), and only the next round's participants get a download.
 * Algorithms must be registered (fgl_algo_register) in every process, as
 * the workers find them by name.
 *
 * Faults. A rank that does not answer within the timeout (dead, stopped,
 * hung, or sending garbage; a reply that begins but whose body does not
 * come within another timeout, too) is lost: its clients are left out of the rounds
 * (counted in fgl_round_stats.n_lost) and of the accuracy means, and the
 * run goes on; checkpoints need every client, so the last one written
 * before the loss restarts the whole job. A lost rank stays lost on that
 * communicator: later runs spread their clients over the other ranks (a
 * rank lost while a run starts, too; with no worker left the run stays on
 * rank 0). The server never blocks on a lost rank: every send is
 * non-blocking and given up (MPI_Request_free) when the rank is lost, and
 * fgl sets the communicator's error handler to MPI_ERRORS_RETURN, so that a
 * failed call reaches fgl (which loses the rank) instead of ending the job.
 * Whether the job survives a process that dies is the MPI's decision: Open
 * MPI 4 ends the whole job unless mpirun has --enable-recovery (README,
 * "Across processes and machines"). fgl never aborts: fgl_mpi_finish tells
 * the program whether MPI_Finalize is safe, and the program decides. */
typedef struct fgl_mpi_options {
    double timeout;              /* seconds a rank may take to answer before it is lost (300) */
    int fail_rank, fail_round;   /* a simulated fault: rank fail_rank (0: none) stops answering from
                                    round fail_round (1-based) on; fail_round 0: from the run's start
                                    (it never answers the run's description) */
    int fail_exit;               /* 1: instead, that rank posts the start of a large reply and ends its
                                    process (_Exit, status 70), as a process killed in mid-send: the
                                    server sees a reply begin whose body never comes. For tests of
                                    the server under mpirun --enable-recovery (plain mpirun ends the
                                    job); fgl never ends a process otherwise */
} fgl_mpi_options;

typedef struct fgl_mpi_stats {
    int ranks, lost_ranks;               /* lost_ranks: in this run (while it started, too) */
    int lost_clients;                    /* the clients left out with them */
    size_t bytes_sent, bytes_received;   /* by the server during the run, headers included */
    size_t bytes_data;                   /* the clients' data and the run's description, at the start */
    double t_exchange;                   /* server seconds from posting commands to the last reply */
    double t_remote;                     /* sum over exchanges of the slowest rank's own seconds */
    char note[256];                      /* each lost rank, which clients, and why (" | " between; those that fit) */
} fgl_mpi_stats;

FGLDEF fgl_mpi_options fgl_mpi_options_default(void);
/* Rank 0, after fgl_run_init (and fgl_run_set) and before the first round:
 * send each other live rank its clients' data and the run's description.
 * With one process (or no live worker left) the run stays where it is. */
FGLDEF int fgl_mpi_distribute(fgl_run *run, MPI_Comm comm, const fgl_mpi_options *opt, fgl_error *err);
/* Ranks 1..P-1: host clients for the runs rank 0 distributes, until
 * fgl_mpi_finish. Returns FGL_OK, or an error that stopped this process. */
FGLDEF int fgl_mpi_serve(MPI_Comm comm, fgl_error *err);
/* fgl_mpi_serve that, while it waits for the server (a command, or a reply
 * to be taken), asks server_alive(ctx) about once a second whether rank 0
 * still exists; when it says 0, returns FGL_ERR_IO ("the server is gone").
 * MPI cannot tell a rank that rank 0 died; the program can (fglrun: rank
 * 0's process id, on the same host). */
FGLDEF int fgl_mpi_serve_watched(MPI_Comm comm, int (*server_alive)(void *ctx), void *ctx, fgl_error *err);
/* Rank 0: no more runs. Tells every other rank to return from
 * fgl_mpi_serve and waits for each to confirm (up to the longest timeout of
 * the runs; ranks lost before, a second). Returns how many did not confirm:
 * 0, and MPI_Finalize waits for no lost rank; otherwise they are dead or
 * stopped (fgl_mpi_rank_gone says which), and with Open MPI 4 MPI_Finalize
 * would wait for a stopped one forever (the program ends the job, MPI_Abort,
 * after writing what it has). */
FGLDEF int fgl_mpi_finish(MPI_Comm comm);
/* Rank 0: 1 if rank was lost on comm (in a run, while one started, or at
 * fgl_mpi_finish; 2: it did not confirm fgl_mpi_finish), else 0. */
FGLDEF int fgl_mpi_rank_gone(MPI_Comm comm, int rank);
/* What crossed MPI for a distributed run (0 and ranks 1 for a local one). */
FGLDEF void fgl_mpi_stats_get(const fgl_run *run, fgl_mpi_stats *out);
#endif /* FGL_MPI */

#ifdef __cplusplus
}
#endif
#endif /* FGL_FED_H */

#if (defined(FGL_IMPLEMENTATION) || defined(FGL_TEST_PRIVATE)) && !defined(FGL_FED_H_PRIVATE)
#define FGL_FED_H_PRIVATE /* private declarations: see fgl.h's */
#ifdef __cplusplus
extern "C" {
#endif

/* --- src/fed/message.h --- */
/* A checksum of n floats' bits (whether a message part changed). */
FGL__PRIVATE uint64_t fgl__floats_sum(const float *x, size_t n);
/* --- src/fed/store.h --- */
enum { FGL__E_FLOATS, FGL__E_INTS, FGL__E_MODEL, FGL__E_OPTIM, FGL__E_PARAMS, FGL__E_RNG, FGL__E_SCRATCH, FGL__E_TAPE };

#define FGL__ENTRY_NAME 40

struct fgl__entry {
    char name[FGL__ENTRY_NAME];
    int kind;
    size_t n;                   /* floats / ints */
    void *p;
    int owned;                  /* the store frees p */
    void (*destroy)(void *);    /* scratch */
};

FGL__PRIVATE void fgl__store_init(fgl_store *st, int owner);
FGL__PRIVATE void fgl__store_free(fgl_store *st);
/* --- src/fed/crypto.h --- */
#if !defined(_WIN32) && (defined(__unix__) || defined(__APPLE__))
#define FGL__ENTROPY_DEVICE 1
/* n bytes from the device at path (fgl_os_entropy's is /dev/urandom, fixed:
 * the path is a parameter for the tests only), with its checks. */
FGL__PRIVATE int fgl__entropy_device(const char *path, void *buf, size_t n, fgl_error *err);
#endif
FGL__PRIVATE uint64_t fgl__gf61_mul(uint64_t a, uint64_t b);
FGL__PRIVATE uint64_t fgl__gf61_inv(uint64_t a);
/* --- src/fed/defences.h --- */
FGL__PRIVATE double fgl__dp_epsilon(double q, double sigma, int rounds, double delta);
FGL__PRIVATE double fgl__normal_quantile(double p);
FGL__PRIVATE int fgl__defended_mean(fgl_server *s, int p, float *out, size_t n);
/* --- src/fed/secagg.h --- */
/* Purposes of the secrets (the KDF's label): one stream each. */
enum {
    FGL__SECRET_DP_KEY = 0x44504b59,   /* "DPKY": the server's DP key */
    FGL__SECRET_DP_NOISE = 0x44504e53, /* "DPNS": noise, under the DP key (round, part) */
    FGL__SECRET_DP_PART = 0x44505054,  /* "DPPT": Poisson participation, under the DP key (round) */
    FGL__SECRET_SA_C = 0x53414343,     /* "SACC": a client's share-encryption key (client, round) */
    FGL__SECRET_SA_S = 0x53414353,     /* "SACS": its masking key */
    FGL__SECRET_SA_B = 0x53414342,     /* "SACB": its self-mask seed */
    FGL__SECRET_SA_COIN = 0x5341434e,  /* "SACN": the coins of its Shamir polynomials */
    FGL__SA_ENC = 0x53414545,          /* "SAEE": share-encryption key from the X25519 secret */
    FGL__SA_PAIR = 0x53415050,         /* "SAPP": pairwise mask key from the X25519 secret */
    FGL__SA_MASK = 0x53414d4b,         /* "SAMK": the nonce label of mask streams */
    FGL__SA_METRIC = 0x53414d54,       /* "SAMT": the nonce label of the metrics' mask streams */
    FGL__SA_CONFIRM = 0x53414346,      /* "SACF": the nonce label of the survivors list's tags */
    FGL__SECRET_LABEL_LEN = 0x4c424c4e,   /* "LBLN": the run label's length, first link of the key's chain */
    FGL__SECRET_LABEL_BLOCK = 0x4c424c42  /* "LBLB": a block of 8 bytes of the run label */
};

#define FGL__SA_PK 64                                 /* a participant's two public keys */
#define FGL__SA_PT (12 + 2 * FGL_SHARE_BYTES)         /* from, to, round, then the two shares */
#define FGL__SA_CT (FGL__SA_PT + 16)                  /* sealed, with its tag */
#define FGL__SA_REV FGL_SHARE_BYTES                   /* one revealed share */
#define FGL__SA_TAG 16                                /* one tag of the consistency check */

/* A client's side of one round (its host only; never checkpointed). */
struct fgl__sa_client {
    int round, n, t, me;          /* the participants, the threshold, its place among them */
    int *ids;                     /* n: the participants' ids, increasing */
    unsigned char c_sk[32], s_sk[32], self[32];
    unsigned char *pk;            /* n x 64: their public keys (c, s) */
    unsigned char *enc;           /* n x 32: the share-encryption key with each (one X25519 each, kept) */
    unsigned char *mask;          /* n x 32: the pairwise mask key with each (derived with enc, step 2) */
    unsigned char own[2 * FGL_SHARE_BYTES];   /* its own shares of its s_sk and b (it holds one too) */
    unsigned char *alive;         /* n: after its reveal, the round's survivors (kept with mask, step 5) */
};

/* The server's side of one round. */
struct fgl__sa {
    int round, n, t, ready;       /* ready: keys and shares went round, uploads may be unmasked */
    int *ids;                     /* n participants, increasing */
    unsigned char *pk;            /* n x 64 */
    unsigned char *ct;            /* n x n x CT: [a n + b] from participant a to b (a != b) */
    unsigned char *alive;         /* n: its masked upload was accepted */
    unsigned char *rev;           /* n x n x REV: [a n + b] survivor a's share about b */
    unsigned char *has_rev;       /* n: survivor a's reveals arrived */
    unsigned char *tag;           /* n x n x TAG: [a n + b] survivor a's tag of the survivors list for b */
    uint32_t *sum;                /* len + 1: the unmasked sum (values, then the weight) */
    size_t len;
    uint64_t *mw;                 /* n x FGL__SA_NM: each survivor's masked metrics (step 5) */
    unsigned char *has_mw;        /* n: they arrived */
};

/* Step 5's vector: the round's metrics as (weighted value, weight) pairs
 * (fgl__sa_metrics_mask says which), summed in Z / 2^64. */
#define FGL__SA_NM 18
#define FGL__SA_METRIC_BITS 24

FGL__PRIVATE int fgl__secret_bytes(const fgl_fed_config *cfg, unsigned char out[32], uint32_t purpose, uint32_t a,
                                   uint32_t b, fgl_error *err);
FGL__PRIVATE void fgl__add_stream(uint32_t *v, size_t n, const unsigned char key[32], int round, int sign);
FGL__PRIVATE int fgl__pair_key(unsigned char out[32], const unsigned char sk[32], const unsigned char pk[32],
                               uint32_t label, int i, int j);
FGL__PRIVATE int fgl__sa_keys(fgl_run *run, fgl_client *c, int round, int n, const int *ids,
                              unsigned char pk[FGL__SA_PK]);
FGL__PRIVATE int fgl__sa_share(fgl_run *run, fgl_client *c, const unsigned char *pks, int t, unsigned char *ct);
FGL__PRIVATE int fgl__sa_confirm(fgl_client *c, const unsigned char *alive, unsigned char *tags);
FGL__PRIVATE int fgl__sa_reveal(fgl_client *c, const unsigned char *alive, const unsigned char *tags,
                                const unsigned char *ct, unsigned char *rev);
FGL__PRIVATE int fgl__sa_metrics_mask(fgl_client *c, int round, int evaluated, uint64_t out[FGL__SA_NM]);
/* --- src/fed/intact.h --- */
/* The hooks that can reach what they received, as bits of
 * fgl_run.user_hooks: set for a hook that is not a built-in table's. */
enum {
    FGL__HOOK_RECEIVE = 1,
    FGL__HOOK_TRAIN = 2,     /* local_train, train.loss, train.grad, train.after_step */
    FGL__HOOK_UPLOAD = 4,
    FGL__HOOK_EVAL = 8,      /* eval_model */
    FGL__HOOK_AGGREGATE = 16
};
#define FGL__HOOKS_DOWN (FGL__HOOK_RECEIVE | FGL__HOOK_TRAIN | FGL__HOOK_UPLOAD) /* checked with c->down_sum */
/* The FGL__HOOK_* bits of a's hooks that are neither NULL nor a built-in
 * table's (src/fed/registry.h). */
FGL__PRIVATE unsigned fgl__user_hooks(const fgl_algo *a);

/* --- src/fed/run.h --- */
FGL__PRIVATE double fgl__alone_speed(double w, int g);
FGL__PRIVATE int fgl__schedule(int nt, int n, const double *w, int *order);
FGL__PRIVATE int fgl__alone_trial(fgl_run *run, int phase);
FGL__PRIVATE void fgl__alone_record(fgl_run *run, int phase, int alone, double secs);
FGL__PRIVATE void fgl__side_by_side(fgl_run *run, const int *ids, const int *order, const double *w, int first, int n,
                                    int nt, void (*step)(fgl_run *, fgl_client *, const void *), const void *ctx);
/* --- src/fed/algos/shared.h --- */
FGL__PRIVATE void fgl__simplex_project(const double *v, int k, double *x, double *work);
FGL__PRIVATE double fgl__stoer_wagner(const double *w, int n, unsigned char *side);
FGL__PRIVATE double fgl__dtw(const double *x, int n, const double *y, int m);
/* --- src/fed/algos/scaffold.h --- */
enum { FGL__CV_SCAFFOLD, FGL__CV_FEDDC }; /* fgl_algo.variant */
/* --- src/fed/algos/gcfl.h --- */
enum { FGL__GCFL, FGL__GCFL_PLUS }; /* fgl_algo.variant */
/* --- src/fed/algos/fedproto.h --- */
FGL__PRIVATE fgl_node *fgl__proto_loss(fgl_client *c, const fgl_step *st);
/* --- src/fed/algos/fedpg.h --- */
/* Per hop, a centres x nodes matrix whose row i averages N^h(centre i)
 * (values 1/|N^h|; an empty row: no neighbours at that hop), its
 * transpose, and the centres' classes. */
typedef struct fgl__pg_rings {
    int H, n;                     /* hops 1..H (hop 0 is the centre itself), centres */
    int *centre, *label;
    fgl_csr hop[FGL_MAX_LAYERS + 1], hop_t[FGL_MAX_LAYERS + 1];
    int on_tape;                  /* memory from an arena: nothing to free */
} fgl__pg_rings;

FGL__PRIVATE void fgl__pg_rings_free(void *p);
FGL__PRIVATE int fgl__pg_rings_graph(fgl__pg_rings *r, const fgl_csr *adj, const int *centre, const int *label, int n,
                                     int H, fgl_tape *t);
FGL__PRIVATE float fgl__pg_kth_largest(float *a, size_t m, size_t k);
FGL__PRIVATE int fgl__pg_rings_cosine(fgl__pg_rings *r, const float *z, const int *label, int n, int d, int H,
                                      double band, fgl_tape *t);
FGL__PRIVATE fgl_node *fgl__fedpg_loss(fgl_client *c, const fgl_step *st);
/* --- src/fed/algos/fedopt.h --- */
enum { FGL__OPT_AVGM, FGL__OPT_ADAGRAD, FGL__OPT_ADAM, FGL__OPT_YOGI }; /* fgl_algo.variant */
/* --- src/fed/algos/fedsage.h --- */
/* The client's derived data (rebuilt from the seed and its data, never saved). */
typedef struct fgl__fs_data {
    int n, F, P, n_imp;
    float *x;               /* n x F dense features of the local graph */
    int *imp;               /* n_imp: local id of each remaining node */
    int *miss_ptr, *miss;   /* remaining node i misses local nodes miss[miss_ptr[i] .. miss_ptr[i+1]-1] */
    fgl_csr imp_adj;
    float *imp_x;
    fgl_gnn_graph imp_g, full_g;
    int built_imp, built_full;
    /* the mended graph (the classifier's) */
    int mended;
    fgl_csr m_adj;
    float *m_x;
    int *m_y;
    unsigned char *m_mask;
    fgl_node_data m_nd;
    fgl_gnn_graph m_g;
} fgl__fs_data;
/* Tests: client c's generated-neighbour counts k_v (n ints), recomputed
 * from its generator in evaluation mode; its mended graph (NULL before the
 * first classifier round). */
FGL__PRIVATE int fgl__fedsage_counts(fgl_client *c, int *kv);
FGL__PRIVATE const fgl_gnn_graph *fgl__fedsage_mended(const fgl_client *c);
/* --- src/fed/algos/adafgl.h --- */
/* Tests: AdaFGL's optimised propagation matrix (n x n, dense, row-major) from
 * the local graph adj and the global model's soft labels P (n x C):
 * D^-1/2 (alpha A + (1 - alpha) S + I) D^-1/2, S_ij = 1 when i != j and
 * the cosine of softmax(P_i) and softmax(P_j) exceeds sim; and the
 * homophily estimate of non-parametric label propagation (the accuracy on
 * the held-out half `eval` of the labelled nodes `lab` propagated from the
 * other half over adj_gcn). */
FGL__PRIVATE void fgl__adafgl_propagation(const fgl_csr *adj, const float *P, int n, int C, float alpha, float sim,
                                          float *out);
FGL__PRIVATE double fgl__adafgl_lp(const fgl_csr *adj_gcn, const int *y, int C, const int *lab, int n_lab,
                                   const int *eval, int n_eval, float a, int steps, float *work);
/* --- src/fed/algos/fedgta.h --- */
/* Tests: a client's statistics (label propagation, moments, confidence) and
 * the server's mixing weights, on plain arrays (src/fed/algos/fedgta.h). */
FGL__PRIVATE int fgl__gta_stats(const fgl_csr *adj, int n_rows, const float *logits, int C, const int *y,
                                const unsigned char *train, int steps, double alpha, double temp, int m, int width,
                                float *raw, float *central, double *conf);
FGL__PRIVATE void fgl__gta_weights(int K, size_t dim, const float *mom, const double *conf,
                                   const unsigned char *present, double th, int equal, double *w, unsigned char *sel);
/* --- src/fed/algos/fgssl.h --- */
/* Tests: FGSSL's two calibration terms on hand-sized inputs, and its graph
 * augmentation (src/fed/algos/fgssl.h). */
FGL__PRIVATE fgl_node *fgl__fgssl_fnsc(fgl_tape *t, fgl_node *z, const float *zg, const int *y,
                                       const unsigned char *mask, int C, float tau);
FGL__PRIVATE fgl_node *fgl__fgssl_fgsd(fgl_tape *t, fgl_node *z, const float *zg, const fgl_csr *adj, float omega);
FGL__PRIVATE fgl_node *fgl__fgssl_edge(fgl_tape *t, fgl_node *o, const float *og, const fgl_csr *adj, float tau);
FGL__PRIVATE int fgl__fgssl_drop(const fgl_csr *adj, const float *x, const fgl_csr *xs, int n_feat, double pe,
                                 double pf, fgl_rng *r, fgl_csr *adj_out, float **x_out, fgl_csr *xs_out);
/* --- src/fed/algos/fedtad.h --- */
/* Tests: a client's class-wise knowledge reliability, its normalisation
 * over clients, and the server's pseudo graph, on plain arrays
 * (src/fed/algos/fedtad.h). */
FGL__PRIVATE int fgl__tad_ckr(const fgl_csr *adj, int n_rows, const float *x, const fgl_csr *xs, int F, const int *y,
                              const unsigned char *train, int C, int walk, double *ckr);
FGL__PRIVATE void fgl__tad_weights(int K, int C, const float *ckr, const unsigned char *present, int per_client,
                                   double *w);
FGL__PRIVATE int fgl__tad_knn(int n, int D, const float *x, int k, fgl_csr *adj);
/* --- src/fed/algos/fggp.h --- */
/* Tests: FINCH's final partition, the kNN-union graph, the two contrastive
 * losses and the prototype prediction, on plain arrays
 * (src/fed/algos/fggp.h). */
FGL__PRIVATE int fgl__finch(const float *X, int n, int d, int *label, int *n_clusters);
FGL__PRIVATE int fgl__fggp_knn_union(const fgl_csr *adj, const float *Z, int n, int d, int k, fgl_csr *out,
                                     fgl_error *err);
FGL__PRIVATE fgl_node *fgl__fggp_align_loss(fgl_tape *t, fgl_node *view2, fgl_node *view1, float tau);
FGL__PRIVATE fgl_node *fgl__fggp_cluster_loss(fgl_tape *t, fgl_node *Z, const int *y, const float *G,
                                              const int *glabel, int m, float tau);
FGL__PRIVATE void fgl__fggp_knn_scores(const float *Z, int n, int d, const float *G, const int *glabel, int m, int C,
                                       int k, float temp, float *scores);
/* --- src/fed/algos/fedgl.h --- */
/* Tests: the server's fusion of the clients' predictions and embeddings,
 * its pseudo-graph, and a client's propagation matrix with the pseudo-graph
 * added, on plain arrays (src/fed/algos/fedgl.h). */
FGL__PRIVATE void fgl__gl_fuse(int N, int C, int D, int M, const int *node, const double *w, const float *logits,
                               const float *emb, double tau, int *label, float *fused);
FGL__PRIVATE int fgl__gl_graph(int N, int D, const float *emb, int k, int *nbr, float *val, float *self);
FGL__PRIVATE int fgl__gl_augment(const fgl_csr *gcn, int k, const float *idx, const float *val, const float *self,
                                 float mu, fgl_csr *out, fgl_error *err);
/* --- src/fed/algos/feddep.h --- */
/* Tests (src/fed/algos/feddep.h): K-means on n rows of width E (k-means++
 * seeding from rng, then Lloyd's steps until no row changes cluster, at most
 * iters): centres (K x E) and each row's cluster (assign, n); K <= n. */
FGL__PRIVATE int fgl__feddep_kmeans(const float *x, int n, int E, int K, int iters, fgl_rng *rng, float *centres,
                                    int *assign);
/* The squared distance of h (E floats) to its nearest row of q (m x E) over
 * E, and that row (*best). */
FGL__PRIVATE double fgl__feddep_nearest(const float *h, const float *q, int m, int E, int *best);
/* Client c's fused embeddings zbar (n x emb_dim: the mean over the num_pred
 * slots of its mended deep neighbours, zeros beyond k_v), NULL before its
 * first classifier round; its prototypes (num_proto x emb_dim) and each
 * node's prototype index, NULL before the run starts or where num_pred = 0. */
FGL__PRIVATE const float *fgl__feddep_zbar(const fgl_client *c);
FGL__PRIVATE const float *fgl__feddep_protos(const fgl_client *c, const int **assign);
/* --- src/fed/algos/list.h --- */
/* --- the built-in algorithms ------------------------------------------------ */
/* Every built-in algorithm, in the registry's order, as X(name, file): its
 * table is built by fgl__<name>(void), defined in src/fed/algos/<file>.h.
 * This list is the one place that names them: the registry expands it, and
 * tools/amalgamate places the files it names (the "<fed/algos/list.h" line
 * of src/fed/MANIFEST), each once, in the order they first appear. Adding an
 * algorithm is a new file algos/NAME.h defining fgl__NAME and one line
 * here (tests/algo_check.sh does it with a coordinate-wise median). */
#define FGL__ALGORITHMS(X) \
    X(local, local)         \
    X(fedavg, fedavg)       \
    X(fedprox, fedavg)      \
    X(fedper, fedavg)       \
    X(scaffold, scaffold)   \
    X(ditto, ditto)         \
    X(moon, moon)           \
    X(feddc, feddc)         \
    X(gcfl, gcfl)           \
    X(gcflplus, gcfl)       \
    X(fedamp, fedamp)       \
    X(pfedgraph, pfedgraph) \
    X(fedproto, fedproto)   \
    X(fedtgp, fedtgp)       \
    X(fedstar, fedstar)     \
    X(fedpub, fedpub)       \
    X(gpfl, gpfl)           \
    X(fedpg, fedpg)         \
    X(pfedgnn, pfedgnn)     \
    X(fedavgm, fedopt)      \
    X(fedadagrad, fedopt)   \
    X(fedadam, fedopt)      \
    X(fedyogi, fedopt)      \
    X(fedgcn, fedgcn)       \
    X(fedbn, fedbn)         \
    X(fedsage, fedsage)     \
    X(adafgl, adafgl)       \
    X(fedgta, fedgta)       \
    X(fgssl, fgssl)         \
    X(fedtad, fedtad)       \
    X(fggp, fggp)           \
    X(fedgl, fedgl)         \
    X(feddep, feddep)       \
    /* (every line above ends in a backslash: a new one goes here) */

#ifdef __cplusplus
}
#endif
#endif /* FGL_FED_H_PRIVATE */

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

/* --- src/fed/config.h --- */
/* The configuration's ranges (what fgl_run_init documents; run.h). */
static int fgl__config_check(const fgl_fed_config *c, fgl_error *err) {
    const fgl_optim_config *o = &c->optim;
    const fgl_robust_config *rb = &c->robust;
    if (c->rounds < 1) return fgl_error_set(err, FGL_ERR_ARG, "run: rounds %d: at least 1", c->rounds);
    if (c->local_epochs < 0)
        return fgl_error_set(err, FGL_ERR_ARG, "run: local_epochs %d: 0 or more", c->local_epochs);
    if (c->batch_size < 0 || c->eval_batch < 0)
        return fgl_error_set(err, FGL_ERR_ARG, "run: batch_size %d, eval_batch %d: 0 or more (0: the default)",
                             c->batch_size, c->eval_batch);
    if (!(c->frac > 0 && c->frac <= 1))
        return fgl_error_set(err, FGL_ERR_ARG, "run: frac %g: the fraction of clients per round is in (0, 1]",
                             (double)c->frac);
    if (o->kind != FGL_SGD && o->kind != FGL_ADAM && o->kind != FGL_ADAMW)
        return fgl_error_set(err, FGL_ERR_ARG, "run: optim.kind %d: FGL_SGD, FGL_ADAM or FGL_ADAMW", o->kind);
    if (!(o->lr > 0 && isfinite(o->lr)))
        return fgl_error_set(err, FGL_ERR_ARG, "run: learning rate (optim.lr) %g: a finite number > 0", (double)o->lr);
    if (!(o->weight_decay >= 0 && isfinite(o->weight_decay)) || !(o->momentum >= 0 && isfinite(o->momentum)) ||
        !(o->eps >= 0 && isfinite(o->eps)) || !(o->clip_norm >= 0 && isfinite(o->clip_norm)))
        return fgl_error_set(err, FGL_ERR_ARG,
                             "run: optim weight_decay %g, momentum %g, eps %g, clip_norm %g: finite numbers >= 0",
                             (double)o->weight_decay, (double)o->momentum, (double)o->eps, (double)o->clip_norm);
    if (!(o->beta1 >= 0 && o->beta1 < 1) || !(o->beta2 >= 0 && o->beta2 < 1))
        return fgl_error_set(err, FGL_ERR_ARG, "run: optim beta1 %g, beta2 %g: in [0, 1)", (double)o->beta1,
                             (double)o->beta2);
    if (c->metric < FGL_METRIC_ACC || c->metric > FGL_METRIC_AUC)
        return fgl_error_set(err, FGL_ERR_ARG, "run: metric %d: FGL_METRIC_ACC, FGL_METRIC_F1 or FGL_METRIC_AUC",
                             c->metric);
    if (c->threads < 0 || c->park_idle < 0 || c->park_idle > 2 || c->eval_every < 0)
        return fgl_error_set(err, FGL_ERR_ARG, "run: threads %d (>= 0), park_idle %d (0, 1 or 2), eval_every %d (>= 0)",
                             c->threads, c->park_idle, c->eval_every);
    if (rb->rule < FGL_ROBUST_MEAN || rb->rule > FGL_ROBUST_NORMCLIP || rb->trim < 0 || rb->f < 0 || rb->m < 0 ||
        !(rb->screen >= 0 && isfinite(rb->screen)) || (rb->rule == FGL_ROBUST_NORMCLIP && !(rb->clip > 0)))
        return fgl_error_set(err, FGL_ERR_ARG,
                             "run: robust rule %d, trim %d, f %d, m %d, clip %g, screen %g: a known rule, counts and "
                             "screen >= 0, clip > 0 for normclip",
                             rb->rule, rb->trim, rb->f, rb->m, (double)rb->clip, (double)rb->screen);
    if (c->attack.kind < FGL_ATTACK_NONE || c->attack.kind > FGL_ATTACK_ALIE ||
        !(c->attack.frac >= 0 && c->attack.frac <= 1) || !isfinite(c->attack.arg))
        return fgl_error_set(err, FGL_ERR_ARG,
                             "run: attack %d, fraction %g, argument %g: a known attack, a fraction in [0, 1], a finite "
                             "argument", c->attack.kind, (double)c->attack.frac, c->attack.arg);
    if (!(c->dp.clip >= 0 && isfinite(c->dp.clip)) || !(c->dp.noise >= 0 && isfinite(c->dp.noise)))
        return fgl_error_set(err, FGL_ERR_ARG, "run: dp clip %g, noise %g: finite numbers >= 0 (clip 0: off)",
                             (double)c->dp.clip, (double)c->dp.noise);
    return FGL_OK;
}

static void fgl__put_f64(fgl_bytes *b, double v) {
    uint64_t u;
    memcpy(&u, &v, 8);
    fgl_bytes_put_u64(b, u);
}

static double fgl__get_f64(fgl_reader *r) {
    uint64_t u = fgl_reader_u64(r);
    double v;
    memcpy(&v, &u, 8);
    return v;
}

/* The configuration's fields that decide a run's bits (all but the thread
 * count; dp.delta only what is reported), in a fixed order: fingerprints, and what a transport sends. */
static void fgl__put_config(fgl_bytes *b, const fgl_fed_config *c) {
    fgl_bytes_put_u32(b, (uint32_t)c->rounds);
    fgl_bytes_put_u32(b, (uint32_t)c->local_epochs);
    fgl_bytes_put_u32(b, (uint32_t)c->batch_size);
    fgl__put_f64(b, c->frac);
    fgl_bytes_put_u64(b, c->seed);
    fgl_bytes_put_u32(b, (uint32_t)c->optim.kind);
    fgl__put_f64(b, c->optim.lr);
    fgl__put_f64(b, c->optim.weight_decay);
    fgl__put_f64(b, c->optim.momentum);
    fgl_bytes_put_u32(b, (uint32_t)c->optim.nesterov);
    fgl__put_f64(b, c->optim.beta1);
    fgl__put_f64(b, c->optim.beta2);
    fgl__put_f64(b, c->optim.eps);
    fgl__put_f64(b, c->optim.clip_norm);
    fgl_bytes_put_u32(b, (uint32_t)c->reset_optim);
    fgl_bytes_put_u32(b, (uint32_t)c->eval_batch);
    fgl_bytes_put_u32(b, (uint32_t)c->eval_after_train);
    fgl_bytes_put_u32(b, (uint32_t)(c->eval_every > 1 ? c->eval_every : 1));
    fgl_bytes_put_u32(b, (uint32_t)c->robust.rule);
    fgl_bytes_put_u32(b, (uint32_t)c->robust.trim);
    fgl_bytes_put_u32(b, (uint32_t)c->robust.f);
    fgl_bytes_put_u32(b, (uint32_t)c->robust.m);
    fgl__put_f64(b, c->robust.clip);
    fgl__put_f64(b, c->robust.screen);
    fgl_bytes_put_u32(b, (uint32_t)c->attack.kind);
    fgl__put_f64(b, c->attack.arg);
    fgl__put_f64(b, c->attack.frac);
    fgl__put_f64(b, c->dp.clip);
    fgl__put_f64(b, c->dp.noise);
    fgl__put_f64(b, c->dp.delta);
    fgl_bytes_put_u32(b, (uint32_t)c->secagg.on);
    fgl_bytes_put_u32(b, (uint32_t)c->secagg.frac_bits);
    fgl__put_f64(b, c->secagg.dropout);
    fgl_bytes_put_u32(b, (uint32_t)c->secagg.threshold);
    fgl_bytes_put_u32(b, (uint32_t)c->secrets.from_seed); /* never the seed (a transport sends it apart) */
    if (c->secrets.from_seed) { /* the label (not secret): it decides the secrets with the seed */
        char label[FGL_SECRETS_LABEL];
        memcpy(label, c->secrets.label, sizeof label);
        label[sizeof label - 1] = 0;
        fgl_bytes_put_str(b, label);
    }
}

#ifdef FGL_MPI /* only the MPI workers read a configuration back */
/* What fgl__put_config wrote (exact: each value goes back to its type). */
static void fgl__get_config(fgl_reader *r, fgl_fed_config *c) {
    memset(c, 0, sizeof *c);
    c->rounds = (int)fgl_reader_u32(r);
    c->local_epochs = (int)fgl_reader_u32(r);
    c->batch_size = (int)fgl_reader_u32(r);
    c->frac = (float)fgl__get_f64(r);
    c->seed = fgl_reader_u64(r);
    c->optim.kind = (int)fgl_reader_u32(r);
    c->optim.lr = (float)fgl__get_f64(r);
    c->optim.weight_decay = (float)fgl__get_f64(r);
    c->optim.momentum = (float)fgl__get_f64(r);
    c->optim.nesterov = (int)fgl_reader_u32(r);
    c->optim.beta1 = (float)fgl__get_f64(r);
    c->optim.beta2 = (float)fgl__get_f64(r);
    c->optim.eps = (float)fgl__get_f64(r);
    c->optim.clip_norm = (float)fgl__get_f64(r);
    c->reset_optim = (int)fgl_reader_u32(r);
    c->eval_batch = (int)fgl_reader_u32(r);
    c->eval_after_train = (int)fgl_reader_u32(r);
    c->eval_every = (int)fgl_reader_u32(r);
    c->robust.rule = (int)fgl_reader_u32(r);
    c->robust.trim = (int)fgl_reader_u32(r);
    c->robust.f = (int)fgl_reader_u32(r);
    c->robust.m = (int)fgl_reader_u32(r);
    c->robust.clip = (float)fgl__get_f64(r);
    c->robust.screen = (float)fgl__get_f64(r);
    c->attack.kind = (int)fgl_reader_u32(r);
    c->attack.arg = fgl__get_f64(r);
    c->attack.frac = (float)fgl__get_f64(r);
    c->dp.clip = (float)fgl__get_f64(r);
    c->dp.noise = (float)fgl__get_f64(r);
    c->dp.delta = fgl__get_f64(r);
    c->secagg.on = (int)fgl_reader_u32(r);
    c->secagg.frac_bits = (int)fgl_reader_u32(r);
    c->secagg.dropout = (float)fgl__get_f64(r);
    c->secagg.threshold = (int)fgl_reader_u32(r);
    c->secrets.from_seed = (int)fgl_reader_u32(r);
    if (c->secrets.from_seed) fgl_reader_str(r, c->secrets.label, sizeof c->secrets.label);
}
#endif

/* --- configuration ------------------------------------------------------------- */

FGLDEF fgl_fed_config fgl_fed_config_default(int task) {
    fgl_fed_config c;
    memset(&c, 0, sizeof c);
    c.local_epochs = 1;
    c.frac = 1.0f;
    c.seed = 1;
    c.optim = fgl_optim_default(FGL_ADAM);
    c.eval_batch = 512;
    c.eval_after_train = task != FGL_TASK_GRAPH;
    c.robust.screen = 100;
    c.attack.arg = 1;
    c.dp.delta = 1e-5;
    c.secagg.frac_bits = 20;
    if (task == FGL_TASK_GRAPH) {
        c.rounds = 200;
        c.batch_size = 128;
        c.optim.lr = 1e-3f;
        c.optim.weight_decay = 5e-4f;
    } else {
        c.rounds = 100;
        c.batch_size = 0;
        c.optim.lr = 0.01f;
        c.optim.weight_decay = 1e-6f;
    }
    return c;
}

FGLDEF int fgl_groups_parse(const char *s, unsigned *groups) {
    static const struct { const char *name; unsigned bits; } names[] = {
        {"all", FGL_G_ALL}, {"feature", FGL_G_FEATURE}, {"conv", FGL_G_CONV}, {"struct", FGL_G_STRUCT},
        {"head", FGL_G_HEAD}, {"mask", FGL_G_MASK}, {"norm", FGL_G_NORM}, {"bnstat", FGL_G_BNSTAT},
        {"other", FGL_G_OTHER}, {"none", 0u}};
    unsigned acc = 0;
    int sign = 1;
    const char *p = s;
    if (!s || !*s) return FGL_ERR_ARG;
    while (*p) {
        size_t len = strcspn(p, "+-,");
        size_t i, n = sizeof names / sizeof names[0];
        for (i = 0; i < n; i++)
            if (strlen(names[i].name) == len && strncmp(p, names[i].name, len) == 0) break;
        if (i == n) return FGL_ERR_ARG;
        acc = sign > 0 ? acc | names[i].bits : acc & ~names[i].bits;
        p += len;
        if (*p == '-') sign = -1;
        else if (*p) sign = 1;
        if (*p) p++;
    }
    *groups = acc;
    return FGL_OK;
}

FGLDEF void fgl_groups_format(unsigned groups, char *buf, size_t cap) {
    static const char *names[] = {"feature", "conv", "struct", "head", "mask", "norm", "bnstat", "other"};
    size_t used = 0;
    int i;
    if (!cap) return;
    buf[0] = 0;
    if (groups == FGL_G_ALL) {
        snprintf(buf, cap, "all");
        return;
    }
    if ((groups | (unsigned)FGL_G_MASK) == FGL_G_ALL || (groups | (unsigned)FGL_G_HEAD) == FGL_G_ALL) {
        snprintf(buf, cap, "all-%s", (groups | (unsigned)FGL_G_MASK) == FGL_G_ALL ? "mask" : "head");
        return;
    }
    for (i = 0; i < 8; i++)
        if (groups & (1u << i)) {
            int w = snprintf(buf + used, cap - used, "%s%s", used ? "+" : "", names[i]);
            if (w < 0 || (size_t)w >= cap - used) return;
            used += (size_t)w;
        }
    if (!used) snprintf(buf, cap, "none");
}

/* --- defences, attacks, privacy: options ------------------------------------------ */

/* "name" or "name:a[,b]" into the name and up to two numbers; the count of
 * numbers, or -1 if malformed. */
static int fgl__opt_split(const char *s, char *name, size_t cap, double *a, double *b) {
    const char *colon = strchr(s, ':');
    size_t len = colon ? (size_t)(colon - s) : strlen(s);
    char *end;
    if (!len || len >= cap) return -1;
    memcpy(name, s, len);
    name[len] = 0;
    if (!colon) return 0;
    *a = strtod(colon + 1, &end);
    if (end == colon + 1 || !isfinite(*a)) return -1;
    if (!*end) return 1;
    if (*end != ',') return -1;
    *b = strtod(end + 1, &end);
    return *end || !isfinite(*b) ? -1 : 2;
}

/* a is an integer in [lo, hi]: checked on the double, before any conversion
 * (a double outside int's range converts with undefined behaviour). */
static int fgl__opt_int(double a, int lo, int hi) { return a >= lo && a <= hi && a == floor(a); }

/* The largest count (trimmed:B, krum:F, multikrum:F,M) and norm bound
 * (normclip:M, dp clip=C) or noise multiplier a parser accepts: beyond them
 * a value is a typo, or overflows a float. */
#define FGL__OPT_MAX_COUNT 1000000
#define FGL__OPT_MAX_NORM 1e6

FGLDEF int fgl_robust_parse(const char *s, fgl_robust_config *out, fgl_error *err) {
    char name[32];
    double a = 0, b = 0;
    int n = s ? fgl__opt_split(s, name, sizeof name, &a, &b) : -1;
    fgl_robust_config r = *out;
    r.trim = r.f = r.m = 0;
    r.clip = 0;
    if (n < 0) goto bad;
    if (!strcmp(name, "mean") && n == 0) r.rule = FGL_ROBUST_MEAN;
    else if (!strcmp(name, "median") && n == 0) r.rule = FGL_ROBUST_MEDIAN;
    else if (!strcmp(name, "trimmed") && n == 1 && fgl__opt_int(a, 1, FGL__OPT_MAX_COUNT))
        r.rule = FGL_ROBUST_TRIMMED, r.trim = (int)a;
    else if (!strcmp(name, "krum") && n == 1 && fgl__opt_int(a, 0, FGL__OPT_MAX_COUNT))
        r.rule = FGL_ROBUST_KRUM, r.f = (int)a;
    else if (!strcmp(name, "multikrum") && n == 2 && fgl__opt_int(a, 0, FGL__OPT_MAX_COUNT) &&
             fgl__opt_int(b, 1, FGL__OPT_MAX_COUNT))
        r.rule = FGL_ROBUST_MULTIKRUM, r.f = (int)a, r.m = (int)b;
    else if (!strcmp(name, "normclip") && n == 1 && a > 0 && a <= FGL__OPT_MAX_NORM)
        r.rule = FGL_ROBUST_NORMCLIP, r.clip = (float)a;
    else goto bad;
    *out = r;
    return FGL_OK;
bad:
    return fgl_error_set(err, FGL_ERR_PARSE,
                         "robust rule '%s': expected mean, median, trimmed:B, krum:F, multikrum:F,M "
                         "or normclip:M (B, F, M integers up to 10^6; 0 < M <= 10^6)",
                         s ? s : "");
}

FGLDEF const char *fgl_robust_name(int rule) {
    static const char *n[] = {"mean", "median", "trimmed", "krum", "multikrum", "normclip"};
    return rule >= 0 && rule <= FGL_ROBUST_NORMCLIP ? n[rule] : "unknown";
}

FGLDEF const char *fgl_attack_name(int kind) {
    static const char *n[] = {"none", "signflip", "scale", "noise", "labelflip", "nan", "count", "alie"};
    return kind >= 0 && kind <= FGL_ATTACK_ALIE ? n[kind] : "unknown";
}

FGLDEF int fgl_attack_parse(const char *s, fgl_attack_config *out, fgl_error *err) {
    static const struct { const char *name; int kind, args; double def; } k[] = {
        {"none", FGL_ATTACK_NONE, 0, 0}, {"signflip", FGL_ATTACK_SIGNFLIP, 1, 1}, {"scale", FGL_ATTACK_SCALE, 2, 0},
        {"noise", FGL_ATTACK_NOISE, 2, 0}, {"labelflip", FGL_ATTACK_LABELFLIP, 0, 0}, {"nan", FGL_ATTACK_NAN, 0, 0},
        {"count", FGL_ATTACK_COUNT, 2, 0}, {"alie", FGL_ATTACK_ALIE, 0, 0}};
    char name[32];
    double a = 0, b = 0;
    int n = s ? fgl__opt_split(s, name, sizeof name, &a, &b) : -1;
    size_t i;
    for (i = 0; n >= 0 && n <= 1 && i < sizeof k / sizeof k[0]; i++) {
        if (strcmp(name, k[i].name)) continue;
        /* args: 0 none, 1 optional, 2 required */
        if ((k[i].args == 0 && n) || (k[i].args == 2 && !n) || !isfinite(a)) break;
        out->kind = k[i].kind;
        out->arg = n ? a : k[i].def;
        return FGL_OK;
    }
    return fgl_error_set(err, FGL_ERR_PARSE, "attack '%s': expected signflip[:L], scale:L, noise:S, labelflip, nan, "
                         "count:N, alie or none", s ? s : "");
}

FGLDEF int fgl_dp_parse(const char *s, fgl_dp_config *out, fgl_error *err) {
    fgl_dp_config d;
    const char *p = s;
    d.clip = 0;
    d.noise = 0;
    d.delta = 1e-5;
    while (p && *p) {
        char key[16], *end;
        size_t len = strcspn(p, "=");
        double v;
        if (!p[len] || len == 0 || len >= sizeof key) goto bad;
        memcpy(key, p, len);
        key[len] = 0;
        v = strtod(p + len + 1, &end);
        if (end == p + len + 1 || (*end && *end != ',') || !isfinite(v) || v < 0 || v > FGL__OPT_MAX_NORM) goto bad;
        if (!strcmp(key, "clip")) d.clip = (float)v;
        else if (!strcmp(key, "noise")) d.noise = (float)v;
        else if (!strcmp(key, "delta") && v > 0 && v < 1) d.delta = v;
        else goto bad;
        p = *end ? end + 1 : end;
    }
    if (!(d.clip > 0)) goto bad;
    *out = d;
    return FGL_OK;
bad:
    return fgl_error_set(err, FGL_ERR_PARSE,
                         "dp '%s': expected clip=C,noise=Z[,delta=D] with 0 < C <= 10^6, 0 <= Z <= 10^6, 0 < D < 1",
                         s ? s : "");
}

/* --- src/fed/message.h --- */
/* --- messages --------------------------------------------------------------- */

FGLDEF size_t fgl_msg_bytes(const fgl_msg *m) {
    size_t n = 0;
    int p;
    for (p = 0; p < m->n_parts; p++) n += m->len[p];
    return 4 * n;
}

FGLDEF int fgl_msg_find(const fgl_msg *m, const char *name) {
    int p;
    for (p = 0; p < m->n_parts; p++)
        if (strcmp(m->decl[p].name, name) == 0) return p;
    return -1;
}

static void fgl__msg_free(fgl_msg *m) {
    int p;
    for (p = 0; p < FGL_MSG_MAX_PARTS; p++) FGL_FREE(m->own[p]);
    memset(m, 0, sizeof *m);
}

/* Every part absent (owned storage kept). */
static void fgl__msg_clear(fgl_msg *m) {
    int p;
    for (p = 0; p < FGL_MSG_MAX_PARTS; p++) {
        m->part[p] = NULL;
        m->len[p] = 0;
    }
}

/* Part p present with n floats of owned storage (contents undefined). */
static float *fgl__msg_own(fgl_msg *m, int p, size_t n) {
    if (n > m->cap[p] || !m->own[p]) {
        float *d = (float *)FGL_REALLOC(m->own[p], sizeof(float) * FGL__MAX(n, 1));
        if (!d) return NULL;
        m->own[p] = d;
        m->cap[p] = FGL__MAX(n, 1);
    }
    m->part[p] = m->own[p];
    m->len[p] = n;
    return m->own[p];
}

/* Part p of m, writable: a viewed part (an upload's model part views the
 * client's parameters until the server has read it) is first copied into
 * m's own storage, so a writer never changes what it views. NULL: out of
 * memory, or the part is absent. */
static float *fgl__msg_write(fgl_msg *m, int p) {
    const float *viewed = m->part[p];
    float *x;
    if (!viewed) return NULL;
    if (viewed == m->own[p]) return m->own[p];
    if (!(x = fgl__msg_own(m, p, m->len[p]))) return NULL;
    memcpy(x, viewed, sizeof(float) * m->len[p]);
    return x;
}

/* A Fletcher sum over 64-bit words (pairs of floats) in 16 lanes: in each
 * lane the running sum of the words and the sum of those running sums,
 * modulo 2^64 (two adds a word over independent lanes, which compilers
 * vectorise: about 0.05 ns a float here with -march=native, 0.1 without,
 * 8 us for FedAvg's 184,455-float GCN on Cora), then the tail and the
 * length mixed in by invertible multiply-xorshift steps. A change of any
 * one float changes its lane's running sum and so the result; two changes
 * cancel only if they cancel in both sums. A hook's write is caught; an
 * adversary aiming at a collision is not what it is for. */
#define FGL__SUM_LANES 16
FGL__PRIVATE uint64_t fgl__floats_sum(const float *x, size_t n) {
    uint64_t a[FGL__SUM_LANES], b[FGL__SUM_LANES], w[FGL__SUM_LANES], t = 0, h;
    size_t j, blocks = n / (2 * FGL__SUM_LANES), tail = n % (2 * FGL__SUM_LANES);
    const float *end = x + 2 * FGL__SUM_LANES * blocks;
    int k;
    for (k = 0; k < FGL__SUM_LANES; k++) a[k] = b[k] = 0;
    for (j = 0; j < blocks; j++) {
        memcpy(w, x + 2 * FGL__SUM_LANES * j, sizeof w);
        for (k = 0; k < FGL__SUM_LANES; k++) {
            a[k] += w[k];
            b[k] += a[k];
        }
    }
    for (j = 0; j < tail; j++) {
        uint32_t u;
        memcpy(&u, end + j, 4);
        t = (t ^ u) * 0xC4CEB9FE1A85EC53ull;
    }
    h = (uint64_t)n * 0x9E3779B97F4A7C15ull ^ t;
    for (k = 0; k < FGL__SUM_LANES; k++) {
        h = (h ^ a[k]) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 31;
        h = (h ^ b[k]) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 31;
    }
    return h;
}
/* --- src/fed/store.h --- */
/* --- run-managed state -------------------------------------------------------- */

FGL__PRIVATE void fgl__store_init(fgl_store *st, int owner) {
    memset(st, 0, sizeof *st);
    st->owner = owner;
    fgl_tape_init(&st->scratch);
}

FGL__PRIVATE void fgl__store_free(fgl_store *st) {
    int i;
    for (i = st->n - 1; i >= 0; i--) {
        fgl__entry *e = &st->e[i];
        if (!e->owned || !e->p) continue;
        switch (e->kind) {
        case FGL__E_MODEL: fgl_model_free((fgl_model *)e->p); break;
        case FGL__E_OPTIM: fgl_optim_free((fgl_optim *)e->p); break;
        case FGL__E_PARAMS: fgl_params_free((fgl_params *)e->p); break;
        case FGL__E_TAPE: fgl_tape_free((fgl_tape *)e->p); break;
        case FGL__E_SCRATCH:
            if (e->destroy) e->destroy(e->p);
            break;
        default: break;
        }
        FGL_FREE(e->p);
    }
    FGL_FREE(st->e);
    fgl_tape_free(&st->scratch);
    memset(st, 0, sizeof *st);
}

static fgl__entry *fgl__store_find(const fgl_store *st, const char *name, int kind) {
    int i;
    for (i = 0; i < st->n; i++)
        if (st->e[i].kind == kind && strcmp(st->e[i].name, name) == 0) return &st->e[i];
    return NULL;
}

/* Register p (owned or not) under a new name; NULL and st->err on failure. */
static void *fgl__store_add(fgl_store *st, const char *name, int kind, void *p, size_t n, int owned) {
    fgl__entry *e;
    int i;
    FGL_ASSERT(name && strlen(name) < FGL__ENTRY_NAME);
    for (i = 0; i < st->n; i++) FGL_ASSERT(strcmp(st->e[i].name, name) != 0); /* one name, one entry */
    if (!p) {
        st->err = FGL_ERR_NOMEM;
        return NULL;
    }
    if (st->n == st->cap) {
        int cap = st->cap ? 2 * st->cap : 4; /* most stores hold a few entries; one per client */
        fgl__entry *ne = (fgl__entry *)FGL_REALLOC(st->e, sizeof(fgl__entry) * (size_t)cap);
        if (!ne) {
            if (owned) FGL_FREE(p);
            st->err = FGL_ERR_NOMEM;
            return NULL;
        }
        st->e = ne;
        st->cap = cap;
    }
    e = &st->e[st->n++];
    memset(e, 0, sizeof *e);
    strcpy(e->name, name);
    e->kind = kind;
    e->p = p;
    e->n = n;
    e->owned = owned;
    return p;
}

static void *fgl__zalloc(size_t bytes) {
    void *p = FGL_MALLOC(bytes ? bytes : 1);
    if (p) memset(p, 0, bytes ? bytes : 1);
    return p;
}

FGLDEF float *fgl_new_floats(fgl_store *st, const char *name, size_t n) {
    return (float *)fgl__store_add(st, name, FGL__E_FLOATS, fgl__zalloc(sizeof(float) * n), n, 1);
}

FGLDEF int *fgl_new_ints(fgl_store *st, const char *name, size_t n) {
    return (int *)fgl__store_add(st, name, FGL__E_INTS, fgl__zalloc(sizeof(int) * n), n, 1);
}

FGLDEF fgl_model *fgl_new_model(fgl_store *st, const char *name, const fgl_model_spec *spec, uint64_t seed) {
    fgl_model *m = (fgl_model *)fgl__zalloc(sizeof(fgl_model));
    if (m && fgl_model_init(m, spec, seed, NULL)) {
        FGL_FREE(m);
        m = NULL;
    }
    return (fgl_model *)fgl__store_add(st, name, FGL__E_MODEL, m, 0, 1);
}

FGLDEF fgl_optim *fgl_new_optim(fgl_store *st, const char *name, fgl_optim_config cfg, const fgl_params *ps) {
    fgl_optim *o = (fgl_optim *)fgl__zalloc(sizeof(fgl_optim));
    if (o && fgl_optim_init(o, cfg, ps)) {
        FGL_FREE(o);
        o = NULL;
    }
    return (fgl_optim *)fgl__store_add(st, name, FGL__E_OPTIM, o, 0, 1);
}

FGLDEF fgl_params *fgl_new_params(fgl_store *st, const char *name) {
    fgl_params *ps = (fgl_params *)fgl__zalloc(sizeof(fgl_params));
    if (ps) fgl_params_init(ps);
    return (fgl_params *)fgl__store_add(st, name, FGL__E_PARAMS, ps, 0, 1);
}

FGLDEF void *fgl_new_scratch(fgl_store *st, const char *name, size_t bytes, void (*destroy)(void *)) {
    void *p = fgl__store_add(st, name, FGL__E_SCRATCH, fgl__zalloc(bytes), bytes, 1);
    if (p) st->e[st->n - 1].destroy = destroy;
    return p;
}

FGLDEF fgl_tape *fgl_new_tape(fgl_store *st, const char *name) {
    fgl_tape *t = (fgl_tape *)fgl__zalloc(sizeof(fgl_tape));
    if (t) fgl_tape_init(t);
    return (fgl_tape *)fgl__store_add(st, name, FGL__E_TAPE, t, 0, 1);
}

static void *fgl__store_get(const fgl_store *st, const char *name, int kind) {
    fgl__entry *e = fgl__store_find(st, name, kind);
    FGL_ASSERT(e != NULL); /* state is created in an init hook before it is used */
    return e ? e->p : NULL;
}

FGLDEF float *fgl_floats(const fgl_store *st, const char *name) {
    return (float *)fgl__store_get(st, name, FGL__E_FLOATS);
}
FGLDEF int *fgl_ints(const fgl_store *st, const char *name) { return (int *)fgl__store_get(st, name, FGL__E_INTS); }
FGLDEF fgl_model *fgl_get_model(const fgl_store *st, const char *name) {
    return (fgl_model *)fgl__store_get(st, name, FGL__E_MODEL);
}
FGLDEF fgl_optim *fgl_get_optim(const fgl_store *st, const char *name) {
    return (fgl_optim *)fgl__store_get(st, name, FGL__E_OPTIM);
}
FGLDEF fgl_params *fgl_get_params(const fgl_store *st, const char *name) {
    return (fgl_params *)fgl__store_get(st, name, FGL__E_PARAMS);
}
FGLDEF void *fgl_get_scratch(const fgl_store *st, const char *name) { return fgl__store_get(st, name, FGL__E_SCRATCH); }
FGLDEF fgl_tape *fgl_get_tape(const fgl_store *st, const char *name) {
    return (fgl_tape *)fgl__store_get(st, name, FGL__E_TAPE);
}

FGLDEF void *fgl_scratch(fgl_store *st, size_t bytes) {
    void *p = fgl_tape_alloc(&st->scratch, bytes ? bytes : 1);
    if (!p) st->err = FGL_ERR_NOMEM;
    return p;
}

/* --- sizes ------------------------------------------------------------------------- */

/* What the size rules mean in this run (equal for every client; checked). */
typedef struct fgl__dims {
    size_t shared, trainable, clients, classes, rep, emb, hops, input;
    size_t nodes;              /* one client's node count (0: the server's view, where it differs) */
    const double *param;       /* the algorithm's parameter values (sizes by parameter) */
    int n_params;
} fgl__dims;

static size_t fgl__dim(const fgl__dims *d, int rule) {
    switch (rule) {
    case FGL_DIM_SHARED: return d->shared;
    case FGL_DIM_TRAINABLE: return d->trainable;
    case FGL_DIM_CLIENTS: return d->clients;
    case FGL_DIM_CLASSES: return d->classes;
    case FGL_DIM_REP: return d->rep;
    case FGL_DIM_EMB: return d->emb;
    case FGL_DIM_HOPS: return d->hops;
    case FGL_DIM_CLASS_HOPS: return d->classes * d->hops;
    case FGL_DIM_INPUT: return d->input;
    case FGL_DIM_NODES: return d->nodes;
    default:
        if (rule <= FGL__DIM_PARAM0) { /* checked at the start: a positive integer */
            int i = FGL__DIM_PARAM0 - rule;
            return d->param && i < d->n_params && d->param[i] >= 1 ? (size_t)d->param[i] : 0;
        }
        return rule > 0 ? (size_t)rule : 0;
    }
}

static size_t fgl__part_size(const fgl__dims *d, const fgl_part *p) {
    return fgl__dim(d, p->rows) * fgl__dim(d, p->cols);
}
/* --- src/fed/algo.h --- */
/* --- algorithm tables ------------------------------------------------------------- */

FGLDEF fgl_algo fgl_algo_new(const char *name, const char *summary) {
    fgl_algo a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.summary = summary;
    return a;
}

static int fgl__param_index(const fgl_algo *a, const char *name) {
    int i;
    for (i = 0; i < a->n_params; i++)
        if (strcmp(a->params[i].name, name) == 0) return i;
    return -1;
}

FGLDEF void fgl_algo_param_add(fgl_algo *a, const char *name, int type, double def, const char *help) {
    int i = fgl__param_index(a, name);
    FGL_ASSERT(name && (type == FGL_PARAM_FLOAT || type == FGL_PARAM_INT || type == FGL_PARAM_GROUPS));
    if (i < 0) { /* a new parameter; an existing one (of a base) gets a new default */
        FGL_ASSERT(a->n_params < FGL_ALGO_MAX_PARAMS);
        i = a->n_params++;
    }
    a->params[i].name = name;
    a->params[i].type = type;
    a->params[i].def = type == FGL_PARAM_FLOAT ? (double)(float)def : def;
    a->params[i].help = help;
    a->params[i].choices = NULL;
}

FGLDEF void fgl_algo_param_choices(fgl_algo *a, const char *name, const char *choices) {
    int i = fgl__param_index(a, name);
    FGL_ASSERT(i >= 0 && a->params[i].type == FGL_PARAM_INT); /* a declared integer parameter */
    if (i >= 0) a->params[i].choices = choices;
}

/* The index of name among choices ("a|b|c"), or -1. */
static int fgl__choice_index(const char *choices, const char *name) {
    int i = 0;
    size_t len = strlen(name);
    while (choices && *choices) {
        size_t w = strcspn(choices, "|");
        if (w == len && len > 0 && strncmp(choices, name, len) == 0) return i;
        choices += w + (choices[w] == '|');
        i++;
    }
    return -1;
}

FGLDEF int fgl_algo_param_parse(const fgl_algo_param *p, const char *text, double *value) {
    char *end;
    if (!p || !text) return FGL_ERR_ARG;
    if (p->type == FGL_PARAM_GROUPS) {
        unsigned g;
        if (fgl_groups_parse(text, &g)) return FGL_ERR_PARSE;
        *value = (double)g;
    } else if (p->type == FGL_PARAM_INT) {
        long v = strtol(text, &end, 10);
        int c = fgl__choice_index(p->choices, text);
        if (c >= 0) v = c;
        else if (end == text || *end || v != (long)(int)v) return FGL_ERR_PARSE;
        else if (p->choices) { /* a named value's number: one of the names' indices */
            int n = 1;
            const char *q;
            for (q = p->choices; *q; q++) n += *q == '|';
            if (v < 0 || v >= n) return FGL_ERR_PARSE;
        }
        *value = (double)v;
    } else {
        double v = strtod(text, &end);
        if (end == text || *end || !isfinite(v)) return FGL_ERR_PARSE;
        *value = (double)(float)v; /* parameters are single precision, as the models */
    }
    return FGL_OK;
}

FGLDEF void fgl_algo_param_format(const fgl_algo_param *p, double value, char *buf, size_t cap) {
    if (p->type == FGL_PARAM_GROUPS) {
        fgl_groups_format((unsigned)value, buf, cap);
    } else if (p->type == FGL_PARAM_INT) {
        const char *s = p->choices;
        int i = 0, v = (int)value;
        while (s && *s && i < v) {
            s += strcspn(s, "|");
            s += *s == '|';
            i++;
        }
        if (s && *s && v >= 0) snprintf(buf, cap, "%.*s", (int)strcspn(s, "|"), s);
        else snprintf(buf, cap, "%ld", (long)value);
    } else {
        snprintf(buf, cap, "%.9g", value);
    }
}

static void fgl__part_add(fgl_part *parts, int *n, const char *name, int kind, int rows, int cols, unsigned flags,
                          const char *from) {
    int i;
    FGL_ASSERT(name && *n < FGL_MSG_MAX_PARTS && rows != 0);
    for (i = 0; i < *n; i++) FGL_ASSERT(strcmp(parts[i].name, name) != 0);
    parts[*n].name = name;
    parts[*n].kind = kind;
    parts[*n].rows = rows;
    parts[*n].cols = cols ? cols : 1;
    parts[*n].flags = flags;
    parts[*n].from = from;
    (*n)++;
}

FGLDEF void fgl_algo_upload(fgl_algo *a, const char *name, int kind, int rows, int cols, unsigned flags) {
    FGL_ASSERT(kind >= FGL_SEND_DATA && kind <= FGL_SEND_WEIGHT);
    if (kind == FGL_SEND_MODEL || kind == FGL_SEND_DELTA) rows = FGL_DIM_SHARED, cols = 1;
    if (kind == FGL_SEND_WEIGHT) rows = cols = 1;
    fgl__part_add(a->up, &a->n_up, name, kind, rows, cols, flags, NULL);
}

FGLDEF void fgl_algo_download(fgl_algo *a, const char *name, int kind, int rows, int cols, unsigned flags,
                              const char *from) {
    FGL_ASSERT(kind == FGL_SEND_DATA || kind == FGL_SEND_MODEL);
    if (kind == FGL_SEND_MODEL) rows = FGL_DIM_SHARED, cols = 1;
    fgl__part_add(a->down, &a->n_down, name, kind, rows, cols, flags, from);
}

FGLDEF int fgl_algo_param_dim(const fgl_algo *a, const char *name) {
    int i = fgl__param_index(a, name);
    FGL_ASSERT(i >= 0 && a->params[i].type == FGL_PARAM_INT); /* a declared integer parameter */
    return FGL__DIM_PARAM0 - (i < 0 ? 0 : i);
}

/* 1 if a part's size depends on the client. */
static int fgl__per_client(const fgl_part *p) { return p->rows == FGL_DIM_NODES || p->cols == FGL_DIM_NODES; }

FGLDEF int fgl_algo_shares_weights(const fgl_algo *a) {
    int i;
    for (i = 0; i < a->n_up + a->n_down; i++) {
        const fgl_part *p = i < a->n_up ? &a->up[i] : &a->down[i - a->n_up];
        if (p->kind == FGL_SEND_MODEL || p->kind == FGL_SEND_DELTA || p->rows == FGL_DIM_SHARED ||
            p->rows == FGL_DIM_TRAINABLE || p->cols == FGL_DIM_SHARED || p->cols == FGL_DIM_TRAINABLE)
            return 1;
    }
    return 0;
}

/* The shared groups: the value of the first group-list parameter not
 * named "keep". */
static unsigned fgl__share_of(const fgl_algo *a, const double *value) {
    int i;
    for (i = 0; i < a->n_params; i++)
        if (a->params[i].type == FGL_PARAM_GROUPS && strcmp(a->params[i].name, "keep") != 0)
            return (unsigned)value[i];
    return FGL_G_ALL;
}

/* The groups kept local: the group-list parameter "keep", or none. */
static unsigned fgl__keep_of(const fgl_algo *a, const double *value) {
    int i = fgl__param_index(a, "keep");
    return i >= 0 && a->params[i].type == FGL_PARAM_GROUPS ? (unsigned)value[i] : 0u;
}

FGLDEF double fgl_get(const fgl_settings *s, const char *name) {
    int i = fgl__param_index(s->algo, name);
    if (i >= 0) return s->value[i];
    FGL_ASSERT(s->unknown != NULL); /* settings outside a run have nowhere to report a misspelt name */
    if (s->unknown) { /* clients read their settings side by side: the first name wins */
#ifdef _OPENMP
#pragma omp critical(fgl_settings_unknown)
#endif
        if (!s->unknown[0]) snprintf(s->unknown, FGL_SETTINGS_UNKNOWN, "%s", name ? name : "(null)");
    }
    return 0.0;
}

/* --- src/fed/crypto.h --- */
/* --- operating-system entropy --------------------------------------------------- */

#ifdef _WIN32
#ifndef _CRT_RAND_S
/* <stdlib.h> declares rand_s only when _CRT_RAND_S is defined before it is
 * first included, which a header cannot count on; it is in every C runtime
 * since Windows XP (RtlGenRandom underneath) and needs no library of its own. */
int __cdecl rand_s(unsigned int *value);
#endif
#endif

/* Zeroes n bytes at p by memset called through a volatile pointer, which a
 * compiler cannot prove to be memset and so cannot drop as a dead store:
 * keys, keystreams and coins do not outlive their use on the stack. */
static void *(*const volatile fgl__crypto_memset)(void *, int, size_t) = memset;

static void fgl__crypto_wipe(void *p, size_t n) { fgl__crypto_memset(p, 0, n); }

#ifdef FGL__ENTROPY_DEVICE
FGL__PRIVATE int fgl__entropy_device(const char *path, void *buf, size_t n, fgl_error *err) {
    unsigned char *p = (unsigned char *)buf, any = 0;
    size_t want = n, k;
    struct stat st;
    int fd;
    if (n == 0) return FGL_OK;
#ifdef O_CLOEXEC
    do fd = open(path, O_RDONLY | O_CLOEXEC); /* no child process inherits it */
    while (fd < 0 && errno == EINTR);
#else
    do fd = open(path, O_RDONLY);
    while (fd < 0 && errno == EINTR);
#endif
    if (fd < 0)
        return fgl_error_set(err, FGL_ERR_IO, "no source of operating-system entropy: %s cannot be opened (%s)", path,
                             strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) { /* the opened file itself, not the name again */
        close(fd);
        return fgl_error_set(err, FGL_ERR_IO,
                             "%s is not a character device (a file in its place would give the same bytes on every "
                             "read, so equal secrets): refused as the source of operating-system entropy",
                             path);
    }
    while (n > 0) {
        ssize_t got = read(fd, p, n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            int e = got < 0 ? errno : 0;
            close(fd);
            fgl__crypto_wipe(buf, want - n);
            return fgl_error_set(err, FGL_ERR_IO, "%s: %s before the %lu bytes asked for were read", path,
                                 e ? strerror(e) : "end of file", (unsigned long)want);
        }
        p += got;
        n -= (size_t)got;
    }
    close(fd);
    for (k = 0; k < want; k++) any |= ((unsigned char *)buf)[k];
    if (want >= 16 && !any) /* 2^-128 by chance: /dev/zero or the like in its place */
        return fgl_error_set(err, FGL_ERR_IO, "%s gave %lu zero bytes: refused as the source of operating-system "
                             "entropy", path, (unsigned long)want);
    return FGL_OK;
}
#endif

FGLDEF int fgl_os_entropy(void *buf, size_t n, fgl_error *err) {
#ifdef _WIN32
    unsigned char *p = (unsigned char *)buf;
    unsigned int v = 0;
    while (n > 0) {
        size_t k = n < sizeof v ? n : sizeof v;
        if (rand_s(&v) != 0)
            return fgl_error_set(err, FGL_ERR_IO, "no operating-system entropy: rand_s failed");
        memcpy(p, &v, k);
        p += k;
        n -= k;
    }
    fgl__crypto_wipe(&v, sizeof v);
    return FGL_OK;
#elif defined(FGL__ENTROPY_DEVICE)
    unsigned char *p = (unsigned char *)buf;
#ifdef FGL__HAVE_GETRANDOM
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0 && errno == EINTR) continue;
#ifdef ENOSYS
        if (got < 0 && errno == ENOSYS) break; /* a kernel before 3.17: the device */
#endif
        if (got <= 0)
            return fgl_error_set(err, FGL_ERR_IO, "no operating-system entropy: getrandom failed (%s)",
                                 got < 0 ? strerror(errno) : "no bytes");
        p += got;
        n -= (size_t)got;
    }
    if (n == 0) return FGL_OK;
#endif
    return fgl__entropy_device("/dev/urandom", p, n, err);
#else
    (void)buf;
    (void)n;
    return fgl_error_set(err, FGL_ERR_IO, "no source of operating-system entropy on this system");
#endif
}

/* --- ChaCha20 ----------------------------------------------------------------------- */

#define FGL__ROTL32(x, k) (((x) << (k)) | ((x) >> (32 - (k))))

/* RFC 8439's quarter round on four words of a state. */
#define FGL__CHACHA_QR(a, b, c, d)          \
    do {                                    \
        a += b;                             \
        d = FGL__ROTL32(d ^ a, 16);         \
        c += d;                             \
        b = FGL__ROTL32(b ^ c, 12);         \
        a += b;                             \
        d = FGL__ROTL32(d ^ a, 8);          \
        c += d;                             \
        b = FGL__ROTL32(b ^ c, 7);          \
    } while (0)

/* The initial state (section 2.3): the constants "expand 32-byte k", the
 * key, the block counter and the nonce's three words. */
static void fgl__chacha20_state(uint32_t st[16], const unsigned char key[32], uint32_t counter, uint32_t n0,
                                uint32_t n1, uint32_t n2) {
    int i;
    st[0] = 0x61707865u;
    st[1] = 0x3320646eu;
    st[2] = 0x79622d32u;
    st[3] = 0x6b206574u;
    for (i = 0; i < 8; i++) st[4 + i] = (uint32_t)fgl__le_load(key + 4 * i, 4);
    st[12] = counter;
    st[13] = n0;
    st[14] = n1;
    st[15] = n2;
}

static void fgl__chacha20_state_nonce(uint32_t st[16], const unsigned char key[32], const unsigned char nonce[12],
                                      uint32_t counter) {
    fgl__chacha20_state(st, key, counter, (uint32_t)fgl__le_load(nonce, 4), (uint32_t)fgl__le_load(nonce + 4, 4),
                        (uint32_t)fgl__le_load(nonce + 8, 4));
}

/* One block: 20 rounds (10 column and 10 diagonal) of st, plus st. */
static void fgl__chacha20_block(uint32_t out[16], const uint32_t st[16]) {
    uint32_t x[16];
    int i;
    memcpy(x, st, sizeof x);
    for (i = 0; i < 10; i++) {
        FGL__CHACHA_QR(x[0], x[4], x[8], x[12]);
        FGL__CHACHA_QR(x[1], x[5], x[9], x[13]);
        FGL__CHACHA_QR(x[2], x[6], x[10], x[14]);
        FGL__CHACHA_QR(x[3], x[7], x[11], x[15]);
        FGL__CHACHA_QR(x[0], x[5], x[10], x[15]);
        FGL__CHACHA_QR(x[1], x[6], x[11], x[12]);
        FGL__CHACHA_QR(x[2], x[7], x[8], x[13]);
        FGL__CHACHA_QR(x[3], x[4], x[9], x[14]);
    }
    for (i = 0; i < 16; i++) out[i] = x[i] + st[i];
    fgl__crypto_wipe(x, sizeof x);
}

/* FGL__CHACHA_LANES blocks at once (counters st[12], st[12] + 1, ...), in
 * out block after block. Word w of every block sits in one row x[w]; each
 * double round is a loop over the blocks whose body holds one block's
 * words, which compilers turn into vector instructions, one lane a block:
 * two to four times the speed of one block at a time, in plain C. Sixteen
 * lanes fill AVX-512's registers and beat eight on narrower vectors too. */
#define FGL__CHACHA_LANES 16

static void fgl__chacha20_blocks(uint32_t *out, const uint32_t st[16]) {
    uint32_t x[16][FGL__CHACHA_LANES];
    int i, w, l;
    for (w = 0; w < 16; w++)
        for (l = 0; l < FGL__CHACHA_LANES; l++) x[w][l] = st[w] + (w == 12 ? (uint32_t)l : 0u);
    for (i = 0; i < 10; i++)
        for (l = 0; l < FGL__CHACHA_LANES; l++) {
            uint32_t a[16];
            for (w = 0; w < 16; w++) a[w] = x[w][l];
            FGL__CHACHA_QR(a[0], a[4], a[8], a[12]);
            FGL__CHACHA_QR(a[1], a[5], a[9], a[13]);
            FGL__CHACHA_QR(a[2], a[6], a[10], a[14]);
            FGL__CHACHA_QR(a[3], a[7], a[11], a[15]);
            FGL__CHACHA_QR(a[0], a[5], a[10], a[15]);
            FGL__CHACHA_QR(a[1], a[6], a[11], a[12]);
            FGL__CHACHA_QR(a[2], a[7], a[8], a[13]);
            FGL__CHACHA_QR(a[3], a[4], a[9], a[14]);
            for (w = 0; w < 16; w++) x[w][l] = a[w];
        }
    for (l = 0; l < FGL__CHACHA_LANES; l++)
        for (w = 0; w < 16; w++) out[16 * l + w] = x[w][l] + st[w] + (w == 12 ? (uint32_t)l : 0u);
    fgl__crypto_wipe(x, sizeof x);
}

FGLDEF void fgl_chacha20_words(uint32_t *out, size_t n, const unsigned char key[32], const unsigned char nonce[12],
                               uint32_t counter) {
    uint32_t st[16], ks[16];
    fgl__chacha20_state_nonce(st, key, nonce, counter);
    for (; n >= 16 * FGL__CHACHA_LANES; n -= 16 * FGL__CHACHA_LANES, out += 16 * FGL__CHACHA_LANES) {
        fgl__chacha20_blocks(out, st);
        st[12] += FGL__CHACHA_LANES;
    }
    for (; n > 0; st[12]++) { /* the last blocks, one at a time */
        size_t k = n < 16 ? n : 16;
        fgl__chacha20_block(ks, st);
        memcpy(out, ks, sizeof(uint32_t) * k);
        out += k;
        n -= k;
    }
    fgl__crypto_wipe(st, sizeof st);
    fgl__crypto_wipe(ks, sizeof ks);
}

/* out = in XOR the first n bytes of the keystream words ks (in NULL: the
 * bytes), through b, room for them. */
static void fgl__chacha20_xor_words(unsigned char *out, const unsigned char *in, const uint32_t *ks, size_t n,
                                    unsigned char *b) {
    size_t i;
    for (i = 0; i < (n + 3) / 4; i++) fgl__le_store(b + 4 * i, ks[i], 4);
    if (in)
        for (i = 0; i < n; i++) out[i] = (unsigned char)(in[i] ^ b[i]);
    else
        memcpy(out, b, n);
}

FGLDEF void fgl_chacha20_xor(unsigned char *out, const unsigned char *in, size_t n, const unsigned char key[32],
                             const unsigned char nonce[12], uint32_t counter) {
    uint32_t st[16], ks[16 * FGL__CHACHA_LANES];
    unsigned char b[64 * FGL__CHACHA_LANES];
    fgl__chacha20_state_nonce(st, key, nonce, counter);
    for (; n >= 64 * FGL__CHACHA_LANES; n -= 64 * FGL__CHACHA_LANES) {
        fgl__chacha20_blocks(ks, st);
        st[12] += FGL__CHACHA_LANES;
        fgl__chacha20_xor_words(out, in, ks, 64 * FGL__CHACHA_LANES, b);
        out += 64 * FGL__CHACHA_LANES;
        if (in) in += 64 * FGL__CHACHA_LANES;
    }
    for (; n > 0; st[12]++) {
        size_t k = n < 64 ? n : 64;
        fgl__chacha20_block(ks, st);
        fgl__chacha20_xor_words(out, in, ks, k, b);
        out += k;
        if (in) in += k;
        n -= k;
    }
    fgl__crypto_wipe(st, sizeof st);
    fgl__crypto_wipe(ks, sizeof ks);
    fgl__crypto_wipe(b, sizeof b);
}

FGLDEF void fgl_kdf(unsigned char out[32], const unsigned char key[32], uint32_t label, uint32_t a, uint32_t b) {
    uint32_t st[16], ks[16];
    int i;
    fgl__chacha20_state(st, key, 0, label, a, b);
    fgl__chacha20_block(ks, st);
    for (i = 0; i < 8; i++) fgl__le_store(out + 4 * i, ks[i], 4);
    fgl__crypto_wipe(st, sizeof st);
    fgl__crypto_wipe(ks, sizeof ks);
}

/* --- Poly1305 and ChaCha20-Poly1305 ------------------------------------------------- */

/* The accumulator h and the key's r are numbers below 2^130 held in five
 * 26-bit limbs, so that a product of two limbs (plus the sums of five of
 * them) fits in 64 bits; 2^130 = 5 (mod 2^130 - 5) folds what overflows
 * back into the low limbs. */
#define FGL__P1305_MASK 0x3ffffffu

typedef struct fgl__poly1305 {
    uint32_t r[5], h[5], s[4]; /* s: the key's second half, added at the end */
    unsigned char buf[16];     /* a block not yet complete */
    size_t used;
} fgl__poly1305;

static void fgl__poly1305_init(fgl__poly1305 *p, const unsigned char key[32]) {
    /* r's clamping (section 2.5): the top four bits of each 32-bit word and
     * the bottom two of the last three words cleared */
    uint32_t w0 = (uint32_t)fgl__le_load(key, 4) & 0x0fffffffu;
    uint32_t w1 = (uint32_t)fgl__le_load(key + 4, 4) & 0x0ffffffcu;
    uint32_t w2 = (uint32_t)fgl__le_load(key + 8, 4) & 0x0ffffffcu;
    uint32_t w3 = (uint32_t)fgl__le_load(key + 12, 4) & 0x0ffffffcu;
    int i;
    p->r[0] = w0 & FGL__P1305_MASK;
    p->r[1] = ((w0 >> 26) | (w1 << 6)) & FGL__P1305_MASK;
    p->r[2] = ((w1 >> 20) | (w2 << 12)) & FGL__P1305_MASK;
    p->r[3] = ((w2 >> 14) | (w3 << 18)) & FGL__P1305_MASK;
    p->r[4] = w3 >> 8;
    for (i = 0; i < 5; i++) p->h[i] = 0;
    for (i = 0; i < 4; i++) p->s[i] = (uint32_t)fgl__le_load(key + 16 + 4 * i, 4);
    p->used = 0;
}

/* h = (h + block) r mod 2^130 - 5 for each 16-byte block of m; hibit is
 * the block's 2^128 bit in limb 4 (1 << 24), 0 for the padded last block. */
static void fgl__poly1305_blocks(fgl__poly1305 *p, const unsigned char *m, size_t n_blocks, uint32_t hibit) {
    const uint32_t r0 = p->r[0], r1 = p->r[1], r2 = p->r[2], r3 = p->r[3], r4 = p->r[4];
    const uint32_t s1 = 5 * r1, s2 = 5 * r2, s3 = 5 * r3, s4 = 5 * r4; /* r_j 2^130 = 5 r_j */
    uint32_t h0 = p->h[0], h1 = p->h[1], h2 = p->h[2], h3 = p->h[3], h4 = p->h[4];
    for (; n_blocks > 0; n_blocks--, m += 16) {
        uint32_t w0 = (uint32_t)fgl__le_load(m, 4), w1 = (uint32_t)fgl__le_load(m + 4, 4);
        uint32_t w2 = (uint32_t)fgl__le_load(m + 8, 4), w3 = (uint32_t)fgl__le_load(m + 12, 4);
        uint64_t d0, d1, d2, d3, d4;
        h0 += w0 & FGL__P1305_MASK;
        h1 += ((w0 >> 26) | (w1 << 6)) & FGL__P1305_MASK;
        h2 += ((w1 >> 20) | (w2 << 12)) & FGL__P1305_MASK;
        h3 += ((w2 >> 14) | (w3 << 18)) & FGL__P1305_MASK;
        h4 += (w3 >> 8) | hibit;
        /* limb k of h r collects h_i r_j for i + j = k, and 5 h_i r_j for
         * i + j = k + 5; each h_i < 2^27 and 5 r_j < 2^29: the sums < 2^59 */
        d0 = (uint64_t)h0 * r0 + (uint64_t)h1 * s4 + (uint64_t)h2 * s3 + (uint64_t)h3 * s2 + (uint64_t)h4 * s1;
        d1 = (uint64_t)h0 * r1 + (uint64_t)h1 * r0 + (uint64_t)h2 * s4 + (uint64_t)h3 * s3 + (uint64_t)h4 * s2;
        d2 = (uint64_t)h0 * r2 + (uint64_t)h1 * r1 + (uint64_t)h2 * r0 + (uint64_t)h3 * s4 + (uint64_t)h4 * s3;
        d3 = (uint64_t)h0 * r3 + (uint64_t)h1 * r2 + (uint64_t)h2 * r1 + (uint64_t)h3 * r0 + (uint64_t)h4 * s4;
        d4 = (uint64_t)h0 * r4 + (uint64_t)h1 * r3 + (uint64_t)h2 * r2 + (uint64_t)h3 * r1 + (uint64_t)h4 * r0;
        d1 += d0 >> 26;
        d2 += d1 >> 26;
        d3 += d2 >> 26;
        d4 += d3 >> 26;
        d0 = (d0 & FGL__P1305_MASK) + 5 * (d4 >> 26); /* the carry out of 2^130, folded */
        h0 = (uint32_t)(d0 & FGL__P1305_MASK);
        h1 = (uint32_t)((d1 & FGL__P1305_MASK) + (d0 >> 26));
        h2 = (uint32_t)(d2 & FGL__P1305_MASK);
        h3 = (uint32_t)(d3 & FGL__P1305_MASK);
        h4 = (uint32_t)(d4 & FGL__P1305_MASK);
    }
    p->h[0] = h0;
    p->h[1] = h1;
    p->h[2] = h2;
    p->h[3] = h3;
    p->h[4] = h4;
}

static void fgl__poly1305_update(fgl__poly1305 *p, const unsigned char *m, size_t n) {
    size_t full;
    if (n == 0) return;
    if (p->used) { /* complete the held block first */
        size_t k = 16 - p->used < n ? 16 - p->used : n;
        memcpy(p->buf + p->used, m, k);
        p->used += k;
        m += k;
        n -= k;
        if (p->used < 16) return;
        fgl__poly1305_blocks(p, p->buf, 1, 1u << 24);
        p->used = 0;
    }
    full = n / 16;
    fgl__poly1305_blocks(p, m, full, 1u << 24);
    m += 16 * full;
    n -= 16 * full;
    if (n) memcpy(p->buf, m, n);
    p->used = n;
}

/* Zero bytes up to the next multiple of 16 after n: the AEAD's padding. */
static void fgl__poly1305_pad16(fgl__poly1305 *p, size_t n) {
    static const unsigned char zeros[16] = {0};
    if (n % 16) fgl__poly1305_update(p, zeros, 16 - n % 16);
}

static void fgl__poly1305_finish(fgl__poly1305 *p, unsigned char tag[16]) {
    uint32_t h[5], g[5], c, mask, w[4];
    uint64_t f;
    int i, pass;
    if (p->used) { /* the last, short block: a 1 byte after it, then zeros (no 2^128 bit) */
        p->buf[p->used] = 1;
        memset(p->buf + p->used + 1, 0, 16 - p->used - 1);
        fgl__poly1305_blocks(p, p->buf, 1, 0);
    }
    memcpy(h, p->h, sizeof h);
    /* full carries: after the first pass only limb 0 can exceed 26 bits (by
     * the folded carry), after the second every limb is within its width */
    for (pass = 0; pass < 2; pass++) {
        for (i = 0; i < 4; i++) {
            h[i + 1] += h[i] >> 26;
            h[i] &= FGL__P1305_MASK;
        }
        c = h[4] >> 26;
        h[4] &= FGL__P1305_MASK;
        h[0] += 5 * c;
    }
    /* h mod p: g = h + 5 - 2^130 is h - p, taken when it is not negative */
    c = 5;
    for (i = 0; i < 4; i++) {
        g[i] = h[i] + c;
        c = g[i] >> 26;
        g[i] &= FGL__P1305_MASK;
    }
    g[4] = h[4] + c - (1u << 26);
    mask = (g[4] >> 31) - 1; /* all ones when h >= p */
    for (i = 0; i < 5; i++) h[i] = (h[i] & ~mask) | (g[i] & mask);
    /* (h + s) mod 2^128 */
    w[0] = h[0] | (h[1] << 26);
    w[1] = (h[1] >> 6) | (h[2] << 20);
    w[2] = (h[2] >> 12) | (h[3] << 14);
    w[3] = (h[3] >> 18) | (h[4] << 8);
    for (i = 0, f = 0; i < 4; i++) {
        f += (uint64_t)w[i] + p->s[i];
        fgl__le_store(tag + 4 * i, (uint32_t)f, 4);
        f >>= 32;
    }
    fgl__crypto_wipe(p, sizeof *p);
    fgl__crypto_wipe(h, sizeof h);
    fgl__crypto_wipe(g, sizeof g);
}

FGLDEF void fgl_poly1305(unsigned char tag[16], const unsigned char *m, size_t n, const unsigned char key[32]) {
    fgl__poly1305 p;
    fgl__poly1305_init(&p, key);
    fgl__poly1305_update(&p, m, n);
    fgl__poly1305_finish(&p, tag);
}

/* The AEAD's tag (section 2.8): Poly1305 keyed by the first 32 bytes of
 * block 0 over aad, padding, ct, padding, and the two lengths as 64-bit
 * little-endian numbers. */
static void fgl__aead_tag(unsigned char tag[16], const unsigned char *ct, size_t n, const unsigned char *aad,
                          size_t n_aad, const unsigned char key[32], const unsigned char nonce[12]) {
    uint32_t st[16], ks[16];
    unsigned char otk[32], lens[16];
    fgl__poly1305 p;
    int i;
    fgl__chacha20_state_nonce(st, key, nonce, 0);
    fgl__chacha20_block(ks, st);
    for (i = 0; i < 8; i++) fgl__le_store(otk + 4 * i, ks[i], 4);
    fgl__poly1305_init(&p, otk);
    fgl__poly1305_update(&p, aad, n_aad);
    fgl__poly1305_pad16(&p, n_aad);
    fgl__poly1305_update(&p, ct, n);
    fgl__poly1305_pad16(&p, n);
    fgl__le_store(lens, (uint64_t)n_aad, 8);
    fgl__le_store(lens + 8, (uint64_t)n, 8);
    fgl__poly1305_update(&p, lens, 16);
    fgl__poly1305_finish(&p, tag);
    fgl__crypto_wipe(st, sizeof st);
    fgl__crypto_wipe(ks, sizeof ks);
    fgl__crypto_wipe(otk, sizeof otk);
}

FGLDEF void fgl_aead_seal(unsigned char *ct, unsigned char tag[16], const unsigned char *pt, size_t n,
                          const unsigned char *aad, size_t n_aad, const unsigned char key[32],
                          const unsigned char nonce[12]) {
    fgl_chacha20_xor(ct, pt, n, key, nonce, 1);
    fgl__aead_tag(tag, ct, n, aad, n_aad, key, nonce);
}

FGLDEF int fgl_aead_open(unsigned char *pt, const unsigned char *ct, size_t n, const unsigned char tag[16],
                         const unsigned char *aad, size_t n_aad, const unsigned char key[32],
                         const unsigned char nonce[12]) {
    unsigned char want[16];
    unsigned diff = 0;
    int i;
    fgl__aead_tag(want, ct, n, aad, n_aad, key, nonce);
    for (i = 0; i < 16; i++) diff |= (unsigned)(want[i] ^ tag[i]); /* every byte, whatever the first differing one */
    if (diff) {
        if (n) fgl__crypto_wipe(pt, n);
        return -1;
    }
    fgl_chacha20_xor(pt, ct, n, key, nonce, 1);
    return 0;
}

/* --- X25519 ------------------------------------------------------------------------- */

/* A number mod p = 2^255 - 19 in ten signed limbs of alternately 26 and 25
 * bits: limb i weighs 2^ceil(25.5 i). After a carry each limb is within
 * half its width of zero (|v| <= 2^25), after a sum or difference of two
 * such within 2^26, small enough that every product below fits in 64 bits. */
typedef struct fgl__fe {
    int32_t v[10];
} fgl__fe;

static int fgl__fe_width(int i) { return i & 1 ? 25 : 26; }

/* floor(x / 2^s) (0 < s < 63) without shifting a negative number, which C99
 * leaves to the implementation: x + 2^63 taken as unsigned is not. */
static int64_t fgl__fe_floor_shift(int64_t x, int s) {
    return (int64_t)(((uint64_t)x + ((uint64_t)1 << 63)) >> s) - ((int64_t)1 << (63 - s));
}

/* Carries limb i of t (width s) into limb `to`, times m: what is left of
 * t_i is within half its width of zero (the carry rounded). */
#define FGL__FE_CARRY(t, i, s, to, m)                                                                        \
    do {                                                                                                     \
        int64_t c_ = fgl__fe_floor_shift((t)[i] + ((int64_t)1 << ((s) - 1)), s);                            \
        (t)[i] -= c_ * ((int64_t)1 << (s));                                                                  \
        (t)[to] += (m) * c_;                                                                                 \
    } while (0)

/* h = t carried: the limbs within about half their widths of zero (limbs 1
 * and 5 within 2^24 + 2^15), the carry out of limb 9 (2^255) brought back
 * as 19 times it. Two chains, from limbs 0 and 4, run interleaved; limb 4
 * is carried twice, and limb 0 once more after the wrapped carry (19 x up
 * to 2^36). */
static void fgl__fe_carry(fgl__fe *h, int64_t t[10]) {
    int i;
    FGL__FE_CARRY(t, 0, 26, 1, 1);
    FGL__FE_CARRY(t, 4, 26, 5, 1);
    FGL__FE_CARRY(t, 1, 25, 2, 1);
    FGL__FE_CARRY(t, 5, 25, 6, 1);
    FGL__FE_CARRY(t, 2, 26, 3, 1);
    FGL__FE_CARRY(t, 6, 26, 7, 1);
    FGL__FE_CARRY(t, 3, 25, 4, 1);
    FGL__FE_CARRY(t, 7, 25, 8, 1);
    FGL__FE_CARRY(t, 4, 26, 5, 1);
    FGL__FE_CARRY(t, 8, 26, 9, 1);
    FGL__FE_CARRY(t, 9, 25, 0, 19);
    FGL__FE_CARRY(t, 0, 26, 1, 1);
    for (i = 0; i < 10; i++) h->v[i] = (int32_t)t[i];
}

static void fgl__fe_set(fgl__fe *h, int32_t v0) {
    int i;
    h->v[0] = v0;
    for (i = 1; i < 10; i++) h->v[i] = 0;
}

static void fgl__fe_add(fgl__fe *h, const fgl__fe *f, const fgl__fe *g) {
    int i;
    for (i = 0; i < 10; i++) h->v[i] = f->v[i] + g->v[i];
}

static void fgl__fe_sub(fgl__fe *h, const fgl__fe *f, const fgl__fe *g) {
    int i;
    for (i = 0; i < 10; i++) h->v[i] = f->v[i] - g->v[i];
}

/* w[p][m] for fgl__fe_mul and fgl__fe_sq: the factor of f_i (i of parity
 * p) in limb k = m + i - 10 of a product with g: g_(m mod 10), times 19
 * when m < 10 (the sum wrapped past limb 9), times 2 when i and m are odd. */
static void fgl__fe_factors(int64_t w[2][20], const fgl__fe *g) {
    int i;
    for (i = 0; i < 10; i++) {
        w[0][i] = 19 * (int64_t)g->v[i];
        w[0][i + 10] = g->v[i];
        w[1][i] = w[0][i] * (i & 1 ? 2 : 1);
        w[1][i + 10] = w[0][i + 10] * (i & 1 ? 2 : 1);
    }
}

/* Limb k of a product: the ten terms f_i w[i & 1][k - i + 10] written out
 * with constant indices (straight-line code: every compiler keeps it in
 * registers, where loops were unrolled by some and not others). In a
 * square the term of (i, j) equals that of (j, i): FGL__FE_PAIR counts
 * the first of each pair twice and the second not at all, a factor 0 the
 * compiler folds away. */
#define FGL__FE_TERM(i, k, x) ((int64_t)f->v[i] * w[(i) & 1][(k) - (i) + 10] * (x))
#define FGL__FE_ONE(i, k) FGL__FE_TERM(i, k, 1)
#define FGL__FE_PAIR(i, k) FGL__FE_TERM(i, k, (((k) - (i) + 10) % 10 > (i) ? 2 : ((k) - (i) + 10) % 10 == (i)))
#define FGL__FE_LIMB(T, k)                                                                                  \
    (T(0, k) + T(1, k) + T(2, k) + T(3, k) + T(4, k) + T(5, k) + T(6, k) + T(7, k) + T(8, k) + T(9, k))

/* h = f g. Limbs i and j meet at 2^(p_i + p_j), which is 2^p_(i+j), or
 * twice it when i and j are both odd (25.5 rounded up twice); past limb 9
 * 2^255 = 19. With |f_i|, |g_j| at most a little over 2^26 each product is
 * below 2 x 19 x 2^52.01 and the ten of a limb below 2^61. h may be f or g. */
static void fgl__fe_mul(fgl__fe *h, const fgl__fe *f, const fgl__fe *g) {
    int64_t t[10], w[2][20];
    fgl__fe_factors(w, g);
    t[0] = FGL__FE_LIMB(FGL__FE_ONE, 0);
    t[1] = FGL__FE_LIMB(FGL__FE_ONE, 1);
    t[2] = FGL__FE_LIMB(FGL__FE_ONE, 2);
    t[3] = FGL__FE_LIMB(FGL__FE_ONE, 3);
    t[4] = FGL__FE_LIMB(FGL__FE_ONE, 4);
    t[5] = FGL__FE_LIMB(FGL__FE_ONE, 5);
    t[6] = FGL__FE_LIMB(FGL__FE_ONE, 6);
    t[7] = FGL__FE_LIMB(FGL__FE_ONE, 7);
    t[8] = FGL__FE_LIMB(FGL__FE_ONE, 8);
    t[9] = FGL__FE_LIMB(FGL__FE_ONE, 9);
    fgl__fe_carry(h, t);
}

/* h = f^2: the 55 distinct products of fgl__fe_mul's 100 */
static void fgl__fe_sq(fgl__fe *h, const fgl__fe *f) {
    int64_t t[10], w[2][20];
    fgl__fe_factors(w, f);
    t[0] = FGL__FE_LIMB(FGL__FE_PAIR, 0);
    t[1] = FGL__FE_LIMB(FGL__FE_PAIR, 1);
    t[2] = FGL__FE_LIMB(FGL__FE_PAIR, 2);
    t[3] = FGL__FE_LIMB(FGL__FE_PAIR, 3);
    t[4] = FGL__FE_LIMB(FGL__FE_PAIR, 4);
    t[5] = FGL__FE_LIMB(FGL__FE_PAIR, 5);
    t[6] = FGL__FE_LIMB(FGL__FE_PAIR, 6);
    t[7] = FGL__FE_LIMB(FGL__FE_PAIR, 7);
    t[8] = FGL__FE_LIMB(FGL__FE_PAIR, 8);
    t[9] = FGL__FE_LIMB(FGL__FE_PAIR, 9);
    fgl__fe_carry(h, t);
}

/* h = f squared n times */
static void fgl__fe_sq_n(fgl__fe *h, const fgl__fe *f, int n) {
    fgl__fe_sq(h, f);
    while (--n > 0) fgl__fe_sq(h, h);
}

/* h = f c for a small constant c (< 2^20) */
static void fgl__fe_mul_small(fgl__fe *h, const fgl__fe *f, int32_t c) {
    int64_t t[10];
    int i;
    for (i = 0; i < 10; i++) t[i] = (int64_t)f->v[i] * c;
    fgl__fe_carry(h, t);
}

/* h = 1 / f = f^(p - 2) (0 for 0), by the chain of squarings that builds
 * f^(2^k - 1) for k = 5, 10, 20, 40, 50, 100, 200, 250; then
 * p - 2 = (2^250 - 1) 2^5 + 11. */
static void fgl__fe_invert(fgl__fe *h, const fgl__fe *f) {
    fgl__fe f2, f9, f11, a, b, c;
    fgl__fe_sq(&f2, f);               /* f^2 */
    fgl__fe_sq_n(&a, &f2, 2);         /* f^8 */
    fgl__fe_mul(&f9, &a, f);          /* f^9 */
    fgl__fe_mul(&f11, &f9, &f2);      /* f^11 */
    fgl__fe_sq(&a, &f11);             /* f^22 */
    fgl__fe_mul(&a, &a, &f9);         /* f^31 = f^(2^5 - 1) */
    fgl__fe_sq_n(&b, &a, 5);
    fgl__fe_mul(&b, &b, &a);          /* 2^10 - 1 */
    fgl__fe_sq_n(&c, &b, 10);
    fgl__fe_mul(&c, &c, &b);          /* 2^20 - 1 */
    fgl__fe_sq_n(&a, &c, 20);
    fgl__fe_mul(&a, &a, &c);          /* 2^40 - 1 */
    fgl__fe_sq_n(&a, &a, 10);
    fgl__fe_mul(&b, &a, &b);          /* 2^50 - 1 */
    fgl__fe_sq_n(&a, &b, 50);
    fgl__fe_mul(&c, &a, &b);          /* 2^100 - 1 */
    fgl__fe_sq_n(&a, &c, 100);
    fgl__fe_mul(&a, &a, &c);          /* 2^200 - 1 */
    fgl__fe_sq_n(&a, &a, 50);
    fgl__fe_mul(&a, &a, &b);          /* 2^250 - 1 */
    fgl__fe_sq_n(&a, &a, 5);
    fgl__fe_mul(h, &a, &f11);         /* 2^255 - 32 + 11 = p - 2 */
}

/* The 255 low bits of s, little-endian (RFC 7748 masks the top bit of u);
 * values from p to 2^255 - 1 are accepted, as the RFC asks. */
static void fgl__fe_frombytes(fgl__fe *h, const unsigned char s[32]) {
    uint64_t acc = 0;
    int bits = 0, i, k = 0;
    for (i = 0; i < 10; i++) {
        int w = fgl__fe_width(i);
        while (bits < w) {
            acc |= (uint64_t)s[k++] << bits;
            bits += 8;
        }
        h->v[i] = (int32_t)(acc & (((uint64_t)1 << w) - 1));
        acc >>= w;
        bits -= w;
    }
}

/* The unique representative in [0, p), 32 bytes little-endian. */
static void fgl__fe_tobytes(unsigned char s[32], const fgl__fe *f) {
    int64_t t[10], c, q;
    uint64_t acc = 0;
    int i, pass, bits = 0, k = 0;
    for (i = 0; i < 10; i++) t[i] = f->v[i];
    /* floor carries put each limb in [0, 2^width); the first pass leaves a
     * carry of a few units folded into limb 0, the second takes it through
     * (the total is then in [0, 2^255)); the third changes nothing but
     * makes that plain */
    for (pass = 0; pass < 3; pass++)
        for (i = 0; i < 10; i++) {
            int w = fgl__fe_width(i);
            c = fgl__fe_floor_shift(t[i], w);
            t[i] -= c * ((int64_t)1 << w);
            if (i < 9) t[i + 1] += c;
            else t[0] += 19 * c;
        }
    /* t >= p exactly when t + 19 reaches 2^255: then t - p = t + 19 - 2^255 */
    q = (t[0] + 19) >> 26;
    for (i = 1; i < 10; i++) q = (t[i] + q) >> fgl__fe_width(i);
    t[0] += 19 * q;
    for (i = 0; i < 9; i++) {
        int w = fgl__fe_width(i);
        t[i + 1] += t[i] >> w;
        t[i] &= ((int64_t)1 << w) - 1;
    }
    t[9] &= ((int64_t)1 << 25) - 1; /* drops the 2^255 */
    for (i = 0; i < 10; i++) {
        acc |= (uint64_t)t[i] << bits;
        bits += fgl__fe_width(i);
        while (bits >= 8) {
            s[k++] = (unsigned char)acc;
            acc >>= 8;
            bits -= 8;
        }
    }
    s[k] = (unsigned char)acc; /* the last 7 bits */
}

/* Swaps f and g when swap is 1, leaves them when 0, with the same
 * instructions either way. */
static void fgl__fe_cswap(fgl__fe *f, fgl__fe *g, int32_t swap) {
    int32_t mask = -swap;
    int i;
    for (i = 0; i < 10; i++) {
        int32_t x = mask & (f->v[i] ^ g->v[i]);
        f->v[i] ^= x;
        g->v[i] ^= x;
    }
}

FGLDEF void fgl_x25519(unsigned char out[32], const unsigned char scalar[32], const unsigned char u[32]) {
    unsigned char k[32];
    fgl__fe x1, x2, z2, x3, z3, a, aa, b, bb, e, c, d, da, cb, t;
    int32_t swap = 0;
    int pos;
    memcpy(k, scalar, 32);
    k[0] &= 248; /* a multiple of the cofactor 8, with bit 254 set */
    k[31] &= 127;
    k[31] |= 64;
    fgl__fe_frombytes(&x1, u);
    fgl__fe_set(&x2, 1);
    fgl__fe_set(&z2, 0);
    x3 = x1;
    fgl__fe_set(&z3, 1);
    /* the Montgomery ladder of RFC 7748, section 5: (x2 : z2) = k' u and
     * (x3 : z3) = (k' + 1) u for the bits k' of k read so far */
    for (pos = 254; pos >= 0; pos--) {
        int32_t bit = (k[pos >> 3] >> (pos & 7)) & 1;
        swap ^= bit;
        fgl__fe_cswap(&x2, &x3, swap);
        fgl__fe_cswap(&z2, &z3, swap);
        swap = bit;
        fgl__fe_add(&a, &x2, &z2);
        fgl__fe_sq(&aa, &a);
        fgl__fe_sub(&b, &x2, &z2);
        fgl__fe_sq(&bb, &b);
        fgl__fe_sub(&e, &aa, &bb);
        fgl__fe_add(&c, &x3, &z3);
        fgl__fe_sub(&d, &x3, &z3);
        fgl__fe_mul(&da, &d, &a);
        fgl__fe_mul(&cb, &c, &b);
        fgl__fe_add(&t, &da, &cb);
        fgl__fe_sq(&x3, &t);
        fgl__fe_sub(&t, &da, &cb);
        fgl__fe_sq(&t, &t);
        fgl__fe_mul(&z3, &x1, &t);
        fgl__fe_mul(&x2, &aa, &bb);
        fgl__fe_mul_small(&t, &e, 121665); /* a24 = (486662 - 2) / 4 */
        fgl__fe_add(&t, &aa, &t);
        fgl__fe_mul(&z2, &e, &t);
    }
    fgl__fe_cswap(&x2, &x3, swap);
    fgl__fe_cswap(&z2, &z3, swap);
    fgl__fe_invert(&t, &z2);
    fgl__fe_mul(&x2, &x2, &t);
    fgl__fe_tobytes(out, &x2);
    fgl__crypto_wipe(k, sizeof k);
    fgl__crypto_wipe(&x2, sizeof x2);
    fgl__crypto_wipe(&z2, sizeof z2);
    fgl__crypto_wipe(&x3, sizeof x3);
    fgl__crypto_wipe(&z3, sizeof z3);
}

FGLDEF void fgl_x25519_public(unsigned char pk[32], const unsigned char sk[32]) {
    static const unsigned char base[32] = {9};
    fgl_x25519(pk, sk, base);
}

/* --- Shamir secret sharing over GF(2^61 - 1) ----------------------------------------- */

#define FGL__GF61_P ((((uint64_t)1) << 61) - 1)
#define FGL__SHAMIR_CHUNKS 5
#define FGL__SHAMIR_LABEL 0x6d616853u /* "Sham", the coins' nonce word */

/* a - p when a >= p, for a < 2p; by a mask, not a branch */
static uint64_t fgl__gf61_reduce(uint64_t a) {
    uint64_t s = a - FGL__GF61_P;
    return s + (FGL__GF61_P & (0 - (s >> 63)));
}

static uint64_t fgl__gf61_add(uint64_t a, uint64_t b) { return fgl__gf61_reduce(a + b); }

/* a b mod p for a, b < p, in 32-bit halves: a b = hi 2^64 + mid 2^32 + lo
 * (hi < 2^58, mid < 2^62), and 2^61 = 1 (mod p) folds each part below
 * 2^61: hi 2^64 = 8 hi, mid 2^32 = (mid >> 29) + (mid mod 2^29) 2^32,
 * lo = (lo >> 61) + (lo mod 2^61). Their sum is below 2^63. */
FGL__PRIVATE uint64_t fgl__gf61_mul(uint64_t a, uint64_t b) {
    uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
    uint64_t lo = a0 * b0, mid = a1 * b0 + a0 * b1, hi = a1 * b1, s;
    s = (hi << 3) + (mid >> 29) + ((mid & ((1u << 29) - 1)) << 32) + (lo >> 61) + (lo & FGL__GF61_P);
    return fgl__gf61_reduce((s & FGL__GF61_P) + (s >> 61));
}

/* 1 / a = a^(p - 2) (Fermat; 0 for 0) */
FGL__PRIVATE uint64_t fgl__gf61_inv(uint64_t a) {
    uint64_t r = 1, e = FGL__GF61_P - 2;
    for (; e; e >>= 1) {
        if (e & 1) r = fgl__gf61_mul(r, a);
        a = fgl__gf61_mul(a, a);
    }
    return r;
}

/* Chunk c of the secret: bytes 7c.. (7 of them, 4 for the last). */
static int fgl__shamir_chunk_len(int c) { return c < FGL__SHAMIR_CHUNKS - 1 ? 7 : 32 - 7 * (FGL__SHAMIR_CHUNKS - 1); }

/* Coefficient `degree` of chunk c's polynomial: the first 61-bit word of
 * ChaCha20's keystream under the coins' key, nonce (label, c, degree), that
 * is below p (a word is rejected with probability 2^-61). One stream per
 * coefficient, so the split can take them from the top degree down
 * (Horner) without storing them. */
static uint64_t fgl__shamir_coef(const unsigned char key[32], int c, uint32_t degree) {
    uint32_t st[16], ks[16];
    uint64_t v = FGL__GF61_P;
    int i;
    fgl__chacha20_state(st, key, 0, FGL__SHAMIR_LABEL, (uint32_t)c, degree);
    for (; v == FGL__GF61_P; st[12]++) {
        fgl__chacha20_block(ks, st);
        for (i = 0; i < 16 && v == FGL__GF61_P; i += 2) v = (ks[i] | (uint64_t)ks[i + 1] << 32) & FGL__GF61_P;
    }
    fgl__crypto_wipe(st, sizeof st);
    fgl__crypto_wipe(ks, sizeof ks);
    return v;
}

FGLDEF int fgl_shamir_split(unsigned char *shares, const unsigned char secret[32], int t, int n,
                            const unsigned char coin_key[32]) {
    int c, i;
    uint32_t d;
    if (t < 1 || t > n) return FGL_ERR_ARG;
    for (c = 0; c < FGL__SHAMIR_CHUNKS; c++) {
        unsigned char *y = shares + 8 * c; /* share i's value of this chunk at y + i FGL_SHARE_BYTES */
        uint64_t s = fgl__le_load(secret + 7 * c, fgl__shamir_chunk_len(c)), a;
        for (i = 0; i < n; i++) fgl__le_store(y + (size_t)i * FGL_SHARE_BYTES, 0, 8);
        /* Horner from the top: y = y x + a_d for d = t - 1, ..., 1, then y x + s */
        for (d = (uint32_t)t - 1; d >= 1; d--) {
            a = fgl__shamir_coef(coin_key, c, d);
            for (i = 0; i < n; i++) {
                unsigned char *yi = y + (size_t)i * FGL_SHARE_BYTES;
                fgl__le_store(yi, fgl__gf61_add(fgl__gf61_mul(fgl__le_load(yi, 8), (uint64_t)i + 1), a), 8);
            }
        }
        for (i = 0; i < n; i++) {
            unsigned char *yi = y + (size_t)i * FGL_SHARE_BYTES;
            fgl__le_store(yi, fgl__gf61_add(fgl__gf61_mul(fgl__le_load(yi, 8), (uint64_t)i + 1), s), 8);
        }
    }
    return FGL_OK;
}

FGLDEF int fgl_shamir_combine(unsigned char secret[32], const unsigned char *shares, const uint32_t *xs, int t) {
    uint64_t acc[FGL__SHAMIR_CHUNKS] = {0};
    int i, j, c, bad = t < 1;
    for (i = 0; i < t && !bad; i++) {
        const unsigned char *y = shares + (size_t)i * FGL_SHARE_BYTES;
        bad |= xs[i] == 0;
        for (j = 0; j < i; j++) bad |= xs[j] == xs[i];
        for (c = 0; c < FGL__SHAMIR_CHUNKS; c++) bad |= fgl__le_load(y + 8 * c, 8) >= FGL__GF61_P;
    }
    /* secret = sum_i y_i l_i with l_i = prod_{j != i} x_j / (x_j - x_i), the
     * Lagrange basis at 0 */
    for (i = 0; i < t && !bad; i++) {
        const unsigned char *y = shares + (size_t)i * FGL_SHARE_BYTES;
        uint64_t num = 1, den = 1, l;
        for (j = 0; j < t; j++)
            if (j != i) {
                num = fgl__gf61_mul(num, xs[j]);
                den = fgl__gf61_mul(den, fgl__gf61_reduce((uint64_t)xs[j] + FGL__GF61_P - xs[i]));
            }
        l = fgl__gf61_mul(num, fgl__gf61_inv(den));
        for (c = 0; c < FGL__SHAMIR_CHUNKS; c++)
            acc[c] = fgl__gf61_add(acc[c], fgl__gf61_mul(l, fgl__le_load(y + 8 * c, 8)));
    }
    for (c = 0; c < FGL__SHAMIR_CHUNKS && !bad; c++) bad |= acc[c] >> (8 * fgl__shamir_chunk_len(c)) != 0;
    for (c = 0; c < FGL__SHAMIR_CHUNKS; c++)
        fgl__le_store(secret + 7 * c, bad ? 0 : acc[c], fgl__shamir_chunk_len(c));
    fgl__crypto_wipe(acc, sizeof acc);
    return bad ? FGL_ERR_ARG : FGL_OK;
}
/* --- src/fed/defences.h --- */
/* (secagg.h) */
static int fgl__secagg_mask(fgl_run *run, fgl_client *c);
static void fgl__secret_normals(const unsigned char key[32], uint32_t label, uint32_t a, uint32_t b, double *out,
                                size_t n);

/* --- the Renyi DP accountant ---------------------------------------------------------- */

static double fgl__logaddexp(double a, double b) {
    double m = a > b ? a : b;
    if (m == -HUGE_VAL) return m;
    return m + log(exp(a - m) + exp(b - m));
}

/* log(exp(a) - exp(b)), a >= b. */
static double fgl__logsubexp(double a, double b) {
    if (b == -HUGE_VAL) return a;
    return a + log1p(-exp(b - a));
}

/* log(erfc(x)), also where erfc underflows (its asymptotic series). */
static double fgl__log_erfc(double x) {
    if (x < 25) return log(erfc(x));
    return -x * x - log(x) - 0.5 * log(3.14159265358979323846) + log1p(-1 / (2 * x * x) + 3 / (4 * x * x * x * x));
}

FGLDEF double fgl_rdp_sampled_gaussian(double q, double sigma, double alpha) {
    double log_a = -HUGE_VAL, s2 = sigma * sigma;
    int k, a = (int)alpha;
    if (!(sigma > 0) || !(alpha > 1) || !(q >= 0 && q <= 1)) return HUGE_VAL;
    if (q == 0) return 0;
    if (q == 1) return alpha / (2 * s2);
    if (alpha == a) { /* integer order: A = sum_k C(alpha, k) (1-q)^(alpha-k) q^k exp((k^2 - k) / (2 sigma^2)) */
        for (k = 0; k <= a; k++) {
            double t = lgamma(a + 1.0) - lgamma(k + 1.0) - lgamma(a - k + 1.0) + (a - k) * log1p(-q) + k * log(q) +
                       ((double)k * k - k) / (2 * s2);
            log_a = fgl__logaddexp(log_a, t);
        }
        return log_a / (alpha - 1);
    }
    { /* fractional order (Mironov, Talwar and Zhang 2019, section 3.3): the two halves of the integral split at
       * z0 = sigma^2 log(1/q - 1) + 1/2, each a series over k of C(alpha, k) with the binomial's sign, summed
       * until its terms fall below e^-30 of nothing */
        double log_a0 = -HUGE_VAL, log_a1 = -HUGE_VAL, z0 = s2 * log(1 / q - 1) + 0.5, log_c = 0;
        int sign = 1;
        for (k = 0; k < 100000; k++) {
            double j = alpha - k, t0, t1, s0, s1;
            if (k > 0) { /* C(alpha, k) = C(alpha, k - 1) (alpha - k + 1) / k */
                double f = alpha - k + 1;
                if (f < 0) sign = -sign;
                log_c += log(fabs(f)) - log((double)k);
            }
            t0 = log_c + k * log(q) + j * log1p(-q);
            t1 = log_c + j * log(q) + k * log1p(-q);
            s0 = t0 + ((double)k * k - k) / (2 * s2) + log(0.5) + fgl__log_erfc((k - z0) / (sqrt(2.0) * sigma));
            s1 = t1 + (j * j - j) / (2 * s2) + log(0.5) + fgl__log_erfc((z0 - j) / (sqrt(2.0) * sigma));
            if (sign > 0) {
                log_a0 = fgl__logaddexp(log_a0, s0);
                log_a1 = fgl__logaddexp(log_a1, s1);
            } else {
                log_a0 = fgl__logsubexp(log_a0, s0);
                log_a1 = fgl__logsubexp(log_a1, s1);
            }
            if ((s0 > s1 ? s0 : s1) < -30) break;
        }
        return fgl__logaddexp(log_a0, log_a1) / (alpha - 1);
    }
}

/* epsilon at delta after `rounds` compositions: min over orders of
 * rounds eps_alpha + log(1/delta) / (alpha - 1). */
FGL__PRIVATE double fgl__dp_epsilon(double q, double sigma, int rounds, double delta) {
    double best = HUGE_VAL, alpha;
    if (!(sigma > 0)) return HUGE_VAL;
    if (rounds <= 0) return 0;
    for (alpha = 1.25; alpha <= 1024; alpha += alpha < 11 ? 0.25 : 1) {
        double e = fgl_rdp_sampled_gaussian(q, sigma, alpha);
        if (e == HUGE_VAL) continue;
        e = rounds * e + log(1 / delta) / (alpha - 1);
        if (e < best) best = e;
    }
    return best;
}

static long long fgl__dp_round_draws(const fgl_run *run);

FGLDEF double fgl_run_dp_epsilon(const fgl_run *run, double delta) {
    int r;
    if (!(run->cfg.dp.clip > 0)) return NAN;
    if (run->cfg.dp.noise > 0) /* the accountant counts rounds that released the sampled Gaussian: all, or no epsilon */
        for (r = 0; r < run->round; r++)
            if (run->stats[r].dp_draws != fgl__dp_round_draws(run)) return NAN;
    return fgl__dp_epsilon((double)run->cfg.frac, run->cfg.dp.noise, run->round, delta > 0 ? delta : run->cfg.dp.delta);
}

/* --- defences, attacks, privacy: the runtime's part ------------------------------ */

/* An RNG stream kept in a store (checkpointed). */
static fgl_rng *fgl__new_rng(fgl_store *st, const char *name, uint64_t seed, uint64_t stream) {
    fgl_rng *r = (fgl_rng *)fgl__zalloc(sizeof(fgl_rng));
    if (r) fgl_rng_init(r, seed, stream);
    return (fgl_rng *)fgl__store_add(st, name, FGL__E_RNG, r, 0, 1);
}

static int fgl__weights_part(const fgl_part *d) { return d->kind == FGL_SEND_MODEL || d->kind == FGL_SEND_DELTA; }

/* The reference an upload part's update is measured from: the model part of
 * the download (for a model part), nothing (zero) for a delta. */
static const float *fgl__ref_of(const fgl_msg *down, const fgl_part *d) {
    int p;
    if (d->kind != FGL_SEND_MODEL) return NULL;
    for (p = 0; p < down->n_parts; p++)
        if (down->decl[p].kind == FGL_SEND_MODEL) return down->part[p];
    return NULL;
}

/* Adds the squares of x - ref (ref NULL: zero) into FGL__NORM_LANES running
 * sums, value k to sum k mod FGL__NORM_LANES: that many independent chains
 * (four vectors of eight doubles) run at the core's throughput where one
 * waits on each add's latency. A caller going through a vector in pieces
 * whose starts are multiples of FGL__NORM_LANES gets the sums of one call
 * over the whole. */
#define FGL__NORM_LANES 32
static void fgl__norm_sums(const float *x, const float *ref, size_t n, double s[FGL__NORM_LANES]) {
    size_t k = 0, q, n32 = n - n % FGL__NORM_LANES;
#if defined(FGL__SIMD) && defined(__AVX512F__)
    { /* The same sums at the core's full width (GCC's -march=native prefers
       * 256-bit loops, which here spend a shuffle on every conversion): lanes
       * 8h..8h+7 in vector h, a multiply then an add as below: the same bits. */
        __m512d acc[4];
        int h;
        for (h = 0; h < 4; h++) acc[h] = _mm512_loadu_pd(s + 8 * h);
        /* (the zero-masked conversion with every lane kept: g++ 12 warns that
         * the plain one's undefined pass-through may be uninitialised) */
        for (; k < n32; k += FGL__NORM_LANES)
            for (h = 0; h < 4; h++) {
                __m512d u = _mm512_maskz_cvtps_pd(0xFF, _mm256_loadu_ps(x + k + 8 * h));
                if (ref) u = _mm512_sub_pd(u, _mm512_maskz_cvtps_pd(0xFF, _mm256_loadu_ps(ref + k + 8 * h)));
                acc[h] = _mm512_add_pd(acc[h], _mm512_mul_pd(u, u));
            }
        for (h = 0; h < 4; h++) _mm512_storeu_pd(s + 8 * h, acc[h]);
    }
#endif
    /* The square and the sum in separate statements: a compiler that fuses
     * a * b + c within one expression (clang does by default) would round
     * them once, the vectors above twice. */
    for (; k < n32; k += FGL__NORM_LANES)
        for (q = 0; q < FGL__NORM_LANES; q++) {
            double u = (double)x[k + q] - (ref ? (double)ref[k + q] : 0.0), sq = u * u;
            s[q] += sq;
        }
    for (k = n32; k < n; k++) {
        double u = (double)x[k] - (ref ? (double)ref[k] : 0.0), sq = u * u;
        s[k % FGL__NORM_LANES] += sq;
    }
}

/* The sums added pairwise in a fixed order: the same norm on every run. */
static double fgl__norm_of_sums(const double s[FGL__NORM_LANES]) {
    double t[FGL__NORM_LANES];
    int w, q;
    memcpy(t, s, sizeof t);
    for (w = FGL__NORM_LANES / 2; w >= 1; w /= 2)
        for (q = 0; q < w; q++) t[q] = t[q] + t[q + w];
    return sqrt(t[0]);
}

static double fgl__update_norm(const float *x, const float *ref, size_t n) {
    double s[FGL__NORM_LANES] = {0};
    fgl__norm_sums(x, ref, n, s);
    return fgl__norm_of_sums(s);
}

/* fgl_all_finite(n, x) and, when it is, fgl__update_norm(x, ref, n) in
 * *norm, in one pass over x: summed in doubles, the squares of finite
 * values stay below 1e78, so with a finite ref (a download) the norm is
 * finite exactly when every value is; only a norm that is not sends x to
 * fgl_all_finite (a non-finite ref: then the answer is x's own). */
static int fgl__finite_update_norm(const float *x, const float *ref, size_t n, double *norm) {
    double s[FGL__NORM_LANES] = {0};
    fgl__norm_sums(x, ref, n, s);
    *norm = fgl__norm_of_sums(s);
    return isfinite(*norm) || fgl_all_finite(n, x);
}

/* x <- ref + a (x - ref) + b, per value (ref NULL: zero). */
static void fgl__affine_update(float *x, const float *ref, size_t n, double a) {
    size_t k;
    for (k = 0; k < n; k++) {
        double r = ref ? ref[k] : 0.0;
        x[k] = (float)(r + a * ((double)x[k] - r));
    }
}

/* The L2 norm of a client's update over all its weights parts together
 * (DP-FedAvg clips that: every part that reaches the models). */
static double fgl__joint_update_norm(const fgl_algo *a, const fgl_msg *up, const fgl_msg *down) {
    double sq = 0;
    int p;
    for (p = 0; p < a->n_up; p++)
        if (fgl__weights_part(&a->up[p]) && up->part[p]) {
            double nrm = fgl__update_norm(up->part[p], fgl__ref_of(down, &a->up[p]), up->len[p]);
            sq += nrm * nrm;
        }
    return sqrt(sq);
}

/* Client side, after its upload hook: what an attacker does to its upload,
 * DP clipping, and secure aggregation's fixed-point encoding and masks. */
static int fgl__client_transform(fgl_run *run, fgl_client *c) {
    const fgl_fed_config *cfg = &run->cfg;
    const fgl_algo *a = &run->algo;
    double dp_scale = 1;
    int p;
    if (cfg->dp.clip > 0 && !c->attacker) { /* DP-FedAvg: an honest client clips its whole update to norm clip */
        double norm = fgl__joint_update_norm(a, &c->up, &c->down);
        if (norm > cfg->dp.clip) dp_scale = cfg->dp.clip / norm;
    }
    for (p = 0; p < a->n_up; p++) {
        const fgl_part *d = &a->up[p];
        float *x;
        size_t n = c->up.len[p], k;
        const float *ref;
        if (!c->up.part[p] || !(c->attacker || dp_scale < 1)) continue; /* nothing changes it */
        if (!(x = fgl__msg_write(&c->up, p))) return fgl_client_fail(c, FGL_ERR_NOMEM, "out of memory");
        if (d->kind == FGL_SEND_WEIGHT && c->attacker && cfg->attack.kind == FGL_ATTACK_COUNT)
            x[0] = (float)cfg->attack.arg;
        if (!fgl__weights_part(d)) continue;
        ref = fgl__ref_of(&c->down, d);
        if (c->attacker) {
            switch (cfg->attack.kind) {
            case FGL_ATTACK_SIGNFLIP: fgl__affine_update(x, ref, n, -cfg->attack.arg); break;
            case FGL_ATTACK_SCALE: fgl__affine_update(x, ref, n, cfg->attack.arg); break;
            case FGL_ATTACK_NOISE: {
                fgl_rng *r = (fgl_rng *)fgl__store_get(&c->store, "attack_rng", FGL__E_RNG);
                for (k = 0; k < n; k++) x[k] = (float)(x[k] + cfg->attack.arg * fgl_rng_normal(r));
                break;
            }
            case FGL_ATTACK_NAN:
                for (k = 0; k < n; k++) x[k] = (float)NAN;
                break;
            default: break;
            }
        } else if (dp_scale < 1) {
            fgl__affine_update(x, ref, n, dp_scale);
        }
    }
    return cfg->secagg.on ? fgl__secagg_mask(run, c) : FGL_OK;
}

/* The inverse of the standard normal CDF, by bisection on erf. */
FGL__PRIVATE double fgl__normal_quantile(double p) {
    double lo = -10, hi = 10;
    int i;
    for (i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (0.5 * (1 + erf(mid / sqrt(2.0))) < p) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* "A little is enough" (Baruch et al. 2019): the colluding attackers send
 * mean - z std of the round's updates, per value, z such that a majority
 * of n clients still sees it inside its range: s = floor(n/2 + 1) - f,
 * z = Phi^-1((n - s) / n). */
static int fgl__alie(fgl_run *run) {
    const fgl_algo *a = &run->algo;
    int p, q, n = run->n_part, f = 0, s;
    double z;
    for (q = 0; q < n; q++) f += run->attacker[run->part[q]];
    if (!f) return FGL_OK;
    s = n / 2 + 1 - f;
    z = n > s ? fgl__normal_quantile((double)(n - s) / n) : 0;
    for (p = 0; p < a->n_up; p++) {
        const fgl_part *d = &a->up[p];
        size_t len = 0, k;
        double *mean, *sq;
        if (!fgl__weights_part(d)) continue;
        for (q = 0; q < n; q++)
            if (run->clients[run->part[q]].up.part[p]) len = run->clients[run->part[q]].up.len[p];
        mean = (double *)fgl__zalloc(sizeof(double) * FGL__MAX(len, 1));
        sq = (double *)fgl__zalloc(sizeof(double) * FGL__MAX(len, 1));
        if (!mean || !sq) {
            FGL_FREE(mean);
            FGL_FREE(sq);
            return fgl_error_set(&run->err, FGL_ERR_NOMEM, "alie: out of memory");
        }
        for (q = 0; q < n; q++) { /* the updates the clients trained (the attackers' own are benign estimates) */
            const fgl_client *c = &run->clients[run->part[q]];
            const float *x = c->up.part[p], *ref = fgl__ref_of(&run->down[c->id], d);
            for (k = 0; x && k < len; k++) {
                double u = (double)x[k] - (ref ? ref[k] : 0.0f);
                mean[k] += u / n;
                sq[k] += u * u / n;
            }
        }
        for (q = 0; q < n; q++) {
            fgl_client *c = &run->clients[run->part[q]];
            const float *ref = fgl__ref_of(&run->down[c->id], d);
            float *x;
            if (!c->attacker || !c->up.part[p]) continue;
            if (!(x = fgl__msg_write(&c->up, p))) {
                FGL_FREE(mean);
                FGL_FREE(sq);
                return fgl_error_set(&run->err, FGL_ERR_NOMEM, "alie: out of memory");
            }
            for (k = 0; k < len; k++) {
                double sd = sqrt(sq[k] - mean[k] * mean[k] > 0 ? sq[k] - mean[k] * mean[k] : 0.0);
                x[k] = (float)((ref ? ref[k] : 0.0f) + mean[k] - z * sd);
            }
        }
        FGL_FREE(mean);
        FGL_FREE(sq);
    }
    return FGL_OK;
}

/* Norm screening: an accepted upload whose update norm exceeds screen x
 * the median of the round's accepted updates is rejected (3 or more). The
 * norms are those fgl__check_upload measured. */
static int fgl__screen(fgl_run *run, fgl_round_stats *st) {
    const double *norms = run->up_norm;
    const fgl_algo *a = &run->algo;
    int p, q, m, n_screened = 0;
    double *sorted = (double *)fgl__zalloc(sizeof(double) * (size_t)FGL__MAX(run->n_part, 1));
    if (!sorted) return fgl_error_set(&run->err, FGL_ERR_NOMEM, "screening: out of memory");
    for (p = 0; p < a->n_up; p++) {
        double med;
        if (!fgl__weights_part(&a->up[p])) continue;
        for (q = m = 0; q < run->n_part; q++) {
            const fgl_client *c = &run->clients[run->part[q]];
            if (!run->accepted[c->id] || !c->up.part[p]) continue;
            sorted[m++] = norms[(size_t)c->id * FGL_MSG_MAX_PARTS + p];
        }
        if (m < 3) continue;
        for (q = 1; q < m; q++) { /* insertion sort: m is the round's participants */
            double x = sorted[q];
            int j = q;
            while (j > 0 && sorted[j - 1] > x) {
                sorted[j] = sorted[j - 1];
                j--;
            }
            sorted[j] = x;
        }
        med = m % 2 ? sorted[m / 2] : 0.5 * (sorted[m / 2 - 1] + sorted[m / 2]);
        for (q = 0; q < run->n_part; q++) {
            int i = run->part[q];
            if (run->accepted[i] && run->clients[i].up.part[p] &&
                norms[(size_t)i * FGL_MSG_MAX_PARTS + p] > run->cfg.robust.screen * med) {
                run->accepted[i] = 0;
                n_screened++;
            }
        }
    }
    st->n_screened += n_screened;
    FGL_FREE(sorted);
    return n_screened;
}

static double fgl__upload_weight(const fgl_msg *m, int equal);

/* A source of a robust mixture: its value at one coordinate and its client
 * (ties in value go to the lower client: deterministic orders). */
typedef struct fgl__wval {
    double v;
    int j;
} fgl__wval;

static int fgl__cmp_wval(const void *a, const void *b) {
    const fgl__wval *x = (const fgl__wval *)a, *y = (const fgl__wval *)b;
    if (x->v != y->v) return (x->v > y->v) - (x->v < y->v);
    return (x->j > y->j) - (x->j < y->j);
}

/* The weighted median (t < 0) or trimmed mean (t >= 0) of the sorted values
 * col[0..c-1] under the weights w[col[q].j] (zero weights skipped): of the
 * n sources of positive weight, the min(t, (n - 1) / 2) smallest and as
 * many largest dropped (the most that leaves one), the weighted mean of the
 * rest (t = 0, or n <= 2: of them all). Equal positive weights, whatever
 * their value, count as 1 each: the plain median (the two middle values
 * averaged) and the plain trimmed mean, bit for bit (running sums of 0.1
 * would miss the exact half, and a v / (4 a) is not the mean of v); so
 * with equal weights a trim cut to (n - 1) / 2 is their median. */
static double fgl__weighted_order_stat(const fgl__wval *col, int c, const double *w, int t) {
    int q, npos = 0, seen = 0, equal = 1;
    double total = 0, cum = 0, sum = 0, wsum = 0, first = 0;
    for (q = 0; q < c; q++)
        if (w[col[q].j] > 0) {
            if (!npos) first = w[col[q].j];
            equal &= w[col[q].j] == first;
            total += w[col[q].j];
            npos++;
        }
    if (equal) total = npos;
    if (t >= 0 && npos > 0) { /* trimmed: the middle npos - 2 t, weighted (t cut to leave one) */
        if (2 * t >= npos) t = (npos - 1) / 2;
        for (q = 0; q < c; q++) {
            double a = w[col[q].j];
            if (!(a > 0)) continue;
            seen++;
            if (seen <= t || seen > npos - t) continue;
            if (equal) a = 1.0;
            sum += a * col[q].v;
            wsum += a;
        }
        return sum / wsum;
    }
    for (q = 0; q < c; q++) { /* the first value where the cumulative weight reaches half the total */
        double a = w[col[q].j];
        if (!(a > 0)) continue;
        cum += equal ? 1.0 : a;
        if (2 * cum < total) continue;
        if (2 * cum == total) { /* exactly half: the midpoint with the next value of positive weight */
            int r;
            for (r = q + 1; r < c; r++)
                if (w[col[r].j] > 0) return 0.5 * (col[q].v + col[r].v);
        }
        return col[q].v;
    }
    return 0; /* no positive weight (the caller refuses such rows) */
}

/* The robust rules over mixtures, shared by fgl_server_mean (one row of
 * weights over the accepted uploads) and fgl_server_mix (a row per client):
 * out row r (n_out rows of n floats; those with rows[r] != 0, rows NULL:
 * all) from the sources of part p, row r weighting client j by
 * w[r K + j]. Source j is client j's accepted upload, else row j of held
 * (NULL: none). div (K, NULL: none) divides source j by div[j] (0: source
 * left out): pFedGraph's mixture of normalised models. count: charge the
 * clips to s->n_clipped and a fallback (too few uploads for the rule's
 * parameter) to s->n_fallback. See fgl_server_mix for the rules. */
static int fgl__rule_mix(fgl_server *s, int p, size_t n, const float *held, const double *w, const double *div,
                         int n_out, float *out, const unsigned char *rows, int count) {
    const fgl_robust_config *rc = &s->fed->robust;
    const fgl_part *d = &s->algo->up[p];
    int K = s->n_clients, rule = fgl__weights_part(d) ? rc->rule : FGL_ROBUST_MEAN, j, r, q, mf = 0, n_sel = 0;
    const float **x = (const float **)fgl_scratch(&s->store, sizeof(float *) * (size_t)K);
    const float **ref = (const float **)fgl_scratch(&s->store, sizeof(float *) * (size_t)K);
    unsigned char *fresh = (unsigned char *)fgl_scratch(&s->store, (size_t)K);
    double *acc = (double *)fgl_scratch(&s->store, sizeof(double) * FGL__MAX(n, 1));
    double *clip = NULL, *wr = NULL;
    int *sel = NULL;
    float *dst = out;
    size_t k;
    if (!x || !ref || !fresh || !acc) return FGL_ERR_NOMEM;
    for (j = 0; j < K; j++) {
        if (s->up[j] && s->up[j]->part[p]) {
            x[j] = s->up[j]->part[p];
            ref[j] = s->down ? fgl__ref_of(&s->down[j], d) : NULL;
            fresh[j] = 1;
            mf++;
        } else if (held) {
            x[j] = held + (size_t)j * n;
        }
    }
    for (r = 0; r < n_out; r++) { /* every weighted source exists; robust rules: weights >= 0 and some positive */
        int any = 0;
        if (rows && !rows[r]) continue;
        for (j = 0; j < K; j++) {
            double a = w[(size_t)r * K + j];
            if (a != 0 && !x[j])
                return fgl_server_fail(s, FGL_ERR_ARG,
                                       "mixing '%s': row %d weighs client %d (%g), which has neither an "
                                       "accepted upload nor a held row",
                                       d->name, r, j, a);
            if (rule != FGL_ROBUST_MEAN && !(a >= 0 && a < HUGE_VAL))
                return fgl_server_fail(s, FGL_ERR_ARG, "%s: row %d has weight %g for client %d (weights must be >= 0)",
                                       fgl_robust_name(rule), r, a, j);
            any |= a > 0;
        }
        if (rule != FGL_ROBUST_MEAN && !any)
            return fgl_server_fail(s, FGL_ERR_ARG, "%s: row %d of the mixing weights is zero", fgl_robust_name(rule),
                                   r);
    }
    if (rule == FGL_ROBUST_MEAN) { /* fgl_mix_rows of the sources, bit for bit */
        for (r = 0; r < n_out; r++) {
            if (rows && !rows[r]) continue;
            memset(acc, 0, sizeof(double) * n);
            for (j = 0; j < K; j++) {
                double a = w[(size_t)r * K + j];
                if (div) a = div[j] > 0 ? a / div[j] : 0.0;
                if (a == 0) continue;
                for (k = 0; k < n; k++) acc[k] += a * x[j][k];
            }
            for (k = 0; k < n; k++) out[(size_t)r * n + k] = (float)acc[k];
        }
        return FGL_OK;
    }
    if (mf == 0) return FGL_ERR_EMPTY;
    wr = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K);
    if (!wr) return FGL_ERR_NOMEM;
    switch (rule) {
    case FGL_ROBUST_MEDIAN:
    case FGL_ROBUST_TRIMMED: {
        int t = rule == FGL_ROBUST_TRIMMED ? rc->trim : -1, c;
        fgl__wval *col = (fgl__wval *)fgl_scratch(&s->store, sizeof(fgl__wval) * (size_t)K);
        if (!col) return FGL_ERR_NOMEM;
        /* too few accepted uploads for trim (2 trim >= m): each row trims as many as leave one (with equal
         * weights, the median of the uploads; with 2 or fewer, their mean); counted */
        if (count && rule == FGL_ROBUST_TRIMMED && 2 * t >= mf) s->n_fallback++;
        for (k = 0; k < n; k++) { /* sorted once per coordinate, then each row walks it with its weights */
            for (j = c = 0; j < K; j++)
                if (x[j] && (!div || div[j] > 0)) {
                    col[c].v = div ? (double)x[j][k] / div[j] : (double)x[j][k];
                    col[c++].j = j;
                }
            qsort(col, (size_t)c, sizeof(fgl__wval), fgl__cmp_wval);
            for (r = 0; r < n_out; r++) {
                if (rows && !rows[r]) continue;
                out[(size_t)r * n + k] = (float)fgl__weighted_order_stat(col, c, w + (size_t)r * K, t);
            }
        }
        return FGL_OK;
    }
    case FGL_ROBUST_KRUM:
    case FGL_ROBUST_MULTIKRUM: { /* scores over the accepted uploads' updates; row r mixes the selected */
        int f = rc->f, keep = rule == FGL_ROBUST_KRUM ? 1 : rc->m, near, a, b, fallback = 0;
        int *idx = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K);
        double *dist = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)mf * (size_t)mf);
        double *score = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)mf);
        double *row = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)mf);
        unsigned char *chosen = (unsigned char *)fgl_scratch(&s->store, (size_t)mf);
        if (keep < 1) return fgl_server_fail(s, FGL_ERR_ARG, "multikrum: keeps %d uploads (1 or more)", keep);
        /* too few accepted uploads for f (Krum's guarantee needs m > 2 f + 2): the largest f the round supports,
         * and at most m - f kept; fewer than 3 uploads cannot be scored: all of them kept (their mean); counted */
        if (mf < 3) {
            f = 0;
            keep = mf;
            fallback = 1;
        } else {
            if (mf <= 2 * f + 2) f = (mf - 3) / 2;
            if (keep > mf - f) keep = mf - f;
            fallback = f != rc->f || keep != (rule == FGL_ROBUST_KRUM ? 1 : rc->m);
        }
        if (count && fallback) s->n_fallback++;
        near = mf - f - 2;
        sel = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)FGL__MAX(keep, 1));
        if (!idx || !dist || !score || !row || !chosen || !sel) return FGL_ERR_NOMEM;
        for (j = a = 0; j < K; j++)
            if (fresh[j]) idx[a++] = j;
        if (mf < 3) { /* no scores: every upload, in client order */
            for (a = 0; a < mf; a++) sel[n_sel++] = idx[a];
            break;
        }
        for (a = 0; a < mf; a++)
            for (b = a + 1; b < mf;
                 b++) { /* squared distance of the updates (of the uploads, if they share their reference) */
                const float *u = x[idx[a]], *v = x[idx[b]], *ru = ref[idx[a]], *rv = ref[idx[b]];
                double sum = 0;
                if (ru == rv)
                    for (k = 0; k < n; k++) sum += ((double)u[k] - v[k]) * ((double)u[k] - v[k]);
                else
                    for (k = 0; k < n; k++) {
                        double e = ((double)u[k] - (ru ? ru[k] : 0.0f)) - ((double)v[k] - (rv ? rv[k] : 0.0f));
                        sum += e * e;
                    }
                dist[(size_t)a * mf + b] = dist[(size_t)b * mf + a] = sum;
            }
        for (a = 0; a < mf; a++) { /* the sum of the `near` smallest distances to the others */
            int c = 0;
            for (b = 0; b < mf; b++)
                if (b != a) row[c++] = dist[(size_t)a * mf + b];
            for (b = 1; b < c; b++) { /* insertion sort */
                double y = row[b];
                int t = b;
                while (t > 0 && row[t - 1] > y) {
                    row[t] = row[t - 1];
                    t--;
                }
                row[t] = y;
            }
            score[a] = 0;
            for (b = 0; b < near; b++) score[a] += row[b];
        }
        for (q = 0; q < keep; q++) { /* the `keep` lowest scores (ties: the lower client id), in that order */
            int best = -1;
            for (a = 0; a < mf; a++)
                if (!chosen[a] && (best < 0 || score[a] < score[best])) best = a;
            chosen[best] = 1;
            sel[n_sel++] = idx[best];
        }
        break;
    }
    case FGL_ROBUST_NORMCLIP: { /* each update's factor min(1, M / ||u_j||), once */
        clip = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K);
        sel = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K);
        if (!clip || !sel) return FGL_ERR_NOMEM;
        for (j = 0; j < K; j++) {
            double norm;
            if (!fresh[j]) continue;
            norm = fgl__update_norm(x[j], ref[j], n);
            clip[j] = norm > rc->clip ? rc->clip / norm : 1.0;
            if (count) s->n_clipped += clip[j] < 1;
            sel[n_sel++] = j;
        }
        if (n_out > 1 && !(dst = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)n_out * FGL__MAX(n, 1))))
            return FGL_ERR_NOMEM; /* the references may be rows of out (a personalised download): written at the end */
        break;
    }
    default: return fgl_server_fail(s, FGL_ERR_ARG, "unknown robust rule %d", rule);
    }
    for (r = 0; r < n_out; r++) { /* KRUM, MULTIKRUM, NORMCLIP: row r's weighted mean of the kept sources sel[] */
        double wsum = 0;
        if (rows && !rows[r]) continue;
        for (q = 0; q < n_sel; q++) {
            j = sel[q];
            wr[j] = div && !(div[j] > 0) ? 0.0 : w[(size_t)r * K + j];
            wsum += wr[j];
        }
        if (!(wsum > 0) && held) { /* the row weighs only held rows (kept models, no update to judge): their mean */
            double hsum = 0;
            for (j = 0; j < K; j++)
                if (fresh[j] && w[(size_t)r * K + j] > 0) break;
            memset(acc, 0, sizeof(double) * n);
            for (j = j < K ? K : 0; j < K; j++) { /* (none if the row weighs a fresh upload the rule left out) */
                double a = fresh[j] ? 0.0 : w[(size_t)r * K + j];
                if (!(a > 0) || (div && !(div[j] > 0))) continue;
                hsum += a;
                if (div) a /= div[j];
                for (k = 0; k < n; k++) acc[k] += a * x[j][k];
            }
            if (hsum > 0) {
                for (k = 0; k < n; k++) dst[(size_t)r * n + k] = (float)(acc[k] / hsum);
                continue;
            }
        }
        if (!(wsum > 0)) /* the row weighs none of them: equal weights (what fgl_server_mean's rule gives) */
            for (q = 0, wsum = 0; q < n_sel; q++) {
                j = sel[q];
                wr[j] = div && !(div[j] > 0) ? 0.0 : 1.0;
                wsum += wr[j];
            }
        if (!(wsum > 0)) return fgl_server_fail(s, FGL_ERR_ARG, "%s: row %d keeps no source", fgl_robust_name(rule), r);
        memset(acc, 0, sizeof(double) * n);
        for (q = 0; q < n_sel; q++) {
            const float *y, *rf;
            double a, e;
            j = sel[q];
            if (!(wr[j] > 0)) continue;
            a = wr[j];
            y = x[j];
            if (rule != FGL_ROBUST_NORMCLIP) {
                if (div) a /= div[j];
                for (k = 0; k < n; k++) acc[k] += a * y[k];
                continue;
            }
            rf = ref[j];
            e = clip[j];
            for (k = 0; k < n; k++) {
                double b = rf ? rf[k] : 0.0, v = b + e * ((double)y[k] - b);
                acc[k] += a * (div ? v / div[j] : v);
            }
        }
        for (k = 0; k < n; k++) dst[(size_t)r * n + k] = (float)(acc[k] / wsum);
    }
    if (dst != out)
        for (r = 0; r < n_out; r++)
            if (!rows || rows[r]) memcpy(out + (size_t)r * n, dst + (size_t)r * n, sizeof(float) * n);
    return FGL_OK;
}

/* DP-FedAvg's release of weights part p (n floats) in this round:
 *   base + (sum_i clip_C(u_i) + N(0, (sigma C)^2 I)) / (q K)
 * over the accepted uploads u_i (each update clipped again here, so the
 * bound holds whatever a client sent), q = cfg.frac, K the clients. base is
 * the model the participants' updates start from (a model part), or zero (a
 * delta part); in a round without participants the update is the noise
 * alone, added to empty_base (a model part: the model the server holds).
 * The noise comes from the server's secret DP key, one stream per (round,
 * part). */
static int fgl__dp_mean(fgl_server *s, int p, float *out, size_t n, const float *empty_base) {
    const fgl_fed_config *cfg = s->fed;
    const fgl_part *d = &s->algo->up[p];
    const float *base = NULL;
    int K = s->n_clients, i;
    double qK = (double)cfg->frac * K, sd = (double)cfg->dp.noise * cfg->dp.clip / qK;
    double *acc = (double *)fgl_scratch(&s->store, sizeof(double) * FGL__MAX(n, 1));
    size_t k;
    if (!acc) return FGL_ERR_NOMEM;
    for (i = 0; i < K; i++) {
        const fgl_msg *u = s->up[i];
        const float *x, *ref;
        double norm, f = 1;
        if (!u || !u->part[p]) continue;
        x = u->part[p];
        ref = fgl__ref_of(&s->down[i], d);
        norm = fgl__joint_update_norm(s->algo, u, &s->down[i]);
        if (!base) base = ref;
        else if (ref != base && (!ref || memcmp(ref, base, sizeof(float) * n) != 0))
            return fgl_server_fail(s, FGL_ERR_ARG, "differential privacy: the participants' updates start "
                                   "from different models (one mean of them is defined)");
        if (norm > cfg->dp.clip) f = cfg->dp.clip / norm;
        for (k = 0; k < n; k++) acc[k] += f * ((double)x[k] - (ref ? (double)ref[k] : 0.0));
    }
    if (!base && d->kind == FGL_SEND_MODEL) base = empty_base; /* no participant: the noise alone */
    if (sd > 0) {
        double *z = (double *)fgl_scratch(&s->store, sizeof(double) * FGL__MAX(n, 1));
        if (!z) return FGL_ERR_NOMEM;
        fgl__secret_normals(s->dp_key, FGL__SECRET_DP_NOISE, (uint32_t)s->round, (uint32_t)p, z, n);
        for (k = 0; k < n; k++) acc[k] += sd * qK * z[k];
        fgl__crypto_wipe(z, sizeof(double) * n); /* the noise drawn: whoever had it could remove it */
    }
    for (k = 0; k < n; k++) out[k] = (float)((base ? (double)base[k] : 0.0) + acc[k] / qK);
    return FGL_OK;
}

/* The robust, DP or secure mean of a weights part p over the accepted
 * uploads (a robust rule: fgl__rule_mix with one row). */
FGL__PRIVATE int fgl__defended_mean(fgl_server *s, int p, float *out, size_t n) {
    const fgl_fed_config *cfg = s->fed;
    int K = s->n_clients, i, j, m = 0, *idx = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K);
    double *acc = (double *)fgl_scratch(&s->store, sizeof(double) * FGL__MAX(n, 1));
    size_t k;
    if (!idx || !acc) return FGL_ERR_NOMEM;
    for (i = 0; i < K; i++)
        if (s->up[i] && s->up[i]->part[p]) idx[m++] = i;
    if (cfg->secagg.on) { /* the sum the protocol unmasked, decoded: sum (n_i/N) theta_i / sum n_i/N */
        const uint32_t *sum = s->secagg_sum;
        double scale = ldexp(1.0, cfg->secagg.frac_bits), tw;
        if (!sum || s->algo->up[p].kind != FGL_SEND_MODEL) return FGL_ERR_EMPTY; /* the round was not unmasked */
        if (s->secagg_len != n) return fgl_server_fail(s, FGL_ERR_SHAPE, "secure aggregation: the sum has %lu values, "
                                                       "the part %lu", (unsigned long)s->secagg_len, (unsigned long)n);
        /* each of the m <= K survivors encoded |x| <= floor((2^31 - 1) / K) (secagg.h): the sum is a signed word */
        tw = (double)(int32_t)sum[n] / scale;
        if (!(tw > 0))
            return fgl_server_fail(s, FGL_ERR_RANGE, "secure aggregation: the decoded weight total is %g", tw);
        for (k = 0; k < n; k++) out[k] = (float)((double)(int32_t)sum[k] / scale / tw);
        return FGL_OK;
    }
    if (cfg->dp.clip > 0) return fgl__dp_mean(s, p, out, n, out);
    if (m == 0) return FGL_ERR_EMPTY;
    { /* a robust rule: one row over the accepted uploads, equal weights as published (the sample counts for NORMCLIP)
       */
        double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K);
        if (!w) return FGL_ERR_NOMEM;
        for (j = 0; j < m; j++)
            w[idx[j]] = cfg->robust.rule == FGL_ROBUST_NORMCLIP ? fgl__upload_weight(s->up[idx[j]], 0) : 1.0;
        return fgl__rule_mix(s, p, n, NULL, w, NULL, 1, out, NULL, 1);
    }
}

/* The download part that sends the model the server holds, whole (a part
 * `from` a server buffer, not a row per client), or -1: DP needs it to
 * release a round without participants. */
static int fgl__model_source(const fgl_algo *a) {
    int q;
    for (q = 0; q < a->n_down; q++)
        if (a->down[q].kind == FGL_SEND_MODEL && a->down[q].from && !(a->down[q].flags & FGL_PART_ROW)) return q;
    return -1;
}

/* The noise values a DP round draws when every model and delta part is
 * noised: the parts' sizes. */
static long long fgl__dp_round_draws(const fgl_run *run) {
    long long n = 0;
    int p;
    for (p = 0; p < run->algo.n_up; p++)
        if (fgl__weights_part(&run->algo.up[p])) n += (long long)run->server.up_len[p];
    return n;
}

/* DP by mechanism, before the aggregate hook: the runtime releases the
 * noised mean (fgl__dp_mean) of every model and delta part, in every round,
 * participants or not, and counts the noise values drawn (st->dp_draws);
 * the hook is then handed no upload, only these releases (fgl_server_mean),
 * so whatever it publishes is a function of them. A round without
 * participants adds the noise to the model the server holds (the buffer the
 * model download is sent from). */
static int fgl__dp_release(fgl_run *run, fgl_round_stats *st) {
    fgl_server *s = &run->server;
    const fgl_algo *a = &run->algo;
    const float *model = NULL;
    int p, q = fgl__model_source(a), rc;
    st->dp_draws = 0;
    if (q >= 0) {
        fgl__entry *e = fgl__store_find(&s->store, a->down[q].from, FGL__E_FLOATS);
        if (e && e->n == s->down_len[q]) model = (const float *)e->p;
    }
    for (p = 0; p < a->n_up; p++) {
        size_t n = s->up_len[p];
        s->dp_release[p] = NULL;
        s->dp_taken[p] = 0;
        if (!fgl__weights_part(&a->up[p])) continue;
        if (a->up[p].kind == FGL_SEND_MODEL && (!model || s->down_len[q] != n))
            return fgl_server_fail(s, FGL_ERR_ARG, "differential privacy: %s holds no model of %lu floats to "
                                   "release '%s' from", a->name, (unsigned long)n, a->up[p].name);
        if (!run->dp_out[p] && !(run->dp_out[p] = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(n, 1))))
            return fgl_server_fail(s, FGL_ERR_NOMEM, "differential privacy: out of memory");
        rc = fgl__dp_mean(s, p, run->dp_out[p], n, model);
        fgl_tape_reset(&s->store.scratch);
        if (rc) return s->error ? s->error : fgl_server_fail(s, rc, "differential privacy: %s", fgl_result_name(rc));
        s->dp_release[p] = run->dp_out[p];
        if (run->cfg.dp.noise > 0) st->dp_draws += (long long)n;
    }
    return FGL_OK;
}

/* After the hook: every release was taken (fgl_server_mean), else the
 * round's models do not come from the noised means and the run stops,
 * naming the part. The releases end with the round. */
static int fgl__dp_released(fgl_run *run) {
    fgl_server *s = &run->server;
    int p, missed = -1;
    for (p = 0; p < run->algo.n_up; p++) {
        if (s->dp_release[p] && !s->dp_taken[p] && missed < 0) missed = p;
        s->dp_release[p] = NULL;
    }
    if (missed >= 0)
        return fgl_server_fail(s, FGL_ERR_ARG, "differential privacy: the aggregate hook did not take the noised mean "
                               "of '%s' (fgl_server_mean); under DP the released models must come from it, so "
                               "the run stops", run->algo.up[missed].name);
    return FGL_OK;
}

static void fgl__dims_fill(const fgl__dims *d, size_t *out) {
    int r;
    out[0] = 0;
    for (r = 1; r < FGL_DIM_RULES; r++) out[r] = fgl__dim(d, -r);
}

/* A size given by an integer parameter (fgl_algo_param_dim): its value. */
static size_t fgl__param_rule(const fgl_settings *set, int rule) {
    int i = FGL__DIM_PARAM0 - rule;
    return set && set->algo && i < set->algo->n_params && set->value[i] >= 1 ? (size_t)set->value[i] : 0;
}

FGLDEF size_t fgl_client_dim(const fgl_client *c, int rule) {
    if (rule <= FGL__DIM_PARAM0) return fgl__param_rule(c->set, rule);
    return rule > 0 ? (size_t)rule : rule > -FGL_DIM_RULES ? c->dim[-rule] : 0;
}

FGLDEF size_t fgl_server_dim(const fgl_server *s, int rule) {
    if (rule <= FGL__DIM_PARAM0) return fgl__param_rule(s->set, rule);
    return rule > 0 ? (size_t)rule : rule > -FGL_DIM_RULES ? s->dim[-rule] : 0;
}

/* --- src/fed/secagg.h --- */
static int fgl__client_error(fgl_run *run, const fgl_client *c, const char *when);

static void fgl__put_le32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* The message of a client that withheld its upload out of the ring's range
 * (c->msg travels with the upload under a transport; the server counts it). */
#define FGL__SA_RANGE_MSG "secure aggregation: out of the ring's range"

static int fgl__sa_out_of_range(const fgl_client *c) {
    return !c->error && strncmp(c->msg, FGL__SA_RANGE_MSG, sizeof FGL__SA_RANGE_MSG - 1) == 0;
}

static uint32_t fgl__get_le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The key of a run's secrets under cfg->secrets.from_seed: k0 = the
 * secret seed (8 bytes, little-endian), the run seed (8) and "fgl secret
 * seed" (15, then a zero byte); then the run label (cfg->secrets.label, n
 * bytes, at most FGL_SECRETS_LABEL - 1) absorbed by a chain of the KDF,
 * each link keyed by the one before:
 *   k1 = KDF(k0, "LBLN", n, 0),  k(i+2) = KDF(k(i+1), "LBLB", w(2i), w(2i+1))
 * for the label's blocks of 8 bytes i = 0 .. ceil(n / 8) - 1 (the last
 * padded with zeros; w the little-endian 32-bit words). The KDF is a PRF
 * (ChaCha20 keyed by the chain over the nonce), and the inputs are
 * prefix-free (the length comes first, so two labels differ in a link
 * the chain reaches), so the cascade is a PRF of the label keyed by k0
 * (Bellare, Canetti, Krawczyk 1996): distinct labels give unrelated keys,
 * and nothing short of k0 (S and the run seed) gives any. The labels of the
 * links ("LBLN", "LBLB") are none of the purposes above. */
static void fgl__secret_key(const fgl_fed_config *cfg, unsigned char k[32]) {
    const char *label = cfg->secrets.label;
    unsigned char next[32];
    uint32_t n = 0, i;
    int j;
    memset(k, 0, 32);
    for (j = 0; j < 8; j++) { /* the run seed too: runs of several model seeds draw apart */
        k[j] = (unsigned char)(cfg->secrets.seed >> (8 * j));
        k[8 + j] = (unsigned char)(cfg->seed >> (8 * j));
    }
    memcpy(k + 16, "fgl secret seed", 15);
    while (n < FGL_SECRETS_LABEL - 1 && label[n]) n++;
    fgl_kdf(next, k, FGL__SECRET_LABEL_LEN, n, 0);
    memcpy(k, next, 32);
    for (i = 0; i < n; i += 8) {
        unsigned char blk[8];
        uint32_t m = n - i < 8 ? n - i : 8;
        memset(blk, 0, sizeof blk);
        memcpy(blk, label + i, m);
        fgl_kdf(next, k, FGL__SECRET_LABEL_BLOCK, fgl__get_le32(blk), fgl__get_le32(blk + 4));
        memcpy(k, next, 32);
    }
    memset(next, 0, sizeof next);
}

/* 32 secret bytes for (purpose, a, b): from the operating system's entropy
 * (purpose, a and b only label the call), or, with cfg->secrets.from_seed,
 * the KDF of the run's key (fgl__secret_key: the secret seed, the run seed
 * and the run label): reproducible, and as secret as the secret seed. */
FGL__PRIVATE int fgl__secret_bytes(const fgl_fed_config *cfg, unsigned char out[32], uint32_t purpose, uint32_t a,
                                   uint32_t b, fgl_error *err) {
    if (cfg->secrets.from_seed) {
        unsigned char k[32];
        fgl__secret_key(cfg, k);
        fgl_kdf(out, k, purpose, a, b);
        fgl__crypto_wipe(k, sizeof k);
        return FGL_OK;
    }
    return fgl_os_entropy(out, 32, err);
}

static void fgl__nonce(unsigned char nonce[12], uint32_t a, uint32_t b, uint32_t c) {
    int i;
    for (i = 0; i < 4; i++) {
        nonce[i] = (unsigned char)(a >> (8 * i));
        nonce[4 + i] = (unsigned char)(b >> (8 * i));
        nonce[8 + i] = (unsigned char)(c >> (8 * i));
    }
}

/* n standard normal values from the ChaCha20 stream of key under the nonce
 * (label, a, b): Box-Muller on pairs of 53-bit uniforms in (0, 1). */
static void fgl__secret_normals(const unsigned char key[32], uint32_t label, uint32_t a, uint32_t b, double *out,
                                size_t n) {
    uint32_t w[256];
    unsigned char nonce[12];
    uint32_t counter = 0;
    size_t k = 0;
    fgl__nonce(nonce, label, a, b);
    while (k < n) {
        int q;
        fgl_chacha20_words(w, 256, key, nonce, counter);
        counter += 16; /* 256 words: 16 blocks */
        for (q = 0; q < 256 && k < n; q += 4) {
            double u1 = ((double)((((uint64_t)w[q] << 32) | w[q + 1]) >> 11) + 0.5) / 9007199254740992.0,
                   u2 = ((double)((((uint64_t)w[q + 2] << 32) | w[q + 3]) >> 11) + 0.5) / 9007199254740992.0;
            double r = sqrt(-2.0 * log(u1)), th = 6.283185307179586 * u2;
            out[k++] = r * cos(th);
            if (k < n) out[k++] = r * sin(th);
        }
    }    fgl__crypto_wipe(w, sizeof w); /* the noise's words */
}

/* v[k] += sign x the k-th word of the mask stream of key in round r. */
FGL__PRIVATE void fgl__add_stream(uint32_t *v, size_t n, const unsigned char key[32], int round, int sign) {
    uint32_t w[1024];
    unsigned char nonce[12];
    uint32_t counter = 0;
    size_t k = 0;
    fgl__nonce(nonce, FGL__SA_MASK, (uint32_t)round, 0);
    while (k < n) {
        size_t q, m = n - k < 1024 ? n - k : 1024;
        fgl_chacha20_words(w, m, key, nonce, counter);
        counter += 64; /* 1024 words: 64 blocks */
        if (sign > 0)
            for (q = 0; q < m; q++) v[k + q] += w[q];
        else
            for (q = 0; q < m; q++) v[k + q] -= w[q];
        k += m;
    }    fgl__crypto_wipe(w, sizeof w); /* the mask's words */
}

/* A key both ends of a pair derive from their X25519 secret (i < j).
 * FGL_ERR_ARG (out zeroed) when that secret is all zeros: pk is of small
 * order, so the "shared" key would be one anybody knows (RFC 7748, section
 * 6.1); the caller refuses the peer. The test reads every byte. */
FGL__PRIVATE int fgl__pair_key(unsigned char out[32], const unsigned char sk[32], const unsigned char pk[32],
                               uint32_t label, int i, int j) {
    unsigned char shared[32], any = 0;
    int k;
    fgl_x25519(shared, sk, pk);
    for (k = 0; k < 32; k++) any |= shared[k];
    if (!any) {
        fgl__crypto_wipe(out, 32);
        return FGL_ERR_ARG;
    }
    fgl_kdf(out, shared, label, (uint32_t)(i < j ? i : j), (uint32_t)(i < j ? j : i));
    fgl__crypto_wipe(shared, sizeof shared);
    return FGL_OK;
}

static void fgl__sa_client_free(fgl_client *c) {
    struct fgl__sa_client *q = c->sa;
    if (!q) return;
    FGL_FREE(q->ids);
    FGL_FREE(q->pk);
    if (q->enc) fgl__crypto_wipe(q->enc, (size_t)q->n * 32);
    if (q->mask) fgl__crypto_wipe(q->mask, (size_t)q->n * 32);
    FGL_FREE(q->enc);
    FGL_FREE(q->mask);
    FGL_FREE(q->alive);
    fgl__crypto_wipe(q, sizeof *q); /* the round's secrets go (keys, self-mask seed, own shares) */
    FGL_FREE(q);
    c->sa = NULL;
}

static void fgl__sa_free(struct fgl__sa *sa) {
    if (!sa) return;
    FGL_FREE(sa->ids);
    FGL_FREE(sa->pk);
    FGL_FREE(sa->ct);
    FGL_FREE(sa->alive);
    if (sa->rev) fgl__crypto_wipe(sa->rev, (size_t)sa->n * sa->n * FGL__SA_REV); /* revealed shares */
    FGL_FREE(sa->rev);
    FGL_FREE(sa->has_rev);
    FGL_FREE(sa->tag);
    FGL_FREE(sa->sum);
    FGL_FREE(sa->mw);
    FGL_FREE(sa->has_mw);
    FGL_FREE(sa);
}

/* The threshold for a round of n participants: cfg's, or a majority; never
 * n / 2 or below (see fgl__secagg_check), at least 2. A round with fewer
 * than t participants is not unmasked. */
static int fgl__sa_threshold(const fgl_fed_config *cfg, int n) {
    int t = cfg->secagg.threshold > n / 2 ? cfg->secagg.threshold : n / 2 + 1;
    return t < 2 ? 2 : t;
}

/* Secure aggregation's parameters, checked when the run is set up
 * (fgl__defences_check; the algorithm's uploads and the transport are
 * checked there): the fixed point, the simulated dropouts, and the threshold T
 * against the K participants of a round (the clients times frac, as
 * fgl__sample_participants draws them): 0 (a majority of each round) or
 * K/2 < T <= K. Bonawitz et al. (2017) need t > n/2 against a server that
 * lies about who survived: with t <= n/2 it can tell one half of the
 * participants that client i dropped (they reveal shares of its masking
 * key) and the other half that it survived (they reveal shares of its
 * self-mask seed), rebuild both, and read i's upload. */
static int fgl__secagg_check(fgl_run *run) {
    const fgl_fed_config *c = &run->cfg;
    int T = c->secagg.threshold, K = FGL__MAX(1, FGL__MIN((int)(c->frac * run->n_clients + 0.5f), run->n_clients));
    if (c->secagg.frac_bits < 1 || c->secagg.frac_bits > 30 || !(c->secagg.dropout >= 0 && c->secagg.dropout < 1))
        return fgl_error_set(&run->err, FGL_ERR_ARG, "secure aggregation: frac_bits %d (1..30), dropout %g ([0, 1))",
                             c->secagg.frac_bits, (double)c->secagg.dropout);
    if (T != 0 && (T < 2 || T > K))
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "secure aggregation: threshold %d must be 0 (a majority of each round) or in [%d, %d] "
                             "(a round has %d participants: %d clients, frac %g)",
                             T, FGL__MAX(2, K / 2 + 1), K, K, run->n_clients, (double)c->frac);
    if (T != 0 && T <= K / 2)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "secure aggregation: threshold %d is at most half of the %d participants a round (%d "
                             "clients, frac %g): a server that tells half of them a client dropped and the other half "
                             "it survived would rebuild both its masking key and its self-mask seed and read its upload "
                             "(Bonawitz et al. 2017 need t > n/2); use %d to %d, or 0 for a majority",
                             T, K, run->n_clients, (double)c->frac, K / 2 + 1, K);
    return FGL_OK;
}

/* --- the client's steps (where the client lives) --------------------------------- */

/* Step 1: fresh keys for the round among the n participants ids; pk out. */
FGL__PRIVATE int fgl__sa_keys(fgl_run *run, fgl_client *c, int round, int n, const int *ids,
                              unsigned char pk[FGL__SA_PK]) {
    struct fgl__sa_client *q;
    fgl_error e;
    int a, rc;
    fgl__sa_client_free(c);
    q = (struct fgl__sa_client *)fgl__zalloc(sizeof *q);
    if (!q || !(q->ids = (int *)FGL_MALLOC(sizeof(int) * (size_t)n))) {
        FGL_FREE(q);
        return fgl_client_fail(c, FGL_ERR_NOMEM, "secure aggregation: out of memory");
    }
    c->sa = q;
    q->round = round;
    q->n = n;
    q->me = -1;
    for (a = 0; a < n; a++) {
        q->ids[a] = ids[a];
        if (ids[a] == c->id) q->me = a;
    }
    memset(&e, 0, sizeof e);
    if (q->me < 0) return fgl_client_fail(c, FGL_ERR_ARG, "secure aggregation: not among the round's participants");
    if ((rc = fgl__secret_bytes(&run->cfg, q->c_sk, FGL__SECRET_SA_C, (uint32_t)c->id, (uint32_t)round, &e)) ||
        (rc = fgl__secret_bytes(&run->cfg, q->s_sk, FGL__SECRET_SA_S, (uint32_t)c->id, (uint32_t)round, &e)) ||
        (rc = fgl__secret_bytes(&run->cfg, q->self, FGL__SECRET_SA_B, (uint32_t)c->id, (uint32_t)round, &e)))
        return fgl_client_fail(c, rc, "secure aggregation: %s", e.msg);
    fgl_x25519_public(pk, q->c_sk);
    fgl_x25519_public(pk + 32, q->s_sk);
    return FGL_OK;
}

/* Step 2: the participants' public keys in (n x 64), threshold t; out:
 * n sealed pairs of shares (its own slot zero). */
FGL__PRIVATE int fgl__sa_share(fgl_run *run, fgl_client *c, const unsigned char *pks, int t, unsigned char *ct) {
    struct fgl__sa_client *q = c->sa;
    unsigned char coin[32], *sh = NULL, pt[FGL__SA_PT], key[32], nonce[12];
    fgl_error e;
    int a, rc;
    if (!q) return fgl_client_fail(c, FGL_ERR_ARG, "secure aggregation: shares before keys");
    memset(&e, 0, sizeof e);
    q->t = t;
    if (!(q->pk = (unsigned char *)FGL_MALLOC((size_t)q->n * FGL__SA_PK)) ||
        !(q->enc = (unsigned char *)FGL_MALLOC((size_t)q->n * 32)) ||
        !(q->mask = (unsigned char *)fgl__zalloc((size_t)q->n * 32)) ||
        !(sh = (unsigned char *)FGL_MALLOC((size_t)q->n * 2 * FGL_SHARE_BYTES))) {
        FGL_FREE(sh);
        return fgl_client_fail(c, FGL_ERR_NOMEM, "secure aggregation: out of memory");
    }
    memcpy(q->pk, pks, (size_t)q->n * FGL__SA_PK);
    if ((rc = fgl__secret_bytes(&run->cfg, coin, FGL__SECRET_SA_COIN, (uint32_t)c->id, (uint32_t)q->round, &e)) ||
        (rc = fgl_shamir_split(sh, q->s_sk, t, q->n, coin)) ||
        (rc = fgl__secret_bytes(&run->cfg, coin, FGL__SECRET_SA_COIN + 1, (uint32_t)c->id, (uint32_t)q->round, &e)) ||
        (rc = fgl_shamir_split(sh + (size_t)q->n * FGL_SHARE_BYTES, q->self, t, q->n, coin))) {
        fgl__crypto_wipe(coin, sizeof coin);
        fgl__crypto_wipe(sh, (size_t)q->n * 2 * FGL_SHARE_BYTES);
        FGL_FREE(sh);
        return fgl_client_fail(c, rc, "secure aggregation: %s", e.msg[0] ? e.msg : "cannot share the secrets");
    }
    memcpy(q->own, sh + (size_t)q->me * FGL_SHARE_BYTES, FGL_SHARE_BYTES);
    memcpy(q->own + FGL_SHARE_BYTES, sh + (size_t)(q->n + q->me) * FGL_SHARE_BYTES, FGL_SHARE_BYTES);
    for (a = 0; a < q->n; a++) {
        unsigned char *out = ct + (size_t)a * FGL__SA_CT;
        if (a == q->me) {
            memset(out, 0, FGL__SA_CT);
            continue;
        }
        fgl__put_le32(pt, (uint32_t)c->id);
        fgl__put_le32(pt + 4, (uint32_t)q->ids[a]);
        fgl__put_le32(pt + 8, (uint32_t)q->round);
        memcpy(pt + 12, sh + (size_t)a * FGL_SHARE_BYTES, FGL_SHARE_BYTES);
        memcpy(pt + 12 + FGL_SHARE_BYTES, sh + (size_t)(q->n + a) * FGL_SHARE_BYTES, FGL_SHARE_BYTES);
        if (fgl__pair_key(key, q->c_sk, q->pk + (size_t)a * FGL__SA_PK, FGL__SA_ENC, c->id, q->ids[a]) ||
            fgl__pair_key(q->mask + (size_t)a * 32, q->s_sk, q->pk + (size_t)a * FGL__SA_PK + 32, FGL__SA_PAIR, c->id,
                          q->ids[a])) {
            rc = fgl_client_fail(c, FGL_ERR_ARG,
                                 "secure aggregation: client %d's public key is of small order (X25519 with it gives "
                                 "all zeros, a secret anybody knows): refused",
                                 q->ids[a]);
            memset(ct, 0, (size_t)q->n * FGL__SA_CT); /* no share leaves for anyone */
            break;
        }
        memcpy(q->enc + (size_t)a * 32, key, 32);
        fgl__nonce(nonce, FGL__SA_ENC, (uint32_t)q->round, (uint32_t)c->id); /* one per direction */
        fgl_aead_seal(out, out + FGL__SA_PT, pt, FGL__SA_PT, NULL, 0, key, nonce); /* (from, to, round) inside */
    }
    fgl__crypto_wipe(pt, sizeof pt);
    fgl__crypto_wipe(key, sizeof key);
    fgl__crypto_wipe(coin, sizeof coin);
    fgl__crypto_wipe(sh, (size_t)q->n * 2 * FGL_SHARE_BYTES);
    FGL_FREE(sh);
    return rc;
}

/* Step 3 (after the upload hook and the attack and DP transforms): the
 * model and weight parts become (n_i / N) theta_i and n_i / N in the ring,
 * masked. A client without the round's keys, or one of whose values is
 * outside the range that keeps the sum of the round's n participants from
 * wrapping (|x| 2^frac_bits <= floor((2^31 - 1) / n), see the top), withholds
 * its upload (no masked value leaves it unprotected; the second says why in
 * c->msg, and the server counts it). */
static int fgl__secagg_mask(fgl_run *run, fgl_client *c) {
    const fgl_fed_config *cfg = &run->cfg;
    const fgl_algo *a = &run->algo;
    struct fgl__sa_client *q = c->sa;
    int pm = -1, pw = -1, p, b;
    double N = 0, scale = ldexp(1.0, cfg->secagg.frac_bits), wn, lim;
    uint32_t *v;
    float *xm, *xw;
    size_t n, k;
    for (p = 0; p < a->n_up; p++) {
        if (a->up[p].kind == FGL_SEND_MODEL) pm = p;
        if (a->up[p].kind == FGL_SEND_WEIGHT) pw = p;
    }
    if (!q || !q->pk || !q->mask || q->round != run->round || pm < 0 || pw < 0 || !c->up.part[pm] || !c->up.part[pw]) {
        fgl__msg_clear(&c->up);
        return FGL_OK;
    }
    for (b = 0; b < run->n_clients; b++) N += run->n_registered[b];
    n = c->up.len[pm];
    v = (uint32_t *)fgl_scratch(&c->store, sizeof(uint32_t) * (n + 1));
    if (!v) return fgl_client_fail(c, FGL_ERR_NOMEM, "out of memory");
    wn = c->up.part[pw][0] / N;
    lim = floor(2147483647.0 / q->n); /* n words of at most lim in magnitude sum to at most 2^31 - 1 */
    for (k = 0; k <= n; k++) {
        double val = (k < n ? wn * c->up.part[pm][k] : wn) * scale;
        if (!(fabs(val) <= lim)) { /* the sum could wrap (or not finite): withheld, rejected, counted */
            if (k < n)
                snprintf(c->msg, sizeof c->msg,
                         FGL__SA_RANGE_MSG ": model value %lu times n_i/N = %g is %g, beyond the %g each of %d "
                         "participants may add at %d fraction bits without the sum wrapping: upload withheld",
                         (unsigned long)k, wn, wn * c->up.part[pm][k], lim / scale, q->n, cfg->secagg.frac_bits);
            else
                snprintf(c->msg, sizeof c->msg,
                         FGL__SA_RANGE_MSG ": its weight n_i/N = %g (sample count %g of N = %g) is beyond the %g "
                         "each of %d participants may add at %d fraction bits without the sum wrapping: upload withheld",
                         wn, (double)c->up.part[pw][0], N, lim / scale, q->n, cfg->secagg.frac_bits);
            fgl__msg_clear(&c->up);
            return FGL_OK;
        }
        v[k] = (uint32_t)(int32_t)llround(val); /* |llround(val)| <= lim: no overflow */
    }
    fgl__add_stream(v, n + 1, q->self, q->round, 1);
    for (b = 0; b < q->n; b++) /* the pair keys of step 2 (each checked there) */
        if (b != q->me) fgl__add_stream(v, n + 1, q->mask + (size_t)b * 32, q->round, q->ids[b] > c->id ? 1 : -1);
    if (!(xm = fgl__msg_write(&c->up, pm)) || !(xw = fgl__msg_write(&c->up, pw)))
        return fgl_client_fail(c, FGL_ERR_NOMEM, "out of memory");
    memcpy(xm, v, sizeof(uint32_t) * n); /* ring values carried as 4 bytes each */
    memcpy(xw, v + n, sizeof(uint32_t));
    return FGL_OK;
}

/* The survivors list as a tag's associated data: the participants' ids
 * (4 bytes each) and their alive flags (1 byte each), in order. */
static unsigned char *fgl__sa_list_bytes(const struct fgl__sa_client *q, const unsigned char *alive, size_t *len) {
    unsigned char *b = (unsigned char *)FGL_MALLOC((size_t)q->n * 5);
    int a;
    if (!b) return NULL;
    for (a = 0; a < q->n; a++) {
        fgl__put_le32(b + 4 * (size_t)a, (uint32_t)q->ids[a]);
        b[4 * (size_t)q->n + a] = alive[a] != 0;
    }
    *len = (size_t)q->n * 5;
    return b;
}

/* Step 4, the consistency check: the survivors list alive (n flags) as this
 * client received it, vouched for to each surviving peer k: the tag of
 * ChaCha20-Poly1305 over nothing with the list as associated data, under
 * their pair's share key and the nonce (label, round, its id), out in
 * tags[k] (n x TAG; zero for itself and the others). A client that is not
 * a survivor, or holds no keys of the round, vouches for nothing
 * (FGL_ERR_EMPTY). */
FGL__PRIVATE int fgl__sa_confirm(fgl_client *c, const unsigned char *alive, unsigned char *tags) {
    struct fgl__sa_client *q = c->sa;
    unsigned char nonce[12], none[1] = {0};
    unsigned char *list;
    size_t len = 0;
    int k;
    memset(tags, 0, (size_t)(q ? q->n : 0) * FGL__SA_TAG);
    if (!q || !q->enc || q->me < 0 || !alive[q->me]) return FGL_ERR_EMPTY;
    if (!(list = fgl__sa_list_bytes(q, alive, &len)))
        return fgl_client_fail(c, FGL_ERR_NOMEM, "secure aggregation: out of memory");
    fgl__nonce(nonce, FGL__SA_CONFIRM, (uint32_t)q->round, (uint32_t)c->id);
    for (k = 0; k < q->n; k++)
        if (k != q->me && alive[k])
            fgl_aead_seal(none, tags + (size_t)k * FGL__SA_TAG, none, 0, list, len, q->enc + (size_t)k * 32, nonce);
    FGL_FREE(list);
    return FGL_OK;
}

/* How many survivors vouch for the list alive as this client received it:
 * itself, and each surviving peer k whose tag for it (tags, n x TAG: from
 * each participant to this one) checks under their pair's key; -1 out of
 * memory. */
static int fgl__sa_vouched(const fgl_client *c, const unsigned char *alive, const unsigned char *tags) {
    const struct fgl__sa_client *q = c->sa;
    unsigned char nonce[12], none[1] = {0};
    unsigned char *list;
    size_t len = 0;
    int k, n_ok = 1;
    if (!(list = fgl__sa_list_bytes(q, alive, &len))) return -1;
    for (k = 0; k < q->n; k++) {
        if (k == q->me || !alive[k]) continue;
        fgl__nonce(nonce, FGL__SA_CONFIRM, (uint32_t)q->round, (uint32_t)q->ids[k]);
        n_ok += fgl_aead_open(none, none, 0, tags + (size_t)k * FGL__SA_TAG, list, len, q->enc + (size_t)k * 32,
                              nonce) == 0;
    }
    FGL_FREE(list);
    return n_ok;
}

/* Step 4: alive (n flags), the n tags of the consistency check addressed to
 * it (from each participant) and the n sealed shares addressed to it (its
 * own slot ignored) in; out: n revealed shares, of b for a survivor, of s_sk
 * for the others. Reveals nothing (FGL_ERR_EMPTY) with fewer than t
 * survivors, or if it is not one, and nothing if fewer than t survivors
 * (itself included) vouch for the list it received (c->msg says so: the
 * server told the survivors different lists). The round's secrets are gone
 * after, but for the pairwise mask keys and the survivors, kept for step 5. */
FGL__PRIVATE int fgl__sa_reveal(fgl_client *c, const unsigned char *alive, const unsigned char *tags,
                                const unsigned char *ct, unsigned char *rev) {
    struct fgl__sa_client *q = c->sa;
    unsigned char pt[FGL__SA_PT], key[32], nonce[12];
    int a, m = 0, rc = FGL_OK, vouched;
    if (!q || !q->pk || !q->enc) return FGL_ERR_EMPTY;
    for (a = 0; a < q->n; a++) m += alive[a] != 0;
    if (m < q->t || !alive[q->me]) {
        fgl__sa_client_free(c);
        return FGL_ERR_EMPTY;
    }
    if ((vouched = fgl__sa_vouched(c, alive, tags)) < q->t) {
        if (vouched < 0) rc = fgl_client_fail(c, FGL_ERR_NOMEM, "secure aggregation: out of memory");
        else
            snprintf(c->msg, sizeof c->msg, "secure aggregation, round %d: %d of the %d survivors named vouch for "
                     "the survivors list this client received, below the threshold %d: the server told them "
                     "different lists; nothing revealed", q->round + 1, vouched, m, q->t);
        fgl__sa_client_free(c);
        return rc ? rc : FGL_ERR_EMPTY;
    }
    for (a = 0; a < q->n && !rc; a++) {
        unsigned char *out = rev + (size_t)a * FGL__SA_REV;
        if (a == q->me) {
            memcpy(out, q->own + FGL_SHARE_BYTES, FGL_SHARE_BYTES); /* its own b: it survived */
            continue;
        }
        memcpy(key, q->enc + (size_t)a * 32, 32);
        fgl__nonce(nonce, FGL__SA_ENC, (uint32_t)q->round, (uint32_t)q->ids[a]);
        if (fgl_aead_open(pt, ct + (size_t)a * FGL__SA_CT, FGL__SA_PT, ct + (size_t)a * FGL__SA_CT + FGL__SA_PT, NULL,
                          0, key, nonce) != 0 ||
            fgl__get_le32(pt) != (uint32_t)q->ids[a] || fgl__get_le32(pt + 4) != (uint32_t)c->id ||
            fgl__get_le32(pt + 8) != (uint32_t)q->round)
            rc = fgl_client_fail(c, FGL_ERR_FORMAT, "secure aggregation: the share from client %d does not open",
                                 q->ids[a]);
        else
            memcpy(out, pt + 12 + (alive[a] ? FGL_SHARE_BYTES : 0), FGL_SHARE_BYTES);
    }
    fgl__crypto_wipe(pt, sizeof pt);
    fgl__crypto_wipe(key, sizeof key);
    if (rc || !(q->alive = (unsigned char *)FGL_MALLOC((size_t)q->n))) {
        fgl__sa_client_free(c);
        return rc ? rc : fgl_client_fail(c, FGL_ERR_NOMEM, "secure aggregation: out of memory");
    }
    memcpy(q->alive, alive, (size_t)q->n);
    fgl__crypto_wipe(q->c_sk, sizeof q->c_sk); /* all but the mask keys go now */
    fgl__crypto_wipe(q->s_sk, sizeof q->s_sk);
    fgl__crypto_wipe(q->self, sizeof q->self);
    fgl__crypto_wipe(q->own, sizeof q->own);
    fgl__crypto_wipe(q->enc, (size_t)q->n * 32);
    FGL_FREE(q->enc);
    q->enc = NULL;
    return FGL_OK;
}

/* v[k] += sign x the k-th 64-bit word of key's metrics stream in round r. */
static void fgl__add_stream64(uint64_t *v, size_t n, const unsigned char key[32], int round, int sign) {
    uint32_t w[2 * FGL__SA_NM];
    unsigned char nonce[12];
    size_t k;
    fgl__nonce(nonce, FGL__SA_METRIC, (uint32_t)round, 0);
    FGL_ASSERT(n <= FGL__SA_NM);
    fgl_chacha20_words(w, 2 * n, key, nonce, 0);
    for (k = 0; k < n; k++) {
        uint64_t x = ((uint64_t)w[2 * k] << 32) | w[2 * k + 1];
        v[k] = sign > 0 ? v[k] + x : v[k] - x;
    }
    fgl__crypto_wipe(w, sizeof w);
}

/* Step 5, a survivor's side: its round's numbers as (value x weight,
 * weight) pairs: the training loss, then (evaluated rounds) validation and
 * test accuracy (a link task: AUC, weighted by the split's positive pairs,
 * as in the plain means; else weight 1, and a client without a test set
 * weighs 0 in the test's), the link task's Hits@K (its weights are the
 * accuracy's), then validation and test macro-F1 and AUC (weight 1 where
 * defined). A number that is not finite or whose term could wrap the sum
 * of the round's n survivors (|x| 2^24 > 2^62 / n) weighs 0. The words are
 * masked by the pair streams of the surviving peers; the mask keys are then
 * wiped (c->sa goes). FGL_ERR_EMPTY: it holds no mask keys of this round
 * (not a survivor, or the round was not unmasked); FGL_ERR_ARG: its
 * evaluation failed (c->msg says why). */
FGL__PRIVATE int fgl__sa_metrics_mask(fgl_client *c, int round, int evaluated, uint64_t out[FGL__SA_NM]) {
    struct fgl__sa_client *q = c->sa;
    double x[FGL__SA_NM / 2], w[FGL__SA_NM / 2], lim;
    int k, b, link = c->task == FGL_TASK_LINK;
    if (!q || !q->alive || !q->mask || q->round != round || q->me < 0) {
        fgl__sa_client_free(c);
        return FGL_ERR_EMPTY;
    }
    for (k = 0; k < FGL__SA_NM / 2; k++) x[k] = w[k] = 0;
    x[0] = c->train_loss;
    w[0] = 1;
    if (evaluated) {
        if (c->val_acc < 0 || c->test_acc < 0) {
            fgl__sa_client_free(c);
            snprintf(c->msg, sizeof c->msg, "evaluation failed: %.200s", c->tape.msg);
            return FGL_ERR_ARG;
        }
        x[1] = c->val_acc;
        x[2] = c->test_acc;
        w[1] = link ? (c->n_val > 0 ? c->n_val : 0) : 1;
        w[2] = link ? (c->n_test > 0 ? c->n_test : 0) : c->n_test > 0;
        x[3] = link ? c->val_hits : 0;
        x[4] = link ? c->test_hits : 0;
        w[3] = link ? w[1] : 0;
        w[4] = link ? w[2] : 0;
        x[5] = c->val_f1;
        x[6] = c->n_test > 0 ? c->test_f1 : NAN;
        x[7] = c->val_auc;
        x[8] = c->n_test > 0 ? c->test_auc : NAN;
        w[5] = w[6] = w[7] = w[8] = 1;
    }
    for (b = 0, lim = 0; b < q->n; b++) lim += q->alive[b] != 0;
    lim = ldexp(1.0, 62 - FGL__SA_METRIC_BITS) / (lim > 0 ? lim : 1);
    for (k = 0; k < FGL__SA_NM / 2; k++) {
        double v = x[k] * w[k];
        if (!(fabs(v) <= lim && fabs(w[k]) <= lim)) v = w[k] = 0; /* NaN (none), or too large to sum */
        out[2 * k] = (uint64_t)(int64_t)llround(ldexp(v, FGL__SA_METRIC_BITS));
        out[2 * k + 1] = (uint64_t)(int64_t)llround(ldexp(w[k], FGL__SA_METRIC_BITS));
    }
    for (b = 0; b < q->n; b++)
        if (b != q->me && q->alive[b])
            fgl__add_stream64(out, FGL__SA_NM, q->mask + (size_t)b * 32, q->round, q->ids[b] > c->id ? 1 : -1);
    fgl__sa_client_free(c);
    return FGL_OK;
}

/* --- the server's side ------------------------------------------------------------ */

/* Bytes of the protocol, counted where they travel. */
static void fgl__sa_bytes(fgl_run *run, fgl_round_stats *st, int client, size_t up, size_t down) {
    size_t k = (size_t)run->round * run->n_clients + client;
    run->client_up[k] += up;
    run->client_down[k] += down;
    st->bytes_up += up;
    st->bytes_down += down;
    run->bytes_down += down;
}

static int fgl__sa_transport(fgl_run *run, int step); /* (run.h: the transport's step, if any) */

/* Steps 1 and 2, before the round's training: keys out and back, shares
 * out; sa->ready when every participant took part in both. */
static int fgl__secagg_setup(fgl_run *run, fgl_round_stats *st) {
    struct fgl__sa *sa;
    int n = run->n_part, a, q, rc;
    fgl__sa_free(run->sa);
    run->sa = sa = (struct fgl__sa *)fgl__zalloc(sizeof *sa);
    if (!sa) return fgl_error_set(&run->err, FGL_ERR_NOMEM, "secure aggregation: out of memory");
    sa->round = run->round;
    sa->n = n;
    sa->t = fgl__sa_threshold(&run->cfg, n);
    for (q = 0; q < n; q++) fgl__sa_client_free(&run->clients[run->part[q]]);
    if (n < sa->t) return FGL_OK; /* too few to reach the threshold: not unmasked, nothing sent */
    sa->ids = (int *)FGL_MALLOC(sizeof(int) * (size_t)n);
    sa->pk = (unsigned char *)fgl__zalloc((size_t)n * FGL__SA_PK);
    sa->ct = (unsigned char *)fgl__zalloc((size_t)n * n * FGL__SA_CT);
    sa->alive = (unsigned char *)fgl__zalloc((size_t)n);
    sa->rev = (unsigned char *)fgl__zalloc((size_t)n * n * FGL__SA_REV);
    sa->has_rev = (unsigned char *)fgl__zalloc((size_t)n);
    if (!sa->ids || !sa->pk || !sa->ct || !sa->alive || !sa->rev || !sa->has_rev)
        return fgl_error_set(&run->err, FGL_ERR_NOMEM, "secure aggregation: out of memory");
    memcpy(sa->ids, run->part, sizeof(int) * (size_t)n);
    sa->ready = 1;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(FGL__NTHREADS_FOR(run, n))
#endif
    for (a = 0; a < n; a++) {
        fgl_client *c = &run->clients[sa->ids[a]];
        if (c->local) fgl__sa_keys(run, c, run->round, n, sa->ids, sa->pk + (size_t)a * FGL__SA_PK);
    }
    if ((rc = fgl__sa_transport(run, 1))) return rc;
    for (a = 0; a < n; a++) {
        fgl_client *c = &run->clients[sa->ids[a]];
        if (c->error) return fgl__client_error(run, c, "secure aggregation keys");
        sa->ready &= !run->lost[c->id];
        fgl__sa_bytes(run, st, c->id, FGL__SA_PK, (size_t)n * FGL__SA_PK);
    }
    if (!sa->ready) return FGL_OK; /* a host lost before its keys went round: the round is not unmasked */
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(FGL__NTHREADS_FOR(run, n))
#endif
    for (a = 0; a < n; a++) {
        fgl_client *c = &run->clients[sa->ids[a]];
        if (c->local) fgl__sa_share(run, c, sa->pk, sa->t, sa->ct + (size_t)a * n * FGL__SA_CT);
    }
    if ((rc = fgl__sa_transport(run, 2))) return rc;
    for (a = 0; a < n; a++) {
        fgl_client *c = &run->clients[sa->ids[a]];
        if (c->error) return fgl__client_error(run, c, "secure aggregation shares");
        sa->ready &= !run->lost[c->id];
        fgl__sa_bytes(run, st, c->id, (size_t)(n - 1) * FGL__SA_CT, 0);
    }
    return FGL_OK;
}

/* Rebuild a secret from the first t of the survivors' shares about b. */
static int fgl__sa_combine(const struct fgl__sa *sa, int b, unsigned char secret[32]) {
    unsigned char sh[64 * FGL_SHARE_BYTES], *buf = sh;
    uint32_t xs_small[64], *xs = xs_small;
    int a, k = 0, rc;
    if (sa->t > 64) {
        buf = (unsigned char *)FGL_MALLOC((size_t)sa->t * FGL_SHARE_BYTES);
        xs = (uint32_t *)FGL_MALLOC(sizeof(uint32_t) * (size_t)sa->t);
        if (!buf || !xs) {
            FGL_FREE(buf != sh ? buf : NULL);
            FGL_FREE(xs != xs_small ? xs : NULL);
            return FGL_ERR_NOMEM;
        }
    }
    for (a = 0; a < sa->n && k < sa->t; a++)
        if (sa->has_rev[a]) {
            memcpy(buf + (size_t)k * FGL_SHARE_BYTES, sa->rev + ((size_t)a * sa->n + b) * FGL__SA_REV, FGL_SHARE_BYTES);
            xs[k++] = (uint32_t)(a + 1);
        }
    rc = k < sa->t ? FGL_ERR_EMPTY : fgl_shamir_combine(secret, buf, xs, sa->t);
    fgl__crypto_wipe(buf, (size_t)sa->t * FGL_SHARE_BYTES);
    if (buf != sh) FGL_FREE(buf);
    if (xs != xs_small) FGL_FREE(xs);
    return rc;
}

/* Step 4 and the unmasking, once the round's uploads are checked: the
 * survivors are the accepted uploads; s->secagg_sum is the sum, or NULL
 * when the round cannot be unmasked (st->n_unmasked_fail counts it). */
static int fgl__secagg_unmask(fgl_run *run, fgl_round_stats *st) {
    struct fgl__sa *sa = run->sa;
    const fgl_algo *al = &run->algo;
    int a, b, n, m = 0, pm = -1, pw = -1, p, rc;
    size_t len = 0, k;
    run->server.secagg_sum = NULL;
    run->server.secagg_len = 0;
    if (!sa || !sa->ready) {
        st->secagg_failed = 1;
        return FGL_OK;
    }
    n = sa->n;
    for (p = 0; p < al->n_up; p++) {
        if (al->up[p].kind == FGL_SEND_MODEL) pm = p;
        if (al->up[p].kind == FGL_SEND_WEIGHT) pw = p;
    }
    for (a = 0; a < n; a++) {
        int id = sa->ids[a];
        sa->alive[a] = run->accepted[id];
        m += sa->alive[a];
        if (sa->alive[a]) len = run->clients[id].up.len[pm];
    }
    if (m < sa->t) { /* below the threshold: the survivors reveal nothing */
        for (a = 0; a < n; a++) {
            if (sa->alive[a]) /* the survivors list and the sealed shares to it, down, as in a round above it */
                fgl__sa_bytes(run, st, sa->ids[a], 0, (size_t)n + (size_t)(n - 1) * FGL__SA_CT);
            fgl__sa_client_free(&run->clients[sa->ids[a]]);
        }
        st->secagg_failed = 1;
        return FGL_OK;
    }
    /* the consistency check: each survivor's tags of the list it received, one per surviving peer */
    if (!sa->tag && !(sa->tag = (unsigned char *)FGL_MALLOC((size_t)n * n * FGL__SA_TAG)))
        return fgl_error_set(&run->err, FGL_ERR_NOMEM, "secure aggregation: out of memory");
    memset(sa->tag, 0, (size_t)n * n * FGL__SA_TAG);
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(FGL__NTHREADS_FOR(run, n))
#endif
    for (a = 0; a < n; a++) {
        fgl_client *c = &run->clients[sa->ids[a]];
        if (c->local && sa->alive[a]) fgl__sa_confirm(c, sa->alive, sa->tag + (size_t)a * n * FGL__SA_TAG);
    }
    if ((rc = fgl__sa_transport(run, 4))) return rc;
    for (a = 0; a < n; a++) { /* list down; tags up; then the tags and sealed shares to each survivor down */
        if (!sa->alive[a]) continue;
        if (run->clients[sa->ids[a]].error)
            return fgl__client_error(run, &run->clients[sa->ids[a]], "secure aggregation consistency check");
        fgl__sa_bytes(run, st, sa->ids[a], (size_t)(m - 1) * FGL__SA_TAG,
                      (size_t)n + (size_t)(m - 1) * FGL__SA_TAG + (size_t)(n - 1) * FGL__SA_CT);
    }
    {   /* the tags to each survivor, [b n + a]: from a to b */
        unsigned char *col = (unsigned char *)FGL_MALLOC((size_t)n * n * FGL__SA_TAG);
        if (!col) return fgl_error_set(&run->err, FGL_ERR_NOMEM, "secure aggregation: out of memory");
        for (b = 0; b < n; b++)
            for (a = 0; a < n; a++)
                memcpy(col + ((size_t)b * n + a) * FGL__SA_TAG, sa->tag + ((size_t)a * n + b) * FGL__SA_TAG,
                       FGL__SA_TAG);
        memcpy(sa->tag, col, (size_t)n * n * FGL__SA_TAG);
        FGL_FREE(col);
    }
    {   /* the survivors' reveals (each reads the column of sealed shares addressed to it) */
        unsigned char *col = (unsigned char *)FGL_MALLOC((size_t)n * n * FGL__SA_CT);
        if (!col) return fgl_error_set(&run->err, FGL_ERR_NOMEM, "secure aggregation: out of memory");
        for (b = 0; b < n; b++)
            for (a = 0; a < n; a++)
                memcpy(col + ((size_t)b * n + a) * FGL__SA_CT, sa->ct + ((size_t)a * n + b) * FGL__SA_CT, FGL__SA_CT);
        memcpy(sa->ct, col, (size_t)n * n * FGL__SA_CT); /* now [b n + a]: from a to b */
        FGL_FREE(col);
    }
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(FGL__NTHREADS_FOR(run, n))
#endif
    for (a = 0; a < n; a++) {
        fgl_client *c = &run->clients[sa->ids[a]];
        if (c->local && sa->alive[a])
            sa->has_rev[a] = fgl__sa_reveal(c, sa->alive, sa->tag + (size_t)a * n * FGL__SA_TAG,
                                            sa->ct + (size_t)a * n * FGL__SA_CT,
                                            sa->rev + (size_t)a * n * FGL__SA_REV) == FGL_OK;
        else if (c->local)
            fgl__sa_client_free(c);
    }
    if ((rc = fgl__sa_transport(run, 3))) return rc;
    for (a = 0; a < n; a++) {
        if (!sa->alive[a]) continue;
        if (run->clients[sa->ids[a]].error)
            return fgl__client_error(run, &run->clients[sa->ids[a]], "secure aggregation reveal");
        if (sa->has_rev[a]) fgl__sa_bytes(run, st, sa->ids[a], (size_t)n * FGL__SA_REV, 0);
    }
    FGL_FREE(sa->sum);
    if (!(sa->sum = (uint32_t *)fgl__zalloc(sizeof(uint32_t) * (len + 1))))
        return fgl_error_set(&run->err, FGL_ERR_NOMEM, "secure aggregation: out of memory");
    sa->len = len;
    for (a = 0; a < n; a++) { /* the masked uploads, added in the ring */
        const fgl_msg *u = &run->clients[sa->ids[a]].up;
        if (!sa->alive[a]) continue;
        for (k = 0; k < len; k++) {
            uint32_t v;
            memcpy(&v, u->part[pm] + k, 4);
            sa->sum[k] += v;
        }
        {
            uint32_t v;
            memcpy(&v, u->part[pw], 4);
            sa->sum[len] += v;
        }
    }
    for (b = 0; b < n; b++) { /* the survivors' self-masks; the dropped ones' masks with the survivors */
        unsigned char secret[32];
        if (fgl__sa_combine(sa, b, secret)) { /* too few reveals arrived (a host lost while revealing) */
            fgl__crypto_wipe(secret, sizeof secret);
            st->secagg_failed = 1;
            return FGL_OK;
        }
        if (sa->alive[b]) {
            fgl__add_stream(sa->sum, len + 1, secret, sa->round, -1);
        } else {
            for (a = 0; a < n; a++) {
                unsigned char key[32];
                if (!sa->alive[a]) continue;
                if (fgl__pair_key(key, secret, sa->pk + (size_t)a * FGL__SA_PK + 32, FGL__SA_PAIR, sa->ids[a],
                                  sa->ids[b])) { /* its peers refused it in step 2: cannot happen in a round that got here */
                    fgl__crypto_wipe(secret, sizeof secret);
                    return fgl_error_set(&run->err, FGL_ERR_FORMAT, "secure aggregation: client %d's public key is "
                                         "of small order", sa->ids[a]);
                }
                /* survivor a added + the pair's stream if its id is the lower */
                fgl__add_stream(sa->sum, len + 1, key, sa->round, sa->ids[a] < sa->ids[b] ? -1 : 1);
                fgl__crypto_wipe(key, sizeof key);
            }
        }
        fgl__crypto_wipe(secret, sizeof secret);
    }
    run->server.secagg_sum = sa->sum;
    run->server.secagg_len = len;
    return FGL_OK;
}

/* Step 5's slots on the server: one row of masked words per participant. */
static int fgl__sa_metric_slots(struct fgl__sa *sa) {
    if (!sa->mw) sa->mw = (uint64_t *)fgl__zalloc(sizeof(uint64_t) * FGL__SA_NM * (size_t)FGL__MAX(sa->n, 1));
    if (!sa->has_mw) sa->has_mw = (unsigned char *)fgl__zalloc((size_t)FGL__MAX(sa->n, 1));
    return sa->mw && sa->has_mw ? FGL_OK : FGL_ERR_NOMEM;
}

/* Step 5 and the round's numbers under secure aggregation (fgl__phase_record
 * hands over to it): the local survivors mask their numbers (a transport
 * brought the others' in run->sa->mw); the server sums the rows, and the
 * round's means are ratios of the sums. Every client's own entry in the
 * history is NaN: the server never had it. A round that was not unmasked,
 * or one of whose survivors' rows did not arrive, has no numbers (NaN). */
static int fgl__secagg_record(fgl_run *run, fgl_round_stats *st, int evaluated) {
    struct fgl__sa *sa = run->sa;
    uint64_t sum[FGL__SA_NM];
    double mean[FGL__SA_NM / 2];
    int a, i, k, q, ok, link = run->clients[0].task == FGL_TASK_LINK;
    double *hist[7];
    hist[0] = run->client_val;
    hist[1] = run->client_test;
    hist[2] = run->client_val_f1;
    hist[3] = run->client_test_f1;
    hist[4] = run->client_val_auc;
    hist[5] = run->client_test_auc;
    hist[6] = run->client_loss;
    for (i = 0; i < run->n_clients; i++)
        for (q = 0; q < 7; q++) hist[q][(size_t)run->round * run->n_clients + i] = NAN;
    ok = sa && sa->ready && sa->sum && !st->secagg_failed && fgl__sa_metric_slots(sa) == FGL_OK;
    for (a = 0; ok && a < sa->n; a++) {
        fgl_client *c = &run->clients[sa->ids[a]];
        int rc;
        if (!sa->alive[a] || !c->local) continue;
        rc = fgl__sa_metrics_mask(c, run->round, evaluated, sa->mw + (size_t)a * FGL__SA_NM);
        if (rc == FGL_ERR_ARG)
            return fgl_error_set(&run->err, c->tape.err ? c->tape.err : FGL_ERR_ARG, "%s, round %d, client %d: %s",
                                 run->algo.name, run->round + 1, c->id, c->msg);
        sa->has_mw[a] = rc == FGL_OK;
    }
    for (i = 0; i < run->n_clients; i++) /* the others' mask keys go too */
        if (run->clients[i].local) fgl__sa_client_free(&run->clients[i]);
    for (k = 0; k < FGL__SA_NM; k++) sum[k] = 0;
    for (a = 0; ok && a < sa->n; a++) {
        if (!sa->alive[a]) continue;
        if (!sa->has_mw[a]) ok = 0; /* its masks stay in the sum */
        else {
            fgl__sa_bytes(run, st, sa->ids[a], 8 * FGL__SA_NM, 0); /* its step 5 upload */
            run->bytes_up += 8 * FGL__SA_NM;
        }
        for (k = 0; k < FGL__SA_NM; k++) sum[k] += sa->mw[(size_t)a * FGL__SA_NM + k];
    }
    for (k = 0; k < FGL__SA_NM / 2; k++) {
        int64_t num = (int64_t)sum[2 * k], den = (int64_t)sum[2 * k + 1];
        mean[k] = ok && den > 0 ? (double)num / (double)den : NAN;
    }
    if (sa && sa->mw) memset(sa->mw, 0, sizeof(uint64_t) * FGL__SA_NM * (size_t)sa->n);
    if (sa && sa->has_mw) memset(sa->has_mw, 0, (size_t)sa->n);
    st->train_loss = mean[0];
    st->val_acc = evaluated ? mean[1] : NAN;
    st->test_acc = evaluated ? mean[2] : NAN;
    st->val_hits = evaluated && link ? mean[3] : NAN;
    st->test_hits = evaluated && link ? mean[4] : NAN;
    st->val_f1 = evaluated ? mean[5] : NAN;
    st->test_f1 = evaluated ? mean[6] : NAN;
    st->val_auc = evaluated ? mean[7] : NAN;
    st->test_auc = evaluated ? mean[8] : NAN;
    return FGL_OK;
}

/* The server's DP key, from the run's secrets (kept in the run, never in
 * a checkpoint: a resumed run draws a new one unless the secrets come from
 * a seed). */
static int fgl__secrets_start(fgl_run *run) {
    if (!(run->cfg.dp.clip > 0)) return FGL_OK;
    return fgl__secret_bytes(&run->cfg, run->dp_key, FGL__SECRET_DP_KEY, 0, 0, &run->err);
}

/* DP-FedAvg's participants of round r: each client independently with
 * probability q = cfg.frac, from the DP key's stream (the server's secret,
 * so the public seed does not tell who took part). */
static int fgl__poisson_participants(fgl_run *run, int round) {
    uint32_t w[1024];
    unsigned char nonce[12];
    double thresh = (double)run->cfg.frac * 4294967296.0;
    int i, n = 0;
    fgl__nonce(nonce, FGL__SECRET_DP_PART, (uint32_t)round, 0);
    for (i = 0; i < run->n_clients; i++) {
        if (i % 1024 == 0)
            fgl_chacha20_words(w, 1024, run->dp_key, nonce, (uint32_t)(i / 1024) * 64u);
        if ((double)w[i % 1024] < thresh) run->part[n++] = i;
    }
    return n;
}

/* Simulated dropouts (cfg.secagg.dropout): participants whose masked
 * upload never arrives (drawn from the run seed: a simulation's choice, not
 * a secret). A lost client is a dropout to its peers. */
static void fgl__secagg_dropouts(fgl_run *run, fgl_round_stats *st) {
    fgl_rng r;
    int q;
    memset(run->dropped, 0, (size_t)run->n_clients);
    fgl_rng_init(&r, run->cfg.seed, 0x44524f50ull + (uint64_t)run->round); /* "DROP" + round */
    for (q = 0; q < run->n_part; q++) {
        fgl_client *c = &run->clients[run->part[q]];
        if ((run->cfg.secagg.dropout > 0 && fgl_rng_uniform(&r) < run->cfg.secagg.dropout) || run->lost[c->id]) {
            run->dropped[c->id] = 1;
            fgl__msg_clear(&c->up);
            st->n_dropped += !run->lost[c->id]; /* lost ones are counted as lost */
        }
    }
}
/* --- src/fed/sides.h --- */
/* --- the client side ---------------------------------------------------------------- */

FGLDEF int fgl_client_fail(fgl_client *c, int code, const char *fmt, ...) {
    if (!c->error) {
        va_list ap;
        c->error = code;
        va_start(ap, fmt);
        vsnprintf(c->msg, sizeof c->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

FGLDEF float *fgl_up(fgl_client *c, const char *name) {
    int p = fgl_msg_find(&c->up, name);
    FGL_ASSERT(p >= 0); /* a declared part */
    if (p < 0) return NULL;
    if (c->up.part[p] ? !fgl__msg_write(&c->up, p)
                      : !fgl__msg_own(&c->up, p, c->up_len[p])) { /* an optional part: allocated when written */
        fgl_client_fail(c, FGL_ERR_NOMEM, "upload part '%s': out of memory for %zu floats", name, c->up_len[p]);
        return NULL;
    }
    return c->up.own[p]; /* the part is its own storage now */
}

FGLDEF void fgl_up_drop(fgl_client *c, const char *name) {
    int p = fgl_msg_find(&c->up, name);
    FGL_ASSERT(p >= 0 && (c->up.decl[p].flags & FGL_PART_OPTIONAL));
    if (p < 0) return;
    FGL_FREE(c->up.own[p]); /* a large one-off part does not stay allocated */
    c->up.own[p] = NULL;
    c->up.cap[p] = 0;
    c->up.part[p] = NULL;
    c->up.len[p] = 0;
}

FGLDEF size_t fgl_up_size(fgl_client *c, const char *name) {
    int q;
    for (q = 0; name && q < c->algo->n_up; q++)
        if (strcmp(c->algo->up[q].name, name) == 0) return c->up_len[q];
    fgl_client_fail(c, FGL_ERR_ARG, "%s uploads no part '%s'", c->algo->name, name ? name : "(null)");
    return 0;
}

FGLDEF const float *fgl_down(const fgl_client *c, const char *name) {
    int p = fgl_msg_find(&c->down, name);
    FGL_ASSERT(p >= 0 || c->down.n_parts == 0);
    return p >= 0 ? c->down.part[p] : NULL;
}

FGLDEF float *fgl_down_copy(fgl_client *c, const char *name) {
    const float *x = fgl_down(c, name);
    int p = fgl_msg_find(&c->down, name);
    float *copy;
    if (!x || p < 0) return NULL;
    if (!(copy = (float *)fgl_scratch(&c->store, sizeof(float) * FGL__MAX(c->down.len[p], 1)))) {
        fgl_client_fail(c, FGL_ERR_NOMEM, "download part '%s': out of memory for a copy of %zu floats", name,
                        c->down.len[p]);
        return NULL;
    }
    memcpy(copy, x, sizeof(float) * c->down.len[p]);
    return copy;
}

FGLDEF const float *fgl_received(const fgl_client *c) {
    int p;
    for (p = 0; p < c->down.n_parts; p++)
        if (c->down.decl[p].kind == FGL_SEND_MODEL) return c->down.part[p];
    return NULL;
}

FGLDEF const float *fgl_received_at(const fgl_client *c, size_t offset) {
    const float *r = fgl_received(c);
    int k;
    for (k = 0; r && k < c->n_span; k++)
        if (offset >= c->span[k].offset && offset < c->span[k].offset + c->span[k].len)
            return r + c->span[k].packed + (offset - c->span[k].offset);
    return NULL;
}

FGLDEF void fgl_client_pack(const fgl_client *c, const fgl_params *ps, float *out) {
    int k;
    for (k = 0; k < c->n_span; k++)
        memcpy(out + c->span[k].packed, ps->data + c->span[k].offset, sizeof(float) * c->span[k].len);
}

FGLDEF void fgl_client_unpack(const fgl_client *c, fgl_params *ps, const float *in) {
    int k;
    for (k = 0; k < c->n_span; k++)
        memcpy(ps->data + c->span[k].offset, in + c->span[k].packed, sizeof(float) * c->span[k].len);
}

FGLDEF void fgl_server_pack(const fgl_server *s, const fgl_params *ps, float *out) {
    fgl_params_pack_except(ps, s->share, s->keep, out);
}

FGLDEF void fgl_client_prox_grad(const fgl_client *c, fgl_params *ps, float mu) {
    const float *w0 = fgl_received(c);
    size_t j;
    int k;
    if (!w0 || mu == 0) return;
    for (k = 0; k < c->n_span; k++) {
        const fgl_span *sp = &c->span[k];
        float *g = ps->grad + sp->offset;
        const float *w = ps->data + sp->offset, *r = w0 + sp->packed;
        if (!sp->trainable) continue;
        for (j = 0; j < sp->len; j++) g[j] += mu * (w[j] - r[j]);
    }
}

/* The shared floats of a model as spans: runs of contiguous memory split
 * where trainability changes. */
static int fgl__client_spans(fgl_client *c) {
    const fgl_params *ps = &c->model.params;
    size_t packed = 0, trained = 0;
    int i, n = 0;
    FGL_FREE(c->span);
    c->span = (fgl_span *)FGL_MALLOC(sizeof(fgl_span) * (size_t)FGL__MAX(ps->n, 1));
    if (!c->span) return FGL_ERR_NOMEM;
    for (i = 0; i < ps->n && c->share; i++) {
        const fgl_slice *s = &ps->slices[ps->order[i]];
        size_t len = fgl_slice_size(s);
        if (!fgl_slice_selected(s, c->share, c->keep)) continue;
        if (n > 0 && c->span[n - 1].offset + c->span[n - 1].len == s->offset &&
            c->span[n - 1].trainable == s->trainable) {
            c->span[n - 1].len += len;
        } else {
            c->span[n].offset = s->offset;
            c->span[n].packed = packed;
            c->span[n].trained = trained;
            c->span[n].len = len;
            c->span[n].trainable = s->trainable;
            n++;
        }
        packed += len;
        if (s->trainable) trained += len;
    }
    c->n_span = n;
    c->n_shared = packed;
    c->n_trainable = trained;
    return FGL_OK;
}

/* One optimisation step on one batch. */
static int fgl__train_step(fgl_client *c, fgl_model *m, fgl_optim *o, const fgl_train_hooks *h, const fgl_view_batch *b,
                           int epoch, double *loss_sum) {
    fgl_tape *t = &c->tape;
    fgl_forward fw;
    fgl_node *loss;
    fgl_step st;
    int rc;
    fgl_tape_reset(t);
    fgl_params_defer_zero_grad(&m->params); /* the backward pass writes them */
    fgl_model_forward(m, t, b->g, 1, &c->rng, &fw);
    if (c->attacker && c->fed->attack.kind == FGL_ATTACK_LABELFLIP && fw.logits && b->labels) { /* trains on C-1-y */
        int i, C = fw.logits->cols, *y = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)FGL__MAX(fw.logits->rows, 1));
        if (!y) return fgl_client_fail(c, FGL_ERR_NOMEM, "out of memory");
        for (i = 0; i < fw.logits->rows; i++)
            y[i] = b->labels[i] >= 0 && b->labels[i] < C ? C - 1 - b->labels[i] : b->labels[i];
        loss = fgl_view_loss(&c->data, m, t, &fw, b, y, &c->rng);
    } else { /* the task's loss: cross-entropy, or a link task's BCE with fresh negatives */
        loss = fgl_view_loss(&c->data, m, t, &fw, b, NULL, &c->rng);
    }
    st.t = t;
    st.model = m;
    st.g = b->g;
    st.fwd = &fw;
    st.labels = b->labels;
    st.mask = b->mask;
    st.epoch = epoch;
    st.index = c->steps;
    if (loss && h && h->loss) {
        fgl_node *extra = h->loss(c, &st);
        if (c->error) return c->error;
        if (extra) loss = fgl_op_add(t, loss, extra);
    }
    if (fgl_tape_backward(t, loss)) return fgl_client_fail(c, t->err, "%s", t->msg);
    *loss_sum += loss->val[0];
    if (h && h->grad && (rc = h->grad(c, &st))) return fgl_client_fail(c, rc, "gradient hook: %s", fgl_result_name(rc));
    if (c->error) return c->error;
    fgl_optim_step(o, &m->params);
    if (h && h->after_step && (rc = h->after_step(c, &st)))
        return fgl_client_fail(c, rc, "step hook: %s", fgl_result_name(rc));
    c->steps++;
    return c->error;
}

FGLDEF int fgl_client_train(fgl_client *c, fgl_model *m, fgl_optim *o, const fgl_train_hooks *h) {
    double loss_sum = 0;
    int e, rc = FGL_OK, n_steps = 0;
    int B = c->fed->batch_size > 0 ? c->fed->batch_size : c->n_train;
    c->steps = 0;
    if (c->fed->reset_optim) fgl_optim_reset(o);
    for (e = 0; e < c->fed->local_epochs && !rc; e++) {
        fgl_view_iter it;
        fgl_view_batch b;
        fgl_error err;
        fgl_view_shuffle(&c->data, FGL_SPLIT_TRAIN, &c->rng);
        fgl_view_begin(&c->data, FGL_SPLIT_TRAIN, B, &it);
        while (!rc && (rc = fgl_view_next(&it, &b, &err)) > 0) {
            rc = fgl__train_step(c, m, o, h, &b, e, &loss_sum);
            n_steps++;
        }
        if (rc < 0 && !c->error) fgl_client_fail(c, rc, "%s", err.msg);
        fgl_view_end(&it);
    }
    c->train_loss = n_steps ? loss_sum / n_steps : 0.0;
    return rc < 0 ? rc : FGL_OK;
}

/* --- the server side ------------------------------------------------------------- */

FGLDEF int fgl_server_fail(fgl_server *s, int code, const char *fmt, ...) {
    if (!s->error) {
        va_list ap;
        s->error = code;
        va_start(ap, fmt);
        vsnprintf(s->msg, sizeof s->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

FGLDEF const float *fgl_upload(const fgl_server *s, int client, const char *name) {
    const fgl_msg *m;
    int p;
    if (client < 0 || client >= s->n_clients || !(m = s->up[client])) return NULL;
    p = fgl_msg_find(m, name);
    FGL_ASSERT(p >= 0);
    if (p >= 0 && s->fed->secagg.on && (m->decl[p].kind == FGL_SEND_MODEL || m->decl[p].kind == FGL_SEND_WEIGHT))
        return NULL; /* masked: the server sees only the sum (fgl_server_mean) */
    return p >= 0 ? m->part[p] : NULL;
}

FGLDEF size_t fgl_upload_size(const fgl_server *s, int client, const char *name) {
    int q;
    for (q = 0; q < s->algo->n_up; q++)
        if (strcmp(s->algo->up[q].name, name) == 0) break;
    FGL_ASSERT(q < s->algo->n_up); /* a declared part */
    if (q == s->algo->n_up || client < 0 || client >= s->n_clients) return 0;
    return s->up_len_of[(size_t)client * FGL_MSG_MAX_PARTS + q];
}

FGLDEF size_t fgl_server_up_size(fgl_server *s, const char *name) {
    int q;
    for (q = 0; name && q < s->algo->n_up; q++)
        if (strcmp(s->algo->up[q].name, name) == 0) return s->up_len[q];
    fgl_server_fail(s, FGL_ERR_ARG, "%s uploads no part '%s'", s->algo->name, name ? name : "(null)");
    return 0;
}

FGLDEF size_t fgl_server_down_size(fgl_server *s, const char *name) {
    int q;
    for (q = 0; name && q < s->algo->n_down; q++)
        if (strcmp(s->algo->down[q].name, name) == 0) return s->down_len[q];
    fgl_server_fail(s, FGL_ERR_ARG, "%s downloads no part '%s'", s->algo->name, name ? name : "(null)");
    return 0;
}

FGLDEF float *fgl_download_part(fgl_server *s, int client, const char *name) {
    fgl_msg *m = &s->down[client];
    int p = fgl_msg_find(m, name);
    size_t n;
    FGL_ASSERT(p >= 0 && !m->decl[p].from); /* a part the download hook writes */
    if (p < 0) return NULL;
    n = s->down_len[p];
    if (fgl__per_client(&m->decl[p])) { /* sized by the client's nodes (FedGCN's halo) */
        const fgl_part *d = &m->decl[p];
        size_t nodes = (size_t)s->n_nodes[client];
        n = (d->rows == FGL_DIM_NODES ? nodes : fgl_server_dim(s, d->rows)) *
            (d->cols == FGL_DIM_NODES ? nodes : fgl_server_dim(s, d->cols));
    }
    return fgl__msg_own(m, p, n);
}

/* The weight of client i's accepted upload: its FGL_SEND_WEIGHT part, or 1. */
static double fgl__upload_weight(const fgl_msg *m, int equal) {
    int p;
    if (equal) return 1.0;
    for (p = 0; p < m->n_parts; p++)
        if (m->decl[p].kind == FGL_SEND_WEIGHT && m->part[p]) return m->part[p][0];
    return 1.0;
}

static int fgl__server_mean(fgl_server *s, const char *part, float *out, int equal) {
    double wsum = 0, *acc;
    size_t j, n = 0;
    int i, p = -1;
    if (s->fed->dp.clip > 0 || s->fed->secagg.on) { /* the hook sees no upload: the runtime's mean of the part */
        const char *priv = s->fed->dp.clip > 0 ? "differential privacy" : "secure aggregation";
        for (p = 0; p < s->algo->n_up && strcmp(s->algo->up[p].name, part) != 0; p++) continue;
        if (p == s->algo->n_up) return fgl_server_fail(s, FGL_ERR_ARG, "%s uploads no part '%s'", s->algo->name, part);
        if (!fgl__weights_part(&s->algo->up[p]))
            return fgl_server_fail(s, FGL_ERR_ARG, "%s: no mean of '%s' is released (it carries no model weights)",
                                   priv, part);
        if (s->fed->secagg.on) return fgl__defended_mean(s, p, out, s->up_len[p]);
        if (!s->dp_release[p])
            return fgl_server_fail(s, FGL_ERR_ARG, "differential privacy: the noised mean of '%s' exists during the "
                                   "aggregate hook only", part);
        memcpy(out, s->dp_release[p], sizeof(float) * s->up_len[p]);
        s->dp_taken[p] = 1;
        return FGL_OK;
    }
    for (i = 0; i < s->n_clients && p < 0; i++)
        if (s->up[i]) p = fgl_msg_find(s->up[i], part);
    if (p < 0) return FGL_ERR_EMPTY;
    if (fgl__per_client(&s->algo->up[p])) return FGL_ERR_SHAPE; /* sizes differ between clients */
    for (i = 0; i < s->n_clients; i++)
        if (s->up[i] && s->up[i]->part[p]) n = s->up[i]->len[p];
    if (fgl__weights_part(&s->algo->up[p]) && s->fed->robust.rule != FGL_ROBUST_MEAN)
        return fgl__defended_mean(s, p, out, n);
    acc = (double *)fgl_scratch(&s->store, sizeof(double) * FGL__MAX(n, 1));
    if (!acc) return FGL_ERR_NOMEM;
    for (i = 0; i < s->n_clients; i++) {
        const fgl_msg *m = s->up[i];
        if (m && m->part[p] && m->len[p] == n) wsum += fgl__upload_weight(m, equal);
    }
    if (!(wsum > 0)) return FGL_ERR_EMPTY;
    {   /* pieces of the vector in parallel; in each, the clients in their
         * fixed order: deterministic sums at any thread count */
        long ch, n_ch = (long)((n + 16383) / 16384);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) private(i, j) num_threads(fgl__threads_elem(n))
#endif
        for (ch = 0; ch < n_ch; ch++) {
            size_t lo = (size_t)ch * 16384, hi = FGL__MIN(n, lo + 16384);
            for (i = 0; i < s->n_clients; i++) {
                const fgl_msg *m = s->up[i];
                double w;
                if (!m || !m->part[p] || m->len[p] != n) continue;
                w = fgl__upload_weight(m, equal);
                for (j = lo; j < hi; j++) acc[j] += w * m->part[p][j];
            }
            for (j = lo; j < hi; j++) out[j] = (float)(acc[j] / wsum);
        }
    }
    return FGL_OK;
}

FGLDEF int fgl_server_mean(fgl_server *s, const char *part, float *out) { return fgl__server_mean(s, part, out, 0); }
FGLDEF int fgl_server_plain_mean(fgl_server *s, const char *part, float *out) {
    return fgl__server_mean(s, part, out, 1);
}

/* The index of the upload part called name in the declaration, or -1. */
static int fgl__up_part(const fgl_algo *a, const char *name) {
    int p;
    for (p = 0; p < a->n_up; p++)
        if (strcmp(a->up[p].name, name) == 0) return p;
    return -1;
}

FGLDEF int fgl_server_mix_div(fgl_server *s, const char *part, const float *held, const double *w, const double *div,
                              float *out, const unsigned char *rows, int count_clips) {
    int p = fgl__up_part(s->algo, part), i, any = 0;
    if (p < 0) return fgl_server_fail(s, FGL_ERR_ARG, "mixing: %s uploads no part '%s'", s->algo->name, part);
    if (s->fed->dp.clip > 0 || s->fed->secagg.on)
        return fgl_server_fail(s, FGL_ERR_ARG, "%s is not defined for personalised mixing (fgl_server_mix)",
                               s->fed->dp.clip > 0 ? "differential privacy" : "secure aggregation");
    for (i = 0; i < s->n_clients; i++) any |= !rows || rows[i];
    if (!any) return FGL_OK;
    return fgl__rule_mix(s, p, s->up_len[p], held, w, div, s->n_clients, out, rows, count_clips);
}

FGLDEF int fgl_server_mix(fgl_server *s, const char *part, const float *held, const double *w, float *out,
                          const unsigned char *rows) {
    return fgl_server_mix_div(s, part, held, w, NULL, out, rows, 1);
}

FGLDEF int fgl_server_gather(fgl_server *s, const char *part, float *dst, int *has) {
    int i, n = 0;
    for (i = 0; i < s->n_clients; i++) {
        const fgl_msg *m = s->up[i];
        int p;
        if (!m || (p = fgl_msg_find(m, part)) < 0) continue;
        if (fgl__per_client(&m->decl[p])) return FGL_ERR_SHAPE; /* rows of different sizes */
        if (!m->part[p]) continue;
        memcpy(dst + (size_t)i * m->len[p], m->part[p], sizeof(float) * m->len[p]);
        if (has) has[i] = 1;
        n++;
    }
    return n;
}

FGLDEF int fgl_mix_rows(int K, const double *w, const float *src, size_t n, float *out, const unsigned char *rows) {
    int i, j;
    size_t q;
    double *acc = (double *)FGL_MALLOC(sizeof(double) * FGL__MAX(n, 1));
    if (!acc) return FGL_ERR_NOMEM;
    for (i = 0; i < K; i++) {
        if (rows && !rows[i]) continue;
        memset(acc, 0, sizeof(double) * n);
        for (j = 0; j < K; j++) {
            double a = w[(size_t)i * K + j];
            const float *th = src + (size_t)j * n;
            if (a == 0) continue;
            for (q = 0; q < n; q++) acc[q] += a * th[q];
        }
        for (q = 0; q < n; q++) out[(size_t)i * n + q] = (float)acc[q];
    }
    FGL_FREE(acc);
    return FGL_OK;
}

/* --- src/fed/park.h --- */
/* --- idle clients' state, packed (cfg.park_idle) ------------------------------------ */

/* A parked client's blob holds, in store order, the values of each model or
 * parameter set entry and the two moments of each optimizer entry, as
 * blocks of FGL__PARK_BLOCK floats of three kinds: all zero bits, the same
 * bits as the run's initial model there, or raw (the floats themselves).
 * Neighbouring blocks of one kind form a run of at most FGL__PARK_RUN
 * blocks, written as one byte (kind in the top two bits, length - 1 in the
 * low six) and, for a raw run, its floats. A client that has not trained
 * yet (its model the initial one, fresh moments all zeros) thus costs a
 * byte per 4,096 floats of each array, not a byte per 64: at 10,000 clients
 * of a 21,600-float model with Adam the old tags took 10 MB. Everything
 * else (sizes, layouts, step counts, FLOATS and INTS entries, RNG streams)
 * stays where it is. The blob lives in this process only (native byte
 * order). Gradients are not state: they come back zeroed, as a step starts
 * them. */
#define FGL__PARK_BLOCK 64
#define FGL__PARK_RUN 64 /* a run's length - 1 takes the header byte's low six bits */
#if FGL__PARK_RUN > 64
#error "FGL__PARK_RUN must fit in six bits"
#endif
enum { FGL__PARK_ZERO, FGL__PARK_SAME, FGL__PARK_RAW }; /* a kind takes the top two bits */

static int fgl__park_kind(const float *x, const float *ref, size_t len) {
    static const float zero[FGL__PARK_BLOCK] = {0};
    if (!memcmp(x, zero, sizeof(float) * len)) return FGL__PARK_ZERO;
    return ref && !memcmp(x, ref, sizeof(float) * len) ? FGL__PARK_SAME : FGL__PARK_RAW;
}

/* The kind of the block at i (-1 past the end). */
static int fgl__park_kind_at(const float *x, const float *ref, size_t n, size_t i) {
    return i < n ? fgl__park_kind(x + i, ref ? ref + i : NULL, FGL__MIN((size_t)FGL__PARK_BLOCK, n - i)) : -1;
}

static void fgl__park_floats(fgl_bytes *b, const float *x, const float *ref, size_t n) {
    size_t i = 0;
    int kind = fgl__park_kind_at(x, ref, n, 0);
    while (i < n) { /* one run: blocks of i's kind from i on; the block after it starts the next */
        int blocks = 1, next;
        size_t end = FGL__MIN(n, i + FGL__PARK_BLOCK);
        unsigned char head;
        while ((next = fgl__park_kind_at(x, ref, n, end)) == kind && blocks < FGL__PARK_RUN) {
            end = FGL__MIN(n, end + FGL__PARK_BLOCK);
            blocks++;
        }
        head = (unsigned char)(kind << 6 | (blocks - 1));
        fgl_bytes_put(b, &head, 1);
        if (kind == FGL__PARK_RAW) fgl_bytes_put(b, x + i, sizeof(float) * (end - i));
        i = end;
        kind = next;
    }
}

static const unsigned char *fgl__unpark_floats(const unsigned char *p, float *x, const float *ref, size_t n) {
    size_t i = 0;
    while (i < n) {
        int kind = *p >> 6, blocks = (*p & 63) + 1;
        size_t len = FGL__MIN(n - i, (size_t)blocks * FGL__PARK_BLOCK);
        p++;
        if (kind == FGL__PARK_ZERO) {
            memset(x + i, 0, sizeof(float) * len);
        } else if (kind == FGL__PARK_SAME) {
            memcpy(x + i, ref + i, sizeof(float) * len);
        } else {
            memcpy(x + i, p, sizeof(float) * len);
            p += sizeof(float) * len;
        }
        i += len;
    }
    return p;
}

/* The parameter set of a model or parameter set entry (NULL for other kinds),
 * and the initial model's values when its size matches (blocks are compared
 * bit for bit, so any same-sized reference packs and unpacks exactly). */
static fgl_params *fgl__entry_params(const fgl__entry *e) {
    if (e->kind == FGL__E_MODEL) return &((fgl_model *)e->p)->params;
    return e->kind == FGL__E_PARAMS ? (fgl_params *)e->p : NULL;
}

static const float *fgl__park_ref(const fgl_run *run, size_t n) {
    return run->ref.params.data && run->ref.params.size == n ? run->ref.params.data : NULL;
}

/* cfg.park_idle 2: the packed states in one temporary file, a slot per
 * client reused while the state fits (a trained client's always does).
 * Clients pack and unpack in parallel; the file is used by one at a time.
 * Any failure (no temporary file, a full disk) keeps the state in memory. */
static int fgl__park_write(fgl_run *run, fgl_client *c, const unsigned char *blob, size_t len) {
    int rc = FGL_ERR_IO;
#ifdef _OPENMP
#pragma omp critical(fgl__park_file)
#endif
    {
        if (!run->park_file) run->park_file = tmpfile();
        if (run->park_file) {
            size_t at = c->park_cap >= len ? c->park_off : run->park_end;
            if (len <= (size_t)LONG_MAX && at <= (size_t)LONG_MAX - len &&
                fseek(run->park_file, (long)at, SEEK_SET) == 0 && fwrite(blob, 1, len, run->park_file) == len) {
                if (at == run->park_end) {
                    run->park_end += len;
                    c->park_off = at;
                    c->park_cap = len;
                }
                c->park_sum = fgl_checksum64(blob, len);
                rc = FGL_OK;
            }
        }
    }
    return rc;
}

/* A parked client's blob: c->parked, or a copy read from the park file into
 * *owned (the caller frees it); NULL if it cannot be read back as written. */
static const unsigned char *fgl__park_blob(const fgl_run *run, const fgl_client *c, unsigned char **owned) {
    unsigned char *buf;
    int ok = 0;
    *owned = NULL;
    if (c->parked) return c->parked;
    if (!run->park_file || !(buf = (unsigned char *)FGL_MALLOC(c->parked_len))) return NULL;
#ifdef _OPENMP
#pragma omp critical(fgl__park_file)
#endif
    ok = fseek(run->park_file, (long)c->park_off, SEEK_SET) == 0 &&
         fread(buf, 1, c->parked_len, run->park_file) == c->parked_len;
    if (!ok || fgl_checksum64(buf, c->parked_len) != c->park_sum) { /* unreadable or changed on disk */
        FGL_FREE(buf);
        return NULL;
    }
    return *owned = buf;
}

/* Free the arrays a packed client does without (parameter values and
 * gradients, optimizer moments) and, with tapes, trim its store's tapes. */
static void fgl__park_release(fgl_store *st, int tapes) {
    int i;
    for (i = 0; i < st->n; i++) {
        fgl__entry *e = &st->e[i];
        fgl_params *ps = fgl__entry_params(e);
        if (ps) {
            FGL_FREE(ps->data);
            FGL_FREE(ps->grad);
            ps->data = ps->grad = NULL;
        } else if (e->kind == FGL__E_OPTIM) {
            fgl_optim *o = (fgl_optim *)e->p;
            FGL_FREE(o->m);
            FGL_FREE(o->v);
            o->m = o->v = NULL;
        } else if (tapes && e->kind == FGL__E_TAPE) {
            fgl_tape_trim((fgl_tape *)e->p);
        }
    }
}

/* A client gone idle gives its tape's arena to the run, for the next client
 * that trains or evaluates, and trims the tape (its error state stays); an
 * arena the run has no room for is freed. Every client's step is the same
 * size, so a lent arena is usually large enough already: new memory (a
 * page fault on every page's first touch, about 10 us each on some VMs)
 * then comes only with the data and state of a client, not with each
 * client-round of --frac's draws. */
static void fgl__tape_stow(fgl_run *run, fgl_tape *t) {
    fgl__chunk *a = t->chunk;
    int kept = 0;
    if (a && run->cap_arenas > 0) {
        fgl__chunks_free(a->prev); /* the newest chunk only: a reset would merge them anyway */
        a->prev = NULL;
        a->used = 0;
#ifdef _OPENMP
#pragma omp critical(fgl__arenas)
#endif
        if (run->n_arenas < run->cap_arenas) {
            run->arenas[run->n_arenas++] = a;
            kept = 1;
        }
        if (kept) t->chunk = NULL;
    }
    fgl_tape_trim(t);
}

/* A tape without an arena borrows one that an idle client gave back. */
static void fgl__tape_lend(fgl_run *run, fgl_tape *t) {
    fgl__chunk *a = NULL;
    if (t->chunk || run->cap_arenas == 0) return;
#ifdef _OPENMP
#pragma omp critical(fgl__arenas)
#endif
    if (run->n_arenas > 0) a = run->arenas[--run->n_arenas];
    t->chunk = a;
}

/* Pack an idle client's state and free what it no longer needs; a client
 * whose state cannot be packed (out of memory) simply stays resident. */
static void fgl__park(fgl_run *run, fgl_client *c) {
    fgl_store *st = &c->store;
    fgl_bytes b;
    int i, p;
    if (c->parked_len || !c->local) return;
    fgl_bytes_init(&b);
    for (i = 0; i < st->n; i++) {
        const fgl__entry *e = &st->e[i];
        fgl_params *ps = fgl__entry_params(e);
        if (ps) fgl__park_floats(&b, ps->data, fgl__park_ref(run, ps->size), ps->size);
        if (e->kind == FGL__E_OPTIM) {
            const fgl_optim *o = (const fgl_optim *)e->p;
            fgl__park_floats(&b, o->m, NULL, o->size);
            fgl__park_floats(&b, o->v, NULL, o->size);
        }
    }
    if (b.err || !b.len) { /* out of memory, or no floats at all */
        fgl_bytes_free(&b);
        return;
    }
    fgl__park_release(st, 1);
    fgl__tape_stow(run, &c->tape);
    fgl_tape_trim(&st->scratch);
    for (p = 0; p < FGL_MSG_MAX_PARTS; p++) { /* the uploads were read in their round */
        FGL_FREE(c->up.own[p]);
        c->up.own[p] = NULL;
        c->up.part[p] = NULL;
        c->up.cap[p] = c->up.len[p] = 0;
    }
    c->parked_len = b.len;
    if (run->cfg.park_idle == 2 && fgl__park_write(run, c, b.data, b.len) == FGL_OK) {
        fgl_bytes_free(&b);
        return;
    }
    c->parked = (unsigned char *)FGL_REALLOC(b.data, b.len); /* in memory; the growth slack given back */
    if (!c->parked) c->parked = b.data;
}

/* Give a parked client its state back; FGL_ERR_NOMEM leaves it parked. */
static int fgl__unpark(fgl_run *run, fgl_client *c) {
    fgl_store *st = &c->store;
    unsigned char *owned;
    const unsigned char *blob, *p;
    int i, ok = 1;
    fgl__tape_lend(run, &c->tape);
    if (!c->parked_len) return FGL_OK;
    if (!(p = blob = fgl__park_blob(run, c, &owned))) return FGL_ERR_IO;
    for (i = 0; i < st->n; i++) { /* allocate everything first: all or nothing */
        fgl__entry *e = &st->e[i];
        fgl_params *ps = fgl__entry_params(e);
        size_t n = ps ? ps->size : e->kind == FGL__E_OPTIM ? ((fgl_optim *)e->p)->size : 0;
        float **a = ps ? &ps->data : e->kind == FGL__E_OPTIM ? &((fgl_optim *)e->p)->m : NULL;
        float **z = ps ? &ps->grad : e->kind == FGL__E_OPTIM ? &((fgl_optim *)e->p)->v : NULL;
        if (!a) continue;
        *a = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(n, 1));
        *z = (float *)fgl__zalloc(sizeof(float) * n);
        ok &= *a && *z;
    }
    if (!ok) {
        fgl__park_release(st, 0);
        FGL_FREE(owned);
        return FGL_ERR_NOMEM;
    }
    for (i = 0; i < st->n; i++) {
        const fgl__entry *e = &st->e[i];
        fgl_params *ps = fgl__entry_params(e);
        if (ps) p = fgl__unpark_floats(p, ps->data, fgl__park_ref(run, ps->size), ps->size);
        if (e->kind == FGL__E_OPTIM) {
            fgl_optim *o = (fgl_optim *)e->p;
            p = fgl__unpark_floats(p, o->m, NULL, o->size);
            p = fgl__unpark_floats(p, o->v, NULL, o->size);
        }
    }
    FGL_ASSERT((size_t)(p - blob) == c->parked_len);
    FGL_FREE(owned);
    FGL_FREE(c->parked);
    c->parked = NULL;
    c->parked_len = 0;
    return FGL_OK;
}

/* Every local client resident; the error (FGL_ERR_NOMEM, FGL_ERR_IO) when
 * one cannot be (those already unpacked stay resident: that changes
 * memory, not the run). */
static int fgl__unpark_all(fgl_run *run) {
    int i;
    int rc;
    for (i = 0; i < run->n_clients; i++)
        if ((rc = fgl__unpark(run, &run->clients[i]))) return rc;
    return FGL_OK;
}

/* Past n packed floats, without unpacking them. */
static const unsigned char *fgl__park_skip(const unsigned char *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        size_t len = FGL__MIN(n - i, (size_t)((*p & 63) + 1) * FGL__PARK_BLOCK);
        if (*p++ >> 6 == FGL__PARK_RAW) p += sizeof(float) * len;
        i += len;
    }
    return p;
}

FGLDEF int fgl_run_client_params(const fgl_run *run, int client, float *out, size_t cap, fgl_error *err) {
    const fgl_client *c;
    const unsigned char *p;
    unsigned char *owned;
    int i;
    if (!run || !run->clients || client < 0 || client >= run->n_clients)
        return fgl_error_set(err, FGL_ERR_ARG, "client parameters: no client %d", client);
    c = &run->clients[client];
    if (!c->local)
        return fgl_error_set(err, FGL_ERR_ARG, "client parameters: client %d is hosted by another process", client);
    if (cap < c->model.params.size || !out)
        return fgl_error_set(err, FGL_ERR_ARG, "client parameters: client %d has %zu parameters, the output holds %zu",
                             client, c->model.params.size, out ? cap : (size_t)0);
    if (!c->parked_len) {
        memcpy(out, c->model.params.data, sizeof(float) * c->model.params.size);
        return FGL_OK;
    }
    if (!(p = fgl__park_blob(run, c, &owned)))
        return fgl_error_set(err, FGL_ERR_IO, "client parameters: client %d's packed state cannot be read back",
                             client);
    for (i = 0; i < c->store.n; i++) { /* the blob holds the entries in store order (fgl__park) */
        const fgl__entry *e = &c->store.e[i];
        const fgl_params *ps = fgl__entry_params(e);
        if (e->p == (const void *)&c->model) {
            fgl__unpark_floats(p, out, fgl__park_ref(run, ps->size), ps->size);
            break;
        }
        if (ps) p = fgl__park_skip(p, ps->size);
        if (e->kind == FGL__E_OPTIM) { /* its two moments */
            size_t n = ((const fgl_optim *)e->p)->size;
            p = fgl__park_skip(fgl__park_skip(p, n), n);
        }
    }
    FGL_FREE(owned);
    FGL_ASSERT(i < c->store.n); /* the client's model is in its store */
    return i < c->store.n ? FGL_OK : FGL_ERR_ARG;
}

FGLDEF int fgl_run_unpark(fgl_run *run, int client) {
    if (!run->clients || client < 0 || client >= run->n_clients)
        return fgl_error_set(&run->err, FGL_ERR_ARG, "run: no client %d", client);
    int rc = fgl__unpark(run, &run->clients[client]);
    if (rc)
        return fgl_error_set(&run->err, rc, "client %d: cannot restore its packed state (%s)", client,
                             fgl_result_name(rc));
    return FGL_OK;
}

/* --- src/fed/intact.h --- */
/* --- received messages, checked -------------------------------------------------- */

/* Each part of a download is summed as received (fgl__floats_sum), and
 * after every client hook that can reach it (receive, the local training
 * and its hooks, upload; eval_model around its call) the runtime checks it
 * is unchanged. In one process a part views the server's buffer, over MPI
 * it is the rank's copy: a hook that casts the const away and writes into
 * it would change the server's state in one and not in the other, so both
 * refuse it alike, naming the client and the hook. A part sent whole (not
 * by row) is one buffer that every client views in one process: summed
 * once when the downloads are built, and a write into it shows in every
 * viewer's next check. The first check that catches a write records it
 * (run->intact.written) and later ones stay silent, so with clients one after the
 * other the writer is named, as under MPI; with clients side by side
 * another client's check may come first and be named (the run fails
 * either way). */
static void fgl__down_sums(const fgl_run *run, const fgl_client *c, uint64_t *sums) {
    const fgl_msg *m = &run->down[c->id];
    int p;
    for (p = 0; p < m->n_parts && p < c->down.n_parts; p++)
        sums[p] = !m->part[p] ? 0
                  : m->part[p] == run->intact.shared_at[p] ? run->intact.shared_sum[p]
                                                          : fgl__floats_sum(m->part[p], m->len[p]);
}

/* After the downloads are built: a part sent whole (not by row) views one
 * buffer for every participant, summed here once for fgl__down_sums. */
static void fgl__downs_built(fgl_run *run) {
    const fgl_algo *a = &run->algo;
    int p;
    for (p = 0; p < a->n_down; p++) {
        const float *at = run->n_part > 0 ? run->down[run->part[0]].part[p] : NULL;
        int whole = a->down[p].from && !(a->down[p].flags & FGL_PART_ROW);
        run->intact.shared_at[p] = whole && (run->intact.user_hooks & FGL__HOOKS_DOWN) ? at : NULL;
        if (run->intact.shared_at[p]) run->intact.shared_sum[p] = fgl__floats_sum(at, run->server.down_len[p]);
    }
}

/* The index of a part that differs from sums, or -1. */
static int fgl__down_changed(const fgl_run *run, const fgl_client *c, const uint64_t *sums) {
    const fgl_msg *m = &run->down[c->id];
    int p;
    for (p = 0; p < m->n_parts && p < c->down.n_parts; p++)
        if (m->part[p] && m->part[p] == c->down.part[p] && fgl__floats_sum(m->part[p], m->len[p]) != sums[p])
            return p;
    return -1;
}

/* 1 for the first check of the run that caught a write. */
static int fgl__first_written(fgl_run *run) {
    int first;
#ifdef _OPENMP
#pragma omp critical(fgl__written)
#endif
    {
        first = !run->intact.written;
        run->intact.written = 1;
    }
    return first;
}

static int fgl__down_intact(fgl_run *run, fgl_client *c, const char *hook) {
    int p = fgl__down_changed(run, c, c->down_sum);
    if (p < 0 || !fgl__first_written(run)) return FGL_OK;
    return fgl_client_fail(c, FGL_ERR_ARG,
                           "%s wrote into download part '%s', which clients read only (fgl_down_copy gives a "
                           "writable copy)",
                           hook, c->down.decl[p].name);
}

/* The checksums of client c's accepted upload, where the server checks it
 * (on the client's thread, or the server's for an upload from elsewhere). */
static void fgl__upload_sums(fgl_run *run, const fgl_client *c) {
    int p;
    for (p = 0; p < c->up.n_parts; p++)
        run->intact.up_sum[(size_t)c->id * FGL_MSG_MAX_PARTS + p] =
            c->up.part[p] ? fgl__floats_sum(c->up.part[p], c->up.len[p]) : 0;
}

/* After aggregation: every accepted upload as the client sent it? In one
 * process an upload's model part views the client's parameters (and the
 * other parts are the client's buffers), over MPI they are the server's
 * copies: an aggregate hook that casts the const away and writes into one
 * would change the client in one and not in the other, so both refuse it
 * alike. */
static int fgl__upload_changed(const fgl_run *run, const fgl_client *c) {
    const uint64_t *sum = run->intact.up_sum + (size_t)c->id * FGL_MSG_MAX_PARTS;
    int p;
    for (p = 0; p < c->up.n_parts; p++)
        if (c->up.part[p] && fgl__floats_sum(c->up.part[p], c->up.len[p]) != sum[p]) return p;
    return -1;
}

static int fgl__uploads_intact(fgl_run *run) {
    int q, bad = -1, n = run->n_part, p;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(FGL__NTHREADS_FOR(run, n))
#endif
    for (q = 0; q < n; q++)
        if (run->accepted[run->part[q]] && fgl__upload_changed(run, &run->clients[run->part[q]]) >= 0) {
#ifdef _OPENMP
#pragma omp critical(fgl__uploads_intact)
#endif
            if (bad < 0 || q < bad) bad = q;
        }
    if (bad < 0) return FGL_OK;
    p = fgl__upload_changed(run, &run->clients[run->part[bad]]);
    return fgl_server_fail(&run->server, FGL_ERR_ARG,
                           "the aggregate hook wrote into client %d's upload part '%s', which the server reads only",
                           run->part[bad], run->clients[run->part[bad]].up.decl[p].name);
}

/* Client c's eval_scores hook, checked as eval_model below. */
static const float *fgl__eval_scores(fgl_run *run, fgl_client *c) {
    uint64_t before[FGL_MSG_MAX_PARTS];
    int p, check = (run->intact.user_hooks & FGL__HOOK_EVAL) != 0;
    const float *sc;
    if (check) fgl__down_sums(run, c, before);
    sc = run->algo.eval_scores(c);
    if (!check || (p = fgl__down_changed(run, c, before)) < 0 || !fgl__first_written(run)) return sc;
    fgl_tape_fail(&c->tape, FGL_ERR_ARG,
                  "the eval_scores hook wrote into download part '%s', which clients read only (fgl_down_copy gives "
                  "a writable copy)",
                  c->down.decl[p].name);
    return NULL;
}

/* Client c's eval_model hook, checked when it is the program's own: the
 * last download it may reach (an idle client's may view server buffers
 * changed since) summed before the call and checked after. NULL with the
 * tape's error on a write. */
static fgl_model *fgl__eval_model(fgl_run *run, fgl_client *c) {
    uint64_t before[FGL_MSG_MAX_PARTS];
    int p, check = (run->intact.user_hooks & FGL__HOOK_EVAL) != 0;
    fgl_model *m;
    if (check) fgl__down_sums(run, c, before);
    m = run->algo.eval_model(c);
    if (!check || (p = fgl__down_changed(run, c, before)) < 0 || !fgl__first_written(run)) return m;
    fgl_tape_fail(&c->tape, FGL_ERR_ARG,
                  "the eval_model hook wrote into download part '%s', which clients read only (fgl_down_copy gives "
                  "a writable copy)",
                  c->down.decl[p].name);
    return NULL;
}
/* --- src/fed/budget.h --- */
/* The machine's memory in bytes, or 0 where it cannot be told. */
static double fgl__machine_memory(void) {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0) return (double)pages * (double)size;
#endif
    return 0;
}

/* A lower bound of the memory a run's models need, checked against
 * cfg.mem_limit before any model is built (a model of --hidden 1000000 on
 * Cora, 5.7 GB a client, was being initialised for minutes): every client's
 * parameters four times (values, gradients, two optimizer moments), counted
 * as the fewest a model of its widths has (a linear map per layer: in x
 * hidden, hidden x hidden for each further one, hidden x out; SGC in x out),
 * and the widest client's activations (its nodes x hidden x layers). */
static int fgl__memory_check(fgl_run *run, const fgl_model_spec *specs) {
    double limit = run->cfg.mem_limit > 0 ? run->cfg.mem_limit : fgl__machine_memory(), params = 0, acts = 0,
           widest = 0;
    int i;
    if (!(limit > 0)) return FGL_OK;
    for (i = 0; i < run->n_clients; i++) {
        const fgl_model_spec *sp = &specs[i];
        double in = sp->in_dim, h = sp->hidden, out = sp->out_dim, L = sp->layers, p, a;
        p = sp->arch == FGL_ARCH_SGC ? in * out : in * h + (L > 1 ? (L - 1) * h * h : 0) + h * out;
        a = (double)run->n_nodes[i] * (sp->arch == FGL_ARCH_SGC ? out : h) * L;
        params += p;
        if (p > widest) widest = p;
        if (a > acts) acts = a;
    }
    if (4.0 * (4 * params + acts) <= limit) return FGL_OK;
    return fgl_error_set(&run->err, FGL_ERR_NOMEM,
                         "run: the models need at least %.3g GB (%d clients' parameters four times over, the largest "
                         "model %.3g floats, and the widest client's activations), above the limit of %.3g GB "
                         "(cfg.mem_limit%s; fglrun --mem-limit): use a smaller model or fewer clients",
                         4.0 * (4 * params + acts) / 1e9, run->n_clients, widest, limit / 1e9,
                         run->cfg.mem_limit > 0 ? "" : ": this machine's memory");
}
/* --- src/fed/run.h --- */
/* --- runs: setup ------------------------------------------------------------------- */

/* What this process does of a run: all of it, the server with every
 * client hosted elsewhere, or the hosted clients of a run whose server is
 * elsewhere. */
enum { FGL__ROLE_ALL, FGL__ROLE_SERVER, FGL__ROLE_CLIENTS };

/* A transport runs the client side of a run in other processes (FGL_MPI
 * is one). The runtime calls it where a round crosses between the sides;
 * each call returns FGL_OK or an error in run->err. A host that stops
 * answering is the transport's to detect: it marks its clients in
 * run->lost and the run goes on without them. */
struct fgl__transport {
    int (*start)(fgl_run *run);                  /* the first downloads are built: remote clients start, receive */
    int (*train)(fgl_run *run);                  /* remote participants train: their uploads arrive in c->up */
    int (*finish)(fgl_run *run, int evaluated);  /* next downloads out; remote evaluations in (c->val_acc ...) */
    int (*save)(fgl_run *run, fgl_bytes *stores);   /* remote clients' serialised stores into stores[i] */
    int (*load)(fgl_run *run, const fgl_reader *stores, int commit, fgl_error *err);  /* check (0) or install (1) */
    int (*resume)(fgl_run *run);                 /* after a load: round, participants and downloads out */
    int (*secagg)(fgl_run *run, int step);       /* secure aggregation's step 1 (keys), 2 (shares), 4 (the
                                                    survivors list's tags), 3 (reveal) for the remote
                                                    participants (run->sa) */
    void (*free)(fgl_run *run);
};

/* Secure aggregation's step for the participants hosted elsewhere. */
static int fgl__sa_transport(fgl_run *run, int step) {
    return run->transport && run->transport->secagg ? run->transport->secagg(run, step) : FGL_OK;
}

/* A client hosted by another process (FGL_MPI): what it registered. */
typedef struct fgl__remote {
    int remote;
    int n_train, n_val, n_test;
    uint64_t data_sum;
} fgl__remote;

static int fgl__run_init(fgl_run *run, const fgl_fed_config *cfg, const fgl_algo *algo, const fgl_client_data *clients,
                         int n_clients, const fgl__remote *remote, fgl_error *err);
static int fgl__run_check(fgl_run *run, int full);
static const char *fgl__algo_missed(void);            /* the registry's (registry.h) */
static void fgl__algo_names(char *buf, size_t cap);

FGLDEF int fgl_run_init(fgl_run *run, const fgl_fed_config *cfg, const fgl_algo *algo,
                        const fgl_client_data *clients, int n_clients, fgl_error *err) {
    return fgl__run_init(run, cfg, algo, clients, n_clients, NULL, err);
}

static int fgl__run_init(fgl_run *run, const fgl_fed_config *cfg, const fgl_algo *algo, const fgl_client_data *clients,
                         int n_clients, const fgl__remote *remote, fgl_error *err) {
    int i, k, rc;
    size_t R, K;
    memset(run, 0, sizeof *run);
    if (!algo || !algo->name) {
        const char *m = fgl__algo_missed(), *near = *m ? fgl_algo_suggest(m) : NULL;
        char names[400];
        fgl__algo_names(names, sizeof names);
        if (!*m) return fgl_error_set(err, FGL_ERR_ARG, "run: no algorithm (the table is NULL); registered: %s", names);
        return fgl_error_set(err, FGL_ERR_ARG,
                             "run: no algorithm: fgl_algo_find(\"%s\") found none%s%s%s; registered: %s", m,
                             near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "", names);
    }
    if (!cfg || n_clients <= 0 || !clients) return fgl_error_set(err, FGL_ERR_ARG, "run: no clients");
    if ((rc = fgl__config_check(cfg, err))) return rc;
    for (i = 0; cfg->metric != FGL_METRIC_ACC && i < n_clients; i++) {
        if (clients[i].spec.task == FGL_TASK_LINK)
            return fgl_error_set(err, FGL_ERR_ARG, "run: metric %s: a link task's accuracy is its AUC already "
                                 "(FGL_METRIC_ACC)", cfg->metric == FGL_METRIC_AUC ? "AUC" : "F1");
        if (cfg->metric == FGL_METRIC_AUC && clients[i].spec.out_dim != 2)
            return fgl_error_set(err, FGL_ERR_ARG, "run: metric AUC needs two classes: client %d's model has %d "
                                 "outputs", i, clients[i].spec.out_dim);
    }
    run->cfg = *cfg;
    run->algo = *algo;
    run->n_clients = n_clients;
    R = (size_t)cfg->rounds;
    K = (size_t)n_clients;
    run->set.algo = &run->algo;
    run->set.unknown = run->unknown_param;
    run->set.value = (double *)fgl__zalloc(sizeof(double) * FGL_ALGO_MAX_PARAMS);
    run->clients = (fgl_client *)fgl__zalloc(sizeof(fgl_client) * K);
    run->n_registered = (int *)fgl__zalloc(sizeof(int) * K);
    run->n_nodes = (int *)fgl__zalloc(sizeof(int) * K);
    run->up_len_of = (size_t *)fgl__zalloc(sizeof(size_t) * K * FGL_MSG_MAX_PARTS);
    run->up_view = (const fgl_msg **)fgl__zalloc(sizeof(fgl_msg *) * K);
    run->down = (fgl_msg *)fgl__zalloc(sizeof(fgl_msg) * K);
    run->accepted = (unsigned char *)fgl__zalloc(K);
    run->checked = (unsigned char *)fgl__zalloc(K);
    run->up_norm = (double *)fgl__zalloc(sizeof(double) * K * FGL_MSG_MAX_PARTS);
    run->intact.up_sum = (uint64_t *)fgl__zalloc(sizeof(uint64_t) * K * FGL_MSG_MAX_PARTS);
    run->rejected_by = (int *)fgl__zalloc(sizeof(int) * K);
    run->attacker = (unsigned char *)fgl__zalloc(K);
    run->dropped = (unsigned char *)fgl__zalloc(K);
    run->trained = (unsigned char *)fgl__zalloc(K);
    run->lost = (unsigned char *)fgl__zalloc(K);
    run->part = (int *)fgl__zalloc(sizeof(int) * K);
    { /* the most arenas in use at once: in the evaluation phase, the round's participants, the next round's
       * (evaluated, not yet trained) and one per thread evaluating an idle client */
        int per_round = FGL__MAX(1, FGL__MIN((int)(cfg->frac * n_clients + 0.5f), n_clients)), nt = 1;
#ifdef _OPENMP
        nt = FGL__NTHREADS(run);
#endif
        run->cap_arenas = FGL__MIN(n_clients, 2 * per_round + nt);
        run->arenas = (struct fgl__chunk **)fgl__zalloc(sizeof(struct fgl__chunk *) * (size_t)run->cap_arenas);
        if (!run->arenas) run->cap_arenas = 0; /* not needed: idle arenas are then freed */
    }
    run->stats = (fgl_round_stats *)fgl__zalloc(sizeof(fgl_round_stats) * R);
    run->client_val = (double *)fgl__zalloc(sizeof(double) * R * K);
    run->client_test = (double *)fgl__zalloc(sizeof(double) * R * K);
    run->client_loss = (double *)fgl__zalloc(sizeof(double) * R * K);
    run->client_val_f1 = (double *)fgl__zalloc(sizeof(double) * R * K);
    run->client_test_f1 = (double *)fgl__zalloc(sizeof(double) * R * K);
    run->client_val_auc = (double *)fgl__zalloc(sizeof(double) * R * K);
    run->client_test_auc = (double *)fgl__zalloc(sizeof(double) * R * K);
    run->client_up = (size_t *)fgl__zalloc(sizeof(size_t) * R * K);
    run->client_down = (size_t *)fgl__zalloc(sizeof(size_t) * R * K);
    if (!run->set.value || !run->clients || !run->n_registered || !run->n_nodes || !run->up_len_of || !run->up_view ||
        !run->down || !run->accepted || !run->checked || !run->up_norm || !run->intact.up_sum ||
        !run->rejected_by || !run->attacker || !run->dropped || !run->trained || !run->lost || !run->part ||
        !run->stats || !run->client_val || !run->client_test || !run->client_loss || !run->client_up ||
        !run->client_down || !run->client_val_f1 || !run->client_test_f1 || !run->client_val_auc ||
        !run->client_test_auc) {
        FGL_FREE(run->clients);
        run->clients = NULL;
        run->n_clients = 0;
        fgl_run_free(run);
        return fgl_error_set(err, FGL_ERR_NOMEM, "run: out of memory");
    }
    for (k = 0; k < run->algo.n_params; k++) run->set.value[k] = run->algo.params[k].def;
    fgl__store_init(&run->server.store, -1);
    for (i = 0; i < n_clients; i++) {
        fgl_client *c = &run->clients[i];
        const fgl_client_data *cd = &clients[i];
        const fgl_link_split *link;
        c->id = i;
        fgl_tape_init(&c->tape);
        fgl__store_init(&c->store, i);
        if (remote && remote[i].remote) { /* hosted elsewhere: its spec and what it registered */
            c->local = 0;
            c->task = cd->spec.task;
            if ((rc = fgl_model_spec_check(&cd->spec, err))) goto fail;
            if (i > 0 && c->task != run->clients[0].task) {
                rc = fgl_error_set(err, FGL_ERR_ARG, "client %d: all clients must have the same task", i);
                goto fail;
            }
            c->spec = c->model.spec = cd->spec;
            c->n_train = remote[i].n_train;
            c->n_val = remote[i].n_val;
            c->n_test = remote[i].n_test;
            c->data_sum = remote[i].data_sum;
            if (c->n_train <= 0) {
                rc = fgl_error_set(err, FGL_ERR_EMPTY, "client %d: no training samples registered", i);
                goto fail;
            }
            run->n_registered[i] = c->n_train;
            fgl_rng_init(&c->rng, cfg->seed, 0x434c49454e54ull + (uint64_t)i);
            continue;
        }
        c->local = 1;
        if ((cd->node == NULL) == (cd->graphs == NULL)) {
            rc = fgl_error_set(err, FGL_ERR_ARG, "client %d: give exactly one of node data or a graph set", i);
            goto fail;
        }
        /* cd->link is read only for a link spec: code written before it may leave it unset */
        link = cd->spec.task == FGL_TASK_LINK ? cd->link : NULL;
        c->task = cd->spec.task == FGL_TASK_LINK ? FGL_TASK_LINK : cd->node ? FGL_TASK_NODE : FGL_TASK_GRAPH;
        if (c->task != cd->spec.task) {
            rc = fgl_error_set(err, FGL_ERR_ARG, "client %d: the model spec's task does not match its data", i);
            goto fail;
        }
        if (i > 0 && c->task != run->clients[0].task) {
            rc = fgl_error_set(err, FGL_ERR_ARG, "client %d: all clients must have the same task", i);
            goto fail;
        }
        if ((rc = fgl_model_spec_check(&cd->spec, err))) goto fail;
        c->spec = cd->spec;
        c->model.spec = cd->spec; /* the model is built at the start */
        /* the data, borrowed, with its split: prepared for the model at the start */
        c->data.node = cd->node;
        c->data.graphs = cd->graphs;
        c->data.link = link;
        if (c->task == FGL_TASK_LINK && (!link || !cd->node || link->n_nodes != cd->node->n_nodes)) {
            rc = fgl_error_set(err, FGL_ERR_ARG,
                               "client %d: link prediction needs node data and its edge split (fgl_client_data.link, "
                               "from fgl_link_split_make on that node data)",
                               i);
            goto fail;
        }
        if (cd->node && !link && !cd->node->split) {
            rc = fgl_error_set(err, FGL_ERR_ARG, "client %d: node data without a train/val/test split", i);
            goto fail;
        }
        if (cd->graphs && !cd->graphs->split) {
            rc = fgl_error_set(err, FGL_ERR_ARG, "client %d: graph set without a train/val/test split", i);
            goto fail;
        }
        if (cd->graphs && (!cd->graphs->x || cd->graphs->n_feat <= 0)) {
            rc =
                fgl_error_set(err, FGL_ERR_ARG, "client %d (%s): graph set without node features", i, cd->graphs->name);
            goto fail;
        }
        if (link) { /* positive pairs */
            c->n_train = link->n_pos[FGL_SPLIT_TRAIN];
            c->n_val = link->n_pos[FGL_SPLIT_VAL];
            c->n_test = link->n_pos[FGL_SPLIT_TEST];
        } else {
            int q, n = cd->node ? cd->node->n_nodes : cd->graphs->n_graphs, counts[4] = {0, 0, 0, 0};
            const unsigned char *split = cd->node ? cd->node->split : cd->graphs->split;
            for (q = 0; q < n; q++)
                if (split[q] <= 3 && (!cd->node || cd->node->y[q] >= 0)) counts[split[q]]++;
            c->n_train = counts[FGL_SPLIT_TRAIN];
            c->n_val = counts[FGL_SPLIT_VAL];
            c->n_test = counts[FGL_SPLIT_TEST];
        }
        if (c->n_train == 0) {
            rc = fgl_error_set(err, FGL_ERR_EMPTY, "client %d (%s): no training %s", i,
                               cd->node ? cd->node->name : cd->graphs->name,
                               link ? "edges" : cd->node ? "nodes" : "graphs");
            goto fail;
        }
        run->n_registered[i] = c->n_train;
        run->n_nodes[i] = cd->node ? cd->node->n_nodes : cd->graphs->n_nodes;
        fgl_rng_init(&c->rng, cfg->seed, 0x434c49454e54ull + (uint64_t)i); /* "CLIENT" + id */
    }
    fgl_rng_init(&run->server.rng, cfg->seed, 0x5345525645ull); /* "SERVE" */
    if ((rc = fgl__run_check(run, 0))) { /* tasks, models and defences against the algorithm, before any work */
        fgl_error e = run->err;         /* err may be &run->err, which fgl_run_free clears */
        fgl_run_free(run);
        if (err) *err = e;
        return rc;
    }
    return FGL_OK;
fail:
    fgl_run_free(run);
    return rc;
}

FGLDEF int fgl_run_set(fgl_run *run, const char *key, const char *value, fgl_error *err) {
    const fgl_algo *a = &run->algo;
    int i = fgl__param_index(a, key);
    if (run->started)
        return fgl_error_set(err, FGL_ERR_ARG, "%s: parameters must be set before the first round", a->name);
    if (i < 0) return fgl_error_set(err, FGL_ERR_ARG, "algorithm %s has no parameter '%s'", a->name, key);
    if (fgl_algo_param_parse(&a->params[i], value, &run->set.value[i])) {
        if (a->params[i].type == FGL_PARAM_GROUPS)
            return fgl_error_set(err, FGL_ERR_PARSE, "%s: '%s' is not a group list (all, feature, conv, struct, "
                                 "head, mask, norm, bnstat; joined by + and -)", key, value);
        if (a->params[i].type == FGL_PARAM_INT && a->params[i].choices)
            return fgl_error_set(err, FGL_ERR_PARSE, "%s: '%s' is not one of %s (or an integer)", key, value,
                                 a->params[i].choices);
        return fgl_error_set(err, FGL_ERR_PARSE, "%s: '%s' is not %s", key, value,
                             a->params[i].type == FGL_PARAM_INT ? "an integer" : "a number");
    }
    return FGL_OK;
}

FGLDEF int fgl_run_set_public(fgl_run *run, const fgl_node_data *pub, fgl_error *err) {
    if (run->started)
        return fgl_error_set(err, FGL_ERR_ARG, "%s: public data must be set before the first round", run->algo.name);
    if (pub && run->n_clients > 0 && run->clients[0].data.node && pub->n_feat != run->clients[0].data.node->n_feat)
        return fgl_error_set(err, FGL_ERR_SHAPE, "public data: %d features, the clients %d", pub->n_feat,
                             run->clients[0].data.node->n_feat);
    if (pub && pub->n_nodes > 0 && !pub->x.data && !pub->x_sparse.indptr)
        return fgl_error_set(err, FGL_ERR_ARG, "public data: no node features");
    run->pub = pub && pub->n_nodes > 0 ? pub : NULL;
    return FGL_OK;
}

FGLDEF double fgl_run_get(const fgl_run *run, const char *key) {
    int i = fgl__param_index(&run->algo, key);
    return i >= 0 ? run->set.value[i] : NAN;
}

FGLDEF int fgl_run_accepted(const fgl_run *run, int client) {
    return client >= 0 && client < run->n_clients && run->accepted[client];
}

FGLDEF void fgl_run_free(fgl_run *run) {
    int i;
    if (run->transport) run->transport->free(run); /* tells the remote side the run is over */
    for (i = 0; i < run->n_clients; i++) {
        fgl_client *c = &run->clients[i];
        fgl__store_free(&c->store);
        FGL_FREE(c->parked);
        fgl_view_free(&c->data);
        fgl_model_free(&c->model);
        fgl_optim_free(&c->optim);
        fgl_tape_free(&c->tape);
        fgl__msg_free(&c->up);
        FGL_FREE(c->span);
        fgl__sa_client_free(c);
    }
    for (i = 0; run->down && i < run->n_clients; i++) fgl__msg_free(&run->down[i]);
    fgl__store_free(&run->server.store);
    if (run->park_file) fclose(run->park_file);
    while (run->n_arenas > 0) fgl__chunks_free(run->arenas[--run->n_arenas]);
    FGL_FREE(run->arenas);
    fgl_model_free(&run->ref);
    FGL_FREE(run->clients);
    FGL_FREE(run->set.value);
    FGL_FREE(run->n_registered);
    FGL_FREE(run->n_nodes);
    FGL_FREE(run->up_len_of);
    FGL_FREE(run->up_view);
    for (i = 0; i < FGL_MSG_MAX_PARTS; i++) FGL_FREE(run->dp_out[i]);
    FGL_FREE(run->down);
    FGL_FREE(run->accepted);
    FGL_FREE(run->checked);
    FGL_FREE(run->up_norm);
    FGL_FREE(run->intact.up_sum);
    FGL_FREE(run->rejected_by);
    FGL_FREE(run->attacker);
    FGL_FREE(run->dropped);
    FGL_FREE(run->trained);
    FGL_FREE(run->lost);
    fgl__sa_free(run->sa);
    FGL_FREE(run->part);
    FGL_FREE(run->stats);
    FGL_FREE(run->client_val);
    FGL_FREE(run->client_test);
    FGL_FREE(run->client_loss);
    FGL_FREE(run->client_val_f1);
    FGL_FREE(run->client_test_f1);
    FGL_FREE(run->client_val_auc);
    FGL_FREE(run->client_test_auc);
    FGL_FREE(run->client_up);
    FGL_FREE(run->client_down);
    fgl__crypto_wipe(run->dp_key, sizeof run->dp_key); /* the server's DP key */
    memset(run, 0, sizeof *run);
}

/* --- runs: the start ----------------------------------------------------------------- */

/* Every client agrees with client 0 on the shared slices (names, shapes).
 * ref: client 0's model (built from its prepared spec); groups: the shared
 * ones; specs: every client's prepared spec, the layouts built from them
 * (a spec like the one before, or like client 0's, has its layout), or
 * NULL: the clients' models as the start built them. */
static int fgl__check_shared(fgl_run *run, const fgl_model *ref, unsigned groups, unsigned keep,
                             const fgl_model_spec *specs) {
    const fgl_params *a = &ref->params;
    int i, sa, sb;
    if (fgl_params_count_except(a, groups, keep) == 0)
        return fgl_error_set(&run->err, FGL_ERR_ARG, "%s: the shared groups%s select no parameters of client 0's model",
                             run->algo.name, keep ? " less those kept local" : "");
    for (i = 1; i < run->n_clients; i++) {
        const fgl_client *c = &run->clients[i];
        const fgl_params *b = &c->model.params;
        fgl_model tmp;
        int built = 0, rc = FGL_OK;
        if (specs || !c->local) { /* not built (hosted elsewhere): its layout from its spec */
            const fgl_model_spec *sp = specs ? &specs[i] : &c->model.spec;
            if (!memcmp(sp, &ref->spec, sizeof *sp) || (specs && !memcmp(sp, &specs[i - 1], sizeof *sp))) continue;
            if ((rc = fgl_model_init(&tmp, sp, 0, &run->err))) return rc;
            b = &tmp.params;
            built = 1;
        }
        sa = sb = 0;
        for (;;) {
            while (sa < a->n && !fgl_slice_selected(&a->slices[a->order[sa]], groups, keep)) sa++;
            while (sb < b->n && !fgl_slice_selected(&b->slices[b->order[sb]], groups, keep)) sb++;
            if (sa == a->n || sb == b->n) break;
            {
                const fgl_slice *x = &a->slices[a->order[sa]], *y = &b->slices[b->order[sb]];
                if (strcmp(x->name, y->name) || x->rows != y->rows || x->cols != y->cols) {
                    rc = fgl_error_set(&run->err, FGL_ERR_SHAPE,
                                       "%s: clients 0 and %d differ on shared parameter '%s' (%dx%d) vs '%s' (%dx%d); "
                                       "share fewer groups (e.g. share=conv) or give them the same model",
                                       run->algo.name, i, x->name, x->rows, x->cols, y->name, y->rows, y->cols);
                    break;
                }
            }
            sa++;
            sb++;
        }
        if (!rc && (sa != a->n || sb != b->n))
            rc = fgl_error_set(&run->err, FGL_ERR_SHAPE, "%s: clients 0 and %d share a different number of parameters",
                               run->algo.name, i);
        if (built) fgl_model_free(&tmp);
        if (rc) return rc;
    }
    return FGL_OK;
}

/* A model holding only spec (what the width functions read). */
static fgl_model fgl__spec_model(const fgl_model_spec *spec) {
    fgl_model m;
    memset(&m, 0, sizeof m);
    m.spec = *spec;
    return m;
}

/* The size rules' values; widths the messages use must agree across
 * clients. ref: client 0's model (its prepared spec), share: the shared
 * groups; specs: every client's prepared spec, or NULL: the clients' models. */
static int fgl__resolve_dims(fgl_run *run, const fgl_model *ref, unsigned share, unsigned keep,
                             const fgl_model_spec *specs, fgl__dims *d) {
    const fgl_algo *a = &run->algo;
    int i, p, uses_rep = 0, uses_emb = 0, uses_input = 0;
    fgl_model m0 = fgl__spec_model(specs ? &specs[0] : &run->clients[0].model.spec);
    memset(d, 0, sizeof *d);
    if (share) { /* the shared layout, from client 0's prepared spec */
        const fgl_params *ps = &ref->params;
        for (i = 0; i < ps->n; i++)
            if (fgl_slice_selected(&ps->slices[i], share, keep)) {
                d->shared += fgl_slice_size(&ps->slices[i]);
                if (ps->slices[i].trainable) d->trainable += fgl_slice_size(&ps->slices[i]);
            }
    }
    d->clients = (size_t)run->n_clients;
    d->rep = (size_t)fgl_model_rep_dim(&m0);
    d->emb = (size_t)fgl_model_emb_dim(&m0);
    d->hops = (size_t)m0.spec.layers;
    d->input = (size_t)m0.spec.in_dim;
    d->param = run->set.value;
    d->n_params = a->n_params;
    for (i = 0; i < run->n_clients; i++) {
        const fgl_model_spec *s = specs ? &specs[i] : &run->clients[i].model.spec;
        if ((size_t)s->out_dim > d->classes) d->classes = (size_t)s->out_dim;
        if ((size_t)s->layers < d->hops) d->hops = (size_t)s->layers;
    }
    d->hops += 1; /* hops 0..H */
    for (p = 0; p < a->n_up + a->n_down; p++) {
        const fgl_part *q = p < a->n_up ? &a->up[p] : &a->down[p - a->n_up];
        int k, rule[2];
        uses_rep |= q->rows == FGL_DIM_REP || q->cols == FGL_DIM_REP;
        uses_emb |= q->rows == FGL_DIM_EMB || q->cols == FGL_DIM_EMB;
        uses_input |= q->rows == FGL_DIM_INPUT || q->cols == FGL_DIM_INPUT;
        if (p >= a->n_up && fgl__per_client(q) && q->from)
            return fgl_error_set(&run->err, FGL_ERR_ARG, "%s: download part '%s' is sized by the client's nodes; "
                                 "such a part is written by the download hook, not sent from a server buffer",
                                 a->name, q->name);
        rule[0] = q->rows;
        rule[1] = q->cols;
        for (k = 0; k < 2; k++) {
            int pi = FGL__DIM_PARAM0 - rule[k];
            double v;
            if (rule[k] > FGL__DIM_PARAM0) continue;
            if (pi >= a->n_params || a->params[pi].type != FGL_PARAM_INT)
                return fgl_error_set(&run->err, FGL_ERR_ARG, "%s: part '%s' is sized by an unknown parameter", a->name,
                                     q->name);
            v = run->set.value[pi];
            if (!(v >= 1 && v <= 2147483647.0))
                return fgl_error_set(&run->err, FGL_ERR_ARG,
                                     "%s: part '%s' is sized by parameter %s = %g; it must be a "
                                     "positive integer",
                                     a->name, q->name, a->params[pi].name, v);
        }
    }
    for (i = 1; i < run->n_clients; i++) {
        fgl_model mi = fgl__spec_model(specs ? &specs[i] : &run->clients[i].model.spec);
        const fgl_model *m = &mi;
        if (uses_rep && (size_t)fgl_model_rep_dim(m) != d->rep)
            return fgl_error_set(
                &run->err, FGL_ERR_SHAPE,
                "%s: client %d represents samples in %d dimensions, client 0 in %zu; the messages need "
                "one width (give the models the same hidden size)",
                a->name, i, fgl_model_rep_dim(m), d->rep);
        if (uses_emb && (size_t)fgl_model_emb_dim(m) != d->emb)
            return fgl_error_set(&run->err, FGL_ERR_SHAPE, "%s: client %d embeds in %d dimensions, client 0 in %zu",
                                 a->name, i, fgl_model_emb_dim(m), d->emb);
        if (uses_input && (size_t)m->spec.in_dim != d->input)
            return fgl_error_set(&run->err, FGL_ERR_SHAPE, "%s: client %d has %d input features, client 0 %zu; the "
                                 "messages need one width", a->name, i, m->spec.in_dim, d->input);
    }
    return FGL_OK;
}

/* The error of a parameter read but not declared (fgl_get), or FGL_OK. */
static int fgl__unknown_param(fgl_run *run) {
    if (!run->unknown_param[0]) return FGL_OK;
    return fgl_error_set(&run->err, FGL_ERR_ARG, "%s reads the parameter '%s', which it does not declare "
                         "(fgl_algo_param_add; its parameters are what --help lists)", run->algo.name, run->unknown_param);
}

/* Run a client hook and reset the client's scratch memory after it. */
static int fgl__client_hook(fgl_client *c, int (*hook)(fgl_client *)) {
    int rc = hook ? hook(c) : FGL_OK;
    fgl_tape_reset(&c->store.scratch);
    if (!rc && c->store.err) rc = c->store.err;
    if (!rc && c->set && c->set->unknown && c->set->unknown[0])
        return fgl_client_fail(c, FGL_ERR_ARG, "%s reads the parameter '%s', which it does not declare "
                               "(fgl_algo_param_add)", c->algo ? c->algo->name : "the algorithm", c->set->unknown);
    if (rc && !c->error) fgl_client_fail(c, rc, "%s", fgl_result_name(rc));
    return rc;
}

static int fgl__client_error(fgl_run *run, const fgl_client *c, const char *when) {
    return fgl_error_set(&run->err, c->error ? c->error : FGL_ERR_ARG, "%s, round %d, client %d (%s): %s",
                         run->algo.name, run->round + 1, c->id, when, c->msg);
}

static int fgl__server_error(fgl_run *run, int rc, const char *when) {
    fgl_server *s = &run->server;
    if (!s->error) s->error = rc;
    return fgl_error_set(&run->err, s->error, "%s, round %d, server (%s): %s", run->algo.name, run->round + 1, when,
                         s->msg[0] ? s->msg : fgl_result_name(s->error));
}

/* Build the downloads of the clients in run->part (the next round's
 * participants) from the server's state; count their bytes when `count`. */
static int fgl__build_downloads(fgl_run *run, int count) {
    fgl_server *s = &run->server;
    const fgl_algo *a = &run->algo;
    size_t bytes = 0;
    int q, i, p, rc;
    for (q = 0; q < run->n_part; q++) { /* the next round's participants: nothing is sent to the others */
        fgl_msg *m = &run->down[i = run->part[q]];
        m->decl = a->down;
        m->n_parts = a->n_down;
        fgl__msg_clear(m);
        for (p = 0; p < a->n_down; p++) {
            const fgl_part *d = &a->down[p];
            fgl__entry *e;
            size_t need = s->down_len[p] * (d->flags & FGL_PART_ROW ? (size_t)run->n_clients : 1);
            if (!d->from) continue;
            e = fgl__store_find(&s->store, d->from, FGL__E_FLOATS);
            if (!e || e->n != need)
                return fgl_server_fail(s, FGL_ERR_SHAPE,
                                       "download part '%s': server buffer '%s' %s (%zu floats, %zu needed)", d->name,
                                       d->from, e ? "has another size" : "does not exist", e ? e->n : 0, need);
            m->part[p] = (const float *)e->p + (d->flags & FGL_PART_ROW ? (size_t)i * s->down_len[p] : 0);
            m->len[p] = s->down_len[p];
        }
        if (a->download && (rc = a->download(s, i, m))) {
            fgl_tape_reset(&s->store.scratch);
            return fgl_server_fail(s, rc, "download of client %d: %s", i, fgl_result_name(rc));
        }
        fgl_tape_reset(&s->store.scratch);
        for (p = 0; p < a->n_down; p++)
            if (!m->part[p] && !(a->down[p].flags & FGL_PART_OPTIONAL))
                return fgl_server_fail(s, FGL_ERR_ARG, "download of client %d lacks part '%s'", i, a->down[p].name);
        if (count && !run->lost[i]) { /* a lost client's host is not sent anything */
            size_t b = fgl_msg_bytes(m);
            bytes += b;
            run->client_down[(size_t)run->round * run->n_clients + i] += b;
        }
    }
    if (count) {
        run->bytes_down += bytes;
        run->stats[run->round].bytes_down += bytes;
    }
    fgl__downs_built(run); /* the checksums of parts sent whole (intact.h) */
    return FGL_OK;
}

/* --- runs: downloads received, defences armed, fgl_run_start ---------------------- */

/* Client side of a download: check it against the declaration, load the
 * model parts, call the receive hook. */
static void fgl__receive(fgl_run *run, fgl_client *c, int call_hook) {
    const fgl_msg *m = &run->down[c->id];
    int p;
    if (call_hook && (p = fgl__unpark(run, c)) != FGL_OK) {
        fgl_client_fail(c, p, "cannot restore its packed state (%s)", fgl_result_name(p));
        return;
    }
    if (call_hook) /* the parameters change: an upload part viewing them ends (the server has read it) */
        for (p = 0; p < FGL_MSG_MAX_PARTS; p++)
            if (c->up.part[p] && c->up.part[p] != c->up.own[p]) {
                c->up.part[p] = NULL;
                c->up.len[p] = 0;
            }
    c->down = *m; /* a view: the client reads, never frees */
    memset(c->down.own, 0, sizeof c->down.own);
    memset(c->down.cap, 0, sizeof c->down.cap);
    for (p = 0; p < m->n_parts; p++) {
        if (!m->part[p]) continue;
        if (m->len[p] != c->down_len[p]) {
            fgl_client_fail(c, FGL_ERR_SHAPE, "download part '%s' has %zu floats, expected %zu", m->decl[p].name,
                            m->len[p], c->down_len[p]);
            return;
        }
        if (call_hook && m->decl[p].kind == FGL_SEND_MODEL) fgl_client_unpack(c, &c->model.params, m->part[p]);
    }
    if (run->intact.user_hooks & FGL__HOOKS_DOWN) fgl__down_sums(run, c, c->down_sum); /* as received (intact.h) */
    if (call_hook && !fgl__client_hook(c, run->algo.receive) && (run->intact.user_hooks & FGL__HOOK_RECEIVE))
        fgl__down_intact(run, c, "the receive hook");
}

static int fgl__sample_participants(fgl_run *run, int round);
static void fgl__trim_idle(fgl_run *run);
static int fgl__memory_check(fgl_run *run, const fgl_model_spec *specs); /* (budget.h) */
static int fgl__defences_check(fgl_run *run);                             /* (refusals.h) */

/* Server side: round `round`'s participants are drawn, and only they get
 * a download (all clients when cfg.frac is 1; with DP, a Poisson draw that
 * may be empty). */
static int fgl__next_downloads(fgl_run *run, int round) {
    if (fgl__sample_participants(run, round)) return fgl_error_set(&run->err, FGL_ERR_NOMEM, "run: out of memory");
    if (fgl__build_downloads(run, 1)) return fgl__server_error(run, run->server.error, "download");
    return FGL_OK;
}

/* Client side: the local ones among them apply their downloads. */
static int fgl__phase_receive(fgl_run *run) {
    int q;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(FGL__NTHREADS_FOR(run, run->n_part))
#endif
    for (q = 0; q < run->n_part; q++)
        if (run->clients[run->part[q]].local) fgl__receive(run, &run->clients[run->part[q]], 1);
    for (q = 0; q < run->n_part; q++)
        if (run->clients[run->part[q]].error) return fgl__client_error(run, &run->clients[run->part[q]], "receive");
    return FGL_OK;
}

/* The run's defences, attacks and privacy at the start: checked
 * (fgl__defences_check), then the attackers (drawn from the run seed) and
 * the random streams they use (checkpointed). */
static int fgl__defences_start(fgl_run *run) {
    const fgl_fed_config *c = &run->cfg;
    int i, rc;
    if ((rc = fgl__defences_check(run))) return rc;
    if ((c->dp.clip > 0 || c->secagg.on) && (rc = fgl__secrets_start(run))) return rc;
    if (c->attack.kind != FGL_ATTACK_NONE && c->attack.frac > 0) {
        int n = (int)(c->attack.frac * run->n_clients + 0.5f), *pick;
        fgl_rng r;
        pick = (int *)fgl__zalloc(sizeof(int) * (size_t)run->n_clients);
        if (!pick) return fgl_error_set(&run->err, FGL_ERR_NOMEM, "out of memory");
        fgl_rng_init(&r, c->seed, 0x41545441434bull); /* "ATTACK" */
        if (fgl_rng_sample(&r, run->n_clients, n, pick)) n = -1;
        for (i = 0; i < n; i++) {
            fgl_client *cl = &run->clients[pick[i]];
            run->attacker[pick[i]] = 1;
            cl->attacker = 1;
            if (c->attack.kind == FGL_ATTACK_NOISE &&
                !fgl__new_rng(&cl->store, "attack_rng", c->seed, 0x4e4f495345ull + (uint64_t)cl->id))
                n = -1;
        }
        FGL_FREE(pick);
        if (n < 0) return fgl_error_set(&run->err, FGL_ERR_NOMEM, "out of memory");
    }
    return FGL_OK;
}

/* The declared sizes of a client's messages. */
static void fgl__client_sizes(fgl_run *run, fgl_client *c, const fgl__dims *dims) {
    fgl__dims d = *dims;
    int p;
    d.nodes = (size_t)run->n_nodes[c->id];
    for (p = 0; p < run->algo.n_up; p++) {
        c->up_len[p] = fgl__part_size(&d, &run->algo.up[p]);
        run->up_len_of[(size_t)c->id * FGL_MSG_MAX_PARTS + p] = c->up_len[p];
    }
    for (p = 0; p < run->algo.n_down; p++) c->down_len[p] = fgl__part_size(&d, &run->algo.down[p]);
    c->up.decl = run->algo.up;
    c->up.n_parts = run->algo.n_up;
    fgl__dims_fill(&d, c->dim);
}

/* Client i's model spec as the algorithm prepares it (prepare_spec:
 * FedStar's decoupled model, FED-PUB's masks ...), from the spec it was
 * given. The hook is also the algorithm's check of the client's task and
 * model: its refusal names the client. */
static int fgl__prepared_spec(fgl_run *run, int i, fgl_model_spec *spec) {
    int rc;
    *spec = run->clients[i].spec;
    if (!run->algo.prepare_spec || !(rc = run->algo.prepare_spec(&run->set, spec, &run->err))) return FGL_OK;
    {
        char msg[FGL_ERROR_MSG_LEN]; /* say whose model */
        const fgl_client *c = &run->clients[i];
        const char *what = c->task == FGL_TASK_NODE    ? "node classification"
                           : c->task == FGL_TASK_LINK ? "link prediction"
                                                      : "graph classification";
        const char *name = c->data.node ? c->data.node->name : c->data.graphs ? c->data.graphs->name : "";
        size_t nl = strlen(run->algo.name);
        snprintf(msg, sizeof msg, "%s", run->err.msg);
        return fgl_error_set(&run->err, rc, "%s%s%s (client %d: %s data%s%s, model %s)",
                             strncmp(msg, run->algo.name, nl) == 0 && msg[nl] == ':' ? "" : run->algo.name,
                             strncmp(msg, run->algo.name, nl) == 0 && msg[nl] == ':' ? "" : ": ", msg, i, what,
                             *name ? " " : "", name, fgl_arch_name(spec->arch));
    }
}

/* A link-prediction run (src/gnn/link.h) has no classes: an algorithm that
 * exchanges something per class (prototypes, class counts: a message part
 * sized by FGL_DIM_CLASSES) and the label-flipping attack are refused by
 * name. Algorithms that train through the loss hook and send weights run
 * unchanged; those whose own checks refuse the task (prepare_spec: FedStar,
 * GPFL, pFedGNN) say so themselves. */
static int fgl__link_check(fgl_run *run) {
    const fgl_algo *a = &run->algo;
    int q;
    for (q = 0; q < a->n_up + a->n_down; q++) {
        const fgl_part *p = q < a->n_up ? &a->up[q] : &a->down[q - a->n_up];
        if (p->rows == FGL_DIM_CLASSES || p->cols == FGL_DIM_CLASSES)
            return fgl_error_set(&run->err, FGL_ERR_ARG,
                                 "%s: not for link prediction: it exchanges per-class data (its %s part '%s' is sized "
                                 "by the classes), and a link task has no classes",
                                 a->name, q < a->n_up ? "upload" : "download", p->name);
    }
    if (run->cfg.attack.kind == FGL_ATTACK_LABELFLIP && run->cfg.attack.frac > 0)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "run: the label-flipping attack needs class labels; a link task has none");
    return FGL_OK;
}

/* fgl_run_check's checks (full) or fgl_run_init's (those that do not
 * depend on the parameters), in run->err. */
static int fgl__run_check(fgl_run *run, int full) {
    fgl_model_spec *specs;
    fgl_model ref;
    fgl__dims dims;
    int i, rc, weights = fgl_algo_shares_weights(&run->algo);
    unsigned share = weights ? fgl__share_of(&run->algo, run->set.value) : 0u;
    unsigned keep = weights ? fgl__keep_of(&run->algo, run->set.value) : 0u;
    if (!run->clients) return fgl_error_set(&run->err, FGL_ERR_ARG, "run: not initialised");
    if ((rc = fgl__config_check(&run->cfg, &run->err))) return rc;
    if (run->clients[0].task == FGL_TASK_LINK && (rc = fgl__link_check(run))) return rc;
    specs = (fgl_model_spec *)FGL_MALLOC(sizeof(fgl_model_spec) * (size_t)run->n_clients);
    if (!specs) return fgl_error_set(&run->err, FGL_ERR_NOMEM, "run: out of memory");
    for (i = 0; i < run->n_clients && !rc; i++)
        if (!(rc = fgl__prepared_spec(run, i, &specs[i])) && (rc = fgl_model_spec_check(&specs[i], &run->err))) {
            char msg[FGL_ERROR_MSG_LEN];
            snprintf(msg, sizeof msg, "%s", run->err.msg);
            fgl_error_set(&run->err, rc, "%s: client %d's model as %s prepares it: %s", run->algo.name, i,
                          run->algo.name, msg);
        }
    if (!rc) rc = fgl__defences_check(run);
    if (!rc) rc = fgl__memory_check(run, specs);
    if (!rc && full) {
        if (!(rc = fgl_model_init(&ref, &specs[0], run->cfg.seed, &run->err))) {
            if (weights) rc = fgl__check_shared(run, &ref, share, keep, specs);
            if (!rc) rc = fgl__resolve_dims(run, &ref, share, keep, specs, &dims);
            fgl_model_free(&ref);
        }
    }
    FGL_FREE(specs);
    return rc;
}

FGLDEF int fgl_run_check(fgl_run *run) { return run->started ? FGL_OK : fgl__run_check(run, 1); }

FGLDEF int fgl_run_start(fgl_run *run) {
    fgl_server *s = &run->server;
    fgl__dims dims;
    int i, p, rc, weights = fgl_algo_shares_weights(&run->algo), idle_parks = run->cfg.park_idle && run->cfg.frac < 1;
    unsigned share = weights ? fgl__share_of(&run->algo, run->set.value) : 0u;
    unsigned keep = weights ? fgl__keep_of(&run->algo, run->set.value) : 0u;
    if (run->started) return FGL_OK;
    if (!run->clients) return fgl_error_set(&run->err, FGL_ERR_ARG, "run: not initialised");
    if ((rc = fgl__run_check(run, 1))) return rc; /* every refusal before anything is built */
    run->t_start = fgl_now();
    run->intact.user_hooks = fgl__user_hooks(&run->algo); /* what the runtime checks (src/fed/intact.h) */
    for (i = 0; i < run->n_clients; i++) {
        fgl_client *c = &run->clients[i];
        fgl_model_spec spec;
        fgl_node_data *node = c->data.node;
        fgl_graph_set *graphs = c->data.graphs;
        c->fed = &run->cfg;
        c->set = &run->set;
        c->algo = &run->algo;
        c->share = share;
        c->keep = keep;
        if ((rc = fgl__prepared_spec(run, i, &spec))) return rc;
        /* the server's view of the setup: the common initial model (client 0's) */
        if (i == 0 && (rc = fgl_model_init(&run->ref, &spec, run->cfg.seed, &run->err))) return rc;
        if (!c->local) { /* hosted elsewhere: only the prepared spec is known here */
            c->model.spec = spec;
            continue;
        }
        if ((rc = fgl_model_init(&c->model, &spec, run->cfg.seed, &run->err))) return rc;
        if (c->task == FGL_TASK_LINK) {
            const fgl_link_split *link = c->data.link;
            if ((rc = fgl_view_init_link(&c->data, node, link, &spec, &run->err))) return rc;
        } else if ((rc = fgl_view_init(&c->data, node, graphs, &spec, run->cfg.eval_batch, &run->err))) {
            return rc;
        }
        if ((rc = fgl_optim_init(&c->optim, run->cfg.optim, &c->model.params)) || (rc = fgl__client_spans(c)))
            return fgl_error_set(&run->err, rc, "client %d: out of memory", i);
        /* what every client has, checkpointed with the algorithm's state */
        fgl__store_add(&c->store, "model", FGL__E_MODEL, &c->model, 0, 0);
        fgl__store_add(&c->store, "optim", FGL__E_OPTIM, &c->optim, 0, 0);
        fgl__store_add(&c->store, "rng", FGL__E_RNG, &c->rng, 0, 0);
        if (c->task == FGL_TASK_GRAPH) /* graph clients reshuffle their training order in place */
            fgl__store_add(&c->store, "train_order", FGL__E_INTS, c->data.ids[FGL_SPLIT_TRAIN],
                           (size_t)c->data.count[FGL_SPLIT_TRAIN], 0);
        if (c->store.err) return fgl_error_set(&run->err, c->store.err, "client %d: out of memory", i);
        if (idle_parks) fgl__park(run, c); /* all are idle until the first draw */
    }
    s->n_clients = run->n_clients;
    s->fed = &run->cfg;
    s->set = &run->set;
    s->algo = &run->algo;
    s->share = share;
    s->keep = keep;
    s->init = &run->ref.params;
    s->spec = &run->ref.spec;
    s->n_registered = run->n_registered;
    s->n_nodes = run->n_nodes;
    s->pub = run->pub;
    s->up_len_of = run->up_len_of;
    s->up = run->up_view;
    s->down = run->down;
    /* (the shared layouts were checked before anything was built: fgl__run_check) */
    if ((rc = fgl__resolve_dims(run, &run->ref, share, keep, NULL, &dims))) return rc;
    s->n_shared = dims.shared;
    s->n_trainable = dims.trainable;
    for (p = 0; p < run->algo.n_up; p++) s->up_len[p] = fgl__part_size(&dims, &run->algo.up[p]);
    for (p = 0; p < run->algo.n_down; p++) s->down_len[p] = fgl__part_size(&dims, &run->algo.down[p]);
    fgl__dims_fill(&dims, s->dim);
    for (i = 0; i < run->n_clients; i++) fgl__client_sizes(run, &run->clients[i], &dims);
    fgl__store_add(&s->store, "rng", FGL__E_RNG, &s->rng, 0, 0);
    s->dropped = run->dropped;
    s->dp_key = run->dp_key;
    if ((rc = fgl__defences_start(run))) return rc;
    run->started = 1;
    if (run->role != FGL__ROLE_CLIENTS && run->algo.server_init) {
        rc = run->algo.server_init(s);
        fgl_tape_reset(&s->store.scratch);
        if (rc || s->store.err) return fgl__server_error(run, rc ? rc : s->store.err, "initialisation");
    }
    for (i = 0; i < run->n_clients; i++) {
        fgl_client *c = &run->clients[i];
        if (!c->local || !run->algo.client_init) continue;
        if ((rc = fgl__unpark(run, c)))
            return fgl_error_set(&run->err, rc, "client %d: cannot restore its packed state (%s)", i,
                                 fgl_result_name(rc));
        if (fgl__client_hook(c, run->algo.client_init)) return fgl__client_error(run, c, "initialisation");
        if (idle_parks) fgl__park(run, c);
    }
    if ((rc = fgl__unknown_param(run))) return rc; /* read by a spec, size or init hook */
    if (run->role == FGL__ROLE_CLIENTS) return FGL_OK; /* the first downloads come from the server */
    if ((rc = fgl__next_downloads(run, 0)) || (rc = fgl__phase_receive(run)) || (rc = fgl__unknown_param(run)))
        return rc;
    fgl__trim_idle(run);
    return run->transport ? run->transport->start(run) : FGL_OK;
}

/* --- runs: rounds ----------------------------------------------------------------------- */

/* 1 if round r (0-based) is evaluated. */
static int fgl__evaluated(const fgl_run *run, int r) {
    return run->cfg.eval_every <= 1 || (r + 1) % run->cfg.eval_every == 0 || r + 1 == run->cfg.rounds;
}

/* Validation and test accuracy of the model a client deploys. */
/* The accuracy of class scores (n x C) on the nodes of mask with a label:
 * 0 when it has none, as fgl_model_evaluate and the model path below (a
 * client without validation or test nodes, as a small Louvain community on
 * a dataset's fixed split can be, is no failed evaluation; -1 meant that,
 * and stopped such a run with an empty reason). */
static double fgl__scores_accuracy(const float *sc, int n, int C, const int *y, const unsigned char *mask) {
    int i, k, hit = 0, count = 0;
    for (i = 0; i < n; i++) {
        const float *r = sc + (size_t)i * (size_t)C;
        int best = 0;
        if ((mask && !mask[i]) || y[i] < 0) continue;
        for (k = 1; k < C; k++)
            if (r[k] > r[best]) best = k;
        hit += best == y[i];
        count++;
    }
    return count ? (double)hit / count : 0.0;
}

static void fgl__client_evaluate(fgl_run *run, fgl_client *c) {
    fgl_model *m;
    static const int which[2] = {FGL_SPLIT_VAL, FGL_SPLIT_TEST};
    double acc[2], hits[2] = {NAN, NAN}, f1[2] = {NAN, NAN}, auc[2] = {NAN, NAN}; /* NaN unless computed */
    if (run->algo.eval_scores && c->data.task == FGL_TASK_NODE && c->data.node) {
        const float *sc = fgl__eval_scores(run, c); /* checked: intact.h */
        if (sc) {
            int q, C = c->model.spec.out_dim;
            for (q = 0; q < 2; q++) {
                acc[q] = fgl__scores_accuracy(sc, c->data.node->n_nodes, C, c->data.node->y, c->data.mask[which[q]]);
                if (fgl_class_metrics(sc, c->data.node->n_nodes, C, c->data.node->y, c->data.mask[which[q]], f1 + q,
                                      auc + q)) {
                    acc[q] = -1; /* out of memory: a failed evaluation, with its reason */
                    fgl_tape_fail(&c->tape, FGL_ERR_NOMEM, "out of memory for the class metrics");
                }
            }
            c->val_acc = acc[0];
            c->test_acc = acc[1];
            c->val_hits = c->test_hits = NAN;
            c->val_f1 = f1[0];
            c->test_f1 = f1[1];
            c->val_auc = auc[0];
            c->test_auc = auc[1];
            return;
        }
    }
    m = run->algo.eval_model ? fgl__eval_model(run, c) : &c->model; /* checked: intact.h */
    if (!m || fgl_view_class_metrics(&c->data, m, &c->tape, which, 2, acc, hits, f1, auc)) acc[0] = acc[1] = -1;
    c->val_acc = acc[0]; /* link tasks: NaN for a split without pairs */
    c->test_acc = acc[1];
    c->val_hits = hits[0];
    c->test_hits = hits[1];
    c->val_f1 = f1[0];
    c->test_f1 = f1[1];
    c->val_auc = auc[0];
    c->test_auc = auc[1];
}

/* Train, then build the upload: the runtime's parts, then the algorithm's. */
static int fgl__client_round(fgl_run *run, fgl_client *c) {
    const fgl_algo *a = &run->algo;
    int p, rc;
    c->error = 0;
    c->msg[0] = 0;
    c->round = run->round;
    fgl__msg_clear(&c->up);
    if ((rc = fgl__unpark(run, c)))
        return fgl_client_fail(c, rc, "cannot restore its packed state (%s)", fgl_result_name(rc));
    rc = a->local_train ? fgl__client_hook(c, a->local_train) : fgl_client_train(c, &c->model, &c->optim, &a->train);
    if (rc || c->error) return c->error ? c->error : rc;
    if ((run->intact.user_hooks & FGL__HOOK_TRAIN) &&
        (rc = fgl__down_intact(run, c, a->local_train ? "the local_train hook" : "a training hook")))
        return rc;
    for (p = 0; p < a->n_up; p++) {
        const fgl_part *d = &a->up[p];
        float *x;
        if (d->kind == FGL_SEND_DATA && (d->flags & FGL_PART_OPTIONAL)) continue; /* allocated by fgl_up */
        if (d->kind == FGL_SEND_MODEL && c->n_span == 1 && c->span[0].len == c->up_len[p]) {
            /* the shared groups are one run of the parameters: the part views
             * them, nothing is copied unless something writes it (fgl_up,
             * attacks, DP, secure aggregation: fgl__msg_write) */
            c->up.part[p] = c->model.params.data + c->span[0].offset;
            c->up.len[p] = c->up_len[p];
            continue;
        }
        if (!(x = fgl__msg_own(&c->up, p, c->up_len[p]))) return fgl_client_fail(c, FGL_ERR_NOMEM, "out of memory");
        if (d->kind == FGL_SEND_MODEL || d->kind == FGL_SEND_DELTA) fgl_client_pack(c, &c->model.params, x);
        if (d->kind == FGL_SEND_DELTA) {
            const float *r = fgl_received(c);
            size_t j;
            if (!r) return fgl_client_fail(c, FGL_ERR_ARG, "upload part '%s': no model was received", d->name);
            for (j = 0; j < c->up_len[p]; j++) x[j] -= r[j];
        }
        if (d->kind == FGL_SEND_WEIGHT) x[0] = (float)c->n_train;
    }
    if (fgl__client_hook(c, a->upload)) return c->error;
    if ((run->intact.user_hooks & FGL__HOOK_UPLOAD) && (rc = fgl__down_intact(run, c, "the upload hook"))) return rc;
    if ((rc = fgl__client_transform(run, c))) return rc;
    fgl_tape_reset(&c->store.scratch);
    if (run->cfg.eval_after_train && fgl__evaluated(run, run->round)) fgl__client_evaluate(run, c);
    return FGL_OK;
}

/* Whether client c's upload is well formed: every declared part there at
 * its declared size, every value finite, the sample count positive and at
 * most what the client registered. With norms (screening), the update norm
 * of each weights part goes to norms[p], measured in the same pass as the
 * finiteness check. */
static int fgl__validate(const fgl_run *run, const fgl_client *c, double *norms) {
    int p;
    if (c->error || c->wire_error) return 0;
    for (p = 0; p < run->algo.n_up; p++) {
        const fgl_part *d = &run->algo.up[p];
        if (!c->up.part[p]) {
            if (!(d->flags & FGL_PART_OPTIONAL)) return 0;
            continue;
        }
        if (c->up.len[p] != c->up_len[p]) return 0;
        if (run->cfg.secagg.on && (d->kind == FGL_SEND_MODEL || d->kind == FGL_SEND_WEIGHT))
            continue; /* masked ring values */
        if (norms && fgl__weights_part(d)) {
            if (!fgl__finite_update_norm(c->up.part[p], fgl__ref_of(&run->down[c->id], d), c->up.len[p], &norms[p]))
                return 0;
        } else if (!fgl_all_finite(c->up.len[p], c->up.part[p]))
            return 0;
        if (d->kind == FGL_SEND_WEIGHT &&
            !(c->up.part[p][0] > 0 && c->up.part[p][0] <= (float)run->n_registered[c->id]))
            return 0;
    }
    return 1;
}

static int fgl__sample_participants(fgl_run *run, int round) {
    int i, j, n = (int)(run->cfg.frac * run->n_clients + 0.5f);
    n = FGL__MAX(1, FGL__MIN(n, run->n_clients));
    if (run->cfg.dp.clip > 0) { /* DP-FedAvg: Poisson sampling at rate frac, from the server's secret */
        run->n_part = fgl__poisson_participants(run, round);
        return FGL_OK;
    }
    if (n == run->n_clients) {
        for (i = 0; i < n; i++) run->part[i] = i;
    } else {
        if (fgl_rng_sample(&run->server.rng, run->n_clients, n, run->part)) return FGL_ERR_NOMEM;
        for (i = 1; i < n; i++) /* increasing id order; insertion sort: n is small */
            for (j = i; j > 0 && run->part[j - 1] > run->part[j]; j--) {
                int tmp = run->part[j];
                run->part[j] = run->part[j - 1];
                run->part[j - 1] = tmp;
            }
    }
    run->n_part = n;
    return FGL_OK;
}

/* The phases of a round, split by side so that a transport (FGL_MPI) can
 * run the client phases where the clients live and the server phases on
 * the server; fgl_run_round runs them all in this process. */

/* (schedule.h) */
static void fgl__run_clients(fgl_run *run, const int *ids, int n, const int *splits, int n_splits, int phase,
                             void (*step)(fgl_run *, fgl_client *, const void *), const void *ctx);


/* The server's check of client c's upload (well formed, and its update
 * norms when screening is on), once per round: as soon as the upload is
 * final, where it was built, while it is still in that core's cache; or in
 * the server phase for an upload that came over a transport or that the
 * ALIE attack rewrote. */
static void fgl__check_upload(fgl_run *run, const fgl_client *c) {
    int screen = run->cfg.robust.screen > 0 && !run->cfg.secagg.on;
    run->checked[c->id] =
        fgl__validate(run, c, screen ? run->up_norm + (size_t)c->id * FGL_MSG_MAX_PARTS : NULL) ? 1 : 2;
    if (run->checked[c->id] == 1 && (run->intact.user_hooks & FGL__HOOK_AGGREGATE))
        fgl__upload_sums(run, c); /* what the server reads only: checked after aggregation */
}

static void fgl__round_step(fgl_run *run, fgl_client *c, const void *unused) {
    (void)unused;
    run->checked[c->id] = 0;
    if (!c->local) return;
    fgl__client_round(run, c);
    if (run->cfg.attack.kind != FGL_ATTACK_ALIE &&
        run->role != FGL__ROLE_CLIENTS) /* a clients-only rank sends it: the server checks */
        fgl__check_upload(run, c);
}

/* Client side: the local participants train and build their uploads, on
 * fgl__run_clients' schedule (fgl.h's kernels run in parallel outside a
 * parallel region, on omp_get_max_threads() threads: fglrun sets that to
 * --threads; a program setting only cfg.threads should call
 * omp_set_num_threads too). */
static void fgl__phase_train(fgl_run *run) {
    static const int train[1] = {FGL_SPLIT_TRAIN};
    fgl__run_clients(run, run->part, run->n_part, train, 1, 0, fgl__round_step, NULL);
}

/* Server side, from the uploads to the next downloads: checks, defences,
 * aggregation, the next participants and their downloads. */
static int fgl__phase_server(fgl_run *run, fgl_round_stats *st) {
    fgl_server *s = &run->server;
    int i, n = run->n_part, rc, rejected = 0, n_ok = 0, sa_off;
    double loss = 0;
    for (i = 0; i < n; i++) {
        fgl_client *c = &run->clients[run->part[i]];
        if (c->error && c->error != FGL_ERR_NONFINITE) return fgl__client_error(run, c, "training and upload");
    }
    if (run->cfg.attack.kind == FGL_ATTACK_ALIE && (rc = fgl__alie(run))) return rc;
    if (run->cfg.secagg.on) fgl__secagg_dropouts(run, st);
    sa_off = run->cfg.secagg.on && (!run->sa || !run->sa->ready);
    /* the uploads not checked where they were built, in parallel */
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(FGL__NTHREADS_FOR(run, n))
#endif
    for (i = 0; i < n; i++)
        if (!run->checked[run->part[i]]) fgl__check_upload(run, &run->clients[run->part[i]]);
    for (i = 0; i < n; i++) {
        int id = run->part[i];
        run->accepted[id] = !run->dropped[id] && !run->lost[id] && run->checked[id] == 1;
        run->checked[id] = 0;
    }
    for (i = 0; i < n; i++) {
        fgl_client *c = &run->clients[run->part[i]];
        size_t k = (size_t)run->round * run->n_clients + c->id;
        st->bytes_up += fgl_msg_bytes(&c->up);
        run->client_up[k] += fgl_msg_bytes(&c->up);
        run->client_loss[k] = run->cfg.secagg.on ? NAN : c->train_loss; /* secagg: inside step 5's sum */
        st->n_lost += run->lost[c->id];
    }
    if (run->cfg.robust.screen > 0 && !run->cfg.secagg.on && (rc = fgl__screen(run, st)) < 0) return rc;
    for (i = 0; i < n; i++) {
        const fgl_client *c = &run->clients[run->part[i]];
        if (run->dropped[c->id] || run->lost[c->id] || sa_off) continue; /* dropped out, lost, withheld: not rejected */
        if (!run->accepted[c->id]) {
            rejected++;
            run->rejected_by[c->id]++;
            st->n_out_of_range += run->cfg.secagg.on && fgl__sa_out_of_range(c);
        } else {
            loss += run->cfg.secagg.on ? 0 : c->train_loss;
            n_ok++;
        }
    }
    if (run->cfg.secagg.on && (rc = fgl__secagg_unmask(run, st))) return rc; /* its reveals are uploads too */
    run->bytes_up += st->bytes_up;
    run->rejected_total += rejected;
    st->n_part = n;
    st->n_rejected = rejected;
    st->train_loss = n_ok ? loss / n_ok : NAN;
    s->round = run->round;
    s->n_accepted = n_ok;
    s->n_clipped = 0;
    s->n_fallback = 0;
    for (i = 0; i < run->n_clients; i++) run->up_view[i] = run->accepted[i] ? &run->clients[i].up : NULL;
    if (run->cfg.dp.clip > 0 && fgl__dp_release(run, st)) return fgl__server_error(run, s->error, "noise");
    if (run->cfg.dp.clip > 0 || run->cfg.secagg.on) { /* the hook is handed the runtime's means, no upload */
        for (i = 0; i < run->n_clients; i++) run->up_view[i] = NULL;
        if (run->cfg.dp.clip > 0) s->n_accepted = 0; /* who took part is the mechanism's secret */
    }
    if (run->algo.aggregate) {
        rc = run->algo.aggregate(s);
        if (rc == FGL_ERR_EMPTY) rc = FGL_OK; /* nothing accepted: the state stays (fgl_algo.aggregate) */
        fgl_tape_reset(&s->store.scratch);
        if (rc || s->error || s->store.err)
            return fgl__server_error(run, rc ? rc : s->error ? s->error : s->store.err, "aggregation");
        if ((run->intact.user_hooks & FGL__HOOK_AGGREGATE) && (rc = fgl__uploads_intact(run)))
            return fgl__server_error(run, rc, "aggregation");
    }
    if (run->cfg.dp.clip > 0 && fgl__dp_released(run)) return fgl__server_error(run, s->error, "aggregation");
    st->n_clipped = s->n_clipped;
    s->secagg_sum = NULL;
    st->n_fallback = s->n_fallback;
    for (i = 0; i < run->n_clients; i++) run->up_view[i] = NULL; /* uploads are seen during aggregation only */
    memset(run->trained, 0, (size_t)run->n_clients);
    for (i = 0; i < n; i++) run->trained[run->part[i]] = 1;
    return fgl__next_downloads(run, run->round + 1);
}

/* With partial participation (cfg.frac < 1) a client that sits out the
 * next round returns its tape's arena (the largest part of an idle
 * client's memory) once its work in this round is done; run->part holds
 * the next round's participants by then. next: 1 for each of them. */
static unsigned char *fgl__next_mask(const fgl_run *run) {
    unsigned char *next;
    int q;
    if (!(run->cfg.frac < 1)) return NULL;
    if (!(next = (unsigned char *)FGL_MALLOC((size_t)run->n_clients))) return NULL;
    memset(next, 0, (size_t)run->n_clients);
    for (q = 0; q < run->n_part; q++) next[run->part[q]] = 1;
    return next;
}

/* An idle client trims its tape, or with cfg.park_idle packs its state. */
static void fgl__rest(fgl_run *run, fgl_client *c) {
    if (run->cfg.park_idle) fgl__park(run, c);
    else if (c->tape.chunk) fgl__tape_stow(run, &c->tape);
}

static void fgl__trim_idle(fgl_run *run) {
    unsigned char *next = fgl__next_mask(run);
    int i;
    if (!next) return;
    for (i = 0; i < run->n_clients; i++)
        if (run->clients[i].local && !next[i]) fgl__rest(run, &run->clients[i]);
    FGL_FREE(next);
}

/* A client evaluates its model (restored first if packed; an idle one,
 * next[i] == 0, then rests at once, so an evaluation round holds one
 * arena, and with cfg.park_idle one unpacked state, per thread, not per
 * client). */
static void fgl__eval_step(fgl_run *run, fgl_client *c, const void *next_mask) {
    const unsigned char *next = (const unsigned char *)next_mask;
    int rc = fgl__unpark(run, c);
    if (rc) {
        c->val_acc = c->test_acc = -1;
        fgl_tape_fail(&c->tape, rc, "cannot restore its packed state (%s)", fgl_result_name(rc));
        return;
    }
    fgl__client_evaluate(run, c);
    if (next && !next[c->id]) fgl__rest(run, c);
}

/* Client side: the local clients not evaluated after training (all, or
 * those that sat the round out) evaluate their models, on
 * fgl__run_clients' schedule. */
static void fgl__phase_eval(fgl_run *run) {
    static const int eval[2] = {FGL_SPLIT_VAL, FGL_SPLIT_TEST};
    unsigned char *next = fgl__next_mask(run);
    int i, n = 0, *ids = (int *)FGL_MALLOC(sizeof(int) * (size_t)run->n_clients);
    for (i = 0; i < run->n_clients; i++)
        if (run->clients[i].local && (!run->cfg.eval_after_train || !run->trained[i])) {
            if (ids) ids[n++] = i;
            else fgl__eval_step(run, &run->clients[i], next); /* out of memory: in order */
        }
    if (ids) fgl__run_clients(run, ids, n, eval, 2, 1, fgl__eval_step, next);
    FGL_FREE(ids);
    FGL_FREE(next);
}

/* Server side: the round's accuracies (c->val_acc, c->test_acc of every
 * client, NaN for a round not evaluated) into the history. */
static int fgl__phase_record(fgl_run *run, fgl_round_stats *st, int evaluated) {
    double vsum = 0, tsum = 0, vw = 0, tw = 0, vh = 0, th = 0, msum[4] = {0, 0, 0, 0};
    int i, q, n = 0, n_tested = 0, mn[4] = {0, 0, 0, 0}, link = run->clients[0].task == FGL_TASK_LINK;
    double *hist[4];
    if (run->cfg.secagg.on) return fgl__secagg_record(run, st, evaluated); /* sums only */
    hist[0] = run->client_val_f1;
    hist[1] = run->client_test_f1;
    hist[2] = run->client_val_auc;
    hist[3] = run->client_test_auc;
    for (i = 0; i < run->n_clients; i++) {
        fgl_client *c = &run->clients[i];
        size_t at = (size_t)run->round * run->n_clients + i;
        if (run->lost[i]) { /* its host stopped answering: no accuracy, left out of the means */
            run->client_val[at] = NAN;
            run->client_test[at] = NAN;
            for (q = 0; q < 4; q++) hist[q][at] = NAN;
            continue;
        }
        { /* macro-F1 and AUC: NaN where the client has none (no labelled sample, one class), left out of the
           * means as a client without test samples is left out of the test accuracy's */
            double v[4];
            v[0] = c->val_f1;
            v[1] = c->n_test > 0 ? c->test_f1 : NAN;
            v[2] = c->val_auc;
            v[3] = c->n_test > 0 ? c->test_auc : NAN;
            for (q = 0; q < 4; q++) {
                hist[q][at] = evaluated ? v[q] : NAN;
                if (evaluated && v[q] == v[q]) {
                    msum[q] += v[q];
                    mn[q]++;
                }
            }
        }
        n++;
        if (evaluated && (c->val_acc < 0 || c->test_acc < 0))
            return fgl_error_set(&run->err, c->tape.err ? c->tape.err : FGL_ERR_ARG,
                                 "%s, round %d, client %d: evaluation failed: %s", run->algo.name, run->round + 1, i,
                                 c->tape.msg[0] ? c->tape.msg : "(no reason recorded)");
        run->client_val[(size_t)run->round * run->n_clients + i] = evaluated ? c->val_acc : NAN;
        /* a client without test samples has no test accuracy (NaN, left out of the mean), not 0 */
        run->client_test[(size_t)run->round * run->n_clients + i] = evaluated && c->n_test > 0 ? c->test_acc : NAN;
        if (link) { /* weighted by the split's positive pairs: a client without any counts for nothing */
            if (c->n_val > 0) {
                vsum += c->n_val * c->val_acc;
                vh += c->n_val * c->val_hits;
                vw += c->n_val;
            }
            if (c->n_test > 0) {
                tsum += c->n_test * c->test_acc;
                th += c->n_test * c->test_hits;
                tw += c->n_test;
            }
        } else {
            vsum += c->val_acc;
            if (c->n_test > 0) {
                tsum += c->test_acc;
                n_tested++;
            }
        }
    }
    if (n == 0)
        return fgl_error_set(&run->err, FGL_ERR_EMPTY, "%s, round %d: every client is lost", run->algo.name,
                             run->round + 1);
    st->val_f1 = mn[0] ? msum[0] / mn[0] : NAN;
    st->test_f1 = mn[1] ? msum[1] / mn[1] : NAN;
    st->val_auc = mn[2] ? msum[2] / mn[2] : NAN;
    st->test_auc = mn[3] ? msum[3] / mn[3] : NAN;
    if (link) {
        st->val_acc = evaluated && vw > 0 ? vsum / vw : NAN;
        st->test_acc = evaluated && tw > 0 ? tsum / tw : NAN;
        st->val_hits = evaluated && vw > 0 ? vh / vw : NAN;
        st->test_hits = evaluated && tw > 0 ? th / tw : NAN;
    } else {
        st->val_acc = evaluated ? vsum / n : NAN;
        st->test_acc = evaluated && n_tested > 0 ? tsum / n_tested : NAN; /* no test set anywhere: none */
        st->val_hits = st->test_hits = NAN;
    }
    return FGL_OK;
}

FGLDEF int fgl_run_round(fgl_run *run) {
    fgl_round_stats *st;
    int rc, evaluated;
    double t0, t1, t2;
    if (!run->started && (rc = fgl_run_start(run))) return rc;
    if (run->round >= run->cfg.rounds)
        return fgl_error_set(&run->err, FGL_ERR_ARG, "run: all %d rounds are done", run->cfg.rounds);
    st = &run->stats[run->round];
    memset(run->accepted, 0, (size_t)run->n_clients);
    evaluated = fgl__evaluated(run, run->round);
    t0 = fgl_now();
    if (run->cfg.secagg.on && (rc = fgl__secagg_setup(run, st))) return rc;
    fgl__phase_train(run); /* the participants drawn when the previous round ended (or at the start) */
    if (run->transport && (rc = run->transport->train(run))) return rc;
    t1 = fgl_now();
    if ((rc = fgl__phase_server(run, st)) || (rc = fgl__phase_receive(run)) || (rc = fgl__unknown_param(run)))
        return rc;
    t2 = fgl_now();
    if (run->transport && (rc = run->transport->finish(run, evaluated))) return rc;
    if (evaluated) fgl__phase_eval(run);
    if ((rc = fgl__unknown_param(run))) return rc; /* (an evaluation hook's read) */
    fgl__trim_idle(run);
    if ((rc = fgl__phase_record(run, st, evaluated))) return rc;
    st->t_train = t1 - t0;
    st->t_server = t2 - t1;
    st->t_eval = fgl_now() - t2;
    run->round++;
    return FGL_OK;
}

/* --- src/fed/refusals.h --- */
/* The run's defences, attacks and privacy: their consistency with each
 * other and the algorithm's declared messages (nothing drawn, nothing
 * changed: fgl_run_init and fgl_run_check call it too). */
static int fgl__defences_check(fgl_run *run) {
    const fgl_fed_config *c = &run->cfg;
    const fgl_algo *a = &run->algo;
    int p, weights = 0, n_model = 0, n_weight = 0, raw = -1, data = -1, rc;
    const char *priv = c->dp.clip > 0 ? "differential privacy" : "secure aggregation";
    for (p = 0; p < a->n_up; p++) {
        weights |= fgl__weights_part(&a->up[p]);
        n_model += a->up[p].kind == FGL_SEND_MODEL;
        n_weight += a->up[p].kind == FGL_SEND_WEIGHT;
        if ((a->up[p].flags & FGL_PART_RAW) && raw < 0) raw = p;
        if (a->up[p].kind == FGL_SEND_DATA && data < 0) data = p;
    }
    if ((c->robust.rule != FGL_ROBUST_MEAN || c->dp.clip > 0 || c->secagg.on ||
         (c->attack.kind != FGL_ATTACK_NONE && c->attack.kind != FGL_ATTACK_LABELFLIP &&
          c->attack.kind != FGL_ATTACK_NAN && c->attack.kind != FGL_ATTACK_COUNT)) &&
        !weights)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "%s sends no model weights: robust rules, weight attacks, DP and secure "
                             "aggregation act on them",
                             a->name);
    /* Covered or refused: a defence is accepted only when every upload part
     * that reaches the models goes through the path it guards. */
    if ((c->robust.rule != FGL_ROBUST_MEAN || c->dp.clip > 0 || c->secagg.on) && raw >= 0)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "%s: refused: %s's server turns its upload '%s' into model state by its own code "
                             "(FGL_PART_RAW), which %s does not cover",
                             c->robust.rule != FGL_ROBUST_MEAN ? "robust aggregation" : priv, a->name, a->up[raw].name,
                             c->robust.rule != FGL_ROBUST_MEAN ? "the rule" : "it");
    if ((c->dp.clip > 0 || c->secagg.on) && a->mixes)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "%s: refused: %s mixes a model per client from the uploads (fgl_server_mix); it is "
                             "defined for one mean of them, not for personalised mixtures",
                             priv, a->name);
    if ((c->dp.clip > 0 || c->secagg.on || c->robust.rule != FGL_ROBUST_MEAN) && a->reads_each)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "%s: refused: %s's server reads every client's model on its own (an ensemble it "
                             "distils from), which %s does not cover",
                             c->robust.rule != FGL_ROBUST_MEAN ? "robust aggregation" : priv, a->name,
                             c->robust.rule != FGL_ROBUST_MEAN ? "the rule" : "it");
    if ((c->dp.clip > 0 || c->secagg.on) && (fgl__user_hooks(a) & FGL__HOOK_AGGREGATE) && !a->mean_only)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "%s: refused: %s's aggregate hook is the program's own: under %s a hook is handed no "
                             "upload, only the %s mean (fgl_server_mean), so a rule built on it declares "
                             "mean_only = 1 in its table (a rule over the uploads, such as a median, cannot run)",
                             priv, a->name, c->dp.clip > 0 ? "DP" : "it", c->dp.clip > 0 ? "noised" : "unmasked");
    if (c->dp.clip > 0 && n_model > 0 && fgl__model_source(a) < 0)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "differential privacy: refused: %s sends no model from one server buffer (a download "
                             "model part `from` a buffer, not a row per client), which a round without "
                             "participants adds its noise to",
                             a->name);
    if (c->dp.clip > 0 && data >= 0)
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "differential privacy: refused: %s uploads '%s' (data the server reads as sent), "
                             "which DP-FedAvg neither clips nor noises",
                             a->name, a->up[data].name);
    if (c->dp.clip > 0 && (c->robust.rule != FGL_ROBUST_MEAN || c->secagg.on))
        return fgl_error_set(&run->err, FGL_ERR_ARG,
                             "dp: combine it with neither a robust rule nor secure aggregation");
    { /* a robust rule's parameter that a round without a single rejection could not support: refused here;
       * rounds that reject uploads fall back (fgl_server_mix) */
        int np = FGL__MAX(1, FGL__MIN((int)(c->frac * run->n_clients + 0.5f), run->n_clients));
        const fgl_robust_config *rb = &c->robust;
        if (rb->rule == FGL_ROBUST_TRIMMED && 2 * rb->trim >= np)
            return fgl_error_set(&run->err, FGL_ERR_ARG,
                                 "trimmed:%d needs more than %d uploads a round, and a round has %d participants "
                                 "(%d clients, frac %g): trim at most %d",
                                 rb->trim, 2 * rb->trim, np, run->n_clients, (double)c->frac, (np - 1) / 2);
        if ((rb->rule == FGL_ROBUST_KRUM || rb->rule == FGL_ROBUST_MULTIKRUM) && np <= 2 * rb->f + 2)
            return np < 3 ? fgl_error_set(&run->err, FGL_ERR_ARG,
                                          "%s needs 3 or more participants a round, and a round has %d (%d clients, "
                                          "frac %g)",
                                          fgl_robust_name(rb->rule), np, run->n_clients, (double)c->frac)
                          : fgl_error_set(&run->err, FGL_ERR_ARG,
                                          "%s with f = %d: Krum's guarantee needs more than 2f + 2 = %d uploads a "
                                          "round, and a round has %d participants (%d clients, frac %g): f at most %d",
                                          fgl_robust_name(rb->rule), rb->f, 2 * rb->f + 2, np, run->n_clients,
                                          (double)c->frac, (np - 3) / 2);
        if (rb->rule == FGL_ROBUST_MULTIKRUM && (rb->m < 1 || rb->m > np - rb->f))
            return fgl_error_set(&run->err, FGL_ERR_ARG,
                                 "multikrum:%d,%d keeps %d uploads of a round's %d participants, of which f = %d are "
                                 "assumed attackers: keep 1 to %d",
                                 rb->f, rb->m, rb->m, np, rb->f, np - rb->f);
    }
    if (c->secagg.on) {
        if (n_model != 1 || n_weight != 1 || a->n_up != 2)
            return fgl_error_set(&run->err, FGL_ERR_ARG,
                                 "secure aggregation: refused: %s must upload exactly its model and its sample "
                                 "count (FedAvg-like), the server seeing their sum only",
                                 a->name);
        if (c->robust.screen > 0)
            return fgl_error_set(&run->err, FGL_ERR_ARG,
                                 "secure aggregation hides the update norms that norm screening (robust.screen "
                                 "%g) needs: turn screening off (0) to use it",
                                 (double)c->robust.screen);
        if (run->transport && !run->transport->secagg)
            return fgl_error_set(&run->err, FGL_ERR_ARG, "secure aggregation: this transport cannot run its steps");
        if ((rc = fgl__secagg_check(run))) return rc;
    }
    if (c->dp.clip > 0 && !(c->dp.noise >= 0 && c->dp.delta > 0 && c->dp.delta < 1 && c->frac > 0 && c->frac <= 1))
        return fgl_error_set(&run->err, FGL_ERR_ARG, "dp: noise %g must be >= 0, delta %g in (0, 1), frac %g in (0, 1]",
                             (double)c->dp.noise, c->dp.delta, (double)c->frac);
    if (c->attack.kind != FGL_ATTACK_NONE && c->attack.frac > 0 && !(c->attack.frac <= 1))
        return fgl_error_set(&run->err, FGL_ERR_ARG, "attackers: a fraction in (0, 1], not %g", (double)c->attack.frac);
    return FGL_OK;
}

/* --- src/fed/schedule.h --- */
/* --- runs: which clients run side by side, on how many threads --------------------- */
/* The schedule of a client phase (fgl_run_round's training and evaluation):
 * the clients' work, the clients run alone on every thread first, and the
 * rest side by side, the largest of them given the threads the others leave
 * idle. Each client's result is the same whichever thread runs it. */
/* A client's share of a phase's work: the nodes and edges its passes over
 * the given splits touch (graph tasks: the nodes of those splits' graphs;
 * node tasks: the whole graph, which every pass propagates over). */
static double fgl__client_work(const fgl_client *c, const int *splits, int n_splits) {
    const fgl_view *v = &c->data;
    double w = 0;
    int i, s;
    if (v->graphs) {
        for (s = 0; s < n_splits; s++)
            if (v->ids[splits[s]])
                for (i = 0; i < v->count[splits[s]]; i++) {
                    int g = v->ids[splits[s]][i];
                    w += 1.0 + v->graphs->node_ptr[g + 1] - v->graphs->node_ptr[g];
                }
    } else if (v->node) {
        w = (double)v->node->n_nodes + v->node->adj.nnz + v->node->x_sparse.nnz;
    }
    return w;
}

/* How much of a second thread's speed a client gets from running alone
 * with every thread inside its products rather than beside another client.
 * Set to 0.72 when a GIN epoch on PROTEINS ran 1.44x faster on 2 threads;
 * there, 0.9 or 0.95 (FedStar's NCI1 alone on CHEM) was no faster. Raised
 * to 0.9 once a single large client's products wasted less on two threads
 * (95ee2d7, c368298: FedStar's NCI1 as its only client runs 1.8x faster on
 * 2 threads), on an AMD EPYC VM: FedStar on CHEM at 2 threads, 4 pairs of
 * runs, median 1.82x over 1 thread against 1.76x at 0.72 (2-thread times
 * 9.01-9.31 s against 9.02-9.54 s). The model's first guess only: where
 * it puts clients alone and every client takes part in every round, the
 * runtime times that against all side by side and keeps the faster
 * (fgl__alone_trial); with partial participation the model decides. */
#define FGL__INTRA_EFFICIENCY 0.9

/* How many times faster a client of work w runs its products on g
 * threads than on one: at most the threads its work pays for (its nodes
 * and edges at FGL_PER_THREAD_ENTRIES a thread, the table's measure for a
 * batch's graph work), each at FGL__INTRA_EFFICIENCY. Without that bound
 * the model sent the ten clients of FedAvg on Cora (about 6,000 nodes,
 * edges and feature entries each) one after the other on 16 threads,
 * predicting each 14x faster alone, while their products ran on 1 or 2
 * threads: 5.8x slower than side by side on 8 (issue 38's table). A client
 * whose dense products pay for more threads than its nodes and edges (a
 * wide GEMM over a small graph) is underrated here; the trial below
 * measures the two ways where every client takes part. */
FGL__PRIVATE double fgl__alone_speed(double w, int g) {
    double t = w / (double)FGL_PER_THREAD_ENTRIES;
    if (t > g) t = g;
    return t >= 2 ? t * FGL__INTRA_EFFICIENCY : 1.0;
}

/* The schedule of a phase over n clients of work w[]: order[] lists them
 * largest first (so a dynamic schedule over it is the longest-first rule,
 * which keeps the last client to start from setting the pace), and the
 * return value is how many of them, from the front, run alone, one after
 * the other, with every thread inside their products. The predicted time
 * of "the first k alone, the rest side by side" is the alone clients' work
 * at their alone speed, plus the longer of the largest remaining client
 * (on the threads fgl__side_by_side grants it: 1 + those the others leave
 * idle; every thread when it is the only one left) and the remaining work
 * spread over the loop's threads. A client runs alone only when that is
 * predicted to end the phase sooner: a client much larger than all the
 * others together would leave the other threads idle, while one that is
 * merely the largest is better run beside the rest. Ties keep the smaller
 * k and the clients' order, so the plan depends on the work only. */
FGL__PRIVATE int fgl__schedule(int nt, int n, const double *w, int *order) {
    double total = 0, alone = 0, best = 0, rest;
    int i, j, k, n_alone = 0;
    for (i = 0; i < n; i++) { /* insertion sort, largest first: n is the round's participants */
        int x = i;
        for (j = i; j > 0 && w[order[j - 1]] < w[x]; j--) order[j] = order[j - 1];
        order[j] = x;
        total += w[i];
    }
    if (nt <= 1 || n == 0) return 0;
    rest = total;
    for (k = 0; k <= n; k++) { /* the first k alone, the rest side by side */
        double front = 0, t;
        int n_side = n - k;
        if (k > 0) {
            alone += w[order[k - 1]] / fgl__alone_speed(w[order[k - 1]], nt);
            rest -= w[order[k - 1]];
        }
        if (n_side == 1) {
            front = w[order[k]] / fgl__alone_speed(w[order[k]], nt);
        } else if (n_side > 1) {
            int outer = FGL__MIN(nt, n_side);
            double big = w[order[k]] / fgl__alone_speed(w[order[k]], 1 + nt - outer);
            front = big > rest / outer ? big : rest / outer;
        }
        t = alone + front;
        if (k == 0 || t < best) {
            best = t;
            n_alone = k;
        }
    }
    return n_alone;
}

/* Whether a phase that the schedule would start with clients alone runs
 * so (1) or with every client side by side (0). How much of a second
 * thread a client gets inside its own products depends on the phase (a
 * training step's ops on a batch of 128 graphs are small beside an
 * evaluation's), on the model and on the machine, so rather than trust one
 * constant the runtime times both: when every client takes part in every
 * round (the phase's work the same each time) in this process (a
 * transport's worker holding some of the clients keeps the model), a
 * phase's first run is left out (its first allocations), the next eight
 * alternate the two ways and the faster on the sum of four runs each is
 * kept (single runs here vary by 5%: where the two ways are that close
 * either will do). While it runs, a side-by-side call may hold one more
 * client's tape than the alone schedule would. FedStar on CHEM, 2
 * threads, 3 runs each: training with NCI1 alone 12.3-12.5 s, side by side
 * 11.5-12.1 s; evaluation alone 1.49-1.53 s, side by side 1.64-1.73 s.
 * The results are the same either way (a client's computation does not
 * depend on where it runs). */
#define FGL__TRIAL_CALLS 8
FGL__PRIVATE int fgl__alone_trial(fgl_run *run, int phase) {
    int calls = run->sched[phase].calls;
    if (run->n_part != run->n_clients || run->sched[phase].pick) return run->sched[phase].pick != 2;
    /* calls 1, 4, 5, 8 alone; 2, 3, 6, 7 side by side: each way gets two
     * odd and two even calls, so that work recurring every other round
     * (evaluation every 2 rounds, inside training) weighs on both alike */
    return calls < 1 || (calls - 1) % 4 == 0 || (calls - 1) % 4 == 3;
}

FGL__PRIVATE void fgl__alone_record(fgl_run *run, int phase, int alone, double secs) {
    int c;
    if (run->n_part != run->n_clients || run->sched[phase].pick) return; /* only while the trial runs */
    c = run->sched[phase].calls++;
    if (c < 1) return;
    run->sched[phase].secs[alone] += secs;
    if (c >= FGL__TRIAL_CALLS) run->sched[phase].pick = run->sched[phase].secs[1] <= run->sched[phase].secs[0] ? 1 : 2;
}

/* Clients order[first .. n-1] (largest first; order NULL: ids in their
 * order) side by side: one thread per client, at most nt. When there are
 * fewer of them than threads, the threads left over go to the largest
 * client's products, as a fixed split: its thread is granted 1 + the
 * spare threads (fgl__grant, nested parallelism) and every other client's
 * products run on its own thread. FedStar on CHEM at 16 threads: 7
 * clients, NCI1 (more than half the work) set the pace on one thread while
 * 9 threads sat idle (issue 38). The grant is made only when the largest
 * client sets the pace (its work over FGL__GRANT_MARGIN times the others'
 * per remaining thread; w NULL: always): libgomp keeps no pool of threads
 * for nested regions and starts every nested team's threads anew (strace:
 * two clone3 calls per nested region of 3 threads), so granting threads to
 * a client that does not set the pace (ten balanced METIS clients) would
 * cost thread starts and shorten nothing. Kernels give the same bits on
 * any number of threads, so the split moves only time. */
#define FGL__GRANT_MARGIN 1.25
FGL__PRIVATE void fgl__side_by_side(fgl_run *run, const int *ids, const int *order, const double *w, int first, int n,
                                    int nt, void (*step)(fgl_run *, fgl_client *, const void *), const void *ctx) {
    int i, n_side = n - first, outer = FGL__MAX(1, FGL__MIN(nt, n_side / FGL_PER_THREAD_CLIENT)), spare = 0;
#ifdef _OPENMP
    int levels = omp_get_max_active_levels();
    spare = order && n_side > 1 ? nt - outer : 0;
    if (spare > 0 && w && outer > 1) { /* the largest sets the pace, or no grant */
        double others = 0;
        for (i = first + 1; i < n; i++) others += w[order[i]];
        if (!(w[order[first]] > FGL__GRANT_MARGIN * others / (outer - 1))) spare = 0;
    }
    if (outer <= 1) { /* no region: a lone client's products take every thread */
        for (i = first; i < n; i++) step(run, &run->clients[ids[order ? order[i] : i]], ctx);
        return;
    }
    if (spare > 0 && levels < 2) omp_set_max_active_levels(2);
#pragma omp parallel for schedule(dynamic, 1) num_threads(outer)
#endif
    for (i = first; i < n; i++) {
        int g = i == first && spare > 0 ? 1 + spare : 1; /* order[first]: the largest */
#ifdef _OPENMP
        int was = omp_get_max_threads();
        if (outer > 1) omp_set_num_threads(g); /* a region with no num_threads clause (a hook's): this share */
#endif
        fgl__grant(g);
        step(run, &run->clients[ids[order ? order[i] : i]], ctx);
        fgl__grant(0);
#ifdef _OPENMP
        if (outer > 1) omp_set_num_threads(was); /* libgomp: the master thread's setting outlived the region */
#endif
    }
#ifdef _OPENMP
    if (spare > 0 && levels < 2) omp_set_max_active_levels(levels);
#else
    (void)nt;
    (void)w;
    (void)spare;
    (void)outer;
#endif
}

/* Runs a phase's step (phase 0 training, 1 evaluation) on n clients
 * (ids[]): the schedule above over their work on the given splits, each
 * client's result the same whichever thread runs it and whatever runs
 * beside it. */
static void fgl__run_clients(fgl_run *run, const int *ids, int n, const int *splits, int n_splits, int phase,
                             void (*step)(fgl_run *, fgl_client *, const void *), const void *ctx) {
    int i, nt = 1, n_alone = 0, *order = NULL, trial = -1;
    double *w = NULL, t0 = fgl_now();
#ifdef _OPENMP
    nt = FGL__NTHREADS(run);
#endif
    if (nt > 1 && n > 0) {
        order = (int *)FGL_MALLOC(sizeof(int) * (size_t)n);
        w = (double *)FGL_MALLOC(sizeof(double) * (size_t)n);
    }
    if (order && w) {
        for (i = 0; i < n; i++) w[i] = fgl__client_work(&run->clients[ids[i]], splits, n_splits);
        n_alone = fgl__schedule(nt, n, w, order);
        if (n_alone > 0 && n > 1) { /* a choice to make: alone first, or all side by side */
            trial = fgl__alone_trial(run, phase);
            if (!trial) n_alone = 0;
        }
        for (i = 0; i < n_alone; i++) step(run, &run->clients[ids[order[i]]], ctx);
    } else {
        FGL_FREE(order); /* out of memory: the clients in their order, side by side */
        order = NULL;
    }
    fgl__side_by_side(run, ids, order, w, n_alone, n, nt, step, ctx);
    if (trial >= 0) fgl__alone_record(run, phase, trial, fgl_now() - t0);
    FGL_FREE(order);
    FGL_FREE(w);
}
/* --- src/fed/checkpoint.h --- */
/* --- checkpoints ----------------------------------------------------------------- */

#define FGL__STR2(x) #x
#define FGL__STR(x) FGL__STR2(x)
#if defined(__clang__)
#define FGL__BUILD_CC "clang " __clang_version__
#elif defined(__GNUC__)
#define FGL__BUILD_CC "gcc " __VERSION__
#elif defined(_MSC_VER)
#define FGL__BUILD_CC "msvc " FGL__STR(_MSC_VER)
#else
#define FGL__BUILD_CC "cc"
#endif
#ifdef __AVX512F__
#define FGL__BUILD_AVX512 " avx512f"
#else
#define FGL__BUILD_AVX512 ""
#endif
#ifdef __AVX2__
#define FGL__BUILD_AVX2 " avx2"
#else
#define FGL__BUILD_AVX2 ""
#endif
#ifdef __FMA__
#define FGL__BUILD_FMA " fma"
#else
#define FGL__BUILD_FMA ""
#endif
#ifdef __AVX__
#define FGL__BUILD_AVX " avx"
#else
#define FGL__BUILD_AVX ""
#endif
#if defined(__ARM_NEON) || defined(__aarch64__)
#define FGL__BUILD_NEON " neon"
#else
#define FGL__BUILD_NEON ""
#endif
#if defined(__FAST_MATH__)
#define FGL__BUILD_FAST " fast-math"
#else
#define FGL__BUILD_FAST ""
#endif
#ifdef FGL_BUILD_FLAGS
#define FGL__BUILD_FLAGS "; flags " FGL_BUILD_FLAGS
#else
#define FGL__BUILD_FLAGS ""
#endif

FGLDEF const char *fgl_build_id(void) {
    return "fgl " FGL_VERSION "; " FGL__BUILD_CC ";" FGL__BUILD_AVX512 FGL__BUILD_AVX2 FGL__BUILD_AVX FGL__BUILD_FMA
           FGL__BUILD_NEON FGL__BUILD_FAST FGL__BUILD_FLAGS;
}

#define FGL__RUN_MAGIC "FGLR"
#define FGL__RUN_VERSION 6u /* 2: named state entries, configuration fingerprint; 3: robust fallbacks per round;
                              4: Hits@K per round (link prediction); 5: DP noise values drawn per round;
                              6: macro-F1 and ROC-AUC per round and per client */

static void fgl__put_sum(fgl_bytes *b, const void *p, size_t bytes) {
    fgl_bytes_put_u64(b, p ? fgl_checksum64(p, bytes) : 0);
}

static void fgl__put_csr_sum(fgl_bytes *b, const fgl_csr *a) {
    fgl_bytes_put_u32(b, (uint32_t)a->rows);
    fgl_bytes_put_u32(b, (uint32_t)a->nnz);
    fgl__put_sum(b, a->indptr, a->indptr ? sizeof(int) * (size_t)(a->rows + 1) : 0);
    fgl__put_sum(b, a->indices, sizeof(int) * (size_t)a->nnz);
    fgl__put_sum(b, a->values, a->values ? sizeof(float) * (size_t)a->nnz : 0);
}

/* A checksum of a client's data (what decides its bits). */
static uint64_t fgl__data_sum(const fgl_node_data *nd, const fgl_graph_set *gs) {
    fgl_bytes b;
    uint64_t h;
    fgl_bytes_init(&b);
    if (nd) {
        size_t n = (size_t)nd->n_nodes;
        fgl_bytes_put_u32(&b, (uint32_t)nd->n_nodes);
        fgl_bytes_put_u32(&b, (uint32_t)nd->n_feat);
        fgl_bytes_put_u32(&b, (uint32_t)nd->n_classes);
        fgl__put_sum(&b, nd->y, sizeof(int) * n);
        fgl__put_sum(&b, nd->split, n);
        fgl__put_csr_sum(&b, &nd->adj);
        fgl__put_sum(&b, nd->x.data, nd->x.data ? sizeof(float) * fgl_tensor_size(&nd->x) : 0);
        if (nd->x_sparse.rows) fgl__put_csr_sum(&b, &nd->x_sparse);
        if (nd->gid) { /* a halo (fgl_split_halo): its ids, own rows, hops, the whole graph's GCN norm */
            fgl_bytes_put_u32(&b, (uint32_t)nd->n_own);
            fgl_bytes_put_u32(&b, (uint32_t)nd->halo_hops);
            fgl__put_sum(&b, nd->gid, sizeof(int) * n);
            fgl__put_csr_sum(&b, &nd->adj_gcn);
        }
    } else if (gs) {
        fgl_bytes_put_u32(&b, (uint32_t)gs->n_graphs);
        fgl_bytes_put_u32(&b, (uint32_t)gs->n_nodes);
        fgl_bytes_put_u32(&b, (uint32_t)gs->n_feat);
        fgl_bytes_put_u32(&b, (uint32_t)gs->n_pe);
        fgl__put_sum(&b, gs->y, sizeof(int) * (size_t)gs->n_graphs);
        fgl__put_sum(&b, gs->split, (size_t)gs->n_graphs);
        fgl__put_sum(&b, gs->node_ptr, sizeof(int) * (size_t)(gs->n_graphs + 1));
        fgl__put_csr_sum(&b, &gs->adj);
        fgl__put_sum(&b, gs->x, sizeof(float) * (size_t)gs->n_nodes * (size_t)gs->n_feat);
        fgl__put_sum(&b, gs->pe, gs->pe ? sizeof(float) * (size_t)gs->n_nodes * (size_t)gs->n_pe : 0);
    }
    h = b.err ? 0 : fgl_checksum64(b.data, b.len);
    fgl_bytes_free(&b);
    return h;
}

/* A checksum of everything that decides a run's bits: the configuration
 * (but the thread count), the algorithm and its parameter values, each
 * client's model spec and data. */
static uint64_t fgl__fingerprint(const fgl_run *run) {
    fgl_bytes b;
    uint64_t h;
    int i;
    fgl_bytes_init(&b);
    fgl_bytes_put_str(&b, run->algo.name);
    for (i = 0; i < run->algo.n_params; i++) {
        fgl_bytes_put_str(&b, run->algo.params[i].name);
        fgl__put_f64(&b, run->set.value[i]);
    }
    fgl__put_config(&b, &run->cfg);
    fgl_bytes_put_u32(&b, (uint32_t)run->n_clients);
    if (run->pub) { /* the server's public data */
        const fgl_node_data *pd = run->pub;
        fgl_bytes_put_u32(&b, (uint32_t)pd->n_nodes);
        fgl_bytes_put_u32(&b, (uint32_t)pd->n_feat);
        fgl__put_sum(&b, pd->y, sizeof(int) * (size_t)pd->n_nodes);
        fgl__put_csr_sum(&b, &pd->adj);
        fgl__put_sum(&b, pd->x.data, pd->x.data ? sizeof(float) * fgl_tensor_size(&pd->x) : 0);
        if (pd->x_sparse.rows) fgl__put_csr_sum(&b, &pd->x_sparse);
    }
    for (i = 0; i < run->n_clients; i++) {
        const fgl_client *cl = &run->clients[i];
        const fgl_model_spec *s = &cl->spec;
        const fgl_node_data *nd = cl->data.node;
        const fgl_graph_set *gs = cl->data.graphs;
        int ints[18] = {s->arch,
                        s->task,
                        s->in_dim,
                        s->hidden,
                        s->out_dim,
                        s->layers,
                        s->readout,
                        s->head,
                        s->input_proj,
                        s->batch_norm,
                        s->learn_eps,
                        s->heads,
                        s->sgc_hops,
                        s->pe_dim,
                        s->masked,
                        0,
                        0,
                        0};
        float fl[7] = {s->dropout,    s->input_dropout, s->gcnii_alpha, s->gcnii_lambda,
                       s->mask_prune, s->bn_momentum,   s->bn_eps};
        int q;
        for (q = 0; q < 15; q++) fgl_bytes_put_u32(&b, (uint32_t)ints[q]);
        fgl_bytes_put_f32s(&b, fl, 7);
        if (s->residual || s->norm) { /* only then: the checkpoints of models without them keep their sums */
            fgl_bytes_put_u32(&b, (uint32_t)s->residual);
            fgl_bytes_put_u32(&b, (uint32_t)s->norm);
        }
        /* a link client's edge split is part of its data */
        fgl_bytes_put_u64(&b, !cl->local ? cl->data_sum
                                         : fgl__data_sum(nd, gs) ^ (cl->data.link ? cl->data.link->sum : 0));
    }
    h = b.err ? 0 : fgl_checksum64(b.data, b.len);
    fgl_bytes_free(&b);
    return h;
}

/* A layout's checksum: slice names, shapes, tags, offsets. */
static uint64_t fgl__layout_sum(const fgl_params *ps) {
    uint64_t h = 1469598103934665603ull;
    int i;
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *s = &ps->slices[i];
        uint64_t v[4];
        v[0] = (uint64_t)s->rows;
        v[1] = (uint64_t)s->cols;
        v[2] = (uint64_t)s->groups | ((uint64_t)s->trainable << 32);
        v[3] = (uint64_t)s->offset;
        h ^= fgl_checksum64(s->name, strlen(s->name));
        h = h * 1099511628211ull ^ fgl_checksum64(v, sizeof v);
    }
    return h;
}

/* A store's entries into b; c: the client that owns it (NULL: the server's).
 * A packed client's values are unpacked one array at a time into a
 * temporary buffer. */
static void fgl__put_store(const fgl_run *run, fgl_bytes *b, const fgl_store *st, const fgl_client *c) {
    int i, q, n = 0;
    float *tmp = NULL;
    size_t tmp_n = 0;
    unsigned char *owned = NULL;
    const unsigned char *parked = NULL;
    if (c && c->parked_len && !(parked = fgl__park_blob(run, c, &owned))) {
        b->err = FGL_ERR_IO;
        return;
    }
    for (i = 0; i < st->n; i++) {
        const fgl__entry *e = &st->e[i];
        const fgl_params *ps = fgl__entry_params(e);
        size_t k = ps ? ps->size : e->kind == FGL__E_OPTIM ? ((const fgl_optim *)e->p)->size : 0;
        n += e->kind != FGL__E_SCRATCH && e->kind != FGL__E_TAPE;
        tmp_n = FGL__MAX(tmp_n, k);
    }
    if (parked && !(tmp = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(tmp_n, 1)))) {
        FGL_FREE(owned);
        b->err = FGL_ERR_NOMEM;
        return;
    }
    fgl_bytes_put_u32(b, (uint32_t)n);
    for (i = 0; i < st->n; i++) {
        const fgl__entry *e = &st->e[i];
        if (e->kind == FGL__E_SCRATCH || e->kind == FGL__E_TAPE) continue;
        fgl_bytes_put_u32(b, (uint32_t)e->kind);
        fgl_bytes_put_str(b, e->name);
        switch (e->kind) {
        case FGL__E_FLOATS:
            fgl_bytes_put_u64(b, e->n);
            fgl_bytes_put_f32s(b, (const float *)e->p, e->n);
            break;
        case FGL__E_INTS:
            fgl_bytes_put_u64(b, e->n);
            for (q = 0; q < (int)e->n; q++) fgl_bytes_put_u32(b, (uint32_t)((const int *)e->p)[q]);
            break;
        case FGL__E_MODEL:
        case FGL__E_PARAMS: {
            const fgl_params *ps = fgl__entry_params(e);
            fgl_bytes_put_u64(b, ps->size);
            fgl_bytes_put_u64(b, fgl__layout_sum(ps));
            if (parked) parked = fgl__unpark_floats(parked, tmp, fgl__park_ref(run, ps->size), ps->size);
            fgl_bytes_put_f32s(b, parked ? tmp : ps->data, ps->size);
            break;
        }
        case FGL__E_OPTIM: {
            const fgl_optim *o = (const fgl_optim *)e->p;
            fgl_bytes_put_u64(b, o->size);
            fgl_bytes_put_u64(b, (uint64_t)o->t);
            if (parked) parked = fgl__unpark_floats(parked, tmp, NULL, o->size);
            fgl_bytes_put_f32s(b, parked ? tmp : o->m, o->size);
            if (parked) parked = fgl__unpark_floats(parked, tmp, NULL, o->size);
            fgl_bytes_put_f32s(b, parked ? tmp : o->v, o->size);
            break;
        }
        default: { /* FGL__E_RNG */
            const fgl_rng *r = (const fgl_rng *)e->p;
            fgl_bytes_put_u64(b, 0);
            for (q = 0; q < 4; q++) fgl_bytes_put_u64(b, r->s[q]);
        }
        }
    }
    FGL_FREE(tmp);
    FGL_FREE(owned);
}

/* The checkpoint of run into b; client_stores (NULL: the run's own) gives
 * client i's serialised store (what a transport gathered from where the
 * client lives). */
static void fgl__save_bytes(const fgl_run *run, fgl_bytes *b_out, const fgl_bytes *client_stores);

FGLDEF int fgl_run_save(const fgl_run *run, const char *path, fgl_error *err) {
    fgl_bytes b, *stores = NULL;
    int rc = FGL_OK, i;
    fgl_bytes_init(&b);
    if (run->transport && run->cfg.secagg.on)
        return fgl_error_set(err, FGL_ERR_ARG, "%s: refused: a checkpoint of a secure-aggregation run would bring "
                             "every client's state to the server's process", path);
    if (run->transport && run->started) { /* the remote clients' state comes from where they live */
        stores = (fgl_bytes *)fgl__zalloc(sizeof(fgl_bytes) * (size_t)run->n_clients);
        if (!stores) return fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", path);
        for (i = 0; i < run->n_clients; i++)
            if (run->clients[i].local) fgl__put_store(run, &stores[i], &run->clients[i].store, &run->clients[i]);
        /* the transport may find a host lost while asking: that is the run's state to change */
        if ((rc = run->transport->save((fgl_run *)run, stores)))
            rc = fgl_error_set(err, rc, "%s: not written: %s", path, run->err.msg);
    }
    if (!rc) {
        fgl__save_bytes(run, &b, stores);
        rc = b.err ? fgl_error_set(err, b.err, "%s: cannot build the checkpoint (%s)", path, fgl_result_name(b.err))
                   : fgl_file_write(path, b.data, b.len, err);
    }
    for (i = 0; stores && i < run->n_clients; i++) fgl_bytes_free(&stores[i]);
    FGL_FREE(stores);
    fgl_bytes_free(&b);
    return rc;
}

static void fgl__save_bytes(const fgl_run *run, fgl_bytes *b_out, const fgl_bytes *client_stores) {
    fgl_bytes b = *b_out;
    size_t mark, rounds = (size_t)run->round, k, RK = rounds * (size_t)run->n_clients;
    int i;
    fgl_frame_begin(&b, FGL__RUN_MAGIC, FGL__RUN_VERSION, &mark);
    fgl_bytes_put_str(&b, run->algo.name);
    fgl_bytes_put_u32(&b, (uint32_t)run->n_clients);
    fgl_bytes_put_u32(&b, (uint32_t)run->cfg.rounds);
    fgl_bytes_put_u64(&b, run->cfg.seed);
    fgl_bytes_put_u64(&b, fgl__fingerprint(run));
    fgl_bytes_put_u32(&b, (uint32_t)run->started);
    fgl_bytes_put_u32(&b, (uint32_t)run->round);
    fgl_bytes_put_str(&b, fgl_build_id()); /* (version 5 on) */
    fgl_bytes_put_u64(&b, (uint64_t)run->bytes_up);
    fgl_bytes_put_u64(&b, (uint64_t)run->bytes_down);
    fgl_bytes_put_u32(&b, (uint32_t)run->rejected_total);
    for (i = 0; i < run->n_clients; i++) fgl_bytes_put_u32(&b, (uint32_t)run->rejected_by[i]);
    fgl_bytes_put_u32(&b, (uint32_t)run->n_part); /* the next round's participants, already drawn */
    for (i = 0; i < run->n_part; i++) fgl_bytes_put_u32(&b, (uint32_t)run->part[i]);
    for (k = 0; k < rounds; k++) {
        const fgl_round_stats *st = &run->stats[k];
        fgl_bytes_put_u32(&b, (uint32_t)st->n_part);
        fgl_bytes_put_u32(&b, (uint32_t)st->n_rejected);
        fgl_bytes_put_u32(&b, (uint32_t)st->n_screened);
        fgl_bytes_put_u32(&b, (uint32_t)st->n_clipped);
        fgl_bytes_put_u32(&b, (uint32_t)st->n_dropped);
        fgl_bytes_put_u32(&b, (uint32_t)st->n_lost);
        fgl_bytes_put_u32(&b, (uint32_t)st->n_fallback);
        fgl_bytes_put_u64(&b, (uint64_t)st->dp_draws);
        fgl_bytes_put_u64(&b, (uint64_t)st->bytes_up);
        fgl_bytes_put_u64(&b, (uint64_t)st->bytes_down);
        fgl__put_f64(&b, st->train_loss);
        fgl__put_f64(&b, st->val_acc);
        fgl__put_f64(&b, st->test_acc);
        fgl__put_f64(&b, st->val_hits);
        fgl__put_f64(&b, st->test_hits);
        fgl__put_f64(&b, st->val_f1); /* (version 6 on) */
        fgl__put_f64(&b, st->test_f1);
        fgl__put_f64(&b, st->val_auc);
        fgl__put_f64(&b, st->test_auc);
        fgl__put_f64(&b, st->t_train);
        fgl__put_f64(&b, st->t_server);
        fgl__put_f64(&b, st->t_eval);
    }
    for (k = 0; k < RK; k++) {
        fgl__put_f64(&b, run->client_val[k]);
        fgl__put_f64(&b, run->client_test[k]);
        fgl__put_f64(&b, run->client_loss[k]);
        fgl_bytes_put_u64(&b, (uint64_t)run->client_up[k]);
        fgl_bytes_put_u64(&b, (uint64_t)run->client_down[k]);
        fgl__put_f64(&b, run->client_val_f1[k]); /* (version 6 on) */
        fgl__put_f64(&b, run->client_test_f1[k]);
        fgl__put_f64(&b, run->client_val_auc[k]);
        fgl__put_f64(&b, run->client_test_auc[k]);
    }
    if (run->started) {
        fgl__put_store(run, &b, &run->server.store, NULL);
        for (i = 0; i < run->n_clients; i++) {
            if (client_stores) fgl_bytes_put(&b, client_stores[i].data, client_stores[i].len);
            else fgl__put_store(run, &b, &run->clients[i].store, &run->clients[i]);
        }
    }
    fgl_frame_end(&b, mark);
    *b_out = b;
}

/* Advance past n bytes, or fail the reader. */
static int fgl__skip(fgl_reader *r, size_t n) {
    if (r->err || r->len - r->pos < n) {
        r->err = FGL_ERR_FORMAT;
        return r->err;
    }
    r->pos += n;
    return FGL_OK;
}

/* Read one store's entries: check them against st (commit 0), or copy them
 * in (commit 1, only after a checking pass succeeded on the same bytes). */
static int fgl__get_store(fgl_reader *r, fgl_store *st, int commit, const char *path, fgl_error *err) {
    uint32_t n = fgl_reader_u32(r), i;
    int expect = 0, q;
    const char *who = st->owner < 0 ? "the server" : "client";
    for (q = 0; q < st->n; q++) expect += st->e[q].kind != FGL__E_SCRATCH && st->e[q].kind != FGL__E_TAPE;
    if (r->err || n != (uint32_t)expect)
        return fgl_error_set(err, FGL_ERR_SHAPE, "%s: %s %d holds %u state entries, this run %d", path, who, st->owner,
                             (unsigned)n, expect);
    for (i = 0; i < n; i++) {
        char name[FGL__ENTRY_NAME];
        int kind = (int)fgl_reader_u32(r);
        fgl__entry *e;
        uint64_t size;
        fgl_reader_str(r, name, sizeof name);
        size = fgl_reader_u64(r);
        if (r->err) return fgl_error_set(err, FGL_ERR_FORMAT, "%s: truncated state entry", path);
        e = fgl__store_find(st, name, kind);
        if (!e)
            return fgl_error_set(err, FGL_ERR_SHAPE, "%s: state '%s' (%s %d) is not in this run", path, name, who,
                                 st->owner);
        switch (kind) {
        case FGL__E_FLOATS:
        case FGL__E_INTS:
            if (size != (uint64_t)e->n)
                return fgl_error_set(err, FGL_ERR_SHAPE, "%s: state '%s' has %llu values, this run %zu", path, name,
                                     (unsigned long long)size, e->n);
            if (!commit) {
                if (fgl__skip(r, 4 * e->n)) break;
            } else if (kind == FGL__E_FLOATS) {
                fgl_reader_f32s(r, (float *)e->p, e->n);
            } else {
                size_t k;
                for (k = 0; k < e->n; k++) ((int *)e->p)[k] = (int)fgl_reader_u32(r);
            }
            break;
        case FGL__E_MODEL:
        case FGL__E_PARAMS: {
            fgl_params *ps = kind == FGL__E_MODEL ? &((fgl_model *)e->p)->params : (fgl_params *)e->p;
            uint64_t layout = fgl_reader_u64(r);
            if (size != (uint64_t)ps->size || layout != fgl__layout_sum(ps))
                return fgl_error_set(err, FGL_ERR_SHAPE, "%s: parameters '%s' have another layout", path, name);
            if (!commit) fgl__skip(r, 4 * ps->size);
            else fgl_reader_f32s(r, ps->data, ps->size);
            break;
        }
        case FGL__E_OPTIM: {
            fgl_optim *o = (fgl_optim *)e->p;
            uint64_t t = fgl_reader_u64(r);
            if (size != (uint64_t)o->size)
                return fgl_error_set(err, FGL_ERR_SHAPE, "%s: optimizer '%s' has another size", path, name);
            if (!commit) {
                fgl__skip(r, 8 * o->size);
            } else {
                fgl_reader_f32s(r, o->m, o->size);
                fgl_reader_f32s(r, o->v, o->size);
                o->t = (int64_t)t;
            }
            break;
        }
        case FGL__E_RNG: {
            fgl_rng *g = (fgl_rng *)e->p;
            if (!commit) fgl__skip(r, 32);
            else
                for (q = 0; q < 4; q++) g->s[q] = fgl_reader_u64(r);
            break;
        }
        default: return fgl_error_set(err, FGL_ERR_FORMAT, "%s: state '%s' of unknown kind %d", path, name, kind);
        }
        if (r->err) return fgl_error_set(err, FGL_ERR_FORMAT, "%s: state '%s' truncated", path, name);
    }
    return FGL_OK;
}

/* Everything after the header: checked (commit 0) or installed (commit 1). */
/* The extent of one serialised store, read past without being understood
 * (a remote client's, forwarded to where it lives). */
static int fgl__skip_store(fgl_reader *r) {
    uint32_t n = fgl_reader_u32(r), i;
    for (i = 0; i < n && !r->err; i++) {
        char name[FGL__ENTRY_NAME];
        int kind = (int)fgl_reader_u32(r);
        uint64_t size;
        fgl_reader_str(r, name, sizeof name);
        size = fgl_reader_u64(r);
        if (r->err || size > (uint64_t)r->len) return r->err = FGL_ERR_FORMAT;
        switch (kind) {
        case FGL__E_FLOATS:
        case FGL__E_INTS: fgl__skip(r, 4 * (size_t)size); break;
        case FGL__E_MODEL:
        case FGL__E_PARAMS: fgl__skip(r, 8 + 4 * (size_t)size); break;
        case FGL__E_OPTIM: fgl__skip(r, 8 + 8 * (size_t)size); break;
        case FGL__E_RNG: fgl__skip(r, 32); break;
        default: return r->err = FGL_ERR_FORMAT;
        }
    }
    return r->err;
}

/* remote (with a transport): the byte spans of the remote clients' stores. */
static int fgl__ckpt_body(fgl_run *run, fgl_reader *r, uint32_t version, int started, size_t rounds, int commit,
                          const char *path, fgl_reader *remote, fgl_error *err) {
    size_t k, RK = rounds * (size_t)run->n_clients;
    uint64_t bu = fgl_reader_u64(r), bd = fgl_reader_u64(r);
    uint32_t rej = fgl_reader_u32(r);
    int i, rc;
    for (i = 0; i < run->n_clients; i++) {
        uint32_t v = fgl_reader_u32(r);
        if (commit) run->rejected_by[i] = (int)v;
    }
    {
        uint32_t np = fgl_reader_u32(r), q;
        long prev = -1;
        if (r->err || np > (uint32_t)run->n_clients || (started && np == 0))
            return fgl_error_set(err, FGL_ERR_FORMAT, "%s: %u participants of %d clients", path, (unsigned)np,
                                 run->n_clients);
        for (q = 0; q < np; q++) {
            uint32_t id = fgl_reader_u32(r);
            if (r->err || id >= (uint32_t)run->n_clients || (long)id <= prev)
                return fgl_error_set(err, FGL_ERR_FORMAT, "%s: participant %u out of range or order", path,
                                     (unsigned)id);
            prev = (long)id;
            if (commit) run->part[q] = (int)id;
        }
        if (commit) run->n_part = (int)np;
    }
    for (k = 0; k < rounds; k++) {
        fgl_round_stats st;
        st.n_part = (int)fgl_reader_u32(r);
        st.n_rejected = (int)fgl_reader_u32(r);
        st.n_screened = (int)fgl_reader_u32(r);
        st.n_clipped = (int)fgl_reader_u32(r);
        st.n_dropped = (int)fgl_reader_u32(r);
        st.n_lost = (int)fgl_reader_u32(r);
        st.n_fallback = version >= 3 ? (int)fgl_reader_u32(r) : 0; /* version 2 counted none */
        st.dp_draws = version >= 5 ? (long long)fgl_reader_u64(r) : -1; /* before version 5: not counted */
        st.bytes_up = (size_t)fgl_reader_u64(r);
        st.bytes_down = (size_t)fgl_reader_u64(r);
        st.train_loss = fgl__get_f64(r);
        st.val_acc = fgl__get_f64(r);
        st.test_acc = fgl__get_f64(r);
        st.val_hits = version >= 4 ? fgl__get_f64(r) : NAN; /* before version 4: no link tasks */
        st.test_hits = version >= 4 ? fgl__get_f64(r) : NAN;
        st.val_f1 = version >= 6 ? fgl__get_f64(r) : NAN; /* before version 6: not kept */
        st.test_f1 = version >= 6 ? fgl__get_f64(r) : NAN;
        st.val_auc = version >= 6 ? fgl__get_f64(r) : NAN;
        st.test_auc = version >= 6 ? fgl__get_f64(r) : NAN;
        st.t_train = fgl__get_f64(r);
        st.t_server = fgl__get_f64(r);
        st.t_eval = fgl__get_f64(r);
        if (commit) run->stats[k] = st;
    }
    if (!commit) {
        if (fgl__skip(r, RK * (version >= 6 ? 72 : 40)))
            return fgl_error_set(err, FGL_ERR_FORMAT, "%s: checkpoint truncated", path);
    } else {
        for (k = 0; k < RK; k++) {
            run->client_val[k] = fgl__get_f64(r);
            run->client_test[k] = fgl__get_f64(r);
            run->client_loss[k] = fgl__get_f64(r);
            run->client_up[k] = (size_t)fgl_reader_u64(r);
            run->client_down[k] = (size_t)fgl_reader_u64(r);
            run->client_val_f1[k] = version >= 6 ? fgl__get_f64(r) : NAN;
            run->client_test_f1[k] = version >= 6 ? fgl__get_f64(r) : NAN;
            run->client_val_auc[k] = version >= 6 ? fgl__get_f64(r) : NAN;
            run->client_test_auc[k] = version >= 6 ? fgl__get_f64(r) : NAN;
        }
    }
    if (r->err) return fgl_error_set(err, FGL_ERR_FORMAT, "%s: checkpoint truncated", path);
    if (started) {
        if ((rc = fgl__get_store(r, &run->server.store, commit, path, err))) return rc;
        for (i = 0; i < run->n_clients; i++) {
            size_t at = r->pos;
            if (run->clients[i].local) {
                if ((rc = fgl__get_store(r, &run->clients[i].store, commit, path, err))) return rc;
                continue;
            }
            if (fgl__skip_store(r))
                return fgl_error_set(err, FGL_ERR_FORMAT, "%s: client %d's state is truncated", path, i);
            if (remote) remote[i] = fgl_reader_make(r->data + at, r->pos - at);
        }
    }
    if (r->err || r->pos != r->len)
        return fgl_error_set(err, FGL_ERR_FORMAT, "%s: checkpoint truncated or with extra bytes", path);
    if (commit) {
        run->round = (int)rounds;
        run->bytes_up = (size_t)bu;
        run->bytes_down = (size_t)bd;
        run->rejected_total = (int)rej;
    }
    return FGL_OK;
}

FGLDEF int fgl_run_load(fgl_run *run, const char *path, fgl_error *err) {
    unsigned char *data;
    size_t len, rounds;
    fgl_reader r, body;
    char name[64], build[200];
    uint32_t K, R, version = FGL__RUN_VERSION;
    uint64_t seed, fp;
    int rc, started, i;
    fgl_reader *remote = NULL;
    if (!run->clients) return fgl_error_set(err, FGL_ERR_ARG, "%s: the run is not initialised", path);
    if ((rc = fgl_file_read(path, &data, &len, err))) return rc;
    if (!fgl_frame_open(data, len, FGL__RUN_MAGIC, 2u, &r, path, NULL)) version = 2u; /* read as it was written */
    else if (!fgl_frame_open(data, len, FGL__RUN_MAGIC, 3u, &r, path, NULL)) version = 3u;
    else if (!fgl_frame_open(data, len, FGL__RUN_MAGIC, 4u, &r, path, NULL)) version = 4u;
    else if (!fgl_frame_open(data, len, FGL__RUN_MAGIC, 5u, &r, path, NULL)) version = 5u;
    else if ((rc = fgl_frame_open(data, len, FGL__RUN_MAGIC, FGL__RUN_VERSION, &r, path, err))) goto done;
    fgl_reader_str(&r, name, sizeof name);
    K = fgl_reader_u32(&r);
    R = fgl_reader_u32(&r);
    seed = fgl_reader_u64(&r);
    fp = fgl_reader_u64(&r);
    started = (int)fgl_reader_u32(&r);
    rounds = fgl_reader_u32(&r);
    build[0] = 0;
    if (version >= 5) fgl_reader_str(&r, build, sizeof build);
    if (r.err) {
        rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: checkpoint header truncated", path);
        goto done;
    }
    if (strcmp(name, run->algo.name) != 0 || K != (uint32_t)run->n_clients || R != (uint32_t)run->cfg.rounds ||
        seed != run->cfg.seed) {
        rc = fgl_error_set(err, FGL_ERR_SHAPE,
                           "%s: checkpoint of a different run (%s, %u clients, %u rounds, seed %llu; "
                           "this run: %s, %d clients, %d rounds, seed %llu)",
                           path, name, (unsigned)K, (unsigned)R, (unsigned long long)seed, run->algo.name,
                           run->n_clients, run->cfg.rounds, (unsigned long long)run->cfg.seed);
        goto done;
    }
    if (fp != fgl__fingerprint(run)) {
        rc = fgl_error_set(err, FGL_ERR_SHAPE, "%s: checkpoint of a different run: the configuration, the algorithm's "
                           "parameters, a model spec or the data differ", path);
        goto done;
    }
    if (strcmp(build, fgl_build_id()) != 0 && !run->allow_other_build) {
        rc = fgl_error_set(err, FGL_ERR_SHAPE, "%s: checkpoint of another build (%s; this one: %s): the resumed run "
                           "would match neither build's bits (allow it explicitly: fglrun --allow-other-build)", path,
                           build[0] ? build : "a build that did not record itself", fgl_build_id());
        goto done;
    }
    if (rounds > (size_t)run->cfg.rounds || (!started && rounds > 0)) {
        rc = fgl_error_set(err, FGL_ERR_FORMAT, "%s: %zu rounds done of %d", path, rounds, run->cfg.rounds);
        goto done;
    }
    /* the state entries exist once the run has started (deterministic: a
     * started run with no rounds is what the first round would start from) */
    if (started && !run->started && (rc = fgl_run_start(run))) {
        fgl_error_set(err, rc, "%s: %s", path, run->err.msg);
        goto done;
    }
    if (run->transport && started &&
        !(remote = (fgl_reader *)fgl__zalloc(sizeof(fgl_reader) * (size_t)run->n_clients))) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "%s: out of memory", path);
        goto done;
    }
    body = r;
    if ((rc = fgl__ckpt_body(run, &body, version, started, rounds, 0, path, remote, err))) goto done;
    /* every part checked (the remote clients' where they live) before anything is installed */
    if (remote && (rc = run->transport->load(run, remote, 0, err))) goto done;
    /* parked clients take their state back to be overwritten (cfg.park_idle:
     * for the moment of the load, every client's state is resident) */
    if ((rc = fgl__unpark_all(run))) {
        rc = fgl_error_set(err, rc, "%s: cannot restore the clients' packed state (%s)", path, fgl_result_name(rc));
        goto done;
    }
    body = r;
    if ((rc = fgl__ckpt_body(run, &body, version, started, rounds, 1, path, NULL, err)))
        goto done; /* cannot fail: checked above */
    if (remote && (rc = run->transport->load(run, remote, 1, err))) goto done;
    if (started) { /* the downloads the clients last received: rebuilt from the restored server state */
        if (fgl__build_downloads(run, 0)) {
            rc = fgl__server_error(run, run->server.error, "rebuilding downloads");
            fgl_error_set(err, rc, "%s: %s", path, run->err.msg);
            goto done;
        }
        for (i = 0; i < run->n_part; i++)
            if (run->clients[run->part[i]].local) fgl__receive(run, &run->clients[run->part[i]], 0);
        fgl__trim_idle(run);
        if (run->transport && (rc = run->transport->resume(run))) {
            fgl_error_set(err, rc, "%s: %s", path, run->err.msg);
            goto done;
        }
    }
    if (strcmp(build, fgl_build_id()) != 0) /* allowed: said in the run for its record */
        snprintf(run->other_build, sizeof run->other_build, "%s", build[0] ? build : "(not recorded)");
done:
    FGL_FREE(remote);
    FGL_FREE(data);
    return rc;
}

/* ======================================================================== */
/* Algorithms                                                               */
/* ======================================================================== */
/* Each algorithm is a function building its table: the parameters with
 * their published defaults, what it sends, and the hooks that are its
 * mathematics. Where the paper and the authors' public code disagree, the
 * code's choice is the default (docs/algorithms.md); every such choice is
 * written next to the code. No code was copied or translated. */

/* --- src/fed/observe.h --- */
/* --- observers ------------------------------------------------------------------- */

FGLDEF void fgl_run_observe(const fgl_run *run, fgl_observed *o) {
    memset(o, 0, sizeof *o);
    o->algo = run->algo.name;
    o->set = &run->set;
    o->fed = &run->cfg;
    o->n_clients = run->n_clients;
    o->task = run->n_clients > 0 ? run->clients[0].task : 0;
    o->started = run->started;
    o->rounds = run->round;
    memcpy(o->dim, run->server.dim, sizeof o->dim);
    o->n_public = run->pub ? run->pub->n_nodes : 0;
    o->n_train = run->n_registered;
    o->n_nodes = run->n_nodes;
    o->stats = run->stats;
    o->client_val = run->client_val;
    o->client_test = run->client_test;
    o->client_loss = run->client_loss;
    o->client_up = run->client_up;
    o->client_down = run->client_down;
    o->runtime = run;
}

FGLDEF void fgl_run_report(const fgl_run *run, char *buf, size_t cap) {
    fgl_observed o;
    if (!cap) return;
    buf[0] = 0;
    if (!run->algo.report) return;
    fgl_run_observe(run, &o);
    run->algo.report(&o, buf, cap);
}

FGLDEF int fgl_run_client_matrix(const fgl_run *run, float *out) {
    fgl_observed o;
    if (!run->algo.client_matrix) return FGL_ERR_EMPTY;
    fgl_run_observe(run, &o);
    return run->algo.client_matrix(&o, out);
}

FGLDEF size_t fgl_observed_dim(const fgl_observed *o, int rule) {
    if (rule > 0) return (size_t)rule;
    return rule > -FGL_DIM_RULES ? o->dim[-rule] : 0;
}

static const fgl_run *fgl__observed_run(const fgl_observed *o) { return (const fgl_run *)o->runtime; }

FGLDEF const float *fgl_observed_floats(const fgl_observed *o, const char *name) {
    return o->started ? fgl_floats(&fgl__observed_run(o)->server.store, name) : NULL;
}

FGLDEF const int *fgl_observed_ints(const fgl_observed *o, const char *name) {
    return o->started ? fgl_ints(&fgl__observed_run(o)->server.store, name) : NULL;
}

FGLDEF const void *fgl_observed_scratch(const fgl_observed *o, const char *name) {
    return o->started ? fgl_get_scratch(&fgl__observed_run(o)->server.store, name) : NULL;
}

FGLDEF int fgl_observed_matrix(const fgl_observed *o, const char *name, float *out) {
    const fgl__entry *e;
    size_t K = (size_t)o->n_clients;
    if (!o->started) return FGL_ERR_EMPTY;
    e = fgl__store_find(&fgl__observed_run(o)->server.store, name, FGL__E_FLOATS);
    FGL_ASSERT(e); /* an entry the algorithm made */
    if (!e || e->n != K * K) return FGL_ERR_SHAPE;
    memcpy(out, e->p, sizeof(float) * K * K);
    return FGL_OK;
}

FGLDEF int fgl_observed_layout(const fgl_observed *o, int client, fgl_observed_model *m) {
    const fgl_run *run = fgl__observed_run(o);
    const fgl_model *md;
    memset(m, 0, sizeof *m);
    if (!o->started || client < 0 || client >= run->n_clients || !run->clients[client].local) return FGL_ERR_ARG;
    md = &run->clients[client].model;
    m->spec = &md->spec;
    m->slices = md->params.slices;
    m->n_slices = md->params.n;
    m->size = md->params.size;
    return FGL_OK;
}

FGLDEF int fgl_observed_params(const fgl_observed *o, int client, float *out, size_t cap) {
    if (!o->started) return FGL_ERR_ARG;
    return fgl_run_client_params(fgl__observed_run(o), client, out, cap, NULL);
}

FGLDEF void fgl_run_summarize(const fgl_run *run, fgl_run_summary *s) {
    int r;
    memset(s, 0, sizeof *s);
    s->rounds = run->round;
    s->best_round = -1;
    s->best_val_hits = s->best_test_hits = s->last_val_hits = s->last_test_hits = NAN;
    s->best_val_f1 = s->best_test_f1 = s->last_val_f1 = s->last_test_f1 = NAN;
    s->best_val_auc = s->best_test_auc = s->last_val_auc = s->last_test_auc = NAN;
    s->metric = run->cfg.metric;
    if (s->metric != FGL_METRIC_ACC) { /* the chosen metric's best round, if any round has the metric */
        double best = NAN;
        for (r = 0; r < run->round; r++) {
            double v = s->metric == FGL_METRIC_AUC ? run->stats[r].val_auc : run->stats[r].val_f1;
            if (v == v && (s->best_round < 0 || v > best)) {
                s->best_round = r;
                best = v;
            }
        }
        if (s->best_round < 0) s->metric = FGL_METRIC_ACC;
    }
    s->bytes_up = run->bytes_up;
    s->bytes_down = run->bytes_down;
    s->rejected = run->rejected_total;
    for (r = 0; r < run->round; r++) {
        const fgl_round_stats *st = &run->stats[r];
        if (s->metric == FGL_METRIC_ACC && st->val_acc == st->val_acc &&
            (s->best_round < 0 || st->val_acc > s->best_val)) { /* evaluated rounds */
            s->best_round = r;
            s->best_val = st->val_acc;
        }
        s->t_train += st->t_train;
        s->t_server += st->t_server;
        s->t_eval += st->t_eval;
        s->screened += st->n_screened;
        s->clipped += st->n_clipped;
        s->dropped += st->n_dropped;
        s->out_of_range += st->n_out_of_range;
        s->lost += st->n_lost;
        s->fallback += st->n_fallback;
    }
    if (s->best_round >= 0) {
        const fgl_round_stats *st = &run->stats[s->best_round];
        s->best_val = st->val_acc;
        s->best_test = st->test_acc;
        s->best_val_hits = st->val_hits;
        s->best_test_hits = st->test_hits;
        s->best_val_f1 = st->val_f1;
        s->best_test_f1 = st->test_f1;
        s->best_val_auc = st->val_auc;
        s->best_test_auc = st->test_auc;
    }
    if (run->round > 0) {
        const fgl_round_stats *st = &run->stats[run->round - 1];
        s->last_val_f1 = st->val_f1;
        s->last_test_f1 = st->test_f1;
        s->last_val_auc = st->val_auc;
        s->last_test_auc = st->test_auc;
        s->last_val = run->stats[run->round - 1].val_acc;
        s->last_test = run->stats[run->round - 1].test_acc;
        s->last_val_hits = run->stats[run->round - 1].val_hits;
        s->last_test_hits = run->stats[run->round - 1].test_hits;
    }
    s->seconds = s->t_train + s->t_server + s->t_eval;
}
/* --- src/fed/algos/shared.h --- */
/* --- small algorithms the methods share -------------------------------------- */
/* Simplex projection (pFedGraph's collaboration weights), a global minimum
 * cut (GCFL's cluster split), dynamic time warping (GCFL+'s comparison of
 * update-norm sequences) and probe graphs (FED-PUB's proxy graph, GPFL's
 * random graphs): each written once, here. */

/* Euclidean projection of v (k entries) onto the probability simplex into x
 * (Held, Wolfe and Crowder 1974; Duchi et al. 2008): sort descending, find
 * the largest r with s_r > (sum_{t<=r} s_t - 1)/r, shift by that threshold
 * and clip at 0. work: k doubles. */
FGL__PRIVATE void fgl__simplex_project(const double *v, int k, double *x, double *work) {
    double cum = 0, tau = 0;
    int i, j;
    for (i = 0; i < k; i++) { /* insertion sort, descending: k is the number of clients */
        double y = v[i];
        for (j = i; j > 0 && work[j - 1] < y; j--) work[j] = work[j - 1];
        work[j] = y;
    }
    for (i = 0; i < k; i++) {
        double t;
        cum += work[i];
        t = (cum - 1.0) / (i + 1);
        if (work[i] > t) tau = t; /* the condition holds for a prefix of the sorted entries */
    }
    for (i = 0; i < k; i++) x[i] = v[i] > tau ? v[i] - tau : 0.0;
}

/* Global minimum cut of the complete graph on n >= 2 vertices with symmetric
 * non-negative edge weights w (n x n, row-major, diagonal ignored), by Stoer &
 * Wagner (1997): n - 1 phases; each orders the current (merged) vertices by
 * maximum adjacency to the growing set A, the last one t is cut off with
 * weight w(A - t, t) ("cut of the phase"), then t is merged into the vertex
 * added before it. The lightest cut of the phase is a global minimum cut.
 * Ties go to the lowest index, so the result is deterministic.
 * side[i] = 1 for the vertices of the cut's side that does not hold vertex 0.
 * Returns the cut weight, or -1 if n < 2 or out of memory. O(n^3). */
FGL__PRIVATE double fgl__stoer_wagner(const double *w, int n, unsigned char *side) {
    double *a, *key, best = -1;
    int *owner, i, u, phase;
    unsigned char *alive, *in_a;
    if (n < 2) return -1;
    a = (double *)FGL_MALLOC(sizeof(double) * (size_t)n * (size_t)n);
    key = (double *)FGL_MALLOC(sizeof(double) * (size_t)n);
    owner = (int *)FGL_MALLOC(sizeof(int) * (size_t)n);
    alive = (unsigned char *)FGL_MALLOC((size_t)n);
    in_a = (unsigned char *)FGL_MALLOC((size_t)n);
    if (!a || !key || !owner || !alive || !in_a) goto done;
    for (i = 0; i < n; i++)
        for (u = 0; u < n; u++) a[(size_t)i * n + u] = i == u ? 0.0 : w[(size_t)i * n + u];
    for (i = 0; i < n; i++) {
        owner[i] = i; /* the merged vertex original vertex i belongs to */
        alive[i] = 1;
        side[i] = 0;
    }
    for (phase = 0; phase < n - 1; phase++) {
        int left = n - phase, k, prev = -1, last = -1;
        double cut = 0;
        for (i = 0; i < n; i++) {
            in_a[i] = 0;
            key[i] = 0;
        }
        for (k = 0; k < left; k++) { /* add the most tightly connected vertex */
            int v = -1;
            for (u = 0; u < n; u++)
                if (alive[u] && !in_a[u] && (v < 0 || key[u] > key[v])) v = u;
            in_a[v] = 1;
            prev = last;
            last = v;
            cut = key[v];
            for (u = 0; u < n; u++)
                if (alive[u] && !in_a[u]) key[u] += a[(size_t)v * n + u];
        }
        if (best < 0 || cut < best) {
            best = cut;
            for (i = 0; i < n; i++) side[i] = (unsigned char)(owner[i] == last);
        }
        for (u = 0; u < n; u++) { /* merge last into prev */
            a[(size_t)prev * n + u] += a[(size_t)last * n + u];
            a[(size_t)u * n + prev] = a[(size_t)prev * n + u];
        }
        a[(size_t)prev * n + prev] = 0;
        alive[last] = 0;
        for (i = 0; i < n; i++)
            if (owner[i] == last) owner[i] = prev;
    }
    if (side[0])
        for (i = 0; i < n; i++) side[i] = (unsigned char)!side[i];
done:
    FGL_FREE(a);
    FGL_FREE(key);
    FGL_FREE(owner);
    FGL_FREE(alive);
    FGL_FREE(in_a);
    return best;
}

/* Dynamic time warping distance of sequences x (n) and y (m): the cheapest
 * monotone alignment path from (0, 0) to (n-1, m-1) with steps (1,0), (0,1),
 * (1,1) and point cost (x_i - y_j)^2; returned as the square root of that
 * cost (the convention of dtaidistance's dtw.distance, which GCFL+'s code
 * uses). -1 if a sequence is empty or out of memory. */
FGL__PRIVATE double fgl__dtw(const double *x, int n, const double *y, int m) {
    double *prev, *cur, r;
    int i, j;
    if (n < 1 || m < 1) return -1;
    prev = (double *)FGL_MALLOC(sizeof(double) * (size_t)m);
    cur = (double *)FGL_MALLOC(sizeof(double) * (size_t)m);
    if (!prev || !cur) {
        FGL_FREE(prev);
        FGL_FREE(cur);
        return -1;
    }
    for (i = 0; i < n; i++) {
        for (j = 0; j < m; j++) {
            double d = (x[i] - y[j]) * (x[i] - y[j]), b;
            if (i == 0 && j == 0) b = 0;
            else if (i == 0) b = cur[j - 1];
            else if (j == 0) b = prev[j];
            else {
                b = prev[j - 1];
                if (prev[j] < b) b = prev[j];
                if (cur[j - 1] < b) b = cur[j - 1];
            }
            cur[j] = d + b;
        }
        for (j = 0; j < m; j++) prev[j] = cur[j];
    }
    r = sqrt(prev[m - 1]);
    FGL_FREE(prev);
    FGL_FREE(cur);
    return r;
}

/* A probe: graphs every client builds alike from the run seed, to report
 * what its model makes of them (FED-PUB's proxy graph, GPFL's random
 * graphs): n nodes in n_graphs graphs side by side (graph g holds nodes
 * offsets[g] .. offsets[g + 1] - 1), their features (n x in_dim, zeroed
 * until the algorithm writes them) and the model's view. Client scratch:
 * rebuilt from the seed, never checkpointed. */
typedef struct fgl__probe {
    int n, n_graphs, in_dim;
    fgl_csr adj;
    float *x;
    int *offsets;
    fgl_gnn_graph g;
    int *src, *dst, m, cap; /* the edges while they are drawn */
} fgl__probe;

static void fgl__probe_free(void *p) {
    fgl__probe *pb = (fgl__probe *)p;
    fgl_gnn_graph_free(&pb->g);
    fgl_csr_free(&pb->adj);
    FGL_FREE(pb->x);
    FGL_FREE(pb->offsets);
    FGL_FREE(pb->src);
    FGL_FREE(pb->dst);
}

/* A new probe of n nodes and n_graphs graphs in c's scratch, or NULL (out
 * of memory). */
static fgl__probe *fgl__probe_new(fgl_client *c, const char *name, int n, int n_graphs) {
    int F = c->model.spec.in_dim;
    fgl__probe *pb = (fgl__probe *)fgl_new_scratch(&c->store, name, sizeof(fgl__probe), fgl__probe_free);
    if (!pb) return NULL;
    pb->n = n;
    pb->n_graphs = n_graphs;
    pb->in_dim = F;
    pb->x = (float *)FGL_MALLOC(sizeof(float) * (size_t)n * (size_t)F);
    pb->offsets = (int *)FGL_MALLOC(sizeof(int) * (size_t)(n_graphs + 1));
    if (!pb->x || !pb->offsets) return NULL;
    memset(pb->x, 0, sizeof(float) * (size_t)n * (size_t)F);
    pb->offsets[0] = 0;
    pb->offsets[n_graphs] = n;
    return pb;
}

/* Add the edge (i, j) (either direction; the adjacency is symmetrised). */
static int fgl__probe_edge(fgl__probe *pb, int i, int j) {
    if (pb->m == pb->cap) {
        int cap = pb->cap ? 2 * pb->cap : 1024, *ns, *nd;
        ns = (int *)FGL_REALLOC(pb->src, sizeof(int) * (size_t)cap);
        if (ns) pb->src = ns;
        nd = (int *)FGL_REALLOC(pb->dst, sizeof(int) * (size_t)cap);
        if (nd) pb->dst = nd;
        if (!ns || !nd) return FGL_ERR_NOMEM;
        pb->cap = cap;
    }
    pb->src[pb->m] = i;
    pb->dst[pb->m++] = j;
    return FGL_OK;
}

/* The adjacency from the edges added (then dropped). */
static int fgl__probe_adjacency(fgl__probe *pb, fgl_error *err) {
    int rc = fgl_graph_from_edges(pb->n, pb->src, pb->dst, pb->m, FGL_EDGES_SYMMETRIZE, &pb->adj, err);
    FGL_FREE(pb->src);
    FGL_FREE(pb->dst);
    pb->src = pb->dst = NULL;
    pb->m = pb->cap = 0;
    return rc;
}

/* The model's view, once the features are written: graph tasks see the
 * n_graphs graphs, node tasks one graph of n nodes. */
static int fgl__probe_view(fgl__probe *pb, const fgl_client *c, fgl_error *err) {
    int graphs = c->task == FGL_TASK_GRAPH;
    return fgl_gnn_graph_make(&pb->g, &pb->adj, NULL, pb->x, NULL, pb->in_dim, NULL, 0, graphs ? pb->offsets : NULL,
                              graphs ? pb->n_graphs : 0, &c->model.spec, err);
}
/* --- src/fed/algos/local.h --- */
/* --- Local: no communication ------------------------------------------------------ */

static fgl_algo fgl__local(void) {
    return fgl_algo_new("local", "self-training: each client trains alone, nothing is sent");
}
/* --- src/fed/algos/fedavg.h --- */
/* --- Weight averaging: FedAvg, FedProx, FedPer (FedStar: fedstar.h) --------------- */
/* One mechanism, four published defaults: the server keeps the global vector
 * of the shared groups; clients send those groups and their training-sample
 * count; the server averages by count:
 *     theta = sum_i n_i theta_i / sum_i n_i.
 * FedProx adds mu (theta - theta_global) to the gradient, the derivative of
 * mu/2 ||theta - theta_global||^2. Sent: up 4 (n + 1), down 4 n bytes. */

static int fgl__avg_server_init(fgl_server *s) {
    float *g = fgl_new_floats(&s->store, "global", s->n_shared);
    if (!g) return FGL_ERR_NOMEM;
    fgl_server_pack(s, s->init, g); /* the common initial model */
    return FGL_OK;
}

static int fgl__avg_aggregate(fgl_server *s) {
    return fgl_server_mean(s, "theta", fgl_floats(&s->store, "global")); /* (empty: the model stays) */
}

/* The weight-averaging base that FedAvg, Ditto and MOON extend: the share
 * parameter, the messages and the server. */
static fgl_algo fgl__avg_base(const char *name, const char *summary, unsigned share, const char *share_help) {
    fgl_algo a = fgl_algo_new(name, summary);
    fgl_algo_param_add(&a, "share", FGL_PARAM_GROUPS, (double)share, share_help);
    fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, 0, 0, 0);
    fgl_algo_upload(&a, "n", FGL_SEND_WEIGHT, 0, 0, 0);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, 0, "global");
    a.server_init = fgl__avg_server_init;
    a.aggregate = fgl__avg_aggregate;
    return a;
}

static int fgl__prox_grad(fgl_client *c, const fgl_step *st) {
    float mu = (float)fgl_get(c->set, "mu");
    if (mu > 0) fgl_client_prox_grad(c, &st->model->params, mu);
    return FGL_OK;
}

static fgl_algo fgl__fedavg_like(const char *name, const char *summary, unsigned share, const char *share_help,
                                 double mu, const char *mu_help) {
    fgl_algo a = fgl__avg_base(name, summary, share, share_help);
    fgl_algo_param_add(&a, "mu", FGL_PARAM_FLOAT, mu, mu_help);
    a.train.grad = fgl__prox_grad;
    return a;
}

/* FedAvg's weights = equal (FED-PUB's code weighs every client alike):
 * theta = the plain mean of the uploads. */
static int fgl__fedavg_server_init(fgl_server *s) {
    if (fgl_get(s->set, "weights") != 0 && fgl_get(s->set, "weights") != 1)
        return fgl_server_fail(s, FGL_ERR_ARG, "fedavg: weights must be samples (0) or equal (1), not %g",
                               fgl_get(s->set, "weights"));
    if (fgl_get(s->set, "weights") == 1 && (s->fed->secagg.on || s->fed->robust.rule == FGL_ROBUST_NORMCLIP))
        return fgl_server_fail(s, FGL_ERR_ARG, "fedavg: weights=equal is not defined with %s, which weigh by samples",
                               s->fed->secagg.on ? "secure aggregation" : "normclip");
    return fgl__avg_server_init(s);
}

static int fgl__fedavg_aggregate(fgl_server *s) {
    return fgl_get(s->set, "weights") == 1 ? fgl_server_plain_mean(s, "theta", fgl_floats(&s->store, "global"))
                                           : fgl_server_mean(s, "theta", fgl_floats(&s->store, "global"));
}

static fgl_algo fgl__fedavg(void) {
    fgl_algo a = fgl__fedavg_like("fedavg", "McMahan et al. 2017: average the shared parameters weighted by training "
                                  "samples", FGL_G_ALL, "parameter groups averaged", 0.0, "proximal weight (FedProx)");
    fgl_algo_param_add(&a, "weights", FGL_PARAM_INT, 0, "clients weighted by training samples (samples, the "
                       "default) or alike (equal: FED-PUB's code)");
    fgl_algo_param_choices(&a, "weights", "samples|equal");
    a.server_init = fgl__fedavg_server_init;
    a.aggregate = fgl__fedavg_aggregate;
    return a;
}

static fgl_algo fgl__fedprox(void) {
    return fgl__fedavg_like("fedprox", "Li et al. 2020: FedAvg plus a proximal term to the global model", FGL_G_ALL,
                            "parameter groups averaged", 0.01, "proximal weight mu/2 ||theta - theta_global||^2");
}

static fgl_algo fgl__fedper(void) {
    return fgl__fedavg_like("fedper", "Arivazhagan et al. 2019: FedAvg of everything but the personal classifier head",
                            FGL_G_ALL & ~(unsigned)FGL_G_HEAD,
                            "parameter groups averaged (all but the classifier head)", 0.0, "proximal weight");
}
/* --- src/fed/algos/scaffold.h --- */
/* --- SCAFFOLD: control variates (FedDC, feddc.h, shares them) --------------------- */
/* Notation of docs/algorithms.md: theta the shared parameters (n floats),
 * m the floats of their *trainable* slices (control variates and drifts live
 * there: batch-norm statistics and fixed GIN epsilons have no gradient to
 * correct), K clients, n_i training samples.
 *
 * SCAFFOLD (Karimireddy et al. 2020). Server: theta and its control variate
 * c (m). Client i: its variate c_i (m). Local steps use the gradient
 * g + c - c_i. After training (option II of the paper)
 *     c_i+ = c_i - c + (theta_global - theta_i) / (steps * lr),
 * steps = the optimizer steps taken, lr = the client's optimizer lr. The
 * formula assumes plain SGD; fgl applies it with whatever optimizer the
 * client is configured with (Adam by the protocols), as the published graph
 * FL baselines do: with Adam the variates are a rescaled mean update
 * direction rather than a mean gradient, of about unit size per
 * coordinate, which swamps the gradients (on Cora it stalls at the majority
 * class). variate = 1 replaces it by the mean uncorrected gradient of the
 * local steps: the same under plain SGD (tested), gradient-sized under Adam.
 * Sent: down theta + c = 4 (n + m) bytes; up dtheta = theta_i - theta_global
 * (n), dc = c_i+ - c_i (m) and n_i (1) = 4 (n + m + 1) bytes.
 * Server: theta += sum n_i dtheta_i / sum n_i (global lr 1);
 *         c += (|S| / K) mean_S dc_i, S the accepted uploads.
 *
 *
 * FedDC (feddc.h) is built on the same machinery (its drift and weighted
 * variates are the FGL__CV_FEDDC branches below). */


static int fgl__cv_server_init(fgl_server *s) {
    float *theta = fgl_new_floats(&s->store, "theta", s->n_shared);
    fgl_new_floats(&s->store, "c", s->n_trainable);
    if (!theta) return FGL_ERR_NOMEM;
    fgl_server_pack(s, s->init, theta); /* the common initial model */
    if (s->algo->variant == FGL__CV_FEDDC) { /* relative data sizes, from registration */
        float *w = fgl_new_floats(&s->store, "w", (size_t)s->n_clients);
        double total = 0;
        int i, weighted = fgl_get(s->set, "weighted") != 0;
        if (!w) return FGL_ERR_NOMEM;
        for (i = 0; i < s->n_clients; i++) total += s->n_registered[i];
        for (i = 0; i < s->n_clients; i++)
            w[i] = weighted && total > 0 ? (float)(s->n_clients * (double)s->n_registered[i] / total) : 1.0f;
    }
    return s->store.err;
}

static int fgl__cv_client_init(fgl_client *c) {
    fgl_new_floats(&c->store, "ci", c->n_trainable);
    fgl_new_floats(&c->store, "dc", c->n_trainable);
    fgl_new_scratch(&c->store, "gsum", sizeof(double) * FGL__MAX(c->n_trainable, 1), NULL); /* reset every round */
    if (c->algo->variant == FGL__CV_FEDDC) fgl_new_floats(&c->store, "h", c->n_trainable);
    return c->store.err;
}

/* w_i as received (FedDC), 1 for SCAFFOLD. */
static float fgl__cv_w(const fgl_client *c) {
    const float *w = c->algo->variant == FGL__CV_FEDDC ? fgl_down(c, "w") : NULL;
    return w ? w[0] : 1.0f;
}

static int fgl__cv_receive(fgl_client *c) {
    float w = fgl__cv_w(c);
    if (!(w > 0)) return fgl_client_fail(c, FGL_ERR_ARG, "feddc: weight %g", (double)w);
    return FGL_OK;
}

/* The local gradient on the trainable shared floats (k: their index): with a
 * drift (FedDC) first g += a (theta + h_i - theta_global), a = alpha_i; then,
 * variate 1, the gradient so far into the round's sum; then the correction
 * g += c/w_i - c_i (SCAFFOLD: w_i = 1, g += c - c_i). */
static int fgl__cv_grad(fgl_client *c, const fgl_step *st) {
    fgl_params *ps = &st->model->params;
    const float *ci = fgl_floats(&c->store, "ci"), *crecv = fgl_down(c, "c"), *w0 = fgl_received(c);
    const float *h = c->algo->variant == FGL__CV_FEDDC ? fgl_floats(&c->store, "h") : NULL;
    double *gsum = (double *)fgl_get_scratch(&c->store, "gsum");
    int variate = fgl_get(c->set, "variate") != 0, q;
    float wi = fgl__cv_w(c), inv_w = 1.0f / wi, a = h ? (float)fgl_get(c->set, "alpha") / wi : 0.0f;
    size_t j;
    for (q = 0; q < c->n_span; q++) {
        const fgl_span *sp = &c->span[q];
        float *g = ps->grad + sp->offset;
        const float *w = ps->data + sp->offset, *r = w0 + sp->packed;
        if (!sp->trainable) continue;
        for (j = 0; j < sp->len; j++) {
            size_t k = sp->trained + j;
            if (h) g[j] += a * (w[j] + h[k] - r[j]);
            if (variate) gsum[k] += g[j];
            g[j] += inv_w * crecv[k] - ci[k];
        }
    }
    return FGL_OK;
}

/* Local training, then on the trainable shared floats: dtheta = theta_i -
 * theta_global, FedDC's drift h_i += dtheta, and the new variate
 *   variate 0: c_i+ = c_i - c/w_i - dtheta / (steps lr)  (w_i = 1 for SCAFFOLD)
 *   variate 1: c_i+ = the mean over the local steps of the gradient before
 *              the correction was added;
 * dc_i = w_i (c_i+ - c_i) is what the upload carries. */
static int fgl__cv_train(fgl_client *c) {
    float *ci = fgl_floats(&c->store, "ci"), *dc = fgl_floats(&c->store, "dc");
    float *h = c->algo->variant == FGL__CV_FEDDC ? fgl_floats(&c->store, "h") : NULL;
    const float *crecv = fgl_down(c, "c"), *w0 = fgl_received(c);
    double *gsum = (double *)fgl_get_scratch(&c->store, "gsum"), lr_steps, inv;
    int variate = fgl_get(c->set, "variate") != 0, q, rc;
    float wi = fgl__cv_w(c);
    size_t j;
    memset(gsum, 0, sizeof(double) * c->n_trainable);
    if ((rc = fgl_client_train(c, &c->model, &c->optim, &c->algo->train))) return rc;
    lr_steps = (double)c->steps * (double)c->optim.cfg.lr;
    inv = lr_steps > 0 ? 1.0 / lr_steps : 0.0;
    for (q = 0; q < c->n_span; q++) {
        const fgl_span *sp = &c->span[q];
        const float *now = c->model.params.data + sp->offset, *before = w0 + sp->packed;
        if (!sp->trainable) continue;
        for (j = 0; j < sp->len; j++) {
            size_t k = sp->trained + j;
            double d = (double)now[j] - before[j];
            float ci_new = c->steps == 0 ? ci[k]
                           : variate    ? (float)(gsum[k] / c->steps)
                                        : (float)(ci[k] - (double)crecv[k] / wi - d * inv);
            if (h) h[k] = (float)(h[k] + d);
            dc[k] = (ci_new - ci[k]) * wi;
            ci[k] = ci_new;
        }
    }
    return FGL_OK;
}

static int fgl__cv_upload(fgl_client *c) {
    memcpy(fgl_up(c, "dc"), fgl_floats(&c->store, "dc"), sizeof(float) * c->n_trainable);
    if (c->algo->variant == FGL__CV_FEDDC) { /* theta_i + h_i; h only on trainable floats */
        float *th = fgl_up(c, "theta_h");
        const float *h = fgl_floats(&c->store, "h");
        int q;
        size_t j;
        for (q = 0; q < c->n_span; q++) {
            const fgl_span *sp = &c->span[q];
            const float *w = c->model.params.data + sp->offset;
            for (j = 0; j < sp->len; j++) th[sp->packed + j] = sp->trainable ? w[j] + h[sp->trained + j] : w[j];
        }
    }
    return FGL_OK;
}

/* c += (|S| / K) mean_S dc_i, i.e. (1/K) sum_S dc_i. */
static int fgl__cv_update_c(fgl_server *s) {
    float *c = fgl_floats(&s->store, "c"),
          *tmp = (float *)fgl_scratch(&s->store, sizeof(float) * FGL__MAX(s->n_trainable, 1));
    double frac = (double)s->n_accepted / s->n_clients;
    size_t k;
    int rc;
    if (!tmp) return FGL_ERR_NOMEM;
    if ((rc = fgl_server_plain_mean(s, "dc", tmp))) return rc;
    for (k = 0; k < s->n_trainable; k++) c[k] = (float)(c[k] + frac * tmp[k]);
    return FGL_OK;
}

static int fgl__scaf_aggregate(fgl_server *s) {
    float *theta = fgl_floats(&s->store, "theta"),
          *tmp = (float *)fgl_scratch(&s->store, sizeof(float) * FGL__MAX(s->n_shared, 1));
    size_t k;
    int rc;
    if (!tmp) return FGL_ERR_NOMEM;
    rc = fgl_server_mean(s, "dtheta", tmp);
    if (rc) return rc; /* (FGL_ERR_EMPTY: nothing accepted, the server state stays) */
    for (k = 0; k < s->n_shared; k++) theta[k] += tmp[k];
    return fgl__cv_update_c(s);
}

static fgl_algo fgl__cv_base(const char *name, const char *summary, const char *share_help) {
    fgl_algo a = fgl_algo_new(name, summary);
    fgl_algo_param_add(&a, "share", FGL_PARAM_GROUPS, (double)FGL_G_ALL, share_help);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, 0, "theta");
    fgl_algo_download(&a, "c", FGL_SEND_DATA, FGL_DIM_TRAINABLE, 1, 0, "c");
    a.server_init = fgl__cv_server_init;
    a.client_init = fgl__cv_client_init;
    a.receive = fgl__cv_receive;
    a.local_train = fgl__cv_train;
    a.train.grad = fgl__cv_grad;
    a.upload = fgl__cv_upload;
    return a;
}

static fgl_algo fgl__scaffold(void) {
    fgl_algo a = fgl__cv_base("scaffold",
                              "Karimireddy et al. 2020: FedAvg with server/client control variates "
                              "correcting client drift",
                              "parameter groups averaged and corrected by the control variates");
    fgl_algo_param_add(
        &a, "variate", FGL_PARAM_INT, 1,
        "1: mean uncorrected gradient of the local steps (option I of the paper when, as in full-batch node "
        "tasks, the one step starts at the global model); 0: c_i+ = c_i - c + (theta_global - theta_i)/(steps lr) "
        "(option II, which assumes SGD: under the protocols' Adam it stalls, Cora/5 clients/30 rounds 30% vs 76%)");
    fgl_algo_upload(&a, "dtheta", FGL_SEND_DELTA, 0, 0, 0);
    /* dc reaches the server's c through the plain mean (SCAFFOLD's update of c) */
    fgl_algo_upload(&a, "dc", FGL_SEND_DATA, FGL_DIM_TRAINABLE, 1, FGL_PART_RAW);
    fgl_algo_upload(&a, "n", FGL_SEND_WEIGHT, 0, 0, 0);
    a.aggregate = fgl__scaf_aggregate;
    a.variant = FGL__CV_SCAFFOLD;
    return a;
}
/* --- src/fed/algos/ditto.h --- */
/* --- Ditto (Li et al. 2021) ------------------------------------------------------- */
/* FedAvg's global model (its messages and server: down 4 n, up 4 (n + 1)
 * bytes). Each client also keeps a personal model v_i (same spec, own
 * optimizer, never sent) trained every round, after the global copy, on
 *     CE(v_i) + lambda/2 ||v_i - theta_global||^2
 * over the shared groups, theta_global = the model received this round
 * (Ditto's Algorithm 1). Evaluation uses v_i. lambda = 1: docs/algorithms.md
 * gives none; 1 is the default of the Ditto baseline in the pFedGraph
 * authors' code, inside the Ditto paper's grid. The reported training loss
 * is the personal model's (the one evaluated). */

static int fgl__ditto_client_init(fgl_client *c) {
    /* same spec and seed: v_i starts equal to the client's model */
    fgl_model *v = fgl_new_model(&c->store, "personal", &c->model.spec, c->fed->seed);
    if (!v) return FGL_ERR_NOMEM;
    fgl_new_optim(&c->store, "personal_optim", c->fed->optim, &v->params);
    return c->store.err;
}

static int fgl__ditto_grad(fgl_client *c, const fgl_step *st) {
    float lambda = (float)fgl_get(c->set, "lambda");
    if (lambda != 0) fgl_client_prox_grad(c, &st->model->params, lambda);
    return FGL_OK;
}

static int fgl__ditto_train(fgl_client *c) {
    fgl_train_hooks personal;
    int rc = fgl_client_train(c, &c->model, &c->optim, NULL); /* the global copy: plain FedAvg */
    if (rc) return rc;
    memset(&personal, 0, sizeof personal);
    personal.grad = fgl__ditto_grad;
    return fgl_client_train(c, fgl_get_model(&c->store, "personal"), fgl_get_optim(&c->store, "personal_optim"),
                            &personal);
}

static fgl_model *fgl__ditto_eval(fgl_client *c) { return fgl_get_model(&c->store, "personal"); }

static fgl_algo fgl__ditto(void) {
    fgl_algo a = fgl__avg_base(
        "ditto",
        "Li et al. 2021: FedAvg global model plus a personal model pulled towards it, "
        "evaluated personally",
        FGL_G_ALL, "parameter groups of the global model (averaged) and of the personal model's proximal term");
    fgl_algo_param_add(&a, "lambda", FGL_PARAM_FLOAT, 1.0,
                       "personal model's proximal weight lambda/2 ||v_i - theta_global||^2");
    a.client_init = fgl__ditto_client_init;
    a.local_train = fgl__ditto_train;
    a.eval_model = fgl__ditto_eval;
    return a;
}

/* --- src/fed/algos/moon.h --- */
/* --- MOON (Li, He and Song 2021) --------------------------------------------------- */
/* FedAvg's messages and server (down 4 n, up 4 (n + 1) bytes) with a
 * model-contrastive term in the local loss:
 *     mu * mean_rows -log( e^{cos(z, z_glob)/T} / (e^{cos(z, z_glob)/T} + e^{cos(z, z_prev)/T}) )
 * z = the representation the classifier reads (fwd.rep: activated node
 * embeddings, or the graph readout) of the model being trained, z_glob of
 * the model received this round, z_prev of this client's model after its
 * previous local training. Rows: the step's training rows (train nodes, or
 * the graphs of the batch). The two reference models run on the same graph
 * in evaluation mode (no dropout, running batch-norm statistics: MOON's code
 * uses them frozen) on a scratch tape; their outputs enter the loss as
 * constants, so gradients reach only the local model. The paper applies the
 * term from the second round (no previous model before: its pool is empty),
 * as here. T = 0.5 (paper and code); mu = 1, the code's default and the
 * paper's value for CIFAR-100/Tiny-ImageNet (5 for CIFAR-10). MOON's
 * projection head is not added: z is the model's own representation. */

static int fgl__moon_client_init(fgl_client *c) {
    fgl_new_model(&c->store, "glob", &c->model.spec, c->fed->seed); /* refilled before every local training */
    fgl_new_model(&c->store, "prev", &c->model.spec, c->fed->seed);
    fgl_new_ints(&c->store, "has_prev", 1);
    fgl_new_tape(&c->store, "ref");
    return c->store.err;
}

/* The representation of a reference model on the step's graph, copied onto
 * the training tape as a constant (NULL on error, recorded on the client). */
static fgl_node *fgl__moon_ref(fgl_client *c, fgl_model *m, const fgl_step *st) {
    fgl_tape *ref = fgl_get_tape(&c->store, "ref");
    fgl_forward fw;
    float *copy;
    size_t bytes;
    fgl_tape_reset(ref);
    if (fgl_model_forward(m, ref, st->g, 0, NULL, &fw) || !fw.rep) {
        fgl_client_fail(c, ref->err ? ref->err : FGL_ERR_ARG, "moon reference model: %s", ref->msg);
        return NULL;
    }
    bytes = sizeof(float) * (size_t)fw.rep->rows * (size_t)fw.rep->cols;
    copy = (float *)fgl_tape_alloc(st->t, bytes);
    if (!copy) return NULL;
    memcpy(copy, fw.rep->val, bytes);
    return fgl_op_const(st->t, copy, fw.rep->rows, fw.rep->cols);
}

static fgl_node *fgl__moon_loss(fgl_client *c, const fgl_step *st) {
    float mu = (float)fgl_get(c->set, "mu"), T = (float)fgl_get(c->set, "temperature");
    fgl_node *z = st->fwd->rep, *zg, *zp, *logits;
    int *zeros;
    if (!fgl_ints(&c->store, "has_prev")[0] || mu == 0 || !z) return NULL;
    zg = fgl__moon_ref(c, fgl_get_model(&c->store, "glob"), st);
    zp = zg ? fgl__moon_ref(c, fgl_get_model(&c->store, "prev"), st) : NULL;
    if (!zg || !zp) return NULL;
    zeros = (int *)fgl_tape_alloc(st->t, sizeof(int) * (size_t)FGL__MAX(z->rows, 1)); /* label 0: the positive pair */
    if (!zeros) return NULL;
    logits = fgl_op_scale(
        st->t, fgl_op_concat2(st->t, fgl_op_cosine_rows(st->t, z, zg), fgl_op_cosine_rows(st->t, z, zp)), 1.0f / T);
    return fgl_op_scale(st->t, fgl_op_cross_entropy(st->t, logits, zeros, st->mask), mu);
}

static int fgl__moon_train(fgl_client *c) {
    fgl_model *glob = fgl_get_model(&c->store, "glob"), *prev = fgl_get_model(&c->store, "prev");
    int rc;
    if (!(fgl_get(c->set, "temperature") > 0))
        return fgl_client_fail(c, FGL_ERR_ARG, "moon: temperature must be positive");
    if ((rc = fgl_params_copy(&glob->params, &c->model.params, FGL_G_ALL))) /* the model as it starts the round */
        return fgl_client_fail(c, rc, "moon: model layout changed");
    if ((rc = fgl_client_train(c, &c->model, &c->optim, &c->algo->train))) return rc;
    if ((rc = fgl_params_copy(&prev->params, &c->model.params, FGL_G_ALL)))
        return fgl_client_fail(c, rc, "moon: model layout changed");
    fgl_ints(&c->store, "has_prev")[0] = 1;
    return FGL_OK;
}

static fgl_algo fgl__moon(void) {
    fgl_algo a = fgl__avg_base("moon",
                               "Li et al. 2021: FedAvg plus a contrastive term pulling representations to the "
                               "global model's, away from the previous local model's",
                               FGL_G_ALL, "parameter groups averaged");
    fgl_algo_param_add(&a, "mu", FGL_PARAM_FLOAT, 1.0, "weight of the model-contrastive term");
    fgl_algo_param_add(&a, "temperature", FGL_PARAM_FLOAT, 0.5, "cosine temperature T");
    a.client_init = fgl__moon_client_init;
    a.local_train = fgl__moon_train;
    a.train.loss = fgl__moon_loss;
    return a;
}

/* --- src/fed/algos/feddc.h --- */
/* --- FedDC (Gao et al., CVPR 2022) ------------------------------------------------ */
/* SCAFFOLD's control-variate machinery (scaffold.h: fgl__cv_*, the
 * FGL__CV_FEDDC branches) with a local drift per client.
 *
 * Client i keeps a drift h_i and SCAFFOLD-style
 * variates, all over the trainable shared floats. Its local objective is
 *     CE(theta) + alpha_i/2 ||theta + h_i - theta_global||^2 + <theta, c/w_i - c_i>,
 * i.e. the gradient gets alpha_i (theta + h_i - theta_global) + c/w_i - c_i.
 * After training, with dtheta = theta_i - theta_global: h_i += dtheta;
 * c_i+ = c_i - c/w_i - dtheta / (steps * lr) (as SCAFFOLD, variate = 1
 * likewise); it uploads theta_i + h_i (n; h is 0 on untrained floats) and
 * dc_i = w_i (c_i+ - c_i) (m). Server: theta_global = mean over accepted
 * clients of (theta_i + h_i); c += (1/K) sum dc_i. w_i = K n_i / sum_j n_j
 * and alpha_i = alpha / w_i follow the authors' code (the paper uses one
 * alpha and unweighted variates: weighted = 0 gives that, w_i = 1). The
 * code's cloud model is mean_S theta_i + mean over *all* clients of h_j (the
 * server reads every drift); here each client sends its own theta_i + h_i as
 * the paper's Algorithm 1 says: the same with every client taking part. The
 * server knows the n_i from registration and sends each client its w_i.
 * Sent: down theta (n) + c (m) + w_i (1) = 4 (n + m + 1) bytes;
 *       up theta_i + h_i (n) + dc_i (m) = 4 (n + m) bytes.
 * alpha = 0.01: the authors' code for CIFAR (0.1 for MNIST-like data).
 * Under the protocols' Adam the drift h_i, the running sum of the client's
 * updates, grows faster than alpha pulls it back: the global model's norm
 * keeps growing and on Cora (5 METIS clients) FedDC stays near the majority
 * class; this is the published method as its code runs it, not tuned. */

static int fgl__feddc_aggregate(fgl_server *s) {
    int rc = fgl_server_plain_mean(s, "theta_h", fgl_floats(&s->store, "theta"));
    if (rc) return rc; /* (FGL_ERR_EMPTY: nothing accepted, the state stays) */
    return fgl__cv_update_c(s);
}

static fgl_algo fgl__feddc(void) {
    fgl_algo a = fgl__cv_base("feddc", "Gao et al. 2022: local drift variables decouple local and global models, plus "
                              "SCAFFOLD-style gradient correction", "parameter groups shared");
    fgl_algo_param_add(&a, "alpha", FGL_PARAM_FLOAT, 0.01,
                       "drift penalty alpha/2 ||theta + h_i - theta_global||^2 (authors' code: 0.01 CIFAR, 0.1 MNIST)");
    fgl_algo_param_add(&a, "weighted", FGL_PARAM_INT, 1,
                       "1: alpha and variates scaled by the relative data size w_i = K n_i / sum n (authors' code); 0: "
                       "w_i = 1 (paper)");
    fgl_algo_param_add(
        &a, "variate", FGL_PARAM_INT, 1,
        "1: mean uncorrected gradient (see scaffold); 0: the authors' update c_i - c/w_i - dtheta/(steps lr), "
        "which assumes SGD");
    fgl_algo_download(&a, "w", FGL_SEND_DATA, 1, 1, FGL_PART_ROW, "w");
    fgl_algo_upload(&a, "theta_h", FGL_SEND_DATA, FGL_DIM_SHARED, 1, FGL_PART_RAW); /* averaged by the plain mean */
    fgl_algo_upload(&a, "dc", FGL_SEND_DATA, FGL_DIM_TRAINABLE, 1, FGL_PART_RAW);
    a.aggregate = fgl__feddc_aggregate;
    a.variant = FGL__CV_FEDDC;
    return a;
}

/* --- src/fed/algos/gcfl.h --- */
/* --- GCFL and GCFL+ (Xie et al., NeurIPS 2021) ------------------------------------- */
/* Clustered FL for non-IID graphs. Sends: up Delta theta_i on the shared
 * groups (n floats) + the client's training-graph count (1 float) [+ GCFL+
 * with seq_grad=1: the norm of the last local step's gradient on the shared
 * groups, 1 float]; down the client's shared parameters (n floats).
 * Computes: the server keeps a cluster id per client (start: one cluster) and
 * each client's shared parameters theta_i; inside a cluster
 * theta_i += sum_j n_j Delta theta_j / sum_j n_j over the cluster's accepted
 * members. Before aggregating, a cluster of more than 2 clients is split in
 * two when ||mean_j Delta theta_j|| < eps1 (the plain mean, as the authors'
 * code) and max_j ||Delta theta_j|| > eps2, after `warmup` rounds (the
 * authors' c_round > 20). GCFL cuts the complete graph on the cluster's
 * members weighted cos(Delta theta_i, Delta theta_j) + 1 by a minimum cut
 * (Stoer-Wagner). GCFL+ also keeps, per client, the sequence of its update
 * norms ||Delta theta_i|| (docs/algorithms.md; authors' run_gcflplus_dWs) or,
 * with seq_grad=1, of the gradient norms of its last local step (the authors'
 * run_gcflplus); it splits only when every client's sequence holds seq_length
 * values, and then cuts by the DTW distances D_ij of the clients' last
 * seq_length values, with weights max(D) - D_ij (max over the cluster's
 * symmetric, zero-diagonal matrix, as dtaidistance's distance_matrix gives
 * it), each sequence divided by its standard deviation first if
 * standardize=1. After a GCFL+ split every client's sequence starts again
 * (so at most one GCFL+ split per round), as in the authors' code.
 * Choices: share defaults to conv (GCFL's code shares the GIN convolution
 * layers; input projection and head stay local), one default for both tasks:
 * for node-task models pass share=all. A cluster with a member whose upload
 * is missing this round (not sampled, rejected) is not split that round (the
 * authors always use every client). The side of a cut holding the cluster's
 * lowest client keeps the cluster id; the other side gets a new one.
 * Evaluation uses each client's own model, never a best over cached cluster
 * models (the authors' code reports that, which is optimistic). Reference:
 * Xie, Ma, Xu and Yang, "Federated Graph Classification over Non-IID
 * Graphs", NeurIPS 2021. */


static int fgl__gcfl_plus(const fgl_server *s) { return s->algo->variant == FGL__GCFL_PLUS; }

static int fgl__gcfl_server_init(fgl_server *s) {
    size_t K = (size_t)s->n_clients, i;
    int L = fgl__gcfl_plus(s) ? (int)fgl_get(s->set, "seq_length") : 1;
    float *theta;
    int *meta;
    if (L < 1)
        return fgl_server_fail(s, FGL_ERR_ARG, "%s: seq_length must be at least 1 (the paper uses 5..10)",
                               s->algo->name);
    theta = fgl_new_floats(&s->store, "theta", K * s->n_shared);
    fgl_new_ints(&s->store, "cluster", K);           /* everyone starts in cluster 0 */
    meta = fgl_new_ints(&s->store, "meta", 2);       /* cluster ids used so far (never reused), splits so far */
    fgl_new_floats(&s->store, "seq", K * (size_t)L); /* GCFL+: each client's last values, oldest first */
    fgl_new_ints(&s->store, "seq_len", K);
    if (s->store.err) return s->store.err;
    meta[0] = 1;
    /* the server's initial model for everyone: the common initialisation
     * (the authors' clients all download one model) */
    for (i = 0; i < K; i++) fgl_server_pack(s, s->init, theta + i * s->n_shared);
    return FGL_OK;
}

/* GCFL+ with seq_grad: the norm of the last local step's gradient on the
 * shared groups; otherwise that part is left out. */
static int fgl__gcfl_upload(fgl_client *c) {
    const fgl_params *ps = &c->model.params;
    double sq = 0;
    int i;
    if (c->algo->variant != FGL__GCFL_PLUS) return FGL_OK;
    if (fgl_get(c->set, "seq_grad") == 0) {
        fgl_up_drop(c, "gnorm");
        return FGL_OK;
    }
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *sl = &ps->slices[i];
        if (fgl_slice_selected(sl, c->share, c->keep))
            sq += fgl_dot(fgl_slice_size(sl), ps->grad + sl->offset, ps->grad + sl->offset);
    }
    fgl_up(c, "gnorm")[0] = (float)sqrt(sq);
    return FGL_OK;
}

/* Split cluster members mem[0..m-1] (all with accepted uploads) in two by a
 * minimum cut; the side without mem[0] moves to a new cluster id. */
static int fgl__gcfl_split(fgl_server *s, const int *mem, int m) {
    int plus = fgl__gcfl_plus(s), L = plus ? (int)fgl_get(s->set, "seq_length") : 1, a, b;
    int standardize = plus && fgl_get(s->set, "standardize") != 0;
    const float *seq = fgl_floats(&s->store, "seq");
    int *cluster = fgl_ints(&s->store, "cluster"), *meta = fgl_ints(&s->store, "meta");
    double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)m * (size_t)m);
    double *seqs = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)m * (size_t)L);
    unsigned char *side = (unsigned char *)fgl_scratch(&s->store, (size_t)m);
    if (!w || !seqs || !side) return FGL_ERR_NOMEM;
    if (!plus) { /* cosine similarity of the updates, + 1 (non-negative) */
        for (a = 0; a < m; a++)
            for (b = 0; b < m; b++)
                w[(size_t)a * m + b] =
                    fgl_cosine(s->n_shared, fgl_upload(s, mem[a], "delta"), fgl_upload(s, mem[b], "delta")) + 1.0;
    } else { /* max(D) - D with D the DTW distances of the norm sequences */
        double dmax = 0;
        for (a = 0; a < m; a++) {
            double *q = seqs + (size_t)a * L, mean = 0, var = 0;
            int t;
            for (t = 0; t < L; t++) q[t] = seq[(size_t)mem[a] * L + t];
            if (standardize) { /* numpy's std (ddof 0); a constant sequence is left as it is */
                for (t = 0; t < L; t++) mean += q[t];
                mean /= L;
                for (t = 0; t < L; t++) var += (q[t] - mean) * (q[t] - mean);
                var = sqrt(var / L);
                if (var > 0)
                    for (t = 0; t < L; t++) q[t] /= var;
            }
        }
        for (a = 0; a < m; a++)
            for (b = 0; b < m; b++) {
                double d = a == b ? 0.0 : fgl__dtw(seqs + (size_t)a * L, L, seqs + (size_t)b * L, L);
                if (d < 0) return FGL_ERR_NOMEM;
                w[(size_t)a * m + b] = d;
                if (d > dmax) dmax = d;
            }
        for (a = 0; a < m * m; a++) w[a] = dmax - w[a];
    }
    if (fgl__stoer_wagner(w, m, side) < 0) return FGL_ERR_NOMEM;
    for (a = 0; a < m; a++)
        if (side[a]) cluster[mem[a]] = meta[0];
    meta[0]++;
    meta[1]++;
    return FGL_OK;
}

static int fgl__gcfl_aggregate(fgl_server *s) {
    int plus = fgl__gcfl_plus(s), L = plus ? (int)fgl_get(s->set, "seq_length") : 1;
    int seq_grad = plus && fgl_get(s->set, "seq_grad") != 0, warmup = (int)fgl_get(s->set, "warmup");
    float eps1 = (float)fgl_get(s->set, "eps1"), eps2 = (float)fgl_get(s->set, "eps2");
    float *theta = fgl_floats(&s->store, "theta"), *seq = fgl_floats(&s->store, "seq");
    int *cluster = fgl_ints(&s->store, "cluster"), *meta = fgl_ints(&s->store, "meta"),
        *seq_len = fgl_ints(&s->store, "seq_len");
    int K = s->n_clients, i, id, n_ids = meta[0], rc;
    size_t j, n = s->n_shared;
    int *mem = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K);
    double *acc = (double *)fgl_scratch(&s->store, sizeof(double) * FGL__MAX(n, 1));
    if (!mem || !acc) return FGL_ERR_NOMEM;
    if (plus) /* extend the sequences of the clients heard from this round */
        for (i = 0; i < K; i++) {
            float v;
            if (!s->up[i]) continue;
            v = seq_grad ? fgl_upload(s, i, "gnorm")[0] : (float)fgl_norm2(n, fgl_upload(s, i, "delta"));
            if (seq_len[i] < L) {
                seq[(size_t)i * L + seq_len[i]++] = v;
            } else {
                memmove(seq + (size_t)i * L, seq + (size_t)i * L + 1, sizeof(float) * (size_t)(L - 1));
                seq[(size_t)i * L + L - 1] = v;
            }
        }
    /* Splits, over the clusters as they were at the start of the round. */
    for (id = 0; id < n_ids && s->round >= warmup; id++) {
        int m = 0, all = 1;
        double mean_norm, max_norm = 0;
        for (i = 0; i < K; i++)
            if (cluster[i] == id) {
                mem[m++] = i;
                all &= s->up[i] != NULL;
            }
        if (m <= 2 || !all) continue;
        if (plus) {
            int ready = 1;
            for (i = 0; i < K; i++) ready &= seq_len[i] >= L;
            if (!ready) continue;
        }
        memset(acc, 0, sizeof(double) * n);
        for (i = 0; i < m; i++) {
            const float *d = fgl_upload(s, mem[i], "delta");
            double nd = fgl_norm2(n, d);
            if (nd > max_norm) max_norm = nd;
            for (j = 0; j < n; j++) acc[j] += d[j];
        }
        mean_norm = 0;
        for (j = 0; j < n; j++) mean_norm += (acc[j] / m) * (acc[j] / m);
        mean_norm = sqrt(mean_norm);
        if (!(mean_norm < eps1 && max_norm > eps2)) continue;
        if ((rc = fgl__gcfl_split(s, mem, m))) return rc;
        if (plus)
            for (i = 0; i < K; i++) seq_len[i] = 0;
    }
    /* Cluster-wise aggregation of the updates, weighted by training counts. */
    for (id = 0; id < meta[0]; id++) {
        double wsum = 0;
        memset(acc, 0, sizeof(double) * n);
        for (i = 0; i < K; i++) {
            const float *d;
            double w;
            if (cluster[i] != id || !s->up[i]) continue;
            d = fgl_upload(s, i, "delta");
            w = fgl_upload(s, i, "n")[0];
            for (j = 0; j < n; j++) acc[j] += w * d[j];
            wsum += w;
        }
        if (wsum <= 0) continue; /* nobody heard from: the cluster keeps its models */
        for (j = 0; j < n; j++) acc[j] /= wsum;
        for (i = 0; i < K; i++)
            if (cluster[i] == id) {
                float *th = theta + (size_t)i * n;
                for (j = 0; j < n; j++) th[j] += (float)acc[j];
            }
    }
    return FGL_OK;
}

static int fgl__gcfl_matrix(const fgl_observed *o, float *out) {
    const int *cluster;
    int K = o->n_clients, i, j;
    if (!o->started) return FGL_ERR_EMPTY;
    cluster = fgl_observed_ints(o, "cluster");
    for (i = 0; i < K; i++)
        for (j = 0; j < K; j++) out[(size_t)i * K + j] = cluster[i] == cluster[j] ? 1.0f : 0.0f;
    return FGL_OK;
}

static void fgl__gcfl_report(const fgl_observed *o, char *buf, size_t cap) {
    const int *cluster, *meta;
    size_t used;
    int i, id, nonempty = 0;
    if (!o->started || !cap) return;
    cluster = fgl_observed_ints(o, "cluster");
    meta = fgl_observed_ints(o, "meta");
    for (id = 0; id < meta[0]; id++)
        for (i = 0; i < o->n_clients; i++)
            if (cluster[i] == id) {
                nonempty++;
                break;
            }
    snprintf(buf, cap, "\"clusters\": %d, \"splits\": %d, \"cluster_of\": [", nonempty, meta[1]);
    for (i = 0; i < o->n_clients; i++) {
        used = strlen(buf);
        if (used + 16 >= cap) return;
        snprintf(buf + used, cap - used, "%s%d", i ? ", " : "", cluster[i]);
    }
    used = strlen(buf);
    if (used + 2 < cap) snprintf(buf + used, cap - used, "]");
}

static fgl_algo fgl__gcfl(void) {
    fgl_algo a = fgl_algo_new("gcfl", "Xie et al. 2021: clusters of clients split by a min cut of update similarities, "
                              "averaged inside");
    fgl_algo_param_add(&a, "share", FGL_PARAM_GROUPS, (double)FGL_G_CONV,
                       "groups clustered and averaged (GCFL's code: the GIN convolutions; node tasks: pass share=all)");
    fgl_algo_param_add(&a, "eps1", FGL_PARAM_FLOAT, 0.05,
                       "split when ||mean update|| < eps1 (authors' scripts: PROTEINS 0.03, molecules 0.07)");
    fgl_algo_param_add(&a, "eps2", FGL_PARAM_FLOAT, 0.1,
                       "... and max ||update|| > eps2 (authors' scripts: PROTEINS 0.06, molecules 0.28)");
    fgl_algo_param_add(&a, "warmup", FGL_PARAM_INT, 20, "no split in the first rounds (authors: 20)");
    /* averaged by hand inside each cluster: no runtime defence covers it */
    fgl_algo_upload(&a, "delta", FGL_SEND_DELTA, 0, 0, FGL_PART_RAW);
    fgl_algo_upload(&a, "n", FGL_SEND_WEIGHT, 0, 0, 0);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, FGL_PART_ROW, "theta");
    a.server_init = fgl__gcfl_server_init;
    a.aggregate = fgl__gcfl_aggregate;
    a.report = fgl__gcfl_report;
    a.client_matrix = fgl__gcfl_matrix;
    a.variant = FGL__GCFL;
    return a;
}

static fgl_algo fgl__gcflplus(void) {
    fgl_algo a = fgl__gcfl();
    a.name = "gcflplus";
    a.summary = "Xie et al. 2021 (GCFL+): GCFL splitting by DTW distances of update-norm sequences";
    fgl_algo_param_add(&a, "seq_length", FGL_PARAM_INT, 5, "values per norm sequence compared by DTW (paper: 5..10)");
    fgl_algo_param_add(&a, "standardize", FGL_PARAM_INT, 0,
                       "1: divide each sequence by its standard deviation before DTW");
    fgl_algo_param_add(&a, "seq_grad", FGL_PARAM_INT, 0,
                       "0: sequences of update norms; 1: of the last local step's gradient norm (+4 bytes up)");
    fgl_algo_upload(&a, "gnorm", FGL_SEND_DATA, 1, 1, FGL_PART_OPTIONAL);
    a.upload = fgl__gcfl_upload;
    a.variant = FGL__GCFL_PLUS;
    return a;
}

/* --- src/fed/algos/fedamp.h --- */
/* --- FedAMP (Huang et al. 2021) ---------------------------------------------------- */
/* Clients upload theta_i (n floats, 4 n bytes); the server keeps every
 * client's latest upload and gives client i its cloud model
 *     u_i = sum_j xi_ij theta_j,  xi_ij = (1 - xi_ii) e^{-||theta_i - theta_j||^2 / sigma}
 *                                          / sum_{k != i} e^{-||theta_i - theta_k||^2 / sigma}  (j != i),
 * xi_ii = self_weight (4 n bytes down). The client starts from u_i and adds
 * lambda/2 ||theta - u_i||^2 (lambda = 1, docs/algorithms.md). xi is the
 * client_matrix. This is the normalised form (the attention over the others
 * is a softmax, their total 1 - xi_ii): the paper's raw form
 * xi_ij = alpha_k e^{-d/sigma}/sigma depends on the model's scale so much
 * that with PFLlib's defaults (alpha_k = sigma = 1) all xi_ij underflow and
 * FedAMP degenerates into local training. self_weight = 0.3: the FedAMP
 * baseline in the pFedGraph authors' code. sigma (the distance scale): no
 * published value fits this normalised form; sigma = 10 is fgl's choice,
 * measured on the FED-PUB protocol (Cora, 5 METIS clients, 2-layer GCN
 * hidden 128), where squared distances between clients run 15-50 early on:
 * near models get clearly more weight without a hard nearest neighbour
 * (30 rounds: 71% mean test accuracy vs 45% with sigma = 1e3, where the
 * weights are uniform). It scales with the model's size: tune it. Only
 * accepted clients' cloud models are recomputed; rows of clients whose
 * upload is missing stay. */

static int fgl__amp_server_init(fgl_server *s) {
    size_t K = (size_t)s->n_clients, i;
    float *theta = fgl_new_floats(&s->store, "theta", K * s->n_shared);
    float *u = fgl_new_floats(&s->store, "u", K * s->n_shared);
    float *xi = fgl_new_floats(&s->store, "xi", K * K);
    fgl_new_ints(&s->store, "has", K);
    if (!(fgl_get(s->set, "sigma") > 0) ||
        !(fgl_get(s->set, "self_weight") >= 0 && fgl_get(s->set, "self_weight") <= 1))
        return fgl_server_fail(s, FGL_ERR_ARG, "fedamp: sigma %g must be > 0 and self_weight %g in [0, 1]",
                               fgl_get(s->set, "sigma"), fgl_get(s->set, "self_weight"));
    if (s->store.err) return s->store.err;
    for (i = 0; i < K; i++) { /* before any upload: everyone's cloud model is the common initialisation */
        fgl_server_pack(s, s->init, theta + i * s->n_shared);
        memcpy(u + i * s->n_shared, theta + i * s->n_shared, sizeof(float) * s->n_shared);
        xi[i * K + i] = 1.0f;
    }
    return FGL_OK;
}

static int fgl__amp_aggregate(fgl_server *s) {
    int K = s->n_clients, i, j;
    size_t q, n = s->n_shared;
    float *theta = fgl_floats(&s->store, "theta"), *u = fgl_floats(&s->store, "u"), *xi = fgl_floats(&s->store, "xi");
    float sigma = (float)fgl_get(s->set, "sigma"), self_weight = (float)fgl_get(s->set, "self_weight");
    int *has = fgl_ints(&s->store, "has");
    double *d = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * (size_t)K);
    double *e = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K);
    double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * (size_t)K);
    unsigned char *rows = (unsigned char *)fgl_scratch(&s->store, (size_t)K);
    if (!d || !e || !w || !rows) return FGL_ERR_NOMEM;
    fgl_server_gather(s, "theta", theta, has);
    for (i = 0; i < K; i++) /* squared distances between the latest models, in client order */
        for (j = i; j < K; j++) {
            const float *a = theta + (size_t)i * n, *b = theta + (size_t)j * n;
            double sum = 0;
            if (i != j)
                for (q = 0; q < n; q++) sum += ((double)a[q] - b[q]) * ((double)a[q] - b[q]);
            d[(size_t)i * K + j] = d[(size_t)j * K + i] = sum;
        }
    for (i = 0; i < K; i++) {
        const double *di = d + (size_t)i * K;
        double dmin = HUGE_VAL, esum = 0, self = self_weight;
        if (!s->up[i]) continue;
        rows[i] = 1;
        for (j = 0; j < K; j++)
            if (j != i && has[j] && di[j] < dmin) dmin = di[j];
        for (j = 0; j < K; j++) { /* softmax of -d/sigma over the others, shifted by the nearest for stability */
            e[j] = (j != i && has[j]) ? exp(-(di[j] - dmin) / sigma) : 0.0;
            esum += e[j];
        }
        if (esum <= 0) self = 1.0; /* nobody else yet */
        for (j = 0; j < K; j++) {
            double x = j == i ? self : esum > 0 ? (1.0 - self) * e[j] / esum : 0.0;
            w[(size_t)i * K + j] = x;
            xi[(size_t)i * K + j] = (float)x;
        }
    }
    return fgl_server_mix(s, "theta", theta, w, u, rows); /* theta holds the latest model of those not in the round */
}

static int fgl__amp_grad(fgl_client *c, const fgl_step *st) { /* g += lambda (theta - u_i) */
    float lambda = (float)fgl_get(c->set, "lambda");
    if (lambda != 0) fgl_client_prox_grad(c, &st->model->params, lambda);
    return FGL_OK;
}

static int fgl__amp_matrix(const fgl_observed *o, float *out) { return fgl_observed_matrix(o, "xi", out); }

static fgl_algo fgl__fedamp(void) {
    fgl_algo a =
        fgl_algo_new("fedamp", "Huang et al. 2021: personalised cloud models from attention over model distances, "
                               "proximal local training");
    fgl_algo_param_add(&a, "share", FGL_PARAM_GROUPS, (double)FGL_G_ALL, "parameter groups shared");
    fgl_algo_param_add(&a, "sigma", FGL_PARAM_FLOAT, 10.0,
                       "attention scale: xi_ij ~ exp(-||theta_i - theta_j||^2 / sigma)");
    fgl_algo_param_add(&a, "lambda", FGL_PARAM_FLOAT, 1.0, "proximal weight lambda/2 ||theta - u_i||^2");
    fgl_algo_param_add(&a, "self_weight", FGL_PARAM_FLOAT, 0.3,
                       "xi_ii, the weight of a client's own model in its cloud model");
    fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, 0, 0, 0);
    fgl_algo_download(&a, "u", FGL_SEND_MODEL, 0, 0, FGL_PART_ROW, "u");
    a.server_init = fgl__amp_server_init;
    a.aggregate = fgl__amp_aggregate;
    a.train.grad = fgl__amp_grad;
    a.client_matrix = fgl__amp_matrix;
    a.mixes = 1;
    return a;
}

/* --- src/fed/algos/pfedgraph.h --- */
/* --- pFedGraph (Ye et al. 2023) ----------------------------------------------------- */
/* Clients upload theta_i and n_i (4 (n + 1) bytes). For each accepted client
 * i the server solves, over the accepted clients S,
 *     min_{a in simplex} alpha ||a - p||^2 + sum_j a_j d_ij,
 *     p_j = n_j / sum_S n,   d_ij = -cos(dtheta_i, dtheta_j) (set to -1 below -0.9),
 * dtheta = theta - theta_init (the common initial model): the authors' code
 * (cvxpy on alpha x'x + (d - 2 alpha p)'x). Completing the square, the
 * solution is exactly the Euclidean projection of p - d_i/(2 alpha) onto the
 * simplex (computed by sorting). Then theta_i <- sum_j a_ij theta_j, and
 * the client also receives u_i = sum_j a_ij theta_j / ||theta_j||: down
 * 4 n bytes before the first aggregation, 4 (2 n) after. Local loss:
 *     CE + lam <u_i, theta> / ||theta||,  lam = 0.01,
 * from the first aggregation on, exactly the authors' code
 * (pfedgraph_cosine); with a positive lam it lowers the similarity to the
 * aggregated direction. A negative lam pulls towards it instead, the sign
 * that matches the graph's dissimilarity -cos; the paper's text was not at
 * hand to settle which it intends. alpha = 0.8. The row of A of a client
 * whose upload is missing stays; A rows put 0 on clients left out (the code
 * leaves their stale weights, which then do not sum to 1). A is the
 * client_matrix. */

static int fgl__pfg_server_init(fgl_server *s) {
    size_t K = (size_t)s->n_clients, i;
    float *theta = fgl_new_floats(&s->store, "theta", K * s->n_shared);
    fgl_new_floats(&s->store, "u", K * s->n_shared);
    fgl_new_floats(&s->store, "A", K * K);
    fgl_new_ints(&s->store, "has_u", K);
    if (!(fgl_get(s->set, "alpha") > 0))
        return fgl_server_fail(s, FGL_ERR_ARG, "pfedgraph: alpha %g must be > 0", fgl_get(s->set, "alpha"));
    if (s->store.err) return s->store.err;
    for (i = 0; i < K; i++) fgl_server_pack(s, s->init, theta + i * s->n_shared);
    return FGL_OK;
}

static int fgl__pfg_aggregate(fgl_server *s) {
    int K = s->n_clients, ns = 0, i, a, b, rc;
    size_t q, n = s->n_shared;
    float alpha = (float)fgl_get(s->set, "alpha");
    float *theta = fgl_floats(&s->store, "theta"), *u = fgl_floats(&s->store, "u"), *A = fgl_floats(&s->store, "A");
    int *has_u = fgl_ints(&s->store, "has_u");
    double total = 0;
    int *S = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K);
    double *cosm = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * (size_t)K);
    double *v = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K),
           *x = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K);
    double *work = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K),
           *norm = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K);
    double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * (size_t)K);
    double *div = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K);
    float *init = (float *)fgl_scratch(&s->store, sizeof(float) * FGL__MAX(n, 1));
    float *ups = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * FGL__MAX(n, 1));
    float *dw = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * FGL__MAX(n, 1));
    unsigned char *rows = (unsigned char *)fgl_scratch(&s->store, (size_t)K);
    if (!S || !cosm || !v || !x || !work || !norm || !w || !div || !init || !ups || !dw || !rows) return FGL_ERR_NOMEM;
    fgl_server_pack(s, s->init, init);
    fgl_server_gather(s, "theta", ups, NULL);
    for (i = 0; i < K; i++)
        if (s->up[i]) {
            S[ns++] = i;
            total += fgl_upload(s, i, "n")[0];
        }
    if (ns == 0) return FGL_OK; /* nothing accepted: everyone keeps their model */
    for (a = 0; a < ns; a++) {
        const float *th = ups + (size_t)S[a] * n;
        for (q = 0; q < n; q++) dw[(size_t)a * n + q] = th[q] - init[q];
        norm[a] = fgl_norm2(n, th);
    }
    for (a = 0; a < ns; a++)
        for (b = a; b < ns; b++) {
            double c = a == b ? 1.0 : fgl_cosine(n, dw + (size_t)a * n, dw + (size_t)b * n);
            if (-c < -0.9) c = 1.0; /* the code's clamp of the dissimilarity */
            cosm[(size_t)a * ns + b] = cosm[(size_t)b * ns + a] = c;
        }
    for (a = 0; a < ns; a++) {
        i = S[a];
        for (b = 0; b < ns; b++) /* p_j - d_ij / (2 alpha), d = -cos */
            v[b] =
                (total > 0 ? fgl_upload(s, S[b], "n")[0] / total : 1.0 / ns) + cosm[(size_t)a * ns + b] / (2.0 * alpha);
        fgl__simplex_project(v, ns, x, work);
        memset(A + (size_t)i * K, 0, sizeof(float) * (size_t)K);
        for (b = 0; b < ns; b++) {
            A[(size_t)i * K + S[b]] = (float)x[b];
            w[(size_t)i * K + S[b]] = x[b];
        }
        rows[i] = 1;
        has_u[i] = 1;
    }
    for (a = 0; a < ns; a++) div[S[a]] = norm[a];
    /* the run's robust rule, row by row: u_i from the uploads over their norms, then theta_i from the uploads.
     * u first: the downloads' references (NORMCLIP's clip, KRUM's updates) are rows of theta, which the
     * second call overwrites; the clips are counted once, by the second. */
    if ((rc = fgl_server_mix_div(s, "theta", NULL, w, div, u, rows, 0))) return rc;
    return fgl_server_mix(s, "theta", NULL, w, theta, rows);
}

static int fgl__pfg_download(fgl_server *s, int client, fgl_msg *down) {
    float *u;
    (void)down;
    if (!fgl_ints(&s->store, "has_u")[client]) return FGL_OK; /* nothing aggregated yet */
    if (!(u = fgl_download_part(s, client, "u"))) return FGL_ERR_NOMEM;
    memcpy(u, fgl_floats(&s->store, "u") + (size_t)client * s->n_shared, sizeof(float) * s->n_shared);
    return FGL_OK;
}

/* d/dtheta lam <u, theta>/||theta|| = lam (u/||theta|| - <u, theta> theta/||theta||^3),
 * over the trainable shared floats. */
static int fgl__pfg_grad(fgl_client *c, const fgl_step *st) {
    float lam = (float)fgl_get(c->set, "lam");
    const float *u = fgl_down(c, "u");
    fgl_params *ps = &st->model->params;
    double dot = 0, nn = 0, nrm, a, b;
    size_t j;
    int k;
    if (!u || lam == 0) return FGL_OK;
    for (k = 0; k < c->n_span; k++) {
        const fgl_span *sp = &c->span[k];
        const float *w = ps->data + sp->offset;
        if (!sp->trainable) continue;
        for (j = 0; j < sp->len; j++) {
            dot += (double)u[sp->packed + j] * w[j];
            nn += (double)w[j] * w[j];
        }
    }
    if (nn <= 0) return FGL_OK;
    nrm = sqrt(nn);
    a = lam / nrm;
    b = lam * dot / (nrm * nn);
    for (k = 0; k < c->n_span; k++) {
        const fgl_span *sp = &c->span[k];
        const float *w = ps->data + sp->offset;
        float *g = ps->grad + sp->offset;
        if (!sp->trainable) continue;
        for (j = 0; j < sp->len; j++) g[j] += (float)(a * u[sp->packed + j] - b * w[j]);
    }
    return FGL_OK;
}

static int fgl__pfg_matrix(const fgl_observed *o, float *out) { return fgl_observed_matrix(o, "A", out); }

static fgl_algo fgl__pfedgraph(void) {
    fgl_algo a =
        fgl_algo_new("pfedgraph", "Ye et al. 2023: per-client aggregation over an inferred collaboration graph "
                                  "(simplex QP on size vs similarity)");
    fgl_algo_param_add(&a, "share", FGL_PARAM_GROUPS, (double)FGL_G_ALL, "parameter groups shared");
    fgl_algo_param_add(&a, "alpha", FGL_PARAM_FLOAT, 0.8,
                       "graph inference: weight of ||a_i - p||^2 against the model similarity");
    fgl_algo_param_add(&a, "lam", FGL_PARAM_FLOAT, 0.01,
                       "local term lam <u_i, theta>/||theta|| (authors' code; negative: pull towards the aggregate)");
    fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, 0, 0, 0);
    fgl_algo_upload(&a, "n", FGL_SEND_WEIGHT, 0, 0, 0);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, FGL_PART_ROW, "theta");
    fgl_algo_download(&a, "u", FGL_SEND_DATA, FGL_DIM_SHARED, 1, FGL_PART_OPTIONAL, NULL);
    a.server_init = fgl__pfg_server_init;
    a.aggregate = fgl__pfg_aggregate;
    a.download = fgl__pfg_download;
    a.train.grad = fgl__pfg_grad;
    a.client_matrix = fgl__pfg_matrix;
    a.mixes = 1;
    return a;
}

/* --- src/fed/algos/fedproto.h --- */
/* --- FedProto (Tan et al., AAAI 2022) --------------------------------------------- */
/* Prototype methods: no weights leave a client, so models may differ as long
 * as the representation the classifier reads (fgl_forward.rep, `hidden`
 * wide) has one width d. C = the largest class count among clients.
 * Sends: up C x d prototypes (the mean rep of the client's training samples
 * of each class, computed in evaluation mode after local training as
 * FedTGP's code does; FedProto's code averages the training-mode reps seen
 * during the local epochs instead; zeros for classes the client lacks) + C
 * per-class counts; down C x d global prototypes (a class without one is a
 * row of NaN, FedProto only; nothing is sent before the first aggregation).
 * Client loss: CE + lambda * mean over the training rows' entries of
 * (rep - P_y)^2, i.e. lambda * (1/d) * mean_v ||h_v - P_y||^2 (FedProto's
 * and FedTGP's code use nn.MSELoss so; samples of a class without a global
 * prototype count with a zero term, as there). Prediction: the classifier
 * head (nearest-prototype prediction is not offered: the evaluation path
 * reads logits).
 * FedProto's server: P_c = count-weighted mean of the uploaded p_c
 * (docs/algorithms.md; the authors' code takes the plain mean over clients:
 * weighted=0), over this round's accepted uploads.
 * FedTGP (fedtgp.h) shares this client side; its server trains the global
 * prototypes. */

/* C and d of the prototype messages. */
static int fgl__proto_C(fgl_client *c) { return (int)fgl_up_size(c, "counts"); }

/* Prototypes are the representation the classifier reads: the head's input,
 * or without a head the last layer's input, which must then be a hidden
 * representation (more than one layer, or an input projection). Checked on
 * each client's spec before anything is sized by it. */
static int fgl__proto_spec(const fgl_settings *set, fgl_model_spec *sp, fgl_error *err) {
    (void)set;
    if (sp->head == FGL_HEAD_NONE && sp->layers < 2 && !sp->input_proj && sp->arch != FGL_ARCH_GCNII)
        return fgl_error_set(err, FGL_ERR_ARG,
                             "a %s model of one layer without a classifier head has no hidden "
                             "representation to make prototypes of (give it two layers or a head)",
                             fgl_arch_name(sp->arch));
    return FGL_OK;
}

static int fgl__proto_server_init(fgl_server *s) {
    size_t C = fgl_server_up_size(s, "counts"), d = fgl_server_up_size(s, "protos") / FGL__MAX(C, 1);
    fgl_new_floats(&s->store, "global", C * d);
    fgl_new_ints(&s->store, "has", C);
    fgl_new_ints(&s->store, "ready", 1);   /* 1 once prototypes exist (before: nothing is sent) */
    fgl_new_floats(&s->store, "last", 2);  /* FedTGP: margin and server loss of the last aggregation */
    return s->store.err;
}

static int fgl__proto_download(fgl_server *s, int client, fgl_msg *down) {
    size_t C = fgl_server_up_size(s, "counts"), d = fgl_server_up_size(s, "protos") / FGL__MAX(C, 1), k, cl;
    const float *global = fgl_floats(&s->store, "global");
    const int *has = fgl_ints(&s->store, "has");
    float *p;
    (void)down;
    if (!fgl_ints(&s->store, "ready")[0]) return FGL_OK; /* no prototypes yet: nothing to send */
    if (!(p = fgl_download_part(s, client, "protos"))) return FGL_ERR_NOMEM;
    for (cl = 0; cl < C; cl++)
        for (k = 0; k < d; k++) p[cl * d + k] = has[cl] ? global[cl * d + k] : (float)NAN;
    return FGL_OK;
}

/* lambda * MSE(rep rows of the step's training samples, their class's
 * global prototype), built on the tape with a constant target matrix. */
FGL__PRIVATE fgl_node *fgl__proto_loss(fgl_client *c, const fgl_step *st) {
    float lambda = (float)fgl_get(c->set, "lambda");
    const float *global = fgl_down(c, "protos");
    fgl_node *rep = st->fwd->rep;
    fgl_tape *t = st->t;
    int C = fgl__proto_C(c), i, n = 0, any = 0, d, *idx, *has;
    float *target;
    if (!rep || lambda == 0 || !global) return NULL;
    d = rep->cols;
    has = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)FGL__MAX(C, 1));
    if (!has) return NULL;
    for (i = 0; i < C; i++) any |= has[i] = fgl_all_finite((size_t)d, global + (size_t)i * d);
    if (!any) return NULL;
    for (i = 0; i < rep->rows; i++)
        if ((!st->mask || st->mask[i]) && st->labels[i] >= 0 && st->labels[i] < C) n++;
    if (n == 0) return NULL;
    idx = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)n);
    target = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n * (size_t)d);
    if (!idx || !target) return NULL;
    n = 0;
    for (i = 0; i < rep->rows; i++) {
        int y = st->labels[i];
        if ((st->mask && !st->mask[i]) || y < 0 || y >= C) continue;
        /* no global prototype for the class: the target is the sample itself (a zero term) */
        memcpy(target + (size_t)n * d, has[y] ? global + (size_t)y * d : rep->val + (size_t)i * d,
               sizeof(float) * (size_t)d);
        idx[n++] = i;
    }
    return fgl_op_scale(t, fgl_op_mse(t, fgl_op_gather_rows(t, rep, idx, n), fgl_op_const(t, target, n, d)), lambda);
}

/* Upload: per-class mean representations of the training samples
 * (evaluation mode, after local training) and per-class counts. */
static int fgl__proto_upload(fgl_client *c) {
    int C = fgl__proto_C(c), d = (int)(fgl_up_size(c, "protos") / FGL__MAX((size_t)C, 1)), cl, k, i, rc;
    float *p = fgl_up(c, "protos"), *np = fgl_up(c, "counts");
    double *sum = (double *)fgl_scratch(&c->store, sizeof(double) * (size_t)C * (size_t)d);
    double *cnt = (double *)fgl_scratch(&c->store, sizeof(double) * (size_t)C);
    fgl_view_iter it;
    fgl_view_batch b;
    fgl_error err;
    if (!sum || !cnt) return FGL_ERR_NOMEM;
    fgl_view_begin(&c->data, FGL_SPLIT_TRAIN, c->fed->eval_batch > 0 ? c->fed->eval_batch : 512, &it);
    while ((rc = fgl_view_next(&it, &b, &err)) > 0) {
        fgl_forward fw;
        fgl_tape_reset(&c->tape);
        if (fgl_model_forward(&c->model, &c->tape, b.g, 0, NULL, &fw) || !fw.rep) {
            rc = fgl_client_fail(c, c->tape.err ? c->tape.err : FGL_ERR_ARG, "prototypes: %s", c->tape.msg);
            break;
        }
        for (i = 0; i < fw.rep->rows; i++) {
            int y = b.labels[i];
            const float *r = fw.rep->val + (size_t)i * d;
            if ((b.mask && !b.mask[i]) || y < 0 || y >= C) continue;
            for (k = 0; k < d; k++) sum[(size_t)y * d + k] += r[k];
            cnt[y] += 1;
        }
    }
    if (rc < 0 && !c->error) fgl_client_fail(c, rc, "%s", err.msg);
    fgl_view_end(&it);
    if (rc < 0) return rc;
    for (cl = 0; cl < C; cl++) {
        np[cl] = (float)cnt[cl];
        for (k = 0; k < d; k++) p[(size_t)cl * d + k] = cnt[cl] > 0 ? (float)(sum[(size_t)cl * d + k] / cnt[cl]) : 0.0f;
    }
    return FGL_OK;
}

static int fgl__fedproto_aggregate(fgl_server *s) {
    int weighted = fgl_get(s->set, "weighted") != 0, i;
    size_t C = fgl_server_up_size(s, "counts"), d = fgl_server_up_size(s, "protos") / FGL__MAX(C, 1), cl, k;
    float *global = fgl_floats(&s->store, "global");
    int *has = fgl_ints(&s->store, "has");
    double *acc = (double *)fgl_scratch(&s->store, sizeof(double) * FGL__MAX(d, 1));
    if (!acc) return FGL_ERR_NOMEM;
    if (s->n_accepted == 0) return FGL_OK; /* nothing accepted: keep the prototypes */
    for (cl = 0; cl < C; cl++) {
        double wsum = 0;
        memset(acc, 0, sizeof(double) * d);
        for (i = 0; i < s->n_clients; i++) { /* fixed client order */
            const float *p = fgl_upload(s, i, "protos"), *cnt = fgl_upload(s, i, "counts");
            double n, w;
            if (!p || (n = cnt[cl]) <= 0) continue;
            w = weighted ? n : 1.0;
            for (k = 0; k < d; k++) acc[k] += w * p[cl * d + k];
            wsum += w;
        }
        has[cl] = wsum > 0;
        for (k = 0; k < d; k++) global[cl * d + k] = wsum > 0 ? (float)(acc[k] / wsum) : 0.0f;
    }
    fgl_ints(&s->store, "ready")[0] = 1;
    return FGL_OK;
}

static void fgl__fedproto_report(const fgl_observed *o, char *buf, size_t cap) {
    int C = o->started ? (int)fgl_observed_dim(o, FGL_DIM_CLASSES) : 0, cl, n = 0;
    const int *has;
    if (!o->started || !cap) return;
    has = fgl_observed_ints(o, "has");
    for (cl = 0; cl < C; cl++) n += has[cl] != 0;
    snprintf(buf, cap, "\"classes\": %d, \"classes_with_prototype\": %d, \"rep_dim\": %d", C, n,
             C ? (int)fgl_observed_dim(o, FGL_DIM_REP) : 0);
}

/* The prototype family: parameters and messages shared by both. */
static fgl_algo fgl__proto_base(const char *name, const char *summary, const char *lambda_help) {
    fgl_algo a = fgl_algo_new(name, summary);
    fgl_algo_param_add(&a, "lambda", FGL_PARAM_FLOAT, 1.0, lambda_help);
    fgl_algo_upload(&a, "protos", FGL_SEND_DATA, FGL_DIM_CLASSES, FGL_DIM_REP, 0);
    fgl_algo_upload(&a, "counts", FGL_SEND_DATA, FGL_DIM_CLASSES, 1, 0);
    fgl_algo_download(&a, "protos", FGL_SEND_DATA, FGL_DIM_CLASSES, FGL_DIM_REP, FGL_PART_OPTIONAL, NULL);
    a.prepare_spec = fgl__proto_spec;
    a.train.loss = fgl__proto_loss;
    a.upload = fgl__proto_upload;
    a.server_init = fgl__proto_server_init;
    a.download = fgl__proto_download;
    return a;
}

static fgl_algo fgl__fedproto(void) {
    fgl_algo a = fgl__proto_base("fedproto",
                                 "Tan et al. 2022: clients share per-class mean representations; loss CE + "
                                 "lambda ||h - P_y||^2",
                                 "weight of the prototype term lambda * MSE(rep, P_y) (mean over "
                                 "entries, as the authors' nn.MSELoss)");
    fgl_algo_param_add(&a, "weighted", FGL_PARAM_INT, 1,
                       "1: class means weighted by counts (docs/algorithms.md); 0: plain mean (authors' code)");
    a.aggregate = fgl__fedproto_aggregate;
    a.report = fgl__fedproto_report;
    return a;
}
/* --- src/fed/algos/fedtgp.h --- */
/* --- FedTGP (Zhang et al., AAAI 2024) --------------------------------------------- */
/* FedProto's client side (fedproto.h: what is sent, the client loss), with
 * trainable global prototypes on the server.
 * The server: P_c = MLP(anchor_c), anchors C x d (N(0,1) init, as
 * nn.Embedding), MLP Linear(d, h) -> ReLU -> Linear(h, d) (h = d; PyTorch's
 * default Linear init), trained each round for server_steps full-batch Adam
 * steps (lr 0.01; the authors: SGD on mini-batches of 10 prototypes for
 * server_epochs epochs) on, over every uploaded prototype p of class c,
 * CE(-(dist(p, P) + delta onehot_c)) = -log(e^-(d(p,P_c)+delta) /
 * (e^-(d(p,P_c)+delta) + sum_{c' != c} e^-d(p,P_c'))), with margin
 * delta = min(gap, tau); Q_c is the plain mean of the uploaded p_c and gap,
 * as in the authors' code, max over classes c of min_{c' != c} ||Q_c - Q_c'||
 * (margin_rule=1: the paper's max over pairs ||Q_c - Q_c'||); fewer than two
 * classes uploaded: delta = tau. Every class gets a global prototype. The
 * anchors, MLP and Adam state persist across rounds (checkpointed). */

/* The trainable prototype generator of FedTGP and FedPG: `rows` anchors
 * (N(0, 1), as nn.Embedding) through one shared Linear(d, h) -> ReLU ->
 * Linear(h, d) (PyTorch's default Linear init), optionally L2-normalised
 * (FedPG), with its Adam state; drawn from the run seed and `stream`. All of
 * it is run-managed (checkpointed): params "tgp", optimizer "tgp_optim",
 * tape "tgp_tape". Slices 0..4: */
enum { FGL__TGP_ANCHOR, FGL__TGP_W1, FGL__TGP_B1, FGL__TGP_W2, FGL__TGP_B2 };

static int fgl__tgp_make(fgl_server *s, int rows, int d, int h, float lr, float wd, uint64_t stream) {
    fgl_params *ps;
    fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
    fgl_rng r;
    size_t k;
    float *a;
    if (!(ps = fgl_new_params(&s->store, "tgp"))) return FGL_ERR_NOMEM;
    if (fgl_params_add(ps, "tgp.anchor", rows, d, FGL_G_OTHER, 1) < 0 ||
        fgl_params_add(ps, "tgp.w1", d, h, FGL_G_OTHER, 1) < 0 ||
        fgl_params_add(ps, "tgp.b1", 1, h, FGL_G_OTHER, 1) < 0 ||
        fgl_params_add(ps, "tgp.w2", h, d, FGL_G_OTHER, 1) < 0 ||
        fgl_params_add(ps, "tgp.b2", 1, d, FGL_G_OTHER, 1) < 0)
        return FGL_ERR_NOMEM;
    fgl_rng_init(&r, s->fed->seed, stream);
    a = fgl_params_data(ps, FGL__TGP_ANCHOR);
    for (k = 0; k < (size_t)rows * (size_t)d; k++) a[k] = (float)fgl_rng_normal(&r);
    fgl_params_fan_in_uniform(ps, FGL__TGP_W1, d, &r);
    fgl_params_fan_in_uniform(ps, FGL__TGP_B1, d, &r);
    fgl_params_fan_in_uniform(ps, FGL__TGP_W2, h, &r);
    fgl_params_fan_in_uniform(ps, FGL__TGP_B2, h, &r);
    oc.lr = lr;
    oc.weight_decay = wd;
    fgl_new_optim(&s->store, "tgp_optim", oc, ps);
    fgl_new_tape(&s->store, "tgp_tape");
    return s->store.err;
}

/* P = MLP(anchors) on the server's tape: every anchor, or the n rows idx. */
static fgl_node *fgl__tgp_forward(fgl_tape *t, fgl_params *ps, const int *idx, int n, int normalize) {
    fgl_node *a = fgl_op_param(t, ps, FGL__TGP_ANCHOR), *h, *P;
    if (idx) a = fgl_op_gather_rows(t, a, idx, n);
    h = fgl_op_relu(
        t, fgl_op_bias(t, fgl_op_matmul(t, a, fgl_op_param(t, ps, FGL__TGP_W1)), fgl_op_param(t, ps, FGL__TGP_B1)));
    P = fgl_op_bias(t, fgl_op_matmul(t, h, fgl_op_param(t, ps, FGL__TGP_W2)), fgl_op_param(t, ps, FGL__TGP_B2));
    return normalize ? fgl_op_l2_normalize_rows(t, P, 0) : P;
}

/* The adaptive margin of m query prototypes U (rows) of classes y in 0..C-1:
 * Q_c the plain mean of the rows of class c, gap = max over classes c of
 * min_{c' != c} ||Q_c - Q_c'|| (margin_rule 0, FedTGP's code) or the largest
 * pairwise ||Q_c - Q_c'|| (margin_rule 1, its paper); min(gap, tau), or tau
 * when fewer than two classes are present. Sums in double, row order. */
static int fgl__tgp_margin(fgl_store *st, const float *U, const int *y, int m, int C, int d, int margin_rule, float tau,
                           double *delta) {
    double *Q = (double *)fgl_scratch(st, sizeof(double) * (size_t)C * (size_t)d), gap = 0;
    int *qn = (int *)fgl_scratch(st, sizeof(int) * (size_t)C), i, cl, c2, k, n_present = 0;
    if (!Q || !qn) return FGL_ERR_NOMEM;
    for (i = 0; i < m; i++) {
        for (k = 0; k < d; k++) Q[(size_t)y[i] * d + k] += U[(size_t)i * d + k];
        qn[y[i]]++;
    }
    for (cl = 0; cl < C; cl++)
        if (qn[cl]) {
            n_present++;
            for (k = 0; k < d; k++) Q[(size_t)cl * d + k] /= qn[cl];
        }
    for (cl = 0; cl < C; cl++) {
        double nearest = -1;
        if (!qn[cl]) continue;
        for (c2 = 0; c2 < C; c2++) {
            double dist = 0;
            if (c2 == cl || !qn[c2]) continue;
            for (k = 0; k < d; k++)
                dist +=
                    (Q[(size_t)cl * d + k] - Q[(size_t)c2 * d + k]) * (Q[(size_t)cl * d + k] - Q[(size_t)c2 * d + k]);
            dist = sqrt(dist);
            if (margin_rule) {
                if (dist > gap) gap = dist;
            } else if (nearest < 0 || dist < nearest) {
                nearest = dist;
            }
        }
        if (!margin_rule && nearest > gap) gap = nearest;
    }
    *delta = n_present < 2 ? tau : FGL__MIN(gap, (double)tau);
    return FGL_OK;
}

/* `steps` full-batch Adam steps of the generator on the adaptive-margin
 * contrastive loss of m query prototypes U of classes y against the
 * generated prototypes P (the C anchors idx, or all of them):
 * CE(-(dist(U, P) + delta onehot_y)). *loss: the last step's loss. */
static int fgl__tgp_train(fgl_server *s, const float *U, const int *y, int m, int C, int d, const int *idx,
                          double delta, int steps, int normalize, double *loss) {
    fgl_params *ps = fgl_get_params(&s->store, "tgp");
    fgl_optim *opt = fgl_get_optim(&s->store, "tgp_optim");
    fgl_tape *t = fgl_get_tape(&s->store, "tgp_tape");
    float *M = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)FGL__MAX(m, 1) * (size_t)C);
    int i, step;
    if (!M) return FGL_ERR_NOMEM;
    for (i = 0; i < m; i++) M[(size_t)i * C + y[i]] = (float)delta;
    for (step = 0; step < steps; step++) {
        fgl_node *P, *dist, *l;
        fgl_tape_reset(t);
        fgl_params_zero_grad(ps);
        P = fgl__tgp_forward(t, ps, idx, C, normalize);
        dist = fgl_op_add(t, fgl_op_pairwise_dist(t, fgl_op_const(t, U, m, d), P), fgl_op_const(t, M, m, C));
        l = fgl_op_cross_entropy(t, fgl_op_scale(t, dist, -1.0f), y, NULL);
        if (fgl_tape_backward(t, l))
            return fgl_server_fail(s, t->err, "%s: server training: %s", s->algo->name, t->msg);
        *loss = l->val[0];
        fgl_optim_step(opt, ps);
    }
    fgl_tape_reset(t);
    return FGL_OK;
}

/* FedTGP's server: anchors C x d, MLP hidden h (server_hidden, 0: d). */
static int fgl__tgp_server_init(fgl_server *s) {
    int C = (int)fgl_server_up_size(s, "counts"), d = (int)(fgl_server_up_size(s, "protos") / (size_t)FGL__MAX(C, 1));
    int h = (int)fgl_get(s->set, "server_hidden") > 0 ? (int)fgl_get(s->set, "server_hidden") : d, rc;
    if (fgl_get(s->set, "server_steps") < 0 || !(fgl_get(s->set, "server_lr") >= 0) || !(fgl_get(s->set, "tau") >= 0))
        return fgl_server_fail(s, FGL_ERR_ARG, "fedtgp: server_steps, server_lr and tau must be non-negative");
    if ((rc = fgl__proto_server_init(s))) return rc;
    return fgl__tgp_make(s, C, d, h, (float)fgl_get(s->set, "server_lr"), 0.0f, 0x464544544750ull); /* "FEDTGP" */
}

static int fgl__fedtgp_aggregate(fgl_server *s) {
    int C = (int)fgl_server_up_size(s, "counts"), d = (int)(fgl_server_up_size(s, "protos") / (size_t)FGL__MAX(C, 1)),
        K = s->n_clients, m = 0, i, cl, rc;
    int steps = (int)fgl_get(s->set, "server_steps");
    fgl_params *ps = fgl_get_params(&s->store, "tgp");
    fgl_tape *t = fgl_get_tape(&s->store, "tgp_tape");
    float *U, *last = fgl_floats(&s->store, "last");
    int *y, *has = fgl_ints(&s->store, "has");
    double delta, loss = 0;
    fgl_node *P;
    for (i = 0; i < K; i++)
        if (s->up[i])
            for (cl = 0; cl < C; cl++) m += fgl_upload(s, i, "counts")[cl] > 0;
    if (m == 0) return FGL_OK; /* nothing uploaded: keep the prototypes */
    U = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)m * (size_t)d);
    y = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)m);
    if (!U || !y) return FGL_ERR_NOMEM;
    /* the uploaded prototypes, client order, then class order */
    m = 0;
    for (i = 0; i < K; i++) {
        const float *protos = fgl_upload(s, i, "protos"), *counts = fgl_upload(s, i, "counts");
        if (!protos) continue;
        for (cl = 0; cl < C; cl++) {
            if (counts[cl] <= 0) continue;
            memcpy(U + (size_t)m * d, protos + (size_t)cl * d, sizeof(float) * (size_t)d);
            y[m++] = cl;
        }
    }
    if ((rc = fgl__tgp_margin(&s->store, U, y, m, C, d, fgl_get(s->set, "margin_rule") != 0,
                              (float)fgl_get(s->set, "tau"), &delta)))
        return rc;
    if ((rc = fgl__tgp_train(s, U, y, m, C, d, NULL, delta, steps, 0, &loss))) return rc;
    P = fgl__tgp_forward(t, ps, NULL, C, 0);
    if (!P || t->err) return fgl_server_fail(s, t->err ? t->err : FGL_ERR_ARG, "fedtgp: server prototypes: %s", t->msg);
    memcpy(fgl_floats(&s->store, "global"), P->val, sizeof(float) * (size_t)C * (size_t)d);
    fgl_tape_reset(t);
    for (cl = 0; cl < C; cl++) has[cl] = 1;
    fgl_ints(&s->store, "ready")[0] = 1;
    last[0] = (float)delta;
    last[1] = (float)loss;
    return FGL_OK;
}

static void fgl__fedtgp_report(const fgl_observed *o, char *buf, size_t cap) {
    int C = o->started ? (int)fgl_observed_dim(o, FGL_DIM_CLASSES) : 0;
    const float *last;
    if (!o->started || !cap) return;
    last = fgl_observed_floats(o, "last");
    snprintf(buf, cap, "\"classes\": %d, \"rep_dim\": %d, \"margin\": %.6g, \"server_loss\": %.6g", C,
             C ? (int)fgl_observed_dim(o, FGL_DIM_REP) : 0, (double)last[0], (double)last[1]);
}

static fgl_algo fgl__fedtgp(void) {
    fgl_algo a = fgl__proto_base("fedtgp",
                                 "Zhang et al. 2024: FedProto with trainable global prototypes and an "
                                 "adaptive-margin contrastive loss",
                                 "weight of the prototype term lambda * MSE(rep, P_y) "
                                 "(authors' default 1; their script uses 10)");
    fgl_algo_param_add(&a, "server_steps", FGL_PARAM_INT, 100, "full-batch server optimisation steps per round");
    fgl_algo_param_add(&a, "server_lr", FGL_PARAM_FLOAT, 0.01, "server Adam learning rate");
    fgl_algo_param_add(&a, "tau", FGL_PARAM_FLOAT, 100.0, "margin cap (authors' margin_threthold 100)");
    fgl_algo_param_add(&a, "margin_rule", FGL_PARAM_INT, 0,
                       "0: max over classes of the nearest-class gap (authors' code); 1: largest pairwise gap (paper)");
    fgl_algo_param_add(&a, "server_hidden", FGL_PARAM_INT, 0, "MLP hidden width (0: rep width d)");
    a.server_init = fgl__tgp_server_init;
    a.aggregate = fgl__fedtgp_aggregate;
    a.report = fgl__fedtgp_report;
    return a;
}

/* --- src/fed/algos/fedstar.h --- */
/* --- FedStar (Tan et al., AAAI 2023) ---------------------------------------------- */
/* FedAvg's mechanism (fedavg.h: fgl__fedavg_like) on a decoupled model: each
 * client's GNN has a feature encoder and a structure encoder (random-walk
 * and degree structure embeddings, --se), and only the structure encoder's
 * groups (FGL_G_STRUCT) are averaged; the feature encoder and the head stay
 * local. Sent: up 4 (n_struct + 1), down 4 n_struct bytes. */

/* FedStar runs its decoupled model: any client spec becomes FedStar's with
 * the same input and output sizes. */
static int fgl__star_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    fgl_model_spec s;
    (void)set;
    if (spec->task != FGL_TASK_GRAPH) return fgl_error_set(err, FGL_ERR_ARG, "fedstar: graph classification only");
    if (spec->arch == FGL_ARCH_FEDSTAR) return FGL_OK;
    s = fgl_model_spec_default(FGL_ARCH_FEDSTAR, FGL_TASK_GRAPH, spec->in_dim, spec->out_dim);
    s.dropout = spec->dropout;
    if (spec->pe_dim > 0) s.pe_dim = spec->pe_dim; /* the width the data's structure embeddings have */
    *spec = s;
    return FGL_OK;
}

static fgl_algo fgl__fedstar(void) {
    fgl_algo a = fgl__fedavg_like("fedstar", "Tan et al. 2023: share only the structure encoder of a feature/structure "
                                  "decoupled GNN", FGL_G_STRUCT, "parameter groups averaged (the structure encoder)",
                                  0.0, "proximal weight");
    a.prepare_spec = fgl__star_spec;
    return a;
}

/* --- src/fed/algos/fedpub.h --- */
/* --- FED-PUB (Baek et al. 2023) ---------------------------------------------------- */
/* Clients run GCNs with personal weight masks (kept local). Each round they
 * upload their weights and a functional embedding: the mean output of their
 * model's last GCN layer on a random proxy graph every client builds from
 * the shared seed (so it costs no bytes). Graph tasks (GPFL's comparison)
 * run the same on any graph model, e.g. the GIN: masks on every weight
 * matrix, the proxy graph seen as one graph, and the embedding the mean
 * over its nodes of the last GIN layer's output (before its activation). The server turns cosine
 * similarities of the embeddings into weights
 *     alpha_ij = exp(tau S_ij) / sum_k exp(tau S_ik)
 * over the accepted uploads and sends each client its own average
 * sum_j alpha_ij theta_j, from the first aggregation on (the initial
 * broadcast is the common initial model, as in the authors' code). Locally:
 *     CE + l1 ||mask||_1 + loc_l2 sum_slices ||theta - theta_received||_2,
 * applied to the live parameters (the authors' code computes them on
 * detached copies). Sent: up 4 (n + d + 1), down 4 n bytes (masks stay). */

static int fgl__pub_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    if (spec->arch == FGL_ARCH_FEDSTAR)
        return fgl_error_set(err, FGL_ERR_ARG,
                             "fedpub: FedStar's model needs structure encodings the proxy graph lacks");
    spec->masked = fgl_get(set, "masks") != 0;
    return FGL_OK;
}

/* The proxy graph: blocks of equal size, edges i.i.d. with p_in inside a
 * block and p_out across, node features N(0, 1); drawn from the run seed so
 * every client holds the same graph. */
static int fgl__pub_client_init(fgl_client *c) {
    int bs = (int)fgl_get(c->set, "proxy_block_size"), n = (int)fgl_get(c->set, "proxy_blocks") * bs;
    float p_in = (float)fgl_get(c->set, "p_in"), p_out = (float)fgl_get(c->set, "p_out");
    int i, j, rc;
    fgl__probe *px;
    fgl_rng r;
    fgl_error err;
    size_t k;
    if (n <= 0 || bs <= 0)
        return fgl_client_fail(c, FGL_ERR_ARG, "fedpub: the proxy graph needs proxy_blocks and proxy_block_size > 0");
    if (!(px = fgl__probe_new(c, "proxy", n, 1))) return FGL_ERR_NOMEM;
    fgl_rng_init(&r, c->fed->seed, 0x50524f5859ull); /* "PROXY" */
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++) {
            double p = (i / bs == j / bs) ? p_in : p_out;
            if (p <= 0 || fgl_rng_uniform(&r) >= p) continue;
            if (fgl__probe_edge(px, i, j)) return FGL_ERR_NOMEM;
        }
    if ((rc = fgl__probe_adjacency(px, &err))) return fgl_client_fail(c, rc, "fedpub: %s", err.msg);
    for (k = 0; k < (size_t)n * (size_t)px->in_dim; k++) px->x[k] = (float)fgl_rng_normal(&r);
    if ((rc = fgl__probe_view(px, c, &err))) return fgl_client_fail(c, rc, "fedpub: %s", err.msg);
    return FGL_OK;
}

static int fgl__pub_server_init(fgl_server *s) {
    size_t K = (size_t)s->n_clients, i;
    float *theta = fgl_new_floats(&s->store, "theta", K * s->n_shared);
    fgl_new_floats(&s->store, "fe", K * fgl_server_up_size(s, "fe"));
    fgl_new_ints(&s->store, "has_fe", K);
    fgl_new_floats(&s->store, "sim", K * K);
    if (s->store.err) return s->store.err;
    for (i = 0; i < K; i++) fgl_server_pack(s, s->init, theta + i * s->n_shared);
    return FGL_OK;
}

static int fgl__pub_upload(fgl_client *c) {
    fgl__probe *px = (fgl__probe *)fgl_get_scratch(&c->store, "proxy");
    int rc = fgl_model_mean_embedding(&c->model, &c->tape, &px->g, fgl_up(c, "fe"));
    if (rc) return fgl_client_fail(c, rc, "functional embedding: %s", c->tape.msg);
    return FGL_OK;
}

static int fgl__pub_aggregate(fgl_server *s) {
    int K = s->n_clients, i, j, rc;
    size_t n = s->n_shared, d = fgl_server_up_size(s, "fe");
    float tau = (float)fgl_get(s->set, "tau");
    float *theta = fgl_floats(&s->store, "theta"), *fe = fgl_floats(&s->store, "fe"),
          *sim = fgl_floats(&s->store, "sim");
    int *has_fe = fgl_ints(&s->store, "has_fe");
    float *plain = (float *)fgl_scratch(&s->store, sizeof(float) * FGL__MAX(n, 1));
    double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * (size_t)K);
    unsigned char *mixed = (unsigned char *)fgl_scratch(&s->store, (size_t)K);
    if (!plain || !w || !mixed) return FGL_ERR_NOMEM;
    fgl_server_gather(s, "fe", fe, has_fe);
    rc = fgl_server_mean(s, "theta", plain);
    if (rc) return rc; /* (FGL_ERR_EMPTY: nothing accepted, everyone keeps their model) */
    for (i = 0; i < K; i++) {
        float *row = sim + (size_t)i * K;
        double wsum = 0, smax = -1e300;
        memset(row, 0, sizeof(float) * (size_t)K);
        if (!has_fe[i]) { /* no embedding from this client yet: the plain average */
            memcpy(theta + (size_t)i * n, plain, sizeof(float) * n);
            continue;
        }
        for (j = 0; j < K; j++) /* softmax over the accepted clients, shifted for stability */
            if (s->up[j]) {
                double sij = fgl_cosine(d, fe + (size_t)i * d, fe + (size_t)j * d);
                if (tau * sij > smax) smax = tau * sij;
                row[j] = (float)sij;
            }
        for (j = 0; j < K; j++)
            if (s->up[j]) {
                double a = exp(tau * row[j] - smax);
                row[j] = (float)a;
                wsum += a;
            }
        for (j = 0; j < K; j++) {
            double a = s->up[j] ? row[j] / wsum : 0.0;
            w[(size_t)i * K + j] = a;
            row[j] = (float)a;
        }
        mixed[i] = 1;
    }
    /* the run's robust rule, row by row (NORMCLIP's clips were counted by fgl_server_mean above: not again) */
    return fgl_server_mix_div(s, "theta", NULL, w, NULL, theta, mixed, 0);
}

static int fgl__pub_grad(fgl_client *c, const fgl_step *st) {
    float l1 = (float)fgl_get(c->set, "l1"), loc_l2 = (float)fgl_get(c->set, "loc_l2");
    int l1_prox = fgl_get(c->set, "l1_prox") != 0;
    fgl_params *ps = &st->model->params;
    int i;
    size_t j;
    if (fgl_get(c->set, "live_reg") == 0) return FGL_OK;
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *sl = &ps->slices[i];
        float *g = ps->grad + sl->offset;
        const float *w = ps->data + sl->offset, *w0;
        size_t n = fgl_slice_size(sl);
        if (!sl->trainable) continue;
        if (sl->groups & FGL_G_MASK) { /* d/dm l1 |m|, unless applied as a proximal step */
            if (!l1_prox)
                for (j = 0; j < n; j++) g[j] += w[j] > 0 ? l1 : w[j] < 0 ? -l1 : 0.0f;
        } else if (c->round > 0 && (w0 = fgl_received_at(c, sl->offset)) != NULL) { /* d/dw loc_l2 ||w - w0||_2 */
            double norm = 0;
            for (j = 0; j < n; j++) norm += ((double)w[j] - w0[j]) * ((double)w[j] - w0[j]);
            norm = sqrt(norm);
            if (norm > 0)
                for (j = 0; j < n; j++) g[j] += (float)(loc_l2 * (w[j] - w0[j]) / norm);
        }
    }
    return FGL_OK;
}

/* The L1 term's proximal step: m <- sign(m) max(|m| - lr l1, 0). Through
 * Adam, the subgradient l1 sign(m) is rescaled to about lr per step wherever
 * the data gradient is small (masks over features a client never sees), so
 * it would zero those masks whatever l1 is; the proximal step keeps l1's
 * scale. */
static int fgl__pub_after_step(fgl_client *c, const fgl_step *st) {
    fgl_params *ps = &st->model->params;
    float shrink = c->optim.cfg.lr * (float)fgl_get(c->set, "l1");
    int i;
    size_t j;
    if (fgl_get(c->set, "live_reg") == 0 || fgl_get(c->set, "l1_prox") == 0) return FGL_OK;
    for (i = 0; i < ps->n; i++) {
        const fgl_slice *sl = &ps->slices[i];
        float *w = ps->data + sl->offset;
        if (!sl->trainable || !(sl->groups & FGL_G_MASK)) continue;
        for (j = 0; j < fgl_slice_size(sl); j++)
            w[j] = w[j] > shrink ? w[j] - shrink : w[j] < -shrink ? w[j] + shrink : 0.0f;
    }
    return FGL_OK;
}

static void fgl__pub_report(const fgl_observed *o, char *buf, size_t cap) {
    long pruned = 0, total = 0;
    int i, k;
    size_t j;
    float *tmp = NULL;
    for (i = 0; i < o->n_clients; i++) {
        fgl_observed_model m;
        const float *data;
        float *t;
        if (fgl_observed_layout(o, i, &m)) continue; /* hosted elsewhere (FGL_MPI): its masks are not here */
        t = (float *)FGL_REALLOC(tmp, sizeof(float) * FGL__MAX(m.size, 1)); /* resident or packed (cfg.park_idle) */
        if (t) tmp = t;
        if (!t || fgl_observed_params(o, i, tmp, FGL__MAX(m.size, 1))) { /* out of memory or unreadable: no report */
            total = 0;
            break;
        }
        data = tmp;
        for (k = 0; k < m.n_slices; k++) {
            const fgl_slice *sl = &m.slices[k];
            const float *v = data + sl->offset;
            if (!(sl->groups & FGL_G_MASK)) continue;
            for (j = 0; j < fgl_slice_size(sl); j++) pruned += fabsf(v[j]) < m.spec->mask_prune;
            total += (long)fgl_slice_size(sl);
        }
    }
    FGL_FREE(tmp);
    if (!total) return;
    /* Uploads carry the dense weights; sending theta * mask sparsely would skip
     * the pruned entries (at 4 bytes each, before any index overhead). */
    snprintf(buf, cap, "\"mask_sparsity\": %.6f, \"prunable_bytes_per_round\": %ld",
             total ? (double)pruned / (double)total : 0.0, 4 * pruned);
}

static int fgl__pub_matrix(const fgl_observed *o, float *out) { return fgl_observed_matrix(o, "sim", out); }

static fgl_algo fgl__fedpub(void) {
    fgl_algo a =
        fgl_algo_new("fedpub", "Baek et al. 2023: personalised subgraph FL with functional-embedding similarity "
                               "and weight masks");
    fgl_algo_param_add(&a, "share", FGL_PARAM_GROUPS, (double)(FGL_G_ALL & ~(unsigned)FGL_G_MASK),
                       "parameter groups sent (the masks stay home)");
    fgl_algo_param_add(&a, "tau", FGL_PARAM_FLOAT, 3.0, "similarity sharpness (3 disjoint, 5 overlapping)");
    fgl_algo_param_add(&a, "l1", FGL_PARAM_FLOAT, 1e-3, "mask L1 weight");
    fgl_algo_param_add(&a, "loc_l2", FGL_PARAM_FLOAT, 1e-3, "proximal weight");
    fgl_algo_param_add(&a, "proxy_blocks", FGL_PARAM_INT, 5, "proxy graph blocks");
    fgl_algo_param_add(&a, "proxy_block_size", FGL_PARAM_INT, 100, "nodes per proxy block");
    fgl_algo_param_add(&a, "p_in", FGL_PARAM_FLOAT, 0.1, "proxy edge probability inside a block");
    fgl_algo_param_add(&a, "p_out", FGL_PARAM_FLOAT, 0.0, "proxy edge probability across blocks (paper: 0.01)");
    fgl_algo_param_add(&a, "live_reg", FGL_PARAM_INT, 1,
                       "1: L1/proximal terms act on the parameters; 0: as the authors' code (no effect)");
    fgl_algo_param_add(&a, "l1_prox", FGL_PARAM_INT, 1,
                       "1: L1 as a soft-threshold step after the optimizer step; 0: its subgradient through Adam");
    fgl_algo_param_add(&a, "masks", FGL_PARAM_INT, 1,
                       "1: personal weight masks; 0: none (with tau=0: no similarity either, i.e. FedAvg)");
    fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, 0, 0, 0);
    fgl_algo_upload(&a, "fe", FGL_SEND_DATA, FGL_DIM_EMB, 1, 0);
    fgl_algo_upload(&a, "n", FGL_SEND_WEIGHT, 0, 0, 0);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, FGL_PART_ROW, "theta");
    a.prepare_spec = fgl__pub_spec;
    a.client_init = fgl__pub_client_init;
    a.upload = fgl__pub_upload;
    a.train.grad = fgl__pub_grad;
    a.train.after_step = fgl__pub_after_step;
    a.server_init = fgl__pub_server_init;
    a.aggregate = fgl__pub_aggregate;
    a.report = fgl__pub_report;
    a.client_matrix = fgl__pub_matrix;
    a.mixes = 1;
    return a;
}

/* --- src/fed/algos/gpfl.h --- */
/* --- GPFL (Chen et al., TMLR 2025; docs/algorithms.md) ------------------------------- */
/* A learned client network for personalised graph classification. Every
 * client trains the whole model (the GIN of the protocol) and uploads it
 * with its functional embedding: the flattened log-softmax output of its
 * model (evaluation mode) on 20 Erdos-Renyi graphs G(fe_nodes, fe_p) with
 * one-hot degree features clipped to its feature width F (20 x C floats; the
 * graphs come from the run seed, so every client holds the same ones and
 * they cost no bytes; same_graphs=1 draws the 20 identically, as the
 * authors' code does). In round 1 it also sends 6 floats, the mean GPFL
 * graph properties of its training graphs (fgl_graph_gpfl_properties).
 * Sent: up 4 (n + 20 C) bytes a round, + 24 once; down 4 n.
 *
 * The server keeps every client's model theta_i and, with
 *     cosnet(v)_ij = relu(cos(v_i - mean_k v_k, v_j - mean_k v_k))
 * (centred, not z-scored), A_E = cosnet(FE) every round:
 *  1. first aggregation: the property network A_P = cosnet(properties),
 *     after a greedy backward elimination that drops, while more than
 *     min_props remain, the property whose removal most reduces
 *     ||A_P - A_E||_F^2, and stops when no removal reduces it
 *     (init=0: a network of U(0, 1) weights instead, the paper's "random");
 *     A_1 = rownorm(A_P). Later A_t = rownorm(relu(beta A_{t-1} + (1 - beta) A_E)).
 *  2. the client features X: each uploaded model average-pooled to about
 *     `pool` numbers (kernel = stride = floor(n / pool), in fgl's parameter
 *     order), centred across clients, rows L2-normalised;
 *  3. a graph auto-encoder (fgl_gae, src/gnn/gae.h: widths gae_hidden, gae_out, LayerNorm),
 *     built afresh every round (weights, LayerNorm and Adam state, as the
 *     authors' code builds a new one each round), trained gae_steps
 *     full-batch Adam steps (gae_lr, gae_wd) on fgl_gae_loss(S, size_weight)
 *     with input (A_t, X); S = Z Z^T;
 *  4. the client network A = rownorm(1[rowsoftmax(S) >= thresh / K]);
 *     learn=0 skips steps 2-4 and the moving average: A = A_1 every round
 *     (the paper's fixed "property" / "random" networks);
 *  5. with dtheta_i = theta_i(uploaded) - theta_i (0 for a client whose
 *     upload is missing),
 *         theta_i += gamma (A dtheta)_i + (1 - gamma) dtheta_i     (code)
 *         theta_i += gamma dtheta_i + (1 - gamma) (A dtheta)_i     (paper_mix=1, Eq. 4)
 *     and client i downloads theta_i.
 * rownorm divides each row by its sum; a row summing to 0 becomes the
 * client's own unit row. A (the network the aggregation used) is the
 * client_matrix, identity before the first aggregation. */

#define FGL__GPFL_GRAPHS 20

static const char *const fgl__gpfl_prop_names[FGL_GPFL_PROPS] = {"avg_degree", "density", "degree_variance",
                                                                 "entropy", "scale_free", "closeness"};

static void fgl__gpfl_gae_free(void *p) { fgl_gae_free((fgl_gae *)p); }

static int fgl__gpfl_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    (void)set;
    if (spec->task != FGL_TASK_GRAPH) return fgl_error_set(err, FGL_ERR_ARG, "gpfl: graph classification only");
    return FGL_OK;
}

static int fgl__gpfl_client_init(fgl_client *c) {
    int nn = (int)fgl_get(c->set, "fe_nodes"), same = fgl_get(c->set, "same_graphs") != 0, F = c->model.spec.in_dim;
    double p = fgl_get(c->set, "fe_p"), pr[FGL_GPFL_PROPS];
    float *props = fgl_new_floats(&c->store, "props", FGL_GPFL_PROPS);
    fgl__probe *pb;
    int g, i, k, rc = FGL_OK, N;
    fgl_error err;
    if (!props) return FGL_ERR_NOMEM;
    if (nn < 1 || !(p >= 0 && p <= 1))
        return fgl_client_fail(c, FGL_ERR_ARG, "gpfl: fe_nodes must be >= 1 and fe_p in [0, 1]");
    if ((rc = fgl_graph_set_gpfl_properties(c->data.graphs, FGL_SPLIT_TRAIN, pr, &err)))
        return fgl_client_fail(c, rc, "gpfl: %s", err.msg);
    for (k = 0; k < FGL_GPFL_PROPS; k++) props[k] = (float)pr[k];
    /* 20 G(nn, p) graphs side by side */
    N = FGL__GPFL_GRAPHS * nn;
    if (!(pb = fgl__probe_new(c, "probe", N, FGL__GPFL_GRAPHS))) return FGL_ERR_NOMEM;
    for (g = 0; g < FGL__GPFL_GRAPHS && !rc; g++) {
        fgl_csr one;
        uint64_t gs = c->fed->seed * 7919u + 0x4750464c4552ull + (uint64_t)(same ? 0 : g); /* "GPFLER" */
        memset(&one, 0, sizeof one);
        pb->offsets[g] = g * nn;
        if ((rc = fgl_gen_gnp(nn, p, gs, &one, &err))) break;
        for (i = 0; i < nn && !rc; i++)
            for (k = one.indptr[i]; k < one.indptr[i + 1] && !rc; k++)
                if (fgl__probe_edge(pb, g * nn + i, g * nn + one.indices[k]))
                    rc = fgl_error_set(&err, FGL_ERR_NOMEM, "out of memory");
        fgl_csr_free(&one);
    }
    if (!rc) rc = fgl__probe_adjacency(pb, &err);
    if (rc) return fgl_client_fail(c, rc, "gpfl: random graphs: %s", err.msg);
    /* one-hot degree, clipped to the feature width */
    for (i = 0; i < N; i++) {
        int d = pb->adj.indptr[i + 1] - pb->adj.indptr[i];
        pb->x[(size_t)i * F + (d < F ? d : F - 1)] = 1.0f;
    }
    if ((rc = fgl__probe_view(pb, c, &err))) return fgl_client_fail(c, rc, "gpfl: %s", err.msg);
    return FGL_OK;
}

/* The functional embedding, and the properties in the first round. */
static int fgl__gpfl_upload(fgl_client *c) {
    fgl__probe *pb = (fgl__probe *)fgl_get_scratch(&c->store, "probe");
    float *fe = fgl_up(c, "fe");
    int C = (int)(fgl_up_size(c, "fe") / FGL__GPFL_GRAPHS), Ci = c->model.spec.out_dim, g, j;
    fgl_forward fw;
    fgl_node *lp;
    fgl_tape_reset(&c->tape);
    if (fgl_model_forward(&c->model, &c->tape, &pb->g, 0, NULL, &fw) || !(lp = fgl_op_log_softmax(&c->tape, fw.logits)))
        return fgl_client_fail(c, c->tape.err ? c->tape.err : FGL_ERR_ARG, "gpfl: functional embedding: %s",
                               c->tape.msg);
    for (g = 0; g < FGL__GPFL_GRAPHS; g++)
        for (j = 0; j < C; j++) fe[g * C + j] = j < Ci ? lp->val[g * Ci + j] : 0.0f;
    fgl_tape_reset(&c->tape);
    if (c->round == 0) memcpy(fgl_up(c, "props"), fgl_floats(&c->store, "props"), sizeof(float) * FGL_GPFL_PROPS);
    else fgl_up_drop(c, "props");
    return FGL_OK;
}

/* Rows of a (K x K) divided by their sums; a row summing to 0 (or less)
 * becomes the unit row of its client. */
static void fgl__gpfl_rownorm(int K, float *a) {
    int i, j;
    for (i = 0; i < K; i++) {
        float *r = a + (size_t)i * K;
        double sum = 0;
        for (j = 0; j < K; j++) sum += r[j];
        for (j = 0; j < K; j++) r[j] = sum > 0 ? (float)(r[j] / sum) : (float)(j == i);
    }
}

/* out = relu(cos(v_i - mean, v_j - mean)) over the rows with has[i] (v: K x
 * d, columns with use[q] when use is not NULL; the mean over those rows);
 * a row without has is 0 but for 1 on the diagonal. */
static int fgl__gpfl_cosnet(fgl_server *s, int K, int d, const float *v, const int *has, const int *use, float *out) {
    double *mean = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)FGL__MAX(d, 1));
    float *cv = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * (size_t)FGL__MAX(d, 1));
    int i, j, q, n = 0;
    if (!mean || !cv) return FGL_ERR_NOMEM;
    for (i = 0; i < K; i++)
        if (has[i]) {
            n++;
            for (q = 0; q < d; q++) mean[q] += v[(size_t)i * d + q];
        }
    for (i = 0; i < K; i++)
        for (q = 0; q < d; q++)
            cv[(size_t)i * d + q] =
                has[i] && (!use || use[q]) ? (float)(v[(size_t)i * d + q] - mean[q] / FGL__MAX(n, 1)) : 0.0f;
    for (i = 0; i < K; i++)
        for (j = 0; j < K; j++) {
            double c =
                has[i] && has[j] ? fgl_cosine((size_t)d, cv + (size_t)i * d, cv + (size_t)j * d) : (double)(i == j);
            out[(size_t)i * K + j] = c > 0 ? (float)c : 0.0f;
        }
    return FGL_OK;
}

static double fgl__gpfl_dist2(int K, const float *a, const float *b) {
    double s = 0;
    size_t q;
    for (q = 0; q < (size_t)K * K; q++) s += ((double)a[q] - b[q]) * ((double)a[q] - b[q]);
    return s;
}

/* Round 1's greedy backward elimination of properties (keep[q] = 1 for the
 * kept ones) and the property network on them into ap. */
static int fgl__gpfl_select(fgl_server *s, const float *ae, int *keep, float *ap) {
    int K = s->n_clients, left = FGL_GPFL_PROPS, q, rc, minp = (int)fgl_get(s->set, "min_props");
    const float *props = fgl_floats(&s->store, "props");
    const int *has = fgl_ints(&s->store, "has_props");
    double cur;
    for (q = 0; q < FGL_GPFL_PROPS; q++) keep[q] = 1;
    if ((rc = fgl__gpfl_cosnet(s, K, FGL_GPFL_PROPS, props, has, keep, ap))) return rc;
    cur = fgl__gpfl_dist2(K, ap, ae);
    while (left > minp) {
        int best = -1;
        double best_d = cur;
        for (q = 0; q < FGL_GPFL_PROPS; q++) {
            double dq;
            if (!keep[q]) continue;
            keep[q] = 0;
            rc = fgl__gpfl_cosnet(s, K, FGL_GPFL_PROPS, props, has, keep, ap);
            keep[q] = 1;
            if (rc) return rc;
            dq = fgl__gpfl_dist2(K, ap, ae);
            if (dq < best_d) { /* strictly better; ties keep the earlier property */
                best_d = dq;
                best = q;
            }
        }
        if (best < 0) break; /* no removal helps */
        keep[best] = 0;
        cur = best_d;
        left--;
    }
    return fgl__gpfl_cosnet(s, K, FGL_GPFL_PROPS, props, has, keep, ap);
}

static int fgl__gpfl_server_init(fgl_server *s) {
    size_t K = (size_t)s->n_clients, n = s->n_shared, i, kern;
    int pool = (int)fgl_get(s->set, "pool"), h = (int)fgl_get(s->set, "gae_hidden"),
        o = (int)fgl_get(s->set, "gae_out");
    double gamma = fgl_get(s->set, "gamma"), beta = fgl_get(s->set, "beta");
    float *theta, *A, *net;
    fgl_gae *gae;
    fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
    if (!(gamma >= 0 && gamma <= 1) || !(beta >= 0 && beta <= 1) || pool < 1 || h < 1 || o < 1 ||
        fgl_get(s->set, "gae_steps") < 0 || !(fgl_get(s->set, "thresh") >= 0) || fgl_get(s->set, "min_props") < 1 ||
        fgl_get(s->set, "min_props") > FGL_GPFL_PROPS || !(fgl_get(s->set, "gae_lr") >= 0) ||
        !(fgl_get(s->set, "gae_wd") >= 0))
        return fgl_server_fail(s, FGL_ERR_ARG, "gpfl: gamma and beta must be in [0, 1], pool, gae_hidden and gae_out "
                               ">= 1, gae_steps, gae_lr, gae_wd and thresh >= 0, min_props in 1..6");
    theta = fgl_new_floats(&s->store, "theta", K * n);
    fgl_new_floats(&s->store, "props", K * FGL_GPFL_PROPS);
    fgl_new_ints(&s->store, "has_props", K);
    fgl_new_ints(&s->store, "keep", FGL_GPFL_PROPS);
    fgl_new_ints(&s->store, "state", 2); /* [0]: network initialised; [1]: aggregations done */
    net = fgl_new_floats(&s->store, "net", K * K);   /* A_t, the auto-encoder's input network */
    A = fgl_new_floats(&s->store, "A", K * K);       /* the network the aggregation uses */
    fgl_new_floats(&s->store, "soft", K * K);        /* row-softmax of the auto-encoder's S */
    fgl_new_floats(&s->store, "last", 2);            /* last auto-encoder loss, mean links per client */
    kern = n / (size_t)pool > 0 ? n / (size_t)pool : 1;
    gae = (fgl_gae *)fgl_new_scratch(&s->store, "gae", sizeof(fgl_gae), fgl__gpfl_gae_free);
    if (s->store.err || !gae) return FGL_ERR_NOMEM;
    if (fgl_gae_init(gae, (int)(n / kern), h, o, s->fed->seed))
        return fgl_server_fail(s, FGL_ERR_NOMEM, "gpfl: auto-encoder");
    oc.lr = (float)fgl_get(s->set, "gae_lr");
    oc.weight_decay = (float)fgl_get(s->set, "gae_wd");
    fgl_new_optim(&s->store, "gae_optim", oc, &gae->params); /* restarted every round */
    fgl_new_tape(&s->store, "gae_tape");
    if (s->store.err) return s->store.err;
    for (i = 0; i < K; i++) fgl_server_pack(s, s->init, theta + i * n);
    for (i = 0; i < K; i++) A[i * K + i] = 1.0f;
    if (fgl_get(s->set, "init") == 0) { /* the paper's random initial network */
        fgl_rng r;
        fgl_rng_init(&r, s->fed->seed, 0x47504652414eull); /* "GPFRAN" */
        for (i = 0; i < K * K; i++) net[i] = (float)fgl_rng_uniform(&r);
    }
    return FGL_OK;
}

/* The auto-encoder's network: A = rownorm(1[rowsoftmax(S) >= thresh / K]). */
static int fgl__gpfl_learn(fgl_server *s, const float *ups, float *A) {
    int K = s->n_clients, i, j, rc;
    size_t n = s->n_shared, q, kern;
    fgl_gae *gae = (fgl_gae *)fgl_get_scratch(&s->store, "gae");
    fgl_optim *opt = fgl_get_optim(&s->store, "gae_optim");
    float *soft = fgl_floats(&s->store, "soft");
    float *last = fgl_floats(&s->store, "last"), thr = (float)(fgl_get(s->set, "thresh") / K);
    int m = gae->in_dim;
    float *X = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * (size_t)m);
    float *S = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * (size_t)K);
    double loss = 0;
    if (!X || !S) return FGL_ERR_NOMEM;
    kern = n / (size_t)m;
    /* client features: pooled, centred across clients, rows L2-normalised */
    for (i = 0; i < K; i++)
        for (j = 0; j < m; j++) {
            double acc = 0;
            for (q = 0; q < kern; q++) acc += ups[(size_t)i * n + (size_t)j * kern + q];
            X[(size_t)i * m + j] = (float)(acc / (double)kern);
        }
    for (j = 0; j < m; j++) {
        double mean = 0;
        for (i = 0; i < K; i++) mean += X[(size_t)i * m + j];
        mean /= K;
        for (i = 0; i < K; i++) X[(size_t)i * m + j] = (float)(X[(size_t)i * m + j] - mean);
    }
    for (i = 0; i < K; i++) {
        double nrm = fgl_norm2((size_t)m, X + (size_t)i * m);
        if (nrm > 0)
            for (j = 0; j < m; j++) X[(size_t)i * m + j] = (float)(X[(size_t)i * m + j] / nrm);
    }
    /* a fresh auto-encoder, trained on (A_t, X) */
    fgl_gae_reset(gae, s->fed->seed * 1000003u + (uint64_t)s->round, 1);
    fgl_optim_reset(opt);
    rc = fgl_gae_fit(gae, opt, fgl_get_tape(&s->store, "gae_tape"), fgl_floats(&s->store, "net"), X, K,
                     (int)fgl_get(s->set, "gae_steps"), (float)fgl_get(s->set, "size_weight"), S, &loss);
    if (rc) return fgl_server_fail(s, rc, "gpfl: auto-encoder: %s", fgl_get_tape(&s->store, "gae_tape")->msg);
    last[0] = (float)loss;
    /* row softmax, threshold, row-normalise */
    for (i = 0; i < K; i++) {
        const float *r = S + (size_t)i * K;
        double mx = r[0], sum = 0;
        for (j = 1; j < K; j++) mx = r[j] > mx ? r[j] : mx;
        for (j = 0; j < K; j++) sum += exp((double)r[j] - mx);
        for (j = 0; j < K; j++) {
            soft[(size_t)i * K + j] = (float)(exp((double)r[j] - mx) / sum);
            A[(size_t)i * K + j] = soft[(size_t)i * K + j] >= thr ? 1.0f : 0.0f;
        }
    }
    fgl__gpfl_rownorm(K, A);
    return FGL_OK;
}

static int fgl__gpfl_aggregate(fgl_server *s) {
    int K = s->n_clients, i, j, rc, n_up, learn = fgl_get(s->set, "learn") != 0,
        paper = fgl_get(s->set, "paper_mix") != 0;
    size_t n = s->n_shared, d = fgl_server_up_size(s, "fe"), q;
    float gamma = (float)fgl_get(s->set, "gamma"), beta = (float)fgl_get(s->set, "beta");
    float *theta = fgl_floats(&s->store, "theta"), *props = fgl_floats(&s->store, "props");
    float *net = fgl_floats(&s->store, "net"), *A = fgl_floats(&s->store, "A"), *last = fgl_floats(&s->store, "last");
    int *has_props = fgl_ints(&s->store, "has_props"), *state = fgl_ints(&s->store, "state");
    float *ups = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * FGL__MAX(n, 1));
    float *mixed = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * FGL__MAX(n, 1));
    float *fe = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * FGL__MAX(d, 1));
    float *ae = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * (size_t)K);
    double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * (size_t)K), links = 0;
    int *has = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K);
    int *has_fe = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K);
    if (!ups || !mixed || !fe || !ae || !w || !has || !has_fe) return FGL_ERR_NOMEM;
    if ((n_up = fgl_server_gather(s, "theta", ups, has)) == 0) return FGL_OK; /* nothing accepted: models stay */
    for (i = 0; i < K; i++) {
        const float *pr = fgl_upload(s, i, "props");
        if (!has[i]) memcpy(ups + (size_t)i * n, theta + (size_t)i * n, sizeof(float) * n); /* no update */
        if (pr) {
            memcpy(props + (size_t)i * FGL_GPFL_PROPS, pr, sizeof(float) * FGL_GPFL_PROPS);
            has_props[i] = 1;
        }
    }
    fgl_server_gather(s, "fe", fe, has_fe);
    if ((rc = fgl__gpfl_cosnet(s, K, (int)d, fe, has_fe, NULL, ae))) return rc;
    /* the network the auto-encoder starts from */
    if (!state[0]) {
        if (fgl_get(s->set, "init") != 0 && (rc = fgl__gpfl_select(s, ae, fgl_ints(&s->store, "keep"), net))) return rc;
        fgl__gpfl_rownorm(K, net);
        state[0] = 1;
    } else if (learn) {
        for (q = 0; q < (size_t)K * K; q++) {
            float v = beta * net[q] + (1.0f - beta) * ae[q];
            net[q] = v > 0 ? v : 0.0f;
        }
        fgl__gpfl_rownorm(K, net);
    }
    if (learn) {
        if ((rc = fgl__gpfl_learn(s, ups, A))) return rc;
    } else {
        memcpy(A, net, sizeof(float) * (size_t)K * K);
    }
    /* theta_i += a (A dtheta)_i + b dtheta_i */
    for (i = 0; i < K; i++)
        for (q = 0; q < n; q++) ups[(size_t)i * n + q] -= theta[(size_t)i * n + q];
    for (i = 0; i < K; i++)
        for (j = 0; j < K; j++) {
            w[(size_t)i * K + j] = A[(size_t)i * K + j];
            links += i != j && A[(size_t)i * K + j] > 0;
        }
    if ((rc = fgl_mix_rows(K, w, ups, n, mixed, NULL))) return rc;
    {
        float a = paper ? 1.0f - gamma : gamma, b = paper ? gamma : 1.0f - gamma;
        for (i = 0; i < K; i++)
            for (q = 0; q < n; q++)
                theta[(size_t)i * n + q] += a * mixed[(size_t)i * n + q] + b * ups[(size_t)i * n + q];
    }
    last[1] = (float)(links / K);
    state[1]++;
    return FGL_OK;
}

static int fgl__gpfl_matrix(const fgl_observed *o, float *out) { return fgl_observed_matrix(o, "A", out); }

static void fgl__gpfl_report(const fgl_observed *o, char *buf, size_t cap) {
    const int *keep;
    const float *last;
    size_t used;
    int q, first = 1;
    if (!o->started || !cap) return;
    keep = fgl_observed_ints(o, "keep");
    last = fgl_observed_floats(o, "last");
    used = (size_t)snprintf(buf, cap, "\"gpfl_properties\": \"");
    for (q = 0; q < FGL_GPFL_PROPS && used < cap; q++)
        if (keep[q] && fgl_get(o->set, "init") != 0) {
            used += (size_t)snprintf(buf + used, cap - used, "%s%s", first ? "" : ",", fgl__gpfl_prop_names[q]);
            first = 0;
        }
    if (used < cap)
        snprintf(buf + used, cap - used, "\", \"gpfl_gae_loss\": %.6g, \"gpfl_links_per_client\": %.4g",
                 (double)last[0], (double)last[1]);
}

static fgl_algo fgl__gpfl(void) {
    fgl_algo a = fgl_algo_new("gpfl", "Chen et al. 2025: a learned client network (property-initialised, graph "
                              "auto-encoder) guides personalised aggregation; graph classification");
    fgl_algo_param_add(&a, "share", FGL_PARAM_GROUPS, (double)FGL_G_ALL, "parameter groups shared (the whole model)");
    fgl_algo_param_add(&a, "gamma", FGL_PARAM_FLOAT, 0.95,
                       "theta_i += gamma (A dtheta)_i + (1 - gamma) dtheta_i (authors' code; see paper_mix)");
    fgl_algo_param_add(
        &a, "paper_mix", FGL_PARAM_INT, 0,
        "1: the paper's Eq. 4, gamma on the client itself: theta_i += gamma dtheta_i + (1 - gamma) (A dtheta)_i");
    fgl_algo_param_add(&a, "beta", FGL_PARAM_FLOAT, 0.95, "moving average A_t = relu(beta A_{t-1} + (1 - beta) A_E)");
    fgl_algo_param_add(&a, "thresh", FGL_PARAM_FLOAT, 0.1, "edge if row-softmax(S) >= thresh / K");
    fgl_algo_param_add(&a, "gae_steps", FGL_PARAM_INT, 100, "auto-encoder Adam steps per round");
    fgl_algo_param_add(&a, "gae_lr", FGL_PARAM_FLOAT, 1e-3, "auto-encoder learning rate");
    fgl_algo_param_add(&a, "gae_wd", FGL_PARAM_FLOAT, 5e-4, "auto-encoder weight decay");
    fgl_algo_param_add(&a, "gae_hidden", FGL_PARAM_INT, 128, "auto-encoder hidden width");
    fgl_algo_param_add(&a, "gae_out", FGL_PARAM_INT, 32, "auto-encoder embedding width");
    fgl_algo_param_add(&a, "size_weight", FGL_PARAM_FLOAT, 1.0,
                       "weight of the sparsity term mean -log(1 - sigmoid(S))");
    fgl_algo_param_add(&a, "pool", FGL_PARAM_INT, 100,
                       "client features: parameters average-pooled to about this many numbers");
    fgl_algo_param_add(&a, "min_props", FGL_PARAM_INT, 2, "property selection keeps at least this many properties");
    fgl_algo_param_add(&a, "fe_nodes", FGL_PARAM_INT, 30,
                       "nodes of each of the 20 random graphs of the functional embedding");
    fgl_algo_param_add(&a, "fe_p", FGL_PARAM_FLOAT, 0.1, "edge probability of the random graphs");
    fgl_algo_param_add(&a, "same_graphs", FGL_PARAM_INT, 0,
                       "1: the 20 random graphs identical (the authors' code seeds them alike)");
    fgl_algo_param_add(&a, "init", FGL_PARAM_INT, 1,
                       "1: property-based initial network; 0: U(0, 1) weights (ablation)");
    fgl_algo_param_add(&a, "learn", FGL_PARAM_INT, 1,
                       "1: moving average and auto-encoder every round; 0: the initial network fixed (ablation)");
    fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, 0, 0, FGL_PART_RAW); /* its updates mixed by hand */
    fgl_algo_upload(&a, "fe", FGL_SEND_DATA, FGL__GPFL_GRAPHS, FGL_DIM_CLASSES, 0);
    fgl_algo_upload(&a, "props", FGL_SEND_DATA, FGL_GPFL_PROPS, 1, FGL_PART_OPTIONAL);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, FGL_PART_ROW, "theta");
    a.prepare_spec = fgl__gpfl_spec;
    a.client_init = fgl__gpfl_client_init;
    a.upload = fgl__gpfl_upload;
    a.server_init = fgl__gpfl_server_init;
    a.aggregate = fgl__gpfl_aggregate;
    a.mixes = 1; /* per-client mixtures of updates: no DP or secure aggregation (and, mixed by hand, no robust rule) */
    a.report = fgl__gpfl_report;
    a.client_matrix = fgl__gpfl_matrix;
    return a;
}

/* --- src/fed/algos/fedpg.h --- */
/* --- FedPG (Li et al., Federated Prototype Graph Learning) ------------------------- */
/* Prototypes per class and hop instead of weights (docs/algorithms.md, FedPG: the
 * paper's equations are lost; this is the reconstruction written there).
 * Clients may run different backbones (no weights travel); they must agree
 * on the width d of the embedding z the classifier reads, which on node
 * tasks is L2-normalised (normalize=1 sets spec.norm_rep: z =
 * L2norm(ReLU(layer-1 output)) for a two-layer model whose last layer is the
 * classifier). Graph tasks keep the pooled embedding as it is by default
 * (normalize=2 normalises it too: on NCI1 the normalised readouts collapsed
 * to one direction and every client predicted its majority class).
 *
 * Hops h = 0..H, H the smallest message-passing layer count among clients
 * (FGL_DIM_HOPS = H + 1). Node tasks: N^0(v) = {v}, N^h(v) = the nodes at
 * distance exactly h from v in the client's subgraph (the centre excluded).
 * Graph tasks (no public code; fgl's choice): the "neighbours" of a training
 * graph are the other training graphs of the client whose embedding cosine
 * lies in a ring that moves outwards with h: N^h(v) = {u != v : theta_h <=
 * cos(z_u, z_v) < theta_{h-1}}, theta_0 = +inf, with decaying thresholds
 * theta_h = the cosine reached by the top h graph_band fraction of all pairs
 * (graph_band 0.1: hop 1 is the 10% most similar pairs, hop 2 the next 10%,
 * ...), recomputed from the current embeddings: over all training graphs
 * for the upload, over the graphs of the mini-batch inside the loss. (Fixed
 * cosine thresholds fail: the ReLU embeddings are non-negative and nearly
 * all pairs exceed 0.9.)
 *
 * Client, after local training (evaluation mode): for class c and hop h,
 * p^{c,h} = mean over the centres v of class c with N^h(v) non-empty of
 * mean_{u in N^h(v)} z_u; centres are the training samples (their labels
 * only, never validation ones: val_centres=1, for reproduction only, makes
 * the validation nodes centres too, at every hop, in the prototypes and in
 * the loss, as the authors' code does at hop 0 -- label leakage: the
 * validation accuracy that selects the round then measures nodes trained
 * on), plus, with pseudo > 0 (node tasks, the
 * paper's Algorithm 1), the other nodes the model predicts with softmax
 * confidence >= pseudo, under their predicted class. Sends "protos"
 * (C (H+1) x d, row c (H+1) + h) and "counts" (C x (H+1): the centres
 * behind each row; 0 marks an absent row, whose floats are zeros and are
 * never read).
 * Loss: CE + mu sum_{h, c} mean_{v in S_c^h} ||mean_{N^h(v)} z - P~^{c,h}||^2 / d
 * (MSE per class and hop, as nn.MSELoss), over the rows the download marks
 * and the hops h <= loss_hops (0: the centre's hop only, what the authors'
 * code trains; -1: every hop, as the paper writes; the default -2: 0 on
 * node tasks, every hop on graph tasks); no term before the first download
 * (round 0). The node default is measured: on FedPG's protocol the hop-0
 * loss beats the all-hop one on Cora (80.98 against 77.56) and Amazon
 * Computers (88.02 against 86.13): the hop-1/2 terms pull a training
 * node's neighbours, test nodes of other classes among them, towards the
 * centre's class. Graph tasks keep every hop (their rings are fgl's own
 * construction, and the hop-0-only loss was not measured there).
 * Server: every accepted upload replaces that client's entry in a bank (the
 * latest prototypes and counts of every client). Per hop h in turn: the
 * queries are this round's uploaded p^{c,h} with counts > 0 (plus, with
 * rf_ratio > 0, round(rf_ratio m_h) prototypes of the same classes at other
 * hops, drawn without replacement: the paper's "RF context"); the margin
 * delta_h = FedTGP's adaptive margin over them (tau caps it; tau = 0 removes
 * it); server_steps Adam steps (lr server_lr, weight decay server_wd) of the
 * generator on FedTGP's loss against P^{.,h} = L2norm(MLP(anchor^{.,h})),
 * anchors C (H+1) x d, one MLP d -> server_hidden -> d shared by all rows.
 * Personalisation, per client i, class c, hop h that i holds: F = the topk
 * clients holding (c, h) with the highest cos(p_i^{c,h}, p_j^{c,h}), self
 * included (fusion=1: every client with cosine >= threshold, and self);
 * P~_i^{c,h} = alpha P^{c,h} + (1 - alpha) sum_{j in F} w_j p_j^{c,h}, w_j =
 * n_j^{c,h} / sum_F n^{c,h} (the authors' code weights by the receiving
 * client's total count: not copied); target_scale=authors divides P~ by
 * 1 + |F| as the authors' code does (|F| = topk when that many clients hold
 * the row), which shrinks the target towards 0 (a third of its length at
 * topk 2). alpha = 1 turns personalisation off. Download: "protos" and "mask" (C x (H+1), 1 where a
 * row holds a prototype), nothing before the first aggregation.
 * The authors' code also: takes validation labels into its prototypes (as
 * val_centres=1), uses
 * 0/1 masks as row indices (its 1- and 2-hop terms read rows 0 and 1) and
 * appends the 2-hop term to the 1-hop list, divides the per-class means by
 * the client count once per class (K^C: its margin is about 0), keeps
 * dropout on at evaluation (F.dropout without training=): none copied. */

FGL__PRIVATE void fgl__pg_rings_free(void *p) {
    fgl__pg_rings *r = (fgl__pg_rings *)p;
    int h;
    if (!r || r->on_tape) return;
    for (h = 0; h <= r->H; h++) {
        fgl_csr_free(&r->hop[h]);
        fgl_csr_free(&r->hop_t[h]);
    }
    FGL_FREE(r->centre);
    FGL_FREE(r->label);
    memset(r, 0, sizeof *r);
}

/* Memory from arena t, or FGL_MALLOC (zeroed either way). */
static void *fgl__pg_alloc(fgl_tape *t, size_t bytes) {
    void *p;
    if (t) return fgl_tape_alloc(t, bytes ? bytes : 1);
    p = FGL_MALLOC(bytes ? bytes : 1);
    if (p) memset(p, 0, bytes ? bytes : 1);
    return p;
}

/* A CSR matrix (rows x cols) with the entries cnt[i] of row i already
 * counted; indices and values are filled by the caller. */
static int fgl__pg_csr(fgl_tape *t, fgl_csr *a, int rows, int cols, const int *cnt) {
    int i, nnz = 0;
    for (i = 0; i < rows; i++) nnz += cnt[i];
    memset(a, 0, sizeof *a);
    a->rows = rows;
    a->cols = cols;
    a->nnz = nnz;
    a->indptr = (int *)fgl__pg_alloc(t, sizeof(int) * (size_t)(rows + 1));
    a->indices = (int *)fgl__pg_alloc(t, sizeof(int) * (size_t)FGL__MAX(nnz, 1));
    a->values = (float *)fgl__pg_alloc(t, sizeof(float) * (size_t)FGL__MAX(nnz, 1));
    if (!a->indptr || !a->indices || !a->values) return FGL_ERR_NOMEM;
    for (i = 0; i < rows; i++) a->indptr[i + 1] = a->indptr[i] + cnt[i];
    return FGL_OK;
}

/* Transposes of hop[0..H] (only when not on a tape: the loss on a tape uses
 * the serial backward of spmm). */
static int fgl__pg_transposes(fgl__pg_rings *r) {
    int h, rc;
    for (h = 0; h <= r->H; h++)
        if ((rc = fgl_csr_transpose(&r->hop[h], &r->hop_t[h]))) return rc;
    return FGL_OK;
}

/* Node tasks: rings of exact graph distance h = 0..H around each centre
 * (breadth-first search to depth H; the centre is not its own neighbour).
 * Two passes over the centres: count the ring sizes, then fill. */
FGL__PRIVATE int fgl__pg_rings_graph(fgl__pg_rings *r, const fgl_csr *adj, const int *centre, const int *label, int n,
                                     int H, fgl_tape *t) {
    int N = adj->rows, H1 = H + 1, h, i, pass, q, rc = FGL_OK;
    int *dist = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(N, 1));
    int *queue = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(N, 1));
    int *cnt = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(n, 1) * (size_t)H1);
    int *col = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(n, 1));
    memset(r, 0, sizeof *r);
    r->H = H;
    r->n = n;
    r->on_tape = t != NULL;
    r->centre = (int *)fgl__pg_alloc(t, sizeof(int) * (size_t)FGL__MAX(n, 1));
    r->label = (int *)fgl__pg_alloc(t, sizeof(int) * (size_t)FGL__MAX(n, 1));
    if (!dist || !queue || !cnt || !col || !r->centre || !r->label) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    if (n) {
        memcpy(r->centre, centre, sizeof(int) * (size_t)n);
        memcpy(r->label, label, sizeof(int) * (size_t)n);
    }
    for (i = 0; i < N; i++) dist[i] = -1;
    for (pass = 0; pass < 2 && !rc; pass++) {
        if (pass == 1)
            for (h = 0; h <= H && !rc; h++) {
                for (i = 0; i < n; i++) col[i] = cnt[(size_t)i * H1 + h];
                rc = fgl__pg_csr(t, &r->hop[h], n, N, col);
            }
        for (i = 0; i < n && !rc; i++) {
            int head = 0, tail = 0;
            queue[tail++] = centre[i];
            dist[centre[i]] = 0;
            while (head < tail) {
                int u = queue[head++];
                if (dist[u] >= H) continue;
                for (q = adj->indptr[u]; q < adj->indptr[u + 1]; q++) {
                    int v = adj->indices[q];
                    if (dist[v] >= 0) continue;
                    dist[v] = dist[u] + 1;
                    queue[tail++] = v;
                }
            }
            /* queue[0..tail): the centre and every node within H hops, in discovery order */
            if (pass == 0) {
                for (h = 0; h <= H; h++) cnt[(size_t)i * H1 + h] = 0;
                for (q = 0; q < tail; q++) cnt[(size_t)i * H1 + dist[queue[q]]]++;
            } else {
                int w[FGL_MAX_LAYERS + 1];
                for (h = 0; h <= H; h++) w[h] = r->hop[h].indptr[i];
                for (q = 0; q < tail; q++) {
                    fgl_csr *a = &r->hop[dist[queue[q]]];
                    a->indices[w[dist[queue[q]]]] = queue[q];
                    a->values[w[dist[queue[q]]]++] = 1.0f / (float)cnt[(size_t)i * H1 + dist[queue[q]]];
                }
            }
            for (q = 0; q < tail; q++) dist[queue[q]] = -1;
        }
    }
done:
    FGL_FREE(dist);
    FGL_FREE(queue);
    FGL_FREE(cnt);
    FGL_FREE(col);
    if (rc && !t) fgl__pg_rings_free(r);
    return rc;
}

/* The k-th largest (0-based) of a[0..m-1], reordering a: quickselect with a
 * median-of-three pivot (no randomness; the value is the order statistic
 * whatever the order). */
FGL__PRIVATE float fgl__pg_kth_largest(float *a, size_t m, size_t k) {
    size_t lo = 0, hi = m - 1;
    while (lo < hi) {
        size_t i = lo, j = hi, mid = lo + (hi - lo) / 2;
        float x = a[lo], y = a[mid], z = a[hi],
              pivot = x > y ? (y > z ? y : (x > z ? z : x)) : (x > z ? x : (y > z ? z : y));
        while (i <= j) { /* descending: larger values to the left */
            while (a[i] > pivot) i++;
            while (a[j] < pivot) j--;
            if (i <= j) {
                float t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return a[k];
    }
    return a[k];
}

/* Graph tasks: rings of embedding cosine among the n rows of z (d wide):
 * hop h holds the pairs whose cosine lies between thresholds theta_h <=
 * cos < theta_{h-1} (theta_0 = +inf). theta_h is the cosine that the
 * fraction h band of all pairs (i != j) reach or exceed: with band 0.1, hop 1
 * is the 10% most similar pairs, hop 2 the next 10%, ... (thresholds that
 * decay with h and follow the embeddings' own spread; the ReLU embeddings
 * of a GNN are non-negative, so fixed cosine thresholds would put nearly
 * every pair in hop 1). */
FGL__PRIVATE int fgl__pg_rings_cosine(fgl__pg_rings *r, const float *z, const int *label, int n, int d, int H,
                                      double band, fgl_tape *t) {
    int i, j, h, rc;
    double *nrm = (double *)fgl__pg_alloc(t, sizeof(double) * (size_t)FGL__MAX(n, 1));
    signed char *ring = (signed char *)fgl__pg_alloc(t, (size_t)FGL__MAX(n, 1) * (size_t)FGL__MAX(n, 1));
    int *cnt = (int *)fgl__pg_alloc(t, sizeof(int) * (size_t)FGL__MAX(n, 1));
    float *cs = (float *)fgl__pg_alloc(t, sizeof(float) * (size_t)FGL__MAX(n, 1) * (size_t)FGL__MAX(n, 1));
    float *sorted = (float *)fgl__pg_alloc(t, sizeof(float) * (size_t)FGL__MAX(n, 1) * (size_t)FGL__MAX(n, 1));
    double theta[FGL_MAX_LAYERS + 1];
    size_t m = 0;
    memset(r, 0, sizeof *r);
    r->H = H;
    r->n = n;
    r->on_tape = t != NULL;
    r->centre = (int *)fgl__pg_alloc(t, sizeof(int) * (size_t)FGL__MAX(n, 1));
    r->label = (int *)fgl__pg_alloc(t, sizeof(int) * (size_t)FGL__MAX(n, 1));
    if (!nrm || !ring || !cnt || !cs || !sorted || !r->centre || !r->label) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    for (i = 0; i < n; i++) {
        r->centre[i] = i;
        r->label[i] = label[i];
        nrm[i] = FGL__MAX(fgl_norm2((size_t)d, z + (size_t)i * d), 1e-12);
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            cs[(size_t)i * n + j] =
                (float)(fgl_dot((size_t)d, z + (size_t)i * d, z + (size_t)j * d) / (nrm[i] * nrm[j]));
            if (i != j) sorted[m++] = cs[(size_t)i * n + j];
        }
    for (h = 1; h <= H; h++) { /* the band h quantile from the top; no pair at all: +inf */
        double q = ceil(band * h * (double)m) - 1;
        theta[h] = m == 0 || q < 0 ? HUGE_VAL : fgl__pg_kth_largest(sorted, m, (size_t)FGL__MIN(q, (double)m - 1));
    }
    /* ring[i n + j]: the hop of j around i (0: itself, -1: none within H) */
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            signed char hh = -1;
            if (i == j) {
                ring[(size_t)i * n + j] = 0;
                continue;
            }
            for (h = 1; h <= H; h++)
                if (cs[(size_t)i * n + j] >= theta[h]) {
                    hh = (signed char)h;
                    break;
                }
            ring[(size_t)i * n + j] = hh;
        }
    for (h = 0; h <= H; h++) {
        for (i = 0; i < n; i++) {
            cnt[i] = 0;
            for (j = 0; j < n; j++) cnt[i] += ring[(size_t)i * n + j] == h;
        }
        if ((rc = fgl__pg_csr(t, &r->hop[h], n, n, cnt))) goto done;
        for (i = 0; i < n; i++) {
            int w = r->hop[h].indptr[i];
            for (j = 0; j < n; j++)
                if (ring[(size_t)i * n + j] == h) {
                    r->hop[h].indices[w] = j;
                    r->hop[h].values[w++] = 1.0f / (float)cnt[i];
                }
        }
    }
    rc = FGL_OK;
done:
    if (!t) {
        FGL_FREE(nrm);
        FGL_FREE(ring);
        FGL_FREE(cnt);
        FGL_FREE(cs);
        FGL_FREE(sorted);
        if (rc) fgl__pg_rings_free(r);
    }
    return rc;
}

/* sum[c (H+1) + h] += mean_{N^h(centre i)} z and cnt[..]++ for every centre
 * with a non-empty ring (z: one d-wide row per column of the rings). */
static void fgl__pg_accumulate(const fgl__pg_rings *r, const float *z, int d, int C, double *sum, double *cnt) {
    int h, i, q, k, H1 = r->H + 1;
    for (h = 0; h <= r->H; h++)
        for (i = 0; i < r->n; i++) {
            const fgl_csr *a = &r->hop[h];
            size_t row = (size_t)r->label[i] * H1 + h;
            if (a->indptr[i] == a->indptr[i + 1] || r->label[i] < 0 || r->label[i] >= C) continue;
            for (q = a->indptr[i]; q < a->indptr[i + 1]; q++)
                for (k = 0; k < d; k++) sum[row * d + k] += (double)a->values[q] * z[(size_t)a->indices[q] * d + k];
            cnt[row] += 1;
        }
}

static int fgl__pg_H(const fgl_client *c) { return (int)fgl_client_dim(c, FGL_DIM_HOPS) - 1; }

static int fgl__fedpg_prepare(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    int n = (int)fgl_get(set, "normalize"), rc = fgl__proto_spec(set, spec, err);
    if (rc) return rc;
    if (n < 0 || n > 2) return fgl_error_set(err, FGL_ERR_ARG, "fedpg: normalize is 0, 1 or 2, not %d", n);
    if (n == 2 || (n == 1 && spec->task == FGL_TASK_NODE)) spec->norm_rep = 1;
    return FGL_OK;
}

static int fgl__fedpg_client_init(fgl_client *c) {
    int H = fgl__pg_H(c), n = 0, i, rc;
    fgl_node_data *nd = c->data.node;
    fgl__pg_rings *r;
    int *centre, *label;
    if (H < 0 || H > FGL_MAX_LAYERS) return fgl_client_fail(c, FGL_ERR_ARG, "fedpg: %d hops", H + 1);
    int with_val = (int)fgl_get(c->set, "val_centres");
    if (fgl_get(c->set, "mu") < 0 || !(fgl_get(c->set, "pseudo") >= 0 && fgl_get(c->set, "pseudo") <= 1))
        return fgl_client_fail(c, FGL_ERR_ARG, "fedpg: mu must be >= 0 and pseudo in [0, 1]");
    if (with_val != 0 && with_val != 1)
        return fgl_client_fail(c, FGL_ERR_ARG, "fedpg: val_centres is 0 or 1, not %d", with_val);
    if (fgl_get(c->set, "loss_hops") < -2)
        return fgl_client_fail(c, FGL_ERR_ARG, "fedpg: loss_hops is a hop >= 0, -1 (all) or -2 (the task's default), "
                               "not %g", fgl_get(c->set, "loss_hops"));
    if (!nd) return FGL_OK; /* graph tasks: rings from the embeddings, every time */
    /* node tasks: the rings around the training nodes (with val_centres=1 the validation nodes too: the
     * authors' label leakage), once (rebuilt from the data on resume) */
    centre = (int *)fgl_scratch(&c->store, sizeof(int) * (size_t)FGL__MAX(nd->n_nodes, 1));
    label = (int *)fgl_scratch(&c->store, sizeof(int) * (size_t)FGL__MAX(nd->n_nodes, 1));
    r = (fgl__pg_rings *)fgl_new_scratch(&c->store, "rings", sizeof(fgl__pg_rings), fgl__pg_rings_free);
    if (!centre || !label || !r) return FGL_ERR_NOMEM;
    for (i = 0; i < nd->n_nodes; i++)
        if ((nd->split[i] == FGL_SPLIT_TRAIN || (with_val && nd->split[i] == FGL_SPLIT_VAL)) && nd->y[i] >= 0) {
            centre[n] = i;
            label[n++] = nd->y[i];
        }
    if ((rc = fgl__pg_rings_graph(r, &nd->adj, centre, label, n, H, NULL)) || (rc = fgl__pg_transposes(r)))
        return fgl_client_fail(c, rc, "fedpg: cannot build the hop neighbourhoods (%s)", fgl_result_name(rc));
    return FGL_OK;
}

/* mu sum_{h, c} mean_{v in S_c^h} ||mean_{N^h(v)} z - P~^{c,h}||^2 / d on the tape. */
FGL__PRIVATE fgl_node *fgl__fedpg_loss(fgl_client *c, const fgl_step *st) {
    float mu = (float)fgl_get(c->set, "mu");
    const float *P = fgl_down(c, "protos"), *mask = fgl_down(c, "mask");
    fgl_node *z = st->fwd->rep, *total = NULL;
    fgl_tape *t = st->t;
    int C = (int)fgl_client_dim(c, FGL_DIM_CLASSES), H = fgl__pg_H(c), H1 = H + 1, h, i, d;
    int lh = (int)fgl_get(c->set, "loss_hops"), top;
    fgl__pg_rings *r;
    int *nch;
    if (!z || mu == 0 || !P || !mask) return NULL;
    if (lh == -2) lh = c->task == FGL_TASK_NODE ? 0 : -1; /* the default: hop 0 on node tasks (measured) */
    top = lh >= 0 ? FGL__MIN(lh, H) : H;
    /* Graph tasks without normalize=2: the classifier reads the raw pooled
     * embedding, but prototypes live on the unit sphere, as the generator's
     * (and the reconstruction's z = L2-normalise(...)); pulling raw sum-pooled
     * embeddings to unit-norm targets shrank them to nothing (chance accuracy). */
    if (c->task != FGL_TASK_NODE && !c->model.spec.norm_rep) z = fgl_op_l2_normalize_rows(t, z, 0);
    if (!z) return NULL;
    d = z->cols;
    if (c->task == FGL_TASK_NODE) {
        r = (fgl__pg_rings *)fgl_get_scratch(&c->store, "rings");
    } else { /* the rings among this batch's graphs, from the embeddings as they are now, on the tape: the
              * sparse products below keep pointers to its CSRs until the backward pass, after this returns */
        int rc;
        r = (fgl__pg_rings *)fgl_tape_alloc(t, sizeof *r);
        rc = r ? fgl__pg_rings_cosine(r, z->val, st->labels, z->rows, d, H, fgl_get(c->set, "graph_band"), t)
               : FGL_ERR_NOMEM;
        if (rc) {
            fgl_client_fail(c, rc, "fedpg: out of memory");
            return NULL;
        }
    }
    nch = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)C * (size_t)H1);
    if (!nch) return NULL;
    for (h = 0; h <= H; h++)
        for (i = 0; i < r->n; i++) {
            int y = r->label[i];
            if (y >= 0 && y < C && mask[y * H1 + h] > 0 && r->hop[h].indptr[i] < r->hop[h].indptr[i + 1])
                nch[y * H1 + h]++;
        }
    for (h = 0; h <= top; h++) {
        float *T = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)FGL__MAX(r->n, 1) * (size_t)d);
        float *w = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)FGL__MAX(r->n, 1));
        fgl_node *R, *term;
        int any = 0;
        if (!T || !w) return NULL;
        for (i = 0; i < r->n; i++) {
            int y = r->label[i];
            if (y < 0 || y >= C || !(mask[y * H1 + h] > 0) || r->hop[h].indptr[i] == r->hop[h].indptr[i + 1]) continue;
            memcpy(T + (size_t)i * d, P + ((size_t)y * H1 + h) * d, sizeof(float) * (size_t)d);
            w[i] = 1.0f / ((float)nch[y * H1 + h] * (float)d);
            any = 1;
        }
        if (!any) continue;
        R = fgl_op_spmm(t, &r->hop[h], r->on_tape ? NULL : &r->hop_t[h], z);
        term = fgl_op_sum(t, fgl_op_mul(t, fgl_op_square(t, fgl_op_sub(t, R, fgl_op_const(t, T, r->n, d))),
                                        fgl_op_const(t, w, r->n, 1)));
        total = total ? fgl_op_add(t, total, term) : term;
    }
    return total ? fgl_op_scale(t, total, mu) : NULL;
}

/* Upload: the prototypes of every class and hop from the embeddings in
 * evaluation mode after local training, and their centre counts. */
static int fgl__fedpg_upload(fgl_client *c) {
    int C = (int)fgl_client_dim(c, FGL_DIM_CLASSES), H = fgl__pg_H(c), H1 = H + 1,
        d = (int)fgl_client_dim(c, FGL_DIM_REP);
    float *p = fgl_up(c, "protos"), *np = fgl_up(c, "counts");
    double *sum = (double *)fgl_scratch(&c->store, sizeof(double) * (size_t)C * H1 * (size_t)d);
    double *cnt = (double *)fgl_scratch(&c->store, sizeof(double) * (size_t)C * H1);
    float pseudo = (float)fgl_get(c->set, "pseudo");
    fgl_view_iter it;
    fgl_view_batch b;
    fgl_error err;
    size_t q;
    int rc, i, k;
    if (!sum || !cnt) return FGL_ERR_NOMEM;
    if (c->task == FGL_TASK_NODE) {
        fgl_forward fw;
        fgl_view_begin(&c->data, FGL_SPLIT_TRAIN, 0, &it);
        rc = fgl_view_next(&it, &b, &err);
        fgl_tape_reset(&c->tape);
        if (rc <= 0 || fgl_model_forward(&c->model, &c->tape, b.g, 0, NULL, &fw) || !fw.rep) {
            fgl_view_end(&it);
            return fgl_client_fail(c, c->tape.err ? c->tape.err : FGL_ERR_ARG, "fedpg: prototypes: %s", c->tape.msg);
        }
        fgl__pg_accumulate((const fgl__pg_rings *)fgl_get_scratch(&c->store, "rings"), fw.rep->val, d, C, sum, cnt);
        if (pseudo > 0) { /* confidently predicted nodes outside the training set, under their predicted class */
            const fgl_node_data *nd = c->data.node;
            int n = 0, *centre = (int *)fgl_scratch(&c->store, sizeof(int) * (size_t)FGL__MAX(nd->n_nodes, 1));
            int *label = (int *)fgl_scratch(&c->store, sizeof(int) * (size_t)FGL__MAX(nd->n_nodes, 1));
            fgl__pg_rings extra;
            int prc = centre && label ? FGL_OK : FGL_ERR_NOMEM;
            for (i = 0; !prc && i < nd->n_nodes; i++) {
                const float *row = fw.logits->val + (size_t)i * fw.logits->cols;
                double mx = row[0], z = 0;
                int best = 0;
                if (nd->split[i] == FGL_SPLIT_TRAIN) continue;
                for (k = 1; k < fw.logits->cols; k++)
                    if (row[k] > mx) mx = row[k], best = k;
                for (k = 0; k < fw.logits->cols; k++) z += exp(row[k] - mx);
                if (1.0 / z >= pseudo) { /* softmax of the top class */
                    centre[n] = i;
                    label[n++] = best;
                }
            }
            if (!prc && !(prc = fgl__pg_rings_graph(&extra, &nd->adj, centre, label, n, H, &c->store.scratch)))
                fgl__pg_accumulate(&extra, fw.rep->val, d, C, sum, cnt);
            if (prc) {
                fgl_view_end(&it);
                return fgl_client_fail(c, prc, "fedpg: pseudo-labelled prototypes: %s", fgl_result_name(prc));
            }
        }
        fgl_view_end(&it);
    } else { /* the embeddings of every training graph, then rings among them */
        float *Z = (float *)fgl_scratch(&c->store, sizeof(float) * (size_t)FGL__MAX(c->n_train, 1) * (size_t)d);
        int *y = (int *)fgl_scratch(&c->store, sizeof(int) * (size_t)FGL__MAX(c->n_train, 1)), n = 0;
        fgl__pg_rings r;
        if (!Z || !y) return FGL_ERR_NOMEM;
        fgl_view_begin(&c->data, FGL_SPLIT_TRAIN, c->fed->eval_batch > 0 ? c->fed->eval_batch : 512, &it);
        while ((rc = fgl_view_next(&it, &b, &err)) > 0) {
            fgl_forward fw;
            fgl_tape_reset(&c->tape);
            if (fgl_model_forward(&c->model, &c->tape, b.g, 0, NULL, &fw) || !fw.rep) {
                rc = fgl_client_fail(c, c->tape.err ? c->tape.err : FGL_ERR_ARG, "fedpg: prototypes: %s", c->tape.msg);
                break;
            }
            for (i = 0; i < fw.rep->rows && n < c->n_train; i++) { /* on the unit sphere, as in the loss */
                const float *zi = fw.rep->val + (size_t)i * d;
                float nz = c->model.spec.norm_rep ? 1.0f : (float)FGL__MAX(fgl_norm2((size_t)d, zi), 1e-12);
                int k;
                for (k = 0; k < d; k++) Z[(size_t)n * d + k] = zi[k] / nz;
                y[n++] = b.labels[i];
            }
        }
        if (rc < 0 && !c->error) fgl_client_fail(c, rc, "%s", err.msg);
        fgl_view_end(&it);
        if (rc < 0) return rc;
        if ((rc = fgl__pg_rings_cosine(&r, Z, y, n, d, H, fgl_get(c->set, "graph_band"), &c->store.scratch)))
            return rc;
        fgl__pg_accumulate(&r, Z, d, C, sum, cnt);
    }
    for (q = 0; q < (size_t)C * H1; q++) {
        np[q] = (float)cnt[q];
        for (k = 0; k < d; k++) p[q * d + k] = cnt[q] > 0 ? (float)(sum[q * d + k] / cnt[q]) : 0.0f;
    }
    return FGL_OK;
}

/* Server state: the generator (fgl__tgp_make), the bank of each client's
 * latest prototypes and counts, the personalised downloads. */
static int fgl__fedpg_server_init(fgl_server *s) {
    int C = (int)fgl_server_dim(s, FGL_DIM_CLASSES), H1 = (int)fgl_server_dim(s, FGL_DIM_HOPS);
    int d = (int)fgl_server_dim(s, FGL_DIM_REP), K = s->n_clients, h = (int)fgl_get(s->set, "server_hidden");
    size_t rows = (size_t)C * (size_t)H1;
    if (fgl_get(s->set, "server_steps") < 0 || !(fgl_get(s->set, "server_lr") >= 0) || !(fgl_get(s->set, "tau") >= 0) ||
        !(fgl_get(s->set, "server_wd") >= 0) || !(fgl_get(s->set, "alpha") >= 0 && fgl_get(s->set, "alpha") <= 1) ||
        fgl_get(s->set, "topk") < 1 || !(fgl_get(s->set, "rf_ratio") >= 0))
        return fgl_server_fail(s, FGL_ERR_ARG, "fedpg: server_steps, server_lr, server_wd, tau and rf_ratio must be "
                               "non-negative, alpha in [0, 1], topk >= 1");
    fgl_new_floats(&s->store, "bank", (size_t)K * rows * (size_t)d);
    fgl_new_floats(&s->store, "bank_n", (size_t)K * rows);
    fgl_new_floats(&s->store, "global", rows * (size_t)d);
    fgl_new_floats(&s->store, "pers", (size_t)K * rows * (size_t)d);
    fgl_new_floats(&s->store, "pers_mask", (size_t)K * rows);
    fgl_new_ints(&s->store, "ready", 1);
    fgl_new_floats(&s->store, "last", (size_t)H1 + 1); /* margins per hop, last server loss */
    if (s->store.err) return s->store.err;
    return fgl__tgp_make(s, (int)rows, d, h > 0 ? h : d, (float)fgl_get(s->set, "server_lr"),
                         (float)fgl_get(s->set, "server_wd"), 0x4645445047ull); /* "FEDPG" */
}

static int fgl__fedpg_aggregate(fgl_server *s) {
    int C = (int)fgl_server_dim(s, FGL_DIM_CLASSES), H1 = (int)fgl_server_dim(s, FGL_DIM_HOPS);
    int d = (int)fgl_server_dim(s, FGL_DIM_REP), K = s->n_clients, rows = C * H1, i, j, h, cl, k, rc;
    int steps = (int)fgl_get(s->set, "server_steps"), topk = (int)fgl_get(s->set, "topk");
    int fusion = (int)fgl_get(s->set, "fusion"), authors_scale = (int)fgl_get(s->set, "target_scale") == 1;
    double alpha = fgl_get(s->set, "alpha"), thr = fgl_get(s->set, "threshold"), rf = fgl_get(s->set, "rf_ratio");
    float *bank = fgl_floats(&s->store, "bank"), *bank_n = fgl_floats(&s->store, "bank_n");
    float *global = fgl_floats(&s->store, "global"), *pers = fgl_floats(&s->store, "pers");
    float *pmask = fgl_floats(&s->store, "pers_mask"), *last = fgl_floats(&s->store, "last");
    fgl_params *ps = fgl_get_params(&s->store, "tgp");
    fgl_tape *t = fgl_get_tape(&s->store, "tgp_tape");
    float *U = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * rows * (size_t)d);
    int *y = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K * rows),
        *idx = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)C);
    int *pool = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K * rows);
    double *sim = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K),
           *acc = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)d);
    int *order = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K);
    double loss = 0, delta;
    fgl_node *P;
    if (!U || !y || !idx || !pool || !sim || !acc || !order) return FGL_ERR_NOMEM;
    if (s->n_accepted == 0) return FGL_OK; /* nothing new: keep everything */
    for (i = 0; i < K; i++) { /* the bank: each client's latest accepted upload */
        const float *p = fgl_upload(s, i, "protos"), *n = fgl_upload(s, i, "counts");
        if (!p) continue;
        memcpy(bank + (size_t)i * rows * d, p, sizeof(float) * (size_t)rows * d);
        memcpy(bank_n + (size_t)i * rows, n, sizeof(float) * (size_t)rows);
    }
    /* the generator, hop after hop, on this round's uploads */
    for (h = 0; h < H1; h++) {
        int m = 0, n_pool = 0, extra;
        for (cl = 0; cl < C; cl++) idx[cl] = cl * H1 + h;
        for (i = 0; i < K; i++) {
            const float *p = fgl_upload(s, i, "protos"), *n = fgl_upload(s, i, "counts");
            if (!p) continue;
            for (cl = 0; cl < C; cl++) {
                if (n[cl * H1 + h] > 0) {
                    memcpy(U + (size_t)m * d, p + ((size_t)cl * H1 + h) * d, sizeof(float) * (size_t)d);
                    y[m++] = cl;
                }
                for (k = 0; k < H1; k++) /* other hops: the RF-context pool, as (client, row) */
                    if (k != h && n[cl * H1 + k] > 0) pool[n_pool++] = i * rows + cl * H1 + k;
            }
        }
        if (m == 0) continue;
        if ((rc = fgl__tgp_margin(&s->store, U, y, m, C, d, fgl_get(s->set, "margin_rule") != 0,
                                  (float)fgl_get(s->set, "tau"), &delta)))
            return rc;
        extra = (int)floor(rf * m + 0.5);
        if (extra > n_pool) extra = n_pool;
        if (extra > 0) { /* RF context: same-class prototypes of other hops join the queries */
            fgl_rng r;
            int *pick = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)extra);
            if (!pick) return FGL_ERR_NOMEM;
            fgl_rng_init(&r, s->fed->seed, 0x524643ull * 4096u + (uint64_t)s->round * 64u + (uint64_t)h); /* "RFC" */
            if (fgl_rng_sample(&r, n_pool, extra, pick)) return FGL_ERR_NOMEM;
            for (k = 0; k < extra; k++) {
                int who = pool[pick[k]] / rows, row = pool[pick[k]] % rows;
                memcpy(U + (size_t)m * d, fgl_upload(s, who, "protos") + (size_t)row * d, sizeof(float) * (size_t)d);
                y[m++] = row / H1;
            }
        }
        if ((rc = fgl__tgp_train(s, U, y, m, C, d, idx, delta, steps, 1, &loss))) return rc;
        last[h] = (float)delta;
    }
    last[H1] = (float)loss;
    P = fgl__tgp_forward(t, ps, NULL, rows, 1);
    if (!P || t->err) return fgl_server_fail(s, t->err ? t->err : FGL_ERR_ARG, "fedpg: server prototypes: %s", t->msg);
    memcpy(global, P->val, sizeof(float) * (size_t)rows * d);
    fgl_tape_reset(t);
    /* personalised fusion, for every client in the bank and every row it holds */
    memset(pmask, 0, sizeof(float) * (size_t)K * rows);
    for (i = 0; i < K; i++)
        for (k = 0; k < rows; k++) {
            const float *pi = bank + ((size_t)i * rows + k) * d;
            double ni = fgl_norm2((size_t)d, pi), wsum = 0;
            int nf = 0, q;
            float *out = pers + ((size_t)i * rows + k) * d;
            if (!(bank_n[(size_t)i * rows + k] > 0)) continue;
            for (j = 0; j < K; j++) { /* candidates: the clients holding this row */
                const float *pj = bank + ((size_t)j * rows + k) * d;
                double nj;
                if (!(bank_n[(size_t)j * rows + k] > 0)) continue;
                nj = fgl_norm2((size_t)d, pj);
                sim[j] = j == i             ? 2.0
                         : ni > 0 && nj > 0 ? fgl_dot((size_t)d, pi, pj) / (ni * nj)
                                            : -1.0; /* self first */
                if (fusion == 1 && j != i && sim[j] < thr) continue;
                order[nf++] = j;
            }
            if (fusion != 1) { /* the topk most similar (ties: lower client id) */
                for (q = 1; q < nf; q++) {
                    int x = order[q], p2 = q;
                    while (p2 > 0 && sim[order[p2 - 1]] < sim[x]) {
                        order[p2] = order[p2 - 1];
                        p2--;
                    }
                    order[p2] = x;
                }
                if (nf > topk) nf = topk;
            }
            for (q = 0; q < nf; q++) wsum += bank_n[(size_t)order[q] * rows + k];
            memset(acc, 0, sizeof(double) * (size_t)d);
            for (q = 0; q < nf; q++) {
                const float *pj = bank + ((size_t)order[q] * rows + k) * d;
                double w = bank_n[(size_t)order[q] * rows + k] / wsum;
                int e;
                for (e = 0; e < d; e++) acc[e] += w * pj[e];
            }
            for (q = 0; q < d; q++) {
                double v = alpha * global[(size_t)k * d + q] + (1 - alpha) * acc[q];
                out[q] = (float)(authors_scale ? v / (1 + nf) : v); /* the authors' code: over 1 + |F| */
            }
            pmask[(size_t)i * rows + k] = 1.0f;
        }
    fgl_ints(&s->store, "ready")[0] = 1;
    return FGL_OK;
}

static int fgl__fedpg_download(fgl_server *s, int client, fgl_msg *down) {
    size_t rows = fgl_server_dim(s, FGL_DIM_CLASS_HOPS), d = fgl_server_dim(s, FGL_DIM_REP), k;
    const float *pm = fgl_floats(&s->store, "pers_mask") + (size_t)client * rows;
    float *p, *m;
    int any = 0;
    (void)down;
    for (k = 0; k < rows; k++) any |= pm[k] > 0;
    if (!fgl_ints(&s->store, "ready")[0] || !any) return FGL_OK; /* nothing for this client yet */
    if (!(p = fgl_download_part(s, client, "protos")) || !(m = fgl_download_part(s, client, "mask")))
        return FGL_ERR_NOMEM;
    memcpy(p, fgl_floats(&s->store, "pers") + (size_t)client * rows * d, sizeof(float) * rows * d);
    memcpy(m, pm, sizeof(float) * rows);
    return FGL_OK;
}

static void fgl__fedpg_report(const fgl_observed *o, char *buf, size_t cap) {
    size_t n = 0;
    int h, H1;
    const float *last;
    if (!o->started || !cap) return;
    H1 = (int)fgl_observed_dim(o, FGL_DIM_HOPS);
    last = fgl_observed_floats(o, "last");
    n += (size_t)snprintf(buf, cap, "\"classes\": %d, \"hops\": %d, \"rep_dim\": %d, \"margin\": [",
                          (int)fgl_observed_dim(o, FGL_DIM_CLASSES), H1, (int)fgl_observed_dim(o, FGL_DIM_REP));
    for (h = 0; h < H1 && n < cap; h++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%.6g", h ? ", " : "", (double)last[h]);
    if (n < cap) snprintf(buf + n, cap - n, "], \"server_loss\": %.6g", (double)last[H1]);
}

static fgl_algo fgl__fedpg(void) {
    fgl_algo a =
        fgl_algo_new("fedpg", "Li et al.: per-class prototypes at hops 0..H, a trainable server generator with a "
                              "per-hop adaptive margin, top-k personalised fusion; no weights shared");
    fgl_algo_param_add(&a, "mu", FGL_PARAM_FLOAT, 5.0,
                       "weight of the prototype alignment loss (authors' code 5; the paper "
                       "searches [0, 1])");
    fgl_algo_param_add(&a, "alpha", FGL_PARAM_FLOAT, 0.5,
                       "fusion: P~ = alpha P_global + (1 - alpha) mix of similar clients "
                       "(1: no personalisation)");
    fgl_algo_param_add(&a, "topk", FGL_PARAM_INT, 2, "fusion set: the k clients most similar by cosine, self included");
    fgl_algo_param_add(&a, "fusion", FGL_PARAM_INT, 0,
                       "0: top-k fusion (authors' code); 1: every client with cosine >= "
                       "threshold (the paper's variant)");
    fgl_algo_param_add(&a, "threshold", FGL_PARAM_FLOAT, 0.5, "similarity threshold of fusion=1");
    fgl_algo_param_add(&a, "server_steps", FGL_PARAM_INT, 10, "generator Adam steps per hop per round");
    fgl_algo_param_add(&a, "server_lr", FGL_PARAM_FLOAT, 0.01, "generator learning rate");
    fgl_algo_param_add(&a, "server_wd", FGL_PARAM_FLOAT, 5e-4, "generator weight decay");
    fgl_algo_param_add(&a, "server_hidden", FGL_PARAM_INT, 0, "generator MLP hidden width (0: d)");
    fgl_algo_param_add(&a, "tau", FGL_PARAM_FLOAT, 100.0, "margin cap (0: no adaptive margin)");
    fgl_algo_param_add(&a, "margin_rule", FGL_PARAM_INT, 0,
                       "0: max over classes of the nearest-class gap (authors' code); 1: largest pairwise gap");
    fgl_algo_param_add(&a, "rf_ratio", FGL_PARAM_FLOAT, 0.0,
                       "RF context: extra queries from other hops, as a fraction of "
                       "a hop's queries (the paper's Delta s; not in the authors' code)");
    fgl_algo_param_add(&a, "loss_hops", FGL_PARAM_INT, -2,
                       "highest hop in the client's loss: 0 the centre only (what the authors' code trains, and "
                       "better on Cora and Computers, RESULTS.md FedPG), -1 all H as the paper writes, -2 (default) 0 "
                       "on node tasks and all on graph tasks (not measured there); the messages carry every hop");
    fgl_algo_param_add(&a, "normalize", FGL_PARAM_INT, 1,
                       "L2-normalise the embedding z the classifier reads: 1 node tasks "
                       "(authors' code), 2 graph tasks too, 0 never (graph tasks: prototypes and their loss always use "
                       "the normalised z)");
    fgl_algo_param_add(&a, "pseudo", FGL_PARAM_FLOAT, 0.0,
                       "node tasks: confidence above which unlabelled nodes join the "
                       "prototypes under their predicted class (0: off)");
    fgl_algo_param_add(&a, "val_centres", FGL_PARAM_INT, 0,
                       "node tasks: 1 lets the validation nodes' labels into the prototypes and the prototype loss, "
                       "as the authors' code does: label leakage, for reproduction only (0: training labels only)");
    fgl_algo_param_add(&a, "target_scale", FGL_PARAM_INT, 0,
                       "fgl: the personalised target as the fusion makes it; authors: divided by 1 + |F| (the "
                       "fusion set's size), as the authors' code does");
    fgl_algo_param_choices(&a, "target_scale", "fgl|authors");
    fgl_algo_param_add(&a, "graph_band", FGL_PARAM_FLOAT, 0.1, "graph tasks: hop h holds the pairs of training graphs "
                       "whose embedding cosine ranks in the h-th band of this fraction (0.1: top 10%, next 10%, ...)");
    fgl_algo_upload(&a, "protos", FGL_SEND_DATA, FGL_DIM_CLASS_HOPS, FGL_DIM_REP, 0);
    fgl_algo_upload(&a, "counts", FGL_SEND_DATA, FGL_DIM_CLASSES, FGL_DIM_HOPS, 0);
    fgl_algo_download(&a, "protos", FGL_SEND_DATA, FGL_DIM_CLASS_HOPS, FGL_DIM_REP, FGL_PART_OPTIONAL, NULL);
    fgl_algo_download(&a, "mask", FGL_SEND_DATA, FGL_DIM_CLASSES, FGL_DIM_HOPS, FGL_PART_OPTIONAL, NULL);
    a.prepare_spec = fgl__fedpg_prepare;
    a.client_init = fgl__fedpg_client_init;
    a.train.loss = fgl__fedpg_loss;
    a.upload = fgl__fedpg_upload;
    a.server_init = fgl__fedpg_server_init;
    a.aggregate = fgl__fedpg_aggregate;
    a.download = fgl__fedpg_download;
    a.report = fgl__fedpg_report;
    return a;
}

/* --- src/fed/algos/pfedgnn.h --- */
/* --- pFedGNN (Kataria, Malik, Shukla, Bhilwade, Kumar, LoG 2025) ----------------- */
/* A collaboration graph between clients inferred once, before training,
 * from distances to public anchors, then personalised weight mixing.
 * One shot: the server asks every client (download part "ask", 4 bytes)
 * for the squared distances from each of its n_i nodes' features to K_a
 * anchors (upload "dist", n_i x K_a floats, sent once; with blocks=1 also
 * its n_i x n_i node-node block "block", as the authors' code). Anchors:
 * K_a real nodes withheld from every client and held by the server
 * (fgl_run_set_public; fglrun --public-nodes), sent once to every client
 * (download "anchors", K_a x d floats), as the authors' code (default when
 * the server holds public nodes); or K_a random points N(0, anchor_scale^2
 * / d I) drawn from the run seed by server and clients alike (the paper's
 * "any public points"; no bytes). With K_a < d the features cannot be
 * recovered from the distances (the paper's Lemma 1); the report says
 * whether that holds.
 * Server (the numerics: src/graph/anchors.h and coarsen.h, fgl_graph.h):
 * the anchors' classical-MDS frame (rank r <= K_a - 1), each
 * client's nodes placed by landmark MDS (method=0: Nystrom, closed form) or
 * refined by anchored weighted SMACOF (method=1, the authors' code: weight 1
 * on the observed distances, anchors fixed, at most max_iter iterations,
 * stop when the stress falls by less than tol relatively); the completed
 * distances are those of the placed nodes. Affinity kernel (kernel=0: the
 * authors' row-max kernel and random-walk Laplacian; kernel=1: exp(-D^2 /
 * sigma^2) with the combinatorial Laplacian), L_C = P L_G P^T by per-client-
 * pair sums, never an N x N matrix (fgl_coarsen_clients: every pair up to
 * 50,000 nodes, 256 sampled nodes per client beyond, or pair_sample), and
 * w_ij proportional to -(L_C)_ij for j != i, rows normalised (the
 * client_matrix).
 * Rounds (all of them, from the aggregation that completes the graph on):
 *     theta_i <- alpha theta_i + (1 - alpha) sum_{j != i} w_ij theta_j
 * over the accepted uploads (w renormalised over them; a client without a
 * neighbour keeps its model), on fgl_server_mix (so the run's robust rule
 * acts row by row; DP and secure aggregation are refused), each client
 * receiving its own row. alpha = 0 is the authors' code (no self term) and
 * the default: in the authors' setting under one honest protocol (Cora,
 * 3 seeds, RESULTS.md) the mean validation accuracy falls with alpha (0 /
 * 0.7 / 0.9: 83.07 / 81.78 / 79.13); on METIS clients (FED-PUB's protocol)
 * a client needs its own model (alpha 0.9: 82.37 against 57.58 at 0). The
 * paper's best: 0.7 (Cora), 0.2 (CiteSeer). Until every client's distances are in, each
 * keeps its own model. Sent: round 0 up 4 (n + 1 + n_i K_a) (+ 4 n_i^2),
 * later rounds 4 (n + 1); down 4 n a round, plus 4 (1 + K_a d) once. Not
 * lam != 0: the pre-release's extra pFedGraph-style term (not in the paper)
 * lam <u_i, theta> / ||theta|| in the local loss, u_i = sum_j m_ij theta_j /
 * ||theta_j|| over the round's mixing row m_i (self term included), sent
 * once the graph is complete (down 4 n more bytes a round); lam = 0.01 in
 * the pre-release, 0 (off) by default. */

/* The anchors: the server's first K_a public nodes, or random points. */
static int fgl__pfn_public(const fgl_server *s) { return fgl_get(s->set, "anchor_nodes") != 0 && s->pub != NULL; }

static void fgl__pfn_random_anchors(uint64_t seed, float scale, int K, int d, float *a) {
    fgl_rng r;
    size_t k;
    fgl_rng_init(&r, seed, 0x414e43484f52ull); /* "ANCHOR" */
    for (k = 0; k < (size_t)K * (size_t)d; k++) a[k] = (float)(scale * fgl_rng_normal(&r) / sqrt((double)d));
}

typedef struct fgl__pfn_frame {
    fgl_anchor_frame f;
    float *anchors;   /* K_a x d */
    int d;            /* feature width */
} fgl__pfn_frame;

static void fgl__pfn_frame_free(void *p) {
    fgl__pfn_frame *fr = (fgl__pfn_frame *)p;
    fgl_anchor_frame_free(&fr->f);
    FGL_FREE(fr->anchors);
}

static int fgl__pfn_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    (void)set;
    if (spec->task != FGL_TASK_NODE) return fgl_error_set(err, FGL_ERR_ARG, "pfedgnn: node classification only");
    return FGL_OK;
}

static int fgl__pfn_server_init(fgl_server *s) {
    int K = s->n_clients, Ka = (int)fgl_get(s->set, "anchors"), i, j, d, N = 0, rc;
    int method = (int)fgl_get(s->set, "method"), kernel = (int)fgl_get(s->set, "kernel");
    fgl__pfn_frame *fr;
    double *d2;
    fgl_error err;
    float *theta;
    d = (int)(fgl_server_down_size(s, "anchors") / (size_t)Ka);
    if (Ka < 2) return fgl_server_fail(s, FGL_ERR_ARG, "pfedgnn: anchors = %d, at least 2", Ka);
    if (method != 0 && method != 1)
        return fgl_server_fail(s, FGL_ERR_ARG, "pfedgnn: method %d (0 landmark, 1 smacof)", method);
    if (kernel != FGL_KERNEL_MAXDIFF && kernel != FGL_KERNEL_GAUSS)
        return fgl_server_fail(s, FGL_ERR_ARG, "pfedgnn: kernel %d (0 the authors' row-max, 1 Gaussian)", kernel);
    if (fgl_get(s->set, "blocks") != 0 && method != 1)
        return fgl_server_fail(s, FGL_ERR_ARG,
                               "pfedgnn: blocks=1 feeds SMACOF (method=1); landmark MDS cannot use them");
    if (!(fgl_get(s->set, "alpha") >= 0 && fgl_get(s->set, "alpha") <= 1))
        return fgl_server_fail(s, FGL_ERR_ARG, "pfedgnn: alpha %g must be in [0, 1]", fgl_get(s->set, "alpha"));
    if (fgl__pfn_public(s) && s->pub->n_nodes < Ka)
        return fgl_server_fail(s, FGL_ERR_ARG, "pfedgnn: %d anchors, but the server holds %d public nodes", Ka,
                               s->pub->n_nodes);
    for (i = 0; i < K; i++) N += s->n_nodes[i];
    fr = (fgl__pfn_frame *)fgl_new_scratch(&s->store, "frame", sizeof(fgl__pfn_frame), fgl__pfn_frame_free);
    d2 = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)Ka * (size_t)Ka);
    if (!fr || !d2 || !(fr->anchors = (float *)FGL_MALLOC(sizeof(float) * (size_t)Ka * (size_t)d)))
        return FGL_ERR_NOMEM;
    fr->d = d;
    if (fgl__pfn_public(s)) { /* the first K_a public nodes, as their features are */
        const fgl_node_data *pd = s->pub;
        memset(fr->anchors, 0, sizeof(float) * (size_t)Ka * (size_t)d);
        for (i = 0; i < Ka; i++) {
            if (pd->x.data) {
                memcpy(fr->anchors + (size_t)i * d, pd->x.data + (size_t)i * d, sizeof(float) * (size_t)d);
            } else {
                int p;
                for (p = pd->x_sparse.indptr[i]; p < pd->x_sparse.indptr[i + 1]; p++)
                    fr->anchors[(size_t)i * d + pd->x_sparse.indices[p]] =
                        pd->x_sparse.values ? pd->x_sparse.values[p] : 1.0f;
            }
        }
    } else {
        fgl__pfn_random_anchors(s->fed->seed, (float)fgl_get(s->set, "anchor_scale"), Ka, d, fr->anchors);
    }
    for (i = 0; i < Ka; i++)
        for (j = 0; j < Ka; j++) {
            double acc = 0;
            int f;
            for (f = 0; f < d; f++) {
                double t = (double)fr->anchors[(size_t)i * d + f] - fr->anchors[(size_t)j * d + f];
                acc += t * t;
            }
            d2[(size_t)i * Ka + j] = acc;
        }
    if ((rc = fgl_anchor_frame_init(&fr->f, d2, Ka, (int)fgl_get(s->set, "dim"), &err)))
        return fgl_server_fail(s, rc, "pfedgnn: %s", err.msg);
    theta = fgl_new_floats(&s->store, "theta", (size_t)K * s->n_shared);
    fgl_new_floats(&s->store, "emb", (size_t)N * (size_t)fr->f.r); /* the completion: every node placed */
    fgl_new_ints(&s->store, "has_dist", (size_t)K);
    fgl_new_floats(&s->store, "stress", 2 * (size_t)K);   /* per client: SMACOF's start and end */
    fgl_new_ints(&s->store, "iters", (size_t)K);
    fgl_new_floats(&s->store, "lc", (size_t)K * K);       /* the coarsened Laplacian */
    fgl_new_floats(&s->store, "w", (size_t)K * K);        /* the collaboration weights */
    fgl_new_ints(&s->store, "ready", 1);
    if (fgl_get(s->set, "lam") != 0) fgl_new_floats(&s->store, "u", (size_t)K * s->n_shared);
    if (s->store.err) return s->store.err;
    for (i = 0; i < K; i++) fgl_server_pack(s, s->init, theta + (size_t)i * s->n_shared);
    return FGL_OK;
}

/* Until the server has a client's distances it asks for them (and sends the
 * public anchors). */
static int fgl__pfn_download(fgl_server *s, int client, fgl_msg *down) {
    float *ask, *a;
    (void)down;
    if (fgl_get(s->set, "lam") != 0 && fgl_ints(&s->store, "ready")[0]) { /* the lam term's direction */
        if (!(a = fgl_download_part(s, client, "u"))) return FGL_ERR_NOMEM;
        memcpy(a, fgl_floats(&s->store, "u") + (size_t)client * s->n_shared, sizeof(float) * s->n_shared);
    }
    if (fgl_ints(&s->store, "has_dist")[client]) return FGL_OK;
    if (!(ask = fgl_download_part(s, client, "ask"))) return FGL_ERR_NOMEM;
    ask[0] = 1.0f;
    if (fgl__pfn_public(s)) {
        const fgl__pfn_frame *fr = (const fgl__pfn_frame *)fgl_get_scratch(&s->store, "frame");
        if (!(a = fgl_download_part(s, client, "anchors"))) return FGL_ERR_NOMEM;
        memcpy(a, fr->anchors, sizeof(float) * (size_t)fr->f.K * (size_t)fr->d);
    }
    return FGL_OK;
}

/* Asked: the squared distances of every node to the anchors (and the block). */
static int fgl__pfn_upload(fgl_client *c) {
    int Ka = (int)fgl_get(c->set, "anchors"), d = c->model.spec.in_dim, rc;
    const float *anchors = fgl_down(c, "anchors");
    float *dist, *block;
    fgl_error err;
    if (!fgl_down(c, "ask")) {
        fgl_up_drop(c, "dist");
        fgl_up_drop(c, "block");
        return FGL_OK;
    }
    if (!anchors) { /* random anchors: drawn from the run seed, as the server did */
        float *a = (float *)fgl_scratch(&c->store, sizeof(float) * (size_t)Ka * (size_t)d);
        if (!a) return FGL_ERR_NOMEM;
        fgl__pfn_random_anchors(c->fed->seed, (float)fgl_get(c->set, "anchor_scale"), Ka, d, a);
        anchors = a;
    }
    if (!(dist = fgl_up(c, "dist"))) return c->error;
    if ((rc = fgl_anchor_sqdist(c->data.node, anchors, Ka, dist, &err)))
        return fgl_client_fail(c, rc, "pfedgnn: %s", err.msg);
    if (fgl_get(c->set, "blocks") == 0) {
        fgl_up_drop(c, "block");
    } else {
        if (!(block = fgl_up(c, "block"))) return c->error;
        if ((rc = fgl_node_sqdist_block(c->data.node, block, &err)))
            return fgl_client_fail(c, rc, "pfedgnn: %s", err.msg);
    }
    return FGL_OK;
}

/* Place newly arrived clients' nodes; once all are in, the graph. */
static int fgl__pfn_oneshot(fgl_server *s) {
    const fgl__pfn_frame *fr = (const fgl__pfn_frame *)fgl_get_scratch(&s->store, "frame");
    int K = s->n_clients, r = fr->f.r, i, off = 0, rc, all = 1;
    int *has = fgl_ints(&s->store, "has_dist"), *iters = fgl_ints(&s->store, "iters"), *ptr;
    float *emb = fgl_floats(&s->store, "emb"), *stress = fgl_floats(&s->store, "stress");
    fgl_error err;
    for (i = 0; i < K; i++) {
        const float *dist = fgl_upload(s, i, "dist");
        int n = s->n_nodes[i];
        if (!has[i] && dist) {
            float *z = emb + (size_t)off * r;
            fgl_anchor_embed(&fr->f, dist, n, z);
            if (fgl_get(s->set, "method") == 1) {
                double s0 = 0, s1 = 0;
                int it = fgl_anchor_smacof(&fr->f, dist, fgl_upload(s, i, "block"), n, (int)fgl_get(s->set, "max_iter"),
                                           fgl_get(s->set, "tol"), z, &s0, &s1, &err);
                if (it < 0) return fgl_server_fail(s, it, "pfedgnn: client %d: %s", i, err.msg);
                iters[i] = it;
                stress[2 * i] = (float)s0;
                stress[2 * i + 1] = (float)s1;
            }
            has[i] = 1;
        }
        all &= has[i];
        off += n;
    }
    if (!all || fgl_ints(&s->store, "ready")[0]) return FGL_OK;
    {
        fgl_coarsen_config cc = fgl_coarsen_default();
        double *lc = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * K);
        double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * K);
        int sample = (int)fgl_get(s->set, "pair_sample");
        ptr = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)(K + 1));
        if (!lc || !w || !ptr) return FGL_ERR_NOMEM;
        for (i = 0; i < K; i++) ptr[i + 1] = ptr[i] + s->n_nodes[i];
        cc.kernel = (int)fgl_get(s->set, "kernel");
        cc.sigma = fgl_get(s->set, "sigma");
        cc.sample = sample > 0 ? sample : sample < 0 || ptr[K] <= 50000 ? 0 : 256;
        cc.seed = s->fed->seed;
        if ((rc = fgl_coarsen_clients(emb, r, ptr, K, &cc, lc, &err)))
            return fgl_server_fail(s, rc, "pfedgnn: %s", err.msg);
        fgl_collab_weights(lc, K, w);
        for (i = 0; i < K * K; i++) {
            fgl_floats(&s->store, "lc")[i] = (float)lc[i];
            fgl_floats(&s->store, "w")[i] = (float)w[i];
        }
        fgl_ints(&s->store, "ready")[0] = 1;
    }
    return FGL_OK;
}

static int fgl__pfn_aggregate(fgl_server *s) {
    int K = s->n_clients, i, j, rc, ready;
    size_t n = s->n_shared;
    double alpha = fgl_get(s->set, "alpha");
    float *theta = fgl_floats(&s->store, "theta"), *w = fgl_floats(&s->store, "w");
    float *out = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * FGL__MAX(n, 1));
    double *mix = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * K);
    if (!out || !mix) return FGL_ERR_NOMEM;
    if ((rc = fgl__pfn_oneshot(s))) return rc;
    if (s->n_accepted == 0) return FGL_OK; /* nothing accepted: everyone keeps their model */
    ready = fgl_ints(&s->store, "ready")[0];
    for (i = 0; i < K; i++) {
        double sum = 0;
        for (j = 0; ready && j < K; j++)
            if (j != i && fgl_upload(s, j, "theta")) sum += w[(size_t)i * K + j];
        for (j = 0; j < K; j++) {
            double v = j == i ? (sum > 0 ? alpha : 1.0)
                              : sum > 0 && fgl_upload(s, j, "theta") ? (1 - alpha) * w[(size_t)i * K + j] / sum : 0.0;
            mix[(size_t)i * K + j] = v;
        }
    }
    if (ready && fgl_get(s->set, "lam") != 0) { /* u_i = sum_j m_ij theta_j / ||theta_j|| (before theta moves) */
        double *div = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K);
        if (!div) return FGL_ERR_NOMEM;
        for (j = 0; j < K; j++) {
            const float *v = fgl_upload(s, j, "theta");
            div[j] = fgl_norm2(n, v ? v : theta + (size_t)j * n);
        }
        if ((rc = fgl_server_mix_div(s, "theta", theta, mix, div, fgl_floats(&s->store, "u"), NULL, 0))) return rc;
    }
    /* a client without an accepted upload takes part with the model kept for it (theta's row) */
    if ((rc = fgl_server_mix(s, "theta", theta, mix, out, NULL))) return rc;
    memcpy(theta, out, sizeof(float) * (size_t)K * n);
    return FGL_OK;
}

static int fgl__pfn_matrix(const fgl_observed *o, float *out) { return fgl_observed_matrix(o, "w", out); }

static void fgl__pfn_report(const fgl_observed *o, char *buf, size_t cap) {
    const fgl__pfn_frame *fr;
    const float *stress;
    int K = o->n_clients, Ka, i, d, pub;
    double bytes = 0, s0 = 0, s1 = 0;
    if (!o->started || !cap) return;
    fr = (const fgl__pfn_frame *)fgl_observed_scratch(o, "frame");
    stress = fgl_observed_floats(o, "stress");
    pub = fgl_get(o->set, "anchor_nodes") != 0 && o->n_public > 0; /* fgl__pfn_public */
    Ka = fr->f.K;
    d = (int)fgl_observed_dim(o, FGL_DIM_INPUT);
    for (i = 0; i < K; i++) {
        bytes += 4.0 * o->n_nodes[i] * Ka +
                 (fgl_get(o->set, "blocks") != 0 ? 4.0 * o->n_nodes[i] * o->n_nodes[i] : 0);
        s0 += stress[2 * i];
        s1 += stress[2 * i + 1];
    }
    snprintf(
        buf, cap,
        "\"anchors\": %d, \"anchor_source\": \"%s\", \"features\": %d, \"private\": %s, \"embed_dim\": %d, "
        "\"oneshot_bytes_up\": %.0f, \"oneshot_bytes_down\": %.0f, \"smacof_stress_ratio\": %.6f, \"graph_ready\": %d",
        Ka, pub ? "public nodes" : "random", d, Ka < d ? "true" : "false", fr->f.r, bytes,
        4.0 * K * (1 + (pub ? (double)Ka * d : 0)), s0 > 0 ? s1 / s0 : 1.0, fgl_observed_ints(o, "ready")[0]);
}

static fgl_algo fgl__pfedgnn(void) {
    fgl_algo a = fgl_algo_new("pfedgnn", "Kataria et al. 2025: one-shot collaboration graph from anchor distances "
                              "(completion, coarsening L_C = P L_G P^T), then personalised mixing");
    fgl_algo_param_add(&a, "share", FGL_PARAM_GROUPS, (double)FGL_G_ALL, "parameter groups mixed");
    fgl_algo_param_add(&a, "alpha", FGL_PARAM_FLOAT, 0.0,
                       "self weight: theta_i <- alpha theta_i + (1-alpha) sum_j w_ij theta_j (0: authors' code, "
                       "best on validation in the authors' setting; METIS clients: 0.7-0.9, RESULTS.md)");
    fgl_algo_param_add(&a, "lam", FGL_PARAM_FLOAT, 0.0,
                       "local term lam <u_i, theta>/||theta||, u_i the mixing row over normalised models "
                       "(pre-release: 0.01; 0: off)");
    fgl_algo_param_add(&a, "anchors", FGL_PARAM_INT, 100,
                       "K_a anchors (authors' code: 100; private if K_a < features)");
    fgl_algo_param_add(
        &a, "anchor_nodes", FGL_PARAM_INT, 1,
        "1: the server's public nodes when it holds them (authors' code), 0: random points from the seed");
    fgl_algo_param_add(&a, "anchor_scale", FGL_PARAM_FLOAT, 1.0, "random anchors: N(0, scale^2 / d) per feature");
    fgl_algo_param_add(&a, "method", FGL_PARAM_INT, 1,
                       "completion: 0 landmark MDS (Nystrom), 1 anchored SMACOF (authors')");
    fgl_algo_param_add(&a, "blocks", FGL_PARAM_INT, 0,
                       "1: clients also send their n_i x n_i distances (authors' code; SMACOF)");
    fgl_algo_param_add(&a, "max_iter", FGL_PARAM_INT, 1000, "SMACOF iterations at most");
    fgl_algo_param_add(&a, "tol", FGL_PARAM_FLOAT, 1e-3,
                       "SMACOF stops when the stress falls by less than this (relative)");
    fgl_algo_param_add(&a, "dim", FGL_PARAM_INT, 0, "completion dimension at most (0: K_a - 1)");
    fgl_algo_param_add(&a, "kernel", FGL_PARAM_INT, 0, "affinity: 0 the authors' row-max kernel, 1 exp(-D^2/sigma^2)");
    fgl_algo_param_add(&a, "sigma", FGL_PARAM_FLOAT, 1.0, "kernel=1: sigma^2 = sigma x mean squared distance");
    fgl_algo_param_add(&a, "pair_sample", FGL_PARAM_INT, 0,
                       "pair sums over s nodes per client (0: all pairs up to 50000 nodes, else 256; -1: all)");
    fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, 0, 0, 0);
    fgl_algo_upload(&a, "n", FGL_SEND_WEIGHT, 0, 0, 0);
    fgl_algo_upload(&a, "dist", FGL_SEND_DATA, FGL_DIM_NODES, fgl_algo_param_dim(&a, "anchors"), FGL_PART_OPTIONAL);
    fgl_algo_upload(&a, "block", FGL_SEND_DATA, FGL_DIM_NODES, FGL_DIM_NODES, FGL_PART_OPTIONAL);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, FGL_PART_ROW, "theta");
    fgl_algo_download(&a, "ask", FGL_SEND_DATA, 1, 1, FGL_PART_OPTIONAL, NULL);
    fgl_algo_download(&a, "u", FGL_SEND_DATA, FGL_DIM_SHARED, 1, FGL_PART_OPTIONAL, NULL);
    fgl_algo_download(&a, "anchors", FGL_SEND_DATA, fgl_algo_param_dim(&a, "anchors"), FGL_DIM_INPUT, FGL_PART_OPTIONAL,
                      NULL);
    a.prepare_spec = fgl__pfn_spec;
    a.upload = fgl__pfn_upload;
    a.server_init = fgl__pfn_server_init;
    a.aggregate = fgl__pfn_aggregate;
    a.mixes = 1;
    a.download = fgl__pfn_download;
    a.train.grad = fgl__pfg_grad; /* pFedGraph's: lam <u, theta>/||theta|| when u is received */
    a.report = fgl__pfn_report;
    a.client_matrix = fgl__pfn_matrix;
    return a;
}

/* --- src/fed/algos/fedopt.h --- */
/* --- Server optimizers: FedAvgM, FedAdagrad, FedAdam, FedYogi --------------------------- */
/* Clients train and upload exactly as in FedAvg; the server treats the
 * change of the mean as a gradient-like step and runs an optimizer over it
 * (Reddi et al. 2021, "Adaptive Federated Optimization", Algorithm 2; FedAvgM
 * is Hsu et al. 2019's server momentum). With x the global shared vector and
 * mean the sample-weighted mean of the accepted uploads (the same mean FedAvg
 * takes, robust rules, DP and secure aggregation included):
 *     d = mean - x                                  (the pseudo-gradient, negated)
 *     FedAvgM:    m = beta1 m + d;                   x += eta m
 *     the others: m = beta1 m + (1 - beta1) d
 *                 FedAdagrad: v = v + d^2
 *                 FedAdam:    v = beta2 v + (1 - beta2) d^2
 *                 FedYogi:    v = v - (1 - beta2) d^2 sign(v - d^2)
 *                 x += eta m / (sqrt(v) + tau)
 * per coordinate, with m = 0 and v = tau^2 at the start (the paper's v_{-1} >=
 * tau^2) and no bias correction (the paper has none). FedAvgM with beta1 = 0
 * and eta = 1 is FedAvg, bit for bit (tested). beta1 = 0.9, beta2 = 0.99 and
 * tau = 1e-3 are the paper's fixed values; the paper tunes the server rate
 * eta per task. fgl's defaults come from a sweep on Cora over 10 METIS
 * clients (RESULTS.md, "Server optimizers"; 3 seeds, fgl's clients train
 * with Adam): 0.1 for FedAvgM (with beta1 = 0.9 its steady step is
 * eta / (1 - beta1) = 1 times the mean update, FedAvg's; eta = 1 diverged
 * to the majority class), 0.1 for FedAdagrad and 0.001 for FedAdam and
 * FedYogi (0.01 and above diverged). None of them beat FedAvg there. On
 * CHEM with batch norm (RESULTS.md, FedBN section) they end 0.3 to 2.6
 * points above FedAvg at any of the rates swept, far under FedBN. A round
 * with no accepted upload leaves the model and the moments as they were.
 * m and v live in the
 * server's store, so a checkpoint resumes them bit for bit.
 * Sent: as FedAvg, up 4 (n + 1), down 4 n bytes. */

static int fgl__opt_server_init(fgl_server *s) {
    float *g = fgl_new_floats(&s->store, "global", s->n_shared);
    float *m = fgl_new_floats(&s->store, "m", s->n_shared);
    float *mean = fgl_new_floats(&s->store, "mean", s->n_shared);
    size_t j;
    if (!g || !m || !mean) return FGL_ERR_NOMEM;
    fgl_server_pack(s, s->init, g); /* the common initial model */
    if (s->algo->variant != FGL__OPT_AVGM) {
        float *v = fgl_new_floats(&s->store, "v", s->n_shared);
        float tau = (float)fgl_get(s->set, "tau");
        if (!v) return FGL_ERR_NOMEM;
        for (j = 0; j < s->n_shared; j++) v[j] = tau * tau;
    }
    return FGL_OK;
}

static int fgl__opt_aggregate(fgl_server *s) {
    float *x = fgl_floats(&s->store, "global"), *m = fgl_floats(&s->store, "m"), *mean = fgl_floats(&s->store, "mean");
    float *v = s->algo->variant == FGL__OPT_AVGM ? NULL : fgl_floats(&s->store, "v");
    double eta = fgl_get(s->set, "eta"), b1 = fgl_get(s->set, "beta1");
    double b2 = s->algo->variant == FGL__OPT_AVGM ? 0 : fgl_get(s->set, "beta2");
    double tau = s->algo->variant == FGL__OPT_AVGM ? 0 : fgl_get(s->set, "tau");
    size_t j, n = s->n_shared;
    int rc;
    memcpy(mean, x, sizeof(float) * n); /* DP with no participant adds its noise to the model this holds */
    rc = fgl_server_mean(s, "theta", mean);
    if (rc) return rc; /* (FGL_ERR_EMPTY: nothing accepted, the model and the moments stay) */
    for (j = 0; j < n; j++) {
        double d = (double)mean[j] - x[j], d2 = d * d, mj, vj;
        if (s->algo->variant == FGL__OPT_AVGM) {
            mj = b1 * m[j] + d;
            m[j] = (float)mj;
            x[j] = (float)(x[j] + eta * mj);
            continue;
        }
        mj = b1 * m[j] + (1 - b1) * d;
        vj = v[j];
        switch (s->algo->variant) {
        case FGL__OPT_ADAGRAD: vj = vj + d2; break;
        case FGL__OPT_ADAM: vj = b2 * vj + (1 - b2) * d2; break;
        default: vj = vj - (1 - b2) * d2 * (vj > d2 ? 1.0 : vj < d2 ? -1.0 : 0.0); break; /* Yogi */
        }
        m[j] = (float)mj;
        v[j] = (float)vj;
        x[j] = (float)(x[j] + eta * mj / (sqrt(vj > 0 ? vj : 0) + tau));
    }
    return FGL_OK;
}

/* The parameters' ranges, checked when the run is made (fgl_run_init): the spec is left as it is. */
static int fgl__opt_check(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    const char *name = set->algo->name;
    double eta = fgl_get(set, "eta"), b1 = fgl_get(set, "beta1");
    (void)spec;
    if (!(eta > 0 && eta <= 1e3)) return fgl_error_set(err, FGL_ERR_RANGE, "%s: eta = %g, not in (0, 1000]", name, eta);
    if (!(b1 >= 0 && b1 < 1)) return fgl_error_set(err, FGL_ERR_RANGE, "%s: beta1 = %g, not in [0, 1)", name, b1);
    if (set->algo->variant != FGL__OPT_AVGM) {
        double b2 = fgl_get(set, "beta2"), tau = fgl_get(set, "tau");
        if (!(b2 >= 0 && b2 < 1)) return fgl_error_set(err, FGL_ERR_RANGE, "%s: beta2 = %g, not in [0, 1)", name, b2);
        if (!(tau > 0 && tau <= 1e3)) return fgl_error_set(err, FGL_ERR_RANGE, "%s: tau = %g, not in (0, 1000]", name, tau);
    }
    return FGL_OK;
}

static fgl_algo fgl__fedopt_like(const char *name, const char *summary, int variant, double eta) {
    fgl_algo a = fgl__avg_base(name, summary, FGL_G_ALL, "parameter groups averaged");
    a.variant = variant;
    fgl_algo_param_add(&a, "eta", FGL_PARAM_FLOAT, eta, "server learning rate");
    fgl_algo_param_add(&a, "beta1", FGL_PARAM_FLOAT, 0.9, "server momentum (first moment decay)");
    if (variant != FGL__OPT_AVGM) {
        fgl_algo_param_add(&a, "beta2", FGL_PARAM_FLOAT, 0.99, "second moment decay (FedAdam, FedYogi)");
        fgl_algo_param_add(&a, "tau", FGL_PARAM_FLOAT, 1e-3, "adaptivity: added to sqrt(v); v starts at tau^2");
    }
    a.prepare_spec = fgl__opt_check;
    a.server_init = fgl__opt_server_init;
    a.aggregate = fgl__opt_aggregate;
    return a;
}

static fgl_algo fgl__fedavgm(void) {
    return fgl__fedopt_like("fedavgm", "Hsu et al. 2019: FedAvg with server momentum over the mean update",
                            FGL__OPT_AVGM, 0.1);
}

static fgl_algo fgl__fedadagrad(void) {
    return fgl__fedopt_like("fedadagrad", "Reddi et al. 2021: the mean update as a gradient for a server Adagrad",
                            FGL__OPT_ADAGRAD, 0.1);
}

static fgl_algo fgl__fedadam(void) {
    return fgl__fedopt_like("fedadam", "Reddi et al. 2021: the mean update as a gradient for a server Adam",
                            FGL__OPT_ADAM, 0.001);
}

static fgl_algo fgl__fedyogi(void) {
    return fgl__fedopt_like("fedyogi", "Reddi et al. 2021: the mean update as a gradient for a server Yogi",
                            FGL__OPT_YOGI, 0.001);
}
/* --- src/fed/algos/fedgcn.h --- */
/* --- FedGCN: cross-client neighbours' features, once, before training --------------- */
/* Yao et al., NeurIPS 2023, "FedGCN: Convergence-Communication Tradeoffs in
 * Federated Training of Graph Convolutional Networks". Clients hold their
 * data with its halo (fgl_split_halo; fglrun --halo H): their own nodes, then
 * the nodes of other clients within H hops of them, known by structure only
 * (ids, the edges among all of them, the whole graph's degrees in the GCN
 * matrix; features zero). hops 1 or 2 (-1, the default: the halo the data
 * brings) makes round 1 the one-shot pre-training exchange:
 *   up   "x"    n_k x F: the client's own nodes' features (halo rows zero),
 *        "gid"  n_k:     every row's id in the whole graph (own g, halo -(g+1));
 *   down "halo" n_k x F: the features of its halo rows, which the server takes
 *        from the uploads of the clients that own those nodes (own rows zero),
 *        sent with round 2's model, once.
 * Round 1 trains nothing (the exchange comes before training); from round 2
 * on the clients train the GCN on their rows as FedAvg does (theta averaged
 * by samples, or alike: weights=equal, the authors' code). With the whole
 * graph's degrees a GCN layer at an own node sums A_hat x over its whole
 * neighbourhood, as on the whole graph: hops 1 gives the first layer's
 * aggregate exactly, hops 2 a 2-layer GCN's output at own nodes exactly. hops
 * 0 is FedAvg on the clients' own subgraphs (bit for bit: tested).
 * Sent in the exchange: up 4 (F + 1) n_k, down 4 F n_k bytes per client,
 * n_k its rows (own and halo); then FedAvg's 4 (n + 1) up and 4 n down per
 * round. The paper's homomorphic encryption of the exchange is not provided.
 * "x" and "gid" are RAW parts: no robust rule, DP or secure aggregation
 * covers them, and such a run is refused at its start (any hops). The
 * exchange needs every client in round 1 (frac 1 then); under FGL_MPI the
 * halo travels with each rank's clients' data. */

enum { FGL__GCN_NONE, FGL__GCN_DUE, FGL__GCN_SENT }; /* the server's exchange state ("xch") */

/* The hops a client runs: the parameter, or (-1) the halo its data brings; -1 with an error recorded. */
static int fgl__gcn_hops(fgl_client *c) {
    const fgl_node_data *d = c->data.node;
    int want = (int)fgl_get(c->set, "hops"), has = d && d->gid ? d->halo_hops : 0;
    if (want < -1 || want > 2) {
        fgl_client_fail(c, FGL_ERR_RANGE, "fedgcn: hops = %d, not -1 (the data's halo), 0, 1 or 2", want);
        return -1;
    }
    if (want >= 0 && want != has) {
        fgl_client_fail(c, FGL_ERR_ARG, "fedgcn: hops = %d needs the clients' data with a halo of %d hops "
                        "(fgl_split_halo; fglrun --halo %d); client %d's has %d", want, want, want, c->id, has);
        return -1;
    }
    if (has > 2) {
        fgl_client_fail(c, FGL_ERR_ARG, "fedgcn: a halo of %d hops; FedGCN exchanges 0, 1 or 2", has);
        return -1;
    }
    return has;
}

static int fgl__gcn_client_init(fgl_client *c) {
    const fgl_node_data *d = c->data.node;
    int h = fgl__gcn_hops(c);
    int *state = fgl_new_ints(&c->store, "hops", 2); /* the hops run, and 1 once the halo arrived */
    float *x;
    if (h < 0) return c->error;
    if (!state) return FGL_ERR_NOMEM;
    state[0] = h;
    if (h == 0) return FGL_OK;
    if (!d->x.data || d->x.cols != d->n_feat || d->n_own < 1 || d->n_own > d->n_nodes || d->n_nodes > (1 << 24) ||
        !d->gid)
        return fgl_client_fail(c, FGL_ERR_ARG, "fedgcn: client %d's halo data needs dense features, own rows first, "
                               "their node ids and at most 2^24 rows", c->id);
    {   /* node ids travel as floats: exact below 2^24 */
        int r;
        for (r = 0; r < d->n_nodes; r++)
            if (d->gid[r] < 0 || d->gid[r] >= (1 << 24))
                return fgl_client_fail(c, FGL_ERR_ARG, "fedgcn: client %d's row %d has node id %d (0 .. 2^24 - 1)",
                                       c->id, r, d->gid[r]);
    }
    x = fgl_new_floats(&c->store, "xfull", (size_t)d->n_nodes * (size_t)d->n_feat);
    if (!x) return FGL_ERR_NOMEM;
    memcpy(x, d->x.data, sizeof(float) * (size_t)d->n_nodes * (size_t)d->n_feat);
    c->data.full.x = x; /* the GCN reads its features from here: the halo rows once they arrive */
    return FGL_OK;
}

static int fgl__gcn_train(fgl_client *c) {
    if (fgl_ints(&c->store, "hops")[0] > 0 && c->round == 0) { /* the exchange round: nothing to train on yet */
        c->steps = 0;
        c->train_loss = 0;
        return FGL_OK;
    }
    return fgl_client_train(c, &c->model, &c->optim, &c->algo->train);
}

static int fgl__gcn_upload(fgl_client *c) {
    const fgl_node_data *d = c->data.node;
    float *x, *gid;
    int r;
    if (fgl_ints(&c->store, "hops")[0] == 0 || c->round != 0) {
        fgl_up_drop(c, "x");
        fgl_up_drop(c, "gid");
        return FGL_OK;
    }
    x = fgl_up(c, "x");
    gid = fgl_up(c, "gid");
    if (!x || !gid) return FGL_ERR_NOMEM;
    memcpy(x, d->x.data, sizeof(float) * (size_t)d->n_nodes * (size_t)d->n_feat); /* halo rows: zero */
    for (r = 0; r < d->n_nodes; r++) gid[r] = (float)(r < d->n_own ? d->gid[r] : -d->gid[r] - 1);
    return FGL_OK;
}

static int fgl__gcn_receive(fgl_client *c) {
    const fgl_node_data *d = c->data.node;
    const float *h = fgl_down(c, "halo");
    size_t F, own;
    int *state = fgl_ints(&c->store, "hops");
    if (!h) return FGL_OK;
    F = (size_t)d->n_feat;
    own = (size_t)d->n_own;
    if (state[0] == 0) return fgl_client_fail(c, FGL_ERR_ARG, "fedgcn: a halo arrived at a client without one");
    memcpy(fgl_floats(&c->store, "xfull") + own * F, h + own * F, sizeof(float) * ((size_t)d->n_nodes - own) * F);
    state[1] = 1;
    return FGL_OK;
}

/* All clients' rows together. */
static size_t fgl__gcn_rows(const fgl_server *s) {
    size_t rows = 0;
    int i;
    for (i = 0; i < s->n_clients; i++) rows += (size_t)s->n_nodes[i];
    return rows;
}

static int fgl__gcn_server_init(fgl_server *s) {
    int rc = fgl__fedavg_server_init(s);
    if (rc) return rc;
    if (fgl_get(s->set, "hops") < -1 || fgl_get(s->set, "hops") > 2)
        return fgl_server_fail(s, FGL_ERR_RANGE, "fedgcn: hops = %g, not -1, 0, 1 or 2", fgl_get(s->set, "hops"));
    if (!fgl_new_ints(&s->store, "xch", 3)) return FGL_ERR_NOMEM; /* state, own rows sent, halo rows filled */
    if (fgl_get(s->set, "hops") == 0) return FGL_OK;
    /* every client's halo rows to send, at the offset of its rows among all clients' */
    return fgl_new_floats(&s->store, "hx", fgl__gcn_rows(s) * fgl_server_dim(s, FGL_DIM_INPUT)) ? FGL_OK
                                                                                                : FGL_ERR_NOMEM;
}

typedef struct fgl__gcn_owner {
    int gid, client, row;
} fgl__gcn_owner;

static int fgl__gcn_owner_cmp(const void *a, const void *b) {
    int x = ((const fgl__gcn_owner *)a)->gid, y = ((const fgl__gcn_owner *)b)->gid;
    return (x > y) - (x < y);
}

/* Round 1's uploads: every halo row's features from the upload of the client that owns the node. */
static int fgl__gcn_exchange(fgl_server *s) {
    size_t F = fgl_server_dim(s, FGL_DIM_INPUT), off = 0, n_own = 0, k = 0, filled = 0;
    fgl__gcn_owner *own;
    float *hx;
    int i, r, senders = 0;
    for (i = 0; i < s->n_clients; i++) senders += fgl_upload(s, i, "gid") != NULL && fgl_upload(s, i, "x") != NULL;
    if (senders == 0) return FGL_OK; /* no halo anywhere: FedAvg */
    if (senders < s->n_clients)
        return fgl_server_fail(s, FGL_ERR_ARG, "fedgcn: the exchange needs every client's upload in round 1 (%d of "
                               "%d arrived)", senders, s->n_clients);
    hx = fgl_floats(&s->store, "hx"); /* there: a client sends only with hops 1 or 2, the server's parameter too */
    for (i = 0; i < s->n_clients; i++) {
        const float *g = fgl_upload(s, i, "gid");
        for (r = 0; r < s->n_nodes[i]; r++) {
            if (!(g[r] > -16777217.0f && g[r] < 16777216.0f) || g[r] != (float)(int)g[r]) /* NaN, huge, fractional */
                return fgl_server_fail(s, FGL_ERR_ARG, "fedgcn: client %d's row %d carries node id %g", i, r, g[r]);
            n_own += g[r] >= 0;
        }
    }
    own = (fgl__gcn_owner *)fgl_scratch(&s->store, sizeof(fgl__gcn_owner) * FGL__MAX(n_own, 1));
    if (!own) return FGL_ERR_NOMEM;
    for (i = 0; i < s->n_clients; i++) {
        const float *g = fgl_upload(s, i, "gid");
        for (r = 0; r < s->n_nodes[i]; r++)
            if (g[r] >= 0) {
                own[k].gid = (int)g[r];
                own[k].client = i;
                own[k++].row = r;
            }
    }
    qsort(own, n_own, sizeof *own, fgl__gcn_owner_cmp);
    for (k = 1; k < n_own; k++)
        if (own[k].gid == own[k - 1].gid)
            return fgl_server_fail(s, FGL_ERR_ARG, "fedgcn: node %d is owned by clients %d and %d", own[k].gid,
                                   own[k - 1].client, own[k].client);
    memset(hx, 0, sizeof(float) * F * fgl__gcn_rows(s));
    for (i = 0; i < s->n_clients; off += (size_t)s->n_nodes[i++]) {
        const float *g = fgl_upload(s, i, "gid");
        for (r = 0; r < s->n_nodes[i]; r++) {
            fgl__gcn_owner key, *o;
            if (g[r] >= 0) continue;
            key.gid = (int)(-g[r] - 1);
            o = (fgl__gcn_owner *)bsearch(&key, own, n_own, sizeof *own, fgl__gcn_owner_cmp);
            if (!o)
                return fgl_server_fail(s, FGL_ERR_ARG, "fedgcn: client %d's halo node %d has no owner", i, key.gid);
            memcpy(hx + (off + (size_t)r) * F, fgl_upload(s, o->client, "x") + (size_t)o->row * F, sizeof(float) * F);
            filled++;
        }
    }
    fgl_ints(&s->store, "xch")[0] = FGL__GCN_DUE;
    fgl_ints(&s->store, "xch")[1] = (int)n_own;
    fgl_ints(&s->store, "xch")[2] = (int)filled;
    return FGL_OK;
}

static int fgl__gcn_aggregate(fgl_server *s) {
    int rc = fgl__fedavg_aggregate(s), *xch = fgl_ints(&s->store, "xch");
    if (rc) return rc;
    if (xch[0] == FGL__GCN_DUE) xch[0] = FGL__GCN_SENT; /* round 2's downloads carried it */
    return s->round == 0 ? fgl__gcn_exchange(s) : FGL_OK;
}

static int fgl__gcn_download(fgl_server *s, int client, fgl_msg *down) {
    size_t F = fgl_server_dim(s, FGL_DIM_INPUT), off = 0, n = (size_t)s->n_nodes[client] * F;
    float *p;
    int i;
    (void)down;
    if (fgl_ints(&s->store, "xch")[0] != FGL__GCN_DUE) return FGL_OK;
    for (i = 0; i < client; i++) off += (size_t)s->n_nodes[i];
    if (!(p = fgl_download_part(s, client, "halo"))) return FGL_ERR_NOMEM;
    memcpy(p, fgl_floats(&s->store, "hx") + off * F, sizeof(float) * n);
    return FGL_OK;
}

static void fgl__gcn_report(const fgl_observed *o, char *buf, size_t cap) {
    const int *xch = fgl_observed_ints(o, "xch");
    double rows = 0, F = (double)fgl_observed_dim(o, FGL_DIM_INPUT);
    int i;
    if (!xch) return;
    for (i = 0; i < o->n_clients; i++) rows += o->n_nodes[i];
    snprintf(buf, cap, "\"exchange\": \"%s\", \"exchange_own_rows\": %d, \"exchange_halo_rows\": %d, "
             "\"exchange_bytes_up\": %.0f, \"exchange_bytes_down\": %.0f",
             xch[0] == FGL__GCN_SENT ? "sent" : xch[0] == FGL__GCN_DUE ? "due" : "none", xch[1], xch[2],
             xch[0] ? 4.0 * (F + 1) * rows : 0.0, xch[0] == FGL__GCN_SENT ? 4.0 * F * rows : 0.0);
}

/* The exchange is of node features over a node graph's cut edges: a graph-classification client has neither (its
 * receive hook would read a halo that does not exist). */
static int fgl__gcn_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    (void)set;
    if (spec->task != FGL_TASK_NODE) return fgl_error_set(err, FGL_ERR_ARG, "fedgcn: node classification only");
    if (spec->arch == FGL_ARCH_SGC || spec->arch == FGL_ARCH_GAMLP) /* they propagate the features once, before */
        return fgl_error_set(err, FGL_ERR_ARG, "fedgcn: not with %s (its features are propagated before the "
                             "exchange fills the halo in)", spec->arch == FGL_ARCH_SGC ? "sgc" : "gamlp");
    return FGL_OK;
}

static fgl_algo fgl__fedgcn(void) {
    fgl_algo a = fgl__avg_base("fedgcn", "Yao et al. 2023: the halo's features sent once before training (0-, 1-, "
                               "2-hop), then FedAvg on the clients' rows", FGL_G_ALL, "parameter groups averaged");
    fgl_algo_param_add(&a, "hops", FGL_PARAM_INT, -1,
                       "-1: the halo the clients' data brings (fglrun --halo H), else 0, 1 or 2, which it must be");
    fgl_algo_param_add(&a, "weights", FGL_PARAM_INT, 0,
                       "clients weighted by training samples (samples) or alike (equal: the authors' code)");
    fgl_algo_param_choices(&a, "weights", "samples|equal");
    fgl_algo_upload(&a, "x", FGL_SEND_DATA, FGL_DIM_NODES, FGL_DIM_INPUT, FGL_PART_OPTIONAL | FGL_PART_RAW);
    fgl_algo_upload(&a, "gid", FGL_SEND_DATA, FGL_DIM_NODES, 1, FGL_PART_OPTIONAL | FGL_PART_RAW);
    fgl_algo_download(&a, "halo", FGL_SEND_DATA, FGL_DIM_NODES, FGL_DIM_INPUT, FGL_PART_OPTIONAL, NULL);
    a.client_init = fgl__gcn_client_init;
    a.local_train = fgl__gcn_train;
    a.upload = fgl__gcn_upload;
    a.receive = fgl__gcn_receive;
    a.server_init = fgl__gcn_server_init;
    a.aggregate = fgl__gcn_aggregate;
    a.download = fgl__gcn_download;
    a.report = fgl__gcn_report;
    a.prepare_spec = fgl__gcn_spec;
    return a;
}
/* --- src/fed/algos/fedbn.h --- */
/* --- FedBN: FedAvg with local batch norm ------------------------------------------------- */
/* Li et al. 2021 ("FedBN: Federated Learning on Non-IID Features via Local
 * Batch Normalization"): clients whose features are shifted (one domain
 * each) keep their batch-norm layers, the affine scale and shift and the
 * running mean and variance, and average everything else as in FedAvg. It
 * is FedAvg's table with a keep-local mask: share (default all) less keep
 * (default norm+bnstat) travels, selected slice by slice (a GIN layer's
 * batch-norm weights are tagged CONV|NORM, so share=conv alone would send
 * them; keep leaves them out). The runtime applies the pair everywhere
 * (src/fed/algo.h, "What travels and what stays local"): a client never
 * sends its batch norm and the download does not overwrite it, the server's
 * vector holds only the rest, and checkpoints keep each client's own. On a
 * model without batch norm (fgl's GCN; a GIN without --bn) nothing is kept
 * and FedBN is FedAvg bit for bit (tested). Weights by training samples,
 * or equal (weights=equal), and mu (FedProx's term) as in FedAvg.
 * Sent: up 4 (n + 1), down 4 n bytes, n the shared floats less the batch
 * norm's 4 per feature of each normalised layer. */

static fgl_algo fgl__fedbn(void) {
    fgl_algo a = fgl__fedavg();
    a.name = "fedbn";
    a.summary = "Li et al. 2021: FedAvg with the batch-norm layers (scale, shift, running statistics) kept local";
    fgl_algo_param_add(&a, "keep", FGL_PARAM_GROUPS, (double)(FGL_G_NORM | FGL_G_BNSTAT),
                       "parameter groups kept local even where share selects them (the batch norm)");
    return a;
}
/* --- src/fed/algos/fedsage.h --- */
/* --- FedSage+ (Zhang et al. 2021) --------------------------------------------------- */
/* Subgraph FL with missing-neighbour generation (docs/algorithms.md, FedSage+).
 * Two phases over one run: rounds 0 .. gen_rounds-1 train every client's
 * NeighGen, the later rounds train the classifier with FedAvg on each
 * client's subgraph mended by its NeighGen.
 *
 * NeighGen (per client, never averaged): an encoder (a 2-layer mean-SAGE,
 * width `latent`, dropout 0.5) gives z_v; dGen n_v = ReLU(z_v w_d + b_d)
 * predicts how many neighbours v misses (its loss reads the value before the
 * ReLU, so that a unit dead at the start still learns); fGen H_v = tanh(ReLU(z_v W_1 + b_1)
 * W_2 + b_2) (width gen_hidden, dropout 0.5) generates num_pred feature
 * vectors H_v[0..num_pred-1]. It trains on an impaired copy of the client's
 * subgraph: a fraction hidden_portion of its nodes (drawn once from the seed)
 * is removed, and each remaining node's neighbours among them are its
 * missing neighbours M_v. The loss per step is
 *     lambda_d SmoothL1(n_v, |M_v|)                              (mean over v)
 *   + lambda_f sum_{p < min(P, |M_v|)} min_{u in M_v} ||H_v[p] - x_u||^2 / F
 *                                                                (mean over slots)
 *   + alpha (K - 1) sum_{(v,p) in S} ||H_v[p] - t_(v,p)||^2 / F  (mean over S)
 * where the last, cross-client term stands for the paper's
 * alpha sum_{j != i} min_{u in V_j} ||H_v[p] - x_u||^2: every round a client
 * uploads `cross` generated vectors H_v[p] of a random sample S of its
 * impaired nodes and slots ("gen"); the server routes them to one other
 * client j (a rotation: each round another j, each j answering one client);
 * j answers, for each vector h, the gradient 2 (h - x_u*) of the squared
 * distance to its nearest own node feature x_u* ("back"), and the server
 * routes the answer back. The asking client, two rounds after it sent S,
 * recovers t = h - g / 2 = x_u* and adds the term on its current H_v[p].
 * Sent per NeighGen round: up 4 cross F (gen) + 4 cross F (back), down the
 * same, on top of FedAvg's model parts (which stay as they were: the
 * classifier does not train in this phase).
 *
 * Mending (the first classifier round, and again after a resume, from the
 * stored generator, deterministic): the encoder runs in evaluation mode on
 * the whole local subgraph; node v gets k_v = min(P, round(n_v)) new nodes
 * with features H_v[0..k_v-1], each linked to v only, unlabelled and in no
 * split. The classifier trains on the mended graph; evaluation stays on the
 * client's own graph (no generated nodes), as the authors test on the
 * original graph. num_pred = 0 (or gen_rounds = 0 with num_pred = 0) is
 * FedAvg, bit for bit. The generator's uploads are marked raw: robust rules,
 * DP and secure aggregation cover the classifier's mean only and such runs
 * are refused. */


static void fgl__fs_unmend(fgl__fs_data *d) {
    if (d->mended) fgl_gnn_graph_free(&d->m_g);
    fgl_csr_free(&d->m_adj);
    FGL_FREE(d->m_x);
    FGL_FREE(d->m_y);
    FGL_FREE(d->m_mask);
    d->m_x = NULL;
    d->m_y = NULL;
    d->m_mask = NULL;
    d->mended = 0;
}

static void fgl__fs_destroy(void *p) {
    fgl__fs_data *d = (fgl__fs_data *)p;
    fgl__fs_unmend(d);
    if (d->built_imp) fgl_gnn_graph_free(&d->imp_g);
    if (d->built_full) fgl_gnn_graph_free(&d->full_g);
    fgl_csr_free(&d->imp_adj);
    FGL_FREE(d->x);
    FGL_FREE(d->imp);
    FGL_FREE(d->miss_ptr);
    FGL_FREE(d->miss);
    FGL_FREE(d->imp_x);
}

/* Zeroed memory through FGL_MALLOC (a user's allocator has no calloc). */
static void *fgl__fs_zalloc(size_t bytes) {
    void *p = FGL_MALLOC(bytes ? bytes : 1);
    if (p) memset(p, 0, bytes ? bytes : 1);
    return p;
}

static fgl_model_spec fgl__fs_enc_spec(const fgl_client *c, int F) {
    fgl_model_spec s = fgl_model_spec_default(FGL_ARCH_SAGE, FGL_TASK_NODE, F, (int)fgl_get(c->set, "latent"));
    s.hidden = s.out_dim;
    s.layers = 2;
    s.head = FGL_HEAD_NONE;
    return s;
}

static int fgl__fs_check(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    double h = fgl_get(set, "hidden_portion");
    if (spec->task != FGL_TASK_NODE) return fgl_error_set(err, FGL_ERR_ARG, "fedsage: node classification only");
    if (fgl_get(set, "gen_rounds") < 0 || fgl_get(set, "num_pred") < 0 || fgl_get(set, "num_pred") > 64 ||
        fgl_get(set, "latent") < 1 || fgl_get(set, "gen_hidden") < 1 || fgl_get(set, "gen_steps") < 1)
        return fgl_error_set(err, FGL_ERR_RANGE, "fedsage: gen_rounds >= 0, num_pred in 0..64, latent, gen_hidden "
                             "and gen_steps >= 1");
    if (!(h >= 0 && h < 1)) return fgl_error_set(err, FGL_ERR_RANGE, "fedsage: hidden_portion = %g, not in [0, 1)", h);
    if (!(fgl_get(set, "gen_lr") > 0) || !(fgl_get(set, "gen_wd") >= 0) || !(fgl_get(set, "lambda_d") >= 0) ||
        !(fgl_get(set, "lambda_f") >= 0) || !(fgl_get(set, "alpha") >= 0))
        return fgl_error_set(err, FGL_ERR_RANGE, "fedsage: gen_lr > 0; gen_wd, lambda_d, lambda_f, alpha >= 0");
    return FGL_OK;
}

/* The impaired graph, the local graph and the dense features. The hidden
 * nodes are floor(hidden_portion m) of the m nodes with pool[i] set (pool
 * NULL: of all nodes; FedDEP hides validation nodes only). */
static int fgl__fs_build(fgl_client *c, fgl__fs_data *d, const unsigned char *pool) {
    const fgl_node_data *nd = c->data.node;
    const fgl_csr *A = &nd->adj;
    int n = nd->n_nodes, F = nd->n_feat, i, k, nh, np, ne = 0, rc;
    double h = fgl_get(c->set, "hidden_portion");
    int *hide = NULL, *map = NULL, *r = NULL, *cc = NULL;
    fgl_model_spec es = fgl__fs_enc_spec(c, F);
    fgl_rng rng;
    fgl_error err;
    d->n = n;
    d->F = F;
    d->P = (int)fgl_get(c->set, "num_pred");
    d->x = (float *)fgl__fs_zalloc(sizeof(float) * ((size_t)n * (size_t)F + 1));
    map = (int *)FGL_MALLOC(sizeof(int) * (size_t)(n + 1));
    hide = (int *)FGL_MALLOC(sizeof(int) * (size_t)(n + 1));
    d->imp = (int *)FGL_MALLOC(sizeof(int) * (size_t)(n + 1));
    d->miss_ptr = (int *)fgl__fs_zalloc(sizeof(int) * ((size_t)n + 1));
    d->miss = (int *)FGL_MALLOC(sizeof(int) * (size_t)(A->nnz + 1));
    r = (int *)FGL_MALLOC(sizeof(int) * (size_t)(A->nnz + 1));
    cc = (int *)FGL_MALLOC(sizeof(int) * (size_t)(A->nnz + 1));
    rc = FGL_ERR_NOMEM;
    if (!d->x || !map || !hide || !d->imp || !d->miss_ptr || !d->miss || !r || !cc) goto done;
    if (nd->x.data && nd->x.rows == n) {
        memcpy(d->x, nd->x.data, sizeof(float) * (size_t)n * (size_t)F);
    } else {
        const fgl_csr *X = &nd->x_sparse;
        for (i = 0; i < n; i++)
            for (k = X->indptr[i]; k < X->indptr[i + 1]; k++)
                d->x[(size_t)i * F + X->indices[k]] = X->values ? X->values[k] : 1.0f;
    }
    /* hide floor(h m) of the m nodes of the pool, drawn from the run seed and the client */
    for (i = 0, np = 0; i < n; i++)
        if (!pool || pool[i]) map[np++] = i;
    nh = (int)floor(h * np);
    fgl_rng_init(&rng, c->fed->seed, 0x66736869ull + (uint64_t)c->id); /* "fshi" */
    if (nh > 0 && fgl_rng_sample(&rng, np, nh, hide)) goto done;
    for (i = 0; i < nh; i++) hide[i] = map[hide[i]];
    for (i = 0; i < n; i++) map[i] = 0;
    for (i = 0; i < nh; i++) map[hide[i]] = -1;
    d->n_imp = 0;
    for (i = 0; i < n; i++)
        if (map[i] == 0) d->imp[d->n_imp] = i, map[i] = d->n_imp++;
    for (i = 0; i < d->n_imp; i++) {
        int v = d->imp[i];
        d->miss_ptr[i + 1] = d->miss_ptr[i];
        for (k = A->indptr[v]; k < A->indptr[v + 1]; k++) {
            int u = A->indices[k];
            if (map[u] < 0) d->miss[d->miss_ptr[i + 1]++] = u;
            else r[ne] = i, cc[ne++] = map[u];
        }
    }
    d->imp_x = (float *)FGL_MALLOC(sizeof(float) * ((size_t)d->n_imp * (size_t)F + 1));
    if (!d->imp_x) goto done;
    for (i = 0; i < d->n_imp; i++) memcpy(d->imp_x + (size_t)i * F, d->x + (size_t)d->imp[i] * F, sizeof(float) * F);
    if (d->n_imp > 0) {
        if ((rc = fgl_csr_from_coo(d->n_imp, d->n_imp, ne, r, cc, NULL, 0, &d->imp_adj, &err))) goto done;
        if ((rc = fgl_gnn_graph_make(&d->imp_g, &d->imp_adj, NULL, d->imp_x, NULL, F, NULL, 0, NULL, 0, &es, &err)))
            goto done;
        d->built_imp = 1;
    }
    if ((rc = fgl_gnn_graph_make(&d->full_g, A, NULL, d->x, NULL, F, NULL, 0, NULL, 0, &es, &err))) goto done;
    d->built_full = 1;
    rc = FGL_OK;
done:
    FGL_FREE(map);
    FGL_FREE(hide);
    FGL_FREE(r);
    FGL_FREE(cc);
    return rc;
}

static int fgl__fs_client_init(fgl_client *c) {
    fgl__fs_data *d;
    fgl_params *g;
    fgl_model *enc;
    fgl_model_spec es;
    fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
    int P = (int)fgl_get(c->set, "num_pred"), L = (int)fgl_get(c->set, "latent");
    int H = (int)fgl_get(c->set, "gen_hidden");
    int F, cross = (int)fgl_get(c->set, "cross"), rc;
    fgl_rng r;
    if (P == 0) return FGL_OK; /* no generator: FedAvg */
    d = (fgl__fs_data *)fgl_new_scratch(&c->store, "fs", sizeof(fgl__fs_data), fgl__fs_destroy);
    if (!d) return FGL_ERR_NOMEM;
    if ((rc = fgl__fs_build(c, d, NULL)))
        return fgl_client_fail(c, rc, "fedsage: impaired graph: %s", fgl_result_name(rc));
    F = d->F;
    es = fgl__fs_enc_spec(c, F);
    enc = fgl_new_model(&c->store, "enc", &es, c->fed->seed * 1000003u + 0x656e63u + (uint64_t)c->id);
    g = fgl_new_params(&c->store, "gen");
    if (!enc || !g) return FGL_ERR_NOMEM;
    if (fgl_params_add(g, "dgen.w", L, 1, FGL_G_HEAD, 1) < 0 || fgl_params_add(g, "dgen.b", 1, 1, FGL_G_HEAD, 1) < 0 ||
        fgl_params_add(g, "fgen.w1", L, H, FGL_G_HEAD, 1) < 0 ||
        fgl_params_add(g, "fgen.b1", 1, H, FGL_G_HEAD, 1) < 0 ||
        fgl_params_add(g, "fgen.w2", H, P * F, FGL_G_HEAD, 1) < 0 ||
        fgl_params_add(g, "fgen.b2", 1, P * F, FGL_G_HEAD, 1) < 0)
        return FGL_ERR_NOMEM;
    fgl_rng_init(&r, c->fed->seed, 0x6667656eull + (uint64_t)c->id); /* "fgen" */
    fgl_params_glorot(g, fgl_params_find(g, "dgen.w"), &r);
    fgl_params_glorot(g, fgl_params_find(g, "fgen.w1"), &r);
    fgl_params_glorot(g, fgl_params_find(g, "fgen.w2"), &r);
    oc.lr = (float)fgl_get(c->set, "gen_lr");
    oc.weight_decay = (float)fgl_get(c->set, "gen_wd");
    fgl_new_optim(&c->store, "enc_optim", oc, &enc->params);
    fgl_new_optim(&c->store, "gen_optim", oc, g);
    fgl_new_floats(&c->store, "sent", (size_t)2 * (size_t)cross * (size_t)F); /* H of the last two samples */
    fgl_new_ints(&c->store, "sent_idx", (size_t)2 * (size_t)cross);          /* their v P + p */
    fgl_new_ints(&c->store, "sent_n", 2);
    fgl_new_floats(&c->store, "losses", 4); /* the last NeighGen step: L_d, L_f, L_x, total */
    fgl_new_ints(&c->store, "mend", 2);     /* the mended graph: generated nodes, nodes before */
    fgl_new_tape(&c->store, "gen_tape");
    return c->store.err;
}

/* One NeighGen forward on graph g (train: dropout): dGen's output before
 * its ReLU (n x 1; the loss reads it there, so that a unit dead at the start
 * still learns, and the counts are ReLU'd where they are used) and H (n x P F). */
static int fgl__fs_forward(fgl_client *c, fgl_tape *t, const fgl_gnn_graph *g, int train, fgl_node **dn,
                           fgl_node **Hn) {
    fgl_model *enc = fgl_get_model(&c->store, "enc");
    fgl_params *ps = fgl_get_params(&c->store, "gen");
    fgl_forward fw;
    fgl_node *z, *h;
    if (fgl_model_forward(enc, t, g, train, &c->rng, &fw) || !fw.logits) return t->err ? t->err : FGL_ERR_ARG;
    z = fw.logits;
    *dn = fgl_op_linear(t, z, fgl_op_param(t, ps, fgl_params_find(ps, "dgen.w")),
                        fgl_op_param(t, ps, fgl_params_find(ps, "dgen.b"))); /* before the ReLU (see above) */
    h = fgl_op_linear(t, z, fgl_op_param(t, ps, fgl_params_find(ps, "fgen.w1")),
                      fgl_op_param(t, ps, fgl_params_find(ps, "fgen.b1")));
    h = train ? fgl_op_relu_dropout(t, h, 0.5f, &c->rng) : fgl_op_relu(t, h);
    *Hn = fgl_op_tanh(t, fgl_op_linear(t, h, fgl_op_param(t, ps, fgl_params_find(ps, "fgen.w2")),
                                       fgl_op_param(t, ps, fgl_params_find(ps, "fgen.b2"))));
    return t->err;
}

/* sum over the pairs k of ||H_{v_k}[p_k] - T_k||^2 (T: n_pairs x F), slot by
 * slot (a gather of the slot's columns); NULL when there are no pairs. */
static fgl_node *fgl__fs_sqerr(fgl_tape *t, fgl_node *H, int P, int F, const int *vp, int n_pairs, const float *T) {
    fgl_node *acc = NULL;
    int p, k;
    for (p = 0; p < P; p++) {
        int m = 0, *idx;
        float *tg;
        fgl_node *s;
        for (k = 0; k < n_pairs; k++) m += vp[k] % P == p;
        if (!m) continue;
        idx = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)m);
        tg = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)m * (size_t)F);
        if (!idx || !tg) return fgl_tape_fail(t, FGL_ERR_NOMEM, "fedsage: out of memory");
        for (k = 0, m = 0; k < n_pairs; k++)
            if (vp[k] % P == p) {
                idx[m] = vp[k] / P;
                memcpy(tg + (size_t)m * F, T + (size_t)k * F, sizeof(float) * (size_t)F);
                m++;
            }
        s = fgl_op_gather_rows(t, fgl_op_slice_cols(t, H, p * F, F), idx, m);
        s = fgl_op_sum(t, fgl_op_square(t, fgl_op_sub(t, s, fgl_op_const(t, tg, m, F))));
        acc = acc ? fgl_op_add(t, acc, s) : s;
    }
    return acc;
}

/* dGen's loss: the mean over the n nodes of smooth L1 (beta 1) between dn
 * (n x 1, before the ReLU) and the true missing counts miss_ptr[i+1] -
 * miss_ptr[i], written with masks of the current values: 0.5 e^2 where
 * |e| < 1, |e| - 0.5 elsewhere. NULL when out of memory. */
static fgl_node *fgl__fs_count_loss(fgl_tape *t, fgl_node *dn, const int *miss_ptr, int n) {
    float *cnt = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n);
    float *m1 = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n);
    float *m2 = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n);
    fgl_node *e, *l;
    double off = 0;
    int i;
    if (!cnt || !m1 || !m2) return NULL;
    for (i = 0; i < n; i++) {
        double x;
        cnt[i] = (float)(miss_ptr[i + 1] - miss_ptr[i]);
        x = (double)dn->val[i] - cnt[i];
        m1[i] = fabs(x) < 1 ? (float)(0.5 / n) : 0.0f;
        m2[i] = fabs(x) < 1 ? 0.0f : (float)(1.0 / n);
        if (fabs(x) >= 1) off += 0.5 / n;
    }
    e = fgl_op_sub(t, dn, fgl_op_const(t, cnt, n, 1));
    l = fgl_op_add(t, fgl_op_sum(t, fgl_op_mul(t, fgl_op_square(t, e), fgl_op_const(t, m1, n, 1))),
                   fgl_op_sum(t, fgl_op_mul(t, fgl_op_abs(t, e), fgl_op_const(t, m2, n, 1))));
    return fgl_op_affine(t, l, 1.0f, (float)-off);
}

static double fgl__fs_dist2(const float *a, const float *b, int F) {
    double s = 0;
    int j;
    for (j = 0; j < F; j++) s += ((double)a[j] - b[j]) * ((double)a[j] - b[j]);
    return s;
}

/* One NeighGen round: gen_steps full-batch steps on the impaired graph. */
static int fgl__fs_train_gen(fgl_client *c) {
    fgl__fs_data *d = (fgl__fs_data *)fgl_get_scratch(&c->store, "fs");
    fgl_tape *t = fgl_get_tape(&c->store, "gen_tape");
    fgl_model *enc = fgl_get_model(&c->store, "enc");
    fgl_params *ps = fgl_get_params(&c->store, "gen");
    fgl_optim *eo = fgl_get_optim(&c->store, "enc_optim"), *go = fgl_get_optim(&c->store, "gen_optim");
    float *sent = fgl_floats(&c->store, "sent"), *losses = fgl_floats(&c->store, "losses");
    int *sent_idx = fgl_ints(&c->store, "sent_idx"), *sent_n = fgl_ints(&c->store, "sent_n");
    int P = d->P, F = d->F, n = d->n_imp, cross = (int)fgl_get(c->set, "cross"), K;
    int steps = (int)fgl_get(c->set, "gen_steps"), par = c->round % 2, s, i, p, k;
    int gen_rounds = (int)fgl_get(c->set, "gen_rounds");
    const float *back = fgl_down(c, "cross_back");
    double ld = fgl_get(c->set, "lambda_d"), lf = fgl_get(c->set, "lambda_f"), al = fgl_get(c->set, "alpha");
    double loss_sum = 0;
    c->steps = 0;
    if (n == 0) { /* nothing left to train on */
        sent_n[par] = 0;
        c->train_loss = 0;
        return FGL_OK;
    }
    K = (int)fgl_client_dim(c, FGL_DIM_CLIENTS);
    for (s = 0; s < steps; s++) {
        fgl_node *dn, *Hn, *loss, *lx = NULL, *lfn = NULL, *ldn;
        float *T;
        int *vp, n_pairs = 0, rc;
        fgl_tape_reset(t);
        fgl_params_zero_grad(&enc->params);
        fgl_params_zero_grad(ps);
        if ((rc = fgl__fs_forward(c, t, &d->imp_g, 1, &dn, &Hn)))
            return fgl_client_fail(c, rc, "fedsage: generator: %s", t->msg);
        ldn = fgl__fs_count_loss(t, dn, d->miss_ptr, n);
        vp = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)n * (size_t)P);
        T = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n * (size_t)P * (size_t)F);
        if (!ldn || !vp || !T) return fgl_client_fail(c, FGL_ERR_NOMEM, "fedsage: out of memory");
        /* fGen, local: slot p < min(P, |M_v|) against its nearest missing neighbour (greedy, on current values) */
        for (i = 0; i < n; i++) {
            int m = d->miss_ptr[i + 1] - d->miss_ptr[i];
            for (p = 0; p < P && p < m; p++) {
                const float *h = Hn->val + (size_t)i * P * F + (size_t)p * F;
                int best = d->miss[d->miss_ptr[i]];
                double bd = fgl__fs_dist2(h, d->x + (size_t)best * F, F);
                for (k = d->miss_ptr[i] + 1; k < d->miss_ptr[i + 1]; k++) {
                    double dd = fgl__fs_dist2(h, d->x + (size_t)d->miss[k] * F, F);
                    if (dd < bd) bd = dd, best = d->miss[k];
                }
                vp[n_pairs] = i * P + p;
                memcpy(T + (size_t)n_pairs * F, d->x + (size_t)best * F, sizeof(float) * (size_t)F);
                n_pairs++;
            }
        }
        if (n_pairs)
            lfn = fgl_op_scale(t, fgl__fs_sqerr(t, Hn, P, F, vp, n_pairs, T), (float)(1.0 / ((double)n_pairs * F)));
        /* fGen, cross-client: the targets recovered from the answers to the sample sent two rounds ago */
        if (back && sent_n[par] > 0 && al > 0) {
            int m = sent_n[par];
            float *Tx = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)m * (size_t)F);
            if (!Tx) return fgl_client_fail(c, FGL_ERR_NOMEM, "fedsage: out of memory");
            for (k = 0; k < m * F; k++) Tx[k] = sent[(size_t)par * cross * F + k] - 0.5f * back[k];
            lx = fgl_op_scale(t, fgl__fs_sqerr(t, Hn, P, F, sent_idx + (size_t)par * cross, m, Tx),
                              (float)(al * (K - 1) / ((double)m * F)));
        }
        loss = fgl_op_scale(t, ldn, (float)ld);
        if (lfn) loss = fgl_op_add(t, loss, fgl_op_scale(t, lfn, (float)lf));
        if (lx) loss = fgl_op_add(t, loss, lx);
        if (fgl_tape_backward(t, loss)) return fgl_client_fail(c, t->err, "fedsage: generator: %s", t->msg);
        losses[0] = ldn->val[0];
        losses[1] = lfn ? lfn->val[0] : 0.0f;
        losses[2] = lx ? lx->val[0] : 0.0f;
        losses[3] = loss->val[0];
        loss_sum += loss->val[0];
        fgl_optim_step(eo, &enc->params);
        fgl_optim_step(go, ps);
        c->steps++;
        if (s == steps - 1) { /* the sample to send: this step's vectors (before its update) */
            fgl_rng r;
            int want = c->round + 2 < gen_rounds && K > 1 ? cross : 0;
            fgl_rng_init(&r, c->fed->seed * 7919u + (uint64_t)c->round, 0x73616d70ull + (uint64_t)c->id); /* "samp" */
            for (k = 0; k < want; k++) {
                int v = (int)fgl_rng_below(&r, (uint64_t)n), q = (int)fgl_rng_below(&r, (uint64_t)P);
                sent_idx[(size_t)par * cross + k] = v * P + q;
                memcpy(sent + ((size_t)par * cross + k) * F, Hn->val + (size_t)v * P * F + (size_t)q * F,
                       sizeof(float) * (size_t)F);
            }
            sent_n[par] = want;
        }
    }
    fgl_tape_reset(t);
    c->train_loss = loss_sum / steps;
    return FGL_OK;
}

FGL__PRIVATE int fgl__fedsage_counts(fgl_client *c, int *kv) {
    fgl__fs_data *d;
    fgl_tape *t;
    fgl_node *dn, *Hn;
    fgl_rng keep = c->rng;
    int i, rc;
    if (fgl_get(c->set, "num_pred") == 0) {
        for (i = 0; i < c->data.node->n_nodes; i++) kv[i] = 0;
        return FGL_OK;
    }
    d = (fgl__fs_data *)fgl_get_scratch(&c->store, "fs");
    t = fgl_get_tape(&c->store, "gen_tape");
    fgl_tape_reset(t);
    rc = fgl__fs_forward(c, t, &d->full_g, 0, &dn, &Hn);
    c->rng = keep;
    for (i = 0; !rc && i < d->n; i++) {
        double v = floor((double)dn->val[i] + 0.5);
        kv[i] = v <= 0 ? 0 : v >= d->P ? d->P : (int)v;
    }
    fgl_tape_reset(t);
    return rc;
}

FGL__PRIVATE const fgl_gnn_graph *fgl__fedsage_mended(const fgl_client *c) {
    const fgl__fs_data *d =
        fgl_get(c->set, "num_pred") > 0 ? (const fgl__fs_data *)fgl_get_scratch(&c->store, "fs") : NULL;
    return d && d->mended ? &d->m_g : NULL;
}

/* The mended graph: k_v = min(P, round(n_v)) generated neighbours of every node. */
static int fgl__fs_mend(fgl_client *c, fgl__fs_data *d) {
    fgl_tape *t = fgl_get_tape(&c->store, "gen_tape");
    const fgl_node_data *nd = c->data.node;
    const fgl_csr *A = &nd->adj;
    int n = d->n, P = d->P, F = d->F, i, p, G = 0, N, e = 0, rc, *kv, *r, *cc;
    int *mend = fgl_ints(&c->store, "mend");
    fgl_node *dn, *Hn;
    fgl_error err;
    fgl_rng keep = c->rng; /* evaluation mode draws nothing; kept as it was all the same */
    kv = (int *)fgl_scratch(&c->store, sizeof(int) * (size_t)(n + 1));
    if (!kv) return fgl_client_fail(c, FGL_ERR_NOMEM, "fedsage: out of memory");
    if ((rc = fgl__fedsage_counts(c, kv))) return fgl_client_fail(c, rc, "fedsage: mend: %s", t->msg);
    fgl_tape_reset(t);
    if ((rc = fgl__fs_forward(c, t, &d->full_g, 0, &dn, &Hn)))
        return fgl_client_fail(c, rc, "fedsage: mend: %s", t->msg);
    c->rng = keep;
    for (i = 0; i < n; i++) G += kv[i];
    N = n + G;
    r = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)(A->nnz + 2 * G + 1));
    cc = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)(A->nnz + 2 * G + 1));
    d->m_x = (float *)FGL_MALLOC(sizeof(float) * ((size_t)N * (size_t)F + 1));
    d->m_y = (int *)FGL_MALLOC(sizeof(int) * (size_t)(N + 1));
    d->m_mask = (unsigned char *)fgl__fs_zalloc((size_t)N + 1);
    if (!r || !cc || !d->m_x || !d->m_y || !d->m_mask)
        return fgl_client_fail(c, FGL_ERR_NOMEM, "fedsage: out of memory");
    memcpy(d->m_x, d->x, sizeof(float) * (size_t)n * (size_t)F);
    for (i = 0; i < n; i++) d->m_y[i] = nd->y[i];
    for (i = n; i < N; i++) d->m_y[i] = -1;
    if (n > 0) memcpy(d->m_mask, c->data.mask[FGL_SPLIT_TRAIN], (size_t)n);
    for (i = 0; i < n; i++) {
        int k;
        for (k = A->indptr[i]; k < A->indptr[i + 1]; k++) r[e] = i, cc[e++] = A->indices[k];
    }
    for (i = 0, G = n; i < n; i++)
        for (p = 0; p < kv[i]; p++, G++) {
            memcpy(d->m_x + (size_t)G * F, Hn->val + (size_t)i * P * F + (size_t)p * F, sizeof(float) * (size_t)F);
            r[e] = i, cc[e++] = G;
            r[e] = G, cc[e++] = i;
        }
    if ((rc = fgl_csr_from_coo(N, N, e, r, cc, NULL, 0, &d->m_adj, &err)) ||
        (rc = fgl_gnn_graph_make(&d->m_g, &d->m_adj, NULL, d->m_x, NULL, F, NULL, 0, NULL, 0, &c->model.spec, &err))) {
        fgl_tape_reset(t);
        return fgl_client_fail(c, rc, "fedsage: mended graph: %s", err.msg);
    }
    d->m_nd = *nd;
    d->m_nd.n_nodes = N;
    d->m_nd.y = d->m_y;
    d->mended = 1;
    mend[0] = N - n;
    mend[1] = n;
    fgl_tape_reset(t);
    return FGL_OK;
}

static int fgl__fs_train(fgl_client *c) {
    fgl__fs_data *d;
    fgl_view keep;
    int rc;
    if (fgl_get(c->set, "num_pred") == 0) return fgl_client_train(c, &c->model, &c->optim, &c->algo->train);
    if (c->round < (int)fgl_get(c->set, "gen_rounds")) return fgl__fs_train_gen(c);
    d = (fgl__fs_data *)fgl_get_scratch(&c->store, "fs");
    if (!fgl__fedsage_mended(c) && (rc = fgl__fs_mend(c, d))) return rc;
    keep = c->data;
    c->data.full = d->m_g; /* the classifier trains on the mended graph */
    c->data.node = &d->m_nd;
    c->data.mask[FGL_SPLIT_TRAIN] = d->m_mask;
    rc = fgl_client_train(c, &c->model, &c->optim, &c->algo->train);
    c->data = keep;
    return rc;
}

/* gen: this round's sample; back: the answers to the vectors received. */
static int fgl__fs_upload(fgl_client *c) {
    const float *got = fgl_down(c, "cross_gen");
    int P = (int)fgl_get(c->set, "num_pred"), cross = (int)fgl_get(c->set, "cross"), k, u;
    int on = P > 0 && c->round < (int)fgl_get(c->set, "gen_rounds");
    fgl__fs_data *d = on ? (fgl__fs_data *)fgl_get_scratch(&c->store, "fs") : NULL;
    if (on && fgl_ints(&c->store, "sent_n")[c->round % 2] == cross) {
        float *up = fgl_up(c, "gen");
        if (!up) return FGL_ERR_NOMEM;
        memcpy(up, fgl_floats(&c->store, "sent") + (size_t)(c->round % 2) * cross * d->F,
               sizeof(float) * (size_t)cross * d->F);
    } else {
        fgl_up_drop(c, "gen");
    }
    if (on && got && d->n > 0) { /* the gradient of each vector's squared distance to its nearest own node */
        float *up = fgl_up(c, "back");
        int F = d->F;
        if (!up) return FGL_ERR_NOMEM;
        for (k = 0; k < cross; k++) {
            const float *h = got + (size_t)k * F;
            int best = 0;
            double bd = fgl__fs_dist2(h, d->x, F);
            for (u = 1; u < d->n; u++) {
                double dd = fgl__fs_dist2(h, d->x + (size_t)u * F, F);
                if (dd < bd) bd = dd, best = u;
            }
            for (u = 0; u < F; u++) up[(size_t)k * F + u] = 2.0f * (h[u] - d->x[(size_t)best * F + u]);
        }
    } else {
        fgl_up_drop(c, "back");
    }
    return FGL_OK;
}

static int fgl__fs_server_init(fgl_server *s) {
    size_t K = (size_t)s->n_clients, L = fgl_server_up_size(s, "gen");
    int *src;
    size_t i;
    fgl_new_floats(&s->store, "gen_buf", K * L);
    fgl_new_floats(&s->store, "back_buf", K * L);
    fgl_new_ints(&s->store, "has_gen", K);
    fgl_new_ints(&s->store, "has_back", K);
    src = fgl_new_ints(&s->store, "src", K); /* whose vectors client i was sent last */
    fgl_new_ints(&s->store, "rounds", 1);    /* aggregations done */
    if (s->store.err) return s->store.err;
    for (i = 0; i < K; i++) src[i] = -1;
    return fgl__avg_server_init(s);
}

static int fgl__fs_aggregate(fgl_server *s) {
    int K = s->n_clients, i, rc = fgl__avg_aggregate(s);
    size_t L = fgl_server_up_size(s, "gen");
    float *gb = fgl_floats(&s->store, "gen_buf"), *bb = fgl_floats(&s->store, "back_buf");
    int *hg = fgl_ints(&s->store, "has_gen"), *hb = fgl_ints(&s->store, "has_back"), *src = fgl_ints(&s->store, "src");
    if (rc) return rc;
    for (i = 0; i < K; i++) hb[i] = 0;
    for (i = 0; i < K; i++) {
        const float *g = fgl_upload(s, i, "gen"), *b = fgl_upload(s, i, "back");
        hg[i] = g != NULL;
        if (g) memcpy(gb + (size_t)i * L, g, sizeof(float) * L);
        if (b && src[i] >= 0) {
            memcpy(bb + (size_t)src[i] * L, b, sizeof(float) * L);
            hb[src[i]] = 1;
        }
    }
    for (i = 0; i < K; i++) src[i] = -1;
    fgl_ints(&s->store, "rounds")[0]++;
    return FGL_OK;
}

/* Client i, in the round this download serves, gets the vectors of client
 * (i + 1 + round mod (K - 1)) mod K and the answers to its own. */
static int fgl__fs_download(fgl_server *s, int i, fgl_msg *down) {
    int K = s->n_clients, r = fgl_ints(&s->store, "rounds")[0], p;
    size_t L = fgl_server_up_size(s, "gen");
    int *src = fgl_ints(&s->store, "src");
    (void)down;
    if (K < 2 || r >= (int)fgl_get(s->set, "gen_rounds") || fgl_get(s->set, "num_pred") == 0) return FGL_OK;
    p = (i + 1 + r % (K - 1)) % K;
    if (fgl_ints(&s->store, "has_gen")[p]) {
        float *o = fgl_download_part(s, i, "cross_gen");
        if (!o) return FGL_ERR_NOMEM;
        memcpy(o, fgl_floats(&s->store, "gen_buf") + (size_t)p * L, sizeof(float) * L);
        src[i] = p;
    }
    if (fgl_ints(&s->store, "has_back")[i]) {
        float *o = fgl_download_part(s, i, "cross_back");
        if (!o) return FGL_ERR_NOMEM;
        memcpy(o, fgl_floats(&s->store, "back_buf") + (size_t)i * L, sizeof(float) * L);
    }
    return FGL_OK;
}

static void fgl__fs_report(const fgl_observed *o, char *buf, size_t cap) {
    const int *r;
    if (!o->started || !cap) return;
    r = fgl_observed_ints(o, "rounds");
    snprintf(buf, cap, "\"aggregations\": %d", r ? r[0] : 0);
}

static fgl_algo fgl__fedsage(void) {
    fgl_algo a = fgl__avg_base("fedsage",
                               "Zhang et al. 2021 (FedSage+): per-client missing-neighbour generators trained with "
                               "cross-client feature matches, then FedAvg on the mended subgraphs",
                               FGL_G_ALL, "parameter groups of the classifier averaged");
    unsigned raw = FGL_PART_OPTIONAL | FGL_PART_RAW;
    fgl_algo_param_add(&a, "gen_rounds", FGL_PARAM_INT, 20, "rounds that train NeighGen before the classifier's");
    fgl_algo_param_add(&a, "num_pred", FGL_PARAM_INT, 5, "generated neighbours per node at most (0: FedAvg)");
    fgl_algo_param_add(&a, "hidden_portion", FGL_PARAM_FLOAT, 0.5, "share of nodes hidden in the impaired graph");
    fgl_algo_param_add(&a, "latent", FGL_PARAM_INT, 128, "NeighGen encoder width");
    fgl_algo_param_add(&a, "gen_hidden", FGL_PARAM_INT, 256, "fGen hidden width");
    fgl_algo_param_add(&a, "gen_steps", FGL_PARAM_INT, 1, "NeighGen optimizer steps per round");
    fgl_algo_param_add(&a, "gen_lr", FGL_PARAM_FLOAT, 0.001, "NeighGen Adam learning rate");
    fgl_algo_param_add(&a, "gen_wd", FGL_PARAM_FLOAT, 1e-4, "NeighGen weight decay");
    fgl_algo_param_add(&a, "lambda_d", FGL_PARAM_FLOAT, 1.0, "weight of dGen's smooth L1 loss");
    fgl_algo_param_add(&a, "lambda_f", FGL_PARAM_FLOAT, 1.0, "weight of fGen's local feature loss");
    fgl_algo_param_add(&a, "alpha", FGL_PARAM_FLOAT, 1.0, "weight of fGen's cross-client feature loss (per client)");
    fgl_algo_param_add(&a, "cross", FGL_PARAM_INT, 160, "generated vectors sent for cross-client matching per round");
    fgl_algo_upload(&a, "gen", FGL_SEND_DATA, fgl_algo_param_dim(&a, "cross"), FGL_DIM_INPUT, raw);
    fgl_algo_upload(&a, "back", FGL_SEND_DATA, fgl_algo_param_dim(&a, "cross"), FGL_DIM_INPUT, raw);
    fgl_algo_download(&a, "cross_gen", FGL_SEND_DATA, fgl_algo_param_dim(&a, "cross"), FGL_DIM_INPUT,
                      FGL_PART_OPTIONAL, NULL);
    fgl_algo_download(&a, "cross_back", FGL_SEND_DATA, fgl_algo_param_dim(&a, "cross"), FGL_DIM_INPUT,
                      FGL_PART_OPTIONAL, NULL);
    a.prepare_spec = fgl__fs_check;
    a.client_init = fgl__fs_client_init;
    a.local_train = fgl__fs_train;
    a.upload = fgl__fs_upload;
    a.server_init = fgl__fs_server_init;
    a.aggregate = fgl__fs_aggregate;
    a.download = fgl__fs_download;
    a.report = fgl__fs_report;
    return a;
}
/* --- src/fed/algos/adafgl.h --- */
/* --- AdaFGL (Li et al., ICDE 2024) --------------------------------------------------- */
/* Two steps over one run (docs/algorithms.md, AdaFGL).
 * Step 1, federated knowledge extraction: every round is FedAvg (the
 * messages and server of fgl__avg_base: up 4 (n + 1), down 4 n bytes), plus
 * a 1-float download "done" (the aggregations done), so that a client
 * knows which download is the last.
 * Step 2, adaptive personalised propagation, local, nothing sent: when a
 * client receives the download made after the run's last aggregation (the
 * federated knowledge extractor), its receive hook
 *   - takes the soft labels P = softmax(f_global(X, A)) of its nodes;
 *   - estimates its homophily delta: label propagation (lp_steps steps,
 *     F <- lp_alpha A_gcn F + (1 - lp_alpha) F0, the seeds re-added) from a
 *     random half of its training nodes, delta = accuracy on the other half;
 *   - builds the optimised propagation matrix
 *     A* = D^-1/2 (alpha A + (1 - alpha) S + I) D^-1/2 (S: fgl__adafgl_propagation)
 *     and the smoothed features Xs = [X, A* X, ..., A*^K X] (K = prop_steps);
 *   - trains, for `epochs` full-batch Adam steps, the homophilous module
 *     (a 2-layer MLP on Xs: CE on the training nodes + MSE to P) and the
 *     heterophilous one (3-layer MLPs on X and on Xs, each with CE, and the
 *     learnable propagation: E = MLP(Xs); R = beta S + (1 - beta) cos(softmax E)
 *     without its diagonal, rescaled around its mean to [-1, 1], plus I;
 *     out = (softmax(prelu(R) E) - softmax(prelu(-R) E) + E) / 2, with CE);
 *   - keeps the prediction of the epoch with the best validation accuracy,
 *       delta (softmax(z_homo) + P) / 2 + (1 - delta) (softmax(z_x) + softmax(z_s) + softmax(out)) / 3,
 *     in its store ("pred", checkpointed), which eval_scores returns.
 * Before that download a client evaluates the global model (FedAvg's). The
 * step-2 models live only inside the hook; what lasts is the prediction. */

/* Softmax of a row into out. */
static void fgl__ada_softmax_row(const float *z, int C, float *out) {
    int k;
    double m = z[0], s = 0;
    for (k = 1; k < C; k++) m = z[k] > m ? z[k] : m;
    for (k = 0; k < C; k++) s += exp((double)z[k] - m);
    for (k = 0; k < C; k++) out[k] = (float)(exp((double)z[k] - m) / s);
}

FGL__PRIVATE void fgl__adafgl_propagation(const fgl_csr *adj, const float *P, int n, int C, float alpha, float sim,
                                          float *out) {
    size_t N = (size_t)n;
    int i, j, e, k;
    float *q = (float *)FGL_MALLOC(sizeof(float) * (size_t)FGL__MAX(n * C, 1));
    double *deg = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(n, 1));
    memset(out, 0, sizeof(float) * N * N);
    if (!q || !deg) {
        FGL_FREE(q);
        FGL_FREE(deg);
        return;
    }
    for (i = 0; i < n; i++) { /* softmax(P_i), unit length */
        double s = 0;
        fgl__ada_softmax_row(P + (size_t)i * C, C, q + (size_t)i * C);
        for (k = 0; k < C; k++) s += (double)q[(size_t)i * C + k] * q[(size_t)i * C + k];
        s = s > 0 ? 1 / sqrt(s) : 0;
        for (k = 0; k < C; k++) q[(size_t)i * C + k] = (float)(q[(size_t)i * C + k] * s);
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            double d = 0;
            if (i == j) continue;
            for (k = 0; k < C; k++) d += (double)q[(size_t)i * C + k] * q[(size_t)j * C + k];
            if (d > sim) out[(size_t)i * N + j] = 1 - alpha;
        }
    for (i = 0; i < n; i++)
        for (e = adj->indptr[i]; e < adj->indptr[i + 1]; e++)
            if (adj->indices[e] != i) out[(size_t)i * N + adj->indices[e]] += alpha;
    for (i = 0; i < n; i++) {
        double s = 1; /* the self loop */
        out[(size_t)i * N + i] += 1;
        for (j = 0; j < n; j++) s += j == i ? 0 : out[(size_t)i * N + j];
        deg[i] = 1 / sqrt(s);
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) out[(size_t)i * N + j] = (float)(out[(size_t)i * N + j] * deg[i] * deg[j]);
    FGL_FREE(q);
    FGL_FREE(deg);
}

FGL__PRIVATE double fgl__adafgl_lp(const fgl_csr *adj_gcn, const int *y, int C, const int *lab, int n_lab,
                                   const int *eval, int n_eval, float a, int steps, float *work) {
    int n = adj_gcn->rows, i, k, s, e, hit = 0;
    float *f0 = work, *f = work + (size_t)n * C, *g = work + (size_t)2 * n * C;
    if (n_eval <= 0) return 0.5; /* nothing to judge by: no preference */
    for (i = 0; i < n * C; i++) f0[i] = 1.0f / (float)C;
    for (i = 0; i < n_lab; i++) {
        for (k = 0; k < C; k++) f0[(size_t)lab[i] * C + k] = 0;
        f0[(size_t)lab[i] * C + y[lab[i]]] = 1;
    }
    memcpy(f, f0, sizeof(float) * (size_t)n * C);
    for (s = 0; s < steps; s++) {
        for (i = 0; i < n; i++) {
            float *gi = g + (size_t)i * C;
            for (k = 0; k < C; k++) gi[k] = 0;
            for (e = adj_gcn->indptr[i]; e < adj_gcn->indptr[i + 1]; e++) {
                const float *fj = f + (size_t)adj_gcn->indices[e] * C;
                float w = adj_gcn->values[e];
                for (k = 0; k < C; k++) gi[k] += w * fj[k];
            }
            for (k = 0; k < C; k++) gi[k] = a * gi[k] + (1 - a) * f0[(size_t)i * C + k];
        }
        for (i = 0; i < n_lab; i++) /* the seeds are added again */
            for (k = 0; k < C; k++) g[(size_t)lab[i] * C + k] += f0[(size_t)lab[i] * C + k];
        memcpy(f, g, sizeof(float) * (size_t)n * C);
    }
    for (i = 0; i < n_eval; i++) {
        const float *r = f + (size_t)eval[i] * C;
        int best = 0;
        for (k = 1; k < C; k++)
            if (r[k] > r[best]) best = k;
        hit += best == y[eval[i]];
    }
    return (double)hit / n_eval;
}

static int fgl__ada_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    if (spec->task != FGL_TASK_NODE) return fgl_error_set(err, FGL_ERR_ARG, "adafgl: node classification only");
    if (fgl_get(set, "prop_steps") < 0 || fgl_get(set, "prop_steps") > 16 || fgl_get(set, "hidden") < 1 ||
        fgl_get(set, "epochs") < 0 || fgl_get(set, "lp_steps") < 0 || fgl_get(set, "alpha") < 0 ||
        fgl_get(set, "alpha") > 1 || fgl_get(set, "beta") < 0 || fgl_get(set, "beta") > 1 ||
        fgl_get(set, "max_nodes") < 1)
        return fgl_error_set(err, FGL_ERR_RANGE, "adafgl: prop_steps in 0..16, hidden >= 1, epochs >= 0, lp_steps >= "
                             "0, alpha and beta in [0, 1], max_nodes >= 1");
    return FGL_OK;
}

static int fgl__ada_server_init(fgl_server *s) {
    if (!fgl_new_floats(&s->store, "done", 1)) return FGL_ERR_NOMEM;
    return fgl__avg_server_init(s);
}

static int fgl__ada_aggregate(fgl_server *s) {
    int rc = fgl__avg_aggregate(s);
    fgl_floats(&s->store, "done")[0] += 1;
    return rc;
}

static int fgl__ada_client_init(fgl_client *c) {
    size_t n = c->data.node ? (size_t)c->data.node->n_nodes : 0;
    fgl_new_ints(&c->store, "state", 1); /* 1: step 2 done, "pred" holds the prediction */
    fgl_new_floats(&c->store, "pred", FGL__MAX(n, 1) * (size_t)c->model.spec.out_dim);
    fgl_new_floats(&c->store, "delta", 1);
    return c->store.err;
}

static const float *fgl__ada_scores(fgl_client *c) {
    return fgl_ints(&c->store, "state")[0] ? fgl_floats(&c->store, "pred") : NULL;
}

/* The accuracy of scores (n x C) on the nodes of mask with a label. */
static double fgl__ada_acc(const float *sc, int n, int C, const int *y, const unsigned char *mask) {
    int i, k, hit = 0, count = 0;
    for (i = 0; i < n; i++) {
        const float *r = sc + (size_t)i * C;
        int best = 0;
        if (!mask[i] || y[i] < 0) continue;
        for (k = 1; k < C; k++)
            if (r[k] > r[best]) best = k;
        hit += best == y[i];
        count++;
    }
    return count ? (double)hit / count : 0;
}

/* The learnable heterophilous propagation on the tape: E (n x C) and the
 * fixed S (n x n, 0/1). */
static fgl_node *fgl__ada_hete_prop(fgl_tape *t, fgl_node *E, const float *S, float beta) {
    int n = E->rows;
    size_t N = (size_t)n * (size_t)n, i;
    fgl_node *u = fgl_op_l2_normalize_rows(t, fgl_op_softmax(t, E), 1e-9f), *R, *pos, *neg, *pp, *pn;
    float *w = (float *)fgl_tape_alloc(t, sizeof(float) * FGL__MAX(N, 1)),
          *b = (float *)fgl_tape_alloc(t, sizeof(float) * FGL__MAX(N, 1));
    double mean = 0, mx = -1e30;
    if (!u || !w || !b) return NULL;
    for (i = 0; i < N; i++) { /* no diagonal: cos(softmax E) off it, beta S */
        int diag = (int)(i / (size_t)n) == (int)(i % (size_t)n);
        w[i] = diag ? 0 : 1 - beta;
        b[i] = diag ? 0 : beta * S[i];
    }
    R = fgl_op_add(t, fgl_op_mul(t, fgl_op_matmul_ex(t, u, 0, u, 1), fgl_op_const(t, w, n, n)), fgl_op_const(t, b, n, n));
    if (!R) return NULL;
    for (i = 0; i < N; i++) {
        mean += R->val[i];
        mx = R->val[i] > mx ? R->val[i] : mx;
    }
    mean /= (double)N;
    /* rescaled around the mean m (the scale held fixed): above it
     * (r - m) / (max - m) in (0, 1], below it -r / m in [-1, 0]; then + I */
    for (i = 0; i < N; i++) {
        int diag = (int)(i / (size_t)n) == (int)(i % (size_t)n);
        if (R->val[i] > mean) {
            w[i] = mx > mean ? (float)(1 / (mx - mean)) : 0;
            b[i] = -(float)mean * w[i];
        } else {
            w[i] = mean > 0 ? -(float)(1 / mean) : 0;
            b[i] = 0;
        }
        b[i] += diag ? 1.0f : 0.0f;
    }
    R = fgl_op_add(t, fgl_op_mul(t, R, fgl_op_const(t, w, n, n)), fgl_op_const(t, b, n, n));
    pos = fgl_op_leaky_relu(t, R, 0.25f);
    neg = fgl_op_leaky_relu(t, fgl_op_scale(t, R, -1), 0.25f);
    pp = fgl_op_softmax(t, fgl_op_matmul(t, pos, E));
    pn = fgl_op_softmax(t, fgl_op_matmul(t, neg, E));
    return fgl_op_scale(t, fgl_op_add(t, fgl_op_sub(t, pp, pn), E), 0.5f);
}

enum { FGL__ADA_HOMO, FGL__ADA_X, FGL__ADA_S, FGL__ADA_P, FGL__ADA_N };

/* Step 2 on client c, whose model is the federated knowledge extractor. */
static int fgl__ada_personalise(fgl_client *c) {
    fgl_node_data *nd = c->data.node;
    int n = nd->n_nodes, F = nd->n_feat, C = c->model.spec.out_dim, K = (int)fgl_get(c->set, "prop_steps");
    int H = (int)fgl_get(c->set, "hidden"), epochs = (int)fgl_get(c->set, "epochs"), i, k, m, e, rc = FGL_OK;
    float alpha = (float)fgl_get(c->set, "alpha"), beta = (float)fgl_get(c->set, "beta");
    const unsigned char *train = c->data.mask[FGL_SPLIT_TRAIN], *val = c->data.mask[FGL_SPLIT_VAL];
    size_t N = (size_t)n * (size_t)n, nF = (size_t)n * (size_t)F;
    float *P = NULL, *S = NULL, *A = NULL, *xs = NULL, *work = NULL, *pred = fgl_floats(&c->store, "pred"), *tmp;
    int *lab = NULL, n_lab = 0, built = 0;
    double delta, best = -1;
    fgl_model mod[FGL__ADA_N];
    fgl_optim opt[FGL__ADA_N];
    fgl_gnn_graph gs;
    fgl_csr own_gcn; /* D^-1/2 (A+I) D^-1/2 when the backbone does not read it (SAGE, GIN, GAT, MLP) */
    const fgl_csr *gcn = c->data.full.adj_gcn;
    fgl_tape t;
    fgl_rng r;
    fgl_error err;
    fgl_forward fw;
    memset(&own_gcn, 0, sizeof own_gcn);
    memset(mod, 0, sizeof mod);
    memset(opt, 0, sizeof opt);
    memset(&gs, 0, sizeof gs);
    memset(&err, 0, sizeof err);
    fgl_tape_init(&t);
    if (n > (int)fgl_get(c->set, "max_nodes"))
        return fgl_client_fail(c, FGL_ERR_RANGE, "adafgl: %d nodes, above max_nodes = %g (step 2 holds n x n matrices)",
                               n, fgl_get(c->set, "max_nodes"));
    P = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX((size_t)n * C, 1));
    S = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(N, 1));
    A = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(N, 1));
    xs = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(nF * (size_t)(K + 1), 1));
    work = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX((size_t)3 * n * C, 1));
    lab = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(n, 1));
    /* the homophily estimate propagates labels over the GCN-normalised graph, whatever the backbone */
    if (!gcn && fgl_gcn_norm(c->data.full.adj, &own_gcn) == FGL_OK) gcn = &own_gcn;
    if (!P || !S || !A || !xs || !work || !lab || !gcn) {
        rc = fgl_client_fail(c, FGL_ERR_NOMEM, "adafgl: out of memory for step 2 (%d nodes)", n);
        goto done;
    }
    /* the soft labels of the federated knowledge extractor */
    if (fgl_model_forward(&c->model, &t, &c->data.full, 0, NULL, &fw) || !fw.logits) {
        rc = fgl_client_fail(c, t.err ? t.err : FGL_ERR_ARG, "adafgl: soft labels: %s", t.msg);
        goto done;
    }
    for (i = 0; i < n; i++) fgl__ada_softmax_row(fw.logits->val + (size_t)i * C, C, P + (size_t)i * C);
    /* the homophily estimate: half of the labelled training nodes propagate, the other half judges */
    for (i = 0; i < n; i++)
        if (train[i] && nd->y[i] >= 0 && nd->y[i] < C) lab[n_lab++] = i;
    fgl_rng_init(&r, c->fed->seed * 1000003u + 0xada5eedu, (uint64_t)c->id);
    fgl_rng_shuffle(&r, lab, n_lab);
    delta = fgl__adafgl_lp(gcn, nd->y, C, lab, n_lab / 2, lab + n_lab / 2, n_lab - n_lab / 2,
                           (float)fgl_get(c->set, "lp_alpha"), (int)fgl_get(c->set, "lp_steps"), work);
    fgl_floats(&c->store, "delta")[0] = (float)delta;
    /* the optimised propagation matrix and the smoothed features [X, A* X, ..., A*^K X] */
    fgl__adafgl_propagation(c->data.full.adj, P, n, C, alpha, (float)fgl_get(c->set, "sim"), A);
    for (i = 0; i < n; i++) /* S alone: the off-diagonal entries above the threshold */
        for (m = 0; m < n; m++) S[(size_t)i * n + m] = 0;
    {
        float *q = work; /* softmax(P), unit rows: S as fgl__adafgl_propagation draws it */
        for (i = 0; i < n; i++) {
            double s = 0;
            fgl__ada_softmax_row(P + (size_t)i * C, C, q + (size_t)i * C);
            for (k = 0; k < C; k++) s += (double)q[(size_t)i * C + k] * q[(size_t)i * C + k];
            for (k = 0; k < C; k++) q[(size_t)i * C + k] = (float)(q[(size_t)i * C + k] / sqrt(s));
        }
        for (i = 0; i < n; i++)
            for (m = 0; m < n; m++) {
                double d = 0;
                if (i == m) continue;
                for (k = 0; k < C; k++) d += (double)q[(size_t)i * C + k] * q[(size_t)m * C + k];
                S[(size_t)i * n + m] = d > fgl_get(c->set, "sim") ? 1.0f : 0.0f;
            }
    }
    tmp = xs; /* block 0: X, dense, row-major n x F; then hop k at block k (rows of (K+1) F) */
    for (i = 0; i < n; i++) {
        float *row = tmp + (size_t)i * (size_t)(K + 1) * F;
        memset(row, 0, sizeof(float) * (size_t)F);
        if (nd->x.data) memcpy(row, nd->x.data + (size_t)i * F, sizeof(float) * (size_t)F);
        else
            for (e = nd->x_sparse.indptr[i]; e < nd->x_sparse.indptr[i + 1]; e++)
                row[nd->x_sparse.indices[e]] = nd->x_sparse.values ? nd->x_sparse.values[e] : 1.0f;
    }
    for (k = 1; k <= K; k++)
        for (i = 0; i < n; i++) {
            float *out = xs + (size_t)i * (size_t)(K + 1) * F + (size_t)k * F;
            int f;
            memset(out, 0, sizeof(float) * (size_t)F);
            for (m = 0; m < n; m++) {
                const float *in = xs + (size_t)m * (size_t)(K + 1) * F + (size_t)(k - 1) * F;
                float w = A[(size_t)i * n + m];
                if (w == 0) continue;
                for (f = 0; f < F; f++) out[f] += w * in[f];
            }
        }
    /* the modules: MLPs (ReLU, dropout 0.5, no head), one Adam each */
    for (m = 0; m < FGL__ADA_N; m++) {
        fgl_model_spec sp = fgl_model_spec_default(FGL_ARCH_MLP, FGL_TASK_NODE, m == FGL__ADA_X ? F : (K + 1) * F, C);
        fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
        sp.hidden = H;
        sp.layers = m == FGL__ADA_HOMO ? 2 : 3;
        sp.head = FGL_HEAD_NONE;
        sp.dropout = 0.5f;
        sp.input_dropout = 0;
        oc.lr = (float)fgl_get(c->set, "lr");
        oc.weight_decay = (float)fgl_get(c->set, "weight_decay");
        if ((rc = fgl_model_init(&mod[m], &sp, c->fed->seed * 1000003u + 0xada0u + (uint64_t)(c->id * 8 + m), &err)) ||
            (rc = fgl_optim_init(&opt[m], oc, &mod[m].params))) {
            rc = fgl_client_fail(c, rc, "adafgl: step-2 module: %s", err.msg);
            goto done;
        }
    }
    if ((rc = fgl_gnn_graph_make(&gs, c->data.full.adj, c->data.full.adj_gcn, xs, NULL, (K + 1) * F, NULL, 0, NULL, 0,
                                 &mod[FGL__ADA_S].spec, &err))) {
        rc = fgl_client_fail(c, rc, "adafgl: smoothed features: %s", err.msg);
        goto done;
    }
    built = 1;
    fgl_rng_init(&r, c->fed->seed * 1000003u + 0xada7a1u, (uint64_t)c->id);
    for (e = 0; e <= epochs; e++) {
        int tr = e < epochs; /* the last pass only evaluates the last step */
        fgl_node *z[FGL__ADA_N], *out, *loss;
        fgl_forward f;
        double acc;
        fgl_tape_reset(&t);
        for (m = 0; m < FGL__ADA_N; m++) {
            if (fgl_model_forward(&mod[m], &t, m == FGL__ADA_X ? &c->data.full : &gs, 0, NULL, &f)) break;
            z[m] = f.logits;
        }
        out = m == FGL__ADA_N ? fgl__ada_hete_prop(&t, z[FGL__ADA_P], S, beta) : NULL;
        if (!out || t.err) {
            rc = fgl_client_fail(c, t.err ? t.err : FGL_ERR_ARG, "adafgl: step 2: %s", t.msg);
            goto done;
        }
        { /* the evaluation-mode prediction of the parameters as they are */
            float *p1 = work, *p2 = work + C;
            float *cand = work + (size_t)2 * C; /* n x C fits in work's 3 n C */
            double d = delta;
            for (i = 0; i < n; i++) {
                float *ci = cand + (size_t)i * C;
                fgl__ada_softmax_row(z[FGL__ADA_HOMO]->val + (size_t)i * C, C, p1);
                for (k = 0; k < C; k++) ci[k] = (float)(d * (p1[k] + P[(size_t)i * C + k]) / 2);
                fgl__ada_softmax_row(z[FGL__ADA_X]->val + (size_t)i * C, C, p1);
                fgl__ada_softmax_row(z[FGL__ADA_S]->val + (size_t)i * C, C, p2);
                for (k = 0; k < C; k++) ci[k] += (float)((1 - d) * (p1[k] + p2[k]) / 3);
                fgl__ada_softmax_row(out->val + (size_t)i * C, C, p1);
                for (k = 0; k < C; k++) ci[k] += (float)((1 - d) * p1[k] / 3);
            }
            acc = fgl__ada_acc(cand, n, C, nd->y, val);
            if (acc > best) {
                best = acc;
                memmove(pred, cand, sizeof(float) * (size_t)n * C);
            }
        }
        if (!tr) break;
        /* one training step: the forward pass again with dropout */
        fgl_tape_reset(&t);
        for (m = 0; m < FGL__ADA_N; m++) {
            fgl_params_defer_zero_grad(&mod[m].params);
            if (fgl_model_forward(&mod[m], &t, m == FGL__ADA_X ? &c->data.full : &gs, 1, &r, &f)) break;
            z[m] = f.logits;
        }
        out = m == FGL__ADA_N ? fgl__ada_hete_prop(&t, z[FGL__ADA_P], S, beta) : NULL;
        loss = out ? fgl_op_add(&t, fgl_op_cross_entropy(&t, z[FGL__ADA_HOMO], nd->y, train),
                                fgl_op_mse(&t, z[FGL__ADA_HOMO], fgl_op_const(&t, P, n, C)))
                   : NULL;
        if (loss) loss = fgl_op_add(&t, loss, fgl_op_cross_entropy(&t, z[FGL__ADA_X], nd->y, train));
        if (loss) loss = fgl_op_add(&t, loss, fgl_op_cross_entropy(&t, z[FGL__ADA_S], nd->y, train));
        if (loss) loss = fgl_op_add(&t, loss, fgl_op_cross_entropy(&t, out, nd->y, train));
        if (!loss || fgl_tape_backward(&t, loss)) {
            rc = fgl_client_fail(c, t.err ? t.err : FGL_ERR_ARG, "adafgl: step 2: %s", t.msg);
            goto done;
        }
        for (m = 0; m < FGL__ADA_N; m++) fgl_optim_step(&opt[m], &mod[m].params);
    }
    fgl_ints(&c->store, "state")[0] = 1;
done:
    if (built) fgl_gnn_graph_free(&gs);
    for (m = 0; m < FGL__ADA_N; m++) {
        fgl_optim_free(&opt[m]);
        if (mod[m].params.n) fgl_model_free(&mod[m]);
    }
    fgl_tape_free(&t);
    fgl_csr_free(&own_gcn);
    FGL_FREE(P);
    FGL_FREE(S);
    FGL_FREE(A);
    FGL_FREE(xs);
    FGL_FREE(work);
    FGL_FREE(lab);
    return rc;
}

/* The last round is step 2: the download before it carries rounds - 1
 * aggregations (the extractor); the model stays as received. */
static int fgl__ada_train(fgl_client *c) {
    const float *done = fgl_down(c, "done");
    if (done && (int)done[0] >= c->fed->rounds - 1) {
        c->train_loss = 0; /* the global model does not train (the loss a resumed client would not have) */
        return fgl_ints(&c->store, "state")[0] ? FGL_OK : fgl__ada_personalise(c);
    }
    return fgl_client_train(c, &c->model, &c->optim, NULL);
}

static fgl_algo fgl__adafgl(void) {
    fgl_algo a = fgl__avg_base("adafgl",
                               "Li et al. 2024: FedAvg knowledge extractor, then local adaptive personalised "
                               "propagation (homophilous and heterophilous modules mixed by a homophily estimate)",
                               FGL_G_ALL, "parameter groups of the global model (step 1: averaged)");
    fgl_algo_param_add(&a, "alpha", FGL_PARAM_FLOAT, 0.05, "weight of the local graph in alpha A + (1 - alpha) S");
    fgl_algo_param_add(&a, "beta", FGL_PARAM_FLOAT, 0.2, "weight of S in the learnable heterophilous propagation");
    fgl_algo_param_add(&a, "prop_steps", FGL_PARAM_INT, 3, "propagation steps K of the smoothed features");
    fgl_algo_param_add(&a, "sim", FGL_PARAM_FLOAT, 0.999, "cosine threshold of the soft-label similarity graph S");
    fgl_algo_param_add(&a, "lp_alpha", FGL_PARAM_FLOAT, 0.5, "label propagation's weight of the neighbours");
    fgl_algo_param_add(&a, "lp_steps", FGL_PARAM_INT, 10, "label propagation steps (homophily estimate)");
    fgl_algo_param_add(&a, "hidden", FGL_PARAM_INT, 64, "hidden width of the step-2 modules");
    fgl_algo_param_add(&a, "epochs", FGL_PARAM_INT, 200, "step-2 training steps (full batch)");
    fgl_algo_param_add(&a, "lr", FGL_PARAM_FLOAT, 0.01, "step-2 Adam learning rate");
    fgl_algo_param_add(&a, "weight_decay", FGL_PARAM_FLOAT, 5e-4, "step-2 Adam weight decay");
    fgl_algo_param_add(&a, "max_nodes", FGL_PARAM_INT, 4096, "largest client for step 2 (it holds n x n matrices)");
    fgl_algo_download(&a, "done", FGL_SEND_DATA, 1, 1, 0, "done");
    a.prepare_spec = fgl__ada_spec;
    a.server_init = fgl__ada_server_init;
    a.aggregate = fgl__ada_aggregate;
    a.client_init = fgl__ada_client_init;
    a.local_train = fgl__ada_train;
    a.eval_scores = fgl__ada_scores;
    return a;
}
/* --- src/fed/algos/fedgta.h --- */
/* --- FedGTA (Li et al., VLDB 2024) ------------------------------------------------- */
/* "FedGTA: Topology-aware Averaging for Federated Graph Learning". After
 * local training each client runs its model once over its whole subgraph
 * (evaluation mode) and smooths the predictions by K steps of
 * non-parametric label propagation:
 *     F0 = one-hot labels on the training nodes, softmax(logits) elsewhere,
 *     F <- alpha A_hat F + (1 - alpha) F0, then F0 added again on the
 *          training rows (each step),
 *     A_hat = D^-1/2 (A + I) D^-1/2,
 *     P = softmax(F), Q = softmax(F / T), both one-hot on the training rows.
 * It uploads, besides its weights:
 *   "raw"     m x C: the raw moments mean_v P_vc^p, p = 1..m, per class c;
 *   "central" m x C: the central moments mean_v (P_vc - mean_u P_uc)^p;
 *             (moment_type: raw, central, or hybrid = both: the "mixed
 *             moments"; the part not used is left out of the upload);
 *   "conf"    1: the topology-aware local smoothing confidence
 *             sum_v deg_v (C/e - H(Q_v)), H the entropy (each term >= 0,
 *             as -q log q <= 1/e): confident, well-connected subgraphs
 *             weigh more.
 * The server compares every two accepted clients' moment vectors (raw then
 * central, concatenated) by cosine; client i's row mixes the clients j with
 * cos(v_i, v_j) > threshold (i itself always) by their confidences:
 *     theta_i = sum_j conf_j theta_j / sum_j conf_j,
 * a personalised model sent back to i alone (all confidences zero: equal
 * weights). Clients whose upload is missing keep their last row; before the
 * first aggregation every row is the common initial model. The mixing goes
 * through fgl_server_mix, so the run's robust rule acts on each row; under a
 * rule other than the mean the confidences, which a client states
 * unchecked and unbounded, do not weigh the rows (every selected client
 * alike, as the rules are published), the moments still select. The moments
 * and confidence only steer weights (not FGL_PART_RAW); mixes = 1: DP and
 * secure aggregation are refused at the start. Node classification only.
 * Defaults: the authors' code for Cora (K = 5, alpha = 0.5, T = 20, hybrid
 * moments of order 6, threshold 0.5). Sent: up 4 (n + 2 m C + 1) bytes
 * (hybrid), down 4 n. docs/algorithms.md, "FedGTA", says where the paper, the
 * authors' code and OpenFGL differ. */

enum { FGL__GTA_RAW, FGL__GTA_CENTRAL, FGL__GTA_HYBRID };

/* A client's statistics. adj: its graph (the graph contract: no self loop,
 * symmetric), N = adj->rows nodes; logits N x C; y and train (NULL: none)
 * per node; moments and confidence over rows 0..n_rows-1 (a halo's rows
 * propagate but do not count). raw and central (m x width, width >= C, the
 * columns from C on zero; either may be NULL) and *conf are written. */
FGL__PRIVATE int fgl__gta_stats(const fgl_csr *adj, int n_rows, const float *logits, int C, const int *y,
                                const unsigned char *train, int steps, double alpha, double temp, int m, int width,
                                float *raw, float *central, double *conf) {
    int N = adj->rows, v, k, t, p, c;
    size_t NC = (size_t)N * (size_t)C;
    double *f0 = (double *)FGL_MALLOC(sizeof(double) * FGL__MAX(NC, 1));
    double *f = (double *)FGL_MALLOC(sizeof(double) * FGL__MAX(NC, 1));
    double *g = (double *)FGL_MALLOC(sizeof(double) * FGL__MAX(NC, 1));
    double *dinv = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(N, 1));
    double *mean = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(C, 1));
    double *sums = (double *)FGL_MALLOC(sizeof(double) * 2 * (size_t)FGL__MAX(m, 1));
    double total = 0;
    int rc = FGL_OK;
    if (!f0 || !f || !g || !dinv || !mean || !sums) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    if (C < 1 || width < C || n_rows > N || n_rows < 0 || m < 1) {
        rc = FGL_ERR_ARG;
        goto done;
    }
#define FGL__GTA_LABELLED(v) (train && train[v] && y && y[v] >= 0 && y[v] < C)
    for (v = 0; v < N; v++) { /* F0: labels where known for training, the model's softmax elsewhere */
        double *r = f0 + (size_t)v * C, mx = -HUGE_VAL, s = 0;
        const float *l = logits + (size_t)v * C;
        dinv[v] = 1.0 / sqrt((double)(adj->indptr[v + 1] - adj->indptr[v]) + 1.0);
        if (FGL__GTA_LABELLED(v)) {
            for (c = 0; c < C; c++) r[c] = c == y[v];
            continue;
        }
        for (c = 0; c < C; c++) mx = l[c] > mx ? l[c] : mx;
        for (c = 0; c < C; c++) s += (r[c] = exp(l[c] - mx));
        for (c = 0; c < C; c++) r[c] /= s;
    }
    memcpy(f, f0, sizeof(double) * NC);
    for (t = 0; t < steps; t++) {
        for (v = 0; v < N; v++) {
            double *o = g + (size_t)v * C;
            const double *fv = f + (size_t)v * C, *r0 = f0 + (size_t)v * C;
            for (c = 0; c < C; c++) o[c] = dinv[v] * fv[c]; /* the self loop */
            for (k = adj->indptr[v]; k < adj->indptr[v + 1]; k++) {
                int u = adj->indices[k];
                const double *fu = f + (size_t)u * C;
                for (c = 0; c < C; c++) o[c] += dinv[u] * fu[c];
            }
            for (c = 0; c < C; c++) {
                o[c] = alpha * dinv[v] * o[c] + (1 - alpha) * r0[c];
                if (FGL__GTA_LABELLED(v)) o[c] += r0[c]; /* the authors' code adds the labels again */
            }
        }
        { double *sw = f; f = g; g = sw; }
    }
    /* P = softmax(F) into f, Q = softmax(F / T) into g; training rows one-hot; the confidence from Q */
    for (v = 0; v < N; v++) {
        double *pr = f + (size_t)v * C, *q = g + (size_t)v * C, mx = -HUGE_VAL, sp = 0, sq = 0, ent = 0;
        if (FGL__GTA_LABELLED(v)) {
            for (c = 0; c < C; c++) pr[c] = q[c] = c == y[v];
        } else {
            for (c = 0; c < C; c++) mx = pr[c] > mx ? pr[c] : mx;
            for (c = 0; c < C; c++) {
                q[c] = exp((pr[c] - mx) / temp);
                pr[c] = exp(pr[c] - mx);
                sp += pr[c];
                sq += q[c];
            }
            for (c = 0; c < C; c++) {
                pr[c] /= sp;
                q[c] /= sq;
            }
        }
        if (v >= n_rows) continue;
        for (c = 0; c < C; c++) ent += q[c] * log(q[c] + 1e-8);
        total += (double)(adj->indptr[v + 1] - adj->indptr[v]) * ((double)C * exp(-1.0) + ent);
    }
#undef FGL__GTA_LABELLED
    *conf = total;
    for (c = 0; c < C; c++) {
        double s = 0;
        for (v = 0; v < n_rows; v++) s += f[(size_t)v * C + c];
        mean[c] = n_rows ? s / n_rows : 0.0;
    }
    for (c = 0; c < width; c++) /* powers by repeated products, summed in double */
        for (p = 1; p <= m; p++) {
            if (raw) raw[(size_t)(p - 1) * width + c] = 0.0f;
            if (central) central[(size_t)(p - 1) * width + c] = 0.0f;
        }
    for (c = 0; c < C && n_rows > 0; c++) {
        double *sr = sums, *sc = sums + m;
        for (p = 0; p < 2 * m; p++) sr[p] = 0;
        for (v = 0; v < n_rows; v++) {
            double x = f[(size_t)v * C + c], xc = x - mean[c], pr = 1, pc = 1;
            for (p = 0; p < m; p++) {
                sr[p] += (pr *= x);
                sc[p] += (pc *= xc);
            }
        }
        for (p = 0; p < m; p++) {
            if (raw) raw[(size_t)p * width + c] = (float)(sr[p] / n_rows);
            if (central) central[(size_t)p * width + c] = (float)(sc[p] / n_rows);
        }
    }
done:
    FGL_FREE(f0);
    FGL_FREE(f);
    FGL_FREE(g);
    FGL_FREE(dinv);
    FGL_FREE(mean);
    FGL_FREE(sums);
    return rc;
}

static int fgl__gta_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    double alpha = fgl_get(set, "alpha"), temp = fgl_get(set, "temperature"), th = fgl_get(set, "threshold");
    if (spec->task != FGL_TASK_NODE)
        return fgl_error_set(err, FGL_ERR_ARG, "fedgta: node classification only (it propagates class "
                             "predictions over each client's subgraph)");
    if (fgl_get(set, "steps") < 0) return fgl_error_set(err, FGL_ERR_RANGE, "fedgta: steps must be >= 0");
    if (!(alpha >= 0 && alpha <= 1)) return fgl_error_set(err, FGL_ERR_RANGE, "fedgta: alpha %g not in [0, 1]", alpha);
    if (!(temp > 0)) return fgl_error_set(err, FGL_ERR_RANGE, "fedgta: temperature %g must be > 0", temp);
    if (!(th >= -1 && th <= 1)) return fgl_error_set(err, FGL_ERR_RANGE, "fedgta: threshold %g not in [-1, 1]", th);
    return FGL_OK;
}

static int fgl__gta_upload(fgl_client *c) {
    const fgl_node_data *d = c->data.node;
    int type = (int)fgl_get(c->set, "moment_type"), m = (int)fgl_get(c->set, "moments"), rc;
    int width = (int)fgl_client_dim(c, FGL_DIM_CLASSES), n_rows;
    float *raw = NULL, *central = NULL, *conf = fgl_up(c, "conf");
    double w = 0;
    fgl_forward fw;
    if (type == FGL__GTA_CENTRAL) fgl_up_drop(c, "raw");
    else if (!(raw = fgl_up(c, "raw"))) return FGL_ERR_NOMEM;
    if (type == FGL__GTA_RAW) fgl_up_drop(c, "central");
    else if (!(central = fgl_up(c, "central"))) return FGL_ERR_NOMEM;
    if (!conf) return FGL_ERR_NOMEM;
    if (!d) return fgl_client_fail(c, FGL_ERR_ARG, "fedgta: node classification only");
    fgl_tape_reset(&c->tape);
    if (fgl_model_forward(&c->model, &c->tape, &c->data.full, 0, NULL, &fw) || !fw.logits)
        return fgl_client_fail(c, c->tape.err ? c->tape.err : FGL_ERR_ARG, "fedgta: predictions: %s", c->tape.msg);
    if (fw.logits->rows != d->adj.rows || fw.logits->cols > width)
        return fgl_client_fail(c, FGL_ERR_SHAPE, "fedgta: %d x %d predictions for %d nodes and %d classes",
                               fw.logits->rows, fw.logits->cols, d->adj.rows, width);
    n_rows = d->gid && d->n_own > 0 ? d->n_own : d->adj.rows; /* a halo's rows propagate, but are not the client's */
    rc = fgl__gta_stats(&d->adj, n_rows, fw.logits->val, fw.logits->cols, d->y, c->data.mask[FGL_SPLIT_TRAIN],
                        (int)fgl_get(c->set, "steps"), fgl_get(c->set, "alpha"), fgl_get(c->set, "temperature"), m,
                        width, raw, central, &w);
    if (rc) return fgl_client_fail(c, rc, "fedgta: label propagation: %s", fgl_result_name(rc));
    conf[0] = (float)w;
    return FGL_OK;
}

/* The mixing weights (K x K, rows i with present[i]): row i puts
 * conf_j / sum conf on the present clients j with cos(mom_i, mom_j) > th
 * and on i itself (mom: K x dim), 1 / their number when equal or when
 * their confidences sum to 0; 0 elsewhere. sel: K bytes of scratch. */
FGL__PRIVATE void fgl__gta_weights(int K, size_t dim, const float *mom, const double *conf,
                                   const unsigned char *present, double th, int equal, double *w, unsigned char *sel) {
    int i, j;
    for (i = 0; i < K; i++) {
        double wsum = 0;
        int n_sel = 0;
        if (!present[i]) continue;
        for (j = 0; j < K; j++) {
            sel[j] = present[j] && (j == i || fgl_cosine(dim, mom + (size_t)i * dim, mom + (size_t)j * dim) > th);
            if (sel[j]) {
                n_sel++;
                wsum += conf[j];
            }
        }
        for (j = 0; j < K; j++)
            w[(size_t)i * K + j] = !sel[j] ? 0.0 : equal || !(wsum > 0) ? 1.0 / n_sel : conf[j] / wsum;
    }
}

static int fgl__gta_server_init(fgl_server *s) {
    size_t K = (size_t)s->n_clients, i;
    float *theta = fgl_new_floats(&s->store, "theta", K * s->n_shared);
    fgl_new_floats(&s->store, "W", K * K);
    if (s->store.err) return s->store.err;
    for (i = 0; i < K; i++) fgl_server_pack(s, s->init, theta + i * s->n_shared);
    return FGL_OK;
}

static int fgl__gta_aggregate(fgl_server *s) {
    int K = s->n_clients, type = (int)fgl_get(s->set, "moment_type"), i, j;
    size_t nr = type == FGL__GTA_CENTRAL ? 0 : fgl_server_up_size(s, "raw");
    size_t nc = type == FGL__GTA_RAW ? 0 : fgl_server_up_size(s, "central"), dim = nr + nc;
    int equal = s->fed->robust.rule != FGL_ROBUST_MEAN; /* confidences are claims: no weight under a rule */
    float *theta = fgl_floats(&s->store, "theta"), *W = fgl_floats(&s->store, "W");
    float *mom = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * FGL__MAX(dim, 1));
    double *conf = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K);
    double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * (size_t)K);
    unsigned char *rows = (unsigned char *)fgl_scratch(&s->store, (size_t)K),
                  *sel = (unsigned char *)fgl_scratch(&s->store, (size_t)K);
    if (!mom || !conf || !w || !rows || !sel) return FGL_ERR_NOMEM;
    if (s->n_accepted == 0) return FGL_OK; /* nothing accepted: everyone keeps their model */
    memset(w, 0, sizeof(double) * (size_t)K * (size_t)K);
    for (j = 0; j < K; j++) {
        const float *r = nr ? fgl_upload(s, j, "raw") : NULL, *ce = nc ? fgl_upload(s, j, "central") : NULL,
                    *cf = fgl_upload(s, j, "conf");
        if (!s->up[j]) continue;
        if ((nr && !r) || (nc && !ce) || !cf)
            return fgl_server_fail(s, FGL_ERR_ARG, "fedgta: client %d's upload lacks its moments (moment_type %d)",
                                   j, type);
        if (nr) memcpy(mom + (size_t)j * dim, r, sizeof(float) * nr);
        if (nc) memcpy(mom + (size_t)j * dim + nr, ce, sizeof(float) * nc);
        conf[j] = cf[0] > 0 ? cf[0] : 0.0; /* >= 0 in exact arithmetic */
    }
    for (i = 0; i < K; i++) rows[i] = s->up[i] != NULL;
    fgl__gta_weights(K, dim, mom, conf, rows, fgl_get(s->set, "threshold"), equal, w, sel);
    for (i = 0; i < K; i++)
        for (j = 0; rows[i] && j < K; j++) W[(size_t)i * K + j] = (float)w[(size_t)i * K + j];
    return fgl_server_mix(s, "theta", NULL, w, theta, rows);
}

static void fgl__gta_report(const fgl_observed *o, char *buf, size_t cap) {
    int K = o->n_clients, i, j, n = 0, rows = 0;
    float *W = (float *)FGL_MALLOC(sizeof(float) * (size_t)K * (size_t)K);
    if (!W) return;
    if (fgl_observed_matrix(o, "W", W) == FGL_OK) {
        for (i = 0; i < K; i++) {
            int r = 0;
            for (j = 0; j < K; j++) r += W[(size_t)i * K + j] > 0;
            n += r;
            rows += r > 0;
        }
        if (rows) snprintf(buf, cap, "\"mean_clients_mixed\": %.4f", (double)n / rows);
    }
    FGL_FREE(W);
}

static int fgl__gta_matrix(const fgl_observed *o, float *out) { return fgl_observed_matrix(o, "W", out); }

static fgl_algo fgl__fedgta(void) {
    fgl_algo a = fgl_algo_new("fedgta", "Li et al. 2024: personalised averages over clients with similar moments "
                                        "of label-propagated predictions, weighted by smoothing confidence");
    int m;
    fgl_algo_param_add(&a, "share", FGL_PARAM_GROUPS, (double)FGL_G_ALL, "parameter groups mixed");
    fgl_algo_param_add(&a, "steps", FGL_PARAM_INT, 5, "label propagation steps K (lp_prop)");
    fgl_algo_param_add(&a, "alpha", FGL_PARAM_FLOAT, 0.5, "label propagation: weight of the propagated labels");
    fgl_algo_param_add(&a, "temperature", FGL_PARAM_FLOAT, 20, "softmax temperature of the confidence's labels");
    fgl_algo_param_add(&a, "moments", FGL_PARAM_INT, 6,
                       "moment orders 1..m (authors' Cora 6; their default 13, OpenFGL 10)");
    fgl_algo_param_add(&a, "moment_type", FGL_PARAM_INT, FGL__GTA_HYBRID,
                       "raw, central, or hybrid (both: the mixed moments)");
    fgl_algo_param_choices(&a, "moment_type", "raw|central|hybrid");
    fgl_algo_param_add(&a, "threshold", FGL_PARAM_FLOAT, 0.5,
                       "mix clients whose moments' cosine exceeds this (authors' Cora 0.5; default 0.65)");
    m = fgl_algo_param_dim(&a, "moments");
    fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, 0, 0, 0);
    fgl_algo_upload(&a, "raw", FGL_SEND_DATA, m, FGL_DIM_CLASSES, FGL_PART_OPTIONAL);
    fgl_algo_upload(&a, "central", FGL_SEND_DATA, m, FGL_DIM_CLASSES, FGL_PART_OPTIONAL);
    fgl_algo_upload(&a, "conf", FGL_SEND_DATA, 1, 1, 0);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, FGL_PART_ROW, "theta");
    a.prepare_spec = fgl__gta_spec;
    a.upload = fgl__gta_upload;
    a.server_init = fgl__gta_server_init;
    a.aggregate = fgl__gta_aggregate;
    a.report = fgl__gta_report;
    a.client_matrix = fgl__gta_matrix;
    a.mixes = 1;
    return a;
}
/* --- src/fed/algos/fgssl.h --- */
/* --- FGSSL (Huang, Wan, Ye and Du, IJCAI 2023) ------------------------------------- */
/* "Federated Graph Semantic and Structural Learning". FedAvg's messages and
 * server (up 4 (n + 1) bytes: the weights and the sample count, down 4 n),
 * with two terms added to the local cross-entropy that calibrate the local
 * model against the global model received this round (kept frozen, in
 * evaluation mode, on a scratch tape; its outputs enter as constants):
 *
 * Federated Node Semantic Contrast (FNSC), over the step's training nodes
 * i (those with a label), h the embeddings the classifier reads (fwd.rep),
 * m the local model, g the global one, s the cosine:
 *     L_FNSC = mean_i -log( sum_{p: y_p = y_i} e^{s(h_i^m, h_p^g)/tau}
 *                          / sum_k e^{s(h_i^m, h_k^g)/tau} ),
 * local nodes pulled to the global embeddings of their class (the node's
 * own among them), pushed from the other classes'.
 *
 * Federated Graph Structure Distillation (FGSD), over every node i with a
 * neighbour (the step's adjacency, before augmentation):
 *     D_i^x(j) = softmax_{j in N(i)} s(h_i^x, h_j^x) / omega,  x = m, g,
 *     L_FGSD = mean_i KL(D_i^g || D_i^m),
 * the global model's similarity distribution over each node's neighbours
 * distilled into the local model (not every neighbour pulled alike).
 *
 *     loss = CE + fnsc L_FNSC + fgsd L_FGSD.
 *
 * Asymmetric augmentation (paper and the authors' code): the global model
 * reads a weakly augmented graph (edges dropped with probability 0.3,
 * feature columns masked with 0.3), the local model's terms a strongly
 * augmented one (0.8, 0.5): one more training-mode forward of the local
 * model a step; the cross-entropy stays on the graph as given. An
 * undirected edge is dropped or kept as a whole (the adjacency stays
 * symmetric, as fgl's graphs are; the code drops directed entries), the
 * draws from the client's generator, so a run is as deterministic and
 * resumable as its dropout. augment = 0 runs both models on the graph as
 * given (the local terms then read the cross-entropy's forward).
 *
 * form = code replaces L_FGSD by the structural term the authors' node
 * trainer (and OpenFGL's port) adds: for every adjacency entry (u, v),
 *     KL( softmax(|o_u^g - o_v^g| / omega) || softmax(|o_u^m - o_v^m| / omega) )
 * over the classes, o the logits, averaged over the entries; the code adds
 * it at weight 0.1 and no contrast (--set form=code --set fnsc=0 --set
 * fgsd=0.1 is its loss).
 *
 * Defaults: tau = 0.1 (the code's InfoNCE), omega = 0.1 (the code's
 * structural temperature), weights 1 and 1 (the paper sums the terms; the
 * code's node trainer ends up adding only a differently built structural
 * term at weight 0.1, docs/algorithms.md "FGSSL" says where they differ).
 * Only FedAvg's weighted mean of the weights leaves a client: DP and secure
 * aggregation are covered as for FedAvg. Node classification only. */

/* L_FNSC. z: N x d (the local model's embeddings, differentiable), zg: N x d
 * (the global model's, constant), y and mask (NULL: every row) per row; rows
 * with a label in 0..C-1 count. NULL (no term) when none does. */
FGL__PRIVATE fgl_node *fgl__fgssl_fnsc(fgl_tape *t, fgl_node *z, const float *zg, const int *y,
                                       const unsigned char *mask, int C, float tau) {
    int N = z->rows, d = z->cols, n = 0, i, j, k;
    int *idx = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)FGL__MAX(N, 1));
    float *gn, *pos, *ones;
    fgl_node *a, *s, *r;
    if (!idx || !y) return NULL;
    for (i = 0; i < N; i++)
        if ((!mask || mask[i]) && y[i] >= 0 && y[i] < C) idx[n++] = i;
    if (n == 0) return NULL;
    gn = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n * (size_t)d);
    pos = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n * (size_t)n);
    ones = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n);
    if (!gn || !pos || !ones) return NULL;
    for (i = 0; i < n; i++) { /* the global rows at unit length, as fgl_op_l2_normalize_rows */
        const float *g = zg + (size_t)idx[i] * d;
        double q = 0;
        for (k = 0; k < d; k++) q += (double)g[k] * g[k];
        q = sqrt(q);
        if (q < 1e-12) q = 1e-12;
        for (k = 0; k < d; k++) gn[(size_t)i * d + k] = (float)(g[k] / q);
        for (j = 0; j < n; j++) pos[(size_t)i * n + j] = y[idx[i]] == y[idx[j]] ? 1.0f : 0.0f;
        ones[i] = 1.0f;
    }
    a = fgl_op_l2_normalize_rows(t, fgl_op_gather_rows(t, z, idx, n), 0);
    s = fgl_op_log_softmax(t, fgl_op_scale(t, fgl_op_matmul_ex(t, a, 0, fgl_op_const(t, gn, n, d), 1), 1.0f / tau));
    /* the probability mass on the positives, row by row: (e^{log p} * P) 1 */
    r = fgl_op_matmul(t, fgl_op_mul(t, fgl_op_exp(t, s), fgl_op_const(t, pos, n, n)), fgl_op_const(t, ones, n, 1));
    return fgl_op_scale(t, fgl_op_mean(t, fgl_op_log(t, r)), -1.0f);
}

/* L_FGSD. z, zg: N x d as above; adj: N x N, symmetric (its rows are the
 * neighbourhoods). NULL (no term) when no node has a neighbour. */
FGL__PRIVATE fgl_node *fgl__fgssl_fgsd(fgl_tape *t, fgl_node *z, const float *zg, const fgl_csr *adj, float omega) {
    int N = z->rows, d = z->cols, E, i, k, c, rows = 0;
    int *src, *dst;
    float *p, *gn;
    double plogp = 0;
    fgl_node *q;
    if (!adj || adj->rows != N || adj->nnz == 0) return NULL;
    E = adj->nnz;
    src = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)E);
    dst = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)E);
    p = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)E);
    gn = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)N * (size_t)d);
    if (!src || !dst || !p || !gn) return NULL;
    for (i = 0; i < N; i++) {
        const float *g = zg + (size_t)i * d;
        double qn = 0;
        for (c = 0; c < d; c++) qn += (double)g[c] * g[c];
        qn = sqrt(qn);
        if (qn < 1e-12) qn = 1e-12;
        for (c = 0; c < d; c++) gn[(size_t)i * d + c] = (float)(g[c] / qn);
    }
    for (i = 0; i < N; i++) { /* the teacher's distribution, in double */
        int b = adj->indptr[i], e = adj->indptr[i + 1];
        double mx = -HUGE_VAL, sum = 0;
        if (e == b) continue;
        rows++;
        for (k = b; k < e; k++) {
            double sc = 0;
            src[k] = i;
            dst[k] = adj->indices[k];
            for (c = 0; c < d; c++) sc += (double)gn[(size_t)i * d + c] * gn[(size_t)dst[k] * d + c];
            p[k] = (float)(sc / omega);
            mx = p[k] > mx ? p[k] : mx;
        }
        for (k = b; k < e; k++) sum += exp(p[k] - mx);
        for (k = b; k < e; k++) {
            double pk = exp(p[k] - mx) / sum;
            p[k] = (float)pk;
            if (pk > 0) plogp += pk * log(pk);
        }
    }
    if (rows == 0) return NULL;
    q = fgl_op_segment_softmax(
        t, fgl_op_scale(t, fgl_op_edge_dot(t, fgl_op_l2_normalize_rows(t, z, 0), src, dst, E), 1.0f / omega),
        adj->indptr, N);
    /* KL = sum p log p - sum p log q, averaged over the nodes with neighbours */
    return fgl_op_affine(t, fgl_op_matmul(t, fgl_op_const(t, p, 1, E), fgl_op_log(t, q)), -1.0f / (float)rows,
                         (float)(plogp / rows));
}

/* The authors' code's structural term (form = code): for every adjacency
 * entry (u, v), the distribution over the columns of |o_u - o_v| / tau
 * (o the logits), KL from the global model's to the local model's,
 * averaged over the entries ("batchmean"). o: N x C, differentiable; og:
 * N x C, constant. NULL when there is no edge. */
FGL__PRIVATE fgl_node *fgl__fgssl_edge(fgl_tape *t, fgl_node *o, const float *og, const fgl_csr *adj, float tau) {
    int N = o->rows, C = o->cols, E, i, k, c;
    int *src, *dst;
    float *p;
    double plogp = 0;
    fgl_node *d;
    if (!adj || adj->rows != N || adj->nnz == 0) return NULL;
    E = adj->nnz;
    src = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)E);
    dst = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)E);
    p = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)E * (size_t)C);
    if (!src || !dst || !p) return NULL;
    for (i = 0; i < N; i++)
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) {
            const float *a = og + (size_t)i * C, *b = og + (size_t)adj->indices[k] * C;
            float *pk = p + (size_t)k * C;
            double mx = -HUGE_VAL, sum = 0, lse;
            src[k] = i;
            dst[k] = adj->indices[k];
            for (c = 0; c < C; c++) {
                double v = fabs((double)a[c] - (double)b[c]) / tau;
                mx = v > mx ? v : mx;
            }
            for (c = 0; c < C; c++) sum += exp(fabs((double)a[c] - (double)b[c]) / tau - mx);
            lse = mx + log(sum);
            for (c = 0; c < C; c++) {
                double lp = fabs((double)a[c] - (double)b[c]) / tau - lse;
                pk[c] = (float)exp(lp);
                plogp += exp(lp) * lp;
            }
        }
    d = fgl_op_abs(t, fgl_op_sub(t, fgl_op_gather_rows(t, o, src, E), fgl_op_gather_rows(t, o, dst, E)));
    d = fgl_op_log_softmax(t, fgl_op_scale(t, d, 1.0f / tau));
    return fgl_op_affine(t, fgl_op_sum(t, fgl_op_mul(t, fgl_op_const(t, p, E, C), d)), -1.0f / (float)E,
                         (float)(plogp / E));
}

/* An augmented copy of a graph: each undirected edge of adj dropped with
 * probability pe (both directions together), each feature column masked
 * (zeroed) with probability pf; x (N x n_feat, dense) or xs (sparse) as the
 * graph has. *x_out (malloc'd) or xs_out is filled, the other left empty. */
FGL__PRIVATE int fgl__fgssl_drop(const fgl_csr *adj, const float *x, const fgl_csr *xs, int n_feat, double pe,
                                 double pf, fgl_rng *r, fgl_csr *adj_out, float **x_out, fgl_csr *xs_out) {
    int N = adj->rows, i, k, m = 0, rc = FGL_OK;
    int *rr = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(adj->nnz, 1));
    int *cc = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(adj->nnz, 1));
    unsigned char *drop = (unsigned char *)FGL_MALLOC((size_t)FGL__MAX(n_feat, 1));
    fgl_error err;
    memset(adj_out, 0, sizeof *adj_out);
    memset(xs_out, 0, sizeof *xs_out);
    *x_out = NULL;
    if (!rr || !cc || !drop) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    for (i = 0; i < N; i++) /* the upper triangle decides, in row order */
        for (k = adj->indptr[i]; k < adj->indptr[i + 1]; k++) {
            int j = adj->indices[k];
            if (j <= i || fgl_rng_uniform(r) < pe) continue;
            rr[m] = i, cc[m++] = j;
            rr[m] = j, cc[m++] = i;
        }
    if ((rc = fgl_csr_from_coo(N, N, m, rr, cc, NULL, 0, adj_out, &err))) goto done;
    for (k = 0; k < n_feat; k++) drop[k] = fgl_rng_uniform(r) < pf;
    if (x) {
        size_t sz = (size_t)N * (size_t)n_feat;
        float *o = (float *)FGL_MALLOC(sizeof(float) * FGL__MAX(sz, 1));
        if (!o) {
            rc = FGL_ERR_NOMEM;
            goto done;
        }
        for (i = 0; i < N; i++)
            for (k = 0; k < n_feat; k++) o[(size_t)i * n_feat + k] = drop[k] ? 0.0f : x[(size_t)i * n_feat + k];
        *x_out = o;
    } else if (xs) {
        int w = 0;
        if ((rc = fgl_csr_init(xs_out, xs->rows, xs->cols, xs->nnz, xs->values != NULL))) goto done;
        for (i = 0; i < xs->rows; i++) {
            xs_out->indptr[i] = w;
            for (k = xs->indptr[i]; k < xs->indptr[i + 1]; k++) {
                if (drop[xs->indices[k]]) continue;
                xs_out->indices[w] = xs->indices[k];
                if (xs->values) xs_out->values[w] = xs->values[k];
                w++;
            }
        }
        xs_out->indptr[xs->rows] = w;
        xs_out->nnz = w;
    }
done:
    if (rc) {
        fgl_csr_free(adj_out);
        fgl_csr_free(xs_out);
    }
    FGL_FREE(rr);
    FGL_FREE(cc);
    FGL_FREE(drop);
    return rc;
}

/* The two augmented graphs of a step (0 weak: the global model's; 1 strong:
 * the local model's); they live until the next step builds new ones, as the
 * training tape's backward pass reads the strong one. */
typedef struct fgl__fgssl_aug {
    fgl_gnn_graph g[2];
    fgl_csr adj[2], xs[2];
    float *x[2];
    int built[2];
} fgl__fgssl_aug;

static void fgl__fgssl_aug_clear(void *p) {
    fgl__fgssl_aug *a = (fgl__fgssl_aug *)p;
    int v;
    for (v = 0; v < 2; v++) {
        if (a->built[v]) fgl_gnn_graph_free(&a->g[v]);
        fgl_csr_free(&a->adj[v]);
        fgl_csr_free(&a->xs[v]);
        FGL_FREE(a->x[v]);
        a->x[v] = NULL;
        a->built[v] = 0;
    }
}

static int fgl__fgssl_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    const char *pr[4] = {"weak_edge", "weak_feat", "strong_edge", "strong_feat"};
    int i;
    if (spec->task != FGL_TASK_NODE)
        return fgl_error_set(err, FGL_ERR_ARG, "fgssl: node classification only (its terms contrast labelled "
                             "nodes and distil over each node's neighbours)");
    if (!(fgl_get(set, "tau") > 0) || !(fgl_get(set, "omega") > 0))
        return fgl_error_set(err, FGL_ERR_RANGE, "fgssl: tau %g and omega %g must be > 0", fgl_get(set, "tau"),
                             fgl_get(set, "omega"));
    if (!(fgl_get(set, "fnsc") >= 0) || !(fgl_get(set, "fgsd") >= 0))
        return fgl_error_set(err, FGL_ERR_RANGE, "fgssl: the weights fnsc %g and fgsd %g must be >= 0",
                             fgl_get(set, "fnsc"), fgl_get(set, "fgsd"));
    for (i = 0; i < 4; i++)
        if (!(fgl_get(set, pr[i]) >= 0 && fgl_get(set, pr[i]) <= 1))
            return fgl_error_set(err, FGL_ERR_RANGE, "fgssl: %s %g not in [0, 1]", pr[i], fgl_get(set, pr[i]));
    return FGL_OK;
}

static int fgl__fgssl_client_init(fgl_client *c) {
    fgl_new_model(&c->store, "glob", &c->model.spec, c->fed->seed); /* refilled before every local training */
    fgl_new_tape(&c->store, "ref");
    fgl_new_scratch(&c->store, "aug", sizeof(fgl__fgssl_aug), fgl__fgssl_aug_clear);
    return c->store.err;
}

/* The graph of view v (0 weak, 1 strong) of this step, built on aug. */
static const fgl_gnn_graph *fgl__fgssl_view(fgl_client *c, fgl__fgssl_aug *a, const fgl_gnn_graph *g, int v) {
    fgl_error err;
    double pe = fgl_get(c->set, v ? "strong_edge" : "weak_edge"), pf = fgl_get(c->set, v ? "strong_feat" : "weak_feat");
    int rc = fgl__fgssl_drop(g->adj, g->x, g->x_sparse, g->n_feat, pe, pf, &c->rng, &a->adj[v], &a->x[v], &a->xs[v]);
    if (rc) {
        fgl_client_fail(c, rc, "fgssl: augmentation: %s", fgl_result_name(rc));
        return NULL;
    }
    if (fgl_gnn_graph_make(&a->g[v], &a->adj[v], NULL, a->x[v], g->x ? NULL : &a->xs[v], g->n_feat, NULL, 0, NULL, 0,
                           &c->model.spec, &err)) {
        fgl_client_fail(c, err.code, "fgssl: augmented graph: %s", err.msg);
        return NULL;
    }
    a->built[v] = 1;
    return &a->g[v];
}

static fgl_node *fgl__fgssl_loss(fgl_client *c, const fgl_step *st) {
    float ws = (float)fgl_get(c->set, "fnsc"), wd = (float)fgl_get(c->set, "fgsd");
    fgl__fgssl_aug *a = (fgl__fgssl_aug *)fgl_get_scratch(&c->store, "aug");
    fgl_tape *ref = fgl_get_tape(&c->store, "ref");
    const fgl_gnn_graph *gw = st->g, *gs = st->g;
    fgl_forward gf, lf;
    fgl_node *z, *loss = NULL, *term;
    float *zg;
    if (ws == 0 && wd == 0) return NULL;
    if (!a || !ref) {
        fgl_client_fail(c, FGL_ERR_NOMEM, "fgssl: no state");
        return NULL;
    }
    fgl__fgssl_aug_clear(a); /* the last step's graphs: its backward pass is done */
    if (fgl_get(c->set, "augment") != 0) {
        if (!(gw = fgl__fgssl_view(c, a, st->g, 0)) || !(gs = fgl__fgssl_view(c, a, st->g, 1))) return NULL;
    }
    fgl_tape_reset(ref);
    if (fgl_model_forward(fgl_get_model(&c->store, "glob"), ref, gw, 0, NULL, &gf) || !(gf.rep || gf.node_emb)) {
        fgl_client_fail(c, ref->err ? ref->err : FGL_ERR_ARG, "fgssl: global model: %s", ref->msg);
        return NULL;
    }
    if (!gf.rep) gf.rep = gf.node_emb;
    if (gs == st->g) {
        lf = *st->fwd;
    } else if (fgl_model_forward(st->model, st->t, gs, 1, &c->rng, &lf)) {
        fgl_client_fail(c, st->t->err, "fgssl: local model on the augmented graph: %s", st->t->msg);
        return NULL;
    }
    z = lf.rep ? lf.rep : lf.node_emb;
    if (!z || z->rows != gf.rep->rows || z->cols != gf.rep->cols) {
        fgl_client_fail(c, FGL_ERR_SHAPE, "fgssl: embeddings of the two models differ in shape");
        return NULL;
    }
    zg = (float *)fgl_tape_alloc(st->t, sizeof(float) * (size_t)z->rows * (size_t)z->cols);
    if (!zg) return NULL;
    memcpy(zg, gf.rep->val, sizeof(float) * (size_t)z->rows * (size_t)z->cols);
    if (ws > 0 && (term = fgl__fgssl_fnsc(st->t, z, zg, st->labels, st->mask, (int)fgl_client_dim(c, FGL_DIM_CLASSES),
                                          (float)fgl_get(c->set, "tau"))))
        loss = fgl_op_scale(st->t, term, ws);
    if (wd > 0 && fgl_get(c->set, "form") == 1) { /* the authors' code: on the logits */
        float *og;
        if (!lf.logits || !gf.logits || lf.logits->rows != gf.logits->rows || lf.logits->cols != gf.logits->cols) {
            fgl_client_fail(c, FGL_ERR_SHAPE, "fgssl: logits of the two models differ in shape");
            return NULL;
        }
        og = (float *)fgl_tape_alloc(st->t, sizeof(float) * (size_t)gf.logits->rows * (size_t)gf.logits->cols);
        if (!og) return NULL;
        memcpy(og, gf.logits->val, sizeof(float) * (size_t)gf.logits->rows * (size_t)gf.logits->cols);
        if ((term = fgl__fgssl_edge(st->t, lf.logits, og, st->g->adj, (float)fgl_get(c->set, "omega")))) {
            term = fgl_op_scale(st->t, term, wd);
            loss = loss ? fgl_op_add(st->t, loss, term) : term;
        }
    } else if (wd > 0 && (term = fgl__fgssl_fgsd(st->t, z, zg, st->g->adj, (float)fgl_get(c->set, "omega")))) {
        term = fgl_op_scale(st->t, term, wd);
        loss = loss ? fgl_op_add(st->t, loss, term) : term;
    }
    if (st->t->err) fgl_client_fail(c, st->t->err, "fgssl: %s", st->t->msg);
    return loss;
}

static int fgl__fgssl_train(fgl_client *c) {
    fgl_model *glob = fgl_get_model(&c->store, "glob");
    int rc;
    if ((rc = fgl_params_copy(&glob->params, &c->model.params, FGL_G_ALL))) /* the global model, as received */
        return fgl_client_fail(c, rc, "fgssl: model layout changed");
    rc = fgl_client_train(c, &c->model, &c->optim, &c->algo->train);
    fgl__fgssl_aug_clear(fgl_get_scratch(&c->store, "aug")); /* nothing held between rounds */
    return rc;
}

static fgl_algo fgl__fgssl(void) {
    fgl_algo a = fgl__avg_base("fgssl",
                               "Huang et al. 2023: FedAvg plus a class-wise contrast of local against global node "
                               "embeddings and a distillation of the global model's neighbour similarities",
                               FGL_G_ALL, "parameter groups averaged");
    fgl_algo_param_add(&a, "fnsc", FGL_PARAM_FLOAT, 1.0, "weight of the node semantic contrast (FNSC)");
    fgl_algo_param_add(&a, "fgsd", FGL_PARAM_FLOAT, 1.0, "weight of the structural term (FGSD; form=code: the code's)");
    fgl_algo_param_add(&a, "tau", FGL_PARAM_FLOAT, 0.1, "FNSC's cosine temperature");
    fgl_algo_param_add(&a, "omega", FGL_PARAM_FLOAT, 0.1, "FGSD's temperature of the neighbour similarities");
    fgl_algo_param_add(&a, "form", FGL_PARAM_INT, 0,
                       "the structural term: paper (neighbour similarity distributions of the embeddings) or code "
                       "(the authors' per-edge distribution of |logit differences|)");
    fgl_algo_param_choices(&a, "form", "paper|code");
    fgl_algo_param_add(&a, "augment", FGL_PARAM_INT, 1, "1: global model on a weak, local on a strong augmentation");
    fgl_algo_param_add(&a, "weak_edge", FGL_PARAM_FLOAT, 0.3, "weak augmentation: edge drop probability");
    fgl_algo_param_add(&a, "weak_feat", FGL_PARAM_FLOAT, 0.3, "weak augmentation: feature column mask probability");
    fgl_algo_param_add(&a, "strong_edge", FGL_PARAM_FLOAT, 0.8, "strong augmentation: edge drop probability");
    fgl_algo_param_add(&a, "strong_feat", FGL_PARAM_FLOAT, 0.5, "strong augmentation: feature column mask probability");
    a.prepare_spec = fgl__fgssl_spec;
    a.client_init = fgl__fgssl_client_init;
    a.local_train = fgl__fgssl_train;
    a.train.loss = fgl__fgssl_loss;
    return a;
}
/* --- src/fed/algos/fedtad.h --- */
/* --- FedTAD (Zhu et al., IJCAI 2024) ----------------------------------------------- */
/* "FedTAD: Topology-aware Data-free Knowledge Distillation for Subgraph
 * Federated Learning". FedAvg, then the server distils the clients' models,
 * each trusted per class by its class-wise knowledge reliability (CKR), into
 * the average, on pseudo graphs a generator makes (no data reach the server).
 *
 * Client (once, from its subgraph): topology-aware node embeddings
 *     h_v = [x_v || r_v],  r_v = [T_vv, (T^2)_vv, ..., (T^L)_vv],  T = A D^-1
 * (the random-walk return probabilities, fgl_rwse; L = walk_length), the
 * node's reliability, its neighbourhood's agreement with it,
 *     nkr_v = (1 + sum_{u in N(v)} cos(h_v, h_u)) / (deg_v + 1),
 * and per class c the sum over its training nodes of class c:
 *     ckr_c = sum_{v in train, y_v = c} nkr_v.
 * Uploaded each round with the weights and the training-sample count.
 *
 * Server, each round: theta = FedAvg of the uploads (fgl_server_mean); the
 * teachers are the K accepted uploads, weighted per class by
 *     w_kc = ckr_kc / sum_j ckr_jc       (ckr_norm = clients: the authors' code),
 *     w_kc = ckr_kc / sum_c' ckr_kc'     (ckr_norm = classes: OpenFGL's);
 * then glb_epochs times: noise z (n x noise_dim, N(0,1)) and labels y (n/C
 * nodes per class in order, the remainder to the last) make pseudo nodes
 *     X = G(z, y) = W4 tanh(W3 tanh(W2 tanh(W1 [E onehot(y) || z])))
 * (with biases; widths 64, 128, 256, then the features), joined into a
 * graph by each node's topk most cosine-similar nodes (itself among them,
 * then dropped; symmetrised; the models add their self loops). With f_k the
 * teachers, f the student (theta), m_c the pseudo nodes of class c,
 * D(a, b) = (1/|m_c|) sum_{i in m_c} mean_j |a_ij - b_ij|:
 *   the generator takes it_g Adam steps (lr_g) on
 *     L_G = lam1 sum_k sum_c w_kc CE_{m_c}(f_k(X), y)
 *           - sum_k sum_c w_kc D(f(X), f_k(X))
 *           + lam2 K exp(-mean_ij ||z_i - z_j||^2/dz * mean_l |X_il - X_jl|)
 *     (semantics, adversarial divergence, diversity: the authors sum the
 *     last over the K clients, hence K), gradients through the frozen
 *     models into X (fgl_model_forward_x, fgl_op_pairwise_l1);
 *   then the student takes it_d Adam steps (lr_d, dropout on) on
 *     L_D = sum_k sum_c w_kc D(f(X), f_k(X))   (X, graph, f_k(X) fixed).
 * The generator, the student's and the generator's optimizer states persist
 * across rounds (checkpointed); teachers run in evaluation mode.
 * What is sent: up 4 (n + 1 + C) bytes (weights, count, CKR), down 4 n.
 * The server reads every client's model (reads_each = 1): DP, secure
 * aggregation and robust rules are refused at the start. Node
 * classification with a node model that reads its features in the forward
 * pass (not SGC, GAMLP); the whole model shared (share = all).
 * Defaults: the authors' code (train_fedtad.py), which OpenFGL's config
 * repeats: glb_epochs 5, it_g 1, it_d 5, lr_g = lr_d = 1e-3, num_gen 100,
 * noise_dim 32, topk 5, lam1 = lam2 = 1, walk_length 5, weight decay 5e-4
 * on both server optimizers. docs/algorithms.md, "FedTAD", says where the
 * paper, the authors' code and OpenFGL differ, and what this follows. */

enum { FGL__TAD_CLIENTS, FGL__TAD_CLASSES };

/* A client's CKR. adj: its graph (no self loop, symmetric); x (n x F dense)
 * or xs (sparse, values NULL: ones) its features; y, train per node; the
 * first n_rows rows are the client's (a halo's are not read). ckr: C
 * values written (classes y >= C are skipped). */
FGL__PRIVATE int fgl__tad_ckr(const fgl_csr *adj, int n_rows, const float *x, const fgl_csr *xs, int F, const int *y,
                              const unsigned char *train, int C, int walk, double *ckr) {
    int N = adj->rows, v, k, c, j, rc = FGL_OK;
    float *rw = (float *)FGL_MALLOC(sizeof(float) * (size_t)FGL__MAX(N, 1) * (size_t)FGL__MAX(walk, 1));
    double *norm = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(N, 1));
    double *row = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(F, 1));
    for (c = 0; c < C; c++) ckr[c] = 0;
    if (!rw || !norm || !row) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    if (walk < 1 || F < 0 || n_rows < 0 || n_rows > N || (!x && !xs)) {
        rc = FGL_ERR_ARG;
        goto done;
    }
    if ((rc = fgl_rwse(adj, walk, rw))) goto done;
#define FGL__TAD_XV(u, k) (xs->values ? (double)xs->values[k] : 1.0)
    for (v = 0; v < n_rows; v++) { /* |h_v| */
        double s = 0;
        if (x)
            for (j = 0; j < F; j++) s += (double)x[(size_t)v * F + j] * x[(size_t)v * F + j];
        else
            for (k = xs->indptr[v]; k < xs->indptr[v + 1]; k++) s += FGL__TAD_XV(v, k) * FGL__TAD_XV(v, k);
        for (j = 0; j < walk; j++) s += (double)rw[(size_t)v * walk + j] * rw[(size_t)v * walk + j];
        norm[v] = sqrt(s);
    }
    for (j = 0; j < F; j++) row[j] = 0;
    for (v = 0; v < n_rows; v++) {
        double sum = 1; /* the node itself: cosine 1 */
        int deg = 0;
        if (!train || !train[v] || !y || y[v] < 0 || y[v] >= C) continue;
        if (!x) /* v's sparse row, spread out */
            for (k = xs->indptr[v]; k < xs->indptr[v + 1]; k++) row[xs->indices[k]] += FGL__TAD_XV(v, k);
        for (k = adj->indptr[v]; k < adj->indptr[v + 1]; k++) {
            int u = adj->indices[k], kk;
            double dot = 0;
            if (u >= n_rows || u == v) continue; /* a halo node: not the client's */
            deg++;
            if (x)
                for (j = 0; j < F; j++) dot += (double)x[(size_t)v * F + j] * x[(size_t)u * F + j];
            else
                for (kk = xs->indptr[u]; kk < xs->indptr[u + 1]; kk++) dot += row[xs->indices[kk]] * FGL__TAD_XV(u, kk);
            for (j = 0; j < walk; j++) dot += (double)rw[(size_t)v * walk + j] * rw[(size_t)u * walk + j];
            if (norm[v] > 0 && norm[u] > 0) sum += dot / (norm[v] * norm[u]);
        }
        if (!x)
            for (k = xs->indptr[v]; k < xs->indptr[v + 1]; k++) row[xs->indices[k]] = 0;
        ckr[y[v]] += sum / (deg + 1);
    }
#undef FGL__TAD_XV
done:
    FGL_FREE(rw);
    FGL_FREE(norm);
    FGL_FREE(row);
    return rc;
}

/* The teachers' weights w (K x C) from their CKRs (K x C floats, the rows
 * with present[k]): per class over the clients (per_client 0: each column
 * sums to 1 over the present clients) or per client over the classes
 * (per_client 1: each row sums to 1). A sum of 0 gives weights 0 (the
 * authors' code would divide by it). Absent rows are 0. */
FGL__PRIVATE void fgl__tad_weights(int K, int C, const float *ckr, const unsigned char *present, int per_client,
                                   double *w) {
    int k, c;
    for (k = 0; k < K; k++)
        for (c = 0; c < C; c++) w[(size_t)k * C + c] = present[k] && ckr[(size_t)k * C + c] > 0 ? ckr[(size_t)k * C + c] : 0;
    if (per_client) {
        for (k = 0; k < K; k++) {
            double s = 0;
            for (c = 0; c < C; c++) s += w[(size_t)k * C + c];
            for (c = 0; c < C; c++) w[(size_t)k * C + c] = s > 0 ? w[(size_t)k * C + c] / s : 0;
        }
    } else {
        for (c = 0; c < C; c++) {
            double s = 0;
            for (k = 0; k < K; k++) s += w[(size_t)k * C + c];
            for (k = 0; k < K; k++) w[(size_t)k * C + c] = s > 0 ? w[(size_t)k * C + c] / s : 0;
        }
    }
}

/* The pseudo graph: row i's k largest cosines (x: n x D) in descending
 * order, ties to the lower index, i itself among the candidates; the edges
 * i - j for j chosen by i or i by j, j != i; adj built (sorted rows). */
FGL__PRIVATE int fgl__tad_knn(int n, int D, const float *x, int k, fgl_csr *adj) {
    unsigned char *e = (unsigned char *)FGL_MALLOC((size_t)FGL__MAX(n, 1) * (size_t)FGL__MAX(n, 1));
    double *nr = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(n, 1));
    double *sim = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(n, 1));
    int i, j, l, nnz = 0, rc = FGL_OK;
    memset(adj, 0, sizeof *adj);
    if (!e || !nr || !sim) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    memset(e, 0, (size_t)n * (size_t)n);
    for (i = 0; i < n; i++) {
        double s = 0;
        for (l = 0; l < D; l++) s += (double)x[(size_t)i * D + l] * x[(size_t)i * D + l];
        nr[i] = sqrt(s) > 1e-12 ? sqrt(s) : 1e-12; /* F.normalize's eps */
    }
    for (i = 0; i < n; i++) {
        int m;
        for (j = 0; j < n; j++) {
            double s = 0;
            for (l = 0; l < D; l++) s += (double)x[(size_t)i * D + l] * x[(size_t)j * D + l];
            sim[j] = s / (nr[i] * nr[j]);
        }
        for (m = 0; m < k && m < n; m++) { /* the m-th largest not yet chosen */
            int best = -1;
            for (j = 0; j < n; j++)
                if (!(e[(size_t)i * n + j] & 2) && (best < 0 || sim[j] > sim[best])) best = j;
            e[(size_t)i * n + best] |= 2; /* chosen by i */
        }
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            if (i != j && ((e[(size_t)i * n + j] & 2) || (e[(size_t)j * n + i] & 2))) {
                e[(size_t)i * n + j] |= 1;
                nnz++;
            }
    if ((rc = fgl_csr_init(adj, n, n, nnz, 0))) goto done;
    for (i = 0, l = 0; i < n; i++) {
        adj->indptr[i] = l;
        for (j = 0; j < n; j++)
            if (e[(size_t)i * n + j] & 1) adj->indices[l++] = j;
    }
    adj->indptr[n] = l;
done:
    FGL_FREE(e);
    FGL_FREE(nr);
    FGL_FREE(sim);
    return rc;
}

static int fgl__tad_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    const char *ints[] = {"walk_length", "num_gen", "noise_dim", "topk"};
    int i;
    if (spec->task != FGL_TASK_NODE)
        return fgl_error_set(err, FGL_ERR_ARG, "fedtad: node classification only (class-wise reliability of node "
                             "labels, pseudo nodes)");
    if (spec->arch == FGL_ARCH_SGC || spec->arch == FGL_ARCH_GAMLP)
        return fgl_error_set(err, FGL_ERR_ARG, "fedtad: %s propagates the features before the model, so the "
                             "generator's pseudo nodes cannot be fed through it", fgl_arch_name(spec->arch));
    if ((unsigned)fgl_get(set, "share") != FGL_G_ALL)
        return fgl_error_set(err, FGL_ERR_ARG, "fedtad: the server distils whole client models: share=all");
    for (i = 0; i < 4; i++)
        if (fgl_get(set, ints[i]) < 1 || fgl_get(set, ints[i]) > 100000)
            return fgl_error_set(err, FGL_ERR_RANGE, "fedtad: %s %g not in 1..100000", ints[i], fgl_get(set, ints[i]));
    if (fgl_get(set, "glb_epochs") < 0 || fgl_get(set, "it_g") < 0 || fgl_get(set, "it_d") < 0)
        return fgl_error_set(err, FGL_ERR_RANGE, "fedtad: glb_epochs, it_g and it_d must be >= 0");
    if (!(fgl_get(set, "lr_g") >= 0) || !(fgl_get(set, "lr_d") >= 0) || !(fgl_get(set, "weight_decay") >= 0))
        return fgl_error_set(err, FGL_ERR_RANGE, "fedtad: lr_g, lr_d and weight_decay must be >= 0");
    return FGL_OK;
}

static int fgl__tad_client_init(fgl_client *c) {
    const fgl_node_data *d = c->data.node;
    int C = c->model.spec.out_dim, rc, n_rows;
    float *ckr = fgl_new_floats(&c->store, "ckr", (size_t)FGL__MAX(C, 1));
    double *tmp;
    if (!ckr) return FGL_ERR_NOMEM;
    if (!d) return fgl_client_fail(c, FGL_ERR_ARG, "fedtad: node classification only");
    if (!(tmp = (double *)fgl_scratch(&c->store, sizeof(double) * (size_t)FGL__MAX(C, 1)))) return FGL_ERR_NOMEM;
    n_rows = d->gid && d->n_own > 0 ? d->n_own : d->adj.rows;
    rc = fgl__tad_ckr(&d->adj, n_rows, d->x_sparse.rows ? NULL : d->x.data, d->x_sparse.rows ? &d->x_sparse : NULL,
                      d->n_feat, d->y, c->data.mask[FGL_SPLIT_TRAIN], C, (int)fgl_get(c->set, "walk_length"), tmp);
    if (rc) return fgl_client_fail(c, rc, "fedtad: knowledge reliability: %s", fgl_result_name(rc));
    for (n_rows = 0; n_rows < C; n_rows++) ckr[n_rows] = (float)tmp[n_rows];
    return FGL_OK;
}

static int fgl__tad_upload(fgl_client *c) {
    float *up = fgl_up(c, "ckr");
    size_t width = fgl_up_size(c, "ckr"), C = (size_t)c->model.spec.out_dim, j;
    if (!up) return FGL_ERR_NOMEM;
    for (j = 0; j < width; j++) up[j] = j < C ? fgl_floats(&c->store, "ckr")[j] : 0.0f;
    return FGL_OK;
}

/* The server's teachers: one model per client, loaded each round (scratch). */
typedef struct fgl__tad_teachers {
    int k;
    fgl_model *m;
} fgl__tad_teachers;

static void fgl__tad_teachers_free(void *p) {
    fgl__tad_teachers *t = (fgl__tad_teachers *)p;
    int i;
    for (i = 0; t->m && i < t->k; i++) fgl_model_free(&t->m[i]);
    FGL_FREE(t->m);
}

enum { FGL__TAD_E, FGL__TAD_W1, FGL__TAD_B1, FGL__TAD_W2, FGL__TAD_B2, FGL__TAD_W3, FGL__TAD_B3, FGL__TAD_W4,
       FGL__TAD_B4 };

static int fgl__tad_server_init(fgl_server *s) {
    const fgl_model_spec *sp = s->spec;
    int C = sp->out_dim, F = sp->in_dim, dz = (int)fgl_get(s->set, "noise_dim"), i, rc = FGL_OK;
    int dims[5] = {0, 64, 128, 256, 0};
    fgl_params *gen = fgl_new_params(&s->store, "generator");
    fgl_model *student;
    fgl__tad_teachers *tt;
    fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
    fgl_rng r;
    if ((rc = fgl__avg_server_init(s))) return rc;
    if (!gen) return FGL_ERR_NOMEM;
    dims[0] = C + dz;
    dims[4] = F;
    fgl_rng_init(&r, s->fed->seed, 0x7ad0u);
    if (fgl_params_add(gen, "emb", C, C, FGL_G_CONV, 1) < 0) return FGL_ERR_NOMEM;
    for (i = 0; i < 4; i++) {
        char wn[8], bn[8];
        snprintf(wn, sizeof wn, "w%d", i + 1);
        snprintf(bn, sizeof bn, "b%d", i + 1);
        if (fgl_params_add(gen, wn, dims[i], dims[i + 1], FGL_G_CONV, 1) < 0 ||
            fgl_params_add(gen, bn, 1, dims[i + 1], FGL_G_CONV, 1) < 0)
            return FGL_ERR_NOMEM;
    }
    { /* nn.Embedding: N(0, 1); nn.Linear: U(+-1/sqrt(fan_in)) for weights and biases */
        float *e = fgl_params_data(gen, FGL__TAD_E);
        int k;
        for (k = 0; k < C * C; k++) e[k] = (float)fgl_rng_normal(&r);
        for (i = 0; i < 4; i++) {
            fgl_params_fan_in_uniform(gen, FGL__TAD_W1 + 2 * i, dims[i], &r);
            fgl_params_fan_in_uniform(gen, FGL__TAD_B1 + 2 * i, dims[i], &r);
        }
    }
    student = fgl_new_model(&s->store, "student", sp, s->fed->seed);
    oc.weight_decay = (float)fgl_get(s->set, "weight_decay");
    oc.lr = (float)fgl_get(s->set, "lr_g");
    fgl_new_optim(&s->store, "opt_g", oc, gen);
    oc.lr = (float)fgl_get(s->set, "lr_d");
    if (student) fgl_new_optim(&s->store, "opt_d", oc, &student->params);
    fgl_new_tape(&s->store, "tape");
    fgl_new_floats(&s->store, "losses", 5); /* the last round's last epoch: see fgl__tad_report */
    tt = (fgl__tad_teachers *)fgl_new_scratch(&s->store, "teachers", sizeof(fgl__tad_teachers), fgl__tad_teachers_free);
    if (s->store.err || !tt) return s->store.err ? s->store.err : FGL_ERR_NOMEM;
    if (!(tt->m = (fgl_model *)FGL_MALLOC(sizeof(fgl_model) * (size_t)s->n_clients))) return FGL_ERR_NOMEM;
    for (i = 0; i < s->n_clients; i++) {
        if ((rc = fgl_model_init(&tt->m[i], sp, s->fed->seed, NULL))) return rc;
        tt->k = i + 1;
    }
    return FGL_OK;
}

/* The generator's pseudo nodes on tape t: X = G(z, y), n x F. */
static fgl_node *fgl__tad_generate(fgl_tape *t, fgl_params *gen, const float *onehot, const float *z, int n, int C,
                                   int dz) {
    fgl_node *h = fgl_op_concat2(t, fgl_op_matmul(t, fgl_op_const(t, onehot, n, C), fgl_op_param(t, gen, FGL__TAD_E)),
                                 fgl_op_const(t, z, n, dz));
    int i;
    for (i = 0; i < 3; i++)
        h = fgl_op_tanh(t, fgl_op_linear(t, h, fgl_op_param(t, gen, FGL__TAD_W1 + 2 * i),
                                         fgl_op_param(t, gen, FGL__TAD_B1 + 2 * i)));
    return fgl_op_linear(t, h, fgl_op_param(t, gen, FGL__TAD_W4), fgl_op_param(t, gen, FGL__TAD_B4));
}

/* sum_i sum_j wd[i] |a_ij - b_ij| (b constant): wd[i] = w_{k, y_i} / (|m_{y_i}| cols). */
static fgl_node *fgl__tad_div(fgl_tape *t, fgl_node *a, const float *b, const float *wd) {
    fgl_node *d = fgl_op_abs(t, fgl_op_sub(t, a, fgl_op_const(t, b, a->rows, a->cols)));
    float *wm;
    int i, j;
    if (!d || !(wm = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)a->rows * (size_t)a->cols))) return NULL;
    for (i = 0; i < a->rows; i++)
        for (j = 0; j < a->cols; j++) wm[(size_t)i * a->cols + j] = wd[i];
    return fgl_op_sum(t, fgl_op_mul(t, d, fgl_op_const(t, wm, a->rows, a->cols)));
}

static int fgl__tad_aggregate(fgl_server *s) {
    const fgl_model_spec *sp = s->spec;
    int K = s->n_clients, C = sp->out_dim, F = sp->in_dim, width = (int)fgl_server_up_size(s, "ckr");
    int n = (int)fgl_get(s->set, "num_gen"), dz = (int)fgl_get(s->set, "noise_dim"), topk = (int)fgl_get(s->set, "topk");
    int E = (int)fgl_get(s->set, "glb_epochs"), it_g = (int)fgl_get(s->set, "it_g"), it_d = (int)fgl_get(s->set, "it_d");
    double lam1 = fgl_get(s->set, "lam1"), lam2 = fgl_get(s->set, "lam2");
    float *global = fgl_floats(&s->store, "global"), *losses = fgl_floats(&s->store, "losses");
    fgl_params *gen = fgl_get_params(&s->store, "generator");
    fgl_model *st = fgl_get_model(&s->store, "student");
    fgl_optim *og = fgl_get_optim(&s->store, "opt_g"), *od = fgl_get_optim(&s->store, "opt_d");
    fgl_tape *t = fgl_get_tape(&s->store, "tape");
    fgl__tad_teachers *tt = (fgl__tad_teachers *)fgl_get_scratch(&s->store, "teachers");
    float *ckr = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * (size_t)C);
    double *w = (double *)fgl_scratch(&s->store, sizeof(double) * (size_t)K * (size_t)C);
    unsigned char *present = (unsigned char *)fgl_scratch(&s->store, (size_t)K);
    int *lab = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)FGL__MAX(n, 1));
    int *cnt = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)FGL__MAX(C, 1));
    int *who = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K);
    float *onehot = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)n * (size_t)C);
    float *z = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)n * (size_t)dz);
    float *zd = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)n * (size_t)n);
    float *xg = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)n * (size_t)F);
    float *tl = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * (size_t)n * (size_t)C);
    float *wd = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * (size_t)n);
    float *ws = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * (size_t)n * (size_t)C);
    int rc = fgl_server_mean(s, "theta", global), k, nk = 0, i, j, e, it;
    if (rc) return rc; /* (FGL_ERR_EMPTY: nothing accepted, the model stays) */
    if (!ckr || !w || !present || !lab || !cnt || !who || !onehot || !z || !zd || !xg || !tl || !wd || !ws)
        return FGL_ERR_NOMEM;
    if (width < C) return fgl_server_fail(s, FGL_ERR_SHAPE, "fedtad: %d-wide CKR for %d classes", width, C);
    for (k = 0; k < K; k++) {
        const float *th = fgl_upload(s, k, "theta"), *ck = fgl_upload(s, k, "ckr");
        present[k] = th && ck;
        if (!present[k]) continue;
        for (j = 0; j < C; j++) ckr[(size_t)k * C + j] = isfinite(ck[j]) ? ck[j] : 0.0f;
        fgl_params_unpack_except(&tt->m[k].params, s->share, s->keep, th);
        who[nk++] = k;
    }
    fgl__tad_weights(K, C, ckr, present, (int)fgl_get(s->set, "ckr_norm") == FGL__TAD_CLASSES, w);
    if (nk == 0 || E == 0) return FGL_OK;
    /* the pseudo labels: n / C per class in order, the rest to the last */
    for (j = 0; j < C; j++) cnt[j] = n / C;
    cnt[C - 1] += n - (n / C) * C;
    for (j = 0, i = 0; j < C; j++)
        for (k = 0; k < cnt[j]; k++) lab[i++] = j;
    memset(onehot, 0, sizeof(float) * (size_t)n * (size_t)C);
    for (i = 0; i < n; i++) onehot[(size_t)i * C + lab[i]] = 1;
    /* per teacher: the divergence's row weights and the semantic loss's -w/|m_c| on the label */
    memset(ws, 0, sizeof(float) * (size_t)K * (size_t)n * (size_t)C);
    for (k = 0; k < K; k++)
        for (i = 0; i < n; i++) {
            double wk = w[(size_t)k * C + lab[i]] / cnt[lab[i]];
            wd[(size_t)k * n + i] = (float)(wk / C);
            ws[((size_t)k * n + i) * C + lab[i]] = (float)-wk;
        }
    fgl_params_unpack_except(&st->params, s->share, s->keep, global);
    for (e = 0; e < E; e++) {
        fgl_rng r;
        fgl_csr adj;
        fgl_gnn_graph g;
        fgl_error err;
        fgl_forward fw;
        fgl_node *X, *loss;
        fgl_rng_init(&r, s->fed->seed ^ 0x7ad7ad7adULL, (uint64_t)s->round * 1000u + (uint64_t)e);
        for (i = 0; i < n * dz; i++) z[i] = (float)fgl_rng_normal(&r);
        for (i = 0; i < n; i++) /* the noise distances: mean_l (z_il - z_jl)^2 */
            for (j = 0; j < n; j++) {
                double d2 = 0;
                int l;
                for (l = 0; l < dz; l++) d2 += ((double)z[(size_t)i * dz + l] - z[(size_t)j * dz + l]) *
                                                ((double)z[(size_t)i * dz + l] - z[(size_t)j * dz + l]);
                zd[(size_t)i * n + j] = (float)(d2 / dz);
            }
        for (it = 0; it < it_g; it++) { /* the generator, against the student */
            fgl_node *sem = NULL, *dv = NULL, *G;
            fgl_tape_reset(t);
            X = fgl__tad_generate(t, gen, onehot, z, n, C, dz);
            if (t->err || !X) break;
            if ((rc = fgl__tad_knn(n, F, X->val, topk, &adj))) return fgl_server_fail(s, rc, "fedtad: pseudo graph");
            rc = fgl_gnn_graph_make(&g, &adj, NULL, X->val, NULL, F, NULL, 0, NULL, 0, sp, &err);
            if (rc) {
                fgl_csr_free(&adj);
                return fgl_server_fail(s, rc, "fedtad: pseudo graph: %s", err.msg);
            }
            fgl_model_forward_x(st, t, &g, X, 0, NULL, &fw);
            G = fw.logits;
            for (i = 0; i < nk && !t->err; i++) {
                fgl_node *L, *a, *b;
                k = who[i];
                fgl_model_forward_x(&tt->m[k], t, &g, X, 0, NULL, &fw);
                if (t->err) break;
                L = fw.logits;
                a = fgl_op_sum(t, fgl_op_mul(t, fgl_op_log_softmax(t, L), fgl_op_const(t, ws + (size_t)k * n * C, n, C)));
                b = fgl__tad_div(t, G, L->val, wd + (size_t)k * n);
                sem = sem ? fgl_op_add(t, sem, a) : a;
                dv = dv ? fgl_op_add(t, dv, b) : b;
            }
            if (!t->err) {
                fgl_node *div = fgl_op_exp(t, fgl_op_scale(t, fgl_op_mean(t, fgl_op_mul(t, fgl_op_pairwise_l1(t, X, X),
                                                                              fgl_op_const(t, zd, n, n))), -1.0f));
                loss = fgl_op_add(t, fgl_op_add(t, fgl_op_scale(t, sem, (float)lam1), fgl_op_scale(t, dv, -1.0f)),
                                  fgl_op_scale(t, div, (float)(lam2 * nk)));
                fgl_params_zero_grad(gen);
                if (loss && !fgl_tape_backward(t, loss)) {
                    losses[0] = sem->val[0];
                    losses[1] = dv->val[0];
                    losses[2] = div->val[0];
                    fgl_optim_step(og, gen);
                }
            }
            fgl_gnn_graph_free(&g);
            fgl_csr_free(&adj);
            if (t->err) break;
        }
        if (t->err) return fgl_server_fail(s, t->err, "fedtad: generator: %s", t->msg);
        /* the pseudo graph of the trained generator, and the teachers' logits on it */
        fgl_tape_reset(t);
        X = fgl__tad_generate(t, gen, onehot, z, n, C, dz);
        if (t->err || !X) return fgl_server_fail(s, t->err ? t->err : FGL_ERR_ARG, "fedtad: generator: %s", t->msg);
        memcpy(xg, X->val, sizeof(float) * (size_t)n * (size_t)F);
        if ((rc = fgl__tad_knn(n, F, xg, topk, &adj))) return fgl_server_fail(s, rc, "fedtad: pseudo graph");
        if ((rc = fgl_gnn_graph_make(&g, &adj, NULL, xg, NULL, F, NULL, 0, NULL, 0, sp, &err))) {
            fgl_csr_free(&adj);
            return fgl_server_fail(s, rc, "fedtad: pseudo graph: %s", err.msg);
        }
        for (i = 0; i < nk && !t->err; i++) {
            k = who[i];
            fgl_tape_reset(t);
            if (!fgl_model_forward(&tt->m[k], t, &g, 0, NULL, &fw) && fw.logits)
                memcpy(tl + (size_t)k * n * C, fw.logits->val, sizeof(float) * (size_t)n * (size_t)C);
        }
        for (it = 0; it < it_d && !t->err; it++) { /* the student, towards the teachers */
            fgl_rng dr;
            fgl_rng_init(&dr, s->fed->seed ^ 0xd157111ULL, ((uint64_t)s->round * 1000u + (uint64_t)e) * 1000u + (uint64_t)it);
            fgl_tape_reset(t);
            fgl_model_forward(st, t, &g, 1, &dr, &fw);
            for (i = 0, loss = NULL; i < nk && !t->err; i++) {
                fgl_node *b;
                k = who[i];
                b = fgl__tad_div(t, fw.logits, tl + (size_t)k * n * C, wd + (size_t)k * n);
                loss = loss ? fgl_op_add(t, loss, b) : b;
            }
            fgl_params_zero_grad(&st->params);
            if (!t->err && loss && !fgl_tape_backward(t, loss)) {
                losses[it == 0 ? 3 : 4] = loss->val[0];
                if (it == 0) losses[4] = loss->val[0];
                fgl_optim_step(od, &st->params);
            }
        }
        fgl_gnn_graph_free(&g);
        fgl_csr_free(&adj);
        if (t->err) return fgl_server_fail(s, t->err, "fedtad: distillation: %s", t->msg);
    }
    fgl_tape_reset(t);
    fgl_server_pack(s, &st->params, global);
    return FGL_OK;
}

/* The last round's last distillation epoch: the generator's semantic,
 * divergence and diversity terms (before their weights), the student's loss
 * at its first and last step. */
static void fgl__tad_report(const fgl_observed *o, char *buf, size_t cap) {
    const float *l = fgl_observed_floats(o, "losses");
    if (l)
        snprintf(buf, cap,
                 "\"generator_semantic\": %.6g, \"generator_divergence\": %.6g, \"generator_diversity\": %.6g, "
                 "\"student_loss_first\": %.6g, \"student_loss_last\": %.6g",
                 (double)l[0], (double)l[1], (double)l[2], (double)l[3], (double)l[4]);
}

static fgl_algo fgl__fedtad(void) {
    fgl_algo a = fgl_algo_new("fedtad", "Zhu et al. 2024: FedAvg, then data-free distillation of the clients' models, "
                                        "trusted per class by topology-aware reliability, into the average");
    fgl_algo_param_add(&a, "share", FGL_PARAM_GROUPS, (double)FGL_G_ALL, "parameter groups averaged (all: the server "
                       "runs whole client models)");
    fgl_algo_param_add(&a, "walk_length", FGL_PARAM_INT, 5, "random-walk steps of the topology embedding "
                       "(max_walk_length)");
    fgl_algo_param_add(&a, "ckr_norm", FGL_PARAM_INT, FGL__TAD_CLIENTS,
                       "reliability normalised per class over the clients (clients: the authors' code) or per "
                       "client over the classes (classes: OpenFGL's)");
    fgl_algo_param_choices(&a, "ckr_norm", "clients|classes");
    fgl_algo_param_add(&a, "glb_epochs", FGL_PARAM_INT, 5, "distillation epochs a round (each: fresh noise)");
    fgl_algo_param_add(&a, "it_g", FGL_PARAM_INT, 1, "generator steps an epoch");
    fgl_algo_param_add(&a, "it_d", FGL_PARAM_INT, 5, "student (global model) steps an epoch");
    fgl_algo_param_add(&a, "lr_g", FGL_PARAM_FLOAT, 1e-3, "generator's Adam learning rate");
    fgl_algo_param_add(&a, "lr_d", FGL_PARAM_FLOAT, 1e-3, "global model's Adam learning rate in distillation");
    fgl_algo_param_add(&a, "weight_decay", FGL_PARAM_FLOAT, 5e-4, "L2 weight decay of both server optimizers");
    fgl_algo_param_add(&a, "num_gen", FGL_PARAM_INT, 100, "pseudo nodes a graph");
    fgl_algo_param_add(&a, "noise_dim", FGL_PARAM_INT, 32, "generator noise width");
    fgl_algo_param_add(&a, "topk", FGL_PARAM_INT, 5, "pseudo graph: each node's most similar nodes (itself among them)");
    fgl_algo_param_add(&a, "lam1", FGL_PARAM_FLOAT, 1, "weight of the generator's semantic loss");
    fgl_algo_param_add(&a, "lam2", FGL_PARAM_FLOAT, 1, "weight of the generator's diversity loss");
    fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, 0, 0, 0);
    fgl_algo_upload(&a, "n", FGL_SEND_WEIGHT, 0, 0, 0);
    fgl_algo_upload(&a, "ckr", FGL_SEND_DATA, 1, FGL_DIM_CLASSES, 0);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, 0, "global");
    a.prepare_spec = fgl__tad_spec;
    a.client_init = fgl__tad_client_init;
    a.upload = fgl__tad_upload;
    a.server_init = fgl__tad_server_init;
    a.aggregate = fgl__tad_aggregate;
    a.report = fgl__tad_report;
    a.reads_each = 1;
    return a;
}
/* --- src/fed/algos/fggp.h --- */
/* --- FGGP (Wan, Huang and Ye, AAAI 2024) ---------------------------------------------- */
/* "Federated Graph Learning under Domain Shift with Generalizable
 * Prototypes". FedAvg of the weights, plus class prototypes clustered on
 * the server and contrastive terms on the clients. docs/algorithms.md,
 * "FGGP", says where the paper, the authors' code (GuanchengWan/FGGP) and
 * OpenFGL (openfgl/flcore/fggp) differ and which is followed here.
 *
 * Prototypes (up, C x d, the same "protos" / "counts" parts as FedProto):
 * after local training, in evaluation mode over the client's whole graph,
 * Z = the representation the classifier reads (fgl_forward.rep), p_v = the
 * softmax of the logits; pseudo-label yhat_v = y_v with confidence w_v = 1
 * on the training nodes, argmax p_v with w_v = max p_v elsewhere;
 *     proto_c = sum_{yhat_v = c} w_v Z_v / (sum_{yhat_v = c} w_v + 1e-6),
 *     counts_c = sum_{yhat_v = c} w_v (> 0: the class is present).
 * (proto_nodes=train: FedProto's mean over training nodes instead.)
 *
 * Server: theta = FedAvg's mean (fgl_server_mean, weighted by training
 * samples). For each class c, the present prototypes of this round's
 * accepted uploads (client order) are clustered by FINCH (Sarfraz et al.
 * 2019) with cosine distance, without its early exit, and the last
 * partition it returns is kept: first neighbours kappa(i) = argmin_{j != i}
 * (1 - cos(x_i, x_j)) (ties: the lowest j); the clusters are the connected
 * components of the graph i -- kappa(i); the same again on the clusters'
 * means (of the original rows) until one cluster would remain, whose step
 * is undone. One prototype: itself. Each cluster's prototype is the plain
 * mean of its members. Down: the clusters of every class, `slots` rows of
 * d ("protos") and `slots` class labels ("labels", -1 for an empty row;
 * all -1 before the first aggregation); more clusters than slots is an error.
 *
 * Client, each round, before training, from the received global model
 * (evaluation mode): a second view of its graph, the edges of its own
 * graph united with each node's `knn` nearest other nodes by cosine of
 * their representations (symmetrised: the graph contract; the authors'
 * "global knowledge injection"). Each step adds to the task's CE(view 1):
 *   ce2 * CE(logits of view 2 on the step's training rows)
 * + pa * L_pa:  confidence-weighted prototypes of the present classes from
 *     each view (pseudo-labels and confidences from the step's view-1
 *     logits, held constant), P1 and P2; rows l2-normalised; for class i
 *     L_i = -log e^{<P2_i,P1_i>/tau_pa} / (sum_j e^{<P2_i,P1_j>/tau_pa}
 *            + sum_{j != i} e^{<P2_i,P2_j>/tau_pa}), the mean over classes;
 * + cl * L_cl:  for each training row v of the step whose class has global
 *     prototypes, with s_p = cos(Z_v, G_p) / tau_cl over all global
 *     prototypes p,  L_v = -log sum_{label(p) = y_v} e^{s_p} / sum_p e^{s_p},
 *     the mean over those rows (computed as CE(s, j) - CE(s + mask, j) for
 *     one positive j, with -1e9 on the negatives in mask: exact, stable).
 * Prediction (predict=proto, the paper and the authors' code): cosine
 * similarities of a node's rep to the received prototypes, the top `k_eval`
 * weighted by softmax(sim / 0.1), summed per class; before any prototype
 * arrives, the classifier head. predict=head: the head throughout.
 * Defaults: knn 3, tau_pa 0.5, tau_cl 0.02 (the authors' neibor, the
 * temperature they pass, infoNCET), weights ce2 = pa = cl = 1, k_eval 40
 * and the vote's 0.1 (their knn and MomentumQueue temperature), slots 64.
 * Not sent: no graph, no node. Sent: up 4 (n + 1 + C (d + 1)), down
 * 4 (n + slots (d + 1)) bytes. Node classification only. The prototypes
 * are clustered as sent into what the clients train and predict with, so
 * they are marked raw (FGL_PART_RAW): robust rules, DP and secure
 * aggregation, which cover a mean of the weights, do not cover them, and a
 * run asking for one is refused at its start. */

enum { FGL__FGGP_HEAD, FGL__FGGP_PROTO };

/* --- FINCH ------------------------------------------------------------------------- */

static int fgl__uf_find(int *p, int i) {
    while (p[i] != i) i = p[i] = p[p[i]];
    return i;
}

/* First neighbours of the m rows of X (cosine distance, ties to the lowest
 * index), their components as labels 0..k-1 in order of first appearance. */
static int fgl__finch_level(const double *X, int m, int d, int *lab, int *parent) {
    int i, j, k = 0;
    double *nrm = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(m, 1));
    if (!nrm) return -1;
    for (i = 0; i < m; i++) {
        double s = 0;
        for (j = 0; j < d; j++) s += X[(size_t)i * d + j] * X[(size_t)i * d + j];
        nrm[i] = sqrt(s);
        parent[i] = i;
    }
    for (i = 0; i < m; i++) {
        int best = -1;
        double bd = 0;
        for (j = 0; j < m; j++) {
            double dot = 0, dist;
            int q;
            if (j == i) continue;
            for (q = 0; q < d; q++) dot += X[(size_t)i * d + q] * X[(size_t)j * d + q];
            dist = nrm[i] > 0 && nrm[j] > 0 ? 1 - dot / (nrm[i] * nrm[j]) : 1; /* a zero row: similarity 0 */
            if (best < 0 || dist < bd) best = j, bd = dist;
        }
        if (best >= 0) {
            int a = fgl__uf_find(parent, i), b = fgl__uf_find(parent, best);
            if (a != b) parent[a > b ? a : b] = a < b ? a : b;
        }
    }
    for (i = 0; i < m; i++) lab[i] = -1;
    for (i = 0; i < m; i++) { /* component labels in order of first appearance */
        int r = fgl__uf_find(parent, i);
        if (lab[r] < 0) lab[r] = k++;
        lab[i] = lab[r];
    }
    FGL_FREE(nrm);
    return k;
}

FGL__PRIVATE int fgl__finch(const float *X, int n, int d, int *label, int *n_clusters) {
    double *M = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(n, 1) * (size_t)FGL__MAX(d, 1));
    int *lab = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(n, 1) * 3), *par = lab + FGL__MAX(n, 1),
        *cnt = par + FGL__MAX(n, 1);
    int i, j, k, rc = FGL_OK;
    if (!M || !lab) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    if (n < 1 || d < 1) {
        rc = FGL_ERR_ARG;
        goto done;
    }
    for (i = 0; i < n * d; i++) M[i] = X[i];
    if (n == 1) {
        label[0] = 0;
        k = 1;
    } else if ((k = fgl__finch_level(M, n, d, label, par)) < 0) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    while (k > 1) { /* the next level, on the clusters' means of the original rows */
        int k2;
        memset(M, 0, sizeof(double) * (size_t)k * (size_t)d);
        memset(cnt, 0, sizeof(int) * (size_t)k);
        for (i = 0; i < n; i++) {
            for (j = 0; j < d; j++) M[(size_t)label[i] * d + j] += X[(size_t)i * d + j];
            cnt[label[i]]++;
        }
        for (i = 0; i < k; i++)
            for (j = 0; j < d; j++) M[(size_t)i * d + j] /= cnt[i];
        if ((k2 = fgl__finch_level(M, k, d, lab, par)) < 0) {
            rc = FGL_ERR_NOMEM;
            goto done;
        }
        if (k2 == 1 || k2 >= k) break; /* FINCH undoes the step that leaves one cluster */
        for (i = 0; i < n; i++) label[i] = lab[label[i]];
        k = k2;
    }
    *n_clusters = k;
done:
    FGL_FREE(M);
    FGL_FREE(lab);
    return rc;
}

/* --- the second view: the graph united with a kNN graph of representations --------- */

FGL__PRIVATE int fgl__fggp_knn_union(const fgl_csr *adj, const float *Z, int n, int d, int k, fgl_csr *out,
                                     fgl_error *err) {
    enum { BLOCK = 256 }; /* rows of similarities at a time: BLOCK x n floats */
    float *zn = (float *)FGL_MALLOC(sizeof(float) * (size_t)FGL__MAX(n, 1) * (size_t)FGL__MAX(d, 1));
    float *sim = (float *)FGL_MALLOC(sizeof(float) * (size_t)FGL__MIN(FGL__MAX(n, 1), BLOCK) * (size_t)FGL__MAX(n, 1));
    int *nb = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(k, 1));
    size_t cap = (size_t)adj->nnz + 2 * (size_t)n * (size_t)FGL__MAX(k, 0), e = 0;
    int *r = (int *)FGL_MALLOC(sizeof(int) * FGL__MAX(cap, 1)), *cc = (int *)FGL_MALLOC(sizeof(int) * FGL__MAX(cap, 1));
    int i, j, q, i0, rc = FGL_OK;
    if (!zn || !sim || !nb || !r || !cc) {
        rc = fgl_error_set(err, FGL_ERR_NOMEM, "fggp: out of memory for the kNN graph of %d nodes", n);
        goto done;
    }
    k = FGL__MIN(k, n - 1);
    for (i = 0; i < n; i++) { /* unit rows (a zero row stays zero: similarity 0 to every node) */
        double s = 0;
        for (q = 0; q < d; q++) s += (double)Z[(size_t)i * d + q] * Z[(size_t)i * d + q];
        s = s > 0 ? 1 / sqrt(s) : 0;
        for (q = 0; q < d; q++) zn[(size_t)i * d + q] = (float)(Z[(size_t)i * d + q] * s);
    }
    for (i = 0; i < n; i++)
        for (q = adj->indptr[i]; q < adj->indptr[i + 1]; q++) r[e] = i, cc[e++] = adj->indices[q];
    for (i0 = 0; i0 < n && k > 0; i0 += BLOCK) {
        int m = FGL__MIN(BLOCK, n - i0);
        fgl_gemm(0, 1, m, n, d, 1.0f, zn + (size_t)i0 * d, d, zn, d, 0.0f, sim, n); /* cosines of rows i0.. */
        for (i = i0; i < i0 + m; i++) {
            const float *si = sim + (size_t)(i - i0) * n;
            int got = 0;
            for (j = 0; j < n; j++) { /* the k most similar other nodes, ties to the lowest index */
                int at;
                if (j == i || (got == k && !(si[j] > si[nb[got - 1]]))) continue;
                at = got < k ? got++ : k - 1;
                while (at > 0 && si[j] > si[nb[at - 1]]) nb[at] = nb[at - 1], at--;
                nb[at] = j;
            }
            for (j = 0; j < got; j++) { /* both directions: the graph contract is symmetric */
                r[e] = i, cc[e++] = nb[j];
                r[e] = nb[j], cc[e++] = i;
            }
        }
    }
    rc = fgl_csr_from_coo(n, n, (int)e, r, cc, NULL, 0, out, err);
done:
    FGL_FREE(zn);
    FGL_FREE(sim);
    FGL_FREE(nb);
    FGL_FREE(r);
    FGL_FREE(cc);
    return rc;
}

/* --- the losses ------------------------------------------------------------------- */

FGL__PRIVATE fgl_node *fgl__fggp_align_loss(fgl_tape *t, fgl_node *view2, fgl_node *view1, float tau) {
    int U = view2->rows, i;
    fgl_node *F = fgl_op_l2_normalize_rows(t, view2, 1e-12f), *A = fgl_op_l2_normalize_rows(t, view1, 1e-12f), *xs[2];
    float *mask = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)U * (size_t)U);
    int *target = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)U);
    if (!mask || !target || t->err) return NULL;
    memset(mask, 0, sizeof(float) * (size_t)U * (size_t)U);
    for (i = 0; i < U; i++) {
        mask[(size_t)i * U + i] = -1e9f; /* no pair of a prototype with itself */
        target[i] = i;
    }
    xs[0] = fgl_op_scale(t, fgl_op_matmul_ex(t, F, 0, A, 1), 1.0f / tau); /* the other view: positive on the diagonal */
    xs[1] = fgl_op_add(t, fgl_op_scale(t, fgl_op_matmul_ex(t, F, 0, F, 1), 1.0f / tau), fgl_op_const(t, mask, U, U));
    return fgl_op_cross_entropy(t, fgl_op_concat_cols(t, xs, 2), target, NULL);
}

FGL__PRIVATE fgl_node *fgl__fggp_cluster_loss(fgl_tape *t, fgl_node *Z, const int *y, const float *G,
                                              const int *glabel, int m, float tau) {
    int n = Z->rows, d = Z->cols, i, p, any = 0;
    float *Gn = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)m * (size_t)d);
    float *neg = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n * (size_t)m);
    int *pos = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)FGL__MAX(n, 1));
    fgl_node *s;
    if (!Gn || !neg || !pos || t->err) return NULL;
    for (p = 0; p < m; p++) { /* constant prototypes, unit length (a zero row stays zero) */
        double sq = 0;
        for (i = 0; i < d; i++) sq += (double)G[(size_t)p * d + i] * G[(size_t)p * d + i];
        sq = sq > 0 ? 1 / sqrt(sq) : 0;
        for (i = 0; i < d; i++) Gn[(size_t)p * d + i] = (float)(G[(size_t)p * d + i] * sq);
    }
    for (i = 0; i < n; i++) {
        pos[i] = -1;
        for (p = 0; p < m; p++) {
            int hit = y[i] >= 0 && glabel[p] == y[i];
            neg[(size_t)i * m + p] = hit ? 0.0f : -1e9f;
            if (hit && pos[i] < 0) pos[i] = p;
        }
        any |= pos[i] >= 0;
    }
    if (!any) return NULL;
    s = fgl_op_scale(t, fgl_op_matmul_ex(t, fgl_op_l2_normalize_rows(t, Z, 1e-12f), 0, fgl_op_const(t, Gn, m, d), 1),
                     1.0f / tau);
    /* -log sum_pos softmax(s) = (lse(s) - s_j) - (lse_pos(s) - s_j) */
    return fgl_op_sub(t, fgl_op_cross_entropy(t, s, pos, NULL),
                      fgl_op_cross_entropy(t, fgl_op_add(t, s, fgl_op_const(t, neg, n, m)), pos, NULL));
}

FGL__PRIVATE void fgl__fggp_knn_scores(const float *Z, int n, int d, const float *G, const int *glabel, int m, int C,
                                       int k, float temp, float *scores) {
    int i, p, q;
    double *sim = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(m, 1)), *gn;
    int *top = (int *)FGL_MALLOC(sizeof(int) * (size_t)FGL__MAX(m, 1));
    gn = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(m, 1));
    memset(scores, 0, sizeof(float) * (size_t)n * (size_t)C);
    if (!sim || !top || !gn) goto done;
    k = FGL__MAX(1, FGL__MIN(k, m));
    for (p = 0; p < m; p++) {
        double s = 0;
        for (q = 0; q < d; q++) s += (double)G[(size_t)p * d + q] * G[(size_t)p * d + q];
        gn[p] = sqrt(s);
    }
    for (i = 0; i < n && m > 0; i++) {
        const float *z = Z + (size_t)i * d;
        double zn = 0, mx, sum = 0;
        int got = 0;
        for (q = 0; q < d; q++) zn += (double)z[q] * z[q];
        zn = sqrt(zn);
        for (p = 0; p < m; p++) {
            double dot = 0;
            int at;
            for (q = 0; q < d; q++) dot += (double)z[q] * G[(size_t)p * d + q];
            sim[p] = zn > 0 && gn[p] > 0 ? dot / (zn * gn[p]) : 0;
            if (got == k && !(sim[p] > sim[top[got - 1]])) continue;
            at = got < k ? got++ : k - 1;
            while (at > 0 && sim[p] > sim[top[at - 1]]) top[at] = top[at - 1], at--;
            top[at] = p;
        }
        mx = sim[top[0]];
        for (q = 0; q < got; q++) sum += exp((sim[top[q]] - mx) / temp);
        for (q = 0; q < got; q++) {
            int c = glabel[top[q]];
            if (c >= 0 && c < C) scores[(size_t)i * C + c] += (float)(exp((sim[top[q]] - mx) / temp) / sum);
        }
    }
done:
    FGL_FREE(sim);
    FGL_FREE(top);
    FGL_FREE(gn);
}

/* --- the client ------------------------------------------------------------------- */

typedef struct fgl__fggp_data {
    fgl_csr adj2;
    fgl_gnn_graph g2;
    int built;
} fgl__fggp_data;

static void fgl__fggp_destroy(void *p) {
    fgl__fggp_data *d = (fgl__fggp_data *)p;
    if (d->built) fgl_gnn_graph_free(&d->g2);
    fgl_csr_free(&d->adj2);
    d->built = 0;
}

static int fgl__fggp_spec(const fgl_settings *set, fgl_model_spec *sp, fgl_error *err) {
    if (sp->task != FGL_TASK_NODE)
        return fgl_error_set(err, FGL_ERR_ARG, "fggp: node classification only (its second view is a graph of the "
                             "client's nodes)");
    if (fgl_get(set, "knn") < 0 || fgl_get(set, "k_eval") < 1 || !(fgl_get(set, "tau_pa") > 0) ||
        !(fgl_get(set, "tau_cl") > 0) || !(fgl_get(set, "ce2") >= 0) || !(fgl_get(set, "pa") >= 0) ||
        !(fgl_get(set, "cl") >= 0))
        return fgl_error_set(err, FGL_ERR_RANGE, "fggp: knn >= 0, k_eval >= 1, tau_pa and tau_cl > 0, and the weights "
                             "ce2, pa and cl >= 0");
    return fgl__proto_spec(set, sp, err);
}

static int fgl__fggp_client_init(fgl_client *c) {
    const fgl_node_data *nd = c->data.node;
    fgl_new_scratch(&c->store, "fggp", sizeof(fgl__fggp_data), fgl__fggp_destroy);
    fgl_new_scratch(&c->store, "scores", sizeof(float) * (size_t)(nd ? nd->n_nodes : 1) *
                                             (size_t)FGL__MAX(c->model.spec.out_dim, 1), NULL);
    return c->store.err;
}

/* The representation (evaluation mode) of every node of the client's graph,
 * on c->tape (valid until it is reset); NULL after recording the failure. */
static fgl_node *fgl__fggp_rep(fgl_client *c, fgl_model *m, fgl_forward *fw) {
    fgl_tape_reset(&c->tape);
    if (fgl_model_forward(m, &c->tape, &c->data.full, 0, NULL, fw) || !fw->rep || !fw->logits) {
        fgl_client_fail(c, c->tape.err ? c->tape.err : FGL_ERR_ARG, "fggp: representations: %s", c->tape.msg);
        return NULL;
    }
    return fw->rep;
}

/* Local training: the second view from the received model, then the steps. */
static int fgl__fggp_train(fgl_client *c) {
    fgl__fggp_data *d = (fgl__fggp_data *)fgl_get_scratch(&c->store, "fggp");
    const fgl_gnn_graph *g = &c->data.full;
    fgl_forward fw;
    fgl_node *Z;
    fgl_error err;
    int rc;
    if (!c->data.node) return fgl_client_fail(c, FGL_ERR_ARG, "fggp: node classification only");
    fgl__fggp_destroy(d);
    if (!(Z = fgl__fggp_rep(c, &c->model, &fw))) return c->error;
    rc = fgl__fggp_knn_union(&c->data.node->adj, Z->val, Z->rows, Z->cols, (int)fgl_get(c->set, "knn"), &d->adj2, &err);
    fgl_tape_reset(&c->tape);
    if (rc || (rc = fgl_gnn_graph_make(&d->g2, &d->adj2, NULL, g->x, g->x_sparse, g->n_feat, NULL, 0, NULL, 0,
                                       &c->model.spec, &err)))
        return fgl_client_fail(c, rc, "fggp: second view: %s", err.msg);
    d->built = 1;
    return fgl_client_train(c, &c->model, &c->optim, &c->algo->train);
}

/* The received prototypes: their count m (0: none), rows G and labels. */
static int fgl__fggp_received(fgl_client *c, const float **G, int **glabel) {
    const float *P = fgl_down(c, "protos"), *L = fgl_down(c, "labels");
    int slots = (int)fgl_get(c->set, "slots"), i, m = 0, d = (int)fgl_client_dim(c, FGL_DIM_REP);
    int *lab;
    float *rows;
    if (!P || !L) return 0;
    for (i = 0; i < slots; i++) m += L[i] >= 0;
    if (!m) return 0;
    lab = (int *)fgl_scratch(&c->store, sizeof(int) * (size_t)m);
    rows = (float *)fgl_scratch(&c->store, sizeof(float) * (size_t)m * (size_t)d);
    if (!lab || !rows) return 0;
    m = 0;
    for (i = 0; i < slots; i++)
        if (L[i] >= 0) {
            memcpy(rows + (size_t)m * d, P + (size_t)i * d, sizeof(float) * (size_t)d);
            lab[m++] = (int)L[i];
        }
    *G = rows;
    *glabel = lab;
    return m;
}

/* Pseudo-labels and confidences of every node from logits (N x C): the
 * training nodes' own labels with 1, elsewhere the argmax of the softmax
 * with its probability. */
static void fgl__fggp_pseudo(const float *logits, int N, int C, const int *y, const unsigned char *train, int *pl,
                             float *conf) {
    int v, k;
    for (v = 0; v < N; v++) {
        const float *l = logits + (size_t)v * C;
        double mx = l[0], s = 0;
        int best = 0;
        if (train && train[v] && y[v] >= 0 && y[v] < C) {
            pl[v] = y[v];
            conf[v] = 1;
            continue;
        }
        for (k = 1; k < C; k++)
            if (l[k] > l[best]) best = k;
        mx = l[best];
        for (k = 0; k < C; k++) s += exp((double)l[k] - mx);
        pl[v] = best;
        conf[v] = (float)(1 / s);
    }
}

static fgl_node *fgl__fggp_loss(fgl_client *c, const fgl_step *st) {
    fgl__fggp_data *d = (fgl__fggp_data *)fgl_get_scratch(&c->store, "fggp");
    fgl_tape *t = st->t;
    fgl_node *loss = NULL, *Z1 = st->fwd->rep, *L1 = st->fwd->logits;
    float w_ce2 = (float)fgl_get(c->set, "ce2"), w_pa = (float)fgl_get(c->set, "pa"), w_cl = (float)fgl_get(c->set, "cl");
    int N = Z1 ? Z1->rows : 0, C = L1 ? L1->cols : 0, i;
    if (!Z1 || !L1 || st->g != &c->data.full || !d->built) {
        fgl_client_fail(c, FGL_ERR_ARG, "fggp: a step outside the client's whole graph (node tasks train on it)");
        return NULL;
    }
    if (w_ce2 > 0 || w_pa > 0) {
        fgl_forward f2;
        if (fgl_model_forward(st->model, t, &d->g2, 1, &c->rng, &f2) || !f2.rep || !f2.logits) {
            fgl_client_fail(c, t->err ? t->err : FGL_ERR_ARG, "fggp: second view: %s", t->msg);
            return NULL;
        }
        if (w_ce2 > 0) loss = fgl_op_scale(t, fgl_op_cross_entropy(t, f2.logits, st->labels, st->mask), w_ce2);
        if (w_pa > 0) {
            int *pl = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)FGL__MAX(N, 1)), *row = NULL, U = 0, v;
            float *conf = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)FGL__MAX(N, 1)), *M;
            double *wsum = (double *)fgl_tape_alloc(t, sizeof(double) * (size_t)FGL__MAX(C, 1));
            if (pl && conf && wsum) row = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)FGL__MAX(C, 1));
            if (!row) return NULL;
            fgl__fggp_pseudo(L1->val, N, C, c->data.node->y, c->data.mask[FGL_SPLIT_TRAIN], pl, conf);
            for (i = 0; i < C; i++) wsum[i] = 0, row[i] = -1;
            for (v = 0; v < N; v++) wsum[pl[v]] += conf[v];
            for (i = 0; i < C; i++)
                if (wsum[i] > 0) row[i] = U++; /* the present classes, in class order */
            if (!(M = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)U * (size_t)N))) return NULL;
            memset(M, 0, sizeof(float) * (size_t)U * (size_t)N);
            for (v = 0; v < N; v++) M[(size_t)row[pl[v]] * N + v] = (float)(conf[v] / (wsum[pl[v]] + 1e-6));
            {
                fgl_node *W = fgl_op_const(t, M, U, N);
                fgl_node *pa = fgl__fggp_align_loss(t, fgl_op_matmul(t, W, f2.rep), fgl_op_matmul(t, W, Z1),
                                                    (float)fgl_get(c->set, "tau_pa"));
                if (pa) pa = fgl_op_scale(t, pa, w_pa);
                loss = loss && pa ? fgl_op_add(t, loss, pa) : pa ? pa : loss;
            }
        }
    }
    if (w_cl > 0) {
        const float *G;
        int *glabel, m = fgl__fggp_received(c, &G, &glabel), n = 0, *idx, *y;
        fgl_node *cl;
        if (m > 0) {
            idx = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)FGL__MAX(N, 1));
            y = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)FGL__MAX(N, 1));
            if (!idx || !y) return NULL;
            for (i = 0; i < N; i++)
                if ((!st->mask || st->mask[i]) && st->labels[i] >= 0) idx[n] = i, y[n++] = st->labels[i];
            if (n > 0 && (cl = fgl__fggp_cluster_loss(t, fgl_op_gather_rows(t, Z1, idx, n), y, G, glabel, m,
                                                      (float)fgl_get(c->set, "tau_cl")))) {
                cl = fgl_op_scale(t, cl, w_cl);
                loss = loss ? fgl_op_add(t, loss, cl) : cl;
            }
        }
    }
    return t->err ? NULL : loss;
}

/* Upload: confidence-weighted prototypes of every node's pseudo-label. */
static int fgl__fggp_upload(fgl_client *c) {
    int C = fgl__proto_C(c), N, d, v, k, *pl;
    float *p = fgl_up(c, "protos"), *cnt = fgl_up(c, "counts"), *conf;
    double *sum;
    fgl_forward fw;
    fgl_node *Z;
    if (fgl_get(c->set, "proto_nodes") != 0) return fgl__proto_upload(c); /* FedProto's: training nodes' means */
    if (!p || !cnt) return FGL_ERR_NOMEM;
    if (!(Z = fgl__fggp_rep(c, &c->model, &fw))) return c->error;
    N = Z->rows;
    d = Z->cols;
    if (fw.logits->cols > C) return fgl_client_fail(c, FGL_ERR_SHAPE, "fggp: %d classes, at most %d", fw.logits->cols, C);
    pl = (int *)fgl_scratch(&c->store, sizeof(int) * (size_t)FGL__MAX(N, 1));
    conf = (float *)fgl_scratch(&c->store, sizeof(float) * (size_t)FGL__MAX(N, 1));
    sum = (double *)fgl_scratch(&c->store, sizeof(double) * (size_t)C * (size_t)(d + 1));
    if (!pl || !conf || !sum) return FGL_ERR_NOMEM;
    fgl__fggp_pseudo(fw.logits->val, N, fw.logits->cols, c->data.node->y, c->data.mask[FGL_SPLIT_TRAIN], pl, conf);
    for (v = 0; v < N; v++) {
        double *s = sum + (size_t)pl[v] * (d + 1);
        for (k = 0; k < d; k++) s[k] += (double)conf[v] * Z->val[(size_t)v * d + k];
        s[d] += conf[v];
    }
    for (v = 0; v < C; v++) {
        const double *s = sum + (size_t)v * (d + 1);
        for (k = 0; k < d; k++) p[(size_t)v * d + k] = (float)(s[k] / (s[d] + 1e-6));
        cnt[v] = (float)s[d];
    }
    fgl_tape_reset(&c->tape);
    return FGL_OK;
}

static const float *fgl__fggp_scores(fgl_client *c) {
    const float *G;
    int *glabel, m, C = c->model.spec.out_dim;
    float *sc = (float *)fgl_get_scratch(&c->store, "scores");
    fgl_forward fw;
    fgl_node *Z;
    if (fgl_get(c->set, "predict") != FGL__FGGP_PROTO || !(m = fgl__fggp_received(c, &G, &glabel))) return NULL;
    if (!(Z = fgl__fggp_rep(c, &c->model, &fw))) return NULL;
    fgl__fggp_knn_scores(Z->val, Z->rows, Z->cols, G, glabel, m, C, (int)fgl_get(c->set, "k_eval"), 0.1f, sc);
    fgl_tape_reset(&c->tape);
    return sc;
}

/* --- the server ------------------------------------------------------------------- */

static int fgl__fggp_server_init(fgl_server *s) {
    int slots = (int)fgl_get(s->set, "slots"), i;
    size_t C = fgl_server_up_size(s, "counts"), d = fgl_server_up_size(s, "protos") / FGL__MAX(C, 1);
    float *lab, *g = fgl_new_floats(&s->store, "global", s->n_shared);
    if (!g) return FGL_ERR_NOMEM;
    fgl_server_pack(s, s->init, g);
    fgl_new_floats(&s->store, "cp", (size_t)slots * d);
    lab = fgl_new_floats(&s->store, "cl", (size_t)slots);
    fgl_new_ints(&s->store, "last", 2); /* clusters and classes of the last aggregation */
    if (s->store.err) return s->store.err;
    for (i = 0; i < slots; i++) lab[i] = -1;
    return FGL_OK;
}

static int fgl__fggp_aggregate(fgl_server *s) {
    int slots = (int)fgl_get(s->set, "slots"), K = s->n_clients, i, cl, q, rc, m = 0, classes = 0;
    size_t C = fgl_server_up_size(s, "counts"), d = fgl_server_up_size(s, "protos") / FGL__MAX(C, 1), k;
    float *cp = fgl_floats(&s->store, "cp"), *lab = fgl_floats(&s->store, "cl");
    float *X = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)K * d);
    int *part = (int *)fgl_scratch(&s->store, sizeof(int) * (size_t)K * 2), *cnt = part + K;
    rc = fgl_server_mean(s, "theta", fgl_floats(&s->store, "global"));
    if (rc && rc != FGL_ERR_EMPTY) return rc;
    if (!X || !part) return FGL_ERR_NOMEM;
    if (s->n_accepted == 0) return FGL_OK; /* nothing accepted: keep the prototypes */
    for (i = 0; i < slots; i++) lab[i] = -1;
    memset(cp, 0, sizeof(float) * (size_t)slots * d);
    for (cl = 0; cl < (int)C; cl++) {
        int n = 0, nc = 0;
        for (i = 0; i < K; i++) { /* the class's prototypes, client order */
            const float *p = fgl_upload(s, i, "protos"), *c = fgl_upload(s, i, "counts");
            if (p && c && c[cl] > 0) memcpy(X + (size_t)n++ * d, p + (size_t)cl * d, sizeof(float) * d);
        }
        if (!n) continue;
        if ((rc = fgl__finch(X, n, (int)d, part, &nc)))
            return fgl_server_fail(s, rc, "fggp: clustering the prototypes of class %d: %s", cl, fgl_result_name(rc));
        if (m + nc > slots)
            return fgl_server_fail(s, FGL_ERR_RANGE,
                                   "fggp: %d clusters of prototypes or more do not fit in slots = %d (raise it)",
                                   m + nc, slots);
        memset(cnt, 0, sizeof(int) * (size_t)nc);
        for (i = 0; i < n; i++) { /* each cluster's plain mean */
            for (k = 0; k < d; k++) cp[(size_t)(m + part[i]) * d + k] += X[(size_t)i * d + k];
            cnt[part[i]]++;
        }
        for (q = 0; q < nc; q++) {
            for (k = 0; k < d; k++) cp[(size_t)(m + q) * d + k] /= (float)cnt[q];
            lab[m + q] = (float)cl;
        }
        m += nc;
        classes++;
    }
    fgl_ints(&s->store, "last")[0] = m;
    fgl_ints(&s->store, "last")[1] = classes;
    return FGL_OK;
}

static void fgl__fggp_report(const fgl_observed *o, char *buf, size_t cap) {
    const int *last;
    if (!o->started || !cap) return;
    last = fgl_observed_ints(o, "last");
    snprintf(buf, cap, "\"prototypes\": %d, \"classes_with_prototypes\": %d", last[0], last[1]);
}

static fgl_algo fgl__fggp(void) {
    fgl_algo a = fgl_algo_new("fggp", "Wan et al. 2024: FedAvg with FINCH-clustered class prototypes, prototype "
                                      "contrastive losses and a kNN-augmented second view");
    int slots;
    fgl_algo_param_add(&a, "share", FGL_PARAM_GROUPS, (double)FGL_G_ALL, "parameter groups averaged");
    fgl_algo_param_add(&a, "knn", FGL_PARAM_INT, 3, "neighbours per node in the second view's kNN graph (authors 3)");
    fgl_algo_param_add(&a, "ce2", FGL_PARAM_FLOAT, 1, "weight of the cross-entropy on the second view");
    fgl_algo_param_add(&a, "pa", FGL_PARAM_FLOAT, 1, "weight of the two views' prototype alignment L_pa");
    fgl_algo_param_add(&a, "tau_pa", FGL_PARAM_FLOAT, 0.5, "temperature of L_pa (authors 0.5)");
    fgl_algo_param_add(&a, "cl", FGL_PARAM_FLOAT, 1,
                       "weight of the clustered-prototype contrastive term L_cl (paper; 0: the authors' code)");
    fgl_algo_param_add(&a, "tau_cl", FGL_PARAM_FLOAT, 0.02, "temperature of L_cl (authors' infoNCET 0.02)");
    fgl_algo_param_add(&a, "predict", FGL_PARAM_INT, FGL__FGGP_PROTO,
                       "proto: kNN over the clustered prototypes (paper, authors); head: the classifier");
    fgl_algo_param_choices(&a, "predict", "head|proto");
    fgl_algo_param_add(&a, "k_eval", FGL_PARAM_INT, 40, "prototypes voting in predict=proto (authors' knn 40)");
    fgl_algo_param_add(&a, "proto_nodes", FGL_PARAM_INT, 0,
                       "all: confidence-weighted over every node (authors, OpenFGL); train: FedProto's means");
    fgl_algo_param_choices(&a, "proto_nodes", "all|train");
    fgl_algo_param_add(&a, "slots", FGL_PARAM_INT, 64,
                       "rows of the download's prototype table (at least C floor(K / 2) for K >= 2 clients)");
    slots = fgl_algo_param_dim(&a, "slots");
    fgl_algo_upload(&a, "theta", FGL_SEND_MODEL, 0, 0, 0);
    fgl_algo_upload(&a, "n", FGL_SEND_WEIGHT, 0, 0, 0);
    /* raw: the server clusters them as sent into what the clients predict with; no rule covers that */
    fgl_algo_upload(&a, "protos", FGL_SEND_DATA, FGL_DIM_CLASSES, FGL_DIM_REP, FGL_PART_RAW);
    fgl_algo_upload(&a, "counts", FGL_SEND_DATA, FGL_DIM_CLASSES, 1, FGL_PART_RAW);
    fgl_algo_download(&a, "theta", FGL_SEND_MODEL, 0, 0, 0, "global");
    fgl_algo_download(&a, "protos", FGL_SEND_DATA, slots, FGL_DIM_REP, 0, "cp");
    fgl_algo_download(&a, "labels", FGL_SEND_DATA, slots, 1, 0, "cl");
    a.prepare_spec = fgl__fggp_spec;
    a.client_init = fgl__fggp_client_init;
    a.local_train = fgl__fggp_train;
    a.train.loss = fgl__fggp_loss;
    a.upload = fgl__fggp_upload;
    a.eval_scores = fgl__fggp_scores;
    a.server_init = fgl__fggp_server_init;
    a.aggregate = fgl__fggp_aggregate;
    a.report = fgl__fggp_report;
    return a;
}
/* --- src/fed/algos/fedgl.h --- */
/* --- FedGL (Chen et al., Information Sciences 2024) -------------------------------- */
/* "FedGL: Federated Graph Learning Framework with Global Self-Supervision"
 * (arXiv 2105.03170). FedAvg of the weights, and besides them each client
 * uploads, for every node of its graph, the model's prediction and an
 * embedding; the server fuses them into global self-supervision that it
 * sends back: pseudo-labels (confident fused predictions) and a pseudo-graph
 * (the kNN graph of the fused embeddings).
 *
 * Client, each round after local training (evaluation mode, on the graph it
 * trains on): up "logits" n_k x C, the model's logits of its n_k rows (the
 * server takes their softmax), and, embed = rep, "rep" n_k x d, what the
 * classifier reads (embed = logits, the default: the logits are the
 * embedding, as OpenFGL's model returns them); "gid" n_k: the rows' node ids
 * in the whole graph where the data has them (fglrun --halo: own rows g,
 * halo rows -(g + 1)). Every `update` rounds only (others: the weights).
 *
 * Node identity: a node is a node id where the data carries ids (the halo
 * split, where a halo row is another client's own node), and otherwise a
 * client's row, distinct from every other client's (fgl's Louvain, METIS
 * and random splits are partitions, so this is exact there; the FED-PUB
 * overlap split carries no ids, and a node held twice counts as two). OpenFGL
 * sends each client's global node ids (its global_map) and places the rows
 * in the whole graph by them; on its Louvain and METIS partitions no node is
 * held twice, so the placement is all they do, as here. Only own rows are
 * fused; a halo row receives what its owner's row gives.
 *
 * Server, rounds t with t % update == 0, over the uploading clients i with
 * weight r_i (training samples, fuse = samples: OpenFGL's sampling_rate; or
 * 1, fuse = equal) and p_iv = softmax(logits_iv):
 *     P_v = sum_i r_i [p_iv >= tau] p_iv / sum_i r_i      (per class),
 *     pseudo-label y~_v = argmax_c P_vc where sum_c P_vc > 0 (ties: lowest),
 *     E_v = sum_i r_i e_iv / sum_i r_i,
 *     S_vu = max(E_v . E_u, 0); N_k(v) its k largest u != v with S_vu > 0
 *            (ties: lowest index); Z_vu = S_vu / sum_{u' in N_k(v)} S_vu',
 *     W = I + (Z + Z^T) / 2,  A~ = D^-1/2 W D^-1/2,  D = diag(W 1),
 * and sends each client, for its rows, y~ (-1: none; "plabel") and the
 * pseudo-graph's entries among them: per row v its k listed neighbours'
 * rows in the client ("pg_idx", -1: not the client's) with
 * 0.5 Z_vu d_v^-1/2 d_u^-1/2 ("pg_val"), placed at (v, u) and (u, v), and
 * the diagonal 1 / d_v ("pg_self"): the restriction of A~ to its rows, A~
 * normalised with the whole graph's degrees.
 *
 * Client training, once it has them: the propagation matrix of its GCN is
 *     A_hat + mu A~|client         (mu = pgraph; A_hat = D^-1/2 (A + I) D^-1/2),
 * and the loss is
 *     CE(train) + lambda CE(y~ on its rows with a pseudo-label, training rows
 *     excepted);
 * the same matrix gives its uploads and its evaluation (eval_scores). The
 * pseudo-graph needs a model that reads the GCN matrix as it runs (GCN,
 * GCNII); pgraph = 0 runs with any.
 *
 * Where this departs from OpenFGL (docs/algorithms.md, "FedGL"): the
 * pseudo-graph is symmetrised (fgl's graphs are undirected and its GCN uses
 * its matrix as its own transpose; OpenFGL's D^-1/2 Z^T D^-1/2 is not
 * symmetric), a node is not its own kNN neighbour (OpenFGL ranks it among
 * the s, then sets the diagonal to 1), no random entry is put into an empty
 * column, the pseudo-labels are recomputed at every update (OpenFGL appends
 * them to lists it never clears and each client reads entry client_id: the
 * first round's, for good), and a client with no pseudo-labelled row adds
 * nothing (OpenFGL draws one random row and gives it label 0).
 *
 * Privacy: per-node logits, embeddings and node ids leave the client: they
 * are RAW parts (the server turns them into what clients train on), so
 * robust rules, DP and secure aggregation are refused at the start by the
 * runtime (secure aggregation could not hide per-node uploads anyway).
 * Node classification only.
 *
 * Defaults: OpenFGL's fedgl_config (ssl weight lambda 0.1, threshold tau
 * 0.5, k 100, update every round, fuse by samples), except pgraph = 1:
 * OpenFGL ships the pseudo-graph off (pseudo_graph_weight 0); the paper
 * uses both parts, and its weight could not be read from the stored
 * sources; 1 adds A~ at the local matrix's scale.
 * Sent per update round, beyond FedAvg's 4 (n + 1) up and 4 n down: up
 * 4 n_k (C [+ d] [+ 1]) bytes, down 4 n_k (2 k + 2) bytes (plabel, pg_*;
 * lambda = 0 leaves plabel out, pgraph = 0 the pg_ parts). */

enum { FGL__GL_EMB_LOGITS, FGL__GL_EMB_REP };
enum { FGL__GL_FUSE_SAMPLES, FGL__GL_FUSE_EQUAL };

/* The fusion. M entries (a client's own row each): node[e] in 0..N-1 its
 * node, w[e] its client's weight, logits + e C its logits, emb + e D its
 * embedding. label (N) gets y~ (-1: none), fused (N x D) E (zero rows for
 * nodes without entries). */
FGL__PRIVATE void fgl__gl_fuse(int N, int C, int D, int M, const int *node, const double *w, const float *logits,
                               const float *emb, double tau, int *label, float *fused) {
    double *P = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(N, 1) * (size_t)FGL__MAX(C, 1));
    double *E = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(N, 1) * (size_t)FGL__MAX(D, 1));
    double *W = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(N, 1));
    double *p = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(C, 1));
    int e, v, c;
    if (!P || !E || !W || !p) { /* nothing fused: no pseudo-label, zero embeddings */
        for (v = 0; v < N; v++) label[v] = -1;
        memset(fused, 0, sizeof(float) * (size_t)N * (size_t)D);
        goto done;
    }
    memset(P, 0, sizeof(double) * (size_t)N * (size_t)C);
    memset(E, 0, sizeof(double) * (size_t)N * (size_t)D);
    memset(W, 0, sizeof(double) * (size_t)N);
    for (e = 0; e < M; e++) {
        const float *l = logits + (size_t)e * C;
        double mx = l[0], s = 0;
        v = node[e];
        for (c = 1; c < C; c++) mx = l[c] > mx ? l[c] : mx;
        for (c = 0; c < C; c++) s += (p[c] = exp((double)l[c] - mx));
        for (c = 0; c < C; c++) {
            double q = p[c] / s;
            if (q >= tau) P[(size_t)v * C + c] += w[e] * q; /* below the threshold: 0 */
        }
        for (c = 0; c < D; c++) E[(size_t)v * D + c] += w[e] * (double)emb[(size_t)e * D + c];
        W[v] += w[e];
    }
    for (v = 0; v < N; v++) {
        const double *r = P + (size_t)v * C;
        double sum = 0;
        int best = 0;
        for (c = 0; c < C; c++) {
            sum += r[c];
            if (r[c] > r[best]) best = c;
        }
        label[v] = sum > 0 ? best : -1; /* the argmax of P_v / sum_i r_i is P_v's */
        for (c = 0; c < D; c++) fused[(size_t)v * D + c] = W[v] > 0 ? (float)(E[(size_t)v * D + c] / W[v]) : 0.0f;
    }
done:
    FGL_FREE(P);
    FGL_FREE(E);
    FGL_FREE(W);
    FGL_FREE(p);
}

/* Similarity order of nodes a and b: a below b (lower similarity, or equal
 * and a later index). */
static int fgl__gl_worse(const float *s, int a, int b) { return s[a] < s[b] || (s[a] == s[b] && a > b); }

/* The min-heap nb[0..n-1] (worst on top) with its top replaced by j. */
static void fgl__gl_sift(const float *s, int *nb, int n, int j) {
    int q = 0;
    for (;;) {
        int l = 2 * q + 1, m = l;
        if (l >= n) break;
        if (l + 1 < n && fgl__gl_worse(s, nb[l + 1], nb[l])) m = l + 1;
        if (!fgl__gl_worse(s, nb[m], j)) break;
        nb[q] = nb[m];
        q = m;
    }
    nb[q] = j;
}

/* The pseudo-graph of N embeddings (N x D): nbr (N x k) each node's listed
 * neighbours (-1 past the last), val (N x k) their 0.5 Z_vu d_v^-1/2 d_u^-1/2
 * (0 past the last), self (N) 1 / d_v. FGL_OK or FGL_ERR_NOMEM. */
FGL__PRIVATE int fgl__gl_graph(int N, int D, const float *emb, int k, int *nbr, float *val, float *self) {
    enum { BLOCK = 256 }; /* rows of similarities at a time: BLOCK x N floats */
    float *sim = (float *)FGL_MALLOC(sizeof(float) * (size_t)FGL__MIN(FGL__MAX(N, 1), BLOCK) * (size_t)FGL__MAX(N, 1));
    double *z = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(N, 1) * (size_t)FGL__MAX(k, 1));
    double *deg = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(N, 1));
    int v, j, q, v0, kk = FGL__MIN(k, N - 1);
    if (!sim || !z || !deg) {
        FGL_FREE(sim);
        FGL_FREE(z);
        FGL_FREE(deg);
        return FGL_ERR_NOMEM;
    }
    for (v = 0; v < N; v++) {
        deg[v] = 1.0; /* W's diagonal */
        for (q = 0; q < k; q++) nbr[(size_t)v * k + q] = -1, val[(size_t)v * k + q] = 0.0f;
    }
    for (v0 = 0; v0 < N && kk > 0; v0 += BLOCK) {
        int m = FGL__MIN(BLOCK, N - v0);
        fgl_gemm(0, 1, m, N, D, 1.0f, emb + (size_t)v0 * D, D, emb, D, 0.0f, sim, N); /* E_v . E_u, rows v0.. */
        for (v = v0; v < v0 + m; v++) {
            const float *s = sim + (size_t)(v - v0) * N;
            int *nb = nbr + (size_t)v * k, got = 0;
            double sum = 0;
            for (j = 0; j < N; j++) { /* the kk most similar other nodes with S > 0, ties to the lowest index: */
                if (j == v || !(s[j] > 0) || (got == kk && !(s[j] > s[nb[0]]))) continue; /* a heap, worst on top */
                if (got < kk) {
                    q = got++;
                    while (q > 0 && fgl__gl_worse(s, j, nb[(q - 1) / 2])) nb[q] = nb[(q - 1) / 2], q = (q - 1) / 2;
                    nb[q] = j;
                } else {
                    fgl__gl_sift(s, nb, got, j);
                }
            }
            for (q = got; q > 1; q--) { /* heap sort: best first */
                int last = nb[q - 1];
                nb[q - 1] = nb[0];
                fgl__gl_sift(s, nb, q - 1, last);
            }
            for (q = 0; q < got; q++) sum += (double)s[nb[q]];
            for (q = 0; q < got; q++) z[(size_t)v * k + q] = (double)s[nb[q]] / sum;
        }
    }
    for (v = 0; v < N; v++) /* d_v = 1 + (sum_u Z_vu + sum_u Z_uv) / 2 */
        for (q = 0; q < k && nbr[(size_t)v * k + q] >= 0; q++) {
            double h = 0.5 * z[(size_t)v * k + q];
            deg[v] += h;
            deg[nbr[(size_t)v * k + q]] += h;
        }
    for (v = 0; v < N; v++) {
        self[v] = (float)(1.0 / deg[v]);
        for (q = 0; q < k && nbr[(size_t)v * k + q] >= 0; q++)
            val[(size_t)v * k + q] =
                (float)(0.5 * z[(size_t)v * k + q] / sqrt(deg[v] * deg[nbr[(size_t)v * k + q]]));
    }
    FGL_FREE(sim);
    FGL_FREE(z);
    FGL_FREE(deg);
    return FGL_OK;
}

/* A client's propagation matrix with the pseudo-graph: gcn (n x n, with
 * values) + mu times the received entries (idx, val: n x k, self: n). */
FGL__PRIVATE int fgl__gl_augment(const fgl_csr *gcn, int k, const float *idx, const float *val, const float *self,
                                 float mu, fgl_csr *out, fgl_error *err) {
    int n = gcn->rows, v, q, rc;
    size_t cap = (size_t)gcn->nnz + (size_t)n + 2 * (size_t)n * (size_t)k, e = 0;
    int *r = (int *)FGL_MALLOC(sizeof(int) * cap), *c = (int *)FGL_MALLOC(sizeof(int) * cap);
    float *x = (float *)FGL_MALLOC(sizeof(float) * cap);
    if (!r || !c || !x || !gcn->values) {
        rc = fgl_error_set(err, r && c && x ? FGL_ERR_ARG : FGL_ERR_NOMEM, "fedgl: %s",
                           r && c && x ? "the GCN matrix has no values" : "out of memory for the pseudo-graph");
        goto done;
    }
    for (v = 0; v < n; v++)
        for (q = gcn->indptr[v]; q < gcn->indptr[v + 1]; q++) r[e] = v, c[e] = gcn->indices[q], x[e++] = gcn->values[q];
    for (v = 0; v < n; v++) {
        if (self[v] != 0) r[e] = v, c[e] = v, x[e++] = mu * self[v];
        for (q = 0; q < k; q++) {
            int u = (int)idx[(size_t)v * k + q];
            float a = mu * val[(size_t)v * k + q];
            if (u < 0 || u >= n || a == 0) continue;
            r[e] = v, c[e] = u, x[e++] = a;
            r[e] = u, c[e] = v, x[e++] = a;
        }
    }
    rc = fgl_csr_from_coo(n, n, (int)e, r, c, x, 1, out, err);
done:
    FGL_FREE(r);
    FGL_FREE(c);
    FGL_FREE(x);
    return rc;
}

static int fgl__gl_spec(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    double lam = fgl_get(set, "lambda"), tau = fgl_get(set, "tau"), mu = fgl_get(set, "pgraph");
    if (spec->task != FGL_TASK_NODE)
        return fgl_error_set(err, FGL_ERR_ARG, "fedgl: node classification only (its self-supervision is per-node "
                             "pseudo-labels and a graph of the nodes)");
    if (!(lam >= 0) || !(tau >= 0 && tau <= 1) || !(mu >= 0) || fgl_get(set, "update") < 1)
        return fgl_error_set(err, FGL_ERR_RANGE, "fedgl: lambda %g and pgraph %g must be >= 0, tau %g in [0, 1], "
                             "update %g >= 1", lam, mu, tau, fgl_get(set, "update"));
    return FGL_OK;
}

/* Client state: what it received last (kept between updates and saved with
 * the run): "pl" its rows' pseudo-labels, "pgi" / "pgv" / "pgs" its rows'
 * pseudo-graph entries, "has" [labels received, graph received]. */
static int fgl__gl_client_init(fgl_client *c) {
    const fgl_node_data *d = c->data.node;
    size_t n = (size_t)(d ? d->n_nodes : 1), k = (size_t)fgl_get(c->set, "k");
    int arch = c->model.spec.arch;
    if (!d) return fgl_client_fail(c, FGL_ERR_ARG, "fedgl: node classification only");
    if (fgl_get(c->set, "pgraph") > 0 && arch != FGL_ARCH_GCN && arch != FGL_ARCH_GCNII)
        return fgl_client_fail(c, FGL_ERR_ARG, "fedgl: the pseudo-graph is added to the GCN matrix a gcn or gcnii "
                               "model reads as it runs, and client %d runs %s: set pgraph=0 for it", c->id,
                               fgl_arch_name(arch));
    if ((int)fgl_client_dim(c, FGL_DIM_CLASSES) != c->model.spec.out_dim)
        return fgl_client_fail(c, FGL_ERR_SHAPE, "fedgl: client %d has %d classes of the run's %d", c->id,
                               c->model.spec.out_dim, (int)fgl_client_dim(c, FGL_DIM_CLASSES));
    fgl_new_floats(&c->store, "pl", n);
    fgl_new_floats(&c->store, "pgi", n * k);
    fgl_new_floats(&c->store, "pgv", n * k);
    fgl_new_floats(&c->store, "pgs", n);
    fgl_new_ints(&c->store, "has", 2);
    fgl_new_scratch(&c->store, "scores", sizeof(float) * n * (size_t)FGL__MAX(c->model.spec.out_dim, 1), NULL);
    return c->store.err;
}

static int fgl__gl_receive(fgl_client *c) {
    const fgl_node_data *d = c->data.node;
    const float *pl = fgl_down(c, "plabel"), *gi = fgl_down(c, "pg_idx"), *gv = fgl_down(c, "pg_val"),
                *gs = fgl_down(c, "pg_self");
    size_t n = (size_t)d->n_nodes, k = (size_t)fgl_get(c->set, "k"), j;
    int C = c->model.spec.out_dim, *has = fgl_ints(&c->store, "has");
    if (pl) {
        for (j = 0; j < n; j++)
            if (!(pl[j] >= -1 && pl[j] < C && pl[j] == (float)(int)pl[j]))
                return fgl_client_fail(c, FGL_ERR_ARG, "fedgl: pseudo-label %g of row %d", (double)pl[j], (int)j);
        memcpy(fgl_floats(&c->store, "pl"), pl, sizeof(float) * n);
        has[0] = 1;
    }
    if (gi || gv || gs) {
        if (!gi || !gv || !gs) return fgl_client_fail(c, FGL_ERR_ARG, "fedgl: a pseudo-graph without all its parts");
        for (j = 0; j < n * k; j++)
            if (!(gi[j] >= -1 && gi[j] < (float)n && gi[j] == (float)(int)gi[j]) || !isfinite(gv[j]))
                return fgl_client_fail(c, FGL_ERR_ARG, "fedgl: pseudo-graph entry %d: row %g, value %g", (int)j,
                                       (double)gi[j], (double)gv[j]);
        for (j = 0; j < n; j++)
            if (!isfinite(gs[j])) return fgl_client_fail(c, FGL_ERR_ARG, "fedgl: pseudo-graph diagonal not finite");
        memcpy(fgl_floats(&c->store, "pgi"), gi, sizeof(float) * n * k);
        memcpy(fgl_floats(&c->store, "pgv"), gv, sizeof(float) * n * k);
        memcpy(fgl_floats(&c->store, "pgs"), gs, sizeof(float) * n);
        has[1] = 1;
    }
    return FGL_OK;
}

/* The client's graph with the pseudo-graph added, into *aug (returns 1), or
 * 0 when it has none to add (or, after recording the failure, -1). */
static int fgl__gl_graph_on(fgl_client *c, fgl_csr *aug) {
    const fgl_csr *gcn = c->data.full.adj_gcn;
    float mu = (float)fgl_get(c->set, "pgraph");
    fgl_error err;
    memset(aug, 0, sizeof *aug);
    if (!(mu > 0) || !fgl_ints(&c->store, "has")[1]) return 0;
    if (!gcn || gcn->rows != c->data.node->n_nodes) {
        fgl_client_fail(c, FGL_ERR_ARG, "fedgl: client %d's graph has no GCN matrix to add the pseudo-graph to", c->id);
        return -1;
    }
    if (fgl__gl_augment(gcn, (int)fgl_get(c->set, "k"), fgl_floats(&c->store, "pgi"), fgl_floats(&c->store, "pgv"),
                        fgl_floats(&c->store, "pgs"), mu, aug, &err)) {
        fgl_client_fail(c, err.code ? err.code : FGL_ERR_NOMEM, "%s", err.msg);
        return -1;
    }
    return 1;
}

/* A forward pass (evaluation mode) over the client's graph as it trains on
 * it, on c->tape; NULL after recording the failure. */
static fgl_node *fgl__gl_forward(fgl_client *c, fgl_forward *fw) {
    fgl_csr aug;
    const fgl_csr *was = c->data.full.adj_gcn;
    int on = fgl__gl_graph_on(c, &aug), rc;
    if (on < 0) return NULL;
    if (on) c->data.full.adj_gcn = &aug;
    fgl_tape_reset(&c->tape);
    rc = fgl_model_forward(&c->model, &c->tape, &c->data.full, 0, NULL, fw);
    c->data.full.adj_gcn = was;
    fgl_csr_free(&aug);
    if (rc || !fw->logits || !fw->rep) {
        fgl_client_fail(c, c->tape.err ? c->tape.err : FGL_ERR_ARG, "fedgl: predictions: %s", c->tape.msg);
        return NULL;
    }
    return fw->logits;
}

static int fgl__gl_train(fgl_client *c) {
    fgl_csr aug;
    const fgl_csr *was = c->data.full.adj_gcn;
    int on = fgl__gl_graph_on(c, &aug), rc;
    if (on < 0) return c->error;
    if (on) c->data.full.adj_gcn = &aug; /* A_hat + mu A~ for this round's steps */
    rc = fgl_client_train(c, &c->model, &c->optim, &c->algo->train);
    c->data.full.adj_gcn = was;
    fgl_csr_free(&aug);
    return rc;
}

/* lambda CE over the rows with a pseudo-label that are not training rows. */
static fgl_node *fgl__gl_loss(fgl_client *c, const fgl_step *st) {
    float lam = (float)fgl_get(c->set, "lambda");
    const float *pl = fgl_floats(&c->store, "pl");
    const unsigned char *train = c->data.mask[FGL_SPLIT_TRAIN];
    fgl_node *L = st->fwd->logits;
    int *y, n, v, any = 0;
    unsigned char *m;
    if (!(lam > 0) || !fgl_ints(&c->store, "has")[0]) return NULL;
    if (!L || st->g != &c->data.full || L->rows != c->data.node->n_nodes) {
        fgl_client_fail(c, FGL_ERR_ARG, "fedgl: a step outside the client's whole graph (node tasks train on it)");
        return NULL;
    }
    n = L->rows;
    y = (int *)fgl_tape_alloc(st->t, sizeof(int) * (size_t)FGL__MAX(n, 1));
    m = (unsigned char *)fgl_tape_alloc(st->t, (size_t)FGL__MAX(n, 1));
    if (!y || !m) {
        fgl_client_fail(c, FGL_ERR_NOMEM, "fedgl: out of memory");
        return NULL;
    }
    for (v = 0; v < n; v++) {
        y[v] = (int)pl[v];
        m[v] = y[v] >= 0 && !(train && train[v]);
        any |= m[v];
    }
    return any ? fgl_op_scale(st->t, fgl_op_cross_entropy(st->t, L, y, m), lam) : NULL;
}

static int fgl__gl_upload(fgl_client *c) {
    const fgl_node_data *d = c->data.node;
    int rep = (int)fgl_get(c->set, "embed") == FGL__GL_EMB_REP, r;
    size_t n = (size_t)d->n_nodes, C = fgl_client_dim(c, FGL_DIM_CLASSES), R = fgl_client_dim(c, FGL_DIM_REP);
    fgl_forward fw;
    float *lo, *re = NULL, *gid = NULL;
    if (c->round % (int)fgl_get(c->set, "update") != 0 ||
        (!(fgl_get(c->set, "lambda") > 0) && !(fgl_get(c->set, "pgraph") > 0))) {
        fgl_up_drop(c, "logits");
        fgl_up_drop(c, "rep");
        fgl_up_drop(c, "gid");
        return FGL_OK;
    }
    if (!rep) fgl_up_drop(c, "rep");
    if (!d->gid) fgl_up_drop(c, "gid");
    if (!(lo = fgl_up(c, "logits")) || (rep && !(re = fgl_up(c, "rep"))) || (d->gid && !(gid = fgl_up(c, "gid"))))
        return FGL_ERR_NOMEM;
    if (!fgl__gl_forward(c, &fw)) return c->error;
    if ((size_t)fw.logits->rows != n || (size_t)fw.logits->cols != C || (rep && (size_t)fw.rep->cols != R))
        return fgl_client_fail(c, FGL_ERR_SHAPE, "fedgl: %d x %d predictions for %d nodes and %d classes",
                               fw.logits->rows, fw.logits->cols, (int)n, (int)C);
    memcpy(lo, fw.logits->val, sizeof(float) * n * C);
    if (rep) memcpy(re, fw.rep->val, sizeof(float) * n * R);
    for (r = 0; gid && r < (int)n; r++) {
        if (d->gid[r] < 0 || d->gid[r] >= (1 << 24))
            return fgl_client_fail(c, FGL_ERR_ARG, "fedgl: client %d's row %d has node id %d (0 .. 2^24 - 1)", c->id,
                                   r, d->gid[r]);
        gid[r] = (float)(r < d->n_own ? d->gid[r] : -d->gid[r] - 1);
    }
    return FGL_OK;
}

/* Evaluation on the graph the client trains on (its own scores only once it
 * has a pseudo-graph; before, the runtime evaluates the model). */
static const float *fgl__gl_scores(fgl_client *c) {
    float *out;
    fgl_forward fw;
    size_t len;
    if (!(fgl_get(c->set, "pgraph") > 0) || !fgl_ints(&c->store, "has")[1]) return NULL;
    if (!fgl__gl_forward(c, &fw)) return NULL;
    len = (size_t)fw.logits->rows * (size_t)fw.logits->cols;
    if (!(out = (float *)fgl_get_scratch(&c->store, "scores")) ||
        len != (size_t)c->data.node->n_nodes * (size_t)c->model.spec.out_dim)
        return NULL;
    memcpy(out, fw.logits->val, sizeof(float) * len);
    return out;
}

/* --- the server ------------------------------------------------------------------- */

/* Server state: "global" (FedAvg), and per row of every client (rows in
 * client order: "pl" T, "pgi" / "pgv" T x k, "pgs" T) what the last update
 * computed; "fresh" K: 1 for the clients it computed them for this round;
 * "stats": rows with a pseudo-label, rows, in-client pseudo-graph entries,
 * updates. */
static int fgl__gl_server_init(fgl_server *s) {
    size_t T = 0, k = (size_t)fgl_get(s->set, "k");
    int i, rc = fgl__avg_server_init(s);
    if (rc) return rc;
    for (i = 0; i < s->n_clients; i++) T += (size_t)s->n_nodes[i];
    fgl_new_floats(&s->store, "pl", T);
    fgl_new_floats(&s->store, "pgi", T * k);
    fgl_new_floats(&s->store, "pgv", T * k);
    fgl_new_floats(&s->store, "pgs", T);
    fgl_new_ints(&s->store, "fresh", (size_t)s->n_clients);
    fgl_new_ints(&s->store, "stats", 4);
    return s->store.err;
}

/* An own row of a client: its node key (an id, or 2^24 + its place among
 * all clients' rows), client and row. */
typedef struct fgl__gl_row {
    long key;
    int client, row;
} fgl__gl_row;

static int fgl__gl_row_cmp(const void *a, const void *b) {
    const fgl__gl_row *x = (const fgl__gl_row *)a, *y = (const fgl__gl_row *)b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->client != y->client) return x->client < y->client ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* The node of a key among the N sorted distinct keys, or -1. */
static int fgl__gl_find(const long *keys, int N, long key) {
    int lo = 0, hi = N - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (keys[mid] == key) return mid;
        if (keys[mid] < key) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

static int fgl__gl_update(fgl_server *s) {
    int K = s->n_clients, C = (int)fgl_server_dim(s, FGL_DIM_CLASSES), k = (int)fgl_get(s->set, "k");
    int rep = (int)fgl_get(s->set, "embed") == FGL__GL_EMB_REP, equal = (int)fgl_get(s->set, "fuse") == 1;
    int D = rep ? (int)fgl_server_dim(s, FGL_DIM_REP) : C, i, r, q, M = 0, N = 0, rc = FGL_OK;
    int do_graph = fgl_get(s->set, "pgraph") > 0, *fresh = fgl_ints(&s->store, "fresh"), *st = fgl_ints(&s->store, "stats");
    size_t T = 0, *off = (size_t *)FGL_MALLOC(sizeof(size_t) * (size_t)(K + 1)), e;
    fgl__gl_row *rows = NULL;
    long *keys = NULL;
    int *node = NULL, *label = NULL, *nbr = NULL, *at = NULL;
    float *lo = NULL, *em = NULL, *fused = NULL, *val = NULL, *self = NULL;
    float *pl = fgl_floats(&s->store, "pl"), *pgi = fgl_floats(&s->store, "pgi"), *pgv = fgl_floats(&s->store, "pgv"),
          *pgs = fgl_floats(&s->store, "pgs");
    if (!off) return FGL_ERR_NOMEM;
    for (i = 0, off[0] = 0; i < K; i++) off[i + 1] = off[i] + (size_t)s->n_nodes[i];
    T = off[K];
    for (i = 0; i < K; i++) fresh[i] = 0;
    rows = (fgl__gl_row *)FGL_MALLOC(sizeof(fgl__gl_row) * FGL__MAX(T, 1));
    keys = (long *)FGL_MALLOC(sizeof(long) * FGL__MAX(T, 1));
    node = (int *)FGL_MALLOC(sizeof(int) * FGL__MAX(T, 1));
    if (!rows || !keys || !node) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    /* the uploading clients' own rows, sorted by key: the nodes */
    for (i = 0; i < K; i++) {
        const float *g = fgl_upload(s, i, "gid"), *L = fgl_upload(s, i, "logits");
        if (!s->up[i] || !L) continue;
        if (rep && !fgl_upload(s, i, "rep")) {
            rc = fgl_server_fail(s, FGL_ERR_ARG, "fedgl: client %d's upload lacks its embeddings (embed=rep)", i);
            goto done;
        }
        fresh[i] = 1;
        for (r = 0; r < s->n_nodes[i]; r++) {
            if (g && !(g[r] >= -(float)(1 << 24) && g[r] < (float)(1 << 24) && g[r] == (float)(long)g[r])) {
                rc = fgl_server_fail(s, FGL_ERR_ARG, "fedgl: client %d's row %d has node id %g", i, r, (double)g[r]);
                goto done;
            }
            if (g && g[r] < 0) continue; /* a halo row: fused from its owner's row */
            rows[M].key = g ? (long)g[r] : (long)(1 << 24) + (long)(off[i] + (size_t)r);
            rows[M].client = i;
            rows[M++].row = r;
        }
    }
    if (!M) goto done; /* nobody uploaded predictions: the clients keep what they have */
    qsort(rows, (size_t)M, sizeof *rows, fgl__gl_row_cmp);
    for (e = 0; e < (size_t)M; e++) {
        if (!N || keys[N - 1] != rows[e].key) keys[N++] = rows[e].key;
        node[e] = N - 1;
    }
    { /* the weights of fgl__gl_fuse follow the sorted rows */
        double *ws = (double *)FGL_MALLOC(sizeof(double) * (size_t)M);
        lo = (float *)FGL_MALLOC(sizeof(float) * (size_t)M * (size_t)C);
        em = (float *)FGL_MALLOC(sizeof(float) * (size_t)M * (size_t)D);
        label = (int *)FGL_MALLOC(sizeof(int) * (size_t)N);
        fused = (float *)FGL_MALLOC(sizeof(float) * (size_t)N * (size_t)D);
        if (!ws || !lo || !em || !label || !fused) {
            FGL_FREE(ws);
            rc = FGL_ERR_NOMEM;
            goto done;
        }
        for (e = 0; e < (size_t)M; e++) {
            int ci = rows[e].client, rr = rows[e].row;
            const float *L = fgl_upload(s, ci, "logits"), *E = rep ? fgl_upload(s, ci, "rep") : L;
            const float *n = fgl_upload(s, ci, "n");
            ws[e] = equal ? 1.0 : (n && n[0] > 0 ? (double)n[0] : 0.0);
            memcpy(lo + e * (size_t)C, L + (size_t)rr * C, sizeof(float) * (size_t)C);
            memcpy(em + e * (size_t)D, E + (size_t)rr * D, sizeof(float) * (size_t)D);
        }
        fgl__gl_fuse(N, C, D, M, node, ws, lo, em, fgl_get(s->set, "tau"), label, fused);
        FGL_FREE(ws);
    }
    if (do_graph) {
        nbr = (int *)FGL_MALLOC(sizeof(int) * (size_t)N * (size_t)k);
        val = (float *)FGL_MALLOC(sizeof(float) * (size_t)N * (size_t)k);
        self = (float *)FGL_MALLOC(sizeof(float) * (size_t)N);
        if (!nbr || !val || !self || fgl__gl_graph(N, D, fused, k, nbr, val, self)) {
            rc = FGL_ERR_NOMEM;
            goto done;
        }
    }
    if (!(at = (int *)FGL_MALLOC(sizeof(int) * (size_t)N))) {
        rc = FGL_ERR_NOMEM;
        goto done;
    }
    st[0] = st[2] = 0;
    st[1] = 0;
    st[3]++;
    for (i = 0; i < K; i++) { /* each fresh client's rows: their node's label, and its graph entries among them */
        const float *g = fgl_upload(s, i, "gid");
        int n_i = s->n_nodes[i], v;
        if (!fresh[i]) continue;
        for (v = 0; v < N; v++) at[v] = -1;
        for (r = 0; r < n_i; r++) { /* the node of each row (-1: a halo row whose owner sent nothing) */
            long key = g ? (g[r] >= 0 ? (long)g[r] : (long)(-g[r] - 1)) : (long)(1 << 24) + (long)(off[i] + (size_t)r);
            node[r] = fgl__gl_find(keys, N, key);
            if (node[r] >= 0 && at[node[r]] < 0) at[node[r]] = r;
        }
        for (r = 0; r < n_i; r++) {
            size_t o = off[i] + (size_t)r;
            v = node[r];
            pl[o] = v >= 0 ? (float)label[v] : -1.0f;
            st[0] += pl[o] >= 0;
            st[1]++;
            if (!do_graph) continue;
            pgs[o] = v >= 0 ? self[v] : 0.0f;
            for (q = 0; q < k; q++) {
                int u = v >= 0 ? nbr[(size_t)v * k + q] : -1, ur = u >= 0 ? at[u] : -1;
                pgi[o * k + q] = (float)ur;
                pgv[o * k + q] = ur >= 0 ? val[(size_t)v * k + q] : 0.0f;
                st[2] += ur >= 0;
            }
        }
    }
done:
    FGL_FREE(off);
    FGL_FREE(rows);
    FGL_FREE(keys);
    FGL_FREE(node);
    FGL_FREE(lo);
    FGL_FREE(em);
    FGL_FREE(label);
    FGL_FREE(fused);
    FGL_FREE(nbr);
    FGL_FREE(val);
    FGL_FREE(self);
    FGL_FREE(at);
    return rc;
}

static int fgl__gl_aggregate(fgl_server *s) {
    int rc = fgl__avg_aggregate(s), i;
    if (rc) return rc;
    for (i = 0; i < s->n_clients; i++) fgl_ints(&s->store, "fresh")[i] = 0;
    if (s->round % (int)fgl_get(s->set, "update") != 0) return FGL_OK;
    return fgl__gl_update(s);
}

static int fgl__gl_download(fgl_server *s, int client, fgl_msg *down) {
    size_t off = 0, n = (size_t)s->n_nodes[client], k = (size_t)fgl_get(s->set, "k");
    float *p;
    int i;
    (void)down;
    if (!fgl_ints(&s->store, "fresh")[client]) return FGL_OK;
    for (i = 0; i < client; i++) off += (size_t)s->n_nodes[i];
    if (fgl_get(s->set, "lambda") > 0) {
        if (!(p = fgl_download_part(s, client, "plabel"))) return FGL_ERR_NOMEM;
        memcpy(p, fgl_floats(&s->store, "pl") + off, sizeof(float) * n);
    }
    if (fgl_get(s->set, "pgraph") > 0) {
        if (!(p = fgl_download_part(s, client, "pg_idx"))) return FGL_ERR_NOMEM;
        memcpy(p, fgl_floats(&s->store, "pgi") + off * k, sizeof(float) * n * k);
        if (!(p = fgl_download_part(s, client, "pg_val"))) return FGL_ERR_NOMEM;
        memcpy(p, fgl_floats(&s->store, "pgv") + off * k, sizeof(float) * n * k);
        if (!(p = fgl_download_part(s, client, "pg_self"))) return FGL_ERR_NOMEM;
        memcpy(p, fgl_floats(&s->store, "pgs") + off, sizeof(float) * n);
    }
    return FGL_OK;
}

static void fgl__gl_report(const fgl_observed *o, char *buf, size_t cap) {
    const int *st = fgl_observed_ints(o, "stats");
    if (!st || !st[3]) return;
    snprintf(buf, cap, "\"pseudo_labelled\": %.4f, \"pseudo_edges_per_row\": %.4f, \"updates\": %d",
             st[1] ? (double)st[0] / st[1] : 0.0, st[1] ? (double)st[2] / st[1] : 0.0, st[3]);
}

static fgl_algo fgl__fedgl(void) {
    fgl_algo a = fgl__avg_base("fedgl", "Chen et al. 2024: FedAvg with global self-supervision: pseudo-labels and "
                               "a pseudo-graph fused on the server from the clients' per-node predictions and "
                               "embeddings", FGL_G_ALL, "parameter groups averaged");
    int k;
    fgl_algo_param_add(&a, "lambda", FGL_PARAM_FLOAT, 0.1, "weight of the pseudo-label loss (OpenFGL's ssl_loss_weight)");
    fgl_algo_param_add(&a, "tau", FGL_PARAM_FLOAT, 0.5,
                       "a client's class probability counts in the fusion from this on (probability_threshold)");
    fgl_algo_param_add(&a, "pgraph", FGL_PARAM_FLOAT, 1.0,
                       "weight of the pseudo-graph added to the GCN matrix (0: off, OpenFGL's default)");
    fgl_algo_param_add(&a, "k", FGL_PARAM_INT, 100, "neighbours of a node in the pseudo-graph (OpenFGL's k)");
    fgl_algo_param_add(&a, "update", FGL_PARAM_INT, 1, "rounds between updates (pseudo_labels_update_epoch)");
    fgl_algo_param_add(&a, "embed", FGL_PARAM_INT, FGL__GL_EMB_LOGITS,
                       "the embedding sent: the logits (OpenFGL) or rep, what the classifier reads");
    fgl_algo_param_choices(&a, "embed", "logits|rep");
    fgl_algo_param_add(&a, "fuse", FGL_PARAM_INT, FGL__GL_FUSE_SAMPLES,
                       "clients weighted in the fusion by training samples (sampling_rate) or alike (mean)");
    fgl_algo_param_choices(&a, "fuse", "samples|equal");
    k = fgl_algo_param_dim(&a, "k");
    fgl_algo_upload(&a, "logits", FGL_SEND_DATA, FGL_DIM_NODES, FGL_DIM_CLASSES, FGL_PART_OPTIONAL | FGL_PART_RAW);
    fgl_algo_upload(&a, "rep", FGL_SEND_DATA, FGL_DIM_NODES, FGL_DIM_REP, FGL_PART_OPTIONAL | FGL_PART_RAW);
    fgl_algo_upload(&a, "gid", FGL_SEND_DATA, FGL_DIM_NODES, 1, FGL_PART_OPTIONAL | FGL_PART_RAW);
    fgl_algo_download(&a, "plabel", FGL_SEND_DATA, FGL_DIM_NODES, 1, FGL_PART_OPTIONAL, NULL);
    fgl_algo_download(&a, "pg_idx", FGL_SEND_DATA, FGL_DIM_NODES, k, FGL_PART_OPTIONAL, NULL);
    fgl_algo_download(&a, "pg_val", FGL_SEND_DATA, FGL_DIM_NODES, k, FGL_PART_OPTIONAL, NULL);
    fgl_algo_download(&a, "pg_self", FGL_SEND_DATA, FGL_DIM_NODES, 1, FGL_PART_OPTIONAL, NULL);
    a.prepare_spec = fgl__gl_spec;
    a.client_init = fgl__gl_client_init;
    a.receive = fgl__gl_receive;
    a.local_train = fgl__gl_train;
    a.train.loss = fgl__gl_loss;
    a.upload = fgl__gl_upload;
    a.eval_scores = fgl__gl_scores;
    a.server_init = fgl__gl_server_init;
    a.aggregate = fgl__gl_aggregate;
    a.download = fgl__gl_download;
    a.report = fgl__gl_report;
    return a;
}
/* --- src/fed/algos/feddep.h --- */
/* --- FedDEP (Zhang et al., SDM 2024) ---------------------------------------------- */
/* "Deep Efficient Private Neighbor Generation for Subgraph Federated
 * Learning" (arXiv 2401.04336): FedSage+ (fedsage.h) with missing
 * neighbours generated as deep embeddings, not raw features.
 *
 * Client, once (client_init, from its data and the run seed): an embedding
 * GNN (2-layer mean-SAGE, width emb_dim, linear head) trains enc_epochs
 * full-batch Adam steps (lr 0.01, weight decay 5e-4, dropout 0.5) on the
 * client's training labels; z_u = tanh(its last layer's output), in
 * evaluation mode. K-means (k-means++ seeding) puts the z_u in num_proto
 * clusters; the centres are the client's embedding prototypes and node u's
 * deep embedding is its centre p_u ("embedding prototyping": what is shared
 * is num_proto centres, never a node's embedding). The impaired graph (as
 * FedSage+'s, fgl__fs_build) hides floor(hidden_portion m) of the client's m
 * validation nodes (the authors' choice); remaining node v misses M_v.
 *
 * Generator (per client, never averaged): an encoder (fedsage.h's 2-layer
 * mean-SAGE, width latent, dropout 0.5) gives s_v; dGen n_v = ReLU(s_v w_d
 * + b_d) (its loss reads the value before the ReLU, as FedSage+'s); eGen
 *     H_v = tanh(Dropout(ReLU(ReLU((s_v + eps) W_1 + b_1) W_2 + b_2)) W_3 + b_3),
 * eps ~ N(0, 1) in training (widths gen_hidden, gen_hidden2, num_pred
 * emb_dim) gives P = num_pred deep embeddings H_v[0..P-1]. With S the slots
 * (v, p < min(P, |M_v|)), the loss per step on the impaired graph is
 *     lambda_d SmoothL1(n_v, |M_v|)                                (mean over v)
 *   + lambda_e sum_S min_{u in M_v} ||H_v[p] - p_u||^2 / E         (mean over S)
 *   + lambda_e alpha (K - 1) sum_S min_q ||H_v[p] - q||^2 / E      (mean over S)
 *   + lambda_c CE(f_loc(x, zbar), y)                 (the impaired training nodes)
 * where q runs over the num_proto prototypes of one other client received
 * this round (a rotation over rounds, as FedSage+'s; K - 1 scales that one
 * client to all of them), zbar_v = (1/P) sum_{p < k_v} H_v[p] with k_v =
 * min(P, round(n_v)), and f_loc is a local classifier of the run's model
 * fused with zbar (below) that trains with the generator (the authors'
 * joint loss) and is then dropped. Round 0 takes pre_steps + gen_steps
 * Adam steps (gen_lr, gen_wd), rounds 1 .. gen_rounds-1 gen_steps each.
 *
 * Classifier (rounds gen_rounds ..): mending (the first such round, and
 * again after a resume, from the stored generator, deterministic): the
 * generator in evaluation mode on the client's whole subgraph gives every
 * node v its k_v deep neighbours and zbar_v (no node is added). The
 * classifier is the run's model f (FedAvg'd: theta) with zbar fused before
 * its head:
 *     logits_v = head(rep_v + zbar_v W_z + b_z)
 * (rep: what the head reads, R wide; a model without a head adds it to
 * its logits); local_epochs full-batch steps of the run's optimizer on
 * cross-entropy; evaluated the same way on the client's own nodes. W_z,
 * b_z are averaged with theta (by training samples: fuse_avg = 1, the
 * authors' whole classifier averaged) or stay on the client (fuse_avg =
 * 0). num_pred = 0 is FedAvg, bit for bit.
 *
 * Sent: up in generator rounds 4 num_proto emb_dim bytes (the prototypes,
 * "protos"), down the same (another client's); in classifier rounds, with
 * fuse_avg, 4 (emb_dim + 1) R bytes up and down (W_z, b_z and their mean);
 * FedAvg's model parts every round. The server averages W_z, b_z by its own
 * code (RAW): DP, secure aggregation and robust rules are refused at the
 * start (the table declares the parts whatever fuse_avg is).
 * Defaults: the authors' code (feddep_on_cora5.yaml) and OpenFGL's config:
 * num_pred 5, num_proto 5, hidden_portion 0.5, emb_dim 128, latent 128, eGen
 * 256 and 2048 wide, enc_epochs 50, one local pre-training step, 3
 * generator rounds, lambda_d = lambda_e = lambda_c = 1. docs/algorithms.md,
 * "FedDEP", says where paper, authors' code and OpenFGL differ, and what
 * this follows. */

/* A client's derived data (rebuilt from the seed and its data, never saved). */
typedef struct fgl__dep_data {
    fgl__fs_data fs;       /* the impaired graph, the local graph, dense features (fedsage.h) */
    int E, K;              /* emb_dim, num_proto */
    float *protos;         /* K x E */
    int *assign;           /* n: each node's prototype */
    fgl_gnn_graph imp_cg;  /* the impaired graph for the run's model (f_loc) */
    int built_imp_cg;
    int *imp_y;            /* labels of the impaired graph's nodes */
    unsigned char *imp_train;
    float *zbar;           /* n x E after mending */
    int mended;
    float *scores;         /* n x C, what eval_scores returns */
} fgl__dep_data;

static void fgl__dep_destroy(void *p) {
    fgl__dep_data *d = (fgl__dep_data *)p;
    fgl__fs_destroy(&d->fs);
    if (d->built_imp_cg) fgl_gnn_graph_free(&d->imp_cg);
    FGL_FREE(d->protos);
    FGL_FREE(d->assign);
    FGL_FREE(d->imp_y);
    FGL_FREE(d->imp_train);
    FGL_FREE(d->zbar);
    FGL_FREE(d->scores);
}

FGL__PRIVATE const float *fgl__feddep_zbar(const fgl_client *c) {
    const fgl__dep_data *d =
        c->set && fgl_get(c->set, "num_pred") > 0 ? (const fgl__dep_data *)fgl_get_scratch(&c->store, "dep") : NULL;
    return d && d->mended ? d->zbar : NULL;
}

FGL__PRIVATE const float *fgl__feddep_protos(const fgl_client *c, const int **assign) {
    const fgl__dep_data *d =
        c->set && fgl_get(c->set, "num_pred") > 0 ? (const fgl__dep_data *)fgl_get_scratch(&c->store, "dep") : NULL;
    if (assign) *assign = d ? d->assign : NULL;
    return d ? d->protos : NULL;
}

FGL__PRIVATE double fgl__feddep_nearest(const float *h, const float *q, int m, int E, int *best) {
    double bd = 0;
    int k;
    *best = 0;
    for (k = 0; k < m; k++) {
        double dd = fgl__fs_dist2(h, q + (size_t)k * E, E);
        if (k == 0 || dd < bd) bd = dd, *best = k;
    }
    return E > 0 ? bd / E : 0;
}

FGL__PRIVATE int fgl__feddep_kmeans(const float *x, int n, int E, int K, int iters, fgl_rng *rng, float *centres,
                                    int *assign) {
    double *d2 = (double *)FGL_MALLOC(sizeof(double) * (size_t)(n + 1));
    double *sum = (double *)FGL_MALLOC(sizeof(double) * ((size_t)K * (size_t)E + 1));
    int *cnt = (int *)FGL_MALLOC(sizeof(int) * (size_t)(K + 1));
    int i, k, j, it;
    if (!d2 || !sum || !cnt || K < 1 || K > n) {
        FGL_FREE(d2);
        FGL_FREE(sum);
        FGL_FREE(cnt);
        return K < 1 || K > n ? FGL_ERR_ARG : FGL_ERR_NOMEM;
    }
    /* k-means++: the first centre uniform, each next one drawn with probability ~ its squared distance */
    k = (int)fgl_rng_below(rng, (uint64_t)n);
    memcpy(centres, x + (size_t)k * E, sizeof(float) * (size_t)E);
    for (i = 0; i < n; i++) d2[i] = fgl__fs_dist2(x + (size_t)i * E, centres, E);
    for (k = 1; k < K; k++) {
        double tot = 0, r;
        int pick = n - 1;
        for (i = 0; i < n; i++) tot += d2[i];
        r = fgl_rng_uniform(rng) * tot;
        if (tot > 0) {
            for (i = 0; i < n; i++) {
                r -= d2[i];
                if (r < 0 && d2[i] > 0) {
                    pick = i;
                    break;
                }
            }
        } else {
            pick = (int)fgl_rng_below(rng, (uint64_t)n); /* all rows on the centres: any row */
        }
        memcpy(centres + (size_t)k * E, x + (size_t)pick * E, sizeof(float) * (size_t)E);
        for (i = 0; i < n; i++) {
            double dd = fgl__fs_dist2(x + (size_t)i * E, centres + (size_t)k * E, E);
            if (dd < d2[i]) d2[i] = dd;
        }
    }
    for (i = 0; i < n; i++) assign[i] = -1;
    for (it = 0; it < iters; it++) { /* Lloyd: nearest centre (the lowest index on ties), then the means */
        int moved = 0;
        for (i = 0; i < n; i++) {
            int b;
            fgl__feddep_nearest(x + (size_t)i * E, centres, K, E, &b);
            moved += b != assign[i];
            assign[i] = b;
        }
        if (!moved) break;
        memset(sum, 0, sizeof(double) * (size_t)K * (size_t)E);
        memset(cnt, 0, sizeof(int) * (size_t)K);
        for (i = 0; i < n; i++) {
            cnt[assign[i]]++;
            for (j = 0; j < E; j++) sum[(size_t)assign[i] * E + j] += x[(size_t)i * E + j];
        }
        for (k = 0; k < K; k++) /* an empty cluster keeps its centre */
            for (j = 0; cnt[k] > 0 && j < E; j++) centres[(size_t)k * E + j] = (float)(sum[(size_t)k * E + j] / cnt[k]);
    }
    FGL_FREE(d2);
    FGL_FREE(sum);
    FGL_FREE(cnt);
    return FGL_OK;
}

static int fgl__dep_check(const fgl_settings *set, fgl_model_spec *spec, fgl_error *err) {
    double h = fgl_get(set, "hidden_portion");
    if (spec->task != FGL_TASK_NODE) return fgl_error_set(err, FGL_ERR_ARG, "feddep: node classification only");
    if (fgl_get(set, "gen_rounds") < 0 || fgl_get(set, "num_pred") < 0 || fgl_get(set, "num_pred") > 64 ||
        fgl_get(set, "pre_steps") < 0 || fgl_get(set, "gen_steps") < 1 || fgl_get(set, "enc_epochs") < 0)
        return fgl_error_set(err, FGL_ERR_RANGE, "feddep: gen_rounds, pre_steps, enc_epochs >= 0, num_pred in "
                             "0..64, gen_steps >= 1");
    if (fgl_get(set, "num_proto") < 1 || fgl_get(set, "emb_dim") < 1 || fgl_get(set, "latent") < 1 ||
        fgl_get(set, "gen_hidden") < 1 || fgl_get(set, "gen_hidden2") < 1)
        return fgl_error_set(err, FGL_ERR_RANGE, "feddep: num_proto, emb_dim, latent, gen_hidden, gen_hidden2 >= 1");
    if (!(h >= 0 && h < 1)) return fgl_error_set(err, FGL_ERR_RANGE, "feddep: hidden_portion = %g, not in [0, 1)", h);
    if (!(fgl_get(set, "gen_lr") > 0) || !(fgl_get(set, "gen_wd") >= 0) || !(fgl_get(set, "lambda_d") >= 0) ||
        !(fgl_get(set, "lambda_e") >= 0) || !(fgl_get(set, "lambda_c") >= 0) || !(fgl_get(set, "alpha") >= 0))
        return fgl_error_set(err, FGL_ERR_RANGE, "feddep: gen_lr > 0; gen_wd, lambda_d, lambda_e, lambda_c, "
                             "alpha >= 0");
    return FGL_OK;
}

/* The embedding GNN trained on the client's labels, its embeddings
 * clustered: d->protos and d->assign. */
static int fgl__dep_prototypes(fgl_client *c, fgl__dep_data *d) {
    const fgl_node_data *nd = c->data.node;
    int n = nd->n_nodes, E = d->E, K = d->K, Ke = K < n ? K : n, e, i, rc;
    int epochs = (int)fgl_get(c->set, "enc_epochs");
    fgl_model_spec s = fgl_model_spec_default(FGL_ARCH_SAGE, FGL_TASK_NODE, d->fs.F, c->model.spec.out_dim);
    fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
    fgl_tape *t = fgl_get_tape(&c->store, "gen_tape");
    fgl_model m;
    fgl_optim o;
    fgl_forward fw;
    fgl_error err;
    fgl_rng r;
    float *z;
    d->protos = (float *)fgl__fs_zalloc(sizeof(float) * (size_t)K * (size_t)E);
    d->assign = (int *)fgl__fs_zalloc(sizeof(int) * (size_t)(n + 1));
    if (!d->protos || !d->assign) return FGL_ERR_NOMEM;
    if (n == 0) return FGL_OK;
    s.hidden = E;
    s.layers = 2;
    oc.lr = 0.01f;
    oc.weight_decay = 5e-4f;
    if ((rc = fgl_model_init(&m, &s, c->fed->seed * 1000003u + 0x64656d62ull + (uint64_t)c->id, &err))) return rc;
    if ((rc = fgl_optim_init(&o, oc, &m.params))) {
        fgl_model_free(&m);
        return rc;
    }
    fgl_rng_init(&r, c->fed->seed, 0x64656e63ull + (uint64_t)c->id); /* "denc" */
    for (e = 0; e < epochs && !rc; e++) {
        fgl_node *loss;
        fgl_tape_reset(t);
        fgl_params_zero_grad(&m.params);
        if ((rc = fgl_model_forward(&m, t, &d->fs.full_g, 1, &r, &fw)) || !fw.logits) break;
        loss = fgl_op_cross_entropy(t, fw.logits, nd->y, c->data.mask[FGL_SPLIT_TRAIN]);
        if ((rc = fgl_tape_backward(t, loss))) break;
        fgl_optim_step(&o, &m.params);
    }
    fgl_tape_reset(t);
    if (!rc) rc = fgl_model_forward(&m, t, &d->fs.full_g, 0, &r, &fw);
    z = rc ? NULL : (float *)FGL_MALLOC(sizeof(float) * (size_t)n * (size_t)E);
    if (!rc && !z) rc = FGL_ERR_NOMEM;
    if (!rc) {
        for (i = 0; i < n * E; i++) z[i] = tanhf(fw.node_emb->val[i]);
        fgl_rng_init(&r, c->fed->seed, 0x646b6d6eull + (uint64_t)c->id); /* "dkmn" */
        rc = fgl__feddep_kmeans(z, n, E, Ke, 100, &r, d->protos, d->assign);
        for (i = Ke; i < K; i++) /* fewer nodes than prototypes: the centres again */
            memcpy(d->protos + (size_t)i * E, d->protos + (size_t)(i % Ke) * E, sizeof(float) * (size_t)E);
    }
    fgl_tape_reset(t);
    FGL_FREE(z);
    fgl_optim_free(&o);
    fgl_model_free(&m);
    return rc;
}

/* The impaired graph as the run's model reads it, its labels and training nodes. */
static int fgl__dep_impaired_classes(fgl_client *c, fgl__dep_data *d) {
    int i, n = d->fs.n_imp;
    fgl_error err;
    d->imp_y = (int *)FGL_MALLOC(sizeof(int) * (size_t)(n + 1));
    d->imp_train = (unsigned char *)fgl__fs_zalloc((size_t)n + 1);
    if (!d->imp_y || !d->imp_train) return FGL_ERR_NOMEM;
    for (i = 0; i < n; i++) {
        d->imp_y[i] = c->data.node->y[d->fs.imp[i]];
        d->imp_train[i] = c->data.mask[FGL_SPLIT_TRAIN][d->fs.imp[i]];
    }
    if (n == 0) return FGL_OK;
    if (fgl_gnn_graph_make(&d->imp_cg, &d->fs.imp_adj, NULL, d->fs.imp_x, NULL, d->fs.F, NULL, 0, NULL, 0,
                           &c->model.spec, &err))
        return FGL_ERR_ARG;
    d->built_imp_cg = 1;
    return FGL_OK;
}

/* W_z, b_z of a fused classifier: rep_dim wide, drawn from the run seed
 * alone (every client starts from the same, as from the same model). */
static fgl_params *fgl__dep_fuse_params(fgl_client *c, const char *name, int E, int R, uint64_t stream) {
    fgl_params *f = fgl_new_params(&c->store, name);
    fgl_rng r;
    if (!f || fgl_params_add(f, "fuse.w", E, R, FGL_G_HEAD, 1) < 0 || fgl_params_add(f, "fuse.b", 1, R, FGL_G_HEAD, 1) < 0)
        return NULL;
    fgl_rng_init(&r, c->fed->seed, stream);
    fgl_params_glorot(f, fgl_params_find(f, "fuse.w"), &r);
    return f;
}

static int fgl__dep_client_init(fgl_client *c) {
    fgl__dep_data *d;
    fgl_params *g;
    fgl_model *enc, *loc;
    fgl_model_spec es;
    fgl_optim_config oc = fgl_optim_default(FGL_ADAM);
    int P = (int)fgl_get(c->set, "num_pred"), L = (int)fgl_get(c->set, "latent");
    int H1 = (int)fgl_get(c->set, "gen_hidden"), H2 = (int)fgl_get(c->set, "gen_hidden2");
    int E = (int)fgl_get(c->set, "emb_dim"), R = fgl_model_rep_dim(&c->model), rc;
    fgl_params *lf, *fz;
    fgl_rng r;
    if (P == 0) return FGL_OK; /* no generator: FedAvg */
    d = (fgl__dep_data *)fgl_new_scratch(&c->store, "dep", sizeof(fgl__dep_data), fgl__dep_destroy);
    if (!d || !fgl_new_tape(&c->store, "gen_tape")) return FGL_ERR_NOMEM;
    d->E = E;
    d->K = (int)fgl_get(c->set, "num_proto");
    if ((rc = fgl__fs_build(c, &d->fs, c->data.mask[FGL_SPLIT_VAL])) || (rc = fgl__dep_prototypes(c, d)) ||
        (rc = fgl__dep_impaired_classes(c, d)))
        return fgl_client_fail(c, rc, "feddep: setup: %s", fgl_result_name(rc));
    es = fgl__fs_enc_spec(c, d->fs.F);
    enc = fgl_new_model(&c->store, "enc", &es, c->fed->seed * 1000003u + 0x656e63u + (uint64_t)c->id);
    loc = fgl_new_model(&c->store, "loc", &c->model.spec, c->fed->seed * 1000003u + 0x6c6f63u + (uint64_t)c->id);
    g = fgl_new_params(&c->store, "gen");
    if (!enc || !loc || !g) return FGL_ERR_NOMEM;
    if (fgl_params_add(g, "dgen.w", L, 1, FGL_G_HEAD, 1) < 0 || fgl_params_add(g, "dgen.b", 1, 1, FGL_G_HEAD, 1) < 0 ||
        fgl_params_add(g, "egen.w1", L, H1, FGL_G_HEAD, 1) < 0 || fgl_params_add(g, "egen.b1", 1, H1, FGL_G_HEAD, 1) < 0 ||
        fgl_params_add(g, "egen.w2", H1, H2, FGL_G_HEAD, 1) < 0 || fgl_params_add(g, "egen.b2", 1, H2, FGL_G_HEAD, 1) < 0 ||
        fgl_params_add(g, "egen.w3", H2, P * E, FGL_G_HEAD, 1) < 0 ||
        fgl_params_add(g, "egen.b3", 1, P * E, FGL_G_HEAD, 1) < 0)
        return FGL_ERR_NOMEM;
    fgl_rng_init(&r, c->fed->seed, 0x6467656eull + (uint64_t)c->id); /* "dgen" */
    fgl_params_glorot(g, fgl_params_find(g, "dgen.w"), &r);
    fgl_params_glorot(g, fgl_params_find(g, "egen.w1"), &r);
    fgl_params_glorot(g, fgl_params_find(g, "egen.w2"), &r);
    fgl_params_glorot(g, fgl_params_find(g, "egen.w3"), &r);
    lf = fgl__dep_fuse_params(c, "loc_fuse", E, R, 0x6c667a00ull); /* f_loc's W_z, b_z */
    fz = fgl__dep_fuse_params(c, "fuse", E, R, 0x66757a00ull);     /* the classifier's */
    if (!lf || !fz) return FGL_ERR_NOMEM;
    oc.lr = (float)fgl_get(c->set, "gen_lr");
    oc.weight_decay = (float)fgl_get(c->set, "gen_wd");
    fgl_new_optim(&c->store, "enc_optim", oc, &enc->params);
    fgl_new_optim(&c->store, "gen_optim", oc, g);
    fgl_new_optim(&c->store, "loc_optim", oc, &loc->params);
    fgl_new_optim(&c->store, "loc_fuse_optim", oc, lf);
    fgl_new_optim(&c->store, "fuse_optim", c->fed->optim, fz); /* with the classifier's optimizer settings */
    fgl_new_floats(&c->store, "losses", 5); /* the last generator step: L_d, L_e, L_x, L_c, total */
    fgl_new_ints(&c->store, "mend", 1);     /* deep neighbours generated in all */
    return c->store.err;
}

/* Generator forward on graph g (train: dropout and the input noise): dGen
 * before its ReLU (n x 1) and H (n x P E). */
static int fgl__dep_forward(fgl_client *c, fgl_tape *t, const fgl_gnn_graph *g, int train, fgl_node **dn,
                            fgl_node **Hn) {
    fgl_model *enc = fgl_get_model(&c->store, "enc");
    fgl_params *ps = fgl_get_params(&c->store, "gen");
    fgl_forward fw;
    fgl_node *s, *h;
    if (fgl_model_forward(enc, t, g, train, &c->rng, &fw) || !fw.logits) return t->err ? t->err : FGL_ERR_ARG;
    s = fw.logits;
    *dn = fgl_op_linear(t, s, fgl_op_param(t, ps, fgl_params_find(ps, "dgen.w")),
                        fgl_op_param(t, ps, fgl_params_find(ps, "dgen.b")));
    if (train) { /* the authors' Sampling: s + N(0, 1) */
        float *eps = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)s->rows * (size_t)s->cols + 1);
        int i;
        if (!eps) {
            fgl_tape_fail(t, FGL_ERR_NOMEM, "feddep: out of memory");
            return FGL_ERR_NOMEM;
        }
        for (i = 0; i < s->rows * s->cols; i++) eps[i] = (float)fgl_rng_normal(&c->rng);
        s = fgl_op_add(t, s, fgl_op_const(t, eps, s->rows, s->cols));
    }
    h = fgl_op_linear_relu(t, s, fgl_op_param(t, ps, fgl_params_find(ps, "egen.w1")),
                           fgl_op_param(t, ps, fgl_params_find(ps, "egen.b1")));
    h = fgl_op_linear(t, h, fgl_op_param(t, ps, fgl_params_find(ps, "egen.w2")),
                      fgl_op_param(t, ps, fgl_params_find(ps, "egen.b2")));
    h = train ? fgl_op_relu_dropout(t, h, 0.5f, &c->rng) : fgl_op_relu(t, h);
    *Hn = fgl_op_tanh(t, fgl_op_linear(t, h, fgl_op_param(t, ps, fgl_params_find(ps, "egen.w3")),
                                       fgl_op_param(t, ps, fgl_params_find(ps, "egen.b3"))));
    return t->err;
}

/* zbar = (1/P) sum_{p < k_v} H_v[p] on the tape (n x E), k_v from dn (rounded, ReLU'd, at most P). */
static fgl_node *fgl__dep_zbar(fgl_tape *t, fgl_node *dn, fgl_node *H, int P, int E) {
    int n = H->rows, i, p, k;
    float *mask = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n * (size_t)P * (size_t)E + 1);
    fgl_node *m, *z = NULL;
    if (!mask) return fgl_tape_fail(t, FGL_ERR_NOMEM, "feddep: out of memory");
    for (i = 0; i < n; i++) {
        double v = floor((double)dn->val[i] + 0.5);
        int kv = v <= 0 ? 0 : v >= P ? P : (int)v;
        for (p = 0; p < P; p++)
            for (k = 0; k < E; k++) mask[((size_t)i * P + p) * E + k] = p < kv ? 1.0f / P : 0.0f;
    }
    m = fgl_op_mul(t, H, fgl_op_const(t, mask, n, P * E));
    for (p = 0; p < P; p++) {
        fgl_node *s = fgl_op_slice_cols(t, m, p * E, E);
        z = z ? fgl_op_add(t, z, s) : s;
    }
    return z;
}

/* A fused classifier's logits: head(rep + zbar W_z + b_z). */
static fgl_node *fgl__dep_logits(fgl_client *c, fgl_tape *t, fgl_model *m, fgl_params *fz, const fgl_gnn_graph *g,
                                 fgl_node *zbar, int train) {
    fgl_forward fw;
    fgl_node *r;
    if (fgl_model_forward(m, t, g, train, &c->rng, &fw) || !fw.rep) return NULL;
    r = fgl_op_add(t, fw.rep, fgl_op_linear(t, zbar, fgl_op_param(t, fz, fgl_params_find(fz, "fuse.w")),
                                            fgl_op_param(t, fz, fgl_params_find(fz, "fuse.b"))));
    return fgl_model_head(m, t, r, train, &c->rng);
}

/* Generator rounds: gen_steps full-batch steps on the impaired graph (round 0: pre_steps more). */
static int fgl__dep_train_gen(fgl_client *c) {
    fgl__dep_data *d = (fgl__dep_data *)fgl_get_scratch(&c->store, "dep");
    fgl__fs_data *fs = &d->fs;
    fgl_tape *t = fgl_get_tape(&c->store, "gen_tape");
    fgl_model *enc = fgl_get_model(&c->store, "enc"), *loc = fgl_get_model(&c->store, "loc");
    fgl_params *ps = fgl_get_params(&c->store, "gen"), *lf = fgl_get_params(&c->store, "loc_fuse");
    float *losses = fgl_floats(&c->store, "losses");
    int P = fs->P, E = d->E, n = fs->n_imp, K, s, i, p, k, rc;
    int steps = (int)fgl_get(c->set, "gen_steps") + (c->round == 0 ? (int)fgl_get(c->set, "pre_steps") : 0);
    const float *got = fgl_down(c, "cross_protos");
    double ld = fgl_get(c->set, "lambda_d"), le = fgl_get(c->set, "lambda_e"), lc = fgl_get(c->set, "lambda_c");
    double al = fgl_get(c->set, "alpha"), loss_sum = 0;
    c->steps = 0;
    c->train_loss = 0;
    if (n == 0) return FGL_OK; /* nothing left to train on */
    K = (int)fgl_client_dim(c, FGL_DIM_CLIENTS);
    for (s = 0; s < steps; s++) {
        fgl_node *dn, *Hn, *loss, *lx = NULL, *lel = NULL, *lcl = NULL, *ldn;
        float *T, *Tx = NULL;
        int *vp, n_pairs = 0;
        fgl_tape_reset(t);
        fgl_params_zero_grad(&enc->params);
        fgl_params_zero_grad(ps);
        fgl_params_zero_grad(&loc->params);
        fgl_params_zero_grad(lf);
        if ((rc = fgl__dep_forward(c, t, &fs->imp_g, 1, &dn, &Hn)))
            return fgl_client_fail(c, rc, "feddep: generator: %s", t->msg);
        ldn = fgl__fs_count_loss(t, dn, fs->miss_ptr, n);
        vp = (int *)fgl_tape_alloc(t, sizeof(int) * (size_t)n * (size_t)P + 1);
        T = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n * (size_t)P * (size_t)E + 1);
        if (got) Tx = (float *)fgl_tape_alloc(t, sizeof(float) * (size_t)n * (size_t)P * (size_t)E + 1);
        if (!ldn || !vp || !T || (got && !Tx)) return fgl_client_fail(c, FGL_ERR_NOMEM, "feddep: out of memory");
        /* the slots p < min(P, |M_v|): local targets (the nearest missing neighbour's prototype, on current
         * values) and cross-client ones (the nearest received prototype) */
        for (i = 0; i < n; i++) {
            int m = fs->miss_ptr[i + 1] - fs->miss_ptr[i];
            for (p = 0; p < P && p < m; p++) {
                const float *h = Hn->val + (size_t)i * P * E + (size_t)p * E;
                int best = fs->miss[fs->miss_ptr[i]], b;
                double bd = fgl__fs_dist2(h, d->protos + (size_t)d->assign[best] * E, E);
                for (k = fs->miss_ptr[i] + 1; k < fs->miss_ptr[i + 1]; k++) {
                    double dd = fgl__fs_dist2(h, d->protos + (size_t)d->assign[fs->miss[k]] * E, E);
                    if (dd < bd) bd = dd, best = fs->miss[k];
                }
                vp[n_pairs] = i * P + p;
                memcpy(T + (size_t)n_pairs * E, d->protos + (size_t)d->assign[best] * E, sizeof(float) * (size_t)E);
                if (got) {
                    fgl__feddep_nearest(h, got, d->K, E, &b);
                    memcpy(Tx + (size_t)n_pairs * E, got + (size_t)b * E, sizeof(float) * (size_t)E);
                }
                n_pairs++;
            }
        }
        if (n_pairs) {
            lel = fgl_op_scale(t, fgl__fs_sqerr(t, Hn, P, E, vp, n_pairs, T), (float)(1.0 / ((double)n_pairs * E)));
            if (got && al > 0 && K > 1)
                lx = fgl_op_scale(t, fgl__fs_sqerr(t, Hn, P, E, vp, n_pairs, Tx),
                                  (float)(al * (K - 1) / ((double)n_pairs * E)));
        }
        if (lc > 0) { /* the local classifier on the impaired graph, fused with the generated embeddings */
            fgl_node *lg = fgl__dep_logits(c, t, loc, lf, &d->imp_cg, fgl__dep_zbar(t, dn, Hn, P, E), 1);
            if (!lg) return fgl_client_fail(c, t->err ? t->err : FGL_ERR_ARG, "feddep: local classifier: %s", t->msg);
            lcl = fgl_op_cross_entropy(t, lg, d->imp_y, d->imp_train);
        }
        loss = fgl_op_scale(t, ldn, (float)ld);
        if (lel) loss = fgl_op_add(t, loss, fgl_op_scale(t, lel, (float)le));
        if (lx) loss = fgl_op_add(t, loss, fgl_op_scale(t, lx, (float)le));
        if (lcl) loss = fgl_op_add(t, loss, fgl_op_scale(t, lcl, (float)lc));
        if (fgl_tape_backward(t, loss)) return fgl_client_fail(c, t->err, "feddep: generator: %s", t->msg);
        losses[0] = ldn->val[0];
        losses[1] = lel ? lel->val[0] : 0.0f;
        losses[2] = lx ? lx->val[0] : 0.0f;
        losses[3] = lcl ? lcl->val[0] : 0.0f;
        losses[4] = loss->val[0];
        loss_sum += loss->val[0];
        fgl_optim_step(fgl_get_optim(&c->store, "enc_optim"), &enc->params);
        fgl_optim_step(fgl_get_optim(&c->store, "gen_optim"), ps);
        if (lcl) {
            fgl_optim_step(fgl_get_optim(&c->store, "loc_optim"), &loc->params);
            fgl_optim_step(fgl_get_optim(&c->store, "loc_fuse_optim"), lf);
        }
        c->steps++;
    }
    fgl_tape_reset(t);
    c->train_loss = loss_sum / steps;
    return FGL_OK;
}

/* Mending: the generator in evaluation mode on the whole subgraph: zbar. */
static int fgl__dep_mend(fgl_client *c, fgl__dep_data *d) {
    fgl_tape *t = fgl_get_tape(&c->store, "gen_tape");
    int n = d->fs.n, P = d->fs.P, E = d->E, i, G = 0, rc;
    fgl_node *dn, *Hn, *z;
    fgl_rng keep = c->rng; /* evaluation mode draws nothing; kept as it was all the same */
    d->zbar = (float *)fgl__fs_zalloc(sizeof(float) * (size_t)n * (size_t)E + 1);
    d->scores = (float *)fgl__fs_zalloc(sizeof(float) * (size_t)n * (size_t)c->model.spec.out_dim + 1);
    if (!d->zbar || !d->scores) return fgl_client_fail(c, FGL_ERR_NOMEM, "feddep: out of memory");
    fgl_tape_reset(t);
    if (n > 0) {
        if ((rc = fgl__dep_forward(c, t, &d->fs.full_g, 0, &dn, &Hn)) || !(z = fgl__dep_zbar(t, dn, Hn, P, E))) {
            fgl_tape_reset(t);
            return fgl_client_fail(c, rc ? rc : FGL_ERR_NOMEM, "feddep: mend: %s", t->msg);
        }
        memcpy(d->zbar, z->val, sizeof(float) * (size_t)n * (size_t)E);
        for (i = 0; i < n; i++) {
            double v = floor((double)dn->val[i] + 0.5);
            G += v <= 0 ? 0 : v >= P ? P : (int)v;
        }
    }
    c->rng = keep;
    fgl_ints(&c->store, "mend")[0] = G;
    d->mended = 1;
    fgl_tape_reset(t);
    return FGL_OK;
}

/* The classifier: local_epochs full-batch steps on the client's graph, zbar fused before the head. */
static int fgl__dep_train_clf(fgl_client *c, fgl__dep_data *d) {
    fgl_tape *t = &c->tape;
    fgl_params *fz = fgl_get_params(&c->store, "fuse");
    fgl_optim *fo = fgl_get_optim(&c->store, "fuse_optim");
    const fgl_node_data *nd = c->data.node;
    int e, n = nd->n_nodes, C = c->model.spec.out_dim, *y = nd->y, i;
    double loss_sum = 0;
    c->steps = 0;
    if (c->fed->reset_optim) {
        fgl_optim_reset(&c->optim);
        fgl_optim_reset(fo);
    }
    if (c->attacker && c->fed->attack.kind == FGL_ATTACK_LABELFLIP) { /* trains on C-1-y, as fgl_client_train */
        int *f = (int *)fgl_scratch(&c->store, sizeof(int) * (size_t)(n + 1));
        if (!f) return fgl_client_fail(c, FGL_ERR_NOMEM, "feddep: out of memory");
        for (i = 0; i < n; i++) f[i] = y[i] >= 0 && y[i] < C ? C - 1 - y[i] : y[i];
        y = f;
    }
    for (e = 0; e < c->fed->local_epochs; e++) {
        fgl_node *lg, *loss;
        fgl_tape_reset(t);
        fgl_params_defer_zero_grad(&c->model.params);
        fgl_params_zero_grad(fz);
        lg = fgl__dep_logits(c, t, &c->model, fz, &c->data.full, fgl_op_const(t, d->zbar, n, d->E), 1);
        if (!lg) return fgl_client_fail(c, t->err ? t->err : FGL_ERR_ARG, "feddep: classifier: %s", t->msg);
        loss = fgl_op_cross_entropy(t, lg, y, c->data.mask[FGL_SPLIT_TRAIN]);
        if (fgl_tape_backward(t, loss)) return fgl_client_fail(c, t->err, "feddep: classifier: %s", t->msg);
        loss_sum += loss->val[0];
        fgl_optim_step(&c->optim, &c->model.params);
        fgl_optim_step(fo, fz);
        c->steps++;
    }
    fgl_tape_reset(t);
    c->train_loss = c->steps ? loss_sum / c->steps : 0.0;
    return FGL_OK;
}

static int fgl__dep_train(fgl_client *c) {
    fgl__dep_data *d;
    int rc;
    if (fgl_get(c->set, "num_pred") == 0) return fgl_client_train(c, &c->model, &c->optim, &c->algo->train);
    if (c->round < (int)fgl_get(c->set, "gen_rounds")) return fgl__dep_train_gen(c);
    d = (fgl__dep_data *)fgl_get_scratch(&c->store, "dep");
    if (!d->mended && (rc = fgl__dep_mend(c, d))) return rc;
    if (fgl_get(c->set, "fuse_avg") != 0) { /* the averaged W_z, b_z (none yet in the first classifier round) */
        fgl_params *fz = fgl_get_params(&c->store, "fuse");
        const float *w = fgl_down(c, "fuse_w"), *b = fgl_down(c, "fuse_b");
        size_t nw = (size_t)d->E * (size_t)fgl_model_rep_dim(&c->model);
        if (w && b) {
            memcpy(fz->data + fz->slices[fgl_params_find(fz, "fuse.w")].offset, w, sizeof(float) * nw);
            memcpy(fz->data + fz->slices[fgl_params_find(fz, "fuse.b")].offset, b,
                   sizeof(float) * (size_t)fgl_model_rep_dim(&c->model));
        }
    }
    return fgl__dep_train_clf(c, d);
}

/* Evaluation: the fused classifier's scores once mended; before, the model as it is. */
static const float *fgl__dep_scores(fgl_client *c) {
    fgl__dep_data *d = fgl_get(c->set, "num_pred") > 0 ? (fgl__dep_data *)fgl_get_scratch(&c->store, "dep") : NULL;
    fgl_tape *t = &c->tape;
    fgl_rng keep = c->rng;
    fgl_node *lg;
    int n;
    if (!d || !fgl__feddep_zbar(c)) return NULL;
    n = c->data.node->n_nodes;
    if (n == 0) return d->scores;
    fgl_tape_reset(t);
    lg = fgl__dep_logits(c, t, &c->model, fgl_get_params(&c->store, "fuse"), &c->data.full,
                         fgl_op_const(t, d->zbar, n, d->E), 0);
    c->rng = keep;
    if (!lg) return NULL;
    memcpy(d->scores, lg->val, sizeof(float) * (size_t)n * (size_t)lg->cols);
    fgl_tape_reset(t);
    return d->scores;
}

/* In generator rounds: the client's prototypes. */
static int fgl__dep_upload(fgl_client *c) {
    int on = fgl_get(c->set, "num_pred") > 0 && c->round < (int)fgl_get(c->set, "gen_rounds");
    if (on) {
        const float *protos = fgl__feddep_protos(c, NULL);
        float *up = fgl_up(c, "protos");
        if (!up || !protos) return FGL_ERR_NOMEM;
        memcpy(up, protos, sizeof(float) * (size_t)fgl_get(c->set, "num_proto") * (size_t)fgl_get(c->set, "emb_dim"));
    } else {
        fgl_up_drop(c, "protos");
    }
    if (!on && fgl_get(c->set, "num_pred") > 0 && fgl_get(c->set, "fuse_avg") != 0) { /* W_z, b_z to average */
        const fgl_params *fz = fgl_get_params(&c->store, "fuse");
        const fgl_slice *sw = &fz->slices[fgl_params_find(fz, "fuse.w")], *sb = &fz->slices[fgl_params_find(fz, "fuse.b")];
        float *w = fgl_up(c, "fuse_w"), *b = fgl_up(c, "fuse_b");
        if (!w || !b) return FGL_ERR_NOMEM;
        memcpy(w, fz->data + sw->offset, sizeof(float) * fgl_slice_size(sw));
        memcpy(b, fz->data + sb->offset, sizeof(float) * fgl_slice_size(sb));
    } else {
        fgl_up_drop(c, "fuse_w");
        fgl_up_drop(c, "fuse_b");
    }
    return FGL_OK;
}

static int fgl__dep_server_init(fgl_server *s) {
    size_t K = (size_t)s->n_clients, L = fgl_server_up_size(s, "protos");
    fgl_new_floats(&s->store, "proto_buf", K * L);
    fgl_new_ints(&s->store, "has_proto", K);
    fgl_new_ints(&s->store, "rounds", 1); /* aggregations done */
    fgl_new_floats(&s->store, "fuse_w", fgl_server_up_size(s, "fuse_w"));
    fgl_new_floats(&s->store, "fuse_b", fgl_server_up_size(s, "fuse_b"));
    fgl_new_ints(&s->store, "has_fuse", 1);
    if (s->store.err) return s->store.err;
    return fgl__avg_server_init(s);
}

static int fgl__dep_aggregate(fgl_server *s) {
    int K = s->n_clients, i, rc = fgl__avg_aggregate(s);
    size_t L = fgl_server_up_size(s, "protos");
    float *buf = fgl_floats(&s->store, "proto_buf");
    int *has = fgl_ints(&s->store, "has_proto");
    if (rc) return rc;
    for (i = 0; i < K; i++) { /* the latest prototypes of each client */
        const float *u = fgl_upload(s, i, "protos");
        if (u) memcpy(buf + (size_t)i * L, u, sizeof(float) * L), has[i] = 1;
    }
    /* the fusion weights: averaged as theta is (by training samples) */
    if ((rc = fgl_server_mean(s, "fuse_w", fgl_floats(&s->store, "fuse_w"))) == FGL_OK &&
        (rc = fgl_server_mean(s, "fuse_b", fgl_floats(&s->store, "fuse_b"))) == FGL_OK)
        fgl_ints(&s->store, "has_fuse")[0] = 1;
    if (rc && rc != FGL_ERR_EMPTY) return rc;
    fgl_ints(&s->store, "rounds")[0]++;
    return FGL_OK;
}

/* Client i, in the round this download serves, gets the prototypes of
 * client (i + 1 + round mod (K - 1)) mod K (fedsage.h's rotation). */
static int fgl__dep_download(fgl_server *s, int i, fgl_msg *down) {
    int K = s->n_clients, r = fgl_ints(&s->store, "rounds")[0], p;
    size_t L = fgl_server_up_size(s, "protos");
    (void)down;
    if (fgl_get(s->set, "num_pred") == 0) return FGL_OK;
    if (r >= (int)fgl_get(s->set, "gen_rounds") && fgl_ints(&s->store, "has_fuse")[0]) { /* the averaged W_z, b_z */
        float *w = fgl_download_part(s, i, "fuse_w"), *b = fgl_download_part(s, i, "fuse_b");
        if (!w || !b) return FGL_ERR_NOMEM;
        memcpy(w, fgl_floats(&s->store, "fuse_w"), sizeof(float) * fgl_server_up_size(s, "fuse_w"));
        memcpy(b, fgl_floats(&s->store, "fuse_b"), sizeof(float) * fgl_server_up_size(s, "fuse_b"));
    }
    if (K < 2 || r >= (int)fgl_get(s->set, "gen_rounds")) return FGL_OK;
    p = (i + 1 + r % (K - 1)) % K;
    if (fgl_ints(&s->store, "has_proto")[p]) {
        float *o = fgl_download_part(s, i, "cross_protos");
        if (!o) return FGL_ERR_NOMEM;
        memcpy(o, fgl_floats(&s->store, "proto_buf") + (size_t)p * L, sizeof(float) * L);
    }
    return FGL_OK;
}

static fgl_algo fgl__feddep(void) {
    fgl_algo a = fgl__avg_base("feddep",
                               "Zhang et al. 2024 (FedDEP): per-client generators of missing neighbours' deep "
                               "embeddings, trained against embedding prototypes shared across clients, then "
                               "FedAvg on classifiers fused with the generated embeddings",
                               FGL_G_ALL, "parameter groups of the classifier averaged");
    int rows, cols;
    fgl_algo_param_add(&a, "gen_rounds", FGL_PARAM_INT, 3, "rounds that train the generators before the classifier");
    fgl_algo_param_add(&a, "pre_steps", FGL_PARAM_INT, 1, "local generator steps before the first exchange (round 0)");
    fgl_algo_param_add(&a, "gen_steps", FGL_PARAM_INT, 1, "generator optimizer steps per generator round");
    fgl_algo_param_add(&a, "num_pred", FGL_PARAM_INT, 5, "deep neighbours generated per node at most (0: FedAvg)");
    fgl_algo_param_add(&a, "num_proto", FGL_PARAM_INT, 5, "embedding prototypes per client (K-means clusters)");
    fgl_algo_param_add(&a, "emb_dim", FGL_PARAM_INT, 128, "width of the deep embeddings");
    fgl_algo_param_add(&a, "enc_epochs", FGL_PARAM_INT, 50, "training steps of the embedding GNN");
    fgl_algo_param_add(&a, "hidden_portion", FGL_PARAM_FLOAT, 0.5,
                       "share of the validation nodes hidden in the impaired graph");
    fgl_algo_param_add(&a, "latent", FGL_PARAM_INT, 128, "generator encoder width");
    fgl_algo_param_add(&a, "gen_hidden", FGL_PARAM_INT, 256, "eGen's first hidden width");
    fgl_algo_param_add(&a, "gen_hidden2", FGL_PARAM_INT, 2048, "eGen's second hidden width");
    fgl_algo_param_add(&a, "gen_lr", FGL_PARAM_FLOAT, 0.01, "generator Adam learning rate");
    fgl_algo_param_add(&a, "gen_wd", FGL_PARAM_FLOAT, 5e-4, "generator weight decay");
    fgl_algo_param_add(&a, "lambda_d", FGL_PARAM_FLOAT, 1.0, "weight of dGen's smooth L1 loss (beta_d)");
    fgl_algo_param_add(&a, "lambda_e", FGL_PARAM_FLOAT, 1.0, "weight of the embedding losses (beta_n)");
    fgl_algo_param_add(&a, "lambda_c", FGL_PARAM_FLOAT, 1.0, "weight of the local classifier's loss (beta_c)");
    fgl_algo_param_add(&a, "alpha", FGL_PARAM_FLOAT, 1.0, "weight of the cross-client embedding loss (per client)");
    fgl_algo_param_add(&a, "fuse_avg", FGL_PARAM_INT, 1,
                       "1: the fusion weights W_z, b_z averaged with the classifier (the authors'); 0: kept local");
    rows = fgl_algo_param_dim(&a, "num_proto");
    cols = fgl_algo_param_dim(&a, "emb_dim");
    fgl_algo_upload(&a, "protos", FGL_SEND_DATA, rows, cols, FGL_PART_OPTIONAL);
    fgl_algo_download(&a, "cross_protos", FGL_SEND_DATA, rows, cols, FGL_PART_OPTIONAL, NULL);
    fgl_algo_upload(&a, "fuse_w", FGL_SEND_DATA, cols, FGL_DIM_REP, FGL_PART_OPTIONAL | FGL_PART_RAW);
    fgl_algo_upload(&a, "fuse_b", FGL_SEND_DATA, 1, FGL_DIM_REP, FGL_PART_OPTIONAL | FGL_PART_RAW);
    fgl_algo_download(&a, "fuse_w", FGL_SEND_DATA, cols, FGL_DIM_REP, FGL_PART_OPTIONAL, NULL);
    fgl_algo_download(&a, "fuse_b", FGL_SEND_DATA, 1, FGL_DIM_REP, FGL_PART_OPTIONAL, NULL);
    a.prepare_spec = fgl__dep_check;
    a.client_init = fgl__dep_client_init;
    a.local_train = fgl__dep_train;
    a.upload = fgl__dep_upload;
    a.eval_scores = fgl__dep_scores;
    a.server_init = fgl__dep_server_init;
    a.aggregate = fgl__dep_aggregate;
    a.download = fgl__dep_download;
    a.report = fgl__fs_report;
    return a;
}
/* --- src/fed/registry.h --- */
/* --- the registry ------------------------------------------------------------------- */
/* The built-in tables, built once on first use, then the registered ones.
 * Read-only after that: register at program start. */

#define FGL__REGISTRY_CAP 64

typedef struct fgl__registry {
    int built, n, n_builtin;
    fgl_algo algo[FGL__REGISTRY_CAP];
    char missed[64];   /* the last name fgl_algo_find did not find (fgl_run_init's error names it) */
} fgl__registry;

static fgl__registry *fgl__reg(void) {
    static fgl__registry reg;
    if (!reg.built) {
#define FGL__BUILDER(name, file) fgl__##name,
        static fgl_algo (*const make[])(void) = {FGL__ALGORITHMS(FGL__BUILDER)};
#undef FGL__BUILDER
        int i, n = (int)(sizeof make / sizeof make[0]);
        for (i = 0; i < n; i++) reg.algo[i] = make[i]();
        reg.n = reg.n_builtin = n;
        reg.built = 1;
    }
    return &reg;
}

FGLDEF int fgl_algo_count(void) { return fgl__reg()->n; }

FGLDEF const fgl_algo *fgl_algo_at(int i) { return i >= 0 && i < fgl__reg()->n ? &fgl__reg()->algo[i] : NULL; }

static const fgl_algo *fgl__algo_lookup(const char *name) {
    fgl__registry *r = fgl__reg();
    int i;
    for (i = 0; name && i < r->n; i++)
        if (strcmp(r->algo[i].name, name) == 0) return &r->algo[i];
    return NULL;
}

FGLDEF const fgl_algo *fgl_algo_find(const char *name) {
    const fgl_algo *a = fgl__algo_lookup(name);
    if (!a && name) { /* a longer name is cut (copied by hand: snprintf's cut is a -Wformat-truncation warning) */
        char *m = fgl__reg()->missed;
        size_t k;
        for (k = 0; name[k] && k + 1 < sizeof fgl__reg()->missed; k++) m[k] = name[k];
        m[k] = 0;
    }
    return a;
}

/* Levenshtein distance of a and b, ASCII case ignored (names are short:
 * up to 63 characters are compared). */
static int fgl__name_distance(const char *a, const char *b) {
    int row[64], i, j, n = (int)FGL__MIN(strlen(a), 63), m = (int)FGL__MIN(strlen(b), 63);
    for (j = 0; j <= m; j++) row[j] = j;
    for (i = 1; i <= n; i++) {
        int diag = row[0], ca = a[i - 1] >= 'A' && a[i - 1] <= 'Z' ? a[i - 1] + 32 : a[i - 1];
        row[0] = i;
        for (j = 1; j <= m; j++) {
            int cb = b[j - 1] >= 'A' && b[j - 1] <= 'Z' ? b[j - 1] + 32 : b[j - 1], up = row[j];
            row[j] = FGL__MIN(FGL__MIN(row[j] + 1, row[j - 1] + 1), diag + (ca != cb));
            diag = up;
        }
    }
    return row[m];
}

FGLDEF const char *fgl_algo_suggest(const char *name) {
    fgl__registry *r = fgl__reg();
    const char *best = NULL;
    int i, d, best_d = 3, len = name ? (int)strlen(name) : 0;
    for (i = 0; name && i < r->n; i++) {
        d = fgl__name_distance(name, r->algo[i].name);
        if (d < best_d && 2 * d < FGL__MAX(len, (int)strlen(r->algo[i].name))) { /* close, and not most of it */
            best_d = d;
            best = r->algo[i].name;
        }
    }
    return best;
}

/* The last name fgl_algo_find did not find ("" if none). */
static const char *fgl__algo_missed(void) { return fgl__reg()->missed; }

/* "local, fedavg, ..." (the registered names, cut to cap). */
static void fgl__algo_names(char *buf, size_t cap) {
    fgl__registry *r = fgl__reg();
    size_t n = 0;
    int i;
    if (cap) buf[0] = 0;
    for (i = 0; i < r->n && n + 1 < cap; i++) {
        int w = snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", r->algo[i].name);
        if (w < 0) break;
        n += (size_t)w;
    }
}

FGLDEF fgl_algo fgl_algo_base(const char *name) {
    const fgl_algo *a = fgl__algo_lookup(name);
    return a ? *a : fgl_algo_new(name, "");
}

FGLDEF int fgl_algo_register(const fgl_algo *a) {
    fgl__registry *r = fgl__reg();
    if (!a || !a->name || !*a->name) return FGL_ERR_ARG;
    if (fgl__algo_lookup(a->name)) return FGL_ERR_ARG; /* names are unique */
    if (r->n == FGL__REGISTRY_CAP) return FGL_ERR_NOMEM;
    r->algo[r->n++] = *a;
    return FGL_OK;
}

FGL__PRIVATE unsigned fgl__user_hooks(const fgl_algo *a) {
    const fgl__registry *r = fgl__reg();
    int i, ours[9] = {0}; /* the slot's hook is a built-in table's */
    unsigned user = 0;
    for (i = 0; i < r->n_builtin; i++) {
        const fgl_algo *b = &r->algo[i];
        ours[0] |= a->receive == b->receive;
        ours[1] |= a->local_train == b->local_train;
        ours[2] |= a->train.loss == b->train.loss;
        ours[3] |= a->train.grad == b->train.grad;
        ours[4] |= a->train.after_step == b->train.after_step;
        ours[5] |= a->upload == b->upload;
        ours[6] |= a->eval_model == b->eval_model;
        ours[7] |= a->aggregate == b->aggregate;
        ours[8] |= a->eval_scores == b->eval_scores;
    }
    if (a->receive && !ours[0]) user |= FGL__HOOK_RECEIVE;
    if ((a->local_train && !ours[1]) || (a->train.loss && !ours[2]) || (a->train.grad && !ours[3]) ||
        (a->train.after_step && !ours[4]))
        user |= FGL__HOOK_TRAIN;
    if (a->upload && !ours[5]) user |= FGL__HOOK_UPLOAD;
    if ((a->eval_model && !ours[6]) || (a->eval_scores && !ours[8])) user |= FGL__HOOK_EVAL;
    if (a->aggregate && !ours[7]) user |= FGL__HOOK_AGGREGATE;
    return user;
}
/* --- src/fed/similarity.h --- */
/* --- client matrices against the clients' labels --------------------------------- */

/* ranks 1..n of x, ties averaged (O(n^2): n is a number of clients) */
static void fgl__ranks(const double *x, int n, double *r) {
    int i, j;
    for (i = 0; i < n; i++) {
        double less = 0, equal = 0;
        for (j = 0; j < n; j++) {
            less += x[j] < x[i];
            equal += x[j] == x[i];
        }
        r[i] = less + (equal + 1) / 2.0;
    }
}

FGLDEF double fgl_spearman(const double *x, const double *y, int n) {
    double *rx, *ry, mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0, rho;
    int i;
    if (n < 2) return 0;
    rx = (double *)FGL_MALLOC(sizeof(double) * 2 * (size_t)n);
    if (!rx) return 0;
    ry = rx + n;
    fgl__ranks(x, n, rx);
    fgl__ranks(y, n, ry);
    for (i = 0; i < n; i++) {
        mx += rx[i] / n;
        my += ry[i] / n;
    }
    for (i = 0; i < n; i++) {
        sxy += (rx[i] - mx) * (ry[i] - my);
        sxx += (rx[i] - mx) * (rx[i] - mx);
        syy += (ry[i] - my) * (ry[i] - my);
    }
    rho = sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
    FGL_FREE(rx);
    return rho;
}

FGLDEF int fgl_label_similarity(const fgl_client_data *cd, int K, double *sim) {
    int i, j, c, C = 0;
    double *h;
    for (i = 0; i < K; i++) {
        int ci = cd[i].node ? cd[i].node->n_classes : cd[i].graphs ? cd[i].graphs->n_classes : 0;
        C = ci > C ? ci : C;
    }
    h = (double *)FGL_MALLOC(sizeof(double) * (size_t)FGL__MAX(K * C, 1));
    if (!h) return FGL_ERR_NOMEM;
    memset(h, 0, sizeof(double) * (size_t)FGL__MAX(K * C, 1));
    for (i = 0; i < K; i++) {
        int n = cd[i].node ? cd[i].node->n_nodes : cd[i].graphs ? cd[i].graphs->n_graphs : 0;
        const int *y = cd[i].node ? cd[i].node->y : cd[i].graphs ? cd[i].graphs->y : NULL;
        for (j = 0; y && j < n; j++)
            if (y[j] >= 0 && y[j] < C) h[(size_t)i * C + y[j]] += 1;
    }
    for (i = 0; i < K; i++)
        for (j = 0; j < K; j++) {
            double dot = 0, ni = 0, nj = 0;
            for (c = 0; c < C; c++) {
                dot += h[(size_t)i * C + c] * h[(size_t)j * C + c];
                ni += h[(size_t)i * C + c] * h[(size_t)i * C + c];
                nj += h[(size_t)j * C + c] * h[(size_t)j * C + c];
            }
            sim[(size_t)i * K + j] = ni > 0 && nj > 0 ? dot / sqrt(ni * nj) : 0;
        }
    FGL_FREE(h);
    return FGL_OK;
}

FGLDEF double fgl_rowwise_spearman(const float *m, const double *ref, int K, const int *perm) {
    double *a, *b, sum = 0;
    int i, j, n;
    if (K < 3) return 0; /* fewer than two others to rank */
    a = (double *)FGL_MALLOC(sizeof(double) * 2 * (size_t)K);
    if (!a) return 0;
    b = a + K;
    for (i = 0; i < K; i++) {
        n = 0;
        for (j = 0; j < K; j++) {
            if (j == i) continue;
            a[n] = m[(size_t)i * K + j];
            b[n] = perm ? ref[(size_t)perm[i] * K + perm[j]] : ref[(size_t)i * K + j];
            n++;
        }
        sum += fgl_spearman(a, b, n);
    }
    FGL_FREE(a);
    return sum / K;
}

/* --- src/fed/scenario.h --- */
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

/* --- src/fed/mpi_wire.h --- */
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
/* --- src/fed/mpi.h --- */
/* ======================================================================== */
/* FGL_MPI: a run across processes                                          */
/* ======================================================================== */
/* The server (rank 0) sends commands, each rank answers each command with
 * one reply; both are byte strings in fgl_bytes' little-endian encoding:
 *   command: u32 kind, u32 run id, u32 round, then its body;
 *   reply:   u32 kind, u32 run id, u32 round, u32 status, str error, f64
 *            seconds the rank spent on it, then its body.
 *   INIT    run description, every client's spec and registration, the
 *           rank's clients' data                       -> status
 *   START   parameter values, the first downloads      -> status
 *   TRAIN   the round's participants                   -> each hosted
 *           participant's error, loss and upload parts
 *   FINISH  evaluate?, the next downloads              -> accuracies
 *   SAVE                                               -> client stores
 *   LOAD    check: client stores; commit: nothing       -> status
 *   RESUME  participants, downloads (no receive hooks) -> status
 *   SECAGG  a step of secure aggregation (secagg.h): 1 the participants
 *           -> each hosted one's public keys; 2 all public keys -> its
 *           sealed shares; 3 the survivors and the shares sealed to each
 *           hosted survivor -> its revealed shares. The secrets stay on
 *           the rank (the secret seed, when the run has one, comes in
 *           INIT; its run label with the configuration)
 *   END (no reply)
 *   QUIT                                               -> a bare header
 * A download or upload is, per client, its id and per declared part a u64
 * length (0: absent) and the floats' bits. Waiting polls (MPI_Iprobe) with
 * growing naps, so a waiting process leaves the cores to those computing;
 * every send is MPI_Isend, tested with the same naps until it completes or
 * its rank is given up, and every body whose envelope arrived is received
 * with MPI_Irecv, tested every 50-100 us for a second, then with the naps,
 * so no side blocks on a process that died or stopped.
 * The server keeps, with each communicator (an MPI attribute), which ranks
 * it lost and the longest timeout of its runs. */
#ifdef FGL_MPI

#define FGL__MPI_CMD 7101
#define FGL__MPI_REPLY 7102
#define FGL__MPI_PROTOCOL 9u /* 2: INIT carries cfg.park_idle; 3: secure aggregation's steps, the secret seed;
                                4: QUIT is confirmed; 5: node data's halo, link splits, Hits@K in replies;
                                6: INIT carries the simulated fault's fail_exit;
                                7: the configuration carries the secrets' run label (with a secret seed);
                                8: evaluation replies carry macro-F1 and ROC-AUC;
                                9: under secure aggregation every FINISH is answered with the survivors'
                                   masked numbers (step 5), not with any client's own; SECAGG step 4 (the
                                   survivors list's tags), which step 3 then carries to each survivor */

enum {
    FGL__MC_INIT = 1,
    FGL__MC_START,
    FGL__MC_TRAIN,
    FGL__MC_FINISH,
    FGL__MC_SAVE,
    FGL__MC_LOAD,
    FGL__MC_RESUME,
    FGL__MC_END,
    FGL__MC_QUIT,
    FGL__MC_SECAGG
};

FGLDEF fgl_mpi_options fgl_mpi_options_default(void) {
    fgl_mpi_options o;
    memset(&o, 0, sizeof o);
    o.timeout = 300;
    return o;
}

/* Sleep *us microseconds where POSIX allows it (else return at once: the
 * caller polls MPI again), doubling up to 2 ms. */
static void fgl__mpi_nap(int *us) {
#if defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 199309L
    struct timespec ts;
    ts.tv_sec = 0;
    ts.tv_nsec = 1000L * *us;
    nanosleep(&ts, NULL);
#endif
    if (*us < 2000) *us *= 2;
}

/* The body of a message whose envelope MPI_Iprobe saw, received without
 * waiting past `wait` seconds: a rank that dies after its envelope arrived
 * never delivers the body (Open MPI's shared-memory transport then fails
 * its copy out of the dead sender, "Read -1 ... errno = 3"), and a blocking
 * MPI_Recv would hold rank 0 for ever. FGL_OK when the body is in *buf;
 * FGL_ERR_EMPTY when it did not come within `wait`, FGL_ERR_IO when MPI
 * failed. Then the receive is given up and *buf, which MPI may still write
 * to, is left to MPI (set to NULL here, never freed), except when MPI_Irecv
 * itself failed (*buf stays the caller's). Polls every 50-100 us for the
 * first second (a transport that moves data only inside MPI calls, such
 * as TCP, needs them often), then with growing naps. gone (NULL: none),
 * asked between polls, ends the wait early when it says the sender is gone
 * (FGL_ERR_IO): a worker's check on rank 0. */
static int fgl__mpi_recv_body(unsigned char **buf, int count, int src, int tag, MPI_Comm comm, double wait,
                              int (*gone)(void *ctx), void *ctx) {
    MPI_Request q;
    int flag = 0, nap = 50, rc = FGL_ERR_IO;
    double t0 = fgl_now(), el;
    if (MPI_Irecv(*buf, count, MPI_BYTE, src, tag, comm, &q) != MPI_SUCCESS) return FGL_ERR_IO; /* *buf: ours */
    for (;;) {
        if (MPI_Test(&q, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) break;
        if (flag) return FGL_OK;
        if (gone && gone(ctx)) break;
        if ((el = fgl_now() - t0) > wait) {
            rc = FGL_ERR_EMPTY;
            break;
        }
        if (el < 1) nap = 50;
        fgl__mpi_nap(&nap);
    }
    if (q != MPI_REQUEST_NULL) MPI_Request_free(&q);
    *buf = NULL;
    return rc;
}

static void fgl__mpi_begin(fgl_bytes *b, uint32_t kind, uint32_t run_id, int round) {
    b->len = 0;
    b->err = 0;
    fgl_bytes_put_u32(b, kind);
    fgl_bytes_put_u32(b, run_id);
    fgl_bytes_put_u32(b, (uint32_t)round);
}

/* --- the server's side ------------------------------------------------------------- */

/* What the server keeps with a communicator (an MPI attribute, freed with
 * it): the ranks it lost, for the runs after and fgl_mpi_finish, and the
 * longest timeout of its runs. */
typedef struct fgl__mpi_comm {
    int size;
    double timeout;
    unsigned char *gone; /* per rank: 1 lost, 2 did not confirm fgl_mpi_finish */
} fgl__mpi_comm;

static int fgl__mpi_keyval = MPI_KEYVAL_INVALID;

static int fgl__mpi_comm_delete(MPI_Comm comm, int keyval, void *attr, void *extra) {
    fgl__mpi_comm *s = (fgl__mpi_comm *)attr;
    (void)comm;
    (void)keyval;
    (void)extra;
    if (s) FGL_FREE(s->gone);
    FGL_FREE(s);
    return MPI_SUCCESS;
}

/* comm's state, created (nothing lost) when create is set; NULL when there
 * is none, or no memory or keyval for it. */
static fgl__mpi_comm *fgl__mpi_comm_state(MPI_Comm comm, int create) {
    fgl__mpi_comm *s;
    void *v = NULL;
    int flag = 0, size = 0;
    if (fgl__mpi_keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, fgl__mpi_comm_delete, &fgl__mpi_keyval, NULL) != MPI_SUCCESS) {
        fgl__mpi_keyval = MPI_KEYVAL_INVALID;
        return NULL;
    }
    if (MPI_Comm_get_attr(comm, fgl__mpi_keyval, &v, &flag) == MPI_SUCCESS && flag && v) return (fgl__mpi_comm *)v;
    if (!create || MPI_Comm_size(comm, &size) != MPI_SUCCESS || size < 1) return NULL;
    s = (fgl__mpi_comm *)fgl__zalloc(sizeof *s);
    if (s && !(s->gone = (unsigned char *)fgl__zalloc((size_t)size))) {
        FGL_FREE(s);
        s = NULL;
    }
    if (s && MPI_Comm_set_attr(comm, fgl__mpi_keyval, s) != MPI_SUCCESS) {
        fgl__mpi_comm_delete(comm, fgl__mpi_keyval, s, NULL);
        s = NULL;
    }
    if (s) s->size = size;
    return s;
}

typedef struct fgl__mpi {
    struct fgl__transport tr;   /* first: run->transport points here */
    MPI_Comm comm;
    int size;
    uint32_t run_id;
    fgl_mpi_options opt;
    fgl__mpi_comm *cs;          /* the communicator's state (NULL: none could be kept) */
    int starting;               /* INIT under way: a rank lost now gives its clients to the others */
    int *host;                  /* K: the rank hosting client i */
    int *ranks;                 /* size: scratch, the live ranks in order */
    unsigned char *alive;       /* per rank: took the run, not lost */
    unsigned char *member;      /* per rank: was sent the run (INIT) */
    unsigned char *want;        /* per rank: a reply awaited */
    fgl_bytes *out;             /* per rank: the command being sent */
    MPI_Request *req;           /* per rank: its send */
    MPI_Request *end;           /* per rank: the END send */
    fgl_bytes *stores;          /* SAVE: where the replies' client stores go */
    fgl_mpi_stats st;
} fgl__mpi;

typedef int (*fgl__mpi_handler)(fgl_run *run, fgl__mpi *t, int rank, fgl_reader *r);

static fgl__mpi *fgl__mpi_of(const fgl_run *run) { return (fgl__mpi *)run->transport; }

/* A rank stops answering: its clients are out of the run from now on, and
 * the rank out of the communicator's later runs. Its pending send, if any,
 * stays posted (given up when the run is freed). */
static void fgl__mpi_lose(fgl_run *run, fgl__mpi *t, int rank, const char *why) {
    int i, first = -1, last = -1;
    if (!t->alive[rank]) return;
    t->alive[rank] = 0;
    t->want[rank] = 0;
    if (t->cs && rank < t->cs->size) t->cs->gone[rank] = 1;
    for (i = 0; i < run->n_clients; i++)
        if (t->host[i] == rank) {
            fgl_client *c = &run->clients[i];
            run->lost[i] = 1;
            fgl__msg_clear(&c->up);
            c->error = 0;
            if (first < 0) first = i;
            last = i;
        }
    { /* appended to the note, " | " between; an entry that does not fit whole is left out */
        char one[sizeof t->st.note], *note = t->st.note;
        size_t at = strlen(note), n;
        if (t->starting)
            snprintf(one, sizeof one, "rank %d lost as the run started: %s; its clients went to the others", rank, why);
        else
            snprintf(one, sizeof one, "rank %d (clients %d-%d) lost in round %d: %s", rank, first, last, run->round + 1,
                     why);
        n = strlen(one);
        if (t->st.lost_ranks++ == 0) memcpy(note, one, n + 1);
        else if (at + 3 + n < sizeof t->st.note) {
            memcpy(note + at, " | ", 3);
            memcpy(note + at + 3, one, n + 1);
        }
    }
}

/* Poll (napping) until rank r's last send completes: FGL_OK, or the rank
 * is lost (not taken before the deadline, or MPI failed). */
static int fgl__mpi_settle(fgl_run *run, fgl__mpi *t, int r, double deadline) {
    int nap = 50;
    while (t->req[r] != MPI_REQUEST_NULL) {
        int flag = 0;
        if (MPI_Test(&t->req[r], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            fgl__mpi_lose(run, t, r, "MPI failed on its last command");
            return FGL_ERR_IO;
        }
        if (flag) break;
        if (fgl_now() > deadline) {
            fgl__mpi_lose(run, t, r, "its last command was not taken within the timeout");
            return FGL_ERR_IO;
        }
        fgl__mpi_nap(&nap);
    }
    return FGL_OK;
}

/* Post the commands built in t->out for the ranks in t->want and wait for
 * their replies of the same kind: handler (may be NULL) reads each body. A
 * rank that does not answer within the timeout, whose reply is malformed,
 * or that MPI fails to reach, is lost; a rank that reports an error fails
 * the run. Nothing here blocks: sends are MPI_Isend, waits are polls. */
static int fgl__mpi_exchange(fgl_run *run, fgl__mpi *t, uint32_t kind, fgl__mpi_handler handler) {
    double t0 = fgl_now(), t_sent, slowest = 0;
    int r, pending = 0, nap = 50, rc = FGL_OK;
    for (r = 1; r < t->size; r++) {
        fgl_bytes *b = &t->out[r];
        if (!t->want[r]) continue;
        if (!t->alive[r]) {
            t->want[r] = 0;
            continue;
        }
        if (b->err || b->len > (size_t)INT_MAX) {
            t->want[r] = 0;
            if (!rc) rc = fgl_error_set(&run->err, b->err ? b->err : FGL_ERR_RANGE, "mpi: a command to rank %d %s", r,
                                        b->err ? "ran out of memory" : "exceeds 2 GB");
            continue;
        }
        /* its last command was answered, so that send completes at once; a rank lost here is lost */
        if (fgl__mpi_settle(run, t, r, fgl_now() + t->opt.timeout)) continue;
        if (MPI_Isend(b->data, (int)b->len, MPI_BYTE, r, FGL__MPI_CMD, t->comm, &t->req[r]) != MPI_SUCCESS) {
            t->req[r] = MPI_REQUEST_NULL;
            fgl__mpi_lose(run, t, r, "MPI could not send it a command");
            continue;
        }
        t->st.bytes_sent += b->len;
        pending++;
    }
    t_sent = fgl_now(); /* the deadline counts from here, whatever settling the sends took */
    while (pending > 0) {
        /* the deadline is read before the pass, so that each rank is probed once after it: a pass can take
           the timeout itself (a body that never comes), and a reply that arrived meanwhile is not late */
        int got = 0, late = fgl_now() - t_sent > t->opt.timeout;
        for (r = 1; r < t->size; r++) {
            int flag = 0, count = 0, rc_body;
            MPI_Status status;
            unsigned char *buf;
            fgl_reader rd;
            uint32_t k, id, round, status_code;
            char msg[256];
            double secs;
            if (!t->want[r]) continue;
            if (MPI_Iprobe(r, FGL__MPI_REPLY, t->comm, &flag, &status) != MPI_SUCCESS) {
                fgl__mpi_lose(run, t, r, "MPI failed while waiting for its reply");
                pending--;
                continue;
            }
            if (!flag) continue;
            MPI_Get_count(&status, MPI_BYTE, &count);
            buf = (unsigned char *)FGL_MALLOC((size_t)FGL__MAX(count, 1));
            if (!buf) {
                fgl__mpi_lose(run, t, r, "out of memory for its reply");
                pending--;
                continue;
            }
            if ((rc_body = fgl__mpi_recv_body(&buf, count, r, FGL__MPI_REPLY, t->comm, t->opt.timeout, NULL, NULL))) {
                FGL_FREE(buf);
                fgl__mpi_lose(run, t, r, rc_body == FGL_ERR_EMPTY ? "its reply began but did not arrive within the "
                                                                    "timeout" : "MPI failed receiving its reply");
                pending--;
                continue;
            }
            t->st.bytes_received += (size_t)count;
            got = 1;
            rd = fgl_reader_make(buf, (size_t)count);
            k = fgl_reader_u32(&rd);
            id = fgl_reader_u32(&rd);
            round = fgl_reader_u32(&rd);
            status_code = fgl_reader_u32(&rd);
            msg[0] = 0;
            fgl_reader_str(&rd, msg, sizeof msg);
            secs = fgl__get_f64(&rd);
            if (!rd.err &&
                (k != kind || id != t->run_id || round != (uint32_t)run->round)) { /* an old reply: not this one */
                FGL_FREE(buf);
                continue;
            }
            t->want[r] = 0;
            pending--;
            if (rd.err) fgl__mpi_lose(run, t, r, "a malformed reply");
            else if (status_code) {
                if (!rc) rc = fgl_error_set(&run->err, (int)status_code, "rank %d: %s", r, msg);
            } else if (handler && (handler(run, t, r, &rd) || rd.err || rd.pos != rd.len))
                fgl__mpi_lose(run, t, r, "a malformed reply");
            if (secs == secs && secs > slowest) slowest = secs;
            FGL_FREE(buf);
        }
        if (pending == 0) break;
        if (late) {
            char why[64];
            snprintf(why, sizeof why, "no answer within %g s", t->opt.timeout);
            for (r = 1; r < t->size; r++)
                if (t->want[r]) fgl__mpi_lose(run, t, r, why);
            break;
        }
        if (got) nap = 50;
        else fgl__mpi_nap(&nap);
    }
    t->st.t_exchange += fgl_now() - t0;
    t->st.t_remote += slowest;
    return rc;
}

/* Start a command of this kind to every live rank that hosts a client
 * selected by sel (NULL: every live rank); returns how many. */
static int fgl__mpi_begin_all(fgl_run *run, fgl__mpi *t, uint32_t kind, const unsigned char *sel) {
    int r, i, n = 0;
    memset(t->want, 0, (size_t)t->size);
    if (sel) {
        for (i = 0; i < run->n_clients; i++)
            if (sel[i]) t->want[t->host[i]] = 1;
    } else {
        for (r = 1; r < t->size; r++) t->want[r] = 1;
    }
    for (r = 1; r < t->size; r++) {
        t->want[r] = t->want[r] && t->alive[r];
        if (t->want[r]) {
            fgl__mpi_begin(&t->out[r], kind, t->run_id, run->round);
            n++;
        }
    }
    return n;
}

/* Append to each rank's command the downloads of its clients among the
 * participants run->part. */
static void fgl__mpi_put_downloads(fgl_run *run, fgl__mpi *t) {
    int r, q, n;
    for (r = 1; r < t->size; r++) {
        if (!t->want[r]) continue;
        for (q = n = 0; q < run->n_part; q++) n += t->host[run->part[q]] == r && !run->lost[run->part[q]];
        fgl_bytes_put_u32(&t->out[r], (uint32_t)n);
        for (q = 0; q < run->n_part; q++) {
            int i = run->part[q];
            if (t->host[i] == r && !run->lost[i]) fgl__put_msg(&t->out[r], i, &run->down[i], run->algo.n_down);
        }
    }
}

/* Mark the participants (or, sel NULL, nobody) in a K-byte scratch. */
static unsigned char *fgl__mpi_participants(fgl_run *run, fgl__mpi *t) {
    unsigned char *sel = t->want + t->size; /* K bytes after the per-rank flags */
    int q;
    memset(sel, 0, (size_t)run->n_clients);
    for (q = 0; q < run->n_part; q++) sel[run->part[q]] = 1;
    return sel;
}

static int fgl__mpi_start(fgl_run *run) {
    fgl__mpi *t = fgl__mpi_of(run);
    int r, k;
    fgl__mpi_begin_all(run, t, FGL__MC_START, NULL);
    for (r = 1; r < t->size; r++) {
        if (!t->want[r]) continue;
        fgl_bytes_put_u32(&t->out[r], (uint32_t)run->algo.n_params);
        for (k = 0; k < run->algo.n_params; k++) fgl__put_f64(&t->out[r], run->set.value[k]);
    }
    fgl__mpi_put_downloads(run, t);
    return fgl__mpi_exchange(run, t, FGL__MC_START, NULL);
}

static int fgl__mpi_read_uploads(fgl_run *run, fgl__mpi *t, int rank, fgl_reader *r) {
    uint32_t n = fgl_reader_u32(r), q;
    unsigned char *sel = t->want + t->size;
    for (q = 0; q < n && !r->err; q++) {
        uint32_t id = fgl_reader_u32(r);
        fgl_client *c;
        int bad = 0;
        if (r->err || id >= (uint32_t)run->n_clients || t->host[id] != rank || sel[id] != 1) return FGL_ERR_FORMAT;
        c = &run->clients[id];
        sel[id] = 2; /* arrived */
        c->error = (int)fgl_reader_u32(r);
        fgl_reader_str(r, c->msg, sizeof c->msg);
        c->train_loss = fgl__get_f64(r);
        fgl__get_msg(r, &c->up, run->algo.up, run->algo.n_up, c->up_len, &bad);
        c->wire_error = bad;
    }
    return r->err;
}

static int fgl__mpi_train(fgl_run *run) {
    fgl__mpi *t = fgl__mpi_of(run);
    unsigned char *sel = fgl__mpi_participants(run, t);
    int r, q, rc;
    for (q = 0; q < run->n_part; q++) {
        fgl_client *c = &run->clients[run->part[q]];
        fgl__msg_clear(&c->up);
        c->error = c->wire_error = 0;
        c->msg[0] = 0;
        c->train_loss = NAN;
        if (run->lost[c->id]) sel[c->id] = 0;
    }
    fgl__mpi_begin_all(run, t, FGL__MC_TRAIN, sel);
    for (r = 1; r < t->size; r++) {
        if (!t->want[r]) continue;
        fgl_bytes_put_u32(&t->out[r], (uint32_t)run->n_part);
        for (q = 0; q < run->n_part; q++) fgl_bytes_put_u32(&t->out[r], (uint32_t)run->part[q]);
    }
    rc = fgl__mpi_exchange(run, t, FGL__MC_TRAIN, fgl__mpi_read_uploads);
    for (q = 0; q < run->n_part; q++) { /* a participant its live rank left out of the reply: refused */
        fgl_client *c = &run->clients[run->part[q]];
        if (sel[c->id] == 1 && !run->lost[c->id]) c->wire_error = 1;
    }
    return rc;
}

/* The place of client id among secure aggregation's participants, or -1. */
static int fgl__sa_place(const struct fgl__sa *sa, uint32_t id) {
    int lo = 0, hi = sa->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if ((uint32_t)sa->ids[mid] == id) return mid;
        if ((uint32_t)sa->ids[mid] < id) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

static int fgl__mpi_read_secagg(fgl_run *run, fgl__mpi *t, int rank, fgl_reader *r) {
    struct fgl__sa *sa = run->sa;
    uint32_t step = fgl_reader_u32(r), m = fgl_reader_u32(r), q;
    size_t n = (size_t)sa->n;
    for (q = 0; q < m && !r->err; q++) {
        uint32_t id = fgl_reader_u32(r);
        int a = fgl__sa_place(sa, id);
        fgl_client *c;
        if (r->err || a < 0 || t->host[id] != rank) return FGL_ERR_FORMAT;
        c = &run->clients[id];
        c->error = (int)fgl_reader_u32(r);
        fgl_reader_str(r, c->msg, sizeof c->msg);
        if (step == 1) fgl_reader_get(r, sa->pk + (size_t)a * FGL__SA_PK, FGL__SA_PK);
        else if (step == 2) fgl_reader_get(r, sa->ct + (size_t)a * n * FGL__SA_CT, n * FGL__SA_CT);
        else if (step == 4) fgl_reader_get(r, sa->tag + (size_t)a * n * FGL__SA_TAG, n * FGL__SA_TAG);
        else if ((sa->has_rev[a] = (unsigned char)(fgl_reader_u32(r) == 1)))
            fgl_reader_get(r, sa->rev + (size_t)a * n * FGL__SA_REV, n * FGL__SA_REV);
    }
    return r->err;
}

/* Secure aggregation's step for the participants hosted by the ranks. */
static int fgl__mpi_secagg(fgl_run *run, int step) {
    fgl__mpi *t = fgl__mpi_of(run);
    struct fgl__sa *sa = run->sa;
    unsigned char *sel = t->want + t->size;
    int r, a, n = sa->n;
    memset(sel, 0, (size_t)run->n_clients);
    for (a = 0; a < n; a++)
        if (!run->lost[sa->ids[a]] && !run->clients[sa->ids[a]].local && (step < 3 || sa->alive[a]))
            sel[sa->ids[a]] = 1;
    if (!fgl__mpi_begin_all(run, t, FGL__MC_SECAGG, sel)) return FGL_OK;
    for (r = 1; r < t->size; r++) {
        fgl_bytes *b = &t->out[r];
        if (!t->want[r]) continue;
        fgl_bytes_put_u32(b, (uint32_t)step);
        fgl_bytes_put_u32(b, (uint32_t)n);
        if (step == 1)
            for (a = 0; a < n; a++) fgl_bytes_put_u32(b, (uint32_t)sa->ids[a]);
        if (step == 2) {
            fgl_bytes_put_u32(b, (uint32_t)sa->t);
            fgl_bytes_put(b, sa->pk, (size_t)n * FGL__SA_PK);
        }
        if (step == 4) fgl_bytes_put(b, sa->alive, (size_t)n); /* the survivors list, for each to vouch for */
        if (step == 3) { /* the survivors, then to each of the rank's survivors the tags and the shares sealed to it
                          * (tag, ct: to, from) */
            int m = 0;
            fgl_bytes_put(b, sa->alive, (size_t)n);
            for (a = 0; a < n; a++) m += sel[sa->ids[a]] && t->host[sa->ids[a]] == r;
            fgl_bytes_put_u32(b, (uint32_t)m);
            for (a = 0; a < n; a++)
                if (sel[sa->ids[a]] && t->host[sa->ids[a]] == r) {
                    fgl_bytes_put_u32(b, (uint32_t)sa->ids[a]);
                    fgl_bytes_put(b, sa->tag + (size_t)a * n * FGL__SA_TAG, (size_t)n * FGL__SA_TAG);
                    fgl_bytes_put(b, sa->ct + (size_t)a * n * FGL__SA_CT, (size_t)n * FGL__SA_CT);
                }
        }
    }
    return fgl__mpi_exchange(run, t, FGL__MC_SECAGG, fgl__mpi_read_secagg);
}

static int fgl__mpi_read_evals(fgl_run *run, fgl__mpi *t, int rank, fgl_reader *r) {
    uint32_t n = fgl_reader_u32(r), q;
    for (q = 0; q < n && !r->err; q++) {
        uint32_t id = fgl_reader_u32(r);
        fgl_client *c;
        if (r->err || id >= (uint32_t)run->n_clients || t->host[id] != rank) return FGL_ERR_FORMAT;
        c = &run->clients[id];
        c->val_acc = fgl__get_f64(r);
        c->test_acc = fgl__get_f64(r);
        c->val_hits = fgl__get_f64(r);
        c->test_hits = fgl__get_f64(r);
        c->val_f1 = fgl__get_f64(r); /* (protocol 8 on) */
        c->test_f1 = fgl__get_f64(r);
        c->val_auc = fgl__get_f64(r);
        c->test_auc = fgl__get_f64(r);
        c->tape.err = (int)fgl_reader_u32(r);
        fgl_reader_str(r, c->tape.msg, sizeof c->tape.msg);
    }
    return r->err;
}

/* Under secure aggregation: per hosted survivor, whether its masked
 * numbers follow (1), its evaluation failed (2) or it has none (0), the
 * words, then its error and message. */
static int fgl__mpi_read_sa_metrics(fgl_run *run, fgl__mpi *t, int rank, fgl_reader *r) {
    struct fgl__sa *sa = run->sa;
    uint32_t n = fgl_reader_u32(r), q;
    for (q = 0; q < n && !r->err; q++) {
        uint32_t id = fgl_reader_u32(r), has = fgl_reader_u32(r);
        uint64_t words[FGL__SA_NM];
        int a = -1, k;
        if (r->err || id >= (uint32_t)run->n_clients || t->host[id] != rank || has > 2) return FGL_ERR_FORMAT;
        for (k = 0; k < FGL__SA_NM; k++) words[k] = fgl_reader_u64(r);
        run->clients[id].tape.err = (int)fgl_reader_u32(r);
        fgl_reader_str(r, run->clients[id].msg, sizeof run->clients[id].msg);
        if (r->err) return FGL_ERR_FORMAT;
        if (has == 2) { /* its evaluation failed: the run stops, as without secure aggregation */
            run->clients[id].val_acc = -1;
            continue;
        }
        for (k = 0; sa && k < sa->n; k++)
            if (sa->ids[k] == (int)id) a = k;
        if (has != 1 || a < 0 || !sa->alive || !sa->alive[a] || fgl__sa_metric_slots(sa)) continue;
        memcpy(sa->mw + (size_t)a * FGL__SA_NM, words, sizeof words);
        sa->has_mw[a] = 1;
    }
    return r->err;
}

static int fgl__mpi_finish(fgl_run *run, int evaluated) {
    fgl__mpi *t = fgl__mpi_of(run);
    unsigned char *sel = fgl__mpi_participants(run, t);
    int r, i;
    if (run->cfg.secagg.on) { /* every rank: its survivors' masked numbers come back, evaluated or not */
        fgl__mpi_begin_all(run, t, FGL__MC_FINISH, NULL);
        for (r = 1; r < t->size; r++)
            if (t->want[r]) fgl_bytes_put_u32(&t->out[r], (uint32_t)evaluated);
        fgl__mpi_put_downloads(run, t);
        for (i = 0; i < run->n_clients; i++)
            if (!run->clients[i].local) run->clients[i].val_acc = 0; /* (-1 below: a failure reported) */
        if ((r = fgl__mpi_exchange(run, t, FGL__MC_FINISH, fgl__mpi_read_sa_metrics))) return r;
        for (i = 0; i < run->n_clients; i++)
            if (!run->clients[i].local && run->clients[i].val_acc < 0)
                return fgl_error_set(&run->err, run->clients[i].tape.err ? run->clients[i].tape.err : FGL_ERR_ARG,
                                     "%s, round %d, client %d: %s", run->algo.name, run->round + 1, i,
                                     run->clients[i].msg);
        return FGL_OK;
    }
    /* evaluated rounds ask every rank; otherwise only those hosting a next participant hear anything */
    fgl__mpi_begin_all(run, t, FGL__MC_FINISH, evaluated ? NULL : sel);
    for (r = 1; r < t->size; r++)
        if (t->want[r]) fgl_bytes_put_u32(&t->out[r], (uint32_t)evaluated);
    fgl__mpi_put_downloads(run, t);
    for (i = 0; evaluated && i < run->n_clients; i++) /* what does not arrive stays a failure */
        if (!run->clients[i].local) {
            run->clients[i].val_acc = run->clients[i].test_acc = -1;
            run->clients[i].val_hits = run->clients[i].test_hits = NAN;
            run->clients[i].val_f1 = run->clients[i].test_f1 = NAN;
            run->clients[i].val_auc = run->clients[i].test_auc = NAN;
        }
    return fgl__mpi_exchange(run, t, FGL__MC_FINISH, evaluated ? fgl__mpi_read_evals : NULL);
}

/* SAVE replies: per hosted client, its store's bytes. */
static int fgl__mpi_read_stores(fgl_run *run, fgl__mpi *t, int rank, fgl_reader *r) {
    uint32_t n = fgl_reader_u32(r), q;
    for (q = 0; q < n && !r->err; q++) {
        uint32_t id = fgl_reader_u32(r);
        uint64_t len = fgl_reader_u64(r);
        if (r->err || id >= (uint32_t)run->n_clients || t->host[id] != rank || len > (uint64_t)(r->len - r->pos))
            return FGL_ERR_FORMAT;
        t->stores[id].len = 0;
        fgl_bytes_put(&t->stores[id], r->data + r->pos, (size_t)len);
        fgl__skip(r, (size_t)len);
    }
    return r->err;
}

static int fgl__mpi_save(fgl_run *run, fgl_bytes *stores) {
    fgl__mpi *t = fgl__mpi_of(run);
    int i, r, rc;
    for (i = 0; i < run->n_clients; i++)
        if (run->lost[i])
            return fgl_error_set(&run->err, FGL_ERR_ARG, "client %d is lost with rank %d: its state cannot be saved", i,
                                 t->host[i]);
    fgl__mpi_begin_all(run, t, FGL__MC_SAVE, NULL);
    t->stores = stores;
    rc = fgl__mpi_exchange(run, t, FGL__MC_SAVE, fgl__mpi_read_stores);
    t->stores = NULL;
    for (i = 0; !rc && i < run->n_clients; i++) {
        r = t->host[i];
        if (run->lost[i]) rc = fgl_error_set(&run->err, FGL_ERR_ARG, "rank %d did not send client %d's state", r, i);
        else if (stores[i].err) rc = fgl_error_set(&run->err, FGL_ERR_NOMEM, "out of memory");
    }
    return rc;
}

static int fgl__mpi_load(fgl_run *run, const fgl_reader *stores, int commit, fgl_error *err) {
    fgl__mpi *t = fgl__mpi_of(run);
    int r, i, n, rc;
    for (i = 0; i < run->n_clients; i++)
        if (run->lost[i]) return fgl_error_set(err, FGL_ERR_ARG, "client %d is lost with rank %d", i, t->host[i]);
    fgl__mpi_begin_all(run, t, FGL__MC_LOAD, NULL);
    for (r = 1; r < t->size; r++) {
        fgl_bytes *b = &t->out[r];
        if (!t->want[r]) continue;
        fgl_bytes_put_u32(b, (uint32_t)commit);
        if (commit) continue; /* the rank installs what it checked */
        for (i = n = 0; i < run->n_clients; i++) n += t->host[i] == r;
        fgl_bytes_put_u32(b, (uint32_t)n);
        for (i = 0; i < run->n_clients; i++)
            if (t->host[i] == r) {
                fgl_bytes_put_u32(b, (uint32_t)i);
                fgl_bytes_put_u64(b, (uint64_t)stores[i].len);
                fgl_bytes_put(b, stores[i].data, stores[i].len);
            }
    }
    rc = fgl__mpi_exchange(run, t, FGL__MC_LOAD, NULL);
    for (i = 0; !rc && i < run->n_clients; i++)
        if (run->lost[i])
            rc =
                fgl_error_set(&run->err, FGL_ERR_ARG, "rank %d did not answer while the checkpoint loaded", t->host[i]);
    return rc ? fgl_error_set(err, rc, "%s", run->err.msg) : FGL_OK;
}

static int fgl__mpi_resume(fgl_run *run) {
    fgl__mpi *t = fgl__mpi_of(run);
    fgl__mpi_begin_all(run, t, FGL__MC_RESUME, NULL);
    fgl__mpi_put_downloads(run, t);
    return fgl__mpi_exchange(run, t, FGL__MC_RESUME, NULL);
}

/* The run's end: every rank that took the run is sent END (a lost one too:
 * a slow rank may still be listening, and drops the run when it gets
 * there). The server waits for the live ranks' sends, at most the timeout
 * (a live rank that does not take them is lost), never for a lost rank's:
 * those sends are given up (MPI_Request_free) and their buffers left to MPI,
 * never freed, as the send may still read them. */
static void fgl__mpi_free(fgl_run *run) {
    fgl__mpi *t = fgl__mpi_of(run);
    int r, nap = 50, keep_end = 0;
    double t0 = fgl_now();
    fgl_bytes end;
    fgl_bytes_init(&end);
    fgl__mpi_begin(&end, FGL__MC_END, t->run_id, run->round);
    for (r = 1; r < t->size; r++) {
        t->end[r] = MPI_REQUEST_NULL;
        if (t->member[r] && !end.err &&
            MPI_Isend(end.data, (int)end.len, MPI_BYTE, r, FGL__MPI_CMD, t->comm, &t->end[r]) != MPI_SUCCESS) {
            t->end[r] = MPI_REQUEST_NULL;
            fgl__mpi_lose(run, t, r, "MPI could not send it the run's end");
        }
    }
    for (;;) { /* the live ranks' sends done */
        int waiting = 0, flag;
        for (r = 1; r < t->size; r++) {
            MPI_Request *q[2];
            int k;
            q[0] = &t->req[r];
            q[1] = &t->end[r];
            for (k = 0; k < 2; k++) {
                if (*q[k] == MPI_REQUEST_NULL) continue;
                flag = 0;
                if (MPI_Test(q[k], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
                    fgl__mpi_lose(run, t, r, "MPI failed on its last send");
                    flag = 0;
                }
                if (!flag && t->alive[r]) waiting = 1;
            }
        }
        if (!waiting) break;
        if (fgl_now() - t0 > t->opt.timeout) {
            for (r = 1; r < t->size; r++)
                if (t->alive[r] && (t->req[r] != MPI_REQUEST_NULL || t->end[r] != MPI_REQUEST_NULL))
                    fgl__mpi_lose(run, t, r, "it did not take the run's end within the timeout");
            break;
        }
        fgl__mpi_nap(&nap);
    }
    for (r = 1; r < t->size; r++) {
        int flag = 1;
        MPI_Status status;
        if (t->end[r] != MPI_REQUEST_NULL) {
            MPI_Request_free(&t->end[r]);
            keep_end = 1;
        }
        if (t->req[r] != MPI_REQUEST_NULL) { /* a rank that never took it: its buffer must outlive the send */
            MPI_Request_free(&t->req[r]);
            fgl_bytes_init(&t->out[r]);
        }
        while (!t->alive[r] && t->member[r] && flag) { /* late replies of lost ranks, already there */
            if (MPI_Iprobe(r, FGL__MPI_REPLY, t->comm, &flag, &status) != MPI_SUCCESS) break;
            if (flag) {
                int count = 0;
                unsigned char *buf;
                MPI_Get_count(&status, MPI_BYTE, &count);
                buf = (unsigned char *)FGL_MALLOC((size_t)FGL__MAX(count, 1));
                if (!buf) break;
                flag = fgl__mpi_recv_body(&buf, count, r, FGL__MPI_REPLY, t->comm, 1.0, NULL, NULL) == FGL_OK;
                FGL_FREE(buf);
            }
        }
        fgl_bytes_free(&t->out[r]);
    }
    if (!keep_end) fgl_bytes_free(&end); /* else a few bytes left to MPI */
    FGL_FREE(t->host);
    FGL_FREE(t->ranks);
    FGL_FREE(t->alive);
    FGL_FREE(t->member);
    FGL_FREE(t->want);
    FGL_FREE(t->out);
    FGL_FREE(t->req);
    FGL_FREE(t->end);
    FGL_FREE(t);
    run->transport = NULL;
}

FGLDEF void fgl_mpi_stats_get(const fgl_run *run, fgl_mpi_stats *out) {
    int i;
    memset(out, 0, sizeof *out);
    out->ranks = 1;
    if (!run->transport || run->transport->start != fgl__mpi_start) return;
    *out = fgl__mpi_of(run)->st;
    out->lost_clients = 0;
    for (i = 0; run->lost && i < run->n_clients; i++) out->lost_clients += run->lost[i] != 0;
}

/* INIT, to the live ranks: the run's description, every client's spec and
 * registration, the rank's clients' data. Client i goes to the
 * floor(i L / K)-th of the L live ranks. Returns how many ranks took it
 * (0: none was live), or the error a rank reported (negative). */
static int fgl__mpi_init_ranks(fgl_run *run, fgl__mpi *t, const uint64_t *sums) {
    int i, r, L = 0, K = run->n_clients, rc;
    for (r = 1; r < t->size; r++)
        if (t->alive[r]) t->ranks[L++] = r;
    if (L == 0) return 0;
    for (i = 0; i < K; i++) {
        t->host[i] = t->ranks[(int64_t)i * L / K];
        run->lost[i] = 0;
    }
    fgl__mpi_begin_all(run, t, FGL__MC_INIT, NULL);
    for (r = 1; r < t->size; r++) {
        fgl_bytes *b = &t->out[r];
        if (!t->want[r]) continue;
        t->member[r] = 1;
        fgl_bytes_put_u32(b, FGL__MPI_PROTOCOL);
        fgl_bytes_put_u32(b, (uint32_t)sizeof(fgl_model_spec));
        fgl_bytes_put_str(b, run->algo.name);
        fgl__put_config(b, &run->cfg);
        if (run->cfg.secrets.from_seed) fgl_bytes_put_u64(b, run->cfg.secrets.seed); /* a simulation's choice */
        fgl_bytes_put_u32(b, (uint32_t)run->cfg.threads);
        fgl_bytes_put_u32(b, (uint32_t)run->cfg.park_idle); /* run control, outside the fingerprint */
        fgl_bytes_put_u32(b, (uint32_t)t->opt.fail_rank);
        fgl_bytes_put_u32(b, (uint32_t)t->opt.fail_round);
        fgl_bytes_put_u32(b, (uint32_t)(t->opt.fail_exit != 0));
        fgl_bytes_put_u32(b, (uint32_t)K);
        for (i = 0; i < K; i++) {
            const fgl_client *c = &run->clients[i];
            fgl_bytes_put_u32(b, (uint32_t)t->host[i]);
            fgl_bytes_put(b, &c->spec, sizeof c->spec); /* plain ints and floats; the same build everywhere */
            fgl_bytes_put_u32(b, (uint32_t)c->n_train);
            fgl_bytes_put_u32(b, (uint32_t)c->n_val);
            fgl_bytes_put_u32(b, (uint32_t)c->n_test);
            fgl_bytes_put_u64(b, sums[i]);
        }
        for (i = 0; i < K; i++) {
            const fgl_client *c = &run->clients[i];
            if (t->host[i] != r) continue;
            fgl_bytes_put_u32(b, c->data.node ? 1u : 2u);
            if (c->data.node) {
                fgl__put_node_data(b, c->data.node);
                fgl_bytes_put_u32(b, c->data.link ? 1u : 0u); /* a link client's edge split travels with it */
                if (c->data.link) fgl__put_link_split(b, c->data.link);
            } else fgl__put_graph_set(b, c->data.graphs);
        }
    }
    rc = fgl__mpi_exchange(run, t, FGL__MC_INIT, NULL);
    if (rc) return rc < 0 ? rc : FGL_ERR_FORMAT;
    for (r = 1, L = 0; r < t->size; r++) L += t->alive[r];
    return L;
}

FGLDEF int fgl_mpi_distribute(fgl_run *run, MPI_Comm comm, const fgl_mpi_options *opt, fgl_error *err) {
    static uint32_t runs = 0;
    fgl__mpi *t;
    int size = 0, rank = -1, i, r, K = run->n_clients, rc = FGL_OK, lost;
    uint64_t *sums;
    if (MPI_Comm_size(comm, &size) != MPI_SUCCESS || MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
        return fgl_error_set(err, FGL_ERR_ARG, "mpi: not a usable communicator");
    if (!run->clients || run->started || run->transport)
        return fgl_error_set(err, FGL_ERR_ARG, "mpi: distribute an initialised run once, before its first round");
    if (rank != 0) return fgl_error_set(err, FGL_ERR_ARG, "mpi: the server is rank 0 (this is rank %d)", rank);
    if (size < 2) return FGL_OK; /* one process: the run stays here */
    if (opt && !(opt->timeout > 0)) return fgl_error_set(err, FGL_ERR_ARG, "mpi: the timeout must be positive");
    for (i = 0; i < K; i++)
        if (!run->clients[i].local) return fgl_error_set(err, FGL_ERR_ARG, "mpi: client %d has no data here", i);
    /* a rank that fails must come back as an error, not end the job */
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    t = (fgl__mpi *)fgl__zalloc(sizeof *t);
    sums = (uint64_t *)fgl__zalloc(sizeof(uint64_t) * (size_t)K);
    if (t) {
        t->host = (int *)fgl__zalloc(sizeof(int) * (size_t)K);
        t->ranks = (int *)fgl__zalloc(sizeof(int) * (size_t)size);
        t->alive = (unsigned char *)fgl__zalloc((size_t)size);
        t->member = (unsigned char *)fgl__zalloc((size_t)size);
        t->want = (unsigned char *)fgl__zalloc((size_t)size + (size_t)K);
        t->out = (fgl_bytes *)fgl__zalloc(sizeof(fgl_bytes) * (size_t)size);
        t->req = (MPI_Request *)fgl__zalloc(sizeof(MPI_Request) * (size_t)size);
        t->end = (MPI_Request *)fgl__zalloc(sizeof(MPI_Request) * (size_t)size);
    }
    if (!t || !sums || !t->host || !t->ranks || !t->alive || !t->member || !t->want || !t->out || !t->req || !t->end) {
        if (t) {
            FGL_FREE(t->host);
            FGL_FREE(t->ranks);
            FGL_FREE(t->alive);
            FGL_FREE(t->member);
            FGL_FREE(t->want);
            FGL_FREE(t->out);
            FGL_FREE(t->req);
            FGL_FREE(t->end);
        }
        FGL_FREE(t);
        FGL_FREE(sums);
        return fgl_error_set(err, FGL_ERR_NOMEM, "mpi: out of memory");
    }
    t->tr.start = fgl__mpi_start;
    t->tr.train = fgl__mpi_train;
    t->tr.finish = fgl__mpi_finish;
    t->tr.save = fgl__mpi_save;
    t->tr.load = fgl__mpi_load;
    t->tr.resume = fgl__mpi_resume;
    t->tr.secagg = fgl__mpi_secagg;
    t->tr.free = fgl__mpi_free;
    t->comm = comm;
    t->size = size;
    t->run_id = ++runs;
    t->opt = opt ? *opt : fgl_mpi_options_default();
    t->cs = fgl__mpi_comm_state(comm, 1);
    if (t->cs && t->opt.timeout > t->cs->timeout) t->cs->timeout = t->opt.timeout;
    t->st.ranks = size;
    for (r = 0; r < size; r++) {
        t->alive[r] = r > 0 && !(t->cs && t->cs->gone[r]); /* a rank lost before stays out */
        t->req[r] = t->end[r] = MPI_REQUEST_NULL;
    }
    for (i = 0; i < K; i++) {
        const fgl_client *c = &run->clients[i];
        sums[i] = fgl__data_sum(c->data.node, c->data.graphs);
    }
    run->transport = &t->tr;
    /* INIT; a rank lost meanwhile gives its clients to the others, and INIT starts again */
    t->starting = 1;
    do {
        lost = t->st.lost_ranks;
        rc = fgl__mpi_init_ranks(run, t, sums);
    } while (rc > 0 && t->st.lost_ranks > lost);
    t->starting = 0;
    t->st.bytes_data = t->st.bytes_sent + t->st.bytes_received;
    t->st.bytes_sent = t->st.bytes_received = 0;
    t->st.t_exchange = t->st.t_remote = 0;
    if (rc <= 0) {
        /* an error a rank reported, or no worker left: the ranks that took the run drop it; without
           workers (all lost, now or before) the run stays here, whole */
        if (rc < 0) fgl_error_set(err, rc, "%s", run->err.msg);
        fgl__mpi_free(run);
        memset(run->lost, 0, (size_t)K);
        FGL_FREE(sums);
        return rc;
    }
    for (i = 0; i < K; i++) { /* the clients live on their ranks now */
        fgl_client *c = &run->clients[i];
        c->data_sum = sums[i];
        c->local = 0;
        c->data.node = NULL;
        c->data.graphs = NULL;
    }
    run->role = FGL__ROLE_SERVER;
    FGL_FREE(sums);
    return FGL_OK;
}

/* Rank 0's QUIT to every other rank; each confirms with a bare reply. A
 * rank lost before gets a second to confirm (a slow one may), the others
 * the longest timeout of the runs. The QUIT sends of ranks that do not
 * take them are given up, their buffer left to MPI. */
FGLDEF int fgl_mpi_finish(MPI_Comm comm) {
    fgl__mpi_comm *cs;
    int size = 0, rank = -1, r, left = 0, nap = 50, missing = 0, keep = 0;
    double t0 = fgl_now(), wait;
    fgl_bytes b;
    MPI_Request *req;
    unsigned char *done;
    if (MPI_Comm_size(comm, &size) != MPI_SUCCESS || MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || rank != 0) return 0;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    cs = fgl__mpi_comm_state(comm, 1);
    wait = cs && cs->timeout > 0 ? cs->timeout : fgl_mpi_options_default().timeout;
    req = (MPI_Request *)FGL_MALLOC(sizeof(MPI_Request) * (size_t)size);
    done = (unsigned char *)fgl__zalloc((size_t)size); /* per rank: 1 confirmed, 2 given up */
    fgl_bytes_init(&b);
    fgl__mpi_begin(&b, FGL__MC_QUIT, 0, 0);
    for (r = 1; req && done && r < size; r++) {
        req[r] = MPI_REQUEST_NULL;
        if (b.err || MPI_Isend(b.data, (int)b.len, MPI_BYTE, r, FGL__MPI_CMD, comm, &req[r]) != MPI_SUCCESS) {
            req[r] = MPI_REQUEST_NULL;
            done[r] = 2;
        } else left++;
    }
    while (left > 0) {
        int got = 0;
        double el = fgl_now() - t0; /* before the pass, as in fgl__mpi_exchange: a body's wait delays no other rank */
        for (r = 1; r < size; r++) {
            int flag = 0, count = 0;
            MPI_Status status;
            unsigned char *buf;
            if (done[r]) continue;
            if (req[r] != MPI_REQUEST_NULL && MPI_Test(&req[r], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                req[r] = MPI_REQUEST_NULL;
            flag = 0;
            if (MPI_Iprobe(r, FGL__MPI_REPLY, comm, &flag, &status) != MPI_SUCCESS) {
                done[r] = 2;
                left--;
                continue;
            }
            if (!flag) continue;
            MPI_Get_count(&status, MPI_BYTE, &count);
            if (!(buf = (unsigned char *)FGL_MALLOC((size_t)FGL__MAX(count, 4)))) break;
            got = 1;
            if (fgl__mpi_recv_body(&buf, count, r, FGL__MPI_REPLY, comm, cs && cs->gone[r] ? 1.0 : wait, NULL, NULL)) {
                done[r] = 2;
                left--;
            } else if (count >= 4) {
                fgl_reader rd = fgl_reader_make(buf, (size_t)count);
                if (fgl_reader_u32(&rd) == FGL__MC_QUIT) { /* else a late reply of a lost run */
                    done[r] = 1;
                    left--;
                }
            }
            FGL_FREE(buf);
        }
        for (r = 1; r < size; r++)
            if (!done[r] && el > (cs && cs->gone[r] ? 1.0 : wait)) {
                done[r] = 2;
                left--;
            }
        if (got) nap = 50;
        else if (left > 0) fgl__mpi_nap(&nap);
    }
    for (r = 1; r < size; r++) {
        if (req && req[r] != MPI_REQUEST_NULL) {
            MPI_Request_free(&req[r]);
            keep = 1;
        }
        if (!done || done[r] != 1) {
            missing++;
            if (cs && r < cs->size) cs->gone[r] = 2;
        }
    }
    if (!keep) fgl_bytes_free(&b);
    FGL_FREE(req);
    FGL_FREE(done);
    return missing;
}

FGLDEF int fgl_mpi_rank_gone(MPI_Comm comm, int rank) {
    fgl__mpi_comm *s = fgl__mpi_comm_state(comm, 0);
    return s && rank >= 0 && rank < s->size ? s->gone[rank] : 0;
}

#endif /* FGL_MPI */

/* --- src/fed/mpi_worker.h --- */
/* ======================================================================== */
/* FGL_MPI: the worker ranks (fgl_mpi_serve; src/fed/mpi.h is the server)   */
/* ======================================================================== */
/* A worker waits for the server's commands (the protocol: src/fed/mpi.h),
 * builds the run INIT describes from the clients' data it carries, and
 * answers each command with one reply, posted with MPI_Isend and settled
 * before the next reply is built, so that it never blocks on a server that
 * is gone. */
#ifdef FGL_MPI
#include <stdlib.h> /* _Exit: the simulated fault fail_exit only */

/* --- the workers' side ------------------------------------------------------------- */

typedef struct fgl__worker {
    MPI_Comm comm;
    int rank;
    uint32_t run_id;
    int have;                   /* a run is set up */
    fgl_run run;
    int K;
    fgl_client_data *cd;        /* K; the hosted clients' data owned here */
    int fail, fail_round;       /* the simulated fault: this rank's, from that round (0: the start) */
    int fail_exit;              /* it ends the process in mid-reply instead of going silent */
    int silent;                 /* it is under way */
    int trained_round;          /* the round whose participants run->trained marks */
    unsigned char *load;        /* the checkpoint part checked, kept for the commit */
    size_t load_len;
    fgl_bytes out;              /* the reply */
    MPI_Request req;            /* its send */
    int (*server_alive)(void *ctx); /* the program's check that rank 0 exists (NULL: none) */
    void *ctx;
    double next_check;
    int gone;                   /* the check said rank 0 is gone */
} fgl__worker;

/* 1 when the program's check (asked about once a second) says rank 0 is gone. */
static int fgl__worker_alone(fgl__worker *w) {
    double now;
    if (!w->server_alive || w->gone) return w->gone;
    if ((now = fgl_now()) < w->next_check) return 0;
    w->next_check = now + 1;
    return w->gone = !w->server_alive(w->ctx);
}

static int fgl__worker_alone_cb(void *w) { return fgl__worker_alone((fgl__worker *)w); }

/* Post w->out to the server (it is taken while the rank waits for the next
 * command: fgl__worker_settle before w->out changes). FGL_OK or FGL_ERR_IO. */
static int fgl__worker_send(fgl__worker *w) {
    if (MPI_Isend(w->out.data, (int)w->out.len, MPI_BYTE, 0, FGL__MPI_REPLY, w->comm, &w->req) == MPI_SUCCESS)
        return FGL_OK;
    w->req = MPI_REQUEST_NULL;
    return FGL_ERR_IO;
}

/* Poll until the last reply is taken: FGL_OK, or FGL_ERR_IO (MPI failed, or
 * rank 0 is gone: the send is given up, its buffer left to MPI). */
static int fgl__worker_settle(fgl__worker *w) {
    int flag = 0, nap = 50;
    while (w->req != MPI_REQUEST_NULL) {
        if (MPI_Test(&w->req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || (!flag && fgl__worker_alone(w))) {
            if (w->req != MPI_REQUEST_NULL) MPI_Request_free(&w->req);
            fgl_bytes_init(&w->out);
            return FGL_ERR_IO;
        }
        if (flag) break;
        fgl__mpi_nap(&nap);
    }
    return FGL_OK;
}

static void fgl__worker_drop(fgl__worker *w) {
    int i;
    if (w->have) {
        fgl_run_free(&w->run);
        for (i = 0; w->cd && i < w->K; i++) {
            if (w->cd[i].node) fgl_node_data_free(w->cd[i].node);
            if (w->cd[i].graphs) fgl_graph_set_free(w->cd[i].graphs);
            if (w->cd[i].link) fgl_link_split_free((fgl_link_split *)w->cd[i].link); /* ours: it arrived */
            FGL_FREE((void *)w->cd[i].link);
            FGL_FREE(w->cd[i].node);
            FGL_FREE(w->cd[i].graphs);
        }
    }
    FGL_FREE(w->cd);
    FGL_FREE(w->load);
    w->cd = NULL;
    w->load = NULL;
    w->have = 0;
    w->silent = 0;
}

/* The simulated fault with fail_exit: post the start of a reply to this
 * command (a valid header, then 1 MiB the server cannot read as a body) and
 * end the process while MPI is still sending it, as a rank killed then. */
static void fgl__worker_exit_midreply(fgl__worker *w, uint32_t kind, uint32_t run_id, int round) {
    size_t size = (size_t)1 << 20; /* large enough for MPI to send it in parts */
    unsigned char *pad = (unsigned char *)fgl__zalloc(size);
    int flag = 0;
    if (pad && fgl__worker_settle(w) == FGL_OK) {
        fgl__mpi_begin(&w->out, kind, run_id, round);
        fgl_bytes_put_u32(&w->out, 0);
        fgl_bytes_put_str(&w->out, "");
        fgl__put_f64(&w->out, 0);
        fgl_bytes_put(&w->out, pad, size);
        if (!w->out.err && fgl__worker_send(w) == FGL_OK) MPI_Test(&w->req, &flag, MPI_STATUS_IGNORE);
    }
    _Exit(70);
}

static int fgl__worker_init(fgl__worker *w, fgl_reader *r, fgl_error *err) {
    char name[64];
    fgl_fed_config cfg;
    const fgl_algo *algo;
    fgl__remote *remote = NULL;
    uint32_t proto, spec_size, threads, park, fail_rank, fail_round, fail_exit, K, i;
    int rc = FGL_OK;
    proto = fgl_reader_u32(r);
    spec_size = fgl_reader_u32(r);
    if (r->err || proto != FGL__MPI_PROTOCOL || spec_size != (uint32_t)sizeof(fgl_model_spec))
        return fgl_error_set(err, FGL_ERR_FORMAT, "it runs another fgl build (protocol %u, spec %u bytes; here %u, %u)",
                             (unsigned)proto, (unsigned)spec_size, FGL__MPI_PROTOCOL, (unsigned)sizeof(fgl_model_spec));
    fgl_reader_str(r, name, sizeof name);
    fgl__get_config(r, &cfg);
    if (cfg.secrets.from_seed) cfg.secrets.seed = fgl_reader_u64(r);
    threads = fgl_reader_u32(r);
    park = fgl_reader_u32(r);
    fail_rank = fgl_reader_u32(r);
    fail_round = fgl_reader_u32(r);
    fail_exit = fgl_reader_u32(r);
    K = fgl_reader_u32(r);
    if (r->err || K == 0 || K > (uint32_t)(r->len - r->pos) / (24 + sizeof(fgl_model_spec)))
        return fgl_error_set(err, FGL_ERR_FORMAT, "a malformed run description");
    if (!(algo = fgl_algo_find(name)))
        return fgl_error_set(err, FGL_ERR_ARG, "algorithm '%s' is not registered in this process", name);
    cfg.threads = (int)threads;
    cfg.park_idle = park <= 2 ? (int)park : 0;
    w->fail = (int)fail_rank == w->rank;
    w->fail_round = (int)fail_round;
    w->fail_exit = fail_exit == 1;
    w->cd = (fgl_client_data *)fgl__zalloc(sizeof(fgl_client_data) * K);
    w->K = (int)K;
    remote = (fgl__remote *)fgl__zalloc(sizeof(fgl__remote) * K);
    if (!w->cd || !remote) {
        FGL_FREE(remote);
        return fgl_error_set(err, FGL_ERR_NOMEM, "out of memory");
    }
    for (i = 0; i < K; i++) {
        remote[i].remote = (int)fgl_reader_u32(r) != w->rank;
        fgl_reader_get(r, &w->cd[i].spec, sizeof(fgl_model_spec));
        remote[i].n_train = (int)fgl_reader_u32(r);
        remote[i].n_val = (int)fgl_reader_u32(r);
        remote[i].n_test = (int)fgl_reader_u32(r);
        remote[i].data_sum = fgl_reader_u64(r);
    }
    for (i = 0; i < K && !r->err; i++) { /* this rank's clients' data, in client order */
        uint32_t kind;
        if (remote[i].remote) continue;
        kind = fgl_reader_u32(r);
        if (kind == 1 && (w->cd[i].node = (fgl_node_data *)fgl__zalloc(sizeof(fgl_node_data))) != NULL) {
            fgl_link_split *ls;
            uint32_t link = fgl__get_node_data(r, w->cd[i].node) ? 0 : fgl_reader_u32(r);
            if (!r->err && link > 1) r->err = FGL_ERR_FORMAT;
            if (r->err || !link) continue;
            if (!(ls = (fgl_link_split *)fgl__zalloc(sizeof(fgl_link_split)))) r->err = FGL_ERR_NOMEM;
            else if (fgl__get_link_split(r, w->cd[i].node->n_nodes, ls)) FGL_FREE(ls);
            else w->cd[i].link = ls;
        }
        else if (kind == 2 && (w->cd[i].graphs = (fgl_graph_set *)fgl__zalloc(sizeof(fgl_graph_set))) != NULL)
            fgl__get_graph_set(r, w->cd[i].graphs);
        else if (!r->err)
            r->err = kind == 1 || kind == 2 ? FGL_ERR_NOMEM : FGL_ERR_FORMAT;
    }
    w->have = 1; /* what arrived is freed by fgl__worker_drop from here on */
    w->run.n_clients = 0;
    if (r->err || r->pos != r->len) rc = fgl_error_set(err, r->err == FGL_ERR_NOMEM ? FGL_ERR_NOMEM : FGL_ERR_FORMAT,
                                                        "a malformed or truncated run description");
    if (!rc && (rc = fgl__run_init(&w->run, &cfg, algo, w->cd, (int)K, remote, err))) memset(&w->run, 0, sizeof w->run);
    for (i = 0; !rc && i < K; i++) { /* the data arrived as it left */
        const fgl_client *c = &w->run.clients[i];
        if (remote[i].remote) continue;
        if (fgl__data_sum(w->cd[i].node, w->cd[i].graphs) != remote[i].data_sum || c->n_train != remote[i].n_train ||
            c->n_val != remote[i].n_val || c->n_test != remote[i].n_test)
            rc = fgl_error_set(err, FGL_ERR_FORMAT, "client %u's data differs from what the server registered",
                               (unsigned)i);
    }
    w->run.role = FGL__ROLE_CLIENTS;
    w->trained_round = -1;
    FGL_FREE(remote);
    return rc;
}

/* Install the downloads that follow in r: run->part becomes their clients;
 * hook: call the receive hooks (else only take the messages as received). */
static int fgl__worker_downloads(fgl__worker *w, fgl_reader *r, int hook, fgl_error *err) {
    fgl_run *run = &w->run;
    uint32_t n = fgl_reader_u32(r), q;
    int i;
    if (r->err || n > (uint32_t)run->n_clients) return fgl_error_set(err, FGL_ERR_FORMAT, "malformed downloads");
    for (q = 0; q < n; q++) {
        uint32_t id = fgl_reader_u32(r);
        int bad = 0;
        if (r->err || id >= (uint32_t)run->n_clients || !run->clients[id].local ||
            (q > 0 && (int)id <= run->part[q - 1]))
            return fgl_error_set(err, FGL_ERR_FORMAT, "a download for a client it does not host");
        fgl__get_msg(r, &run->down[id], run->algo.down, run->algo.n_down, run->clients[id].down_len, &bad);
        if (r->err || bad)
            return fgl_error_set(err, FGL_ERR_FORMAT, "client %u's download is malformed", (unsigned)id);
        run->part[q] = (int)id;
    }
    run->n_part = (int)n;
    if (hook) {
        if (fgl__phase_receive(run)) return fgl_error_set(err, run->err.code, "%s", run->err.msg);
    } else {
        for (i = 0; i < run->n_part; i++) fgl__receive(run, &run->clients[run->part[i]], 0);
    }
    return FGL_OK;
}

static int fgl__worker_train(fgl__worker *w, fgl_reader *r, int round, fgl_error *err) {
    fgl_run *run = &w->run;
    uint32_t n = fgl_reader_u32(r), q;
    int m = 0;
    if (r->err || n == 0 || n > (uint32_t)run->n_clients)
        return fgl_error_set(err, FGL_ERR_FORMAT, "malformed participants");
    for (q = 0; q < n; q++) {
        uint32_t id = fgl_reader_u32(r);
        if (r->err || id >= (uint32_t)run->n_clients || (q > 0 && (int)id <= run->part[q - 1]))
            return fgl_error_set(err, FGL_ERR_FORMAT, "malformed participants");
        run->part[q] = (int)id;
    }
    run->n_part = (int)n;
    run->round = round;
    memset(run->trained, 0, (size_t)run->n_clients);
    for (q = 0; q < n; q++) run->trained[run->part[q]] = 1;
    w->trained_round = round;
    fgl__phase_train(run);
    for (q = 0; q < n; q++) m += run->clients[run->part[q]].local;
    fgl_bytes_put_u32(&w->out, (uint32_t)m);
    for (q = 0; q < n; q++) {
        const fgl_client *c = &run->clients[run->part[q]];
        if (!c->local) continue;
        fgl_bytes_put_u32(&w->out, (uint32_t)c->id);
        fgl_bytes_put_u32(&w->out, (uint32_t)c->error);
        fgl_bytes_put_str(&w->out, c->msg);
        fgl__put_f64(&w->out, run->cfg.secagg.on ? NAN : c->train_loss); /* secagg: in step 5's sum only */
        for (m = 0; m < run->algo.n_up; m++) fgl__put_floats(&w->out, c->up.part[m], c->up.part[m] ? c->up.len[m] : 0);
    }
    return FGL_OK;
}

/* Step over n bytes (read in place by the caller). */
static int fgl__reader_skip(fgl_reader *r, size_t n) {
    if (r->err || n > r->len - r->pos) return r->err = FGL_ERR_FORMAT;
    r->pos += n;
    return FGL_OK;
}

/* Secure aggregation's step for the rank's participants (fgl__mpi_secagg). */
static int fgl__worker_secagg(fgl__worker *w, fgl_reader *r, int round, fgl_error *err) {
    fgl_run *run = &w->run;
    uint32_t step = fgl_reader_u32(r), n = fgl_reader_u32(r), q, m = 0;
    size_t at;
    if (r->err || step < 1 || step > 4 || n < 2 || n > (uint32_t)run->n_clients)
        return fgl_error_set(err, FGL_ERR_FORMAT, "malformed secure aggregation step");
    run->round = round;
    if (step == 1) {
        int *ids = (int *)FGL_MALLOC(sizeof(int) * n);
        unsigned char pk[FGL__SA_PK];
        if (!ids) return fgl_error_set(err, FGL_ERR_NOMEM, "out of memory");
        for (q = 0; q < n; q++) {
            ids[q] = (int)fgl_reader_u32(r);
            if (r->err || ids[q] < 0 || ids[q] >= run->n_clients || (q > 0 && ids[q] <= ids[q - 1])) {
                FGL_FREE(ids);
                return fgl_error_set(err, FGL_ERR_FORMAT, "malformed participants");
            }
            m += run->clients[ids[q]].local;
        }
        fgl_bytes_put_u32(&w->out, step);
        fgl_bytes_put_u32(&w->out, m);
        for (q = 0; q < n; q++) {
            fgl_client *c = &run->clients[ids[q]];
            if (!c->local) continue;
            c->error = 0;
            c->msg[0] = 0;
            memset(pk, 0, sizeof pk);
            fgl__sa_keys(run, c, round, (int)n, ids, pk);
            fgl_bytes_put_u32(&w->out, (uint32_t)c->id);
            fgl_bytes_put_u32(&w->out, (uint32_t)c->error);
            fgl_bytes_put_str(&w->out, c->msg);
            fgl_bytes_put(&w->out, pk, FGL__SA_PK);
        }
        FGL_FREE(ids);
        return FGL_OK;
    }
    if (step == 2) {
        uint32_t t = fgl_reader_u32(r);
        const unsigned char *pks = r->data + r->pos;
        unsigned char *ct;
        int i;
        if (r->err || t < 2 || t > n || (size_t)(r->len - r->pos) != (size_t)n * FGL__SA_PK)
            return fgl_error_set(err, FGL_ERR_FORMAT, "malformed public keys");
        r->pos = r->len;
        if (!(ct = (unsigned char *)FGL_MALLOC((size_t)n * FGL__SA_CT)))
            return fgl_error_set(err, FGL_ERR_NOMEM, "out of memory");
        for (i = 0; i < run->n_clients; i++)
            m += run->clients[i].local && run->clients[i].sa && run->clients[i].sa->n == (int)n;
        fgl_bytes_put_u32(&w->out, step);
        fgl_bytes_put_u32(&w->out, m);
        for (i = 0; i < run->n_clients; i++) {
            fgl_client *c = &run->clients[i];
            if (!c->local || !c->sa || c->sa->n != (int)n) continue;
            fgl__sa_share(run, c, pks, (int)t, ct);
            fgl_bytes_put_u32(&w->out, (uint32_t)c->id);
            fgl_bytes_put_u32(&w->out, (uint32_t)c->error);
            fgl_bytes_put_str(&w->out, c->msg);
            fgl_bytes_put(&w->out, ct, (size_t)n * FGL__SA_CT);
        }
        FGL_FREE(ct);
        return FGL_OK;
    }
    if (step == 4) { /* the survivors list in; each hosted survivor's tags of it out */
        const unsigned char *alive = r->data + r->pos;
        unsigned char *tags;
        int i;
        if (fgl__reader_skip(r, n)) return fgl_error_set(err, FGL_ERR_FORMAT, "malformed survivors");
        if (!(tags = (unsigned char *)FGL_MALLOC((size_t)n * FGL__SA_TAG)))
            return fgl_error_set(err, FGL_ERR_NOMEM, "out of memory");
        for (i = 0; i < run->n_clients; i++) {
            const fgl_client *c = &run->clients[i];
            m += c->local && c->sa && c->sa->n == (int)n && c->sa->me >= 0 && alive[c->sa->me];
        }
        fgl_bytes_put_u32(&w->out, step);
        fgl_bytes_put_u32(&w->out, m);
        for (i = 0; i < run->n_clients; i++) {
            fgl_client *c = &run->clients[i];
            if (!c->local || !c->sa || c->sa->n != (int)n || c->sa->me < 0 || !alive[c->sa->me]) continue;
            c->error = 0;
            c->msg[0] = 0;
            fgl__sa_confirm(c, alive, tags);
            fgl_bytes_put_u32(&w->out, (uint32_t)c->id);
            fgl_bytes_put_u32(&w->out, (uint32_t)c->error);
            fgl_bytes_put_str(&w->out, c->msg);
            fgl_bytes_put(&w->out, tags, (size_t)n * FGL__SA_TAG);
        }
        FGL_FREE(tags);
        return FGL_OK;
    }
    {   /* step 3 */
        const unsigned char *alive = r->data + r->pos;
        unsigned char *rev;
        uint32_t k;
        if (fgl__reader_skip(r, n)) return fgl_error_set(err, FGL_ERR_FORMAT, "malformed survivors");
        m = fgl_reader_u32(r);
        if (r->err || m > n) return fgl_error_set(err, FGL_ERR_FORMAT, "malformed survivors");
        if (!(rev = (unsigned char *)FGL_MALLOC((size_t)n * FGL__SA_REV)))
            return fgl_error_set(err, FGL_ERR_NOMEM, "out of memory");
        fgl_bytes_put_u32(&w->out, step);
        fgl_bytes_put_u32(&w->out, m);
        for (k = 0; k < m; k++) {
            uint32_t id = fgl_reader_u32(r);
            fgl_client *c;
            int ok;
            size_t at_tag = r->pos;
            at = r->pos + (size_t)n * FGL__SA_TAG;
            if (r->err || id >= (uint32_t)run->n_clients || !run->clients[id].local ||
                fgl__reader_skip(r, (size_t)n * (FGL__SA_TAG + FGL__SA_CT))) {
                FGL_FREE(rev);
                return fgl_error_set(err, FGL_ERR_FORMAT, "malformed shares");
            }
            c = &run->clients[id];
            c->error = 0;
            c->msg[0] = 0;
            ok = c->sa && c->sa->n == (int)n && fgl__sa_reveal(c, alive, r->data + at_tag, r->data + at, rev) == FGL_OK;
            fgl_bytes_put_u32(&w->out, id);
            fgl_bytes_put_u32(&w->out, (uint32_t)c->error);
            fgl_bytes_put_str(&w->out, c->msg);
            fgl_bytes_put_u32(&w->out, (uint32_t)ok);
            if (ok) fgl_bytes_put(&w->out, rev, (size_t)n * FGL__SA_REV);
        }
        fgl__crypto_wipe(rev, (size_t)n * FGL__SA_REV); /* revealed shares */
        FGL_FREE(rev);
        return FGL_OK;
    }
}

static int fgl__worker_finish(fgl__worker *w, fgl_reader *r, int round, fgl_error *err) {
    fgl_run *run = &w->run;
    uint32_t evaluated = fgl_reader_u32(r);
    int i, rc, n = 0;
    if (r->err) return fgl_error_set(err, FGL_ERR_FORMAT, "malformed command");
    run->round = round;
    if (w->trained_round != round) memset(run->trained, 0, (size_t)run->n_clients); /* none of its clients took part */
    if ((rc = fgl__worker_downloads(w, r, 1, err))) return rc;
    if (run->cfg.secagg.on) { /* step 5: each survivor's numbers, masked; no client's own leaves the host */
        uint64_t words[FGL__SA_NM];
        if (evaluated) fgl__phase_eval(run);
        fgl__trim_idle(run);
        for (i = 0; i < run->n_clients; i++) n += run->clients[i].local && run->clients[i].sa;
        fgl_bytes_put_u32(&w->out, (uint32_t)n);
        for (i = 0; i < run->n_clients; i++) {
            fgl_client *c = &run->clients[i];
            int k;
            if (!c->local || !c->sa) continue;
            c->msg[0] = 0;
            rc = fgl__sa_metrics_mask(c, round, (int)evaluated, words);
            fgl_bytes_put_u32(&w->out, (uint32_t)i);
            fgl_bytes_put_u32(&w->out, (uint32_t)(rc == FGL_OK ? 1 : rc == FGL_ERR_ARG ? 2 : 0));
            for (k = 0; k < FGL__SA_NM; k++) fgl_bytes_put_u64(&w->out, rc == FGL_OK ? words[k] : 0);
            fgl_bytes_put_u32(&w->out, (uint32_t)c->tape.err);
            fgl_bytes_put_str(&w->out, c->msg);
        }
        return FGL_OK;
    }
    if (!evaluated) {
        fgl__trim_idle(run);
        return FGL_OK;
    }
    fgl__phase_eval(run);
    fgl__trim_idle(run);
    for (i = 0; i < run->n_clients; i++) n += run->clients[i].local;
    fgl_bytes_put_u32(&w->out, (uint32_t)n);
    for (i = 0; i < run->n_clients; i++) {
        const fgl_client *c = &run->clients[i];
        if (!c->local) continue;
        fgl_bytes_put_u32(&w->out, (uint32_t)i);
        fgl__put_f64(&w->out, c->val_acc);
        fgl__put_f64(&w->out, c->test_acc);
        fgl__put_f64(&w->out, c->val_hits);
        fgl__put_f64(&w->out, c->test_hits);
        fgl__put_f64(&w->out, c->val_f1);
        fgl__put_f64(&w->out, c->test_f1);
        fgl__put_f64(&w->out, c->val_auc);
        fgl__put_f64(&w->out, c->test_auc);
        fgl_bytes_put_u32(&w->out, (uint32_t)c->tape.err);
        fgl_bytes_put_str(&w->out, c->tape.msg);
    }
    return FGL_OK;
}

static int fgl__worker_load(fgl__worker *w, fgl_reader *r, int round, const unsigned char *msg, size_t len,
                            fgl_error *err) {
    fgl_run *run = &w->run;
    uint32_t commit = fgl_reader_u32(r), n, q;
    size_t at = r->pos;
    int rc;
    fgl_reader body;
    if (r->err) return fgl_error_set(err, FGL_ERR_FORMAT, "malformed command");
    if (!run->started) return fgl_error_set(err, FGL_ERR_ARG, "the run has not started");
    if (commit) {
        if (!w->load) return fgl_error_set(err, FGL_ERR_ARG, "nothing checked to install");
        body = fgl_reader_make(w->load, w->load_len);
    } else {
        /* packed clients take their state back now, in the checking pass: the
         * installing pass cannot fail, so a load stays all or nothing */
        if ((rc = fgl__unpark_all(run)))
            return fgl_error_set(err, rc, "cannot restore the clients' packed state (%s)", fgl_result_name(rc));
        FGL_FREE(w->load);
        if (!(w->load = (unsigned char *)FGL_MALLOC(FGL__MAX(len - at, 1))))
            return fgl_error_set(err, FGL_ERR_NOMEM, "out of memory");
        memcpy(w->load, msg + at, len - at);
        w->load_len = len - at;
        r->pos = r->len; /* all of it is the checkpoint part, read below */
        body = fgl_reader_make(w->load, w->load_len);
    }
    n = fgl_reader_u32(&body);
    for (q = 0; q < n && !body.err; q++) {
        uint32_t id = fgl_reader_u32(&body);
        uint64_t bytes = fgl_reader_u64(&body);
        fgl_reader st;
        if (body.err || id >= (uint32_t)run->n_clients || !run->clients[id].local ||
            bytes > (uint64_t)(body.len - body.pos))
            return fgl_error_set(err, FGL_ERR_FORMAT, "malformed checkpoint part");
        st = fgl_reader_make(body.data + body.pos, (size_t)bytes);
        if ((rc = fgl__get_store(&st, &run->clients[id].store, (int)commit, "checkpoint", err))) return rc;
        if (st.pos != st.len)
            return fgl_error_set(err, FGL_ERR_FORMAT, "checkpoint: client %u's state has extra bytes", (unsigned)id);
        fgl__skip(&body, (size_t)bytes);
    }
    if (body.err || body.pos != body.len) return fgl_error_set(err, FGL_ERR_FORMAT, "malformed checkpoint part");
    if (commit) {
        run->round = round;
        FGL_FREE(w->load);
        w->load = NULL;
    }
    return FGL_OK;
}

/* The next command from rank 0 (napping between polls, for its envelope
 * and for its body): NULL, with *rc FGL_ERR_NOMEM or FGL_ERR_IO (MPI failed,
 * or the program's check says rank 0 is gone), when none can be had. */
static unsigned char *fgl__mpi_wait(fgl__worker *w, size_t *len, int *rc) {
    int flag = 0, count = 0, nap = 50;
    MPI_Status status;
    unsigned char *buf;
    for (;;) {
        if (MPI_Iprobe(0, FGL__MPI_CMD, w->comm, &flag, &status) != MPI_SUCCESS) {
            *rc = FGL_ERR_IO;
            return NULL;
        }
        if (flag) break;
        if (fgl__worker_alone(w)) {
            *rc = FGL_ERR_IO;
            return NULL;
        }
        fgl__mpi_nap(&nap);
    }
    MPI_Get_count(&status, MPI_BYTE, &count);
    buf = (unsigned char *)FGL_MALLOC((size_t)FGL__MAX(count, 1));
    if (!buf) {
        *rc = FGL_ERR_NOMEM;
        return NULL;
    }
    /* the body, polled like the envelope: a rank 0 that dies in mid-send must not hold this rank for ever */
    if ((*rc = fgl__mpi_recv_body(&buf, count, 0, FGL__MPI_CMD, w->comm, HUGE_VAL, fgl__worker_alone_cb, w))) {
        FGL_FREE(buf); /* NULL when MPI kept it */
        *rc = FGL_ERR_IO;
        return NULL;
    }
    *len = (size_t)count;
    return buf;
}

FGLDEF int fgl_mpi_serve(MPI_Comm comm, fgl_error *err) { return fgl_mpi_serve_watched(comm, NULL, NULL, err); }

/* A worker that cannot go on: what it holds is freed, the reason returned. */
static int fgl__worker_stop(fgl__worker *w, int rc, const char *what, fgl_error *err) {
    fgl__worker_drop(w);
    if (w->req != MPI_REQUEST_NULL) { /* a reply not taken: its buffer stays with MPI */
        MPI_Request_free(&w->req);
        fgl_bytes_init(&w->out);
    }
    fgl_bytes_free(&w->out);
    if (rc == FGL_ERR_NOMEM) return fgl_error_set(err, rc, "rank %d: out of memory for %s", w->rank, what);
    return fgl_error_set(err, rc, "rank %d: %s", w->rank,
                         w->gone ? "the server (rank 0) is gone" : "MPI failed talking to the server (rank 0)");
}

FGLDEF int fgl_mpi_serve_watched(MPI_Comm comm, int (*server_alive)(void *ctx), void *ctx, fgl_error *err) {
    fgl__worker w;
    memset(&w, 0, sizeof w);
    w.comm = comm;
    w.server_alive = server_alive;
    w.ctx = ctx;
    if (MPI_Comm_rank(comm, &w.rank) != MPI_SUCCESS)
        return fgl_error_set(err, FGL_ERR_ARG, "mpi: not a usable communicator");
    if (w.rank == 0) return fgl_error_set(err, FGL_ERR_ARG, "mpi: rank 0 is the server");
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN); /* the server's death comes back as an error */
    w.next_check = fgl_now() + 1;
    w.req = MPI_REQUEST_NULL;
    fgl_bytes_init(&w.out);
    for (;;) {
        size_t len = 0;
        int round, rc = FGL_OK;
        unsigned char *msg = fgl__mpi_wait(&w, &len, &rc);
        fgl_reader r;
        uint32_t kind, run_id;
        fgl_error e;
        double t0 = fgl_now();
        if (!msg) return fgl__worker_stop(&w, rc, "a command", err);
        r = fgl_reader_make(msg, len);
        kind = fgl_reader_u32(&r);
        run_id = fgl_reader_u32(&r);
        round = (int)fgl_reader_u32(&r);
        e.code = 0;
        e.msg[0] = 0;
        if (r.err) kind = 0;
        if (kind == FGL__MC_QUIT) { /* confirmed, so that the server knows this rank leaves */
            FGL_FREE(msg);
            if (fgl__worker_settle(&w)) return fgl__worker_stop(&w, FGL_ERR_IO, "", err);
            fgl__mpi_begin(&w.out, FGL__MC_QUIT, run_id, round);
            fgl_bytes_put_u32(&w.out, 0);
            fgl_bytes_put_str(&w.out, "");
            fgl__put_f64(&w.out, 0);
            if (w.out.err) return fgl__worker_stop(&w, FGL_ERR_NOMEM, "the last reply", err);
            if (fgl__worker_send(&w) || fgl__worker_settle(&w)) return fgl__worker_stop(&w, FGL_ERR_IO, "", err);
            break;
        }
        if (kind == FGL__MC_END) {
            if (run_id == w.run_id) fgl__worker_drop(&w);
            FGL_FREE(msg);
            continue;
        }
        if (kind == FGL__MC_INIT) {
            fgl__worker_drop(&w);
            w.run_id = run_id;
        } else if (run_id != w.run_id || !w.have) {
            FGL_FREE(msg); /* a command for a run this rank does not hold: nothing to answer */
            continue;
        }
        if (kind == FGL__MC_TRAIN && w.fail && w.fail_round > 0 && round + 1 >= w.fail_round) {
            if (w.fail_exit) fgl__worker_exit_midreply(&w, kind, run_id, round);
            w.silent = 1;
        }
        if (w.silent) { /* the simulated fault: hears, never answers, until the run ends */
            FGL_FREE(msg);
            continue;
        }
        if (fgl__worker_settle(&w)) { /* the last reply taken: w.out is this one's */
            FGL_FREE(msg);
            return fgl__worker_stop(&w, FGL_ERR_IO, "", err);
        }
        fgl__mpi_begin(&w.out, kind, run_id, round);
        {
            fgl_bytes body;
            fgl_bytes saved = w.out; /* the header is finished after the body: build the body apart */
            fgl_bytes_init(&w.out);
            switch (kind) {
            case FGL__MC_INIT: rc = fgl__worker_init(&w, &r, &e); break;
            case FGL__MC_START: {
                uint32_t n = fgl_reader_u32(&r), k;
                if (r.err || n != (uint32_t)w.run.algo.n_params) {
                    rc = fgl_error_set(&e, FGL_ERR_FORMAT, "%u parameter values for %s", (unsigned)n, w.run.algo.name);
                    break;
                }
                for (k = 0; k < n; k++) w.run.set.value[k] = fgl__get_f64(&r);
                if ((rc = fgl_run_start(&w.run))) {
                    fgl_error_set(&e, rc, "%s", w.run.err.msg);
                    break;
                }
                rc = fgl__worker_downloads(&w, &r, 1, &e);
                break;
            }
            case FGL__MC_TRAIN: rc = fgl__worker_train(&w, &r, round, &e); break;
            case FGL__MC_SECAGG: rc = fgl__worker_secagg(&w, &r, round, &e); break;
            case FGL__MC_FINISH: rc = fgl__worker_finish(&w, &r, round, &e); break;
            case FGL__MC_SAVE: {
                int i, n = 0;
                fgl_bytes st;
                for (i = 0; i < w.run.n_clients; i++) n += w.run.clients[i].local;
                fgl_bytes_put_u32(&w.out, (uint32_t)n);
                fgl_bytes_init(&st);
                for (i = 0; i < w.run.n_clients; i++) {
                    if (!w.run.clients[i].local) continue;
                    st.len = 0;
                    fgl__put_store(&w.run, &st, &w.run.clients[i].store, &w.run.clients[i]);
                    fgl_bytes_put_u32(&w.out, (uint32_t)i);
                    fgl_bytes_put_u64(&w.out, (uint64_t)st.len);
                    fgl_bytes_put(&w.out, st.data, st.len);
                }
                if (st.err)
                    rc = fgl_error_set(&e, st.err, "cannot write its clients' state (%s)", fgl_result_name(st.err));
                fgl_bytes_free(&st);
                break;
            }
            case FGL__MC_LOAD: rc = fgl__worker_load(&w, &r, round, msg, len, &e); break;
            case FGL__MC_RESUME:
                w.run.round = round;
                if (!(rc = fgl__worker_downloads(&w, &r, 0, &e))) fgl__trim_idle(&w.run); /* loaded resident */
                break;
            default: rc = fgl_error_set(&e, FGL_ERR_FORMAT, "unknown command %u", (unsigned)kind);
            }
            if (!rc && (r.err || r.pos != r.len)) rc = fgl_error_set(&e, FGL_ERR_FORMAT, "a malformed command");
            if (!rc && w.out.err) rc = fgl_error_set(&e, FGL_ERR_NOMEM, "out of memory");
            body = w.out;
            w.out = saved;
            fgl_bytes_put_u32(&w.out, (uint32_t)rc);
            fgl_bytes_put_str(&w.out, rc ? e.msg : "");
            fgl__put_f64(&w.out, fgl_now() - t0);
            if (!rc) fgl_bytes_put(&w.out, body.data, body.len);
            fgl_bytes_free(&body);
        }
        FGL_FREE(msg);
        if (kind == FGL__MC_INIT && !rc && w.fail && w.fail_round == 0) { /* the fault from the start */
            if (w.fail_exit) fgl__worker_exit_midreply(&w, kind, run_id, round);
            w.silent = 1;
            continue;
        }
        if (w.out.err) { /* not even the error fits: send the bare header */
            fgl__mpi_begin(&w.out, kind, run_id, round);
            fgl_bytes_put_u32(&w.out, FGL_ERR_NOMEM);
            fgl_bytes_put_str(&w.out, "out of memory");
            fgl__put_f64(&w.out, 0);
        }
        if (fgl__worker_send(&w)) return fgl__worker_stop(&w, FGL_ERR_IO, "a reply", err);
        if (rc && kind == FGL__MC_INIT) fgl__worker_drop(&w);
    }
    fgl__worker_drop(&w);
    fgl_bytes_free(&w.out);
    return FGL_OK;
}

#endif /* FGL_MPI */
#ifdef __cplusplus
}
#endif
#endif /* FGL_IMPLEMENTATION */
