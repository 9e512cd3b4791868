"""Round-trip latency of the emulated adb daemon, beside the adb client's and server's own cost.

Starts a private adb server and one simulated phone behind an emulated daemon, then times, with
two clients (a bare socket speaking the adb server's smart-socket protocol, and adbutils):
``host:version`` (client + server only, no device), ``shell:echo hi`` and a hierarchy dump
through the server; the same two requests sent straight to the daemon by a bare transport client;
and ``SimPhone.ui_dump()`` in-process (the phone's own cost, which no transport can remove).
Prints a table and one ``RESULT`` line. ``daemon_overhead_ms`` is what ``echo hi`` through the
server costs beyond ``host:version`` with the bare client: the daemon plus the server's device
hop (target: under 1 ms).

Usage: python scripts/bench_sim.py [--rounds N]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import adbutils

from adapters.sim import SimPhone
from tests.adbkit import ManualClock, RawAdbConnection, connect, serve_sim, start_adb_server

PKG = "com.example.demoshop"


def timed(call: Callable[[], object], rounds: int, warmup: int = 5) -> list[float]:
    """Milliseconds per call, after a few untimed warm-up calls."""
    for _ in range(warmup):
        call()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1000.0)
    return samples


class BareServerClient:
    """The adb server's smart-socket protocol on a fresh socket per request, with no library around it."""

    def __init__(self, port: int) -> None:
        self.port = port

    def _open(self) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    @staticmethod
    def _request(sock: socket.socket, text: str) -> None:
        sock.sendall(f"{len(text):04x}{text}".encode())
        status = sock.recv(4)
        if status != b"OKAY":
            raise RuntimeError(f"adb server refused {text!r}: {status!r}")

    def host_version(self) -> bytes:
        with self._open() as sock:
            self._request(sock, "host:version")
            return sock.recv(int(sock.recv(4), 16))

    def shell(self, serial: str, command: str) -> bytes:
        with self._open() as sock:
            self._request(sock, f"host:transport:{serial}")
            self._request(sock, f"shell:{command}")
            out = b""
            while chunk := sock.recv(1 << 20):
                out += chunk
            return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200, help="timed calls per small request (default 200)")
    args = parser.parse_args()
    dump_rounds = max(10, args.rounds // 4)

    clock = ManualClock()
    phone = SimPhone(now=clock)
    phone.start_activity(PKG)
    clock.advance(1.1)
    server = start_adb_server()
    daemon = serve_sim(phone)
    raw = RawAdbConnection(daemon.port)
    try:
        serial = connect(server, daemon)
        bare = BareServerClient(server.port)
        device = adbutils.AdbClient(host="127.0.0.1", port=server.port).device(serial)
        raw.handshake(version=0x01000001, max_payload=1024 * 1024)
        stream_ids = iter(range(1, 1_000_000))
        dump = "uiautomator dump /dev/tty"
        rows = {
            "host:version, bare client": timed(bare.host_version, args.rounds),
            "echo hi via server, bare client": timed(lambda: bare.shell(serial, "echo hi"), args.rounds),
            "echo hi straight to daemon": timed(lambda: raw.run_service("shell:echo hi", next(stream_ids)),
                                                args.rounds),
            "host:version, adbutils": timed(adbutils.AdbClient(host="127.0.0.1", port=server.port).server_version,
                                            args.rounds),
            "echo hi via server, adbutils": timed(lambda: device.shell("echo hi"), args.rounds),
            "SimPhone.ui_dump() in-process": timed(phone.ui_dump, dump_rounds),
            "dump via server, bare client": timed(lambda: bare.shell(serial, dump), dump_rounds),
            "dump straight to daemon": timed(lambda: raw.run_service(f"shell:{dump}", next(stream_ids)),
                                             dump_rounds),
            "dump via server, adbutils": timed(lambda: device.shell(dump), dump_rounds),
        }
    finally:
        raw.close()
        daemon.stop()
        server.stop()

    median = {name: statistics.median(samples) for name, samples in rows.items()}
    print(f"{'request':<34} {'median ms':>10} {'p90 ms':>10} {'n':>5}")
    for name, samples in rows.items():
        p90 = statistics.quantiles(samples, n=10)[-1]
        print(f"{name:<34} {median[name]:>10.3f} {p90:>10.3f} {len(samples):>5}")
    overhead = median["echo hi via server, bare client"] - median["host:version, bare client"]
    in_process = median["SimPhone.ui_dump() in-process"]
    dump_overhead = median["dump via server, bare client"] - median["host:version, bare client"] - in_process
    print(f"RESULT daemon_overhead_ms={overhead:.3f} echo_direct_ms={median['echo hi straight to daemon']:.3f} "
          f"dump_daemon_overhead_ms={dump_overhead:.3f} dump_inprocess_ms={in_process:.3f} "
          f"host_version_adbutils_ms={median['host:version, adbutils']:.3f} "
          f"echo_adbutils_ms={median['echo hi via server, adbutils']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
