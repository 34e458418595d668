/* Rendering of the answers: the score and its payments, the waits at full value, what to
 * discard (POST /v1/analyze), and a result as copyable text.
 * (A part of the calculator page: static/calc.js is the start; each part a native ES module.) */
import { I18N, PREV, SEATS, T, lang, t } from './calc-strings.js';
import { caishenKinds, concealedOf, presetById, setLastResult, state, ui } from './calc-state.js';
import { api, errorPairs, failed, failureText, plain, problemTitle, run, under, waitsRequest } from './calc-api.js';
import { $, esc, fmtSigned, meldTiles, tileSpan } from './calc-dom.js';
import { addLabel, canRecord, renderBarRecord, session } from './calc-session.js';
import { offlineWhyNot } from './calc-offline.js';
import { offline } from './calc-events.js';

/* ---- rendering: results ------------------------------------------------------------- */
/* The API's messages next to the fields they are about (never the field paths themselves). */
export function fieldErrors(problem, skip) {
  var pairs = errorPairs(problem).filter(function (pm) { return !skip || !skip(pm[0]); });
  Array.prototype.forEach.call(document.querySelectorAll('.err[data-path]'), function (el) {
    var prefixes = [el.getAttribute('data-path')];
    if (el.getAttribute('data-path2')) prefixes.push(el.getAttribute('data-path2'));
    var mine = pairs.filter(function (pm) { return under(pm[0], prefixes); });
    el.innerHTML = mine.map(function (pm) {
      return '<p>' + esc(pm[1]) + '</p>';
    }).join('');
  });
  return pairs;
}

/* A refused request as a player reads it: its title and its messages, no field paths. */
export function problemHTML(problem, pairs) {
  if (!problem) return '';
  var msgs = (pairs || []).map(function (pm) { return pm[1]; });
  var html = '<div class="problem"><p class="p-title"><strong>' + esc(problemTitle(problem)) + '</strong></p>';
  if (msgs.length) {
    html += '<ul class="p-msgs">' + msgs.map(function (m) { return '<li>' + esc(m) + '</li>'; }).join('') + '</ul>';
  } else if (problem.detail) {
    html += '<p class="p-detail">' + esc(plain(problem.detail)) + '</p>';
  }
  return html + '</div>';
}

export function offlineHTML(r) {
  r = r || { offline: true };
  var why = r.offline ? offlineWhyNot() : '';
  return '<div class="problem offline" id="offline" data-status="' + (r.offline ? 0 : r.status) + '"><p>' +
    esc(failureText(r)) + '</p>' + (why ? '<p class="muted" id="offline-why">' + esc(why) + '</p>' : '') +
    '<button type="button" id="retry" data-act="retry">' + esc(t('retry')) + '</button></div>';
}

/* A call that failed: the reason in the result and, beside it in the bar, the verdict and a retry
 * (always on screen); a 429's wait counted down second by second. */
var countdown = null;
export function stopCountdown() {
  clearInterval(countdown);
  countdown = null;
  $('bar-retry').hidden = true;
}
export function showOffline(r) {
  r = r || { offline: true };
  stopCountdown();
  $('result-body').innerHTML = offlineHTML(r);
  setVerdict(r.offline ? t('offline_verdict') : r.slow ? t('slow_verdict') : t('v_error'), 'no');
  setPay('');
  $('result-copy').hidden = true;
  $('bar-retry').hidden = false;
  if (r.status === 429 && r.retryAfter > 0) {
    var left = r.retryAfter;
    var tick = function () {
      var p = $('offline') && $('offline').querySelector('p');
      if (p) p.textContent = t('err_429', left);
      setVerdict(t('wait_verdict', left), 'no');
      if (left <= 0) { clearInterval(countdown); countdown = null; }
      left--;
    };
    tick();
    countdown = setInterval(tick, 1000);
  }
}

/* An item's name in the page's language; a pung item (中发白刻/杠, 位风刻/杠, 圈风刻/杠) named with its
 * tile and as a pung or a kong, as the answer's tiles and decomposition say. */
