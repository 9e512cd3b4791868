"""The daemon's transport, packet by packet: handshake, refusals, flow control, bad input, auth, offline."""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterator

import pytest
from structlog.testing import capture_logs

from adapters.sim import Faults, SimPhone
from adapters.sim.serve import SimDaemon
from tests.adbkit import (
    AUTH,
    CLSE,
    CNXN,
    OKAY,
    WRTE,
    AdbServer,
    ManualClock,
    RawAdbConnection,
    connect,
    disconnect,
    serve_sim,
)

pytestmark = pytest.mark.adb


@pytest.fixture
def raw(sim_daemon: SimDaemon) -> Iterator[RawAdbConnection]:
    conn = RawAdbConnection(sim_daemon.port)
    try:
        yield conn
    finally:
        conn.close()


def test_handshake_returns_the_device_banner_with_features(raw: RawAdbConnection) -> None:
    banner = raw.handshake().decode()
    assert banner.startswith("device::ro.product.name=simphone;ro.product.model=SimPhone 7;")
    features = banner.split("features=", 1)[1].split(",")
    assert {"shell_v2", "cmd", "stat_v2"} <= set(features)
    assert "delayed_ack" not in features


def test_unknown_service_is_refused_with_clse(raw: RawAdbConnection) -> None:
    raw.handshake()
    reply, _ = raw.run_service("jdwp:1234", local_id=7)
    assert reply == CLSE
    assert raw.run_service("shell:echo ok", local_id=8) == (OKAY, b"ok\n")


def test_exec_and_raw_shell_merge_stderr_into_the_stream(raw: RawAdbConnection) -> None:
    raw.handshake()
    assert raw.run_service("exec:echo out; nope") == (OKAY, b"out\n/system/bin/sh: nope: not found\n")


def test_shell_v2_frames_stdout_stderr_and_exit(raw: RawAdbConnection) -> None:
    raw.handshake()
    _, data = raw.run_service("shell,v2,raw:echo hi; nope")
    packets = []
    while data:
        packet_id, length = struct.unpack_from("<BI", data)
        packets.append((packet_id, data[5:5 + length]))
        data = data[5 + length:]
    assert packets == [(1, b"hi\n"), (2, b"/system/bin/sh: nope: not found\n"), (3, bytes([127]))]


def test_one_write_is_outstanding_until_the_host_says_okay(raw: RawAdbConnection) -> None:
    raw.handshake(max_payload=4096)
    raw.send(0x4E45504F, 5, 0, b"exec:screencap -p\0")
    assert raw.receive()[0] == OKAY
    command, remote, _, first = raw.receive()
    assert (command, len(first)) == (WRTE, 4096)
    raw.sock.settimeout(0.3)
    with pytest.raises(socket.timeout):
        raw.receive()
    raw.sock.settimeout(5.0)
    raw.send(OKAY, 5, remote)
    command, _, _, second = raw.receive()
    assert command == WRTE and len(second) == 4096
    raw.send(CLSE, 5, remote)
    while (packet := raw.receive())[0] != CLSE:
        assert packet[0] == WRTE
    assert packet[1:3] == (remote, 5)


def test_a_malformed_packet_closes_only_its_own_connection(sim_daemon: SimDaemon) -> None:
    bad = RawAdbConnection(sim_daemon.port)
    good = RawAdbConnection(sim_daemon.port)
    try:
        good.handshake()
        bad.handshake()
        bad.sock.sendall(b"\xde\xad\xbe\xef" * 6)
        with pytest.raises((EOFError, ConnectionResetError)):
            bad.receive()
        assert good.run_service("shell:echo alive") == (OKAY, b"alive\n")
        third = RawAdbConnection(sim_daemon.port)
        assert third.handshake().startswith(b"device::")
        third.close()
    finally:
        bad.close()
        good.close()


