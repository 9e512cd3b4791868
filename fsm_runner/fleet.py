"""The devices a ``--devices`` option names, opened as pool slots.

``--devices`` takes ``sim:N`` (N in-process simulated phones), ``sim-adb:N`` (N simulated phones, each behind
its own emulated adb daemon, all connected to one private real adb server) or ``SERIAL,SERIAL,...`` (devices
on an adb server: ``--adb-server HOST:PORT``, by default ``127.0.0.1:5037``; a group on another host's server
carries it as a prefix, ``HOST:PORT/SERIAL,SERIAL``). Serials are checked against their server before
anything runs; a duplicate, an empty list or a serial that is not connected is refused with the list of
connected devices.

Simulated slots give every lease a freshly booted phone, the stand-in for resetting a real device between
machines; real devices are leased as they are.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Sequence

import attrs

from adapters.adb import DEFAULT_SERVER, AdbDevice, ServerAddress, open_transport
from adapters.base import Device
from adapters.errors import DeviceError
from adapters.sim import SimDevice, SimPhone
from adapters.sim.device import NO_LATENCY, Latency
from adapters.sim.faults import Faults
from adapters.sim.serve import DaemonLoop, SimDaemon
from fsm_runner.errors import ConfigurationError, DefinitionError, FsmRunnerError
from fsm_runner.pool import DeviceSlot
from fsm_runner.sim_adb import PrivateAdbServer

SIM_PREFIX = "sim:"
SIM_ADB_PREFIX = "sim-adb:"
_FIX = "write --devices sim:N, sim-adb:N or SERIAL,SERIAL,... (see fsm-runner devices)"


@attrs.frozen
class DeviceGroup:
    """One ``--devices`` value and the adb server it lives on (None: the default server)."""

    devices: str
    server: str | None = None


@attrs.frozen
class SimSettings:
    """How simulated phones are made: language, fault seed, latencies and faults."""

    locale: str = "en"
    seed: int = 0
    latency: Latency = NO_LATENCY
    faults: Faults = Faults()


def sim_count(text: str, prefix: str) -> int:
    """N from ``PREFIX N``; DefinitionError when N is not a positive whole number."""
    count = text[len(prefix):].strip()
    if not count.isdigit() or int(count) <= 0:
        raise DefinitionError(f"{text!r} needs a positive number of devices", field="--devices", fix=_FIX)
    return int(count)


def listed_serials(text: str, connected: Callable[[], str] | None = None) -> tuple[str, ...]:
    """The serials of ``SERIAL,SERIAL,...``; DefinitionError for an empty list or a repeated serial.

    ``connected`` (asked only on error) describes the devices that are connected, for the message.
    """
    serials = tuple(s.strip() for s in text.split(",") if s.strip())
    repeated = sorted({s for s in serials if serials.count(s) > 1})
    if serials and not repeated:
        return serials
    problem = f"--devices lists {', '.join(repeated)} more than once" if serials else "--devices names no device"
    if connected is not None:
        problem = f"{problem}; {connected()}"
    raise DefinitionError(problem, field="--devices", fix="name each connected device once" if serials else _FIX)


class SimSlot:
    """An in-process simulated phone; each lease boots a fresh one (``phones`` keeps them all)."""

    def __init__(self, serial: str, settings: SimSettings) -> None:
        self._serial = serial
        self.settings = settings
        #: Faults of the phones booted from now on (a test may take the slot offline with them).
        self.faults = settings.faults
        self.phones: list[SimPhone] = []

    @property
    def serial(self) -> str:
        return self._serial

    def boot(self, locale: str | None = None) -> SimPhone:
        """A fresh phone for this slot with the slot's current faults, in ``locale`` (default: the settings')."""
        phone = SimPhone(serial=self._serial, locale=locale or self.settings.locale, faults=self.faults,
                         seed=self.settings.seed + len(self.phones))
        self.phones.append(phone)
        return phone

    async def open(self, locale: str | None = None) -> Device:
        return SimDevice(self.boot(locale), latency=self.settings.latency)

    async def release(self, device: Device) -> None:
        await device.close()

    async def close(self) -> None:
        return None


class PhoneAdbDevice(AdbDevice):
    """An :class:`AdbDevice` whose phone is simulated; ``phone`` lets outcome checks read the app's state."""

    def __init__(self, serial: str, server: str, phone: SimPhone) -> None:
        super().__init__(serial, server=server)
        self.phone = phone


class SimAdbSlot:
    """A simulated phone behind an emulated adb daemon; each lease boots a fresh phone into the daemon."""

    def __init__(self, daemon: SimDaemon, server: str, settings: SimSettings) -> None:
        self.daemon = daemon
        self.server = server
        self.settings = settings
        self.faults = settings.faults
        self.phones: list[SimPhone] = []

    @property
    def serial(self) -> str:
        return self.daemon.address

    async def open(self, locale: str | None = None) -> Device:
        phone = SimPhone(serial=self.serial, locale=locale or self.settings.locale, faults=self.faults,
                         seed=self.settings.seed + len(self.phones), adb_keyboard=True)
        self.phones.append(phone)
        # The daemon reads its phone for every command, so the next connection reaches the new one.
        self.daemon.daemon.phone = phone
        return PhoneAdbDevice(self.serial, self.server, phone)

    async def release(self, device: Device) -> None:
        await device.close()

    async def close(self) -> None:
        self.daemon.stop()


