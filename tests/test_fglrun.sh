#!/bin/sh
# fglrun end to end, on fgl's synthetic data (no datasets needed):
#  - for every registered algorithm (four in make test: see below), a run stopped with --stop-after and
#    resumed from its checkpoint prints the same test_acc, last_acc and bytes
#    as the uninterrupted run;
#  - a user's program that registers an algorithm runs it by name with
#    --algo, --set, --seeds and --out (tests/user_fglrun.c);
#  - unknown --set keys are refused with any number of algorithms;
#  - every result carries its configuration and --config replays it (every
#    algorithm; the comparison catches a changed result; the command line
#    overrides; bench/results lines without a config replay their args;
#    every flag of --help is recorded, and named in README's synopsis;
#    README's table of algorithms follows src/fed/algos/list.h; a DP run
#    without noise records dp_epsilon null and replays);
#  - --checkpoint-every N, and what a killed run leaves: stdout's lines,
#    the per-round CSV and DIR/progress.json, a checkpoint that resumes to
#    the uninterrupted result;
#  - progress lines every --log-every N rounds when stderr is not a terminal;
#  - GPFL's cross-validation (--folds, --fold), FedPG's models (--model a,b,c,
#    --heads, --layers, --head, --stratified) and pFedGNN's public nodes and
#    optimizer (--public-nodes, --optim, --momentum) and --protocol pfedgnn-authors (its measures
#    beside plain accuracy, which they leave unchanged) are recorded with their
#    values and replayed identically by --config;
#  - FedPG's val_centres=1 warns and marks its result ("label_leakage"),
#    and it and target_scale=authors are recorded and replayed;
#  - --task link: AUC and Hits@K in the result, resume and replay, the
#    per-round CSV's columns val_auc, test_auc and the plots' labels AUC;
#    a class method refused with the reason.
#  - one result shape (record version 2: "runs" always, per-run scalars in
#    per_run, a link run's test_auc); version-1 records still replay.
# Usage: tests/test_fglrun.sh BUILD_DIR (holding fglrun and tests/user_fglrun)
B=${1:-build}
FGLRUN=$B/fglrun
USER=$B/tests/user_fglrun
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
runs_of() { grep -o "\"$1\": [^,}]*" "$2" | sed "s/.*: //"; } # NAME FILE: each run's NAME (result.json's per_run), one a line
# the result without its timing and its record (which names the command line)
strip() { sed 's/"seconds[a-z_]*": [0-9.]*//g; s/, "\(peak\|data\)_rss_mb": [0-9.]*//g; s/, "config": .*$/}/' "$1"; }
# every algorithm with FGL_TEST_LONG set (make test-long, CI); else (make test) four that take the
# different paths: a plain one, GCFL's clustering, FedStar's graph task, FED-PUB's masks
algos=$($FGLRUN --help | sed -n 's/^Algorithms://p')
if [ -z "$FGL_TEST_LONG" ]; then
    echo "# $(basename "$0"): fedavg gcfl fedstar fedpub of$(echo "$algos" | wc -w | sed 's/^/ /') algorithms;" \
         "make test-long (FGL_TEST_LONG=1) takes every one"
    algos="fedavg gcfl fedstar fedpub"
fi
for algo in $algos; do
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
    # its own record replays it: --config compares and must find the result identical
    if $FGLRUN --config "$tmp/full.json" --json --quiet > "$tmp/replay.json" 2> "$tmp/err" &&
       [ "$(strip $tmp/full.json)" = "$(strip $tmp/replay.json)" ]; then
        echo "ok - fglrun --config replays $algo from its recorded configuration"
    else
        echo "not ok - fglrun --config replays $algo from its recorded configuration"; sed 's/^/#   /' "$tmp/err" | head -5
    fi
done
# DP's Poisson draw may leave the coming round without participants: a checkpoint taken then resumes (it
# was refused as "0 participants"), to the uninterrupted run's result (secrets from a secret seed)
dp="--algo fedavg --data synthetic --clients 3 --rounds 6 --frac 0.2 --dp clip=1,noise=0.5 --secret-seed 7 --seed 1"
rm -f "$tmp/dpck"
if $FGLRUN $dp --json --quiet > "$tmp/dpfull.json" 2> "$tmp/err" &&
   $FGLRUN $dp --json --quiet --checkpoint "$tmp/dpck" --stop-after 3 > /dev/null 2>> "$tmp/err" &&
   $FGLRUN $dp --json --quiet --checkpoint "$tmp/dpck" > "$tmp/dpres.json" 2>> "$tmp/err" &&
   [ "$(strip "$tmp/dpfull.json")" = "$(strip "$tmp/dpres.json")" ]
