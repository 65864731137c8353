#!/bin/sh
# bench/scale.sh - cost against the number of clients, about 10 of them
# training per round (issue 17: cost that grows with active clients only).
#
#   make build/fglrun && sh bench/scale.sh
#   COUNTS="10 100 1000" ROUNDS=20 sh bench/scale.sh
#
# For K clients: a synthetic node graph of 100 K nodes (fglrun --data
# synthetic:N: 32 features, 7 classes, a community per 300 nodes), split at
# random into K clients (--split random), FedAvg with the default 2-layer
# GCN (hidden 128) and a linear head, --frac 10/K (all 10 at K = 10), ROUNDS
# rounds, evaluation after the last round only, one thread. Per K:
#   sec/active client-round  training seconds / (rounds x 10)
#   server sec/round         the server's seconds / rounds
#   eval sec                 the one evaluation of every client at the end
#   peak RSS                 the process's peak resident memory (MB), data included
#   data MB                  the peak once the data is built, before the run (fglrun's
#                            data_rss_mb: the graph, the clients' copies, the program)
#   run MB                   peak RSS - data MB: what the run itself holds
# Idle clients are packed (fglrun --park-idle 1, the default; PARK=0 keeps
# them resident). Each K runs REPEAT times (default 3) in fresh processes and
# the row is the run with the median training time: at 20 rounds of 10
# clients a run trains for about 50 ms, and single runs varied by up to 2x.
# The last line is one JSON object.
set -e
cd "$(dirname "$0")/.."
FGLRUN=${FGLRUN:-./build/fglrun}
COUNTS=${COUNTS:-10 100 1000 10000}
ROUNDS=${ROUNDS:-20}
PARK=${PARK:-1}
REPEAT=${REPEAT:-3}
[ -x "$FGLRUN" ] || { echo "scale.sh: build $FGLRUN first (make build/fglrun)" >&2; exit 1; }
num() { sed -n "s/.*\"$1\": *\([0-9.eE+-]*\).*/\1/p"; }

echo "| clients | nodes | active per round | sec / active client-round | server sec / round | eval sec (all clients, once) | peak RSS (MB) | data (MB) | run (MB) |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
cl="" sp="" rss="" dat=""
for k in $COUNTS; do
    n=$((k * 100))
    frac=$(awk -v k="$k" 'BEGIN { f = 10 / k; if (f > 1) f = 1; printf "%.6g", f }')
    out=$(for r in $(seq "$REPEAT"); do
        o=$($FGLRUN --algo fedavg --data "synthetic:$n" --split random --clients "$k" --frac "$frac" \
            --rounds "$ROUNDS" --eval-every "$ROUNDS" --threads 1 --park-idle "$PARK" --json --quiet | tail -1)
        echo "$(echo "$o" | num seconds_train) $o"
    done | sort -g | awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }' | cut -d' ' -f2-)
    tr=$(echo "$out" | num seconds_train)
    sv=$(echo "$out" | num seconds_server)
    ev=$(echo "$out" | num seconds_eval)
    mb=$(echo "$out" | num peak_rss_mb)
    act=$(awk -v k="$k" -v f="$frac" 'BEGIN { a = int(k * f + 0.5); print a < 1 ? 1 : a }')
    per=$(awk -v t="$tr" -v r="$ROUNDS" -v a="$act" 'BEGIN { printf "%.6f", t / (r * a) }')
    spr=$(awk -v t="$sv" -v r="$ROUNDS" 'BEGIN { printf "%.6f", t / r }')
    data=$(echo "$out" | num data_rss_mb)
    own=$(awk -v p="$mb" -v d="$data" 'BEGIN { printf "%.1f", p - d }')
    echo "| $k | $n | $act | $per | $spr | $ev | $mb | $data | $own |"
    cl="$cl${cl:+, }$k" sp="$sp${sp:+, }$per" rss="$rss${rss:+, }$mb" dat="$dat${dat:+, }$data"
done
echo "{\"clients\": [$cl], \"sec_per_active_client_round\": [$sp], \"peak_rss_mb\": [$rss], \"data_rss_mb\": [$dat]}"