export function itemName(it, d) {
  var named = t('item_tile')[it.id];
  var c = it.tiles && it.tiles.length === 1 ? it.tiles[0] : null;
  if (named && c) {
    var sets = d && d.decomposition && d.decomposition.sets || [];
    var kong = sets.some(function (x) { return x.type === 'kong' && x.tiles[0] === c; });
    return named(T.name(c, lang), kong);
  }
  return lang === 'zh' ? it.name : it.name_en || it.name;
}

/* The 台 items in the page's language only. */
export function itemsHTML(d) {
  var rows = (d.items || []).map(function (it) {
    var tiles = (it.tiles || []).map(function (c) { return tileSpan(c, 'xs'); }).join('');
    return '<tr data-item="' + esc(it.id) + '"' + (it.bonus ? ' class="bonus"' : '') + '>' +
      '<td class="item-name">' + esc(itemName(it, d)) +
      (it.bonus ? ' <span class="badge">' + esc(t('bonus')) + '</span>' : '') +
      '</td><td class="num">' + esc(it.tai) + '</td><td class="item-tiles">' + tiles + '</td></tr>';
  }).join('');
  return '<table class="items"><caption>' + esc(t('items')) + '</caption><thead><tr><th scope="col">' +
    esc(t('col_item')) + '</th><th scope="col" class="num">' +
    esc(t('col_tai')) + '</th><th scope="col">' + esc(t('col_tiles')) + '</th></tr></thead><tbody>' + rows +
    '</tbody><tfoot><tr><th scope="row">' + esc(t('total')) + '</th><td class="num" id="items-total">' +
    esc(d.tai) + '</td><td></td></tr></tfoot></table>';
}
export function decompositionHTML(d) {
  var dec = d.decomposition;
  if (!dec) return '';
  var groups = [];
  if (dec.pair) groups.push({ type: 'pair', tiles: dec.pair.slice(), source: 'concealed' });
  var ckongs = state.melds.filter(function (m) { return m.type === 'kong' && m.concealed; }).map(function (m) { return m.tiles[0]; });
  (dec.sets || []).forEach(function (s) {
    var ck = s.source === 'meld' && s.type === 'kong' && ckongs.indexOf(s.tiles[0]) >= 0;
    if (ck) ckongs.splice(ckongs.indexOf(s.tiles[0]), 1);
    groups.push({ type: s.type, tiles: s.tiles.slice(), source: s.source, ckong: ck });
  });
  var marks = groups.map(function (g) { return g.tiles.map(function () { return null; }); });

  // caishen: mark one concealed copy of each assigned face
  (dec.caishen || []).forEach(function (cs) {
    for (var gi = 0; gi < groups.length; gi++) {
      if (groups[gi].source === 'meld') continue;
      var idx = -1;
      groups[gi].tiles.forEach(function (c, j) { if (idx < 0 && c === cs.face && !marks[gi][j]) idx = j; });
      if (idx >= 0) { marks[gi][idx] = { cs: cs.tile }; return; }
    }
  });
  // the winning tile: in the group its wait says
  var w = dec.winning_tile || d.winning_tile;
  if (w) {
    var want = { single: ['pair'], dual_pung: ['pung', 'kong'], two_sided: ['chow'], edge: ['chow'], closed: ['chow'] }[dec.wait] ||
      ['pair', 'chow', 'pung', 'kong'];
    var done = false;
    groups.forEach(function (g, gi) {
      if (done || g.source === 'meld' || want.indexOf(g.type) < 0) return;
      var j = g.tiles.indexOf(w);
      if (j >= 0) { marks[gi][j] = marks[gi][j] || {}; marks[gi][j].win = true; done = true; }
    });
  }
  var html = '<h3>' + esc(t('decomposition')) + '</h3>';
  if (dec.wait) {
    html += '<p class="wait">' + esc(t('wait')) + (lang === 'zh' ? '：' : ': ') + '<strong id="wait-kind">' +
      esc((t('waits_kind') || {})[dec.wait] || dec.wait) + '</strong></p>';
  }
  html += '<div class="decomp">' + groups.map(function (g, gi) {
    return '<figure class="group ' + g.source + (g.ckong ? ' ckong' : '') + '"><div class="tiles">' + (g.ckong
      ? meldTiles({ type: 'kong', concealed: true, tiles: g.tiles }, 'sm')
      : g.tiles.map(function (c, j) {
      var m = marks[gi][j] || {};
      var cls = 'sm' + (m.cs ? ' cs as' : '') + (m.win ? ' win' : '');
      var label = T.name(c, lang);
      if (m.cs) label = t('caishen_as', T.name(m.cs, lang), T.name(c, lang));
      var badge = m.cs ? '<span class="cs-badge" aria-hidden="true">' + esc(t('caishen_badge')) + '</span>' : '';
      return '<span class="tile ' + cls + '" role="img" aria-label="' + esc(label) + '" data-tile="' + c +
        '"' + (m.cs ? ' data-caishen="' + m.cs + '"' : '') + '>' + T.svg(c) + badge + '</span>';
    }).join('')) + '</div><figcaption>' + (g.ckong ? esc(t('source').ckong)
      : esc(t('set_kind')[g.type] || g.type) + ' · ' + esc(t('source')[g.source] || g.source)) + '</figcaption></figure>';
  }).join('') + '</div>';
  if ((dec.caishen || []).length) {
    html += '<p class="cs-list">' + esc(t('caishen_list')) + dec.caishen.map(function (cs) {
      return '<span class="cs-pair">' + tileSpan(cs.tile, 'xs cs') + '→' + tileSpan(cs.face, 'xs') + '</span>';
    }).join(' ') + '</p>';
  }
  return html;
}

