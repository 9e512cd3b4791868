"""The decision cache: model decisions stored under (machine, intent, screen fingerprint) in SQLite.

Each entry keeps the fingerprint of the screen its decision led to, so a
re-run can tell a hit that still fits from a stale one. Modes: read-write
(default), read-only (hits only, nothing written) and off (no lookups).
"""

from __future__ import annotations

import sqlite3
import time
from enum import StrEnum
from pathlib import Path

import attrs

from fsm_runner.errors import ConfigurationError


class CacheMode(StrEnum):
    READ_WRITE = "read-write"
    READ_ONLY = "read-only"
    OFF = "off"


@attrs.frozen
class CachedDecision:
    """One stored decision: the answer's JSON text and the screen it led to ("" until known)."""

    machine: str
    intent: str
    fingerprint: str
    decision: str
    led_to: str = ""
    hits: int = 0


_SCHEMA = """
CREATE TABLE IF NOT EXISTS decisions (
    machine TEXT NOT NULL,
    intent TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    decision TEXT NOT NULL,
    led_to TEXT NOT NULL DEFAULT '',
    hits INTEGER NOT NULL DEFAULT 0,
    stored_at REAL NOT NULL,
    PRIMARY KEY (machine, intent, fingerprint)
)
"""


class DecisionCache:
    """Decisions in one SQLite file (or ``":memory:"``); safe to share between the roles of one run."""

    def __init__(self, path: str | Path = ":memory:", mode: CacheMode | str = CacheMode.READ_WRITE) -> None:
        try:
            self.mode = CacheMode(mode)
        except ValueError:
            raise ConfigurationError(
                f"cache mode {mode!r} is not known; use one of {', '.join(m.value for m in CacheMode)}"
            ) from None
        self.path = str(path)
        try:
            self._db = sqlite3.connect(self.path)
            self._db.execute(_SCHEMA)
            self._db.commit()
        except sqlite3.Error as err:
            raise ConfigurationError(f"cannot open the decision cache at {self.path}: {err}") from err

    def close(self) -> None:
        self._db.close()

    def get(self, machine: str, intent: str, fingerprint: str, *, count_hit: bool = True) -> CachedDecision | None:
        """The decision stored for exactly this key (counting the hit unless told not to); None when off or missing."""
        if self.mode is CacheMode.OFF:
            return None
        row = self._db.execute(
            "SELECT machine, intent, fingerprint, decision, led_to, hits FROM decisions"
            " WHERE machine = ? AND intent = ? AND fingerprint = ?",
            (machine, intent, fingerprint),
        ).fetchone()
        if row is None:
            return None
        if count_hit and self.mode is CacheMode.READ_WRITE:
            self._write("UPDATE decisions SET hits = hits + 1 WHERE machine = ? AND intent = ? AND fingerprint = ?",
                        (machine, intent, fingerprint))
        return CachedDecision(*row)

    def others(self, machine: str, intent: str, fingerprint: str) -> list[CachedDecision]:
        """Decisions for the same intent made on other screens (what a new decision replaces)."""
        if self.mode is CacheMode.OFF:
            return []
        rows = self._db.execute(
            "SELECT machine, intent, fingerprint, decision, led_to, hits FROM decisions"
            " WHERE machine = ? AND intent = ? AND fingerprint != ? ORDER BY stored_at",
            (machine, intent, fingerprint),
        ).fetchall()
        return [CachedDecision(*row) for row in rows]

    def put(self, entry: CachedDecision, *, replacing: list[CachedDecision] | tuple[CachedDecision, ...] = ()) -> bool:
        """Store ``entry`` (and drop the entries it replaces); False when the mode forbids writing."""
        if self.mode is not CacheMode.READ_WRITE:
            return False
        with self._db:
            for old in replacing:
                self._db.execute(
                    "DELETE FROM decisions WHERE machine = ? AND intent = ? AND fingerprint = ?",
                    (old.machine, old.intent, old.fingerprint),
                )
            self._db.execute(
                "INSERT OR REPLACE INTO decisions (machine, intent, fingerprint, decision, led_to, hits, stored_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (entry.machine, entry.intent, entry.fingerprint, entry.decision, entry.led_to, entry.hits, time.time()),
            )
        return True

    def set_led_to(self, machine: str, intent: str, fingerprint: str, led_to: str) -> None:
        """Record the screen a stored decision led to."""
        self._write(
            "UPDATE decisions SET led_to = ? WHERE machine = ? AND intent = ? AND fingerprint = ?",
            (led_to, machine, intent, fingerprint),
        )

    def entries(self, machine: str | None = None) -> list[CachedDecision]:
        """Every stored decision (of ``machine`` when given), oldest first."""
        query = "SELECT machine, intent, fingerprint, decision, led_to, hits FROM decisions"
        args: tuple[str, ...] = ()
        if machine is not None:
            query += " WHERE machine = ?"
            args = (machine,)
        return [CachedDecision(*row) for row in self._db.execute(query + " ORDER BY stored_at", args).fetchall()]

    def _write(self, sql: str, args: tuple[object, ...]) -> None:
        if self.mode is not CacheMode.READ_WRITE:
            return
        with self._db:
            self._db.execute(sql, args)
