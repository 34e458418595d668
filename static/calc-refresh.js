/* Hands scored in this browser (localStorage), and asking the API about the current hand.
 * (A part of the calculator page: static/calc.js is the start; each part a native ES module.) */
import { HISTORY_KEY, HISTORY_MAX, T, t } from './calc-strings.js';
import { need, setBaseline, setLastResult, state, total } from './calc-state.js';
import { decode, encode, hasHand, writeURL } from './calc-url.js';
import {
  api, copiesMessage, errorPairs, failed, overCopies, problemTitle, scoreRequest, track, waitsRequest
} from './calc-api.js';
import { $, esc } from './calc-dom.js';
import { focusKey, renderInputs, restoreFocus } from './calc-inputs.js';
import {
  fieldErrors, loadAnalysis, problemHTML, renderScore, renderWaits, setPay, setVerdict, short, showOffline, showResultText, stopCountdown
} from './calc-results.js';

/* ---- hands scored in this browser (localStorage) ------------------------------------ */
export function readHistory() {
  try {
    var v = JSON.parse(localStorage.getItem(HISTORY_KEY) || '[]');
    return Array.isArray(v) ? v.filter(function (x) { return x && typeof x.h === 'string'; }) : [];
  } catch (e) { return []; }
}

export function remember(st, d) {
  var h = encode(st);
  var list = readHistory().filter(function (x) { return x.h !== h; });
  list.unshift({ h: h, tai: d.tai, eligible: !!d.eligible });
  try { localStorage.setItem(HISTORY_KEY, JSON.stringify(list.slice(0, HISTORY_MAX))); } catch (e) { /* full or off */ }
}

export function handShort(st) {
  return [short(T.sort(st.hand)) + (st.win ? ' + ' + short([st.win]) : '')].concat(st.melds.map(function (m) {
    return short(m.tiles);
  }), st.flowers.length ? [short(T.sort(st.flowers))] : []).join(' · ');
}

export function renderHistory() {
  var list = readHistory();
  $('history').innerHTML = list.map(function (x) {
    return '<li><a href="#' + esc(x.h) + '"><strong>' + esc(x.tai + ' ' + t('tai') + ' ' + (x.eligible ? '✓' : '✗')) +
      '</strong> <span class="muted">' + esc(handShort(decode('#' + x.h))) + '</span></a></li>';
  }).join('');
  $('history-empty').hidden = list.length > 0;
}

/* ---- asking the API for the current hand -------------------------------------------- */
export var seq = 0;
export var COUNT_PATHS = ['hand', 'hand.concealed', 'hand.winning_tile', '$', ''];
export function countPath(p) { return COUNT_PATHS.indexOf(p) >= 0; }

export function refresh() {
  var id = ++seq;
  var st = state;
  var n = need(st);
  var tot = total(st);
  var body = $('result-body');
  setLastResult(null);
  stopCountdown();
  $('result-copy').hidden = true;
  if ($('ses-add')) $('ses-add').disabled = true;
  $('bar-record').hidden = true;
  if (!hasHand(st)) {
    body.innerHTML = '<p class="muted">' + esc(t('empty')) + '</p>';
    setVerdict(t('empty_verdict'), '');
    setPay('');
    setBaseline(null);
    fieldErrors(null);
    return Promise.resolve();
  }
  if (tot < n - 1 || tot > n) {
    // no call: the page knows this hand is incomplete (or has too many tiles)
    setBaseline(null);
    fieldErrors(null);
    var k = n - 1 - tot;
    body.innerHTML = tot > n ? '<p class="need" id="need-more">' + esc(t('too_many', tot - n)) + '</p>'
      : '<p class="need" id="need-more">' + esc(t('need_more', k, n, st.melds.length)) + '</p>';
    setVerdict(tot > n ? t('too_many', tot - n) : t('more', k), 'more');
    setPay('');
    return Promise.resolve();
  }
  var waitsMode = tot === n - 1;
  var call = waitsMode ? api('POST', '/v1/waits', waitsRequest(st), { key: 'hand' })
    : api('POST', '/v1/score', scoreRequest(st), { key: 'hand' });
  return call.then(function (r) {
    if (id !== seq || r.superseded) return null;
    var focus = focusKey(document.activeElement);
    try { return showResponse(r); } finally { restoreFocus(focus); }
  });

  var shown = null;
  function showResponse(r) {
    shown = r;
    if (failed(r)) {
      setBaseline(null);
      showOffline(r);
      return null;
    }
    setBaseline(r.ok ? null : r.data);
    try { return show(); } finally {
      if (r.local) body.insertAdjacentHTML('afterbegin', '<p class="offline-note" id="local-note">' + esc(t('off_local')) + '</p>');
    }
  }

  function show() {
    var r = shown;
    var noWin = !r.ok && r.data && r.data.code === 'not_a_winning_hand';
    var pairs = noWin ? errorPairs(r.data) : fieldErrors(r.ok ? null : r.data);
    if (noWin) fieldErrors(null);
    if (r.ok && waitsMode) {
      renderWaits(r.data);
      showResultText('waits', r.data);
      if ($('analysis')) return loadAnalysis(st, 'analysis', true);
    } else if (r.ok) {
      renderScore(r.data);
      showResultText('score', r.data);
      remember(st, r.data);
      renderHistory();
    } else if (noWin) {
      body.innerHTML = problemHTML(r.data, pairs) + '<div id="analysis" class="analysis"></div>';
      setVerdict(t('v_no_win'), 'no');
      setPay('');
      return loadAnalysis(st, 'analysis', true);
    } else {
      body.innerHTML = problemHTML(r.data || {}, pairs);
      setVerdict(problemTitle(r.data), 'no');
      setPay('');
    }
    return null;
  }
}

/* The change kept (the URL, the inputs) and the hand asked about; the queue goes on at once
 * (calc-api.js track): a slow answer never holds up the next tap. */
export function commit(push) {
  writeURL(push);
  renderInputs();
  track(refresh());
  return Promise.resolve();
}

/* A link opened with a hand that cannot exist says so at once (and later taps still work). */
export function linkCheck() {
  var st = state;
  var over = overCopies(st);
  var step = over ? copiesMessage(over, st).then(function (m) { return m && m.offline ? [] : [m]; })
    : api('POST', '/v1/score', scoreRequest(st)).then(function (r) {
      if (r.ok || !r.data || r.data.code === 'not_a_winning_hand') return [];
      return errorPairs(r.data).filter(function (pm) { return !countPath(pm[0]); }).map(function (pm) { return pm[1]; });
    });
  return step.then(function (msgs) {
    var el = $('link-problem');
    if (!msgs.length) { el.hidden = true; return; }
    el.hidden = false;
    el.innerHTML = '<p><strong>' + esc(t('link_bad')) + '</strong></p><ul>' + msgs.map(function (m) {
      return '<li>' + esc(m) + '</li>';
    }).join('') + '</ul><button type="button" id="link-clear">' + esc(t('link_clear')) + '</button>';
  });
}
