"""The driver's adbutils connections skip the 10 ms close sleep of stock adbutils."""

from __future__ import annotations

import adbutils
import adbutils._adb as adbutils_adb
import pytest

from adapters.adb.adbutils_transport import AdbutilsTransport
from adapters.adb.transport import ServerAddress
from adb_driver.conftest import Rig

pytestmark = pytest.mark.adb


@pytest.fixture
def close_sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every time.sleep adbutils' connection code makes, recorded (and still slept)."""
    recorded: list[float] = []
    real_sleep = adbutils_adb.time.sleep

    def recording_sleep(seconds: float) -> None:
        recorded.append(seconds)
        real_sleep(seconds)

    monkeypatch.setattr(adbutils_adb.time, "sleep", recording_sleep)
    return recorded


def test_stock_adbutils_sleeps_on_every_close_of_a_shell_call(rig: Rig, close_sleeps: list[float]) -> None:
    host, port = rig.server.split(":")
    device = adbutils.AdbClient(host=host, port=int(port)).device(rig.serial)
    device.shell2("echo hi", v2=True)
    close_sleeps.clear()
    device.shell2("echo hi", v2=True)
    assert close_sleeps == [0.01, 0.01]


def test_driver_transport_closes_without_sleeping_and_asks_the_server_version_once(
    rig: Rig, close_sleeps: list[float]
) -> None:
    transport = AdbutilsTransport(ServerAddress.parse(rig.server))
    for _ in range(5):
        assert transport.shell(rig.serial, "echo hi", 10.0).output == "hi\n"
    assert transport.exec_out(rig.serial, "screencap -p", 10.0) == rig.phone.screencap_png()
    assert close_sleeps == []
