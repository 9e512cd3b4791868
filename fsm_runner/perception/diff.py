"""``diff_screens``: what appeared, disappeared or changed between two screens, by element id."""

from __future__ import annotations

import attrs

from fsm_runner.perception.render import cut_text
from fsm_runner.perception.screen import Element, Screen

#: Attributes compared between two looks at one element, in the order changes are reported.
COMPARED = ("label", "text", "checked", "enabled", "focused", "selected", "visible", "occluded", "bounds")
_MAX_LISTED = 12


@attrs.frozen
class ElementChange:
    """One element present in both screens, with the attributes whose values differ."""

    element_id: str
    before: Element
    after: Element
    attributes: tuple[str, ...]


@attrs.frozen
class ScreenDiff:
    """Elements added, removed and changed (by ``element_id``) and the window kinds that came and went."""

    added: tuple[Element, ...] = ()
    removed: tuple[Element, ...] = ()
    changed: tuple[ElementChange, ...] = ()
    windows_opened: tuple[str, ...] = ()
    windows_closed: tuple[str, ...] = ()
    same_fingerprint: bool = True

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed or self.windows_opened or self.windows_closed)

    def render(self) -> str:
        """A short text for reports and incremental prompts; "no change" when empty."""
        if self.empty:
            return "no change"
        lines: list[str] = []
        if self.windows_opened:
            lines.append("opened: " + ", ".join(self.windows_opened))
        if self.windows_closed:
            lines.append("closed: " + ", ".join(self.windows_closed))
        lines.extend(_listed("+", [_describe(e) for e in self.added]))
        lines.extend(_listed("-", [_describe(e) for e in self.removed]))
        lines.extend(_listed("~", [_describe_change(c) for c in self.changed]))
        return "\n".join(lines)


def _listed(sign: str, items: list[str]) -> list[str]:
    shown = [f"{sign} {item}" for item in items[:_MAX_LISTED]]
    if len(items) > _MAX_LISTED:
        shown.append(f"{sign} …and {len(items) - _MAX_LISTED} more")
    return shown


def _describe(e: Element) -> str:
    return f'{e.element_id} {e.role} "{cut_text(e.label)}"' if e.label.strip() else f"{e.element_id} {e.role}"


def _value(e: Element, attribute: str) -> str:
    value = getattr(e, attribute)
    return f'"{cut_text(value, 30)}"' if isinstance(value, str) else str(value)


def _describe_change(c: ElementChange) -> str:
    parts = [f"{a} {_value(c.before, a)}->{_value(c.after, a)}" for a in c.attributes if a != "bounds"]
    if "bounds" in c.attributes:
        parts.append("moved")
    return f"{_describe(c.after)}: " + ", ".join(parts)


def diff_screens(before: Screen, after: Screen) -> ScreenDiff:
    """Compare two screens element by element; ids that exist in one only are added or removed."""
    old = {e.element_id: e for e in before.elements}
    new = {e.element_id: e for e in after.elements}
    changed = []
    for element_id, e_new in new.items():
        e_old = old.get(element_id)
        if e_old is None:
            continue
        differing = tuple(a for a in COMPARED if getattr(e_old, a) != getattr(e_new, a))
        if differing:
            changed.append(ElementChange(element_id, e_old, e_new, differing))
    kinds_before = [w.kind.value for w in before.windows]
    kinds_after = [w.kind.value for w in after.windows]
    return ScreenDiff(
        added=tuple(e for e in after.elements if e.element_id not in old),
        removed=tuple(e for e in before.elements if e.element_id not in new),
        changed=tuple(changed),
        windows_opened=tuple(_minus(kinds_after, kinds_before)),
        windows_closed=tuple(_minus(kinds_before, kinds_after)),
        same_fingerprint=before.fingerprint == after.fingerprint,
    )


def _minus(items: list[str], other: list[str]) -> list[str]:
    rest = list(other)
    out = []
    for item in items:
        if item in rest:
            rest.remove(item)
        else:
            out.append(item)
    return out
