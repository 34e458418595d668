/* Scoring with no signal (离线计分): the same ningbo_score library in the browser, on Pyodide,
 * offered as an explicit download (its size shown), kept in the service worker's cache, and used
 * only when the server can't be reached (calc-api.js api).  The files come from /offline/
 * (service/offline.py; built by `make offline`): when the service has none, the page says why the
 * in-browser library is not offered.  The library runs in a worker (offline/worker.js).
 * (A part of the calculator page: static/calc.js is the start; each part a native ES module.) */
import { t } from './calc-strings.js';
import { $, esc } from './calc-dom.js';

export var OFFLINE_CACHE = 'nb-offline';
var KEY = 'nb-calc-offline';          // {version, bytes}: the download kept on this phone
export var manifest = null;           // GET /offline/manifest.json, or null (none offered)
var asked = false;                    // the manifest was asked for (an answer or none)
var loading = null;                   // progress of a download: {done, total}
var problem = null;                   // why the last download or start failed
var worker = null;
var calls = 0;
var waiting = {};

export function offlineKept() {
  try {
    var v = JSON.parse(localStorage.getItem(KEY) || 'null');
    return v && v.version ? v : null;
  } catch (e) { return null; }
}

function mb(bytes) { return (bytes / 1e6).toFixed(1); }

export function loadManifest() {
  return fetch('/offline/manifest.json', { cache: 'no-cache' }).then(function (r) {
    return r.ok ? r.json() : null;
  }).catch(function () { return null; }).then(function (m) {
    manifest = m && Array.isArray(m.files) ? m : null;
    asked = true;
    renderOffline();
  });
}

/* Every file into the cache the service worker answers /offline/ from, one by one, with progress. */
export function download() {
  if (!manifest || loading) return Promise.resolve();
  var files = manifest.files.map(function (f) { return f.name; }).concat(['manifest.json']);
  loading = { done: 0, total: manifest.gzip_bytes };
  problem = null;
  renderOffline();
  var version = manifest.version;
  return caches.delete(OFFLINE_CACHE).then(function () { return caches.open(OFFLINE_CACHE); }).then(function (cache) {
    return files.reduce(function (step, name) {
      return step.then(function () {
        var url = '/offline/' + name;
        return fetch(url, { cache: 'no-cache' }).then(function (res) {
          if (!res.ok) throw new Error(url + ' ' + res.status);
          return cache.put(url, res.clone()).then(function () {
            var f = manifest.files.filter(function (x) { return x.name === name; })[0];
            loading.done += f ? f.gzip_bytes : 0;
            renderOffline();
          });
        });
      });
    }, Promise.resolve());
  }).then(function () {
    try { localStorage.setItem(KEY, JSON.stringify({ version: version, bytes: manifest.bytes })); } catch (e) { /* off */ }
    loading = null;
    renderOffline();
  }).catch(function (e) {
    loading = null;
    problem = t('off_failed', String(e && e.message || e));
    renderOffline();
  });
}

function post(message) {
  if (!worker) {
    worker = new Worker('/offline/worker.js', { type: 'module' });
    worker.onmessage = function (e) {
      var cb = waiting[e.data.id];
      delete waiting[e.data.id];
      if (cb) cb(e.data);
    };
  }
  return new Promise(function (resolve) {
    message.id = ++calls;
    waiting[message.id] = resolve;
    worker.postMessage(message);
  });
}

/* The answer of POST path for body computed in this browser: {status, ok, data, text, local}, or
 * null when the library is not kept on this phone (or could not start). */
export function offlineAnswer(path, body, lang) {
  if (!offlineKept()) return Promise.resolve(null);
  return post({ path: path, body: typeof body === 'string' ? body : JSON.stringify(body), lang: lang }).then(function (m) {
    if (m.error) {
      problem = t('off_failed', m.error);
      return null;
    }
    var data = null;
    try { data = JSON.parse(m.text); } catch (e) { data = null; }
    return { status: m.status, ok: m.status < 300, data: data, text: m.text, local: true };
  });
}

/* The library started (once): {ms, memory} of its start. */
export function offlineStart() { return post({ path: null }).then(function (m) { return m.ready || m; }); }

/* The settings card's line: offered with its size, downloading, kept, or why not offered. */
export function renderOffline() {
  var box = $('offline-box');
  if (!box) return;
  var kept = offlineKept();
  var html = '<strong>' + esc(t('off_title')) + '</strong> ';
  if (loading) {
    html += '<span id="off-state">' + esc(t('off_loading', mb(loading.done), mb(loading.total))) + '</span>';
  } else if (kept && (!manifest || manifest.version === kept.version)) {
    html += '<span id="off-state">' + esc(t('off_ready')) + '</span>';
  } else if (manifest) {
    html += '<span id="off-state">' + esc(t('off_offer')) + '</span> <button type="button" id="off-download">' +
      esc(t('off_download', mb(manifest.gzip_bytes))) + '</button>';
  } else {
    html += '<span id="off-state">' + esc(asked ? t('off_none') : t('off_unknown')) + '</span>';
  }
  if (problem) html += '<p class="problem" id="off-problem">' + esc(problem) + '</p>';
  box.innerHTML = html;
}

/* Why this hand was not scored in the browser (for the page's offline message). */
export function offlineWhyNot() {
  if (offlineKept()) return problem || '';
  return manifest ? t('off_why_not_kept', mb(manifest.gzip_bytes)) : t('off_why_none');
}

export function bindOffline() {
  $('offline-box').addEventListener('click', function (e) {
    if (e.target.closest('#off-download')) download();
  });
  // for the page's tests and measurements: the same library the page uses, by the same route
  window.nbOffline = { answer: offlineAnswer, start: offlineStart, download: download };
}
