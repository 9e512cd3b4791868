"""The UI-fingerprint loop detector.

A loop is the same screen coming back with no progress: within the last
``window`` observations, one fingerprint seen ``repeats`` times while the
progress marker (steps completed) stayed the same. A changing fingerprint,
such as a list being scrolled, is progress of its own and never a loop.
"""

from __future__ import annotations

from collections import deque

import attrs


@attrs.frozen
class LoopVerdict:
    """Whether the last observation closed a loop, and how often its screen was seen."""

    looping: bool
    fingerprint: str
    seen: int


class LoopDetector:
    """Keeps the last ``window`` (fingerprint, progress) pairs of one run."""

    def __init__(self, window: int = 5, repeats: int = 3) -> None:
        if window < 2 or not 2 <= repeats <= window:
            raise ValueError(f"need window >= 2 and 2 <= repeats <= window, got {window=} {repeats=}")
        self.window = window
        self.repeats = repeats
        self._recent: deque[tuple[str, int]] = deque(maxlen=window)

    def observe(self, fingerprint: str, progress: int) -> LoopVerdict:
        """Record one observation; ``progress`` grows whenever the run moves toward its goal."""
        self._recent.append((fingerprint, progress))
        seen = sum(1 for entry in self._recent if entry == (fingerprint, progress))
        return LoopVerdict(looping=seen >= self.repeats, fingerprint=fingerprint, seen=seen)

    def reset(self) -> None:
        """Forget the window (after a heal that changed the situation)."""
        self._recent.clear()
