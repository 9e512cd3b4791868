"""Find Demo Shop nodes in a hierarchy dump by resource-id, the way a test author reads a screen."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


def find_node(xml: str, name: str) -> ET.Element:
    """The first node whose resource-id ends with ``:id/NAME``; AssertionError when there is none."""
    for node in ET.fromstring(xml).iter("node"):
        if node.get("resource-id", "").endswith(f":id/{name}"):
            return node
    raise AssertionError(f"no node with id {name!r} in the dump")


def has_node(xml: str, name: str) -> bool:
    return any(node.get("resource-id", "").endswith(f":id/{name}") for node in ET.fromstring(xml).iter("node"))


def center(xml: str, name: str) -> tuple[int, int]:
    match = _BOUNDS.fullmatch(find_node(xml, name).get("bounds", ""))
    assert match, f"node {name!r} has no bounds"
    x1, y1, x2, y2 = (int(g) for g in match.groups())
    return (x1 + x2) // 2, (y1 + y2) // 2


def text_of(xml: str, name: str) -> str:
    return find_node(xml, name).get("text", "")
