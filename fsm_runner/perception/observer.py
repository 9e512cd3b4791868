"""``DumpObserver``: the Observer role over a real or simulated device's hierarchy dump."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import cast

from adapters.base import Device, ToastSource
from fsm_runner.perception.parse import parse_dump
from fsm_runner.roles.base import Observation


class DumpObserver:
    """Dump the hierarchy (and take a screenshot when ``screenshots``), parse it, and time-stamp it.

    Toasts never appear in a dump: a device that offers ``recent_toasts``
    (``adapters.base.ToastSource``) has them added to the observation. Raises
    PerceptionError for an unreadable dump and lets DeviceError through; ``now``
    is the clock for ``Observation.at`` (injectable so tests need no sleeps).
    """

    def __init__(
        self, *, screenshots: bool = False, now: Callable[[], float] = time.time, timeout: float = 20.0
    ) -> None:
        self._screenshots = screenshots
        self._now = now
        self._timeout = timeout

    async def observe(self, device: Device, index: int) -> Observation:
        dump = await device.dump_hierarchy(timeout=self._timeout)
        at = self._now()
        screen = parse_dump(dump.xml)
        shot = await device.screenshot() if self._screenshots else None
        toasts: tuple[str, ...] = ()
        if callable(getattr(device, "recent_toasts", None)):
            toasts = tuple(await cast(ToastSource, device).recent_toasts())
        # Toasts never appear in a dump; devices that can see them offer recent_toasts().
        recent_toasts = getattr(device, "recent_toasts", None)
        toasts = tuple(await recent_toasts()) if recent_toasts is not None else ()
        return Observation(
            index=index,
            screen=screen,
            xml=dump.xml,
            at=at,
            dump_latency_ms=dump.latency_ms,
            dump_attempts=dump.attempts,
            screenshot=shot,
            toasts=toasts,
        )
