"""``SimPhone``: a simulated Android phone running Demo Shop, driven by raw input events.

This is the contract the in-process ``SimDevice`` and the emulated adb daemon's
shell code against. Every public method first checks the offline fault (raising
:class:`~adapters.errors.DeviceOfflineError`) and then runs the timers that are due,
so time only moves when the injected clock says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import attrs

from adapters.errors import AckLostError, AppNotInstalledError, DeviceOfflineError, InvalidActionError
from adapters.sim.demo_shop.app import PACKAGE, VERSION, DemoShopApp, resolve_activity
from adapters.sim.demo_shop.screens import Screen, app_windows
from adapters.sim.demo_shop.state import CATALOGUE, ShopState
from adapters.sim.demo_shop.strings import Strings
from adapters.sim.faults import FaultEvent, FaultInjector, Faults
from adapters.sim.hierarchy_xml import hierarchy_xml
from adapters.sim.keyboard import ADB_IME_ID, LATIN_IME_ID, adb_keyboard, latin_keyboard
from adapters.sim.render import render_png
from adapters.sim.system_windows import (
    LAUNCHER_ACTIVITY,
    PERMISSION_ACTIVITY,
    keyguard,
    launcher,
    permission_dialog,
    status_bar,
)
from adapters.sim.timers import Timers
from adapters.sim.windows import (
    ADB_IME,
    LATIN_IME,
    LAUNCHER,
    PERMISSION_CONTROLLER,
    SETTINGS,
    SYSTEMUI,
    Window,
    scroll_target,
    touch_target,
)

IDLE_STATE_ERROR = "ERROR: could not get idle state"
TOAST_SHOWN_S = 2.0
LONG_PRESS_MS = 500
TOUCH_SLOP_PX = 16

KEY_HOME, KEY_BACK, KEY_POWER, KEY_ENTER, KEY_DEL, KEY_WAKEUP = 3, 4, 26, 66, 67, 224

NO_FAULTS = Faults()

_ANIMATION_SCALES = ("window_animation_scale", "transition_animation_scale", "animator_duration_scale")


@attrs.frozen
class DumpOutcome:
    """What ``uiautomator dump`` produced: the XML, or None with the text the shell prints instead."""

    xml: str | None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.xml is not None


def _check_typeable(text: str) -> None:
    """Refuse what Android's ``input text`` cannot map to key events on the virtual keyboard."""
    for ch in text:
        if not (" " <= ch <= "~" or ch in "\n\t"):
            raise ValueError(
                "Exception occurred while executing 'text':\n"
                f"java.lang.IllegalArgumentException: Unable to map character {ch!r} (U+{ord(ch):04X}) "
                "to a key event on the virtual keyboard"
            )


