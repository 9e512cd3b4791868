"""The page map recorded from run directories, the map command, and the planner receiving the map."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import yaml
from structlog.testing import capture_logs

from fsm_runner.cli import main
from fsm_runner.errors import ConfigurationError
from fsm_runner.evidence.run_dir import RunDirectory
from fsm_runner.llm.cache import DecisionCache
from fsm_runner.llm.page_map import load_page_map, record_page_map
from fsm_runner.records import Outcome
from fsm_runner.testing import ChatServer
from tests.llm.goal_kit import goal_machine, replay_of, run_goal


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run directory of the dark-mode goal machine: screens from the recorder, events as JSON lines."""
    where = tmp_path_factory.mktemp("runs") / "goal-dark-mode-1"
    recorder = RunDirectory(where, render=False)

    async def scenario() -> None:
        with ChatServer(replay_of("dark_mode")) as server, capture_logs() as events:
            result = await run_goal(goal_machine("dark_mode"), server, DecisionCache(), recorder=recorder)
        assert result.outcome is Outcome.PASSED, result.reason
        with (where / "events.jsonl").open("w", encoding="utf-8") as out:
            for event in events:
                out.write(json.dumps(event, default=str) + "\n")

    asyncio.run(scenario())
    return where


def test_recorded_map_names_pages_their_controls_and_where_steps_led(run_dir: Path) -> None:
    pages = {page.name: page for page in record_page_map([run_dir]).pages}
    assert {"Welcome back", "Products", "Settings"} <= set(pages)
    assert {"Username", "Password", "Log in"} <= set(pages["Welcome back"].elements)
    assert "Dark mode" in pages["Settings"].elements
    assert {(t.step, t.to) for t in pages["Products"].transitions} == {("open the settings", "Settings")}
    assert ("log in", "Products") in {(t.step, t.to) for t in pages["Welcome back"].transitions}


def test_a_partial_events_file_still_maps_what_came_before(run_dir: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / "screens").symlink_to(run_dir / "screens")
    lines = (run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()
    half = len(lines) // 2
    (cut / "events.jsonl").write_text("\n".join(lines[:half]) + "\n" + lines[half][:17], encoding="utf-8")
    pages = {page.name for page in record_page_map([cut]).pages}
    assert "Welcome back" in pages and len(pages) < len(record_page_map([run_dir]).pages) + 1


def test_map_command_prints_yaml_and_refuses_a_directory_that_is_not_a_run(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["map", str(run_dir)]) == 0
    printed = yaml.safe_load(capsys.readouterr().out)
    assert printed["pages"]["Settings"]["elements"][0] in ("Navigate up", "Order notifications")
    out = tmp_path / "map.yaml"
    assert main(["map", str(run_dir), "--out", str(out)]) == 0
    assert "Welcome back" in load_page_map(out)
    assert main(["map", str(tmp_path)]) == 2
    assert "no events.jsonl" in capsys.readouterr().err


def test_a_page_map_file_without_pages_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "map.yaml"
    bad.write_text("- just a list\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="pages"):
        load_page_map(bad)


def test_the_planner_is_given_the_page_map(run_dir: Path) -> None:
    page_map = record_page_map([run_dir]).to_yaml()

    async def scenario() -> list[str]:
        with ChatServer(replay_of("dark_mode")) as server:
            result = await run_goal(goal_machine("dark_mode"), server, None, page_map=page_map)
        assert result.outcome is Outcome.PASSED
        return [r.text for r in server.requests]

    texts = asyncio.run(scenario())
    assert texts and all(page_map.strip() in text.split("PAGE MAP:\n", 1)[1] for text in texts)
