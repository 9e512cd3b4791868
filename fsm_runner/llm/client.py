"""The LLM client: one chat call over ``openai.AsyncOpenAI`` with our own retry policy.

Retries happen here only (openai's are off): 429 and 5xx answers, timeouts and
dropped connections are retried within a :class:`RetryPolicy`, honouring
``Retry-After``, waiting on the injectable clock. What cannot be answered
raises :class:`LlmUnavailableError`, a ``RoleError`` blamed on the environment.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs
import openai

from fsm_runner.clock import Clock, SystemClock
from fsm_runner.errors import RoleError
from fsm_runner.events import emit
from fsm_runner.llm.profiles import Endpoint, Profile
from fsm_runner.roles.base import Usage

#: Request headers naming the role and the decision key, so a replay server can answer without parsing prompts.
ROLE_HEADER = "X-Fsm-Role"
KEY_HEADER = "X-Fsm-Key"
FINGERPRINT_HEADER = "X-Fsm-Fingerprint"

Messages = list[dict[str, Any]]


class LlmUnavailableError(RoleError):
    """The endpoint gave no usable response within the retry policy; ``attempts`` and ``status`` say how.

    ``usage`` counts the requests made, so a caller can charge them to the run.
    """

    def __init__(self, message: str, *, role: str, attempts: int, status: int | None = None) -> None:
        super().__init__(message, role=role, layer="environment")
        self.attempts = attempts
        self.status = status
        self.usage = Usage(calls=attempts)


@attrs.frozen
class RetryPolicy:
    """At most ``max_attempts`` requests per call, and at most ``max_wait_s`` spent waiting between them."""

    max_attempts: int = attrs.field(default=3, validator=attrs.validators.ge(1))
    max_wait_s: float = attrs.field(default=30.0, validator=attrs.validators.ge(0.0))
    backoff_s: float = attrs.field(default=0.5, validator=attrs.validators.ge(0.0))


@attrs.frozen
class ChatReply:
    """The text of one answer and what it cost (every request made counts as a call)."""

    text: str
    usage: Usage
    attempts: int = 1


def retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds a ``Retry-After`` / ``retry-after-ms`` header asks for, or None."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return float(millis) / 1000.0
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value:
        try:
            return max(0.0, float(value))
        except ValueError:
            return None
    return None


class LlmClient:
    """Chat completions against one endpoint.

    ``redact`` runs over every text part before it leaves the process (secret
    values back to their placeholders); ``record_to`` appends each answer to a
    replay file (JSON lines) so the run can be replayed offline; ``prompt_log``
    appends each request as sent (JSON lines), for review.
    """

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        clock: Clock | None = None,
        retry: RetryPolicy | None = None,
        redact: Callable[[str], str] | None = None,
        record_to: str | Path | None = None,
        prompt_log: str | Path | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.clock: Clock = clock or SystemClock()
        self.retry = retry or RetryPolicy()
        self._redact = redact
        self._record_to = Path(record_to) if record_to is not None else None
        self._prompt_log = Path(prompt_log) if prompt_log is not None else None
        self._openai = openai.AsyncOpenAI(
            base_url=endpoint.base_url,
            api_key=endpoint.api_key,
            organization=endpoint.organization,
            max_retries=0,
        )

    async def close(self) -> None:
        await self._openai.close()

    async def chat(
        self,
        profile: Profile,
        messages: Messages,
        *,
        key: str,
        fingerprint: str = "",
        schema: dict[str, Any] | None = None,
    ) -> ChatReply:
        """One answer for ``messages`` (the system prompt is prepended from the profile)."""
        sent = [{"role": "system", "content": profile.system_prompt}, *(self._redacted(m) for m in messages)]
        extra: dict[str, Any] = {}
        if schema is not None and profile.json_schema:
            extra["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": f"{profile.role}_answer", "schema": schema, "strict": False},
            }
        elif schema is not None:
            extra["response_format"] = {"type": "json_object"}
        headers = {ROLE_HEADER: profile.role, KEY_HEADER: _header_safe(key), FINGERPRINT_HEADER: fingerprint}
        self._append(self._prompt_log, {"role": profile.role, "key": key, "fingerprint": fingerprint, "messages": sent})
        usage = Usage()
        waited = 0.0
        last = ""
        status: int | None = None
        for attempt in range(1, self.retry.max_attempts + 1):
            usage = usage + Usage(calls=1)
            delay: float | None = None
            try:
                response = await self._openai.chat.completions.create(
                    model=profile.model,
                    messages=sent,  # type: ignore[arg-type]
                    temperature=profile.temperature,
                    max_tokens=profile.max_tokens,
                    timeout=profile.timeout_s,
                    extra_headers=headers,
                    **extra,
                )
            except openai.APIStatusError as err:
                status = err.status_code
                last = f"HTTP {status}: {_short(err.message)}"
                if status != 429 and status < 500:
                    break
                delay = retry_after(err.response.headers)
            except openai.APITimeoutError:
                status = None
                last = f"no answer within {profile.timeout_s:g} s"
            except openai.APIConnectionError as err:
                status = None
                last = f"connection failed: {_short(str(err))}"
            else:
                text = response.choices[0].message.content or "" if response.choices else ""
                if response.usage is not None:
                    usage = usage + Usage(
                        prompt_tokens=response.usage.prompt_tokens, completion_tokens=response.usage.completion_tokens
                    )
                emit(
                    "llm.call",
                    ts=self.clock.now(),
                    role=profile.role,
                    model=profile.model,
                    key=key,
                    attempts=attempt,
                    prompt_tokens=usage.prompt_tokens,
                    completion_tokens=usage.completion_tokens,
                )
                self._append(self._record_to, {"role": profile.role, "key": key, "fingerprint": fingerprint,
                                               "answer": text})
                return ChatReply(text=text, usage=usage, attempts=attempt)
            emit("llm.retry", ts=self.clock.now(), role=profile.role, key=key, attempt=attempt, error=last)
            if attempt == self.retry.max_attempts:
                break
            wait = delay if delay is not None else self.retry.backoff_s * 2 ** (attempt - 1)
            if waited + wait > self.retry.max_wait_s:
                last += f"; the next wait ({wait:g} s) would exceed the retry budget of {self.retry.max_wait_s:g} s"
                break
            waited += wait
            await self.clock.sleep(wait)
        raise LlmUnavailableError(
            f"the {profile.role} model at {self.endpoint.base_url} gave no usable response after "
            f"{usage.calls} request(s): {last}",
            role=profile.role,
            attempts=usage.calls,
            status=status,
        )

    def _redacted(self, message: dict[str, Any]) -> dict[str, Any]:
        if self._redact is None:
            return message
        content = message.get("content")
        if isinstance(content, str):
            return {**message, "content": self._redact(content)}
        if isinstance(content, list):
            parts = [
                {**part, "text": self._redact(part["text"])} if part.get("type") == "text" else part for part in content
            ]
            return {**message, "content": parts}
        return message

    @staticmethod
    def _append(path: Path | None, line: dict[str, Any]) -> None:
        if path is None:
            return
        with path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")


def _header_safe(text: str) -> str:
    """Header values must be printable latin-1 on one line: other keys travel as JSON escapes."""
    return text if text.isascii() and text.isprintable() else json.dumps(text)[1:-1]


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
