// bench/wasm_bench.js - the course page's speed in headless Chromium, in real time (BENCHMARKS.md,
// "fgl in the browser"). tests/test_wasm.sh runs Chromium under a virtual time budget, which stands the
// page's clocks still; here Chromium runs in real time, driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe: no port, no WebSocket), and the page is read when its run ends.
//   node bench/wasm_bench.js build/wasm 'algo=fedavg&data=Cora&clients=10&rounds=20' [REPEATS]
// prints, per repeat, one JSON line: the page's #fgl-timing (milliseconds since the page began: the option
// table's worker ready, the run's start, its first round on the curves, its end) and each run's "seconds"
// and rounds from the JSON record fglrun wrote into #fgl-result.
'use strict';
const {spawn} = require('child_process'), path = require('path'), fs = require('fs'), os = require('os');
const [dir, query, repeats] = [process.argv[2] || 'build/wasm', process.argv[3] || 'algo=fedavg&data=synthetic&rounds=5',
                               +(process.argv[4] || 1)];
const url = 'file://' + path.resolve(dir, 'index.html') + '?' + query + '&run=1';

function browser() {
    const prof = fs.mkdtempSync(path.join(os.tmpdir(), 'fglbench.'));
    const c = spawn(process.env.CHROMIUM || 'chromium',
                    ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
                     '--disable-component-update', '--disable-sync', '--remote-debugging-pipe', '--user-data-dir=' + prof,
                     'about:blank'], {stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe']});
    let id = 0, buf = '';
    const waiting = {};
    c.stdio[4].on('data', d => {
        buf += d.toString();
        let i;
        while ((i = buf.indexOf('\0')) >= 0) {
            const m = JSON.parse(buf.slice(0, i));
            buf = buf.slice(i + 1);
            if (m.id && waiting[m.id]) { waiting[m.id](m); delete waiting[m.id]; }
        }
    });
    const send = (method, params, sessionId) => new Promise(ok => {
        waiting[++id] = ok;
        c.stdio[3].write(JSON.stringify({id, method, params: params || {}, sessionId}) + '\0');
    });
    return {send, close: () => new Promise(ok => { // the profile removed once Chromium has exited
        c.on('exit', () => { try { fs.rmSync(prof, {recursive: true, force: true}); } catch (e) { /* left in tmp */ } ok(); });
        c.kill();
    })};
}

(async () => {
    for (let k = 0; k < repeats; k++) {
        const b = browser();
        const t = await b.send('Target.createTarget', {url: 'about:blank'});
        const s = (await b.send('Target.attachToTarget', {targetId: t.result.targetId, flatten: true})).result.sessionId;
        await b.send('Page.navigate', {url}, s);
        const ev = async e => (await b.send('Runtime.evaluate', {expression: e, returnByValue: true}, s)).result.result.value;
        let rec = '';
        for (let i = 0; i < 6000 && !rec; i++) { // at most 10 minutes
            await new Promise(ok => setTimeout(ok, 100));
            rec = await ev("(document.getElementById('fgl-result') || {}).textContent || ''");
        }
        const timing = JSON.parse(await ev("document.getElementById('fgl-timing').textContent || '{}'"));
        const r = JSON.parse(rec || '{}');
        const rounds = +(/(^|&)rounds=(\d+)/.exec(query) || [0, 0, NaN])[2];
        const runs = r.runs.map(x => ({algo: x.algo, seconds: x.seconds, ms_per_round: 1000 * x.seconds / rounds}));
        console.log(JSON.stringify({query, timing, runs, error: r.error}));
        await b.close();
    }
})();
