from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from roles_screens import APP, cart_screen, el, login_screen, screen, settings_screen

from fsm_runner.perception.screen import Bounds, Screen, Window, WindowKind
from fsm_runner.roles.base import Failure, HealAction, HealDecision, HealerView, Layer, StepSummary
from fsm_runner.roles.failure_patterns import FailurePattern, FailurePatterns, Remedy, page_key
from fsm_runner.roles.healer import RuleHealer
from fsm_runner.steps import Action, Step

HEALER = RuleHealer()


def view(
    cause: str,
    *,
    layer: Layer = Layer.EXECUTION,
    detail: str = "",
    scr: Screen | None = None,
    tries: int = 0,
    skip: bool = False,
    summary: str = "Demo Shop settings",
) -> HealerView:
    return HealerView(
        Failure("VERIFY", cause, layer, detail, step_index=2),
        summary,
        recent=(StepSummary(2, "open cart", "tap", "the Cart tab", "not found"),),
        heals_this_step=tries,
        skip_allowed=skip,
        screen=scr,
    )


def permission_screen(*buttons: str) -> Screen:
    windows = (
        Window(0, WindowKind.APP, APP, Bounds(0, 0, 1080, 2400)),
        Window(1, WindowKind.SYSTEM_POPUP, "com.google.android.permissioncontroller", Bounds(60, 800, 1020, 1600)),
    )
    elements = [el("cart_tab", "android.widget.TextView", (0, 2250, 360, 2400), text="Cart", occluded=True)]
    for i, label in enumerate(buttons):
        elements.append(
            el(
                f"b{i}",
                "android.widget.Button",
                (100, 1300 + 100 * i, 980, 1390 + 100 * i),
                text=label,
                clickable=True,
                window=1,
                package="com.google.android.permissioncontroller",
            )
        )
    return screen(*elements, windows=windows)


def test_a_system_popup_in_the_way_is_dismissed_with_its_allow_button() -> None:
    decision = HEALER.decide(view("not_found", scr=permission_screen("Don't allow", "Allow")))
    assert decision.action is HealAction.DISMISS_POPUP
    assert decision.layer is Layer.ENVIRONMENT
    assert decision.remedy == Step(Action.TAP, target='"Allow"', intent="remedy: dismiss popup")


def test_a_popup_without_a_known_button_is_dismissed_with_back() -> None:
    decision = HEALER.decide(view("not_yet", scr=permission_screen("Frobnicate")))
    assert decision.action is HealAction.DISMISS_POPUP
    assert decision.remedy is not None and decision.remedy.action is Action.PRESS_BACK


def test_keyboard_occlusion_is_healed_by_pressing_back_then_retrying() -> None:
    decision = HEALER.decide(view("occluded", detail="covered by keyboard", scr=login_screen(keyboard=True)))
    assert decision.action is HealAction.RETRY
    assert decision.layer is Layer.EXECUTION
    assert decision.remedy is not None and decision.remedy.action is Action.PRESS_BACK


def test_a_target_missing_from_a_scrollable_list_is_searched_by_scrolling_down() -> None:
    decision = HEALER.decide(view("not_found", layer=Layer.PERCEPTION, scr=cart_screen()))
    assert decision.action is HealAction.SCROLL_TO_FIND
    assert decision.remedy == Step(Action.SCROLL, value="down", intent="remedy: scroll to find the target")
    after_two_scrolls = HEALER.decide(view("not_found", layer=Layer.PERCEPTION, scr=cart_screen(), tries=2))
    assert after_two_scrolls.action is not HealAction.SCROLL_TO_FIND


def test_a_target_missing_from_a_page_without_a_list_is_retried_then_replanned() -> None:
    first = HEALER.decide(view("not_found", scr=settings_screen()))
    second = HEALER.decide(view("not_found", scr=settings_screen(), tries=1))
    assert (first.action, first.layer) == (HealAction.RETRY, Layer.PERCEPTION)
    assert (second.action, second.layer) == (HealAction.REPLAN, Layer.DECISION)


