"""``DumpObserver``: the Observer role over a real or simulated device's hierarchy dump."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import cast

import attrs

from adapters.base import AppInfo, Device, ToastSource
from adapters.errors import DeviceError, EnvironmentFault
from fsm_runner.errors import PerceptionError
from fsm_runner.perception.parse import parse_dump
from fsm_runner.perception.screen import Screen
from fsm_runner.roles.base import Observation


class DumpObserver:
    """Dump the hierarchy (and take a screenshot when ``screenshots``), parse it, and time-stamp it.

    A dump the device returned but that does not parse (cut short, junk) is
    dumped again up to ``reparse_attempts`` more times before PerceptionError is
    raised; DeviceError passes through. Toasts never appear in a dump: a device
    that offers ``recent_toasts`` (``adapters.base.ToastSource``) has them added.
    With ``activity`` the device is asked for the foreground activity, which a
    dump does not hold; it is set on the screen when its package is the
    screen's, and left unknown when the device cannot name it. ``now`` is the
    clock for ``Observation.at`` (injectable so tests need no sleeps).
    """

    def __init__(
        self,
        *,
        screenshots: bool = False,
        now: Callable[[], float] = time.time,
        timeout: float = 20.0,
        reparse_attempts: int = 1,
        activity: bool = True,
    ) -> None:
        self._screenshots = screenshots
        self._now = now
        self._timeout = timeout
        self._reparse_attempts = max(0, reparse_attempts)
        self._activity = activity

    async def observe(self, device: Device, index: int) -> Observation:
        attempts = 0
        latency_ms = 0.0
        for tries_left in range(self._reparse_attempts, -1, -1):
            dump = await device.dump_hierarchy(timeout=self._timeout)
            attempts += dump.attempts
            latency_ms += dump.latency_ms
            at = self._now()
            try:
                screen: Screen = parse_dump(dump.xml)
                break
            except PerceptionError:
                if tries_left == 0:
                    raise
        if self._activity:
            app = await _foreground(device)
            if app is not None and app.activity and app.package == screen.package:
                screen = attrs.evolve(screen, activity=app.activity)
        shot = await device.screenshot() if self._screenshots else None
        toasts: tuple[str, ...] = ()
        if callable(getattr(device, "recent_toasts", None)):
            toasts = tuple(await cast(ToastSource, device).recent_toasts())
        return Observation(
            index=index,
            screen=screen,
            xml=dump.xml,
            at=at,
            dump_latency_ms=latency_ms,
            dump_attempts=attempts,
            screenshot=shot,
            toasts=toasts,
        )


async def _foreground(device: Device) -> AppInfo | None:
    """The foreground app, or None when the device cannot tell right now (mid-transition, keyguard)."""
    try:
        return await device.current_app()
    except EnvironmentFault:
        raise
    except DeviceError:
        return None
