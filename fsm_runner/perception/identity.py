"""Stable element ids: a chain of identities from the window down, hashed to ``e`` + six base32 characters."""

from __future__ import annotations

import hashlib
from collections import defaultdict

from fsm_runner.perception.raw_tree import RawNode
from fsm_runner.perception.screen import WindowKind
from fsm_runner.perception.volatile import mask_volatile

_BASE32 = "abcdefghijklmnopqrstuvwxyz234567"


#: Two base32 characters for each 10-bit value, low five bits first.
_PAIRS = [_BASE32[v & 31] + _BASE32[v >> 5] for v in range(1024)]


def _short_id(hex_key: str) -> str:
    """``e`` and six base32 characters (30 bits) of a hex digest, low bits first."""
    value = int(hex_key[:8], 16) >> 2
    return "e" + _PAIRS[value & 1023] + _PAIRS[(value >> 10) & 1023] + _PAIRS[(value >> 20) & 1023]


def _digest(material: str) -> str:
    return hashlib.blake2b(material.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def assign_keys(nodes: list[RawNode], window_roots: list[RawNode], kinds: list[WindowKind]) -> None:
    """Identity keys of kept nodes and their ancestors: (class, resource id, masked label) chained from the window.

    Siblings with one masked identity are told apart by their full text, and
    only when that is equal too by their position among those twins.
    """
    root_seen: dict[str, int] = defaultdict(int)
    for root, kind in zip(window_roots, kinds, strict=True):
        base = f"{kind.value}|{root.package}"
        root_seen[base] += 1
        root.key = hashlib.blake2b(
            f"{base}|{root_seen[base]}|{root.cls}|{root.rid}".encode(), digest_size=16
        ).hexdigest()
    # Document order keys every parent before its children.
    for node in nodes:
        if node.children:
            _key_siblings(node)


def _identity(node: RawNode) -> str:
    # What a field shows is its value (state), not what it is: typing must not change its id.
    if node.role == "field":
        return f"{node.cls}|{node.rid}|field"
    leafish = node.own_label or (node.label if (node.acts or node.row_label) else "")
    return f"{node.cls}|{node.rid}|{mask_volatile(leafish) if leafish else ''}"


def _discriminating_text(node: RawNode) -> str:
    # Twin fields are told apart by position: their text is what the user types.
    return "" if node.role == "field" else node.own_label or node.label


def _key_siblings(parent: RawNode) -> None:
    children = parent.children
    if len(children) == 1:
        # Wrapper chains: the most common parent of all.
        only = children[0]
        if only.kept or only.children:
            only.key = _digest(parent.key + "\x1f" + _identity(only) + "\x1f")
        return
    identities = [_identity(c) for c in children]
    if len(set(identities)) == len(identities):
        # Distinct siblings, the usual case: no twins, so nothing to discriminate.
        prefix = parent.key + "\x1f"
        for child, ident in zip(children, identities, strict=True):
            if child.kept or child.children:
                child.key = _digest(prefix + ident + "\x1f")
        return
    groups: dict[str, list[int]] = defaultdict(list)
    for position, ident in enumerate(identities):
        groups[ident].append(position)
    for ident, positions in groups.items():
        if len(positions) == 1:
            discriminators = [""]
        else:
            raw = [_discriminating_text(children[p]) for p in positions]
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
            if not child.kept and not child.children:
                continue
            child.key = _digest(f"{parent.key}\x1f{ident}\x1f{disc}")


def assign_ids(nodes: list[RawNode]) -> None:
    """Short ids for the kept nodes, unique within the screen (a clash is salted in document order)."""
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
