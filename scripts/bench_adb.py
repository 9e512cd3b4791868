"""Per-call cost of the adb driver on each transport, side by side, and what adbutils' close sleep costs.

Starts a private adb server (the binary in the adbutils wheel) and one simulated phone behind an
emulated daemon, then runs the same ``echo hi`` shell N times (default 200) through:

- stock adbutils (``AdbClient().device(serial).shell2(..., v2=True)``): every call opens two
  connections (``host:version`` first, because it addresses the device by serial, then
  ``shell,v2:``) and ``AdbConnection.close()`` sleeps 10 ms after a half-close on each;
- the driver's adbutils transport: the same adbutils code, with connections that close at once
  (the reply was read to the end, so nothing can be lost) and the server version asked once;
- the driver's ppadb transport: ``shell:`` plus an exit-status marker, sockets closed with SO_LINGER 0;
- ``AdbDevice.shell`` on each transport: the above plus the worker-thread hop of the async API.

Also times ``host:version`` alone with a stock and a prompt adbutils connection: the difference is
the close sleep. Ends with one line ``RESULT adbutils_call_ms=X ppadb_call_ms=X`` (mean
milliseconds per ``AdbDevice.shell`` call on each transport).

Usage: python scripts/bench_adb.py [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import adbutils

from adapters.adb import AdbDevice, ServerAddress
from adapters.adb.adbutils_transport import AdbutilsTransport, PromptClient
from adapters.adb.ppadb_transport import PpadbTransport
from adapters.sim import SimPhone
from tests.adbkit import connect, disconnect, serve_sim, start_adb_server


def timed(call: Callable[[], object], calls: int, warmup: int = 10) -> list[float]:
    """Milliseconds per call, after a few untimed warm-up calls."""
    for _ in range(warmup):
        call()
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1000.0)
    return samples


def host_version(client: adbutils.AdbClient) -> None:
    with client.make_connection() as conn:
        conn.send_command("host:version")
        conn.check_okay()
        conn.read_string_block()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200, help="calls per measurement (default 200)")
    args = parser.parse_args()

    server = start_adb_server()
    daemon = serve_sim(SimPhone())
    try:
        serial = connect(server, daemon)
        address = ServerAddress("127.0.0.1", server.port)
        stock = adbutils.AdbClient(host="127.0.0.1", port=server.port)
        stock_device = stock.device(serial)
        adbutils_transport = AdbutilsTransport(address)
        ppadb_transport = PpadbTransport(address)
        devices = {name: AdbDevice(serial, transport=name, server=str(address)) for name in ("adbutils", "ppadb")}

        async def driver_shell(device: AdbDevice) -> list[float]:
            await device.shell("echo hi")
            samples = []
            for _ in range(args.calls):
                start = time.perf_counter()
                await device.shell("echo hi")
                samples.append((time.perf_counter() - start) * 1000.0)
            return samples

        prompt = PromptClient("127.0.0.1", server.port)
        rows: list[tuple[str, list[float]]] = [
            ("host:version, stock adbutils connection", timed(lambda: host_version(stock), args.calls)),
            (
                "host:version, driver's prompt connection",
                timed(lambda: host_version(prompt), args.calls),
            ),
            (
                "echo hi, stock adbutils shell2(v2=True)",
                timed(lambda: stock_device.shell2("echo hi", v2=True), args.calls),
            ),
            (
                "echo hi, driver adbutils transport",
                timed(lambda: adbutils_transport.shell(serial, "echo hi", 20.0), args.calls),
            ),
            (
                "echo hi, driver ppadb transport",
                timed(lambda: ppadb_transport.shell(serial, "echo hi", 20.0), args.calls),
            ),
        ]
        driver = {name: asyncio.run(driver_shell(device)) for name, device in devices.items()}
        rows += [(f"echo hi, AdbDevice.shell ({name})", samples) for name, samples in driver.items()]

        print(f"{args.calls} calls each, same simulated phone, same adb server (127.0.0.1:{server.port})")
        print(f"{'measurement':<44} {'mean ms':>8} {'median':>8} {'p95':>8}")
        for label, samples in rows:
            p95 = sorted(samples)[int(len(samples) * 0.95) - 1]
            print(f"{label:<44} {statistics.mean(samples):8.2f} {statistics.median(samples):8.2f} {p95:8.2f}")
        sleep_ms = statistics.mean(rows[0][1]) - statistics.mean(rows[1][1])
        print(
            f"adbutils' close sleep costs {sleep_ms:.1f} ms per connection; stock adbutils opens two "
            "connections per shell call, the driver one, and closes it without sleeping."
        )
        print(
            f"RESULT adbutils_call_ms={statistics.mean(driver['adbutils']):.2f} "
            f"ppadb_call_ms={statistics.mean(driver['ppadb']):.2f}"
        )
    finally:
        disconnect(server, daemon.address)
        daemon.stop()
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
