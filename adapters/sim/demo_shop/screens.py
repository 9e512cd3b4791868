"""The layout of every Demo Shop screen and dialog, rebuilt from app state on each query."""

from __future__ import annotations

import functools

from adapters.sim.demo_shop.app import FIELDS, PACKAGE, DemoShopApp
from adapters.sim.demo_shop.state import CATALOGUE
from adapters.sim.geometry import Rect
from adapters.sim.widgets import (
    CHECKBOX,
    LINEAR,
    PROGRESS,
    RADIO,
    Column,
    Node,
    button,
    clipped,
    container,
    edit_text,
    icon_button,
    image,
    scroll_list,
    text_view,
    toggle,
)
from adapters.sim.windows import Window

STATUS_BAR_DP = 84


def rid(name: str) -> str:
    return f"{PACKAGE}:id/{name}"


class Screen:
    """Pixel metrics of one display; layouts are designed for 1080 wide and scale with the width."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.unit = width / 1080

    def s(self, n: float) -> int:
        return round(n * self.unit)

    @property
    def status_bar(self) -> int:
        return self.s(STATUS_BAR_DP)

    @property
    def full(self) -> Rect:
        return Rect(0, 0, self.width, self.height)

    @property
    def keyboard_top(self) -> int:
        return self.height - round(self.height * 0.36)


def app_windows(app: DemoShopApp, screen: Screen) -> list[Window]:
    """The app's window and, when one is open, its dialog window above it."""
    build = _SCREENS[app.route.name]
    content = Rect(0, screen.status_bar, screen.width, screen.height)
    body = build(app, screen, content)
    dark = app.shop.settings.get("dark_mode", False)
    root = container(screen.full, [container(content, [body], resource_id="android:id/content")],
                     style="dark" if dark else "")
    windows = [Window(PACKAGE, root, kind="app")]
    if app.dialog is not None:
        windows.append(_dialog(app, screen))
    return windows


def _toolbar(app: DemoShopApp, screen: Screen, content: Rect, title: str, *, up: bool,
             actions: list[Node] | None = None) -> Node:
    bar = Rect(0, content.top, screen.width, content.top + screen.s(168))
    kids: list[Node] = []
    left = screen.s(48)
    if up:
        kids.append(icon_button(Rect(screen.s(12), bar.top + screen.s(24), screen.s(132), bar.bottom - screen.s(24)),
                                app.t("navigate_up"), app.up, style="icon-back"))
        left = screen.s(156)
    kids.append(text_view(Rect(left, bar.top + screen.s(40), screen.s(700), bar.bottom - screen.s(40)), title,
                          style="title"))
    kids.extend(actions or [])
    return container(bar, kids, cls="android.view.ViewGroup", resource_id=rid("toolbar"), style="toolbar")


def _splash(app: DemoShopApp, screen: Screen, content: Rect) -> Node:
    mid = content.top + content.height // 2
    logo = image(Rect(screen.s(390), mid - screen.s(400), screen.s(690), mid - screen.s(100)), app.t("app_name"),
                 resource_id=rid("splash_logo"), style="logo")
    name = text_view(Rect(screen.s(140), mid - screen.s(60), screen.s(940), mid + screen.s(40)), app.t("app_name"),
                     resource_id=rid("splash_title"), style="title-center")
    spinner = Node(cls=PROGRESS, bounds=Rect(screen.s(480), mid + screen.s(120), screen.s(600), mid + screen.s(240)),
                   resource_id=rid("splash_progress"), style="spinner")
    loading = text_view(Rect(screen.s(140), mid + screen.s(280), screen.s(940), mid + screen.s(360)),
                        app.t("splash_loading"), style="muted-center")
    return container(content, [logo, name, spinner, loading], cls=LINEAR)


def _field(app: DemoShopApp, rect: Rect, field: str, hint_key: str, *, password: bool = False) -> Node:
    return edit_text(rect, field, app.field_value(field), app.t(hint_key), focused=app.focus == field,
                     on_tap=lambda: app.tap_field(field), resource_id=rid(field), password=password)


