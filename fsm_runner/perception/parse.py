"""``parse_dump``: one ``uiautomator dump`` into a de-noised, fingerprinted ``Screen``."""

from __future__ import annotations

from collections import defaultdict

from fsm_runner.errors import PerceptionError
from fsm_runner.perception.dump_text import decode_dump, dump_head, extract_xml
from fsm_runner.perception.fingerprint import fingerprint_of
from fsm_runner.perception.identity import assign_ids, assign_keys
from fsm_runner.perception.raw_tree import RawNode, load_tree
from fsm_runner.perception.resource_ids import short_resource_id
from fsm_runner.perception.screen import Bounds, Element, Screen, Window, WindowKind
from fsm_runner.perception.windows import classify_window, stack_rank

_MAX_MERGED_TEXTS = 4
_TITLE_BAND = 0.15
_EDIT_ROLES = frozenset({"field"})
_ROW_CONTAINER_ROLES = frozenset({"list"})


def _screen_bounds(window_roots: list[RawNode], nodes: list[RawNode]) -> Bounds:
    width = max((n.bounds.x2 for n in window_roots), default=0)
    height = max((n.bounds.y2 for n in window_roots), default=0)
    if width <= 0 or height <= 0:
        width = max((n.bounds.x2 for n in nodes), default=0)
        height = max((n.bounds.y2 for n in nodes), default=0)
    return Bounds(0, 0, max(0, width), max(0, height))


def _classify(window_roots: list[RawNode], screen: Bounds) -> list[WindowKind]:
    kinds: list[WindowKind] = []
    first_app_seen = False
    for root in window_roots:
        kind = classify_window(root.package, root.cls, root.rid, root.bounds, screen, first_app_seen=first_app_seen)
        first_app_seen = first_app_seen or kind is WindowKind.APP
        kinds.append(kind)
    return kinds


def _descendant_texts(node: RawNode, limit: int) -> list[RawNode]:
    """Text-bearing descendants that label ``node``: not inside separately clickable children or fields."""
    found: list[RawNode] = []
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


def _is_row(node: RawNode) -> bool:
    parent = node.parent
    in_list = parent is not None and (parent.scrollable or parent.role in _ROW_CONTAINER_ROLES)
    return bool(node.children) and (in_list or node.acts)


def _assign_labels(nodes: list[RawNode]) -> None:
    for node in nodes:
        label = node.own_label
        if node.children:
            row = _is_row(node)
            if not label and (node.acts or row):
                texts = _descendant_texts(node, _MAX_MERGED_TEXTS)
                parts = dict.fromkeys(t.own_label.strip() for t in texts if t.own_label.strip())
                label = " · ".join(parts)
                if node.acts:
                    for t in texts:
                        if t.merged_into is None and not (t.checkable or t.scrollable):
                            # A node that acts is always kept, so the text is shown through it.
                            t.merged_into = node
            if row:
                node.row_label = label
        node.label = label or node.hint


def _mark_visibility(
    nodes: list[RawNode], window_roots: list[RawNode], kinds: list[WindowKind], z_of: list[int], screen: Bounds
) -> None:
    # Plain ints rather than Bounds methods: this runs for every kept node of every dump.
    sx1, sy1, sx2, sy2 = screen.x1, screen.y1, screen.x2, screen.y2
    by_z = sorted(range(len(window_roots)), key=lambda w: z_of[w])
    # For each window, the boxes of the windows stacked above it, lowest first.
    above = [
        [(window_roots[other].box, kinds[other].value) for other in by_z if z_of[other] > z_of[window]]
        for window in range(len(window_roots))
    ]
    no_screen = sx2 <= sx1 or sy2 <= sy1
    # A window with no area clips nothing.
    clips = [
        (wx1, wy1, wx2, wy2) if wx2 > wx1 and wy2 > wy1 else None
        for wx1, wy1, wx2, wy2 in (root.box for root in window_roots)
    ]
    for node in nodes:
        if not node.kept or not node.shown:
            continue
        x1, y1, x2, y2 = node.box
        clip = clips[node.window]
        # Comparisons rather than min/max calls: an empty box, or one wholly outside the screen or
        # its own window, is not shown.
        if (
            x2 <= x1
            or y2 <= y1
            or no_screen
            or x2 <= sx1
            or sx2 <= x1
            or y2 <= sy1
            or sy2 <= y1
            or (clip is not None and (x2 <= clip[0] or clip[2] <= x1 or y2 <= clip[1] or clip[3] <= y1))
        ):
            node.shown = False
            continue
        cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
        for (ox1, oy1, ox2, oy2), kind in above[node.window]:
            if ox1 <= cx < ox2 and oy1 <= cy < oy2:
                node.occluded_by = kind
                break


