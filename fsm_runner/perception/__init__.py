"""Perception: ``uiautomator dump`` XML into a de-noised ``Screen``, compact views, fingerprints and diffs."""

from typing import TYPE_CHECKING

from fsm_runner.perception.diff import ElementChange, ScreenDiff, diff_screens
from fsm_runner.perception.fingerprint import fingerprint
from fsm_runner.perception.parse import parse_dump
from fsm_runner.perception.render import VIEWS, View, cut_text, element_line, page_summary, render
from fsm_runner.perception.screen import Bounds, Element, Screen, Window, WindowKind

if TYPE_CHECKING:
    from fsm_runner.perception.observer import DumpObserver


def __getattr__(name: str) -> object:
    # roles.base imports perception.screen, and the observer imports roles.base: load it on first use.
    if name == "DumpObserver":
        from fsm_runner.perception.observer import DumpObserver

        return DumpObserver
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "VIEWS",
    "Bounds",
    "DumpObserver",
    "Element",
    "ElementChange",
    "Screen",
    "ScreenDiff",
    "View",
    "Window",
    "WindowKind",
    "cut_text",
    "diff_screens",
    "element_line",
    "fingerprint",
    "page_summary",
    "parse_dump",
    "render",
]
