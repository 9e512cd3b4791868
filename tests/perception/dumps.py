"""A tiny builder of ``uiautomator dump`` XML for tests: nodes as nested calls, windows as roots."""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

import attrs


@attrs.frozen
class N:
    """One ``<node>``: class, bounds and attributes, with children."""

    cls: str
    bounds: tuple[int, int, int, int]
    children: tuple[N, ...] = ()
    text: str = ""
    desc: str = ""
    rid: str = ""
    package: str = "com.example.shop"
    clickable: bool = False
    checkable: bool = False
    checked: bool = False
    scrollable: bool = False
    enabled: bool = True
    focused: bool = False
    selected: bool = False
    extra: tuple[tuple[str, str], ...] = ()


def node(cls: str, bounds: tuple[int, int, int, int], *children: N, **kw: object) -> N:
    """A node whose ``cls`` may be short (``Button`` becomes ``android.widget.Button``)."""
    full = cls if "." in cls else f"android.widget.{cls}"
    return N(full, bounds, tuple(children), **kw)  # type: ignore[arg-type]


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _write(n: N, index: int, package: str | None, out: list[str]) -> None:
    pkg = package or n.package
    x1, y1, x2, y2 = n.bounds
    pairs = [
        ("index", str(index)),
        ("text", n.text),
        ("resource-id", f"{pkg}:id/{n.rid}" if n.rid else ""),
        ("class", n.cls),
        ("package", pkg),
        ("content-desc", n.desc),
        ("checkable", _flag(n.checkable)),
        ("checked", _flag(n.checked)),
        ("clickable", _flag(n.clickable)),
        ("enabled", _flag(n.enabled)),
        ("focusable", _flag(n.clickable)),
        ("focused", _flag(n.focused)),
        ("scrollable", _flag(n.scrollable)),
        ("long-clickable", "false"),
        ("password", "false"),
        ("selected", _flag(n.selected)),
        ("bounds", f"[{x1},{y1}][{x2},{y2}]"),
        *n.extra,
    ]
    head = "<node " + " ".join(f"{k}={quoteattr(v)}" for k, v in pairs)
    if not n.children:
        out.append(head + " />")
        return
    out.append(head + ">")
    for i, child in enumerate(n.children):
        _write(child, i, pkg, out)
    out.append("</node>")


def hierarchy(*windows: N, rotation: int = 0) -> str:
    """A whole dump: the XML declaration and one ``<hierarchy>`` holding each window root."""
    out = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>", f'<hierarchy rotation="{rotation}">']
    for i, w in enumerate(windows):
        _write(w, i, None, out)
    out.append("</hierarchy>")
    return "".join(out)
