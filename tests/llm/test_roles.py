"""The LLM locator tier, the prose oracle, vision, the refusal at start, and persisted values' round trips."""

from __future__ import annotations

import asyncio
import io
import json
import statistics
import typing
from pathlib import Path

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from adapters.sim import SimDevice, SimPhone
from fsm_runner.errors import ConfigurationError
from fsm_runner.llm.cache import CachedDecision, DecisionCache
from fsm_runner.llm.locator import LlmLocator
from fsm_runner.llm.oracle import LlmValidator
from fsm_runner.llm.planner import LlmPlanner
from fsm_runner.llm.roles import llm_roles, needs_llm
from fsm_runner.llm.schema import ExpectAnswer, PlannerAnswer, StepAnswer, parse_answer
from fsm_runner.llm.vision import prepared_screenshot
from fsm_runner.machine import Machine
from fsm_runner.perception import parse_dump
from fsm_runner.perception.screen import Screen
from fsm_runner.roles.base import LocatorView, PlannerView, ValidatorView, VerdictStatus
from fsm_runner.roles.scripted import ScriptedPlanner
from fsm_runner.steps import Expect, Step
from fsm_runner.testing import ChatServer, Reply
from tests.llm.conftest import client_for, profiles

DATA = Path(__file__).resolve().parents[1] / "roles" / "data"


def screen(name: str) -> Screen:
    return parse_dump((DATA / f"demo_en_{name}.xml").read_bytes())


def element_id(where: Screen, label: str) -> str:
    return next(e.element_id for e in where.elements if e.label == label and e.visible)


def locate(target: str, where: Screen, replies: list[Reply | dict[str, object]], **kwargs: object) -> tuple:
    async def scenario() -> tuple:
        with ChatServer(replies) as server:
            client = client_for(server)
            locator = LlmLocator(client, profiles()["locator"], **kwargs)  # type: ignore[arg-type]
            location = await locator.locate(LocatorView(target=target, screen=where))
            await client.close()
        return location, server.requests

    return asyncio.run(scenario())


def test_a_confident_rule_match_never_asks_the_model() -> None:
    location, requests = locate("the Log in button", screen("login"), [])
    assert requests == [] and location.decided_by == "rules" and location.best.label == "Log in"


def test_an_unsure_rule_match_asks_the_model_for_an_id_on_the_screen() -> None:
    where = screen("settings")
    wanted = element_id(where, "Dark mode")
    location, requests = locate("the night theme toggle", where, [{"element_id": wanted, "reason": "dark = night"}])
    assert location.decided_by == "llm" and location.best.element_id == wanted
    assert location.usage.calls == 1 and location.usage.prompt_tokens == requests[0].prompt_tokens
    text = requests[0].text
    assert "TARGET: the night theme toggle" in text and wanted in text
    assert "9:41" not in text and "GOAL" not in text


def test_the_model_saying_nothing_matches_is_not_found() -> None:
    location, _ = locate("the teleport lever", screen("settings"), [{"element_id": None, "reason": "no lever"}])
    assert not location.found and "no lever" in location.reason


def test_a_model_pick_is_cached_per_screen_and_target() -> None:
    where = screen("settings")
    wanted = element_id(where, "Dark mode")
    cache = DecisionCache()
    first, asked = locate("the night theme toggle", where, [{"element_id": wanted}], cache=cache, machine="m")
    second, asked_again = locate("the night theme toggle", where, [], cache=cache, machine="m")
    assert len(asked) == 1 and asked_again == []
    assert second.best == first.best and second.usage.cache_hits == 1 and second.usage.calls == 0


def test_keyboard_keys_are_not_sent_to_the_model() -> None:
    where = screen("login_keyboard")
    _, requests = locate("the mystery widget", where, [{"element_id": None}])
    assert '"q"' not in requests[0].text and "keyboard shown" in requests[0].text


def judge(expect: tuple[Expect, ...], where: Screen, replies: list[Reply | dict[str, object]]) -> tuple:
    async def scenario() -> tuple:
        with ChatServer(replies) as server:
            client = client_for(server)
            verdict = await LlmValidator(client, profiles()["validator"]).validate(
                ValidatorView(expect=expect, screen=where, values={"item": "Coffee Mug"})
            )
            await client.close()
        return verdict, server.requests

    return asyncio.run(scenario())


def test_expectations_without_prose_are_decided_by_code_alone() -> None:
    verdict, requests = judge((Expect("visible", target="Dark mode switch"),), screen("settings"), [])
    assert requests == [] and verdict.status is VerdictStatus.PASS and not verdict.llm_judged


def test_prose_is_judged_by_the_model_and_labelled() -> None:
    expect = (Expect("visible", target="Dark mode switch"), Expect("prose", value="notifications are on for ${item}"))
    verdict, requests = judge(expect, screen("settings"), [{"verdicts": [{"status": "fail", "reason": "no mug"}]}])
    assert verdict.status is VerdictStatus.FAIL and verdict.llm_judged
    assert verdict.usage.calls == 1
    assert "1. notifications are on for Coffee Mug" in requests[0].text
    assert [e.held for e in verdict.evidence] == [True, False] and "no mug" in verdict.evidence[1].found


