"""JUnit XML that CI servers accept: validated against the Jenkins / Ant JUnit schema."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import attrs
import pytest

from fsm_runner import RunResult
from fsm_runner.evidence import RunDirectory, junit_text, write_junit
from fsm_runner.records import Outcome

RunPair = tuple[RunResult, RunDirectory]


def _schema(data_dir: Path):  # type: ignore[no-untyped-def]
    etree = pytest.importorskip("lxml.etree", reason="lxml validates JUnit XML against tests/data/junit.xsd")
    return etree, etree.XMLSchema(etree.parse(str(data_dir / "junit.xsd")))


def test_run_directory_junit_validates_against_the_schema(failing_run: RunPair, data_dir: Path) -> None:
    _, directory = failing_run
    etree, schema = _schema(data_dir)
    document = etree.parse(str(directory.path / "junit.xml"))
    assert schema.validate(document), schema.error_log


def test_merged_junit_for_many_machines_validates_and_counts_them(
    passing_run: RunPair, failing_run: RunPair, data_dir: Path, tmp_path: Path
) -> None:
    aborted = attrs.evolve(failing_run[0], machine="budget-run", outcome=Outcome.ABORTED, budget="max_wall_s")
    errored = attrs.evolve(failing_run[0], machine="env-run", outcome=Outcome.ERROR)
    skipped = attrs.evolve(passing_run[0], machine="goal-only", skipped=True, reason="needs an LLM planner")
    results = [passing_run[0], failing_run[0], aborted, errored, skipped]
    path = write_junit(results, tmp_path / "merged.xml")
    etree, schema = _schema(data_dir)
    assert schema.validate(etree.parse(str(path))), schema.error_log
    root = ET.parse(path).getroot()
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("5", "2", "1")
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert list(cases) == ["shop-login-page", "shop-login-empty", "budget-run", "env-run", "goal-only"]
    assert cases["shop-login-page"].find("failure") is None
    assert cases["budget-run"].find("failure") is not None
    assert cases["env-run"].find("error") is not None
    assert cases["goal-only"].find("skipped") is not None


def test_failure_message_names_the_reason_and_layer(failing_run: RunPair) -> None:
    result, _ = failing_run
    root = ET.fromstring(junit_text([result]))
    failure = root.find("testsuite/testcase/failure")
    assert failure is not None and result.layer is not None
    assert failure.get("message") == f"{result.reason} [layer: {result.layer.value}]"
    assert failure.get("type") == f"FAILED.{result.layer.value}"
    assert "report.html" in (failure.text or "")


def test_suite_properties_carry_steps_tokens_calls_cache_hits_and_wall_time(failing_run: RunPair) -> None:
    result, _ = failing_run
    root = ET.fromstring(junit_text([result]))
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["steps"] == str(len(result.steps))
    assert props["tokens"] == str(result.usage.tokens)
    assert props["llm_calls"] == str(result.usage.calls)
    assert props["cache_hits"] == str(result.usage.cache_hits)
    assert props["wall_s"] == f"{result.wall_s:.3f}"


def test_schema_rejects_a_test_case_without_a_name(data_dir: Path) -> None:
    etree, schema = _schema(data_dir)
    bad = etree.fromstring(b'<testsuites><testsuite name="x" tests="1"><testcase time="1.0"/></testsuite></testsuites>')
    assert not schema.validate(bad)
