"""Each budget kind ends the run in the named state with the budget named, on a fake clock."""

from __future__ import annotations

from engine_kit import RunFn

from fsm_runner.budgets import Budgets
from fsm_runner.records import Outcome
from fsm_runner.roles.base import Layer
from fsm_runner.testing.roles import RoleAnswers


def test_a_planner_that_never_answers_hits_the_state_timeout_and_goes_to_heal(run: RunFn) -> None:
    result = run(RoleAnswers(delays=(10_000.0,)), Budgets(state_timeouts={"PLAN": 5.0}))
    assert result.outcome is Outcome.FAILED
    assert "PLAN failed (timeout)" in result.reason
    assert result.failed_state == "PLAN"
    assert "HEAL" in result.path


def test_a_state_timeout_with_abort_policy_ends_aborted_naming_the_state(run: RunFn) -> None:
    result = run(
        RoleAnswers(delays=(10_000.0,)),
        Budgets(state_timeouts={"PLAN": 5.0}, timeout_policy={"PLAN": "abort"}),
    )
    assert result.outcome is Outcome.ABORTED
    assert result.budget == "state_timeout.PLAN"
    assert result.wall_s == 5.0


def test_the_wall_clock_budget_aborts_a_slow_run(run: RunFn) -> None:
    result = run(RoleAnswers(delays=(40.0,), screens=tuple(str(i) for i in range(100))), Budgets(max_wall_s=100.0))
    assert result.outcome is Outcome.ABORTED
    assert result.budget == "max_wall_s"
    assert result.wall_s <= 100.0


def test_max_steps_aborts_a_planner_that_never_says_done(run: RunFn) -> None:
    result = run(RoleAnswers(screens=tuple(str(i) for i in range(100))), Budgets(max_steps=7))
    assert result.outcome is Outcome.ABORTED
    assert result.budget == "max_steps"
    assert len(result.steps) == 7


def test_max_llm_calls_aborts_once_the_calls_exceed_the_cap(run: RunFn) -> None:
    result = run(RoleAnswers(llm_calls=(2,), screens=tuple(str(i) for i in range(100))), Budgets(max_llm_calls=5))
    assert result.outcome is Outcome.ABORTED
    assert result.budget == "max_llm_calls"
    assert result.usage.calls == 6


def test_max_tokens_aborts_once_the_tokens_exceed_the_cap(run: RunFn) -> None:
    result = run(RoleAnswers(screens=tuple(str(i) for i in range(100))), Budgets(max_tokens=40))
    assert result.outcome is Outcome.ABORTED
    assert result.budget == "max_tokens"
    assert result.usage.tokens == 45


def test_perception_errors_are_retried_within_the_state_budget_then_healed(run: RunFn) -> None:
    answers = RoleAnswers(screens=(None, None, "a", "done"), plans=("step", "done"))
    result = run(answers, Budgets(max_retries_per_state=3))
    assert result.path[:5] == ("IDLE", "INIT", "OBSERVE", "OBSERVE", "OBSERVE")
    assert result.outcome is Outcome.PASSED

    exhausted = run(RoleAnswers(screens=(None,)), Budgets(max_retries_per_state=2))
    assert exhausted.outcome is Outcome.FAILED
    assert exhausted.layer is Layer.PERCEPTION
    assert exhausted.path.count("OBSERVE") >= 3


def test_heals_per_step_are_capped_and_the_step_fails_on_its_root_cause(run: RunFn) -> None:
    screens = tuple(str(i) for i in range(100))
    result = run(RoleAnswers(screens=screens, verdicts=("fail",)), Budgets(max_heals_per_step=2))
    assert result.outcome is Outcome.FAILED
    assert result.failed_state == "VERIFY"
    assert result.layer is Layer.VERDICT
    assert "max_heals_per_step=2" in result.reason
    assert all(len(record.heals) <= 2 for record in result.steps)


def test_not_yet_is_rechecked_within_the_step_window_before_it_counts_as_a_failure(run: RunFn) -> None:
    result = run(RoleAnswers(verdicts=("not_yet", "not_yet", "pass"), plans=("step", "done")))
    assert result.outcome is Outcome.PASSED
    assert result.path.count("VERIFY") == 3


def test_negative_or_zero_budgets_are_refused_with_the_field_named() -> None:
    import pytest

    from fsm_runner.errors import DefinitionError

    with pytest.raises(DefinitionError, match=r"budgets.max_steps"):
        Budgets(max_steps=0)
    with pytest.raises(DefinitionError, match=r"budgets.max_wall_s"):
        Budgets(max_wall_s=-1)
    with pytest.raises(DefinitionError, match=r"unknown state 'OBSERV'"):
        Budgets(state_timeouts={"OBSERV": 3})
    with pytest.raises(DefinitionError, match=r"budgets.max_llm_calls"):
        Budgets(max_llm_calls=-3)
