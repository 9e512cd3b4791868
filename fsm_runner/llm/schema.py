"""Model answers as attrs classes: JSON text in, checked values out, with one corrective retry.

Every role asks through :func:`ask`: the answer is parsed, structured with the
project's converter and checked by the caller; a malformed or unusable answer
is sent back once with what was wrong, and a second failure raises
:class:`AnswerError` (a ``RoleError`` in the decision layer).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, TypeVar

import attrs
import cattrs

from fsm_runner.convert import converter
from fsm_runner.errors import DefinitionError, RoleError
from fsm_runner.events import emit
from fsm_runner.llm.client import LlmClient, LlmUnavailableError, Messages
from fsm_runner.llm.profiles import Profile
from fsm_runner.roles.base import Usage

T = TypeVar("T")
R = TypeVar("R")


@attrs.frozen
class ExpectAnswer:
    check: str
    target: str | None = None
    value: str | None = None
    negate: bool = False


@attrs.frozen
class StepAnswer:
    action: str
    target: str | None = None
    value: str | None = None
    intent: str = ""
    expect: tuple[ExpectAnswer, ...] = ()
    high_risk: bool = False


@attrs.frozen
class PlannerAnswer:
    """The planner's answer: one step, or done."""

    done: bool = False
    reason: str = ""
    step: StepAnswer | None = None


@attrs.frozen
class LocatorAnswer:
    """The locator's answer: an element id from the screen, or None for "not found"."""

    element_id: str | None = None
    reason: str = ""


@attrs.frozen
class Judgement:
    status: str
    reason: str = ""


@attrs.frozen
class ValidatorAnswer:
    """One judgement per prose statement, in the order they were asked."""

    verdicts: tuple[Judgement, ...] = ()


_NULLABLE_TEXT: dict[str, Any] = {"type": ["string", "null"]}

#: JSON schemas for servers that accept ``response_format: json_schema``.
SCHEMAS: dict[str, dict[str, Any]] = {
    "planner": {
        "type": "object",
        "properties": {
            "done": {"type": "boolean"},
            "reason": {"type": "string"},
            "step": {
                "type": ["object", "null"],
                "properties": {
                    "action": {"type": "string"},
                    "target": _NULLABLE_TEXT,
                    "value": _NULLABLE_TEXT,
                    "intent": {"type": "string"},
                    "high_risk": {"type": "boolean"},
                    "expect": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "check": {"type": "string"},
                                "target": _NULLABLE_TEXT,
                                "value": _NULLABLE_TEXT,
                                "negate": {"type": "boolean"},
                            },
                            "required": ["check"],
                        },
                    },
                },
                "required": ["action"],
            },
        },
        "required": ["done"],
    },
    "locator": {
        "type": "object",
        "properties": {"element_id": _NULLABLE_TEXT, "reason": {"type": "string"}},
        "required": ["element_id"],
    },
    "validator": {
        "type": "object",
        "properties": {
            "verdicts": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "status": {"type": "string", "enum": ["pass", "fail", "unknown"]},
                        "reason": {"type": "string"},
                    },
                    "required": ["status"],
                },
            }
        },
        "required": ["verdicts"],
    },
}


class AnswerError(RoleError):
    """The model's answers stayed unusable after the corrective retry; ``usage`` is what they cost."""

    def __init__(self, message: str, *, role: str, usage: Usage) -> None:
        super().__init__(message, role=role, layer="decision")
        self.usage = usage


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


def parse_answer(text: str, cls: type[T]) -> T:
    """Structure the JSON object in ``text`` (code fences tolerated) into ``cls``; ValueError says what is wrong."""
    stripped = _FENCE.sub("", text.strip())
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError as err:
        raise ValueError(f"the answer is not valid JSON ({err.msg} at character {err.pos})") from err
    if not isinstance(data, dict):
        raise ValueError(f"the answer must be one JSON object, not a {type(data).__name__}")
    try:
        return converter.structure(data, cls)
    except (cattrs.BaseValidationError, ValueError, TypeError) as err:
        problems = cattrs.transform_error(err) if isinstance(err, cattrs.BaseValidationError) else [str(err)]
        raise ValueError(f"the JSON does not have the expected shape: {'; '.join(problems)}") from err


async def ask(
    client: LlmClient,
    profile: Profile,
    messages: Messages,
    cls: type[T],
    check: Callable[[T], R],
    *,
    key: str,
    fingerprint: str = "",
) -> tuple[R, Usage]:
    """Ask, parse into ``cls`` and ``check`` (which raises ValueError or DefinitionError to reject).

    Returns the checked result and the usage of every request made.
    """
    usage = Usage()
    conversation = list(messages)
    problem = ""
    for attempt in (1, 2):
        try:
            reply = await client.chat(
                profile, conversation, key=key, fingerprint=fingerprint, schema=SCHEMAS.get(profile.role)
            )
        except LlmUnavailableError as err:
            err.usage = usage + err.usage
            raise
        usage = usage + reply.usage
        try:
            return check(parse_answer(reply.text, cls)), usage
        except (ValueError, DefinitionError) as err:
            problem = str(err)
        emit("llm.answer_rejected", ts=client.clock.now(), role=profile.role, key=key, attempt=attempt, problem=problem)
        conversation = [
            *conversation,
            {"role": "assistant", "content": reply.text},
            {"role": "user", "content": f"That answer cannot be used: {problem}. Answer again with ONE JSON object."},
        ]
    raise AnswerError(
        f"the {profile.role} model gave no usable answer after a corrective retry: {problem}",
        role=profile.role,
        usage=usage,
    )
