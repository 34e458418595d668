# Cython declarations for shanten.py (setup.py compiles the two together): C ints for the loops
# of the table joins, which advice by value runs a few hundred thousand times a request.  The
# module stays plain Python; without Cython this file is not read.
cimport cython

@cython.locals(s=cython.int, p=cython.int, sa=cython.int, pa=cython.int, v=cython.int, best=cython.int)
cpdef tuple join(tuple a, tuple b)

@cython.locals(sa=cython.int, rest=cython.int, v=cython.int, best=cython.int)
cpdef int joined_entry(tuple a, tuple b, int sets)

@cython.locals(missing=cython.int)
cpdef int shanten_from_held(int held, int caishen, int sets)
