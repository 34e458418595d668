/* What a tap does: a tile into the hand, a meld, the winning tile, the caishen indicator, Undo.
 * (A part of the calculator page: static/calc.js is the start; each part a native ES module.) */
import { PREV, T } from './calc-strings.js';
import { caishenKinds, clone, mode, need, setState, state, total, ui } from './calc-state.js';
import { decode, encode, hasHand, lastHash, saveUndo, setLastHash, undoStack } from './calc-url.js';
import { api, change, errorPairs, firstMessage, notice, run, scoreRequest } from './calc-api.js';
import { $, claimSeats } from './calc-dom.js';
import { renderInputs } from './calc-inputs.js';
import { commit, linkCheck } from './calc-refresh.js';
import { askIncoming, renderSession, sessionFromLink, settle, startSession } from './calc-session.js';

/* ---- actions ------------------------------------------------------------------------ */
export function backToHand() { ui.mode = 'hand'; }

export function addToHand(c) {
  var kinds = caishenKinds(state);
  if (T.isFlower(c) && kinds.indexOf(c) < 0) {
    return change(function (st) { st.flowers.push(c); }, { copies: true, paths: ['hand.flowers'] });
  }
  return addTiles([c]);
}

export function addTiles(tiles) {
  return change(function (st) {
    if (st.win) { st.hand.push(st.win); st.win = null; }
    tiles.forEach(function (c) { st.hand.push(c); });
    if (total(st) >= need(st)) st.win = st.hand.pop();
  }, { copies: true, full: true });
}

export function runTiles(c) {
  return [c, (+c[0] + 1) + c[1], (+c[0] + 2) + c[1]];
}

export function addMeld(c) {
  var m = mode();
  var meld = { type: m.type };
  if (m.type === 'chow') meld.tiles = runTiles(c);
  else meld.tiles = m.type === 'pung' ? [c, c, c] : [c, c, c, c];
  if (m.kind === 'concealed') meld.concealed = true;
  else meld.from = claimSeats(state).indexOf(ui.meldFrom) >= 0 ? ui.meldFrom : PREV[state.seat];
  if (m.kind === 'added') meld.added = true;
  return change(function (st) {
    var tot = total(st);
    st.melds.push(meld);
    // keep the tiles already in hand; a full hand drops the winning-tile slot first
    if (tot > need(st) && st.win) { st.hand.push(st.win); st.win = null; }
  }, { copies: true, paths: ['hand.melds'], after: backToHand });
}

export function setIndicator(c) {
  return change(function (st) { st.indicator = c; }, { copies: true, paths: ['caishen', 'hand.melds'], after: backToHand });
}

/* The winning-tile slot: the tile tapped goes there (a tile already there is put back). */
export function setWin(c) {
  return change(function (st) {
    if (total(st) >= need(st)) st.win = null;                // a full hand: the new tile replaces it
    else if (st.win) { st.hand.push(st.win); st.win = null; }
    if (total(st) === need(st) - 1) st.win = c;
    else st.hand.push(c);
  }, { copies: true, full: true, after: backToHand });
}

/* A tile of the hand made the winning tile: it changes places with the one in the slot. */
export function swapWin(c) {
  return change(function (st) {
    var i = st.hand.indexOf(c);
    if (i < 0) return;
    st.hand.splice(i, 1);
    if (st.win) st.hand.push(st.win);
    st.win = c;
  }, { paths: ['hand.winning_tile', 'win'], after: backToHand });
}

export function onPalette(c) {
  var m = mode();
  if (m.target === 'indicator') return setIndicator(c);
  if (T.isFlower(c) && caishenKinds(state).indexOf(c) < 0) return addToHand(c);
  if (m.target === 'win') return setWin(c);
  if (m.target === 'meld') return addMeld(c);
  if (m.target === 'run') return addTiles(runTiles(c));
  return addToHand(c);
}

export function removeFromHand(c, role) {
  return change(function (st) {
    if (role === 'win') { st.win = null; return; }
    var i = st.hand.indexOf(c);
    if (i >= 0) st.hand.splice(i, 1);
  });
}

export function quickAdd(text) {
  var parsed = T.parseCompact(text);
  if (parsed.bad.length) {
    return run(function () {
      var req = scoreRequest(clone(state));
      req.hand.concealed = text;
      return api('POST', '/v1/score', req).then(function (r) {
        var pairs = errorPairs(r.data).filter(function (pm) { return pm[0].indexOf('hand.concealed') === 0; });
        notice(pairs.length ? pairs[0][1] : firstMessage(r.data) || parsed.bad.join(' '));
      });
    });
  }
  var chain = Promise.resolve(true);
  parsed.tiles.forEach(function (c) {
    chain = chain.then(function (ok) {
      if (!ok) return false;
      var before = encode(state);
      return onPalette(c).then(function () { return $('notice').hidden || encode(state) !== before; });
    });
  });
  return chain.then(function (ok) { if (ok) $('quick-text').value = ''; });
}

export function undo() {
  if (!undoStack.length) return;
  var h = undoStack.pop();
  saveUndo();
  run(function () {
    setState(decode(h));
    setLastHash(h);
    notice(null);
    return commit(false);
  });
}

/* A link to a hand opened in this tab (a recent hand, say): a new hand, undoable. */
export function onNavigate() {
  if (location.hash === lastHash) return;
  if (location.hash && location.hash.indexOf('=') < 0) return;     // an in-page anchor, not a hand
  if (sessionFromLink(location.hash)) {                           // an evening's link
    var opened = startSession(location.hash);
    history.replaceState(null, '', location.pathname + location.search + lastHash);
    askIncoming();
    if (opened) run(function () { return settle().then(function () { renderSession(); renderInputs(); }); });
    return;
  }
  var h = location.hash;
  if (lastHash) { undoStack.push(lastHash); saveUndo(); }
  setLastHash(h);           // popstate and hashchange both come for one navigation
  run(function () {
    setState(decode(h));
    notice(null);
    $('link-problem').hidden = true;
    return (hasHand(state) ? linkCheck() : Promise.resolve()).then(function () { return commit(false); });
  });
}
