"""The executor against the simulated phone: real dumps, real hit-testing, real side effects."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from adapters.errors import DeviceOfflineError
from adapters.sim import Faults, SimPhone
from adapters.sim.device import SimDevice
from fsm_runner.perception import parse_dump
from fsm_runner.perception.screen import Screen
from fsm_runner.roles.base import Candidate, ExecStatus, ExecutionRequest, ExecutionResult, Layer, Location, Observation
from fsm_runner.roles.executor import DeviceExecutor
from fsm_runner.roles.locator import RuleLocator
from fsm_runner.roles.values import Secrets
from fsm_runner.steps import Step

LOCATOR = RuleLocator()


class Clock:
    """Fake time shared by the phone and the executor; each dump costs ``dump_s``."""

    def __init__(self, dump_s: float = 0.0) -> None:
        self.t = 1000.0
        self.dump_s = dump_s

    def __call__(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.t += seconds


class Rig:
    def __init__(self, *, faults: Faults | None = None, locale: str = "en", dump_s: float = 0.0) -> None:
        self.clock = Clock(dump_s)
        self.phone = SimPhone(locale=locale, now=self.clock, faults=faults or Faults())
        self.device = SimDevice(self.phone)
        self.executor = DeviceExecutor(
            secrets=Secrets({"PASSWORD": "secret123"}), now=self.clock, sleep=self.clock.sleep
        )
        self.observations = 0
        self.ids = 0

    async def observe(self) -> Observation:
        self.clock.t += self.clock.dump_s
        dump = await self.device.dump_hierarchy()
        self.observations += 1
        return Observation(self.observations, parse_dump(dump.xml), dump.xml, self.clock.t)

    def screen(self) -> Screen:
        return asyncio.run(self.observe()).screen

    def run(
        self,
        step: Step,
        *,
        action_id: str | None = None,
        location: Location | None = None,
        screen: Screen | None = None,
        text: str | None = None,
    ) -> ExecutionResult:
        screen = screen or self.screen()
        if location is None and step.target:
            location = LOCATOR.find(step.target, screen)
        if action_id is None:
            self.ids += 1
            action_id = f"a{self.ids}"
        request = ExecutionRequest(step, action_id, screen, location, text)
        return asyncio.run(self.executor.execute(request, self.device, self.observe))

    def start(self) -> None:
        assert self.run(Step("open_app", value="com.example.demoshop")).status is ExecStatus.OK
        assert self.run(Step("wait_for", target="Allow", timeout_s=5)).status is ExecStatus.OK
        assert self.run(Step("tap", target="Allow")).status is ExecStatus.OK

    def log_in(self) -> None:
        self.start()
        self.run(Step("input_text", target="the username field", value="alice"))
        self.run(Step("input_text", target="the password field", value="${secret:PASSWORD}"))
        self.run(Step("press_back"))
        self.run(Step("tap", target="the Log in button"))
        assert self.run(Step("wait_for", target="Products", timeout_s=5)).status is ExecStatus.OK


def test_tap_reaches_the_located_element_and_the_app_reacts() -> None:
    rig = Rig()
    rig.log_in()
    result = rig.run(Step("tap", target="Coffee Mug"))
    assert result.status is ExecStatus.OK
    assert result.point == (540, 990)
    assert rig.phone.current_focus()[1].endswith("ProductDetailActivity")
    assert result.after is not None and LOCATOR.find("Add to cart", result.after.screen).found


def test_typing_focuses_the_field_types_and_reads_the_value_back() -> None:
    rig = Rig()
    rig.start()
    result = rig.run(Step("input_text", target="the username field", value="alice"))
    assert result.status is ExecStatus.OK, result.detail
    assert "read back the same" in result.detail
    assert rig.phone.focused_text() == "alice"
    again = rig.run(Step("input_text", target="the username field", value="bob"))
    assert again.status is ExecStatus.OK, again.detail
    assert rig.phone.focused_text() == "bob"


def test_password_is_typed_from_a_secret_never_shown_and_read_back_is_skipped() -> None:
    rig = Rig()
    rig.log_in()
    assert rig.phone.shop.logged_in == "alice"
    typed = [r for r in rig.executor._sent.values() if r is not None and "password" in r.detail]
    assert typed and all("secret123" not in r.detail for r in typed)
    assert "read-back skipped" in typed[0].detail


def test_a_button_under_the_keyboard_is_refused_before_tapping() -> None:
    rig = Rig()
    rig.start()
    before = rig.screen()
    login = LOCATOR.find("the Log in button", before)
    assert login.found
    rig.run(Step("input_text", target="the username field", value="alice"))
    under_keyboard = rig.screen()
    assert under_keyboard.keyboard_shown
    result = rig.run(Step("tap", target="the Log in button"), location=login, screen=under_keyboard)
    assert result.status is ExecStatus.RETRY
    assert result.layer is Layer.EXECUTION
    assert "covered by keyboard" in result.detail
    assert rig.screen().keyboard_shown and rig.phone.shop.logged_in is None


def test_lost_ack_is_a_retry_that_never_repeats_the_side_effect() -> None:
    rig = Rig()
    rig.log_in()
    rig.run(Step("tap", target="Coffee Mug"))
    rig.phone.injector.faults = Faults(lost_ack_rate=1.0)
    first = rig.run(Step("tap", target="Add to cart"), action_id="add-1")
    assert (first.status, first.layer, first.maybe_applied) == (ExecStatus.RETRY, Layer.EXECUTION, True)
    assert first.detail.startswith("ack lost")
    again = rig.run(Step("tap", target="Add to cart"), action_id="add-1")
    assert again == first
    assert [(i.product_id, i.quantity) for i in rig.phone.shop.cart] == [("p03", 1)]
    assert "add-1" in rig.executor.sent_action_ids


def test_settling_observes_until_two_fingerprints_agree() -> None:
    rig = Rig(dump_s=0.3)
    rig.start()
    rig.run(Step("input_text", target="the username field", value="alice"))
    rig.run(Step("input_text", target="the password field", value="secret123"))
    rig.run(Step("press_back"))
    result = rig.run(Step("tap", target="the Log in button"))
    assert result.status is ExecStatus.OK
    assert result.settle_observations == 3
    assert result.after is not None and LOCATOR.find("the search field", result.after.screen).found


def test_settling_is_bounded_when_the_screen_never_stops_changing() -> None:
    rig = Rig()
    rig.start()
    screen = rig.screen()
    calls = 0

    async def changing() -> Observation:
        nonlocal calls
        calls += 1
        import attrs

        return Observation(calls, attrs.evolve(screen, fingerprint=f"fp{calls}"), "", rig.clock.t)

    executor = DeviceExecutor(max_settle_observations=4, now=rig.clock, sleep=rig.clock.sleep)
    request = ExecutionRequest(Step("press_back"), "b1", screen)
    result = asyncio.run(executor.execute(request, rig.device, changing))
    assert result.status is ExecStatus.OK and result.settle_observations == 4 == calls


def test_scrolling_down_moves_the_product_list() -> None:
    rig = Rig()
    rig.log_in()
    before = rig.screen()
    assert LOCATOR.find("Plant Pot", before).best is None
    for _ in range(4):
        assert rig.run(Step("scroll", value="down")).status is ExecStatus.OK
    after = rig.screen()
    assert after.fingerprint != before.fingerprint
    assert LOCATOR.find("Plant Pot", after).best is not None


def test_wait_for_polls_until_the_splash_is_gone_or_times_out() -> None:
    rig = Rig()
    assert rig.run(Step("open_app", value="com.example.demoshop")).status is ExecStatus.OK
    started = rig.clock.t
    found = rig.run(Step("wait_for", target="Allow", timeout_s=5))
    assert found.status is ExecStatus.OK and rig.clock.t - started >= 0.75
    missing = rig.run(Step("wait_for", target="the Pay now button", timeout_s=2))
    assert missing.status is ExecStatus.FAIL and "within 2 s" in missing.detail


def test_deep_link_and_keys_reach_the_device() -> None:
    rig = Rig()
    rig.log_in()
    assert rig.run(Step("open_deep_link", value="demoshop://cart")).status is ExecStatus.OK
    assert rig.phone.current_focus()[1].endswith("CartActivity")
    assert rig.run(Step("press_home")).status is ExecStatus.OK
    assert rig.phone.current_focus()[0] != "com.example.demoshop"


def test_an_invalid_action_becomes_an_exception_result_and_offline_propagates() -> None:
    rig = Rig()
    rig.start()
    screen = rig.screen()
    off_screen = Location((Candidate("ghost", parse_bounds("[2000,3000][2100,3100]"), 1.0, "test"),))
    result = rig.run(Step("tap", target="ghost"), location=off_screen, screen=screen)
    assert result.status is ExecStatus.EXCEPTION and result.layer is Layer.EXECUTION
    assert "InvalidActionError" in result.detail
    rig.phone.injector.faults = Faults(offline_after_s=0.0, offline_for_s=100.0)
    with pytest.raises(DeviceOfflineError):
        rig.run(Step("press_back"), screen=screen)


def test_no_candidate_is_a_perception_failure_without_touching_the_device() -> None:
    rig = Rig()
    rig.start()
    calls: list[Any] = []
    original: Callable[..., Awaitable[None]] = rig.device.tap

    async def spy(x: int, y: int) -> None:
        calls.append((x, y))
        await original(x, y)

    rig.device.tap = spy  # type: ignore[method-assign]
    result = rig.run(Step("tap", target="the Pay now button"))
    assert (result.status, result.layer) == (ExecStatus.FAIL, Layer.PERCEPTION)
    assert calls == []


def parse_bounds(text: str) -> Any:
    from fsm_runner.perception.screen import Bounds

    x1, y1, x2, y2 = (int(v) for v in text.replace("][", ",").strip("[]").split(","))
    return Bounds(x1, y1, x2, y2)


def test_a_secret_typed_into_a_plain_field_is_shown_as_its_placeholder() -> None:
    rig = Rig()
    rig.start()
    rig.executor = DeviceExecutor(now=rig.clock, sleep=rig.clock.sleep)
    step = Step("input_text", target="the username field", value="${secret:USER}")
    result = rig.run(step, text="alice-the-secret")
    assert result.status is ExecStatus.OK
    assert rig.phone.focused_text() == "alice-the-secret"
    assert "alice-the-secret" not in result.detail and "${secret:USER}" in result.detail


def test_a_row_reaching_past_the_display_edge_is_tapped_inside_the_display() -> None:
    rig = Rig()
    rig.log_in()
    screen = rig.screen()
    row = Location((Candidate("tall", parse_bounds("[0,2200][1080,2600]"), 1.0, "test"),))
    result = rig.run(Step("tap", target="Bluetooth Speaker"), location=row, screen=screen)
    assert result.status is ExecStatus.OK
    assert result.point == (540, 2300)
