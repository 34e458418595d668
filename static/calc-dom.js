/* Small DOM helpers: elements by id, escaping, tiles and seat pickers as HTML.
 * (A part of the calculator page: static/calc.js is the start; each part a native ES module.) */
import { I18N, PREV, SEATS, T, lang, t } from './calc-strings.js';
import { mode } from './calc-state.js';
import { session, sessionSeatLabel } from './calc-session.js';

/* ---- DOM helpers -------------------------------------------------------------------- */
export function $(id) { return document.getElementById(id); }
export var app = $('app');

export function esc(s) {
  return String(s).replace(/[&<>"']/g, function (c) {
    return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
  });
}

export function csBadge() { return '<span class="cs-badge" aria-hidden="true">' + esc(t('caishen_badge')) + '</span>'; }

export function tileSpan(c, extraClass, label) {
  var cs = /(^|\s)cs(\s|$)/.test(extraClass || '');
  return '<span class="tile ' + (extraClass || '') + '" role="img" aria-label="' +
    esc(label || (cs ? t('caishen_tile', T.name(c, lang)) : T.name(c, lang))) + '" data-tile="' + c + '">' +
    T.svg(c) + (cs ? csBadge() : '') + '</span>';
}

export function tileButton(c, cls, label, attrs, extra) {
  var cs = /(^|\s)cs(\s|$)/.test(cls || '');
  return '<button type="button" class="tile ' + (cls || '') + '" aria-label="' + esc(label) +
    '" data-tile="' + c + '" ' + (attrs || '') + '>' + T.svg(c) + (cs ? csBadge() : '') + (extra || '') + '</button>';
}

/* A meld's tiles; a concealed kong shows its two end tiles face down, as it lies on the table. */
export function meldTiles(m, size) {
  return m.tiles.map(function (c, j) {
    var down = m.type === 'kong' && m.concealed && (j === 0 || j === 3);
    return down ? '<span class="tile back ' + size + '" role="img" data-tile="' + c + '" data-down="1" aria-label="' +
      esc(T.name(c, lang)) + '"></span>' : tileSpan(c, size);
  }).join('');
}

export function seatOptions(sel, seats, value, withNone) {
  var html = withNone ? '<option value="">' + esc(t('nobody')) + '</option>' : '';
  seats.forEach(function (s) {
    html += '<option value="' + s + '"' + (s === value ? ' selected' : '') + '>' +
      esc(t('seat_opt', s)) + '</option>';
  });
  sel.innerHTML = html;
  sel.value = value || '';
}

export function segButtons(el, value, act) {
  el.innerHTML = SEATS.map(function (s) {
    return '<button type="button" data-act="' + act + '" data-seat="' + s + '" aria-pressed="' + (s === value) + '">' +
      esc(act === 'round' ? I18N[lang].seat_names[s] : act === 'seat' && session ? sessionSeatLabel(s) : t('seat_opt', s)) +
      '</button>';
  }).join('');
}

export function others(seat) { return SEATS.filter(function (s) { return s !== seat; }); }

/* Seats a meld of this mode can be claimed from: a chow only from the 上家 (docs/rules.md §1). */
export function claimSeats(st) {
  return mode().type === 'chow' ? [PREV[st.seat]] : others(st.seat);
}

export function fmtSigned(n) {
  if (n > 0) return '+' + n;
  if (n < 0) return '\u2212' + Math.abs(n);
  return '0';
}
