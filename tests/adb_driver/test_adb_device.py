"""The driver end to end: real adb server, emulated daemon, simulated phone, both transports."""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET
from collections.abc import Coroutine
from typing import Any, TypeVar

import pytest

from adapters.adb import AdbDevice, find_system_popup
from adapters.adb.dump import ATTEMPT_CYCLE, DumpAttempt, extract_hierarchy
from adapters.adb.text import ADB_KEYBOARD_IME
from adapters.base import AppInfo, Device, WindowSize
from adapters.errors import (
    AckLostError,
    AdbServerError,
    AppNotInstalledError,
    DeviceNotFoundError,
    DeviceOfflineError,
    DumpError,
    InvalidActionError,
    TextInputError,
)
from adapters.sim import DEMO_SHOP_PACKAGE, Faults
from adb_driver.conftest import Rig
from adb_driver.screen_nodes import center, has_node, text_of

pytestmark = pytest.mark.adb
T = TypeVar("T")
LATIN_IME = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


async def open_login(rig: Rig, device: AdbDevice) -> str:
    """Launch Demo Shop, let the splash finish, allow the notification dialog; return the login dump."""
    await device.start_app(DEMO_SHOP_PACKAGE)
    rig.clock.advance(5.0)
    dump = await device.dump_hierarchy()
    action = await device.handle_system_popup(dump.xml)
    if action is not None:
        dump = await device.dump_hierarchy()
    return dump.xml


def test_adb_device_satisfies_the_device_protocol(rig: Rig, transport: str) -> None:
    assert isinstance(rig.device(transport), Device)


def test_shell_returns_output_and_exit_status(rig: Rig, transport: str) -> None:
    async def scenario() -> None:
        device = rig.device(transport)
        ok = await device.shell("echo hi")
        failed = await device.shell("echo partial; false")
        missing = await device.shell("no_such_tool")
        assert (ok.output, ok.exit_code) == ("hi\n", 0)
        assert (failed.output, failed.exit_code) == ("partial\n", 1)
        assert missing.exit_code == 127 and "not found" in missing.output

    run(scenario())


def test_screenshot_is_the_phones_png_byte_for_byte(rig: Rig, transport: str) -> None:
    png = run(rig.device(transport).screenshot())
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert png == rig.phone.screencap_png()


def test_dump_is_the_whole_hierarchy_in_one_attempt(rig: Rig, transport: str) -> None:
    dump = run(rig.device(transport).dump_hierarchy())
    root = ET.fromstring(dump.xml)
    assert root.tag == "hierarchy" and root.get("rotation") == "0"
    assert dump.attempts == 1
    assert dump.xml == rig.phone.ui_dump().xml


def test_window_size_rotation_and_current_app(rig: Rig, transport: str) -> None:
    async def scenario() -> None:
        device = rig.device(transport)
        assert await device.window_size() == WindowSize(1080, 2400)
        assert await device.rotation() == 0
        assert (await device.current_app()).package == "com.android.launcher3"
        await open_login(rig, device)
        assert await device.current_app() == AppInfo(DEMO_SHOP_PACKAGE, "com.example.demoshop.LoginActivity")
        await device.press_key("HOME")
        assert (await device.current_app()).package == "com.android.launcher3"

    run(scenario())


async def log_in(rig: Rig, device: AdbDevice) -> str:
    """Log in as alice through taps and typed text; return the product list dump."""
    xml = await open_login(rig, device)
    await device.tap(*center(xml, "username"))
    await device.input_text("alice")
    await device.tap(*center(xml, "password"))
    await device.input_text("secret123")
    await device.press_key("BACK")
    xml = (await device.dump_hierarchy()).xml
    await device.tap(*center(xml, "login_button"))
    rig.clock.advance(5.0)
    return (await device.dump_hierarchy()).xml


def test_login_through_taps_and_typed_text(rig: Rig, transport: str) -> None:
    async def scenario() -> None:
        device = rig.device(transport)
        xml = await log_in(rig, device)
        assert rig.phone.notification_permission == "granted"
        assert rig.phone.shop.logged_in == "alice"
        assert has_node(xml, "product_list")

    run(scenario())


def test_swipe_scrolls_the_product_list_and_deep_links_open_screens(rig: Rig, transport: str) -> None:
    async def scenario() -> None:
        device = rig.device(transport)
        before = await log_in(rig, device)
        x, y = center(before, "product_list")
        await device.swipe(x, y + 400, x, y - 400, 300)
        after = (await device.dump_hierarchy()).xml
        assert text_of(after, "product_name") != text_of(before, "product_name")
        await device.long_press(*center(after, "product_name"), 600)
        await device.open_uri("demoshop://cart")
        rig.clock.advance(5.0)
        assert (await device.current_app()).activity == "com.example.demoshop.CartActivity"

    run(scenario())


