"""A fast reader for dumps in uiautomator's own layout: one regular expression per tag instead of expat.

``uiautomator dump`` writes every ``<node>`` with the same attributes in the
same order. For such a dump one compiled pattern per tag reads the values
about twice as fast as expat handing each element's attribute dict to Python.
Anything else (other attributes or order, single quotes, text between tags,
unknown entities, characters XML forbids) makes the reader give up, and the
caller reads the dump with expat, which also reports the errors.

The reader only accepts documents that are well-formed XML, and it yields the
values expat would: entities and character references decoded, attribute
values free of literal tabs and line ends (those would be normalised to
spaces by XML, so such a dump is left to expat).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: The state flags of a node, in the order uiautomator writes them.
FLAG_NAMES = (
    "checkable",
    "checked",
    "clickable",
    "enabled",
    "focusable",
    "focused",
    "scrollable",
    "long-clickable",
    "password",
    "selected",
)

def flags_text(flags: Iterable[bool]) -> str:
    """Ten flags in ``FLAG_NAMES`` order as uiautomator writes them (the ``flags`` value of a node)."""
    return "".join(f' {name}="{"true" if on else "false"}"' for name, on in zip(FLAG_NAMES, flags, strict=True))


#: What a node's values are, in this order (see ``RawNode``): attribute values as the reader captures
#: them, except ``flags``, the text of all ten state flags as uiautomator writes them
#: (`` checkable="false" checked="false" ...``), and the four corners of ``bounds`` (decimal text).
NODE_FIELDS = (
    "text",
    "resource-id",
    "class",
    "package",
    "content-desc",
    "flags",
    "visible-to-user",
    "x1",
    "y1",
    "x2",
    "y2",
    "hint",
)

# Characters XML 1.0 forbids, surrogates, and the tab and line ends that XML would turn into spaces.
_VALUE = r'"([^"<\x00-\x1f\ud800-\udfff\ufffe\uffff]*)"'
# One group for the ten flags: a dump has only a handful of distinct flag texts, decoded once each.
_FLAGS = "(" + "".join(f' {name}="(?:true|false)"' for name in FLAG_NAMES) + ")"
_NODE_OPEN = (
    r'<node(?: NAF="true")? index="\d*"'
    rf" text={_VALUE} resource-id={_VALUE} class={_VALUE} package={_VALUE} content-desc={_VALUE}{_FLAGS}"
    r'(?: visible-to-user="(true|false)")? bounds="\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]"'
    rf'(?: drawing-order="\d*")?(?: hint={_VALUE})? ?/?>'
)
#: One tag: an opening (or empty) ``<node>`` with its values in ``NODE_FIELDS`` order, or a closing
#: ``</node>`` (every group None).
_TAG = re.compile(rf"[ \t\r\n]*(?:{_NODE_OPEN}|</node>)")
_HIERARCHY = re.compile(r'<hierarchy rotation="(\d+)">')
_END = re.compile(r"[ \t\r\n]*</hierarchy>\Z")
_ENTITY = re.compile(r"&(?:#([0-9]+)|#x([0-9a-fA-F]+)|(amp|lt|gt|quot|apos));")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
#: Positions of the free-text values (the flags and bounds cannot hold entities).
_STRING_VALUES = (0, 1, 2, 3, 4, len(NODE_FIELDS) - 1)


class NotCanonical(Exception):
    """The dump strays from uiautomator's layout; read it with expat instead."""


#: A node's values in ``NODE_FIELDS`` order where it opens, None where it closes.
TagEvent = tuple[str | None, ...] | None


def _char(match: re.Match[str]) -> str:
    decimal, hexadecimal, name = match.groups()
    if name is not None:
        return _NAMED[name]
    code = int(decimal) if decimal is not None else int(hexadecimal, 16)
    if code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or 0x10000 <= code <= 0x10FFFF:
        return chr(code)
    raise NotCanonical(f"character reference to U+{code:04X}, which XML forbids")


def _decoded(value: str) -> str:
    if value.count("&") != len(_ENTITY.findall(value)):
        # A bare "&" or an entity XML does not define: not well-formed, and expat will say so.
        raise NotCanonical("an ampersand that starts no XML entity")
    return _ENTITY.sub(_char, value)


def _with_entities_decoded(values: tuple[str | None, ...]) -> tuple[str | None, ...]:
    decoded = list(values)
    for i in _STRING_VALUES:
        value = decoded[i]
        if value and "&" in value:
            decoded[i] = _decoded(value)
    return tuple(decoded)


def read_canonical(xml_text: str) -> tuple[str, list[TagEvent]]:
    """The rotation and the tag events of a dump in uiautomator's layout.

    Each ``<node>`` gives its values (None for an attribute it lacks) and,
    where it closes, None; an empty ``<node .../>`` gives both at once.
    Raises NotCanonical when the text strays from that layout or its tags do not nest.
    """
    head = _HIERARCHY.match(xml_text)
    if head is None:
        raise NotCanonical("the root is not <hierarchy rotation=...>")
    match_tag = _TAG.match
    events: list[TagEvent] = []
    add = events.append
    depth = 0
    pos = head.end()
    # Entities are rare: only the tag holding the next "&" of the text is decoded.
    ampersand = xml_text.find("&", pos)
    while (tag := match_tag(xml_text, pos)) is not None:
        pos = tag.end()
        values = tag.groups()
        if values[0] is None:
            # </node>: every group of the opening alternative is unset.
            if depth == 0:
                raise NotCanonical("</node> without an open node")
            depth -= 1
            add(None)
            continue
        if -1 < ampersand < pos:
            values = _with_entities_decoded(values)
            ampersand = xml_text.find("&", pos)
        add(values)
        if xml_text[pos - 2] == "/":
            add(None)
        else:
            depth += 1
    if depth or _END.match(xml_text, pos) is None:
        raise NotCanonical(f"unexpected text at offset {pos}")
    return head.group(1), events
