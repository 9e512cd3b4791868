"""Budgets: every limit a run has, checked by the engine against its clock.

Running out of a budget is a state change with the budget named, never an
exception or a hang.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal

import attrs

from fsm_runner.errors import DefinitionError
from fsm_runner.table import WORK_STATES

TimeoutPolicy = Literal["heal", "abort"]

DEFAULT_STATE_TIMEOUTS: Mapping[str, float] = MappingProxyType(
    {
        "INIT": 120.0,
        "OBSERVE": 60.0,
        "PLAN": 120.0,
        "EXECUTE": 90.0,
        "VERIFY": 90.0,
        "HEAL": 120.0,
        "NEXT_OR_END": 90.0,
    }
)

#: What a state timeout leads to: HEAL for the states a healer can help, ABORTED otherwise.
DEFAULT_TIMEOUT_POLICY: Mapping[str, TimeoutPolicy] = MappingProxyType(
    {
        "INIT": "abort",
        "OBSERVE": "heal",
        "PLAN": "heal",
        "EXECUTE": "heal",
        "VERIFY": "heal",
        "HEAL": "abort",
        "NEXT_OR_END": "abort",
    }
)


def _at_least(minimum: int) -> Any:
    def check(_: object, attribute: attrs.Attribute[int], value: int) -> None:
        if value < minimum:
            raise DefinitionError(
                f"budget {attribute.name} must be at least {minimum}, got {value}",
                field=f"budgets.{attribute.name}",
                fix=f"set {attribute.name} to {minimum} or more (or leave it at its default)",
            )

    return check


def _optional_positive(_: object, attribute: attrs.Attribute[Any], value: float | None) -> None:
    if value is not None and value <= 0:
        raise DefinitionError(
            f"budget {attribute.name} must be positive or None (no limit), got {value}",
            field=f"budgets.{attribute.name}",
            fix=f"set {attribute.name} to a positive number, or None for no limit",
        )


def _positive(_: object, attribute: attrs.Attribute[float], value: float) -> None:
    if value <= 0:
        raise DefinitionError(
            f"budget {attribute.name} must be positive, got {value}",
            field=f"budgets.{attribute.name}",
            fix=f"set {attribute.name} to a positive number of seconds",
        )


def _state_names(_: object, attribute: attrs.Attribute[Any], value: Mapping[str, Any]) -> None:
    for name, limit in value.items():
        if name not in WORK_STATES:
            raise DefinitionError(
                f"unknown state {name!r} in {attribute.name}",
                field=f"budgets.{attribute.name}",
                fix=f"use one of {', '.join(WORK_STATES)}",
            )
        if attribute.name == "state_timeouts" and (not isinstance(limit, int | float) or limit <= 0):
            raise DefinitionError(
                f"timeout for {name} must be a positive number of seconds, got {limit!r}",
                field=f"budgets.state_timeouts.{name}",
                fix="give a positive number of seconds",
            )
        if attribute.name == "timeout_policy" and limit not in ("heal", "abort"):
            raise DefinitionError(
                f"timeout policy for {name} must be 'heal' or 'abort', got {limit!r}",
                field=f"budgets.timeout_policy.{name}",
                fix="write 'heal' or 'abort'",
            )


def _frozen_map(value: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(value))


@attrs.frozen
class Budgets:
    """Every limit of one run. ``None`` means no limit for the LLM budgets.

    ``state_timeouts`` and ``timeout_policy`` override the defaults per state
    name; the defaults apply to states not named.
    """

    max_steps: int = attrs.field(default=50, validator=_at_least(1))
    max_heals_per_step: int = attrs.field(default=3, validator=_at_least(0))
    max_retries_per_state: int = attrs.field(default=3, validator=_at_least(0))
    max_checks_per_step: int = attrs.field(default=30, validator=_at_least(1))
    max_llm_calls: int | None = attrs.field(default=None, validator=_optional_positive)
    max_tokens: int | None = attrs.field(default=None, validator=_optional_positive)
    max_wall_s: float = attrs.field(default=900.0, validator=_positive)
    poll_interval_s: float = attrs.field(default=0.25, validator=_positive)
    state_timeouts: Mapping[str, float] = attrs.field(
        factory=dict, converter=_frozen_map, validator=_state_names
    )
    timeout_policy: Mapping[str, TimeoutPolicy] = attrs.field(
        factory=dict, converter=_frozen_map, validator=_state_names
    )

    def timeout_for(self, state: str) -> float:
        return float(self.state_timeouts.get(state, DEFAULT_STATE_TIMEOUTS[state]))

    def policy_for(self, state: str) -> TimeoutPolicy:
        return self.timeout_policy.get(state, DEFAULT_TIMEOUT_POLICY[state])

    def merge(self, **overrides: Any) -> Budgets:
        """A copy with the given fields replaced (None values are ignored)."""
        return attrs.evolve(self, **{k: v for k, v in overrides.items() if v is not None})
