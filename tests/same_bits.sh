#!/bin/sh
# Same bits: fglrun as committed at the reference commit (tests/bits_ref) and
# fglrun as built here give the same results, on every task, every registered
# algorithm and every defence. A change that moves code (a refactor, a file
# split, a layer move) must pass it; a change that alters results on purpose
# names its commit in tests/bits_ref afterwards, saying why.
#
# The cases (fgl's synthetic data, a few rounds each): every node, graph and
# link algorithm; partial participation; a robust rule under attack; DP with
# recorded secrets (--secret-seed, so that the noise repeats); secure
# aggregation with dropouts; FedGCN's halo; the heterophily backbone (SAGE,
# residual, layer norm) on OpenFGL's Louvain-plus split; and a run resumed
# from its checkpoint. MPI needs no case here: tests/test_mpi.sh checks that
# fglrun_mpi gives fglrun's bits.
#
# What is compared: every "name": number member of the results (the runs,
# not the recorded configuration, which names the commit), in order, with
# the wall-clock and memory figures left out, and only the members that both
# builds write (a newer fglrun may report more). An algorithm that the
# reference does not know is listed, not compared.
#
# Usage: tests/same_bits.sh [BUILD_DIR [REF]]: BUILD_DIR holds fglrun (default
# build); REF a commit (default: the first word of tests/bits_ref). The
# reference is built from `git archive REF` in a temporary folder (about half
# a minute on 2 cores). Without git or without REF in this clone (a shallow
# or exported copy) the check is skipped, and says why.
B=${1:-build}
top=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
ref=${2:-$(sed -n '1s/ .*//p' "$top/tests/bits_ref" 2> /dev/null)}
FGLRUN=$B/fglrun
[ -x "$FGLRUN" ] || { echo "not ok - same bits: no $FGLRUN (make build/fglrun first)"; exit 1; }
if [ -z "$ref" ]; then echo "not ok - same bits: tests/bits_ref names no commit"; exit 1; fi
if ! git -C "$top" cat-file -e "$ref^{commit}" 2> /dev/null; then
    echo "skip - same bits: the reference commit $ref is not in this copy (no git history: a shallow or exported clone)"
    exit 0
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/ref"
if ! git -C "$top" archive "$ref" | tar -x -C "$tmp/ref" ||
   ! env -u MAKEFLAGS -u MAKELEVEL make -s -C "$tmp/ref" build/fglrun > "$tmp/build.log" 2>&1; then
    echo "not ok - same bits: building fglrun at $ref failed"; sed 's/^/#   /' "$tmp/build.log" | tail -n 5
    exit 1
fi
REF=$tmp/ref/build/fglrun
echo "# reference: fglrun at $ref ($(git -C "$top" log -1 --format='%cs %s' "$ref" | cut -c1-80))"

# figures FILE: the results' numeric members, one "name: value" a line, in
# order; the recorded configuration ("config": {...}, the last member), the
# wall-clock seconds and the memory figures left out
figures() {
    sed 's/, "config": {.*//' "$1" | tr ',{}[]' '\n\n\n\n\n' |
        sed -n 's/^ *"\([a-z_0-9]*\)": \(-\{0,1\}[0-9][0-9.e+-]*\|null\|true\|false\)$/\1: \2/p' |
        grep -v '^seconds\|_seconds:\|^peak_rss_mb\|^data_rss_mb'
}
# common A B: the lines of figures A whose member name also appears in B's
common() {
    cut -d: -f1 "$2" | sort -u > "$tmp/names"
    awk -F: 'NR == FNR { keep[$1] = 1; next } keep[$1]' "$tmp/names" "$1"
}
# check LABEL ARGS...: both builds, the same figures
check() {
    label=$1; shift
    $REF "$@" --json --quiet > "$tmp/a.json" 2> "$tmp/a.err"; ra=$?
    $FGLRUN "$@" --json --quiet > "$tmp/b.json" 2> "$tmp/b.err"; rb=$?
    figures "$tmp/a.json" > "$tmp/a.fig"; figures "$tmp/b.json" > "$tmp/b.fig"
    common "$tmp/a.fig" "$tmp/b.fig" > "$tmp/a.com"; common "$tmp/b.fig" "$tmp/a.fig" > "$tmp/b.com"
    n=$(wc -l < "$tmp/a.com")
    if [ $ra -eq 0 ] && [ $rb -eq 0 ] && [ "$n" -gt 0 ] && cmp -s "$tmp/a.com" "$tmp/b.com"; then
        echo "ok - same bits, $label ($n figures)"
    else
        echo "not ok - same bits, $label (exit $ra at $ref, $rb here; $n figures)"
        diff "$tmp/a.com" "$tmp/b.com" | head -n 6 | sed 's/^/#   /'
        cat "$tmp/a.err" "$tmp/b.err" | grep -v '^#' | head -n 4 | sed 's/^/#   /'
    fi
}

