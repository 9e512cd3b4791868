"""``fsm-runner run --devices ...``: the pool options of the run command and the pooled run behind them.

``add_pool_options(parser)`` adds ``--devices`` (repeatable, one device group each), ``--lease-file`` and
``--retries``; ``run_pooled`` runs the machines over the pool those name and prints one line per device.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
from pathlib import Path
from typing import TextIO

import attrs

from adapters.errors import EnvironmentFault
from fsm_runner.config import Config
from fsm_runner.errors import FsmRunnerError
from fsm_runner.fleet import SimSettings, open_fleet, parse_group
from fsm_runner.launch import machine_locale, planner_for, skipped, with_budgets
from fsm_runner.leases import LEASE_FILE_VARIABLE, LeaseFile
from fsm_runner.machine import Machine
from fsm_runner.parallel import into_run_dirs, run_parallel
from fsm_runner.pool import DevicePool
from fsm_runner.records import RunResult
from fsm_runner.roles.base import Layer, Planner
from fsm_runner.roles.values import Secrets


def _retries(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} must be 0 or more")
    return value


def add_pool_options(parser: argparse.ArgumentParser) -> None:
    """``--devices``, ``--lease-file`` and ``--retries`` on ``parser``."""
    parser.add_argument("--devices", action="append", default=None, metavar="LIST",
                        help="run machines in parallel over a pool: sim:N, sim-adb:N or SERIAL,SERIAL,... "
                             "(prefix HOST:PORT/ for another host's adb server; repeat for more groups)")
    parser.add_argument("--lease-file", default=None, metavar="PATH",
                        help=f"lease file shared with other runs on the same devices (or ${LEASE_FILE_VARIABLE})")
    parser.add_argument("--retries", type=_retries, default=1, metavar="N",
                        help="runs again elsewhere a machine whose device went offline, N times (default 1)")


def pooled(args: argparse.Namespace) -> bool:
    """Whether the command line asks for a pool."""
    return bool(getattr(args, "devices", None))


async def run_pooled(
    args: argparse.Namespace, config: Config, machines: tuple[Machine, ...], overrides: dict[str, float | int],
    stream: TextIO,
) -> tuple[list[RunResult], bool]:
    """Run every machine over the pool ``--devices`` names and print one line per device.

    Returns the results in machine order and whether a setting kept the machines from running: bad
    ``--devices`` (a repeated or unknown serial, none at all) refuse every machine before any runs, with
    the connected devices in the message; an adb server that is not there makes each an environment ERROR.
    """
    groups = [parse_group(text, args.adb_server or config.device.adb_server) for text in args.devices]
    settings = SimSettings(locale=config.device.locale, seed=config.device.seed)
    try:
        fleet = await asyncio.to_thread(open_fleet, groups, settings)
    except FsmRunnerError as err:
        print(f"error: {err}", file=stream)
        return [skipped(m, f"not run: {err}") for m in machines], True
    except EnvironmentFault as err:
        print(f"error: the devices are not usable: {err}", file=stream)
        return [attrs.evolve(skipped(m, f"environment: {err}"), skipped=False, layer=Layer.ENVIRONMENT)
                for m in machines], False
    lease_path = args.lease_file or os.environ.get(LEASE_FILE_VARIABLE)
    try:
        pool = DevicePool(fleet.slots, lease_file=LeaseFile(lease_path) if lease_path else None)
        ready = [with_budgets(m, overrides) for m in machines]
        planners: dict[str, Planner] = {}
        for machine in ready:
            planner = planner_for(machine, args.llm, config) if not machine.steps else None
            if planner is not None:
                planners[machine.name] = planner
        out = Path(args.out or config.run.out)
        chosen_locale = args.locale
        summary = await run_parallel(
            ready, pool, run=into_run_dirs(out, planners=planners, secrets=Secrets()), retries=args.retries,
            locale_of=(lambda _: chosen_locale) if chosen_locale else machine_locale,
        )
        await pool.close()
    finally:
        with contextlib.suppress(OSError):
            await asyncio.to_thread(fleet.close)
    for line in ["", *summary.lines()]:
        print(line, file=stream)
    return list(summary.results), False
