"""The fault matrix: Demo Shop machines on a simulated phone under every fault kind, checked against the shop.

A case is one machine, one fault scenario and one seed. ``run_case`` runs it on
virtual time and returns a ``CaseResult`` whose flags are the matrix's trust
checks: a PASSED run whose shop state is wrong (``false_pass``), a run that did
not end within its wall-clock bound (``hang``), an order placed twice when the
device never duplicated a tap (``duplicate_effect``), and an environment fault
that did not end in ERROR attributed to the environment (``misattributed``).
The shop state is re-checked here from ``phone.shop``, independently of the
machines' own ``outcomes``.
"""

from __future__ import annotations

import asyncio
import importlib
import random
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Literal

import attrs

from adapters.sim import Faults, SimDevice, SimPhone
from fsm_runner import Machine, Outcome, RunResult, arun
from fsm_runner.clock import FakeClock
from fsm_runner.llm.client import LlmClient, RetryPolicy
from fsm_runner.llm.profiles import Endpoint, default_profiles
from fsm_runner.llm.replay import ReplayFile
from fsm_runner.llm.roles import llm_roles
from fsm_runner.roles.base import Layer, Roles
from fsm_runner.testing import ChatServer, RecordedRequest, Reply, replay_script
from machines.demo_shop import demo_machines
from machines.goal import GOAL_MACHINES, replay_path

Category = Literal["clean", "healable", "tolerated", "environment"]

#: Real seconds a single run may take before it counts as a hang (virtual time makes a normal run < 2 s).
HANG_BOUND_S = 60.0


@attrs.frozen
class Scenario:
    """A named fault setting and what the matrix demands of it.

    ``healable`` scenarios must end PASSED in at least 95% of runs; ``environment``
    scenarios must end in ERROR with the environment layer; every scenario must
    never pass falsely, hang or duplicate an order. ``dropped_taps`` > 0 drops
    exactly that many taps (the first one at a seeded position) instead of a rate.
    """

    name: str
    faults: Faults
    category: Category
    dropped_taps: int = 0


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("clean", Faults(), "clean"),
    Scenario("slow_load", Faults(slow_load_s=4.0), "healable"),
    Scenario("popup", Faults(popup_rate=0.3), "healable"),
    Scenario("keyboard_occlusion", Faults(keyboard_occlusion=True), "healable"),
    Scenario("one_dropped_tap", Faults(), "healable", dropped_taps=1),
    Scenario("drop_tap", Faults(drop_tap_rate=0.15), "tolerated"),
    Scenario("duplicate_tap", Faults(duplicate_tap_rate=0.15), "tolerated"),
    Scenario("lost_ack", Faults(lost_ack_rate=0.25), "tolerated"),
    Scenario("dump_error", Faults(dump_error_rate=0.3), "tolerated"),
    Scenario("dump_empty", Faults(dump_empty_rate=0.3), "tolerated"),
    Scenario("crash", Faults(crash_rate=0.05), "tolerated"),
    Scenario("offline_blip", Faults(offline_after_s=0.8, offline_for_s=1.5), "tolerated"),
    Scenario("offline", Faults(offline_after_s=0.8, offline_for_s=100_000.0), "environment"),
    Scenario("slow+popup+keyboard", Faults(slow_load_s=2.0, popup_rate=0.3, keyboard_occlusion=True), "healable"),
    Scenario("dump_error+lost_ack", Faults(dump_error_rate=0.2, lost_ack_rate=0.2), "tolerated"),
    Scenario("drop+duplicate+crash", Faults(drop_tap_rate=0.1, duplicate_tap_rate=0.1, crash_rate=0.03), "tolerated"),
    Scenario("slow+offline", Faults(slow_load_s=3.0, offline_after_s=2.0, offline_for_s=100_000.0), "environment"),
)

SCENARIO_BY_NAME: Mapping[str, Scenario] = {s.name: s for s in SCENARIOS}

MACHINES: tuple[Machine, ...] = tuple(demo_machines())
MACHINE_BY_NAME: Mapping[str, Machine] = {m.name: m for m in MACHINES}


