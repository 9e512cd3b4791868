"""Serialise windows as ``uiautomator dump`` XML, byte for byte in the real device's layout."""

from __future__ import annotations

from adapters.sim.widgets import Node
from adapters.sim.windows import Window

XML_HEADER = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"

_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}


def _xml_safe(ch: str) -> str:
    """uiautomator replaces characters XML 1.0 cannot hold with a dot, so the dump always parses."""
    code = ord(ch)
    if code < 0x20 and ch not in "\t\n\r":
        return "."
    if 0xD800 <= code <= 0xDFFF or code in (0xFFFE, 0xFFFF):
        return "."
    return _ESCAPES.get(ch, ch)


def _escape(value: str) -> str:
    return "".join(_xml_safe(ch) for ch in value)


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _attributes(node: Node, index: int, package: str) -> str:
    pairs = (
        ("index", str(index)),
        ("text", node.display_text()),
        ("resource-id", node.resource_id),
        ("class", node.cls),
        ("package", package),
        ("content-desc", node.content_desc),
        ("checkable", _flag(node.checkable)),
        ("checked", _flag(node.checked)),
        ("clickable", _flag(node.clickable)),
        ("enabled", _flag(node.enabled)),
        ("focusable", _flag(node.focusable)),
        ("focused", _flag(node.focused)),
        ("scrollable", _flag(node.scrollable)),
        ("long-clickable", _flag(node.long_clickable)),
        ("password", _flag(node.password)),
        ("selected", _flag(node.selected)),
        ("bounds", node.bounds.bounds_text()),
    )
    return " ".join(f'{name}="{_escape(value)}"' for name, value in pairs)


def _kept_children(node: Node, compressed: bool) -> list[Node]:
    """Children as the dump shows them: layout-only wrappers are replaced by their children when compressed."""
    out: list[Node] = []
    for child in node.children:
        if compressed and child.layout_only:
            out.extend(_kept_children(child, compressed))
        else:
            out.append(child)
    return out


def _write(node: Node, index: int, package: str, compressed: bool, out: list[str]) -> None:
    kids = _kept_children(node, compressed)
    head = f"<node {_attributes(node, index, package)}"
    if not kids:
        out.append(head + " />")
        return
    out.append(head + ">")
    for i, child in enumerate(kids):
        _write(child, i, package, compressed, out)
    out.append("</node>")


def hierarchy_xml(windows: list[Window], *, rotation: int = 0, compressed: bool = False) -> str:
    """The dump of ``windows`` (bottom to top) as one line, like ``uiautomator dump`` writes it.

    Each window is a top-level ``<node index="0">``; a window's root is kept even
    when compressed so that windows stay countable.
    """
    out = [XML_HEADER, f'<hierarchy rotation="{rotation}">']
    for window in windows:
        _write(window.root, 0, window.package, compressed, out)
    out.append("</hierarchy>")
    return "".join(out)
