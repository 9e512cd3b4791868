"""The locator against the case table: real corpus and Demo Shop screens, English and Chinese."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from fsm_runner.roles.locator import RuleLocator

REPO = Path(__file__).resolve().parents[2]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_locator", REPO / "scripts" / "bench_locator.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_locator"] = module
    spec.loader.exec_module(module)
    return module


BENCH = _bench()


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    if not BENCH.SCREEN_DIRS["corpus"].is_dir():
        pytest.fail(f"the shared corpus is missing at {BENCH.SCREEN_DIRS['corpus']}")
    return list(BENCH.run_cases(RuleLocator()))


def test_case_table_covers_sixty_targets_in_two_languages_and_every_kind(rows: list[dict[str, Any]]) -> None:
    kinds = Counter(r["kind"] for r in rows)
    langs = Counter(r["lang"] for r in rows)
    assert len(rows) >= 60
    assert {"label", "role", "ordinal", "icon", "hint", "state", "absent", "relation"} <= set(kinds)
    assert langs["en"] >= 20 and langs["zh"] >= 20


def test_top1_accuracy_is_at_least_95_percent(rows: list[dict[str, Any]]) -> None:
    present = [r for r in rows if r["expected"] is not None]
    wrong = [
        f"{r['screen']}: {r['target']!r} -> {r['found']} (want {r['expected']})" for r in present if not r["right"]
    ]
    assert (len(present) - len(wrong)) / len(present) >= 0.95, wrong


def test_absent_targets_never_get_a_candidate(rows: list[dict[str, Any]]) -> None:
    wrong = [f"{r['screen']}: {r['target']!r} -> {r['found']}" for r in rows if r["expected"] is None and r["found"]]
    assert wrong == []


def test_login_button_under_the_real_keyboard_is_reported_as_covered() -> None:
    screen = BENCH.load_screen("demo/demo_en_login_keyboard.xml")
    location = RuleLocator().find("the Log in button", screen)
    assert not location.found
    assert "covered by the keyboard" in location.reason


def test_expected_bounds_exist_in_their_dumps() -> None:
    import yaml

    table = yaml.safe_load(BENCH.CASES.read_text(encoding="utf-8"))
    for entry in table["screens"]:
        folder, _, name = entry["screen"].partition("/")
        xml = (BENCH.SCREEN_DIRS[folder] / name).read_text(encoding="utf-8")
        for target, _, expected in entry["cases"]:
            assert expected is None or f'bounds="{expected}"' in xml, (entry["screen"], target)
