"""Events routed to the run's events.jsonl with secrets redacted, and the progress line on a terminal or a log."""

from __future__ import annotations

import io
import json
from pathlib import Path

import structlog

from fsm_runner import events
from fsm_runner.progress import Progress
from fsm_runner.roles import Secrets
from tests.evidence.sim_runs import run_files


def test_an_event_holding_a_secret_is_written_redacted(tmp_path: Path) -> None:
    seen: list[dict[str, object]] = []
    saved = structlog.get_config()
    events.configure(listeners=[lambda e: seen.append(dict(e))], redact=Secrets({"PW": "s3cr3t!"}, environ={}).redact)
    try:
        with structlog.contextvars.bound_contextvars(run_dir=str(tmp_path), run_id="r1"):
            events.emit("device.action", detail="typed s3cr3t! into the field")
    finally:
        events.RUN_FILES.close()
        structlog.configure(**saved)
    (line,) = (tmp_path / "events.jsonl").read_text(encoding="utf-8").splitlines()
    written = json.loads(line)
    assert written["detail"] == "typed ${secret:PW} into the field"
    assert written["run_id"] == "r1" and "run_dir" not in written
    assert seen and seen[0]["event"] == "device.action"


def test_run_files_restores_the_suite_configuration() -> None:
    before = structlog.get_config()["processors"]
    with run_files():
        assert structlog.get_config()["processors"] != before
    assert structlog.get_config()["processors"] == before


_RUN = [
    {"event": "run.start", "machine": "m", "device": "sim-0"},
    {"event": "fsm.transition", "machine": "m", "dst": "PLAN"},
    {"event": "step.start", "machine": "m", "step": 0, "intent": "tap 'Log in'", "action": "tap"},
    {"event": "fsm.transition", "machine": "m", "dst": "EXECUTE"},
    {"event": "step.end", "machine": "m", "step": 0, "outcome": "passed", "heals": 1},
    {"event": "run.end", "machine": "m", "outcome": "PASSED", "steps": 1},
]


def test_progress_prints_plain_lines_when_not_on_a_terminal() -> None:
    stream = io.StringIO()
    progress = Progress(stream)
    for event in _RUN:
        progress(event)
    assert stream.getvalue().splitlines() == [
        "m: starting on sim-0",
        "m: step 1 tap 'Log in' -> passed after 1 heal",
        "m: PASSED (1 steps)",
    ]


def test_progress_redraws_one_line_in_place_on_a_terminal() -> None:
    stream = io.StringIO()
    progress = Progress(stream, live=True, width=40)
    for event in _RUN:
        progress(event)
    text = stream.getvalue()
    assert "\r\x1b[Km: step 1 [EXECUTE] tap 'Log in'" in text
    assert text.count("\n") == 1 and text.endswith("\r\x1b[Km: PASSED (1 steps)\n")
    assert all(len(chunk) <= 40 for chunk in text.replace("\n", "").split("\r\x1b[K"))
