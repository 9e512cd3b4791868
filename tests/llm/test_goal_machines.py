"""Goal-only demo machines on the simulated Demo Shop, with the scripted server playing the model."""

from __future__ import annotations

import asyncio
import json

import pytest
from structlog.testing import capture_logs

from fsm_runner.llm.cache import CacheMode, DecisionCache
from fsm_runner.llm.replay import ReplayFile
from fsm_runner.records import Outcome
from fsm_runner.testing import ChatServer, RecordedRequest, Reply
from machines.goal import GOAL_MACHINES, replay_path
from tests.llm.goal_kit import SECRETS, goal_machine, renamed, replay_of, run_goal


@pytest.mark.parametrize("name", GOAL_MACHINES)
def test_goal_machine_passes_then_reruns_entirely_from_the_cache(name: str) -> None:
    machine = goal_machine(name)
    cache = DecisionCache()

    async def scenario() -> None:
        with ChatServer(replay_of(name)) as first_server:
            first = await run_goal(machine, first_server, cache)
        assert first.outcome is Outcome.PASSED, first.reason
        assert first.usage.calls == len(first_server.requests) > len(first.steps)
        assert first.usage.prompt_tokens == sum(r.prompt_tokens for r in first_server.requests)
        assert all(s.decided_by == "llm" and not s.cache_hit for s in first.steps)
        with ChatServer([]) as second_server:
            second = await run_goal(machine, second_server, cache)
        assert second.outcome is Outcome.PASSED, second.reason
        assert second_server.requests == [] and second.usage.calls == 0 and second.usage.tokens == 0
        assert [s.intent for s in second.steps] == [s.intent for s in first.steps]
        assert all(s.cache_hit and s.decided_by == "cache" for s in second.steps)
        assert second.usage.cache_hits == len(first_server.requests)

    asyncio.run(scenario())


def test_a_renamed_button_makes_exactly_the_steps_on_its_screen_ask_again() -> None:
    machine = goal_machine("cheapest_to_cart")
    cache = DecisionCache()
    replay = ReplayFile.load(replay_path("cheapest_to_cart"))
    basket = {
        "done": False,
        "reason": "The add button is now called Add to basket.",
        "step": {"action": "tap", "target": "Add to basket button", "intent": "add the item to the cart",
                 "expect": [{"check": "toast", "value": "Added to cart"}]},
    }

    def model(request: RecordedRequest) -> Reply:
        if "Add to basket" in request.text and request.key == "step 7":
            return Reply.answer(basket)
        return Reply.answer(replay.answer(request.role, request.key, request.fingerprint))

    async def scenario() -> None:
        with ChatServer(replay_of("cheapest_to_cart")) as server:
            first = await run_goal(machine, server, cache)
        assert first.outcome is Outcome.PASSED, first.reason
        with ChatServer(model) as server, capture_logs() as events:
            second = await run_goal(machine, server, cache, wrap=renamed("Add to cart", "Add to basket"))
        assert second.outcome is Outcome.PASSED, second.reason
        on_changed_screen = [s.index for s in first.steps if s.before_summary.endswith("USB-C Cable")]
        assert [r.key for r in server.requests] == [f"step {i}" for i in on_changed_screen] == ["step 7", "step 8"]
        assert [s.index for s in second.steps if not s.cache_hit] == on_changed_screen
        assert second.steps[7].step.target == "Add to basket button"
        replaced = [e for e in events if e["event"] == "llm.cache_replaced"]
        assert [e["intent"].split(":")[0] for e in replaced] == ["step 7", "step 8"]
        assert replaced[0]["old"]["target"] == "Add to cart button"
        assert replaced[0]["new"]["target"] == "Add to basket button"
        stale = [e for e in events if e["event"] == "llm.cache_stale"]
        assert [e["intent"].split(":")[0] for e in stale] == ["step 6"]
        with ChatServer([]) as server:
            third = await run_goal(machine, server, cache, wrap=renamed("Add to cart", "Add to basket"))
        assert third.outcome is Outcome.PASSED and server.requests == []

    asyncio.run(scenario())


def test_read_only_cache_answers_hits_but_stores_nothing() -> None:
    machine = goal_machine("dark_mode")

    async def scenario() -> None:
        cache = DecisionCache(mode=CacheMode.READ_ONLY)
        with ChatServer(replay_of("dark_mode")) as server:
            first = await run_goal(machine, server, cache)
        assert first.outcome is Outcome.PASSED and cache.entries() == []
        off = DecisionCache(mode=CacheMode.OFF)
        for _ in range(2):
            with ChatServer(replay_of("dark_mode")) as server:
                run = await run_goal(machine, server, off)
            assert run.outcome is Outcome.PASSED and run.usage.calls == len(run.steps) + 1

    asyncio.run(scenario())


def test_secret_values_never_reach_requests_events_or_recorded_answers(tmp_path: object) -> None:
    machine = goal_machine("dark_mode")
    cache = DecisionCache()

    async def scenario() -> None:
        with ChatServer(replay_of("dark_mode")) as server, capture_logs() as events:
            result = await run_goal(machine, server, cache)
        assert result.outcome is Outcome.PASSED, result.reason
        typed = [s for s in result.steps if s.step.value == "${secret:DEMO_SHOP_PASSWORD}"]
        assert len(typed) == 1 and typed[0].outcome == "passed"
        secret = SECRETS["DEMO_SHOP_PASSWORD"]
        bodies = json.dumps([r.body for r in server.requests])
        assert "${secret:DEMO_SHOP_PASSWORD}" in bodies
        assert secret not in bodies
        assert secret not in json.dumps(events, default=str)
        assert secret not in json.dumps([e.decision for e in cache.entries()])
        assert secret not in repr(result)

    asyncio.run(scenario())


def test_a_target_the_rules_cannot_place_is_found_by_the_locator_tier_and_cached() -> None:
    machine = goal_machine("dark_mode")
    replay = ReplayFile.load(replay_path("dark_mode"))
    night = {
        "done": False,
        "step": {"action": "tap", "target": "the night theme toggle", "intent": "turn on dark mode",
                 "expect": [{"check": "checked", "target": "Dark mode switch"}]},
    }

    def model(request: RecordedRequest) -> Reply:
        if request.role == "locator":
            line = next(line for line in request.text.splitlines() if '"Dark mode"' in line)
            return Reply.answer({"element_id": line.split()[0], "reason": "night theme means dark mode"})
        if request.key == "step 5":
            return Reply.answer(night)
        return Reply.answer(replay.answer(request.role, request.key, request.fingerprint))

    async def scenario() -> None:
        cache = DecisionCache()
        with ChatServer(model) as server:
            first = await run_goal(machine, server, cache)
        assert first.outcome is Outcome.PASSED, first.reason
        assert [r.key for r in server.requests if r.role == "locator"] == ["the night theme toggle"]
        tapped = first.steps[5]
        assert tapped.step.target == "the night theme toggle" and tapped.candidates[0].reason.startswith("model:")
        with ChatServer([]) as server:
            second = await run_goal(machine, server, cache)
        assert second.outcome is Outcome.PASSED and server.requests == []
        assert second.usage.cache_hits == first.usage.calls

    asyncio.run(scenario())
