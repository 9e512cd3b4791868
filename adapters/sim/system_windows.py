"""System surfaces: status bar, launcher home screen, keyguard and the notification permission dialog."""

from __future__ import annotations

from collections.abc import Callable

from adapters.sim.geometry import Rect
from adapters.sim.widgets import TEXT, Node, button, container, image, text_view
from adapters.sim.windows import LAUNCHER, PERMISSION_CONTROLLER, SYSTEMUI, Window

LAUNCHER_ACTIVITY = "com.android.launcher3.uioverrides.QuickstepLauncher"
PERMISSION_ACTIVITY = "com.android.permissioncontroller.permission.ui.GrantPermissionsActivity"
PERMISSION_PACKAGE_ID = "com.android.permissioncontroller"


def status_bar(width: int, height: int, clock: str) -> Window:
    """The status bar: clock on the left, signal and battery on the right."""
    rect = Rect(0, 0, width, height)
    kids = [
        text_view(Rect(width // 20, 0, width // 4, height), clock, resource_id=f"{SYSTEMUI}:id/clock",
                  style="status-text"),
        image(Rect(width - width // 5, 0, width - width // 8, height), "Wifi signal full.", style="status-icon"),
        image(Rect(width - width // 9, 0, width - width // 30, height), "Battery 100 percent.",
              style="status-icon"),
    ]
    root = container(rect, [container(rect, kids, resource_id=f"{SYSTEMUI}:id/status_bar")], style="statusbar")
    return Window(SYSTEMUI, root, kind="status_bar")


def launcher(width: int, height: int, top: int, apps: list[tuple[str, Callable[[], None]]],
             search_label: str) -> Window:
    """The home screen: one icon per app (label as text and content description), four per row."""
    cell_w, cell_h = width // 4, width // 4 + width // 12
    icons: list[Node] = []
    grid_top = height - cell_h * 2 - width // 3
    for i, (label, on_tap) in enumerate(apps):
        x, y = (i % 4) * cell_w, grid_top + (i // 4) * cell_h
        icons.append(Node(cls=TEXT, bounds=Rect(x, y, x + cell_w, y + cell_h), text=label, content_desc=label,
                          clickable=True, focusable=True, long_clickable=True, on_tap=on_tap, style="app-icon"))
    search_top = height - width // 4
    search = text_view(Rect(width // 20, search_top, width - width // 20, search_top + width // 8), search_label,
                       resource_id=f"{LAUNCHER}:id/search_container_hotseat", style="search-pill")
    workspace = container(Rect(0, top, width, height), [*icons, search], resource_id=f"{LAUNCHER}:id/workspace")
    return Window(LAUNCHER, container(Rect(0, 0, width, height), [workspace], style="wallpaper"), kind="app")


def keyguard(width: int, height: int, clock: str, on_unlock: Callable[[], None]) -> Window:
    """The lock screen; it covers everything and a swipe up (or a tap on the hint) unlocks it."""
    rect = Rect(0, 0, width, height)
    kids = [
        text_view(Rect(0, height // 5, width, height // 5 + width // 5), clock,
                  resource_id=f"{SYSTEMUI}:id/lock_clock", style="clock-large"),
        Node(cls=TEXT, bounds=Rect(0, height - width // 4, width, height - width // 8), text="Swipe up to unlock",
             resource_id=f"{SYSTEMUI}:id/keyguard_indication_text", clickable=True, on_tap=on_unlock,
             style="muted-center"),
    ]
    root = container(rect, [container(rect, kids, resource_id=f"{SYSTEMUI}:id/notification_panel")],
                     style="keyguard")
    return Window(SYSTEMUI, root, kind="keyguard", modal=True)


def permission_dialog(width: int, height: int, message: str, allow: str, deny: str, *,
                      on_allow: Callable[[], None], on_deny: Callable[[], None]) -> Window:
    """The runtime permission prompt, drawn by the permission controller over the app."""
    card = Rect(width // 15, height // 2 - width // 3, width - width // 15, height // 2 + width // 3)
    pid = f"{PERMISSION_PACKAGE_ID}:id"
    inner_w = card.width
    row_h = card.height // 6
    kids = [
        image(Rect(card.left + inner_w // 2 - row_h // 2, card.top + row_h // 3,
                   card.left + inner_w // 2 + row_h // 2, card.top + row_h + row_h // 3), "",
              resource_id=f"{pid}/permission_icon", style="bell"),
        text_view(Rect(card.left + 48, card.top + row_h * 3 // 2, card.right - 48, card.top + row_h * 3), message,
                  resource_id=f"{pid}/permission_message", style="title-center"),
        button(Rect(card.left + 48, card.top + row_h * 13 // 4, card.right - 48, card.top + row_h * 17 // 4), allow,
               on_allow, resource_id=f"{pid}/permission_allow_button", style="pill"),
        button(Rect(card.left + 48, card.top + row_h * 9 // 2, card.right - 48, card.top + row_h * 11 // 2), deny,
               on_deny, resource_id=f"{pid}/permission_deny_button", style="pill"),
    ]
    panel = container(card, kids, cls="android.widget.LinearLayout", resource_id=f"{pid}/grant_dialog",
                      style="card")
    return Window(PERMISSION_CONTROLLER, container(card, [panel]), kind="system_dialog", modal=True, dim=True)
