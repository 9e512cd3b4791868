"""Start and stop emulated adb daemons from synchronous code.

All daemons of one :class:`DaemonLoop` share one asyncio event loop running in a background
thread; every call into the phone from the daemons happens on that thread, one at a time.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Sequence
from typing import Any, TypeVar

from adapters.errors import EnvironmentFault
from adapters.sim.adbd import AdbDaemon
from adapters.sim.shell import ShellPhone
from adapters.sim.sync import DeviceFilesystem

#: First port ``fsm-runner sim serve`` uses: outside 5555-5585, which the adb server scans for emulators.
DEFAULT_PORT = 7100

_T = TypeVar("_T")


class DaemonStartError(EnvironmentFault, OSError):
    """A daemon could not listen on its port (already in use, or not permitted)."""


class SimDaemon:
    """A running daemon: where it listens (``host``, ``port``, ``address``) and its phone and files."""

    def __init__(self, loop: DaemonLoop, daemon: AdbDaemon) -> None:
        self._loop = loop
        self._daemon = daemon

    @property
    def host(self) -> str:
        return self._daemon.host

    @property
    def port(self) -> int:
        return self._daemon.port

    @property
    def address(self) -> str:
        """``host:port``, what ``adb connect`` takes and what becomes the device serial."""
        return f"{self.host}:{self.port}"

    @property
    def phone(self) -> ShellPhone:
        return self._daemon.phone

    @property
    def fs(self) -> DeviceFilesystem:
        return self._daemon.fs

    @property
    def daemon(self) -> AdbDaemon:
        return self._daemon

    def stop(self) -> None:
        """Stop listening and drop the daemon's connections; safe to call twice."""
        self._loop.call(self._daemon.stop())


class DaemonLoop:
    """A background thread running the event loop that hosts daemons; ``close()`` stops them all."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="sim-adbd", daemon=True)
        self._thread.start()
        self.daemons: list[SimDaemon] = []

    def call(self, coro: Coroutine[Any, Any, _T], timeout: float = 10.0) -> _T:
        """Run a coroutine on the loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def serve(self, phone: ShellPhone, *, host: str = "127.0.0.1", port: int = 0, auth: bool = False,
              fs: DeviceFilesystem | None = None) -> SimDaemon:
        """Start a daemon for ``phone`` on ``port`` (0: any free port); raises :class:`DaemonStartError`."""
        daemon = AdbDaemon(phone, fs=fs, host=host, port=port, auth=auth)
        try:
            self.call(daemon.start())
        except OSError as err:
            reason = err.strerror or str(err)
            raise DaemonStartError(f"cannot listen on {host}:{port}: {reason}; pick another --port",
                                   serial=phone.serial) from err
        handle = SimDaemon(self, daemon)
        self.daemons.append(handle)
        return handle

    def close(self) -> None:
        """Stop every daemon and the loop thread; safe to call twice."""
        if self._loop.is_closed():
            return
        for handle in self.daemons:
            handle.stop()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5.0)
        self._loop.close()


def serve(phones: Sequence[ShellPhone], *, host: str = "127.0.0.1", first_port: int = DEFAULT_PORT,
          auth: bool = False) -> DaemonLoop:
    """Serve each phone on consecutive ports from ``first_port`` (0: free ports); close the result to stop."""
    loop = DaemonLoop()
    try:
        for index, phone in enumerate(phones):
            loop.serve(phone, host=host, port=first_port + index if first_port else 0, auth=auth)
    except BaseException:
        loop.close()
        raise
    return loop
