"""The raw adb driver: ``AdbDevice`` over ``adbutils`` or ``pure-python-adb``, and its pure parts.

``find_system_popup`` / ``decide_popup_action`` work on any dump XML, so the
simulated device's users can share the popup policy.
"""

from adapters.adb.device import AdbDevice
from adapters.adb.dump import dump_with_retry, extract_hierarchy
from adapters.adb.transport import (
    DEFAULT_SERVER,
    TRANSPORT_NAMES,
    AdbTransport,
    DeviceEntry,
    ServerAddress,
    open_transport,
)
from adapters.popups import PopupAction, PopupButton, SystemPopup, decide_popup_action, find_system_popup

__all__ = [
    "DEFAULT_SERVER",
    "TRANSPORT_NAMES",
    "AdbDevice",
    "AdbTransport",
    "DeviceEntry",
    "PopupAction",
    "PopupButton",
    "ServerAddress",
    "SystemPopup",
    "decide_popup_action",
    "dump_with_retry",
    "extract_hierarchy",
    "find_system_popup",
    "open_transport",
]
