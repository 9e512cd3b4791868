"""Throughput of Demo Shop machines on 1, 2, 4 and 8 simulated devices with realistic device latencies.

Each simulated phone takes 1.5 s per ``uiautomator dump`` and 0.1 s per tap (SimDevice ``Latency``), so the
work is waiting on devices, as with real phones. The workload grows with the device count (``--per-device``
machines per device, cycling through ``--machines``): a whole English suite on 1 device would take about
8 minutes by itself, so the bench measures throughput (machines per minute) at a fixed load per device and
reports the speedup as throughput on N devices over throughput on 1. Every run writes its run directory
(report, JUnit, screenshots) to a temporary folder, as ``fsm-runner run`` would.

Ends with exactly one line: ``RESULT speedup_4=X speedup_8=X``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from adapters.sim.device import Latency
from fsm_runner import events
from fsm_runner.fleet import DeviceGroup, SimSettings, open_fleet
from fsm_runner.parallel import SuiteSummary, into_run_dirs, run_parallel
from fsm_runner.pool import DevicePool
from machines.demo_shop import demo_machines

REALISTIC = Latency(dump_s=1.5, tap_s=0.1)
DEFAULT_MACHINES = "login_en,login_failure_en"


async def _measure(count: int, names: list[str], per_device: int, out: Path) -> SuiteSummary:
    by_name = {m.name: m for m in demo_machines(("en",))}
    workload = [by_name[names[i % len(names)]] for i in range(count * per_device)]
    fleet = open_fleet([DeviceGroup(f"sim:{count}")], SimSettings(latency=REALISTIC))
    pool = DevicePool(fleet.slots)
    try:
        return await run_parallel(workload, pool, run=into_run_dirs(out / f"devices-{count}"))
    finally:
        await pool.close()
        fleet.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devices", default="1,2,4,8", help="device counts to measure (default 1,2,4,8)")
    parser.add_argument("--per-device", type=int, default=2, help="machines per device (default 2)")
    parser.add_argument("--machines", default=DEFAULT_MACHINES,
                        help=f"English demo machines to cycle through (default {DEFAULT_MACHINES})")
    args = parser.parse_args(argv)
    counts = [int(c) for c in args.devices.split(",")]
    names = [n.strip() for n in args.machines.split(",") if n.strip()]
    events.configure()
    throughput: dict[int, float] = {}
    print(f"{'devices':>7} {'machines':>8} {'wall s':>8} {'per min':>8} {'passed':>6}  utilisation per device")
    with tempfile.TemporaryDirectory(prefix="fsm-bench-scale-") as out:
        for count in counts:
            started = time.perf_counter()
            summary = asyncio.run(_measure(count, names, args.per_device, Path(out)))
            wall = time.perf_counter() - started
            passed = sum(1 for r in summary.results if r.passed)
            throughput[count] = len(summary.results) / wall
            utilisation = " ".join(f"{d.utilisation:.0%}" for d in summary.devices)
            print(f"{count:>7} {len(summary.results):>8} {wall:>8.1f} {60 * throughput[count]:>8.1f} "
                  f"{passed:>6}  {utilisation}", flush=True)
            if passed != len(summary.results):
                failed = [f"{r.machine}: {r.reason}" for r in summary.results if not r.passed]
                print("not every machine passed: " + "; ".join(failed), file=sys.stderr)
                return 1
    base = throughput.get(1)
    if base is None:
        print("RESULT needs device count 1 to compute the speedup", file=sys.stderr)
        return 2
    speedups = {n: throughput[n] / base for n in counts}
    print("RESULT " + " ".join(f"speedup_{n}={speedups[n]:.2f}" for n in (4, 8) if n in speedups))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
