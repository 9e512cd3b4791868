"""What a resource id tells: its short name, and whether it was written by a person or generated."""

from __future__ import annotations

import functools
import re

_LAYOUT_ID_WORDS = (
    "container",
    "layout",
    "content",
    "root",
    "frame",
    "holder",
    "panel",
    "wrapper",
    "parent",
    "area",
    "decor",
    "overlay",
    "scrim",
    "background",
    "stub",
    "placeholder",
)
_KNOWN_SHORT_IDS = frozenset({"up", "ok", "add", "tab", "fab", "pay", "buy", "map", "nav", "cta", "btn", "go"})
_GENERATED_ID = re.compile(r"^(?:[a-z]{1,3}\d*_?|[a-z]{0,4}_?\d+[a-z_\d]*|.*obfuscated.*|view_?\d+|id_?\d+)$")


def short_resource_id(resource_id: str) -> str:
    """The part of a resource id after ``:id/`` (``com.app:id/save`` -> ``save``)."""
    return resource_id.rsplit("/", 1)[-1] if resource_id else ""


@functools.lru_cache(maxsize=4096)
def resource_id_is_meaningful(resource_id: str) -> bool:
    """Whether a resource id names something (``save_button``) rather than being generated (``view_12``)."""
    name = short_resource_id(resource_id)
    if not name:
        return False
    if name.lower() in _KNOWN_SHORT_IDS:
        return True
    return _GENERATED_ID.match(name.lower()) is None


@functools.lru_cache(maxsize=4096)
def rid_carries_meaning(resource_id: str) -> bool:
    """Whether a resource id names something beyond layout (``save`` yes, ``content_frame`` no)."""
    name = short_resource_id(resource_id).lower()
    return resource_id_is_meaningful(resource_id) and not any(word in name for word in _LAYOUT_ID_WORDS)
