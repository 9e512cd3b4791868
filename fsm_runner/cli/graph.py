"""``fsm-runner graph [PATH]``: print the state machine as mermaid text (or inline SVG).

With a run directory, the states and transitions that run took are
highlighted; with a machine file, its machines and steps are listed as
mermaid comments above the graph.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from fsm_runner import table
from fsm_runner.cli import EXIT_OK, EXIT_USAGE
from fsm_runner.errors import FsmRunnerError
from fsm_runner.evidence import load_run
from fsm_runner.evidence.diagram import state_svg
from fsm_runner.machine_files import LoadProblem, load_machine_file


def register(subparsers: Any) -> None:
    """Add the ``graph`` sub-command."""
    parser = subparsers.add_parser(
        "graph",
        help="print the state machine as mermaid text (with a run's path highlighted)",
        description="Print the engine's state machine as mermaid stateDiagram-v2 text. PATH may be a run "
        "directory (its path is highlighted) or a machine file (its steps are listed as comments).",
    )
    parser.add_argument("path", nargs="?", default=None, metavar="PATH", help="a run directory or a machine file")
    parser.add_argument("--svg", action="store_true", help="print the inline SVG drawing instead of mermaid")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the graph; exit 2 when PATH is neither a run directory nor a usable machine file."""
    visited: list[str] = []
    comments: list[str] = []
    if args.path is not None:
        path = Path(args.path)
        if path.is_dir():
            try:
                visited = list(load_run(path).path_taken())
            except FsmRunnerError as err:
                print(f"error: {err}", file=sys.stderr)
                return EXIT_USAGE
        else:
            loaded = load_machine_file(path)
            if isinstance(loaded, LoadProblem):
                print(f"error: {loaded.describe()}", file=sys.stderr)
                return EXIT_USAGE
            for machine in loaded.machines:
                comments.append(f"%% machine {machine.name} ({machine.app})")
                comments.extend(f"%%   {i + 1}. {step.describe()}" for i, step in enumerate(machine.steps))
                if machine.goal:
                    comments.append(f"%%   goal: {machine.goal}")
    if args.svg:
        print(state_svg(visited))
        return EXIT_OK
    text = table.mermaid(visited or None)
    if comments:
        # Mermaid reads comments only inside the diagram, so they go right after its header line.
        head, sep, body = text.partition("stateDiagram-v2\n")
        text = head + sep + "\n".join(comments) + "\n" + body if sep else "\n".join(comments) + "\n" + text
    print(text)
    return EXIT_OK
