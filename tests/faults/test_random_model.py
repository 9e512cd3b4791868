"""A real llama.cpp server with random weights plays the model: its answers are well-formed noise, and the
goal machines driven by it never pass falsely and always end within their budgets."""

from __future__ import annotations

import asyncio
import importlib
import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from adapters.sim import SimDevice, SimPhone
from fsm_runner import Machine, Outcome, RunResult, arun
from fsm_runner.budgets import Budgets
from fsm_runner.llm.client import LlmClient, RetryPolicy
from fsm_runner.llm.profiles import Endpoint, default_profiles
from fsm_runner.llm.roles import llm_roles
from fsm_runner.testing.random_model import N_VOCAB, RandomModelServer, write_random_model
from machines.goal import GOAL_MACHINES
from tests.faults.matrix import shop_problem
from tests.llm.goal_kit import SkipClock

pytest.importorskip("gguf")
pytest.importorskip("xllamacpp")

#: Real seconds one run against the random model may take (each call is ~0.1-3 s on 2 cores).
RUN_BOUND_S = 240.0


@pytest.fixture(scope="module")
def model_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_random_model(tmp_path_factory.mktemp("model") / "random.gguf", seed=7)


@pytest.fixture(scope="module")
def random_server(model_file: Path) -> Iterator[RandomModelServer]:
    with RandomModelServer(model_file, seed=7) as server:
        yield server


def chat(server: RandomModelServer, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{server.base_url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        reply: dict[str, Any] = json.load(answer)
    return reply


def test_the_random_model_is_a_small_byte_level_chatml_llama(model_file: Path) -> None:
    gguf = importlib.import_module("gguf")
    reader = gguf.GGUFReader(str(model_file))

    def value(key: str) -> Any:
        return reader.fields[key].contents()

    assert model_file.stat().st_size < 1_000_000
    assert value("general.architecture") == "llama"
    assert value("tokenizer.ggml.add_space_prefix") is False
    assert "<|im_start|>" in value("tokenizer.chat_template")
    tokens = value("tokenizer.ggml.tokens")
    assert len(tokens) == N_VOCAB and "<0x41>" in tokens and "<|im_end|>" in tokens
    assert write_random_model(model_file.with_name("again.gguf"), seed=7).read_bytes() == model_file.read_bytes()


def test_random_answers_are_printable_ascii_and_follow_the_requested_json_schema(
    random_server: RandomModelServer,
) -> None:
    free = chat(random_server, {"messages": [{"role": "user", "content": "hello"}], "max_tokens": 64, "seed": 1})
    text = free["choices"][0]["message"]["content"]
    assert text and all(" " <= ch <= "~" for ch in text), text
    schema = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["tap", "press_back"]},
            "target": {"type": "string", "maxLength": 24},
        },
        "required": ["action", "target"],
    }
    for seed in range(3):
        reply = chat(random_server, {
            "messages": [{"role": "user", "content": "plan one step"}], "max_tokens": 200, "seed": seed,
            "response_format": {"type": "json_schema", "json_schema": {"name": "step", "schema": schema}},
        })
        assert reply["choices"][0]["finish_reason"] == "stop"
        answer = json.loads(reply["choices"][0]["message"]["content"])
        assert answer["action"] in ("tap", "press_back") and isinstance(answer["target"], str)


def goal(name: str) -> Machine:
    machine: Machine = importlib.import_module(f"machines.goal.{name}").MACHINE
    return machine


def run_against(server: RandomModelServer, machine: Machine) -> tuple[RunResult, SimPhone, float]:
    clock = SkipClock()
    phone = SimPhone(now=clock.now)

    async def scenario() -> RunResult:
        retry = RetryPolicy(max_attempts=2, max_wait_s=5.0)
        client = LlmClient(Endpoint(server.base_url, "no-key", "random"), clock=clock, retry=retry)
        try:
            profiles = default_profiles("random", json_schema=True, timeout_s=60.0)
            roles = llm_roles(machine, client, None, profiles=profiles, clock=clock)
            device = SimDevice(phone, sleep=clock.sleep, now=clock.now)
            return await asyncio.wait_for(arun(machine, device, roles=roles, clock=clock), RUN_BOUND_S)
        finally:
            await client.close()

    started = time.perf_counter()
    result = asyncio.run(scenario())
    return result, phone, time.perf_counter() - started


def assert_honest_and_in_budget(result: RunResult, phone: SimPhone, machine: Machine) -> None:
    problem = shop_problem(machine.name, phone.shop)
    assert not (result.passed and problem), f"passed with the shop wrong: {problem}"
    assert result.outcome in (Outcome.FAILED, Outcome.ABORTED, Outcome.ERROR, Outcome.PASSED)
    if not result.passed:
        assert result.layer is not None or result.budget is not None, result.reason
    budgets = machine.budgets
    assert budgets.max_llm_calls is not None
    # One call may be in flight when the budget is found spent.
    assert result.usage.calls <= budgets.max_llm_calls + 1
    assert len([s for s in result.steps if s.outcome != "pending"]) <= budgets.max_steps
    assert phone.shop.account_deleted is False and not phone.shop.orders


def test_a_goal_machine_driven_by_the_random_model_ends_unpassed_within_a_tight_budget(
    random_server: RandomModelServer,
) -> None:
    machine = attrs.evolve(goal("dark_mode"), budgets=Budgets(max_steps=8, max_llm_calls=5, max_tokens=200_000))
    result, phone, real_s = run_against(random_server, machine)
    assert_honest_and_in_budget(result, phone, machine)
    assert result.outcome is not Outcome.PASSED, result.reason
    assert result.usage.calls >= 1
    assert real_s < RUN_BOUND_S


@pytest.mark.parametrize("name", GOAL_MACHINES)
def test_every_goal_machine_driven_by_the_random_model_never_passes_falsely_and_ends_in_budget(
    random_server: RandomModelServer, name: str
) -> None:
    machine = goal(name)
    result, phone, real_s = run_against(random_server, machine)
    assert_honest_and_in_budget(result, phone, machine)
    assert real_s < RUN_BOUND_S


@pytest.mark.slow
@pytest.mark.parametrize("weights", range(1, 6))
def test_random_models_with_other_weights_never_pass_a_goal_machine_falsely(tmp_path: Path, weights: int) -> None:
    model = write_random_model(tmp_path / f"random{weights}.gguf", seed=weights)
    with RandomModelServer(model, seed=weights) as server:
        for name in GOAL_MACHINES:
            machine = goal(name)
            result, phone, real_s = run_against(server, machine)
            assert_honest_and_in_budget(result, phone, machine)
            assert real_s < RUN_BOUND_S
