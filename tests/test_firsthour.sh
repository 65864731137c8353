#!/bin/sh
# A new user's first hour with fglrun (issue 39), on fgl's synthetic data
# and two tiny TU datasets this script writes (no datasets needed):
#  - errors before work: every --algo is checked against the data before
#    the first run (fedavg,fedpub,fedstar on node data fails at once,
#    nothing run, nothing written); a misspelt algorithm gets a suggestion;
#  - a later run that still fails (a parameter only its own start checks)
#    leaves the table, result.json and plots of the runs that finished;
#  - --out a/b creates its parents, and a reused --out keeps no file of an
#    earlier run (the user's own files stay);
#  - --quiet silences progress, not the table; --version; one seed prints
#    no "+- 0.00";
#  - the data directory rule: $FGL_DATA, else ./data, else
#    $XDG_DATA_HOME/fgl (~/.local/share/fgl), and a dataset not found names
#    every directory tried;
#  - clients that are datasets (--data A,B) are named by them in the CSV,
#    clients.svg and the heatmap; the plots scale to their window.
# Usage: tests/test_firsthour.sh BUILD_DIR (holding fglrun)
B=${1:-build}
FGLRUN=$(cd "$(dirname "$B/fglrun")" && pwd)/fglrun
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
S="--data synthetic --clients 4 --rounds 2 --threads 1"

# --- errors before work ---
if $FGLRUN --algo fedavg,fedpub,fedstar $S --out "$tmp/never" > "$tmp/out" 2> "$tmp/err"; then
    echo "not ok - fedstar on node data must be refused"
elif grep -q "graph classification only" "$tmp/err" && grep -q "nothing was run" "$tmp/err" &&
     ! grep -q " round " "$tmp/err" && [ ! -e "$tmp/never" ] && ! grep -q "^fedavg " "$tmp/out"; then
    echo "ok - --algo fedavg,fedpub,fedstar on node data is refused before the first run (nothing run or written)"
else
    echo "not ok - --algo fedavg,fedpub,fedstar on node data: refused before the first run"; sed 's/^/#   /' "$tmp/err" | head -5
fi
$FGLRUN --algo FedAvg $S > /dev/null 2> "$tmp/err"; st=$?
if [ $st = 2 ] && grep -q "unknown algorithm 'FedAvg'; did you mean 'fedavg'?" "$tmp/err"; then
    echo "ok - --algo FedAvg: exit status 2, 'did you mean fedavg?'"
else echo "not ok - --algo FedAvg (status $st): $(head -n 1 "$tmp/err")"; fi
$FGLRUN --algo fedavg --lr 0 $S > /dev/null 2> "$tmp/err"; st=$?
if [ $st = 2 ] && grep -q -- "--lr needs a number > 0 (at most 1e+06), not '0'" "$tmp/err"; then echo "ok - --lr 0: exit status 2, the range said"
else echo "not ok - --lr 0 (status $st): $(head -n 1 "$tmp/err")"; fi
$FGLRUN --algo fedprx $S > /dev/null 2> "$tmp/err"
if grep -q "did you mean 'fedprox'" "$tmp/err"; then echo "ok - --algo fedprx: 'did you mean fedprox?'"
else echo "not ok - --algo fedprx: $(head -n 1 "$tmp/err")"; fi
# a later run fails at its own start (FedAMP's sigma, checked by its server): the finished runs are reported
$FGLRUN --algo fedavg,fedprox,fedamp --set fedamp.sigma=0 $S --out "$tmp/part" > "$tmp/out" 2> "$tmp/err"; st=$?
if [ $st = 1 ] && grep -q "sigma" "$tmp/err" && grep -q "^fedavg " "$tmp/out" && grep -q "^fedprox " "$tmp/out" &&
   grep -q "^fedamp .*not run" "$tmp/out" && grep -q '"status": "failed"' "$tmp/part/result.json" &&
   grep -q '"algo": "fedprox"' "$tmp/part/result.json" && ! grep -q '"algo": "fedamp"' "$tmp/part/result.json" &&
   [ -s "$tmp/part/curves.svg" ] && [ -s "$tmp/part/clients.svg" ] && [ -s "$tmp/part/bytes.svg" ] &&
   grep -q '"status": "failed"' "$tmp/part/progress.json"; then
    echo "ok - a run that fails after others finished: exit 1, with their table, result.json and plots"
