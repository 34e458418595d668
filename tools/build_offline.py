"""Build the calculator's scoring with no signal into ``build/offline/`` (``make offline``).

    python -m tools.build_offline [-o build/offline]

- Pyodide (CPython in WebAssembly) from the npm registry, with npm's own client (``npm pack``),
  at a pinned version whose tarball is checked against its pinned sha512 before anything of it
  is used; only the files the worker loads are kept (pyodide.mjs, pyodide.asm.mjs,
  pyodide.asm.wasm, python_stdlib.zip, pyodide-lock.json: 13.5 MB, 6.5 MB as npm sends it).
- The ningbo_score wheel built pure Python (``NINGBO_SCORE_PURE=1 pip wheel .``, as ``make``
  builds it, no Cython) and marshmallow's wheel at the version requirements.txt pins (its only
  dependency; the library needs no orjson: only the service does).
- offline/worker.js and offline/nbscore.py, and ``manifest.json``: every file with its size and
  its gzip size (what a phone downloads: the service sends gzip), and a version (a hash of them
  all).

Not committed (``/build/`` is ignored): 13.7 MB of other people's binaries; the service serves
the directory when it is there (service/offline.py) and the page offers the download only then.
"""
from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import typing
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "offline"
PYODIDE = "314.0.8"
PYODIDE_SHA512 = "74Wq1kXOC+CCEzAfxuRAO701nAcCMLjf8NrwvWpu8S41dVMXwXmLQ05dYB+F4e46AdnGo0oq7YHSVUpHsoarLQ=="
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
OWN_FILES = ("worker.js", "nbscore.py")


def pinned(name: str) -> str:
    """The version requirements.txt pins for ``name``."""
    found = re.search(rf"^{re.escape(name)}==([^\s\\]+)", (ROOT / "requirements.txt").read_text(), re.M)
    if not found:
        raise SystemExit(f"{name} is not pinned in requirements.txt")
    return found.group(1)


def fetch_pyodide(work: Path, out: Path) -> None:
    subprocess.run(["npm", "pack", f"pyodide@{PYODIDE}", "--pack-destination", str(work), "--silent"],
                   check=True, stdout=subprocess.DEVNULL, timeout=600)
    tarball = work / f"pyodide-{PYODIDE}.tgz"
    digest = base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()
    if digest != PYODIDE_SHA512:
        raise SystemExit(f"pyodide-{PYODIDE}.tgz: sha512 {digest}, pinned {PYODIDE_SHA512}")
    with tarfile.open(tarball) as tar:
        for name in PYODIDE_FILES:
            member = tar.extractfile(f"package/{name}")
            if member is None:
                raise SystemExit(f"pyodide-{PYODIDE}.tgz has no {name}")
            (out / name).write_bytes(member.read())


def build_wheels(work: Path, out: Path) -> list[str]:
    env = {**os.environ, "NINGBO_SCORE_PURE": "1"}
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(work),
                    str(ROOT)], check=True, env=env, timeout=600)
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(work),
                    f"marshmallow=={pinned('marshmallow')}"], check=True, timeout=600)
    wheels = sorted(p.name for p in work.glob("*.whl"))
    if not any(w.startswith("ningbo_score-") and w.endswith("-py3-none-any.whl") for w in wheels):
        raise SystemExit(f"no pure-Python ningbo_score wheel among {wheels}")
    for name in wheels:
        shutil.copy(work / name, out / name)
    return wheels


def manifest(out: Path, wheels: list[str]) -> dict:
    files: list[dict[str, typing.Any]] = []
    for path in sorted(out.iterdir()):
        if path.name == "manifest.json":
            continue
        data = path.read_bytes()
        files.append({"name": path.name, "bytes": len(data),
                      "gzip_bytes": len(gzip.compress(data, compresslevel=9, mtime=0)),
                      "sha256": hashlib.sha256(data).hexdigest()})
    version = hashlib.sha256("".join(f["sha256"] for f in files).encode()).hexdigest()[:16]
    return {"version": version, "pyodide": PYODIDE, "wheels": wheels, "files": files,
            "bytes": sum(f["bytes"] for f in files), "gzip_bytes": sum(f["gzip_bytes"] for f in files)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    out: Path = args.out
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        fetch_pyodide(work, out)
        wheels = build_wheels(work, out)
    for name in OWN_FILES:
        shutil.copy(ROOT / "offline" / name, out / name)
    info = manifest(out, wheels)
    (out / "manifest.json").write_text(json.dumps(info, indent=1) + "\n")
    print(f"{out}: {len(info['files'])} files, {info['bytes'] / 1e6:.1f} MB, {info['gzip_bytes'] / 1e6:.1f} MB gzipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