def test_an_unmet_expectation_is_the_verdict_and_never_repeats_the_action() -> None:
    decisions = [HEALER.decide(view("not_yet", scr=settings_screen(), tries=t)) for t in range(3)]
    assert [(d.action, d.layer) for d in decisions] == [(HealAction.ABORT, Layer.VERDICT)] * 3
    skipped = HEALER.decide(view("not_yet", scr=settings_screen(), tries=2, skip=True))
    assert (skipped.action, skipped.layer) == (HealAction.SKIP, Layer.VERDICT)


def test_a_loop_is_replanned_once_then_given_up() -> None:
    assert HEALER.decide(view("loop")).action is HealAction.REPLAN
    assert HEALER.decide(view("loop", tries=1)).action is HealAction.ABORT
    assert HEALER.decide(view("loop", tries=1, skip=True)).action is HealAction.SKIP


def test_an_undecidable_verdict_is_blamed_on_the_verdict_layer() -> None:
    decision = HEALER.decide(view("unknown"))
    assert (decision.action, decision.layer) == (HealAction.ABORT, Layer.VERDICT)


def test_lost_ack_is_an_execution_retry() -> None:
    decision = HEALER.decide(view("ack_lost", detail="ack lost"))
    assert (decision.action, decision.layer) == (HealAction.RETRY, Layer.EXECUTION)


def test_environment_failures_abort_and_are_blamed_on_the_environment() -> None:
    decision = HEALER.decide(view("offline", layer=Layer.ENVIRONMENT, scr=permission_screen("Allow")))
    assert (decision.action, decision.layer) == (HealAction.ABORT, Layer.ENVIRONMENT)


@pytest.mark.parametrize("cause", ["not_found", "not_yet", "loop", "ack_lost", "whatever"])
def test_no_more_than_three_heals_per_step(cause: str) -> None:
    decision = asyncio.run(HEALER.heal(view(cause, scr=cart_screen(), tries=3, skip=True)))
    assert decision.action is HealAction.ABORT
    assert "cap 3" in decision.reason


def test_a_learned_fix_is_reused_for_the_same_failure_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "patterns.jsonl"
    healer = RuleHealer(FailurePatterns(path))
    failing = view("not_yet", scr=settings_screen(), summary="Demo Shop settings 12:45")
    remedy = Step(Action.TAP, target='"OK"')
    healer.record_success(failing, HealDecision(HealAction.DISMISS_POPUP, Layer.EXECUTION, remedy=remedy))
    healer.record_success(failing, HealDecision(HealAction.DISMISS_POPUP, Layer.EXECUTION, remedy=remedy))

    reloaded = RuleHealer(FailurePatterns(path))
    again = reloaded.decide(view("not_yet", scr=settings_screen(), summary="Demo Shop settings 09:10"))
    assert again.action is HealAction.DISMISS_POPUP
    assert again.remedy is not None and (again.remedy.action, again.remedy.target) == (Action.TAP, '"OK"')
    assert "worked 2 time(s)" in again.reason
    other_page = reloaded.decide(view("not_yet", scr=settings_screen(), summary="Demo Shop cart"))
    assert (other_page.action, other_page.layer) == (HealAction.ABORT, Layer.VERDICT)
    assert len(path.read_text(encoding="utf-8").splitlines()) == 2


def test_a_torn_line_in_the_pattern_file_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "patterns.jsonl"
    patterns = FailurePatterns(path)
    patterns.record_success("loop", "Cart", "the Pay button", HealAction.REPLAN, Layer.DECISION)
    with path.open("a", encoding="utf-8") as out:
        out.write('{"cause": "loop", "pa')
    reloaded = FailurePatterns(path)
    assert len(reloaded) == 1
    found = reloaded.lookup("loop", "Cart", "the Pay button")
    assert found is not None and found.action is HealAction.REPLAN
    assert json.loads(path.read_text(encoding="utf-8").splitlines()[0])["cause"] == "loop"


