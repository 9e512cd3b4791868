"""Goal: log in as alice and have three Coffee Mugs in the cart."""

from __future__ import annotations

from fsm_runner.budgets import Budgets
from fsm_runner.machine import Machine
from fsm_runner.steps import Expect
from machines.demo_shop import outcomes
from machines.demo_shop.labels import PACKAGE  # also provides the demo account's public password

MACHINE = Machine(
    name="goal-mug-quantity",
    app=PACKAGE,
    goal="Log in as alice with the password ${secret:DEMO_SHOP_PASSWORD}, put the Coffee Mug in the cart "
    "and change its quantity to 3.",
    final=[Expect("visible", target="Coffee Mug"), Expect("visible", target="Qty: 3")],
    outcomes={"three mugs in the cart": outcomes.cart_is({"p03": 3})},
    budgets=Budgets(max_steps=20, max_llm_calls=40, max_tokens=60_000),
    description="Goal-only: add an item, open the cart, and raise the quantity twice.",
    tags=("goal", "demo"),
)
