"""The standard UI-test machine: built by ui_test, filled by the offline roles, run end to end."""

from __future__ import annotations

import asyncio

import pytest

from adapters.sim import SimDevice, SimPhone
from fsm_runner import DefinitionError, Expect, Outcome, Step, arun
from fsm_runner.roles import RuleHealer, RuleLocator, RuleValidator, ScriptedPlanner
from machines.standard import UI_TEST_BUDGETS, standard_roles, ui_test


def test_a_ui_test_runs_on_the_standard_roles() -> None:
    machine = ui_test(
        "open-settings",
        "com.example.demoshop",
        [
            Step("input_text", target="Username field", value="alice"),
            Step("input_text", target="Password field", value="${secret:DEMO_SHOP_PASSWORD}"),
            Step("tap", target="Log in button", expect=[Expect("visible", target="Products")], timeout_s=15),
            Step("tap", target="Settings", expect=[Expect("visible", target="Dark mode switch")]),
        ],
    )
    assert machine.budgets == UI_TEST_BUDGETS
    roles = standard_roles(machine)
    assert isinstance(roles.planner, ScriptedPlanner)
    assert isinstance(roles.locator, RuleLocator)
    assert isinstance(roles.validator, RuleValidator)
    assert isinstance(roles.healer, RuleHealer)
    result = asyncio.run(
        arun(machine, SimDevice(SimPhone()), roles=roles, secrets={"DEMO_SHOP_PASSWORD": "secret123"})
    )
    assert result.outcome is Outcome.PASSED, result.reason


def test_a_ui_test_is_checked_when_built() -> None:
    with pytest.raises(DefinitionError, match="high-risk"):
        ui_test("pay", "com.example.demoshop", [Step("tap", target="Pay now", high_risk=True)])
