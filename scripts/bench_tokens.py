"""Prompt tokens per step for each LLM role, beside the raw hierarchy's tokens (o200k via bpe_openai).

Measured on the goal-only demo flows (the real requests the scripted server
received, first run; the second run shows the cache) and on the real-device
dumps in /work/shared/ui-corpus (the prompts the roles would send for them).
Targets: median planner prompt <= 1000 tokens per step, locator <= 600.

Usage: python scripts/bench_tokens.py [--verbose]
Ends with exactly one line:
RESULT planner_tokens_median=N locator_tokens_median=N first_run_llm_calls=N second_run_llm_calls=N
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from fsm_runner.evidence.run_dir import RunDirectory  # noqa: E402
from fsm_runner.llm.cache import DecisionCache  # noqa: E402
from fsm_runner.llm.locator import locator_messages  # noqa: E402
from fsm_runner.llm.planner import planner_messages  # noqa: E402
from fsm_runner.llm.profiles import default_profiles  # noqa: E402
from fsm_runner.llm.tokens import count_message_tokens, count_tokens, exact_counts  # noqa: E402
from fsm_runner.perception import page_summary, parse_dump, render  # noqa: E402
from fsm_runner.perception.screen import Screen  # noqa: E402
from fsm_runner.roles.base import LocatorView, PlannerView  # noqa: E402
from fsm_runner.testing import ChatServer  # noqa: E402
from machines.goal import GOAL_MACHINES  # noqa: E402
from tests.llm.goal_kit import goal_machine, replay_of, run_goal  # noqa: E402

CORPUS = REPO.parent / "shared" / "ui-corpus"
PROFILES = default_profiles()
CORPUS_GOAL = "Open the settings of this app and turn on notifications."


def with_system(role: str, messages: list[dict[str, object]]) -> int:
    return count_message_tokens([{"role": "system", "content": PROFILES[role].system_prompt}, *messages])


def locator_tokens(screen: Screen, target: str) -> int:
    return with_system("locator", locator_messages(LocatorView(target=target, screen=screen)))


def planner_tokens(screen: Screen) -> int:
    view = PlannerView(goal=CORPUS_GOAL, step_index=0, page_summary=page_summary(screen),
                       screen_text=render(screen, "planner"))
    return with_system("planner", planner_messages(view))


def first_control(screen: Screen) -> str:
    for element in screen.visible_elements():
        if element.role in ("button", "field", "switch", "tab") and element.label:
            return f"the {element.label} {element.role}"
    return "the first button"


async def demo_flows(rows: list[tuple[str, int, int, int]]) -> tuple[list[int], list[int], int, int]:
    planner: list[int] = []
    locator: list[int] = []
    first_calls = second_calls = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in GOAL_MACHINES:
            machine = goal_machine(name)
            cache = DecisionCache()
            where = Path(tmp) / name
            with ChatServer(replay_of(name)) as server:
                first = await run_goal(machine, server, cache, recorder=RunDirectory(where, render=False))
            with ChatServer([]) as server_again:
                second = await run_goal(machine, server_again, cache)
            if first.outcome.value != "PASSED" or second.outcome.value != "PASSED":
                raise SystemExit(f"{name} did not pass: {first.reason} / {second.reason}")
            first_calls += first.usage.calls
            second_calls += second.usage.calls
            planner += [r.prompt_tokens for r in server.requests if r.role == "planner"]
            for record in first.steps:
                xml = (where / "screens" / f"{record.before_observation or 0:04d}.xml").read_text(encoding="utf-8")
                screen = parse_dump(xml)
                asked = next(r.prompt_tokens for r in server.requests if r.key == f"step {record.index}")
                located = locator_tokens(screen, record.step.target) if record.step.target else 0
                if located:
                    locator.append(located)
                rows.append((f"demo {name} step {record.index}", count_tokens(xml), asked, located))
    return planner, locator, first_calls, second_calls


def corpus(rows: list[tuple[str, int, int, int]]) -> tuple[list[int], list[int]]:
    planner: list[int] = []
    locator: list[int] = []
    for path in sorted(CORPUS.glob("*.xml")):
        xml = path.read_text(encoding="utf-8", errors="replace")
        screen = parse_dump(xml)
        planned, located = planner_tokens(screen), locator_tokens(screen, first_control(screen))
        planner.append(planned)
        locator.append(located)
        rows.append((f"corpus {path.stem}", count_tokens(xml), planned, located))
    return planner, locator


def main(argv: list[str]) -> int:
    verbose = "--verbose" in argv
    if not exact_counts():
        print("bpe_openai is not installed: pip install 'fsm-runner[bench]' for o200k counts", file=sys.stderr)
        return 2
    rows: list[tuple[str, int, int, int]] = []
    demo_planner, demo_locator, first_calls, second_calls = asyncio.run(demo_flows(rows))
    corpus_planner, corpus_locator = corpus(rows)
    print(f"{'screen':<52} {'raw xml':>8} {'planner':>8} {'locator':>8}")
    for name, raw, planned, located in rows:
        if verbose or name.startswith("corpus") or name.endswith("step 0"):
            print(f"{name:<52} {raw:>8} {planned:>8} {located or '-':>8}")
    planner = demo_planner + corpus_planner
    locator = demo_locator + corpus_locator
    raw_median = statistics.median(r[1] for r in rows)
    print(f"demo flows: {len(demo_planner)} planner prompts, median {statistics.median(demo_planner):g}; "
          f"locator median {statistics.median(demo_locator):g}")
    print(f"corpus: {len(corpus_planner)} screens, planner median {statistics.median(corpus_planner):g}, "
          f"locator median {statistics.median(corpus_locator):g}; raw hierarchy median {raw_median:g}")
    print(f"LLM calls: first runs {first_calls}, second runs {second_calls} (decision cache)")
    print(
        f"RESULT planner_tokens_median={round(statistics.median(planner))} "
        f"locator_tokens_median={round(statistics.median(locator))} "
        f"first_run_llm_calls={first_calls} second_run_llm_calls={second_calls}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
