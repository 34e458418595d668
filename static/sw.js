/* The calculator's service worker: the page opens and keeps its hand and evening with no signal.
 *
 * Served from /sw.js (scope: the whole site, so the page at / is in it).  It keeps the page (/),
 * its files (/static/…: the hashed URLs the page names and the modules calc.js imports by their
 * plain names, sent to it by the page once loaded),
 * and GET /v1/rules, and the scoring library for no signal once the reader downloaded it (/offline/).
 * The page and /v1/rules: the network first, the kept copy when there is no
 * answer; the hashed files: the kept copy first (a new version is a new URL).  Every POST (the scoring)
 * goes to the network as it is: offline, the page says so and keeps the hand.
 */
'use strict';

var CACHE = 'nb-calc-v2';
/* A file under its content-hashed name (calc.<12 hex>.js) never changes: the kept copy first.
 * Under its plain name (the modules calc.js imports, ./calc-state.js…) it is revalidated: the
 * network first, the kept copy with no signal. */
var HASHED = /^\/static\/[\w-]+\.[0-9a-f]{12}\.\w+$/;
var CORE = ['/', '/v1/rules', '/static/manifest.webmanifest', '/static/icon.svg'];

self.addEventListener('install', function (event) {
  // one by one: a file that cannot be fetched now does not stop the worker (it is kept later)
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    return Promise.all(CORE.map(function (u) { return cache.add(u).catch(function () { return null; }); }));
  }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener('activate', function (event) {
  event.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) { return k !== CACHE && k !== 'nb-offline'; }).map(function (k) { return caches.delete(k); }));
  }).then(function () { return self.clients.claim(); }));
});

/* The page names the files it loaded (their hashed URLs): kept for the next visit with no signal. */
self.addEventListener('message', function (event) {
  var urls = event.data && Array.isArray(event.data.keep) ? event.data.keep : [];
  var same = urls.filter(function (u) { return new URL(u, self.location.href).origin === self.location.origin; });
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    return Promise.all(same.map(function (u) {
      return cache.match(u).then(function (hit) { return hit || cache.add(u); }).catch(function () { return null; });
    }));
  }).then(function () {
    if (event.source) event.source.postMessage({ kept: same.length });
  }));
});

function networkFirst(request, key) {
  return fetch(request).then(function (res) {
    if (res.ok) {
      var copy = res.clone();
      caches.open(CACHE).then(function (cache) { cache.put(key || request, copy); });
    }
    return res;
  }).catch(function () {
    return caches.match(key || request, { ignoreSearch: !key }).then(function (hit) {
      return hit || Response.error();
    });
  });
}

function cacheFirst(request) {
  return caches.match(request).then(function (hit) {
    if (hit) return hit;
    return fetch(request).then(function (res) {
      if (res.ok) {
        var copy = res.clone();
        caches.open(CACHE).then(function (cache) { cache.put(request, copy); });
      }
      return res;
    }).catch(function () {
      // an older version of the same file is better than none
      return caches.match(request, { ignoreSearch: true }).then(function (old) { return old || Response.error(); });
    });
  });
}

/* The scoring library for no signal (/offline/…, 13.7 MB): only what the page downloaded on the
 * reader's request (the cache nb-offline, filled by static/calc-offline.js), the kept copy first;
 * never fetched or kept here on its own. */
function offlineFile(request) {
  return caches.open('nb-offline').then(function (cache) {
    return cache.match(request, { ignoreSearch: true });
  }).then(function (hit) { return hit || fetch(request); });
}

self.addEventListener('fetch', function (event) {
  var req = event.request;
  if (req.method !== 'GET') return;
  var url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (req.mode === 'navigate' && url.pathname === '/') event.respondWith(networkFirst(req, '/'));
  else if (url.pathname === '/v1/rules') event.respondWith(networkFirst(req, '/v1/rules'));
  else if (HASHED.test(url.pathname)) event.respondWith(cacheFirst(req));
  else if (url.pathname.indexOf('/static/') === 0) event.respondWith(networkFirst(req, url.pathname));
  else if (url.pathname.indexOf('/offline/') === 0) event.respondWith(offlineFile(req));
});
