from __future__ import annotations

import asyncio

import pytest
from roles_screens import cart_screen, login_screen, settings_screen

from fsm_runner.roles.base import LocatorView
from fsm_runner.roles.locator import RuleLocator
from fsm_runner.roles.target import parse_target

LOCATOR = RuleLocator()


def best_id(description: str, screen_kind: str = "login") -> str | None:
    screen = {"login": login_screen(), "cart": cart_screen(), "settings": settings_screen()}[screen_kind]
    best = LOCATOR.find(description, screen).best
    return best.element_id if best else None


@pytest.mark.parametrize(
    ("description", "kind", "expected"),
    [
        ("the Login button", "login", "login"),
        ("LOGIN", "login", "login"),
        ("ｌｏｇｉｎ", "login", "login"),
        ("the username field", "login", "user"),
        ("Password input", "login", "pass"),
        ("the Remember me checkbox", "login", "remember"),
        ("Forgot password? link", "login", "forgot"),
        ("the second Delete button", "cart", "del1"),
        ("the last Delete button", "cart", "del2"),
        ("first Delete", "cart", "del0"),
        ("Delete in the row with Bread", "cart", "del1"),
        ("the Delete button next to Eggs", "cart", "del2"),
        ("Increase in the row with Milk", "cart", "plus0"),
        ("第二个Delete按钮", "cart", "del1"),
        ("Checkout", "cart", "checkout"),
        ("the Notifications switch", "settings", "notif"),
        ("the dark mode toggle", "settings", "dark"),
        ("the checked switch", "settings", "notif"),
        ("the unchecked switch", "settings", "dark"),
        ("the search icon", "settings", "search"),
        ("Navigate up", "settings", "back"),
        ("我的标签", "settings", "tab_me"),
        ("购物车", "settings", "tab_cart"),
        ("the disabled button", "settings", "sync"),
        ("Delete account button", "settings", "delete_acct"),
        ("the 'Log out' button", "settings", "logout"),
    ],
)
def test_description_resolves_to_the_expected_element(description: str, kind: str, expected: str) -> None:
    assert best_id(description, kind) == expected


@pytest.mark.parametrize(
    ("description", "kind"),
    [
        ("the Logout button", "login"),
        ("Sign up", "login"),
        ("the fourth Delete button", "cart"),
        ("Delete in the row with Butter", "cart"),
        ("the Notifications switch", "login"),
        ("删除按钮", "settings"),
        ("the Pay now button", "cart"),
        ("the switch", "cart"),
    ],
)
def test_absent_target_gives_no_candidates(description: str, kind: str) -> None:
    assert best_id(description, kind) is None


def test_label_inside_clickable_container_resolves_to_the_container() -> None:
    location = LOCATOR.find("Login", login_screen())
    ids = [c.element_id for c in location.candidates]
    assert ids[0] == "login"
    assert "login_text" not in ids
    assert "container" in location.candidates[0].reason


def test_target_covered_by_keyboard_is_not_a_candidate_and_the_reason_says_so() -> None:
    location = LOCATOR.find("the Login button", login_screen(keyboard=True))
    assert not location.found and location.covered
    assert "covered by the keyboard" in location.reason
    assert not LOCATOR.find("Sign up", login_screen(keyboard=True)).covered


def test_candidates_are_ranked_with_scores_between_zero_and_one_and_capped_at_top_k() -> None:
    location = RuleLocator(top_k=2).find("Delete", cart_screen())
    assert len(location.candidates) == 2
    scores = [c.score for c in location.candidates]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 < s <= 1.0 for s in scores)


def test_exact_label_outranks_a_long_text_that_contains_the_words() -> None:
    location = LOCATOR.find("Password", login_screen())
    assert location.best is not None and location.best.element_id == "pass"
    others = {c.element_id: c.score for c in location.candidates}
    assert others.get("forgot", 0.0) < others["pass"]


def test_locate_coroutine_implements_the_protocol() -> None:
    location = asyncio.run(LOCATOR.locate(LocatorView("Checkout", cart_screen())))
    assert location.best is not None and location.best.element_id == "checkout"
    assert location.decided_by == "rules"


def test_literal_reading_wins_when_an_ordinal_word_is_part_of_a_label() -> None:
    from roles_screens import el, screen

    form = screen(
        el("first", "android.widget.EditText", (0, 100, 1080, 200), hint="First name", clickable=True),
        el("last", "android.widget.EditText", (0, 300, 1080, 400), hint="Last name", clickable=True),
        el("email", "android.widget.EditText", (0, 500, 1080, 600), hint="Email", clickable=True),
    )
    assert LOCATOR.find("the Last name field", form).best.element_id == "last"  # type: ignore[union-attr]
    assert LOCATOR.find("the First name field", form).best.element_id == "first"  # type: ignore[union-attr]
    assert LOCATOR.find("the last field", form).best.element_id == "email"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("description", "label", "role", "ordinal"),
    [
        ("the second Delete button", "delete", "button", 2),
        ("第二个删除按钮", "删除", "按钮", 2),
        ("最后一个关注按钮", "关注", "按钮", -1),
        ("the 3rd item", "", "item", 3),
        ("用户名输入框", "用户名", "输入框", None),
        ("我的", "我的", "", None),
    ],
)
def test_descriptions_are_taken_apart_in_english_and_chinese(
    description: str, label: str, role: str, ordinal: int | None
) -> None:
    target = parse_target(description)
    assert (target.label, target.role_word, target.ordinal) == (label, role, ordinal)


def test_relations_are_parsed_in_english_and_chinese() -> None:
    english = parse_target("Delete in the row with Milk")
    chinese = parse_target("牛奶那一行的删除按钮")
    assert (english.relation, english.anchor, english.label) == ("row", "milk", "delete")
    assert (chinese.relation, chinese.anchor, chinese.label) == ("row", "牛奶", "删除")
