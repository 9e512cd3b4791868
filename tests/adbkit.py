"""A real adb server and emulated daemons for end-to-end tests, importable from any test.

``start_adb_server(port)`` runs the ``adb`` binary shipped in the adbutils wheel (or ``adb`` on
PATH) in the foreground on a private port with a private HOME (its keys and log stay in a temp
dir; mDNS, USB and the emulator scan are off, so it only ever talks over loopback).
``serve_sim(phone)`` starts an emulated adbd for a simulated phone; ``connect(server, daemon)``
runs ``adb connect`` and returns the serial once the device is ready. The pytest fixtures at
the end (``adb_server``, ``sim_phone``, ``sim_daemon``, ``adb_serial``) wrap these; import them
into a ``conftest.py`` to use them.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import adbutils
import pytest

from adapters.sim import SimPhone
from adapters.sim.serve import DaemonLoop, SimDaemon
from adapters.sim.shell import ShellPhone

_LOOP: DaemonLoop | None = None


class AdbBinaryMissing(RuntimeError):
    """No adb binary in the adbutils wheel nor on PATH."""


def adb_binary() -> str:
    """Path of the adb binary the tests use: the adbutils wheel's, else ``adb`` on PATH."""
    bundled = Path(adbutils.__file__).parent / "binaries" / "adb"
    if bundled.is_file() and os.access(bundled, os.X_OK):
        return str(bundled)
    found = shutil.which("adb")
    if found is None:
        raise AdbBinaryMissing("no adb binary: install adbutils with its binaries or put adb on PATH")
    return found


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class AdbServer:
    """A foreground ``adb server`` process on ``port``; ``stop()`` kills it and removes its HOME."""

    def __init__(self, process: subprocess.Popen[bytes], port: int, home: Path) -> None:
        self.process = process
        self.port = port
        self.home = home

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def env(self) -> dict[str, str]:
        """Environment for adb client commands that talk to this server."""
        return _adb_env(self.home, self.port)

    def adb(self, *args: str, timeout: float = 20.0, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        """Run ``adb -P PORT ARGS...`` against this server; output captured as bytes."""
        return subprocess.run([adb_binary(), "-P", str(self.port), *args], env=self.env, capture_output=True,
                              timeout=timeout, input=input, check=False)

    def stop(self) -> None:
        """``kill-server``, then kill the recorded pid if it is still there."""
        if self.process.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired, OSError):
                self.adb("kill-server", timeout=5.0)
            try:
                self.process.wait(timeout=3.0)
            except subprocess.TimeoutExpired:
                self.process.send_signal(signal.SIGKILL)
                self.process.wait(timeout=3.0)
        shutil.rmtree(self.home, ignore_errors=True)


def _adb_env(home: Path, port: int) -> dict[str, str]:
    env = dict(os.environ)
    env.update(HOME=str(home), TMPDIR=str(home), ANDROID_USER_HOME=str(home / ".android"),
               ANDROID_ADB_SERVER_PORT=str(port), ADB_MDNS="0", ADB_MDNS_AUTO_CONNECT="0", ADB_LIBUSB="0",
               ADB_USB="0", ADB_EMU="0", ADB_BURST_MODE="0")
    env.pop("ADB_VENDOR_KEYS", None)
    env.pop("ANDROID_SERIAL", None)
    return env


def start_adb_server(port: int = 0, *, timeout: float = 15.0) -> AdbServer:
    """Start a private adb server on ``port`` (0: a free one) and wait until it accepts connections."""
    port = port or free_port()
    home = Path(tempfile.mkdtemp(prefix="adb-home-"))
    (home / ".android").mkdir()
    log = (home / "server.log").open("wb")
    process = subprocess.Popen([adb_binary(), "-P", str(port), "server", "nodaemon"], env=_adb_env(home, port),
                               stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    log.close()
    server = AdbServer(process, port, home)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            text = (home / "server.log").read_text(errors="replace")
            server.stop()
            raise RuntimeError(f"adb server exited with {process.returncode}: {text[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return server
        except OSError:
            time.sleep(0.05)
    server.stop()
    raise TimeoutError(f"adb server did not listen on port {port} within {timeout} s")


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
    serial = daemon.address
    result = server.adb("connect", serial, timeout=timeout)
    text = result.stdout.decode(errors="replace")
    # a first connection to a daemon with auth on reports "failed to authenticate" while the key
    # is offered; the daemon accepts it at once, like a user tapping "Allow", so keep waiting
    if "connected to" not in text and "failed to authenticate" not in text:
        raise RuntimeError(f"adb connect {serial} failed: {text} {result.stderr.decode(errors='replace')}")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = server.adb("-s", serial, "get-state", timeout=timeout).stdout.decode().strip()
        if state == "device":
            return serial
        time.sleep(0.05)
    raise TimeoutError(f"{serial} did not reach state 'device' within {timeout} s")


def disconnect(server: AdbServer, serial: str) -> None:
    """``adb disconnect`` (ignores a device that is already gone)."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        server.adb("disconnect", serial, timeout=5.0)


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
