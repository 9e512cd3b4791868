"""Many machines over a device pool in one asyncio process, merged into one summary.

Each machine runs on a device leased from the pool, one machine per device at a time, into its own run
directory when ``out`` is given. A run that ends in an environment ERROR gets its device health-checked
while still leased; a device that fails is taken out of the pool and the machine is queued again, once
by default, for another device. Every machine ends with a verdict, whatever happens to the devices.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any

import attrs

from adapters.base import Device
from adapters.errors import DeviceError
from fsm_runner import events
from fsm_runner.api import arun
from fsm_runner.evidence import new_run_id
from fsm_runner.launch import LLM_HINT, machine_locale, run_into, skipped
from fsm_runner.machine import Machine
from fsm_runner.pool import DevicePool, Leased, PoolExhaustedError
from fsm_runner.records import Outcome, RunResult
from fsm_runner.roles.base import Layer, Planner
from fsm_runner.roles.values import Secrets

#: Runs one machine on one leased device to a result.
RunOne = Callable[[Machine, Device], Coroutine[Any, Any, RunResult]]


@attrs.frozen
class Attempt:
    """One run of one machine on one device; times are seconds since the suite started."""

    index: int
    machine: str
    serial: str
    result: RunResult
    start: float
    end: float
    retired: str | None = None


@attrs.frozen
class DeviceFigures:
    """What one device did: machines run, how they ended, busy time and share of the suite's wall time."""

    serial: str
    runs: int
    passed: int
    busy_s: float
    utilisation: float
    retired: str | None


@attrs.frozen
class SuiteSummary:
    """Final results in the order the machines were given, every attempt, and per-device figures."""

    results: tuple[RunResult, ...]
    attempts: tuple[Attempt, ...]
    devices: tuple[DeviceFigures, ...]
    wall_s: float

    @property
    def retried(self) -> tuple[str, ...]:
        """Machines that ran more than once because their device went away."""
        indexes = [a.index for a in self.attempts]
        return tuple(sorted({a.machine for a in self.attempts if indexes.count(a.index) > 1}))

    @property
    def machines_per_minute(self) -> float:
        return 60.0 * len(self.results) / self.wall_s if self.wall_s > 0 else 0.0

    def lines(self) -> list[str]:
        """A plain-text summary: one line per device, then the totals."""
        out = [f"{'device':<24} {'runs':>4} {'passed':>6} {'busy s':>8} {'util':>5}  status"]
        for d in self.devices:
            status = f"retired: {d.retired}" if d.retired else "ok"
            out.append(f"{d.serial:<24} {d.runs:>4} {d.passed:>6} {d.busy_s:>8.1f} {d.utilisation:>5.0%}  {status}")
        counts: dict[str, int] = {}
        for result in self.results:
            verdict = "SKIPPED" if result.skipped else result.outcome.value
            counts[verdict] = counts.get(verdict, 0) + 1
        tally = ", ".join(f"{n} {v.lower()}" for v, n in sorted(counts.items()))
        retried = f", retried elsewhere: {', '.join(self.retried)}" if self.retried else ""
        out.append(f"{len(self.results)} machines on {len(self.devices)} devices in {self.wall_s:.1f} s "
                   f"({self.machines_per_minute:.1f}/min): {tally}{retried}")
        return out


def into_run_dirs(out: str | Path | None, *, planners: dict[str, Planner] | None = None,
                  secrets: Secrets | None = None) -> RunOne:
    """A :data:`RunOne` that writes each run's evidence under ``out`` (None: no run directories).

    ``planners`` maps goal-only machines to their LLM planner; one without a planner is skipped.
    """
    chosen = planners or {}
    source = secrets or Secrets()

    async def run(machine: Machine, device: Device) -> RunResult:
        planner = chosen.get(machine.name)
        if out is not None:
            return await run_into(machine, device, out, planner=planner, secrets=source)
        if not machine.steps and planner is None:
            return skipped(machine, LLM_HINT)
        return await arun(machine, device, secrets=source.known())

    return run


def _environment_error(machine: Machine, serial: str, reason: str) -> RunResult:
    return RunResult(run_id=new_run_id(), machine=machine.name, outcome=Outcome.ERROR, reason=reason,
                     layer=Layer.ENVIRONMENT, device=serial)


def _lost_device(result: RunResult) -> bool:
    return result.outcome is Outcome.ERROR and result.layer is Layer.ENVIRONMENT and not result.skipped


async def run_parallel(
    machines: Sequence[Machine],
    pool: DevicePool,
    *,
    run: RunOne | None = None,
    retries: int = 1,
    locale_of: Callable[[Machine], str | None] = machine_locale,
) -> SuiteSummary:
    """Run every machine over ``pool`` (default ``run``: no run directories) and merge the results.

    ``locale_of`` picks the language a simulated phone boots in for each machine (default: its locale tag).

    A machine whose device fails its health check after an environment ERROR runs again on another
    device, up to ``retries`` times; its last result is the one that counts.
    """
    runner = run or into_run_dirs(None)
    queue: asyncio.Queue[tuple[int, int]] = asyncio.Queue()
    for index in range(len(machines)):
        queue.put_nowait((index, 0))
    final: dict[int, RunResult] = {}
    attempts: list[Attempt] = []
    began = time.monotonic()

    async def attempt(index: int, tries: int) -> None:
        machine = machines[index]
        try:
            async with pool.lease(machine.name, locale=locale_of(machine)) as leased:
                start = time.monotonic() - began
                result = await _run_on(runner, machine, leased)
                retired = await pool.check(leased) if _lost_device(result) else None
                attempts.append(Attempt(index, machine.name, leased.serial, result, start,
                                        time.monotonic() - began, retired))
        except PoolExhaustedError as err:
            final[index] = _environment_error(machine, "", f"no device left to run on: {err}")
            return
        if retired is not None:
            events.emit("pool.retired", serial=leased.serial, reason=retired, machine=machine.name)
            if tries < retries:
                events.emit("pool.requeued", machine=machine.name, attempt=tries + 2)
                queue.put_nowait((index, tries + 1))
                return
        final[index] = result

    async def worker() -> None:
        while not queue.empty():
            index, tries = queue.get_nowait()
            await attempt(index, tries)

    await asyncio.gather(*(worker() for _ in range(max(1, len(pool.live)))))
    wall = time.monotonic() - began
    return SuiteSummary(
        results=tuple(final[i] for i in range(len(machines))),
        attempts=tuple(attempts),
        devices=tuple(_figures(serial, attempts, pool.retired.get(serial), wall) for serial in pool.serials),
        wall_s=wall,
    )


async def _run_on(runner: RunOne, machine: Machine, leased: Leased) -> RunResult:
    # Its own task, so the run's bound context (run id, run directory) never leaks into the next run.
    try:
        return await asyncio.create_task(runner(machine, leased.device))
    except DeviceError as err:
        return _environment_error(machine, leased.serial, f"the device failed outside a run step: {err}")


def _figures(serial: str, attempts: list[Attempt], retired: str | None, wall: float) -> DeviceFigures:
    mine = [a for a in attempts if a.serial == serial]
    busy = sum(a.end - a.start for a in mine)
    return DeviceFigures(serial, len(mine), sum(1 for a in mine if a.result.passed), busy,
                         busy / wall if wall > 0 else 0.0, retired)
