"""The machine drawn as inline SVG from ``table.TRANSITIONS``, with the path a run took highlighted.

Reports are opened offline, where mermaid.js is not available, so the state
graph is laid out here on a fixed grid: the backbone in one row, HEAL below
it, terminal states at the bottom.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from html import escape

from fsm_runner import table

_BOX_W = 104
_BOX_H = 34
_POSITIONS: dict[str, tuple[int, int]] = {
    table.IDLE: (70, 80),
    table.INIT: (195, 80),
    table.OBSERVE: (320, 80),
    table.PLAN: (445, 80),
    table.EXECUTE: (570, 80),
    table.VERIFY: (695, 80),
    table.NEXT_OR_END: (830, 80),
    table.HEAL: (507, 195),
    table.FAILED: (320, 315),
    table.ERROR: (507, 315),
    table.ABORTED: (695, 315),
    table.PASSED: (880, 315),
}
_WIDTH = 960
_HEIGHT = 350


def edges() -> list[tuple[str, str, str]]:
    """Every (source, destination, trigger) of the transition table."""
    out: list[tuple[str, str, str]] = []
    for trigger, sources, dest in table.TRANSITIONS:
        for source in [sources] if isinstance(sources, str) else sources:
            out.append((source, dest, trigger))
    return out


def state_svg(path: Sequence[str]) -> str:
    """An ``<svg>`` element of the machine; states and transitions on ``path`` are drawn as taken."""
    visited = set(path)
    taken = Counter(itertools.pairwise(path))
    final = path[-1] if path else None
    lines: list[str] = []
    labels: list[str] = []
    for source, dest, trigger in edges():
        count = taken.get((source, dest), 0)
        cls = "edge taken" if count else "edge"
        if source == dest:
            x, y = _POSITIONS[source]
            top = y - _BOX_H // 2
            lines.append(
                f'<path class="{cls}" d="M{x - 18},{top} C{x - 30},{top - 34} {x + 30},{top - 34} {x + 18},{top}" '
                f'marker-end="url(#{"arrow-taken" if count else "arrow"})"><title>{escape(trigger)}</title></path>'
            )
            if count:
                labels.append(_label(x, top - 30, f"{trigger} ×{count}"))
            continue
        (sx, sy), (dx, dy) = _POSITIONS[source], _POSITIONS[dest]
        if sy == dy and abs(dx - sx) > _BOX_W * 1.5:
            # A long edge within one row would run through the boxes between; arc it over them.
            top = sy - _BOX_H // 2
            lines.append(
                f'<path class="{cls}" d="M{sx},{top} Q{(sx + dx) / 2:.0f},{top - 60} {dx},{top}" '
                f'marker-end="url(#{"arrow-taken" if count else "arrow"})"><title>{escape(trigger)}</title></path>'
            )
            if count:
                labels.append(_label((sx + dx) / 2, top - 26, f"{trigger} ×{count}"))
            continue
        (x1, y1), (x2, y2) = _clip(source, dest), _clip(dest, source)
        lines.append(
            f'<line class="{cls}" x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}" '
            f'marker-end="url(#{"arrow-taken" if count else "arrow"})"><title>{escape(trigger)}</title></line>'
        )
        if count:
            suffix = f" ×{count}" if count > 1 else ""
            labels.append(_label((x1 + x2) / 2, (y1 + y2) / 2 - 4, f"{trigger}{suffix}"))
    boxes: list[str] = []
    for state, (x, y) in _POSITIONS.items():
        classes = ["state"]
        if state in visited:
            classes.append("visited")
        if state == final:
            classes.append("final")
        if state in table.TERMINAL_STATES:
            classes.append("terminal")
        boxes.append(
            f'<g class="{" ".join(classes)}" data-state="{state}">'
            f'<rect x="{x - _BOX_W // 2}" y="{y - _BOX_H // 2}" width="{_BOX_W}" height="{_BOX_H}" rx="8"/>'
            f'<text x="{x}" y="{y + 4}" text-anchor="middle">{state}</text></g>'
        )
    defs = (
        "<defs>"
        '<marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#b8bec7"/></marker>'
        '<marker id="arrow-taken" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#1f7a3a"/></marker>'
        "</defs>"
    )
    return (
        f'<svg class="machine" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_WIDTH} {_HEIGHT}" '
        f'role="img" aria-label="state machine with the path taken">{defs}'
        + "".join(lines) + "".join(boxes) + "".join(labels) + "</svg>"
    )


def _label(x: float, y: float, text: str) -> str:
    return f'<text class="edge-label" x="{x:.0f}" y="{y:.0f}" text-anchor="middle">{escape(text)}</text>'


def _clip(source: str, dest: str) -> tuple[float, float]:
    """Where the straight line from ``source``'s centre towards ``dest`` leaves ``source``'s box."""
    (x1, y1), (x2, y2) = _POSITIONS[source], _POSITIONS[dest]
    dx, dy = x2 - x1, y2 - y1
    scales = [s for s in ((_BOX_W / 2) / abs(dx) if dx else None, (_BOX_H / 2) / abs(dy) if dy else None) if s]
    t = min(scales) if scales else 0.0
    return x1 + dx * t, y1 + dy * t
