"""SystemClock.wait_for: a state's deadline in real time, with one timer kept armed across states."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest

from fsm_runner.clock import SystemClock

T = TypeVar("T")
#: Every test is bounded by this, so a deadline that never fires fails the test instead of hanging it.
GUARD_S = 10.0


def run(body: Callable[[], Awaitable[T]]) -> T:
    async def guarded() -> T:
        task = asyncio.ensure_future(body())
        done, _ = await asyncio.wait({task}, timeout=GUARD_S)
        if not done:
            task.cancel()
            raise AssertionError(f"still running after {GUARD_S} s: a deadline never fired")
        return task.result()

    return asyncio.run(guarded())


async def answer(value: str, after: float = 0.0) -> str:
    await asyncio.sleep(after)
    return value


def test_work_that_finishes_in_time_returns_its_value() -> None:
    clock = SystemClock()

    async def body() -> list[str]:
        return [await clock.wait_for(answer(f"state {i}"), 60.0) for i in range(5)]

    assert run(body) == [f"state {i}" for i in range(5)]


def test_work_past_its_deadline_is_cancelled_and_raises_timeout() -> None:
    clock = SystemClock()
    cancelled: list[bool] = []

    async def stuck() -> str:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return "never"

    async def body() -> None:
        await clock.wait_for(stuck(), 0.05)

    with pytest.raises(TimeoutError):
        run(body)
    assert cancelled == [True]


def test_a_short_deadline_after_a_long_one_still_fires_on_time() -> None:
    clock = SystemClock()

    async def body() -> str:
        await clock.wait_for(answer("quick"), 60.0)
        try:
            await clock.wait_for(answer("late", after=30), 0.05)
        except TimeoutError:
            return "timed out"
        return "not timed out"

    assert run(body) == "timed out"


def test_a_timer_left_from_an_earlier_short_deadline_does_not_cut_later_work_short() -> None:
    clock = SystemClock()

    async def body() -> str:
        await clock.wait_for(answer("quick"), 0.05)
        # The timer armed for the first work fires during this one and must re-arm, not cancel.
        return await clock.wait_for(answer("slow but in time", after=0.2), 5.0)

    assert run(body) == "slow but in time"


def test_a_timer_left_armed_after_the_work_never_cancels_what_the_task_does_next() -> None:
    clock = SystemClock()

    async def body() -> str:
        await clock.wait_for(answer("quick"), 0.05)
        await asyncio.sleep(0.2)  # not under any deadline
        return "done"

    assert run(body) == "done"


def test_a_nested_deadline_that_expires_leaves_the_outer_work_running() -> None:
    clock = SystemClock()

    async def outer() -> str:
        try:
            await clock.wait_for(answer("inner", after=30), 0.05)
        except TimeoutError:
            return "inner timed out, outer went on"
        return "inner finished"

    async def body() -> str:
        return await clock.wait_for(outer(), 5.0)

    assert run(body) == "inner timed out, outer went on"


def test_an_outer_deadline_expires_even_while_nested_work_has_a_longer_one() -> None:
    clock = SystemClock()

    async def outer() -> str:
        return await clock.wait_for(answer("inner", after=30), 20.0)

    async def body() -> None:
        await clock.wait_for(outer(), 0.05)

    with pytest.raises(TimeoutError):
        run(body)


def test_cancelling_the_task_from_outside_is_a_cancellation_not_a_timeout() -> None:
    clock = SystemClock()

    async def body() -> str:
        task = asyncio.create_task(clock.wait_for(answer("never", after=30), 5.0))
        await asyncio.sleep(0.05)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return "cancelled"
        except TimeoutError:
            return "timeout"
        return "finished"

    assert run(body) == "cancelled"


def test_concurrent_tasks_on_one_clock_keep_their_own_deadlines() -> None:
    clock = SystemClock()

    async def one(limit: float, after: float) -> str:
        try:
            return await clock.wait_for(answer("ok", after=after), limit)
        except TimeoutError:
            return "timeout"

    async def body() -> list[str]:
        return list(await asyncio.gather(one(5.0, 0.2), one(0.05, 30), one(5.0, 0.0)))

    assert run(body) == ["ok", "timeout", "ok"]
