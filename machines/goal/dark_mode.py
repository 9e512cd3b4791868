"""Goal: log in as alice and turn on dark mode in Settings."""

from __future__ import annotations

from fsm_runner.budgets import Budgets
from fsm_runner.machine import Machine
from fsm_runner.steps import Expect
from machines.demo_shop import outcomes
from machines.demo_shop.labels import PACKAGE  # also provides the demo account's public password

MACHINE = Machine(
    name="goal-dark-mode",
    app=PACKAGE,
    goal="Log in as alice with the password ${secret:DEMO_SHOP_PASSWORD}, then turn on dark mode in the settings.",
    final=[Expect("checked", target="Dark mode switch")],
    outcomes={"dark mode on": outcomes.setting_is("dark_mode", True)},
    budgets=Budgets(max_steps=15, max_llm_calls=30, max_tokens=40_000),
    description="Goal-only: the planner finds the login, the settings and the dark mode switch.",
    tags=("goal", "demo"),
)
