# Cython declarations for decompose.py (build_ext.py compiles the two together): C types for the
# search's arguments and locals, and C calls between its functions.  The module stays plain
# Python; without Cython this file is not read.
cimport cython

@cython.locals(rest=list)
cpdef tuple _remove(tuple tiles, tuple removed)

@cython.locals(wk=cython.int, mode=cython.int, m=cython.int)
cdef tuple _memo_key(tuple tiles, int c, int sets, int pair, tuple env)

@cython.locals(m=cython.int, n=cython.int, k=cython.int, winds=cython.int, need_k=cython.int, used=cython.int,
               is_set=cython.int, gdr=cython.int, sdr=cython.int, wk=cython.int, memo=dict, out=dict, back=dict,
               rows=tuple, need=tuple, keys=tuple, drs=tuple, remaining=tuple, sub_problem=tuple, mk=tuple)
cpdef dict _solve(tuple tiles, int c, int sets, int pair, tuple env)

cpdef tuple _rebuild(tuple tiles, int c, int sets, int pair, tuple env, object packed)
