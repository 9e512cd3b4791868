"""The live progress line: one line per machine, rewritten as steps go; plain lines when not on a terminal.

It listens to run events (``fsm_runner.events.configure(listeners=[progress])``)
and shows the state, the action and its target. On a terminal the line is
redrawn in place; in a log or a pipe each step prints one line when it ends.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any, TextIO


class Progress:
    """Writes progress to ``stream``; ``live`` (default: ``stream.isatty()``) redraws one line in place."""

    def __init__(self, stream: TextIO | None = None, *, live: bool | None = None, width: int = 100) -> None:
        self.stream = stream or sys.stdout
        self.live = self.stream.isatty() if live is None else live
        self.width = width
        self._state = ""
        self._step: Mapping[str, Any] = {}

    def __call__(self, event: Mapping[str, Any]) -> None:
        name = event.get("event")
        machine = str(event.get("machine", ""))
        if name == "run.start":
            self._state, self._step = "INIT", {}
            self._show(f"{machine}: starting on {event.get('device', '?')}", final=not self.live)
        elif name == "fsm.transition":
            self._state = str(event.get("dst", ""))
            if self.live:
                self._show(self._line(machine), final=False)
        elif name == "step.start":
            self._step = dict(event)
            self._show(self._line(machine), final=False)
        elif name == "step.end":
            outcome = event.get("outcome", "?")
            heals = int(event.get("heals", 0) or 0)
            tail = f" -> {outcome}" + (f" after {heals} heal{'s' if heals != 1 else ''}" if heals else "")
            self._show(self._line(machine, state=self.live) + tail, final=not self.live)
        elif name == "run.end":
            self._show(f"{machine}: {event.get('outcome', '?')} ({event.get('steps', 0)} steps)", final=True)

    def _line(self, machine: str, *, state: bool = True) -> str:
        step = self._step
        if not step:
            return f"{machine}: {self._state}"
        target = step.get("target") or ""
        intent = step.get("intent") or step.get("action") or ""
        number = int(step.get("step", 0)) + 1
        where = f" {target!r}" if target and str(target) not in str(intent) else ""
        where_state = f" [{self._state}]" if state else ""
        return f"{machine}: step {number}{where_state} {intent}{where}"

    def _show(self, text: str, *, final: bool) -> None:
        if self.live:
            clipped = text if len(text) <= self.width else text[: self.width - 1] + "…"
            self.stream.write("\r\x1b[K" + clipped + ("\n" if final else ""))
        elif final:
            self.stream.write(text + "\n")
        self.stream.flush()
