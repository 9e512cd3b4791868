"""The LLM locator tier: asked only when the rule locator is unsure, and only about ids on the screen."""

from __future__ import annotations

import json
from collections.abc import Callable

from fsm_runner.convert import converter
from fsm_runner.llm.cache import CachedDecision, DecisionCache
from fsm_runner.llm.client import LlmClient, Messages
from fsm_runner.llm.profiles import Profile
from fsm_runner.llm.schema import LocatorAnswer, ask, parse_answer
from fsm_runner.llm.vision import image_part
from fsm_runner.perception import element_line
from fsm_runner.perception.screen import Screen, WindowKind
from fsm_runner.roles.base import Candidate, Location, LocatorView, Usage
from fsm_runner.roles.locator import RuleLocator

#: The rule locator's best score at or above which the model is not consulted.
DEFAULT_THRESHOLD = 0.75
#: The score given to the model's pick: believable, but below an exact rule match.
LLM_SCORE = 0.7


#: Windows whose elements nobody means by a target description: system bars, and key caps (typing is its own action).
_UNLISTED_WINDOWS = frozenset({WindowKind.STATUS_BAR, WindowKind.NAVIGATION_BAR, WindowKind.KEYBOARD})


def locator_screen_text(screen: Screen) -> str:
    """The locator's view of ``screen`` for the model: elements one can point at, with their centre points.

    Occluded elements, labels merged into their container and unlabelled
    decoration are left out (the rules already say when a match is covered), as
    are the system bars and the keyboard's keys, which cost many tokens and are
    never a target.
    """
    kinds = {w.index: w for w in screen.windows}
    lines: list[str] = []
    header = None
    for element in screen.elements:
        window = kinds.get(element.window)
        if window is None or not element.visible or element.occluded or element.merged:
            continue
        if window.kind in _UNLISTED_WINDOWS or not (element.interactive or element.label.strip()):
            continue
        if header != window.index:
            header = window.index
            lines.append(f"[{window.kind.value}]" if window.package == screen.package else
                         f"[{window.kind.value} {window.package}]")
        # The centre point is enough for "left of" / "below" and costs a third of the full bounds.
        x, y = element.bounds.center
        lines.append(f"{element_line(element, 'validator')} @{x},{y}")
    if screen.keyboard_shown:
        lines.append("[keyboard shown; keys not listed]")
    return "\n".join(lines)


def locator_messages(view: LocatorView) -> Messages:
    """The user message: the target description and the compact screen; never the goal."""
    return [{"role": "user", "content": f"TARGET: {view.target}\nSCREEN:\n{locator_screen_text(view.screen)}"}]


def _pick(answer: LocatorAnswer, screen: Screen) -> LocatorAnswer:
    if answer.element_id is not None and screen.element(answer.element_id) is None:
        raise ValueError(f"element id {answer.element_id!r} is not on the screen; use an id from the SCREEN lines")
    return answer


class LlmLocator:
    """Implements ``Locator``: the rule locator first, the model when its best score is below ``threshold``.

    Model picks are cached under (machine, "locate: <target>", fingerprint) like plans.
    With a vision profile, ``screenshot`` gives the prepared screenshot sent beside the text.
    """

    def __init__(
        self,
        client: LlmClient,
        profile: Profile,
        *,
        rules: RuleLocator | None = None,
        threshold: float = DEFAULT_THRESHOLD,
        machine: str = "",
        cache: DecisionCache | None = None,
        screenshot: Callable[[], bytes | None] | None = None,
    ) -> None:
        self.client = client
        self.profile = profile
        self.rules = rules or RuleLocator()
        self.threshold = threshold
        self.machine = machine
        self.cache = cache
        self.screenshot = screenshot

    async def locate(self, view: LocatorView) -> Location:
        """Rule candidates when confident; otherwise the model's pick (or its "not found")."""
        ruled = self.rules.find(view.target, view.screen)
        if ruled.best is not None and ruled.best.score >= self.threshold:
            return ruled
        if getattr(ruled, "covered", False):
            # The match exists under a keyboard or dialog: a perception fact for the healer, not a question.
            return ruled
        intent = f"locate: {view.target}"
        fingerprint = view.screen.fingerprint
        usage = Usage(cache_hits=1)
        answer = self._cached(intent, view.screen)
        if answer is None:
            asked, usage = await ask(
                self.client,
                self.profile,
                self._messages(view),
                LocatorAnswer,
                lambda a: _pick(a, view.screen),
                key=view.target,
                fingerprint=fingerprint,
            )
            answer = asked
            if self.cache is not None and fingerprint:
                text = json.dumps(converter.unstructure(answer), ensure_ascii=False, sort_keys=True)
                self.cache.put(CachedDecision(self.machine, intent, fingerprint, text))
        element = view.screen.element(answer.element_id) if answer.element_id else None
        if element is None:
            reason = f"model: {answer.reason or 'nothing matches'}"
            return Location((), reason=reason, decided_by="llm", usage=usage)
        candidate = Candidate(element.element_id, element.bounds, LLM_SCORE, f"model: {answer.reason}", element.label)
        rest = tuple(c for c in ruled.candidates if c.element_id != element.element_id)
        return Location((candidate, *rest), reason=f"model picked {element.element_id}", decided_by="llm", usage=usage)

    def _messages(self, view: LocatorView) -> Messages:
        messages = locator_messages(view)
        png = self.screenshot() if self.profile.vision and self.screenshot is not None else None
        if png is None:
            return messages
        return [{"role": "user", "content": [{"type": "text", "text": messages[0]["content"]}, image_part(png)]}]

    def _cached(self, intent: str, screen: Screen) -> LocatorAnswer | None:
        if self.cache is None or not screen.fingerprint:
            return None
        entry = self.cache.get(self.machine, intent, screen.fingerprint)
        if entry is None:
            return None
        try:
            return _pick(parse_answer(entry.decision, LocatorAnswer), screen)
        except ValueError:
            return None
