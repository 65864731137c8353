# tests/chromium.sh - headless Chromium for the tests that render in a browser (tests/test_plots.sh,
# tests/test_wasm.sh); sourced, with $tmp a directory of the caller's that it removes.
#   CHROMIUM        the browser's command, empty when none is installed
#   chrome ARGS...  Chromium, headless, with a fresh profile each time, at most 120 s; its stderr in
#                   $tmp/chrome.err
CHROMIUM=
for c in chromium chromium-browser google-chrome; do
    if command -v $c > /dev/null 2>&1; then CHROMIUM=$c; break; fi
done
chrome() { # a fresh profile each time
    prof=$(mktemp -d "$tmp/profile.XXXXXX")
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
        --user-data-dir="$prof" "$@" 2> "$tmp/chrome.err"
}
