"""The pytest plugin: machine files as test items, and fixtures to run machines from your own tests.

Machine files are collected when given on the command line from a folder named
``machines`` (``pytest machines/login.py``, ``pytest machines/``) or through
``--fsm-machines PATH``. Each machine is one test item; a failure shows the
reason, the layer, the failing step and the run directory with its report.
Fixtures: ``fsm_device`` (the device the options name, closed afterwards)
and ``fsm_run`` (``fsm_run(machine) -> RunResult``, evidence included).
"""

from __future__ import annotations

import asyncio
import fnmatch
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog

from adapters.base import Device
from fsm_runner import events
from fsm_runner.config import Config, find_config, load_config
from fsm_runner.errors import FsmRunnerError
from fsm_runner.launch import machine_locale, open_device, planner_for, run_into
from fsm_runner.machine import Machine
from fsm_runner.machine_files import LoadProblem, load_machine_file
from fsm_runner.records import RunResult
from fsm_runner.roles.values import Secrets

#: The folder name that marks machine files given on the command line.
MACHINE_FOLDER = "machines"

RunMachine = Callable[..., RunResult]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fsm-runner", "fsm-runner machines")
    group.addoption("--fsm-machines", action="append", default=[], metavar="PATH",
                    help="machine files or folders to run as test items (repeatable)")
    group.addoption("--fsm-device", default=None, metavar="SPEC", help="sim (default) or an adb serial")
    group.addoption("--fsm-adb-server", default=None, metavar="HOST:PORT", help="adb server for a serial device")
    group.addoption("--fsm-locale", default=None, choices=("en", "zh-CN"),
                    help="language of the simulated phone (default: the machine's locale tag, else the config's)")
    group.addoption("--fsm-llm", default=None, metavar="SCHEME:ARG", help="LLM planner for goal-only machines")
    group.addoption("--fsm-out", default=None, metavar="DIR", help="where run directories go (default runs/)")
    group.addoption("--fsm-config", default=None, metavar="FILE", help="settings file (default ./fsm-runner.toml)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fsm_machine: a test item that runs an fsm-runner machine")
    extra = [str(Path(p)) for p in config.getoption("fsm_machines") or []]
    if extra:
        config.args.extend(p for p in extra if p not in config.args)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix != ".py" or file_path.name == "conftest.py":
        return None
    if file_path.name.startswith("_") and file_path.name != "__init__.py":
        return None
    # Test modules stay pytest's own, even in a folder named machines.
    if any(fnmatch.fnmatch(file_path.name, pattern) for pattern in parent.config.getini("python_files")):
        return None
    wanted = _under_option_paths(file_path, parent.config) or (
        MACHINE_FOLDER in file_path.parts[:-1] and _given(file_path, parent.session)
    )
    if wanted and _defines_machines(file_path):
        return MachineFileCollector.from_parent(parent, path=file_path)
    return None


def _defines_machines(path: Path) -> bool:
    """A cheap look before importing: helper modules next to machine files never mention MACHINE."""
    try:
        return "MACHINE" in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def _under_option_paths(path: Path, config: pytest.Config) -> bool:
    roots = [Path(p).resolve() for p in config.getoption("fsm_machines") or []]
    resolved = path.resolve()
    return any(resolved == root or root in resolved.parents for root in roots)


def _given(path: Path, session: pytest.Session) -> bool:
    """True when ``path`` is, or lies under, a path named on the command line."""
    resolved = path.resolve()
    for arg in session.config.args:
        root = Path(arg.split("::")[0]).resolve()
        if resolved == root or root in resolved.parents:
            return True
    return False


class MachineFileCollector(pytest.File):
    """One machine file; yields an item per machine, or one failing item naming the file and line.

    A file that does not import fails as an item rather than a collection error, so
    that the machines of every other file still run.
    """

    def collect(self) -> Iterable[pytest.Item]:
        loaded = load_machine_file(self.path)
        if isinstance(loaded, LoadProblem):
            yield BrokenMachineFile.from_parent(self, name="import", problem=loaded)
            return
        for machine in loaded.machines:
            yield MachineItem.from_parent(self, name=machine.name, machine=machine)


