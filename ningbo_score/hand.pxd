# Cython declarations for hand.py (build_ext.py compiles the two together): C calls between the
# fast reader's helpers, the request's objects typed as the dicts and lists they were checked to
# be (so dict.get is a C call), and C ints for the copy counts.  The module stays plain Python;
# without Cython this file is not read.
cimport cython

cdef list _tiles_or_none(value)
cdef object _seat_or_none(value)
cdef object _tile_or_none(value)
cdef object _flag(dict obj, key)
cdef bint _keys_in(dict obj, set fields)

@cython.locals(req=dict, cs=dict, hand=dict, meld=dict, win=dict, raw_claims=dict, melds=list, claims=dict,
               problems=list)
cpdef object _read_valid(request)

@cython.locals(flower0=cython.int, counts=list, upper=cython.int, n=Py_ssize_t, t=cython.int, c=cython.int,
               faces=list, f0=cython.int, f1=cython.int, f2=cython.int, low=cython.int, held=bint)
cdef bint _all_right(int seat, frozenset kinds, list concealed, int winning, list melds, list flowers, indicator,
                     by, dict claims)

@cython.locals(caishen=list, others=list, i=Py_ssize_t)
cdef tuple _derived(concealed, kinds, substitute)

cdef object _win_bad(list problems, path, en, zh)
cdef object _check_win(h, list problems, seat_code)
cdef bint _has_kong(melds, fed_by)
