#!/bin/sh
# Adding a defence to the tree is one new file and one line of
# src/fed/plugins/list.h. In a copy of src/, norm bounding (Sun et al.
# 2019, "Can you really backdoor federated learning?": the server scales
# every upload's update down to norm at most M) becomes a plug-in:
# src/fed/plugins/normbound.h and the line "X(normbound, normbound)". Then:
#  - the copy differs from src/ by exactly that file and that line;
#  - tools/amalgamate writes the four headers from it, and fglrun built on
#    them, warning-free, runs it by name (--plugin normbound:M);
#  - it defends: with a fifth of the clients scaling their updates by 1e4,
#    FedAvg's test accuracy with the bound is at least 0.2 above FedAvg's
#    without it;
#  - its check refuses what it would not cover (an algorithm that sends no
#    weights), the runtime refuses it under secure aggregation (it rewrites
#    uploads, which arrive masked there), and a name the list does not have
#    is refused with the names it does;
#  - a second plug-in that changes uploads where they are built (after DP's
#    clip and secure aggregation's masks, by its place in the list) is
#    refused under both and runs without them.
# Usage: tests/plugin_check.sh (from the repository root)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
top=$(pwd)
if [ ! -f "$top/src/fed/plugins/list.h" ]; then echo "skip - adding a plug-in to src/ (no src/ in this copy)"; exit 0; fi
mkdir -p "$tmp/repo/tools" && cp -R "$top/src" "$tmp/repo/src" && cp "$top/tools/amalgamate" "$tmp/repo/tools/"
cat > "$tmp/repo/src/fed/plugins/normbound.h" <<'PLUGIN'
#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- norm bounding (Sun et al. 2019) ------------------------------------------- */
/* The server scales each upload's update (its model and delta parts
 * together, against the download it started from) down to L2 norm at most
 * cfg.plugin.arg, before the uploads are checked and aggregated. */

static int fgl__normbound_check(fgl_run *run) {
    int rc = fgl__covered(run, "norm bounding", "it", NULL, NULL,
                          FGL__COVER_WEIGHTS | FGL__COVER_RAW | FGL__COVER_EACH);
    if (rc) return rc;
    if (!(run->cfg.plugin.arg > 0))
        return fgl_error_set(&run->err, FGL_ERR_ARG, "normbound: the bound must be > 0, not %g", run->cfg.plugin.arg);
    return FGL_OK;
}

static int fgl__normbound_arrive(fgl_run *run, fgl_round_stats *st) {
    const fgl_algo *a = &run->algo;
    int q, p;
    (void)st;
    for (q = 0; q < run->n_part; q++) {
        fgl_client *c = &run->clients[run->part[q]];
        const fgl_msg *down = &run->down[c->id];
        double norm = 0;
        for (p = 0; p < a->n_up; p++) /* a malformed upload is left to the check that follows */
            if (c->up.part[p] && c->up.len[p] != c->up_len[p]) break;
        if (p < a->n_up || !((norm = fgl__joint_update_norm(a, &c->up, down)) > run->cfg.plugin.arg)) continue;
        for (p = 0; p < a->n_up; p++) {
            float *x;
            if (!c->up.part[p] || !fgl__weights_part(&a->up[p])) continue;
            if (!(x = fgl__msg_write(&c->up, p))) return fgl_error_set(&run->err, FGL_ERR_NOMEM, "normbound: out of memory");
            fgl__affine_update(x, fgl__ref_of(down, &a->up[p]), c->up.len[p], run->cfg.plugin.arg / norm);
        }
    }
    return FGL_OK;
}

