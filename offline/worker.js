/* Scoring with no signal: the ningbo_score library (its wheel built pure Python, and
 * marshmallow's) running on Pyodide (CPython compiled to WebAssembly, from the npm registry), in a
 * worker of its own so that the page stays responsive while Python starts.
 *
 * Served from /offline/ with a Content-Security-Policy of its own (service/offline.py): a worker
 * takes the policy of its script, and compiling WebAssembly needs 'wasm-unsafe-eval', which the
 * page itself never gets.
 *
 * Messages in: {id, path, body, lang} (path null: only start); out: {id, status, text} (the
 * answer as the service writes it), {id, ready: {ms, memory}} or {id, error}. */
import { loadPyodide } from './pyodide.mjs';

var started = null;

async function start() {
  var t0 = performance.now();
  var manifest = await (await fetch('./manifest.json')).json();
  var py = await loadPyodide({ indexURL: new URL('./', import.meta.url).href });
  for (var i = 0; i < manifest.wheels.length; i++) {
    var data = new Uint8Array(await (await fetch('./' + manifest.wheels[i])).arrayBuffer());
    py.unpackArchive(data, 'wheel');
  }
  py.FS.writeFile('/home/pyodide/nbscore.py', await (await fetch('./nbscore.py')).text());
  py.runPython('import sys; sys.path.insert(0, "/home/pyodide")');
  var answer = py.pyimport('nbscore').answer;
  return { py: py, answer: answer, ms: Math.round(performance.now() - t0) };
}

self.onmessage = async function (e) {
  var m = e.data;
  try {
    started = started || start();
    var lib = await started;
    if (!m.path) {
      self.postMessage({ id: m.id, ready: { ms: lib.ms, memory: lib.py._module.HEAPU8.length } });
      return;
    }
    var r = lib.answer(m.path, m.body, m.lang);
    var out = r.toJs();
    r.destroy();
    self.postMessage({ id: m.id, status: out[0], text: out[1] });
  } catch (err) {
    started = null;
    self.postMessage({ id: m.id, error: String(err && err.message || err) });
  }
};