export var SEAT_POS = { E: [150, 262], S: [262, 150], W: [150, 38], N: [38, 150] };

export function paymentsHTML(d, winner) {
  var pays = d.payments || [];
  var net = d.net || {};
  var arrows = pays.map(function (p) {
    var a = SEAT_POS[p.from];
    var b = SEAT_POS[p.to];
    if (!a || !b) return '';
    var dx = b[0] - a[0];
    var dy = b[1] - a[1];
    var len = Math.sqrt(dx * dx + dy * dy);
    var cut = 58;
    var x1 = a[0] + dx * cut / len;
    var y1 = a[1] + dy * cut / len;
    var x2 = b[0] - dx * cut / len;
    var y2 = b[1] - dy * cut / len;
    var mx = (x1 + x2) / 2 - dy / len * 12;
    var my = (y1 + y2) / 2 + dx / len * 12;
    return '<line x1="' + x1.toFixed(1) + '" y1="' + y1.toFixed(1) + '" x2="' + x2.toFixed(1) + '" y2="' +
      y2.toFixed(1) + '" marker-end="url(#pay-arrow)"/>' +
      '<text x="' + mx.toFixed(1) + '" y="' + my.toFixed(1) + '" text-anchor="middle" dominant-baseline="central">' +
      esc(p.amount) + '</text>';
  }).join('');
  var seats = SEATS.map(function (s) {
    var n = net[s] || 0;
    return '<div class="seat seat-' + s + (s === winner ? ' winner' : '') + '" data-seat="' + s + '">' +
      '<span class="seat-name">' + esc(I18N[lang].seat_names[s]) + '</span>' +
      (s === 'E' || s === winner ? '<span class="seat-tags">' + (s === 'E' ? '<small>' + esc(t('dealer')) + '</small>' : '') +
        (s === winner ? ' <small class="w">' + esc(t('winner')) + '</small>' : '') + '</span>' : '') +
      '<span class="net ' + (n > 0 ? 'pos' : n < 0 ? 'neg' : '') + '" id="net-' + s + '" data-net="' + n + '">' +
      esc(fmtSigned(n)) + '</span><span class="net-label">' + esc(t('net')) + '</span></div>';
  }).join('');
  var html = '<h3>' + esc(t('payments')) + '</h3><div class="table-fig">' +
    '<svg class="arrows" viewBox="0 0 300 300" aria-hidden="true" focusable="false"><defs>' +
    '<marker id="pay-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">' +
    '<path d="M0,0 L10,5 L0,10 z"/></marker></defs><rect class="felt" x="70" y="70" width="160" height="160" rx="14"/>' +
    arrows + '</svg>' + seats + '</div>';
  if (pays.length) {
    html += '<table class="pays"><thead><tr><th scope="col">' + esc(t('pay_from')) + '</th><th scope="col">' +
      esc(t('pay_to')) + '</th><th scope="col" class="num">' + esc(t('pay_amount')) + '</th><th scope="col">' +
      esc(t('pay_reason')) + '</th></tr></thead><tbody>' + pays.map(function (p) {
      var reason = (t('reasons')[p.reason] || p.reason || '') +
        (p.multiplier !== undefined ? ' ×' + p.multiplier : '') +
        (p.liability ? ' · ' + (t('liability')[p.liability] || p.liability) : '');
      return '<tr><td>' + esc(I18N[lang].seat_names[p.from] || p.from) + '</td><td>' +
        esc(I18N[lang].seat_names[p.to] || p.to) + '</td><td class="num">' + esc(p.amount) + '</td><td>' +
        esc(reason) + '</td></tr>';
    }).join('') + '</tbody></table>';
  } else {
    html += '<p class="muted">' + esc(t('no_payments')) + '</p>';
  }
  return html;
}


