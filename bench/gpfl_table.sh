#!/bin/sh
# bench/gpfl_table.sh FILE.jsonl... - markdown rows from bench/gpfl.sh output:
# label | last-round test accuracy, mean +- std over the folds (each fold's
# number is the mean over clients) | the folds' numbers | MB up per fold |
# seconds per fold | of which the server's.
printf '| experiment | last round %% (mean ± std over folds) | per fold | MB up | s/fold | server s/fold |\n'
printf '|---|---:|---|---:|---:|---:|\n'
cat "$@" | awk '
function num(key,   s) {
    if (match($0, "\"" key "\": -?[0-9.eE+-]+")) { s = substr($0, RSTART, RLENGTH); sub(/.*: /, "", s); return s + 0 }
    return -1
}
{
    label = $0; sub(/^\{"label": "/, "", label); sub(/".*/, "", label)
    if (index($0, "\"per_run\"")) { # record version 2: every run test_acc in its per_run entry
        folds = ""; rest = $0
        while (match(rest, /"test_acc": -?[0-9.eE+-]+/)) {
            folds = folds (folds == "" ? "" : ", ") substr(rest, RSTART + 12, RLENGTH - 12); rest = substr(rest, RSTART + RLENGTH)
        }
    } else { folds = $0; sub(/.*"test_acc": \[/, "", folds); sub(/\].*/, "", folds) } # version 1: a list
    n = split(folds, f, ", "); folds = ""
    for (i = 1; i <= n; i++) folds = folds (i > 1 ? " " : "") sprintf("%.1f", 100 * f[i])
    printf "| %s | %.2f ± %.2f | %s | %.1f | %.0f | %.1f |\n", label, 100 * num("last_acc_mean"), 100 * num("last_acc_std"),
        folds, num("bytes_up") / 1e6, num("seconds"), num("seconds_server")
}'
