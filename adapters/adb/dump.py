"""Hierarchy dumps the way real devices need them: detect bad dumps, retry, give up in time.

``uiautomator dump`` exits 0 even when it fails: it may print ``ERROR: could not
get idle state``, print nothing, or leave no file. So success is decided by the
output holding a complete ``<hierarchy>`` document, never by the exit status.
Attempts alternate between the full and the ``--compressed`` dump (a busy screen
often gets idle enough for the cheaper one) and between ``/dev/tty`` and a file
read back with ``cat`` (some builds cannot write to the tty), with exponential
backoff between attempts, all within the caller's timeout.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import attrs

from adapters.base import Dump, ShellResult
from adapters.errors import DeviceTimeoutError, DumpError

DUMP_FILE = "/sdcard/window_dump.xml"
IDLE_STATE_ERROR = "could not get idle state"

RunShell = Callable[[str, float], Awaitable[ShellResult]]
Sleep = Callable[[float], Awaitable[None]]
Clock = Callable[[], float]


@attrs.frozen
class DumpAttempt:
    """How one attempt dumps: through ``/dev/tty`` or a file, full or compressed."""

    to_file: bool
    compressed: bool

    def command(self) -> str:
        flag = " --compressed" if self.compressed else ""
        if self.to_file:
            # rm first: a file left by an earlier dump must never pass for this one.
            return f"rm -f {DUMP_FILE}; uiautomator dump{flag} {DUMP_FILE}; cat {DUMP_FILE}"
        return f"uiautomator dump{flag} /dev/tty"


#: The order attempts take; it repeats while time remains.
ATTEMPT_CYCLE: tuple[DumpAttempt, ...] = (
    DumpAttempt(to_file=False, compressed=False),
    DumpAttempt(to_file=False, compressed=True),
    DumpAttempt(to_file=True, compressed=False),
    DumpAttempt(to_file=True, compressed=True),
)


def extract_hierarchy(output: str) -> str | None:
    """The complete hierarchy XML inside a dump command's output, or None when there is none."""
    end_tag = "</hierarchy>"
    end = output.rfind(end_tag)
    if end < 0:
        return None
    start = output.rfind("<?xml", 0, end)
    if start < 0:
        start = output.rfind("<hierarchy", 0, end)
    if start < 0:
        return None
    return output[start : end + len(end_tag)]


def failure_reason(output: str) -> str:
    """Why a dump output holds no hierarchy, in words fit for an error message."""
    text = output.strip()
    if IDLE_STATE_ERROR in text:
        return "uiautomator could not get idle state (the screen kept changing)"
    if not text:
        return "uiautomator printed nothing"
    if "No such file" in text:
        return "uiautomator wrote no dump file"
    return "uiautomator output held no complete <hierarchy>"


def backoff_delays(first: float = 0.1, factor: float = 2.0, cap: float = 1.6) -> Callable[[int], float]:
    """Delay before retry number ``n`` (1-based): exponential from ``first``, capped at ``cap``."""

    def delay(retry: int) -> float:
        return float(min(cap, first * factor ** (retry - 1)))

    return delay


async def dump_with_retry(
    run: RunShell,
    *,
    timeout: float,
    sleep: Sleep,
    clock: Clock = time.monotonic,
    serial: str = "",
    delay: Callable[[int], float] | None = None,
) -> Dump:
    """Dump the hierarchy, retrying bad dumps within ``timeout`` seconds; raise DumpError when out of time.

    ``run(command, timeout)`` runs one shell command. At least one attempt is made.
    """
    delay = delay or backoff_delays()
    started = clock()
    deadline = started + timeout
    attempts = 0
    last_output = ""
    last_reason = "no attempt finished"
    last_command = ATTEMPT_CYCLE[0].command()
    while True:
        attempt = ATTEMPT_CYCLE[attempts % len(ATTEMPT_CYCLE)]
        last_command = attempt.command()
        attempts += 1
        remaining = deadline - clock()
        try:
            result = await run(last_command, max(remaining, 0.5))
        except DeviceTimeoutError as err:
            raise DumpError(
                f"hierarchy dump timed out after {attempts} attempt(s) within {timeout:.1f} s: {last_reason}",
                serial=serial,
                command=last_command,
                output=last_output,
            ) from err
        xml = extract_hierarchy(result.output)
        if xml is not None:
            return Dump(xml=xml, latency_ms=(clock() - started) * 1000.0, attempts=attempts)
        last_output = result.output
        last_reason = failure_reason(result.output)
        pause = delay(attempts)
        if clock() + pause >= deadline:
            raise DumpError(
                f"no usable hierarchy after {attempts} attempt(s) within {timeout:.1f} s: {last_reason}; "
                "wait for the app to settle or raise the dump timeout",
                serial=serial,
                command=last_command,
                output=last_output,
            )
        await sleep(pause)
