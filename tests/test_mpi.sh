#!/bin/sh
# fglrun over MPI (make test-mpi; needs mpirun), on fgl's synthetic data:
#  - every registered algorithm run by build/fglrun_mpi under mpirun -np 2, 3
#    and 5 prints the same JSON as build/fglrun (test_acc, last_acc,
#    bytes_up, bytes_down and the rest, the recorded configuration too; only
#    the "seconds*" timings, the "mpi" member and, in the record, the command
#    line, the checkpoint file and the MPI build's run-control flags may
#    differ): the node-task algorithms in one run, the graph-task ones in
#    another, then partial participation with evaluation every 2 rounds,
#    robust aggregation under attack, DP and secure aggregation with dropouts;
#  - a job stopped with --stop-after under MPI and resumed under MPI with
#    another number of processes, or by fglrun itself, ends with fglrun's bits;
#  - a rank that stops answering (--mpi-fail) is left out after the timeout:
#    the run finishes, its clients' uploads are counted as lost, rank 0 exits
#    with status 4; one lost as a run starts gives its clients to the others
#    (fglrun's bits), and the next run does without it;
#  - a rank that really dies (SIGKILL) or stops (SIGSTOP) mid-run: under
#    mpirun --enable-recovery the run finishes without its clients and the
#    job ends by itself within the timeout + 30 s; under plain mpirun a
#    stopped rank likewise (exit status 4), while a killed one ends the job
#    at once, leaving the last checkpoint and the progress file, which
#    resume to the uninterrupted run's bits;
#  - a rank that ends its process in the middle of a reply (--mpi-fail
#    2:5:exit) is lost and no other rank with it: the bits of that rank
#    going silent in the same round;
#  - rank 0 killed under --enable-recovery: the workers on its host leave;
#  - the JSON's "mpi" member counts at least the bytes the run counted;
#  - fglrun_mpi records every flag of its --help (--mpi-timeout and --mpi-fail
#    with the run control), and --config replays fglrun's record under
#    mpirun, and fglrun_mpi's record in fglrun, to the same result.
# Usage: tests/test_mpi.sh BUILD_DIR (holding fglrun and fglrun_mpi)
B=${1:-build}
FGLRUN=$B/fglrun
MPIRUN="mpirun --oversubscribe"
[ "$(id -u)" = 0 ] && MPIRUN="$MPIRUN --allow-run-as-root"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if ! command -v mpirun > /dev/null || [ ! -x $B/fglrun_mpi ]; then
    echo "not ok - mpirun or $B/fglrun_mpi missing (apt-get install libopenmpi-dev openmpi-bin; make mpi)"; exit 0
