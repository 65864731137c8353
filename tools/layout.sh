#!/bin/sh
# tools/layout.sh > docs/layout.md: the page listing every file of src/ in
# its header's MANIFEST order with its lines and subjects (the titles of its
# "--- title ---" banners), fglrun's parts, and each method's lines before
# and after the split. tests/house_check.sh checks that docs/layout.md is this
# script's output. Run from the repository root.
set -eu
lines() { wc -l < "$1" | tr -d ' '; }
files_of() { # DIR: the files of its header, in order
    sed -e 's/#.*//' -e 's/[[:space:]]//g' "src/$1/MANIFEST" | while IFS= read -r entry; do
        case $entry in
        "") ;;
        "<"*) list=${entry#<}
              sed -n 's/^[[:space:]]*X([[:space:]]*[A-Za-z0-9_]*[[:space:]]*,[[:space:]]*\([A-Za-z0-9_]*\)[[:space:]]*).*/\1/p' \
                  "src/$list" | awk '!seen[$0]++' | while IFS= read -r f; do echo "${list%/*}/$f.h"; done ;;
        *) echo "$entry" ;;
        esac
    done
}
cat <<'TOP'
# The source tree

fgl is developed in `src/` and shipped as the four headers that
`tools/amalgamate` writes from it (README, "Developing fgl"). This page is
the output of `sh tools/layout.sh`, and `make test` checks that it is
current.

No file of `src/` or `examples/` is over 1,500 lines (`tests/house_check.sh`
checks it).

Every file of `src/` also compiles on its own, for an editor's language
server: it includes `src/alone.h` as its first line, after each marker
line and as its last line (the headers drop those lines), and `make alone`
writes what each file needs around it into `build/alone/` with
`build/compile_commands.json` for clangd, then compiles all of them
(`tests/alone_check.sh`, in `make test-long`).

## Files

| header | file | lines | subject |
|---|---|---:|---|
TOP
for pair in fgl.h:core fgl_graph.h:graph fgl_gnn.h:gnn fgl_fed.h:fed; do
    header=${pair%%:*}; dir=${pair#*:}
    files_of "$dir" | while IFS= read -r f; do
        case $f in
        */open.h) subject="top-of-file documentation and includes; opens each part" ;;
        */close.h) subject="closes each part" ;;
        *) subject=$(sed -n 's|^/\* --- \(.*[^ -]\) -* \*/$|\1|p' "src/$f" | awk '{ printf "%s%s", (NR > 1 ? "; " : ""), $0 }') ;;
        esac
        echo "| \`$header\` | \`src/$f\` | $(lines "src/$f") | $subject |"
    done
done
echo
echo "Totals: \`fgl.h\` $(lines fgl.h) lines, \`fgl_graph.h\` $(lines fgl_graph.h), \`fgl_gnn.h\` $(lines fgl_gnn.h), \`fgl_fed.h\` $(lines fgl_fed.h)."
cat <<'ROUND'

## A round: stages and plug-ins

`fgl_run_round` (`src/fed/stages.h`) runs ten stages in order, each one
function over the run and the round's numbers. This round's participants
(`run->part`) and the next round's (`run->next`, drawn in *sample*) are
two lists; the round ends by making the second the first.

```
 clients (here, or a transport's processes)      server
 ------------------------------------------      ------------------------------------------
                                                 begin      plug-ins: begin
 train      train, build the upload,
            plug-ins: upload; check it
                                                 arrive     plug-ins: arrive; check the rest;
                                                            accepted; bytes, losses
                                                 accept     plug-ins: accept; rejections
                                                 sum        plug-ins: sum
                                                 aggregate  plug-ins: release; the algorithm's
                                                            aggregate hook; plug-ins: after
                                                 sample     the next round's participants
                                                            (a plug-in's draw, or cfg.frac)
 broadcast  apply the download  <--------------  broadcast  build their downloads
 evaluate   evaluate; idle clients rest  ------>  (a transport: downloads out, evaluations in)
                                                 record     the history (or a plug-in's record)
```

A defence, an attack for experiments, a privacy mechanism or an integrity
check is a plug-in (`src/fed/plugin.h`): a table of stage functions, each
NULL where it has nothing to do, a `check` that refuses what it would not
cover (`src/fed/refusals.h`), and one line of `src/fed/plugins/list.h`.
`tests/plugin_check.sh` adds norm bounding that way, as one file and one
line, builds fglrun on it and runs it. The transport (MPI,
`src/fed/mpi.h`) is the other kind of plug-in: its table
(`struct fgl__transport`, `src/fed/run.h`) runs the client side of the
stages in other processes. The plug-ins and where each one acts:

