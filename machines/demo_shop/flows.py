"""The Demo Shop machines, written once and built for each locale.

Each function returns a :class:`Machine` for one locale. The login machine is
reused by the others as a ``run_machine`` step, so its records nest in theirs.
"""

from __future__ import annotations

import attrs

from fsm_runner import Budgets, Expect, Machine, Step
from machines.demo_shop import outcomes
from machines.demo_shop.labels import PACKAGE, labels

#: The demo account (public: it exists only in the simulator). The password is a secret reference,
#: resolved only when typed, so it never appears in events, prompts or reports.
USER = "alice"
PASSWORD = "${secret:DEMO_SHOP_PASSWORD}"

_BUDGETS = Budgets(max_steps=40, max_wall_s=300.0)


def _suffix(locale: str) -> str:
    return locale.lower().replace("-", "_")


def login(locale: str) -> Machine:
    """Log in as the demo user; the keyboard covers the button until it is dismissed."""
    t = labels(locale)
    return Machine(
        name=f"login_{_suffix(locale)}",
        app=PACKAGE,
        description="Log in with valid credentials and land on the product list",
        steps=[
            Step("input_text", target=t["username"], value=USER,
                 expect=[Expect("input_value", target=t["username"], value=USER)]),
            Step("input_text", target=t["password"], value=PASSWORD, intent="type the password"),
            Step("tap", target=t["login"], expect=[Expect("visible", target=t["products"])], timeout_s=15),
        ],
        outcomes={"logged in": outcomes.logged_in_as(USER)},
        budgets=_BUDGETS,
        tags=("demo", locale),
    )


def login_failure(locale: str) -> Machine:
    """A wrong password shows the error and keeps the user out."""
    t = labels(locale)
    return Machine(
        name=f"login_failure_{_suffix(locale)}",
        app=PACKAGE,
        description="A wrong password shows the error message and no session starts",
        steps=[
            Step("input_text", target=t["username"], value=USER),
            Step("input_text", target=t["password"], value="not-the-password"),
            Step("tap", target=t["login"], timeout_s=15,
                 expect=[Expect("visible", target=t["login_error"]), Expect("absent", target=t["products"])]),
        ],
        outcomes={"nobody logged in": outcomes.logged_in_as(None)},
        budgets=_BUDGETS,
        tags=("demo", locale),
    )


def _logged_in(locale: str, name: str, description: str, steps: list[Step], **kw: object) -> Machine:
    sub = login(locale)
    return Machine(
        name=f"{name}_{_suffix(locale)}",
        app=PACKAGE,
        description=description,
        steps=[Step("run_machine", machine=sub.name, intent="log in"), *steps],
        machines={sub.name: sub},
        budgets=_BUDGETS,
        tags=("demo", locale),
        **kw,  # type: ignore[arg-type]
    )


def _add(locale: str, product: str, in_cart: int = 1) -> list[Step]:
    """Open ``product``, add it, and go back to the list, whose cart badge then shows ``in_cart``.

    The "Added to cart" toast is not in any dump, so the badge is the check that works on every device.
    """
    t = labels(locale)
    return [
        Step("tap", target=t[product], expect=[Expect("visible", target=t["add_to_cart"])]),
        Step("tap", target=t["add_to_cart"], expect=[Expect("visible", target=t["in_cart"].format(n=1))]),
        Step("press_back", expect=[
            Expect("visible", target=t["products"]), Expect("text_equals", target="cart badge", value=str(in_cart))]),
    ]


def add_to_cart(locale: str) -> Machine:
    """Add one product and find it in the cart."""
    t = labels(locale)
    return _logged_in(
        locale, "add_to_cart", "Add the headphones to the cart and see them there",
        [
            *_add(locale, "headphones"),
            Step("tap", target=t["cart"], expect=[
                Expect("visible", target=t["headphones"]), Expect("visible", target=t["qty_1"])]),
        ],
        outcomes={"cart holds the headphones": outcomes.cart_is({"p01": 1})},
    )


