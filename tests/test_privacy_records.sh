#!/bin/sh
# What fglrun's records say about a run's secrets and its clients (issue 48),
# on fgl's synthetic data:
#  - --secret-seed S is in no file a run writes: stdout (--json), stderr,
#    everything under --out DIR (config, progress.json, result.json, the
#    CSVs, the plots) and the checkpoints, neither in decimal nor in hex;
#    the record's "command" says --secret-seed REDACTED; a replay (--config)
#    without S says that S must be given again, and with it repeats the
#    bits;
#  - the runs of one invocation draw their own secrets: two sweep rows of
#    one secret seed and one run seed get different DP participation draws
#    (they got the same before the run label), and a sweep row replayed
#    alone (--config result.json --row LABEL --secret-seed S) repeats its
#    bits;
#  - under --dp the per-round CSV holds the round's aggregates only (no row
#    per client: it would name the clients the secret Poisson draw chose)
#    and clients.svg is not written, unless --per-client-records; without
#    --dp, a row per client as before;
#  - "participants_per_round" is one list per run (per seed), as
#    "dp_epsilon" is.
# Usage: tests/test_privacy_records.sh BUILD_DIR (holding fglrun)
B=${1:-build}
FGLRUN=$B/fglrun
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
S=987654321987
args="--data synthetic --clients 5 --rounds 4 --frac 0.5"
ok() { echo "ok - privacy records: $1"; }
notok() { echo "not ok - privacy records: $1"; [ -f "$2" ] && sed 's/^/#   /' "$2" | head -8; }

# --- 1. the secret seed in no file --------------------------------------------------------------
hex=$(printf '%x' "$S")
if $FGLRUN --algo fedavg $args --dp clip=1,noise=0.5 --secret-seed "$S" --out "$tmp/d" --checkpoint "$tmp/ck" \
       --json > "$tmp/out" 2> "$tmp/err" &&
   $FGLRUN --algo fedavg $args --secagg --secret-seed "$S" --out "$tmp/s" --checkpoint "$tmp/sck" --json \
       > "$tmp/sout" 2> "$tmp/serr"; then
    ok "runs with --dp and --secagg, --secret-seed, --out, --checkpoint and --json"
else notok "the runs with --secret-seed failed" "$tmp/err"; fi
files="$tmp/out $tmp/err $tmp/sout $tmp/serr $(ls "$tmp"/d/* "$tmp"/s/* "$tmp"/ck* "$tmp"/sck* 2>/dev/null)"
n=0; found=
for f in $files; do
    n=$((n + 1))
    if grep -a -q -F "$S" "$f" || grep -a -q -i -F "$hex" "$f"; then found="$found $(basename "$f")"; fi
done
if [ "$n" -ge 14 ] && [ -z "$found" ]; then
    ok "S is in none of the $n files written (stdout, stderr, --out's, the checkpoints; decimal, hex $hex, 0x$hex, upper case)"
else notok "S ($S, hex $hex) is in:${found:- (no files? $n)}"; fi
if grep -q -e '--secret-seed REDACTED --out' "$tmp/out" && grep -q -e '--secret-seed REDACTED' "$tmp/d/config" &&
   grep -q '"secret-seed": "(given, not recorded)"' "$tmp/d/result.json"; then
    ok "the record's command says --secret-seed REDACTED"
else notok "the record's command" "$tmp/out"; fi
$FGLRUN --config "$tmp/d/result.json" --quiet > /dev/null 2> "$tmp/rerr"; rc=$?
if [ "$rc" = 1 ] && [ "$(grep -c 'was run with --secret-seed S, which no record holds: give --secret-seed S again' "$tmp/rerr")" = 1 ] &&
   grep -q 'differs from the record (it was run with --secret-seed S: give it again)' "$tmp/rerr"; then
    ok "a replay without S says (once) that S must be given again, and differs (exit status 1)"
else notok "the replay without S (exit status $rc)" "$tmp/rerr"; fi
if $FGLRUN --config "$tmp/d/result.json" --secret-seed "$S" --quiet > /dev/null 2> "$tmp/rerr2" &&
   $FGLRUN --config "$tmp/d/result.json" --secret-seed "$S" > /dev/null 2> "$tmp/rerr3" &&
   grep -q 'identical to the record' "$tmp/rerr3" && ! grep -q 'no record holds' "$tmp/rerr3"; then
    ok "a replay with --secret-seed S repeats the DP run's bits"
else notok "the replay with S" "$tmp/rerr3"; fi

