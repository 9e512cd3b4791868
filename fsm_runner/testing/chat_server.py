"""A scripted OpenAI-compatible chat server on loopback, so tests run the real ``openai`` client over HTTP.

It answers ``POST /v1/chat/completions`` (and ``GET /v1/models``) from a
script: a list of replies served in order, or a function of the request. It
records every request and the usage it reported, and misbehaves on demand:
an answer that is not JSON, an element that is not on the screen, 429 with
``Retry-After``, 500, or a hang longer than the client's timeout.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import attrs

from fsm_runner.llm.client import FINGERPRINT_HEADER, KEY_HEADER, ROLE_HEADER
from fsm_runner.llm.replay import ReplayFile
from fsm_runner.llm.tokens import count_message_tokens, count_tokens, load_encoding


@attrs.frozen
class Reply:
    """What the server does for one request: answer ``content`` (HTTP 200), or fail with ``status``.

    ``delay_s`` holds the answer back (longer than the client's timeout makes it a hang).
    """

    content: str = ""
    status: int = 200
    retry_after: float | None = None
    delay_s: float = 0.0

    @classmethod
    def answer(cls, value: Any) -> Reply:
        """An answer whose content is ``value`` (a dict or list is sent as its JSON text)."""
        return cls(content=value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))

    @classmethod
    def malformed(cls) -> Reply:
        return cls(content='Sure! Here is the next step: {"action": "tap", "target": "the button"')

    @classmethod
    def hallucinated(cls, element_id: str = "ezzzzzz") -> Reply:
        """A locator answer naming an element id that is on no screen."""
        return cls.answer({"element_id": element_id, "reason": "it looks like the one"})

    @classmethod
    def rate_limited(cls, retry_after: float = 1.0) -> Reply:
        return cls(status=429, retry_after=retry_after)

    @classmethod
    def server_error(cls) -> Reply:
        return cls(status=500)

    @classmethod
    def hang(cls, seconds: float) -> Reply:
        return cls(content="{}", delay_s=seconds)


@attrs.frozen
class RecordedRequest:
    """One request as received: role, key and fingerprint headers, and the JSON body."""

    role: str
    key: str
    fingerprint: str
    body: dict[str, Any]
    status: int = 200
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    @property
    def text(self) -> str:
        """Every text part of every message, joined: what the model was shown."""
        out: list[str] = []
        for message in self.messages:
            content = message.get("content", "")
            if isinstance(content, str):
                out.append(content)
            else:
                out.extend(str(p.get("text", "")) for p in content or () if p.get("type") == "text")
        return "\n".join(out)


Script = Sequence["Reply | str | dict[str, Any]"] | Callable[[RecordedRequest], "Reply | str | dict[str, Any]"]


def _as_reply(value: Reply | str | dict[str, Any]) -> Reply:
    return value if isinstance(value, Reply) else Reply.answer(value)


class ChatServer:
    """The scripted server. Use as a context manager, or ``start()`` / ``stop()``.

    A list script that runs out answers 500 with "script exhausted", so a test
    that needed more answers than it wrote fails loudly.
    """

    def __init__(self, script: Script, *, model: str = "scripted-model") -> None:
        self.model = model
        self.requests: list[RecordedRequest] = []
        self._script = script
        self._cursor = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the chat server is not started")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @property
    def answered(self) -> list[RecordedRequest]:
        """Requests that got a 200 answer (what a model would have been paid for)."""
        return [r for r in self.requests if r.status == 200]

    def start(self) -> str:
        """Listen on 127.0.0.1 (a free port) in a background thread; returns the base URL."""
        server = self
        load_encoding()

        class Handler(_Handler):
            owner = server

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="chat-server", daemon=True)
        self._thread.start()
        return self.base_url

    def stop(self) -> None:
        """Release hanging requests, stop listening and join the thread."""
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ChatServer:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def _next(self, request: RecordedRequest) -> Reply:
        if callable(self._script):
            return _as_reply(self._script(request))
        with self._lock:
            if self._cursor >= len(self._script):
                return Reply(status=500, content="script exhausted")
            value = self._script[self._cursor]
            self._cursor += 1
        return _as_reply(value)

    def _serve(self, headers: dict[str, str], body: dict[str, Any]) -> tuple[RecordedRequest, Reply]:
        request = RecordedRequest(
            role=headers.get(ROLE_HEADER.lower(), ""),
            key=headers.get(KEY_HEADER.lower(), ""),
            fingerprint=headers.get(FINGERPRINT_HEADER.lower(), ""),
            body=body,
        )
        reply = self._next(request)
        recorded = attrs.evolve(
            request,
            status=reply.status,
            prompt_tokens=count_message_tokens(request.messages) if reply.status == 200 else 0,
            completion_tokens=count_tokens(reply.content) if reply.status == 200 else 0,
        )
        with self._lock:
            self.requests.append(recorded)
        return recorded, reply


class _Handler(BaseHTTPRequestHandler):
    owner: ChatServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            model = {"id": self.owner.model, "object": "model", "owned_by": "test"}
            self._json(200, {"object": "list", "data": [model]})
        else:
            self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            self._json(400, {"error": {"message": "request body is not JSON", "type": "invalid_request_error"}})
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        recorded, reply = self.owner._serve(headers, body)
        if reply.delay_s > 0 and self.owner._stopping.wait(reply.delay_s):
            return
        if reply.status != 200:
            extra = {"Retry-After": f"{reply.retry_after:g}"} if reply.retry_after is not None else {}
            message = reply.content or f"scripted failure {reply.status}"
            self._json(reply.status, {"error": {"message": message, "type": "scripted"}}, extra)
            return
        self._json(
            200,
            {
                "id": f"chatcmpl-{len(self.owner.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", self.owner.model),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": reply.content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": recorded.prompt_tokens,
                    "completion_tokens": recorded.completion_tokens,
                    "total_tokens": recorded.prompt_tokens + recorded.completion_tokens,
                },
            },
        )

    def _json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (its timeout): nothing to answer.
            return


def replay_script(replay: ReplayFile) -> Callable[[RecordedRequest], Reply]:
    """Answer each request from ``replay``; a request nothing was recorded for gets 422 saying so."""

    def answer(request: RecordedRequest) -> Reply:
        text = replay.answer(request.role, request.key, request.fingerprint)
        if text is None:
            return Reply(
                status=422,
                content=f"no recorded {request.role} answer for key {request.key!r} (screen {request.fingerprint})",
            )
        return Reply.answer(text)

    return answer


def start_replay_server(path: str | Path) -> tuple[str, Callable[[], None]]:
    """Serve the answers of replay file ``path`` on loopback; returns the base URL and a stop function."""
    server = ChatServer(replay_script(ReplayFile.load(path)), model="replay")
    return server.start(), server.stop
