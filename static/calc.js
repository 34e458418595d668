/* Ningbo mahjong calculator page: builds a hand by tapping tiles and asks the public API.
 *
 * Calls only POST /v1/score, /v1/waits, /v1/analyze and GET /v1/rules (same origin), and none
 * for a hand it knows is incomplete.  The hand lives in the URL fragment (one history entry per
 * change, so Back and Undo restore the previous hand) and a copied link restores it; the
 * language is the reader's own unless the link names one.  Impossible choices are refused before
 * they are kept, with the API's own message (a probe request is sent first).
 */
(function () {
  'use strict';

  var T = window.NBTiles;
  var SEATS = ['E', 'S', 'W', 'N'];
  var PREV = { E: 'N', S: 'E', W: 'S', N: 'W' };   // 上家 (docs/rules.md §1)
  var HISTORY_KEY = 'nb-calc-history';
  var LANG_KEY = 'nb-calc-lang';
  var HISTORY_MAX = 8;
  var HAND_KEY = 'nb-calc-hand';
  var RULES_KEY = 'nb-calc-rules';
  var RULES_MAX_AGE = 24 * 3600 * 1000;    // /v1/rules changes only with a release

  /* Modes of the palette: where a tapped tile goes (one-shot modes return to the hand). */
  var MODES = {
    hand: { target: 'hand' }, win: { target: 'win' }, run: { target: 'run' },
    chow: { target: 'meld', type: 'chow' }, pung: { target: 'meld', type: 'pung' },
    kong: { target: 'meld', type: 'kong', kind: 'exposed' },
    ckong: { target: 'meld', type: 'kong', kind: 'concealed' },
    akong: { target: 'meld', type: 'kong', kind: 'added' },
    indicator: { target: 'indicator' }
  };

  /* Labels of the rule options GET /v1/rules gives (docs/rules.md §9); an option without one shows its id. */
  var OPTION_LABELS = {
    zh: {
      caishen_rule: '财神怎么定', white_dragon_substitutes: '白板代替财神原牌', min_tai: '起胡台数',
      three_caishen_bonus: '三财神为奖励台（不计起胡）', required_patterns: '必须的牌型', discard_wins: '可以捉冲',
      caishen_discard_restriction: '有财神时捉冲的限制', robbing_needs_no_caishen_discarded: '打过财神不能抢杠',
      points: '分数算法', chi_counts_for_liability: '吃也算包', related_discarder: '相关打牌者',
      kong_bloom_others_pay: '杠上开花别家也付', liability_others_pay: '包自摸时别家也付', liability_cap: '包的上限', hand_cap: '每手封顶',
      draw_keeps_dealer: '流局连庄', chow_swap_allowed: '可以吃张打张', robbed_kong_liability: '抢杠时包家也付',
      escape_penalty_to: '逃跑罚分归谁', item_tai: '台数改动'
    },
    en: {
      caishen_rule: 'Caishen rule', white_dragon_substitutes: 'White dragon stands for the caishen face',
      min_tai: 'Minimum 台', three_caishen_bonus: 'Three caishen is a bonus (not toward the minimum)',
      required_patterns: 'Required patterns', discard_wins: 'Wins on a discard',
      caishen_discard_restriction: 'Discard wins with caishen', robbing_needs_no_caishen_discarded:
        'Robbing a kong needs no caishen discarded', points: 'Points', chi_counts_for_liability: 'Chows count for 包',
      related_discarder: 'Related discarder', kong_bloom_others_pay: 'Others pay for a kong bloom',
      liability_others_pay: 'Others pay for a 包 self-draw',
      liability_cap: '包 cap', hand_cap: 'Hand cap', draw_keeps_dealer: 'A draw keeps the dealer',
      chow_swap_allowed: 'May discard what a chow could swap (吃张打张)',
      robbed_kong_liability: '包 partner pays on a robbed kong', escape_penalty_to: 'Escape penalty goes to',
      item_tai: '台 changes'
    }
  };

  /* ---- strings ------------------------------------------------------------------------ */
  var I18N = {
    zh: {
      title: '宁波麻将 台数计算器', skip: '跳到选牌', copy_link: '复制链接', link_copied: '链接已复制',
      link_copy_failed: '无法自动复制，请复制地址栏中的链接', clear: '清空', undo: '撤销', to_result: '看结果',
      settings: '规则与财神', preset: '规则', seat: '本家（胡牌者）', round: '圈风', base: '底分',
      indicator: '财神翻牌', indicator_none: '无财神', no_indicator: '无', caishen_kinds: '财神：',
      rule_details: '这套规则的选项', rulebook: function (n) { return '按规则书第 ' + n + ' 版计分'; },
      yes: '是', no: '否', none_value: '无',
      hand: '手牌', details: '吃碰杠与花', winning_tile: '胡的牌',
      melds: '吃碰杠的牌', melds_empty: '没有吃碰杠。选“吃/碰/杠”再点牌。',
      flowers: '花牌', flowers_empty: '没有花。点花牌即加入。',
      palette: '选牌', target: '点牌加入到', m_hand: '手牌', m_win: '胡的牌', m_run: '一串三张', m_chow: '吃', m_pung: '碰',
      m_kong: '明杠', m_ckong: '暗杠', m_akong: '加杠', m_indicator: '财神翻牌',
      meld_from: '从谁那里',
      quick: '键盘输入（如 123m 456p EE C 2f）', quick_add: '加入', quick_summary: '用键盘输入', share: '分享',
      win_context: '胡牌情形', win_by: '怎么胡', self_draw: '自摸', discard: '捉冲（别人打出）',
      robbing_kong: '抢杠', win_from: '打出/被抢的人', kong_replacement: '杠上开花',
      kong_fed_by: '杠的牌是谁打的', nobody: '（无）', last_tile: '海底捞月', heavenly: '天胡',
      earthly: '地胡', discarded_caishen: '本局打出过财神', claims: '别家吃碰杠了本家几次（包）',
      claims_less: function (s) { return this.seat_names[s] + '家少一次'; },
      claims_more: function (s) { return this.seat_names[s] + '家多一次'; },
      result: '结果', foot: '计分按本服务的规则书；页面只调用公开的计分接口。',
      history: '最近算过的牌', history_empty: '还没有。算过的牌会留在这个浏览器里。',
      copy_result: '复制结果文字', result_copied: '结果已复制',
      win_mark: '胡', dealer: '庄',
      seat_names: { E: '东', S: '南', W: '西', N: '北' },
      seat_opt: function (s) { return this.seat_names[s] + (s === 'E' ? '（庄家）' : ''); },
      count: function (n, need) { return n + ' / ' + need + ' 张'; },
      more: function (k) { return '还差 ' + k + ' 张'; },
      need_more: function (k, need, m) {
        return '还差 ' + k + ' 张才显示听牌。有 ' + m + ' 组副露时手牌要 ' + need + ' 张，少一张时显示听什么牌。';
      },
      too_many: function (k) { return '多了 ' + k + ' 张'; },
      empty_verdict: '点牌开始',
      empty: '点下面的牌开始。手牌满了显示台数和付款，少一张显示听牌。',
      add_tile: function (n) { return '加入 ' + n; },
      add_run: function (n) { return '加入顺子：' + n + '起'; },
      add_meld: function (n, type) { return '加入' + type + '：' + n; },
      set_indicator: function (n) { return '翻牌设为 ' + n; },
      left: function (k) { return '还剩 ' + k + ' 张'; },
      used_up: '已用完',
      remove_tile: function (n) { return '移除 ' + n; },
      win_tile_label: function (n) { return '胡的牌 ' + n + '（点一下换）'; },
      win_slot_empty: '胡的牌（点一下，再点一张牌）', slot_mark: '胡',
      set_win: function (n) { return '设为胡的牌 ' + n; },
      meld_label: function (i) { return '第 ' + (i + 1) + ' 组'; },
      remove_meld: function (i) { return '删除第 ' + (i + 1) + ' 组'; },
      meld_kind: '种类', from_label: '从谁那里', k_exposed: '明杠', k_concealed: '暗杠', k_added: '加杠',
      chow: '吃', pung: '碰', kong: '杠',
      chow_hint: '吃：点顺子中最小的一张（一到七），只能吃上家的牌。',
      pung_hint: '碰：点那张牌。', kong_hint: '杠：点那张牌。',
      run_hint: '一串三张：点最小的一张，三张一起进手牌。',
      win_hint: '点一张牌作为胡的牌（点手牌里的一张也行）。',
      indicator_hint: '点一张牌作为财神翻牌。',
      legend: '数字是还剩几张；灰的已用完。带“财”字的是财神。',
      claims_seat: function (s) { return this.seat_names[s] + '家'; },
      refused: '不可能：', close: '关闭',
      offline: '连不上计分服务。请检查网络后重试。', retry: '重试', offline_verdict: '连不上服务',
      link_bad: '这个链接里的牌不可能存在：', link_clear: '清空重来',
      tai: '台', counted: '计入', min: '起胡', eligible: '够台，可以胡', not_eligible: '不够台，不能胡',
      points: '每份分数', items: '台数明细', col_item: '项目', col_tai: '台',
      col_tiles: '牌', total: '合计', bonus: '奖励台，不计入起胡',
      decomposition: '牌型拆解', wait: '等牌方式',
      waits_kind: { two_sided: '两头', edge: '边张', closed: '夹张', single: '单吊', dual_pung: '对倒' },
      set_kind: { chow: '顺子', pung: '刻子', kong: '杠', pair: '将（对子）' },
      source: { concealed: '手里', meld: '吃碰杠', ckong: '暗杠' },
      caishen_as: function (a, b) { return '财神 ' + a + ' 当作 ' + b; },
      caishen_list: '财神的用法：', caishen_badge: '财', caishen_tile: function (n) { return n + '（财神）'; },
      payments: '付款', pay_from: '付', pay_to: '收', pay_amount: '分数', pay_reason: '原因',
      net: '净得', winner: '胡',
      reasons: { self_draw: '自摸', discard: '捉冲', kong_bloom: '杠上开花', robbing_kong: '抢杠' },
      liability: { related: '包', mutual: '双包' },
      no_payments: '没有付款。',
      waits: '听牌', waits_none: '这手牌不听任何牌。', any_tile: '任何牌都能胡（财神）。',
      col_wait: '牌', col_unseen: '未见', col_self: '自摸', col_discard: '捉冲', col_try: '试胡',
      col_ok: '能胡吗',
      try_win: function (n) { return '以 ' + n + ' 胡'; },
      self_value: function (v, got) { return v.tai + ' 台 · 收 ' + got; },
      disc_value: function (v, who, paid) { return v.tai + ' 台 · ' + this.seat_names[who] + '家付 ' + paid; },
      below: function (v) { return v.tai + ' 台 · 不够 ' + v.min_tai + ' 台'; },
      shares: function (parts) { return '（' + parts + '）'; },
      can_win: '能胡', cannot_win: '不能胡',
      waits_count: function (n, u) { return '听 ' + n + ' 种牌，未见 ' + u + ' 张'; },
      discard_by: function (s) { return this.seat_names[s] + '家打出'; },
      problem: '问题',
      v_score: function (d, w) {
        return (w ? '胡' + w + ' · ' : '') + d.tai + ' 台 · ' + (d.eligible ? '够台 · 每份 ' + d.points + ' 分' : '不够 ' + d.min_tai + ' 台');
      },
      v_waits: function (n, ok) { return n ? '听 ' + n + ' 种牌 · 能胡 ' + ok + ' 种' : '不听牌'; },
      v_no_win: '不是胡牌',
      analysis: '打哪张', analysis_show: '看看打哪张', col_drop: '打', col_shanten: '离听牌',
      col_improving: '进张', col_eligible: '能胡的听牌',
      shanten: function (n) { return n < 0 ? '已胡' : n === 0 ? '听牌' : '还差 ' + n + ' 张听牌'; },
      improving_total: function (u) { return '共 ' + u + ' 张'; },
      eligible_total: function (u) { return '共 ' + u + ' 张'; },
      col_value: function (n) { return n + ' 摸内胡牌的机会 · 平均得分'; },
      value_cell: function (p, e) { return '胡 ' + p + '% · 均 ' + e + ' 分'; },
      drop: function (n) { return '打出 ' + n; },
      none: '—',
      busy: '计算中…',
      txt_title: '宁波麻将计分',
      txt_seat: function (s, r) { return '本家 ' + this.seat_names[s] + ' · 圈风 ' + this.seat_names[r]; },
      txt_hand: '手牌', txt_melds: '吃碰杠', txt_flowers: '花', txt_caishen: '财神', txt_items: '台数',
      txt_net: '净得', txt_win_on: '胡',
      done: '好了', session: '今晚的牌局', ses_intro: '四个人的名字，按座位顺序（第一个先坐庄）。每算好一手就记进来，随时看谁输谁赢。',
      ses_name: function (i) { return '第 ' + (i + 1) + ' 位'; }, ses_defaults: ['阿大', '阿二', '阿三', '阿四'],
      ses_start: '开始记分', ses_add: '记入这一手', ses_add_n: function (n) { return '记入今晚（第 ' + n + ' 手）'; }, ses_draw: '流局', ses_share: '复制这一晚的链接', ses_new: '重新开始',
      ses_new_confirm: '清掉今晚的记录，重新开始？',
      ses_next: function (n, dealer, wind) { return '第 ' + n + ' 手 · ' + dealer + ' 坐庄 · ' + this.seat_names[wind] + '风圈'; },
      ses_col_hand: '手', ses_col_what: '结果',
      ses_dealer: function (d, w) { return d + ' 坐庄 · ' + this.seat_names[w] + '风圈'; },
      ses_win: function (h) {
        return h.winner + ' 胡 ' + h.tai + ' 台' + (h.by === 'self_draw' ? ' 自摸' : h.from ? ' ' + h.from + ' 放冲' : '') +
          (h.eligible ? '' : '（不够台）');
      },
      ses_drawn: '流局', ses_total: '合计', ses_settle: '到现在谁付谁：', ses_pays: function (a, b, n) { return a + ' 付 ' + b + ' ' + n; },
      ses_even: '谁也不欠谁。', ses_empty: '还没有记哪一手。', ses_kept: '记在这部手机上；刷新也还在。',
      ses_offline: '离线：已记下的手都留着，连上网再结算。', ses_added: '已记入',
      ses_seat: function (s, name) { return this.seat_names[s] + ' ' + name; },
      ses_bad: '这一晚的记录有一手算不了：',
      ctx_seat: function (s) { return this.seat_names[s] + '家' + (s === 'E' ? '（庄）' : ''); },
      ctx_round: function (r) { return this.seat_names[r] + '风圈'; },
      ctx_self: '自摸', ctx_disc: function (s) { return '捉冲 ' + this.seat_names[s] + '家打'; },
      ctx_rob: function (s) { return '抢' + this.seat_names[s] + '家的杠'; },
      ctx_claims: function (s, n) { return this.seat_names[s] + '家吃碰 ' + n + ' 次'; },
      ctx_cs: function (n) { return '财神 ' + n; }, ctx_no_cs: '无财神', ctx_dc: '打过财神',
      pay_each: function (froms, amt, to, tot) {
        var self = this;
        return froms.map(function (s) { return self.seat_names[s]; }).join('、') + (froms.length > 1 ? '各' : '') +
          '付 ' + amt + ' → ' + this.seat_names[to] + '家收 ' + tot;
      },
      pay_list: function (parts, to, tot) { return parts.join('，') + ' → ' + this.seat_names[to] + '家收 ' + tot; },
      pay_part: function (s, amt) { return this.seat_names[s] + '付 ' + amt; },
      pay_none: '不够台，没人付', capped: function (cap) { return '（封顶 ' + cap + '）'; },
      cap_note: function (cap, full) {
        return '每手封顶 ' + cap + ' 分：按每份分数本来共收 ' + full + '，封顶后只收 ' + cap + '，各家按比例少付。';
      },
      bar_waits: function (names) { return '听 ' + names.join('、'); },
      bar_best: function (n, k) { return '打 ' + n + ' 最好' + (k ? '，听 ' + k + ' 种' : ''); },
      bar_shanten: function (n) { return n === 0 ? '听牌' : '还差 ' + n + ' 张听牌'; },
      more_discards: function (k) { return '再看 ' + k + ' 种打法'; },
      err_500: '计分服务出错了。再试一次。', err_503: '计分服务暂时忙不过来。过一会儿再试。',
      err_429: function (s) { return '请求太多了。' + (s ? '请等 ' + s + ' 秒再试。' : '请稍等再试。'); },
      err_status: function (n) { return '计分服务没有回答（' + n + '）。再试一次。'; },
      v_error: '出错了，可以重试', problem_title: '这手牌有问题',
      offline_state: '离线', offline_note: '离线：手牌和牌局都留在这部手机上，连上网就能算。',
      opt_values: {
        indicator: '翻牌的下一张', indicator_and_next: '翻牌的下两张（7百搭）', single_wait: '只限单吊',
        any_group: '任何一组', linear: '底分 ×（1 + 台数）', doubling: '4 台起翻倍', add: '加台', five: '算 5 台',
        full_flush: '清一色', half_flush: '混一色', all_honors: '字一色', all_pungs: '碰碰胡'
      }
    },
    en: {
      title: 'Ningbo mahjong calculator', skip: 'Skip to the tiles', copy_link: 'Copy link',
      link_copied: 'Link copied', link_copy_failed: 'Could not copy: copy the address bar', clear: 'Clear',
      undo: 'Undo', to_result: 'Result',
      settings: 'Rules and caishen', preset: 'Rules', seat: 'Your seat (winner)', round: 'Round wind',
      base: 'Base points', indicator: 'Caishen indicator', indicator_none: 'No caishen', no_indicator: 'none',
      caishen_kinds: 'Caishen: ', rule_details: 'Options of these rules',
      rulebook: function (n) { return 'Scored by rule book ' + n; }, yes: 'yes', no: 'no', none_value: 'none',
      hand: 'Hand', details: 'Melds and flowers', winning_tile: 'Winning tile',
      melds: 'Melds (chow, pung, kong)', melds_empty: 'No melds. Choose Chow, Pung or a kong, then tap a tile.',
      flowers: 'Flowers', flowers_empty: 'No flowers. Tap a flower to add it.', palette: 'Tiles',
      target: 'A tapped tile goes to', m_hand: 'Hand', m_run: 'Run to hand', m_chow: 'Chow', m_pung: 'Pung',
      m_win: 'Winning tile', m_kong: 'Kong', m_ckong: 'Concealed kong', m_akong: 'Added kong', m_indicator: 'Caishen indicator',
      meld_from: 'Claimed from',
      quick: 'Type tiles (e.g. 123m 456p EE C 2f)', quick_add: 'Add', quick_summary: 'Type tiles', share: 'Share', win_context: 'How the hand was won',
      win_by: 'Won by', self_draw: 'Self-draw', discard: 'Discard', robbing_kong: 'Robbing a kong',
      win_from: 'Discarder / robbed player', kong_replacement: 'Kong bloom',
      kong_fed_by: 'Kong fed by', nobody: '(nobody)', last_tile: 'Last tile',
      heavenly: 'Heavenly hand', earthly: 'Earthly hand',
      discarded_caishen: 'I discarded a caishen this hand', claims: 'Melds each player claimed from you (包)',
      claims_less: function (s) { return 'One fewer for ' + this.seat_names[s]; },
      claims_more: function (s) { return 'One more for ' + this.seat_names[s]; },
      result: 'Result',
      foot: 'Scored by this service’s rule book; the page uses only the public API (/v1/score, /v1/waits, /v1/analyze, /v1/rules).',
      history: 'Recent hands', history_empty: 'None yet. Hands you score stay in this browser.',
      copy_result: 'Copy the result as text', result_copied: 'Result copied',
      win_mark: 'win', dealer: 'dealer',
      seat_names: { E: 'East', S: 'South', W: 'West', N: 'North' },
      seat_opt: function (s) { return this.seat_names[s] + (s === 'E' ? ' (dealer)' : ''); },
      count: function (n, need) { return n + ' / ' + need + ' tiles'; },
      more: function (k) { return k + ' more tile' + (k === 1 ? '' : 's'); },
      need_more: function (k, need, m) {
        return k + ' more tile' + (k === 1 ? '' : 's') + ' to see the waits. With ' + m + ' meld' + (m === 1 ? '' : 's') +
          ' the hand holds ' + need + ' tiles; one fewer shows what it waits on.';
      },
      too_many: function (k) { return k + ' tile' + (k === 1 ? '' : 's') + ' too many'; },
      empty_verdict: 'Tap a tile to start',
      empty: 'Tap the tiles below. A full hand shows its 台 and payments; one tile fewer shows its waits.',
      add_tile: function (n) { return 'Add ' + n; },
      add_run: function (n) { return 'Add a run from ' + n; },
      add_meld: function (n, type) { return 'Add ' + type + ': ' + n; },
      set_indicator: function (n) { return 'Set indicator ' + n; },
      left: function (k) { return k + ' left'; },
      used_up: 'all used',
      remove_tile: function (n) { return 'Remove ' + n; },
      win_tile_label: function (n) { return 'Winning tile ' + n + ' (tap to change)'; },
      win_slot_empty: 'Winning tile (tap here, then a tile)', slot_mark: 'win',
      set_win: function (n) { return 'Make ' + n + ' the winning tile'; },
      meld_label: function (i) { return 'Meld ' + (i + 1); },
      remove_meld: function (i) { return 'Remove meld ' + (i + 1); },
      meld_kind: 'Kind', from_label: 'From', k_exposed: 'Exposed', k_concealed: 'Concealed', k_added: 'Added',
      chow: 'chow', pung: 'pung', kong: 'kong',
      chow_hint: 'Chow: tap its lowest tile (1–7); a chow comes only from the player before you.',
      pung_hint: 'Pung: tap the tile.', kong_hint: 'Kong: tap the tile.',
      run_hint: 'Run to hand: tap its lowest tile; all three go to the hand.',
      win_hint: 'Tap the tile the hand was won on (a tile of the hand too).',
      indicator_hint: 'Tap the tile turned up as the caishen indicator.',
      legend: 'The number is how many copies are left; grey ones are used up. 财 marks a caishen.',
      claims_seat: function (s) { return this.seat_names[s]; },
      refused: 'Not possible: ', close: 'Close',
      offline: 'The scoring service cannot be reached. Check the connection and try again.', retry: 'Try again',
      offline_verdict: 'Service unreachable',
      link_bad: 'This link holds a hand that cannot exist: ', link_clear: 'Clear and start over',
      tai: '台', counted: 'counted', min: 'minimum', eligible: 'enough 台: a win',
      not_eligible: 'not enough 台: no win', points: 'Points per share', items: '台 items',
      col_item: 'Item', col_tai: '台', col_tiles: 'Tiles', total: 'Total',
      bonus: 'bonus, not counted toward the minimum', decomposition: 'Decomposition', wait: 'Wait',
      waits_kind: { two_sided: 'two-sided', edge: 'edge', closed: 'closed', single: 'single', dual_pung: 'dual pung' },
      set_kind: { chow: 'chow', pung: 'pung', kong: 'kong', pair: 'pair' },
      source: { concealed: 'in hand', meld: 'meld', ckong: 'concealed kong' },
      caishen_as: function (a, b) { return 'caishen ' + a + ' as ' + b; },
      caishen_list: 'Caishen used as: ', caishen_badge: '财', caishen_tile: function (n) { return n + ' (caishen)'; },
      payments: 'Payments', pay_from: 'From', pay_to: 'To', pay_amount: 'Amount', pay_reason: 'Reason',
      net: 'net', winner: 'winner',
      reasons: { self_draw: 'self-draw', discard: 'discard', kong_bloom: 'kong bloom', robbing_kong: 'robbing a kong' },
      liability: { related: 'liable (包)', mutual: 'mutually liable (双包)' },
      no_payments: 'No payments.',
      waits: 'Waits', waits_none: 'This hand waits on nothing.', any_tile: 'Any tile completes it (caishen).',
      col_wait: 'Tile', col_unseen: 'Unseen', col_self: 'Self-draw', col_discard: 'Discard', col_try: 'Try it',
      col_ok: 'Can win',
      try_win: function (n) { return 'Win on ' + n; },
      self_value: function (v, got) { return v.tai + ' 台 · collects ' + got; },
      disc_value: function (v, who, paid) { return v.tai + ' 台 · ' + this.seat_names[who] + ' pays ' + paid; },
      below: function (v) { return v.tai + ' 台 · below ' + v.min_tai + ' 台'; },
      shares: function (parts) { return ' (' + parts + ')'; },
      can_win: 'can win', cannot_win: 'cannot win',
      waits_count: function (n, u) { return n + ' kind' + (n === 1 ? '' : 's') + ', ' + u + ' unseen'; },
      discard_by: function (s) { return 'from ' + this.seat_names[s]; },
      problem: 'Problem',
      v_score: function (d, w) {
        return (w ? 'On ' + w + ' · ' : '') + d.tai + ' 台 · ' + (d.eligible ? 'win, ' + d.points + ' pts' : 'below ' + d.min_tai + ' 台');
      },
      v_waits: function (n, ok) { return n ? 'Waiting on ' + n + ' · ' + ok + ' can win' : 'No wait'; },
      v_no_win: 'Not a winning hand',
      analysis: 'What to discard', analysis_show: 'What to discard?', col_drop: 'Discard', col_shanten: 'Shanten',
      col_improving: 'Improving tiles', col_eligible: 'Waits that can win',
      shanten: function (n) { return n < 0 ? 'complete' : n === 0 ? 'tenpai' : n + '-shanten'; },
      improving_total: function (u) { return u + ' in all'; },
      eligible_total: function (u) { return u + ' in all'; },
      col_value: function (n) { return 'Chance to win in ' + n + ' draws · points on average'; },
      value_cell: function (p, e) { return 'win ' + p + '% · ' + e + ' pts'; },
      drop: function (n) { return 'Discard ' + n; },
      none: '—',
      busy: 'Working…',
      txt_title: 'Ningbo mahjong score',
      txt_seat: function (s, r) { return 'Seat ' + this.seat_names[s] + ' · round ' + this.seat_names[r]; },
      txt_hand: 'Hand', txt_melds: 'Melds', txt_flowers: 'Flowers', txt_caishen: 'Caishen', txt_items: '台',
      txt_net: 'Net', txt_win_on: 'win on',
      done: 'Done', session: 'This evening', ses_intro: 'Four names in seating order (the first deals first). Each hand you score joins the list, with running totals.',
      ses_name: function (i) { return 'Player ' + (i + 1); }, ses_defaults: ['Ann', 'Bo', 'Cy', 'Di'],
      ses_start: 'Start', ses_add: 'Add this hand', ses_add_n: function (n) { return 'Add to the evening (hand ' + n + ')'; }, ses_draw: 'Draw', ses_share: 'Copy the evening’s link', ses_new: 'Start over',
      ses_new_confirm: 'Clear this evening and start over?',
      ses_next: function (n, dealer, wind) { return 'Hand ' + n + ' · ' + dealer + ' deals · ' + this.seat_names[wind] + ' round'; },
      ses_col_hand: '#', ses_col_what: 'Hand',
      ses_dealer: function (d, w) { return d + ' deals · ' + this.seat_names[w] + ' round'; },
      ses_win: function (h) {
        return h.winner + ' wins ' + h.tai + ' 台' + (h.by === 'self_draw' ? ', self-draw' : h.from ? ' off ' + h.from : '') +
          (h.eligible ? '' : ' (below the minimum)');
      },
      ses_drawn: 'Draw', ses_total: 'Total', ses_settle: 'Who pays whom so far: ', ses_pays: function (a, b, n) { return a + ' pays ' + b + ' ' + n; },
      ses_even: 'Nobody owes anybody.', ses_empty: 'No hand yet.', ses_kept: 'Kept on this phone; a reload keeps it.',
      ses_offline: 'Offline: the hands are kept; they are settled once you are online.', ses_added: 'Added',
      ses_seat: function (s, name) { return this.seat_names[s] + ' ' + name; },
      ses_bad: 'A hand of this evening cannot be scored: ',
      ctx_seat: function (s) { return this.seat_names[s] + (s === 'E' ? ' (dealer)' : ''); },
      ctx_round: function (r) { return this.seat_names[r] + ' round'; },
      ctx_self: 'self-draw', ctx_disc: function (s) { return 'discard by ' + this.seat_names[s]; },
      ctx_rob: function (s) { return 'robbing ' + this.seat_names[s] + '’s kong'; },
      ctx_claims: function (s, n) { return this.seat_names[s] + ' claimed ' + n; },
      ctx_cs: function (n) { return 'caishen ' + n; }, ctx_no_cs: 'no caishen', ctx_dc: 'caishen discarded',
      pay_each: function (froms, amt, to, tot) {
        var self = this;
        return froms.map(function (s) { return self.seat_names[s]; }).join(', ') + ' pay' + (froms.length > 1 ? ' ' + amt + ' each' : 's ' + amt) +
          ' → ' + this.seat_names[to] + ' +' + tot;
      },
      pay_list: function (parts, to, tot) { return parts.join(', ') + ' → ' + this.seat_names[to] + ' +' + tot; },
      pay_part: function (s, amt) { return this.seat_names[s] + ' pays ' + amt; },
      pay_none: 'Below the minimum: nobody pays', capped: function (cap) { return ' (capped at ' + cap + ')'; },
      cap_note: function (cap, full) {
        return 'Hand cap ' + cap + ': the shares come to ' + full + ', the winner collects ' + cap + ', each payer scaled down.';
      },
      bar_waits: function (names) { return 'Waits: ' + names.join(', '); },
      bar_best: function (n, k) { return 'Best discard: ' + n + (k ? ', then ' + k + ' wait' + (k === 1 ? '' : 's') : ''); },
      bar_shanten: function (n) { return n === 0 ? 'ready' : n + ' tile' + (n === 1 ? '' : 's') + ' from ready'; },
      more_discards: function (k) { return 'Show ' + k + ' more'; },
      err_500: 'The scoring service failed. Try again.', err_503: 'The scoring service is busy. Try again shortly.',
      err_429: function (s) { return 'Too many requests. ' + (s ? 'Wait ' + s + ' s and try again.' : 'Wait a moment and try again.'); },
      err_status: function (n) { return 'The scoring service gave no answer (' + n + '). Try again.'; },
      v_error: 'Failed: try again', problem_title: 'This hand has a problem',
      offline_state: 'Offline', offline_note: 'Offline: the hand and the evening stay on this phone; they are scored once you are online.',
      opt_values: {
        indicator: 'the tile after the indicator', indicator_and_next: 'the two tiles after the indicator (7 baida)',
        single_wait: 'single wait only', any_group: 'any group', linear: 'base × (1 + 台)', doubling: 'doubling from 4 台',
        add: 'adds 台', five: 'counts as 5 台', full_flush: 'full flush', half_flush: 'half flush', all_honors: 'all honors',
        all_pungs: 'all pungs'
      }
    }
  };

  function storedLang() {
    try { return localStorage.getItem(LANG_KEY); } catch (e) { return null; }
  }
  var lang = storedLang() === 'zh' || storedLang() === 'en' ? storedLang()
    : /^zh/i.test(navigator.language || '') ? 'zh' : 'en';

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
  var ui = { mode: 'hand', meldFrom: '', analysisOpen: false };
  var presets = [];
  var rulebook = null;
  var baseline = null;     // last problem the API gave for the current state
  var seq = 0;
  var queue = Promise.resolve();
  var pending = 0;
  var lastResult = null;   // {kind: 'score'|'waits', data} of the current state, for the text summary

  function clone(o) { return JSON.parse(JSON.stringify(o)); }
  function need(st) { return 14 - 3 * st.melds.length; }
  function concealedOf(st) { return st.hand.concat(st.win ? [st.win] : []); }
  function total(st) { return st.hand.length + (st.win ? 1 : 0); }
  function mode() { return MODES[ui.mode]; }

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

  /* Copies of each kind in use: the hand, the melds, the flowers and the indicator. */
  function usedCounts(st) {
    var counts = {};
    var all = concealedOf(st).concat(st.flowers);
    st.melds.forEach(function (m) { all = all.concat(m.tiles); });
    if (st.indicator) all.push(st.indicator);
    all.forEach(function (c) { counts[c] = (counts[c] || 0) + 1; });
    return counts;
  }
  function copiesOf(c) { return T.isFlower(c) ? 1 : 4; }

  /* ---- URL ---------------------------------------------------------------------------- */
  function meldCode(m) {
    return m.type[0] + T.toCompact(m.tiles) + (m.from ? '-' + m.from : '') +
      (m.concealed ? '!' : '') + (m.added ? '+' : '');
  }

  /* The fragment of a state: no language (a link keeps its reader's language). */
  function encode(st) {
    var parts = [];
    function add(k, v) { parts.push(k + '=' + encodeURIComponent(v)); }
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

  function parseHash(hash) {
    var q = {};
    hash.replace(/^#/, '').split('&').forEach(function (kv) {
      if (!kv) return;
      var i = kv.indexOf('=');
      var k = i < 0 ? kv : kv.slice(0, i);
      var v = i < 0 ? '' : kv.slice(i + 1);
      try { q[k] = decodeURIComponent(v); } catch (e) { q[k] = v; }
    });
    return q;
  }

  /* A state from a fragment; a language the link names is taken (for this visit). */
  function decode(hash) {
    var st = blank();
    var q = parseHash(hash);
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

  function hasHand(st) { return total(st) > 0 || st.melds.length > 0 || st.flowers.length > 0; }

  /* The URL always holds the current hand, replaced in place: Back leaves the page (one press),
   * it is no undo.  Undo has its own stack of earlier hands (kept for this tab's session). */
  var lastHash = '';
  var UNDO_KEY = 'nb-calc-undo';
  var UNDO_MAX = 200;
  var undoStack = (function () {
    try {
      var v = JSON.parse(sessionStorage.getItem(UNDO_KEY) || '[]');
      return Array.isArray(v) ? v.filter(function (x) { return typeof x === 'string'; }) : [];
    } catch (e) { return []; }
  }());
  function saveUndo() {
    try { sessionStorage.setItem(UNDO_KEY, JSON.stringify(undoStack.slice(-UNDO_MAX))); } catch (e) { /* off */ }
  }
  function writeURL(push) {
    var h = '#' + encode(state);
    if (push && lastHash && lastHash !== h) {
      undoStack.push(lastHash);
      saveUndo();
    }
    lastHash = h;
    if (location.hash !== h) history.replaceState(null, '', location.pathname + location.search + h);
    try { localStorage.setItem(HAND_KEY, h); } catch (e) { /* full or off */ }
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
          return { status: res.status, ok: res.ok, data: data, retryAfter: parseInt(res.headers.get('Retry-After'), 10) || 0 };
        });
      })
      .then(function (r) { if (offline) setOffline(false); return r; })
      .catch(function () {
        setOffline(true);
        return { status: 0, ok: false, data: null, offline: true };
      });
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

  /* /v1/waits (and /v1/analyze): the /v1/score request with no winning_tile and no win.by. */
  function waitsRequest(st, tiles) {
    var r = baseRequest(st);
    r.hand.concealed = tiles || st.hand.slice();
    r.win = {};
    if (st.by === 'discard' && st.from) r.win.from = st.from;   // the discarder assumed for the discard value
    if (st.dc) r.win.discarded_caishen = true;
    return r;
  }

  /* A message of the API in the page's words: in Chinese, tile codes (1m, E…) become names. */
  var CODE_RE = /(^|[^A-Za-z0-9])([1-9][mps]|[1-8]f|[ESWNCFP])(?![A-Za-z0-9])/g;
  function plain(msg) {
    if (lang !== 'zh') return String(msg);
    return String(msg).replace(CODE_RE, function (_, pre, c) { return pre + T.name(c, 'zh'); });
  }

  function errorPairs(problem) {
    var out = [];
    if (problem && problem.errors && typeof problem.errors === 'object') {
      Object.keys(problem.errors).forEach(function (p) {
        [].concat(problem.errors[p]).forEach(function (m) { out.push([p, plain(m)]); });
      });
    }
    return out;
  }

  /* A refused request's title, in the page's language (a title in the other one is not shown). */
  function problemTitle(problem) {
    var title = problem && problem.title ? String(problem.title) : '';
    var cjk = /[\u3400-\u9fff]/.test(title);
    return title && (lang === 'zh' ? cjk : !cjk) ? title : t('problem_title');
  }

  /* No answer, or one that is no answer about the hand (429, 5xx): said in the page's words. */
  function failed(r) { return r.offline || r.status === 429 || r.status >= 500; }

  function failureText(r) {
    if (r.offline) return t('offline');
    if (r.status === 429) return t('err_429', r.retryAfter);
    if (r.status === 503) return t('err_503');
    if (r.status === 500) return t('err_500');
    return t('err_status', r.status);
  }

  function firstMessage(problem) {
    var pairs = errorPairs(problem);
    if (pairs.length) return pairs[0][1];
    return problem ? plain(problem.detail || problemTitle(problem)) : '';
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
  /* A kind with more copies than exist in st (and more than in `before`, when given: a link's
   * impossible hand does not refuse every later tap). */
  function overCopies(st, before) {
    var counts = usedCounts(st);
    var old = before ? usedCounts(before) : {};
    for (var i = 0; i < T.ALL.length; i++) {
      var c = T.ALL[i];
      var n = counts[c] || 0;
      if (n > copiesOf(c) && (!before || n > (old[c] || 0))) return { tile: c, count: n };
    }
    return null;
  }

  /* The API's message for too many copies of a tile: a request whose first problem is exactly
   * that (right tile count, nothing else wrong before it in docs/rules.md §10.15's order). */
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

  function copiesMessage(over, st) {
    return api('POST', '/v1/score', copiesProbe(over, st)).then(function (r) {
      if (r.offline) return { offline: true };
      if (failed(r)) return t('too_many', over.count - copiesOf(over.tile));
      return firstMessage(r.data) || t('too_many', over.count - copiesOf(over.tile));
    });
  }

  /* Applies a change to a copy of the state, asks the API whether it is possible, then keeps it
   * (a new history entry) or refuses it with the API's message.  opts: copies (check tile
   * copies), full (refuse an overfull hand), paths (field paths whose new problems refuse it). */
  function change(mutate, opts) {
    opts = opts || {};
    return run(function () {
      var next = clone(state);
      mutate(next);
      normalize(next);
      var step = Promise.resolve(null);
      if (opts.copies) {
        var over = overCopies(next, state);
        if (over) step = copiesMessage(over, next);
      }
      return step.then(function (msg) {
        if (msg) return msg;
        if (opts.full && total(next) > need(next)) {
          return t('too_many', total(next) - need(next)) + ' (' + t('count', total(next), need(next)) + ')';
        }
        if (opts.paths) {
          return api('POST', '/v1/score', scoreRequest(next)).then(function (r) {
            if (r.offline) return { offline: true };
            if (r.ok || !r.data || failed(r)) return null;
            var fresh = freshErrors(r.data, opts.paths);
            return fresh.length ? fresh.map(function (pm) { return pm[1]; }) : null;
          });
        }
        return null;
      }).then(function (msg) {
        if (msg && msg.offline) {
          showOffline();
          renderInputs();
          return null;
        }
        if (msg) {
          notice(msg);
          renderInputs();
          return false;
        }
        state = next;
        notice(null);
        if (opts.after) opts.after();
        return commit(true);
      });
    });
  }

  function setBusy(on) {
    app.setAttribute('data-busy', on ? '1' : '0');
    $('bar').setAttribute('data-busy', on ? '1' : '0');
    $('result').setAttribute('aria-busy', on ? 'true' : 'false');
  }

  function run(fn) {
    pending++;
    setBusy(true);
    queue = queue.then(fn).catch(function (e) {
      if (window.console) console.error(e);
    }).then(function () {
      pending--;
      if (!pending) setBusy(false);
    });
    return queue;
  }

  /* A refusal: shown over the page under the sticky bar (it never moves what is below). */
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
    var x = document.createElement('button');
    x.type = 'button';
    x.className = 'notice-x';
    x.setAttribute('aria-label', t('close'));
    x.textContent = '✕';
    el.appendChild(x);
  }

  /* ---- DOM helpers -------------------------------------------------------------------- */
  function $(id) { return document.getElementById(id); }
  var app = $('app');

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }

  function csBadge() { return '<span class="cs-badge" aria-hidden="true">' + esc(t('caishen_badge')) + '</span>'; }

  function tileSpan(c, extraClass, label) {
    var cs = /(^|\s)cs(\s|$)/.test(extraClass || '');
    return '<span class="tile ' + (extraClass || '') + '" role="img" aria-label="' +
      esc(label || (cs ? t('caishen_tile', T.name(c, lang)) : T.name(c, lang))) + '" data-tile="' + c + '">' +
      T.svg(c) + (cs ? csBadge() : '') + '</span>';
  }

  function tileButton(c, cls, label, attrs, extra) {
    var cs = /(^|\s)cs(\s|$)/.test(cls || '');
    return '<button type="button" class="tile ' + (cls || '') + '" aria-label="' + esc(label) +
      '" data-tile="' + c + '" ' + (attrs || '') + '>' + T.svg(c) + (cs ? csBadge() : '') + (extra || '') + '</button>';
  }

  /* A meld's tiles; a concealed kong shows its two end tiles face down, as it lies on the table. */
  function meldTiles(m, size) {
    return m.tiles.map(function (c, j) {
      var down = m.type === 'kong' && m.concealed && (j === 0 || j === 3);
      return down ? '<span class="tile back ' + size + '" role="img" data-tile="' + c + '" data-down="1" aria-label="' +
        esc(T.name(c, lang)) + '"></span>' : tileSpan(c, size);
    }).join('');
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

  function segButtons(el, value, act) {
    el.innerHTML = SEATS.map(function (s) {
      return '<button type="button" data-act="' + act + '" data-seat="' + s + '" aria-pressed="' + (s === value) + '">' +
        esc(act === 'round' ? I18N[lang].seat_names[s] : act === 'seat' && session ? sessionSeatLabel(s) : t('seat_opt', s)) +
        '</button>';
    }).join('');
  }

  function others(seat) { return SEATS.filter(function (s) { return s !== seat; }); }

  /* Seats a meld of this mode can be claimed from: a chow only from the 上家 (docs/rules.md §1). */
  function claimSeats(st) {
    return mode().type === 'chow' ? [PREV[st.seat]] : others(st.seat);
  }

  function fmtSigned(n) {
    if (n > 0) return '+' + n;
    if (n < 0) return '\u2212' + Math.abs(n);
    return '0';
  }

  /* ---- rendering: inputs -------------------------------------------------------------- */
  function applyLang() {
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
    document.title = lang === 'zh' ? '宁波麻将计算器' : 'Ningbo mahjong calculator';
    Array.prototype.forEach.call(document.querySelectorAll('[data-i18n]'), function (el) {
      el.textContent = t(el.getAttribute('data-i18n'));
    });
    if (offline) setOffline(true);
    $('lang-zh').setAttribute('aria-pressed', String(lang === 'zh'));
    $('lang-en').setAttribute('aria-pressed', String(lang === 'en'));
  }

  function buildPalette() {
    var groups = [T.SUITED.slice(0, 9), T.SUITED.slice(9, 18), T.SUITED.slice(18, 27), T.HONORS, T.FLOWERS];
    $('palette').innerHTML = groups.map(function (g) {
      return '<div class="pal-group">' + g.map(function (c) {
        return tileButton(c, 'pal', c, '', '<span class="left" aria-hidden="true"></span>');
      }).join('') + '</div>';
    }).join('');
  }

  function paletteLabels() {
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
  function focusKey(el) {
    if (!el || el === document.body) return null;
    if (el.id) return { sel: '#' + el.id };
    var box = el.closest('#hand, #flowers, #melds, #claims, #result-body, #seat, #round');
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

  function optionValue(v) {
    if (v === true) return t('yes');
    if (v === false) return t('no');
    if (v === null || v === undefined) return t('none_value');
    var names = t('opt_values');
    if (Array.isArray(v)) return v.length ? v.map(function (x) { return names[x] || x; }).join(lang === 'zh' ? '、' : ', ') : t('none_value');
    if (typeof v === 'object') return Object.keys(v).length ? String(Object.keys(v).length) : t('none_value');
    return names[v] || String(v);
  }

  function renderRules(st) {
    var p = presetById(st.preset);
    var opts = (p && p.options) || {};
    var book = opts.rulebook || (p && p.rulebook) || rulebook;
    $('rulebook').textContent = book ? t('rulebook', book) : '';
    $('rule-options').innerHTML = Object.keys(opts).filter(function (k) { return k !== 'rulebook'; }).map(function (k) {
      return '<div class="opt" data-option="' + esc(k) + '"><dt>' + esc(OPTION_LABELS[lang][k] || k) + '</dt><dd>' +
        esc(optionValue(opts[k])) + '</dd></div>';
    }).join('');
  }

  function renderInputsNow() {
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

  /* ---- rendering: results ------------------------------------------------------------- */
  /* The API's messages next to the fields they are about (never the field paths themselves). */
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

  /* A refused request as a player reads it: its title and its messages, no field paths. */
  function problemHTML(problem, pairs) {
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

  function offlineHTML(r) {
    r = r || { offline: true };
    return '<div class="problem offline" id="offline" data-status="' + (r.offline ? 0 : r.status) + '"><p>' +
      esc(failureText(r)) + '</p><button type="button" id="retry" data-act="retry">' + esc(t('retry')) + '</button></div>';
  }

  function showOffline(r) {
    r = r || { offline: true };
    $('result-body').innerHTML = offlineHTML(r);
    setVerdict(r.offline ? t('offline_verdict') : t('v_error'), 'no');
    setPay('');
    $('result-copy').hidden = true;
  }

  function itemName(it) { return lang === 'zh' ? it.name : it.name_en || it.name; }

  /* The 台 items in the page's language only. */
  function itemsHTML(d) {
    var rows = (d.items || []).map(function (it) {
      var tiles = (it.tiles || []).map(function (c) { return tileSpan(c, 'xs'); }).join('');
      return '<tr data-item="' + esc(it.id) + '"' + (it.bonus ? ' class="bonus"' : '') + '>' +
        '<td class="item-name">' + esc(itemName(it)) +
        (it.bonus ? ' <span class="badge">' + esc(t('bonus')) + '</span>' : '') +
        '</td><td class="num">' + esc(it.tai) + '</td><td class="item-tiles">' + tiles + '</td></tr>';
    }).join('');
    return '<table class="items"><caption>' + esc(t('items')) + '</caption><thead><tr><th scope="col">' +
      esc(t('col_item')) + '</th><th scope="col" class="num">' +
      esc(t('col_tai')) + '</th><th scope="col">' + esc(t('col_tiles')) + '</th></tr></thead><tbody>' + rows +
      '</tbody><tfoot><tr><th scope="row">' + esc(t('total')) + '</th><td class="num" id="items-total">' +
      esc(d.tai) + '</td><td></td></tr></tfoot></table>';
  }
  function decompositionHTML(d) {
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


  function setPay(text, cls) {
    var el = $('bar-pay');
    el.textContent = text || '';
    el.className = 'bar-line bar-pay' + (cls ? ' ' + cls : '');
  }

  /* Who pays what, in one line: "东、西、北各付 6 → 南家收 18", "西家付 10 → 南家收 10". */
  function payText(d, winner) {
    var pays = (d.payments || []).filter(function (p) { return p.to === winner; });
    if (!d.eligible || !pays.length) return d.eligible ? '' : t('pay_none');
    var got = (d.net && typeof d.net[winner] === 'number') ? d.net[winner] : sum(pays);
    var capped = pays.some(function (p) { return p.multiplier !== undefined && p.amount < p.multiplier * d.points; });
    var same = pays.every(function (p) { return p.amount === pays[0].amount; });
    var text = same ? t('pay_each', pays.map(function (p) { return p.from; }), pays[0].amount, winner, got)
      : t('pay_list', pays.map(function (p) { return t('pay_part', p.from, p.amount); }), winner, got);
    return text + (capped ? t('capped', capOf(d)) : '');
  }

  function capOf(d) {
    var p = presetById(state.preset);
    var cap = p && p.options ? p.options.hand_cap : null;
    return cap || Math.max.apply(null, (d.payments || []).map(function (x) { return x.amount; }));
  }

  function openContext(open) {
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
  function renderContext(st) {
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

  function setVerdict(text, cls) {
    var el = $('verdict');
    el.textContent = text;
    el.className = 'verdict-line' + (cls ? ' ' + cls : '');
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
    var capped = (d.payments || []).filter(function (p) { return p.multiplier !== undefined && p.amount < p.multiplier * d.points; });
    if (ok && capped.length) {
      var due = (d.payments || []).filter(function (p) { return p.to === state.seat; })
        .reduce(function (a, p) { return a + (p.multiplier || 1) * d.points; }, 0);
      html += '<p class="cap-note" id="cap-note">' + esc(t('cap_note', capOf(d), due)) + '</p>';
    }
    if (session) {        // an evening on: the hand joins it from here too
      html += '<p class="ses-from-result"><button type="button" id="ses-add-result" data-act="ses-add">' +
        esc(t('ses_add_n', session.hands.length + 1)) + '</button></p>';
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
  function sum(list) { return list.reduce(function (a, p) { return a + p.amount; }, 0); }

  /* "3 × 8" when every payment is the same amount, else the amounts added up. */
  function sharesText(pays, points) {
    if (!pays.length) return '';
    var same = pays.every(function (p) { return p.amount === pays[0].amount; });
    if (same && pays.length > 1) return pays.length + ' × ' + pays[0].amount;
    return pays.map(function (p) {
      return p.multiplier > 1 && p.amount === p.multiplier * points ? p.multiplier + ' × ' + points : String(p.amount);
    }).join(' + ');
  }

  function eligibleValue(v) { return !!(v && typeof v.tai === 'number' && v.eligible); }

  /* A wait's self-draw: what the winner collects in all; a discard: what the discarder pays. */
  function valueHTML(v, how, seat, discarder) {
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

  function waitEligible(w) { return eligibleValue(w.self_draw) || eligibleValue(w.discard); }

  function renderWaits(d) {
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
  function tileCounts(list, key) {
    return '<span class="tcounts">' + list.map(function (x) {
      return '<span class="tcount" data-tile="' + esc(x.tile) + '">' + tileSpan(x.tile, 'xs') +
        '<span class="n">' + esc(x[key]) + '</span></span>';
    }).join('') + '</span>';
  }

  var DISCARDS_SHOWN = 3;
  /* The discards are ranked by value (POST /v1/analyze, objective value) over this many draws:
     the exact model stays fast up to about 3 (docs/api.md, "Advice by value"). */
  var VALUE_DRAWS = 2;

  /* A discard's chance to win and points on average, or a dash when the service left them null. */
  function valueCell(x) {
    if (x.win_probability == null || x.expected_points == null) return esc(t('none'));
    return esc(t('value_cell', (100 * x.win_probability).toFixed(1), x.expected_points.toFixed(2)));
  }

  function analysisHTML(d) {
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
      esc(t('col_eligible')) + '</th><th scope="col">' + esc(t('col_value', VALUE_DRAWS)) + '</th><th scope="col"><span class="sr">' + esc(t('col_drop')) + '</span></th></tr></thead><tbody>' +
      rows + '</tbody></table>' + (d.discards.length > DISCARDS_SHOWN
      ? '<button type="button" id="more-discards" data-act="more-discards">' +
        esc(t('more_discards', d.discards.length - DISCARDS_SHOWN)) + '</button>' : '');
  }

  /* The bar's second line for a hand that is no win (14 tiles) or not ready (13). */
  function analysisLine(d) {
    if (!d.discards) return t('bar_shanten', d.shanten);
    var best = d.discards[0];
    if (!best) return '';
    return t('bar_best', T.name(best.discard, lang), best.shanten === 0 ? (best.improving || []).length : 0) +
      (best.shanten > 0 ? ' · ' + t('bar_shanten', best.shanten) : '');
  }

  function loadAnalysis(st, into, line) {
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
  var SUIT_ZH = { m: '万', p: '饼', s: '条' };
  function short(tiles) {
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

  function handText(st) {
    var parts = [t('txt_hand') + ' ' + short(T.sort(st.hand)) + (st.win ? ' ' + t('txt_win_on') + ' ' +
      (lang === 'zh' ? T.name(st.win, lang) : st.win) : '')];
    if (st.melds.length) parts.push(t('txt_melds') + ' ' + st.melds.map(function (m) { return short(m.tiles); }).join(' '));
    if (st.flowers.length) parts.push(t('txt_flowers') + ' ' + short(T.sort(st.flowers)));
    if (st.indicator) {
      parts.push(t('txt_caishen') + ' ' + caishenKinds(st).map(function (c) { return lang === 'zh' ? T.name(c, lang) : c; }).join(' '));
    }
    return parts.join(' · ');
  }

  function presetName(id) {
    var p = presetById(id);
    if (!p) return id;
    return lang === 'zh' ? p.name || id : p.name_en || id;
  }

  function resultText(st, kind, d) {
    var sep = lang === 'zh' ? '，' : ', ';
    var lines = [t('txt_title') + ' · ' + presetName(st.preset), t('txt_seat', st.seat, st.round), handText(st)];
    if (kind === 'score') {
      lines.push(t('txt_items') + ': ' + (d.items || []).map(function (it) { return itemName(it) + ' ' + it.tai; }).join(sep) +
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

  function showResultText(kind, d) {
    lastResult = { kind: kind, data: d };
    $('result-text').textContent = resultText(state, kind, d);
    $('result-copy').hidden = false;
    var add = $('ses-add');
    if (add) add.disabled = kind !== 'score';
  }

  /* ---- hands scored in this browser (localStorage) ------------------------------------ */
  function readHistory() {
    try {
      var v = JSON.parse(localStorage.getItem(HISTORY_KEY) || '[]');
      return Array.isArray(v) ? v.filter(function (x) { return x && typeof x.h === 'string'; }) : [];
    } catch (e) { return []; }
  }

  function remember(st, d) {
    var h = encode(st);
    var list = readHistory().filter(function (x) { return x.h !== h; });
    list.unshift({ h: h, tai: d.tai, eligible: !!d.eligible });
    try { localStorage.setItem(HISTORY_KEY, JSON.stringify(list.slice(0, HISTORY_MAX))); } catch (e) { /* full or off */ }
  }

  function handShort(st) {
    return [short(T.sort(st.hand)) + (st.win ? ' + ' + short([st.win]) : '')].concat(st.melds.map(function (m) {
      return short(m.tiles);
    }), st.flowers.length ? [short(T.sort(st.flowers))] : []).join(' · ');
  }

  function renderHistory() {
    var list = readHistory();
    $('history').innerHTML = list.map(function (x) {
      return '<li><a href="#' + esc(x.h) + '"><strong>' + esc(x.tai + ' ' + t('tai') + ' ' + (x.eligible ? '✓' : '✗')) +
        '</strong> <span class="muted">' + esc(handShort(decode('#' + x.h))) + '</span></a></li>';
    }).join('');
    $('history-empty').hidden = list.length > 0;
  }

  /* ---- asking the API for the current hand -------------------------------------------- */
  var COUNT_PATHS = ['hand', 'hand.concealed', 'hand.winning_tile', '$', ''];
  function countPath(p) { return COUNT_PATHS.indexOf(p) >= 0; }

  function refresh() {
    var id = ++seq;
    var st = state;
    var n = need(st);
    var tot = total(st);
    var body = $('result-body');
    lastResult = null;
    $('result-copy').hidden = true;
    if ($('ses-add')) $('ses-add').disabled = true;
    if (!hasHand(st)) {
      body.innerHTML = '<p class="muted">' + esc(t('empty')) + '</p>';
      setVerdict(t('empty_verdict'), '');
      setPay('');
      baseline = null;
      fieldErrors(null);
      return Promise.resolve();
    }
    if (tot < n - 1 || tot > n) {
      // no call: the page knows this hand is incomplete (or has too many tiles)
      baseline = null;
      fieldErrors(null);
      var k = n - 1 - tot;
      body.innerHTML = tot > n ? '<p class="need" id="need-more">' + esc(t('too_many', tot - n)) + '</p>'
        : '<p class="need" id="need-more">' + esc(t('need_more', k, n, st.melds.length)) + '</p>';
      setVerdict(tot > n ? t('too_many', tot - n) : t('more', k), 'more');
      setPay('');
      return Promise.resolve();
    }
    var waitsMode = tot === n - 1;
    var call = waitsMode ? api('POST', '/v1/waits', waitsRequest(st)) : api('POST', '/v1/score', scoreRequest(st));
    return call.then(function (r) {
      if (id !== seq) return null;
      var focus = focusKey(document.activeElement);
      try { return showResponse(r); } finally { restoreFocus(focus); }
    });

    function showResponse(r) {
      if (failed(r)) {
        baseline = null;
        showOffline(r);
        return null;
      }
      baseline = r.ok ? null : r.data;
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

  function commit(push) {
    writeURL(push);
    renderInputs();
    return refresh();
  }

  /* A link opened with a hand that cannot exist says so at once (and later taps still work). */
  function linkCheck() {
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

  /* ---- the evening: a session of hands (POST /v1/sessions/settle) ----------------------- */
  /* Kept in localStorage ({players, first_dealer, hands}; each hand the page's own link of a
   * scored hand, or a draw) and in a share link (#ev=…); the server settles it each time it
   * changes: seats, dealer and round wind of every hand, running totals, who pays whom. */
  var SESSION_KEY = 'nb-calc-session';
  var session = null;          // {players: [4 names], first_dealer, hands: [{h} | {draw: true}]}
  var settled = null;          // the last 200 of /v1/sessions/settle for it (kept with it)
  var sessionProblem = null;

  function readSession() {
    try {
      var v = JSON.parse(localStorage.getItem(SESSION_KEY) || 'null');
      if (v && Array.isArray(v.players) && v.players.length === 4 && Array.isArray(v.hands)) return v;
    } catch (e) { /* unreadable: none */ }
    return null;
  }

  function saveSession() {
    try {
      if (session) localStorage.setItem(SESSION_KEY, JSON.stringify({ players: session.players,
        first_dealer: session.first_dealer, hands: session.hands, settled: settled }));
      else localStorage.removeItem(SESSION_KEY);
    } catch (e) { /* full or off */ }
  }

  function b64url(text) {
    return btoa(unescape(encodeURIComponent(text))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  function unb64url(text) {
    return decodeURIComponent(escape(atob(text.replace(/-/g, '+').replace(/_/g, '/'))));
  }

  function sessionLink() {
    return location.origin + location.pathname + location.search + '#ev=' +
      b64url(JSON.stringify({ players: session.players, first_dealer: session.first_dealer, hands: session.hands }));
  }

  /* A session from a link's #ev=…, or null. */
  function sessionFromLink(hash) {
    var q = parseHash(hash);
    if (!q.ev) return null;
    try {
      var v = JSON.parse(unb64url(q.ev));
      if (v && Array.isArray(v.players) && v.players.length === 4 && Array.isArray(v.hands)) return v;
    } catch (e) { /* a broken link: no session */ }
    return null;
  }

  function settleBody() {
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
  function nextSeats() {
    var dealer = settled && settled.next ? settled.next.dealer : session.first_dealer;
    var wind = settled && settled.next ? settled.next.round_wind : 'E';
    var d = Math.max(0, session.players.indexOf(dealer));
    var seats = {};
    SEATS.forEach(function (s, i) { seats[s] = session.players[(d + i) % 4]; });
    return { dealer: dealer, round: wind, seats: seats };
  }

  function settle() {
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

  function renderSession() {
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
    /* the answer names each player once (settled.players); a hand names them by position there */
    var named = settled && settled.players ? settled.players : session.players;
    var rows = (settled && settled.hands ? settled.hands : []).map(function (h) {
      var w = { winner: named[h.winner], from: h.from === null ? null : named[h.from], tai: h.tai, by: h.by,
                eligible: h.eligible };
      return '<tr data-hand="' + h.index + '"><td class="num">' + (h.index + 1) + '</td><td class="ses-what-cell">' +
        '<span class="ses-what">' + esc(h.outcome === 'win' && h.winner !== null ? t('ses_win', w) : t('ses_drawn')) +
        '</span><small class="ses-dealer">' + esc(t('ses_dealer', named[h.dealer], h.round_wind)) + '</small></td>' +
        session.players.map(function (p, i) {
          var n = h.totals[i];
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
  function sessionSeatLabel(s) {
    if (!session) return null;
    var next = nextSeats();
    return t('ses_seat', s, next.seats[s]) + (s === 'E' ? ' · ' + t('dealer') : '');
  }

  function sessionAdd(entry) {
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

  function bindSession() {
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

  function startSession(hash) {
    var linked = sessionFromLink(hash);
    if (linked) {
      session = { players: linked.players, first_dealer: linked.first_dealer || linked.players[0], hands: linked.hands };
      settled = null;
    } else {
      var kept = readSession();
      if (kept) {
        session = { players: kept.players, first_dealer: kept.first_dealer, hands: kept.hands };
        /* an answer kept before rule book 4 named players per hand: settle again rather than show it */
        settled = kept.settled && kept.settled.players ? kept.settled : null;
      }
    }
    return !!linked;
  }

  /* ---- actions ------------------------------------------------------------------------ */
  function backToHand() { ui.mode = 'hand'; }

  function addToHand(c) {
    var kinds = caishenKinds(state);
    if (T.isFlower(c) && kinds.indexOf(c) < 0) {
      return change(function (st) { st.flowers.push(c); }, { copies: true, paths: ['hand.flowers'] });
    }
    return addTiles([c]);
  }

  function addTiles(tiles) {
    return change(function (st) {
      if (st.win) { st.hand.push(st.win); st.win = null; }
      tiles.forEach(function (c) { st.hand.push(c); });
      if (total(st) >= need(st)) st.win = st.hand.pop();
    }, { copies: true, full: true });
  }

  function runTiles(c) {
    return [c, (+c[0] + 1) + c[1], (+c[0] + 2) + c[1]];
  }

  function addMeld(c) {
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

  function setIndicator(c) {
    return change(function (st) { st.indicator = c; }, { copies: true, paths: ['caishen', 'hand.melds'], after: backToHand });
  }

  /* The winning-tile slot: the tile tapped goes there (a tile already there is put back). */
  function setWin(c) {
    return change(function (st) {
      if (total(st) >= need(st)) st.win = null;                // a full hand: the new tile replaces it
      else if (st.win) { st.hand.push(st.win); st.win = null; }
      if (total(st) === need(st) - 1) st.win = c;
      else st.hand.push(c);
    }, { copies: true, full: true, after: backToHand });
  }

  /* A tile of the hand made the winning tile: it changes places with the one in the slot. */
  function swapWin(c) {
    return change(function (st) {
      var i = st.hand.indexOf(c);
      if (i < 0) return;
      st.hand.splice(i, 1);
      if (st.win) st.hand.push(st.win);
      st.win = c;
    }, { paths: ['hand.winning_tile', 'win'], after: backToHand });
  }

  function onPalette(c) {
    var m = mode();
    if (m.target === 'indicator') return setIndicator(c);
    if (T.isFlower(c) && caishenKinds(state).indexOf(c) < 0) return addToHand(c);
    if (m.target === 'win') return setWin(c);
    if (m.target === 'meld') return addMeld(c);
    if (m.target === 'run') return addTiles(runTiles(c));
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

  function undo() {
    if (!undoStack.length) return;
    var h = undoStack.pop();
    saveUndo();
    run(function () {
      state = decode(h);
      lastHash = h;
      notice(null);
      return commit(false);
    });
  }

  /* A link to a hand opened in this tab (a recent hand, say): a new hand, undoable. */
  function onNavigate() {
    if (location.hash === lastHash) return;
    if (location.hash && location.hash.indexOf('=') < 0) return;     // an in-page anchor, not a hand
    if (sessionFromLink(location.hash)) {                           // an evening's link
      startSession(location.hash);
      history.replaceState(null, '', location.pathname + location.search + lastHash);
      run(function () { return settle().then(function () { renderSession(); renderInputs(); }); });
      return;
    }
    var h = location.hash;
    if (lastHash) { undoStack.push(lastHash); saveUndo(); }
    lastHash = h;           // popstate and hashchange both come for one navigation
    run(function () {
      state = decode(h);
      notice(null);
      $('link-problem').hidden = true;
      return (hasHand(state) ? linkCheck() : Promise.resolve()).then(function () { return commit(false); });
    });
  }

  /* ---- events ------------------------------------------------------------------------- */
  function copyText(text, okMsg) {
    var done = function () { flash(okMsg); };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(done, function () { flash(t('link_copy_failed')); });
    } else {
      flash(t('link_copy_failed'));
    }
  }

  function bind() {
    $('lang-zh').addEventListener('click', function () { setLang('zh'); });
    $('lang-en').addEventListener('click', function () { setLang('en'); });
    $('copy-link').addEventListener('click', function () {
      writeURL(false);
      copyText(location.href, t('link_copied'));
    });
    $('copy-result').addEventListener('click', function () {
      copyText($('result-text').textContent, t('result_copied'));
    });
    $('clear').addEventListener('click', function () {
      change(function (st) {
        var keep = { preset: st.preset, seat: st.seat, round: st.round, base: st.base };
        var b = blank();
        Object.keys(b).forEach(function (k) { st[k] = b[k]; });
        Object.keys(keep).forEach(function (k) { st[k] = keep[k]; });
      });
    });
    $('undo').addEventListener('click', undo);
    document.addEventListener('keydown', function (e) {
      if ((e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && (e.key === 'z' || e.key === 'Z')) {
        var el = document.activeElement;
        if (el && (el.tagName === 'INPUT' && el.type === 'text' || el.tagName === 'TEXTAREA')) return;
        e.preventDefault();
        undo();
      }
    });
    var smooth = function () {
      return window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth';
    };
    $('to-result').addEventListener('click', function () {
      // #result has a scroll-margin of the bar's height: its top lands just under the bar
      $('result').scrollIntoView({ behavior: smooth(), block: 'start' });
      $('h-result').focus({ preventScroll: true });
    });
    // the win's controls open right under the bar, beside the hand (the card itself moves there
    // while open, so there is one set of controls); the page below does not move
    $('bar-context').addEventListener('click', function () { openContext(!ui.ctxOpen); });
    $('bar-panel').addEventListener('click', function (e) {
      if (e.target.id === 'ctx-done') openContext(false);
    });
    document.addEventListener('keydown', function (e) {
      if (e.key === 'Escape' && ui.ctxOpen) { openContext(false); $('bar-context').focus(); }
    });
    if (navigator.share) {
      $('share').hidden = false;
      $('share').addEventListener('click', function () {
        writeURL(false);
        navigator.share({ title: document.title, text: lastResult ? resultText(state, lastResult.kind, lastResult.data) : '',
          url: location.href }).catch(function () { /* dismissed */ });
      });
    }
    $('notice').addEventListener('click', function (e) {
      if (e.target.closest('.notice-x')) notice(null);
    });
    $('link-problem').addEventListener('click', function (e) {
      if (e.target.id === 'link-clear') {
        $('link-problem').hidden = true;
        $('clear').click();
      }
    });

    document.querySelector('.modes').addEventListener('click', function (e) {
      var b = e.target.closest('button[data-mode]');
      if (!b) return;
      ui.mode = b.getAttribute('data-mode');
      ui.meldFrom = PREV[state.seat];     // a seat that can make the claim: the 上家 first
      renderInputs();
    });
    $('palette').addEventListener('click', function (e) {
      var b = e.target.closest('button[data-tile]');
      if (b && !b.disabled) onPalette(b.getAttribute('data-tile'));
    });
    $('hand').addEventListener('click', function (e) {
      var b = e.target.closest('button');
      if (!b) return;
      var role = b.getAttribute('data-role');
      if (role === 'win') {                       // the slot: choose the winning tile
        ui.mode = ui.mode === 'win' ? 'hand' : 'win';
        renderInputs();
        return;
      }
      var c = b.getAttribute('data-tile');
      if (ui.mode === 'win') swapWin(c);
      else removeFromHand(c, role);
    });
    $('flowers').addEventListener('click', function (e) {
      var b = e.target.closest('button[data-tile]');
      if (!b) return;
      var c = b.getAttribute('data-tile');
      change(function (st) { st.flowers.splice(st.flowers.indexOf(c), 1); });
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

    $('indicator-clear').addEventListener('click', function () {
      change(function (st) { st.indicator = null; });
    });
    $('meld-from').addEventListener('change', function (e) { ui.meldFrom = e.target.value; });

    $('preset').addEventListener('change', function (e) {
      var v = e.target.value;
      change(function (st) { st.preset = v; });
    });
    $('seat').addEventListener('click', function (e) {
      var b = e.target.closest('button[data-seat]');
      if (!b) return;
      var v = b.getAttribute('data-seat');
      change(function (st) { st.seat = v; }, { paths: ['hand.melds', 'win', 'claims_from_winner'],
        after: function () { ui.meldFrom = PREV[v]; } });
    });
    $('round').addEventListener('click', function (e) {
      var b = e.target.closest('button[data-seat]');
      if (!b) return;
      var v = b.getAttribute('data-seat');
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
    $('claims').addEventListener('click', function (e) {
      var b = e.target.closest('button[data-act="claim"]');
      if (!b) return;
      var s = b.getAttribute('data-seat');
      var step = +b.getAttribute('data-step');
      change(function (st) { st.claims[s] = Math.max(0, (st.claims[s] || 0) + step); }, { paths: ['claims_from_winner'] });
    });

    $('result-body').addEventListener('click', function (e) {
      var b = e.target.closest('button[data-act]');
      if (!b) return;
      var act = b.getAttribute('data-act');
      if (act === 'try') addToHand(b.getAttribute('data-tile'));
      else if (act === 'retry') retry();
      else if (act === 'ses-add' && session && lastResult && lastResult.kind === 'score') {
        sessionAdd({ h: encode(state) });
        b.disabled = true;
        b.textContent = t('ses_added');
      }
      else if (act === 'analysis') run(function () { return loadAnalysis(state, 'analysis'); });
      else if (act === 'more-discards') {
        Array.prototype.forEach.call($('result-body').querySelectorAll('tr.more-row'), function (tr) { tr.hidden = false; });
        b.remove();
      }
      else if (act === 'drop') {
        var c = b.getAttribute('data-tile');
        change(function (st) {
          if (st.win === c) { st.win = null; return; }
          var i = st.hand.indexOf(c);
          if (i >= 0) st.hand.splice(i, 1);
        });
      }
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
    window.addEventListener('popstate', onNavigate);
    window.addEventListener('hashchange', onNavigate);
  }

  var flashTimer = null;
  function flash(msg) {
    var el = $('verdict');
    var old = el.textContent;
    el.textContent = msg;
    clearTimeout(flashTimer);
    flashTimer = setTimeout(function () { if (el.textContent === msg) el.textContent = old; }, 2000);
  }

  function setLang(l) {
    try { localStorage.setItem(LANG_KEY, l); } catch (e) { /* private mode */ }
    run(function () {
      lang = l;
      notice(null);
      return commit(false);
    });
  }

  function useRules(data) {
    presets = data.presets;
    rulebook = data.rulebook || null;
  }

  /* GET /v1/rules once a day at most: kept in localStorage with the time it was fetched (the
   * service worker keeps a copy too, for a page opened offline). */
  function loadRules() {
    var kept = null;
    try { kept = JSON.parse(localStorage.getItem(RULES_KEY) || 'null'); } catch (e) { kept = null; }
    if (kept && kept.data && Array.isArray(kept.data.presets)) {
      useRules(kept.data);
      if (Date.now() - kept.at < RULES_MAX_AGE && kept.at <= Date.now()) return Promise.resolve({ ok: true, cached: true });
    }
    return api('GET', '/v1/rules').then(function (r) {
      if (r.ok && r.data && Array.isArray(r.data.presets)) {
        useRules(r.data);
        try { localStorage.setItem(RULES_KEY, JSON.stringify({ at: Date.now(), data: r.data })); } catch (e) { /* off */ }
      }
      return r;
    });
  }

  function retry() {
    run(function () {
      return (presets.length ? Promise.resolve() : loadRules()).then(function () { return commit(false); });
    });
  }

  /* The desktop's result column sits below the sticky bar, whose height the CSS reads. */
  function trackBarHeight() {
    var bar = $('bar');
    var set = function () { document.documentElement.style.setProperty('--bar-h', bar.offsetHeight + 'px'); };
    set();
    if (window.ResizeObserver) new ResizeObserver(set).observe(bar);
  }

  /* ---- no signal: the service worker (/sw.js) keeps the page; the page says when it is offline */
  var offline = false;
  function setOffline(on) {
    offline = on;
    var el = $('net-state');
    el.hidden = !on;
    el.textContent = t('offline_state');
    el.title = t('offline_note');
    var note = $('offline-note');
    if (on && !note) {
      $('result').insertAdjacentHTML('afterbegin', '<p class="offline-note" id="offline-note" role="status"></p>');
      note = $('offline-note');
    }
    if (note) {
      note.hidden = !on;
      note.textContent = t('offline_note');
    }
  }

  function startOffline() {
    window.addEventListener('offline', function () { setOffline(true); });
    window.addEventListener('online', function () { setOffline(false); retry(); });
    if (navigator.onLine === false) setOffline(true);
    if (!('serviceWorker' in navigator) || location.protocol === 'file:') return;
    navigator.serviceWorker.register('/sw.js').then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (reg) {
      // the files this page loaded, by their (hashed) URLs: kept for a visit with no signal
      var keep = Array.prototype.map.call(document.querySelectorAll('script[src], link[href]'), function (el) {
        return el.src || el.href;
      });
      if (reg.active) reg.active.postMessage({ keep: keep });
    }).catch(function (e) { if (window.console) console.warn('service worker', e); });
  }

  /* ---- start -------------------------------------------------------------------------- */
  function start() {
    buildPalette();
    bind();
    bindSession();
    startOffline();
    trackBarHeight();
    var hash = location.hash;
    var kept = null;
    try { kept = localStorage.getItem(HAND_KEY); } catch (e) { kept = null; }
    // opened without a hand (from the home screen, say): the hand last worked on comes back
    if ((!hash || hash.indexOf('=') < 0) && kept && kept.indexOf('=') > 0) hash = kept;
    var q = parseHash(location.search.replace(/^\?/, ''));
    if (q.lang === 'zh' || q.lang === 'en') lang = q.lang;      // ?lang=zh as well as #lang=zh
    var linkedSession = startSession(location.hash);
    if (linkedSession) hash = kept && kept.indexOf('=') > 0 ? kept : '';
    state = decode(hash);
    lastHash = '#' + encode(state);
    var fromLink = hasHand(state) && hash === location.hash;
    renderInputs();
    run(function () {
      return loadRules().then(function () {
        return fromLink ? linkCheck() : null;
      }).then(function () {
        return session && session.hands.length && (linkedSession || !settled) ? settle() : null;
      }).then(function () {
        if (session) state.round = nextSeats().round;     // the evening's round wind
        return commit(false);
      });
    });
  }

  start();
})();
