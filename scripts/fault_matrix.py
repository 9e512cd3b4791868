"""Run the fault matrix and print, per fault scenario, how the runs ended and whether any broke trust.

Every Demo Shop machine (both locales) runs under every scenario of
``tests/faults/matrix.py`` for each seed, on virtual time. Per scenario the
table shows runs, passed, failed (with layers), errored, aborted, real wall
time and LLM calls; then the cases that broke a trust check, and one line:

    RESULT runs=N false_passes=N hangs=N duplicate_effects=N healable_pass_rate=X

The goal-only machines then run with the LLM roles against the scripted model
on loopback, under the same scenarios, with the model answering from its
recording and misbehaving on a seeded 30% of answers (``/model:mixed`` rows).

Usage: python scripts/fault_matrix.py [--seeds N] [--llm-seeds N] [--locales en,zh-CN] [--scenarios a,b]
       [--machines a,b]
Exit code 1 when any run passed falsely, hung or duplicated an order.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import structlog

from tests.faults.matrix import (
    GOAL_MACHINE_BY_NAME,
    MACHINES,
    SCENARIOS,
    CaseResult,
    Tally,
    cases,
    flow_of,
    locale_of,
    run_case,
    run_goal_case,
    tally,
)


def _quiet() -> None:
    def drop(*_: object) -> None:
        raise structlog.DropEvent

    structlog.configure(processors=[drop])


def _row(name: str, t: Tally) -> str:
    layers = ",".join(f"{layer}:{n}" for layer, n in t.failed_layers) or "-"
    return (
        f"{name:<34} {t.runs:>5} {t.passed:>6} {t.failed:>6} {t.errored:>6} {t.aborted:>7} "
        f"{t.pass_rate:>6.1%} {t.real_s:>7.1f} {t.llm_calls:>5}  {layers}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="seeds per machine and scenario (default 5)")
    parser.add_argument("--locales", default="en,zh-CN")
    parser.add_argument("--scenarios", default="", help="comma-separated scenario names (default: all)")
    parser.add_argument("--machines", default="", help="comma-separated flow names, e.g. checkout,login")
    parser.add_argument("--llm-seeds", type=int, default=2,
                        help="seeds for the goal machines on the scripted model (0 skips the LLM part)")
    args = parser.parse_args(argv)
    _quiet()
    locales = set(args.locales.split(","))
    flows = set(filter(None, args.machines.split(",")))
    wanted = set(filter(None, args.scenarios.split(",")))
    machines = [m for m in MACHINES if locale_of(m) in locales and (not flows or flow_of(m) in flows)]
    scenarios = [s for s in SCENARIOS if not wanted or s.name in wanted]
    seeds = range(1, args.seeds + 1)
    started = time.perf_counter()
    print(f"{'scenario':<34} {'runs':>5} {'passed':>6} {'failed':>6} {'error':>6} {'aborted':>7} "
          f"{'pass%':>6} {'wall_s':>7} {'llm':>5}  failed layers")
    everything: list[CaseResult] = []
    for scenario in scenarios:
        # One event loop per run: FakeClocks sharing a loop livelock (findings-faults.md, F4).
        results = [asyncio.run(run_case(m, s, seed)) for m, s, seed in cases(machines, [scenario], seeds)]
        everything.extend(results)
        print(_row(scenario.name, tally(results)), flush=True)
    if args.llm_seeds:
        print("goal machines, LLM roles, scripted model (clean model, then a model misbehaving on 30% of answers):")
        llm_seeds = range(1, args.llm_seeds + 1)
        for scenario in scenarios:
            for misbehaviour in ("none", "mixed"):
                results = [asyncio.run(run_goal_case(name, scenario, seed, misbehaviour))
                           for name in GOAL_MACHINE_BY_NAME for seed in llm_seeds]
                everything.extend(results)
                label = scenario.name if misbehaviour == "none" else f"{scenario.name}/model:mixed"
                print(_row(label, tally(results)), flush=True)
    total = tally(everything)
    healable = tally(r for r in everything if _category(r) == "healable")
    print(_row("all", total))
    broken = [r for r in everything if r.false_pass or r.hang or r.duplicate_effect or r.misattributed]
    for r in broken:
        flags = [name for name in ("false_pass", "hang", "duplicate_effect", "misattributed") if getattr(r, name)]
        print(f"BROKEN {'+'.join(flags)}: {r.machine} {r.scenario} seed={r.seed} -> {r.outcome} "
              f"({r.layer}): {r.reason[:160]} | shop: {r.shop_problem or 'ok'}")
    print(f"wall time {time.perf_counter() - started:.1f}s; misattributed environment faults: {total.misattributed}")
    print(
        f"RESULT runs={total.runs} false_passes={total.false_passes} hangs={total.hangs} "
        f"duplicate_effects={total.duplicate_effects} healable_pass_rate={healable.pass_rate:.3f}"
    )
    return 1 if total.false_passes or total.hangs or total.duplicate_effects else 0


def _category(result: CaseResult) -> str:
    return next(s.category for s in SCENARIOS if s.name == result.scenario.split("/")[0])


if __name__ == "__main__":
    raise SystemExit(main())
