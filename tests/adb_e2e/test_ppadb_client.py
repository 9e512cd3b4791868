"""pure-python-adb (the alternative transport) talking to the emulated daemon through a real adb server."""

from __future__ import annotations

from pathlib import Path

import pytest
from ppadb.client import Client

from adapters.sim import SimPhone
from adapters.sim.serve import SimDaemon
from tests.adbkit import AdbServer

pytestmark = pytest.mark.adb


def test_ppadb_shell_screencap_push_and_pull(
        adb_server: AdbServer, adb_serial: str, sim_phone: SimPhone, sim_daemon: SimDaemon, tmp_path: Path) -> None:
    device = Client(host="127.0.0.1", port=adb_server.port).device(adb_serial)
    assert device is not None
    source = tmp_path / "notes.txt"
    source.write_text("ünïcode notes\n")
    device.push(str(source), "/sdcard/notes.txt")
    device.pull("/sdcard/notes.txt", str(tmp_path / "back.txt"))
    assert device.shell("echo 'a  b' \"$?\"") == "a  b 0\n"
    assert device.screencap() == sim_phone.screencap_png()
    assert sim_daemon.fs.read("/sdcard/notes.txt") == source.read_bytes()
    assert (tmp_path / "back.txt").read_text() == "ünïcode notes\n"
    assert device.shell("cat /sdcard/notes.txt") == "ünïcode notes\n"
