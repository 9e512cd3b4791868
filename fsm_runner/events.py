"""Run events: one dict per event, dotted names, emitted through structlog.

The library only emits (``structlog.get_logger``) and binds ``run_id`` and
``step`` through ``structlog.contextvars``; it never configures structlog.
Entry points (the CLI, the pytest plugin) call :func:`configure` to write
each run's events as JSON lines to its own ``events.jsonl``.

Schema: every event has ``event`` (dotted name), ``schema`` (the version
below), ``run_id``, ``ts`` (the run clock) and ``step`` once a step exists;
the rest depends on the name and is documented in docs/events.md.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from pathlib import Path
from typing import Any, TextIO

import structlog

EVENT_SCHEMA_VERSION = 1

_logger = structlog.get_logger("fsm_runner")


def emit(event: str, **fields: Any) -> None:
    """Emit one event; ``fields`` must be JSON-serializable and hold no secret.

    The run's context (``run_id``, ``machine``, ``run_dir``) bound through
    ``structlog.contextvars`` is merged in here, so routing works whatever
    processors the entry point configured.
    """
    _logger.info(event, schema=EVENT_SCHEMA_VERSION, **{**structlog.contextvars.get_contextvars(), **fields})


def run_emitter(**context: Any) -> Callable[..., None]:
    """``emit`` for one run: the ``info`` of a logger bound once, at the start of the run, to its context.

    Resolving structlog's lazy proxy and merging the context on every event cost
    more than the event itself on the engine's hot path, so the configuration in
    force when the run starts is used for the whole run, and the schema version
    and the run's context (``run_id``, ``machine``, ``run_dir``) are bound here.
    """
    logger = structlog.get_logger("fsm_runner").bind(schema=EVENT_SCHEMA_VERSION, **context)
    info: Callable[..., None] = logger.info
    return info


class RunFiles:
    """A structlog processor that appends each event to the ``events.jsonl`` of its run.

    An event is routed by its ``run_dir`` key (bound by the engine through
    contextvars when the run has a directory) and the key is removed. Lines
    are flushed at once, so a run killed halfway leaves every event up to then.
    """

    def __init__(self) -> None:
        self._files: dict[str, TextIO] = {}
        self._lock = threading.Lock()
        #: Applied to each JSON line before it is written (the entry point sets ``Secrets.redact``).
        self.redact: Callable[[str], str] = _unchanged

    def __call__(self, _: Any, __: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
        run_dir = event_dict.pop("run_dir", None)
        if run_dir:
            line = self.redact(_ENCODER.encode(dict(event_dict)))
            with self._lock:
                handle = self._files.get(run_dir)
                if handle is None:
                    path = Path(run_dir) / "events.jsonl"
                    path.parent.mkdir(parents=True, exist_ok=True)
                    handle = self._files[run_dir] = path.open("a", encoding="utf-8")
                handle.write(line + "\n")
                handle.flush()
        return event_dict

    def close(self, run_dir: str | None = None) -> None:
        """Close one run's file, or all of them."""
        with self._lock:
            names = [run_dir] if run_dir else list(self._files)
            for name in names:
                handle = self._files.pop(name, None)
                if handle:
                    handle.close()


# One encoder, built once: no circular check (events are flat dicts) and compact separators keep
# the per-event cost low on the engine's hot path.
_ENCODER = json.JSONEncoder(ensure_ascii=False, check_circular=False, separators=(",", ":"), default=str)


def _unchanged(text: str) -> str:
    return text


RUN_FILES = RunFiles()


def _drop(_: Any, __: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    raise structlog.DropEvent


Listener = Callable[[Mapping[str, Any]], None]


class _Listeners:
    """A processor that shows each event (with its bound context) to listeners such as the progress line."""

    def __init__(self, listeners: Sequence[Listener]) -> None:
        self._listeners = tuple(listeners)

    def __call__(self, _: Any, __: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
        for listener in self._listeners:
            # A closed terminal or pipe must not stop the run that is being watched.
            with contextlib.suppress(OSError):
                listener(event_dict)
        return event_dict


def configure(
    *, echo: bool = False, listeners: Sequence[Listener] = (), redact: Callable[[str], str] | None = None
) -> None:
    """Configure structlog for an entry point: events go to their run's ``events.jsonl``.

    With ``echo`` they are also printed to stderr as JSON lines; ``listeners``
    see every event first (read-only); ``redact`` rewrites each line written to
    ``events.jsonl`` (pass ``Secrets().redact``). Called by the CLI and the
    pytest plugin, never by the library itself.
    """
    RUN_FILES.redact = redact or _unchanged
    # No merge_contextvars: every event already carries its run's context (see emit and run_emitter).
    processors: list[Any] = []
    if listeners:
        processors.append(_Listeners(listeners))
    processors.append(RUN_FILES)
    if echo:
        processors.append(structlog.processors.JSONRenderer())
    else:
        processors.append(_drop)
    structlog.configure(
        processors=processors,
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