known=$($REF --help | sed -n 's/^Algorithms: //p')
here=$($FGLRUN --help | sed -n 's/^Algorithms: //p')
new=
for a in $here; do case " $known " in *" $a "*) ;; *) new="$new $a" ;; esac; done
[ -n "$new" ] && echo "# new since $ref, not compared:$new"
# the algorithms both know, by task (the node-only and graph-only ones as tests/test_mpi.sh lists them)
algos=$(for a in $here; do case " $known " in *" $a "*) echo "$a" ;; esac; done)
only() { echo "$algos" | grep -vxE "$1" | paste -sd, -; }
NODE_ONLY='pfedgnn|fedgcn|fedsage|fedgta|adafgl|fgssl|fedtad|fggp|fedgl|feddep'
node=$(only 'fedstar|gpfl|fedgcn')
graph=$(only "$NODE_ONLY")
link=$(only "fedproto|fedtgp|gpfl|fedpg|fedstar|$NODE_ONLY")

check "node task, every algorithm" --algo "$node" --data synthetic --clients 5 --rounds 3 \
    --set gcfl.warmup=1 --set gcflplus.warmup=1
check "graph task, every algorithm" --algo "$graph" --task graph --data synthetic --clients 4 --rounds 2 --batch 32
check "link task, every algorithm" --algo "$link" --task link --data synthetic --clients 4 --rounds 2
check "partial participation, two seeds" --algo fedavg,scaffold,fedproto,pfedgraph --data synthetic --clients 6 \
    --rounds 4 --frac 0.5 --eval-every 2 --seeds 2
check "robust median under ALIE" --algo fedavg --data synthetic --clients 6 --rounds 3 --robust median --attack alie \
    --attackers 0.34
check "trimmed mean under a scaling attack, screening" --algo fedavg,fedprox --data synthetic --clients 6 --rounds 3 \
    --robust trimmed:1 --attack scale:10 --attackers 0.34 --screen 5
check "DP-FedAvg, recorded secrets" --algo fedavg,fedper --data synthetic --clients 5 --rounds 3 \
    --dp clip=1,noise=0.5 --secret-seed 3
check "secure aggregation with dropouts, recorded secrets" --algo fedavg --data synthetic --clients 6 --rounds 3 \
    --secagg --secagg-dropout 0.3 --secagg-threshold 4 --secret-seed 5
check "FedGCN with its halo" --algo fedgcn --data synthetic --clients 5 --rounds 4 --halo 2
check "SAGE, residual, layer norm, Louvain-plus" --algo fedavg,fedtad,adafgl --data synthetic --clients 4 --rounds 3 \
    --model sage --residual --norm layer --split louvain-plus
# a run stopped after round 2 and resumed from its checkpoint (each build its own file)
$REF --algo fedpub --data synthetic --clients 4 --rounds 4 --checkpoint "$tmp/a.ckpt" --stop-after 2 --quiet \
    > /dev/null 2>&1
$FGLRUN --algo fedpub --data synthetic --clients 4 --rounds 4 --checkpoint "$tmp/b.ckpt" --stop-after 2 --quiet \
    > /dev/null 2>&1
mv "$tmp/a.ckpt" "$tmp/ckpt"; cp "$tmp/b.ckpt" "$tmp/b.keep"
# (each build resumes its own build's checkpoint, placed at one path in turn: the checkpoint names its path)
check_resume() {
    cp "$tmp/ckpt" "$tmp/run.ckpt"
    # (not --quiet: fglrun says on stderr that it resumed; the JSON is stdout's last line)
    $REF --algo fedpub --data synthetic --clients 4 --rounds 4 --checkpoint "$tmp/run.ckpt" --json \
        2> "$tmp/a.err" | tail -n 1 > "$tmp/a.json"; ra=$?
    cp "$tmp/b.keep" "$tmp/run.ckpt"
    $FGLRUN --algo fedpub --data synthetic --clients 4 --rounds 4 --checkpoint "$tmp/run.ckpt" --json \
        2> "$tmp/b.err" | tail -n 1 > "$tmp/b.json"; rb=$?
    figures "$tmp/a.json" > "$tmp/a.fig"; figures "$tmp/b.json" > "$tmp/b.fig"
    common "$tmp/a.fig" "$tmp/b.fig" > "$tmp/a.com"; common "$tmp/b.fig" "$tmp/a.fig" > "$tmp/b.com"
    n=$(wc -l < "$tmp/a.com")
    if [ $ra -eq 0 ] && [ $rb -eq 0 ] && [ "$n" -gt 0 ] && cmp -s "$tmp/a.com" "$tmp/b.com" &&
       grep -q 'resumed .* at round 2' "$tmp/a.err" && grep -q 'resumed .* at round 2' "$tmp/b.err"; then
        echo "ok - same bits, FED-PUB resumed from its checkpoint after round 2 of 4 ($n figures)"
    else
        echo "not ok - same bits, FED-PUB resumed from its checkpoint (exit $ra at $ref, $rb here; $n figures)"
        diff "$tmp/a.com" "$tmp/b.com" | head -n 6 | sed 's/^/#   /'
        grep -v '^#' "$tmp/b.err" | head -n 3 | sed 's/^/#   /'
    fi
}
check_resume