@pytest.mark.parametrize("text", ["你好，世界", "Grüße 🎉", "line1\nline2", "100%sure"])
def test_text_input_cannot_type_reaches_the_field_through_the_adb_keyboard(rig: Rig, transport: str, text: str) -> None:
    async def scenario() -> None:
        device = rig.device(transport)
        xml = await open_login(rig, device)
        await device.tap(*center(xml, "username"))
        await device.input_text(text)
        assert text_of((await device.dump_hierarchy()).xml, "username") == text
        assert rig.phone.settings_get("secure", "default_input_method") == ADB_KEYBOARD_IME
        await device.restore()
        assert rig.phone.settings_get("secure", "default_input_method") == LATIN_IME

    run(scenario())


def test_unicode_without_the_adb_keyboard_is_refused_before_anything_is_sent(bare_rig: Rig, transport: str) -> None:
    async def scenario() -> None:
        device = bare_rig.device(transport)
        report = await device.preflight(DEMO_SHOP_PACKAGE)
        assert not report.unicode_input
        assert any("com.android.adbkeyboard" in problem for problem in report.problems)
        xml = await open_login(bare_rig, device)
        await device.tap(*center(xml, "username"))
        with pytest.raises(TextInputError, match="adb install"):
            await device.input_text("你好")
        assert bare_rig.phone.focused_text() == ""
        assert bare_rig.phone.settings_get("secure", "default_input_method") == LATIN_IME
        await device.input_text("plain ascii")
        assert bare_rig.phone.focused_text() == "plain ascii"

    run(scenario())


def test_preflight_turns_animations_off_and_restore_puts_them_back(rig: Rig, transport: str) -> None:
    async def scenario() -> None:
        device = rig.device(transport)
        await device.start_app(DEMO_SHOP_PACKAGE)
        report = await device.preflight(DEMO_SHOP_PACKAGE)
        assert report.ready, report.problems
        assert report.package_version == "1.4.2"
        assert report.animations_off and report.screen_on and report.unlocked and report.unicode_input
        assert rig.phone.settings_get("global", "window_animation_scale") == "0"
        assert (await device.current_app()).package == "com.android.launcher3"
        await device.restore()
        await device.restore()
        for name in ("window_animation_scale", "transition_animation_scale", "animator_duration_scale"):
            assert rig.phone.settings_get("global", name) == "1.0"

    run(scenario())


def test_preflight_wakes_a_sleeping_screen_and_swipes_the_lock_screen_away(rig: Rig, transport: str) -> None:
    async def scenario() -> None:
        device = rig.device(transport)
        await device.press_key("POWER")
        assert not rig.phone.screen_on() and rig.phone.locked()
        report = await device.preflight(DEMO_SHOP_PACKAGE)
        assert report.screen_on and report.unlocked and report.ready
        assert rig.phone.screen_on() and not rig.phone.locked()

    run(scenario())


def test_bad_dumps_are_retried_until_one_is_good(adb_server: Any, transport: str) -> None:
    from adb_driver.conftest import make_rig, stop_rig

    rig = make_rig(adb_server, faults=Faults(dump_error_rate=0.5, dump_empty_rate=0.3), seed=3)
    try:
        dumps = [run(rig.device(transport).dump_hierarchy(timeout=30.0)) for _ in range(4)]
        failures = [e for e in rig.phone.fault_log if e.kind in ("dump_error", "dump_empty")]
        assert sum(d.attempts for d in dumps) == len(dumps) + len(failures)
        assert any(d.attempts > 1 for d in dumps)
        for dump in dumps:
            ET.fromstring(dump.xml)
    finally:
        stop_rig(adb_server, rig)


def test_a_device_that_never_dumps_raises_dump_error_in_time(adb_server: Any, transport: str) -> None:
    from adb_driver.conftest import make_rig, stop_rig

    rig = make_rig(adb_server, faults=Faults(dump_error_rate=1.0))
    try:
        loop_start = asyncio.run(_timed(rig.device(transport).dump_hierarchy(timeout=1.0)))
        assert loop_start < 3.0
    finally:
        stop_rig(adb_server, rig)


async def _timed(coro: Coroutine[Any, Any, Any]) -> float:
    started = asyncio.get_running_loop().time()
    with pytest.raises(DumpError, match="idle state") as caught:
        await coro
    assert "could not get idle state" in caught.value.output
    return asyncio.get_running_loop().time() - started


def test_unknown_serial_lists_the_connected_ones(rig: Rig, transport: str) -> None:
    device = AdbDevice("no-such-phone", transport=transport, server=rig.server)
    with pytest.raises(DeviceNotFoundError) as caught:
        run(device.tap(10, 10))
    assert rig.serial in str(caught.value)
    assert "adb connect" in str(caught.value)


