"""Hand-built screens for role tests: a login form, a cart with duplicated buttons, settings."""

from __future__ import annotations

from typing import Any

from fsm_runner.perception.screen import Bounds, Element, Screen, Window, WindowKind

APP = "com.example.demoshop"


def el(element_id: str, cls: str, bounds: tuple[int, int, int, int], **kw: Any) -> Element:
    """An element with sensible defaults: role from class, label from text/desc/hint."""
    role = kw.pop("role", None)
    if role is None:
        tail = cls.rsplit(".", 1)[-1]
        role = {
            "Button": "button",
            "EditText": "field",
            "Switch": "switch",
            "CheckBox": "checkbox",
            "ImageView": "image",
            "ImageButton": "button",
            "TextView": "text",
            "RecyclerView": "list",
        }.get(tail, "button" if kw.get("clickable") else "group")
    text = kw.pop("text", "")
    desc = kw.pop("content_desc", "")
    hint = kw.pop("hint", "")
    label = kw.pop("label", None)
    if label is None:
        label = text or desc or hint
    return Element(
        element_id=element_id,
        window=kw.pop("window", 0),
        depth=kw.pop("depth", 2),
        cls=cls,
        role=role,
        label=label,
        text=text,
        content_desc=desc,
        hint=hint,
        resource_id=kw.pop("resource_id", ""),
        package=kw.pop("package", APP),
        bounds=Bounds(*bounds),
        **kw,
    )


def screen(
    *elements: Element,
    windows: tuple[Window, ...] | None = None,
    activity: str = ".Main",
    fingerprint: str = "fp",
) -> Screen:
    wins = windows or (Window(0, WindowKind.APP, APP, Bounds(0, 0, 1080, 2400)),)
    return Screen(
        windows=wins,
        elements=elements,
        width=1080,
        height=2400,
        rotation=0,
        package=APP,
        activity=activity,
        title="",
        fingerprint=fingerprint,
        raw_node_count=len(elements),
    )


def login_screen(*, keyboard: bool = False, username: str = "", password: str = "") -> Screen:
    """Username and password fields, a Login label inside a clickable container, a link."""
    occluded = keyboard
    elements = [
        el("title", "android.widget.TextView", (100, 200, 980, 300), text="Welcome back"),
        el(
            "user",
            "android.widget.EditText",
            (100, 400, 980, 520),
            hint="Username",
            text=username,
            resource_id=f"{APP}:id/username",
            clickable=True,
            focusable=True,
            focused=keyboard,
        ),
        el(
            "pass",
            "android.widget.EditText",
            (100, 560, 980, 680),
            hint="Password",
            text="•" * len(password),
            resource_id=f"{APP}:id/password",
            clickable=True,
            focusable=True,
            password=True,
        ),
        el("remember", "android.widget.CheckBox", (100, 720, 600, 800), text="Remember me", checkable=True),
        el(
            "login",
            "android.widget.FrameLayout",
            (100, 1800, 980, 1950),
            resource_id=f"{APP}:id/btn_login",
            clickable=True,
            label="Login",
            occluded=occluded,
            role="button",
        ),
        el(
            "login_text",
            "android.widget.TextView",
            (400, 1840, 680, 1910),
            text="Login",
            parent_id="login",
            depth=3,
            occluded=occluded,
        ),
        el(
            "forgot",
            "android.widget.TextView",
            (100, 2000, 600, 2060),
            text="Forgot password?",
            clickable=True,
            occluded=occluded,
        ),
    ]
    windows = [Window(0, WindowKind.APP, APP, Bounds(0, 0, 1080, 2400))]
    if keyboard:
        windows.append(
            Window(1, WindowKind.KEYBOARD, "com.google.android.inputmethod.latin", Bounds(0, 1500, 1080, 2400))
        )
        elements.append(
            el(
                "kb_q",
                "android.widget.FrameLayout",
                (0, 1600, 108, 1700),
                content_desc="q",
                window=1,
                clickable=True,
                package="com.google.android.inputmethod.latin",
            )
        )
    return screen(*elements, windows=tuple(windows), activity=".LoginActivity")


