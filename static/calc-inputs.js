/* Rendering of the inputs: the palette, the bar's hand and melds, the win context, the rule options.
 * (A part of the calculator page: static/calc.js is the start; each part a native ES module.) */
import { PREV, SEATS, T, lang, t } from './calc-strings.js';
import { caishenKinds, copiesOf, mode, need, optionLabels, presetById, presets, rulebook, state, total, ui, usedCounts } from './calc-state.js';
import { undoStack } from './calc-url.js';
import { $, claimSeats, csBadge, esc, meldTiles, others, seatOptions, segButtons, tileButton, tileSpan } from './calc-dom.js';
import { presetName, renderContext } from './calc-results.js';
import { renderHistory } from './calc-refresh.js';
import { renderSession, session, sessionSeatLabel } from './calc-session.js';
import { offline, setOffline } from './calc-events.js';
import { renderOffline } from './calc-offline.js';

/* ---- rendering: inputs -------------------------------------------------------------- */
export function applyLang() {
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  document.title = lang === 'zh' ? '宁波麻将计算器' : 'Ningbo mahjong calculator';
  Array.prototype.forEach.call(document.querySelectorAll('[data-i18n]'), function (el) {
    el.textContent = t(el.getAttribute('data-i18n'));
  });
  if (offline) setOffline(true);
  $('lang-zh').setAttribute('aria-pressed', String(lang === 'zh'));
  $('lang-en').setAttribute('aria-pressed', String(lang === 'en'));
}

/* Arrow keys move among the palette's tiles: ←/→ the next tile, ↑/↓ the tile above or below in
 * the same block (its columns as laid out), Home/End the first and the last. */
export function paletteKeys(e) {
  var keys = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: 'up', ArrowDown: 'down', Home: 'first', End: 'last' };
  var move = keys[e.key];
  var from = e.target.closest('#palette button.tile');
  if (move === undefined || !from) return;
  var all = Array.prototype.slice.call($('palette').querySelectorAll('button.tile'));
  var i = all.indexOf(from);
  var j = i;
  if (move === 'first') j = 0;
  else if (move === 'last') j = all.length - 1;
  else if (typeof move === 'number') j = i + move;
  else {
    var group = Array.prototype.slice.call(from.parentElement.children);
    var cols = getComputedStyle(from.parentElement).gridTemplateColumns.split(' ').length;
    var k = group.indexOf(from) + (move === 'down' ? cols : -cols);
    if (k >= 0 && k < group.length) j = all.indexOf(group[k]);
  }
  if (j < 0 || j >= all.length || j === i) return;
  e.preventDefault();
  all[j].focus();
}

export function buildPalette() {
  var groups = [T.SUITED.slice(0, 9), T.SUITED.slice(9, 18), T.SUITED.slice(18, 27), T.HONORS, T.FLOWERS];
  $('palette').innerHTML = groups.map(function (g) {
    return '<div class="pal-group">' + g.map(function (c) {
      return tileButton(c, 'pal', c, '', '<span class="left" aria-hidden="true"></span>');
    }).join('') + '</div>';
  }).join('');
}

export function paletteLabels() {
  var st = state;
  var kinds = caishenKinds(st);
  var used = usedCounts(st);
  var m = mode();
  Array.prototype.forEach.call($('palette').querySelectorAll('button'), function (b) {
    var c = b.getAttribute('data-tile');
    var n = T.name(c, lang);
    var cs = kinds.indexOf(c) >= 0;
    var left = Math.max(0, copiesOf(c) - (used[c] || 0));
    var label;
    var disabled = false;
    if (T.isFlower(c) && !cs && m.target !== 'indicator') {
      label = t('add_tile', n);
    } else if (m.target === 'meld') {
      disabled = T.isFlower(c) || (m.type === 'chow' && (!T.isSuited(c) || +c[0] > 7));
      label = t('add_meld', n, t(m.type));
    } else if (m.target === 'run') {
      disabled = !T.isSuited(c) || +c[0] > 7;
      label = t('add_run', n);
    } else if (m.target === 'indicator') {
      label = t('set_indicator', n);
    } else if (m.target === 'win') {
      label = t('set_win', n);
    } else {
      label = t('add_tile', n);
    }
    if (cs) label = t('caishen_tile', label);
    label += ' · ' + (left ? t('left', left) : t('used_up'));
    b.setAttribute('aria-label', label);
    b.title = label;
    b.disabled = disabled;
    b.classList.toggle('cs', cs);
    b.classList.toggle('used-up', left === 0);
    var badge = b.querySelector('.cs-badge');
    if (cs && !badge) b.insertAdjacentHTML('beforeend', csBadge());
    if (!cs && badge) badge.remove();
    if (badge) badge.textContent = t('caishen_badge');
    b.setAttribute('data-left', String(left));
    b.querySelector('.left').textContent = String(left);
  });
  $('palette-legend').textContent = t('legend');
}

