"""Render windows to a PNG with Pillow, from the same trees the hierarchy dump is written from.

Deterministic: the same windows produce byte-identical PNGs. Fonts are Pillow's
built-in scalable default, so no system font is needed; glyphs it lacks (CJK)
come out as boxes.
"""

from __future__ import annotations

import functools
import io
import zlib

from PIL import Image, ImageDraw, ImageFont

from adapters.sim.geometry import Rect
from adapters.sim.widgets import (
    BUTTON,
    CHECKBOX,
    EDIT,
    IMAGE,
    IMAGE_BUTTON,
    PROGRESS,
    RADIO,
    SWITCH,
    TEXT,
    Node,
)
from adapters.sim.windows import Window

Color = tuple[int, int, int]

ACCENT: Color = (98, 0, 238)
DANGER: Color = (211, 47, 47)
SWITCH_OFF: Color = (189, 189, 189)
WHITE: Color = (255, 255, 255)
BLACK: Color = (0, 0, 0)
INK: Color = (33, 33, 33)
MUTED: Color = (117, 117, 117)
DARK_BG: Color = (18, 18, 18)

_FILLS: dict[str, Color] = {
    "toolbar": ACCENT,
    "statusbar": (32, 33, 36),
    "wallpaper": (27, 94, 90),
    "keyboard": (232, 234, 237),
    "adb-keyboard": (51, 51, 51),
    "keyguard": BLACK,
    "card": WHITE,
    "banner": (255, 243, 205),
}

_TEXT_SIZES: dict[str, int] = {
    "headline": 64,
    "headline-center": 60,
    "title": 52,
    "title-center": 50,
    "clock-large": 160,
    "status-text": 36,
    "badge": 32,
    "muted": 38,
    "muted-center": 38,
    "price-large": 56,
}


@functools.lru_cache(maxsize=64)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _wrap(draw: ImageDraw.ImageDraw, text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
          width: int) -> list[str]:
    """Break ``text`` into lines no wider than ``width``: at spaces, or anywhere for unspaced scripts."""
    lines: list[str] = []
    current = ""
    tokens = text.split(" ") if " " in text else list(text)
    sep = " " if " " in text else ""
    for token in tokens:
        candidate = f"{current}{sep}{token}" if current else token
        if current and draw.textlength(candidate, font=font) > width:
            lines.append(current)
            current = token
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines


