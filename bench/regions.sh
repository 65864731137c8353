#!/bin/sh
# bench/regions.sh PROGRAM [ARGS...] - a program's OpenMP regions, timed one by
# one (bench/gomp_regions.c: GCC's libgomp only), as a table sorted by wall time.
#
#   make build/fglrun build/bench/bench_gin build/bench/gomp_regions.so
#   OMP_NUM_THREADS=2 sh bench/regions.sh build/bench/bench_gin
#   SKIP=3 OMP_NUM_THREADS=2 sh bench/regions.sh build/fglrun --algo fedstar --data NCI1 --rounds 5
#
# Regions that start less than SKIP seconds (default 0) after the first are
# not counted.
# When the program's last output line is a JSON object with "median_epoch_s"
# (bench_gin), the figures are per epoch (the window over the median epoch);
# otherwise they are totals over the window. "waited" is the time one of the
# first two threads waited for the other at the region's end, summed.
set -e
cd "$(dirname "$0")/.."
SO=build/bench/gomp_regions.so
[ -f $SO ] || { echo "regions.sh: build $SO first (make $SO)" >&2; exit 1; }
[ $# -ge 1 ] || { echo "usage: sh bench/regions.sh PROGRAM [ARGS...]" >&2; exit 1; }
PROG=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
LD_PRELOAD=$PWD/$SO "$@" > "$TMP/out" 2> "$TMP/err"
EPOCH=$(tail -1 "$TMP/out" | sed -n 's/.*"median_epoch_s": *\([0-9.eE+-]*\).*/\1/p')
grep '^gomp_regions: 0x' "$TMP/err" | sed 's/^gomp_regions: //' > "$TMP/rows"
addr2line -f -e "$PROG" $(cut -d' ' -f1 "$TMP/rows") | awk 'NR % 2 == 1' > "$TMP/names"
paste -d' ' "$TMP/names" "$TMP/rows" > "$TMP/table"
HEAD=$(grep '^gomp_regions: [0-9]' "$TMP/err" | sed 's/^gomp_regions: //')
WINDOW=$(echo "$HEAD" | sed 's/ ms from.*//')
awk -v window="$WINDOW" -v epoch="$EPOCH" -v head="$HEAD" '
BEGIN { per = 1; unit = "in the window";
        if (epoch != "" && epoch > 0) { per = window / (1000 * epoch); unit = sprintf("per epoch (%.1f epochs)", per) }
        split(head, h, " "); printf "%s: window %.1f ms, in regions %.1f ms, outside (serial) %.1f ms\n\n", unit, h[1] / per, h[11] / per, h[15] / per
        print "| region (outlined function) | threads | regions | wall ms | busy ms (thread 0) | busy ms (thread 1) | waited ms |"
        print "|---|---|---:|---:|---:|---:|---:|" }
{ printf "| %s | %s | %.0f | %.2f | %.2f | %.2f | %.2f |\n", $1, $3, $4 / per, $5 / per, $6 / per, $7 / per, $8 / per }' \
    "$(sort -t' ' -k5 -g -r "$TMP/table" > "$TMP/sorted"; echo "$TMP/sorted")"
