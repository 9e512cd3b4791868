"""What a run leaves behind: step records and the run result (persisted as JSON)."""

from __future__ import annotations

from enum import StrEnum

import attrs

from fsm_runner.roles.base import Candidate, Evidence, Layer, Usage
from fsm_runner.steps import Step


class Outcome(StrEnum):
    """The terminal state a run ended in."""

    PASSED = "PASSED"
    FAILED = "FAILED"
    ERROR = "ERROR"
    ABORTED = "ABORTED"


@attrs.frozen
class HealRecord:
    """One heal: why it was needed and what the healer decided."""

    state: str
    cause: str
    layer: Layer
    action: str
    reason: str
    remedy: str = ""


@attrs.frozen
class StepRecord:
    """Everything known about one step: before, action, after, verdict and evidence."""

    index: int
    intent: str
    step: Step
    action_id: str = ""
    decided_by: str = "scripted"
    cache_hit: bool = False
    before_fingerprint: str = ""
    before_summary: str = ""
    before_observation: int | None = None
    after_fingerprint: str = ""
    after_summary: str = ""
    after_observation: int | None = None
    candidates: tuple[Candidate, ...] = ()
    target_element: str | None = None
    target_bounds: str | None = None
    execution: str = ""
    execution_detail: str = ""
    verdict: str = ""
    verdict_reason: str = ""
    evidence: tuple[Evidence, ...] = ()
    llm_judged: bool = False
    heals: tuple[HealRecord, ...] = ()
    usage: Usage = Usage()
    started_at: float = 0.0
    ended_at: float = 0.0
    outcome: str = "pending"
    remembered: tuple[tuple[str, str], ...] = ()
    children: tuple[StepRecord, ...] = ()


@attrs.frozen
class RunResult:
    """The verdict of one machine run, with the records that justify it.

    ``layer`` and ``failed_state`` attribute a failure; ``budget`` names the
    budget that ran out when the run was ABORTED.
    """

    run_id: str
    machine: str
    outcome: Outcome
    reason: str
    steps: tuple[StepRecord, ...] = ()
    layer: Layer | None = None
    failed_state: str | None = None
    budget: str | None = None
    usage: Usage = Usage()
    wall_s: float = 0.0
    transitions: int = 0
    path: tuple[str, ...] = ()
    observations: int = 0
    device: str = ""
    run_dir: str | None = None
    skipped: bool = False

    @property
    def passed(self) -> bool:
        return self.outcome is Outcome.PASSED

    @property
    def terminal_state(self) -> str:
        return self.outcome.value
