"""Demo Shop's client: navigation, focus and text fields, and what each touch does.

The layout of each screen lives in :mod:`screens`; this module holds behaviour and
UI state, and talks to the server state (:class:`ShopState`) the way the real app
would talk to its backend.
"""

from __future__ import annotations

from typing import Protocol

import attrs

from adapters.sim.demo_shop.state import CATALOGUE, Address, ShopState
from adapters.sim.demo_shop.strings import Strings
from adapters.sim.faults import FaultInjector
from adapters.sim.timers import Timers

PACKAGE = "com.example.demoshop"
VERSION = "1.4.2"
SPLASH_S = 1.0
SIGN_IN_S = 0.5
PAYMENT_S = 0.5

ACTIVITIES: dict[str, str] = {
    "splash": "SplashActivity",
    "login": "LoginActivity",
    "products": "ProductListActivity",
    "detail": "ProductDetailActivity",
    "cart": "CartActivity",
    "address": "AddressActivity",
    "payment": "PaymentActivity",
    "confirmation": "OrderConfirmationActivity",
    "settings": "SettingsActivity",
}

#: Text fields per screen, in focus order (ENTER moves to the next one).
FIELDS: dict[str, tuple[str, ...]] = {
    "login": ("username", "password"),
    "products": ("search",),
    "address": ("full_name", "street", "city", "postal_code"),
}

_PUBLIC_ROUTES = ("splash", "login")


class ShopHost(Protocol):
    """What the app needs from the phone it runs on."""

    timers: Timers
    injector: FaultInjector

    def toast(self, text: str) -> None: ...

    def request_notification_permission(self) -> None: ...


@attrs.frozen
class Route:
    """One activity on the back stack; ``product_id`` for the detail screen."""

    name: str
    product_id: str = ""


def resolve_activity(name: str) -> str:
    """The route name for an activity given as ``.LoginActivity``, ``LoginActivity`` or fully qualified."""
    short = name.rsplit(".", 1)[-1]
    for route, activity in ACTIVITIES.items():
        if activity == short:
            return route
    raise KeyError(name)


