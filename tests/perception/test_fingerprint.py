from __future__ import annotations

from fsm_runner.perception import fingerprint, parse_dump
from tests.perception.corpus import corpus
from tests.perception.shop_screens import cart


def fp(xml: str) -> str:
    return parse_dump(xml).fingerprint


def test_parse_fills_the_screen_fingerprint_with_the_fingerprint_function() -> None:
    screen = parse_dump(cart())
    assert screen.fingerprint == fingerprint(screen)


def test_a_ticking_clock_and_battery_do_not_change_the_fingerprint() -> None:
    assert fp(cart(clock="12:45", battery="87%")) == fp(cart(clock="12:46 PM", battery="86%"))


def test_counters_and_prices_that_tick_do_not_change_the_fingerprint() -> None:
    base = cart(count_text="Updated 5 min ago")
    later = cart(count_text="Updated 12 min ago", items=(("Milk", "$2.09"), ("Eggs", "$3.49"), ("Bread", "$2.55")))
    assert fp(base) == fp(later)


def test_a_new_dialog_changes_the_fingerprint() -> None:
    assert fp(cart()) != fp(cart(with_dialog=True))


def test_a_toggled_switch_changes_the_fingerprint() -> None:
    assert fp(cart(express=False)) != fp(cart(express=True))


def test_a_different_page_changes_the_fingerprint() -> None:
    assert fp(cart()) != fp(cart(title="Wishlist"))


def test_a_scrolled_list_changes_the_fingerprint() -> None:
    top = (("Milk", "$1.99"), ("Eggs", "$3.49"), ("Bread", "$2.50"))
    scrolled = (("Eggs", "$3.49"), ("Bread", "$2.50"), ("Butter", "$4.10"))
    assert fp(cart(top)) != fp(cart(scrolled))


def test_the_keyboard_appearing_changes_the_fingerprint() -> None:
    assert fp(cart()) != fp(cart(with_keyboard=True))


def test_a_real_dump_keeps_its_fingerprint_when_only_the_status_bar_clock_changes() -> None:
    raw = corpus("049").decode()
    original = parse_dump(raw)
    clock = next(e for e in original.elements if e.resource_id.endswith("id/clock"))
    changed = raw.replace(f'text="{clock.text}"', 'text="23:59"', 1)
    assert parse_dump(changed).fingerprint == original.fingerprint