then echo "ok - DP resumes from a checkpoint whose coming round has no participants"
else echo "not ok - DP resumed after an empty draw"; sed 's/^/#   /' "$tmp/err" | head -3; fi
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
    all=$(runs_of test_acc "$tmp/cv.json" | paste -sd, - | sed 's/,/, /g') # each run's own (per_run)
    one=$(runs_of test_acc "$tmp/cv1.json")
    mean=$(echo "$all" | awk -F', ' '{s = 0; for (i = 1; i <= NF; i++) s += $i; printf "%.6f", s / NF}')
    got=$(sed 's/.*"last_acc_mean": \([0-9.]*\).*/\1/' "$tmp/cv.json")
    if grep -q '"folds": 3, "fold": -1, "run_count": 3' "$tmp/cv.json" && grep -q '"selection": "last_round"' "$tmp/cv.json" &&
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
# the flags of GPFL, FedPG and pFedGNN in the record, and --config replays their runs
# replay LABEL RECORD PATTERN...: the record holds each pattern, and --config RECORD finds the same result
replay() {
    r_label=$1; r_rec=$2; shift 2
    r_missing=
    for r_p in "$@"; do grep -qF -- "$r_p" "$r_rec" || r_missing="$r_missing $r_p"; done
    if [ -n "$r_missing" ]; then
        echo "not ok - $r_label: the record lacks$r_missing"; return
    fi
    if $FGLRUN --config "$r_rec" --json 2> "$tmp/rerr" | tail -n 1 > "$tmp/re.json" && grep -q "identical to the record" "$tmp/rerr" &&
       [ "$(strip "$r_rec")" = "$(strip "$tmp/re.json")" ]; then
        echo "ok - $r_label: recorded and replayed identically by --config"
    else
        echo "not ok - $r_label: --config replays it"; sed 's/^/#   /' "$tmp/rerr" | grep -v ' round ' | head -5
    fi
}
# every defence and every task replays from its record (issue 50): the record holds the configuration the
# run used (under --secagg, screening off), and a DP run given --secret-seed S replays when S is given again
i=0
for d in "--secagg" "--secagg --secagg-dropout 0.3 --secagg-threshold 3" "--dp clip=1,noise=1 --frac 0.6 --secret-seed 7" \
         "--robust median" "--attack signflip --attackers 0.2 --robust trimmed:1" "--task graph --batch 32" "--task link"; do
    i=$((i + 1))
    if $FGLRUN --algo fedavg --data synthetic --clients 5 --rounds 3 $d --json --quiet > "$tmp/def$i.json" 2> "$tmp/err"; then
        case $d in
            *secret-seed*)
                if $FGLRUN --config "$tmp/def$i.json" --secret-seed 7 --json --quiet 2> "$tmp/rerr" | tail -n 1 > "$tmp/re.json" &&
                   grep -q "identical to the record" "$tmp/rerr"; then echo "ok - $d: replayed identically with the same --secret-seed"
                else echo "not ok - $d: replayed with the same --secret-seed"; sed 's/^/#   /' "$tmp/rerr" | head -5; fi
                $FGLRUN --config "$tmp/def$i.json" --json --quiet 2> "$tmp/rerr" > /dev/null
                if grep -q "give it again" "$tmp/rerr"; then echo "ok - $d: a replay without S says to give it again"
                else echo "not ok - $d: a replay without S says why it differs"; sed 's/^/#   /' "$tmp/rerr" | head -3; fi ;;
            *) replay "$d" "$tmp/def$i.json" '"algo": "fedavg"' ;;
        esac
    else echo "not ok - fglrun $d"; sed 's/^/#   /' "$tmp/err" | head -3; fi
done
grep -qF '"screen": 0' "$tmp/def1.json" && echo "ok - a --secagg run records screening off (as it ran)" ||
    echo "not ok - a --secagg run records screening off: $(grep -o '"screen": [^,]*' "$tmp/def1.json")"
# a DP run without --secret-seed cannot replay (entropy noise): the message says so and why
if $FGLRUN --algo fedavg --data synthetic --clients 5 --rounds 3 --dp clip=1,noise=1 --frac 0.6 --json --quiet > "$tmp/dpe.json" 2> "$tmp/err"; then
    $FGLRUN --config "$tmp/dpe.json" --json --quiet 2> "$tmp/rerr" > /dev/null
    if grep -q "differs from the record as it must: under --dp the noise" "$tmp/rerr"; then echo "ok - a DP replay without --secret-seed explains the entropy noise"
    else echo "not ok - a DP replay without --secret-seed explains why it differs"; sed 's/^/#   /' "$tmp/rerr" | head -3; fi
else echo "not ok - fglrun --dp without --secret-seed"; fi
if $FGLRUN --algo gpfl,fedavg $cv --folds 3 > "$tmp/cvr.json" 2> "$tmp/err"; then
    replay "gpfl and fedavg over --folds 3" "$tmp/cvr.json" '"folds": 3, "fold": null' '"split": "dirichlet-equal"' '"selection": "last_round"'
else echo "not ok - fglrun --folds 3 with two algorithms"; sed 's/^/#   /' "$tmp/err" | head -3; fi
if $FGLRUN --algo gpfl $cv --folds 3 --fold 1 --seeds 2 > "$tmp/cvr1.json" 2> "$tmp/err"; then
    replay "gpfl --folds 3 --fold 1 --seeds 2" "$tmp/cvr1.json" '"folds": 3, "fold": 1' '"run_count": 2'
else echo "not ok - fglrun --folds 3 --fold 1 --seeds 2"; sed 's/^/#   /' "$tmp/err" | head -3; fi
# the backbone options (issue 52): recorded, replayed bit for bit, and they change the result
bb="--algo fedbn --data synthetic --clients 3 --rounds 2 --model sage --json --quiet"
if $FGLRUN $bb --residual --norm batch > "$tmp/bb.json" 2> "$tmp/err" && $FGLRUN $bb > "$tmp/bb0.json" 2>> "$tmp/err"; then
    replay "fedbn sage --residual --norm batch" "$tmp/bb.json" '"residual": true, "norm": "batch"' \
        '"residual": false, "norm": "none"'
    if [ "$(strip $tmp/bb.json)" = "$(strip $tmp/bb0.json)" ]; then echo "not ok - --residual --norm batch changes nothing"; fi
else echo "not ok - fglrun --residual --norm batch"; sed 's/^/#   /' "$tmp/err" | head -3; fi
# OpenFGL's simulations (issue 52): each split recorded and replayed bit for bit, its parameters in the record
# and acting; the splits a task cannot take, and impossible requests, refused with a reason
for sp in louvain-plus metis-plus label-skew topology-skew feature-skew graph-label-skew; do
    case $sp in
        topology-skew|feature-skew) sa="--task graph --split $sp --batch 32" ;;
        graph-label-skew) sa="--task graph --split label-skew --batch 32" ;;
        *) sa="--split $sp" ;;
    esac
    if $FGLRUN --algo fedavg --data synthetic $sa --clients 4 --rounds 2 --resolution 2 --metis-parts 12 --json --quiet \
        > "$tmp/sim.json" 2> "$tmp/err"; then
        replay "--split $sp" "$tmp/sim.json" "\"split\": \"${sp#graph-}\"" '"resolution": 2' '"metis-parts": 12'
    else echo "not ok - fglrun --split $sp"; sed 's/^/#   /' "$tmp/err" | head -3; fi