export function setPay(text, cls) {
  var el = $('bar-pay');
  el.textContent = text || '';
  el.className = 'bar-line bar-pay' + (cls ? ' ' + cls : '');
}

/* Who pays what, in one line: "东、西、北各付 6 → 南家收 18", "西家付 10 → 南家收 10". */
export function payText(d, winner) {
  var pays = (d.payments || []).filter(function (p) { return p.to === winner; });
  if (!d.eligible || !pays.length) return d.eligible ? '' : t('pay_none');
  var got = (d.net && typeof d.net[winner] === 'number') ? d.net[winner] : sum(pays);
  var capped = pays.some(function (p) { return p.multiplier !== undefined && p.amount < p.multiplier * d.points; });
  var same = pays.every(function (p) { return p.amount === pays[0].amount; });
  var text = same ? t('pay_each', pays.map(function (p) { return p.from; }), pays[0].amount, winner, got)
    : t('pay_list', pays.map(function (p) { return t('pay_part', p.from, p.amount); }), winner, got);
  return text + (capped ? t('capped', capOf(d)) : '');
}

export function capOf(d) {
  var p = presetById(state.preset);
  var cap = p && p.options ? p.options.hand_cap : null;
  return cap || Math.max.apply(null, (d.payments || []).map(function (x) { return x.amount; }));
}

export function openContext(open) {
  var card = $('win-card');
  var panel = $('bar-panel');
  ui.ctxOpen = open;
  if (open) {
    panel.appendChild(card);
    $('ctx-done').textContent = t('done');
    // as tall as the screen below the bar allows (the header may still be in view)
    panel.style.maxHeight = Math.max(200, window.innerHeight - $('bar').getBoundingClientRect().bottom - 8) + 'px';
  } else {
    $('palette-card').insertAdjacentElement('afterend', card);
  }
  panel.hidden = !open;
  $('bar-context').setAttribute('aria-expanded', String(open));
}

/* The win the verdict assumes, in one line of the bar: seat, how, from whom, the flags. */
export function renderContext(st) {
  var parts = [t('ctx_seat', st.seat), t('ctx_round', st.round)];
  parts.push(st.by === 'self_draw' ? t('ctx_self') : st.by === 'discard' ? t('ctx_disc', st.from) : t('ctx_rob', st.from));
  if (st.kr) parts.push(t('kong_replacement'));
  if (st.last) parts.push(t('last_tile'));
  if (st.heavenly) parts.push(t('heavenly'));
  if (st.earthly) parts.push(t('earthly'));
  if (st.dc) parts.push(t('ctx_dc'));
  SEATS.forEach(function (s) { if (s !== st.seat && st.claims[s]) parts.push(t('ctx_claims', s, st.claims[s])); });
  parts.push(st.indicator ? t('ctx_cs', caishenKinds(st).map(function (c) { return T.name(c, lang); }).join('') ||
    T.name(st.indicator, lang)) : t('ctx_no_cs'));
  $('bar-context').innerHTML = '<span class="ctx">' + esc(parts.join(' · ')) + '</span>';
}

export function setVerdict(text, cls) {
  var el = $('verdict');
  el.textContent = text;
  el.className = 'verdict-line' + (cls ? ' ' + cls : '');
}

