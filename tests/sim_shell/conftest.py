"""A shell session on a fresh simulated phone, run synchronously for unit tests."""

from __future__ import annotations

import asyncio

import attrs
import pytest

from adapters.sim import SimPhone
from adapters.sim.shell import DeviceShell, ShellOutput
from adapters.sim.sync import DeviceFilesystem
from tests.adbkit import ManualClock


@attrs.frozen
class Ran:
    code: int
    stdout: bytes
    stderr: bytes
    merged: bytes

    @property
    def out(self) -> str:
        return self.stdout.decode()

    @property
    def err(self) -> str:
        return self.stderr.decode()


class Session:
    """One shell (``$?`` carries over between ``run`` calls) on a phone and a filesystem."""

    def __init__(self, phone: SimPhone, clock: ManualClock) -> None:
        self.phone = phone
        self.clock = clock
        self.fs = DeviceFilesystem()
        self.output = ShellOutput()
        self.shell = DeviceShell(phone, self.fs, self.output)

    def run(self, line: str) -> Ran:
        self.output.chunks.clear()
        code = asyncio.run(self.shell.run(line))
        return Ran(code, self.output.stdout(), self.output.stderr(), self.output.merged())


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def session(clock: ManualClock) -> Session:
    return Session(SimPhone(now=clock), clock)
