#!/bin/sh
# Covered or refused: every registered algorithm (four in make test: see below) under every defence, on
# fgl's synthetic data. A run is either refused at its start (a clear
# message naming the defence, nothing trained) or really defended:
#  - --dp: noise 0 leaves the bits alone (two runs with secrets from the
#    system's entropy give the same result: without noise the secrets do not
#    matter) and huge noise (1000) changes the result;
#  - --secagg: the accuracy stays within 0.05 of the unmasked run's (the
#    sum is exact up to fixed point), and the record says where the secrets
#    came from;
#  - --robust median: under a scaling attack by a fifth of the clients (norm
#    screening off, so that the rule alone meets it) the
#    rule acts (the result changes), unless the attack never reaches the
#    other clients' models (the attacked run scores as the clean one); how
#    well each rule defends is measured in test_fed_defenses and RESULTS.md.
# Usage: tests/test_defences_cover.sh BUILD_DIR (holding fglrun)
B=${1:-build}
FGLRUN=$B/fglrun
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
acc() { sed -n 's/.*"test_acc_mean": \([0-9.e+-]*\).*/\1/p' "$1"; }
# run NAME ARGS...: fglrun into $tmp/NAME.json, its stderr in $tmp/NAME.err; the exit status
run() { n=$1; shift; $FGLRUN "$@" --json --quiet > "$tmp/$n.json" 2> "$tmp/$n.err"; }
refused() { # NAME: refused at the start, saying so (or sending no weights to defend)
    grep -q 'refused\|sends no model weights' "$tmp/$1.err" && [ ! -s "$tmp/$1.json" ]
}
why() { grep -m 1 'refused\|sends no' "$tmp/$1.err" | cut -c 1-160; }
# every algorithm with FGL_TEST_LONG set (make test-long, CI); else (make test) four that take the
# different paths: a plain one, GCFL's clustering, FedStar's graph task, FED-PUB's masks
algos=$($FGLRUN --help | sed -n 's/^Algorithms://p')
if [ -z "$FGL_TEST_LONG" ]; then
    echo "# $(basename "$0"): fedavg gcfl fedstar fedpub of$(echo "$algos" | wc -w | sed 's/^/ /') algorithms;" \
         "make test-long (FGL_TEST_LONG=1) takes every one"
    algos="fedavg gcfl fedstar fedpub"