class SimPhone:
    """A phone with a launcher, system UI, two keyboards, and Demo Shop; inspectable and fault-injectable."""

    def __init__(self, *, serial: str = "sim-0", locale: str = "en", faults: Faults = NO_FAULTS, seed: int = 0,
                 now: Callable[[], float] = time.monotonic, width: int = 1080, height: int = 2400,
                 adb_keyboard: bool = False) -> None:
        if width <= 0 or height <= 0:
            raise ValueError(f"display size must be positive, got {width}x{height}")
        self.serial = serial
        self.locale = locale
        self._shop = ShopState()
        self.timers = Timers(now)
        self.injector = FaultInjector(faults, seed, now)
        self._now = now
        self._born = now()
        self._strings = Strings(locale)
        self._screen = Screen(width, height)
        self.app = DemoShopApp(self._shop, self._strings, self)
        self._foreground = LAUNCHER
        self._toasts: list[tuple[float, str]] = []
        self.notification_permission: str | None = None
        self._screen_on = True
        self._locked = False
        self._adb_keyboard = adb_keyboard
        self._last_frame: tuple[tuple[object, ...], bytes] | None = None
        self._settings: dict[str, dict[str, str]] = {
            "global": {name: "1.0" for name in _ANIMATION_SCALES},
            "secure": {"default_input_method": LATIN_IME_ID, "enabled_input_methods": LATIN_IME_ID},
            "system": {"screen_off_timeout": "600000"},
        }

    @property
    def clock(self) -> Callable[[], float]:
        """The injected clock this phone keeps time with."""
        return self._now

    @property
    def shop(self) -> ShopState:
        """Demo Shop's server state, with every timer due by now already run (never offline)."""
        self.timers.run_due()
        return self._shop

    @property
    def faults(self) -> Faults:
        return self.injector.faults

    @faults.setter
    def faults(self, faults: Faults) -> None:
        """Switch fault settings mid-run; the seeded random stream carries on."""
        self.injector.faults = faults

    @property
    def fault_log(self) -> list[FaultEvent]:
        """Faults that fired so far, timers due by now included (never offline)."""
        self.timers.run_due()
        return self.injector.log

    @property
    def online(self) -> bool:
        return not self.injector.offline()

    def _enter(self, command: str) -> None:
        if self.injector.offline():
            raise DeviceOfflineError("device is offline; wait for it to come back, then reconnect",
                                     serial=self.serial, command=command)
        self.timers.run_due()

    def toast(self, text: str) -> None:
        self._toasts.append((self._now(), text))

    def request_notification_permission(self) -> None:
        if self.notification_permission is None:
            self.notification_permission = "pending"

    def _answer_permission(self, granted: bool) -> None:
        self.notification_permission = "granted" if granted else "denied"

    @property
    def _app_in_front(self) -> bool:
        return self._foreground == PACKAGE and self.app.running

    def _ime_selected(self) -> str:
        return self._settings["secure"].get("default_input_method", LATIN_IME_ID)

    def _clock(self) -> str:
        minutes = 9 * 60 + 41 + int((self._now() - self._born) // 60)
        return f"{minutes // 60 % 24}:{minutes % 60:02d}"

    def windows(self) -> list[Window]:
        """The windows on screen now, bottom to top."""
        s = self._screen
        t = self._strings
        out: list[Window] = []
        if self._app_in_front:
            out.extend(app_windows(self.app, s))
        else:
            out.append(launcher(s.width, s.height, s.status_bar,
                                [(t("app_name"), lambda: self._launch(None, "")),
                                 (t("launcher_settings"), lambda: None)], t("launcher_search")))
        out.append(status_bar(s.width, s.status_bar, self._clock()))
        if self._app_in_front and self.app.ime_shown and self.app.focus is not None:
            if self._ime_selected() == ADB_IME_ID and self._adb_keyboard:
                out.append(adb_keyboard(s.width, s.height, s.s(120)))
            else:
                out.append(latin_keyboard(s.width, s.keyboard_top, s.height, type_char=self.app.type_text,
                                          delete=self.app.delete_char, enter=self.app.enter))
        if self._app_in_front and self.notification_permission == "pending":
            out.append(permission_dialog(s.width, s.height, t("perm_message"), t("perm_allow"), t("perm_deny"),
                                         on_allow=lambda: self._answer_permission(True),
                                         on_deny=lambda: self._answer_permission(False)))
        if self._locked:
            out.append(keyguard(s.width, s.height, self._clock(), self._unlock))
        return out

    def _unlock(self) -> None:
        self._locked = False

    def ui_dump(self, compressed: bool = False) -> DumpOutcome:
        """``uiautomator dump``: the hierarchy of every window, or the failure the shell would print."""
        self._enter("uiautomator dump")
        if self.injector.roll("dump_error", self.faults.dump_error_rate):
            return DumpOutcome(None, IDLE_STATE_ERROR)
        if self.injector.roll("dump_empty", self.faults.dump_empty_rate):
            return DumpOutcome(None, "")
        return DumpOutcome(hierarchy_xml(self.windows(), rotation=0, compressed=compressed))

    def screencap_png(self) -> bytes:
        """``screencap -p``: the screen as a PNG, toasts included (they are drawn, not dumped)."""
        self._enter("screencap -p")
        live = [text for at, text in self._toasts if self._now() - at < TOAST_SHOWN_S]
        windows = self.windows()
        # PNG encoding dominates the cost; the dump text plus what it omits (toasts, screen power,
        # the dark theme) pins the picture down, so an unchanged screen reuses the last frame.
        key = (hierarchy_xml(windows), tuple(live), self._screen_on, self._shop.settings.get("dark_mode"),
               tuple(w.dim for w in windows))
        if self._last_frame is not None and self._last_frame[0] == key:
            return self._last_frame[1]
        png = render_png(windows, self._screen.width, self._screen.height, toasts=live, screen_on=self._screen_on)
        self._last_frame = (key, png)
        return png

    def _on_screen(self, x: int, y: int) -> bool:
        return 0 <= x < self._screen.width and 0 <= y < self._screen.height

    def _deliver_tap(self, x: int, y: int, *, long_press: bool = False) -> None:
        windows = self.windows()
        window, node = touch_target(windows, x, y)
        if window is None:
            return
        if window.package == PACKAGE and self.injector.roll("crash", self.faults.crash_rate,
                                                            f"tap at {x},{y} on {self.app.activity()}"):
            self._crash()
            return
        if node is None:
            if window.kind == "dialog" and not window.bounds.contains(x, y):
                self.app.dismiss()
            return
        action = node.on_long_press if long_press else node.on_tap
        if action is not None:
            action()

    def _crash(self) -> None:
        self.app.stop()
        self._foreground = LAUNCHER

    def tap(self, x: int, y: int) -> None:
        """``input tap``; taps off the display or on a dark screen do nothing, as on Android."""
        self._enter(f"input tap {x} {y}")
        if not self._on_screen(x, y) or not self._screen_on:
            return
        if self.injector.roll("drop_tap", self.faults.drop_tap_rate, f"{x},{y}"):
            return
        self._deliver_tap(x, y)
        if self.injector.roll("duplicate_tap", self.faults.duplicate_tap_rate, f"{x},{y}"):
            self._deliver_tap(x, y)
        if self.injector.roll("lost_ack", self.faults.lost_ack_rate, f"input tap {x} {y}"):
            raise AckLostError("the tap was sent but its acknowledgement was lost; re-observe before repeating",
                               serial=self.serial, command=f"input tap {x} {y}")

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        """``input swipe``: scrolls the list under the start point by the distance moved.

        Start equal to end held for at least 500 ms is a long press; a short one is a tap.
        """
        self._enter(f"input swipe {x1} {y1} {x2} {y2} {duration_ms}")
        if not self._on_screen(x1, y1) or not self._screen_on:
            return
        if abs(x2 - x1) <= TOUCH_SLOP_PX and abs(y2 - y1) <= TOUCH_SLOP_PX:
            self._deliver_tap(x1, y1, long_press=duration_ms >= LONG_PRESS_MS)
            return
        if self._locked:
            if y1 - y2 > self._screen.height // 10:
                self._unlock()
            return
        if abs(y2 - y1) >= abs(x2 - x1):
            target = scroll_target(self.windows(), x1, y1)
            if target is not None and target.on_scroll is not None:
                target.on_scroll(y1 - y2)

    def input_text(self, text: str) -> None:
        """``input text`` after shell unquoting: ``%s`` is a space; non-ASCII raises ValueError, typing nothing."""
        self._enter("input text")
        text = text.replace("%s", " ")
        _check_typeable(text)
        if not (self._app_in_front and self._screen_on) or self._locked:
            return
        for i, chunk in enumerate(text.split("\n")):
            if i:
                self.app.enter()
            self.app.type_text(chunk.replace("\t", ""))

    def ime_commit_text(self, text: str) -> None:
        """Text committed by the ADB keyboard IME (any Unicode); needs it installed and selected."""
        self._enter("am broadcast -a ADB_INPUT_B64")
        if not self._adb_keyboard:
            raise ValueError("the ADB keyboard (com.android.adbkeyboard) is not installed")
        if self._ime_selected() != ADB_IME_ID:
            raise ValueError(f"the ADB keyboard is installed but not selected; run: ime set {ADB_IME_ID}")
        if self._app_in_front and not self._locked:
            self.app.type_text(text)

    def keyevent(self, code: int) -> None:
        """``input keyevent``: HOME, BACK, ENTER, DEL, WAKEUP and POWER act; other codes are accepted and ignored."""
        self._enter(f"input keyevent {code}")
        if code == KEY_POWER:
            self._screen_on = not self._screen_on
            self._locked = self._locked or not self._screen_on
            return
        if code == KEY_WAKEUP:
            self._screen_on = True
            return
        if not self._screen_on or self._locked:
            return
        if code == KEY_HOME:
            self._foreground = LAUNCHER
            self.app.ime_shown = False
        elif code == KEY_BACK and self._app_in_front:
            if self.notification_permission == "pending":
                self._answer_permission(False)
            elif not self.app.back():
                self._foreground = LAUNCHER
        elif code == KEY_ENTER and self._app_in_front:
            self.app.enter()
        elif code == KEY_DEL and self._app_in_front:
            self.app.delete_char()

    def _launch(self, route: str | None, product_id: str) -> None:
        self._foreground = PACKAGE
        self.app.launch(route, product_id)

    def start_activity(self, package: str, activity: str | None = None, data_uri: str | None = None) -> None:
        """``am start``: an app by package (its launcher activity), a named activity, or a deep link.

        Demo Shop deep links: ``demoshop://product/<id>``, ``demoshop://cart``, ``demoshop://settings``;
        ``package`` may be empty with a deep link. Unknown packages raise AppNotInstalledError,
        unresolvable activities or links raise InvalidActionError.
        """
        command = f"am start {package}{'/' + activity if activity else ''}{' -d ' + data_uri if data_uri else ''}"
        self._enter(command)
        if data_uri is not None:
            link_route, product_id = self._resolve_link(data_uri, command)
            if package not in ("", PACKAGE):
                raise InvalidActionError(f"{package} cannot open {data_uri}", serial=self.serial, command=command)
            self._launch(link_route, product_id)
            return
        if package == LAUNCHER:
            self._foreground = LAUNCHER
            return
        if package != PACKAGE:
            if package in self.packages():
                raise InvalidActionError(f"{package} has no launchable activity in the simulator",
                                         serial=self.serial, command=command)
            raise AppNotInstalledError(package, serial=self.serial, command=command)
        route: str | None = None
        if activity:
            try:
                route = resolve_activity(activity)
            except KeyError:
                raise InvalidActionError(f"activity {activity!r} does not exist in {package}",
                                         serial=self.serial, command=command) from None
        self._launch(route, "")

    def _resolve_link(self, uri: str, command: str) -> tuple[str, str]:
        scheme, _, rest = uri.partition("://")
        parts = [p for p in rest.split("/") if p]
        if scheme == "demoshop" and parts:
            if parts[0] == "product" and len(parts) == 2 and parts[1] in CATALOGUE:
                return "detail", parts[1]
            if parts[0] in ("cart", "settings", "products") and len(parts) == 1:
                return parts[0], ""
        raise InvalidActionError(f"no activity can open {uri!r}", serial=self.serial, command=command)

    def force_stop(self, package: str) -> None:
        """``am force-stop``: kills the app and its UI state; unknown packages are ignored, as on Android."""
        self._enter(f"am force-stop {package}")
        if package == PACKAGE:
            self.app.stop()
            if self.notification_permission == "pending":
                self.notification_permission = None
            if self._foreground == PACKAGE:
                self._foreground = LAUNCHER

    def packages(self) -> dict[str, str]:
        """Installed packages and their version names."""
        self._enter("pm list packages")
        installed = {
            PACKAGE: VERSION,
            LAUNCHER: "14",
            SYSTEMUI: "14",
            SETTINGS: "14",
            PERMISSION_CONTROLLER: "34.0.1",
            LATIN_IME: "13.6.08",
        }
        if self._adb_keyboard:
            installed[ADB_IME] = "2.4-dev"
        return installed

    def current_focus(self) -> tuple[str, str]:
        """(package, fully qualified activity) of the window with input focus."""
        self._enter("dumpsys window")
        if self._locked:
            return SYSTEMUI, "NotificationShade"
        if self._app_in_front:
            if self.notification_permission == "pending":
                return PERMISSION_CONTROLLER, PERMISSION_ACTIVITY
            return PACKAGE, self.app.activity()
        return LAUNCHER, LAUNCHER_ACTIVITY

    def _namespace(self, namespace: str, command: str) -> dict[str, str]:
        if namespace not in self._settings:
            raise InvalidActionError(f"settings namespace must be global, secure or system, not {namespace!r}",
                                     serial=self.serial, command=command)
        return self._settings[namespace]

    def settings_get(self, namespace: str, key: str) -> str | None:
        """``settings get``; None where Android prints ``null``."""
        command = f"settings get {namespace} {key}"
        self._enter(command)
        return self._namespace(namespace, command).get(key)

    def settings_put(self, namespace: str, key: str, value: str) -> None:
        command = f"settings put {namespace} {key} {value}"
        self._enter(command)
        self._namespace(namespace, command)[key] = value

    def getprop(self, key: str | None = None) -> dict[str, str] | str:
        """``getprop``: every property, or one (empty string when unset, as Android prints)."""
        self._enter("getprop")
        props = {
            "ro.product.model": "SimPhone 7",
            "ro.product.brand": "fsm",
            "ro.product.manufacturer": "fsm-runner",
            "ro.product.name": "simphone",
            "ro.product.cpu.abi": "x86_64",
            "ro.build.version.sdk": "34",
            "ro.build.version.release": "14",
            "ro.build.type": "userdebug",
            "ro.serialno": self.serial,
            "ro.sf.lcd_density": "420",
            "persist.sys.locale": "zh-CN" if self.locale == "zh-CN" else "en-US",
            "sys.boot_completed": "1",
        }
        if key is None:
            return props
        return props.get(key, "")

    def window_size(self) -> tuple[int, int]:
        self._enter("wm size")
        return self._screen.width, self._screen.height

    def rotation(self) -> int:
        self._enter("dumpsys input")
        return 0

    def screen_on(self) -> bool:
        self._enter("dumpsys power")
        return self._screen_on

    def locked(self) -> bool:
        self._enter("dumpsys window policy")
        return self._locked

    def recent_toasts(self, within_s: float = 3.5) -> list[str]:
        """Texts of toasts posted in the last ``within_s`` seconds, oldest first."""
        self._enter("dumpsys notification")
        now = self._now()
        return [text for at, text in self._toasts if now - at <= within_s]

    def focused_text(self) -> str | None:
        """The real value of the focused edit text (unmasked), or None when no field has focus."""
        self._enter("dumpsys input_method")
        if self._app_in_front and self.app.focus is not None:
            return self.app.field_value(self.app.focus)
        return None
