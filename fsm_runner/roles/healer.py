"""The offline healer: classify a failure into one layer and decide what to do next.

Decisions, by what the failure and the screen show: a learned fix from the
failure-pattern file first; then dismiss a popup, press BACK under a covering
keyboard, scroll to find a target in a list, retry, re-plan, skip (only when
allowed) or abort. At most ``max_heals`` heals per step; past that, abort.
"""

from __future__ import annotations

from fsm_runner.perception.screen import Element, Screen, WindowKind
from fsm_runner.roles.base import Failure, HealAction, HealDecision, HealerView, Layer
from fsm_runner.roles.failure_patterns import FailurePatterns
from fsm_runner.roles.lexicon import POPUP_DISMISS_LABELS, fold
from fsm_runner.steps import Action, Step

#: The engine enforces the same cap; the healer never asks for more.
MAX_HEALS_PER_STEP = 3

#: Words a failure's cause may use, by the kind of failure they mean.
_CAUSES: dict[str, frozenset[str]] = {
    "environment": frozenset({"offline", "device", "environment", "adb", "disconnected", "crash"}),
    "not_found": frozenset({"not_found", "notfound", "missing", "no_candidates", "locate"}),
    "occluded": frozenset({"occluded", "covered", "keyboard"}),
    "execution": frozenset(
        {
            "ack_lost",
            "exception",
            "execution",
            "tap_dropped",
            "retry",
            "execute",
            "exec_retry",
            "exec_fail",
            "exec_exception",
            "no_effect",
        }
    ),
    "contradiction": frozenset({"verify_fail", "fail", "failed", "verdict_fail"}),
    "verify": frozenset({"not_yet", "timeout", "verify", "verify_timeout", "expectation"}),
    "unknown": frozenset({"unknown", "undecidable"}),
    "loop": frozenset({"loop", "stuck"}),
    "perception": frozenset({"dump", "perception", "parse", "perception_error"}),
    "decision": frozenset({"high_risk_refused", "decision", "plan", "no_plan"}),
}


_ROLE_ERROR_KIND = {Layer.DECISION: "decision", Layer.PERCEPTION: "perception", Layer.VERDICT: "unknown"}


def failure_kind(failure: Failure) -> str:
    """The kind of a failure from its cause word and detail: a key of the cause table, or "other".

    A detail saying the target is covered (by the keyboard, a dialog) makes it "occluded" whatever the cause.
    """
    detail = fold(failure.detail)
    if "covered by" in detail or "keyboard" in detail:
        return "occluded"
    cause = fold(failure.cause).replace(" ", "_").replace("-", "_")
    if cause == "role_error":
        # A role that raised belongs to the layer the engine blamed it on (a bad model answer is a decision).
        return _ROLE_ERROR_KIND.get(failure.layer, "execution")
    for kind, causes in _CAUSES.items():
        if cause in causes:
            return kind
    return "other"


