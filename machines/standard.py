"""The standard UI-test machine: a scripted test wired to the offline roles.

``ui_test`` builds the :class:`Machine` (the engine's fixed OBSERVE, PLAN,
EXECUTE, VERIFY, HEAL backbone with UI-test budgets), and ``standard_roles``
picks the roles that fill its states: the dump observer, the scripted planner,
the rule locator, the device executor, the code validator and the rule healer
(with a failure-pattern file when one is given, so learned fixes carry over).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from fsm_runner import Budgets, Expect, Machine, Roles, Step, offline_roles
from fsm_runner.machine import OutcomeCheck, Predicate

#: UI tests wait on devices: generous per-state deadlines, a run capped at ten minutes.
UI_TEST_BUDGETS = Budgets(max_steps=50, max_heals_per_step=3, max_wall_s=600.0)


def ui_test(
    name: str,
    app: str,
    steps: Iterable[Step],
    *,
    final: Iterable[Expect] = (),
    outcomes: Mapping[str, OutcomeCheck] | None = None,
    predicates: Mapping[str, Predicate] | None = None,
    machines: Mapping[str, Machine] | None = None,
    budgets: Budgets = UI_TEST_BUDGETS,
    allow_high_risk: bool = False,
    tags: Iterable[str] = (),
    description: str = "",
) -> Machine:
    """A scripted UI test of ``app``; checked when built, like every machine."""
    return Machine(
        name=name,
        app=app,
        steps=tuple(steps),
        final=tuple(final),
        outcomes=outcomes or {},
        predicates=predicates or {},
        machines=machines or {},
        budgets=budgets,
        allow_high_risk=allow_high_risk,
        tags=tuple(tags),
        description=description,
    )


def standard_roles(machine: Machine, *, screenshots: bool = False, failure_patterns: str | Path | None = None) -> Roles:
    """The offline roles that fill the standard machine's states for ``machine``."""
    return offline_roles(machine, screenshots=screenshots, failure_patterns=failure_patterns)
