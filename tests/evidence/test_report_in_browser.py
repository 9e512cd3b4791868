"""report.html in a real headless browser (Debian's chromium): loads cleanly and shows the verdict.

Required when CI=true; elsewhere skipped with the reason when chromium is not installed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from fsm_runner import RunResult
from fsm_runner.evidence import RunDirectory

RunPair = tuple[RunResult, RunDirectory]

_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)
#: The header colours of report_template.html, per verdict.
_HEADER_RGB = {"FAILED": (0xB3, 0x26, 0x1E), "PASSED": (0x1F, 0x7A, 0x3A)}


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail("CI=true but chromium is not installed; scripts/test.sh installs it with apt-get install chromium")
    pytest.skip("chromium is not installed (apt-get install -y chromium); the report's browser check needs it")


def _browse(page: Path, profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_chromium(), *_FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", "--log-level=0",
         *extra, page.resolve().as_uri()],
        capture_output=True, text=True, timeout=120, check=False,
    )


def _console(stderr: str) -> list[str]:
    return re.findall(r":CONSOLE[^\]]*\] (.*)", stderr)


def _check(page: Path, tmp_path: Path, verdict: str, machine: str) -> None:
    shot = tmp_path / f"{verdict}.png"
    shown = _browse(page, tmp_path / f"profile-{verdict}-shot", f"--screenshot={shot}", "--window-size=1000,700",
                    "--hide-scrollbars")
    assert shown.returncode == 0, shown.stderr[-2000:]
    assert _console(shown.stderr) == [], "the page logged console messages"
    with Image.open(shot) as image:
        rgb = image.convert("RGB")
        band = [rgb.getpixel((x, 8)) for x in range(0, 1000, 50)]
    assert all(pixel == _HEADER_RGB[verdict] for pixel in band), band
    dom = _browse(page, tmp_path / f"profile-{verdict}-dom", "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert f"<h1>{verdict} — {machine}</h1>" in dom.stdout
    assert _console(dom.stderr) == []


def test_failing_report_loads_without_console_errors_and_shows_failed(failing_run: RunPair, tmp_path: Path) -> None:
    _, directory = failing_run
    _check(directory.path / "report.html", tmp_path, "FAILED", "shop-login-empty")


def test_passing_report_shows_passed(passing_run: RunPair, tmp_path: Path) -> None:
    _, directory = passing_run
    _check(directory.path / "report.html", tmp_path, "PASSED", "shop-login-page")


def test_console_check_catches_a_page_that_breaks_its_policy(tmp_path: Path) -> None:
    page = tmp_path / "broken.html"
    page.write_text(
        "<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\">"
        "</head><body><img src=\"https://example.invalid/x.png\"></body></html>",
        encoding="utf-8",
    )
    loaded = _browse(page, tmp_path / "profile", "--dump-dom")
    assert any("Content Security Policy" in line for line in _console(loaded.stderr))
