"""Replay files: matching rules, recording a run's answers and replaying them offline, and the --llm schemes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from fsm_runner.config import CacheSettings, Config
from fsm_runner.errors import ConfigurationError
from fsm_runner.llm.planner import LlmPlanner
from fsm_runner.llm.replay import ReplayEntry, ReplayFile
from fsm_runner.llm.schemes import SCHEMES, register
from fsm_runner.records import Outcome
from fsm_runner.roles.base import PlanDecision, PlannerView
from fsm_runner.steps import Action
from fsm_runner.testing import ChatServer, replay_script, start_replay_server
from machines.goal import replay_path
from tests.llm.goal_kit import SECRETS, goal_machine, replay_of, run_goal


def test_an_entry_for_the_screen_wins_and_repeated_entries_are_served_in_order() -> None:
    replay = ReplayFile(
        [
            ReplayEntry("planner", "step 1", "generic"),
            ReplayEntry("planner", "step 1", "first", fingerprint="f1"),
            ReplayEntry("planner", "step 1", "second", fingerprint="f1"),
        ]
    )
    assert [replay.answer("planner", "step 1", "f1") for _ in range(3)] == ["first", "second", "second"]
    assert replay.answer("planner", "step 1", "other") == "generic"
    assert replay.answer("locator", "step 1", "f1") is None


def test_yaml_and_json_lines_files_load_alike(tmp_path: Path) -> None:
    from_yaml = ReplayFile.load(replay_path("dark_mode"))
    lines = tmp_path / "answers.jsonl"
    from_yaml.dump(lines)
    assert ReplayFile.load(lines).entries == from_yaml.entries
    assert json.loads(from_yaml.entries[0].answer)["step"]["action"] == "wait_for"


def test_a_broken_replay_file_names_the_entry(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("- {role: planner, key: step 0, answer: {done: true}}\n- {role: planner}\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="entry 2"):
        ReplayFile.load(bad)
    with pytest.raises(ConfigurationError, match="cannot read"):
        ReplayFile.load(tmp_path / "missing.yaml")


def test_a_recorded_run_replays_offline_and_its_files_hold_no_secret(tmp_path: Path) -> None:
    machine = goal_machine("mug_quantity")
    recording, prompts = tmp_path / "answers.jsonl", tmp_path / "prompts.jsonl"

    async def scenario() -> None:
        with ChatServer(replay_of("mug_quantity")) as server:
            live = await run_goal(machine, server, None,
                                  client_options={"record_to": recording, "prompt_log": prompts})
        assert live.outcome is Outcome.PASSED, live.reason
        with ChatServer(replay_script(ReplayFile.load(recording))) as server:
            replayed = await run_goal(machine, server, None)
        assert replayed.outcome is Outcome.PASSED, replayed.reason
        assert [s.intent for s in replayed.steps] == [s.intent for s in live.steps]
        assert all(r.fingerprint for r in server.requests)

    asyncio.run(scenario())
    logged = prompts.read_text(encoding="utf-8")
    assert "${secret:DEMO_SHOP_PASSWORD}" in logged and SECRETS["DEMO_SHOP_PASSWORD"] not in logged
    assert SECRETS["DEMO_SHOP_PASSWORD"] not in recording.read_text(encoding="utf-8")
    assert len(logged.splitlines()) == len(recording.read_text(encoding="utf-8").splitlines())


def test_replay_scheme_plans_from_a_replay_file() -> None:
    registry: dict[str, object] = {}
    register(registry)  # type: ignore[arg-type]
    assert set(registry) == {"replay", "profile", "env"}
    machine = goal_machine("dark_mode")
    planner = SCHEMES["replay"](str(replay_path("dark_mode")), machine, Config(cache=CacheSettings(enabled=False)))
    assert isinstance(planner, LlmPlanner)
    view = PlannerView(goal=machine.goal, step_index=0, page_summary="", screen_text="", fingerprint="f")

    async def plan_once() -> PlanDecision:
        try:
            return await planner.plan(view)
        finally:
            await planner.close()

    decision = asyncio.run(plan_once())
    assert decision.step is not None and decision.step.action is Action.WAIT_FOR and decision.usage.calls == 1


def test_profile_scheme_names_the_missing_profile_and_key_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    machine = goal_machine("dark_mode")
    with pytest.raises(ConfigurationError, match=r"'local' is not in fsm-runner\.toml"):
        SCHEMES["profile"]("local", machine, Config())
    monkeypatch.delenv("FSM_RUNNER_LLM_API_KEY", raising=False)
    monkeypatch.delenv("FSM_RUNNER_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigurationError, match="FSM_RUNNER_LLM_BASE_URL"):
        SCHEMES["env"]("", machine, Config())


def test_start_replay_server_serves_the_file_until_stopped() -> None:
    base_url, stop = start_replay_server(replay_path("dark_mode"))
    try:
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
    finally:
        stop()
