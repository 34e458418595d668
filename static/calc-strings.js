/* The page's words in both languages (I18N, t), the reader's language, and the constants every part shares.
 * (A part of the calculator page: static/calc.js is the start; each part a native ES module.) */
import { need, rulebook, total } from './calc-state.js';
import { run } from './calc-api.js';
import { session } from './calc-session.js';
import { undo } from './calc-actions.js';
import { offline, retry } from './calc-events.js';

export var T = window.NBTiles;
export var SEATS = ['E', 'S', 'W', 'N'];
export var PREV = { E: 'N', S: 'E', W: 'S', N: 'W' };   // 上家 (docs/rules.md §1)
export var HISTORY_KEY = 'nb-calc-history';
export var LANG_KEY = 'nb-calc-lang';
export var HISTORY_MAX = 8;
export var HAND_KEY = 'nb-calc-hand';
export var RULES_KEY = 'nb-calc-rules';
export var RULES_MAX_AGE = 24 * 3600 * 1000;    // /v1/rules changes only with a release

/* Modes of the palette: where a tapped tile goes (one-shot modes return to the hand). */
export var MODES = {
  hand: { target: 'hand' }, win: { target: 'win' }, run: { target: 'run' },
  chow: { target: 'meld', type: 'chow' }, pung: { target: 'meld', type: 'pung' },
  kong: { target: 'meld', type: 'kong', kind: 'exposed' },
  ckong: { target: 'meld', type: 'kong', kind: 'concealed' },
  akong: { target: 'meld', type: 'kong', kind: 'added' },
  indicator: { target: 'indicator' }
};

