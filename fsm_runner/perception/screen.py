"""What the Observer makes of one hierarchy dump: windows, elements and a fingerprint.

These are plain frozen values; the parser (``parse.py``) builds them and every
role reads them. A ``Screen`` never holds the raw XML.
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import StrEnum

import attrs


# A dict class: attrs fills a frozen one by writing its __dict__, cheaper than object.__setattr__ per slot,
# and the parser builds one for every element of every dump.
@attrs.frozen(slots=False)
class Bounds:
    """A rectangle in screen pixels, ``[x1,y1][x2,y2]`` as uiautomator writes it (x2, y2 exclusive)."""

    x1: int
    y1: int
    x2: int
    y2: int

    @property
    def width(self) -> int:
        return max(0, self.x2 - self.x1)

    @property
    def height(self) -> int:
        return max(0, self.y2 - self.y1)

    @property
    def area(self) -> int:
        return self.width * self.height

    @property
    def center(self) -> tuple[int, int]:
        return ((self.x1 + self.x2) // 2, (self.y1 + self.y2) // 2)

    def contains(self, x: int, y: int) -> bool:
        return self.x1 <= x < self.x2 and self.y1 <= y < self.y2

    def __str__(self) -> str:
        return f"[{self.x1},{self.y1}][{self.x2},{self.y2}]"


class WindowKind(StrEnum):
    """What a top-level window of the dump is, judged from its package and shape."""

    APP = "app"
    STATUS_BAR = "status_bar"
    NAVIGATION_BAR = "navigation_bar"
    KEYBOARD = "keyboard"
    DIALOG = "dialog"
    SYSTEM_POPUP = "system_popup"


@attrs.frozen
class Window:
    """One top-level ``<node>`` under ``<hierarchy>``; ``index`` grows toward the top of the stack."""

    index: int
    kind: WindowKind
    package: str
    bounds: Bounds


# A dict class for the same reason as Bounds.
@attrs.frozen(slots=False)
class Element:
    """One meaningful node after de-noising.

    ``element_id`` is stable across dumps of the same screen (derived from
    structure and identity attributes, not list position alone). ``label`` is
    the human label: own text, else content-desc, else the merged text of child
    labels, else the hint. ``role`` is a short role word ("button", "field",
    "switch", "checkbox", "text", "image", "list", "tab", ...). ``ordinal`` is
    set when several visible elements share role and label ("row 2" means the
    second of them from the top). ``context`` is the label of the row or card
    that contains the element, used for phrases like "Delete in the row with Milk".
    ``merged`` marks a label whose text was folded into its clickable container
    ``parent_id`` (compact views do not repeat it). ``occluded_by`` names the kind
    of the higher window whose bounds cover the element's centre ("keyboard").
    """

    element_id: str
    window: int
    depth: int
    cls: str
    role: str
    label: str
    text: str
    content_desc: str
    hint: str
    resource_id: str
    package: str
    bounds: Bounds
    clickable: bool = False
    long_clickable: bool = False
    checkable: bool = False
    checked: bool = False
    enabled: bool = True
    focusable: bool = False
    focused: bool = False
    scrollable: bool = False
    selected: bool = False
    password: bool = False
    visible: bool = True
    occluded: bool = False
    parent_id: str | None = None
    ordinal: int | None = None
    context: str = ""
    merged: bool = False
    occluded_by: str = ""

    @property
    def interactive(self) -> bool:
        """Clickable, editable, checkable or scrollable: what a test can act on."""
        return (
            self.clickable
            or self.long_clickable
            or self.checkable
            or self.scrollable
            or self.role == "field"
        )


@attrs.frozen
class Screen:
    """A parsed, de-noised screen: windows bottom to top, kept elements in document order."""

    windows: tuple[Window, ...]
    elements: tuple[Element, ...]
    width: int
    height: int
    rotation: int
    package: str
    activity: str | None
    title: str
    fingerprint: str
    raw_node_count: int

    @property
    def top_window(self) -> Window | None:
        return self.windows[-1] if self.windows else None

    @property
    def keyboard_shown(self) -> bool:
        return any(w.kind is WindowKind.KEYBOARD for w in self.windows)

    @property
    def dialog_shown(self) -> bool:
        return any(w.kind is WindowKind.DIALOG for w in self.windows)

    @property
    def system_popup_shown(self) -> bool:
        return any(w.kind is WindowKind.SYSTEM_POPUP for w in self.windows)

    def element(self, element_id: str) -> Element | None:
        """The element with that id, or None."""
        for e in self.elements:
            if e.element_id == element_id:
                return e
        return None

    def visible_elements(self) -> Iterator[Element]:
        return (e for e in self.elements if e.visible and not e.occluded)

    def top_element_at(self, x: int, y: int) -> Element | None:
        """The element a tap at (x, y) would reach: top-most window, then deepest node."""
        best: Element | None = None
        for e in self.elements:
            if not e.visible or not e.bounds.contains(x, y):
                continue
            if best is None or (e.window, e.depth) >= (best.window, best.depth):
                best = e
        return best
