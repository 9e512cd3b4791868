"""The shell language: quoting, lists, ``$?``, redirections and pipes, as mksh does them."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.sim import SimPhone
from adapters.sim.shell import AndOrList, Literal, Parameter, ShellSyntaxError, Word, parse, tokenize
from tests.adbkit import ManualClock
from tests.sim_shell.conftest import Session


def words(line: str) -> list[str]:
    return ["".join(p.text if isinstance(p, Literal) else "$" + p.name for p in t.parts)
            if isinstance(t, Word) else f"<{t}>" for t in tokenize(line)]


@pytest.mark.parametrize(("line", "expected"), [
    ("echo 'a b'  c", ["echo", "a b", "c"]),
    ('echo "a  b" c\\ d', ["echo", "a  b", "c d"]),
    ("echo 'it'\\''s'", ["echo", "it's"]),
    ('echo "q\\"uote" "back\\\\slash" "keep\\n"', ["echo", 'q"uote', "back\\slash", "keep\\n"]),
    ("echo ''", ["echo", ""]),
    ("a;b&&c||d", ["a", "<;>", "b", "<&&>", "c", "<||>", "d"]),
    ("cmd >/dev/null 2>&1", ["cmd", "<>>", "/dev/null", "<2>&>", "1"]),
    ("echo a#b # comment", ["echo", "a#b"]),
])
def test_tokens_follow_mksh_quoting(line: str, expected: list[str]) -> None:
    assert words(line) == expected


def test_status_is_expanded_in_plain_and_double_quotes_but_not_single() -> None:
    tokens = tokenize("echo $? \"$?\" '$?'")
    assert isinstance(tokens[1], Word) and tokens[1].parts == (Parameter("?"),)
    assert isinstance(tokens[2], Word) and Parameter("?") in tokens[2].parts
    assert tokens[3] == Word((Literal("$?"),))


@pytest.mark.parametrize("line", ["echo 'open", 'echo "open', "; echo", "echo a && ", "echo a ;; b", "| x", "cat >"])
def test_broken_lines_are_syntax_errors(line: str) -> None:
    with pytest.raises(ShellSyntaxError):
        parse(line)


def test_a_syntax_error_prints_like_mksh_and_exits_1(session: Session) -> None:
    ran = session.run("echo 'unterminated")
    assert (ran.code, ran.err) == (1, "/system/bin/sh: no closing quote\n")


def test_and_or_lists_follow_the_last_status(session: Session) -> None:
    assert session.run("true && echo yes || echo no").out == "yes\n"
    assert session.run("false && echo yes || echo no").out == "no\n"
    assert session.run("false || false && echo never").out == ""
    assert session.run("false; echo after").out == "after\n"


def test_status_carries_between_commands_and_lines(session: Session) -> None:
    assert session.run("false; echo $?; echo $?").out == "1\n0\n"
    session.run("missing-tool")
    assert session.run("echo $?").out == "127\n"
    assert session.run("exit 3; echo unreachable").code == 3


def test_exit_status_of_a_line_is_its_last_command(session: Session) -> None:
    assert session.run("echo x; false").code == 1
    assert session.run("false; true").code == 0


def test_redirections_route_stdout_and_stderr(session: Session) -> None:
    silent = session.run("echo hidden >/dev/null; nope 2>/dev/null")
    merged = session.run("nope 2>&1")
    swapped = session.run("nope 2>&1 >/dev/null")
    assert (silent.stdout, silent.stderr, silent.code) == (b"", b"", 127)
    assert (merged.out, merged.stderr) == ("/system/bin/sh: nope: not found\n", b"")
    assert (swapped.out, swapped.stderr) == ("/system/bin/sh: nope: not found\n", b"")


def test_file_redirections_write_append_and_read(session: Session) -> None:
    session.run("echo one > /sdcard/log.txt; echo two >> /sdcard/log.txt")
    assert session.fs.read("/sdcard/log.txt") == b"one\ntwo\n"
    assert session.run("cat < /sdcard/log.txt").out == "one\ntwo\n"
    assert session.run("echo three > /sdcard/log.txt && cat /sdcard/log.txt").out == "three\n"


def test_pipes_feed_stdout_to_the_next_command(session: Session) -> None:
    assert session.run("echo alpha; echo beta | grep bet").out == "alpha\nbeta\n"
    assert session.run("getprop | grep -q ro.build.version.sdk && echo found").out == "found\n"
    assert session.run("echo abc | grep zzz").code == 1


def test_unknown_commands_answer_like_android(session: Session) -> None:
    ran = session.run("frobnicate --now")
    path = session.run("/data/local/tmp/tool")
    assert (ran.code, ran.out, ran.err) == (127, "", "/system/bin/sh: frobnicate: not found\n")
    assert (path.code, path.err) == (127, "/system/bin/sh: /data/local/tmp/tool: inaccessible or not found\n")


def test_echo_options(session: Session) -> None:
    assert session.run("echo -n a; echo b").out == "ab\n"
    assert session.run("echo -e 'x\\ty'").out == "x\ty\n"
    assert session.run("echo 'x\\ty'").out == "x\\ty\n"


def test_an_empty_unquoted_expansion_is_no_argument_but_quoted_it_is(session: Session) -> None:
    assert session.run("echo $UNSET x").out == "x\n"
    assert session.run('echo "$UNSET" x').out == " x\n"


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), max_size=40))
def test_any_text_quoted_for_a_posix_shell_echoes_back_unchanged(text: str) -> None:
    session = Session(SimPhone(), ManualClock())
    ran = session.run(f"echo -n {shlex.quote(text)}; echo -n {shlex.quote(text)} >/dev/null")
    assert (ran.code, ran.stdout.decode()) == (0, text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab $?'\"\\;&|<>12#\n\t", max_size=30))
def test_parsing_any_line_either_succeeds_or_is_a_syntax_error(line: str) -> None:
    try:
        program = parse(line)
    except ShellSyntaxError:
        return
    assert all(isinstance(item, AndOrList) and item.first.commands for item in program)