/* ---- strings ------------------------------------------------------------------------ */
export var I18N = {
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
    quick: '键盘输入：m 万、p 饼、s 条，E S W N 东南西北，C F P 中发白，1f–8f 花（如 123m 456p EE C 2f）', quick_add: '加入', quick_summary: '用键盘输入', share: '分享',
    win_context: '胡牌情形', win_by: '怎么胡', winners: '谁胡、怎么胡（点一下）',
    win_off: function (s) { return this.seat_names[s] + '家打'; },
    winner_cell: function (s, w) { return this.seat_names[s] + '家胡，' + (w === s ? '自摸' : this.seat_names[w] + '家打出'); }, self_draw: '自摸', discard: '捉冲（别人打出）',
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
      return '还差 ' + k + ' 张才显示听牌。' + (m ? '有 ' + m + ' 组副露，' : '') + '手牌要 ' + need + ' 张，少一张时显示听什么牌。';
    },
    too_many: function (k) { return '多了 ' + k + ' 张'; },
    empty_verdict: '点牌开始',
    empty: '在“选牌”里点牌开始。手牌满了显示台数和付款，少一张显示听牌。',
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
    slow: function (s) { return '网络慢：计分服务 ' + s + ' 秒没有回答。手牌照样可以改，稍后重试。'; }, slow_verdict: '网络慢',
    wait_verdict: function (s) { return s > 0 ? '请求太多 · 请等 ' + s + ' 秒' : '请求太多 · 现在可以重试'; },
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
    /* the library's pung items named with their tile (the answer's 中发白刻/杠 says which in its tiles) */
    item_tile: {
      dragon_pung: function (n, kong) { return n + (kong ? '杠' : '刻子'); },
      seat_wind_pung: function (n, kong) { return '位风' + (kong ? '杠' : '刻子') + '（' + n + '）'; },
      round_wind_pung: function (n, kong) { return '圈风' + (kong ? '杠' : '刻子') + '（' + n + '）'; }
    },
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
    ses_again: '连庄', ses_running: '累计', ses_run: function (n) { return '累计 ' + n; },
    ses_edit: '改', ses_del: '删', ses_edit_n: function (n) { return '改第 ' + n + ' 手'; },
    ses_del_n: function (n) { return '删掉第 ' + n + ' 手'; }, ses_del_confirm: function (n) { return '删掉第 ' + n + ' 手，重新结算？'; },
    ses_editing: function (n) { return '正在改第 ' + n + ' 手：改好后点“改好第 ' + n + ' 手”。'; }, ses_cancel: '不改了',
    ses_save_n: function (n) { return '改好第 ' + n + ' 手'; },
    ses_bar_add: '记入', ses_bar_save: '改好',
    ses_incoming: '这个链接带来另一晚的牌局，这部手机上已经有一晚。',
    ses_incoming_mine: function (x) { return '这部手机上的：' + x; }, ses_incoming_theirs: function (x) { return '链接里的：' + x; },
    ses_keep_mine: '留着我的', ses_open_theirs: '打开链接里的', ses_keep_both: '两晚都留着',
    ses_saved_name: function (names, n) { return names + '（' + n + ' 手）'; }, ses_swap: '换到这一晚',
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
    offline_state: '离线', busy_sr: '计算中…',
    off_title: '离线计分', off_offer: '没有信号时也能在这部手机上算（同一个计分程序）。',
    off_download: function (mb) { return '下载（' + mb + ' 兆）'; },
    off_loading: function (d, n) { return '下载中… ' + d + ' / ' + n + ' 兆'; },
    off_ready: '已下载：连不上服务时在这部手机上算。', off_none: '这台服务器没有提供离线计分。', off_unknown: '（联网时查看能否下载）',
    off_failed: function (why) { return '离线计分没有成功：' + why; },
    off_why_not_kept: function (mb) { return '这部手机没有下载离线计分，所以没有在本机算；联网时可以在“规则与财神”里下载（' + mb + ' 兆）。'; },
    off_why_none: '这台服务器没有提供离线计分，所以没有在本机算。', off_local: '离线：这是在这部手机上算的。', offline_note: '离线：手牌和牌局都留在这部手机上，连上网就能算。',
    opt_values: {
      indicator: '翻出的那种牌（另外 3 张）', indicator_and_next: '翻出的那种和下一种（共 7 张，7百搭）', single_wait: '只限单吊',
      any_group: '任何一组', linear: '底分 ×（1 + 台数）', doubling: '4 台起翻倍', add: '加台', five: '算 5 台',
      full_flush: '清一色', half_flush: '混一色', all_honors: '字一色', all_pungs: '碰碰胡',
      house: '归公（桌上没人得）', table: '其他三家各得'
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
    quick: 'Type tiles: m characters, p dots, s bamboo; E S W N the winds; C F P red, green, white dragons; 1f–8f flowers (e.g. 123m 456p EE C 2f)', quick_add: 'Add', quick_summary: 'Type tiles', share: 'Share', win_context: 'How the hand was won',
    winners: 'Who won, and how (one tap)', win_off: function (s) { return 'off ' + this.seat_names[s]; },
    winner_cell: function (s, w) { return this.seat_names[s] + ' wins ' + (w === s ? 'by self-draw' : 'off ' + this.seat_names[w] + '’s discard'); },
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
      return k + ' more tile' + (k === 1 ? '' : 's') + ' to see the waits. ' + (m ? 'With ' + m + ' meld' + (m === 1 ? '' : 's') +
        ' the' : 'The') + ' hand holds ' + need + ' tiles; one fewer shows what it waits on.';
    },
    too_many: function (k) { return k + ' tile' + (k === 1 ? '' : 's') + ' too many'; },
    empty_verdict: 'Tap a tile to start',
    empty: 'Tap tiles in the palette to start. A full hand shows its 台 and payments; one tile fewer shows its waits.',
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
    slow: function (s) { return 'Slow network: the scoring service did not answer in ' + s + ' s. The hand can still be changed; try again later.'; },
    slow_verdict: 'Slow network',
    wait_verdict: function (s) { return s > 0 ? 'Too many requests · wait ' + s + ' s' : 'Too many requests · try again now'; },
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
    item_tile: {
      dragon_pung: function (n, kong) { return 'Dragon ' + (kong ? 'kong' : 'pung') + ' (' + n + ')'; },
      seat_wind_pung: function (n, kong) { return 'Seat wind ' + (kong ? 'kong' : 'pung') + ' (' + n + ')'; },
      round_wind_pung: function (n, kong) { return 'Round wind ' + (kong ? 'kong' : 'pung') + ' (' + n + ')'; }
    },
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
    ses_again: 'dealer again', ses_running: 'so far', ses_run: function (n) { return '= ' + n; },
    ses_edit: 'Edit', ses_del: 'Delete', ses_edit_n: function (n) { return 'Edit hand ' + n; },
    ses_del_n: function (n) { return 'Delete hand ' + n; }, ses_del_confirm: function (n) { return 'Delete hand ' + n + ' and settle again?'; },
    ses_editing: function (n) { return 'Correcting hand ' + n + ': when it is right, tap “Save hand ' + n + '”.'; }, ses_cancel: 'Stop correcting',
    ses_save_n: function (n) { return 'Save hand ' + n; },
    ses_bar_add: 'Record', ses_bar_save: 'Save',
    ses_incoming: 'This link brings another evening, and this phone has one already.',
    ses_incoming_mine: function (x) { return 'On this phone: ' + x; }, ses_incoming_theirs: function (x) { return 'In the link: ' + x; },
    ses_keep_mine: 'Keep mine', ses_open_theirs: 'Open theirs', ses_keep_both: 'Keep both',
    ses_saved_name: function (names, n) { return names + ' (' + n + (n === 1 ? ' hand)' : ' hands)'); }, ses_swap: 'Switch to it',
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
    offline_state: 'Offline', busy_sr: 'Working…',
    off_title: 'Scoring offline', off_offer: 'Score on this phone when there is no signal (the same scoring program).',
    off_download: function (mb) { return 'Download (' + mb + ' MB)'; },
    off_loading: function (d, n) { return 'Downloading… ' + d + ' / ' + n + ' MB'; },
    off_ready: 'Downloaded: scored on this phone when the service cannot be reached.',
    off_none: 'This server does not offer offline scoring.', off_unknown: '(online: see whether it can be downloaded)',
    off_failed: function (why) { return 'Offline scoring failed: ' + why; },
    off_why_not_kept: function (mb) { return 'Offline scoring is not downloaded on this phone, so the hand was not scored here; download it (' + mb + ' MB) under Rules and caishen when online.'; },
    off_why_none: 'This server does not offer offline scoring, so the hand was not scored on this phone.',
    off_local: 'Offline: scored on this phone.', offline_note: 'Offline: the hand and the evening stay on this phone; they are scored once you are online.',
    opt_values: {
      indicator: 'the indicator’s kind (its other 3 copies)', indicator_and_next: 'the indicator’s kind and the next (7 tiles, 7 baida)',
      single_wait: 'single wait only', any_group: 'any group', linear: 'base × (1 + 台)', doubling: 'doubling from 4 台',
      add: 'adds 台', five: 'counts as 5 台', full_flush: 'full flush', half_flush: 'half flush', all_honors: 'all honors',
      all_pungs: 'all pungs', house: 'the house (nobody at the table)', table: 'each other player'
    }
  }
};

export function storedLang() {
  try { return localStorage.getItem(LANG_KEY); } catch (e) { return null; }
}
export var lang = storedLang() === 'zh' || storedLang() === 'en' ? storedLang()
  : /^zh/i.test(navigator.language || '') ? 'zh' : 'en';
export function useLang(l) { lang = l; }

export function t(key) {
  var v = I18N[lang][key];
  if (typeof v === 'function') {
    return v.apply(I18N[lang], Array.prototype.slice.call(arguments, 1));
  }
  return v === undefined ? key : v;
}
