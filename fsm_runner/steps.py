"""Steps as data: the action whitelist, expected states, and the step itself.

A step is what PLAN hands to EXECUTE and VERIFY. Everything here is a frozen
value, checked at construction so that a bad machine fails before it runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

import attrs

from fsm_runner.errors import DefinitionError


class Action(StrEnum):
    """The action primitives a step may use; nothing else is ever sent to a device."""

    TAP = "tap"
    LONG_PRESS = "long_press"
    INPUT_TEXT = "input_text"
    SWIPE = "swipe"
    SCROLL = "scroll"
    PRESS_BACK = "press_back"
    PRESS_HOME = "press_home"
    PRESS_ENTER = "press_enter"
    WAIT_FOR = "wait_for"
    OPEN_APP = "open_app"
    OPEN_DEEP_LINK = "open_deep_link"
    RUN_MACHINE = "run_machine"


#: Actions that act on a located element and so need a target description.
TARGETED_ACTIONS = frozenset({Action.TAP, Action.LONG_PRESS, Action.INPUT_TEXT})
#: Actions that need a value (text to type, direction, package, uri).
VALUE_ACTIONS = frozenset({Action.INPUT_TEXT, Action.OPEN_APP, Action.OPEN_DEEP_LINK})


class Check(StrEnum):
    """Kinds of expected state, all decided by code against a fresh observation."""

    VISIBLE = "visible"
    ABSENT = "absent"
    TEXT_EQUALS = "text_equals"
    TEXT_CONTAINS = "text_contains"
    INPUT_VALUE = "input_value"
    ENABLED = "enabled"
    CHECKED = "checked"
    SELECTED = "selected"
    FOCUSED = "focused"
    PACKAGE = "package"
    ACTIVITY = "activity"
    TOAST = "toast"
    PREDICATE = "predicate"
    PROSE = "prose"


#: Checks about one element, which need a target description.
TARGETED_CHECKS = frozenset(
    {
        Check.VISIBLE,
        Check.ABSENT,
        Check.TEXT_EQUALS,
        Check.TEXT_CONTAINS,
        Check.INPUT_VALUE,
        Check.ENABLED,
        Check.CHECKED,
        Check.SELECTED,
        Check.FOCUSED,
    }
)
#: Checks that compare with a value.
VALUE_CHECKS = frozenset(
    {Check.TEXT_EQUALS, Check.TEXT_CONTAINS, Check.INPUT_VALUE, Check.PACKAGE, Check.ACTIVITY, Check.TOAST}
)


def _action(value: str | Action) -> Action:
    try:
        return Action(value)
    except ValueError:
        raise DefinitionError(
            f"action {value!r} is not in the whitelist",
            field="step.action",
            fix=f"use one of {', '.join(a.value for a in Action)}",
        ) from None


def _check(value: str | Check) -> Check:
    try:
        return Check(value)
    except ValueError:
        raise DefinitionError(
            f"expected-state kind {value!r} is not known",
            field="expect.check",
            fix=f"use one of {', '.join(c.value for c in Check)}",
        ) from None


@attrs.frozen
class Expect:
    """One expected state. ``negate`` makes it a "must not" check.

    ``value`` may reference remembered values as ``${name}`` and secrets as
    ``${secret:NAME}``. ``predicate`` names a function registered on the
    machine (custom predicates over the ``Screen``); ``prose`` checks are
    judged by the LLM validator fallback only.
    """

    check: Check = attrs.field(converter=_check)
    target: str | None = None
    value: str | None = None
    negate: bool = False
    predicate: str | None = None

    def __attrs_post_init__(self) -> None:
        if self.check in TARGETED_CHECKS and not self.target:
            raise DefinitionError(
                f"expected state {self.check.value!r} needs a target description",
                field="expect.target",
                fix=f"write Expect({self.check.value!r}, target='the element it is about', ...)",
            )
        if self.check in VALUE_CHECKS and self.value is None:
            raise DefinitionError(
                f"expected state {self.check.value!r} needs a value to compare with",
                field="expect.value",
                fix=f"write Expect({self.check.value!r}, ..., value='...')",
            )
        if self.check is Check.PREDICATE and not self.predicate:
            raise DefinitionError(
                "a predicate check needs the name of a registered predicate",
                field="expect.predicate",
                fix="register the function with Machine(predicates={'name': fn}) and name it here",
            )
        if self.check is Check.PROSE and not self.value:
            raise DefinitionError(
                "a prose check needs the sentence to judge",
                field="expect.value",
                fix="write Expect('prose', value='the cart shows two items')",
            )

    def describe(self) -> str:
        """A short human sentence for reports and prompts."""
        words = [("not " if self.negate else "") + self.check.value]
        if self.target:
            words.append(repr(self.target))
        if self.value is not None:
            words.append(f"= {self.value!r}")
        if self.predicate:
            words.append(self.predicate)
        return " ".join(words)


def _expects(items: Iterable[Expect]) -> tuple[Expect, ...]:
    return tuple(items)


def _pairs(items: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple((str(a), str(b)) for a, b in items)


def _positive(_: object, attribute: attrs.Attribute[float], value: float) -> None:
    if value <= 0:
        raise DefinitionError(
            f"{attribute.name} must be positive, got {value}",
            field=f"step.{attribute.name}",
            fix=f"give {attribute.name} a value above 0 (seconds)",
        )


@attrs.frozen
class Step:
    """One action with what must be true afterwards.

    ``intent`` is a short human description (also the decision-cache key
    together with the screen). ``remember`` maps a name to a target description
    whose label is read after the step and kept for later ``${name}`` values.
    ``machine`` names a sub-machine for ``Action.RUN_MACHINE``.
    """

    action: Action = attrs.field(converter=_action)
    target: str | None = None
    value: str | None = None
    expect: tuple[Expect, ...] = attrs.field(default=(), converter=_expects)
    timeout_s: float = attrs.field(default=10.0, validator=_positive)
    high_risk: bool = False
    intent: str = ""
    remember: tuple[tuple[str, str], ...] = attrs.field(default=(), converter=_pairs)
    machine: str | None = None

    def __attrs_post_init__(self) -> None:
        if self.action in TARGETED_ACTIONS and not self.target:
            raise DefinitionError(
                f"action {self.action.value!r} needs a target description",
                field="step.target",
                fix=f"write Step({self.action.value!r}, target='the Login button', ...)",
            )
        if self.action in VALUE_ACTIONS and self.value is None:
            raise DefinitionError(
                f"action {self.action.value!r} needs a value",
                field="step.value",
                fix=f"write Step({self.action.value!r}, ..., value='...')",
            )
        if self.action is Action.RUN_MACHINE and not self.machine:
            raise DefinitionError(
                "a run_machine step needs the sub-machine's name",
                field="step.machine",
                fix="write Step('run_machine', machine='login')",
            )

    def describe(self) -> str:
        """The intent, or a sentence built from the action, target and value."""
        if self.intent:
            return self.intent
        parts = [self.action.value]
        if self.target:
            parts.append(repr(self.target))
        if self.value is not None:
            parts.append(f"with {self.value!r}")
        return " ".join(parts)
