"""Widgets: the nodes of a window's view tree, with the attributes uiautomator reports.

A screen is rebuilt from app state on every query, so nodes are immutable; what a
widget does when touched is a callback the app attached when it built the node.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from adapters.sim.geometry import Rect

Action = Callable[[], None]
ScrollAction = Callable[[int], bool]

FRAME = "android.widget.FrameLayout"
LINEAR = "android.widget.LinearLayout"
TEXT = "android.widget.TextView"
BUTTON = "android.widget.Button"
IMAGE_BUTTON = "android.widget.ImageButton"
EDIT = "android.widget.EditText"
CHECKBOX = "android.widget.CheckBox"
RADIO = "android.widget.RadioButton"
SWITCH = "android.widget.Switch"
IMAGE = "android.widget.ImageView"
RECYCLER = "androidx.recyclerview.widget.RecyclerView"
PROGRESS = "android.widget.ProgressBar"
VIEW = "android.view.View"


@attrs.frozen(eq=False)
class Node:
    """One view: uiautomator's attributes, children, and the app's touch callbacks.

    ``field`` names the app's text field an edit text is bound to; ``style`` is a
    rendering hint ("primary", "danger", "title", "muted", "banner", "key", ...);
    ``layout_only`` marks a wrapper that ``uiautomator dump --compressed`` drops.
    """

    cls: str
    bounds: Rect
    text: str = ""
    resource_id: str = ""
    content_desc: str = ""
    hint: str = ""
    checkable: bool = False
    checked: bool = False
    clickable: bool = False
    enabled: bool = True
    focusable: bool = False
    focused: bool = False
    scrollable: bool = False
    long_clickable: bool = False
    password: bool = False
    selected: bool = False
    children: tuple[Node, ...] = ()
    on_tap: Action | None = None
    on_long_press: Action | None = None
    on_scroll: ScrollAction | None = None
    field: str = ""
    style: str = ""
    layout_only: bool = False

    def walk(self) -> list[Node]:
        """This node and all its descendants, parents before children."""
        out = [self]
        for child in self.children:
            out.extend(child.walk())
        return out

    def display_text(self) -> str:
        """What uiautomator reports as ``text``: masked for passwords, the hint when an edit text is empty."""
        if self.cls == EDIT and not self.text:
            return self.hint
        if self.password:
            return "\u2022" * len(self.text)
        return self.text


def container(bounds: Rect, children: tuple[Node, ...] | list[Node], *, cls: str = FRAME,
              resource_id: str = "", style: str = "") -> Node:
    """A layout wrapper; without a resource id it is layout-only, like an anonymous real layout."""
    return Node(cls=cls, bounds=bounds, children=tuple(children), resource_id=resource_id, style=style,
                layout_only=not resource_id)


def text_view(bounds: Rect, text: str, *, resource_id: str = "", style: str = "") -> Node:
    return Node(cls=TEXT, bounds=bounds, text=text, resource_id=resource_id, style=style)


def button(bounds: Rect, text: str, on_tap: Action | None, *, resource_id: str = "", style: str = "primary",
           enabled: bool = True, content_desc: str = "") -> Node:
    return Node(cls=BUTTON, bounds=bounds, text=text, resource_id=resource_id, clickable=True,
                focusable=True, enabled=enabled, on_tap=on_tap if enabled else None, style=style,
                content_desc=content_desc)


def icon_button(bounds: Rect, content_desc: str, on_tap: Action, *, resource_id: str = "",
                style: str = "icon") -> Node:
    """An image button with no text, labelled only by its content description."""
    return Node(cls=IMAGE_BUTTON, bounds=bounds, content_desc=content_desc, resource_id=resource_id,
                clickable=True, focusable=True, on_tap=on_tap, style=style)


def edit_text(bounds: Rect, field: str, value: str, hint: str, *, focused: bool, on_tap: Action,
              resource_id: str = "", password: bool = False) -> Node:
    return Node(cls=EDIT, bounds=bounds, text=value, hint=hint, resource_id=resource_id, clickable=True,
                focusable=True, focused=focused, long_clickable=True, password=password, on_tap=on_tap,
                field=field)


def toggle(bounds: Rect, text: str, checked: bool, on_tap: Action, *, resource_id: str = "",
           kind: str = SWITCH) -> Node:
    """A switch or a checkbox: checkable, clickable, its label in ``text``."""
    return Node(cls=kind, bounds=bounds, text=text, resource_id=resource_id, checkable=True, checked=checked,
                clickable=True, focusable=True, on_tap=on_tap)


def image(bounds: Rect, content_desc: str, *, resource_id: str = "", style: str = "image") -> Node:
    return Node(cls=IMAGE, bounds=bounds, content_desc=content_desc, resource_id=resource_id, style=style)


def scroll_list(bounds: Rect, rows: list[Node], on_scroll: ScrollAction, *, resource_id: str) -> Node:
    """A scrollable list; rows must already be clipped to ``bounds``."""
    return Node(cls=RECYCLER, bounds=bounds, children=tuple(rows), resource_id=resource_id, scrollable=True,
                focusable=True, on_scroll=on_scroll)


def clipped(node: Node, viewport: Rect) -> Node | None:
    """``node`` with its bounds and descendants clipped to ``viewport``, or None when nothing is visible."""
    visible = node.bounds.intersect(viewport)
    if visible.empty:
        return None
    kids = tuple(c for c in (clipped(child, viewport) for child in node.children) if c is not None)
    return attrs.evolve(node, bounds=visible, children=kids)


class Column:
    """Stacks rows top to bottom inside a frame, handing out their rectangles."""

    def __init__(self, frame: Rect, *, padding: int = 48, gap: int = 24) -> None:
        self._frame = frame
        self._padding = padding
        self._gap = gap
        self._y = frame.top + padding

    @property
    def y(self) -> int:
        return self._y

    def row(self, height: int, *, inset: int | None = None) -> Rect:
        """The next full-width row of ``height`` pixels."""
        pad = self._padding if inset is None else inset
        rect = Rect(self._frame.left + pad, self._y, self._frame.right - pad, self._y + height)
        self._y += height + self._gap
        return rect

    def skip(self, height: int) -> None:
        self._y += height

    def move_to(self, y: int) -> None:
        self._y = y
