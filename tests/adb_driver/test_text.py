import base64
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.adb.text import (
    ime_broadcast_command,
    input_text_command,
    shell_single_quote,
    typeable_by_input_text,
)

SHELL_SYNTAX = set(";&|$`'\"\\<>()*?[]{}#~!\n\t ")


def test_printable_ascii_goes_through_input_text() -> None:
    assert typeable_by_input_text("alice secret123 !?#")


def test_unicode_newlines_and_literal_percent_s_need_the_ime() -> None:
    assert not typeable_by_input_text("你好")
    assert not typeable_by_input_text("emoji 🎉")
    assert not typeable_by_input_text("two\nlines")
    assert not typeable_by_input_text("100%sure")


def test_spaces_become_percent_s_inside_one_quoted_word() -> None:
    assert input_text_command("a b") == "input text 'a%sb'"


def test_single_quote_is_closed_escaped_and_reopened() -> None:
    assert shell_single_quote("it's") == "'it'\\''s'"


def _sh_echo(word: str) -> str:
    # The host's POSIX sh stands in for mksh: both treat single quotes identically.
    done = subprocess.run(["sh", "-c", "printf '%s' " + word], capture_output=True, check=True)
    return done.stdout.decode("utf-8")


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=30))
def test_quoted_ascii_reaches_the_command_as_one_literal_word(text: str) -> None:
    assert _sh_echo(shell_single_quote(text)) == text


def test_command_substitution_in_quoted_text_runs_nothing(tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    payloads = [f"$(touch {canary})", f"`touch {canary}`", f"x; touch {canary}", f"'; touch {canary}; '"]
    for payload in payloads:
        assert _sh_echo(shell_single_quote(payload)) == payload
    assert not canary.exists()
    assert os.listdir(tmp_path) == []


@given(st.text(max_size=40))
def test_ime_broadcast_carries_any_text_as_shell_inert_base64(text: str) -> None:
    command = ime_broadcast_command(text)
    prefix = "am broadcast -a ADB_INPUT_B64 --es msg "
    assert command.startswith(prefix)
    payload = command[len(prefix) :]
    assert not set(payload) & SHELL_SYNTAX
    assert base64.b64decode(payload).decode("utf-8") == text


def test_input_text_command_refuses_text_it_cannot_type() -> None:
    with pytest.raises(ValueError, match="你好"):
        input_text_command("你好")
