"""The raw ``<node>`` tree of a dump, read with expat straight into mutable nodes the parser annotates."""

from __future__ import annotations

import re
from xml.parsers import expat

from fsm_runner.errors import PerceptionError
from fsm_runner.perception.canonical_reader import NODE_FIELDS, NotCanonical, read_canonical
from fsm_runner.perception.dump_text import without_illegal_chars
from fsm_runner.perception.resource_ids import rid_carries_meaning
from fsm_runner.perception.role_words import role_word
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


#: Role words by (class, acts, scrollable, checkable, has text): most nodes of a dump share a few shapes.
_ROLES: dict[tuple[str, bool, bool, bool, bool], str] = {}
_MAX_ROLES = 4096


def _remember_role(shape: tuple[str, bool, bool, bool, bool]) -> str:
    if len(_ROLES) >= _MAX_ROLES:
        _ROLES.clear()
    cls, acts, scrollable, checkable, has_text = shape
    role = _ROLES[shape] = role_word(cls, clickable=acts, scrollable=scrollable, checkable=checkable, has_text=has_text)
    return role


class RawNode:
    """A raw ``<node>`` while the screen is being built: its attributes, then what the parser finds out.

    Mutable and private to the perception package; roles only ever see ``Element``.
    """

    __slots__ = (
        "_bounds",
        "_box",
        "_corners",
        "acts",
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
        "enclosing_row",
        "focusable",
        "focused",
        "hint",
        "kept",
        "kept_above",
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

    def __init__(self, values: tuple[str | None, ...], parent: RawNode | None, depth: int, window: int) -> None:
        (
            text,
            rid,
            cls,
            package,
            desc,
            checkable,
            checked,
            clickable,
            enabled,
            focusable,
            focused,
            scrollable,
            long_clickable,
            password,
            selected,
            visible,
            x1,
            y1,
            x2,
            y2,
            hint,
        ) = values
        self.cls = cls = cls or ""
        self.text = text or ""
        self.desc = desc or ""
        self.hint = hint = hint or ""
        self.rid = rid = rid or ""
        self.package = package or ""
        # The corners become ints, and a Bounds, only for the nodes that need them (see ``box``).
        self._corners = (x1, y1, x2, y2)
        self._box: tuple[int, int, int, int] | None = None
        self._bounds: Bounds | None = None
        self.clickable = is_clickable = clickable == "true"
        self.long_clickable = is_long_clickable = long_clickable == "true"
        self.acts = acts = is_clickable or is_long_clickable
        self.own_label = own_label = self.text or self.desc
        self.checkable = is_checkable = checkable == "true"
        self.checked = is_checked = checked == "true"
        self.enabled = enabled != "false"
        self.focusable = focusable == "true"
        self.focused = is_focused = focused == "true"
        self.scrollable = is_scrollable = scrollable == "true"
        self.selected = is_selected = selected == "true"
        self.password = password == "true"
        # What a node is by itself is settled as it is read; labels and visibility need the whole tree.
        shape = (cls, acts, is_scrollable, is_checkable, bool(own_label))
        role = _ROLES.get(shape)
        if role is None:
            role = _remember_role(shape)
        self.role = role
        self.kept = bool(
            acts
            or is_checkable
            or is_scrollable
            or role == "field"
            or own_label.strip()
            or hint
            or is_checked
            or is_selected
            or is_focused
            or rid_carries_meaning(rid)
        )
        self.shown = visible != "false" and (parent is None or parent.shown)
        self.parent = parent
        self.depth = depth
        self.window = window
        self.children: list[RawNode] = []
        self.key = ""
        self.element_id = ""
        self.label = ""
        self.row_label = ""
        self.context = ""
        self.enclosing_row = ""
        self.kept_above: RawNode | None = None
        self.merged_into: RawNode | None = None
        self.occluded_by = ""
        self.ordinal: int | None = None

    @property
    def box(self) -> tuple[int, int, int, int]:
        """The bounds as four ints: x1, y1, x2, y2."""
        box = self._box
        if box is None:
            x1, y1, x2, y2 = self._corners
            box = self._box = (int(x1 or 0), int(y1 or 0), int(x2 or 0), int(y2 or 0))
        return box

    @property
    def bounds(self) -> Bounds:
        if self._bounds is None:
            self._bounds = Bounds(*self.box)
        return self._bounds


class RawTree:
    """The nodes of one dump in document order and its window roots, built from either reader's tags."""

    def __init__(self) -> None:
        self.nodes: list[RawNode] = []
        self.window_roots: list[RawNode] = []
        self.rotation = "0"
        self.root_tag = ""
        self._stack: list[RawNode | None] = []

    def open_node(self, values: tuple[str | None, ...]) -> None:
        """A ``<node>`` begins, with its values in ``NODE_FIELDS`` order."""
        stack = self._stack
        parent = stack[-1] if stack else None
        if parent is None:
            if stack and len(stack) > 1:
                # Inside an element that is not a node: not part of the hierarchy.
                stack.append(None)
                return
            node = RawNode(values, None, 0, len(self.window_roots))
            self.window_roots.append(node)
        else:
            node = RawNode(values, parent, parent.depth + 1, parent.window)
            parent.children.append(node)
        self.nodes.append(node)
        stack.append(node)

    def close_node(self) -> None:
        self._stack.pop()

    def _start(self, tag: str, attrib: dict[str, str]) -> None:
        if not self.root_tag:
            self.root_tag = tag
            if tag == "hierarchy":
                self.rotation = attrib.get("rotation", "0")
                self._stack.append(None)
                return
        if tag == "node":
            x1, y1, x2, y2 = parse_box(attrib.get("bounds"))
            self.open_node((*map(attrib.get, NODE_FIELDS[:-5]), str(x1), str(y1), str(x2), str(y2), attrib.get("hint")))
        else:
            self._stack.append(None)

    def _end(self, tag: str) -> None:
        self._stack.pop()


def _expat_tree(xml_text: str) -> RawTree:
    tree = RawTree()
    parser = expat.ParserCreate()
    parser.StartElementHandler = tree._start
    parser.EndElementHandler = tree._end
    parser.Parse(xml_text, True)
    return tree


def _canonical_tree(xml_text: str) -> RawTree | None:
    tree = RawTree()
    tree._stack.append(None)
    try:
        tree.rotation = read_canonical(xml_text, tree)
    except NotCanonical:
        return None
    tree.root_tag = "hierarchy"
    return tree


def load_tree(xml_text: str, head: str) -> RawTree:
    """Read the XML into a RawTree; PerceptionError (quoting ``head``) when it is not a readable hierarchy.

    Dumps in uiautomator's own layout take the fast reader; everything else,
    and every error message, comes from expat.
    """
    canonical = _canonical_tree(xml_text)
    if canonical is not None:
        return canonical
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
