from __future__ import annotations

import pytest

from fsm_runner.perception import WindowKind, cut_text, parse_dump, render
from fsm_runner.perception.resource_ids import resource_id_is_meaningful
from fsm_runner.perception.role_words import role_word
from fsm_runner.perception.screen import Bounds
from fsm_runner.perception.volatile import mask_volatile
from fsm_runner.perception.windows import classify_window
from tests.perception.dumps import hierarchy, node

SCREEN = Bounds(0, 0, 1080, 1920)


@pytest.mark.parametrize(
    ("cls", "clickable", "checkable", "scrollable", "has_text", "role"),
    [
        ("android.widget.Button", True, False, False, True, "button"),
        ("android.widget.ImageButton", True, False, False, False, "button"),
        ("android.widget.EditText", True, False, False, False, "field"),
        ("android.widget.AutoCompleteTextView", True, False, False, False, "field"),
        ("androidx.appcompat.widget.SwitchCompat", True, True, False, True, "switch"),
        ("com.google.android.material.switchmaterial.SwitchMaterial", True, True, False, True, "switch"),
        ("android.widget.CheckBox", True, True, False, True, "checkbox"),
        ("android.widget.RadioButton", False, True, False, False, "radio"),
        ("android.widget.ImageView", False, False, False, False, "image"),
        ("android.widget.ImageView", True, False, False, False, "button"),
        ("android.widget.TextView", False, False, False, True, "text"),
        ("android.widget.TextView", True, False, False, True, "button"),
        ("androidx.recyclerview.widget.RecyclerView", False, False, True, False, "list"),
        ("android.widget.ScrollView", False, False, True, False, "list"),
        ("android.app.ActionBar$Tab", True, False, False, False, "tab"),
        ("android.widget.LinearLayout", True, False, False, False, "button"),
        ("android.widget.FrameLayout", False, False, False, False, "group"),
    ],
)
def test_role_words_come_from_the_class_and_the_flags(
    cls: str, clickable: bool, checkable: bool, scrollable: bool, has_text: bool, role: str
) -> None:
    assert role_word(cls, clickable=clickable, scrollable=scrollable, checkable=checkable, has_text=has_text) == role


@pytest.mark.parametrize(
    ("package", "bounds", "kind"),
    [
        ("com.google.android.inputmethod.latin", Bounds(0, 1167, 1080, 1920), WindowKind.KEYBOARD),
        ("com.sohu.inputmethod.sogou", Bounds(0, 1100, 1080, 1920), WindowKind.KEYBOARD),
        ("com.android.inputmethod.pinyin", Bounds(0, 1100, 1080, 1920), WindowKind.KEYBOARD),
        ("org.example.fancykeyboard", Bounds(0, 1200, 1080, 1920), WindowKind.KEYBOARD),
        ("org.example.fancykeyboard", Bounds(0, 0, 1080, 1920), WindowKind.APP),
        ("com.example.anime", Bounds(0, 1200, 1080, 1920), WindowKind.DIALOG),
        ("com.android.systemui", Bounds(0, 0, 1080, 72), WindowKind.STATUS_BAR),
        ("com.android.systemui", Bounds(0, 1794, 1080, 1920), WindowKind.NAVIGATION_BAR),
        ("com.android.systemui", Bounds(0, 0, 1080, 1920), WindowKind.SYSTEM_POPUP),
        ("com.android.permissioncontroller", Bounds(60, 600, 1020, 1300), WindowKind.SYSTEM_POPUP),
        ("com.android.packageinstaller", Bounds(60, 600, 1020, 1300), WindowKind.SYSTEM_POPUP),
    ],
)
def test_windows_are_classified_by_package_and_shape(package: str, bounds: Bounds, kind: WindowKind) -> None:
    assert classify_window(package, "android.widget.FrameLayout", "", bounds, SCREEN, first_app_seen=True) is kind


def test_a_smaller_second_app_window_or_a_dialog_class_root_is_a_dialog() -> None:
    card = Bounds(90, 700, 990, 1200)
    assert (
        classify_window("com.x", "android.widget.FrameLayout", "", card, SCREEN, first_app_seen=True)
        is WindowKind.DIALOG
    )
    assert (
        classify_window("com.x", "android.widget.FrameLayout", "", card, SCREEN, first_app_seen=False) is WindowKind.APP
    )
    assert (
        classify_window("com.x", "android.app.AlertDialog", "", SCREEN, SCREEN, first_app_seen=False)
        is WindowKind.DIALOG
    )


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("12:45", "9:03"),
        ("12:45 PM", "1:02 AM"),
        ("87%", "100%"),
        ("$1,299.00", "$4.50"),
        ("Mon, Nov 30", "Tue, Dec 1"),
        ("3 items", "12 items"),
        ("Updated 5 min ago", "Updated 59 min ago"),
    ],
)
def test_volatile_texts_mask_to_the_same_string(a: str, b: str) -> None:
    assert mask_volatile(a) == mask_volatile(b)


@pytest.mark.parametrize(("a", "b"), [("Milk", "Eggs"), ("Item 1", "Items 1"), ("Wi-Fi on", "Wi-Fi off")])
def test_texts_that_differ_by_a_word_stay_different(a: str, b: str) -> None:
    assert mask_volatile(a) != mask_volatile(b)


@pytest.mark.parametrize(
    ("rid", "meaningful"),
    [
        ("com.app:id/checkout_button", True),
        ("com.app:id/up", True),
        ("com.app:id/view_123", False),
        ("com.app:id/0_resource_name_obfuscated", False),
        ("com.ss.android.ugc.aweme:id/d3_", False),
        ("com.ss.android.ugc.aweme:id/qr", False),
        ("", False),
    ],
)
def test_generated_resource_ids_carry_no_meaning(rid: str, meaningful: bool) -> None:
    assert resource_id_is_meaningful(rid) is meaningful


def test_long_texts_are_cut_with_a_marker_saying_how_much_was_dropped() -> None:
    text = "word " * 40
    cut = cut_text(text)
    assert cut.endswith("…(+160 chars)")
    assert len(cut) < 60
    assert cut_text("short  text\n") == "short text"


def test_the_planner_view_shows_a_long_label_cut_and_the_element_keeps_it_whole() -> None:
    review = "Great product. " * 20
    xml = hierarchy(node("FrameLayout", (0, 0, 1080, 1920), node("TextView", (0, 100, 1080, 600), text=review)))
    screen = parse_dump(xml)
    assert screen.elements[0].text == review
    assert "chars)" in render(screen, "planner")
    assert review.strip() not in render(screen, "planner")


def test_layout_wrappers_are_dropped_and_labelled_leaves_kept() -> None:
    xml = hierarchy(
        node(
            "FrameLayout",
            (0, 0, 1080, 1920),
            node(
                "LinearLayout",
                (0, 0, 1080, 900),
                node("LinearLayout", (0, 0, 1080, 900), node("TextView", (0, 0, 500, 90), text="Hello")),
            ),
            node("View", (0, 900, 1080, 901)),
            rid="content",
        )
    )
    screen = parse_dump(xml)
    assert [(e.role, e.label) for e in screen.elements] == [("text", "Hello")]
    assert screen.raw_node_count == 5