fi
# and rules of a program's own (tests/user_fglrun.c), always: "median" (examples/custom_aggregator.c's rule
# over fgl_upload) and "trimmed" must be refused under DP and secure aggregation; "heavyball" (mean_only,
# a momentum on the defended mean) defended by both; "ignorer" (declares mean_only, publishes its own model)
# must stop in its first DP round, naming the part whose noised mean it did not take
algos="$algos user:median user:trimmed user:heavyball user:ignorer"
for algo in $algos; do
    FGLRUN=$B/fglrun
    case $algo in user:*) FGLRUN=$B/tests/user_fglrun; algo=${algo#user:} ;; esac
    if [ "$algo" = ignorer ]; then
        run ign --algo ignorer --data synthetic --clients 5 --rounds 3 --dp clip=1,noise=1; r=$?
        if [ $r -ne 0 ] && grep -q "round 1, .*did not take the noised mean of 'theta'" "$tmp/ign.err" && [ ! -s "$tmp/ign.json" ]
        then echo "ok - ignorer --dp stopped in round 1: $(grep -o "did not take[^;]*" "$tmp/ign.err")"
        else echo "not ok - ignorer --dp (a hook publishing a model of its own) was not stopped (rc $r)"
             sed 's/^/#   /' "$tmp/ign.err" | head -3; fi
        continue
    fi
    case $algo in
        fedstar|gpfl) args="--task graph --data synthetic --clients 5 --rounds 3 --batch 32" ;;
        fedbn) args="--task graph --data synthetic --clients 5 --rounds 3 --batch 32 --bn" ;; # batch norm to keep
        *) args="--data synthetic --clients 5 --rounds 3" ;;
    esac
    case $algo in gcfl*) args="$args --set warmup=1" ;; esac
    set -- --algo "$algo" $args
    # DP
    run dp0 "$@" --dp clip=1,noise=0; r0=$?
    run dp0b "$@" --dp clip=1,noise=0; r0b=$?
    run dpbig "$@" --dp clip=1,noise=1000; rb=$?
    if [ $r0 -ne 0 ]; then
        if refused dp0 && [ $rb -ne 0 ]; then echo "ok - $algo --dp refused: $(why dp0)"
        else echo "not ok - $algo --dp failed without a refusal"; sed 's/^/#   /' "$tmp/dp0.err" | head -3; fi
    elif [ $r0b -eq 0 ] && [ $rb -eq 0 ] && cmp -s "$tmp/dp0.json" "$tmp/dp0b.json" 2> /dev/null ||
         [ "$(sed 's/"seconds[a-z_]*": [0-9.]*//g; s/_rss_mb": [0-9.]*//g; s/"command": .*//' "$tmp/dp0.json")" = \
           "$(sed 's/"seconds[a-z_]*": [0-9.]*//g; s/_rss_mb": [0-9.]*//g; s/"command": .*//' "$tmp/dp0b.json")" ]; then
        if [ "$(acc "$tmp/dp0.json")" != "$(acc "$tmp/dpbig.json")" ]; then
            echo "ok - $algo --dp defended: noise 0 gives the same bits twice, noise 1000 changes test_acc $(acc "$tmp/dp0.json") -> $(acc "$tmp/dpbig.json")"
        else
            echo "not ok - $algo --dp: noise 1000 leaves test_acc at $(acc "$tmp/dp0.json"): the noise never reaches the models"
        fi
    else
        echo "not ok - $algo --dp: noise 0 does not repeat its bits (or a run failed: $r0b $rb)"
    fi
    # secure aggregation
    run plain "$@"; rp=$?
    run sec "$@" --secagg; rs=$?
    if [ $rs -ne 0 ]; then
        if refused sec; then echo "ok - $algo --secagg refused: $(why sec)"
        else echo "not ok - $algo --secagg failed without a refusal"; sed 's/^/#   /' "$tmp/sec.err" | head -3; fi
    elif [ $rp -eq 0 ] && awk -v a="$(acc "$tmp/plain.json")" -v b="$(acc "$tmp/sec.json")" \
            'BEGIN { d = a - b; exit !(d < 0.05 && d > -0.05) }' && grep -q '"secrets": "os-entropy"' "$tmp/sec.json"; then
        echo "ok - $algo --secagg defended: test_acc $(acc "$tmp/sec.json") against $(acc "$tmp/plain.json") unmasked"
    else
        echo "not ok - $algo --secagg: test_acc $(acc "$tmp/sec.json") against $(acc "$tmp/plain.json") unmasked"
    fi
    case $algo in median|trimmed|heavyball) continue ;; esac # the rules of the program's own: DP and secagg only
    # a robust rule
    run att "$@" --attack scale:100 --attackers 0.2 --screen 0; ra=$?
    run med "$@" --attack scale:100 --attackers 0.2 --screen 0 --robust median; rm_=$?
    if [ $rm_ -ne 0 ]; then
        if refused med; then echo "ok - $algo --robust median refused: $(why med)"
        else echo "not ok - $algo --robust median failed without a refusal"; sed 's/^/#   /' "$tmp/med.err" | head -3; fi
    elif [ $ra -eq 0 ] && [ "$(acc "$tmp/att.json")" != "$(acc "$tmp/med.json")" ]; then
        echo "ok - $algo --robust median defended: test_acc under attack $(acc "$tmp/att.json") -> $(acc "$tmp/med.json")"
    elif [ $ra -eq 0 ] && [ "$(acc "$tmp/att.json")" = "$(acc "$tmp/plain.json")" ]; then
        echo "ok - $algo --robust median: nothing to defend here (the attack leaves test_acc at the clean $(acc "$tmp/plain.json"))"
    else
        echo "not ok - $algo --robust median: test_acc under attack $(acc "$tmp/att.json") -> $(acc "$tmp/med.json") (rc $ra)"
    fi
done
