"""Masking of text that changes while the screen stays the same: clocks, dates, counters, prices."""

from __future__ import annotations

import functools
import re

_NUMBER = re.compile(r"\d+(?:[.,:/\u00a0 ]\d+)*")
_CALENDAR_WORDS = re.compile(
    r"\b(?:am|pm|jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|"
    r"july|august|september|october|november|december|mon|tue|wed|thu|fri|sat|sun|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday|today|yesterday|tomorrow)\b\.?",
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=4096)
def mask_volatile(text: str) -> str:
    """``text`` with every number run replaced by ``#`` and calendar words by ``@``.

    Two texts that differ only by a clock, a date, a counter, a percentage or
    a price mask to the same string; texts that differ by a word do not.
    """
    if not text:
        return text
    masked = _NUMBER.sub("#", text)
    return _CALENDAR_WORDS.sub("@", masked)
