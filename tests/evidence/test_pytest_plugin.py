"""The pytest plugin, run in a pytest of its own: machine files as items, fixtures for users' tests."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

from tests.evidence.machine_files import CHINESE_LOGIN_PAGE, EMPTY_LOGIN, GOAL_ONLY, LOGIN_PAGE, SYNTAX_ERROR, write

USERS_TEST = '''\
from fsm_runner import Expect, Machine, Step

LOGIN = Machine("own-login", "com.example.demoshop",
                steps=[Step("wait_for", expect=[Expect("visible", target="Log in")], timeout_s=5)])


def test_my_own_machine(fsm_run, fsm_device):
    result = fsm_run(LOGIN)
    assert result.passed, result.reason
    assert result.device == fsm_device.serial
'''


def _pytest(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    installed = any(ep.value == "fsm_runner.pytest_plugin" for ep in entry_points(group="pytest11"))
    plugin = [] if installed else ["-p", "fsm_runner.pytest_plugin"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", *plugin, "-p", "no:cacheprovider", "-p", "no:xdist", "-rA", *args],
        cwd=folder, capture_output=True, text=True, timeout=240, check=False,
    )


def test_machine_files_run_as_items_and_failures_link_the_run_directory(tmp_path: Path) -> None:
    write(tmp_path / "machines", login=LOGIN_PAGE, empty=EMPTY_LOGIN, broken=SYNTAX_ERROR, goal=GOAL_ONLY,
          helpers="STEPS = []\n", test_helpers="def test_plain() -> None:\n    assert True\n")
    write(tmp_path / "flows", other=LOGIN_PAGE.replace('"login-page"', '"other-login"'))
    write(tmp_path / "machines" / "zh", __init__=CHINESE_LOGIN_PAGE)
    (tmp_path / "test_users.py").write_text(USERS_TEST, encoding="utf-8")
    done = _pytest(tmp_path, "machines", "test_users.py", "--fsm-machines", "flows", "--fsm-out", "evidence")
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "PASSED machines/login.py::login-page" in out
    assert "PASSED flows/other.py::other-login" in out, "--fsm-machines collects a folder not named machines"
    assert "PASSED test_users.py::test_my_own_machine" in out
    assert "PASSED machines/zh/__init__.py::login-page-zh" in out, "a package's machines, on a Chinese phone"
    assert "PASSED machines/test_helpers.py::test_plain" in out, "test modules in machines/ stay pytest's"
    assert "machines/helpers.py" not in out
    assert "FAILED machines/empty.py::empty-login" in out
    assert "FAILED machines/broken.py::import" in out
    assert re.search(r"SKIPPED .*buy-milk: .*needs an LLM planner", out)
    assert "machines/broken.py:5: SyntaxError" in out
    # With CI set, pytest repeats the whole failure message in its short summary: one directory, maybe twice.
    (run_dir,) = set(re.findall(r"run directory: (evidence/empty-login-\w+)", out))
    assert "layer: verdict (in state VERIFY)" in out
    assert (tmp_path / run_dir / "report.html").is_file()
    assert "FAILED — empty-login" in (tmp_path / run_dir / "report.html").read_text(encoding="utf-8")
    runs = sorted(p.name.rsplit("-", 1)[0] for p in (tmp_path / "evidence").iterdir())
    assert runs == ["empty-login", "login-page", "login-page-zh", "other-login", "own-login"]
