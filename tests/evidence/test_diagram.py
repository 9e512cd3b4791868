"""The inline SVG state graph: every transition of the table drawn, the path taken highlighted."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

from fsm_runner import table
from fsm_runner.evidence.diagram import edges, state_svg

SVG = "{http://www.w3.org/2000/svg}"


def _title(element: ET.Element) -> str:
    title = element.find(f"{SVG}title")
    return title.text or "" if title is not None else ""


def test_every_transition_of_the_table_is_drawn_once() -> None:
    root = ET.fromstring(state_svg([]))
    drawn = [_title(e) for e in root if e.tag in (f"{SVG}line", f"{SVG}path")]
    assert sorted(drawn) == sorted(trigger for _, _, trigger in edges())
    assert len(edges()) == sum(1 if isinstance(s, str) else len(s) for _, s, _ in table.TRANSITIONS)
    assert {g.get("data-state") for g in root.iter(f"{SVG}g")} == set(table.STATES)


def test_taken_edges_are_exactly_the_consecutive_pairs_of_the_path() -> None:
    path = ["IDLE", "INIT", "OBSERVE", "PLAN", "EXECUTE", "VERIFY", "VERIFY", "HEAL", "OBSERVE", "PLAN",
            "EXECUTE", "VERIFY", "NEXT_OR_END", "PASSED"]
    root = ET.fromstring(state_svg(path))
    by_trigger = {(s, d): t for s, d, t in edges()}
    taken = {_title(e) for e in root if "taken" in (e.get("class") or "").split()}
    assert taken == {by_trigger[pair] for pair in itertools.pairwise(path)}
    labels = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "edge-label"]
    assert "planned ×2" in labels and "recheck ×1" in labels
    finals = [g.get("data-state") for g in root.iter(f"{SVG}g") if "final" in (g.get("class") or "").split()]
    assert finals == ["PASSED"]
