"""``SimDevice`` implements the Device protocol over a SimPhone: retries, refusals, text input, preflight."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

import pytest

from adapters.base import Device
from adapters.errors import DeviceOfflineError, DumpError, InvalidActionError, TextInputError
from adapters.sim import Faults, Latency, SimDevice, SimPhone
from tests.sim.dump_reader import PKG, FakeClock

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


class FakeSleep:
    """Records each wait and moves the fake clock instead of sleeping."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.clock.advance(seconds)


def device(clock: FakeClock, **phone_args: Any) -> tuple[SimDevice, SimPhone, FakeSleep]:
    phone = SimPhone(now=clock, **phone_args)
    sleep = FakeSleep(clock)
    return SimDevice(phone, sleep=sleep), phone, sleep


def test_sim_device_satisfies_the_device_protocol(clock: FakeClock) -> None:
    dev, _, _ = device(clock)
    assert isinstance(dev, Device)
    assert dev.serial == "sim-0"


def test_dump_retries_idle_state_errors_with_backoff(clock: FakeClock) -> None:
    dev, phone, sleep = device(clock, faults=Faults(dump_error_rate=0.6), seed=3)
    dump = run(dev.dump_hierarchy(timeout=20.0))
    assert dump.attempts > 1 and dump.xml.startswith("<?xml")
    assert sleep.waits == [0.25 * 2**i for i in range(dump.attempts - 1)]
    assert dump.latency_ms == pytest.approx(sum(sleep.waits) * 1000)
    assert [e.kind for e in phone.fault_log] == ["dump_error"] * (dump.attempts - 1)


def test_dump_gives_up_with_dump_error_when_out_of_time(clock: FakeClock) -> None:
    dev, _, sleep = device(clock, faults=Faults(dump_error_rate=1.0))
    with pytest.raises(DumpError) as caught:
        run(dev.dump_hierarchy(timeout=5.0))
    assert caught.value.output == "ERROR: could not get idle state"
    assert sum(sleep.waits) <= 5.0


def test_latency_is_waited_through_the_injected_sleep(clock: FakeClock) -> None:
    phone = SimPhone(now=clock)
    sleep = FakeSleep(clock)
    dev = SimDevice(phone, latency=Latency(dump_s=1.5, tap_s=0.1), sleep=sleep)
    dump = run(dev.dump_hierarchy())
    run(dev.tap(10, 10))
    assert sleep.waits == [1.5, 0.1]
    assert dump.latency_ms == pytest.approx(1500.0)


def test_off_screen_tap_is_refused_before_anything_is_sent(clock: FakeClock) -> None:
    dev, phone, _ = device(clock, faults=Faults(drop_tap_rate=1.0))
    for x, y in ((-1, 5), (1080, 5), (5, 2400)):
        with pytest.raises(InvalidActionError):
            run(dev.tap(x, y))
    with pytest.raises(InvalidActionError):
        run(dev.swipe(10, 10, 10, 99999))
    assert phone.fault_log == []


def login_screen(dev: SimDevice, clock: FakeClock) -> None:
    run(dev.start_app(PKG))
    clock.advance(1.1)
    run(dev.press_key("BACK"))
    run(dev.tap(540, 700))


def test_unicode_without_adb_keyboard_is_refused_naming_the_fix(clock: FakeClock) -> None:
    dev, phone, _ = device(clock)
    login_screen(dev, clock)
    assert phone.focused_text() == ""
    with pytest.raises(TextInputError, match="ADB keyboard"):
        run(dev.input_text("爱丽丝"))
    assert phone.focused_text() == ""


def test_percent_s_and_spaces_are_typed_exactly_with_input_text(clock: FakeClock) -> None:
    dev, phone, _ = device(clock)
    login_screen(dev, clock)
    run(dev.input_text("50%s off & 'more'"))
    assert phone.focused_text() == "50%s off & 'more'"


def test_preflight_selects_the_adb_keyboard_and_unicode_is_typed_exactly(clock: FakeClock) -> None:
    dev, phone, _ = device(clock, adb_keyboard=True)
    report = run(dev.preflight(PKG))
    assert report.ready and report.unicode_input and report.package_version == "1.4.2"
    login_screen(dev, clock)
    run(dev.input_text("爱丽丝 ✓"))
    assert phone.focused_text() == "爱丽丝 ✓"
    run(dev.restore())
    assert phone.settings_get("secure", "default_input_method") != "com.android.adbkeyboard/.AdbIME"


def test_preflight_turns_animations_off_and_restore_puts_them_back(clock: FakeClock) -> None:
    dev, phone, _ = device(clock)
    phone.settings_put("global", "animator_duration_scale", "0.5")
    phone.keyevent(26)
    report = run(dev.preflight(PKG))
    assert report.animations_off and report.screen_on and report.unlocked and report.ready
    assert not report.unicode_input
    assert phone.settings_get("global", "window_animation_scale") == "0"
    run(dev.restore())
    run(dev.restore())
    assert phone.settings_get("global", "window_animation_scale") == "1.0"
    assert phone.settings_get("global", "animator_duration_scale") == "0.5"


def test_preflight_reports_a_missing_app_and_an_offline_device(clock: FakeClock) -> None:
    dev, _, _ = device(clock)
    report = run(dev.preflight("com.example.missing"))
    assert not report.ready and "not installed" in report.problems[0]
    dev, _, _ = device(clock, faults=Faults(offline_after_s=0.0, offline_for_s=10.0))
    report = run(dev.preflight(PKG))
    assert not report.ready and "offline" in report.problems[0]
    with pytest.raises(DeviceOfflineError):
        run(dev.tap(1, 1))


def test_keys_apps_and_deep_links_reach_the_phone(clock: FakeClock) -> None:
    dev, phone, _ = device(clock)
    with pytest.raises(InvalidActionError):
        run(dev.press_key("VOLUME_UP"))  # type: ignore[arg-type]
    run(dev.start_app(PKG))
    assert run(dev.current_app()).package == PKG
    run(dev.stop_app(PKG))
    assert run(dev.current_app()).package == "com.android.launcher3"
    phone.shop.logged_in = "alice"
    run(dev.open_uri("demoshop://cart"))
    assert run(dev.current_app()).activity == f"{PKG}.CartActivity"
    assert (run(dev.window_size()).width, run(dev.rotation())) == (1080, 0)


def test_shell_runs_in_the_simulated_device_shell(clock: FakeClock) -> None:
    dev, _, _ = device(clock)
    result = run(dev.shell("getprop ro.build.version.sdk"))
    assert result.ok and result.output.strip() == "34"


def test_closed_device_is_unusable(clock: FakeClock) -> None:
    dev, _, _ = device(clock)
    run(dev.close())
    with pytest.raises(DeviceOfflineError):
        run(dev.tap(1, 1))
    with pytest.raises(DeviceOfflineError):
        run(dev.dump_hierarchy())


def test_recent_toasts_are_readable_through_the_device(clock: FakeClock) -> None:
    dev, phone, _ = device(clock)
    phone.shop.logged_in = "alice"
    run(dev.open_uri("demoshop://product/p03"))
    assert run(dev.recent_toasts()) == ()
    phone.tap(540, 2255)
    assert run(dev.recent_toasts()) == ("Added to cart",)
    clock.advance(4.0)
    assert run(dev.recent_toasts()) == ()