done
sim="--algo fedavg --data synthetic --split louvain-plus --clients 4 --rounds 2 --json --quiet"
if $FGLRUN $sim --resolution 2 > "$tmp/r2.json" 2> "$tmp/err" && $FGLRUN $sim > "$tmp/r1.json" 2>> "$tmp/err" &&
   [ "$(strip $tmp/r1.json)" != "$(strip $tmp/r2.json)" ]; then echo "ok - louvain-plus: --resolution changes the split"
else echo "not ok - louvain-plus: --resolution changes nothing"; sed 's/^/#   /' "$tmp/err" | head -3; fi
refuse() { # LABEL PATTERN ARGS...: fglrun fails, saying PATTERN
    r_label=$1; r_pat=$2; shift 2
    if $FGLRUN "$@" --rounds 1 --quiet > /dev/null 2> "$tmp/err"; then echo "not ok - $r_label: accepted"
    elif grep -qF -- "$r_pat" "$tmp/err"; then echo "ok - $r_label: refused"
    else echo "not ok - $r_label: refused without saying '$r_pat'"; sed 's/^/#   /' "$tmp/err" | head -3; fi
}
refuse "topology-skew of a node graph" "not for node classification" --data synthetic --split topology-skew
refuse "louvain-plus of graphs" "not for one graph set" --task graph --data synthetic --split louvain-plus
refuse "metis-plus, fewer parts than clients" "METIS parts" --data synthetic --split metis-plus --clients 8 --metis-parts 5
refuse "louvain-plus, more clients than communities" "Louvain communities" --data synthetic --split louvain-plus --clients 500
refuse "label-skew, an unreachable minimum" "--alpha" --data synthetic --split label-skew --clients 50 --alpha 0.01 \
    --min-per-client 55
refuse "feature-skew, more clients than graphs" "clients for" --task graph --data synthetic --split feature-skew \
    --clients 601
pn="--algo pfedgnn --data synthetic --clients 4 --rounds 3 --public-nodes 120 --json --quiet"
if $FGLRUN $pn --optim sgd --momentum 0.9 --hidden 16 --head none > "$tmp/pn.json" 2> "$tmp/err" &&
   $FGLRUN $pn > "$tmp/pn_adam.json" 2>> "$tmp/err"; then
    replay "pfedgnn --public-nodes 120 --optim sgd --momentum 0.9" "$tmp/pn.json" '"public-nodes": 120' '"optim": "sgd"' \
        '"momentum": 0.9' '"hidden": 16' '"head": "none"' '"public-nodes": 0'
    replay "pfedgnn --public-nodes 120 (Adam, no momentum)" "$tmp/pn_adam.json" '"optim": "adam"' '"momentum": null'
    if [ "$(strip $tmp/pn.json)" = "$(strip $tmp/pn_adam.json)" ]; then echo "not ok - --optim sgd changes nothing"; fi
else echo "not ok - fglrun pfedgnn --public-nodes"; sed 's/^/#   /' "$tmp/err" | head -3; fi
# the measures of fglrun/protocol.c (issue 37): --protocol pfedgnn-authors records every flag it set and
# replays bit for bit (the measures' per-seed lists compared too); the measures change no plain figure
pa="--data synthetic --clients 4 --rounds 3 --local-epochs 2 --public-nodes 120 --json --quiet"
if $FGLRUN --algo pfedgnn $pa --protocol pfedgnn-authors --rounds 3 --local-epochs 2 --clients 4 --public-nodes 120 \
       --seeds 2 > "$tmp/pa.json" 2> "$tmp/err"; then
    replay "--protocol pfedgnn-authors" "$tmp/pa.json" '"protocol": "pfedgnn-authors"' '"test-first": true' \
        '"metric": "personalized"' '"select": "per-client"' '"val": "public"' '"selection": "best_public"' \
        '"per_client_personalized_acc": 0.' '"pfedgnn.alpha=0"' '"pfedgnn.lam=0.01"'
else echo "not ok - fglrun --protocol pfedgnn-authors"; sed 's/^/#   /' "$tmp/err" | head -3; fi
if $FGLRUN --algo fedavg $pa > "$tmp/m0.json" 2> "$tmp/err" &&
   $FGLRUN --algo fedavg $pa --metric personalized --select per-client > "$tmp/m1.json" 2>> "$tmp/err"; then
    m0=$(grep -o '"test_acc": [^,}]*\|"val_acc_mean": [0-9.]*\|"bytes_up": [0-9]*\|"bytes_down": [0-9]*' "$tmp/m0.json" | tr '\n' ' ')
    m1=$(grep -o '"test_acc": [^,}]*\|"val_acc_mean": [0-9.]*\|"bytes_up": [0-9]*\|"bytes_down": [0-9]*' "$tmp/m1.json" | tr '\n' ' ')
    if [ -n "$m0" ] && [ "$m0" = "$m1" ] && grep -q '"personalized_acc_mean": 0\.' "$tmp/m1.json"; then
        echo "ok - --metric personalized --select per-client: plain accuracy and bytes unchanged, the measures beside"
    else echo "not ok - the measures change plain accuracy or bytes: $m0 / $m1"; fi
else echo "not ok - fglrun --metric personalized"; sed 's/^/#   /' "$tmp/err" | head -3; fi
# the measures are the same bits at any thread count
if $FGLRUN --algo pfedgnn $pa --protocol pfedgnn-authors --threads 1 > "$tmp/t1.json" 2> "$tmp/err" &&
   $FGLRUN --algo pfedgnn $pa --protocol pfedgnn-authors --threads 2 > "$tmp/t2.json" 2>> "$tmp/err" &&
   [ "$(strip "$tmp/t1.json")" = "$(strip "$tmp/t2.json")" ]; then
    echo "ok - --protocol pfedgnn-authors: the same bits with 1 and 2 threads"