/* Controls rebuilt by a render (hand tiles, meld rows, claims) keep the keyboard focus: the
 * element in the same place gets it back. */
export function focusKey(el) {
  if (!el || el === document.body) return null;
  if (el.id) return { sel: '#' + el.id };
  var box = el.closest('#hand, #flowers, #melds, #claims, #result-body, #seat, #round');
  if (!box) return null;
  var all = Array.prototype.slice.call(box.querySelectorAll('button, select, input'));
  return { box: box.id, index: all.indexOf(el), act: el.getAttribute('data-act') };
}

export function restoreFocus(key) {
  if (!key || (document.activeElement && document.activeElement !== document.body)) return;
  var el = null;
  if (key.sel) el = document.querySelector(key.sel);
  else {
    var all = $(key.box).querySelectorAll('button, select, input');
    el = all[Math.min(key.index, all.length - 1)] || null;
    if (!el) el = key.box === 'hand' || key.box === 'flowers' ? $('palette').querySelector('button') : $('h-result');
  }
  if (el) el.focus();
}

export function renderInputs() {
  var focus = focusKey(document.activeElement);
  try { renderInputsNow(); } finally { restoreFocus(focus); }
}

export function optionValue(v) {
  if (v === true) return t('yes');
  if (v === false) return t('no');
  if (v === null || v === undefined) return t('none_value');
  var names = t('opt_values');
  if (Array.isArray(v)) return v.length ? v.map(function (x) { return names[x] || x; }).join(lang === 'zh' ? '、' : ', ') : t('none_value');
  if (typeof v === 'object') return Object.keys(v).length ? String(Object.keys(v).length) : t('none_value');
  return names[v] || String(v);
}

/* An option's name in the page's language, as GET /v1/rules gives it (option_labels); its id
 * when the rules kept in this browser are older than the labels. */
export function optionLabel(id) {
  var label = optionLabels && optionLabels[id];
  return (label && label[lang]) || id;
}

export function renderRules(st) {
  var p = presetById(st.preset);
  var opts = (p && p.options) || {};
  var book = opts.rulebook || (p && p.rulebook) || rulebook;
  $('rulebook').textContent = book ? t('rulebook', book) : '';
  $('rule-options').innerHTML = Object.keys(opts).filter(function (k) { return k !== 'rulebook'; }).map(function (k) {
    return '<div class="opt" data-option="' + esc(k) + '"><dt>' + esc(optionLabel(k)) + '</dt><dd>' +
      esc(optionValue(opts[k])) + '</dd></div>';
  }).join('');
}

