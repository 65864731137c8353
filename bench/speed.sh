#!/bin/sh
# bench/speed.sh - fgl against the PyTorch anchors, in one run on one machine,
# as ratios (the speed targets of BENCHMARKS.md "Training speed").
#
#   make build/fglrun build/bench/bench_gin && sh bench/speed.sh
#   RUNS=5 ANCHORS=../shared/anchors sh bench/speed.sh
#
# Needs Debian's python3-torch (and python3-numpy, python3-scipy, metis) for
# the anchors; see ANCHORS/README.md. Each measurement runs in a fresh process
# at 1 thread, then at 2:
#   gin      one GIN-0 training epoch on PROTEINS (bench_gin / torch_gin.py)
#   fedavg   FedAvg, Cora, 10 METIS clients, 100 rounds, 2-layer GCN (hidden
#            128) straight to the classes, no input dropout, evaluation at the
#            end only (fglrun / torch_fedavg.py --input-dropout off)
#   fedstar  FedStar on CHEM (7 clients, one dataset each), 20 rounds, fgl only
#            (its 2-thread speed-up)
# fgl's figure is the median of RUNS runs (bench_gin: the median epoch of each
# run, then the median of those). The anchors run with OMP_WAIT_POLICY=passive
# as their README asks; fgl runs with the OpenMP runtime's default policy.
# The last line is one JSON object with every figure and ratio.
set -e
cd "$(dirname "$0")/.."
ANCHORS=${ANCHORS:-../shared/anchors}
RUNS=${RUNS:-3}
PY=${PY:-/usr/bin/python3}
export FGL_DATA=${FGL_DATA:-../shared/data}
for b in build/fglrun build/bench/bench_gin; do
    [ -x $b ] || { echo "speed.sh: build $b first (make $b)" >&2; exit 1; }
done
$PY -c "import torch" 2>/dev/null || { echo "speed.sh: $PY has no torch: apt-get install python3-torch (see $ANCHORS/README.md)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# median of the numbers on stdin
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
# the value of a numeric key in a one-line JSON object
jget() { sed -n "s/.*\"$1\": *\([0-9.eE+-]*\).*/\1/p"; }

for t in 1 2; do
    echo "speed.sh: GIN epoch, $t thread(s)" >&2
    OMP_WAIT_POLICY=passive $PY "$ANCHORS/torch_gin.py" --datasets PROTEINS --threads $t --runs "$RUNS" \
        | grep '"summary"' | jget median_epoch_s > "$TMP/torch_gin_$t"
    for r in $(seq "$RUNS"); do
        OMP_NUM_THREADS=$t ./build/bench/bench_gin | tail -1 | tee -a "$TMP/gin_json_$t" | jget median_epoch_s
    done | median > "$TMP/gin_$t"

    echo "speed.sh: FedAvg Cora, $t thread(s)" >&2
    OMP_WAIT_POLICY=passive $PY "$ANCHORS/torch_fedavg.py" --threads $t --runs "$RUNS" --input-dropout off \
        | grep "\"summary\"" | jget total_wall_s > "$TMP/torch_fedavg_$t"
    for r in $(seq "$RUNS"); do
        ./build/fglrun --algo fedavg --data Cora --split metis --clients 10 --rounds 100 --head none --hidden 128 \
            --eval-every 100 --threads $t --json 2>/dev/null | tail -1 | tee -a "$TMP/fedavg_json_$t" | jget seconds
    done | median > "$TMP/fedavg_$t"

    echo "speed.sh: FedStar CHEM 20 rounds, $t thread(s)" >&2
    for r in $(seq "$RUNS"); do
        ./build/fglrun --algo fedstar --data MUTAG,BZR,COX2,DHFR,PTC_MR,AIDS,NCI1 --rounds 20 --threads $t --json \
            2>/dev/null | tail -1 | tee -a "$TMP/fedstar_json_$t" | jget seconds
    done | median > "$TMP/fedstar_$t"
done

# same bits at 1 and 2 threads
same() { a=$(grep -o "\"$2\": *[^,}]*" "$TMP/$1_json_1" | sort -u); b=$(grep -o "\"$2\": *[^,}]*" "$TMP/$1_json_2" | sort -u)
         [ -n "$a" ] && [ "$a" = "$b" ] && echo true || echo false; }
r() { awk -v a="$(cat "$TMP/$1")" -v b="$(cat "$TMP/$2")" 'BEGIN { printf "%.2f", a / b }'; }
v() { cat "$TMP/$1"; }
ms() { awk -v a="$(cat "$TMP/$1")" 'BEGIN { printf "%.1f ms", 1e3 * a }'; }
sec() { awk -v a="$(cat "$TMP/$1")" 'BEGIN { printf "%.3f s", a }'; }
echo
echo "| measurement | fgl 1 thread | fgl 2 threads | PyTorch 1 thread | PyTorch 2 threads | PyTorch time / fgl time (1 / 2 threads) | fgl 2 threads vs 1 |"
echo "|---|---:|---:|---:|---:|---:|---:|"
printf '| GIN epoch, PROTEINS | %s | %s | %s | %s | %sx / %sx | %sx |\n' "$(ms gin_1)" "$(ms gin_2)" "$(ms torch_gin_1)" \
    "$(ms torch_gin_2)" "$(r torch_gin_1 gin_1)" "$(r torch_gin_2 gin_2)" "$(r gin_1 gin_2)"
printf '| FedAvg, Cora, 10 clients, 100 rounds | %s | %s | %s | %s | %sx / %sx | %sx |\n' "$(sec fedavg_1)" "$(sec fedavg_2)" \
    "$(sec torch_fedavg_1)" "$(sec torch_fedavg_2)" "$(r torch_fedavg_1 fedavg_1)" "$(r torch_fedavg_2 fedavg_2)" "$(r fedavg_1 fedavg_2)"
printf '| FedStar, CHEM, 20 rounds | %s | %s | - | - | - | %sx |\n' "$(sec fedstar_1)" "$(sec fedstar_2)" "$(r fedstar_1 fedstar_2)"
echo
echo "Same bits at 1 and 2 threads: GIN parameters $(same gin params_fnv1a), FedAvg accuracy $(same fedavg test_acc), FedStar accuracy $(same fedstar test_acc)"
printf '{"bench": "speed", "runs": %s, "gin_s": [%s, %s], "torch_gin_s": [%s, %s], "fedavg_s": [%s, %s], "torch_fedavg_s": [%s, %s], "fedstar_s": [%s, %s], "gin_vs_torch": [%s, %s], "fedavg_vs_torch": [%s, %s], "two_threads": {"gin": %s, "fedavg": %s, "fedstar": %s}, "same_bits": {"gin": %s, "fedavg": %s, "fedstar": %s}}\n' \
    "$RUNS" "$(v gin_1)" "$(v gin_2)" "$(v torch_gin_1)" "$(v torch_gin_2)" "$(v fedavg_1)" "$(v fedavg_2)" \
    "$(v torch_fedavg_1)" "$(v torch_fedavg_2)" "$(v fedstar_1)" "$(v fedstar_2)" "$(r torch_gin_1 gin_1)" "$(r torch_gin_2 gin_2)" \
    "$(r torch_fedavg_1 fedavg_1)" "$(r torch_fedavg_2 fedavg_2)" "$(r gin_1 gin_2)" "$(r fedavg_1 fedavg_2)" "$(r fedstar_1 fedstar_2)" \
    "$(same gin params_fnv1a)" "$(same fedavg test_acc)" "$(same fedstar test_acc)"
