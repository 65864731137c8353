#!/bin/sh
# bench/mpi.sh - time per round of a federated run in one process and over
# MPI, with the share of it that is communication.
#
#   make build/fglrun build/fglrun_mpi && sh bench/mpi.sh
#
# For each setting, P = 1 is build/fglrun (all clients in one process, one
# thread, then two threads), P = 2 and 4 are build/fglrun_mpi under mpirun
# (rank 0 the server, the clients spread over the other P - 1 ranks, one
# thread each). Printed per run: seconds per round (the server's wall time
# for the run / rounds), the seconds the server spent in exchanges with the
# ranks, the slowest rank's own seconds summed over exchanges, and their
# difference as the communication share of the run (sending, receiving,
# (de)serialising, waiting for a message to arrive: what one process does
# not pay). The results go to bench/results/mpi.jsonl, one JSON line per run.
# Settings:
#   cora      FedAvg on Cora, 10 METIS clients, 20 rounds (GCN, hidden 128: ~0.75 MB a model)
#   chem      FedStar on the seven CHEM datasets, one per client, 10 rounds
set -e
cd "$(dirname "$0")/.."
FGL_DATA=${FGL_DATA:-$(pwd)/data} # the data directory rule: data/ of the repository
export FGL_DATA OMP_WAIT_POLICY=passive
MPIRUN="mpirun --oversubscribe"
[ "$(id -u)" = 0 ] && MPIRUN="$MPIRUN --allow-run-as-root"
OUT=bench/results/mpi.jsonl
mkdir -p bench/results
CHEM=MUTAG,BZR,COX2,DHFR,PTC_MR,AIDS,NCI1
for setting in ${*:-cora chem}; do
    case $setting in
    cora) args="--algo fedavg --data Cora --split metis --clients 10 --rounds 20"; rounds=20 ;;
    chem) args="--algo fedstar --data $CHEM --rounds 10"; rounds=10 ;;
    *) echo "mpi.sh: unknown setting $setting" >&2; exit 2 ;;
    esac
    for how in "1 1" "1 2" "2 1" "4 1"; do
        set -- $how
        np=$1; t=$2
        if [ "$np" = 1 ]; then line=$(./build/fglrun $args --threads $t --json --quiet)
        else line=$($MPIRUN -np $np ./build/fglrun_mpi $args --threads $t --json --quiet); fi
        echo "{\"setting\": \"$setting\", \"np\": $np, \"threads\": $t, \"host\": \"$(hostname)\", \"result\": $line}" >> "$OUT"
        echo "$line" | awk -v s="$setting" -v np="$np" -v t="$t" -v R="$rounds" '
            { sec = $0; sub(/.*"seconds": /, "", sec); sub(/[,}].*/, "", sec)
              ex = 0; rem = 0
              if (index($0, "\"mpi\"")) {
                  ex = $0; sub(/.*"seconds_exchange": /, "", ex); sub(/[,}].*/, "", ex)
                  rem = $0; sub(/.*"seconds_remote": /, "", rem); sub(/[,}].*/, "", rem) }
              acc = $0; sub(/.*"test_acc_mean": /, "", acc); sub(/,.*/, "", acc)
              printf "%-5s P=%d threads=%d: %.4f s/round, exchanges %.2f s, ranks %.2f s, communication %.1f%% (test %.4f)\n",
                     s, np, t, sec / R, ex, rem, (sec > 0 ? 100 * (ex - rem) / sec : 0), acc }'
    done
done
