from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsm_runner.errors import PerceptionError
from fsm_runner.perception import VIEWS, parse_dump, render
from tests.perception.corpus import corpus
from tests.perception.shop_screens import cart


def labels(xml: str | bytes) -> list[str]:
    return [e.label for e in parse_dump(xml).elements]


def test_junk_before_and_the_dumped_to_trailer_after_are_ignored() -> None:
    clean = cart()
    noisy = "WARNING: linker: unused DT entry\r\n" + clean + "\nUI hierchary dumped to: /dev/tty\n"
    assert labels(noisy) == labels(clean)


def test_pretty_printed_dumps_with_cr_cr_lf_line_ends_read_like_single_line_ones() -> None:
    clean = cart()
    pretty = clean.replace("><", ">\r\r\n  <")
    assert labels(pretty) == labels(clean)
    assert labels(pretty.encode()) == labels(clean)


def test_bytes_that_are_not_utf8_do_not_break_the_parse() -> None:
    raw = cart(note="caf\u00e9").encode().replace("caf\u00e9".encode(), b"caf\xe9")
    screen = parse_dump(raw)
    assert any(e.text.startswith("caf") for e in screen.elements)


def test_control_characters_inside_text_attributes_are_dropped() -> None:
    screen = parse_dump(cart(note="line\x01two\x0b"))
    assert any(e.text == "linetwo" for e in screen.elements)


def test_attributes_beyond_the_classic_seventeen_are_accepted() -> None:
    screen = parse_dump(corpus("012"))
    assert screen.raw_node_count == corpus("012").count(b"<node")


@pytest.mark.parametrize(
    ("output", "says"),
    [
        ("", "empty"),
        ("   \r\n", "empty"),
        ("ERROR: could not get idle state.\n", "error"),
        ("Killed\n", "no <hierarchy>"),
        ('<?xml version=\'1.0\' ?><hierarchy rotation="0"><node index="0" text="a"', "truncated"),
        ('<hierarchy rotation="0"></hierarchy>', "no nodes"),
        ('<hierarchy rotation="0" />', "no nodes"),
        ('<hierarchy><node bounds="[0,0][1,1]"><node></hierarchy>', "not well-formed"),
    ],
)
def test_unusable_output_raises_a_perception_error_quoting_its_start(output: str, says: str) -> None:
    with pytest.raises(PerceptionError) as caught:
        parse_dump(output)
    assert says in str(caught.value)
    assert caught.value.head == output.strip()[:80]


def test_a_real_dump_cut_anywhere_before_its_end_raises_a_perception_error() -> None:
    raw = corpus("050")
    end = raw.rindex(b"</hierarchy>")
    for cut in range(0, end, max(1, end // 97)):
        with pytest.raises(PerceptionError):
            parse_dump(raw[:cut])


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_only_ever_raise_perception_error(data: bytes) -> None:
    try:
        screen = parse_dump(data)
    except PerceptionError:
        return
    for view in VIEWS:
        render(screen, view)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="<>/=\"' hierarchynodebounds[],0123456789\r\n&;#x", max_size=300))
def test_xml_like_garbage_only_ever_raises_perception_error(text: str) -> None:
    try:
        screen = parse_dump("<hierarchy>" + text)
    except PerceptionError as err:
        assert err.head.startswith("<hierarchy>")
        return
    assert screen.raw_node_count >= 1
