from __future__ import annotations

import json
from pathlib import Path

import pytest

from fsm_runner.cli import EXIT_OK, EXIT_TEST_FAILED, EXIT_USAGE, main

DATA = Path(__file__).parent / "data"


def test_locate_prints_ranked_candidates_with_bounds_as_in_the_dump(capsys: pytest.CaptureFixture[str]) -> None:
    dump = DATA / "demo_en_cart.xml"
    code = main(["locate", str(dump), "the second Delete button", "--json", "--top", "2"])
    payload = json.loads(capsys.readouterr().out)
    assert code == EXIT_OK
    assert payload["found"] is True
    assert len(payload["candidates"]) == 2
    best = payload["candidates"][0]
    assert best["bounds"] == "[750,662][1032,772]"
    assert f'bounds="{best["bounds"]}"' in dump.read_text(encoding="utf-8")
    assert 0 < best["score"] <= 1 and "#2 of 3" in best["reason"]


def test_locate_says_not_found_and_why(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["locate", str(DATA / "demo_en_login_keyboard.xml"), "the Log in button"])
    out = capsys.readouterr().out
    assert code == EXIT_TEST_FAILED
    assert out.startswith("not found:") and "covered by the keyboard" in out


def test_locate_json_for_an_absent_target_has_no_candidates(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["locate", str(DATA / "demo_zh-CN_cart.xml"), "立即支付", "--json"])
    assert code == EXIT_TEST_FAILED
    assert json.loads(capsys.readouterr().out)["candidates"] == []


def test_locate_text_output_lists_each_candidate(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["locate", str(DATA / "demo_zh-CN_cart.xml"), "第二个删除按钮"]) == EXIT_OK
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("1. ") and "[750,662][1032,772]" in first


def test_a_bad_dump_is_a_usage_error_naming_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_text("ERROR: could not get idle state", encoding="utf-8")
    assert main(["locate", str(bad), "Login"]) == EXIT_USAGE
    assert "bad.xml" in capsys.readouterr().err
    assert main(["locate", str(tmp_path / "missing.xml"), "Login"]) == EXIT_USAGE


def test_top_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["locate", str(DATA / "demo_en_cart.xml"), "Delete", "--top", "0"])
    assert info.value.code == 2
    assert "--top must be at least 1" in capsys.readouterr().err
