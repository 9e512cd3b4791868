"""Launching machine runs for the entry points: pick the device and planner, run, and keep the evidence.

The CLI and the pytest plugin share this; the library API (``fsm_runner.run``)
stays free of concrete devices. A goal-only machine with no LLM configured is
not run: it comes back as a SKIPPED result that names the setting to use.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from pathlib import Path

import attrs

from adapters.base import Device
from fsm_runner.api import arun, offline_roles
from fsm_runner.config import Config
from fsm_runner.errors import ConfigurationError
from fsm_runner.evidence import RunDirectory, new_run_id
from fsm_runner.machine import Machine
from fsm_runner.records import Outcome, RunResult
from fsm_runner.roles.base import Planner
from fsm_runner.roles.values import Secrets

#: Builds a planner from the text after ``SCHEME:`` in ``--llm SCHEME:ARG`` (or ``profile:NAME`` from config).
PlannerFactory = Callable[[str, Machine, Config], Planner]

#: The ``--llm`` schemes on offer. The LLM client registers its own here (``replay`` for
#: ``--llm replay:FILE``, ``profile`` for the profiles of fsm-runner.toml); none ship with the engine.
PLANNERS: dict[str, PlannerFactory] = {}

#: What to tell the user when a goal-only machine has no planner.
LLM_HINT = (
    "this machine has only a goal and needs an LLM planner: pass --llm replay:FILE (pytest: --fsm-llm), "
    "or set [llm] profile in fsm-runner.toml (or FSM_RUNNER_LLM_BASE_URL and FSM_RUNNER_LLM_API_KEY)"
)

DEVICE_KINDS = ("sim", "sim-adb")
SIM_LOCALES = ("en", "zh-CN")

_ENDPOINT_VARIABLES = ("FSM_RUNNER_LLM_BASE_URL", "OPENAI_BASE_URL")
_SCHEMES_MODULE = "fsm_runner.llm.schemes"


def _offer_llm_schemes() -> None:
    """Let the LLM client add its ``--llm`` schemes to :data:`PLANNERS`, once, when it is installed."""
    if PLANNERS:
        return
    try:
        schemes = importlib.import_module(_SCHEMES_MODULE)
    except ModuleNotFoundError as err:
        if err.name != _SCHEMES_MODULE:
            raise
        return
    schemes.register(PLANNERS)


def machine_locale(machine: Machine) -> str | None:
    """The simulated phone's language a machine asks for with a locale tag (``tags=("demo", "zh-CN")``)."""
    return next((tag for tag in machine.tags if tag in SIM_LOCALES), None)


def open_device(
    spec: str, config: Config, *, index: int = 0, adb_server: str | None = None, locale: str | None = None
) -> Device:
    """The device ``spec`` names: ``sim`` (a fresh in-process phone), ``sim-adb`` (a fresh simulated
    phone behind a private real adb server) or an adb serial on ``adb_server``.

    ``locale`` sets a simulated phone's language (default: the config's).
    """
    if spec in ("sim", "sim-adb"):
        from adapters.sim import SimDevice, SimPhone

        phone = SimPhone(
            serial=f"sim-{index}", locale=locale or config.device.locale, seed=config.device.seed + index
        )
        if spec == "sim":
            return SimDevice(phone)
        from fsm_runner.sim_adb import SimAdbDevice

        return SimAdbDevice(phone)
    from adapters.adb import AdbDevice

    return AdbDevice(spec, server=adb_server or config.device.adb_server)


def planner_for(machine: Machine, llm: str | None, config: Config) -> Planner | None:
    """The planner ``--llm``, the config's LLM profile or the ``FSM_RUNNER_LLM_BASE_URL`` endpoint asks for.

    None means no LLM is configured (the offline scripted planner).
    """
    _offer_llm_schemes()
    spec = llm or (f"profile:{config.llm.profile}" if config.llm.profile else None)
    if spec is None and "env" in PLANNERS and any(os.environ.get(v) for v in _ENDPOINT_VARIABLES):
        spec = "env:"
    if spec is None:
        return None
    scheme, sep, argument = spec.partition(":")
    if not sep:
        raise ConfigurationError(f"--llm {spec!r} is not SCHEME:ARGUMENT (for example replay:answers.yaml)")
    factory = PLANNERS.get(scheme)
    if factory is None:
        known = ", ".join(sorted(PLANNERS)) or "none installed yet"
        raise ConfigurationError(f"--llm scheme {scheme!r} is not available (available: {known})")
    return factory(argument, machine, config)


def with_budgets(machine: Machine, overrides: dict[str, float | int]) -> Machine:
    """``machine`` with its budgets overridden (config first, then command line); others keep their value."""
    if not overrides:
        return machine
    return attrs.evolve(machine, budgets=machine.budgets.merge(**overrides))


def skipped(machine: Machine, reason: str, run_id: str | None = None) -> RunResult:
    """The result of a machine that was not run, with the reason (and the setting that would run it)."""
    return RunResult(
        run_id=run_id or new_run_id(),
        machine=machine.name,
        outcome=Outcome.ERROR,
        reason=reason,
        skipped=True,
    )


async def run_into(
    machine: Machine,
    device: Device,
    out: str | Path,
    *,
    planner: Planner | None = None,
    secrets: Secrets | None = None,
) -> RunResult:
    """Run ``machine`` on ``device`` into a fresh ``out/<machine>-<run_id>`` with every evidence file.

    A goal-only machine without ``planner`` is not run and yields a skipped result.
    """
    source = secrets or Secrets()
    if not machine.steps and planner is None:
        return skipped(machine, LLM_HINT)
    directory = RunDirectory.create(out, machine.name, secrets=source)
    roles = offline_roles(machine, planner=planner, screenshots=True)
    try:
        result = await arun(
            machine,
            device,
            roles=roles,
            run_id=directory.run_id,
            run_dir=directory.path,
            recorder=directory,
            secrets=source.known(),
        )
    finally:
        # An LLM planner holds an HTTP client; close it with the run so no connection outlives it.
        close = getattr(planner, "close", None)
        if close is not None:
            await close()
    return directory.result or attrs.evolve(result, run_dir=str(directory.path))
