import asyncio

import pytest

from adapters.adb.dump import (
    ATTEMPT_CYCLE,
    DUMP_FILE,
    dump_with_retry,
    extract_hierarchy,
    failure_reason,
)
from adapters.base import ShellResult
from adapters.errors import DeviceTimeoutError, DumpError

XML = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"><node /></hierarchy>"
IDLE = "ERROR: could not get idle state.\n"


class FakeTime:
    """A clock that only moves when the code under test sleeps or a shell call takes time."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class ScriptedShell:
    """Answers dump commands with scripted outputs and records what was asked."""

    def __init__(self, time: FakeTime, outputs: list[str], cost_s: float = 0.05) -> None:
        self.time = time
        self.outputs = outputs
        self.cost_s = cost_s
        self.commands: list[str] = []

    async def __call__(self, command: str, timeout: float) -> ShellResult:
        self.commands.append(command)
        self.time.now += self.cost_s
        output = self.outputs.pop(0) if self.outputs else IDLE
        return ShellResult(output=output, exit_code=0)


def test_tty_dump_output_yields_only_the_xml() -> None:
    output = XML + "UI hierchary dumped to: /dev/tty\n"
    assert extract_hierarchy(output) == XML


@pytest.mark.parametrize(
    ("output", "reason"),
    [
        (IDLE, "idle state"),
        ("", "printed nothing"),
        (f"cat: {DUMP_FILE}: No such file or directory", "no dump file"),
        ("<?xml version='1.0'?><hierarchy rotation=\"0\"><node", "no complete"),
    ],
)
def test_each_bad_dump_kind_is_detected_with_its_reason(output: str, reason: str) -> None:
    assert extract_hierarchy(output) is None
    assert reason in failure_reason(output)


def test_bad_dumps_are_retried_compressed_then_through_a_file() -> None:
    time = FakeTime()
    shell = ScriptedShell(time, [IDLE, "", f"UI hierchary dumped to: {DUMP_FILE}\n" + XML])
    dump = asyncio.run(dump_with_retry(shell, timeout=10.0, sleep=time.sleep, clock=time.clock))
    assert dump.xml == XML
    assert dump.attempts == 3
    assert shell.commands == [attempt.command() for attempt in ATTEMPT_CYCLE[:3]]
    assert "--compressed" in shell.commands[1]
    assert shell.commands[2].startswith(f"rm -f {DUMP_FILE};")
    assert time.sleeps == [0.1, 0.2]
    assert dump.latency_ms == pytest.approx((0.05 * 3 + 0.3) * 1000)


def test_out_of_time_raises_dump_error_with_the_raw_output() -> None:
    time = FakeTime()
    shell = ScriptedShell(time, [], cost_s=0.5)
    with pytest.raises(DumpError) as caught:
        asyncio.run(dump_with_retry(shell, timeout=3.0, sleep=time.sleep, clock=time.clock, serial="s1"))
    assert caught.value.output == IDLE
    assert caught.value.serial == "s1"
    assert "idle state" in str(caught.value)
    assert time.now <= 3.0 + 0.5
    assert len(shell.commands) >= 3


def test_a_shell_timeout_during_a_dump_becomes_a_dump_error() -> None:
    time = FakeTime()

    async def hanging(command: str, timeout: float) -> ShellResult:
        raise DeviceTimeoutError("no answer", serial="s1", command=command)

    with pytest.raises(DumpError, match="timed out") as caught:
        asyncio.run(dump_with_retry(hanging, timeout=2.0, sleep=time.sleep, clock=time.clock, serial="s1"))
    assert isinstance(caught.value.__cause__, DeviceTimeoutError)
