"""Demo Shop's server side: accounts, cart, orders and settings, inspectable by tests."""

from __future__ import annotations

import attrs

#: Product id -> unit price in cents; names live in the locale tables.
CATALOGUE: dict[str, int] = {
    "p01": 5999,
    "p02": 12900,
    "p03": 950,
    "p04": 7490,
    "p05": 3999,
    "p06": 2400,
    "p07": 1499,
    "p08": 2990,
    "p09": 4500,
    "p10": 875,
    "p11": 1999,
    "p12": 1249,
    "p13": 799,
    "p14": 1680,
}


@attrs.frozen
class CartItem:
    """One cart row: a product and how many of it."""

    product_id: str
    quantity: int = attrs.field(validator=attrs.validators.ge(1))

    @property
    def line_total_cents(self) -> int:
        return CATALOGUE[self.product_id] * self.quantity


@attrs.frozen
class Address:
    full_name: str
    street: str
    city: str
    postal_code: str


@attrs.frozen
class Order:
    """A paid order as the server recorded it."""

    id: str
    user: str
    items: tuple[CartItem, ...]
    total_cents: int
    address: Address


@attrs.define
class ShopState:
    """Everything the Demo Shop server knows; the app mutates it only through these methods."""

    passwords: dict[str, str] = attrs.field(factory=lambda: {"alice": "secret123"})
    logged_in: str | None = None
    cart: list[CartItem] = attrs.field(factory=list)
    orders: list[Order] = attrs.field(factory=list)
    settings: dict[str, bool] = attrs.field(
        factory=lambda: {"notifications": True, "dark_mode": False, "save_payment": False}
    )
    account_deleted: bool = False
    saved_addresses: list[Address] = attrs.field(factory=list)

    def login(self, user: str, password: str) -> bool:
        """Start a session when the credentials match a live account."""
        if self.passwords.get(user) == password and password:
            self.logged_in = user
            return True
        return False

    def logout(self) -> None:
        self.logged_in = None

    def add_to_cart(self, product_id: str) -> None:
        for i, item in enumerate(self.cart):
            if item.product_id == product_id:
                self.cart[i] = CartItem(product_id, item.quantity + 1)
                return
        self.cart.append(CartItem(product_id, 1))

    def change_quantity(self, product_id: str, delta: int) -> None:
        """Add ``delta`` to a row's quantity; a row never drops below one (use ``remove``)."""
        for i, item in enumerate(self.cart):
            if item.product_id == product_id:
                self.cart[i] = CartItem(product_id, max(1, item.quantity + delta))

    def remove(self, product_id: str) -> None:
        self.cart = [item for item in self.cart if item.product_id != product_id]

    def cart_quantity(self, product_id: str) -> int:
        return sum(item.quantity for item in self.cart if item.product_id == product_id)

    @property
    def cart_total_cents(self) -> int:
        return sum(item.line_total_cents for item in self.cart)

    def place_order(self, address: Address) -> Order:
        """Record an order for the current cart. Deliberately not idempotent: each call is a new order."""
        order = Order(
            id=f"#{1001 + len(self.orders)}",
            user=self.logged_in or "",
            items=tuple(self.cart),
            total_cents=self.cart_total_cents,
            address=address,
        )
        self.orders.append(order)
        return order

    def clear_cart(self) -> None:
        self.cart = []

    def delete_account(self) -> None:
        """Remove the logged-in account for good: its password and session."""
        if self.logged_in is not None:
            self.passwords.pop(self.logged_in, None)
        self.account_deleted = True
        self.logged_in = None
        self.cart = []
