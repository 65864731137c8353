#!/bin/sh
# Faults degrade an fglrun run, they never abort it or make it lie (issue 41),
# on fgl's synthetic data and a tiny dataset written here (no datasets needed):
#  - rejections never abort a round: the robust rules fall back when too few
#    uploads survive (trimmed:4 of 10 clients with 2 NaN attackers, trimmed:2
#    of 5 participants), the fallbacks are counted per round in the JSON and
#    in the round log and said on stderr; parameters no round could support
#    (Krum outside its guarantee, K <= 2F + 2) are refused at the start;
#    counts beyond int's range in --robust are refused at parse;
#  - strict JSON everywhere: tests/json_strict.c (RFC 8259) refuses what it
#    must, and accepts every JSON file fglrun writes: --json and
#    DIR/result.json of a plain, a multi-algorithm, a multi-seed, a robust, an
#    attacked, a DP (noise 0 and > 0), a secure-aggregation and a resumed run,
#    DIR/config, DIR/progress.json, --info, a report hook that prints nan, and
#    a dataset whose name holds a quote and a backslash, a sweep, and names
#    (--out, the dataset) that are not UTF-8 (U+FFFD in the JSON and SVG);
#  - with --seeds N, dp_epsilon (it composes over runs) is one figure per run.
#  - run-control options in a --config file (out, checkpoint under "flags",
#    or in "args") are ignored with a note unless --config-run-control;
#    a config cannot redirect: a "flags" member that is no option, or whose
#    value is not of the option's type (a switch given "--out"), is refused,
#    and the reader refuses what RFC 8259 does;
#  - a replay on data that differ from the record's is not called identical
#    and exits with status 3;
#  - nothing half-written (issue 49): --out on a 16 KiB tmpfs (or, where
#    mounting is not allowed, under a 2 KiB file-size limit) writes whole
#    files or none, says each failure and exits 1; a checkpoint that does not
#    fit, or whose directory is missing, stops the run; a second fglrun on a
#    used --out or checkpoint is refused; SIGTERM stops after the round with
#    progress.json "interrupted" and exit status 143;
#  - estimates before allocation: --hidden 1000000 refused at once with the
#    memory it needs, --mem-limit obeyed; command-line refusals name the
#    allowed range (or the nearest option) in two lines;
#  - secure aggregation: a client whose value leaves the fixed-point ring
#    withholds its upload (rejected, charged to it) and the round is still
#    unmasked; an explicit --screen with --secagg is refused.
# Usage: tests/test_faults.sh BUILD_DIR (holding fglrun, tests/user_fglrun and tests/json_strict)
B=${1:-build}
FGLRUN=$B/fglrun
USER=$B/tests/user_fglrun
JS=$B/tests/json_strict
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
S="--data synthetic --clients 10 --rounds 3 --threads 2"

# --- rejections never abort a round ---
# the issue's command on synthetic data: 2 NaN uploads leave 8, trimmed:4 trims 3 (their median), every round
if $FGLRUN --algo fedavg $S --robust trimmed:4 --attack nan --attackers 0.2 --log-every 1 --json > "$tmp/t4.json" 2> "$tmp/t4.err" &&
   grep -q '"rejected_per_round": \[2, 2, 2\], "fallback_per_round": \[1, 1, 1\]' "$tmp/t4.json" &&
   grep -q '"robust_fallbacks": 3' "$tmp/t4.json" &&
   [ "$(grep -c ' round [123]/3 .* loss [0-9.]*  rejected 2  fallback 1  sent ' "$tmp/t4.err")" = 3 ] &&
   grep -q 'in 3 of 3 rounds too few uploads were accepted for --robust trimmed:4, which fell back' "$tmp/t4.err"; then
    echo "ok - trimmed:4 with 2 NaN uploads of 10: the run finishes, 2 rejected and 1 fallback a round (JSON, round log, a note)"
else
    echo "not ok - trimmed:4 with 2 NaN uploads of 10 must fall back, not abort"; sed 's/^/#   /' "$tmp/t4.err" | head -5
    grep -o '"rejected_per_round[^]]*\], "fallback_per_round[^]]*\]' "$tmp/t4.json" | sed 's/^/#   /'
