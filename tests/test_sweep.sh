#!/bin/sh
# fglrun's sweeps (--set key=a,b,c), on fgl's synthetic data:
#  - one row per value, labelled "algo key=value" in the table, the JSON
#    ("label", "sweep") and the plots; algorithms without the key run once;
#  - each row's own record ("config") holds its value, and --config
#    result.json --row LABEL replays that row alone, identically; so does
#    the plain run with that value, and --config result.json the whole sweep;
#  - two swept keys run every combination;
#  - a bad value anywhere in the list is refused before the first run;
#  - a group list (share=conv,head) keeps its commas: no sweep.
# Usage: tests/test_sweep.sh BUILD_DIR (holding fglrun)
B=${1:-build}
FGLRUN=$B/fglrun
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
args="--data synthetic --clients 4 --rounds 2"
ok() { echo "ok - sweep: $1"; }
notok() { echo "not ok - sweep: $1"; [ -f "$2" ] && sed 's/^/#   /' "$2" | head -8; }
acc() { sed -n "s/.*\"label\": \"$2\"[^}]*\"test_acc_mean\": \([0-9.]*\).*/\1/p" "$1" | head -n 1; } # one seed: the mean is the run's

if $FGLRUN --algo fedpub,fedavg $args --set tau=1,3 --out "$tmp/o" > "$tmp/table" 2> "$tmp/err"; then
    ok "--algo fedpub,fedavg --set tau=1,3 runs"
else notok "--algo fedpub,fedavg --set tau=1,3 failed" "$tmp/err"; fi
if grep -q '^fedpub tau=1  *[0-9]' "$tmp/table" && grep -q '^fedpub tau=3  *[0-9]' "$tmp/table" &&
   grep -q '^fedavg  *[0-9]' "$tmp/table" &&
   [ "$(sed '/^(/q' "$tmp/table" | grep -c '^fed[a-z]*.* [0-9.]*  *[0-9.]* ')" = 3 ]; then # (the accuracy table: F1's follows)
    ok "the table has the rows 'fedpub tau=1', 'fedpub tau=3' and 'fedavg'"
else notok "the table's rows" "$tmp/table"; fi
r=$tmp/o/result.json
a1=$(acc "$r" "fedpub tau=1"); a3=$(acc "$r" "fedpub tau=3")
if [ -n "$a1" ] && [ -n "$a3" ] && [ "$a1" != "$a3" ] && grep -q '"label": "fedavg"' "$r" &&
   grep -q '"sweep": \["fedpub.tau=3"\]' "$r"; then
    ok "result.json labels the rows, and tau acts (test_acc $a1 with tau=1, $a3 with tau=3)"
else notok "result.json's rows (tau=1: '$a1', tau=3: '$a3')" "$r"; fi
if grep -q '"fedpub.tau": 1,' "$r" && grep -q '"fedpub.tau": 3,' "$r" && grep -q '"fedpub.tau": "1,3"' "$r"; then
    ok "each row's record holds its value; the invocation's record the list"
else notok "the records' fedpub.tau" "$r"; fi
if [ -s "$tmp/o/fedpub_tau=1_seed1_rounds.csv" ] && [ -s "$tmp/o/fedpub_tau=3_seed1_rounds.csv" ] &&
   [ -s "$tmp/o/fedavg_seed1_rounds.csv" ] && [ -z "$(ls "$tmp/o" | grep ' ')" ] &&
   grep -q 'fedpub tau=3' "$tmp/o/curves.svg"; then
    ok "one CSV per row (fedpub_tau=3_seed1_rounds.csv), no blanks in file names, rows named in curves.svg"
else notok "the files of --out" "$tmp/err"; ls "$tmp/o" | sed 's/^/#   /'; fi
# a row replays alone, and is the plain run with that value
if $FGLRUN --config "$r" --row "fedpub tau=3" --json > "$tmp/row.json" 2> "$tmp/err" &&
   grep -q 'identical to the record' "$tmp/err"; then
    ok "--config result.json --row 'fedpub tau=3' replays that row identically"
else notok "--config result.json --row 'fedpub tau=3'" "$tmp/err"; fi
if $FGLRUN --algo fedpub $args --set tau=3 --json --quiet > "$tmp/plain.json" 2> "$tmp/err" &&
   [ "$(sed -n 's/.*"test_acc_mean": \([0-9.]*\).*/\1/p' "$tmp/plain.json")" = "$a3" ]; then
    ok "the row equals the plain run --set tau=3 ($a3)"
else notok "the plain run --set tau=3 gives '$(sed -n 's/.*"test_acc_mean": \([0-9.]*\).*/\1/p' "$tmp/plain.json")', the row $a3" "$tmp/err"; fi
if $FGLRUN --config "$r" --row fedavg --quiet > /dev/null 2> "$tmp/err" && $FGLRUN --config "$r" > /dev/null 2> "$tmp/err2" &&
   grep -q 'identical to the record' "$tmp/err2"; then
    ok "--row fedavg (no swept key) and the whole sweep (--config result.json) replay"
else notok "--row fedavg and --config result.json" "$tmp/err2"; fi
# two keys: every combination, the first key slowest
if $FGLRUN --algo fedpub $args --set tau=1,3 --set l1=0.001,0.01 --json --quiet > "$tmp/two.json" 2> "$tmp/err" &&
   [ "$(grep -o '"label": "fedpub tau=[13] l1=0.0[0-9]*"' "$tmp/two.json" | tr '\n' ' ')" = \
     '"label": "fedpub tau=1 l1=0.001" "label": "fedpub tau=1 l1=0.01" "label": "fedpub tau=3 l1=0.001" "label": "fedpub tau=3 l1=0.01" ' ]; then
    ok "two swept keys run the 4 combinations, in order"
else notok "two swept keys" "$tmp/err"; grep -o '"label": "[^"]*"' "$tmp/two.json" | sed 's/^/#   /'; fi
# a bad value anywhere is refused before any run: nothing on stdout, no --out written
for bad in "tau=1,x,5" "tau=1,,5" "tau=1,3," "tau=1,inf" "fedpub.proxy_blocks=5,2.5"; do
    if $FGLRUN --algo fedavg,fedpub $args --set "$bad" --out "$tmp/bad" > "$tmp/out" 2> "$tmp/err"; then
        notok "--set $bad must be refused" "$tmp/err"
    elif [ -s "$tmp/out" ] || [ -e "$tmp/bad" ] || grep -q 'round 1/' "$tmp/err"; then
        notok "--set $bad: refused, but after running" "$tmp/err"
    else ok "--set $bad refused before any run: $(grep -v '^$' "$tmp/err" | head -n 1 | cut -c1-110)"; fi
done
# a group list is a value, not a sweep
if $FGLRUN --algo fedavg --data synthetic --clients 4 --rounds 1 --set share=conv,head --json --quiet > "$tmp/g.json" 2> "$tmp/err" &&
   grep -q '"fedavg.share": "conv+head"' "$tmp/g.json" && ! grep -q '"label"' "$tmp/g.json"; then
    ok "--set share=conv,head is one group list, not a sweep"
else notok "--set share=conv,head" "$tmp/err"; fi
