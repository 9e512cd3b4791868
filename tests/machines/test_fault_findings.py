"""Regression tests for what the fault matrix found (see docs/faults.md), on virtual time."""

from __future__ import annotations

import asyncio

import attrs

from adapters.sim import Faults, SimDevice, SimPhone
from fsm_runner import Layer, Machine, Outcome, RunResult, Step, arun
from fsm_runner.clock import FakeClock
from machines.demo_shop.flows import add_to_cart, checkout, login, settings_switch


def run_faulty(machine: Machine, faults: Faults, seed: int) -> tuple[RunResult, SimPhone]:
    async def go() -> tuple[RunResult, SimPhone]:
        clock = FakeClock(1000.0)
        phone = SimPhone(seed=seed, faults=faults, now=clock.now)
        result = await arun(machine, SimDevice(phone, sleep=clock.sleep, now=clock.now), clock=clock)
        return result, phone

    return asyncio.run(go())


def test_a_promo_dialog_is_dismissed_before_tapping_the_app_beneath_it() -> None:
    for seed in (1, 3):
        result, _ = run_faulty(add_to_cart("en"), Faults(popup_rate=0.5), seed)
        assert result.outcome is Outcome.PASSED, result.reason


def test_a_lost_ack_on_a_focusing_tap_still_types_the_text_and_pays_once() -> None:
    result, phone = run_faulty(checkout("en"), Faults(lost_ack_rate=0.2), seed=1)
    assert result.outcome is Outcome.PASSED, result.reason
    assert len(phone.shop.orders) == 1
    assert phone.shop.orders[0].address.full_name == "Alice Example"


def test_an_unmarked_step_onto_delete_account_is_refused_even_when_the_machine_allows_high_risk() -> None:
    sub = login("en")
    machine = Machine(
        "injected",
        sub.app,
        steps=[
            Step("run_machine", machine=sub.name),
            Step("tap", target="Settings"),
            Step("tap", target="Delete account"),
        ],
        machines={sub.name: sub},
        allow_high_risk=True,
    )
    result, phone = run_faulty(machine, Faults(), seed=0)
    assert result.outcome is Outcome.FAILED
    assert result.layer is Layer.DECISION
    assert "high_risk_refused" in result.reason
    assert phone.shop.account_deleted is False


def test_the_confirm_button_of_a_high_risk_dialog_is_high_risk_too() -> None:
    sub = login("en")
    machine = Machine(
        "confirm-delete",
        sub.app,
        steps=[
            Step("run_machine", machine=sub.name),
            Step("tap", target="Settings"),
            Step("tap", target="Delete account", high_risk=True),
            Step("tap", target="Delete"),
        ],
        machines={sub.name: sub},
        allow_high_risk=True,
    )
    result, phone = run_faulty(machine, Faults(), seed=0)
    assert result.outcome is Outcome.FAILED
    assert "high_risk_refused" in result.reason
    assert phone.shop.account_deleted is False
    marked = attrs.evolve(machine, steps=(*machine.steps[:-1], Step("tap", target="Delete", high_risk=True)))
    result, phone = run_faulty(marked, Faults(), seed=0)
    assert result.outcome is Outcome.PASSED, result.reason
    assert phone.shop.account_deleted is True


def test_two_fake_clock_runs_in_one_event_loop_both_finish() -> None:
    async def both() -> list[Outcome]:
        outcomes = []
        for _ in range(2):
            clock = FakeClock(1000.0)
            phone = SimPhone(now=clock.now)
            result = await arun(login("en"), SimDevice(phone, sleep=clock.sleep, now=clock.now), clock=clock)
            outcomes.append(result.outcome)
        return outcomes

    assert asyncio.run(asyncio.wait_for(both(), timeout=120)) == [Outcome.PASSED, Outcome.PASSED]


class LoggedInTapsLost(SimDevice):
    """A device whose touch screen stops registering taps once the user is signed in."""

    async def tap(self, x: int, y: int) -> None:
        if self.phone.shop.logged_in is None:
            await super().tap(x, y)


def test_a_tap_the_device_drops_again_after_its_retry_fails_in_the_execution_layer() -> None:
    # The Settings tap has no effect, its retry has none either, and the healer's re-plan brings
    # back the same screen: the device is to blame, not the planner (it was "decision" before).
    async def go() -> RunResult:
        clock = FakeClock(1000.0)
        phone = SimPhone(seed=0, now=clock.now)
        return await arun(settings_switch("en"), LoggedInTapsLost(phone, sleep=clock.sleep, now=clock.now), clock=clock)

    result = asyncio.run(go())
    assert result.outcome is Outcome.FAILED
    assert result.layer is Layer.EXECUTION, result.reason
    assert "no_effect" in result.reason
    settings_step = result.steps[-1]
    assert [heal.layer for heal in settings_step.heals] == [Layer.EXECUTION, Layer.EXECUTION]