class AdbSlot:
    """A device on an adb server, leased as it is; ``serial`` is ``SERIAL@HOST:PORT`` for a named server."""

    def __init__(self, serial: str, server: str | None) -> None:
        self.device_serial = serial
        self.server = server or DEFAULT_SERVER
        self._key = f"{serial}@{server}" if server else serial

    @property
    def serial(self) -> str:
        return self._key

    async def open(self, locale: str | None = None) -> Device:
        return AdbDevice(self.device_serial, server=self.server)

    async def release(self, device: Device) -> None:
        await device.close()

    async def close(self) -> None:
        return None


class Fleet:
    """The slots ``--devices`` named and what keeps them running; ``close()`` takes it all down."""

    def __init__(self) -> None:
        self.slots: list[DeviceSlot] = []
        self._servers: list[PrivateAdbServer] = []
        self._loops: list[DaemonLoop] = []

    def close(self) -> None:
        """Stop every daemon and private adb server this fleet started; safe to call twice."""
        for server in self._servers:
            server.stop()
        for loop in self._loops:
            loop.close()
        self._servers.clear()
        self._loops.clear()

    def _add_sim(self, count: int, settings: SimSettings) -> None:
        first = sum(1 for s in self.slots if isinstance(s, SimSlot))
        self.slots.extend(SimSlot(f"sim-{first + i}", settings) for i in range(count))

    def _add_sim_adb(self, count: int, settings: SimSettings) -> None:
        loop = DaemonLoop()
        self._loops.append(loop)
        server = PrivateAdbServer()
        self._servers.append(server)
        for _ in range(count):
            phone = SimPhone(serial="booting", locale=settings.locale, adb_keyboard=True)
            daemon = loop.serve(phone, port=0)
            server.connect(daemon.address)
            self.slots.append(SimAdbSlot(daemon, server.address, settings))

    def _add_serials(self, serials: tuple[str, ...], server: str | None) -> None:
        connected = connected_devices(server or DEFAULT_SERVER)
        missing = [s for s in serials if connected.get(s) != "device"]
        if missing:
            listed = ", ".join(f"{s} ({state})" for s, state in sorted(connected.items())) or "none"
            raise ConfigurationError(
                f"--devices names {', '.join(missing)}, not connected and ready on the adb server at "
                f"{server or DEFAULT_SERVER}; connected: {listed}; pick from those or connect it (adb connect)"
            )
        self.slots.extend(AdbSlot(s, server) for s in serials)


def connected_devices(server: str) -> dict[str, str]:
    """Serial -> state of every device the adb server at ``server`` knows (``AdbServerError`` if it is down)."""
    try:
        address = ServerAddress.parse(server)
    except ValueError as err:
        raise ConfigurationError(f"--adb-server {server!r}: {err}") from err
    transport = open_transport("adbutils", address)
    try:
        return {entry.serial: entry.state for entry in transport.devices()}
    finally:
        transport.close()


def parse_group(text: str, server: str | None = None) -> DeviceGroup:
    """One ``--devices`` value; a ``HOST:PORT/`` prefix names its adb server (else ``server``)."""
    head, sep, rest = text.partition("/")
    if sep and ":" in head:
        return DeviceGroup(rest, head)
    return DeviceGroup(text, server)


def _connected_text(server: str | None) -> str:
    """``connected: SERIAL (state), ...`` on ``server``, or why it cannot be listed."""
    address = server or DEFAULT_SERVER
    try:
        connected = connected_devices(address)
    except (DeviceError, FsmRunnerError) as err:
        return f"cannot list the connected devices: {err}"
    listed = ", ".join(f"{s} ({state})" for s, state in sorted(connected.items())) or "none"
    return f"connected to {address}: {listed}"


def open_fleet(groups: Sequence[DeviceGroup], settings: SimSettings = SimSettings()) -> Fleet:
    """Open every group's devices; refuses bad input before starting anything long-lived where it can.

    Raises DefinitionError (malformed list), ConfigurationError (serial not connected, repeated across
    groups) or an adapters ``EnvironmentFault`` (an adb server that is not there).
    """
    if not groups:
        raise DefinitionError("no devices given", field="--devices", fix=_FIX)
    plans: list[tuple[str, int, tuple[str, ...], str | None]] = []
    for group in groups:
        text = group.devices.strip()
        if text.startswith(SIM_ADB_PREFIX):
            plans.append(("sim-adb", sim_count(text, SIM_ADB_PREFIX), (), None))
        elif text.startswith(SIM_PREFIX):
            plans.append(("sim", sim_count(text, SIM_PREFIX), (), None))
        else:
            connected = functools.partial(_connected_text, group.server)
            plans.append(("adb", 0, listed_serials(text, connected), group.server))
    fleet = Fleet()
    try:
        for kind, count, serials, server in plans:
            if kind == "sim":
                fleet._add_sim(count, settings)
            elif kind == "sim-adb":
                fleet._add_sim_adb(count, settings)
            else:
                fleet._add_serials(serials, server)
        keys = [slot.serial for slot in fleet.slots]
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        if repeated:
            raise ConfigurationError(f"--devices names {', '.join(repeated)} in more than one group")
    except BaseException:
        with contextlib.suppress(DeviceError):
            fleet.close()
        raise
    return fleet
