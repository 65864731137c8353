#!/bin/sh
# The sides apart by their types (issue 36):
#  - tests/sides_fail.c: a client hook writing into its download, into
#    fgl_down / fgl_received's memory or straight into its upload's parts,
#    a server hook writing into an upload or into a download part sent from
#    its store, an observer writing into the server's state or the run's
#    history, an observer of the old kind (const fgl_run *): none compiles
#    (gcc and g++, clang when installed), each for being const; the same file
#    without those lines (fgl_down_copy, fgl_up, fgl_download_part) compiles
#    warning-free; no built-in hook casts such memory to a writable pointer
#    (the runtime checks only a program's own hooks);
#  - a hook that casts the const away and writes anyway (tests/user_fglrun.c's
#    "scribble": the receive, training, upload and eval_model hooks into the
#    download, the aggregate hook into an upload) fails the run, naming the
#    client and the hook; writing fgl_down_copy's copy gives FedAvg's bits;
#  - under mpirun (make mpi: build/tests/user_fglrun_mpi), where a download
#    is the rank's copy rather than a view of the server's buffer, the same
#    refusals with the same words, and the same bits.
# Usage: tests/test_sides.sh BUILD_DIR (holding tests/user_fglrun)
B=${1:-build}
USER=$B/tests/user_fglrun
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
W="-Wall -Wextra -Wpedantic -Werror -I. -fsyntax-only"

# --- what does not compile ---------------------------------------------------------
for cc in gcc "g++ -x c++ -std=c++11" clang; do
    name=${cc%% *}
    [ "$name" = gcc ] && cc="gcc -std=c99"
    [ "$name" = clang ] && cc="clang -std=c99"
    if ! command -v "$name" > /dev/null; then echo "skip - $name not installed"; continue; fi
    if $cc $W -DCASE=0 tests/sides_fail.c > "$tmp/c0.log" 2>&1; then
        echo "ok - $name: hooks reading what they received, writing their own messages and a copy compile"
    else
        echo "not ok - $name: the legal hooks of tests/sides_fail.c do not compile"
        sed 's/^/#   /' "$tmp/c0.log" | head -5
        continue
    fi
    bad=""
    for c in 1 2 3 4 5 6 7 8 9 10 11; do
        if $cc $W -DCASE=$c tests/sides_fail.c > "$tmp/c$c.log" 2>&1; then bad="$bad $c (compiles)"
        elif ! grep -q -E "read-only|const-qualified|incompatible|invalid conversion" "$tmp/c$c.log"; then
            bad="$bad $c ($(grep -m1 error "$tmp/c$c.log"))"
        fi
    done
    if [ -z "$bad" ]; then
        echo "ok - $name: writes through what a hook received or observes are compile errors (11 cases)"
    else echo "not ok - $name: tests/sides_fail.c cases that should fail for writing through const:$bad"; fi
done

