"""``fsm-runner run PATH...``: run machine files on a device and leave a run directory per machine.

Exit codes: 0 every machine passed (or was skipped), 1 a machine failed or ran
out of a budget, 2 usage or configuration error (including a machine file that
does not import), 3 environment error (a device or adb server that is not there).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any, TextIO

import attrs

from adapters.errors import DeviceError
from fsm_runner import events
from fsm_runner.cli import EXIT_ENVIRONMENT, EXIT_OK, EXIT_TEST_FAILED, EXIT_USAGE
from fsm_runner.config import Config, find_config, load_config
from fsm_runner.errors import FsmRunnerError
from fsm_runner.evidence import write_junit
from fsm_runner.evidence.run_dir import REPORT
from fsm_runner.launch import machine_locale, open_device, planner_for, run_into, skipped, with_budgets
from fsm_runner.machine import Machine
from fsm_runner.machine_files import collect
from fsm_runner.pool_options import add_pool_options, pooled, run_pooled
from fsm_runner.progress import Progress
from fsm_runner.records import Outcome, RunResult
from fsm_runner.roles.base import Layer
from fsm_runner.roles.values import Secrets


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} must be positive")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} must be positive")
    return value


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """The options shared by ``run`` (device, LLM, budgets, config)."""
    parser.add_argument("--device", default=None, metavar="SPEC",
                        help="sim (in-process simulated phone, the default), sim-adb (simulated phone behind a "
                             "private real adb server), or an adb serial")
    parser.add_argument("--adb-server", default=None, metavar="HOST:PORT", help="adb server for a serial device")
    parser.add_argument("--locale", choices=("en", "zh-CN"), default=None, help="language of the simulated phone")
    parser.add_argument("--seed", type=int, default=None, help="fault seed of the simulated phone")
    parser.add_argument("--llm", default=None, metavar="SCHEME:ARG",
                        help="LLM planner for goal-only machines, e.g. replay:answers.yaml")
    parser.add_argument("--budget-steps", type=_positive_int, default=None, metavar="N", help="max steps per run")
    parser.add_argument("--budget-wall", type=_positive_float, default=None, metavar="SECONDS",
                        help="max wall time per run")
    parser.add_argument("--budget-llm-calls", type=_positive_int, default=None, metavar="N",
                        help="max LLM calls per run")
    parser.add_argument("--budget-tokens", type=_positive_int, default=None, metavar="N", help="max tokens per run")
    parser.add_argument("--config", default=None, metavar="FILE",
                        help="settings file (default: ./fsm-runner.toml when present)")


def register(subparsers: Any) -> None:
    """Add the ``run`` sub-command."""
    parser = subparsers.add_parser(
        "run",
        help="run machine files and write a run directory (report.html, junit.xml, ...) per machine",
        description="Import each machine file (or every .py file in a folder), run its MACHINE / MACHINES on "
        "the device, and write OUT/<machine>-<run_id>/ with events.jsonl, screens, shots, report.html, "
        "junit.xml and result.json.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="machine files or folders of them")
    add_run_options(parser)
    parser.add_argument("--out", default=None, metavar="DIR", help="where run directories go (default runs/)")
    parser.add_argument("--junit", default=None, metavar="FILE", help="also write one JUnit file for all machines")
    add_pool_options(parser)
    parser.set_defaults(func=run)


def budget_overrides(args: argparse.Namespace, config: Config) -> dict[str, float | int]:
    """Budgets from the config file, then from the command line (which wins)."""
    overrides: dict[str, float | int] = dict(config.budgets.overrides())
    flags = {
        "max_steps": args.budget_steps,
        "max_wall_s": args.budget_wall,
        "max_llm_calls": args.budget_llm_calls,
        "max_tokens": args.budget_tokens,
    }
    overrides.update({k: v for k, v in flags.items() if v is not None})
    return overrides


def effective_config(args: argparse.Namespace) -> Config:
    """The config file with ``--locale`` / ``--seed`` / ``--adb-server`` applied."""
    config = load_config(find_config(args.config))
    device = config.device
    if args.locale is not None:
        device = attrs.evolve(device, locale=args.locale)
    if args.seed is not None:
        device = attrs.evolve(device, seed=args.seed)
    if args.adb_server is not None:
        device = attrs.evolve(device, adb_server=args.adb_server)
    return attrs.evolve(config, device=device)


def run(args: argparse.Namespace, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run every machine; print the summary and each report path; return the exit code."""
    out_stream = stdout or sys.stdout
    err_stream = stderr or sys.stderr
    try:
        config = effective_config(args)
    except FsmRunnerError as err:
        print(f"error: {err}", file=err_stream)
        return EXIT_USAGE
    collection = collect(args.paths)
    for problem in collection.problems:
        print(f"error: {problem.describe()}", file=err_stream)
    if not collection.machines:
        print("error: no machines to run (a machine file defines MACHINE = Machine(...) or MACHINES = [...])",
              file=err_stream)
        return EXIT_USAGE
    events.configure(listeners=[Progress(out_stream)], redact=Secrets().redact)
    try:
        results, refused = asyncio.run(_run_all(args, config, collection.machines, err_stream))
    finally:
        events.RUN_FILES.close()
    if args.junit:
        junit = write_junit(results, args.junit, secrets=Secrets())
        print(f"JUnit: {junit}", file=out_stream)
    _summary(results, out_stream)
    return _exit_code(results, bool(collection.problems) or refused)