def _login(app: DemoShopApp, screen: Screen, content: Rect) -> Node:
    col = Column(content, padding=screen.s(72), gap=screen.s(36))
    col.skip(screen.s(160))
    kids = [
        text_view(col.row(screen.s(110)), app.t("login_title"), resource_id=rid("login_title"), style="headline"),
        text_view(col.row(screen.s(70)), app.t("login_subtitle"), style="muted"),
    ]
    col.skip(screen.s(60))
    kids.append(_field(app, col.row(screen.s(150)), "username", "username_hint"))
    kids.append(_field(app, col.row(screen.s(150)), "password", "password_hint", password=True))
    if app.error:
        kids.append(text_view(col.row(screen.s(70)), app.t(app.error), resource_id=rid("login_error"), style="error"))
    if app.busy == "signing_in":
        kids.append(text_view(col.row(screen.s(70)), app.t("signing_in"), resource_id=rid("login_progress"),
                              style="muted"))
    bottom = content.bottom - screen.s(360)
    kids.append(button(Rect(screen.s(72), bottom, screen.width - screen.s(72), bottom + screen.s(150)),
                       app.t("login_button"), app.submit_login, resource_id=rid("login_button")))
    return container(content, kids, cls=LINEAR)


def _products(app: DemoShopApp, screen: Screen, content: Rect) -> Node:
    count = sum(item.quantity for item in app.shop.cart)
    cart_x = screen.width - screen.s(150)
    bar_top = content.top + screen.s(24)
    actions = [
        icon_button(Rect(cart_x - screen.s(300), bar_top, cart_x - screen.s(180), bar_top + screen.s(120)),
                    app.t("sort_desc"), lambda: app.ask("sort"), resource_id=rid("sort_button"), style="icon-sort"),
        icon_button(Rect(cart_x - screen.s(150), bar_top, cart_x - screen.s(30), bar_top + screen.s(120)),
                    app.t("settings_desc"), lambda: app.open("settings"), resource_id=rid("settings_button"),
                    style="icon-gear"),
        icon_button(Rect(cart_x, bar_top, cart_x + screen.s(120), bar_top + screen.s(120)), app.t("cart_desc"),
                    lambda: app.open("cart"), resource_id=rid("cart_button"), style="icon-cart"),
    ]
    if count:
        actions.append(text_view(Rect(cart_x + screen.s(70), bar_top, cart_x + screen.s(130), bar_top + screen.s(56)),
                                 str(count), resource_id=rid("cart_badge"), style="badge"))
    toolbar = _toolbar(app, screen, content, app.t("products_title"), up=False, actions=actions)
    search_top = toolbar.bounds.bottom + screen.s(24)
    search = _field(app, Rect(screen.s(48), search_top, screen.width - screen.s(48), search_top + screen.s(140)),
                    "search", "search_hint")
    viewport = Rect(0, search.bounds.bottom + screen.s(24), screen.width, content.bottom)
    row_h = screen.s(220)
    products = app.matching_products()
    max_offset = max(0, len(products) * row_h - viewport.height)
    offset = min(app.scroll.get("products", 0), max_offset)
    rows: list[Node] = []
    for i, pid in enumerate(products):
        top = viewport.top + i * row_h - offset
        row = _product_row(app, screen, Rect(0, top, screen.width, top + row_h), pid)
        visible = clipped(row, viewport)
        if visible is not None:
            rows.append(visible)
    kids: list[Node] = [toolbar, search]
    if products:
        kids.append(scroll_list(viewport, rows, lambda dy: app.scroll_by("products", dy, max_offset),
                                resource_id=rid("product_list")))
    else:
        kids.append(text_view(Rect(screen.s(48), viewport.top + screen.s(48), screen.width - screen.s(48),
                                   viewport.top + screen.s(128)), app.t("no_results"), resource_id=rid("empty"),
                              style="muted-center"))
    return container(content, kids, cls=LINEAR)


def _product_row(app: DemoShopApp, screen: Screen, rect: Rect, pid: str) -> Node:
    name = app.t.product(pid)
    pad = screen.s(24)
    kids = [
        image(Rect(screen.s(48), rect.top + pad, screen.s(220), rect.bottom - pad), name,
              resource_id=rid("product_image"), style=f"thumb-{pid}"),
        text_view(Rect(screen.s(260), rect.top + screen.s(40), screen.width - screen.s(48), rect.top + screen.s(120)),
                  name, resource_id=rid("product_name"), style="strong"),
        text_view(Rect(screen.s(260), rect.top + screen.s(125), screen.width - screen.s(48),
                       rect.top + screen.s(185)), app.t.money(CATALOGUE[pid]), resource_id=rid("product_price"),
                  style="price"),
    ]
    return Node(cls=LINEAR, bounds=rect, children=tuple(kids), resource_id=rid("product_item"), clickable=True,
                focusable=True, on_tap=lambda: app.open_product(pid), style="row")


