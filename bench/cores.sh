#!/bin/sh
# bench/cores.sh - fgl at several thread counts, beside the PyTorch and PyG
# references (issue 38): the table of BENCHMARKS.md "Many cores".
#
#   make build/fglrun build/bench/bench_gin && sh bench/cores.sh
#   THREADS="1 2" ANCHORS=/path/to/anchors sh bench/cores.sh
#
# THREADS (default "1 2 4 8 16") chooses the thread counts. Four workloads,
# each program in a fresh process per measurement:
#   gin      one GIN-0 training epoch on PROTEINS, batch 128 (bench_gin's
#            median epoch; torch_gin.py and pyg_gin.py the same model)
#   fedavg   FedAvg, Cora, 10 METIS clients, 100 rounds, GCN hidden 128
#            straight to the classes, evaluation at the end (fglrun's
#            "seconds"; torch_fedavg.py --input-dropout off, its total wall)
#   fedstar  FedStar on CHEM (7 clients, one dataset each), 10 rounds, fgl
#            only (the process's wall time)
#   many     FedAvg on NCI1 over 32 Dirichlet clients, 5 rounds, fgl only
#            (the process's wall time)
# The references (ANCHORS, a directory holding torch_gin.py, pyg_gin.py and
# torch_fedavg.py) run when PY has torch (pyg_gin.py when it also has
# torch_geometric), on the CPU at the same thread counts with
# OMP_WAIT_POLICY=passive, and once on the GPU when torch sees one;
# otherwise a line says they were skipped. fgl runs with fglrun's own wait
# policy (--wait auto), bench_gin too (its --wait auto). Thread
# counts run in turn, lowest first, each workload once per count (REPS=N:
# N times, the median kept), so that a 16-core table fits in 5 minutes.
# Every measurement prints one JSON line on stdout:
#   {"bench": "cores", "work": W, "impl": "fgl"|"torch"|"pyg", "device": "cpu"|"cuda", "threads": T, "seconds": S}
# and the end a Markdown table (seconds; the GIN epoch in ms) on stderr.
set -e
cd "$(dirname "$0")/.."
THREADS=${THREADS:-1 2 4 8 16}
REPS=${REPS:-1}
PY=${PY:-python3}
export FGL_DATA=${FGL_DATA:-data}
for b in build/fglrun build/bench/bench_gin; do
    [ -x $b ] || { echo "cores.sh: build $b first (make $b)" >&2; exit 1; }
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

median() { sort -g | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]}'; }
jget() { sed -n "s/.*\"$1\": *\([0-9.eE+-]*\).*/\1/p"; }
now() { date +%s.%N; }
# emit WORK IMPL DEVICE THREADS SECONDS
emit() {
    [ -n "$5" ] || { echo "cores.sh: no time for $1 $2 $3 at $4 threads" >&2; return 0; }
    printf '{"bench": "cores", "work": "%s", "impl": "%s", "device": "%s", "threads": %s, "seconds": %s}\n' \
        "$1" "$2" "$3" "$4" "$5"
    echo "$1 $2 $3 $4 $5" >> "$TMP/all"
}
# rep CMD...: REPS runs of a command that prints seconds; the median
rep() {
    : > "$TMP/rep"
    i=0
    while [ $i -lt "$REPS" ]; do "$@" >> "$TMP/rep" || true; i=$((i + 1)); done
    median < "$TMP/rep"
}
fgl_gin() { OMP_NUM_THREADS=$1 ./build/bench/bench_gin | tail -1 | jget median_epoch_s; }
fgl_fedavg() {
    ./build/fglrun --algo fedavg --data Cora --split metis --clients 10 --rounds 100 --head none --hidden 128 \
        --eval-every 100 --threads $1 --json 2>/dev/null | tail -1 | jget seconds
}
wall() { # wall THREADS ARGS...: the process's wall seconds of an fglrun
    t=$1; shift
    a=$(now)
    ./build/fglrun "$@" --threads $t --json > /dev/null 2>&1 || return 1
    b=$(now)
    echo "$a $b" | awk '{printf "%.3f\n", $2 - $1}'
}
fgl_fedstar() { wall $1 --algo fedstar --data MUTAG,BZR,COX2,DHFR,PTC_MR,AIDS,NCI1 --rounds 10; }
fgl_many() { wall $1 --algo fedavg --data NCI1 --clients 32 --rounds 5; }

