"""The machine as data: its states and transitions.

``transitions`` builds the machine from these tables; the engine loop is the
only place that fires a trigger. Terminal states have no way out: any trigger
fired there raises ``transitions.MachineError``.
"""

from __future__ import annotations

from typing import Final

IDLE: Final = "IDLE"
INIT: Final = "INIT"
OBSERVE: Final = "OBSERVE"
PLAN: Final = "PLAN"
EXECUTE: Final = "EXECUTE"
VERIFY: Final = "VERIFY"
HEAL: Final = "HEAL"
NEXT_OR_END: Final = "NEXT_OR_END"
PASSED: Final = "PASSED"
FAILED: Final = "FAILED"
ERROR: Final = "ERROR"
ABORTED: Final = "ABORTED"

#: States in which the engine does work (each with its own deadline).
WORK_STATES: Final = (INIT, OBSERVE, PLAN, EXECUTE, VERIFY, HEAL, NEXT_OR_END)
TERMINAL_STATES: Final = (PASSED, FAILED, ERROR, ABORTED)
STATES: Final = (IDLE, *WORK_STATES, *TERMINAL_STATES)

_LIVE = [INIT, OBSERVE, PLAN, EXECUTE, VERIFY, HEAL, NEXT_OR_END]

#: (trigger, sources, destination). A trigger may leave several sources.
TRANSITIONS: Final[tuple[tuple[str, str | list[str], str], ...]] = (
    ("start", IDLE, INIT),
    ("ready", INIT, OBSERVE),
    ("reobserve", OBSERVE, OBSERVE),
    ("observed", OBSERVE, PLAN),
    ("planned", PLAN, EXECUTE),
    ("plan_done", PLAN, NEXT_OR_END),
    ("executed", EXECUTE, VERIFY),
    ("recheck", VERIFY, VERIFY),
    ("verified", VERIFY, NEXT_OR_END),
    ("trouble", [OBSERVE, PLAN, EXECUTE, VERIFY], HEAL),
    ("healed", HEAL, OBSERVE),
    ("skipped", HEAL, NEXT_OR_END),
    ("next", NEXT_OR_END, OBSERVE),
    ("pass", NEXT_OR_END, PASSED),
    ("fail", [OBSERVE, PLAN, EXECUTE, VERIFY, HEAL, NEXT_OR_END], FAILED),
    ("error", _LIVE, ERROR),
    ("abort", _LIVE, ABORTED),
)

TRIGGERS: Final = tuple(dict.fromkeys(t[0] for t in TRANSITIONS))


def state_definitions() -> list[dict[str, object]]:
    """State dicts for ``transitions``: terminal states are marked final."""
    return [{"name": name, "final": name in TERMINAL_STATES} for name in STATES]


def transition_definitions() -> list[dict[str, object]]:
    """Transition dicts for ``transitions``."""
    return [{"trigger": t, "source": s, "dest": d} for t, s, d in TRANSITIONS]


def allowed(state: str) -> dict[str, str]:
    """Trigger -> destination for every transition out of ``state``."""
    out: dict[str, str] = {}
    for trigger, sources, dest in TRANSITIONS:
        if state == sources or (isinstance(sources, list) and state in sources):
            out[trigger] = dest
    return out


def mermaid(visited: list[str] | None = None) -> str:
    """The machine as mermaid ``stateDiagram-v2`` text, drawn by ``transitions``' GraphMachine.

    States in ``visited`` (the path a run took) are highlighted.
    """
    from transitions.extensions import GraphMachine

    class _Model:
        pass

    model = _Model()
    GraphMachine(
        model=model,
        states=state_definitions(),
        transitions=transition_definitions(),
        initial=IDLE,
        auto_transitions=False,
        graph_engine="mermaid",
        title="fsm-runner",
    )
    text: str = model.get_graph().draw(None)  # type: ignore[attr-defined]
    if visited:
        names = ",".join(dict.fromkeys(visited))
        text += f"\n  classDef taken fill:#d7f5d7,stroke:#2a7a2a\n  class {names} taken\n"
    return text
