"""Errors raised by device adapters.

Every error carries the device ``serial`` and the ``command`` that failed, so
the engine can attribute a failure without parsing messages. Messages say what
to do next. This module imports nothing from ``fsm_runner``.
"""

from __future__ import annotations


class DeviceError(Exception):
    """Base of every adapter error: something went wrong talking to a device."""

    def __init__(self, message: str, *, serial: str = "", command: str = "") -> None:
        super().__init__(message)
        self.serial = serial
        self.command = command

    def __str__(self) -> str:
        where = []
        if self.serial:
            where.append(f"device {self.serial}")
        if self.command:
            where.append(f"command {self.command!r}")
        base = super().__str__()
        return f"{base} ({', '.join(where)})" if where else base


class EnvironmentFault(DeviceError):
    """The device or its connection is unusable: an environment failure, never a test failure."""


class DeviceOfflineError(EnvironmentFault, ConnectionError):
    """The device went away or stopped answering."""


class DeviceNotFoundError(EnvironmentFault, LookupError):
    """No device with that serial is connected to the adb server."""


class AdbServerError(EnvironmentFault, ConnectionError):
    """The adb server is not running or not reachable at the given address."""


class DeviceTimeoutError(DeviceError, TimeoutError):
    """A device command did not answer within its deadline (its effect is unknown)."""


class AckLostError(DeviceTimeoutError):
    """The command was sent but its acknowledgement never came back; it may have taken effect."""


class DumpError(DeviceError):
    """``uiautomator dump`` produced no usable hierarchy (idle-state error, empty, missing file)."""

    def __init__(self, message: str, *, serial: str = "", command: str = "", output: str = "") -> None:
        super().__init__(message, serial=serial, command=command)
        self.output = output


class AppNotInstalledError(DeviceError, LookupError):
    """The package under test is not installed on the device."""

    def __init__(self, package: str, *, serial: str = "", command: str = "") -> None:
        super().__init__(
            f"package {package!r} is not installed; install the app (adb install APK) "
            "or fix the machine's package name",
            serial=serial,
            command=command,
        )
        self.package = package


class InvalidActionError(DeviceError, ValueError):
    """The action was refused before anything was sent (off-screen coordinates, bad key)."""


class TextInputError(DeviceError, ValueError):
    """The text cannot be typed safely on this device (for example, no input method for Unicode)."""
