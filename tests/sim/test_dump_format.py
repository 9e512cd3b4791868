"""The hierarchy dump has the real device's format on every Demo Shop screen."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator

from adapters.sim import SimPhone
from tests.sim.dump_reader import PKG, Driver, FakeClock

REAL_ATTRIBUTES = [
    "index", "text", "resource-id", "class", "package", "content-desc", "checkable", "checked", "clickable",
    "enabled", "focusable", "focused", "scrollable", "long-clickable", "password", "selected", "bounds",
]
HEADER = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"


def every_screen(d: Driver) -> Iterator[str]:
    """Walk Demo Shop through each screen, yielding its name while it shows."""
    d.phone.start_activity(PKG)
    yield "splash"
    d.wait(1.1)
    yield "permission dialog"
    d.tap(rid="com.android.permissioncontroller:id/permission_allow_button")
    yield "login"
    d.tap(rid="username")
    yield "login with keyboard"
    d.phone.input_text("alice")
    d.phone.keyevent(66)
    d.phone.input_text("secret123")
    d.phone.keyevent(66)
    d.wait(0.6)
    yield "products"
    d.tap(rid="product_item")
    yield "detail"
    d.tap(rid="add_to_cart")
    d.phone.keyevent(4)
    d.tap(rid="cart_button")
    yield "cart"
    d.tap(rid="checkout")
    yield "address"
    for field, value in (("full_name", "Alice Doe"), ("street", "1 Main St"), ("city", "Springfield"),
                         ("postal_code", "12345")):
        d.type_into(field, value)
    d.phone.keyevent(4)
    d.tap(rid="address_continue")
    yield "payment"
    d.tap(rid="pay_now")
    d.wait(0.6)
    yield "confirmation"
    d.tap(rid="continue_shopping")
    d.tap(rid="settings_button")
    yield "settings"
    d.tap(rid="logout")
    yield "logout dialog"
    d.phone.keyevent(3)
    yield "launcher"


def test_every_screen_dumps_the_real_attribute_set_in_order(driver: Driver) -> None:
    seen = []
    for screen in every_screen(driver):
        outcome = driver.phone.ui_dump()
        assert outcome.xml is not None and outcome.error == ""
        assert outcome.xml.startswith(HEADER), screen
        assert outcome.xml.endswith("</hierarchy>") and "\n" not in outcome.xml
        root = ET.fromstring(outcome.xml)
        for node in root.iter("node"):
            assert list(node.attrib) == REAL_ATTRIBUTES, screen
            assert node.attrib["bounds"].startswith("[")
        seen.append(screen)
    assert len(seen) == 13 and seen[-1] == "launcher"


def top_level_packages(d: Driver) -> list[str]:
    return [n.attrib["package"] for n in d.root()]


def test_windows_appear_as_separate_top_level_nodes(driver: Driver) -> None:
    screens = every_screen(driver)
    packages = {}
    for screen in screens:
        packages[screen] = top_level_packages(driver)
    assert packages["login"] == [PKG, "com.android.systemui"]
    assert packages["permission dialog"] == [PKG, "com.android.systemui", "com.google.android.permissioncontroller"]
    assert packages["login with keyboard"] == [PKG, "com.android.systemui", "com.google.android.inputmethod.latin"]
    assert packages["logout dialog"] == [PKG, PKG, "com.android.systemui"]
    assert packages["launcher"] == ["com.android.launcher3", "com.android.systemui"]


def test_compressed_dump_drops_layout_only_wrappers_but_keeps_widgets(driver: Driver) -> None:
    driver.login()
    full = driver.phone.ui_dump().xml
    small = driver.phone.ui_dump(compressed=True).xml
    assert full is not None and small is not None
    full_nodes = list(ET.fromstring(full).iter("node"))
    small_nodes = list(ET.fromstring(small).iter("node"))
    assert len(small_nodes) < len(full_nodes)
    def meaningful(nodes: list[ET.Element]) -> list[tuple[str, str, str]]:
        return [(n.attrib["resource-id"], n.attrib["text"], n.attrib["bounds"]) for n in nodes
                if n.attrib["clickable"] == "true" or n.attrib["text"]]
    assert meaningful(small_nodes) == meaningful(full_nodes)
    for parent in ET.fromstring(small).iter("node"):
        assert [c.attrib["index"] for c in parent] == [str(i) for i in range(len(parent))]


def test_product_list_scrolls_with_a_swipe_and_shows_later_products(clock: FakeClock) -> None:
    from tests.sim.conftest import make_driver

    d = make_driver(clock)
    d.login()
    first = [n.attrib["text"] for n in d.find_all(rid="product_name")]
    assert "Plant Pot" not in first
    lst = d.find(rid="product_list")
    assert lst.attrib["scrollable"] == "true"
    for _ in range(6):
        d.phone.swipe(540, 2000, 540, 800, 300)
    last = [n.attrib["text"] for n in d.find_all(rid="product_name")]
    assert "Plant Pot" in last and "Wireless Headphones" not in last
    d.tap(text="Plant Pot")
    assert d.find(rid="detail_name").attrib["text"] == "Plant Pot"


def test_search_field_filters_the_product_list(clock: FakeClock) -> None:
    from tests.sim.conftest import make_driver

    d = make_driver(clock)
    d.login()
    d.type_into("search", "mug")
    assert [n.attrib["text"] for n in d.find_all(rid="product_name")] == ["Coffee Mug"]
    d.phone.input_text("zzz")
    assert d.exists(rid="empty")


def test_text_that_xml_cannot_hold_is_dotted_and_markup_is_escaped(clock: FakeClock) -> None:
    from tests.sim.conftest import make_driver

    d = make_driver(clock, adb_keyboard=True)
    d.phone.settings_put("secure", "default_input_method", "com.android.adbkeyboard/.AdbIME")
    d.launch_to_login()
    d.tap(rid="username")
    d.phone.ime_commit_text('a\x00b\x07<c&"d">\ud800')
    assert d.find(rid="username").attrib["text"] == 'a.b.<c&"d">.'
    assert d.phone.focused_text() == 'a\x00b\x07<c&"d">\ud800'


def test_dump_matches_a_real_single_line_dump_in_header_and_attribute_order(clock: FakeClock) -> None:
    import pathlib

    import pytest

    corpus = pathlib.Path(__file__).resolve().parents[2] / ".." / "shared" / "ui-corpus"
    real_files = sorted(corpus.glob("009_*.xml"))
    if not real_files:
        pytest.skip("the shared real-device corpus is not next to the repository")
    real = real_files[0].read_text(encoding="utf-8")
    ours = SimPhone(now=clock).ui_dump().xml
    assert ours is not None
    assert ours[:80] == real[:80]
    assert ours.endswith("</hierarchy>") and real.endswith("</hierarchy>")
    real_first = next(ET.fromstring(real).iter("node"))
    our_first = next(ET.fromstring(ours).iter("node"))
    assert list(our_first.attrib) == list(real_first.attrib) == REAL_ATTRIBUTES
