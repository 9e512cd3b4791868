"""``fsm-runner observe DUMP.xml``: show what the roles would see of one hierarchy dump."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from fsm_runner.cli import EXIT_OK, EXIT_USAGE
from fsm_runner.cli.dump_file import read_screen
from fsm_runner.perception import VIEWS, Element, page_summary, render
from fsm_runner.perception.tokens import count_tokens


def register(subparsers: Any) -> None:
    """Add the ``observe`` sub-command."""
    parser = subparsers.add_parser(
        "observe",
        help="parse a uiautomator dump and print the compact screen a role would see",
        description=(
            "Parse a uiautomator dump file and print the page summary, the compact view for one role, "
            "the fingerprint and the o200k token count ('n/a' without the bpe-openai package)."
        ),
    )
    parser.add_argument("dump", type=Path, metavar="DUMP.xml", help="a file written by 'uiautomator dump'")
    parser.add_argument("--view", choices=VIEWS, default="planner", help="which role's view to print")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.set_defaults(func=run)


def _element_json(e: Element) -> dict[str, Any]:
    return {
        "element_id": e.element_id,
        "role": e.role,
        "label": e.label,
        "bounds": str(e.bounds),
        "window": e.window,
        "resource_id": e.resource_id,
        "visible": e.visible,
        "occluded": e.occluded,
        "occluded_by": e.occluded_by,
        "interactive": e.interactive,
        "checked": e.checked,
        "enabled": e.enabled,
        "ordinal": e.ordinal,
        "context": e.context,
    }


def run(args: argparse.Namespace) -> int:
    """Print the view of the dump; exit 2 when the file cannot be read or is not a hierarchy."""
    screen = read_screen(args.dump)
    if screen is None:
        return EXIT_USAGE
    summary = page_summary(screen)
    text = render(screen, args.view)
    tokens = count_tokens(summary + "\n" + text)
    if args.json:
        payload = {
            "fingerprint": screen.fingerprint,
            "view": args.view,
            "summary": summary,
            "text": text,
            "tokens": tokens,
            "elements": [_element_json(e) for e in screen.elements],
        }
        print(json.dumps(payload, ensure_ascii=False, indent=2))
        return EXIT_OK
    print(summary)
    print(text)
    print(f"fingerprint {screen.fingerprint}  tokens {tokens if tokens is not None else 'n/a'}")
    return EXIT_OK
