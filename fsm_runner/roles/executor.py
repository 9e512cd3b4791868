"""The device executor: one whitelisted primitive on the best candidate, then wait for the UI to settle.

Contract: the executor never changes the plan and never sends an action id
twice (a repeated id returns the cached result without touching the device).
An ``AckLostError`` means the action may have been applied: RETRY with
``maybe_applied`` so the engine verifies instead of repeating. Environment
faults propagate to the engine; other device errors become EXCEPTION results.
Settling compares consecutive observations (same fingerprint twice), bounded
by a number of observations and the step timeout; there are no fixed sleeps.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable

import attrs

from adapters.base import Device, Key
from adapters.errors import AckLostError, DeviceError, EnvironmentFault
from fsm_runner.perception.screen import Bounds, Element, Screen, WindowKind
from fsm_runner.roles.base import ExecStatus, ExecutionRequest, ExecutionResult, Layer, Observation, ObserveFn
from fsm_runner.roles.locator import RuleLocator
from fsm_runner.roles.values import Secrets
from fsm_runner.steps import Action

#: Android key code that moves the cursor to the end of a field before deleting its text.
KEYCODE_MOVE_END = 123
#: The share of the scroll area a scroll or swipe travels.
SWIPE_SPAN = 0.5

Sleep = Callable[[float], Awaitable[None]]

_KEYS: dict[Action, Key] = {Action.PRESS_BACK: "BACK", Action.PRESS_HOME: "HOME", Action.PRESS_ENTER: "ENTER"}
_COVER_WORDS = {
    WindowKind.KEYBOARD: "keyboard",
    WindowKind.DIALOG: "dialog",
    WindowKind.SYSTEM_POPUP: "system popup",
    WindowKind.STATUS_BAR: "status bar",
    WindowKind.NAVIGATION_BAR: "navigation bar",
}


@attrs.frozen
class _Settled:
    observation: Observation | None
    count: int


class DeviceExecutor:
    """Implements ``Executor`` over any ``adapters.base.Device``.

    ``secrets`` resolves ``${secret:NAME}`` in the text to type (the text never
    appears in a result detail). ``now`` and ``sleep`` are injectable so that
    waiting for a target can be tested with a fake clock.
    """

    def __init__(
        self,
        *,
        secrets: Secrets | None = None,
        locator: RuleLocator | None = None,
        max_settle_observations: int = 5,
        poll_s: float = 0.25,
        long_press_ms: int = 800,
        swipe_ms: int = 300,
        now: Callable[[], float] = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.secrets = secrets or Secrets()
        self.locator = locator or RuleLocator()
        self.max_settle_observations = max_settle_observations
        self.poll_s = poll_s
        self.long_press_ms = long_press_ms
        self.swipe_ms = swipe_ms
        self._now = now
        self._sleep = sleep
        self._sent: dict[str, ExecutionResult | None] = {}

    @property
    def sent_action_ids(self) -> frozenset[str]:
        """Every action id this executor has sent (or started to send) to a device."""
        return frozenset(self._sent)

    async def execute(self, request: ExecutionRequest, device: Device, observe: ObserveFn) -> ExecutionResult:
        """Perform ``request`` once; a repeated action id gets the first result back and sends nothing."""
        if request.action_id in self._sent:
            cached = self._sent[request.action_id]
            if cached is not None:
                return cached
            return ExecutionResult(
                ExecStatus.RETRY,
                request.action_id,
                detail="action id already sent; its outcome is unknown, re-observe instead of repeating",
                layer=Layer.EXECUTION,
                maybe_applied=True,
            )
        self._sent[request.action_id] = None
        deadline = self._now() + request.step.timeout_s
        try:
            result = await self._perform(request, device, observe, deadline)
        except EnvironmentFault:
            raise
        except AckLostError as err:
            result = ExecutionResult(
                ExecStatus.RETRY,
                request.action_id,
                detail=f"ack lost: {self.secrets.redact(str(err))}",
                layer=Layer.EXECUTION,
                maybe_applied=True,
            )
        except DeviceError as err:
            result = ExecutionResult(
                ExecStatus.EXCEPTION,
                request.action_id,
                detail=f"{type(err).__name__}: {self.secrets.redact(str(err))}",
                layer=Layer.EXECUTION,
            )
        self._sent[request.action_id] = result
        return result

    async def _perform(
        self, request: ExecutionRequest, device: Device, observe: ObserveFn, deadline: float
    ) -> ExecutionResult:
        step = request.step
        action = step.action
        if action in (Action.TAP, Action.LONG_PRESS):
            return await self._press(request, device, observe, deadline, long=action is Action.LONG_PRESS)
        if action is Action.INPUT_TEXT:
            return await self._type(request, device, observe, deadline)
        if action in (Action.SWIPE, Action.SCROLL):
            return await self._swipe(request, device, observe, deadline)
        if action in _KEYS:
            await device.press_key(_KEYS[action])
            return await self._done(request, observe, deadline, detail=f"pressed {_KEYS[action]}")
        if action is Action.WAIT_FOR:
            return await self._wait_for(request, observe, deadline)
        if action is Action.OPEN_APP:
            package, _, activity = (step.value or "").partition("/")
            await device.start_app(package, activity or None)
            return await self._done(request, observe, deadline, detail=f"started {step.value}")
        if action is Action.OPEN_DEEP_LINK:
            await device.open_uri(step.value or "")
            return await self._done(request, observe, deadline, detail=f"opened {step.value}")
        return ExecutionResult(
            ExecStatus.FAIL,
            request.action_id,
            detail=f"{action.value} is not a device primitive; the engine runs it",
            layer=Layer.DECISION,
        )

    async def _press(
        self, request: ExecutionRequest, device: Device, observe: ObserveFn, deadline: float, *, long: bool
    ) -> ExecutionResult:
        aim = _aim(request)
        if isinstance(aim, ExecutionResult):
            return aim
        element, bounds = aim
        x, y = _tap_point(request.screen, bounds)
        covered = _covered(request.screen, element, bounds, x, y)
        if covered:
            return ExecutionResult(
                ExecStatus.RETRY,
                request.action_id,
                detail=covered,
                element_id=element.element_id if element else None,
                point=(x, y),
                layer=Layer.EXECUTION,
            )
        if long:
            await device.long_press(x, y, self.long_press_ms)
        else:
            await device.tap(x, y)
        verb = "long-pressed" if long else "tapped"
        return await self._done(
            request,
            observe,
            deadline,
            detail=f"{verb} {_name(element, bounds)} at ({x}, {y})",
            element_id=element.element_id if element else None,
            point=(x, y),
        )

    async def _focus(self, device: Device, observe: ObserveFn, deadline: float, x: int, y: int) -> _Settled:
        """Tap a field to focus it and settle; a lost acknowledgement is fine, the observation decides."""
        with contextlib.suppress(AckLostError):
            await device.tap(x, y)
        return await self._settle(observe, deadline)

    async def _type(
        self, request: ExecutionRequest, device: Device, observe: ObserveFn, deadline: float
    ) -> ExecutionResult:
        aim = _aim(request)
        if isinstance(aim, ExecutionResult):
            return aim
        element, bounds = aim
        text = self.secrets.resolve(request.text if request.text is not None else request.step.value or "")
        written = request.step.value or ""
        shown_text = written if "${secret:" in written else text
        element_id = element.element_id if element else None
        x, y = _tap_point(request.screen, bounds)
        field = element
        if element is None or not element.focused:
            covered = _covered(request.screen, element, bounds, x, y)
            if covered:
                return ExecutionResult(
                    ExecStatus.RETRY,
                    request.action_id,
                    detail=covered,
                    element_id=element_id,
                    point=(x, y),
                    layer=Layer.EXECUTION,
                )
            focused = await self._focus(device, observe, deadline, x, y)
            field = _same_field(focused.observation.screen, element, bounds) if focused.observation else None
            if field is not None and not field.focused:
                # A focusing tap has no side effect, so one the device dropped is simply made again.
                focused = await self._focus(device, observe, deadline, x, y)
                field = _same_field(focused.observation.screen, element, bounds) if focused.observation else None
            if field is None or not field.focused:
                return ExecutionResult(
                    ExecStatus.RETRY,
                    request.action_id,
                    detail=f"{_name(element, bounds)} did not take focus after a tap",
                    element_id=element_id,
                    point=(x, y),
                    layer=Layer.EXECUTION,
                    settle_observations=focused.count,
                    after=focused.observation,
                )
        assert field is not None
        existing = _value_of(field)
        if existing:
            await device.press_key(KEYCODE_MOVE_END)
            for _ in range(len(existing)):
                await device.press_key("DEL")
        if text:
            await device.input_text(text)
        settled = await self._settle(observe, deadline)
        after = settled.observation

        def typed(status: ExecStatus, detail: str, layer: Layer | None = None) -> ExecutionResult:
            return ExecutionResult(
                status,
                request.action_id,
                detail=detail,
                element_id=field.element_id,
                point=(x, y),
                layer=layer,
                settle_observations=settled.count,
                after=after,
            )

        if field.password:
            return typed(
                ExecStatus.OK,
                f"typed {len(text)} characters into {_name(field, bounds)}, a password field; read-back skipped",
            )
        shown = _same_field(after.screen, field, bounds) if after else None
        value = _value_of(shown) if shown else None
        if value != text:
            shown_value = written if "${secret:" in written and value else value
            detail = self.secrets.redact(f"typed {shown_text!r} but {_name(field, bounds)} shows {shown_value!r}")
            return typed(ExecStatus.FAIL, detail, Layer.EXECUTION)
        return typed(
            ExecStatus.OK, self.secrets.redact(f"typed {shown_text!r} into {_name(field, bounds)}; read back the same")
        )

    async def _swipe(
        self, request: ExecutionRequest, device: Device, observe: ObserveFn, deadline: float
    ) -> ExecutionResult:
        step = request.step
        direction = (step.value or "down").strip().lower()
        if direction not in ("up", "down", "left", "right"):
            return ExecutionResult(
                ExecStatus.FAIL,
                request.action_id,
                detail=f"unknown direction {step.value!r}; use up, down, left or right",
                layer=Layer.DECISION,
            )
        area, name = _scroll_area(request)
        if step.action is Action.SCROLL:
            # Scrolling down through content moves the finger up.
            direction = {"up": "down", "down": "up", "left": "right", "right": "left"}[direction]
        x1, y1, x2, y2 = _stroke(area, direction)
        await device.swipe(x1, y1, x2, y2, self.swipe_ms)
        return await self._done(
            request, observe, deadline, detail=f"{step.action.value} {step.value or 'down'} in {name}", point=(x1, y1)
        )

    async def _wait_for(self, request: ExecutionRequest, observe: ObserveFn, deadline: float) -> ExecutionResult:
        target = request.step.target
        if not target:
            settled = await self._settle(observe, deadline)
            return ExecutionResult(
                ExecStatus.OK,
                request.action_id,
                detail="waited for the screen to settle",
                settle_observations=settled.count,
                after=settled.observation,
            )
        count = 0
        observation: Observation | None = None
        while True:
            observation = await observe()
            count += 1
            best = self.locator.find(target, observation.screen).best
            if best is not None:
                return ExecutionResult(
                    ExecStatus.OK,
                    request.action_id,
                    detail=f"{target!r} is visible after {count} observation(s)",
                    element_id=best.element_id,
                    settle_observations=count,
                    after=observation,
                )
            if self._now() + self.poll_s >= deadline:
                return ExecutionResult(
                    ExecStatus.FAIL,
                    request.action_id,
                    detail=f"{target!r} did not become visible within {request.step.timeout_s:g} s",
                    layer=Layer.EXECUTION,
                    settle_observations=count,
                    after=observation,
                )
            await self._sleep(self.poll_s)

    async def _done(
        self,
        request: ExecutionRequest,
        observe: ObserveFn,
        deadline: float,
        *,
        detail: str,
        element_id: str | None = None,
        point: tuple[int, int] | None = None,
    ) -> ExecutionResult:
        settled = await self._settle(observe, deadline)
        return ExecutionResult(
            ExecStatus.OK,
            request.action_id,
            detail=self.secrets.redact(detail),
            element_id=element_id,
            point=point,
            settle_observations=settled.count,
            after=settled.observation,
        )

    async def _settle(self, observe: ObserveFn, deadline: float) -> _Settled:
        """Observe until two consecutive fingerprints agree, at most ``max_settle_observations`` times."""
        last: Observation | None = None
        count = 0
        while count < self.max_settle_observations:
            observation = await observe()
            count += 1
            if last is not None and observation.screen.fingerprint == last.screen.fingerprint:
                return _Settled(observation, count)
            last = observation
            if self._now() >= deadline:
                break
        return _Settled(last, count)


def _aim(request: ExecutionRequest) -> tuple[Element | None, Bounds] | ExecutionResult:
    """The element and bounds to act on, or a FAIL result when the locator gave no candidate."""
    best = request.location.best if request.location else None
    if best is None:
        return ExecutionResult(
            ExecStatus.FAIL,
            request.action_id,
            detail=f"no candidate for {request.step.target!r}",
            layer=Layer.PERCEPTION,
        )
    return request.screen.element(best.element_id), best.bounds


def _tap_point(screen: Screen, bounds: Bounds) -> tuple[int, int]:
    """The centre of the part of ``bounds`` that is on the display (a row may reach past its edge)."""
    x1, y1 = max(bounds.x1, 0), max(bounds.y1, 0)
    x2, y2 = min(bounds.x2, screen.width), min(bounds.y2, screen.height)
    if x1 >= x2 or y1 >= y2:
        return bounds.center
    return ((x1 + x2) // 2, (y1 + y2) // 2)


def _name(element: Element | None, bounds: Bounds) -> str:
    if element is None:
        return f"the element at {bounds}"
    label = element.label or element.text or element.content_desc or element.resource_id.rsplit("/", 1)[-1]
    return f"{element.role} {label[:40]!r}" if label else f"{element.role} at {bounds}"


_MODAL_KINDS = frozenset({WindowKind.DIALOG, WindowKind.SYSTEM_POPUP})


def _covered(screen: Screen, element: Element | None, bounds: Bounds, x: int, y: int) -> str:
    """Why a tap at (x, y) would not reach the target, or "" when it would."""
    if element is not None:
        # A dialog or system popup is modal: it takes every touch until it is dismissed, so an app
        # element is out of reach even where the dialog's card does not lie over it.
        modal = [w for w in screen.windows if w.index > element.window and w.kind in _MODAL_KINDS]
        own = next((w.kind for w in screen.windows if w.index == element.window), None)
        if modal and own not in _MODAL_KINDS:
            what = _COVER_WORDS.get(modal[-1].kind, "another window")
            name = _name(element, bounds)
            return f"covered by {what}: it takes every touch until dismissed, so {name} is out of reach"
    top = screen.top_element_at(x, y)
    if top is None or element is None or top.element_id == element.element_id:
        return ""
    if _inside(screen, top, element, bounds):
        return ""
    if top.window > element.window:
        kind = next((w.kind for w in screen.windows if w.index == top.window), None)
        what = _COVER_WORDS.get(kind, "another window") if kind else "another window"
        return f"covered by {what}: {_name(element, bounds)} lies under {top.role} {top.label[:30]!r}"
    if top.clickable and top.window == element.window:
        return f"covered by {top.role} {top.label[:30]!r}: a tap would reach it instead of {_name(element, bounds)}"
    return ""


def _inside(screen: Screen, node: Element, target: Element, bounds: Bounds) -> bool:
    parent = node.parent_id
    while parent is not None:
        if parent == target.element_id:
            return True
        above = screen.element(parent)
        parent = above.parent_id if above else None
    b = node.bounds
    return (
        node.window == target.window
        and bounds.x1 <= b.x1
        and bounds.y1 <= b.y1
        and b.x2 <= bounds.x2
        and (b.y2 <= bounds.y2)
    )


def _same_field(screen: Screen, before: Element | None, bounds: Bounds) -> Element | None:
    """The field in a fresh screen: same id, else same bounds, else the focused field."""
    if before is not None:
        same = screen.element(before.element_id)
        if same is not None:
            return same
    fields = [e for e in screen.elements if e.role == "field" or "EditText" in e.cls]
    for field in fields:
        if field.bounds == bounds:
            return field
    return next((f for f in fields if f.focused), None)


def _value_of(field: Element | None) -> str:
    """The text a field holds; a field showing its hint holds nothing."""
    if field is None:
        return ""
    if field.hint and field.text == field.hint:
        return ""
    return field.text


def _scroll_area(request: ExecutionRequest) -> tuple[Bounds, str]:
    screen = request.screen
    best = request.location.best if request.location else None
    if best is not None:
        return best.bounds, repr(best.label or str(best.bounds))
    lists = [e for e in screen.visible_elements() if e.scrollable]
    if lists:
        biggest = max(lists, key=lambda e: e.bounds.area)
        return biggest.bounds, f"the scrollable {biggest.role} at {biggest.bounds}"
    return Bounds(0, 0, screen.width, screen.height), "the screen"


def _stroke(area: Bounds, finger: str) -> tuple[int, int, int, int]:
    cx, cy = area.center
    dx = int(area.width * SWIPE_SPAN / 2)
    dy = int(area.height * SWIPE_SPAN / 2)
    return {
        "up": (cx, cy + dy, cx, cy - dy),
        "down": (cx, cy - dy, cx, cy + dy),
        "left": (cx + dx, cy, cx - dx, cy),
        "right": (cx - dx, cy, cx + dx, cy),
    }[finger]
