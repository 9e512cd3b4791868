"""Every misbehaviour of the model endpoint is survived: the run ends in a terminal state, attributed, in budget."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import attrs
import pytest

from fsm_runner.budgets import Budgets
from fsm_runner.llm.cache import DecisionCache
from fsm_runner.records import Outcome, RunResult
from fsm_runner.roles.base import Layer
from fsm_runner.testing import ChatServer, RecordedRequest, Reply
from tests.llm.goal_kit import goal_machine, replay_of, run_goal

MACHINE = goal_machine("dark_mode")


def misbehaving(key: str, replies: list[Reply], *, role: str = "planner") -> Callable[[RecordedRequest], Reply]:
    """The recorded answers, except that requests of ``role`` for ``key`` get ``replies`` first (the last repeats)."""
    recorded = replay_of("dark_mode")
    served: list[Reply] = []

    def answer(request: RecordedRequest) -> Reply:
        if request.role == role and request.key == key:
            reply = replies[min(len(served), len(replies) - 1)]
            served.append(reply)
            return reply
        return recorded(request)

    return answer


def run(script: Callable[[RecordedRequest], Reply], timeout_s: float = 5.0) -> tuple[RunResult, ChatServer]:
    async def scenario() -> tuple[RunResult, ChatServer]:
        with ChatServer(script) as server:
            return await run_goal(MACHINE, server, DecisionCache(), timeout_s=timeout_s), server

    return asyncio.run(scenario())


def in_budget(result: RunResult) -> None:
    budgets = MACHINE.budgets
    assert budgets.max_llm_calls is not None and budgets.max_tokens is not None
    assert result.usage.calls <= budgets.max_llm_calls + 1
    assert result.usage.tokens <= budgets.max_tokens
    assert result.wall_s <= budgets.max_wall_s


def decision_failure(result: RunResult, role: str, state: str = "PLAN") -> None:
    """The run failed on the role's unusable answer in ``state``.

    The final layer is the healer's classification (RuleHealer files role errors under execution),
    so the role error's own layer is checked in the reason's root cause.
    """
    assert result.failed_state == state
    assert result.reason.startswith(f"{state} failed (role_error): {role} raised AnswerError")
    assert result.layer in (Layer.DECISION, Layer.EXECUTION)


def test_one_malformed_answer_is_corrected_and_the_run_passes() -> None:
    result, server = run(misbehaving("step 3", [Reply.malformed(), *[Reply.answer(_login_step())]]))
    assert result.outcome is Outcome.PASSED, result.reason
    assert [r.key for r in server.requests].count("step 3") == 2
    assert "not valid JSON" in server.requests[4].messages[-1]["content"]
    in_budget(result)


def test_malformed_answers_that_persist_fail_the_run_in_the_decision_layer() -> None:
    result, _ = run(misbehaving("step 3", [Reply.malformed()]))
    assert result.outcome is Outcome.FAILED
    decision_failure(result, "planner")
    assert "not valid JSON" in result.reason
    in_budget(result)


def test_an_action_outside_the_whitelist_is_refused_and_attributed() -> None:
    rogue = Reply.answer({"done": False, "step": {"action": "factory_reset", "target": "phone"}})
    result, server = run(misbehaving("step 3", [rogue]))
    assert result.outcome is Outcome.FAILED
    decision_failure(result, "planner")
    assert "factory_reset" in result.reason
    corrections = [r.messages[-1]["content"] for r in server.requests if r.key == "step 3" and len(r.messages) > 2]
    assert corrections and "not in the whitelist" in corrections[0]
    in_budget(result)


def test_a_hallucinated_element_from_the_locator_tier_is_refused_and_attributed() -> None:
    teleport = Reply.answer(
        {"done": False, "step": {"action": "tap", "target": "Teleport button", "intent": "teleport", "expect": []}}
    )
    script = misbehaving("step 3", [teleport])
    locator_answers: list[str] = []

    def with_locator(request: RecordedRequest) -> Reply:
        if request.role == "locator":
            locator_answers.append(request.key)
            return Reply.hallucinated("ezzzzzz")
        return script(request)

    result, _ = run(with_locator)
    assert result.outcome is Outcome.FAILED
    decision_failure(result, "locator", state="EXECUTE")
    assert "ezzzzzz" in result.reason and "not on the screen" in result.reason
    assert locator_answers and set(locator_answers) == {"Teleport button"}
    in_budget(result)


def test_rate_limits_are_waited_out_and_the_run_passes() -> None:
    result, server = run(misbehaving("step 4", [Reply.rate_limited(3), Reply.answer(_settings_step())]))
    assert result.outcome is Outcome.PASSED, result.reason
    assert [r.status for r in server.requests if r.key == "step 4"] == [429, 200]
    in_budget(result)


@pytest.mark.parametrize("failure", ["server_error", "timeout"])
def test_an_endpoint_that_keeps_failing_ends_the_run_as_an_environment_error(failure: str) -> None:
    reply = Reply.server_error() if failure == "server_error" else Reply.hang(10)
    result, _ = run(misbehaving("step 2", [reply]), timeout_s=0.2)
    assert result.outcome in (Outcome.ERROR, Outcome.FAILED)
    assert result.layer is Layer.ENVIRONMENT, result.reason
    assert "planner model" in result.reason
    assert ("HTTP 500" if failure == "server_error" else "no answer within 0.2 s") in result.reason
    assert [s.outcome for s in result.steps[:2]] == ["passed", "passed"]
    in_budget(result)


def _login_step() -> dict[str, object]:
    return {
        "done": False,
        "step": {"action": "tap", "target": "Log in button", "intent": "log in",
                 "expect": [{"check": "visible", "target": "Products"}]},
    }


def _settings_step() -> dict[str, object]:
    return {
        "done": False,
        "step": {"action": "tap", "target": "Settings button", "intent": "open the settings",
                 "expect": [{"check": "visible", "target": "Dark mode switch"}]},
    }


def test_the_llm_call_budget_aborts_the_run_naming_it() -> None:
    tight = attrs.evolve(MACHINE, budgets=Budgets(max_steps=15, max_llm_calls=3, max_tokens=40_000))

    async def scenario() -> RunResult:
        with ChatServer(replay_of("dark_mode")) as server:
            return await run_goal(tight, server, DecisionCache())

    result = asyncio.run(scenario())
    assert result.outcome is Outcome.ABORTED and result.budget == "max_llm_calls"
    assert result.usage.calls == 4


def test_the_token_budget_aborts_the_run_naming_it() -> None:
    tight = attrs.evolve(MACHINE, budgets=Budgets(max_steps=15, max_llm_calls=30, max_tokens=1_500))

    async def scenario() -> RunResult:
        with ChatServer(replay_of("dark_mode")) as server:
            return await run_goal(tight, server, DecisionCache())

    result = asyncio.run(scenario())
    assert result.outcome is Outcome.ABORTED and result.budget == "max_tokens"
    assert 1_500 < result.usage.tokens < 1_500 + 1_000
