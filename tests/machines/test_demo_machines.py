"""The Demo Shop machines pass on the simulated device, in-process and through the real adb server,
and a deliberately broken expectation fails in VERIFY with its layer and evidence."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import adbkit
import attrs
import pytest

from adapters.adb import AdbDevice
from adapters.sim import SimDevice, SimPhone
from fsm_runner import Expect, Layer, Machine, Outcome, RunResult, arun
from machines.demo_shop import demo_machines, register_phone
from machines.demo_shop.flows import checkout, login, settings_switch

ALL = demo_machines()


def run_on(machine: Machine, device: object) -> RunResult:
    return asyncio.run(arun(machine, device))  # type: ignore[arg-type]


@pytest.mark.parametrize("machine", ALL, ids=[m.name for m in ALL])
def test_every_demo_machine_passes_on_the_in_process_simulator(machine: Machine) -> None:
    locale = "zh-CN" if machine.name.endswith("zh_cn") else "en"
    phone = SimPhone(locale=locale)
    result = run_on(machine, SimDevice(phone))
    assert result.outcome is Outcome.PASSED, result.reason
    assert result.steps and all(r.outcome == "passed" for r in result.steps)


def test_the_checkout_machine_pays_exactly_once() -> None:
    phone = SimPhone()
    result = run_on(checkout("en"), SimDevice(phone))
    assert result.passed, result.reason
    assert len(phone.shop.orders) == 1
    assert phone.shop.cart == []


def test_sub_machine_records_nest_in_the_parent() -> None:
    result = run_on(settings_switch("en"), SimDevice(SimPhone()))
    assert result.passed, result.reason
    first = result.steps[0]
    assert first.step.action.value == "run_machine"
    assert [child.intent for child in first.children][:1] == ["input_text 'Username field' with 'alice'"]


ENGLISH = [m for m in ALL if m.name.endswith("_en")]


@pytest.mark.parametrize("good", ENGLISH, ids=[m.name for m in ENGLISH])
def test_a_broken_expectation_fails_in_verify_with_the_verdict_layer_and_evidence(good: Machine) -> None:
    last = good.steps[-1]
    broken_step = attrs.evolve(last, expect=(Expect("visible", target="Order history"),), timeout_s=2.0)
    broken = attrs.evolve(good, steps=(*good.steps[:-1], broken_step))
    result = run_on(broken, SimDevice(SimPhone()))
    assert result.outcome is Outcome.FAILED
    assert result.failed_state == "VERIFY"
    assert result.layer is Layer.VERDICT
    failing = result.steps[-1]
    assert failing.outcome == "failed"
    assert failing.evidence and not failing.evidence[0].held
    assert "Order history" in failing.evidence[0].expect


@pytest.fixture(scope="module")
def adb_server() -> Iterator[adbkit.AdbServer]:
    server = adbkit.start_adb_server()
    yield server
    server.stop()


@pytest.mark.adb
@pytest.mark.parametrize(
    ("flow", "locale", "transport"),
    [(login, "en", "adbutils"), (checkout, "zh-CN", "adbutils"), (settings_switch, "en", "ppadb")],
    ids=["login-en-adbutils", "checkout-zh-adbutils", "settings-en-ppadb"],
)
def test_demo_machines_pass_through_the_real_adb_server(adb_server, flow, locale, transport) -> None:  # type: ignore[no-untyped-def]
    phone = SimPhone(locale=locale, adb_keyboard=True)
    daemon = adbkit.serve_sim(phone)
    try:
        serial = adbkit.connect(adb_server, daemon)
        register_phone(serial, phone)
        device = AdbDevice(serial, transport=transport, server=f"127.0.0.1:{adb_server.port}")
        result = run_on(flow(locale), device)
        assert result.outcome is Outcome.PASSED, result.reason
        if flow is checkout:
            assert len(phone.shop.orders) == 1
    finally:
        daemon.stop()


def test_a_value_read_in_one_step_is_checked_by_arithmetic_in_a_later_one() -> None:
    from machines.demo_shop.flows import change_quantity

    result = run_on(change_quantity("en"), SimDevice(SimPhone()))
    assert result.passed, result.reason
    remembered = dict(pair for record in result.steps for pair in record.remembered)
    assert remembered == {"price": "$59.99"}
    total_check = [e for e in result.steps[-1].evidence if "price*2" in e.expect]
    assert total_check and total_check[0].held and "$119.98" in total_check[0].found


def test_prose_expectations_are_refused_at_start_without_an_llm() -> None:
    from fsm_runner import ConfigurationError, Step, offline_roles

    step = Step("press_back", expect=[Expect("prose", value="it looks nice")])
    machine = Machine("prose", "com.example.demoshop", steps=[step])
    with pytest.raises(ConfigurationError, match="prose expectations"):
        offline_roles(machine)
