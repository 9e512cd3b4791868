"""Under every fault kind the offline-role Demo Shop machines never pass falsely, hang or place an order twice;
healable faults end PASSED, and a device that stays offline ends in ERROR blamed on the environment.

The default run covers every scenario on three machines with one seed; the full
matrix (both locales, every machine, five seeds) is marked slow.
"""

from __future__ import annotations

import asyncio
from typing import Any

import attrs
import pytest

from adapters.sim import Faults, SimDevice, SimPhone
from fsm_runner import Outcome, arun
from fsm_runner.clock import FakeClock
from fsm_runner.roles.base import Layer
from machines.demo_shop.flows import checkout
from tests.faults.matrix import (
    MACHINE_BY_NAME,
    MACHINES,
    SCENARIO_BY_NAME,
    SCENARIOS,
    CaseResult,
    Scenario,
    locale_of,
    run_case,
    tally,
)

FAST_MACHINES = ("add_to_cart_en", "checkout_en", "settings_switch_en")
FULL_SEEDS = range(1, 6)

HEALABLE = tuple(s.name for s in SCENARIOS if s.category == "healable")


def run(machine: str, scenario: Scenario, seed: int) -> CaseResult:
    # One event loop per run: FakeClocks sharing a loop livelock (findings-faults.md F4).
    return asyncio.run(run_case(MACHINE_BY_NAME[machine], scenario, seed))


def assert_trustworthy(case: CaseResult) -> None:
    where = f"{case.machine} under {case.scenario} seed {case.seed}: {case.outcome} {case.reason[:200]}"
    assert not case.hang, f"no verdict in bound: {where}"
    assert not case.false_pass, f"passed with the shop wrong ({case.shop_problem}): {where}"
    assert not case.duplicate_effect, f"{case.orders} orders: {where}"
    assert not case.misattributed, f"environment fault not ERROR/environment: {where}"
    if case.outcome is Outcome.FAILED:
        assert case.layer is not None, f"a failure without a layer: {where}"


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
@pytest.mark.parametrize("machine", FAST_MACHINES)
def test_no_fault_kind_makes_a_run_pass_falsely_hang_or_pay_twice(machine: str, scenario: Scenario) -> None:
    assert_trustworthy(run(machine, scenario, seed=1))


@pytest.mark.parametrize("name", HEALABLE)
def test_healable_faults_end_passed_in_at_least_95_percent_of_runs(name: str) -> None:
    machines = [m.name for m in MACHINES if locale_of(m) == "en"]
    results = [run(machine, SCENARIO_BY_NAME[name], seed=2) for machine in machines]
    for case in results:
        assert_trustworthy(case)
    total = tally(results)
    assert total.pass_rate >= 0.95, [(c.machine, c.seed, c.reason[:120]) for c in results if not c.passed]


@pytest.mark.parametrize("name", ["offline", "slow+offline"])
@pytest.mark.parametrize("machine", ["login_en", "checkout_en", "logout_zh_cn"])
def test_a_device_offline_past_its_window_ends_in_error_blamed_on_the_environment(machine: str, name: str) -> None:
    case = run(machine, SCENARIO_BY_NAME[name], seed=3)
    assert "offline" in case.faults_fired
    assert case.outcome is Outcome.ERROR, case.reason
    assert case.layer is Layer.ENVIRONMENT
    assert "offline" in case.reason


@pytest.mark.parametrize("seed", range(1, 7))
def test_lost_acks_never_place_the_order_twice(seed: int) -> None:
    heavy = Scenario("lost_ack_heavy", Faults(lost_ack_rate=0.5), "tolerated")
    case = run("checkout_en", heavy, seed)
    assert "lost_ack" in case.faults_fired
    assert case.orders <= 1, case.reason
    if case.passed:
        assert case.orders == 1 and not case.shop_problem


class PaymentScreenFault(SimDevice):
    """Applies ``fault`` (a Faults field set to 1.0) to every tap made on the payment screen only."""

    def __init__(self, phone: SimPhone, *, fault: str, **kwargs: Any) -> None:
        super().__init__(phone, **kwargs)
        self.fault = fault

    async def tap(self, x: int, y: int) -> None:
        on_payment = self.phone.current_focus()[1].endswith("PaymentActivity")
        saved = self.phone.faults
        if on_payment:
            self.phone.faults = attrs.evolve(saved, **{self.fault: 1.0})
        try:
            await super().tap(x, y)
        finally:
            self.phone.faults = saved


def checkout_with_payment_fault(fault: str) -> tuple[Any, SimPhone]:
    async def scenario() -> tuple[Any, SimPhone]:
        clock = FakeClock()
        phone = SimPhone(seed=1, now=clock.now)
        device = PaymentScreenFault(phone, fault=fault, sleep=clock.sleep, now=clock.now)
        return await arun(checkout("en"), device, clock=clock), phone

    return asyncio.run(scenario())


def test_a_lost_ack_on_the_pay_tap_is_not_answered_with_a_second_payment() -> None:
    result, phone = checkout_with_payment_fault("lost_ack_rate")
    assert any(event.kind == "lost_ack" for event in phone.fault_log)
    assert len(phone.shop.orders) == 1
    assert result.outcome is Outcome.PASSED, result.reason


def test_a_double_delivered_pay_tap_is_caught_as_a_failure_not_passed() -> None:
    result, phone = checkout_with_payment_fault("duplicate_tap_rate")
    assert len(phone.shop.orders) == 2
    assert result.outcome is Outcome.FAILED
    assert "2 orders exist, expected 1" in result.reason


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_the_full_matrix_never_passes_falsely_hangs_or_pays_twice(scenario: Scenario) -> None:
    results = [run(m.name, scenario, seed) for m in MACHINES for seed in FULL_SEEDS]
    for case in results:
        assert_trustworthy(case)
    if scenario.category == "healable":
        assert tally(results).pass_rate >= 0.95
    if scenario.category == "environment":
        assert all(c.outcome is Outcome.ERROR for c in results if "offline" in c.faults_fired)
