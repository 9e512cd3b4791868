"""``parse_dump``: one ``uiautomator dump`` into a de-noised, fingerprinted ``Screen``."""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from xml.parsers import expat

import attrs

from fsm_runner.errors import PerceptionError
from fsm_runner.perception.dump_text import decode_dump, dump_head, extract_xml, without_illegal_chars
from fsm_runner.perception.fingerprint import fingerprint
from fsm_runner.perception.resource_ids import rid_carries_meaning, short_resource_id
from fsm_runner.perception.role_words import role_word
from fsm_runner.perception.screen import Bounds, Element, Screen, Window, WindowKind
from fsm_runner.perception.volatile import mask_volatile
from fsm_runner.perception.windows import classify_window, stack_rank

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
_NO_BOUNDS = Bounds(0, 0, 0, 0)
_MAX_MERGED_TEXTS = 4
_TITLE_BAND = 0.15
_EDIT_ROLES = frozenset({"field"})
_ROW_CONTAINER_ROLES = frozenset({"list"})


def _parse_bounds(value: str | None) -> Bounds:
    if not value:
        return _NO_BOUNDS
    parts = value[1:-1].replace("][", ",").split(",")
    if len(parts) == 4:
        try:
            return Bounds(int(parts[0]), int(parts[1]), int(parts[2]), int(parts[3]))
        except ValueError:
            pass
    match = _BOUNDS.match(value.strip())
    if match is None:
        return _NO_BOUNDS
    x1, y1, x2, y2 = (int(g) for g in match.groups())
    return Bounds(x1, y1, x2, y2)


def _intersects(a: Bounds, b: Bounds) -> bool:
    return min(a.x2, b.x2) > max(a.x1, b.x1) and min(a.y2, b.y2) > max(a.y1, b.y1)


_BASE32 = "abcdefghijklmnopqrstuvwxyz234567"


def _short_id(hex_key: str) -> str:
    """``e`` and six base32 characters (30 bits) of a hex digest."""
    value = int(hex_key[:8], 16) >> 2
    chars = []
    for _ in range(6):
        chars.append(_BASE32[value & 31])
        value >>= 5
    return "e" + "".join(chars)


