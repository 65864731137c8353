/* web/worker.js - the page's Web Worker around fglrun's WebAssembly build (web/fglweb.c).
 *
 * make wasm writes build/wasm/fgl-worker.js as
 *     function fglWorkerMain() { <this prelude> <emcc's output> <web/worker_tail.js> }
 * which the page loads with a <script> tag and starts as a Worker from a Blob
 * of its source, so that the page works from file:// (where Chromium refuses
 * Worker scripts by URL) as well as from any web server. The Blob begins with
 *     var FGL_JOB = {argv: [...], files: {path under the data directory: base64}};
 * for a run (the files are written to /data, FGL_DATA=/data, then main(argv)),
 * or without FGL_JOB for the option table only. One worker runs one fglrun.
 * Its messages to the page:
 *   {type: 'ready', options}   fglweb_options(): the flags and the algorithms
 *   {type: 'out'|'err', line}  fglrun's stdout and stderr, line by line
 *   {type: 'round', round}     after every round (web_round, web/fglweb.c)
 *   {type: 'done', rc, error}  main returned rc (or threw: error)
 */
var Module = {
    noInitialRun: true,
    thisProgram: 'fglrun', /* argv[0]: the record's command reads "fglrun --algo ..." */
    print: function (line) { postMessage({type: 'out', line: line}); },
    printErr: function (line) { postMessage({type: 'err', line: line}); },
    fglweb: function (kind, json) { postMessage({type: kind, round: JSON.parse(json)}); },
    preRun: [function () { ENV.FGL_DATA = '/data'; }], /* before libc reads the environment */
    onRuntimeInitialized: function () {
        postMessage({type: 'ready', options: JSON.parse(Module.ccall('fglweb_options', 'string', [], []))});
        if (self.FGL_JOB) runJob(self.FGL_JOB); /* web/worker_tail.js */
    }
};
