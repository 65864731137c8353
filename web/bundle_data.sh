#!/bin/sh
# web/bundle_data.sh OUT DATA_DIR NAME... : the datasets the page offers, as build/wasm/fgl-data.js
#     var FGL_DATA_FILES = {"node/Cora/Cora.edges": "<base64>", ...};
# (a script, not files fetched: a page opened from file:// may not fetch). Each NAME is looked for as
# DATA_DIR/node/NAME or DATA_DIR/tu/NAME (fglrun's layout, `make data`); a missing one is said and left
# out. Nothing found: an empty bundle, and the page offers its synthetic graphs only. The data are never
# copied into the repository: OUT is under build/.
set -u
out=$1; dir=$2; shift 2
tmp=$out.tmp
printf 'var FGL_DATA_FILES = {' > "$tmp"
sep=
for name in "$@"; do
    found=
    for kind in node tu; do
        [ -d "$dir/$kind/$name" ] || continue
        found=1
        for f in "$dir/$kind/$name"/*; do
            [ -f "$f" ] || continue
            case $f in */README*) continue ;; esac
            printf '%s\n"%s/%s/%s": "' "$sep" "$kind" "$name" "${f##*/}" >> "$tmp"
            base64 -w 0 "$f" >> "$tmp"
            printf '"' >> "$tmp"
            sep=,
        done
    done
    [ -n "$found" ] || echo "web/bundle_data.sh: $name is not in $dir (node/$name or tu/$name): left out of the page"
done
printf '};\n' >> "$tmp"
mv "$tmp" "$out"