else
    echo "not ok - a later run fails (status $st): the finished runs are reported"
    sed 's/^/#   /' "$tmp/err" "$tmp/out" | grep -v ' round ' | head -8; ls "$tmp/part" 2>&1 | sed 's/^/#   /'
fi
if $FGLRUN --algo fedavg,fedamp --set fedamp.sigma=0 $S --json --quiet > "$tmp/out" 2> /dev/null; then
    echo "not ok - --json with a failed run must exit 1"
elif tail -n 1 "$tmp/out" | grep -q '^{"result_version": 2, "runs": \[{"algo": "fedavg".*"status": "failed"'; then
    echo "ok - --json with a failed run: the finished runs and \"status\": \"failed\" on the last line"
else echo "not ok - --json with a failed run: $(tail -n 1 "$tmp/out" | cut -c1-200)"; fi

# --- --out, --quiet, --version, one seed ---
if $FGLRUN --algo fedavg,fedprox $S --out "$tmp/a/b/c" --quiet > "$tmp/out" 2> "$tmp/err" &&
   [ -s "$tmp/a/b/c/result.json" ] && [ -s "$tmp/a/b/c/fedprox_seed1_rounds.csv" ]; then
    echo "ok - --out a/b/c creates the missing parents"
else echo "not ok - --out a/b/c creates the missing parents"; sed 's/^/#   /' "$tmp/err" | head -3; fi
if grep -q "^fedavg " "$tmp/out" && grep -q "^fedprox " "$tmp/out" && ! grep -q " round [0-9]" "$tmp/out" &&
   ! grep -q "^synthetic: " "$tmp/out"; then
    echo "ok - --quiet without --json prints the table (and no progress)"
else echo "not ok - --quiet without --json prints the table"; sed 's/^/#   /' "$tmp/out" | head -5; fi
echo "mine" > "$tmp/a/b/c/notes.txt"
$FGLRUN --algo fedavg $S --out "$tmp/a/b/c" --quiet > /dev/null 2>&1
if [ ! -e "$tmp/a/b/c/fedprox_seed1_rounds.csv" ] && [ -s "$tmp/a/b/c/fedavg_seed1_rounds.csv" ] &&
   [ -s "$tmp/a/b/c/notes.txt" ] && ! grep -q fedprox "$tmp/a/b/c/result.json"; then
    echo "ok - a reused --out keeps no file of the earlier run, and keeps the user's own"
else echo "not ok - a reused --out: $(ls "$tmp/a/b/c" | tr '\n' ' ')"; fi
if $FGLRUN --algo fedavg $S --json --quiet > "$tmp/out" 2> /dev/null && [ "$(wc -l < "$tmp/out")" = 1 ]; then
    echo "ok - --quiet --json prints the JSON line alone"
else echo "not ok - --quiet --json prints the JSON line alone ($(wc -l < "$tmp/out") lines)"; fi
if $FGLRUN --version > "$tmp/out" 2>&1 && grep -q "^fglrun (fgl [0-9][0-9.]*), commit [0-9a-z-]*$" "$tmp/out"; then
    echo "ok - --version: $(cat "$tmp/out")"
else echo "not ok - --version: $(cat "$tmp/out")"; fi
$FGLRUN --algo fedavg $S > "$tmp/one" 2> /dev/null
$FGLRUN --algo fedavg $S --seeds 2 > "$tmp/two" 2> /dev/null
if grep -q "^fedavg " "$tmp/one" && ! grep -q "+-" "$tmp/one" && grep -q "one seed" "$tmp/one" &&
   grep -q "^fedavg .*+-" "$tmp/two"; then
    echo "ok - one seed: the accuracy without +- 0.00; two seeds: mean +- std"
else echo "not ok - one seed prints no +- 0.00"; sed 's/^/#   /' "$tmp/one" | tail -4; fi

