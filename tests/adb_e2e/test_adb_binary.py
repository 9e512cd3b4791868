"""The real ``adb`` command line against the emulated daemon."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from adapters.sim import Faults, SimPhone
from adapters.sim.serve import SimDaemon
from tests.adbkit import AdbServer, ManualClock, connect, disconnect, node_centre, serve_sim

pytestmark = pytest.mark.adb

PKG = "com.example.demoshop"


def test_devices_lists_the_daemon_with_its_banner_properties(adb_server: AdbServer, adb_serial: str) -> None:
    listing = adb_server.run("devices", "-l").stdout.decode()
    line = next(row for row in listing.splitlines() if row.startswith(adb_serial))
    assert "device" in line.split()
    assert "model:SimPhone_7" in line
    features = adb_server.run("-s", adb_serial, "features").stdout.decode().split()
    assert {"shell_v2", "cmd", "stat_v2"} <= set(features)


def test_shell_exit_codes_come_through_shell_v2(adb_server: AdbServer, adb_serial: str) -> None:
    failed = adb_server.run("-s", adb_serial, "shell", "false")
    missing = adb_server.run("-s", adb_serial, "shell", "frobnicate")
    status = adb_server.run("-s", adb_serial, "shell", "false; echo $?")
    assert failed.returncode == 1
    assert missing.returncode == 127
    assert missing.stderr == b"/system/bin/sh: frobnicate: not found\n"
    assert (status.returncode, status.stdout) == (0, b"1\n")


def test_exec_out_screencap_is_byte_identical_to_the_phone(
        adb_server: AdbServer, adb_serial: str, sim_phone: SimPhone) -> None:
    result = adb_server.run("-s", adb_serial, "exec-out", "screencap -p")
    assert result.returncode == 0
    assert result.stdout == sim_phone.screencap_png()


def test_uiautomator_dump_to_tty_prints_the_xml_then_the_misspelt_notice(
        adb_server: AdbServer, adb_serial: str, sim_phone: SimPhone) -> None:
    result = adb_server.run("-s", adb_serial, "shell", "uiautomator dump /dev/tty")
    expected = sim_phone.ui_dump().xml
    assert expected is not None
    assert result.stdout.decode() == expected + "UI hierchary dumped to: /dev/tty\n"


def test_uiautomator_dump_to_a_file_can_be_pulled(
        adb_server: AdbServer, adb_serial: str, sim_phone: SimPhone, tmp_path: Path) -> None:
    notice = adb_server.run("-s", adb_serial, "shell", "uiautomator dump --compressed")
    pulled = adb_server.run("-s", adb_serial, "pull", "/sdcard/window_dump.xml", str(tmp_path / "dump.xml"))
    assert notice.stdout == b"UI hierchary dumped to: /sdcard/window_dump.xml\n"
    assert pulled.returncode == 0, pulled.stderr
    assert (tmp_path / "dump.xml").read_text() == sim_phone.ui_dump(compressed=True).xml


def test_push_then_pull_round_trips_a_file_larger_than_one_sync_chunk(
        adb_server: AdbServer, adb_serial: str, sim_daemon: SimDaemon, tmp_path: Path) -> None:
    payload = os.urandom(300_000)
    source = tmp_path / "payload.bin"
    source.write_bytes(payload)
    pushed = adb_server.run("-s", adb_serial, "push", str(source), "/data/local/tmp/")
    pulled = adb_server.run("-s", adb_serial, "pull", "/data/local/tmp/payload.bin", str(tmp_path / "back.bin"))
    assert pushed.returncode == 0, pushed.stderr
    assert sim_daemon.fs.read("/data/local/tmp/payload.bin") == payload
    assert pulled.returncode == 0, pulled.stderr
    assert (tmp_path / "back.bin").read_bytes() == payload


def test_pull_of_a_missing_file_fails_without_hurting_the_connection(
        adb_server: AdbServer, adb_serial: str, tmp_path: Path) -> None:
    pulled = adb_server.run("-s", adb_serial, "pull", "/sdcard/nothing.txt", str(tmp_path / "x"))
    assert pulled.returncode == 1
    assert b"nothing.txt" in pulled.stderr
    assert adb_server.run("-s", adb_serial, "shell", "echo still here").stdout == b"still here\n"


def test_input_events_through_adb_log_in(
        adb_server: AdbServer, adb_serial: str, sim_phone: SimPhone, phone_clock: ManualClock) -> None:
    def shell(command: str) -> str:
        return adb_server.run("-s", adb_serial, "shell", command).stdout.decode()

    def tap(resource_id: str) -> None:
        xml = shell("uiautomator dump /dev/tty").removesuffix("UI hierchary dumped to: /dev/tty\n")
        x, y = node_centre(xml, resource_id)
        shell(f"input tap {x} {y}")

    shell(f"monkey -p {PKG} -c android.intent.category.LAUNCHER 1")
    phone_clock.advance(1.1)
    tap("com.android.permissioncontroller:id/permission_deny_button")
    tap(f"{PKG}:id/username")
    shell("input text alice")
    tap(f"{PKG}:id/password")
    shell("input text 'secret123' && input keyevent 4")
    tap(f"{PKG}:id/login_button")
    phone_clock.advance(0.6)
    assert sim_phone.shop.logged_in == "alice"
    assert sim_phone.current_focus() == (PKG, f"{PKG}.ProductListActivity")


def test_interactive_shell_runs_each_stdin_line_and_exits_with_the_last_status(
        adb_server: AdbServer, adb_serial: str) -> None:
    session = adb_server.run("-s", adb_serial, "shell", input=b"echo one\nfalse\n")
    early_exit = adb_server.run("-s", adb_serial, "shell", input=b"echo two; exit 4\necho never\n")
    assert (session.returncode, session.stdout) == (1, b"one\n")
    assert (early_exit.returncode, early_exit.stdout) == (4, b"two\n")


def test_shell_without_the_v2_protocol_merges_stderr_and_cannot_report_status(
        adb_server: AdbServer, adb_serial: str) -> None:
    legacy = adb_server.run("-s", adb_serial, "shell", "-x", "echo x; nope")
    assert (legacy.returncode, legacy.stdout) == (0, b"x\n/system/bin/sh: nope: not found\n")


def test_ls_lists_pushed_files(adb_server: AdbServer, adb_serial: str, sim_daemon: SimDaemon) -> None:
    sim_daemon.fs.write("/sdcard/Pictures/cat.png", b"\x89PNG....")
    listing = adb_server.run("-s", adb_serial, "ls", "/sdcard/Pictures").stdout.decode().splitlines()
    assert listing[-1].split() == ["000081a4", "00000008", listing[-1].split()[2], "cat.png"]


def test_an_offline_phone_shows_offline_and_the_server_reconnects_when_it_returns(adb_server: AdbServer) -> None:
    clock = ManualClock()
    phone = SimPhone(now=clock, faults=Faults(offline_after_s=10.0, offline_for_s=5.0))
    daemon = serve_sim(phone)
    serial = connect(adb_server, daemon)
    try:
        clock.advance(11.0)
        assert wait_for_state(adb_server, serial, "offline")
        refused = adb_server.run("-s", serial, "shell", "echo hi")
        assert (refused.returncode, refused.stderr) == (1, b"adb: device offline\n")
        clock.advance(5.0)
        assert wait_for_state(adb_server, serial, "device")
        assert adb_server.run("-s", serial, "shell", "echo hi").stdout == b"hi\n"
    finally:
        disconnect(adb_server, serial)
        daemon.stop()


def wait_for_state(server: AdbServer, serial: str, state: str, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        listing = server.run("devices").stdout.decode().splitlines()
        if f"{serial}\t{state}" in listing:
            return True
        time.sleep(0.1)
    return False
