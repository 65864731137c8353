#!/bin/sh
# Runs every test program given on the command line and prints one summary
# line, "N passed, M failed" (S skipped are listed above it). A program that
# crashes or exits non-zero without reporting a failure counts as one failure.
pass=0; fail=0; skip=0
for prog in "$@"; do
    out=$($prog 2>&1); rc=$?
    printf '%s\n' "$out" | grep -v '^ok - ' 
    p=$(printf '%s\n' "$out" | grep -c '^ok - ')
    f=$(printf '%s\n' "$out" | grep -c '^not ok - ')
    s=$(printf '%s\n' "$out" | grep -c '^skip - ')
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "not ok - $prog exited with status $rc"
        f=1
    fi
    echo "# $prog: $p passed, $f failed, $s skipped"
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
done
[ "$skip" -gt 0 ] && echo "($skip skipped)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