class _Painter:
    def __init__(self, width: int, height: int) -> None:
        self.image = Image.new("RGB", (width, height), WHITE)
        self.draw = ImageDraw.Draw(self.image)
        self.unit = width / 1080

    def s(self, n: float) -> int:
        return max(1, round(n * self.unit))

    def box(self, r: Rect) -> tuple[int, int, int, int]:
        return (r.left, r.top, max(r.left, r.right - 1), max(r.top, r.bottom - 1))

    def text(self, r: Rect, text: str, color: Color, size: int, *, center: bool = False) -> None:
        if not text or r.empty:
            return
        font = _font(self.s(size))
        pad = self.s(12) if not center else 0
        lines = _wrap(self.draw, text, font, max(1, r.width - 2 * pad))
        line_h = self.s(size * 1.25)
        total = line_h * len(lines)
        y = r.top + max(0, (r.height - total) // 2)
        for line in lines:
            if y + line_h > r.bottom + self.s(size * 0.3):
                break
            x = r.left + pad
            if center:
                x = r.left + (r.width - int(self.draw.textlength(line, font=font))) // 2
            self.draw.text((x, y), line, fill=color, font=font)
            y += line_h

    def node(self, n: Node, fg: Color, dark: bool) -> None:
        style = n.style
        if style == "dark":
            dark = True
            fg = (230, 230, 230)
            self.draw.rectangle(self.box(n.bounds), fill=DARK_BG)
        fill = _FILLS.get(style)
        if fill is not None:
            if dark and fill in (WHITE,):
                fill = (40, 40, 40)
            radius = self.s(28) if style in ("card", "banner") else 0
            self.draw.rounded_rectangle(self.box(n.bounds), radius=radius, fill=fill)
            fg = WHITE if style in ("toolbar", "statusbar", "wallpaper", "adb-keyboard", "keyguard") else INK
            if dark and style == "card":
                fg = (230, 230, 230)
        if style == "row":
            self.draw.line((n.bounds.left, n.bounds.bottom - 1, n.bounds.right, n.bounds.bottom - 1),
                           fill=(224, 224, 224), width=2)
        self.widget(n, fg)
        for child in n.children:
            self.node(child, fg, dark)

    def widget(self, n: Node, fg: Color) -> None:
        r, style = n.bounds, n.style
        if n.cls == BUTTON:
            self.button(n)
        elif n.cls == EDIT:
            border = ACCENT if n.focused else (158, 158, 158)
            self.draw.rounded_rectangle(self.box(r), radius=self.s(16), outline=border, width=self.s(4 if n.focused
                                                                                                      else 2))
            shown = n.display_text()
            self.text(r, shown, fg if n.text else MUTED, 42)
        elif n.cls in (SWITCH, CHECKBOX, RADIO):
            self.toggle(n, fg)
        elif n.cls == IMAGE_BUTTON:
            self.icon(n, fg)
        elif n.cls == IMAGE:
            self.picture(n)
        elif n.cls == PROGRESS:
            self.draw.arc(self.box(r), start=0, end=270, fill=ACCENT, width=self.s(10))
        elif style == "key":
            inset = self.s(6)
            key = Rect(r.left + inset, r.top + inset, r.right - inset, r.bottom - inset)
            self.draw.rounded_rectangle(self.box(key), radius=self.s(12), fill=WHITE)
            self.text(key, n.hint, INK, 46, center=True)
        elif style == "badge":
            self.draw.ellipse(self.box(r), fill=DANGER)
            self.text(r, n.text, WHITE, 32, center=True)
        elif style == "search-pill":
            self.draw.rounded_rectangle(self.box(r), radius=r.height // 2, fill=WHITE)
            self.text(r, n.text, MUTED, 40, center=True)
        elif style == "app-icon":
            size = min(r.width, r.height) * 3 // 5
            icon = Rect(r.center[0] - size // 2, r.top + self.s(20), r.center[0] + size // 2, r.top + self.s(20) + size)
            self.draw.rounded_rectangle(self.box(icon), radius=size // 4, fill=_tint(n.text))
            self.text(Rect(r.left, icon.bottom, r.right, r.bottom), n.text, WHITE, 36, center=True)
        elif n.cls == TEXT:
            color = {"error": DANGER, "price": ACCENT, "price-large": ACCENT}.get(style, fg)
            if style.startswith("muted"):
                color = MUTED
            self.text(r, n.text, color, _TEXT_SIZES.get(style, 42), center=style.endswith("center"))

    def button(self, n: Node) -> None:
        r, style = n.bounds, n.style
        radius = self.s(24)
        if not n.enabled:
            self.draw.rounded_rectangle(self.box(r), radius=radius, fill=(224, 224, 224))
            self.text(r, n.text, (158, 158, 158), 44, center=True)
        elif style in ("text", "danger-text"):
            self.text(r, n.text, DANGER if style == "danger-text" else ACCENT, 44, center=True)
        elif style == "outline":
            self.draw.rounded_rectangle(self.box(r), radius=radius, outline=ACCENT, width=self.s(3))
            self.text(r, n.text, ACCENT, 48, center=True)
        elif style == "pill":
            self.draw.rounded_rectangle(self.box(r), radius=r.height // 2, fill=(232, 222, 248))
            self.text(r, n.text, INK, 44, center=True)
        else:
            self.draw.rounded_rectangle(self.box(r), radius=radius, fill=DANGER if style == "danger" else ACCENT)
            self.text(r, n.text, WHITE, 46, center=True)

    def toggle(self, n: Node, fg: Color) -> None:
        r = n.bounds
        control_w = self.s(150 if n.cls == SWITCH else 80)
        label = Rect(r.left, r.top, r.right - control_w - self.s(24), r.bottom)
        self.text(label, n.text, fg, 44)
        cy = r.center[1]
        if n.cls == SWITCH:
            track = Rect(r.right - control_w, cy - self.s(30), r.right, cy + self.s(30))
            self.draw.rounded_rectangle(self.box(track), radius=self.s(30), fill=ACCENT if n.checked else SWITCH_OFF)
            tx = track.right - self.s(42) if n.checked else track.left + self.s(42)
            k = self.s(38)
            self.draw.ellipse((tx - k, cy - k, tx + k, cy + k), fill=WHITE, outline=(120, 120, 120), width=2)
        elif n.cls == RADIO:
            k = self.s(30)
            cx = r.right - control_w + k
            self.draw.ellipse((cx - k, cy - k, cx + k, cy + k), outline=ACCENT if n.checked else MUTED,
                              width=self.s(5))
            if n.checked:
                self.draw.ellipse((cx - k // 2, cy - k // 2, cx + k // 2, cy + k // 2), fill=ACCENT)
        else:
            box = Rect(r.right - control_w, cy - self.s(36), r.right - control_w + self.s(72), cy + self.s(36))
            if n.checked:
                self.draw.rounded_rectangle(self.box(box), radius=self.s(8), fill=ACCENT)
                self.draw.line((box.left + self.s(14), cy, box.center[0] - self.s(4), box.bottom - self.s(16),
                                box.right - self.s(12), box.top + self.s(14)), fill=WHITE, width=self.s(8))
            else:
                self.draw.rounded_rectangle(self.box(box), radius=self.s(8), outline=MUTED, width=self.s(5))

    def icon(self, n: Node, fg: Color) -> None:
        r = n.bounds
        cx, cy = r.center
        k = min(r.width, r.height) // 3
        color = fg
        if n.style == "icon-back":
            self.draw.line((cx + k, cy, cx - k, cy), fill=color, width=self.s(8))
            self.draw.line((cx - k, cy, cx, cy - k), fill=color, width=self.s(8))
            self.draw.line((cx - k, cy, cx, cy + k), fill=color, width=self.s(8))
        elif n.style == "icon-cart":
            self.draw.polygon([(cx - k, cy - k), (cx + k, cy - k // 2), (cx + k * 3 // 4, cy + k // 2),
                               (cx - k * 3 // 4, cy + k // 2)], outline=color, width=self.s(6))
            for wx in (cx - k // 2, cx + k // 2):
                self.draw.ellipse((wx - self.s(8), cy + k - self.s(8), wx + self.s(8), cy + k + self.s(8)), fill=color)
        elif n.style == "icon-sort":
            for i, frac in enumerate((1.0, 0.7, 0.4)):
                y = cy - k + i * k
                self.draw.line((cx - k, y, cx - k + int(2 * k * frac), y), fill=color, width=self.s(8))
        else:
            self.draw.ellipse((cx - k, cy - k, cx + k, cy + k), outline=color, width=self.s(8))
            self.draw.ellipse((cx - k // 3, cy - k // 3, cx + k // 3, cy + k // 3), fill=color)

    def picture(self, n: Node) -> None:
        r, style = n.bounds, n.style
        if style == "status-icon":
            self.draw.rectangle((r.left + r.width // 4, r.top + r.height // 3, r.right - r.width // 4,
                                 r.bottom - r.height // 3), fill=WHITE)
        elif style in ("logo", "check", "bell"):
            color = {"logo": ACCENT, "check": (46, 125, 50), "bell": ACCENT}[style]
            self.draw.ellipse(self.box(r), fill=color)
            if style == "check":
                self.draw.line((r.left + r.width // 4, r.center[1], r.center[0] - r.width // 12,
                                r.bottom - r.height // 4, r.right - r.width // 4, r.top + r.height // 4),
                               fill=WHITE, width=self.s(16))
        else:
            self.draw.rounded_rectangle(self.box(r), radius=self.s(20), fill=_tint(style))


def _tint(seed: str) -> Color:
    """A stable colour for a product picture or app icon, derived from its name."""
    h = zlib.crc32(seed.encode())
    return (80 + h % 150, 80 + (h >> 8) % 150, 80 + (h >> 16) % 150)


def render_png(windows: list[Window], width: int, height: int, *, toasts: list[str] | None = None,
               screen_on: bool = True) -> bytes:
    """A PNG of ``windows`` (bottom to top) with any live toasts on top; all black when the screen is off."""
    painter = _Painter(width, height)
    if screen_on:
        for window in windows:
            if window.dim:
                overlay = Image.new("RGB", (width, height), BLACK)
                painter.image = Image.blend(painter.image, overlay, 0.45)
                painter.draw = ImageDraw.Draw(painter.image)
            painter.node(window.root, INK, False)
        for i, text in enumerate(toasts or []):
            bottom = height - painter.s(260) - i * painter.s(140)
            font = _font(painter.s(40))
            w = int(painter.draw.textlength(text, font=font)) + painter.s(96)
            r = Rect((width - w) // 2, bottom - painter.s(110), (width + w) // 2, bottom)
            painter.draw.rounded_rectangle(painter.box(r), radius=r.height // 2, fill=(66, 66, 66))
            painter.text(r, text, WHITE, 40, center=True)
    else:
        painter.draw.rectangle((0, 0, width, height), fill=BLACK)
    out = io.BytesIO()
    painter.image.save(out, format="PNG", compress_level=1)
    return out.getvalue()
