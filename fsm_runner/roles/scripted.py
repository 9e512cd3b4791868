"""The scripted planner and the YAML form of steps.

A scripted machine needs no LLM: the planner hands out the written steps in
order and then says done. ``load_steps`` reads the same steps from YAML, with
the keys of ``Step`` and ``Expect``; every mistake is a DefinitionError naming
the step index and the fix.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from fsm_runner.errors import DefinitionError
from fsm_runner.roles.base import PlanDecision, PlannerView
from fsm_runner.steps import Action, Check, Expect, Step

_STEP_KEYS = frozenset(
    {"action", "target", "value", "expect", "timeout_s", "high_risk", "intent", "remember", "machine"}
)
_EXPECT_KEYS = frozenset({"check", "target", "value", "negate", "predicate"})


class ScriptedPlanner:
    """Implements ``Planner``: step ``view.step_index`` (0-based) of the script, then done.

    Planning by index rather than by a private cursor makes re-planning the same
    step after a heal return the same step again.
    """

    #: The scripted planner never reads the screen, so the engine need not render it.
    needs_screen = False

    def __init__(self, steps: Sequence[Step]) -> None:
        self.steps = tuple(steps)

    async def plan(self, view: PlannerView) -> PlanDecision:
        """The written step at ``view.step_index``, or done past the end."""
        if view.step_index >= len(self.steps):
            return PlanDecision(None, done=True, reason=f"all {len(self.steps)} scripted steps done")
        step = self.steps[view.step_index]
        return PlanDecision(step, reason=f"scripted step {view.step_index + 1} of {len(self.steps)}")


def load_steps(source: str | Path, *, predicates: Collection[str] | None = None) -> tuple[Step, ...]:
    """Steps from YAML text or a YAML file: a list of steps, or a mapping with a ``steps`` list.

    With ``predicates`` given, every predicate check must name one of them.
    """
    text = _read(source)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise DefinitionError(
            f"the steps are not valid YAML: {err}", field="steps", fix="fix the YAML syntax at the place named"
        ) from err
    if isinstance(data, Mapping) and "steps" in data:
        data = data["steps"]
    if not isinstance(data, list):
        raise DefinitionError(
            "the steps must be a YAML list", field="steps", fix="write '- action: tap' entries, one per step"
        )
    steps = tuple(_step(i, raw) for i, raw in enumerate(data, start=1))
    if predicates is not None:
        check_predicates(steps, predicates)
    return steps


def check_predicates(steps: Sequence[Step], predicates: Collection[str]) -> None:
    """Raise DefinitionError for the first predicate check naming no registered predicate."""
    for i, step in enumerate(steps, start=1):
        for j, expect in enumerate(step.expect, start=1):
            if expect.check is Check.PREDICATE and expect.predicate not in predicates:
                known = ", ".join(sorted(predicates)) or "none registered"
                raise DefinitionError(
                    f"step {i} expect {j}: predicate {expect.predicate!r} is not registered (known: {known})",
                    field=f"steps[{i}].expect[{j}].predicate",
                    fix=f"register it with predicates={{'{expect.predicate}': fn}} or name a known predicate",
                )


def _read(source: str | Path) -> str:
    if isinstance(source, Path):
        return source.read_text(encoding="utf-8")
    if "\n" not in source and source.strip().endswith((".yaml", ".yml")):
        path = Path(source.strip())
        if not path.is_file():
            raise DefinitionError(
                f"no steps file at {path}", field="steps", fix="give the path of an existing YAML file"
            )
        return path.read_text(encoding="utf-8")
    return source


def _step(index: int, raw: Any) -> Step:
    where = f"steps[{index}]"
    if not isinstance(raw, Mapping):
        raise DefinitionError(
            f"step {index} is not a mapping", field=where, fix="write each step as 'action: ...' with its keys"
        )
    unknown = sorted(set(raw) - _STEP_KEYS)
    if unknown:
        raise DefinitionError(
            f"step {index} has unknown keys {unknown}",
            field=where,
            fix=f"use only {sorted(_STEP_KEYS)}",
        )
    action = raw.get("action")
    if action not in {a.value for a in Action}:
        raise DefinitionError(
            f"step {index}: unknown action {action!r}",
            field=f"{where}.action",
            fix=f"use one of {', '.join(a.value for a in Action)}",
        )
    expects = raw.get("expect") or []
    if isinstance(expects, Mapping):
        expects = [expects]
    if not isinstance(expects, list):
        raise DefinitionError(
            f"step {index}: expect must be a list", field=f"{where}.expect", fix="write '- check: visible' entries"
        )
    remember = raw.get("remember") or {}
    if not isinstance(remember, Mapping):
        raise DefinitionError(
            f"step {index}: remember must be a mapping",
            field=f"{where}.remember",
            fix="write 'remember: {price: the price label}'",
        )
    fields = {k: v for k, v in raw.items() if k not in ("expect", "remember")}
    try:
        return Step(
            **fields,
            expect=tuple(_expect(index, j, e) for j, e in enumerate(expects, start=1)),
            remember=tuple((str(k), str(v)) for k, v in remember.items()),
        )
    except DefinitionError as err:
        raise DefinitionError(f"step {index}: {err}", field=f"{where}.{err.field}", fix=err.fix) from err
    except (TypeError, ValueError) as err:
        raise DefinitionError(
            f"step {index}: {err}", field=where, fix="check the value types of the step's keys"
        ) from err


def _expect(index: int, number: int, raw: Any) -> Expect:
    where = f"steps[{index}].expect[{number}]"
    if not isinstance(raw, Mapping):
        raise DefinitionError(
            f"step {index} expect {number} is not a mapping", field=where, fix="write 'check: visible, target: ...'"
        )
    unknown = sorted(set(raw) - _EXPECT_KEYS)
    if unknown:
        raise DefinitionError(
            f"step {index} expect {number} has unknown keys {unknown}",
            field=where,
            fix=f"use only {sorted(_EXPECT_KEYS)}",
        )
    check = raw.get("check")
    if check not in {c.value for c in Check}:
        raise DefinitionError(
            f"step {index} expect {number}: unknown check {check!r}",
            field=f"{where}.check",
            fix=f"use one of {', '.join(c.value for c in Check)}",
        )
    values: dict[str, Any] = {str(k): (str(v) if k == "value" and v is not None else v) for k, v in raw.items()}
    try:
        return Expect(**values)
    except DefinitionError as err:
        raise DefinitionError(f"step {index} expect {number}: {err}", field=where, fix=err.fix) from err
