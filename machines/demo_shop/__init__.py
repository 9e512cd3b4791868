"""Demo machines for the simulated Demo Shop app, in English and Chinese."""

from __future__ import annotations

import os

from fsm_runner import Machine
from machines.demo_shop.flows import ALL_FLOWS, login
from machines.demo_shop.labels import LOCALES, PACKAGE, labels
from machines.demo_shop.outcomes import register_phone

# The demo account exists only inside the simulator and its password is public; providing it here
# lets the demo run with no setup, while the machines still reference it as a secret.
os.environ.setdefault("FSM_RUNNER_SECRET_DEMO_SHOP_PASSWORD", "secret123")


def demo_machines(locales: tuple[str, ...] = LOCALES) -> list[Machine]:
    """Every Demo Shop machine for each locale."""
    return [flow(locale) for locale in locales for flow in ALL_FLOWS]


MACHINES = demo_machines()

__all__ = ["LOCALES", "MACHINES", "PACKAGE", "demo_machines", "labels", "login", "register_phone"]
