"""The device shell of the simulated phone: an mksh-like interpreter over the phone API.

It parses what adb clients send (``;``, ``&&``, ``||``, ``|``, ``$?``, quoting and backslash
escapes as mksh does, ``>file``, ``>>file``, ``2>&1``, ``>/dev/null``) and runs the handful of
Android commands a UI-test driver uses (``input``, ``uiautomator``, ``screencap``, ``am``,
``pm``, ``dumpsys``, ``settings``, ``getprop``, ...) against a :class:`ShellPhone`. Nothing here
ever runs anything on the host: every command is a Python function over the phone and the
in-memory :class:`~adapters.sim.sync.DeviceFilesystem`.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import io
import re
import struct
import zlib
from collections.abc import Awaitable, Callable
from typing import Protocol

import attrs

from adapters.errors import AckLostError, DeviceOfflineError
from adapters.sim.sync import DeviceFilesystem

SH = "/system/bin/sh"
DUMP_DEFAULT_PATH = "/sdcard/window_dump.xml"
LATIN_IME = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"
ADB_IME = "com.android.adbkeyboard/.AdbIME"
_ADB_IME_PACKAGE = "com.android.adbkeyboard"
_SYSTEM_PREFIXES = ("android", "com.android.", "com.google.android.")


class DumpResult(Protocol):
    """What one ``uiautomator dump`` attempt produced: XML, or ``None`` and the text the tool prints."""

    @property
    def xml(self) -> str | None: ...

    @property
    def error(self) -> str: ...


class ShellPhone(Protocol):
    """The part of ``SimPhone``'s API the shell and the daemon use (see the sim-model contract)."""

    @property
    def serial(self) -> str: ...

    @property
    def online(self) -> bool: ...

    def ui_dump(self, compressed: bool = False) -> DumpResult: ...

    def screencap_png(self) -> bytes: ...

    def tap(self, x: int, y: int) -> None: ...

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None: ...

    def input_text(self, text: str) -> None: ...

    def ime_commit_text(self, text: str) -> None: ...

    def keyevent(self, code: int) -> None: ...

    def start_activity(self, package: str, activity: str | None = None,
                       data_uri: str | None = None) -> None: ...

    def force_stop(self, package: str) -> None: ...

    def packages(self) -> dict[str, str]: ...

    def current_focus(self) -> tuple[str, str]: ...

    def settings_get(self, namespace: str, key: str) -> str | None: ...

    def settings_put(self, namespace: str, key: str, value: str) -> None: ...

    def getprop(self, key: str | None = None) -> dict[str, str] | str: ...

    def window_size(self) -> tuple[int, int]: ...

    def rotation(self) -> int: ...

    def screen_on(self) -> bool: ...

    def locked(self) -> bool: ...


class ShellSyntaxError(ValueError):
    """The command line does not parse; the shell prints ``/system/bin/sh: <message>`` and exits 1."""


@attrs.frozen
class Literal:
    """Text that reaches the command as-is (quoting already removed)."""

    text: str


@attrs.frozen
class Parameter:
    """A ``$name`` expansion; ``?`` is the last exit status, unknown names expand to nothing."""

    name: str


Part = Literal | Parameter


@attrs.frozen
class Word:
    """One argument before expansion: literal pieces and parameter expansions, concatenated."""

    parts: tuple[Part, ...]


@attrs.frozen
class Redirect:
    """``fd>target``, ``fd>>target``, ``fd<target`` or ``fd>&other_fd``."""

    fd: int
    op: str
    target: Word | int


@attrs.frozen
class SimpleCommand:
    """A command's words (the first names it) and its redirections, in the order written."""

    words: tuple[Word, ...]
    redirects: tuple[Redirect, ...]


@attrs.frozen
class Pipeline:
    """Commands joined by ``|``; its status is the last command's."""

    commands: tuple[SimpleCommand, ...]


@attrs.frozen
class AndOrList:
    """``first`` then each ``(operator, pipeline)`` where operator is ``&&`` or ``||``."""

    first: Pipeline
    rest: tuple[tuple[str, Pipeline], ...]


_REDIRECT = re.compile(r"(\d?)(>>|>&|>|<)")
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def tokenize(line: str) -> list[Word | str]:
    """Split a command line into words and operator strings (``;``, ``&&``, ``||``, ``|``, redirections)."""
    tokens: list[Word | str] = []
    parts: list[Part] = []
    in_word = False
    i, n = 0, len(line)

    def flush() -> None:
        nonlocal parts, in_word
        if in_word:
            tokens.append(Word(tuple(parts)))
        parts, in_word = [], False

    while i < n:
        c = line[i]
        if c in " \t":
            flush()
            i += 1
        elif c == "#" and not in_word:
            end = line.find("\n", i)
            i = n if end < 0 else end
        elif c in ";|&\n":
            flush()
            two = line[i:i + 2]
            if two == ";;":
                raise ShellSyntaxError("syntax error: ';;' unexpected")
            op = two if two in ("&&", "||") else c
            tokens.append(op)
            i += len(op)
        elif c in "<>" or (c.isdigit() and not in_word and i + 1 < n and line[i + 1] in "<>"):
            flush()
            match = _REDIRECT.match(line, i)
            if match is None:
                raise ShellSyntaxError(f"syntax error: {c!r} unexpected")
            tokens.append(match.group(0))
            i = match.end()
        elif c == "'":
            end = line.find("'", i + 1)
            if end < 0:
                raise ShellSyntaxError("no closing quote")
            parts.append(Literal(line[i + 1:end]))
            in_word = True
            i = end + 1
        elif c == '"':
            i = _double_quoted(line, i + 1, parts)
            in_word = True
        elif c == "\\":
            if line.startswith("\\\n", i):
                i += 2
                continue
            parts.append(Literal(line[i + 1:i + 2] or "\\"))
            in_word = True
            i += 2
        elif c == "$":
            i = _parameter(line, i, parts)
            in_word = True
        else:
            parts.append(Literal(c))
            in_word = True
            i += 1
    flush()
    return tokens


