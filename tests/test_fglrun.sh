#!/bin/sh
# fglrun end to end, on fgl's synthetic data (no datasets needed):
#  - for every registered algorithm, a run stopped with --stop-after and
#    resumed from its checkpoint prints the same test_acc, last_acc and bytes
#    as the uninterrupted run;
#  - a user's program that registers an algorithm runs it by name with
#    --algo, --set, --seeds and --out (tests/user_fglrun.c);
#  - unknown --set keys are refused with any number of algorithms.
# Usage: tests/test_fglrun.sh BUILD_DIR (holding fglrun and tests/user_fglrun)
B=${1:-build}
FGLRUN=$B/fglrun
USER=$B/tests/user_fglrun
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# the result without its timing and its record (which names the command line)
strip() { sed 's/"seconds": [0-9.]*//; s/, "config": .*$/}/' "$1"; }
for algo in $($FGLRUN --help | sed -n 's/^Algorithms://p'); do
    case $algo in
        fedstar) args="--task graph --data synthetic --clients 4 --rounds 5 --batch 32" ;;
        *) args="--data synthetic --clients 4 --rounds 5 --local-epochs 2" ;;
    esac
    case $algo in gcfl*) args="$args --set share=all --set warmup=2 --set eps1=1e9 --set eps2=0" ;; esac
    if ! $FGLRUN --algo $algo $args --json --quiet > "$tmp/full.json" 2> "$tmp/err"; then
        echo "not ok - fglrun resume $algo: the uninterrupted run failed"; sed 's/^/#   /' "$tmp/err"; continue
    fi
    rm -f "$tmp/ck"
    $FGLRUN --algo $algo $args --json --quiet --checkpoint "$tmp/ck" --stop-after 2 > "$tmp/stop.json" 2>> "$tmp/err"
    $FGLRUN --algo $algo $args --json --quiet --checkpoint "$tmp/ck" > "$tmp/resumed.json" 2>> "$tmp/err"
    if [ -s "$tmp/stop.json" ]; then
        echo "not ok - fglrun resume $algo: --stop-after printed a result"
    elif [ -s "$tmp/resumed.json" ] && [ "$(strip $tmp/full.json)" = "$(strip $tmp/resumed.json)" ]; then
        echo "ok - fglrun resume $algo"
    else
        echo "not ok - fglrun resume $algo: stopped after round 2 and resumed, the result differs"
        echo "#   full:    $(strip $tmp/full.json | cut -c1-300)"
        echo "#   resumed: $(strip $tmp/resumed.json | cut -c1-300)"
        sed 's/^/#   /' "$tmp/err" | head -5
    fi
done
# a user's algorithm by name, with every flag
if $USER --algo trimmed,fedavg --data synthetic --clients 5 --rounds 4 --seeds 2 --set trimmed.trim=1 \
        --out "$tmp/out" --json --quiet > "$tmp/user.json" 2> "$tmp/err" &&
   grep -q '"algo": "trimmed"' "$tmp/user.json" && [ -s "$tmp/out/trimmed_seed2_rounds.csv" ] &&
   [ -s "$tmp/out/result.json" ]; then
    echo "ok - a registered user algorithm runs in fglrun with --algo, --set, --seeds, --out"
else
    echo "not ok - a registered user algorithm runs in fglrun"; sed 's/^/#   /' "$tmp/err" | head -5
fi
if $USER --algo trimmed --help | grep -q "trim "; then echo "ok - --help lists a user algorithm's parameters"
else echo "not ok - --help lists a user algorithm's parameters"; fi
# the user's parameter really acts: trim=2 of 5 clients (the median) differs from trim=0 (the mean)
$USER --algo trimmed --data synthetic --clients 5 --rounds 4 --set trim=0 --json --quiet > "$tmp/t0.json" 2>/dev/null
$USER --algo trimmed --data synthetic --clients 5 --rounds 4 --set trim=2 --json --quiet > "$tmp/t2.json" 2>/dev/null
if [ -s "$tmp/t0.json" ] && [ -s "$tmp/t2.json" ] && ! cmp -s "$tmp/t0.json" "$tmp/t2.json"; then echo "ok - --set reaches the user's algorithm"
else echo "not ok - --set reaches the user's algorithm"; fi
# unknown --set keys are errors, with one algorithm or several
for case in "--algo fedpub --set tua=5" "--algo local,fedpub --set tua=5" "--algo local,fedpub --set fedpub.tua=5" \
            "--algo local,fedavg --set fedpub.tau=5"; do
    if $FGLRUN $case --data synthetic --rounds 1 --quiet > /dev/null 2> "$tmp/err"; then
        echo "not ok - fglrun $case must be refused"
    elif grep -q "set" "$tmp/err"; then echo "ok - fglrun $case refused"
    else echo "not ok - fglrun $case: unclear message"; sed 's/^/#   /' "$tmp/err" | head -3; fi
done
# --stop-after without --checkpoint
if $FGLRUN --algo fedavg --data synthetic --rounds 3 --stop-after 1 > /dev/null 2>&1; then echo "not ok - --stop-after without --checkpoint must be refused"
else echo "ok - --stop-after needs --checkpoint"; fi
