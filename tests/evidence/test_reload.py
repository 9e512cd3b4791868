"""A run killed halfway, or with a damaged events.jsonl, still loads and renders a report saying where it stops."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fsm_runner import Outcome, RunResult
from fsm_runner.errors import ConfigurationError
from fsm_runner.evidence import RunDirectory, load_run, render_report
from tests.evidence.sim_runs import WITH_SUB_MACHINE, run_on_sim

RunPair = tuple[RunResult, RunDirectory]


def _killed_copy(source: Path, target: Path, keep_events: int, cut: int) -> Path:
    """A copy of a run directory as a kill would leave it: no result, no report, a half-written event."""
    shutil.copytree(source, target)
    for name in ("result.json", "report.html", "junit.xml"):
        (target / name).unlink()
    lines = (source / "events.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    kept = "".join(lines[:keep_events]) + "this is not json\n" + lines[keep_events][:cut]
    (target / "events.jsonl").write_text(kept, encoding="utf-8")
    return target


def test_complete_run_loads_with_its_recorded_result(failing_run: RunPair) -> None:
    result, directory = failing_run
    run = load_run(directory.path)
    assert run.complete and not run.problems
    assert run.result_or_partial().reason == result.reason
    assert run.stopped_at() == ""


def test_partial_events_render_a_report_that_says_where_it_stops(failing_run: RunPair, tmp_path: Path) -> None:
    _, directory = failing_run
    events = (directory.path / "events.jsonl").read_text(encoding="utf-8").splitlines()
    keep = len(events) // 2
    path = _killed_copy(directory.path, tmp_path / directory.path.name, keep, cut=25)
    run = load_run(path)
    assert not run.complete
    assert run.problems == (
        f"events.jsonl line {keep + 1} is not JSON",
        f"events.jsonl line {keep + 2} is not JSON (cut off mid-write)",
    )
    assert len(run.events) == keep
    where = run.stopped_at()
    assert where.startswith(f"the record stops after event {keep} (")
    partial = run.result_or_partial()
    assert partial.outcome is Outcome.ERROR
    assert where in partial.reason
    html = render_report(run)
    assert "Incomplete record:" in html
    assert where.replace("'", "&#x27;") in html
    assert "events.jsonl line" in html


def test_steps_finished_before_the_kill_are_in_the_partial_report(failing_run: RunPair, tmp_path: Path) -> None:
    result, directory = failing_run
    events = (directory.path / "events.jsonl").read_text(encoding="utf-8").splitlines()
    path = _killed_copy(directory.path, tmp_path / "killed", len(events) - 2, cut=10)
    run = load_run(path)
    assert [s.intent for s in run.steps] == [s.intent for s in result.steps]
    assert 'id="step-1"' in render_report(run)


def test_events_with_broken_bytes_and_a_missing_result_still_load(tmp_path: Path) -> None:
    start = b'{"event": "run.start", "machine": "m", "run_id": "r1", "ts": 1.0}\n'
    (tmp_path / "events.jsonl").write_bytes(start + b"\xff\xfe\n[1, 2]\n")
    run = load_run(tmp_path)
    assert run.machine == "m" and run.run_id == "r1"
    assert run.problems == ("events.jsonl line 2 is not JSON", "events.jsonl line 3 is not a JSON object")
    assert "run.start" in run.stopped_at()
    assert "Incomplete record:" in render_report(run)


def test_unreadable_result_json_falls_back_to_the_events(failing_run: RunPair, tmp_path: Path) -> None:
    _, directory = failing_run
    path = tmp_path / "broken"
    shutil.copytree(directory.path, path)
    (path / "result.json").write_text('{"run_id": 12', encoding="utf-8")
    run = load_run(path)
    assert not run.complete
    assert any("result.json could not be read" in p for p in run.problems)
    assert run.result_or_partial().path[-1] == "FAILED"


def test_a_folder_that_is_not_a_run_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"events\.jsonl"):
        load_run(tmp_path)


def test_sub_machine_events_do_not_mix_into_the_parent_run(tmp_path: Path) -> None:
    result, directory = run_on_sim(WITH_SUB_MACHINE, tmp_path / "runs")
    assert result.passed, result.reason
    run = load_run(directory.path)
    run_ids = {e.get("run_id") for e in run.events}
    assert run_ids == {result.run_id, f"{result.run_id}.open-login"}
    assert {e.get("run_id") for e in run.own_events()} == {result.run_id}
    (directory.path / "result.json").unlink()
    assert load_run(directory.path).path_taken() == result.path
    html = (directory.path / "report.html").read_text(encoding="utf-8")
    step_one = html[html.index('id="step-1"'): html.index('id="step-2"')]
    assert step_one.count("<tr><td>planner</td>") == 1
    assert "Sub-machine steps" in step_one and "wait_for — passed" in step_one
