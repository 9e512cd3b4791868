"""Parsers for what ``dumpsys``, ``wm``, ``pm`` and ``settings`` print on real devices.

Pure functions over text; each returns ``None`` (or raises ``ValueError``) when the
output does not say what was asked, so the caller decides what that means.
"""

from __future__ import annotations

import re

from adapters.base import AppInfo, WindowSize

_SIZE = re.compile(r"(Physical|Override) size:\s*(\d+)\s*x\s*(\d+)")
_COMPONENT = re.compile(r"\bu\d+\s+([A-Za-z0-9_.]+)/([A-Za-z0-9_.$]+)")
_ROTATION_PATTERNS = (
    re.compile(r"mCurrentOrientation=(\d)"),
    re.compile(r"SurfaceOrientation:\s*(\d)"),
    re.compile(r"mRotation=(\d)"),
    re.compile(r"\brotation[ =](\d)\b"),
)
_ROTATION_DEGREES = re.compile(r"ROTATION_(0|90|180|270)\b")
_VERSION_NAME = re.compile(r"versionName=(\S+)")
_TRUE_FALSE = r"=(true|false)"


def parse_wm_size(output: str) -> tuple[int, int]:
    """Natural-orientation size from ``wm size``; an override size wins over the physical one."""
    sizes = {kind: (int(w), int(h)) for kind, w, h in _SIZE.findall(output)}
    size = sizes.get("Override") or sizes.get("Physical")
    if size is None:
        raise ValueError(f"no size in wm size output: {output.strip()[:200]!r}")
    return size


def oriented_size(natural: tuple[int, int], rotation: int) -> WindowSize:
    """The display size as the user sees it: width and height swap at quarter turns 1 and 3."""
    width, height = natural
    if rotation % 2:
        width, height = height, width
    return WindowSize(width=width, height=height)


def parse_rotation(output: str) -> int | None:
    """Rotation 0-3 from ``dumpsys display`` or ``dumpsys input`` text, or None."""
    for pattern in _ROTATION_PATTERNS:
        match = pattern.search(output)
        if match and int(match.group(1)) in (0, 1, 2, 3):
            return int(match.group(1))
    match = _ROTATION_DEGREES.search(output)
    if match:
        return int(match.group(1)) // 90
    return None


def _component(line_value: str) -> AppInfo | None:
    match = _COMPONENT.search(line_value)
    if not match:
        return None
    package, activity = match.groups()
    if activity.startswith("."):
        activity = package + activity
    return AppInfo(package=package, activity=activity)


def parse_focus(dumpsys_window: str) -> AppInfo | None:
    """Foreground app from ``dumpsys window``: mCurrentFocus when it names an activity, else mFocusedApp.

    The activity is the fully qualified class name (``.Login`` is expanded with the package).
    """
    found: dict[str, AppInfo] = {}
    for line in dumpsys_window.splitlines():
        for key in ("mCurrentFocus", "mFocusedApp"):
            if key not in found and f"{key}=" in line:
                info = _component(line.split(f"{key}=", 1)[1])
                if info is not None:
                    found[key] = info
    return found.get("mCurrentFocus") or found.get("mFocusedApp")


def parse_version_name(dumpsys_package: str) -> str | None:
    """The first ``versionName=`` in ``dumpsys package PKG`` output, or None."""
    match = _VERSION_NAME.search(dumpsys_package)
    return match.group(1) if match else None


def package_listed(pm_list_output: str, package: str) -> bool:
    """True when ``pm list packages`` output holds exactly ``package`` (the filter matches substrings)."""
    return any(line.strip() == f"package:{package}" for line in pm_list_output.splitlines())


def ime_listed(ime_list_output: str, ime_id: str) -> bool:
    """True when ``ime list -s`` (or ``-a -s``) output holds ``ime_id``."""
    return any(line.strip() == ime_id for line in ime_list_output.splitlines())


def parse_settings_value(output: str) -> str | None:
    """The value ``settings get`` printed; ``null`` (unset) becomes None."""
    value = output.strip()
    return None if value in ("", "null") else value


def _flag(text: str, name: str) -> bool | None:
    match = re.search(re.escape(name) + _TRUE_FALSE, text)
    return None if match is None else match.group(1) == "true"


def parse_screen_on(dumpsys_text: str) -> bool | None:
    """Whether the screen is on, from ``dumpsys power`` or ``dumpsys window`` text, or None if unsaid."""
    wakefulness = re.search(r"mWakefulness=(\w+)", dumpsys_text)
    if wakefulness:
        return wakefulness.group(1) == "Awake"
    display = re.search(r"Display Power: state=(\w+)", dumpsys_text)
    if display:
        return display.group(1) == "ON"
    for name in ("mInteractive", "mScreenOn", "mAwake", "mScreenOnFully"):
        value = _flag(dumpsys_text, name)
        if value is not None:
            return value
    return None


def parse_locked(dumpsys_text: str) -> bool | None:
    """Whether the keyguard is showing, from ``dumpsys window`` or ``dumpsys power`` text, or None."""
    flags = [
        _flag(dumpsys_text, name)
        for name in ("mDreamingLockscreen", "isStatusBarKeyguard", "mShowingLockscreen", "mKeyguardShowing")
    ]
    known = [flag for flag in flags if flag is not None]
    return any(known) if known else None
