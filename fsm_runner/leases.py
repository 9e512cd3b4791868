"""A lease file shared by processes (pytest-xdist workers, hosts on one shared filesystem) so that no device
is driven by two of them at once.

The file is an append-only log of JSON lines, one ``acquire`` or ``release`` record each, with the serial, the
owner (``host:pid:name``) and a wall-clock timestamp. Every read-modify-write happens under an exclusive
``flock`` on a sibling ``.lock`` file, so the log doubles as the record of who held which device when. A lease
whose owner is a process on this host that no longer exists is stale and may be taken over; owners on other
hosts are trusted until they release (or a human deletes the file).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import attrs

from fsm_runner.errors import ConfigurationError

#: Environment variable naming the lease file when no option does.
LEASE_FILE_VARIABLE = "FSM_RUNNER_LEASE_FILE"

# flock excludes other open file descriptions but two threads of one process could still interleave
# their own read-modify-write, so each path also gets a process-local lock.
_LOCAL_LOCKS: dict[str, threading.Lock] = {}
_LOCAL_LOCKS_GUARD = threading.Lock()


@attrs.frozen
class LeaseRecord:
    """One line of the lease log: ``op`` is ``acquire`` or ``release``; ``t`` is ``time.time()``."""

    op: str
    serial: str
    owner: str
    lease_id: str
    t: float
    host: str
    pid: int
    note: str = ""


@attrs.frozen
class Lease:
    """A device held through the lease file until :meth:`LeaseFile.release`."""

    serial: str
    owner: str
    lease_id: str
    acquired_at: float


@attrs.frozen
class HeldInterval:
    """How long one lease held its device: ``end`` is None while it is still held."""

    serial: str
    owner: str
    lease_id: str
    start: float
    end: float | None


def default_owner(name: str = "") -> str:
    """``host:pid`` (plus ``:name`` when given), what a process writes as the owner of its leases."""
    base = f"{socket.gethostname()}:{os.getpid()}"
    return f"{base}:{name}" if name else base


def _local_lock(path: Path) -> threading.Lock:
    key = str(path.resolve())
    with _LOCAL_LOCKS_GUARD:
        return _LOCAL_LOCKS.setdefault(key, threading.Lock())


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class LeaseFile:
    """Exclusive device leases recorded in ``path`` (created with its folder when missing).

    ``try_acquire`` and ``release`` are atomic across processes; ``acquire`` waits
    (asynchronously) until one of the wanted serials is free.
    """

    def __init__(self, path: str | Path, *, owner: str | None = None) -> None:
        self.path = Path(path)
        self.owner = owner or default_owner()
        self._host = socket.gethostname()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.touch(exist_ok=True)
        except OSError as err:
            raise ConfigurationError(
                f"cannot create the lease file {self.path}: {err.strerror or err}; pass a writable path "
                f"(--lease-file or {LEASE_FILE_VARIABLE})"
            ) from err
        self._lock_path = self.path.with_name(self.path.name + ".lock")

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with _local_lock(self.path), self._lock_path.open("a") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def records(self) -> list[LeaseRecord]:
        """Every record in the log, oldest first (lines that do not parse are skipped)."""
        records: list[LeaseRecord] = []
        with self.path.open(encoding="utf-8") as handle:
            for line in handle:
                with contextlib.suppress(ValueError, TypeError, KeyError):
                    data = json.loads(line)
                    records.append(LeaseRecord(**data))
        return records

    def holders(self) -> dict[str, LeaseRecord]:
        """The live ``acquire`` record of each held serial (stale local owners left out)."""
        held: dict[str, LeaseRecord] = {}
        for record in self.records():
            if record.op == "acquire":
                held[record.serial] = record
            elif record.op == "release" and held.get(record.serial, record).lease_id == record.lease_id:
                held.pop(record.serial, None)
        return {serial: r for serial, r in held.items() if r.host != self._host or _pid_alive(r.pid)}

    def _append(self, record: LeaseRecord) -> None:
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(attrs.asdict(record), ensure_ascii=False) + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    def try_acquire(self, serials: Sequence[str], *, note: str = "") -> Lease | None:
        """Lease the first of ``serials`` nobody holds, or None when all are held."""
        with self._locked():
            held = self.holders()
            for serial in serials:
                if serial in held:
                    continue
                record = LeaseRecord("acquire", serial, self.owner, uuid.uuid4().hex[:12], time.time(), self._host,
                                     os.getpid(), note)
                self._append(record)
                return Lease(serial, self.owner, record.lease_id, record.t)
        return None

    async def acquire(self, serials: Sequence[str], *, timeout: float, poll_s: float = 0.05,
                      note: str = "") -> Lease | None:
        """Wait up to ``timeout`` seconds for one of ``serials``; None when none came free in time."""
        deadline = time.monotonic() + timeout
        delay = poll_s
        while True:
            lease = await asyncio.to_thread(self.try_acquire, serials, note=note)
            if lease is not None or time.monotonic() >= deadline:
                return lease
            await asyncio.sleep(min(delay, max(0.0, deadline - time.monotonic())))
            delay = min(delay * 2, 1.0)

    def release(self, lease: Lease, *, note: str = "") -> None:
        """Give the device back; releasing twice, or a lease taken over as stale, changes nothing."""
        with self._locked():
            current = self.holders().get(lease.serial)
            if current is None or current.lease_id != lease.lease_id:
                return
            self._append(LeaseRecord("release", lease.serial, lease.owner, lease.lease_id, time.time(),
                                     self._host, os.getpid(), note))


def held_intervals(records: Iterable[LeaseRecord]) -> list[HeldInterval]:
    """Pair each ``acquire`` with its ``release`` (by lease id), in acquisition order."""
    opened: dict[str, LeaseRecord] = {}
    intervals: dict[str, HeldInterval] = {}
    for record in records:
        if record.op == "acquire":
            opened[record.lease_id] = record
            intervals[record.lease_id] = HeldInterval(record.serial, record.owner, record.lease_id, record.t, None)
        elif record.op == "release" and record.lease_id in opened:
            intervals[record.lease_id] = attrs.evolve(intervals[record.lease_id], end=record.t)
    return list(intervals.values())


def overlapping(intervals: Iterable[HeldInterval]) -> list[tuple[HeldInterval, HeldInterval]]:
    """Pairs of leases that held the same serial at the same time (an open lease lasts for ever)."""
    clashes: list[tuple[HeldInterval, HeldInterval]] = []
    by_serial: dict[str, list[HeldInterval]] = {}
    for interval in intervals:
        by_serial.setdefault(interval.serial, []).append(interval)
    for group in by_serial.values():
        group.sort(key=lambda i: i.start)
        longest = group[0]
        for later in group[1:]:
            if longest.end is None or later.start < longest.end:
                clashes.append((longest, later))
            if longest.end is not None and (later.end is None or later.end > longest.end):
                longest = later
    return clashes
