"""pytest-xdist over shared devices: two workers, two simulated phones behind a real adb server, one lease file;
no phone is ever driven by both workers at once."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import adbkit
import pytest

from adapters.sim import SimPhone
from fsm_runner.leases import LeaseFile, held_intervals, overlapping

pytestmark = pytest.mark.adb

MACHINE_FILE = textwrap.dedent("""
    import attrs
    from machines.demo_shop.flows import login_failure

    MACHINES = [attrs.evolve(login_failure("en"), outcomes={}, name=f"wrong_password_{i}") for i in range(4)]
""")


@pytest.fixture
def two_phones() -> Iterator[tuple[adbkit.AdbServer, list[str]]]:
    server = adbkit.start_adb_server()
    daemons = [adbkit.serve_sim(SimPhone(serial=f"phone-{i}", adb_keyboard=True)) for i in range(2)]
    try:
        yield server, [adbkit.connect(server, daemon) for daemon in daemons]
    finally:
        for daemon in daemons:
            daemon.stop()
        server.stop()


def _pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "FSM_RUNNER_LEASE"))}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "fsm_runner.pytest_pool", "-p", "no:cacheprovider",
         "-o", "addopts=", "--rootdir", str(tmp_path), *args],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
    )


def test_two_xdist_workers_share_two_phones_without_ever_driving_one_together(
    tmp_path: Path, two_phones: tuple[adbkit.AdbServer, list[str]]
) -> None:
    server, serials = two_phones
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "wrong_passwords.py").write_text(MACHINE_FILE)
    lease_path = tmp_path / "shared" / "leases.jsonl"
    done = _pytest(tmp_path, "-n", "2", "--fsm-machines", str(tmp_path / "suite"),
                   "--fsm-devices", ",".join(serials), "--fsm-pool-server", f"127.0.0.1:{server.port}",
                   "--fsm-lease-file", str(lease_path), "--fsm-out", str(tmp_path / "runs"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "4 passed" in done.stdout
    intervals = held_intervals(LeaseFile(lease_path).records())
    assert len(intervals) == 4
    assert all(i.end is not None for i in intervals)
    assert overlapping(intervals) == []
    assert {i.owner.rsplit(":", 1)[-1] for i in intervals} == {"gw0", "gw1"}
    assert {i.serial.split("@")[0] for i in intervals} <= set(serials)
    assert len(list((tmp_path / "runs").iterdir())) == 4


def test_a_serial_that_is_not_connected_is_refused_with_the_connected_ones(
    tmp_path: Path, two_phones: tuple[adbkit.AdbServer, list[str]]
) -> None:
    server, serials = two_phones
    done = _pytest(tmp_path, "--fsm-devices", f"{serials[0]},127.0.0.1:1", "--fsm-pool-server",
                   f"127.0.0.1:{server.port}")
    assert done.returncode == 4, done.stdout + done.stderr
    assert "127.0.0.1:1" in done.stderr and f"{serials[0]} (device)" in done.stderr
