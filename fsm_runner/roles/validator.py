"""The offline validator: expected states decided by code against a fresh Screen.

Outcome of one expectation: held, NOT_YET (a positive state that does not
hold yet and may still come, such as a target not found while a page loads),
FAIL (a "must not" state that holds: the thing that must not happen has
happened), or UNKNOWN (code cannot decide: prose, a predicate that raised, a
password field, a missing value). The verdict is the worst of them, in the
order FAIL, NOT_YET, UNKNOWN, PASS.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum

import attrs

from fsm_runner.errors import DefinitionError
from fsm_runner.perception.screen import Element, Screen
from fsm_runner.roles.base import Evidence, ValidatorView, Verdict, VerdictStatus
from fsm_runner.roles.lexicon import fold
from fsm_runner.roles.locator import RuleLocator
from fsm_runner.roles.values import substitute
from fsm_runner.steps import Check, Expect

Predicate = Callable[[Screen, Mapping[str, str]], bool]

_FLAG_CHECKS = {
    Check.ENABLED: "enabled",
    Check.CHECKED: "checked",
    Check.SELECTED: "selected",
    Check.FOCUSED: "focused",
}
_FALSE_WORDS = frozenset({"false", "no", "off", "0", "unchecked", "disabled"})


class _Outcome(Enum):
    HELD = "held"
    NOT_YET = "not yet"
    FAIL = "fail"
    UNKNOWN = "unknown"


_ORDER = (_Outcome.FAIL, _Outcome.NOT_YET, _Outcome.UNKNOWN)


@attrs.frozen
class _Finding:
    holds: bool | None
    found: str
    element_id: str | None = None


class RuleValidator:
    """Implements ``Validator`` with code only; ``predicates`` are the machine's registered checks."""

    def __init__(
        self, *, locator: RuleLocator | None = None, predicates: Mapping[str, Predicate] | None = None
    ) -> None:
        self.locator = locator or RuleLocator()
        self.predicates = dict(predicates or {})

    async def validate(self, view: ValidatorView) -> Verdict:
        """PASS when every expectation holds; else FAIL, NOT_YET or UNKNOWN with evidence for each."""
        return self.decide(view)

    def decide(self, view: ValidatorView) -> Verdict:
        """The synchronous core of :meth:`validate`."""
        evidence: list[Evidence] = []
        outcomes: list[_Outcome] = []
        for expect in view.expect:
            outcome, item = self._one(expect, view)
            outcomes.append(outcome)
            evidence.append(item)
        for worst in _ORDER:
            if worst in outcomes:
                failing = [e.expect for e, o in zip(evidence, outcomes, strict=True) if o is worst]
                status = {
                    _Outcome.FAIL: VerdictStatus.FAIL,
                    _Outcome.NOT_YET: VerdictStatus.NOT_YET,
                    _Outcome.UNKNOWN: VerdictStatus.UNKNOWN,
                }[worst]
                return Verdict(status, tuple(evidence), reason=f"{worst.value}: {'; '.join(failing)}")
        return Verdict(VerdictStatus.PASS, tuple(evidence), reason=f"all {len(evidence)} expected states hold")

    def check_definitions(self, expects: tuple[Expect, ...], *, step: int) -> None:
        """Raise DefinitionError for an expectation this validator can never evaluate (unknown predicate)."""
        for number, expect in enumerate(expects, start=1):
            if expect.check is Check.PREDICATE and expect.predicate not in self.predicates:
                known = ", ".join(sorted(self.predicates)) or "none registered"
                raise DefinitionError(
                    f"step {step} expect {number}: predicate {expect.predicate!r} is not registered (known: {known})",
                    field=f"steps[{step}].expect[{number}].predicate",
                    fix=f"register it with predicates={{'{expect.predicate}': fn}} or name a known predicate",
                )

    def _one(self, expect: Expect, view: ValidatorView) -> tuple[_Outcome, Evidence]:
        described = expect.describe()
        try:
            value = substitute(expect.value, view.values) if expect.value is not None else None
        except DefinitionError as err:
            return _Outcome.UNKNOWN, Evidence(described, False, f"cannot fill the value: {err}")
        if value is not None and "${secret:" in value:
            return _Outcome.UNKNOWN, Evidence(described, False, "secrets are never compared with the screen")
        finding = self._find(expect, value, view)
        if finding.holds is None:
            return _Outcome.UNKNOWN, Evidence(described, False, finding.found, finding.element_id)
        held = finding.holds != expect.negate
        evidence = Evidence(described, held, finding.found, finding.element_id)
        if held:
            return _Outcome.HELD, evidence
        return (_Outcome.FAIL if expect.negate else _Outcome.NOT_YET), evidence

    def _find(self, expect: Expect, value: str | None, view: ValidatorView) -> _Finding:
        screen = view.screen
        check = expect.check
        if check is Check.PROSE:
            return _Finding(None, "prose expectations need the LLM validator; the offline validator cannot judge")
        if check is Check.PREDICATE:
            return self._predicate(expect.predicate or "", view)
        if check is Check.PACKAGE:
            return _Finding(fold(screen.package) == fold(value or ""), f"package {screen.package!r}")
        if check is Check.ACTIVITY:
            if not screen.activity:
                return _Finding(None, "the current activity is not known")
            return _Finding(_same_activity(screen.activity, value or ""), f"activity {screen.activity!r}")
        if check is Check.TOAST:
            shown = [t for t in view.toasts if fold(value or "") in fold(t)]
            return _Finding(bool(shown), f"toasts {list(view.toasts)!r}")
        location = self.locator.find(expect.target or "", screen)
        element = screen.element(location.best.element_id) if location.best else None
        anchored = view.anchors.get(expect.target or "")
        if check not in (Check.VISIBLE, Check.ABSENT) and anchored and screen.element(anchored) is not None:
            # The step acted on this very element; its label may have changed (a field now shows
            # its value instead of its hint), but its stable id has not.
            element = screen.element(anchored)
        if check is Check.ABSENT:
            if element is None:
                return _Finding(True, f"not on screen ({location.reason})")
            return _Finding(False, f"present: {_show(element)}", element.element_id)
        if element is None:
            return _Finding(False, f"target not found ({location.reason})")
        if check is Check.VISIBLE:
            return _Finding(True, f"visible: {_show(element)}", element.element_id)
        if check is Check.CHECKED:
            element = _checkable_part(screen, element)
        return _element_check(check, element, value)

    def _predicate(self, name: str, view: ValidatorView) -> _Finding:
        predicate = self.predicates.get(name)
        if predicate is None:
            return _Finding(None, f"predicate {name!r} is not registered")
        try:
            result = predicate(view.screen, view.values)
        except Exception as err:  # a user predicate may fail in any way; the verdict is then unknown
            return _Finding(None, f"predicate {name!r} raised {type(err).__name__}: {err}")
        return _Finding(bool(result), f"predicate {name!r} returned {result!r}")


