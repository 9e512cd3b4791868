"""Short Demo Shop machines run on the in-process simulated phone under a fake clock, into a run directory."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import structlog

from adapters.sim import DEMO_SHOP_PACKAGE, SimDevice, SimPhone
from fsm_runner import Expect, FakeClock, Machine, RunResult, Step, arun, events
from fsm_runner.budgets import Budgets
from fsm_runner.evidence import RunDirectory
from fsm_runner.roles import Secrets

PASSWORD = "hunter2-Sesame"
USERNAME_SECRET = "alice-secret-name"

#: Types a secret into the (unmasked) Username field, so the dumps hold it in clear text.
PASSING = Machine(
    "shop-login-page",
    DEMO_SHOP_PACKAGE,
    steps=[
        Step("wait_for", expect=[Expect("visible", target="Log in")], timeout_s=5),
        Step("input_text", target="Username", value="${secret:USER}"),
    ],
    budgets=Budgets(max_wall_s=60),
)

#: Logging in with no credentials never reaches the product list: the last step fails in VERIFY.
FAILING = Machine(
    "shop-login-empty",
    DEMO_SHOP_PACKAGE,
    steps=[
        Step("wait_for", expect=[Expect("visible", target="Log in")], timeout_s=5),
        Step("tap", target="Log in", expect=[Expect("visible", target="Products")], timeout_s=1),
    ],
    budgets=Budgets(max_wall_s=60, max_heals_per_step=1),
)

SECRETS = {"USER": USERNAME_SECRET, "PW": PASSWORD}


@contextmanager
def run_files() -> Iterator[None]:
    """Route events to each run's ``events.jsonl`` (as the CLI does) for the duration of the block."""
    saved = structlog.get_config()
    events.configure(redact=Secrets(SECRETS, environ={}).redact)
    try:
        yield
    finally:
        events.RUN_FILES.close()
        structlog.configure(**saved)


def run_on_sim(machine: Machine, out: Path) -> tuple[RunResult, RunDirectory]:
    """Run ``machine`` on a fresh simulated phone; evidence goes to ``out/<machine>-<run_id>``."""

    async def go() -> tuple[RunResult, RunDirectory]:
        clock = FakeClock()
        device = SimDevice(SimPhone(now=clock.now), sleep=clock.sleep)
        directory = RunDirectory.create(out, machine.name, secrets=Secrets(SECRETS, environ={}))
        result = await arun(
            machine,
            device,
            clock=clock,
            run_id=directory.run_id,
            run_dir=directory.path,
            recorder=directory,
            secrets=SECRETS,
        )
        return result, directory

    with run_files():
        return asyncio.run(go())

_OPEN = Machine(
    "open-login",
    DEMO_SHOP_PACKAGE,
    steps=[Step("wait_for", expect=[Expect("visible", target="Log in")], timeout_s=5)],
)

#: Its first step runs a sub-machine, whose events share the parent's events.jsonl.
WITH_SUB_MACHINE = Machine(
    "shop-with-sub",
    DEMO_SHOP_PACKAGE,
    steps=[
        Step("run_machine", machine="open-login"),
        Step("input_text", target="Username", value="alice"),
    ],
    machines={"open-login": _OPEN},
    budgets=Budgets(max_wall_s=60),
)