fi
# half the clients a round (5), trimmed:2, one NaN attacker: the rounds it takes part in fall back, the others not
if $FGLRUN --algo fedavg $S --frac 0.5 --robust trimmed:2 --attack nan --attackers 0.1 --json --quiet > "$tmp/t2.json" 2> "$tmp/err"; then
    rej=$(sed -n 's/.*"rejected_per_round": \[\([^]]*\)\].*/\1/p' "$tmp/t2.json")
    fb=$(sed -n 's/.*"fallback_per_round": \[\([^]]*\)\].*/\1/p' "$tmp/t2.json")
    if [ -n "$rej" ] && [ "$rej" = "$fb" ]; then echo "ok - frac 0.5, trimmed:2, one NaN attacker: fallbacks [$fb] where uploads were rejected [$rej]"
    else echo "not ok - frac 0.5, trimmed:2: fallbacks [$fb], rejected [$rej]"; fi
else echo "not ok - frac 0.5, trimmed:2 with a NaN attacker must not abort"; sed 's/^/#   /' "$tmp/err" | head -3; fi
# Krum and Multi-Krum below their guarantee after rejections: they assume fewer attackers; every rule finishes
n_ok=0; failed=
for rule in median trimmed:4 krum:3 multikrum:3,7 normclip:1; do
    for attack in signflip:4 scale:1e6 noise:10 nan count:-5 alie labelflip; do
        if $FGLRUN --algo fedavg $S --rounds 2 --robust $rule --screen 0 --attack $attack --attackers 0.2 --json --quiet \
                > "$tmp/m.json" 2> "$tmp/err" && "$JS" -q "$tmp/m.json" > /dev/null; then
            case $attack in
                nan|count:-5) grep -q '"rejected_per_round": \[2, 2\]' "$tmp/m.json" || failed="$failed $rule/$attack(rejections)" ;;
            esac
            n_ok=$((n_ok + 1))
        else failed="$failed $rule/$attack"; fi
    done
