"""Dumps of every Demo Shop screen from the simulated phone, in both locales (needs ``adapters.sim``)."""

from __future__ import annotations

from collections.abc import Iterator

from adapters.sim import DEMO_SHOP_PACKAGE, SimPhone
from adapters.sim.demo_shop.app import ACTIVITIES

KEYCODE_BACK = 4
#: Screens that need more than an activity name: a product for the detail page.
_DEEP_LINKS = {"detail": "demoshop://product/p02"}
_OVERLAYS = (("products", "sort"), ("settings", "logout"), ("settings", "delete"), ("detail", "promo"))


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _dump(phone: SimPhone, compressed: bool = False) -> str:
    outcome = phone.ui_dump(compressed=compressed)
    assert outcome.xml is not None, outcome.error
    return outcome.xml


def _open(phone: SimPhone, clock: FakeClock, route: str) -> None:
    if route in _DEEP_LINKS:
        phone.start_activity("", data_uri=_DEEP_LINKS[route])
    else:
        phone.start_activity(DEMO_SHOP_PACKAGE, f".{ACTIVITIES[route]}")
    clock.t += 5.0


def tour(locales: tuple[str, ...] = ("en", "zh-CN"), *, compressed: bool = False) -> Iterator[tuple[str, str]]:
    """(name, xml) for each Demo Shop activity, the first-launch permission popup, dialogs and the keyboard.

    ``compressed`` takes the dumps the way ``uiautomator dump --compressed`` does.
    """
    for locale in locales:
        clock = FakeClock()
        phone = SimPhone(locale=locale, now=clock)
        phone.start_activity(DEMO_SHOP_PACKAGE)
        yield f"demo-{locale}-splash", _dump(phone, compressed)
        clock.t += 5.0
        yield f"demo-{locale}-permission", _dump(phone, compressed)
        phone.keyevent(KEYCODE_BACK)
        phone.app.tap_field("username")
        yield f"demo-{locale}-login-keyboard", _dump(phone, compressed)
        phone.shop.logged_in = "alice"
        for pid in ("p01", "p03", "p05"):
            phone.shop.add_to_cart(pid)
        for route in ACTIVITIES:
            if route == "splash":
                continue
            _open(phone, clock, route)
            yield f"demo-{locale}-{route}", _dump(phone, compressed)
        for route, dialog in _OVERLAYS:
            _open(phone, clock, route)
            phone.app.ask(dialog)
            yield f"demo-{locale}-{route}-{dialog}", _dump(phone, compressed)
            phone.app.dismiss()