def test_negated_prose_is_asked_as_its_negation() -> None:
    expect = (Expect("prose", value="an error is shown", negate=True),)
    verdict, requests = judge(expect, screen("settings"), [{"verdicts": [{"status": "pass"}]}])
    assert verdict.status is VerdictStatus.PASS and "It is NOT the case that: an error is shown" in requests[0].text


def test_prose_is_not_asked_when_code_already_fails() -> None:
    expect = (Expect("visible", target="Checkout button"), Expect("prose", value="the cart is empty"))
    verdict, requests = judge(expect, screen("settings"), [])
    assert requests == [] and verdict.status is VerdictStatus.NOT_YET and not verdict.llm_judged


def test_a_wrong_number_of_verdicts_is_corrected_once() -> None:
    expect = (Expect("prose", value="a"), Expect("prose", value="b"))
    replies = [{"verdicts": [{"status": "pass"}]}, {"verdicts": [{"status": "pass"}, {"status": "unknown"}]}]
    verdict, requests = judge(expect, screen("settings"), replies)
    assert len(requests) == 2 and "exactly 2 verdicts" in requests[1].messages[-1]["content"]
    assert verdict.status is VerdictStatus.UNKNOWN


GOAL_ONLY = Machine(name="g", app="com.example.demoshop", goal="turn on dark mode")
SCRIPTED = Machine(name="s", app="com.example.demoshop", steps=[Step("press_back")])
PROSE = Machine(name="p", app="com.example.demoshop", steps=[Step("press_back")],
                final=[Expect("prose", value="the app looks dark")])


def test_a_machine_that_needs_the_llm_is_refused_at_start_naming_the_variables() -> None:
    for machine in (GOAL_ONLY, PROSE):
        assert needs_llm(machine)
        with pytest.raises(ConfigurationError) as caught:
            llm_roles(machine, environ={})
        assert "FSM_RUNNER_LLM_BASE_URL" in str(caught.value) and "OPENAI_API_KEY" in str(caught.value)
        assert repr(machine.name) in str(caught.value)


def test_a_scripted_machine_needs_no_endpoint() -> None:
    roles = llm_roles(SCRIPTED, environ={})
    assert not needs_llm(SCRIPTED) and isinstance(roles.planner, ScriptedPlanner)


