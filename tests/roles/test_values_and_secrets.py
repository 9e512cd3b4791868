from __future__ import annotations

import pytest
from roles_screens import cart_screen

from fsm_runner.errors import ConfigurationError, DefinitionError
from fsm_runner.roles.locator import RuleLocator
from fsm_runner.roles.values import Secrets, Values, evaluate, read_remembered, substitute
from fsm_runner.steps import Step


def test_remembered_names_are_substituted_and_secrets_are_left_for_the_executor() -> None:
    values = Values({"user": "alice"})
    assert values.substitute("hello ${user}, pw ${secret:PASSWORD}") == "hello alice, pw ${secret:PASSWORD}"


def test_arithmetic_keeps_the_currency_and_decimals_of_the_value() -> None:
    assert evaluate("price*2", {"price": "$12.50"}) == "$25.00"
    assert evaluate("count + 1", {"count": "3 items"}) == "4 items"
    assert substitute("Total: ${price * 3}", {"price": "¥1,200.5"}) == "Total: ¥3601.5"


@pytest.mark.parametrize("expression", ["__import__('os')", "price ** 2", "price if 1 else 2", "open", "a.b"])
def test_anything_but_arithmetic_is_refused(expression: str) -> None:
    with pytest.raises(DefinitionError):
        evaluate(expression, {"price": "2", "open": "x"})


def test_unknown_name_names_the_value_and_the_fix() -> None:
    with pytest.raises(DefinitionError, match="remember it in an earlier step"):
        substitute("${missing}", {})


def test_secrets_come_from_the_mapping_first_then_the_environment() -> None:
    secrets = Secrets({"PASSWORD": "secret123"}, environ={"FSM_RUNNER_SECRET_TOKEN": "tok-9", "OTHER": "x"})
    assert secrets.resolve("${secret:PASSWORD}/${secret:TOKEN}/${user}") == "secret123/tok-9/${user}"
    with pytest.raises(ConfigurationError, match="FSM_RUNNER_SECRET_API_KEY"):
        secrets.get("API_KEY")


def test_redact_replaces_every_secret_value_with_its_placeholder() -> None:
    secrets = Secrets({"PASSWORD": "secret123"}, environ={"FSM_RUNNER_SECRET_PIN": "4321"})
    text = "typed secret123 then 4321 into the form"
    assert secrets.redact(text) == "typed ${secret:PASSWORD} then ${secret:PIN} into the form"


def test_a_step_remembers_the_text_it_read_from_the_screen() -> None:
    values = Values()
    step = Step("tap", target="Checkout", remember=(("total", "the Total label"), ("gone", "Pay now")))
    read = read_remembered(step, cart_screen(), RuleLocator(), values)
    assert read == {"total": "Total: $12.50"}
    assert values.substitute("${total*2}") == "Total: $25.00"
    assert "gone" not in values
