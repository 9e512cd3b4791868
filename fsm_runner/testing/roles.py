"""Roles that replay scripted answers, for property tests of the engine and of machines.

Each role walks through its own tuple of answers in a cycle. Answers are
plain words so that hypothesis can draw them; ``"raise"`` makes the role
raise, and a number in ``delays`` makes the role wait that long on the clock
(to exercise state timeouts).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator
from typing import TypeVar

import attrs

from adapters.base import Device
from fsm_runner.clock import Clock
from fsm_runner.errors import PerceptionError
from fsm_runner.perception.screen import Bounds, Element, Screen, Window, WindowKind
from fsm_runner.roles.base import (
    Candidate,
    ExecStatus,
    ExecutionRequest,
    ExecutionResult,
    HealAction,
    HealDecision,
    HealerView,
    Layer,
    Location,
    LocatorView,
    Observation,
    ObserveFn,
    PlanDecision,
    PlannerView,
    Roles,
    Usage,
    ValidatorView,
    Verdict,
    VerdictStatus,
)
from fsm_runner.steps import Check, Expect, Step

T = TypeVar("T")

PLAN_ANSWERS = ("step", "done", "high_risk", "raise")
EXEC_ANSWERS = (*(s.value for s in ExecStatus), "ack_lost", "raise")
VERDICT_ANSWERS = (*(s.value for s in VerdictStatus), "raise")
HEAL_ANSWERS = (*(a.value for a in HealAction), "raise")


@attrs.frozen
class RoleAnswers:
    """What each scripted role answers, in order (cycled). Empty means the happy answer.

    ``screens``: a fingerprint per observation, or ``None`` for a perception error.
    ``locations``: True found, False not found, None raise.
    ``llm_calls``: LLM calls the planner reports per answer (to exercise call budgets).
    ``delays``: seconds the planner waits before answering (to exercise timeouts).
    """

    screens: tuple[str | None, ...] = ()
    plans: tuple[str, ...] = ()
    locations: tuple[bool | None, ...] = ()
    executions: tuple[str, ...] = ()
    verdicts: tuple[str, ...] = ()
    heals: tuple[str, ...] = ()
    llm_calls: tuple[int, ...] = ()
    delays: tuple[float, ...] = ()


def _cycle(values: tuple[T, ...], default: T) -> Iterator[T]:
    return itertools.cycle(values) if values else itertools.repeat(default)


class ScriptedFault(RuntimeError):
    """What a scripted role raises when its answer is ``"raise"``."""


@functools.lru_cache(maxsize=1024)
def screen_with_fingerprint(fingerprint: str) -> Screen:
    """A one-button screen whose fingerprint is ``fingerprint`` (values are frozen, so they are shared)."""
    bounds = Bounds(0, 0, 1080, 2400)
    button = Element(
        element_id="e0",
        window=0,
        depth=1,
        cls="android.widget.Button",
        role="button",
        label="Go",
        text="Go",
        content_desc="",
        hint="",
        resource_id="",
        package="com.example.app",
        bounds=Bounds(100, 100, 300, 200),
        clickable=True,
    )
    return Screen(
        windows=(Window(0, WindowKind.APP, "com.example.app", bounds),),
        elements=(button,),
        width=1080,
        height=2400,
        rotation=0,
        package="com.example.app",
        activity=None,
        title=fingerprint,
        fingerprint=fingerprint,
        raw_node_count=2,
    )


class ScriptedRoles:
    """Builds a ``Roles`` bundle whose every answer comes from a ``RoleAnswers``."""

    def __init__(self, answers: RoleAnswers, clock: Clock) -> None:
        self.answers = answers
        self.clock = clock
        self._screens: Iterator[str | None] = _cycle(answers.screens, "home")
        self._plans = _cycle(answers.plans, "step")
        self._locations: Iterator[bool | None] = _cycle(answers.locations, True)
        self._executions = _cycle(answers.executions, "ok")
        self._verdicts = _cycle(answers.verdicts, "pass")
        self._heals = _cycle(answers.heals, "retry")
        self._calls = _cycle(answers.llm_calls, 0)
        self._delays = _cycle(answers.delays, 0.0)
        self.plan_calls = 0
        self.heal_calls = 0

    def roles(self) -> Roles:
        return Roles(
            observer=_Observer(self),
            planner=_Planner(self),
            locator=_Locator(self),
            executor=_Executor(self),
            validator=_Validator(self),
            healer=_Healer(self),
        )


class _Observer:
    def __init__(self, script: ScriptedRoles) -> None:
        self.script = script

    async def observe(self, device: Device, index: int) -> Observation:
        fingerprint = next(self.script._screens)
        if fingerprint is None:
            raise PerceptionError("scripted perception error", head="<hier")
        screen = screen_with_fingerprint(fingerprint)
        return Observation(index=index, screen=screen, xml="", at=self.script.clock.now())


class _Planner:
    needs_screen = False

    def __init__(self, script: ScriptedRoles) -> None:
        self.script = script

    async def plan(self, view: PlannerView) -> PlanDecision:
        self.script.plan_calls += 1
        delay = next(self.script._delays)
        if delay:
            await self.script.clock.sleep(delay)
        answer = next(self.script._plans)
        usage = Usage(calls=next(self.script._calls), prompt_tokens=10, completion_tokens=5)
        if answer == "raise":
            raise ScriptedFault("scripted planner failure")
        if answer == "done":
            return PlanDecision(step=None, done=True, reason="scripted done", usage=usage)
        step = Step(
            "tap",
            target="Go",
            expect=(Expect(Check.VISIBLE, target="Go"),),
            high_risk=answer == "high_risk",
            intent=f"step {view.step_index + 1}",
        )
        return PlanDecision(step=step, usage=usage, decided_by="scripted")


class _Locator:
    def __init__(self, script: ScriptedRoles) -> None:
        self.script = script

    async def locate(self, view: LocatorView) -> Location:
        found = next(self.script._locations)
        if found is None:
            raise ScriptedFault("scripted locator failure")
        if not found:
            return Location(candidates=(), reason="scripted: not found")
        element = view.screen.elements[0]
        return Location(candidates=(Candidate(element.element_id, element.bounds, 1.0, "scripted", element.label),))


class _Executor:
    def __init__(self, script: ScriptedRoles) -> None:
        self.script = script

    async def execute(self, request: ExecutionRequest, device: Device, observe: ObserveFn) -> ExecutionResult:
        answer = next(self.script._executions)
        if answer == "raise":
            raise ScriptedFault("scripted executor failure")
        if answer == "ack_lost":
            return ExecutionResult(
                ExecStatus.RETRY, request.action_id, detail="ack lost", layer=Layer.EXECUTION, maybe_applied=True
            )
        status = ExecStatus(answer)
        layer = None if status is ExecStatus.OK else Layer.EXECUTION
        return ExecutionResult(status, request.action_id, detail=f"scripted {status.value}", layer=layer)


class _Validator:
    def __init__(self, script: ScriptedRoles) -> None:
        self.script = script

    async def validate(self, view: ValidatorView) -> Verdict:
        answer = next(self.script._verdicts)
        if answer == "raise":
            raise ScriptedFault("scripted validator failure")
        return Verdict(VerdictStatus(answer), reason=f"scripted {answer}")


class _Healer:
    def __init__(self, script: ScriptedRoles) -> None:
        self.script = script

    async def heal(self, view: HealerView) -> HealDecision:
        self.script.heal_calls += 1
        answer = next(self.script._heals)
        if answer == "raise":
            raise ScriptedFault("scripted healer failure")
        return HealDecision(HealAction(answer), layer=view.failure.layer, reason=f"scripted {answer}")
