from __future__ import annotations

import asyncio
from collections.abc import Mapping

import pytest
from roles_screens import cart_screen, login_screen, settings_screen

from fsm_runner.errors import DefinitionError
from fsm_runner.perception.screen import Screen
from fsm_runner.roles.base import ValidatorView, VerdictStatus
from fsm_runner.roles.validator import RuleValidator
from fsm_runner.steps import Expect


def cart_has_three_rows(screen: Screen, values: Mapping[str, str]) -> bool:
    return sum(1 for e in screen.elements if e.text == "Delete") == 3


def raises(screen: Screen, values: Mapping[str, str]) -> bool:
    raise RuntimeError("boom")


VALIDATOR = RuleValidator(predicates={"three_rows": cart_has_three_rows, "broken": raises})


def status(*expects: Expect, screen: Screen | None = None, **kw: object) -> VerdictStatus:
    view = ValidatorView(expects, screen or settings_screen(), **kw)  # type: ignore[arg-type]
    return VALIDATOR.decide(view).status


@pytest.mark.parametrize(
    "expect",
    [
        Expect("visible", target="the Log out button"),
        Expect("absent", target="the Pay now button"),
        Expect("text_equals", target="the Log out button", value="log out"),
        Expect("text_contains", target="Delete account button", value="account"),
        Expect("enabled", target="the Log out button"),
        Expect("enabled", target="Sync now", value="false"),
        Expect("checked", target="the Notifications switch"),
        Expect("checked", target="the Dark mode switch", value="false"),
        Expect("selected", target="首页"),
        Expect("package", value="com.example.demoshop"),
        Expect("activity", value="com.example.demoshop/.SettingsActivity"),
        Expect("activity", value="SettingsActivity"),
        Expect("toast", value="saved"),
    ],
)
def test_each_check_kind_passes_when_the_screen_shows_it(expect: Expect) -> None:
    assert status(expect, toasts=("Settings saved",)) is VerdictStatus.PASS


@pytest.mark.parametrize(
    "expect",
    [
        Expect("visible", target="the Pay now button"),
        Expect("absent", target="the Log out button"),
        Expect("text_equals", target="the Log out button", value="Sign out"),
        Expect("enabled", target="Sync now"),
        Expect("checked", target="the Dark mode switch"),
        Expect("selected", target="购物车"),
        Expect("focused", target="the Log out button"),
        Expect("package", value="com.android.settings"),
        Expect("toast", value="Added to cart"),
    ],
)
def test_unmet_positive_checks_are_not_yet_rather_than_fail(expect: Expect) -> None:
    assert status(expect) is VerdictStatus.NOT_YET


def test_focused_and_input_value_on_a_form() -> None:
    screen = login_screen(keyboard=True, username="alice")
    assert status(Expect("focused", target="the username field"), screen=screen) is VerdictStatus.PASS
    assert status(Expect("input_value", target="the username field", value="alice"), screen=screen) is (
        VerdictStatus.PASS
    )
    assert status(Expect("input_value", target="the username field", value="alic"), screen=screen) is (
        VerdictStatus.NOT_YET
    )


def test_password_field_value_is_unknown_and_says_why() -> None:
    verdict = VALIDATOR.decide(
        ValidatorView((Expect("input_value", target="the password field", value="x"),), login_screen(password="x"))
    )
    assert verdict.status is VerdictStatus.UNKNOWN
    assert "password field shows dots" in verdict.evidence[0].found


def test_negated_check_that_holds_passes_and_one_that_is_violated_fails() -> None:
    assert status(Expect("visible", target="an Error message", negate=True)) is VerdictStatus.PASS
    assert status(Expect("visible", target="the Log out button", negate=True)) is VerdictStatus.FAIL
    assert status(Expect("toast", value="error", negate=True), toasts=("Network error",)) is VerdictStatus.FAIL
    assert status(Expect("absent", target="the Log out button", negate=True)) is VerdictStatus.PASS


def test_remembered_values_are_substituted_before_comparing() -> None:
    expect = Expect("text_equals", target="the Total label", value="Total: ${total}")
    assert status(expect, screen=cart_screen(), values={"total": "$12.50"}) is VerdictStatus.PASS
    doubled = Expect("text_contains", target="the Total label", value="${half*2}")
    assert status(doubled, screen=cart_screen(), values={"half": "$6.25"}) is VerdictStatus.PASS


def test_missing_value_prose_and_a_raising_predicate_are_unknown() -> None:
    assert status(Expect("text_equals", target="Log out", value="${nope}")) is VerdictStatus.UNKNOWN
    assert status(Expect("prose", value="the page looks right")) is VerdictStatus.UNKNOWN
    assert status(Expect("predicate", predicate="broken")) is VerdictStatus.UNKNOWN
    assert status(Expect("predicate", predicate="never_registered")) is VerdictStatus.UNKNOWN


def test_predicates_receive_the_screen_and_values() -> None:
    assert status(Expect("predicate", predicate="three_rows"), screen=cart_screen()) is VerdictStatus.PASS
    two_rows = cart_screen(("Milk", "Bread"))
    assert status(Expect("predicate", predicate="three_rows"), screen=two_rows) is VerdictStatus.NOT_YET


def test_worst_outcome_wins_fail_over_not_yet_over_unknown() -> None:
    fail = Expect("visible", target="the Log out button", negate=True)
    not_yet = Expect("visible", target="the Pay now button")
    unknown = Expect("prose", value="looks fine")
    ok = Expect("visible", target="Sync now")
    assert status(ok, unknown, not_yet, fail) is VerdictStatus.FAIL
    assert status(ok, unknown, not_yet) is VerdictStatus.NOT_YET
    assert status(ok, unknown) is VerdictStatus.UNKNOWN


def test_evidence_names_each_expectation_the_node_and_the_value_seen() -> None:
    verdict = asyncio.run(
        VALIDATOR.validate(
            ValidatorView(
                (Expect("text_equals", target="the Log out button", value="Log out"), Expect("visible", target="X")),
                settings_screen(),
            )
        )
    )
    first, second = verdict.evidence
    assert first.held and first.element_id == "logout"
    assert "'Log out'" in first.found and "[40,800][500,900]" in first.found
    assert not second.held and second.element_id is None and "target not found" in second.found
    assert verdict.reason.startswith("not yet")


def test_unknown_predicate_in_a_definition_is_a_definition_error_naming_step_and_fix() -> None:
    with pytest.raises(DefinitionError) as info:
        VALIDATOR.check_definitions((Expect("predicate", predicate="cart_total_ok"),), step=4)
    assert "step 4 expect 1" in str(info.value)
    assert "broken, three_rows" in str(info.value)
    assert "cart_total_ok" in info.value.fix


def test_checked_state_is_read_from_the_radio_inside_a_real_row() -> None:
    from pathlib import Path

    from fsm_runner.perception import parse_dump

    dump = (
        Path(__file__).resolve().parents[2].parent / "shared" / "ui-corpus" / "009_preferred_network_type_dialog_pt.xml"
    )
    screen = parse_dump(dump.read_bytes())
    assert status(Expect("checked", target="5G preferencial"), screen=screen) is VerdictStatus.PASS
    assert status(Expect("checked", target="LTE preferencial"), screen=screen) is VerdictStatus.NOT_YET
    assert status(Expect("checked", target="Apenas 2G", negate=True), screen=screen) is VerdictStatus.PASS
