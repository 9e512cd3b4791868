"""The ``pure-python-adb`` transport: raw ``shell:`` with an exit-status marker, ``exec:`` for bytes.

ppadb speaks only the v1 shell service, which carries no exit status, so the
command is followed by ``; echo MARKER$?`` and the status is read back from the
last marker in the output. ppadb closes its sockets with SO_LINGER 0 and never
sleeps. Its failures are plain RuntimeErrors whose text names the cause.
"""

from __future__ import annotations

from typing import Any

from ppadb.client import Client

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

EXIT_MARKER = "__FSM_RC="


def split_exit_marker(raw: bytes) -> tuple[bytes, int] | None:
    """Output before the last exit marker and the status after it, or None when the marker is absent."""
    index = raw.rfind(EXIT_MARKER.encode())
    if index < 0:
        return None
    status = raw[index + len(EXIT_MARKER) :].strip()
    if not status.isdigit():
        return None
    return raw[:index], int(status)


class PpadbTransport:
    """Shell through ``shell:`` plus an exit marker, binary output through ``exec:``."""

    name: TransportName = "ppadb"

    def __init__(self, server: ServerAddress) -> None:
        self.server = server
        self._client = Client(host=server.host, port=server.port)

    def _translate(self, err: BaseException, *, serial: str, command: str, timeout: float) -> DeviceError:
        if isinstance(err, TimeoutError):
            return timed_out(timeout, serial=serial, command=command)
        message = str(err)
        if isinstance(err, RuntimeError) and "ERROR: connecting to" in message:
            return server_unreachable(self.server, message.splitlines()[0])
        if isinstance(err, RuntimeError) and message.startswith("ERROR: 'FAIL'"):
            detail = message.removeprefix("ERROR: 'FAIL'").strip()
            # The FAIL payload is length-prefixed (4 hex digits) and ppadb keeps the prefix.
            if len(detail) >= 4 and all(ch in "0123456789abcdefABCDEF" for ch in detail[:4]):
                detail = detail[4:]
            return server_failure(detail, serial=serial, command=command)
        if isinstance(err, OSError):
            return connection_lost(message or type(err).__name__, serial=serial, command=command)
        return DeviceError(f"adb I/O failed: {message}", serial=serial, command=command)

    def _read_service(self, serial: str, service: str, timeout: float, command: str) -> bytes:
        try:
            conn: Any = self._client.create_connection(timeout=timeout)
            # Switching the transport by hand (not ppadb's Device.create_connection) so that a FAIL
            # reply, which ppadb raises mid-setup, still closes the socket.
            try:
                conn.send(f"host:transport:{serial}")
                conn.send(service)
                data = bytes(conn.read_all())
            finally:
                conn.close()
        except (RuntimeError, OSError) as err:
            raise self._translate(err, serial=serial, command=command, timeout=timeout) from err
        return data

    def devices(self) -> list[DeviceEntry]:
        try:
            conn: Any = self._client.create_connection(timeout=10.0)
            try:
                conn.send("host:devices")
                listing = bytes(conn.read_all())
            finally:
                conn.close()
        except (RuntimeError, OSError) as err:
            raise self._translate(err, serial="", command="host:devices", timeout=10.0) from err
        # The reply is a 4-hex-digit length followed by the listing.
        return parse_devices(listing[4:].decode("utf-8", "replace"))

    def shell(self, serial: str, command: str, timeout: float) -> ShellResult:
        raw = self._read_service(serial, f"shell:{command}; echo {EXIT_MARKER}$?", timeout, command)
        split = split_exit_marker(raw)
        if split is None:
            raise connection_lost("no exit status came back", serial=serial, command=command)
        output, status = split
        return ShellResult(output=output.decode("utf-8", "replace"), exit_code=status)

    def exec_out(self, serial: str, command: str, timeout: float) -> bytes:
        return self._read_service(serial, "exec:" + command, timeout, command)

    def close(self) -> None:
        """Nothing to release: ppadb opens one connection per call."""
