"""Compact text renderings of a ``Screen`` for role prompts: one line per meaningful element."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from fsm_runner.perception.resource_ids import rid_carries_meaning, short_resource_id
from fsm_runner.perception.screen import Element, Screen, Window, WindowKind

View = Literal["planner", "locator", "validator"]
VIEWS: tuple[View, ...] = ("planner", "locator", "validator")

MAX_LABEL_CHARS = 50
_KEEP_CHARS = 40
_CONTEXT_CHARS = 40
#: Windows whose keys are listed on one line: many small buttons nobody reads one by one.
_PACKED_WINDOWS = frozenset({WindowKind.KEYBOARD})
_SILENT_WINDOWS = frozenset({WindowKind.STATUS_BAR, WindowKind.NAVIGATION_BAR})


def cut_text(text: str, limit: int = MAX_LABEL_CHARS) -> str:
    """``text`` on one line, cut after ``limit`` characters with a marker saying how much was dropped."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    kept = flat[:_KEEP_CHARS].rstrip()
    return f"{kept}…(+{len(flat) - len(kept)} chars)"


def short_context(context: str) -> str:
    """The first part of a row's merged label ("Milk" of "Milk · $1.99"): enough to tell rows apart."""
    return cut_text(context.split(" · ", 1)[0], _CONTEXT_CHARS)


def _quoted(text: str) -> str:
    return '"' + cut_text(text).replace('"', "'") + '"'


def _meaningful_rid(element: Element) -> str:
    return short_resource_id(element.resource_id) if rid_carries_meaning(element.resource_id) else ""


def _flags(e: Element, view: View) -> list[str]:
    flags: list[str] = []
    if e.checkable or e.role in ("switch", "checkbox", "radio"):
        flags.append("checked" if e.checked else "unchecked")
    if not e.enabled:
        flags.append("disabled")
    if e.focused:
        flags.append("focused")
    if e.selected:
        flags.append("selected")
    if e.password:
        flags.append("password")
    if e.scrollable and e.role != "list":
        flags.append("scrollable")
    if view != "planner" and e.long_clickable and not e.clickable:
        flags.append("long-press")
    if e.occluded:
        flags.append(f"covered-by:{e.occluded_by or 'window'}")
    elif not e.visible:
        flags.append("hidden")
    return flags


def _label_part(e: Element) -> str:
    if e.role == "field" and not e.text:
        return f"hint {_quoted(e.hint or e.content_desc)} empty" if (e.hint or e.content_desc) else "empty"
    return _quoted(e.label) if e.label.strip() else ""


def element_line(e: Element, view: View) -> str:
    """One element as the given view shows it."""
    parts = [e.element_id, e.role]
    label = _label_part(e)
    if label:
        parts.append(label)
    numbered = e.ordinal is not None and (view != "planner" or e.interactive)
    if numbered:
        parts.append(f"#{e.ordinal}")
    parts.extend(_flags(e, view))
    if view == "locator":
        parts.append(str(e.bounds))
    rid = _meaningful_rid(e)
    if rid and (view != "planner" or not label):
        parts.append(f"id:{rid}")
    if e.context and (view != "planner" or numbered or not label):
        parts.append(f"in {_quoted(short_context(e.context))}")
    return " ".join(parts)


def _shown_in(e: Element, view: View) -> bool:
    if view == "planner":
        if not e.visible or e.occluded or e.merged:
            return False
        if e.interactive:
            return True
        # A plain container labelled only by its children would repeat their texts; a still image is decoration.
        return e.role != "image" and bool((e.text or e.content_desc or e.hint).strip())
    if view == "locator":
        return e.visible
    if not e.visible or e.merged:
        return False
    return e.interactive or bool(e.label.strip()) or e.checked or e.selected or e.focused


def _window_header(window: Window, screen_package: str) -> str:
    if window.package == screen_package:
        return f"[{window.kind.value}]"
    return f"[{window.kind.value} {window.package}]"


def _window_lines(window: Window, elements: Iterable[Element], view: View, package: str) -> list[str]:
    chosen = [e for e in elements if _shown_in(e, view)]
    if window.kind in _SILENT_WINDOWS and view == "planner":
        chosen = [e for e in chosen if e.interactive]
        if not chosen:
            return []
    lines = [_window_header(window, package)]
    if window.kind in _PACKED_WINDOWS and view != "locator":
        chosen = [e for e in chosen if e.interactive]
        keys = [f"{e.element_id} {_quoted(e.label)}" if e.label.strip() else e.element_id for e in chosen]
        if keys:
            lines.append("keys: " + "; ".join(keys))
        return lines
    lines.extend(element_line(e, view) for e in chosen)
    if view == "planner":
        covered = sum(1 for e in elements if e.visible and e.occluded and not e.merged and e.interactive)
        if covered:
            lines.append(f"({covered} controls covered by a higher window)")
    return lines


def render(screen: Screen, view: View = "planner") -> str:
    """The screen as compact text for one role's prompt, grouped by window from bottom to top.

    ``planner``: interactive elements and labelled texts, no bounds; ``locator``:
    every visible element with bounds; ``validator``: elements with their state flags.
    """
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; use one of {', '.join(VIEWS)}")
    by_window: dict[int, list[Element]] = {w.index: [] for w in screen.windows}
    for e in screen.elements:
        by_window.setdefault(e.window, []).append(e)
    lines: list[str] = []
    for window in screen.windows:
        lines.extend(_window_lines(window, by_window.get(window.index, []), view, screen.package))
    return "\n".join(lines)


def page_summary(screen: Screen) -> str:
    """One line naming the page: package, activity when known, title and what is on top."""
    parts = [screen.package or "unknown package"]
    if screen.activity:
        parts.append(screen.activity)
    if screen.title:
        parts.append(f"title {_quoted(screen.title)}")
    overlays = [w.kind.value for w in screen.windows if w.kind not in (WindowKind.APP, *_SILENT_WINDOWS)]
    if overlays:
        parts.append("over app: " + ", ".join(overlays))
    return " | ".join(parts)
