"""The ``adbutils`` transport, with connections that close without adbutils' 10 ms sleep.

Stock ``adbutils.AdbConnection.close()`` half-closes the socket and then sleeps
10 ms "to make sure the shutdown is processed" (adbutils/_adb.py), and
``AdbDevice.open_transport`` asks the server for its version on a second
connection before every command when addressed by serial: two connections and
two sleeps per shell call. The driver only closes a connection after it has
read the reply to the end (EOF, or the shell-v2 exit packet after which the
server only closes), so no unread data can turn the close into a reset and the
sleep buys nothing; it closes at once. The server version is asked once.
Stock adbutils also spawns ``adb start-server`` on the default port when the
server does not answer; here that is an :class:`AdbServerError` instead, so a
run never silently talks to another server.
"""

from __future__ import annotations

import socket
from typing import Any

import adbutils
from adbutils.errors import AdbError, AdbTimeout

from adapters.adb.transport import (
    DeviceEntry,
    ServerAddress,
    TransportName,
    connection_lost,
    parse_devices,
    server_failure,
    server_unreachable,
    timed_out,
)
from adapters.base import ShellResult
from adapters.errors import DeviceError


class _ServerUnreachable(AdbError):  # type: ignore[misc]
    """Raised inside adbutils' code path so its own handlers cannot swallow a missing server."""


class PromptConnection(adbutils.AdbConnection):  # type: ignore[misc]
    """An adbutils connection that never starts a server, closes without sleeping, and closes on refusal."""

    def __init__(self, host: str, port: int) -> None:
        self._address = (host, port)
        super().__init__(host, port)

    def _safe_connect(self) -> socket.socket:
        # adbutils' own connect leaks the socket when the server refuses; create_connection does not.
        try:
            sock = socket.create_connection(self._address, timeout=3.0)
        except OSError as err:
            raise _ServerUnreachable(f"connect failed: {err}") from err
        sock.settimeout(None)
        return sock

    def send_command(self, cmd: str) -> None:
        try:
            super().send_command(cmd)
        except BaseException:
            self.close()
            raise

    def check_okay(self) -> None:
        # adbutils' open_transport does not close the connection when the server answers FAIL
        # (device offline, not found); closing here keeps those refusals from leaking sockets.
        try:
            super().check_okay()
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        sock: socket.socket | None = self._AdbConnection__conn  # type: ignore[has-type]
        if sock is None:
            return
        self._AdbConnection__conn = None
        sock.close()


class PromptClient(adbutils.AdbClient):  # type: ignore[misc]
    """An adbutils client handing out :class:`PromptConnection` and asking the server version once."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(host=host, port=port)
        self._version: int | None = None

    def make_connection(self, timeout: float | None = None) -> PromptConnection:
        conn = PromptConnection(self.host, self.port)
        if timeout:
            conn.conn.settimeout(timeout)
        return conn

    def server_version(self) -> int:
        if self._version is None:
            self._version = int(super().server_version())
        return self._version


class AdbutilsTransport:
    """Shell through ``shell,v2`` (real exit status), binary output through ``exec:``."""

    name: TransportName = "adbutils"

    def __init__(self, server: ServerAddress) -> None:
        self.server = server
        self._client = PromptClient(server.host, server.port)
        self._devices: dict[str, Any] = {}

    def _device(self, serial: str) -> Any:
        if serial not in self._devices:
            self._devices[serial] = adbutils.AdbDevice(self._client, serial=serial)
        return self._devices[serial]

    def _translate(self, err: BaseException, *, serial: str, command: str, timeout: float) -> DeviceError:
        if isinstance(err, _ServerUnreachable):
            return server_unreachable(self.server, str(err))
        if isinstance(err, (AdbTimeout, TimeoutError)):
            return timed_out(timeout, serial=serial, command=command)
        if isinstance(err, (EOFError, ConnectionError)):
            return connection_lost(str(err) or type(err).__name__, serial=serial, command=command)
        if isinstance(err, AdbError):
            return server_failure(str(err), serial=serial, command=command)
        return DeviceError(f"adb I/O failed: {err}", serial=serial, command=command)

    def devices(self) -> list[DeviceEntry]:
        try:
            with self._client.make_connection(timeout=10.0) as conn:
                conn.send_command("host:devices")
                conn.check_okay()
                listing: str = conn.read_string_block()
        except (AdbError, OSError, EOFError) as err:
            raise self._translate(err, serial="", command="host:devices", timeout=10.0) from err
        return parse_devices(listing)

    def shell(self, serial: str, command: str, timeout: float) -> ShellResult:
        try:
            result = self._device(serial).shell2(command, timeout=timeout, encoding=None, v2=True)
        except (AdbError, OSError, EOFError) as err:
            raise self._translate(err, serial=serial, command=command, timeout=timeout) from err
        output = bytes(result.output).decode("utf-8", "replace")
        return ShellResult(output=output, exit_code=int(result.returncode))

    def exec_out(self, serial: str, command: str, timeout: float) -> bytes:
        try:
            conn = self._device(serial).open_transport(timeout=timeout)
            try:
                conn.send_command("exec:" + command)
                conn.check_okay()
                data: bytes = conn.read_until_close(encoding=None)
            finally:
                conn.close()
        except (AdbError, OSError, EOFError) as err:
            raise self._translate(err, serial=serial, command=command, timeout=timeout) from err
        return data

    def close(self) -> None:
        self._devices.clear()