fi
# the JSON without the wall-clock seconds ("seconds", "seconds_server") and
# the MPI traffic; without FED-PUB's mask sparsity, an observer of the
# clients' models that only the processes hosting them could compute (absent
# under MPI); and, in the recorded configuration, without what names the
# invocation rather than the experiment: the command (fglrun_mpi, not
# fglrun), the checkpoint file, and fglrun_mpi's --mpi-timeout / --mpi-fail
strip() {
    sed -e 's/"seconds[a-z_]*": [0-9.]*//g' -e 's/, "\(peak\|data\)_rss_mb": [0-9.]*//g' -e 's/, "mpi": {[^}]*}//g' \
        -e 's/, "mask_sparsity": [0-9.]*, "prunable_bytes_per_round": [0-9]*//g' \
        -e 's/"command": "\([^"\\]\|\\.\)*", //' -e 's/"checkpoint": \(null\|"\([^"\\]\|\\.\)*"\), //' \
        -e 's/, "park-idle": [01]//' -e 's/, "mpi-timeout": [0-9.e+-]*, "mpi-fail": \(null\|"[0-9a-z:]*"\)//' "$1"
}
same() { # label, reference JSON, MPI JSON, stderr
    if [ -s "$2" ] && [ -s "$3" ] && [ "$(strip $2)" = "$(strip $3)" ]; then echo "ok - $1"
    else
        echo "not ok - $1"
        echo "#   fglrun: $(strip $2 | cut -c1-400)"
        echo "#   mpi:    $(strip $3 | cut -c1-400)"
        sed 's/^/#   /' "$4" | head -5
    fi
}
ALGOS=$($FGLRUN --help | sed -n 's/^Algorithms: //p' | tr ' ' ',')
NODE=$(echo "$ALGOS" | sed -e "s/,fedstar//" -e "s/,gpfl//" -e "s/,fedgcn//") # fedgcn: alone, with its halo (FEDGCN)
GRAPH=$(echo "$ALGOS" | sed -e "s/,pfedgnn//" -e "s/,fedgcn//" -e "s/,fedsage//" -e "s/,fedgta//" -e "s/,adafgl//" -e "s/,fgssl//" -e "s/,fedtad//" -e "s/,fggp//" -e "s/,fedgl//" -e "s/,feddep//") # node classification only
NODE_ARGS="--algo $NODE --data synthetic --clients 5 --rounds 3 --set gcfl.warmup=1 --set gcflplus.warmup=1"
GRAPH_ARGS="--algo $GRAPH --task graph --data synthetic --clients 4 --rounds 2 --batch 32"
PART_ARGS="--algo fedavg,scaffold,fedproto,pfedgraph --data synthetic --clients 6 --rounds 4 --frac 0.5 --eval-every 2"
ROBUST_ARGS="--algo fedavg --data synthetic --clients 6 --rounds 3 --robust median --attack alie --attackers 0.34"
DP_ARGS="--algo fedavg --data synthetic --clients 5 --rounds 3 --dp clip=1,noise=0.5 --secret-seed 3"
SECAGG_ARGS="--algo fedavg --data synthetic --clients 6 --rounds 3 --secagg --secagg-dropout 0.3 --secagg-threshold 4"
# link prediction: the clients' edge splits travel to the ranks, Hits@K comes back with the AUC; every
# algorithm but those that refuse a link task (tests/test_link.c lists them with their reasons)
LINK_ALGOS=$(echo "$ALGOS" | tr ',' '\n' | grep -vxE 'fedproto|fedtgp|gpfl|fedpg|fedstar|pfedgnn|fedgcn|fedsage|fedgta|adafgl|fgssl|fedtad|fggp|fedgl|feddep' |
    paste -sd, -)
LINK_ARGS="--algo $LINK_ALGOS --task link --data synthetic --clients 4 --rounds 2"
# FedGCN on the halo split: the halo (node ids, own rows, the whole graph's GCN norm) travels with the data
FEDGCN_ARGS="--algo fedgcn --data synthetic --clients 5 --rounds 4 --halo 2"
# FGGP evaluates with the prototype table it received: a client that sits rounds out keeps its own (in one
# process its download viewed the server's newer table, which it never received: fglrun and MPI differed)
FGGP_ARGS="--algo fggp --data synthetic --clients 5 --rounds 4 --frac 0.6"
for case in NODE GRAPH PART ROBUST DP SECAGG LINK FEDGCN FGGP; do
    eval "args=\$${case}_ARGS"
    # PART, FGGP: the reference keeps idle clients resident (--park-idle 0), the MPI ranks pack theirs (the default)
    park=; [ $case = PART ] || [ $case = FGGP ] && park="--park-idle 0"
    $FGLRUN $args $park --json --quiet > "$tmp/ref.json" 2> "$tmp/err"
    for np in 2 3 5; do
        $MPIRUN -np $np $B/fglrun_mpi $args --json --quiet > "$tmp/mpi.json" 2> "$tmp/err"
        same "mpirun -np $np, $case ($(echo "$args" | cut -c1-60)...): fglrun's bits" "$tmp/ref.json" "$tmp/mpi.json" "$tmp/err"
        cp "$tmp/mpi.json" "$tmp/$case.json"
    done
done
n=$(grep -o '"test_hits_mean": [0-9][0-9.]*' "$tmp/LINK.json" | wc -l) # each row's mean over its runs
if [ "$n" = "$(echo "$LINK_ALGOS" | tr ',' '\n' | wc -l)" ]; then echo "ok - LINK: every algorithm's Hits@K over MPI is a number"
else echo "not ok - LINK: Hits@K over MPI ($n of the algorithms' lines have a number)"; fi
if grep -q '"exchange": "sent"' "$tmp/FEDGCN.json" && grep -q '"exchange_halo_rows": [1-9]' "$tmp/FEDGCN.json"; then
    echo "ok - FEDGCN: the exchange filled the halo over MPI"
