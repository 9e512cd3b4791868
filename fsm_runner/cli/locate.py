"""``fsm-runner locate``: what the offline locator makes of a target description on a saved dump."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from fsm_runner.cli import EXIT_OK, EXIT_TEST_FAILED, EXIT_USAGE
from fsm_runner.cli.dump_file import read_screen
from fsm_runner.roles.locator import RuleLocator


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from err
    if value < 1:
        raise argparse.ArgumentTypeError("--top must be at least 1")
    return value


def register(subparsers: Any) -> None:
    """Add the ``locate`` sub-command."""
    parser = subparsers.add_parser(
        "locate",
        help="rank the elements of a saved dump against a target description",
        description=(
            "Rank the elements of a uiautomator dump against a target description, the way the offline "
            "locator does during a run. Exit 0 when found, 1 when not found, 2 for an unreadable dump."
        ),
    )
    parser.add_argument("dump", type=Path, metavar="DUMP.xml", help="a uiautomator dump file")
    parser.add_argument("target", help='what to find, e.g. "the second Delete button" or "第二个删除按钮"')
    parser.add_argument("--top", type=_positive, default=3, metavar="K", help="how many candidates (default 3)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the candidates (or why there are none)."""
    screen = read_screen(args.dump)
    if screen is None:
        return EXIT_USAGE
    location = RuleLocator(top_k=args.top).find(args.target, screen)
    if args.json:
        payload = {
            "found": location.found,
            "reason": location.reason,
            "candidates": [
                {
                    "element_id": c.element_id,
                    "bounds": str(c.bounds),
                    "score": c.score,
                    "reason": c.reason,
                    "label": c.label,
                }
                for c in location.candidates
            ],
        }
        print(json.dumps(payload, ensure_ascii=False))
    elif location.found:
        for rank, c in enumerate(location.candidates, start=1):
            print(f"{rank}. {c.element_id} {c.bounds} score={c.score:.3f} {c.label[:50]!r}\n   {c.reason}")
    else:
        print(f"not found: {location.reason}")
    return EXIT_OK if location.found else EXIT_TEST_FAILED
