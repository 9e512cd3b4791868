"""The Android commands of the device shell, checked against the simulated phone's state."""

from __future__ import annotations

import asyncio
import base64
import struct
import xml.etree.ElementTree as ET

import pytest

from adapters.errors import AckLostError, DeviceOfflineError
from adapters.sim import Faults, SimPhone
from adapters.sim.shell import DeviceShell, ShellOutput
from adapters.sim.sync import DeviceFilesystem
from tests.adbkit import ManualClock, node_centre
from tests.sim_shell.conftest import Session

PKG = "com.example.demoshop"
ALLOW = "com.android.permissioncontroller:id/permission_allow_button"


def open_login(session: Session) -> None:
    session.run(f"am start -n {PKG}/.SplashActivity")
    session.clock.advance(1.1)
    xml = session.run("uiautomator dump /dev/tty").out.removesuffix("UI hierchary dumped to: /dev/tty\n")
    session.run("input tap {} {}".format(*node_centre(xml, ALLOW)))


def tap_id(session: Session, resource_id: str) -> None:
    xml = session.phone.ui_dump().xml
    assert xml is not None
    x, y = node_centre(xml, resource_id)
    assert session.run(f"input tap {x} {y}").code == 0


def test_uiautomator_dump_writes_the_default_file_and_says_so(session: Session) -> None:
    ran = session.run("uiautomator dump")
    assert (ran.code, ran.out) == (0, "UI hierchary dumped to: /sdcard/window_dump.xml\n")
    assert session.fs.read("/sdcard/window_dump.xml").decode() == session.phone.ui_dump().xml
    assert ET.fromstring(session.run("cat /sdcard/window_dump.xml").out).tag == "hierarchy"


def test_uiautomator_compressed_dump_to_tty(session: Session) -> None:
    ran = session.run("uiautomator dump --compressed /dev/tty")
    assert ran.out == f"{session.phone.ui_dump(compressed=True).xml}UI hierchary dumped to: /dev/tty\n"


@pytest.mark.parametrize(("faults", "printed"), [
    (Faults(dump_error_rate=1.0), "ERROR: could not get idle state\n"),
    (Faults(dump_empty_rate=1.0), ""),
])
def test_failed_dumps_print_what_the_device_prints_and_exit_0(
        clock: ManualClock, faults: Faults, printed: str) -> None:
    session = Session(SimPhone(now=clock, faults=faults), clock)
    ran = session.run("uiautomator dump /dev/tty")
    assert (ran.code, ran.out) == (0, printed)
    assert session.phone.fault_log


def test_input_tap_and_text_log_in(session: Session) -> None:
    open_login(session)
    tap_id(session, f"{PKG}:id/username")
    assert session.run("input text alice").code == 0
    tap_id(session, f"{PKG}:id/password")
    assert session.run("input text secret123 && input keyevent KEYCODE_BACK").code == 0
    tap_id(session, f"{PKG}:id/login_button")
    session.clock.advance(0.6)
    assert session.phone.shop.logged_in == "alice"


def test_input_text_turns_percent_s_into_spaces(session: Session) -> None:
    open_login(session)
    tap_id(session, f"{PKG}:id/username")
    session.run("input text 'al%sice'")
    assert session.phone.focused_text() == "al ice"


def test_input_text_with_non_ascii_fails_like_android(session: Session) -> None:
    open_login(session)
    tap_id(session, f"{PKG}:id/username")
    ran = session.run("input text 用户")
    assert ran.code == 255
    assert ran.err.startswith("Exception occurred while executing 'text':\njava.lang.IllegalArgumentException: ")
    assert session.phone.focused_text() == ""


def test_input_rejects_bad_usage_and_unknown_keys(session: Session) -> None:
    usage = session.run("input tap 10")
    key = session.run("input keyevent KEYCODE_NOPE")
    number = session.run("input tap ten 20")
    assert usage.code == 1 and "Usage: input" in usage.err
    assert key.code == 255 and "Unknown keycode: KEYCODE_NOPE" in key.err
    assert number.code == 255 and "java.lang.NumberFormatException" in number.err


def test_adb_keyboard_broadcast_types_unicode_once_selected(clock: ManualClock) -> None:
    session = Session(SimPhone(now=clock, adb_keyboard=True), clock)
    open_login(session)
    tap_id(session, f"{PKG}:id/username")
    message = base64.b64encode("爱丽丝 ✓".encode()).decode()
    ignored = session.run(f"am broadcast -a ADB_INPUT_B64 --es msg {message}")
    assert ignored.out.endswith("Broadcast completed: result=0\n") and session.phone.focused_text() == ""
    assert session.run("ime list -s").out.splitlines()[-1] == "com.android.adbkeyboard/.AdbIME"
    assert session.run("ime set com.android.adbkeyboard/.AdbIME").code == 0
    assert session.run("settings get secure default_input_method").out == "com.android.adbkeyboard/.AdbIME\n"
    session.run(f"am broadcast -a ADB_INPUT_B64 --es msg {message}")
    assert session.phone.focused_text() == "爱丽丝 ✓"


