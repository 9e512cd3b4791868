"""``fsm-runner map RUN_DIR...``: record the page map (pages, key elements, transitions) seen in earlier runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from fsm_runner.cli import EXIT_OK, EXIT_USAGE
from fsm_runner.errors import ConfigurationError


def register(subparsers: Any) -> None:
    """Add the ``map`` sub-command."""
    parser = subparsers.add_parser(
        "map",
        help="record a page map for the LLM planner from run directories",
        description="Read run directories (events.jsonl and screens/) and print the page map as YAML: each page "
        "with its key elements and which step led to which page. Give it to goal-only machines as page_map.",
    )
    parser.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="run directories to read")
    parser.add_argument("--out", metavar="FILE", help="write the YAML here instead of standard output")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print (or write) the page map; exit 2 when an argument is not a run directory."""
    from fsm_runner.llm.page_map import record_page_map

    try:
        page_map = record_page_map(args.run_dirs)
    except ConfigurationError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_USAGE
    text = page_map.to_yaml()
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {len(page_map.pages)} pages to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return EXIT_OK
