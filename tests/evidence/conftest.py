from __future__ import annotations

from pathlib import Path

import pytest

from fsm_runner import RunResult
from fsm_runner.evidence import RunDirectory
from tests.evidence.sim_runs import FAILING, PASSING, run_on_sim

RunPair = tuple[RunResult, RunDirectory]


@pytest.fixture(scope="session")
def passing_run(tmp_path_factory: pytest.TempPathFactory) -> RunPair:
    return run_on_sim(PASSING, tmp_path_factory.mktemp("runs"))


@pytest.fixture(scope="session")
def failing_run(tmp_path_factory: pytest.TempPathFactory) -> RunPair:
    return run_on_sim(FAILING, tmp_path_factory.mktemp("runs"))


@pytest.fixture
def data_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "data"
