"""The offline locator: lexical and attribute matching of a description against a Screen.

Only visible, non-occluded elements are candidates. A label resolves to its
clickable container. Below ``min_score`` nothing is returned: the locator
refuses rather than guesses, and says why (for example that the exact match is
covered by the keyboard).
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from fsm_runner.perception.screen import Element, Screen, WindowKind
from fsm_runner.roles.base import Candidate, Location, LocatorView
from fsm_runner.roles.lexicon import ACTIONABLE_ROLES, class_role, fold, is_cjk, resource_words, words
from fsm_runner.roles.target import Target, parse_target

#: Below this a match is a guess; the locator returns "not found" instead.
MIN_SCORE = 0.5
#: Matches this close to the best are "the same kind" for ordinals ("the second Delete").
ORDINAL_BAND = 0.15
_ROLE_MISMATCH = 0.7
_SYSTEM_BAR = 0.9
_CONTAINER_MAX_SHARE = 0.5
_LITERAL_MIN = 0.8
_FIELD_LABEL_REACH = 3.0
_RELATION_WORDS = {"row": "in the row of", "near": "next to", "below": "below", "above": "above"}
_CONTROL_ROLES = frozenset({"field", "switch", "checkbox", "radio"})


@attrs.frozen
class _Match:
    element: Element
    score: float
    reason: str
    role_mismatch: bool = False
    via: str = ""


class RuleLocator:
    """Implements the ``Locator`` protocol with rules only; no LLM, no network."""

    def __init__(self, *, top_k: int = 3, min_score: float = MIN_SCORE) -> None:
        self.top_k = top_k
        self.min_score = min_score

    async def locate(self, view: LocatorView) -> Location:
        """Rank visible elements against ``view.target``; no candidates when nothing fits."""
        return self.find(view.target, view.screen)

    def find(self, description: str, screen: Screen) -> Location:
        """The synchronous core of :meth:`locate`, also used by the validator and the CLI."""
        target = parse_target(description)
        if target.literal is not None:
            literal = self._rank(target.literal, screen)
            if literal and literal[0].score >= _LITERAL_MIN:
                return self._location(literal, target.literal, screen)
        ranked = self._rank(target, screen)
        if not ranked:
            reason, covered = self._why_not_found(target, screen)
            return Location((), reason=reason, covered=covered)
        return self._location(ranked, target, screen)

    def _location(self, ranked: list[_Match], target: Target, screen: Screen) -> Location:
        top = ranked[: self.top_k]
        candidates = tuple(
            Candidate(m.element.element_id, m.element.bounds, round(m.score, 3), m.reason, m.element.label) for m in top
        )
        return Location(candidates, reason=f"understood {target.describe()}")

    def _rank(self, target: Target, screen: Screen) -> list[_Match]:
        visible = [e for e in screen.visible_elements()]
        matches = self._matches(target, visible, screen)
        if not matches:
            return []
        if target.relation and target.anchor:
            matches = self._relate(target, matches, visible, screen)
            if not matches:
                return []
        elif target.ordinal is not None:
            return _pick_ordinal(matches, target.ordinal)
        return sorted(matches, key=lambda m: (-m.score, m.element.bounds.y1, m.element.bounds.x1))

    def _matches(self, target: Target, elements: list[Element], screen: Screen) -> list[_Match]:
        by_id: dict[str, _Match] = {}
        for element in elements:
            match = _score(target, element)
            if match is None or match.score < self.min_score or not _satisfies(element, target.states):
                continue
            if match.role_mismatch and target.roles & _CONTROL_ROLES:
                match = _control_for_label(match, elements, target.roles) or match
            match = _to_container(match, screen, target)
            if screen.windows and _window_kind(screen, match.element) in (
                WindowKind.STATUS_BAR,
                WindowKind.NAVIGATION_BAR,
            ):
                match = attrs.evolve(match, score=match.score * _SYSTEM_BAR)
            if match.score < self.min_score:
                continue
            known = by_id.get(match.element.element_id)
            if known is None or match.score > known.score:
                by_id[match.element.element_id] = match
        return list(by_id.values())

    def _relate(self, target: Target, matches: list[_Match], visible: list[Element], screen: Screen) -> list[_Match]:
        anchor_target = parse_target(target.anchor or "")
        if anchor_target.label:
            anchor_target = attrs.evolve(anchor_target, roles=frozenset())
        anchors = [
            m for m in (_score(anchor_target, e) for e in visible) if m is not None and m.score >= self.min_score
        ]
        if not anchors:
            return []
        best_anchor = max(a.score for a in anchors)
        anchors = [a for a in anchors if a.score >= best_anchor - ORDINAL_BAND]
        ids = {m.element.element_id for m in matches}
        anchor_label = anchor_target.label or target.anchor or ""
        related: list[tuple[float, _Match]] = []
        for match in matches:
            distance = min(
                _relation_distance(target.relation or "", match.element, a.element, screen, ids, anchor_label)
                for a in anchors
            )
            if distance != float("inf"):
                related.append((distance, match))
        related.sort(key=lambda dm: (dm[0], -dm[1].score))
        return [
            attrs.evolve(
                m,
                reason=f"{m.reason}; {_RELATION_WORDS.get(target.relation or '', '')} {anchor_label!r}",
                score=max(self.min_score, m.score - 0.05 * i),
            )
            for i, (_, m) in enumerate(related)
        ]

    def _why_not_found(self, target: Target, screen: Screen) -> tuple[str, bool]:
        hidden = [e for e in screen.elements if not (e.visible and not e.occluded)]
        best: _Match | None = None
        for element in hidden:
            match = _score(target, element)
            if match is not None and match.score >= self.min_score and (best is None or match.score > best.score):
                best = match
        what = target.describe()
        if best is None:
            return f"nothing on the screen matches {what}", False
        name = best.element.label or best.element.text or best.element.content_desc or what
        if best.element.visible and best.element.occluded:
            return f"{name!r} is covered by {_cover_name(screen, best.element)}", True
        return f"{name!r} is not visible (off-screen or hidden); scrolling may reveal it", False


def _roles(element: Element) -> frozenset[str]:
    roles = {element.role, class_role(element.cls)}
    if element.clickable and not roles & ACTIONABLE_ROLES:
        roles.add("button")
    if element.checkable and not roles & {"switch", "checkbox", "radio"}:
        roles.add("checkbox")
    if element.role == "field" or "EditText" in element.cls:
        roles.add("field")
    roles.discard("")
    return frozenset(roles)


def _names(element: Element) -> Iterable[tuple[str, str, float]]:
    yield "text", element.text, 1.0
    yield "content-desc", element.content_desc, 1.0
    yield "label", element.label, 0.97
    yield "hint", element.hint, 0.95
    if element.resource_id:
        yield "resource-id", " ".join(resource_words(element.resource_id)), 0.85


def _word_hit(query: str, names: list[str]) -> bool:
    for name in names:
        if query == name:
            return True
        stem = name.startswith(query) or query.startswith(name)
        if stem and min(len(query), len(name)) >= 4 and abs(len(name) - len(query)) <= 3:
            return True
        if is_cjk(query[0]) and query in name:
            return True
    return False


def _label_score(target: Target, text: str) -> float:
    """1.0 for the same label, 0.6..0.95 when every label word is in ``text``, else 0."""
    folded = fold(text)
    if not folded or not target.label:
        return 0.0
    if folded == target.label:
        return 1.0
    if "".join(words(folded)) == "".join(target.label_words):
        return 0.98
    if target.exact:
        return 0.0
    name_words = words(folded)
    if not name_words or not all(_word_hit(q, name_words) for q in target.label_words):
        return 0.0
    query_len = sum(len(w) for w in target.label_words)
    name_len = sum(len(w) for w in name_words)
    return 0.6 + 0.35 * min(1.0, query_len / max(1, name_len))


def _score(target: Target, element: Element) -> _Match | None:
    roles = _roles(element)
    if not target.label:
        if not target.roles or roles.isdisjoint(target.roles):
            return None
        return _Match(element, 0.7, f"a {target.role_word}")
    best, why, via = 0.0, "", ""
    for kind, text, weight in _names(element):
        score = _label_score(target, text) * weight
        if score > best:
            best, why, via = score, f"{kind} {fold(text)[:40]!r}", kind
    if best == 0.0:
        return None
    if target.roles and roles.isdisjoint(target.roles):
        best *= _ROLE_MISMATCH
        why += f", but it is a {'/'.join(sorted(roles)) or 'plain node'}, not a {target.role_word}"
    elif target.roles:
        best = min(1.0, best + 0.02)
        why += f", {target.role_word}"
    mismatch = bool(target.roles) and roles.isdisjoint(target.roles)
    return _Match(element, best, ("exact " if best >= 0.97 else "partial ") + why, mismatch, via)


def _satisfies(element: Element, states: tuple[tuple[str, bool], ...]) -> bool:
    return all(bool(getattr(element, flag)) is wanted for flag, wanted in states)


def _to_container(match: _Match, screen: Screen, target: Target) -> _Match:
    """A plain label inside a clickable container stands for the container.

    A node matched on its own resource id ("product_price") was named for itself, so it stays.
    """
    element = match.element
    if element.clickable or element.long_clickable or element.scrollable or "field" in _roles(element):
        return match
    if match.via == "resource-id":
        return match
    limit = screen.width * screen.height * _CONTAINER_MAX_SHARE
    parent_id = element.parent_id
    steps = 0
    while parent_id is not None and steps < 4:
        parent = screen.element(parent_id)
        if parent is None:
            break
        if parent.clickable or parent.checkable:
            if parent.bounds.area <= limit and parent.visible and not parent.occluded:
                if (
                    target.roles
                    and _roles(parent).isdisjoint(target.roles)
                    and not _roles(element).isdisjoint(target.roles)
                ):
                    return match
                return _Match(parent, match.score, f"{match.reason} (its clickable container)")
            break
        parent_id = parent.parent_id
        steps += 1
    return match


def _control_for_label(match: _Match, elements: list[Element], roles: frozenset[str]) -> _Match | None:
    """A text label names the control beside it (a switch or field on its line) or the field below it."""
    label = match.element.bounds
    best: tuple[float, Element] | None = None
    for element in elements:
        if _roles(element).isdisjoint(roles) or element.element_id == match.element.element_id:
            continue
        b = element.bounds
        same_line = b.y1 < label.y2 and label.y1 < b.y2 and b.x1 >= label.x1
        below = (
            "field" in _roles(element)
            and b.y1 >= label.y1
            and b.y1 - label.y2 <= _FIELD_LABEL_REACH * max(1, label.height)
            and b.x1 < label.x2 + label.width
            and label.x1 < b.x2
        )
        if same_line or below:
            distance = abs(b.center[1] - label.center[1]) + abs(b.x1 - label.x2) * 0.5
            if best is None or distance < best[0]:
                best = (distance, element)
    if best is None:
        return None
    score = min(1.0, match.score / _ROLE_MISMATCH * 0.95)
    return _Match(best[1], score, f"{match.reason.split(', but')[0]} (the {best[1].role} it labels)")


def _pick_ordinal(matches: list[_Match], ordinal: int) -> list[_Match]:
    top = max(m.score for m in matches)
    peers = sorted(
        (m for m in matches if m.score >= top - ORDINAL_BAND),
        key=lambda m: (m.element.bounds.y1, m.element.bounds.x1),
    )
    index = len(peers) - 1 if ordinal == -1 else ordinal - 1
    if not 0 <= index < len(peers):
        return []
    chosen = peers[index]
    word = "last" if ordinal == -1 else f"#{ordinal}"
    first = attrs.evolve(chosen, reason=f"{chosen.reason}; {word} of {len(peers)} from the top")
    rest = [attrs.evolve(m, score=max(0.0, m.score - 0.3)) for m in peers if m is not chosen]
    return [first, *rest]


def _center_gap(a: Element, b: Element) -> tuple[int, int]:
    (ax, ay), (bx, by) = a.bounds.center, b.bounds.center
    return abs(ax - bx), abs(ay - by)


def _relation_distance(
    relation: str, element: Element, anchor: Element, screen: Screen, candidate_ids: set[str], anchor_label: str
) -> float:
    if element.element_id == anchor.element_id:
        return float("inf")
    dx, dy = _center_gap(element, anchor)
    eb, ab = element.bounds, anchor.bounds
    if relation == "row":
        if anchor_label and anchor_label in fold(element.context):
            return dx * 0.001
        row = _row_of(anchor, screen, candidate_ids)
        if row is not None:
            return 0.0 if row.bounds.contains(*eb.center) else float("inf")
        overlaps = eb.y1 < ab.y2 and ab.y1 < eb.y2
        return dx + dy if overlaps else float("inf")
    if relation == "near":
        overlaps = eb.y1 < ab.y2 and ab.y1 < eb.y2
        return (dx + dy) * (1.0 if overlaps else 3.0)
    if relation == "below":
        return dy + dx * 0.5 if eb.y1 >= ab.center[1] else float("inf")
    if relation == "above":
        return dy + dx * 0.5 if eb.y2 <= ab.center[1] else float("inf")
    return float("inf")


def _row_of(anchor: Element, screen: Screen, candidate_ids: set[str]) -> Element | None:
    """The anchor or its smallest ancestor holding exactly one candidate: its row or card."""
    parent_id: str | None = anchor.element_id
    while parent_id is not None:
        parent = screen.element(parent_id)
        if parent is None:
            return None
        inside = [
            e for e in screen.elements if e.element_id in candidate_ids and parent.bounds.contains(*e.bounds.center)
        ]
        if len(inside) == 1:
            return parent
        if len(inside) > 1:
            return None
        parent_id = parent.parent_id
    return None


def _window_kind(screen: Screen, element: Element) -> WindowKind | None:
    for window in screen.windows:
        if window.index == element.window:
            return window.kind
    return None


def _cover_name(screen: Screen, element: Element) -> str:
    x, y = element.bounds.center
    covering = [w.kind for w in screen.windows if w.index > element.window and w.bounds.contains(x, y)]
    if element.occluded_by in {k.value for k in WindowKind}:
        covering.append(WindowKind(element.occluded_by))
    if not covering:
        return "another element"
    kind = covering[-1]
    return {
        WindowKind.KEYBOARD: "the keyboard",
        WindowKind.DIALOG: "a dialog",
        WindowKind.SYSTEM_POPUP: "a system popup",
        WindowKind.STATUS_BAR: "the status bar",
        WindowKind.NAVIGATION_BAR: "the navigation bar",
    }.get(kind, "another window")
