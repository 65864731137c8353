#!/bin/sh
# Tests `make data` (tools/fetch_data.sh + tools/fgl_convert) against local
# mirrors built here in the publishers' formats (tests/mkmirror.c and zip):
# TU zips, Planetoid pickles, Shchur et al.'s .npz files.
#
# 1. Synthetic (always, no data needed): small datasets from fgl's
#    generators, with a list and sums of their own: every dataset fetched,
#    converted and verified, byte-identical to its source; zips re-made with
#    other options still verify; a file whose content differs is refused,
#    named, and the good copy kept; a second run fetches nothing; a missing
#    file is named; a dataset without sums is installed NOT VERIFIED (and
#    refused under FGL_DATA_STRICT); an unreachable host is tried once and
#    the output ends with the FGL_DATA_URL hint.
# 2. Real (when $FGL_DATA holds the datasets): `make data DATASETS="Cora
#    MUTAG"` from a mirror whose zip is re-made with plain `zip -r` from the
#    original files; then a mirror of all 12 datasets, checked against the
#    repository's tools/datasets.sha256, every dataset byte-identical to the
#    one in $FGL_DATA.
#
#   tests/data_check.sh            the test ("ok"/"not ok"/"skip" lines)
#   tests/data_check.sh --sha256   the lines of tools/datasets.sha256: the
#                                  sums of what `make data` makes of the
#                                  real mirror
top=$(pwd)
conv=$top/build/tools/fgl_convert
mk=$top/build/tools/mkmirror
fetch=$top/tools/fetch_data.sh
# the real data: $FGL_DATA (the Makefile passes it), else ./data
src=${FGL_DATA:-data}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
check() { # name, command...
    name=$1; shift
    if "$@" > "$tmp/log" 2>&1; then echo "ok - $name"
    else echo "not ok - $name"; sed 's/^/#   /' "$tmp/log" | tail -n 25; fi
}
for t in "$conv" "$mk"; do
    [ -x "$t" ] || { echo "not ok - $t is not built (make tools)"; exit 1; }
done
for t in zip unzip; do
    command -v $t > /dev/null || { echo "skip - make data tests ($t not installed)"; exit 0; }
done
if command -v sha256sum > /dev/null; then sha() { sha256sum "$@"; }
else sha() { shasum -a 256 "$@"; }; fi

# Fixed modes and times, sorted names, no extra fields: the same bytes on
# every machine with Info-ZIP's zip 3.0 (the sums no longer depend on it).
normalise() { # DIR
    find "$1" -type d -exec chmod 755 {} + && find "$1" -type f -exec chmod 644 {} + &&
        find "$1" -exec env TZ=UTC touch -t 201601010000.00 {} +
}
zip_tree() { # PARENT NAME OUT.zip: NAME/... as in the TUDataset zips
    (cd "$1" && find "$2" -type f | LC_ALL=C sort | TZ=UTC zip -X -D -q -9 "$3" -@)
}
zip_flat() { # DIR OUT.npz: the .npy files stored, as numpy.savez does
    (cd "$1" && ls | LC_ALL=C sort | TZ=UTC zip -X -D -q -0 "$2" -@)
}

# mirror_tu SRC_TU_DIR NAME MIRROR
mirror_tu() {
    rm -rf "$tmp/zt" && mkdir -p "$tmp/zt" && cp -R "$1" "$tmp/zt/$2" && normalise "$tmp/zt" &&
        rm -f "$3/$2.zip" && zip_tree "$tmp/zt" "$2" "$3/$2.zip"
}
# mirror_npz NODE_DIR NAME MIRROR FILE
mirror_npz() {
    rm -rf "$tmp/zn" && mkdir -p "$tmp/zn" && "$mk" npz "$1" "$2" "$tmp/zn" && normalise "$tmp/zn" &&
        rm -f "$3/$4" && zip_flat "$tmp/zn" "$3/$4"
}

# same_tree A B: every file of A is in B with the same bytes, and B has no other
same_tree() { diff -r "$1" "$2"; }

