"""adbutils (the driver's client library) talking to the emulated daemon through a real adb server."""

from __future__ import annotations

import os

import adbutils
import pytest

from adapters.sim import Faults, SimPhone
from adapters.sim.serve import SimDaemon
from tests.adbkit import AdbServer, ManualClock, connect, disconnect, node_centre, serve_sim

pytestmark = pytest.mark.adb

PKG = "com.example.demoshop"
DUMP_SUFFIX = "UI hierchary dumped to: /dev/tty\n"


@pytest.fixture
def device(adb_server: AdbServer, adb_serial: str) -> adbutils.AdbDevice:
    return adbutils.AdbClient(host="127.0.0.1", port=adb_server.port).device(adb_serial)


def dump(device: adbutils.AdbDevice) -> str:
    output = device.shell("uiautomator dump /dev/tty", rstrip=False)
    assert isinstance(output, str) and output.endswith(DUMP_SUFFIX), output[-200:]
    return output[: -len(DUMP_SUFFIX)]


def tap(device: adbutils.AdbDevice, resource_id: str) -> None:
    x, y = node_centre(dump(device), resource_id)
    device.shell(f"input tap {x} {y}")


def test_shell_answers_with_the_phone_properties(device: adbutils.AdbDevice, sim_phone: SimPhone) -> None:
    assert device.shell("getprop ro.product.model") == sim_phone.getprop("ro.product.model")
    assert device.shell("echo hi") == "hi"
    assert device.prop.model == sim_phone.getprop("ro.product.model")


def test_shell_v2_reports_exit_codes_and_separates_stderr(device: adbutils.AdbDevice) -> None:
    failed = device.shell2("false", v2=True)
    missing = device.shell2("no_such_tool --flag", v2=True)
    chained = device.shell2("false; echo $?", v2=True)
    assert failed.returncode == 1
    assert (missing.returncode, missing.stdout, missing.stderr) == (
        127, "", "/system/bin/sh: no_such_tool: not found\n")
    assert (chained.returncode, chained.stdout) == (0, "1\n")


def test_screenshot_bytes_are_the_phones_png(device: adbutils.AdbDevice, sim_phone: SimPhone) -> None:
    png = device.shell("screencap -p", encoding=None)
    assert png == sim_phone.screencap_png()


def test_push_then_pull_round_trips_binary_data(device: adbutils.AdbDevice, sim_daemon: SimDaemon) -> None:
    payload = os.urandom(200_000)
    device.sync.push(payload, "/sdcard/Download/blob.bin")
    assert sim_daemon.fs.read("/sdcard/Download/blob.bin") == payload
    assert device.sync.read_bytes("/sdcard/Download/blob.bin") == payload
    assert "blob.bin" in device.shell("ls /sdcard/Download").split()


def test_login_through_input_events_reaches_the_product_list(
        device: adbutils.AdbDevice, sim_phone: SimPhone, phone_clock: ManualClock) -> None:
    device.shell(f"am start -W -n {PKG}/.SplashActivity")
    phone_clock.advance(1.1)
    tap(device, "com.android.permissioncontroller:id/permission_allow_button")
    tap(device, f"{PKG}:id/username")
    device.shell("input text alice")
    tap(device, f"{PKG}:id/password")
    device.shell("input text secret123")
    device.shell("input keyevent KEYCODE_BACK")
    tap(device, f"{PKG}:id/login_button")
    phone_clock.advance(0.6)
    assert sim_phone.shop.logged_in == "alice"
    focus = device.shell("dumpsys window | grep mCurrentFocus")
    assert f"{PKG}/{PKG}.ProductListActivity" in focus


def test_a_lost_tap_acknowledgement_times_out_the_client_and_leaves_the_connection_usable(
        adb_server: AdbServer) -> None:
    phone = SimPhone(faults=Faults(lost_ack_rate=1.0))
    daemon = serve_sim(phone)
    serial = connect(adb_server, daemon)
    try:
        device = adbutils.AdbClient(host="127.0.0.1", port=adb_server.port).device(serial)
        with pytest.raises(adbutils.AdbTimeout):
            device.shell("input tap 540 1200", timeout=0.5)
        assert [event.kind for event in phone.fault_log] == ["lost_ack"]
        assert device.shell("echo still connected") == "still connected"
    finally:
        disconnect(adb_server, serial)
        daemon.stop()
