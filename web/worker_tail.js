/* web/worker_tail.js - the end of build/wasm/fgl-worker.js (web/worker.js says how it is made): the job.
 * runJob is called by onRuntimeInitialized (web/worker.js) while the worker's script is still being
 * evaluated: the WebAssembly is compiled synchronously (-sWASM_ASYNC_COMPILATION=0, allowed in workers),
 * so the whole run is part of the worker's start, which a browser under a virtual time budget (the test)
 * waits for. */
function runJob(job) {
    var rc, error = null;
    try {
        try { FS.mkdir('/data'); } catch (x) { /* there already */ }
        Object.keys(job.files || {}).forEach(function (p) {
            var dir = '/data', parts = p.split('/'), i, b = atob(job.files[p]), u = new Uint8Array(b.length);
            for (i = 0; i < parts.length - 1; i++) {
                dir += '/' + parts[i];
                try { FS.mkdir(dir); } catch (x) { /* there already */ }
            }
            for (i = 0; i < b.length; i++) u[i] = b.charCodeAt(i);
            FS.writeFile('/data/' + p, u);
        });
        rc = Module.callMain(job.argv.slice(1));
    } catch (x) { /* a trap: out of memory (the 4 GB of WebAssembly), or a bug */
        rc = -1;
        error = String(x && x.message || x);
    }
    postMessage({type: 'done', rc: rc, error: error});
}
