"""Caishen (财神 / 百搭): deriving the wildcard kinds from the indicator (docs/rules.md §2)."""
from __future__ import annotations

from .tiles import FLOWER0, WHITE, is_flower, next_kind


def derive_kinds(rule: str, indicator: int | None, kinds: list[int] | None) -> frozenset[int]:
    """The caishen kinds of a hand.

    ``indicator`` rule: the indicator's kind (its 3 other copies are caishen); a flower indicator
    makes the other 3 flowers of its group caishen.  ``indicator_and_next``: the indicator's kind
    and the next one (9 wraps to 1; E→S→W→N→E and C→F→P→C, *interpretation*); a flower
    indicator makes the other 7 flowers caishen.  Given ``kinds`` are used as they are.
    """
    if kinds is not None:
        return frozenset(kinds)
    if indicator is None:
        return frozenset()
    if is_flower(indicator):
        if rule == "indicator":
            group = FLOWER0 + 4 * ((indicator - FLOWER0) // 4)
            return frozenset(f for f in range(group, group + 4) if f != indicator)
        return frozenset(f for f in range(FLOWER0, FLOWER0 + 8) if f != indicator)
    if rule == "indicator":
        return frozenset((indicator,))
    return frozenset((indicator, next_kind(indicator)))


def face_of(k: int, substitute: int | None) -> int:
    """The face a tile of kind ``k`` plays as: a P is ``substitute`` (:func:`substitute_kind`, or
    None: P is itself), every other tile itself."""
    return substitute if (substitute is not None and k == WHITE) else k


def faces_of(tiles: tuple[int, ...], substitute: int | None) -> tuple[int, ...]:
    """:func:`face_of` of each tile (``tiles`` itself when P is itself)."""
    return tiles if substitute is None else tuple([face_of(t, substitute) for t in tiles])


def substitute_kind(kinds: frozenset[int]) -> int | None:
    """The kind 白 (P) tiles stand for under `white_dragon_substitutes` (§10.8): only when the
    caishen kinds are exactly one non-flower kind other than P."""
    if len(kinds) == 1:
        (k,) = kinds
        if not is_flower(k) and k != WHITE:
            return k
    return None
