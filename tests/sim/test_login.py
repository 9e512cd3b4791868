"""Logging in to Demo Shop by raw taps and typing, in both locales."""

from __future__ import annotations

from adapters.sim.demo_shop.strings import Strings
from tests.sim.dump_reader import PKG, Driver


def test_valid_credentials_reach_the_product_list(driver: Driver, locale: str) -> None:
    driver.login()
    assert driver.phone.current_focus() == (PKG, f"{PKG}.ProductListActivity")
    assert driver.phone.shop.logged_in == "alice"
    assert driver.find(rid="toolbar").find("node[@class='android.widget.TextView']") is not None
    assert driver.exists(text=Strings(locale)("products_title"))


def test_wrong_password_shows_the_error_and_stays_on_login(driver: Driver, locale: str) -> None:
    driver.login(password="nope")
    assert driver.phone.current_focus() == (PKG, f"{PKG}.LoginActivity")
    assert driver.find(rid="login_error").attrib["text"] == Strings(locale)("login_error")
    assert driver.phone.shop.logged_in is None


def test_keyboard_covers_the_login_button_until_back(driver: Driver) -> None:
    driver.launch_to_login()
    driver.type_into("username", "alice")
    driver.type_into("password", "secret123")
    assert driver.exists(package="com.google.android.inputmethod.latin")
    driver.tap(rid="login_button")
    driver.wait(1.0)
    assert driver.phone.shop.logged_in is None, "the tap must land on the keyboard, not the button"
    typed = driver.phone.focused_text()
    assert typed is not None and typed.startswith("secret123") and len(typed) == 10, "a key was typed instead"
    driver.phone.keyevent(67)
    driver.phone.keyevent(4)
    assert not driver.exists(package="com.google.android.inputmethod.latin")
    driver.tap(rid="login_button")
    driver.wait(0.6)
    assert driver.phone.shop.logged_in == "alice"


def test_password_is_masked_in_the_dump_but_readable_back(driver: Driver) -> None:
    driver.launch_to_login()
    driver.type_into("password", "secret123")
    node = driver.find(rid="password")
    assert node.attrib["password"] == "true"
    assert node.attrib["text"] == "\u2022" * 9
    assert driver.phone.focused_text() == "secret123"


def test_splash_waits_for_its_delay_before_login(driver: Driver) -> None:
    driver.phone.start_activity(PKG)
    driver.wait(0.9)
    assert driver.phone.current_focus() == (PKG, f"{PKG}.SplashActivity")
    driver.wait(0.2)
    assert driver.phone.current_focus()[0] == "com.google.android.permissioncontroller"


def test_power_locks_and_a_swipe_up_unlocks(driver: Driver) -> None:
    driver.launch_to_login()
    driver.phone.keyevent(26)
    driver.phone.keyevent(224)
    assert driver.phone.screen_on() and driver.phone.locked()
    assert driver.phone.current_focus() == ("com.android.systemui", "NotificationShade")
    driver.tap(rid="login_button")
    assert driver.phone.locked(), "the lock screen swallows taps"
    driver.phone.swipe(540, 2000, 540, 600, 200)
    assert not driver.phone.locked()
    assert driver.phone.current_focus() == (PKG, f"{PKG}.LoginActivity")