@attrs.frozen
class CaseResult:
    """One run of the matrix with the trust checks already applied."""

    machine: str
    scenario: str
    seed: int
    outcome: Outcome | None
    layer: Layer | None
    reason: str
    real_s: float
    virtual_s: float
    llm_calls: int
    orders: int
    faults_fired: tuple[str, ...]
    shop_problem: str
    false_pass: bool
    hang: bool
    duplicate_effect: bool
    misattributed: bool

    @property
    def passed(self) -> bool:
        return self.outcome is Outcome.PASSED


def locale_of(machine: Machine) -> str:
    return "zh-CN" if machine.name.endswith("_zh_cn") else "en"


def flow_of(machine: Machine) -> str:
    """The flow a demo or goal machine runs, without its locale suffix."""
    for suffix in ("_zh_cn", "_en"):
        if machine.name.endswith(suffix):
            return machine.name[: -len(suffix)]
    return machine.name


#: What the shop must hold after each flow passed: cart, order count, session, dark mode.
_EXPECTED: Mapping[str, Mapping[str, Any]] = {
    "login": {"cart": {}, "orders": 0, "logged_in": "alice"},
    "login_failure": {"cart": {}, "orders": 0, "logged_in": None},
    "add_to_cart": {"cart": {"p01": 1}, "orders": 0, "logged_in": "alice"},
    "change_quantity": {"cart": {"p01": 2}, "orders": 0, "logged_in": "alice"},
    "delete_row": {"cart": {"p01": 1}, "orders": 0, "logged_in": "alice"},
    "checkout": {"cart": {}, "orders": 1, "logged_in": "alice", "order_items": {"p03": 1}},
    "settings_switch": {"cart": {}, "orders": 0, "logged_in": "alice", "dark_mode": True},
    "logout": {"cart": {}, "orders": 0, "logged_in": None},
    "goal-dark-mode": {"cart": {}, "orders": 0, "logged_in": "alice", "dark_mode": True},
    "goal-cheapest-to-cart": {"cart": {"p13": 1}, "orders": 0, "logged_in": "alice"},
    "goal-mug-quantity": {"cart": {"p03": 3}, "orders": 0, "logged_in": "alice"},
}


def shop_problem(flow: str, shop: Any) -> str:
    """What is wrong with the shop's state for a passed ``flow`` ("" when it is exactly right)."""
    expected = _EXPECTED[flow]
    problems = []
    cart = {item.product_id: item.quantity for item in shop.cart}
    if cart != expected["cart"]:
        problems.append(f"cart {cart} != {expected['cart']}")
    if len(shop.orders) != expected["orders"]:
        problems.append(f"{len(shop.orders)} orders != {expected['orders']}")
    if "order_items" in expected and shop.orders:
        items = {item.product_id: item.quantity for item in shop.orders[0].items}
        if items != expected["order_items"]:
            problems.append(f"order holds {items} != {expected['order_items']}")
    if shop.logged_in != expected["logged_in"]:
        problems.append(f"logged in as {shop.logged_in!r} != {expected['logged_in']!r}")
    if shop.settings.get("dark_mode") is not expected.get("dark_mode", False):
        problems.append(f"dark mode {shop.settings.get('dark_mode')}")
    if shop.account_deleted:
        problems.append("the account was deleted")
    return "; ".join(problems)


class TapDroppingDevice(SimDevice):
    """A simulated device that loses exactly the ``drop_at``-th tap (1-based), as one flaky touch would."""

    def __init__(self, phone: SimPhone, *, drop_at: int, **kwargs: Any) -> None:
        super().__init__(phone, **kwargs)
        self.drop_at = drop_at
        self.taps = 0

    async def tap(self, x: int, y: int) -> None:
        self.taps += 1
        if self.taps != self.drop_at:
            await super().tap(x, y)
            return
        saved = self.phone.faults
        self.phone.faults = attrs.evolve(saved, drop_tap_rate=1.0)
        try:
            await super().tap(x, y)
        finally:
            self.phone.faults = saved


