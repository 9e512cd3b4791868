from __future__ import annotations

import asyncio
from typing import cast

import pytest

from adapters.base import AppInfo, Device, Dump
from adapters.errors import DeviceError, DeviceOfflineError
from fsm_runner.errors import PerceptionError
from fsm_runner.perception import DumpObserver, parse_dump
from tests.perception.shop_screens import cart

PNG = b"\x89PNG\r\n\x1a\nfake"
SHOP_IN_FRONT = AppInfo("com.example.shop", ".CartActivity")


class DumpingDevice:
    """Answers dumps from a script; counts screenshots (only the two calls the observer makes)."""

    serial = "test-1"

    def __init__(self, *outputs: str, app: AppInfo | Exception = SHOP_IN_FRONT) -> None:
        self.outputs = list(outputs)
        self.screenshots = 0
        self.app = app

    async def current_app(self) -> AppInfo:
        if isinstance(self.app, Exception):
            raise self.app
        return self.app

    async def dump_hierarchy(self, *, timeout: float = 20.0) -> Dump:
        return Dump(xml=self.outputs.pop(0), latency_ms=42.5, attempts=2)

    async def screenshot(self) -> bytes:
        self.screenshots += 1
        return PNG


def test_observe_parses_the_dump_and_records_where_it_came_from() -> None:
    device = DumpingDevice(cart())
    observer = DumpObserver(now=lambda: 1234.5)
    observation = asyncio.run(observer.observe(cast(Device, device), 7))
    assert observation.index == 7
    assert observation.at == 1234.5
    assert observation.xml == cart()
    assert observation.screen.elements == parse_dump(cart()).elements
    assert observation.screen.activity == ".CartActivity"
    assert (observation.dump_latency_ms, observation.dump_attempts) == (42.5, 2)
    assert observation.screenshot is None
    assert device.screenshots == 0


def test_observe_takes_a_screenshot_only_when_asked() -> None:
    device = DumpingDevice(cart())
    observation = asyncio.run(DumpObserver(screenshots=True, now=lambda: 0.0).observe(cast(Device, device), 1))
    assert observation.screenshot == PNG
    assert device.screenshots == 1


def test_a_dump_that_stays_unreadable_raises_a_perception_error_after_one_more_try() -> None:
    device = DumpingDevice("ERROR: could not get idle state.", "<hierarchy><node")
    with pytest.raises(PerceptionError, match="truncated"):
        asyncio.run(DumpObserver(now=lambda: 0.0).observe(cast(Device, device), 1))
    assert device.outputs == []


def test_a_cut_short_dump_is_dumped_again_and_the_attempts_add_up() -> None:
    device = DumpingDevice(cart()[:500], cart())
    observation = asyncio.run(DumpObserver(now=lambda: 0.0).observe(cast(Device, device), 3))
    assert observation.screen.fingerprint == parse_dump(cart()).fingerprint
    assert observation.dump_attempts == 4
    assert observation.dump_latency_ms == 85.0


class ToastingDevice(DumpingDevice):
    async def recent_toasts(self) -> tuple[str, ...]:
        return ("Added to cart",)


def test_toasts_from_a_device_that_sees_them_are_added_to_the_observation() -> None:
    observation = asyncio.run(DumpObserver(now=lambda: 0.0).observe(cast(Device, ToastingDevice(cart())), 1))
    assert observation.toasts == ("Added to cart",)


def test_a_device_without_toasts_gives_none() -> None:
    observation = asyncio.run(DumpObserver(now=lambda: 0.0).observe(cast(Device, DumpingDevice(cart())), 1))
    assert observation.toasts == ()


def test_the_activity_is_left_unknown_when_another_package_is_in_front() -> None:
    device = DumpingDevice(cart(), app=AppInfo("com.android.launcher3", ".Launcher"))
    observation = asyncio.run(DumpObserver(now=lambda: 0.0).observe(cast(Device, device), 1))
    assert observation.screen.activity is None


def test_the_activity_is_left_unknown_when_the_device_cannot_name_it() -> None:
    device = DumpingDevice(cart(), app=DeviceError("dumpsys window named no focused app"))
    observation = asyncio.run(DumpObserver(now=lambda: 0.0).observe(cast(Device, device), 1))
    assert observation.screen.activity is None


def test_a_device_going_offline_while_asked_for_the_activity_is_an_error() -> None:
    device = DumpingDevice(cart(), app=DeviceOfflineError("gone"))
    with pytest.raises(DeviceOfflineError):
        asyncio.run(DumpObserver(now=lambda: 0.0).observe(cast(Device, device), 1))
