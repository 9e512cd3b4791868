"""A run on the simulated device leaves a complete run directory, with no secret in it."""

from __future__ import annotations

import json

from fsm_runner import Outcome, RunResult, convert
from fsm_runner.evidence import RunDirectory, run_dir_name
from tests.evidence.sim_runs import PASSWORD, USERNAME_SECRET

RunPair = tuple[RunResult, RunDirectory]


def test_a_sim_run_writes_every_file_of_the_run_directory(passing_run: RunPair) -> None:
    result, directory = passing_run
    root = directory.path
    assert result.outcome is Outcome.PASSED
    assert root.name == f"shop-login-page-{result.run_id}"
    for name in ("events.jsonl", "steps.jsonl", "result.json", "report.html", "junit.xml"):
        assert (root / name).is_file(), name
    screens = sorted(p.name for p in (root / "screens").iterdir())
    shots = sorted(p.name for p in (root / "shots").iterdir())
    assert screens == [f"{i:04d}.xml" for i in range(1, result.observations + 1)]
    assert shots == [f"{i:04d}.png" for i in range(1, result.observations + 1)]
    assert all((root / "shots" / name).read_bytes().startswith(b"\x89PNG") for name in shots)
    assert "<hierarchy" in (root / "screens" / screens[0]).read_text(encoding="utf-8")


def test_events_jsonl_holds_the_whole_run_one_object_a_line(passing_run: RunPair) -> None:
    result, directory = passing_run
    lines = (directory.path / "events.jsonl").read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines]
    names = [e["event"] for e in events]
    assert names[0] == "run.start"
    assert names[-1] == "run.end"
    assert {e["run_id"] for e in events} == {result.run_id}
    assert sum(1 for n in names if n == "fsm.transition") == result.transitions


def test_result_json_reads_back_equal_to_the_returned_result(passing_run: RunPair) -> None:
    result, directory = passing_run
    stored = convert.loads((directory.path / "result.json").read_text(encoding="utf-8"), RunResult)
    assert stored.run_dir == str(directory.path)
    assert stored.steps == result.steps
    assert (stored.outcome, stored.reason, stored.path) == (result.outcome, result.reason, result.path)


def test_secret_values_appear_in_no_file_of_the_run_directory(passing_run: RunPair) -> None:
    _, directory = passing_run
    typed = (directory.path / "screens").iterdir()
    # The secret was typed into a plain field, so the raw dumps did hold it before redaction.
    assert any("${secret:USER}" in p.read_text(encoding="utf-8") for p in typed)
    for path in directory.path.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert USERNAME_SECRET.encode() not in data, path
            assert PASSWORD.encode() not in data, path


def test_run_directory_names_are_safe_file_names() -> None:
    assert run_dir_name("shop/login page", "abc123") == "shop_login_page-abc123"
