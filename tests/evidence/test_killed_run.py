"""A real ``fsm-runner run`` killed with SIGKILL halfway still gets a report saying where it stops."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from fsm_runner.evidence import load_run
from tests.evidence.machine_files import NEVER_DONE, write


def _wait_for_second_step(runs: Path, deadline: float) -> Path:
    while time.monotonic() < deadline:
        for events in runs.glob("never-done-*/events.jsonl"):
            lines = events.read_text(encoding="utf-8").splitlines()
            started = [json.loads(x) for x in lines if '"step.start"' in x]
            if any(e.get("step") == 1 for e in started):
                return events.parent
        time.sleep(0.05)
    raise AssertionError("the run never reached its second step")


def test_report_of_a_run_killed_halfway_says_where_it_stops(tmp_path: Path) -> None:
    machine = write(tmp_path / "m", never=NEVER_DONE) / "never.py"
    runs = tmp_path / "runs"
    process = subprocess.Popen(
        [sys.executable, "-m", "fsm_runner", "run", str(machine), "--out", str(runs)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        run_dir = _wait_for_second_step(runs, time.monotonic() + 60)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    assert not (run_dir / "result.json").exists()
    loaded = load_run(run_dir)
    assert not loaded.complete
    assert [s.intent for s in loaded.steps] == ["wait_for"]
    assert "during step 2 (wait_for)" in loaded.stopped_at()
    done = subprocess.run(
        [sys.executable, "-m", "fsm_runner", "report", str(run_dir)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "incomplete run: the record stops after event" in done.stderr
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "Incomplete record:" in html and "during step 2 (wait_for)" in html
    assert 'id="step-1"' in html
