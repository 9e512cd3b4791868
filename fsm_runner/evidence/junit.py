"""``junit.xml``: JUnit XML as CI servers read it (the Jenkins / Ant schema).

Each machine run is a ``<testsuite>`` holding one ``<testcase>``; the suite's
``<properties>`` carry steps, tokens, LLM calls, cache hits and wall time
(testcase-level properties are not in the schema CI servers validate
against). Many runs merge into one ``<testsuites>`` file.
"""

from __future__ import annotations

import socket
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from fsm_runner.records import Outcome, RunResult
from fsm_runner.roles.values import Secrets

#: The ``classname`` of every test case, so CI groups machine runs together.
CLASSNAME = "fsm_runner.machines"


def junit_tree(results: Sequence[RunResult], *, name: str = "fsm-runner", secrets: Secrets | None = None) -> ET.Element:
    """The ``<testsuites>`` element for ``results`` (one suite and one case per run)."""
    redact = (secrets or Secrets()).redact
    root = ET.Element("testsuites", name=name)
    stamp = datetime.now(UTC).replace(microsecond=0, tzinfo=None).isoformat()
    host = socket.gethostname() or "localhost"
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    wall = 0.0
    for index, result in enumerate(results):
        kind = _kind(result)
        counts = {
            "tests": 1,
            "failures": int(kind == "failure"),
            "errors": int(kind == "error"),
            "skipped": int(kind == "skipped"),
        }
        for key, value in counts.items():
            totals[key] += value
        wall += result.wall_s
        attributes = {
            "name": result.machine,
            "tests": "1",
            "failures": str(counts["failures"]),
            "errors": str(counts["errors"]),
            "skipped": str(counts["skipped"]),
            "time": _seconds(result.wall_s),
            "timestamp": stamp,
            "hostname": host,
            "id": str(index),
            "package": CLASSNAME,
        }
        suite = ET.SubElement(root, "testsuite", attributes)
        properties = ET.SubElement(suite, "properties")
        for prop, text in _properties(result):
            ET.SubElement(properties, "property", name=prop, value=redact(text))
        case = ET.SubElement(
            suite, "testcase", name=result.machine, classname=CLASSNAME, time=_seconds(result.wall_s)
        )
        message = redact(_message(result))
        if kind == "failure":
            ET.SubElement(case, "failure", message=message, type=f"{result.outcome.value}.{_layer(result)}").text = (
                redact(_details(result))
            )
        elif kind == "error":
            ET.SubElement(case, "error", message=message, type=f"{result.outcome.value}.{_layer(result)}").text = (
                redact(_details(result))
            )
        elif kind == "skipped":
            ET.SubElement(case, "skipped", message=message)
        if result.run_dir:
            ET.SubElement(case, "system-out").text = f"run directory: {result.run_dir}\n"
    root.set("tests", str(totals["tests"]))
    root.set("failures", str(totals["failures"]))
    root.set("errors", str(totals["errors"]))
    root.set("time", _seconds(wall))
    return root


def junit_text(results: Sequence[RunResult], *, name: str = "fsm-runner", secrets: Secrets | None = None) -> str:
    """:func:`junit_tree` serialised with an XML declaration."""
    tree = junit_tree(results, name=name, secrets=secrets)
    ET.indent(tree)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(tree, encoding="unicode") + "\n"


def write_junit(
    results: Sequence[RunResult], path: str | Path, *, name: str = "fsm-runner", secrets: Secrets | None = None
) -> Path:
    """Write the JUnit file for ``results`` (one run, or many merged) and return its path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(junit_text(results, name=name, secrets=secrets), encoding="utf-8")
    return target


def _kind(result: RunResult) -> str:
    if result.skipped:
        return "skipped"
    if result.outcome is Outcome.PASSED:
        return "passed"
    # A budget running out is the app or the test taking too long: a test failure, not broken infrastructure.
    if result.outcome in (Outcome.FAILED, Outcome.ABORTED):
        return "failure"
    return "error"


def _layer(result: RunResult) -> str:
    return result.layer.value if result.layer else (f"budget.{result.budget}" if result.budget else "unknown")


def _message(result: RunResult) -> str:
    layer = f" [layer: {result.layer.value}]" if result.layer else ""
    return f"{result.reason}{layer}"


def _details(result: RunResult) -> str:
    lines = [f"{result.outcome.value}: {result.reason}"]
    if result.layer:
        lines.append(f"layer: {result.layer.value}")
    if result.failed_state:
        lines.append(f"state: {result.failed_state}")
    if result.budget:
        lines.append(f"budget: {result.budget}")
    failing = next((r for r in result.steps if r.outcome not in ("passed", "skipped")), None)
    if failing is not None:
        lines.append(f"step {failing.index + 1}: {failing.intent} ({failing.outcome}: {failing.verdict_reason})")
    if result.run_dir:
        lines.append(f"report: {Path(result.run_dir) / 'report.html'}")
    return "\n".join(lines) + "\n"


def _properties(result: RunResult) -> list[tuple[str, str]]:
    usage = result.usage
    return [
        ("outcome", result.outcome.value),
        ("steps", str(len(result.steps))),
        ("tokens", str(usage.tokens)),
        ("llm_calls", str(usage.calls)),
        ("cache_hits", str(usage.cache_hits)),
        ("wall_s", _seconds(result.wall_s)),
        ("transitions", str(result.transitions)),
        ("device", result.device),
        ("run_id", result.run_id),
        ("run_dir", result.run_dir or ""),
    ]


def _seconds(value: float) -> str:
    return f"{max(0.0, value):.3f}"
