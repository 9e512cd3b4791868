from __future__ import annotations

import asyncio
from collections.abc import Callable

from fsm_runner.budgets import Budgets
from fsm_runner.clock import FakeClock
from fsm_runner.engine import Engine
from fsm_runner.machine import Machine
from fsm_runner.records import RunResult
from fsm_runner.steps import Step
from fsm_runner.testing.device import MemoryDevice
from fsm_runner.testing.roles import RoleAnswers, ScriptedRoles

RunFn = Callable[..., RunResult]


def run_scripted(answers: RoleAnswers, budgets: Budgets | None = None, **machine_kw: object) -> RunResult:
    """Run a one-step machine with scripted roles on a fake clock."""

    async def go() -> RunResult:
        clock = FakeClock()
        machine = Machine(
            "engine-test",
            "com.example.app",
            steps=[Step("press_back")],
            budgets=budgets or Budgets(),
            **machine_kw,  # type: ignore[arg-type]
        )
        roles = ScriptedRoles(answers, clock).roles()
        return await Engine(machine, MemoryDevice(), roles, clock=clock).run()

    return asyncio.run(go())
