"""``report.html``: one self-contained page per run, readable offline.

Verdict and reason first; then a timeline of steps (screenshots before and
after with the target outlined, the action, the expected states and what was
found, the deciding role, tokens, latency, cache hit or miss, heals); then the
machine diagram with the path taken. Images are embedded as data URIs and the
page loads nothing from anywhere. Every text passes through ``Secrets.redact``.
"""

from __future__ import annotations

import base64
import functools
import io
import re
from collections.abc import Mapping
from html import escape
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

from PIL import Image, UnidentifiedImageError

from fsm_runner import table
from fsm_runner.evidence.diagram import state_svg
from fsm_runner.evidence.reload import LoadedRun
from fsm_runner.evidence.run_dir import shot_path
from fsm_runner.records import HealRecord, RunResult, StepRecord
from fsm_runner.roles.values import Secrets

#: Width screenshots are scaled down to, at most, in the report (the page shows them at 240 px).
THUMB_WIDTH = 360

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


def render_report(run: LoadedRun, *, secrets: Secrets | None = None) -> str:
    """The report page of ``run`` as one HTML string, secrets redacted."""
    result = run.result_or_partial()
    verdict = "SKIPPED" if result.skipped else result.outcome.value
    template = Template(resources.files("fsm_runner.evidence").joinpath("report_template.html").read_text("utf-8"))
    _thumbnail.cache_clear()
    page = template.substitute(
        title=escape(f"{verdict}: {run.machine} ({run.run_id})"),
        verdict_class=verdict,
        verdict=verdict,
        machine=escape(run.machine),
        reason=escape(result.reason or "(no reason recorded)"),
        meta=_meta(result),
        incomplete=_incomplete(run),
        summary=_summary(result),
        timeline=_timeline(run, result),
        diagram=state_svg(run.path_taken()),
        mermaid=escape(table.mermaid(list(run.path_taken()))),
        source=escape(str(run.path)),
    )
    return (secrets or Secrets()).redact(page)


def write_report(run: LoadedRun, path: str | Path, *, secrets: Secrets | None = None) -> Path:
    """Render ``run`` into ``path`` and return it."""
    target = Path(path)
    target.write_text(render_report(run, secrets=secrets), encoding="utf-8")
    return target


def _meta(result: RunResult) -> str:
    parts = [f"run {escape(result.run_id)}"]
    if result.layer is not None:
        parts.append(f"layer: <b>{escape(result.layer.value)}</b>")
    if result.failed_state:
        parts.append(f"in state {escape(result.failed_state)}")
    if result.budget:
        parts.append(f"budget: {escape(result.budget)}")
    if result.device:
        parts.append(f"device {escape(result.device)}")
    return " · ".join(parts)


def _incomplete(run: LoadedRun) -> str:
    if run.complete and not run.problems:
        return ""
    items = "".join(f"<li>{escape(p)}</li>" for p in run.problems)
    head = "" if run.complete else f"<p><b>Incomplete record:</b> {escape(run.stopped_at())}.</p>"
    listing = f"<ul>{items}</ul>" if items else ""
    return f'<section class="incomplete" id="incomplete"><h2>Record problems</h2>{head}{listing}</section>'


def _summary(result: RunResult) -> str:
    usage = result.usage
    rows = [
        ("steps", str(len(result.steps))),
        ("wall time", f"{result.wall_s:.2f} s"),
        ("transitions", str(result.transitions)),
        ("observations", str(result.observations)),
        ("LLM calls", str(usage.calls)),
        ("tokens", f"{usage.tokens} ({usage.prompt_tokens} prompt + {usage.completion_tokens} completion)"),
        ("cache hits", str(usage.cache_hits)),
    ]
    failing = next((r for r in result.steps if r.outcome not in ("passed", "skipped")), None)
    if failing is not None:
        rows.append(("failing step", f'<a href="#step-{failing.index + 1}">step {failing.index + 1}</a>'))
    body = "".join(f"<tr><th>{escape(k)}</th><td>{v if k == 'failing step' else escape(v)}</td></tr>" for k, v in rows)
    return f'<table class="stats">{body}</table>'


def _timeline(run: LoadedRun, result: RunResult) -> str:
    if not result.steps:
        return "<p>No step finished.</p>"
    return "".join(_step(run, result, record) for record in result.steps)


