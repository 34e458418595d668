"""``python -m ningbo_score``: the ``ningbo-score`` command (ningbo_score.cli)."""
from .cli import main

raise SystemExit(main())