def _inherit_from_parents(nodes: list[RawNode]) -> None:
    """The row each node sits in (its context) and its nearest kept ancestor.

    Document order visits parents first, so each node takes both from its parent.
    """
    for node in nodes:
        parent = node.parent
        if parent is None:
            continue
        node.kept_above = parent if parent.kept else parent.kept_above
        row_label = parent.row_label or parent.enclosing_row
        node.enclosing_row = row_label
        if row_label and row_label != node.label:
            node.context = row_label


def _element(node: RawNode, window: int) -> Element:
    # A merged text belongs to its clickable container; any other element to its nearest kept ancestor.
    owner = node.merged_into or node.kept_above
    merged = node.merged_into is not None
    checkable, checked, clickable, enabled, focusable, focused, scrollable, long_clickable, password, selected = (
        node.flags
    )
    # Positional: a 29-keyword call costs three times as much, and this runs for every kept node.
    return Element(
        node.element_id,  # element_id
        window,  # window
        node.depth,  # depth
        node.cls,  # cls
        node.role,  # role
        node.label,  # label
        node.text,  # text
        node.desc,  # content_desc
        node.hint,  # hint
        node.rid,  # resource_id
        node.package,  # package
        node.bounds,  # bounds
        clickable,  # clickable
        long_clickable,  # long_clickable
        checkable,  # checkable
        checked,  # checked
        enabled,  # enabled
        focusable,  # focusable
        focused,  # focused
        scrollable,  # scrollable
        selected,  # selected
        password,  # password
        node.shown,  # visible
        bool(node.occluded_by),  # occluded
        owner.element_id if owner is not None else None,  # parent_id
        node.ordinal,  # ordinal
        node.context,  # context
        merged,  # merged
        node.occluded_by,  # occluded_by
    )


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


def _assign_ordinals(nodes: list[RawNode]) -> None:
    groups: dict[tuple[str, str], list[RawNode]] = defaultdict(list)
    for node in nodes:
        if node.kept and node.shown and not node.occluded_by and node.merged_into is None:
            # An empty label says nothing: the resource id tells unlabelled elements apart instead.
            groups[(node.role, node.label or short_resource_id(node.rid))].append(node)
    for members in groups.values():
        if len(members) < 2:
            continue
        members.sort(key=lambda n: (n.bounds.y1, n.bounds.x1))
        for ordinal, node in enumerate(members, start=1):
            node.ordinal = ordinal


def parse_dump(data: str | bytes) -> Screen:
    """Parse ``uiautomator dump`` output (junk, trailers and any line endings allowed) into a ``Screen``.

    Raises PerceptionError, quoting the first bytes, for anything that is not
    a hierarchy with at least one node; never any other exception.
    """
    text = decode_dump(data)
    head = dump_head(text.strip())
    xml_text = extract_xml(text)
    tree = load_tree(xml_text, head)
    nodes, window_roots, rotation_text = tree.nodes, tree.window_roots, tree.rotation
    if not nodes:
        raise PerceptionError("the hierarchy dump has no nodes", head=head)
    screen_bounds = _screen_bounds(window_roots, nodes)
    kinds = _classify(window_roots, screen_bounds)
    order = sorted(range(len(window_roots)), key=lambda w: (stack_rank(kinds[w]), w))
    z_of = [0] * len(window_roots)
    for z, w in enumerate(order):
        z_of[w] = z
    _assign_labels(nodes)
    assign_keys(nodes, window_roots, kinds)
    _mark_visibility(nodes, window_roots, kinds, z_of, screen_bounds)
    _inherit_from_parents(nodes)
    assign_ids(nodes)
    _assign_ordinals(nodes)

    windows = tuple(
        Window(index=z, kind=kinds[w], package=window_roots[w].package, bounds=window_roots[w].bounds)
        for z, w in enumerate(order)
    )
    elements = [_element(node, z_of[node.window]) for node in nodes if node.kept]
    try:
        rotation = int(rotation_text)
    except ValueError:
        rotation = 0
    apps = [w for w in windows if w.kind is WindowKind.APP]
    package = apps[-1].package if apps else (windows[-1].package if windows else "")
    return Screen(
        windows=windows,
        elements=tuple(elements),
        width=screen_bounds.width,
        height=screen_bounds.height,
        rotation=rotation,
        package=package,
        activity=None,
        title=_title(elements, windows),
        fingerprint=fingerprint_of(windows, elements),
        raw_node_count=len(nodes),
    )
