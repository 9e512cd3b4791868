"""``fsm-runner devices``: list the devices an adb server knows, with their state."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from adapters.adb import DEFAULT_SERVER, TRANSPORT_NAMES, ServerAddress, open_transport
from adapters.errors import EnvironmentFault
from fsm_runner.cli import EXIT_ENVIRONMENT, EXIT_OK


def _server_address(text: str) -> ServerAddress:
    try:
        return ServerAddress.parse(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from err


def register(subparsers: Any) -> None:
    """Add the ``devices`` sub-command."""
    parser = subparsers.add_parser(
        "devices",
        help="list the devices the adb server knows (serial and state)",
        description="List the devices the adb server knows, one 'SERIAL<TAB>STATE' line each.",
    )
    parser.add_argument(
        "--adb-server",
        type=_server_address,
        default=ServerAddress.parse(DEFAULT_SERVER),
        metavar="HOST:PORT",
        help=f"address of the adb server (default {DEFAULT_SERVER})",
    )
    parser.add_argument(
        "--transport",
        choices=TRANSPORT_NAMES,
        default="adbutils",
        help="adb client library to use (default adbutils)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the device list; exit 3 when the server is not there."""
    transport = open_transport(args.transport, args.adb_server)
    try:
        entries = transport.devices()
    except EnvironmentFault as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_ENVIRONMENT
    finally:
        transport.close()
    if not entries:
        print(f"no devices on the adb server at {args.adb_server}", file=sys.stderr)
    for entry in entries:
        print(f"{entry.serial}\t{entry.state}")
    return EXIT_OK
