"""A device that exists only in memory, for property tests of machine definitions.

It answers every call at once and records what it was asked to do; the
scripted roles decide what the "screen" is, so it holds no UI of its own.
"""

from __future__ import annotations

from adapters.base import AppInfo, Dump, Key, PreflightReport, ShellResult, WindowSize

_EMPTY_DUMP = (
    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
    '<hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" '
    'package="com.example.app" content-desc="" checkable="false" checked="false" clickable="false" '
    'enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" '
    'password="false" selected="false" bounds="[0,0][1080,2400]" /></hierarchy>'
)


class MemoryDevice:
    """Implements ``adapters.base.Device`` with no UI; ``actions`` lists every call made."""

    def __init__(self, serial: str = "memory-0", installed: bool = True) -> None:
        self._serial = serial
        self.installed = installed
        self.actions: list[tuple[str, ...]] = []

    @property
    def serial(self) -> str:
        return self._serial

    async def dump_hierarchy(self, *, timeout: float = 20.0) -> Dump:
        return Dump(xml=_EMPTY_DUMP, latency_ms=0.0)

    async def screenshot(self) -> bytes:
        return b""

    async def tap(self, x: int, y: int) -> None:
        self.actions.append(("tap", str(x), str(y)))

    async def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        self.actions.append(("long_press", str(x), str(y)))

    async def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        self.actions.append(("swipe", str(x1), str(y1), str(x2), str(y2)))

    async def input_text(self, text: str) -> None:
        self.actions.append(("input_text", text))

    async def press_key(self, key: Key | int) -> None:
        self.actions.append(("key", str(key)))

    async def start_app(self, package: str, activity: str | None = None) -> None:
        self.actions.append(("start_app", package))

    async def stop_app(self, package: str) -> None:
        self.actions.append(("stop_app", package))

    async def open_uri(self, uri: str) -> None:
        self.actions.append(("open_uri", uri))

    async def current_app(self) -> AppInfo:
        return AppInfo(package="com.example.app")

    async def window_size(self) -> WindowSize:
        return WindowSize(1080, 2400)

    async def rotation(self) -> int:
        return 0

    async def shell(self, command: str, *, timeout: float = 20.0) -> ShellResult:
        self.actions.append(("shell", command))
        return ShellResult(output="", exit_code=0)

    async def preflight(self, package: str) -> PreflightReport:
        return PreflightReport(
            serial=self._serial,
            package=package,
            package_version="1.0" if self.installed else None,
            animations_off=True,
            screen_on=True,
            unlocked=True,
            unicode_input=True,
        )

    async def restore(self) -> None:
        return None

    async def close(self) -> None:
        return None
