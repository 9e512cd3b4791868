"""System permission dialogs: recognize them in a hierarchy dump and decide what to tap.

Independent of adb: works on any ``uiautomator dump`` XML (the simulated device's
too). The engine records the returned :class:`PopupAction` as an environment event.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import attrs

from adapters.base import PopupPolicy

#: Packages that show runtime-permission dialogs, across Android versions.
PERMISSION_PACKAGES: frozenset[str] = frozenset(
    {
        "com.google.android.permissioncontroller",
        "com.android.permissioncontroller",
        "com.android.packageinstaller",
    }
)

_ALLOW_IDS = (
    "permission_allow_foreground_only_button",
    "permission_allow_button",
    "permission_allow_one_time_button",
    "permission_allow_always_button",
)
_DENY_IDS = ("permission_deny_button", "permission_deny_and_dont_ask_again_button")
_ALLOW_TEXTS = (
    "while using the app",
    "allow",
    "only this time",
    "允许",
    "仅在使用该应用期间允许",
    "仅限这一次",
)
_DENY_TEXTS = ("don't allow", "don’t allow", "deny", "拒绝", "不允许")
_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")

Bounds = tuple[int, int, int, int]


@attrs.frozen
class PopupButton:
    """One button of a system dialog: its resource-id, text and bounds ``(x1, y1, x2, y2)``."""

    resource_id: str
    text: str
    bounds: Bounds

    @property
    def center(self) -> tuple[int, int]:
        x1, y1, x2, y2 = self.bounds
        return (x1 + x2) // 2, (y1 + y2) // 2


@attrs.frozen
class SystemPopup:
    """A recognized system dialog: the package showing it and its allow/deny buttons (None if absent)."""

    package: str
    message: str
    allow: PopupButton | None
    deny: PopupButton | None


@attrs.frozen
class PopupAction:
    """What the watcher did about a popup: the button tapped (None when the policy is ``fail``)."""

    package: str
    policy: PopupPolicy
    message: str
    button: str | None
    bounds: Bounds | None

    @property
    def tapped(self) -> bool:
        return self.button is not None


def _bounds(node: ET.Element) -> Bounds | None:
    match = _BOUNDS.fullmatch(node.get("bounds", ""))
    if not match:
        return None
    x1, y1, x2, y2 = (int(group) for group in match.groups())
    return x1, y1, x2, y2


def _short_id(resource_id: str) -> str:
    return resource_id.rsplit("/", 1)[-1]


def _button_rank(node: ET.Element, ids: tuple[str, ...], texts: tuple[str, ...]) -> int | None:
    """Lower is better; None when the node is not such a button."""
    short = _short_id(node.get("resource-id", ""))
    if short in ids:
        return ids.index(short)
    label = (node.get("text") or node.get("content-desc") or "").strip().lower()
    if label in texts and node.get("clickable") == "true":
        return len(ids) + texts.index(label)
    return None


def _best_button(nodes: list[ET.Element], ids: tuple[str, ...], texts: tuple[str, ...]) -> PopupButton | None:
    ranked: list[tuple[int, int, PopupButton]] = []
    for order, node in enumerate(nodes):
        rank = _button_rank(node, ids, texts)
        bounds = _bounds(node)
        if rank is None or bounds is None or bounds[0] >= bounds[2] or bounds[1] >= bounds[3]:
            continue
        button = PopupButton(node.get("resource-id", ""), node.get("text", ""), bounds)
        ranked.append((rank, order, button))
    return min(ranked, key=lambda item: item[:2])[2] if ranked else None


def find_system_popup(xml: str) -> SystemPopup | None:
    """The system permission dialog shown in ``xml``, or None (also None for XML that does not parse)."""
    try:
        root = ET.fromstring(xml)
    except ET.ParseError:
        return None
    nodes = [node for node in root.iter("node") if node.get("package") in PERMISSION_PACKAGES]
    if not nodes:
        return None
    allow = _best_button(nodes, _ALLOW_IDS, _ALLOW_TEXTS)
    deny = _best_button(nodes, _DENY_IDS, _DENY_TEXTS)
    if allow is None and deny is None:
        return None
    message_nodes = [n for n in nodes if _short_id(n.get("resource-id", "")) == "permission_message"]
    message = message_nodes[0].get("text", "") if message_nodes else ""
    return SystemPopup(package=nodes[0].get("package", ""), message=message, allow=allow, deny=deny)


def decide_popup_action(popup: SystemPopup, policy: PopupPolicy) -> PopupAction:
    """The action ``policy`` takes on ``popup``: allow or deny taps that button, ``fail`` taps nothing.

    A policy whose button the dialog lacks taps nothing either, so the caller sees an untapped action.
    """
    button = {"allow": popup.allow, "deny": popup.deny, "fail": None}[policy]
    return PopupAction(
        package=popup.package,
        policy=policy,
        message=popup.message,
        button=None if button is None else (_short_id(button.resource_id) or button.text),
        bounds=None if button is None else button.bounds,
    )
