"""The ``fsm-runner`` command line: one module per sub-command, each with ``register()``.

Exit codes: 0 all passed, 1 a test failed, 2 usage or configuration error,
3 environment error.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

#: Sub-command modules under ``fsm_runner.cli``; each defines ``register(subparsers)``.
COMMAND_MODULES: tuple[str, ...] = ("devices", "sim", "locate", "observe", "run", "report", "graph", "doctor", "map")

EXIT_OK = 0
EXIT_TEST_FAILED = 1
EXIT_USAGE = 2
EXIT_ENVIRONMENT = 3


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every registered sub-command."""
    parser = argparse.ArgumentParser(
        prog="fsm-runner",
        description="Run mobile UI tests as explicit finite-state machines.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"fsm_runner.cli.{name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    code: int = args.func(args)
    return code
