#!/bin/sh
# Every file of src/ compiles on its own (src/alone.h): tools/amalgamate
# --alone writes each file's surroundings into build/alone, this writes
# build/compile_commands.json (what clangd and other tools read: open any
# file of src/ and it resolves), then compiles every file of src/ with its
# command, strictly (-Wall -Wextra -Wpedantic -Werror, C99, OpenMP; the
# MPI files under mpicc -DFGL_MPI too, where mpicc is installed; the
# headers' other configurations are tests/compile_check.sh's). A file that
# misses an include line of src/alone.h, or uses what its header does not
# give it, fails here. `make alone` runs it.
# Usage: tests/alone_check.sh (from the repository root)
top=$(pwd)
if [ ! -d "$top/src" ]; then echo "skip - src/ files alone (no src/ in this copy)"; exit 0; fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out=$top/build/alone
rm -rf "$out"
if ! "$top/tools/amalgamate" --alone "$out" > "$tmp/am.log" 2>&1; then
    echo "not ok - tools/amalgamate --alone"; sed 's/^/#   /' "$tmp/am.log" | head; exit 0
fi
files=$(cd "$top/src" && find . -name '*.h' ! -name open.h ! -name close.h ! -name alone.h | sed 's|^\./||' | sort)
cc=${CC:-cc}
ide="-std=c99 -Wall -Wextra -Wpedantic -DFGL_IMPLEMENTATION -I. -x c"
flags="$ide -Werror -fsyntax-only"
{ # build/compile_commands.json: one entry per file (the directory is the repository's root)
    echo "["
    sep=
    for f in $files; do
        printf '%s  {"directory": "%s", "file": "src/%s",\n   "arguments": ["%s"' "$sep" "$top" "$f" "$cc"
        # (not -Werror: clangd builds a file's leading includes apart, where the statics they define are unused)
        for a in $ide -fopenmp; do printf ', "%s"' "$a"; done
        printf ', "-DFGL_ALONE=\\"build/alone/%s\\"", "src/%s"]}' "$f" "$f"
        sep=",
"
    done
    printf '\n]\n'
} > "$top/build/compile_commands.json"
n=0; bad=0
for f in $files; do
    n=$((n + 1))
    what=
    if [ ! -f "$out/$f" ]; then
        what="no surroundings written (is it listed in its MANIFEST or an X(name, file) list?)"
    else
        if ! (cd "$top" && $cc $flags -fopenmp "-DFGL_ALONE=\"build/alone/$f\"" "src/$f") > "$tmp/cc.log" 2>&1; then
            what=$cc
        fi
        case $f in fed/mpi*.h)
            if [ -z "$what" ] && command -v mpicc > /dev/null 2>&1 &&
               ! (cd "$top" && mpicc -DFGL_MPI $flags -fopenmp "-DFGL_ALONE=\"build/alone/$f\"" "src/$f") > "$tmp/cc.log" 2>&1
            then what="mpicc -DFGL_MPI"; fi ;;
        esac
    fi
    if [ -n "$what" ]; then
        bad=$((bad + 1))
        echo "not ok - src/$f does not compile alone ($what)"
        [ -f "$tmp/cc.log" ] && grep -m 5 -E 'error|warning' "$tmp/cc.log" | sed 's/^/#   /'
    fi
    rm -f "$tmp/cc.log"
done
[ "$bad" = 0 ] && echo "ok - all $n files of src/ compile alone (build/compile_commands.json: clangd reads it)"