# --- 2. every run of an invocation its own secrets --------------------------------------------
# the Nth run's participants (the rows in their order: mu=0, then mu=0.01)
parts() { grep -o '"participants_per_round": \[[0-9, ]*\]' "$1" | sed -n "$2s/.*: //p"; }
if $FGLRUN --algo fedavg $args --rounds 10 --set mu=0,0.01 --dp clip=1,noise=5 --secret-seed "$S" --out "$tmp/w" \
       --quiet 2> "$tmp/werr" > /dev/null; then
    p0=$(parts "$tmp/w/result.json" 1); p1=$(parts "$tmp/w/result.json" 2)
    if [ -n "$p0" ] && [ -n "$p1" ] && [ "$p0" != "$p1" ] &&
       [ "$(grep -o '"label": "fedavg mu=0[.01]*"' "$tmp/w/result.json" | tr '\n' ' ')" = '"label": "fedavg mu=0" "label": "fedavg mu=0.01" ' ]; then
        ok "two sweep rows of one secret seed draw their own participants ($p0 against $p1)"
    else notok "the sweep rows' participants ('$p0', '$p1')" "$tmp/w/result.json"; fi
else notok "the sweep with --secret-seed failed" "$tmp/werr"; fi
if $FGLRUN --config "$tmp/w/result.json" --row "fedavg mu=0.01" --secret-seed "$S" > /dev/null 2> "$tmp/werr2" &&
   grep -q 'identical to the record' "$tmp/werr2"; then
    ok "a sweep row replayed alone (--row) with S repeats its bits"
else notok "the sweep row's replay" "$tmp/werr2"; fi

# --- 3. per-client outputs under --dp only with --per-client-records ----------------------------
csv=$tmp/d/fedavg_seed1_rounds.csv
if [ "$(head -n 1 "$csv")" = "round,participants,train_loss,val_acc,test_acc,bytes_up,bytes_down" ] &&
   [ "$(wc -l < "$csv")" = 5 ] && [ ! -e "$tmp/d/clients.svg" ]; then
    ok "under --dp the CSV holds a row of aggregates per round, and no clients.svg"
else notok "the CSV under --dp (clients.svg: $(ls "$tmp/d" | grep -c clients.svg))" "$csv"; fi
if $FGLRUN --algo fedavg $args --dp clip=1,noise=0.5 --per-client-records --out "$tmp/p" --quiet > /dev/null 2> "$tmp/perr" &&
   [ "$(head -n 1 "$tmp/p/fedavg_seed1_rounds.csv")" = "round,client,train_loss,val_acc,test_acc,bytes_up,bytes_down" ] &&
   [ "$(wc -l < "$tmp/p/fedavg_seed1_rounds.csv")" = 21 ] && [ -s "$tmp/p/clients.svg" ] &&
   grep -q '"per-client-records": true' "$tmp/p/result.json"; then
    ok "with --per-client-records a row per client and round, and clients.svg (recorded as run control)"
else notok "--per-client-records" "$tmp/perr"; fi
if $FGLRUN --algo fedavg $args --out "$tmp/n" --quiet > /dev/null 2> "$tmp/nerr" &&
   [ "$(head -n 1 "$tmp/n/fedavg_seed1_rounds.csv")" = "round,client,train_loss,val_acc,test_acc,bytes_up,bytes_down" ] &&
   [ -s "$tmp/n/clients.svg" ]; then
    ok "without --dp a row per client, as before"
else notok "the CSV without --dp" "$tmp/nerr"; fi
if $FGLRUN --help | grep -q -e '--per-client-records' && grep -q -e '--per-client-records' README.md 2>/dev/null; then
    ok "--help and README name --per-client-records"
else notok "--per-client-records undocumented"; fi

# --- 4. participants per run --------------------------------------------------------------------
if $FGLRUN --algo fedavg $args --seeds 2 --dp clip=1,noise=0.5 --json --quiet > "$tmp/j" 2> "$tmp/jerr"; then
    pp=$(grep -o '"participants_per_round": \[[0-9, ]*\]' "$tmp/j" | sed 's/.*: //' | paste -sd' ' -)
    eps=$(grep -o '"dp_epsilon": [0-9][0-9.e+]*' "$tmp/j" | sed 's/.*: //' | paste -sd' ' -)
    if echo "$pp" | grep -q '^\[[0-5], [0-5], [0-5], [0-5]\] \[[0-5], [0-5], [0-5], [0-5]\]$' &&
       [ "$(echo "$eps" | wc -w)" = 2 ]; then
        ok "participants_per_round is one list per run ($pp), as dp_epsilon ($eps)"
    else notok "participants_per_round '$pp' (dp_epsilon '$eps')" "$tmp/j"; fi
else notok "the run with --seeds 2 failed" "$tmp/jerr"; fi
