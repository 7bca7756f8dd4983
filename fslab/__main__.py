"""``python -m fslab``: the command line (see :mod:`fslab.cli`)."""

from .cli import main

raise SystemExit(main())