# --- the data directory rule, from a directory other than the repository ---
# two tiny TU datasets: 40 graphs each, cycles (class 0) and stars (class 1), node labels 0..2
mktu() { # DIR NAME SEED
    mkdir -p "$1/$2"
    awk -v dir="$1/$2" -v name="$2" -v seed="$3" 'BEGIN {
        srand(seed); node = 0
        for (g = 1; g <= 40; g++) {
            n = 5 + int(rand() * 4); c = g % 2; first = node + 1
            for (i = 1; i <= n; i++) { node++; print g > (dir "/" name "_graph_indicator.txt")
                                       print int(rand() * 3) > (dir "/" name "_node_labels.txt") }
            for (i = 0; i < n; i++) {
                if (c == 0) { a = first + i; b = first + (i + 1) % n } else { if (i == 0) continue; a = first; b = first + i }
                print a ", " b > (dir "/" name "_A.txt"); print b ", " a > (dir "/" name "_A.txt")
            }
            print c > (dir "/" name "_graph_labels.txt")
        } }'
}
mkdir -p "$tmp/data/tu" "$tmp/elsewhere" "$tmp/home" "$tmp/xdg/fgl/tu"
mktu "$tmp/data/tu" ALPHA 1; mktu "$tmp/data/tu" BETA 2; mktu "$tmp/xdg/fgl/tu" GAMMA 3
G="--algo local,fedavg,fedpub --split per-dataset --rounds 2 --batch 16 --threads 1"
if (cd "$tmp/elsewhere" && FGL_DATA=$tmp/data $FGLRUN $G --data ALPHA,BETA --out out > "$tmp/out" 2> "$tmp/err") &&
   head -n 1 "$tmp/elsewhere/out/fedavg_seed1_rounds.csv" | grep -q ',dataset$' &&
   grep -q ',ALPHA$' "$tmp/elsewhere/out/fedavg_seed1_rounds.csv" && grep -q ',BETA$' "$tmp/elsewhere/out/fedavg_seed1_rounds.csv" &&
   grep -q '>ALPHA</text>' "$tmp/elsewhere/out/clients.svg" && grep -q '>1:BETA</text>' "$tmp/elsewhere/out/fedpub_seed1_matrix.svg"; then
    echo "ok - FGL_DATA from another directory; clients that are datasets are named by them (CSV, clients.svg, heatmap)"
else
    echo "not ok - FGL_DATA from another directory, clients named by dataset"; sed 's/^/#   /' "$tmp/err" | grep -v ' round ' | head -5
fi
if (cd "$tmp" && env -u FGL_DATA HOME="$tmp/home" XDG_DATA_HOME= $FGLRUN $G --data ALPHA --split dirichlet --clients 2 \
        > /dev/null 2> "$tmp/err"); then
    echo "ok - without FGL_DATA, ./data is the data directory"
else echo "not ok - without FGL_DATA, ./data is the data directory"; sed 's/^/#   /' "$tmp/err" | head -3; fi
if (cd "$tmp/elsewhere" && env -u FGL_DATA XDG_DATA_HOME="$tmp/xdg" $FGLRUN $G --data GAMMA --split dirichlet --clients 2 \
        > /dev/null 2> "$tmp/err"); then
    echo "ok - without FGL_DATA or ./data, \$XDG_DATA_HOME/fgl is the data directory"
else echo "not ok - \$XDG_DATA_HOME/fgl is the data directory"; sed 's/^/#   /' "$tmp/err" | head -3; fi
(cd "$tmp/elsewhere" && env -u FGL_DATA -u XDG_DATA_HOME HOME="$tmp/home" $FGLRUN --data Cora > /dev/null 2> "$tmp/err")
if grep -q "FGL_DATA is not set" "$tmp/err" && grep -q "./data does not exist" "$tmp/err" &&
   grep -q "$tmp/home/.local/share/fgl does not exist" "$tmp/err" && grep -q "make data DATASETS=Cora" "$tmp/err"; then
    echo "ok - a dataset not found names every directory tried and the make data command: $(cat "$tmp/err")"
