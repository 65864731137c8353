#!/bin/sh
# tools/layout.sh: the table of docs/layout.md's "Files" section, every file
# of src/ in its header's MANIFEST order, with its lines and its subject (the
# titles of its "--- title ---" banners). Run from the repository root.
set -eu
echo "| header | file | lines | subject |"
echo "|---|---|---:|---|"
for pair in fgl.h:core fgl_graph.h:graph fgl_gnn.h:gnn fgl_fed.h:fed; do
    header=${pair%%:*}; dir=${pair#*:}
    for entry in $(sed -e 's/#.*//' "src/$dir/MANIFEST"); do
        case $entry in
        "<"*) list=${entry#<}
              for f in $(sed -n 's/^ *X( *[A-Za-z0-9_]* *, *\([A-Za-z0-9_]*\) *).*/\1/p' "src/$list" | awk '!seen[$0]++'); do
                  echo "${list%/*}/$f.h"
              done ;;
        *) echo "$entry" ;;
        esac
    done | while read -r f; do
        case $f in
        */open.h) subject="top-of-file documentation and includes; opens each part" ;;
        */close.h) subject="closes each part" ;;
        *) subject=$(sed -n 's|^/\* --- \(.*[^ -]\) -* \*/$|\1|p' "src/$f" | awk '{ printf "%s%s", (NR > 1 ? "; " : ""), $0 }') ;;
        esac
        echo "| \`$header\` | \`src/$f\` | $(wc -l < "src/$f") | $subject |"
    done
done
