"""Windows: the top-level surfaces of the screen, stacked bottom to top, and touch routing."""

from __future__ import annotations

import attrs

from adapters.sim.geometry import Rect
from adapters.sim.widgets import Node

SYSTEMUI = "com.android.systemui"
LAUNCHER = "com.android.launcher3"
LATIN_IME = "com.google.android.inputmethod.latin"
ADB_IME = "com.android.adbkeyboard"
PERMISSION_CONTROLLER = "com.google.android.permissioncontroller"
SETTINGS = "com.android.settings"


@attrs.frozen(eq=False)
class Window:
    """One window: its package, its view tree, and how it treats touches.

    A ``modal`` window swallows touches outside its root bounds (a dialog does);
    ``dim`` asks the renderer to darken what is below; ``touchable`` False lets
    touches fall through (a toast would).
    """

    package: str
    root: Node
    kind: str = "app"
    modal: bool = False
    dim: bool = False
    touchable: bool = True

    @property
    def bounds(self) -> Rect:
        return self.root.bounds


def node_path_at(node: Node, x: int, y: int) -> list[Node]:
    """The chain from ``node`` down to the top-most descendant containing the point, or [] if outside."""
    if not node.bounds.contains(x, y):
        return []
    for child in reversed(node.children):
        below = node_path_at(child, x, y)
        if below:
            return [node, *below]
    return [node]


def touch_target(windows: list[Window], x: int, y: int) -> tuple[Window | None, Node | None]:
    """Which window receives a touch at the point, and its clickable node there (if any).

    Windows are searched top-most first, as Android's input dispatcher does.
    """
    for window in reversed(windows):
        if not window.touchable:
            continue
        path = node_path_at(window.root, x, y)
        if not path:
            if window.modal:
                return window, None
            continue
        for node in reversed(path):
            if node.clickable or node.on_tap is not None or node.on_long_press is not None:
                return window, node
        return window, None
    return None, None


def scroll_target(windows: list[Window], x: int, y: int) -> Node | None:
    """The innermost scrollable node under the point in the window receiving touches there."""
    for window in reversed(windows):
        if not window.touchable:
            continue
        path = node_path_at(window.root, x, y)
        if not path:
            if window.modal:
                return None
            continue
        for node in reversed(path):
            if node.on_scroll is not None:
                return node
        return None
    return None