def _step(run: LoadedRun, result: RunResult, record: StepRecord) -> str:
    number = record.index + 1
    failed = record.outcome not in ("passed", "skipped")
    flag = ""
    if failed:
        layer = result.layer.value if result.layer and record is result.steps[-1] else _heal_layer(record)
        flag = f'<span class="flag">{escape(record.outcome.upper())} · layer: {escape(layer or "unknown")}</span>'
    latency = max(0.0, record.ended_at - record.started_at)
    if record.decided_by == "scripted":
        cache = '<span class="tag">no LLM needed</span>'
    elif record.cache_hit:
        cache = '<span class="tag hit">cache hit</span>'
    else:
        cache = '<span class="tag miss">cache miss</span>'
    tags = (
        f'<span class="tag">decided by {escape(record.decided_by)}</span>{cache}'
        f'<span class="tag">{record.usage.calls} LLM calls</span><span class="tag">{record.usage.tokens} tokens</span>'
        f'<span class="tag">{latency:.2f} s</span>'
    )
    shots = (
        '<div class="shots">'
        + _shot(run, record.before_observation, record.target_bounds, "before")
        + _shot(run, record.after_observation, None, "after")
        + "</div>"
    )
    return (
        f'<section class="step {escape(record.outcome)}" id="step-{number}">'
        f"<h3>Step {number}: {escape(record.intent)} — {escape(record.outcome)}{flag}</h3>"
        f"<div>{tags}</div>{shots}{_action_table(record)}{_evidence(record)}{_role_calls(run, record.index)}"
        f"{_heals(record.heals)}"
        f"{_children(record.children)}</section>"
    )


def _heal_layer(record: StepRecord) -> str | None:
    return record.heals[-1].layer.value if record.heals else None


def _action_table(record: StepRecord) -> str:
    step = record.step
    rows: list[tuple[str, str]] = [("action", step.action.value)]
    if step.target:
        rows.append(("target", step.target))
    if step.value is not None:
        rows.append(("value", step.value))
    if record.action_id:
        rows.append(("action id", record.action_id))
    if record.target_element:
        rows.append(("element", f"{record.target_element} at {record.target_bounds or '?'}"))
    if record.execution:
        rows.append(("execution", f"{record.execution}: {record.execution_detail}"))
    rows.append(("before", record.before_summary or "-"))
    rows.append(("after", record.after_summary or "-"))
    if record.remembered:
        rows.append(("remembered", ", ".join(f"{k} = {v!r}" for k, v in record.remembered)))
    body = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in rows)
    candidates = ""
    if record.candidates:
        lines = "".join(
            f"<tr><td>{escape(c.element_id)}</td><td>{escape(c.label)}</td><td>{c.score:.2f}</td>"
            f"<td>{escape(str(c.bounds))}</td><td>{escape(c.reason)}</td></tr>"
            for c in record.candidates
        )
        candidates = (
            "<details><summary>candidates</summary><table><tr><th>element</th><th>label</th><th>score</th>"
            f"<th>bounds</th><th>reason</th></tr>{lines}</table></details>"
        )
    return f"<table>{body}</table>{candidates}"


def _evidence(record: StepRecord) -> str:
    expects = [e.describe() for e in record.step.expect]
    head = f"<p><b>Verdict:</b> {escape(record.verdict or '-')}"
    if record.verdict_reason:
        head += f" — {escape(record.verdict_reason)}"
    if record.llm_judged:
        head += ' <span class="tag">judged by the LLM fallback</span>'
    head += "</p>"
    if not record.evidence:
        expected = "; ".join(expects) if expects else "nothing beyond the action itself"
        return f"{head}<p>Expected: {escape(expected)}</p>"
    rows = "".join(
        f'<tr><td>{escape(e.expect)}</td><td class="{"held" if e.held else "not-held"}">'
        f'{"held" if e.held else "did not hold"}</td><td>{escape(e.found)}</td></tr>'
        for e in record.evidence
    )
    return f"{head}<table><tr><th>expected</th><th>result</th><th>found</th></tr>{rows}</table>"


def _role_calls(run: LoadedRun, index: int) -> str:
    """Each role's answer for step ``index`` from the events, with its latency (time since the event before)."""
    rows: list[str] = []
    previous: float | None = None
    for event in run.own_events():
        ts = event.get("ts")
        if event.get("event") == "role.call" and event.get("step") == index:
            took = f"{(ts - previous) * 1000:.0f}" if isinstance(ts, int | float) and previous is not None else "?"
            rows.append(
                f"<tr><td>{escape(str(event.get('role', '?')))}</td><td>{escape(str(event.get('decided_by', '')))}</td>"
                f"<td>{escape(_answer(event))}</td><td>{escape(str(event.get('tokens', 0)))}</td>"
                f"<td>{_cache_word(event)}</td><td>{took}</td></tr>"
            )
        if isinstance(ts, int | float):
            previous = float(ts)
    if not rows:
        return ""
    opened = " open" if len(rows) <= 6 else ""
    return (
        f"<details{opened}><summary>role calls ({len(rows)})</summary><table><tr><th>role</th><th>decided by</th>"
        f"<th>answer</th><th>tokens</th><th>cache</th><th>ms</th></tr>{''.join(rows)}</table></details>"
    )


