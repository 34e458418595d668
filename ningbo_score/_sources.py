"""What the build (setup.py) and the package share about the compiled modules: which they are,
where their build goes, the digest of the sources it was built from, and the check that every
``.pxd`` was applied.

Standard library only: setup.py loads this file by its path, without importing the package
(which needs marshmallow, absent from pip's isolated build environment)."""
from __future__ import annotations

import hashlib
import importlib
import re
from collections.abc import Iterable
from pathlib import Path

#: The modules the build (setup.py: ``pip install .``, ``make install``) compiles with Cython
#: into COMPILED_DIR, where a C compiler works.
COMPILED = ("caishen", "decompose", "engine", "hand", "items", "payments", "rules", "shanten", "tiles")
COMPILED_DIR = Path(__file__).resolve().parent / "_compiled"
PACKAGE = "ningbo_score"


def sources_digest(names: Iterable[str] = COMPILED) -> str:
    """SHA-256 of each compiled module's source, one line each (COMPILED_DIR/SOURCES), and of
    its Cython declarations (``.pxd``) where it has some; ``names``: the modules built."""
    here = Path(__file__).resolve().parent
    lines = []
    for name in names:
        for label, path in ((name, here / f"{name}.py"), (f"{name}.pxd", here / f"{name}.pxd")):
            if label == name or path.exists():
                lines.append(f"{label} {hashlib.sha256(path.read_bytes()).hexdigest()}\n")
    return "".join(lines)


_CDEF_FUNCTION = re.compile(r"^cdef\s+(?:inline\s+)?[^=:#\n]*?\b(\w+)\s*\(", re.MULTILINE)


def pxd_c_functions(name: str, folder: Path | None = None) -> set[str]:
    """The functions a module's ``.pxd`` declares ``cdef``: compiled with the ``.pxd``, they are C
    only, not attributes of the module (an empty set where the module has no ``.pxd``)."""
    pxd = (folder or Path(__file__).resolve().parent) / f"{name}.pxd"
    return set(_CDEF_FUNCTION.findall(pxd.read_text(encoding="utf-8"))) if pxd.exists() else set()


def missing_c_types(names: Iterable[str] = COMPILED) -> dict[str, list[str]]:
    """{module: the cdef functions of its ``.pxd`` that are Python attributes of the loaded
    module}, for the modules ``names``: empty when every ``.pxd`` was applied by the build in
    use.  A ``.pxd`` Cython did not read still builds (as untyped Python, about 157k more
    instructions a request), so the build (setup.py) and tests/build/test_build.py check this."""
    out = {}
    for name in names:
        module = importlib.import_module(f"{PACKAGE}.{name}")
        leaked = sorted(f for f in pxd_c_functions(name) if hasattr(module, f))
        if leaked:
            out[name] = leaked
    return out
