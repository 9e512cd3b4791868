"""The goal-only machines, driven by the LLM roles against the scripted model on loopback, under device faults
and a misbehaving model: never a false pass, never a hang, and an offline device is an environment ERROR."""

from __future__ import annotations

import asyncio

import pytest

from fsm_runner import Outcome
from fsm_runner.roles.base import Layer
from machines.goal import GOAL_MACHINES
from tests.faults.matrix import MISBEHAVIOURS, SCENARIO_BY_NAME, SCENARIOS, CaseResult, Scenario, run_goal_case
from tests.faults.test_fault_matrix import assert_trustworthy

FAST_SCENARIOS = ("clean", "slow_load", "lost_ack", "dump_error", "offline")


def run(name: str, scenario: str, seed: int, misbehaviour: str = "none") -> CaseResult:
    return asyncio.run(run_goal_case(name, SCENARIO_BY_NAME[scenario], seed, misbehaviour))


@pytest.mark.parametrize("scenario", FAST_SCENARIOS)
@pytest.mark.parametrize("name", GOAL_MACHINES)
def test_goal_machines_under_device_faults_never_pass_falsely_or_hang(name: str, scenario: str) -> None:
    case = run(name, scenario, seed=1)
    assert_trustworthy(case)
    assert case.llm_calls >= 1
    if scenario in ("clean", "slow_load"):
        assert case.passed, case.reason
    if scenario == "offline":
        assert case.outcome is Outcome.ERROR and case.layer is Layer.ENVIRONMENT, case.reason


@pytest.mark.parametrize("misbehaviour", [m for m in MISBEHAVIOURS if m != "none"])
def test_a_misbehaving_model_never_makes_a_goal_machine_pass_falsely(misbehaviour: str) -> None:
    case = run("dark_mode", "clean", seed=2, misbehaviour=misbehaviour)
    assert_trustworthy(case)
    if misbehaviour == "hallucinated":
        assert case.outcome is Outcome.FAILED and case.layer is Layer.DECISION, case.reason
        assert "not on the screen" in case.reason or "ezzzzzz" in case.reason


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_the_full_llm_matrix_never_passes_falsely_or_hangs(scenario: Scenario) -> None:
    for name in GOAL_MACHINES:
        for seed in (1, 2, 3):
            for misbehaviour in ("none", "mixed"):
                assert_trustworthy(asyncio.run(run_goal_case(name, scenario, seed, misbehaviour)))