def _double_quoted(line: str, i: int, parts: list[Part]) -> int:
    """Consume a double-quoted string starting after its quote; return the index after the closing quote."""
    parts.append(Literal(""))
    while i < len(line):
        c = line[i]
        if c == '"':
            return i + 1
        if c == "\\" and i + 1 < len(line) and line[i + 1] in '$`"\\\n':
            if line[i + 1] != "\n":
                parts.append(Literal(line[i + 1]))
            i += 2
        elif c == "$":
            i = _parameter(line, i, parts)
        else:
            parts.append(Literal(c))
            i += 1
    raise ShellSyntaxError("no closing quote")


def _parameter(line: str, i: int, parts: list[Part]) -> int:
    """Consume a ``$`` expansion at ``line[i]``; a lone ``$`` is literal, as in mksh."""
    rest = line[i + 1:]
    if rest[:1] in ("?", "$", "#", "!") or rest[:1].isdigit():
        parts.append(Parameter(rest[0]))
        return i + 2
    if rest.startswith("{"):
        end = rest.find("}")
        if end < 0:
            raise ShellSyntaxError("${: bad substitution")
        parts.append(Parameter(rest[1:end]))
        return i + end + 2
    match = _NAME.match(rest)
    if match is None:
        parts.append(Literal("$"))
        return i + 1
    parts.append(Parameter(match.group(0)))
    return i + 1 + match.end()


def parse(line: str) -> tuple[AndOrList, ...]:
    """Parse a command line into and-or lists run one after another; raises :class:`ShellSyntaxError`."""
    tokens = tokenize(line)
    lists: list[AndOrList] = []
    pos = 0

    def command() -> SimpleCommand:
        nonlocal pos
        words: list[Word] = []
        redirects: list[Redirect] = []
        while pos < len(tokens):
            token = tokens[pos]
            if isinstance(token, Word):
                words.append(token)
                pos += 1
                continue
            match = _REDIRECT.fullmatch(token)
            if match is None:
                break
            digits, op = match.groups()
            fd = int(digits) if digits else (0 if op == "<" else 1)
            target = tokens[pos + 1] if pos + 1 < len(tokens) else None
            if not isinstance(target, Word):
                raise ShellSyntaxError(f"syntax error: {_describe(target)} unexpected")
            if op == ">&":
                number = "".join(p.text for p in target.parts if isinstance(p, Literal))
                expands = any(isinstance(p, Parameter) for p in target.parts)
                if not number.isdigit() or len(number) != 1 or expands:
                    raise ShellSyntaxError(f"{number}: illegal file descriptor name")
                redirects.append(Redirect(fd, op, int(number)))
            else:
                redirects.append(Redirect(fd, op, target))
            pos += 2
        if not words and not redirects:
            found = tokens[pos] if pos < len(tokens) else None
            raise ShellSyntaxError(f"syntax error: {_describe(found)} unexpected")
        return SimpleCommand(tuple(words), tuple(redirects))

    def pipeline() -> Pipeline:
        nonlocal pos
        commands = [command()]
        while pos < len(tokens) and tokens[pos] == "|":
            pos += 1
            commands.append(command())
        return Pipeline(tuple(commands))

    while pos < len(tokens):
        if tokens[pos] in (";", "\n", "&"):
            if tokens[pos] != "\n" and not lists:
                raise ShellSyntaxError(f"syntax error: {tokens[pos]!r} unexpected")
            pos += 1
            continue
        first = pipeline()
        rest: list[tuple[str, Pipeline]] = []
        while pos < len(tokens) and tokens[pos] in ("&&", "||"):
            op = tokens[pos]
            assert isinstance(op, str)
            pos += 1
            while pos < len(tokens) and tokens[pos] == "\n":
                pos += 1
            rest.append((op, pipeline()))
        lists.append(AndOrList(first, tuple(rest)))
        if pos < len(tokens) and tokens[pos] not in (";", "\n", "&"):
            raise ShellSyntaxError(f"syntax error: {_describe(tokens[pos])} unexpected")
    return tuple(lists)


def _describe(token: Word | str | None) -> str:
    if token is None:
        return "newline"
    if isinstance(token, Word):
        return repr("".join(p.text if isinstance(p, Literal) else "$" + p.name for p in token.parts))
    return "newline" if token == "\n" else repr(token)


