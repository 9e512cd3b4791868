"""Preflight for INIT: is the device ready to test a package, and put it in a known start state.

Runs over any shell callable, so it holds no connection of its own. Unreachable
devices raise (an environment error the report cannot express); everything else
the device lacks becomes a problem in the report, each naming its fix.
"""

from __future__ import annotations

import attrs

from adapters.adb.dump import RunShell
from adapters.adb.dumpsys import (
    package_listed,
    parse_locked,
    parse_screen_on,
    parse_settings_value,
    parse_version_name,
    parse_wm_size,
)
from adapters.adb.text import ADB_KEYBOARD_FIX, ADB_KEYBOARD_PACKAGE, shell_single_quote
from adapters.base import KEYCODES, PreflightReport

ANIMATION_SETTINGS: tuple[str, ...] = (
    "window_animation_scale",
    "transition_animation_scale",
    "animator_duration_scale",
)
_TIMEOUT = 20.0


@attrs.frozen
class PreflightOutcome:
    """The report plus what preflight changed: the animation scales as they were before (None = unset)."""

    report: PreflightReport
    previous_animation_scales: tuple[tuple[str, str | None], ...]


async def package_installed(shell: RunShell, package: str) -> bool:
    """True when ``pm list packages`` lists exactly ``package``."""
    result = await shell(f"pm list packages {package}", _TIMEOUT)
    return package_listed(result.output, package)


async def _animations_off(shell: RunShell) -> tuple[bool, tuple[tuple[str, str | None], ...]]:
    previous = []
    for name in ANIMATION_SETTINGS:
        before = await shell(f"settings get global {name}", _TIMEOUT)
        previous.append((name, parse_settings_value(before.output)))
        await shell(f"settings put global {name} 0", _TIMEOUT)
    after = [
        parse_settings_value((await shell(f"settings get global {name}", _TIMEOUT)).output)
        for name in ANIMATION_SETTINGS
    ]
    return all(_is_zero(value) for value in after), tuple(previous)


def _is_zero(value: str | None) -> bool:
    try:
        return value is not None and float(value) == 0.0
    except ValueError:
        return False


async def _screen_on(shell: RunShell) -> bool:
    # WAKEUP is a no-op on an awake screen, unlike POWER, which would toggle it off.
    await shell(f"input keyevent {KEYCODES['WAKEUP']}", _TIMEOUT)
    for command in ("dumpsys power", "dumpsys window"):
        state = parse_screen_on((await shell(command, _TIMEOUT)).output)
        if state is not None:
            return state
    return False


async def _unlocked(shell: RunShell) -> bool:
    locked = parse_locked((await shell("dumpsys window", _TIMEOUT)).output)
    if locked:
        # Dismisses an insecure keyguard on Android 8+; a PIN or pattern lock stays and is reported.
        await shell("wm dismiss-keyguard", _TIMEOUT)
        locked = parse_locked((await shell("dumpsys window", _TIMEOUT)).output)
    if locked:
        # Older builds and swipe-only lock screens need the gesture itself.
        width, height = parse_wm_size((await shell("wm size", _TIMEOUT)).output)
        await shell(f"input swipe {width // 2} {height * 9 // 10} {width // 2} {height * 3 // 10} 300", _TIMEOUT)
        locked = parse_locked((await shell("dumpsys window", _TIMEOUT)).output)
    return not locked


async def run_preflight(shell: RunShell, *, serial: str, package: str) -> PreflightOutcome:
    """Check and prepare the device for ``package``; the app ends force-stopped with HOME in front."""
    problems: list[str] = []
    await shell("echo ready", _TIMEOUT)

    installed = await package_installed(shell, package)
    version = None
    if installed:
        version = parse_version_name((await shell(f"dumpsys package {package}", _TIMEOUT)).output)
    else:
        problems.append(
            f"package {package!r} is not installed: install the app (adb install APK) or fix the machine's package name"
        )

    animations_off, previous = await _animations_off(shell)
    if not animations_off:
        problems.append("animations are still on: turn off the three animation scales in Developer options")

    screen_on = await _screen_on(shell)
    if not screen_on:
        problems.append("the screen is off and did not wake: wake the device (power button)")
    unlocked = await _unlocked(shell)
    if not unlocked:
        problems.append("the device is locked: unlock it or remove the lock screen (Settings > Security)")

    unicode_input = await package_installed(shell, ADB_KEYBOARD_PACKAGE)
    if not unicode_input:
        problems.append(f"non-ASCII text cannot be typed: {ADB_KEYBOARD_FIX}")

    if installed:
        await shell(f"am force-stop {package}", _TIMEOUT)
    await shell(f"input keyevent {KEYCODES['HOME']}", _TIMEOUT)

    report = PreflightReport(
        serial=serial,
        package=package,
        package_version=version,
        animations_off=animations_off,
        screen_on=screen_on,
        unlocked=unlocked,
        unicode_input=unicode_input,
        problems=tuple(problems),
    )
    return PreflightOutcome(report=report, previous_animation_scales=previous)


def restore_animation_commands(previous: tuple[tuple[str, str | None], ...]) -> list[str]:
    """Commands putting the animation scales back as they were (``delete`` for ones that were unset)."""
    return [
        (
            f"settings delete global {name}"
            if value is None
            else f"settings put global {name} {shell_single_quote(value)}"
        )
        for name, value in previous
    ]
