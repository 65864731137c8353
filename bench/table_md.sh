#!/bin/sh
# bench/table_md.sh [FILE.jsonl] - the method x dataset table of bench/results.sh's
# section "table" (default bench/results/table.jsonl) as two markdown tables:
# the score (mean ± std over the seeds, in %) and the seconds per seed.
# A row's label is "DATA 10 SPLIT METHOD". The score is the one each dataset
# is reported with: ROC-AUC for tolokers (two classes; "test_auc_mean"),
# test accuracy otherwise, at the round of best validation. A cell not yet
# run is "·"; a run that failed leaves no line, and so a "·" too.
f=${1:-bench/results/table.jsonl}
[ -f "$f" ] || { echo "table_md.sh: no $f (sh bench/results.sh table makes it)" >&2; exit 1; }
awk '
function num(key,   s) {
    if (match($0, "\"" key "\": -?[0-9.eE+-]+")) { s = substr($0, RSTART, RLENGTH); sub(/.*: /, "", s); return s + 0 }
    return ""
}
{
    label = $0; sub(/^\{"label": "/, "", label); sub(/".*/, "", label)
    n = split(label, w, " "); data = w[1]; split_ = w[3]; m = w[4]
    col = data " " split_
    if (!(col in seen_col)) { seen_col[col] = 1; cols[++nc] = col }
    if (!(m in seen_m)) { seen_m[m] = 1; ms[++nm] = m }
    key = (data == "tolokers") ? "test_auc" : "test_acc"
    mean = num(key "_mean"); sd = num(key "_std")
    if (mean == "") next
    score[m, col] = sprintf("%.2f ± %.2f", 100 * mean, 100 * sd)
    secs[m, col] = sprintf("%.1f", num("seconds"))
}
END {
    for (t = 1; t <= 2; t++) {
        printf "| %s |", t == 1 ? "method (score %)" : "method (s/seed)"
        for (c = 1; c <= nc; c++) printf " %s%s |", cols[c], (t == 1 && cols[c] ~ /^tolokers/) ? " (AUC)" : ""
        printf "\n|---|"
        for (c = 1; c <= nc; c++) printf "---:|"
        printf "\n"
        for (i = 1; i <= nm; i++) {
            printf "| %s |", ms[i]
            for (c = 1; c <= nc; c++) {
                v = t == 1 ? score[ms[i], cols[c]] : secs[ms[i], cols[c]]
                printf " %s |", v == "" ? "·" : v
            }
            printf "\n"
        }
        if (t == 1) printf "\n"
    }
}' "$f"
