"""The run directory: where one run's evidence lands, written as the run goes.

Layout under ``OUT/<machine>-<run_id>/``: ``events.jsonl`` (written by the
events processor), ``screens/NNNN.xml``, ``shots/NNNN.png``, ``steps.jsonl``
(one finished step record a line, so a killed run keeps its steps),
``result.json``, ``report.html`` and ``junit.xml``.
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import attrs

from fsm_runner import convert
from fsm_runner.records import RunResult, StepRecord
from fsm_runner.roles.base import Observation
from fsm_runner.roles.values import Secrets

SCREENS = "screens"
SHOTS = "shots"
EVENTS = "events.jsonl"
STEPS = "steps.jsonl"
RESULT = "result.json"
REPORT = "report.html"
JUNIT = "junit.xml"

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def new_run_id() -> str:
    """A short random run id (12 hex digits)."""
    return uuid.uuid4().hex[:12]


def run_dir_name(machine: str, run_id: str) -> str:
    """``<machine>-<run_id>`` with anything unsafe in a file name replaced by ``_``."""
    return _UNSAFE.sub("_", f"{machine}-{run_id}")


def screen_path(run_dir: Path, index: int) -> Path:
    return run_dir / SCREENS / f"{index:04d}.xml"


def shot_path(run_dir: Path, index: int) -> Path:
    return run_dir / SHOTS / f"{index:04d}.png"


class RunDirectory:
    """A ``RunRecorder`` that writes observations, step records and the verdict into ``path``.

    Text is passed through ``secrets.redact`` before it is written. On
    ``finish`` it writes ``result.json`` and, with ``render`` (the default),
    ``report.html`` and ``junit.xml`` as well, so the directory is complete
    when the run returns.
    """

    def __init__(self, path: str | Path, *, secrets: Secrets | None = None, render: bool = True) -> None:
        self.path = Path(path)
        self.secrets = secrets or Secrets()
        self.render = render
        self.result: RunResult | None = None
        (self.path / SCREENS).mkdir(parents=True, exist_ok=True)
        (self.path / SHOTS).mkdir(parents=True, exist_ok=True)

    @classmethod
    def create(
        cls, out: str | Path, machine: str, run_id: str | None = None, *, secrets: Secrets | None = None
    ) -> RunDirectory:
        """A fresh directory ``out/<machine>-<run_id>``; ``run_id`` defaults to :func:`new_run_id`."""
        return cls(Path(out) / run_dir_name(machine, run_id or new_run_id()), secrets=secrets)

    @property
    def run_id(self) -> str:
        """The run id encoded in the directory name (what follows the last ``-``)."""
        return self.path.name.rsplit("-", 1)[-1]

    def observation(self, observation: Observation) -> None:
        screen_path(self.path, observation.index).write_text(self.secrets.redact(observation.xml), encoding="utf-8")
        if observation.screenshot:
            shot_path(self.path, observation.index).write_bytes(observation.screenshot)

    def step(self, record: StepRecord) -> None:
        line = convert.converter.dumps(record, ensure_ascii=False)
        with (self.path / STEPS).open("a", encoding="utf-8") as handle:
            handle.write(self.secrets.redact(line) + "\n")

    def finish(self, result: RunResult) -> None:
        if result.run_dir is None:
            result = attrs.evolve(result, run_dir=str(self.path))
        self.result = result
        (self.path / RESULT).write_text(self.secrets.redact(convert.dumps(result)), encoding="utf-8")
        if self.render:
            # Imported here: the report and the reader import this module's file names.
            from fsm_runner.evidence.junit import write_junit
            from fsm_runner.evidence.reload import load_run
            from fsm_runner.evidence.report import write_report

            loaded = load_run(self.path)
            write_report(loaded, self.path / REPORT, secrets=self.secrets)
            write_junit([loaded.result_or_partial()], self.path / JUNIT, secrets=self.secrets)

