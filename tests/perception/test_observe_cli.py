from __future__ import annotations

import json
from pathlib import Path

import pytest

from fsm_runner.cli import EXIT_OK, EXIT_USAGE, main
from fsm_runner.perception import parse_dump
from fsm_runner.perception.tokens import count_tokens
from tests.perception.corpus import CORPUS_DIR
from tests.perception.shop_screens import cart

DUMP_009 = next(CORPUS_DIR.glob("009_*.xml"))


def test_observe_prints_the_planner_view_fingerprint_and_tokens(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["observe", str(DUMP_009)]) == EXIT_OK
    out = capsys.readouterr().out
    screen = parse_dump(DUMP_009.read_bytes())
    assert out.startswith('com.android.phone | title "Tipo de rede preferencial"')
    assert 'button "LTE preferencial"' in out
    assert f"fingerprint {screen.fingerprint}" in out
    expected_tokens = count_tokens(out.split("\nfingerprint ")[0])
    assert out.rstrip().endswith(f"tokens {expected_tokens if expected_tokens is not None else 'n/a'}")


def test_observe_json_lists_every_element_with_bounds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dump = tmp_path / "cart.xml"
    dump.write_text(cart(with_keyboard=True), encoding="utf-8")
    assert main(["observe", str(dump), "--view", "locator", "--json"]) == EXIT_OK
    payload = json.loads(capsys.readouterr().out)
    screen = parse_dump(dump.read_bytes())
    assert payload["fingerprint"] == screen.fingerprint
    assert payload["view"] == "locator"
    assert "[40,1750][1040,1880]" in payload["text"]
    assert [e["element_id"] for e in payload["elements"]] == [e.element_id for e in screen.elements]
    checkout = next(e for e in payload["elements"] if e["label"] == "Checkout")
    assert checkout["bounds"] == "[40,1750][1040,1880]"
    assert checkout["occluded_by"] == "keyboard"


@pytest.mark.parametrize("content", ["", "ERROR: could not get idle state.", "<hierarchy><node"])
def test_observe_exits_2_with_the_perception_error_for_a_bad_dump(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    dump = tmp_path / "bad.xml"
    dump.write_text(content, encoding="utf-8")
    assert main(["observe", str(dump)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith(f"error: {dump}: ")


def test_observe_exits_2_for_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["observe", str(tmp_path / "missing.xml")]) == EXIT_USAGE
    assert "cannot read" in capsys.readouterr().err


def test_observe_says_n_a_for_tokens_without_the_tokenizer(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("fsm_runner.cli.observe.count_tokens", lambda text: None)
    assert main(["observe", str(DUMP_009)]) == EXIT_OK
    assert capsys.readouterr().out.rstrip().endswith("tokens n/a")