# ----------------------------------------------------------------------- real
R=$tmp/real
build_real_mirror() {
    mkdir -p "$R/mirror" || return 1
    for n in MUTAG PTC_MR BZR COX2 DHFR AIDS NCI1 PROTEINS IMDB-BINARY; do
        mirror_tu "$src/tu/$n" "$n" "$R/mirror" || return 1
    done
    "$mk" planetoid "$src/node/Cora" Cora "$R/mirror" cora 1 &&
        mirror_npz "$src/node/Computers" Computers "$R/mirror" amazon_electronics_computers.npz &&
        mirror_npz "$src/node/CS" CS "$R/mirror" ms_academic_cs.npz
}
REAL="MUTAG PTC_MR BZR COX2 DHFR AIDS NCI1 PROTEINS IMDB-BINARY Cora Computers CS"
have_real() {
    for f in tu/MUTAG/MUTAG_A.txt tu/PTC_MR/PTC_MR_A.txt tu/BZR/BZR_A.txt tu/COX2/COX2_A.txt tu/DHFR/DHFR_A.txt \
        tu/AIDS/AIDS_A.txt tu/NCI1/NCI1_A.txt tu/PROTEINS/PROTEINS_A.txt tu/IMDB-BINARY/IMDB-BINARY_A.txt \
        node/Cora/Cora.edges node/Computers/Computers.edges node/CS/CS.edges; do
        [ -r "$src/$f" ] || { missing=$src/$f; return 1; }
    done
}
if [ "${1:-}" = "--sha256" ]; then
    have_real || { echo "data_check: no real data ($missing)" >&2; exit 1; }
    build_real_mirror > "$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
    : > "$tmp/none"
    # no sums: every dataset installed NOT VERIFIED, its sums in .fgl/NAME.sha256
    # shellcheck disable=SC2086
    FGL_DATA=$R/out FGL_DATA_URL=file://$R/mirror FGL_DATA_SHA256=$tmp/none FGL_CONVERT=$conv "$fetch" $REAL \
        > "$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
    for n in $REAL; do cat "$R/out/.fgl/$n.sha256"; done
    exit 0
fi

# ------------------------------------------------------------------ synthetic
S=$tmp/syn
mkdir -p "$S/src/tu/SYNTU" "$S/src/node/SynPlanetoid" "$S/src/node/SynNpz" "$S/mirror"
if ! "$mk" synth "$S/src" > "$tmp/log" 2>&1; then
    echo "not ok - mkmirror synth"; sed 's/^/#   /' "$tmp/log"; exit 1
fi
build_syn_mirror() {
    mirror_tu "$S/src/tu/SYNTU" SYNTU "$S/mirror" &&
        "$mk" planetoid "$S/src/node/SynPlanetoid" SynPlanetoid "$S/mirror" synplanetoid 3 &&
        mirror_npz "$S/src/node/SynNpz" SynNpz "$S/mirror" syn_npz.npz &&
        (cd "$S/src" && find tu node -type f | LC_ALL=C sort | while read -r f; do sha "$f"; done > "$S/sums") &&
        { echo "SYNTU tu file://$S/mirror SYNTU.zip"
          echo "SynPlanetoid planetoid file://$S/mirror ind.synplanetoid"
          echo "SynNpz npz file://$S/mirror syn_npz.npz"; } > "$S/list"
}
check "synthetic mirror: TU zip, Planetoid pickles, .npz" build_syn_mirror
syn_fetch() { # OUT [NAME...]: fetch_data.sh on the synthetic list (no FGL_DATA_URL: file:// base URLs)
    out=$1; shift
    FGL_DATA=$out FGL_DATA_LIST=$S/list FGL_DATA_SHA256=$S/sums FGL_CONVERT=$conv "$fetch" "$@"
}
syn_same() { # OUT: the three datasets byte-identical to their sources
    same_tree "$S/src/tu/SYNTU" "$1/tu/SYNTU" && same_tree "$S/src/node/SynPlanetoid" "$1/node/SynPlanetoid" &&
        same_tree "$S/src/node/SynNpz" "$1/node/SynNpz"
}
# damage DIR FILE CMD...: CMD on DIR with FILE cut at 10 points and with a
# 0xFF byte written at 6; each run must end in a clean error (status 1) or
# a success (the damage may be harmless), never a crash; *_errors counts 1s
damage() {
    d=$1 f=$2; shift 2
    cp "$d/$f" "$tmp/orig" || return 2
    n=$(wc -c < "$tmp/orig")
    for k in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
        if [ $k -le 10 ]; then head -c $((n * k / 11)) "$tmp/orig" > "$d/$f"
        else
            cp "$tmp/orig" "$d/$f"
            printf '\377' | dd of="$d/$f" bs=1 seek=$((n * (k - 10) / 7)) conv=notrunc 2> /dev/null
        fi
        "$@" > /dev/null 2> "$tmp/err"
        rc=$?
        if [ $rc -gt 1 ]; then echo "$f damaged ($k): status $rc"; cat "$tmp/err"; cp "$tmp/orig" "$d/$f"; return 1; fi
        [ $rc -eq 1 ] && damage_errors=$((damage_errors + 1))
        damage_runs=$((damage_runs + 1))
    done
    cp "$tmp/orig" "$d/$f"
}
t_syn_damage() {
    damage_errors=0 damage_runs=0
    mkdir -p "$tmp/dp" "$tmp/dn" "$tmp/do" && cp "$S/mirror"/ind.synplanetoid.* "$tmp/dp" &&
        unzip -q -o "$S/mirror/syn_npz.npz" -d "$tmp/dn" || return 1
    for p in x tx allx y ty ally graph test.index; do
        damage "$tmp/dp" "ind.synplanetoid.$p" "$conv" planetoid "$tmp/dp" synplanetoid "$tmp/do" D || return 1
    done
    for f in $(cd "$tmp/dn" && ls); do
        damage "$tmp/dn" "$f" "$conv" npz "$tmp/dn" "$tmp/do" D || return 1
    done
    echo "$damage_errors clean errors in $damage_runs runs"
    [ "$damage_errors" -gt "$((damage_runs / 2))" ] # most damage is detected
}
check "synthetic: damaged Planetoid and .npy files end in clean errors, never a crash" t_syn_damage

