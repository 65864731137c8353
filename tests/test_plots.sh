#!/bin/sh
# fglrun's plots in a real browser. fglrun --out DIR draws standalone SVGs
# (curves.svg, clients.svg, bytes.svg, ALGO_seedS_matrix.svg); each one here
#  - is well-formed XML (xmllint, when installed),
#  - scales to its window: a viewBox and width 100%, no fixed size,
#  - renders in headless Chromium to a PNG of the SVG's size that is not
#    blank (its PNG at least twice the size of an empty picture's),
#  - has every text inside the picture and no two texts overlapping, as
#    Chromium lays them out (the SVG inline in a page whose script measures
#    each <text>; --dump-dom reads the verdict).
# Cases: four algorithms over two seeds (bands, whiskers, a log-scale bytes
# plot with an algorithm that sends nothing), evaluation every 3 rounds
# (gaps), a constant client matrix, 60 clients (small heatmap cells, the
# per-client view replaced by the sorted one), and GPFL's cross-validation
# (two folds: a heatmap per fold, rows ordered by dominant label), clients
# named by their datasets (five tiny TU sets with long names: the names
# stand upright under the clients), and two identical curves (FedProx with
# one local step is FedAvg to the bit) that stay visible, and a link-prediction
# run (--task link: its plots say AUC, not accuracy).
# Skipped, with a "skip" line, when Chromium is not installed
# (apt-get install -y chromium). PLOTS_KEEP=DIR keeps the PNGs to look at.
# Usage: tests/test_plots.sh BUILD_DIR (holding fglrun)
B=${1:-build}
FGLRUN=$B/fglrun
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/chromium.sh" # CHROMIUM, chrome
if [ -z "$CHROMIUM" ]; then
    echo "skip - fglrun plots in a browser: Chromium is not installed (apt-get install -y chromium)"
    exit 0
fi
run() { # name, fglrun arguments...
    name=$1; shift
    if ! nice -n 10 $FGLRUN "$@" --data synthetic --threads 1 --quiet --out "$tmp/$name" > /dev/null 2> "$tmp/err"; then
        echo "not ok - plots: fglrun $* failed"; sed 's/^/#   /' "$tmp/err" | head -5
    fi
}
run many --algo local,fedavg,fedproto,fedpub --clients 6 --rounds 10 --seeds 2
run gaps --algo fedavg,fedper --clients 5 --rounds 10 --eval-every 3
run const --algo fedpub --clients 5 --rounds 2 --set tau=0
run wide --algo fedpub --clients 60 --rounds 2
run folds --algo gpfl,fedavg --task graph --split dirichlet-equal --clients 12 --rounds 3 --batch 32 --folds 2
run same --algo fedavg,fedprox --clients 4 --rounds 4 --local-epochs 1
run link --task link --algo local,fedavg --clients 4 --rounds 3 --seeds 2 --link-neg 200
# five tiny TU datasets (40 graphs each: cycles and stars) named long enough to stand upright
for n in BENZENE_RINGS CYCLIC_TOXIN STAR_POLYMER LONG_NAME_DATASET SHORT; do
    mkdir -p "$tmp/tu/tu/$n"
    awk -v dir="$tmp/tu/tu/$n" -v name="$n" -v seed=${#n} 'BEGIN {
        srand(seed); node = 0
        for (g = 1; g <= 40; g++) {
            k = 5 + int(rand() * 4); c = g % 2; first = node + 1
            for (i = 1; i <= k; i++) { node++; print g > (dir "/" name "_graph_indicator.txt")
                                       print int(rand() * 3) > (dir "/" name "_node_labels.txt") }
            for (i = 0; i < k; i++) {
                if (c == 0) { a = first + i; b = first + (i + 1) % k } else { if (i == 0) continue; a = first; b = first + i }
                print a ", " b > (dir "/" name "_A.txt"); print b ", " a > (dir "/" name "_A.txt")
            }
            print c > (dir "/" name "_graph_labels.txt")
        } }'
done
if ! nice -n 10 $FGLRUN --algo local,fedpub --data BENZENE_RINGS,CYCLIC_TOXIN,STAR_POLYMER,LONG_NAME_DATASET,SHORT \
        --data-dir "$tmp/tu" --rounds 2 --batch 16 --threads 1 --quiet --out "$tmp/names" > /dev/null 2> "$tmp/err"; then
    echo "not ok - plots: fglrun on five named datasets failed"; sed 's/^/#   /' "$tmp/err" | head -5
