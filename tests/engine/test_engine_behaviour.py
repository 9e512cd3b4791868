"""The engine's behaviour on the paths a tester meets: pass, loops, role failures, bad definitions."""

from __future__ import annotations

import asyncio

import pytest
from engine_kit import RunFn
from structlog.testing import capture_logs

from fsm_runner.clock import FakeClock
from fsm_runner.engine import Engine
from fsm_runner.errors import DefinitionError
from fsm_runner.loop_detector import LoopDetector
from fsm_runner.machine import Machine
from fsm_runner.records import Outcome
from fsm_runner.roles.base import Layer
from fsm_runner.steps import Expect, Step
from fsm_runner.testing.device import MemoryDevice
from fsm_runner.testing.roles import RoleAnswers, ScriptedRoles


def test_a_scripted_run_passes_through_every_backbone_state(run: RunFn) -> None:
    result = run(RoleAnswers(screens=("a", "b", "c", "d"), plans=("step", "step", "done")))
    assert result.outcome is Outcome.PASSED
    assert result.path[:8] == ("IDLE", "INIT", "OBSERVE", "PLAN", "EXECUTE", "VERIFY", "NEXT_OR_END", "OBSERVE")
    assert [r.outcome for r in result.steps] == ["passed", "passed"]
    assert all(r.action_id for r in result.steps)
    assert len({r.action_id for r in result.steps}) == 2


def test_the_same_screen_coming_back_without_progress_is_a_loop_that_heals_then_fails(run: RunFn) -> None:
    with capture_logs() as events:
        result = run(RoleAnswers(screens=("same",), executions=("fail",)))
    assert any(e["event"] == "fsm.loop_detected" for e in events)
    assert result.outcome is Outcome.FAILED
    assert "loop" in result.reason


def test_a_scrolling_list_changes_the_fingerprint_and_is_not_a_loop() -> None:
    detector = LoopDetector(window=5, repeats=3)
    verdicts = [detector.observe(f"list-page-{i}", progress=0) for i in range(20)]
    assert not any(v.looping for v in verdicts)
    again = [detector.observe("list-page-19", progress=0) for _ in range(2)]
    assert again[-1].looping


def test_progress_resets_what_counts_as_the_same_screen() -> None:
    detector = LoopDetector(window=5, repeats=3)
    assert not detector.observe("home", 0).looping
    assert not detector.observe("home", 0).looping
    assert not detector.observe("home", 1).looping
    assert detector.observe("home", 0).looping


@pytest.mark.parametrize(
    ("answers", "state", "layer"),
    [
        (RoleAnswers(plans=("raise",)), "PLAN", Layer.DECISION),
        (RoleAnswers(locations=(None,)), "EXECUTE", Layer.EXECUTION),
        (RoleAnswers(executions=("raise",)), "EXECUTE", Layer.EXECUTION),
        (RoleAnswers(verdicts=("raise",)), "VERIFY", Layer.VERDICT),
    ],
)
def test_a_role_that_raises_is_recorded_as_its_failure_and_the_run_goes_on_to_heal(
    run: RunFn, answers: RoleAnswers, state: str, layer: Layer
) -> None:
    with capture_logs() as events:
        result = run(answers)
    failed = [e for e in events if e["event"] == "role.failed"]
    assert failed and failed[0]["state"] == state
    assert "HEAL" in result.path
    assert result.outcome is Outcome.FAILED
    assert result.failed_state == state
    assert result.layer is layer
    assert "ScriptedFault" in result.reason


def test_a_healer_that_raises_ends_the_run_in_error_not_in_a_crash(run: RunFn) -> None:
    result = run(RoleAnswers(heals=("raise",), verdicts=("fail",)))
    assert result.outcome is Outcome.ERROR
    assert "healer raised ScriptedFault" in result.reason


def test_a_missing_app_is_an_environment_error_found_in_init() -> None:
    async def go() -> Outcome:
        clock = FakeClock()
        machine = Machine("m", "com.example.app", steps=[Step("press_back")])
        roles = ScriptedRoles(RoleAnswers(), clock).roles()
        result = await Engine(machine, MemoryDevice(installed=False), roles, clock=clock).run()
        assert result.layer is Layer.ENVIRONMENT and result.failed_state == "INIT"
        return result.outcome

    assert asyncio.run(go()) is Outcome.ERROR


def test_a_planned_high_risk_step_is_refused_when_the_machine_does_not_allow_it(run: RunFn) -> None:
    result = run(RoleAnswers(plans=("high_risk",)))
    assert result.outcome is Outcome.FAILED
    assert "high_risk_refused" in result.reason
    assert result.layer is Layer.DECISION
    assert "EXECUTE" not in result.path


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: Machine("m", "", steps=[Step("press_back")]), "machine.app"),
        (lambda: Machine("m", "com.x"), "machine.steps"),
        (lambda: Machine("m", "com.x", steps=[Step("tap", target="Pay", high_risk=True)]), "steps[0].high_risk"),
        (lambda: Machine("m", "com.x", steps=[Step("run_machine", machine="login")]), "steps[0].machine"),
        (lambda: Step("tap"), "step.target"),
        (lambda: Step("teleport"), "step.action"),
        (lambda: Expect("looks_nice"), "expect.check"),
        (lambda: Step("press_back", timeout_s=0), "step.timeout_s"),
        (lambda: Expect("text_equals", target="Total"), "expect.value"),
        (
            lambda: Machine("m", "com.x", steps=[Step("press_back", expect=[Expect("predicate", predicate="nope")])]),
            "steps[0].expect.predicate",
        ),
    ],
)
def test_invalid_definitions_fail_at_construction_naming_the_field(build, field) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises((DefinitionError, ValueError)) as caught:
        build()
    if field is not None:
        assert isinstance(caught.value, DefinitionError)
        assert caught.value.field == field
        assert caught.value.fix


def test_a_run_without_a_device_is_refused_before_it_starts() -> None:
    clock = FakeClock()
    machine = Machine("m", "com.x", steps=[Step("press_back")])
    with pytest.raises(DefinitionError, match="device"):
        Engine(machine, None, ScriptedRoles(RoleAnswers(), clock).roles(), clock=clock)  # type: ignore[arg-type]