done
if [ -z "$failed" ]; then echo "ok - fglrun: 5 rules x 7 attacks finish with valid JSON, NaN and forged counts rejected (2 a round)"
else echo "not ok - fglrun rules x attacks:$failed"; fi
# Krum outside its guarantee (K <= 2F + 2) and trims no round could afford: refused at the start, with the bound
for case in "krum:4|f at most 3" "multikrum:4,2|f at most 3" "multikrum:3,8|keep 1 to 7" "trimmed:5|trim at most 4"; do
    rule=${case%%|*}; says=${case#*|}
    if $FGLRUN --algo fedavg $S --robust $rule --quiet > /dev/null 2> "$tmp/err"; then echo "not ok - --robust $rule of 10 clients must be refused"
    elif grep -q "$says" "$tmp/err"; then echo "ok - --robust $rule of 10 clients refused at the start ($says)"
    else echo "not ok - --robust $rule refused unclearly: $(cat "$tmp/err")"; fi
done
# counts beyond int's range: refused at parse (exit status 2), not converted
for rule in trimmed:1e10 krum:1e20 multikrum:1,1e20; do
    $FGLRUN --algo fedavg $S --robust $rule --quiet > /dev/null 2> "$tmp/err"
    rc=$?
    if [ $rc = 2 ] && grep -q "robust rule '$rule'" "$tmp/err"; then echo "ok - --robust $rule refused at parse (exit status 2)"
    else echo "not ok - --robust $rule: exit status $rc, $(head -n 1 "$tmp/err")"; fi
done

# --- strict JSON everywhere ---
# the validator refuses what RFC 8259 refuses
bad=0; i=0
for t in '{"a": NaN}' '{"a": Infinity}' '{"a": -inf}' '{"a": nan}' '[1, 2,]' '{"a": 1,}' '{"a": 01}' '{"a": 1.}' \
         '{"a": .5}' '{"a": +1}' '{"a": 1e}' "{'a': 1}" '{"a": "x\q"}' '{"a": 1} x' '{"a": 1, "a": 2}' '{"a": "\ud800"}' \
         '[1 2]' '' '{"a": 0x10}' '[1,,2]' '{"a": 1} /* c */' '"ab'; do
    i=$((i + 1)); printf '%s' "$t" > "$tmp/bad$i.json"
    "$JS" -q "$tmp/bad$i.json" > /dev/null && { bad=1; echo "#   accepted: $t"; }
done
printf '"\377"' > "$tmp/badu.json"; "$JS" -q "$tmp/badu.json" > /dev/null && { bad=1; echo "#   accepted a byte that is not UTF-8"; }
printf '"a\tb"' > "$tmp/badt.json"; "$JS" -q "$tmp/badt.json" > /dev/null && { bad=1; echo "#   accepted a tab in a string"; }
printf '{"a": [1, -0.5e-3, 2E+10, true, false, null, "x\\u00e9\\ud83d\\ude00\\/\\n\303\251"], "b": {}}\n' > "$tmp/good.json"
"$JS" -q "$tmp/good.json" > /dev/null || { bad=1; echo "#   refused valid JSON: $(cat "$tmp/good.json")"; }
if [ $bad = 0 ]; then echo "ok - json_strict refuses NaN, Infinity, trailing commas, bad numbers, escapes, UTF-8 and repeated names"
else echo "not ok - json_strict is not strict"; fi
# every JSON file fglrun writes. json LABEL FILE...: each is one valid JSON text
json() {
    j_label=$1; shift
    if "$JS" -q "$@" > "$tmp/js.out" 2>&1; then echo "ok - valid JSON: $j_label"
    else echo "not ok - invalid JSON: $j_label"; sed 's/^/#   /' "$tmp/js.out" | head -5; fi
}
# lastline OUT: the --json line of a run's stdout
run_json() { # LABEL OUT-DIR ARGS...: the run's --json line and its --out files
    r_label=$1; r_out=$2; shift 2
    if $FGLRUN "$@" --json --out "$r_out" > "$tmp/stdout" 2> "$tmp/err"; then
        tail -n 1 "$tmp/stdout" > "$r_out.json"
        json "$r_label (--json, result.json, config, progress.json)" "$r_out.json" "$r_out/result.json" "$r_out/config" "$r_out/progress.json"
    else echo "not ok - $r_label failed"; sed 's/^/#   /' "$tmp/err" | head -3; fi
}
Q="--data synthetic --clients 4 --rounds 3"
run_json "a plain run" "$tmp/plain" --algo fedavg $Q
run_json "two algorithms" "$tmp/multi" --algo fedavg,fedprox $Q
run_json "--seeds 3" "$tmp/seeds" --algo fedavg $Q --seeds 3
run_json "a robust run with NaN attackers" "$tmp/robust" --algo fedavg $S --robust trimmed:4 --attack nan --attackers 0.2
run_json "an attacked run" "$tmp/attack" --algo fedavg $Q --attack signflip:4 --attackers 0.5 --robust median
run_json "DP without noise (epsilon null)" "$tmp/dp0" --algo fedavg $Q --dp clip=1,noise=0
run_json "DP with noise, 2 seeds" "$tmp/dp1" --algo fedavg $Q --dp clip=1,noise=1 --seeds 2
run_json "secure aggregation" "$tmp/sec" --algo fedavg $Q --secagg --secagg-dropout 0.3
run_json "FED-PUB (its client matrix, its report)" "$tmp/pub" --algo fedpub $Q
run_json "a graph task" "$tmp/graph" --algo fedavg --task graph --data synthetic --clients 4 --rounds 2 --batch 32
rm -f "$tmp/ck"
$FGLRUN --algo fedavg $Q --checkpoint "$tmp/ck" --stop-after 1 --out "$tmp/stopped" --quiet > /dev/null 2>&1
json "a stopped run's progress.json" "$tmp/stopped/progress.json"
run_json "a resumed run" "$tmp/resumed" --algo fedavg $Q --checkpoint "$tmp/ck"
if $FGLRUN --algo fedavg $Q --info > "$tmp/info.json" 2> "$tmp/err"; then json "--info" "$tmp/info.json"
else echo "not ok - --info failed"; fi
# node data: "homophily" (fglrun/homophily.c) in --info (the graph's with the clients' spread, and each of the 4
# clients' in per_client) and in the record (with per-client arrays, but not under --dp: per-client outputs);
# none for a graph task
if [ "$(grep -o '"homophily": {"edge": ' "$tmp/info.json" | wc -l)" -eq 5 ] && grep -q '"clients_summary": {"edge": {"min": ' "$tmp/info.json" &&
   grep -q '"homophily": {"edge": .*"clients": {"edge": \[[-0-9.null]*, [-0-9.null]*, [-0-9.null]*, [-0-9.null]*\]' "$tmp/plain.json" &&
   grep -q '"homophily": {"edge": ' "$tmp/dp0.json" && ! grep -q '"clients": {"edge"' "$tmp/dp0.json" &&
   ! grep -q '"homophily"' "$tmp/graph.json"; then echo "ok - homophily in --info and the node task's record"
else echo "not ok - homophily in --info or the record: $(grep -o '"homophily": {[^}]*' "$tmp/info.json" | head -2)"; fi
if $USER --algo trimmed $Q --json --quiet > "$tmp/user.json" 2> "$tmp/err" &&
   grep -q '"trimmed_undefined": \[null, null\], "trimmed_note": "nan stays text"' "$tmp/user.json"; then
    json "a report hook printing nan and -inf (null in figures, text in strings)" "$tmp/user.json"
else echo "not ok - a report hook's nan: $(grep -o '"trimmed_[a-z]*": [^,]*' "$tmp/user.json" | head -3)"; fi
# a tiny node dataset whose name holds a quote and a backslash (escaped in every string of the JSON)
mkds() { # DIR NAME: 90 nodes, 3 classes, 6 features, edges a ring, a skip ring and random links
    mkdir -p "$1"
    OUT="$1/$2" awk -v n=90 'BEGIN { out = ENVIRON["OUT"]; srand(7)
        for (i = 0; i < n; i++) print i % 3 > (out ".labels")
        print n, 6 > (out ".features")
        for (i = 0; i < n; i++) { line = ""
            for (k = 0; k < 6; k++) { v = (k % 3 == i % 3) ? 1 : 0; if (rand() < 0.15) v = 1 - v; line = line (k ? " " : "") v }
            print line > (out ".features") }
        for (i = 0; i < n; i++) { print i, (i + 1) % n > (out ".edges"); print i, (i + 3) % n > (out ".edges")
            j = int(rand() * n); if (j != i) print i, j > (out ".edges") } }'
}
name='q"uo\te'
mkds "$tmp/ds/$name" "$name"
D="--algo fedavg --data $tmp/ds/$name --clients 3 --rounds 2"
if $FGLRUN $D --json --quiet > "$tmp/ds.json" 2> "$tmp/err" && grep -qF '"data": "q\"uo\\te"' "$tmp/ds.json"; then
    json "a dataset named with a quote and a backslash" "$tmp/ds.json"
