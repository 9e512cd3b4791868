"""Perception: ``uiautomator dump`` XML into a de-noised ``Screen``, compact views, fingerprints and diffs."""

from fsm_runner.perception.fingerprint import fingerprint
from fsm_runner.perception.parse import parse_dump
from fsm_runner.perception.render import VIEWS, View, cut_text, element_line, page_summary, render
from fsm_runner.perception.screen import Bounds, Element, Screen, Window, WindowKind

__all__ = [
    "VIEWS",
    "Bounds",
    "Element",
    "Screen",
    "View",
    "Window",
    "WindowKind",
    "cut_text",
    "element_line",
    "fingerprint",
    "page_summary",
    "parse_dump",
    "render",
]
