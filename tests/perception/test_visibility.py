from __future__ import annotations

from fsm_runner.perception import WindowKind, parse_dump, render
from tests.perception.dumps import hierarchy, node
from tests.perception.shop_screens import cart


def test_a_field_under_the_keyboard_is_kept_and_marked_covered_by_it() -> None:
    screen = parse_dump(cart(with_keyboard=True))
    note = next(e for e in screen.elements if e.resource_id.endswith("/note"))
    checkout = next(e for e in screen.elements if e.resource_id.endswith("/checkout"))
    assert note.occluded and note.occluded_by == "keyboard"
    assert checkout.occluded and checkout.occluded_by == "keyboard"
    assert checkout.element_id not in render(screen, "planner")
    assert f'{checkout.element_id} button "Checkout"' in render(screen, "validator")
    assert "covered-by:keyboard" in render(screen, "locator")


def test_content_under_a_dialog_is_occluded_and_the_dialog_is_on_top() -> None:
    screen = parse_dump(cart(with_dialog=True))
    assert screen.dialog_shown
    assert screen.windows[1].kind is WindowKind.DIALOG
    remove = next(e for e in screen.elements if e.label == "Remove")
    assert not remove.occluded
    under = [e for e in screen.elements if e.window == 0 and e.occluded]
    assert under and all(e.occluded_by == "dialog" for e in under)
    assert screen.top_element_at(*remove.bounds.center) == remove


def test_zero_area_off_screen_and_not_visible_to_user_nodes_are_not_visible() -> None:
    xml = hierarchy(
        node(
            "FrameLayout",
            (0, 0, 1080, 1920),
            node("Button", (10, 10, 10, 80), text="Flat", clickable=True),
            node("Button", (1200, 10, 1400, 80), text="Away", clickable=True),
            node("Button", (10, 100, 300, 200), text="Hidden", clickable=True, extra=(("visible-to-user", "false"),)),
            node("Button", (10, 300, 300, 400), text="Shown", clickable=True),
        )
    )
    screen = parse_dump(xml)
    visible = {e.label: e.visible for e in screen.elements}
    assert visible == {"Flat": False, "Away": False, "Hidden": False, "Shown": True}
    assert render(screen, "planner").count("button") == 1


def test_a_permission_dialog_is_a_system_popup() -> None:
    xml = hierarchy(
        node("FrameLayout", (0, 0, 1080, 1920), node("TextView", (0, 100, 1080, 200), text="Shop")),
        node(
            "FrameLayout",
            (60, 600, 1020, 1300),
            node("Button", (100, 1100, 500, 1200), text="Allow", clickable=True),
            package="com.google.android.permissioncontroller",
        ),
    )
    screen = parse_dump(xml)
    assert [w.kind for w in screen.windows] == [WindowKind.APP, WindowKind.SYSTEM_POPUP]
    assert screen.system_popup_shown


def test_bars_are_left_out_of_the_planner_view_except_their_buttons() -> None:
    xml = hierarchy(
        node(
            "FrameLayout",
            (0, 0, 1080, 1794),
            node("Button", (100, 800, 500, 900), text="Buy", clickable=True),
        ),
        node(
            "FrameLayout",
            (0, 1794, 1080, 1920),
            node("ImageView", (100, 1800, 200, 1910), desc="Back", clickable=True, rid="back"),
            node("ImageView", (500, 1800, 600, 1910), desc="Home", clickable=True, rid="home"),
            package="com.android.systemui",
            rid="navigation_bar_frame",
        ),
        node(
            "FrameLayout",
            (0, 0, 1080, 72),
            node("TextView", (9, 0, 120, 72), text="12:45", rid="clock"),
            package="com.android.systemui",
        ),
    )
    screen = parse_dump(xml)
    assert [w.kind for w in screen.windows] == [WindowKind.APP, WindowKind.NAVIGATION_BAR, WindowKind.STATUS_BAR]
    planner = render(screen, "planner")
    assert '"Buy"' in planner and '"Back"' in planner and '"Home"' in planner
    assert "12:45" not in planner
    assert "[status_bar" not in planner
