"""Regression tests for what the fault matrix found (see docs/faults.md), on virtual time."""

from __future__ import annotations

import asyncio

import attrs

from adapters.sim import Faults, SimDevice, SimPhone
from fsm_runner import Layer, Machine, Outcome, RunResult, Step, arun
from fsm_runner.clock import FakeClock
from machines.demo_shop.flows import add_to_cart, checkout, login


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
