"""The ``Device`` protocol and the plain value types it returns.

The engine knows devices only through this protocol. Every method is a
coroutine so that many devices can be driven from one event loop; an
implementation backed by a blocking client runs it in a worker thread.
Implementations raise only :mod:`adapters.errors` exceptions.
"""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

import attrs

Key = Literal["BACK", "HOME", "ENTER", "DEL", "TAB", "MENU", "APP_SWITCH", "POWER", "WAKEUP"]

#: Android key codes for the named keys the engine uses.
KEYCODES: dict[str, int] = {
    "HOME": 3,
    "BACK": 4,
    "POWER": 26,
    "TAB": 61,
    "ENTER": 66,
    "DEL": 67,
    "MENU": 82,
    "APP_SWITCH": 187,
    "WAKEUP": 224,
}

PopupPolicy = Literal["allow", "deny", "fail"]


@attrs.frozen
class ShellResult:
    """Output of a shell command (stdout and stderr merged) and its exit status."""

    output: str
    exit_code: int

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


@attrs.frozen
class AppInfo:
    """The app in the foreground: its package and, when known, its activity."""

    package: str
    activity: str | None = None


@attrs.frozen
class WindowSize:
    """Display size in pixels, as ``wm size`` reports it for the current rotation."""

    width: int = attrs.field(validator=attrs.validators.gt(0))
    height: int = attrs.field(validator=attrs.validators.gt(0))


@attrs.frozen
class Dump:
    """One hierarchy dump: the XML text, how long it took, and how many attempts it needed."""

    xml: str
    latency_ms: float
    attempts: int = 1


@attrs.frozen
class PreflightReport:
    """What INIT learned about the device before a run; ``problems`` empty means ready."""

    serial: str
    package: str
    package_version: str | None
    animations_off: bool
    screen_on: bool
    unlocked: bool
    unicode_input: bool
    problems: tuple[str, ...] = ()

    @property
    def ready(self) -> bool:
        return not self.problems


@runtime_checkable
class Device(Protocol):
    """A phone the engine can drive.

    Contract: coordinates are pixels in the current rotation; actions are
    refused with :class:`~adapters.errors.InvalidActionError` before anything
    is sent when they cannot be valid; a lost device raises
    :class:`~adapters.errors.DeviceOfflineError`; an action whose
    acknowledgement was lost raises :class:`~adapters.errors.AckLostError`
    (the caller must re-observe before repeating it).
    """

    @property
    def serial(self) -> str:
        """The adb serial (or the simulated device's name)."""
        ...

    async def dump_hierarchy(self, *, timeout: float = 20.0) -> Dump:
        """Return a ``uiautomator dump`` of the current screen, retrying bad dumps within ``timeout``."""
        ...

    async def screenshot(self) -> bytes:
        """Return a PNG screenshot of the current screen."""
        ...

    async def tap(self, x: int, y: int) -> None:
        """Tap at a point."""
        ...

    async def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        """Press and hold at a point."""
        ...

    async def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        """Swipe from one point to another."""
        ...

    async def input_text(self, text: str) -> None:
        """Type ``text`` exactly into the focused field; never lets it reach a shell unescaped."""
        ...

    async def press_key(self, key: Key | int) -> None:
        """Send one key event, by name or Android key code."""
        ...

    async def start_app(self, package: str, activity: str | None = None) -> None:
        """Launch an app (its launcher activity unless one is named)."""
        ...

    async def stop_app(self, package: str) -> None:
        """Force-stop an app."""
        ...

    async def open_uri(self, uri: str) -> None:
        """Open a deep link with the VIEW intent."""
        ...

    async def current_app(self) -> AppInfo:
        """The foreground package and activity."""
        ...

    async def window_size(self) -> WindowSize:
        """The display size in the current rotation."""
        ...

    async def rotation(self) -> int:
        """The display rotation: 0, 1, 2 or 3 (quarter turns)."""
        ...

    async def shell(self, command: str, *, timeout: float = 20.0) -> ShellResult:
        """Run a shell command and return its output and exit status."""
        ...

    async def preflight(self, package: str) -> PreflightReport:
        """Check the device is ready to test ``package``: reachable, installed, animations off."""
        ...

    async def restore(self) -> None:
        """Undo what preflight changed (animation scales); safe to call twice."""
        ...

    async def close(self) -> None:
        """Release connections; the device object is unusable afterwards."""
        ...


class ToastSource(Protocol):
    """Optional capability of a device: the texts of toasts shown lately.

    Toasts never appear in a ``uiautomator dump``; a device that can see them
    (the simulated one) offers this, and the observer adds them to each observation.
    """

    async def recent_toasts(self) -> tuple[str, ...]:
        """Toast texts shown in the last few seconds, oldest first."""
        ...