class RuleHealer:
    """Implements ``Healer`` with rules and, when given, a failure-pattern file of learned fixes."""

    def __init__(self, patterns: FailurePatterns | None = None, *, max_heals: int = MAX_HEALS_PER_STEP) -> None:
        self.patterns = patterns
        self.max_heals = max_heals

    async def heal(self, view: HealerView) -> HealDecision:
        """One decision for this failure; ABORT once the step has used its heals."""
        return self.decide(view)

    def decide(self, view: HealerView) -> HealDecision:
        """The synchronous core of :meth:`heal`."""
        failure = view.failure
        if view.heals_this_step >= self.max_heals:
            return HealDecision(
                HealAction.ABORT,
                failure.layer,
                reason=f"step {failure.step_index} already healed {view.heals_this_step} times (cap {self.max_heals})",
            )
        learned = self._learned(view)
        if learned is not None:
            return learned
        return self._by_rules(view)

    def record_success(self, view: HealerView, decision: HealDecision) -> None:
        """Tell the healer that ``decision`` healed the failure in ``view``; kept for next time."""
        if self.patterns is None:
            return
        self.patterns.record_success(
            view.failure.cause, view.page_summary, _target(view), decision.action, decision.layer, decision.remedy
        )

    def _learned(self, view: HealerView) -> HealDecision | None:
        if self.patterns is None:
            return None
        pattern = self.patterns.lookup(view.failure.cause, view.page_summary, _target(view))
        if pattern is None or (pattern.action is HealAction.SKIP and not view.skip_allowed):
            return None
        return HealDecision(
            pattern.action,
            pattern.layer,
            reason=f"known failure: {pattern.action.value} worked {pattern.successes} time(s) before",
            remedy=pattern.remedy.to_step() if pattern.remedy else None,
        )

    def _by_rules(self, view: HealerView) -> HealDecision:
        failure, screen, tries = view.failure, view.screen, view.heals_this_step
        kind = failure_kind(failure)
        if kind == "environment" or failure.layer is Layer.ENVIRONMENT:
            return HealDecision(HealAction.ABORT, Layer.ENVIRONMENT, reason=f"environment failure: {failure.detail}")
        if screen is not None and kind not in ("unknown", "decision", "perception"):
            popup = _popup_window(screen)
            if popup is not None:
                return _dismiss(screen, popup)
            if kind == "occluded" and screen.keyboard_shown:
                return HealDecision(
                    HealAction.RETRY,
                    Layer.EXECUTION,
                    reason="the target is covered by the keyboard; hide it with BACK and retry",
                    remedy=Step(Action.PRESS_BACK, intent="remedy: hide the keyboard"),
                )
        if kind == "not_found":
            if screen is not None and tries < 2 and _scrollable(screen) is not None:
                return HealDecision(
                    HealAction.SCROLL_TO_FIND,
                    Layer.PERCEPTION,
                    reason="target not on the visible part of a scrollable list; scroll down and look again",
                    remedy=Step(Action.SCROLL, value="down", intent="remedy: scroll to find the target"),
                )
            if tries == 0:
                return HealDecision(
                    HealAction.RETRY, Layer.PERCEPTION, reason="target not found; the page may still load"
                )
            return self._give_up_or_replan(view, Layer.DECISION, "the target is not on this page")
        if kind == "occluded":
            return HealDecision(
                HealAction.RETRY, Layer.EXECUTION, reason="the target was covered; retry after settling"
            )
        if kind == "contradiction":
            return self._skip_or_abort(view, Layer.VERDICT, f"a state that must not hold holds: {failure.detail}")
        if kind == "decision":
            return self._give_up_or_replan(view, Layer.DECISION, failure.detail)
        if kind == "unknown":
            return self._skip_or_abort(view, Layer.VERDICT, "the expected state cannot be decided by code")
        if kind == "loop":
            if tries == 0:
                return HealDecision(HealAction.REPLAN, Layer.DECISION, reason="the same screen keeps coming back")
            return self._skip_or_abort(view, Layer.DECISION, "re-planning did not break the loop")
        if kind == "perception":
            return HealDecision(
                HealAction.RETRY, Layer.PERCEPTION, reason=f"the screen could not be read: {failure.detail}"
            )
        if kind == "verify":
            # VERIFY already waited out the step's whole window. Repeating the action could repeat
            # its effect (a second payment), so an unmet expectation with nothing in the way is the
            # test's verdict, not something to retry.
            return self._skip_or_abort(view, Layer.VERDICT, f"the expected state never came: {failure.detail}")
        if tries == 0:
            layer = Layer.EXECUTION if kind == "execution" else failure.layer
            return HealDecision(HealAction.RETRY, layer, reason=f"{failure.cause}: try the step once more")
        # An action that failed again (a tap the device dropped twice) is still the execution
        # layer's doing; asking for another step does not make it the planner's.
        layer = Layer.EXECUTION if kind == "execution" else Layer.DECISION
        return self._give_up_or_replan(view, layer, failure.detail)

    def _give_up_or_replan(self, view: HealerView, layer: Layer, why: str) -> HealDecision:
        """REPLAN while heals remain, else skip or abort; either way the failure keeps ``layer``."""
        if view.heals_this_step < self.max_heals - 1:
            return HealDecision(HealAction.REPLAN, layer, reason=f"{why}; ask for another step")
        return self._skip_or_abort(view, layer, why)

    def _skip_or_abort(self, view: HealerView, layer: Layer, why: str) -> HealDecision:
        if view.skip_allowed:
            return HealDecision(HealAction.SKIP, layer, reason=f"{why}; the machine allows skipping this step")
        return HealDecision(HealAction.ABORT, layer, reason=f"{why}; skipping is not allowed")


def _target(view: HealerView) -> str | None:
    """The failing step's target: from the failure, else the latest record of the failing step."""
    if view.failure.target is not None:
        return view.failure.target
    for record in reversed(view.recent):
        if record.index == view.failure.step_index:
            return record.target
    return None


def _popup_window(screen: Screen) -> int | None:
    for window in reversed(screen.windows):
        if window.kind in (WindowKind.SYSTEM_POPUP, WindowKind.DIALOG):
            return window.index
    return None


def _dismiss(screen: Screen, window: int) -> HealDecision:
    kind = next(w.kind for w in screen.windows if w.index == window)
    layer = Layer.ENVIRONMENT if kind is WindowKind.SYSTEM_POPUP else Layer.EXECUTION
    buttons = [e for e in screen.elements if e.window == window and e.visible and not e.occluded and e.clickable]
    for wanted in POPUP_DISMISS_LABELS:
        for button in buttons:
            if _label(button) == wanted:
                return HealDecision(
                    HealAction.DISMISS_POPUP,
                    layer,
                    reason=f"a {kind.value.replace('_', ' ')} is in the way; tap {button.label!r} and retry",
                    remedy=Step(Action.TAP, target=f'"{button.label or button.text}"', intent="remedy: dismiss popup"),
                )
    return HealDecision(
        HealAction.DISMISS_POPUP,
        layer,
        reason=f"a {kind.value.replace('_', ' ')} is in the way and has no known close button; press BACK",
        remedy=Step(Action.PRESS_BACK, intent="remedy: dismiss popup"),
    )


def _label(element: Element) -> str:
    return fold(element.label or element.text or element.content_desc)


def _scrollable(screen: Screen) -> Element | None:
    lists = [e for e in screen.visible_elements() if e.scrollable]
    return max(lists, key=lambda e: e.bounds.area) if lists else None