def test_screencap_png_is_the_phones_png_and_raw_frames_have_a_header(session: Session) -> None:
    assert session.run("screencap -p").stdout == session.phone.screencap_png()
    assert session.run("screencap -p /sdcard/shot.png").code == 0
    assert session.fs.read("/sdcard/shot.png") == session.phone.screencap_png()
    raw = session.run("screencap").stdout
    width, height, pixel_format, _ = struct.unpack_from("<4I", raw)
    assert (width, height, pixel_format, len(raw)) == (1080, 2400, 1, 16 + 1080 * 2400 * 4)


def test_am_start_wait_reports_the_activity_and_deep_links_resolve(session: Session) -> None:
    started = session.run(f"am start -W -n {PKG}/.SplashActivity")
    assert started.out.splitlines()[0] == f"Starting: Intent {{ cmp={PKG}/.SplashActivity }}"
    assert f"Activity: {PKG}/.SplashActivity" in started.out and "Complete" in started.out
    missing = session.run("am start -n com.nope/.Main")
    assert missing.code == 1 and "Error type 3" in missing.err
    session.run(f"am force-stop {PKG}")
    assert session.phone.current_focus()[0] == "com.android.launcher3"


def test_dumpsys_window_names_the_focused_activity(session: Session) -> None:
    session.run(f"monkey -p {PKG} -c android.intent.category.LAUNCHER 1")
    out = session.run("dumpsys window").out
    assert "mCurrentFocus=Window{" in out and f" u0 {PKG}/{PKG}.SplashActivity}}" in out
    assert "mFocusedApp=ActivityRecord{" in out and f" u0 {PKG}/.SplashActivity t12}}" in out


def test_package_queries(session: Session) -> None:
    assert session.run(f"dumpsys package {PKG} | grep versionName").out == "    versionName=1.4.2\n"
    assert session.run("pm list packages -3").out == f"package:{PKG}\n"
    assert "package:com.android.launcher3\n" in session.run("pm list packages launcher").out
    assert session.run(f"pm path {PKG}").out.startswith("package:/data/app/")
    assert session.run("pm path com.not.installed").code == 1


def test_settings_wm_and_getprop(session: Session) -> None:
    assert session.run("settings put global window_animation_scale 0").code == 0
    assert session.phone.settings_get("global", "window_animation_scale") == "0"
    assert session.run("settings get global nothing_here").out == "null\n"
    assert session.run("wm size; wm density").out == "Physical size: 1080x2400\nPhysical density: 420\n"
    assert session.run("getprop ro.build.version.sdk").out == "34\n"
    assert "[ro.product.model]: [SimPhone 7]\n" in session.run("getprop").out
    assert "mCurrentOrientation=0" in session.run("dumpsys display").out
    assert "SurfaceOrientation: 0" in session.run("dumpsys input").out


def test_files_can_be_listed_and_removed(session: Session) -> None:
    session.fs.write("/sdcard/a.txt", b"x")
    assert "a.txt" in session.run("ls /sdcard").out.split()
    assert session.run("rm /sdcard/a.txt; cat /sdcard/a.txt").err == "cat: /sdcard/a.txt: No such file or directory\n"
    assert session.run("rm /sdcard/a.txt").code == 1
    assert session.run("rm -f /sdcard/a.txt").code == 0


def test_sleep_hands_earlier_output_over_before_waiting() -> None:
    delivered: list[list[tuple[int, bytes]]] = []

    async def deliver(chunks: list[tuple[int, bytes]]) -> None:
        delivered.append(chunks)

    async def scenario() -> None:
        shell = DeviceShell(SimPhone(), DeviceFilesystem(), ShellOutput(deliver))
        await shell.run("echo before; sleep 0.01; echo after")
        await shell.output.flush()

    asyncio.run(scenario())
    assert delivered == [[(1, b"before\n")], [(1, b"after\n")]]


def test_a_lost_tap_acknowledgement_reaches_the_transport(clock: ManualClock) -> None:
    session = Session(SimPhone(now=clock, faults=Faults(lost_ack_rate=1.0)), clock)
    with pytest.raises(AckLostError):
        session.run("input tap 500 500")


def test_an_offline_phone_fails_the_whole_command(clock: ManualClock) -> None:
    session = Session(SimPhone(now=clock, faults=Faults(offline_after_s=1.0, offline_for_s=9.0)), clock)
    clock.advance(2.0)
    with pytest.raises(DeviceOfflineError):
        session.run("getprop")
