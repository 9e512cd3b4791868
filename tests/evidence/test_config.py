"""fsm-runner.toml: every key checked, errors naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from fsm_runner.config import Config, find_config, load_config, parse_config
from fsm_runner.errors import ConfigurationError

FULL = """
[device]
default = "emulator-5554"
adb_server = "10.0.0.2:5037"
locale = "zh-CN"
seed = 7

[llm]
profile = "local"

[llm.profiles.local]
base_url = "http://127.0.0.1:8000/v1"
model = "qwen"
temperature = 0.2
max_tokens = 500

[budgets]
max_steps = 20
max_wall_s = 120

[cache]
enabled = false

[run]
out = "evidence"
"""


def test_a_full_file_reads_into_settings(tmp_path: Path) -> None:
    path = tmp_path / "fsm-runner.toml"
    path.write_text(FULL, encoding="utf-8")
    config = load_config(find_config(cwd=tmp_path))
    assert config.device.default == "emulator-5554" and config.device.locale == "zh-CN" and config.device.seed == 7
    profile = config.llm_profile()
    assert profile is not None and profile.model == "qwen" and profile.max_tokens == 500
    assert profile.api_key_env == "FSM_RUNNER_LLM_API_KEY"
    assert config.budgets.overrides() == {"max_steps": 20, "max_wall_s": 120.0}
    assert config.cache.enabled is False and config.run.out == "evidence"
    assert config.source == str(path)


def test_no_file_means_the_defaults(tmp_path: Path) -> None:
    assert find_config(cwd=tmp_path) is None
    assert load_config(None) == Config()


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ({"budget": {}}, "budget is not a known section"),
        ({"budgets": {"max_stepz": 3}}, "budgets.max_stepz is not a known key"),
        ({"budgets": {"max_steps": "ten"}}, "budgets.max_steps must be an integer"),
        ({"budgets": {"max_steps": True}}, "budgets.max_steps must be an integer"),
        ({"budgets": {"max_wall_s": -1}}, "budgets.max_wall_s must be positive"),
        ({"device": {"locale": "fr"}}, "device.locale must be one of en, zh-CN"),
        ({"device": {"adb_server": "localhost"}}, "device.adb_server must be HOST:PORT"),
        ({"cache": {"enabled": "yes"}}, "cache.enabled must be true or false"),
        ({"run": []}, "run must be a table"),
        ({"llm": {"profile": "gpt"}}, "llm.profile names 'gpt', which is not among"),
        ({"llm": {"profiles": {"a": {"model": "m"}}}}, "llm.profiles.a.base_url is required"),
        ({"llm": {"profiles": {"a": {"base_url": "u", "model": "m", "temp": 1}}}}, "llm.profiles.a.temp is not"),
        ({"llm": {"mode": "x"}}, "llm.mode is not a known key"),
    ],
)
def test_a_bad_setting_names_its_key(data: dict[str, object], named: str) -> None:
    with pytest.raises(ConfigurationError, match=named.replace(".", r"\.").replace("(", r"\(")):
        parse_config(data, source="fsm-runner.toml")


def test_a_file_that_is_not_toml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "fsm-runner.toml"
    path.write_text("[device\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="is not valid TOML"):
        load_config(path)


def test_an_explicit_config_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="does not exist"):
        find_config(tmp_path / "nope.toml")