def test_page_key_ignores_digits_so_clocks_do_not_change_it() -> None:
    assert page_key("Cart 3 items 12:45") == page_key("cart 4 ITEMS 09:00") == "cart items"


texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20)


@given(
    cause=texts,
    page=texts,
    target=texts,
    action=st.sampled_from(HealAction),
    layer=st.sampled_from(Layer),
    remedy=st.none() | st.builds(Remedy, st.sampled_from([Action.PRESS_BACK, Action.PRESS_HOME]), st.none(), st.none()),
    successes=st.integers(1, 1000),
)
def test_failure_patterns_round_trip_through_json(
    cause: str, page: str, target: str, action: HealAction, layer: Layer, remedy: Remedy | None, successes: int
) -> None:
    from fsm_runner.roles.failure_patterns import _CONVERTER

    pattern = FailurePattern(cause, page, target, action, layer, remedy, successes)
    line = json.dumps(_CONVERTER.unstructure(pattern), ensure_ascii=False)
    assert _CONVERTER.structure(json.loads(line), FailurePattern) == pattern


@pytest.mark.parametrize(
    ("cause", "detail", "kind"),
    [
        ("exec_retry", "covered by keyboard: button 'Log in'", "occluded"),
        ("exec_retry", "ack lost: the tap was sent", "execution"),
        ("verify_fail", "not visible 'Error'", "contradiction"),
        ("verify_timeout", "expected state not reached", "verify"),
        ("perception_error", "not XML", "perception"),
        ("high_risk_refused", "'Pay now' looks high-risk", "decision"),
        ("made_up", "", "other"),
    ],
)
def test_engine_causes_are_classified(cause: str, detail: str, kind: str) -> None:
    from fsm_runner.roles.healer import failure_kind

    assert failure_kind(Failure("EXECUTE", cause, Layer.EXECUTION, detail, 0)) == kind


def test_a_violated_must_not_state_is_not_retried() -> None:
    decision = HEALER.decide(view("verify_fail", detail="not visible 'Error'", scr=settings_screen()))
    assert (decision.action, decision.layer) == (HealAction.ABORT, Layer.VERDICT)


def test_a_refused_high_risk_step_is_replanned_then_aborted() -> None:
    assert HEALER.decide(view("high_risk_refused", tries=1)).action is HealAction.REPLAN
    assert HEALER.decide(view("high_risk_refused", tries=2)).action is HealAction.ABORT


def test_the_failure_target_keys_the_learned_fix(tmp_path: Path) -> None:
    healer = RuleHealer(FailurePatterns(tmp_path / "p.jsonl"))
    failing = HealerView(Failure("EXECUTE", "not_found", Layer.PERCEPTION, "", 5, target="Pay now"), "Cart")
    healer.record_success(failing, HealDecision(HealAction.SCROLL_TO_FIND, Layer.PERCEPTION))
    assert healer.decide(failing).action is HealAction.SCROLL_TO_FIND
    other = HealerView(Failure("EXECUTE", "not_found", Layer.PERCEPTION, "", 5, target="Checkout"), "Cart")
    assert healer.decide(other).action is HealAction.RETRY


@pytest.mark.parametrize(
    ("dump", "button"), [("demo_en_permission.xml", "Allow"), ("demo_zh-CN_permission.xml", "允许")]
)
def test_the_popup_remedy_names_a_button_the_locator_finds_on_the_real_dump(dump: str, button: str) -> None:
    from fsm_runner.perception import parse_dump
    from fsm_runner.roles.locator import RuleLocator

    real = parse_dump((Path(__file__).parent / "data" / dump).read_bytes())
    decision = HEALER.decide(view("not_found", scr=real))
    assert decision.action is HealAction.DISMISS_POPUP and decision.remedy is not None
    best = RuleLocator().find(decision.remedy.target or "", real).best
    assert best is not None and best.label == button
