"""A machine definition: what a tester writes.

A ``Machine`` is data: the app, the steps (or a goal for an LLM planner),
final expectations, budgets and permissions. It is checked when it is built,
so a bad definition fails before anything touches a device.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any

import attrs

from adapters.base import Device, PopupPolicy
from fsm_runner.budgets import Budgets
from fsm_runner.errors import DefinitionError
from fsm_runner.perception.screen import Screen
from fsm_runner.steps import Action, Check, Expect, Step

#: A custom expected state: true when the screen (and remembered values) satisfy it.
Predicate = Callable[[Screen, Mapping[str, str]], bool]


@attrs.frozen
class OutcomeContext:
    """What a business-outcome check may look at: the device it ran on and the remembered values."""

    device: Device
    values: Mapping[str, str]


#: A business-outcome check run when the plan is done (e.g. "exactly one order exists"): returns
#: True, or False / a string saying what is wrong. It may be a coroutine function.
OutcomeCheck = Callable[[OutcomeContext], "bool | str | Awaitable[bool | str]"]


def _steps(items: Iterable[Step]) -> tuple[Step, ...]:
    return tuple(items)


def _expects(items: Iterable[Expect]) -> tuple[Expect, ...]:
    return tuple(items)


def _words(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(items)


def _frozen_map(value: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(value))


@attrs.frozen
class Machine:
    """One UI test.

    Either ``steps`` (scripted, no LLM) or ``goal`` (an LLM planner proposes
    one step at a time) must be given. ``final`` expectations are checked on
    the last screen and ``outcomes`` against the app's real effects when the
    plan is done. ``machines`` holds sub-machines that ``run_machine`` steps
    name. High-risk steps (paying, deleting) need ``allow_high_risk``.
    """

    name: str
    app: str
    steps: tuple[Step, ...] = attrs.field(default=(), converter=_steps)
    goal: str = ""
    final: tuple[Expect, ...] = attrs.field(default=(), converter=_expects)
    outcomes: Mapping[str, OutcomeCheck] = attrs.field(factory=dict, converter=_frozen_map)
    budgets: Budgets = attrs.field(factory=Budgets)
    predicates: Mapping[str, Predicate] = attrs.field(factory=dict, converter=_frozen_map)
    machines: Mapping[str, Machine] = attrs.field(factory=dict, converter=_frozen_map)
    allow_high_risk: bool = False
    allow_skip: bool = False
    start_app: bool = True
    clear_data: bool = False
    popup_policy: PopupPolicy = "allow"
    description: str = ""
    tags: tuple[str, ...] = attrs.field(default=(), converter=_words)

    def __attrs_post_init__(self) -> None:
        if not self.name or not self.name.replace("_", "").replace("-", "").replace(".", "").isalnum():
            raise DefinitionError(
                f"machine name {self.name!r} is not usable",
                field="machine.name",
                fix="use letters, digits, '-', '_' or '.' (it names the run directory)",
            )
        if not self.app:
            raise DefinitionError(
                "the machine names no app",
                field="machine.app",
                fix="set app='com.example.package' (the package under test)",
            )
        if not self.steps and not self.goal:
            raise DefinitionError(
                f"machine {self.name!r} has neither steps nor a goal",
                field="machine.steps",
                fix="give steps=[Step(...), ...] for a scripted test, or goal='...' for an LLM planner",
            )
        if self.popup_policy not in ("allow", "deny", "fail"):
            raise DefinitionError(
                f"popup_policy {self.popup_policy!r} is not known",
                field="machine.popup_policy",
                fix="use 'allow', 'deny' or 'fail'",
            )
        for index, step in enumerate(self.steps):
            self._check_step(index, step)
        for expect in self.final:
            self._check_expect("final", expect)

    def _check_step(self, index: int, step: Step) -> None:
        where = f"machine {self.name!r} step {index + 1} ({step.describe()})"
        if step.high_risk and not self.allow_high_risk:
            raise DefinitionError(
                f"{where} is high-risk but the machine does not allow high-risk actions",
                field=f"steps[{index}].high_risk",
                fix="set allow_high_risk=True on the machine if this test may pay or delete for real",
            )
        if step.action is Action.RUN_MACHINE and step.machine not in self.machines:
            raise DefinitionError(
                f"{where} runs machine {step.machine!r}, which is not among the sub-machines",
                field=f"steps[{index}].machine",
                fix=f"pass machines={{{step.machine!r}: <Machine>}} to the machine",
            )
        for expect in step.expect:
            self._check_expect(f"steps[{index}]", expect)

    def _check_expect(self, where: str, expect: Expect) -> None:
        if expect.check is Check.PREDICATE and expect.predicate not in self.predicates:
            raise DefinitionError(
                f"{where} expects predicate {expect.predicate!r}, which is not registered",
                field=f"{where}.expect.predicate",
                fix=f"pass predicates={{{expect.predicate!r}: fn}} to the machine",
            )

    @property
    def scripted(self) -> bool:
        return bool(self.steps)