def _detail(app: DemoShopApp, screen: Screen, content: Rect) -> Node:
    pid = app.route.product_id
    name = app.t.product(pid)
    toolbar = _toolbar(app, screen, content, name, up=True)
    col = Column(Rect(0, toolbar.bounds.bottom, screen.width, content.bottom), padding=screen.s(48),
                 gap=screen.s(32))
    review = app.t("review_injection") if pid == "p01" else app.t("review_plain")
    kids = [
        toolbar,
        image(col.row(screen.s(600)), name, resource_id=rid("detail_image"), style=f"hero-{pid}"),
        text_view(col.row(screen.s(100)), name, resource_id=rid("detail_name"), style="headline"),
        text_view(col.row(screen.s(80)), app.t.money(CATALOGUE[pid]), resource_id=rid("detail_price"),
                  style="price-large"),
        text_view(col.row(screen.s(180)), app.t("description", name=name), resource_id=rid("detail_description")),
        text_view(col.row(screen.s(70)), app.t("reviews_title"), style="strong"),
        text_view(col.row(screen.s(140)), review, resource_id=rid("review_text"), style="banner"),
    ]
    in_cart = sum(item.quantity for item in app.shop.cart if item.product_id == pid)
    if in_cart:
        kids.append(text_view(col.row(screen.s(70)), app.t("in_cart", n=in_cart), resource_id=rid("in_cart"),
                              style="muted"))
    bottom = content.bottom - screen.s(220)
    kids.append(button(Rect(screen.s(48), bottom, screen.width - screen.s(48), bottom + screen.s(150)),
                       app.t("add_to_cart"), app.add_to_cart, resource_id=rid("add_to_cart")))
    return container(content, kids, cls=LINEAR)


def _cart(app: DemoShopApp, screen: Screen, content: Rect) -> Node:
    toolbar = _toolbar(app, screen, content, app.t("cart_title"), up=True)
    footer_top = content.bottom - screen.s(380)
    viewport = Rect(0, toolbar.bounds.bottom, screen.width, footer_top)
    row_h = screen.s(270)
    max_offset = max(0, len(app.shop.cart) * row_h - viewport.height)
    offset = min(app.scroll.get("cart", 0), max_offset)
    kids: list[Node] = [toolbar]
    if app.shop.cart:
        rows = []
        for i, item in enumerate(app.shop.cart):
            top = viewport.top + i * row_h - offset
            row = _cart_row(app, screen, Rect(0, top, screen.width, top + row_h), item.product_id, item.quantity)
            visible = clipped(row, viewport)
            if visible is not None:
                rows.append(visible)
        kids.append(scroll_list(viewport, rows, lambda dy: app.scroll_by("cart", dy, max_offset),
                                resource_id=rid("cart_list")))
    else:
        kids.append(text_view(Rect(screen.s(48), viewport.top + screen.s(100), screen.width - screen.s(48),
                                   viewport.top + screen.s(180)), app.t("cart_empty"), resource_id=rid("cart_empty"),
                              style="muted-center"))
    total = app.t("total", total=app.t.money(app.shop.cart_total_cents))
    kids.append(text_view(Rect(screen.s(48), footer_top + screen.s(30), screen.width - screen.s(48),
                               footer_top + screen.s(120)), total, resource_id=rid("cart_total"), style="strong"))
    kids.append(button(Rect(screen.s(48), footer_top + screen.s(160), screen.width - screen.s(48),
                            footer_top + screen.s(310)), app.t("checkout"), app.checkout,
                       resource_id=rid("checkout"), enabled=bool(app.shop.cart)))
    return container(content, kids, cls=LINEAR)


