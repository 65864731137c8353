#!/bin/sh
# The house rules of docs/layout.md, checked by make test:
#  - no file of src/ or examples/ is over 1,500 lines;
#  - docs/layout.md, which lists them, is current (tools/layout.sh).
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
