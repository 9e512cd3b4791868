"""Fixtures for the LLM layer: the scripted chat server on loopback and clients pointed at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fsm_runner.clock import Clock, FakeClock
from fsm_runner.llm.client import LlmClient, RetryPolicy
from fsm_runner.llm.profiles import Endpoint, Profile, default_profiles
from fsm_runner.testing import ChatServer


def client_for(server: ChatServer, clock: Clock | None = None, **kwargs: object) -> LlmClient:
    """A real openai-backed client talking to ``server`` over loopback HTTP."""
    return LlmClient(
        Endpoint(server.base_url, "test-key", "scripted-model"),
        clock=clock or FakeClock(),
        retry=kwargs.pop("retry", RetryPolicy(max_attempts=3, max_wait_s=30.0)),  # type: ignore[arg-type]
        **kwargs,  # type: ignore[arg-type]
    )


def profiles(timeout_s: float = 5.0, **kwargs: bool) -> dict[str, Profile]:
    return default_profiles("scripted-model", timeout_s=timeout_s, **kwargs)


@pytest.fixture
def server() -> Iterator[ChatServer]:
    """An empty-scripted server; tests replace its script before use."""
    with ChatServer([]) as running:
        yield running
