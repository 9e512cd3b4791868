"""Token counts with the o200k encoding (``bpe_openai``), for usage on the scripted server and for benchmarks.

``bpe_openai`` ships in the ``bench`` extra; without it counts are an
estimate (one token per four characters), enough for a replay server's usage.
"""

from __future__ import annotations

import functools
import importlib
import warnings
from typing import Any

ENCODING_NAME = "o200k_base"


@functools.cache
def load_encoding() -> Any:
    """The o200k encoding, loaded once (call it early to pay the load up front); None without ``bpe_openai``."""
    # Loading the tables takes a while, so only processes that count tokens pay for it; the package
    # reads its data through a deprecated importlib call that must not fail a warnings-as-errors run.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            return importlib.import_module("bpe_openai").get_encoding(ENCODING_NAME)
        except ImportError:
            return None


def exact_counts() -> bool:
    """Whether counts are exact o200k counts (``bpe_openai`` is installed) rather than estimates."""
    return load_encoding() is not None


def count_tokens(text: str) -> int:
    """The number of o200k tokens in ``text``; special-token strings count as plain text."""
    if not text:
        return 0
    encoding = load_encoding()
    if encoding is None:
        return max(1, len(text) // 4)
    return len(encoding.encode_ordinary(text))


def count_message_tokens(messages: list[dict[str, Any]]) -> int:
    """Prompt tokens of a chat request: each message's text plus a small fixed framing cost.

    Image parts count a flat 85 tokens (the low-detail price) since their pixels are not text.
    """
    total = 3
    for message in messages:
        total += 4 + count_tokens(str(message.get("role", "")))
        content = message.get("content", "")
        if isinstance(content, str):
            total += count_tokens(content)
            continue
        for part in content or ():
            if part.get("type") == "text":
                total += count_tokens(str(part.get("text", "")))
            elif part.get("type") == "image_url":
                total += 85
    return total
