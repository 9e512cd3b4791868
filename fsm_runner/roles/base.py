"""Role interfaces: each role gets a typed view holding only what it may see.

Isolation is enforced by these types: the planner gets no raw hierarchy, the
locator no goal, the validator no action history. Roles return results; they
never fire machine triggers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from enum import StrEnum
from typing import Protocol

import attrs

from adapters.base import Device
from fsm_runner.perception.screen import Bounds, Screen
from fsm_runner.steps import Expect, Step


class Layer(StrEnum):
    """Where a failure belongs; every failure is classified into exactly one."""

    PERCEPTION = "perception"
    DECISION = "decision"
    EXECUTION = "execution"
    VERDICT = "verdict"
    ENVIRONMENT = "environment"


@attrs.frozen
class Usage:
    """LLM usage of one role answer (all zero for offline roles)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_hits: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.calls + other.calls,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cache_hits + other.cache_hits,
        )


@attrs.frozen
class Observation:
    """One look at the device: the parsed screen and where it came from.

    ``index`` numbers observations within a run (it names ``screens/NNNN.xml``).
    """

    index: int
    screen: Screen
    xml: str
    at: float
    dump_latency_ms: float = 0.0
    dump_attempts: int = 1
    screenshot: bytes | None = attrs.field(default=None, repr=False)
    toasts: tuple[str, ...] = ()


ObserveFn = Callable[[], Awaitable[Observation]]


@attrs.frozen
class StepSummary:
    """What later roles may know of an earlier step: intent, action, outcome."""

    index: int
    intent: str
    action: str
    target: str | None
    outcome: str


class Observer(Protocol):
    async def observe(self, device: Device, index: int) -> Observation:
        """Dump (and screenshot if needed) and parse; raises PerceptionError or DeviceError."""
        ...


@attrs.frozen
class PlannerView:
    """What the planner sees: the goal, the page in compact form, and recent steps."""

    goal: str
    step_index: int
    page_summary: str
    screen_text: str
    recent: tuple[StepSummary, ...] = ()
    earlier: str = ""
    page_map: str = ""
    fingerprint: str = ""


@attrs.frozen
class PlanDecision:
    """The next step, or ``done`` when the plan is complete."""

    step: Step | None
    done: bool = False
    reason: str = ""
    decided_by: str = "scripted"
    usage: Usage = Usage()
    cache_hit: bool = False


class Planner(Protocol):
    """Plans one step at a time. A planner may set ``needs_screen = False`` (a scripted plan) so
    the engine skips rendering the screen for it."""

    async def plan(self, view: PlannerView) -> PlanDecision:
        """Return ONE next step with its expected states, or done."""
        ...


@attrs.frozen
class LocatorView:
    """What the locator sees: the target description and the screen, never the goal."""

    target: str
    screen: Screen


@attrs.frozen
class Candidate:
    """A possible match for a target, with the score (0..1) and the reason it was picked."""

    element_id: str
    bounds: Bounds
    score: float
    reason: str
    label: str = ""


@attrs.frozen
class Location:
    """Top candidates best first; empty means "not found" (the locator refused to guess)."""

    candidates: tuple[Candidate, ...]
    reason: str = ""
    decided_by: str = "rules"
    usage: Usage = Usage()
    #: True when no candidate was given because the match lies under another window (keyboard,
    #: dialog): waiting will not help, removing the cover will.
    covered: bool = False

    @property
    def found(self) -> bool:
        return bool(self.candidates)

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None


class Locator(Protocol):
    async def locate(self, view: LocatorView) -> Location:
        """Rank elements matching the description, or return no candidates."""
        ...


class ExecStatus(StrEnum):
    OK = "ok"
    RETRY = "retry"
    FAIL = "fail"
    EXCEPTION = "exception"


@attrs.frozen
class ExecutionRequest:
    """One primitive to perform. ``text`` is the value with secrets substituted (never logged)."""

    step: Step
    action_id: str
    screen: Screen
    location: Location | None = None
    text: str | None = attrs.field(default=None, repr=False)


@attrs.frozen
class ExecutionResult:
    """What the executor did; it never changes the plan."""

    status: ExecStatus
    action_id: str
    detail: str = ""
    element_id: str | None = None
    point: tuple[int, int] | None = None
    layer: Layer | None = None
    settle_observations: int = 0
    after: Observation | None = None
    #: True when the action may have taken effect although it did not report success
    #: (a lost acknowledgement): the engine verifies instead of repeating it.
    maybe_applied: bool = False


class Executor(Protocol):
    async def execute(self, request: ExecutionRequest, device: Device, observe: ObserveFn) -> ExecutionResult:
        """Perform one primitive on the best candidate and wait for the UI to settle."""
        ...


class VerdictStatus(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    NOT_YET = "not_yet"
    UNKNOWN = "unknown"


@attrs.frozen
class Evidence:
    """One expected state, what was found, and whether it held."""

    expect: str
    held: bool
    found: str
    element_id: str | None = None


@attrs.frozen
class ValidatorView:
    """What the validator sees: expected states, the fresh screen, remembered values; no history."""

    expect: tuple[Expect, ...]
    screen: Screen
    values: Mapping[str, str] = attrs.field(factory=dict)
    toasts: tuple[str, ...] = ()
    #: Target description -> element id the step's own target resolved to (stable across dumps).
    anchors: Mapping[str, str] = attrs.field(factory=dict)


@attrs.frozen
class Verdict:
    status: VerdictStatus
    evidence: tuple[Evidence, ...] = ()
    reason: str = ""
    llm_judged: bool = False
    usage: Usage = Usage()


class Validator(Protocol):
    async def validate(self, view: ValidatorView) -> Verdict:
        """Decide the expected states by code; NOT_YET when they may still become true."""
        ...


class HealAction(StrEnum):
    RETRY = "retry"
    DISMISS_POPUP = "dismiss_popup"
    SCROLL_TO_FIND = "scroll_to_find"
    REPLAN = "replan"
    SKIP = "skip"
    ABORT = "abort"


@attrs.frozen
class Failure:
    """A failure record handed to the healer. ``cause`` is a short word: loop, timeout, not_found, ...

    ``target`` is the failing step's target description, when it has one (it keys learned fixes).
    """

    state: str
    cause: str
    layer: Layer
    detail: str
    step_index: int
    target: str | None = None


@attrs.frozen
class HealerView:
    """What the healer sees: the failure, the page summary and the last three steps."""

    failure: Failure
    page_summary: str
    recent: tuple[StepSummary, ...] = ()
    heals_this_step: int = 0
    skip_allowed: bool = False
    screen: Screen | None = None


@attrs.frozen
class HealDecision:
    """Decision of the healer. ``remedy`` is a step the engine performs (unverified) before re-observing."""

    action: HealAction
    layer: Layer
    reason: str = ""
    remedy: Step | None = None
    usage: Usage = Usage()


class Healer(Protocol):
    async def heal(self, view: HealerView) -> HealDecision:
        """Classify the failure into one layer and decide what to do."""
        ...


@attrs.frozen
class Roles:
    """The role implementations one run uses; only the CLI and machine definitions pick them."""

    observer: Observer
    planner: Planner
    locator: Locator
    executor: Executor
    validator: Validator
    healer: Healer
