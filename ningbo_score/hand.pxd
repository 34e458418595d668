# Cython declarations for hand.py (build_ext.py compiles the two together): the typed input, Hand
# and Meld, as extension types whose fields are C members (read directly here and by engine.pxd's
# functions, which cimport them), C calls between the rule checks' helpers and C types for the
# loop of _derived.  The module stays plain Python; without Cython this file is not read.
cimport cython

# (every field a Python object, as in hand.py)
cdef class Meld:
    cdef public object type, tiles, faces, from_seat, concealed, added, from_given

cdef class Hand:
    cdef public object rules, seat, round, caishen_kinds, indicator, concealed, winning, melds, flowers, by
    cdef public object win_from, kong_replacement, kong_fed_by, last_tile, heavenly, earthly, discarded_caishen
    cdef public object claims, base_points, substitute, naturals, caishen_tiles, deferred

@cython.locals(caishen=list, others=list, i=Py_ssize_t)
cdef tuple _derived(concealed, kinds, substitute)

cdef object _win_bad(list problems, path, en, zh)
cdef object _check_win(Hand h, list problems, seat_code)
cdef bint _has_kong(melds, fed_by)

cdef Py_ssize_t _copy_limit(Py_ssize_t kind)
@cython.locals(counts=list, over=list, n=Py_ssize_t, t=Py_ssize_t)
cdef tuple _copies(Hand h)
@cython.locals(found=list, run=list, size=Py_ssize_t)
cdef list _meld_problems(Meld m, Py_ssize_t seat, Py_ssize_t upper, caishen_kinds)

cdef _derive(Hand h)
