"""The client over the real openai library against the scripted loopback server."""

from __future__ import annotations

import asyncio

import pytest

from fsm_runner.clock import FakeClock
from fsm_runner.errors import ConfigurationError
from fsm_runner.llm.client import LlmUnavailableError, RetryPolicy
from fsm_runner.llm.profiles import Endpoint
from fsm_runner.llm.schema import AnswerError, LocatorAnswer, ask
from fsm_runner.testing import ChatServer, Reply
from tests.llm.conftest import client_for, profiles

USER = [{"role": "user", "content": "hello"}]


def test_answer_carries_usage_and_role_headers() -> None:
    async def scenario() -> None:
        with ChatServer([{"element_id": "e123456"}]) as server:
            client = client_for(server)
            reply = await client.chat(profiles()["locator"], USER, key="the Log in button", fingerprint="f00d")
            await client.close()
        assert reply.text == '{"element_id": "e123456"}'
        assert reply.usage.calls == 1
        recorded = server.requests[0]
        assert (recorded.role, recorded.key, recorded.fingerprint) == ("locator", "the Log in button", "f00d")
        assert reply.usage.prompt_tokens == recorded.prompt_tokens > 0
        assert reply.usage.completion_tokens == recorded.completion_tokens > 0
        assert recorded.messages[0]["role"] == "system"
        assert recorded.body["temperature"] == 0.0

    asyncio.run(scenario())


def test_rate_limit_waits_the_retry_after_on_the_injected_clock() -> None:
    async def scenario() -> None:
        clock = FakeClock()
        with ChatServer([Reply.rate_limited(7), Reply.server_error(), {"ok": True}]) as server:
            client = client_for(server, clock, retry=RetryPolicy(max_attempts=3, max_wait_s=30, backoff_s=0.5))
            reply = await client.chat(profiles()["planner"], USER, key="step 0")
            await client.close()
        assert [r.status for r in server.requests] == [429, 500, 200]
        assert reply.usage.calls == 3 and reply.attempts == 3
        assert clock.now() == pytest.approx(7 + 0.5 * 2)

    asyncio.run(scenario())


def test_retries_stop_at_the_attempt_budget_with_an_environment_error() -> None:
    async def scenario() -> None:
        with ChatServer([Reply.server_error()] * 5) as server:
            client = client_for(server, retry=RetryPolicy(max_attempts=2, max_wait_s=30))
            with pytest.raises(LlmUnavailableError) as caught:
                await client.chat(profiles()["planner"], USER, key="step 0")
            await client.close()
        assert len(server.requests) == 2
        assert caught.value.layer == "environment" and caught.value.role == "planner"
        assert caught.value.status == 500 and caught.value.attempts == 2

    asyncio.run(scenario())


def test_a_retry_after_beyond_the_wait_budget_is_not_waited_for() -> None:
    async def scenario() -> None:
        clock = FakeClock()
        with ChatServer([Reply.rate_limited(600), {"ok": True}]) as server:
            client = client_for(server, clock, retry=RetryPolicy(max_attempts=3, max_wait_s=30))
            with pytest.raises(LlmUnavailableError, match="retry budget"):
                await client.chat(profiles()["planner"], USER, key="step 0")
            await client.close()
        assert len(server.requests) == 1 and clock.now() == 0

    asyncio.run(scenario())


def test_client_errors_are_not_retried() -> None:
    async def scenario() -> None:
        with ChatServer([Reply(status=422, content="no recorded answer"), {"ok": True}]) as server:
            client = client_for(server)
            with pytest.raises(LlmUnavailableError, match="422"):
                await client.chat(profiles()["planner"], USER, key="step 0")
            await client.close()
        assert len(server.requests) == 1

    asyncio.run(scenario())


def test_a_hang_longer_than_the_timeout_is_abandoned_and_retried() -> None:
    async def scenario() -> None:
        with ChatServer([Reply.hang(30), {"ok": True}]) as server:
            client = client_for(server)
            # 2 s: far below the 30 s hang, far above a loaded machine's answer time for the second call.
            reply = await client.chat(profiles(timeout_s=2.0)["planner"], USER, key="step 0")
            await client.close()
        assert reply.text == '{"ok": true}' and reply.usage.calls == 2

    asyncio.run(scenario())


def test_malformed_answer_gets_one_corrective_retry_naming_the_problem() -> None:
    async def scenario() -> None:
        with ChatServer([Reply.malformed(), {"element_id": None, "reason": "no such thing"}]) as server:
            client = client_for(server)
            answer, usage = await ask(client, profiles()["locator"], USER, LocatorAnswer, lambda a: a, key="x")
            await client.close()
        assert answer == LocatorAnswer(None, "no such thing")
        assert usage.calls == 2
        correction = server.requests[1].messages[-1]["content"]
        assert "not valid JSON" in correction

    asyncio.run(scenario())