class DemoShopApp:
    """The running app: its back stack, fields, focus, dialog and in-flight requests."""

    def __init__(self, shop: ShopState, strings: Strings, host: ShopHost) -> None:
        self.shop = shop
        self.t = strings
        self.host = host
        self.stack: list[Route] = []
        self.fields: dict[str, str] = {}
        self.focus: str | None = None
        self.ime_shown = False
        self.dialog: str | None = None
        self.scroll: dict[str, int] = {}
        self.error = ""
        self.busy = ""
        self.last_order_id = ""
        self.sort = "default"
        self.save_address = False

    @property
    def running(self) -> bool:
        return bool(self.stack)

    @property
    def route(self) -> Route:
        return self.stack[-1]

    def activity(self) -> str:
        return f"{PACKAGE}.{ACTIVITIES[self.route.name]}"

    def launch(self, route: str | None = None, product_id: str = "") -> None:
        """Bring the app to the front: resume it, or cold-start at the splash or at ``route``."""
        if route in (None, "splash"):
            if self.running:
                return
            self.stack = [Route("splash")]
            delay = SPLASH_S + self._slow("splash")
            self.host.timers.schedule(delay, "shop.splash", self._splash_done)
            return
        if route not in _PUBLIC_ROUTES and self.shop.logged_in is None:
            route, product_id = "login", ""
        base = [] if route in ("login", "products") else [Route("products")]
        self._replace([*base, Route(route, product_id)])

    def stop(self) -> None:
        """Kill the process: the back stack and every piece of UI state go; the server keeps its state."""
        self.host.timers.cancel_prefix("shop.")
        self.stack = []
        self.fields = {}
        self.focus = None
        self.ime_shown = False
        self.dialog = None
        self.scroll = {}
        self.error = ""
        self.busy = ""
        self.sort = "default"
        self.save_address = False

    def _slow(self, what: str) -> float:
        extra = self.host.injector.faults.slow_load_s
        if extra > 0:
            self.host.injector.note("slow_load", f"{what} +{extra:g}s")
        return extra

    def _splash_done(self) -> None:
        self._replace([Route("products" if self.shop.logged_in else "login")])
        self.host.request_notification_permission()

    def _replace(self, stack: list[Route]) -> None:
        self.stack = stack
        self._entered()

    def _push(self, route: Route) -> None:
        self.stack.append(route)
        self._entered()

    def _entered(self) -> None:
        """A new screen is showing: reset focus and errors; faults may pop a promo or raise the keyboard."""
        self.focus = None
        self.ime_shown = False
        self.error = ""
        self.dialog = None
        name = self.route.name
        if name in ("products", "detail", "cart") and self.host.injector.roll(
            "popup", self.host.injector.faults.popup_rate, name
        ):
            self.dialog = "promo"
        fields = FIELDS.get(name, ())
        if fields and self.host.injector.faults.keyboard_occlusion:
            self.host.injector.note("keyboard_occlusion", f"{name} opened with the keyboard up")
            self.focus = fields[0]
            self.ime_shown = True

    def back(self) -> bool:
        """Handle BACK; False means the app has nothing left to close and the launcher should show."""
        if self.ime_shown:
            self.ime_shown = False
            return True
        if self.dialog is not None:
            self.dialog = None
            return True
        if len(self.stack) > 1 and self.route.name not in ("confirmation",):
            self.stack.pop()
            self.focus = None
            self.error = ""
            return True
        if self.route.name == "confirmation":
            self._replace([Route("products")])
            return True
        return False

    def tap_field(self, field: str) -> None:
        self.focus = field
        self.ime_shown = True

    def field_value(self, field: str) -> str:
        return self.fields.get(field, "")

    def type_text(self, text: str) -> None:
        """Append to the focused field (nothing happens with no field focused, as on Android)."""
        if self.focus is None:
            return
        self.fields[self.focus] = self.field_value(self.focus) + text
        if self.focus == "search":
            self.scroll["products"] = 0

    def delete_char(self) -> None:
        if self.focus is not None:
            self.fields[self.focus] = self.field_value(self.focus)[:-1]

    def enter(self) -> None:
        """ENTER moves to the next field; on the last field it hides the keyboard and submits the form."""
        if self.focus is None:
            return
        order = FIELDS.get(self.route.name, ())
        if self.focus in order and order.index(self.focus) + 1 < len(order):
            self.focus = order[order.index(self.focus) + 1]
            return
        self.ime_shown = False
        if self.route.name == "login":
            self.submit_login()

    def scroll_by(self, key: str, dy: int, max_offset: int) -> bool:
        old = self.scroll.get(key, 0)
        new = max(0, min(max_offset, old + dy))
        self.scroll[key] = new
        return new != old

    def submit_login(self) -> None:
        if self.busy:
            return
        self.busy = "signing_in"
        self.error = ""
        delay = SIGN_IN_S + self._slow("sign-in")
        self.host.timers.schedule(delay, "shop.sign_in", self._sign_in_done)

    def _sign_in_done(self) -> None:
        self.busy = ""
        if self.shop.login(self.field_value("username").strip(), self.field_value("password")):
            self.fields = {}
            self._replace([Route("products")])
        else:
            self.fields["password"] = ""
            self.error = "login_error"

    def matching_products(self) -> list[str]:
        """Products whose name contains the search text, in the chosen sort order."""
        query = self.field_value("search").strip().casefold()
        found = [pid for pid in CATALOGUE if query in self.t.product(pid).casefold()]
        if self.sort == "name":
            found.sort(key=lambda pid: self.t.product(pid).casefold())
        elif self.sort in ("price_asc", "price_desc"):
            found.sort(key=lambda pid: CATALOGUE[pid], reverse=self.sort == "price_desc")
        return found

    def choose_sort(self, order: str) -> None:
        self.sort = order
        self.scroll["products"] = 0
        self.dialog = None

    def toggle_save_address(self) -> None:
        self.save_address = not self.save_address

    def open_product(self, product_id: str) -> None:
        self._push(Route("detail", product_id))

    def open(self, name: str) -> None:
        self._push(Route(name))

    def up(self) -> None:
        if len(self.stack) > 1:
            self.stack.pop()
            self.focus = None
            self.ime_shown = False

    def add_to_cart(self) -> None:
        self.shop.add_to_cart(self.route.product_id)
        self.host.toast(self.t("added_to_cart"))

    def change_quantity(self, product_id: str, delta: int) -> None:
        self.shop.change_quantity(product_id, delta)

    def remove(self, product_id: str) -> None:
        self.shop.remove(product_id)
        self.host.toast(self.t("removed_from_cart"))

    def checkout(self) -> None:
        if self.shop.cart:
            self._push(Route("address"))

    def submit_address(self) -> None:
        if all(self.field_value(f).strip() for f in FIELDS["address"]):
            self._push(Route("payment"))
        else:
            self.error = "address_error"

    def address(self) -> Address:
        return Address(*(self.field_value(f).strip() for f in FIELDS["address"]))

    def pay(self) -> None:
        """Place the order at once and show the confirmation after the payment round trip.

        The button stays enabled while the payment is processing, so a second tap in
        that window places a second order: the double-submission bug tests must catch.
        """
        if not self.shop.cart:
            return
        order = self.shop.place_order(self.address())
        if self.save_address and self.address() not in self.shop.saved_addresses:
            self.shop.saved_addresses.append(self.address())
        self.last_order_id = order.id
        self.busy = "paying"
        self.host.timers.cancel("shop.payment")
        delay = PAYMENT_S + self._slow("payment")
        self.host.timers.schedule(delay, "shop.payment", self._payment_done)

    def _payment_done(self) -> None:
        self.busy = ""
        self.shop.clear_cart()
        for field in FIELDS["address"]:
            self.fields.pop(field, None)
        self._replace([Route("products"), Route("confirmation")])

    def continue_shopping(self) -> None:
        self._replace([Route("products")])

    def toggle_setting(self, key: str) -> None:
        self.shop.settings[key] = not self.shop.settings[key]

    def ask(self, dialog: str) -> None:
        self.dialog = dialog

    def dismiss(self) -> None:
        self.dialog = None

    def confirm_logout(self) -> None:
        self.shop.logout()
        self.fields = {}
        self._replace([Route("login")])

    def confirm_delete_account(self) -> None:
        self.shop.delete_account()
        self.fields = {}
        self.host.toast(self.t("account_deleted"))
        self._replace([Route("login")])
