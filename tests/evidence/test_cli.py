"""The ``run``, ``report``, ``graph`` and ``doctor`` commands, in process, against the simulated phone."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

from fsm_runner import RunResult
from fsm_runner.cli import EXIT_ENVIRONMENT, EXIT_OK, EXIT_TEST_FAILED, EXIT_USAGE, main
from fsm_runner.evidence import RunDirectory
from tests.evidence.machine_files import CHINESE_LOGIN_PAGE, EMPTY_LOGIN, GOAL_ONLY, LOGIN_PAGE, SYNTAX_ERROR, write

RunPair = tuple[RunResult, RunDirectory]


@pytest.fixture(autouse=True)
def _restore_structlog() -> Iterator[None]:
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


def _reports(text: str) -> list[Path]:
    return [Path(p) for p in re.findall(r"report: (\S+report\.html)", text)]


def test_a_file_with_a_syntax_error_is_shown_with_its_line_and_the_others_still_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write(tmp_path / "machines", a_login=LOGIN_PAGE, b_broken=SYNTAX_ERROR, c_goal=GOAL_ONLY)
    junit = tmp_path / "all.xml"
    code = main(["run", str(folder), "--out", str(tmp_path / "runs"), "--junit", str(junit)])
    out, err = capsys.readouterr()
    assert code == EXIT_USAGE
    assert f"{folder / 'b_broken.py'}:5: SyntaxError" in err
    assert re.search(r"^PASSED\s+login-page", out, re.M)
    assert re.search(r"^SKIPPED\s+buy-milk: .*--llm replay:FILE", out, re.M)
    reports = _reports(out)
    assert len(reports) == 1 and reports[0].is_file()
    assert reports[0].parent.parent == tmp_path / "runs"
    names = [case.get("name") for case in ET.parse(junit).getroot().iter("testcase")]
    assert names == ["login-page", "buy-milk"]


def test_a_failing_machine_exits_1_and_prints_its_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    machine = write(tmp_path / "m", empty=EMPTY_LOGIN) / "empty.py"
    code = main(["run", str(machine), "--out", str(tmp_path / "runs")])
    out, _ = capsys.readouterr()
    assert code == EXIT_TEST_FAILED
    assert re.search(r"^FAILED\s+empty-login \[\w+\]: VERIFY failed", out, re.M)
    (report,) = _reports(out)
    assert "FAILED — empty-login" in report.read_text(encoding="utf-8")
    assert "empty-login: step 2 tap 'Log in' -> failed" in out, "plain progress lines when not on a terminal"


def test_budget_flags_override_the_machine_budget(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    machine = write(tmp_path / "m", empty=EMPTY_LOGIN) / "empty.py"
    code = main(["run", str(machine), "--out", str(tmp_path / "runs"), "--budget-steps", "1"])
    out, _ = capsys.readouterr()
    assert code == EXIT_TEST_FAILED
    assert re.search(r"^ABORTED\s+empty-login: .*max_steps", out, re.M)


def test_a_bad_config_key_is_named_and_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "fsm-runner.toml"
    config.write_text("[budgets]\nmax_stepz = 3\n", encoding="utf-8")
    machine = write(tmp_path / "m", login=LOGIN_PAGE) / "login.py"
    code = main(["run", str(machine), "--config", str(config), "--out", str(tmp_path / "runs")])
    _, err = capsys.readouterr()
    assert code == EXIT_USAGE
    assert "budgets.max_stepz is not a known key" in err
    assert not (tmp_path / "runs").exists()


def test_no_machine_at_all_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(tmp_path / "missing.py")]) == EXIT_USAGE
    assert "missing.py: does not exist" in capsys.readouterr().err


def test_report_command_renders_a_killed_run(
    failing_run: RunPair, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, directory = failing_run
    killed = tmp_path / directory.path.name
    shutil.copytree(directory.path, killed)
    for name in ("result.json", "report.html", "junit.xml"):
        (killed / name).unlink()
    events = (killed / "events.jsonl").read_text(encoding="utf-8")
    (killed / "events.jsonl").write_text(events[: len(events) // 2], encoding="utf-8")
    assert main(["report", str(killed)]) == EXIT_OK
    out, err = capsys.readouterr()
    assert "incomplete run: the record stops after event" in err
    assert out.startswith("ERROR shop-login-empty: the run did not finish")
    assert "Incomplete record:" in (killed / "report.html").read_text(encoding="utf-8")
    assert (killed / "junit.xml").is_file()


def test_report_command_refuses_a_folder_that_is_not_a_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path)]) == EXIT_USAGE
    assert "holds none of events.jsonl" in capsys.readouterr().err


def test_graph_prints_mermaid_with_the_path_of_a_run(failing_run: RunPair, capsys: pytest.CaptureFixture[str]) -> None:
    result, directory = failing_run
    assert main(["graph", str(directory.path)]) == EXIT_OK
    out = capsys.readouterr().out
    assert "stateDiagram-v2" in out
    (taken,) = re.findall(r"^\s*class (\S+) taken$", out, re.M)
    assert set(taken.split(",")) == set(result.path)


def test_graph_lists_a_machine_files_steps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    machine = write(tmp_path, empty=EMPTY_LOGIN) / "empty.py"
    assert main(["graph", str(machine)]) == EXIT_OK
    out = capsys.readouterr().out
    assert "%% machine empty-login (com.example.demoshop)" in out
    assert "%%   2. tap 'Log in'" in out


def test_doctor_without_an_adb_server_warns_for_sim_and_fails_for_a_serial(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], unused_port: int
) -> None:
    server = f"127.0.0.1:{unused_port}"
    assert main(["doctor", "--adb-server", server, "--config", str(_config(tmp_path, "sim"))]) == EXIT_OK
    assert re.search(rf"^warn\s+adb server: not reachable at {server}", capsys.readouterr().out, re.M)
    assert main(["doctor", "--adb-server", server, "--config", str(_config(tmp_path, "emulator-5554"))]) == (
        EXIT_ENVIRONMENT
    )
    assert re.search(r"^FAIL\s+adb server", capsys.readouterr().out, re.M)


def _config(folder: Path, device: str) -> Path:
    path = folder / f"{device}.toml"
    path.write_text(f'[device]\ndefault = "{device}"\n[cache]\npath = "{folder}/cache/d.sqlite"\n', encoding="utf-8")
    return path


@pytest.fixture
def unused_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_an_unreachable_adb_server_is_an_environment_error_with_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], unused_port: int
) -> None:
    machine = write(tmp_path / "m", login=LOGIN_PAGE) / "login.py"
    code = main(["run", str(machine), "--device", "emulator-5554", "--adb-server", f"127.0.0.1:{unused_port}",
                 "--out", str(tmp_path / "runs")])
    out = capsys.readouterr().out
    assert code == EXIT_ENVIRONMENT
    assert re.search(rf"^ERROR\s+login-page \[environment\]: .*127\.0\.0\.1:{unused_port}", out, re.M)
    (report,) = _reports(out)
    assert "ERROR — login-page" in report.read_text(encoding="utf-8")


def test_a_machine_tagged_with_a_locale_runs_on_a_phone_in_that_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write(tmp_path / "pkg", __init__=CHINESE_LOGIN_PAGE)
    code = main(["run", str(folder), "--out", str(tmp_path / "runs")])
    out = capsys.readouterr().out
    assert code == EXIT_OK, out
    assert re.search(r"^PASSED\s+login-page-zh", out, re.M), "a package's __init__.py may list machines too"
    assert main(["run", str(folder), "--locale", "en", "--out", str(tmp_path / "runs"),
                 "--budget-wall", "2"]) == EXIT_TEST_FAILED, "an explicit --locale wins over the tag"


def test_a_bad_llm_setting_refuses_only_the_goal_machine_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write(tmp_path / "m", a_login=LOGIN_PAGE, b_goal=GOAL_ONLY)
    code = main(["run", str(folder), "--llm", "nope:x", "--out", str(tmp_path / "runs")])
    out, err = capsys.readouterr()
    assert code == EXIT_USAGE
    assert "error: buy-milk: --llm scheme 'nope' is not available" in err
    assert re.search(r"^PASSED\s+login-page", out, re.M)
    assert re.search(r"^SKIPPED\s+buy-milk: not run: --llm scheme 'nope'", out, re.M)