def _cart_row(app: DemoShopApp, screen: Screen, rect: Rect, pid: str, quantity: int) -> Node:
    name = app.t.product(pid)
    s = screen.s
    line = app.t.money(CATALOGUE[pid] * quantity)
    controls_top = rect.top + s(140)
    kids = [
        text_view(Rect(s(48), rect.top + s(30), s(700), rect.top + s(110)), name, resource_id=rid("item_name"),
                  style="strong"),
        text_view(Rect(s(720), rect.top + s(30), screen.width - s(48), rect.top + s(110)), line,
                  resource_id=rid("item_price"), style="price"),
        button(Rect(s(48), controls_top, s(168), controls_top + s(110)), "-",
               lambda: app.change_quantity(pid, -1), resource_id=rid("qty_minus"), style="outline",
               content_desc=app.t("qty_minus", name=name)),
        text_view(Rect(s(188), controls_top + s(20), s(420), controls_top + s(90)), app.t("qty", n=quantity),
                  resource_id=rid("item_quantity")),
        button(Rect(s(440), controls_top, s(560), controls_top + s(110)), "+",
               lambda: app.change_quantity(pid, 1), resource_id=rid("qty_plus"), style="outline",
               content_desc=app.t("qty_plus", name=name)),
        button(Rect(screen.width - s(330), controls_top, screen.width - s(48), controls_top + s(110)),
               app.t("delete"), lambda: app.remove(pid), resource_id=rid("delete_item"), style="danger"),
    ]
    return container(rect, kids, cls=LINEAR, resource_id=rid("cart_item"), style="row")


def _address(app: DemoShopApp, screen: Screen, content: Rect) -> Node:
    toolbar = _toolbar(app, screen, content, app.t("address_title"), up=True)
    col = Column(Rect(0, toolbar.bounds.bottom, screen.width, content.bottom), padding=screen.s(48),
                 gap=screen.s(28))
    hints = {"full_name": "full_name_hint", "street": "street_hint", "city": "city_hint",
             "postal_code": "postal_hint"}
    kids: list[Node] = [toolbar]
    kids.extend(_field(app, col.row(screen.s(140)), f, hints[f]) for f in FIELDS["address"])
    kids.append(toggle(col.row(screen.s(120)), app.t("save_address"), app.save_address, app.toggle_save_address,
                       resource_id=rid("save_address"), kind=CHECKBOX))
    if app.error:
        kids.append(text_view(col.row(screen.s(70)), app.t(app.error), resource_id=rid("address_error"),
                              style="error"))
    kids.append(button(col.row(screen.s(150)), app.t("continue"), app.submit_address,
                       resource_id=rid("address_continue")))
    return container(content, kids, cls=LINEAR)


def _payment(app: DemoShopApp, screen: Screen, content: Rect) -> Node:
    toolbar = _toolbar(app, screen, content, app.t("payment_title"), up=True)
    col = Column(Rect(0, toolbar.bounds.bottom, screen.width, content.bottom), padding=screen.s(48),
                 gap=screen.s(28))
    kids: list[Node] = [toolbar]
    for item in app.shop.cart:
        kids.append(text_view(col.row(screen.s(70)), f"{item.quantity} x {app.t.product(item.product_id)}",
                              resource_id=rid("summary_item")))
    address = app.address()
    kids.append(text_view(col.row(screen.s(70)), app.t("ship_to", address=f"{address.street}, {address.city}"),
                          resource_id=rid("summary_address"), style="muted"))
    kids.append(text_view(col.row(screen.s(70)), app.t("pay_with"), style="muted"))
    kids.append(text_view(col.row(screen.s(90)), app.t("total", total=app.t.money(app.shop.cart_total_cents)),
                          resource_id=rid("payment_total"), style="strong"))
    if app.busy == "paying":
        kids.append(text_view(col.row(screen.s(70)), app.t("paying"), resource_id=rid("payment_progress"),
                              style="muted"))
    bottom = content.bottom - screen.s(220)
    kids.append(button(Rect(screen.s(48), bottom, screen.width - screen.s(48), bottom + screen.s(150)),
                       app.t("pay_now"), app.pay, resource_id=rid("pay_now")))
    return container(content, kids, cls=LINEAR)


def _confirmation(app: DemoShopApp, screen: Screen, content: Rect) -> Node:
    col = Column(content, padding=screen.s(72), gap=screen.s(40))
    col.skip(screen.s(400))
    kids = [
        image(col.row(screen.s(240), inset=screen.s(420)), "", style="check"),
        text_view(col.row(screen.s(110)), app.t("order_confirmed", id=app.last_order_id),
                  resource_id=rid("order_confirmed"), style="headline-center"),
        text_view(col.row(screen.s(80)), app.t("order_thanks"), style="muted-center"),
        button(col.row(screen.s(150)), app.t("continue_shopping"), app.continue_shopping,
               resource_id=rid("continue_shopping")),
    ]
    return container(content, kids, cls=LINEAR)


