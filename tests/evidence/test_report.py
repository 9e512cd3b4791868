"""The report of a run: verdict and reason first, the failing step with its screenshot, the path taken."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from fsm_runner import RunResult
from fsm_runner.evidence import RunDirectory, load_run, render_report
from fsm_runner.roles import Secrets

RunPair = tuple[RunResult, RunDirectory]


class _Page(HTMLParser):
    """Collects elements by id and the text inside each, plus every image source and svg state class."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.text: dict[str, list[str]] = {}
        self.classes: dict[str, str] = {}
        self.images: dict[str, list[str]] = {}
        self.targets: dict[str, int] = {}
        self.states: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.stack.append(a["id"] or "")
            self.text[a["id"] or ""] = []
            self.classes[a["id"] or ""] = a.get("class") or ""
        elif tag in ("section", "header"):
            self.stack.append("")
        if tag == "img":
            for owner in self.stack:
                self.images.setdefault(owner, []).append(a.get("src") or "")
        if "target" in (a.get("class") or "").split():
            for owner in self.stack:
                self.targets[owner] = self.targets.get(owner, 0) + 1
        if tag == "g" and a.get("data-state"):
            self.states[a["data-state"] or ""] = a.get("class") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag in ("section", "header") and self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        for owner in self.stack:
            if owner:
                self.text[owner].append(data)

    def of(self, element_id: str) -> str:
        return " ".join(" ".join(self.text[element_id]).split())


def _parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


def test_failing_report_shows_the_verdict_and_reason_at_the_top(failing_run: RunPair) -> None:
    result, directory = failing_run
    html = (directory.path / "report.html").read_text(encoding="utf-8")
    page = _parse(html)
    header = page.of("verdict")
    assert header.startswith("FAILED — shop-login-empty")
    assert result.reason and " ".join(result.reason.split()) in header
    assert result.layer is not None and f"layer: {result.layer.value}" in header
    assert html.index('id="verdict"') < html.index('id="timeline-section"')


def test_failing_step_is_flagged_with_its_layer_screenshots_and_reason(failing_run: RunPair) -> None:
    result, directory = failing_run
    page = _parse((directory.path / "report.html").read_text(encoding="utf-8"))
    failing = result.steps[-1]
    assert failing.outcome == "failed"
    section = f"step-{failing.index + 1}"
    assert "failed" in page.classes[section].split()
    text = page.of(section)
    assert result.layer is not None and f"FAILED · layer: {result.layer.value}" in text
    assert " ".join(failing.verdict_reason.split()) in text
    assert "visible 'Products'" in text
    images = page.images[section]
    assert len(images) == 2 and all(src.startswith("data:image/jpeg;base64,") for src in images)
    assert page.targets.get(section) == 1, "the tapped button is outlined on the before screenshot"
    assert f'href="#{section}"' in (directory.path / "report.html").read_text(encoding="utf-8")


def test_passing_steps_are_not_flagged(passing_run: RunPair) -> None:
    result, directory = passing_run
    page = _parse((directory.path / "report.html").read_text(encoding="utf-8"))
    for record in result.steps:
        section = f"step-{record.index + 1}"
        assert "passed" in page.classes[section].split()
        assert "layer:" not in page.of(section)


def test_diagram_highlights_exactly_the_states_the_run_visited(failing_run: RunPair) -> None:
    result, directory = failing_run
    page = _parse((directory.path / "report.html").read_text(encoding="utf-8"))
    visited = {state for state, cls in page.states.items() if "visited" in cls.split()}
    assert visited == set(result.path)
    assert "final" in page.states["FAILED"].split()
    assert "visited" not in page.states["PASSED"].split()
    assert "stateDiagram-v2" in page.of("machine")


def test_report_loads_nothing_from_the_network(failing_run: RunPair) -> None:
    _, directory = failing_run
    html = (directory.path / "report.html").read_text(encoding="utf-8")
    assert not re.search(r"""(?:src|href)\s*=\s*["'](?:https?:)?//""", html)
    assert "<script" not in html


def test_render_redacts_a_secret_that_reached_the_records(failing_run: RunPair) -> None:
    _, directory = failing_run
    run = load_run(directory.path)
    html = render_report(run, secrets=Secrets({"APP": "Demo Shop"}, environ={}))
    assert "Demo Shop" not in html
    assert "${secret:APP}" in html


def test_each_step_lists_its_role_calls_with_latency(failing_run: RunPair) -> None:
    result, directory = failing_run
    html = (directory.path / "report.html").read_text(encoding="utf-8")
    failing = result.steps[-1]
    section = html[html.index(f'id="step-{failing.index + 1}"'):]
    start = section.index("role calls (")
    calls = section[start: section.index("</details>", start)]
    assert re.search(r"<tr><td>planner</td><td>scripted</td><td>next step</td><td>0</td><td></td><td>\d+</td></tr>",
                     calls)
    assert re.search(r"<tr><td>locator</td><td>rules</td><td>found \w+", calls)
    assert re.search(r"<tr><td>validator</td><td></td><td>not_yet: not yet: visible &#x27;Products&#x27;</td>", calls)
