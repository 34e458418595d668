"""Fold a dead gunicorn worker's Prometheus files into one archive file per kind.

In prometheus_client's multiprocess mode every worker writes ``{kind}_{pid}.db`` files in
``PROMETHEUS_MULTIPROC_DIR`` and a scrape sums them all.  ``mark_process_dead(pid)`` removes only
the dead pid's ``gauge_live*`` files; its counters, histograms, summaries and the other gauges
must stay in the totals (a counter may never go backwards), so without more the directory, and
the cost of every scrape, grows by a few files per worker ever started (``max_requests``,
crashes, ``SIGHUP``).  :func:`fold_dead_worker` keeps the totals and bounds the directory: the
dead pid's values are merged into ``{kind}_archive.db`` (one per kind, written with
prometheus_client's own ``MmapedDict``, so ``MultiProcessCollector`` reads it like any worker's
file) and the pid's files are deleted.

What each kind does on fold, chosen so that a scrape answers exactly what it answered before:

- ``counter``, ``histogram``, ``summary``: values added, key by key (the collector adds every
  file's values; histogram files hold per-bucket counts, not cumulative ones, plus ``_sum``;
  a summary holds ``_count`` and ``_sum``: all add).
- ``gauge_sum``: added (the collector adds the dead pid's file, which ``mark_process_dead``
  leaves in place, so the dead worker's last value stays in the sum).
- ``gauge_max`` / ``gauge_min``: the larger / smaller of the archive's and the pid's value.
- ``gauge_mostrecent``: the value with the later timestamp (timestamps are kept).
- ``gauge_live*`` (``livesum``, ``livemax``, ``livemin``, ``liveall``, ``livemostrecent``):
  deleted, not folded: they count live processes only, which is what ``mark_process_dead`` does.
- ``gauge_all``: left in place.  That mode promises one series per process, alive or dead,
  labelled with its ``pid``, and the collector takes the ``pid`` label from the file name, so
  no archive can keep it: such a gauge grows by design (the service has none; use ``max``,
  ``sum``, ``mostrecent`` or a ``live*`` mode).
- any other file of the pid (not a kind prometheus_client writes): left in place.

File names: the collector splits the base name on ``_``.  ``counter_archive.db`` gives type
``counter``; ``gauge_max_archive.db`` gives type ``gauge``, mode ``max`` and pid ``archive``, a
label the collector drops for every mode folded here (it keeps it only for ``all``/``liveall``).

Concurrency: the new archive is written to a hidden temporary file in the same directory (not
``*.db``, so no scrape globs it) and moved over the old one with ``os.replace``, so a reader
sees the old archive or the new one, never half of one.  Between that move and the deletion
of the pid's file a scrape could add the pid twice, or find a file it listed gone (an error for
a counter); :data:`LOCK` closes that window: :func:`fold_dead_worker` holds it, and so does
:class:`FoldAwareCollector`, the collector a process that both scrapes and folds (the gunicorn
master: its metrics thread and ``child_exit``) registers instead of ``MultiProcessCollector``.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Callable, Iterable

from prometheus_client.metrics_core import Metric
from prometheus_client.mmap_dict import MmapedDict
from prometheus_client.multiprocess import MultiProcessCollector

#: what takes the place of the pid in an archive file's name
ARCHIVE = "archive"
#: held while a fold rewrites the directory, and by :class:`FoldAwareCollector` while it reads it
LOCK = threading.Lock()

Entry = tuple[float, float]  # (value, timestamp), as MmapedDict stores them
Combine = Callable[[Entry, Entry], Entry]


def _add(old: Entry, new: Entry) -> Entry:
    return old[0] + new[0], 0.0


def _max(old: Entry, new: Entry) -> Entry:
    return new if new[0] > old[0] else old


def _min(old: Entry, new: Entry) -> Entry:
    return new if new[0] < old[0] else old


def _latest(old: Entry, new: Entry) -> Entry:
    return new if new[1] > old[1] else old


#: file-name prefix -> how an archived value and a dead pid's value combine
FOLDS: dict[str, Combine] = {
    "counter": _add,
    "histogram": _add,
    "summary": _add,
    "gauge_sum": _add,
    "gauge_max": _max,
    "gauge_min": _min,
    "gauge_mostrecent": _latest,
}
#: file-name prefixes whose files are deleted without folding (live processes only)
DROPPED = ("gauge_livesum", "gauge_livemax", "gauge_livemin", "gauge_liveall", "gauge_livemostrecent")


def _read(filename: str) -> dict[str, Entry]:
    return {key: (value, timestamp)
            for key, value, timestamp, _ in MmapedDict.read_all_values_from_file(filename)}


def _write_atomically(filename: str, values: dict[str, Entry]) -> None:
    """``values`` as an MmapedDict file at ``filename``, by a temporary file and ``os.replace``."""
    directory, base = os.path.split(filename)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{base}.", suffix=".tmp")
    os.close(fd)
    try:
        out = MmapedDict(tmp)
        try:
            for key, (value, timestamp) in values.items():
                out.write_value(key, value, timestamp)
        finally:
            out.close()
        os.replace(tmp, filename)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(tmp)
        raise


def _fold_file(dead: str, archive: str, combine: Combine) -> None:
    merged = _read(archive) if os.path.exists(archive) else {}
    for key, entry in _read(dead).items():
        merged[key] = combine(merged[key], entry) if key in merged else entry
    _write_atomically(archive, merged)


def fold_dead_worker(pid: int, path: str) -> None:
    """Fold the files of ``pid`` (a process that has exited) in the multiprocess directory
    ``path`` into ``{kind}_archive.db`` and delete them, leaving every scraped total as it was
    (see the module's notes for each kind).  Call it once the process is gone, e.g. in gunicorn's
    ``child_exit`` after ``mark_process_dead``; it does nothing for a pid with no files."""
    with LOCK:
        for prefix, combine in FOLDS.items():
            dead = os.path.join(path, f"{prefix}_{pid}.db")
            if os.path.exists(dead):
                _fold_file(dead, os.path.join(path, f"{prefix}_{ARCHIVE}.db"), combine)
                os.remove(dead)
        for prefix in DROPPED:
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(path, f"{prefix}_{pid}.db"))


class FoldAwareCollector(MultiProcessCollector):
    """``MultiProcessCollector`` that reads the directory under :data:`LOCK`, so a scrape never
    meets a fold half done (a pid counted twice, or a listed file gone)."""

    def collect(self) -> Iterable[Metric]:
        with LOCK:
            return list(super().collect())
