"""Where the LLM is (endpoint settings) and how each role asks it (per-role profiles)."""

from __future__ import annotations

import os
from collections.abc import Mapping

import attrs

from fsm_runner.errors import ConfigurationError
from fsm_runner.llm.prompts import system_prompt

#: Variables read for the endpoint, in order of preference (first set wins).
BASE_URL_VARS = ("FSM_RUNNER_LLM_BASE_URL", "OPENAI_BASE_URL")
API_KEY_VARS = ("FSM_RUNNER_LLM_API_KEY", "OPENAI_API_KEY")
MODEL_VARS = ("FSM_RUNNER_LLM_MODEL",)
ORGANIZATION_VARS = ("OPENAI_ORG_ID",)
DEFAULT_MODEL = "gpt-4o-mini"


def _first(environ: Mapping[str, str], names: tuple[str, ...]) -> str | None:
    for name in names:
        value = environ.get(name, "").strip()
        if value:
            return value
    return None


@attrs.frozen
class Endpoint:
    """An OpenAI-compatible endpoint: base URL, key, organization and the default model."""

    base_url: str
    api_key: str = attrs.field(repr=False)
    model: str = DEFAULT_MODEL
    organization: str | None = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, *, needed_by: str = "this run") -> Endpoint:
        """Read the endpoint from the environment; ConfigurationError naming the variables when unset.

        ``FSM_RUNNER_LLM_*`` wins over ``OPENAI_*``. A key alone (no base URL) means the
        hosted OpenAI endpoint; a base URL alone gets a placeholder key (local servers ignore it).
        """
        env = os.environ if environ is None else environ
        base_url = _first(env, BASE_URL_VARS)
        api_key = _first(env, API_KEY_VARS)
        if base_url is None and api_key is None:
            raise ConfigurationError(
                f"{needed_by} needs an LLM and none is configured: set {' or '.join(BASE_URL_VARS)} "
                f"and {' or '.join(API_KEY_VARS)} (optionally {MODEL_VARS[0]} and {ORGANIZATION_VARS[0]}), "
                "or pass --llm replay:FILE to replay recorded answers"
            )
        return cls(
            base_url=base_url or "https://api.openai.com/v1",
            api_key=api_key or "not-needed",
            model=_first(env, MODEL_VARS) or DEFAULT_MODEL,
            organization=_first(env, ORGANIZATION_VARS),
        )


@attrs.frozen
class Profile:
    """How one role calls the model. ``json_schema`` sends a strict response schema; ``vision`` adds the screenshot."""

    role: str
    model: str
    temperature: float = attrs.field(validator=[attrs.validators.ge(0.0), attrs.validators.le(2.0)])
    max_tokens: int = attrs.field(validator=attrs.validators.ge(1))
    timeout_s: float = attrs.field(validator=attrs.validators.gt(0.0))
    system_prompt: str = attrs.field(repr=False)
    json_schema: bool = False
    vision: bool = False


#: Temperature, answer size and timeout per role: the planner may vary a little, judges must not.
ROLE_DEFAULTS: Mapping[str, tuple[float, int, float]] = {
    "planner": (0.2, 400, 60.0),
    "locator": (0.0, 120, 30.0),
    "validator": (0.0, 200, 30.0),
    "healer": (0.3, 200, 30.0),
}


def default_profiles(
    model: str = DEFAULT_MODEL,
    *,
    platform: str = "android",
    json_schema: bool = False,
    vision: bool = False,
    timeout_s: float | None = None,
) -> dict[str, Profile]:
    """One profile per role with the role defaults; ``timeout_s`` overrides every role's timeout."""
    return {
        role: Profile(
            role=role,
            model=model,
            temperature=temperature,
            max_tokens=max_tokens,
            timeout_s=timeout_s if timeout_s is not None else timeout,
            system_prompt=system_prompt(role, platform),
            json_schema=json_schema,
            vision=vision and role in ("planner", "locator"),
        )
        for role, (temperature, max_tokens, timeout) in ROLE_DEFAULTS.items()
    }
