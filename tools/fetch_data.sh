#!/bin/sh
# fetch_data.sh - `make data`: download datasets of tools/datasets.txt from
# their original publishers (or from a mirror), convert them to the layout
# fgl reads - $FGL_DATA/tu/NAME/ (TU zips, unpacked unchanged) and
# $FGL_DATA/node/NAME/ (Planetoid and .npz files converted by
# tools/fgl_convert) - and verify what comes out against tools/datasets.sha256.
#
#   tools/fetch_data.sh [NAME... | all]
#       no NAME: the datasets whose sums tools/datasets.sha256 records;
#       all: every dataset of the list
#
# What is verified is what fgl reads, not the bytes of one archive: the
# sha256 of every file of the installed dataset (a TU zip's data files as
# unpacked, its README files excepted; a converted dataset's NAME.edges,
# NAME.labels, NAME.features and NAME.split). A zip re-made from the same
# files, or a pickle or .npz written by another program with the same
# content, verifies. A dataset the sums do not cover is installed marked
# NOT VERIFIED, with its sums written beside it (FGL_DATA_STRICT=1 refuses
# it instead).
#
# Environment:
#   FGL_DATA         where the datasets go (default: data/ in the repository)
#   FGL_DATA_URL     fetch every file from FGL_DATA_URL/FILE instead of its
#                    publisher: a mirror, e.g. file:///srv/fgl-mirror holding
#                    MUTAG.zip, ind.cora.x, ... under their own names
#   FGL_DATA_SHA256  the sums (default tools/datasets.sha256)
#   FGL_DATA_LIST    the list (default tools/datasets.txt)
#   FGL_DATA_STRICT  set: refuse datasets that have no recorded sums
#   FGL_CONVERT      the converter (default build/tools/fgl_convert; `make
#                    data` builds it)
#
# It resumes: a dataset whose installed files were verified against the
# current sums (recorded in $FGL_DATA/.fgl/NAME.done) is left alone.
# Nothing replaces a dataset unless its conversion succeeded and verified;
# a download that fails verification is kept as
# $FGL_DATA/.fgl/rejected/FILE with the sums it gave. A host that cannot be
# reached is tried once, not once per file. Each failure is one line; the
# exit status is 1 if any dataset failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
data=${FGL_DATA:-$top/data}
list=${FGL_DATA_LIST:-$here/datasets.txt}
sums=${FGL_DATA_SHA256:-$here/datasets.sha256}
conv=${FGL_CONVERT:-$top/build/tools/fgl_convert}
mirror=${FGL_DATA_URL:-}
strict=${FGL_DATA_STRICT:-}

say() { printf '%s\n' "$*"; }
die() { say "fetch_data: $*" >&2; exit 2; }

[ -r "$list" ] || die "cannot read the dataset list $list"
[ -r "$sums" ] || die "cannot read the checksum list $sums"
[ -x "$conv" ] || die "no converter at $conv (run \`make data\`, which builds it)"
command -v unzip > /dev/null || die "unzip is needed (Debian: apt-get install unzip)"
if command -v sha256sum > /dev/null; then sha() { sha256sum "$1" | cut -d' ' -f1; }
elif command -v shasum > /dev/null; then sha() { shasum -a 256 "$1" | cut -d' ' -f1; }
else die "sha256sum (or shasum) is needed"; fi
if command -v curl > /dev/null; then getter=curl
elif command -v wget > /dev/null; then getter=wget
else getter=; fi

