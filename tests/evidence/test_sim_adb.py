"""``--device sim-adb``: a machine run through a real adb server to a simulated phone, and nothing left behind."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

from fsm_runner import convert
from fsm_runner.cli import EXIT_OK, main
from fsm_runner.records import RunResult
from tests.evidence.machine_files import LOGIN_PAGE, write

pytestmark = pytest.mark.adb


@pytest.fixture(autouse=True)
def _restore_structlog() -> Iterator[None]:
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


def _private_homes() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob("fsm-runner-adb-*"))


def test_a_machine_runs_through_the_real_adb_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _private_homes()
    machine = write(tmp_path / "m", login=LOGIN_PAGE) / "login.py"
    code = main(["run", str(machine), "--device", "sim-adb", "--out", str(tmp_path / "runs")])
    out = capsys.readouterr().out
    assert code == EXIT_OK, out
    (report,) = re.findall(r"report: (\S+)", out)
    result = convert.loads((Path(report).parent / "result.json").read_text(encoding="utf-8"), RunResult)
    assert result.passed
    assert re.fullmatch(r"127\.0\.0\.1:\d+", result.device), "the serial is the emulated daemon's address"
    assert len(list((Path(report).parent / "shots").glob("*.png"))) == result.observations
    assert _private_homes() == before, "the private adb server's HOME is removed when the device closes"