fi
for f in many/curves.svg many/clients.svg many/bytes.svg many/fedpub_seed1_matrix.svg gaps/curves.svg \
         const/fedpub_seed1_matrix.svg wide/fedpub_seed1_matrix.svg wide/clients.svg folds/curves.svg \
         folds/clients.svg folds/gpfl_fold1_seed1_matrix.svg names/clients.svg names/fedpub_seed1_matrix.svg \
         same/curves.svg link/curves.svg link/clients.svg; do
    svg=$tmp/$f
    tag=$(echo "$f" | tr / _ | sed 's/\.svg$//')
    if [ ! -s "$svg" ]; then echo "not ok - plot $f: not written"; continue; fi
    if command -v xmllint > /dev/null 2>&1 && ! xmllint --noout "$svg" 2> "$tmp/xml"; then
        echo "not ok - plot $f: not well-formed XML"; sed 's/^/#   /' "$tmp/xml" | head -3; continue
    fi
    if ! head -n 1 "$svg" | grep -q '^<svg [^>]*width="100%" viewBox="0 0 [0-9]* [0-9]*"'; then
        echo "not ok - plot $f: no viewBox with width 100% (it would not scale to its window)"; continue
    fi
    w=$(sed -n 's/^<svg[^>]* viewBox="0 0 \([0-9]*\) [0-9]*".*/\1/p' "$svg" | head -1)
    h=$(sed -n 's/^<svg[^>]* viewBox="0 0 [0-9]* \([0-9]*\)".*/\1/p' "$svg" | head -1)
    # the picture
    png=$tmp/$tag.png
    chrome --screenshot="$png" --window-size="$w,$h" "file://$svg" > /dev/null
    pw=$(od -An -tu1 -j16 -N8 "$png" 2> /dev/null | awk '{print $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8}')
    size=$(wc -c < "$png" 2> /dev/null || echo 0)
    if [ "$pw" != "$w $h" ]; then
        echo "not ok - plot $f: Chromium rendered '$pw', not ${w}x$h"; sed 's/^/#   /' "$tmp/chrome.err" | head -3; continue
    fi
    # not blank: at least twice the PNG of an empty picture of the same size
    printf '<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s"><rect width="%s" height="%s" fill="white"/></svg>\n' \
        "$w" "$h" "$w" "$h" > "$tmp/blank.svg"
    chrome --screenshot="$tmp/blank.png" --window-size="$w,$h" "file://$tmp/blank.svg" > /dev/null
    blank=$(wc -c < "$tmp/blank.png" 2> /dev/null || echo 0)
    if [ "$size" -lt $((2 * blank)) ]; then
        echo "not ok - plot $f: the PNG is nearly empty ($size bytes; an empty one is $blank)"; continue
    fi
    [ -n "$PLOTS_KEEP" ] && mkdir -p "$PLOTS_KEEP" && cp "$png" "$PLOTS_KEEP/"
    # the layout, measured by Chromium
    { echo '<!doctype html><html><body style="margin:0">'
      cat "$svg"
      cat <<'EOF'
<pre id="verdict"></pre>
<script>
var svg = document.querySelector('svg'), W = svg.viewBox.baseVal.width, H = svg.viewBox.baseVal.height;
svg.setAttribute('width', W); svg.setAttribute('height', H); /* measured at its own size: a user unit a pixel */
var o = svg.getBoundingClientRect(), bad = [], i, j;
var box = [].slice.call(svg.querySelectorAll('text')).map(function (t) {
    var b = t.getBoundingClientRect();
    return {l: b.left - o.left, t: b.top - o.top, r: b.right - o.left, b: b.bottom - o.top, s: t.textContent};
});
function r(x) { return Math.round(x); }
box.forEach(function (b) {
    if (b.l < -0.5 || b.t < -0.5 || b.r > W + 0.5 || b.b > H + 0.5)
        bad.push('"' + b.s + '" leaves the ' + W + 'x' + H + ' picture: [' + [r(b.l), r(b.t), r(b.r), r(b.b)] + ']');
});
for (i = 0; i < box.length; i++)
    for (j = i + 1; j < box.length; j++) {
        var a = box[i], c = box[j];
        var x = Math.min(a.r, c.r) - Math.max(a.l, c.l), y = Math.min(a.b, c.b) - Math.max(a.t, c.t);
        if (x > 1 && y > 1) bad.push('"' + a.s + '" overlaps "' + c.s + '"');
    }
document.getElementById('verdict').textContent = bad.length ? 'LAYOUT-BAD ' + bad.length + ': ' + bad.slice(0, 4).join('; ')
                                                            : 'LAYOUT-OK ' + box.length + ' texts';
</script></body></html>
EOF
    } > "$tmp/$tag.html"
    verdict=$(chrome --dump-dom "file://$tmp/$tag.html" | sed -n 's/.*<pre id="verdict">\([^<]*\)<.*/\1/p')
    case $verdict in
    LAYOUT-OK*) echo "ok - plot $f renders in Chromium (${w}x$h, $size bytes of PNG; ${verdict#LAYOUT-OK }, none clipped or overlapping)" ;;
    "") echo "not ok - plot $f: Chromium gave no layout verdict"; sed 's/^/#   /' "$tmp/chrome.err" | head -3 ;;
    *) echo "not ok - plot $f: $(echo "$verdict" | sed 's/&quot;/"/g; s/&amp;/\&/g')" ;;
    esac
