"""``python -m service``: start the service (gunicorn with gunicorn.conf.py, serving ``app:app``).

The settings are read first (service/settings.py): a bad one is one line per bad variable on
stderr and exit status 2, before gunicorn runs.  gunicorn reads WEB_CONCURRENCY itself as it
loads its own settings (``int()`` of it: a traceback for ``abc``), so starting it directly leaves
that variable's mistakes to a traceback; this is the command the Docker image, ``make run`` and
``ningbo-score serve`` run.  Then gunicorn runs in this process, as its own ``gunicorn -c
gunicorn.conf.py app:app`` would, from the checkout's root.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from service.settings import SettingsError, current

ROOT = Path(__file__).resolve().parent.parent
#: the exit status of a bad setting (as of a command-line usage error)
BAD_SETTING = 2


def main() -> int:
    try:
        current()
    except SettingsError as err:
        print(err, file=sys.stderr)
        return BAD_SETTING
    from gunicorn.app.wsgiapp import run

    os.chdir(ROOT)
    sys.argv = ["gunicorn", "-c", "gunicorn.conf.py", "app:app"]
    run(prog="gunicorn")
    return 0


if __name__ == "__main__":
    sys.exit(main())
