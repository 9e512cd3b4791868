from __future__ import annotations

import pytest

from fsm_runner.perception import VIEWS, WindowKind, page_summary, parse_dump, render
from tests.perception.corpus import CORPUS_FILES, corpus


def test_the_corpus_is_present() -> None:
    assert len(CORPUS_FILES) >= 10


def test_every_corpus_dump_parses_renders_and_fingerprints(corpus_dump: bytes) -> None:
    screen = parse_dump(corpus_dump)
    assert screen.windows
    assert screen.elements
    assert len(screen.fingerprint) == 16
    ids = [e.element_id for e in screen.elements]
    assert len(ids) == len(set(ids))
    for view in VIEWS:
        assert render(screen, view).strip()
    assert page_summary(screen)


def test_three_windows_are_classified_as_app_keyboard_and_status_bar() -> None:
    screen = parse_dump(corpus("047"))
    assert [w.kind for w in screen.windows] == [WindowKind.APP, WindowKind.KEYBOARD, WindowKind.STATUS_BAR]
    assert screen.package == "com.avito.android"
    assert screen.keyboard_shown


def test_windows_stack_by_kind_not_by_document_order() -> None:
    screen = parse_dump(corpus("048"))
    assert screen.windows[0].kind is WindowKind.APP
    assert screen.windows[0].package == "com.miui.notes"
    assert screen.package == "com.miui.notes"


def test_clickable_row_takes_the_text_of_its_child_labels() -> None:
    screen = parse_dump(corpus("009"))
    rows = [e for e in screen.elements if e.role == "button" and e.label == "LTE preferencial"]
    assert len(rows) == 1
    radio = next(e for e in screen.elements if e.role == "radio" and e.context == "LTE preferencial")
    assert radio.checkable and not radio.checked


def test_repeated_buttons_are_numbered_from_the_top_and_carry_their_row() -> None:
    screen = parse_dump(corpus("031"))
    follows = sorted((e for e in screen.visible_elements() if e.label == "关注"), key=lambda e: e.bounds.y1)
    assert len(follows) >= 3
    assert [e.ordinal for e in follows] == list(range(1, len(follows) + 1))
    assert follows[0].context == "厦门镀晶原液-余海"
    planner = render(screen, "planner")
    assert 'button "关注" #1 in "厦门镀晶原液-余海"' in planner


@pytest.mark.parametrize("compressed", [False, True], ids=["full", "compressed"])
def test_every_demo_shop_screen_parses_renders_and_keeps_its_controls(compressed: bool) -> None:
    from tests.perception.demo_shop_tour import tour

    seen = 0
    for name, xml in tour(compressed=compressed):
        screen = parse_dump(xml)
        planner = render(screen, "planner")
        for e in screen.visible_elements():
            if e.interactive:
                assert e.element_id in planner, (name, e)
        assert screen.package == "com.example.demoshop", name
        seen += 1
    assert seen >= 2 * 12


def test_demo_shop_dialogs_and_the_keyboard_are_named_on_the_page_summary() -> None:
    from tests.perception.demo_shop_tour import tour

    screens = {name: parse_dump(xml) for name, xml in tour(("en",))}
    assert "over app: dialog" in page_summary(screens["demo-en-settings-logout"])
    assert screens["demo-en-settings-logout"].title == "Log out?"
    assert screens["demo-en-login-keyboard"].keyboard_shown
    assert screens["demo-en-permission"].system_popup_shown
    assert screens["demo-en-products"].title == "Products"