static fgl__plugin fgl__plugin_normbound(void) {
    fgl__plugin p;
    memset(&p, 0, sizeof p);
    p.name = "normbound";
    p.flags = FGL__PLUGIN_REWRITES;
    p.check = fgl__normbound_check;
    p.arrive = fgl__normbound_arrive;
    return p;
}
#include "../../alone.h"
PLUGIN
sed 's|^\(    /\* (every line above ends in a backslash\)|    X(normbound, normbound) \\\n\1|' "$top/src/fed/plugins/list.h" > "$tmp/repo/src/fed/plugins/list.h"
changes=$(diff -r "$top/src" "$tmp/repo/src" | grep -c '^[<>]')
only=$(diff -r "$top/src" "$tmp/repo/src" | grep -c '^Only in')
if [ "$only" = 1 ] && [ "$changes" = 1 ] && diff "$top/src/fed/plugins/list.h" "$tmp/repo/src/fed/plugins/list.h" | grep -q '^> *X(normbound, normbound) \\$'
then echo "ok - norm bounding is one new file (src/fed/plugins/normbound.h) and one line of the list"
else echo "not ok - the change is more than one file and one line"; diff -r "$top/src" "$tmp/repo/src" | head -20 | sed 's/^/#   /'; fi
if ! "$tmp/repo/tools/amalgamate" > "$tmp/am.log" 2>&1; then
    echo "not ok - tools/amalgamate on the copy"; sed 's/^/#   /' "$tmp/am.log"; exit 0
fi
if ${CC:-cc} -std=c99 -O1 -Wall -Wextra -Wpedantic -Werror -fopenmp -I"$tmp/repo" -DFGL_COMMIT='"test"' \
        "$top/examples/fglrun.c" -o "$tmp/fglrun" -lm > "$tmp/cc.log" 2>&1; then
    echo "ok - fglrun builds, warning-free, on the headers with the plug-in"
else echo "not ok - fglrun on the headers with the plug-in"; head -20 "$tmp/cc.log" | sed 's/^/#   /'; exit 0; fi
acc() { sed -n 's/.*"test_acc_mean": \([0-9.]*\).*/\1/p' "$1" | head -n 1; }
args="--algo fedavg --data synthetic --clients 5 --rounds 10 --attack scale:1e4 --attackers 0.2 --screen 0 --json --quiet"
if "$tmp/fglrun" $args > "$tmp/plain.json" 2> "$tmp/err" &&
   "$tmp/fglrun" $args --plugin normbound:1 > "$tmp/bound.json" 2>> "$tmp/err"; then
    plain=$(acc "$tmp/plain.json"); bound=$(acc "$tmp/bound.json")
    if [ -n "$plain" ] && [ -n "$bound" ] && awk -v a="$plain" -v b="$bound" 'BEGIN { exit !(b >= a + 0.2) }'; then
        echo "ok - under a scaling attack the bound keeps FedAvg's accuracy: $bound against $plain without it"
    else echo "not ok - with the bound $bound, without $plain, under a scaling attack"; fi
else echo "not ok - fglrun with --plugin normbound:1 failed"; sed 's/^/#   /' "$tmp/err" | head -5; fi
# the plug-in is part of the run's record and of its checkpoint: --config replays it, a checkpoint resumes it,
# and a checkpoint of the run with it does not resume the run without it
strip() { sed 's/"seconds[a-z_]*": [0-9.]*//g; s/, "\(peak\|data\)_rss_mb": [0-9.]*//g; s/, "config": .*$/}/' "$1"; }
if "$tmp/fglrun" --config "$tmp/bound.json" --json --quiet > "$tmp/replay.json" 2> "$tmp/err" &&
   [ "$(strip "$tmp/bound.json")" = "$(strip "$tmp/replay.json")" ] && grep -q '"plugin": "normbound:1"' "$tmp/bound.json"
then echo "ok - the record names the plug-in and --config replays the run"
else echo "not ok - the record of the run with the plug-in does not replay it"; sed 's/^/#   /' "$tmp/err" | head -3; fi
"$tmp/fglrun" $args --plugin normbound:1 --checkpoint "$tmp/ck" --stop-after 4 > /dev/null 2> "$tmp/err"
"$tmp/fglrun" $args --plugin normbound:1 --checkpoint "$tmp/ck" > "$tmp/resumed.json" 2>> "$tmp/err"
if [ "$(strip "$tmp/bound.json")" = "$(strip "$tmp/resumed.json")" ]; then echo "ok - a run with the plug-in resumes from its checkpoint to the same result"
else echo "not ok - resumed with the plug-in: $(strip "$tmp/resumed.json" | cut -c1-200)"; sed 's/^/#   /' "$tmp/err" | head -3; fi
rm -f "$tmp/ck"
"$tmp/fglrun" $args --plugin normbound:1 --checkpoint "$tmp/ck" --stop-after 4 > /dev/null 2> "$tmp/err"
if "$tmp/fglrun" $args --checkpoint "$tmp/ck" > "$tmp/other.json" 2> "$tmp/err"; then
    echo "not ok - a checkpoint made with the plug-in resumed a run without it"
