"""Screenshots for roles whose profile enables vision: bars cropped, scaled to 720 px wide, as an image part."""

from __future__ import annotations

import base64
import io
from typing import Any

from PIL import Image

from fsm_runner.perception.screen import Screen, WindowKind

TARGET_WIDTH = 720


def prepared_screenshot(png: bytes, screen: Screen | None = None, *, width: int = TARGET_WIDTH) -> bytes:
    """``png`` without the status and navigation bars (their windows in ``screen``), scaled to ``width``."""
    with Image.open(io.BytesIO(png)) as image:
        image.load()
        top, bottom = 0, image.height
        if screen is not None and screen.height > 0:
            scale = image.height / screen.height
            for window in screen.windows:
                if window.kind is WindowKind.STATUS_BAR and window.bounds.y1 <= 0:
                    top = max(top, round(window.bounds.y2 * scale))
                elif window.kind is WindowKind.NAVIGATION_BAR and window.bounds.y2 >= screen.height:
                    bottom = min(bottom, round(window.bounds.y1 * scale))
        if bottom - top < image.height // 4:
            top, bottom = 0, image.height
        cropped = image.crop((0, top, image.width, bottom)).convert("RGB")
        height = max(1, round(cropped.height * width / cropped.width))
        scaled = cropped.resize((width, height), Image.Resampling.LANCZOS)
        out = io.BytesIO()
        scaled.save(out, format="PNG", optimize=True)
        return out.getvalue()


def image_part(png: bytes) -> dict[str, Any]:
    """A chat-completions image part holding ``png`` as a data URL (low detail keeps the price flat)."""
    encoded = base64.b64encode(png).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{encoded}", "detail": "low"}}
