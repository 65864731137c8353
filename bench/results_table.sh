#!/bin/sh
# bench/results_table.sh FILE.jsonl... - markdown rows from bench/results.sh
# output: label | test acc at the best-validation round (mean +- std over the
# seeds) | at the last round | MB up per run | seconds per seed | seeds.
printf '| experiment | test %% (best val) | test %% (last round) | MB up | s/seed | seeds |\n'
printf '|---|---:|---:|---:|---:|---:|\n'
cat "$@" | awk '
function num(key,   s) {
    if (match($0, "\"" key "\": -?[0-9.eE+-]+")) { s = substr($0, RSTART, RLENGTH); sub(/.*: /, "", s); return s + 0 }
    return -1
}
{
    label = $0; sub(/^\{"label": "/, "", label); sub(/".*/, "", label)
    printf "| %s | %.2f ± %.2f | %.2f ± %.2f | %.1f | %.1f | %d |\n", label,
        100 * num("test_acc_mean"), 100 * num("test_acc_std"), 100 * num("last_acc_mean"), 100 * num("last_acc_std"),
        num("bytes_up") / 1e6, num("seconds"), num("seeds")
}'