else echo "not ok - FEDGCN: the exchange over MPI ($(grep -o '"exchange[a-z_]*": [^,]*' "$tmp/FEDGCN.json" | tr '\n' ' '))"; fi
# the traffic: what the run counts (the declared floats) plus headers; with
# --frac 0.5 the clients that sit a round out are sent nothing (the counted
# bytes cover the participants' downloads only)
for case in DP PART; do
    up=$(sed -n 's/.*"bytes_up": \([0-9]*\), "bytes_down": \([0-9]*\).*"mpi": {[^}]*"bytes_up": \([0-9]*\), "bytes_down": \([0-9]*\).*/\1 \2 \3 \4/p' "$tmp/$case.json" | head -n 1)
    set -- $up
    if [ $# = 4 ] && [ "$3" -ge "$1" ] && [ "$4" -ge "$2" ] && [ "$3" -lt $(($1 + 10000)) ] && [ "$4" -lt $(($2 + 10000)) ]; then
        echo "ok - $case: the bytes over MPI ($3 up, $4 down) are the counted bytes ($1, $2) and headers"
    else echo "not ok - $case: the bytes over MPI are the counted bytes and headers: '$up'"; fi
done

# the record: every flag of fglrun_mpi --help, the MPI ones with the run control; --config across the builds
$MPIRUN -np 2 $B/fglrun_mpi --algo fedavg --data synthetic --clients 4 --rounds 2 --mpi-timeout 60 --out "$tmp/rec" \
    --json --quiet > "$tmp/rec.json" 2> "$tmp/err"
missing=
for f in $($B/fglrun_mpi --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    case $f in --help|--set|--version) continue ;; esac
    grep -q "\"${f#--}\": " "$tmp/rec/config" 2> /dev/null || missing="$missing $f"
done
if [ -s "$tmp/rec/config" ] && [ -z "$missing" ] && grep -q '"run": {.*"mpi-timeout": 60, "mpi-fail": null}' "$tmp/rec.json"; then
    echo "ok - fglrun_mpi records every flag of its --help, --mpi-timeout and --mpi-fail with the run control"
else echo "not ok - fglrun_mpi records every flag of its --help (missing:${missing:- none})"; sed 's/^/#   /' "$tmp/err" | head -3; fi
args="--algo fedavg,fedamp --data synthetic --clients 5 --rounds 3"
$FGLRUN $args --json --quiet > "$tmp/ref.json" 2> "$tmp/err"
if $MPIRUN -np 3 $B/fglrun_mpi --config "$tmp/ref.json" --json 2> "$tmp/err" | tail -n 1 > "$tmp/mpi.json" &&
   grep -q "identical to the record" "$tmp/err"; then
    # (the replay's record names --config in its run control: the results are compared without the records)
    sed 's/, "config": .*$/}/' "$tmp/ref.json" > "$tmp/ref_nc.json"; sed 's/, "config": .*$/}/' "$tmp/mpi.json" > "$tmp/mpi_nc.json"
    same "fglrun's record replayed by --config under mpirun -np 3: identical" "$tmp/ref_nc.json" "$tmp/mpi_nc.json" "$tmp/err"
else echo "not ok - fglrun's record replayed by --config under mpirun"; grep -v ' round ' "$tmp/err" | sed 's/^/#   /' | head -5; fi
if $FGLRUN --config "$tmp/mpi.json" > /dev/null 2> "$tmp/err" && grep -q "identical to the record" "$tmp/err"; then
    echo "ok - fglrun_mpi's record replayed by fglrun --config: identical"
else echo "not ok - fglrun_mpi's record replayed by fglrun --config"; grep -v ' round ' "$tmp/err" | sed 's/^/#   /' | head -5; fi

# stop under MPI, resume under MPI with another process count, and with fglrun itself
# (--frac 0.6: the ranks' idle clients are packed when the checkpoint is written and loaded)
args="--algo fedavg,fedamp --data synthetic --clients 5 --rounds 4 --frac 0.6"
$FGLRUN $args --park-idle 0 --json --quiet > "$tmp/ref.json" 2> "$tmp/err"
$MPIRUN -np 3 $B/fglrun_mpi $args --json --quiet --checkpoint "$tmp/ck" --stop-after 2 > "$tmp/stop.json" 2>> "$tmp/err"
cp "$tmp/ck.fedavg.seed1" "$tmp/ckb.fedavg.seed1" 2>/dev/null; cp "$tmp/ck.fedamp.seed1" "$tmp/ckb.fedamp.seed1" 2>/dev/null
$MPIRUN -np 4 $B/fglrun_mpi $args --json --quiet --checkpoint "$tmp/ck" > "$tmp/mpi.json" 2>> "$tmp/err"
if [ -s "$tmp/stop.json" ]; then echo "not ok - --stop-after under MPI printed a result"
else same "stopped under mpirun -np 3, resumed under -np 4: fglrun's bits" "$tmp/ref.json" "$tmp/mpi.json" "$tmp/err"; fi
$FGLRUN $args --json --quiet --checkpoint "$tmp/ckb" > "$tmp/local.json" 2>> "$tmp/err"
same "stopped under mpirun, resumed by fglrun: the same bits" "$tmp/ref.json" "$tmp/local.json" "$tmp/err"

# a rank that stops answering: left out after the timeout, the run goes on, exit status 4
args="--algo fedavg --data synthetic --clients 6 --rounds 4 --json --quiet"
start=$(date +%s)
$MPIRUN -np 3 $B/fglrun_mpi $args --mpi-fail 2:2 --mpi-timeout 2 > "$tmp/fail.json" 2> "$tmp/err"; rc=$?
took=$(($(date +%s) - start))
# rank 2 hosts clients 3-5: lost from round 2 on, 3 rounds x 3 uploads
if [ $rc = 4 ] && grep -q '"lost_uploads": 9' "$tmp/fail.json" && grep -q '"lost_ranks": 1, "lost_clients": 3' "$tmp/fail.json" &&
   grep -q '"test_acc_mean": 0\.[0-9]' "$tmp/fail.json" && grep -q "rank 2 (clients 3-5) lost in round 2" "$tmp/err"; then
    echo "ok - a rank that stops answering in round 2 is left out after a 2 s timeout, the run finishes, exit status 4 (${took} s)"
else
    echo "not ok - a rank that stops answering is left out, the run finishes, exit status 4 (exit $rc)"
    echo "#   $(cut -c1-400 "$tmp/fail.json")"; sed 's/^/#   /' "$tmp/err" | head -5
fi
# lost as the first run starts: its clients go to rank 1 (the same bits as fglrun), the second run does without it
args="--algo fedavg,fedprox --data synthetic --clients 6 --rounds 3 --json --quiet"
$FGLRUN $args > "$tmp/ref.json" 2> "$tmp/err"
$MPIRUN -np 3 $B/fglrun_mpi $args --mpi-fail 2:0 --mpi-timeout 2 > "$tmp/fail0.json" 2> "$tmp/err"; rc=$?
if [ $rc = 4 ] && [ "$(grep -c 'lost as the run started' "$tmp/err")" = 1 ] &&
   grep -q '"lost_ranks": 1, "lost_clients": 0, "lost": "rank 2 lost as the run started' "$tmp/fail0.json" &&
   grep -q '"fedprox".*"lost_ranks": 0, "lost_clients": 0}' "$tmp/fail0.json"; then
    same "a rank lost as the run starts: its clients go to the others, fglrun's bits; the next run does without it" \
        "$tmp/ref.json" "$tmp/fail0.json" "$tmp/err"
else
    echo "not ok - a rank lost as the run starts (exit $rc)"; echo "#   $(cut -c1-600 "$tmp/fail0.json")"
    sed 's/^/#   /' "$tmp/err" | head -5
fi

# A rank that really dies or stops in the middle of a run (README, "Across processes and machines").
# rank R's process of the job whose command line names $1 (a path of its own)
rank_pid() {
    for p in $(pgrep -f -- "$1"); do
        if tr '\0' '\n' < /proc/$p/environ 2> /dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then echo $p; return; fi
    done
}
# wait (at most 120 s) until DIR/progress.json counts N rounds done
wait_rounds() {
    i=0
    while [ $i -lt 600 ]; do
        n_done=$(sed -n 's/.*"rounds_done": \([0-9]*\).*/\1/p' "$1/progress.json" 2> /dev/null)
        [ "${n_done:-0}" -ge "$2" ] && return 0
        sleep 0.2; i=$((i + 1))
    done
    return 1
}
# process P exists and has not ended (a zombie has)
alive() { st=$(ps -o stat= -p $1 2> /dev/null); [ -n "$st" ] && [ "${st#Z}" = "$st" ]; }
# wait (at most S seconds) until process P has ended, or (P = DIR) until DIR/rc is written; 0 if it did
wait_gone() {
    i=0
    while [ $i -lt $(($2 * 5)) ]; do
        if [ -d "$1" ]; then [ -s "$1/rc" ] && return 0; else alive $1 || return 0; fi
        sleep 0.2; i=$((i + 1))
    done
    return 1
}
# every process of the job whose command line names $1, ended (a stopped one continued first)
cleanup() { for p in $(pgrep -f -- "$1") $2; do kill -CONT $p 2> /dev/null; kill -KILL $p 2> /dev/null; done; }
T=3
# fault LABEL SIGNAL "MPIRUN FLAGS" RC: kill -SIGNAL rank 2 (clients 3-5) once 3 rounds are done; the job
# must end by itself within T + 60 s (T + 30 proved short once, on a loaded 2-core machine) with everything
# written, the clients counted, rank 0 saying exit status 4, mpirun's status RC, and no process left
fault() {
    d="$tmp/fault_$2$(echo "$3" | tr -dc a-z)"
    rm -rf "$d"; mkdir -p "$d"
    ( timeout -k 5 300 $MPIRUN $3 -np 3 $B/fglrun_mpi --algo fedavg --data synthetic --clients 6 --rounds 60 \
        --mpi-timeout $T --json --quiet --out "$d" > "$d/out.json" 2> "$d/err"; echo $? > "$d/rc" ) &
    job=$!
    victim=
    wait_rounds "$d" 3 && victim=$(rank_pid "$d" 2)
    if [ -z "$victim" ] || ! kill -$2 $victim; then
        echo "not ok - $1: rank 2 was not found running"; cleanup "$d"; wait $job; return
    fi
    start=$(date +%s)
    if wait_gone "$d" $((T + 60)); then
        took=$(($(date +%s) - start))
        rc=$(cat "$d/rc")
        left=; wait_gone $victim 5 || left=" (rank 2 left behind)"
        [ -n "$(pgrep -f -- "$d")" ] && left="$left (processes left)"
        if [ $rc = $4 ] && [ -z "$left" ] && grep -q '"lost_ranks": 1, "lost_clients": 3' "$d/out.json" &&
           grep -q '"lost_uploads": [1-9]' "$d/out.json" && grep -q '"test_acc_mean": 0\.[0-9]' "$d/out.json" &&
           grep -q '"status": "complete"' "$d/progress.json" && [ -s "$d/result.json" ] &&
           grep -q "exit status 4" "$d/err"; then
            echo "ok - $1: rank 2 left out after ${T} s, the run finished and wrote its results, the job ended by" \
                 "itself ${took} s after the signal (status $rc)"
        else
            echo "not ok - $1: the job ended ${took} s after the signal with status $rc (expected $4)$left"
            echo "#   $(cut -c1-300 "$d/out.json")"; grep -v "PMIX ERROR" "$d/err" | sed 's/^/#   /' | head -8
        fi
    else
        echo "not ok - $1: the job did not end within $((T + 60)) s of the signal"
        grep -v "PMIX ERROR" "$d/err" | sed 's/^/#   /' | head -8
        # what was left: each process of the job, its rank and state, and the run's status
        echo "#   progress: $(grep -o '"status": "[a-z]*"\|"rounds_done": [0-9]*' "$d/progress.json" 2> /dev/null | tr '\n' ' ')"
        for p in $(pgrep -f -- "$d"); do
            echo "#   pid $p: $(ps -o stat=,comm= -p $p 2> /dev/null) rank" \
                 "$(tr '\0' '\n' < /proc/$p/environ 2> /dev/null | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')"
        done
    fi
    cleanup "$d" $victim
    wait $job 2> /dev/null
}
# --enable-recovery: Open MPI 4 keeps the job when a process dies; its mpirun then exits 0 whatever its
# processes return (rank 0's status is in its last line). A job that stalls after the signal (README, "When a
# rank fails": seen twice before rank 0 received replies with a timeout) is reported and the case runs once
# more; a second stall fails the test
fault_again() {
    out=$(fault "$@")
    case $out in
    "not ok"*"did not end"*) echo "$out" | sed 's/^/# first attempt: /'; fault "$@" ;;
    *) echo "$out" ;;
    esac
}
fault_again "SIGKILL on rank 2 under mpirun --enable-recovery" KILL --enable-recovery 0
fault_again "SIGSTOP on rank 2 under mpirun --enable-recovery (the stopped rank is ended)" STOP --enable-recovery 0
fault "SIGSTOP on rank 2 under plain mpirun (MPI_Abort once everything is written)" STOP "" 4
# a rank that ends in the middle of a reply (--mpi-fail 2:5:exit: it posts the start of a 1 MiB reply to round 5's
# TRAIN and calls _Exit), under --enable-recovery: rank 0 sees the reply begin, its body never comes (Open MPI:
# "Read -1 ... errno = 3") or comes malformed; either way rank 2 is lost and, whichever reply rank 0 waited on, rank
# 1 is not (the CI failure of 924df78: rank 1, probed before that wait, was then lost too). The result must be the
# bits of the same rank going silent from round 5 (--mpi-fail 2:5). Whether the body goes missing is a race with
# rank 0's polling (7 in 8 here): up to 4 tries, each checked; a skip if none lost the body
args="--algo fedavg --data synthetic --clients 6 --rounds 8 --mpi-timeout 2 --json --quiet"
$MPIRUN -np 3 $B/fglrun_mpi $args --mpi-fail 2:5 > "$tmp/silent.json" 2> "$tmp/err"; rc=$?
midbody=0; bad=
if [ $rc != 4 ] || ! grep -q '"lost_ranks": 1, "lost_clients": 3, "lost": "rank 2 (clients 3-5) lost in round 5: no answer' \
   "$tmp/silent.json"; then
    bad="the reference (rank 2 silent from round 5) exited $rc"
