/* The evening: a session of hands settled by POST /v1/sessions/settle, kept in this browser and shared by link.
 * (A part of the calculator page: static/calc.js is the start; each part a native ES module.) */
import { SEATS, lang, t } from './calc-strings.js';
import { blank, lastResult, setLastResult, setState, state } from './calc-state.js';
import { decode, encode, parseHash } from './calc-url.js';
import { api, failed, failureText, firstMessage, run, scoreRequest } from './calc-api.js';
import { $, esc, fmtSigned } from './calc-dom.js';
import { renderInputs } from './calc-inputs.js';
import { commit } from './calc-refresh.js';
import { copyText, flash } from './calc-events.js';

/* ---- the evening: a session of hands (POST /v1/sessions/settle) ----------------------- */
/* Kept in localStorage ({players, first_dealer, hands}; each hand the page's own link of a
 * scored hand, or a draw) and in a share link (#ev=…); the server settles it each time it
 * changes: seats, dealer and round wind of every hand, running totals, who pays whom. */
export var SESSION_KEY = 'nb-calc-session';
export var SAVED_KEY = 'nb-calc-sessions-saved';   // evenings put aside for a link's ("keep both")
export var SAVED_MAX = 5;
/* {players: [4 names], first_dealer, hands: [{h, seats} | {draw: true, seats}], unsettled}: each
 * hand keeps who sat where when it was recorded (seats: wind → player), so that when an earlier
 * hand is corrected or deleted and the deal moves, it is turned to keep the same players. */
export var session = null;
export var settled = null;          // the last 200 of /v1/sessions/settle for it (kept with it)
export var sessionProblem = null;
export var editing = null;          // the index of the recorded hand being corrected, or null
export var incoming = null;         // an evening from a link, waiting for the reader's choice

export function readSession() {
  try {
    var v = JSON.parse(localStorage.getItem(SESSION_KEY) || 'null');
    if (v && Array.isArray(v.players) && v.players.length === 4 && Array.isArray(v.hands)) return v;
  } catch (e) { /* unreadable: none */ }
  return null;
}

export function saveSession() {
  try {
    if (session) localStorage.setItem(SESSION_KEY, JSON.stringify({ players: session.players,
      first_dealer: session.first_dealer, hands: session.hands, settled: settled, unsettled: !!session.unsettled }));
    else localStorage.removeItem(SESSION_KEY);
  } catch (e) { /* full or off */ }
}

