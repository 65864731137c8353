#!/bin/sh
# A build with NDEBUG (no assertions): a misspelt state name fails the run
# with a message naming it (tests/ndebug_state.c). The debug build stops
# at the assertion instead, after naming the state on stderr.
# Usage: tests/ndebug_check.sh (from the repository root)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if ${CC:-cc} -std=c99 -O1 -DNDEBUG -Wall -Wextra -Wpedantic -Werror tests/ndebug_state.c -o "$tmp/ndebug_state" -lm \
        > "$tmp/cc.log" 2>&1; then
    "$tmp/ndebug_state"; rc=$?
    [ $rc -le 1 ] || echo "not ok - tests/ndebug_state stopped with status $rc"
else echo "not ok - tests/ndebug_state.c with -DNDEBUG"; head -20 "$tmp/cc.log" | sed 's/^/#   /'; fi