else echo "not ok - a dataset named $name"; sed 's/^/#   /' "$tmp/err" | head -3; fi

run_json "a sweep (two rows of one algorithm: its parameters recorded once)" "$tmp/sweep" --algo fedavg,fedprox $Q --set fedprox.mu=0.01,0.1
# names that are not UTF-8 (an --out directory, a dataset of bytes \377\376): the JSON and the plots stay valid
bn=$(printf 'b\377\376d')
mkds "$tmp/ds/$bn" "$bn"
if $FGLRUN --algo fedavg --data "$tmp/ds/$bn" --clients 3 --rounds 2 --json --quiet --out "$tmp/o$bn" > "$tmp/bn.json" 2> "$tmp/err"; then
    json "names that are not UTF-8 (--json, result.json, config, progress.json)" "$tmp/bn.json" "$tmp/o$bn/result.json" "$tmp/o$bn/config" "$tmp/o$bn/progress.json"
    bad=
    for f in "$tmp/o$bn"/*.svg; do
        iconv -f UTF-8 -t UTF-8 "$f" > /dev/null 2>&1 || bad="$bad $(basename "$f")(UTF-8)"
        LC_ALL=C grep -q "$(printf '[\001-\010\013\014\016-\037]')" "$f" && bad="$bad $(basename "$f")(control)"
    done
    if [ -z "$bad" ]; then echo "ok - names that are not UTF-8: the SVG plots are UTF-8 without control characters (XML 1.0)"
    else echo "not ok - names that are not UTF-8 in the plots:$bad"; fi
else echo "not ok - a dataset named with bytes that are not UTF-8"; sed 's/^/#   /' "$tmp/err" | head -3; fi

# --- multi-seed summaries: epsilon composes over runs, it is reported per run ---
if [ "$(grep -o '"dp_epsilon": [0-9][0-9.e+]*' "$tmp/dp1.json" | wc -l)" = 2 ] &&
   grep -q '"dp_epsilon_note": "one per run: the 2 runs' "$tmp/dp1.json" &&
   grep -q '"dp_epsilon": null' "$tmp/dp0.json" && grep -q '"dp_epsilon_note": "no finite epsilon' "$tmp/dp0.json"; then
    echo "ok - dp_epsilon: one figure per run (2 seeds: one in each run's per_run entry, and why), null without noise"
else echo "not ok - dp_epsilon per run: $(grep -o '"dp_epsilon[^,]*' "$tmp/dp1.json" "$tmp/dp0.json" | cut -c1-200)"; fi

# --- run-control options in a --config file: recorded, not obeyed ---
# a record edited to put "out" and "checkpoint" among its flags, and a bench line whose args hold --out
sed 's|"flags": {|"flags": {"out": "'"$tmp"'/evil", "checkpoint": "'"$tmp"'/evil.ck", |' "$tmp/plain.json" > "$tmp/evil.json"
if $FGLRUN --config "$tmp/evil.json" --json --quiet > /dev/null 2> "$tmp/err" && [ ! -e "$tmp/evil" ] && [ ! -e "$tmp/evil.ck" ] &&
   grep -q "config: run-control option --out from .* ignored; give it on the command line" "$tmp/err" &&
   grep -q "run-control option --checkpoint from" "$tmp/err"; then
    echo "ok - --config: out and checkpoint among the file's flags are ignored, with a note"
else echo "not ok - --config must ignore the file's out and checkpoint"; ls "$tmp" | grep evil | sed 's/^/#   /'; sed 's/^/#   /' "$tmp/err" | head -3; fi
if $FGLRUN --config "$tmp/evil.json" --config-run-control --json --quiet > /dev/null 2> "$tmp/err" && [ -s "$tmp/evil/result.json" ] &&
   [ -e "$tmp/evil.ck" ]; then echo "ok - --config-run-control obeys the file's out and checkpoint"
else echo "not ok - --config-run-control"; sed 's/^/#   /' "$tmp/err" | head -3; fi
echo "{\"label\": \"x\", \"args\": \"--algo fedavg $Q --out $tmp/evil2 --threads 1\", \"result\": {}}" > "$tmp/rows.jsonl"
$FGLRUN --config "$tmp/rows.jsonl" --row x --quiet > /dev/null 2> "$tmp/err"
if [ ! -e "$tmp/evil2" ] && grep -q "option --out from" "$tmp/err" && grep -q "option --threads from" "$tmp/err"; then
    echo "ok - --config: run control in a bench line's args is ignored, with a note"
else echo "not ok - --config: run control in args"; sed 's/^/#   /' "$tmp/err" | head -3; fi
if $FGLRUN --config-run-control $Q --quiet > /dev/null 2>&1; then echo "not ok - --config-run-control without --config must be refused"
else echo "ok - --config-run-control needs --config"; fi
# --- a config cannot redirect (issue 49): each "flags" member is an option of the table with a value of its
# type, passed as one argument; the reader is RFC 8259 strict (numbers, UTF-8, surrogates, NUL, repeated names) ---
mkdir -p "$tmp/victim"
i=0; bad=0
for cfg in '{"flags":{"algo":"fedavg","data":"synthetic","clients":3,"rounds":1,"lcc":"--out","VICTIM":"--stratified"}}' \
           '{"flags":{"algo":"fedavg","data":"synthetic","clients":3,"rounds":1,"lcc":"--checkpoint","VICTIM/ck":"--stratified"}}' \
           '{"flags":{"algo":"fedavg","data":"synthetic","clients":3,"rounds":1,"lcc":1,"--out":"VICTIM"}}' \
           '{"flags":{"algo":"fedavg","data":"synthetic","clients":3,"rounds":1,"stratified":"true"}}' \
           '{"flags":{"algo":"fedavg","data":"synthetic","clients":"3 --out VICTIM","rounds":1}}' \
           '{"flags":{"algo":"fedavg","data":"synthetic","clients":3,"rounds":1,"out VICTIM":true}}' \
           '{"flags":{"algo":"fedavg","data":"synthetic","clients":3,"rounds":1,"help":true}}' \
           '{"flags":{"algo":["fedavg","--out","VICTIM"],"data":"synthetic","clients":3,"rounds":1}}' \
           '{"flags":{"algo":"fedavg","data":"synthetic","clients":3,"rounds":012}}' \
           '{"flags":{"algo":"fedavg","data":"synthetic","clients":3,"rounds":1.}}' \
           '{"flags":{"algo":"fedavg","data":"synthetic","clients":3,"rounds":+1}}' \
           '{"flags":{"algo":"fedavg\u0000--out","data":"synthetic","clients":3,"rounds":1}}' \
           '{"flags":{"algo":"fedavg\ud800","data":"synthetic","clients":3,"rounds":1}}' \
           '{"flags":{"algo":"fedavg","data":"synthetic","clients":3,"rounds":1,"rounds":2}}' \
           '{"flags":{"algo":"fedavg","data":"synthetic","clients":3,"rounds":1},"flags":{"algo":"fedprox"}}' \
           "$(printf '{"flags":{"algo":"fedavg\\"\377","data":"synthetic","clients":3,"rounds":1}}')" \
           "$(printf '\357\273\277{"flags":{"algo":"fedavg","data":"synthetic","clients":3,"rounds":1}}')"; do
    i=$((i + 1))
    printf '%s' "$cfg" | sed "s|VICTIM|$tmp/victim|g" > "$tmp/inj$i.json"
    if $FGLRUN --config "$tmp/inj$i.json" --quiet > /dev/null 2> "$tmp/inj$i.err"; then
        bad=$((bad + 1)); echo "#   config $i ran: $cfg"
    elif ! grep -q 'refused\|not one JSON record' "$tmp/inj$i.err"; then
        bad=$((bad + 1)); echo "#   config $i: $(head -c 160 "$tmp/inj$i.err")"
    fi
done
if [ $bad = 0 ] && [ -z "$(ls "$tmp/victim")" ]; then
    echo "ok - --config: $i hostile configs (a switch given a flag as value, unknown or nested members, bad numbers, NUL, surrogates, invalid UTF-8, BOM, repeated names) refused, nothing written elsewhere"
else echo "not ok - --config: $bad of $i hostile configs not refused; written: $(ls "$tmp/victim" | tr '\n' ' ')"; fi

# --- a replay on different data is not identical ---
if $FGLRUN --config "$tmp/ds.json" --quiet > /dev/null 2> "$tmp/err"; then echo "ok - the dataset's record replays (same data)"
else echo "not ok - the dataset's record replays"; sed 's/^/#   /' "$tmp/err" | head -3; fi
f="$tmp/ds/$name/$name.features"
awk 'NR == 2 { $1 = 1 - $1 } { print }' "$f" > "$f.new" && mv "$f.new" "$f"
$FGLRUN --config "$tmp/ds.json" > /dev/null 2> "$tmp/err"
rc=$?
if [ $rc = 3 ] && grep -q "differs from the file the record read" "$tmp/err" && grep -q "the data differ from the record's" "$tmp/err" &&
   ! grep -q "identical to the record" "$tmp/err"; then
    echo "ok - a replay on changed data says so, is not called identical and exits with status 3"
else echo "not ok - a replay on changed data: exit status $rc"; sed 's/^/#   /' "$tmp/err" | grep -v ' round ' | head -4; fi

# --- secure aggregation: an out-of-range client is rejected and charged, the round still unmasked ---
if $FGLRUN --algo fedavg $S --secagg --attack scale:1e9 --attackers 0.1 --json --quiet > "$tmp/sa.json" 2> "$tmp/err" &&
   grep -q '"rejected_per_round": \[1, 1, 1\]' "$tmp/sa.json" && grep -q '"secagg_rounds_not_unmasked": 0' "$tmp/sa.json" &&
   grep -q '"secagg_uploads_out_of_range": 3' "$tmp/sa.json"; then
    echo "ok - --secagg with a client scaled by 1e9: it withholds its upload (rejected and out of range, 1 a round), the others are unmasked"
else echo "not ok - --secagg with an out-of-range client"; sed 's/^/#   /' "$tmp/err" | head -3; fi
# and an explicit --screen is refused with it (masks hide the norms), the default one turned off
if $FGLRUN --algo fedavg $S --secagg --screen 10 --quiet > /dev/null 2> "$tmp/err"; then
    echo "not ok - --secagg --screen 10 must be refused"
elif grep -q "norm screening" "$tmp/err"; then echo "ok - --secagg --screen K is refused (the masks hide the norms)"
else echo "not ok - --secagg --screen 10: $(head -c 200 "$tmp/err")"; fi

# --- nothing half-written, nothing lost silently (issue 49): every file goes to a temporary file, fsync'ed and
# renamed; a write that fails is said and fails the command; one fglrun at a time per --out and checkpoint ---
small=$tmp/small; mkdir -p "$small"
if [ -z "$FGL_TEST_NO_MOUNT" ] && mount -t tmpfs -o size=16k tmpfs "$small" 2> /dev/null; then how="a 16 KiB tmpfs"; lim=
else how="a 2 KiB file-size limit"; lim=4; fi
full() { # COMMAND...: run it on the small file system (or under the file-size limit)
    if [ -n "$lim" ]; then ( trap '' XFSZ; ulimit -f "$lim"; "$@" ); else "$@"; fi
}
full $FGLRUN --algo fedavg --data synthetic --clients 5 --rounds 3 --quiet --out "$small/o" > /dev/null 2> "$tmp/full.err"
rc=$?
if [ $rc = 1 ] && grep -q "cannot write $small/o/.*: \(No space left\|File too large\)" "$tmp/full.err" &&
   grep -q "could not be written (above); exit status 1" "$tmp/full.err" && ! ls "$small/o" | grep -q '\.tmp\.' &&
   { [ ! -e "$small/o/result.json" ] || "$JS" -q "$small/o/result.json"; } &&
   { [ ! -e "$small/o/curves.svg" ] || grep -q '</svg>' "$small/o/curves.svg"; }; then
    echo "ok - --out on $how: the files that fit are whole, the others said, no temporary file left, exit status 1"
else echo "not ok - --out on $how: exit status $rc"; sed 's/^/#   /' "$tmp/full.err" | head -4; ls -la "$small/o" | sed 's/^/#   /'; fi
full $FGLRUN --algo fedavg --data synthetic --clients 5 --rounds 3 --quiet --checkpoint "$small/ck" > /dev/null 2> "$tmp/ckf.err"
rc=$?
if [ $rc != 0 ] && grep -q "the run stops (the previous checkpoint, if any, is kept)" "$tmp/ckf.err" &&
   ! ls "$small" | grep -q 'ck\.tmp'; then
    echo "ok - a checkpoint that does not fit ($how) stops the run (exit status $rc), no temporary file left"
else echo "not ok - a checkpoint on $how: exit status $rc"; sed 's/^/#   /' "$tmp/ckf.err" | head -3; ls -la "$small" | sed 's/^/#   /'; fi
[ -z "$lim" ] && umount "$small"
if $FGLRUN --algo fedavg $S --quiet --checkpoint "$tmp/no/such/dir/ck" > /dev/null 2> "$tmp/ckn.err"; then
    echo "not ok - --checkpoint into a missing directory must fail"
else echo "ok - --checkpoint into a missing directory fails: $(head -n 1 "$tmp/ckn.err" | cut -c 1-120)"; fi
# two fglruns on one --out, or one checkpoint: the second is refused and the first's files stay
$FGLRUN --algo fedavg --data synthetic:20000 --clients 5 --rounds 100000 --quiet --out "$tmp/shared" \
    --checkpoint "$tmp/shared.ck" --checkpoint-every 1000 > /dev/null 2> "$tmp/first.err" &
first=$!
i=0; while [ ! -s "$tmp/shared/progress.json" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
$FGLRUN --algo fedavg $S --quiet --out "$tmp/shared" > /dev/null 2> "$tmp/second.err"; r1=$?
$FGLRUN --algo fedavg $S --quiet --checkpoint "$tmp/shared.ck" > /dev/null 2> "$tmp/third.err"; r2=$?
if [ $r1 = 1 ] && [ $r2 = 1 ] && grep -q "is in use by another fglrun (process [0-9]*): refused" "$tmp/second.err" &&
   grep -q "is in use by another fglrun" "$tmp/third.err" && [ -e "$tmp/shared/config" ]; then
    echo "ok - a second fglrun on the same --out or checkpoint is refused, naming the first's process"
else echo "not ok - a second fglrun on a used --out ($r1) or checkpoint ($r2)"; cat "$tmp/second.err" "$tmp/third.err" | sed 's/^/#   /' | head -4; fi
# SIGTERM: the run stops after its round, progress.json says "interrupted", exit status 128 + 15
kill -TERM $first; wait $first; rc=$?
if [ $rc = 143 ] && grep -q '"status": "interrupted"' "$tmp/shared/progress.json" && grep -q "interrupted after round" "$tmp/first.err"; then
    echo "ok - SIGTERM: the run stops after its round, progress.json says interrupted, exit status 143"
else echo "not ok - SIGTERM: exit status $rc, $(head -c 60 "$tmp/shared/progress.json")"; sed 's/^/#   /' "$tmp/first.err" | head -3; fi

# --- estimates before allocation, and refusals that name the range (issue 49, item 8) ---
t0=$(date +%s)
$FGLRUN --algo fedavg --data synthetic --clients 5 --rounds 1 --hidden 1000000 --quiet > /dev/null 2> "$tmp/mem.err"; rc=$?
t1=$(date +%s)
if [ $rc != 0 ] && grep -q "the models need at least [0-9.e+]* GB .*above the limit" "$tmp/mem.err" && [ $((t1 - t0)) -le 5 ]; then
    echo "ok - --hidden 1000000 is refused before anything is built ($((t1 - t0)) s): $(grep -o 'need at least [0-9.e+]* GB' "$tmp/mem.err")"
else echo "not ok - --hidden 1000000: exit status $rc after $((t1 - t0)) s"; sed 's/^/#   /' "$tmp/mem.err" | head -2; fi
if ! $FGLRUN --algo fedavg --data synthetic --clients 5 --rounds 1 --hidden 256 --mem-limit 0.001 --quiet > /dev/null 2> "$tmp/mem.err" &&
   grep -q "above the limit of 0.001 GB" "$tmp/mem.err" &&
   $FGLRUN --algo fedavg --data synthetic --clients 5 --rounds 1 --hidden 256 --mem-limit 1 --quiet > /dev/null 2>&1; then
    echo "ok - --mem-limit: 0.001 GB refuses a 256-wide model of 5 clients, 1 GB runs it"
else echo "not ok - --mem-limit"; sed 's/^/#   /' "$tmp/mem.err" | head -2; fi
n_bad=0
for args in "--hidden 16777216" "--rounds 99999999999" "--seeds 100000" "--round 10"; do
    $FGLRUN $args > /dev/null 2> "$tmp/ref.err"; rc=$?
    lines=$(wc -l < "$tmp/ref.err")
    case $args in
        "--round 10") grep -q "did you mean --rounds" "$tmp/ref.err" || n_bad=$((n_bad + 1)) ;;
        *) grep -q "(at most [0-9.e+-]*)" "$tmp/ref.err" || n_bad=$((n_bad + 1)) ;;
    esac
    [ $rc = 2 ] && [ "$lines" -le 2 ] || { n_bad=$((n_bad + 1)); echo "#   $args: status $rc, $lines lines"; }
done
if [ $n_bad = 0 ]; then echo "ok - command-line refusals name the allowed range (or the nearest option) in two lines, not the whole help"
else echo "not ok - command-line refusals ($n_bad wrong)"; fi
