#!/bin/sh
# bench/gpfl.sh SECTION... - the GPFL experiments behind RESULTS.md (issue 13).
#
#   make build/fglrun && sh bench/gpfl.sh nci1 proteins
#   ONLY="local fedavg" sh bench/gpfl.sh nci1     # only these algorithms
#
# GPFL's protocol (docs/algorithms.md): the soft Dirichlet split with equal client
# sizes (--split dirichlet-equal, split seed 1234), stratified 5-fold
# cross-validation inside every client (--folds 5: every fold in turn, no
# validation set), 200 rounds of 1 local epoch, GIN (3 layers, hidden 64),
# batch 128, Adam lr 1e-3, wd 5e-4, the whole model shared; the reported
# number is the mean over folds and clients of the last round's test
# accuracy (last_acc_mean). Model seed 1. Only the last round counts, so
# clients are evaluated every 50 rounds (--eval-every 50; training is the
# same bits either way).
#
# Each experiment is one fglrun call whose --json line is appended, with a
# label, to bench/results/SECTION.jsonl. Experiments run one at a time
# (JOBS=1: the machine is shared), each on one thread under nice. An
# experiment whose label is already in the file is skipped, so an
# interrupted run resumes; delete the file to measure a section again.
# Sections:
#   gpfl_nci1       NCI1, 25 clients, alpha 0.5 / 1 / 5: Local, FedAvg, GPFL
#   gpfl_proteins   PROTEINS, 15 clients, alpha 0.5 / 1 / 5: Local, FedAvg,
#                   GPFL, FED-PUB (on the GIN, see RESULTS.md)
#   gpfl_others     NCI1, 25 clients, alpha 0.5: FED-PUB and FedStar; GPFL
#                   with the paper's aggregation weights (gamma on the client
#                   itself) and with the authors' 20 identical random graphs
#   gpfl_ablation   PROTEINS, 15 clients, alpha 0.5: the paper's four ablations
#                   (property initialisation on/off x network learning on/off),
#                   and GPFL with every link kept (thresh=0)
#   gpfl_more       FED-PUB and FedStar at NCI1 alpha 1 / 5, FED-PUB's
#                   remaining PROTEINS settings
set -e
cd "$(dirname "$0")/.."
FGLRUN=${FGLRUN:-./build/fglrun}
JOBS=${JOBS:-1}
OUT=bench/results
P="--split dirichlet-equal --folds 5 --eval-every 50"
mkdir -p "$OUT"
[ -x "$FGLRUN" ] || { echo "gpfl.sh: build $FGLRUN first (make build/fglrun)" >&2; exit 1; }

# one line per experiment: SECTION|LABEL|fglrun arguments
experiments() {
    for sec in "$@"; do
        case $sec in
        gpfl_nci1)
            for al in 0.5 1 5; do
                for a in local fedavg gpfl; do
                    echo "gpfl_nci1|nci1 25 alpha $al $a|--algo $a --data NCI1 --clients 25 --alpha $al $P"
                done
            done ;;
        gpfl_proteins)
            for al in 0.5 1 5; do
                for a in local fedavg gpfl; do
                    echo "gpfl_proteins|proteins 15 alpha $al $a|--algo $a --data PROTEINS --clients 15 --alpha $al $P"
                done
            done
            echo "gpfl_proteins|proteins 15 alpha 0.5 fedpub|--algo fedpub --data PROTEINS --clients 15 --alpha 0.5 $P" ;;
        gpfl_others)
            for a in fedpub fedstar; do
                echo "gpfl_others|nci1 25 alpha 0.5 $a|--algo $a --data NCI1 --clients 25 --alpha 0.5 $P"
            done
            echo "gpfl_others|nci1 25 alpha 0.5 gpfl paper-weights|--algo gpfl --data NCI1 --clients 25 --alpha 0.5 --set paper_mix=1 $P"
            echo "gpfl_others|nci1 25 alpha 0.5 gpfl identical-graphs|--algo gpfl --data NCI1 --clients 25 --alpha 0.5 --set same_graphs=1 $P" ;;
        gpfl_ablation)
            # property initialisation (init=1) or a random one (init=0), with or without learning
            for init in 1 0; do   # init=1 learn=1 is GPFL itself (gpfl_proteins)
                for learn in 0 1; do
                    [ $init$learn = 11 ] && continue
                    echo "gpfl_ablation|proteins 15 alpha 0.5 gpfl init=$init learn=$learn|--algo gpfl --data PROTEINS --clients 15 --alpha 0.5 --set init=$init --set learn=$learn $P"
                done
            done
            echo "gpfl_ablation|proteins 15 alpha 0.5 gpfl thresh=0|--algo gpfl --data PROTEINS --clients 15 --alpha 0.5 --set thresh=0 $P" ;;
        gpfl_more)
            for al in 1 5; do
                for a in fedpub fedstar; do
                    echo "gpfl_more|nci1 25 alpha $al $a|--algo $a --data NCI1 --clients 25 --alpha $al $P"
                done
                echo "gpfl_more|proteins 15 alpha $al fedpub|--algo fedpub --data PROTEINS --clients 15 --alpha $al $P"
            done ;;
        *) echo "gpfl.sh: unknown section $sec" >&2; exit 2 ;;
        esac
    done
}

run_one() { # SECTION|LABEL|ARGS
    sec=${1%%|*}; rest=${1#*|}; label=${rest%%|*}; args=${rest#*|}
    if [ -n "${ONLY:-}" ]; then
        algo=$(echo "$args" | sed 's/.*--algo \([^ ]*\).*/\1/')
        case " $ONLY " in *" $algo "*) ;; *) return 0 ;; esac
    fi
    # resumable: an experiment already in the file is not run again
    if [ -f "$OUT/$sec.jsonl" ] && grep -qF "\"label\": \"$label\"," "$OUT/$sec.jsonl"; then
        echo "skip (already in $OUT/$sec.jsonl): $label" >&2; return 0
    fi
    echo "start: $label ($(date '+%H:%M'))" >&2
    line=$(OMP_NUM_THREADS=1 nice -n 10 $FGLRUN $args --threads 1 --quiet --json | tail -n 1)
    case $line in
    "{"*) ;;
    *) echo "FAILED: $label (fglrun $args)" >&2; return 0 ;;
    esac
    commit=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
    printf '{"label": "%s", "commit": "%s", "args": "%s", "result": %s}\n' "$label" "$commit" "$args" "$line" >> "$OUT/$sec.jsonl"
    echo "done: $label ($(date '+%H:%M'))" >&2
}

if [ "${1:-}" = "--one" ]; then shift; run_one "$1"; exit; fi
if [ "${1:-}" = "--list" ]; then shift; experiments "$@"; exit; fi   # the experiments, one line each
experiments "$@" | tr '\n' '\0' | xargs -0 -P "$JOBS" -I{} sh "$0" --one "{}"
