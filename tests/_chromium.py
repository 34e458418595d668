"""Headless Chromium for the page tests: Debian's ``chromium`` package, and
``fonts-wqy-microhei`` so that Chinese text in screenshots shows as characters rather than
boxes, installed on first use where missing (as root, non-interactively, in one apt step; a
file lock keeps parallel test processes from running apt at the same time)."""
from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
#: Debian's fonts-wqy-microhei (a CJK font): Chromium draws the page's Chinese with it.
CJK_FONT = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
PACKAGES = {"chromium": CHROMIUM, "fonts-wqy-microhei": CJK_FONT}
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


def _missing() -> list[str]:
    """The Debian packages of :data:`PACKAGES` not installed yet."""
    return [name for name, path in PACKAGES.items()
            if not (_usable(path) if path == CHROMIUM else path.is_file())]


def chromium_path() -> str:
    """The Chromium binary, installing Debian's chromium and fonts-wqy-microhei when missing."""
    if not _missing():
        return str(CHROMIUM)
    with open(LOCK_FILE, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            missing = _missing()  # again: another process may have installed them meanwhile
            if missing:
                _install(missing)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    if not _usable(CHROMIUM):
        raise RuntimeError("chromium is not installed and could not be installed")
    if not CJK_FONT.is_file():
        raise RuntimeError("fonts-wqy-microhei is not installed and could not be installed")
    return str(CHROMIUM)


def _install(packages: list[str]) -> None:
    shown = " ".join(packages)
    if os.geteuid() != 0:
        raise RuntimeError(f"{shown} missing: run `apt-get install -y {shown}` as root")
    apt = shutil.which("apt-get")
    if apt is None:
        raise RuntimeError(f"{shown} missing and this is no Debian system (no apt-get)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run([apt, "update"], check=True, env=env, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, timeout=600)
    subprocess.run([apt, "install", "-y", *packages], check=True, env=env,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, timeout=1200)


def run_chromium(url: str, *args: str, user_data_dir: str | Path, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run headless Chromium once on ``url`` with ``args`` (``--screenshot=…``, ``--dump-dom``)."""
    command = [chromium_path(), *FLAGS, f"--user-data-dir={user_data_dir}", *args, url]
    return subprocess.run(command, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL,
                          env={**os.environ, "HOME": str(user_data_dir)})
