"""fsm-runner: mobile UI tests as explicit finite-state machines.

Write a :class:`Machine` (steps or a goal, expectations, budgets), pick a
device, and call :func:`run`. The result says PASSED, FAILED, ERROR or
ABORTED, with the reason, the layer to blame and a record of every step.
"""

from fsm_runner.api import arun, offline_roles, run
from fsm_runner.budgets import Budgets
from fsm_runner.clock import Clock, FakeClock, SystemClock
from fsm_runner.engine import Engine, RunRecorder
from fsm_runner.errors import ConfigurationError, DefinitionError, FsmRunnerError, PerceptionError, RoleError
from fsm_runner.machine import Machine
from fsm_runner.records import HealRecord, Outcome, RunResult, StepRecord
from fsm_runner.roles.base import Layer, Roles, Usage
from fsm_runner.steps import Action, Check, Expect, Step

__all__ = [
    "Action",
    "Budgets",
    "Check",
    "Clock",
    "ConfigurationError",
    "DefinitionError",
    "Engine",
    "Expect",
    "FakeClock",
    "FsmRunnerError",
    "HealRecord",
    "Layer",
    "Machine",
    "Outcome",
    "PerceptionError",
    "RoleError",
    "Roles",
    "RunRecorder",
    "RunResult",
    "Step",
    "StepRecord",
    "SystemClock",
    "Usage",
    "arun",
    "offline_roles",
    "run",
]
