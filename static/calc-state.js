/* The hand being built (state), what the page knows of the rules (presets), and the hand's arithmetic.
 * (A part of the calculator page: static/calc.js is the start; each part a native ES module.) */
import { MODES, PREV, T } from './calc-strings.js';

/* ---- state -------------------------------------------------------------------------- */
export function blank() {
  return {
    preset: 'ningbo', seat: 'E', round: 'E', indicator: null,
    hand: [], win: null, melds: [], flowers: [],
    by: 'self_draw', from: '', kr: false, fed: '', last: false, heavenly: false, earthly: false,
    dc: false, claims: { E: 0, S: 0, W: 0, N: 0 }, base: 1
  };
}

export var state = blank();
export var ui = { mode: 'hand', meldFrom: '', analysisOpen: false };
export var presets = [];
export var rulebook = null;
export var optionLabels = null;   // {option id: {en, zh}} of GET /v1/rules
export var baseline = null;     // last problem the API gave for the current state
export var lastResult = null;   // {kind: 'score'|'waits', data} of the current state, for the text summary

/* The shared variables above change only through these (a module's imports are read-only). */
export function setState(st) { state = st; }
export function setBaseline(problem) { baseline = problem; }
export function setLastResult(r) { lastResult = r; }
export function setRules(data) {
  presets = data.presets;
  rulebook = data.rulebook || null;
  optionLabels = data.option_labels || null;
}

export function clone(o) { return JSON.parse(JSON.stringify(o)); }
export function need(st) { return 14 - 3 * st.melds.length; }
export function concealedOf(st) { return st.hand.concat(st.win ? [st.win] : []); }
export function total(st) { return st.hand.length + (st.win ? 1 : 0); }
export function mode() { return MODES[ui.mode]; }

export function normalize(st) {
  var n = need(st);
  if (st.win && total(st) < n) { st.hand.push(st.win); st.win = null; }
  if (!st.win && total(st) === n && st.hand.length) st.win = st.hand.pop();
  st.claims[st.seat] = 0;
  if (st.by !== 'self_draw' && (!st.from || st.from === st.seat)) st.from = PREV[st.seat];
  if (st.fed === st.seat) st.fed = '';
  if (!st.kr) st.fed = '';
  return st;
}

export function presetById(id) {
  for (var i = 0; i < presets.length; i++) if (presets[i].id === id) return presets[i];
  return null;
}

export function caishenKinds(st) {
  var p = presetById(st.preset);
  var rule = p && p.options ? p.options.caishen_rule : 'indicator';
  return T.caishenKinds(st.indicator, rule);
}

/* Copies of each kind in use: the hand, the melds, the flowers and the indicator. */
export function usedCounts(st) {
  var counts = {};
  var all = concealedOf(st).concat(st.flowers);
  st.melds.forEach(function (m) { all = all.concat(m.tiles); });
  if (st.indicator) all.push(st.indicator);
  all.forEach(function (c) { counts[c] = (counts[c] || 0) + 1; });
  return counts;
}
export function copiesOf(c) { return T.isFlower(c) ? 1 : 4; }