def cart_screen(names: tuple[str, ...] = ("Milk", "Bread", "Eggs")) -> Screen:
    """Rows with a name, a quantity and a Delete button each: duplicated labels."""
    elements = [
        el("list", "androidx.recyclerview.widget.RecyclerView", (0, 200, 1080, 2000), scrollable=True),
    ]
    for i, name in enumerate(names):
        top = 220 + i * 300
        row = f"row{i}"
        elements += [
            el(
                row,
                "android.widget.LinearLayout",
                (0, top, 1080, top + 280),
                parent_id="list",
                role="group",
                label=name,
                context="",
            ),
            el(
                f"name{i}",
                "android.widget.TextView",
                (40, top + 20, 500, top + 100),
                text=name,
                parent_id=row,
                context=name,
                depth=3,
            ),
            el(
                f"minus{i}",
                "android.widget.ImageButton",
                (520, top + 20, 620, top + 120),
                content_desc="Decrease",
                clickable=True,
                parent_id=row,
                context=name,
                depth=3,
            ),
            el(
                f"plus{i}",
                "android.widget.ImageButton",
                (700, top + 20, 800, top + 120),
                content_desc="Increase",
                clickable=True,
                parent_id=row,
                context=name,
                depth=3,
            ),
            el(
                f"del{i}",
                "android.widget.Button",
                (840, top + 20, 1040, top + 120),
                text="Delete",
                clickable=True,
                parent_id=row,
                context=name,
                depth=3,
                ordinal=i + 1,
            ),
        ]
    elements += [
        el("total", "android.widget.TextView", (40, 2050, 600, 2120), text="Total: $12.50"),
        el("checkout", "android.widget.Button", (600, 2050, 1040, 2180), text="Checkout", clickable=True),
    ]
    return screen(*elements, activity=".CartActivity")


def settings_screen(*, notifications: bool = True, dark: bool = False) -> Screen:
    """Two switches, a disabled button, an icon, a Chinese tab bar."""
    return screen(
        el(
            "back",
            "android.widget.ImageButton",
            (0, 100, 120, 220),
            content_desc="Navigate up",
            clickable=True,
        ),
        el("notif_label", "android.widget.TextView", (40, 300, 700, 380), text="Notifications"),
        el(
            "notif",
            "android.widget.Switch",
            (860, 300, 1040, 380),
            checkable=True,
            checked=notifications,
            clickable=True,
            resource_id=f"{APP}:id/switch_notifications",
            label="",
        ),
        el("dark_label", "android.widget.TextView", (40, 420, 700, 500), text="Dark mode"),
        el(
            "dark",
            "android.widget.Switch",
            (860, 420, 1040, 500),
            checkable=True,
            checked=dark,
            clickable=True,
            resource_id=f"{APP}:id/switch_dark_mode",
            label="",
        ),
        el("sync", "android.widget.Button", (40, 600, 500, 700), text="Sync now", enabled=False),
        el("logout", "android.widget.Button", (40, 800, 500, 900), text="Log out", clickable=True),
        el(
            "delete_acct",
            "android.widget.Button",
            (40, 950, 500, 1050),
            text="Delete account",
            clickable=True,
        ),
        el("search", "android.widget.ImageView", (900, 100, 1020, 220), content_desc="Search", clickable=True),
        el(
            "tab_home",
            "android.widget.TextView",
            (0, 2250, 360, 2400),
            text="首页",
            clickable=True,
            role="tab",
            selected=True,
        ),
        el(
            "tab_cart",
            "android.widget.TextView",
            (360, 2250, 720, 2400),
            text="购物车",
            clickable=True,
            role="tab",
        ),
        el(
            "tab_me",
            "android.widget.TextView",
            (720, 2250, 1080, 2400),
            text="我的",
            clickable=True,
            role="tab",
        ),
        activity=".SettingsActivity",
    )
