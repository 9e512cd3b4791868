"""The LLM planner: one next step at a time, from the planner's view, with the decision cache in front.

A cached decision for (machine, step intent, screen fingerprint) is used
without a call; a miss asks the model and stores the answer, replacing what
the same intent decided on another screen (a self-heal, reported as the
``llm.cache_replaced`` event with both decisions). "Done" is accepted only when
the done check (the goal's success expectations) agrees.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

import attrs

from fsm_runner.convert import converter
from fsm_runner.events import emit
from fsm_runner.llm.cache import CachedDecision, DecisionCache
from fsm_runner.llm.client import LlmClient, Messages
from fsm_runner.llm.profiles import Profile
from fsm_runner.llm.schema import PlannerAnswer, ask, parse_answer
from fsm_runner.llm.vision import image_part
from fsm_runner.roles.base import PlanDecision, PlannerView, Usage, Verdict, VerdictStatus
from fsm_runner.steps import Action, Check, Expect, Step

#: Checks the success expectations of the goal on the current screen (PASS means the goal is reached).
DoneCheck = Callable[[], Awaitable[Verdict]]
#: The prepared screenshot of the current screen, or None (vision profiles only).
ScreenshotSource = Callable[[], bytes | None]

_ELEMENT_ID = re.compile(r"e[a-z0-9]{6}")


def planner_key(step_index: int) -> str:
    """The decision key the planner sends for a step (replay files use it)."""
    return f"step {step_index}"


def planner_messages(view: PlannerView, page_map: str = "", note: str = "") -> Messages:
    """The user message for ``view``: goal, page, compact screen, page map and recent steps."""
    lines = [f"GOAL: {view.goal}", f"STEP: {view.step_index + 1}", f"PAGE: {view.page_summary}", "SCREEN:"]
    lines.append(view.screen_text)
    chosen_map = page_map or view.page_map
    if chosen_map:
        lines += ["PAGE MAP:", chosen_map.strip()]
    if view.earlier:
        lines.append(f"EARLIER STEPS: {view.earlier}")
    if view.recent:
        lines.append("RECENT STEPS:")
        for record in view.recent:
            target = f" {record.target!r}" if record.target else ""
            lines.append(f"{record.index + 1}. {record.intent} [{record.action}{target}] -> {record.outcome}")
    if note:
        lines.append(f"NOTE: {note}")
    return [{"role": "user", "content": "\n".join(lines)}]


def step_of(answer: PlannerAnswer, screen_text: str = "") -> Step | None:
    """The step an answer proposes (None for done); ValueError or DefinitionError says why it is unusable."""
    if answer.done:
        return None
    proposed = answer.step
    if proposed is None:
        raise ValueError('"done" is false but no "step" was given')
    if proposed.action == Action.RUN_MACHINE.value:
        raise ValueError("action 'run_machine' is not available to the planner")
    target = (proposed.target or "").strip()
    if target and _ELEMENT_ID.fullmatch(target) and target in screen_text:
        raise ValueError(f"target {target!r} is an element id; describe the element in words as shown on the page")
    expects = []
    for item in proposed.expect:
        if item.check == Check.PREDICATE.value:
            raise ValueError("'predicate' checks are not available to the planner; use visible, text_contains, ...")
        expects.append(Expect(item.check, target=item.target, value=item.value, negate=item.negate))
    return Step(
        proposed.action,
        target=proposed.target,
        value=proposed.value,
        expect=expects,
        intent=proposed.intent,
        high_risk=proposed.high_risk,
    )


@attrs.define
class _Pending:
    """The last decision, waiting to learn which screen it led to."""

    intent: str
    fingerprint: str
    led_to: str
    cached: bool


class LlmPlanner:
    """Implements ``Planner`` with a model behind a decision cache.

    ``machine`` names the cache entries; ``page_map`` (YAML text) is given to
    the model with every question; ``done_check`` verifies a "done" answer.
    """

    needs_screen = True

    def __init__(
        self,
        client: LlmClient,
        profile: Profile,
        *,
        machine: str,
        cache: DecisionCache | None = None,
        page_map: str = "",
        done_check: DoneCheck | None = None,
        screenshot: ScreenshotSource | None = None,
    ) -> None:
        self.client = client
        self.profile = profile
        self.machine = machine
        self.cache = cache
        self.page_map = page_map
        self.done_check = done_check
        self.screenshot = screenshot
        self._pending: _Pending | None = None
        self._last: tuple[int, Step | None] | None = None

    async def close(self) -> None:
        """Close the client's connections (call once the runs using this planner are over)."""
        await self.client.close()

    async def plan(self, view: PlannerView) -> PlanDecision:
        """The next step for ``view`` (or done), from the cache when it holds this screen's decision."""
        self._settle(view.fingerprint)
        intent = f"step {view.step_index}: {view.goal}"
        replanning = self._last is not None and self._last[0] == view.step_index
        note = ""
        if replanning and self._last is not None and self._last[1] is not None:
            note = f"your previous step here ({self._last[1].describe()}) failed; propose a different step"
        elif not replanning:
            cached = await self._from_cache(intent, view)
            if cached is not None:
                return cached
        answer, step, usage = await self._ask(view, note)
        if step is None and self.done_check is not None:
            verdict = await self.done_check()
            if verdict.status is not VerdictStatus.PASS:
                more = f"the goal is not reached yet ({verdict.reason}); propose the next step"
                answer, step, extra = await self._ask(view, more)
                usage = usage + extra
        self._store(intent, view.fingerprint, answer)
        self._last = (view.step_index, step)
        return PlanDecision(step=step, done=step is None, reason=answer.reason, decided_by="llm", usage=usage)

    async def _from_cache(self, intent: str, view: PlannerView) -> PlanDecision | None:
        if self.cache is None or not view.fingerprint:
            return None
        entry = self.cache.get(self.machine, intent, view.fingerprint)
        if entry is None:
            return None
        try:
            answer = parse_answer(entry.decision, PlannerAnswer)
            step = step_of(answer, view.screen_text)
        except ValueError:
            return None
        if step is None and self.done_check is not None:
            verdict = await self.done_check()
            if verdict.status is not VerdictStatus.PASS:
                emit("llm.cache_stale", ts=self.client.clock.now(), machine=self.machine, intent=intent,
                     fingerprint=view.fingerprint, why=f"cached 'done' not confirmed: {verdict.reason}")
                return None
        self._pending = _Pending(intent, view.fingerprint, entry.led_to, cached=True)
        self._last = (view.step_index, step)
        emit("llm.cache_hit", ts=self.client.clock.now(), machine=self.machine, intent=intent,
             fingerprint=view.fingerprint)
        return PlanDecision(
            step=step,
            done=step is None,
            reason=answer.reason,
            decided_by="cache",
            usage=Usage(cache_hits=1),
            cache_hit=True,
        )

    async def _ask(self, view: PlannerView, note: str) -> tuple[PlannerAnswer, Step | None, Usage]:
        messages = planner_messages(view, self.page_map, note)
        png = self.screenshot() if self.profile.vision and self.screenshot is not None else None
        if png is not None:
            parts = [{"type": "text", "text": messages[0]["content"]}, image_part(png)]
            messages = [{"role": "user", "content": parts}]

        def check(answer: PlannerAnswer) -> tuple[PlannerAnswer, Step | None]:
            return answer, step_of(answer, view.screen_text)

        (answer, step), usage = await ask(
            self.client,
            self.profile,
            messages,
            PlannerAnswer,
            check,
            key=planner_key(view.step_index),
            fingerprint=view.fingerprint,
        )
        return answer, step, usage

    def _store(self, intent: str, fingerprint: str, answer: PlannerAnswer) -> None:
        self._pending = _Pending(intent, fingerprint, "", cached=False)
        if self.cache is None or not fingerprint:
            return
        decision = json.dumps(converter.unstructure(answer), ensure_ascii=False, sort_keys=True)
        replaced = self.cache.others(self.machine, intent, fingerprint)
        # A re-plan on the same screen overwrites the decision that failed there: a replacement too.
        same = self.cache.get(self.machine, intent, fingerprint, count_hit=False)
        if same is not None and same.decision != decision:
            replaced.append(same)
        stored = self.cache.put(CachedDecision(self.machine, intent, fingerprint, decision), replacing=replaced)
        if stored and replaced:
            emit(
                "llm.cache_replaced",
                ts=self.client.clock.now(),
                machine=self.machine,
                intent=intent,
                old_fingerprint=replaced[-1].fingerprint,
                new_fingerprint=fingerprint,
                old=_decision_summary(replaced[-1].decision),
                new=_decision_summary(decision),
            )

    def _settle(self, fingerprint: str) -> None:
        """The previous decision led to ``fingerprint``: record it, and flag a cached one that led elsewhere."""
        pending, self._pending = self._pending, None
        if pending is None or self.cache is None or not fingerprint:
            return
        if pending.cached and pending.led_to and pending.led_to != fingerprint:
            emit(
                "llm.cache_stale",
                ts=self.client.clock.now(),
                machine=self.machine,
                intent=pending.intent,
                fingerprint=pending.fingerprint,
                expected=pending.led_to,
                found=fingerprint,
            )
        if pending.led_to != fingerprint:
            self.cache.set_led_to(self.machine, pending.intent, pending.fingerprint, fingerprint)


def _decision_summary(decision: str) -> dict[str, Any]:
    try:
        answer = parse_answer(decision, PlannerAnswer)
        step = step_of(answer)
    except ValueError:
        return {"raw": decision[:200]}
    return {"done": True} if step is None else {"step": step.describe(), "action": step.action.value,
                                                "target": step.target}