# issue 49: a label -5 in labels.npy was turned into -1 (unlabelled), and a
# malformed attr_matrix.npy was reported as missing; both are named now
t_npz_named() {
    rm -rf "$tmp/nn" "$tmp/no" && mkdir -p "$tmp/nn" "$tmp/no" && unzip -q -o "$S/mirror/syn_npz.npz" -d "$tmp/nn" ||
        return 1
    cp "$tmp/nn/labels.npy" "$tmp/labels.orig"
    hl=$(od -An -tu1 -j8 -N2 "$tmp/nn/labels.npy" | awk '{ print $1 + 256 * $2 }')
    printf '\373\377\377\377\377\377\377\377' | dd of="$tmp/nn/labels.npy" bs=1 seek=$((10 + hl + 8)) conv=notrunc 2> /dev/null
    if "$conv" npz "$tmp/nn" "$tmp/no" D > /dev/null 2> "$tmp/err"; then echo "label -5 accepted"; return 1; fi
    cat "$tmp/err"
    grep -q 'labels.npy: label -5 of node 1 (class ids are 0-based, -1 = unlabelled)' "$tmp/err" || return 1
    cp "$tmp/labels.orig" "$tmp/nn/labels.npy"
    rm -f "$tmp/nn"/attr_data.npy "$tmp/nn"/attr_indices.npy "$tmp/nn"/attr_indptr.npy "$tmp/nn"/attr_shape.npy
    printf 'not an array\n' > "$tmp/nn/attr_matrix.npy"
    if "$conv" npz "$tmp/nn" "$tmp/no" D > /dev/null 2> "$tmp/err"; then echo "bad attr_matrix accepted"; return 1; fi
    cat "$tmp/err"
    grep -q 'attr_matrix.npy: not a .npy file' "$tmp/err" && ! grep -q 'neither' "$tmp/err" || return 1
    rm -f "$tmp/nn/attr_matrix.npy"
    "$conv" npz "$tmp/nn" "$tmp/no" D > /dev/null 2> "$tmp/err"
    cat "$tmp/err"
    grep -q 'neither attr_data.npy (CSR features) nor attr_matrix.npy (dense) is there' "$tmp/err"
}
check "synthetic: fgl_convert npz names a label -5 and a malformed attr_matrix.npy (not missing)" t_npz_named

t_syn_all() {
    syn_fetch "$S/out" && syn_same "$S/out"
}
check "synthetic: every dataset fetched, verified, converted byte-identical to its source" t_syn_all

t_syn_resume() { # a second run downloads and converts nothing
    syn_fetch "$S/out" > "$tmp/second" 2>&1 && cat "$tmp/second" &&
        ! grep -q 'downloading' "$tmp/second" && [ "$(grep -c 'up to date' "$tmp/second")" -eq 3 ]
}
check "synthetic: a second run is a no-op (every dataset up to date)" t_syn_resume

