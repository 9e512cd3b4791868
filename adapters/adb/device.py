"""``AdbDevice``: the :class:`adapters.base.Device` protocol over a raw adb server connection.

Every call is one or a few shell commands sent through a blocking transport in a
worker thread. Refusals (unknown serial, off-screen point, uninstalled package,
untypeable text) are raised before anything is sent to the device.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable

from adapters.adb.dump import dump_with_retry
from adapters.adb.dumpsys import (
    oriented_size,
    parse_focus,
    parse_rotation,
    parse_settings_value,
    parse_wm_size,
)
from adapters.adb.preflight import package_installed, restore_animation_commands, run_preflight
from adapters.adb.text import (
    ADB_KEYBOARD_FIX,
    ADB_KEYBOARD_IME,
    ADB_KEYBOARD_PACKAGE,
    ime_broadcast_command,
    input_text_command,
    shell_single_quote,
    typeable_by_input_text,
)
from adapters.adb.transport import DEFAULT_SERVER, AdbTransport, ServerAddress, open_transport
from adapters.base import KEYCODES, AppInfo, Dump, Key, PopupPolicy, PreflightReport, ShellResult, WindowSize
from adapters.errors import (
    AckLostError,
    AppNotInstalledError,
    DeviceError,
    DeviceNotFoundError,
    DeviceOfflineError,
    DeviceTimeoutError,
    InvalidActionError,
    TextInputError,
)
from adapters.popups import PopupAction, decide_popup_action, find_system_popup

_PACKAGE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+")
_ACTIVITY = re.compile(r"\.?[A-Za-z0-9_$]+(\.[A-Za-z0-9_$]+)*")
_HIERARCHY_ROTATION = re.compile(r"<hierarchy[^>]*\brotation=\"(\d)\"")
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_POPUP_POLICIES: tuple[PopupPolicy, ...] = ("allow", "deny", "fail")


class AdbDevice:
    """A phone behind an adb server, driven through ``adbutils`` or ``pure-python-adb``.

    ``server`` is ``HOST:PORT`` of the adb server; ``popup_policy`` is what
    :meth:`handle_system_popup` does with a permission dialog. Malformed
    arguments raise ValueError at construction; nothing is sent until the first call.
    """

    def __init__(
        self,
        serial: str,
        transport: str = "adbutils",
        server: str = DEFAULT_SERVER,
        *,
        popup_policy: PopupPolicy = "allow",
        command_timeout: float = 20.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if popup_policy not in _POPUP_POLICIES:
            raise ValueError(f"popup_policy must be one of {_POPUP_POLICIES}, got {popup_policy!r}")
        self._serial = serial
        self._transport: AdbTransport = open_transport(transport, ServerAddress.parse(server))
        self.popup_policy: PopupPolicy = popup_policy
        self._command_timeout = command_timeout
        self._sleep = sleep
        self._clock = clock
        self._checked = False
        self._closed = False
        self._natural_size: tuple[int, int] | None = None
        self._rotation: int | None = None
        self._installed: set[str] = set()
        self._adb_keyboard: bool | None = None
        self._ime_before: str | None = None
        self._ime_switched = False
        self._animation_scales: tuple[tuple[str, str | None], ...] | None = None

    @property
    def serial(self) -> str:
        return self._serial

    @property
    def transport_name(self) -> str:
        return self._transport.name

    def __repr__(self) -> str:
        transport = self._transport
        return f"AdbDevice({self._serial!r}, transport={transport.name!r}, server='{transport.server}')"

    async def _raw_shell(self, command: str, timeout: float) -> ShellResult:
        return await asyncio.to_thread(self._transport.shell, self._serial, command, timeout)

    async def _ensure_device(self) -> None:
        """Check once that the server lists the serial as online; raise before anything else is sent."""
        if self._closed:
            raise DeviceError("the device object was closed; create a new AdbDevice", serial=self._serial)
        if self._checked:
            return
        entries = await asyncio.to_thread(self._transport.devices)
        states = {entry.serial: entry.state for entry in entries}
        if self._serial not in states:
            listed = ", ".join(f"{serial} ({state})" for serial, state in sorted(states.items())) or "none"
            raise DeviceNotFoundError(
                f"no device {self._serial!r} on the adb server at {self._transport.server}; "
                f"connected: {listed}; pick one of those or connect it (adb connect HOST:PORT)",
                serial=self._serial,
            )
        state = states[self._serial]
        if state != "device":
            fix = (
                "accept the USB debugging prompt on the device"
                if state == "unauthorized"
                else "reconnect it (adb reconnect, or adb connect HOST:PORT) or restart it"
            )
            raise DeviceOfflineError(f"device is {state!r}, not ready; {fix}", serial=self._serial)
        self._checked = True

    async def shell(self, command: str, *, timeout: float = 20.0) -> ShellResult:
        await self._ensure_device()
        return await self._raw_shell(command, timeout)

    async def _action(self, command: str) -> None:
        """Send a command that changes the device; a lost answer is AckLostError, a refusal DeviceError."""
        await self._ensure_device()
        try:
            result = await self._raw_shell(command, self._command_timeout)
        except DeviceTimeoutError as err:
            raise AckLostError(
                "the action was sent but its answer never came; re-observe before repeating it",
                serial=self._serial,
                command=command,
            ) from err
        if not result.ok:
            raise DeviceError(
                f"the device refused the action (exit {result.exit_code}): {result.output.strip()[:300]}",
                serial=self._serial,
                command=command,
            )

    async def _query(self, command: str) -> str:
        result = await self.shell(command, timeout=self._command_timeout)
        return result.output

    async def dump_hierarchy(self, *, timeout: float = 20.0) -> Dump:
        await self._ensure_device()
        dump = await dump_with_retry(
            self._raw_shell, timeout=timeout, sleep=self._sleep, clock=self._clock, serial=self._serial
        )
        match = _HIERARCHY_ROTATION.search(dump.xml[:500])
        if match:
            self._rotation = int(match.group(1)) % 4
        return dump

    async def screenshot(self) -> bytes:
        await self._ensure_device()
        command = "screencap -p"
        png = await asyncio.to_thread(self._transport.exec_out, self._serial, command, self._command_timeout)
        if not png.startswith(_PNG_SIGNATURE):
            raise DeviceError(
                f"screencap returned no PNG ({len(png)} bytes starting {png[:40]!r}); is the screen secure?",
                serial=self._serial,
                command=command,
            )
        return png

    async def _check_point(self, x: int, y: int, command: str) -> None:
        size = await self.window_size()
        if not (0 <= x < size.width and 0 <= y < size.height):
            raise InvalidActionError(
                f"point ({x}, {y}) is off the {size.width}x{size.height} screen; "
                "take coordinates from a fresh dump of the current rotation",
                serial=self._serial,
                command=command,
            )

    async def tap(self, x: int, y: int) -> None:
        command = f"input tap {int(x)} {int(y)}"
        await self._check_point(x, y, command)
        await self._action(command)

    async def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        command = f"input swipe {int(x)} {int(y)} {int(x)} {int(y)} {int(duration_ms)}"
        if duration_ms < 1:
            raise InvalidActionError("a long press needs duration_ms >= 1", serial=self._serial, command=command)
        await self._check_point(x, y, command)
        await self._action(command)

    async def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        command = f"input swipe {int(x1)} {int(y1)} {int(x2)} {int(y2)} {int(duration_ms)}"
        if duration_ms < 1:
            raise InvalidActionError("a swipe needs duration_ms >= 1", serial=self._serial, command=command)
        await self._check_point(x1, y1, command)
        await self._check_point(x2, y2, command)
        await self._action(command)

    async def _has_adb_keyboard(self) -> bool:
        if self._adb_keyboard is None:
            await self._ensure_device()
            self._adb_keyboard = await package_installed(self._raw_shell, ADB_KEYBOARD_PACKAGE)
        return self._adb_keyboard

    async def _select_adb_keyboard(self) -> None:
        """Make the ADB keyboard the input method, remembering the previous one for :meth:`restore`."""
        if self._ime_switched:
            return
        current = parse_settings_value(await self._query("settings get secure default_input_method"))
        if current != ADB_KEYBOARD_IME:
            await self._action(f"ime enable {ADB_KEYBOARD_IME}")
            await self._action(f"ime set {ADB_KEYBOARD_IME}")
            self._ime_before = current
        self._ime_switched = True

    async def input_text(self, text: str) -> None:
        """Type ``text`` exactly: ``input text`` for printable ASCII, the ADB-keyboard IME for the rest.

        Reading the value back is the caller's job (from a fresh dump). Raises
        TextInputError before sending anything when the IME is needed but missing.
        """
        if not text:
            return
        if typeable_by_input_text(text):
            await self._action(input_text_command(text))
            return
        command = ime_broadcast_command(text)
        if not await self._has_adb_keyboard():
            raise TextInputError(
                f"{text[:40]!r} needs the ADB keyboard (non-ASCII or special characters); {ADB_KEYBOARD_FIX}",
                serial=self._serial,
                command=command,
            )
        await self._select_adb_keyboard()
        await self._action(command)

    async def press_key(self, key: Key | int) -> None:
        if isinstance(key, int):
            code = key
        elif key in KEYCODES:
            code = KEYCODES[key]
        else:
            raise InvalidActionError(
                f"unknown key {key!r}; use one of {', '.join(KEYCODES)} or an Android key code",
                serial=self._serial,
                command="input keyevent",
            )
        if not 0 <= code <= 400:
            raise InvalidActionError(
                f"key code {code} is outside Android's range 0-400",
                serial=self._serial,
                command="input keyevent",
            )
        await self._action(f"input keyevent {code}")

    def _check_package_name(self, package: str, command: str) -> None:
        if not _PACKAGE.fullmatch(package):
            raise InvalidActionError(
                f"{package!r} is not an Android package name (like com.example.app)",
                serial=self._serial,
                command=command,
            )

    async def _require_installed(self, package: str, command: str) -> None:
        self._check_package_name(package, command)
        if package in self._installed:
            return
        await self._ensure_device()
        if not await package_installed(self._raw_shell, package):
            raise AppNotInstalledError(package, serial=self._serial, command=command)
        self._installed.add(package)

    async def start_app(self, package: str, activity: str | None = None) -> None:
        if activity is None:
            command = f"monkey -p {package} -c android.intent.category.LAUNCHER 1"
        else:
            command = f"am start -n {package}/{activity}"
            if not _ACTIVITY.fullmatch(activity):
                raise InvalidActionError(
                    f"{activity!r} is not an activity class name", serial=self._serial, command=command
                )
        await self._require_installed(package, command)
        await self._action(command)

    async def stop_app(self, package: str) -> None:
        command = f"am force-stop {package}"
        self._check_package_name(package, command)
        await self._action(command)

    async def open_uri(self, uri: str) -> None:
        command = f"am start -a android.intent.action.VIEW -d {shell_single_quote(uri)}"
        if not uri or any(ch in uri for ch in "\r\n\0"):
            raise InvalidActionError(f"{uri!r} is not a URI", serial=self._serial, command=command)
        await self._action(command)

    async def current_app(self) -> AppInfo:
        output = await self._query("dumpsys window")
        info = parse_focus(output)
        if info is None:
            raise DeviceError(
                "dumpsys window named no focused app (mCurrentFocus / mFocusedApp missing)",
                serial=self._serial,
                command="dumpsys window",
            )
        return info

    async def rotation(self) -> int:
        for command in ("dumpsys display", "dumpsys input"):
            rotation = parse_rotation(await self._query(command))
            if rotation is not None:
                self._rotation = rotation
                return rotation
        raise DeviceError("neither dumpsys display nor dumpsys input reported a rotation", serial=self._serial)

    async def window_size(self) -> WindowSize:
        """The size in the current rotation; the natural size is asked once, rotation refreshed by dumps."""
        if self._natural_size is None:
            output = await self._query("wm size")
            try:
                self._natural_size = parse_wm_size(output)
            except ValueError as err:
                raise DeviceError(str(err), serial=self._serial, command="wm size") from err
        rotation = self._rotation if self._rotation is not None else await self.rotation()
        return oriented_size(self._natural_size, rotation)

    async def handle_system_popup(self, xml: str) -> PopupAction | None:
        """Act on a system permission dialog in ``xml`` by ``popup_policy``; None when there is none."""
        popup = find_system_popup(xml)
        if popup is None:
            return None
        action = decide_popup_action(popup, self.popup_policy)
        if action.bounds is not None:
            x1, y1, x2, y2 = action.bounds
            await self.tap((x1 + x2) // 2, (y1 + y2) // 2)
        return action

    async def preflight(self, package: str) -> PreflightReport:
        await self._ensure_device()
        outcome = await run_preflight(self._raw_shell, serial=self._serial, package=package)
        if self._animation_scales is None:
            self._animation_scales = outcome.previous_animation_scales
        self._adb_keyboard = outcome.report.unicode_input
        if outcome.report.package_version is not None or package in self._installed:
            self._installed.add(package)
        return outcome.report

    async def restore(self) -> None:
        """Put back the animation scales and the input method preflight and typing changed."""
        if self._closed or (self._animation_scales is None and not self._ime_switched):
            return
        await self._ensure_device()
        for command in restore_animation_commands(self._animation_scales or ()):
            await self._raw_shell(command, self._command_timeout)
        self._animation_scales = None
        if self._ime_switched and self._ime_before is not None:
            await self._raw_shell(f"ime set {shell_single_quote(self._ime_before)}", self._command_timeout)
        self._ime_switched = False
        self._ime_before = None

    async def close(self) -> None:
        self._closed = True
        self._transport.close()