def test_a_wrong_checksum_from_an_old_host_closes_the_connection(raw: RawAdbConnection) -> None:
    raw.handshake(version=0x01000000)
    data = b"shell:echo x\0"
    header = struct.pack("<6I", 0x4E45504F, 1, 0, len(data), (sum(data) + 1) & 0xFFFFFFFF, 0x4E45504F ^ 0xFFFFFFFF)
    raw.sock.sendall(header + data)
    with pytest.raises((EOFError, ConnectionResetError)):
        raw.receive()


def test_the_daemon_checksums_for_old_hosts_and_not_for_new_ones(sim_daemon: SimDaemon) -> None:
    for version, expect_checksum in ((0x01000000, True), (0x01000001, False)):
        conn = RawAdbConnection(sim_daemon.port)
        conn.send(CNXN, version, 4096, b"host::\0")
        header = conn._exactly(24)
        _, _, _, length, check, _ = struct.unpack("<6I", header)
        payload = conn._exactly(length)
        assert check == (sum(payload) if expect_checksum else 0)
        conn.close()


def test_auth_trusts_an_offered_key_then_accepts_its_signatures(adb_server: AdbServer) -> None:
    phone = SimPhone()
    daemon = serve_sim(phone, auth=True)
    try:
        serial = connect(adb_server, daemon)
        assert len(daemon.daemon.trusted_keys) == 1
        disconnect(adb_server, serial)
        serial = connect(adb_server, daemon)
        assert adb_server.run("-s", serial, "shell", "echo signed").stdout == b"signed\n"
        assert daemon.daemon.auth_history == ["public_key", "signature"]
        disconnect(adb_server, serial)
    finally:
        daemon.stop()


def test_auth_answers_a_bad_signature_with_a_new_token(sim_phone: SimPhone) -> None:
    daemon = serve_sim(sim_phone, auth=True)
    conn = RawAdbConnection(daemon.port)
    try:
        conn.send(CNXN, 0x01000001, 4096, b"host::\0")
        command, kind, _, first_token = conn.receive()
        assert (command, kind, len(first_token)) == (AUTH, 1, 20)
        conn.send(AUTH, 2, 0, b"\x00" * 256)
        command, kind, _, second_token = conn.receive()
        assert (command, kind) == (AUTH, 1)
        assert second_token != first_token
    finally:
        conn.close()
        daemon.stop()


def test_an_offline_phone_drops_connections_and_refuses_new_ones_until_back(phone_clock: ManualClock) -> None:
    phone = SimPhone(now=phone_clock, faults=Faults(offline_after_s=10.0, offline_for_s=5.0))
    daemon = serve_sim(phone)
    connections: list[RawAdbConnection] = []
    try:
        before = RawAdbConnection(daemon.port)
        connections.append(before)
        before.handshake()
        phone_clock.advance(11.0)
        with pytest.raises((EOFError, ConnectionResetError)):
            before.receive()
        refused = RawAdbConnection(daemon.port)
        connections.append(refused)
        with pytest.raises((EOFError, ConnectionResetError)):
            refused.handshake()
        phone_clock.advance(5.0)
        after = RawAdbConnection(daemon.port)
        connections.append(after)
        after.handshake()
        assert after.run_service("shell:echo back") == (OKAY, b"back\n")
    finally:
        for conn in connections:
            conn.close()
        daemon.stop()


class BrokenCameraPhone(SimPhone):
    """A phone whose screenshot code has a bug."""

    def screencap_png(self) -> bytes:
        raise RuntimeError("renderer exploded")


def test_a_failing_service_closes_its_stream_and_the_connection_stays_usable() -> None:
    daemon = serve_sim(BrokenCameraPhone())
    conn = RawAdbConnection(daemon.port)
    try:
        conn.handshake()
        with capture_logs() as logs:
            assert conn.run_service("exec:screencap -p", local_id=3) == (OKAY, b"")
        assert conn.run_service("shell:echo ok", local_id=4) == (OKAY, b"ok\n")
        assert [(log["event"], log["error"]) for log in logs] == [
            ("adbd.service_failed", "RuntimeError: renderer exploded")]
    finally:
        conn.close()
        daemon.stop()