export function renderScore(d) {
  var ok = !!d.eligible;
  var html = '<div class="verdict ' + (ok ? 'ok' : 'no') + '">' +
    '<p class="big"><span id="tai-total">' + esc(d.tai) + '</span> ' + esc(t('tai')) + '</p>' +
    '<p class="counted">' + esc(t('counted')) + ' <strong id="counted-tai">' + esc(d.counted_tai) + '</strong> ' +
    (ok ? '≥' : '&lt;') + ' ' + esc(t('min')) + ' <strong id="min-tai">' + esc(d.min_tai) + '</strong></p>' +
    '<p class="badge-line"><span class="badge ' + (ok ? 'ok' : 'no') + '" id="eligible">' +
    esc(ok ? t('eligible') : t('not_eligible')) + '</span>' +
    (ok ? ' <span class="points">' + esc(t('points')) + ' <strong id="points">' + esc(d.points) + '</strong></span>' : '') +
    '</p></div>';
  var capped = (d.payments || []).filter(function (p) { return p.multiplier !== undefined && p.amount < p.multiplier * d.points; });
  if (ok && capped.length) {
    var due = (d.payments || []).filter(function (p) { return p.to === state.seat; })
      .reduce(function (a, p) { return a + (p.multiplier || 1) * d.points; }, 0);
    html += '<p class="cap-note" id="cap-note">' + esc(t('cap_note', capOf(d), due)) + '</p>';
  }
  if (session) {        // an evening on: the hand joins it from here too
    html += '<p class="ses-from-result"><button type="button" id="ses-add-result" data-act="ses-add">' +
      esc(addLabel(true)) + '</button></p>';
  }
  if (d.reasons && d.reasons.length) {
    html += '<ul class="reasons" id="reasons">' + d.reasons.map(function (r) { return '<li>' + esc(r) + '</li>'; }).join('') + '</ul>';
  }
  html += '<div class="score-grid"><div class="score-main">' + itemsHTML(d) + decompositionHTML(d) +
    '</div><div class="score-pay">' + paymentsHTML(d, state.seat) + '</div></div>';
  html += '<div id="analysis" class="analysis"><button type="button" id="analysis-show" data-act="analysis">' +
    esc(t('analysis_show')) + '</button></div>';
  $('result-body').innerHTML = html;
  setVerdict(t('v_score', d, state.win ? T.name(state.win, lang) : ''), ok ? 'ok' : 'no');
  setPay(payText(d, state.seat), ok ? '' : 'muted');
}

/* ---- the waits at full value -------------------------------------------------------- */
export function sum(list) { return list.reduce(function (a, p) { return a + p.amount; }, 0); }

/* "3 × 8" when every payment is the same amount, else the amounts added up. */
export function sharesText(pays, points) {
  if (!pays.length) return '';
  var same = pays.every(function (p) { return p.amount === pays[0].amount; });
  if (same && pays.length > 1) return pays.length + ' × ' + pays[0].amount;
  return pays.map(function (p) {
    return p.multiplier > 1 && p.amount === p.multiplier * points ? p.multiplier + ' × ' + points : String(p.amount);
  }).join(' + ');
}

export function eligibleValue(v) { return !!(v && typeof v.tai === 'number' && v.eligible); }

/* A wait's self-draw: what the winner collects in all; a discard: what the discarder pays. */
export function valueHTML(v, how, seat, discarder) {
  if (!v) return '';
  if (typeof v.tai === 'number') {
    if (!v.eligible) return '<span class="val no">✗ ' + esc(t('below', v)) + '</span>';
    var pays = v.payments || [];
    var text;
    var detail;
    if (how === 'self') {
      var got = (v.net && typeof v.net[seat] === 'number') ? v.net[seat] : sum(pays);
      text = t('self_value', v, got);
      detail = sharesText(pays.filter(function (p) { return p.to === seat; }), v.points);
    } else {
      var mine = pays.filter(function (p) { return p.from === discarder; });
      text = t('disc_value', v, discarder, sum(mine));
      detail = sharesText(mine, v.points);
    }
    return '<span class="val ok">✓ ' + esc(text) + (detail ? esc(t('shares', detail)) : '') + '</span>';
  }
  return '<span class="val no">✗ ' + esc(v.title || t('problem')) + '</span><small class="val-detail">' +
    esc(v.detail || '') + '</small>';
}