TORCH=0 PYG=0 CUDA=0
if [ -z "$ANCHORS" ] || [ ! -f "$ANCHORS/torch_gin.py" ]; then
    echo "cores.sh: references skipped: ANCHORS (a directory with torch_gin.py, pyg_gin.py, torch_fedavg.py) not set" >&2
elif ! $PY -c "import torch" 2>/dev/null; then
    echo "cores.sh: references skipped: $PY has no torch (apt-get install python3-torch; see $ANCHORS/README.md)" >&2
else
    TORCH=1
    $PY -c "import torch_geometric" 2>/dev/null && PYG=1 ||
        echo "cores.sh: pyg_gin skipped: $PY has no torch_geometric" >&2
    $PY -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null && CUDA=1 ||
        echo "cores.sh: no GPU seen by torch: the GPU references skipped" >&2
fi
torch_gin() { OMP_WAIT_POLICY=passive $PY "$ANCHORS/torch_gin.py" --datasets PROTEINS --threads $1 --runs 1 $2 \
                  | grep '"summary"' | jget median_epoch_s; }
pyg_gin() { OMP_WAIT_POLICY=passive $PY "$ANCHORS/pyg_gin.py" --threads $1 --runs 1 $2 \
                | grep '"summary"' | jget median_epoch_s; }
torch_fedavg() { OMP_WAIT_POLICY=passive $PY "$ANCHORS/torch_fedavg.py" --threads $1 --runs 1 --input-dropout off \
                     | grep '"summary"' | jget total_wall_s; }

echo "cores.sh: threads $THREADS, $REPS run(s) each; $(nproc) processors; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for t in $THREADS; do
    echo "cores.sh: $t thread(s)" >&2
    emit gin fgl cpu $t "$(rep fgl_gin $t)"
    [ $TORCH = 1 ] && emit gin torch cpu $t "$(rep torch_gin $t)"
    [ $PYG = 1 ] && emit gin pyg cpu $t "$(rep pyg_gin $t)"
    emit fedavg fgl cpu $t "$(rep fgl_fedavg $t)"
    [ $TORCH = 1 ] && emit fedavg torch cpu $t "$(rep torch_fedavg $t)"
    emit fedstar fgl cpu $t "$(rep fgl_fedstar $t)"
    emit many fgl cpu $t "$(rep fgl_many $t)"
done
if [ $CUDA = 1 ]; then
    emit gin torch cuda 1 "$(rep torch_gin 1 '--device cuda')"
    [ $PYG = 1 ] && emit gin pyg cuda 1 "$(rep pyg_gin 1 '--device cuda')"
fi
# the table: a row per workload and implementation, a column per thread count
{
    printf '| work | impl |'
    for t in $THREADS; do printf ' %s |' "$t"; done
    [ $CUDA = 1 ] && printf ' GPU |'
    printf '\n|---|---|'
    for t in $THREADS; do printf -- '---:|'; done
    [ $CUDA = 1 ] && printf -- '---:|'
    printf '\n'
    for w in gin fedavg fedstar many; do
        for i in fgl torch pyg; do
            grep -q "^$w $i " "$TMP/all" || continue
            printf '| %s%s | %s |' "$w" "$([ $w = gin ] && echo ' (ms)' || echo ' (s)')" "$i"
            for t in $THREADS; do
                v=$(awk -v w=$w -v i=$i -v t=$t '$1 == w && $2 == i && $3 == "cpu" && $4 == t {print $5}' "$TMP/all")
                [ -n "$v" ] && [ $w = gin ] && v=$(echo "$v" | awk '{printf "%.1f", $1 * 1000}')
                printf ' %s |' "${v:--}"
            done
            if [ $CUDA = 1 ]; then
                v=$(awk -v w=$w -v i=$i '$1 == w && $2 == i && $3 == "cuda" {print $5}' "$TMP/all")
                [ -n "$v" ] && v=$(echo "$v" | awk '{printf "%.1f", $1 * 1000}')
                printf ' %s |' "${v:--}"
            fi
            printf '\n'
        done
    done
} >&2