export function b64url(text) {
  return btoa(unescape(encodeURIComponent(text))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
export function unb64url(text) {
  return decodeURIComponent(escape(atob(text.replace(/-/g, '+').replace(/_/g, '/'))));
}

export function sessionLink() {
  return location.origin + location.pathname + location.search + '#ev=' +
    b64url(JSON.stringify({ players: session.players, first_dealer: session.first_dealer, hands: session.hands }));
}

/* A session from a link's #ev=…, or null. */
export function sessionFromLink(hash) {
  var q = parseHash(hash);
  if (!q.ev) return null;
  try {
    var v = JSON.parse(unb64url(q.ev));
    if (v && Array.isArray(v.players) && v.players.length === 4 && Array.isArray(v.hands)) return v;
  } catch (e) { /* a broken link: no session */ }
  return null;
}

export function settleBody() {
  return {
    rules: state.preset, players: session.players, first_dealer: session.first_dealer,
    hands: session.hands.map(function (x) {
      if (x.draw) return { draw: true };
      var body = scoreRequest(decode('#' + x.h));
      delete body.round_wind;            // the session's rotation fills it in
      return { score: body };
    })
  };
}

/* Where the next hand stands: its dealer, its round wind, and who sits where. */
export function nextSeats() {
  var dealer = settled && settled.next ? settled.next.dealer : session.first_dealer;
  var wind = settled && settled.next ? settled.next.round_wind : 'E';
  var d = Math.max(0, session.players.indexOf(dealer));
  var seats = {};
  SEATS.forEach(function (s, i) { seats[s] = session.players[(d + i) % 4]; });
  return { dealer: dealer, round: wind, seats: seats };
}

/* The seat letters of a recorded hand turned (letter: old wind → new wind), its tiles as they were. */
export function turnSeats(st, letter) {
  var to = function (s) { return s ? letter[s] : s; };
  st.seat = to(st.seat);
  st.from = to(st.from);
  st.fed = to(st.fed);
  var claims = {};
  SEATS.forEach(function (s) { claims[letter[s]] = st.claims[s] || 0; });
  st.claims = claims;
  st.melds.forEach(function (m) { m.from = to(m.from); });
  return st;
}

/* Who sat at each wind in a settled hand: the seat wind k is the player (dealer + k) % 4 of the
 * answer's players (docs/api.md, POST /v1/sessions/settle). */
export function handSeats(h, players) {
  var seats = {};
  SEATS.forEach(function (s, k) { seats[s] = players[(h.dealer + k) % 4]; });
  return seats;
}

/* The first recorded hand whose players now sit elsewhere (an earlier hand was corrected or
 * deleted and the deal moved): turned to keep its players; true when one was. */
function keepPlayers(data) {
  for (var i = 0; i < session.hands.length; i++) {
    var x = session.hands[i];
    var now = data.hands[i] && handSeats(data.hands[i], data.players || session.players);
    if (!x.seats || !now || SEATS.every(function (s) { return now[s] === x.seats[s]; })) continue;
    if (!x.draw) {
      var letter = {};
      SEATS.forEach(function (s) { SEATS.forEach(function (w) { if (now[w] === x.seats[s]) letter[s] = w; }); });
      x.h = encode(turnSeats(decode('#' + x.h), letter));
    }
    x.seats = now;
    if (!x.draw) return true;     // the deals after it follow from it: settled again
  }
  return false;
}

/* POST /v1/sessions/settle for the evening; offline, it stays unsettled (and is settled when the
 * connection returns: settlePending). */
export function settle() {
  if (!session) return Promise.resolve();
  if (!session.hands.length) {
    settled = null;
    sessionProblem = null;
    session.unsettled = false;
    saveSession();
    return Promise.resolve();
  }
  var rounds = 0;
  function once() {
    return api('POST', '/v1/sessions/settle', settleBody()).then(function (r) {
      if (failed(r)) {
        session.unsettled = true;
        sessionProblem = { offline: !!r.offline, text: r.offline || r.slow ? t('ses_offline') : failureText(r) };
      } else if (!r.ok) {
        session.unsettled = false;
        sessionProblem = { text: t('ses_bad') + firstMessage(r.data) };
      } else if (keepPlayers(r.data) && rounds++ < session.hands.length) {
        return once();
      } else {
        session.unsettled = false;
        sessionProblem = null;
        settled = r.data;
      }
      saveSession();
      return null;
    });
  }
  return once();
}

/* An evening changed while there was no signal is settled as soon as there is one. */
export function settlePending() {
  if (!session || !session.unsettled) return Promise.resolve();
  return settle().then(function () {
    renderSession();
    renderInputs();
  });
}

export function renderSession() {
  var box = $('session-body');
  if (!session) {
    var names = t('ses_defaults');
    box.innerHTML = '<p class="muted">' + esc(t('ses_intro')) + '</p><form id="ses-form" class="ses-form">' +
      [0, 1, 2, 3].map(function (i) {
        return '<label class="field"><span>' + esc(t('ses_name', i)) + '</span><input type="text" name="p' + i +
          '" value="' + esc(names[i]) + '" autocomplete="off" maxlength="24" required></label>';
      }).join('') + '<button type="submit" id="ses-start">' + esc(t('ses_start')) + '</button></form>';
    return;
  }
  var next = nextSeats();
  // the answer names each player once (settled.players); a hand names them by position there
  var named = settled && settled.players ? settled.players : session.players;
  var list = settled && settled.hands ? settled.hands : [];
  var rows = list.map(function (h) {
    var again = h.index > 0 && list[h.index - 1] && list[h.index - 1].dealer === h.dealer;     // 连庄
    var w = { winner: named[h.winner], from: h.from === null ? null : named[h.from], tai: h.tai, by: h.by,
      eligible: h.eligible };
    var kept = session.hands[h.index];
    var liable = h.outcome === 'win' && kept && Array.isArray(kept.liable) ? kept.liable.map(function (x) {
      return esc(x.player + ' ' + (t('liability')[x.liability] || x.liability));
    }).join(lang === 'zh' ? '、' : ', ') : '';
    return '<tr data-hand="' + h.index + '"><td class="num">' + (h.index + 1) + '</td><td class="ses-what-cell">' +
      '<span class="ses-what">' + esc(h.outcome === 'win' && h.winner !== null ? t('ses_win', w) : t('ses_drawn')) + '</span>' +
      (liable ? '<small class="ses-liable">' + liable + '</small>' : '') +
      '<small class="ses-dealer">' + esc(t('ses_dealer', named[h.dealer], h.round_wind)) + (again ? ' · <strong class="ses-again">' +
      esc(t('ses_again')) + '</strong>' : '') + '</small>' +
      '<span class="ses-row-acts">' + (h.outcome === 'win' ? '<button type="button" class="ses-edit" data-act="ses-edit" data-index="' +
      h.index + '" aria-label="' + esc(t('ses_edit_n', h.index + 1)) + '">' + esc(t('ses_edit')) + '</button>' : '') +
      '<button type="button" class="ses-del" data-act="ses-del" data-index="' + h.index + '" aria-label="' +
      esc(t('ses_del_n', h.index + 1)) + '">' + esc(t('ses_del')) + '</button></span></td>' +
      session.players.map(function (p, i) {
        // this hand's gain, and below it the running total
        var n = h.net[i];
        return '<td class="num ' + (n > 0 ? 'pos' : n < 0 ? 'neg' : '') + '"><span class="ses-net">' + esc(fmtSigned(n)) +
          '</span><small class="ses-run" aria-label="' + esc(t('ses_running')) + '">' + esc(t('ses_run', fmtSigned(h.totals[i]))) +
          '</small></td>';
      }).join('') + '</tr>';
  }).join('');
  var html = '<p class="ses-next" id="ses-next"><strong>' +
    esc(t('ses_next', session.hands.length + 1, next.dealer, next.round)) + '</strong></p>';
  if (sessionProblem) html += '<p class="problem" id="ses-problem">' + esc(sessionProblem.text) + '</p>';
  if (editing !== null) {
    html += '<p class="ses-editing" id="ses-editing">' + esc(t('ses_editing', editing + 1)) +
      ' <button type="button" data-act="ses-cancel">' + esc(t('ses_cancel')) + '</button></p>';
  }
  html += '<div class="row"><button type="button" id="ses-add" data-act="ses-add"' + (canRecord()
    ? '' : ' disabled') + '>' + esc(addLabel()) + '</button>' + (editing === null ? '<button type="button" data-act="ses-draw">' +
    esc(t('ses_draw')) + '</button>' : '') + '</div>';
  if (!session.hands.length) html += '<p class="muted">' + esc(t('ses_empty')) + '</p>';
  else {
    html += '<div class="ses-scroll"><table class="ses-table" id="ses-table"><thead><tr><th scope="col" class="num">' +
      esc(t('ses_col_hand')) + '</th><th scope="col">' + esc(t('ses_col_what')) + '</th>' + session.players.map(function (p) {
        return '<th scope="col" class="num">' + esc(p) + '</th>';
      }).join('') + '</tr></thead><tbody>' + rows + '</tbody>';
    if (settled) {
      html += '<tfoot><tr><th scope="row" colspan="2">' + esc(t('ses_total')) + '</th>' + session.players.map(function (p) {
        var n = settled.totals[p];
        return '<td class="num ' + (n > 0 ? 'pos' : n < 0 ? 'neg' : '') + '" data-player="' + esc(p) + '">' +
          esc(fmtSigned(n)) + '</td>';
      }).join('') + '</tr></tfoot>';
    }
    html += '</table></div>';
    if (settled) {
      html += '<p class="ses-pays" id="ses-pays"><strong>' + esc(t('ses_settle')) + '</strong>' + (settled.transfers.length
        ? settled.transfers.map(function (x) {
          return '<span class="ses-pay">' + esc(t('ses_pays', x.from, x.to, x.amount)) + '</span>';
        }).join(lang === 'zh' ? '；' : '; ') : esc(t('ses_even'))) + '</p>';
    }
  }
  readSaved().forEach(function (x, i) {
    html += '<p class="ses-saved">' + esc(evenName(x)) + ' <button type="button" data-act="ses-swap" data-index="' + i + '">' +
      esc(t('ses_swap')) + '</button></p>';
  });
  html += '<p class="muted">' + esc(t('ses_kept')) + '</p><div class="row"><button type="button" data-act="ses-share">' +
    esc(t('ses_share')) + '</button><button type="button" data-act="ses-new">' + esc(t('ses_new')) + '</button></div>';
  box.innerHTML = html;
  renderBarRecord();
}

/* With an evening on, the seat buttons name who sits there (in the hand being corrected: who sat
 * there then), and the round wind is the session's. */
export function sessionSeatLabel(s) {
  if (!session) return null;
  var x = editing !== null ? session.hands[editing] : null;
  var seats = x && x.seats ? x.seats : nextSeats().seats;
  return t('ses_seat', s, seats[s]) + (s === 'E' ? ' · ' + t('dealer') : '');
}

/* The scored hand may be recorded: a win over the minimum, not recorded yet (recording clears it). */
export function canRecord() {
  return !!(session && lastResult && lastResult.kind === 'score' && lastResult.data && lastResult.data.eligible);
}
/* The bar's record button, beside the verdict (shown when the scored hand may be recorded): the
 * evening's "记入这一手" without scrolling down to the evening. */
export function renderBarRecord() {
  var b = $('bar-record');
  var on = canRecord();
  b.hidden = !on;
  b.disabled = !on;
  if (!on) return;
  b.textContent = t(editing !== null ? 'ses_bar_save' : 'ses_bar_add');
}
export function addLabel(fromResult) {
  if (editing !== null) return t('ses_save_n', editing + 1);
  return fromResult ? t('ses_add_n', session.hands.length + 1) : t('ses_add');
}

/* Record the scored hand (or a draw) in the evening, or put the corrected hand back in its place;
 * the evening is settled again and the calculator cleared for the next hand.  A second tap finds
 * the hand cleared (or no longer the one tapped on) and records nothing. */
export function sessionAdd(entry) {
  var h = entry.h;
  run(function () {
    if (h !== undefined && (h !== encode(state) || !canRecord())) return null;
    if (editing !== null && h !== undefined) {
      session.hands[editing].h = h;
      session.hands[editing].liable = liableOf(session.hands[editing].seats || nextSeats().seats);
      editing = null;
    } else {
      entry.seats = nextSeats().seats;
      if (h !== undefined) entry.liable = liableOf(entry.seats);
      session.hands.push(entry);
    }
    session.unsettled = true;
    saveSession();
    return settle().then(function () {
      if (h !== undefined) clearHand();
      renderSession();
      return commit(true);
    });
  });
}

/* Who paid as liable (包, 双包) in the scored hand being recorded, by name: read from its /v1/score
 * answer's payments (their liability), never worked out here. */
function liableOf(seats) {
  var pays = lastResult && lastResult.data && lastResult.data.payments || [];
  return pays.filter(function (p) { return p.liability; }).map(function (p) {
    return { player: seats[p.from] || p.from, liability: p.liability };
  });
}

/* The calculator made ready for the next hand: no tiles, the evening's round wind, the rules kept. */
function clearHand() {
  var next = blank();
  next.preset = state.preset;
  next.base = state.base;
  next.round = nextSeats().round;
  setState(next);
  setLastResult(null);
}

/* A recorded hand deleted (after a yes), or opened to be corrected. */
function deleteHand(i) {
  if (!window.confirm(t('ses_del_confirm', i + 1))) return;
  run(function () {
    session.hands.splice(i, 1);
    if (editing === i) editing = null;
    else if (editing !== null && editing > i) editing--;
    session.unsettled = true;
    saveSession();
    return settle().then(function () {
      renderSession();
      renderInputs();
    });
  });
}
function editHand(i) {
  var x = session.hands[i];
  if (!x || x.draw) return;
  run(function () {
    editing = i;
    setState(decode('#' + x.h));
    return commit(true).then(function () {
      renderSession();
      $('h-hand').scrollIntoView({ block: 'nearest' });
    });
  });
}

/* A tap on a record button: the scored hand into the evening (once: the button is disabled at once). */
function recordTap(b) {
  if (!canRecord()) return;
  b.disabled = true;
  sessionAdd({ h: encode(state) });
  flash(t('ses_added'));
}

export function bindSession() {
  $('bar-record').addEventListener('click', function (e) { recordTap(e.currentTarget); });
  $('ses-incoming').addEventListener('click', function (e) {
    var b = e.target.closest('button[data-pick]');
    if (b) pickIncoming(b.getAttribute('data-pick'));
  });
  var box = $('session-body');
  box.addEventListener('submit', function (e) {
    e.preventDefault();
    var names = [0, 1, 2, 3].map(function (i) { return box.querySelector('input[name="p' + i + '"]').value.trim(); });
    if (names.some(function (n) { return !n; }) || names.some(function (n, i) { return names.indexOf(n) !== i; })) return;
    session = { players: names, first_dealer: names[0], hands: [] };
    settled = null;
    sessionProblem = null;
    saveSession();
    renderSession();
    renderInputs();
  });
  box.addEventListener('click', function (e) {
    var b = e.target.closest('button[data-act]');
    if (!b || !session) return;
    var act = b.getAttribute('data-act');
    if (act === 'ses-add') {
      recordTap(b);
    } else if (act === 'ses-swap') {
      swapSaved(+b.getAttribute('data-index'));
    } else if (act === 'ses-edit') {
      editHand(+b.getAttribute('data-index'));
    } else if (act === 'ses-del') {
      deleteHand(+b.getAttribute('data-index'));
    } else if (act === 'ses-cancel') {
      editing = null;
      run(function () {
        clearHand();
        renderSession();
        return commit(true);
      });
    } else if (act === 'ses-draw') {
      sessionAdd({ draw: true });
    } else if (act === 'ses-share') {
      copyText(sessionLink(), t('link_copied'));
    } else if (act === 'ses-new') {
      if (!window.confirm(t('ses_new_confirm'))) return;
      session = null;
      settled = null;
      sessionProblem = null;
      editing = null;
      saveSession();
      renderSession();
      renderInputs();
    }
  });
}

/* The evening kept on this phone, and one a link brings: opened at once when this phone has none
 * (or the same one), else held in `incoming` until the reader chooses (askIncoming).  True when
 * the link's evening was opened. */
export function startSession(hash) {
  var linked = sessionFromLink(hash);
  var kept = readSession();
  if (kept) {
    session = { players: kept.players, first_dealer: kept.first_dealer, hands: kept.hands, unsettled: !!kept.unsettled };
    settled = kept.settled || null;
  }
  if (!linked) return false;
  var theirs = { players: linked.players, first_dealer: linked.first_dealer || linked.players[0], hands: linked.hands };
  if (session && session.hands.length && !sameEvening(session, theirs)) {
    incoming = theirs;
    return false;
  }
  session = theirs;
  settled = null;
  return true;
}

function sameEvening(a, b) {
  var strip = function (x) { return JSON.stringify([x.players, x.first_dealer, x.hands.map(function (h) { return h.draw ? 0 : h.h; })]); };
  return strip(a) === strip(b);
}

export function readSaved() {
  try {
    var v = JSON.parse(localStorage.getItem(SAVED_KEY) || '[]');
    return Array.isArray(v) ? v.filter(function (x) { return x && Array.isArray(x.players) && Array.isArray(x.hands); }) : [];
  } catch (e) { return []; }
}
function writeSaved(list) {
  try { localStorage.setItem(SAVED_KEY, JSON.stringify(list.slice(-SAVED_MAX))); } catch (e) { /* full or off */ }
}
function evenName(x) {
  return t('ses_saved_name', x.players.join(lang === 'zh' ? '、' : ', '), x.hands.length);
}

/* An evening link opened on a phone that has an evening of its own: keep mine, open theirs, or
 * keep both (mine put aside, theirs opened; the session card brings mine back). */
export function askIncoming() {
  var box = $('ses-incoming');
  if (!incoming) { box.hidden = true; box.innerHTML = ''; return; }
  box.hidden = false;
  box.setAttribute('aria-label', t('session'));
  box.innerHTML = '<p><strong>' + esc(t('ses_incoming')) + '</strong></p><p class="muted">' +
    esc(t('ses_incoming_mine', evenName(session))) + '<br>' + esc(t('ses_incoming_theirs', evenName(incoming))) + '</p>' +
    '<div class="row"><button type="button" data-pick="mine">' + esc(t('ses_keep_mine')) + '</button>' +
    '<button type="button" data-pick="theirs">' + esc(t('ses_open_theirs')) + '</button>' +
    '<button type="button" data-pick="both">' + esc(t('ses_keep_both')) + '</button></div>';
}
function pickIncoming(pick) {
  var theirs = incoming;
  incoming = null;
  askIncoming();
  if (pick === 'mine' || !theirs) return;
  if (pick === 'both') writeSaved(readSaved().concat([{ players: session.players, first_dealer: session.first_dealer, hands: session.hands }]));
  openEvening(theirs);
}
function openEvening(x) {
  session = { players: x.players, first_dealer: x.first_dealer, hands: x.hands, unsettled: true };
  settled = null;
  sessionProblem = null;
  editing = null;
  saveSession();
  run(function () {
    return settle().then(function () {
      renderSession();
      renderInputs();
    });
  });
}
/* A put-aside evening brought back; the open one put aside in its place. */
function swapSaved(i) {
  var list = readSaved();
  var x = list.splice(i, 1)[0];
  if (!x) return;
  if (session) list.push({ players: session.players, first_dealer: session.first_dealer, hands: session.hands });
  writeSaved(list);
  openEvening(x);
}
