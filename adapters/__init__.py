"""Devices: the ``Device`` protocol, its errors, the adb driver and the simulated device."""

from adapters.base import (
    KEYCODES,
    AppInfo,
    Device,
    Dump,
    Key,
    PopupPolicy,
    PreflightReport,
    ShellResult,
    WindowSize,
)
from adapters.errors import (
    AckLostError,
    AdbServerError,
    AppNotInstalledError,
    DeviceError,
    DeviceNotFoundError,
    DeviceOfflineError,
    DeviceTimeoutError,
    DumpError,
    EnvironmentFault,
    InvalidActionError,
    TextInputError,
)

__all__ = [
    "KEYCODES",
    "AckLostError",
    "AdbServerError",
    "AppInfo",
    "AppNotInstalledError",
    "Device",
    "DeviceError",
    "DeviceNotFoundError",
    "DeviceOfflineError",
    "DeviceTimeoutError",
    "Dump",
    "DumpError",
    "EnvironmentFault",
    "InvalidActionError",
    "Key",
    "PopupPolicy",
    "PreflightReport",
    "ShellResult",
    "TextInputError",
    "WindowSize",
]
