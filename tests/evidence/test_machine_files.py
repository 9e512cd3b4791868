"""Collecting machines from files and folders; every problem names its file and line."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest

from fsm_runner.machine_files import LoadProblem, MachineFile, collect, load_machine_file
from tests.evidence.machine_files import GOAL_ONLY, LOGIN_PAGE, SYNTAX_ERROR, write

RAISES_AT_LINE_4 = '''\
from fsm_runner import Machine


MACHINE = Machine("bad name!", "com.example.demoshop", goal="x")
'''

NOT_A_LIST = 'MACHINES = "login"\n'
WRONG_THING = "MACHINE = 42\n"


def test_a_folder_yields_every_machine_in_file_order(tmp_path: Path) -> None:
    folder = write(tmp_path, b_goal=GOAL_ONLY, a_login=LOGIN_PAGE, _private=LOGIN_PAGE, helper="X = 1\n")
    collection = collect([folder])
    assert [m.name for m in collection.machines] == ["login-page", "buy-milk"]
    assert collection.problems == ()


def test_an_exception_at_import_names_the_line_that_raised(tmp_path: Path) -> None:
    path = write(tmp_path, bad=RAISES_AT_LINE_4) / "bad.py"
    problem = load_machine_file(path)
    assert isinstance(problem, LoadProblem)
    assert problem.line == 4
    assert problem.error.startswith("DefinitionError: machine name 'bad name!' is not usable")


def test_a_syntax_error_names_its_line(tmp_path: Path) -> None:
    problem = load_machine_file(write(tmp_path, bad=SYNTAX_ERROR) / "bad.py")
    assert isinstance(problem, LoadProblem) and problem.line == 5 and problem.error.startswith("SyntaxError")


def test_machines_of_the_wrong_type_are_refused(tmp_path: Path) -> None:
    write(tmp_path, listed=NOT_A_LIST, wrong=WRONG_THING)
    listed = load_machine_file(tmp_path / "listed.py")
    wrong = load_machine_file(tmp_path / "wrong.py")
    assert isinstance(listed, LoadProblem) and "MACHINES must be a list of Machine, not str" in listed.error
    assert isinstance(wrong, LoadProblem) and "hold int instead of fsm_runner.Machine" in wrong.error


def test_a_file_given_by_name_must_define_machines_but_a_folder_helper_need_not(tmp_path: Path) -> None:
    folder = write(tmp_path, helper="X = 1\n", login=LOGIN_PAGE)
    assert collect([folder]).problems == ()
    (problem,) = collect([folder / "helper.py"]).problems
    assert problem.describe() == f"{folder / 'helper.py'}: defines no MACHINE or MACHINES"


def test_the_other_files_still_load_when_one_is_broken(tmp_path: Path) -> None:
    folder = write(tmp_path, a=SYNTAX_ERROR, b=LOGIN_PAGE)
    collection = collect([folder, tmp_path / "missing"])
    assert [m.name for m in collection.machines] == ["login-page"]
    where = [p.describe().split(": ")[0] for p in collection.problems]
    assert where == [f"{tmp_path / 'missing'}", f"{folder / 'a.py'}:5"]
    assert isinstance(load_machine_file(folder / "b.py"), MachineFile)


def test_a_machine_file_in_a_package_may_use_relative_imports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))
    top = f"flows_{uuid.uuid4().hex[:8]}"
    package = write(tmp_path / top, __init__="", common='LOGIN = "Log in"\n')
    source = LOGIN_PAGE.replace("from fsm_runner import", "from .common import LOGIN\nfrom fsm_runner import")
    write(package, login=source.replace('target="Log in"', "target=LOGIN"))
    try:
        loaded = load_machine_file(package / "login.py")
        assert isinstance(loaded, MachineFile), loaded
        assert loaded.machines[0].steps[0].expect[0].target == "Log in"
        assert sys.modules[f"{top}.login"].MACHINE is loaded.machines[0]
    finally:
        for name in [n for n in sys.modules if n == top or n.startswith(f"{top}.")]:
            del sys.modules[name]
