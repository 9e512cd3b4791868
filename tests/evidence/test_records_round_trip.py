"""Every record the run directory persists reads back equal: result.json and steps.jsonl, through real files."""

from __future__ import annotations

import tempfile
from pathlib import Path

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fsm_runner import convert
from fsm_runner.evidence import RunDirectory, load_run
from fsm_runner.perception.screen import Bounds
from fsm_runner.records import HealRecord, Outcome, RunResult, StepRecord
from fsm_runner.roles.base import Candidate, Evidence, Layer, Usage
from fsm_runner.steps import Expect, Step

_text = st.text(max_size=30)
_times = st.floats(min_value=0, max_value=1e6, allow_nan=False)
_counts = st.integers(0, 10_000)

_steps = st.sampled_from(
    (
        Step("press_back"),
        Step("tap", target="Log in", expect=[Expect("visible", target="Products")], timeout_s=3.5),
        Step("input_text", target="Password", value="${secret:PW}", intent="type the password"),
        Step("wait_for", expect=[Expect("text_contains", target="Total", value="€", negate=True)]),
        Step("run_machine", machine="login"),
    )
)
_usage = st.builds(Usage, _counts, _counts, _counts, _counts)
_bounds = st.builds(Bounds, _counts, _counts, _counts, _counts)
_heals = st.builds(HealRecord, _text, _text, st.sampled_from(Layer), _text, _text, _text)


def _records(children: st.SearchStrategy[tuple[StepRecord, ...]]) -> st.SearchStrategy[StepRecord]:
    return st.builds(
        StepRecord,
        index=st.integers(0, 60),
        intent=_text,
        step=_steps,
        action_id=_text,
        decided_by=st.sampled_from(("scripted", "llm", "cache")),
        cache_hit=st.booleans(),
        before_observation=st.one_of(st.none(), st.integers(1, 999)),
        candidates=st.lists(st.builds(Candidate, _text, _bounds, st.floats(0, 1), _text, _text), max_size=3).map(tuple),
        target_bounds=st.one_of(st.none(), _bounds.map(str)),
        verdict_reason=_text,
        evidence=st.lists(st.builds(Evidence, _text, st.booleans(), _text), max_size=3).map(tuple),
        heals=st.lists(_heals, max_size=3).map(tuple),
        usage=_usage,
        started_at=_times,
        ended_at=_times,
        outcome=st.sampled_from(("passed", "failed", "skipped", "error")),
        remembered=st.lists(st.tuples(_text, _text), max_size=2).map(tuple),
        children=children,
    )


_step_records = _records(st.lists(_records(st.just(())), max_size=2).map(tuple))
_results = st.builds(
    RunResult,
    run_id=st.text("0123456789abcdef", min_size=1, max_size=12),
    machine=st.sampled_from(("login", "checkout_zh_cn")),
    outcome=st.sampled_from(Outcome),
    reason=_text,
    steps=st.lists(_step_records, max_size=4).map(tuple),
    layer=st.one_of(st.none(), st.sampled_from(Layer)),
    budget=st.one_of(st.none(), _text),
    usage=_usage,
    wall_s=_times,
    path=st.lists(st.sampled_from(("IDLE", "INIT", "OBSERVE", "FAILED")), max_size=6).map(tuple),
    skipped=st.booleans(),
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_results)
def test_a_result_and_its_steps_read_back_equal_from_a_run_directory(result: RunResult) -> None:
    assert convert.loads(convert.dumps(result), RunResult) == result
    with tempfile.TemporaryDirectory() as tmp:
        directory = RunDirectory(Path(tmp) / f"{result.machine}-{result.run_id}", render=False)
        for record in result.steps:
            directory.step(record)
        assert load_run(directory.path).steps == result.steps, "steps.jsonl of a run that never finished"
        directory.finish(result)
        loaded = load_run(directory.path)
    assert loaded.result is not None
    assert loaded.result == attrs_with_run_dir(result, directory.path)


def attrs_with_run_dir(result: RunResult, path: Path) -> RunResult:
    return result if result.run_dir else attrs.evolve(result, run_dir=str(path))
