#!/bin/sh
# bench/speed.sh - fgl against the PyTorch anchors, in one run on one machine,
# as ratios (the speed targets of BENCHMARKS.md "Training speed").
#
#   make build/fglrun build/bench/bench_gin && sh bench/speed.sh
#   RUNS=5 ANCHORS=../shared/anchors sh bench/speed.sh
#
# Needs Debian's python3-torch (and python3-numpy, python3-scipy, metis) for
# the anchors; see ANCHORS/README.md. Three measurements, each program in a
# fresh process per run:
#   gin      one GIN-0 training epoch on PROTEINS (bench_gin / torch_gin.py)
#   fedavg   FedAvg, Cora, 10 METIS clients, 100 rounds, 2-layer GCN (hidden
#            128) straight to the classes, no input dropout, evaluation at the
#            end only (fglrun / torch_fedavg.py --input-dropout off)
#   fedstar  FedStar on CHEM (7 clients, one dataset each), 20 rounds, fgl only
#            (its 2-thread speed-up)
# The runs are interleaved so that the two sides of every ratio are timed a
# moment apart: RUNS rounds, each of which runs every measurement at 1 and at
# 2 threads (1 then 2 in odd rounds, 2 then 1 in even ones), the anchor right
# before fgl at each thread count. A virtual machine's speed drifts by 10-20%
# over minutes; timed minutes apart (all 1-thread runs, then all 2-thread
# ones) a ratio took that drift in. Times are the medians over the rounds
# (bench_gin and torch_gin: each run's median epoch first); each ratio is the
# median over the rounds of that round's ratio, with its smallest and largest
# in the JSON. The anchors run with OMP_WAIT_POLICY=passive as their README
# asks; fgl runs with the OpenMP runtime's default policy. The last line is
# one JSON object with every figure and ratio.
set -e
cd "$(dirname "$0")/.."
ANCHORS=${ANCHORS:-../shared/anchors}
RUNS=${RUNS:-3}
PY=${PY:-/usr/bin/python3}
export FGL_DATA=${FGL_DATA:-$(pwd)/data} # the data directory rule: data/ of the repository
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
# one run of each program; each appends one time (seconds) to $TMP/NAME_THREADS
torch_gin() { OMP_WAIT_POLICY=passive $PY "$ANCHORS/torch_gin.py" --datasets PROTEINS --threads $1 --runs 1 \
                  | grep '"summary"' | jget median_epoch_s >> "$TMP/torch_gin_$1"; }
fgl_gin() { OMP_NUM_THREADS=$1 ./build/bench/bench_gin | tail -1 | tee -a "$TMP/gin_json_$1" | jget median_epoch_s >> "$TMP/gin_$1"; }
torch_fedavg() { OMP_WAIT_POLICY=passive $PY "$ANCHORS/torch_fedavg.py" --threads $1 --runs 1 --input-dropout off \
                     | grep '"summary"' | jget total_wall_s >> "$TMP/torch_fedavg_$1"; }
fgl_fedavg() { ./build/fglrun --algo fedavg --data Cora --split metis --clients 10 --rounds 100 --head none --hidden 128 \
                   --eval-every 100 --threads $1 --json 2>/dev/null | tail -1 | tee -a "$TMP/fedavg_json_$1" \
                   | jget seconds >> "$TMP/fedavg_$1"; }
fgl_fedstar() { ./build/fglrun --algo fedstar --data MUTAG,BZR,COX2,DHFR,PTC_MR,AIDS,NCI1 --rounds 20 --threads $1 --json \
                    2>/dev/null | tail -1 | tee -a "$TMP/fedstar_json_$1" | jget seconds >> "$TMP/fedstar_$1"; }

for r in $(seq "$RUNS"); do
    if [ $((r % 2)) -eq 1 ]; then order="1 2"; else order="2 1"; fi
    echo "speed.sh: round $r of $RUNS (threads $order): GIN epoch" >&2
    for t in $order; do torch_gin $t; fgl_gin $t; done
    echo "speed.sh: round $r of $RUNS: FedAvg Cora" >&2
    for t in $order; do torch_fedavg $t; fgl_fedavg $t; done
    echo "speed.sh: round $r of $RUNS: FedStar CHEM 20 rounds" >&2
    for t in $order; do fgl_fedstar $t; done
done

# same bits at 1 and 2 threads
same() { a=$(grep -o "\"$2\": *[^,}]*" "$TMP/$1_json_1" | sort -u); b=$(grep -o "\"$2\": *[^,}]*" "$TMP/$1_json_2" | sort -u)
         [ -n "$a" ] && [ "$a" = "$b" ] && echo true || echo false; }
