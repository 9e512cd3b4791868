"""The small interface both adb client libraries sit behind, and what their failures mean.

A transport is blocking: the device runs its calls in a worker thread. It speaks
to one adb server and can list devices, run a shell command with its exit status,
and stream a command's raw stdout (``exec:``). Failures come out as
:mod:`adapters.errors` exceptions carrying the serial and the command.
"""

from __future__ import annotations

from typing import Literal, Protocol

import attrs

from adapters.base import ShellResult
from adapters.errors import (
    AdbServerError,
    DeviceError,
    DeviceNotFoundError,
    DeviceOfflineError,
    DeviceTimeoutError,
)

TransportName = Literal["adbutils", "ppadb"]
TRANSPORT_NAMES: tuple[TransportName, ...] = ("adbutils", "ppadb")
DEFAULT_SERVER = "127.0.0.1:5037"


@attrs.frozen
class ServerAddress:
    """Where the adb server listens."""

    host: str
    port: int = attrs.field(validator=[attrs.validators.ge(1), attrs.validators.le(65535)])

    @classmethod
    def parse(cls, text: str) -> ServerAddress:
        """``HOST:PORT`` (or just ``PORT``, meaning 127.0.0.1); raises ValueError for anything else."""
        host, sep, port = text.strip().rpartition(":")
        if not sep:
            host = "127.0.0.1"
        if not port.isdigit():
            raise ValueError(f"adb server address must be HOST:PORT, got {text!r}")
        return cls(host=host or "127.0.0.1", port=int(port))

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


@attrs.frozen
class DeviceEntry:
    """One line of ``adb devices``: a serial and its state (device, offline, unauthorized, ...)."""

    serial: str
    state: str


class AdbTransport(Protocol):
    """Blocking access to devices through one adb server."""

    name: TransportName
    server: ServerAddress

    def devices(self) -> list[DeviceEntry]:
        """Every device the server knows, in any state; AdbServerError when the server is not there."""
        ...

    def shell(self, serial: str, command: str, timeout: float) -> ShellResult:
        """Run ``command`` in the device shell; output is stdout and stderr merged, decoded as UTF-8."""
        ...

    def exec_out(self, serial: str, command: str, timeout: float) -> bytes:
        """Run ``command`` through the ``exec:`` service and return its stdout bytes untouched."""
        ...

    def close(self) -> None:
        """Release what the transport holds; idempotent."""
        ...


def server_unreachable(server: ServerAddress, reason: str) -> AdbServerError:
    """The error for an adb server that does not answer, naming both fixes."""
    return AdbServerError(
        f"no adb server answers at {server} ({reason}); start one with `adb -P {server.port} start-server` "
        "or point fsm-runner at a running one with --adb-server HOST:PORT"
    )


def server_failure(message: str, *, serial: str, command: str) -> DeviceError:
    """Translate a FAIL reply of the adb server (``device 'x' not found``, ``device offline``)."""
    lowered = message.lower()
    if "not found" in lowered or "no devices" in lowered:
        return DeviceNotFoundError(
            f"adb server: {message}; check `adb devices` and connect the device (adb connect HOST:PORT)",
            serial=serial,
            command=command,
        )
    if "unauthorized" in lowered:
        return DeviceOfflineError(
            f"adb server: {message}; accept the USB debugging prompt on the device",
            serial=serial,
            command=command,
        )
    if "offline" in lowered or "closed" in lowered:
        return DeviceOfflineError(
            f"adb server: {message}; reconnect the device (adb reconnect) or restart it",
            serial=serial,
            command=command,
        )
    return DeviceError(f"adb server refused the request: {message}", serial=serial, command=command)


def timed_out(timeout: float, *, serial: str, command: str) -> DeviceTimeoutError:
    """The error for a command that sent no complete answer within ``timeout`` seconds."""
    return DeviceTimeoutError(
        f"no complete answer within {timeout:.1f} s; the device may be busy or hung",
        serial=serial,
        command=command,
    )


def connection_lost(reason: str, *, serial: str, command: str) -> DeviceOfflineError:
    """The error for a stream that ended before the command finished."""
    return DeviceOfflineError(
        f"the connection to the device ended before the command finished ({reason}); "
        "check the device is still listed by `adb devices`",
        serial=serial,
        command=command,
    )


def parse_devices(listing: str) -> list[DeviceEntry]:
    """Entries of a ``host:devices`` reply (``SERIAL\\tSTATE`` lines)."""
    entries = []
    for line in listing.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            entries.append(DeviceEntry(serial=parts[0], state=parts[1]))
    return entries


def open_transport(name: str, server: ServerAddress) -> AdbTransport:
    """The transport called ``name`` (``adbutils`` or ``ppadb``); ValueError for any other name."""
    if name == "adbutils":
        from adapters.adb.adbutils_transport import AdbutilsTransport

        return AdbutilsTransport(server)
    if name == "ppadb":
        from adapters.adb.ppadb_transport import PpadbTransport

        return PpadbTransport(server)
    raise ValueError(f"unknown adb transport {name!r}; use one of {', '.join(TRANSPORT_NAMES)}")
