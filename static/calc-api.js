/* The calls to the API (same origin), the queue that runs each change in turn, and the refusals
 * (a change the API or the rules refuse is not kept: its message is shown instead).
 * (A part of the calculator page: static/calc.js is the start; each part a native ES module.) */
import { SEATS, T, lang, t } from './calc-strings.js';
import { baseline, clone, concealedOf, copiesOf, need, normalize, setState, state, total, usedCounts } from './calc-state.js';
import { $, app } from './calc-dom.js';
import { renderInputs } from './calc-inputs.js';
import { showOffline } from './calc-results.js';
import { commit } from './calc-refresh.js';
import { offline, setOffline } from './calc-events.js';
import { offlineAnswer } from './calc-offline.js';

/* ---- API ---------------------------------------------------------------------------- */
/* A request unanswered after this long is given up: the page says the network is slow (网络慢)
 * and keeps working; a tap never waits behind it (the answers are not in the change queue). */
export var SLOW_MS = 7000;
var latest = {};          // key → the AbortController of the newest request of that kind
var LOCAL_PATHS = ['/v1/score', '/v1/waits', '/v1/analyze'];     // what calc-offline.js can answer

/* One call.  opts.key: a newer call with the same key aborts this one (its answer would be stale). */
export function api(method, path, body, opts) {
  var headers = { Accept: 'application/json, application/problem+json',
    'Accept-Language': lang === 'zh' ? 'zh-CN,zh;q=0.9' : 'en' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  var key = opts && opts.key;
  var ctl = new AbortController();
  var slow = false;
  if (key) {
    if (latest[key]) latest[key].abort();
    latest[key] = ctl;
  }
  var timer = setTimeout(function () { slow = true; ctl.abort(); }, SLOW_MS);
  return fetch(path, { method: method, headers: headers, signal: ctl.signal,
    body: body === undefined ? undefined : JSON.stringify(body) })
    .then(function (res) {
      return res.text().then(function (text) {
        var data = null;
        try { data = JSON.parse(text); } catch (e) { data = null; }
        return { status: res.status, ok: res.ok, data: data, retryAfter: parseInt(res.headers.get('Retry-After'), 10) || 0 };
      });
    })
    .then(function (r) { if (offline) setOffline(false); return r; })
    .catch(function () {
      if (slow) return { status: 0, ok: false, data: null, slow: true };
      if (ctl.signal.aborted) return { status: 0, ok: false, data: null, superseded: true };
      setOffline(true);
      var none = { status: 0, ok: false, data: null, offline: true };
      // the server can't be reached: the library in this browser, when it is kept here
      if (method !== 'POST' || LOCAL_PATHS.indexOf(path) < 0) return none;
      return offlineAnswer(path, body, lang).then(function (r) { return r || none; });
    })
    .then(function (r) {
      clearTimeout(timer);
      if (key && latest[key] === ctl) delete latest[key];
      return r;
    });
}

export function meldJSON(m) {
  var o = { type: m.type, tiles: m.tiles.slice() };
  if (m.from) o.from = m.from;
  if (m.concealed) o.concealed = true;
  if (m.added) o.added = true;
  return o;
}

export function baseRequest(st) {
  var claims = {};
  SEATS.forEach(function (s) { if (s !== st.seat) claims[s] = st.claims[s] || 0; });
  return {
    rules: st.preset, seat_wind: st.seat, round_wind: st.round,
    caishen: st.indicator ? { indicator: st.indicator } : null,
    hand: { concealed: [], melds: st.melds.map(meldJSON), flowers: st.flowers.slice() },
    win: {}, claims_from_winner: claims, base_points: st.base
  };
}

export function flags(st, w) {
  if (st.kr) w.kong_replacement = true;
  if (st.kr && st.fed) w.kong_fed_by = st.fed;
  if (st.last) w.last_tile = true;
  if (st.heavenly) w.heavenly = true;
  if (st.earthly) w.earthly = true;
  if (st.dc) w.discarded_caishen = true;
  return w;
}

export function scoreRequest(st) {
  var r = baseRequest(st);
  var c = concealedOf(st);
  r.hand.concealed = c;
  // an empty hand still names a winning tile, so that the API checks the rest of the request
  r.hand.winning_tile = st.win || (c.length ? c[c.length - 1] : '1m');
  r.win = { by: st.by };
  if (st.by !== 'self_draw') r.win.from = st.from;
  flags(st, r.win);
  return r;
}

/* /v1/waits (and /v1/analyze): the /v1/score request with no winning_tile and no win.by. */
export function waitsRequest(st, tiles) {
  var r = baseRequest(st);
  r.hand.concealed = tiles || st.hand.slice();
  r.win = {};
  if (st.by === 'discard' && st.from) r.win.from = st.from;   // the discarder assumed for the discard value
  if (st.dc) r.win.discarded_caishen = true;
  return r;
}

/* A message of the API in the page's words: in Chinese, tile codes (1m, E…) become names. */
export var CODE_RE = /(^|[^A-Za-z0-9])([1-9][mps]|[1-8]f|[ESWNCFP])(?![A-Za-z0-9])/g;
export function plain(msg) {
  if (lang !== 'zh') return String(msg);
  return String(msg).replace(CODE_RE, function (_, pre, c) { return pre + T.name(c, 'zh'); });
}

export function errorPairs(problem) {
  var out = [];
  if (problem && problem.errors && typeof problem.errors === 'object') {
    Object.keys(problem.errors).forEach(function (p) {
      [].concat(problem.errors[p]).forEach(function (m) { out.push([p, plain(m)]); });
    });
  }
  return out;
}

/* A refused request's title, in the page's language (a title in the other one is not shown). */
export function problemTitle(problem) {
  var title = problem && problem.title ? String(problem.title) : '';
  var cjk = /[\u3400-\u9fff]/.test(title);
  return title && (lang === 'zh' ? cjk : !cjk) ? title : t('problem_title');
}

/* No answer, or one that is no answer about the hand (429, 5xx): said in the page's words. */
export function failed(r) { return r.offline || r.slow || r.superseded || r.status === 429 || r.status >= 500; }

export function failureText(r) {
  if (r.offline) return t('offline');
  if (r.slow) return t('slow', SLOW_MS / 1000);
  if (r.status === 429) return t('err_429', r.retryAfter);
  if (r.status === 503) return t('err_503');
  if (r.status === 500) return t('err_500');
  return t('err_status', r.status);
}

export function firstMessage(problem) {
  var pairs = errorPairs(problem);
  if (pairs.length) return pairs[0][1];
  return problem ? plain(problem.detail || problemTitle(problem)) : '';
}

export function under(path, prefixes) {
  return prefixes.some(function (p) {
    return p === '' || path === p || path.indexOf(p + '.') === 0;
  });
}

/* Problems at the given paths that the current state does not have already. */
export function freshErrors(problem, prefixes) {
  var old = {};
  errorPairs(baseline).forEach(function (pm) { old[pm[0] + '\n' + pm[1]] = true; });
  return errorPairs(problem).filter(function (pm) {
    return under(pm[0], prefixes) && !old[pm[0] + '\n' + pm[1]];
  });
}

/* ---- refusals ----------------------------------------------------------------------- */
/* A kind with more copies than exist in st (and more than in `before`, when given: a link's
 * impossible hand does not refuse every later tap). */
export function overCopies(st, before) {
  var counts = usedCounts(st);
  var old = before ? usedCounts(before) : {};
  for (var i = 0; i < T.ALL.length; i++) {
    var c = T.ALL[i];
    var n = counts[c] || 0;
    if (n > copiesOf(c) && (!before || n > (old[c] || 0))) return { tile: c, count: n };
  }
  return null;
}

/* The API's message for too many copies of a tile: a request whose first problem is exactly
 * that (right tile count, nothing else wrong before it in docs/rules.md §10.15's order). */
export function copiesProbe(over, st) {
  var c = over.tile;
  var concealed = [];
  var flowers = [];
  if (T.isFlower(c)) {
    concealed = T.parseCompact('123m456m789m123p55p').tiles;
    for (var i = 0; i < over.count; i++) flowers.push(c);
  } else {
    for (var j = 0; j < over.count; j++) concealed.push(c);
    var fill = T.SUITED.concat(T.HONORS).filter(function (x) { return x !== c; });
    var k = 0;
    while (concealed.length < 14) concealed.push(fill[k++]);
  }
  return {
    rules: st.preset, seat_wind: st.seat, round_wind: st.round, caishen: null,
    hand: { concealed: concealed, winning_tile: concealed[0], melds: [], flowers: flowers },
    win: { by: 'self_draw' }
  };
}

export function copiesMessage(over, st) {
  return api('POST', '/v1/score', copiesProbe(over, st)).then(function (r) {
    if (r.offline) return { offline: true };
    if (failed(r)) return t('too_many', over.count - copiesOf(over.tile));
    return firstMessage(r.data) || t('too_many', over.count - copiesOf(over.tile));
  });
}

/* Applies a change to a copy of the state, asks the API whether it is possible, then keeps it
 * (a new history entry) or refuses it with the API's message.  opts: copies (check tile
 * copies), full (refuse an overfull hand), paths (field paths whose new problems refuse it). */
export function change(mutate, opts) {
  opts = opts || {};
  return run(function () {
    var next = clone(state);
    mutate(next);
    normalize(next);
    var step = Promise.resolve(null);
    if (opts.copies) {
      var over = overCopies(next, state);
      if (over) step = copiesMessage(over, next);
    }
    return step.then(function (msg) {
      if (msg) return msg;
      if (opts.full && total(next) > need(next)) {
        return t('too_many', total(next) - need(next)) + ' (' + t('count', total(next), need(next)) + ')';
      }
      if (opts.paths) {
        return api('POST', '/v1/score', scoreRequest(next)).then(function (r) {
          if (r.offline) return { offline: true };
          if (r.ok || !r.data || failed(r)) return null;        // slow: the tap is kept, the answer comes later
          var fresh = freshErrors(r.data, opts.paths);
          return fresh.length ? fresh.map(function (pm) { return pm[1]; }) : null;
        });
      }
      return null;
    }).then(function (msg) {
      if (msg && msg.offline) {
        showOffline();
        renderInputs();
        return null;
      }
      if (msg) {
        notice(msg);
        renderInputs();
        return false;
      }
      setState(next);
      notice(null);
      if (opts.after) opts.after();
      return commit(true);
    });
  });
}

export var queue = Promise.resolve();
export var pending = 0;

var srTimer = null;
export function setBusy(on) {
  // a screen reader hears 计算中… (in the one live region, the verdict) when an answer takes a while
  clearTimeout(srTimer);
  if (on) {
    srTimer = setTimeout(function () {
      var v = $('verdict');
      if (!v.querySelector('.sr-busy')) v.insertAdjacentHTML('beforeend', '<span class="sr-only sr-busy">' + t('busy_sr') + '</span>');
    }, 300);
  } else {
    var mark = $('verdict').querySelector('.sr-busy');
    if (mark) mark.remove();
  }
  app.setAttribute('data-busy', on ? '1' : '0');
  $('bar').setAttribute('data-busy', on ? '1' : '0');
  $('result').setAttribute('aria-busy', on ? 'true' : 'false');
}

/* A request whose answer is shown when it comes (the hand's score): the page is busy meanwhile,
 * but the change queue does not wait for it. */
export function track(promise) {
  pending++;
  setBusy(true);
  return promise.catch(function (e) {
    if (window.console) console.error(e);
  }).then(function () {
    pending--;
    if (!pending) setBusy(false);
  });
}

export function run(fn) {
  pending++;
  setBusy(true);
  queue = queue.then(fn).catch(function (e) {
    if (window.console) console.error(e);
  }).then(function () {
    pending--;
    if (!pending) setBusy(false);
  });
  return queue;
}

/* A refusal: shown over the page under the sticky bar (it never moves what is below). */
export function notice(msg) {
  var el = $('notice');
  if (!msg) { el.hidden = true; el.textContent = ''; return; }
  el.hidden = false;
  el.innerHTML = '';
  var strong = document.createElement('strong');
  strong.textContent = t('refused');
  el.appendChild(strong);
  [].concat(msg).forEach(function (m) {
    var span = document.createElement('span');
    span.className = 'msg';
    span.textContent = m;
    el.appendChild(span);
  });
  var x = document.createElement('button');
  x.type = 'button';
  x.className = 'notice-x';
  x.setAttribute('aria-label', t('close'));
  x.textContent = '✕';
  el.appendChild(x);
}
