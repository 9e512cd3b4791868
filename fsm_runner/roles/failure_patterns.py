"""Learned fixes: a JSON-lines file mapping a known failure to the heal decision that worked.

A failure is keyed by its cause, the words of the page summary (digits
dropped, so a clock or counter does not change the key) and the target of the
failing step. A later record for the same key replaces the earlier one. The
file is append-only; a torn last line (a crash mid-write) is skipped.
"""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import cattrs.preconf.json

from fsm_runner.roles.base import HealAction, Layer
from fsm_runner.roles.lexicon import words
from fsm_runner.steps import Action, Step


@attrs.frozen
class Remedy:
    """The remedy step of a learned fix, reduced to what a remedy needs."""

    action: Action = attrs.field(converter=Action)
    target: str | None = None
    value: str | None = None

    def to_step(self) -> Step:
        return Step(self.action, target=self.target, value=self.value, intent=f"remedy: {self.action.value}")

    @classmethod
    def of(cls, step: Step) -> Remedy:
        return cls(step.action, step.target, step.value)


@attrs.frozen
class FailurePattern:
    """One learned fix: the key of a failure and the decision that healed it, with how often it did."""

    cause: str
    page: str
    target: str
    action: HealAction = attrs.field(converter=HealAction)
    layer: Layer = attrs.field(converter=Layer)
    remedy: Remedy | None = None
    successes: int = 1


_CONVERTER = cattrs.preconf.json.make_converter()


def page_key(page_summary: str) -> str:
    """The page part of a key: summary words without digits, in order, lower-case."""
    return " ".join(w for w in words(page_summary) if not any(c.isdigit() for c in w))


class FailurePatterns:
    """The failure-pattern file at ``path`` (created on first record); lookups are in memory."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._patterns: dict[tuple[str, str, str], FailurePattern] = {}
        if self.path.is_file():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                pattern = _parse(line)
                if pattern is not None:
                    self._patterns[(pattern.cause, pattern.page, pattern.target)] = pattern

    def __len__(self) -> int:
        return len(self._patterns)

    def lookup(self, cause: str, page_summary: str, target: str | None) -> FailurePattern | None:
        """The fix that worked last time for this failure on this page, or None."""
        return self._patterns.get((cause, page_key(page_summary), target or ""))

    def record_success(
        self,
        cause: str,
        page_summary: str,
        target: str | None,
        action: HealAction,
        layer: Layer,
        remedy: Step | None = None,
    ) -> FailurePattern:
        """Remember that ``action`` (with ``remedy``) healed this failure; appends one line to the file."""
        key = (cause, page_key(page_summary), target or "")
        known = self._patterns.get(key)
        same = known is not None and known.action is action and known.remedy == (remedy and Remedy.of(remedy))
        pattern = FailurePattern(
            cause=key[0],
            page=key[1],
            target=key[2],
            action=action,
            layer=layer,
            remedy=Remedy.of(remedy) if remedy else None,
            successes=(known.successes + 1) if known is not None and same else 1,
        )
        self._patterns[key] = pattern
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(_CONVERTER.unstructure(pattern), ensure_ascii=False, sort_keys=True) + "\n")
        return pattern


def _parse(line: str) -> FailurePattern | None:
    if not line.strip():
        return None
    try:
        return _CONVERTER.structure(json.loads(line), FailurePattern)
    except (ValueError, TypeError, cattrs.BaseValidationError):
        return None