t_syn_rezip() { # zips re-made from the same files with other options (times, order, compression) verify
    rm -rf "$tmp/rz" && mkdir -p "$tmp/rz/m" "$tmp/rz/t" "$tmp/rz/n" && cp "$S/mirror"/ind.* "$tmp/rz/m/" &&
        cp -R "$S/src/tu/SYNTU" "$tmp/rz/t/" && touch "$tmp/rz/t/SYNTU"/* &&
        (cd "$tmp/rz/t" && zip -q -r -1 "$tmp/rz/m/SYNTU.zip" SYNTU) &&
        unzip -q "$S/mirror/syn_npz.npz" -d "$tmp/rz/n" &&
        (cd "$tmp/rz/n" && ls -r | zip -q -6 "$tmp/rz/m/syn_npz.npz" -@) &&
        ! cmp -s "$tmp/rz/m/SYNTU.zip" "$S/mirror/SYNTU.zip" &&
        ! cmp -s "$tmp/rz/m/syn_npz.npz" "$S/mirror/syn_npz.npz" &&
        FGL_DATA_URL=file://$tmp/rz/m syn_fetch "$tmp/rz/out" && syn_same "$tmp/rz/out"
}
check "synthetic: a mirror whose zips were re-made from the same files verifies" t_syn_rezip

t_syn_corrupt() {
    # SYNTU.zip re-made with one graph label changed: a valid zip, a dataset
    # that loads, but not the data the sums describe; it must be fetched again
    # (its record and cached download gone), so the bad file is seen
    rm -rf "$tmp/bz" && mkdir -p "$tmp/bz" && cp -R "$S/src/tu/SYNTU" "$tmp/bz/" &&
        cp "$S/mirror/SYNTU.zip" "$tmp/good.zip" &&
        awk 'NR == 1 { print ($1 == 0 ? 1 : 0); next } { print }' "$S/src/tu/SYNTU/SYNTU_graph_labels.txt" \
            > "$tmp/bz/SYNTU/SYNTU_graph_labels.txt" &&
        rm -f "$S/mirror/SYNTU.zip" && (cd "$tmp/bz" && zip -q -r "$S/mirror/SYNTU.zip" SYNTU) &&
        rm -f "$S/out/.fgl/SYNTU.done" "$S/out/.fgl/downloads/SYNTU.zip" || return 1
    syn_fetch "$S/out" > "$tmp/bad" 2>&1
    rc=$?
    cat "$tmp/bad"
    cp "$tmp/good.zip" "$S/mirror/SYNTU.zip"
    [ $rc -eq 1 ] &&                                                        # failed,
        grep -q 'SYNTU: FAILED: tu/SYNTU/SYNTU_graph_labels.txt: sha256 .*refused' "$tmp/bad" && # said which file,
        grep -q 'failed ( SYNTU )' "$tmp/bad" &&                            # named it at the end,
        [ -f "$S/out/.fgl/rejected/SYNTU.zip" ] && [ -f "$S/out/.fgl/rejected/SYNTU.sha256" ] && # kept it aside,
        [ ! -f "$S/out/.fgl/downloads/SYNTU.zip" ] &&                       # did not cache it,
        same_tree "$S/src/tu/SYNTU" "$S/out/tu/SYNTU" &&                    # kept the good copy,
        grep -q 'SynPlanetoid: up to date' "$tmp/bad"                       # and did the rest
}
check "synthetic: a zip whose content differs is refused, the file named, the good dataset kept" t_syn_corrupt

t_syn_repair() { # the mirror fixed, the next run fetches only SYNTU again
    syn_fetch "$S/out" > "$tmp/fix" 2>&1 && cat "$tmp/fix" &&
        [ "$(grep -c 'downloading' "$tmp/fix")" -eq 1 ] && grep -q 'SYNTU: downloading' "$tmp/fix" && syn_same "$S/out"
}
check "synthetic: after the repair only the failed dataset is fetched again" t_syn_repair

t_syn_missing() { # a file absent from the mirror, into a fresh directory
    mv "$S/mirror/ind.synplanetoid.graph" "$tmp/graph"
    syn_fetch "$S/fresh" SynPlanetoid > "$tmp/miss" 2>&1
    rc=$?
    cat "$tmp/miss"
    mv "$tmp/graph" "$S/mirror/ind.synplanetoid.graph"
    [ $rc -eq 1 ] && grep -q 'SynPlanetoid: FAILED: ind.synplanetoid.graph: download of file://.* failed' "$tmp/miss" &&
        [ ! -e "$S/fresh/node/SynPlanetoid" ]
}
check "synthetic: a file missing from the mirror is named, nothing is installed" t_syn_missing

t_syn_unknown() {
    syn_fetch "$S/out" NoSuchSet syntu > "$tmp/unk" 2>&1
    [ $? -eq 1 ] && grep -q 'NoSuchSet: FAILED: not in' "$tmp/unk" && grep -q 'did you mean SYNTU' "$tmp/unk"
}
check "synthetic: an unknown dataset name is an error (a name in another case is suggested)" t_syn_unknown

t_syn_unverified() { # a dataset of the list with no sums: installed, said NOT VERIFIED, its sums written
    grep -v '^[0-9a-f]*  node/SynNpz/' "$S/sums" > "$tmp/sums-nonpz"
    FGL_DATA=$tmp/uv FGL_DATA_LIST=$S/list FGL_DATA_SHA256=$tmp/sums-nonpz FGL_CONVERT=$conv "$fetch" SynNpz \
        > "$tmp/uv.out" 2>&1 || { cat "$tmp/uv.out"; return 1; }
    cat "$tmp/uv.out"
    grep -q '^  NOT VERIFIED: .* no sums for SynNpz' "$tmp/uv.out" &&
        same_tree "$S/src/node/SynNpz" "$tmp/uv/node/SynNpz" &&
        grep 'node/SynNpz/' "$S/sums" | cmp - "$tmp/uv/.fgl/SynNpz.sha256" || return 1
    # the default (no names) is the datasets with sums: SynNpz is not among them
    FGL_DATA=$tmp/uv0 FGL_DATA_LIST=$S/list FGL_DATA_SHA256=$tmp/sums-nonpz FGL_CONVERT=$conv "$fetch" \
        > "$tmp/uv0.out" 2>&1 && grep -q '2 dataset(s) ready' "$tmp/uv0.out" && [ ! -e "$tmp/uv0/node/SynNpz" ] ||
        return 1
    FGL_DATA_STRICT=1 FGL_DATA=$tmp/uv2 FGL_DATA_LIST=$S/list FGL_DATA_SHA256=$tmp/sums-nonpz FGL_CONVERT=$conv \
        "$fetch" SynNpz > "$tmp/uv2.out" 2>&1
    [ $? -eq 1 ] && grep -q 'SynNpz: FAILED: .*records no sums for it (FGL_DATA_STRICT' "$tmp/uv2.out" &&
        [ ! -e "$tmp/uv2/node/SynNpz" ]
}
check "synthetic: a dataset without sums is installed NOT VERIFIED, its sums written; refused if FGL_DATA_STRICT" \
    t_syn_unverified

t_offline() { # an unreachable host (a closed local port): tried once, a line per dataset, the hint
    sed 's|file://[^ ]*|http://127.0.0.1:9/fgl|' "$S/list" > "$tmp/list-off"
    FGL_DATA=$tmp/off FGL_DATA_LIST=$tmp/list-off FGL_DATA_SHA256=$S/sums FGL_CONVERT=$conv "$fetch" \
        > "$tmp/off.out" 2>&1
    rc=$?
    cat "$tmp/off.out"
    [ $rc -eq 1 ] && [ "$(grep -c 'downloading' "$tmp/off.out")" -eq 1 ] &&
        [ "$(grep -c 'FAILED' "$tmp/off.out")" -eq 3 ] && [ "$(grep -c '127.0.0.1' "$tmp/off.out")" -le 4 ] &&
        [ "$(wc -l < "$tmp/off.out")" -le 14 ] &&
        grep -q 'FGL_DATA_URL=file:///path/to/mirror make data$' "$tmp/off.out" &&
        grep -q 'not tried: 127.0.0.1:9 could not be reached' "$tmp/off.out" || return 1
    # the same through an unreachable mirror
    FGL_DATA_URL=http://127.0.0.1:9/mirror syn_fetch "$tmp/off2" SYNTU SynNpz > "$tmp/off2.out" 2>&1
    rc=$?
    cat "$tmp/off2.out"
    [ $rc -eq 1 ] && [ "$(grep -c 'downloading' "$tmp/off2.out")" -eq 1 ] &&
        grep -q 'make data DATASETS="SYNTU SynNpz"' "$tmp/off2.out"
}
if command -v curl > /dev/null || command -v wget > /dev/null; then
    check "offline: one try per unreachable host, one line per dataset, the FGL_DATA_URL hint" t_offline
else echo "skip - offline output (neither curl nor wget installed)"; fi

# ----------------------------------------------------------------------- real
if ! have_real; then
    echo "skip - make data against a mirror of the real datasets # no data: $missing"
    exit 0
fi
t_make_cora_mutag() { # `make data` itself, a mirror re-made by hand: MUTAG zipped with plain zip -r, Cora as pickles
    rm -rf "$tmp/cm" && mkdir -p "$tmp/cm/m" "$tmp/cm/z" && cp -R "$src/tu/MUTAG" "$tmp/cm/z/" &&
        (cd "$tmp/cm/z" && zip -q -r "$tmp/cm/m/MUTAG.zip" MUTAG) &&
        "$mk" planetoid "$src/node/Cora" Cora "$tmp/cm/m" cora 7 || return 1
    make -s -C "$top" data DATASETS="Cora MUTAG" FGL_DATA="$tmp/cm/out" FGL_DATA_URL="file://$tmp/cm/m" \
        > "$tmp/cm.out" 2>&1
    rc=$?
    cat "$tmp/cm.out"
    [ $rc -eq 0 ] && grep -q 'MUTAG: 188 graphs.*files verified' "$tmp/cm.out" &&
        grep -q 'Cora: 2708 nodes.*4 files verified' "$tmp/cm.out" && grep -q 'every one verified' "$tmp/cm.out" &&
        same_tree "$src/tu/MUTAG" "$tmp/cm/out/tu/MUTAG" && same_tree "$src/node/Cora" "$tmp/cm/out/node/Cora"
}
check "real: make data DATASETS=\"Cora MUTAG\" from a re-zipped mirror verifies and converts" t_make_cora_mutag
check "real: mirror of the 12 datasets in their original formats" build_real_mirror
t_real() {
    # shellcheck disable=SC2086
    FGL_DATA=$R/out FGL_DATA_URL=file://$R/mirror FGL_CONVERT=$conv "$fetch" $REAL || return 1
    for n in MUTAG PTC_MR BZR COX2 DHFR AIDS NCI1 PROTEINS IMDB-BINARY; do
        same_tree "$src/tu/$n" "$R/out/tu/$n" || return 1
    done
    for n in Cora Computers CS; do
        same_tree "$src/node/$n" "$R/out/node/$n" || return 1
    done
}
check "real: make data from the mirror passes tools/datasets.sha256; every dataset byte-identical to \$FGL_DATA" t_real
HET="chameleon_filtered actor tolokers"
t_het() { # the heterophilous .npz files, installed as published (their sums: the publisher's files)
    rm -rf "$tmp/het" && mkdir -p "$tmp/het/m" || return 1
    for n in $HET; do cp "$src/heterophilous/$n.npz" "$tmp/het/m/" || return 1; done
    # shellcheck disable=SC2086
    FGL_DATA=$tmp/het/out FGL_DATA_URL=file://$tmp/het/m FGL_CONVERT=$conv "$fetch" $HET > "$tmp/het.out" 2>&1
    rc=$?
    cat "$tmp/het.out"
    [ $rc -eq 0 ] && grep -q 'chameleon_filtered: 890 nodes, 8854 undirected edges, 2325 features, 5 classes, 10 fixed splits; 1 files verified' "$tmp/het.out" || return 1
    for n in $HET; do cmp "$src/heterophilous/$n.npz" "$tmp/het/out/heterophilous/$n.npz" || return 1; done
    printf 'x' >> "$tmp/het/m/actor.npz" && rm -f "$tmp/het/out/.fgl/actor.done" "$tmp/het/out/.fgl/downloads/actor.npz" &&
        ! FGL_DATA=$tmp/het/out FGL_DATA_URL=file://$tmp/het/m FGL_CONVERT=$conv "$fetch" actor > "$tmp/het2.out" 2>&1 &&
        cat "$tmp/het2.out" && grep -q 'actor' "$tmp/het2.out" && cmp "$src/heterophilous/actor.npz" "$tmp/het/out/heterophilous/actor.npz"
}
if [ -r "$src/heterophilous/chameleon_filtered.npz" ] && [ -r "$src/heterophilous/actor.npz" ] &&
    [ -r "$src/heterophilous/tolokers.npz" ]; then
    check "real: make data of the three heterophilous .npz from a mirror: checked by fgl_load_npz, verified, installed as published; an altered one refused" t_het
else echo "skip - make data of the heterophilous .npz files # no data: $src/heterophilous/chameleon_filtered.npz"; fi
