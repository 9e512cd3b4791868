"""Device leases for pytest and pytest-xdist: ``pytest -n N --fsm-devices A,B`` spreads machines over workers,
and each machine item runs on a device its worker leased from a shared lease file.

Load it with ``-p fsm_runner.pytest_pool`` (or list it in ``pytest_plugins``). With ``--fsm-devices``, every
machine item of the fsm-runner plugin holds a lease for its whole run and drives the leased serial (the
plugin's ``--fsm-device`` / ``--fsm-adb-server`` options are pointed at it for that item). The lease file is
``--fsm-lease-file``, else ``$FSM_RUNNER_LEASE_FILE``, else a file in the controller's temporary folder that
xdist hands to its local workers; remote workers need a path on a filesystem they share. Fixtures:
``fsm_leased_device`` (an ``AdbDevice`` on a leased serial, for your own tests).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from adapters.adb import DEFAULT_SERVER, AdbDevice
from fsm_runner.errors import FsmRunnerError
from fsm_runner.fleet import AdbSlot, DeviceGroup, SimAdbSlot, open_fleet
from fsm_runner.leases import LEASE_FILE_VARIABLE, LeaseFile, default_owner
from fsm_runner.pool import PoolExhaustedError, probe_health

_WORKER_INPUT_KEY = "fsm_lease_file"
_LEASER = pytest.StashKey["DeviceLeaser"]()


@attrs.frozen
class LeasedSerial:
    """A serial held through the lease file, and the adb server it is on."""

    key: str
    serial: str
    server: str


class DeviceLeaser:
    """Blocking leases on the adb devices ``--fsm-devices`` names, shared through a lease file.

    Each lease is health-checked first; a device that fails is left out for the rest of this worker's session.
    """

    def __init__(self, slots: dict[str, tuple[str, str]], lease_file: LeaseFile, *, wait_s: float) -> None:
        self._slots = slots
        self.lease_file = lease_file
        self._wait_s = wait_s
        self.retired: dict[str, str] = {}

    @contextlib.contextmanager
    def lease(self, note: str = "") -> Iterator[LeasedSerial]:
        """Hold a healthy device for the body; PoolExhaustedError when none is left or none came free in time."""
        deadline = time.monotonic() + self._wait_s
        delay = 0.05
        while True:
            live = [key for key in self._slots if key not in self.retired]
            if not live:
                raise PoolExhaustedError("every device was taken out", retired=self.retired)
            lease = self.lease_file.try_acquire(live, note=note)
            if lease is None:
                if time.monotonic() >= deadline:
                    raise PoolExhaustedError(
                        f"no device of {', '.join(live)} came free within {self._wait_s:g} s in "
                        f"{self.lease_file.path}", retired=self.retired)
                time.sleep(delay)
                delay = min(delay * 2, 1.0)
                continue
            serial, server = self._slots[lease.serial]
            reason = asyncio.run(_health(serial, server))
            if reason is None:
                break
            self.retired[lease.serial] = reason
            self.lease_file.release(lease, note="retired")
        try:
            yield LeasedSerial(lease.serial, serial, server)
        finally:
            self.lease_file.release(lease, note=note)


async def _health(serial: str, server: str) -> str | None:
    device = AdbDevice(serial, server=server)
    try:
        return await probe_health(device)
    finally:
        await device.close()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fsm-runner-pool", "fsm-runner device pool")
    group.addoption("--fsm-devices", action="append", default=[], metavar="SERIAL,SERIAL",
                    help="adb devices to lease for machine items (repeat per --fsm-pool-server)")
    group.addoption("--fsm-pool-server", action="append", default=[], metavar="HOST:PORT",
                    help="adb server of the matching --fsm-devices group (default: --fsm-adb-server or 127.0.0.1:5037)")
    group.addoption("--fsm-lease-file", default=None, metavar="PATH",
                    help=f"lease file shared by every worker (default ${LEASE_FILE_VARIABLE}, else a temporary file)")
    group.addoption("--fsm-lease-wait", type=float, default=600.0, metavar="SECONDS",
                    help="how long a machine waits for a free device (default 600)")


def _lease_path(config: pytest.Config) -> Path:
    worker_input: dict[str, Any] | None = getattr(config, "workerinput", None)
    chosen = config.getoption("fsm_lease_file") or os.environ.get(LEASE_FILE_VARIABLE)
    if chosen:
        return Path(chosen)
    if worker_input and worker_input.get(_WORKER_INPUT_KEY):
        return Path(worker_input[_WORKER_INPUT_KEY])
    return Path(tempfile.mkdtemp(prefix="fsm-leases-")) / "leases.jsonl"


def _groups(config: pytest.Config) -> list[DeviceGroup]:
    devices: list[str] = config.getoption("fsm_devices") or []
    servers: list[str] = config.getoption("fsm_pool_server") or []
    fallback = getattr(config.option, "fsm_adb_server", None)
    if len(servers) > len(devices):
        raise pytest.UsageError("--fsm-pool-server given more often than --fsm-devices")
    if len(servers) == 1 and len(devices) > 1:
        servers = servers * len(devices)
    return [DeviceGroup(text, servers[i] if i < len(servers) else fallback) for i, text in enumerate(devices)]


def pytest_configure(config: pytest.Config) -> None:
    groups = _groups(config)
    if not groups:
        return
    if any(g.devices.strip().startswith(("sim:", "sim-adb:")) for g in groups):
        raise pytest.UsageError("--fsm-devices takes adb serials; serve simulated phones with `fsm-runner sim "
                                "serve` and `adb connect` them to share them between workers")
    try:
        fleet = open_fleet(groups)
    except FsmRunnerError as err:
        raise pytest.UsageError(str(err)) from err
    slots: dict[str, tuple[str, str]] = {}
    for slot in fleet.slots:
        if isinstance(slot, AdbSlot):
            slots[slot.serial] = (slot.device_serial, slot.server)
        elif isinstance(slot, SimAdbSlot):
            slots[slot.serial] = (slot.serial, slot.server)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    leases = LeaseFile(_lease_path(config), owner=default_owner(worker))
    config.stash[_LEASER] = DeviceLeaser(slots, leases, wait_s=config.getoption("fsm_lease_wait"))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: hand local workers the one lease file (unless an option or variable names it)."""
    leaser = node.config.stash.get(_LEASER, None)
    if leaser is not None:
        node.workerinput[_WORKER_INPUT_KEY] = str(leaser.lease_file.path)


def leaser_of(config: pytest.Config) -> DeviceLeaser | None:
    """The session's leaser, or None when ``--fsm-devices`` was not given."""
    return config.stash.get(_LEASER, None)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    leaser = leaser_of(item.config)
    if leaser is None or not hasattr(item, "machine"):
        return (yield)
    option = item.config.option
    saved = (getattr(option, "fsm_device", None), getattr(option, "fsm_adb_server", None))
    with leaser.lease(item.nodeid) as leased:
        option.fsm_device, option.fsm_adb_server = leased.serial, leased.server
        item.user_properties.append(("device", leased.key))
        try:
            return (yield)
        finally:
            option.fsm_device, option.fsm_adb_server = saved


@pytest.fixture
def fsm_leased_device(request: pytest.FixtureRequest) -> Iterator[AdbDevice]:
    """An ``AdbDevice`` on a serial leased for this test (skipped without ``--fsm-devices``)."""
    leaser = leaser_of(request.config)
    if leaser is None:
        pytest.skip("no --fsm-devices to lease from")
    with leaser.lease(request.node.nodeid) as leased:
        device = AdbDevice(leased.serial, server=leased.server or DEFAULT_SERVER)
        try:
            yield device
        finally:
            asyncio.run(device.close())
