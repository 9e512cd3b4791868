"""Every class fsm-runner writes to disk survives a JSON round trip through the one converter."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fsm_runner import convert
from fsm_runner.budgets import Budgets
from fsm_runner.perception.screen import Bounds
from fsm_runner.records import HealRecord, Outcome, RunResult, StepRecord
from fsm_runner.roles.base import Candidate, Evidence, Layer, Usage
from fsm_runner.steps import TARGETED_ACTIONS, TARGETED_CHECKS, VALUE_ACTIONS, VALUE_CHECKS, Action, Check, Expect, Step
from fsm_runner.testing.strategies import budgets as budgets_for_disk

text = st.text(max_size=20)
layers = st.sampled_from(Layer)
usages = st.builds(Usage, *(st.integers(0, 10_000) for _ in range(4)))
bounds = st.builds(Bounds, *(st.integers(-100, 3000) for _ in range(4)))
candidates = st.builds(Candidate, text, bounds, st.floats(0, 1), text, text)
evidence = st.builds(Evidence, text, st.booleans(), text, st.one_of(st.none(), text))


@st.composite
def expects(draw: st.DrawFn) -> Expect:
    check = draw(st.sampled_from([c for c in Check if c not in (Check.PREDICATE, Check.PROSE)]))
    target = draw(st.text(min_size=1, max_size=20)) if check in TARGETED_CHECKS else draw(st.none() | text)
    value = draw(text) if check in VALUE_CHECKS else draw(st.none() | text)
    return Expect(check, target=target, value=value, negate=draw(st.booleans()))


@st.composite
def steps(draw: st.DrawFn) -> Step:
    action = draw(st.sampled_from([a for a in Action if a is not Action.RUN_MACHINE]))
    target = draw(st.text(min_size=1, max_size=20)) if action in TARGETED_ACTIONS else draw(st.none() | text)
    value = draw(text) if action in VALUE_ACTIONS else draw(st.none() | text)
    return Step(
        action,
        target=target,
        value=value,
        expect=draw(st.lists(expects(), max_size=3)),
        timeout_s=draw(st.floats(0.1, 600)),
        high_risk=draw(st.booleans()),
        intent=draw(text),
        remember=draw(st.lists(st.tuples(text, text), max_size=2)),
    )


heals = st.builds(HealRecord, text, text, layers, text, text, text)
records = st.builds(
    StepRecord,
    index=st.integers(0, 100),
    intent=text,
    step=steps(),
    candidates=st.lists(candidates, max_size=3).map(tuple),
    evidence=st.lists(evidence, max_size=3).map(tuple),
    heals=st.lists(heals, max_size=3).map(tuple),
    usage=usages,
    outcome=st.sampled_from(["passed", "failed", "skipped"]),
    children=st.lists(st.builds(StepRecord, index=st.integers(0, 5), intent=text, step=steps()), max_size=2).map(tuple),
)
results = st.builds(
    RunResult,
    run_id=text,
    machine=text,
    outcome=st.sampled_from(Outcome),
    reason=text,
    steps=st.lists(records, max_size=3).map(tuple),
    layer=st.none() | layers,
    usage=usages,
    path=st.lists(st.sampled_from(["IDLE", "INIT", "OBSERVE", "PASSED"]), max_size=5).map(tuple),
)

SETTINGS = settings(max_examples=60, deadline=None)


@SETTINGS
@given(value=results)
def test_run_results_round_trip(value: RunResult) -> None:
    assert convert.loads(convert.dumps(value), RunResult) == value


@SETTINGS
@given(value=records)
def test_step_records_round_trip(value: StepRecord) -> None:
    assert convert.loads(convert.dumps(value), StepRecord) == value


@SETTINGS
@given(value=steps())
def test_steps_round_trip(value: Step) -> None:
    assert convert.loads(convert.dumps(value), Step) == value


@SETTINGS
@given(value=budgets_for_disk())
def test_budgets_round_trip(value: Budgets) -> None:
    assert convert.loads(convert.dumps(value), Budgets) == value
