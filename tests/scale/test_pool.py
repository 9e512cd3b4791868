"""The device pool: exclusive leases, a health check before each, and unhealthy devices taken out."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from adapters.sim.faults import Faults
from fsm_runner.errors import ConfigurationError
from fsm_runner.fleet import DeviceGroup, SimSettings, SimSlot, open_fleet
from fsm_runner.leases import LeaseFile, held_intervals, overlapping
from fsm_runner.pool import DevicePool, LeaseSpan, PoolExhaustedError

OFFLINE = Faults(offline_after_s=0.0, offline_for_s=1e9)


def _clashes(spans: list[LeaseSpan]) -> list[tuple[LeaseSpan, LeaseSpan]]:
    clashes = []
    for a in spans:
        for b in spans:
            if a is not b and a.serial == b.serial and a.start < b.start < a.end:
                clashes.append((a, b))
    return clashes


def test_concurrent_leases_never_share_a_device() -> None:
    async def scenario() -> DevicePool:
        pool = DevicePool(open_fleet([DeviceGroup("sim:2")]).slots)

        async def job(n: int) -> None:
            async with pool.lease(f"job-{n}"):
                await asyncio.sleep(0.02)

        await asyncio.gather(*(job(n) for n in range(7)))
        return pool

    pool = asyncio.run(scenario())
    assert len(pool.spans) == 7
    assert {s.serial for s in pool.spans} == {"sim-0", "sim-1"}
    assert _clashes(pool.spans) == []


def test_each_lease_boots_a_fresh_simulated_phone() -> None:
    async def scenario() -> SimSlot:
        slot = SimSlot("sim-0", SimSettings())
        pool = DevicePool([slot])
        for _ in range(2):
            async with pool.lease() as leased:
                assert getattr(leased.device, "phone", None) is slot.phones[-1]
        return slot

    slot = asyncio.run(scenario())
    assert len(slot.phones) == 2 and slot.phones[0] is not slot.phones[1]


def test_an_offline_device_is_retired_at_lease_time_and_another_is_leased() -> None:
    async def scenario() -> tuple[DevicePool, str]:
        slots = [SimSlot("sim-0", SimSettings(faults=OFFLINE)), SimSlot("sim-1", SimSettings())]
        pool = DevicePool(slots)
        async with pool.lease() as leased:
            return pool, leased.serial

    pool, serial = asyncio.run(scenario())
    assert serial == "sim-1"
    assert pool.live == ("sim-1",)
    assert "offline" in pool.retired["sim-0"]


def test_a_pool_with_every_device_offline_says_why() -> None:
    async def scenario() -> None:
        pool = DevicePool([SimSlot("sim-0", SimSettings(faults=OFFLINE))])
        async with pool.lease():
            pass

    with pytest.raises(PoolExhaustedError, match="sim-0") as caught:
        asyncio.run(scenario())
    assert "offline" in caught.value.retired["sim-0"]


def test_a_pool_refuses_no_devices_and_repeated_ones() -> None:
    with pytest.raises(ConfigurationError, match="at least one"):
        DevicePool([])
    with pytest.raises(ConfigurationError, match="sim-0 more than once"):
        DevicePool([SimSlot("sim-0", SimSettings()), SimSlot("sim-0", SimSettings())])


def test_two_pools_sharing_a_lease_file_take_turns_on_the_same_devices(tmp_path: Path) -> None:
    path = tmp_path / "leases.jsonl"

    async def scenario() -> None:
        pools = [DevicePool([SimSlot(s, SimSettings()) for s in ("d1", "d2")],
                            lease_file=LeaseFile(path, owner=name)) for name in ("a", "b")]

        async def job(pool: DevicePool, n: int) -> None:
            async with pool.lease(f"job-{n}"):
                await asyncio.sleep(0.03)

        await asyncio.gather(*(job(pools[n % 2], n) for n in range(8)))

    asyncio.run(scenario())
    intervals = held_intervals(LeaseFile(path).records())
    assert len(intervals) == 8
    assert {i.owner for i in intervals} == {"a", "b"}
    assert overlapping(intervals) == []
