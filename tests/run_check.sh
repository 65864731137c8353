#!/bin/sh
# Checks tests/run.sh itself: fake test programs with known counts (passes,
# a failure, a crash without a "not ok" line, data skips) give the same
# totals and the same per-program lines whether run one, two or three at a
# time (FGL_TEST_JOBS).
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
top=$(pwd)
for k in 1 2 3 4 5; do
    { echo "#!/bin/sh"
      echo "sleep 0.0$((6 - k))"     # later programs finish first
      j=1; while [ $j -le $k ]; do echo "echo 'ok - t$j'"; j=$((j + 1)); done
      echo "echo 'skip - s$k # no data: /nowhere/$k'"
      [ $k -eq 3 ] && echo "echo 'not ok - t3 failed'"
      echo "exit 0"; } > "$tmp/p$k"
    chmod +x "$tmp/p$k"
done
printf '#!/bin/sh\necho "ok - before the crash"\nexit 3\n' > "$tmp/crash"; chmod +x "$tmp/crash"
progs="$tmp/p1 $tmp/p2 $tmp/p3 $tmp/crash $tmp/p4 $tmp/p5 $tmp/p5 $tmp/p4 $tmp/p3"
for jobs in 1 2 3; do
    # shellcheck disable=SC2086
    FGL_TEST_JOBS=$jobs "$top/tests/run.sh" $progs > "$tmp/out$jobs" 2>&1
    rc=$?
    sed -e 's/ ([0-9.]* s, cpu [0-9.]* s)$//' -e '/^# cpu time of the tests: /d' "$tmp/out$jobs" > "$tmp/cmp$jobs"
    # 1+2+3+1+4+5+5+4+3 passes; p3 twice and the crash fail; 8 data skips
    if [ $rc -eq 1 ] && [ "$(tail -n 1 "$tmp/out$jobs")" = "28 passed, 3 failed" ] &&
        grep -q '^# 8 test(s) skipped for want of the real datasets (nothing at /nowhere/1)' "$tmp/out$jobs" &&
        grep -q "^not ok - $tmp/crash exited with status 3" "$tmp/out$jobs" &&
        { [ $jobs -eq 1 ] || cmp -s "$tmp/cmp1" "$tmp/cmp$jobs"; }; then
        echo "ok - run.sh counts right with FGL_TEST_JOBS=$jobs"
    else
        echo "not ok - run.sh counts right with FGL_TEST_JOBS=$jobs"
        sed 's/^/#   /' "$tmp/out$jobs"
    fi
done