def test_two_unusable_answers_raise_a_decision_layer_role_error() -> None:
    async def scenario() -> None:
        with ChatServer([Reply.malformed(), Reply.answer([{"element_id": "e1"}])]) as server:
            client = client_for(server)
            with pytest.raises(AnswerError) as caught:
                await ask(client, profiles()["locator"], USER, LocatorAnswer, lambda a: a, key="x")
            await client.close()
        assert caught.value.layer == "decision" and caught.value.role == "locator"
        assert caught.value.usage.calls == 2

    asyncio.run(scenario())


def test_json_schema_response_format_is_sent_only_when_the_profile_supports_it() -> None:
    async def scenario() -> None:
        with ChatServer([{"element_id": None}, {"element_id": None}]) as server:
            client = client_for(server)
            for chosen in (profiles(json_schema=True), profiles()):
                await ask(client, chosen["locator"], USER, LocatorAnswer, lambda a: a, key="x")
            await client.close()
        first, second = (r.body["response_format"] for r in server.requests)
        assert first["type"] == "json_schema" and first["json_schema"]["schema"]["required"] == ["element_id"]
        assert second == {"type": "json_object"}

    asyncio.run(scenario())


def test_redaction_runs_over_every_message_before_it_is_sent() -> None:
    async def scenario() -> None:
        with ChatServer([{"ok": True}]) as server:
            client = client_for(server, redact=lambda text: text.replace("secret123", "${secret:DEMO_SHOP_PASSWORD}"))
            await client.chat(profiles()["planner"], [{"role": "user", "content": "typed secret123"}], key="k")
            await client.close()
        assert "secret123" not in server.requests[0].text
        assert "${secret:DEMO_SHOP_PASSWORD}" in server.requests[0].text

    asyncio.run(scenario())


def test_models_endpoint_lists_the_scripted_model() -> None:
    async def scenario() -> None:
        with ChatServer([]) as server:
            client = client_for(server)
            listed = await client._openai.models.list()
            await client.close()
        assert [m.id for m in listed.data] == ["scripted-model"]

    asyncio.run(scenario())


def test_no_endpoint_configured_is_refused_with_the_variable_names() -> None:
    with pytest.raises(ConfigurationError) as caught:
        Endpoint.from_env({}, needed_by="machine 'cart'")
    message = str(caught.value)
    for name in ("FSM_RUNNER_LLM_BASE_URL", "OPENAI_BASE_URL", "FSM_RUNNER_LLM_API_KEY", "OPENAI_API_KEY"):
        assert name in message
    assert "machine 'cart'" in message


def test_project_variables_win_over_openai_ones() -> None:
    endpoint = Endpoint.from_env(
        {
            "FSM_RUNNER_LLM_BASE_URL": "http://127.0.0.1:9/v1",
            "OPENAI_BASE_URL": "http://127.0.0.1:8/v1",
            "OPENAI_API_KEY": "k",
            "FSM_RUNNER_LLM_MODEL": "local-model",
            "OPENAI_ORG_ID": "org-1",
        }
    )
    assert endpoint == Endpoint("http://127.0.0.1:9/v1", "k", "local-model", "org-1")
    assert "k" not in repr(endpoint).replace("local", "")


def test_role_errors_carry_the_usage_of_every_request_made() -> None:
    async def scenario() -> None:
        with ChatServer([Reply.malformed(), Reply.server_error(), Reply.server_error()]) as server:
            client = client_for(server, retry=RetryPolicy(max_attempts=2, max_wait_s=30))
            with pytest.raises(LlmUnavailableError) as caught:
                await ask(client, profiles()["locator"], USER, LocatorAnswer, lambda a: a, key="x")
            await client.close()
        assert caught.value.usage.calls == 3 == len(server.requests)
        assert caught.value.usage.prompt_tokens == server.requests[0].prompt_tokens

    asyncio.run(scenario())


def test_token_counts_are_o200k_counts() -> None:
    from fsm_runner.llm.tokens import count_message_tokens, count_tokens, exact_counts

    pytest.importorskip("bpe_openai", reason="o200k counts need the bench extra (bpe-openai)")
    assert exact_counts()
    assert count_tokens("hello world") == 2 and count_tokens("") == 0
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    with_image = [{"role": "user", "content": [{"type": "text", "text": "hello world"}, image]}]
    assert count_message_tokens(with_image) == count_message_tokens([{"role": "user", "content": "hello world"}]) + 85
