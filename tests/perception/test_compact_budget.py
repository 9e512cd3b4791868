from __future__ import annotations

import statistics

import pytest

from fsm_runner.perception import page_summary, parse_dump, render
from fsm_runner.perception.tokens import count_tokens, tokens_available
from tests.perception.corpus import CORPUS_FILES


def test_every_visible_control_of_a_real_screen_has_its_line_in_the_planner_view(corpus_dump: bytes) -> None:
    screen = parse_dump(corpus_dump)
    planner = render(screen, "planner")
    lines = {line.split(" ", 1)[0] for line in planner.splitlines()}
    keys = " ".join(line for line in planner.splitlines() if line.startswith("keys: "))
    for e in screen.visible_elements():
        if e.interactive:
            assert e.element_id in lines or e.element_id in keys, e


@pytest.mark.skipif(not tokens_available(), reason="bpe-openai is not installed")
def test_the_planner_view_is_at_most_six_percent_of_the_raw_xml_tokens_on_the_median_real_screen() -> None:
    ratios = []
    for path in CORPUS_FILES:
        raw = path.read_bytes().decode("utf-8", errors="replace")
        screen = parse_dump(raw)
        compact = count_tokens(page_summary(screen) + "\n" + render(screen, "planner"))
        total = count_tokens(raw)
        assert compact is not None and total
        ratios.append(compact / total)
    assert statistics.median(ratios) <= 0.06
    assert max(ratios) <= 0.10
