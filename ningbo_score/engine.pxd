# Cython declarations for engine.py (build_ext.py compiles the two together): C calls between
# the scorer's small helpers, C integers for the keys and 台 of _score_as_given, the win context
# as an extension type, and the hand's fields read as C members (hand.pxd's Hand and Meld).  The
# module stays plain Python; without Cython this file is not read.
cimport cython

from ningbo_score.hand cimport Hand, Meld

cdef class Context:
    cdef readonly object by, kong_replacement, last_tile, heavenly, earthly, n_caishen, n_melds, flowers, seat
    cdef readonly object seat_tile, round_tile

cdef list _occurrences(result)
@cython.locals(total=cython.int, tai=cython.int)
cdef tuple _evaluate(tuple items, h_view, tuple tais)
cdef bint _meets(tuple required, set holds, set seat_holds, set ctx_holds)
@cython.locals(code=cython.long)
cdef long _dragon_code(tuple dragon_tiles)
cdef tuple _shape_answers(shape, seat, long full_key, long dragon_code)
@cython.locals(melds_key=cython.long, bad=cython.long, key=cython.long, full_key=cython.long,
               best_total=cython.int, total=cython.int, seat_total=cython.int, meets=bint, this_meets=bint,
               n_meld_dragons=cython.int, dragons=cython.int, tai=cython.int, counted=cython.int, t=cython.int, w_caishen=bint,
               zh=bint, eligible=bint, m=Meld)
cdef dict _score_as_given(Hand h, memo, str lang)
cdef dict _item_out(it, tuple tiles, int tai, frozenset bonus_ids)
cdef dict _caishen_echo(Hand h)
@cython.locals(w_caishen=bint, m=Meld)
cdef dict _decomposition_out(Hand h, list groups, wait)
cdef list _shown(g, Hand h, bint w_caishen, list spare, list caishen)