# The runtime checks only a program's own hooks: the built-in algorithms'
# never cast the const of what they received away (nor do they need to: they
# give the same bits under MPI, tests/test_mpi.sh). A cast to a writable
# pointer of fgl_down, fgl_received(_at), fgl_upload or a message's part:
casts=$(grep -n -E '\((float|double|void|unsigned char) *\*\) *(\(*(fgl_down|fgl_received|fgl_received_at|fgl_upload)\(|[a-z_>.()-]*part\[)' \
    src/fed/algos/*.h src/fed/sides.h src/fed/defences.h src/fed/secagg.h src/fed/run.h)
if [ -z "$casts" ]; then echo "ok - no built-in hook casts the const of what it received away"
else echo "not ok - casts of received memory to writable pointers:"; echo "$casts" | sed 's/^/#   /'; fi

# --- what is refused at run time -----------------------------------------------------
if [ ! -x "$USER" ]; then echo "not ok - $USER missing (make tests)"; exit 0; fi
ARGS="--algo scribble --data synthetic --clients 4 --rounds 2 --json --quiet"
WANT_1="client 0 (receive): the receive hook wrote into download part 'theta', which clients read only"
WANT_2="client 0 (training and upload): a training hook wrote into download part 'theta', which clients read only"
WANT_3="client 0 (training and upload): the upload hook wrote into download part 'theta', which clients read only"
WANT_4="client 0: evaluation failed: the eval_model hook wrote into download part 'theta', which clients read only"
WANT_5="server (aggregation): the aggregate hook wrote into client 0's upload part 'theta', which the server reads only"
refusal() { # the line of fglrun's error, from "round" on (under MPI a rank may prefix it)
    sed -n 's/.*scribble, \(round .*\)/\1/p' "$1" | head -1
}
# client 0 writes into the one buffer every client's download views: with
# one thread each hook's check sees its own writes only, so the names are
# exact (with clients side by side another client's check may see it first)
for w in 1 2 3 4 5; do
    eval "want=\$WANT_$w"
    $USER $ARGS --set where=$w --threads 1 > "$tmp/w$w.json" 2> "$tmp/w$w.err"; rc=$?
    if [ $rc -ne 0 ] && [ ! -s "$tmp/w$w.json" ] && refusal "$tmp/w$w.err" | grep -q -F "$want"; then
        echo "ok - a hook writing what it received is refused (where=$w): $(refusal "$tmp/w$w.err" | cut -c1-60)..."
    else
        echo "not ok - where=$w: exit $rc, '$(refusal "$tmp/w$w.err")' (want '$want')"
    fi
    $USER $ARGS --set where=$w --threads 2 > /dev/null 2> "$tmp/t$w.err"; rc=$?
    if [ $rc -ne 0 ] && grep -q "which \(clients\|the server\) read\(s\)\? only" "$tmp/t$w.err"; then
        echo "ok - refused with clients side by side too (where=$w)"
    else echo "not ok - where=$w, 2 threads: exit $rc, $(grep . "$tmp/t$w.err" | head -1)"; fi
done
acc() { # test_acc, bytes_up, bytes_down (the run's: the first of each)
    for k in test_acc bytes_up bytes_down; do grep -o "\"$k\": [^,}]*" "$1" | head -n 1 | sed 's/.*: //'; done | tr '\n' ' '
}
$USER --algo fedavg --data synthetic --clients 4 --rounds 2 --json --quiet --threads 1 > "$tmp/fedavg.json" 2>/dev/null
$USER $ARGS --set where=6 --threads 1 > "$tmp/w6.json" 2> "$tmp/w6.err"
if [ -n "$(acc "$tmp/fedavg.json")" ] && [ "$(acc "$tmp/fedavg.json")" = "$(acc "$tmp/w6.json")" ]; then
    echo "ok - writing fgl_down_copy's copy is allowed and leaves FedAvg's bits ($(acc "$tmp/w6.json"))"
else
    echo "not ok - where=6 (a copy): '$(acc "$tmp/w6.json")', FedAvg '$(acc "$tmp/fedavg.json")'"
    sed 's/^/#   /' "$tmp/w6.err" | head -3
fi

# --- the same under MPI ------------------------------------------------------------------
if ! command -v mpirun > /dev/null || [ ! -x "$B/tests/user_fglrun_mpi" ]; then
    echo "skip - the refusals under MPI (needs mpirun and make mpi: $B/tests/user_fglrun_mpi)"; exit 0
fi
MPIRUN="mpirun --oversubscribe"
[ "$(id -u)" = 0 ] && MPIRUN="$MPIRUN --allow-run-as-root"
for np in 2 3; do
    for w in 1 2 3 4 5; do
        timeout 300 $MPIRUN -np $np "$B/tests/user_fglrun_mpi" $ARGS --set where=$w --threads 1 \
            > "$tmp/m$w.json" 2> "$tmp/m$w.err"; rc=$?
        got=$(refusal "$tmp/m$w.err"); want=$(refusal "$tmp/w$w.err")
        if [ $rc -ne 0 ] && [ -n "$got" ] && [ "$got" = "$want" ]; then
            echo "ok - under mpirun -np $np refused alike (where=$w)"
        else echo "not ok - mpirun -np $np, where=$w: exit $rc, '$got', in one process '$want'"; fi
    done
    timeout 300 $MPIRUN -np $np "$B/tests/user_fglrun_mpi" $ARGS --set where=6 --threads 1 \
        > "$tmp/m6.json" 2> "$tmp/m6.err"
    if [ -n "$(acc "$tmp/m6.json")" ] && [ "$(acc "$tmp/m6.json")" = "$(acc "$tmp/w6.json")" ]; then
        echo "ok - under mpirun -np $np a copy written gives the same bits"
    else echo "not ok - mpirun -np $np, where=6: '$(acc "$tmp/m6.json")', in one process '$(acc "$tmp/w6.json")'"; fi
done