class _Node:
    """A raw ``<node>`` while the screen is being built (mutable; never leaves this module)."""

    __slots__ = (
        "bounds",
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

    def __init__(self, attrib: dict[str, str], parent: _Node | None, depth: int, window: int) -> None:
        get = attrib.get
        self.cls = get("class", "")
        self.text = get("text", "")
        self.desc = get("content-desc", "")
        self.hint = get("hint", "")
        self.rid = get("resource-id", "")
        self.package = get("package", "")
        self.bounds = _parse_bounds(get("bounds"))
        self.clickable = get("clickable") == "true"
        self.long_clickable = get("long-clickable") == "true"
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
        self.children: list[_Node] = []
        self.key = ""
        self.element_id = ""
        self.kept = False
        self.label = ""
        self.role = ""
        self.row_label = ""
        self.context = ""
        self.merged_into: _Node | None = None
        self.occluded_by = ""
        self.ordinal: int | None = None

    @property
    def own_label(self) -> str:
        return self.text or self.desc

    @property
    def acts(self) -> bool:
        return self.clickable or self.long_clickable


class _TreeBuilder:
    """Expat callbacks that build ``_Node``s directly (no intermediate element tree)."""

    def __init__(self) -> None:
        self.nodes: list[_Node] = []
        self.window_roots: list[_Node] = []
        self.rotation = "0"
        self.root_tag = ""
        self._stack: list[_Node | None] = []

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
            node = _Node(attrib, None, 0, len(self.window_roots))
            self.window_roots.append(node)
        else:
            node = _Node(attrib, parent, parent.depth + 1, parent.window)
            parent.children.append(node)
        self.nodes.append(node)
        stack.append(node)

    def end(self, tag: str) -> None:
        self._stack.pop()


def _expat_tree(xml_text: str) -> _TreeBuilder:
    builder = _TreeBuilder()
    parser = expat.ParserCreate()
    parser.StartElementHandler = builder.start
    parser.EndElementHandler = builder.end
    parser.Parse(xml_text, True)
    return builder


def _load_tree(xml_text: str, head: str) -> _TreeBuilder:
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


def _screen_bounds(window_roots: list[_Node], nodes: list[_Node]) -> Bounds:
    width = max((n.bounds.x2 for n in window_roots), default=0)
    height = max((n.bounds.y2 for n in window_roots), default=0)
    if width <= 0 or height <= 0:
        width = max((n.bounds.x2 for n in nodes), default=0)
        height = max((n.bounds.y2 for n in nodes), default=0)
    return Bounds(0, 0, max(0, width), max(0, height))


def _classify(window_roots: list[_Node], screen: Bounds) -> list[WindowKind]:
    kinds: list[WindowKind] = []
    first_app_seen = False
    for root in window_roots:
        kind = classify_window(root.package, root.cls, root.rid, root.bounds, screen, first_app_seen=first_app_seen)
        first_app_seen = first_app_seen or kind is WindowKind.APP
        kinds.append(kind)
    return kinds


def _descendant_texts(node: _Node, limit: int) -> list[_Node]:
    """Text-bearing descendants that label ``node``: not inside separately clickable children or fields."""
    found: list[_Node] = []
    stack = list(reversed(node.children))
    while stack and len(found) < limit:
        child = stack.pop()
        if child.acts or not child.shown:
            continue
        if child.role in _EDIT_ROLES or child.scrollable:
            continue
        if child.own_label:
            found.append(child)
        stack.extend(reversed(child.children))
    return found


def _is_row(node: _Node) -> bool:
    parent = node.parent
    in_list = parent is not None and (parent.scrollable or parent.role in _ROW_CONTAINER_ROLES)
    return bool(node.children) and (in_list or node.acts)


def _assign_labels_and_roles(nodes: list[_Node]) -> None:
    for node in nodes:
        node.role = role_word(
            node.cls,
            clickable=node.acts,
            scrollable=node.scrollable,
            checkable=node.checkable,
            has_text=bool(node.own_label),
        )
    for node in nodes:
        label = node.own_label
        if not label and node.children and (node.acts or _is_row(node)):
            texts = _descendant_texts(node, _MAX_MERGED_TEXTS)
            parts = dict.fromkeys(t.own_label.strip() for t in texts if t.own_label.strip())
            label = " · ".join(parts)
            if node.acts:
                for t in texts:
                    if t.merged_into is None and not (t.checkable or t.scrollable):
                        t.merged_into = node
        if _is_row(node):
            node.row_label = label
        node.label = label or node.hint


def _assign_keys(window_roots: list[_Node], kinds: list[WindowKind]) -> None:
    """Identity keys: a chain of (class, resource id, masked label) from the window down, disambiguated."""
    root_seen: dict[str, int] = defaultdict(int)
    for root, kind in zip(window_roots, kinds, strict=True):
        base = f"{kind.value}|{root.package}"
        root_seen[base] += 1
        root.key = hashlib.blake2b(
            f"{base}|{root_seen[base]}|{root.cls}|{root.rid}".encode(), digest_size=16
        ).hexdigest()
        stack = [root]
        while stack:
            parent = stack.pop()
            if parent.children:
                _key_siblings(parent)
                stack.extend(parent.children)


def _identity(node: _Node) -> str:
    # What a field shows is its value (state), not what it is: typing must not change its id.
    if node.role == "field":
        return f"{node.cls}|{node.rid}|field"
    leafish = node.own_label or (node.label if (node.acts or node.row_label) else "")
    return f"{node.cls}|{node.rid}|{mask_volatile(leafish)}"


def _key_siblings(parent: _Node) -> None:
    children = parent.children
    if not children:
        return
    identities = [_identity(c) for c in children]
    groups: dict[str, list[int]] = defaultdict(list)
    for position, ident in enumerate(identities):
        groups[ident].append(position)
    for ident, positions in groups.items():
        if len(positions) == 1:
            discriminators = [""]
        else:
            raw = [children[p].own_label or children[p].label for p in positions]
            counts: dict[str, int] = defaultdict(int)
            for value in raw:
                counts[value] += 1
            seen: dict[str, int] = defaultdict(int)
            discriminators = []
            for value in raw:
                seen[value] += 1
                discriminators.append(value if counts[value] == 1 else f"{value}#{seen[value]}")
        for position, disc in zip(positions, discriminators, strict=True):
            child = children[position]
            material = f"{parent.key}\x1f{ident}\x1f{disc}"
            child.key = hashlib.blake2b(material.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _keep(node: _Node) -> bool:
    if node.acts or node.checkable or node.scrollable or node.role in _EDIT_ROLES:
        return True
    if node.own_label.strip() or node.hint:
        return True
    if node.checked or node.selected or node.focused:
        return True
    return rid_carries_meaning(node.rid)


def _mark_visibility(
    nodes: list[_Node], window_roots: list[_Node], kinds: list[WindowKind], z_of: list[int], screen: Bounds
) -> None:
    by_z = sorted(range(len(window_roots)), key=lambda w: z_of[w])
    for node in nodes:
        if not node.kept:
            continue
        window_bounds = window_roots[node.window].bounds
        node.shown = (
            node.shown
            and node.bounds.area > 0
            and _intersects(node.bounds, screen)
            and (window_bounds.area == 0 or _intersects(node.bounds, window_bounds))
        )
        if not node.shown:
            continue
        cx, cy = node.bounds.center
        for other in by_z:
            if z_of[other] <= z_of[node.window]:
                continue
            if window_roots[other].bounds.contains(cx, cy):
                node.occluded_by = kinds[other].value
                break


def _assign_context(nodes: list[_Node]) -> None:
    for node in nodes:
        ancestor = node.parent
        while ancestor is not None:
            if ancestor.row_label:
                if ancestor.row_label != node.label:
                    node.context = ancestor.row_label
                break
            ancestor = ancestor.parent


def _assign_ids(nodes: list[_Node]) -> None:
    used: set[str] = set()
    for node in nodes:
        if not node.kept:
            continue
        candidate = _short_id(node.key)
        salt = 0
        while candidate in used:
            salt += 1
            candidate = _short_id(hashlib.blake2b(f"{node.key}/{salt}".encode()).hexdigest())
        used.add(candidate)
        node.element_id = candidate


def _nearest_kept_ancestor(node: _Node) -> _Node | None:
    ancestor = node.parent
    while ancestor is not None and not ancestor.kept:
        ancestor = ancestor.parent
    return ancestor


def _title(elements: list[Element], windows: tuple[Window, ...]) -> str:
    for window in reversed(windows):
        if window.kind not in (WindowKind.APP, WindowKind.DIALOG, WindowKind.SYSTEM_POPUP):
            continue
        texts = [e for e in elements if e.window == window.index and e.visible and not e.occluded and e.text.strip()]
        titled = [e for e in texts if "title" in short_resource_id(e.resource_id).lower()]
        if not titled and window.kind is WindowKind.APP:
            # No id says "title": take the first plain text in the top band, where toolbars put it.
            band = window.bounds.y1 + max(1, window.bounds.height) * _TITLE_BAND
            titled = [e for e in texts if e.role == "text" and e.bounds.y2 <= band and any(c.isalpha() for c in e.text)]
        elif not titled:
            titled = texts
        if titled:
            return min(titled, key=lambda e: (e.bounds.y1, e.bounds.x1)).text.strip()
    return ""


def _assign_ordinals(nodes: list[_Node]) -> None:
    groups: dict[tuple[str, str], list[_Node]] = defaultdict(list)
    for node in nodes:
        if node.kept and node.shown and not node.occluded_by and not _is_merged(node):
            # An empty label says nothing: the resource id tells unlabelled elements apart instead.
            groups[(node.role, node.label or short_resource_id(node.rid))].append(node)
    for members in groups.values():
        if len(members) < 2:
            continue
        members.sort(key=lambda n: (n.bounds.y1, n.bounds.x1))
        for ordinal, node in enumerate(members, start=1):
            node.ordinal = ordinal


def _is_merged(node: _Node) -> bool:
    return node.merged_into is not None and node.merged_into.kept


def parse_dump(data: str | bytes) -> Screen:
    """Parse ``uiautomator dump`` output (junk, trailers and any line endings allowed) into a ``Screen``.

    Raises PerceptionError, quoting the first bytes, for anything that is not
    a hierarchy with at least one node; never any other exception.
    """
    text = decode_dump(data)
    head = dump_head(text.strip())
    xml_text = extract_xml(text)
    tree = _load_tree(xml_text, head)
    nodes, window_roots, rotation_text = tree.nodes, tree.window_roots, tree.rotation
    if not nodes:
        raise PerceptionError("the hierarchy dump has no nodes", head=head)
    screen_bounds = _screen_bounds(window_roots, nodes)
    kinds = _classify(window_roots, screen_bounds)
    order = sorted(range(len(window_roots)), key=lambda w: (stack_rank(kinds[w]), w))
    z_of = [0] * len(window_roots)
    for z, w in enumerate(order):
        z_of[w] = z
    _assign_labels_and_roles(nodes)
    _assign_keys(window_roots, kinds)
    for node in nodes:
        node.kept = _keep(node)
    _mark_visibility(nodes, window_roots, kinds, z_of, screen_bounds)
    _assign_context(nodes)
    _assign_ids(nodes)
    _assign_ordinals(nodes)

    windows = tuple(
        Window(index=z, kind=kinds[w], package=window_roots[w].package, bounds=window_roots[w].bounds)
        for z, w in enumerate(order)
    )
    elements: list[Element] = []
    for node in nodes:
        if not node.kept:
            continue
        parent = _nearest_kept_ancestor(node)
        merged = _is_merged(node)
        elements.append(
            Element(
                element_id=node.element_id,
                window=z_of[node.window],
                depth=node.depth,
                cls=node.cls,
                role=node.role,
                label=node.label,
                text=node.text,
                content_desc=node.desc,
                hint=node.hint,
                resource_id=node.rid,
                package=node.package,
                bounds=node.bounds,
                clickable=node.clickable,
                long_clickable=node.long_clickable,
                checkable=node.checkable,
                checked=node.checked,
                enabled=node.enabled,
                focusable=node.focusable,
                focused=node.focused,
                scrollable=node.scrollable,
                selected=node.selected,
                password=node.password,
                visible=node.shown,
                occluded=bool(node.occluded_by),
                parent_id=(node.merged_into.element_id if merged and node.merged_into else None)
                or (parent.element_id if parent else None),
                ordinal=node.ordinal,
                context=node.context,
                merged=merged,
                occluded_by=node.occluded_by,
            )
        )
    try:
        rotation = int(rotation_text)
    except ValueError:
        rotation = 0
    apps = [w for w in windows if w.kind is WindowKind.APP]
    package = apps[-1].package if apps else (windows[-1].package if windows else "")
    screen = Screen(
        windows=windows,
        elements=tuple(elements),
        width=screen_bounds.width,
        height=screen_bounds.height,
        rotation=rotation,
        package=package,
        activity=None,
        title=_title(elements, windows),
        fingerprint="",
        raw_node_count=len(nodes),
    )
    return attrs.evolve(screen, fingerprint=fingerprint(screen))
