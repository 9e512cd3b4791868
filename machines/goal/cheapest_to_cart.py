"""Goal: log in as alice and add the cheapest item to the cart (it is off screen until the list is sorted)."""

from __future__ import annotations

from fsm_runner.budgets import Budgets
from fsm_runner.machine import Machine
from fsm_runner.steps import Expect
from machines.demo_shop import outcomes
from machines.demo_shop.labels import PACKAGE  # also provides the demo account's public password

MACHINE = Machine(
    name="goal-cheapest-to-cart",
    app=PACKAGE,
    goal="Log in as alice with the password ${secret:DEMO_SHOP_PASSWORD}, then add the cheapest product to the cart.",
    final=[Expect("visible", target="USB-C Cable"), Expect("visible", target="Qty: 1"),
           Expect("visible", target="Checkout button")],
    outcomes={"one cable in the cart": outcomes.cart_is({"p13": 1})},
    budgets=Budgets(max_steps=20, max_llm_calls=40, max_tokens=60_000),
    description="Goal-only: the planner must sort by price to find the cheapest item, then add it.",
    tags=("goal", "demo"),
)
