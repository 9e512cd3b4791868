"""A real adb server and emulated daemons for end-to-end tests, importable from any test.

``start_adb_server(port)`` runs the ``adb`` binary shipped in the adbutils wheel in the
foreground on a private port with a private HOME (``fsm_runner.sim_adb.PrivateAdbServer``: its
keys and log stay in a temp dir; mDNS, USB and the emulator scan are off, so it only ever talks
over loopback).
``serve_sim(phone)`` starts an emulated adbd for a simulated phone; ``connect(server, daemon)``
runs ``adb connect`` and returns the serial once the device is ready. The pytest fixtures at
the end (``adb_server``, ``sim_phone``, ``sim_daemon``, ``adb_serial``) wrap these; import them
into a ``conftest.py`` to use them.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterator

import pytest

from adapters.sim import SimPhone
from adapters.sim.serve import DaemonLoop, SimDaemon
from adapters.sim.shell import ShellPhone
from fsm_runner.sim_adb import PrivateAdbServer

_LOOP: DaemonLoop | None = None


#: The shipped private adb server (``fsm_runner.sim_adb``), so the tests start adb the way
#: ``--device sim-adb`` does; ``run(...)`` gives the bytes the tests assert on.
AdbServer = PrivateAdbServer


def start_adb_server(port: int = 0, *, timeout: float = 15.0) -> AdbServer:
    """Start a private adb server on ``port`` (0: a free one) and wait until it accepts connections."""
    return PrivateAdbServer(port, timeout=timeout)


def daemon_loop() -> DaemonLoop:
    """The process-wide loop thread that hosts test daemons."""
    global _LOOP
    if _LOOP is None:
        _LOOP = DaemonLoop()
    return _LOOP


def serve_sim(phone: ShellPhone, *, auth: bool = False) -> SimDaemon:
    """Start an emulated adbd for ``phone`` on a free loopback port; ``stop()`` the result when done."""
    return daemon_loop().serve(phone, port=0, auth=auth)


def connect(server: AdbServer, daemon: SimDaemon, *, timeout: float = 10.0) -> str:
    """``adb connect`` the daemon and wait until its state is ``device``; returns the serial."""
    server.connect(daemon.address, timeout=timeout)
    return daemon.address


def disconnect(server: AdbServer, serial: str) -> None:
    """``adb disconnect`` (ignores a device that is already gone)."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        server.run("disconnect", serial, timeout=5.0)


class ManualClock:
    """A phone clock that moves only when the test advances it."""

    def __init__(self, start: float = 1000.0) -> None:
        self.t = start

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


def node_centre(xml: str, resource_id: str) -> tuple[int, int]:
    """Centre of the first node with ``resource_id`` in a ``uiautomator dump``; ``LookupError`` if absent."""
    for node in ET.fromstring(xml).iter("node"):
        if node.attrib.get("resource-id") == resource_id:
            left_top, right_bottom = node.attrib["bounds"][1:-1].split("][")
            x1, y1 = (int(v) for v in left_top.split(","))
            x2, y2 = (int(v) for v in right_bottom.split(","))
            return (x1 + x2) // 2, (y1 + y2) // 2
    raise LookupError(f"no node with resource-id {resource_id!r} in the dump")


CNXN, AUTH, OPEN, OKAY, CLSE, WRTE = 0x4E584E43, 0x48545541, 0x4E45504F, 0x59414B4F, 0x45534C43, 0x45545257
_HEADER = struct.Struct("<6I")


class RawAdbConnection:
    """A bare host-side adb transport over one TCP socket, for probing the daemon packet by packet.

    Written independently of the daemon's code: it builds headers with its own struct layout and
    always sends the byte-sum checksum, as an old host would.
    """

    def __init__(self, port: int, *, timeout: float = 5.0) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def close(self) -> None:
        self.sock.close()

    def send(self, command: int, arg0: int, arg1: int, data: bytes = b"") -> None:
        header = _HEADER.pack(command, arg0, arg1, len(data), sum(data) & 0xFFFFFFFF, command ^ 0xFFFFFFFF)
        self.sock.sendall(header + data)

    def _exactly(self, size: int) -> bytes:
        buf = b""
        while len(buf) < size:
            chunk = self.sock.recv(size - len(buf))
            if not chunk:
                raise EOFError(f"connection closed after {len(buf)} of {size} bytes")
            buf += chunk
        return buf

    def receive(self) -> tuple[int, int, int, bytes]:
        """The next packet as (command, arg0, arg1, data); ``EOFError`` when the daemon hung up."""
        command, arg0, arg1, length, _, magic = _HEADER.unpack(self._exactly(_HEADER.size))
        assert magic == command ^ 0xFFFFFFFF, "daemon sent a bad magic"
        return command, arg0, arg1, self._exactly(length) if length else b""

    def handshake(self, version: int = 0x01000000, max_payload: int = 4096) -> bytes:
        """Send CNXN and return the device banner from the daemon's CNXN."""
        self.send(CNXN, version, max_payload, b"host::\0")
        command, _, _, data = self.receive()
        assert command == CNXN, f"expected CNXN, got {command:#x}"
        return data

    def run_service(self, name: str, local_id: int = 1) -> tuple[int, bytes]:
        """OPEN a service and read until CLSE; returns (first reply command, everything written)."""
        self.send(OPEN, local_id, 0, name.encode() + b"\0")
        first, remote, _, _ = self.receive()
        if first != OKAY:
            return first, b""
        out = b""
        while True:
            command, arg0, _, data = self.receive()
            if command == WRTE:
                out += data
                self.send(OKAY, local_id, arg0)
            elif command == CLSE:
                self.send(CLSE, local_id, remote)
                return first, out


@pytest.fixture(scope="session")
def adb_server() -> Iterator[AdbServer]:
    """One private adb server per test session (per xdist worker)."""
    server = start_adb_server()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def phone_clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def sim_phone(phone_clock: ManualClock) -> SimPhone:
    """A fresh Demo Shop phone on a hand-driven clock."""
    return SimPhone(now=phone_clock)


@pytest.fixture
def sim_daemon(sim_phone: SimPhone) -> Iterator[SimDaemon]:
    """An emulated adbd for ``sim_phone`` on a free port."""
    daemon = serve_sim(sim_phone)
    try:
        yield daemon
    finally:
        daemon.stop()


@pytest.fixture
def adb_serial(adb_server: AdbServer, sim_daemon: SimDaemon) -> Iterator[str]:
    """``sim_daemon`` connected to ``adb_server``; the serial (``127.0.0.1:PORT``), disconnected afterwards."""
    serial = connect(adb_server, sim_daemon)
    try:
        yield serial
    finally:
        disconnect(adb_server, serial)
