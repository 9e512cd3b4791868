"""Running goal-only machines on the simulated Demo Shop with the scripted server playing the model."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar, cast

import attrs

from adapters.base import Device, Dump
from adapters.sim import SimDevice, SimPhone
from fsm_runner.engine import Engine, RunRecorder
from fsm_runner.llm.cache import DecisionCache
from fsm_runner.llm.replay import ReplayFile
from fsm_runner.llm.roles import llm_roles
from fsm_runner.machine import Machine
from fsm_runner.records import RunResult
from fsm_runner.roles.values import Secrets, substitute
from fsm_runner.testing import ChatServer, RecordedRequest, Reply, replay_script
from machines.goal import replay_path
from tests.llm.conftest import client_for, profiles

SECRETS = {"DEMO_SHOP_PASSWORD": "secret123"}
T = TypeVar("T")


class SkipClock:
    """Virtual time for runs that talk to a real socket: each sleep jumps time at once.

    ``FakeClock`` jumps whenever the event loop is idle, which it also is while
    an HTTP answer is on its way, so a state timeout would fire during every
    model call. Here only sleeps move time; a timeout fires when the sleeps
    made while the work runs add up past it.
    """

    def __init__(self) -> None:
        self._now = 0.0

    def now(self) -> float:
        return self._now

    async def sleep(self, seconds: float) -> None:
        self._now += max(0.0, seconds)
        await asyncio.sleep(0)

    async def wait_for(self, work: Awaitable[T], timeout: float) -> T:
        deadline = self._now + timeout
        task = asyncio.ensure_future(work)
        async with asyncio.timeout(60):
            while not task.done():
                if self._now >= deadline:
                    task.cancel()
                    await asyncio.wait({task})
                    raise TimeoutError(f"no answer within {timeout:g} s")
                await asyncio.wait({task}, timeout=0.002)
        return task.result()

#: Wraps the simulated device (e.g. to rename a button in its dumps).
DeviceWrapper = Callable[[SimDevice], Device]


def goal_machine(name: str) -> Machine:
    machine: Machine = importlib.import_module(f"machines.goal.{name}").MACHINE
    return machine


def replay_of(name: str) -> Callable[[RecordedRequest], Reply]:
    return replay_script(ReplayFile.load(replay_path(name)))


async def run_goal(
    machine: Machine,
    server: ChatServer,
    cache: DecisionCache | None,
    *,
    wrap: DeviceWrapper | None = None,
    timeout_s: float = 5.0,
    recorder: RunRecorder | None = None,
    page_map: str = "",
    client_options: Mapping[str, object] | None = None,
) -> RunResult:
    """One run of ``machine`` on a fresh simulated phone, on virtual time, asking ``server``."""
    clock = SkipClock()
    phone = SimPhone(now=clock.now)
    sim = SimDevice(phone, sleep=clock.sleep, now=clock.now)
    device: Device = wrap(sim) if wrap else sim
    client = client_for(server, clock, **dict(client_options or {}))
    try:
        roles = llm_roles(
            machine, client, cache, profiles=profiles(timeout_s=timeout_s), clock=clock, page_map=page_map
        )
        source = Secrets(SECRETS, environ={})

        def resolve(text: str, values: Mapping[str, str]) -> str:
            return source.resolve(substitute(text, values))

        return await Engine(machine, device, roles, clock=clock, resolve_text=resolve, recorder=recorder).run()
    finally:
        await client.close()


class RenamedDevice:
    """The simulated device with one label renamed in every dump, as a new app build would show it."""

    def __init__(self, inner: SimDevice, old: str, new: str) -> None:
        self.inner = inner
        self.old = f'text="{old}"'
        self.new = f'text="{new}"'

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    async def dump_hierarchy(self, *, timeout: float = 20.0) -> Dump:
        dump = await self.inner.dump_hierarchy(timeout=timeout)
        return attrs.evolve(dump, xml=dump.xml.replace(self.old, self.new))


def renamed(old: str, new: str) -> DeviceWrapper:
    return lambda sim: cast(Device, RenamedDevice(sim, old, new))
