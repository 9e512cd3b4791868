"""``fsm-runner sim serve``: run simulated phones behind emulated adb daemons until interrupted.

Each phone listens on its own port (``--port``, ``--port``+1, ...); connect a real adb server to
it with ``adb connect 127.0.0.1:PORT``.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from types import FrameType
from typing import Any

import attrs

from adapters.sim import Faults, SimPhone
from adapters.sim.serve import DEFAULT_PORT, DaemonStartError, serve
from fsm_runner.cli import EXIT_ENVIRONMENT, EXIT_OK, EXIT_USAGE

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def parse_faults(text: str) -> Faults:
    """``name=value[,name=value...]`` over the fields of :class:`Faults`; raises ``ArgumentTypeError``."""
    fields = {field.name: field for field in attrs.fields(Faults)}
    values: dict[str, float | bool] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, raw = item.partition("=")
        field = fields.get(name.strip())
        if not sep or field is None:
            raise argparse.ArgumentTypeError(
                f"bad fault {item!r}: use NAME=VALUE with NAME one of {', '.join(fields)}")
        raw = raw.strip().lower()
        if isinstance(field.default, bool):
            if raw not in _TRUE | _FALSE:
                raise argparse.ArgumentTypeError(f"fault {name} takes true or false, not {raw!r}")
            values[field.name] = raw in _TRUE
            continue
        try:
            values[field.name] = float(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"fault {name} takes a number, not {raw!r}") from None
    try:
        return Faults(**values)  # type: ignore[arg-type]
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"bad fault value: {err}") from err


def register(subparsers: Any) -> None:
    """Add the ``sim`` sub-command and its ``serve`` action."""
    parser = subparsers.add_parser(
        "sim",
        help="serve simulated Android phones over the adb protocol",
        description="Simulated Android phones running Demo Shop, reachable by adb.",
    )
    actions = parser.add_subparsers(dest="sim_action", metavar="ACTION", required=True)
    serve_parser = actions.add_parser(
        "serve",
        help="serve phones on TCP ports until interrupted",
        description="Start emulated adb daemons, one per phone, and serve them until Ctrl-C. "
        "Connect with: adb connect 127.0.0.1:PORT",
    )
    serve_parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                              help=f"port of the first phone, then +1 per phone; 0 picks free ports "
                                   f"(default {DEFAULT_PORT}, outside the emulator range 5555-5585)")
    serve_parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve_parser.add_argument("--count", type=int, default=1, help="number of phones (default 1)")
    serve_parser.add_argument("--locale", choices=("en", "zh-CN"), default="en", help="Demo Shop language")
    serve_parser.add_argument("--seed", type=int, default=0, help="fault seed of the first phone, then +1 each")
    serve_parser.add_argument("--faults", type=parse_faults, default=Faults(), metavar="NAME=VALUE,...",
                              help="faults to inject, e.g. dump_error_rate=0.2,slow_load_s=2")
    serve_parser.add_argument("--auth", action="store_true", help="require adb authentication (keys are trusted)")
    serve_parser.add_argument("--adb-keyboard", action="store_true", help="install the ADB keyboard IME")
    serve_parser.add_argument("--duration", type=float, default=None, metavar="SECONDS",
                              help="stop after this long instead of waiting for Ctrl-C")
    serve_parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C, SIGTERM or ``--duration``; exit 3 when a port cannot be bound."""
    if args.count < 1:
        print("error: --count must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    phones = [SimPhone(serial=f"sim-{index}", locale=args.locale, faults=args.faults, seed=args.seed + index,
                       adb_keyboard=args.adb_keyboard) for index in range(args.count)]
    try:
        loop = serve(phones, host=args.host, first_port=args.port, auth=args.auth)
    except DaemonStartError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_ENVIRONMENT
    stop = threading.Event()
    previous = None
    if threading.current_thread() is threading.main_thread():
        def on_term(signum: int, frame: FrameType | None) -> None:
            stop.set()

        previous = signal.signal(signal.SIGTERM, on_term)
    try:
        for daemon in loop.daemons:
            print(f"{daemon.phone.serial} listening on {daemon.address}; connect with: adb connect {daemon.address}",
                  flush=True)
        stop.wait(args.duration)
    except KeyboardInterrupt:
        pass
    finally:
        loop.close()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    print("stopped", flush=True)
    return EXIT_OK
