"""Read a run directory back: the verdict, the step records and the events, whatever state they are in.

A run killed halfway leaves no ``result.json`` and maybe a cut-off last line
in ``events.jsonl``; such a directory still loads, with the finished steps
from ``steps.jsonl``, a verdict made up from the events, and a sentence
saying where the run stops.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from fsm_runner import convert
from fsm_runner.errors import ConfigurationError
from fsm_runner.evidence.run_dir import EVENTS, RESULT, SCREENS, SHOTS, STEPS
from fsm_runner.records import Outcome, RunResult, StepRecord
from fsm_runner.roles.base import Layer

Event = Mapping[str, Any]


@attrs.frozen
class LoadedRun:
    """A run directory as read back.

    ``result`` is None when the run never finished (or ``result.json`` is
    unreadable); ``problems`` lists every line or file that could not be read.
    """

    path: Path
    machine: str
    run_id: str
    result: RunResult | None
    steps: tuple[StepRecord, ...]
    events: tuple[Event, ...]
    problems: tuple[str, ...]
    screens: frozenset[int]
    shots: frozenset[int]

    @property
    def complete(self) -> bool:
        return self.result is not None

    def own_events(self) -> tuple[Event, ...]:
        """The events of this run, without those of its sub-machines (which share the file, not the run id)."""
        return tuple(e for e in self.events if e.get("run_id", self.run_id) == self.run_id)

    def stopped_at(self) -> str:
        """Where an unfinished run stops: the last event read, its state and step; empty when complete."""
        if self.result is not None:
            return ""
        if not self.events:
            return "no event was recorded (events.jsonl is missing or empty)"
        last = self.events[-1]
        words = [f"the record stops after event {len(self.events)} ({last.get('event', '?')}"]
        if "ts" in last:
            words.append(f" at t={_number(last['ts'])}")
        words.append(")")
        state = self.last_state()
        if state:
            words.append(f" in state {state}")
        step = _open_step(self.own_events())
        if step is not None:
            words.append(f" during step {int(step.get('step', 0)) + 1} ({step.get('intent', step.get('action', '?'))})")
        return "".join(words)

    def last_state(self) -> str:
        """The state the last ``fsm.transition`` event of this run entered, or empty."""
        for event in reversed(self.own_events()):
            if event.get("event") == "fsm.transition":
                return str(event.get("dst", ""))
        return ""

    def path_taken(self) -> tuple[str, ...]:
        """States visited, from the result or else from the transition events."""
        if self.result is not None and self.result.path:
            return self.result.path
        path = ["IDLE"]
        for event in self.own_events():
            if event.get("event") == "fsm.transition" and isinstance(event.get("dst"), str):
                path.append(event["dst"])
        return tuple(path)

    def result_or_partial(self) -> RunResult:
        """The recorded verdict, or an ERROR verdict for a run whose record stops early."""
        if self.result is not None:
            return self.result
        start = next((e for e in self.events if e.get("event") == "run.start"), {})
        last_ts = next((e["ts"] for e in reversed(self.events) if isinstance(e.get("ts"), int | float)), None)
        wall = float(last_ts) - float(start["ts"]) if last_ts is not None and "ts" in start else 0.0
        return RunResult(
            run_id=self.run_id,
            machine=self.machine,
            outcome=Outcome.ERROR,
            reason=f"the run did not finish: {self.stopped_at()}",
            steps=self.steps,
            layer=Layer.ENVIRONMENT,
            failed_state=self.last_state() or None,
            wall_s=round(max(wall, 0.0), 6),
            transitions=sum(1 for e in self.own_events() if e.get("event") == "fsm.transition"),
            path=self.path_taken(),
            observations=len(self.screens),
            device=str(start.get("device", "")),
            run_dir=str(self.path),
        )


def load_run(path: str | Path) -> LoadedRun:
    """Read the run directory at ``path``; ConfigurationError when it is not a run directory at all."""
    root = Path(path)
    if not root.is_dir():
        raise ConfigurationError(f"{root} is not a directory; give the run directory (OUT/<machine>-<run_id>)")
    markers = (EVENTS, RESULT, STEPS, SCREENS)
    if not any((root / name).exists() for name in markers):
        raise ConfigurationError(
            f"{root} holds none of {', '.join(markers)}; give a run directory written by 'fsm-runner run'"
        )
    problems: list[str] = []
    events = tuple(_json_lines(root / EVENTS, problems))
    result = _read_result(root / RESULT, problems)
    steps = result.steps if result is not None else tuple(_steps(_json_lines(root / STEPS, problems), problems))
    start = next((e for e in events if e.get("event") == "run.start"), {})
    name_machine, _, name_run_id = root.name.rpartition("-")
    machine = result.machine if result else str(start.get("machine") or name_machine or root.name)
    run_id = result.run_id if result else str(start.get("run_id") or name_run_id)
    return LoadedRun(
        path=root,
        machine=machine,
        run_id=run_id,
        result=result,
        steps=steps,
        events=events,
        problems=tuple(problems),
        screens=_indexes(root / SCREENS, ".xml"),
        shots=_indexes(root / SHOTS, ".png"),
    )


def _json_lines(path: Path, problems: list[str]) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    out: list[dict[str, Any]] = []
    raw = path.read_bytes().decode("utf-8", errors="replace")
    lines = raw.split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            cut = number == len(lines) and not raw.endswith("\n")
            problems.append(f"{path.name} line {number} is not JSON" + (" (cut off mid-write)" if cut else ""))
            continue
        if not isinstance(value, dict):
            problems.append(f"{path.name} line {number} is not a JSON object")
            continue
        out.append(value)
    return out


def _read_result(path: Path, problems: list[str]) -> RunResult | None:
    if not path.exists():
        return None
    try:
        return convert.loads(path.read_bytes(), RunResult)
    except Exception as err:
        # cattrs raises its own exception groups as well as ValueError; any of them means unreadable.
        problems.append(f"{RESULT} could not be read ({type(err).__name__}); the report is built from the events")
        return None


def _steps(lines: list[dict[str, Any]], problems: list[str]) -> list[StepRecord]:
    out: list[StepRecord] = []
    for data in lines:
        try:
            out.append(convert.structure(data, StepRecord))
        except Exception as err:
            problems.append(f"{STEPS}: a step record could not be read ({type(err).__name__})")
    return out


def _indexes(folder: Path, suffix: str) -> frozenset[int]:
    if not folder.is_dir():
        return frozenset()
    return frozenset(int(p.stem) for p in folder.iterdir() if p.suffix == suffix and p.stem.isdigit())


def _open_step(events: tuple[Event, ...]) -> Event | None:
    """The ``step.start`` event of a step that has no ``step.end`` yet."""
    open_step: Event | None = None
    for event in events:
        if event.get("event") == "step.start":
            open_step = event
        elif event.get("event") == "step.end":
            open_step = None
    return open_step


def _number(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)
