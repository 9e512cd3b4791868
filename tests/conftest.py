"""Suite-wide settings: events are dropped unless a test captures them."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

import structlog


def _drop(_: Any, __: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    raise structlog.DropEvent


structlog.configure(processors=[structlog.contextvars.merge_contextvars, _drop])