class ShellOutput:
    """Where a shell session writes: ``fd`` 1 (stdout) and 2 (stderr) chunks, in order.

    Output is buffered; ``flush`` hands the buffered chunks to ``deliver`` (the adb stream), which
    the shell does before waiting (``sleep``) and at the end, so short commands cost one write.
    """

    def __init__(self, deliver: Callable[[list[tuple[int, bytes]]], Awaitable[None]] | None = None) -> None:
        self.chunks: list[tuple[int, bytes]] = []
        self._deliver = deliver

    def write(self, fd: int, data: bytes) -> None:
        if data:
            self.chunks.append((fd, data))

    async def flush(self) -> None:
        if self._deliver is not None and self.chunks:
            chunks, self.chunks = self.chunks, []
            await self._deliver(chunks)

    def stdout(self) -> bytes:
        return b"".join(data for fd, data in self.chunks if fd == 1)

    def stderr(self) -> bytes:
        return b"".join(data for fd, data in self.chunks if fd == 2)

    def merged(self) -> bytes:
        return b"".join(data for _, data in self.chunks)


#: Where a file descriptor goes: ("host", "1"|"2"), ("null", ""), ("file"|"append", path) or ("pipe", "").
_Target = tuple[str, str]


class CommandContext:
    """What one running command sees: its arguments' world (phone, files, stdin) and its two outputs."""

    def __init__(self, shell: DeviceShell, stdin: bytes, targets: dict[int, _Target],
                 pipe: io.BytesIO, files: dict[str, bytearray]) -> None:
        self.shell = shell
        self.phone = shell.phone
        self.fs = shell.fs
        self.stdin = stdin
        self._targets = targets
        self._pipe = pipe
        self._files = files

    def out(self, data: str | bytes) -> None:
        self._emit(1, data)

    def err(self, data: str | bytes) -> None:
        self._emit(2, data)

    def _emit(self, fd: int, data: str | bytes) -> None:
        raw = data.encode() if isinstance(data, str) else data
        kind, where = self._targets.get(fd, ("null", ""))
        if kind == "host":
            self.shell.output.write(int(where), raw)
        elif kind == "pipe":
            self._pipe.write(raw)
        elif kind in ("file", "append"):
            self._files.setdefault(where, bytearray()).extend(raw)

    async def flush(self) -> None:
        await self.shell.output.flush()


Command = Callable[[CommandContext, list[str]], Awaitable[int]]