def _element_check(check: Check, element: Element, value: str | None) -> _Finding:
    shown = _show(element)
    if check in _FLAG_CHECKS:
        flag = _FLAG_CHECKS[check]
        wanted = not (value is not None and fold(value) in _FALSE_WORDS)
        actual = bool(getattr(element, flag))
        return _Finding(actual is wanted, f"{flag}={str(actual).lower()}: {shown}", element.element_id)
    text = _text_of(element)
    if check is Check.INPUT_VALUE:
        if element.password:
            return _Finding(None, f"password field shows dots; its value cannot be read: {shown}", element.element_id)
        return _Finding(text == (value or ""), f"input value {text!r}: {shown}", element.element_id)
    if check is Check.TEXT_EQUALS:
        return _Finding(fold(text) == fold(value or ""), f"text {text!r}: {shown}", element.element_id)
    return _Finding(fold(value or "") in fold(text), f"text {text!r}: {shown}", element.element_id)


def _checkable_part(screen: Screen, element: Element) -> Element:
    """The element that carries the checked state: itself, or the first checkable node inside it.

    The locator resolves a label to its clickable row; the row's switch or radio holds the state.
    """
    if element.checkable:
        return element
    for candidate in screen.elements:
        if candidate.checkable and _descends(screen, candidate, element.element_id):
            return candidate
    return element


def _descends(screen: Screen, node: Element, ancestor_id: str) -> bool:
    parent = node.parent_id
    while parent is not None:
        if parent == ancestor_id:
            return True
        above = screen.element(parent)
        parent = above.parent_id if above else None
    return False


def _text_of(element: Element) -> str:
    """What the element says; an empty field whose text is its hint counts as empty."""
    if element.role == "field" and element.hint and element.text == element.hint:
        return ""
    return element.text or (element.label if element.role != "field" else "") or element.content_desc


def _show(element: Element) -> str:
    label = element.label or element.text or element.content_desc
    return f"{element.element_id} {element.role} {label[:40]!r} {element.bounds}"


def _same_activity(actual: str, wanted: str) -> bool:
    def short(name: str) -> str:
        return name.rsplit("/", 1)[-1].rsplit(".", 1)[-1].casefold()

    return fold(actual) == fold(wanted) or short(actual) == short(wanted)
