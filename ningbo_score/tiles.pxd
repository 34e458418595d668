# Cython declarations for tiles.py (setup.py compiles the two together): C types for the
# plain compact string's one-pass reader.  The module stays plain Python; without Cython this
# file is not read.
cimport cython

@cython.locals(out=list, i=Py_ssize_t, j=Py_ssize_t, n=Py_ssize_t, first=cython.int, d=cython.int,
               ch=Py_UCS4, suit=Py_UCS4, s=str)
cpdef list compact_or_none(object text)

cpdef list _parse_compact(text, path, problems)