export function renderInputsNow() {
  applyLang();
  var st = state;
  var kinds = caishenKinds(st);

  // settings
  var ps = $('preset');
  if (presets.length) {
    ps.innerHTML = presets.map(function (p) {
      return '<option value="' + esc(p.id) + '">' + esc(presetName(p.id)) + '</option>';
    }).join('');
    if (!presetById(st.preset)) {
      ps.insertAdjacentHTML('beforeend', '<option value="' + esc(st.preset) + '">' + esc(st.preset) + '</option>');
    }
  } else {
    ps.innerHTML = '<option value="' + esc(st.preset) + '">' + esc(st.preset) + '</option>';
  }
  ps.value = st.preset;
  renderRules(st);
  renderOffline();
  segButtons($('seat'), st.seat, 'seat');
  segButtons($('round'), st.round, 'round');
  $('base').value = st.base;

  $('indicator-view').innerHTML = st.indicator
    ? tileSpan(st.indicator, 'sm', t('indicator') + ' ' + T.name(st.indicator, lang))
    : '<span class="muted">' + esc(t('no_indicator')) + '</span>';
  $('indicator-clear').hidden = !st.indicator;
  $('caishen-kinds').innerHTML = kinds.length
    ? esc(t('caishen_kinds')) + kinds.map(function (k) { return tileSpan(k, 'xs cs'); }).join('')
    : '';

  // the hand (in the sticky bar)
  var n = need(st);
  $('hand-count').textContent = t('count', total(st), n);
  var html = T.sort(st.hand).map(function (c) {
    var cs = kinds.indexOf(c) >= 0;
    return tileButton(c, cs ? 'cs' : '', t('remove_tile', cs ? t('caishen_tile', T.name(c, lang)) : T.name(c, lang)),
      'data-role="hand"');
  }).join('');
  var armed = ui.mode === 'win';
  if (armed) {
    html = T.sort(st.hand).map(function (c) {
      return tileButton(c, kinds.indexOf(c) >= 0 ? 'cs' : '', t('set_win', T.name(c, lang)), 'data-role="hand"');
    }).join('');
  }
  // the winning tile has its own slot, always shown: filled by the tile that completes the hand
  // (the player sees it go there) or chosen (tap the slot, then a tile of the hand or the palette)
  html += '<span class="win-gap" aria-hidden="true"></span>' + (st.win
    ? tileButton(st.win, 'win slot' + (kinds.indexOf(st.win) >= 0 ? ' cs' : '') + (armed ? ' armed' : ''),
      t('win_tile_label', T.name(st.win, lang)), 'id="win-slot" data-role="win" aria-pressed="' + armed + '"',
      '<span class="slot-mark" aria-hidden="true">' + esc(t('slot_mark')) + '</span>')
    : '<button type="button" id="win-slot" class="tile slot empty' + (armed ? ' armed' : '') + '" data-role="win" ' +
      'aria-pressed="' + armed + '" aria-label="' + esc(t('win_slot_empty')) + '"><span class="slot-mark">' +
      esc(t('slot_mark')) + '</span></button>');
  $('hand').innerHTML = html;
  $('hand').classList.toggle('armed', armed);
  $('bar-melds').innerHTML = st.melds.map(function (m) {
    return '<span class="bar-meld">' + meldTiles(m, 'xs') + '</span>';
  }).join('') + st.flowers.map(function (c) { return tileSpan(c, 'xs'); }).join('');
  $('undo').disabled = undoStack.length === 0;
  renderContext(st);

  // melds
  $('melds').innerHTML = st.melds.map(function (m, i) {
    var kind = m.type === 'kong' ? (m.concealed ? 'concealed' : m.added ? 'added' : 'exposed') : '';
    var fromSeats = m.type === 'chow' ? [PREV[st.seat]] : others(st.seat);
    var row = '<li class="meld" data-index="' + i + '"><span class="meld-name">' + esc(t('meld_label', i)) +
      ' · ' + esc(m.type === 'kong' ? t('k_' + kind) : t(m.type)) + '</span><span class="tiles">' +
      meldTiles(m, 'sm') + '</span>';
    if (m.type === 'kong') {
      row += '<label class="field"><span>' + esc(t('meld_kind')) + '</span><select data-act="kind" data-index="' + i +
        '">' + ['exposed', 'concealed', 'added'].map(function (k) {
        return '<option value="' + k + '"' + (k === kind ? ' selected' : '') + '>' + esc(t('k_' + k)) + '</option>';
      }).join('') + '</select></label>';
    }
    if (!(m.type === 'kong' && m.concealed)) {
      var seats = fromSeats.concat(m.from && fromSeats.indexOf(m.from) < 0 ? [m.from] : []);
      row += '<label class="field"><span>' + esc(t('from_label')) + '</span><select data-act="from" data-index="' + i +
        '">' + (m.from ? '' : '<option value="" selected></option>') + seats.map(function (s) {
          return '<option value="' + s + '"' + (s === m.from ? ' selected' : '') + '>' + esc(t('seat_opt', s)) + '</option>';
        }).join('') + '</select></label>';
    }
    row += '<button type="button" class="x" data-act="remove-meld" data-index="' + i + '" aria-label="' +
      esc(t('remove_meld', i)) + '">✕</button>';
    row += '<div class="err" data-path="hand.melds.' + i + '"></div></li>';
    return row;
  }).join('');
  $('melds-empty').hidden = st.melds.length > 0;

  // flowers
  $('flowers').innerHTML = T.sort(st.flowers).map(function (c) {
    return tileButton(c, 'sm', t('remove_tile', T.name(c, lang)), 'data-role="flower"');
  }).join('');
  $('flowers-empty').hidden = st.flowers.length > 0;

  // palette & its modes
  var m = mode();
  Array.prototype.forEach.call(document.querySelectorAll('.modes .mode'), function (b) {
    b.setAttribute('aria-pressed', String(b.getAttribute('data-mode') === ui.mode));
  });
  $('meld-builder').hidden = m.target === 'hand';
  var fromSeats = claimSeats(st);
  if (fromSeats.indexOf(ui.meldFrom) < 0) ui.meldFrom = PREV[st.seat];
  seatOptions($('meld-from'), fromSeats, ui.meldFrom);
  $('meld-from-field').hidden = m.target !== 'meld' || m.kind === 'concealed';
  $('meld-hint').textContent = m.target === 'win' ? t('win_hint') : m.target === 'indicator' ? t('indicator_hint')
    : m.target === 'run' ? t('run_hint') : m.type ? t(m.type + '_hint') : '';
  paletteLabels();

  // win context: who won and how, one tap (a row a seat: by self-draw, or off each other seat's discard)
  $('winner-grid').innerHTML = SEATS.map(function (s) {
    return '<span class="winner-name">' + esc(session ? sessionSeatLabel(s) : t('seat_opt', s)) + '</span>' +
      [s].concat(others(s)).map(function (w) {
        var on = st.seat === s && (w === s ? st.by === 'self_draw' : st.by !== 'self_draw' && st.from === w);
        return '<button type="button" data-act="winner" data-seat="' + s + '" data-from="' + (w === s ? '' : w) +
          '" aria-pressed="' + on + '" aria-label="' + esc(t('winner_cell', s, w)) + '">' +
          esc(w === s ? t('self_draw') : t('win_off', w)) + '</button>';
      }).join('');
  }).join('');
  Array.prototype.forEach.call(document.querySelectorAll('input[name="by"]'), function (r) {
    r.checked = r.value === st.by;
  });
  seatOptions($('win-from'), others(st.seat), st.from || PREV[st.seat]);
  $('win-from').disabled = st.by === 'self_draw';
  $('kong-replacement').checked = st.kr;
  seatOptions($('kong-fed-by'), others(st.seat), st.fed, true);
  $('kong-fed-by').disabled = !st.kr;
  $('last-tile').checked = st.last;
  $('heavenly').checked = st.heavenly;
  $('earthly').checked = st.earthly;
  $('discarded-caishen').checked = st.dc;
  $('claims').innerHTML = others(st.seat).map(function (s) {
    var k = st.claims[s] || 0;
    return '<span class="stepper" data-seat="' + s + '"><span class="stepper-name" id="claims-' + s + '">' +
      esc(t('claims_seat', s)) + '</span><button type="button" data-act="claim" data-seat="' + s + '" data-step="-1"' +
      (k <= 0 ? ' disabled' : '') + ' aria-label="' + esc(t('claims_less', s)) + '">−</button><output class="claim-n" ' +
      'aria-labelledby="claims-' + s + '" data-seat="' + s + '">' + k + '</output><button type="button" data-act="claim" data-seat="' +
      s + '" data-step="1"' + (k >= 4 ? ' disabled' : '') + ' aria-label="' + esc(t('claims_more', s)) + '">+</button></span>';
  }).join('');
  renderHistory();
  renderSession();
}