# the rounds' ratios A[i] / B[i] of two lists of times, one a line
ratios() { paste "$TMP/$1" "$TMP/$2" | awk '{ printf "%.4f\n", $1 / $2 }'; }
r() { ratios "$1" "$2" | median | awk '{ printf "%.2f", $1 }'; }       # median of the rounds' ratios
rlo() { ratios "$1" "$2" | sort -g | head -n 1 | awk '{ printf "%.2f", $1 }'; }
rhi() { ratios "$1" "$2" | sort -g | tail -n 1 | awk '{ printf "%.2f", $1 }'; }
v() { median < "$TMP/$1"; }
ms() { v "$1" | awk '{ printf "%.1f ms", 1e3 * $1 }'; }
sec() { v "$1" | awk '{ printf "%.3f s", $1 }'; }
echo
echo "Times: medians over $RUNS interleaved rounds. Ratios: the median of the rounds' own ratios (smallest-largest in brackets)."
echo
echo "| measurement | fgl 1 thread | fgl 2 threads | PyTorch 1 thread | PyTorch 2 threads | PyTorch time / fgl time, 1 thread | 2 threads | fgl 2 threads vs 1 |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
row() { # NAME FGL TORCH|-
    if [ "$3" = - ]; then
        printf '| %s | %s | %s | - | - | - | - | %sx (%s-%s) |\n' "$1" "$($4 "$2_1")" "$($4 "$2_2")" \
            "$(r "$2_1" "$2_2")" "$(rlo "$2_1" "$2_2")" "$(rhi "$2_1" "$2_2")"
    else
        printf '| %s | %s | %s | %s | %s | %sx (%s-%s) | %sx (%s-%s) | %sx (%s-%s) |\n' "$1" "$($4 "$2_1")" "$($4 "$2_2")" \
            "$($4 "$3_1")" "$($4 "$3_2")" "$(r "$3_1" "$2_1")" "$(rlo "$3_1" "$2_1")" "$(rhi "$3_1" "$2_1")" \
            "$(r "$3_2" "$2_2")" "$(rlo "$3_2" "$2_2")" "$(rhi "$3_2" "$2_2")" \
            "$(r "$2_1" "$2_2")" "$(rlo "$2_1" "$2_2")" "$(rhi "$2_1" "$2_2")"
    fi
}
row "GIN epoch, PROTEINS" gin torch_gin ms
row "FedAvg, Cora, 10 clients, 100 rounds" fedavg torch_fedavg sec
row "FedStar, CHEM, 20 rounds" fedstar - sec
echo
echo "Same bits at 1 and 2 threads: GIN parameters $(same gin params_fnv1a), FedAvg accuracy $(same fedavg test_acc), FedStar accuracy $(same fedstar test_acc)"
span() { printf '[%s, %s, %s]' "$(r "$1" "$2")" "$(rlo "$1" "$2")" "$(rhi "$1" "$2")"; }
printf '{"bench": "speed", "runs": %s, "paired": true, "gin_s": [%s, %s], "torch_gin_s": [%s, %s], "fedavg_s": [%s, %s], "torch_fedavg_s": [%s, %s], "fedstar_s": [%s, %s], "gin_vs_torch": [%s, %s], "fedavg_vs_torch": [%s, %s], "two_threads": {"gin": %s, "fedavg": %s, "fedstar": %s}, "two_threads_median_min_max": {"gin": %s, "fedavg": %s, "fedstar": %s}, "same_bits": {"gin": %s, "fedavg": %s, "fedstar": %s}}\n' \
    "$RUNS" "$(v gin_1)" "$(v gin_2)" "$(v torch_gin_1)" "$(v torch_gin_2)" "$(v fedavg_1)" "$(v fedavg_2)" \
    "$(v torch_fedavg_1)" "$(v torch_fedavg_2)" "$(v fedstar_1)" "$(v fedstar_2)" "$(r torch_gin_1 gin_1)" "$(r torch_gin_2 gin_2)" \
    "$(r torch_fedavg_1 fedavg_1)" "$(r torch_fedavg_2 fedavg_2)" "$(r gin_1 gin_2)" "$(r fedavg_1 fedavg_2)" "$(r fedstar_1 fedstar_2)" \
    "$(span gin_1 gin_2)" "$(span fedavg_1 fedavg_2)" "$(span fedstar_1 fedstar_2)" \
    "$(same gin params_fnv1a)" "$(same fedavg test_acc)" "$(same fedstar test_acc)"
