#!/bin/sh
# The course page (make wasm: BUILD_DIR/wasm/, from web/) in a real browser: headless Chromium opens
# index.html?FLAGS&run=1 from file://, the page runs fglrun's WebAssembly build in its Web Worker, and
# the JSON record it writes into #fgl-result is compared with build/fglrun_ref's (fglrun compiled
# natively with the same floating-point flags, serial): every number of the record but the times and
# memory sizes must be the same, the command line must be fglrun's, and the page's live table (fed by
# fglrun's hook after every round) must end at the last round with the record's last test accuracy. Cases: FedAvg and FED-PUB side by
# side, a robust rule (median) under a sign-flip attack, FedStar on synthetic graphs, Cora and MUTAG
# when the page bundles them, an unknown algorithm (fglrun's refusal shown, in #fgl-result too), and a
# screenshot of a finished page of four algorithms (a PNG of the window's size, not blank;
# WASM_SHOT=FILE keeps it). Chromium runs with a virtual time budget: it waits for the page's worker,
# and the page's clocks stand still (its timings are measured by bench/wasm_bench.js instead).
# Skipped, with a "skip" line, without emcc (apt-get install -y emscripten) or Chromium.
# Usage: tests/test_wasm.sh BUILD_DIR (holding fglrun_ref and wasm/)
B=${1:-build}
REF=$B/fglrun_ref
W=$(cd "$B" 2> /dev/null && pwd)/wasm
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/chromium.sh" # CHROMIUM, chrome
if ! command -v "${EMCC:-emcc}" > /dev/null 2>&1; then
    echo "skip - the course page in a browser: Emscripten is not installed (apt-get install -y emscripten; make wasm)"
    exit 0
fi
if [ -z "$CHROMIUM" ]; then
    echo "skip - the course page in a browser: Chromium is not installed (apt-get install -y chromium)"
    exit 0
fi
if [ ! -s "$W/fgl-worker.js" ] || [ ! -s "$W/index.html" ] || [ ! -x "$REF" ]; then
    echo "not ok - the course page: $W (make wasm) or $REF missing"
    exit 1