async def _run_all(
    args: argparse.Namespace, config: Config, machines: tuple[Machine, ...], err_stream: TextIO
) -> tuple[list[RunResult], bool]:
    """Every machine's result, and whether a setting kept one from running (each is still reported)."""
    out = Path(args.out or config.run.out)
    spec = args.device or config.device.default
    overrides = budget_overrides(args, config)
    if pooled(args):
        return await run_pooled(args, config, machines, overrides, err_stream)
    results: list[RunResult] = []
    refused = False
    for index, machine in enumerate(machines):
        machine = with_budgets(machine, overrides)
        try:
            planner = planner_for(machine, args.llm, config) if not machine.steps else None
            # An explicit --locale wins; otherwise a machine tagged with a locale gets a phone in that language.
            locale = args.locale or machine_locale(machine)
            device = open_device(spec, config, index=index, adb_server=args.adb_server, locale=locale)
        except FsmRunnerError as err:
            print(f"error: {machine.name}: {err}", file=err_stream)
            results.append(skipped(machine, f"not run: {err}"))
            refused = True
            continue
        except DeviceError as err:
            print(f"error: {machine.name}: the device is not usable: {err}", file=err_stream)
            results.append(attrs.evolve(skipped(machine, f"environment: {err}"), skipped=False,
                                        layer=Layer.ENVIRONMENT, device=spec))
            continue
        try:
            results.append(await run_into(machine, device, out, planner=planner, secrets=Secrets()))
        finally:
            await device.close()
    return results, refused


def _summary(results: list[RunResult], stream: TextIO) -> None:
    counts: dict[str, int] = {}
    print("", file=stream)
    for result in results:
        verdict = "SKIPPED" if result.skipped else result.outcome.value
        counts[verdict] = counts.get(verdict, 0) + 1
        layer = f" [{result.layer.value}]" if result.layer and not result.passed and not result.skipped else ""
        print(f"{verdict:<8} {result.machine}{layer}: {result.reason}", file=stream)
        if result.run_dir:
            print(f"         report: {Path(result.run_dir) / REPORT}", file=stream)
    tally = ", ".join(f"{n} {name.lower()}" for name, n in sorted(counts.items()))
    print(f"{len(results)} machine{'s' if len(results) != 1 else ''}: {tally}", file=stream)


def _exit_code(results: list[RunResult], load_problems: bool) -> int:
    ran = [r for r in results if not r.skipped]
    if any(r.outcome is Outcome.ERROR for r in ran):
        return EXIT_ENVIRONMENT
    if load_problems:
        return EXIT_USAGE
    if any(r.outcome in (Outcome.FAILED, Outcome.ABORTED) for r in ran):
        return EXIT_TEST_FAILED
    return EXIT_OK