def _answer(event: Mapping[str, Any]) -> str:
    if "status" in event:
        return f"{event['status']}: {event.get('reason', '')}".rstrip(": ")
    if "action" in event:
        return f"{event['action']} ({event.get('layer', '?')}): {event.get('reason', '')}"
    if "found" in event:
        found = event.get("candidates") or []
        return f"found {', '.join(map(str, found))} for {event.get('target', '')!r}" if event["found"] else "not found"
    if event.get("done"):
        return "plan done"
    return "next step"


def _cache_word(event: Mapping[str, Any]) -> str:
    if "cache_hit" not in event or event.get("decided_by") == "scripted":
        return ""
    return "hit" if event["cache_hit"] else "miss"


def _heals(heals: tuple[HealRecord, ...]) -> str:
    rows = "".join(
        f"<tr><td>{escape(h.state)}</td><td>{escape(h.cause)}</td><td>{escape(h.layer.value)}</td>"
        f"<td>{escape(h.action)}</td><td>{escape(h.reason)}</td><td>{escape(h.remedy)}</td></tr>"
        for h in heals
    )
    if not rows:
        return ""
    return (
        "<p><b>Heals</b></p><table><tr><th>state</th><th>cause</th><th>layer</th><th>decision</th>"
        f"<th>reason</th><th>remedy</th></tr>{rows}</table>"
    )


def _children(children: tuple[StepRecord, ...]) -> str:
    if not children:
        return ""
    items = "".join(
        f"<li>step {c.index + 1}: {escape(c.intent)} — {escape(c.outcome)}"
        f"{' (' + escape(c.verdict_reason) + ')' if c.verdict_reason else ''}</li>"
        for c in children
    )
    return f'<div class="children"><b>Sub-machine steps</b><ol>{items}</ol></div>'


def _shot(run: LoadedRun, index: int | None, bounds: str | None, caption: str) -> str:
    if index is None:
        return f'<figure class="missing">{escape(caption)}: no observation</figure>'
    label = f"{caption} · screen {index:04d}"
    thumb = _thumbnail(shot_path(run.path, index))
    if thumb is None:
        return f'<figure class="missing">{escape(label)}<br>(no readable screenshot)</figure>'
    data, width, height = thumb
    box = _target_box(bounds, width, height)
    note = f"<br>target {escape(bounds)}" if box and bounds else ""
    return (
        f'<figure><div class="frame"><img src="data:image/jpeg;base64,{data}" alt="{escape(label)}">{box}</div>'
        f"<figcaption>{escape(label)}{note}</figcaption></figure>"
    )


@functools.lru_cache(maxsize=256)
def _thumbnail(path: Path) -> tuple[str, int, int] | None:
    """The screenshot at ``path`` scaled to about :data:`THUMB_WIDTH` as base64 JPEG, with its original size.

    JPEG keeps a long run's report small and quick to write; the same screenshot
    (one step's "after", the next step's "before") is encoded once.
    """
    try:
        with Image.open(path) as image:
            width, height = image.size
            # An integer box reduction is many times faster than resampling and looks the same at this size.
            source = image if image.mode in ("RGB", "RGBA", "L") else image.convert("RGB")
            small = source.reduce(max(1, width // THUMB_WIDTH)).convert("RGB")
            buffer = io.BytesIO()
            small.save(buffer, format="JPEG", quality=75)
    except (OSError, UnidentifiedImageError, ValueError):
        return None
    return base64.b64encode(buffer.getvalue()).decode("ascii"), width, height


def _target_box(bounds: str | None, width: int, height: int) -> str:
    """An absolutely positioned box over the screenshot, in percent so it scales with the image."""
    match = _BOUNDS.fullmatch(bounds or "")
    if not match or width <= 0 or height <= 0:
        return ""
    x1, y1, x2, y2 = (int(v) for v in match.groups())
    left, top = 100 * max(0, x1) / width, 100 * max(0, y1) / height
    right, bottom = 100 * min(width, x2) / width, 100 * min(height, y2) / height
    if right <= left or bottom <= top:
        return ""
    return (
        f'<div class="target" title="target {escape(bounds or "")}" style="left:{left:.2f}%;top:{top:.2f}%;'
        f'width:{right - left:.2f}%;height:{bottom - top:.2f}%"></div>'
    )
