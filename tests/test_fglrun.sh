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
strip() { sed 's/"seconds[a-z_]*": [0-9.]*//g' "$1"; }
for algo in $($FGLRUN --help | sed -n 's/^Algorithms://p'); do
    case $algo in
        fedstar|gpfl) args="--task graph --data synthetic --clients 4 --rounds 5 --batch 32" ;;
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
# GPFL's protocol: --split dirichlet-equal --folds F runs every fold (the JSON's last_acc_mean is their
# mean), --fold I one of them (its number is the I-th of the full run's); --out writes the client network
# of each fold as CSV and as an SVG heatmap ordered by dominant label
cv="--task graph --data synthetic --split dirichlet-equal --alpha 0.5 --clients 4 --rounds 2 --batch 32 --json --quiet"
if $FGLRUN --algo gpfl $cv --folds 3 --out "$tmp/cv" > "$tmp/cv.json" 2> "$tmp/err" &&
   $FGLRUN --algo gpfl $cv --folds 3 --fold 1 > "$tmp/cv1.json" 2>> "$tmp/err"; then
    all=$(sed 's/.*"test_acc": \[\([^]]*\)\].*/\1/' "$tmp/cv.json")
    one=$(sed 's/.*"test_acc": \[\([^]]*\)\].*/\1/' "$tmp/cv1.json")
    mean=$(echo "$all" | awk -F', ' '{s = 0; for (i = 1; i <= NF; i++) s += $i; printf "%.6f", s / NF}')
    got=$(sed 's/.*"last_acc_mean": \([0-9.]*\).*/\1/' "$tmp/cv.json")
    if grep -q '"folds": 3, "fold": -1, "runs": 3' "$tmp/cv.json" && grep -q '"selection": "last_round"' "$tmp/cv.json" &&
       [ "$(echo "$all" | cut -d, -f2 | tr -d ' ')" = "$one" ] && [ "$mean" = "$got" ]; then
        echo "ok - fglrun --folds 3 runs three folds, --fold 1 the second of them"
    else
        echo "not ok - fglrun --folds / --fold: [$all] mean $got (computed $mean), fold 1: [$one]"
    fi
    if [ -s "$tmp/cv/gpfl_fold2_seed1_matrix.csv" ] && grep -q "ordered by dominant label" "$tmp/cv/gpfl_fold0_seed1_matrix.svg"; then
        echo "ok - fglrun --out writes GPFL's client network per fold, ordered by dominant label"
    else
        echo "not ok - fglrun --out writes GPFL's client network per fold"; ls "$tmp/cv" | sed 's/^/#   /'
    fi
else
    echo "not ok - fglrun --folds"; sed 's/^/#   /' "$tmp/err" | head -5
fi
if $FGLRUN --algo local --data synthetic --folds 3 --rounds 1 --quiet > /dev/null 2>&1; then echo "not ok - --folds on node data must be refused"
else echo "ok - --folds is for graph data"; fi
# --stop-after without --checkpoint
if $FGLRUN --algo fedavg --data synthetic --rounds 3 --stop-after 1 > /dev/null 2>&1; then echo "not ok - --stop-after without --checkpoint must be refused"
else echo "ok - --stop-after needs --checkpoint"; fi
# --model a,b,c: clients get backbones in blocks; algorithms sharing weights refuse a mix, the others run it
if $FGLRUN --algo fedavg --model gcn,sage --data synthetic --clients 4 --rounds 1 --quiet > /dev/null 2> "$tmp/err"; then
    echo "not ok - fglrun --algo fedavg --model gcn,sage must be refused"
elif grep -q "shares model weights" "$tmp/err" && grep -q "fedpg" "$tmp/err"; then echo "ok - fglrun refuses mixed models for fedavg, naming the algorithms that accept them"
else echo "not ok - fglrun --model gcn,sage with fedavg: unclear message"; sed 's/^/#   /' "$tmp/err" | head -3; fi
if $FGLRUN --algo local,fedproto,fedtgp,fedpg --model gcn,gat,sage,sgc,gcnii --heads 1 --layers 2 --head none --hidden 16 \
        --data synthetic --clients 5 --rounds 2 --stratified > "$tmp/mixed.txt" 2> "$tmp/err" &&
   grep -q "models: 0:gcn 1:gat 2:sage 3:sgc 4:gcnii" "$tmp/mixed.txt"; then
    echo "ok - fglrun runs local, fedproto, fedtgp and fedpg with five backbones in blocks"
else
    echo "not ok - fglrun with five backbones"; sed 's/^/#   /' "$tmp/err" "$tmp/mixed.txt" | head -5
fi
