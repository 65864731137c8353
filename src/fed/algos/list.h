#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:private */
#include "../../alone.h"
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
/* fgl:implementation */
#include "../../alone.h"
#include "../../alone.h"