| plug-in | file | lines | on when | stages |
|---|---|---:|---|---|
ROUND
sed -n 's/^[[:space:]]*X([[:space:]]*\([A-Za-z0-9_]*\)[[:space:]]*,[[:space:]]*\([A-Za-z0-9_]*\)[[:space:]]*).*/\1 \2/p' \
    src/fed/plugins/list.h | while read -r name file; do
    f=src/fed/plugins/$file.h
    stages=$(sed -n 's/^[[:space:]]*p\.\([a-z]*\) = .*/\1/p' "$f" | grep -v '^name$\|^flags$\|^on$' |
             awk '{ printf "%s%s", (NR > 1 ? ", " : ""), $0 }')
    on=$(awk -v fn="static int fgl__${name}_on(" 'index($0, fn) == 1 { on = 1 } on { t = t " " $0 } on && /}[[:space:]]*$/ { exit }
                 END { sub(/.*return[[:space:]]*/, "", t); sub(/;[[:space:]]*}[[:space:]]*$/, "", t); gsub(/[[:space:]]+/, " ", t); print t }' "$f" |
         sed -e 's/run->//g' -e 's/|/\\|/g')
    echo "| $name | \`$f\` | $(lines "$f") | ${on:-by name (cfg.plugin)} | $stages |"
done
cat <<'MID'

## fglrun

`examples/fglrun.c` was one file of 3,272 lines; it is now the program and
its parts, each flag defined once in the option table of
`examples/fglrun/options.c`. What the parts share (fglrun's types, and the
prototypes of what one part defines and another uses) is in
`examples/fglrun/fglrun.h`, which every part includes first: each part
compiles alone against it (`tests/house_check.sh` checks it), and fglrun is
still built as one translation unit (`examples/fglrun.c` includes them all):

| file | lines |
|---|---:|
MID
for f in examples/fglrun.c examples/fglrun/fglrun.h examples/fglrun/*.c; do echo "| \`$f\` | $(lines "$f") |"; done
cat <<MET

## Each method before and after

Before: the lines of its section(s) at commit 2831210, when the headers
were written by hand. After: its file in \`src/fed/algos/\`, which holds all
of it but for GPFL's auto-encoder and pFedGNN's completion and coarsening, which went back to
their layers (\`src/gnn/gae.h\`, $(lines src/gnn/gae.h) lines; \`src/graph/anchors.h\` and
\`src/graph/coarsen.h\`, $(($(lines src/graph/anchors.h) + $(lines src/graph/coarsen.h))) lines); \`src/fed/algos/shared.h\` ($(lines src/fed/algos/shared.h) lines) holds the simplex projection,
minimum cut and dynamic time warping that pFedGraph and GCFL use, and the
probe graphs of FED-PUB and GPFL.

| method | where it was | before | after | file |
|---|---|---:|---:|---|
MET
while IFS='|' read -r method where before file; do
    echo "| $method | $where | $before | $(lines "src/fed/algos/$file.h") | \`src/fed/algos/$file.h\` |"
done <<'METHODS'
Local|fgl_fed.h|12|local
FedAvg, FedProx, FedPer, FedStar|fgl_fed.h|85|fedavg
SCAFFOLD, FedDC|fgl_fed.h|238|scaffold
Ditto|fgl_fed.h|47|ditto
MOON|fgl_fed.h|82|moon
GCFL, GCFL+|fgl_fed.h (its min cut and DTW in pFedGraph's section)|265|gcfl
FedAMP|fgl_fed.h|106|fedamp
pFedGraph|fgl_fed.h (with GCFL's min cut and DTW)|286|pfedgraph
FedProto, FedTGP|fgl_fed.h|387|fedproto
FED-PUB|fgl_fed.h (its proxy graph written out)|281|fedpub
GPFL|fgl_fed.h 436 + fgl_gnn.h 136 (its auto-encoder)|572|gpfl
FedPG|fgl_fed.h|703|fedpg
pFedGNN|fgl_fed.h 315 + fgl_graph.h 724 (its completion and coarsening)|1039|pfedgnn
METHODS
