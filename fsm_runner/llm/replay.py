"""Recorded model answers that a scripted server replays offline.

A replay file is JSON lines (``.jsonl``) or a YAML list (``.yaml``/``.yml``);
each entry has ``role`` (planner, locator, validator), ``key`` (the decision
key the client sends, e.g. ``step 3`` for the planner or the target
description for the locator), optionally ``fingerprint`` (the screen it was
given on) and ``answer`` (the JSON object, or its text). An entry with a
matching fingerprint wins over one without; several entries for the same match
are served in order, the last one repeating.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs
import yaml

from fsm_runner.errors import ConfigurationError


@attrs.frozen
class ReplayEntry:
    """One recorded answer of ``role`` for ``key`` (and, when given, for the screen ``fingerprint``)."""

    role: str
    key: str
    answer: str
    fingerprint: str = ""


def _answer_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class ReplayFile:
    """The entries of a replay file, answering requests by role, key and fingerprint."""

    def __init__(self, entries: Iterable[ReplayEntry]) -> None:
        self.entries = tuple(entries)
        self._served: dict[tuple[str, str, str], int] = {}
        self._lock = threading.Lock()

    @classmethod
    def load(cls, path: str | Path) -> ReplayFile:
        """Read a ``.jsonl`` or YAML replay file; ConfigurationError naming the entry that is wrong."""
        where = Path(path)
        try:
            text = where.read_text(encoding="utf-8")
        except OSError as err:
            raise ConfigurationError(f"cannot read replay file {where}: {err.strerror}") from err
        if where.suffix == ".jsonl":
            items = []
            for number, line in enumerate(text.splitlines(), start=1):
                if not line.strip():
                    continue
                try:
                    items.append(json.loads(line))
                except json.JSONDecodeError as err:
                    raise ConfigurationError(f"{where}:{number}: not a JSON object ({err.msg})") from err
        else:
            loaded = yaml.safe_load(text) or []
            if not isinstance(loaded, list):
                raise ConfigurationError(f"{where}: a replay file is a YAML list of entries")
            items = loaded
        return cls(_entry(item, f"{where} entry {number}") for number, item in enumerate(items, start=1))

    def answer(self, role: str, key: str, fingerprint: str) -> str | None:
        """The recorded answer for this request, or None when nothing was recorded for it."""
        for wanted in (fingerprint, ""):
            matches = [e for e in self.entries if e.role == role and e.key == key and e.fingerprint == wanted]
            if matches:
                with self._lock:
                    served = self._served.get((role, key, wanted), 0)
                    self._served[(role, key, wanted)] = served + 1
                return matches[min(served, len(matches) - 1)].answer
        return None

    def dump(self, path: str | Path) -> None:
        """Write the entries as JSON lines."""
        with Path(path).open("w", encoding="utf-8") as out:
            for entry in self.entries:
                out.write(json.dumps(attrs.asdict(entry), ensure_ascii=False) + "\n")


def _entry(item: Any, where: str) -> ReplayEntry:
    if not isinstance(item, dict) or not {"role", "key", "answer"} <= set(item):
        raise ConfigurationError(f"{where}: needs 'role', 'key' and 'answer' (and optionally 'fingerprint')")
    return ReplayEntry(
        role=str(item["role"]),
        key=str(item["key"]),
        answer=_answer_text(item["answer"]),
        fingerprint=str(item.get("fingerprint") or ""),
    )
