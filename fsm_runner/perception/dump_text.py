"""Cutting the XML out of raw ``uiautomator dump`` output (junk, ERROR lines, trailers, bad bytes)."""

from __future__ import annotations

import re

from fsm_runner.errors import PerceptionError

_HEAD_CHARS = 80
#: Characters XML 1.0 forbids; devices do emit them inside text attributes.
_ILLEGAL_XML_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_START = re.compile(r"<hierarchy\b|<node\b")


def dump_head(text: str) -> str:
    """The first characters of a dump, as error messages quote them."""
    return text[:_HEAD_CHARS]


def decode_dump(data: str | bytes) -> str:
    """The dump as text; undecodable bytes become U+FFFD rather than failing."""
    if isinstance(data, bytes):
        return data.decode("utf-8", errors="replace")
    return data


def extract_xml(text: str) -> str:
    """The ``<hierarchy>`` document inside ``text``, without junk before or trailers after.

    Raises PerceptionError when the output is empty, an ``ERROR:`` report, or
    holds no complete hierarchy (truncated).
    """
    stripped = text.strip()
    if not stripped:
        raise PerceptionError("the hierarchy dump is empty; retry the dump")
    start = _START.search(stripped)
    if start is None:
        if "ERROR" in stripped[:400]:
            raise PerceptionError("uiautomator reported an error instead of a hierarchy", head=dump_head(stripped))
        raise PerceptionError("no <hierarchy> in the dump output", head=dump_head(stripped))
    body = stripped[start.start() :]
    if body.startswith("<hierarchy"):
        end = body.rfind("</hierarchy>")
        if end >= 0:
            body = body[: end + len("</hierarchy>")]
        else:
            closed = re.match(r"<hierarchy\b[^>]*/>", body)
            if closed is None:
                raise PerceptionError("the hierarchy dump is truncated (no </hierarchy>)", head=dump_head(stripped))
            body = closed.group(0)
    else:
        end = body.rfind(">")
        body = body[: end + 1]
    return body


def without_illegal_chars(xml_text: str) -> str:
    """``xml_text`` without the control characters XML 1.0 forbids (devices write them in text attributes)."""
    return _ILLEGAL_XML_CHARS.sub("", xml_text)
