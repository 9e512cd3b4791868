from __future__ import annotations

from fsm_runner.perception import diff_screens, parse_dump
from tests.perception.shop_screens import cart


def test_the_same_screen_has_an_empty_diff() -> None:
    diff = diff_screens(parse_dump(cart()), parse_dump(cart(clock="12:46")))
    assert not diff.added and not diff.removed
    assert all(c.before.window != 0 for c in diff.changed)
    assert diff.same_fingerprint


def test_a_toggled_switch_is_reported_as_a_changed_check_state() -> None:
    diff = diff_screens(parse_dump(cart(express=False)), parse_dump(cart(express=True)))
    assert [(c.after.label, c.attributes) for c in diff.changed] == [("Express delivery", ("checked",))]
    assert not diff.same_fingerprint
    assert 'switch "Express delivery": checked False->True' in diff.render()


def test_a_removed_row_lists_its_elements_as_removed() -> None:
    before = parse_dump(cart())
    after = parse_dump(cart((("Milk", "$1.99"), ("Bread", "$2.50")), count_text="3 items"))
    diff = diff_screens(before, after)
    removed = {(e.role, e.label) for e in diff.removed}
    assert ("button", "Eggs · $3.49") in removed
    assert ("text", "Eggs") in removed
    assert not diff.added
    moved = [c for c in diff.changed if c.after.label.startswith("Bread")]
    assert moved and all(c.attributes == ("bounds",) for c in moved)


def test_an_opened_dialog_is_named_and_its_buttons_added() -> None:
    diff = diff_screens(parse_dump(cart()), parse_dump(cart(with_dialog=True)))
    assert diff.windows_opened == ("dialog",)
    assert {"Cancel", "Remove"} <= {e.label for e in diff.added}
    text = diff.render()
    assert text.startswith("opened: dialog")
    assert "+ " in text and '"Remove"' in text
    assert any("occluded False->True" in line for line in text.splitlines())


def test_an_empty_diff_renders_as_no_change() -> None:
    screen = parse_dump(cart())
    assert diff_screens(screen, screen).render() == "no change"