fi
for try in 1 2 3 4; do
    [ -n "$bad" ] && break
    timeout -k 5 120 $MPIRUN --enable-recovery -np 3 $B/fglrun_mpi $args --mpi-fail 2:5:exit > "$tmp/exit.json" \
        2> "$tmp/err"; rc=$?
    if [ $rc != 0 ] || ! grep -q "exit status 4" "$tmp/err" || grep -q "every client is lost" "$tmp/err" ||
       ! grep -q '"lost_ranks": 1, "lost_clients": 3, "lost": "rank 2 (clients 3-5) lost in round 5: ' "$tmp/exit.json" ||
       [ "$(strip "$tmp/silent.json")" != "$(strip "$tmp/exit.json")" ]; then
        bad="try $try, status $rc"; break
    fi
    if grep -q "round 5: its reply began but did not arrive" "$tmp/exit.json"; then midbody=1; break; fi
done
if [ -n "$bad" ]; then
    echo "not ok - a rank that ends in mid-reply: $bad"; echo "#   $(strip "$tmp/exit.json" | cut -c1-300)"
    grep -v "PMIX ERROR" "$tmp/err" | sed 's/^/#   /' | head -6
elif [ $midbody = 1 ]; then
    echo "ok - a rank that ends in mid-reply (its body never came, try $try): lost after the timeout, the other" \
         "rank kept, the bits of a rank gone silent in that round"
