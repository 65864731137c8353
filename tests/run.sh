#!/bin/sh
# Runs every test program given on the command line and prints one summary
# line, "N passed, M failed" (S skipped are listed above it). A program that
# crashes or exits non-zero without reporting a failure counts as one failure.
# Each argument is one command (split at blanks: "tests/valgrind.sh prog").
#
# Tests skipped for want of the real datasets ("skip - name # no data: PATH",
# see tests/ft.h) are not listed one by one: one line says how many there
# were, where the data was looked for and how to get it.
#
# FGL_TEST_JOBS=N runs up to N programs at once (default 1); their outputs
# are still printed whole and in order, each with its wall time and its CPU
# time (user + system, of the program and everything it started): on a
# shared machine the CPU time is the one to compare.
jobs=${FGL_TEST_JOBS:-1}
# Two programs at a time on a 2-core machine leave no core for a spinning
# OpenMP thread: threads sleep when they wait (unless the caller chose), as
# CI does; spinning made the suite's CPU time about twice its work.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N 2>/dev/null | sed 's/\.N$//'; }

# start I COMMAND: run COMMAND in the background into $tmp/I.{out,rc,t,cpu},
# and $tmp/I.done last, when all of them are written
# (the functions use their own variable names: sh has no local variables)
start() {
    s_i=$1; shift
    ( t0=$(now); $* > "$tmp/$s_i.out" 2>&1; echo $? > "$tmp/$s_i.rc"
      echo "$t0 $(now)" | awk '{printf "%.1f", $2 - $1}' > "$tmp/$s_i.t"
      # the children's user and system time ("times", second line: "1m2.5s 0m0.3s")
      # (into a file: "times" in a pipeline would run in a subshell of its own, with no children)
      times > "$tmp/$s_i.times"
      awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); c += 60 * p[1] + p[2] }
                     printf "%.1f", c }' "$tmp/$s_i.times" > "$tmp/$s_i.cpu"
      : > "$tmp/$s_i.done" ) &
    echo $! > "$tmp/$s_i.pid"
}

# finished: how many programs have finished (their I.done files)
finished() {
    set -- "$tmp"/*.done
    if [ -e "$1" ]; then echo $#; else echo 0; fi
}

pass=0; fail=0; skip=0; nodata=0; nodata_first=
report() { # I COMMAND
    r_i=$1; shift
    wait "$(cat "$tmp/$r_i.pid")" 2>/dev/null
    out=$(cat "$tmp/$r_i.out"); rc=$(cat "$tmp/$r_i.rc" 2>/dev/null); t=$(cat "$tmp/$r_i.t" 2>/dev/null)
    c=$(cat "$tmp/$r_i.cpu" 2>/dev/null)
    rc=${rc:-99}
    printf '%s\n' "$out" | grep -v -e '^ok - ' -e '^skip - .* # no data: '
    p=$(printf '%s\n' "$out" | grep -c '^ok - ')
    f=$(printf '%s\n' "$out" | grep -c '^not ok - ')
    s=$(printf '%s\n' "$out" | grep -c '^skip - ')
    d=$(printf '%s\n' "$out" | grep -c '^skip - .* # no data: ')
    if [ "$d" -gt 0 ] && [ -z "$nodata_first" ]; then
        nodata_first=$(printf '%s\n' "$out" | sed -n 's/^skip - .* # no data: //p' | head -n 1)
    fi
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "not ok - $* exited with status $rc"
        f=1
    fi
    echo "# $*: $p passed, $f failed, $s skipped ($t s, cpu ${c:-?} s)"
    cpu_all=$(echo "${cpu_all:-0} ${c:-0}" | awk '{ printf "%.1f", $1 + $2 }')
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s)); nodata=$((nodata + d))
}

# A pool of $jobs: a program starts as soon as any running one finishes (not
# the oldest: a long one started first would hold a core idle), and the
# outputs are printed in the order of the command line, each once it and all
# before it are done.
n=$#
i=0
for prog in "$@"; do
    while [ $((i - $(finished))) -ge "$jobs" ]; do
        sleep 0.1 2>/dev/null || sleep 1
    done
    i=$((i + 1))
    start "$i" $prog
    # print the finished ones at the head of the line
    while [ "${done:-0}" -lt "$i" ] && [ -e "$tmp/$((${done:-0} + 1)).done" ]; do
        done=$((${done:-0} + 1))
        eval "cmd=\${$done}"
        report "$done" $cmd
    done
done
while [ "${done:-0}" -lt "$n" ]; do
    done=$((${done:-0} + 1))
    eval "cmd=\${$done}"
    report "$done" $cmd
done

if [ "$nodata" -gt 0 ]; then
    echo "# $nodata test(s) skipped for want of the real datasets (nothing at $nodata_first):" \
         "\`make data\` downloads them (into \$FGL_DATA if set, else data/)"
fi
[ "$skip" -gt 0 ] && echo "($skip skipped)"
echo "# cpu time of the tests: ${cpu_all:-0} s (user + system; the wall time of each is above)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
