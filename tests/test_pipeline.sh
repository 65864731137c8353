#!/bin/sh
# fglrun's pipeline options for FED-PUB's own protocol (issue 37), end to
# end on fgl's synthetic data (no datasets needed):
#  - --write-metis writes the graph fglrun splits in METIS's format;
#  - --partition-file: a good file gives exactly its clients (--info); a
#    wrong line count, an id out of range, an empty part, garbage, a
#    --clients that disagrees are refused with the file and line named,
#    exit status 1 (the data's kind of error), before any run; flags that
#    contradict it (--split louvain, --split given without a file) exit 2;
#    /dev/zero, a FIFO and a 2 GB sparse file are refused at once (issue 49);
#  - --split-global: the same seed gives the same bits, at 1 and 2 threads;
#    the per-client split gives other numbers;
#  - fedavg --set weights=equal gives another result than the default on
#    unequal clients;
#  - the records carry --partition-file, --split-global and weights=equal
#    (by name) and --config replays them to identical results; a partition
#    file changed since the record is reported.
# Usage: tests/test_pipeline.sh BUILD_DIR (holding fglrun)
B=${1:-build}
FGLRUN=$B/fglrun
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
D="--data synthetic:600 --rounds 4 --quiet --json"
strip() { sed 's/"seconds[a-z_]*": [0-9.]*//g; s/, "\(peak\|data\)_rss_mb": [0-9.]*//g; s/, "config": .*$/}/' "$1"; }
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; [ -f "$tmp/err" ] && sed 's/^/#   /' "$tmp/err" | head -5; }

# --write-metis: "n m" then one line per node
if $FGLRUN --data synthetic:600 --write-metis "$tmp/g.graph" > "$tmp/out" 2> "$tmp/err" &&
   [ "$(head -1 "$tmp/g.graph" | cut -d' ' -f1)" = 600 ] && [ "$(wc -l < "$tmp/g.graph")" -eq 601 ] &&
   grep -q "gpmetis" "$tmp/out"; then
    ok "fglrun --write-metis writes the graph in METIS's format"
else nok "fglrun --write-metis writes the graph in METIS's format"; fi

# a good file: three clients of unequal sizes (60, 180, 360 nodes)
awk 'BEGIN { for (i = 0; i < 600; i++) print (i % 10 == 0 ? 0 : i % 10 < 4 ? 1 : 2) }' > "$tmp/p3"
if $FGLRUN --algo fedavg --data synthetic:600 --partition-file "$tmp/p3" --info > "$tmp/info" 2> "$tmp/err" &&
   grep -q '"split": "given", "clients": 3' "$tmp/info" &&
   [ "$(grep -o '"nodes": [0-9]*, "edges"' "$tmp/info" | sed 's/[^0-9]//g' | tr '\n' ' ')" = "600 60 180 360 " ]; then
    ok "fglrun --partition-file gives exactly the file's clients"
else nok "fglrun --partition-file gives exactly the file's clients: $(cut -c1-300 "$tmp/info")"; fi

# bad files: status 1, the file and what is wrong named, nothing run
bad_file() { # NAME EXPECTED-TEXT [FLAGS]: the file $tmp/bad
    name=$1; want=$2; shift 2
    $FGLRUN --algo fedavg $D --partition-file "$tmp/bad" "$@" > "$tmp/out" 2> "$tmp/err"; st=$?
    if [ $st -eq 1 ] && grep -q "partition" "$tmp/err" && grep -q -- "$want" "$tmp/err" && [ ! -s "$tmp/out" ]; then
        ok "fglrun --partition-file refuses $name (exit 1)"
    else nok "fglrun --partition-file refuses $name (exit 1; status $st)"; fi
}
head -599 "$tmp/p3" > "$tmp/bad"; bad_file "a line short" "599 lines, the graph 600"
{ cat "$tmp/p3"; echo 0; } > "$tmp/bad"; bad_file "a line too many" "more lines"
sed '5s/.*/7/' "$tmp/p3" > "$tmp/bad"; bad_file "an id out of range" "line 5: part 7 is outside 0..2" --clients 3
sed 's/^1$/2/' "$tmp/p3" > "$tmp/bad"; bad_file "an empty part" "part 1 of 0..2 holds no node"
sed '9s/.*/two/' "$tmp/p3" > "$tmp/bad"; bad_file "garbage" "line 9: 'two' is not a part id"
cp "$tmp/p3" "$tmp/bad"; bad_file "a --clients that disagrees" "outside 0..1" --clients 2
# issue 49: /dev/zero and a FIFO hung (no output for 60 s), a 2 GB sparse file
# took 16.8 s; each is refused at once (timeout: a hang fails, not blocks)
hostile_file() { # NAME FILE EXPECTED-TEXT
    if command -v timeout > /dev/null; then to="timeout 20"; else to=; fi
    $to $FGLRUN --algo fedavg $D --partition-file "$2" > "$tmp/out" 2> "$tmp/err"; st=$?
    if [ $st -eq 1 ] && grep -q -- "$3" "$tmp/err" && [ ! -s "$tmp/out" ]; then ok "fglrun --partition-file refuses $1 at once"
    else nok "fglrun --partition-file refuses $1 at once (status $st)"; fi
}
hostile_file /dev/zero /dev/zero "is not a regular file (a device, pipe or socket)"
if mkfifo "$tmp/fifo" 2> /dev/null; then hostile_file "a FIFO" "$tmp/fifo" "is not a regular file"
else echo "skip - fglrun --partition-file refuses a FIFO (mkfifo failed)"; fi
if truncate -s 2G "$tmp/sparse" 2> /dev/null; then
    hostile_file "a 2 GB sparse file" "$tmp/sparse" "2147483648 bytes, more than 600 lines"
    rm -f "$tmp/sparse"
