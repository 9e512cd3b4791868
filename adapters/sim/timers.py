"""Lazy timers: callbacks due at a time on the injected clock, run when the phone is next queried."""

from __future__ import annotations

from collections.abc import Callable

import attrs


@attrs.frozen
class _Timer:
    due: float
    seq: int
    label: str
    callback: Callable[[], None] = attrs.field(eq=False)


class Timers:
    """Pending callbacks, run in due order (ties in scheduling order); no threads involved."""

    def __init__(self, now: Callable[[], float]) -> None:
        self._now = now
        self._pending: list[_Timer] = []
        self._seq = 0

    def schedule(self, delay_s: float, label: str, callback: Callable[[], None]) -> None:
        self._seq += 1
        self._pending.append(_Timer(self._now() + delay_s, self._seq, label, callback))

    def cancel(self, label: str) -> None:
        self._pending = [t for t in self._pending if t.label != label]

    def cancel_prefix(self, prefix: str) -> None:
        self._pending = [t for t in self._pending if not t.label.startswith(prefix)]

    def pending(self) -> list[str]:
        return [t.label for t in sorted(self._pending, key=lambda t: (t.due, t.seq))]

    def run_due(self) -> None:
        """Run every timer that is due now, including ones scheduled by a callback and already due."""
        while True:
            now = self._now()
            due = [t for t in self._pending if t.due <= now]
            if not due:
                return
            first = min(due, key=lambda t: (t.due, t.seq))
            self._pending.remove(first)
            first.callback()
