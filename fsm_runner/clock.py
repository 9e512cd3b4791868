"""Time for the engine: an injectable clock, so budgets are testable in milliseconds.

The engine never calls ``time`` or ``asyncio.sleep`` directly; it asks its
clock. ``SystemClock`` is real time. ``FakeClock`` is virtual time that jumps
to the next sleeper whenever every task is waiting, so a test of a 60-second
timeout takes microseconds and never races.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
import weakref
from collections.abc import Awaitable
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Clock(Protocol):
    def now(self) -> float:
        """Seconds on a monotonic scale."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` of this clock's time."""
        ...

    async def wait_for(self, work: Awaitable[T], timeout: float) -> T:
        """Await ``work`` for at most ``timeout`` seconds of this clock; TimeoutError after (work cancelled)."""
        ...


class SystemClock:
    """Real monotonic time."""

    def __init__(self) -> None:
        self._deadlines: weakref.WeakKeyDictionary[asyncio.Task[Any], _Deadline] = weakref.WeakKeyDictionary()

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))

    async def wait_for(self, work: Awaitable[T], timeout: float) -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        deadline = self._deadlines.get(task)
        if deadline is None:
            deadline = self._deadlines[task] = _Deadline(loop, task)
        if deadline.running:
            # Nested in another wait_for of this task: a timer of its own, so each level keeps its limit.
            return await _with_own_timer(loop, task, work, timeout)
        deadline.start(loop.time() + max(0.0, timeout))
        try:
            return await work
        except asyncio.CancelledError:
            if deadline.expired and task.uncancel() == 0:
                raise TimeoutError(f"no answer within {timeout:g} s") from None
            raise
        finally:
            deadline.stop()


class _Deadline:
    """One task's re-armable state deadline.

    Arming a fresh timer for every state's work and cancelling it after cost
    about a sixth of an engine step. Here one timer stays armed across works: a
    later deadline leaves it as it is (when it fires early it re-arms for the
    deadline then in force), and only an earlier deadline replaces it.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any]) -> None:
        self._loop = loop
        # Weak: a timer left armed after the run must not keep the finished task alive.
        self._task = weakref.ref(task)
        self._handle: asyncio.TimerHandle | None = None
        self._deadline: float | None = None
        self.expired = False

    @property
    def running(self) -> bool:
        return self._deadline is not None

    def start(self, deadline: float) -> None:
        self._deadline = deadline
        self.expired = False
        if self._handle is not None and self._handle.when() <= deadline:
            return
        if self._handle is not None:
            self._handle.cancel()
        self._handle = self._loop.call_at(deadline, self._fire)

    def stop(self) -> None:
        self._deadline = None

    def _fire(self) -> None:
        self._handle = None
        deadline = self._deadline
        if deadline is None:
            return  # between works: the next start arms a timer again
        if self._loop.time() < deadline:
            self._handle = self._loop.call_at(deadline, self._fire)
            return
        task = self._task()
        if task is not None and not task.done():
            self.expired = True
            task.cancel()


async def _with_own_timer(
    loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any], work: Awaitable[T], timeout: float
) -> T:
    expired = False

    def expire() -> None:
        nonlocal expired
        expired = True
        task.cancel()

    handle = loop.call_at(loop.time() + max(0.0, timeout), expire)
    try:
        return await work
    except asyncio.CancelledError:
        if expired and task.uncancel() == 0:
            raise TimeoutError(f"no answer within {timeout:g} s") from None
        raise
    finally:
        handle.cancel()


class FakeClock:
    """Virtual time for tests: ``sleep`` returns when virtual time reaches its deadline.

    When sleepers are pending, a background task lets every ready task run
    (several event-loop turns) and then jumps time to the earliest deadline.
    Work that really blocks (threads, sockets) does not advance this clock.
    """

    #: Event-loop turns granted to ready tasks before time jumps.
    SETTLE_TURNS = 20

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()
        self._jumper: asyncio.Task[None] | None = None

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        """Move time forward by hand and wake every sleeper that is due."""
        self._now += seconds
        self._wake_due()

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self._now + seconds, next(self._seq), future))
        if self._jumper is None or self._jumper.done():
            self._jumper = asyncio.create_task(self._autojump())
        await future

    def _wake_due(self) -> None:
        while self._sleepers and self._sleepers[0][0] <= self._now:
            _, _, future = heapq.heappop(self._sleepers)
            if not future.done():
                future.set_result(None)

    async def wait_for(self, work: Awaitable[T], timeout: float) -> T:
        return await race(self, work, timeout)

    async def _autojump(self) -> None:
        loop = asyncio.get_running_loop()
        while self._sleepers:
            await _until_idle(loop, self.SETTLE_TURNS)
            while self._sleepers and self._sleepers[0][2].done():
                heapq.heappop(self._sleepers)
            if not self._sleepers:
                return
            self._now = max(self._now, self._sleepers[0][0])
            self._wake_due()


async def _until_idle(loop: asyncio.AbstractEventLoop, turns: int) -> None:
    """Yield until no other callback is ready to run (or ``turns`` yields where that cannot be seen)."""
    ready = getattr(loop, "_ready", None)
    if ready is None:
        for _ in range(turns):
            await asyncio.sleep(0)
        return
    await asyncio.sleep(0)
    # Bounded: two fake clocks in one loop would otherwise keep each other's queue busy for ever.
    for _ in range(turns * 50):
        if len(ready) == 0:
            break
        await asyncio.sleep(0)


async def race(clock: Clock, work: Awaitable[T], timeout: float) -> T:
    """Await ``work`` against ``clock.sleep(timeout)``; raise TimeoutError if the sleep wins.

    The work is cancelled on timeout. Work running in a thread cannot be
    stopped; its result is simply ignored.
    """
    task = asyncio.ensure_future(work)
    timer = asyncio.ensure_future(clock.sleep(timeout))
    try:
        done, _ = await asyncio.wait({task, timer}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        task.cancel()
        timer.cancel()
        raise
    if task in done:
        timer.cancel()
        return task.result()
    task.cancel()
    # Let the cancellation land so nothing is left running behind the caller's back.
    await asyncio.wait({task})
    raise TimeoutError(f"no answer within {timeout:g} s")
