"""Headless Chromium for the page tests: Debian's ``chromium`` package, installed on first use
where it is missing (as root, non-interactively; a file lock keeps parallel test processes from
running apt at the same time)."""
from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
LOCK_FILE = Path(tempfile.gettempdir()) / "ningbo-score-chromium-install.lock"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--mute-audio",
)


def _usable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def chromium_path() -> str:
    """The Chromium binary, installing Debian's package when it is not there yet."""
    if _usable(CHROMIUM):
        return str(CHROMIUM)
    with open(LOCK_FILE, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not _usable(CHROMIUM):
                _install()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    if not _usable(CHROMIUM):
        raise RuntimeError("chromium is not installed and could not be installed")
    return str(CHROMIUM)


def _install() -> None:
    if os.geteuid() != 0:
        raise RuntimeError("chromium is missing: run `apt-get install -y chromium` as root")
    apt = shutil.which("apt-get")
    if apt is None:
        raise RuntimeError("chromium is missing and this is no Debian system (no apt-get)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run([apt, "update"], check=True, env=env, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, timeout=600)
    subprocess.run([apt, "install", "-y", "chromium"], check=True, env=env,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, timeout=1200)


def run_chromium(url: str, *args: str, user_data_dir: str | Path, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run headless Chromium once on ``url`` with ``args`` (``--screenshot=…``, ``--dump-dom``)."""
    command = [chromium_path(), *FLAGS, f"--user-data-dir={user_data_dir}", *args, url]
    return subprocess.run(command, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL,
                          env={**os.environ, "HOME": str(user_data_dir)})
