"""Screen rectangles in pixels, as Android writes them in ``bounds="[x1,y1][x2,y2]"``."""

from __future__ import annotations

import attrs


@attrs.frozen
class Rect:
    """A half-open pixel rectangle: ``left <= x < right`` and ``top <= y < bottom``."""

    left: int
    top: int
    right: int
    bottom: int

    @property
    def width(self) -> int:
        return self.right - self.left

    @property
    def height(self) -> int:
        return self.bottom - self.top

    @property
    def center(self) -> tuple[int, int]:
        return ((self.left + self.right) // 2, (self.top + self.bottom) // 2)

    @property
    def empty(self) -> bool:
        return self.right <= self.left or self.bottom <= self.top

    def contains(self, x: int, y: int) -> bool:
        return self.left <= x < self.right and self.top <= y < self.bottom

    def intersect(self, other: Rect) -> Rect:
        """The overlap of two rectangles; an empty rectangle when they do not overlap."""
        left, top = max(self.left, other.left), max(self.top, other.top)
        right, bottom = min(self.right, other.right), min(self.bottom, other.bottom)
        if right <= left or bottom <= top:
            return Rect(left, top, left, top)
        return Rect(left, top, right, bottom)

    def shifted(self, dx: int, dy: int) -> Rect:
        return Rect(self.left + dx, self.top + dy, self.right + dx, self.bottom + dy)

    def bounds_text(self) -> str:
        """The rectangle in uiautomator's ``[x1,y1][x2,y2]`` form."""
        return f"[{self.left},{self.top}][{self.right},{self.bottom}]"
