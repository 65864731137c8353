#!/bin/sh
# bench/pfedgnn_table.sh [FILE.jsonl] - RESULTS.md's pFedGNN pipeline table from
# bench/results.sh's pfedgnn_authors section (default bench/results/pfedgnn_authors.jsonl):
# per row, plain test accuracy at the global selection (best mean validation, or
# best mean public-node accuracy under --val public), the personalised accuracy
# at the same rounds, both at each client's own best round (--select per-client),
# seconds per seed and seeds (rows in label order); "-" where the row did not measure it. Then each
# row's fglrun arguments.
f=${1:-bench/results/pfedgnn_authors.jsonl}
printf '| experiment | plain %% (global sel.) | personalised %% (global sel.) | plain %% (per-client sel.) | personalised %% (per-client sel.) | s/seed | seeds |\n'
printf '|---|---:|---:|---:|---:|---:|---:|\n'
sort "$f" | awk '
function num(key,   s) {
    if (match($0, "\"" key "\": -?[0-9.eE+-]+")) { s = substr($0, RSTART, RLENGTH); sub(/.*: /, "", s); return s }
    return ""
}
function pm(key,   m, s) {
    m = num(key "_mean"); s = num(key "_std")
    return m == "" ? "-" : sprintf("%.2f ± %.2f", 100 * m, 100 * s)
}
{
    label = $0; sub(/^\{"label": "/, "", label); sub(/".*/, "", label)
    printf "| %s | %s | %s | %s | %s | %.1f | %d |\n", label, pm("test_acc"), pm("personalized_acc"),
        pm("per_client_test_acc"), pm("per_client_personalized_acc"), num("seconds"), num("seeds")
}'
printf '\n'
sort "$f" | awk '{
    label = $0; sub(/^\{"label": "/, "", label); sub(/".*/, "", label)
    args = $0; sub(/.*"args": "/, "", args); sub(/", "result".*/, "", args)
    printf "- %s: `fglrun %s`\n", label, args
}'
