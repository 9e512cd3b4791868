"""Reading a ``uiautomator dump`` file named on the command line, for ``observe`` and ``locate``."""

from __future__ import annotations

import sys
from pathlib import Path

from fsm_runner.errors import PerceptionError
from fsm_runner.perception import Screen, parse_dump


def read_screen(path: Path) -> Screen | None:
    """The parsed screen of ``path``, or None after saying on stderr why it cannot be read (a usage error)."""
    try:
        data = path.read_bytes()
    except OSError as err:
        print(f"error: cannot read {path}: {err.strerror or err}", file=sys.stderr)
        return None
    try:
        return parse_dump(data)
    except PerceptionError as err:
        print(f"error: {path}: {err}", file=sys.stderr)
        return None