def test_server_not_running_names_start_server_and_the_option(transport: str) -> None:
    from fsm_runner.sim_adb import free_port

    port = free_port()
    device = AdbDevice("any", transport=transport, server=f"127.0.0.1:{port}")
    with pytest.raises(AdbServerError) as caught:
        run(device.dump_hierarchy())
    assert f"adb -P {port} start-server" in str(caught.value) and "--adb-server" in str(caught.value)


def test_missing_package_is_refused_before_anything_is_sent(rig: Rig, transport: str) -> None:
    async def scenario() -> None:
        device = rig.device(transport)
        with pytest.raises(AppNotInstalledError) as caught:
            await device.start_app("com.example.notinstalled")
        assert caught.value.package == "com.example.notinstalled"
        assert "adb install" in str(caught.value)
        assert await device.current_app() == AppInfo(
            "com.android.launcher3", "com.android.launcher3.uioverrides.QuickstepLauncher"
        )

    run(scenario())


@pytest.mark.parametrize("point", [(-1, 10), (10, -1), (1080, 10), (10, 2400), (5000, 5000)])
def test_off_screen_points_are_refused_before_anything_is_sent(
    rig: Rig, transport: str, point: tuple[int, int]
) -> None:
    async def scenario() -> None:
        device = rig.device(transport)
        xml = await open_login(rig, device)
        with pytest.raises(InvalidActionError, match="1080x2400"):
            await device.tap(*point)
        with pytest.raises(InvalidActionError):
            await device.swipe(500, 500, *point)
        assert (await device.dump_hierarchy()).xml == xml

    run(scenario())


def test_a_device_going_offline_raises_device_offline_error(adb_server: Any, transport: str) -> None:
    from adb_driver.conftest import make_rig, stop_rig

    rig = make_rig(adb_server, faults=Faults(offline_after_s=10.0, offline_for_s=1000.0))
    try:

        async def scenario() -> None:
            device = rig.device(transport, command_timeout=3.0)
            assert (await device.shell("echo hi")).ok
            rig.clock.advance(20.0)
            with pytest.raises(DeviceOfflineError) as caught:
                for _ in range(50):
                    await device.shell("echo hi")
                    await asyncio.sleep(0.05)
            assert caught.value.serial == rig.serial
            with pytest.raises(DeviceOfflineError, match="reconnect"):
                await rig.device(transport).tap(10, 10)

        run(scenario())
    finally:
        stop_rig(adb_server, rig)


def test_a_tap_whose_answer_is_lost_raises_ack_lost_after_taking_effect(adb_server: Any, transport: str) -> None:
    from adb_driver.conftest import make_rig, stop_rig

    rig = make_rig(adb_server, faults=Faults(lost_ack_rate=1.0))
    try:

        async def scenario() -> None:
            device = rig.device(transport, command_timeout=1.0)
            with pytest.raises(AckLostError, match="re-observe"):
                await device.tap(540, 1200)
            assert [e.kind for e in rig.phone.fault_log] == ["lost_ack"]

        run(scenario())
    finally:
        stop_rig(adb_server, rig)


@pytest.mark.parametrize("attempt", ATTEMPT_CYCLE, ids=lambda a: f"file={a.to_file}-compressed={a.compressed}")
def test_every_dump_attempt_kind_yields_the_phones_hierarchy(rig: Rig, transport: str, attempt: DumpAttempt) -> None:
    result = run(rig.device(transport).shell(attempt.command()))
    assert extract_hierarchy(result.output) == rig.phone.ui_dump(compressed=attempt.compressed).xml


@pytest.mark.parametrize(("policy", "answer"), [("allow", "granted"), ("deny", "denied"), ("fail", "pending")])
def test_popup_policy_decides_the_permission_dialog(rig: Rig, transport: str, policy: str, answer: str) -> None:
    async def scenario() -> None:
        device = rig.device(transport, popup_policy=policy)
        await device.start_app(DEMO_SHOP_PACKAGE)
        rig.clock.advance(5.0)
        action = await device.handle_system_popup((await device.dump_hierarchy()).xml)
        assert action is not None
        assert (action.package, action.policy, action.tapped) == (
            "com.google.android.permissioncontroller",
            policy,
            policy != "fail",
        )
        assert rig.phone.notification_permission == answer
        still_shown = find_system_popup((await device.dump_hierarchy()).xml) is not None
        assert still_shown is (policy == "fail")

    run(scenario())


def test_preflight_reports_a_missing_package_with_its_fix(rig: Rig, transport: str) -> None:
    report = run(rig.device(transport).preflight("com.example.notinstalled"))
    assert not report.ready and report.package_version is None
    assert any("not installed" in problem and "adb install" in problem for problem in report.problems)
