"""``fsm-runner.toml``: optional settings for devices, LLM profiles, budgets, cache and output.

Every key is checked when the file is read; an unknown key, a wrong type or a
bad value raises ``ConfigurationError`` naming the key (``budgets.max_steps``)
and the file. Command-line options override the file.

```toml
[device]
default = "sim"             # sim | sim-adb | an adb serial
adb_server = "127.0.0.1:5037"
locale = "en"               # en | zh-CN (the simulated phone)
seed = 0

[llm]
profile = "local"           # which [llm.profiles.*] the planner uses

[llm.profiles.local]
base_url = "http://127.0.0.1:8000/v1"
api_key_env = "FSM_RUNNER_LLM_API_KEY"
model = "qwen2.5-7b-instruct"
temperature = 0.0
max_tokens = 800
timeout_s = 60

[budgets]                   # override every machine's own budgets
max_steps = 40
max_wall_s = 600
max_llm_calls = 80
max_tokens = 200000

[cache]
enabled = true
path = ".fsm-runner/decisions.sqlite"

[run]
out = "runs"
```
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from fsm_runner.errors import ConfigurationError

#: The file looked for in the working directory when no ``--config`` is given.
DEFAULT_FILE = "fsm-runner.toml"

_LOCALES = ("en", "zh-CN")


@attrs.frozen
class DeviceSettings:
    default: str = "sim"
    adb_server: str = "127.0.0.1:5037"
    locale: str = "en"
    seed: int = 0


@attrs.frozen
class LlmProfile:
    """One OpenAI-compatible endpoint and how a role calls it; the key is read from ``api_key_env``."""

    base_url: str
    model: str
    api_key_env: str = "FSM_RUNNER_LLM_API_KEY"
    temperature: float = 0.0
    max_tokens: int = 800
    timeout_s: float = 60.0


@attrs.frozen
class LlmSettings:
    profile: str | None = None
    profiles: Mapping[str, LlmProfile] = attrs.field(factory=dict)


@attrs.frozen
class BudgetSettings:
    """Budgets that override every machine's own; ``None`` keeps the machine's value."""

    max_steps: int | None = None
    max_wall_s: float | None = None
    max_llm_calls: int | None = None
    max_tokens: int | None = None

    def overrides(self) -> dict[str, Any]:
        return {k: v for k, v in attrs.asdict(self).items() if v is not None}


@attrs.frozen
class CacheSettings:
    enabled: bool = True
    path: str = ".fsm-runner/decisions.sqlite"


@attrs.frozen
class RunSettings:
    out: str = "runs"


@attrs.frozen
class Config:
    """All settings; the defaults are what a missing file means."""

    device: DeviceSettings = DeviceSettings()
    llm: LlmSettings = LlmSettings()
    budgets: BudgetSettings = BudgetSettings()
    cache: CacheSettings = CacheSettings()
    run: RunSettings = RunSettings()
    source: str | None = None

    def llm_profile(self) -> LlmProfile | None:
        """The profile ``llm.profile`` names, or None when no LLM is configured."""
        if self.llm.profile is None:
            return None
        return self.llm.profiles[self.llm.profile]


_INT = (int,)
_NUMBER = (int, float)
_STRING = (str,)
_BOOL = (bool,)

#: section -> key -> accepted Python types, straight from the TOML parser.
_SCHEMA: dict[str, dict[str, tuple[type, ...]]] = {
    "device": {"default": _STRING, "adb_server": _STRING, "locale": _STRING, "seed": _INT},
    "budgets": {"max_steps": _INT, "max_wall_s": _NUMBER, "max_llm_calls": _INT, "max_tokens": _INT},
    "cache": {"enabled": _BOOL, "path": _STRING},
    "run": {"out": _STRING},
}
_PROFILE_SCHEMA: dict[str, tuple[type, ...]] = {
    "base_url": _STRING,
    "model": _STRING,
    "api_key_env": _STRING,
    "temperature": _NUMBER,
    "max_tokens": _INT,
    "timeout_s": _NUMBER,
}
_TYPE_WORDS: dict[tuple[type, ...], str] = {
    _INT: "an integer",
    _NUMBER: "a number",
    _STRING: "a string",
    _BOOL: "true or false",
}


def find_config(explicit: str | Path | None = None, cwd: str | Path | None = None) -> Path | None:
    """The config file to use: ``explicit`` (which must exist), else ``fsm-runner.toml`` in ``cwd`` if present."""
    if explicit is not None:
        path = Path(explicit)
        if not path.is_file():
            raise ConfigurationError(f"config file {path} does not exist; check --config")
        return path
    candidate = Path(cwd or ".") / DEFAULT_FILE
    return candidate if candidate.is_file() else None


def load_config(path: str | Path | None) -> Config:
    """Read and validate ``path``; ``None`` gives the defaults."""
    if path is None:
        return Config()
    source = Path(path)
    try:
        data = tomllib.loads(source.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise ConfigurationError(f"{source} is not valid TOML: {err}") from err
    except OSError as err:
        raise ConfigurationError(f"{source} cannot be read: {err.strerror}") from err
    return parse_config(data, source=str(source))


def parse_config(data: Mapping[str, Any], *, source: str = DEFAULT_FILE) -> Config:
    """Validate parsed TOML; the error names the offending key as ``section.key``."""
    known = (*_SCHEMA, "llm")
    for section, value in data.items():
        if section not in known:
            raise _bad(source, section, f"is not a known section (use {', '.join(known)})")
        if not isinstance(value, dict):
            raise _bad(source, section, "must be a table ([section])")
    sections = {name: _section(source, name, data.get(name, {})) for name in _SCHEMA}
    device = DeviceSettings(**sections["device"])
    if device.locale not in _LOCALES:
        raise _bad(source, "device.locale", f"must be one of {', '.join(_LOCALES)}, not {device.locale!r}")
    if ":" not in device.adb_server or not device.adb_server.rsplit(":", 1)[1].isdigit():
        raise _bad(source, "device.adb_server", f"must be HOST:PORT, not {device.adb_server!r}")
    budgets = BudgetSettings(**sections["budgets"])
    for key, limit in budgets.overrides().items():
        if limit <= 0:
            raise _bad(source, f"budgets.{key}", f"must be positive, not {limit!r}")
    return Config(
        device=device,
        llm=_llm(source, data.get("llm", {})),
        budgets=budgets,
        cache=CacheSettings(**sections["cache"]),
        run=RunSettings(**sections["run"]),
        source=source,
    )


def _section(source: str, name: str, table: Mapping[str, Any]) -> dict[str, Any]:
    return _keys(source, name, table, _SCHEMA[name])


def _keys(source: str, where: str, table: Mapping[str, Any], schema: Mapping[str, tuple[type, ...]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in table.items():
        name = f"{where}.{key}"
        if key not in schema:
            raise _bad(source, name, f"is not a known key (use {', '.join(schema)})")
        types = schema[key]
        # TOML booleans are ints to Python; a number key must not accept true/false.
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise _bad(source, name, f"must be {_TYPE_WORDS[types]}, not {value!r}")
        out[key] = float(table[key]) if types is _NUMBER else value
    return out


def _llm(source: str, table: Mapping[str, Any]) -> LlmSettings:
    profile = None
    profiles: dict[str, LlmProfile] = {}
    for key, value in table.items():
        if key == "profile":
            if not isinstance(value, str):
                raise _bad(source, "llm.profile", f"must be a string, not {value!r}")
            profile = value
        elif key == "profiles":
            if not isinstance(value, dict):
                raise _bad(source, "llm.profiles", "must be a table of [llm.profiles.NAME] tables")
            for name, body in value.items():
                where = f"llm.profiles.{name}"
                if not isinstance(body, dict):
                    raise _bad(source, where, "must be a table")
                fields = _keys(source, where, body, _PROFILE_SCHEMA)
                for required in ("base_url", "model"):
                    if required not in fields:
                        raise _bad(source, f"{where}.{required}", "is required")
                profiles[name] = LlmProfile(**fields)
        else:
            raise _bad(source, f"llm.{key}", "is not a known key (use profile, profiles)")
    if profile is not None and profile not in profiles:
        raise _bad(source, "llm.profile", f"names {profile!r}, which is not among [llm.profiles.*]")
    return LlmSettings(profile=profile, profiles=profiles)


def _bad(source: str, key: str, why: str) -> ConfigurationError:
    return ConfigurationError(f"{source}: {key} {why}")
