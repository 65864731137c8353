#!/bin/sh
# bench/results_table.sh FILE.jsonl... - markdown rows from bench/results.sh
# output: label | test acc at the best-validation round (mean +- std over the
# seeds) | at the last round | MB up per run | seconds per seed | seeds.
# Link prediction's rows (--task link; files whose results carry "test_hits_mean", or --link): test AUC
# and Hits@K at the best-validation round and at the last.
link=0
[ "${1:-}" = --link ] && { link=1; shift; }
grep -q '"test_hits_mean"' "$@" 2>/dev/null && link=1
if [ $link = 1 ]; then
    printf '| experiment | AUC %% (best val) | AUC %% (last round) | Hits@K %% (best val) | Hits@K %% (last round) | MB up | s/seed | seeds |\n'
    printf '|---|---:|---:|---:|---:|---:|---:|---:|\n'
else
    printf '| experiment | test %% (best val) | test %% (last round) | MB up | s/seed | seeds |\n'
    printf '|---|---:|---:|---:|---:|---:|\n'
fi
cat "$@" | awk -v link=$link '
function num(key,   s) {
    if (match($0, "\"" key "\": -?[0-9.eE+-]+")) { s = substr($0, RSTART, RLENGTH); sub(/.*: /, "", s); return s + 0 }
    return -1
}
function auc(which, sfx) { # a link row'"'"'s AUC: WHICH_auc_mean (record version 2), else WHICH_acc_mean (version 1)
    if (sfx == "") sfx = "_mean"
    return index($0, "\"" which "_auc" sfx "\"") ? num(which "_auc" sfx) : num(which "_acc" sfx)
}
{
    label = $0; sub(/^\{"label": "/, "", label); sub(/".*/, "", label)
    if (link) {
        printf "| %s | %.2f ± %.2f | %.2f ± %.2f | %.2f ± %.2f | %.2f ± %.2f | %.1f | %.1f | %d |\n", label,
            100 * auc("test"), 100 * auc("test", "_std"), 100 * auc("last"), 100 * auc("last", "_std"),
            100 * num("test_hits_mean"), 100 * num("test_hits_std"), 100 * num("last_hits_mean"),
            100 * num("last_hits_std"), num("bytes_up") / 1e6, num("seconds"), num("seeds")
        next
    }
    printf "| %s | %.2f ± %.2f | %.2f ± %.2f | %.1f | %.1f | %d |\n", label,
        100 * num("test_acc_mean"), 100 * num("test_acc_std"), 100 * num("last_acc_mean"), 100 * num("last_acc_std"),
        num("bytes_up") / 1e6, num("seconds"), num("seeds")
}'
