"""Preflight decisions over a scripted shell: what each shortfall becomes in the report."""

from __future__ import annotations

import asyncio

from adapters.adb.preflight import ANIMATION_SETTINGS, restore_animation_commands, run_preflight
from adapters.base import ShellResult


class ScriptedDevice:
    """A stand-in shell with a settings table, a locked flag and installed packages; records every command."""

    def __init__(self, *, packages: set[str], settable: bool = True, locked: bool = False) -> None:
        self.packages = packages
        self.settable = settable
        self.locked = locked
        self.settings = {name: "1.0" for name in ANIMATION_SETTINGS}
        self.commands: list[str] = []

    async def __call__(self, command: str, timeout: float) -> ShellResult:
        self.commands.append(command)
        words = command.split()
        if words[:3] == ["pm", "list", "packages"]:
            return ShellResult("".join(f"package:{p}\n" for p in sorted(self.packages) if words[3] in p), 0)
        if words[:2] == ["settings", "get"]:
            return ShellResult(self.settings.get(words[3], "null") + "\n", 0)
        if words[:2] == ["settings", "put"] and self.settable:
            self.settings[words[3]] = words[4]
        if words[:2] == ["dumpsys", "package"]:
            return ShellResult("    versionName=2.0.1\n", 0)
        if words[:2] == ["dumpsys", "power"]:
            return ShellResult("  mWakefulness=Awake\n", 0)
        if words[:2] == ["dumpsys", "window"]:
            return ShellResult(f"  mDreamingLockscreen={str(self.locked).lower()}\n", 0)
        if words[:2] == ["wm", "size"]:
            return ShellResult("Physical size: 1080x2400\n", 0)
        return ShellResult("", 0)


def test_a_ready_device_gets_a_clean_report_and_a_known_start_state() -> None:
    shell = ScriptedDevice(packages={"com.example.app", "com.android.adbkeyboard"})
    outcome = asyncio.run(run_preflight(shell, serial="s1", package="com.example.app"))
    assert outcome.report.ready and outcome.report.package_version == "2.0.1"
    assert outcome.previous_animation_scales == tuple((name, "1.0") for name in ANIMATION_SETTINGS)
    assert shell.commands[-2:] == ["am force-stop com.example.app", "input keyevent 3"]
    assert "input keyevent 224" in shell.commands and "input keyevent 26" not in shell.commands


def test_each_shortfall_is_a_problem_naming_its_fix() -> None:
    shell = ScriptedDevice(packages=set(), settable=False, locked=True)
    report = asyncio.run(run_preflight(shell, serial="s1", package="com.example.app")).report
    assert (report.animations_off, report.unlocked, report.unicode_input) == (False, False, False)
    assert report.package_version is None
    assert len(report.problems) == 4
    for fix in ("adb install", "Developer options", "unlock", "ADB keyboard"):
        assert any(fix in problem for problem in report.problems), fix
    assert "am force-stop com.example.app" not in shell.commands


def test_restore_puts_back_values_and_deletes_what_was_unset() -> None:
    commands = restore_animation_commands((("window_animation_scale", "0.5"), ("animator_duration_scale", None)))
    assert commands == [
        "settings put global window_animation_scale '0.5'",
        "settings delete global animator_duration_scale",
    ]