else echo "ok - a checkpoint made with the plug-in does not resume a run without it: $(head -c 150 "$tmp/err")"; fi
refused() { # WHAT PATTERN ARGS...: fglrun refuses, and its message matches
    what=$1; pat=$2; shift 2
    if "$tmp/fglrun" --data synthetic --clients 4 --rounds 1 --quiet "$@" > /dev/null 2> "$tmp/err"; then
        echo "not ok - $what: it ran"
    elif grep -q "$pat" "$tmp/err"; then echo "ok - $what: $(head -c 160 "$tmp/err")"
    else echo "not ok - $what: $(head -c 300 "$tmp/err")"; fi
}
refused "an algorithm without weights is refused" "fedproto sends no model weights" --algo fedproto --plugin normbound:1
refused "secure aggregation: the runtime refuses a plug-in that rewrites masked uploads" "normbound: refused: it rewrites uploads" --algo fedavg --plugin normbound:1 --secagg --screen 0
refused "a bound of 0 is refused" "the bound must be > 0" --algo fedavg --plugin normbound
refused "an unknown name is refused, with the names there are" "no plug-in named 'nobound'; by name: normbound" --algo fedavg --plugin nobound:1
# A plug-in that changes uploads where they are built (its `upload`) comes after DP and secure aggregation in the
# list, so it would change what DP clipped and what secure aggregation masked: the runtime refuses it under both
# and runs it without them.
cat > "$tmp/repo/src/fed/plugins/inflate.h" <<'PLUGIN'
#include "../../alone.h" /* (this file alone: src/alone.h) */
/* fgl:implementation */
#include "../../alone.h"
/* --- inflate: every client scales its update by cfg.plugin.arg (a test of the runtime's refusals) --- */
static int fgl__inflate_upload(fgl_run *run, fgl_client *c) {
    const fgl_algo *a = &run->algo;
    int p;
    for (p = 0; p < a->n_up; p++) {
        float *x;
        if (!c->up.part[p] || !fgl__weights_part(&a->up[p])) continue;
        if (!(x = fgl__msg_write(&c->up, p))) return fgl_client_fail(c, FGL_ERR_NOMEM, "out of memory");
        fgl__affine_update(x, fgl__ref_of(&c->down, &a->up[p]), c->up.len[p], run->cfg.plugin.arg);
    }
    return FGL_OK;
}

static fgl__plugin fgl__plugin_inflate(void) {
    fgl__plugin p;
    memset(&p, 0, sizeof p);
    p.name = "inflate";
    p.upload = fgl__inflate_upload;
    return p;
}
#include "../../alone.h"
PLUGIN
sed -i 's|^\(    /\* (every line above ends in a backslash\)|    X(inflate, inflate) \\\n\1|' "$tmp/repo/src/fed/plugins/list.h"
if "$tmp/repo/tools/amalgamate" > "$tmp/am.log" 2>&1 &&
   ${CC:-cc} -std=c99 -O1 -Wall -Wextra -Wpedantic -Werror -fopenmp -I"$tmp/repo" -DFGL_COMMIT='"test"' \
        "$top/examples/fglrun.c" -o "$tmp/fglrun" -lm > "$tmp/cc.log" 2>&1; then
    refused "a plug-in changing uploads after DP's clip is refused" "inflate: refused: it changes each upload after dp" \
        --algo fedavg --plugin inflate:3 --dp clip=1,noise=0
    refused "a plug-in changing uploads after secure aggregation's masks is refused" \
        "inflate: refused: it changes each upload after secagg" --algo fedavg --plugin inflate:3 --secagg --screen 0
    if "$tmp/fglrun" --algo fedavg --data synthetic --clients 4 --rounds 2 --quiet --plugin inflate:3 > /dev/null 2> "$tmp/err"
    then echo "ok - without DP or secure aggregation the plug-in runs"
    else echo "not ok - inflate alone: $(head -c 200 "$tmp/err")"; fi
else echo "not ok - the copy with a second plug-in does not build"; head -20 "$tmp/am.log" "$tmp/cc.log" | sed 's/^/#   /'; fi
