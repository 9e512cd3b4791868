"""What each top-level window of a dump is (app, keyboard, status bar, ...) and how they stack."""

from __future__ import annotations

import re

from fsm_runner.perception.screen import Bounds, WindowKind

KEYBOARD_PACKAGES = frozenset(
    {
        "com.google.android.inputmethod.latin",
        "com.sohu.inputmethod.sogou",
        "com.samsung.android.honeyboard",
        "com.touchtype.swiftkey",
        "com.baidu.input",
        "com.iflytek.inputmethod",
    }
)
SYSTEM_POPUP_PACKAGES = frozenset(
    {
        "com.google.android.permissioncontroller",
        "com.android.permissioncontroller",
        "com.android.packageinstaller",
        "com.google.android.packageinstaller",
    }
)
SYSTEM_UI_PACKAGE = "com.android.systemui"

_IME_WORD = re.compile(r"(?:^|[._])(?:ime|input|[a-z]*inputmethod[a-z]*|[a-z]*keyboard[a-z]*)(?:$|[._])")

#: Bottom-to-top stacking rank of each kind; windows of one kind keep their document order.
_STACK_RANK: dict[WindowKind, int] = {
    WindowKind.APP: 0,
    WindowKind.DIALOG: 1,
    WindowKind.SYSTEM_POPUP: 2,
    WindowKind.KEYBOARD: 3,
    WindowKind.NAVIGATION_BAR: 4,
    WindowKind.STATUS_BAR: 5,
}


def is_keyboard_package(package: str) -> bool:
    """Whether ``package`` names an input method (by the known list or by its name)."""
    if package in KEYBOARD_PACKAGES or package.startswith("com.android.inputmethod"):
        return True
    return bool(_IME_WORD.search(package.lower()))


def classify_window(
    package: str,
    root_class: str,
    root_resource_id: str,
    bounds: Bounds,
    screen: Bounds,
    *,
    first_app_seen: bool,
) -> WindowKind:
    """The kind of one top-level window, judged from its package, its root node and its shape.

    ``first_app_seen`` tells whether an app window came earlier in the dump: a
    second app window that does not cover the screen is a dialog.
    """
    thin = bounds.height <= max(1, screen.height) * 0.1
    at_bottom = bounds.y2 >= screen.y2 - max(1, screen.height) * 0.02
    covers = bounds.area >= screen.area * 0.9 if screen.area else True
    root_name = root_class.rsplit(".", 1)[-1]
    if package in KEYBOARD_PACKAGES or package.startswith("com.android.inputmethod"):
        return WindowKind.KEYBOARD
    if is_keyboard_package(package) and at_bottom and not covers:
        return WindowKind.KEYBOARD
    if package == SYSTEM_UI_PACKAGE:
        if "navigation" in root_resource_id or (thin and at_bottom and bounds.y1 > 0):
            return WindowKind.NAVIGATION_BAR
        if thin and bounds.y1 <= screen.y1:
            return WindowKind.STATUS_BAR
        return WindowKind.SYSTEM_POPUP
    if package in SYSTEM_POPUP_PACKAGES:
        return WindowKind.SYSTEM_POPUP
    if "Dialog" in root_name or "Popup" in root_name:
        return WindowKind.DIALOG
    if first_app_seen and not covers:
        return WindowKind.DIALOG
    return WindowKind.APP


def stack_rank(kind: WindowKind) -> int:
    """Where a window of this kind sits in the stack; higher ranks are drawn over lower ones."""
    return _STACK_RANK[kind]
