"""Safe text input: which strings ``input text`` can type, and the shell commands that type them.

Two paths. Printable ASCII goes through ``input text`` as ONE single-quoted shell
word, so no character reaches the shell as syntax. Everything else (any Unicode,
newlines, and strings containing a literal ``%s`` that Android would turn into a
space) goes through the ADB-keyboard IME as base64, whose alphabet holds no shell
metacharacter. Nothing here talks to a device.
"""

from __future__ import annotations

import base64

ADB_KEYBOARD_PACKAGE = "com.android.adbkeyboard"
ADB_KEYBOARD_IME = "com.android.adbkeyboard/.AdbIME"
ADB_KEYBOARD_FIX = (
    "install the ADB keyboard (com.android.adbkeyboard, https://github.com/senzhk/ADBKeyBoard) "
    "on the device: `adb install ADBKeyboard.apk`"
)

_PRINTABLE_ASCII = frozenset(chr(code) for code in range(0x20, 0x7F))


def typeable_by_input_text(text: str) -> bool:
    """True when Android's ``input text`` reproduces ``text`` exactly (printable ASCII, no ``%s``)."""
    # Android's Input.sendText rewrites every "%s" to a space and has no escape for it.
    return all(ch in _PRINTABLE_ASCII for ch in text) and "%s" not in text


def shell_single_quote(word: str) -> str:
    """Quote ``word`` so a POSIX/mksh shell passes it through as one literal argument."""
    return "'" + word.replace("'", "'\\''") + "'"


def input_text_command(text: str) -> str:
    """The ``input text`` command typing ``text``; raises ValueError unless it is typeable that way."""
    if not typeable_by_input_text(text):
        raise ValueError(f"input text cannot type {text!r} exactly")
    return "input text " + shell_single_quote(text.replace(" ", "%s"))


def ime_broadcast_command(text: str) -> str:
    """The broadcast that makes the ADB-keyboard IME commit ``text`` (any Unicode) into the focused field."""
    payload = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return f"am broadcast -a ADB_INPUT_B64 --es msg {payload}"
