"""Prompt-token counts with the o200k encoding, when the optional ``bpe-openai`` package is installed."""

from __future__ import annotations

import functools
import importlib
import warnings
from typing import Any

ENCODING_NAME = "o200k_base"


@functools.cache
def _encoding() -> Any:
    with warnings.catch_warnings():
        # bpe-openai 0.1.4 loads its tables with the deprecated importlib.resources.open_binary.
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            module = importlib.import_module("bpe_openai")
        except ImportError:
            return None
        return module.get_encoding(ENCODING_NAME)


def tokens_available() -> bool:
    """Whether token counts can be measured here (``bpe-openai`` importable)."""
    return _encoding() is not None


def count_tokens(text: str) -> int | None:
    """The number of o200k tokens in ``text`` (special-token strings count as plain text), or None."""
    encoding = _encoding()
    if encoding is None:
        return None
    return len(encoding.encode_ordinary(text))
