"""The fast reader for uiautomator's own layout must read exactly what expat reads, or step aside."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fsm_runner.errors import PerceptionError
from fsm_runner.perception import parse_dump
from fsm_runner.perception.canonical_reader import NotCanonical, read_canonical
from fsm_runner.perception.dump_text import decode_dump, extract_xml
from tests.perception.corpus import CORPUS_FILES
from tests.perception.demo_shop_tour import tour
from tests.perception.dumps import N, hierarchy

CANONICAL_NODE = (
    '<node index="0" text={text} resource-id="" class="android.widget.TextView" package="com.example.shop" '
    'content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" '
    'focused="false" scrollable="false" long-clickable="false" password="false" selected="false" '
    'bounds="[0,100][1080,200]" />'
)


def dump_with(node: str) -> str:
    return (
        '<hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" '
        'package="com.example.shop" content-desc="" checkable="false" checked="false" clickable="false" '
        'enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" '
        f'password="false" selected="false" bounds="[0,0][1080,2400]">{node}</node></hierarchy>'
    )


def read_by_expat(xml: str | bytes) -> str:
    """The same dump with an attribute on ``<hierarchy>`` that uiautomator never writes: only expat takes it."""
    text = decode_dump(xml)
    return text.replace("<hierarchy ", '<hierarchy data-test="expat" ', 1)


def takes_fast_path(xml: str | bytes) -> bool:
    try:
        read_canonical(extract_xml(decode_dump(xml)))
    except NotCanonical:
        return False
    return True


REAL_DUMPS = [(p.name[:3], p.read_bytes()) for p in CORPUS_FILES] + list(tour())


@pytest.mark.parametrize(("name", "xml"), REAL_DUMPS, ids=[name for name, _ in REAL_DUMPS])
def test_every_real_dump_takes_the_fast_path_and_reads_as_expat_reads_it(name: str, xml: str | bytes) -> None:
    assert takes_fast_path(xml), name
    assert not takes_fast_path(read_by_expat(xml))
    assert parse_dump(xml) == parse_dump(read_by_expat(xml))


@pytest.mark.parametrize(
    ("quoted", "expected"),
    [
        ('"Salt &amp; pepper"', "Salt & pepper"),
        ('"two&#10;lines"', "two\nlines"),
        ('"tab&#9;and &#x41;"', "tab\tand A"),
        ('"&lt;b&gt; &quot;bold&quot; &apos;x&apos;"', "<b> \"bold\" 'x'"),
    ],
)
def test_entities_and_character_references_are_decoded_as_xml_defines_them(quoted: str, expected: str) -> None:
    xml = dump_with(CANONICAL_NODE.format(text=quoted))
    assert takes_fast_path(xml)
    assert [e.text for e in parse_dump(xml).elements] == [expected]
    assert parse_dump(xml) == parse_dump(read_by_expat(xml))


@pytest.mark.parametrize(
    "variant",
    [
        pytest.param(CANONICAL_NODE.format(text="'single quoted'"), id="single-quotes"),
        pytest.param(CANONICAL_NODE.format(text='"a\tb\nc\r\nd"'), id="literal-whitespace-in-value"),
        pytest.param(
            CANONICAL_NODE.format(text='"x"').replace('checkable="false" checked', 'checked="false" checkable'),
            id="attribute-order",
        ),
        pytest.param("<!-- a comment -->" + CANONICAL_NODE.format(text='"x"'), id="comment"),
        pytest.param("stray text" + CANONICAL_NODE.format(text='"x"'), id="text-between-tags"),
        pytest.param(CANONICAL_NODE.format(text='"x"').replace("/>", 'display-id="0" />'), id="unknown-attribute"),
    ],
)
def test_dumps_outside_uiautomator_layout_are_left_to_expat_and_read_the_same(variant: str) -> None:
    xml = dump_with(variant)
    assert not takes_fast_path(xml)
    screen = parse_dump(xml)
    assert len(screen.elements) == 1
    assert screen == parse_dump(read_by_expat(xml))


@pytest.mark.parametrize(
    "broken",
    [
        pytest.param(CANONICAL_NODE.format(text='"fish &chips"'), id="bare-ampersand"),
        pytest.param(CANONICAL_NODE.format(text='"&nbsp;"'), id="html-entity"),
        pytest.param(CANONICAL_NODE.format(text='"&#0;"'), id="forbidden-character-reference"),
        pytest.param(CANONICAL_NODE.format(text='"x"') + "</node>", id="unbalanced-close"),
        pytest.param(CANONICAL_NODE.format(text='"x"').replace(" />", ">"), id="unclosed-node"),
    ],
)
def test_malformed_dumps_in_uiautomator_layout_still_fail_with_expats_message(broken: str) -> None:
    xml = dump_with(broken)
    assert not takes_fast_path(xml)
    with pytest.raises(PerceptionError, match="not well-formed XML"):
        parse_dump(xml)


free_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20)


@st.composite
def trees(draw: st.DrawFn, depth: int = 2) -> N:
    kids = draw(st.lists(trees(depth - 1), max_size=3)) if depth else []
    x1, y1 = draw(st.integers(-20, 1000)), draw(st.integers(-20, 2000))
    return N(
        draw(st.sampled_from(["android.widget.TextView", "android.widget.Button", "android.view.View"])),
        (x1, y1, x1 + draw(st.integers(-5, 1080)), y1 + draw(st.integers(-5, 400))),
        tuple(kids),
        text=draw(free_text),
        desc=draw(free_text),
        clickable=draw(st.booleans()),
        checked=draw(st.booleans()),
    )


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(trees(), min_size=1, max_size=3))
def test_the_fast_path_and_expat_agree_on_any_hierarchy(roots: list[N]) -> None:
    xml = hierarchy(*roots)
    assert parse_dump(xml) == parse_dump(read_by_expat(xml))


def test_flags_spelled_otherwise_read_as_uiautomator_means_them() -> None:
    # Only "false" turns enabled off; only "true" turns the other flags on (a missing flag is off).
    odd = CANONICAL_NODE.format(text='"x"').replace(' enabled="true"', "").replace('clickable="true"', 'clickable="1"')
    element = parse_dump(dump_with(odd)).elements[0]
    assert not takes_fast_path(dump_with(odd))
    assert element.enabled
    assert not element.clickable
    off = CANONICAL_NODE.format(text='"x"').replace('enabled="true"', 'enabled="false"')
    assert not parse_dump(dump_with(off)).elements[0].enabled
    assert parse_dump(dump_with(off)) == parse_dump(read_by_expat(dump_with(off)))
