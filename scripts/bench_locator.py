"""Locator accuracy over tests/data/locator_cases.yaml: top-1 per kind and wrong answers on absent targets.

Usage: python scripts/bench_locator.py [--verbose]
Ends with exactly one line: RESULT top1=X absent_wrong=N cases=N
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

from fsm_runner.perception import parse_dump
from fsm_runner.perception.screen import Screen
from fsm_runner.roles.locator import RuleLocator

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "tests" / "data" / "locator_cases.yaml"
SCREEN_DIRS = {"corpus": REPO.parent / "shared" / "ui-corpus", "demo": REPO / "tests" / "roles" / "data"}


def load_screen(name: str) -> Screen:
    """The parsed screen for a case table entry such as ``corpus/031_douyin_following_list.xml``."""
    folder, _, file = name.partition("/")
    return parse_dump((SCREEN_DIRS[folder] / file).read_bytes())


def run_cases(locator: RuleLocator) -> list[dict[str, Any]]:
    """One row per case: screen, target, kind, expected and found bounds, and whether it was right."""
    table = yaml.safe_load(CASES.read_text(encoding="utf-8"))
    rows: list[dict[str, Any]] = []
    for entry in table["screens"]:
        screen = load_screen(entry["screen"])
        for target, kind, expected in entry["cases"]:
            started = time.perf_counter()
            location = locator.find(target, screen)
            elapsed = (time.perf_counter() - started) * 1000
            found = str(location.best.bounds) if location.best else None
            rows.append(
                {
                    "screen": entry["screen"],
                    "lang": entry["lang"],
                    "target": target,
                    "kind": kind,
                    "expected": expected,
                    "found": found,
                    "right": found == expected,
                    "reason": location.best.reason if location.best else location.reason,
                    "ms": elapsed,
                }
            )
    return rows


def main(argv: list[str]) -> int:
    rows = run_cases(RuleLocator())
    by_kind: dict[str, list[bool]] = defaultdict(list)
    by_lang: dict[str, list[bool]] = defaultdict(list)
    for row in rows:
        by_kind[row["kind"]].append(row["right"])
        by_lang[row["lang"]].append(row["right"])
        if "--verbose" in argv or not row["right"]:
            mark = "ok " if row["right"] else "BAD"
            print(f"{mark} {row['screen']:<48} {row['target']!r:<46} want {row['expected']} got {row['found']}")
            if not row["right"]:
                print(f"      {row['reason']}")
    print(f"{'kind':<12} {'cases':>5} {'top1':>6}")
    for kind, results in sorted(by_kind.items()):
        print(f"{kind:<12} {len(results):>5} {sum(results) / len(results):>6.3f}")
    print(f"{'language':<12} {'cases':>5} {'top1':>6}")
    for lang, results in sorted(by_lang.items()):
        print(f"{lang:<12} {len(results):>5} {sum(results) / len(results):>6.3f}")
    present = [r for r in rows if r["expected"] is not None]
    absent_wrong = sum(1 for r in rows if r["expected"] is None and r["found"] is not None)
    top1 = sum(r["right"] for r in present) / len(present)
    print(f"locate ms: max {max(r['ms'] for r in rows):.2f}, mean {sum(r['ms'] for r in rows) / len(rows):.2f}")
    print(f"RESULT top1={top1:.3f} absent_wrong={absent_wrong} cases={len(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