else
    echo "skip - a rank that ends in mid-reply # its body arrived (malformed) in each of 4 tries, so the wait on a" \
         "missing body was not exercised (each try: lost, the other rank kept, the silent rank's bits)"
fi
# rank 0 (the server) killed under --enable-recovery: the workers, on its host here, see its process gone (fglrun's
# check, about once a second) and leave; the job ends by itself
d="$tmp/fault_kill0"
mkdir -p "$d"
( timeout -k 5 300 $MPIRUN --enable-recovery -np 3 $B/fglrun_mpi --algo fedavg --data synthetic --clients 6 --rounds 200 \
    --mpi-timeout $T --json --quiet --out "$d" > "$d/out.json" 2> "$d/err"; echo $? > "$d/rc" ) &
job=$!
victim=
wait_rounds "$d" 3 && victim=$(rank_pid "$d" 0)
if [ -n "$victim" ] && kill -KILL $victim; then
    start=$(date +%s)
    if wait_gone "$d" 30; then
        took=$(($(date +%s) - start))
        if [ -z "$(pgrep -f -- "$d")" ] && [ "$(grep -c 'the server (rank 0) is gone' "$d/err")" = 2 ]; then
            echo "ok - SIGKILL on rank 0 under mpirun --enable-recovery: both workers saw the server gone and left," \
                 "the job ended ${took} s after the signal"
        else
            echo "not ok - SIGKILL on rank 0 under --enable-recovery: processes left or workers silent (${took} s)"
            grep -v "PMIX ERROR" "$d/err" | sed 's/^/#   /' | head -5
        fi
    else
        echo "not ok - SIGKILL on rank 0 under mpirun --enable-recovery: the job did not end within 30 s"
        grep -v "PMIX ERROR" "$d/err" | sed 's/^/#   /' | head -5
    fi
