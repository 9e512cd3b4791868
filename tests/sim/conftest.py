"""Fixtures for the simulated phone: a hand-driven clock and phones in both locales."""

from __future__ import annotations

import pytest

from adapters.sim import Faults, SimPhone
from tests.sim.dump_reader import Driver, FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=["en", "zh-CN"])
def locale(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def make_driver(clock: FakeClock, locale: str = "en", faults: Faults | None = None, **kwargs: object) -> Driver:
    phone = SimPhone(locale=locale, now=clock, faults=faults or Faults(), **kwargs)  # type: ignore[arg-type]
    return Driver(phone, clock)


@pytest.fixture
def driver(clock: FakeClock, locale: str) -> Driver:
    return make_driver(clock, locale)
