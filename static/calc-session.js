/* The evening: a session of hands settled by POST /v1/sessions/settle, kept in this browser and shared by link.
 * (A part of the calculator page: static/calc.js is the start; each part a native ES module.) */
import { SEATS, lang, t } from './calc-strings.js';
import { lastResult, state } from './calc-state.js';
import { decode, encode, parseHash } from './calc-url.js';
import { api, change, failed, failureText, firstMessage, run, scoreRequest } from './calc-api.js';
import { $, esc, fmtSigned } from './calc-dom.js';
import { renderInputs } from './calc-inputs.js';
import { copyText, flash, offline } from './calc-events.js';

/* ---- the evening: a session of hands (POST /v1/sessions/settle) ----------------------- */
/* Kept in localStorage ({players, first_dealer, hands}; each hand the page's own link of a
 * scored hand, or a draw) and in a share link (#ev=…); the server settles it each time it
 * changes: seats, dealer and round wind of every hand, running totals, who pays whom. */
export var SESSION_KEY = 'nb-calc-session';
export var session = null;          // {players: [4 names], first_dealer, hands: [{h} | {draw: true}]}
export var settled = null;          // the last 200 of /v1/sessions/settle for it (kept with it)
export var sessionProblem = null;

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
      first_dealer: session.first_dealer, hands: session.hands, settled: settled }));
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

export function settle() {
  if (!session) return Promise.resolve();
  if (!session.hands.length) {
    settled = null;
    sessionProblem = null;
    saveSession();
    return Promise.resolve();
  }
  return api('POST', '/v1/sessions/settle', settleBody()).then(function (r) {
    if (failed(r)) {
      sessionProblem = { offline: !!r.offline, text: r.offline ? t('ses_offline') : failureText(r) };
    } else if (!r.ok) {
      sessionProblem = { text: t('ses_bad') + firstMessage(r.data) };
    } else {
      sessionProblem = null;
      settled = r.data;
    }
    saveSession();
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
  var rows = (settled && settled.hands ? settled.hands : []).map(function (h) {
    return '<tr data-hand="' + h.index + '"><td class="num">' + (h.index + 1) + '</td><td class="ses-what-cell">' +
      '<span class="ses-what">' + esc(h.outcome === 'win' && h.winner ? t('ses_win', h) : t('ses_drawn')) + '</span>' +
      '<small class="ses-dealer">' + esc(t('ses_dealer', h.dealer, h.round_wind)) + '</small></td>' +
      session.players.map(function (p) {
        var n = h.totals[p];
        return '<td class="num ' + (n > 0 ? 'pos' : n < 0 ? 'neg' : '') + '">' + esc(fmtSigned(n)) + '</td>';
      }).join('') + '</tr>';
  }).join('');
  var html = '<p class="ses-next" id="ses-next"><strong>' +
    esc(t('ses_next', session.hands.length + 1, next.dealer, next.round)) + '</strong></p>';
  if (sessionProblem) html += '<p class="problem" id="ses-problem">' + esc(sessionProblem.text) + '</p>';
  html += '<div class="row"><button type="button" id="ses-add" data-act="ses-add"' + (lastResult && lastResult.kind === 'score'
    ? '' : ' disabled') + '>' + esc(t('ses_add')) + '</button><button type="button" data-act="ses-draw">' +
    esc(t('ses_draw')) + '</button></div>';
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
  html += '<p class="muted">' + esc(t('ses_kept')) + '</p><div class="row"><button type="button" data-act="ses-share">' +
    esc(t('ses_share')) + '</button><button type="button" data-act="ses-new">' + esc(t('ses_new')) + '</button></div>';
  box.innerHTML = html;
}

/* With an evening on, the seat buttons name who sits there, and the round wind is the session's. */
export function sessionSeatLabel(s) {
  if (!session) return null;
  var next = nextSeats();
  return t('ses_seat', s, next.seats[s]) + (s === 'E' ? ' · ' + t('dealer') : '');
}

export function sessionAdd(entry) {
  run(function () {
    session.hands.push(entry);
    return settle().then(function () {
      var next = nextSeats();
      renderSession();
      if (state.round !== next.round) {
        return change(function (st) { st.round = next.round; });
      }
      renderInputs();
      return null;
    });
  });
}

export function bindSession() {
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
    if (act === 'ses-add' && lastResult && lastResult.kind === 'score') {
      sessionAdd({ h: encode(state) });
      flash(t('ses_added'));
    } else if (act === 'ses-draw') {
      sessionAdd({ draw: true });
    } else if (act === 'ses-share') {
      copyText(sessionLink(), t('link_copied'));
    } else if (act === 'ses-new') {
      if (!window.confirm(t('ses_new_confirm'))) return;
      session = null;
      settled = null;
      sessionProblem = null;
      saveSession();
      renderSession();
      renderInputs();
    }
  });
}

export function startSession(hash) {
  var linked = sessionFromLink(hash);
  if (linked) {
    session = { players: linked.players, first_dealer: linked.first_dealer || linked.players[0], hands: linked.hands };
    settled = null;
  } else {
    var kept = readSession();
    if (kept) {
      session = { players: kept.players, first_dealer: kept.first_dealer, hands: kept.hands };
      settled = kept.settled || null;
    }
  }
  return !!linked;
}