else echo "not ok - SIGKILL on rank 0 under mpirun --enable-recovery: rank 0 was not found running"; fi
cleanup "$d"
wait $job 2> /dev/null
# plain mpirun and SIGKILL: Open MPI ends the job at once; the last checkpoint and progress.json remain,
# and resuming gives the bits of a run never interrupted
d="$tmp/fault_kill_plain"
mkdir -p "$d"
args="--algo fedavg --data synthetic --clients 6 --rounds 40 --json --quiet"
$FGLRUN $args > "$d/ref.json" 2> "$d/err"
( timeout -k 5 300 $MPIRUN -np 3 $B/fglrun_mpi $args --mpi-timeout $T --checkpoint "$d/ck" --out "$d" > "$d/out.json" 2> "$d/err"
  echo $? > "$d/rc" ) &
job=$!
victim=
wait_rounds "$d" 3 && victim=$(rank_pid "$d" 2)
if [ -n "$victim" ] && kill -KILL $victim && wait_gone "$d" 30; then
    rc=$(cat "$d/rc")
    done_rounds=$(sed -n 's/.*"rounds_done": \([0-9]*\).*/\1/p' "$d/progress.json")
    if [ $rc != 0 ] && [ ! -s "$d/out.json" ] && [ -s "$d/ck" ] && grep -q '"status": "running"' "$d/progress.json" &&
       [ "${done_rounds:-0}" -ge 3 ] && [ "${done_rounds:-0}" -lt 40 ]; then
        echo "ok - SIGKILL on rank 2 under plain mpirun ends the job (status $rc) after round $done_rounds of 40;" \
             "the checkpoint and progress.json remain"
    else
        echo "not ok - SIGKILL under plain mpirun: status $rc, rounds done '$done_rounds', checkpoint $(ls "$d/ck" 2>&1)"
        grep -v "PMIX ERROR" "$d/err" | sed 's/^/#   /' | head -5
    fi
    $MPIRUN -np 3 $B/fglrun_mpi $args --checkpoint "$d/ck" > "$d/resumed.json" 2> "$d/err2"
    same "the killed job resumed from its checkpoint: the bits of a run never interrupted" "$d/ref.json" \
        "$d/resumed.json" "$d/err2"
else
    echo "not ok - SIGKILL on rank 2 under plain mpirun: the job did not end within 30 s (or rank 2 not found)"
fi
cleanup "$d" $victim
wait $job 2> /dev/null

# the server refuses to checkpoint a run that lost clients, and says why
$MPIRUN -np 3 $B/fglrun_mpi $args --mpi-fail 1:3 --mpi-timeout 2 --checkpoint "$tmp/ckf" > /dev/null 2> "$tmp/err"
if grep -q "is lost with rank 1: its state cannot be saved" "$tmp/err"; then
    echo "ok - no checkpoint of a run whose clients are lost (the last one written restarts the job)"
else echo "not ok - no checkpoint of a run whose clients are lost"; sed 's/^/#   /' "$tmp/err" | head -5; fi