def build_device(scenario: Scenario, seed: int, locale: str, clock: Any) -> tuple[SimPhone, SimDevice]:
    """A fresh phone suffering ``scenario`` with ``seed``, and its in-process device on ``clock``."""
    phone = SimPhone(locale=locale, seed=seed, faults=scenario.faults, now=clock.now)
    if scenario.dropped_taps:
        # Taps 1-3 are login taps; spreading the drop over 2..7 hits login, product, cart and settings taps.
        drop_at = 2 + seed % 6
        return phone, TapDroppingDevice(phone, drop_at=drop_at, sleep=clock.sleep, now=clock.now)
    return phone, SimDevice(phone, sleep=clock.sleep, now=clock.now)


def judge(
    machine: Machine,
    scenario: Scenario,
    seed: int,
    phone: SimPhone,
    result: RunResult | None,
    real_s: float,
) -> CaseResult:
    """Apply the trust checks to one finished (or hung: ``result`` None) run."""
    fired = tuple(sorted({event.kind for event in phone.fault_log}))
    shop = phone.shop
    problem = shop_problem(flow_of(machine), shop)
    outcome = result.outcome if result else None
    expected_orders = _EXPECTED[flow_of(machine)]["orders"]
    duplicated_by_device = "duplicate_tap" in fired
    wall_bound = machine.budgets.max_wall_s
    hang = result is None or (wall_bound is not None and result.wall_s > wall_bound + 1.0)
    misattributed = False
    if scenario.category == "environment" and result is not None and "offline" in fired:
        misattributed = not (outcome is Outcome.ERROR and result.layer is Layer.ENVIRONMENT)
    return CaseResult(
        machine=machine.name,
        scenario=scenario.name,
        seed=seed,
        outcome=outcome,
        layer=result.layer if result else None,
        reason=result.reason if result else f"no verdict within {HANG_BOUND_S:g} s",
        real_s=real_s,
        virtual_s=result.wall_s if result else float("nan"),
        llm_calls=result.usage.calls if result else 0,
        orders=len(shop.orders),
        faults_fired=fired,
        shop_problem=problem,
        false_pass=outcome is Outcome.PASSED and bool(problem),
        hang=hang,
        duplicate_effect=len(shop.orders) > max(expected_orders, 1) and not duplicated_by_device,
        misattributed=misattributed,
    )


#: How the scripted model misbehaves on a seeded 30% of its answers (besides answering from the recording).
MISBEHAVIOURS = ("none", "malformed", "rate_limited", "server_error", "hallucinated", "mixed")


def misbehaving_model(name: str, misbehaviour: str, seed: int) -> Callable[[RecordedRequest], Reply]:
    """The recorded answers of goal machine ``name``, spoiled on a seeded share of requests."""
    recorded = replay_script(ReplayFile.load(replay_path(name)))
    rng = random.Random(seed)
    spoilers: dict[str, Callable[[], Reply]] = {
        "malformed": Reply.malformed,
        "rate_limited": lambda: Reply.rate_limited(2.0),
        "server_error": Reply.server_error,
        "hallucinated": lambda: Reply.answer(
            {"done": False, "step": {"action": "tap", "target": "Teleport button", "intent": "teleport", "expect": []}}
        ),
    }

    def answer(request: RecordedRequest) -> Reply:
        if request.role == "locator" and misbehaviour in ("hallucinated", "mixed"):
            # The recording has no locator answers; a model that made up a target makes up its element too.
            return Reply.hallucinated()
        if misbehaviour == "none" or request.role != "planner" or rng.random() >= 0.3:
            return recorded(request)
        kind = rng.choice(sorted(spoilers)) if misbehaviour == "mixed" else misbehaviour
        return spoilers[kind]()

    return answer


GOAL_MACHINE_BY_NAME: Mapping[str, Machine] = {
    name: importlib.import_module(f"machines.goal.{name}").MACHINE for name in GOAL_MACHINES
}


