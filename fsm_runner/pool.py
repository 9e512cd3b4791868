"""A pool of devices handed out as exclusive leases, each after a health check.

A *slot* is one physical (or simulated) device; a lease opens a :class:`~adapters.base.Device` on it for
one machine and gives the slot back afterwards. At most one lease per slot exists at a time in this
process, and, with a :class:`~fsm_runner.leases.LeaseFile`, across every process sharing that file. A slot
that fails its health check (offline, gone from its adb server, not answering) is retired: it is never
leased again and the reason is kept for the summary.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Protocol

import attrs

from adapters.base import Device
from adapters.errors import DeviceError
from fsm_runner.errors import ConfigurationError, FsmRunnerError
from fsm_runner.leases import Lease, LeaseFile

#: Answers None for a healthy device, else the reason it cannot be used.
HealthCheck = Callable[[Device], Awaitable[str | None]]

_PROBE = "getprop ro.product.model"


class PoolExhaustedError(FsmRunnerError):
    """No device can be leased: every slot is retired, or none came free in time; ``retired`` says why."""

    def __init__(self, message: str, *, retired: dict[str, str]) -> None:
        super().__init__(message)
        self.retired = dict(retired)


class DeviceSlot(Protocol):
    """One device of a pool.

    ``open(locale)`` returns a device ready for one lease (a slot may reset or re-create it each time; a
    simulated one boots its phone in ``locale``, which real devices ignore);
    ``release(device)`` is called when that lease ends; ``close()`` once when the pool is closed.
    """

    @property
    def serial(self) -> str: ...

    async def open(self, locale: str | None = None) -> Device: ...

    async def release(self, device: Device) -> None: ...

    async def close(self) -> None: ...


@attrs.frozen
class LeaseSpan:
    """One lease as this process saw it, on the monotonic clock: which slot, for what, from when to when."""

    serial: str
    note: str
    start: float
    end: float


@attrs.frozen
class Leased:
    """What a lease hands out: the open device and the serial of its slot."""

    serial: str
    device: Device


async def probe_health(device: Device, *, timeout: float = 10.0) -> str | None:
    """A cheap shell command that needs the device itself to answer; None when it does."""
    try:
        result = await asyncio.wait_for(device.shell(_PROBE, timeout=timeout), timeout)
    except TimeoutError:
        return f"did not answer a health check within {timeout:g} s"
    except DeviceError as err:
        return f"failed its health check: {err}"
    if not result.ok:
        return f"failed its health check: {_PROBE!r} exited {result.exit_code}: {result.output.strip()[:200]}"
    return None


class DevicePool:
    """Exclusive, health-checked leases over ``slots``; use as ``async with pool.lease(note) as leased``.

    ``lease_file`` makes leases exclusive across processes too; ``wait_s`` bounds how long a lease
    waits for a slot held elsewhere before :class:`PoolExhaustedError`.
    """

    def __init__(
        self,
        slots: Sequence[DeviceSlot],
        *,
        lease_file: LeaseFile | None = None,
        health: HealthCheck = probe_health,
        wait_s: float = 600.0,
    ) -> None:
        serials = [slot.serial for slot in slots]
        if not serials:
            raise ConfigurationError("a device pool needs at least one device")
        repeated = sorted({s for s in serials if serials.count(s) > 1})
        if repeated:
            raise ConfigurationError(f"a device pool lists {', '.join(repeated)} more than once")
        self._slots = {slot.serial: slot for slot in slots}
        self._lease_file = lease_file
        self._health = health
        self._wait_s = wait_s
        self._busy: set[str] = set()
        self.retired: dict[str, str] = {}
        self.spans: list[LeaseSpan] = []
        self._changed: asyncio.Condition | None = None
        self._closed = False

    @property
    def serials(self) -> tuple[str, ...]:
        """Every slot, retired ones included, in the order given."""
        return tuple(self._slots)

    @property
    def live(self) -> tuple[str, ...]:
        """Slots that may still be leased."""
        return tuple(s for s in self._slots if s not in self.retired)

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed

    def _exhausted(self) -> PoolExhaustedError:
        reasons = "; ".join(f"{serial}: {why}" for serial, why in self.retired.items())
        return PoolExhaustedError(f"every device of the pool was taken out ({reasons})", retired=self.retired)

    async def _claim(self, note: str) -> tuple[str, Lease | None]:
        """A slot free here and, with a lease file, leased there too."""
        changed = self._condition()
        deadline = time.monotonic() + self._wait_s
        while True:
            async with changed:
                while True:
                    if self._closed:
                        raise PoolExhaustedError("the device pool was closed", retired=self.retired)
                    if not self.live:
                        raise self._exhausted()
                    free = [s for s in self.live if s not in self._busy]
                    if free:
                        break
                    await changed.wait()
                if self._lease_file is None:
                    self._busy.add(free[0])
                    return free[0], None
                lease = await asyncio.to_thread(self._lease_file.try_acquire, free, note=note)
                if lease is not None:
                    self._busy.add(lease.serial)
                    return lease.serial, lease
            if time.monotonic() >= deadline:
                raise PoolExhaustedError(
                    f"no device of {', '.join(self.live)} came free within {self._wait_s:g} s; other processes "
                    f"hold them in {self._lease_file.path}", retired=self.retired)
            # Held by other processes: they do not notify us, so look again shortly.
            await asyncio.sleep(0.05)

    async def _free(self, serial: str, lease: Lease | None, note: str) -> None:
        if lease is not None and self._lease_file is not None:
            await asyncio.to_thread(self._lease_file.release, lease, note=note)
        changed = self._condition()
        async with changed:
            self._busy.discard(serial)
            changed.notify_all()

    async def retire(self, serial: str, reason: str) -> None:
        """Take ``serial`` out of the pool for good (its current lease, if any, runs to its end)."""
        changed = self._condition()
        async with changed:
            self.retired.setdefault(serial, reason)
            changed.notify_all()

    async def check(self, leased: Leased) -> str | None:
        """Health-check a leased device now; retire its slot and return the reason when it fails."""
        reason = await self._health(leased.device)
        if reason is not None:
            await self.retire(leased.serial, reason)
        return reason

    @contextlib.asynccontextmanager
    async def lease(self, note: str = "", *, locale: str | None = None) -> AsyncIterator[Leased]:
        """Hold one healthy device for the body; unhealthy slots met on the way are retired and skipped.

        ``locale`` is the language a simulated phone is booted in for this lease.

        Raises :class:`PoolExhaustedError` when no slot is left (or none comes free within ``wait_s``).
        """
        while True:
            serial, file_lease = await self._claim(note)
            slot = self._slots[serial]
            start = time.monotonic()
            try:
                device = await slot.open(locale)
            except DeviceError as err:
                await self.retire(serial, f"could not be opened: {err}")
                await self._free(serial, file_lease, "retired")
                continue
            leased = Leased(serial, device)
            if await self.check(leased) is not None:
                with contextlib.suppress(DeviceError):
                    await slot.release(device)
                await self._free(serial, file_lease, "retired")
                continue
            break
        try:
            yield leased
        finally:
            try:
                with contextlib.suppress(DeviceError):
                    await slot.release(device)
            finally:
                self.spans.append(LeaseSpan(serial, note, start, time.monotonic()))
                await self._free(serial, file_lease, note)

    async def close(self) -> None:
        """Close every slot; the pool cannot lease afterwards."""
        self._closed = True
        for slot in self._slots.values():
            with contextlib.suppress(DeviceError):
                await slot.close()
