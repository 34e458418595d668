# Cython declarations for hand.py (build_ext.py compiles the two together): C calls between the
# rule checks' helpers and C types for the loop of _derived.  The module stays plain Python;
# without Cython this file is not read.
cimport cython

@cython.locals(caishen=list, others=list, i=Py_ssize_t)
cdef tuple _derived(concealed, kinds, substitute)

cdef object _win_bad(list problems, path, en, zh)
cdef object _check_win(h, list problems, seat_code)
cdef bint _has_kong(melds, fed_by)

cdef Py_ssize_t _copy_limit(Py_ssize_t kind)
@cython.locals(counts=list, over=list, n=Py_ssize_t, t=Py_ssize_t)
cdef tuple _copies(h)
@cython.locals(found=list, run=list, size=Py_ssize_t)
cdef list _meld_problems(m, Py_ssize_t seat, Py_ssize_t upper, caishen_kinds)