class BrokenMachineFile(pytest.Item):
    """Stands for a machine file that does not import; fails with the file, line and Python error."""

    def __init__(self, *, problem: LoadProblem, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.problem = problem

    def runtest(self) -> None:
        raise MachineFileError(self.problem.describe())

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, MachineFileError):
            return f"machine file does not import: {excinfo.value}"
        return str(super().repr_failure(excinfo, style=style))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, self.problem.line - 1 if self.problem.line else None, "machine file"


class MachineFileError(Exception):
    """A machine file could not be imported (the message holds file, line and error)."""


class MachineFailed(Exception):
    """A machine run did not pass; carries its result for the failure report."""

    def __init__(self, result: RunResult) -> None:
        super().__init__(result.reason)
        self.result = result


class MachineItem(pytest.Item):
    """Runs one machine on the configured device into its own run directory."""

    def __init__(self, *, machine: Machine, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.machine = machine
        self.add_marker("fsm_machine")

    def runtest(self) -> None:
        result = run_machine(self.config, self.machine)
        if result.run_dir:
            self.user_properties.append(("run_dir", result.run_dir))
        if result.skipped:
            pytest.skip(f"{self.machine.name}: {result.reason}")
        if not result.passed:
            raise MachineFailed(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, MachineFailed):
            return describe_failure(excinfo.value.result)
        if isinstance(excinfo.value, FsmRunnerError):
            return f"machine {self.machine.name} was not run: {excinfo.value}"
        return str(super().repr_failure(excinfo, style=style))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"machine {self.machine.name}"


def describe_failure(result: RunResult) -> str:
    """The failure text of a machine item: verdict, reason, layer, failing step and where the evidence is."""
    lines = [f"{result.outcome.value}: {result.reason}"]
    if result.layer:
        where = f" (in state {result.failed_state})" if result.failed_state else ""
        lines.append(f"layer: {result.layer.value}{where}")
    if result.budget:
        lines.append(f"budget: {result.budget}")
    failing = next((r for r in result.steps if r.outcome not in ("passed", "skipped")), None)
    if failing is not None:
        why = failing.verdict_reason or failing.outcome
        lines.append(f"failing step {failing.index + 1}: {failing.intent} ({why})")
    if result.run_dir:
        lines.append(f"run directory: {result.run_dir}")
        lines.append(f"report: {Path(result.run_dir) / 'report.html'}")
    return "\n".join(lines)


def _settings(config: pytest.Config) -> Config:
    return load_config(find_config(config.getoption("fsm_config")))


def _open(config: pytest.Config, settings: Config, machine: Machine | None = None) -> Device:
    spec = config.getoption("fsm_device") or settings.device.default
    locale = config.getoption("fsm_locale") or (machine_locale(machine) if machine else None)
    return open_device(spec, settings, adb_server=config.getoption("fsm_adb_server"), locale=locale)


def run_machine(config: pytest.Config, machine: Machine, device: Device | None = None) -> RunResult:
    """Run ``machine`` with the session's options; events go to the run's ``events.jsonl`` meanwhile."""
    settings = _settings(config)
    out = Path(config.getoption("fsm_out") or settings.run.out)
    planner = planner_for(machine, config.getoption("fsm_llm"), settings) if not machine.steps else None

    async def go() -> RunResult:
        target = device or _open(config, settings, machine)
        try:
            return await run_into(machine, target, out, planner=planner, secrets=Secrets())
        finally:
            if device is None:
                await target.close()

    saved = structlog.get_config()
    events.configure(redact=Secrets().redact)
    try:
        return asyncio.run(go())
    finally:
        events.RUN_FILES.close()
        structlog.configure(**saved)


@pytest.fixture
def fsm_device(request: pytest.FixtureRequest) -> Iterator[Device]:
    """The device ``--fsm-device`` names (default: a fresh simulated phone), closed after the test."""
    device = _open(request.config, _settings(request.config))
    try:
        yield device
    finally:
        asyncio.run(device.close())


@pytest.fixture
def fsm_run(request: pytest.FixtureRequest, fsm_device: Device) -> RunMachine:
    """``fsm_run(machine) -> RunResult``: run a machine on ``fsm_device`` with a run directory of evidence."""

    def run(machine: Machine) -> RunResult:
        result = run_machine(request.config, machine, fsm_device)
        if result.run_dir:
            request.node.user_properties.append(("run_dir", result.run_dir))
        return result

    return run
