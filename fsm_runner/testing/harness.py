"""Check any machine definition the way fsm-runner checks its own engine.

``check_machine`` runs a machine with scripted role answers on a fake clock
and asserts the engine's invariants: it reaches a terminal state within its
budgets, every transition it took is in the table, heals stay under their
cap, and the terminal state absorbs every trigger.
"""

from __future__ import annotations

import asyncio

from transitions import Machine as TransitionsMachine
from transitions import MachineError

from fsm_runner import table
from fsm_runner.clock import FakeClock
from fsm_runner.engine import Engine
from fsm_runner.machine import Machine
from fsm_runner.records import Outcome, RunResult
from fsm_runner.testing.device import MemoryDevice
from fsm_runner.testing.roles import RoleAnswers, ScriptedRoles


class InvariantBroken(AssertionError):
    """A machine run broke one of the engine's invariants; the message says which."""


def terminal_absorbs(state: str, trigger: str) -> bool:
    """True when firing ``trigger`` in terminal ``state`` raises ``MachineError`` and changes nothing."""

    class Model:
        state: str

    model = Model()
    TransitionsMachine(
        model=model,
        states=table.state_definitions(),
        transitions=table.transition_definitions(),
        initial=state,
        auto_transitions=False,
        ignore_invalid_triggers=False,
    )
    try:
        getattr(model, trigger)()
    except MachineError:
        return model.state == state
    return False


def check_machine(machine: Machine, answers: RoleAnswers) -> RunResult:
    """Run ``machine`` with scripted ``answers`` and raise ``InvariantBroken`` if an invariant fails."""

    async def go() -> RunResult:
        clock = FakeClock()
        roles = ScriptedRoles(answers, clock).roles()
        return await Engine(machine, MemoryDevice(), roles, clock=clock).run()

    result = asyncio.run(go())
    limits = machine.budgets
    problems: list[str] = []
    if result.outcome not in set(Outcome) or result.path[-1] != result.outcome.value:
        problems.append(f"run ended in {result.path[-1]}, not a terminal state")
    if result.wall_s > limits.max_wall_s:
        problems.append(f"run took {result.wall_s} s of clock time, over max_wall_s={limits.max_wall_s}")
    if len(result.steps) > limits.max_steps:
        problems.append(f"{len(result.steps)} steps, over max_steps={limits.max_steps}")
    for src, dst in zip(result.path, result.path[1:], strict=False):
        if dst not in table.allowed(src).values():
            problems.append(f"transition {src} -> {dst} is not in the table")
    for record in result.steps:
        if len(record.heals) > limits.max_heals_per_step:
            problems.append(f"step {record.index + 1} healed {len(record.heals)} times")
    for trigger in table.TRIGGERS:
        if not terminal_absorbs(result.outcome.value, trigger):
            problems.append(f"terminal {result.outcome.value} did not absorb {trigger!r}")
    if problems:
        raise InvariantBroken("; ".join(problems))
    return result
