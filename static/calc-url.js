/* The hand in the URL fragment (encode/decode) and the Undo stack of earlier hands.
 * (A part of the calculator page: static/calc.js is the start; each part a native ES module.) */
import { HAND_KEY, SEATS, T, useLang } from './calc-strings.js';
import { blank, normalize, state, total } from './calc-state.js';
import { $ } from './calc-dom.js';

/* ---- URL ---------------------------------------------------------------------------- */
export function meldCode(m) {
  return m.type[0] + T.toCompact(m.tiles) + (m.from ? '-' + m.from : '') +
    (m.concealed ? '!' : '') + (m.added ? '+' : '');
}

/* The fragment of a state: no language (a link keeps its reader's language). */
export function encode(st) {
  var parts = [];
  function add(k, v) { parts.push(k + '=' + encodeURIComponent(v)); }
  add('p', st.preset);
  add('s', st.seat);
  add('r', st.round);
  if (st.indicator) add('c', st.indicator);
  if (st.hand.length) add('h', T.toCompact(T.sort(st.hand)));
  if (st.win) add('w', st.win);
  if (st.melds.length) add('m', st.melds.map(meldCode).join('_'));
  if (st.flowers.length) add('f', T.toCompact(T.sort(st.flowers)));
  if (st.by !== 'self_draw') { add('by', st.by); add('from', st.from); }
  if (st.kr) add('kr', 1);
  if (st.fed) add('fed', st.fed);
  if (st.last) add('last', 1);
  if (st.heavenly) add('hv', 1);
  if (st.earthly) add('ea', 1);
  if (st.dc) add('dc', 1);
  var cl = SEATS.filter(function (s) { return st.claims[s]; })
    .map(function (s) { return s + st.claims[s]; }).join('');
  if (cl) add('cl', cl);
  if (st.base !== 1) add('b', st.base);
  return parts.join('&');
}

export function parseHash(hash) {
  var q = {};
  hash.replace(/^#/, '').split('&').forEach(function (kv) {
    if (!kv) return;
    var i = kv.indexOf('=');
    var k = i < 0 ? kv : kv.slice(0, i);
    var v = i < 0 ? '' : kv.slice(i + 1);
    try { q[k] = decodeURIComponent(v); } catch (e) { q[k] = v; }
  });
  return q;
}

/* A state from a fragment; a language the link names is taken (for this visit). */
export function decode(hash) {
  var st = blank();
  var q = parseHash(hash);
  if (q.lang === 'zh' || q.lang === 'en') useLang(q.lang);
  if (q.p) st.preset = q.p;
  if (SEATS.indexOf(q.s) >= 0) st.seat = q.s;
  if (SEATS.indexOf(q.r) >= 0) st.round = q.r;
  if (q.c && T.isTile(q.c)) st.indicator = q.c;
  if (q.h) st.hand = T.parseCompact(q.h).tiles;
  if (q.w && T.isTile(q.w)) st.win = q.w;
  if (q.m) {
    q.m.split('_').forEach(function (code) {
      var mm = /^([cpk])([0-9mpsfESWNCFP]+)(?:-([ESWN]))?(!)?(\+)?$/.exec(code);
      if (!mm) return;
      var meld = { type: { c: 'chow', p: 'pung', k: 'kong' }[mm[1]], tiles: T.parseCompact(mm[2]).tiles };
      if (mm[3]) meld.from = mm[3];
      if (mm[4]) meld.concealed = true;
      if (mm[5]) meld.added = true;
      st.melds.push(meld);
    });
  }
  if (q.f) st.flowers = T.parseCompact(q.f).tiles;
  if (q.by === 'discard' || q.by === 'robbing_kong') st.by = q.by;
  if (SEATS.indexOf(q.from) >= 0) st.from = q.from;
  st.kr = q.kr === '1';
  if (SEATS.indexOf(q.fed) >= 0) st.fed = q.fed;
  st.last = q.last === '1';
  st.heavenly = q.hv === '1';
  st.earthly = q.ea === '1';
  st.dc = q.dc === '1';
  (q.cl || '').replace(/([ESWN])(\d+)/g, function (_, s, n) { st.claims[s] = +n; return ''; });
  var b = parseInt(q.b, 10);
  if (b > 0) st.base = b;
  return normalize(st);
}

export function hasHand(st) { return total(st) > 0 || st.melds.length > 0 || st.flowers.length > 0; }

/* The URL always holds the current hand, replaced in place: Back leaves the page (one press),
 * it is no undo.  Undo has its own stack of earlier hands (kept for this tab's session). */
export var lastHash = '';
export var UNDO_KEY = 'nb-calc-undo';
export var UNDO_MAX = 200;
export var undoStack = (function () {
  try {
    var v = JSON.parse(sessionStorage.getItem(UNDO_KEY) || '[]');
    return Array.isArray(v) ? v.filter(function (x) { return typeof x === 'string'; }) : [];
  } catch (e) { return []; }
}());
export function setLastHash(h) { lastHash = h; }
export function saveUndo() {
  try { sessionStorage.setItem(UNDO_KEY, JSON.stringify(undoStack.slice(-UNDO_MAX))); } catch (e) { /* off */ }
}
export function writeURL(push) {
  var h = '#' + encode(state);
  if (push && lastHash && lastHash !== h) {
    undoStack.push(lastHash);
    saveUndo();
  }
  setLastHash(h);
  if (location.hash !== h) history.replaceState(null, '', location.pathname + location.search + h);
  try { localStorage.setItem(HAND_KEY, h); } catch (e) { /* full or off */ }
}
