"""``fsm-runner report RUN_DIR``: render report.html (and junit.xml) again from a run directory.

A run killed halfway (no result.json, a cut-off events.jsonl) still gets a
report, which says where the record stops.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from fsm_runner.cli import EXIT_OK, EXIT_USAGE
from fsm_runner.errors import FsmRunnerError
from fsm_runner.evidence import load_run, write_junit, write_report
from fsm_runner.evidence.run_dir import JUNIT, REPORT
from fsm_runner.roles.values import Secrets


def register(subparsers: Any) -> None:
    """Add the ``report`` sub-command."""
    parser = subparsers.add_parser(
        "report",
        help="render report.html and junit.xml again from a run directory",
        description="Read a run directory (even one whose run was killed halfway) and write its report.html "
        "and junit.xml again.",
    )
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run directory, OUT/<machine>-<run_id>")
    parser.add_argument("--output", default=None, metavar="FILE", help="where to write the report (default "
                        "RUN_DIR/report.html)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Render and print the report's path; exit 2 when RUN_DIR is not a run directory."""
    try:
        loaded = load_run(args.run_dir)
    except FsmRunnerError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_USAGE
    secrets = Secrets()
    for problem in loaded.problems:
        print(f"warning: {problem}", file=sys.stderr)
    if not loaded.complete:
        print(f"warning: incomplete run: {loaded.stopped_at()}", file=sys.stderr)
    report = write_report(loaded, args.output or loaded.path / REPORT, secrets=secrets)
    write_junit([loaded.result_or_partial()], loaded.path / JUNIT, secrets=secrets)
    result = loaded.result_or_partial()
    verdict = "SKIPPED" if result.skipped else result.outcome.value
    print(f"{verdict} {loaded.machine}: {result.reason}")
    print(f"report: {report}")
    return EXIT_OK
