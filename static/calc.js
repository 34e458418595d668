/* Ningbo mahjong calculator page: builds a hand by tapping tiles and asks the public API.
 *
 * Calls only POST /v1/score, POST /v1/waits and GET /v1/rules (same origin).  The whole hand
 * lives in the URL fragment, so a copied link restores it.  Impossible choices are refused
 * before they are kept, with the API's own message (a probe request is sent first).
 */
(function () {
  'use strict';

  var T = window.NBTiles;
  var SEATS = ['E', 'S', 'W', 'N'];
  var PREV = { E: 'N', S: 'E', W: 'S', N: 'W' };   // 上家 (RULES.md §1)

  /* ---- strings ------------------------------------------------------------------------ */
  var I18N = {
    zh: {
      title: '宁波麻将 台数计算器', skip: '跳到选牌', copy_link: '复制链接', link_copied: '链接已复制',
      link_copy_failed: '无法自动复制，请复制地址栏中的链接', clear: '清空',
      settings: '规则与座位', preset: '规则', seat: '本家（胡牌者）', round: '圈风', base: '底分',
      indicator: '财神翻牌', indicator_pick: '选翻牌', indicator_none: '无财神',
      no_indicator: '无', caishen_kinds: '财神：',
      hand: '手牌', hand_help: '点选牌加入手牌；点手牌中的牌可移除。', winning_tile: '胡的牌',
      melds: '副露（吃碰杠）', melds_empty: '没有副露。选“副露”后点牌加入。',
      flowers: '花牌', flowers_empty: '没有花。点花牌即加入。',
      palette: '选牌', target: '点牌加入到', t_hand: '手牌', t_meld: '副露', t_indicator: '财神翻牌',
      meld_type: '副露类型', chow: '吃（顺子）', pung: '碰（刻子）', kong: '杠', kong_kind: '杠的种类',
      k_exposed: '明杠', k_concealed: '暗杠', k_added: '加杠', meld_from: '从谁那里',
      quick: '键盘输入（如 123m 456p EE C 2f）', quick_add: '加入',
      win_context: '胡牌情形', win_by: '怎么胡', self_draw: '自摸', discard: '捉冲（别人打出）',
      robbing_kong: '抢杠', win_from: '打出/被抢的人', kong_replacement: '杠上开花',
      kong_fed_by: '杠的牌是谁打的', nobody: '（无）', last_tile: '海底捞月', heavenly: '天胡',
      earthly: '地胡', discarded_caishen: '本局打出过财神', claims: '别家吃碰杠了本家几次（包）',
      result: '结果', foot: '计分按本服务的规则书；页面只调用公开的 API（/v1/score、/v1/waits、/v1/rules）。',
      add: '加入', remove: '移除', win_mark: '胡', dealer: '庄',
      seat_names: { E: '东', S: '南', W: '西', N: '北' },
      seat_opt: function (s) { return this.seat_names[s] + (s === 'E' ? '（庄家）' : ''); },
      count: function (n, need) { return n + ' / ' + need + ' 张'; },
      need_more: function (k, need, m) {
        return '还差 ' + k + ' 张。有 ' + m + ' 组副露时手牌要 ' + need + ' 张（14 − 3×' + m + '），' +
          '少一张时显示听什么牌。';
      },
      empty: '点下面的牌开始。手牌满 14 − 3×副露 张显示台数和付款，少一张显示听牌。',
      add_tile: function (n) { return '加入 ' + n; },
      add_meld: function (n, type) { return '加入' + type + '：' + n; },
      set_indicator: function (n) { return '翻牌设为 ' + n; },
      remove_tile: function (n) { return '移除 ' + n; },
      win_tile_label: function (n) { return '胡的牌 ' + n + '（点击移除）'; },
      meld_label: function (i) { return '副露 ' + (i + 1); },
      remove_meld: function (i) { return '删除副露 ' + (i + 1); },
      meld_kind: '种类', from_label: '从谁那里',
      chow_hint: '吃：点顺子中最小的一张（一到七）。',
      pung_hint: '碰：点那张牌。', kong_hint: '杠：点那张牌。',
      indicator_hint: '点一张牌作为财神翻牌。',
      claims_seat: function (s) { return this.seat_names[s] + '家'; },
      refused: '不可能：', api_down: '无法连接服务：',
      tai: '台', counted: '计入', min: '起胡', eligible: '够台，可以胡', not_eligible: '不够台，不能胡',
      points: '每份分数', items: '台数明细', col_zh: '中文', col_en: 'English', col_tai: '台',
      col_tiles: '牌', total: '合计', bonus: '奖励台，不计入起胡',
      decomposition: '牌型拆解', wait: '等牌方式',
      waits_kind: { two_sided: '两头', edge: '边张', closed: '夹张', single: '单吊', dual_pung: '对倒' },
      set_kind: { chow: '顺子', pung: '刻子', kong: '杠', pair: '将（对子）' },
      source: { concealed: '手中', meld: '副露' },
      caishen_as: function (a, b) { return '财神 ' + a + ' 当作 ' + b; },
      caishen_list: '财神的用法：', caishen_badge: '财',
      payments: '付款', pay_from: '付', pay_to: '收', pay_amount: '分数', pay_reason: '原因',
      pay_mult: '倍数', net: '净得', winner: '胡',
      reasons: { self_draw: '自摸', discard: '捉冲', kong_bloom: '杠上开花', robbing_kong: '抢杠' },
      liability: { related: '包', mutual: '双包' },
      no_payments: '没有付款。',
      waits: '听牌', waits_none: '这手牌不听任何牌。', any_tile: '任何牌都能胡（财神）。',
      col_wait: '牌', col_unseen: '未见', col_self: '自摸', col_discard: '捉冲', col_try: '试胡',
      try_win: function (n) { return '以 ' + n + ' 胡'; },
      value: function (v) {
        return v.tai + ' 台' + (v.eligible ? ' · ' + v.points + ' 分' : ' · 不够 ' + v.min_tai + ' 台');
      },
      waits_count: function (n, u) { return '听 ' + n + ' 种牌，未见 ' + u + ' 张'; },
      discard_by: function (s) { return this.seat_names[s] + '家打出'; },
      problem: '问题', summary_score: function (d) {
        return d.tai + ' 台' + (d.eligible ? '，可以胡' : '，不够台');
      },
      summary_waits: function (n) { return n ? '听 ' + n + ' 种牌' : '不听牌'; },
      busy: '计算中…'
    },
    en: {
      title: 'Ningbo mahjong calculator', skip: 'Skip to the tiles', copy_link: 'Copy link',
      link_copied: 'Link copied', link_copy_failed: 'Could not copy: copy the address bar', clear: 'Clear',
      settings: 'Rules and seats', preset: 'Rules', seat: 'Your seat (winner)', round: 'Round wind',
      base: 'Base points', indicator: 'Caishen indicator', indicator_pick: 'Pick indicator',
      indicator_none: 'No caishen', no_indicator: 'none', caishen_kinds: 'Caishen: ',
      hand: 'Hand', hand_help: 'Tap tiles below to add them; tap a tile in the hand to remove it.',
      winning_tile: 'Winning tile', melds: 'Melds (chow, pung, kong)',
      melds_empty: 'No melds. Choose “Meld” below and tap a tile.', flowers: 'Flowers',
      flowers_empty: 'No flowers. Tap a flower to add it.', palette: 'Tiles', target: 'A tapped tile goes to',
      t_hand: 'Hand', t_meld: 'Meld', t_indicator: 'Caishen indicator', meld_type: 'Meld type',
      chow: 'Chow', pung: 'Pung', kong: 'Kong', kong_kind: 'Kong kind', k_exposed: 'Exposed',
      k_concealed: 'Concealed', k_added: 'Added (加杠)', meld_from: 'Claimed from',
      quick: 'Type tiles (e.g. 123m 456p EE C 2f)', quick_add: 'Add', win_context: 'How the hand was won',
      win_by: 'Won by', self_draw: 'Self-draw', discard: 'Discard', robbing_kong: 'Robbing a kong',
      win_from: 'Discarder / robbed player', kong_replacement: 'Kong bloom (杠上开花)',
      kong_fed_by: 'Kong fed by', nobody: '(nobody)', last_tile: 'Last tile (海底)',
      heavenly: 'Heavenly (天胡)', earthly: 'Earthly (地胡)',
      discarded_caishen: 'I discarded a caishen this hand', claims: 'Melds each player claimed from you (包)',
      result: 'Result',
      foot: 'Scored by this service’s rule book; the page uses only the public API (/v1/score, /v1/waits, /v1/rules).',
      add: 'Add', remove: 'Remove', win_mark: 'win', dealer: 'dealer',
      seat_names: { E: 'East', S: 'South', W: 'West', N: 'North' },
      seat_opt: function (s) { return this.seat_names[s] + (s === 'E' ? ' (dealer)' : ''); },
      count: function (n, need) { return n + ' / ' + need + ' tiles'; },
      need_more: function (k, need, m) {
        return k + ' more tile' + (k === 1 ? '' : 's') + ' needed. With ' + m + ' meld' + (m === 1 ? '' : 's') +
          ' the hand holds ' + need + ' tiles (14 − 3×' + m + '); one fewer shows the waits.';
      },
      empty: 'Tap the tiles below. With 14 − 3×melds tiles you get the 台 and payments; with one fewer, the waits.',
      add_tile: function (n) { return 'Add ' + n; },
      add_meld: function (n, type) { return 'Add ' + type + ': ' + n; },
      set_indicator: function (n) { return 'Set indicator ' + n; },
      remove_tile: function (n) { return 'Remove ' + n; },
      win_tile_label: function (n) { return 'Winning tile ' + n + ' (tap to remove)'; },
      meld_label: function (i) { return 'Meld ' + (i + 1); },
      remove_meld: function (i) { return 'Remove meld ' + (i + 1); },
      meld_kind: 'Kind', from_label: 'From',
      chow_hint: 'Chow: tap its lowest tile (1–7).', pung_hint: 'Pung: tap the tile.',
      kong_hint: 'Kong: tap the tile.', indicator_hint: 'Tap the tile turned up as the caishen indicator.',
      claims_seat: function (s) { return this.seat_names[s]; },
      refused: 'Not possible: ', api_down: 'Service unreachable: ',
      tai: '台', counted: 'counted', min: 'minimum', eligible: 'enough 台: a win',
      not_eligible: 'not enough 台: no win', points: 'Points per share', items: '台 items',
      col_zh: '中文', col_en: 'English', col_tai: '台', col_tiles: 'Tiles', total: 'Total',
      bonus: 'bonus, not counted toward the minimum', decomposition: 'Decomposition', wait: 'Wait',
      waits_kind: { two_sided: 'two-sided', edge: 'edge', closed: 'closed', single: 'single', dual_pung: 'dual pung' },
      set_kind: { chow: 'chow', pung: 'pung', kong: 'kong', pair: 'pair' },
      source: { concealed: 'in hand', meld: 'meld' },
      caishen_as: function (a, b) { return 'caishen ' + a + ' as ' + b; },
      caishen_list: 'Caishen used as: ', caishen_badge: '财',
      payments: 'Payments', pay_from: 'From', pay_to: 'To', pay_amount: 'Amount', pay_reason: 'Reason',
      pay_mult: 'Multiplier', net: 'net', winner: 'winner',
      reasons: { self_draw: 'self-draw', discard: 'discard', kong_bloom: 'kong bloom', robbing_kong: 'robbing a kong' },
      liability: { related: 'liable (包)', mutual: 'mutually liable (双包)' },
      no_payments: 'No payments.',
      waits: 'Waits', waits_none: 'This hand waits on nothing.', any_tile: 'Any tile completes it (caishen).',
      col_wait: 'Tile', col_unseen: 'Unseen', col_self: 'Self-draw', col_discard: 'Discard', col_try: 'Try it',
      try_win: function (n) { return 'Win on ' + n; },
      value: function (v) {
        return v.tai + ' 台' + (v.eligible ? ' · ' + v.points + ' pts' : ' · below ' + v.min_tai + ' 台');
      },
      waits_count: function (n, u) { return n + ' kind' + (n === 1 ? '' : 's') + ', ' + u + ' unseen'; },
      discard_by: function (s) { return 'from ' + this.seat_names[s]; },
      problem: 'Problem', summary_score: function (d) {
        return d.tai + ' 台' + (d.eligible ? ', a win' : ', not enough');
      },
      summary_waits: function (n) { return n ? n + ' waiting tile' + (n === 1 ? '' : 's') : 'no wait'; },
      busy: 'Working…'
    }
  };

  var lang = /^zh/i.test(navigator.language || '') ? 'zh' : 'en';

  function t(key) {
    var v = I18N[lang][key];
    if (typeof v === 'function') {
      return v.apply(I18N[lang], Array.prototype.slice.call(arguments, 1));
    }
    return v === undefined ? key : v;
  }

  /* ---- state -------------------------------------------------------------------------- */
  function blank() {
    return {
      preset: 'ningbo', seat: 'E', round: 'E', indicator: null,
      hand: [], win: null, melds: [], flowers: [],
      by: 'self_draw', from: '', kr: false, fed: '', last: false, heavenly: false, earthly: false,
      dc: false, claims: { E: 0, S: 0, W: 0, N: 0 }, base: 1
    };
  }

  var state = blank();
  var ui = { target: 'hand', meldType: 'chow', kongKind: 'exposed', meldFrom: '' };
  var presets = [];
  var baseline = null;     // last problem the API gave for the current state
  var seq = 0;
  var queue = Promise.resolve();
  var pending = 0;

  function clone(o) { return JSON.parse(JSON.stringify(o)); }
  function need(st) { return 14 - 3 * st.melds.length; }
  function concealedOf(st) { return st.hand.concat(st.win ? [st.win] : []); }
  function total(st) { return st.hand.length + (st.win ? 1 : 0); }

  function normalize(st) {
    var n = need(st);
    if (st.win && total(st) < n) { st.hand.push(st.win); st.win = null; }
    if (!st.win && total(st) === n && st.hand.length) st.win = st.hand.pop();
    st.claims[st.seat] = 0;
    if (st.by !== 'self_draw' && (!st.from || st.from === st.seat)) st.from = PREV[st.seat];
    if (st.fed === st.seat) st.fed = '';
    if (!st.kr) st.fed = '';
    return st;
  }

  function presetById(id) {
    for (var i = 0; i < presets.length; i++) if (presets[i].id === id) return presets[i];
    return null;
  }

  function caishenKinds(st) {
    var p = presetById(st.preset);
    var rule = p && p.options ? p.options.caishen_rule : 'indicator';
    return T.caishenKinds(st.indicator, rule);
  }

  /* ---- URL ---------------------------------------------------------------------------- */
  function meldCode(m) {
    return m.type[0] + T.toCompact(m.tiles) + (m.from ? '-' + m.from : '') +
      (m.concealed ? '!' : '') + (m.added ? '+' : '');
  }

  function encode(st) {
    var parts = [];
    function add(k, v) { parts.push(k + '=' + encodeURIComponent(v)); }
    add('lang', lang);
    add('p', st.preset);
    add('s', st.seat);
    add('r', st.round);
    if (st.indicator) add('c', st.indicator);
    if (st.hand.length) add('h', T.toCompact(T.sort(st.hand)));
    if (st.win) add('w', st.win);
    if (st.melds.length) add('m', st.melds.map(meldCode).join('_'));
    if (st.flowers.length) add('f', T.toCompact(T.sort(st.flowers)));
    if (st.by !== 'self_draw') { add('by', st.by); add('from', st.from); }
    if (st.kr) add('kr', 1);
    if (st.fed) add('fed', st.fed);
    if (st.last) add('last', 1);
    if (st.heavenly) add('hv', 1);
    if (st.earthly) add('ea', 1);
    if (st.dc) add('dc', 1);
    var cl = SEATS.filter(function (s) { return st.claims[s]; })
      .map(function (s) { return s + st.claims[s]; }).join('');
    if (cl) add('cl', cl);
    if (st.base !== 1) add('b', st.base);
    return parts.join('&');
  }

  function decode(hash) {
    var st = blank();
    var q = {};
    hash.replace(/^#/, '').split('&').forEach(function (kv) {
      if (!kv) return;
      var i = kv.indexOf('=');
      var k = i < 0 ? kv : kv.slice(0, i);
      var v = i < 0 ? '' : kv.slice(i + 1);
      try { q[k] = decodeURIComponent(v); } catch (e) { q[k] = v; }
    });
    if (q.lang === 'zh' || q.lang === 'en') lang = q.lang;
    if (q.p) st.preset = q.p;
    if (SEATS.indexOf(q.s) >= 0) st.seat = q.s;
    if (SEATS.indexOf(q.r) >= 0) st.round = q.r;
    if (q.c && T.isTile(q.c)) st.indicator = q.c;
    if (q.h) st.hand = T.parseCompact(q.h).tiles;
    if (q.w && T.isTile(q.w)) st.win = q.w;
    if (q.m) {
      q.m.split('_').forEach(function (code) {
        var mm = /^([cpk])([0-9mpsfESWNCFP]+)(?:-([ESWN]))?(!)?(\+)?$/.exec(code);
        if (!mm) return;
        var meld = { type: { c: 'chow', p: 'pung', k: 'kong' }[mm[1]], tiles: T.parseCompact(mm[2]).tiles };
        if (mm[3]) meld.from = mm[3];
        if (mm[4]) meld.concealed = true;
        if (mm[5]) meld.added = true;
        st.melds.push(meld);
      });
    }
    if (q.f) st.flowers = T.parseCompact(q.f).tiles;
    if (q.by === 'discard' || q.by === 'robbing_kong') st.by = q.by;
    if (SEATS.indexOf(q.from) >= 0) st.from = q.from;
    st.kr = q.kr === '1';
    if (SEATS.indexOf(q.fed) >= 0) st.fed = q.fed;
    st.last = q.last === '1';
    st.heavenly = q.hv === '1';
    st.earthly = q.ea === '1';
    st.dc = q.dc === '1';
    (q.cl || '').replace(/([ESWN])(\d+)/g, function (_, s, n) { st.claims[s] = +n; return ''; });
    var b = parseInt(q.b, 10);
    if (b > 0) st.base = b;
    return normalize(st);
  }

  var lastHash = '';
  function writeURL() {
    lastHash = '#' + encode(state);
    if (location.hash !== lastHash) history.replaceState(null, '', lastHash);
  }

  /* ---- API ---------------------------------------------------------------------------- */
  function api(method, path, body) {
    var headers = { Accept: 'application/json, application/problem+json',
      'Accept-Language': lang === 'zh' ? 'zh-CN,zh;q=0.9' : 'en' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return fetch(path, { method: method, headers: headers,
      body: body === undefined ? undefined : JSON.stringify(body) })
      .then(function (res) {
        return res.text().then(function (text) {
          var data = null;
          try { data = JSON.parse(text); } catch (e) { data = null; }
          return { status: res.status, ok: res.ok, data: data };
        });
      })
      .catch(function (err) { return { status: 0, ok: false, data: null, error: String(err) }; });
  }

  function meldJSON(m) {
    var o = { type: m.type, tiles: m.tiles.slice() };
    if (m.from) o.from = m.from;
    if (m.concealed) o.concealed = true;
    if (m.added) o.added = true;
    return o;
  }

  function baseRequest(st) {
    var claims = {};
    SEATS.forEach(function (s) { if (s !== st.seat) claims[s] = st.claims[s] || 0; });
    return {
      rules: st.preset, seat_wind: st.seat, round_wind: st.round,
      caishen: st.indicator ? { indicator: st.indicator } : null,
      hand: { concealed: [], melds: st.melds.map(meldJSON), flowers: st.flowers.slice() },
      win: {}, claims_from_winner: claims, base_points: st.base
    };
  }

  function flags(st, w) {
    if (st.kr) w.kong_replacement = true;
    if (st.kr && st.fed) w.kong_fed_by = st.fed;
    if (st.last) w.last_tile = true;
    if (st.heavenly) w.heavenly = true;
    if (st.earthly) w.earthly = true;
    if (st.dc) w.discarded_caishen = true;
    return w;
  }

  function scoreRequest(st) {
    var r = baseRequest(st);
    var c = concealedOf(st);
    r.hand.concealed = c;
    // an empty hand still names a winning tile, so that the API checks the rest of the request
    r.hand.winning_tile = st.win || (c.length ? c[c.length - 1] : '1m');
    r.win = { by: st.by };
    if (st.by !== 'self_draw') r.win.from = st.from;
    flags(st, r.win);
    return r;
  }

  /* /v1/waits: the /v1/score request with the tiles before the winning one, no winning_tile
   * and no win.by (each wait is valued both as a self-draw and as a discard). */
  function waitsRequest(st) {
    var r = baseRequest(st);
    r.hand.concealed = st.hand.slice();
    r.win = {};
    if (st.by === 'discard' && st.from) r.win.from = st.from;   // the discarder assumed for the discard value
    if (st.dc) r.win.discarded_caishen = true;
    return r;
  }

  function errorPairs(problem) {
    var out = [];
    if (problem && problem.errors && typeof problem.errors === 'object') {
      Object.keys(problem.errors).forEach(function (p) {
        [].concat(problem.errors[p]).forEach(function (m) { out.push([p, String(m)]); });
      });
    }
    return out;
  }

  function firstMessage(problem) {
    var pairs = errorPairs(problem);
    if (pairs.length) return pairs[0][1];
    return problem ? String(problem.detail || problem.title || '') : '';
  }

  function under(path, prefixes) {
    return prefixes.some(function (p) {
      return p === '' || path === p || path.indexOf(p + '.') === 0;
    });
  }

  /* Problems at the given paths that the current state does not have already. */
  function freshErrors(problem, prefixes) {
    var old = {};
    errorPairs(baseline).forEach(function (pm) { old[pm[0] + '\n' + pm[1]] = true; });
    return errorPairs(problem).filter(function (pm) {
      return under(pm[0], prefixes) && !old[pm[0] + '\n' + pm[1]];
    });
  }

  /* ---- refusals ----------------------------------------------------------------------- */
  function overCopies(st) {
    var counts = {};
    var all = concealedOf(st).concat(st.flowers);
    st.melds.forEach(function (m) { all = all.concat(m.tiles); });
    if (st.indicator) all.push(st.indicator);
    all.forEach(function (c) { counts[c] = (counts[c] || 0) + 1; });
    for (var i = 0; i < T.ALL.length; i++) {
      var c = T.ALL[i];
      if ((counts[c] || 0) > (T.isFlower(c) ? 1 : 4)) return { tile: c, count: counts[c] };
    }
    return null;
  }

  /* The API's message for too many copies of a tile: a request whose first problem is exactly
   * that (right tile count, nothing else wrong before it in RULES.md §10.15's order). */
  function copiesProbe(over, st) {
    var c = over.tile;
    var concealed = [];
    var flowers = [];
    if (T.isFlower(c)) {
      concealed = T.parseCompact('123m456m789m123p55p').tiles;
      for (var i = 0; i < over.count; i++) flowers.push(c);
    } else {
      for (var j = 0; j < over.count; j++) concealed.push(c);
      var fill = T.SUITED.concat(T.HONORS).filter(function (x) { return x !== c; });
      var k = 0;
      while (concealed.length < 14) concealed.push(fill[k++]);
    }
    return {
      rules: st.preset, seat_wind: st.seat, round_wind: st.round, caishen: null,
      hand: { concealed: concealed, winning_tile: concealed[0], melds: [], flowers: flowers },
      win: { by: 'self_draw' }
    };
  }

  function copiesFallback(over) {
    return lang === 'zh' ? over.tile + ' 有 ' + over.count + ' 张；最多 ' + (T.isFlower(over.tile) ? 1 : 4) + ' 张'
      : over.count + ' copies of ' + over.tile + '; at most ' + (T.isFlower(over.tile) ? 1 : 4) + ' exist';
  }

  /* Applies a change to a copy of the state, asks the API whether it is possible, then keeps it
   * or refuses it with the API's message.  opts: copies (check tile copies), full (refuse an
   * overfull hand), paths (field paths whose new problems refuse the change). */
  function change(mutate, opts) {
    opts = opts || {};
    return run(function () {
      var next = clone(state);
      mutate(next);
      normalize(next);
      var step = Promise.resolve(null);
      if (opts.copies) {
        var over = overCopies(next);
        if (over) {
          step = api('POST', '/v1/score', copiesProbe(over, next)).then(function (r) {
            if (!r.ok && r.data) return firstMessage(r.data) || copiesFallback(over);
            return copiesFallback(over);
          });
        }
      }
      return step.then(function (msg) {
        if (msg) return msg;
        if (opts.full && total(next) > need(next)) {
          return api('POST', '/v1/score', scoreRequest(next)).then(function (r) {
            return firstMessage(r.data) || (r.error ? t('api_down') + r.error : '');
          });
        }
        if (opts.paths) {
          return api('POST', '/v1/score', scoreRequest(next)).then(function (r) {
            if (r.ok || !r.data) return null;
            var fresh = freshErrors(r.data, opts.paths);
            return fresh.length ? fresh.map(function (pm) { return pm[1]; }) : null;
          });
        }
        return null;
      }).then(function (msg) {
        if (msg) {
          notice(msg);
          renderInputs();
          return null;
        }
        state = next;
        notice(null);
        return commit();
      });
    });
  }

  function run(fn) {
    pending++;
    app.setAttribute('data-busy', '1');
    queue = queue.then(fn).catch(function (e) {
      if (window.console) console.error(e);
    }).then(function () {
      pending--;
      if (!pending) app.setAttribute('data-busy', '0');
    });
    return queue;
  }

  function notice(msg) {
    var el = $('notice');
    if (!msg) { el.hidden = true; el.textContent = ''; return; }
    el.hidden = false;
    el.innerHTML = '';
    var strong = document.createElement('strong');
    strong.textContent = t('refused');
    el.appendChild(strong);
    [].concat(msg).forEach(function (m) {
      var span = document.createElement('span');
      span.className = 'msg';
      span.textContent = m;
      el.appendChild(span);
    });
  }

  /* ---- DOM helpers -------------------------------------------------------------------- */
  function $(id) { return document.getElementById(id); }
  var app = $('app');

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }

  function tileSpan(c, extraClass, label) {
    return '<span class="tile ' + (extraClass || '') + '" role="img" aria-label="' +
      esc(label || T.name(c, lang)) + '" data-tile="' + c + '">' + T.svg(c) + '</span>';
  }

  function tileButton(c, cls, label, attrs) {
    return '<button type="button" class="tile ' + (cls || '') + '" aria-label="' + esc(label) +
      '" data-tile="' + c + '" ' + (attrs || '') + '>' + T.svg(c) + '</button>';
  }

  function seatOptions(sel, seats, value, withNone) {
    var html = withNone ? '<option value="">' + esc(t('nobody')) + '</option>' : '';
    seats.forEach(function (s) {
      html += '<option value="' + s + '"' + (s === value ? ' selected' : '') + '>' +
        esc(t('seat_opt', s)) + '</option>';
    });
    sel.innerHTML = html;
    sel.value = value || '';
  }

  function others(seat) { return SEATS.filter(function (s) { return s !== seat; }); }

  function fmtSigned(n) {
    if (n > 0) return '+' + n;
    if (n < 0) return '\u2212' + Math.abs(n);
    return '0';
  }

  /* ---- rendering: inputs -------------------------------------------------------------- */
  function applyLang() {
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
    document.title = lang === 'zh' ? '宁波麻将计算器 · Ningbo mahjong calculator'
      : 'Ningbo mahjong calculator · 宁波麻将计算器';
    Array.prototype.forEach.call(document.querySelectorAll('[data-i18n]'), function (el) {
      el.textContent = t(el.getAttribute('data-i18n'));
    });
    $('lang-zh').setAttribute('aria-pressed', String(lang === 'zh'));
    $('lang-en').setAttribute('aria-pressed', String(lang === 'en'));
  }

  function buildPalette() {
    var html = '';
    var rows = [T.SUITED.slice(0, 9), T.SUITED.slice(9, 18), T.SUITED.slice(18, 27), T.HONORS, T.FLOWERS];
    rows.forEach(function (row) {
      row.forEach(function (c) {
        html += tileButton(c, 'pal', c, '');
      });
    });
    $('palette').innerHTML = html;
  }

  function paletteLabels() {
    var kinds = caishenKinds(state);
    Array.prototype.forEach.call($('palette').querySelectorAll('button'), function (b) {
      var c = b.getAttribute('data-tile');
      var n = T.name(c, lang);
      var label;
      var disabled = false;
      if (T.isFlower(c) && kinds.indexOf(c) < 0 && ui.target !== 'indicator') {
        label = t('add_tile', n);
      } else if (ui.target === 'meld') {
        disabled = T.isFlower(c) || (ui.meldType === 'chow' && (!T.isSuited(c) || +c[0] > 7));
        label = t('add_meld', n, t(ui.meldType));
      } else if (ui.target === 'indicator') {
        label = t('set_indicator', n);
      } else {
        label = t('add_tile', n);
      }
      b.setAttribute('aria-label', label);
      b.title = label;
      b.disabled = disabled;
      b.classList.toggle('cs', kinds.indexOf(c) >= 0);
    });
  }

  /* Controls rebuilt by a render (hand tiles, meld rows, claims) keep the keyboard focus: the
   * element in the same place gets it back. */
  function focusKey(el) {
    if (!el || el === document.body) return null;
    if (el.id) return { sel: '#' + el.id };
    var box = el.closest('#hand, #flowers, #melds, #claims, #result-body');
    if (!box) return null;
    var all = Array.prototype.slice.call(box.querySelectorAll('button, select, input'));
    return { box: box.id, index: all.indexOf(el), act: el.getAttribute('data-act') };
  }

  function restoreFocus(key) {
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

  function renderInputs() {
    var focus = focusKey(document.activeElement);
    try { renderInputsNow(); } finally { restoreFocus(focus); }
  }

  function renderInputsNow() {
    applyLang();
    var st = state;
    var kinds = caishenKinds(st);

    // settings
    var ps = $('preset');
    if (presets.length) {
      ps.innerHTML = presets.map(function (p) {
        var nm = (lang === 'en' ? p.name_en : p.name) || p.name || p.id;
        return '<option value="' + esc(p.id) + '">' + esc(nm + ' · ' + p.id) + '</option>';
      }).join('');
      if (!presetById(st.preset)) {
        ps.insertAdjacentHTML('beforeend', '<option value="' + esc(st.preset) + '">' + esc(st.preset) + '</option>');
      }
    } else {
      ps.innerHTML = '<option value="' + esc(st.preset) + '">' + esc(st.preset) + '</option>';
    }
    ps.value = st.preset;
    seatOptions($('seat'), SEATS, st.seat);
    seatOptions($('round'), SEATS, st.round);
    $('base').value = st.base;

    $('indicator-view').innerHTML = st.indicator
      ? tileSpan(st.indicator, 'sm', t('indicator') + ' ' + T.name(st.indicator, lang))
      : '<span class="muted">' + esc(t('no_indicator')) + '</span>';
    $('caishen-kinds').innerHTML = kinds.length
      ? esc(t('caishen_kinds')) + kinds.map(function (k) { return tileSpan(k, 'xs cs'); }).join('')
      : '';

    // hand
    var n = need(st);
    $('hand-count').textContent = '(' + t('count', total(st), n) + ')';
    var html = T.sort(st.hand).map(function (c) {
      return tileButton(c, kinds.indexOf(c) >= 0 ? 'cs' : '', t('remove_tile', T.name(c, lang)), 'data-role="hand"');
    }).join('');
    if (st.win) {
      html += '<span class="win-gap" aria-hidden="true"></span>' +
        tileButton(st.win, 'win' + (kinds.indexOf(st.win) >= 0 ? ' cs' : ''),
          t('win_tile_label', T.name(st.win, lang)), 'data-role="win"');
    }
    $('hand').innerHTML = html;

    var wsel = $('win-tile');
    var distinct = T.sort(concealedOf(st)).filter(function (c, i, a) { return a.indexOf(c) === i; });
    wsel.innerHTML = distinct.map(function (c) {
      return '<option value="' + c + '">' + esc(T.name(c, lang)) + ' (' + c + ')</option>';
    }).join('');
    wsel.value = st.win || '';
    wsel.disabled = !st.win;
    $('win-tile-field').hidden = !st.win;

    // melds
    $('melds').innerHTML = st.melds.map(function (m, i) {
      var kind = m.type === 'kong' ? (m.concealed ? 'concealed' : m.added ? 'added' : 'exposed') : '';
      var fromSeats = others(st.seat);
      var row = '<li class="meld" data-index="' + i + '"><span class="meld-name">' + esc(t('meld_label', i)) +
        ' · ' + esc(t(m.type)) + '</span><span class="tiles">' +
        m.tiles.map(function (c, j) {
          var down = m.type === 'kong' && m.concealed && (j === 0 || j === 3);
          return down ? '<span class="tile back" role="img" aria-label="' + esc(T.name(c, lang)) + '"></span>'
            : tileSpan(c, 'sm');
        }).join('') + '</span>';
      if (m.type === 'kong') {
        row += '<label class="field"><span>' + esc(t('meld_kind')) + '</span><select data-act="kind" data-index="' + i +
          '">' + ['exposed', 'concealed', 'added'].map(function (k) {
          return '<option value="' + k + '"' + (k === kind ? ' selected' : '') + '>' + esc(t('k_' + k)) + '</option>';
        }).join('') + '</select></label>';
      }
      if (!(m.type === 'kong' && m.concealed)) {
        row += '<label class="field"><span>' + esc(t('from_label')) + '</span><select data-act="from" data-index="' + i +
          '">' + (m.from ? '' : '<option value="" selected></option>') + fromSeats.concat(m.from && fromSeats.indexOf(m.from) < 0 ? [m.from] : [])
          .map(function (s) {
            return '<option value="' + s + '"' + (s === m.from ? ' selected' : '') + '>' + esc(t('seat_opt', s)) + '</option>';
          }).join('') + '</select></label>';
      }
      row += '<button type="button" class="x" data-act="remove-meld" data-index="' + i + '" aria-label="' +
        esc(t('remove_meld', i)) + '">✕</button>';
      row += '<div class="err" data-path="hand.melds.' + i + '" role="alert"></div></li>';
      return row;
    }).join('');
    $('melds-empty').hidden = st.melds.length > 0;

    // flowers
    $('flowers').innerHTML = T.sort(st.flowers).map(function (c) {
      return tileButton(c, 'sm', t('remove_tile', T.name(c, lang)), 'data-role="flower"');
    }).join('');
    $('flowers-empty').hidden = st.flowers.length > 0;

    // palette & meld builder
    Array.prototype.forEach.call(document.querySelectorAll('input[name="target"]'), function (r) {
      r.checked = r.value === ui.target;
    });
    $('meld-builder').hidden = ui.target !== 'meld';
    $('meld-type').value = ui.meldType;
    $('kong-kind').value = ui.kongKind;
    $('kong-kind-field').hidden = ui.meldType !== 'kong';
    var fromSeats = others(st.seat);
    if (fromSeats.indexOf(ui.meldFrom) < 0) ui.meldFrom = PREV[st.seat];
    seatOptions($('meld-from'), fromSeats, ui.meldFrom);
    $('meld-from-field').hidden = ui.meldType === 'kong' && ui.kongKind === 'concealed';
    $('meld-hint').textContent = ui.target === 'indicator' ? t('indicator_hint') : t(ui.meldType + '_hint');
    paletteLabels();

    // win context
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
      return '<label class="field small"><span>' + esc(t('claims_seat', s)) + '</span>' +
        '<input type="number" min="0" max="4" step="1" inputmode="numeric" data-act="claim" data-seat="' + s +
        '" value="' + (st.claims[s] || 0) + '"></label>';
    }).join('');
  }

  /* ---- rendering: results ------------------------------------------------------------- */
  function fieldErrors(problem, skip) {
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

  function problemHTML(problem, pairs) {
    if (!problem) return '';
    var html = '<div class="problem" role="alert"><p class="p-title"><strong>' + esc(problem.title || t('problem')) +
      '</strong></p><p class="p-detail">' + esc(problem.detail || '') + '</p>';
    if (pairs && pairs.length > 1) {
      html += '<ul>' + pairs.map(function (pm) {
        return '<li><code>' + esc(pm[0]) + '</code> ' + esc(pm[1]) + '</li>';
      }).join('') + '</ul>';
    }
    return html + '</div>';
  }

  function itemsHTML(d) {
    var rows = (d.items || []).map(function (it) {
      var tiles = (it.tiles || []).map(function (c) { return tileSpan(c, 'xs'); }).join('');
      return '<tr data-item="' + esc(it.id) + '"' + (it.bonus ? ' class="bonus"' : '') + '>' +
        '<td lang="zh">' + esc(it.name) + '</td><td lang="en">' + esc(it.name_en) +
        (it.bonus ? ' <span class="badge">' + esc(t('bonus')) + '</span>' : '') +
        '</td><td class="num">' + esc(it.tai) + '</td><td class="item-tiles">' + tiles + '</td></tr>';
    }).join('');
    return '<table class="items"><caption>' + esc(t('items')) + '</caption><thead><tr><th scope="col">' +
      esc(t('col_zh')) + '</th><th scope="col">' + esc(t('col_en')) + '</th><th scope="col" class="num">' +
      esc(t('col_tai')) + '</th><th scope="col">' + esc(t('col_tiles')) + '</th></tr></thead><tbody>' + rows +
      '</tbody><tfoot><tr><th scope="row" colspan="2">' + esc(t('total')) + '</th><td class="num" id="items-total">' +
      esc(d.tai) + '</td><td></td></tr></tfoot></table>';
  }

  function decompositionHTML(d) {
    var dec = d.decomposition;
    if (!dec) return '';
    var groups = [];
    if (dec.pair) groups.push({ type: 'pair', tiles: dec.pair.slice(), source: 'concealed' });
    (dec.sets || []).forEach(function (s) { groups.push({ type: s.type, tiles: s.tiles.slice(), source: s.source }); });
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
      html += '<p class="wait">' + esc(t('wait')) + '：<strong id="wait-kind">' +
        esc((t('waits_kind') || {})[dec.wait] || dec.wait) + '</strong></p>';
    }
    html += '<div class="decomp">' + groups.map(function (g, gi) {
      return '<figure class="group ' + g.source + '"><div class="tiles">' + g.tiles.map(function (c, j) {
        var m = marks[gi][j] || {};
        var cls = 'sm' + (m.cs ? ' cs as' : '') + (m.win ? ' win' : '');
        var label = T.name(c, lang);
        if (m.cs) label = t('caishen_as', T.name(m.cs, lang), T.name(c, lang));
        var badge = m.cs ? '<span class="cs-badge" aria-hidden="true">' + esc(t('caishen_badge')) + '</span>' : '';
        return '<span class="tile ' + cls + '" role="img" aria-label="' + esc(label) + '" data-tile="' + c +
          '"' + (m.cs ? ' data-caishen="' + m.cs + '"' : '') + '>' + T.svg(c) + badge + '</span>';
      }).join('') + '</div><figcaption>' + esc(t('set_kind')[g.type] || g.type) + ' · ' +
        esc(t('source')[g.source] || g.source) + '</figcaption></figure>';
    }).join('') + '</div>';
    if ((dec.caishen || []).length) {
      html += '<p class="cs-list">' + esc(t('caishen_list')) + dec.caishen.map(function (cs) {
        return '<span class="cs-pair">' + tileSpan(cs.tile, 'xs cs') + '→' + tileSpan(cs.face, 'xs') + '</span>';
      }).join(' ') + '</p>';
    }
    return html;
  }

  var SEAT_POS = { E: [150, 262], S: [262, 150], W: [150, 38], N: [38, 150] };

  function paymentsHTML(d, winner) {
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

  function renderScore(d) {
    var ok = !!d.eligible;
    var html = '<div class="verdict ' + (ok ? 'ok' : 'no') + '">' +
      '<p class="big"><span id="tai-total">' + esc(d.tai) + '</span> ' + esc(t('tai')) + '</p>' +
      '<p class="counted">' + esc(t('counted')) + ' <strong id="counted-tai">' + esc(d.counted_tai) + '</strong> ' +
      (ok ? '≥' : '&lt;') + ' ' + esc(t('min')) + ' <strong id="min-tai">' + esc(d.min_tai) + '</strong></p>' +
      '<p class="badge-line"><span class="badge ' + (ok ? 'ok' : 'no') + '" id="eligible">' +
      esc(ok ? t('eligible') : t('not_eligible')) + '</span>' +
      (ok ? ' <span class="points">' + esc(t('points')) + ' <strong id="points">' + esc(d.points) + '</strong></span>' : '') +
      '</p></div>';
    if (d.reasons && d.reasons.length) {
      html += '<ul class="reasons">' + d.reasons.map(function (r) { return '<li>' + esc(r) + '</li>'; }).join('') + '</ul>';
    }
    html += itemsHTML(d) + decompositionHTML(d) + paymentsHTML(d, state.seat);
    $('result-body').innerHTML = html;
    $('summary').textContent = t('summary_score', d);
  }

  function valueHTML(v) {
    if (!v) return '';
    if (typeof v.tai === 'number') {
      return '<span class="val ' + (v.eligible ? 'ok' : 'no') + '">' + esc(t('value', v)) + '</span>';
    }
    return '<span class="val no" title="' + esc(v.detail || '') + '">' + esc(v.title || v.code || '') +
      '</span><small class="val-detail">' + esc(v.detail || '') + '</small>';
  }

  function renderWaits(d) {
    var waits = d.waits || [];
    var kinds = d.tiles || [];
    if (!kinds.length) waits.forEach(function (w) { kinds = kinds.concat(w.same_for || [w.tile]); });
    var unseen = typeof d.unseen_total === 'number' ? d.unseen_total
      : waits.reduce(function (a, w) { return a + (w.unseen_total || w.unseen || 0); }, 0);
    var html = '<h3>' + esc(t('waits')) + ' <small id="waits-count">' + esc(t('waits_count', kinds.length, unseen)) +
      '</small></h3>';
    if (d.any_tile) html += '<p class="any">' + esc(t('any_tile')) + '</p>';
    if (!waits.length) {
      html += '<p>' + esc(t('waits_none')) + '</p>';
    } else {
      var fromText = d.discard_from ? ' (' + t('discard_by', d.discard_from) + ')' : '';
      var from = fromText ? ' <small>' + esc(fromText) + '</small>' : '';
      html += '<table class="waits"><thead><tr><th scope="col">' + esc(t('col_wait')) + '</th><th scope="col" class="num">' +
        esc(t('col_unseen')) + '</th><th scope="col">' + esc(t('col_self')) + '</th><th scope="col">' +
        esc(t('col_discard')) + from + '</th><th scope="col"><span class="sr">' + esc(t('col_try')) + '</span></th></tr></thead><tbody>' +
        waits.map(function (w) {
          var tiles = w.same_for && w.same_for.length > 1 ? w.same_for : [w.tile];
          var cell = tiles.length > 1
            ? '<span class="tiles">' + tiles.map(function (c) { return tileSpan(c, 'xs'); }).join('') + '</span>'
            : '<span class="wait-tile">' + tileSpan(w.tile, 'sm') + '<span class="tname">' + esc(T.name(w.tile, lang)) +
              '</span></span>';
          var n = tiles.length > 1 && typeof w.unseen_total === 'number' ? w.unseen_total : w.unseen;
          return '<tr data-wait="' + esc(w.tile) + '"><th scope="row">' + cell + '</th><td class="num" data-label="' +
            esc(t('col_unseen')) + '">' + esc(n) + '</td><td class="self" data-label="' + esc(t('col_self')) + '">' +
            valueHTML(w.self_draw) + '</td><td class="disc" data-label="' + esc(t('col_discard') + fromText) + '">' +
            valueHTML(w.discard) + '</td><td class="try-cell"><button type="button" class="try" data-act="try" data-tile="' +
            esc(w.tile) + '" aria-label="' + esc(t('try_win', T.name(w.tile, lang))) + '">' + esc(t('col_try')) +
            '</button></td></tr>';
        }).join('') + '</tbody></table>';
    }
    $('result-body').innerHTML = html;
    $('summary').textContent = t('summary_waits', kinds.length);
  }

  var COUNT_PATHS = ['hand', 'hand.concealed', 'hand.winning_tile', '$', ''];

  function refresh() {
    var id = ++seq;
    var st = state;
    var n = need(st);
    var tot = total(st);
    var body = $('result-body');
    if (!tot && !st.melds.length && !st.flowers.length) {
      body.innerHTML = '<p class="muted">' + esc(t('empty')) + '</p>';
      $('summary').textContent = '';
      baseline = null;
      fieldErrors(null);
      return Promise.resolve();
    }
    var waitsMode = tot === n - 1;
    var call = waitsMode ? api('POST', '/v1/waits', waitsRequest(st)) : api('POST', '/v1/score', scoreRequest(st));
    return call.then(function (r) {
      if (id !== seq) return;
      var focus = focusKey(document.activeElement);
      try { showResponse(r); } finally { restoreFocus(focus); }
    });

    function showResponse(r) {
      if (r.status === 0) {
        baseline = null;
        body.innerHTML = '<div class="problem" role="alert">' + esc(t('api_down') + (r.error || '')) + '</div>';
        return;
      }
      baseline = r.ok ? null : r.data;
      var incomplete = tot < n - 1;
      var skip = incomplete ? function (p) { return COUNT_PATHS.indexOf(p) >= 0; } : null;
      var pairs = fieldErrors(r.ok ? null : r.data, skip);
      if (incomplete) {
        var html = '<p class="need" id="need-more">' + esc(t('need_more', n - 1 - tot, n, st.melds.length)) + '</p>';
        if (pairs.length) html += problemHTML({ title: t('problem'), detail: pairs[0][1] }, pairs);
        body.innerHTML = html;
        $('summary').textContent = t('count', tot, n);
      } else if (r.ok && waitsMode) {
        renderWaits(r.data);
      } else if (r.ok) {
        renderScore(r.data);
      } else {
        body.innerHTML = problemHTML(r.data || { title: 'HTTP ' + r.status }, errorPairs(r.data));
        $('summary').textContent = (r.data && r.data.title) || ('HTTP ' + r.status);
      }
    }
  }

  function commit() {
    writeURL();
    renderInputs();
    return refresh();
  }

  /* ---- actions ------------------------------------------------------------------------ */
  function addToHand(c) {
    var kinds = caishenKinds(state);
    if (T.isFlower(c) && kinds.indexOf(c) < 0) {
      return change(function (st) { st.flowers.push(c); }, { copies: true, paths: ['hand.flowers'] });
    }
    return change(function (st) {
      if (st.win) { st.hand.push(st.win); st.win = null; }
      st.hand.push(c);
      if (total(st) === need(st)) st.win = st.hand.pop();
      else if (total(st) > need(st)) { st.win = st.hand.pop(); }
    }, { copies: true, full: true });
  }

  function chowTiles(c) {
    return [c, (+c[0] + 1) + c[1], (+c[0] + 2) + c[1]];
  }

  function addMeld(c) {
    var type = ui.meldType;
    var meld = { type: type };
    if (type === 'chow') meld.tiles = chowTiles(c);
    else meld.tiles = type === 'pung' ? [c, c, c] : [c, c, c, c];
    if (type === 'kong' && ui.kongKind === 'concealed') meld.concealed = true;
    else meld.from = ui.meldFrom || PREV[state.seat];
    if (type === 'kong' && ui.kongKind === 'added') meld.added = true;
    return change(function (st) {
      var tot = total(st);
      st.melds.push(meld);
      // keep the tiles already in hand; a full hand drops the winning-tile slot first
      if (tot > need(st) && st.win) { st.hand.push(st.win); st.win = null; }
    }, { copies: true, paths: ['hand.melds'] });
  }

  function setIndicator(c) {
    ui.target = 'hand';
    return change(function (st) { st.indicator = c; }, { copies: true, paths: ['caishen', 'hand.melds'] });
  }

  function onPalette(c) {
    if (ui.target === 'indicator') return setIndicator(c);
    if (T.isFlower(c) && caishenKinds(state).indexOf(c) < 0) return addToHand(c);
    if (ui.target === 'meld') return addMeld(c);
    return addToHand(c);
  }

  function removeFromHand(c, role) {
    return change(function (st) {
      if (role === 'win') { st.win = null; return; }
      var i = st.hand.indexOf(c);
      if (i >= 0) st.hand.splice(i, 1);
    });
  }

  function quickAdd(text) {
    var parsed = T.parseCompact(text);
    if (parsed.bad.length) {
      return run(function () {
        var st = clone(state);
        var req = scoreRequest(st);
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

  /* ---- events ------------------------------------------------------------------------- */
  function bind() {
    $('lang-zh').addEventListener('click', function () { setLang('zh'); });
    $('lang-en').addEventListener('click', function () { setLang('en'); });
    $('copy-link').addEventListener('click', function () {
      writeURL();
      var done = function () { notice(null); flash(t('link_copied')); };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(location.href).then(done, function () { flash(t('link_copy_failed')); });
      } else {
        flash(t('link_copy_failed'));
      }
    });
    $('clear').addEventListener('click', function () {
      change(function (st) {
        var keep = { preset: st.preset, seat: st.seat, round: st.round, base: st.base };
        var b = blank();
        Object.keys(b).forEach(function (k) { st[k] = b[k]; });
        Object.keys(keep).forEach(function (k) { st[k] = keep[k]; });
      });
    });

    $('palette').addEventListener('click', function (e) {
      var b = e.target.closest('button[data-tile]');
      if (b && !b.disabled) onPalette(b.getAttribute('data-tile'));
    });
    $('hand').addEventListener('click', function (e) {
      var b = e.target.closest('button[data-tile]');
      if (b) removeFromHand(b.getAttribute('data-tile'), b.getAttribute('data-role'));
    });
    $('flowers').addEventListener('click', function (e) {
      var b = e.target.closest('button[data-tile]');
      if (!b) return;
      var c = b.getAttribute('data-tile');
      change(function (st) { st.flowers.splice(st.flowers.indexOf(c), 1); });
    });
    $('win-tile').addEventListener('change', function (e) {
      var c = e.target.value;
      change(function (st) {
        if (!st.win || st.win === c) return;
        var i = st.hand.indexOf(c);
        if (i < 0) return;
        st.hand.splice(i, 1);
        st.hand.push(st.win);
        st.win = c;
      }, { paths: ['hand.winning_tile', 'win'] });
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

    $('indicator-pick').addEventListener('click', function () {
      ui.target = 'indicator';
      renderInputs();
      var first = $('palette').querySelector('button:not([disabled])');
      if (first) first.focus();
    });
    $('indicator-clear').addEventListener('click', function () {
      change(function (st) { st.indicator = null; });
    });

    Array.prototype.forEach.call(document.querySelectorAll('input[name="target"]'), function (r) {
      r.addEventListener('change', function () { if (r.checked) { ui.target = r.value; renderInputs(); } });
    });
    $('meld-type').addEventListener('change', function (e) { ui.meldType = e.target.value; renderInputs(); });
    $('kong-kind').addEventListener('change', function (e) { ui.kongKind = e.target.value; renderInputs(); });
    $('meld-from').addEventListener('change', function (e) { ui.meldFrom = e.target.value; });

    $('preset').addEventListener('change', function (e) {
      var v = e.target.value;
      change(function (st) { st.preset = v; });
    });
    $('seat').addEventListener('change', function (e) {
      var v = e.target.value;
      change(function (st) { st.seat = v; }, { paths: ['hand.melds', 'win', 'claims_from_winner'] });
    });
    $('round').addEventListener('change', function (e) {
      var v = e.target.value;
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
    $('claims').addEventListener('change', function (e) {
      var el = e.target;
      if (el.getAttribute('data-act') !== 'claim') return;
      var s = el.getAttribute('data-seat');
      var v = Math.max(0, parseInt(el.value, 10) || 0);
      change(function (st) { st.claims[s] = v; }, { paths: ['claims_from_winner'] });
    });

    $('result-body').addEventListener('click', function (e) {
      var b = e.target.closest('button[data-act="try"]');
      if (b) addToHand(b.getAttribute('data-tile'));
    });
    $('summary').addEventListener('click', function () {
      $('result').scrollIntoView({ behavior: 'smooth', block: 'start' });
      $('h-result').focus();
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

    // a link to another hand opened in this tab (in-page anchors are not hands: no '=')
    window.addEventListener('hashchange', function () {
      if (location.hash === lastHash || location.hash.indexOf('=') < 0) return;
      run(function () {
        state = decode(location.hash);
        notice(null);
        return commit();
      });
    });
  }

  var flashTimer = null;
  function flash(msg) {
    var el = $('summary');
    var old = el.textContent;
    el.textContent = msg;
    clearTimeout(flashTimer);
    flashTimer = setTimeout(function () { if (el.textContent === msg) el.textContent = old; }, 2000);
  }

  function setLang(l) {
    run(function () {
      lang = l;
      notice(null);
      return commit();
    });
  }

  /* ---- start -------------------------------------------------------------------------- */
  function start() {
    buildPalette();
    bind();
    state = decode(location.hash);
    renderInputs();
    run(function () {
      return api('GET', '/v1/rules').then(function (r) {
        if (r.ok && r.data && Array.isArray(r.data.presets)) presets = r.data.presets;
        return commit();
      });
    });
  }

  start();
})();
