#!/bin/sh
# tests/newcomer.sh - the first hour of three new users, played on a fresh
# clone of this repository with no network and no dataset (issue 50), each
# step with its wall time:
#  - a researcher builds fglrun, runs FedAvg under secure aggregation and
#    replays the run from its record (it must be identical);
#  - an embedder compiles README's quickstart from outside the repository
#    with gcc and clang (C99) and g++ (C++), each with the library compiled
#    in, and runs it offline (it must fall back to synthetic data);
#  - a teacher grades two students whose folders share a last name (bob/hw
#    with a correct a1, alice/hw with a wrong one whose file is older) and
#    each gets their own grade.
# Usage: tests/newcomer.sh (from the repository; make test-long runs it).
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N 2>/dev/null | sed 's/\.N$//'; }
t0=$(now)
# tick: the seconds since the last tick into $el (called outside $(...), which would lose t0)
tick() { t1=$(now); el=$(echo "$t0 $t1" | awk '{printf "%.1f s", $2 - $1}'); t0=$t1; }
export HOME="$tmp/home" OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
unset FGL_DATA XDG_DATA_HOME
if ! git clone -q "$top" "$tmp/fgl" 2> "$tmp/err"; then
    echo "ok - # SKIP newcomer: $top cannot be cloned ($(head -n 1 "$tmp/err"))"; exit 0
fi
cd "$tmp/fgl" || exit 1
tick
echo "# a fresh clone in $el"

# --- the researcher ---
if make -s -j2 build/fglrun > "$tmp/out" 2>&1; then tick; echo "ok - researcher: make build/fglrun ($el)"
else echo "not ok - researcher: make build/fglrun"; tail -n 5 "$tmp/out" | sed 's/^/#   /'; exit 0; fi
if ./build/fglrun --algo fedavg --data synthetic --clients 5 --rounds 5 --secagg --secagg-dropout 0.2 --secagg-threshold 3 \
        --json --quiet > "$tmp/run.json" 2> "$tmp/err" &&
   ./build/fglrun --config "$tmp/run.json" --json --quiet > /dev/null 2> "$tmp/err" &&
   grep -q "identical to the record" "$tmp/err"; then
    tick
    echo "ok - researcher: a --secagg run with dropouts replays identically from its record ($el)"
else echo "not ok - researcher: a --secagg run replayed"; sed 's/^/#   /' "$tmp/err" | head -5; fi

# --- the embedder: README's quickstart, outside the repository, offline ---
mkdir -p "$tmp/app"
awk '/^```c$/{f=1; next} /^```$/{if (f) exit} f' README.md > "$tmp/app/quickstart.c"
for cc in "gcc -std=c99" "clang -std=c99" "g++ -x c++"; do
    name=$(echo "$cc" | cut -d' ' -f1)
    if ! command -v "$name" > /dev/null; then echo "ok - # SKIP embedder: no $name"; continue; fi
    if (cd "$tmp/app" && $cc -O2 -fopenmp -Wall -Wextra -Wpedantic -I "$tmp/fgl" quickstart.c -o "q-$name" -lm 2> "$tmp/err" &&
        [ ! -s "$tmp/err" ] && OMP_NUM_THREADS=2 "./q-$name" > "$tmp/q-$name.out" 2> "$tmp/err") &&
       grep -q "running on synthetic data instead" "$tmp/err" && grep -q "^FedAvg on synthetic: " "$tmp/q-$name.out"; then
        tick
        echo "ok - embedder: the quickstart under $cc, warning-free, offline: $(cat "$tmp/q-$name.out") ($el)"
    else echo "not ok - embedder: the quickstart under $cc"; sed 's/^/#   /' "$tmp/err" | head -5; tick; fi
done

# --- the teacher: two students, one folder name ---
mkdir -p "$tmp/s/bob/hw" "$tmp/s/alice/hw"
cp course/teacher/solutions/a1_trimmed.c "$tmp/s/bob/hw/"
cp "$top/tests/course_mutants/a1_trimmed-weighted.c" "$tmp/s/alice/hw/a1_trimmed.c" &&
    touch -t 200001010000 "$tmp/s/alice/hw/a1_trimmed.c"
bob=$(make -s -C course grade WORK="$tmp/s/bob/hw" A=a1 2> /dev/null | sed -n 's/^score: //p')
alice=$(make -s -C course grade WORK="$tmp/s/alice/hw" A=a1 2> /dev/null | sed -n 's/^score: //p')
if [ "$bob" = "20/20" ] && [ "$alice" = "0/20" ]; then
    tick
    echo "ok - teacher: bob/hw scores $bob and alice/hw (an older, wrong a1) $alice, each their own ($el)"
else echo "not ok - teacher: bob/hw '$bob' (want 20/20), alice/hw '$alice' (want 0/20)"; fi
