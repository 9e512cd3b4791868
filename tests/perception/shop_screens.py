"""Synthetic Demo-Shop-like dumps with knobs for what changes between two looks at a screen."""

from __future__ import annotations

from tests.perception.dumps import N, hierarchy, node

W, H = 1080, 1920
ROW_H = 200


def status_bar(clock: str = "12:45", battery: str = "87%") -> N:
    return node(
        "FrameLayout",
        (0, 0, W, 72),
        node("TextView", (9, 0, 120, 72), text=clock, rid="clock"),
        node("TextView", (900, 0, 1071, 72), text=battery, rid="battery"),
        package="com.android.systemui",
    )


def keyboard() -> N:
    keys = [
        node("FrameLayout", (i * 108, 1500, (i + 1) * 108, 1650), desc=c, clickable=True)
        for i, c in enumerate("qwertyuiop")
    ]
    return node(
        "FrameLayout",
        (0, 1400, W, H),
        node("LinearLayout", (0, 1400, W, H), *keys),
        package="com.google.android.inputmethod.latin",
    )


def dialog(title: str = "Remove item?") -> N:
    return node(
        "FrameLayout",
        (90, 700, 990, 1200),
        node("TextView", (130, 740, 950, 820), text=title, rid="alertTitle"),
        node("Button", (600, 1080, 760, 1160), text="Cancel", rid="button2", clickable=True),
        node("Button", (780, 1080, 950, 1160), text="Remove", rid="button1", clickable=True),
    )


def row(i: int, name: str, price: str, top: int) -> N:
    return node(
        "LinearLayout",
        (0, top, W, top + ROW_H),
        node("TextView", (40, top + 20, 600, top + 90), text=name, rid="name"),
        node("TextView", (40, top + 100, 600, top + 170), text=price, rid="price"),
        node("ImageButton", (900, top + 50, 1040, top + 150), desc="Delete", rid="delete", clickable=True),
        clickable=True,
    )


def cart(
    items: tuple[tuple[str, str], ...] = (("Milk", "$1.99"), ("Eggs", "$3.49"), ("Bread", "$2.50")),
    *,
    clock: str = "12:45",
    battery: str = "87%",
    count_text: str | None = None,
    title: str = "Cart",
    express: bool = False,
    with_dialog: bool = False,
    with_keyboard: bool = False,
    note: str = "",
) -> str:
    """The cart page: toolbar, list of rows (name, price, Delete), a switch, a note field, a Checkout button."""
    rows = [row(i, name, price, 300 + i * ROW_H) for i, (name, price) in enumerate(items)]
    app = node(
        "FrameLayout",
        (0, 0, W, H),
        node(
            "LinearLayout",
            (0, 72, W, H),
            node(
                "android.view.ViewGroup",
                (0, 72, W, 250),
                node("ImageButton", (0, 100, 140, 220), desc="Navigate up", clickable=True),
                node("TextView", (180, 120, 700, 200), text=title, rid="toolbar_title"),
                node("TextView", (800, 120, 1040, 200), text=count_text or f"{len(items)} items", rid="count"),
                rid="toolbar",
            ),
            node(
                "androidx.recyclerview.widget.RecyclerView", (0, 300, W, 1100), *rows, rid="cart_list", scrollable=True
            ),
            node(
                "Switch",
                (40, 1200, 1040, 1300),
                text="Express delivery",
                rid="express",
                checkable=True,
                checked=express,
                clickable=True,
            ),
            node(
                "EditText",
                (40, 1420, 1040, 1520),
                text=note,
                rid="note",
                clickable=True,
                focused=with_keyboard,
                extra=(("hint", "Note for the courier"),),
            ),
            node("Button", (40, 1750, 1040, 1880), text="Checkout", rid="checkout", clickable=True),
        ),
    )
    windows = [app]
    if with_dialog:
        windows.append(dialog())
    if with_keyboard:
        windows.append(keyboard())
    windows.append(status_bar(clock, battery))
    return hierarchy(*windows)