def test_the_endpoint_comes_from_the_environment() -> None:
    roles = llm_roles(GOAL_ONLY, environ={"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "OPENAI_API_KEY": "k"})
    assert isinstance(roles.planner, LlmPlanner)
    assert roles.planner.client.endpoint.base_url == "http://127.0.0.1:1/v1"


def sim_screenshot() -> tuple[bytes, Screen]:
    async def shoot() -> tuple[bytes, Screen]:
        device = SimDevice(SimPhone())
        await device.start_app("com.example.demoshop")
        dump = await device.dump_hierarchy()
        return await device.screenshot(), parse_dump(dump.xml)

    return asyncio.run(shoot())


def test_screenshots_lose_the_system_bars_and_are_scaled_to_720_wide() -> None:
    png, where = sim_screenshot()
    with Image.open(io.BytesIO(png)) as original:
        width, height = original.size
    with Image.open(io.BytesIO(prepared_screenshot(png, where))) as prepared:
        assert prepared.width == 720
        bars = [w.bounds.height for w in where.windows if w.kind.value in ("status_bar", "navigation_bar")]
        assert bars, "the simulated phone draws a status bar"
        assert prepared.height == round((height - sum(bars) * height / where.height) * 720 / width)


def test_a_vision_profile_sends_the_screenshot_beside_the_text() -> None:
    png, where = sim_screenshot()
    view = PlannerView(goal="g", step_index=0, page_summary="p", screen_text="e1 button", fingerprint="f")

    async def scenario() -> list[object]:
        with ChatServer([{"done": True}]) as server:
            client = client_for(server)
            planner = LlmPlanner(client, profiles(vision=True)["planner"], machine="m",
                                 screenshot=lambda: prepared_screenshot(png, where))
            await planner.plan(view)
            await client.close()
        return server.requests[0].messages[-1]["content"]

    parts = asyncio.run(scenario())
    assert isinstance(parts, list) and [p["type"] for p in parts] == ["text", "image_url"]  # type: ignore[index]
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")  # type: ignore[index]


texts = st.text(max_size=20)
answers = st.builds(
    PlannerAnswer,
    done=st.booleans(),
    reason=texts,
    step=st.none() | st.builds(
        StepAnswer,
        action=st.sampled_from(["tap", "input_text", "press_back"]),
        target=st.none() | texts,
        value=st.none() | texts,
        intent=texts,
        expect=st.lists(st.builds(ExpectAnswer, check=st.sampled_from(["visible", "toast"]), target=st.none() | texts,
                                  value=st.none() | texts, negate=st.booleans()), max_size=3).map(tuple),
        high_risk=st.booleans(),
    ),
)


@given(answers)
def test_planner_answers_round_trip_through_the_cache(answer: PlannerAnswer) -> None:
    from fsm_runner.convert import converter

    cache = DecisionCache()
    text = json.dumps(converter.unstructure(answer))
    cache.put(CachedDecision("m", "step 0: g", "f", text))
    stored = cache.get("m", "step 0: g", "f")
    assert stored is not None and parse_answer(stored.decision, PlannerAnswer) == answer


def test_each_role_takes_only_its_own_view() -> None:
    assert typing.get_type_hints(LlmPlanner.plan)["view"] is PlannerView
    assert typing.get_type_hints(LlmLocator.locate)["view"] is LocatorView
    assert typing.get_type_hints(LlmValidator.validate)["view"] is ValidatorView
    planner_fields = attrs.fields_dict(PlannerView)
    assert all(f.type not in ("Screen", Screen) for f in planner_fields.values())
    assert "goal" not in attrs.fields_dict(LocatorView)
    assert not {"recent", "earlier", "goal"} & set(attrs.fields_dict(ValidatorView))


def test_prompts_for_demo_screens_stay_within_the_token_targets() -> None:
    from fsm_runner.llm.locator import locator_messages
    from fsm_runner.llm.planner import planner_messages
    from fsm_runner.llm.tokens import count_message_tokens
    from fsm_runner.perception import page_summary, render

    chosen = profiles()
    planner: list[int] = []
    locator: list[int] = []
    for name in ("login", "login_keyboard", "products", "detail", "cart", "settings", "logout_dialog"):
        where = screen(name)
        view = PlannerView(goal="Log in as alice and add the cheapest item to the cart", step_index=3,
                           page_summary=page_summary(where), screen_text=render(where, "planner"))
        planner.append(count_message_tokens([{"role": "system", "content": chosen["planner"].system_prompt},
                                             *planner_messages(view)]))
        locator.append(count_message_tokens([
            {"role": "system", "content": chosen["locator"].system_prompt},
            *locator_messages(LocatorView(target="the Log in button", screen=where)),
        ]))
        raw = count_message_tokens([{"role": "user", "content": (DATA / f"demo_en_{name}.xml").read_text()}])
        assert planner[-1] < raw and locator[-1] < raw
    assert max(planner) <= 1000
    assert statistics.median(locator) <= 600


def test_a_vision_locator_sends_the_screenshot_beside_the_text() -> None:
    png, where = sim_screenshot()
    location, requests = locate("the mystery widget", where, [{"element_id": None}],
                                screenshot=lambda: prepared_screenshot(png, where))
    assert isinstance(requests[0].messages[-1]["content"], str)

    async def scenario() -> list[object]:
        with ChatServer([{"element_id": None}]) as server:
            client = client_for(server)
            locator = LlmLocator(client, profiles(vision=True)["locator"],
                                 screenshot=lambda: prepared_screenshot(png, where))
            await locator.locate(LocatorView(target="the mystery widget", screen=where))
            await client.close()
        return server.requests[0].messages[-1]["content"]

    parts = asyncio.run(scenario())
    assert [p["type"] for p in parts] == ["text", "image_url"]  # type: ignore[index]
    assert not location.found


def test_a_replan_after_a_cached_step_failed_asks_the_model_and_replaces_the_entry() -> None:
    from structlog.testing import capture_logs

    view = PlannerView(goal="g", step_index=4, page_summary="p", screen_text="e1 button", fingerprint="f4")
    old = {"done": False, "step": {"action": "tap", "target": "Settings button", "intent": "open the settings"}}
    new = {"done": False, "step": {"action": "tap", "target": "Gear icon", "intent": "open the settings"}}
    cache = DecisionCache()
    cache.put(CachedDecision("m", "step 4: g", "f4", json.dumps(old)))

    async def scenario() -> tuple:
        with ChatServer([new]) as server, capture_logs() as events:
            client = client_for(server)
            planner = LlmPlanner(client, profiles()["planner"], machine="m", cache=cache)
            first = await planner.plan(view)
            again = await planner.plan(view)
            await client.close()
        return first, again, server.requests, events

    first, again, requests, events = asyncio.run(scenario())
    assert first.cache_hit and first.step.target == "Settings button"
    assert not again.cache_hit and again.step.target == "Gear icon" and len(requests) == 1
    assert "previous step here (open the settings) failed" in requests[0].text
    replaced = [e for e in events if e["event"] == "llm.cache_replaced"]
    assert len(replaced) == 1 and replaced[0]["old"]["target"] == "Settings button"
    assert replaced[0]["new"]["target"] == "Gear icon"
    stored = cache.get("m", "step 4: g", "f4")
    assert stored is not None and "Gear icon" in stored.decision
