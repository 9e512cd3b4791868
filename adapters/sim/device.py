"""``SimDevice``: the :class:`~adapters.base.Device` protocol over an in-process :class:`SimPhone`, no adb."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import attrs

from adapters.base import KEYCODES, AppInfo, Dump, Key, PreflightReport, ShellResult, WindowSize
from adapters.errors import DeviceError, DeviceOfflineError, DumpError, InvalidActionError, TextInputError
from adapters.sim.keyboard import ADB_IME_ID
from adapters.sim.phone import LONG_PRESS_MS, SimPhone
from adapters.sim.shell import DeviceShell, ShellOutput
from adapters.sim.sync import DeviceFilesystem
from adapters.sim.windows import ADB_IME

Sleep = Callable[[float], Awaitable[None]]

_ANIMATION_SCALES = ("window_animation_scale", "transition_animation_scale", "animator_duration_scale")
_ADB_KEYBOARD_FIX = (
    "install the ADB keyboard (com.android.adbkeyboard) and enable it with "
    f"`adb shell ime enable {ADB_IME_ID} && adb shell ime set {ADB_IME_ID}`"
)


@attrs.frozen
class Latency:
    """How long each kind of call takes on the simulated device, in seconds (all zero by default).

    Real phones take about 1-2 s per ``uiautomator dump`` and 0.1 s per input event.
    """

    dump_s: float = attrs.field(default=0.0, validator=attrs.validators.ge(0.0))
    screenshot_s: float = attrs.field(default=0.0, validator=attrs.validators.ge(0.0))
    tap_s: float = attrs.field(default=0.0, validator=attrs.validators.ge(0.0))
    swipe_s: float = attrs.field(default=0.0, validator=attrs.validators.ge(0.0))
    text_s: float = attrs.field(default=0.0, validator=attrs.validators.ge(0.0))
    key_s: float = attrs.field(default=0.0, validator=attrs.validators.ge(0.0))
    app_s: float = attrs.field(default=0.0, validator=attrs.validators.ge(0.0))
    shell_s: float = attrs.field(default=0.0, validator=attrs.validators.ge(0.0))


NO_LATENCY = Latency()


def _typeable_by_input_text(text: str) -> bool:
    return all(" " <= ch <= "~" or ch in "\n\t" for ch in text)


class SimDevice:
    """A :class:`~adapters.base.Device` that drives a :class:`SimPhone` directly.

    Waiting (latencies, dump retry backoff) goes through the injected async ``sleep``;
    dump timeouts are measured on ``now`` (default: the phone's clock), so a test can
    pass a ``sleep`` that advances a fake clock and run without real waiting.
    """

    def __init__(self, phone: SimPhone, *, latency: Latency = NO_LATENCY, sleep: Sleep = asyncio.sleep,
                 now: Callable[[], float] | None = None, dump_backoff_s: float = 0.25) -> None:
        self.phone = phone
        self.latency = latency
        self._sleep = sleep
        self._now = now or phone.clock
        self._backoff = dump_backoff_s
        self._fs = DeviceFilesystem(now=self._now)
        self._saved: dict[tuple[str, str], str | None] = {}
        self._closed = False

    @property
    def serial(self) -> str:
        return self.phone.serial

    def _ensure_open(self) -> None:
        if self._closed:
            raise DeviceOfflineError("the device was closed; create a new SimDevice", serial=self.serial)

    async def _wait(self, seconds: float) -> None:
        self._ensure_open()
        if seconds > 0:
            await self._sleep(seconds)

    async def dump_hierarchy(self, *, timeout: float = 20.0) -> Dump:
        """Dump the hierarchy, retrying idle-state errors and empty output with doubling backoff."""
        start = self._now()
        attempts = 0
        delay = self._backoff
        while True:
            attempts += 1
            await self._wait(self.latency.dump_s)
            outcome = self.phone.ui_dump()
            if outcome.xml is not None:
                return Dump(outcome.xml, latency_ms=(self._now() - start) * 1000.0, attempts=attempts)
            elapsed = self._now() - start
            if elapsed + delay > timeout:
                shown = outcome.error or "empty output"
                raise DumpError(
                    f"uiautomator dump failed {attempts} times in {elapsed:.1f}s (last: {shown}); "
                    "the screen may be animating: disable animations or raise the dump timeout",
                    serial=self.serial, command="uiautomator dump", output=outcome.error,
                )
            await self._sleep(delay)
            delay = min(delay * 2, 2.0)

    async def screenshot(self) -> bytes:
        await self._wait(self.latency.screenshot_s)
        return self.phone.screencap_png()

    def _check_point(self, x: int, y: int, command: str) -> None:
        self._ensure_open()
        width, height = self.phone.window_size()
        if not (0 <= x < width and 0 <= y < height):
            raise InvalidActionError(f"point ({x}, {y}) is outside the {width}x{height} screen; re-observe",
                                     serial=self.serial, command=command)

    async def tap(self, x: int, y: int) -> None:
        self._check_point(x, y, f"input tap {x} {y}")
        await self._wait(self.latency.tap_s)
        self.phone.tap(x, y)

    async def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        command = f"input swipe {x} {y} {x} {y} {duration_ms}"
        self._check_point(x, y, command)
        if duration_ms < LONG_PRESS_MS:
            raise InvalidActionError(f"a long press must last at least {LONG_PRESS_MS} ms, not {duration_ms}",
                                     serial=self.serial, command=command)
        await self._wait(self.latency.swipe_s + duration_ms / 1000.0)
        self.phone.swipe(x, y, x, y, duration_ms)

    async def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        command = f"input swipe {x1} {y1} {x2} {y2} {duration_ms}"
        self._check_point(x1, y1, command)
        self._check_point(x2, y2, command)
        if duration_ms <= 0:
            raise InvalidActionError("a swipe needs a positive duration", serial=self.serial, command=command)
        await self._wait(self.latency.swipe_s + duration_ms / 1000.0)
        self.phone.swipe(x1, y1, x2, y2, duration_ms)

    def _adb_keyboard_selected(self) -> bool:
        return (ADB_IME in self.phone.packages()
                and self.phone.settings_get("secure", "default_input_method") == ADB_IME_ID)

    async def input_text(self, text: str) -> None:
        """Type ``text`` exactly: through the ADB keyboard when it is selected, else with ``input text``.

        ``input text`` can only type printable ASCII; anything else raises TextInputError
        naming the fix. A literal ``%s`` is split so that Android does not turn it into a space.
        """
        await self._wait(self.latency.text_s)
        if not text:
            return
        if self._adb_keyboard_selected():
            self.phone.ime_commit_text(text)
            return
        if not _typeable_by_input_text(text):
            raise TextInputError(f"{text!r} has characters `input text` cannot type; {_ADB_KEYBOARD_FIX}",
                                 serial=self.serial, command="input text")
        pieces = text.split("%s")
        for i, piece in enumerate(pieces):
            if i:
                self.phone.input_text("%")
                piece = "s" + piece
            if piece:
                self.phone.input_text(piece)

    async def press_key(self, key: Key | int) -> None:
        if isinstance(key, str):
            if key not in KEYCODES:
                raise InvalidActionError(f"unknown key {key!r}; use one of {sorted(KEYCODES)}",
                                         serial=self.serial, command="input keyevent")
            code = KEYCODES[key]
        else:
            code = key
        if code < 0:
            raise InvalidActionError(f"key code {code} is negative", serial=self.serial, command="input keyevent")
        await self._wait(self.latency.key_s)
        self.phone.keyevent(code)

    async def start_app(self, package: str, activity: str | None = None) -> None:
        await self._wait(self.latency.app_s)
        self.phone.start_activity(package, activity)

    async def stop_app(self, package: str) -> None:
        await self._wait(self.latency.app_s)
        self.phone.force_stop(package)

    async def open_uri(self, uri: str) -> None:
        await self._wait(self.latency.app_s)
        self.phone.start_activity("", None, uri)

    async def current_app(self) -> AppInfo:
        await self._wait(0.0)
        package, activity = self.phone.current_focus()
        return AppInfo(package, activity)

    async def window_size(self) -> WindowSize:
        await self._wait(0.0)
        return WindowSize(*self.phone.window_size())

    async def rotation(self) -> int:
        await self._wait(0.0)
        return self.phone.rotation()

    async def shell(self, command: str, *, timeout: float = 20.0) -> ShellResult:
        """Run ``command`` in the simulated device shell (the same one the emulated adb daemon serves)."""
        await self._wait(self.latency.shell_s)
        output = ShellOutput()
        session = DeviceShell(self.phone, self._fs, output)
        try:
            code = await asyncio.wait_for(session.run(command), timeout)
        except TimeoutError as err:
            raise DeviceError(f"shell command did not finish within {timeout}s", serial=self.serial,
                              command=command) from err
        return ShellResult(output.merged().decode("utf-8", "replace"), code)

    async def preflight(self, package: str) -> PreflightReport:
        """Check and prepare the phone: reachable, app installed, animations off, awake, unlocked.

        Animation scales (and the input method, when the ADB keyboard is installed but not
        selected) are changed here and put back by :meth:`restore`.
        """
        await self._wait(0.0)
        problems: list[str] = []
        if not self.phone.online:
            return PreflightReport(self.serial, package, None, False, False, False, False,
                                   ("device is offline; reconnect it and retry",))
        version = self.phone.packages().get(package)
        if version is None:
            problems.append(f"package {package!r} is not installed; install the app or fix the package name")
        for name in _ANIMATION_SCALES:
            self._remember("global", name)
            self.phone.settings_put("global", name, "0")
        animations_off = all(self.phone.settings_get("global", n) in ("0", "0.0") for n in _ANIMATION_SCALES)
        if not self.phone.screen_on():
            self.phone.keyevent(KEYCODES["WAKEUP"])
        if self.phone.locked():
            width, height = self.phone.window_size()
            self.phone.swipe(width // 2, height * 4 // 5, width // 2, height // 5, 300)
        screen_on, unlocked = self.phone.screen_on(), not self.phone.locked()
        if not screen_on:
            problems.append("screen is off and did not wake; press POWER on the device")
        if not unlocked:
            problems.append("screen is locked; unlock it (remove the PIN for test devices)")
        unicode_input = ADB_IME in self.phone.packages()
        if unicode_input and not self._adb_keyboard_selected():
            self._remember("secure", "default_input_method")
            self.phone.settings_put("secure", "default_input_method", ADB_IME_ID)
        return PreflightReport(self.serial, package, version, animations_off, screen_on, unlocked, unicode_input,
                               tuple(problems))

    def _remember(self, namespace: str, key: str) -> None:
        if (namespace, key) not in self._saved:
            self._saved[(namespace, key)] = self.phone.settings_get(namespace, key)

    async def restore(self) -> None:
        """Put back every setting preflight changed; a second call finds nothing to restore."""
        await self._wait(0.0)
        for (namespace, key), value in list(self._saved.items()):
            self.phone.settings_put(namespace, key, value if value is not None else "1.0")
            del self._saved[(namespace, key)]

    async def recent_toasts(self) -> tuple[str, ...]:
        """Toasts the phone showed lately (``adapters.base.ToastSource``): the dump never holds them."""
        self._ensure_open()
        return tuple(self.phone.recent_toasts())

    async def close(self) -> None:
        self._closed = True
