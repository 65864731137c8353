#!/bin/sh
# Faults degrade an fglrun run, they never abort it or make it lie (issue 41),
# on fgl's synthetic data and a tiny dataset written here (no datasets needed):
#  - rejections never abort a round: the robust rules fall back when too few
#    uploads survive (trimmed:4 of 10 clients with 2 NaN attackers, trimmed:2
#    of 5 participants), the fallbacks are counted per round in the JSON and
#    in the round log and said on stderr; parameters no round could support
#    (Krum outside its guarantee, K <= 2F + 2) are refused at the start;
#    counts beyond int's range in --robust are refused at parse;
# Usage: tests/test_faults.sh BUILD_DIR (holding fglrun)
B=${1:-build}
FGLRUN=$B/fglrun
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
                > "$tmp/m.json" 2> "$tmp/err"; then
            case $attack in
                nan|count:-5) grep -q '"rejected_per_round": \[2, 2\]' "$tmp/m.json" || failed="$failed $rule/$attack(rejections)" ;;
            esac
            n_ok=$((n_ok + 1))
        else failed="$failed $rule/$attack"; fi
    done
done
if [ -z "$failed" ]; then echo "ok - fglrun: 5 rules x 7 attacks finish, NaN and forged counts rejected (2 a round)"
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