def _settings(app: DemoShopApp, screen: Screen, content: Rect) -> Node:
    toolbar = _toolbar(app, screen, content, app.t("settings_title"), up=True)
    col = Column(Rect(0, toolbar.bounds.bottom, screen.width, content.bottom), padding=screen.s(48),
                 gap=screen.s(16))
    kids: list[Node] = [toolbar]
    for key in ("notifications", "dark_mode", "save_payment"):
        kids.append(toggle(col.row(screen.s(150)), app.t(f"setting_{key}"), app.shop.settings[key],
                           functools.partial(app.toggle_setting, key), resource_id=rid(f"switch_{key}")))
    col.skip(screen.s(80))
    kids.append(button(col.row(screen.s(150)), app.t("logout"), lambda: app.ask("logout"),
                       resource_id=rid("logout"), style="outline"))
    kids.append(button(col.row(screen.s(150)), app.t("delete_account"), lambda: app.ask("delete"),
                       resource_id=rid("delete_account"), style="danger"))
    return container(content, kids, cls=LINEAR)


SORT_ORDERS = ("default", "name", "price_asc", "price_desc")


def _bottom_sheet(app: DemoShopApp, screen: Screen) -> Window:
    """The sort bottom sheet: a modal panel along the bottom edge with one radio button per order."""
    s = screen.s
    sheet = Rect(0, screen.height - s(180) - s(150) * len(SORT_ORDERS), screen.width, screen.height)
    col = Column(sheet, padding=s(48), gap=0)
    kids = [text_view(col.row(s(130)), app.t("sort_title"), resource_id=rid("sort_title"), style="title")]
    for order in SORT_ORDERS:
        kids.append(toggle(col.row(s(150)), app.t(f"sort_{order}"), app.sort == order,
                           functools.partial(app.choose_sort, order), resource_id=rid(f"sort_{order}"), kind=RADIO))
    panel = container(sheet, kids, cls=LINEAR, resource_id=rid("design_bottom_sheet"), style="card")
    return Window(PACKAGE, container(sheet, [panel]), kind="dialog", modal=True, dim=True)


def _dialog(app: DemoShopApp, screen: Screen) -> Window:
    """An AlertDialog-style window: title, message, negative and positive buttons (``android:id/button2/1``)."""
    if app.dialog == "sort":
        return _bottom_sheet(app, screen)
    s = screen.s
    kinds = {
        "logout": ("logout_title", "logout_message", "cancel", "logout", app.confirm_logout),
        "delete": ("delete_title", "delete_message", "cancel", "delete", app.confirm_delete_account),
        "promo": ("promo_title", "promo_message", "promo_dismiss", "promo_accept", app.dismiss),
    }
    title_key, message_key, negative_key, positive_key, positive = kinds[app.dialog or "promo"]
    top = screen.height // 2 - s(330)
    card = Rect(s(72), top, screen.width - s(72), top + s(660))
    col = Column(card, padding=s(64), gap=s(24))
    buttons_top = card.bottom - s(170)
    kids = [
        text_view(col.row(s(90)), app.t(title_key), resource_id="android:id/alertTitle", style="title"),
        text_view(col.row(s(200)), app.t(message_key), resource_id="android:id/message"),
        button(Rect(card.right - s(640), buttons_top, card.right - s(340), buttons_top + s(120)), app.t(negative_key),
               app.dismiss, resource_id="android:id/button2", style="text"),
        button(Rect(card.right - s(320), buttons_top, card.right - s(40), buttons_top + s(120)), app.t(positive_key),
               positive, resource_id="android:id/button1", style="danger-text" if app.dialog != "promo" else "text"),
    ]
    panel = container(card, kids, cls=LINEAR, resource_id="android:id/parentPanel", style="card")
    return Window(PACKAGE, container(card, [panel]), kind="dialog", modal=True, dim=True)


_SCREENS = {
    "splash": _splash,
    "login": _login,
    "products": _products,
    "detail": _detail,
    "cart": _cart,
    "address": _address,
    "payment": _payment,
    "confirmation": _confirmation,
    "settings": _settings,
}
