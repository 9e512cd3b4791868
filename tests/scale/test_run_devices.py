"""``fsm-runner run --devices``: machines spread over a pool, each phone in its machine's language, and bad
device lists refused before anything runs."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import adbkit
import pytest

from adapters.sim import SimPhone
from fsm_runner.cli import EXIT_ENVIRONMENT, EXIT_OK, EXIT_USAGE, main
from fsm_runner.cli.run import run as run_command
from fsm_runner.errors import ConfigurationError, DefinitionError
from fsm_runner.fleet import DeviceGroup, open_fleet, parse_group
from fsm_runner.leases import LeaseFile, held_intervals, overlapping

MACHINE_FILE = """
from machines.demo_shop.flows import login, login_failure

MACHINES = [login("en"), login_failure("zh-CN"), login_failure("en")]
"""


def _run(*argv: str) -> tuple[int, str, str]:
    from fsm_runner.cli import build_parser

    args = build_parser().parse_args(["run", *argv])
    out, err = io.StringIO(), io.StringIO()
    code = run_command(args, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_run_spreads_machines_over_simulated_devices_in_their_languages(tmp_path: Path) -> None:
    (tmp_path / "suite.py").write_text(MACHINE_FILE)
    code, out, err = _run(str(tmp_path / "suite.py"), "--devices", "sim:2", "--out", str(tmp_path / "runs"),
                          "--junit", str(tmp_path / "all.xml"), "--lease-file", str(tmp_path / "leases.jsonl"))
    assert code == EXIT_OK, out + err
    assert "3 machines: 3 passed" in out
    assert "3 machines on 2 devices" in err
    assert "sim-0" in err and "sim-1" in err
    results = [json.loads((d / "result.json").read_text()) for d in (tmp_path / "runs").iterdir()]
    assert sorted(r["machine"] for r in results) == ["login_en", "login_failure_en", "login_failure_zh_cn"]
    assert {r["device"] for r in results} <= {"sim-0", "sim-1"}
    assert (tmp_path / "all.xml").read_text().count("<testcase") == 3
    held = held_intervals(LeaseFile(tmp_path / "leases.jsonl").records())
    assert sorted(i.serial for i in held) == sorted(r["device"] for r in results)
    assert overlapping(held) == [] and all(i.end is not None for i in held)


@pytest.mark.parametrize(
    ("devices", "message"),
    [("sim:0", "positive number"), ("a,b,a", "a more than once"), (",", "names no device"),
     ("127.0.0.1:9/a,a", "cannot list the connected devices")],
)
def test_run_refuses_a_bad_device_list_before_running_anything(tmp_path: Path, devices: str, message: str) -> None:
    (tmp_path / "suite.py").write_text(MACHINE_FILE)
    code, _, err = _run(str(tmp_path / "suite.py"), "--devices", devices, "--out", str(tmp_path / "runs"))
    assert code == EXIT_USAGE
    assert message in err
    assert not (tmp_path / "runs").exists()


def test_a_device_group_on_an_adb_server_that_is_not_there_is_an_environment_error(tmp_path: Path) -> None:
    (tmp_path / "suite.py").write_text(MACHINE_FILE)
    code, out, err = _run(str(tmp_path / "suite.py"), "--devices", "127.0.0.1:9/emulator-5554",
                          "--out", str(tmp_path / "runs"))
    assert code == EXIT_ENVIRONMENT
    assert "no adb server answers at 127.0.0.1:9" in err
    assert out.count("ERROR") == 3


def test_a_device_group_names_its_own_adb_server() -> None:
    assert parse_group("10.0.0.7:5037/emulator-5554,R58M", "127.0.0.1:5037") == DeviceGroup(
        "emulator-5554,R58M", "10.0.0.7:5037")
    assert parse_group("127.0.0.1:7100,127.0.0.1:7101", None) == DeviceGroup("127.0.0.1:7100,127.0.0.1:7101")
    with pytest.raises(DefinitionError, match="no devices"):
        open_fleet([])


@pytest.fixture
def two_hosts() -> Iterator[list[tuple[adbkit.AdbServer, str]]]:
    """Two adb servers on two loopback ports, one simulated phone connected to each."""
    servers = [adbkit.start_adb_server(), adbkit.start_adb_server()]
    daemons = [adbkit.serve_sim(SimPhone(serial=f"host-{i}", adb_keyboard=True)) for i in range(2)]
    try:
        yield [(server, adbkit.connect(server, daemon)) for server, daemon in zip(servers, daemons, strict=True)]
    finally:
        for daemon in daemons:
            daemon.stop()
        for server in servers:
            server.stop()


@pytest.mark.adb
def test_devices_on_two_adb_servers_form_one_pool_and_unknown_serials_are_refused(
    tmp_path: Path, two_hosts: list[tuple[adbkit.AdbServer, str]]
) -> None:
    (first, serial_a), (second, serial_b) = two_hosts
    with pytest.raises(ConfigurationError, match=rf"127\.0\.0\.1:1.*connected: {serial_a} \(device\)"):
        open_fleet([DeviceGroup(f"{serial_a},127.0.0.1:1", f"127.0.0.1:{first.port}")])
    with pytest.raises(DefinitionError, match=rf"more than once; connected to 127\.0\.0\.1:{first.port}: {serial_a} "):
        open_fleet([DeviceGroup(f"{serial_a},{serial_a}", f"127.0.0.1:{first.port}")])
    (tmp_path / "suite.py").write_text(
        "import attrs\nfrom machines.demo_shop.flows import login_failure\n"
        "MACHINES = [attrs.evolve(login_failure('en'), outcomes={}, name=f'wrong_{i}') for i in range(3)]\n"
    )
    code = main(["run", str(tmp_path / "suite.py"), "--out", str(tmp_path / "runs"),
                 "--devices", f"127.0.0.1:{first.port}/{serial_a}", "--devices", f"127.0.0.1:{second.port}/{serial_b}"])
    assert code == EXIT_OK
    devices = {json.loads((d / "result.json").read_text())["device"] for d in (tmp_path / "runs").iterdir()}
    assert devices == {serial_a, serial_b}