done
# a constant matrix is drawn in the colour bar's middle colour, not white
if grep -q 'fill="rgb(255,255,255)"' "$tmp/const/fedpub_seed1_matrix.svg" 2> /dev/null ||
   ! grep -q '(constant)' "$tmp/const/fedpub_seed1_matrix.svg" 2> /dev/null; then
    echo "not ok - a constant client matrix is drawn white or not marked constant"
else
    echo "ok - a constant client matrix is drawn in one colour and marked constant"
fi
# heatmaps order the clients by dominant label and label each row id:label
if grep -q 'ordered by dominant label' "$tmp/folds/gpfl_fold1_seed1_matrix.svg" 2> /dev/null &&
   [ "$(grep -c 'text-anchor="end" font-size="10">[0-9]*:[0-9]*</text>' "$tmp/folds/gpfl_fold1_seed1_matrix.svg")" = 12 ]; then
    echo "ok - the heatmap of 12 clients orders them by dominant label, rows labelled id:label"
else
    echo "not ok - the heatmap orders the clients by dominant label, rows labelled id:label"
fi
# two identical curves (FedProx with one local step is FedAvg to the bit) both stay visible: the same path, the
# second one dashed over the first
a=$(grep -o '<path fill="none" stroke="#1f5fbf"[^>]*d="[^"]*"' "$tmp/same/curves.svg" 2> /dev/null | head -1 | sed 's/.* d=//')
b=$(grep -o '<path fill="none" stroke="#d2452b"[^>]*d="[^"]*"' "$tmp/same/curves.svg" 2> /dev/null | head -1)
if [ -n "$a" ] && [ "$(echo "$b" | sed 's/.* d=//')" = "$a" ] && echo "$b" | grep -q 'stroke-dasharray'; then
    echo "ok - two identical learning curves: the second is dashed over the first, both visible"
else
    echo "not ok - two identical learning curves stay visible"
fi
# clients that are datasets: named under their columns (upright when too long side by side)
if grep -q 'rotate(-90)" text-anchor="end" font-size="11">LONG_NAME_DATASET</text>' "$tmp/names/clients.svg" 2> /dev/null &&
   grep -q '>3:LONG_NAME_DATASET</text>' "$tmp/names/fedpub_seed1_matrix.svg" 2> /dev/null; then
    echo "ok - clients named by their datasets in clients.svg (upright) and the heatmap"
else
    echo "not ok - clients named by their datasets in the plots"
fi
# a link-prediction run's plots say AUC (the run's accuracy is the AUC), in the axes, the titles and the subtitles
if grep -q '>validation AUC (%)</text>' "$tmp/link/curves.svg" 2> /dev/null &&
   grep -q '>Test AUC</text>' "$tmp/link/curves.svg" &&
   grep -q '>Per-client AUC (fairness)</text>' "$tmp/link/clients.svg" &&
   ! grep -q accuracy "$tmp/link/curves.svg" "$tmp/link/clients.svg"; then
    echo "ok - a link-prediction run's plots are labelled AUC"
else
    echo "not ok - a link-prediction run's plots are labelled AUC"
fi