# fetch URL FILE: copy URL into FILE. 0: done; 1: failed; 3: the host could
# not be reached (name, connection, time-out), so its other files are not tried
fetch() {
    case $1 in
    file://*)
        if [ -n "$getter" ] && [ "$getter" = curl ]; then curl --silent --show-error --fail -o "$2" "$1"
        else cp "${1#file://}" "$2"; fi
        return $? ;;
    esac
    case $getter in
    curl)
        curl --silent --show-error --fail --location --connect-timeout 10 --max-time 1800 -o "$2" "$1"
        case $? in 0) return 0 ;; 5 | 6 | 7 | 28) return 3 ;; *) return 1 ;; esac ;;
    wget)
        wget -q --tries=1 --timeout=10 -O "$2" "$1"
        case $? in 0) return 0 ;; 4) return 3 ;; *) return 1 ;; esac ;;
    *) say "neither curl nor wget is installed"; return 1 ;;
    esac
}
host_of() { h=${1#*://}; say "${h%%/*}"; }

# listed REL: the lines of the sums that belong to dataset directory REL
listed() { # (REL a directory: its files; REL a file: itself)
    awk -v p="$1/" -v f="$1" '$1 !~ /^#/ && NF >= 2 && (substr($2, 1, length(p)) == p || $2 == f) { print $1 "  " $2 }' "$sums" |
        LC_ALL=C sort -k2
}
# sums_of DIR REL: the sums of DIR's files as REL/FILE, README files left out
sums_of() {
    (cd "$1" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) | while read -r f; do
        case ${f##*/} in *[Rr][Ee][Aa][Dd][Mm][Ee]*) continue ;; esac
        say "$(sha "$1/$f")  $2/$f"
    done
}

[ -e "$data" ] && made_data= || made_data=1 # a run that creates the directory and installs nothing removes it
mkdir -p "$data/.fgl" || die "cannot create $data/.fgl"
dl=$data/.fgl/downloads
failed=
dead=
n_ok=0
n_failed=0
n_unverified=0
n_net=0

# one NAME KIND BASE FILE...: fetch, convert, verify, install one dataset
one() {
    name=$1 kind=$2 base=$3
    shift 3
    case $kind in
    tu) rel=tu/$name ;;
    planetoid | npz) rel=node/$name ;;
    heterophilous) rel=heterophilous/$name.npz ;;
    *) why="unknown kind '$kind' in $list"; return 1 ;;
    esac
    dest=$data/$rel
    want=$(listed "$rel")
    if [ -z "$want" ] && [ -n "$strict" ]; then
        why="$(basename "$sums") records no sums for it (FGL_DATA_STRICT is set)"
        return 1
    fi
    if [ -e "$dest" ] && [ -f "$data/.fgl/$name.done" ] &&
        { [ -z "$want" ] || [ "$(cat "$data/.fgl/$name.done")" = "$want" ]; }; then
        if [ -n "$want" ]; then say "$name: up to date in $dest (verified)"
        else say "$name: up to date in $dest (NOT VERIFIED: no recorded sums)"; fi
        return 0
    fi
    work=$data/.fgl/work/$name
    rm -rf "$work"
    mkdir -p "$work/dl" "$work/out" || { why="cannot create $work"; return 1; }
    told=
    for f in "$@"; do
        if [ -f "$dl/$f" ]; then cp "$dl/$f" "$work/dl/$f" && continue; fi
        url=${mirror:+${mirror%/}/$f}
        url=${url:-$base/$f}
        h=$(host_of "$url")
        case " $dead " in *" ${h:-(local)} "*)
            why="not tried: $h could not be reached (above)"
            n_net=$((n_net + 1))
            return 1 ;;
        esac
        if [ -z "$told" ]; then # one line per dataset
            if [ $# -gt 1 ]; then say "$name: downloading $url and its $(($# - 1)) sibling files"
            else say "$name: downloading $url"; fi
            told=1
        fi
        err=$(fetch "$url" "$work/dl/$f" 2>&1)
        rc=$?
        if [ $rc -ne 0 ]; then
            err=$(printf '%s' "$err" | tr '\n' ' ')
            if [ $rc -eq 3 ] && [ -n "$h" ]; then
                dead="$dead $h"
                n_net=$((n_net + 1))
                why="cannot reach $h${err:+ ($err)}"
            else why="$f: download of $url failed${err:+: $err}"; fi
            return 1
        fi
    done
    case $kind in
    tu)
        zip=$work/dl/$1
        if ! err=$(unzip -q -o "$zip" -d "$work/zip" 2>&1); then why="$1: unzip failed: $err"; reject "$@"; return 1; fi
        if [ -f "$work/zip/$name/${name}_A.txt" ]; then src=$work/zip/$name
        elif [ -f "$work/zip/${name}_A.txt" ]; then src=$work/zip
        else why="$1 holds no $name/${name}_A.txt"; reject "$@"; return 1; fi
        if ! err=$("$conv" check-tu "$src" "$name" 2>&1); then why="$1: $err"; reject "$@"; return 1; fi
        what=$err
        rm -rf "$work/out" && mv "$src" "$work/out" ;;
    planetoid)
        prefix=${1#ind.}
        prefix=${prefix%.x}
        if ! err=$("$conv" planetoid "$work/dl" "$prefix" "$work/out" "$name" 2>&1); then
            why="$err"; reject "$@"; return 1
        fi
        what=$err ;;
    npz)
        if ! err=$(unzip -q -o "$work/dl/$1" -d "$work/npz" 2>&1); then
            why="$1: unzip failed: $err"; reject "$@"; return 1
        fi
        if ! err=$("$conv" npz "$work/npz" "$work/out" "$name" 2>&1); then why="$1: $err"; reject "$@"; return 1; fi
        what=$err ;;
    heterophilous) # the .npz itself, installed as published once fgl_load_npz reads it
        if ! err=$("$conv" check-npz "$work/dl/$1" "$name" 2>&1); then why="$1: $err"; reject "$@"; return 1; fi
        what=$err ;;
    esac
    if [ "$kind" = heterophilous ]; then got="$(sha "$work/dl/$1")  $rel"
    else got=$(sums_of "$work/out" "$rel"); fi
    if [ -n "$want" ] && [ "$got" != "$want" ]; then
        why=$(diff_sums "$want" "$got")
        reject "$@"
        printf '%s\n' "$got" > "$data/.fgl/rejected/$name.sha256"
        why="$why: refused (the files are in $data/.fgl/rejected/, their sums in $name.sha256)"
        return 1
    fi
    # install: the old copy (if any) goes only once the new one is complete
    mkdir -p "$(dirname "$dest")" "$dl" || { why="cannot create $(dirname "$dest")"; return 1; }
    rm -rf "$dest.old"
    if [ "$kind" = heterophilous ]; then # one file among the others of heterophilous/: replaced in one rename
        if ! cp "$work/dl/$1" "$dest.new" || ! mv -f "$dest.new" "$dest"; then
            rm -f "$dest.new"
            why="cannot write $dest"
            return 1
        fi
    elif [ -e "$dest" ] && ! mv "$dest" "$dest.old"; then why="cannot move the old $dest aside"; return 1
    elif ! mv "$work/out" "$dest"; then
        [ -e "$dest.old" ] && mv "$dest.old" "$dest"
        why="cannot move the new $name into $dest"
        return 1
    fi
    rm -rf "$dest.old"
    for f in "$@"; do mv -f "$work/dl/$f" "$dl/$f"; done
    rm -rf "$work"
    printf '%s\n' "$got" > "$data/.fgl/$name.done"
    if [ -n "$want" ]; then
        say "$what; $(printf '%s\n' "$got" | wc -l | tr -d ' ') files verified; ready in $dest"
    else
        n_unverified=$((n_unverified + 1))
        cp "$data/.fgl/$name.done" "$data/.fgl/$name.sha256"
        say "$what; ready in $dest"
        say "  NOT VERIFIED: $(basename "$sums") has no sums for $name (they could not be made where fgl is"
        say "  developed). Its files' sums are in $data/.fgl/$name.sha256: check them by other means, then"
        say "  append them to $(basename "$sums") to pin this copy."
    fi
    return 0
}

