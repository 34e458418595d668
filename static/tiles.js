/* Ningbo mahjong tiles: codes, names and SVG faces drawn here (no images, no fonts shipped).
 *
 * Codes follow docs/rules.md §1: 1m-9m characters (万), 1p-9p dots (饼), 1s-9s bamboo (条),
 * E S W N winds, C F P dragons (中 发 白), 1f-8f flowers (春夏秋冬 梅兰竹菊).
 * Exposes window.NBTiles.
 */
(function () {
  'use strict';

  var SUITED = [];
  ['m', 'p', 's'].forEach(function (s) {
    for (var r = 1; r <= 9; r++) SUITED.push(r + s);
  });
  var HONORS = ['E', 'S', 'W', 'N', 'C', 'F', 'P'];
  var FLOWERS = ['1f', '2f', '3f', '4f', '5f', '6f', '7f', '8f'];
  var ALL = SUITED.concat(HONORS, FLOWERS);
  var ORDER = {};
  ALL.forEach(function (c, i) { ORDER[c] = i; });

  var NUM_ZH = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];
  var HONOR_CHAR = { E: '東', S: '南', W: '西', N: '北', C: '中', F: '發', P: '白' };
  var FLOWER_CHAR = ['春', '夏', '秋', '冬', '梅', '蘭', '竹', '菊'];
  var FLOWER_COLOR = ['#2e7d32', '#c62828', '#e65100', '#1565c0', '#ad1457', '#6a1b9a', '#2e7d32', '#ef6c00'];

  var NAME_ZH = {};
  var NAME_EN = {};
  var SUIT_ZH = { m: '万', p: '饼', s: '条' };
  var SUIT_EN = { m: 'Characters', p: 'Dots', s: 'Bamboo' };
  SUITED.forEach(function (c) {
    NAME_ZH[c] = NUM_ZH[+c[0] - 1] + SUIT_ZH[c[1]];
    NAME_EN[c] = c[0] + ' ' + SUIT_EN[c[1]];
  });
  var H_ZH = { E: '东风', S: '南风', W: '西风', N: '北风', C: '红中', F: '发财', P: '白板' };
  var H_EN = { E: 'East wind', S: 'South wind', W: 'West wind', N: 'North wind',
    C: 'Red dragon', F: 'Green dragon', P: 'White dragon' };
  HONORS.forEach(function (c) { NAME_ZH[c] = H_ZH[c]; NAME_EN[c] = H_EN[c]; });
  var F_ZH = ['春', '夏', '秋', '冬', '梅', '兰', '竹', '菊'];
  var F_EN = ['Spring', 'Summer', 'Autumn', 'Winter', 'Plum', 'Orchid', 'Bamboo flower', 'Chrysanthemum'];
  FLOWERS.forEach(function (c, i) { NAME_ZH[c] = F_ZH[i]; NAME_EN[c] = F_EN[i]; });

  function isTile(c) { return Object.prototype.hasOwnProperty.call(ORDER, c); }
  function isFlower(c) { return c.length === 2 && c[1] === 'f'; }
  function isSuited(c) { return c.length === 2 && 'mps'.indexOf(c[1]) >= 0; }
  function isHonor(c) { return HONORS.indexOf(c) >= 0; }
  function name(c, lang) { return (lang === 'zh' ? NAME_ZH : NAME_EN)[c] || c; }
  function sort(tiles) {
    return tiles.slice().sort(function (a, b) { return ORDER[a] - ORDER[b]; });
  }

  /* The kind after c for the indicator_and_next rule (docs/rules.md §2). */
  function next(c) {
    if (isSuited(c)) return (c[0] === '9' ? '1' : String(+c[0] + 1)) + c[1];
    var w = 'ESWN'.indexOf(c);
    if (w >= 0) return 'ESWN'[(w + 1) % 4];
    var d = 'CFP'.indexOf(c);
    if (d >= 0) return 'CFP'[(d + 1) % 3];
    return null;
  }

  /* Caishen kinds from an indicator under a caishen_rule (docs/rules.md §2). */
  function caishenKinds(indicator, rule) {
    if (!indicator) return [];
    if (isFlower(indicator)) {
      var n = +indicator[0];
      return FLOWERS.filter(function (f) {
        if (f === indicator) return false;
        if (rule === 'indicator_and_next') return true;
        return (+f[0] <= 4) === (n <= 4);
      });
    }
    var kinds = [indicator];
    if (rule === 'indicator_and_next') kinds.push(next(indicator));
    return kinds;
  }

  /* Compact form of docs/api.md ("234m 99s EE C"), used in links: runs of one suit share a letter. */
  function toCompact(tiles) {
    var out = '';
    var digits = '';
    var suit = '';
    tiles.forEach(function (c) {
      if (c.length === 2) {
        if (suit && suit !== c[1]) { out += digits + suit; digits = ''; }
        suit = c[1];
        digits += c[0];
      } else {
        if (suit) { out += digits + suit; digits = ''; suit = ''; }
        out += c;
      }
    });
    if (suit) out += digits + suit;
    return out;
  }

  /* Parses a compact string (codes and Chinese names); returns {tiles, bad} */
  var ALIASES = {};
  NUM_ZH.forEach(function (n, i) {
    ['万', '萬'].forEach(function (s) { ALIASES[n + s] = (i + 1) + 'm'; });
    ['饼', '餅', '筒'].forEach(function (s) { ALIASES[n + s] = (i + 1) + 'p'; });
    ['条', '條', '索'].forEach(function (s) { ALIASES[n + s] = (i + 1) + 's'; });
  });
  [['东 東 东风 東風', 'E'], ['南 南风 南風', 'S'], ['西 西风 西風', 'W'], ['北 北风 北風', 'N'],
    ['中 红中 紅中', 'C'], ['发 發 发财 發財', 'F'], ['白 白板', 'P'],
    ['春', '1f'], ['夏', '2f'], ['秋', '3f'], ['冬', '4f'], ['梅', '5f'], ['兰 蘭', '6f'],
    ['竹', '7f'], ['菊', '8f']].forEach(function (pair) {
    pair[0].split(' ').forEach(function (a) { ALIASES[a] = pair[1]; });
  });

  /* The suit after a run of digits: its letter, or its Chinese character (1万, 123筒), as the
   * service reads it (ningbo_score/tiles.py). */
  var SUIT_OF = { m: 'm', p: 'p', s: 's', f: 'f', '万': 'm', '萬': 'm', '饼': 'p', '餅': 'p', '筒': 'p',
    '条': 's', '條': 's', '索': 's' };

  function parseCompact(text) {
    var tiles = [];
    var bad = [];
    var i = 0;
    text = String(text || '');
    while (i < text.length) {
      var ch = text[i];
      if (/[\s,]/.test(ch)) { i++; continue; }
      if (/[0-9]/.test(ch)) {
        var j = i;
        while (j < text.length && /[0-9]/.test(text[j])) j++;
        var s = SUIT_OF[text[j]];
        if (s) {
          for (var k = i; k < j; k++) {
            var code = text[k] + s;
            if (isTile(code)) tiles.push(code); else bad.push(code);
          }
          i = j + 1;
        } else {
          bad.push(text.slice(i, j));
          i = j;
        }
        continue;
      }
      if ('ESWNCFP'.indexOf(ch) >= 0) { tiles.push(ch); i++; continue; }
      var found = false;
      for (var size = 2; size >= 1; size--) {
        var a = ALIASES[text.substr(i, size)];
        if (a) { tiles.push(a); i += size; found = true; break; }
      }
      if (!found) { bad.push(ch); i++; }
    }
    return { tiles: tiles, bad: bad };
  }

  /* ---- SVG faces -------------------------------------------------------------------- */
  var W = 48;
  var H = 64;
  var FONT = "'Noto Serif CJK SC','Source Han Serif SC','Songti SC','STSong','SimSun'," +
    "'WenQuanYi Micro Hei','Noto Sans CJK SC','PingFang SC','Microsoft YaHei',serif";
  var BLUE = '#1d3f8f';
  var RED = '#c62828';
  var GREEN = '#2e7d32';

  function txt(x, y, size, fill, s, extra) {
    return '<text x="' + x + '" y="' + y + '" font-size="' + size + '" fill="' + fill +
      '" text-anchor="middle" dominant-baseline="central" font-family="' + FONT + '"' +
      (extra || '') + '>' + s + '</text>';
  }

  function dot(x, y, r, color) {
    return '<circle cx="' + x + '" cy="' + y + '" r="' + r + '" fill="' + color + '"/>' +
      '<circle cx="' + x + '" cy="' + y + '" r="' + (r * 0.62).toFixed(2) +
      '" fill="none" stroke="#fff" stroke-width="' + (r * 0.22).toFixed(2) + '"/>' +
      '<circle cx="' + x + '" cy="' + y + '" r="' + (r * 0.2).toFixed(2) + '" fill="#fff"/>';
  }

  var DOTS = {
    2: [[24, 19, GREEN], [24, 45, BLUE]],
    3: [[12, 14, BLUE], [24, 32, RED], [36, 50, GREEN]],
    4: [[14, 19, BLUE], [34, 19, GREEN], [14, 45, GREEN], [34, 45, BLUE]],
    5: [[13, 15, BLUE], [35, 15, GREEN], [24, 32, RED], [13, 49, GREEN], [35, 49, BLUE]],
    6: [[14, 13, GREEN], [34, 13, GREEN], [14, 35, RED], [34, 35, RED], [14, 52, RED], [34, 52, RED]],
    7: [[10, 10, GREEN], [24, 17, GREEN], [38, 24, GREEN], [14, 39, RED], [34, 39, RED],
      [14, 54, RED], [34, 54, RED]],
    8: [[14, 10, BLUE], [34, 10, BLUE], [14, 24, BLUE], [34, 24, BLUE], [14, 39, BLUE],
      [34, 39, BLUE], [14, 53, BLUE], [34, 53, BLUE]],
    9: [[11, 13, BLUE], [24, 13, BLUE], [37, 13, BLUE], [11, 32, RED], [24, 32, RED],
      [37, 32, RED], [11, 51, GREEN], [24, 51, GREEN], [37, 51, GREEN]]
  };
  var DOT_R = { 2: 9, 3: 7, 4: 7.5, 5: 6.5, 6: 6.3, 7: 5.6, 8: 5.8, 9: 5.8 };

  function stick(x, y, h, color) {
    var w = 5.2;
    return '<rect x="' + (x - w / 2) + '" y="' + (y - h / 2) + '" width="' + w + '" height="' + h +
      '" rx="2.4" fill="' + color + '"/>' +
      '<line x1="' + (x - w / 2) + '" y1="' + y + '" x2="' + (x + w / 2) + '" y2="' + y +
      '" stroke="#fff" stroke-width="1.1"/>' +
      '<line x1="' + x + '" y1="' + (y - h / 2 + 2) + '" x2="' + x + '" y2="' + (y + h / 2 - 2) +
      '" stroke="rgba(255,255,255,.45)" stroke-width=".8"/>';
  }

  var STICKS = {
    2: [[24, 19, GREEN], [24, 45, GREEN]],
    3: [[24, 19, GREEN], [14, 45, GREEN], [34, 45, GREEN]],
    4: [[14, 19, GREEN], [34, 19, BLUE], [14, 45, BLUE], [34, 45, GREEN]],
    5: [[12, 18, GREEN], [36, 18, BLUE], [24, 32, RED], [12, 46, BLUE], [36, 46, GREEN]],
    6: [[11, 19, GREEN], [24, 19, GREEN], [37, 19, GREEN], [11, 45, BLUE], [24, 45, BLUE], [37, 45, BLUE]],
    7: [[24, 11, RED], [11, 32, GREEN], [24, 32, GREEN], [37, 32, GREEN], [11, 52, GREEN],
      [24, 52, GREEN], [37, 52, GREEN]],
    8: [[9, 19, GREEN], [19, 19, GREEN], [29, 19, GREEN], [39, 19, GREEN], [9, 45, BLUE],
      [19, 45, BLUE], [29, 45, BLUE], [39, 45, BLUE]],
    9: [[11, 13, GREEN], [24, 13, RED], [37, 13, GREEN], [11, 32, GREEN], [24, 32, RED],
      [37, 32, GREEN], [11, 51, GREEN], [24, 51, RED], [37, 51, GREEN]]
  };
  var STICK_H = { 2: 20, 3: 19, 4: 19, 5: 16, 6: 19, 7: 14, 8: 19, 9: 14 };

  function faceInner(c) {
    if (isSuited(c)) {
      var r = +c[0];
      var s = c[1];
      if (s === 'm') {
        return txt(24, 19, 21, BLUE, NUM_ZH[r - 1], ' font-weight="700"') +
          txt(24, 45, 22, RED, '萬', ' font-weight="700"');
      }
      if (s === 'p') {
        if (r === 1) {
          return '<circle cx="24" cy="32" r="17" fill="' + GREEN + '"/>' +
            '<circle cx="24" cy="32" r="13.5" fill="#fff"/>' +
            '<circle cx="24" cy="32" r="11" fill="' + RED + '"/>' +
            '<circle cx="24" cy="32" r="7" fill="none" stroke="#fff" stroke-width="1.6" stroke-dasharray="2.2 1.6"/>' +
            '<circle cx="24" cy="32" r="3.2" fill="' + BLUE + '"/>';
        }
        return DOTS[r].map(function (d) { return dot(d[0], d[1], DOT_R[r], d[2]); }).join('');
      }
      if (r === 1) {
        return '<rect x="19" y="8" width="10" height="48" rx="4.5" fill="' + GREEN + '"/>' +
          [20, 32, 44].map(function (y) {
            return '<rect x="17.5" y="' + (y - 1.6) + '" width="13" height="3.2" rx="1.4" fill="' + RED + '"/>';
          }).join('') +
          '<line x1="24" y1="11" x2="24" y2="53" stroke="rgba(255,255,255,.5)" stroke-width="1.2"/>';
      }
      return STICKS[r].map(function (d) { return stick(d[0], d[1], STICK_H[r], d[2]); }).join('');
    }
    if ('ESWN'.indexOf(c) >= 0) {
      return txt(24, 33, 30, '#1b1b1b', HONOR_CHAR[c], ' font-weight="700"') +
        txt(40, 9, 8, '#555', c, " font-family=\"sans-serif\"");
    }
    if (c === 'C') return txt(24, 33, 32, RED, '中', ' font-weight="700"');
    if (c === 'F') return txt(24, 33, 32, GREEN, '發', ' font-weight="700"');
    if (c === 'P') {
      return '<rect x="9" y="10" width="30" height="44" rx="2" fill="none" stroke="#1565c0" stroke-width="3"/>' +
        '<rect x="14" y="15" width="20" height="34" rx="1" fill="none" stroke="#1565c0" stroke-width="1.2"/>';
    }
    if (isFlower(c)) {
      var n = +c[0];
      return txt(24, 34, 27, FLOWER_COLOR[n - 1], FLOWER_CHAR[n - 1], ' font-weight="700"') +
        txt(40, 10, 9, '#555', String(n <= 4 ? n : n - 4), ' font-family="sans-serif" font-weight="700"') +
        '<circle cx="9" cy="55" r="3" fill="' + FLOWER_COLOR[n - 1] + '" opacity=".55"/>';
    }
    return txt(24, 32, 14, '#000', c);
  }

  /* One tile face as an SVG string; decorative (aria-hidden): the control around it is labelled. */
  function svg(c) {
    return '<svg class="face" viewBox="0 0 ' + W + ' ' + H + '" aria-hidden="true" focusable="false">' +
      '<rect x="0.75" y="0.75" width="' + (W - 1.5) + '" height="' + (H - 1.5) +
      '" rx="6" fill="#fdfbf3" stroke="#8a8068" stroke-width="1.5"/>' +
      faceInner(c) + '</svg>';
  }

  window.NBTiles = {
    ALL: ALL, SUITED: SUITED, HONORS: HONORS, FLOWERS: FLOWERS,
    isTile: isTile, isFlower: isFlower, isSuited: isSuited, isHonor: isHonor,
    name: name, sort: sort, next: next, caishenKinds: caishenKinds,
    toCompact: toCompact, parseCompact: parseCompact, svg: svg
  };
})();
