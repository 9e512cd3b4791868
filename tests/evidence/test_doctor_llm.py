"""``fsm-runner doctor`` against an LLM endpoint on loopback: reachable, key refused, or not there."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from fsm_runner.cli import EXIT_ENVIRONMENT, EXIT_OK, main


class _Models(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        ok = self.path == "/v1/models" and self.headers.get("Authorization") == "Bearer good-key"
        body = b'{"object": "list", "data": []}' if ok else b'{"error": "no"}'
        self.send_response(200 if ok else 401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Models)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _config(folder: Path, base_url: str) -> Path:
    path = folder / "fsm-runner.toml"
    path.write_text(
        f'[llm]\nprofile = "p"\n[llm.profiles.p]\nbase_url = "{base_url}"\nmodel = "m"\napi_key_env = "DOC_KEY"\n'
        f'[cache]\npath = "{folder}/c/d.sqlite"\n',
        encoding="utf-8",
    )
    return path


def _doctor(config: Path) -> list[str]:
    return ["doctor", "--config", str(config), "--adb-server", "127.0.0.1:1", "--timeout", "5"]


def test_a_reachable_endpoint_with_a_good_key_is_ok(
    endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DOC_KEY", "good-key")
    assert main(_doctor(_config(tmp_path, endpoint))) == EXIT_OK
    assert f"ok    llm: {endpoint} answered HTTP 200" in capsys.readouterr().out


def test_a_refused_key_names_the_variable_to_set(
    endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DOC_KEY", "bad-key")
    assert main(_doctor(_config(tmp_path, endpoint))) == EXIT_ENVIRONMENT
    assert f"FAIL  llm: {endpoint} refused the key (HTTP 401); set DOC_KEY" in capsys.readouterr().out


def test_an_endpoint_that_is_not_there_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_doctor(_config(tmp_path, "http://127.0.0.1:1/v1"))) == EXIT_ENVIRONMENT
    assert "FAIL  llm: http://127.0.0.1:1/v1 is not reachable" in capsys.readouterr().out