# reject FILE...: the downloads of a dataset that failed, kept for a look
reject() {
    mkdir -p "$data/.fgl/rejected"
    for f in "$@"; do [ -f "$work/dl/$f" ] && mv -f "$work/dl/$f" "$data/.fgl/rejected/$f"; done
    for f in "$@"; do rm -f "$dl/$f"; done
}

# diff_sums WANT GOT: the first file that differs, in words
diff_sums() {
    printf '%s\n' "$1" > "$work/want"
    printf '%s\n' "$2" > "$work/got"
    awk 'NR == FNR { w[$2] = $1; next } { g[$2] = $1 }
         END { for (f in w) if (!(f in g)) { print f ": missing"; n++ }
               for (f in g) if (!(f in w)) { print f ": not in the sums"; n++ }
                            else if (w[f] != g[f]) { print f ": sha256 " g[f] ", the sums say " w[f]; n++ } }' \
        "$work/want" "$work/got" | LC_ALL=C sort | awk '{ if (NR == 1) first = $0 } END {
            printf "%s", first; if (NR > 1) printf " (and %d more)", NR - 1 }'
}

# the datasets asked for, in list order: by default those with sums
all_names=$(awk '$1 !~ /^#/ && NF >= 4 { print $1 }' "$list")
asked=${*:+ DATASETS=\"$*\"}
# (dataset names hold no blanks: split on purpose)
if [ $# -eq 0 ]; then
    # shellcheck disable=SC2046
    set -- $(for n in $all_names; do
        k=$(awk -v n="$n" '$1 == n { print $2; exit }' "$list")
        case $k in tu) r=tu/$n ;; heterophilous) r=heterophilous/$n.npz ;; *) r=node/$n ;; esac
        [ -n "$(listed "$r")" ] && say "$n"
    done)
