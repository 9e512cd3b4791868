"""The raw ``<node>`` tree of a dump, read by the fast reader or by expat into mutable nodes the parser annotates."""

from __future__ import annotations

import re
from xml.parsers import expat

from fsm_runner.errors import PerceptionError
from fsm_runner.perception.canonical_reader import FLAG_NAMES, NotCanonical, TagEvent, flags_text, read_canonical
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


#: How many entries each decoding cache below keeps before it starts afresh.
_MAX_CACHED = 4096
#: Role words by (class, acts, scrollable, checkable, has text): most nodes of a dump share a few shapes.
_ROLES: dict[tuple[str, bool, bool, bool, bool], str] = {}


def _remember_role(shape: tuple[str, bool, bool, bool, bool]) -> str:
    if len(_ROLES) >= _MAX_CACHED:
        _ROLES.clear()
    cls, acts, scrollable, checkable, has_text = shape
    role = _ROLES[shape] = role_word(cls, clickable=acts, scrollable=scrollable, checkable=checkable, has_text=has_text)
    return role


#: The ten flags in ``FLAG_NAMES`` order, by their text in the dump.
Flags = tuple[bool, bool, bool, bool, bool, bool, bool, bool, bool, bool]
_FLAG_SETS: dict[str, Flags] = {}


def _decode_flags(text: str) -> Flags:
    # Both readers hand over the text in uiautomator's form: ten name="true|false" pairs.
    values = text.split('"')[1::2]
    checkable, checked, clickable, enabled, focusable, focused, scrollable, long_clickable, password, selected = (
        v == "true" for v in values
    )
    flags = (checkable, checked, clickable, enabled, focusable, focused, scrollable, long_clickable, password, selected)
    if len(_FLAG_SETS) >= _MAX_CACHED:
        _FLAG_SETS.clear()
    _FLAG_SETS[text] = flags
    return flags


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
        "children",
        "cls",
        "context",
        "depth",
        "desc",
        "element_id",
        "enclosing_row",
        "flags",
        "hint",
        "kept",
        "kept_above",
        "key",
        "label",
        "merged_into",
        "occluded_by",
        "ordinal",
        "own_label",
        "package",
        "parent",
        "rid",
        "role",
        "row_label",
        "scrollable",
        "shown",
        "text",
        "window",
    )

    shown: bool

    def __init__(self, values: tuple[str | None, ...], parent: RawNode | None, depth: int, window: int) -> None:
        text, rid, cls, package, desc, flag_text, visible, x1, y1, x2, y2, hint = values
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
        flags = _FLAG_SETS.get(flag_text or "")
        if flags is None:
            flags = _decode_flags(flag_text or "")
        self.flags = flags
        checkable, checked, clickable, _, _, focused, scrollable, long_clickable, _, selected = flags
        self.checkable = checkable
        self.scrollable = scrollable
        self.acts = acts = clickable or long_clickable
        self.own_label = own_label = self.text or self.desc
        # What a node is by itself is settled as it is read; labels and visibility need the whole tree.
        shape = (cls, acts, scrollable, checkable, bool(own_label))
        role = _ROLES.get(shape)
        if role is None:
            role = _remember_role(shape)
        self.role = role
        self.kept = bool(
            acts
            or checkable
            or scrollable
            or role == "field"
            or own_label.strip()
            or hint
            or checked
            or selected
            or focused
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
    """The nodes of one dump in document order and its window roots."""

    def __init__(self, events: list[TagEvent], rotation: str) -> None:
        """Build the tree from tag events: a values tuple opens a node, None closes the latest open one."""
        self.rotation = rotation
        self.nodes: list[RawNode] = []
        self.window_roots: list[RawNode] = []
        nodes, roots = self.nodes, self.window_roots
        stack: list[RawNode] = []
        # One loop over a list rather than a callback per tag: this runs for every node of every dump.
        for values in events:
            if values is None:
                stack.pop()
                continue
            if stack:
                parent = stack[-1]
                node = RawNode(values, parent, parent.depth + 1, parent.window)
                parent.children.append(node)
            else:
                node = RawNode(values, None, 0, len(roots))
                roots.append(node)
            nodes.append(node)
            stack.append(node)


class _ExpatEvents:
    """Expat callbacks turned into tag events; elements other than ``<node>`` are left out with their content."""

    def __init__(self) -> None:
        self.events: list[TagEvent] = []
        self.rotation = "0"
        self.root_tag = ""
        # For each open element: whether it was handed on as a node (and so needs a closing event).
        self._open: list[bool] = []

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        opened = self._open
        if not self.root_tag:
            self.root_tag = tag
            if tag == "hierarchy":
                self.rotation = attrib.get("rotation", "0")
                opened.append(False)
                return
        # A node counts when it is the root, sits right under the root, or sits in a node that counts.
        if tag == "node" and (len(opened) < 2 or opened[-1]):
            get = attrib.get
            x1, y1, x2, y2 = parse_box(get("bounds"))
            # As uiautomator means them: only "false" turns off enabled, only "true" turns on the rest.
            on = (get(name) != "false" if name == "enabled" else get(name) == "true" for name in FLAG_NAMES)
            flags = flags_text(on)
            self.events.append(
                (
                    *map(get, ("text", "resource-id", "class", "package", "content-desc")),
                    flags,
                    get("visible-to-user"),
                    *(str(x1), str(y1), str(x2), str(y2)),
                    get("hint"),
                )
            )
            opened.append(True)
        else:
            opened.append(False)

    def end(self, tag: str) -> None:
        if self._open.pop():
            self.events.append(None)


def _expat_events(xml_text: str) -> _ExpatEvents:
    events = _ExpatEvents()
    parser = expat.ParserCreate()
    parser.StartElementHandler = events.start
    parser.EndElementHandler = events.end
    parser.Parse(xml_text, True)
    return events


def load_tree(xml_text: str, head: str) -> RawTree:
    """Read the XML into a RawTree; PerceptionError (quoting ``head``) when it is not a readable hierarchy.

    Dumps in uiautomator's own layout take the fast reader; everything else,
    and every error message, comes from expat.
    """
    try:
        rotation, events = read_canonical(xml_text)
    except NotCanonical:
        pass
    else:
        return RawTree(events, rotation)
    try:
        try:
            read = _expat_events(xml_text)
        except expat.ExpatError:
            # Scanning every dump for forbidden control characters costs more than retrying the rare bad one.
            cleaned = without_illegal_chars(xml_text)
            if cleaned == xml_text:
                raise
            read = _expat_events(cleaned)
    except expat.ExpatError as err:
        raise PerceptionError(f"the hierarchy dump is not well-formed XML ({err})", head=head) from err
    except (ValueError, RecursionError, MemoryError) as err:
        raise PerceptionError(f"the hierarchy dump could not be read ({type(err).__name__})", head=head) from err
    if read.root_tag not in ("hierarchy", "node"):
        raise PerceptionError(f"the dump's root is <{read.root_tag}>, not <hierarchy>", head=head)
    return RawTree(read.events, read.rotation)
