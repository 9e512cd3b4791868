"""Every benchmark of the project side by side, in one table, ending with one RESULT line of the headline figures.

Runs each ``scripts/bench_*.py`` that exists (engine, sim, adb, perception,
locator, tokens, evidence, scale) in its own process with short settings and
reads its ``RESULT`` line, then measures the Demo Shop machines itself: each
English machine on a simulated phone with realistic device latencies
(``Latency(dump_s=1.5, tap_s=0.1)``) on virtual time, so the wall time shown is
what the run would take on a phone that slow, without waiting for it. Per
machine: wall seconds, steps, dumps per step and settle waits per step (sleeps
the engine and executor asked for, device latency excluded).

Usage: python scripts/bench.py [--skip engine,scale] [--full]
``--full`` runs the sub-benchmarks with their own default (longer) settings.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import structlog  # noqa: E402

from adapters.sim import SimDevice, SimPhone  # noqa: E402
from adapters.sim.device import Latency  # noqa: E402
from fsm_runner import Machine, arun  # noqa: E402
from fsm_runner.clock import FakeClock  # noqa: E402
from fsm_runner.records import StepRecord  # noqa: E402
from machines.demo_shop import demo_machines  # noqa: E402

#: Sub-benchmark -> arguments for a short run (``--full`` drops them).
QUICK_ARGS: dict[str, list[str]] = {
    "engine": ["--steps", "500", "--repeats", "3"],
    "sim": ["--rounds", "100"],
    "adb": ["--calls", "50"],
    "perception": ["--repeat", "3"],
    "locator": [],
    "tokens": [],
    "evidence": ["--steps", "10", "--repeat", "1"],
    "scale": ["--devices", "1,4", "--per-device", "1"],
}

#: Which figure of which sub-benchmark goes into the headline RESULT line, under what name.
HEADLINE = (
    ("engine", "steps_per_s", "engine_steps_per_s"),
    ("perception", "compact_over_raw_median", "compact_over_raw"),
    ("tokens", "planner_tokens_median", "planner_tokens_per_step"),
    ("tokens", "locator_tokens_median", "locator_tokens_per_step"),
    ("tokens", "first_run_llm_calls", "llm_calls_first_run"),
    ("tokens", "second_run_llm_calls", "llm_calls_second_run"),
    ("locator", "top1", "locator_top1"),
    ("adb", "adbutils_call_ms", "adb_call_ms"),
    ("sim", "daemon_overhead_ms", "daemon_overhead_ms"),
    ("scale", "speedup_4", "speedup_4"),
)

REALISTIC = Latency(dump_s=1.5, tap_s=0.1)


def parse_result(line: str) -> dict[str, str]:
    """``RESULT a=1 b=x`` -> {"a": "1", "b": "x"}."""
    fields = {}
    for part in line.split()[1:]:
        key, _, value = part.partition("=")
        if key:
            fields[key] = value
    return fields


def run_bench(name: str, full: bool, timeout_s: float = 900.0) -> tuple[dict[str, str], float, str]:
    """Run ``scripts/bench_<name>.py``; its RESULT fields, seconds taken, and a problem ("" when fine)."""
    script = REPO / "scripts" / f"bench_{name}.py"
    command = [sys.executable, str(script), *([] if full else QUICK_ARGS.get(name, []))]
    started = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        return {}, time.perf_counter() - started, f"no result within {timeout_s:g} s"
    took = time.perf_counter() - started
    results = [line for line in done.stdout.splitlines() if line.startswith("RESULT")]
    if not results:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {}, took, f"exit {done.returncode}, no RESULT line ({tail[:100]})"
    return parse_result(results[-1]), took, ""


class CountingClock(FakeClock):
    """Virtual time that counts the sleeps asked of it: the engine's and executor's settle waits."""

    def __init__(self) -> None:
        super().__init__()
        self.sleeps = 0

    async def sleep(self, seconds: float) -> None:
        if seconds > 0:
            self.sleeps += 1
        await super().sleep(seconds)

    async def device_sleep(self, seconds: float) -> None:
        """The device's own latency: waited on the same virtual time but not counted as a settle wait."""
        await FakeClock.sleep(self, seconds)


def all_steps(records: Iterable[StepRecord]) -> int:
    """Steps that acted on the device: a sub-machine counts as its own steps."""
    return sum(all_steps(r.children) if r.children else 1 for r in records)


def measure_machine(machine: Machine) -> dict[str, float]:
    """One run of ``machine`` with realistic latencies on virtual time."""

    async def scenario() -> dict[str, float]:
        clock = CountingClock()
        phone = SimPhone(now=clock.now)
        device = SimDevice(phone, latency=REALISTIC, sleep=clock.device_sleep, now=clock.now)
        result = await arun(machine, device, clock=clock)
        steps = max(1, all_steps(result.steps))
        return {
            "passed": float(result.passed),
            "wall_s": result.wall_s,
            "steps": float(steps),
            "dumps_per_step": result.observations / steps,
            "settle_waits_per_step": clock.sleeps / steps,
        }

    return asyncio.run(scenario())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip", default="", help="comma-separated sub-benchmarks to leave out")
    parser.add_argument("--full", action="store_true", help="sub-benchmarks with their default settings")
    args = parser.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    present = sorted(p.stem.removeprefix("bench_") for p in (REPO / "scripts").glob("bench_*.py"))
    figures: dict[str, dict[str, str]] = {}
    print(f"{'benchmark':<12} {'seconds':>8}  RESULT")
    for name in present:
        if name in skip:
            continue
        fields, took, problem = run_bench(name, args.full)
        figures[name] = fields
        shown = " ".join(f"{k}={v}" for k, v in fields.items()) or f"(failed: {problem})"
        print(f"{name:<12} {took:>8.1f}  {shown}", flush=True)

    def quiet(*_: object) -> None:
        raise structlog.DropEvent

    structlog.configure(processors=[quiet])
    print(f"\n{'demo machine (dump 1.5 s, tap 0.1 s)':<40} {'wall_s':>7} {'steps':>6} {'dumps/step':>11} "
          f"{'settle/step':>12}  verdict")
    rows = []
    for machine in demo_machines(("en",)):
        row = measure_machine(machine)
        rows.append(row)
        print(f"{machine.name:<40} {row['wall_s']:>7.1f} {row['steps']:>6.0f} {row['dumps_per_step']:>11.2f} "
              f"{row['settle_waits_per_step']:>12.2f}  {'PASSED' if row['passed'] else 'not passed'}", flush=True)
    headline = [
        f"{label}={figures[bench][key]}"
        for bench, key, label in HEADLINE
        if bench in figures and key in figures[bench]
    ]
    headline += [
        f"demo_wall_s_median={statistics.median(r['wall_s'] for r in rows):.1f}",
        f"dumps_per_step={statistics.mean(r['dumps_per_step'] for r in rows):.2f}",
        f"settle_waits_per_step={statistics.mean(r['settle_waits_per_step'] for r in rows):.2f}",
    ]
    print("RESULT " + " ".join(headline))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
