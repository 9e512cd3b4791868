"""The raw ``<node>`` tree of a dump, read with expat straight into mutable nodes the parser annotates."""

from __future__ import annotations

import re
from xml.parsers import expat

from fsm_runner.errors import PerceptionError
from fsm_runner.perception.dump_text import without_illegal_chars
from fsm_runner.perception.screen import Bounds

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
_NO_BOX = (0, 0, 0, 0)


def parse_box(value: str | None) -> tuple[int, int, int, int]:
    """``[x1,y1][x2,y2]`` as four ints; a missing or malformed value is an empty rectangle at the origin."""
    if not value:
        return _NO_BOX
    parts = value[1:-1].replace("][", ",").split(",")
    if len(parts) == 4:
        try:
            return int(parts[0]), int(parts[1]), int(parts[2]), int(parts[3])
        except ValueError:
            pass
    match = _BOUNDS.match(value.strip())
    if match is None:
        return _NO_BOX
    x1, y1, x2, y2 = (int(g) for g in match.groups())
    return x1, y1, x2, y2


class RawNode:
    """A raw ``<node>`` while the screen is being built: its attributes, then what the parser finds out.

    Mutable and private to the perception package; roles only ever see ``Element``.
    """

    __slots__ = (
        "_bounds",
        "acts",
        "box",
        "checkable",
        "checked",
        "children",
        "clickable",
        "cls",
        "context",
        "depth",
        "desc",
        "element_id",
        "enabled",
        "focusable",
        "focused",
        "hint",
        "kept",
        "key",
        "label",
        "long_clickable",
        "merged_into",
        "occluded_by",
        "ordinal",
        "own_label",
        "package",
        "parent",
        "password",
        "rid",
        "role",
        "row_label",
        "scrollable",
        "selected",
        "shown",
        "text",
        "window",
    )

    shown: bool

    def __init__(self, attrib: dict[str, str], parent: RawNode | None, depth: int, window: int) -> None:
        get = attrib.get
        self.cls = get("class", "")
        self.text = get("text", "")
        self.desc = get("content-desc", "")
        self.hint = get("hint", "")
        self.rid = get("resource-id", "")
        self.package = get("package", "")
        # Bounds objects are built only for the nodes that need one (see ``bounds``); the parser's
        # geometry works on the four ints.
        self.box = parse_box(get("bounds"))
        self._bounds: Bounds | None = None
        self.clickable = get("clickable") == "true"
        self.long_clickable = get("long-clickable") == "true"
        self.acts = self.clickable or self.long_clickable
        self.own_label = self.text or self.desc
        self.checkable = get("checkable") == "true"
        self.checked = get("checked") == "true"
        self.enabled = get("enabled", "true") != "false"
        self.focusable = get("focusable") == "true"
        self.focused = get("focused") == "true"
        self.scrollable = get("scrollable") == "true"
        self.selected = get("selected") == "true"
        self.password = get("password") == "true"
        hidden = get("visible-to-user") == "false" or (parent is not None and not parent.shown)
        self.shown = not hidden
        self.parent = parent
        self.depth = depth
        self.window = window
        self.children: list[RawNode] = []
        self.key = ""
        self.element_id = ""
        self.kept = False
        self.label = ""
        self.role = ""
        self.row_label = ""
        self.context = ""
        self.merged_into: RawNode | None = None
        self.occluded_by = ""
        self.ordinal: int | None = None

    @property
    def bounds(self) -> Bounds:
        if self._bounds is None:
            self._bounds = Bounds(*self.box)
        return self._bounds


class RawTree:
    """The nodes of one dump in document order and its window roots, built by expat callbacks."""

    def __init__(self) -> None:
        self.nodes: list[RawNode] = []
        self.window_roots: list[RawNode] = []
        self.rotation = "0"
        self.root_tag = ""
        self._stack: list[RawNode | None] = []

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        stack = self._stack
        if not self.root_tag:
            self.root_tag = tag
            if tag == "hierarchy":
                self.rotation = attrib.get("rotation", "0")
                stack.append(None)
                return
        parent = stack[-1] if stack else None
        if tag != "node" or (stack and parent is None and len(stack) > 1):
            stack.append(None)
            return
        if parent is None:
            node = RawNode(attrib, None, 0, len(self.window_roots))
            self.window_roots.append(node)
        else:
            node = RawNode(attrib, parent, parent.depth + 1, parent.window)
            parent.children.append(node)
        self.nodes.append(node)
        stack.append(node)

    def end(self, tag: str) -> None:
        self._stack.pop()


def _expat_tree(xml_text: str) -> RawTree:
    builder = RawTree()
    parser = expat.ParserCreate()
    parser.StartElementHandler = builder.start
    parser.EndElementHandler = builder.end
    parser.Parse(xml_text, True)
    return builder


def load_tree(xml_text: str, head: str) -> RawTree:
    """Read the XML into a RawTree; PerceptionError (quoting ``head``) when it is not a readable hierarchy."""
    try:
        try:
            builder = _expat_tree(xml_text)
        except expat.ExpatError:
            # Scanning every dump for forbidden control characters costs more than retrying the rare bad one.
            cleaned = without_illegal_chars(xml_text)
            if cleaned == xml_text:
                raise
            builder = _expat_tree(cleaned)
    except expat.ExpatError as err:
        raise PerceptionError(f"the hierarchy dump is not well-formed XML ({err})", head=head) from err
    except (ValueError, RecursionError, MemoryError) as err:
        raise PerceptionError(f"the hierarchy dump could not be read ({type(err).__name__})", head=head) from err
    if builder.root_tag not in ("hierarchy", "node"):
        raise PerceptionError(f"the dump's root is <{builder.root_tag}>, not <hierarchy>", head=head)
    return builder