async def run_goal_case(name: str, scenario: Scenario, seed: int, misbehaviour: str = "none") -> CaseResult:
    """Run goal machine ``name`` with the LLM roles against the scripted model on loopback, under ``scenario``."""
    from tests.llm.goal_kit import SkipClock

    machine = GOAL_MACHINE_BY_NAME[name]
    clock = SkipClock()
    phone, device = build_device(scenario, seed, "en", clock)
    started = time.perf_counter()
    result: RunResult | None
    with ChatServer(misbehaving_model(name, misbehaviour, seed)) as server:
        client = LlmClient(
            Endpoint(server.base_url, "test-key", "scripted-model"),
            clock=clock,
            retry=RetryPolicy(max_attempts=3, max_wait_s=30.0),
        )
        try:
            roles = llm_roles(machine, client, None, profiles=default_profiles("scripted-model", timeout_s=5.0),
                              clock=clock)
            result = await asyncio.wait_for(arun(machine, device, roles=roles, clock=clock), HANG_BOUND_S)
        except TimeoutError:
            result = None
        finally:
            await client.close()
    scenario_name = scenario.name if misbehaviour == "none" else f"{scenario.name}/model:{misbehaviour}"
    return attrs.evolve(
        judge(machine, scenario, seed, phone, result, time.perf_counter() - started), scenario=scenario_name
    )


async def run_case(machine: Machine, scenario: Scenario, seed: int, *, roles: Roles | None = None) -> CaseResult:
    """Run ``machine`` once under ``scenario`` on virtual time, bounded in real time, and judge it."""
    clock = FakeClock()
    phone, device = build_device(scenario, seed, locale_of(machine), clock)
    started = time.perf_counter()
    result: RunResult | None
    try:
        result = await asyncio.wait_for(arun(machine, device, roles=roles, clock=clock), HANG_BOUND_S)
    except TimeoutError:
        result = None
    return judge(machine, scenario, seed, phone, result, time.perf_counter() - started)


def cases(
    machines: Iterable[Machine], scenarios: Iterable[Scenario], seeds: Iterable[int]
) -> Iterator[tuple[Machine, Scenario, int]]:
    """Every combination, scenario-major so a report can stream per fault kind."""
    seed_list = list(seeds)
    machine_list = list(machines)
    for scenario in scenarios:
        for machine in machine_list:
            for seed in seed_list:
                yield machine, scenario, seed


@attrs.frozen
class Tally:
    """Counts over many cases of one scenario (or all of them)."""

    runs: int = 0
    passed: int = 0
    failed: int = 0
    errored: int = 0
    aborted: int = 0
    hangs: int = 0
    false_passes: int = 0
    duplicate_effects: int = 0
    misattributed: int = 0
    llm_calls: int = 0
    real_s: float = 0.0
    failed_layers: tuple[tuple[str, int], ...] = ()

    def add(self, case: CaseResult) -> Tally:
        layers = dict(self.failed_layers)
        if case.outcome is Outcome.FAILED:
            name = case.layer.value if case.layer else "none"
            layers[name] = layers.get(name, 0) + 1
        return Tally(
            runs=self.runs + 1,
            passed=self.passed + (case.outcome is Outcome.PASSED),
            failed=self.failed + (case.outcome is Outcome.FAILED),
            errored=self.errored + (case.outcome is Outcome.ERROR),
            aborted=self.aborted + (case.outcome is Outcome.ABORTED),
            hangs=self.hangs + case.hang,
            false_passes=self.false_passes + case.false_pass,
            duplicate_effects=self.duplicate_effects + case.duplicate_effect,
            misattributed=self.misattributed + case.misattributed,
            llm_calls=self.llm_calls + case.llm_calls,
            real_s=self.real_s + case.real_s,
            failed_layers=tuple(sorted(layers.items())),
        )

    @property
    def pass_rate(self) -> float:
        return self.passed / self.runs if self.runs else 0.0


def tally(results: Iterable[CaseResult]) -> Tally:
    total = Tally()
    for case in results:
        total = total.add(case)
    return total
