/* The page's events (taps, keys, navigation), the language, the rules loaded once a day, and
 * no signal (the service worker /sw.js keeps the page; the page says when it is offline).
 * (A part of the calculator page: static/calc.js is the start; each part a native ES module.) */
import { LANG_KEY, PREV, RULES_KEY, RULES_MAX_AGE, t, useLang } from './calc-strings.js';
import { blank, lastResult, presets, setRules, state, ui } from './calc-state.js';
import { encode, writeURL } from './calc-url.js';
import { api, change, notice, run } from './calc-api.js';
import { $ } from './calc-dom.js';
import { paletteKeys, renderInputs } from './calc-inputs.js';
import { loadAnalysis, openContext, resultText } from './calc-results.js';
import { commit } from './calc-refresh.js';
import { canRecord, session, sessionAdd, settlePending } from './calc-session.js';
import { addToHand, onNavigate, onPalette, quickAdd, removeFromHand, swapWin, undo } from './calc-actions.js';

/* ---- events ------------------------------------------------------------------------- */
export function copyText(text, okMsg) {
  var done = function () { flash(okMsg); };
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(text).then(done, function () { flash(t('link_copy_failed')); });
  } else {
    flash(t('link_copy_failed'));
  }
}

export function bind() {
  $('lang-zh').addEventListener('click', function () { setLang('zh'); });
  $('lang-en').addEventListener('click', function () { setLang('en'); });
  $('copy-link').addEventListener('click', function () {
    writeURL(false);
    copyText(location.href, t('link_copied'));
  });
  $('copy-result').addEventListener('click', function () {
    copyText($('result-text').textContent, t('result_copied'));
  });
  $('clear').addEventListener('click', function () {
    change(function (st) {
      var keep = { preset: st.preset, seat: st.seat, round: st.round, base: st.base };
      var b = blank();
      Object.keys(b).forEach(function (k) { st[k] = b[k]; });
      Object.keys(keep).forEach(function (k) { st[k] = keep[k]; });
    });
  });
  $('undo').addEventListener('click', undo);
  document.addEventListener('keydown', function (e) {
    if ((e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && (e.key === 'z' || e.key === 'Z')) {
      var el = document.activeElement;
      if (el && (el.tagName === 'INPUT' && el.type === 'text' || el.tagName === 'TEXTAREA')) return;
      e.preventDefault();
      undo();
    }
  });
  var smooth = function () {
    return window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth';
  };
  $('to-result').addEventListener('click', function () {
    // #result has a scroll-margin of the bar's height: its top lands just under the bar
    $('result').scrollIntoView({ behavior: smooth(), block: 'start' });
    $('h-result').focus({ preventScroll: true });
  });
  // the win's controls open right under the bar, beside the hand (the card itself moves there
  // while open, so there is one set of controls); the page below does not move
  $('bar-context').addEventListener('click', function () { openContext(!ui.ctxOpen); });
  $('bar-panel').addEventListener('click', function (e) {
    if (e.target.id === 'ctx-done') openContext(false);
  });
  document.addEventListener('keydown', function (e) {
    if (e.key === 'Escape' && ui.ctxOpen) { openContext(false); $('bar-context').focus(); }
  });
  if (navigator.share) {
    $('share').hidden = false;
    $('share').addEventListener('click', function () {
      writeURL(false);
      navigator.share({ title: document.title, text: lastResult ? resultText(state, lastResult.kind, lastResult.data) : '',
        url: location.href }).catch(function () { /* dismissed */ });
    });
  }
  $('notice').addEventListener('click', function (e) {
    if (e.target.closest('.notice-x')) notice(null);
  });
  $('link-problem').addEventListener('click', function (e) {
    if (e.target.id === 'link-clear') {
      $('link-problem').hidden = true;
      $('clear').click();
    }
  });

  document.querySelector('.modes').addEventListener('click', function (e) {
    var b = e.target.closest('button[data-mode]');
    if (!b) return;
    ui.mode = b.getAttribute('data-mode');
    ui.meldFrom = PREV[state.seat];     // a seat that can make the claim: the 上家 first
    renderInputs();
  });
  $('palette').addEventListener('click', function (e) {
    var b = e.target.closest('button[data-tile]');
    if (b && !b.disabled) onPalette(b.getAttribute('data-tile'));
  });
  $('hand').addEventListener('click', function (e) {
    var b = e.target.closest('button');
    if (!b) return;
    var role = b.getAttribute('data-role');
    if (role === 'win') {                       // the slot: choose the winning tile
      ui.mode = ui.mode === 'win' ? 'hand' : 'win';
      renderInputs();
      return;
    }
    var c = b.getAttribute('data-tile');
    if (ui.mode === 'win') swapWin(c);
    else removeFromHand(c, role);
  });
  $('flowers').addEventListener('click', function (e) {
    var b = e.target.closest('button[data-tile]');
    if (!b) return;
    var c = b.getAttribute('data-tile');
    change(function (st) { st.flowers.splice(st.flowers.indexOf(c), 1); });
  });

  $('melds').addEventListener('click', function (e) {
    var b = e.target.closest('button[data-act="remove-meld"]');
    if (!b) return;
    var i = +b.getAttribute('data-index');
    change(function (st) { st.melds.splice(i, 1); });
  });
  $('melds').addEventListener('change', function (e) {
    var el = e.target;
    var i = +el.getAttribute('data-index');
    var act = el.getAttribute('data-act');
    var v = el.value;
    if (act === 'from') {
      change(function (st) { st.melds[i].from = v; }, { paths: ['hand.melds.' + i] });
    } else if (act === 'kind') {
      change(function (st) {
        var m = st.melds[i];
        delete m.concealed;
        delete m.added;
        if (v === 'concealed') { m.concealed = true; delete m.from; }
        else {
          if (v === 'added') m.added = true;
          if (!m.from) m.from = PREV[st.seat];
        }
      }, { paths: ['hand.melds.' + i] });
    }
  });

  $('indicator-clear').addEventListener('click', function () {
    change(function (st) { st.indicator = null; });
  });
  $('meld-from').addEventListener('change', function (e) { ui.meldFrom = e.target.value; });

  $('preset').addEventListener('change', function (e) {
    var v = e.target.value;
    change(function (st) { st.preset = v; });
  });
  $('seat').addEventListener('click', function (e) {
    var b = e.target.closest('button[data-seat]');
    if (!b) return;
    var v = b.getAttribute('data-seat');
    change(function (st) { st.seat = v; }, { paths: ['hand.melds', 'win', 'claims_from_winner'],
      after: function () { ui.meldFrom = PREV[v]; } });
  });
  // who won and how, in one tap: the seat, self-draw or the discarder (a robbed kong stays one)
  $('winner-grid').addEventListener('click', function (e) {
    var b = e.target.closest('button[data-act="winner"]');
    if (!b) return;
    var s = b.getAttribute('data-seat');
    var from = b.getAttribute('data-from');
    change(function (st) {
      st.seat = s;
      if (!from) st.by = 'self_draw';
      else {
        if (st.by === 'self_draw') st.by = 'discard';
        st.from = from;
      }
    }, { paths: ['hand.melds', 'win', 'claims_from_winner'], after: function () { ui.meldFrom = PREV[s]; } });
  });
  $('round').addEventListener('click', function (e) {
    var b = e.target.closest('button[data-seat]');
    if (!b) return;
    var v = b.getAttribute('data-seat');
    change(function (st) { st.round = v; });
  });
  $('base').addEventListener('change', function (e) {
    var v = parseInt(e.target.value, 10);
    change(function (st) { st.base = v > 0 ? v : 1; }, { paths: ['base_points'] });
  });

  Array.prototype.forEach.call(document.querySelectorAll('input[name="by"]'), function (r) {
    r.addEventListener('change', function () {
      if (!r.checked) return;
      change(function (st) { st.by = r.value; }, { paths: ['win'] });
    });
  });
  $('win-from').addEventListener('change', function (e) {
    var v = e.target.value;
    change(function (st) { st.from = v; }, { paths: ['win'] });
  });
  $('kong-replacement').addEventListener('change', function (e) {
    var v = e.target.checked;
    change(function (st) { st.kr = v; }, { paths: ['win'] });
  });
  $('kong-fed-by').addEventListener('change', function (e) {
    var v = e.target.value;
    change(function (st) { st.fed = v; }, { paths: ['win'] });
  });
  [['last-tile', 'last'], ['heavenly', 'heavenly'], ['earthly', 'earthly'], ['discarded-caishen', 'dc']]
    .forEach(function (pair) {
      $(pair[0]).addEventListener('change', function (e) {
        var v = e.target.checked;
        change(function (st) { st[pair[1]] = v; }, { paths: ['win'] });
      });
    });
  $('claims').addEventListener('click', function (e) {
    var b = e.target.closest('button[data-act="claim"]');
    if (!b) return;
    var s = b.getAttribute('data-seat');
    var step = +b.getAttribute('data-step');
    change(function (st) { st.claims[s] = Math.max(0, (st.claims[s] || 0) + step); }, { paths: ['claims_from_winner'] });
  });

  $('bar-retry').addEventListener('click', retry);
  $('palette').addEventListener('keydown', paletteKeys);
  $('result-body').addEventListener('click', function (e) {
    var b = e.target.closest('button[data-act]');
    if (!b) return;
    var act = b.getAttribute('data-act');
    if (act === 'try') addToHand(b.getAttribute('data-tile'));
    else if (act === 'retry') retry();
    else if (act === 'ses-add' && canRecord()) {
      b.disabled = true;
      sessionAdd({ h: encode(state) });
      b.textContent = t('ses_added');
    }
    else if (act === 'analysis') run(function () { return loadAnalysis(state, 'analysis'); });
    else if (act === 'more-discards') {
      Array.prototype.forEach.call($('result-body').querySelectorAll('tr.more-row'), function (tr) { tr.hidden = false; });
      b.remove();
    }
    else if (act === 'drop') {
      var c = b.getAttribute('data-tile');
      change(function (st) {
        if (st.win === c) { st.win = null; return; }
        var i = st.hand.indexOf(c);
        if (i >= 0) st.hand.splice(i, 1);
      });
    }
  });
  document.querySelector('.skip').addEventListener('click', function (e) {
    e.preventDefault();
    var first = $('palette').querySelector('button:not([disabled])');
    if (first) first.focus();
  });
  $('quick').addEventListener('submit', function (e) {
    e.preventDefault();
    var v = $('quick-text').value;
    if (v.trim()) quickAdd(v);
  });
  window.addEventListener('popstate', onNavigate);
  window.addEventListener('hashchange', onNavigate);
}

export var flashTimer = null;
export function flash(msg) {
  var el = $('verdict');
  var old = el.textContent;
  el.textContent = msg;
  clearTimeout(flashTimer);
  flashTimer = setTimeout(function () { if (el.textContent === msg) el.textContent = old; }, 2000);
}

export function setLang(l) {
  try { localStorage.setItem(LANG_KEY, l); } catch (e) { /* private mode */ }
  run(function () {
    useLang(l);
    notice(null);
    return commit(false);
  });
}

export function useRules(data) { setRules(data); }

/* GET /v1/rules once a day at most: kept in localStorage with the time it was fetched (the
 * service worker keeps a copy too, for a page opened offline). */
export function loadRules() {
  var kept = null;
  try { kept = JSON.parse(localStorage.getItem(RULES_KEY) || 'null'); } catch (e) { kept = null; }
  // (rules kept before GET /v1/rules named its options' labels are fetched again)
  if (kept && kept.data && Array.isArray(kept.data.presets) && kept.data.option_labels) {
    useRules(kept.data);
    if (Date.now() - kept.at < RULES_MAX_AGE && kept.at <= Date.now()) return Promise.resolve({ ok: true, cached: true });
  }
  return api('GET', '/v1/rules').then(function (r) {
    if (r.ok && r.data && Array.isArray(r.data.presets)) {
      useRules(r.data);
      try { localStorage.setItem(RULES_KEY, JSON.stringify({ at: Date.now(), data: r.data })); } catch (e) { /* off */ }
    }
    return r;
  });
}

export function retry() {
  run(function () {
    return (presets.length ? Promise.resolve() : loadRules()).then(function () { return commit(false); });
  });
  run(settlePending);         // an evening changed with no signal is settled now
}

/* The bar is as tall as what it holds; the room a full hand would take under it is kept as its
 * margin (calc.css, --hand-h), so nothing under it, the palette under a finger, moves when it
 * grows or shrinks.  The desktop's result column sits below the sticky bar, whose height the CSS
 * reads. */
export function trackBarHeight() {
  var bar = $('bar');
  var hand = bar.querySelector('.bar-hand');
  var set = function () {
    document.documentElement.style.setProperty('--hand-h', hand.getBoundingClientRect().height + 'px');
    document.documentElement.style.setProperty('--bar-h', bar.offsetHeight + 'px');
  };
  set();
  if (window.ResizeObserver) new ResizeObserver(set).observe(hand);
}

/* ---- no signal: the service worker (/sw.js) keeps the page; the page says when it is offline */
export var offline = false;
export function setOffline(on) {
  offline = on;
  var el = $('net-state');
  el.hidden = !on;
  el.textContent = t('offline_state');
  el.title = t('offline_note');
  var note = $('offline-note');
  if (on && !note) {
    $('result').insertAdjacentHTML('afterbegin', '<p class="offline-note" id="offline-note" role="status"></p>');
    note = $('offline-note');
  }
  if (note) {
    note.hidden = !on;
    note.textContent = t('offline_note');
  }
}

export function startOffline() {
  window.addEventListener('offline', function () { setOffline(true); });
  window.addEventListener('online', function () { setOffline(false); retry(); });
  if (navigator.onLine === false) setOffline(true);
  if (!('serviceWorker' in navigator) || location.protocol === 'file:') return;
  navigator.serviceWorker.register('/sw.js').then(function () {
    return navigator.serviceWorker.ready;
  }).then(function (reg) {
    // the files this page loaded (the page's by their hashed URLs, and the modules calc.js
    // imports): kept for a visit with no signal
    var keep = Array.prototype.map.call(document.querySelectorAll('script[src], link[href]'), function (el) {
      return el.src || el.href;
    }).concat(performance.getEntriesByType('resource').map(function (e) { return e.name; }).filter(function (u) {
      return /\/static\/[\w.-]+\.js$/.test(new URL(u).pathname);
    }));
    if (reg.active) reg.active.postMessage({ keep: keep });
  }).catch(function (e) { if (window.console) console.warn('service worker', e); });
}
