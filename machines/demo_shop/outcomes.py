"""Business-outcome checks for Demo Shop: they read the shop's server state, not the screen.

In-process the simulated device carries its phone; a phone served through the
adb daemon is found by the serial the adb server gives it (register it with
:func:`register_phone`). On a real phone these checks would query the shop's
backend; here the simulator's state plays that part.
"""

from __future__ import annotations

from typing import Any

from fsm_runner.machine import OutcomeContext

_PHONES: dict[str, Any] = {}


def register_phone(serial: str, phone: Any) -> None:
    """Let outcome checks find ``phone`` when it is driven through adb as ``serial``."""
    _PHONES[serial] = phone


def shop_of(context: OutcomeContext) -> Any:
    """The Demo Shop server state behind the device, or None when it cannot be seen."""
    phone = getattr(context.device, "phone", None) or _PHONES.get(context.device.serial)
    return getattr(phone, "shop", None)


def cart_is(expected: dict[str, int]) -> Any:
    """Outcome: the cart holds exactly these product ids and quantities."""

    def check(context: OutcomeContext) -> bool | str:
        shop = shop_of(context)
        if shop is None:
            return "the shop's state cannot be seen from this device"
        actual = {item.product_id: item.quantity for item in shop.cart}
        return True if actual == expected else f"cart is {actual}, expected {expected}"

    return check


def orders_are(count: int) -> Any:
    """Outcome: exactly ``count`` orders exist (a duplicated submission shows as one too many)."""

    def check(context: OutcomeContext) -> bool | str:
        shop = shop_of(context)
        if shop is None:
            return "the shop's state cannot be seen from this device"
        return True if len(shop.orders) == count else f"{len(shop.orders)} orders exist, expected {count}"

    return check


def logged_in_as(user: str | None) -> Any:
    """Outcome: the server session belongs to ``user`` (None: nobody is logged in)."""

    def check(context: OutcomeContext) -> bool | str:
        shop = shop_of(context)
        if shop is None:
            return "the shop's state cannot be seen from this device"
        return True if shop.logged_in == user else f"logged in as {shop.logged_in!r}, expected {user!r}"

    return check


def setting_is(key: str, value: bool) -> Any:
    """Outcome: the server-side setting ``key`` has ``value``."""

    def check(context: OutcomeContext) -> bool | str:
        shop = shop_of(context)
        if shop is None:
            return "the shop's state cannot be seen from this device"
        actual = shop.settings.get(key)
        return True if actual is value else f"setting {key} is {actual}, expected {value}"

    return check
