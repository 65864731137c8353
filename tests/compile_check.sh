#!/bin/sh
# Compiles every header with FGL_IMPLEMENTATION, strictly (-Werror), as C99
# under gcc and clang and as C++11 under g++ and clang++, each with and
# without OpenMP, and on x86-64 also for AVX2 and AVX-512 targets (the
# intrinsics paths); then links a two-file program (implementation in one
# translation unit, declarations only in the other) and an FGL_STATIC build,
# and checks that FGL_NO_IMPLEMENTATION leaves declarations only.
# One "ok"/"not ok" line per configuration.
#
# Usage: tests/compile_check.sh [all|quick] (from the repository root)
#   all    (the default; make test-long, CI) every configuration above, each
#          compiling the whole library
#   quick  (make test) what needs no compile of the whole library: the four
#          headers strictly as C99 (gcc, clang) and C++11 (g++, clang++) with
#          -fsyntax-only, with and without OpenMP; FGL_NO_IMPLEMENTATION;
#          the headers are src/'s; the header EXAMPLEs and README's
#          quickstart compiled strictly and linked against build/fgl.o
#          (make builds it) instead of their own copy of the library.
#          Code generation (-O2's warnings, the AVX2 and AVX-512 paths, the
#          two-file link, FGL_STATIC, FGL_MPI) is left to "all".
mode=${1:-all}
case $mode in all|quick) ;; *) echo "usage: tests/compile_check.sh [all|quick]" >&2; exit 2 ;; esac
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
top=$(pwd)
if [ "$mode" = quick ] && [ ! -f "$top/build/fgl.o" ]; then echo "not ok - compile checks: no build/fgl.o (make first)"; exit 1; fi
{ for h in fgl.h fgl_graph.h fgl_gnn.h fgl_fed.h; do echo "#include \"$top/$h\""; done
  echo "int fgl_other_tu(void);"
  echo "int main(void) { return fgl_other_tu(); }"; } > "$tmp/main.c"
{ echo "#define FGL_IMPLEMENTATION"; cat "$tmp/main.c"; } > "$tmp/impl.c"
{ for h in fgl.h fgl_graph.h fgl_gnn.h fgl_fed.h; do echo "#include \"$top/$h\""; done
  echo "int fgl_other_tu(void) { fgl_rng r; fgl_rng_init(&r, 1, 2); return (int)(fgl_rng_u64(&r) & 0); }"; } > "$tmp/other.c"
W="-O2 -Wall -Wextra -Wpedantic -Werror"
W0="-O0 -Wall -Wextra -Wpedantic -Werror" # the examples: compiled to be checked, not to be fast
# Checks run ${FGL_TEST_JOBS:-2} at a time (each in its own files); their
# lines are printed in order at the end.
jobs=${FGL_TEST_JOBS:-2}
n_checks=0
check() { # name, command...
    n_checks=$((n_checks + 1))
    i=$n_checks
    name=$1; shift
    ( if "$@" > "$tmp/$i.log" 2>&1; then echo "ok - compile $name"
      else echo "not ok - compile $name"; sed 's/^/#   /' "$tmp/$i.log" | head -n 20; fi ) > "$tmp/$i.res" &
    if [ $((n_checks % jobs)) -eq 0 ]; then wait; fi
}
if [ "$mode" = quick ]; then
    # the front ends' checks (every warning that needs no optimiser), no code generated
    for omp in "" "-fopenmp"; do
        tag=${omp:-serial}
        for cc in gcc clang; do
            command -v $cc >/dev/null || { echo "skip - compile $cc ($cc not installed)"; continue; }
            check "$cc -std=c99 $tag -fsyntax-only" $cc -std=c99 $W $omp -fsyntax-only "$tmp/impl.c"
        done
        for cxx in g++ clang++; do
            command -v $cxx >/dev/null || { echo "skip - compile $cxx ($cxx not installed)"; continue; }
            check "$cxx -std=c++11 $tag -fsyntax-only" $cxx -x c++ -std=c++11 $W $omp -fsyntax-only "$tmp/impl.c"
        done
    done
else
for omp in "" "-fopenmp"; do
    tag=${omp:-serial}
    for cc in gcc clang; do
        command -v $cc >/dev/null || { echo "skip - compile $cc ($cc not installed)"; continue; }
        check "$cc -std=c99 $tag" $cc -std=c99 $W $omp -c "$tmp/impl.c" -o "$tmp/$cc$tag.o"
    done
    for cxx in g++ clang++; do
        command -v $cxx >/dev/null || { echo "skip - compile $cxx ($cxx not installed)"; continue; }
        check "$cxx -std=c++11 $tag" $cxx -x c++ -std=c++11 $W $omp -c "$tmp/impl.c" -o "$tmp/$cxx$tag.o"
    done
