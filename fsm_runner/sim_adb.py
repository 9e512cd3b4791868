"""``--device sim-adb``: a simulated phone reached through a real adb server, so a run takes the whole adb path.

The phone is served by an emulated adb daemon on a free loopback port; a
private adb server (the binary shipped with adbutils, its own HOME and port,
so it never touches the user's server) connects to it; the run drives it with
the real :class:`~adapters.adb.AdbDevice`. ``close()`` takes it all down.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from adapters.adb import AdbDevice
from adapters.errors import AdbServerError
from adapters.sim import SimPhone
from adapters.sim.serve import DaemonLoop


def adb_binary() -> str:
    """The adb binary shipped in the adbutils wheel (or ``adb`` on PATH, as adbutils finds it)."""
    import adbutils

    path = str(adbutils.adb_path())
    if not os.access(path, os.X_OK):
        raise AdbServerError(f"the adb binary {path} is not executable; reinstall adbutils", serial="sim-adb")
    return path


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


class PrivateAdbServer:
    """An ``adb server nodaemon`` process on its own port and HOME; ``stop()`` ends it and removes the HOME.

    ``port`` 0 takes a free one. Raises AdbServerError (with the server's log)
    when the server exits or does not listen within ``timeout`` seconds.
    """

    def __init__(self, port: int = 0, *, timeout: float = 15.0) -> None:
        self.port = port or free_port()
        self.home = Path(tempfile.mkdtemp(prefix="fsm-runner-adb-"))
        (self.home / ".android").mkdir()
        self._binary = adb_binary()
        with (self.home / "server.log").open("wb") as log:
            self.process = subprocess.Popen(
                [self._binary, "-P", str(self.port), "server", "nodaemon"],
                env=self.env(), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                log_text = (self.home / "server.log").read_text(errors="replace")[-1000:]
                self.stop()
                raise AdbServerError(f"the private adb server exited: {log_text}", serial="sim-adb")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                return
            if time.monotonic() > deadline:
                self.stop()
                raise AdbServerError(f"the private adb server did not listen within {timeout:g} s", serial="sim-adb")
            time.sleep(0.05)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.process.pid

    def env(self) -> dict[str, str]:
        """The environment for adb commands that talk to this server."""
        env = {k: v for k, v in os.environ.items() if k not in ("ANDROID_SERIAL", "ADB_VENDOR_KEYS")}
        # Its own HOME keeps its keys and state apart; no USB, mDNS or emulator scanning.
        env.update(HOME=str(self.home), TMPDIR=str(self.home), ANDROID_USER_HOME=str(self.home / ".android"),
                   ANDROID_ADB_SERVER_PORT=str(self.port), ADB_MDNS="0", ADB_MDNS_AUTO_CONNECT="0",
                   ADB_LIBUSB="0", ADB_USB="0", ADB_EMU="0", ADB_BURST_MODE="0")
        return env

    def run(self, *args: str, timeout: float = 20.0, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        """``adb -P PORT ARGS...`` against this server, its output captured as bytes."""
        return subprocess.run([self._binary, "-P", str(self.port), *args], env=self.env(), capture_output=True,
                              timeout=timeout, input=input, check=False)

    def adb(self, *args: str, timeout: float = 20.0) -> str:
        """``run`` with stdout and stderr as one stripped text."""
        done = self.run(*args, timeout=timeout)
        return (done.stdout + done.stderr).decode(errors="replace").strip()

    def connect(self, address: str, *, timeout: float = 15.0) -> None:
        """``adb connect`` and wait until the device is in state ``device``."""
        answer = self.adb("connect", address, timeout=timeout)
        # A daemon that asks for AUTH reports "failed to authenticate" while the key is offered;
        # one that accepts it then comes online like any other, so keep waiting.
        if "connected to" not in answer and "failed to authenticate" not in answer:
            raise AdbServerError(f"adb connect {address} failed: {answer}", serial=address)
        deadline = time.monotonic() + timeout
        while self.run("-s", address, "get-state", timeout=timeout).stdout.decode().strip() != "device":
            if time.monotonic() > deadline:
                raise AdbServerError(f"{address} did not come online within {timeout:g} s", serial=address)
            time.sleep(0.05)

    def stop(self) -> None:
        """Ask the server to exit, kill it if it does not, and remove its HOME; safe to call twice."""
        if self.process.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired, OSError):
                self.run("kill-server", timeout=5.0)
            try:
                self.process.wait(timeout=3.0)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=3.0)
        shutil.rmtree(self.home, ignore_errors=True)


class SimAdbDevice(AdbDevice):
    """An :class:`AdbDevice` whose phone is simulated and whose adb server is private to it."""

    def __init__(self, phone: SimPhone, *, transport: str = "adbutils") -> None:
        self.phone = phone
        self._loop = DaemonLoop()
        self._server: PrivateAdbServer | None = None
        try:
            daemon = self._loop.serve(phone, port=0)
            self._server = PrivateAdbServer()
            self._server.connect(daemon.address)
        except BaseException:
            self._teardown()
            raise
        super().__init__(daemon.address, transport, self._server.address)

    def _teardown(self) -> None:
        if self._server is not None:
            self._server.stop()
        self._loop.close()

    async def close(self) -> None:
        try:
            await super().close()
        finally:
            self._teardown()