fi
# page NAME QUERY: the page's #fgl-result after a run, into $tmp/NAME.page
page() {
    chrome --virtual-time-budget=600000 --dump-dom "file://$W/index.html?$2&run=1" > "$tmp/$1.dom"
    sed -n 's/.*<pre id="fgl-result">\([^<]*\)<\/pre>.*/\1/p' "$tmp/$1.dom" |
        sed 's/&lt;/</g; s/&gt;/>/g; s/&nbsp;/ /g; s/&amp;/\&/g' > "$tmp/$1.page"
}
# compare NAME QUERY: the page's record against build/fglrun_ref's with the same flags
compare() {
    name=$1; q=$2
    page "$name" "$q"
    # shellcheck disable=SC2046 # the flags, one word each (no blanks in the queries)
    "$REF" $(echo "$q" | tr '&' '\n' | sed 's/^\([^=]*\)=\(.*\)$/--\1 \2/') --json 2> "$tmp/$name.err" |
        tail -n 1 > "$tmp/$name.native"
    verdict=$(node - "$tmp/$name.page" "$tmp/$name.native" "$q" "$tmp/$name.dom" <<'EOF'
const fs = require('fs'), [pf, nf, q, df] = process.argv.slice(2);
let p, n;
try { p = JSON.parse(fs.readFileSync(pf, 'utf8')); } catch (e) { console.log('BAD the page wrote no JSON record: ' + fs.readFileSync(pf, 'utf8').slice(0, 300)); process.exit(); }
if (p.error) { console.log('BAD the page says: ' + p.error); process.exit(); }
try { n = JSON.parse(fs.readFileSync(nf, 'utf8')); } catch (e) { console.log('BAD fglrun_ref wrote no JSON'); process.exit(); }
// what depends on the machine, not the computation: times, memory, the paths of the data, the compiler
const volatile = k => /(^|\.)(seconds[a-z_]*|peak_rss_mb|data_rss_mb|compiler|command|data-dir|dir|path)$/.test(k);
const flat = (x, k, o) => { if (x && typeof x === 'object') for (const c in x) flat(x[c], k + '.' + c, o); else o[k] = x; return o; };
const a = flat(p, '', {}), b = flat(n, '', {});
let same = 0, bad = [], scores = 0;
for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (volatile(k)) continue;
    if (JSON.stringify(a[k]) === JSON.stringify(b[k])) { same++; if (/test_acc/.test(k)) scores++; }
    else bad.push(k + ': page ' + JSON.stringify(a[k]) + ', native ' + JSON.stringify(b[k]));
}
// the record (version 2): {"result_version": 2, "runs": [...], "config"}, one shape whatever ran
if (p.result_version !== 2 || !Array.isArray(p.runs)) bad.push('the record is not of version 2 (result_version, runs)');
const want = 'fglrun ' + q.split('&').map(kv => '--' + kv.replace('=', ' ')).join(' ') + ' --json';
if (!p.config || p.config.command !== want) bad.push('the command line: "' + p.config.command + '", not "' + want + '"');
if (!scores) bad.push('no test_acc compared');
// the live table, fed round by round by fglrun's hook (web_round): each run at its last round, with the record's
// last test accuracy (one seed: last_acc_mean is it)
const live = {}, dom = fs.readFileSync(df, 'utf8'), row = /<tr><td[^>]*>([^<]*)<\/td><td>(\d+)<\/td><td>(\d+)\/(\d+)<\/td><td>[^<]*<\/td><td>([^<]*)<\/td>/g;
for (let m; (m = row.exec(dom));) live[m[1]] = m;
for (const r of p.runs || []) {
    const m = live[r.algo], want = (100 * r.last_acc_mean).toFixed(2);
    if (!m) bad.push('the live table has no row for ' + r.algo);
    else if (m[3] !== m[4] || m[4] !== String(r.rounds) || m[5] !== want)
        bad.push('the live table says ' + r.algo + ' round ' + m[3] + '/' + m[4] + ' test ' + m[5] + ', the record ' + r.rounds +
                 ' rounds, last test ' + want);
}
console.log(bad.length ? 'BAD ' + bad.length + ' differ: ' + bad.slice(0, 4).join('; ')
                       : 'OK ' + same + ' values identical (' + scores + ' of them test accuracies: ' +
                         p.runs.map(r => r.algo + ' ' + r.per_run.map(x => x.test_acc).join(',')).join(', ') + ')');
EOF
)
    case $verdict in
    OK*) echo "ok - page $name: the record's numbers are build/fglrun_ref's: ${verdict#OK }" ;;
    *) echo "not ok - page $name ($q): ${verdict#BAD }"; grep -v dbus "$tmp/chrome.err" | sed 's/^/#   /' | tail -n 3 ;;
    esac
}
compare fedavg-fedpub "algo=fedavg,fedpub&data=synthetic&clients=5&rounds=3"
compare robust "algo=fedavg&data=synthetic&clients=6&rounds=3&attack=signflip&attackers=0.34&robust=median&split=louvain"
compare fedstar "algo=local,fedstar&data=synthetic&task=graph&clients=4&rounds=2&split=dirichlet"
for d in Cora:node MUTAG:tu; do
    if grep -q "\"${d#*:}/${d%:*}/" "$W/fgl-data.js" 2> /dev/null; then
        case $d in
        *node) compare "${d%:*}" "algo=fedavg&data=${d%:*}&clients=3&rounds=2&split=louvain" ;;
        *) compare "${d%:*}" "algo=fedavg&data=${d%:*}&clients=3&rounds=2&split=dirichlet" ;;
        esac
    else
        echo "skip - page ${d%:*}: not bundled in $W/fgl-data.js (make wasm with FGL_DATA holding it)"
    fi
done
# a flag fglrun refuses: its message on the page and in #fgl-result
page refused "algo=nosuch&data=synthetic&rounds=1"
if grep -q '"error": *"[^"]*nosuch' "$tmp/refused.page" && grep -q '"rc": *[1-9]' "$tmp/refused.page"; then
    echo "ok - page refused: fglrun's refusal of --algo nosuch is shown ($(head -c 120 "$tmp/refused.page"))"
else
    echo "not ok - page refused: #fgl-result holds '$(head -c 200 "$tmp/refused.page")'"
fi
# the finished page, rendered: a PNG of the window's size, at least 1.5 times the PNG of the same page before
# its run (curves, the live table, fglrun's table)
shot=$tmp/page.png
q="algo=local,fedavg,fedprox,fedpub&data=synthetic&clients=6&rounds=12"
chrome --virtual-time-budget=600000 --window-size=1280,1100 --screenshot="$tmp/before.png" "file://$W/index.html?$q" > /dev/null
chrome --virtual-time-budget=600000 --window-size=1280,1100 --screenshot="$shot" "file://$W/index.html?$q&run=1" > /dev/null
size=$(wc -c < "$shot" 2> /dev/null || echo 0)
before=$(wc -c < "$tmp/before.png" 2> /dev/null || echo 0)
dims=$(od -An -tu1 -j16 -N8 "$shot" 2> /dev/null | awk '{print $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8}')
if [ "$dims" = "1280 1100" ] && [ "$before" -gt 0 ] && [ "$((2 * size))" -gt "$((3 * before))" ]; then
    echo "ok - the finished page renders (1280x1100, $size bytes of PNG; $before before its run)"
    if [ -n "$WASM_SHOT" ]; then cp "$shot" "$WASM_SHOT"; fi
else
    echo "not ok - the finished page's screenshot: '$dims', $size bytes ($before before its run)"
    grep -v dbus "$tmp/chrome.err" | sed 's/^/#   /' | tail -n 3
fi
