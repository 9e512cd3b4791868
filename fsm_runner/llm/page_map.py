"""The page map: pages with their key elements and the transitions between them, as YAML for the planner.

Hand-written, or recorded from earlier runs: :func:`record_page_map` reads
run directories (``events.jsonl`` for the order of dumps and actions,
``screens/NNNN.xml`` for what each dump showed) and keeps, per page, the
controls seen and which step led to which page.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs
import yaml

from fsm_runner.errors import ConfigurationError, PerceptionError
from fsm_runner.perception import parse_dump
from fsm_runner.perception.screen import Screen, WindowKind

#: Controls kept per page: enough to recognise it and name what leads on, few enough to stay cheap.
MAX_ELEMENTS = 8
_CONTROL_ROLES = frozenset({"button", "field", "switch", "checkbox", "radio", "tab"})
_APP_WINDOWS = frozenset({WindowKind.APP, WindowKind.DIALOG})


@attrs.frozen
class Transition:
    """A step seen to lead from one page to another."""

    step: str
    to: str


@attrs.frozen
class Page:
    name: str
    elements: tuple[str, ...] = ()
    transitions: tuple[Transition, ...] = ()


@attrs.frozen
class PageMap:
    pages: tuple[Page, ...] = ()

    def to_yaml(self) -> str:
        """Compact YAML: ``pages: {name: {elements: [...], leads_to: {step: page}}}``."""
        data: dict[str, Any] = {}
        for page in self.pages:
            entry: dict[str, Any] = {"elements": list(page.elements)}
            if page.transitions:
                entry["leads_to"] = {t.step: t.to for t in page.transitions}
            data[page.name] = entry
        return yaml.safe_dump({"pages": data}, allow_unicode=True, sort_keys=False, width=120)


def page_name(screen: Screen) -> str:
    """What a page is called: its title, its activity's short name, its first heading text, or its package."""
    if screen.title:
        return screen.title
    if screen.activity:
        return screen.activity.rsplit(".", 1)[-1]
    kinds = {w.index: w.kind for w in screen.windows}
    for element in screen.elements:
        if kinds.get(element.window) is WindowKind.APP and element.role == "text" and element.label and element.visible:
            return element.label
    return screen.package or "unknown"


def key_elements(screen: Screen) -> list[str]:
    """Labels of the visible controls of the app (and its dialogs), top to bottom, at most MAX_ELEMENTS."""
    kinds = {w.index: w.kind for w in screen.windows}
    seen: list[str] = []
    for element in screen.elements:
        if kinds.get(element.window) not in _APP_WINDOWS or not element.visible or element.occluded:
            continue
        if element.role not in _CONTROL_ROLES or not element.label or element.label in seen:
            continue
        seen.append(element.label)
        if len(seen) == MAX_ELEMENTS:
            break
    return seen


class _Builder:
    def __init__(self) -> None:
        self.elements: dict[str, list[str]] = {}
        self.transitions: dict[str, dict[str, str]] = {}

    def see(self, screen: Screen) -> str:
        name = page_name(screen)
        known = self.elements.setdefault(name, [])
        for label in key_elements(screen):
            if label not in known and len(known) < MAX_ELEMENTS:
                known.append(label)
        return name

    def lead(self, page: str, step: str, to: str) -> None:
        if page != to:
            self.transitions.setdefault(page, {})[step] = to

    def build(self) -> PageMap:
        return PageMap(
            tuple(
                Page(name, tuple(elements), tuple(Transition(s, t) for s, t in self.transitions.get(name, {}).items()))
                for name, elements in self.elements.items()
            )
        )


def record_page_map(run_dirs: Iterable[str | Path]) -> PageMap:
    """The page map seen in ``run_dirs``; ConfigurationError names a directory that is not a run directory."""
    builder = _Builder()
    for run_dir in run_dirs:
        _read_run(Path(run_dir), builder)
    return builder.build()


def _read_run(run_dir: Path, builder: _Builder) -> None:
    events_path = run_dir / "events.jsonl"
    if not events_path.is_file():
        raise ConfigurationError(f"{run_dir} is not a run directory: it has no events.jsonl")
    pages: dict[int, str] = {}
    current: str | None = None
    #: The step under way: its intent, the page it started on, and whether its action went through.
    started: tuple[str, str | None] | None = None
    acted = False
    for line in events_path.read_text(encoding="utf-8").splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            # A run killed mid-line leaves a partial last line; what came before still counts.
            continue
        name = event.get("event")
        if name == "device.dump":
            index = int(event.get("observation", 0))
            page = pages.get(index) or _page_of(run_dir, index, builder)
            if page is not None:
                pages[index] = current = page
        elif name == "step.start":
            _close(builder, started, acted, current)
            started, acted = (str(event.get("intent", "")), current), False
        elif name == "device.action" and event.get("status") == "ok" and not event.get("remedy"):
            acted = True
    _close(builder, started, acted, current)


def _close(builder: _Builder, started: tuple[str, str | None] | None, acted: bool, now: str | None) -> None:
    """A step whose action went through led from the page it started on to the page shown now."""
    if started is not None and acted and started[1] is not None and now is not None:
        builder.lead(started[1], started[0], now)


def _page_of(run_dir: Path, index: int, builder: _Builder) -> str | None:
    path = run_dir / "screens" / f"{index:04d}.xml"
    try:
        screen = parse_dump(path.read_text(encoding="utf-8"))
    except (OSError, PerceptionError):
        return None
    return builder.see(screen)


def load_page_map(path: str | Path) -> str:
    """A hand-written or recorded page map file, checked to be YAML with a ``pages`` mapping."""
    where = Path(path)
    try:
        text = where.read_text(encoding="utf-8")
        data = yaml.safe_load(text)
    except (OSError, yaml.YAMLError) as err:
        raise ConfigurationError(f"cannot read the page map {where}: {err}") from err
    if not isinstance(data, dict) or not isinstance(data.get("pages"), dict):
        raise ConfigurationError(f"page map {where} needs a top-level 'pages:' mapping of page name to details")
    return text
