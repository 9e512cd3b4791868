"""The embedding API: build the offline roles for a machine and run it on a device.

``run()`` is synchronous; ``arun()`` is the same coroutine for callers that
already have an event loop (and for running many devices at once).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

from adapters.base import Device
from fsm_runner.clock import Clock, SystemClock
from fsm_runner.engine import Engine, RunRecorder
from fsm_runner.errors import ConfigurationError
from fsm_runner.machine import Machine
from fsm_runner.records import RunResult
from fsm_runner.roles.base import Planner, Roles
from fsm_runner.steps import Check, Step


def _all_steps(machine: Machine) -> list[Step]:
    """The machine's steps and those of its sub-machines, recursively."""
    found = list(machine.steps)
    for child in machine.machines.values():
        found.extend(_all_steps(child))
    return found


def offline_roles(
    machine: Machine,
    *,
    planner: Planner | None = None,
    screenshots: bool = False,
    failure_patterns: str | Path | None = None,
    clock: Clock | None = None,
) -> Roles:
    """The deterministic roles for ``machine``: rules, lexical matching and its scripted plan.

    A goal-only machine needs a ``planner`` (an LLM planner); without one this
    raises ``ConfigurationError`` naming what to configure.
    """
    from fsm_runner.perception import DumpObserver
    from fsm_runner.roles import FailurePatterns, RuleHealer, RuleLocator, RuleValidator, ScriptedPlanner
    from fsm_runner.roles.executor import DeviceExecutor

    chosen: Planner
    if planner is not None:
        chosen = planner
    elif machine.steps:
        chosen = ScriptedPlanner(machine.steps)
    else:
        raise ConfigurationError(
            f"machine {machine.name!r} has only a goal and needs an LLM planner; set FSM_RUNNER_LLM_BASE_URL "
            "(or OPENAI_BASE_URL) and FSM_RUNNER_LLM_API_KEY (or OPENAI_API_KEY), or pass --llm replay:FILE"
        )
    prose = [e.value for s in _all_steps(machine) for e in s.expect if e.check is Check.PROSE]
    prose += [e.value for e in machine.final if e.check is Check.PROSE]
    if prose:
        raise ConfigurationError(
            f"machine {machine.name!r} has prose expectations ({prose[0]!r}) that only the LLM oracle can judge; "
            "configure an LLM (FSM_RUNNER_LLM_BASE_URL and FSM_RUNNER_LLM_API_KEY) and use fsm_runner.llm.llm_roles, "
            "or write the expectation as a checkable state"
        )
    run_clock = clock or SystemClock()
    locator = RuleLocator()
    patterns = FailurePatterns(failure_patterns) if failure_patterns else None
    return Roles(
        observer=DumpObserver(screenshots=screenshots, now=run_clock.now),
        planner=chosen,
        locator=locator,
        executor=DeviceExecutor(locator=locator, now=run_clock.now, sleep=run_clock.sleep),
        validator=RuleValidator(locator=locator, predicates=machine.predicates),
        healer=RuleHealer(patterns),
    )


async def arun(
    machine: Machine,
    device: Device,
    *,
    roles: Roles | None = None,
    clock: Clock | None = None,
    run_id: str | None = None,
    run_dir: str | Path | None = None,
    recorder: RunRecorder | None = None,
    secrets: Mapping[str, str] | None = None,
) -> RunResult:
    """Run ``machine`` on ``device`` to a verdict. Never raises for a failing app or a spent budget.

    ``secrets`` (or ``FSM_RUNNER_SECRET_<NAME>`` variables) fill ``${secret:NAME}``
    only in the text the executor types; they never reach events or prompts.
    """
    from fsm_runner.roles import Secrets, substitute

    source = Secrets(secrets)

    def resolve(text: str, values: Mapping[str, str]) -> str:
        return source.resolve(substitute(text, values))

    engine = Engine(
        machine,
        device,
        roles or offline_roles(machine, screenshots=run_dir is not None, clock=clock),
        clock=clock,
        run_id=run_id,
        run_dir=str(run_dir) if run_dir is not None else None,
        resolve_text=resolve,
        recorder=recorder,
    )
    return await engine.run()


def run(
    machine: Machine,
    device: Device,
    *,
    roles: Roles | None = None,
    clock: Clock | None = None,
    run_id: str | None = None,
    run_dir: str | Path | None = None,
    recorder: RunRecorder | None = None,
    secrets: Mapping[str, str] | None = None,
) -> RunResult:
    """Synchronous :func:`arun`; call ``arun`` instead from inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(
            arun(
                machine,
                device,
                roles=roles,
                clock=clock,
                run_id=run_id,
                run_dir=run_dir,
                recorder=recorder,
                secrets=secrets,
            )
        )
    raise RuntimeError("run() was called inside a running event loop; use 'await fsm_runner.arun(...)' there")
