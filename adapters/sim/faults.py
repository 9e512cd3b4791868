"""Seeded fault injection: which faults a simulated phone suffers, and the log of those that fired."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import NamedTuple

import attrs

_rate = [attrs.validators.ge(0.0), attrs.validators.le(1.0)]
_seconds = attrs.validators.ge(0.0)


@attrs.frozen
class Faults:
    """Fault settings for one phone; all off by default.

    Rates are probabilities per opportunity (per tap, per dump, per screen change).
    ``offline_for_s`` > 0 takes the device offline from ``offline_after_s`` seconds
    after the phone was created, for ``offline_for_s`` seconds.
    """

    slow_load_s: float = attrs.field(default=0.0, validator=_seconds)
    popup_rate: float = attrs.field(default=0.0, validator=_rate)
    keyboard_occlusion: bool = False
    drop_tap_rate: float = attrs.field(default=0.0, validator=_rate)
    duplicate_tap_rate: float = attrs.field(default=0.0, validator=_rate)
    lost_ack_rate: float = attrs.field(default=0.0, validator=_rate)
    dump_error_rate: float = attrs.field(default=0.0, validator=_rate)
    dump_empty_rate: float = attrs.field(default=0.0, validator=_rate)
    crash_rate: float = attrs.field(default=0.0, validator=_rate)
    offline_after_s: float = attrs.field(default=0.0, validator=_seconds)
    offline_for_s: float = attrs.field(default=0.0, validator=_seconds)


class FaultEvent(NamedTuple):
    """One fault that fired: when (phone clock), which kind, and what it hit."""

    time: float
    kind: str
    detail: str


class FaultInjector:
    """Decides, from one seeded random stream, whether each fault fires, and logs those that do."""

    def __init__(self, faults: Faults, seed: int, now: Callable[[], float]) -> None:
        self.faults = faults
        self.log: list[FaultEvent] = []
        self._rng = random.Random(seed)
        self._now = now
        self._born = now()
        self._was_offline = False

    def roll(self, kind: str, rate: float, detail: str = "") -> bool:
        """True (and logged) when a fault with probability ``rate`` fires now.

        A zero rate draws nothing, so enabling one fault never shifts another's sequence
        on a phone that did not have it.
        """
        if rate <= 0.0:
            return False
        if self._rng.random() < rate:
            self.note(kind, detail)
            return True
        return False

    def note(self, kind: str, detail: str = "") -> None:
        """Log a fault that fired deterministically (a configured delay, an occluding keyboard)."""
        self.log.append(FaultEvent(self._now(), kind, detail))

    def offline(self) -> bool:
        """Whether the offline window is active now; logs each transition once."""
        f = self.faults
        elapsed = self._now() - self._born
        now_offline = f.offline_for_s > 0 and f.offline_after_s <= elapsed < f.offline_after_s + f.offline_for_s
        if now_offline != self._was_offline:
            self._was_offline = now_offline
            self.note("offline" if now_offline else "online", f"{f.offline_for_s:g}s window")
        return now_offline
