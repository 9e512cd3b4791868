"""Many machines over a pool: every machine gets a verdict, a device that goes offline is taken out and its
machine runs once more elsewhere, and no device ever runs two machines at once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from adapters.errors import AdbServerError
from adapters.sim.faults import Faults
from fsm_runner import Layer, Outcome
from fsm_runner.fleet import DeviceGroup, SimAdbSlot, SimSlot, open_fleet
from fsm_runner.parallel import SuiteSummary, into_run_dirs, run_parallel
from fsm_runner.pool import DevicePool
from machines.demo_shop import demo_machines

ENGLISH = demo_machines(("en",))
SHORT = [m for m in ENGLISH if m.name in ("login_en", "login_failure_en", "settings_switch_en", "add_to_cart_en")]


def _no_device_ran_two_machines_at_once(summary: SuiteSummary) -> bool:
    for a in summary.attempts:
        for b in summary.attempts:
            if a is not b and a.serial == b.serial and a.start < b.start < a.end:
                return False
    return True


def test_machines_spread_over_devices_and_leave_one_run_directory_each(tmp_path: Path) -> None:
    async def scenario() -> SuiteSummary:
        pool = DevicePool(open_fleet([DeviceGroup("sim:2")]).slots)
        return await run_parallel(SHORT, pool, run=into_run_dirs(tmp_path))

    summary = asyncio.run(scenario())
    assert [r.machine for r in summary.results] == [m.name for m in SHORT]
    assert all(r.outcome is Outcome.PASSED for r in summary.results), [r.reason for r in summary.results]
    run_dirs = {r.run_dir for r in summary.results}
    assert len(run_dirs) == len(SHORT) and all(r and (Path(r) / "report.html").is_file() for r in run_dirs)
    assert {d.serial: d.runs for d in summary.devices} == {"sim-0": 2, "sim-1": 2}
    assert all(0.0 < d.utilisation <= 1.0 for d in summary.devices)
    assert _no_device_ran_two_machines_at_once(summary)
    assert "4 machines on 2 devices" in summary.lines()[-1]


def test_a_device_going_offline_mid_suite_costs_one_retry_elsewhere_and_no_verdict() -> None:
    machines = SHORT + SHORT[:2]
    fleet = open_fleet([DeviceGroup("sim:4")])
    doomed = fleet.slots[2]
    assert isinstance(doomed, SimSlot)

    async def pull_the_cable() -> None:
        while not doomed.phones:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.4)
        dead = Faults(offline_after_s=0.0, offline_for_s=1e9)
        doomed.faults = dead
        doomed.phones[-1].faults = dead

    async def scenario() -> tuple[SuiteSummary, DevicePool]:
        pool = DevicePool(fleet.slots)
        cable = asyncio.create_task(pull_the_cable())
        summary = await run_parallel(machines, pool)
        await cable
        return summary, pool

    summary, pool = asyncio.run(scenario())
    assert len(summary.results) == len(machines)
    assert all(r.outcome is Outcome.PASSED for r in summary.results), [r.reason for r in summary.results]
    lost = [a for a in summary.attempts if a.serial == "sim-2"]
    assert len(lost) == 1
    first = lost[0]
    assert first.result.outcome is Outcome.ERROR and first.result.layer is Layer.ENVIRONMENT
    assert first.retired is not None and "offline" in first.retired
    again = [a for a in summary.attempts if a.index == first.index and a is not first]
    assert len(again) == 1 and again[0].serial != "sim-2" and again[0].start >= first.end
    assert summary.retried == (first.machine,)
    assert pool.live == ("sim-0", "sim-1", "sim-3")
    assert len(summary.attempts) == len(machines) + 1
    assert _no_device_ran_two_machines_at_once(summary)
    assert [d.retired is not None for d in summary.devices] == [False, False, True, False]


def test_a_machine_is_retried_only_once_and_then_keeps_its_environment_error() -> None:
    fleet = open_fleet([DeviceGroup("sim:2")])
    dead = Faults(offline_after_s=0.0, offline_for_s=1e9)

    async def unplug_every_phone_once_booted() -> None:
        for slot in fleet.slots:
            assert isinstance(slot, SimSlot)
            while not slot.phones:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.2)
            slot.faults = dead
            slot.phones[-1].faults = dead

    async def scenario() -> SuiteSummary:
        pool = DevicePool(fleet.slots)
        unplug = asyncio.create_task(unplug_every_phone_once_booted())
        summary = await run_parallel(SHORT[:2], pool)
        await unplug
        return summary

    summary = asyncio.run(scenario())
    assert all(r.outcome is Outcome.ERROR and r.layer is Layer.ENVIRONMENT for r in summary.results)
    assert len(summary.attempts) == 2
    assert all(d.retired for d in summary.devices)
    assert all("no device left" in r.reason or r.device for r in summary.results)


@pytest.mark.adb
def test_a_stopped_adb_daemon_takes_its_device_out_and_its_machine_runs_on_the_other() -> None:
    try:
        fleet = open_fleet([DeviceGroup("sim-adb:2")])
    except AdbServerError as err:
        pytest.skip(str(err))
    doomed = fleet.slots[1]
    assert isinstance(doomed, SimAdbSlot)

    async def stop_the_daemon() -> None:
        while not doomed.phones:
            await asyncio.sleep(0.01)
        await asyncio.sleep(1.0)
        await asyncio.to_thread(doomed.daemon.stop)

    async def scenario() -> SuiteSummary:
        pool = DevicePool(fleet.slots)
        stopper = asyncio.create_task(stop_the_daemon())
        summary = await run_parallel(SHORT[:3], pool)
        await stopper
        await pool.close()
        return summary

    try:
        summary = asyncio.run(scenario())
    finally:
        fleet.close()
    assert all(r.outcome is Outcome.PASSED for r in summary.results), [r.reason for r in summary.results]
    lost = [a for a in summary.attempts if a.serial == doomed.serial]
    assert len(lost) == 1 and lost[0].result.layer is Layer.ENVIRONMENT and lost[0].retired
    assert len(summary.retried) == 1
    assert {a.serial for a in summary.attempts if a.start > lost[0].end} == {fleet.slots[0].serial}
    assert _no_device_ran_two_machines_at_once(summary)
