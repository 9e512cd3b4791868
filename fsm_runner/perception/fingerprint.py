"""``fingerprint``: a structural hash of what a screen shows, blind to clocks, counters and the status bar."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from fsm_runner.perception.screen import Element, Screen, Window, WindowKind
from fsm_runner.perception.volatile import mask_volatile

_IGNORED_WINDOWS = frozenset({WindowKind.STATUS_BAR, WindowKind.NAVIGATION_BAR})
#: Only the presence of these windows counts: their content (key caps, shift state) is not the app's state.
_OPAQUE_WINDOWS = frozenset({WindowKind.KEYBOARD})


def fingerprint(screen: Screen) -> str:
    """16 hex chars identifying the screen's structure and meaningful content.

    Equal for two dumps of the same screen that differ only in volatile text
    (digits, calendar words) or in the status and navigation bars; different
    when a window appears, a check state flips, or labels change (another page,
    a scrolled list).
    """
    return fingerprint_of(screen.windows, screen.elements)


def fingerprint_of(windows: Sequence[Window], elements: Iterable[Element]) -> str:
    """``fingerprint`` of the screen these windows and elements would make (the parser's way in)."""
    digest = hashlib.blake2b(digest_size=8)
    kinds = {w.index: w.kind for w in windows}
    for window in windows:
        if window.kind in _IGNORED_WINDOWS:
            continue
        digest.update(f"W|{window.kind.value}|{window.package}\n".encode())
    for e in elements:
        kind = kinds.get(e.window)
        if kind is None or kind in _IGNORED_WINDOWS or kind in _OPAQUE_WINDOWS:
            continue
        if not e.visible or e.occluded or e.merged:
            continue
        line = "|".join(
            (
                str(e.window),
                e.role,
                e.resource_id,
                mask_volatile(e.label),
                "c" if e.checked else "",
                "s" if e.selected else "",
                "" if e.enabled else "d",
            )
        )
        digest.update(line.encode("utf-8", "surrogatepass") + b"\n")
    return digest.hexdigest()
