/* Ningbo mahjong calculator page: builds a hand by tapping tiles and asks the public API.
 *
 * Calls only POST /v1/score, /v1/waits, /v1/analyze and GET /v1/rules (same origin), and none
 * for a hand it knows is incomplete.  The hand lives in the URL fragment (one history entry per
 * change, so Back and Undo restore the previous hand) and a copied link restores it; the
 * language is the reader's own unless the link names one.  Impossible choices are refused before
 * they are kept, with the API's own message (a probe request is sent first).
 */
import { HAND_KEY, useLang } from './calc-strings.js';
import { setState, state } from './calc-state.js';
import { decode, encode, hasHand, parseHash, setLastHash } from './calc-url.js';
import { run } from './calc-api.js';
import { buildPalette, renderInputs } from './calc-inputs.js';
import { commit, linkCheck } from './calc-refresh.js';
import {
  askIncoming, bindSession, nextSeats, session, sessionFromLink, settle, settled, startSession
} from './calc-session.js';
import { bind, loadRules, startOffline, trackBarHeight } from './calc-events.js';
import { bindOffline, loadManifest, renderOffline } from './calc-offline.js';

/* ---- start -------------------------------------------------------------------------- */
function start() {
  buildPalette();
  bind();
  bindSession();
  startOffline();
  bindOffline();
  renderOffline();
  if (navigator.onLine !== false) loadManifest();
  trackBarHeight();
  var hash = location.hash;
  var kept = null;
  try { kept = localStorage.getItem(HAND_KEY); } catch (e) { kept = null; }
  // opened without a hand (from the home screen, say): the hand last worked on comes back
  if ((!hash || hash.indexOf('=') < 0) && kept && kept.indexOf('=') > 0) hash = kept;
  var q = parseHash(location.search.replace(/^\?/, ''));
  if (q.lang === 'zh' || q.lang === 'en') useLang(q.lang);      // ?lang=zh as well as #lang=zh
  var linkedSession = startSession(location.hash);     // (or held, to ask: askIncoming)
  if (sessionFromLink(location.hash)) hash = kept && kept.indexOf('=') > 0 ? kept : '';
  setState(decode(hash));
  setLastHash('#' + encode(state));
  var fromLink = hasHand(state) && hash === location.hash;
  renderInputs();
  askIncoming();
  run(function () {
    return loadRules().then(function () {
      return fromLink ? linkCheck() : null;
    }).then(function () {
      return session && session.hands.length && (linkedSession || !settled || session.unsettled) ? settle() : null;
    }).then(function () {
      if (session) state.round = nextSeats().round;     // the evening's round wind
      return commit(false);
    });
  });
}

start();
