from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from fsm_runner.errors import DefinitionError
from fsm_runner.roles.base import PlannerView
from fsm_runner.roles.scripted import ScriptedPlanner, check_predicates, load_steps
from fsm_runner.steps import Action, Check, Expect, Step

STEPS_YAML = """
steps:
  - action: input_text
    target: the username field
    value: alice
  - action: tap
    target: the Login button
    timeout_s: 5
    expect:
      - check: visible
        target: Products
      - {check: text_contains, target: the greeting, value: "${user}", negate: false}
    remember:
      greeting: the greeting
  - action: press_back
"""


def test_yaml_steps_load_into_the_same_steps_as_written_in_python() -> None:
    steps = load_steps(STEPS_YAML)
    assert steps[0] == Step("input_text", target="the username field", value="alice")
    assert steps[1].timeout_s == 5
    assert steps[1].expect == (
        Expect("visible", target="Products"),
        Expect("text_contains", target="the greeting", value="${user}"),
    )
    assert steps[1].remember == (("greeting", "the greeting"),)
    assert steps[2].action is Action.PRESS_BACK


def test_steps_load_from_a_file_path(tmp_path: Path) -> None:
    path = tmp_path / "flow.yaml"
    path.write_text("- action: press_home\n", encoding="utf-8")
    assert load_steps(path) == load_steps(str(path)) == (Step("press_home"),)


@pytest.mark.parametrize(
    ("yaml_text", "message", "fix"),
    [
        ("- action: tap\n  target: x\n- action: fly\n", "step 2: unknown action 'fly'", "use one of tap"),
        ("- action: tap\n  target: x\n  expect:\n    - check: glows\n", "step 1 expect 1: unknown check", "visible"),
        ("- action: tap\n", "step 1", "the Login button"),
        ("- action: tap\n  target: x\n  colour: red\n", "unknown keys ['colour']", "use only"),
        ("- action: tap\n  target: x\n  expect: [{check: text_equals, target: y}]\n", "step 1 expect 1", "value="),
        ("action: tap\n", "must be a YAML list", "one per step"),
        ("- [unclosed\n", "not valid YAML", "fix the YAML"),
    ],
)
def test_bad_yaml_names_the_step_and_the_fix(yaml_text: str, message: str, fix: str) -> None:
    with pytest.raises(DefinitionError) as info:
        load_steps(yaml_text)
    assert message in str(info.value)
    assert fix in info.value.fix


def test_unknown_predicate_names_the_step_and_how_to_register_it() -> None:
    text = "- action: press_back\n- action: press_back\n  expect: [{check: predicate, predicate: cart_empty}]\n"
    with pytest.raises(DefinitionError) as info:
        load_steps(text, predicates={"logged_in"})
    assert "step 2 expect 1: predicate 'cart_empty'" in str(info.value)
    assert "predicates={'cart_empty': fn}" in info.value.fix
    steps = load_steps(text, predicates={"cart_empty"})
    check_predicates(steps, {"cart_empty"})
    assert steps[1].expect[0].check is Check.PREDICATE


def test_scripted_planner_returns_steps_in_order_then_done() -> None:
    steps = (Step("press_back"), Step("press_home"))
    planner = ScriptedPlanner(steps)

    def plan(index: int) -> tuple[Step | None, bool]:
        decision = asyncio.run(planner.plan(PlannerView(goal="g", step_index=index, page_summary="", screen_text="")))
        assert decision.decided_by == "scripted"
        return decision.step, decision.done

    assert plan(0) == (steps[0], False)
    assert plan(1) == (steps[1], False)
    assert plan(1) == (steps[1], False)
    assert plan(2) == (None, True)