else echo "not ok - a dataset not found names every directory tried: $(cat "$tmp/err")"; fi
(cd "$tmp/elsewhere" && FGL_DATA=$tmp/nowhere $FGLRUN --data Cora > /dev/null 2> "$tmp/err")
if grep -q "FGL_DATA=$tmp/nowhere (does not exist)" "$tmp/err"; then echo "ok - FGL_DATA naming no directory is said"
else echo "not ok - FGL_DATA naming no directory: $(cat "$tmp/err")"; fi

# --- plots scale to their window ---
n=0
for f in "$tmp/elsewhere/out/"*.svg; do
    head -n 1 "$f" | grep -q '^<svg [^>]*width="100%" viewBox="0 0 [0-9]* [0-9]*"' || n=$((n + 1))
done
if [ $n = 0 ]; then echo "ok - every SVG has a viewBox and width 100% (it scales to its window)"
else echo "not ok - $n SVGs with a fixed size"; fi

# --- the quickstart offline (issue 50): README's block compiled from outside the repository with -I, run with
# no dataset: it says where it looked and how to get Cora, and runs on synthetic data ---
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$tmp/qs"
awk '/^```c$/{f=1; next} /^```$/{if (f) exit} f' "$top/README.md" > "$tmp/qs/quickstart.c"
if [ -f "$top/$B/fgl.o" ] || [ -f "$B/fgl.o" ]; then
    obj=$(cd "$(dirname "$B/fgl.o")" && pwd)/fgl.o
    if (cd "$tmp/qs" && cc -std=c99 -fopenmp -I "$top" -DFGL_NO_IMPLEMENTATION quickstart.c "$obj" -o quickstart -lm \
            2> "$tmp/err" && env -u XDG_DATA_HOME HOME="$tmp/home" FGL_DATA="$tmp/nowhere" OMP_NUM_THREADS=1 ./quickstart \
            > "$tmp/out" 2>> "$tmp/err") &&
       grep -q "running on synthetic data instead (for Cora: make data, or FGL_DATA=DIR)" "$tmp/err" &&
       grep -q "^FedAvg on synthetic: [0-9.]*% mean client test accuracy" "$tmp/out"; then
        echo "ok - README's quickstart, built outside the repository, runs offline: $(cat "$tmp/out")"
    else echo "not ok - README's quickstart offline"; sed 's/^/#   /' "$tmp/err" | head -5; fi
else echo "ok - # SKIP README's quickstart offline: no $B/fgl.o"; fi
# a make data that cannot fetch anything leaves no empty data directory behind, and names FGL_DATA
if FGL_DATA="$tmp/fresh" FGL_DATA_URL="file://$tmp/no-mirror" sh "$top/tools/fetch_data.sh" Cora > "$tmp/out" 2>&1; then
    echo "not ok - make data from a mirror that does not exist succeeded"
elif [ ! -e "$tmp/fresh" ] && grep -q "set FGL_DATA to a directory that already holds the datasets" "$tmp/out"; then
    echo "ok - a failed make data leaves nothing behind and points at FGL_DATA"
else echo "not ok - a failed make data: $(ls -a "$tmp/fresh" 2>&1 | tr '\n' ' ') $(tail -n 2 "$tmp/out")"; fi
# --algo fedgcn is FedGCN: without --halo it takes the paper's 2 hops (said, and the exchange happens); in a list
# with other algorithms (which cannot take a halo) it is refused with the flags to add
if $FGLRUN --algo fedgcn $S --json > "$tmp/out" 2> "$tmp/err" && grep -q "fedgcn: --halo 2, the paper's 2-hop" "$tmp/err" &&
   grep -q '"exchange": "sent"' "$tmp/out"; then echo "ok - --algo fedgcn without --halo exchanges 2-hop halos, and says so"
else echo "not ok - --algo fedgcn without --halo"; sed 's/^/#   /' "$tmp/err" | grep -v " round " | head -3; fi
$FGLRUN --algo fedavg,fedgcn $S > /dev/null 2> "$tmp/err"; st=$?
if [ $st = 2 ] && grep -q "run fedgcn alone (--halo 2 by default), or give --set fedgcn.hops=0" "$tmp/err"; then
    echo "ok - --algo fedavg,fedgcn without --halo is refused with the flags to add"
else echo "not ok - --algo fedavg,fedgcn without --halo (status $st): $(head -n 1 "$tmp/err")"; fi