export function waitEligible(w) { return eligibleValue(w.self_draw) || eligibleValue(w.discard); }

export function renderWaits(d) {
  var waits = d.waits || [];
  var kinds = d.tiles || [];
  if (!kinds.length) waits.forEach(function (w) { kinds = kinds.concat(w.same_for || [w.tile]); });
  var unseen = typeof d.unseen_total === 'number' ? d.unseen_total
    : waits.reduce(function (a, w) { return a + (w.unseen_total || w.unseen || 0); }, 0);
  var seat = state.seat;
  var discarder = d.discard_from || PREV[seat];
  var html = '<h3>' + esc(t('waits')) + ' <small id="waits-count">' + esc(t('waits_count', kinds.length, unseen)) +
    '</small></h3>';
  if (d.any_tile) html += '<p class="any">' + esc(t('any_tile')) + '</p>';
  if (!waits.length) {
    html += '<p>' + esc(t('waits_none')) + '</p>';
  } else {
    var fromText = ' (' + t('discard_by', discarder) + ')';
    html += '<table class="waits"><thead><tr><th scope="col">' + esc(t('col_wait')) + '</th><th scope="col" class="num">' +
      esc(t('col_unseen')) + '</th><th scope="col">' + esc(t('col_ok')) + '</th><th scope="col">' + esc(t('col_self')) +
      '</th><th scope="col">' + esc(t('col_discard')) + ' <small>' + esc(fromText) + '</small></th><th scope="col">' +
      '<span class="sr">' + esc(t('col_try')) + '</span></th></tr></thead><tbody>' +
      waits.map(function (w) {
        var tiles = w.same_for && w.same_for.length > 1 ? w.same_for : [w.tile];
        var cell = tiles.length > 1
          ? '<span class="tiles">' + tiles.map(function (c) { return tileSpan(c, 'xs'); }).join('') + '</span>'
          : '<span class="wait-tile">' + tileSpan(w.tile, 'sm') + '<span class="tname">' + esc(T.name(w.tile, lang)) +
            '</span></span>';
        var n = tiles.length > 1 && typeof w.unseen_total === 'number' ? w.unseen_total : w.unseen;
        var ok = waitEligible(w);
        return '<tr data-wait="' + esc(w.tile) + '" data-eligible="' + ok + '"><th scope="row">' + cell +
          '</th><td class="num" data-label="' + esc(t('col_unseen')) + '">' + esc(n) + '</td><td class="ok-cell">' +
          '<span class="elig ' + (ok ? 'ok' : 'no') + '">' + esc((ok ? '✓ ' : '✗ ') + (ok ? t('can_win') : t('cannot_win'))) +
          '</span></td><td class="self" data-label="' + esc(t('col_self')) + '">' + valueHTML(w.self_draw, 'self', seat) +
          '</td><td class="disc" data-label="' + esc(t('col_discard') + fromText) + '">' +
          valueHTML(w.discard, 'discard', seat, discarder) + '</td><td class="try-cell"><button type="button" class="try" ' +
          'data-act="try" data-tile="' + esc(w.tile) + '" aria-label="' + esc(t('try_win', T.name(w.tile, lang))) + '">' +
          esc(t('col_try')) + '</button></td></tr>';
      }).join('') + '</tbody></table>';
  }
  if (!waits.length && !d.any_tile) html += '<div id="analysis" class="analysis"></div>';
  $('result-body').innerHTML = html;
  var okCount = waits.filter(waitEligible).length;
  setVerdict(t('v_waits', kinds.length, okCount), okCount ? 'ok' : 'no');
  setPay(kinds.length ? t('bar_waits', kinds.map(function (c) { return T.name(c, lang); })) : '');
}

/* ---- what to discard (POST /v1/analyze) --------------------------------------------- */
export function tileCounts(list, key) {
  return '<span class="tcounts">' + list.map(function (x) {
    return '<span class="tcount" data-tile="' + esc(x.tile) + '">' + tileSpan(x.tile, 'xs') +
      '<span class="n">' + esc(x[key]) + '</span></span>';
  }).join('') + '</span>';
}

