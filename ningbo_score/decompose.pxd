# Cython declarations for decompose.py (setup.py compiles the two together): C types for the
# search's arguments and locals, its three classes as extension types (their fields read as C
# struct members in the inner loop), and C calls between its functions.  The module stays plain
# Python; without Cython this file is not read.
cimport cython

# ningbo_score.tiles.EAST (the first honour kind) as a C int: the inner loop compares kinds with it
cdef int EAST

cdef class GroupClass:
    cdef readonly object gtype, leader
    cdef readonly tuple removed, need, keys, dragons, natural_options
    cdef readonly object members
    cdef readonly int used, need_k, word, s1, s2
    cdef readonly bint is_set
    cdef readonly long caishen_options
    cdef readonly unsigned long long take

cdef class Search:
    cdef readonly dict memo
    cdef readonly int wk, mode, seat_t, round_t, winds, pure

cdef class Readings:
    cdef readonly dict dragons, how

cdef int _count(unsigned long long lo, unsigned long long hi, int kind) noexcept

cdef int _winds_index(int seat_t, int round_t) noexcept

@cython.locals(n=cython.int, cell=tuple)
cdef tuple _rows(unsigned long long lo, unsigned long long hi, int k, int c, int sets, int pair)

cdef (unsigned long long, unsigned long long, bint) _take(unsigned long long lo, unsigned long long hi, int word,
                                                          unsigned long long take, int s1, int s2) noexcept

cdef long _with_options(long gkey, int m, int wk, tuple natural_options, long caishen_options) except? -1

cdef tuple _memo_key(unsigned long long lo, unsigned long long hi, int m, int wk, int c, int sets, int pair)

@cython.locals(m=cython.int, mode=cython.int, winds=cython.int, sub_lo=cython.ulonglong, sub_hi=cython.ulonglong,
               gdr=cython.int, sdr=cython.int, dr=cython.int, wk=cython.int, gkey=cython.long, skey=cython.long,
               key=cython.long, best=dict, how=dict, sub=Readings, node=Readings, cls=GroupClass, rows=tuple,
               fits=bint, mk=tuple)
cpdef Readings _solve(unsigned long long lo, unsigned long long hi, int k, int c, int sets, int pair, Search search)

@cython.locals(mode=cython.int, out=dict, lo=cython.ulonglong, hi=cython.ulonglong, flags=cython.long,
               dragons=cython.int, search=Search, root=Readings)
cpdef dict decompose(tiles, c, sets, w_kind, w_caishen, seat_t, round_t, memo=*)

@cython.locals(counts=list, kinds=list, found=list, out=dict, p=cython.int, j=Py_ssize_t, m=Py_ssize_t,
               codes=tuple, all_codes=tuple, keys=tuple, placed_keys=tuple, faces=tuple, dragons=cython.int,
               d2=cython.int, shown=list)
cpdef dict plain(tuple tiles, int sets, int w_kind, int seat_t, int round_t)

@cython.locals(i=cython.int)
cdef void _sets_of(list counts, list kinds, Py_ssize_t j, list acc, list found)
