#!/bin/sh
# The house rules of docs/layout.md, checked by make test:
#  - no file of src/ or examples/ is over 1,500 lines;
#  - docs/layout.md, which lists them, is current (tools/layout.sh);
#  - every file of src/ includes src/alone.h first, after each marker line
#    and last (so that it compiles alone: tests/alone_check.sh);
#  - each of fglrun's parts (examples/fglrun/*.c) compiles alone against
#    examples/fglrun/fglrun.h (a syntax check, strict; under mpicc -DFGL_MPI
#    too for the parts with MPI code, where mpicc is installed), though fglrun
#    is built as one translation unit (examples/fglrun.c includes them).
# Usage: tests/house_check.sh (from the repository root)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
top=$(pwd)
if [ ! -d "$top/src" ]; then echo "skip - the house rules of src/ (no src/ in this copy)"; exit 0; fi
# the house rule of docs/layout.md: no file of src/ or examples/ over 1,500 lines
long=$(cd "$top" && find src examples -type f \( -name '*.h' -o -name '*.c' \) | while IFS= read -r f; do
           n=$(wc -l < "$f"); [ "$n" -le 1500 ] || printf ' %s (%d)' "$f" "$n"; done)
if [ -z "$long" ]; then echo "ok - no file of src/ or examples/ over 1,500 lines"
else echo "not ok - files over 1,500 lines:$long"; fi
# docs/layout.md is tools/layout.sh's output: the table of files stays true
if sh "$top/tools/layout.sh" 2> "$tmp/layout.err" | cmp -s - "$top/docs/layout.md"; then
    echo "ok - docs/layout.md is current (sh tools/layout.sh)"
else echo "not ok - docs/layout.md is stale: run sh tools/layout.sh > docs/layout.md"; sed 's/^/#   /' "$tmp/layout.err"; fi
# every file of src/ includes src/alone.h where a file alone needs it: its first line, after each marker
# line and its last line (tests/alone_check.sh, make alone, compiles them so)
missing=$(cd "$top/src" && find . -name '*.h' ! -name open.h ! -name close.h ! -name alone.h | sed 's|^\./||' | sort |
    while IFS= read -r f; do
        awk -v f="$f" 'function alone(l) { return l ~ /^#include "(\.\.\/)+alone\.h"/ }
            NR == 1 { ok = alone($0) } { last = $0 }
            want { ok = ok && alone($0); want = 0 }
            $0 == "/* fgl:private */" || $0 == "/* fgl:implementation */" { want = 1 }
            END { if (!ok || want || !alone(last)) printf " src/%s", f }' "$f"
    done)
if [ -z "$missing" ]; then echo "ok - every file of src/ includes src/alone.h first, after each marker and last"
else echo "not ok - files of src/ without their src/alone.h lines (first, after each marker, last):$missing"; fi
# fglrun's parts each compile alone: everything a part uses is in examples/fglrun/fglrun.h
for f in "$top"/examples/fglrun/*.c; do
    [ -f "$f" ] || continue
    p=examples/fglrun/${f##*/}; mpi=
    (cd "$top" && ${CC:-cc} -std=c99 -fsyntax-only -Wall -Wextra -Wpedantic -Werror -fopenmp -I. "$p") > "$tmp/part.log" 2>&1
    rc=$?
    if [ $rc = 0 ] && grep -q FGL_MPI "$f" && command -v mpicc > /dev/null 2>&1; then
        mpi=" (and under mpicc -DFGL_MPI)"
        (cd "$top" && mpicc -DFGL_MPI -std=c99 -fsyntax-only -Wall -Wextra -Wpedantic -Werror -fopenmp -I. "$p") \
            > "$tmp/part.log" 2>&1
        rc=$?
    fi
    if [ $rc = 0 ]; then echo "ok - $p compiles alone against examples/fglrun/fglrun.h$mpi"
    else echo "not ok - $p does not compile alone against examples/fglrun/fglrun.h$mpi"
         sed 's/^/#   /' "$tmp/part.log" | head -n 10; fi
done