elif [ "$*" = all ]; then
    # shellcheck disable=SC2086
    set -- $all_names
fi
say "fetch_data: $# dataset(s) into $data from ${mirror:-their publishers (tools/datasets.txt)};" \
    "checked against $(basename "$sums")"
want_names=" $* "
found=
while read -r name kind base files; do
    case $name in '' | '#'*) continue ;; esac
    case $want_names in *" $name "*) ;; *) continue ;; esac
    found="$found $name"
    if [ "$kind" = planetoid ]; then # ind.PREFIX: its eight files
        files=$(for p in x tx allx y ty ally graph test.index; do printf '%s.%s ' "$files" $p; done)
    fi
    why=
    # shellcheck disable=SC2086
    if one "$name" "$kind" "$base" $files < /dev/null; then n_ok=$((n_ok + 1))
    else
        n_failed=$((n_failed + 1))
        failed="$failed $name"
        say "$name: FAILED: $why"
    fi
done < "$list"
for w in "$@"; do
    case " $found " in *" $w "*) ;; *)
        n_failed=$((n_failed + 1))
        hint=$(printf '%s\n' "$all_names" |
            awk -v w="$w" 'tolower($0) == tolower(w) { print " (did you mean " $0 "?)" }')
        failed="$failed $w"
        say "$w: FAILED: not in $list$hint" ;;
    esac
done
rm -rf "$data/.fgl/work"

if [ "$n_failed" -gt 0 ]; then
    say "fetch_data: $n_failed dataset(s) failed ($failed ), $n_ok ready in $data"
    if [ "$n_net" -gt 0 ]; then
        if [ -n "$mirror" ]; then say "fetch_data: the mirror FGL_DATA_URL=$mirror could not be reached."
        else say "fetch_data: no network? Point FGL_DATA_URL to a mirror instead."; fi
        say "  A mirror is a directory (or URL) holding every file tools/datasets.txt names for a dataset,"
        say "  under its own name: MUTAG.zip (a TUDataset zip), the eight ind.cora.* Planetoid files,"
        say "  amazon_electronics_computers.npz, ...; then"
        say "  FGL_DATA_URL=file:///path/to/mirror make data$asked"
    fi
    say "fetch_data: or set FGL_DATA to a directory that already holds the datasets (node/, tu/, heterophilous/)."
    # nothing installed in a directory this run created: leave nothing behind (an empty data/ would be taken for
    # the data directory), unless rejected downloads are kept there for a look
    if [ -n "$made_data" ] && [ "$n_ok" = 0 ] && [ -z "$(find "$data" -type f 2>/dev/null | head -n 1)" ]; then
        rm -rf "$data"
        say "fetch_data: removed $data again (nothing was installed in it)"
    fi
    exit 1
fi
if [ "$n_unverified" -gt 0 ]; then say "fetch_data: $n_ok dataset(s) ready in $data, $n_unverified of them NOT VERIFIED"
else say "fetch_data: $n_ok dataset(s) ready in $data, every one verified"; fi
