"""Properties of the engine over arbitrary role answers and budgets (hypothesis)."""

from __future__ import annotations

import pytest
from engine_kit import run_scripted
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from structlog.testing import capture_logs
from transitions import Machine as TransitionsMachine
from transitions import MachineError

from fsm_runner import table
from fsm_runner.records import Outcome
from fsm_runner.testing.strategies import budgets, role_answers

PROPERTY_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY_SETTINGS
@given(answers=role_answers(), limits=budgets())
def test_every_run_reaches_a_terminal_state_within_its_budgets(answers, limits) -> None:  # type: ignore[no-untyped-def]
    result = run_scripted(answers, limits)
    assert result.outcome in set(Outcome)
    assert result.path[-1] == result.outcome.value
    assert result.wall_s <= limits.max_wall_s
    assert len(result.steps) <= limits.max_steps
    if limits.max_llm_calls is not None:
        assert result.usage.calls <= limits.max_llm_calls + max(answers.llm_calls or (0,))
    for record in result.steps:
        assert len(record.heals) <= limits.max_heals_per_step
    for src, dst in zip(result.path, result.path[1:], strict=False):
        assert dst in table.allowed(src).values(), f"{src} -> {dst} is not in the table"


@PROPERTY_SETTINGS
@given(answers=role_answers(), limits=budgets())
def test_exactly_one_transition_event_per_transition(answers, limits) -> None:  # type: ignore[no-untyped-def]
    with capture_logs() as events:
        result = run_scripted(answers, limits)
    transitions = [e for e in events if e["event"] == "fsm.transition"]
    assert len(transitions) == result.transitions == len(result.path) - 1
    assert [(e["src"], e["dst"]) for e in transitions] == list(zip(result.path, result.path[1:], strict=False))


def _model_loops(observations: list[tuple[str, int]], window: int = 5, repeats: int = 3) -> list[bool]:
    """Independent model: for each observation, does it close a loop? (recount from scratch each time)"""
    verdicts = []
    for i in range(len(observations)):
        recent = observations[max(0, i - window + 1) : i + 1]
        verdicts.append(recent.count(observations[i]) >= repeats)
    return verdicts


@PROPERTY_SETTINGS
@given(answers=role_answers(), limits=budgets())
def test_the_loop_detector_fires_exactly_when_an_independent_model_says(answers, limits) -> None:  # type: ignore[no-untyped-def]
    with capture_logs() as events:
        run_scripted(answers, limits)
    # Rebuild the OBSERVE-state observations and the progress at each from the raw event stream.
    progress = 0
    seen: list[tuple[str, int]] = []
    fired: list[bool] = []
    state = "IDLE"
    pending_dump: str | None = None
    for event in events:
        name = event["event"]
        if name == "step.end" and event["outcome"] == "passed":
            progress += 1
        elif name == "device.dump":
            pending_dump = event["fingerprint"] if state == "OBSERVE" else None
        elif name == "fsm.loop_detected":
            fired[-1] = True
        elif name == "fsm.transition":
            state = event["dst"]
        if name == "device.dump" and pending_dump is not None:
            seen.append((pending_dump, progress))
            fired.append(False)
    assert fired == _model_loops(seen)


@PROPERTY_SETTINGS
@given(answers=role_answers(), limits=budgets(), trigger=st.sampled_from(table.TRIGGERS))
def test_terminal_states_absorb_every_trigger_by_raising(answers, limits, trigger) -> None:  # type: ignore[no-untyped-def]
    from fsm_runner.testing.harness import terminal_absorbs

    result = run_scripted(answers, limits)
    assert terminal_absorbs(result.outcome.value, trigger)


class TableAgreesWithModel(RuleBasedStateMachine):
    """The transitions machine built from the tables behaves like a plain dict model of them."""

    def __init__(self) -> None:
        super().__init__()

        class Model:
            state: str

        self.model = Model()
        TransitionsMachine(
            model=self.model,
            states=table.state_definitions(),
            transitions=table.transition_definitions(),
            initial=table.IDLE,
            auto_transitions=False,
            ignore_invalid_triggers=False,
        )
        self.expected = table.IDLE

    @rule(trigger=st.sampled_from(table.TRIGGERS))
    def fire(self, trigger: str) -> None:
        destinations = table.allowed(self.expected)
        if trigger in destinations:
            getattr(self.model, trigger)()
            self.expected = destinations[trigger]
        else:
            with pytest.raises(MachineError):
                getattr(self.model, trigger)()

    @precondition(lambda self: self.expected in table.TERMINAL_STATES)
    @rule()
    def terminal_has_no_way_out(self) -> None:
        assert table.allowed(self.expected) == {}

    @invariant()
    def same_state(self) -> None:
        assert self.model.state == self.expected


TestTableAgreesWithModel = TableAgreesWithModel.TestCase
TestTableAgreesWithModel.settings = settings(max_examples=80, stateful_step_count=40, deadline=None)
