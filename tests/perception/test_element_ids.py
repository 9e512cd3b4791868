from __future__ import annotations

import re

from fsm_runner.perception import Screen, parse_dump
from tests.perception.corpus import corpus
from tests.perception.dumps import hierarchy, node
from tests.perception.shop_screens import cart


def ids_by_label(screen: Screen) -> dict[tuple[str, str, str], str]:
    return {(e.role, e.label, e.context): e.element_id for e in screen.elements if not e.merged}


def test_ids_are_short_and_prefixed() -> None:
    screen = parse_dump(cart())
    assert all(re.fullmatch(r"e[a-z2-7]{6}", e.element_id) for e in screen.elements)


def test_the_same_dump_gives_the_same_ids() -> None:
    assert [e.element_id for e in parse_dump(cart()).elements] == [e.element_id for e in parse_dump(cart()).elements]


def test_ids_survive_a_clock_change_in_the_app_and_the_status_bar() -> None:
    before = parse_dump(cart(clock="12:45 PM", count_text="Updated 5 min ago"))
    after = parse_dump(cart(clock="1:02 PM", count_text="Updated 22 min ago"))
    assert [e.element_id for e in before.elements] == [e.element_id for e in after.elements]


def test_rows_and_their_buttons_keep_their_ids_when_the_list_shifts() -> None:
    before = parse_dump(cart((("Milk", "$1.99"), ("Eggs", "$3.49"), ("Bread", "$2.50"))))
    after = parse_dump(cart((("Eggs", "$3.49"), ("Bread", "$2.50"), ("Butter", "$4.10"))))
    old, new = ids_by_label(before), ids_by_label(after)
    for key in [("button", "Eggs · $3.49", ""), ("button", "Delete", "Eggs · $3.49"), ("button", "Bread · $2.50", "")]:
        assert old[key] == new[key], key
    assert old[("button", "Checkout", "")] == new[("button", "Checkout", "")]


def test_delete_buttons_in_different_rows_get_different_ids() -> None:
    screen = parse_dump(cart())
    deletes = [e for e in screen.elements if e.label == "Delete"]
    assert len(deletes) == 3
    assert len({e.element_id for e in deletes}) == 3
    assert [e.context for e in deletes] == ["Milk · $1.99", "Eggs · $3.49", "Bread · $2.50"]
    assert [e.ordinal for e in deletes] == [1, 2, 3]


def test_numbered_siblings_keep_their_ids_when_one_is_inserted_before_them() -> None:
    def page(*labels: str) -> str:
        buttons = [
            node("Button", (0, 100 * i, 500, 100 * i + 90), text=t, clickable=True) for i, t in enumerate(labels)
        ]
        return hierarchy(node("FrameLayout", (0, 0, 1080, 1920), *buttons))

    before = {e.label: e.element_id for e in parse_dump(page("Item 1", "Item 2")).elements}
    after = {e.label: e.element_id for e in parse_dump(page("Item 0", "Item 1", "Item 2")).elements}
    assert before["Item 1"] == after["Item 1"]
    assert before["Item 2"] == after["Item 2"]


def test_ids_of_a_real_screen_survive_its_status_bar_clock_ticking() -> None:
    raw = corpus("049").decode()
    original = parse_dump(raw)
    clock = next(e for e in original.elements if e.resource_id.endswith("id/clock"))
    ticked = parse_dump(raw.replace(f'text="{clock.text}"', 'text="23:59"', 1))
    assert [e.element_id for e in ticked.elements] == [e.element_id for e in original.elements]


def test_fields_keep_their_ids_while_text_is_typed_into_them() -> None:
    def form(user: str, password: str) -> str:
        return hierarchy(
            node(
                "FrameLayout",
                (0, 0, 1080, 1920),
                node("EditText", (0, 100, 1080, 200), text=user, clickable=True),
                node("EditText", (0, 300, 1080, 400), text=password, clickable=True),
                node("Button", (0, 500, 1080, 600), text="Log in", clickable=True),
            )
        )

    empty = [e.element_id for e in parse_dump(form("", "")).elements]
    typed = [e.element_id for e in parse_dump(form("alice", "secret123")).elements]
    assert empty == typed
    assert len(set(empty)) == 3
    note_before = parse_dump(cart(note="")).elements
    note_after = parse_dump(cart(note="Ring twice")).elements
    assert [e.element_id for e in note_before] == [e.element_id for e in note_after]
