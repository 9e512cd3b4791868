"""Soft keyboard windows: a Gboard-like QWERTY keyboard and the ADB keyboard's status strip."""

from __future__ import annotations

import functools
from collections.abc import Callable

from adapters.sim.geometry import Rect
from adapters.sim.widgets import FRAME, Node, container, text_view
from adapters.sim.windows import ADB_IME, LATIN_IME, Window

LATIN_IME_ID = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"
ADB_IME_ID = "com.android.adbkeyboard/.AdbIME"

_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


def _key(rect: Rect, desc: str, on_tap: Callable[[], None], label: str) -> Node:
    """A key as Gboard exposes it: a clickable FrameLayout named by its content description."""
    return Node(cls=FRAME, bounds=rect, content_desc=desc, clickable=True, on_tap=on_tap, style="key",
                children=(), text="", hint=label)


def latin_keyboard(width: int, top: int, bottom: int, *, type_char: Callable[[str], None],
                   delete: Callable[[], None], enter: Callable[[], None]) -> Window:
    """The QWERTY keyboard filling ``top..bottom``; tapping a key types through the callbacks."""
    rows_top = top + (bottom - top) // 8
    row_h = (bottom - rows_top) // 4
    keys: list[Node] = []
    for r, letters in enumerate(_ROWS):
        y = rows_top + r * row_h
        key_w = width // 10
        start = (width - key_w * len(letters)) // 2
        if r == 2:
            keys.append(_key(Rect(0, y, start, y + row_h), "Shift", lambda: None, "shift"))
        for i, ch in enumerate(letters):
            keys.append(_key(Rect(start + i * key_w, y, start + (i + 1) * key_w, y + row_h), ch,
                             functools.partial(type_char, ch), ch))
        if r == 2:
            keys.append(_key(Rect(start + len(letters) * key_w, y, width, y + row_h), "Delete", delete, "del"))
    y = rows_top + 3 * row_h
    unit = width // 10
    keys.append(_key(Rect(0, y, unit * 2, bottom), "Symbol keyboard", lambda: None, "?123"))
    keys.append(_key(Rect(unit * 2, y, unit * 3, bottom), ",", lambda: type_char(","), ","))
    keys.append(_key(Rect(unit * 3, y, unit * 7, bottom), "Space", lambda: type_char(" "), ""))
    keys.append(_key(Rect(unit * 7, y, unit * 8, bottom), ".", lambda: type_char("."), "."))
    keys.append(_key(Rect(unit * 8, y, width, bottom), "Enter", enter, "enter"))
    panel = container(Rect(0, top, width, bottom), keys, resource_id=f"{LATIN_IME}:id/keyboard_holder",
                      style="keyboard")
    return Window(LATIN_IME, container(Rect(0, top, width, bottom), [panel]), kind="keyboard")


def adb_keyboard(width: int, bottom: int, height: int) -> Window:
    """The ADB keyboard's strip: it has no keys, text arrives by broadcast."""
    rect = Rect(0, bottom - height, width, bottom)
    label = text_view(rect, "ADB Keyboard {ON}", resource_id=f"{ADB_IME}:id/status", style="adb-ime")
    return Window(ADB_IME, container(rect, [label], style="adb-keyboard"), kind="keyboard")