class _Exit(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class DeviceShell:
    """One shell session (``sh -c`` or an interactive ``adb shell``) on a phone; ``status`` is ``$?``.

    Phone errors that mean the device itself is gone (``DeviceOfflineError``) or that an answer
    was lost (``AckLostError``) propagate to the caller, which owns the transport.
    """

    def __init__(self, phone: ShellPhone, fs: DeviceFilesystem, output: ShellOutput) -> None:
        self.phone = phone
        self.fs = fs
        self.output = output
        self.status = 0
        self.exited = False

    async def run(self, line: str) -> int:
        """Run a command line; return its exit status (also kept in ``status``)."""
        try:
            program = parse(line)
        except ShellSyntaxError as err:
            self.output.write(2, f"{SH}: {err}\n".encode())
            self.status = 1
            return self.status
        try:
            for and_or in program:
                self.status = await self._pipeline(and_or.first)
                for op, pipeline in and_or.rest:
                    if (op == "&&") == (self.status == 0):
                        self.status = await self._pipeline(pipeline)
        except _Exit as done:
            self.status = done.code
            self.exited = True
        return self.status

    async def _pipeline(self, pipeline: Pipeline) -> int:
        stdin = b""
        status = 0
        for index, simple in enumerate(pipeline.commands):
            last = index == len(pipeline.commands) - 1
            pipe = io.BytesIO()
            status = await self._command(simple, stdin, pipe, last)
            stdin = pipe.getvalue()
        return status

    async def _command(self, simple: SimpleCommand, stdin: bytes, pipe: io.BytesIO, last: bool) -> int:
        targets: dict[int, _Target] = {1: ("host", "1") if last else ("pipe", ""), 2: ("host", "2")}
        files: dict[str, bytearray] = {}
        for redirect in simple.redirects:
            if isinstance(redirect.target, int):
                targets[redirect.fd] = targets.get(redirect.target, ("null", ""))
                continue
            path = self._expand(redirect.target)
            if redirect.op == "<":
                try:
                    stdin = self.fs.read(path)
                except (FileNotFoundError, IsADirectoryError):
                    self.output.write(2, f"{SH}: can't open {path}: No such file or directory\n".encode())
                    return 1
            elif path in ("/dev/null", "/dev/zero"):
                targets[redirect.fd] = ("null", "")
            elif path in ("/dev/tty", "/dev/stdout", "/dev/stderr"):
                targets[redirect.fd] = ("host", "2" if path == "/dev/stderr" else "1")
            else:
                path = self.fs.normalize(path)
                if self.fs.stat(path).is_dir:
                    self.output.write(2, f"{SH}: can't create {path}: Is a directory\n".encode())
                    return 1
                targets[redirect.fd] = ("append" if redirect.op == ">>" else "file", path)
                if redirect.op == ">":
                    self.fs.write(path, b"")
        # an unquoted expansion that comes out empty is no argument at all, as in mksh
        argv = [text for word in simple.words
                if (text := self._expand(word)) or any(isinstance(p, Literal) for p in word.parts)]
        ctx = CommandContext(self, stdin, targets, pipe, files)
        try:
            status = await self._execute(ctx, argv) if argv else 0
        finally:
            for path, data in files.items():
                self.fs.write(path, bytes(data), append=True)
        return status

    async def _execute(self, ctx: CommandContext, argv: list[str]) -> int:
        name = argv[0]
        command = COMMANDS.get(_program_name(name))
        if command is None:
            ctx.err(f"{SH}: {name}: {'inaccessible or not found' if '/' in name else 'not found'}\n")
            return 127
        try:
            return await command(ctx, argv[1:])
        except (DeviceOfflineError, AckLostError):
            raise
        except ValueError as err:
            ctx.err(f"Error: {err}\n")
            return 255

    def _expand(self, word: Word) -> str:
        out = []
        for part in word.parts:
            if isinstance(part, Literal):
                out.append(part.text)
            elif part.name == "?":
                out.append(str(self.status))
            elif part.name == "$":
                out.append("4242")
            elif part.name == "#":
                out.append("0")
            elif part.name == "0":
                out.append(SH)
        return "".join(out)


def _program_name(name: str) -> str:
    for directory in ("/system/bin/", "/system/xbin/", "/vendor/bin/", "/bin/"):
        if name.startswith(directory):
            return name[len(directory):]
    return "" if "/" in name else name


async def cmd_true(ctx: CommandContext, args: list[str]) -> int:
    return 0


async def cmd_false(ctx: CommandContext, args: list[str]) -> int:
    return 1


async def cmd_exit(ctx: CommandContext, args: list[str]) -> int:
    code = int(args[0]) & 0xFF if args and args[0].lstrip("-").isdigit() else ctx.shell.status
    raise _Exit(code)


async def cmd_cd(ctx: CommandContext, args: list[str]) -> int:
    return 0


_ECHO_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", "a": "\a", "b": "\b", "r": "\r", "v": "\v", "f": "\f"}


async def cmd_echo(ctx: CommandContext, args: list[str]) -> int:
    newline, escapes = True, False
    while args and args[0] in ("-n", "-e", "-E", "-ne", "-en"):
        flag = args.pop(0)
        newline = newline and "n" not in flag
        escapes = "e" in flag
    text = " ".join(args)
    if escapes:
        out, i = [], 0
        while i < len(text):
            if text[i] == "\\" and i + 1 < len(text):
                if text[i + 1] == "c":
                    newline = False
                    break
                out.append(_ECHO_ESCAPES.get(text[i + 1], "\\" + text[i + 1]))
                i += 2
            else:
                out.append(text[i])
                i += 1
        text = "".join(out)
    ctx.out(text + ("\n" if newline else ""))
    return 0


async def cmd_sleep(ctx: CommandContext, args: list[str]) -> int:
    try:
        seconds = float(args[0])
    except (IndexError, ValueError):
        ctx.err("sleep: Need 1 argument\n" if not args else f"sleep: invalid number '{args[0]}'\n")
        return 1
    await ctx.flush()
    await asyncio.sleep(max(0.0, seconds))
    return 0


async def cmd_cat(ctx: CommandContext, args: list[str]) -> int:
    status = 0
    for path in args or ["-"]:
        if path == "-":
            ctx.out(ctx.stdin)
            continue
        try:
            ctx.out(ctx.fs.read(path))
        except FileNotFoundError:
            ctx.err(f"cat: {path}: No such file or directory\n")
            status = 1
        except IsADirectoryError:
            ctx.err(f"cat: {path}: Is a directory\n")
            status = 1
    return status


async def cmd_rm(ctx: CommandContext, args: list[str]) -> int:
    flags = {c for a in args if a.startswith("-") for c in a[1:]}
    status = 0
    for path in (a for a in args if not a.startswith("-")):
        try:
            ctx.fs.remove(path)
        except FileNotFoundError:
            if "f" not in flags:
                ctx.err(f"rm: {path}: No such file or directory\n")
                status = 1
        except IsADirectoryError:
            ctx.err(f"rm: {path}: is a directory\n")
            status = 1
    return status


async def cmd_ls(ctx: CommandContext, args: list[str]) -> int:
    flags = {c for a in args if a.startswith("-") for c in a[1:]}
    paths = [a for a in args if not a.startswith("-")] or ["/"]
    status = 0
    for path in paths:
        found = ctx.fs.stat(path)
        if not found.exists:
            ctx.err(f"ls: {path}: No such file or directory\n")
            status = 1
            continue
        names = ctx.fs.listdir(path) if found.is_dir else [path]
        for name in names:
            if "l" in flags:
                full = name if not found.is_dir else ctx.fs.normalize(path).rstrip("/") + "/" + name
                entry = ctx.fs.stat(full)
                kind = "d" if entry.is_dir else "-"
                ctx.out(f"{kind}rw-rw---- 1 root sdcard_rw {entry.size:>8} 2024-01-01 00:00 {name}\n")
            else:
                ctx.out(name + "\n")
    return status


async def cmd_grep(ctx: CommandContext, args: list[str]) -> int:
    flags = {c for a in args if a.startswith("-") and len(a) > 1 for c in a[1:]}
    rest = [a for a in args if not (a.startswith("-") and len(a) > 1)]
    if not rest:
        ctx.err("usage: grep [-EFivq] PATTERN [FILE...]\n")
        return 2
    pattern, paths = rest[0], rest[1:]
    try:
        regex = re.compile(re.escape(pattern) if "F" in flags else pattern,
                           re.IGNORECASE if "i" in flags else 0)
    except re.error:
        ctx.err(f"grep: bad regex '{pattern}'\n")
        return 2
    sources = [ctx.stdin] if not paths else []
    for path in paths:
        try:
            sources.append(ctx.fs.read(path))
        except (FileNotFoundError, IsADirectoryError):
            ctx.err(f"grep: {path}: No such file or directory\n")
    matched = False
    for source in sources:
        for line in source.decode("utf-8", "replace").splitlines(keepends=True):
            if bool(regex.search(line)) != ("v" in flags):
                matched = True
                if "q" not in flags:
                    ctx.out(line if line.endswith("\n") else line + "\n")
    return 0 if matched else 1


async def cmd_getprop(ctx: CommandContext, args: list[str]) -> int:
    if not args:
        props = ctx.phone.getprop()
        assert isinstance(props, dict)
        ctx.out("".join(f"[{key}]: [{value}]\n" for key, value in sorted(props.items())))
        return 0
    value = ctx.phone.getprop(args[0])
    text = value if isinstance(value, str) else ""
    ctx.out((text or (args[1] if len(args) > 1 else "")) + "\n")
    return 0


async def cmd_wm(ctx: CommandContext, args: list[str]) -> int:
    if args[:1] == ["size"] and len(args) == 1:
        width, height = ctx.phone.window_size()
        ctx.out(f"Physical size: {width}x{height}\n")
        return 0
    if args[:1] == ["density"] and len(args) == 1:
        density = ctx.phone.getprop("ro.sf.lcd_density")
        ctx.out(f"Physical density: {density if isinstance(density, str) and density else '420'}\n")
        return 0
    ctx.err("Error: unsupported wm command; this simulated device answers 'wm size' and 'wm density'\n")
    return 255


def _object_hash(text: str) -> str:
    return f"{zlib.crc32(text.encode()):08x}"[1:]


def _focus_names(ctx: CommandContext) -> tuple[str, str, str]:
    """(package, full activity class, short component ``pkg/.Act``) of the focused window."""
    package, activity = ctx.phone.current_focus()
    if "/" in activity:
        activity = activity.split("/", 1)[1]
    full = package + activity if activity.startswith(".") else activity
    short = activity if not full.startswith(package + ".") else full[len(package):]
    return package, full, f"{package}/{short}"


async def cmd_dumpsys(ctx: CommandContext, args: list[str]) -> int:
    service = args[0] if args else ""
    if service == "window":
        package, full, short = _focus_names(ctx)
        window = f"Window{{{_object_hash(full)} u0 {package}/{full}}}"
        record = f"ActivityRecord{{{_object_hash(short)} u0 {short} t12}}"
        locked = ctx.phone.locked()
        ctx.out("WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
                f"  mCurrentFocus={window}\n"
                f"  mFocusedApp={record}\n"
                f"  mDreamingLockscreen={str(locked).lower()} mShowingLockscreen={str(locked).lower()}\n"
                f"  mTopFullscreenOpaqueWindowState={window}\n")
        return 0
    if service == "activity":
        _, _, short = _focus_names(ctx)
        ctx.out("ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
                f"  mResumedActivity: ActivityRecord{{{_object_hash(short)} u0 {short} t12}}\n"
                f"  ResumedActivity: ActivityRecord{{{_object_hash(short)} u0 {short} t12}}\n")
        return 0
    if service == "display":
        rotation = ctx.phone.rotation()
        width, height = ctx.phone.window_size()
        ctx.out("DISPLAY MANAGER (dumpsys display)\n"
                "Display Devices: size=1\n"
                f'  DisplayDeviceInfo{{"Built-in Screen": uniqueId="local:0", {width} x {height}, '
                f"rotation {rotation}, type INTERNAL, state {'ON' if ctx.phone.screen_on() else 'OFF'}}}\n"
                "Logical Displays: size=1\n"
                "  Display 0:\n"
                f"    mCurrentOrientation={rotation}\n"
                f'    mBaseDisplayInfo=DisplayInfo{{"Built-in Screen", displayId 0, real {width} x {height}, '
                f"rotation {rotation}}}\n")
        return 0
    if service == "input":
        ctx.out("INPUT MANAGER (dumpsys input)\n\nInput Reader State:\n"
                "  Device 3: sim-touchscreen\n"
                f"    Viewport INTERNAL: displayId=0, orientation={ctx.phone.rotation()}\n"
                f"    SurfaceOrientation: {ctx.phone.rotation()}\n")
        return 0
    if service == "power":
        on = ctx.phone.screen_on()
        ctx.out("POWER MANAGER (dumpsys power)\n"
                f"  mWakefulness={'Awake' if on else 'Asleep'}\n"
                f"  mHoldingDisplaySuspendBlocker={str(on).lower()}\n"
                f"Display Power: state={'ON' if on else 'OFF'}\n")
        return 0
    if service == "input_method":
        current = ctx.phone.settings_get("secure", "default_input_method") or LATIN_IME
        ctx.out(f"  mCurMethodId={current}\n  mInputShown=false\n")
        return 0
    if service == "package" and len(args) > 1:
        version = ctx.phone.packages().get(args[1])
        if version is None:
            ctx.out(f"Unable to find package: {args[1]}\n")
            return 0
        ctx.out("Packages:\n"
                f"  Package [{args[1]}] ({_object_hash(args[1])}):\n"
                f"    userId={10000 + zlib.crc32(args[1].encode()) % 1000}\n"
                f"    codePath=/data/app/{args[1]}-1\n"
                f"    versionCode={_version_code(version)} minSdk=24 targetSdk=34\n"
                f"    versionName={version}\n")
        return 0
    ctx.out(f"Can't find service: {service}\n")
    return 0


def _version_code(version: str) -> int:
    parts = [int(p) for p in re.split(r"\D+", version) if p][:3]
    parts += [0] * (3 - len(parts))
    return parts[0] * 10000 + parts[1] * 100 + parts[2]


async def cmd_uiautomator(ctx: CommandContext, args: list[str]) -> int:
    if not args or args[0] != "dump":
        ctx.err("Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\n"
                "dump: creates an XML dump of current UI hierarchy\n")
        return 1
    compressed = "--compressed" in args[1:]
    paths = [a for a in args[1:] if not a.startswith("--")]
    path = paths[0] if paths else DUMP_DEFAULT_PATH
    outcome = ctx.phone.ui_dump(compressed=compressed)
    if outcome.xml is None:
        if outcome.error:
            ctx.out(outcome.error if outcome.error.endswith("\n") else outcome.error + "\n")
        return 0
    if path == "/dev/tty":
        ctx.out(outcome.xml)
    else:
        ctx.fs.write(path, outcome.xml.encode())
    ctx.out(f"UI hierchary dumped to: {path}\n")
    return 0


async def cmd_screencap(ctx: CommandContext, args: list[str]) -> int:
    png = "-p" in args
    paths = [a for a in args if not a.startswith("-")]
    if paths and paths[0].endswith(".png"):
        png = True
    data = ctx.phone.screencap_png()
    if not png:
        data = _raw_frame(data)
    if paths:
        ctx.fs.write(paths[0], data)
    else:
        ctx.out(data)
    return 0


def _raw_frame(png: bytes) -> bytes:
    """What ``screencap`` without ``-p`` writes: width, height, format (RGBA_8888), colour space, pixels."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        rgba = image.convert("RGBA")
        return struct.pack("<4I", rgba.width, rgba.height, 1, 0) + rgba.tobytes()


_KEYCODES: dict[str, int] = {
    "UNKNOWN": 0, "SOFT_LEFT": 1, "SOFT_RIGHT": 2, "HOME": 3, "BACK": 4, "CALL": 5, "ENDCALL": 6,
    **{str(d): 7 + d for d in range(10)}, "STAR": 17, "POUND": 18, "DPAD_UP": 19, "DPAD_DOWN": 20,
    "DPAD_LEFT": 21, "DPAD_RIGHT": 22, "DPAD_CENTER": 23, "VOLUME_UP": 24, "VOLUME_DOWN": 25, "POWER": 26,
    "CAMERA": 27, "CLEAR": 28, **{chr(ord("A") + k): 29 + k for k in range(26)}, "COMMA": 55, "PERIOD": 56,
    "ALT_LEFT": 57, "ALT_RIGHT": 58, "SHIFT_LEFT": 59, "SHIFT_RIGHT": 60, "TAB": 61, "SPACE": 62, "SYM": 63,
    "EXPLORER": 64, "ENVELOPE": 65, "ENTER": 66, "DEL": 67, "GRAVE": 68, "MINUS": 69, "EQUALS": 70,
    "LEFT_BRACKET": 71, "RIGHT_BRACKET": 72, "BACKSLASH": 73, "SEMICOLON": 74, "APOSTROPHE": 75, "SLASH": 76,
    "AT": 77, "MENU": 82, "NOTIFICATION": 83, "SEARCH": 84, "MEDIA_PLAY_PAUSE": 85, "PAGE_UP": 92,
    "PAGE_DOWN": 93, "ESCAPE": 111, "FORWARD_DEL": 112, "MOVE_HOME": 122, "MOVE_END": 123,
    "APP_SWITCH": 187, "SLEEP": 223, "WAKEUP": 224,
}

_INPUT_SOURCES = ("touchscreen", "touchpad", "keyboard", "mouse", "dpad", "gamepad", "stylus", "trackball",
                  "joystick", "touchnavigation", "rotaryencoder")
_INPUT_USAGE = ("Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n\n"
                "The commands and default sources are:\n"
                "      text <string> (Default: keyboard)\n"
                "      keyevent [--longpress|--doubletap] <key code number or name> ... (Default: keyboard)\n"
                "      tap <x> <y> (Default: touchscreen)\n"
                "      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)\n")


def _java_exception(ctx: CommandContext, command: str, kind: str, message: str) -> int:
    """Print what Android's ShellCommand prints when a command throws; ``cmd`` then exits 255.

    A phone error that already reads like Android's report is printed as it is.
    """
    header = f"Exception occurred while executing '{command}':\n"
    report = message if message.startswith("Exception occurred") else f"{header}{kind}: {message}"
    ctx.err(f"{report}\n"
            "\tat com.android.server.input.InputShellCommand.onCommand(InputShellCommand.java:316)\n"
            "\tat com.android.modules.utils.BasicShellCommandHandler.exec"
            "(BasicShellCommandHandler.java:97)\n")
    return 255


def _coordinate(text: str) -> int:
    return round(float(text))


async def cmd_input(ctx: CommandContext, args: list[str]) -> int:
    if args and args[0] in _INPUT_SOURCES:
        args = args[1:]
    if len(args) >= 2 and args[0] == "-d":
        args = args[2:]
    if not args:
        ctx.err(_INPUT_USAGE)
        return 1
    command, rest = args[0], args[1:]
    phone = ctx.phone
    try:
        if command == "tap" and len(rest) == 2:
            phone.tap(_coordinate(rest[0]), _coordinate(rest[1]))
        elif command in ("swipe", "draganddrop") and len(rest) in (4, 5):
            x1, y1, x2, y2 = (_coordinate(v) for v in rest[:4])
            phone.swipe(x1, y1, x2, y2, int(rest[4]) if len(rest) == 5 else 300)
        elif command == "text" and rest:
            phone.input_text(rest[0])
        elif command in ("keyevent", "press") and (rest or command == "press"):
            # --longpress/--doubletap are accepted; the phone API has one event per key, so each key goes once
            codes = [_keycode(name) for name in rest if not name.startswith("--")] or [_KEYCODES["DPAD_CENTER"]]
            for code in codes:
                phone.keyevent(code)
        else:
            known = command in ("tap", "swipe", "text", "keyevent")
            ctx.err(f"Error: Invalid arguments for command: {command}\n" if known
                    else f"Error: Unknown command: {command}\n")
            ctx.err(_INPUT_USAGE)
            return 1
    except ValueError as err:
        number = "could not convert" in str(err) or "invalid literal" in str(err)
        kind = "java.lang.NumberFormatException" if number else "java.lang.IllegalArgumentException"
        return _java_exception(ctx, command, kind, str(err))
    return 0


def _keycode(name: str) -> int:
    if name.lstrip("-").isdigit():
        return int(name)
    code = _KEYCODES.get(name.upper().removeprefix("KEYCODE_"))
    if code is None:
        raise ValueError(f"Unknown keycode: {name}")
    return code


@attrs.frozen
class _Intent:
    action: str | None = None
    data: str | None = None
    package: str | None = None
    component: str | None = None
    extras: tuple[tuple[str, str], ...] = ()

    def describe(self) -> str:
        fields = [f"act={self.action}" if self.action else "", f"dat={self.data}" if self.data else "",
                  f"pkg={self.package}" if self.package and not self.component else "",
                  f"cmp={self.component}" if self.component else "", "(has extras)" if self.extras else ""]
        return "Intent { " + " ".join(f for f in fields if f) + " }"


_AM_VALUE_OPTIONS = {"-a", "-d", "-t", "-c", "-n", "-f", "-p", "--user", "--display", "--windowingMode",
                     "--activityType", "-P", "--start-profiler", "--sampling", "--attach-agent"}
_AM_EXTRA_OPTIONS = {"-e", "--es", "--ei", "--el", "--ez", "--ef", "--eu", "--ecn", "--eia", "--esa"}


def _parse_intent(args: list[str]) -> tuple[_Intent, set[str]]:
    values: dict[str, str] = {}
    extras: list[tuple[str, str]] = []
    flags: set[str] = set()
    positional: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _AM_VALUE_OPTIONS and i + 1 < len(args):
            values[arg] = args[i + 1]
            i += 2
        elif arg in _AM_EXTRA_OPTIONS and i + 2 < len(args):
            extras.append((args[i + 1], args[i + 2]))
            i += 3
        elif arg.startswith("-"):
            flags.add(arg)
            i += 1
        else:
            positional.append(arg)
            i += 1
    component = values.get("-n")
    package = component.split("/", 1)[0] if component and "/" in component else values.get("-p")
    data = values.get("-d") or (positional[0] if positional else None)
    return _Intent(values.get("-a"), data, package, component, tuple(extras)), flags


async def cmd_am(ctx: CommandContext, args: list[str]) -> int:
    sub, rest = (args[0], args[1:]) if args else ("", [])
    if sub in ("start", "start-activity"):
        return _am_start(ctx, rest)
    if sub == "force-stop" and rest:
        ctx.phone.force_stop(rest[-1])
        return 0
    if sub == "broadcast":
        return _am_broadcast(ctx, rest)
    ctx.err(f"Error: Unknown command: {sub}\n" if sub else "usage: am [subcommand] [options]\n")
    return 255


def _am_start(ctx: CommandContext, args: list[str]) -> int:
    intent, flags = _parse_intent(args)
    ctx.out(f"Starting: {intent.describe()}\n")
    package = intent.package or ""
    if not package and not intent.data:
        ctx.err(f"Error: Activity not started, unable to resolve {intent.describe()}\n")
        return 1
    activity = intent.component.split("/", 1)[1] if intent.component else None
    if "-S" in flags and package:
        ctx.phone.force_stop(package)
    try:
        ctx.phone.start_activity(package, activity, intent.data)
    except (LookupError, ValueError) as err:
        if intent.component or isinstance(err, LookupError):
            ctx.err(f"Error type 3\nError: Activity class {{{intent.component or package}}} does not exist.\n")
            return 1
        ctx.err(f"Error: Activity not started, unable to resolve {intent.describe()}\n")
        return 1
    if "-W" in flags:
        _, _, short = _focus_names(ctx)
        ctx.out(f"Status: ok\nLaunchState: COLD\nActivity: {short}\nTotalTime: 0\nWaitTime: 0\nComplete\n")
    return 0


def _am_broadcast(ctx: CommandContext, args: list[str]) -> int:
    intent, _ = _parse_intent(args)
    ctx.out(f"Broadcasting: {intent.describe()}\n")
    extras = dict(intent.extras)
    text: str | None = None
    if intent.action == "ADB_INPUT_B64" and "msg" in extras:
        try:
            text = base64.b64decode(extras["msg"], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            text = None
    elif intent.action == "ADB_INPUT_TEXT" and "msg" in extras:
        text = extras["msg"]
    if text is not None:
        # with no ADB keyboard selected nobody receives it: a real device also reports success, types nothing
        with contextlib.suppress(ValueError):
            ctx.phone.ime_commit_text(text)
    ctx.out("Broadcast completed: result=0\n")
    return 0


async def cmd_ime(ctx: CommandContext, args: list[str]) -> int:
    installed = [LATIN_IME] + ([ADB_IME] if _ADB_IME_PACKAGE in ctx.phone.packages() else [])
    sub, rest = (args[0], args[1:]) if args else ("", [])
    if sub == "list":
        ctx.out("".join(f"{ime}\n" if "-s" in rest else f"{ime}:\n  mId={ime}\n" for ime in installed))
        return 0
    if sub in ("set", "enable", "disable") and rest:
        ime = rest[-1]
        if ime not in installed:
            ctx.err(f"Unknown input method {ime} cannot be {'selected' if sub == 'set' else sub + 'd'} "
                    "for user #0\n")
            return 255
        if sub == "set":
            ctx.phone.settings_put("secure", "default_input_method", ime)
            ctx.out(f"Input method {ime} selected for user #0\n")
        else:
            ctx.out(f"Input method {ime}: {'already enabled' if sub == 'enable' else 'now disabled'} "
                    "for user #0\n")
        return 0
    ctx.err("Usage: ime <command>: list, enable, disable, set\n")
    return 255


async def cmd_pm(ctx: CommandContext, args: list[str]) -> int:
    packages = ctx.phone.packages()
    if args[:2] == ["list", "packages"]:
        rest = args[2:]
        third_party = "-3" in rest
        system = "-s" in rest
        needle = next((a for a in rest if not a.startswith("-")), "")
        for name in sorted(packages):
            is_system = name.startswith(_SYSTEM_PREFIXES)
            if needle in name and not (third_party and is_system) and not (system and not is_system):
                ctx.out(f"package:{name}\n")
        return 0
    if args[:1] == ["path"] and len(args) == 2:
        if args[1] not in packages:
            return 1
        ctx.out(f"package:/data/app/~~{_object_hash(args[1])}==/{args[1]}-1/base.apk\n")
        return 0
    ctx.err("Error: unsupported pm command; this simulated device answers 'pm list packages' and 'pm path'\n")
    return 255


async def cmd_settings(ctx: CommandContext, args: list[str]) -> int:
    if len(args) >= 3 and args[0] == "get":
        value = ctx.phone.settings_get(args[1], args[2])
        ctx.out(("null" if value is None else value) + "\n")
        return 0
    if len(args) >= 4 and args[0] == "put":
        ctx.phone.settings_put(args[1], args[2], args[3])
        return 0
    ctx.err("usage:  settings [--user <USER_ID> | current] get namespace key\n"
            "        settings [--user <USER_ID> | current] put namespace key value\n")
    return 255


async def cmd_monkey(ctx: CommandContext, args: list[str]) -> int:
    for arg in args:
        ctx.err(f"  bash arg: {arg}\n")
    package = args[args.index("-p") + 1] if "-p" in args[:-1] else None
    counts = [a for a in args if a.isdigit()]
    if package is None or package not in ctx.phone.packages():
        ctx.err("** No activities found to run, monkey aborted.\n")
        return 252
    if counts and int(counts[-1]) > 0:
        ctx.phone.start_activity(package)
    ctx.out(f"Events injected: {counts[-1] if counts else 0}\n"
            "## Network stats: elapsed time=7ms (0ms mobile, 0ms wifi, 7ms not connected)\n")
    return 0


async def cmd_cmd(ctx: CommandContext, args: list[str]) -> int:
    services: dict[str, Command] = {"input": cmd_input, "package": cmd_pm, "settings": cmd_settings,
                                    "window": cmd_wm, "activity": cmd_am}
    if not args or args[0] not in services:
        ctx.err(f"cmd: Can't find service: {args[0] if args else ''}\n")
        return 20
    return await services[args[0]](ctx, args[1:])


COMMANDS: dict[str, Command] = {
    "true": cmd_true, "false": cmd_false, "exit": cmd_exit, "cd": cmd_cd, "echo": cmd_echo,
    "sleep": cmd_sleep, "cat": cmd_cat, "rm": cmd_rm, "ls": cmd_ls, "grep": cmd_grep,
    "getprop": cmd_getprop, "wm": cmd_wm, "dumpsys": cmd_dumpsys, "uiautomator": cmd_uiautomator,
    "screencap": cmd_screencap, "input": cmd_input, "am": cmd_am, "ime": cmd_ime, "pm": cmd_pm,
    "settings": cmd_settings, "monkey": cmd_monkey, "cmd": cmd_cmd,
}
