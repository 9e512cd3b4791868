"""``fsm-runner doctor``: check what a run needs — settings, adb server, devices, LLM endpoint, cache.

Each check prints ``ok``, ``warn`` or ``FAIL`` with what was found and what to
do. Exit 0 when nothing failed, 2 when the settings are invalid, 3 when the
environment is missing something a run needs.
"""

from __future__ import annotations

import argparse
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import attrs

from adapters.adb import ServerAddress, open_transport
from adapters.errors import DeviceError
from fsm_runner.cli import EXIT_ENVIRONMENT, EXIT_OK, EXIT_USAGE
from fsm_runner.config import Config, find_config, load_config
from fsm_runner.errors import FsmRunnerError


@attrs.frozen
class Check:
    """One finding: ``status`` is ok, warn or FAIL."""

    name: str
    status: str
    detail: str


def register(subparsers: Any) -> None:
    """Add the ``doctor`` sub-command."""
    parser = subparsers.add_parser(
        "doctor",
        help="check settings, the adb server and its devices, the LLM endpoint and the cache",
        description="Check what a run needs and say what to fix.",
    )
    parser.add_argument("--config", default=None, metavar="FILE", help="settings file (default ./fsm-runner.toml)")
    parser.add_argument("--adb-server", default=None, metavar="HOST:PORT", help="adb server to check")
    parser.add_argument("--timeout", type=float, default=3.0, metavar="SECONDS", help="per-check network timeout")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print one line per check; the exit code says whether a run can go ahead."""
    try:
        path = find_config(args.config)
        config = load_config(path)
    except FsmRunnerError as err:
        print(f"FAIL  config: {err}")
        return EXIT_USAGE
    checks = [Check("config", "ok", f"read {path}" if path else "no fsm-runner.toml; using the defaults")]
    server = args.adb_server or config.device.adb_server
    checks.extend(adb_checks(server, needed=config.device.default not in ("sim",)))
    checks.append(llm_check(config, args.timeout))
    checks.append(cache_check(config))
    for check in checks:
        print(f"{check.status:<5} {check.name}: {check.detail}")
    failed = [c for c in checks if c.status == "FAIL"]
    if failed:
        print(f"{len(failed)} problem{'s' if len(failed) != 1 else ''} found", file=sys.stderr)
        return EXIT_ENVIRONMENT
    return EXIT_OK


def adb_checks(server: str, *, needed: bool) -> list[Check]:
    """The adb server answers and lists devices; a missing server is FAIL only when the device is not ``sim``."""
    missing = "FAIL" if needed else "warn"
    try:
        address = ServerAddress.parse(server)
    except ValueError as err:
        return [Check("adb server", "FAIL", f"{server!r} is not HOST:PORT ({err})")]
    transport = open_transport("adbutils", address)
    try:
        entries = transport.devices()
    except DeviceError as err:
        return [Check("adb server", missing, f"not reachable at {address}: {err}"
                      + ("" if needed else " (not needed for --device sim)"))]
    finally:
        transport.close()
    checks = [Check("adb server", "ok", f"answering at {address}")]
    ready = [e for e in entries if e.state == "device"]
    if not entries:
        checks.append(Check("devices", missing, "none attached; connect a phone or 'adb connect HOST:PORT'"))
    else:
        listing = ", ".join(f"{e.serial} ({e.state})" for e in entries)
        status = "ok" if ready else missing
        checks.append(Check("devices", status, listing + ("" if ready else "; none is in state 'device'")))
    return checks


def llm_check(config: Config, timeout: float) -> Check:
    """The configured LLM endpoint answers ``GET /models``; no profile is fine (offline roles)."""
    profile = config.llm_profile()
    base = profile.base_url if profile else os.environ.get("FSM_RUNNER_LLM_BASE_URL") or os.environ.get(
        "OPENAI_BASE_URL")
    if not base:
        return Check("llm", "ok", "no LLM configured; scripted machines run offline, goal-only machines are skipped")
    key_env = profile.api_key_env if profile else "FSM_RUNNER_LLM_API_KEY"
    request = urllib.request.Request(base.rstrip("/") + "/models")
    key = os.environ.get(key_env)
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status = response.status
    except urllib.error.HTTPError as err:
        if err.code in (401, 403):
            return Check("llm", "FAIL", f"{base} refused the key (HTTP {err.code}); set {key_env}")
        status = err.code
    except (urllib.error.URLError, OSError) as err:
        return Check("llm", "FAIL", f"{base} is not reachable ({getattr(err, 'reason', err)})")
    missing_key = "" if key else f"; {key_env} is not set"
    return Check("llm", "ok" if status < 500 else "FAIL", f"{base} answered HTTP {status}{missing_key}")


def cache_check(config: Config) -> Check:
    """The decision cache's folder exists or can be created, and is writable."""
    if not config.cache.enabled:
        return Check("cache", "ok", "disabled in the settings")
    folder = Path(config.cache.path).parent
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not os.access(probe, os.W_OK):
        return Check("cache", "FAIL", f"{probe} is not writable; change cache.path ({config.cache.path})")
    state = "exists" if Path(config.cache.path).exists() else "will be created"
    return Check("cache", "ok", f"{config.cache.path} ({state})")
