"""``fsm-runner sim serve``: phones served on ports, stopped cleanly, bad options refused."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys

import pytest

from adapters.sim import Faults
from fsm_runner.cli import EXIT_ENVIRONMENT, EXIT_OK, EXIT_USAGE, main
from fsm_runner.cli.sim import parse_faults
from tests.adbkit import OKAY, RawAdbConnection

pytestmark = pytest.mark.adb


def test_serve_listens_per_phone_and_stops_on_sigterm() -> None:
    process = subprocess.Popen([sys.executable, "-m", "fsm_runner", "sim", "serve", "--port", "0", "--count", "2",
                                "--locale", "zh-CN", "--duration", "60"], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(2)]
        ports = [int(re.search(r"listening on 127\.0\.0\.1:(\d+)", line).group(1)) for line in lines]  # type: ignore[union-attr]
        assert [line.split()[0] for line in lines] == ["sim-0", "sim-1"]
        for port in ports:
            conn = RawAdbConnection(port)
            conn.handshake()
            assert conn.run_service("shell:getprop persist.sys.locale") == (OKAY, b"zh-CN\n")
            conn.close()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == EXIT_OK
        assert process.stdout.read().strip() == "stopped"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


def test_a_busy_port_is_an_environment_error(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["sim", "serve", "--port", str(port), "--duration", "0"]) == EXIT_ENVIRONMENT
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


def test_faults_parse_from_name_value_pairs() -> None:
    assert parse_faults("dump_error_rate=0.25, keyboard_occlusion=true,slow_load_s=2") == Faults(
        dump_error_rate=0.25, keyboard_occlusion=True, slow_load_s=2.0)


@pytest.mark.parametrize("spec", ["warp_drive=1", "dump_error_rate", "dump_error_rate=lots", "popup_rate=3",
                                  "keyboard_occlusion=maybe"])
def test_bad_faults_are_usage_errors(spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["sim", "serve", "--faults", spec])
    assert caught.value.code == EXIT_USAGE
    assert "fault" in capsys.readouterr().err