export var DISCARDS_SHOWN = 3;
/* The discards are ranked by value (POST /v1/analyze, objective value) over this many draws:
   with 2 every hand is computed in milliseconds; with 8 a hand near a win is too, but a hand of
   14 tiles far from ready passes the model's bound and comes back null (bench/README.md,
   "Advice by value"). */
export var VALUE_DRAWS = 2;

/* A discard's chance to win and points on average, or a dash when the service left them null. */
export function valueCell(x) {
  if (x.win_probability == null || x.expected_points == null) return esc(t('none'));
  return esc(t('value_cell', (100 * x.win_probability).toFixed(1), x.expected_points.toFixed(2)));
}

export function analysisHTML(d) {
  if (!d.discards) {        // 13 tiles, not ready: how far from ready, and the tiles that help
    return '<h3 id="analysis-title">' + esc(t('analysis')) + ' <small id="analysis-shanten">' +
      esc(t('shanten', d.shanten)) + '</small></h3><p class="improving">' + esc(t('col_improving')) + ' ' +
      tileCounts(d.improving || [], 'unseen') + ' <small class="imp-total">' + esc(t('improving_total', d.improving_unseen || 0)) +
      '</small></p>';
  }
  var rows = d.discards.map(function (x, i) {
    var eligible = (x.waits || []).filter(waitEligible).map(function (w) { return { tile: w.tile, unseen: w.unseen }; });
    return '<tr data-discard="' + esc(x.discard) + '"' + (i >= DISCARDS_SHOWN ? ' class="more-row" hidden' : '') +
      '><th scope="row">' + tileSpan(x.discard, 'sm') + '</th>' +
      '<td class="shanten" data-shanten="' + esc(x.shanten) + '">' + esc(t('shanten', x.shanten)) + '</td>' +
      '<td class="improving" data-label="' + esc(t('col_improving')) + '">' + tileCounts(x.improving || [], 'unseen') + ' <small class="imp-total">' +
      esc(t('improving_total', x.improving_unseen || 0)) + '</small></td>' +
      '<td class="eligible-waits" data-label="' + esc(t('col_eligible')) + '">' + (x.shanten === 0 && eligible.length
        ? tileCounts(eligible, 'unseen') + ' <small class="elig-total">' + esc(t('eligible_total', x.eligible_unseen || 0)) + '</small>'
        : esc(t('none'))) + '</td>' +
      '<td class="value" data-label="' + esc(t('col_value', VALUE_DRAWS)) + '">' + valueCell(x) + '</td>' +
      '<td class="drop-cell"><button type="button" class="try" data-act="drop" data-tile="' + esc(x.discard) + '" aria-label="' +
      esc(t('drop', T.name(x.discard, lang))) + '">' + esc(t('col_drop')) + '</button></td></tr>';
  }).join('');
  return '<h3 id="analysis-title">' + esc(t('analysis')) + ' <small id="analysis-shanten">' + esc(t('shanten', d.shanten)) +
    '</small></h3><table class="discards"><thead><tr><th scope="col">' + esc(t('col_drop')) + '</th><th scope="col">' +
    esc(t('col_shanten')) + '</th><th scope="col">' + esc(t('col_improving')) + '</th><th scope="col">' +
    esc(t('col_eligible')) + '</th><th scope="col">' + esc(t('col_value', VALUE_DRAWS)) + '</th><th scope="col"><span class="sr">' +
    esc(t('col_drop')) + '</span></th></tr></thead><tbody>' +
    rows + '</tbody></table>' + (d.discards.length > DISCARDS_SHOWN
    ? '<button type="button" id="more-discards" data-act="more-discards">' +
      esc(t('more_discards', d.discards.length - DISCARDS_SHOWN)) + '</button>' : '');
}

/* The bar's second line for a hand that is no win (14 tiles) or not ready (13). */
export function analysisLine(d) {
  if (!d.discards) return t('bar_shanten', d.shanten);
  var best = d.discards[0];
  if (!best) return '';
  return t('bar_best', T.name(best.discard, lang), best.shanten === 0 ? (best.improving || []).length : 0) +
    (best.shanten > 0 ? ' · ' + t('bar_shanten', best.shanten) : '');
}

