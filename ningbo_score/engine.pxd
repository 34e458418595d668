# Cython declarations for engine.py (build_ext.py compiles the two together): C calls between
# the scorer's small helpers and C integers for the keys and 台 of _score_as_given.  The module
# stays plain Python; without Cython this file is not read.
cimport cython

cdef list _occurrences(result)
@cython.locals(total=cython.int, tai=cython.int)
cdef tuple _evaluate(tuple items, h_view, tuple tais)
cdef bint _meets(tuple required, set holds, set ctx_holds)
@cython.locals(code=cython.long)
cdef long _dragon_code(tuple dragon_tiles)
@cython.locals(melds_key=cython.long, bad=cython.long, key=cython.long, full_key=cython.long,
               best_total=cython.int, total=cython.int, meets=bint, this_meets=bint, n_meld_dragons=cython.int,
               dragons=cython.int, tai=cython.int, counted=cython.int, t=cython.int, w_caishen=bint,
               zh=bint, eligible=bint)
cdef dict _score_as_given(h, memo, str lang)
cdef dict _item_out(it, tuple tiles, int tai, frozenset bonus_ids)
cdef dict _caishen_echo(h)
@cython.locals(w_caishen=bint)
cdef dict _decomposition_out(h, list groups, wait)
cdef list _shown(g, h, bint w_caishen, list spare, list caishen)
