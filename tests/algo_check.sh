#!/bin/sh
# Adding an algorithm to the tree is one new file and one line of
# src/fed/algos/list.h. In a copy of src/, examples/custom_aggregator.c's
# rule (the coordinate-wise median, Yin et al. 2018) becomes a built-in:
# src/fed/algos/median.h and the line "X(median, median)". Then:
#  - the copy differs from src/ by exactly that file and that line;
#  - tools/amalgamate writes the four headers from it, and fglrun built on
#    them lists median among its algorithms and runs it;
#  - it is the median, not a renamed FedAvg: with a fifth of the clients
#    scaling their uploads by 1e4, FedAvg's mean is lost and the median's
#    test accuracy stays at least 0.2 above it;
# (The house rules, no file over 1,500 lines and docs/layout.md current:
# tests/house_check.sh, in make test.)
# Usage: tests/algo_check.sh (from the repository root)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
top=$(pwd)
if [ ! -f "$top/src/fed/algos/list.h" ]; then echo "skip - adding an algorithm to src/ (no src/ in this copy)"; exit 0; fi
mkdir -p "$tmp/repo/tools" && cp -R "$top/src" "$tmp/repo/src" && cp "$top/tools/amalgamate" "$tmp/repo/tools/"
cat > "$tmp/repo/src/fed/algos/median.h" <<'ALGO'
#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- coordinate-wise median (Yin et al. 2018) ------------------------------- */
/* FedAvg's messages, client side and server state (fgl__avg_server: the
 * global vector); the server's model is the median over the accepted
 * uploads of each shared parameter. */

static int fgl__median_cmp(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static int fgl__median_aggregate(fgl_server *s) {
    float *global = FGL_STATE(fgl__avg_server, &s->store)->global;
    float *col = (float *)fgl_scratch(&s->store, sizeof(float) * (size_t)s->n_clients);
    size_t j;
    int i, n;
    if (!col) return FGL_ERR_NOMEM;
    if (s->n_accepted == 0) return FGL_OK;
    for (j = 0; j < s->n_shared; j++) {
        for (i = 0, n = 0; i < s->n_clients; i++)
            if (fgl_upload(s, i, "theta")) col[n++] = fgl_upload(s, i, "theta")[j];
        qsort(col, (size_t)n, sizeof(float), fgl__median_cmp);
        global[j] = n % 2 ? col[n / 2] : 0.5f * (col[n / 2 - 1] + col[n / 2]);
    }
    return FGL_OK;
}

static fgl_algo fgl__median(void) {
    fgl_algo a = fgl__fedavg();
    a.name = "median";
    a.summary = "coordinate-wise median of the clients' parameters";
    a.aggregate = fgl__median_aggregate;
    return a;
}
#include "../../alone.h"
ALGO
sed 's|^\(    /\* (every line above ends in a backslash\)|    X(median, median) \\\n\1|' "$top/src/fed/algos/list.h" > "$tmp/repo/src/fed/algos/list.h"
changes=$(diff -r "$top/src" "$tmp/repo/src" | grep -c '^[<>]')
only=$(diff -r "$top/src" "$tmp/repo/src" | grep -c '^Only in')
if [ "$only" = 1 ] && [ "$changes" = 1 ] && diff "$top/src/fed/algos/list.h" "$tmp/repo/src/fed/algos/list.h" | grep -q '^> *X(median, median) \\$'
then echo "ok - the median is one new file (src/fed/algos/median.h) and one line of the list"
else echo "not ok - the change is more than one file and one line"; diff -r "$top/src" "$tmp/repo/src" | head -20 | sed 's/^/#   /'; fi
if ! "$tmp/repo/tools/amalgamate" > "$tmp/am.log" 2>&1; then
    echo "not ok - tools/amalgamate on the copy"; sed 's/^/#   /' "$tmp/am.log"; exit 0
fi
if ${CC:-cc} -std=c99 -O1 -Wall -Wextra -Wpedantic -Werror -fopenmp -I"$tmp/repo" -DFGL_COMMIT='"test"' \
        "$top/examples/fglrun.c" -o "$tmp/fglrun" -lm > "$tmp/cc.log" 2>&1; then
    echo "ok - fglrun builds, warning-free, on the headers with the median"
else echo "not ok - fglrun on the headers with the median"; head -20 "$tmp/cc.log" | sed 's/^/#   /'; exit 0; fi
if "$tmp/fglrun" --help | grep -q '^Algorithms:.* median'; then echo "ok - fglrun lists median"
else echo "not ok - fglrun --help does not list median"; fi
args="--data synthetic --clients 5 --rounds 10 --attack scale:1e4 --attackers 0.2 --screen 0 --json --quiet"
if "$tmp/fglrun" --algo fedavg,median $args > "$tmp/r.json" 2> "$tmp/err"; then
    mean=$(sed -n 1p "$tmp/r.json" | sed 's/"algo": "median".*//' | sed -n 's/.*"test_acc_mean": \([0-9.]*\).*/\1/p')
    med=$(sed -n 's/.*"algo": "median"[^}]*"test_acc_mean": \([0-9.]*\).*/\1/p' "$tmp/r.json" | head -n 1)
    if [ -n "$mean" ] && [ -n "$med" ] && awk -v a="$mean" -v b="$med" 'BEGIN { exit !(b >= a + 0.2) }'; then
        echo "ok - under a scaling attack the median keeps its accuracy: $med against FedAvg's $mean"
    else echo "not ok - median $med against FedAvg $mean under a scaling attack"; fi
else echo "not ok - fglrun --algo fedavg,median failed"; sed 's/^/#   /' "$tmp/err" | head -5; fi