else echo "not ok - --protocol pfedgnn-authors differs between 1 and 2 threads"; fi
# pfedgnn's lam term: u_i goes down each round once the graph is complete (more bytes down), and it trains
if $FGLRUN --algo pfedgnn $pa --set lam=0 > "$tmp/l0.json" 2> "$tmp/err" &&
   $FGLRUN --algo pfedgnn $pa --set lam=5 > "$tmp/l1.json" 2>> "$tmp/err"; then
    d0=$(sed 's/.*"bytes_down": \([0-9]*\).*/\1/' "$tmp/l0.json"); d1=$(sed 's/.*"bytes_down": \([0-9]*\).*/\1/' "$tmp/l1.json")
    if [ "$d1" -gt "$d0" ] && [ "$(strip "$tmp/l0.json" | sed 's/"bytes_down[^,]*//')" != \
                                "$(strip "$tmp/l1.json" | sed 's/"bytes_down[^,]*//')" ]; then
        echo "ok - pfedgnn lam=5: u_i sent down ($d1 bytes against $d0) and the training changes"
    else echo "not ok - pfedgnn lam: bytes down $d0 / $d1"; fi
else echo "not ok - fglrun pfedgnn --set lam"; sed 's/^/#   /' "$tmp/err" | head -3; fi
if ! $FGLRUN --algo fedavg --data synthetic --clients 4 --rounds 2 --val public --quiet > /dev/null 2> "$tmp/err" &&
   grep -q "val public selects on the server's public nodes, but this scenario has none" "$tmp/err"; then
    echo "ok - --val public without public nodes is refused with a message"
else echo "not ok - --val public without public nodes: $(head -n 1 "$tmp/err")"; fi
# a list of models round-trips; GCNII's 8 layers are its own (layers null: each architecture's default)
mx="--algo local,fedpg --data synthetic --clients 5 --rounds 2 --stratified --json --quiet"
if $FGLRUN $mx --model gcn,gat,sage,sgc,gcnii --heads 2 > "$tmp/mx.json" 2> "$tmp/err" &&
   $FGLRUN $mx --model gcn,gat,sage,sgc,gcnii --heads 1 --layers 2 --head none > "$tmp/mx2.json" 2>> "$tmp/err"; then
    replay "fedpg with --model gcn,gat,sage,sgc,gcnii" "$tmp/mx.json" '"model": "gcn,gat,sage,sgc,gcnii"' '"layers": null' \
        '"heads": 2' '"stratified": true'
    replay "fedpg with five models, --heads 1 --layers 2 --head none" "$tmp/mx2.json" '"model": "gcn,gat,sage,sgc,gcnii"' \
        '"layers": 2' '"heads": 1' '"head": "none"'
    if [ "$(strip $tmp/mx.json)" = "$(strip $tmp/mx2.json)" ]; then echo "not ok - --layers 2 on GCNII changes nothing"; fi
else echo "not ok - fglrun with a list of models"; sed 's/^/#   /' "$tmp/err" | head -3; fi

# --- run records and replay ---
A="--algo fedavg,fedprox --data synthetic --clients 4 --rounds 4 --local-epochs 2 --seeds 2 --set fedprox.mu=0.5"
$FGLRUN $A --json --quiet --out "$tmp/rec" > "$tmp/rec.json" 2> "$tmp/err"
if [ -s "$tmp/rec/config" ] && grep -q '"fedprox.mu": 0.5' "$tmp/rec/config" && grep -q '"fgl_version": "' "$tmp/rec.json" &&
   grep -q '"lr": 0.01' "$tmp/rec.json" && grep -q '"local-epochs": 2' "$tmp/rec.json"; then
    echo "ok - the result records every flag, the algorithms' parameters and the version (JSON and DIR/config)"
else
    echo "not ok - the result records its configuration"; sed 's/^/#   /' "$tmp/err" | head -5
fi
# one result shape (record version 2): --json and result.json are always {"result_version": 2, "runs":
# [ROW...]}, each run's figures scalars in its ROW's per_run (no per-seed lists), a link ROW names its
# AUC test_auc and has no *_acc; records of version 1 (a bare ROW, per-seed lists, a link AUC as
# test_acc) still replay identically
$FGLRUN --algo fedavg --data synthetic --clients 4 --rounds 2 --seeds 2 --json --quiet > "$tmp/one.json" 2> "$tmp/err"
$FGLRUN --algo fedavg --task link --data synthetic --clients 4 --rounds 2 --json --quiet > "$tmp/lk.json" 2>> "$tmp/err"
if grep -q '^{"result_version": 2, "runs": \[{"algo": "fedavg", ' "$tmp/one.json" &&
   grep -q '"per_run": \[{"seed": 1, "test_acc": 0\.[0-9]*, "last_acc": ' "$tmp/one.json" &&
   [ "$(runs_of test_acc "$tmp/one.json" | wc -l)" = 2 ] && [ "$(runs_of bytes_up "$tmp/one.json" | wc -l)" = 3 ] &&
   ! grep -q '"test_acc": \[\|"test_f1": \[' "$tmp/one.json" &&
   grep -q '^{"result_version": 2, "runs": \[{"algo": "fedavg", ' "$tmp/lk.json" &&
   grep -q '"test_auc_mean": 0\.' "$tmp/lk.json" && grep -q '"test_hits_mean": 0\.' "$tmp/lk.json" &&
   [ "$(runs_of test_auc "$tmp/lk.json" | wc -l)" = 1 ] && ! grep -q '"\(test\|last\|val\)_acc' "$tmp/lk.json"; then
    echo "ok - one result shape: \"runs\" for one algorithm too, per-run scalars in per_run, a link run's test_auc"
else echo "not ok - the result's shape: $(cut -c1-300 "$tmp/one.json") / $(cut -c1-300 "$tmp/lk.json")"; fi
# a version-1 record, as fglrun wrote one before: this run's ROW bare, its per-run scores as a list
# (a link run's AUC under test_acc, its last-round mean as last_acc_mean), no per_run
v1() { # FILE: the version-1 form of a one-algorithm result
    list=$(runs_of "$2" "$1" | paste -sd, - | sed 's/,/, /g')
    sed -e 's/^{"result_version": 2, "runs": \[{/{/' -e "s/, \"per_run\": \[.*\]}\], \"config\": /, \"test_acc\": [$list], \"config\": /" \
        -e 's/"last_auc_mean"/"last_acc_mean"/' "$1"
}
v1 "$tmp/one.json" test_acc > "$tmp/one_v1.json"; v1 "$tmp/lk.json" test_auc > "$tmp/lk_v1.json"
for r in one_v1 lk_v1; do
    if grep -q '^{"algo": "fedavg", .*"test_acc": \[0\.[0-9]*[],]' "$tmp/$r.json" && ! grep -q '"per_run"' "$tmp/$r.json" &&
       $FGLRUN --config "$tmp/$r.json" --quiet > /dev/null 2> "$tmp/err" && grep -q "identical to the record" "$tmp/err"; then
        echo "ok - a version-1 record (a bare row, per-seed lists) replays identically: $r"
    else echo "not ok - the version-1 record $r does not replay: $(cut -c1-200 "$tmp/$r.json")"; sed 's/^/#   /' "$tmp/err" | head -5; fi
    # and a changed figure in it is found
    sed 's/"test_acc": \[0\.\([0-9]\)/"test_acc": [0.9\1/' "$tmp/$r.json" > "$tmp/${r}_bad.json"
    if ! $FGLRUN --config "$tmp/${r}_bad.json" --quiet > /dev/null 2> "$tmp/err" && grep -q "differs from the record" "$tmp/err"; then
        echo "ok - a version-1 record whose test_acc differs fails the replay: $r"
    else echo "not ok - a changed version-1 record $r replayed as identical"; fi
done
# a client with no validation or test node (train 99.8%: 300-node clients keep 0 or 1 of each) is no
# failed evaluation, also for the algorithms that predict their own class scores (fggp: FGL's eval_scores
# path, which stopped the run with an empty reason before; chameleon_filtered's small Louvain clients on
# its fixed split 0 met it)
if $FGLRUN --algo fggp,fedavg --data synthetic --clients 10 --rounds 2 --train-frac 0.998 --val-frac 0.001 --json \
       --quiet > "$tmp/empty.json" 2> "$tmp/err" && grep -q '"algo": "fggp".*"algo": "fedavg"' "$tmp/empty.json"; then
    echo "ok - clients without validation or test nodes: fggp and fedavg run to the end"
else echo "not ok - a client without validation or test nodes stops the run"; sed 's/^/#   /' "$tmp/err" | head -3; fi
# every flag of --help is recorded (a new flag must be added to the record)
missing=
for f in $($FGLRUN --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    case $f in --help|--set|--version) continue ;; esac
    grep -q "\"${f#--}\": " "$tmp/rec/config" || missing="$missing $f"
done
if [ -z "$missing" ]; then echo "ok - every flag of --help is in the recorded configuration"
else echo "not ok - flags missing from the recorded configuration:$missing (add them to its row of the option table in examples/fglrun/options.c)"; fi
# README's synopsis of fglrun names every flag of --help
if [ -f README.md ]; then
    syn=$(awk '/^## fglrun/ {f = 1} f && /^```$/ {n++; if (n == 2) exit; next} f && n == 1' README.md)
    missing=
    for f in $($FGLRUN --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        case $f in --help) continue ;; esac
        echo "$syn" | grep -q -- "\[$f[] ]" || missing="$missing $f"
    done
    if [ -n "$syn" ] && [ -z "$missing" ]; then echo "ok - README's fglrun synopsis names every flag of --help"
    else echo "not ok - README's fglrun synopsis lacks:${missing:- (no synopsis found)}"; fi
fi
# README's table of algorithms names every built-in one, in the order of
# src/fed/algos/list.h (the registry's, which --help prints)
if [ -f README.md ]; then
    table=$(awk '/^## Algorithms/ { f = 1; next } /^## / { f = 0 } f && /^\| `/' README.md |
            sed 's/^| \([^|]*\)|.*/\1/' | grep -o '`[a-z0-9]*`' | tr -d '`' | tr '\n' ' ' | sed 's/ $//')
    listed=$($FGLRUN --help | sed -n 's/^Algorithms: //p')
    if [ -n "$listed" ] && [ "$table" = "$listed" ]; then echo "ok - README's table of algorithms follows the list"
    else echo "not ok - README's table of algorithms: '$table', the list: '$listed'"; fi
fi
for rec in "$tmp/rec.json" "$tmp/rec/result.json"; do
    if $FGLRUN --config "$rec" --json 2> "$tmp/err" | tail -n 1 > "$tmp/re.json" && grep -q "identical to the record" "$tmp/err" &&
       [ "$(strip $tmp/rec.json)" = "$(strip $tmp/re.json)" ]; then
        echo "ok - --config $(basename $rec): two algorithms, two seeds, a --set, replayed identically"
    else
        echo "not ok - --config $(basename $rec) replays the run"; sed 's/^/#   /' "$tmp/err" | head -5
    fi
done
# a record whose result differs from what the replay gives is reported
sed 's/"test_acc": 0\.\([0-9]\)/"test_acc": 0.9\1/' "$tmp/rec.json" > "$tmp/bad.json"
if ! cmp -s "$tmp/rec.json" "$tmp/bad.json" && ! $FGLRUN --config "$tmp/bad.json" --quiet > /dev/null 2> "$tmp/err" &&
   grep -q "differs from the record" "$tmp/err"; then
    echo "ok - a replay that does not reproduce the recorded result fails (exit status 1)"
else
    echo "not ok - a replay that does not reproduce the recorded result must fail"
fi
# flags after --config override it (and then nothing is compared)
if $FGLRUN --config "$tmp/rec/config" --rounds 2 --algo fedprox --json --quiet > "$tmp/o.json" 2> "$tmp/err" &&
   grep -q '"algo": "fedprox", .*"rounds": 2,' "$tmp/o.json" && grep -q '"fedprox.mu": 0.5' "$tmp/o.json"; then
    echo "ok - command-line flags override --config (the record's --set of the algorithm kept)"
else
    echo "not ok - command-line flags override --config"; sed 's/^/#   /' "$tmp/err" | head -5
fi
# a bench/results line: --row picks it; without a config its "args" are replayed
plain=$($FGLRUN --algo fedavg --data synthetic --clients 4 --rounds 3 --json --quiet | sed 's/, "config": .*$/}/')
{ echo '{"label": "other", "args": "--algo local --data synthetic", "result": {}}'
  echo "{\"label\": \"old fedavg\", \"commit\": \"x\", \"args\": \"--algo fedavg --data synthetic --clients 4 --rounds 3\", \"result\": $plain}"
  echo "{\"label\": \"new fedavg\", \"commit\": \"x\", \"args\": \"\", \"result\": $(cat $tmp/rec.json)}"; } > "$tmp/rows.jsonl"
if $FGLRUN --config "$tmp/rows.jsonl" --row "old fedavg" > /dev/null 2> "$tmp/err" && grep -q 'replaying its "args"' "$tmp/err" &&
   grep -q "identical to the record" "$tmp/err" &&
   $FGLRUN --config "$tmp/rows.jsonl" --row "new fedavg" > /dev/null 2> "$tmp/err2" && grep -q "identical to the record" "$tmp/err2"; then
    echo "ok - --config FILE.jsonl --row LABEL replays a bench/results line (its config, or its args without one)"
else
    echo "not ok - --config FILE.jsonl --row LABEL"; sed 's/^/#   /' "$tmp/err" "$tmp/err2" 2> /dev/null | head -6
fi
if ! $FGLRUN --config "$tmp/rows.jsonl" > /dev/null 2> "$tmp/err" && grep -q -- "--row" "$tmp/err" &&
   ! $FGLRUN --config "$tmp/rows.jsonl" --row nothing > /dev/null 2>&1; then
    echo "ok - a JSON Lines file needs --row, and an unknown label is refused"
else
    echo "not ok - a JSON Lines file needs --row, and an unknown label is refused"
fi

# --- progress, partial results, --checkpoint-every, a killed run ---
$FGLRUN --algo fedavg --data synthetic --clients 4 --rounds 5 --log-every 2 > /dev/null 2> "$tmp/log"
n=$(grep -c '^fglrun: fedavg seed 1 round [245]/5  val .* test .* loss .* sent .* MB  elapsed .*  ETA ' "$tmp/log")
if [ "$n" = 3 ] && [ "$(grep -c ' round ' "$tmp/log")" = 3 ]; then echo "ok - --log-every 2 of 5 rounds: lines at rounds 2, 4, 5 with accuracy, loss, MB, elapsed, ETA"
else echo "not ok - --log-every 2: $n of 3 progress lines"; sed 's/^/#   /' "$tmp/log" | head -5; fi
K="--algo fedavg --data synthetic --clients 4 --rounds 100 --local-epochs 2"
$FGLRUN $K --json --quiet > "$tmp/k_full.json" 2>/dev/null
rm -rf "$tmp/k" "$tmp/kout"
$FGLRUN $K --checkpoint "$tmp/k" --checkpoint-every 20 --out "$tmp/kout" > "$tmp/k.out" 2> "$tmp/k.err" &
pid=$!
i=0
until grep -q '"rounds_done": \([3-9][0-9]\)' "$tmp/kout/progress.json" 2> /dev/null || [ $i -ge 600 ]; do sleep 0.1; i=$((i + 1)); done
kill -9 $pid 2> /dev/null; wait $pid 2> /dev/null
done_r=$(sed -n 's/.*"rounds_done": \([0-9]*\).*/\1/p' "$tmp/kout/progress.json" 2> /dev/null)
rows=$(($(wc -l < "$tmp/kout/fedavg_seed1_rounds.csv" 2> /dev/null || echo 1) - 1))
if [ -n "$done_r" ] && [ "$done_r" -ge 30 ] && [ "$done_r" -lt 100 ] && grep -q '"status": "running"' "$tmp/kout/progress.json" &&
   [ "$rows" -ge $((4 * done_r)) ] && grep -q "^synthetic: node classification" "$tmp/k.out" && [ ! -e "$tmp/kout/result.json" ]; then
    echo "ok - a run killed after round $done_r left its stdout lines, progress.json (running) and the CSV of $rows rows"
else
    echo "not ok - what a killed run leaves (rounds done '$done_r', CSV rows $rows)"; head -3 "$tmp/k.out" | sed 's/^/#   /'
fi
$FGLRUN $K --checkpoint "$tmp/k" --checkpoint-every 20 --json 2> "$tmp/k.err" | tail -n 1 > "$tmp/k_res.json"
at=$(sed -n 's/.*resumed .* at round \([0-9]*\).*/\1/p' "$tmp/k.err")
if [ -n "$at" ] && [ $((at % 20)) = 0 ] && [ "$at" -ge 20 ] && [ "$at" -le "$done_r" ] &&
   [ "$(strip $tmp/k_full.json)" = "$(strip $tmp/k_res.json)" ]; then
    echo "ok - --checkpoint-every 20: the killed run resumed at round $at and ended as the uninterrupted one"
else
    echo "not ok - --checkpoint-every 20: resumed at '$at' (killed after $done_r)"; sed 's/^/#   /' "$tmp/k.err" | head -3
fi

# FedProx is FedAvg to the bit with one full-batch local step a round (RESULTS.md), not with two
same_as_fedavg() { # local epochs: 0 if fedprox (mu=1) gives FedAvg's result
    $FGLRUN --algo fedavg --data synthetic --clients 4 --rounds 4 --local-epochs $1 --json --quiet | sed 's/"algo": "fedavg", //; s/"seconds[a-z_]*": [0-9.]*//g; s/, "\(peak\|data\)_rss_mb": [0-9.]*//g; s/, "config": .*$/}/' > "$tmp/pa.json"
    $FGLRUN --algo fedprox --set mu=1 --data synthetic --clients 4 --rounds 4 --local-epochs $1 --json --quiet | sed 's/"algo": "fedprox", //; s/"seconds[a-z_]*": [0-9.]*//g; s/, "\(peak\|data\)_rss_mb": [0-9.]*//g; s/, "config": .*$/}/' > "$tmp/pb.json"
    [ -s "$tmp/pa.json" ] && cmp -s "$tmp/pa.json" "$tmp/pb.json"
}
if same_as_fedavg 1 && ! same_as_fedavg 2; then echo "ok - fedprox (mu=1) is fedavg with 1 local epoch (one full-batch step), not with 2"
else echo "not ok - fedprox (mu=1) is fedavg with 1 local epoch, not with 2"; fi

# --data names a dataset; a directory (a path) is read directly, and a name in
# the wrong case gets the right one suggested (needs MUTAG under FGL_DATA)
D=${FGL_DATA:-data}
if [ -r "$D/tu/MUTAG/MUTAG_A.txt" ]; then
    a="--algo local --rounds 2 --clients 3"
    $FGLRUN $a --data MUTAG --data-dir "$D" --json --quiet > "$tmp/byname.json" 2> "$tmp/err"
    $FGLRUN $a --data "$D/tu/MUTAG/" --data-dir /nonexistent --json --quiet > "$tmp/bypath.json" 2>> "$tmp/err"
    if [ -s "$tmp/byname.json" ] && [ "$(strip $tmp/byname.json)" = "$(strip $tmp/bypath.json)" ]; then
        echo "ok - --data DIR reads that dataset directory (the same result as by name)"
    else echo "not ok - --data DIR reads that dataset directory"; sed 's/^/#   /' "$tmp/err" | head -3; fi
    $FGLRUN --config "$tmp/bypath.json" --data-dir /nonexistent --json --quiet > "$tmp/replay.json" 2> "$tmp/err"
    if [ $? = 0 ] && [ "$(strip $tmp/bypath.json)" = "$(strip $tmp/replay.json)" ]; then
        echo "ok - a record of --data DIR replays"
    else echo "not ok - a record of --data DIR replays"; sed 's/^/#   /' "$tmp/err" | head -3; fi
    if ! $FGLRUN $a --data mutag --data-dir "$D" --quiet 2> "$tmp/err" > /dev/null && grep -q "did you mean 'MUTAG'" "$tmp/err"; then
        echo "ok - --data mutag: 'did you mean MUTAG?'"
    else echo "not ok - --data mutag suggests MUTAG: $(cat $tmp/err)"; fi
    if ! $FGLRUN $a --data /tmp --quiet 2> "$tmp/err" > /dev/null && grep -q "holds neither" "$tmp/err"; then
        echo "ok - --data on a directory without a dataset says what it looked for"
    else echo "not ok - --data on a directory without a dataset: $(cat $tmp/err)"; fi
else
    echo "skip - --data DIR and name suggestions # no data: $D/tu/MUTAG"
fi
# DP without noise has no finite epsilon: the record says null and why (JSON
# has no infinity), and fglrun replays its own record
if $FGLRUN --algo fedavg --data synthetic --clients 4 --rounds 2 --dp clip=1,noise=0 --json --quiet > "$tmp/dp0.json" 2> "$tmp/err" &&
   grep -q '"dp_epsilon_note": "no finite epsilon' "$tmp/dp0.json" && grep -q '"dp_epsilon": null' "$tmp/dp0.json" &&
   ! grep -qE ': -?(inf|nan)[,}]' "$tmp/dp0.json" &&
   $FGLRUN --config "$tmp/dp0.json" > /dev/null 2> "$tmp/err" && grep -q "identical to the record" "$tmp/err"; then
    echo "ok - DP without noise: dp_epsilon null with its reason, and the record replays"
else echo "not ok - DP without noise: $(grep -o '"dp_epsilon[^,]*' "$tmp/dp0.json") $(tail -n 1 "$tmp/err")"; fi
# FedPG's reproduction options: val_centres=1 (the authors' label leakage) warns on stderr even with
# --quiet and marks the result; both options are recorded (target_scale by name) and the record
# replays identically; the default run carries no mark and differs from the leaky one
pg="--algo fedpg --data synthetic --clients 4 --rounds 3 --stratified --json --quiet"
if $FGLRUN $pg --set val_centres=1 --set target_scale=authors > "$tmp/pgleak.json" 2> "$tmp/err" &&
   grep -q "warning: fedpg: val_centres=1: validation labels train the prototypes (label leakage" "$tmp/err" &&
   grep -q '"label_leakage": "val_centres=1: ' "$tmp/pgleak.json" &&
   grep -q '"fedpg.val_centres": 1, "fedpg.target_scale": "authors"' "$tmp/pgleak.json" &&
   grep -q '"fedpg.val_centres": 0, "fedpg.target_scale": "fgl"' "$tmp/pgleak.json"; then
    echo "ok - fedpg val_centres=1: a warning, the result marked, both options recorded"
else echo "not ok - fedpg val_centres=1: warning, mark and record"; sed 's/^/#   /' "$tmp/err" | head -3; fi
if $FGLRUN --config "$tmp/pgleak.json" --json --quiet > "$tmp/pgreplay.json" 2> "$tmp/err" &&
   [ "$(strip $tmp/pgleak.json)" = "$(strip $tmp/pgreplay.json)" ]; then
    echo "ok - fedpg val_centres=1 target_scale=authors replays from its record"
else echo "not ok - fedpg val_centres=1 target_scale=authors replays"; sed 's/^/#   /' "$tmp/err" | head -3; fi
$FGLRUN $pg > "$tmp/pgplain.json" 2> "$tmp/err"
if [ -s "$tmp/pgplain.json" ] && ! grep -q label_leakage "$tmp/pgplain.json" && ! grep -q warning "$tmp/err" &&
   [ "$(strip $tmp/pgplain.json)" != "$(strip $tmp/pgleak.json)" ]; then
    echo "ok - fedpg by default: no leakage mark, no warning, another result"
else echo "not ok - fedpg by default: unmarked and different from val_centres=1"; fi
if $FGLRUN $pg --set target_scale=author > /dev/null 2> "$tmp/err"; then
    echo "not ok - target_scale=author must be refused"
elif grep -q "is not one of fgl|authors" "$tmp/err"; then echo "ok - target_scale=author refused, naming the choices"
else echo "not ok - target_scale=author: unclear message"; sed 's/^/#   /' "$tmp/err" | head -3; fi
# --task link: the result carries the AUC and Hits@K, a stopped run resumes to the same result, the record
# replays it, and a class method is refused naming the reason
lk="--task link --data synthetic --clients 4 --rounds 4 --algo fedavg --link-neg 200 --hits-k 20 --json --quiet"
rm -f "$tmp/lck"
$FGLRUN $lk > "$tmp/link.json" 2> "$tmp/err"
$FGLRUN $lk --checkpoint "$tmp/lck" --stop-after 2 > /dev/null 2>> "$tmp/err"
$FGLRUN $lk --checkpoint "$tmp/lck" > "$tmp/linkres.json" 2>> "$tmp/err"
if grep -q '"task": "link", "metric": "auc", "hits_k": 20' "$tmp/link.json" && grep -q '"test_hits_mean": 0\.' "$tmp/link.json" &&
   [ "$(strip $tmp/link.json)" = "$(strip $tmp/linkres.json)" ]; then
    echo "ok - fglrun --task link: AUC and Hits@K in the result, resumed identically"
else echo "not ok - fglrun --task link: result or resume"; sed 's/^/#   /' "$tmp/err" | head -3; cut -c1-300 "$tmp/link.json"; fi
if $FGLRUN --config "$tmp/link.json" --json --quiet > "$tmp/linkrep.json" 2> "$tmp/err" &&
   [ "$(strip $tmp/link.json)" = "$(strip $tmp/linkrep.json)" ]; then echo "ok - fglrun --task link replays from its record"
else echo "not ok - fglrun --task link replay"; sed 's/^/#   /' "$tmp/err" | head -3; fi
# the run's accuracy is the AUC, and --out says so: the per-round CSV's columns val_auc, test_auc (as the rounds
# go, and at the end), the plots' labels; a node run keeps val_acc, test_acc and "accuracy"
lo="--task link --data synthetic --clients 4 --rounds 2 --algo fedavg --link-neg 200 --quiet"
rm -rf "$tmp/lout" "$tmp/lstop" "$tmp/nout" "$tmp/lsck"
$FGLRUN $lo --out "$tmp/lout" > /dev/null 2> "$tmp/err"
$FGLRUN $lo --out "$tmp/lstop" --checkpoint "$tmp/lsck" --stop-after 1 > /dev/null 2>> "$tmp/err"
$FGLRUN --data synthetic --clients 4 --rounds 2 --algo fedavg --quiet --out "$tmp/nout" > /dev/null 2>> "$tmp/err"
hl=round,client,train_loss,val_auc,test_auc,bytes_up,bytes_down
hn=round,client,train_loss,val_acc,test_acc,bytes_up,bytes_down
if [ "$(head -n 1 "$tmp/lout/fedavg_seed1_rounds.csv" 2> /dev/null)" = "$hl" ] &&
   [ "$(head -n 1 "$tmp/lstop/fedavg_seed1_rounds.csv" 2> /dev/null)" = "$hl" ] &&
   [ "$(head -n 1 "$tmp/nout/fedavg_seed1_rounds.csv" 2> /dev/null)" = "$hn" ] &&
   grep -q '>validation AUC (%)</text>' "$tmp/lout/curves.svg" && grep -q '>Test AUC</text>' "$tmp/lout/curves.svg" &&
   grep -q '>Per-client AUC (fairness)</text>' "$tmp/lout/clients.svg" &&
   grep -q '>test AUC (%)</text>' "$tmp/lout/clients.svg" &&
   ! grep -q 'accuracy' "$tmp/lout/curves.svg" "$tmp/lout/clients.svg" &&
   grep -q '>validation accuracy (%)</text>' "$tmp/nout/curves.svg" &&
   grep -q '>Per-client accuracy (fairness)</text>' "$tmp/nout/clients.svg"; then
    echo "ok - fglrun --task link --out: CSV columns val_auc, test_auc; the plots say AUC (a node run's: accuracy)"
else
    echo "not ok - fglrun --task link --out: CSV header" \
         "'$(head -n 1 "$tmp/lout/fedavg_seed1_rounds.csv" 2> /dev/null)' (stopped run" \
         "'$(head -n 1 "$tmp/lstop/fedavg_seed1_rounds.csv" 2> /dev/null)'), the plots' labels AUC"
    sed 's/^/#   /' "$tmp/err" | head -3
fi
if $FGLRUN --task link --data synthetic --clients 4 --rounds 2 --algo fedproto > /dev/null 2> "$tmp/err"; then
    echo "not ok - fedproto on --task link must be refused"
elif grep -q "not for link prediction" "$tmp/err"; then echo "ok - fedproto refused on --task link, with the reason"
else echo "not ok - fedproto on --task link: unclear message"; sed 's/^/#   /' "$tmp/err" | head -3; fi
# a run on a dataset's fixed splits replays on the same split (its record leaves the unused train/val
# fractions null: given back, they drew a split instead)
H=${FGL_DATA:-data}/heterophilous/chameleon_filtered.npz
if [ -f "$H" ]; then
    if $FGLRUN --data chameleon_filtered --algo local --clients 1 --split none --rounds 3 --split-index 2 --quiet \
           --json --out "$tmp/fixed" > /dev/null 2> "$tmp/err" &&
       $FGLRUN --config "$tmp/fixed/result.json" > /dev/null 2> "$tmp/err" &&
       grep -q "identical to the record" "$tmp/err"; then
        echo "ok - a run on a fixed split (chameleon_filtered, --split-index 2) replays identically from its record"
    else echo "not ok - a fixed split's record does not replay"; sed 's/^/#   /' "$tmp/err" | head -3; fi
else
    echo "skip - a fixed split's replay # no data: $H"
fi
