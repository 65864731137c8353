#!/bin/sh
# bench/pfedgnn.sh [completion] [oneshot] - the measurements behind RESULTS.md's
# pFedGNN section that are not accuracy runs (those: bench/results.sh pfedgnn).
#
#   make build/bench/pfedgnn_completion build/bench/pfedgnn_oneshot build/bench/pfedgnn_graph \
#        build/bench/pfedgnn_metric build/bench/pfedgnn_majority
#   nice -n 10 sh bench/pfedgnn.sh completion oneshot graph metric majority
#
# completion  the completion against the true distances, K_a swept, on fgl's
#             synthetic node data (32 features) and on Cora (1,433):
#             bench/results/pfedgnn_completion.jsonl
# oneshot     the one-shot step's time, memory and bytes on CS and on
#             synthetic graphs of 10^4, 10^5 and 10^6 nodes, landmark and
#             SMACOF, beside FedAvg's round (the runtime's own cost), one
#             process each: bench/results/pfedgnn_oneshot.jsonl
# graph       what the collaboration graph follows (labels or sizes) on the
#             accuracy runs' splits, Cora and CS, the authors' kernel and the
#             Gaussian one: bench/results/pfedgnn_graph.jsonl
# metric      the authors' way of measuring (personalised accuracy at each
#             client's best public-graph round, 80% training nodes) against
#             plain accuracy, Cora, Local / FedAvg / FED-PUB / pFedGNN, 3 seeds:
#             bench/results/pfedgnn_metric.jsonl
# majority    the personalised metric of a model that learns nothing (each client
#             predicts its training majority class) on the split of fglrun
#             --protocol pfedgnn-authors, split seeds 1234 and 1..5, Cora:
#             bench/results/pfedgnn_majority.jsonl
# Every line carries its label and commit; a label already in its file is
# skipped (resumable). One process at a time, one thread.
set -e
cd "$(dirname "$0")/.."
OUT=bench/results
B=${B:-build/bench}
mkdir -p "$OUT"
commit=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
export OMP_NUM_THREADS=1

have() { [ -f "$1" ] && grep -qF "\"label\": \"$2\"," "$1"; }

one() { # FILE LABEL COMMAND...: append each JSON line the command prints
    file=$1; label=$2; shift 2
    if have "$file" "$label"; then echo "skip: $label" >&2; return 0; fi
    if ! "$@" > "$OUT/.pfedgnn.tmp" 2> "$OUT/.pfedgnn.err"; then
        echo "FAILED: $label ($*)" >&2; sed 's/^/  /' "$OUT/.pfedgnn.err" >&2; return 0
    fi
    while IFS= read -r line; do
        case $line in "{"*) printf '{"label": "%s", "commit": "%s", "args": "%s", "result": %s}\n' "$label" "$commit" "$*" "$line" >> "$file" ;; esac
    done < "$OUT/.pfedgnn.tmp"
    echo "done: $label" >&2
}

[ $# -eq 0 ] && set -- completion oneshot graph metric
for sec in "$@"; do
    case $sec in
    completion)
        for d in synthetic Cora; do one "$OUT/pfedgnn_completion.jsonl" "completion $d" "$B/pfedgnn_completion" $d; done ;;
    oneshot)
        f="$OUT/pfedgnn_oneshot.jsonl"
        one "$f" "oneshot CS 100 anchors smacof" "$B/pfedgnn_oneshot" CS 10 100 1
        one "$f" "oneshot CS 100 anchors landmark" "$B/pfedgnn_oneshot" CS 10 100 0
        one "$f" "oneshot CS fedavg" "$B/pfedgnn_oneshot" CS 10 100 0 fedavg
        for n in 10000 100000 1000000; do
            one "$f" "oneshot synthetic $n 32 anchors landmark" "$B/pfedgnn_oneshot" $n 10 32 0
            one "$f" "oneshot synthetic $n 32 anchors smacof" "$B/pfedgnn_oneshot" $n 10 32 1
            one "$f" "oneshot synthetic $n fedavg" "$B/pfedgnn_oneshot" $n 10 32 0 fedavg
        done ;;
    graph)
        for d in Cora CS; do
            for sp in metis dirichlet; do
                one "$OUT/pfedgnn_graph.jsonl" "graph $d $sp" "$B/pfedgnn_graph" $d $sp
                one "$OUT/pfedgnn_graph.jsonl" "graph $d $sp kernel=1" "$B/pfedgnn_graph" $d $sp kernel=1
            done
        done ;;
    metric)
        one "$OUT/pfedgnn_metric.jsonl" "metric Cora" "$B/pfedgnn_metric" Cora 3 local,fedavg,fedpub,pfedgnn ;;
    majority)
        one "$OUT/pfedgnn_majority.jsonl" "majority Cora" "$B/pfedgnn_majority" Cora 5 ;;
    *) echo "pfedgnn.sh: unknown section $sec" >&2; exit 2 ;;
    esac
done
rm -f "$OUT/.pfedgnn.tmp" "$OUT/.pfedgnn.err"
