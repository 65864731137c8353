#!/bin/sh
# run.sh SECONDS FUZZER... - `make fuzz`: writes the seed corpora from
# $FGL_DATA (build/fuzz/seeds), then runs each harness for SECONDS under
# ASan + UBSan, keeping its corpus in build/fuzz/corpus/NAME and crashing
# inputs in build/fuzz/crash/. Limits: no single allocation over 256 MB
# (-malloc_limit_mb: what a hostile file must never obtain; the inputs are
# a few KB) and 1 GB of RSS (ASan's shadow and quarantine included). Prints
# one line per harness (runs, coverage, corpus) and fails if any crashed.
secs=$1; shift
out=build/fuzz
data=${FGL_DATA:-data} # the Makefile passes FGL_DATA; else data/ of the repository
mkdir -p "$out/corpus" "$out/crash"
rm -rf "$out/seed"
"$out/seeds" "$data" "$out/seed" || exit 1
fail=0
n_ok=0
n_bad=0
for fz in "$@"; do
    name=$(basename "$fz" | sed 's/^fuzz_//')
    mkdir -p "$out/corpus/$name" "$out/seed/$name"
    log="$out/$name.log"
    "$fz" -max_total_time="$secs" -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10 \
        -dict=tests/fuzz/fgl.dict -artifact_prefix="$out/crash/$name-" -print_final_stats=1 \
        "$out/corpus/$name" "$out/seed/$name" > "$log" 2>&1
    rc=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
    files=$(ls "$out/corpus/$name" | wc -l)
    if [ "$rc" -eq 0 ]; then
        echo "ok - fuzz $name: ${runs:-?} runs in ${secs}s, coverage ${cov:-?} edges / ${ft:-?} features, corpus $files"
        n_ok=$((n_ok + 1))
    else
        echo "not ok - fuzz $name (exit $rc): see $log and $out/crash/"
        grep -m 3 'ERROR\|fuzz check failed\|==[0-9]*==' "$log" | sed 's/^/#   /'
        fail=1
        n_bad=$((n_bad + 1))
    fi
done
echo "$n_ok passed, $n_bad failed"
exit $fail
