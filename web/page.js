/* web/page.js - the course page's script (web/index.html): the form, the URL, the worker, the curves.
 *
 * The page's configuration is its URL, as fglrun's flags: index.html?algo=fedavg,fedpub&data=synthetic&clients=5
 * &rounds=3 is `fglrun --algo fedavg,fedpub --data synthetic --clients 5 --rounds 3 --json`; run=1 starts it
 * at once. A flag without a value (a boolean) is given as key=1 (or key alone). Parameters the form has no
 * field for (set=tau=3, lr=0.05 ...) are kept and passed on. fglrun (in the worker) parses and checks the
 * flags: what it refuses, it says, and the page shows it. When a run ends, the JSON record fglrun printed
 * goes into the element #fgl-result (scripts and tests read it there), and the page's timings into
 * #fgl-timing (milliseconds since the page began: ready_ms, the option table's worker ready; start_ms, the run
 * asked for; run_ready_ms, its worker's WebAssembly compiled and started; first_round_ms, the first round on
 * the curves; done_ms, the end).
 */
(function () {
    'use strict';
    var $ = function (id) { return document.getElementById(id); };
    var COLORS = ['#1f5fbf', '#d2452b', '#2a9d4b', '#8e44ad', '#e08a00', '#1a9aa8', '#c2378a', '#5b6770', '#7a8f00',
                  '#8c5a2b'];
    var MAIN_ALGOS = ['local', 'fedavg', 'fedprox', 'fedpub', 'fedstar', 'fedper'];
    var ATTACKS = ['', 'signflip', 'scale:10', 'noise:1', 'labelflip', 'alie', 'nan'];
    var ROBUST = ['', 'median', 'trimmed:1', 'krum:1', 'multikrum:1,3', 'normclip:1'];
    var FORM_KEYS = ['algo', 'data', 'task', 'split', 'clients', 'rounds', 'local-epochs', 'seed', 'attack',
                     'attackers', 'robust'];
    var SUGGESTED = [['algo', 'local,fedavg,fedpub'], ['data', 'synthetic'], ['clients', '6'], ['rounds', '15']];
    var opts = null, table = {}, params = [], worker = null, running = false, autorun = false;
    var series = [], byKey = {}, out = [], record = null, recordText = '', timing = {}, drawPending = false;

    /* --- the URL <-> fglrun's flags ---------------------------------------------------------------- */
    function readUrl() {
        var q = location.search.replace(/^\?/, ''), list = [];
        q.split('&').forEach(function (kv) {
            if (!kv) return;
            var i = kv.indexOf('='), k = decodeURIComponent(i < 0 ? kv : kv.slice(0, i)).replace(/^--/, '');
            var v = i < 0 ? '' : decodeURIComponent(kv.slice(i + 1).replace(/\+/g, ' '));
            if (k === 'run') autorun = v !== '0';
            else list.push([k, v]);
        });
        return list;
    }
    function get(k) { for (var i = 0; i < params.length; i++) if (params[i][0] === k) return params[i][1]; return ''; }
    function isBool(k) { return table[k] ? table[k].bool : false; }
    function argv() {
        var a = ['fglrun'], json = false;
        params.forEach(function (p) {
            if (p[0] === 'json') json = true;
            if (isBool(p[0])) { if (!/^(0|false|no|off)$/i.test(p[1])) a.push('--' + p[0]); }
            else a.push('--' + p[0], p[1]);
        });
        if (!json) a.push('--json');
        return a;
    }
    function shellWord(w) { return /^[A-Za-z0-9_.,:=\/+@%-]+$/.test(w) ? w : "'" + w.replace(/'/g, "'\\''") + "'"; }
    function showCommand(text) { $('cmd').textContent = text || argv().map(shellWord).join(' '); }
    function writeUrl() {
        var q = params.map(function (p) {
            var e = function (s) { return encodeURIComponent(s).replace(/%2C/g, ',').replace(/%3A/g, ':'); };
            return isBool(p[0]) && p[1] === '' ? e(p[0]) : e(p[0]) + '=' + e(p[1]);
        }).join('&');
        history.replaceState(null, '', location.pathname + (q ? '?' + q : ''));
        showCommand();
    }

    /* --- the form ---------------------------------------------------------------------------------- */
    function option(sel, value, text) {
        var o = document.createElement('option');
        o.value = value;
        o.textContent = text || value;
        sel.appendChild(o);
    }
    function ensure(sel, value) { /* a value from the URL that the list lacks */
        if (value && ![].some.call(sel.options, function (o) { return o.value === value; })) option(sel, value);
        sel.value = value;
    }
    function bundled() { /* {name: task} of the datasets fgl-data.js holds */
        var d = {}, files = window.FGL_DATA_FILES || {};
        Object.keys(files).forEach(function (p) { var s = p.split('/'); d[s[1]] = s[0] === 'node' ? 'node' : 'graph'; });
        return d;
    }
    function buildForm() {
        var data = $('f-data'), sets = bundled(), names = Object.keys(sets), size = 0;
        option(data, 'synthetic', 'synthetic graph, node classification');
        option(data, 'synthetic-graph', 'synthetic graphs, graph classification');
        names.forEach(function (n) { option(data, n, n + ' (' + (sets[n] === 'node' ? 'node' : 'graph') + ' classification)'); });
        Object.keys(window.FGL_DATA_FILES || {}).forEach(function (p) { size += window.FGL_DATA_FILES[p].length * 3 / 4; });
        $('data-note').textContent = names.length ? 'bundled with this page: ' + names.join(', ') + ' (' +
            Math.round(size / 1024) + ' KB)' : 'this copy bundles no real data (make wasm without $FGL_DATA): ' +
            'synthetic graphs, generated here, only';
        option($('f-split'), '', 'the default (fglrun\'s)');
        table.split.arg.split('|').forEach(function (s) { if (s !== 'given' && s !== 'per-dataset') option($('f-split'), s); });
        ATTACKS.forEach(function (a) { option($('f-attack'), a, a || 'none'); });
        ROBUST.forEach(function (r) { option($('f-robust'), r, r || 'mean (FedAvg\'s)'); });
        opts.algos.forEach(function (a) {
            var l = document.createElement('label'), c = document.createElement('input');
            c.type = 'checkbox';
            c.value = a;
            c.className = 'algo';
            l.appendChild(c);
            l.appendChild(document.createTextNode(' ' + a));
            (MAIN_ALGOS.indexOf(a) >= 0 ? $('algos') : $('more')).appendChild(l);
        });
        $('f-clients').placeholder = $('f-rounds').placeholder = $('f-local-epochs').placeholder = 'default';
        $('f-seed').placeholder = '1';
        $('f-attackers').placeholder = '0.2';
        [].forEach.call(document.querySelectorAll('#form select, #form input'), function (e) {
            e.addEventListener('change', fromForm);
        });
    }
    function toForm() {
        var algos = get('algo').split(','), d = get('data') || 'synthetic';
        if (d === 'synthetic' && get('task') === 'graph') d = 'synthetic-graph';
        ensure($('f-data'), d);
        ensure($('f-split'), get('split'));
        ensure($('f-attack'), get('attack'));
        ensure($('f-robust'), get('robust'));
        ['clients', 'rounds', 'local-epochs', 'seed', 'attackers'].forEach(function (k) { $('f-' + k).value = get(k); });
        [].forEach.call(document.querySelectorAll('input.algo'), function (c) { c.checked = algos.indexOf(c.value) >= 0; });
        var other = params.filter(function (p) { return FORM_KEYS.indexOf(p[0]) < 0; });
        $('other').textContent = other.length ? 'and from the URL: ' + other.map(function (p) {
            return '--' + p[0] + (isBool(p[0]) ? '' : ' ' + p[1]);
        }).join(' ') : '';
    }
    function fromForm() {
        var kept = params.filter(function (p) { return FORM_KEYS.indexOf(p[0]) < 0; }), mine = [], d = $('f-data').value;
        var algos = [].filter.call(document.querySelectorAll('input.algo'), function (c) { return c.checked; })
            .map(function (c) { return c.value; });
        var keepTask = get('task') && get('task') !== 'graph' ? get('task') : '';
        if (algos.length) mine.push(['algo', algos.join(',')]);
        mine.push(['data', d === 'synthetic-graph' ? 'synthetic' : d]);
        if (d === 'synthetic-graph') mine.push(['task', 'graph']);
        else if (keepTask) mine.push(['task', keepTask]);
        [['split', 'f-split'], ['clients', 'f-clients'], ['rounds', 'f-rounds'], ['local-epochs', 'f-local-epochs'],
         ['seed', 'f-seed'], ['attack', 'f-attack'], ['attackers', 'f-attackers'], ['robust', 'f-robust']]
            .forEach(function (f) { if ($(f[1]).value !== '') mine.push([f[0], $(f[1]).value]); });
        params = mine.concat(kept);
        writeUrl();
    }

    /* --- the curves ---------------------------------------------------------------------------------- */
    var SVGNS = 'http://www.w3.org/2000/svg';
    function el(parent, name, attrs, text) {
        var e = document.createElementNS(SVGNS, name);
        Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
        if (text !== undefined) e.textContent = text;
        parent.appendChild(e);
        return e;
    }
    /* lines: [{color, width, dash, label, y: [per round, fractions or null]}] */
    function chart(svg, title, lines, rounds) {
        var W = 480, H = 250, L = 44, R = 12, T = 24, B = 34, lo = 1, hi = 0, i, y;
        svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
        while (svg.firstChild) svg.removeChild(svg.firstChild);
        el(svg, 'text', {x: L, y: 15, 'font-size': 13, 'font-weight': 600}, title);
        lines.forEach(function (l) { l.y.forEach(function (v) { if (v !== null) { lo = Math.min(lo, v); hi = Math.max(hi, v); } }); });
        if (hi < lo) { lo = 0; hi = 1; }
        lo = Math.floor(lo * 10) / 10;
        hi = Math.max(Math.ceil(hi * 10) / 10, lo + 0.1);
        var px = function (r) { return L + (W - L - R) * (rounds > 1 ? (r - 1) / (rounds - 1) : 0.5); };
        var py = function (v) { return T + (H - T - B) * (1 - (v - lo) / (hi - lo)); };
        el(svg, 'rect', {x: L, y: T, width: W - L - R, height: H - T - B, fill: '#fbfbfb', stroke: '#bbb'});
        var step = hi - lo > 0.55 ? 0.2 : 0.1;
        for (y = lo; y <= hi + 1e-9; y += step) {
            el(svg, 'line', {x1: L, x2: W - R, y1: py(y), y2: py(y), stroke: '#e4e4e4'});
            el(svg, 'text', {x: L - 5, y: py(y) + 4, 'font-size': 11, 'text-anchor': 'end'}, Math.round(100 * y) + '%');
        }
        var every = Math.max(1, Math.ceil(rounds / 8));
        for (i = 1; i <= rounds; i += every)
            el(svg, 'text', {x: px(i), y: H - B + 15, 'font-size': 11, 'text-anchor': 'middle'}, i);
        el(svg, 'text', {x: L + (W - L - R) / 2, y: H - 4, 'font-size': 11.5, 'text-anchor': 'middle'}, 'round');
        lines.forEach(function (l) {
            var d = '', pen = 'M';
            l.y.forEach(function (v, r) {
                if (v === null) { pen = 'M'; return; }
                d += pen + px(r + 1).toFixed(1) + ' ' + py(v).toFixed(1) + ' ';
                pen = 'L';
            });
            if (d) el(svg, 'path', {d: d, fill: 'none', stroke: l.color, 'stroke-width': l.width || 2,
                                    'stroke-dasharray': l.dash || 'none', 'stroke-opacity': l.opacity || 1});
        });
        /* the legend in the lower right corner, where rising curves seldom are */
        var legend = lines.filter(function (l) { return l.label; }), ly = H - B - 8 - 15 * (legend.length - 1);
        var lx = W - R - 12 - 7 * Math.max.apply(null, legend.map(function (l) { return l.label.length; }).concat([0]));
        if (legend.length) el(svg, 'rect', {x: lx - 34, y: ly - 13, width: W - R - lx + 30, height: 15 * legend.length + 4,
                                            fill: '#fff', 'fill-opacity': 0.85, stroke: '#ddd'});
        legend.forEach(function (l) {
            el(svg, 'line', {x1: lx - 28, x2: lx - 8, y1: ly - 4, y2: ly - 4, stroke: l.color, 'stroke-width': 2.5,
                             'stroke-dasharray': l.dash || 'none'});
            el(svg, 'text', {x: lx - 4, y: ly, 'font-size': 11.5}, l.label);
            ly += 15;
        });
    }
    function algoColor(algo) {
        var names = [];
        series.forEach(function (s) { if (names.indexOf(s.algo) < 0) names.push(s.algo); });
        return COLORS[Math.max(0, names.indexOf(algo)) % COLORS.length];
    }
    function draw() {
        drawPending = false;
        var rounds = series.length ? series[0].rounds : 1, seen = {}, who = $('f-who'), lines = [], sel, i, row;
        series.forEach(function (s, k) { /* a curve identical to an earlier one (FedProx with one local
                                            * step is FedAvg to the bit)
                                            * is dashed over it, so that both stay visible, as fglrun's plots do */
            var twin = series.slice(0, k).some(function (t) { return JSON.stringify(t.test) === JSON.stringify(s.test); });
            lines.push({color: algoColor(s.algo), y: s.test, dash: s.seedIndex || twin ? '6 4' : null,
                        label: seen[s.algo] ? null : s.algo});
            seen[s.algo] = 1;
        });
        chart($('curves'), 'Mean test accuracy', lines, rounds);
        Object.keys(seen).forEach(function (a) { ensure(who, a); });
        if (!who.value && who.options.length) who.value = who.options[0].value;
        sel = series.filter(function (s) { return s.algo === who.value; })[0];
        lines = [];
        if (sel && sel.clients.length) {
            for (i = 0; i < sel.clients.length; i++) lines.push({color: algoColor(sel.algo), width: 1, opacity: 0.45,
                                                                 y: sel.clients[i]});
            lines.push({color: '#222', width: 2.5, y: sel.test, label: 'mean of ' + sel.clients.length + ' clients'});
        }
        chart($('clients'), 'Each client\'s test accuracy' + (sel ? ': ' + sel.algo : ''), lines, rounds);
        row = '<tr><th>algorithm</th><th>seed</th><th>round</th><th>val</th><th>test</th><th>MB up</th><th>MB down</th></tr>';
        series.forEach(function (s) {
            var pct = function (v) { return v === null || v === undefined ? '-' : (100 * v).toFixed(2); };
            row += '<tr><td style="color:' + algoColor(s.algo) + '">' + s.algo + '</td><td>' + s.seed + '</td><td>' +
                   s.round + '/' + s.rounds + '</td><td>' + pct(s.val[s.round - 1]) + '</td><td>' +
                   pct(s.test[s.round - 1]) + '</td><td>' + (s.up / 1e6).toFixed(2) + '</td><td>' +
                   (s.down / 1e6).toFixed(2) + '</td></tr>';
        });
        $('live').innerHTML = row;
    }
    function redraw() { if (!drawPending) { drawPending = true; requestAnimationFrame(draw); } }
    function onRound(r) {
        var key = r.algo + ' ' + r.seed, s = byKey[key], i;
        if (!s) {
            s = byKey[key] = {algo: r.algo, seed: r.seed, rounds: r.rounds, test: [], val: [], clients: [], round: 0,
                              seedIndex: series.filter(function (x) { return x.algo === r.algo; }).length};
            series.push(s);
        }
        s.round = r.round;
        s.test[r.round - 1] = r.test;
        s.val[r.round - 1] = r.val;
        s.up = r.up;
        s.down = r.down;
        for (i = 0; r.clients && i < r.clients.length; i++) (s.clients[i] = s.clients[i] || [])[r.round - 1] = r.clients[i];
        $('bar').firstChild.style.width = (100 * r.done / r.total).toFixed(1) + '%';
        $('status').textContent = r.algo + ', seed ' + r.seed + ': round ' + r.round + ' of ' + r.rounds + ' (' +
                                  r.done + ' of ' + r.total + ' rounds in all)';
        if (timing.first_round_ms === undefined) timing.first_round_ms = Math.round(performance.now());
        redraw();
    }

    /* --- the worker ---------------------------------------------------------------------------------- */
    function startWorker(job) { /* job: {argv, files}, or nothing for the option table */
        var src = (job ? 'var FGL_JOB = ' + JSON.stringify(job) + ';\n' : '') + '(' + window.fglWorkerMain + ')()';
        worker = new Worker(URL.createObjectURL(new Blob([src], {type: 'text/javascript'})));
        worker.onmessage = onMessage;
        worker.onerror = function (e) { finish(-1, 'the worker failed: ' + (e.message || e)); };
    }
    function onMessage(e) {
        var m = e.data;
        if (m.type === 'ready') {
            if (running && timing.run_ready_ms === undefined) timing.run_ready_ms = Math.round(performance.now());
            if (!opts) {
                opts = m.options;
                opts.options.forEach(function (o) { table[o.name] = o; });
                timing.ready_ms = Math.round(performance.now());
                $('about').textContent = 'fglrun ' + opts.version + ' (' + opts.commit + ') compiled to WebAssembly, ' +
                    'running in this page on one thread: no server, nothing installed. ' + opts.algos.length + ' algorithms.';
                buildForm();
                toForm();
                showCommand();
                $('status').textContent = 'Ready: choose, then Run.';
                worker.terminate(); /* it gave the option table; each run starts its own */
                worker = null;
                $('run').disabled = false;
                if (autorun) { autorun = false; run(); }
            }
        } else if (m.type === 'out') {
            if (m.line.charAt(0) === '{') {
                try { record = JSON.parse(m.line); recordText = m.line; return; } catch (x) { /* a table line */ }
            }
            out.push(m.line);
        } else if (m.type === 'err') {
            $('log').textContent += m.line + '\n';
        } else if (m.type === 'round') {
            onRound(m.round);
        } else if (m.type === 'done') {
            finish(m.rc, m.error);
        }
    }
    function run() {
        series = [];
        byKey = {};
        out = [];
        record = null;
        recordText = '';
        $('fgl-result').textContent = '';
        $('log').textContent = '';
        $('table').textContent = '(when the run ends)';
        $('download').disabled = true;
        $('bar').firstChild.style.width = '0';
        $('status').textContent = 'Running: ' + argv().map(shellWord).join(' ');
        running = true;
        timing = {ready_ms: timing.ready_ms, start_ms: Math.round(performance.now())};
        $('run').disabled = true;
        $('stop').disabled = false;
        startWorker({argv: argv(), files: window.FGL_DATA_FILES || {}});
        draw();
    }
    function finish(rc, error) {
        var log = $('log').textContent.trim().split('\n');
        running = false;
        timing.done_ms = Math.round(performance.now());
        $('fgl-timing').textContent = JSON.stringify(timing);
        $('table').textContent = out.join('\n');
        $('table').className = '';
        if (rc === 0 && record) {
            $('fgl-result').textContent = recordText;
            $('download').disabled = false;
            if (record.config && record.config.command) showCommand(record.config.command);
            $('bar').firstChild.style.width = '100%';
            var dt = (timing.done_ms - timing.start_ms) / 1000; /* (0 under a test's virtual time) */
            $('status').textContent = 'Done: ' + series.length + ' run' + (series.length > 1 ? 's' : '') +
                                      (dt > 0 ? ' in ' + dt.toFixed(1) + ' s.' : '.');
        } else {
            var why = error || log.filter(function (l) { return /fglrun:/.test(l); }).slice(-3).join(' ') ||
                      'fglrun exited with status ' + rc;
            $('fgl-result').textContent = JSON.stringify({error: why, rc: rc});
            $('status').innerHTML = '';
            $('status').appendChild(document.createElement('span')).className = 'err';
            $('status').firstChild.textContent = 'fglrun stopped: ' + why;
        }
        if (worker) worker.terminate(); /* one fglrun per module instance: a fresh worker for the next run */
        worker = null;
        $('stop').disabled = true;
        $('run').disabled = false;
        draw();
    }
    $('run').onclick = function () { if (!running) run(); };
    $('stop').onclick = function () {
        if (!running) return;
        worker.terminate();
        worker = null;
        running = false;
        $('stop').disabled = true;
        $('run').disabled = false;
        $('status').textContent = 'Stopped. A stopped run has no record (fglrun reports nothing of a stopped run ' +
                                  'either); the curves show the rounds it ran.';
    };
    $('copy').onclick = function () {
        var t = $('cmd').textContent;
        if (navigator.clipboard) navigator.clipboard.writeText(t).catch(function () {});
        var r = document.createRange();
        r.selectNodeContents($('cmd'));
        getSelection().removeAllRanges();
        getSelection().addRange(r);
    };
    $('download').onclick = function () {
        var a = document.createElement('a');
        a.href = URL.createObjectURL(new Blob([recordText + '\n'], {type: 'application/json'}));
        a.download = 'fglrun-result.json';
        a.click();
    };
    $('f-who').onchange = draw;
    params = readUrl();
    if (!params.length) params = SUGGESTED.slice();
    if (!window.fglWorkerMain) {
        $('status').textContent = 'fgl-worker.js is missing: build the page with make wasm (it writes build/wasm/).';
        return;
    }
    startWorker();
})();