else echo "skip - fglrun --partition-file refuses a 2 GB sparse file (truncate failed)"; fi
# contradicting flags: usage errors, status 2
$FGLRUN --algo fedavg $D --split louvain --partition-file "$tmp/p3" > /dev/null 2> "$tmp/err"; st=$?
if [ $st -eq 2 ] && grep -q "cannot be combined with --split louvain" "$tmp/err"; then ok "fglrun --partition-file with --split louvain: exit 2"
else nok "fglrun --partition-file with --split louvain: exit 2 (status $st)"; fi
$FGLRUN --algo fedavg $D --split given > /dev/null 2> "$tmp/err"; st=$?
if [ $st -eq 2 ] && grep -q "needs --partition-file" "$tmp/err"; then ok "fglrun --split given without a file: exit 2"
else nok "fglrun --split given without a file: exit 2 (status $st)"; fi

# --split-global: same bits again and at 2 threads; another result than the per-client split
G="--algo fedavg $D --clients 4 --split-global"
$FGLRUN $G --threads 1 > "$tmp/g1.json" 2> "$tmp/err"
$FGLRUN $G --threads 1 > "$tmp/g1b.json" 2>> "$tmp/err"
$FGLRUN $G --threads 2 > "$tmp/g2.json" 2>> "$tmp/err"
$FGLRUN --algo fedavg $D --clients 4 --threads 1 > "$tmp/l1.json" 2>> "$tmp/err"
if [ -s "$tmp/g1.json" ] && [ "$(strip "$tmp/g1.json")" = "$(strip "$tmp/g1b.json")" ] &&
   [ "$(strip "$tmp/g1.json")" = "$(strip "$tmp/g2.json")" ] && [ "$(strip "$tmp/g1.json")" != "$(strip "$tmp/l1.json")" ]; then
    ok "fglrun --split-global: same bits at 1 and 2 threads, another split than the per-client one"
else nok "fglrun --split-global: same bits at 1 and 2 threads, another split than the per-client one"; fi

# weights=equal against the default, on the unequal clients
$FGLRUN --algo fedavg $D --partition-file "$tmp/p3" > "$tmp/ws.json" 2> "$tmp/err"
$FGLRUN --algo fedavg $D --partition-file "$tmp/p3" --set weights=equal > "$tmp/we.json" 2>> "$tmp/err"
if [ -s "$tmp/ws.json" ] && [ -s "$tmp/we.json" ] && [ "$(strip "$tmp/ws.json")" != "$(strip "$tmp/we.json")" ] &&
   grep -q '"fedavg.weights": "equal"' "$tmp/we.json" && grep -q '"fedavg.weights": "samples"' "$tmp/ws.json"; then
    ok "fglrun fedavg --set weights=equal: another result on unequal clients, recorded by name"
else nok "fglrun fedavg --set weights=equal: another result on unequal clients, recorded by name"; fi

# the record of all three replays identically; a changed partition file is reported
$FGLRUN --algo fedavg $D --partition-file "$tmp/p3" --split-global --set weights=equal > "$tmp/all.json" 2> "$tmp/err"
if grep -q '"partition-file": "[^"]*p3"' "$tmp/all.json" && grep -q '"split-global": true' "$tmp/all.json" &&
   $FGLRUN --config "$tmp/all.json" --json --quiet > "$tmp/replay.json" 2> "$tmp/err" &&
   [ "$(strip "$tmp/all.json")" = "$(strip "$tmp/replay.json")" ]; then
    ok "fglrun --config replays --partition-file, --split-global and weights=equal identically"
else nok "fglrun --config replays --partition-file, --split-global and weights=equal identically"; fi
awk 'BEGIN { for (i = 0; i < 600; i++) print (i % 3) }' > "$tmp/p3"
$FGLRUN --config "$tmp/all.json" --json --quiet > "$tmp/replay.json" 2> "$tmp/err"; st=$?
if [ $st -ne 0 ] && grep -q "p3 differs from the file the record read" "$tmp/err"; then
    ok "fglrun --config reports a partition file changed since the record"
else nok "fglrun --config reports a partition file changed since the record (status $st)"; fi
