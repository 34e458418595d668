# Cython declarations for decompose.py (build_ext.py compiles the two together): C types for the
# search's arguments and locals, and C calls between its functions.  The module stays plain
# Python; without Cython this file is not read.
cimport cython

cdef int _count(unsigned long long lo, unsigned long long hi, int kind) noexcept

@cython.locals(n=cython.int, cell=tuple)
cdef tuple _rows(unsigned long long lo, unsigned long long hi, int k, int c, int sets, int pair)

cdef (unsigned long long, unsigned long long, bint) _take(unsigned long long lo, unsigned long long hi, int word,
                                                          unsigned long long take, int s1, int s2) noexcept

cdef long _with_options(long gkey, int m, int wk, tuple natural_options, long caishen_options) except? -1

cdef tuple _memo_key(unsigned long long lo, unsigned long long hi, int m, int wk, int c, int sets, int pair)

@cython.locals(m=cython.int, mode=cython.int, n=cython.int, winds=cython.int, word=cython.int,
               take=cython.ulonglong, s1=cython.int, s2=cython.int, sub_lo=cython.ulonglong,
               sub_hi=cython.ulonglong, used=cython.int, is_set=cython.int, gdr=cython.int, sdr=cython.int,
               dr=cython.int, old=cython.int, wk=cython.int, gkey=cython.long, skey=cython.long,
               key=cython.long, caishen_options=cython.long, memo=dict, out=dict, sub=dict, cell=tuple, pk=cython.int,
               keys=tuple, drs=tuple, natural_options=tuple, rows=tuple, fits=bint, mk=tuple)
cpdef dict _solve(unsigned long long lo, unsigned long long hi, int k, int c, int sets, int pair, tuple env)

@cython.locals(m=cython.int, mode=cython.int, n=cython.int, winds=cython.int, word=cython.int,
               take=cython.ulonglong, s1=cython.int, s2=cython.int, sub_lo=cython.ulonglong,
               sub_hi=cython.ulonglong, used=cython.int, is_set=cython.int, gdr=cython.int, sdr=cython.int,
               wk=cython.int, best=cython.int, gkey=cython.long, skey=cython.long,
               caishen_options=cython.long, sc=cython.int, ss=cython.int, sp=cython.int, cell=tuple,
               keys=tuple, drs=tuple, natural_options=tuple, rows=tuple, fits=bint)
cpdef tuple _rebuild(unsigned long long lo, unsigned long long hi, int k, int c, int sets, int pair, tuple env,
                     object packed)

@cython.locals(mode=cython.int, out=dict, options=dict, lo=cython.ulonglong, hi=cython.ulonglong, flags=cython.long,
               dragons=cython.int, env=tuple, problem=tuple)
cpdef dict decompose(tiles, c, sets, w_kind, w_caishen, seat_t, round_t, memo=*)

@cython.locals(counts=list, kinds=list, found=list, out=dict, p=cython.int, j=Py_ssize_t, m=Py_ssize_t,
               codes=tuple, all_codes=tuple, keys=tuple, placed_keys=tuple, faces=tuple, dragons=cython.int,
               d2=cython.int)
cpdef dict plain(tuple tiles, int sets, int w_kind, int seat_t, int round_t)

@cython.locals(i=cython.int)
cdef void _sets_of(list counts, list kinds, Py_ssize_t j, list acc, list found)
