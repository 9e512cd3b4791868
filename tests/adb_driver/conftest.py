"""A real adb server (session-wide) and, per test, a simulated phone behind an emulated daemon."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import adbkit
import attrs
import pytest
from adbkit import AdbServer

from adapters.adb import TRANSPORT_NAMES, AdbDevice
from adapters.sim import SimPhone
from adapters.sim.serve import SimDaemon


class ManualClock:
    """The phone's clock: it moves only when a test says so, so splash screens and timers are instant."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@attrs.define
class Rig:
    """One simulated phone served over adb: the phone, its clock, its serial and the server address."""

    phone: SimPhone
    clock: ManualClock
    serial: str
    server: str
    daemon: SimDaemon

    def device(self, transport: str, **options: Any) -> AdbDevice:
        return AdbDevice(self.serial, transport=transport, server=self.server, **options)


@pytest.fixture(scope="session")
def adb_server() -> Iterator[AdbServer]:
    server = adbkit.start_adb_server()
    yield server
    server.stop()


def make_rig(adb_server: AdbServer, **phone_options: Any) -> Rig:
    clock = ManualClock()
    phone = SimPhone(now=clock, **phone_options)
    daemon = adbkit.serve_sim(phone)
    serial = adbkit.connect(adb_server, daemon)
    return Rig(phone=phone, clock=clock, serial=serial, server=f"127.0.0.1:{adb_server.port}", daemon=daemon)


def stop_rig(adb_server: AdbServer, rig: Rig) -> None:
    adbkit.disconnect(adb_server, rig.serial)
    rig.daemon.stop()


@pytest.fixture
def rig(adb_server: AdbServer) -> Iterator[Rig]:
    """A phone with the ADB keyboard installed."""
    made = make_rig(adb_server, adb_keyboard=True)
    yield made
    stop_rig(adb_server, made)


@pytest.fixture
def bare_rig(adb_server: AdbServer) -> Iterator[Rig]:
    """A phone without the ADB keyboard."""
    made = make_rig(adb_server, adb_keyboard=False)
    yield made
    stop_rig(adb_server, made)


@pytest.fixture(params=TRANSPORT_NAMES)
def transport(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name
