"""Benchmark the evidence path: a Demo Shop machine of N steps on the simulated phone, with and without a run directory.

Measures the wall time of the run without evidence and with ``RunDirectory``
(dumps, screenshots, step records, result, report, JUnit; ``overhead_ms_per_obs``
spreads that whole difference, final report included, over the observations),
and the report's render time and size. Ends with one line:
``RESULT steps=N run_s=X evidence_run_s=X overhead_ms_per_obs=X report_ms=X report_kb=X``.

Usage: .venv/bin/python scripts/bench_evidence.py [--steps N] [--repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import structlog

from adapters.sim import DEMO_SHOP_PACKAGE, SimDevice, SimPhone
from fsm_runner import Budgets, Expect, FakeClock, Machine, RunResult, Step, arun, offline_roles
from fsm_runner.evidence import RunDirectory, load_run, render_report


def _drop(_: object, __: str, event: object) -> object:
    raise structlog.DropEvent


def machine(steps: int) -> Machine:
    """Wait for login, then open and close the sort sheet until ``steps`` steps are planned."""
    plan = [Step("wait_for", expect=[Expect("visible", target="Log in")], timeout_s=5),
            Step("input_text", target="Username", value="alice"),
            Step("input_text", target="Password", value="secret123"),
            Step("press_back"),
            Step("tap", target="Log in", expect=[Expect("visible", target="Products")])]
    while len(plan) < steps:
        plan.append(Step("tap", target="Sort", expect=[Expect("visible", target="Sort by")]))
        plan.append(Step("press_back", expect=[Expect("absent", target="Sort by")]))
    return Machine("bench-evidence", DEMO_SHOP_PACKAGE, steps=plan[:steps], budgets=Budgets(max_wall_s=600))


async def one_run(target: Machine, out: Path | None) -> tuple[float, RunResult, RunDirectory | None]:
    clock = FakeClock()
    device = SimDevice(SimPhone(now=clock.now), sleep=clock.sleep)
    directory = RunDirectory.create(out, target.name) if out else None
    started = time.perf_counter()
    result = await arun(
        target, device, clock=clock, roles=offline_roles(target, screenshots=True, clock=clock),
        run_id=directory.run_id if directory else None, run_dir=directory.path if directory else None,
        recorder=directory,
    )
    return time.perf_counter() - started, result, directory


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=25)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    structlog.configure(processors=[_drop])
    target = machine(args.steps)
    bare: list[float] = []
    evidence: list[float] = []
    report_ms: list[float] = []
    observations = 0
    size = 0
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):
            seconds, result, _ = asyncio.run(one_run(target, None))
            bare.append(seconds)
            seconds, result, directory = asyncio.run(one_run(target, Path(tmp)))
            evidence.append(seconds)
            assert directory is not None
            observations = result.observations
            started = time.perf_counter()
            html = render_report(load_run(directory.path))
            report_ms.append((time.perf_counter() - started) * 1000)
            size = len(html.encode())
            print(f"{result.outcome.value} steps={len(result.steps)} observations={observations} "
                  f"bare={bare[-1]:.2f}s evidence={seconds:.2f}s report={report_ms[-1]:.0f}ms")
    run_s, evidence_s = statistics.median(bare), statistics.median(evidence)
    overhead = (evidence_s - run_s) * 1000 / max(observations, 1)
    print(f"RESULT steps={args.steps} run_s={run_s:.2f} evidence_run_s={evidence_s:.2f} "
          f"overhead_ms_per_obs={overhead:.1f} report_ms={statistics.median(report_ms):.0f} report_kb={size // 1024}")


if __name__ == "__main__":
    main()