done
fi
# the intrinsics paths (AVX2 + FMA, AVX-512), compiled only, so any x86-64
# machine checks them whatever its own vector units
if [ "$mode" = all ] && [ "$(uname -m)" = x86_64 ]; then
    for arch in haswell skylake-avx512; do
        for cc in gcc clang; do
            command -v $cc >/dev/null && check "$cc -std=c99 -fopenmp -march=$arch" $cc -std=c99 $W -fopenmp -march=$arch -c "$tmp/impl.c" -o "$tmp/$cc$arch.o"
        done
        for cxx in g++ clang++; do
            command -v $cxx >/dev/null && check "$cxx -std=c++11 -fopenmp -march=$arch" $cxx -x c++ -std=c++11 $W -fopenmp -march=$arch -c "$tmp/impl.c" -o "$tmp/$cxx$arch.o"
        done
    done
fi
if [ "$mode" = all ]; then
check "two translation units link (gcc)" sh -c "gcc -std=c99 $W -c '$tmp/impl.c' -o '$tmp/a.o' && gcc -std=c99 $W -c '$tmp/other.c' -o '$tmp/b.o' && gcc '$tmp/a.o' '$tmp/b.o' -o '$tmp/prog' -lm && '$tmp/prog'"
check "FGL_STATIC (gcc)" gcc -std=c99 $W -Wno-unused-function -DFGL_STATIC -c "$tmp/impl.c" -o "$tmp/s.o"
fi
# FGL_NO_IMPLEMENTATION overrides FGL_IMPLEMENTATION: no fgl function defined
# (the Makefile builds every example and test this way against build/fgl.o)
check "FGL_NO_IMPLEMENTATION: declarations only (gcc, nm)" sh -c "gcc -std=c99 $W -DFGL_NO_IMPLEMENTATION -c '$tmp/impl.c' -o '$tmp/n.o' && nm '$tmp/n.o' > '$tmp/n.sym' && grep -q ' T main' '$tmp/n.sym' && ! grep -q ' T fgl_' '$tmp/n.sym'"
# the MPI section (FGL_MPI) with OpenMPI's compiler wrapper, C and C++
if [ "$mode" = quick ]; then
    : # (all)
elif command -v mpicc >/dev/null; then
    check "FGL_MPI (mpicc -std=c99)" mpicc -DFGL_MPI -std=c99 $W -fopenmp -c "$tmp/impl.c" -o "$tmp/mpi.o"
    if command -v g++ >/dev/null; then # OpenMPI's mpicxx wraps g++
        check "FGL_MPI (mpicxx -std=c++11)" mpicxx -DFGL_MPI -x c++ -std=c++11 $W -c "$tmp/impl.c" -o "$tmp/mpicxx.o"
    else echo "skip - compile FGL_MPI as C++ (mpicxx wraps g++, not installed)"; fi
else
    echo "skip - compile FGL_MPI (mpicc not installed: apt-get install libopenmpi-dev openmpi-bin)"
fi
# The headers are what src/ makes (tools/amalgamate): an edit made to a
# header instead of src/ would be lost at the next make. Checked in the work
# tree, and, in a git checkout, in the last commit too (make rewrites stale
# headers before this runs, so only the commit shows what was submitted).
if [ ! -f "$top/src/core/MANIFEST" ]; then
    echo "skip - the headers are generated from src/ (no src/ in this copy)"
else
check "the four headers are generated from src/ (tools/amalgamate)" sh -c "mkdir '$tmp/am' && '$top/tools/amalgamate' '$tmp/am' &&
    for h in fgl.h fgl_graph.h fgl_gnn.h fgl_fed.h; do cmp '$tmp/am/'\$h '$top/'\$h || exit 1; done"
if git -C "$top" rev-parse --verify -q HEAD > /dev/null 2>&1 && git -C "$top" cat-file -e HEAD:src 2> /dev/null; then
    check "the committed headers are what the committed src/ makes" sh -c "mkdir '$tmp/head' '$tmp/head/out' &&
        git -C '$top' archive HEAD src tools/amalgamate | tar -x -C '$tmp/head' && '$tmp/head/tools/amalgamate' '$tmp/head/out' &&
        for h in fgl.h fgl_graph.h fgl_gnn.h fgl_fed.h; do git -C '$top' show HEAD:\$h | cmp - '$tmp/head/out/'\$h || exit 1; done"
