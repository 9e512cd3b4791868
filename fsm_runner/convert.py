"""The one cattrs converter for everything fsm-runner writes to disk or reads back."""

from __future__ import annotations

import json
from typing import Any, TypeVar

from cattrs.preconf.json import JsonConverter, make_converter

T = TypeVar("T")

converter: JsonConverter = make_converter()


def dumps(value: Any) -> str:
    """Serialize an attrs value (or a structure of them) as indented JSON."""
    return json.dumps(converter.unstructure(value), ensure_ascii=False, indent=2)


def loads(text: str | bytes, cls: type[T]) -> T:
    """Read back a value written by :func:`dumps`."""
    return converter.structure(json.loads(text), cls)


def unstructure(value: Any) -> Any:
    return converter.unstructure(value)


def structure(data: Any, cls: type[T]) -> T:
    return converter.structure(data, cls)
