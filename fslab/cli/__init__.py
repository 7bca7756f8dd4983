"""The command line: ``python -m fslab {select,npfs,lattice,compare} DATA [options]``.

``main(argv) -> int`` parses the arguments, loads the data as the app does, runs the job and prints a
compact table (or, with ``--json``, one JSON document) on stdout. Exit codes: 0 success, 1 an fslab error
(``fslab: error: <message>`` on stderr), 2 a usage error, 130 interrupted.
"""

from .main import build_parser, main

__all__ = ["build_parser", "main"]