fi
# make FGL_LINE=1: #line directives make a compiler name the file under src/ and its line. A copy
# of src/ with an error planted at a known line of a method's file (its line 7) must be reported
# there, and the committed headers carry no #line (they are what plain tools/amalgamate makes, above).
# It compiles the whole of fgl_fed.h: make test-long's "all" only
# (the probe goes after the file's last line, an include of src/alone.h that the header drops: the
# mapping holds past a dropped line)
[ "$mode" = all ] && check "FGL_LINE=1: an error in src/fed/algos/local.h is reported at src/fed/algos/local.h:10" sh -c "
    mkdir '$tmp/ln' && cp -R '$top/src' '$top/tools' '$tmp/ln/' &&
    [ \$(wc -l < '$tmp/ln/src/fed/algos/local.h') = 9 ] &&
    echo 'static int fgl__line_probe(void) { return fgl_line_probe_undeclared; }' >> '$tmp/ln/src/fed/algos/local.h' &&
    FGL_LINE=1 '$tmp/ln/tools/amalgamate' && ! grep -q '^#line' '$top/fgl_fed.h' &&
    printf '#define FGL_IMPLEMENTATION\\n#include \"fgl_fed.h\"\\n' > '$tmp/ln/t.c' &&
    ! cc -std=c99 -fsyntax-only -I'$tmp/ln' '$tmp/ln/t.c' 2> '$tmp/ln/err' &&
    grep -q 'src/fed/algos/local.h:10:.*fgl_line_probe_undeclared' '$tmp/ln/err'"
fi
# Each header's top-of-file EXAMPLE, exactly as written (the indented lines
# after "EXAMPLE"), as the body of main(); fgl.h's, which needs no data, also runs.
for h in fgl.h fgl_graph.h fgl_gnn.h fgl_fed.h; do
    { echo "#define FGL_IMPLEMENTATION"; echo "#include \"$top/$h\""; echo "#include <stdio.h>"; echo "#include <stdlib.h>"
      echo "int main(void) {"
      awk '/^ \* EXAMPLE/ { f = 1; next } f && /^ \*       / { f = 2; print substr($0, 10); next } f == 2 { exit }' "$top/$h"
      echo "    return 0;"; echo "}"; } > "$tmp/example_$h.c"
    if [ "$(wc -l < "$tmp/example_$h.c")" -lt 10 ]; then echo "not ok - $h has no EXAMPLE block"; continue; fi
    if [ "$mode" = quick ]; then # the example's code, the library from build/fgl.o
        case $h in
            fgl.h) check "$h's example compiles and runs (linked with build/fgl.o)" sh -c "gcc -std=c99 $W0 -fopenmp -DFGL_NO_IMPLEMENTATION '$tmp/example_$h.c' '$top/build/fgl.o' -o '$tmp/ex_$h' -lm && '$tmp/ex_$h'" ;;
            *) check "$h's example (gcc, g++; -fsyntax-only)" sh -c "gcc -std=c99 $W0 -fopenmp -DFGL_NO_IMPLEMENTATION -fsyntax-only '$tmp/example_$h.c' &&
                   g++ -x c++ -std=c++11 $W0 -DFGL_NO_IMPLEMENTATION -fsyntax-only '$tmp/example_$h.c'" ;;
        esac
        continue
    fi
    case $h in
        fgl.h) check "$h's example compiles and runs" sh -c "gcc -std=c99 $W0 -fopenmp '$tmp/example_$h.c' -o '$tmp/ex_$h' -lm && '$tmp/ex_$h'" ;;
        *) check "$h's example (gcc, g++)" sh -c "gcc -std=c99 $W0 -fopenmp -c '$tmp/example_$h.c' -o '$tmp/ex_$h.o' &&
               g++ -x c++ -std=c++11 $W0 -c '$tmp/example_$h.c' -o '$tmp/exx_$h.o'" ;;
    esac
done
# README's quickstart, exactly as written (the first ```c block).
awk '/^```c$/{f=1; next} /^```$/{if (f) exit} f' README.md > "$tmp/quickstart.c"
if [ -s "$tmp/quickstart.c" ] && [ "$mode" = quick ]; then
    check "README quickstart (gcc, linked with build/fgl.o)" gcc -std=c99 $W -fopenmp -I"$top" -DFGL_NO_IMPLEMENTATION "$tmp/quickstart.c" "$top/build/fgl.o" -o "$tmp/quickstart" -lm
elif [ -s "$tmp/quickstart.c" ]; then
    check "README quickstart (gcc)" gcc -std=c99 $W -fopenmp -I"$top" "$tmp/quickstart.c" -o "$tmp/quickstart" -lm
else
    echo "not ok - README has no C quickstart block"
fi
wait
i=1
while [ $i -le $n_checks ]; do cat "$tmp/$i.res"; i=$((i + 1)); done
