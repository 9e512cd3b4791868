"""Every fault kind can be switched on, is logged in ``fault_log``, and has its effect."""

from __future__ import annotations

import pytest

from adapters.errors import AckLostError, DeviceOfflineError
from adapters.sim import Faults, SimPhone
from adapters.sim.demo_shop.state import CartItem
from tests.sim.conftest import make_driver
from tests.sim.dump_reader import PKG, FakeClock


def kinds(phone: SimPhone) -> list[str]:
    return [event.kind for event in phone.fault_log]


def test_no_faults_by_default_and_nothing_logged(clock: FakeClock) -> None:
    d = make_driver(clock)
    d.login()
    assert Faults() == Faults(0, 0, False, 0, 0, 0, 0, 0, 0, 0, 0)
    assert d.phone.fault_log == []


def test_slow_load_delays_the_splash(clock: FakeClock) -> None:
    d = make_driver(clock, faults=Faults(slow_load_s=2.0))
    d.phone.start_activity(PKG)
    d.wait(1.5)
    assert d.phone.current_focus() == (PKG, f"{PKG}.SplashActivity")
    d.wait(1.6)
    assert d.phone.current_focus()[0] == "com.google.android.permissioncontroller"
    assert d.phone.fault_log[0].kind == "slow_load" and "splash" in d.phone.fault_log[0].detail


def test_popup_covers_the_product_list_until_dismissed(clock: FakeClock) -> None:
    d = make_driver(clock, faults=Faults(popup_rate=1.0))
    d.login()
    assert "popup" in kinds(d.phone)
    assert d.exists(rid="android:id/alertTitle")
    d.tap(rid="product_item")
    assert d.phone.current_focus() == (PKG, f"{PKG}.ProductListActivity"), "the dialog swallows the tap"
    d.phone.keyevent(4)
    assert not d.exists(rid="android:id/alertTitle")


def test_keyboard_occlusion_opens_screens_with_the_keyboard_up(clock: FakeClock) -> None:
    d = make_driver(clock, faults=Faults(keyboard_occlusion=True))
    d.launch_to_login()
    assert d.exists(package="com.google.android.inputmethod.latin")
    assert d.find(rid="username").attrib["focused"] == "true"
    assert "keyboard_occlusion" in kinds(d.phone)


def test_dropped_tap_has_no_effect(clock: FakeClock) -> None:
    d = make_driver(clock)
    d.login()
    d.phone.faults = Faults(drop_tap_rate=1.0)
    d.tap(rid="cart_button")
    assert d.phone.current_focus() == (PKG, f"{PKG}.ProductListActivity")
    assert kinds(d.phone) == ["drop_tap"]


def test_duplicated_tap_is_applied_twice(clock: FakeClock) -> None:
    d = make_driver(clock)
    d.login()
    d.tap(rid="product_item")
    d.phone.faults = Faults(duplicate_tap_rate=1.0)
    d.tap(rid="add_to_cart")
    assert d.phone.shop.cart == [CartItem("p01", 2)]
    assert kinds(d.phone) == ["duplicate_tap"]


def test_lost_ack_raises_after_the_tap_took_effect(clock: FakeClock) -> None:
    d = make_driver(clock)
    d.login()
    d.tap(rid="product_item")
    d.phone.faults = Faults(lost_ack_rate=1.0)
    with pytest.raises(AckLostError):
        d.tap(rid="add_to_cart")
    assert d.phone.shop.cart == [CartItem("p01", 1)]
    assert kinds(d.phone) == ["lost_ack"]


def test_dump_errors_print_what_a_real_device_prints(clock: FakeClock) -> None:
    phone = SimPhone(now=clock, faults=Faults(dump_error_rate=1.0))
    outcome = phone.ui_dump()
    assert outcome.xml is None and outcome.error == "ERROR: could not get idle state"
    phone = SimPhone(now=clock, faults=Faults(dump_empty_rate=1.0))
    outcome = phone.ui_dump()
    assert outcome.xml is None and outcome.error == ""
    assert kinds(phone) == ["dump_empty"]


def test_crash_sends_the_app_back_to_the_launcher(clock: FakeClock) -> None:
    d = make_driver(clock)
    d.login()
    d.phone.faults = Faults(crash_rate=1.0)
    d.tap(rid="cart_button")
    assert d.phone.current_focus()[0] == "com.android.launcher3"
    assert not d.phone.app.running
    assert kinds(d.phone) == ["crash"]


def test_device_goes_offline_for_a_window_then_comes_back(clock: FakeClock) -> None:
    phone = SimPhone(now=clock, faults=Faults(offline_after_s=5.0, offline_for_s=3.0))
    assert phone.online
    clock.advance(6.0)
    assert not phone.online
    with pytest.raises(DeviceOfflineError):
        phone.ui_dump()
    with pytest.raises(DeviceOfflineError):
        phone.tap(10, 10)
    clock.advance(3.0)
    assert phone.online
    assert phone.ui_dump().xml is not None
    assert kinds(phone) == ["offline", "online"]


def test_same_seed_gives_the_same_faults_and_another_seed_differs(clock: FakeClock) -> None:
    def run(seed: int) -> list[tuple[str, str]]:
        phone = SimPhone(now=clock, seed=seed, faults=Faults(dump_error_rate=0.5, drop_tap_rate=0.5))
        for i in range(40):
            phone.ui_dump()
            phone.tap(i, 500)
        return [(e.kind, e.detail) for e in phone.fault_log]

    assert run(7) == run(7)
    assert run(7) != run(8)
    assert 10 < len(run(7)) < 70


def test_dump_error_is_logged_once_per_failed_dump(clock: FakeClock) -> None:
    phone = SimPhone(now=clock, faults=Faults(dump_error_rate=1.0))
    for _ in range(3):
        assert phone.ui_dump().error == "ERROR: could not get idle state"
    assert kinds(phone) == ["dump_error"] * 3