def change_quantity(locale: str) -> Machine:
    """Raise a cart row's quantity to two; the total must be twice the price read on the product page."""
    t = labels(locale)
    add = _add(locale, "headphones")
    # Read the price where the product shows it, and check the arithmetic later against it.
    add[0] = attrs.evolve(add[0], remember=[("price", "price")])
    return _logged_in(
        locale, "change_quantity", "Increase the quantity of a cart row from one to two",
        [
            *add,
            Step("tap", target=t["cart"], expect=[Expect("visible", target=t["qty_1"])]),
            Step("tap", target=t["increase"].format(name=t["headphones"]),
                 expect=[Expect("visible", target=t["qty_2"]),
                         Expect("text_contains", target=t["total"], value="${price*2}")]),
        ],
        outcomes={"two headphones": outcomes.cart_is({"p01": 2})},
    )


def delete_row(locale: str) -> Machine:
    """With two rows each showing "Delete", delete the right one."""
    t = labels(locale)
    return _logged_in(
        locale, "delete_row", "Delete the mug's row, not the headphones' (both rows say Delete)",
        [
            *_add(locale, "headphones"),
            *_add(locale, "mug", in_cart=2),
            Step("tap", target=t["cart"], expect=[Expect("visible", target=t["mug"])]),
            Step("tap", target=f'{t["delete"]} in the row with {t["mug"]}',
                 expect=[Expect("absent", target=t["mug"]), Expect("visible", target=t["headphones"])]),
        ],
        outcomes={"only the headphones remain": outcomes.cart_is({"p01": 1})},
    )


def checkout(locale: str) -> Machine:
    """Fill the address form and pay: a high-risk step the machine explicitly allows."""
    t = labels(locale)
    return _logged_in(
        locale, "checkout", "Check out with an address and pay once",
        [
            *_add(locale, "mug"),
            Step("tap", target=t["cart"], expect=[Expect("visible", target=t["checkout"])]),
            Step("tap", target=t["checkout"], expect=[Expect("visible", target=t["full_name"])]),
            Step("input_text", target=t["full_name"], value="Alice Example"),
            Step("input_text", target=t["street"], value="1 Main Street"),
            Step("input_text", target=t["city"], value="Springfield"),
            Step("input_text", target=t["postal"], value="12345"),
            Step("tap", target=t["continue"], expect=[Expect("visible", target=t["pay_now"])]),
            Step("tap", target=t["pay_now"], high_risk=True, timeout_s=15,
                 expect=[Expect("visible", target=t["thanks"])]),
        ],
        allow_high_risk=True,
        outcomes={"exactly one order": outcomes.orders_are(1), "cart emptied": outcomes.cart_is({})},
    )


def settings_switch(locale: str) -> Machine:
    """Turn dark mode on."""
    t = labels(locale)
    return _logged_in(
        locale, "settings_switch", "Turn on dark mode in the settings",
        [
            Step("tap", target=t["settings"], expect=[Expect("visible", target=t["dark_mode"])]),
            Step("tap", target=t["dark_mode"], expect=[Expect("checked", target=t["dark_mode"])]),
        ],
        outcomes={"dark mode on": outcomes.setting_is("dark_mode", True)},
    )


def logout(locale: str) -> Machine:
    """Log out through the confirmation dialog."""
    t = labels(locale)
    return _logged_in(
        locale, "logout", "Log out after confirming in the dialog",
        [
            Step("tap", target=t["settings"], expect=[Expect("visible", target=t["logout"])]),
            Step("tap", target=t["logout"], expect=[Expect("visible", target=t["logout_dialog"])]),
            Step("tap", target=t["logout_confirm"], expect=[Expect("visible", target=t["welcome"])]),
        ],
        outcomes={"session ended": outcomes.logged_in_as(None)},
    )


ALL_FLOWS = (login, login_failure, add_to_cart, change_quantity, delete_row, checkout, settings_switch, logout)
