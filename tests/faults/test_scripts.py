"""The fault-matrix and benchmark scripts print what they promise: a table and one RESULT line of the right form."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from machines.demo_shop.flows import login

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"script_{name}", SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_fault_matrix_script_ends_with_exactly_one_result_line(capsys: pytest.CaptureFixture[str]) -> None:
    script = load("fault_matrix")
    code = script.main(["--seeds", "1", "--locales", "en", "--machines", "login,checkout",
                        "--scenarios", "clean,offline", "--llm-seeds", "0"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert code == 0
    assert [line for line in lines if line.startswith("RESULT")] == [lines[-1]]
    assert re.fullmatch(
        r"RESULT runs=4 false_passes=0 hangs=0 duplicate_effects=0 healable_pass_rate=0\.000", lines[-1]
    ), lines[-1]
    offline = next(line for line in lines if line.startswith("offline"))
    assert offline.split()[1:5] == ["2", "0", "0", "2"]


def test_the_benchmark_times_a_demo_machine_at_one_and_a_half_seconds_per_dump() -> None:
    bench = load("bench")
    row = bench.measure_machine(login("en"))
    assert row["passed"] == 1.0
    assert row["steps"] == 3
    dumps = row["dumps_per_step"] * row["steps"]
    assert dumps >= 3
    assert row["wall_s"] >= 1.5 * dumps
    assert row["settle_waits_per_step"] > 0


def test_benchmark_result_lines_are_read_into_fields() -> None:
    bench = load("bench")
    fields = bench.parse_result("RESULT steps_per_s=2400 overhead_us=41.5")
    assert fields == {"steps_per_s": "2400", "overhead_us": "41.5"}
