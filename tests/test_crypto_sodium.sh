#!/bin/sh
# fgl's cryptography (src/fed/crypto.h) against libsodium on random inputs:
# tests/crypto_sodium.c, linked against BUILD_DIR/fgl.o (make builds it),
# compares X25519, ChaCha20, Poly1305 and ChaCha20-Poly1305 over thousands
# of random keys and messages, and prints one "ok - ..." line each.
# Skipped, with a "skip" line, when libsodium (its header and library) is
# not installed; .ci/run installs it.
# Usage: tests/test_crypto_sodium.sh BUILD_DIR (holding fgl.o)
B=${1:-build}
CC=${CC:-cc}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '#include <sodium.h>\nint main(void) { return sodium_init() < 0; }\n' > "$tmp/probe.c"
if ! $CC "$tmp/probe.c" -o "$tmp/probe" -lsodium > /dev/null 2>&1; then
    echo "skip - fgl's cryptography against libsodium: libsodium-dev not installed (apt-get install -y libsodium-dev)"
    exit 0
fi
if [ ! -f "$B/fgl.o" ]; then
    echo "not ok - fgl's cryptography against libsodium: no $B/fgl.o (run make first)"; exit 1
fi
# the library object was compiled with OpenMP unless OMP= was given to make
omp=; nm "$B/fgl.o" 2>/dev/null | grep -q -e ' U GOMP_' -e ' U omp_' && omp=-fopenmp
if ! $CC -std=c99 -O2 -Wall -Wextra -Wpedantic -I. -DFGL_NO_IMPLEMENTATION tests/crypto_sodium.c "$B/fgl.o" \
        -o "$tmp/crypto_sodium" -lsodium -lm $omp > "$tmp/err" 2>&1 || [ -s "$tmp/err" ]; then
    echo "not ok - fgl's cryptography against libsodium: tests/crypto_sodium.c does not build cleanly"
    sed 's/^/#   /' "$tmp/err" | head -20
    exit 1
fi
"$tmp/crypto_sodium"