export function loadAnalysis(st, into, line) {
  var body = waitsRequest(st, concealedOf(st));
  body.objective = 'value';
  body.draws_left = VALUE_DRAWS;
  return api('POST', '/v1/analyze', body).then(function (r) {
    var box = $(into);
    if (!box) return r;
    if (failed(r)) box.innerHTML = offlineHTML(r);
    else if (r.ok) {
      box.innerHTML = analysisHTML(r.data);
      if (line) setPay(analysisLine(r.data));
    }
    else box.innerHTML = problemHTML(r.data || {}, errorPairs(r.data));
    return r;
  });
}

/* ---- a result as text (copyable) ---------------------------------------------------- */
/* Tiles written short in the page's language: 23678m99s in English, 二三六七八万 九九条 in Chinese. */
export var SUIT_ZH = { m: '万', p: '饼', s: '条' };
export function short(tiles) {
  if (lang !== 'zh') return T.toCompact(tiles);
  var out = [];
  var run = '';
  var suit = '';
  tiles.forEach(function (c) {
    if (T.isSuited(c)) {
      if (suit && suit !== c[1]) { out.push(run + SUIT_ZH[suit]); run = ''; }
      suit = c[1];
      run += c[0];
    } else {
      if (suit) { out.push(run + SUIT_ZH[suit]); run = ''; suit = ''; }
      out.push(T.isHonor(c) ? { E: '东', S: '南', W: '西', N: '北', C: '中', F: '发', P: '白' }[c] : T.name(c, 'zh'));
    }
  });
  if (suit) out.push(run + SUIT_ZH[suit]);
  return out.join(' ');
}

export function handText(st) {
  var parts = [t('txt_hand') + ' ' + short(T.sort(st.hand)) + (st.win ? ' ' + t('txt_win_on') + ' ' +
    (lang === 'zh' ? T.name(st.win, lang) : st.win) : '')];
  if (st.melds.length) parts.push(t('txt_melds') + ' ' + st.melds.map(function (m) { return short(m.tiles); }).join(' '));
  if (st.flowers.length) parts.push(t('txt_flowers') + ' ' + short(T.sort(st.flowers)));
  if (st.indicator) {
    parts.push(t('txt_caishen') + ' ' + caishenKinds(st).map(function (c) { return lang === 'zh' ? T.name(c, lang) : c; }).join(' '));
  }
  return parts.join(' · ');
}

export function presetName(id) {
  var p = presetById(id);
  if (!p) return id;
  return lang === 'zh' ? p.name || id : p.name_en || id;
}

export function resultText(st, kind, d) {
  var sep = lang === 'zh' ? '，' : ', ';
  var lines = [t('txt_title') + ' · ' + presetName(st.preset), t('txt_seat', st.seat, st.round), handText(st)];
  if (kind === 'score') {
    lines.push(t('txt_items') + ': ' + (d.items || []).map(function (it) { return itemName(it, d) + ' ' + it.tai; }).join(sep) +
      ' = ' + d.tai + ' ' + t('tai'));
    lines.push(t('v_score', d));
    lines.push(t('txt_net') + ': ' + SEATS.map(function (s) {
      return I18N[lang].seat_names[s] + ' ' + fmtSigned((d.net || {})[s] || 0);
    }).join(sep));
  } else {
    var discarder = d.discard_from || PREV[st.seat];
    (d.waits || []).forEach(function (w) {
      var v = [];
      [['self', w.self_draw, t('col_self')], ['discard', w.discard, t('col_discard')]].forEach(function (x) {
        var el = document.createElement('div');
        el.innerHTML = valueHTML(x[1], x[0], st.seat, discarder);
        v.push(x[2] + ' ' + el.textContent.replace(/\s+/g, ' ').trim());
      });
      lines.push(T.name(w.tile, lang) + ': ' + v.join(sep));
    });
  }
  return lines.join('\n');
}

export function showResultText(kind, d) {
  setLastResult({ kind: kind, data: d });
  $('result-text').textContent = resultText(state, kind, d);
  $('result-copy').hidden = false;
  ['ses-add', 'ses-add-result'].forEach(function (id) { if ($(id)) $(id).disabled = !canRecord(); });
  renderBarRecord();
}
