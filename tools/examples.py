"""Example requests of ``openapi.yaml``: API.md's worked example and hands worked out by hand in
``tests/test_api.py`` (the expected results, with their arithmetic, are there)."""
from __future__ import annotations

# API.md: 排胡 0 + 自摸 1 + 硬胡 1 + 中 pung 1 + 正花 1 = 4 台; linear: 1 × (1 + 4) = 5 from each.
API_MD = {
    "rules": "ningbo",
    "seat_wind": "S",
    "round_wind": "E",
    "caishen": {"indicator": "5p"},
    "hand": {
        "concealed": ["2m", "3m", "4m", "6m", "7m", "8m", "9s", "9s"],
        "winning_tile": "4m",
        "melds": [
            {"type": "pung", "tiles": ["C", "C", "C"], "from": "E"},
            {"type": "kong", "tiles": ["1s", "1s", "1s", "1s"], "concealed": True},
        ],
        "flowers": ["2f"],
    },
    "win": {"by": "self_draw"},
    "claims_from_winner": {"E": 0, "W": 1, "N": 0},
    "base_points": 1,
}

# South wins on West's discard, 8s in the middle of 7s-8s-9s; three melds were claimed from East,
# so East is related (包).  夹 1 + 硬胡 1 + 发 pung 1 + 正花 (6f) 1 = 4 台.
DISCARD_LIABILITY = {
    "rules": "ningbo",
    "seat_wind": "S",
    "round_wind": "E",
    "caishen": {"indicator": "1p"},
    "hand": {
        "concealed": "789s 44s",
        "winning_tile": "8s",
        "melds": [
            {"type": "chow", "tiles": "123m", "from": "E"},
            {"type": "pung", "tiles": "555p", "from": "E"},
            {"type": "pung", "tiles": ["发", "发", "发"], "from": "E"},
        ],
        "flowers": ["6f"],
    },
    "win": {"by": "discard", "from": "W"},
    "base_points": 2,
}

# The same hand under the 456 rules: doubling points and a liability cap.
DISCARD_LIABILITY_456 = {**DISCARD_LIABILITY, "rules": {"preset": "ningbo-456"}}

# All chows, two-sided wait on 4m, no caishen this hand: 平胡 1 + 硬胡 1 = 2 台 < 4: not eligible.
INELIGIBLE = {
    "seat_wind": "N",
    "round_wind": "E",
    "hand": {"concealed": "123m 456m 789p 234s 55s", "winning_tile": "4m"},
    "win": {"by": "discard", "from": "W"},
}

# Compact strings, Chinese names and an item_tai override: API.md's hand with 硬胡 worth 0.
ITEM_TAI_OVERRIDE = {
    "rules": {"preset": "ningbo", "item_tai": {"no_caishen": 0}},
    "seat_wind": "S",
    "round_wind": "E",
    "caishen": {"indicator": "五饼"},
    "hand": {
        "concealed": "234m 678m 9s9s",
        "winning_tile": "4m",
        "melds": [
            {"type": "pung", "tiles": "CCC", "from": "E"},
            {"type": "kong", "tiles": "1111s", "concealed": True},
        ],
        "flowers": "夏",
    },
    "win": {"by": "self_draw"},
}

# 422: 13 concealed tiles where a hand without melds holds 14.
WRONG_TILE_COUNT = {
    "seat_wind": "E",
    "round_wind": "E",
    "hand": {"concealed": "123m 456m 789p 234s 5s", "winning_tile": "5s"},
    "win": {"by": "self_draw"},
}

# 422: 14 tiles that make no 4 sets and a pair.
NOT_A_WINNING_HAND = {
    "seat_wind": "E",
    "round_wind": "E",
    "hand": {"concealed": "135m 246p 1357s EE SS", "winning_tile": "E"},
    "win": {"by": "self_draw"},
}

# 400: an unknown tile code and an unknown field.
INVALID_REQUEST = {
    "seat_wind": "E",
    "round_wind": "E",
    "hand": {"concealed": ["1m", "2m", "3x"], "winning_tile": "1m"},
    "win": {"by": "self_draw", "when": "now"},
}

SCORE_EXAMPLES = {
    "api_md": ("API.md's worked example: self-draw, 4 台", API_MD),
    "discard_liability": ("A discard win with a related player (包)", DISCARD_LIABILITY),
    "discard_liability_456": ("The same hand under the 456 rules (doubling)", DISCARD_LIABILITY_456),
    "ineligible": ("A hand below the minimum of 4 台", INELIGIBLE),
    "item_tai_override": ("Compact strings, Chinese names and an item_tai override", ITEM_TAI_OVERRIDE),
}
SCORE_ERROR_EXAMPLES = {
    "invalid_request": ("An unknown tile and an unknown field (400)", INVALID_REQUEST),
    "wrong_tile_count": ("13 tiles without melds (422)", WRONG_TILE_COUNT),
    "not_a_winning_hand": ("No 4 sets and a pair (422)", NOT_A_WINNING_HAND),
}
