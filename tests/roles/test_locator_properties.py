"""Properties of the locator on real screens: it never raises, never offers hidden elements, never exceeds K."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fsm_runner.perception import parse_dump
from fsm_runner.roles.locator import RuleLocator
from fsm_runner.roles.target import parse_target

DATA = Path(__file__).parent / "data"
SCREENS = [parse_dump((DATA / name).read_bytes()) for name in ("demo_en_login_keyboard.xml", "demo_zh-CN_cart.xml")]
WORDS = [
    "the",
    "second",
    "last",
    "Delete",
    "删除",
    "按钮",
    "第二个",
    "in the row with",
    "next to",
    "switch",
    "checked",
    "Log in",
    "field",
    "'",
    '"',
    "#2",
    "那一行的",
    "below",
    "+",
    "ｌｏｇ",
    "icon",
    "台灯",
]

descriptions = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from(WORDS), max_size=7).map(" ".join),
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(description=descriptions, which=st.integers(0, len(SCREENS) - 1), k=st.integers(1, 4))
def test_any_description_gives_at_most_k_visible_candidates_scored_between_0_and_1(
    description: str, which: int, k: int
) -> None:
    screen = SCREENS[which]
    location = RuleLocator(top_k=k).find(description, screen)
    assert len(location.candidates) <= k
    assert location.found or location.reason
    for candidate in location.candidates:
        element = screen.element(candidate.element_id)
        assert element is not None and element.visible and not element.occluded
        assert 0.0 < candidate.score <= 1.0


@given(description=descriptions)
def test_parsing_never_fails_and_keeps_the_original_text(description: str) -> None:
    target = parse_target(description)
    assert target.text == description
    assert target.ordinal is None or target.ordinal == -1 or target.ordinal >= 0
